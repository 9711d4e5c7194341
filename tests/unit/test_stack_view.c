/* test_stack_view.c - unit tests of report/symbolize.c and
 * report/stack_view.c with synthetic stacks: the kprobe-style merge (`!`
 * rows), fexit trampoline collapse, unfiltered mode, interim and stitched
 * frames, return-address symbolization, module bounds, a fake DWARF
 * backend with a KASLR slide, and the exact printed layout. */
#include <stdlib.h>
#include <string.h>
#include "bpf/retsnoop_abi.h"
#include "report/stack_view.h"
#include "report/symbolize.h"
#include "symbols/ksyms.h"
#include "testlib.h"

#define T 0xffffffff81000000ULL
#define B 0xffffffffc0200000ULL

static const struct rsf_ksym ksyms[] = {
	{ T + 0x1000, 'T', "entry_SYSCALL_64", NULL },
	{ T + 0x2000, 't', "do_syscall_64", NULL },
	{ T + 0x3000, 'T', "outer", NULL },
	{ T + 0x4000, 't', "middle", NULL },
	{ T + 0x5000, 't', "helper", NULL },
	{ T + 0x6000, 't', "inner", NULL },
	{ T + 0x7000, 't', "deepest", NULL },
	{ T + 0x8000, 't', "last_vmlinux", NULL },
	{ B + 0x0000, 't', "bpf_trampoline_6442451234", "bpf" },
	{ B + 0x1000, 't', "bpf_prog_0123456789abcdef_prog", "bpf" },
	{ 0xffffffffc0a01000ULL, 't', "mod_fn", "kvm" },
};
static const struct rsf_module mods[] = {
	{ .name = "kvm", .base = 0xffffffffc0a00000ULL, .size = 0x10000 },
};

static char *render(struct sv_table *t);

static struct symbolizer *new_sym(void)
{
	return symbolizer_new(ksyms, sizeof(ksyms) / sizeof(ksyms[0]), mods, 1);
}

static struct sv_frame F(const char *name, int64_t res, uint64_t lat)
{
	return (struct sv_frame){ .name = name, .flags = RS_FUNC_NEEDS_SIGN_EXT, .res = res, .lat_ns = lat };
}

static void test_symbolize(void)
{
	struct symbolizer *s = new_sym();
	struct symb_info si;

	CHECK_INT(symbolize(s, T + 0x3010, false, &si), 0);
	CHECK_STR(si.name, "outer");
	CHECK_INT(si.offset, 0x10);
	/* a return address right after a call ending a function (noreturn) */
	CHECK_INT(symbolize(s, T + 0x4000, true, &si), 0);
	CHECK_STR(si.name, "outer");
	CHECK_INT(si.offset, 0x1000);
	CHECK_INT(symbolize(s, T + 0x4000, false, &si), 0);
	CHECK_STR(si.name, "middle");
	CHECK_INT(si.offset, 0);
	CHECK_INT(symbolize(s, T + 0x10, false, &si), -1);
	CHECK(si.name == NULL);
	/* close to the last vmlinux symbol: plausible; far away: not */
	CHECK_INT(symbolize(s, T + 0x8100, false, &si), 0);
	CHECK_INT(symbolize(s, T + 0x1000000, false, &si), -1);
	/* module symbols stay inside their module */
	CHECK_INT(symbolize(s, 0xffffffffc0a01234ULL, false, &si), 0);
	CHECK_STR(si.module, "kvm");
	CHECK_INT(symbolize(s, 0xffffffffc0a20000ULL, false, &si), -1);
	/* the last BPF symbol has no module entry: bounded by distance */
	CHECK_INT(symbolize(s, B + 0x1040, false, &si), 0);
	CHECK_INT(symbolize(s, B + 0x100000, false, &si), -1);
	symbolizer_free(s);
}

