/* probe_resolve.c - turns -J specs into the recording's probes
 * (probe_attach.h): tracepoint globs expanded over available_events, each
 * kind's kernel support checked (BPF cookies; raw tracepoint cookies need
 * Linux 6.10+), and each probe's context: struct pt_regs for kprobes, the
 * btf_trace_<name> prototype's arguments for raw tracepoints, the event
 * record (tracefs format, struct trace_event_raw_<class> in BTF) for
 * classic tracepoints. */
#include "record/probe_attach.h"
#include "record/probe_spec.h"
#include "record/tp_format.h"
#include "common/array_grow.h"
#include "bpf/probe_cookie.h"
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <stdlib.h>
#include <string.h>

struct resolve_ctx {
	struct probe_set *ps;
	const struct btf *btf;
	uint32_t max_ctx;
	struct tp_list tps;
	bool tps_loaded;
	int cookie, rawtp_cookie;   /* -1: not probed yet, else 0/1 */
};

static int add_def(struct probe_set *ps, const struct probe_spec *s, const char *cat,
		   const char *target, struct probe_def **out)
{
	struct probe_def *d;
	char name[512];

	if (ps->n >= RSF_PROBES_MAX ||
	    array_grow((void **)&ps->v, ps->n, &ps->cap, sizeof(*ps->v), 8))
		return -1;
	d = &ps->v[ps->n];
	memset(d, 0, sizeof(*d));
	probe_display_name(s->kind, cat, target, s->offset, name, sizeof(name));
	d->kind = s->kind;
	d->offset = s->offset;
	d->spec = strdup(s->text);
	d->name = strdup(name);
	d->target = strdup(target);
	d->category = cat ? strdup(cat) : NULL;
	if (!d->spec || !d->name || !d->target || (cat && !d->category)) {
		free(d->spec);
		free(d->name);
		free(d->target);
		free(d->category);
		return -1;
	}
	ps->n++;
	*out = d;
	return 0;
}

static void set_ctx(struct probe_def *d, uint32_t size, uint32_t want, uint32_t max)
{
	d->ctx_size = size;
	d->want = want < max ? want : max;
	d->min = size < d->want ? size : d->want;
	d->trunc = size > d->want;
}

/* struct pt_regs */
static void kprobe_ctx(struct resolve_ctx *c, struct probe_def *d)
{
	int id = btf__find_by_name_kind(c->btf, "pt_regs", BTF_KIND_STRUCT);
	const struct btf_type *t = id > 0 ? btf__type_by_id(c->btf, id) : NULL;

	if (t) {
		d->src_btf_id = id;
		set_ctx(d, t->size, t->size, t->size);
	}
}

/* btf_trace_<name>: typedef of a pointer to a FUNC_PROTO whose first
 * parameter is the tracepoint's data pointer; the others are the u64
 * arguments the program sees. Its parameters have no names: those of the
 * same prototype of the __traceiter_<name> function do. */
static void rawtp_ctx(struct resolve_ctx *c, struct probe_def *d)
{
	char tn[320];
	const struct btf_type *t;
	int id;

	snprintf(tn, sizeof(tn), "__traceiter_%s", d->target);
	id = btf__find_by_name_kind(c->btf, tn, BTF_KIND_FUNC);
	t = id > 0 ? btf__type_by_id(c->btf, id) : NULL;
	t = t ? btf__type_by_id(c->btf, t->type) : NULL;
	if (t && btf_is_func_proto(t) && btf_vlen(t) >= 1) {
		d->src_btf_id = (int32_t)btf__type_by_id(c->btf, id)->type;
		set_ctx(d, 8u * (btf_vlen(t) - 1), 8u * (btf_vlen(t) - 1), 8u * (btf_vlen(t) - 1));
		return;
	}
	snprintf(tn, sizeof(tn), "btf_trace_%s", d->target);
	id = btf__find_by_name_kind(c->btf, tn, BTF_KIND_TYPEDEF);
	if (id <= 0)
		return;
	t = btf__type_by_id(c->btf, id);
	t = t ? btf__type_by_id(c->btf, t->type) : NULL;
	if (!t || !btf_is_ptr(t))
		return;
	id = (int)t->type;
	t = btf__type_by_id(c->btf, id);
	if (!t || !btf_is_func_proto(t) || btf_vlen(t) < 1)
		return;
	d->src_btf_id = id;
	set_ctx(d, 8u * (btf_vlen(t) - 1), 8u * (btf_vlen(t) - 1), 8u * (btf_vlen(t) - 1));
}

/* does struct ID lay out every non-common field of F where F says */
static bool layout_matches(const struct btf *btf, int id, const struct tp_format *f)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const struct btf_member *m = btf_members(t);
	size_t found = 0, want = 0;

	for (size_t i = 0; i < f->n; i++) {
		char dl[96];

		if (f->f[i].common)
			continue;
		want++;
		snprintf(dl, sizeof(dl), "__data_loc_%s", f->f[i].name);
		for (unsigned k = 0; k < btf_vlen(t); k++) {
			const char *mn = btf__name_by_offset(btf, m[k].name_off);

			if (mn && (!strcmp(mn, f->f[i].name) || !strcmp(mn, dl)) &&
			    btf_member_bit_offset(t, k) == f->f[i].offset * 8) {
				found++;
				break;
			}
		}
	}
	return found == want;
}

/* struct trace_event_raw_<event>, else the first trace_event_raw_* struct
 * with the event's layout (events of one class share it) */
