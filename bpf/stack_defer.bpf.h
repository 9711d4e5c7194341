/* stack_defer.bpf.h - the kernel stack of an error chain's deepest failing
 * call, captured only once the error is known to go on (included by
 * retsnoop.bpf.c; the recorder fills func_ranges).
 *
 * A capture unwinds every frame up to the syscall entry, several thousand
 * instructions, and most first failures of a succeeding syscall are
 * swallowed by a traced caller (a NULL lookup result, an -EAGAIN retried):
 * nobody reads that stack. At a kprobe exit the registers' ip is the
 * failing call's return address, the first entry of its stack. When it
 * lies inside the function of one of the nearest traced ancestor frames
 * (its parent, or further up when the parent tail-called it), the rest of
 * the stack is exactly that ancestor's stack at its own exit. So the first
 * failure keeps that one address (when it returned into untraced code, the
 * few entries of a short unwind up to such an ancestor's call site), and
 * at that ancestor's exit the chain is dropped if the error was swallowed,
 * else the ancestor's own return address is kept the same way; the first
 * exit that reaches no traced ancestor (at the latest the session's entry
 * function's) unwinds the rest behind the addresses kept, or reads it
 * where earlier such unwinds found it (stack_tails.bpf.h). The result is
 * the stack one capture at the failing call gives, for fewer frames unwound,
 * and none (or a short unwind) for a swallowed error. The common step (a
 * return into the parent's code) is inline in the programs' fast exit
 * (defer_to_parent, defer_exit_inline); the rest are BPF global functions,
 * verified once. Off (whole captures
 * at the failing call) for success stacks and for -I, whose snapshots need
 * whole stacks (record/attach.c).
 *
 * Through fentry the context is the arguments, not the registers: the
 * return addresses come from the BPF trampoline's frame (fexit_frame), and
 * a short unwind or a stack completed later is unwound past the program's
 * and trampoline's own frames (fexit_skip, learned from the first whole
 * capture). There the short unwind matters most: a whole capture unwinds
 * every traced ancestor's trampoline frame, each costly (JIT code has no
 * ORC data: the unwinder searches the ftrace trampolines first). The
 * traced ancestors' trampoline frames, between an ancestor's return
 * address and its entry's, are not in such a stack: the report hides them
 * anyway (report/stack_view.c). */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);           /* nr_funcs (recorder) */
	__type(key, u32);
	__type(value, struct rs_func_range);
} func_ranges SEC(".maps");

/* the code range of frame d's function (NULL: unknown) */
static __always_inline struct rs_func_range *frame_range(struct session *s, u32 d)
{
	u32 f = s->frames[FIDX(d)].func_id;
	struct rs_func_range *r = bpf_map_lookup_elem(&func_ranges, &f);

	return r && r->end ? r : NULL;
}

/* traced ancestors looked for (a tail call leaves its caller no return
 * address: the failing call's may be in its grandparent's code), and the
 * entries of a short unwind looked at for one of their call sites: the
 * return address and its caller's, one untraced frame between (the common
 * case; each entry more is one more unwinder step at every such return,
 * most of them swallowed). Deeper untraced code is captured whole */
#define DEFER_ANCESTORS 3
#define DEFER_SHORT 2
#define KIDX(i) ((i) & (2 * RS_MAX_KSTACK_DEPTH - 1))   /* verifier bound, see callers */

#include "ret_sites.bpf.h"
#include "stack_tails.bpf.h"

struct ancestors {
	struct rs_func_range *r[DEFER_ANCESTORS];
};

/* the code ranges of frame d's nearest traced ancestors (d > 0); with
 * parent_known, the parent's is parent (frame_range's answer already) */
static __always_inline void ancestors_known(struct session *s, u32 d, struct ancestors *an,
					    struct rs_func_range *parent, bool parent_known)
{
	for (u32 a = 0; a < DEFER_ANCESTORS; a++)
		if (a < d)
			an->r[a] = a == 0 && parent_known ? parent : frame_range(s, d - 1 - a);
}

static __always_inline void ancestors_of(struct session *s, u32 d, struct ancestors *an)
{
	ancestors_known(s, d, an, NULL, false);
}

