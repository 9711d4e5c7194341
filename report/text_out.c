/* text_out.c - the text output (text_out.h): renders each session
 * snapshot's header line and the trace, LBR and stack views that
 * report_opts asks for, on the command's stdout. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "args_render.h"
#include "lbr_view.h"
#include "probe_ctx.h"
#include "args_store.h"
#include "session_asm.h"
#include "stack_view.h"
#include "text_out.h"
#include "trace_view.h"
#include "ustack_view.h"

struct text_out {
	struct rp_env *env;
	struct report_opts opts;
	FILE *out;
	struct sv_frame lf[RS_MAX_FSTACK_DEPTH];
	char unk[RS_MAX_FSTACK_DEPTH][24];
	struct args_list args[RS_MAX_FSTACK_DEPTH];   /* -A: per logical frame */
};

static bool text_wanted(const struct rp_setup *su)
{
	return !su->sel->json && !su->sel->folded && !su->sel->summary;
}

static unsigned text_needs(const struct rp_setup *su)
{
	return (su->opts->show_trace ? RP_NEED_TRACE : 0) | (su->opts->show_lbr ? RP_NEED_LBR : 0);
}

static void *text_begin(const struct rp_setup *su, char *err, size_t errlen)
{
	struct text_out *t = calloc(1, sizeof(*t));

	if (!t) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	t->env = su->env;
	t->opts = *su->opts;
	t->out = su->out;
	return t;
}

static void fmt_ts(char *buf, size_t len, uint64_t ktime_ns, int64_t mono_to_real)
{
	int64_t real = (int64_t)ktime_ns + mono_to_real;
	time_t secs = (time_t)(real / 1000000000);
	long usec = (long)((real % 1000000000) / 1000);
	struct tm tm;
	size_t n;

	if (real < 0) {   /* never happens with a sane offset; keep it printable */
		secs = 0;
		usec = 0;
	}
	localtime_r(&secs, &tm);
	n = strftime(buf, len, "%H:%M:%S", &tm);
	snprintf(buf + n, len - n, ".%06ld", usec);
}

/* a -T row's arguments (trace_view.h) */
struct trace_args_ctx {
	struct text_out *t;
	const struct rp_session *s;
};

static bool trace_args(void *ctx, uint32_t seq_id, uint32_t func_id, struct args_list *l)
{
	struct trace_args_ctx *c = ctx;

	if (!l)
		return args_find(c->s->args, c->s->nargs, seq_id, func_id) != NULL;
	return rp_call_args(c->t->env, c->s, seq_id, func_id, &c->t->opts.args, l) != NULL;
}

/* a -T probe row's context (trace_view.h) */
static bool trace_probe_ctx(void *ctx, uint32_t seq_id, struct args_list *l)
{
	struct trace_args_ctx *c = ctx;
	const struct rs_rec_probe *p = rp_probe_find(c->s, seq_id);

	if (!p || !(p->flags & (RS_PROBEF_CTX | RS_PROBEF_CTX_ERR)))
		return false;
	return !l || rp_probe_ctx(c->t->env, p, &c->t->opts.args, l);
}

/* does any hit of S carry a context (-A) */
static bool probes_have_ctx(const struct rp_session *s)
{
	for (size_t i = 0; i < s->nprobes; i++)
		if (s->probes[i]->flags & (RS_PROBEF_CTX | RS_PROBEF_CTX_ERR))
			return true;
	return false;
}

/* the -T view (no records when the session's START was never seen) */
static void render_trace(struct text_out *t, const struct rp_session *s)
{
	struct tv_table tv = {
		.probes = s->probes, .nprobes = s->nprobes,
		.probes_blob = t->env->probes_blob, .probes_size = t->env->probes_size,
	};
	const struct us_stack *us;
	struct trace_args_ctx c = { t, s };
	struct tv_args ta = { .fn = s->nargs ? trace_args : NULL,
			      .probe_fn = probes_have_ctx(s) ? trace_probe_ctx : NULL,
			      .ctx = &c, .mode = t->opts.args.mode };

	fputc('\n', t->out);
	if (trace_view_build(&tv, s->trace, s->ntrace, t->env->funcs, t->env->nfuncs,
			     s->e->last_seq_id) == 0)
		trace_view_print_args(t->out, &tv, &ta);
	else
		fprintf(t->out, "(out of memory rendering the function call trace)\n");
	tv_table_free(&tv);
	if (!t->opts.show_stack && (us = ustack_res_get(t->env->ures, s))) {
		struct sv_opts so = { .emit_addrs = t->opts.emit_addrs, .dec_offs = t->opts.dec_offs };

		fputc('\n', t->out);
		ustack_view_print(t->out, us, &so);
	}
	if (s->trace_overflow)
		fprintf(t->out, "WARNING! %" PRIu64 " trace record(s) of this session were not kept "
			"(more than %u buffered, or %llu MiB in all).\n", s->trace_overflow,
			RP_ASM_MAX_TRACE, RP_ASM_MAX_BYTES >> 20);
}

/* the -B view: branches relevant to the deepest traced function */
static void render_lbr(struct text_out *t, const struct rp_session *s)
{
	const struct rs_rec_session_end *e = s->e;
	struct lv_opts lo = {
		.emit_addrs = t->opts.emit_addrs,
		.dec_offs = t->opts.dec_offs,
		.unfiltered = t->opts.unfiltered,
		.max_count = t->opts.lbr_max_count,
	};
	uint64_t func_addr = 0;

	if (t->env->meta->lbr_status[0])   /* not captured at all: the recorder said why */
		return;
	if (e->nframes && e->frames[e->nframes - 1].func_id < t->env->nfuncs)
		func_addr = t->env->funcs[e->frames[e->nframes - 1].func_id].addr;
	fputc('\n', t->out);
	lbr_view_render(t->out, rp_symbolizer(t->env), s->lbr_new, func_addr, &lo);
}

