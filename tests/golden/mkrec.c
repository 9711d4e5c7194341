/* mkrec.c - writes the synthetic recordings the golden tests render:
 * `mkrec OUTDIR` creates one .rsrec file per scenario through the format
 * library (rsf_writer_*), with a fake but self-consistent kallsyms
 * snapshot, module table, traced-function table and session records. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "format/rsfile.h"
#include "reclib.h"

#define TEXT_BASE 0xffffffff81000000ULL
#define KVM_BASE  0xffffffffc0a00000ULL
#define BPF_BASE  0xffffffffc0200000ULL
#define SLIDE     0x2e400000ULL          /* the KASLR scenario's extra shift */
/* wall clock of bpf_ktime_get_ns() == 0: 2023-11-14 22:13:20 UTC */
#define MONO_TO_REAL 1700000000000000000LL

struct sym_def {
	const char *name;
	uint64_t addr;
	char type;
	const char *module;
};

static const char *vmlinux_funcs[] = {
	"_stext", "entry_SYSCALL_64_after_hwframe", "do_syscall_64", "__x64_sys_bpf",
	"__sys_bpf", "map_create", "find_and_alloc_map", "array_map_alloc",
	"bpf_map_alloc_percpu", "__alloc_percpu_gfp", "pcpu_alloc", "bpf_prog_load",
	"bpf_check", "do_check_common", "check_mem_reg", "check_stack_range_initialized",
	"check_stack_access_within_bounds", "do_sys_openat2", "do_filp_open", "path_openat",
	"capable", "kfree", "ktime_get", "do_idle", "schedule_idle", "__schedule",
	"pick_next_task_fair", "__x64_sys_openat", "__x64_sys_ioctl", "do_signal_stop",
};
#define NVMLINUX (sizeof(vmlinux_funcs) / sizeof(vmlinux_funcs[0]))

static struct sym_def syms[64];
static size_t nsyms;
static uint64_t slide;   /* added to every runtime address */
static uint64_t max_size; /* a flight recording when set */

static void build_syms(void)
{
	nsyms = 0;
	for (size_t i = 0; i < NVMLINUX; i++)
		syms[nsyms++] = (struct sym_def){ vmlinux_funcs[i], TEXT_BASE + 0x100000 + i * 0x1000,
						  i % 3 ? 't' : 'T', NULL };
	syms[nsyms++] = (struct sym_def){ "kvm_vcpu_ioctl", KVM_BASE + 0x1230, 't', "kvm" };
	syms[nsyms++] = (struct sym_def){ "kvm_arch_vcpu_ioctl", KVM_BASE + 0x5670, 'T', "kvm" };
	syms[nsyms++] = (struct sym_def){ "bpf_trampoline_6442464085", BPF_BASE + 0x0, 't', "bpf" };
	syms[nsyms++] = (struct sym_def){ "bpf_trampoline_6442464086", BPF_BASE + 0x1000, 't', "bpf" };
	syms[nsyms++] = (struct sym_def){ "bpf_trampoline_6442464087", BPF_BASE + 0x2000, 't', "bpf" };
	syms[nsyms++] = (struct sym_def){ "bpf_prog_6deef7357e7b4530_fexit_prog", BPF_BASE + 0x3000, 't', "bpf" };
}

static uint64_t A(const char *name, uint64_t off)
{
	for (size_t i = 0; i < nsyms; i++)
		if (strcmp(syms[i].name, name) == 0)
			return syms[i].addr + slide + off;
	fprintf(stderr, "mkrec: no symbol %s\n", name);
	exit(1);
}

