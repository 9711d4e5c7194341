/* mkrec_views.c - writes the synthetic recordings of the trace (-T) and
 * LBR (-B) view golden tests: `mkrec_views OUTDIR [SYSTEM_MAP]`. The
 * views-*.rsrec files use a fake kallsyms snapshot; with SYSTEM_MAP (the
 * Debian 6.12 -dbg kernel's) it also writes views-real.rsrec, whose
 * kallsyms snapshot is that System.map and whose kernel stack and LBR
 * branch pairs are real call/jump/return sites of that vmlinux. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "format/rsfile.h"
#include "reclib.h"

#define TEXT_BASE 0xffffffff81000000ULL
#define MONO_TO_REAL 1700000000000000000LL   /* ktime 0 = 2023-11-14 22:13:20 UTC */

static const char *fake_syms[] = {
	"_stext", "entry_SYSCALL_64_after_hwframe", "do_syscall_64", "__x64_sys_bpf",
	"__sys_bpf", "map_create", "array_map_alloc", "bpf_map_area_alloc",
	"capable", "kfree", "security_bpf", "recurse", "__x86_return_thunk",
	"arch_rethook_trampoline", "kretprobe_rethook_handler", "last_fn",
};
#define NFAKE (sizeof(fake_syms) / sizeof(fake_syms[0]))

static uint64_t FA(const char *name, uint64_t off)
{
	for (size_t i = 0; i < NFAKE; i++)
		if (!strcmp(fake_syms[i], name))
			return TEXT_BASE + 0x100000 + i * 0x1000 + off;
	fprintf(stderr, "mkrec_views: no symbol %s\n", name);
	exit(1);
}

/* traced functions: id = index */
static const struct { const char *name; uint32_t flags; } traced[] = {
	{"__x64_sys_bpf", RS_FUNC_IS_ENTRY},           /* 0 long */
	{"__sys_bpf", RS_FUNC_NEEDS_SIGN_EXT},         /* 1 int */
	{"map_create", RS_FUNC_NEEDS_SIGN_EXT},        /* 2 */
	{"array_map_alloc", RS_FUNC_RET_PTR},          /* 3 */
	{"bpf_map_area_alloc", RS_FUNC_RET_PTR},       /* 4 */
	{"capable", RS_FUNC_CANT_FAIL | RS_FUNC_RET_BOOL}, /* 5 */
	{"kfree", RS_FUNC_CANT_FAIL | RS_FUNC_RET_VOID},   /* 6 */
	{"security_bpf", RS_FUNC_NEEDS_SIGN_EXT},      /* 7 */
	{"recurse", RS_FUNC_NEEDS_SIGN_EXT},           /* 8 */
};
#define NTRACED (sizeof(traced) / sizeof(traced[0]))
enum { F_SYSBPF, F_SYS, F_MAPC, F_AMA, F_AREA, F_CAP, F_KFREE, F_SEC, F_REC };


/* ---------------------------------------------------------------- file */
static struct rsf_ksym *real_ks;
static size_t nreal_ks;

static uint64_t RA(const char *name)   /* real System.map address, 0 if absent */
{
	for (size_t i = 0; i < nreal_ks; i++)
		if (!strcmp(real_ks[i].name, name))
			return real_ks[i].addr;
	return 0;
}

