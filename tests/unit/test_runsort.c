/* test_runsort.c - unit test of the natural merge sort used to order
 * nearly sorted arrays (common/runsort.c): already sorted input,
 * interleaved runs, random input with duplicates, empty input. */
#include "testlib.h"
#include "../../common/runsort.h"

static int int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return x < y ? -1 : x > y;
}

static void test_runsort(void)
{
	int sorted[100], runs[100], rnd[1000], empty[1];
	for (int i = 0; i < 100; i++) {
		sorted[i] = i;
		runs[i] = (i % 25) * 4 + i / 25;   /* 4 interleaved runs */
	}
	unsigned x = 12345;
	for (int i = 0; i < 1000; i++) {
		x = x * 1103515245 + 12345;
		rnd[i] = (int)(x >> 16) % 500;
	}
	CHECK_INT(runsort(sorted, 100, sizeof(int), int_cmp), 0);
	CHECK_INT(runsort(runs, 100, sizeof(int), int_cmp), 0);
	CHECK_INT(runsort(rnd, 1000, sizeof(int), int_cmp), 0);
	CHECK_INT(runsort(empty, 0, sizeof(int), int_cmp), 0);
	int ok = 1;
	for (int i = 0; i < 100; i++)
		ok &= sorted[i] == i && runs[i] == i;
	for (int i = 1; i < 1000; i++)
		ok &= rnd[i - 1] <= rnd[i];
	CHECK(ok);
}

int main(void)
{
	RUN(test_runsort);
	return TEST_REPORT("test_runsort");
}