/* slot's chain, its kept return addresses now ks[0, kept), waits for the
 * exit of frame depth (a traced ancestor's) */
static __always_inline void chain_wait(struct session *s, u32 slot, u32 kept, u32 depth)
{
	s->pend_n[slot & 1] = kept;
	s->pend_depth[slot & 1] = depth;
	s->kstack_sz[slot & 1] = kept * 8;
}

/* which of frame d's nearest traced ancestors has ip in its code: how
 * many frames up (1: the parent), 0 for none */
static __always_inline u32 ancestor_of(const struct ancestors *an, u64 ip)
{
	for (u32 a = 0; a < DEFER_ANCESTORS; a++) {
		const struct rs_func_range *r = an->r[a];

		if (r && ip >= r->start && ip < r->end)
			return a + 1;
	}
	return 0;
}

/* defer_step's common case, inline in the kprobe programs' fast exit
 * (no global function call): frame d returns into its parent's code (no
 * tail call, no untraced code between), so its return address is kept and
 * slot's chain, n addresses kept so far, waits for the parent's exit.
 * False, nothing changed, for any other case */
static __always_inline bool defer_to_parent(struct pt_regs *ctx, struct session *s, u32 slot,
					    u32 d, u32 n)
{
	u64 ip = PT_REGS_IP(ctx);
	struct rs_func_range *r;

	if (n > RS_MAX_KSTACK_DEPTH - DEFER_SHORT - 1 || d == 0 || d >= RS_MAX_FSTACK_DEPTH)
		return false;
	r = frame_range(s, d - 1);
	if (!r || ip < r->start || ip >= r->end)
		return false;
	s->kstack[slot & 1][KIDX(n)] = ip;
	chain_wait(s, slot, n + 1, d - 1);
	return true;
}

/* slot's chain, with n return addresses kept, at the exit of frame d:
 * when this exit returns into one of the nearest traced ancestors, keep
 * that return address (when it returns into untraced code, the few frames
 * of a short unwind up to such an ancestor's call site) and wait for that
 * ancestor's exit; else capture the rest of the stack behind them now.
 * cast: the stack words are read through bpf_rdonly_cast (bpf/kword.bpf.h) */
static __always_inline void defer_step(struct pt_regs *ctx, struct session *s, u32 slot, u32 d, u32 n,
				       bool cast)
{
	u64 ip = PT_REGS_IP(ctx), sp, ret;
	struct ancestors an = {};
	u64 *ks;
	s32 sz;
	u32 a, k, cnt;

	slot &= 1;
	ks = s->kstack[slot];
	if (n > RS_MAX_KSTACK_DEPTH - DEFER_SHORT - 1 || d == 0 || d >= RS_MAX_FSTACK_DEPTH)
		goto whole;
	ancestors_of(s, d, &an);
	k = 0;
	a = ancestor_of(&an, ip);
	if (a) {
		ks[KIDX(n)] = ip;
		goto wait;
	}
	/* through untraced code: its frames, up to an ancestor's call site,
	 * read where a learned site says (bpf/ret_sites.bpf.h) or unwound */
	sp = PT_REGS_SP(ctx);
	ret = ret_site_read_call(ip, sp, cast);
	if (ret) {
		ks[KIDX(n)] = ip;
		ks[KIDX(n + 1)] = ret;
		cnt = 2;
	} else {
		sz = bpf_get_stack(ctx, (void *)ks + n * 8, DEFER_SHORT * 8, 0);
		cnt = sz > 0 ? (u32)sz / 8 : 0;
	}
	for (k = 1; k < DEFER_SHORT; k++) {
		if (k >= cnt)
			break;
		a = ancestor_of(&an, ks[KIDX(n + k)]);
		if (a) {
			/* an unwound caller's return address: learned */
			if (!ret && k == 1 && ks[KIDX(n)] == ip)
				rs_ret_site_learn(ip, sp, ks[KIDX(n + 1)]);
			goto wait;
		}
	}
	goto whole;
wait:
	chain_wait(s, slot, n + k + 1, d - a);
	return;
whole:
	s->pend_depth[slot] = -1;
	if (n >= RS_MAX_KSTACK_DEPTH)
		n = RS_MAX_KSTACK_DEPTH - 1;
	/* the rest read where learned unwinds found it (stack_tails.bpf.h),
	 * else unwound */
	sp = PT_REGS_SP(ctx);
	cnt = tail_read_call(s, slot | n << 1, ip, sp, cast);
	if (cnt) {
		sz = cnt * 8;
	} else {
		sz = bpf_get_stack(ctx, (void *)ks + n * 8, sizeof(s->kstack[0]) - n * 8, 0);
		if (sz > 0)
			rs_tail_learn(s, slot | n << 1, ip, (u32)sz / 8, sp);
	}
	s->kstack_sz[slot] = n * 8 + (sz > 0 ? sz : 0);
	if (n)
		stat_inc(&stats.stacks_completed);
}

