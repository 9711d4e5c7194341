/* session_asm.c - the session assembler (session_asm.h): per-session
 * state in a hash table keyed by sess_id and a list in opening order (for
 * eviction), bounded buffering of -T and LBR records, and the one
 * validator of SESSION_END records. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "../common/array_grow.h"
#include "args_store.h"
#include "session_asm.h"
#include "probe_store.h"
#include "ustack_asm.h"

#define BUCKETS 4096

struct sess {
	struct sess *next;                 /* hash chain */
	struct sess *older, *newer;        /* opening order */
	uint64_t id;
	bool started;
	struct rs_rec_trace *trace;
	size_t ntrace, trace_cap;
	uint64_t trace_overflow;
	struct rs_rec_lbr **lbrs;
	size_t nlbrs, lbr_cap;
	struct rs_rec_lbr *lbr_new;        /* arrived since the last snapshot */
	struct rp_args_store args;         /* -A FUNC_ARGS records (args_store.c) */
	uint64_t args_overflow;
	struct rp_probe_store probes;      /* -J hits */
};

struct rp_asm {
	bool keep_trace, keep_lbr;
	rp_asm_emit_fn emit;
	void *ctx;
	struct sess *buckets[BUCKETS];
	struct sess *oldest, *newest;
	size_t nopen;
	uint64_t bytes;                    /* buffered record bytes */
	struct rp_asm_stats st;
	struct rs_rec_session_end e;       /* validated copy of the current END */
	struct us_pending *ust;            /* -U: USTACK records awaiting their END */
	struct us_mapstore *umaps;         /* -U: each process's maps */
};

struct rp_asm *rp_asm_new(bool keep_trace, bool keep_lbr, rp_asm_emit_fn emit, void *ctx)
{
	struct rp_asm *a = calloc(1, sizeof(*a));

	if (a) {
		a->keep_trace = keep_trace;
		a->keep_lbr = keep_lbr;
		a->emit = emit;
		a->ctx = ctx;
	}
	return a;
}

const struct rp_asm_stats *rp_asm_stats(const struct rp_asm *a)
{
	return &a->st;
}

/* ------------------------------------------------------------ the table */
static struct sess **slot(struct rp_asm *a, uint64_t id)
{
	struct sess **pp = &a->buckets[(id ^ (id >> 32)) % BUCKETS];

	while (*pp && (*pp)->id != id)
		pp = &(*pp)->next;
	return pp;
}

static uint64_t sess_bytes(const struct sess *s)
{
	return s->ntrace * sizeof(*s->trace) + s->nlbrs * sizeof(**s->lbrs) + s->args.bytes +
	       s->probes.bytes;
}

static void sess_drop(struct rp_asm *a, uint64_t id)
{
	struct sess **pp = slot(a, id), *s = *pp;

	if (!s)
		return;
	*pp = s->next;
	*(s->older ? &s->older->newer : &a->oldest) = s->newer;
	*(s->newer ? &s->newer->older : &a->newest) = s->older;
	a->nopen--;
	a->bytes -= sess_bytes(s);
	free(s->trace);
	for (size_t i = 0; i < s->nlbrs; i++)
		free(s->lbrs[i]);
	free(s->lbrs);
	args_store_free(&s->args);
	rp_probe_store_free(&s->probes);
	free(s);
}

/* a new session's state; the oldest open one makes room at the bound */
static struct sess *sess_open(struct rp_asm *a, uint64_t id, bool started)
{
	struct sess *s, **head;

