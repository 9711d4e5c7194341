/* test_analysis.c - unit tests of the report-time filters' time parsing,
 * argument parsing and impossible-combination checks, the summary's
 * latency histogram buckets and JSON string escaping. */
#include <stdlib.h>
#include <time.h>
#include "report/filters.h"
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

static int parse(struct filters *f, const char *a, const char *b, char *err, size_t len)
{
	char *argv[3] = { (char *)a, (char *)b, NULL };

	return filters_parse_arg(f, b ? 2 : 1, argv, 0, err, len);
}

static void test_args(void)
{
	struct rsf_meta m = { .start_realtime_ns = START, .mode = RSF_MODE_SUCCESS };
	struct rsf_func fn[2] = { { 0x1000, RS_FUNC_IS_ENTRY, "__x64_sys_bpf", NULL },
				  { 0x2000, 0, "map_create", NULL } };
	struct rp_env env = { .meta = &m, .funcs = fn, .nfuncs = 2 };
	struct filters f;
	char err[256];

	filters_init(&f);
	CHECK_INT(parse(&f, "-p", "12", err, sizeof(err)), 2);
	CHECK_INT(parse(&f, "--entry=__x64_*", NULL, err, sizeof(err)), 1);
	CHECK_INT(parse(&f, "--stack-has", "kfree", err, sizeof(err)), 2);
	CHECK_INT(parse(&f, "-s", NULL, err, sizeof(err)), 0);
	CHECK_INT(parse(&f, "-p", "x", err, sizeof(err)), -1);
	CHECK_INT(parse(&f, "-X", "any", err, sizeof(err)), -1);
	CHECK_INT(parse(&f, "-L", "-3", err, sizeof(err)), -1);
	CHECK_INT(parse(&f, "--stack-has", NULL, err, sizeof(err)), -1);
	CHECK(filters_active(&f));
	CHECK_INT(filters_prepare(&f, &env, err, sizeof(err)), 0);
	CHECK_INT(parse(&f, "-P", "12", err, sizeof(err)), 2);
	CHECK_INT(filters_prepare(&f, &env, err, sizeof(err)), -1);
	CHECK(strstr(err, "-p") != NULL);
	filters_free(&f);

	filters_init(&f);
	CHECK(!filters_active(&f));
	CHECK_INT(parse(&f, "-x", "ENOMEM", err, sizeof(err)), 2);
	CHECK_INT(parse(&f, "-x", "NULL", err, sizeof(err)), 2);
	CHECK_INT(parse(&f, "-X", "ENOMEM", err, sizeof(err)), 2);
	CHECK_INT(filters_prepare(&f, &env, err, sizeof(err)), 0);   /* NULL still allowed */
	CHECK_INT(parse(&f, "-X", "NULL", err, sizeof(err)), 2);
	CHECK_INT(filters_prepare(&f, &env, err, sizeof(err)), -1);
	filters_free(&f);

	filters_init(&f);
	CHECK_INT(parse(&f, "--since", "+10s", err, sizeof(err)), 2);
	CHECK_INT(parse(&f, "--until", "+10s", err, sizeof(err)), 2);
	CHECK_INT(filters_prepare(&f, &env, err, sizeof(err)), 0);   /* an instant is fine */
	CHECK_INT(parse(&f, "--until", "+9s", err, sizeof(err)), 2);
	CHECK_INT(filters_prepare(&f, &env, err, sizeof(err)), -1);
	filters_free(&f);

	/* -S means what it means to the recorder: successful sessions too,
	 * i.e. no outcome filter; on a recording without them, only a note */
	filters_init(&f);
	CHECK_INT(parse(&f, "-S", NULL, err, sizeof(err)), 1);
	CHECK(!filters_active(&f));
	CHECK_INT(filters_prepare(&f, &env, err, sizeof(err)), 0);
	CHECK_INT(f.note[0], 0);
	m.mode = 0;                          /* recorded without -S */
	CHECK_INT(filters_prepare(&f, &env, err, sizeof(err)), 0);
	CHECK(strstr(f.note, "recorded without -S") != NULL);
	m.mode = RSF_MODE_SUCCESS;
	CHECK_INT(parse(&f, "-Sn", NULL, err, sizeof(err)), 1);
	CHECK_INT(filters_prepare(&f, &env, err, sizeof(err)), -1);   /* -S -Sn */
	CHECK(strstr(err, "contradict") != NULL);
	filters_free(&f);
	filters_init(&f);
	CHECK_INT(parse(&f, "-Sy", NULL, err, sizeof(err)), 1);
	CHECK_INT(parse(&f, "-x", "ENOENT", err, sizeof(err)), 2);
	CHECK_INT(filters_prepare(&f, &env, err, sizeof(err)), -1);   /* as at record time */
	CHECK(strstr(err, "-x") != NULL);
	filters_free(&f);
	filters_init(&f);
	CHECK_INT(parse(&f, "-Smaybe", NULL, err, sizeof(err)), -1);
	CHECK(strstr(err, "maybe") != NULL);
	CHECK_INT(parse(&f, "--success-stacks=n", NULL, err, sizeof(err)), 1);
	CHECK_INT(f.outcome, FILT_ERROR_ONLY);
	CHECK(filters_active(&f));
	CHECK_INT(filters_prepare(&f, &env, err, sizeof(err)), 0);
	filters_free(&f);
	/* --success-only: successful sessions only, impossible combinations */
	filters_init(&f);
	CHECK_INT(parse(&f, "--success-only", NULL, err, sizeof(err)), 1);
	CHECK_INT(f.outcome, FILT_SUCCESS_ONLY);
	CHECK_INT(filters_prepare(&f, &env, err, sizeof(err)), 0);
	m.mode = 0;
	CHECK_INT(filters_prepare(&f, &env, err, sizeof(err)), -1);
	CHECK(strstr(err, "without -S") != NULL);
	m.mode = RSF_MODE_SUCCESS;
	CHECK_INT(parse(&f, "-x", "ENOENT", err, sizeof(err)), 2);
	CHECK_INT(filters_prepare(&f, &env, err, sizeof(err)), -1);
	CHECK(strstr(err, "--success-only") != NULL);
	filters_free(&f);
	filters_init(&f);
	CHECK_INT(parse(&f, "--success-only", NULL, err, sizeof(err)), 1);
	CHECK_INT(parse(&f, "-Sn", NULL, err, sizeof(err)), 1);
	CHECK_INT(filters_prepare(&f, &env, err, sizeof(err)), -1);
	CHECK(strstr(err, "exclude each other") != NULL);
	filters_free(&f);
	filters_init(&f);
	CHECK_INT(parse(&f, "--entry", "map_*", err, sizeof(err)), 2);   /* not an entry function */
	CHECK_INT(filters_prepare(&f, &env, err, sizeof(err)), -1);
	CHECK_INT(parse(&f, "--entry", "*sys_bpf", err, sizeof(err)), 2);
	CHECK_INT(filters_prepare(&f, &env, err, sizeof(err)), 0);
	filters_free(&f);
	filters_init(&f);
	CHECK_INT(parse(&f, "--until", "2023-11-14 22:13:20", err, sizeof(err)), 2);
	CHECK_INT(filters_prepare(&f, &env, err, sizeof(err)), -1);   /* 1 s before START */
	CHECK(strstr(err, "before the recording started") != NULL);
	filters_free(&f);
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
