/* stack_defer.bpf.h - the kernel stack of an error chain's deepest failing
 * call, captured in two parts when the error is likely to be swallowed
 * (included by retsnoop.bpf.c; the recorder fills func_ranges).
 *
 * A capture unwinds every frame up to the syscall entry: about 7k
 * instructions through kprobes, 25k through fexit trampolines. Most errors
 * of a succeeding syscall are swallowed by the failing call's traced parent
 * (a NULL lookup result, an -EAGAIN retried), and then nobody reads that
 * stack. So when a call fails first in its chain and its function's last
 * first failure was swallowed (err_prop), only the frames up to the parent's
 * call site are captured (a short unwind, stopped by the buffer size); the
 * rest is captured at the parent's exit if the chain can still be shown
 * then, and appended: the same stack as one capture at the failing call
 * (through fexit, only the parent's trampoline frame has another address
 * in the same trampoline; the stack view filters those frames). If the
 * parent's call site is not among the short part, the whole stack is
 * captured at once, as without deferral. Opt-in (-C bpf.defer-stacks):
 * through kprobes a capture's fixed cost dominates and this costs more than
 * it saves; through fexit, where captures cost most, the recorder keeps it
 * off for now (record/attach.c): it multiplied each clone's verification. */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);           /* nr_funcs (recorder) */
	__type(key, u32);
	__type(value, struct rs_func_range);
} func_ranges SEC(".maps");

/* per (traced parent id << 32 | failing function id): did the last error
 * chain starting there go on through the ancestor its stack was cut at (1)
 * or was it swallowed there (0; absent: 0)? A guess that only decides
 * which capture is cheaper, never what is recorded */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, u64);
	__type(value, u8);
} err_prop SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, u64[RS_MAX_KSTACK_DEPTH]);
} kstack_scratch SEC(".maps");

/* the fentry call at a function's start: its return address is within */
#define DEFER_FENTRY_RET_MAX 0x10

static __always_inline s32 full_capture(void *ctx, struct session *s, u32 slot)
{
	slot &= 1;
	return bpf_get_stack(ctx, s->kstack[slot], sizeof(s->kstack[0]), 0);
}

#define DEFER_ANCESTORS 3   /* traced ancestors looked for in a short part */

/* where slot's stack (sz bytes) may be cut: the first of its first
 * defer_frames entries inside one of the failing call's (frame d) nearest
 * DEFER_ANCESTORS traced ancestors. Returns how many entries to keep (0:
 * none found) and that ancestor's frame in *anc. Through fexit, an
 * ancestor's own fentry return (a tail call left no call site in it) is
 * cut before its trampoline frame: the completion brings both. */
static __always_inline u32 defer_cut(struct session *s, u32 slot, s32 sz, u32 d, u32 *anc)
{
	struct rs_func_range *r[DEFER_ANCESTORS] = {};
	u32 k, a;

	for (a = 0; a < DEFER_ANCESTORS; a++) {
		u32 f;

		if (a >= d)
			break;
		f = s->frames[FIDX(d - 1 - a)].func_id;
		r[a] = bpf_map_lookup_elem(&func_ranges, &f);
	}
	for (k = 0; k < RS_DEFER_MAX_FRAMES; k++) {
		u64 ip;

		if (k >= defer_frames || (s32)(k * 8) >= sz)
			break;
		ip = s->kstack[slot & 1][k & (RS_DEFER_MAX_FRAMES - 1)];
		for (a = 0; a < DEFER_ANCESTORS; a++) {
			struct rs_func_range *x = r[a];

			if (!x || !x->end || ip < x->start || ip >= x->end)
				continue;
			*anc = d - 1 - a;
			if (fentry_mode && ip <= x->start + DEFER_FENTRY_RET_MAX)
				return k >= 2 ? k - 1 : 0;
			return k + 1;
		}
	}
	return 0;
}

/* the first failure of a chain at frame d (function id): its stack into
 * slot, whole or up to an ancestor's call site (completed by
 * defer_parent_exit at that ancestor's exit) */
