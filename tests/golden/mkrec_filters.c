/* mkrec_filters.c - writes the synthetic recordings of the report-time
 * filter and analysis-output golden tests (tests/golden/run_filters.sh):
 * `mkrec_filters OUTDIR [NSESS NFUNCS]` creates OUTDIR/filters.rsrec (six
 * sessions of different processes, threads, entry functions, errors,
 * latencies and times, one with -T trace and LBR records) and, with NSESS,
 * OUTDIR/big.rsrec: NSESS sessions over NFUNCS traced functions for the
 * report speed benchmark (bench/report_speed.sh). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "format/rsfile.h"
#include "reclib.h"

#define TEXT_BASE 0xffffffff81000000ULL
#define KVM_BASE  0xffffffffc0a00000ULL
/* wall clock of bpf_ktime_get_ns() == 0: 2023-11-14 22:13:20 UTC */
#define MONO_TO_REAL 1700000000000000000LL
#define SEC 1000000000ULL

static const char *kfuncs[] = {
	"entry_SYSCALL_64_after_hwframe", "do_syscall_64", "__x64_sys_openat", "do_sys_openat2",
	"do_filp_open", "path_openat", "capable", "__x64_sys_bpf", "__sys_bpf", "map_create",
	"array_map_alloc", "__x64_sys_ioctl", "may_open",
};
#define NK (sizeof(kfuncs) / sizeof(kfuncs[0]))

static const struct { const char *name; uint32_t flags; const char *mod; } traced[] = {
	{"__x64_sys_openat", RS_FUNC_IS_ENTRY, NULL},          /* 0 */
	{"do_sys_openat2", 0, NULL},                           /* 1 */
	{"do_filp_open", RS_FUNC_RET_PTR, NULL},               /* 2 */
	{"path_openat", RS_FUNC_RET_PTR, NULL},                /* 3 */
	{"__x64_sys_bpf", RS_FUNC_IS_ENTRY, NULL},             /* 4 */
	{"__sys_bpf", RS_FUNC_NEEDS_SIGN_EXT, NULL},           /* 5 */
	{"map_create", RS_FUNC_NEEDS_SIGN_EXT, NULL},          /* 6 */
	{"array_map_alloc", RS_FUNC_RET_PTR, NULL},            /* 7 */
	{"kvm_vcpu_ioctl", RS_FUNC_IS_ENTRY, "kvm"},           /* 8 */
	{"kvm_arch_vcpu_ioctl", 0, "kvm"},                     /* 9 */
	{"may_open", RS_FUNC_NEEDS_SIGN_EXT, NULL},            /* 10 */
};
#define NT (sizeof(traced) / sizeof(traced[0]))

static uint64_t kaddr(const char *name)
{
	for (size_t i = 0; i < NK; i++)
		if (!strcmp(kfuncs[i], name))
			return TEXT_BASE + 0x100000 + i * 0x1000;
	if (!strcmp(name, "kvm_vcpu_ioctl"))
		return KVM_BASE + 0x1000;
	if (!strcmp(name, "kvm_arch_vcpu_ioctl"))
		return KVM_BASE + 0x5000;
	fprintf(stderr, "mkrec_filters: no symbol %s\n", name);
	exit(1);
}

static uint32_t fid(const char *name)
{
	for (size_t i = 0; i < NT; i++)
		if (!strcmp(traced[i].name, name))
			return (uint32_t)i;
	fprintf(stderr, "mkrec_filters: %s is not traced\n", name);
	exit(1);
}

