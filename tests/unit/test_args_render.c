/* test_args_render.c - unit tests of report/args_render.c and
 * report/args_value.c: a BTF built here with btf__add_* (ints, enums,
 * structs with zero members, a nested struct, char array, char *, pointer
 * to struct, union, bitfields, a printf-like prototype), loaded from its
 * raw bytes as the report loads a recording's blob, then FUNC_ARGS records
 * rendered in the three modes and under width limits: NULL, read errors,
 * arguments fentry could not read, budget cuts, truncated captures,
 * varargs, raw registers without BTF, a broken blob. */
#include <bpf/btf.h>
#include <stdlib.h>
#include "bpf/retsnoop_abi.h"
#include "report/args_render.h"
#include "testlib.h"

struct ids {
	int i32, u32, i64, u64, chr, cchr, boolean, color, arr8, inner, foo, foo_ptr, str, uni,
	    int_ptr, bits, proto, proto_pr;
};

static struct ids T;
static struct args_btf *AB;

/* struct foo { int a; enum color c; char name[8]; struct inner in;
 *              unsigned long big; void *p; }   (40 bytes) */
struct foo_v {
	int32_t a;
	uint32_t c;
	char name[8];
	int32_t x, y;
	uint64_t big;
	uint64_t p;
};

static void add_types(struct btf *b)
{
	int vp;

	T.i32 = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	T.u32 = btf__add_int(b, "unsigned int", 4, 0);
	T.i64 = btf__add_int(b, "long", 8, BTF_INT_SIGNED);
	T.u64 = btf__add_int(b, "long unsigned int", 8, 0);
	T.chr = btf__add_int(b, "char", 1, BTF_INT_SIGNED | BTF_INT_CHAR);
	T.boolean = btf__add_int(b, "_Bool", 1, BTF_INT_BOOL);
	T.color = btf__add_enum(b, "color", 4);
	btf__add_enum_value(b, "RED", 0);
	btf__add_enum_value(b, "GREEN", 1);
	btf__add_enum_value(b, "BLUE", 2);
	T.arr8 = btf__add_array(b, T.i32, T.chr, 8);
	T.inner = btf__add_struct(b, "inner", 8);
	btf__add_field(b, "x", T.i32, 0, 0);
	btf__add_field(b, "y", T.i32, 32, 0);
	vp = btf__add_ptr(b, 0);
	T.foo = btf__add_struct(b, "foo", 40);
	btf__add_field(b, "a", T.i32, 0, 0);
	btf__add_field(b, "c", T.color, 32, 0);
	btf__add_field(b, "name", T.arr8, 64, 0);
	btf__add_field(b, "in", T.inner, 128, 0);
	btf__add_field(b, "big", T.u64, 192, 0);
	btf__add_field(b, "p", vp, 256, 0);
	T.foo_ptr = btf__add_ptr(b, T.foo);
	T.cchr = btf__add_const(b, T.chr);
	T.str = btf__add_ptr(b, T.cchr);
	T.uni = btf__add_union(b, "val", 4);
	btf__add_field(b, "i", T.i32, 0, 0);
	btf__add_field(b, "u", T.u32, 0, 0);
	T.int_ptr = btf__add_ptr(b, T.i32);
	/* struct bits { unsigned int lo:3, mid:5; _Bool on; } */
	T.bits = btf__add_struct(b, "bits", 4);
	btf__add_field(b, "lo", T.u32, 0, 3);
	btf__add_field(b, "mid", T.u32, 3, 5);
	btf__add_field(b, "on", T.boolean, 8, 0);
}

static void add_protos(struct btf *b)
{
	/* int f(struct foo *foo, const char *path, int flags, unsigned long size,
	 *       struct inner in, int *cnt, enum color col, long a7, union val v) */
	T.proto = btf__add_func_proto(b, T.i32);
	btf__add_func_param(b, "foo", T.foo_ptr);
	btf__add_func_param(b, "path", T.str);
	btf__add_func_param(b, "flags", T.i32);
	btf__add_func_param(b, "size", T.u64);
	btf__add_func_param(b, "in", T.inner);
	btf__add_func_param(b, "cnt", T.int_ptr);
	btf__add_func_param(b, "col", T.color);
	btf__add_func_param(b, "a7", T.i64);
	btf__add_func_param(b, "v", T.uni);
	/* int pr(const char *fmt, ...) */
	T.proto_pr = btf__add_func_proto(b, T.i32);
	btf__add_func_param(b, "fmt", T.str);
	btf__add_func_param(b, NULL, 0);
}

