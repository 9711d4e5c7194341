/* test_errnos.c - unit tests of common/errnos.c: the full name table
 * (checked against libc's values where libc has them), the internal
 * 512..530 codes, the holes, and parsing for -x/-X. */
#include <errno.h>
#include "common/errnos.h"
#include "testlib.h"

static void test_names_vs_libc(void)
{
	CHECK_STR(errno_name(EPERM), "EPERM");
	CHECK_STR(errno_name(ENOMEM), "ENOMEM");
	CHECK_STR(errno_name(EINVAL), "EINVAL");
	CHECK_STR(errno_name(EAGAIN), "EAGAIN");
	CHECK_STR(errno_name(EDEADLK), "EDEADLK");
	CHECK_STR(errno_name(ENOTSUP), "EOPNOTSUPP");  /* same number in Linux */
	CHECK_STR(errno_name(ENAMETOOLONG), "ENAMETOOLONG");
	CHECK_STR(errno_name(ECANCELED), "ECANCELED");
	CHECK_STR(errno_name(EHWPOISON), "EHWPOISON");
	CHECK_STR(errno_name(ERFKILL), "ERFKILL");
	CHECK_STR(errno_name(E2BIG), "E2BIG");
	CHECK_STR(errno_name(ETIMEDOUT), "ETIMEDOUT");
}

static void test_every_number(void)
{
	int known = 0;

	for (int e = 1; e <= 133; e++) {
		const char *n = errno_name(e);

		if (e == 41 || e == 58) {
			CHECK(n == NULL);
			continue;
		}
		CHECK(n != NULL);
		if (!n)
			continue;
		known++;
		CHECK(n[0] == 'E');
		CHECK_INT(errno_parse(n), e);     /* round trip */
	}
	CHECK_INT(known, 131);
	for (int e = 512; e <= 530; e++) {
		const char *n = errno_name(e);

		if (e == 520) {
			CHECK(n == NULL);
			continue;
		}
		CHECK(n != NULL);
		if (n)
			CHECK_INT(errno_parse(n), e);
	}
	CHECK(errno_name(0) == NULL);
	CHECK(errno_name(-12) == NULL);
	CHECK(errno_name(134) == NULL);
	CHECK(errno_name(511) == NULL);
	CHECK(errno_name(531) == NULL);
}

static void test_internal(void)
{
	CHECK_STR(errno_name(512), "ERESTARTSYS");
	CHECK_STR(errno_name(516), "ERESTART_RESTARTBLOCK");
	CHECK_STR(errno_name(517), "EPROBE_DEFER");
	CHECK_STR(errno_name(524), "ENOTSUPP");
	CHECK_STR(errno_name(530), "ERECALLCONFLICT");
}

static void test_parse(void)
{
	CHECK_INT(errno_parse("ENOMEM"), 12);
	CHECK_INT(errno_parse("-ENOMEM"), 12);
	CHECK_INT(errno_parse("NULL"), 0);
	CHECK_INT(errno_parse("12"), 12);
	CHECK_INT(errno_parse("-12"), 12);
	CHECK_INT(errno_parse("4095"), 4095);
	CHECK_INT(errno_parse("4096"), -1);
	CHECK_INT(errno_parse("0"), -1);
	CHECK_INT(errno_parse("enomem"), -1);    /* case-sensitive */
	CHECK_INT(errno_parse("EWOULDBLOCK"), -1);
	CHECK_INT(errno_parse("EDEADLOCK"), -1);
	CHECK_INT(errno_parse("ENOPE"), -1);
	CHECK_INT(errno_parse("12x"), -1);
	CHECK_INT(errno_parse(""), -1);
	CHECK_INT(errno_parse("-"), -1);
	CHECK_INT(errno_parse("null"), -1);
	CHECK_INT(errno_parse("ERESTARTSYS"), 512);
}

int main(void)
{
	RUN(test_names_vs_libc);
	RUN(test_every_number);
	RUN(test_internal);
	RUN(test_parse);
	return TEST_REPORT("test_errnos");
}