static struct rsf_writer *open_rec(const char *path, uint32_t mode,
				   const struct rsf_func *extra, size_t nextra, char **bignames)
{
	static struct rsf_ksym ks[NK + 2 + 1024];
	static struct rsf_func fn[NT + 1024];
	struct rsf_module mod = { .name = "kvm", .base = KVM_BASE, .size = 0x100000 };
	struct rsf_meta m;
	size_t nks = 0, nfn = 0;
	struct rsf_writer *w;

	(void)bignames;
	for (size_t i = 0; i < NK; i++)
		ks[nks++] = (struct rsf_ksym){ kaddr(kfuncs[i]), 'T', kfuncs[i], NULL };
	ks[nks++] = (struct rsf_ksym){ KVM_BASE + 0x1000, 't', "kvm_vcpu_ioctl", "kvm" };
	ks[nks++] = (struct rsf_ksym){ KVM_BASE + 0x5000, 't', "kvm_arch_vcpu_ioctl", "kvm" };
	for (size_t i = 0; i < NT; i++)
		fn[nfn++] = (struct rsf_func){ kaddr(traced[i].name), traced[i].flags, traced[i].name,
					       traced[i].mod };
	for (size_t i = 0; i < nextra; i++) {
		fn[nfn++] = extra[i];
		ks[nks++] = (struct rsf_ksym){ extra[i].addr, 't', extra[i].name, NULL };
	}
	rb_meta(&m, "retsnoop-record -e '__x64_sys_*' -a 'do_*' -o \"x y\".rsrec", "6.1.0-28-amd64",
		"#1 SMP PREEMPT_DYNAMIC Debian 6.1.119-1", "filters-host", TEXT_BASE, MONO_TO_REAL,
		"fentry", RSF_FEAT_BTF | RSF_FEAT_FENTRY | RSF_FEAT_RINGBUF | RSF_FEAT_LBR, mode);
	for (int i = 0; i < 20; i++)
		m.build_id[i] = (uint8_t)(0xa0 + i);
	m.build_id_len = 20;
	m.start_realtime_ns = MONO_TO_REAL + 1 * SEC;
	w = rb_open(path, &m, ks, nks, &mod, 1, fn, nfn);
	return w;
}

#define E rb_e

static void begin(uint64_t id, uint32_t tid, uint32_t pid, const char *tc, const char *pc,
		  uint64_t t0, uint64_t lat, uint32_t flags)
{
	rb_begin(id, tid, pid, tc, pc, t0, t0 + lat + 1000, flags);
}

static void kf(const char *name, uint64_t off)
{
	rb_kframe(kaddr(name) + off);
}

#define frame rb_frame
#define add rb_add

static void trace(struct rsf_writer *w, uint32_t type, uint64_t id, uint64_t ts, uint32_t seq,
		  uint32_t f, uint16_t depth, int64_t res, uint64_t lat)
{
	rb_trace(w, id, type == RS_REC_TRACE_EXIT, ts, seq, f, depth, res, lat);
}

static struct rsf_stats stats(uint64_t n)
{
	struct rsf_stats st;

	memset(&st, 0, sizeof(st));
	st.bpf.sessions_emitted = n;
	st.bpf.records_dropped = 2;
	st.bpf.sessions_incomplete = 1;
	st.attach_ns = 87654321;
	st.detach_ns = 1234567;
	st.funcs_attached = NT;
	st.funcs_failed = 1;
	st.end_realtime_ns = MONO_TO_REAL + 10 * SEC;
	st.prog_misses_known = 1;
	return st;
}

