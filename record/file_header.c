/* file_header.c - the recording's header and tables (file_header.h). */
#include "record/file_header.h"
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KALLSYMS_PATH "/proc/kallsyms"

static bool is_bpf_sym(const struct ksym *k)
{
	return k->module && strcmp(k->module, "bpf") == 0;
}

/* ks (read before attaching) plus BPF_KS, the [bpf] symbols read now:
 * the trampolines and programs of this recorder's attach (fentry stacks
 * go through them) and of every BPF user loaded meanwhile. A [bpf]
 * symbol of ks is kept only when nothing of BPF_KS sits at its address
 * (it was unloaded since). */
static struct rsf_ksym *ksyms_snapshot(const struct ksyms *ks, const struct ksyms *bpf_ks,
				       size_t *n)
{
	size_t cnt = ksyms_count(ks), nb = ksyms_count(bpf_ks), m = 0;
	struct rsf_ksym *v = calloc(cnt + nb ? cnt + nb : 1, sizeof(*v));

	if (!v)
		return NULL;
	for (size_t i = 0; i < cnt + nb; i++) {
		const struct ksym *k = i < cnt ? ksyms_at(ks, i) : ksyms_at(bpf_ks, i - cnt);
		const struct ksym *f;

		if (i < cnt && is_bpf_sym(k) && bpf_ks &&
		    (f = ksyms_lookup(bpf_ks, k->addr)) && f->addr == k->addr)
			continue;
		v[m].addr = k->addr;
		v[m].type = k->type;
		v[m].name = k->name;
		v[m].module = k->module;
		m++;
	}
	*n = m;
	return v;
}

static uint64_t ksym_addr(const struct ksyms *ks, const char *name)
{
	size_t cnt;
	const struct ksym *k = ksyms_find(ks, name, NULL, &cnt);

	return k ? k->addr : 0;
}

static void fill_meta(struct rsf_meta *m, const struct record_opts *o, const struct ksyms *ks,
		      const char *attach_mode, uint32_t features, const char *lbr_status)
{
	memset(m, 0, sizeof(*m));
	snprintf(m->recorder_version, sizeof(m->recorder_version), "%s", RECORD_VERSION);
	snprintf(m->cmdline, sizeof(m->cmdline), "%s", o->cmdline);
	kernel_info_fill(m);
	m->stext_addr = ksym_addr(ks, "_stext");
	m->text_addr = ksym_addr(ks, "_text");
	snprintf(m->attach_mode, sizeof(m->attach_mode), "%s", attach_mode);
	m->features = features;
	m->mode = (o->stacks ? RSF_MODE_STACKS : 0) | (o->trace ? RSF_MODE_TRACE : 0) |
		  (o->lbr ? RSF_MODE_LBR : 0) | (o->success == 1 ? RSF_MODE_SUCCESS : 0) |
		  (o->interim ? RSF_MODE_INTERIM : 0);
	m->lbr_flags = o->lbr_flags;
	if (lbr_status)
		snprintf(m->lbr_status, sizeof(m->lbr_status), "%.*s",
			 (int)sizeof(m->lbr_status) - 1, lbr_status);
}

int file_header_build(struct file_header *h, const struct record_opts *o,
		      const struct ksyms *ks, const struct selection *sel,
		      const char *attach_mode, uint32_t features, const char *lbr_status,
		      struct ksyms *bpf_ks, char *err, size_t errlen)
{
	char bpf_err[256];

	memset(h, 0, sizeof(*h));
	fill_meta(&h->meta, o, ks, attach_mode, features, lbr_status);
	kmodules_load(&h->mods);
	/* BPF_KS from the recorder's KSYMBOL watch, else a second read (best
	 * effort: without it, fentry stacks show raw addresses) */
	h->bpf_ks = bpf_ks ? bpf_ks : ksyms_load_module(KALLSYMS_PATH, "bpf", bpf_err,
							 sizeof(bpf_err));
	h->ksyms = ksyms_snapshot(ks, h->bpf_ks, &h->nksyms);
	h->funcs = calloc(sel->n ? sel->n : 1, sizeof(*h->funcs));
	if (!h->ksyms || !h->funcs) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < sel->n; i++) {
		h->funcs[i].addr = sel->v[i].addr;
		h->funcs[i].flags = sel->v[i].flags;
		h->funcs[i].name = sel->v[i].name;
		h->funcs[i].module = sel->v[i].module;
	}
	h->nfuncs = sel->n;
	return 0;
}

void file_header_free(struct file_header *h)
{
	free(h->ksyms);
	free(h->funcs);
	ksyms_free(h->bpf_ks);
	kmodules_free(&h->mods);
	memset(h, 0, sizeof(*h));
}