/* the traced functions (id = index) and their flags */
static const struct { const char *name; uint32_t flags; } traced[] = {
	{"__x64_sys_bpf", RS_FUNC_IS_ENTRY},                   /* 0: long */
	{"__sys_bpf", RS_FUNC_NEEDS_SIGN_EXT},                 /* 1: int */
	{"map_create", RS_FUNC_NEEDS_SIGN_EXT},                /* 2 */
	{"array_map_alloc", RS_FUNC_RET_PTR},                  /* 3 */
	{"bpf_map_alloc_percpu", RS_FUNC_RET_PTR},             /* 4 */
	{"bpf_prog_load", RS_FUNC_NEEDS_SIGN_EXT},             /* 5 */
	{"bpf_check", RS_FUNC_NEEDS_SIGN_EXT},                 /* 6 */
	{"do_check_common", RS_FUNC_NEEDS_SIGN_EXT},           /* 7 */
	{"check_stack_range_initialized", RS_FUNC_NEEDS_SIGN_EXT}, /* 8 */
	{"check_stack_access_within_bounds", RS_FUNC_NEEDS_SIGN_EXT}, /* 9 */
	{"__x64_sys_openat", RS_FUNC_IS_ENTRY},                /* 10 */
	{"do_sys_openat2", 0},                                 /* 11: long */
	{"do_filp_open", RS_FUNC_RET_PTR},                     /* 12 */
	{"path_openat", RS_FUNC_RET_PTR},                      /* 13 */
	{"capable", RS_FUNC_CANT_FAIL | RS_FUNC_RET_BOOL},     /* 14 */
	{"kfree", RS_FUNC_CANT_FAIL | RS_FUNC_RET_VOID},       /* 15 */
	{"ktime_get", RS_FUNC_CANT_FAIL},                      /* 16: u64 */
	{"schedule_idle", RS_FUNC_IS_ENTRY | RS_FUNC_CANT_FAIL | RS_FUNC_RET_VOID}, /* 17 */
	{"__schedule", RS_FUNC_CANT_FAIL | RS_FUNC_RET_VOID},  /* 18 */
	{"pick_next_task_fair", RS_FUNC_RET_PTR},              /* 19 */
	{"kvm_vcpu_ioctl", RS_FUNC_IS_ENTRY},                  /* 20 */
	{"kvm_arch_vcpu_ioctl", 0},                            /* 21 */
	{"do_signal_stop", RS_FUNC_CANT_FAIL | RS_FUNC_RET_BOOL}, /* 22 */
};
#define NTRACED (sizeof(traced) / sizeof(traced[0]))

static int fid(const char *name)
{
	for (size_t i = 0; i < NTRACED; i++)
		if (strcmp(traced[i].name, name) == 0)
			return (int)i;
	fprintf(stderr, "mkrec: %s is not traced\n", name);
	exit(1);
}

static struct rsf_writer *open_rec(const char *dir, const char *name)
{
	struct rsf_ksym ks[64];
	struct rsf_func fn[NTRACED];
	struct rsf_module mods[2];
	struct rsf_meta meta;
	char path[4096];

	build_syms();
	for (size_t i = 0; i < nsyms; i++)
		ks[i] = (struct rsf_ksym){ syms[i].addr + slide, syms[i].type, syms[i].name, syms[i].module };
	for (size_t i = 0; i < NTRACED; i++) {
		size_t j;

		for (j = 0; j < nsyms && strcmp(syms[j].name, traced[i].name); j++)
			;
		fn[i] = (struct rsf_func){ syms[j].addr + slide, traced[i].flags, traced[i].name, syms[j].module };
	}
	mods[0] = (struct rsf_module){ .name = "kvm", .base = KVM_BASE + slide, .size = 0x100000 };
	mods[1] = (struct rsf_module){ .name = "kvm_intel", .base = KVM_BASE + 0x200000 + slide, .size = 0x60000 };

	rb_meta(&meta, "", "6.12.9-cloud-amd64", "#1 SMP PREEMPT_DYNAMIC Debian 6.12.9-1", "golden",
		TEXT_BASE + slide, MONO_TO_REAL, "kprobe-multi",
		RSF_FEAT_BTF | RSF_FEAT_KPROBES | RSF_FEAT_KPROBE_MULTI | RSF_FEAT_RINGBUF, RSF_MODE_STACKS);
	snprintf(meta.cmdline, sizeof(meta.cmdline), "retsnoop-record -c bpf -o %s", name);
	meta.start_realtime_ns = (uint64_t)MONO_TO_REAL + 5000000000ULL;
	meta.max_size = max_size;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return rb_open(path, &meta, ks, nsyms, mods, 2, fn, NTRACED);
}

