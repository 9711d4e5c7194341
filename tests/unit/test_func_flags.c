/* test_func_flags.c - unit tests of record/func_flags.c and
 * record/helper_kinds.c: the BTF return-type rule on a synthetic BTF, BPF
 * helpers (BPF_CALL_x: u64 f(u64 x 5)) classified by the table (pointer,
 * getter, void, 32-bit) or as long errors, and functions of the same name
 * with a real prototype left to the BTF rule; the running kernel's BTF is
 * checked too when it is readable. The fexit return slot rule
 * (btf_func_ret_slot): where a direct context load is allowed, after how
 * many argument registers. The cookie's failure bound (RS_FUNC_COOKIE,
 * RS_COOKIE_FAIL_BOUND): its one compare against the failure rule. */
#include <bpf/btf.h>
#include "bpf/retsnoop_abi.h"
#include "record/func_flags.h"
#include "record/helper_kinds.h"
#include "testlib.h"

static struct btf *btf;
static int t_u64, t_int, t_uint, t_bool, t_ptr, t_long;

/* a function NAME returning RET with NARGS params of type ARG */
static int add_func(const char *name, int ret, int nargs, int arg)
{
	int proto = btf__add_func_proto(btf, ret);

	for (int i = 0; i < nargs; i++)
		btf__add_func_param(btf, "", arg);
	return btf__add_func(btf, name, BTF_FUNC_GLOBAL, proto);
}

static void setup(void)
{
	int ull;

	btf = btf__new_empty();
	ull = btf__add_int(btf, "long long unsigned int", 8, 0);
	t_u64 = btf__add_typedef(btf, "u64", ull);
	t_int = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	t_uint = btf__add_int(btf, "unsigned int", 4, 0);
	t_bool = btf__add_int(btf, "_Bool", 1, BTF_INT_BOOL);
	t_long = btf__add_int(btf, "long", 8, BTF_INT_SIGNED);
	t_ptr = btf__add_ptr(btf, 0);
}

static void test_btf_rule(void)
{
	CHECK_INT(btf_func_flags(btf, add_func("f_void", 0, 1, t_int)), RS_FUNC_RET_VOID | RS_FUNC_CANT_FAIL);
	CHECK_INT(btf_func_flags(btf, add_func("f_int", t_int, 1, t_int)), RS_FUNC_NEEDS_SIGN_EXT);
	CHECK_INT(btf_func_flags(btf, add_func("f_uint", t_uint, 0, 0)), RS_FUNC_CANT_FAIL);
	CHECK_INT(btf_func_flags(btf, add_func("f_bool", t_bool, 0, 0)), RS_FUNC_RET_BOOL | RS_FUNC_CANT_FAIL);
	CHECK_INT(btf_func_flags(btf, add_func("f_ptr", t_ptr, 0, 0)), RS_FUNC_RET_PTR);
	CHECK_INT(btf_func_flags(btf, add_func("f_long", t_long, 0, 0)), 0);
	/* u64 that is not a helper's shape: cannot fail */
	CHECK_INT(btf_func_flags(btf, add_func("f_u64", t_u64, 2, t_u64)), RS_FUNC_CANT_FAIL);
	CHECK_INT(btf_func_flags(NULL, 1), RS_FUNC_NEEDS_SIGN_EXT);
	CHECK_INT(btf_func_flags(btf, t_int), RS_FUNC_NEEDS_SIGN_EXT);
}