static struct rsf_writer *open_rec(const char *dir, const char *name, uint32_t mode,
				   const char *lbr_status, bool real)
{
	struct rsf_ksym ks[NFAKE];
	struct rsf_func fn[NTRACED];
	struct rsf_meta meta;
	char path[4096];

	for (size_t i = 0; i < NFAKE; i++)
		ks[i] = (struct rsf_ksym){ FA(fake_syms[i], 0), i % 2 ? 't' : 'T', fake_syms[i], NULL };
	for (size_t i = 0; i < NTRACED; i++)
		fn[i] = (struct rsf_func){ real ? RA(traced[i].name) : FA(traced[i].name, 0),
					   traced[i].flags, traced[i].name, NULL };
	rb_meta(&meta, "", "6.12.117+deb12-cloud-amd64", NULL, "golden", TEXT_BASE, MONO_TO_REAL,
		"kprobe-multi", RSF_FEAT_BTF | RSF_FEAT_KPROBES | RSF_FEAT_KPROBE_MULTI | RSF_FEAT_RINGBUF,
		mode);
	snprintf(meta.cmdline, sizeof(meta.cmdline), "retsnoop-record -o %s", name);
	if (mode & RSF_MODE_LBR) {
		meta.lbr_flags = 1u << 7;   /* PERF_SAMPLE_BRANCH_ANY_RETURN */
		snprintf(meta.lbr_status, sizeof(meta.lbr_status), "%s", lbr_status ? lbr_status : "");
		if (!lbr_status)
			meta.features |= RSF_FEAT_BRANCH_SNAPSHOT | RSF_FEAT_LBR;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return rb_open(path, &meta, real ? real_ks : ks, real ? nreal_ks : NFAKE, NULL, 0,
		       fn, NTRACED);
}

static void close_rec(struct rsf_writer *w, uint64_t sessions)
{
	struct rsf_stats st;

	memset(&st, 0, sizeof(st));
	st.bpf.sessions_emitted = sessions;
	st.chunks_written = 1;
	st.funcs_attached = NTRACED;
	rb_close(w, &st);
}

/* ------------------------------------------------------------- records */
static uint64_t now_ts = 1000000000ULL;

static void start(struct rsf_writer *w, uint64_t sess)
{
	rb_start(w, sess, (uint32_t)sess, (uint32_t)sess, "simfail", "simfail", now_ts);
}

static void tr(struct rsf_writer *w, uint64_t sess, int exit_rec, uint32_t seq, uint32_t f,
	       unsigned depth, int64_t res, uint64_t lat)
{
	rb_trace(w, sess, exit_rec, now_ts += 100, seq, f, depth, res, lat);
}
#define IN(seq, f, d)            tr(w, sess, 0, seq, f, d, 0, 0)
#define OUT(seq, f, d, res, lat) tr(w, sess, 1, seq, f, d, res, lat)

#define lbr rb_lbr
#define E rb_e

static void end_begin(uint64_t sess, uint32_t flags, uint32_t last_seq, uint32_t dropped)
{
	rb_begin(sess, (uint32_t)sess, (uint32_t)sess, "simfail", "simfail", 1000000000ULL,
		 now_ts += 1000, flags);
	E.last_seq_id = last_seq;
	E.dropped_records = dropped;
}

#define frame rb_frame
#define kframe rb_kframe
#define end_emit rb_emit

/* the error chain of sessions 101/301: bpf() -> map_create -> -ENOMEM */
static void err_chain_trace(struct rsf_writer *w, uint64_t sess)
{
	IN(0, F_SYSBPF, 1);
	IN(1, F_SYS, 2);
	IN(2, F_CAP, 3);
	OUT(3, F_CAP, 3, 1, 812);
	IN(4, F_SEC, 3);
	OUT(5, F_SEC, 3, 0, 1234);
	IN(6, F_MAPC, 3);
	IN(7, F_AMA, 4);
	IN(8, F_AREA, 5);
	OUT(9, F_AREA, 5, 0, 41270);
	OUT(10, F_AMA, 4, ERR(12), 52001);
	IN(11, F_KFREE, 4);
	OUT(12, F_KFREE, 4, 0, 310);
	OUT(13, F_MAPC, 3, ERR32(12), 60500);
	OUT(14, F_SYS, 2, ERR32(12), 71932);
	OUT(15, F_SYSBPF, 1, ERR(12), 74506);
}

static void err_chain_end(uint32_t last_seq, uint32_t dropped)
{
	end_begin(E.sess_id, RS_SESS_IS_ERR, last_seq, dropped);
	frame(F_SYSBPF, ERR(12), 74506);
	frame(F_SYS, ERR32(12), 71932);
	frame(F_MAPC, ERR32(12), 60500);
	frame(F_AMA, ERR(12), 52001);
}

/* views-trace.rsrec: -T recording (with stacks) */
static void mk_trace(const char *dir)
{
	struct rsf_writer *w = open_rec(dir, "views-trace.rsrec", RSF_MODE_STACKS | RSF_MODE_TRACE,
					NULL, false);
	uint64_t sess;

	/* 101: nested calls, leaves of every result kind */
	sess = 101;
	start(w, sess);
	err_chain_trace(w, sess);
	E.sess_id = sess;
	err_chain_end(15, 0);
	end_emit(w);

	/* 999: trace records of a session whose START was lost */
	tr(w, 999, 0, 0, F_SYSBPF, 1, 0, 0);
	tr(w, 999, 1, 1, F_SYSBPF, 1, ERR(1), 500);

	/* 102: records lost in the middle (3), inside a would-be leaf (1)
	 * and at the end (2) */
	sess = 102;
	start(w, sess);
	IN(0, F_SYSBPF, 1);
	IN(1, F_SYS, 2);
	/* 2, 3, 4 lost */
	OUT(5, F_SEC, 3, ERR32(1), 2000);
	IN(6, F_MAPC, 3);
	/* 7 lost */
	OUT(8, F_MAPC, 3, ERR32(22), 9000);
	OUT(9, F_SYS, 2, ERR32(22), 12000);
	/* 10, 11 lost */
	end_begin(sess, RS_SESS_IS_ERR, 11, 6);
	frame(F_SYSBPF, ERR(22), 15000);
	frame(F_SYS, ERR32(22), 12000);
	end_emit(w);

	/* 103: an interim snapshot at seq 4 (only records <= 4 printed), then
	 * the final one */
	sess = 103;
	start(w, sess);
	IN(0, F_SYSBPF, 1);
	IN(1, F_SYS, 2);
	IN(2, F_CAP, 3);
	OUT(3, F_CAP, 3, 0, 700);
	IN(4, F_MAPC, 3);
	IN(5, F_AMA, 4);
	end_begin(sess, RS_SESS_INTERIM, 4, 0);
	E.depth = 3;
	frame(F_SYSBPF, 0, 1000000000ULL);
	frame(F_SYS, 0, 1000000100ULL);
	frame(F_MAPC, 0, 1000000400ULL);
	end_emit(w);
	OUT(6, F_AMA, 4, ERR(12), 3000);
	OUT(7, F_MAPC, 3, ERR32(12), 4000);
	OUT(8, F_SYS, 2, ERR32(12), 5000);
	OUT(9, F_SYSBPF, 1, ERR(12), 6000);
	end_begin(sess, RS_SESS_IS_ERR, 9, 0);
	frame(F_SYSBPF, ERR(12), 6000);
	frame(F_SYS, ERR32(12), 5000);
	frame(F_MAPC, ERR32(12), 4000);
	frame(F_AMA, ERR(12), 3000);
	end_emit(w);

	/* 104: filtered on the BPF side: its trace must not show */
	sess = 104;
	start(w, sess);
	IN(0, F_SYSBPF, 1);
	OUT(1, F_SYSBPF, 1, 0, 100);
	end_begin(sess, RS_SESS_IGNORED, 1, 0);
	end_emit(w);

	/* 105: 24-deep recursion: the indentation stops growing at 20 levels */
	sess = 105;
	start(w, sess);
	for (unsigned d = 1; d <= 24; d++)
		IN(d - 1, F_REC, d);
	for (unsigned d = 24; d >= 1; d--)
		OUT(24 + (24 - d), F_REC, d, ERR32(95), 1000ULL * d + 7);
	end_begin(sess, RS_SESS_IS_ERR, 47, 0);
	for (unsigned d = 1; d <= 24; d++)
		frame(F_REC, ERR32(95), 1000ULL * d + 7);
	end_emit(w);
	close_rec(w, 5);

	/* recorded with -T alone (no stack mode): the default is the trace */
	w = open_rec(dir, "views-traceonly.rsrec", RSF_MODE_TRACE, NULL, false);
	sess = 106;
	start(w, sess);
	IN(0, F_SYSBPF, 1);
	IN(1, F_SYS, 2);
	OUT(2, F_SYS, 2, 5, 3300);
	OUT(3, F_SYSBPF, 1, 5, 4100);
	end_begin(sess, 0, 3, 0);
	frame(F_SYSBPF, 5, 4100);
	end_emit(w);
	close_rec(w, 1);
}

/* views-lbr.rsrec: -B recording with fake symbols */
static void mk_lbr(const char *dir)
{
	struct rsf_writer *w = open_rec(dir, "views-lbr.rsrec", RSF_MODE_STACKS | RSF_MODE_LBR,
					NULL, false);
	/* most recent first; the first one touching array_map_alloc is #3 */
	const uint64_t relevant[][2] = {
		{ FA("kretprobe_rethook_handler", 0x20), FA("last_fn", 0) },
		{ FA("arch_rethook_trampoline", 0x27), FA("kretprobe_rethook_handler", 0) },
		{ FA("__x86_return_thunk", 0), FA("arch_rethook_trampoline", 0) },
		{ FA("array_map_alloc", 0xe0), FA("__x86_return_thunk", 0) },
		{ FA("__x86_return_thunk", 0), FA("array_map_alloc", 0x98) },
		{ FA("bpf_map_area_alloc", 0x40), FA("__x86_return_thunk", 0) },
		{ FA("array_map_alloc", 0x93), FA("bpf_map_area_alloc", 0) },
		{ FA("map_create", 0x44a), FA("array_map_alloc", 0) },
		{ FA("__sys_bpf", 0x187), FA("map_create", 0) },
	};
	const uint64_t unrelated[][2] = {
		{ FA("kfree", 0x10), FA("capable", 0x4) },
		{ 0xffffffffa0001234ULL, FA("kfree", 0) },
		{ FA("security_bpf", 0x33), 0xffffffffa0001200ULL },
	};
	uint64_t sess;

	sess = 201;
	lbr(w, sess, relevant, 9, 0);
	err_chain_end(0, 0);
	E.sess_id = E.tid = E.pid = 201;
	end_emit(w);

	sess = 202;   /* nothing from array_map_alloc: unfiltered + notice */
	lbr(w, sess, unrelated, 3, 0);
	err_chain_end(0, 0);
	E.sess_id = E.tid = E.pid = 202;
	end_emit(w);

	sess = 203;   /* bpf_get_branch_snapshot() failed */
	lbr(w, sess, NULL, 0, -2);
	err_chain_end(0, 0);
	E.sess_id = E.tid = E.pid = 203;
	end_emit(w);

	sess = 204;   /* the LBR record was dropped */
	err_chain_end(0, 0);
	E.sess_id = E.tid = E.pid = 204;
	end_emit(w);

	sess = 205;   /* an LBR of an ignored session is freed, not shown */
	lbr(w, sess, relevant, 9, 0);
	end_begin(sess, RS_SESS_IGNORED, 0, 0);
	end_emit(w);
	close_rec(w, 4);

	/* LBR requested but unavailable: only the stack view remains */
	w = open_rec(dir, "views-lbr-unavail.rsrec", RSF_MODE_STACKS | RSF_MODE_LBR,
		     "no LBR support: the CPU has no branch-stack PMU (virtual machine?)", false);
	err_chain_end(0, 0);
	E.sess_id = E.tid = E.pid = 206;
	end_emit(w);
	close_rec(w, 1);
}

/* views-all.rsrec: -T -B -E: all three views */
static void mk_all(const char *dir)
{
	struct rsf_writer *w = open_rec(dir, "views-all.rsrec",
					RSF_MODE_STACKS | RSF_MODE_TRACE | RSF_MODE_LBR, NULL, false);
	const uint64_t pairs[][2] = {
		{ FA("__x86_return_thunk", 0), FA("arch_rethook_trampoline", 0) },
		{ FA("array_map_alloc", 0xe0), FA("__x86_return_thunk", 0) },
		{ FA("array_map_alloc", 0x93), FA("bpf_map_area_alloc", 0) },
	};
	uint64_t sess = 301;

	start(w, sess);
	err_chain_trace(w, sess);
	lbr(w, sess, pairs, 3, 0);
	E.sess_id = sess;
	err_chain_end(15, 0);
	E.sess_id = E.tid = E.pid = 301;
	kframe(FA("map_create", 0x44f));
	kframe(FA("__sys_bpf", 0x18c));
	kframe(FA("__x64_sys_bpf", 0x1e));
	kframe(FA("do_syscall_64", 0x87));
	end_emit(w);
	close_rec(w, 1);
}

/* views-real.rsrec: real addresses of the Debian 6.12 -dbg vmlinux */
static int load_sysmap(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[512];
	size_t cap = 0;

	if (!f) {
		perror(path);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a;
		char type, name[400];

		if (sscanf(line, "%llx %c %399s", &a, &type, name) != 3)
			continue;
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		if (nreal_ks == cap) {
			cap = cap ? cap * 2 : 65536;
			real_ks = realloc(real_ks, cap * sizeof(*real_ks));
			if (!real_ks)
				exit(1);
		}
		real_ks[nreal_ks++] = (struct rsf_ksym){ a, type, strdup(name), NULL };
	}
	fclose(f);
	return nreal_ks ? 0 : -1;
}

static void mk_real(const char *dir, const char *sysmap)
{
	struct rsf_writer *w;
	/* branches seen on the way out of array_map_alloc() failing with
	 * -ENOMEM under a kretprobe (objdump -d of the 6.12.117 -dbg vmlinux),
	 * most recent first */
	uint64_t pairs[][2] = {
		{ 0xffffffff81090f86ULL, 0xffffffff81279300ULL }, /* arch_rethook_trampoline_callback -> rethook_trampoline_handler (call) */
		{ 0xffffffff81090ea7ULL, 0xffffffff81090f50ULL }, /* arch_rethook_trampoline -> arch_rethook_trampoline_callback (call) */
		{ 0xffffffff81ca3c70ULL, 0xffffffff81090e80ULL }, /* __x86_return_thunk ret -> arch_rethook_trampoline */
		{ 0xffffffff812c9fb0ULL, 0xffffffff81ca3c70ULL }, /* array_map_alloc: jmp __x86_return_thunk */
		{ 0xffffffff81ca3c70ULL, 0xffffffff812c9f68ULL }, /* ret -> array_map_alloc after bpf_map_area_alloc() */
		{ 0xffffffff812865a1ULL, 0xffffffff81ca3c70ULL }, /* __bpf_map_area_alloc: jmp __x86_return_thunk */
		{ 0xffffffff81ca3c70ULL, 0xffffffff81286599ULL }, /* ret -> __bpf_map_area_alloc after __vmalloc_node_range_noprof() */
		{ 0xffffffff81286594ULL, 0xffffffff813a90c0ULL }, /* __bpf_map_area_alloc: call __vmalloc_node_range_noprof */
		{ 0xffffffff81289e6bULL, 0xffffffff81286510ULL }, /* bpf_map_area_alloc: jmp __bpf_map_area_alloc */
		{ 0xffffffff812c9f63ULL, 0xffffffff81289e60ULL }, /* array_map_alloc: call bpf_map_area_alloc */
		{ 0xffffffff81ca3c70ULL, 0xffffffff812c9effULL }, /* ret -> array_map_alloc after bpf_jit_bypass_spec_v1() */
		{ 0xffffffff8128591bULL, 0xffffffff81ca3c70ULL }, /* bpf_jit_bypass_spec_v1: jmp __x86_return_thunk */
		{ 0xffffffff812c9efaULL, 0xffffffff81285910ULL }, /* array_map_alloc: call bpf_jit_bypass_spec_v1 */
		{ 0xffffffff8128b2e9ULL, 0xffffffff81ca3160ULL }, /* map_create: call __x86_indirect_thunk_r10 */
	};
	const uint64_t none[][2] = {
		{ 0xffffffff81090f86ULL, 0xffffffff81279300ULL },
		{ 0xffffffff81090ea7ULL, 0xffffffff81090f50ULL },
	};
	uint64_t sess = 401;

	if (load_sysmap(sysmap))
		exit(1);
	w = open_rec(dir, "views-real.rsrec", RSF_MODE_STACKS | RSF_MODE_LBR, NULL, true);
	lbr(w, sess, pairs, (int)(sizeof(pairs) / sizeof(pairs[0])), 0);
	err_chain_end(0, 0);
	E.sess_id = E.tid = E.pid = (uint32_t)sess;
	kframe(0xffffffff8128b2efULL);   /* map_create, after the ops->map_alloc() call */
	kframe(0xffffffff8128ff2cULL);   /* __sys_bpf, after call map_create */
	kframe(0xffffffff8129074eULL);   /* __x64_sys_bpf, after call __sys_bpf */
	kframe(0xffffffff81c8f027ULL);   /* do_syscall_64, after call x64_sys_call */
	kframe(0xffffffff81e0012fULL);   /* entry_SYSCALL_64_after_hwframe, after call do_syscall_64 */
	end_emit(w);

	sess = 402;   /* only the kretprobe machinery was captured */
	lbr(w, sess, none, 2, 0);
	err_chain_end(0, 0);
	E.sess_id = E.tid = E.pid = (uint32_t)sess;
	end_emit(w);
	close_rec(w, 2);
}

int main(int argc, char **argv)
{
	rb_prog = "mkrec_views";
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: mkrec_views OUTDIR [SYSTEM_MAP]\n");
		return 2;
	}
	mk_trace(argv[1]);
	mk_lbr(argv[1]);
	mk_all(argv[1]);
	if (argc == 3)
		mk_real(argv[1], argv[2]);
	return 0;
}