#define close_rec rb_close

static struct rsf_stats clean_stats(uint64_t sessions)
{
	struct rsf_stats st;

	memset(&st, 0, sizeof(st));
	st.bpf.sessions_emitted = sessions;
	st.records_written = sessions;
	st.chunks_written = 1;
	st.attach_ns = 123000000;
	st.detach_ns = 45000000;
	st.funcs_attached = NTRACED;
	return st;
}

/* the session record under construction */
#define E rb_e
#define sess_begin rb_begin
#define kframe rb_kframe
#define emit rb_emit

static void frame(const char *name, int64_t res, uint64_t lat_ns)
{
	rb_frame((uint32_t)fid(name), res, lat_ns);
}


/* kprobe mode: bpf_map_create with a huge percpu value -> NULL -> -ENOMEM;
 * the deepest function already returned when the stack was captured */
static void sess_map_create_enomem(struct rsf_writer *w, uint64_t t0, uint32_t tid)
{
	sess_begin(tid, tid, tid, "simfail", "simfail", t0, t0 + 75123, RS_SESS_IS_ERR);
	frame("__x64_sys_bpf", ERR(12), 73456);
	frame("__sys_bpf", ERR32(12), 70999);
	frame("map_create", ERR32(12), 61000);
	frame("array_map_alloc", ERR(12), 50400);
	frame("bpf_map_alloc_percpu", 0, 2100);
	kframe(A("array_map_alloc", 0x1a3));
	kframe(A("find_and_alloc_map", 0x5e));
	kframe(A("map_create", 0x2c5));
	kframe(A("__sys_bpf", 0x38b));
	kframe(A("__x64_sys_bpf", 0x1a));
	kframe(A("do_syscall_64", 0x35));
	kframe(A("entry_SYSCALL_64_after_hwframe", 0x63));
	emit(w);
}

static void scen_kprobe(const char *dir)
{
	struct rsf_writer *w = open_rec(dir, "kprobe_err.rsrec");
	struct rsf_stats st = clean_stats(1);

	sess_map_create_enomem(w, 5000000000ULL + 372607000ULL, 8346);
	close_rec(w, &st);
}

static void scen_kaslr(const char *dir)
{
	struct rsf_writer *w;
	struct rsf_stats st = clean_stats(1);

	slide = SLIDE;
	w = open_rec(dir, "kaslr.rsrec");
	sess_map_create_enomem(w, 5000000000ULL + 372607000ULL, 8346);
	close_rec(w, &st);
	slide = 0;
}

/* fentry/fexit mode: every traced function runs under its trampoline */
static void scen_fexit(const char *dir)
{
	struct rsf_writer *w = open_rec(dir, "fexit.rsrec");
	struct rsf_stats st = clean_stats(1);
	uint64_t t0 = 5000000000ULL + 1234567000ULL;

	sess_begin(9001, 9001, 9000, "simfail", "simfail", t0, t0 + 95000, RS_SESS_IS_ERR);
	frame("__x64_sys_bpf", ERR(22), 94300);
	frame("__sys_bpf", ERR32(22), 93950);
	frame("bpf_prog_load", ERR32(22), 93100);
	frame("bpf_check", ERR32(22), 77800);
	frame("do_check_common", ERR32(22), 43999);
	kframe(A("bpf_prog_6deef7357e7b4530_fexit_prog", 0x4f));
	kframe(A("bpf_trampoline_6442464087", 0x6a));
	kframe(A("do_check_common", 0x5));
	kframe(A("bpf_check", 0x894));
	kframe(A("bpf_trampoline_6442464086", 0x57));
	kframe(A("bpf_check", 0x5));
	kframe(A("bpf_prog_load", 0x59a));
	kframe(BPF_BASE - 0x100000 + 0x57);     /* a trampoline missing from the snapshot */
	kframe(A("bpf_prog_load", 0x5));
	kframe(A("__sys_bpf", 0x33d));
	kframe(A("bpf_trampoline_6442464085", 0x57));
	kframe(A("__sys_bpf", 0x5));
	kframe(A("__x64_sys_bpf", 0x1a));
	kframe(A("bpf_trampoline_6442464085", 0x9d));
	kframe(A("__x64_sys_bpf", 0x5));
	kframe(A("do_syscall_64", 0x35));
	kframe(A("entry_SYSCALL_64_after_hwframe", 0x63));
	emit(w);
	close_rec(w, &st);
}