/* The two entry points below (defer_first, defer_exit) are BPF global
 * functions: the verifier checks each once, on its own, instead of once
 * for every state of handle_exit that reaches it (inlined, or as static
 * subprograms, they tripled the instructions verified at load). Only
 * kprobe programs call them (their context is the registers); fentry has
 * its own, below. Each comes twice: rs_X reads stack words through the
 * helper, rs_X_cast (the kprobe.session program's) through bpf_rdonly_cast */

/* the first failure of a chain at frame d: its stack into the current slot,
 * whole now or deferred (defer_step) */
static __always_inline void defer_first(struct pt_regs *ctx, struct session *s, u32 d, bool cast)
{
	u32 slot = s->cur & 1;

	defer_step(ctx, s, slot, d, 0, cast);   /* sets pend_depth either way */
	if (s->pend_depth[slot] >= 0)
		stat_inc(&stats.stacks_deferred);
}

/* the global functions rs_NAME and rs_NAME_cast over the inline
 * NAME(ctx, s, d, cast), and NAME_call, which calls the one cast (a
 * constant in each caller) names */
#define DEFER_GLOBALS(name)								\
__noinline int rs_##name(struct pt_regs *ctx, struct session *s, u32 d)			\
{											\
	if (s)										\
		name(ctx, s, d, false);							\
	return 0;									\
}											\
__noinline int rs_##name##_cast(struct pt_regs *ctx, struct session *s, u32 d)		\
{											\
	if (s)										\
		name(ctx, s, d, true);							\
	return 0;									\
}											\
static __always_inline void name##_call(struct pt_regs *ctx, struct session *s, u32 d,	\
					bool cast)					\
{											\
	if (cast)									\
		rs_##name##_cast(ctx, s, d);						\
	else										\
		rs_##name(ctx, s, d);							\
}

DEFER_GLOBALS(defer_first)

/* whether slot's chain goes on at the exit of frame d: it waits for this
 * exit (pd > d: frames above d were left without their exits, a missed
 * return: what is kept goes on from here) and, the current chain, its
 * error went on through it; a swallowed one is let go here */
static __always_inline bool chain_goes_on(struct session *s, u32 d, u32 slot)
{
	s32 pd = s->pend_depth[slot & 1];

	if (pd < 0 || (u32)pd < d)
		return false;
	if (slot == (s->cur & 1u) && !s->is_err) {
		s->pend_depth[slot & 1] = -1;
		s->kstack_sz[slot & 1] = 0;
		return false;
	}
	return true;
}

/* slot's chain at the exit of frame d (defer_exit) */
static __always_inline void defer_exit_slot(struct pt_regs *ctx, struct session *s, u32 d, u32 slot,
					    bool cast)
{
	if (chain_goes_on(s, d, slot))
		defer_step(ctx, s, slot, d, s->pend_n[slot & 1], cast);
}

/* the exit of the function at frame d, after its result updated is_err:
 * the chains waiting for it go on (defer_step) or, when the current one
 * ended here without an error, are let go (a saved chain that can no
 * longer be stitched was dropped by the caller) */
static __always_inline void defer_exit(struct pt_regs *ctx, struct session *s, u32 d, bool cast)
{
	/* no loop: 6.1's verifier refuses the one clang makes here */
	defer_exit_slot(ctx, s, d, 0, cast);
	defer_exit_slot(ctx, s, d, 1, cast);
}

