/* test_btf_subset.c - unit tests of record/btf_subset.c: types copied from
 * a synthetic BTF (cycles, bitfields, enums, varargs, split BTF over a
 * base) compare equal to their sources after the id remap, each source
 * type is copied once, the raw bytes parse back, the shallow mode cuts
 * structs behind pointers inside structs; the running kernel's BTF is
 * checked too when it is readable. */
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdlib.h>
#include "record/btf_subset.h"
#include "testlib.h"

/* structural equality of A:AID and B:BID down to DEPTH levels; with
 * FWD_OK a FWD in B may stand for a struct/union of A */
static int same_type(const struct btf *a, uint32_t aid, const struct btf *b, uint32_t bid,
		     int depth, int fwd_ok)
{
	const struct btf_type *ta, *tb;

	if (!aid || !bid)
		return aid == bid;
	if (depth <= 0)
		return 1;
	ta = btf__type_by_id(a, aid);
	tb = btf__type_by_id(b, bid);
	if (!ta || !tb)
		return 0;
	if (strcmp(btf__name_by_offset(a, ta->name_off), btf__name_by_offset(b, tb->name_off)))
		return 0;
	if (fwd_ok && btf_is_fwd(tb) && btf_is_composite(ta))
		return btf_kflag(tb) == btf_is_union(ta);
	if (btf_kind(ta) != btf_kind(tb) || btf_vlen(ta) != btf_vlen(tb) ||
	    btf_kflag(ta) != btf_kflag(tb))
		return 0;
	switch (btf_kind(ta)) {
	case BTF_KIND_INT:
		return ta->size == tb->size && btf_int_encoding(ta) == btf_int_encoding(tb) &&
		       btf_int_bits(ta) == btf_int_bits(tb);
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		for (int i = 0; i < btf_vlen(ta); i++) {
			uint64_t va = btf_is_enum(ta) ? (uint32_t)btf_enum(ta)[i].val : btf_enum64_value(&btf_enum64(ta)[i]);
			uint64_t vb = btf_is_enum(tb) ? (uint32_t)btf_enum(tb)[i].val : btf_enum64_value(&btf_enum64(tb)[i]);
			uint32_t na = btf_is_enum(ta) ? btf_enum(ta)[i].name_off : btf_enum64(ta)[i].name_off;
			uint32_t nb = btf_is_enum(tb) ? btf_enum(tb)[i].name_off : btf_enum64(tb)[i].name_off;

			if (va != vb || strcmp(btf__name_by_offset(a, na), btf__name_by_offset(b, nb)))
				return 0;
		}
		return ta->size == tb->size;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		if (ta->size != tb->size)
			return 0;
		for (int i = 0; i < btf_vlen(ta); i++) {
			const struct btf_member *ma = btf_members(ta) + i, *mb = btf_members(tb) + i;

			if (ma->offset != mb->offset ||
			    strcmp(btf__name_by_offset(a, ma->name_off), btf__name_by_offset(b, mb->name_off)) ||
			    !same_type(a, ma->type, b, mb->type, depth - 1, fwd_ok))
				return 0;
		}
		return 1;
	case BTF_KIND_ARRAY:
		return btf_array(ta)->nelems == btf_array(tb)->nelems &&
		       same_type(a, btf_array(ta)->type, b, btf_array(tb)->type, depth - 1, fwd_ok) &&
		       same_type(a, btf_array(ta)->index_type, b, btf_array(tb)->index_type, depth - 1, fwd_ok);
	case BTF_KIND_FUNC_PROTO:
		for (int i = 0; i < btf_vlen(ta); i++) {
			const struct btf_param *pa = btf_params(ta) + i, *pb = btf_params(tb) + i;

			if (strcmp(btf__name_by_offset(a, pa->name_off), btf__name_by_offset(b, pb->name_off)) ||
			    !same_type(a, pa->type, b, pb->type, depth - 1, fwd_ok))
				return 0;
		}
		return same_type(a, ta->type, b, tb->type, depth - 1, fwd_ok);
	case BTF_KIND_FWD:
	case BTF_KIND_FLOAT:
		return ta->size == tb->size;
	default:   /* ptr, typedef, modifiers, func, var, tags */
		return same_type(a, ta->type, b, tb->type, depth - 1, fwd_ok);
	}
}

static struct btf *src;
static int t_int, t_char, t_cstr, t_node, t_proto, t_func, t_enum, t_e64, t_bits, t_arr, t_vproto;

