/* stack_defer.bpf.h - the kernel stack of an error chain's deepest failing
 * call, captured only once the error is known to go on (kprobe modes;
 * included by retsnoop.bpf.c; the recorder fills func_ranges).
 *
 * A capture unwinds every frame up to the syscall entry, several thousand
 * instructions, and most first failures of a succeeding syscall are
 * swallowed by the failing call's traced parent (a NULL lookup result, an
 * -EAGAIN retried): nobody reads that stack. At a kprobe exit the
 * registers' ip is the failing call's return address, the first entry of
 * its stack. When that address lies inside the function of the traced
 * parent frame (the parent called it, directly or through an untraced
 * tail call), the rest of the stack is exactly the parent's stack at its
 * own exit. So the first failure keeps that one address; at the parent's
 * exit the chain is dropped if the parent swallowed the error, else the
 * parent's return address is appended the same way, and the first exit
 * whose return address is not inside its traced parent (at the latest the
 * session's entry function) captures the remaining stack behind the
 * addresses kept. The result is the stack one capture at the failing call
 * gives, for at most one capture per error chain and none for a swallowed
 * one. Off (whole captures at the failing call) through fentry, whose
 * context has no return address, for success stacks and for -I, whose
 * snapshots need whole stacks (record/attach.c). */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);           /* nr_funcs (recorder) */
	__type(key, u32);
	__type(value, struct rs_func_range);
} func_ranges SEC(".maps");

/* is ip (a return address) inside the function of frame d? */
static __always_inline bool ip_in_frame(struct session *s, u32 d, u64 ip)
{
	u32 f = s->frames[FIDX(d)].func_id;
	struct rs_func_range *r = bpf_map_lookup_elem(&func_ranges, &f);

	return r && r->end && ip >= r->start && ip < r->end;
}

/* slot's chain, with n return addresses kept, at the exit of frame d:
 * keep this exit's return address too and wait for frame d - 1, or
 * capture the rest of the stack behind them now */
static __always_inline void defer_step(struct pt_regs *ctx, struct session *s, u32 slot, u32 d, u32 n)
{
	u64 ip = PT_REGS_IP(ctx);
	s32 sz;

	slot &= 1;
	if (d > 0 && d < RS_MAX_FSTACK_DEPTH && n < RS_MAX_KSTACK_DEPTH - 1 &&
	    ip_in_frame(s, d - 1, ip)) {
		s->kstack[slot][n & (RS_MAX_KSTACK_DEPTH - 1)] = ip;
		s->pend_n[slot] = n + 1;
		s->pend_depth[slot] = d - 1;
		s->kstack_sz[slot] = (n + 1) * 8;
		return;
	}
	s->pend_depth[slot] = -1;
	if (n >= RS_MAX_KSTACK_DEPTH)
		n = RS_MAX_KSTACK_DEPTH - 1;
	sz = bpf_get_stack(ctx, (void *)s->kstack[slot] + n * 8, sizeof(s->kstack[0]) - n * 8, 0);
	s->kstack_sz[slot] = n * 8 + (sz > 0 ? sz : 0);
	if (n)
		stat_inc(&stats.stacks_completed);
}

/* The two entry points below are BPF global functions: the verifier checks
 * each once, on its own, instead of once for every state of handle_exit
 * that reaches it (inlined, or as static subprograms, they tripled the
 * instructions verified at load). Only kprobe programs call them (their
 * context is the registers); fentry captures at the failing call. */

/* the first failure of a chain at frame d: its stack into the current slot,
 * whole now or deferred (defer_step) */
__noinline int rs_defer_first(struct pt_regs *ctx, struct session *s, u32 d)
{
	u32 slot;

	if (!s)
		return 0;
	slot = s->cur & 1;
	s->pend_depth[slot] = -1;
	defer_step(ctx, s, slot, d, 0);
	if (s->pend_depth[slot] >= 0)
		stat_inc(&stats.stacks_deferred);
	return 0;
}

/* the exit of the function at frame d, after its result updated is_err:
 * the chains waiting for it go on (defer_step) or, when the current one
 * ended here without an error, are let go (a saved chain that can no
 * longer be stitched was dropped by the caller) */
__noinline int rs_defer_exit(struct pt_regs *ctx, struct session *s, u32 d)
{
	if (!s || (s->pend_depth[0] < 0 && s->pend_depth[1] < 0))
		return 0;
	for (u32 slot = 0; slot < 2; slot++) {
		s32 pd = s->pend_depth[slot];
		bool cur = slot == (s->cur & 1u);

		if (pd < 0 || (u32)pd < d)
			continue;
		if (cur && !s->is_err) {
			s->pend_depth[slot] = -1;
			s->kstack_sz[slot] = 0;
			continue;
		}
		/* pd > d: frames above d were left without their exits (a
		 * missed return): what is kept goes on from here */
		defer_step(ctx, s, slot, d, s->pend_n[slot]);
	}
	return 0;
}
