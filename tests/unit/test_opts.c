/* test_opts.c - unit tests of the option layer: common/opts.c (bundles,
 * --long=VALUE, optional values, @FILE, `--`, errors), common/config_keys.c
 * (ranges, types, per-command keys), common/shared_opts.c (one range for
 * -p/-L/-n) and the BPF thread-name glob matcher's C twin
 * (record/comm_filter.c) against common/glob.c. */
#include <stdlib.h>
#include <unistd.h>
#include "common/glob.h"
#include "common/shared_opts.h"
#include "record/comm_filter.h"
#include "testlib.h"

static int parse(struct shared_opts *s, unsigned cmd, int argc, char **argv, struct opt_error *e)
{
	struct opt_group g[1] = { { shared_opt_table, shared_opt_count, s } };
	struct opt_cmdline c = { .prog = "t", .cmd = cmd, .groups = g, .ngroups = 1,
				 .dashdash = OPT_DD_COMMAND };

	shared_opts_init(s, cmd, NULL, NULL);
	return opt_parse(&c, argc, argv, e);
}

static void test_parse_forms(void)
{
	struct shared_opts s;
	struct opt_error e;
	char *a1[] = { "t", "-vvp5", "--pid=6", "--no-pid", "7", "-L0.5", "-Sn", "-n", "x*", NULL };

	CHECK_INT(parse(&s, OPT_RECORD, 9, a1, &e), OPT_OK);
	CHECK_INT(s.verbose, 2);
	CHECK_INT(s.f.npids, 2);
	CHECK_INT(s.f.pids[0], 5);
	CHECK_INT(s.f.pids[1], 6);
	CHECK_INT(s.f.nopids[0], 7);
	CHECK_INT(s.f.min_lat_ns, 500000);
	CHECK(s.f.success_no);
	CHECK_STR(s.f.comms[0], "x*");
	char *a2[] = { "t", "--pid", NULL };
	CHECK_INT(parse(&s, OPT_RECORD, 2, a2, &e), OPT_EUSAGE);
	CHECK_STR(e.msg, "option '--pid' needs a value (PID)");
	char *a3[] = { "t", "--verbose=1", NULL };
	CHECK_INT(parse(&s, OPT_RECORD, 2, a3, &e), OPT_EUSAGE);
	char *a4[] = { "t", "-s", NULL };   /* rendering only */
	CHECK_INT(parse(&s, OPT_RECORD, 2, a4, &e), OPT_EUSAGE);
	CHECK_STR(e.msg, "unknown option '-s'");
	CHECK_INT(parse(&s, OPT_REPORT, 2, a4, &e), OPT_OK);
	char *a5[] = { "t", "--verb", "--", "cmd", "arg", NULL };   /* unique prefix */
	struct opt_group g[1] = { { shared_opt_table, shared_opt_count, &s } };
	struct opt_cmdline c = { .prog = "t", .cmd = OPT_RECORD, .groups = g, .ngroups = 1 };
	shared_opts_init(&s, OPT_RECORD, NULL, NULL);
	CHECK_INT(opt_parse(&c, 5, a5, &e), OPT_OK);
	CHECK(c.command && !strcmp(c.command[0], "cmd"));
	char *a6[] = { "t", "stray", NULL };
	CHECK_INT(parse(&s, OPT_RECORD, 2, a6, &e), OPT_EUSAGE);
	CHECK_STR(e.msg, "unexpected argument 'stray' (a command goes after --)");
}

static void test_ranges(void)
{
	struct shared_opts s;
	struct opt_error e;
	char *bad[][3] = { { "t", "-p0" }, { "t", "-L-1" }, { "t", "-Lsoon" },
			   { "t", "-n0123456789abcdef" }, { "t", "-xEFOO" }, { "t", "-Smaybe" } };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK_INT(parse(&s, OPT_REPORT, 2, bad[i], &e), OPT_EUSAGE);
	/* 256 -p values everywhere, not 257 */
	char *many[260];
	char buf[258][16];
	many[0] = "t";
	for (int i = 0; i < 257; i++) {
		snprintf(buf[i], sizeof(buf[i]), "-p%d", i + 1);
		many[i + 1] = buf[i];
	}
	CHECK_INT(parse(&s, OPT_LIVE, 257, many, &e), OPT_OK);
	CHECK_INT(parse(&s, OPT_REPORT, 258, many, &e), OPT_EUSAGE);
	CHECK_STR(e.msg, "too many -p values (max 256) at '257'");
}

