/* ustack.bpf.h - -U/--user-stacks, the kernel side: when a session is
 * emitted, the thread's user registers (its user pt_regs) and a bounded
 * copy of its user stack from the stack pointer go out as one
 * variable-sized RS_REC_USTACK record right before the SESSION_END
 * (bpf/retsnoop_abi.h). The copy is read page by page without faulting,
 * so it stops at the first unreadable page (RS_USTACKF_SHORT). The record
 * is assembled in a per-CPU slot of an array map (too big for a per-CPU
 * array, whose values are limited to 32 KiB) and output with its exact
 * size. Also: a per-process exec generation the recorder reads to know
 * when a process's mappings were replaced (record/umaps.c).
 * Included once by bpf/retsnoop.bpf.c, after the ring buffer and stats. */
#ifndef RS_USTACK_BPF_H
#define RS_USTACK_BPF_H

#define RS_USTACK_MAX  (64 * 1024)     /* -C user.stack-size upper bound */
#define RS_UPAGE       4096
#define RS_PF_KTHREAD  0x00200000      /* task_struct.flags: a kernel thread */

const volatile bool emit_ustack = false;   /* -U */
#ifdef RS_LEAN   /* bpf/lean_knobs.h */
#define emit_ustack RS_LEAN_emit_ustack
#endif
const volatile __u32 ustack_size = 16384;  /* -C user.stack-size, <= RS_USTACK_MAX */

/* the fields this file reads, relocated by CO-RE (the flavor suffix keeps
 * kernel_types.h's task_struct as it is) */
struct task_struct___rs_ustack {
	unsigned int flags;
	void *mm;
} __attribute__((preserve_access_index));

/* a struct rs_rec_ustack and its stack bytes; one page of slack: the
 * verifier sees an offset < 64 KiB and a piece of up to one page, never
 * that their sum stays below ustack_size */
#define RS_UREC_FIXED sizeof(struct rs_rec_ustack)
struct ustack_buf {
	u8 raw[RS_UREC_FIXED + RS_USTACK_MAX + RS_UPAGE];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);           /* one per possible CPU with -U (record/attach.c) */
	__type(key, u32);
	__type(value, struct ustack_buf);
} ustack_scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, u32);                 /* tgid */
	__type(value, u32);               /* execs seen since the recording started */
} exec_gen SEC(".maps");

/* processes whose USTACK was sent since their last exec: the first one
 * wakes the reader at once, so that it reads the process's mappings
 * before a short-lived process exits */
#define RS_MAP_TYPE_LRU_HASH 9
struct {
	__uint(type, RS_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, u32);                 /* tgid */
	__type(value, u8);
} ustack_seen SEC(".maps");

/* v, with a bound the verifier keeps (the empty asm stops clang from
 * dropping a check it can prove redundant; 64-bit, so that the compared
 * register is the one used) */
static __always_inline u64 ustack_clamp(u64 v, u64 max)
{
	asm volatile("" : "+r"(v));
	if (v > max)
		v = max;
	return v;
}

/* copies up to size bytes from sp into data: the rest of sp's page, whole
 * pages, the tail; the bytes copied. No offset is compared with size (6.1's
 * verifier then explores contradictory ranges and rejects the program):
 * the pieces are counted up front. */
static __always_inline u64 ustack_copy(struct rs_rec_ustack *rec, u8 *data, u64 sp, u64 size)
{
	u64 first, npages, last, off, i;
	long err;

	first = RS_UPAGE - (sp & (RS_UPAGE - 1));
	if (first > size)
		first = size;
	first = ustack_clamp(first, RS_UPAGE);
	err = bpf_probe_read_user(data, first, (const void *)sp);
	if (err) {
		rec->flags |= RS_USTACKF_ERR;
		rec->err = (s32)err;
		return 0;
	}
	npages = ustack_clamp((size - first) / RS_UPAGE, RS_USTACK_MAX / RS_UPAGE);
	last = (size - first) & (RS_UPAGE - 1);
	off = first;
	for (i = 0; i < RS_USTACK_MAX / RS_UPAGE; i++) {
		if (i >= npages)
			break;
		if (bpf_probe_read_user(data + (off & (RS_USTACK_MAX - 1)), RS_UPAGE,
					(const void *)(sp + off))) {
			rec->flags |= RS_USTACKF_SHORT;
			return off;
		}
		off += RS_UPAGE;
	}
	if (last) {
		if (bpf_probe_read_user(data + (off & (RS_USTACK_MAX - 1)), ustack_clamp(last, RS_UPAGE),
					(const void *)(sp + off))) {
			rec->flags |= RS_USTACKF_SHORT;
			return off;
		}
		off += last;
	}
	return off;
}