/* the logical frames as the stack view takes them */
static void logical_frames(struct text_out *t, const struct rp_session *s)
{
	const struct rs_rec_session_end *e = s->e;
	bool interim = e->flags & RS_SESS_INTERIM, stitched = e->flags & RS_SESS_STITCHED;

	for (int i = 0; i < e->nframes; i++) {
		const struct rs_frame *f = &e->frames[i];
		struct sv_frame *lf = &t->lf[i];

		memset(lf, 0, sizeof(*lf));
		lf->name = rp_func_name(t->env, f->func_id, t->unk[i], sizeof(t->unk[i]));
		lf->flags = rp_func_flags(t->env, f->func_id);
		lf->res = f->res;
		lf->lat_ns = f->lat_ns;
		lf->unfinished = interim && i < e->depth;
		lf->stitched = stitched && i >= e->stitch_pos;
		if (s->nargs && rp_call_args(t->env, s, f->seq_id, f->func_id, &t->opts.args,
					     &t->args[i]))
			lf->args = &t->args[i];
	}
}

static void render_stack(struct text_out *t, const struct rp_session *s)
{
	const struct rs_rec_session_end *e = s->e;
	struct sv_opts so = {
		.args_mode = t->opts.args.mode,
		.emit_addrs = t->opts.emit_addrs,
		.dec_offs = t->opts.dec_offs,
		.unfiltered = t->opts.unfiltered,
	};
	struct sv_table sv = {0};
	const struct us_stack *us;

	logical_frames(t, s);
	fputc('\n', t->out);
	if (stack_view_build(&sv, rp_symbolizer(t->env), t->lf, e->nframes, e->kstack, s->nk,
			     &so) == 0 && (!(us = ustack_res_get(t->env->ures, s)) ||
					   ustack_view_rows(&sv, us, &so) == 0))
		stack_view_print(t->out, &sv);
	else
		fprintf(t->out, "(out of memory rendering the stack)\n");
	sv_table_free(&sv);
	for (int i = 0; i < e->nframes; i++)
		args_list_free(&t->args[i]);
	if (s->args_overflow)
		fprintf(t->out, "WARNING! %" PRIu64 " argument record(s) of this session were not kept "
			"(more than %u buffered, or %llu MiB in all).\n", s->args_overflow,
			RP_ASM_MAX_ARGS, RP_ASM_MAX_BYTES >> 20);
	if (e->kstack_sz < 0)
		fprintf(t->out, "WARNING! Kernel stack capture failed (error %d).\n", e->kstack_sz);
}

static void render_header(struct text_out *t, const struct rp_session *s)
{
	const struct rs_rec_session_end *e = s->e;
	bool stitched = e->flags & RS_SESS_STITCHED;
	char ts1[40], ts2[40];

	if (t->opts.verbose >= 2) {
		fprintf(t->out, "SESSION %" PRIu64 " GOT %s STACK (depth %u):\n", e->sess_id,
			(e->flags & RS_SESS_IS_ERR) ? "ERROR" : "SUCCESS", e->nframes);
		fprintf(t->out, "DEPTH %u MAX DEPTH %u STITCH POS %u\n", s->raw_depth, e->nframes,
			stitched ? e->stitch_pos : 0);
	}
	fmt_ts(ts1, sizeof(ts1), e->start_ts, t->env->meta->mono_to_realtime_ns);
	fmt_ts(ts2, sizeof(ts2), e->end_ts, t->env->meta->mono_to_realtime_ns);
	if (t->env->rec_file)   /* several recordings: which one */
		fprintf(t->out, "[%s %s] ", t->env->rec_host, t->env->rec_file);
	fprintf(t->out, "%s -> %s TID/PID %u/%u (%s/%s):\n", ts1, ts2, e->tid, e->pid,
		s->task_comm, s->proc_comm);
}

static int text_session(void *o, const struct rp_session *s)
{
	struct text_out *t = o;
	const struct rs_rec_session_end *e = s->e;

	render_header(t, s);
	if (t->opts.show_trace)
		render_trace(t, s);
	if (t->opts.show_lbr)
		render_lbr(t, s);
	if (t->opts.show_stack)
		render_stack(t, s);
	if (e->dropped_records)
		fprintf(t->out, "WARNING! Sample data incomplete! %u record(s) dropped. "
			"Consider increasing -C bpf.ringbuf-size.\n", e->dropped_records);
	if ((e->flags & RS_SESS_OVERFLOW) || e->overflow_calls)
		fprintf(t->out, "WARNING! %u nested call(s) beyond the tracked depth were not tracked "
			"(-C bpf.max-depth, at most %d).\n", e->overflow_calls, RS_MAX_FSTACK_DEPTH);
	fputs("\n\n", t->out);
	return ferror(t->out) ? -1 : 0;
}

static int text_finish(void *o, char *err, size_t errlen)
{
	(void)o;
	(void)err;
	(void)errlen;
	return 0;   /* stdout is flushed and checked by the pipeline */
}

static void text_free(void *o)
{
	free(o);
}

const struct rp_output rp_out_text = {
	.name = "text",
	.wanted = text_wanted,
	.needs = text_needs,
	.begin = text_begin,
	.session = text_session,
	.finish = text_finish,
	.free = text_free,
};
