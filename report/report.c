/* report.c - the rendering engine behind report.h: keeps per-session state
 * keyed by sess_id, renders a session's stack view when its SESSION_END
 * (final or interim) record arrives, frees state on final/ignored ends,
 * and closes with the recording's drop statistics. */
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "../common/array_grow.h"
#include "report.h"
#include "dwarf_backend.h"
#include "lbr_view.h"
#include "stack_view.h"
#include "symbolize.h"
#include "trace_view.h"

#define SESS_BUCKETS 1024
/* per-session bound on buffered -T records (40 bytes each); records past it
 * are counted and show up as a trailing "missing records" row */
#define SESS_MAX_TRACE_RECS (1u << 20)

/* buffered per-session data (records of the session seen so far) */
struct sess {
	struct sess *next;
	uint64_t sess_id;
	struct rs_rec_trace *trace;   /* -T records, arrival order */
	size_t ntrace, trace_cap;
	uint64_t trace_overflow;      /* records not kept: SESS_MAX_TRACE_RECS */
	struct rs_rec_lbr *lbr;       /* latest LBR record, consumed by the next END */
};

struct report {
	const struct rsf_meta *meta;
	const struct rsf_func *funcs;
	size_t nfuncs;
	struct report_opts opts;
	FILE *out;
	struct symbolizer *sym;
	struct sess *buckets[SESS_BUCKETS];
	uint64_t sessions_rendered, interim_rendered, sessions_ignored;
	uint64_t sessions_with_drops, bad_records;
	uint64_t orphan_records;      /* trace records of sessions never started */
	uint64_t trace_overflow;
};

struct report *report_new(const struct rsf_meta *meta,
			  const struct rsf_ksym *ksyms, size_t nksyms,
			  const struct rsf_module *mods, size_t nmods,
			  const struct rsf_func *funcs, size_t nfuncs,
			  const struct report_opts *opts, FILE *out,
			  char *err, size_t errlen)
{
	struct report *r = calloc(1, sizeof(*r));

	if (!r) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	r->meta = meta;
	r->funcs = funcs;
	r->nfuncs = nfuncs;
	r->opts = *opts;
	r->out = out;
	r->sym = symbolizer_new(ksyms, nksyms, mods, nmods);
	if (!r->sym) {
		snprintf(err, errlen, "out of memory loading %zu kallsyms entries", nksyms);
		free(r);
		return NULL;
	}
	if (dwarf_backend_attach(r->sym, meta, mods, nmods, opts, stderr, err, errlen)) {
		symbolizer_free(r->sym);
		free(r);
		return NULL;
	}
	return r;
}

static struct sess **sess_slot(struct report *r, uint64_t id)
{
	struct sess **pp = &r->buckets[(id ^ (id >> 32)) % SESS_BUCKETS];

	while (*pp && (*pp)->sess_id != id)
		pp = &(*pp)->next;
	return pp;
}

static struct sess *sess_get(struct report *r, uint64_t id, bool create)
{
	struct sess **pp = sess_slot(r, id);

	if (!*pp && create) {
		*pp = calloc(1, sizeof(**pp));
		if (*pp)
			(*pp)->sess_id = id;
	}
	return *pp;
}

static void sess_drop(struct report *r, uint64_t id)
{
	struct sess **pp = sess_slot(r, id), *s = *pp;

	if (!s)
		return;
	*pp = s->next;
	free(s->trace);
	free(s->lbr);
	free(s);
}

/* a -T record: kept only for sessions whose START was seen */
static int sess_keep_trace(struct report *r, uint64_t id, const struct rs_rec_hdr *h)
{
	struct sess *s = sess_get(r, id, false);
	struct rs_rec_trace *t;

	if (!s) {
		r->orphan_records++;
		return 0;
	}
	if (s->ntrace >= SESS_MAX_TRACE_RECS) {
		s->trace_overflow++;
		r->trace_overflow++;
		return 0;
	}
	if (array_grow((void **)&s->trace, s->ntrace, &s->trace_cap, sizeof(*s->trace), 64))
		return -1;
	t = &s->trace[s->ntrace++];
	memset(t, 0, sizeof(*t));
	memcpy(t, h, h->size < sizeof(*t) ? h->size : sizeof(*t));
	return 0;
}