/* the user registers of the current task into rec; false: none (a kernel
 * thread, or not entered from user mode) */
static __always_inline bool ustack_regs(struct rs_rec_ustack *rec)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct task_struct___rs_ustack *tu = (void *)t;
	struct pt_regs *regs;

	if ((BPF_CORE_READ(tu, flags) & RS_PF_KTHREAD) || !BPF_CORE_READ(tu, mm))
		return false;
	regs = (struct pt_regs *)bpf_task_pt_regs(t);
	if (!regs || bpf_probe_read_kernel(rec->regs, sizeof(rec->regs), regs))
		return false;
	return (rec->regs[17] & 3) == 3;   /* cs: user mode */
}

/* hook of submit_session: the session's USTACK record */
static __always_inline void emit_ustack_rec(struct session *s)
{
	u32 key = bpf_get_smp_processor_id();
	u64 n = 0, tail, wake = BPF_RB_NO_WAKEUP;
	u8 one = 1;
	struct rs_rec_ustack *rec;
	struct ustack_buf *b;
	u8 *data;
	u64 size;

	if (!emit_ustack)
		return;
	b = bpf_map_lookup_elem(&ustack_scratch, &key);
	if (!b) {
		stat_inc(&stats.records_dropped);
		stat_inc(&stats.ustacks_dropped);
		return;
	}
	rec = (void *)b->raw;
	data = b->raw + RS_UREC_FIXED;
	rec->hdr.type = RS_REC_USTACK;
	rec->sess_id = s->sess_id;
	rec->tid = s->tid;
	rec->pid = s->pid;
	rec->flags = 0;
	rec->err = 0;
	rec->stack_addr = 0;
	rec->_pad = 0;
	if (!s->tid || !ustack_regs(rec)) {
		__builtin_memset(rec->regs, 0, sizeof(rec->regs));
		rec->flags = RS_USTACKF_NO_USER;
	} else {
		rec->stack_addr = rec->regs[19];   /* sp */
		n = ustack_copy(rec, data, rec->stack_addr, ustack_clamp(ustack_size, RS_USTACK_MAX));
	}
	n = ustack_clamp(n, RS_USTACK_MAX);
	rec->stack_len = (u32)n;
	/* the pad up to 8 bytes is zeroed: the slot holds older stacks */
	tail = n & 7;
	if (tail) {
		u64 *w = (u64 *)(data + ((n & ~7ULL) & (RS_USTACK_MAX - 1)));

		*w &= (1ULL << (tail * 8)) - 1;
	}
	size = RS_UREC_FIXED + RS_REC_ALIGN(n);
	rec->hdr.size = (u32)size;
	if (!(rec->flags & RS_USTACKF_NO_USER) && !bpf_map_lookup_elem(&ustack_seen, &s->pid)) {
		bpf_map_update_elem(&ustack_seen, &s->pid, &one, BPF_ANY);
		wake = BPF_RB_FORCE_WAKEUP;
	}
	if (bpf_ringbuf_output(&rb, b, ustack_clamp(size, RS_UREC_FIXED + RS_USTACK_MAX), wake)) {
		stat_inc(&stats.records_dropped);
		stat_inc(&stats.ustacks_dropped);
	}
}

/* an exec replaced the process's mappings: the recorder reads them again */
SEC("raw_tp/sched_process_exec")
int rs_task_exec(void *ctx)
{
	u32 tgid = bpf_get_current_pid_tgid() >> 32, one = 1, *g;

	g = bpf_map_lookup_elem(&exec_gen, &tgid);
	if (g)
		__sync_fetch_and_add(g, 1);
	else
		bpf_map_update_elem(&exec_gen, &tgid, &one, BPF_ANY);
	bpf_map_delete_elem(&ustack_seen, &tgid);   /* its next USTACK wakes the reader */
	return 0;
}

#endif