static void test_bpf_names(void)
{
	CHECK(ksym_is_bpf_tramp("bpf_trampoline_6442451234"));
	CHECK(ksym_is_bpf_tramp("bpf_trampoline_6442451234_1"));
	CHECK(!ksym_is_bpf_tramp("bpf_trampoline_link_prog"));
	CHECK(sv_is_bpf_prog("bpf_prog_0123456789abcdef_prog"));
	CHECK(sv_is_bpf_prog("bpf_prog_0123456789abcdef"));
	CHECK(sv_is_stack_helper("bpf_get_stack_raw_tp"));
	CHECK(sv_is_stack_helper("bpf_get_stack"));
	CHECK(sv_is_stack_helper("__bpf_get_stack"));
	CHECK(sv_is_stack_helper("bpf_get_stackid_pe"));
	CHECK(!sv_is_stack_helper("bpf_get_smp_processor_id"));
	CHECK(!sv_is_stack_helper(NULL));
	CHECK(!sv_is_bpf_prog("bpf_prog_load"));
	CHECK(!sv_is_bpf_prog("bpf_prog_add"));
	CHECK(!sv_is_bpf_prog("bpf_prog_0123456789abcdefX"));
}

/* kprobe mode: deepest frame already returned; an untraced helper */
static void test_kprobe_merge(void)
{
	struct symbolizer *s = new_sym();
	struct sv_frame lf[] = { F("outer", -12, 50000), F("middle", -12, 40000),
				 F("inner", -12, 9000), F("deepest", 0xfffffff4, 1999) };
	uint64_t ks[] = { T + 0x6011, T + 0x5022, T + 0x4033, T + 0x3044, T + 0x2055, T + 0x1066 };
	struct sv_opts o = {0};
	struct sv_table t = {0};

	CHECK_INT(stack_view_build(&t, s, lf, 4, ks, 6, &o), 0);
	CHECK_INT(t.n, 7);
	if (t.n == 7) {
		CHECK_INT(t.rows[0].kind, SV_ROW_KERNEL);
		CHECK_STR(t.rows[0].sym, "entry_SYSCALL_64+0x66");
		CHECK_STR(t.rows[0].dur, "");
		CHECK_INT(t.rows[2].kind, SV_ROW_COMBINED);
		CHECK_STR(t.rows[2].sym, "outer+0x44");
		CHECK_STR(t.rows[2].dur, "50us");
		CHECK_STR(t.rows[2].res, "[-ENOMEM]");
		CHECK_INT(t.rows[4].kind, SV_ROW_KERNEL);
		CHECK_STR(t.rows[4].sym, "helper+0x22");
		CHECK_INT(t.rows[5].kind, SV_ROW_COMBINED);
		CHECK_INT(t.rows[6].kind, SV_ROW_MISSING);
		CHECK_STR(t.rows[6].sym, "deepest");
		CHECK_STR(t.rows[6].dur, "1us");
		CHECK_STR(t.rows[6].res, "[-ENOMEM]");
	}
	sv_table_free(&t);

	/* a traced frame missing in the middle goes right before the next
	 * traced frame on the stack, after the kernel-only frames above it */
	struct sv_frame lf2[] = { F("outer", 1, 5000), F("deepest", 2, 4000), F("inner", 3, 3000) };
	CHECK_INT(stack_view_build(&t, s, lf2, 3, ks, 6, &o), 0);
	CHECK_INT(t.n, 7);
	if (t.n == 7) {
		CHECK_STR(t.rows[2].sym, "outer+0x44");
		CHECK_STR(t.rows[3].sym, "middle+0x33");
		CHECK_STR(t.rows[4].sym, "helper+0x22");
		CHECK_INT(t.rows[5].kind, SV_ROW_MISSING);
		CHECK_STR(t.rows[5].sym, "deepest");
		CHECK_INT(t.rows[6].kind, SV_ROW_COMBINED);
		CHECK_STR(t.rows[6].sym, "inner+0x11");
	}
	sv_table_free(&t);

	/* no kernel stack at all: every traced frame is `!` */
	CHECK_INT(stack_view_build(&t, s, lf, 4, NULL, 0, &o), 0);
	CHECK_INT(t.n, 4);
	for (size_t i = 0; i < t.n; i++)
		CHECK_INT(t.rows[i].kind, SV_ROW_MISSING);
	sv_table_free(&t);
	symbolizer_free(s);
}

