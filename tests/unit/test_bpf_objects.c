/* test_bpf_objects.c - unit tests of record/bpf_objects.c: both builds of
 * the BPF object open through the one skeleton without privileges, with
 * the same programs, maps and .rodata defaults but different code, and
 * the lean one's knob check names each knob the recorder set otherwise
 * (bpf/lean_knobs.h) and passes where all are its constants. */
#include "bpf/retsnoop_abi.h"
#include "retsnoop.skel.h"
#include "bpf/lean_knobs.h"
#include "record/bpf_objects.h"
#include "testlib.h"

static struct retsnoop_bpf *gen, *lean;

static void test_open_both(void)
{
	size_t gsz, lsz;
	const void *g = bpf_objects_bytes(false, &gsz), *l = bpf_objects_bytes(true, &lsz);

	CHECK(gen != NULL);
	CHECK(lean != NULL);
	CHECK(gsz > 0 && lsz > 0);
	CHECK(g != l);
	CHECK(gsz != lsz || memcmp(g, l, gsz) != 0);
	/* the bytes are ELF objects */
	CHECK(gsz > 4 && !memcmp(g, "\177ELF", 4));
	CHECK(lsz > 4 && !memcmp(l, "\177ELF", 4));
}

static void test_same_shape(void)
{
	struct bpf_program *pg, *pl;
	struct bpf_map *mg, *ml;
	int n = 0;

	if (!gen || !lean)
		return;
	pl = bpf_object__next_program(lean->obj, NULL);
	bpf_object__for_each_program(pg, gen->obj) {
		CHECK(pl != NULL);
		if (!pl)
			break;
		CHECK_STR(bpf_program__name(pg), bpf_program__name(pl));
		pl = bpf_object__next_program(lean->obj, pl);
		n++;
	}
	CHECK(pl == NULL);
	CHECK(n > 5);
	ml = bpf_object__next_map(lean->obj, NULL);
	bpf_object__for_each_map(mg, gen->obj) {
		CHECK(ml != NULL);
		if (!ml)
			break;
		CHECK_STR(bpf_map__name(mg), bpf_map__name(ml));
		CHECK_INT(bpf_map__value_size(mg), bpf_map__value_size(ml));
		ml = bpf_object__next_map(lean->obj, ml);
	}
	CHECK(ml == NULL);
	/* the same defaults in the same layout */
	CHECK(!memcmp(gen->rodata, lean->rodata, sizeof(*gen->rodata)));
	/* a lean program has less code: the knobs' paths are compiled out */
	CHECK(bpf_program__insn_cnt(lean->progs.rs_fentry) < bpf_program__insn_cnt(gen->progs.rs_fentry));
	CHECK(bpf_program__insn_cnt(lean->progs.rs_ksession) < bpf_program__insn_cnt(gen->progs.rs_ksession));
}

/* the knobs at the lean values on s */
static void set_lean(struct retsnoop_bpf *s)
{
#define SET(k) s->rodata->k = RS_LEAN_##k;
	RS_LEAN_KNOBS(SET)
#undef SET
}

static void test_mismatch(void)
{
	struct retsnoop_bpf *s = gen;

	if (!s)
		return;
	/* the general object's defaults: neither the fast path nor deferral */
	CHECK_STR(bpf_objects_lean_mismatch(s), "lean_calls");
	set_lean(s);
	CHECK(bpf_objects_lean_mismatch(s) == NULL);
	/* each knob set otherwise is named; the others do not matter */
#define FLIP(k) set_lean(s); s->rodata->k = !RS_LEAN_##k; CHECK_STR(bpf_objects_lean_mismatch(s), #k);
	RS_LEAN_KNOBS(FLIP)
#undef FLIP
	set_lean(s);
	s->rodata->nr_funcs = 12345;
	s->rodata->filter_tgid = true;
	CHECK(bpf_objects_lean_mismatch(s) == NULL);
}

int main(void)
{
	libbpf_set_print(NULL);
	gen = bpf_objects_open(false);
	lean = bpf_objects_open(true);
	RUN(test_open_both);
	RUN(test_same_shape);
	RUN(test_mismatch);
	retsnoop_bpf__destroy(gen);
	retsnoop_bpf__destroy(lean);
	return TEST_REPORT("test_bpf_objects");
}
