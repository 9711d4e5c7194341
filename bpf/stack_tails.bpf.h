/* stack_tails.bpf.h - learned stack tails: the completing capture of
 * bpf/stack_defer.bpf.h without the unwinder, where it is known to give the
 * same frames (included by stack_defer.bpf.h, after ret_sites.bpf.h).
 *
 * A deferred chain is completed at the first exit that returns into no
 * traced ancestor (in a syscall's session, the entry function's own exit):
 * a whole unwind from that return address ip up to the end of the task's
 * stack, about 2,000 instructions for the two or three frames of a syscall
 * entry, three times that through fentry's program and trampoline frames,
 * once per failing session. Those frames are the same at every such exit
 * of the thread's syscalls. At a given return address each frame has one
 * layout (ORC describes it as fixed offsets), so an unwind's frames sit at
 * the same offsets above the stack pointer whenever the same return
 * addresses are found there, up to a frame of variable size: the syscall
 * entry's, whose stack offset the kernel randomizes per syscall
 * (CONFIG_RANDOMIZE_KSTACK_OFFSET). The frames above that one sit at the
 * same offsets below the top of the task's stack instead, that is from
 * its base. Each CPU learns a tail from its real completing unwinds of at
 * most TAIL_MAX frames: the frames and where each lies (found in a scan of
 * the stack words), both from the stack pointer and from the task's stack
 * base; two unwinds that agree on one of the two for every frame tell
 * which. Once TAIL_TRUST unwinds in a row agree, an exit at that return
 * address reads the words where the frames lay instead of unwinding, and
 * uses the tail when every one equals its frame; else the real unwind runs
 * and the tail is learned again. The unwind ends where it did: its last
 * frame is at the same place below the top of the task's stack (or, found
 * from the stack pointer, the stack pointer is as far from the top as it
 * was), and the task's stack is all there is above. A stack pointer off
 * the task's stack (an interrupt's, whose unwind goes on into the
 * interrupted context's frames) is never learned nor read. One read in
 * TAIL_CHECK unwinds anyway, and a disagreeing unwind takes the trust
 * away. */

#define TAIL_BITS 6          /* per CPU: 64 tails, by a hash of the return address */
#define TAIL_MAX 6           /* frames of a tail, the return address included */
#define TAIL_TRUST 2         /* agreeing unwinds before the words are read */
#define TAIL_CHECK 64        /* one read in TAIL_CHECK is an unwind instead (a power of 2) */
#define TAIL_STACK 16384     /* the smallest x86-64 task stack: a stack pointer as far
			      * above the task's stack base or further is not on it */

struct stack_tail {
	u64 ip;              /* the return address the tail starts at: f[0] */
	u64 f[TAIL_MAX];     /* the frames */
	u16 off[TAIL_MAX];   /* f[i] (i > 0) was at sp + off[i] (sp: after the return) */
	u16 pos[TAIL_MAX];   /* and at the task's stack base + pos[i] */
	u16 depth;           /* sp - the task's stack base, when last learned */
	u16 from_base;       /* bit i: f[i] is found from the base (pos), else from sp */
	u32 n;               /* frames */
	u32 seen;            /* unwinds in a row that agreed */
	u32 uses;            /* reads since it was learned */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1 << TAIL_BITS);
	__type(key, u32);
	__type(value, struct stack_tail);
} stack_tails SEC(".maps");

static __always_inline struct stack_tail *tail_of(u64 ip)
{
	u32 k = RS_IPC_SLOT(ip, TAIL_BITS);

	return bpf_map_lookup_elem(&stack_tails, &k);
}

/* the current task's stack base */
static __always_inline u64 task_stack_base(void)
{
	return (u64)bpf_get_current_task_btf()->stack;
}

/* slot_n: (the slot of s->kstack) | (n << 1), and TAIL_FIRST for a read
 * whose 0 is followed by a second one (fexit_fail's at the session's
 * end, then fexit_rest's, which unwinds): the read a check unwind is due
 * at is left uncounted there, so that the second read is the one that
 * answers 0 and the unwind comes. The frames of the stack at a return to
 * ip (sp after it), from a trusted learned tail, into the slot's kstack
 * from entry n on; returns how many (0: unknown, unwind). cast: how the
 * words are read (bpf/kword.bpf.h) */
#define TAIL_FIRST 0x8000u

static __always_inline int tail_read(struct session *s, u32 slot_n, u64 ip, u64 sp, bool cast)
{
	u32 slot = slot_n & 1, n = (slot_n >> 1) & 0x3fff, i, last;
	struct stack_tail *t = tail_of(ip);
	u64 base = task_stack_base(), v, *ks;

	if (!s || !t || t->ip != ip || t->seen < TAIL_TRUST || t->n < 2 || t->n > TAIL_MAX ||
	    n + t->n > RS_MAX_KSTACK_DEPTH || sp - base >= TAIL_STACK)
		return 0;
	/* the end found from sp: as far from the top as it was */
	last = t->n - 1;
	if (!(t->from_base & (1u << last)) && sp - base != t->depth)
		return 0;
	if (!((t->uses + 1) & (TAIL_CHECK - 1))) {
		if (!(slot_n & TAIL_FIRST))
			t->uses++;
		return 0;   /* checked by a real unwind (rs_tail_learn) */
	}
	t->uses++;
	for (i = 1; i < TAIL_MAX && i < t->n; i++) {
		v = kword(t->from_base & (1u << i) ? base + t->pos[i] : sp + t->off[i], cast);
		if (v != t->f[i]) {
			t->seen = 0;   /* not as learned: unwind, and learn again */
			return 0;
		}
	}
	ks = s->kstack[slot];
	for (i = 0; i < TAIL_MAX && i < t->n; i++)
		ks[KIDX(n + i)] = t->f[i];
	stat_inc(&stats.tails_read);
	return t->n;
}

