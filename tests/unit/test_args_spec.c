/* test_args_spec.c - unit tests of record/args_spec.c on a synthetic
 * BTF: each parameter kind (by value, char * string with any qualifiers,
 * pointer to a sized type, other pointers), x86-64 placement (registers,
 * a 16-byte value in a register pair, the pair that does not fit going
 * to the stack while a later 8-byte value still takes the last
 * register, large structs on the stack), printf-like varargs, raw
 * pointers, more than 12 parameters, and no BTF. */
#include <bpf/btf.h>
#include "record/args_spec.h"
#include "testlib.h"

static struct btf *b;
static int t_int, t_long, t_char, t_u8, t_cstr, t_vcstr, t_str, t_s16, t_s40, t_ps16, t_pvoid,
	   t_pp, t_e, t_pfwd, t_u8p;

static void setup(void)
{
	int c, cc, v, fwd;

	b = btf__new_empty();
	t_int = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	t_long = btf__add_int(b, "long", 8, BTF_INT_SIGNED);
	t_char = btf__add_int(b, "char", 1, BTF_INT_SIGNED);
	t_u8 = btf__add_int(b, "unsigned char", 1, 0);
	c = btf__add_const(b, t_char);
	t_cstr = btf__add_ptr(b, c);                 /* const char * */
	v = btf__add_volatile(b, t_char);
	cc = btf__add_const(b, v);
	t_vcstr = btf__add_ptr(b, cc);               /* const volatile char * */
	t_str = btf__add_ptr(b, t_char);             /* char * */
	t_s16 = btf__add_struct(b, "pair", 16);
	btf__add_field(b, "a", t_long, 0, 0);
	btf__add_field(b, "b", t_long, 64, 0);
	t_s40 = btf__add_struct(b, "big", 40);
	btf__add_field(b, "x", t_long, 0, 0);
	t_ps16 = btf__add_ptr(b, t_s16);
	t_pvoid = btf__add_ptr(b, 0);
	t_pp = btf__add_ptr(b, t_ps16);
	t_e = btf__add_enum(b, "e", 4);
	btf__add_enum_value(b, "E0", 0);
	fwd = btf__add_fwd(b, "opaque", BTF_FWD_STRUCT);
	t_pfwd = btf__add_ptr(b, fwd);
	t_u8p = btf__add_ptr(b, t_u8);
}

static int proto(int n, const int *types, int varargs)
{
	int p = btf__add_func_proto(b, t_int);

	for (int i = 0; i < n; i++)
		btf__add_func_param(b, "p", types[i]);
	if (varargs)
		btf__add_func_param(b, NULL, 0);
	return p;
}

static void test_kinds(void)
{
	int ty[] = { t_int, t_cstr, t_vcstr, t_str, t_ps16, t_pvoid };
	int ty2[] = { t_pp, t_e, t_pfwd, t_u8p };
	struct rs_args_spec s;

	CHECK_INT(args_spec_build(b, proto(6, ty, 0), false, &s), 0);
	CHECK_INT(s.nargs, 6);
	CHECK_INT(s.flags, 0);
	CHECK_INT(s.args[0].kind, RS_ARG_VALUE);
	CHECK_INT(s.args[0].size, 4);
	CHECK_INT(s.args[1].kind, RS_ARG_STR);
	CHECK_INT(s.args[2].kind, RS_ARG_STR);
	CHECK_INT(s.args[3].kind, RS_ARG_STR);
	CHECK_INT(s.args[4].kind, RS_ARG_PTR_DATA);
	CHECK_INT(s.args[4].size, 16);
	CHECK_INT(s.args[5].kind, RS_ARG_PTR);
	for (int i = 0; i < 6; i++)
		CHECK_INT(s.args[i].slot, i);
	CHECK_INT(s.nregs, 6);
	CHECK_INT(s.nstack, 0);
	CHECK_INT(args_spec_build(b, proto(4, ty2, 0), false, &s), 0);
	CHECK_INT(s.args[0].kind, RS_ARG_PTR);        /* pointer to pointer: the value */
	CHECK_INT(s.args[1].kind, RS_ARG_VALUE);      /* enum */
	CHECK_INT(s.args[2].kind, RS_ARG_PTR);        /* to a forward declaration */
	CHECK_INT(s.args[3].kind, RS_ARG_PTR_DATA);   /* unsigned char *: bytes, not a string */
	CHECK_INT(s.args[3].size, 1);
	/* raw pointers: every pointer a value */
	CHECK_INT(args_spec_build(b, proto(6, ty, 0), true, &s), 0);
	for (int i = 1; i < 6; i++)
		CHECK_INT(s.args[i].kind, RS_ARG_PTR);
}

