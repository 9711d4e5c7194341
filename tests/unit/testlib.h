/* testlib.h - the tiny unit-test runner shared by tests/unit/test_*.c:
 * CHECK macros count failures per test, TEST_MAIN prints
 * "N passed, N failed" and exits non-zero on any failure. */
#ifndef RS_TESTLIB_H
#define RS_TESTLIB_H

#include <stdio.h>
#include <string.h>
#include <inttypes.h>

static int tl_failed_checks;
static int tl_passed, tl_failed;

#define CHECK(cond) do { if (!(cond)) { tl_failed_checks++; \
	fprintf(stderr, "  %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); } } while (0)
#define CHECK_STR(a, b) do { const char *_a = (a), *_b = (b); \
	if (!_a || !_b || strcmp(_a, _b)) { tl_failed_checks++; \
	fprintf(stderr, "  %s:%d: \"%s\" != \"%s\"\n", __FILE__, __LINE__, _a ? _a : "(null)", _b ? _b : "(null)"); } } while (0)
#define CHECK_INT(a, b) do { long long _a = (long long)(a), _b = (long long)(b); \
	if (_a != _b) { tl_failed_checks++; \
	fprintf(stderr, "  %s:%d: %s == %lld, expected %lld\n", __FILE__, __LINE__, #a, _a, _b); } } while (0)

#define RUN(fn) do { int _before = tl_failed_checks; fn(); \
	if (tl_failed_checks == _before) { tl_passed++; } \
	else { tl_failed++; fprintf(stderr, "FAIL %s\n", #fn); } } while (0)

#define TEST_REPORT(name) ({ printf("%s: %d passed, %d failed\n", name, tl_passed, tl_failed); \
	tl_failed ? 1 : 0; })

#endif