static void test_ret_slot(void)
{
	int st = btf__add_struct(btf, "pair", 16), big, pst, ppst, en, pint, proto, fn;

	CHECK_INT(btf__add_field(btf, "a", t_u64, 0, 0), 0);
	CHECK_INT(btf__add_field(btf, "b", t_u64, 64, 0), 0);
	big = btf__add_struct(btf, "big", 24);
	pst = btf__add_ptr(btf, st);
	ppst = btf__add_ptr(btf, pst);
	en = btf__add_enum(btf, "e", 4);
	pint = btf__add_ptr(btf, t_int);
	CHECK_INT(btf_func_ret_slot(btf, add_func("r_int", t_int, 2, t_int)), 2);
	CHECK_INT(btf_func_ret_slot(btf, add_func("r_long0", t_long, 0, 0)), 0);
	CHECK_INT(btf_func_ret_slot(btf, add_func("r_bool", t_bool, 1, t_ptr)), 1);
	CHECK_INT(btf_func_ret_slot(btf, add_func("r_enum", en, 3, t_u64)), 3);
	/* pointers: to a struct, to void, to an integer; not to a pointer */
	CHECK_INT(btf_func_ret_slot(btf, add_func("r_pst", pst, 1, t_int)), 1);
	CHECK_INT(btf_func_ret_slot(btf, add_func("r_pvoid", t_ptr, 1, t_int)), 1);
	CHECK_INT(btf_func_ret_slot(btf, add_func("r_pint", pint, 1, t_int)), 1);
	CHECK_INT(btf_func_ret_slot(btf, add_func("r_ppst", ppst, 1, t_int)), -1);
	/* void: nothing to read; a struct returned by value: none either */
	CHECK_INT(btf_func_ret_slot(btf, add_func("r_void", 0, 1, t_int)), -1);
	CHECK_INT(btf_func_ret_slot(btf, add_func("r_struct", st, 1, t_int)), -1);
	/* a 16-byte struct argument takes two registers; a larger one, or
	 * more than six registers, none */
	CHECK_INT(btf_func_ret_slot(btf, add_func("r_pair", t_int, 2, st)), 4);
	CHECK_INT(btf_func_ret_slot(btf, add_func("r_big", t_int, 1, big)), -1);
	CHECK_INT(btf_func_ret_slot(btf, add_func("r_six", t_int, 6, t_u64)), 6);
	CHECK_INT(btf_func_ret_slot(btf, add_func("r_seven", t_int, 7, t_u64)), -1);
	/* variadic: its last parameter has no type */
	proto = btf__add_func_proto(btf, t_int);
	btf__add_func_param(btf, "", t_int);
	btf__add_func_param(btf, "", 0);
	fn = btf__add_func(btf, "r_va", BTF_FUNC_GLOBAL, proto);
	CHECK_INT(btf_func_ret_slot(btf, fn), -1);
	/* not a function, no BTF */
	CHECK_INT(btf_func_ret_slot(btf, t_int), -1);
	CHECK_INT(btf_func_ret_slot(NULL, fn), -1);

	/* the argument registers where each argument takes one, whatever
	 * the return type: none for a 16-byte struct, a larger one, more
	 * than six, a variadic function, no function */
	CHECK_INT(btf_func_arg_regs(btf, add_func("a_void", 0, 3, t_int)), 3);
	CHECK_INT(btf_func_arg_regs(btf, add_func("a_none", t_int, 0, 0)), 0);
	CHECK_INT(btf_func_arg_regs(btf, add_func("a_ptrs", ppst, 2, pst)), 2);
	CHECK_INT(btf_func_arg_regs(btf, add_func("a_six", t_int, 6, t_bool)), 6);
	CHECK_INT(btf_func_arg_regs(btf, add_func("a_pair", t_int, 2, st)), -1);
	CHECK_INT(btf_func_arg_regs(btf, add_func("a_big", t_int, 1, big)), -1);
	CHECK_INT(btf_func_arg_regs(btf, add_func("a_seven", t_int, 7, t_u64)), -1);
	CHECK_INT(btf_func_arg_regs(btf, fn), -1);
	CHECK_INT(btf_func_arg_regs(btf, t_int), -1);
	CHECK_INT(btf_func_arg_regs(NULL, fn), -1);
}

static void test_helpers(void)
{
	CHECK(helper_kinds_sorted());
	/* helper-shaped: the table's kinds */
	CHECK_INT(btf_func_flags(btf, add_func("bpf_map_lookup_elem", t_u64, 5, t_u64)), RS_FUNC_RET_PTR);
	CHECK_INT(btf_func_flags(btf, add_func("bpf_task_storage_get", t_u64, 5, t_u64)), RS_FUNC_RET_PTR);
	CHECK_INT(btf_func_flags(btf, add_func("bpf_sk_lookup_tcp", t_u64, 5, t_u64)), RS_FUNC_RET_PTR);
	CHECK_INT(btf_func_flags(btf, add_func("bpf_ktime_get_ns", t_u64, 5, t_u64)), RS_FUNC_CANT_FAIL);
	CHECK_INT(btf_func_flags(btf, add_func("bpf_ringbuf_submit", t_u64, 5, t_u64)),
		  RS_FUNC_RET_VOID | RS_FUNC_CANT_FAIL);
	CHECK_INT(btf_func_flags(btf, add_func("bpf_get_retval", t_u64, 5, t_u64)), RS_FUNC_NEEDS_SIGN_EXT);
	/* not listed: a long error (was "cannot fail" from the u64) */
	CHECK_INT(btf_func_flags(btf, add_func("bpf_map_pop_elem", t_u64, 5, t_u64)), 0);
	CHECK_INT(btf_func_flags(btf, add_func("bpf_some_new_helper", t_u64, 5, t_u64)), 0);
	/* a listed name with a real prototype follows its BTF type */
	CHECK_INT(btf_func_flags(btf, add_func("bpf_ktime_get_ns", t_int, 1, t_int)), RS_FUNC_NEEDS_SIGN_EXT);
	/* five u64 params but an int return: not a helper */
	CHECK_INT(btf_func_flags(btf, add_func("bpf_map_lookup_elem", t_int, 5, t_u64)), RS_FUNC_NEEDS_SIGN_EXT);
	uint32_t f = 123;
	CHECK(!helper_kind_flags("bpf_map_pop_elem", &f) && f == 123);
	CHECK(!helper_kind_flags(NULL, &f));
}

