/* test_trace_view.c - unit tests of report/trace_view.c: leaf collapsing,
 * gap rows for lost records (leading, inner, inside a would-be leaf,
 * trailing), interim cut-off at last_seq_id, the indentation cap, unknown
 * function ids, duration formatting, and the exact printed layout
 * (header widths counted in bytes with 3-byte glyphs). */
#include <stdlib.h>
#include <string.h>
#include "bpf/retsnoop_abi.h"
#include "report/pipeline.h"
#include "report/trace_view.h"
#include "testlib.h"

static const struct rsf_func funcs[] = {
	{ 0xffffffff81001000ULL, RS_FUNC_IS_ENTRY, "__x64_sys_bpf", NULL },     /* 0 */
	{ 0xffffffff81002000ULL, RS_FUNC_NEEDS_SIGN_EXT, "__sys_bpf", NULL },   /* 1 */
	{ 0xffffffff81003000ULL, RS_FUNC_RET_VOID, "kfree", NULL },             /* 2 */
	{ 0xffffffff81004000ULL, RS_FUNC_RET_PTR, "alloc", NULL },              /* 3 */
};
#define NF (sizeof(funcs) / sizeof(funcs[0]))

static struct rs_rec_trace R(int exit_rec, uint32_t seq, uint32_t f, unsigned depth,
			     int64_t res, uint64_t lat)
{
	struct rs_rec_trace t;

	memset(&t, 0, sizeof(t));
	t.hdr.type = exit_rec ? RS_REC_TRACE_EXIT : RS_REC_TRACE_ENTRY;
	t.hdr.size = sizeof(t);
	t.seq_id = seq;
	t.func_id = f;
	t.depth = (uint16_t)depth;
	t.res = res;
	t.lat_ns = lat;
	return t;
}

static char *print_to_string(const struct tv_table *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	trace_view_print(f, t);
	fclose(f);
	return buf;
}

static void test_upstream_example(void)
{
	struct rs_rec_trace recs[] = {
		R(0, 0, 0, 1, 0, 0),
		R(0, 1, 1, 2, 0, 0),
		R(1, 2, 1, 2, 0, 3366),
		R(1, 3, 0, 1, 0, 4506),
	};
	struct tv_table t = {0};
	char *s;

	CHECK_INT(trace_view_build(&t, recs, 4, funcs, NF, 3), 0);
	CHECK_INT(t.n, 3);
	CHECK_INT(t.rows[0].kind, TV_ROW_ENTRY);
	CHECK_INT(t.rows[1].kind, TV_ROW_LEAF);
	CHECK_STR(t.rows[1].sym, "    \u2194 __sys_bpf");
	CHECK_STR(t.rows[1].res, "[0]");
	CHECK_STR(t.rows[1].dur, "3.366us");
	CHECK_INT(t.rows[2].kind, TV_ROW_EXIT);
	s = print_to_string(&t);
	CHECK_STR(s,
		"FUNCTION CALLS    RESULT  DURATION\n"
		"---------------   ------  --------\n"
		"\u2192 __x64_sys_bpf\n"
		"    \u2194 __sys_bpf   [0]      3.366us\n"
		"\u2190 __x64_sys_bpf   [0]      4.506us\n");
	free(s);
	tv_table_free(&t);
}

static void test_no_collapse(void)
{
	/* same function but not consecutive seq ids: a record was lost */
	struct rs_rec_trace recs[] = {
		R(0, 0, 0, 1, 0, 0),
		R(0, 1, 3, 2, 0, 0),
		R(1, 3, 3, 2, 0, 1000),
		R(0, 4, 2, 2, 0, 0),      /* kfree entry followed by another function's exit */
		R(1, 5, 0, 1, -22, 9000),
	};
	struct tv_table t = {0};

	CHECK_INT(trace_view_build(&t, recs, 5, funcs, NF, 5), 0);
	CHECK_INT(t.n, 6);
	CHECK_INT(t.rows[1].kind, TV_ROW_ENTRY);
	CHECK_INT(t.rows[2].kind, TV_ROW_GAP);
	CHECK_INT(t.rows[2].missing, 1);
	CHECK_INT(t.rows[2].seq_id, 2);
	CHECK_STR(t.rows[2].sym, "    \u203c ... missing 1 record ...");
	CHECK_STR(t.rows[2].res, "...");
	CHECK_STR(t.rows[2].dur, "...");
	CHECK_INT(t.rows[3].kind, TV_ROW_EXIT);
	CHECK_STR(t.rows[3].res, "[NULL]");
	CHECK_INT(t.rows[4].kind, TV_ROW_ENTRY);
	CHECK_STR(t.rows[4].res, "");
	CHECK_STR(t.rows[5].res, "[-EINVAL]");
	CHECK_STR(t.rows[5].dur, "9.000us");
	tv_table_free(&t);
}