static void build_src(void)
{
	int ptr_node, u8, uint, c, in;

	src = btf__new_empty();
	t_int = btf__add_int(src, "int", 4, BTF_INT_SIGNED);
	t_char = btf__add_int(src, "char", 1, BTF_INT_CHAR);
	c = btf__add_const(src, t_char);
	t_cstr = btf__add_ptr(src, c);
	/* struct node { struct node *next; int val; union { int a; char b; }; } - a cycle */
	t_node = btf__add_struct(src, "node", 16);
	ptr_node = btf__add_ptr(src, t_node);      /* forward reference of a later id works too */
	btf__add_field(src, "next", ptr_node, 0, 0);
	btf__add_field(src, "val", t_int, 64, 0);
	/* an anonymous union, reached from struct bits below */
	in = btf__add_union(src, NULL, 4);
	btf__add_field(src, "a", t_int, 0, 0);
	btf__add_field(src, "b", t_char, 0, 0);
	t_enum = btf__add_enum(src, "color", 4);
	btf__add_enum_value(src, "RED", 0);
	btf__add_enum_value(src, "NEG", -3);
	t_e64 = btf__add_enum64(src, "big", 8, false);
	btf__add_enum64_value(src, "HUGE", 0xffffffff00000001ULL);
	u8 = btf__add_int(src, "unsigned char", 1, 0);
	uint = btf__add_int(src, "unsigned int", 4, 0);
	t_bits = btf__add_struct(src, "bits", 4);
	btf__add_field(src, "lo", uint, 0, 3);
	btf__add_field(src, "hi", u8, 3, 5);
	btf__add_field(src, "color", t_enum, 8, 0);
	btf__add_field(src, NULL, in, 0, 0);
	t_arr = btf__add_array(src, t_int, t_bits, 7);
	t_proto = btf__add_func_proto(src, t_int);
	btf__add_func_param(src, "n", ptr_node);
	btf__add_func_param(src, "path", t_cstr);
	btf__add_func_param(src, "c", t_enum);
	btf__add_func_param(src, "b", t_bits);
	btf__add_func_param(src, "e", t_e64);
	t_func = btf__add_func(src, "do_thing", BTF_FUNC_GLOBAL, t_proto);
	t_vproto = btf__add_func_proto(src, 0);
	btf__add_func_param(src, "fmt", t_cstr);
	btf__add_func_param(src, NULL, 0);         /* ... */
}

static void test_copy_and_dedup(void)
{
	struct btf_subset *s = btf_subset_new(0);
	const struct btf *b;
	int f, f2, n, arr, v;

	CHECK(s != NULL);
	f = btf_subset_add(s, src, t_func);
	CHECK(f > 0);
	b = btf_subset_btf(s);
	CHECK(same_type(src, t_func, b, f, 8, 0));
	n = btf_subset_types(s);
	/* again, and a type it reaches: copied once */
	f2 = btf_subset_add(s, src, t_func);
	CHECK_INT(f2, f);
	CHECK(btf_subset_add(s, src, t_node) > 0);
	CHECK_INT(btf_subset_types(s), n);
	CHECK(same_type(src, t_node, b, btf_subset_add(s, src, t_node), 8, 0));
	/* the bitfields keep their offsets and sizes */
	CHECK(same_type(src, t_bits, b, btf_subset_add(s, src, t_bits), 4, 0));
	arr = btf_subset_add(s, src, t_arr);
	CHECK(arr > 0 && same_type(src, t_arr, b, arr, 4, 0));
	v = btf_subset_add(s, src, t_vproto);
	CHECK(v > 0 && same_type(src, t_vproto, b, v, 4, 0));
	CHECK_INT(btf_vlen(btf__type_by_id(b, v)), 2);
	CHECK_INT(btf_params(btf__type_by_id(b, v))[1].type, 0);
	CHECK_INT(btf_subset_add(s, src, 0), 0);
	CHECK_INT(btf_subset_add(s, src, 100000), -EINVAL);
	/* the failed lookup did not break the subset */
	CHECK_INT(btf_subset_add(s, src, t_func), f);
	btf_subset_free(s);
}

static void test_raw_roundtrip(void)
{
	struct btf_subset *s = btf_subset_new(0);
	const void *raw;
	uint32_t size = 0;
	struct btf *back;
	int f = btf_subset_add(s, src, t_func);

	raw = btf_subset_raw(s, &size);
	CHECK(raw != NULL && size > 0);
	back = btf__new(raw, size);
	CHECK(back != NULL && !libbpf_get_error(back));
	if (back && !libbpf_get_error(back)) {
		CHECK_INT(btf__type_cnt(back), btf_subset_types(s) + 1);
		CHECK(same_type(src, t_func, back, f, 8, 0));
		CHECK(btf__find_by_name_kind(back, "do_thing", BTF_KIND_FUNC) == f);
		btf__free(back);
	}
	btf_subset_free(s);
}

