/* test_glob.c - unit tests of common/glob.c: matching, selector parsing
 * (module form, path globs, rejected inputs) and glob-set precedence. */
#include <stdlib.h>
#include "common/glob.h"
#include "testlib.h"

static void test_match_basic(void)
{
	CHECK(glob_match("foo", "foo"));
	CHECK(!glob_match("foo", "foobar"));
	CHECK(!glob_match("foo", "fo"));
	CHECK(glob_match("*", ""));
	CHECK(glob_match("*", "anything"));
	CHECK(glob_match("", ""));
	CHECK(!glob_match("", "x"));
	CHECK(glob_match("?", "x"));
	CHECK(!glob_match("?", ""));
	CHECK(!glob_match("?", "xy"));
}

static void test_match_stars(void)
{
	CHECK(glob_match("*_sys_bpf", "__x64_sys_bpf"));
	CHECK(!glob_match("*_sys_bpf", "__x64_sys_bpf_x"));
	CHECK(glob_match("*bpf*", "bpf"));
	CHECK(glob_match("*bpf*", "__sys_bpf_map"));
	CHECK(!glob_match("*bpf*", "bp_f"));
	CHECK(glob_match("do_check*", "do_check_common"));
	CHECK(glob_match("a*b*c", "aXXbYYc"));
	CHECK(glob_match("a*b*c", "abc"));
	CHECK(!glob_match("a*b*c", "acb"));
	CHECK(glob_match("a*a*a", "aaaa"));
	CHECK(!glob_match("a*a*a", "aa"));
	CHECK(glob_match("*.isra.*", "foo.isra.0"));
	CHECK(glob_match("f?o*", "fxo"));
	CHECK(!glob_match("f?o*", "fo"));
	/* backtracking over a long near-miss must still work */
	CHECK(glob_match("*aab", "aaaaaaaaaaaaaaaaaaab"));
	CHECK(!glob_match("*aac", "aaaaaaaaaaaaaaaaaaab"));
}

static void test_spec_parse(void)
{
	struct glob_spec g;
	char err[128];

	CHECK_INT(glob_spec_parse("vfs_*", &g, err, sizeof(err)), 0);
	CHECK_STR(g.name, "vfs_*");
	CHECK(g.module == NULL && g.path == NULL);
	glob_spec_free(&g);

	CHECK_INT(glob_spec_parse("* [kvm]", &g, err, sizeof(err)), 0);
	CHECK_STR(g.name, "*");
	CHECK_STR(g.module, "kvm");
	glob_spec_free(&g);

	CHECK_INT(glob_spec_parse("*[my_mod*]", &g, err, sizeof(err)), 0);
	CHECK_STR(g.name, "*");
	CHECK_STR(g.module, "my_mod*");
	glob_spec_free(&g);

	CHECK_INT(glob_spec_parse("  foo  ", &g, err, sizeof(err)), 0);
	CHECK_STR(g.name, "foo");
	glob_spec_free(&g);

	CHECK_INT(glob_spec_parse(":kernel/bpf/*.c", &g, err, sizeof(err)), 0);
	CHECK(g.name == NULL);
	CHECK_STR(g.path, "kernel/bpf/*.c");
	glob_spec_free(&g);
}

static void test_spec_reject(void)
{
	static const char *bad[] = {
		"", "   ", "**", "***", "foo [kvm", "foo kvm]", "foo [kvm] x", "foo bar",
		"foo$", "[kvm]", "foo []", ":", "a/b", "foo;rm", "x [a b]",
	};
	struct glob_spec g;
	char err[128];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		if (glob_spec_parse(bad[i], &g, err, sizeof(err)) != -1) {
			fprintf(stderr, "  accepted bad glob '%s'\n", bad[i]);
			CHECK(0);
			glob_spec_free(&g);
			continue;
		}
		CHECK(err[0] != '\0');
		CHECK(g.name == NULL && g.module == NULL && g.path == NULL);
	}
	/* a single star is fine */
	CHECK_INT(glob_spec_parse("*", &g, err, sizeof(err)), 0);
	glob_spec_free(&g);
}

static void test_spec_match(void)
{
	struct glob_spec g;
	char err[128];

	CHECK_INT(glob_spec_parse("kvm_* [kvm]", &g, err, sizeof(err)), 0);
	CHECK(glob_spec_match(&g, "kvm_vcpu_ioctl", "kvm"));
	CHECK(!glob_spec_match(&g, "kvm_vcpu_ioctl", "kvm_intel"));
	CHECK(!glob_spec_match(&g, "kvm_vcpu_ioctl", NULL));
	glob_spec_free(&g);

	CHECK_INT(glob_spec_parse("kvm_*", &g, err, sizeof(err)), 0);
	CHECK(glob_spec_match(&g, "kvm_vcpu_ioctl", "kvm"));
	CHECK(glob_spec_match(&g, "kvm_clock_read", NULL));
	CHECK(!glob_spec_match(&g, "vmx_vcpu_run", "kvm_intel"));
	glob_spec_free(&g);

	CHECK_INT(glob_spec_parse(":kernel/*", &g, err, sizeof(err)), 0);
	CHECK(!glob_spec_match(&g, "kernel", NULL));   /* path globs need DWARF */
	glob_spec_free(&g);
}

static void test_set(void)
{
	struct glob_set s = {0};
	char err[128];

	CHECK_INT(glob_set_add(&s, "bpf_*", err, sizeof(err)), 0);
	CHECK_INT(glob_set_add(&s, "*map*", err, sizeof(err)), 0);
	CHECK_INT(glob_set_add(&s, "* [kvm]", err, sizeof(err)), 0);
	CHECK_INT(glob_set_add(&s, "**", err, sizeof(err)), -1);
	CHECK_INT(s.n, 3);
	CHECK_INT(glob_set_find(&s, "bpf_map_update", NULL), 0);
	CHECK_INT(glob_set_find(&s, "htab_map_alloc", NULL), 1);
	CHECK_INT(glob_set_find(&s, "kvm_vcpu_ioctl", "kvm"), 2);
	CHECK_INT(glob_set_find(&s, "vfs_read", NULL), -1);
	for (int i = 0; i < 100; i++)   /* growth */
		CHECK_INT(glob_set_add(&s, "x*", err, sizeof(err)), 0);
	CHECK_INT(s.n, 103);
	CHECK_INT(glob_set_find(&s, "xyz", NULL), 3);
	glob_set_free(&s);
	CHECK(s.v == NULL && s.n == 0);
}

int main(void)
{
	RUN(test_match_basic);
	RUN(test_match_stars);
	RUN(test_spec_parse);
	RUN(test_spec_reject);
	RUN(test_spec_match);
	RUN(test_set);
	return TEST_REPORT("test_glob");
}
