/* json_out.c - `--format json`: writes each session as one JSON object on
 * one line (NDJSON) with its logical frames, symbolized kernel stack and
 * any trace/LBR records; schema in docs/json-schema.md and
 * docs/report.schema.json. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "args_json.h"
#include "../common/json_writer.h"
#include "json_out.h"
#include "../format/probe_table.h"
#include "probe_ctx.h"
#include "result_fmt.h"
#include "stack_view.h"
#include "ustack_json.h"

struct json_out {
	struct rp_env *env;
	struct json_writer w;
	struct sv_kframe *kf;             /* RS_MAX_KSTACK_DEPTH, reused per session */
	int kpos[RS_MAX_KSTACK_DEPTH];    /* recorded kstack index -> kf index, -1 */
	int match[RS_MAX_FSTACK_DEPTH];   /* logical frame -> kf index, -1 */
	struct sv_frame lf[RS_MAX_FSTACK_DEPTH];
	char unk[RS_MAX_FSTACK_DEPTH][24];
};

static struct json_out *json_out_new(struct rp_env *env, FILE *out)
{
	struct json_out *j = calloc(1, sizeof(*j));

	if (!j)
		return NULL;
	j->kf = malloc(RS_MAX_KSTACK_DEPTH * sizeof(*j->kf));
	if (!j->kf) {
		free(j);
		return NULL;
	}
	j->env = env;
	jw_init(&j->w, out);
	return j;
}

static void json_out_free(struct json_out *j)
{
	if (!j)
		return;
	free(j->kf);
	free(j);
}

/* ISO 8601 local time with nanoseconds and UTC offset */
static void put_iso(struct json_writer *w, int64_t real_ns)
{
	time_t secs = (time_t)(real_ns >= 0 ? real_ns / 1000000000 : 0);
	long ns = (long)(real_ns >= 0 ? real_ns % 1000000000 : 0);
	struct tm tm;
	char date[40], zone[8];

	localtime_r(&secs, &tm);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm);
	strftime(zone, sizeof(zone), "%z", &tm);   /* +hhmm */
	jw_strf(w, "%s.%09ld%.3s:%s", date, ns, zone, zone + 3);
}

static void put_result(struct json_writer *w, int64_t raw, uint32_t flags)
{
	char buf[RESULT_FMT_MAX];
	size_t n;

	result_fmt(buf, sizeof(buf), raw, flags);
	n = strlen(buf);
	if (n >= 2 && buf[0] == '[' && buf[n - 1] == ']') {
		memmove(buf, buf + 1, n - 2);
		buf[n - 2] = '\0';
	}
	jw_obj_begin(w);
	jw_key(w, "raw");
	jw_int(w, raw);
	jw_key(w, "value");
	jw_int(w, result_normalize(raw, flags));
	jw_key(w, "text");
	jw_str(w, buf);
	jw_key(w, "is_error");
	jw_bool(w, result_is_error(raw, flags));
	jw_obj_end(w);
}

static void put_src(struct json_writer *w, const struct symb_src *s)
{
	jw_obj_begin(w);
	jw_key(w, "func");
	jw_str_or_null(w, s->func[0] ? s->func : NULL);
	jw_key(w, "file");
	jw_str_or_null(w, s->file[0] ? s->file : NULL);
	jw_key(w, "line");
	jw_int(w, s->line);
	jw_obj_end(w);
}

/* "source":..,"inlines":[..] of a symbolized address */
static void put_src_inlines(struct json_writer *w, const struct symb_info *si)
{
	jw_key(w, "source");
	if (si && si->has_src)
		put_src(w, &si->src);
	else
		jw_null(w);
	jw_key(w, "inlines");
	jw_arr_begin(w);
	for (int i = 0; si && i < si->ninlines && i < SYMB_MAX_INLINES; i++)
		put_src(w, &si->inlines[i]);
	jw_arr_end(w);
}

/* "symbol":..,"module":..,"offset":.. of a symbolized address (si NULL:
 * no symbol covers it) */
static void put_sym(struct json_writer *w, const struct symb_info *si)
{
	jw_key(w, "symbol");
	jw_str_or_null(w, si ? si->name : NULL);
	jw_key(w, "module");
	jw_str_or_null(w, si ? si->module : NULL);
	jw_key(w, "offset");
	if (si)
		jw_uint(w, si->offset);
	else
		jw_null(w);
}

/* an LBR address: symbol only */
static void put_addr_sym(struct json_writer *w, const char *key, struct symbolizer *sym,
			 uint64_t addr)
{
	struct symb_info si;

	jw_key(w, key);
	jw_obj_begin(w);
	put_sym(w, sym && symbolize(sym, addr, false, &si) == 0 ? &si : NULL);
	jw_obj_end(w);
}