/* a split BTF over src: its own types and the base's, deduped by owner */
static void test_split(void)
{
	struct btf *split = btf__new_empty_split(src);
	struct btf_subset *s = btf_subset_new(0);
	int mod_struct, mod_ptr, via_split, direct, m;

	mod_struct = btf__add_struct(split, "mod_ctx", 24);
	btf__add_field(split, "n", t_node, 0, 0);
	btf__add_field(split, "e", t_e64, 128, 0);
	mod_ptr = btf__add_ptr(split, mod_struct);
	m = btf_subset_add(s, split, mod_ptr);
	CHECK(m > 0 && same_type(split, mod_ptr, btf_subset_btf(s), m, 8, 0));
	/* a base type through the split BTF and directly: one copy */
	via_split = btf_subset_add(s, split, t_node);
	direct = btf_subset_add(s, src, t_node);
	CHECK(via_split > 0);
	CHECK_INT(via_split, direct);
	btf_subset_free(s);
	btf__free(split);
}

/* struct outer { struct node *n; } f(struct outer *o): outer full, node
 * (behind a pointer inside outer) a FWD; node asked for directly: full */
static void test_shallow(void)
{
	struct btf *b2 = btf__new_empty_split(src);
	struct btf_subset *s = btf_subset_new(BTF_SUBSET_SHALLOW);
	int outer, p, proto, id, node_full, np;
	const struct btf_type *t, *pt;

	np = btf__add_ptr(b2, t_node);
	outer = btf__add_struct(b2, "outer", 8);
	btf__add_field(b2, "n", np, 0, 0);
	p = btf__add_ptr(b2, outer);
	proto = btf__add_func_proto(b2, t_int);
	btf__add_func_param(b2, "o", p);
	id = btf_subset_add(s, b2, proto);
	CHECK(id > 0);
	CHECK(same_type(b2, proto, btf_subset_btf(s), id, 8, 1));
	/* o -> struct outer (full) -> n -> FWD node */
	t = btf__type_by_id(btf_subset_btf(s), btf_params(btf__type_by_id(btf_subset_btf(s), id))[0].type);
	t = btf__type_by_id(btf_subset_btf(s), t->type);
	CHECK(btf_is_struct(t) && btf_vlen(t) == 1);
	pt = btf__type_by_id(btf_subset_btf(s), btf_members(t)[0].type);
	CHECK(btf_is_ptr(pt) && btf_is_fwd(btf__type_by_id(btf_subset_btf(s), pt->type)));
	node_full = btf_subset_add(s, src, t_node);
	CHECK(btf_is_struct(btf__type_by_id(btf_subset_btf(s), node_full)));
	CHECK(same_type(src, t_node, btf_subset_btf(s), node_full, 3, 1));
	btf_subset_free(s);
	btf__free(b2);
}

/* the running kernel's BTF: every function's prototype (when readable),
 * full and shallow; both parse back and compare equal to the source */
static void test_vmlinux(void)
{
	struct btf *vm = btf__parse("/sys/kernel/btf/vmlinux", NULL);
	struct btf_subset *full, *shallow;
	uint32_t fsz = 0, ssz = 0, vsz = 0, nfunc = 0, bad = 0;

	if (libbpf_get_error(vm)) {
		printf("  (no readable /sys/kernel/btf/vmlinux: vmlinux part skipped)\n");
		return;
	}
	full = btf_subset_new(0);
	shallow = btf_subset_new(BTF_SUBSET_SHALLOW);
	for (uint32_t id = 1; id < btf__type_cnt(vm); id++) {
		const struct btf_type *t = btf__type_by_id(vm, id);
		const char *name = btf__name_by_offset(vm, t->name_off);
		int a, b;

		if (!btf_is_func(t) || strncmp(name, "bpf_", 4))
			continue;
		nfunc++;
		a = btf_subset_add(full, vm, t->type);
		b = btf_subset_add(shallow, vm, t->type);
		if (a <= 0 || b <= 0 || !same_type(vm, t->type, btf_subset_btf(full), a, 6, 0) ||
		    !same_type(vm, t->type, btf_subset_btf(shallow), b, 6, 1))
			bad++;
	}
	CHECK(nfunc > 0);
	CHECK_INT(bad, 0);
	CHECK(btf_subset_raw(full, &fsz) && btf_subset_raw(shallow, &ssz));
	CHECK(ssz > 0 && ssz <= fsz);
	printf("  host vmlinux: %u bpf_* prototypes: full closure %u bytes, shallow %u bytes "
	       "(vmlinux BTF %u bytes)\n", nfunc, fsz, ssz, (btf__raw_data(vm, &vsz), vsz));
	btf_subset_free(full);
	btf_subset_free(shallow);
	btf__free(vm);
}

int main(void)
{
	build_src();
	RUN(test_copy_and_dedup);
	RUN(test_raw_roundtrip);
	RUN(test_split);
	RUN(test_shallow);
	RUN(test_vmlinux);
	btf__free(src);
	return TEST_REPORT("test_btf_subset");
}