static __always_inline void defer_first_failure(void *ctx, struct session *s, u32 d, u32 id)
{
	u32 slot = s->cur & 1, anc = 0, n;
	bool whole;
	u64 key;
	s32 sz;
	u8 *prop;

	s->pend_depth[slot] = -1;
	if (!defer_stacks || d == 0 || d >= RS_MAX_FSTACK_DEPTH) {
		s->kstack_sz[slot] = full_capture(ctx, s, slot);
		return;
	}
	key = ((u64)s->frames[FIDX(d - 1)].func_id << 32) | id;
	prop = bpf_map_lookup_elem(&err_prop, &key);
	s->pend_key[slot] = key;
	s->pend_n[slot] = 0;
	/* it went on last time: whole, and where it would have been cut, to
	 * learn whether it goes on again; else the short part */
	whole = prop && *prop;
	sz = whole ? full_capture(ctx, s, slot) :
		     bpf_get_stack(ctx, s->kstack[slot], defer_frames * 8, 0);
	n = defer_cut(s, slot, sz, d, &anc);
	if (n)
		s->pend_depth[slot] = anc;
	if (whole || !n) {   /* whole, or no ancestor near: all of it now */
		s->kstack_sz[slot] = whole ? sz : full_capture(ctx, s, slot);
		return;
	}
	s->pend_n[slot] = n;
	s->kstack_sz[slot] = n * 8;
	stat_inc(&stats.stacks_deferred);
}

/* the rest of slot's stack, from the exit of the function at frame d (id):
 * appended after the pend_n frames already there */
static __always_inline void defer_complete(void *ctx, struct session *s, u32 slot, u32 id)
{
	u32 zero = 0, n = s->pend_n[slot & 1] & (RS_DEFER_MAX_FRAMES - 1), from = 0, k, cnt;
	struct rs_func_range *r;
	u64 *buf;
	s32 sz;

	slot &= 1;
	if (!fentry_mode) {
		sz = bpf_get_stack(ctx, (void *)s->kstack[slot] + n * 8, sizeof(s->kstack[0]) - n * 8, 0);
		s->kstack_sz[slot] = n * 8 + (sz > 0 ? sz : 0);
		return;
	}
	/* fexit: the stack starts in this program and the exiting function's
	 * trampoline, then its fentry call's return (start + 5 or 9): keep
	 * from the trampoline frame, which the short part lacks */
	buf = bpf_map_lookup_elem(&kstack_scratch, &zero);
	r = bpf_map_lookup_elem(&func_ranges, &id);
	if (!buf || !r) {
		s->kstack_sz[slot] = n * 8;
		return;
	}
	sz = bpf_get_stack(ctx, buf, sizeof(s->kstack[0]), 0);
	cnt = sz > 0 ? (u32)sz / 8 : 0;
	for (k = 1; k < RS_DEFER_MAX_FRAMES; k++) {   /* within the first few */
		u64 ip;

		if (k >= cnt)
			break;
		ip = buf[k];
		if (ip > r->start && ip <= r->start + DEFER_FENTRY_RET_MAX) {
			from = k - 1;
			break;
		}
	}
	if (cnt > from + RS_MAX_KSTACK_DEPTH - n)
		cnt = from + RS_MAX_KSTACK_DEPTH - n;
	k = cnt > from ? cnt - from : 0;
	if (k > RS_MAX_KSTACK_DEPTH)
		k = RS_MAX_KSTACK_DEPTH;
	from &= RS_MAX_KSTACK_DEPTH * 2 - 1;
	if (from >= RS_MAX_KSTACK_DEPTH)
		from = 0;
	bpf_probe_read_kernel((void *)s->kstack[slot] + n * 8, k * 8, (void *)buf + from * 8);
	s->kstack_sz[slot] = (n + k) * 8;
}

/* the exit of the function at frame d (id), after its result updated
 * is_err; went_on: it failed too (the error went on through it): completes
 * (or lets go) the stacks waiting for it */
static __always_inline void defer_parent_exit(void *ctx, struct session *s, u32 d, u32 id,
					      bool went_on)
{
	for (u32 slot = 0; slot < 2; slot++) {
		s32 pd = s->pend_depth[slot];
		bool cur = slot == (s->cur & 1u);

		if (pd < 0 || (u32)pd < d)
			continue;
		s->pend_depth[slot] = -1;
		if ((u32)pd == d) {   /* learn: did the chain go on? */
			u64 key = s->pend_key[slot];
			u8 *prop = bpf_map_lookup_elem(&err_prop, &key);
			u8 v = went_on;

			if (prop ? *prop != v : v)
				bpf_map_update_elem(&err_prop, &key, &v, BPF_ANY);
		}
		if (!s->pend_n[slot])
			continue;
		/* the current chain ended here: its stack is never read (a
		 * saved one may still be stitched to this call: completed) */
		if (cur && !s->is_err) {
			s->kstack_sz[slot] = 0;
			continue;
		}
		defer_complete(ctx, s, slot, id);
		stat_inc(&stats.stacks_completed);
	}
}