/* an LBR record: the latest one of the session is kept until its END */
static int sess_keep_lbr(struct report *r, uint64_t id, const struct rs_rec_hdr *h)
{
	struct sess *s = sess_get(r, id, true);

	if (!s)
		return -1;
	if (!s->lbr && !(s->lbr = malloc(sizeof(*s->lbr))))
		return -1;
	memset(s->lbr, 0, sizeof(*s->lbr));
	memcpy(s->lbr, h, h->size < sizeof(*s->lbr) ? h->size : sizeof(*s->lbr));
	s->lbr->hdr.size = h->size < sizeof(*s->lbr) ? h->size : sizeof(*s->lbr);
	return 0;
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

static void copy_comm(char *dst, const char *src)
{
	size_t n = strnlen(src, RS_TASK_COMM_LEN);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* the -T view of session S (NULL: its START was never seen) */
static void render_trace(struct report *r, const struct sess *s, const struct rs_rec_session_end *e)
{
	struct tv_table t = {0};

	fputc('\n', r->out);
	if (trace_view_build(&t, s ? s->trace : NULL, s ? s->ntrace : 0, r->funcs, r->nfuncs,
			     e->last_seq_id) == 0)
		trace_view_print(r->out, &t);
	else
		fprintf(r->out, "(out of memory rendering the function call trace)\n");
	tv_table_free(&t);
	if (s && s->trace_overflow)
		fprintf(r->out, "WARNING! %" PRIu64 " trace record(s) of this session were not kept "
			"(more than %u buffered).\n", s->trace_overflow, SESS_MAX_TRACE_RECS);
}

/* the -B view of session S: branches relevant to the deepest traced function */
static void render_lbr(struct report *r, const struct sess *s, const struct rs_rec_session_end *e)
{
	struct lv_opts lo = {
		.emit_addrs = r->opts.emit_addrs,
		.dec_offs = r->opts.dec_offs,
		.unfiltered = r->opts.unfiltered,
		.max_count = r->opts.lbr_max_count,
	};
	uint64_t func_addr = 0;

	if (r->meta->lbr_status[0])   /* not captured at all: the recorder said why */
		return;
	if (e->nframes && e->frames[e->nframes - 1].func_id < r->nfuncs)
		func_addr = r->funcs[e->frames[e->nframes - 1].func_id].addr;
	fputc('\n', r->out);
	lbr_view_render(r->out, r->sym, s ? s->lbr : NULL, func_addr, &lo);
}

static void render_session(struct report *r, const struct rs_rec_session_end *e, int nk)
{
	struct sess *s = sess_get(r, e->sess_id, false);
	struct sv_frame lf[RS_MAX_FSTACK_DEPTH];
	struct sv_opts so = {
		.emit_addrs = r->opts.emit_addrs,
		.dec_offs = r->opts.dec_offs,
		.unfiltered = r->opts.unfiltered,
	};
	struct sv_table t = {0};
	char ts1[40], ts2[40], tcomm[RS_TASK_COMM_LEN + 1], pcomm[RS_TASK_COMM_LEN + 1];
	char unk[RS_MAX_FSTACK_DEPTH][24];
	bool interim = e->flags & RS_SESS_INTERIM;
	bool stitched = e->flags & RS_SESS_STITCHED;
	int nl = e->nframes;

	for (int i = 0; i < nl; i++) {
		const struct rs_frame *f = &e->frames[i];

		memset(&lf[i], 0, sizeof(lf[i]));
		if (f->func_id < r->nfuncs) {
			lf[i].name = r->funcs[f->func_id].name;
			lf[i].flags = r->funcs[f->func_id].flags;
		} else {
			snprintf(unk[i], sizeof(unk[i]), "<func#%u>", f->func_id);
			lf[i].name = unk[i];
		}
		lf[i].res = f->res;
		lf[i].lat_ns = f->lat_ns;
		lf[i].unfinished = interim && i < e->depth;
		lf[i].stitched = stitched && i >= e->stitch_pos;
	}

	if (r->opts.verbose >= 2) {
		fprintf(r->out, "SESSION %" PRIu64 " GOT %s STACK (depth %u):\n", e->sess_id,
			(e->flags & RS_SESS_IS_ERR) ? "ERROR" : "SUCCESS", e->nframes);
		fprintf(r->out, "DEPTH %u MAX DEPTH %u STITCH POS %u\n", e->depth, e->nframes,
			stitched ? e->stitch_pos : 0);
	}
	fmt_ts(ts1, sizeof(ts1), e->start_ts, r->meta->mono_to_realtime_ns);
	fmt_ts(ts2, sizeof(ts2), e->end_ts, r->meta->mono_to_realtime_ns);
	copy_comm(tcomm, e->task_comm);
	copy_comm(pcomm, e->proc_comm);
	fprintf(r->out, "%s -> %s TID/PID %u/%u (%s/%s):\n", ts1, ts2, e->tid, e->pid, tcomm, pcomm);

	if (r->opts.show_trace)
		render_trace(r, s, e);
	if (r->opts.show_lbr)
		render_lbr(r, s, e);
	if (s && s->lbr) {   /* consumed: a later snapshot brings its own */
		free(s->lbr);
		s->lbr = NULL;
	}

	if (r->opts.show_stack) {
		fputc('\n', r->out);
		if (stack_view_build(&t, r->sym, lf, nl, e->kstack, nk, &so) == 0)
			stack_view_print(r->out, &t);
		else
			fprintf(r->out, "(out of memory rendering the stack)\n");
		sv_table_free(&t);
		if (e->kstack_sz < 0)
			fprintf(r->out, "WARNING! Kernel stack capture failed (error %d).\n", e->kstack_sz);
	}
	if (e->dropped_records)
		fprintf(r->out, "WARNING! Sample data incomplete! %u record(s) dropped. "
			"Consider increasing -C bpf.ringbuf-size.\n", e->dropped_records);
	if ((e->flags & RS_SESS_OVERFLOW) || e->overflow_calls)
		fprintf(r->out, "WARNING! %u nested call(s) beyond the tracked depth were not tracked "
			"(-C bpf.max-depth, at most %d).\n", e->overflow_calls, RS_MAX_FSTACK_DEPTH);
	fputs("\n\n", r->out);
}

static int feed_session_end(struct report *r, const struct rs_rec_hdr *h)
{
	struct rs_rec_session_end e;
	size_t have = h->size < sizeof(e) ? h->size : sizeof(e);
	size_t kbytes;
	int nk;

	if (h->size < offsetof(struct rs_rec_session_end, frames)) {
		r->bad_records++;
		return 0;
	}
	memcpy(&e, h, have);
	if (have < sizeof(e))   /* a cut record: the rest reads as zeroes */
		memset((char *)&e + have, 0, sizeof(e) - have);
	if (e.flags & RS_SESS_IGNORED) {
		r->sessions_ignored++;
		sess_drop(r, e.sess_id);
		return 0;
	}
	/* records may be cut after their valid frames / kernel stack */
	if (e.nframes > RS_MAX_FSTACK_DEPTH ||
	    have < offsetof(struct rs_rec_session_end, frames) + e.nframes * sizeof(struct rs_frame)) {
		r->bad_records++;
		sess_drop(r, e.sess_id);
		return 0;
	}
	if (e.depth > e.nframes)
		e.depth = e.nframes;
	kbytes = e.kstack_sz > 0 ? (size_t)e.kstack_sz : 0;
	if (kbytes > sizeof(e.kstack))
		kbytes = sizeof(e.kstack);
	if (have < offsetof(struct rs_rec_session_end, kstack) + kbytes)
		kbytes = have > offsetof(struct rs_rec_session_end, kstack) ?
			 have - offsetof(struct rs_rec_session_end, kstack) : 0;
	nk = (int)(kbytes / sizeof(e.kstack[0]));

	render_session(r, &e, nk);
	if (e.dropped_records)
		r->sessions_with_drops++;
	if (e.flags & RS_SESS_INTERIM) {
		r->interim_rendered++;
	} else {
		r->sessions_rendered++;
		sess_drop(r, e.sess_id);
	}
	return 0;
}

int report_feed(struct report *r, const struct rs_rec_hdr *rec)
{
	const uint64_t *sess_id;

	if (rec->size < sizeof(*rec) + sizeof(uint64_t)) {
		r->bad_records++;
		return 0;
	}
	sess_id = (const uint64_t *)(rec + 1);
	switch (rec->type) {
	case RS_REC_SESSION_END:
		return feed_session_end(r, rec);
	case RS_REC_SESSION_START:
		sess_drop(r, *sess_id);   /* a new session purges stale state */
		return sess_get(r, *sess_id, true) ? 0 : -1;
	case RS_REC_TRACE_ENTRY:
	case RS_REC_TRACE_EXIT:
		/* kept for the trace view until the session ends */
		if (!r->opts.show_trace)
			return 0;
		if (rec->size < offsetof(struct rs_rec_trace, res)) {
			r->bad_records++;
			return 0;
		}
		return sess_keep_trace(r, *sess_id, rec);
	case RS_REC_LBR:
		if (!r->opts.show_lbr)
			return 0;
		if (rec->size < offsetof(struct rs_rec_lbr, lbrs)) {
			r->bad_records++;
			return 0;
		}
		return sess_keep_lbr(r, *sess_id, rec);
	default:
		r->bad_records++;
		return 0;
	}
}

static void stat_line(FILE *out, const char *label, uint64_t v)
{
	if (v)
		fprintf(out, "%-20s%" PRIu64 "\n", label, v);
}

void report_finish(struct report *r, const struct rsf_stats *stats)
{
	const struct rs_bpf_stats *b = stats ? &stats->bpf : NULL;
	bool drops = r->sessions_with_drops;

	if (b)
		drops |= b->sessions_dropped || b->sessions_incomplete || b->sessions_table_full ||
			 b->sessions_exited || b->records_dropped || b->depth_overflows ||
			 b->exit_mismatches || stats->ringbuf_lost || stats->prog_misses;
	if (drops) {
		fprintf(r->out, "WARNING! There were dropped or incomplete data. Output might be incomplete!\n");
		if (b) {
			stat_line(r->out, "DROPPED SAMPLES:", b->sessions_dropped);
			stat_line(r->out, "INCOMPLETE SAMPLES:", b->sessions_incomplete);
			stat_line(r->out, "SESSIONS TABLE FULL:", b->sessions_table_full);
			stat_line(r->out, "EXITED MID-SESSION:", b->sessions_exited);
			stat_line(r->out, "DROPPED RECORDS:", b->records_dropped);
			stat_line(r->out, "RINGBUF LOST:", stats->ringbuf_lost);
			stat_line(r->out, "DEPTH OVERFLOWS:", b->depth_overflows);
			stat_line(r->out, "EXIT MISMATCHES:", b->exit_mismatches);
			stat_line(r->out, "MISSED PROBES:", stats->prog_misses);
		}
		if (!b)
			stat_line(r->out, "SAMPLES WITH DROPS:", r->sessions_with_drops);
	}
	if (r->opts.verbose) {
		fprintf(stderr, "Rendered %" PRIu64 " session(s), %" PRIu64 " interim snapshot(s); "
			"%" PRIu64 " ignored.\n", r->sessions_rendered, r->interim_rendered,
			r->sessions_ignored);
		if (stats)
			fprintf(stderr, "Recorder: %" PRIu64 " record(s) in %" PRIu64 " chunk(s), "
				"%" PRIu64 " function(s) attached in %" PRIu64 " ms, detached in %" PRIu64 " ms.\n",
				stats->records_written, stats->chunks_written, stats->funcs_attached,
				stats->attach_ns / 1000000, stats->detach_ns / 1000000);
	}
	if (r->orphan_records)
		fprintf(stderr, "retsnoop-report: skipped %" PRIu64 " trace record(s) of sessions "
			"whose start was not recorded\n", r->orphan_records);
	if (r->bad_records)
		fprintf(stderr, "retsnoop-report: skipped %" PRIu64 " malformed record(s)\n", r->bad_records);
	fflush(r->out);
}

struct symbolizer *report_symbolizer(struct report *r)
{
	return r->sym;
}

void report_free(struct report *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < SESS_BUCKETS; i++)
		while (r->buckets[i])
			sess_drop(r, r->buckets[i]->sess_id);
	symbolizer_free(r->sym);
	free(r);
}
