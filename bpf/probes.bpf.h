/* probes.bpf.h - injected probes (-J): one program per probe kind
 * (kprobe and kretprobe share one, raw tracepoint, classic tracepoint),
 * each attached once per probe with the probe's cookie
 * (bpf/probe_cookie.h). A hit counts only in a thread that has a
 * session: it takes the session's next sequence id (so it orders with the
 * -T records), emits an RS_REC_PROBE record with -T (its context copied
 * into data[] with -A) and an interim snapshot of the session with -I.
 * Included by retsnoop.bpf.c after the session logic. */
#include "probe_cookie.h"

const volatile bool probe_ctx = false;   /* -A: copy each hit's context */
#ifdef RS_LEAN   /* bpf/lean_knobs.h */
#define probe_ctx RS_LEAN_probe_ctx
#endif

/* a record with the largest context, built here and copied out at its
 * real size (ring buffer reservations must be of a constant size); room
 * for what the verifier allows after ctx_bound's mask, and the padding */
#define PROBE_CTX_MASK 0x3fff   /* the power of two above RS_PROBE_CTX_MAX, minus 1 */
_Static_assert(RS_PROBE_CTX_MAX <= PROBE_CTX_MASK, "PROBE_CTX_MASK too small");
struct probe_buf {
	u8 b[sizeof(struct rs_rec_probe) + PROBE_CTX_MASK + 8];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct probe_buf);
} probe_scratch SEC(".maps");

static __always_inline void probe_fill(struct rs_rec_probe *r, struct session *s, u64 cookie,
				       u32 seq_id, u64 now)
{
	r->hdr.type = RS_REC_PROBE;
	r->hdr.size = sizeof(*r);
	r->sess_id = s->sess_id;
	r->ts = now;
	r->seq_id = seq_id;
	r->probe_id = RS_PROBE_COOKIE_ID(cookie);
	r->depth = s->depth;
	r->flags = 0;
	r->ctx_len = 0;
}

/* N cut to RS_PROBE_CTX_MAX; the mask (a no-op by then) is what the
 * verifier sees bound it: the empty asm hides the cut from clang, which
 * would otherwise hand the helper a copy of N from before it */
static __always_inline u32 ctx_bound(u32 n)
{
	if (n > RS_PROBE_CTX_MAX)
		n = RS_PROBE_CTX_MAX;
	asm volatile("" : "+r"(n));
	return n & PROBE_CTX_MASK;
}

/* -A: the context's bytes (want of them, or min when that faults) */
static __always_inline void probe_emit_ctx(void *ctx, struct session *s, u64 cookie, u32 seq_id,
					   u64 now)
{
	struct probe_buf *b;
	struct rs_rec_probe *r;
	u32 zero = 0, len, size;
	long err;

	b = bpf_map_lookup_elem(&probe_scratch, &zero);
	if (!b)
		return;
	r = (void *)b->b;
	probe_fill(r, s, cookie, seq_id, now);
	len = ctx_bound(RS_PROBE_COOKIE_WANT(cookie));
	err = bpf_probe_read_kernel(r->data, len, ctx);
	if (err) {
		len = ctx_bound(RS_PROBE_COOKIE_MIN(cookie));
		err = bpf_probe_read_kernel(r->data, len, ctx);
	}
	if (err) {
		r->flags = RS_PROBEF_CTX_ERR;
		r->ctx_len = (s32)err;
		len = 0;
	} else {
		r->flags = RS_PROBEF_CTX | (RS_PROBE_COOKIE_TRUNC(cookie) ? RS_PROBEF_TRUNC : 0);
		r->ctx_len = (s32)len;
	}
	/* RS_REC_ALIGN, spelled so that the verifier keeps the bound */
	size = (u32)sizeof(*r) + len + ((8 - (len & 7)) & 7);
	r->hdr.size = size;
	if (bpf_ringbuf_output(&rb, r, size, BPF_RB_NO_WAKEUP))
		records_lost(s, 1);
}

static __always_inline void probe_emit(void *ctx, struct session *s, u64 cookie, u32 seq_id,
				       u64 now)
{
	struct rs_rec_probe *r;

	if (probe_ctx && RS_PROBE_COOKIE_WANT(cookie)) {
		probe_emit_ctx(ctx, s, cookie, seq_id, now);
		return;
	}
	r = bpf_ringbuf_reserve(&rb, sizeof(*r), 0);
	if (!r) {
		records_lost(s, 1);
		return;
	}
	probe_fill(r, s, cookie, seq_id, now);
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
}

static __always_inline void handle_probe(void *ctx, u64 cookie)
{
	struct cpu_state *c;
	struct session *s;
	u64 now;
	u32 seq_id, *ts = NULL;
	bool latest;

	/* no ready test: a hit counts only inside an open session, and those
	 * open only while ready (handle_entry). fentry: not inside our own
	 * handler on this CPU (see guard_enter) */
	c = fentry_mode ? guard_enter() : cpu_state_get();
	if (!c)
		return;
	s = session_find(c, bpf_get_current_task(), &ts, &latest);
	if (s && !s->defunct && s->depth) {
		now = bpf_ktime_get_ns();
		seq_id = s->next_seq_id++;
		if (emit_trace) {
			rs_trace_flush(s);   /* the session's records in order */
			probe_emit(ctx, s, cookie, seq_id, now);
		}
		if (emit_interim)
			submit_session(ctx, s, RS_SESS_INTERIM | RS_SUBMIT_PROBE, now);
	}
	if (fentry_mode)
		guard_exit(c);
}

/* kprobe:NAME[+OFF] and kretprobe:NAME (attached with retprobe set) */
SEC("kprobe")
int rs_probe_kprobe(struct pt_regs *ctx)
{
	handle_probe(ctx, bpf_get_attach_cookie(ctx));
	return 0;
}

/* rawtp:NAME; the cookie needs Linux 6.10+ */
SEC("raw_tp")
int rs_probe_rawtp(void *ctx)
{
	handle_probe(ctx, bpf_get_attach_cookie(ctx));
	return 0;
}

/* tp:CATEGORY:NAME; ctx is the raw trace event record */
SEC("tp")
int rs_probe_tp(void *ctx)
{
	handle_probe(ctx, bpf_get_attach_cookie(ctx));
	return 0;
}