	if (a->nopen >= RP_ASM_MAX_OPEN) {
		a->st.sessions_evicted++;
		a->st.records_over_limit += a->oldest->ntrace + a->oldest->nlbrs + a->oldest->args.n +
					    a->oldest->probes.n;
		sess_drop(a, a->oldest->id);
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->id = id;
	s->started = started;
	head = &a->buckets[(id ^ (id >> 32)) % BUCKETS];
	s->next = *head;
	*head = s;
	s->older = a->newest;
	*(a->newest ? &a->newest->newer : &a->oldest) = s;
	a->newest = s;
	a->nopen++;
	return s;
}

/* ------------------------------------------------------- record keeping */
static bool over_limit(struct rp_asm *a, size_t n, size_t max, size_t size)
{
	if (n < max && a->bytes + size <= RP_ASM_MAX_BYTES)
		return false;
	a->st.records_over_limit++;
	return true;
}

/* a -T record: kept only for sessions with state (their START was seen) */
static int keep_trace(struct rp_asm *a, uint64_t id, const struct rs_rec_hdr *h)
{
	struct sess *s = *slot(a, id);
	struct rs_rec_trace *t;

	if (h->size < offsetof(struct rs_rec_trace, res)) {
		a->st.bad_records++;
		return 0;
	}
	if (!s) {
		a->st.orphan_records++;
		return 0;
	}
	if (over_limit(a, s->ntrace, RP_ASM_MAX_TRACE, sizeof(*t))) {
		s->trace_overflow++;
		return 0;
	}
	if (array_grow((void **)&s->trace, s->ntrace, &s->trace_cap, sizeof(*s->trace), 64))
		return -1;
	t = &s->trace[s->ntrace++];
	memset(t, 0, sizeof(*t));
	memcpy(t, h, h->size < sizeof(*t) ? h->size : sizeof(*t));
	a->bytes += sizeof(*t);
	return 0;
}

/* a -J probe hit: kept like a -T record (probe_store.h validates it) */
static int keep_probe(struct rp_asm *a, uint64_t id, const struct rs_rec_hdr *h)
{
	struct sess *s = *slot(a, id);
	size_t n = rp_probe_kept_size(h);
	int r;

	if (!n) {
		a->st.bad_records++;
		return 0;
	}
	if (!s) {
		a->st.orphan_records++;
		return 0;
	}
	if (over_limit(a, s->ntrace + s->probes.n, RP_ASM_MAX_TRACE, n)) {
		s->trace_overflow++;
		return 0;
	}
	r = rp_probe_store_add(&s->probes, h);
	if (r < 0)
		return -1;
	a->bytes += n;
	return 0;
}

/* an LBR record: kept whole (hdr.size bounded by the struct); it makes
 * the session's state when its START was not seen */
static int keep_lbr(struct rp_asm *a, uint64_t id, const struct rs_rec_hdr *h)
{
	struct sess *s = *slot(a, id);
	struct rs_rec_lbr *l;
	size_t n = h->size < sizeof(*l) ? h->size : sizeof(*l);

	if (h->size < offsetof(struct rs_rec_lbr, lbrs)) {
		a->st.bad_records++;
		return 0;
	}
	if (!s && !(s = sess_open(a, id, false)))
		return -1;
	if (s->nlbrs >= RP_ASM_MAX_LBRS) {
		/* the newest replaces the last kept: the next snapshot has its own */
		a->st.records_over_limit++;
		l = s->lbrs[s->nlbrs - 1];
		memset(l, 0, sizeof(*l));
		memcpy(l, h, n);
		l->hdr.size = (uint32_t)n;
		s->lbr_new = l;
		return 0;
	}
	if (over_limit(a, 0, 1, sizeof(*l)))
		return 0;
	if (array_grow((void **)&s->lbrs, s->nlbrs, &s->lbr_cap, sizeof(*s->lbrs), 4) ||
	    !(l = calloc(1, sizeof(*l))))
		return -1;
	memcpy(l, h, n);
	l->hdr.size = (uint32_t)n;
	s->lbrs[s->nlbrs++] = l;
	s->lbr_new = l;
	a->bytes += sizeof(*l);
	return 0;
}

/* a FUNC_ARGS record (-A): checked, kept whole (args_store.c); like LBR
 * records it makes the session's state when its START was not seen */
static int keep_args(struct rp_asm *a, uint64_t id, const struct rs_rec_hdr *h)
{
	struct sess *s;

	if (args_rec_check(h)) {
		a->st.bad_records++;
		return 0;
	}
	if (!(s = *slot(a, id)) && !(s = sess_open(a, id, false)))
		return -1;
	if (over_limit(a, s->args.n, RP_ASM_MAX_ARGS, args_rec_bytes(h))) {
		s->args_overflow++;
		return 0;
	}
	if (args_store_add(&s->args, h))
		return -1;
	a->bytes += args_rec_bytes(h);
	return 0;
}

/* ------------------------------------------------------------ validator */
static void copy_comm(char *dst, const char *src)
{
	size_t n = strnlen(src, RS_TASK_COMM_LEN);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* bounds the kernel stack by kstack_sz and by what the record holds */
static int kstack_entries(const struct rs_rec_session_end *e, size_t have)
{
	size_t kb = e->kstack_sz > 0 ? (size_t)e->kstack_sz : 0;
	size_t koff = offsetof(struct rs_rec_session_end, kstack);

	if (kb > sizeof(e->kstack))
		kb = sizeof(e->kstack);
	if (have < koff + kb)
		kb = have > koff ? have - koff : 0;
	return (int)(kb / sizeof(e->kstack[0]));
}

/* either layout, expanded (rsf_end_expand); a cut record reads as zeroes
 * past its end; frames must fit in it. 0 with *e and *s filled; -1 when
 * malformed */
static int validate_end(const struct rs_rec_hdr *h, struct rs_rec_session_end *e,
			struct rp_session *s)
{
	size_t have = rsf_end_expand(h, e);

	if (e->nframes > RS_MAX_FSTACK_DEPTH ||
	    have < offsetof(struct rs_rec_session_end, frames) + e->nframes * sizeof(struct rs_frame))
		return -1;
	memset(s, 0, sizeof(*s));
	if (e->depth > e->nframes)
		e->depth = e->nframes;
	s->raw_depth = e->depth;
	if (!(e->flags & RS_SESS_INTERIM))
		e->depth = 0;
	s->e = e;
	s->nk = kstack_entries(e, have);
	copy_comm(s->task_comm, e->task_comm);
	copy_comm(s->proc_comm, e->proc_comm);
	return 0;
}

/* -U records: USTACK kept for its END, UMAPS in the maps store
 * (ustack_asm.h); both validated there */
static int feed_user(struct rp_asm *a, const struct rs_rec_hdr *h)
{
	int r;

	if (h->type == RS_REC_USTACK)
		r = a->ust || (a->ust = us_pending_new()) ? us_pending_add(a->ust, h) : US_ADD_NOMEM;
	else
		r = a->umaps || (a->umaps = us_mapstore_new()) ? us_mapstore_add(a->umaps, h)
							       : US_ADD_NOMEM;
	a->st.bad_records += r == US_ADD_BAD;
	a->st.records_over_limit += r == US_ADD_OVER;
	return r == US_ADD_NOMEM ? -1 : 0;
}

/* a SESSION_END: validated, handed on with the session's records */
static int feed_end(struct rp_asm *a, const struct rs_rec_hdr *h, uint64_t id)
{
	struct rp_session s;
	struct sess *st;
	struct rs_rec_ustack *us = a->ust ? us_pending_take(a->ust, id) : NULL;
	bool interim;
	int ret;

	if (h->size < offsetof(struct rs_rec_session_end, frames)) {
		a->st.bad_records++;
		free(us);
		return 0;
	}
	if (((const struct rs_rec_session_end *)h)->flags & RS_SESS_IGNORED) {
		a->st.ignored++;
		sess_drop(a, id);
		free(us);
		return 0;
	}
	if (validate_end(h, &a->e, &s)) {
		a->st.bad_records++;
		sess_drop(a, id);
		free(us);
		return 0;
	}
	s.ustack = us;
	s.umaps = us && a->umaps ? us_mapstore_find(a->umaps, us->pid, a->e.end_ts,
								    us->regs[16]) : NULL;
	st = *slot(a, id);
	if (st) {
		s.started = st->started;
		s.trace = st->trace;
		s.ntrace = st->ntrace;
		s.trace_overflow = st->trace_overflow;
		s.lbrs = (const struct rs_rec_lbr *const *)st->lbrs;
		s.nlbrs = st->nlbrs;
		s.lbr_new = st->lbr_new;
		args_store_sort(&st->args);
		s.args = (const struct rs_rec_func_args *const *)st->args.recs;
		s.nargs = st->args.n;
		s.args_overflow = st->args_overflow;
		s.probes = (const struct rs_rec_probe *const *)st->probes.v;
		s.nprobes = st->probes.n;
	}
	interim = a->e.flags & RS_SESS_INTERIM;
	if (a->e.dropped_records)
		a->st.sessions_with_drops++;
	if (interim)
		a->st.interims++;
	else
		a->st.finals++;
	ret = a->emit(a->ctx, &s);
	free(us);
	if (st)
		st->lbr_new = NULL;   /* consumed: a later snapshot brings its own */
	if (!interim)
		sess_drop(a, id);
	return ret;
}

int rp_asm_feed(struct rp_asm *a, const struct rs_rec_hdr *rec)
{
	uint64_t id;

	if (rec->size < sizeof(*rec) + sizeof(uint64_t)) {
		a->st.bad_records++;
		return 0;
	}
	memcpy(&id, rec + 1, sizeof(id));
	switch (rec->type) {
	case RS_REC_SESSION_END:
		return feed_end(a, rec, id);
	case RS_REC_SESSION_START:
		sess_drop(a, id);   /* a new session purges stale state */
		return sess_open(a, id, true) ? 0 : -1;
	case RS_REC_TRACE_ENTRY:
	case RS_REC_TRACE_EXIT:
		return a->keep_trace ? keep_trace(a, id, rec) : 0;
	case RS_REC_LBR:
		return a->keep_lbr ? keep_lbr(a, id, rec) : 0;
	case RS_REC_USTACK:
	case RS_REC_UMAPS:
		return feed_user(a, rec);
	case RS_REC_FUNC_ARGS:
		return keep_args(a, id, rec);
	case RS_REC_PROBE:
		return a->keep_trace ? keep_probe(a, id, rec) : 0;
	default:
		a->st.bad_records++;
		return 0;
	}
}

void rp_asm_free(struct rp_asm *a)
{
	if (!a)
		return;
	while (a->oldest)
		sess_drop(a, a->oldest->id);
	us_pending_free(a->ust);
	us_mapstore_free(a->umaps);
	free(a);
}