/* the merge other outputs reuse: kernel frames outermost first with their
 * recorded index, logical frames matched in order, BPF frames filtered,
 * zero entries skipped */
static void test_merge_match(void)
{
	struct symbolizer *s = new_sym();
	struct sv_frame lf[] = { F("outer", -12, 50000), F("helper", -12, 40000),
				 F("middle", -12, 9000), F("deepest", -12, 1999) };
	/* innermost first: trampoline, inner, middle, 0, helper, outer, do_syscall_64 */
	uint64_t ks[] = { B + 0x10, T + 0x6011, T + 0x4033, 0, T + 0x5022, T + 0x3044, T + 0x2055 };
	struct sv_kframe kf[7];
	int match[4];
	int m = stack_view_merge(s, lf, 4, ks, 7, kf, match);

	CHECK_INT(m, 6);
	CHECK_INT(kf[0].kidx, 6);                  /* do_syscall_64 */
	CHECK_STR(kf[0].si.name, "do_syscall_64");
	CHECK_INT(kf[5].kidx, 0);                  /* the trampoline, innermost */
	CHECK(kf[5].filtered && kf[5].bpf);
	CHECK(!kf[1].filtered);
	CHECK_INT(match[0], 1);                    /* outer: kstack[5] */
	CHECK_INT(kf[match[0]].kidx, 5);
	CHECK_INT(match[1], 2);                    /* helper: kstack[4] */
	CHECK_INT(match[2], 3);                    /* middle: kstack[2] (the 0 skipped) */
	CHECK_INT(kf[match[2]].kidx, 2);
	CHECK_INT(match[3], -1);                   /* deepest: not on the stack */
	/* order matters: a function above the previous match is not found */
	{
		struct sv_frame rev[] = { F("middle", 0, 1), F("outer", 0, 1) };
		int mm[2];

		stack_view_merge(s, rev, 2, ks, 7, kf, mm);
		CHECK_INT(mm[0], 3);
		CHECK_INT(mm[1], -1);
	}
	symbolizer_free(s);
}

/* the rows of an fexit stack of outer and middle, collapsed and filtered */
static void check_outer_middle(const struct sv_table *t)
{
	CHECK_INT(t->n, 3);
	if (t->n == 3) {
		CHECK_STR(t->rows[0].sym, "do_syscall_64+0x55");
		CHECK_STR(t->rows[1].sym, "outer+0x100");
		CHECK_INT(t->rows[1].kind, SV_ROW_COMBINED);
		CHECK_STR(t->rows[2].sym, "middle+0x5");
		CHECK_INT(t->rows[2].kind, SV_ROW_COMBINED);
	}
}