/* the BTF as raw bytes, loaded through args_btf_new like a blob */
static void setup(void)
{
	struct btf *b = btf__new_empty();
	uint32_t func_btf[3];
	const void *raw;
	uint32_t size;

	add_types(b);
	add_protos(b);
	raw = btf__raw_data(b, &size);
	func_btf[0] = (uint32_t)T.proto;
	func_btf[1] = (uint32_t)T.proto_pr;
	func_btf[2] = (uint32_t)T.i32;   /* not a FUNC_PROTO: must render raw */
	AB = args_btf_new(raw, size, func_btf, sizeof(func_btf));
	btf__free(b);
}

/* a FUNC_ARGS record being built */
struct rb {
	struct rs_rec_func_args r;
	uint8_t data[1024];
};

static void rb_init(struct rb *b, uint32_t func_id)
{
	memset(b, 0, sizeof(*b));
	b->r.hdr.type = RS_REC_FUNC_ARGS;
	b->r.func_id = func_id;
}

static void rb_add(struct rb *b, uint8_t kind, uint8_t flags, int16_t err, const void *p,
		   size_t len)
{
	struct rs_arg_desc *d = &b->r.args[b->r.nargs++];

	d->kind = kind;
	d->flags = flags;
	d->err = err;
	d->len = (uint16_t)len;
	d->off = b->r.data_len;
	if (len)
		memcpy(b->data + d->off, p, len);
	b->r.data_len = (uint16_t)RS_REC_ALIGN(d->off + len);
	b->r.hdr.size = (uint32_t)(sizeof(b->r) + b->r.data_len);
}

static char *render(const struct rb *b, enum args_fmt_mode mode, int width)
{
	struct args_fmt fmt = { .mode = mode, .max_width = width };
	struct args_list l = {0};
	char *s = NULL;
	size_t n;
	FILE *f = open_memstream(&s, &n);

	CHECK(args_render_rec(AB, &b->r, &fmt, &l) == 0);
	if (mode == ARGS_FMT_COMPACT)
		args_print_compact(f, &l);
	else
		args_print_rows(f, &l, 2);
	fclose(f);
	args_list_free(&l);
	return s;
}

static const struct foo_v FOO = { 5, 1, "hi", 0, 7, 0x12345678, 0xffff888012345678ULL };

static void full_record(struct rb *b)
{
	struct foo_v foo = FOO;
	int32_t flags = -2, cnt = 42, col = 2;
	uint64_t size = 4096, a7 = 1ULL << 40;
	int32_t in[2] = { 3, 0 }, v = 9;

	rb_init(b, 0);
	rb_add(b, RS_ARG_PTR_DATA, 0, 0, &foo, sizeof(foo));
	rb_add(b, RS_ARG_STR, RS_ARGF_USER, 0, "/etc/passwd", 11);
	rb_add(b, RS_ARG_VALUE, 0, 0, &flags, 4);
	rb_add(b, RS_ARG_VALUE, 0, 0, &size, 8);
	rb_add(b, RS_ARG_VALUE, 0, 0, in, 8);
	rb_add(b, RS_ARG_PTR_DATA, 0, 0, &cnt, 4);
	rb_add(b, RS_ARG_VALUE, 0, 0, &col, 4);
	rb_add(b, RS_ARG_VALUE, 0, 0, &a7, 8);
	rb_add(b, RS_ARG_VALUE, 0, 0, &v, 4);
}

static void test_compact(void)
{
	struct rb b;
	char *s;

	full_record(&b);
	s = render(&b, ARGS_FMT_COMPACT, 0);
	/* .in={.y=7}: libbpf 1.1.2 skips a nested struct whose first member
	 * is zero, and drops pointer members (.p); zero members are skipped */
	CHECK_STR(s, "foo=&{.a=5,.c=GREEN,.name='hi',.in={.y=7},.big=0x12345678,"
		  ".p=0xffff888012345678} path='/etc/passwd' flags=-2 size=4096 in={.x=3} "
		  "cnt=&42 col=BLUE a7=0x10000000000 v={.i=9,.u=9}");
	free(s);
}

