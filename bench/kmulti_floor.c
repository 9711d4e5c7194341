/* kmulti_floor.c - the empty-probe floor of kprobe.multi for
 * bench/record_overhead.sh, built static for the guest:
 *
 *   kmulti_floor [-s] FUNC[,FUNC...] CMD ARGS...
 *
 * loads two empty BPF programs (r0 = 0; exit) of attach type
 * BPF_TRACE_KPROBE_MULTI, attaches one at the entry and one at the return
 * of every FUNC with one kprobe.multi link each (as retsnoop-record -M
 * does on kernels without kprobe.session), runs CMD with its output passed
 * through, then detaches. -s: one empty program of attach type
 * BPF_TRACE_KPROBE_SESSION (Linux 6.10+) on one link instead, its entry
 * returning 0 so that its return runs too (as -M does where it can). bpftrace
 * (Debian's 0.17) attaches a list of named functions as single kprobes, a
 * different attach type with a cheaper dispatch; this is the floor of the
 * same attach type as -M. Raw bpf(2): no libbpf, so it links statically. */
#include <errno.h>
#include <linux/bpf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

#define KMF_KPROBE_SESSION 56   /* BPF_TRACE_KPROBE_SESSION: newer than this libc's uapi */

static int load_empty(int type)
{
	struct bpf_insn insns[2] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_KPROBE;
	a.expected_attach_type = type;
	a.insns = (uintptr_t)insns;
	a.insn_cnt = 2;
	a.license = (uintptr_t)"GPL";
	return (int)sys_bpf(BPF_PROG_LOAD, &a);
}

static int attach(int prog, int type, const char **syms, unsigned n, int ret)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.link_create.prog_fd = prog;
	a.link_create.attach_type = type;
	a.link_create.kprobe_multi.flags = ret ? BPF_F_KPROBE_MULTI_RETURN : 0;
	a.link_create.kprobe_multi.cnt = n;
	a.link_create.kprobe_multi.syms = (uintptr_t)syms;
	return (int)sys_bpf(BPF_LINK_CREATE, &a);
}

int main(int argc, char **argv)
{
	const char **syms;
	unsigned n = 0;
	char *list, *tok, *save = NULL;
	int pe, px = -1, st, sess = 0;
	pid_t pid;

	if (argc > 1 && strcmp(argv[1], "-s") == 0) {
		sess = 1;
		argv++;
		argc--;
	}
	if (argc < 3) {
		fprintf(stderr, "usage: kmulti_floor [-s] FUNC[,FUNC...] CMD ARGS...\n");
		return 2;
	}
	list = strdup(argv[1]);
	syms = calloc(strlen(argv[1]) + 1, sizeof(*syms));
	if (!list || !syms)
		return 1;
	for (tok = strtok_r(list, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save))
		syms[n++] = tok;
	if (sess) {
		pe = load_empty(KMF_KPROBE_SESSION);
		if (pe < 0 || attach(pe, KMF_KPROBE_SESSION, syms, n, 0) < 0) {
			fprintf(stderr, "kmulti_floor: kprobe.session of %u functions: %s\n", n, strerror(errno));
			return 1;
		}
	} else {
		pe = load_empty(BPF_TRACE_KPROBE_MULTI);
		px = load_empty(BPF_TRACE_KPROBE_MULTI);
		if (pe < 0 || px < 0) {
			fprintf(stderr, "kmulti_floor: BPF_PROG_LOAD: %s\n", strerror(errno));
			return 1;
		}
		if (attach(pe, BPF_TRACE_KPROBE_MULTI, syms, n, 0) < 0 ||
		    attach(px, BPF_TRACE_KPROBE_MULTI, syms, n, 1) < 0) {
			fprintf(stderr, "kmulti_floor: kprobe.multi link of %u functions: %s\n", n, strerror(errno));
			return 1;
		}
	}
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		fprintf(stderr, "kmulti_floor: %s: %s\n", argv[2], strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0)
		return 1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