/* success stacks (-S) and odd results: NULL, pointers, bool, void,
 * decimal, hex, unknown errno, kernel-internal errno, module functions */
static void scen_results(const char *dir)
{
	struct rsf_writer *w = open_rec(dir, "results.rsrec");
	struct rsf_stats st = clean_stats(4);
	uint64_t t0 = 5000000000ULL + 2000000000ULL;

	sess_begin(700, 700, 699, "cat", "bash", t0, t0 + 48000, 0);
	frame("__x64_sys_openat", 3, 47999);
	frame("do_sys_openat2", 3, 45000);
	frame("do_filp_open", (int64_t)0xffff888103a4c000ULL, 30000);
	frame("path_openat", (int64_t)0xffff888103a4c000ULL, 28000);
	frame("capable", 0x7fffff01, 900);          /* junk above the low byte: true */
	kframe(A("path_openat", 0x1c4));
	kframe(A("do_filp_open", 0xa7));
	kframe(A("do_sys_openat2", 0x9b));
	kframe(A("__x64_sys_openat", 0x5d));
	kframe(A("do_syscall_64", 0x35));
	kframe(A("entry_SYSCALL_64_after_hwframe", 0x63));
	emit(w);

	sess_begin(701, 701, 699, "cat", "bash", t0 + 100000, t0 + 160000, 0);
	frame("__x64_sys_openat", 1048576, 59000);  /* first value printed in hex */
	frame("do_sys_openat2", -1073741824LL, 50000);
	frame("ktime_get", (int64_t)0x1234567890ULL, 1000);
	kframe(A("do_sys_openat2", 0x10));
	kframe(A("__x64_sys_openat", 0x5d));
	emit(w);

	sess_begin(702, 702, 702, "qemu-kvm", "qemu-kvm", t0 + 200000, t0 + 290000, RS_SESS_IS_ERR);
	frame("kvm_vcpu_ioctl", ERR(512), 88000);   /* -ERESTARTSYS */
	frame("kvm_arch_vcpu_ioctl", ERR(4000), 70000);
	frame("kfree", 0x12345, 1500);              /* void: register junk ignored */
	frame("do_signal_stop", 0, 700);
	kframe(A("kvm_arch_vcpu_ioctl", 0x3b1));
	kframe(A("kvm_vcpu_ioctl", 0x2f0));
	kframe(A("__x64_sys_ioctl", 0x94));
	kframe(A("do_syscall_64", 0x35));
	kframe(A("entry_SYSCALL_64_after_hwframe", 0x63));
	emit(w);

	sess_begin(703, 703, 703, "ld", "ld", t0 + 300000, t0 + 301000, RS_SESS_IS_ERR);
	frame("__x64_sys_bpf", (int64_t)-1073741825LL, 999);   /* below the decimal range */
	frame("__sys_bpf", ERR32(1), 400);
	frame("array_map_alloc", 0, 3);
	kframe(A("__sys_bpf", 0x10));
	kframe(A("__x64_sys_bpf", 0x1a));
	kframe(0xffffffffc1f00000ULL);              /* outside every known symbol */
	emit(w);
	close_rec(w, &st);
}

