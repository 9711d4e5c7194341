/* test_bpf_ksym_net.c - unit tests of record/bpf_ksym_watch.c's
 * bpf_ksym_net: the [bpf] symbols registered now from the kallsyms read
 * and KSYMBOL events, and each trampoline's current image when an attach
 * replaced one that is not unregistered yet (tracer_fill_tramp_ranges
 * takes that one). */
#include <stdlib.h>
#include <string.h>
#include "record/bpf_ksym_watch.h"
#include "symbols/ksyms.h"
#include "testlib.h"

#define MAXI 16

static struct bpf_ksym_item items[MAXI];
static size_t nitems;

static void add(uint64_t addr, const char *name, uint64_t time, int delta)
{
	items[nitems++] = (struct bpf_ksym_item){ addr, strdup(name), time, delta };
}

static void reset(void)
{
	for (size_t i = 0; i < nitems; i++)
		free(items[i].name);
	nitems = 0;
}

/* the symbol exactly at addr in ks, or NULL */
static const char *at(const struct ksyms *ks, uint64_t addr)
{
	const struct ksym *k = ks ? ksyms_lookup(ks, addr) : NULL;

	return k && k->addr == addr ? k->name : NULL;
}

/* an attach rebuilt T at 0x3000 (a lower address) while the image it
 * replaced, at 0x5000, is still registered: only the new one is current,
 * both stay symbols (a task still inside the old one returns through it) */
static void test_replaced_image_pending(void)
{
	struct ksyms *tr, *ks;

	add(0x1000, "bpf_prog_0123456789abcdef_f", 0, 1);
	add(0x5000, "bpf_trampoline_4294967396", 10, 1);
	add(0x3000, "bpf_trampoline_4294967396", 20, 1);
	ks = bpf_ksym_net(items, nitems, &tr);
	CHECK(ks && tr);
	CHECK_INT(ksyms_count(ks), 3);
	CHECK_STR(at(ks, 0x5000), "bpf_trampoline_4294967396");
	CHECK_STR(at(ks, 0x3000), "bpf_trampoline_4294967396");
	CHECK_INT(ksyms_count(tr), 1);
	CHECK_STR(at(tr, 0x3000), "bpf_trampoline_4294967396");
	CHECK(!at(tr, 0x5000));
	CHECK(!at(tr, 0x1000));   /* programs are not trampolines */
	ksyms_free(ks);
	ksyms_free(tr);
	reset();
}

/* the same with the new image at the higher address, and an image left
 * by an earlier process in the kallsyms read: the newest event wins */
static void test_newest_wins(void)
{
	struct ksyms *tr, *ks;

	add(0x2000, "bpf_trampoline_4294967300", 0, 1);   /* read */
	add(0x4000, "bpf_trampoline_4294967300", 7, 1);
	add(0x6000, "bpf_trampoline_4294967300", 9, 1);
	ks = bpf_ksym_net(items, nitems, &tr);
	CHECK(ks && tr);
	CHECK_INT(ksyms_count(ks), 3);
	CHECK_INT(ksyms_count(tr), 1);
	CHECK_STR(at(tr, 0x6000), "bpf_trampoline_4294967300");
	ksyms_free(ks);
	ksyms_free(tr);
	reset();
}

/* unregistered images are gone from both; one left per name; two
 * functions' trampolines are independent */
static void test_unregistered_and_names(void)
{
	struct ksyms *tr, *ks;

	add(0x4000, "bpf_trampoline_4294967300", 7, 1);
	add(0x6000, "bpf_trampoline_4294967300", 9, 1);
	add(0x6000, "bpf_trampoline_4294967300", 11, -1);   /* the newer one went */
	add(0x8000, "bpf_trampoline_4294967301", 3, 1);
	add(0x8000, "bpf_trampoline_4294967301", 4, -1);
	add(0x8000, "bpf_trampoline_4294967301", 5, 1);     /* again at one address */
	ks = bpf_ksym_net(items, nitems, &tr);
	CHECK(ks && tr);
	CHECK_INT(ksyms_count(ks), 2);
	CHECK(!at(ks, 0x6000));
	CHECK_INT(ksyms_count(tr), 2);
	CHECK_STR(at(tr, 0x4000), "bpf_trampoline_4294967300");
	CHECK_STR(at(tr, 0x8000), "bpf_trampoline_4294967301");
	ksyms_free(ks);
	ksyms_free(tr);
	reset();
}

/* two images of one name both from the kallsyms read: nothing tells
 * which is current, so both are kept (the caller's old behaviour) */
static void test_both_read(void)
{
	struct ksyms *tr, *ks;

	add(0x2000, "bpf_trampoline_4294967300", 0, 1);
	add(0x4000, "bpf_trampoline_4294967300", 0, 1);
	ks = bpf_ksym_net(items, nitems, &tr);
	CHECK(ks && tr);
	CHECK_INT(ksyms_count(tr), 2);
	ksyms_free(ks);
	ksyms_free(tr);
	reset();
}

static void test_empty(void)
{
	struct ksyms *tr, *ks = bpf_ksym_net(items, 0, &tr);

	CHECK(ks && tr);
	CHECK_INT(ksyms_count(ks), 0);
	CHECK_INT(ksyms_count(tr), 0);
	ksyms_free(ks);
	ksyms_free(tr);
}

int main(void)
{
	RUN(test_replaced_image_pending);
	RUN(test_newest_wins);
	RUN(test_unregistered_and_names);
	RUN(test_both_read);
	RUN(test_empty);
	return TEST_REPORT("test_bpf_ksym_net");
}