static void test_at_file(void)
{
	char path[] = "/tmp/test_opts_XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	struct shared_opts s;
	struct opt_error e;
	char arg[64], *a[] = { "t", "-n", arg, NULL };

	fprintf(f, "# thread names\n\n  worker*  \nnginx\n");
	fclose(f);
	snprintf(arg, sizeof(arg), "@%s", path);
	CHECK_INT(parse(&s, OPT_RECORD, 3, a, &e), OPT_OK);
	CHECK_INT(s.f.ncomms, 2);
	CHECK_STR(s.f.comms[0], "worker*");
	CHECK_STR(s.f.comms[1], "nginx");
	f = fopen(path, "w");
	fprintf(f, "ok\nway-too-long-thread-name\n");
	fclose(f);
	CHECK_INT(parse(&s, OPT_RECORD, 3, a, &e), OPT_EUSAGE);
	CHECK(strstr(e.msg, ":2: bad comm 'way-too-long-thread-name'") != NULL);
	unlink(path);
	CHECK_INT(parse(&s, OPT_RECORD, 3, a, &e), OPT_EINPUT);
	CHECK(strstr(e.msg, "cannot open") != NULL);
}

static void test_config_keys(void)
{
	const struct cfg_key *k;
	struct opt_error e;
	uint64_t v;

	CHECK_INT(cfg_parse(OPT_RECORD, "bpf.ringbuf-size=8192", &k, &v, &e), OPT_OK);
	CHECK_INT(v, 8192);
	CHECK_INT(cfg_parse(OPT_RECORD, "bpf.ringbuf-size=8193", &k, &v, &e), OPT_EUSAGE);
	CHECK_INT(cfg_parse(OPT_RECORD, "bpf.max-depth=65", &k, &v, &e), OPT_EUSAGE);
	CHECK_INT(cfg_parse(OPT_RECORD, "stacks.dec-offs=1", &k, &v, &e), OPT_EUSAGE);
	CHECK(strstr(e.msg, "setting of retsnoop-report and retsnoop") != NULL);
	CHECK_INT(cfg_parse(OPT_LIVE, "stacks.symb-mode=l", &k, &v, &e), OPT_OK);
	CHECK_INT(v, 1);
	CHECK_INT(cfg_parse(OPT_REPORT, "stacks.emit-addrs=Y", &k, &v, &e), OPT_OK);
	CHECK_INT(v, 1);
	CHECK_INT(cfg_parse(OPT_REPORT, "nodot=1", &k, &v, &e), OPT_EUSAGE);
	CHECK_INT(cfg_parse(OPT_REPORT, "a.b=1", &k, &v, &e), OPT_EUSAGE);
	CHECK_STR(e.msg, "unknown config key 'a.b' (see --config-help)");
}

/* the BPF matcher's algorithm agrees with glob_match on every pair */
static void test_comm_glob(void)
{
	static const char *globs[] = { "*", "?", "a*", "*a", "*a*", "a?c", "a*b*c", "**x**",
		"k*/*:?", "nginx", "worker?*", "*worker*", "?*?", "abcdefghijklmn*" };
	static const char *comms[] = { "", "a", "abc", "aXbYc", "x", "kworker/0:1", "nginx",
		"worker1", "myworker", "ab", "abcdefghijklmno", "acb" };

	for (size_t i = 0; i < sizeof(globs) / sizeof(globs[0]); i++) {
		struct comm_glob_bits b;

		comm_glob_compile(globs[i], &b);
		for (size_t j = 0; j < sizeof(comms) / sizeof(comms[0]); j++)
			if (comm_glob_bits_match(&b, comms[j]) != glob_match(globs[i], comms[j])) {
				fprintf(stderr, "  glob '%s' comm '%s' differs\n", globs[i], comms[j]);
				CHECK(0);
			}
	}
	CHECK(comm_is_glob("a*") && comm_is_glob("a?") && !comm_is_glob("nginx"));
}

int main(void)
{
	RUN(test_parse_forms);
	RUN(test_ranges);
	RUN(test_at_file);
	RUN(test_config_keys);
	RUN(test_comm_glob);
	return TEST_REPORT("test_opts");
}