/* fexit mode: f+0x5, trampoline, f+X collapses; prog/trampoline dropped */
static void test_fexit_collapse(void)
{
	struct symbolizer *s = new_sym();
	struct sv_frame lf[] = { F("outer", -22, 9000), F("middle", -22, 8000) };
	uint64_t ks[] = {               /* innermost first */
		B + 0x1044,                 /* fexit prog */
		B + 0x0057,                 /* middle's trampoline */
		T + 0x4005,                 /* middle+0x5 */
		T + 0x3100,                 /* outer+0x100 */
		0xffffffffc0100057ULL,      /* outer's trampoline, not in the snapshot */
		T + 0x3005,                 /* outer+0x5 */
		T + 0x2055,
	};
	struct sv_opts o = {0};
	struct sv_table t = {0};

	CHECK_INT(stack_view_build(&t, s, lf, 2, ks, 7, &o), 0);
	check_outer_middle(&t);
	sv_table_free(&t);

	o.unfiltered = true;
	o.emit_addrs = true;
	CHECK_INT(stack_view_build(&t, s, lf, 2, ks, 7, &o), 0);
	CHECK_INT(t.n, 7);
	if (t.n == 7) {
		CHECK(!t.rows[0].filtered);
		CHECK(t.rows[1].filtered && t.rows[2].filtered);
		CHECK_STR(t.rows[2].sym, "~ffffffffc0100057 0xffffffffc0100057");
		CHECK_STR(t.rows[3].sym, " ffffffff81003100 outer+0x100");
		CHECK(t.rows[5].filtered && t.rows[6].filtered);
		CHECK_STR(t.rows[6].sym, "~ffffffffc0201044 bpf_prog_0123456789abcdef_prog+0x44");
	}
	sv_table_free(&t);

	/* without addresses, the kept BPF frames are marked in the first column */
	o.emit_addrs = false;
	CHECK_INT(stack_view_build(&t, s, lf, 2, ks, 7, &o), 0);
	{
		char *out = render(&t);

		CHECK_STR(out,
			  "                    do_syscall_64+0x55\n"
			  "~                   outer+0x5\n"
			  "~                   0xffffffffc0100057\n"
			  "     9us [-EINVAL]  outer+0x100\n"
			  "     8us [-EINVAL]  middle+0x5\n"
			  "~                   bpf_trampoline_6442451234+0x57\n"
			  "~                   bpf_prog_0123456789abcdef_prog+0x44\n");
		free(out);
	}
	sv_table_free(&t);
	symbolizer_free(s);
}

/* fentry's deferred stacks keep no trampoline: f+0x5 right above f+X
 * collapses the same way, to the same rows as the whole capture's */
static void test_fexit_deferred_collapse(void)
{
	struct symbolizer *s = new_sym();
	struct sv_frame lf[] = { F("outer", -22, 9000), F("middle", -22, 8000) };
	uint64_t ks[] = {               /* innermost first */
		T + 0x4005,                 /* middle+0x5 */
		T + 0x3100,                 /* outer+0x100 */
		T + 0x3005,                 /* outer+0x5 */
		T + 0x2055,
	};
	/* not a pair: an entry site below (inside) its own body's frame */
	uint64_t rec[] = { T + 0x3100, T + 0x3005, T + 0x3100, T + 0x2055 };
	struct sv_frame lr[] = { F("outer", -22, 9000), F("outer", -22, 8000) };
	struct sv_opts o = {0};
	struct sv_table t = {0};

	CHECK_INT(stack_view_build(&t, s, lf, 2, ks, 4, &o), 0);
	check_outer_middle(&t);
	sv_table_free(&t);
	/* a recursive outer: outer+0x5 above outer+0x100 collapses once, the
	 * inner call's body stays */
	CHECK_INT(stack_view_build(&t, s, lr, 2, rec, 4, &o), 0);
	CHECK_INT(t.n, 3);
	if (t.n == 3) {
		CHECK_STR(t.rows[1].sym, "outer+0x100");
		CHECK_STR(t.rows[2].sym, "outer+0x100");
	}
	sv_table_free(&t);
	symbolizer_free(s);
}

static void test_interim_stitched(void)
{
	struct symbolizer *s = new_sym();
	struct sv_frame lf[] = { F("outer", 0, 123456789), F("middle", -22, 8000), F("inner", -22, 7000) };
	uint64_t ks[] = { T + 0x4010, T + 0x3010 };
	struct sv_opts o = { .dec_offs = true };
	struct sv_table t = {0};

	lf[0].unfinished = true;
	lf[2].stitched = true;
	CHECK_INT(stack_view_build(&t, s, lf, 3, ks, 2, &o), 0);
	CHECK_INT(t.n, 3);
	if (t.n == 3) {
		CHECK_STR(t.rows[0].dur, "...");
		CHECK_STR(t.rows[0].res, "[...]");
		CHECK_STR(t.rows[0].sym, "outer+16");
		CHECK(!t.rows[1].stitched);
		CHECK(t.rows[2].stitched);
		CHECK_INT(t.rows[2].kind, SV_ROW_MISSING);
	}
	sv_table_free(&t);
	symbolizer_free(s);
}