static void mk_filters(const char *dir)
{
	char path[4096];
	struct rsf_writer *w;
	struct rsf_stats st = stats(6);

	snprintf(path, sizeof(path), "%s/filters.rsrec", dir);
	w = open_rec(path, RSF_MODE_STACKS | RSF_MODE_TRACE | RSF_MODE_LBR | RSF_MODE_SUCCESS, NULL, 0, NULL);

	/* S1 nginx openat -> path_openat fails -ENOENT, 2 ms, at +2 s */
	begin(101, 101, 100, "nginx", "nginx", 2 * SEC, 2000000, RS_SESS_IS_ERR);
	frame(fid("__x64_sys_openat"), -2, 2000000);
	frame(fid("do_sys_openat2"), -2, 1900000);
	frame(fid("do_filp_open"), -2, 1500000);
	frame(fid("path_openat"), -2, 1000000);
	kf("path_openat", 0x44); kf("do_filp_open", 0x99); kf("do_sys_openat2", 0x1f0);
	kf("__x64_sys_openat", 0x60); kf("do_syscall_64", 0x35); kf("entry_SYSCALL_64_after_hwframe", 0x63);
	add(w, &E, E.hdr.size);

	/* S2 bash bpf -> array_map_alloc NULL -> -ENOMEM, 50 us, at +3 s */
	begin(200, 200, 200, "bash", "bash", 3 * SEC, 50000, RS_SESS_IS_ERR);
	frame(fid("__x64_sys_bpf"), -12, 50000);
	frame(fid("__sys_bpf"), (uint32_t)-12, 48000);
	frame(fid("map_create"), (uint32_t)-12, 40000);
	frame(fid("array_map_alloc"), 0, 30000);
	kf("array_map_alloc", 0x1a3); kf("map_create", 0x2c5); kf("__sys_bpf", 0x38b);
	kf("__x64_sys_bpf", 0x1a); kf("do_syscall_64", 0x35);
	add(w, &E, E.hdr.size);

	/* S3 worker kvm ioctl succeeds, 10 ms, at +4 s */
	begin(301, 301, 300, "worker", "qemu-system-x86", 4 * SEC, 10000000, 0);
	frame(fid("kvm_vcpu_ioctl"), 0, 10000000);
	frame(fid("kvm_arch_vcpu_ioctl"), 0, 9000000);
	kf("kvm_arch_vcpu_ioctl", 0x80); kf("kvm_vcpu_ioctl", 0x2f0); kf("__x64_sys_ioctl", 0x90);
	kf("do_syscall_64", 0x35);
	add(w, &E, E.hdr.size);

	/* S4 "nginx-w\"q" openat -EINVAL, capable() only in the kernel stack, 500 us, at +5 s */
	begin(102, 102, 100, "nginx-w\"q", "nginx", 5 * SEC, 500000, RS_SESS_IS_ERR);
	frame(fid("__x64_sys_openat"), -22, 500000);
	frame(fid("do_sys_openat2"), -22, 450000);
	frame(fid("may_open"), (uint32_t)-22, 1000);
	kf("capable", 0x10); kf("may_open", 0x30); kf("do_sys_openat2", 0x1f0);
	kf("__x64_sys_openat", 0x60); kf("do_syscall_64", 0x35);
	add(w, &E, E.hdr.size);

	/* S5 bash bpf success, 1.5 ms, at +6 s */
	begin(200, 200, 200, "bash", "bash", 6 * SEC, 1500000, 0);
	frame(fid("__x64_sys_bpf"), 3, 1500000);
	frame(fid("__sys_bpf"), 3, 1400000);
	kf("__sys_bpf", 0x100); kf("__x64_sys_bpf", 0x1a); kf("do_syscall_64", 0x35);
	add(w, &E, E.hdr.size);

	/* S6 tracer: -T records and LBR; openat -> do_filp_open fails -EACCES, at +7 s */
	rb_start(w, 401, 401, 400, "tracer", "tracer", 7 * SEC);
	/* seq_id numbers records, as the recorder does */
	trace(w, RS_REC_TRACE_ENTRY, 401, 7 * SEC + 100, 0, fid("__x64_sys_openat"), 1, 0, 0);
	trace(w, RS_REC_TRACE_ENTRY, 401, 7 * SEC + 1100, 1, fid("do_sys_openat2"), 2, 0, 0);
	trace(w, RS_REC_TRACE_ENTRY, 401, 7 * SEC + 2100, 2, fid("may_open"), 3, 0, 0);
	trace(w, RS_REC_TRACE_EXIT, 401, 7 * SEC + 3100, 3, fid("may_open"), 3, 0, 1000);
	trace(w, RS_REC_TRACE_ENTRY, 401, 7 * SEC + 4100, 4, fid("do_filp_open"), 3, 0, 0);
	trace(w, RS_REC_TRACE_EXIT, 401, 7 * SEC + 9100, 5, fid("do_filp_open"), 3, -13, 5000);
	trace(w, RS_REC_TRACE_EXIT, 401, 7 * SEC + 10100, 6, fid("do_sys_openat2"), 2, -13, 9000);
	trace(w, RS_REC_TRACE_EXIT, 401, 7 * SEC + 11100, 7, fid("__x64_sys_openat"), 1, -13, 11000);
	{
		const uint64_t pairs[2][2] = {
			{ kaddr("do_filp_open") + 0x20, kaddr("path_openat") },
			{ kaddr("path_openat") + 0x50, kaddr("do_filp_open") + 0x25 },
		};

		rb_lbr(w, 401, pairs, 2, 0);
	}
	begin(401, 401, 400, "tracer", "tracer", 7 * SEC, 11000, RS_SESS_IS_ERR);
	E.last_seq_id = 7;
	frame(fid("__x64_sys_openat"), -13, 11000);
	frame(fid("do_sys_openat2"), -13, 9000);
	frame(fid("do_filp_open"), -13, 5000);
	kf("do_filp_open", 0x99); kf("do_sys_openat2", 0x1f0); kf("__x64_sys_openat", 0x60);
	add(w, &E, E.hdr.size);

	rb_close(w, &st);
}