static void test_gaps(void)
{
	struct rs_rec_trace recs[] = {
		R(0, 2, 0, 1, 0, 0),          /* 0, 1 lost */
		R(0, 3, 1, 2, 0, 0),
		R(1, 7, 1, 2, -12, 5000),     /* 4..6 lost */
	};
	struct tv_table t = {0};

	CHECK_INT(trace_view_build(&t, recs, 3, funcs, NF, 10), 0);   /* 8..10 lost */
	CHECK_INT(t.n, 6);
	CHECK_INT(t.rows[0].kind, TV_ROW_GAP);
	CHECK_INT(t.rows[0].missing, 2);
	CHECK_STR(t.rows[0].sym, "\u203c ... missing 2 records ...");
	CHECK_INT(t.rows[3].kind, TV_ROW_GAP);
	CHECK_INT(t.rows[3].missing, 3);
	CHECK_INT(t.rows[5].kind, TV_ROW_GAP);
	CHECK_INT(t.rows[5].missing, 3);
	CHECK_INT(t.rows[5].seq_id, 8);
	tv_table_free(&t);

	/* nothing at all arrived: one row says how much is missing */
	CHECK_INT(trace_view_build(&t, NULL, 0, funcs, NF, 4), 0);
	CHECK_INT(t.n, 1);
	CHECK_INT(t.rows[0].missing, 5);
	tv_table_free(&t);
}

static void test_interim_cutoff(void)
{
	struct rs_rec_trace recs[] = {
		R(0, 0, 0, 1, 0, 0),
		R(0, 1, 1, 2, 0, 0),
		R(1, 2, 1, 2, 0, 100),    /* beyond the snapshot: must not show */
		R(1, 3, 0, 1, 0, 200),
	};
	struct tv_table t = {0};

	CHECK_INT(trace_view_build(&t, recs, 4, funcs, NF, 1), 0);
	CHECK_INT(t.n, 2);
	CHECK_INT(t.rows[1].kind, TV_ROW_ENTRY);     /* not collapsed with seq 2 */
	for (size_t i = 0; i < t.n; i++)
		CHECK(t.rows[i].kind != TV_ROW_GAP);
	tv_table_free(&t);
}

static void test_indent_cap_and_unknown(void)
{
	struct rs_rec_trace recs[] = {
		R(0, 0, 1, 21, 0, 0),
		R(0, 1, 77, 30, 0, 0),
		R(1, 2, 2, 3, 0, 374697),
	};
	struct tv_table t = {0};
	char want[200];

	CHECK_INT(trace_view_build(&t, recs, 3, funcs, NF, 2), 0);
	CHECK_INT(t.n, 3);
	snprintf(want, sizeof(want), "%*s\u2192 __sys_bpf", 80, "");
	CHECK_STR(t.rows[0].sym, want);
	snprintf(want, sizeof(want), "%*s\u2192 <func#77>", 80, "");
	CHECK_STR(t.rows[1].sym, want);
	CHECK_STR(t.rows[2].res, "[void]");
	CHECK_STR(t.rows[2].dur, "374.697us");
	tv_table_free(&t);
}

static void test_widths(void)
{
	/* a long name widens the symbol column; the header keeps the -2 */
	struct rs_rec_trace recs[] = {
		R(0, 0, 0, 1, 0, 0),
		R(1, 1, 0, 1, (int64_t)0xffffc9000031e000ULL, 5539),
	};
	struct rsf_func f[] = { { 0, RS_FUNC_RET_PTR, "bpf_prog_alloc_no_stats", NULL } };
	struct tv_table t = {0};
	char *s;

	CHECK_INT(trace_view_build(&t, recs, 2, f, 1, 1), 0);
	s = print_to_string(&t);
	CHECK_STR(s,
		"FUNCTION CALLS              RESULT                DURATION\n"
		"-------------------------   --------------------  --------\n"
		"\u2194 bpf_prog_alloc_no_stats   [0xffffc9000031e000]   5.539us\n");
	free(s);
	tv_table_free(&t);
}

