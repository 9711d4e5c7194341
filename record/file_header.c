/* file_header.c - the recording's header and tables (file_header.h). */
#include "record/file_header.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct rsf_ksym *ksyms_snapshot(const struct ksyms *ks, size_t *n)
{
	size_t cnt = ksyms_count(ks);
	struct rsf_ksym *v = calloc(cnt ? cnt : 1, sizeof(*v));

	if (!v)
		return NULL;
	for (size_t i = 0; i < cnt; i++) {
		const struct ksym *k = ksyms_at(ks, i);

		v[i].addr = k->addr;
		v[i].type = k->type;
		v[i].name = k->name;
		v[i].module = k->module;
	}
	*n = cnt;
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
		      char *err, size_t errlen)
{
	memset(h, 0, sizeof(*h));
	fill_meta(&h->meta, o, ks, attach_mode, features, lbr_status);
	kmodules_load(&h->mods);
	h->ksyms = ksyms_snapshot(ks, &h->nksyms);
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
	kmodules_free(&h->mods);
	memset(h, 0, sizeof(*h));
}
