/* test_report.c - unit tests of the report pipeline (report/pipeline.c,
 * the session assembler and the text output) fed with records in memory:
 * header line and local-time rendering, short (trimmed) records, unknown
 * function ids, ignored and malformed records, interim then final
 * snapshots, the drop table on the messages stream, the assembler's bounds. */
#include <stdlib.h>
#include <string.h>
#include "report/pipeline.h"
#include "report/session_asm.h"
#include "testlib.h"

#define T 0xffffffff81000000ULL

static const struct rsf_ksym ksyms[] = {
	{ T + 0x1000, 'T', "entry_fn", NULL },
	{ T + 0x2000, 't', "mid_fn", NULL },
	{ T + 0x3000, 't', "leaf_fn", NULL },
};
static const struct rsf_func funcs[] = {
	{ T + 0x1000, RS_FUNC_IS_ENTRY | RS_FUNC_NEEDS_SIGN_EXT, "entry_fn", NULL },
	{ T + 0x2000, RS_FUNC_RET_PTR, "mid_fn", NULL },
	{ T + 0x3000, RS_FUNC_CANT_FAIL | RS_FUNC_RET_BOOL, "leaf_fn", NULL },
};

struct out {
	char *buf;
	size_t len;
	FILE *f;
	char *mbuf;               /* the messages stream */
	size_t mlen;
	FILE *m;
	struct filters filt;
	struct rp *r;
	struct rsf_meta meta;
};

static void out_open(struct out *o, bool show_trace)
{
	struct report_opts opts = { .symb = SYMB_NONE, .show_stack = true, .show_trace = show_trace };
	char err[128];
	struct rp_config cfg = { .prog = "t", .opts = opts, .drop_table = true };
	struct rp_env env = { .ksyms = ksyms, .nksyms = 3, .funcs = funcs, .nfuncs = 3 };

	memset(o, 0, sizeof(*o));
	o->meta.mono_to_realtime_ns = 1700000000000000000LL;   /* 22:13:20 UTC */
	o->f = open_memstream(&o->buf, &o->len);
	o->m = open_memstream(&o->mbuf, &o->mlen);
	filters_init(&o->filt);
	cfg.out = o->f;
	cfg.msgs = o->m;
	cfg.filt = &o->filt;
	env.meta = &o->meta;
	o->r = rp_new(&cfg, &env, err, sizeof(err));
	CHECK(o->r != NULL);
	CHECK(o->r && rp_attach_symbols(o->r, err, sizeof(err)) == 0);
}

static void out_close(struct out *o, const struct rsf_stats *st)
{
	char err[128];

	CHECK_INT(rp_finish(o->r, st, err, sizeof(err)), 0);
	rp_free(o->r);
	fclose(o->f);
	fclose(o->m);
}

static void sess(struct rs_rec_session_end *e, uint64_t id, uint32_t flags)
{
	memset(e, 0, sizeof(*e));
	e->hdr.type = RS_REC_SESSION_END;
	e->hdr.size = sizeof(*e);
	e->sess_id = id;
	e->tid = (uint32_t)id;
	e->pid = 1;
	e->start_ts = 1000000;        /* +1 ms */
	e->end_ts = 1500000;
	strcpy(e->task_comm, "t");
	memcpy(e->proc_comm, "sixteen-chars-xx", 16);   /* not NUL-terminated */
	e->flags = flags;
	e->nframes = 2;
	e->frames[0] = (struct rs_frame){ .func_id = 0, .res = 0xffffffea, .lat_ns = 400000 };
	e->frames[1] = (struct rs_frame){ .func_id = 1, .res = 0, .lat_ns = 2500 };
	e->kstack_sz = 8;
	e->kstack[0] = T + 0x1044;
}

static void test_basic(void)
{
	struct out o;
	struct rs_rec_session_end e;

	setenv("TZ", "UTC", 1);
	out_open(&o, false);
	sess(&e, 7, RS_SESS_IS_ERR);
	CHECK_INT(rp_feed(o.r, &e.hdr), 0);
	out_close(&o, NULL);
	CHECK_STR(o.buf,
		  "22:13:20.001000 -> 22:13:20.001500 TID/PID 7/1 (t/sixteen-chars-xx):\n"
		  "\n"
		  "   400us [-EINVAL]  entry_fn+0x44\n"
		  "!    2us [NULL]     mid_fn\n"
		  "\n\n");
	free(o.buf);
	free(o.mbuf);
}