DEFER_GLOBALS(defer_exit)

/* rs_defer_exit's common case inline (kprobe programs' fast exit): one
 * chain waits for this exit (the current one, or the saved one a stitched
 * chain continues), and it is let go (the current one's error was
 * swallowed) or goes on into the parent (defer_to_parent). False, nothing
 * changed: rs_defer_exit must run */
static __always_inline bool defer_exit_inline(struct pt_regs *ctx, struct session *s, u32 d)
{
	u32 cur = s->cur & 1, w;
	bool on_cur = s->pend_depth[cur] >= (s32)d, on_saved = s->pend_depth[cur ^ 1] >= (s32)d;

	if (on_cur && on_saved)
		return false;
	if (!on_cur && !on_saved)
		return true;
	if (on_cur && !s->is_err) {
		s->pend_depth[cur] = -1;
		s->kstack_sz[cur] = 0;
		return true;
	}
	w = on_cur ? cur : cur ^ 1;
	return defer_to_parent(ctx, s, w, d, s->pend_n[w]);
}

/* ------------------------------------------------------------ fentry */

/* the x86-64 BPF trampoline's frame, upwards from an fexit program's
 * context: the traced function's argument registers (bpf_get_func_arg_cnt
 * of them), its return value, the trampoline's saved frame pointer, the
 * return address into the function's patched entry (the "site", a few bytes
 * past its start: checked once, fexit_frame_ok, or nothing is deferred) and
 * the function's own
 * return address into its caller */
#define FENTRY_SITE_MAX 16

struct fexit_ret {
	u64 site, caller;   /* read from the frame */
	u64 sp;             /* the stack pointer once the function has returned */
};

__u32 fexit_skip = 0;          /* frames above the site in an fexit capture, + 1 (0: not learned) */
bool fexit_defer_broken = false;   /* a completed capture did not start at the site: off (recorder warns) */
/* the trampoline frame's layout checked once: the first site read (at
 * q + 16, fexit_frame_at) that lay right past its function's start. The
 * layout is the JIT's, the same in every trampoline of the kernel, so the
 * later reads skip the function's range (a lookup and two compares on
 * every failing exit) */
bool fexit_frame_ok = false;
/* fexit_fail's precondition in one flag (fexit_fast_ready): fexit_skip
 * learned, the layout checked, deferral on */
bool fexit_fast_ok = false;

/* one of the flags above set, unless deferral was turned off meanwhile
 * on another CPU (then cleared again): whether it stays set */
static __always_inline bool fexit_flag_set(bool *flag)
{
	*flag = true;
	if (fexit_defer_broken) {
		*flag = false;
		return false;
	}
	return true;
}

/* an fentry or fexit program's context address as a number (the
 * verifier allows no arithmetic on it), no helper call: its guard
 * (guard_enter_ctx stored the context there, a privileged program may
 * store a pointer in map memory), read back */
static __always_inline u64 ctx_addr(struct cpu_state *c)
{
	return *(volatile u64 *)&c->guard;
}

/* the address of the trampoline frame's words past the traced function's
 * argument registers (its return value's slot), 0 when not known: the
 * whole path's (a failed exit's fast path has the count patched in,
 * fexit_fail_of) */
static __always_inline u64 fexit_frame_addr(void *ctx)
{
	u64 n = bpf_get_func_arg_cnt(ctx), p;

	if (n > 16)
		return 0;
	p = ctx_addr(cpu_state_get());
	return p ? p + n * 8 : 0;
}

/* the trampoline frame at q (fexit_frame_addr) of function id's exit:
 * whether its site was found. cast: how the frame's words are read
 * (bpf/kword.bpf.h), in this and the fexit functions below */