static void test_placement(void)
{
	/* int, pair(2 regs), long, long, pair (1 reg left: stack), long (last reg), big (stack) */
	int ty[] = { t_int, t_s16, t_long, t_long, t_s16, t_long, t_s40, t_int };
	struct rs_args_spec s;

	CHECK_INT(args_spec_build(b, proto(8, ty, 0), false, &s), 0);
	CHECK_INT(s.args[0].slot, 0);
	CHECK_INT(s.args[1].slot, 1);
	CHECK_INT(s.args[1].nslots, 2);
	CHECK_INT(s.args[1].size, 16);
	CHECK_INT(s.args[2].slot, 3);
	CHECK_INT(s.args[3].slot, 4);
	CHECK_INT(s.args[4].slot, RS_ARG_REG_SLOTS);      /* first stack word */
	CHECK_INT(s.args[4].nslots, 2);
	CHECK_INT(s.args[5].slot, 5);                     /* the last register */
	CHECK_INT(s.args[6].slot, RS_ARG_REG_SLOTS + 2);  /* 40 bytes: 5 stack words */
	CHECK_INT(s.args[6].nslots, 5);
	CHECK_INT(s.args[7].slot, RS_ARG_REG_SLOTS + 7);
	CHECK_INT(s.nregs, 6);
	CHECK_INT(s.nstack, 8);
}

static void test_varargs_and_limits(void)
{
	int fmt[] = { t_int, t_cstr };
	int nonconst[] = { t_str };
	int many[14];
	struct rs_args_spec s;

	CHECK_INT(args_spec_build(b, proto(2, fmt, 1), false, &s), 0);
	CHECK_INT(s.nargs, 2);
	CHECK(s.flags & RS_ARGS_SPEC_VARARGS);
	CHECK_INT(s.nregs, 2);
	/* the format must be const char * */
	CHECK_INT(args_spec_build(b, proto(1, nonconst, 1), false, &s), 0);
	CHECK(!(s.flags & RS_ARGS_SPEC_VARARGS));
	/* with raw pointers the format is a pointer value, still varargs */
	CHECK_INT(args_spec_build(b, proto(2, fmt, 1), true, &s), 0);
	CHECK(s.flags & RS_ARGS_SPEC_VARARGS);
	for (int i = 0; i < 14; i++)
		many[i] = t_long;
	CHECK_INT(args_spec_build(b, proto(14, many, 0), false, &s), 0);
	CHECK_INT(s.nargs, RS_MAX_FUNC_ARGS);
	CHECK_INT(s.args[11].slot, RS_ARG_REG_SLOTS + 5);
}

static void test_no_btf(void)
{
	struct rs_args_spec s;

	CHECK_INT(args_spec_build(NULL, 0, false, &s), 0);
	CHECK_INT(s.flags, RS_ARGS_SPEC_NO_BTF);
	CHECK_INT(s.nargs, 6);
	for (int i = 0; i < 6; i++)
		CHECK(s.args[i].kind == RS_ARG_RAW && s.args[i].slot == i && s.args[i].size == 8);
	/* not a FUNC_PROTO: raw registers and -EINVAL */
	CHECK(args_spec_build(b, t_int, false, &s) < 0);
	CHECK_INT(s.flags, RS_ARGS_SPEC_NO_BTF);
}

int main(void)
{
	setup();
	RUN(test_kinds);
	RUN(test_placement);
	RUN(test_varargs_and_limits);
	RUN(test_no_btf);
	btf__free(b);
	return TEST_REPORT("test_args_spec");
}