static void test_multiline(void)
{
	struct rb b;
	char *s;

	full_record(&b);
	b.r.nargs = 3;
	s = render(&b, ARGS_FMT_MULTILINE, 0);
	CHECK_STR(s, "  \u203a foo = &{.a=5,.c=GREEN,.name='hi',.in={.y=7},.big=0x12345678,"
		  ".p=0xffff888012345678}\n"
		  "  \u203a path = '/etc/passwd'\n"
		  "  \u203a flags = -2\n");
	free(s);
}

static void test_verbose(void)
{
	struct rb b;
	char *s;

	full_record(&b);
	b.r.nargs = 2;
	s = render(&b, ARGS_FMT_VERBOSE, 10);   /* verbose never cuts */
	CHECK_STR(s, "  \u203a foo = &{\n"
		  "        .a = 5,\n"
		  "        .c = GREEN,\n"
		  "        .name = 'hi',\n"
		  "        .in = {\n"
		  "            .y = 7\n"
		  "        },\n"
		  "        .big = 0x12345678,\n"
		  "        .p = 0xffff888012345678\n"
		  "    }\n"
		  "  \u203a path = '/etc/passwd'\n");
	free(s);
}

static void test_width(void)
{
	struct rb b;
	char *s;

	full_record(&b);
	b.r.nargs = 2;
	s = render(&b, ARGS_FMT_COMPACT, 12);
	/* 12 columns per value, the last one the `…` */
	CHECK_STR(s, "foo=&{.a=5,.c=G\u2026 path='/etc/passw\u2026");
	free(s);
	s = render(&b, ARGS_FMT_MULTILINE, 13);
	CHECK_STR(s, "  \u203a foo = &{.a=5,.c=GR\u2026\n  \u203a path = '/etc/passwd'\n");
	free(s);
}

static void test_states(void)
{
	struct rb b;
	char *s;
	uint64_t x = 0;

	rb_init(&b, 0);
	rb_add(&b, RS_ARG_PTR_DATA, RS_ARGF_NULL, 0, NULL, 0);
	rb_add(&b, RS_ARG_STR, RS_ARGF_ERR | RS_ARGF_USER, -14, NULL, 0);
	rb_add(&b, RS_ARG_VALUE, 0, 0, &x, 4);
	rb_add(&b, RS_ARG_VALUE, 0, 0, &x, 8);
	rb_add(&b, RS_ARG_VALUE, 0, 0, &x, 8);
	rb_add(&b, RS_ARG_PTR_DATA, RS_ARGF_ERR, -9999, NULL, 0);
	rb_add(&b, RS_ARG_VALUE, RS_ARGF_UNAVAIL, 0, NULL, 0);
	rb_add(&b, RS_ARG_NONE, RS_ARGF_ERR, -33, NULL, 0);
	b.r.flags = RS_ARGS_BUDGET;
	s = render(&b, ARGS_FMT_COMPACT, 120);
	CHECK_STR(s, "foo=NULL path=<ERR:-EFAULT> flags=0 size=0 in={} cnt=<ERR:-9999> "
		  "col=(unavailable: on the stack, fentry) a7=(unsupported type) v=(trunc)");
	free(s);
}

static void test_truncated(void)
{
	struct foo_v foo = FOO;
	struct rb b;
	char *s;

	rb_init(&b, 0);
	/* the pointee cut in the middle of .name, and a string cut to a budget */
	rb_add(&b, RS_ARG_PTR_DATA, RS_ARGF_TRUNC, 0, &foo, 9);
	rb_add(&b, RS_ARG_STR, RS_ARGF_TRUNC, 0, "/very/long", 10);
	s = render(&b, ARGS_FMT_COMPACT, 0);
	CHECK_STR(s, "foo=&{.a=5,.c=GREEN,.name='h'\u2026} path='/very/long'\u2026");
	free(s);
}

