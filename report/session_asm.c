/* session_asm.c - the session assembler (session_asm.h): per-session
 * state in a hash table keyed by sess_id and a list in opening order (for
 * eviction), bounded buffering of -T and LBR records, and the one
 * validator of SESSION_END records. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "../common/array_grow.h"
#include "session_asm.h"

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
	return s->ntrace * sizeof(*s->trace) + s->nlbrs * sizeof(**s->lbrs);
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
	free(s);
}

/* a new session's state; the oldest open one makes room at the bound */
static struct sess *sess_open(struct rp_asm *a, uint64_t id, bool started)
{
	struct sess *s, **head;

	if (a->nopen >= RP_ASM_MAX_OPEN) {
		a->st.sessions_evicted++;
		a->st.records_over_limit += a->oldest->ntrace + a->oldest->nlbrs;
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

/* a SESSION_END: validated, handed on with the session's records */
static int feed_end(struct rp_asm *a, const struct rs_rec_hdr *h, uint64_t id)
{
	struct rp_session s;
	struct sess *st;
	bool interim;
	int ret;

	if (h->size < offsetof(struct rs_rec_session_end, frames)) {
		a->st.bad_records++;
		return 0;
	}
	if (((const struct rs_rec_session_end *)h)->flags & RS_SESS_IGNORED) {
		a->st.ignored++;
		sess_drop(a, id);
		return 0;
	}
	if (validate_end(h, &a->e, &s)) {
		a->st.bad_records++;
		sess_drop(a, id);
		return 0;
	}
	st = *slot(a, id);
	if (st) {
		s.started = st->started;
		s.trace = st->trace;
		s.ntrace = st->ntrace;
		s.trace_overflow = st->trace_overflow;
		s.lbrs = (const struct rs_rec_lbr *const *)st->lbrs;
		s.nlbrs = st->nlbrs;
		s.lbr_new = st->lbr_new;
	}
	interim = a->e.flags & RS_SESS_INTERIM;
	if (a->e.dropped_records)
		a->st.sessions_with_drops++;
	if (interim)
		a->st.interims++;
	else
		a->st.finals++;
	ret = a->emit(a->ctx, &s);
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
	free(a);
}