/* NSESS sessions over NFUNCS functions: entry functions 0..15, depth 2..12,
 * mixed errors and successes, 64 threads */
static void mk_big(const char *dir, unsigned long nsess, unsigned long nfuncs)
{
	static struct rsf_func extra[1024];
	static char names[1024][32];
	char path[4096];
	struct rsf_writer *w;
	struct rsf_stats st = stats(nsess);
	uint64_t rnd = 88172645463325252ULL, t = 2 * SEC;

	if (nfuncs > 1024)
		nfuncs = 1024;
	if (nfuncs < 32)
		nfuncs = 32;
	for (unsigned long i = 0; i < nfuncs; i++) {
		snprintf(names[i], sizeof(names[i]), "bench_func_%lu", i);
		extra[i] = (struct rsf_func){ TEXT_BASE + 0x800000 + i * 0x800,
					      (i < 16 ? RS_FUNC_IS_ENTRY : 0) |
					      (i % 5 == 3 ? RS_FUNC_RET_PTR : RS_FUNC_NEEDS_SIGN_EXT),
					      names[i], NULL };
	}
	snprintf(path, sizeof(path), "%s/big.rsrec", dir);
	w = open_rec(path, RSF_MODE_STACKS | RSF_MODE_SUCCESS, extra, nfuncs, NULL);
	for (unsigned long s = 0; s < nsess; s++) {
		int depth;
		uint64_t lat;
		bool err;
		uint32_t tid = 1000 + (uint32_t)(s % 64);

		rnd ^= rnd << 13; rnd ^= rnd >> 7; rnd ^= rnd << 17;
		depth = 2 + (int)(rnd % 11);
		lat = 1000 + (rnd >> 20) % 600000;   /* < 64 threads x 10 us: no overlap per thread */
		err = (rnd >> 8) % 3 != 0;
		t += 10000 + (rnd >> 40) % 50000;
		begin(tid, tid, 900 + tid % 8, "benchthread", "benchproc", t, lat, err ? RS_SESS_IS_ERR : 0);
		for (int d = 0; d < depth; d++) {
			uint32_t f = d == 0 ? (uint32_t)((rnd >> 3) % 16)
					    : (uint32_t)(16 + (rnd >> (d * 3 % 50)) % (nfuncs - 16));
			int64_t res = err ? (f % 5 == 3 ? 0 : (int64_t)(uint32_t)-(int)(1 + (rnd >> 30) % 40)) : 0;

			frame((uint32_t)NT + f, res, lat - (uint64_t)d * lat / 16);
			rb_kframe(extra[f].addr + 0x10 + d);
		}
		for (int k = 0; k < 4; k++)
			kf(k % 2 ? "do_syscall_64" : "entry_SYSCALL_64_after_hwframe", 0x35);
		add(w, &E, E.hdr.size);
	}
	rb_close(w, &st);
}

int main(int argc, char **argv)
{
	rb_prog = "mkrec_filters";
	if (argc != 2 && argc != 4) {
		fprintf(stderr, "usage: mkrec_filters OUTDIR [NSESS NFUNCS]\n");
		return 2;
	}
	if (argc == 4)
		mk_big(argv[1], strtoul(argv[2], NULL, 10), strtoul(argv[3], NULL, 10));
	else
		mk_filters(argv[1]);
	return 0;
}
