/* args_capture.c - -A's recording side (args_capture.h): plans, blobs and
 * the BPF configuration. */
#include "record/args_capture.h"
#include "record/args_spec.h"
#include "record/btf_subset.h"
#include "record/map_fill.h"
#include <linux/types.h>
#include "retsnoop.skel.h"
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* module BTFs loaded so far (split over vmlinux) */
struct mod_btfs {
	struct { char *name; struct btf *btf; } *v;
	size_t n;
};

static struct btf *module_btf(struct mod_btfs *m, struct btf *vmlinux, const char *mod)
{
	char path[512];
	void *nv;
	struct btf *b;

	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->v[i].name, mod))
			return m->v[i].btf;
	snprintf(path, sizeof(path), "/sys/kernel/btf/%s", mod);
	b = btf__parse_split(path, vmlinux);
	if (libbpf_get_error(b))
		b = NULL;   /* remembered as none: its functions get raw registers */
	nv = realloc(m->v, (m->n + 1) * sizeof(*m->v));
	if (!nv) {
		btf__free(b);
		return NULL;
	}
	m->v = nv;
	m->v[m->n].name = strdup(mod);
	m->v[m->n].btf = b;
	m->n++;
	return b;
}

static void mod_btfs_free(struct mod_btfs *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->v[i].name);
		btf__free(m->v[i].btf);
	}
	free(m->v);
}

/* the BTF and FUNC_PROTO id of traced function F (0: none) */
static uint32_t func_proto(struct mod_btfs *m, struct btf *vmlinux, const struct traced_func *f,
			   const struct btf **out)
{
	const struct btf *b = vmlinux;
	const struct btf_type *t;
	int id = f->btf_id;

	if (f->module) {
		b = module_btf(m, vmlinux, f->module);
		id = b ? btf__find_by_name_kind(b, f->name, BTF_KIND_FUNC) : -1;
	}
	if (!b || id <= 0)
		return 0;
	t = btf__type_by_id(b, id);
	if (!t || !btf_is_func(t))
		return 0;
	*out = b;
	return t->type;
}

static int plan_all(struct args_capture *ac, struct btf *vmlinux, const struct selection *sel,
		    const struct record_opts *o, struct btf_subset *sub, char *err, size_t errlen)
{
	struct mod_btfs mods = { 0 };
	int ret = 0;

	for (size_t i = 0; i < sel->n && !ret; i++) {
		const struct btf *b = NULL;
		uint32_t proto = func_proto(&mods, vmlinux, &sel->v[i], &b);
		int id = proto ? btf_subset_add(sub, b, proto) : 0;

		if (id < 0) {
			snprintf(err, errlen, "-A: copying the BTF of %s failed: %s", sel->v[i].name,
				 strerror(-id));
			ret = -1;
			break;
		}
		args_spec_build(b, proto, o->args_raw_ptrs, &ac->specs[i]);
		ac->func_btf[i] = (uint32_t)id;
		ac->with_btf += id > 0;
	}
	mod_btfs_free(&mods);
	return ret;
}

int args_capture_build(struct args_capture *ac, struct btf *vmlinux, const struct selection *sel,
		       const struct record_opts *o, struct header_blobs *blobs,
		       char *err, size_t errlen)
{
	struct btf_subset *sub = NULL;
	const void *raw;
	uint32_t size = 0;
	int ret = -1;

	memset(ac, 0, sizeof(*ac));
#if !defined(__x86_64__)
	snprintf(err, errlen, "-A captures arguments by the x86-64 calling convention only");
	return -1;
#endif
	ac->n = sel->n;
	ac->specs = calloc(sel->n ? sel->n : 1, sizeof(*ac->specs));
	ac->func_btf = calloc(sel->n ? sel->n : 1, sizeof(*ac->func_btf));
	sub = btf_subset_new(0);
	if (!ac->specs || !ac->func_btf || !sub) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (plan_all(ac, vmlinux, sel, o, sub, err, errlen))
		goto out;
	raw = btf_subset_raw(sub, &size);
	if (!raw || header_blobs_add(blobs, "btf", raw, size) ||
	    header_blobs_add(blobs, "func_btf", ac->func_btf, sel->n * sizeof(uint32_t))) {
		snprintf(err, errlen, "-A: building the \"btf\" blob failed");
		goto out;
	}
	ac->btf_size = size;
	ac->btf_types = btf_subset_types(sub);
	ret = 0;
out:
	btf_subset_free(sub);
	return ret;
}

void args_capture_preload(struct retsnoop_bpf *s, const struct record_opts *o, size_t nfuncs)
{
	int ncpus = libbpf_num_possible_cpus();

	s->rodata->capture_args = o->capture_args;
	s->rodata->args_max_total = o->args_max_total;
	s->rodata->args_max_sized = o->args_max_sized;
	s->rodata->args_max_str = o->args_max_str;
	bpf_map__set_max_entries(s->maps.arg_specs,
				 o->capture_args && nfuncs ? (uint32_t)nfuncs : 1);
	bpf_map__set_max_entries(s->maps.args_bufs,
				 o->capture_args && ncpus > 0 ? (uint32_t)ncpus : 1);
}

int args_capture_fill(const struct args_capture *ac, struct retsnoop_bpf *s,
		      char *err, size_t errlen)
{
	if (array_map_fill(bpf_map__fd(s->maps.arg_specs), ac->specs, (uint32_t)ac->n)) {
		snprintf(err, errlen, "-A: filling the argument plans failed: %s", strerror(errno));
		return -1;
	}
	return 0;
}

void args_capture_free(struct args_capture *ac)
{
	free(ac->specs);
	free(ac->func_btf);
	memset(ac, 0, sizeof(*ac));
}
