/* test_ip_cookies.c - unit tests of record/ip_cookies.c: the kprobe.multi
 * cookie table's size choice (no fewer slots than twice the functions, a
 * larger size only when it displaces fewer of them, within the memory
 * bound) and its filling (every function found where the BPF side looks
 * for it, by the same slot rule, a repeated address keeping its first
 * cookie, empty addresses left out). */
#include "record/ip_cookies.h"
#include "testlib.h"
#include <stdlib.h>

/* the BPF side's lookup (bpf/retsnoop.bpf.c multi_cookie): the cookie, and
 * through *probes how many slots were read; 0 when not found */
static uint64_t lookup(const struct rs_ip_cookie *tab, uint32_t bits, uint64_t ip, uint32_t *probes)
{
	uint32_t k = RS_IPC_SLOT(ip, bits);

	for (uint32_t i = 0; i < RS_IPC_PROBES; i++) {
		const struct rs_ip_cookie *c = &tab[k];

		*probes = i + 1;
		if (!c->ip)
			return 0;
		if (c->ip == ip)
			return c->cookie;
		k = (k + 1) & ((1U << bits) - 1);
	}
	return 0;
}

/* n kernel-text-like addresses, 16-byte aligned and a few hundred bytes
 * apart (seeded: the same every run) */
static uint64_t *addrs(size_t n, unsigned seed)
{
	uint64_t *v = calloc(n, sizeof(*v)), a = 0xffffffff81000000ULL;

	srand(seed);
	for (size_t i = 0; i < n; i++) {
		a += 16 * (1 + (uint64_t)(rand() % 64));
		v[i] = a;
	}
	return v;
}

static void test_fill_finds_every_function(void)
{
	size_t n = 300;
	uint64_t *ips = addrs(n, 1), *cookies = calloc(n, sizeof(*cookies));
	uint32_t bits = ipc_pick_bits(ips, n), probes;
	struct rs_ip_cookie *tab = calloc(1U << bits, sizeof(*tab));
	size_t found = 0, extra_seen = 0, extra;

	for (size_t i = 0; i < n; i++)
		cookies[i] = RS_FUNC_COOKIE(i, 0x8);
	extra = ipc_fill(tab, bits, ips, cookies, n);
	for (size_t i = 0; i < n; i++) {
		uint64_t c = lookup(tab, bits, ips[i], &probes);

		found += c == cookies[i];
		extra_seen += probes - 1;
	}
	CHECK_INT(found, n);
	CHECK_INT(extra_seen, extra);
	/* an address not in the table is not found */
	CHECK_INT(lookup(tab, bits, 0xffffffff80000008ULL, &probes), 0);
	free(tab);
	free(ips);
	free(cookies);
}

static void test_bits_bounds(void)
{
	uint64_t *ips = addrs(1000, 2);

	/* at least twice the functions, at most four times the smallest such */
	for (size_t n = 1; n <= 1000; n += 111) {
		uint32_t b = ipc_pick_bits(ips, n), min = 1;

		while ((1ULL << min) < 2ULL * n)
			min++;
		CHECK(b >= min && b <= min + 2);
	}
	/* no addresses to place: the smallest size */
	CHECK_INT(ipc_pick_bits(NULL, 1000), 11);
	/* past the memory bound no larger size is tried */
	{
		size_t n = IPC_MAX_AUTO_BYTES / sizeof(struct rs_ip_cookie);
		uint64_t *many = addrs(n, 3);
		uint32_t b = ipc_pick_bits(many, n), min = 1;

		while ((1ULL << min) < 2ULL * n)
			min++;
		CHECK_INT(b, min);
		free(many);
	}
	free(ips);
}

/* the size chosen displaces no more functions than the smallest, and is
 * the smallest when that one displaces none */
static void test_bits_choice(void)
{
	for (unsigned seed = 10; seed < 40; seed++) {
		size_t n = 19 + seed;
		uint64_t *ips = addrs(n, seed);
		uint32_t b = ipc_pick_bits(ips, n), min = 1;
		struct rs_ip_cookie *tab;
		size_t e_min, e_b;

		while ((1ULL << min) < 2ULL * n)
			min++;
		tab = calloc(1U << (min + 2), sizeof(*tab));
		e_min = ipc_fill(tab, min, ips, NULL, n);
		e_b = ipc_fill(tab, b, ips, NULL, n);
		CHECK(e_b <= e_min);
		if (!e_min)
			CHECK_INT(b, min);
		if (b > min)
			CHECK(e_b < e_min);
		free(tab);
		free(ips);
	}
}

static void test_repeats_and_empty(void)
{
	uint64_t ips[] = { 0xffffffff81001000ULL, 0, 0xffffffff81001000ULL };
	uint64_t cookies[] = { 7, 8, 9 };
	struct rs_ip_cookie tab[8];
	uint32_t probes, used = 0;

	ipc_fill(tab, 3, ips, cookies, 3);
	CHECK_INT(lookup(tab, 3, ips[0], &probes), 7);
	for (int i = 0; i < 8; i++)
		used += tab[i].ip != 0;
	CHECK_INT(used, 1);
}

int main(void)
{
	RUN(test_fill_finds_every_function);
	RUN(test_bits_bounds);
	RUN(test_bits_choice);
	RUN(test_repeats_and_empty);
	return TEST_REPORT("ip_cookies");
}