/* the call-order rule on the two stacks of issue 11, in symbols of their own */
#define W 0xffffffff82000000ULL
static const struct rsf_ksym oksyms[] = {
	{ W + 0x1000, 'T', "entry_SYSCALL_64_after_hwframe", NULL },
	{ W + 0x2000, 'T', "do_syscall_64", NULL },
	{ W + 0x3000, 'T', "x64_sys_call", NULL },
	{ W + 0x4000, 'T', "__x64_sys_write", NULL },
	{ W + 0x5000, 'T', "ksys_write", NULL },
	{ W + 0x6000, 'T', "vfs_write", NULL },
	{ W + 0x7000, 't', "pipe_write", NULL },
	{ W + 0x8000, 't', "bpf_check", NULL },
	{ W + 0x9000, 't', "do_check", NULL },
	{ W + 0xa000, 't', "check_helper_call.isra.0", NULL },
	{ W + 0xb000, 't', "sk_filter_func_proto", NULL },
	{ W + 0xc000, 't', "bpf_sk_base_func_proto", NULL },
	{ W + 0xd000, 't', "bpf_base_func_proto", NULL },
	{ W + 0xe000, 't', "untraced_helper", NULL },
	{ W + 0xf000, 't', "last", NULL },
	{ B + 0x0000, 't', "bpf_trampoline_6442451234", "bpf" },
	{ B + 0x1000, 't', "bpf_prog_0123456789abcdef_prog", "bpf" },
	{ B + 0x2000, 't', "bpf_trampoline_6442455678", "bpf" },
	{ B + 0x3000, 't', "bpf_trampoline_6442459999", "bpf" },
};

/* "K:name" / "!:name" per row, names without offsets, joined by spaces */
static void row_names(const struct sv_table *t, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < t->n && off < len; i++) {
		const char *sym = t->rows[i].sym;
		size_t n = strcspn(sym, "+");

		off += snprintf(buf + off, len - off, "%s%s%.*s", off ? " " : "",
				t->rows[i].kind == SV_ROW_MISSING ? "!" : "", (int)n, sym);
	}
}

static void check_order(const struct sv_frame *lf, int nl, const uint64_t *ks, int nk,
			const char *want)
{
	struct symbolizer *s = symbolizer_new(oksyms, sizeof(oksyms) / sizeof(oksyms[0]), NULL, 0);
	struct sv_opts o = {0};
	struct sv_table t = {0};
	char got[1024];

	CHECK_INT(stack_view_build(&t, s, lf, nl, ks, nk, &o), 0);
	row_names(&t, got, sizeof(got));
	CHECK_STR(got, want);
	sv_table_free(&t);
	symbolizer_free(s);
}

/* write() to a pipe without readers: __x64_sys_write tail-calls
 * ksys_write, so it is not on the stack; pipe_write had returned */
static void test_order_tail_call(void)
{
	struct sv_frame lf[] = { F("__x64_sys_write", -32, 990000), F("ksys_write", -32, 980000),
				 F("vfs_write", -32, 970000), F("pipe_write", -32, 5000) };
	/* kprobe.multi / kprobes: innermost first */
	uint64_t kp[] = { W + 0x6040, W + 0x5030, W + 0x3020, W + 0x2010, W + 0x1063 };
	/* fentry: every active traced function through its trampoline
	 * (f+0x5, trampoline, f+X), the fexit program innermost */
	uint64_t fe[] = {
		B + 0x1044,                           /* fexit prog */
		B + 0x0057,                           /* pipe_write's trampoline */
		W + 0x7005,                           /* pipe_write+0x5 */
		W + 0x6040, B + 0x2057, W + 0x6005,   /* vfs_write */
		W + 0x5030, B + 0x3057, W + 0x5005,   /* ksys_write */
		W + 0x3020, W + 0x2010, W + 0x1063,
	};

	check_order(lf, 4, kp, 5,
		    "entry_SYSCALL_64_after_hwframe do_syscall_64 x64_sys_call "
		    "!__x64_sys_write ksys_write vfs_write !pipe_write");
	check_order(lf, 4, fe, 12,
		    "entry_SYSCALL_64_after_hwframe do_syscall_64 x64_sys_call "
		    "!__x64_sys_write ksys_write vfs_write pipe_write");
}

