/* test_analysis.c - unit tests of the report-time filters' time parsing,
 * flags (through the option layer) and impossible-combination checks, the summary's
 * latency histogram buckets and JSON string escaping. */
#include <stdlib.h>
#include <time.h>
#include "report/filters.h"
#include "report/report_args.h"
#include "common/json_writer.h"
#include "report/summary_view.h"
#include "testlib.h"

#define START 1700000001000000000ULL   /* 2023-11-14 22:13:21 UTC */

static void test_times(void)
{
	int64_t t;

	setenv("TZ", "UTC", 1);
	tzset();
	CHECK_INT(filters_parse_time("+5s", START, &t), 0);
	CHECK_INT(t, (int64_t)START + 5000000000LL);
	CHECK_INT(filters_parse_time("+1.5m", START, &t), 0);
	CHECK_INT(t, (int64_t)START + 90000000000LL);
	CHECK_INT(filters_parse_time("+250ms", START, &t), 0);
	CHECK_INT(t, (int64_t)START + 250000000LL);
	CHECK_INT(filters_parse_time("22:13:24.5", START, &t), 0);
	CHECK_INT(t, 1700000004500000000LL);
	CHECK_INT(filters_parse_time("2023-11-14 22:13:20.000000001", START, &t), 0);
	CHECK_INT(t, 1700000000000000001LL);
	/* a time of day long before the start is the next day */
	CHECK_INT(filters_parse_time("01:00:00", START, &t), 0);
	CHECK_INT(t, 1700010000000000000LL);   /* 2023-11-15 01:00:00 UTC */
	CHECK(filters_parse_time("24:00:00", START, &t) < 0);
	CHECK(filters_parse_time("+5parsecs", START, &t) < 0);
	CHECK(filters_parse_time("+", START, &t) < 0);
	CHECK(filters_parse_time("12:00", START, &t) < 0);
	CHECK(filters_parse_time("10:00:00.", START, &t) < 0);
	CHECK(filters_parse_time("", START, &t) < 0);
}

/* the report's command line, built up one flag at a time as the option
 * layer parses it (report/report_args.c and the shared table) */
static struct report_args RA;
static struct shared_opts SO;

static void args_init(void)
{
	report_args_init(&RA);
	shared_opts_init(&SO, OPT_REPORT, NULL, NULL);
}

static void args_free(void)
{
	report_args_free(&RA);
}

/* 0, or -1 with the message in err; then the filters are RA.filt */
static int parse(const char *a, const char *b, char *err, size_t len)
{
	char *argv[4] = { "retsnoop-report", (char *)a, (char *)b, NULL };
	struct opt_group g[2] = { { report_opt_table, report_opt_count, &RA },
				  { shared_opt_table, shared_opt_count, &SO } };
	struct opt_cmdline c = { .prog = "t", .cmd = OPT_REPORT, .groups = g, .ngroups = 2,
				 .dashdash = OPT_DD_WORDS };
	struct opt_error e;
	int r = opt_parse(&c, b ? 3 : 2, argv, &e);

	if (!r)
		r = report_args_finish(&RA, &SO, true, &e);
	snprintf(err, len, "%s", e.msg);
	return r < 0 ? -1 : 0;
}

