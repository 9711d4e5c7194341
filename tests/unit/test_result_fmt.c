/* test_result_fmt.c - unit tests of report/result_fmt.c: every branch of
 * upstream's result rendering (void, pointers, bool, decimal range, hex,
 * errno names, unknown errnos, 32-bit sign extension) and the BPF error
 * heuristic mirror. */
#include "bpf/retsnoop_abi.h"
#include "report/result_fmt.h"
#include "testlib.h"

static const char *fmt(int64_t res, uint32_t flags)
{
	static char buf[RESULT_FMT_MAX];

	return result_fmt(buf, sizeof(buf), res, flags);
}

static void test_void_bool(void)
{
	CHECK_STR(fmt(0, RS_FUNC_RET_VOID | RS_FUNC_CANT_FAIL), "[void]");
	CHECK_STR(fmt(-12, RS_FUNC_RET_VOID), "[void]");
	CHECK_STR(fmt(0, RS_FUNC_RET_BOOL | RS_FUNC_CANT_FAIL), "[false]");
	CHECK_STR(fmt(1, RS_FUNC_RET_BOOL | RS_FUNC_CANT_FAIL), "[true]");
	CHECK_STR(fmt(0x7fffff00, RS_FUNC_RET_BOOL), "[false]");   /* junk above al */
	CHECK_STR(fmt(-1, RS_FUNC_RET_BOOL), "[true]");
}

static void test_pointers(void)
{
	CHECK_STR(fmt(0, RS_FUNC_RET_PTR), "[NULL]");
	CHECK_STR(fmt((int64_t)0xffff888103a4c000ULL, RS_FUNC_RET_PTR), "[0xffff888103a4c000]");
	CHECK_STR(fmt(-12, RS_FUNC_RET_PTR), "[-ENOMEM]");          /* ERR_PTR(-ENOMEM) */
	CHECK_STR(fmt(-4095, RS_FUNC_RET_PTR), "[-4095]");
	CHECK_STR(fmt(-4096, RS_FUNC_RET_PTR), "[0xfffffffffffff000]");
	CHECK_STR(fmt(5, RS_FUNC_RET_PTR), "[0x5]");
}

static void test_numbers(void)
{
	CHECK_STR(fmt(0, 0), "[0]");
	CHECK_STR(fmt(3, 0), "[3]");
	CHECK_STR(fmt(1048575, 0), "[1048575]");
	CHECK_STR(fmt(1048576, 0), "[0x100000]");
	CHECK_STR(fmt(-4096, 0), "[-4096]");
	CHECK_STR(fmt(-1073741824LL, 0), "[-1073741824]");
	CHECK_STR(fmt(-1073741825LL, 0), "[0xffffffffbfffffff]");
	CHECK_STR(fmt((int64_t)0x1234567890ULL, RS_FUNC_CANT_FAIL), "[0x1234567890]");
	CHECK_STR(fmt(INT64_MIN, 0), "[0x8000000000000000]");
	CHECK_STR(fmt(INT64_MAX, 0), "[0x7fffffffffffffff]");
}

static void test_errnos(void)
{
	CHECK_STR(fmt(-1, 0), "[-EPERM]");
	CHECK_STR(fmt(-22, 0), "[-EINVAL]");
	CHECK_STR(fmt(-133, 0), "[-EHWPOISON]");
	CHECK_STR(fmt(-512, 0), "[-ERESTARTSYS]");
	CHECK_STR(fmt(-516, 0), "[-ERESTART_RESTARTBLOCK]");
	CHECK_STR(fmt(-41, 0), "[-41]");
	CHECK_STR(fmt(-520, 0), "[-520]");
	CHECK_STR(fmt(-4000, 0), "[-4000]");
	CHECK_STR(fmt(-4095, 0), "[-4095]");
}

static void test_sign_ext(void)
{
	/* an int in eax: upper half zero, or junk */
	CHECK_STR(fmt((int64_t)0xfffffff4ULL, RS_FUNC_NEEDS_SIGN_EXT), "[-ENOMEM]");
	CHECK_STR(fmt((int64_t)0xdeadbeeffffffff4ULL, RS_FUNC_NEEDS_SIGN_EXT), "[-ENOMEM]");
	CHECK_STR(fmt((int64_t)0xfffffff4ULL, 0), "[0xfffffff4]");   /* a long: not an errno */
	CHECK_STR(fmt((int64_t)0x100000005ULL, RS_FUNC_NEEDS_SIGN_EXT), "[5]");
	CHECK_STR(fmt((int64_t)0x80000000ULL, RS_FUNC_NEEDS_SIGN_EXT), "[0xffffffff80000000]");
	CHECK_INT(result_normalize((int64_t)0xffffffffULL, RS_FUNC_NEEDS_SIGN_EXT), -1);
	CHECK_INT(result_normalize((int64_t)0xffffffffULL, 0), 0xffffffffLL);
}

static void test_truncation(void)
{
	char small[6];

	result_fmt(small, sizeof(small), -22, 0);
	CHECK_STR(small, "[-EIN");
	CHECK(result_fmt(small, 0, -22, 0) == small);
}

static void test_is_error(void)
{
	CHECK(!result_is_error(-12, RS_FUNC_CANT_FAIL));
	CHECK(!result_is_error(0, RS_FUNC_CANT_FAIL | RS_FUNC_RET_BOOL));
	CHECK(!result_is_error(0, RS_FUNC_CANT_FAIL | RS_FUNC_RET_VOID));
	CHECK(result_is_error(0, RS_FUNC_RET_PTR));
	CHECK(result_is_error(-12, RS_FUNC_RET_PTR));
	CHECK(!result_is_error((int64_t)0xffff888100000000ULL, RS_FUNC_RET_PTR));
	CHECK(result_is_error((int64_t)0xfffffff4ULL, RS_FUNC_NEEDS_SIGN_EXT));
	CHECK(result_is_error((int64_t)0xfffff001ULL, RS_FUNC_NEEDS_SIGN_EXT));
	CHECK(!result_is_error((int64_t)0xfffff000ULL, RS_FUNC_NEEDS_SIGN_EXT));
	CHECK(!result_is_error(0, RS_FUNC_NEEDS_SIGN_EXT));
	CHECK(!result_is_error(1, RS_FUNC_NEEDS_SIGN_EXT));
	CHECK(result_is_error(-1, 0));
	CHECK(result_is_error(-4095, 0));
	CHECK(!result_is_error(-4096, 0));
	CHECK(!result_is_error(0, 0));
	CHECK(!result_is_error((int64_t)0xfffffff4ULL, 0));
}

int main(void)
{
	RUN(test_void_bool);
	RUN(test_pointers);
	RUN(test_numbers);
	RUN(test_errnos);
	RUN(test_sign_ext);
	RUN(test_truncation);
	RUN(test_is_error);
	return TEST_REPORT("test_result_fmt");
}
