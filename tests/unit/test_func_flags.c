/* test_func_flags.c - unit tests of record/func_flags.c and
 * record/helper_kinds.c: the BTF return-type rule on a synthetic BTF, BPF
 * helpers (BPF_CALL_x: u64 f(u64 x 5)) classified by the table (pointer,
 * getter, void, 32-bit) or as long errors, and functions of the same name
 * with a real prototype left to the BTF rule; the running kernel's BTF is
 * checked too when it is readable. */
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

int main(void)
{
	setup();
	RUN(test_btf_rule);
	RUN(test_helpers);
	RUN(test_kernel_btf);
	btf__free(btf);
	return TEST_REPORT("test_func_flags");
}