static void test_short_and_bad(void)
{
	struct out o;
	struct rs_rec_session_end e;
	struct rs_rec_hdr tiny = { .type = RS_REC_SESSION_END, .size = 8 };
	struct rs_rec_hdr weird[4] = { { .type = 99, .size = 32 } };

	out_open(&o, false);
	/* trimmed after the two valid frames: no kernel stack survives */
	sess(&e, 8, RS_SESS_IS_ERR);
	e.frames[1].func_id = 42;   /* not in the table */
	e.hdr.size = (uint32_t)((char *)&e.frames[2] - (char *)&e);
	CHECK_INT(rp_feed(o.r, &e.hdr), 0);
	CHECK_INT(rp_feed(o.r, &tiny), 0);
	CHECK_INT(rp_feed(o.r, weird), 0);
	/* nframes beyond the record: skipped */
	sess(&e, 9, RS_SESS_IS_ERR);
	e.nframes = 3;
	e.hdr.size = (uint32_t)((char *)&e.frames[2] - (char *)&e);
	CHECK_INT(rp_feed(o.r, &e.hdr), 0);
	out_close(&o, NULL);
	CHECK(strstr(o.buf, "TID/PID 8/1") != NULL);
	CHECK(strstr(o.buf, "!  400us [-EINVAL]  entry_fn") != NULL);
	CHECK(strstr(o.buf, "!    2us [0]        <func#42>") != NULL);
	CHECK(strstr(o.buf, "TID/PID 9/1") == NULL);
	free(o.buf);
	free(o.mbuf);
}

static void test_interim_ignored(void)
{
	struct out o;
	struct rs_rec_session_end e;
	struct rs_rec_session_start s = { .hdr = { RS_REC_SESSION_START, sizeof(s) }, .sess_id = 5 };
	struct rs_rec_trace tr = { .hdr = { RS_REC_TRACE_ENTRY, sizeof(tr) }, .sess_id = 5 };

	out_open(&o, true);
	CHECK_INT(rp_feed(o.r, &s.hdr), 0);
	CHECK_INT(rp_feed(o.r, &tr.hdr), 0);
	sess(&e, 5, RS_SESS_INTERIM | RS_SESS_IS_ERR);
	e.depth = 1;
	CHECK_INT(rp_feed(o.r, &e.hdr), 0);
	sess(&e, 6, RS_SESS_IGNORED);
	CHECK_INT(rp_feed(o.r, &e.hdr), 0);
	sess(&e, 5, RS_SESS_IS_ERR | RS_SESS_STITCHED);
	e.stitch_pos = 1;
	CHECK_INT(rp_feed(o.r, &e.hdr), 0);
	out_close(&o, NULL);
	CHECK(strstr(o.buf, "     ... [...]   entry_fn+0x44\n") != NULL);
	CHECK(strstr(o.buf, "TID/PID 6/") == NULL);
	CHECK(strstr(o.buf, "!\u2307   2us [NULL]     mid_fn") != NULL);
	free(o.buf);
	free(o.mbuf);
}

static void test_stats(void)
{
	struct out o;
	struct rsf_stats st;

	memset(&st, 0, sizeof(st));
	out_open(&o, false);
	out_close(&o, &st);
	CHECK_STR(o.buf, "");          /* nothing dropped: nothing printed */
	CHECK_STR(o.mbuf, "");
	free(o.buf);
	free(o.mbuf);

	/* the drop table goes to the messages stream, never to stdout */
	st.bpf.sessions_dropped = 3;
	st.bpf.depth_overflows = 12;
	out_open(&o, false);
	out_close(&o, &st);
	CHECK_STR(o.buf, "");
	CHECK_STR(o.mbuf,
		  "WARNING! There were dropped or incomplete data. Output might be incomplete!\n"
		  "DROPPED SAMPLES:    3\n"
		  "DEPTH OVERFLOWS:    12\n");
	free(o.buf);
	free(o.mbuf);
}

/* malformed records are counted and said once; without a trailer, the
 * sessions that lost records make the table */