static __always_inline bool fexit_frame_at_c(u64 q, u32 id, struct fexit_ret *w, bool cast,
					     bool checked)
{
	struct rs_func_range *r;

	if (!q)
		return false;
	kword_pair(q + 16, &w->site, &w->caller, cast);
	w->sp = q + 32;
	if (!w->caller)
		return false;
	/* one flag tested on the common path: fexit_frame_ok is never set
	 * once deferral is off (fexit_defer_off); none where the caller
	 * tested fexit_fast_ok (checked, a constant) */
	if (checked || fexit_frame_ok)
		return true;
	if (fexit_defer_broken)
		return false;
	r = bpf_map_lookup_elem(&func_ranges, &id);
	if (!r || !r->end || w->site <= r->start || w->site > r->start + FENTRY_SITE_MAX)
		return false;
	return fexit_flag_set(&fexit_frame_ok);
}

static __always_inline bool fexit_frame_at(u64 q, u32 id, struct fexit_ret *w, bool cast)
{
	return fexit_frame_at_c(q, id, w, cast, false);
}

/* a completed capture did not start at the site: deferral through fentry
 * off from here on (fexit_frame_at finds no frame), the recorder warns */
static __always_inline void fexit_defer_off(void)
{
	fexit_defer_broken = true;
	fexit_frame_ok = false;
	fexit_fast_ok = false;
}

/* fexit_fail's precondition (fexit_fast_ok), set here once both halves
 * are known: a frame read then needs no check of the layout
 * (fexit_frame_at_c, checked) */
static __always_inline bool fexit_fast_ready(void)
{
	if (fexit_fast_ok)
		return true;
	if (!fexit_skip || !fexit_frame_ok || fexit_defer_broken)
		return false;
	return fexit_flag_set(&fexit_fast_ok);
}

static __always_inline bool fexit_frame(void *ctx, u32 id, struct fexit_ret *w, bool cast)
{
	return fexit_frame_at(fexit_frame_addr(ctx), id, w, cast);
}

/* the first whole capture (skip 0) tells how many frames (program,
 * trampoline) precede the site */
static __always_inline void fexit_learn_skip(const u64 *ks, s32 sz, u64 site)
{
	for (u32 i = 0; i < 8; i++) {
		if ((s32)(i * 8) >= sz)
			break;
		if (ks[i] == site) {
			fexit_skip = i + 1;
			break;
		}
	}
}

/* which traced ancestor of frame d (how many frames up, 0: none) ip
 * returns into: its code, or its trampoline (it tail-called the code
 * between) */
static __always_inline u32 fexit_ancestor_of(const struct ancestors *an, u64 ip)
{
	u32 a = ancestor_of(an, ip);

	for (u32 i = 0; i < DEFER_ANCESTORS && !a; i++) {
		const struct rs_func_range *r = an->r[i];

		if (r && ip >= r->tramp_start && ip < r->tramp_end)
			a = i + 1;
	}
	return a;
}

/* rs_fdefer_keep's answers */
enum { FKEEP_WHOLE = -1, FKEEP_UNWIND = 0, FKEEP_KEPT = 1 };

/* slot, n and d of rs_fdefer_keep in one argument (a global function has
 * five), and FKEEP_NOT_PARENT: the caller found the return address outside
 * the parent's code already (fdefer_into_parent) */
#define FKEEP_ARG(slot, n, d) (((slot) & 1) | ((n) & 0x3fff) << 1 | (d) << 16)
#define FKEEP_NOT_PARENT 0x8000u

/* fdefer_keep's common case, also inline in fexit_fail's chain step
 * (fexit_keep_one: no second global function call there): frame d
 * returned into its parent's code, so its site and return address are
 * kept behind the n of slot's chain, which waits for the parent's exit.
 * False, nothing changed, for any other case */
static __always_inline bool fdefer_into_parent(struct session *s, u32 slot, u32 n, u32 d, u64 site,
					       u64 caller)
{
	struct rs_func_range *r;
	u64 *ks;

	if (n > RS_MAX_KSTACK_DEPTH - 2 || d == 0 || d >= RS_MAX_FSTACK_DEPTH)
		return false;
	r = frame_range(s, d - 1);
	if (!r || caller < r->start || caller >= r->end)
		return false;
	ks = s->kstack[slot & 1];
	ks[KIDX(n)] = site;
	ks[KIDX(n + 1)] = caller;
	chain_wait(s, slot, n + 2, d - 1);
	return true;
}