/* -A: "args" of the call entered at SEQ_ID: an array, null without */
static void put_call_args(struct json_out *j, const struct rp_session *s, uint32_t seq_id,
			  uint32_t func_id)
{
	/* values whole: a width limit is for the terminal */
	struct args_fmt fmt = { .mode = ARGS_FMT_COMPACT, .max_width = 0, .ascii = true };
	struct args_list l = {0};
	bool have = s->nargs && rp_call_args(j->env, s, seq_id, func_id, &fmt, &l);

	jw_key(&j->w, "args");
	args_json_put(&j->w, have ? &l : NULL);
	args_list_free(&l);
}

static void put_trace(struct json_out *j, const struct rp_session *s, const struct rs_rec_trace *t)
{
	struct json_writer *w = &j->w;
	char buf[32];
	bool exit = t->hdr.type == RS_REC_TRACE_EXIT;

	jw_obj_begin(w);
	jw_key(w, "type");
	jw_str(w, exit ? "exit" : "entry");
	jw_key(w, "ts_ns");
	jw_uint(w, t->ts);
	jw_key(w, "func");
	jw_str(w, rp_func_name(j->env, t->func_id, buf, sizeof(buf)));
	jw_key(w, "func_id");
	jw_uint(w, t->func_id);
	jw_key(w, "depth");
	jw_uint(w, t->depth);
	jw_key(w, "seq_id");
	jw_uint(w, t->seq_id);
	if (exit) {
		jw_key(w, "result");
		put_result(w, t->res, rp_func_flags(j->env, t->func_id));
		jw_key(w, "latency_ns");
		jw_uint(w, t->lat_ns);
	} else if (s->nargs) {
		put_call_args(j, s, t->seq_id, t->func_id);
	}
	jw_obj_end(w);
}

/* a -J hit: one level inside the innermost running call */
static void put_probe(struct json_out *j, const struct rs_rec_probe *p)
{
	struct args_fmt fmt = { .mode = ARGS_FMT_COMPACT, .max_width = 0, .ascii = true };
	struct args_list l = {0};
	struct json_writer *w = &j->w;
	char buf[32];

	jw_obj_begin(w);
	jw_key(w, "type");
	jw_str(w, "probe");
	jw_key(w, "ts_ns");
	jw_uint(w, p->ts);
	jw_key(w, "probe");
	jw_str(w, rsf_probe_name(j->env->probes_blob, j->env->probes_size, p->probe_id, buf,
				 sizeof(buf)));
	jw_key(w, "probe_id");
	jw_uint(w, p->probe_id);
	jw_key(w, "depth");
	jw_uint(w, p->depth + 1u);
	jw_key(w, "seq_id");
	jw_uint(w, p->seq_id);
	if (p->flags & (RS_PROBEF_CTX | RS_PROBEF_CTX_ERR)) {   /* -A */
		bool have = rp_probe_ctx(j->env, p, &fmt, &l);

		jw_key(w, "context");
		args_json_put(w, have ? &l : NULL);
		args_list_free(&l);
	}
	jw_obj_end(w);
}

/* the -T records and the -J hits, merged by sequence id */
static void put_trace_rows(struct json_out *j, const struct rp_session *s)
{
	size_t pi = 0;

	for (size_t i = 0; i < s->ntrace; i++) {
		for (; pi < s->nprobes && s->probes[pi]->seq_id < s->trace[i].seq_id; pi++)
			put_probe(j, s->probes[pi]);
		put_trace(j, s, &s->trace[i]);
	}
	for (; pi < s->nprobes; pi++)
		put_probe(j, s->probes[pi]);
}

static void put_lbrs(struct json_out *j, struct symbolizer *sym, const struct rs_rec_lbr *l)
{
	struct json_writer *w = &j->w;
	int n = l->lbrs_sz > 0 ? l->lbrs_sz / (int)sizeof(l->lbrs[0]) : 0;
	size_t room = (l->hdr.size - offsetof(struct rs_rec_lbr, lbrs)) / sizeof(l->lbrs[0]);

	if (n > RS_MAX_LBR_ENTRIES)
		n = RS_MAX_LBR_ENTRIES;
	if ((size_t)n > room)
		n = (int)room;
	for (int i = 0; i < n; i++) {
		jw_obj_begin(w);
		jw_key(w, "from");
		jw_hex(w, l->lbrs[i].from);
		jw_key(w, "to");
		jw_hex(w, l->lbrs[i].to);
		jw_key(w, "flags");
		jw_uint(w, l->lbrs[i].flags);
		put_addr_sym(w, "from_sym", sym, l->lbrs[i].from);
		put_addr_sym(w, "to_sym", sym, l->lbrs[i].to);
		jw_obj_end(w);
	}
}