static int tp_class_struct(const struct btf *btf, const char *event, const struct tp_format *f)
{
	char tn[320];
	int id, n = (int)btf__type_cnt(btf);

	snprintf(tn, sizeof(tn), "trace_event_raw_%s", event);
	id = btf__find_by_name_kind(btf, tn, BTF_KIND_STRUCT);
	if (id > 0 && layout_matches(btf, id, f))
		return id;
	for (id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const char *nm;

		if (!btf_is_struct(t))
			continue;
		nm = btf__name_by_offset(btf, t->name_off);
		if (nm && !strncmp(nm, "trace_event_raw_", 16) && layout_matches(btf, id, f))
			return id;
	}
	return 0;
}

/* an event without a trace_event_raw_<class> in the kernel BTF (syscall
 * events): a struct made from its format in the set's own BTF */
static void tp_synth(struct resolve_ctx *c, struct probe_def *d, const struct tp_format *f)
{
	char name[320];
	int id;

	if (!c->ps->synth && !(c->ps->synth = btf__new_empty()))
		return;
	snprintf(name, sizeof(name), "trace_event_raw_%s", d->target);
	id = tp_format_btf(f, name, c->ps->synth);
	if (id > 0) {
		d->src_btf_id = id;
		d->synth = true;
	}
}

static int tp_ctx(struct resolve_ctx *c, struct probe_def *d, char *err, size_t errlen)
{
	struct tp_format f;

	if (tp_format_load(NULL, d->category, d->target, &f, err, errlen))
		return -1;
	d->src_btf_id = tp_class_struct(c->btf, d->target, &f);
	if (!d->src_btf_id)
		tp_synth(c, d, &f);
	/* __data_loc strings follow the fixed part: copy up to the bound */
	set_ctx(d, f.fixed_size, f.has_data_loc ? c->max_ctx : f.fixed_size, c->max_ctx);
	return 0;
}

/* the kernel's support for a kind, as one line naming the spec */
static int check_kind(struct resolve_ctx *c, const struct probe_spec *s, char *err, size_t errlen)
{
	if (c->cookie < 0)
		c->cookie = libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE, BPF_FUNC_get_attach_cookie,
						    NULL) > 0;
	if (!c->cookie) {
		snprintf(err, errlen, "probe '%s' needs BPF cookies (Linux 5.15+), which this "
			 "kernel lacks", s->text);
		return -1;
	}
	if (s->kind != RSF_PROBE_RAWTP)
		return 0;
	if (c->rawtp_cookie < 0)
		c->rawtp_cookie = libbpf_probe_bpf_helper(BPF_PROG_TYPE_RAW_TRACEPOINT,
							  BPF_FUNC_get_attach_cookie, NULL) > 0;
	if (!c->rawtp_cookie) {
		snprintf(err, errlen, "probe '%s' needs raw tracepoint BPF cookies (Linux 6.10+), "
			 "which this kernel lacks", s->text);
		return -1;
	}
	return 0;
}

static int resolve_tp(struct resolve_ctx *c, const struct probe_spec *s, char *err, size_t errlen)
{
	size_t *m, nm;
	int ret = 0;

	if (!c->tps_loaded) {
		if (tp_list_load(&c->tps, NULL, err, errlen))
			return -1;
		c->tps_loaded = true;
	}
	if (probe_spec_match_tp(s, &c->tps, &m, &nm, err, errlen))
		return -1;
	for (size_t i = 0; i < nm && !ret; i++) {
		const char *cn = c->tps.v[m[i]], *colon = strchr(cn, ':');
		char cat[256];
		struct probe_def *d;

		snprintf(cat, sizeof(cat), "%.*s", (int)(colon - cn), cn);
		if (add_def(c->ps, s, cat, colon + 1, &d)) {
			snprintf(err, errlen, "probe '%s': too many probes (at most %u) or out of "
				 "memory", s->text, RSF_PROBES_MAX);
			ret = -1;
		} else {
			char inner[400];

			if (tp_ctx(c, d, inner, sizeof(inner))) {
				snprintf(err, errlen, "probe '%s': %s", s->text, inner);
				ret = -1;
			}
		}
	}
	free(m);
	return ret;
}

static int resolve_one(struct resolve_ctx *c, const char *text, char *err, size_t errlen)
{
	struct probe_spec s;
	struct probe_def *d;
	int ret = 0;

	if (probe_spec_parse(text, &s, err, errlen))
		return -1;
	if (check_kind(c, &s, err, errlen))
		ret = -1;
	else if (s.kind == RSF_PROBE_TP)
		ret = resolve_tp(c, &s, err, errlen);
	else if (add_def(c->ps, &s, NULL, s.name, &d)) {
		snprintf(err, errlen, "probe '%s': too many probes (at most %u) or out of memory",
			 s.text, RSF_PROBES_MAX);
		ret = -1;
	} else if (s.kind == RSF_PROBE_RAWTP)
		rawtp_ctx(c, d);
	else
		kprobe_ctx(c, d);
	probe_spec_free(&s);
	return ret;
}

int probe_set_resolve(struct probe_set *ps, char *const *specs, size_t nspecs,
		      const struct btf *vmlinux, uint32_t max_ctx, FILE *log, const char *prog,
		      char *err, size_t errlen)
{
	struct resolve_ctx c = { .ps = ps, .btf = vmlinux, .max_ctx = max_ctx,
				 .cookie = -1, .rawtp_cookie = -1 };
	char one[1024];
	int bad = 0;

	if (c.max_ctx > RS_PROBE_CTX_MAX)
		c.max_ctx = RS_PROBE_CTX_MAX;
	for (size_t i = 0; i < nspecs; i++) {
		if (!resolve_one(&c, specs[i], one, sizeof(one)))
			continue;
		if (bad++)   /* every failing spec gets its own line */
			fprintf(log, "%s: %s\n", prog, err);
		snprintf(err, errlen, "%s", one);
	}
	if (c.tps_loaded)
		tp_list_free(&c.tps);
	return bad ? -1 : 0;
}