/* the running kernel's helpers, when its BTF can be read */
static void test_kernel_btf(void)
{
	struct btf *k = btf__load_vmlinux_btf();
	static const struct { const char *name; uint32_t want; } cases[] = {
		{ "bpf_map_pop_elem", 0 },
		{ "bpf_map_lookup_elem", RS_FUNC_RET_PTR },
		{ "bpf_ktime_get_ns", RS_FUNC_CANT_FAIL },
		{ "bpf_ringbuf_submit", RS_FUNC_RET_VOID | RS_FUNC_CANT_FAIL },
	};

	if (!k) {
		printf("test_func_flags: no kernel BTF here; kernel helpers not checked\n");
		return;
	}
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int id = btf__find_by_name_kind(k, cases[i].name, BTF_KIND_FUNC);

		if (id <= 0) {
			fprintf(stderr, "  %s: not in the kernel BTF\n", cases[i].name);
			CHECK(id > 0);
			continue;
		}
		CHECK_INT(btf_func_flags(k, id), cases[i].want);
	}
	btf__free(k);
}

/* the failure rule, as the BPF side's is_failure states it for a result
 * not yet sign-extended */
static bool rule_fails(uint32_t flags, uint64_t res)
{
	if (flags & RS_FUNC_CANT_FAIL)
		return false;
	if ((flags & RS_FUNC_RET_PTR) && res == 0)
		return true;
	if (flags & RS_FUNC_NEEDS_SIGN_EXT)
		return (uint32_t)res >= 0xfffff001u;
	return res >= (uint64_t)-4095LL;
}

/* every flag combination, results around each edge: the bound's compare
 * on the sign-extended result agrees with the rule, and the cookie keeps
 * the id and flags */
static void test_cookie_bound(void)
{
	static const uint64_t res[] = {
		0, 1, 2, 4095, 4096, 0x7fffffff, 0x80000000, 0xfffff000, 0xfffff001, 0xfffffffe,
		0xffffffff, 0x100000000ULL, 0x1fffff001ULL, (uint64_t)-4097LL, (uint64_t)-4096LL,
		(uint64_t)-4095LL, (uint64_t)-4094LL, (uint64_t)-2, (uint64_t)-1, 0xffff888012345678ULL,
		0x8000000000000000ULL,
	};

	for (uint32_t flags = 0; flags < 0x40; flags++) {
		uint64_t c = RS_FUNC_COOKIE(0x12345u + flags, flags);

		CHECK_INT((uint32_t)c, 0x12345u + flags);
		CHECK_INT((c >> 32) & 0xffff, flags);
		if ((flags & RS_FUNC_RET_PTR) && (flags & RS_FUNC_NEEDS_SIGN_EXT))
			continue;   /* never both: a pointer is 64 bits */
		for (size_t i = 0; i < sizeof(res) / sizeof(res[0]); i++) {
			uint64_t r = res[i];

			if (flags & RS_FUNC_NEEDS_SIGN_EXT)
				r = (uint64_t)(int64_t)(int32_t)(uint32_t)r;
			if ((r + 4095 < RS_COOKIE_FAIL_BOUND(c)) != rule_fails(flags, res[i])) {
				fprintf(stderr, "  flags 0x%x result 0x%llx: bound %llu disagrees\n", flags,
					(unsigned long long)res[i], (unsigned long long)RS_COOKIE_FAIL_BOUND(c));
				CHECK(0);
			}
		}
	}
}

int main(void)
{
	setup();
	RUN(test_cookie_bound);
	RUN(test_btf_rule);
	RUN(test_ret_slot);
	RUN(test_helpers);
	RUN(test_kernel_btf);
	btf__free(btf);
	return TEST_REPORT("test_func_flags");
}