/* fentry, a recording whose snapshot lacks the [bpf] symbols: the
 * trampoline after a tail-calling function's f+0x9 is a raw address,
 * filtered like a named one */
static void test_order_old_fentry(void)
{
	struct sv_frame lf[] = { F("__x64_sys_write", -32, 990000), F("ksys_write", -32, 980000) };
	uint64_t fe[] = {
		0xffffffffc0301044ULL,                  /* fexit prog, not in the snapshot */
		0xffffffffc0300057ULL,                  /* ksys_write's trampoline, idem */
		W + 0x5009,                             /* ksys_write+0x9 */
		0xffffffffc0310057ULL,                  /* __x64_sys_write's trampoline */
		W + 0x4009, W + 0x2010, W + 0x1063,
	};

	check_order(lf, 2, fe, 7,
		    "entry_SYSCALL_64_after_hwframe do_syscall_64 __x64_sys_write ksys_write");
}

/* a socket filter calling a helper it may not use: the three *_func_proto
 * lookups had returned NULL when the stack was taken; they come below
 * their caller check_helper_call.isra.0, after its untraced callee */
static void test_order_returned(void)
{
	struct sv_frame lf[] = { F("bpf_check", -22, 900000), F("do_check", -22, 800000),
				 F("check_helper_call.isra.0", -22, 70000),
				 F("sk_filter_func_proto", 0, 3000), F("bpf_sk_base_func_proto", 0, 2000),
				 F("bpf_base_func_proto", 0, 1000) };
	uint64_t ks[] = { W + 0xe011, W + 0xa123, W + 0x9234, W + 0x8345, W + 0x2010, W + 0x1063 };
	uint64_t ks_plain[] = { W + 0xa123, W + 0x9234, W + 0x8345, W + 0x2010, W + 0x1063 };

	for (int i = 3; i < 6; i++)
		lf[i].flags = RS_FUNC_RET_PTR;
	check_order(lf, 6, ks, 6,
		    "entry_SYSCALL_64_after_hwframe do_syscall_64 bpf_check do_check "
		    "check_helper_call.isra.0 untraced_helper "
		    "!sk_filter_func_proto !bpf_sk_base_func_proto !bpf_base_func_proto");
	check_order(lf, 6, ks_plain, 5,
		    "entry_SYSCALL_64_after_hwframe do_syscall_64 bpf_check do_check "
		    "check_helper_call.isra.0 "
		    "!sk_filter_func_proto !bpf_sk_base_func_proto !bpf_base_func_proto");
	/* no traced frame on the stack at all: every `!` after the kernel frames */
	check_order(lf, 2, ks + 4, 2,
		    "entry_SYSCALL_64_after_hwframe do_syscall_64 !bpf_check !do_check");
	/* consecutive missing frames keep their order before the next match */
	{
		struct sv_frame l2[] = { F("__x64_sys_write", -1, 1), F("ksys_write", -1, 1),
					 F("vfs_write", -1, 1) };
		uint64_t k2[] = { W + 0x6040, W + 0x2010 };

		check_order(l2, 3, k2, 2,
			    "do_syscall_64 !__x64_sys_write !ksys_write vfs_write");
	}
}

static char *render(struct sv_table *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	stack_view_print(f, t);
	fclose(f);
	return buf;
}