/* the engine: START, trace records, interim and final END, an ignored
 * session (its buffer freed: ASan would report a leak) and records of a
 * session whose START never came (counted, not shown) */
static void feed_end(struct rp *r, uint64_t sess, uint32_t flags, uint32_t last_seq)
{
	struct rs_rec_session_end e;

	memset(&e, 0, sizeof(e));
	e.hdr.type = RS_REC_SESSION_END;
	e.hdr.size = sizeof(e);
	e.sess_id = sess;
	e.flags = flags;
	e.last_seq_id = last_seq;
	e.nframes = 1;
	rp_feed(r, &e.hdr);
}

static void feed_trace(struct rp *r, uint64_t sess, struct rs_rec_trace t)
{
	t.sess_id = sess;
	rp_feed(r, &t.hdr);
}

static void test_engine(void)
{
	struct rsf_meta meta;
	struct report_opts opts = { .symb = SYMB_NONE, .show_trace = true };
	struct rs_rec_session_start st;
	char err[256], *buf = NULL, *p, *mbuf = NULL;
	size_t len = 0, mlen = 0;
	FILE *f = open_memstream(&buf, &len), *m = open_memstream(&mbuf, &mlen);
	struct filters filt;
	struct rp_config cfg = { .prog = "t", .out = f, .msgs = m, .opts = opts, .filt = &filt,
				 .drop_table = true };
	struct rp_env env = { .meta = &meta, .funcs = funcs, .nfuncs = NF };
	struct rp *r;
	int n;

	memset(&meta, 0, sizeof(meta));
	filters_init(&filt);
	r = rp_new(&cfg, &env, err, sizeof(err));
	CHECK(r != NULL);
	if (!r)
		return;
	CHECK_INT(rp_attach_symbols(r, err, sizeof(err)), 0);
	memset(&st, 0, sizeof(st));
	st.hdr.type = RS_REC_SESSION_START;
	st.hdr.size = sizeof(st);
	st.sess_id = 7;
	rp_feed(r, &st.hdr);
	feed_trace(r, 7, R(0, 0, 0, 1, 0, 0));
	feed_trace(r, 7, R(0, 1, 1, 2, 0, 0));
	feed_trace(r, 9, R(0, 0, 3, 1, 0, 0));          /* no START for 9 */
	feed_end(r, 7, RS_SESS_INTERIM, 0);
	feed_trace(r, 7, R(1, 2, 1, 2, -12, 2000));
	feed_trace(r, 7, R(1, 3, 0, 1, -12, 3000));
	feed_end(r, 7, RS_SESS_IS_ERR, 3);
	st.sess_id = 8;
	rp_feed(r, &st.hdr);
	feed_trace(r, 8, R(0, 0, 2, 1, 0, 0));
	feed_end(r, 8, RS_SESS_IGNORED, 0);
	CHECK_INT(rp_finish(r, NULL, err, sizeof(err)), 0);
	rp_free(r);
	fclose(f);
	fclose(m);
	/* the trace record of session 9, whose START never came, is counted */
	CHECK(mbuf && strstr(mbuf, "t: skipped 1 trace record(s) of sessions whose start"));
	free(mbuf);
	/* two renderings of session 7: the interim one shows seq 0 only */
	n = 0;
	for (p = buf; (p = strstr(p, "FUNCTION CALLS")); p++)
		n++;
	CHECK_INT(n, 2);
	p = buf ? strstr(buf, "FUNCTION CALLS") : NULL;
	CHECK(p && strstr(p, "\u2192 __x64_sys_bpf"));
	CHECK(p && strstr(p + 1, "FUNCTION CALLS") && (strstr(p, "__sys_bpf") > strstr(p + 1, "FUNCTION CALLS")));
	CHECK(buf && strstr(buf, "\u2194 __sys_bpf") && strstr(buf, "[-ENOMEM]"));
	CHECK(buf && !strstr(buf, "alloc"));                 /* session 9 never shown */
	CHECK(buf && !strstr(buf, "kfree"));                 /* ignored session 8 */
	free(buf);
}

int main(void)
{
	RUN(test_engine);
	RUN(test_upstream_example);
	RUN(test_no_collapse);
	RUN(test_gaps);
	RUN(test_interim_cutoff);
	RUN(test_indent_cap_and_unknown);
	RUN(test_widths);
	return TEST_REPORT("test_trace_view");
}