static void test_counted(void)
{
	struct out o;
	struct rs_rec_session_end e;
	struct rs_rec_hdr tiny = { .type = RS_REC_SESSION_END, .size = 8 };

	out_open(&o, false);
	CHECK_INT(rp_feed(o.r, &tiny), 0);
	sess(&e, 3, RS_SESS_IS_ERR);
	e.dropped_records = 2;
	CHECK_INT(rp_feed(o.r, &e.hdr), 0);
	out_close(&o, NULL);
	CHECK(strstr(o.buf, "2 record(s) dropped") != NULL);
	CHECK_STR(o.mbuf,
		  "WARNING! There were dropped or incomplete data. Output might be incomplete!\n"
		  "INCOMPLETE SAMPLES: 1\n"
		  "t: skipped 1 malformed record(s)\n");
	free(o.buf);
	free(o.mbuf);
}

static int count_emit(void *ctx, const struct rp_session *s)
{
	uint64_t *n = ctx;

	if (s->ntrace)
		(*n)++;
	return 0;
}

/* the assembler's bound on open sessions: the oldest is evicted, its
 * records counted as over the limit, the newest keep theirs */
static void test_asm_bounds(void)
{
	uint64_t with_trace = 0;
	struct rp_asm *a = rp_asm_new(true, false, count_emit, &with_trace);
	struct rs_rec_session_start st = { .hdr = { RS_REC_SESSION_START, sizeof(st) } };
	struct rs_rec_trace tr = { .hdr = { RS_REC_TRACE_ENTRY, sizeof(tr) } };
	struct rs_rec_session_end e;

	CHECK(a != NULL);
	if (!a)
		return;
	for (uint64_t id = 1; id <= RP_ASM_MAX_OPEN + 2; id++) {
		st.sess_id = tr.sess_id = id;
		CHECK_INT(rp_asm_feed(a, &st.hdr), 0);
		CHECK_INT(rp_asm_feed(a, &tr.hdr), 0);
	}
	CHECK_INT(rp_asm_stats(a)->sessions_evicted, 2);
	CHECK_INT(rp_asm_stats(a)->records_over_limit, 2);
	sess(&e, 1, RS_SESS_IS_ERR);   /* evicted: rendered without its records */
	CHECK_INT(rp_asm_feed(a, &e.hdr), 0);
	sess(&e, RP_ASM_MAX_OPEN + 2, RS_SESS_IS_ERR);
	CHECK_INT(rp_asm_feed(a, &e.hdr), 0);
	CHECK_INT(with_trace, 1);
	CHECK_INT(rp_asm_stats(a)->finals, 2);
	rp_asm_free(a);
}

static int lbr_emit(void *ctx, const struct rp_session *s)
{
	int64_t *got = ctx;

	got[0] = (int64_t)s->nlbrs;
	got[1] = s->lbr_new ? s->lbr_new->lbrs_sz : -1;
	return 0;
}

/* past the per-session bound on LBR records, the newest one still reaches
 * the next snapshot (it replaces the last kept), and is counted */
static void test_asm_lbr_bound(void)
{
	int64_t got[2] = { 0, 0 };
	struct rp_asm *a = rp_asm_new(false, true, lbr_emit, got);
	struct rs_rec_session_start st = { .hdr = { RS_REC_SESSION_START, sizeof(st) }, .sess_id = 4 };
	static struct rs_rec_lbr l;
	struct rs_rec_session_end e;

	CHECK(a != NULL);
	if (!a)
		return;
	l.hdr.type = RS_REC_LBR;
	l.hdr.size = sizeof(l);
	l.sess_id = 4;
	CHECK_INT(rp_asm_feed(a, &st.hdr), 0);
	for (int i = 1; i <= (int)RP_ASM_MAX_LBRS + 6; i++) {
		l.lbrs_sz = i * (int)sizeof(l.lbrs[0]) % (int)sizeof(l.lbrs);
		CHECK_INT(rp_asm_feed(a, &l.hdr), 0);
	}
	sess(&e, 4, RS_SESS_IS_ERR);
	CHECK_INT(rp_asm_feed(a, &e.hdr), 0);
	CHECK_INT(got[0], RP_ASM_MAX_LBRS);
	CHECK_INT(got[1], l.lbrs_sz);
	CHECK_INT(rp_asm_stats(a)->records_over_limit, 6);
	rp_asm_free(a);
}

int main(void)
{
	RUN(test_basic);
	RUN(test_short_and_bad);
	RUN(test_interim_ignored);
	RUN(test_stats);
	RUN(test_counted);
	RUN(test_asm_bounds);
	RUN(test_asm_lbr_bound);
	return TEST_REPORT("test_report");
}