static void test_layout(void)
{
	struct symbolizer *s = new_sym();
	struct sv_frame lf[] = { F("outer", -12, 73999), F("middle", 0, 1234567), F("deepest", 0, 2000) };
	uint64_t ks[] = { T + 0x4010, T + 0x3010, T + 0x2035 };
	struct sv_opts o = {0};
	struct sv_table t = {0};
	char *out;

	lf[1].flags = RS_FUNC_RET_PTR;
	lf[2].stitched = true;
	lf[2].flags = RS_FUNC_RET_PTR;
	CHECK_INT(stack_view_build(&t, s, lf, 3, ks, 3, &o), 0);
	out = render(&t);
	CHECK_STR(out,
		  "                     do_syscall_64+0x35\n"
		  "     73us [-ENOMEM]  outer+0x10\n"
		  "   1234us [NULL]     middle+0x10\n"
		  "!\u2307    2us [NULL]     deepest\n");
	free(out);
	sv_table_free(&t);
	symbolizer_free(s);
}

/* a fake DWARF backend: checks the slide and supplies source lines */
static uint64_t seen_link_addr;

static int fake_lookup(void *ctx, uint64_t addr, uint64_t link_addr, bool is_ret,
		       struct symb_info *out)
{
	(void)ctx;
	(void)addr;
	(void)is_ret;
	seen_link_addr = link_addr;
	out->has_src = true;
	snprintf(out->src.file, sizeof(out->src.file), "kernel/x.c");
	out->src.line = 42;
	if (!strcmp(out->name, "outer"))
		snprintf(out->src.func, sizeof(out->src.func), "real_outer");
	else
		snprintf(out->src.func, sizeof(out->src.func), "%s", out->name);
	if (!strcmp(out->name, "middle")) {
		out->ninlines = 1;
		snprintf(out->inlines[0].func, sizeof(out->inlines[0].func), "inlined_fn");
		snprintf(out->inlines[0].file, sizeof(out->inlines[0].file), "include/y.h");
		out->inlines[0].line = 7;
	}
	return 0;
}

static int freed;
static void fake_free(void *ctx)
{
	(void)ctx;
	freed++;
}

static void test_backend(void)
{
	struct symbolizer *s = new_sym();
	struct symb_backend be = { .ctx = NULL, .lookup = fake_lookup, .free = fake_free };
	struct sv_frame lf[] = { F("outer", 0, 1000), F("middle", 0, 1000) };
	uint64_t ks[] = { T + 0x4010, T + 0x3010 };
	struct sv_opts o = {0};
	struct sv_table t = {0};
	struct symb_info si;
	char *out;

	CHECK_INT(symbolizer_slide(T, 0xffffffff81000000ULL - 0x1e00000), 0x1e00000);
	CHECK_INT(symbolizer_slide(0, 0xffffffff81000000ULL), 0);
	symbolizer_set_backend(s, &be, 0x1e00000);
	CHECK_INT(symbolize(s, T + 0x3010, true, &si), 0);
	CHECK_INT(seen_link_addr, T + 0x3010 - 0x1e00000);
	CHECK_INT(stack_view_build(&t, s, lf, 2, ks, 2, &o), 0);
	out = render(&t);
	CHECK_STR(out,
		  "     1us [0]  outer+0x10    (real_outer @ kernel/x.c:42)\n"
		  "     1us [0]  middle+0x10   (kernel/x.c:42)\n"
		  "              . inlined_fn  (include/y.h:7)\n");
	free(out);
	sv_table_free(&t);
	symbolizer_free(s);
	CHECK_INT(freed, 1);
}

int main(void)
{
	RUN(test_symbolize);
	RUN(test_bpf_names);
	RUN(test_kprobe_merge);
	RUN(test_merge_match);
	RUN(test_fexit_collapse);
	RUN(test_fexit_deferred_collapse);
	RUN(test_interim_stitched);
	RUN(test_order_tail_call);
	RUN(test_order_returned);
	RUN(test_order_old_fentry);
	RUN(test_layout);
	RUN(test_backend);
	return TEST_REPORT("test_stack_view");
}