/* JSON takes plain ASCII: "..." for the cut mark, high bytes escaped */
static void test_ascii(void)
{
	struct args_fmt fmt = { .mode = ARGS_FMT_COMPACT, .max_width = 8, .ascii = true };
	struct args_list l = {0};
	struct foo_v foo = FOO;
	struct rb b;

	rb_init(&b, 0);
	rb_add(&b, RS_ARG_PTR_DATA, 0, 0, &foo, 9);
	rb_add(&b, RS_ARG_STR, RS_ARGF_TRUNC, 0, "caf\xc3\xa9", 5);
	CHECK(args_render_rec(AB, &b.r, &fmt, &l) == 0);
	CHECK_INT(l.n, 2);
	if (l.n == 2) {
		CHECK_STR(l.items[0].value, "&{.a=...");
		CHECK_STR(l.items[1].value, "'caf\\...");
	}
	args_list_free(&l);
	fmt.max_width = 0;
	CHECK(args_render_rec(AB, &b.r, &fmt, &l) == 0);
	if (l.n == 2) {
		CHECK_STR(l.items[0].value, "&{.a=5,.c=GREEN,.name='h'...}");
		CHECK_STR(l.items[1].value, "'caf\\xc3\\xa9'...");
	}
	args_list_free(&l);
}

static void test_varargs(void)
{
	uint8_t slot[8 + 6];
	uint64_t addr = 0xffff888000001000ULL, n = 17;
	struct rb b;
	char *s;

	memcpy(slot, &addr, 8);
	memcpy(slot + 8, "eth0\0", 6);
	rb_init(&b, 1);
	rb_add(&b, RS_ARG_STR, 0, 0, "%s: %d", 6);
	rb_add(&b, RS_ARG_VARARG, RS_ARGF_STRISH, 0, slot, 12);
	rb_add(&b, RS_ARG_VARARG, 0, 0, &n, 8);
	s = render(&b, ARGS_FMT_COMPACT, 0);
	CHECK_STR(s, "fmt='%s: %d' vararg0='eth0' vararg1=17");
	free(s);
}

static void test_raw(void)
{
	uint64_t r0 = 0xffff888012345678ULL, r1 = 3;
	struct rb b;
	char *s;

	/* no BTF for the function, a func_btf id that is not a prototype,
	 * and a function id past the table */
	for (uint32_t id = 2; id <= 3; id++) {
		rb_init(&b, id);
		rb_add(&b, RS_ARG_RAW, 0, 0, &r0, 8);
		rb_add(&b, RS_ARG_RAW, 0, 0, &r1, 8);
		s = render(&b, ARGS_FMT_COMPACT, 0);
		CHECK_STR(s, "arg0=0xffff888012345678 arg1=0x3");
		free(s);
	}
	rb_init(&b, 0);
	b.r.flags = RS_ARGS_NO_BTF;
	rb_add(&b, RS_ARG_RAW, 0, 0, &r1, 8);
	s = render(&b, ARGS_FMT_COMPACT, 0);
	CHECK_STR(s, "arg0=0x3");
	free(s);
}

static void test_values(void)
{
	struct args_fmt fmt = { .mode = ARGS_FMT_COMPACT };
	uint32_t bits = 5 | (3 << 3) | (1 << 8);
	int32_t col = 7, neg = -100000000;
	uint32_t big = 4u << 20, small = (4u << 20) - 1;
	char *s;

	s = args_render_value(AB, (uint32_t)T.bits, &bits, 4, false, &fmt);
	CHECK_STR(s, "{.lo=5,.mid=3,.on=true}");
	free(s);
	s = args_render_value(AB, (uint32_t)T.color, &col, 4, false, &fmt);
	CHECK_STR(s, "7");   /* no enumerator: the number */
	free(s);
	s = args_render_value(AB, (uint32_t)T.i32, &neg, 4, false, &fmt);
	CHECK_STR(s, "-100000000");
	free(s);
	s = args_render_value(AB, (uint32_t)T.u32, &big, 4, false, &fmt);
	CHECK_STR(s, "0x400000");
	free(s);
	s = args_render_value(AB, (uint32_t)T.u32, &small, 4, false, &fmt);
	CHECK_STR(s, "4194303");
	free(s);
	s = args_render_value(AB, (uint32_t)T.u32, &small, 2, false, &fmt);
	CHECK_STR(s, "\u2026");   /* fewer bytes than the type */
	free(s);
	s = args_render_value(AB, (uint32_t)T.arr8, "it's\n", 5, true, &fmt);
	CHECK_STR(s, "'it\\'s\\n'\u2026");
	free(s);
	s = args_type_name(AB, (uint32_t)T.foo_ptr);
	CHECK_STR(s, "struct foo *");
	free(s);
	s = args_type_name(AB, (uint32_t)T.str);
	CHECK_STR(s, "const char *");
	free(s);
}