/* symbolizes the kernel stack once and merges the logical frames into it
 * the way the text stack view does (kf, kpos, match) */
static void merge_stacks(struct json_out *j, const struct rp_session *s, struct symbolizer *sym)
{
	const struct rs_rec_session_end *e = s->e;
	int m;

	for (int i = 0; i < e->nframes; i++) {
		memset(&j->lf[i], 0, sizeof(j->lf[i]));
		j->lf[i].name = rp_func_name(j->env, e->frames[i].func_id, j->unk[i], sizeof(j->unk[i]));
	}
	m = stack_view_merge(sym, j->lf, e->nframes, e->kstack, s->nk, j->kf, j->match);
	for (int i = 0; i < s->nk; i++)
		j->kpos[i] = -1;
	for (int k = 0; k < m; k++)
		j->kpos[j->kf[k].kidx] = k;
}

static void put_flags(struct json_writer *w, uint32_t flags)
{
	jw_key(w, "flags");
	jw_obj_begin(w);
	jw_key(w, "raw");
	jw_uint(w, flags);
	jw_key(w, "interim");
	jw_bool(w, flags & RS_SESS_INTERIM);
	jw_key(w, "stitched");
	jw_bool(w, flags & RS_SESS_STITCHED);
	jw_key(w, "overflow");
	jw_bool(w, flags & RS_SESS_OVERFLOW);
	jw_obj_end(w);
}

/* the session's own fields, up to its frames */
static void put_session_head(struct json_out *j, const struct rp_session *s)
{
	const struct rs_rec_session_end *e = s->e;
	int64_t m2r = j->env->meta->mono_to_realtime_ns;
	struct json_writer *w = &j->w;

	if (j->env->rec_file) {   /* several recordings: which one */
		jw_key(w, "recording");
		jw_obj_begin(w);
		jw_key(w, "index");
		jw_int(w, j->env->rec_index);
		jw_key(w, "file");
		jw_str(w, j->env->rec_file);
		jw_key(w, "hostname");
		jw_str(w, j->env->rec_host);
		jw_obj_end(w);
	}
	jw_key(w, "session_id");
	jw_uint(w, e->sess_id);
	jw_key(w, "tid");
	jw_uint(w, e->tid);
	jw_key(w, "pid");
	jw_uint(w, e->pid);
	jw_key(w, "task_comm");
	jw_str(w, s->task_comm);
	jw_key(w, "proc_comm");
	jw_str(w, s->proc_comm);
	jw_key(w, "start_ktime_ns");
	jw_uint(w, e->start_ts);
	jw_key(w, "end_ktime_ns");
	jw_uint(w, e->end_ts);
	jw_key(w, "start_ns");
	jw_int(w, (int64_t)e->start_ts + m2r);
	jw_key(w, "end_ns");
	jw_int(w, (int64_t)e->end_ts + m2r);
	jw_key(w, "start_time");
	put_iso(w, (int64_t)e->start_ts + m2r);
	jw_key(w, "end_time");
	put_iso(w, (int64_t)e->end_ts + m2r);
	jw_key(w, "latency_ns");
	jw_uint(w, rp_session_latency(s));
	jw_key(w, "is_err");
	jw_bool(w, e->flags & RS_SESS_IS_ERR);
	put_flags(w, e->flags);
	jw_key(w, "depth");
	jw_uint(w, e->depth);
	jw_key(w, "stitch_pos");
	jw_uint(w, (e->flags & RS_SESS_STITCHED) ? e->stitch_pos : 0);
	jw_key(w, "dropped_records");
	jw_uint(w, e->dropped_records);
	jw_key(w, "overflow_calls");
	jw_uint(w, e->overflow_calls);
	jw_key(w, "kstack_error");
	if (e->kstack_sz < 0)
		jw_int(w, e->kstack_sz);
	else
		jw_null(w);
}

/* where the call is on the kernel stack: the return address inside the
 * function, its offset, source line and inlined frames (K NULL: not on it) */
static void put_frame_kstack(struct json_writer *w, const struct sv_kframe *k)
{
	jw_key(w, "kstack_index");
	if (k)
		jw_int(w, k->kidx);
	else
		jw_null(w);
	jw_key(w, "ip");
	if (k)
		jw_hex(w, k->addr);
	else
		jw_null(w);
	jw_key(w, "offset");
	if (k)
		jw_uint(w, k->si.offset);
	else
		jw_null(w);
	put_src_inlines(w, k ? &k->si : NULL);
}