/* fentry's defer_step without the unwind: slot's chain, with n return
 * addresses kept (sdn: FKEEP_ARG), at the exit of frame d whose trampoline
 * frame holds site and caller, sp the stack pointer once the function has
 * returned. When the function returns into one of the nearest traced
 * ancestors (or into its trampoline, after a tail call), its site and
 * return address are kept; when it returns into untraced code whose own
 * return address a learned site gives (bpf/ret_sites.bpf.h) and that one
 * lies in a nearest traced ancestor, the three are; the chain then waits
 * for that ancestor's exit (FKEEP_KEPT). Else FKEEP_UNWIND: a short unwind
 * may find the ancestor (no learned site), or FKEEP_WHOLE: the rest of the
 * stack is captured now. The ancestors' ranges are looked up once for both
 * checks. Called as rs_fdefer_keep(_cast), global functions: verified once
 * per program, not in every state of handle_exit; cast: how stack words
 * are read */
static __always_inline int fdefer_keep(struct session *s, u32 sdn, u64 site, u64 caller, u64 sp,
				       bool cast)
{
	struct ancestors an = {};
	u32 slot = sdn & 1, n = (sdn >> 1) & 0x3fff, d = sdn >> 16, a, kept = 2;
	struct rs_func_range *r = NULL;
	u64 *ks, ret = 0;

	if (!s || n > RS_MAX_KSTACK_DEPTH - 2 || d == 0 || d >= RS_MAX_FSTACK_DEPTH)
		return FKEEP_WHOLE;
	/* the common case first, one range looked up: a return into the
	 * parent's code (what fexit_ancestor_of finds first) */
	if (!(sdn & FKEEP_NOT_PARENT) && fdefer_into_parent(s, slot, n, d, site, caller))
		return FKEEP_KEPT;
	/* the next one: into untraced code, whose return address a learned
	 * site gives (sites are learned for return addresses found in none
	 * of the nearest ancestors: rs_fdefer_short), into the parent's code.
	 * Read before the ancestors' ranges and trampolines are looked
	 * through: the stack words kept are the stack's either way */
	if (n <= RS_MAX_KSTACK_DEPTH - DEFER_SHORT - 2) {
		ret = ret_site_read_call(caller, sp, cast);
		r = ret ? frame_range(s, d - 1) : NULL;
		if (r && ret >= r->start && ret < r->end) {
			a = 1;
			kept = 3;
			goto keep;
		}
	}
	/* the parent's range not looked up twice */
	ancestors_known(s, d, &an, r, ret != 0);
	/* into an ancestor's trampoline: that ancestor tail-called this
	 * function, whose return goes on through its exit */
	a = fexit_ancestor_of(&an, caller);
	if (!a) {
		/* into untraced code: its return address where learned */
		if (n > RS_MAX_KSTACK_DEPTH - DEFER_SHORT - 2)
			return FKEEP_WHOLE;
		if (!ret)
			return FKEEP_UNWIND;
		a = fexit_ancestor_of(&an, ret);
		if (!a)
			return FKEEP_WHOLE;
		kept = 3;
	}
keep:
	ks = s->kstack[slot];
	ks[KIDX(n)] = site;
	ks[KIDX(n + 1)] = caller;
	if (kept == 3)
		ks[KIDX(n + 2)] = ret;
	chain_wait(s, slot, n + kept, d - a);
	return FKEEP_KEPT;
}

__noinline int rs_fdefer_keep(struct session *s, u32 sdn, u64 site, u64 caller, u64 sp)
{
	return fdefer_keep(s, sdn, site, caller, sp, false);
}

__noinline int rs_fdefer_keep_cast(struct session *s, u32 sdn, u64 site, u64 caller, u64 sp)
{
	return fdefer_keep(s, sdn, site, caller, sp, true);
}

/* rs_fdefer_keep, for the exit of frame d whose trampoline frame is w;
 * not_parent: FKEEP_NOT_PARENT or 0 */