static void test_bad_btf(void)
{
	static const uint8_t junk[64] = { 0x9f, 0xeb, 1, 0, 24 };
	struct args_btf *ab = args_btf_new(junk, sizeof(junk), NULL, 0);
	struct args_fmt fmt = { .mode = ARGS_FMT_COMPACT };
	struct args_list l = {0};
	uint64_t r = 0x10;
	struct rb b;

	CHECK(ab != NULL);
	CHECK(args_btf_error(ab) != NULL);
	CHECK(args_btf_proto(ab, 0) == 0);
	rb_init(&b, 0);
	rb_add(&b, RS_ARG_VALUE, 0, 0, &r, 8);
	CHECK(args_render_rec(ab, &b.r, &fmt, &l) == 0);
	CHECK_INT(l.n, 1);
	if (l.n == 1) {
		CHECK_STR(l.items[0].name, "arg0");
		CHECK_STR(l.items[0].value, "16");
		CHECK(l.items[0].type == NULL);
	}
	args_list_free(&l);
	args_btf_free(ab);
	ab = args_btf_new(NULL, 0, NULL, 0);
	CHECK_STR(args_btf_error(ab), "the recording has no BTF blob");
	args_btf_free(ab);
}

/* a blob whose types refer past the last one, or whose declarations
 * loop, is refused before libbpf's dumper walks it (it would index its
 * state out of bounds, or follow the loop forever) */
static void test_hostile_btf(void)
{
	struct btf *b = btf__new_empty();
	struct args_btf *ab;
	const void *raw;
	uint32_t size, self;
	int i32 = btf__add_int(b, "int", 4, BTF_INT_SIGNED);

	btf__add_ptr(b, 999);
	raw = btf__raw_data(b, &size);
	ab = args_btf_new(raw, size, NULL, 0);
	CHECK(ab && args_btf_error(ab) && strstr(args_btf_error(ab), "refers to type 999"));
	args_btf_free(ab);
	btf__free(b);

	b = btf__new_empty();
	i32 = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	self = btf__type_cnt(b);
	btf__add_const(b, (int)self + 1);           /* const -> ptr -> const ... */
	btf__add_ptr(b, (int)self);
	btf__add_func_proto(b, i32);
	btf__add_func_param(b, "p", (int)self);
	raw = btf__raw_data(b, &size);
	ab = args_btf_new(raw, size, (uint32_t[]){ self + 2 }, 4);
	CHECK(ab && args_btf_error(ab) && strstr(args_btf_error(ab), "contains itself"));
	CHECK(args_btf_proto(ab, 0) == 0);
	args_btf_free(ab);
	btf__free(b);

	/* an anonymous struct holding a pointer to itself cannot be C */
	b = btf__new_empty();
	i32 = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	self = btf__type_cnt(b);
	btf__add_struct(b, NULL, 8);
	btf__add_field(b, "next", (int)self + 1, 0, 0);
	btf__add_ptr(b, (int)self);
	raw = btf__raw_data(b, &size);
	ab = args_btf_new(raw, size, NULL, 0);
	CHECK(ab && args_btf_error(ab) && strstr(args_btf_error(ab), "contains itself"));
	args_btf_free(ab);
	btf__free(b);

	/* a struct pointing to itself is fine */
	b = btf__new_empty();
	i32 = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	self = btf__type_cnt(b);
	btf__add_struct(b, "node", 16);
	btf__add_field(b, "next", (int)self + 1, 0, 0);
	btf__add_field(b, "v", i32, 64, 0);
	btf__add_ptr(b, (int)self);
	btf__add_struct(b, NULL, 4);                 /* self + 2: anonymous */
	btf__add_field(b, "x", i32, 0, 0);
	btf__add_ptr(b, btf__add_const(b, (int)self + 2));
	raw = btf__raw_data(b, &size);
	ab = args_btf_new(raw, size, NULL, 0);
	CHECK(ab && !args_btf_error(ab));
	{   /* named by us, not by libbpf's body printer */
		char *n = args_type_name(ab, self + 4);

		CHECK_STR(n, "const struct {...} *");
		free(n);
		n = args_type_name(ab, self + 1);
		CHECK_STR(n, "struct node *");
		free(n);
	}
	args_btf_free(ab);
	btf__free(b);
}