static void put_frame(struct json_out *j, const struct rp_session *s, int i)
{
	const struct rs_rec_session_end *e = s->e;
	const struct rs_frame *f = &e->frames[i];
	struct json_writer *w = &j->w;
	bool unfinished = (e->flags & RS_SESS_INTERIM) && i < e->depth;
	const struct sv_kframe *k = j->match[i] >= 0 ? &j->kf[j->match[i]] : NULL;

	jw_obj_begin(w);
	jw_key(w, "depth");
	jw_int(w, i);
	jw_key(w, "func");
	jw_str(w, j->lf[i].name);
	jw_key(w, "func_id");
	jw_uint(w, f->func_id);
	jw_key(w, "module");
	jw_str_or_null(w, rp_func_module(j->env, f->func_id));
	jw_key(w, "addr");
	if (f->func_id < j->env->nfuncs)
		jw_hex(w, j->env->funcs[f->func_id].addr);
	else
		jw_null(w);
	jw_key(w, "seq_id");
	jw_uint(w, f->seq_id);
	jw_key(w, "result");
	if (unfinished)
		jw_null(w);
	else
		put_result(w, f->res, rp_func_flags(j->env, f->func_id));
	jw_key(w, "latency_ns");
	jw_uint(w, unfinished ? 0 : f->lat_ns);
	jw_key(w, "stitched");
	jw_bool(w, (e->flags & RS_SESS_STITCHED) && i >= e->stitch_pos);
	jw_key(w, "unfinished");
	jw_bool(w, unfinished);
	jw_key(w, "missing_from_kstack");
	jw_bool(w, s->nk && !k);
	put_frame_kstack(w, k);
	if (s->nargs)   /* recorded with -A */
		put_call_args(j, s, f->seq_id, f->func_id);
	jw_obj_end(w);
}

static void put_kframe(struct json_out *j, const struct rp_session *s, int i)
{
	const struct sv_kframe *k = j->kpos[i] >= 0 ? &j->kf[j->kpos[i]] : NULL;
	bool ok = k && k->resolved;
	struct json_writer *w = &j->w;

	jw_obj_begin(w);
	jw_key(w, "addr");
	jw_hex(w, s->e->kstack[i]);
	put_sym(w, ok ? &k->si : NULL);
	put_src_inlines(w, ok ? &k->si : NULL);
	jw_key(w, "hidden");
	jw_bool(w, k && k->filtered);
	jw_obj_end(w);
}

static int json_out_session(struct json_out *j, const struct rp_session *s)
{
	struct symbolizer *sym = rp_symbolizer(j->env);
	struct json_writer *w = &j->w;
	const struct us_stack *us;

	merge_stacks(j, s, sym);
	jw_obj_begin(w);
	put_session_head(j, s);
	jw_key(w, "frames");
	jw_arr_begin(w);
	for (int i = 0; i < s->e->nframes; i++)
		put_frame(j, s, i);
	jw_arr_end(w);
	jw_key(w, "kstack");
	jw_arr_begin(w);
	for (int i = 0; i < s->nk; i++)
		put_kframe(j, s, i);
	jw_arr_end(w);
	jw_key(w, "trace");
	jw_arr_begin(w);
	put_trace_rows(j, s);
	jw_arr_end(w);
	jw_key(w, "lbr");
	jw_arr_begin(w);
	for (size_t i = 0; i < s->nlbrs; i++)
		put_lbrs(j, sym, s->lbrs[i]);
	jw_arr_end(w);
	if ((us = ustack_res_get(j->env->ures, s))) {   /* recorded with -U */
		jw_key(w, "user_stack");
		ustack_json_put(w, us);
	}
	jw_obj_end(w);
	jw_newline(w);
	return jw_error(w);
}

/* ------------------------------------------------------ as an output */
static bool json_wanted(const struct rp_setup *su)
{
	return su->sel->json;
}

static unsigned json_needs(const struct rp_setup *su)
{
	(void)su;
	return RP_NEED_TRACE | RP_NEED_LBR;
}

static void *json_begin(const struct rp_setup *su, char *err, size_t errlen)
{
	struct json_out *j = json_out_new(su->env, su->out);

	if (!j)
		snprintf(err, errlen, "out of memory");
	return j;
}

static int json_session(void *o, const struct rp_session *s)
{
	return json_out_session(o, s);
}

static int json_finish(void *o, char *err, size_t errlen)
{
	(void)o;
	(void)err;
	(void)errlen;
	return 0;   /* stdout is flushed and checked by the pipeline */
}

static void json_free(void *o)
{
	json_out_free(o);
}

const struct rp_output rp_out_json = {
	.name = "json",
	.wanted = json_wanted,
	.needs = json_needs,
	.begin = json_begin,
	.session = json_session,
	.finish = json_finish,
	.free = json_free,
};
