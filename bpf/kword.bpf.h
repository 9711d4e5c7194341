/* kword.bpf.h - one 8-byte word of kernel memory (a return address on the
 * current task's stack), read two ways (included by retsnoop.bpf.c).
 *
 * bpf_probe_read_kernel is a helper call: its range check, pagefault
 * disable and copy loop cost about 40 instructions for one word. Through
 * bpf_rdonly_cast (Linux 6.2+; the verifier turns the call into a register
 * move) the word is a plain load the JIT guards with an exception-table
 * entry and a kernel-address check: a fault reads 0, which no caller takes
 * for a return address. A program can only hold the kfunc's call where the
 * kernel has it: the kprobe.session program (Linux 6.10+) and the fexit
 * template rs_fexit_cast (loaded instead of rs_fexit where the kernel's
 * BTF has the kfunc) read through it (cast true, a constant in each
 * caller), every other program through the helper. kword_pair reads two
 * adjacent words for the price of one cast (or one call). */
#ifndef RS_KWORD_BPF_H
#define RS_KWORD_BPF_H

extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym __weak;

#if defined(__TARGET_ARCH_x86)
#define KWORD_FIELD r15         /* pt_regs' first word */
#define KWORD_FIELD2 r14        /* and its second */
#elif defined(__TARGET_ARCH_arm64)
#define KWORD_FIELD regs[0]
#define KWORD_FIELD2 regs[1]
#endif

/* the word at addr, 0 when it cannot be read */
static __always_inline u64 kword(u64 addr, bool cast)
{
	u64 v = 0;

	if (cast) {
		/* any kernel struct whose first member is a word will do */
		struct pt_regs *p = bpf_rdonly_cast((void *)addr, bpf_core_type_id_kernel(struct pt_regs));

		return p->KWORD_FIELD;
	}
	if (bpf_probe_read_kernel(&v, sizeof(v), (void *)addr))
		return 0;
	return v;
}

/* the two words at addr and addr + 8 (*a, *b; 0 when they cannot be
 * read): one cast and two loads, or one helper call */
static __always_inline void kword_pair(u64 addr, u64 *a, u64 *b, bool cast)
{
	u64 v[2] = {};

	if (cast) {
		struct pt_regs *p = bpf_rdonly_cast((void *)addr, bpf_core_type_id_kernel(struct pt_regs));

		*a = p->KWORD_FIELD;
		*b = p->KWORD_FIELD2;
		return;
	}
	if (bpf_probe_read_kernel(v, sizeof(v), (void *)addr))
		v[0] = v[1] = 0;
	*a = v[0];
	*b = v[1];
}

#endif