/* every struct, union, enum and typedef of the host's own kernel BTF
 * (when it has one: /sys/kernel/btf/vmlinux) rendered from patterned
 * bytes, whole and cut in half, in the compact and verbose layouts:
 * real shapes (bitfields, anonymous members, flexible arrays, 64-bit
 * enums, deep nesting) through the walker under ASan/UBSan */
static void test_vmlinux_types(void)
{
	struct btf *v = btf__parse("/sys/kernel/btf/vmlinux", NULL);
	struct args_fmt cf = { .mode = ARGS_FMT_COMPACT }, vf = { .mode = ARGS_FMT_VERBOSE };
	static uint8_t buf[1 << 16];
	struct args_btf *ab;
	const void *raw;
	uint32_t size, n, done = 0;

	if (!v) {
		fprintf(stderr, "  note: no /sys/kernel/btf/vmlinux: kernel types not rendered\n");
		return;
	}
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i % 7 ? (i * 37) ^ 0x5a : 0);
	raw = btf__raw_data(v, &size);
	ab = args_btf_new(raw, size, NULL, 0);
	CHECK(ab && !args_btf_error(ab));
	n = btf__type_cnt(v);
	for (uint32_t id = 1; ab && !args_btf_error(ab) && id < n; id++) {
		const struct btf_type *t = btf__type_by_id(v, id);
		int64_t sz = btf__resolve_size(v, id);
		char *a, *b, *c;

		if (!(btf_is_composite(t) || btf_is_any_enum(t) || btf_is_typedef(t)) || sz <= 0 ||
		    sz > (int64_t)sizeof(buf))
			continue;
		a = args_render_value(ab, id, buf, (size_t)sz, false, &cf);
		b = args_render_value(ab, id, buf, (size_t)sz / 2, false, &vf);
		c = args_type_name(ab, id);
		CHECK(a && b && c && *a && *b && *c);
		done += a && b && c;
		free(a);
		free(b);
		free(c);
	}
	CHECK(done > 1000);
	args_btf_free(ab);
	btf__free(v);
}

static void test_items(void)
{
	struct args_fmt fmt = { .mode = ARGS_FMT_COMPACT };
	struct args_list l = {0};
	struct rb b;

	full_record(&b);
	b.r.args[1].flags |= RS_ARGF_TRUNC;
	CHECK(args_render_rec(AB, &b.r, &fmt, &l) == 0);
	CHECK_INT(l.n, 9);
	if (l.n == 9) {
		CHECK_STR(l.items[0].type, "struct foo *");
		CHECK_STR(l.items[1].type, "const char *");
		CHECK(l.items[1].user && l.items[1].trunc && !l.items[0].trunc);
		CHECK_STR(l.items[4].type, "struct inner");
		CHECK(l.items[2].state == ARGS_OK);
	}
	CHECK(args_list_add_typed(&l, AB, "ctx", (uint32_t)T.inner, (int32_t[]){ 0, 1 }, 8, false,
				  &fmt) == 0);
	CHECK_STR(l.items[l.n - 1].value, "{.y=1}");
	CHECK(args_list_add_text(&l, "regs", NULL, NULL, ARGS_ERR, -2) == 0);
	CHECK_STR(l.items[l.n - 1].value, "<ERR:-ENOENT>");
	args_list_free(&l);
}

int main(void)
{
	setup();
	CHECK(AB && !args_btf_error(AB));
	RUN(test_compact);
	RUN(test_multiline);
	RUN(test_verbose);
	RUN(test_width);
	RUN(test_states);
	RUN(test_truncated);
	RUN(test_ascii);
	RUN(test_varargs);
	RUN(test_raw);
	RUN(test_values);
	RUN(test_bad_btf);
	RUN(test_hostile_btf);
	RUN(test_items);
	RUN(test_vmlinux_types);
	args_btf_free(AB);
	return TEST_REPORT("test_args_render");
}