/* an error chain saved before a later successful call, stitched back */
static void scen_stitched(const char *dir)
{
	struct rsf_writer *w = open_rec(dir, "stitched.rsrec");
	struct rsf_stats st = clean_stats(1);
	uint64_t t0 = 5000000000ULL + 3000000000ULL;

	sess_begin(4242, 4242, 4242, "simfail", "simfail", t0, t0 + 93700, RS_SESS_IS_ERR | RS_SESS_STITCHED);
	frame("__x64_sys_bpf", ERR(22), 93700);
	frame("bpf_prog_load", ERR32(22), 93200);
	frame("bpf_check", ERR32(22), 77100);
	frame("do_check_common", ERR32(22), 43800);
	frame("check_stack_range_initialized", ERR32(22), 15400);
	frame("check_stack_access_within_bounds", ERR32(22), 5200);
	E.stitch_pos = 3;
	kframe(A("check_stack_range_initialized", 0xaf));
	kframe(A("check_mem_reg", 0x127));
	kframe(A("do_check_common", 0x38a));
	kframe(A("bpf_check", 0x894));
	kframe(A("bpf_prog_load", 0x59a));
	kframe(A("__sys_bpf", 0x33d));
	kframe(A("__x64_sys_bpf", 0x1a));
	emit(w);
	close_rec(w, &st);
}

/* -I: an interim snapshot (outer frames still running), the final record,
 * and an ignored session that only frees state */
static void scen_interim(const char *dir)
{
	struct rsf_writer *w = open_rec(dir, "interim.rsrec");
	struct rsf_stats st = clean_stats(1);
	uint64_t t0 = 5000000000ULL + 4000000000ULL;

	rb_start(w, 5150, 5150, 5150, "simfail", "simfail", t0);

	sess_begin(5150, 5150, 5150, "simfail", "simfail", t0, t0 + 30000,
		   RS_SESS_IS_ERR | RS_SESS_INTERIM);
	frame("__x64_sys_bpf", 0, t0 + 10);        /* unfinished: entry timestamps */
	frame("__sys_bpf", 0, t0 + 200);
	frame("map_create", 0, t0 + 900);
	frame("array_map_alloc", ERR(12), 20000);
	frame("bpf_map_alloc_percpu", 0, 1800);
	E.depth = 3;
	kframe(A("array_map_alloc", 0x1a3));
	kframe(A("map_create", 0x2c5));
	kframe(A("__sys_bpf", 0x38b));
	kframe(A("__x64_sys_bpf", 0x1a));
	emit(w);

	sess_begin(5151, 5151, 5150, "worker", "simfail", t0 + 1000, t0 + 2000, RS_SESS_IGNORED);
	emit(w);

	sess_begin(5150, 5150, 5150, "simfail", "simfail", t0, t0 + 41000, RS_SESS_IS_ERR);
	frame("__x64_sys_bpf", ERR(12), 41000);
	frame("__sys_bpf", ERR32(12), 40500);
	frame("map_create", ERR32(12), 39000);
	frame("array_map_alloc", ERR(12), 20000);
	frame("bpf_map_alloc_percpu", 0, 1800);
	kframe(A("array_map_alloc", 0x1a3));
	kframe(A("map_create", 0x2c5));
	kframe(A("__sys_bpf", 0x38b));
	kframe(A("__x64_sys_bpf", 0x1a));
	emit(w);
	close_rec(w, &st);
}

/* the idle thread: pid 0, sess_id (1 << 32 | cpu) */
static void scen_idle(const char *dir)
{
	struct rsf_writer *w = open_rec(dir, "idle.rsrec");
	struct rsf_stats st = clean_stats(1);
	uint64_t t0 = 5000000000ULL + 5000000000ULL;

	sess_begin(1ULL << 32 | 2, 0, 0, "swapper/2", "swapper/2", t0, t0 + 5000, 0);
	frame("schedule_idle", 0, 4990);
	frame("__schedule", 0, 4800);
	frame("pick_next_task_fair", 0, 300);
	kframe(A("__schedule", 0x2d1));
	kframe(A("schedule_idle", 0x26));
	kframe(A("do_idle", 0x1ea));
	emit(w);
	close_rec(w, &st);
}

/* three sessions in three chunks; no trailer (recorder killed). run.sh
 * also cuts a copy inside the last chunk. */