static void test_args(void)
{
	struct rsf_meta m = { .start_realtime_ns = START, .mode = RSF_MODE_SUCCESS };
	struct rsf_func fn[2] = { { 0x1000, RS_FUNC_IS_ENTRY, "__x64_sys_bpf", NULL },
				  { 0x2000, 0, "map_create", NULL } };
	struct rp_env env = { .meta = &m, .funcs = fn, .nfuncs = 2 };
	char err[256];

	args_init();
	CHECK_INT(parse("-p", "12", err, sizeof(err)), 0);
	CHECK_INT(parse("--entry=__x64_*", NULL, err, sizeof(err)), 0);
	CHECK_INT(parse("--stack-has", "kfree", err, sizeof(err)), 0);
	CHECK_INT(parse("-s", NULL, err, sizeof(err)), 0);
	CHECK_INT(parse("-p", "x", err, sizeof(err)), -1);
	CHECK_INT(parse("-X", "any", err, sizeof(err)), -1);
	CHECK_INT(parse("-L", "-3", err, sizeof(err)), -1);
	CHECK_INT(parse("--stack-has", NULL, err, sizeof(err)), -1);
	CHECK(filters_active(&RA.filt));
	CHECK_INT(filters_prepare(&RA.filt, &env, err, sizeof(err)), 0);
	CHECK_INT(parse("-P", "12", err, sizeof(err)), 0);
	CHECK_INT(filters_prepare(&RA.filt, &env, err, sizeof(err)), -1);
	CHECK(strstr(err, "-p") != NULL);
	args_free();

	args_init();
	CHECK(!filters_active(&RA.filt));
	CHECK_INT(parse("-x", "ENOMEM", err, sizeof(err)), 0);
	CHECK_INT(parse("-x", "NULL", err, sizeof(err)), 0);
	CHECK_INT(parse("-X", "ENOMEM", err, sizeof(err)), 0);
	CHECK_INT(filters_prepare(&RA.filt, &env, err, sizeof(err)), 0);   /* NULL still allowed */
	CHECK_INT(parse("-X", "NULL", err, sizeof(err)), 0);
	CHECK_INT(filters_prepare(&RA.filt, &env, err, sizeof(err)), -1);
	args_free();

	args_init();
	CHECK_INT(parse("--since", "+10s", err, sizeof(err)), 0);
	CHECK_INT(parse("--until", "+10s", err, sizeof(err)), 0);
	CHECK_INT(filters_prepare(&RA.filt, &env, err, sizeof(err)), 0);   /* an instant is fine */
	CHECK_INT(parse("--until", "+9s", err, sizeof(err)), 0);
	CHECK_INT(filters_prepare(&RA.filt, &env, err, sizeof(err)), -1);
	args_free();

	/* -S means what it means to the recorder: successful sessions too,
	 * i.e. no outcome filter; on a recording without them, only a note */
	args_init();
	CHECK_INT(parse("-S", NULL, err, sizeof(err)), 0);
	CHECK(!filters_active(&RA.filt));
	CHECK_INT(filters_prepare(&RA.filt, &env, err, sizeof(err)), 0);
	CHECK_INT(RA.filt.note[0], 0);
	m.mode = 0;                          /* recorded without -S */
	CHECK_INT(filters_prepare(&RA.filt, &env, err, sizeof(err)), 0);
	CHECK(strstr(RA.filt.note, "recorded without -S") != NULL);
	m.mode = RSF_MODE_SUCCESS;
	CHECK_INT(parse("-Sn", NULL, err, sizeof(err)), -1);   /* -S -Sn, as when recording */
	CHECK(strstr(err, "contradict") != NULL);
	args_free();
	args_init();
	CHECK_INT(parse("-Sy", NULL, err, sizeof(err)), 0);
	CHECK_INT(parse("-x", "ENOENT", err, sizeof(err)), -1);   /* as at record time */
	CHECK(strstr(err, "-x") != NULL);
	args_free();
	args_init();
	CHECK_INT(parse("-Smaybe", NULL, err, sizeof(err)), -1);
	CHECK(strstr(err, "maybe") != NULL);
	CHECK_INT(parse("--success-stacks=n", NULL, err, sizeof(err)), 0);
	CHECK_INT(RA.filt.outcome, FILT_ERROR_ONLY);
	CHECK(filters_active(&RA.filt));
	CHECK_INT(filters_prepare(&RA.filt, &env, err, sizeof(err)), 0);
	args_free();
	/* --success-only: successful sessions only, impossible combinations */
	args_init();
	CHECK_INT(parse("--success-only", NULL, err, sizeof(err)), 0);
	CHECK_INT(RA.filt.outcome, FILT_SUCCESS_ONLY);
	CHECK_INT(filters_prepare(&RA.filt, &env, err, sizeof(err)), 0);
	m.mode = 0;
	CHECK_INT(filters_prepare(&RA.filt, &env, err, sizeof(err)), -1);
	CHECK(strstr(err, "without -S") != NULL);
	m.mode = RSF_MODE_SUCCESS;
	CHECK_INT(parse("-x", "ENOENT", err, sizeof(err)), 0);
	CHECK_INT(filters_prepare(&RA.filt, &env, err, sizeof(err)), -1);
	CHECK(strstr(err, "--success-only") != NULL);
	args_free();
	args_init();
	CHECK_INT(parse("--success-only", NULL, err, sizeof(err)), 0);
	CHECK_INT(parse("-Sn", NULL, err, sizeof(err)), 0);
	CHECK_INT(filters_prepare(&RA.filt, &env, err, sizeof(err)), -1);
	CHECK(strstr(err, "exclude each other") != NULL);
	args_free();
	args_init();
	CHECK_INT(parse("--entry", "map_*", err, sizeof(err)), 0);   /* not an entry function */
	CHECK_INT(filters_prepare(&RA.filt, &env, err, sizeof(err)), -1);
	CHECK_INT(parse("--entry", "*sys_bpf", err, sizeof(err)), 0);
	CHECK_INT(filters_prepare(&RA.filt, &env, err, sizeof(err)), 0);
	args_free();
	args_init();
	CHECK_INT(parse("--until", "2023-11-14 22:13:20", err, sizeof(err)), 0);
	CHECK_INT(filters_prepare(&RA.filt, &env, err, sizeof(err)), -1);   /* 1 s before START */
	CHECK(strstr(err, "before the recording started") != NULL);
	args_free();
}

static void test_hist(void)
{
	uint64_t vals[] = { 0, 1, 127, 128, 129, 1000, 65535, 65536, 123456789, 1ULL << 40,
			    UINT64_MAX };

	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		int idx = lath_index(vals[i]);
		uint64_t lo = lath_value(idx);

		CHECK(idx >= 0 && idx < LATH_BUCKETS);
		CHECK(lo <= vals[i]);
		if (idx + 1 < LATH_BUCKETS)
			CHECK(lath_value(idx + 1) > vals[i]);
		CHECK(vals[i] - lo <= vals[i] / 64);
	}
	CHECK_INT(lath_index(127), 127);
	CHECK_INT(lath_index(128), 128);
	for (int i = 1; i < LATH_BUCKETS; i++)
		if (lath_value(i) <= lath_value(i - 1))
			CHECK(!"bucket values must increase");
}

static void test_json_escape(void)
{
	char buf[128] = {0};
	FILE *f = fmemopen(buf, sizeof(buf) - 1, "w");

	json_put_str(f, "a\"b\\c\n\x01\xe9");
	fclose(f);
	CHECK_STR(buf, "\"a\\\"b\\\\c\\n\\u0001\\u00e9\"");
}

int main(void)
{
	RUN(test_times);
	RUN(test_args);
	RUN(test_hist);
	RUN(test_json_escape);
	return TEST_REPORT("test_analysis");
}
