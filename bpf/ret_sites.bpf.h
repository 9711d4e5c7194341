/* ret_sites.bpf.h - learned return sites in untraced code: the short unwind
 * of bpf/stack_defer.bpf.h without the unwinder, where it is known to give
 * the same answer (included by stack_defer.bpf.h).
 *
 * A deferred chain that returns to ip inside an untraced function U needs
 * U's own return address, normally from a short unwind (bpf_get_stack: the
 * perf callchain set-up and an ORC step, about 2,000 instructions, three
 * times that through fentry's program and trampoline frames). At a given
 * return address U's frame has one layout (ORC describes it as a fixed
 * offset from the stack pointer), so U's return address is always the word
 * at the same offset above the stack pointer after the return. Each CPU
 * learns that offset from its real short unwinds (the word equal to the
 * return address they found) and, once RET_TRUST in a row agree, reads the
 * word instead of unwinding. The word is used only when it is the return
 * site of a direct call to the function the learned one called (an E8
 * rel32 right before it with the same target: U's entry) and, as an
 * unwound one, when it lies in a traced ancestor's code; else the real
 * unwind runs and the site is learned again. One use in RET_CHECK unwinds
 * anyway, and a disagreeing unwind takes the trust away: a frame whose
 * layout does vary (ORC's frame-pointer-based ones, rare in the kernel) is
 * not read for long. */

#define RET_SITES_BITS 9    /* per CPU: 512 sites, by a hash of the address */
#define RET_SCAN 64         /* stack words searched when learning */
#define RET_TRUST 2         /* agreeing unwinds before the word is read */
#define RET_CHECK 64        /* one read in RET_CHECK is an unwind instead (a power of 2) */

struct ret_site {
	u64 ip;          /* the return address in U */
	u64 u_entry;     /* the target of the direct call that U's return address follows */
	u32 off;         /* U's return address at sp + off (sp: after the return to ip) */
	u32 seen;        /* unwinds in a row that agreed */
	u32 uses;        /* reads since it was learned */
	u32 _pad;
	u64 ok_ret;      /* the last word read that call_target checked: the same
			  * word again needs no second read of the code */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1 << RET_SITES_BITS);
	__type(key, u32);
	__type(value, struct ret_site);
} ret_sites SEC(".maps");

/* the stack words a learning unwind is searched in: this header's
 * RET_SCAN first ones, and stack_tails.bpf.h's up to STACK_SCAN (the
 * randomized syscall entry offset is up to 1 KiB), one buffer per CPU */
#define STACK_SCAN 256

struct stack_scan {
	u64 w[STACK_SCAN];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct stack_scan);
} stack_scan_buf SEC(".maps");

static __always_inline struct ret_site *ret_site_of(u64 ip)
{
	u32 k = RS_IPC_SLOT(ip, RET_SITES_BITS);

	return bpf_map_lookup_elem(&ret_sites, &k);
}

/* the target of the direct call (E8 rel32) whose return address is ret,
 * 0 for any other instruction before it */
static __always_inline u64 call_target(u64 ret)
{
	u64 w = 0;

	if (bpf_probe_read_kernel(&w, sizeof(w), (void *)(ret - 8)))
		return 0;
	if (((w >> 24) & 0xff) != 0xe8)
		return 0;
	return ret + (s64)(s32)(w >> 32);
}

/* U's return address for a return to ip with sp the stack pointer after
 * it, from a trusted learned site; 0: unknown (unwind). cast: how the word
 * is read (bpf/kword.bpf.h) */
static __always_inline u64 ret_site_read(u64 ip, u64 sp, bool cast)
{
	struct ret_site *r = ret_site_of(ip);
	u64 ret;

	if (!r || r->ip != ip || r->seen < RET_TRUST || r->off >= RET_SCAN * 8)
		return 0;
	if (!(++r->uses & (RET_CHECK - 1)))
		return 0;   /* checked by a real unwind (rs_ret_site_learn) */
	ret = kword(sp + r->off, cast);
	if (!ret || (ret != r->ok_ret && call_target(ret) != r->u_entry)) {
		r->seen = 0;   /* not as learned: unwind, and learn again */
		return 0;
	}
	r->ok_ret = ret;
	stat_inc(&stats.stacks_read);
	return ret;
}

/* ret_site_read as BPF global functions (verified once): through the
 * helper, and for the kprobe.session program through bpf_rdonly_cast */
__noinline u64 rs_ret_site_read(u64 ip, u64 sp)
{
	return ret_site_read(ip, sp, false);
}

__noinline u64 rs_ret_site_read_cast(u64 ip, u64 sp)
{
	return ret_site_read(ip, sp, true);
}

/* the one of the two that cast (a constant in each caller) names */
static __always_inline u64 ret_site_read_call(u64 ip, u64 sp, bool cast)
{
	return cast ? rs_ret_site_read_cast(ip, sp) : rs_ret_site_read(ip, sp);
}

/* a real short unwind of a return to ip (sp after it) found U's return
 * address ret: where it lies on the stack, learned (or confirmed) */
__noinline int rs_ret_site_learn(u64 ip, u64 sp, u64 ret)
{
	struct ret_site *r = ret_site_of(ip);
	struct stack_scan *b;
	u32 zero = 0, i, off;
	u64 tgt;

	b = bpf_map_lookup_elem(&stack_scan_buf, &zero);
	if (!r || !b || !ret)
		return 0;
	tgt = call_target(ret);
	if (!tgt || bpf_probe_read_kernel(b->w, RET_SCAN * sizeof(b->w[0]), (void *)sp))
		return 0;
	for (i = 0; i < RET_SCAN; i++)
		if (b->w[i] == ret)
			break;
	if (i >= RET_SCAN)
		return 0;
	off = i * 8;
	if (r->ip == ip && r->off == off && r->u_entry == tgt) {
		if (r->seen < RET_TRUST)
			r->seen++;
		return 0;
	}
	r->ip = ip;
	r->u_entry = tgt;
	r->off = off;
	r->seen = 1;
	r->uses = 0;
	r->ok_ret = 0;
	return 0;
}