static void scen_notrailer(const char *dir)
{
	struct rsf_writer *w = open_rec(dir, "notrailer.rsrec");
	uint64_t t0 = 5000000000ULL + 6000000000ULL;

	for (int i = 0; i < 3; i++) {
		sess_map_create_enomem(w, t0 + (uint64_t)i * 1000000, 100 + (uint32_t)i);
		if (rsf_writer_flush(w))
			exit(1);
	}
	close_rec(w, NULL);
}

/* drop statistics in the trailer, one session with lost records */
static void scen_drops(const char *dir)
{
	struct rsf_writer *w = open_rec(dir, "drops.rsrec");
	struct rsf_stats st = clean_stats(2);
	uint64_t t0 = 5000000000ULL + 7000000000ULL;

	sess_map_create_enomem(w, t0, 8346);
	sess_begin(8347, 8347, 8346, "simfail", "simfail", t0 + 500000, t0 + 600000, RS_SESS_IS_ERR);
	frame("__x64_sys_bpf", ERR(12), 73456);
	frame("__sys_bpf", ERR32(12), 70999);
	E.dropped_records = 2;
	E.overflow_calls = 5;
	E.flags |= RS_SESS_OVERFLOW;
	E.kstack_sz = -14;                         /* capture failed: -EFAULT */
	E.hdr.size = sizeof(E);
	emit(w);
	st.bpf.sessions_dropped = 3;
	st.bpf.sessions_incomplete = 1;
	st.bpf.sessions_exited = 4;
	st.bpf.records_dropped = 7;
	st.bpf.depth_overflows = 5;
	st.prog_misses = 6;
	st.prog_misses_known = 1;
	close_rec(w, &st);
}

/* a flight recording (--max-size 80K) whose ring wrapped several times:
 * 2000 sessions, two per chunk, of which only the newest fit */
static void scen_flight(const char *dir)
{
	struct rsf_writer *w;
	struct rsf_stats st = clean_stats(2000);
	uint64_t t0 = 5000000000ULL + 8000000000ULL;

	max_size = 80 << 10;
	w = open_rec(dir, "flight.rsrec");
	for (uint32_t i = 0; i < 2000; i++) {
		sess_map_create_enomem(w, t0 + (uint64_t)i * 1000000, 1000 + i % 7);
		if (i % 2 && rsf_writer_flush(w))
			exit(1);
	}
	close_rec(w, &st);
	max_size = 0;
}

/* missed probes as a 6.7+ kernel reports them per attach link: -K (one
 * link pair per function: the functions named, by count, the rest summed)
 * and -M (the entry and the exit kprobe.multi link) */
static void scen_linkmiss(const char *dir, const char *name, bool per_func)
{
	struct rsf_writer *w = open_rec(dir, name);
	struct rsf_stats st = clean_stats(1);

	sess_map_create_enomem(w, 5000000000ULL + 372607000ULL, 8346);
	st.prog_misses = 48;
	st.prog_misses_known = 1;
	st.prog_misses_entry = 40;
	st.prog_misses_exit = 8;
	st.link_misses_known = 1;
	st.link_misses_entry = 30;
	st.link_misses_exit = 7;
	if (per_func) {
		st.link_misses_nfuncs = 4;
		snprintf(st.link_misses_funcs, sizeof(st.link_misses_funcs),
			 "vfs_read=30,ksys_read=4");
	}
	close_rec(w, &st);
}

int main(int argc, char **argv)
{
	rb_prog = "mkrec";
	if (argc != 2) {
		fprintf(stderr, "usage: mkrec OUTDIR\n");
		return 2;
	}
	scen_kprobe(argv[1]);
	scen_kaslr(argv[1]);
	scen_fexit(argv[1]);
	scen_results(argv[1]);
	scen_stitched(argv[1]);
	scen_interim(argv[1]);
	scen_idle(argv[1]);
	scen_notrailer(argv[1]);
	scen_drops(argv[1]);
	scen_flight(argv[1]);
	scen_linkmiss(argv[1], "linkmiss_k.rsrec", true);
	scen_linkmiss(argv[1], "linkmiss_m.rsrec", false);
	return 0;
}