static __always_inline int fdefer_keep_call(struct session *s, u32 slot, u32 n, u32 d,
					    const struct fexit_ret *w, bool cast, u32 not_parent)
{
	u32 sdn = FKEEP_ARG(slot, n, d) | not_parent;

	if (cast)
		return rs_fdefer_keep_cast(s, sdn, w->site, w->caller, w->sp);
	return rs_fdefer_keep(s, sdn, w->site, w->caller, w->sp);
}

/* fentry's short unwind, where rs_fdefer_keep found no learned site: frame
 * d returned into untraced code, and the cnt entries of a short capture
 * from its site are at ks[n]: when one of them past the first two (the
 * site, the return address) returns into a nearest traced ancestor, the
 * entries up to it are kept and the chain waits for that ancestor's exit
 * (1); else 0. A global function, like rs_fdefer_keep. */
__noinline int rs_fdefer_short(struct session *s, u32 slot_n, u32 d, u32 cnt)
{
	struct ancestors an = {};
	u32 slot = slot_n & 1, n = slot_n >> 1, a, k;
	u64 *ks;

	if (!s || n > RS_MAX_KSTACK_DEPTH - DEFER_SHORT - 2 || d == 0 || d >= RS_MAX_FSTACK_DEPTH)
		return 0;
	ancestors_of(s, d, &an);
	ks = s->kstack[slot];
	for (k = 2; k <= DEFER_SHORT; k++) {
		if (k >= cnt)
			return 0;
		a = fexit_ancestor_of(&an, ks[KIDX(n + k)]);
		if (a) {
			chain_wait(s, slot, n + k + 1, d - a);
			return 1;
		}
	}
	return 0;
}

/* the short unwind of rs_fdefer_short: DEFER_SHORT + 1 entries from the
 * site of the function whose exit this is on (trampoline frame w), behind
 * the n kept (a first entry that is not the site turns deferral off, as in
 * fexit_rest); the return site of the untraced caller is learned from it
 * (bpf/ret_sites.bpf.h), read by rs_fdefer_keep the next times */
static __always_inline bool fexit_short(void *ctx, struct session *s, u32 slot, u32 n, u32 d,
					const struct fexit_ret *w)
{
	u64 *ks = s->kstack[slot & 1];
	u64 off = (u64)n * 8;
	s32 sz;
	int found;

	if (d == 0)   /* no traced ancestor to reach */
		return false;
	/* bounded in the register the call uses (see fexit_rest) */
	asm volatile("" : "+r"(off));
	if (off > sizeof(s->kstack[0]) - (DEFER_SHORT + 1) * 8)
		return false;
	sz = bpf_get_stack(ctx, (void *)ks + off, (DEFER_SHORT + 1) * 8,
			   (fexit_skip - 1) & 0xff);   /* BPF_F_SKIP_FIELD_MASK */
	if (sz <= 0)
		return false;
	if (ks[KIDX(off / 8)] != w->site) {
		fexit_defer_off();
		return false;
	}
	found = rs_fdefer_short(s, (slot & 1) | (u32)(off / 8) << 1, d, (u32)sz / 8);
	if (found && sz >= 24 && ks[KIDX(off / 8 + 1)] == w->caller)
		rs_ret_site_learn(w->caller, w->sp, ks[KIDX(off / 8 + 2)]);
	return found;
}

/* the chain of slot kept, with n addresses kept so far, at the exit of
 * frame d (trampoline frame w): rs_fdefer_keep, else a short unwind;
 * false when neither keeps it (the rest of the stack is captured now) */
static __always_inline bool fexit_keep(void *ctx, struct session *s, u32 slot, u32 n, u32 d,
				       const struct fexit_ret *w, bool cast)
{
	int k = fdefer_keep_call(s, slot, n, d, w, cast, 0);

	return k == FKEEP_KEPT || (k == FKEEP_UNWIND && fexit_short(ctx, s, slot, n, d, w));
}

/* slot's chain completed, its stack's bytes sz */
static __always_inline void chain_completed(struct session *s, u32 slot, s32 sz)
{
	s->kstack_sz[slot & 1] = sz;
	s->pend_depth[slot & 1] = -1;
	stat_inc(&stats.stacks_completed);
}