/* tail_read as BPF global functions (verified once): through the helper,
 * and for the kprobe.session program through bpf_rdonly_cast */
__noinline int rs_tail_read(struct session *s, u32 slot_n, u64 ip, u64 sp)
{
	return tail_read(s, slot_n, ip, sp, false);
}

__noinline int rs_tail_read_cast(struct session *s, u32 slot_n, u64 ip, u64 sp)
{
	return tail_read(s, slot_n, ip, sp, true);
}

/* the one of the two that cast (a constant in each caller) names */
static __always_inline int tail_read_call(struct session *s, u32 slot_n, u64 ip, u64 sp, bool cast)
{
	return cast ? rs_tail_read_cast(s, slot_n, ip, sp) : rs_tail_read(s, slot_n, ip, sp);
}

/* rs_tail_learn's scan: the stack words looked through once, upwards, for
 * the frames in order, each above the one before it (a bpf_loop callback:
 * verified once, where a loop in a loop is verified for every word a
 * frame may be found at) */
struct tail_find {
	const struct stack_scan *b;
	u64 f[TAIL_MAX];
	u16 off[TAIL_MAX];
	u32 i;       /* the frame looked for */
	u32 cnt;     /* frames */
};

static long tail_find_word(u64 w, void *data)
{
	struct tail_find *c = data;
	u32 i = c->i;

	if (i >= TAIL_MAX || i >= c->cnt || w >= STACK_SCAN)
		return 1;
	if (c->b->w[w] != c->f[i])
		return 0;
	c->off[i] = w * 8;
	c->i = i + 1;
	return c->i >= c->cnt;
}

/* a real unwind of cnt frames from a return to ip (sp after it) is in the
 * slot's kstack from entry n on (slot_n as for rs_tail_read), ending where
 * the stack does (not cut short by the buffer): where its frames lie on
 * the stack, learned (or confirmed) */
__noinline int rs_tail_learn(struct session *s, u32 slot_n, u64 ip, u32 cnt, u64 sp)
{
	u32 slot = slot_n & 1, n = slot_n >> 1, zero = 0, i, fb;
	struct tail_find c = { .i = 1, .cnt = cnt };
	struct stack_tail *t;
	struct stack_scan *b;
	u64 depth, len, *ks;

	if (!s || cnt < 2 || cnt > TAIL_MAX || n + cnt >= RS_MAX_KSTACK_DEPTH)
		return 0;
	depth = sp - task_stack_base();
	if (depth >= TAIL_STACK)
		return 0;
	b = bpf_map_lookup_elem(&stack_scan_buf, &zero);
	if (!b)
		return 0;
	/* the words from sp up to the top of the stack (at most), bounded in
	 * the register the call uses (6.1's verifier loses a bound checked
	 * before a spill) */
	len = TAIL_STACK - depth;
	asm volatile("" : "+r"(len));
	if (len > sizeof(b->w))
		len = sizeof(b->w);
	if (!len || bpf_probe_read_kernel(b->w, len, (void *)sp))
		return 0;
	ks = s->kstack[slot];
	for (i = 0; i < TAIL_MAX; i++)
		if (i < cnt)
			c.f[i] = ks[KIDX(n + i)];
	if (c.f[0] != ip)
		return 0;
	c.b = b;
	bpf_loop(len / 8, tail_find_word, &c, 0);
	if (c.i < cnt)
		return 0;   /* a frame not found */
	t = tail_of(ip);
	if (!t)
		return 0;
	/* the same frames: each where it was, from sp or (the stack offset
	 * changed below it) from the base */
	fb = t->from_base;
	if (t->ip == ip && t->n == cnt) {
		for (i = 1; i < TAIL_MAX; i++) {
			if (i >= cnt) {
				i = TAIL_MAX;
				break;
			}
			if (t->f[i] != c.f[i])
				break;
			if (!(fb & (1u << i)) && t->off[i] == c.off[i])
				continue;
			if (t->pos[i] != (u16)(depth + c.off[i]))
				break;
			fb |= 1u << i;
		}
		if (i == TAIL_MAX) {
			if (t->seen < TAIL_TRUST)
				t->seen++;
			t->from_base = fb;
			goto store;
		}
	}
	t->ip = ip;
	t->n = cnt;
	t->from_base = 0;
	t->seen = 1;
	t->uses = 0;
store:
	t->depth = depth;
	for (i = 0; i < TAIL_MAX; i++) {
		t->f[i] = c.f[i];
		t->off[i] = c.off[i];
		t->pos[i] = depth + c.off[i];
	}
	return 0;
}