/* the rest of slot's stack behind the n addresses kept, from the site of
 * the function whose exit this is on (trampoline frame w): its return
 * address and what follows read where learned unwinds found them
 * (stack_tails.bpf.h), else unwound */
static __always_inline void fexit_rest(void *ctx, struct session *s, u32 slot, u32 n,
				       const struct fexit_ret *w, bool cast)
{
	u64 *ks = s->kstack[slot & 1];
	u64 off = (u64)n * 8;
	s32 sz, cnt;

	/* bounded in the register the call uses: 6.1's verifier loses a
	 * bound checked before a spill of n */
	asm volatile("" : "+r"(off));
	if (off > sizeof(s->kstack[0]) - 8)
		off = sizeof(s->kstack[0]) - 8;
	n = off / 8;
	cnt = tail_read_call(s, (slot & 1) | (n + 1) << 1, w->caller, w->sp, cast);
	if (cnt) {
		ks[KIDX(n)] = w->site;
		sz = (cnt + 1) * 8;
	} else {
		sz = bpf_get_stack(ctx, (void *)ks + off, sizeof(s->kstack[0]) - off,
				   (fexit_skip - 1) & 0xff);   /* BPF_F_SKIP_FIELD_MASK */
		if (sz <= 0 || ks[KIDX(n)] != w->site)
			fexit_defer_off();
		else if (sz >= 16)
			rs_tail_learn(s, (slot & 1) | (n + 1) << 1, w->caller, (u32)sz / 8 - 1, w->sp);
	}
	chain_completed(s, slot, n * 8 + (sz > 0 ? sz : 0));
}

/* fentry's rs_defer_first: the first failure of a chain at frame d */
static __always_inline void fexit_defer_first(void *ctx, struct session *s, u32 d, u32 id, bool cast)
{
	u32 slot = s->cur & 1;
	struct fexit_ret w = {};   /* read only when fexit_frame found it; set for the verifier (clang may spill it whole) */
	bool fr = fexit_frame(ctx, id, &w, cast);

	if (fr && fexit_skip && fexit_keep(ctx, s, slot, 0, d, &w, cast)) {
		stat_inc(&stats.stacks_deferred);
		return;
	}
	s->pend_depth[slot] = -1;
	s->kstack_sz[slot] = bpf_get_stack(ctx, s->kstack[slot], sizeof(s->kstack[0]), 0);
	if (fr && !fexit_skip)
		fexit_learn_skip(s->kstack[slot], s->kstack_sz[slot], w.site);
}

/* fentry's defer_exit_slot, for a chain that goes on here */
static __always_inline void fexit_defer_slot(void *ctx, struct session *s, u32 d, u32 slot,
					     const struct fexit_ret *w, bool fr, bool cast)
{
	u32 n = s->pend_n[slot & 1];

	/* the entry function's exit (d 0) has no traced ancestor to keep
	 * the chain for: the rest of the stack now */
	if (fr && d && fexit_keep(ctx, s, slot, n, d, w, cast))
		return;
	if (fr) {
		fexit_rest(ctx, s, slot, n, w, cast);
		return;
	}
	/* no trampoline frame to go on from (not expected once one was
	 * read): what was kept is the stack */
	s->pend_depth[slot & 1] = -1;
}

/* fentry's rs_defer_exit (inline: the context cannot be passed to a global
 * function on every kernel) */
static __always_inline void fexit_defer_exit(void *ctx, struct session *s, u32 d, u32 id, bool cast)
{
	bool on0 = chain_goes_on(s, d, 0), on1 = chain_goes_on(s, d, 1);
	struct fexit_ret w = {};   /* read only when fexit_frame found it; set for the verifier (clang may spill it whole) */
	bool fr;

	/* most exits a chain waits through are not its ancestor's: the
	 * trampoline frame is read only at one that continues a chain */
	if (!on0 && !on1)
		return;
	fr = fexit_frame(ctx, id, &w, cast);
	if (on0)
		fexit_defer_slot(ctx, s, d, 0, &w, fr, cast);
	if (on1)
		fexit_defer_slot(ctx, s, d, 1, &w, fr, cast);
}
