// SPDX-License-Identifier: GPL-2.0
/* retsnoop.bpf.c - the kernel side: entry/exit handlers for every traced
 * function (kprobe.multi, kprobe/kretprobe or fentry/fexit front ends), the
 * per-thread session state machine with its shadow call stack, the error
 * heuristic, kernel stack capture and record emission (bpf/retsnoop_abi.h). */
#include "kernel_types.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "retsnoop_abi.h"
#include "comm_glob.h"
#include "lean_knobs.h"

char LICENSE[] SEC("license") = "GPL";

/* knobs set by the recorder before load */
const volatile bool emit_success = false;   /* -S: success sessions too */
const volatile bool success_stacks = false; /* and their kernel stacks: with the call-stack
					     * view only (-T alone: trace view, no stack) */
const volatile bool emit_trace = false;     /* -T: entry/exit records */
const volatile bool emit_interim = false;   /* -I */
const volatile bool use_lbr = false;        /* -B */
const volatile bool filter_tgid = false;    /* -p / -- CMD */
const volatile bool deny_tgid = false;      /* -P */
const volatile __u32 self_tgid = 0;         /* the recorder's own process, never traced
					     * (its output writes and file opens would be
					     * sessions, -S a loop); 0: -p names it */
const volatile bool filter_comm = false;    /* -n (names and globs) */
const volatile bool deny_comm = false;      /* -N (names and globs) */
const volatile bool fentry_mode = false;
const volatile __u64 duration_ns = 0;         /* -L */
const volatile __u32 nr_funcs = 1;
const volatile __u32 max_fstack_depth = RS_MAX_FSTACK_DEPTH;   /* -C bpf.max-depth */
const volatile bool defer_stacks = false;    /* bpf/stack_defer.bpf.h */
const volatile __u32 ipc_bits = 1;            /* ip_cookies has 1 << ipc_bits slots */
const volatile __u32 ipc_mask = 1;            /* (1 << ipc_bits) - 1 */
const volatile __u32 ipc_shift = 63;          /* 64 - ipc_bits: RS_IPC_SLOT's shift */
const volatile __u64 wake_bytes = 1;          /* wake the reader early past this much data */
const volatile bool lean_calls = false;      /* none of -A, -I, -S, -B: a call inside a
					      * session only pushes and pops its frame,
					      * and with -T adds its trace entries
					      * (fast_entry, fast_exit) */

/* the lean object's constants in their place (bpf/lean_knobs.h); the
 * values above stay, unread, for the common .rodata layout */
#ifdef RS_LEAN
#define emit_success RS_LEAN_emit_success
#define success_stacks RS_LEAN_success_stacks
#define emit_trace RS_LEAN_emit_trace
#define emit_interim RS_LEAN_emit_interim
#define use_lbr RS_LEAN_use_lbr
#define lean_calls RS_LEAN_lean_calls
#define defer_stacks RS_LEAN_defer_stacks
#define max_fstack_depth RS_LEAN_max_fstack_depth
#endif

bool ready = false;   /* new sessions open (tracer_start to tracer_stop) */
struct rs_bpf_stats stats = {};

/* the fixed part of a SESSION_END record: frames[nframes] and the kernel
 * stack's kstack_sz bytes follow it (the compact layout, docs/format.md) */
#define END_FIXED __builtin_offsetof(struct rs_rec_session_end, frames)

/* a session's state, in a slot of the sess_slots array from its entry
 * function's entry to its exit (reset in place when a slot is reused), so a
 * session costs no map insert or delete; a call finds it through the
 * per-CPU cache (struct cpu_state), else the thread's task storage */
struct session {
	u64 owner;                   /* the task (bpf_get_current_task) whose open
				      * session this is; 0 once closed */
	u64 stack;                   /* and that task's stack base (0 once closed):
				      * the fentry programs' check (session_on_stack) */
	u32 slot;                    /* this slot's index */
	s32 slow_at;                 /* the deepest frame whose exit a chain
				      * waits for (pend_depth, saved_depth - 2;
				      * hold_sync), at least 0 (the entry
				      * function's), the largest s32 while
				      * overflow_depth; the exits of it and of
				      * shallower frames take handle_exit (32
				      * bits, as pend_depth: no sign extension
				      * at each compare) */
	u32 depth_lim;               /* a nested entry's depth below it takes
				      * fast_entry: max_fstack_depth, 0 while
				      * overflow_depth (overflow_sync) */
	u32 next_seq_id;
	u32 dropped_records;
	u32 overflow_calls;
	u32 overflow_depth;          /* untracked nested calls currently running */
	u16 depth, max_depth;
	bool is_err, defunct, start_emitted, counted_incomplete;
	u8 cur;                      /* slot of kstack[]/sess_lbrs of the current chain;
				      * cur ^ 1 holds the saved deeper chain's */
	/* saved deeper error chain for stitching: frames [saved_depth - 1,
	 * saved_max_depth) of saved_frames, kernel stack/LBRs in slot cur ^ 1 */
	u16 saved_depth, saved_max_depth;
	u32 saved_last_seq_id;
	s32 kstack_sz[3];            /* [2]: an injected probe's hit (-J -I) */
	s32 pend_depth[2];           /* stack_defer.bpf.h, per slot: the frame whose exit */
	u16 pend_n[2];               /* continues the pend_n return addresses kept */
	s32 lbrs_sz[2];
	u32 tb_n;                    /* -T: entries waiting in the slot's sess_tb */
	/* the final SESSION_END is built in place: its fixed part here, the
	 * frames right after it, the kernel stack copied behind the frames
	 * (over saved_frames when long), then sent as one copy */
	union {
		u64 end_head[END_FIXED / 8];
		/* the session's fields its SESSION_END carries as they are:
		 * kept in place, set once (session_open, handle_entry) */
		struct {
			struct rs_rec_hdr end_hdr_;
			u64 sess_id;
			u32 tid, pid;
			u64 start_ts;
			u64 end_ts_;
			char task_comm[RS_TASK_COMM_LEN];
			char proc_comm[RS_TASK_COMM_LEN];
		};
	};
	struct rs_frame frames[RS_MAX_FSTACK_DEPTH];
	struct rs_frame saved_frames[RS_MAX_FSTACK_DEPTH];
	u64 kstack[3][RS_MAX_KSTACK_DEPTH];
};

_Static_assert(__builtin_offsetof(struct session, frames) -
	       __builtin_offsetof(struct session, end_head) == END_FIXED,
	       "a session's frames directly follow its SESSION_END head");
#define END_IN_PLACE(f) \
	_Static_assert(__builtin_offsetof(struct session, f) - __builtin_offsetof(struct session, end_head) == \
		       __builtin_offsetof(struct rs_rec_session_end, f), "a session's " #f " is its SESSION_END's")
END_IN_PLACE(sess_id);
END_IN_PLACE(tid);
END_IN_PLACE(pid);
END_IN_PLACE(start_ts);
END_IN_PLACE(task_comm);
END_IN_PLACE(proc_comm);

_Static_assert(__builtin_offsetof(struct session, saved_frames) ==
	       __builtin_offsetof(struct session, frames) + sizeof(((struct session *)0)->frames) &&
	       sizeof(((struct session *)0)->saved_frames) >= sizeof(((struct session *)0)->kstack[0]),
	       "the longest kernel stack fits behind the frames, over saved_frames");

/* the saved_frames entry of the frames entry f: one index computed for
 * both (the arrays are the same size, one after the other) */
#define saved_of(f) ((struct rs_frame *)((void *)(f) + sizeof(((struct session *)0)->frames)))

/* keeps the verifier convinced a frame index is in bounds (callers check
 * d < RS_MAX_FSTACK_DEPTH first; the depth is a power of two) */
static __always_inline u32 FIDX(u32 d)
{
	/* the empty asm hides d's known range from clang, so the mask is
	 * really emitted and the verifier sees it */
	asm volatile("" : "+r"(d));
	return d & (RS_MAX_FSTACK_DEPTH - 1);
}

/* the open sessions: one slot each, -C bpf.sessions-size of them and one
 * per CPU (the recorder sizes both maps and puts every slot in
 * free_slots); a slot is taken at a session's start (the CPU's spare, else
 * from free_slots) and given back at its end (as the CPU's spare if it has
 * none: at most one per CPU is set aside, so sessions-size of them can
 * always be open). No slot left: the session is not traced
 * (stats.sessions_table_full) */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct session);
} sess_slots SEC(".maps");

/* the parts of a session only -T and -B use, by its slot: their maps have
 * one entry unless the mode uses them. -T's is the TRACE_BATCH record
 * itself, its header before the entries, so that it goes into the ring
 * buffer as one copy of the bytes it has */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct rs_rec_trace_batch);
} sess_tb SEC(".maps");

struct lbr_slots {
	struct rs_lbr_entry e[2][RS_MAX_LBR_ENTRIES];   /* per kstack slot (session.cur) */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct lbr_slots);
} sess_lbrs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_QUEUE);
	__uint(max_entries, 1);
	__type(value, u32);
} free_slots SEC(".maps");

/* a thread's slot + 1 (0: none yet); stale once its session has closed
 * (the slot's owner says so) */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, u32);
} task_slot SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 * 1024 * 1024);  /* resized by the recorder */
} rb SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);           /* kprobe.multi: 1 << ipc_bits (recorder) */
	__type(key, u32);
	__type(value, struct rs_ip_cookie);
} ip_cookies SEC(".maps");

/* the same table where it is small (ipc_bits <= RS_IPC_DIRECT_BITS):
 * global data, addressed from the slot number (no lookup: the slot is
 * below 1 << ipc_bits, a constant to the verifier), filled by the recorder
 * through the skeleton's mapping */
struct rs_ip_cookie ipc_direct_tab[1 << RS_IPC_DIRECT_BITS];

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, u32);                 /* tgid */
	__type(value, u8);                /* 1 allow, 2 deny */
} tgids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, char[RS_TASK_COMM_LEN]);
	__type(value, u8);                /* 1 allow, 2 deny */
} comms SEC(".maps");

/* per CPU: the slot of the last task whose session a call found or opened
 * here, so that the next call of that task needs two inlined array lookups
 * instead of a task-storage lookup. Only a hint: a slot is used only while
 * its owner is the current task (a task pointer freed and reused as another
 * task's has closed its session first, clearing the owner). While that
 * task has not moved to another CPU since (its migration count and start
 * time as cached), every session it opened since was opened here and
 * cached: its latest session is this slot's, so a closed slot there means
 * none is open (session_find), and a new one can take the same slot again
 * without the task storage (session_take). Also the fentry guard
 * (guard_enter) */
struct cpu_state {
	u32 slot;     /* first: the lookup's key is the state's own address */
	u32 spare;    /* a free slot + 1 kept here (0: none), so that a thread's
		       * next session needs no free_slots pop and push */
	u64 task;
	u64 guard;    /* the fentry guard (guard_enter): non-zero while one of
		       * our guarded programs runs on this CPU. The fentry and
		       * fexit programs' is their context, a pointer stored to
		       * be read back as a number (ctx_addr, session_on_stack) */
	u64 mig;      /* task's se.nr_migrations and start_time when cached */
	u64 tstart;
	u64 ret;      /* fexit_ret's value, stored and read back */
} __attribute__((aligned(64)));   /* a cache line each: no sharing between CPUs */

/* indexed by CPU number: an inlined CPU-number read (Linux 6.10+) and an
 * offset, cheaper than a per-CPU map's lookup (each entry a cache line
 * of its own). RS_MAX_CPUS (retsnoop_abi.h) bounds every kernel's NR_CPUS
 * (x86-64's and arm64's largest: 8192, 4096) and the recorder checks the
 * machine's count, so no two CPUs share an entry */
static struct cpu_state cpu_states[RS_MAX_CPUS];
_Static_assert((RS_MAX_CPUS & (RS_MAX_CPUS - 1)) == 0, "a CPU number is masked into the array");

struct lbr_buf {
	struct perf_branch_entry e[RS_MAX_LBR_ENTRIES];
	s32 sz;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct lbr_buf);
} lbr_scratch SEC(".maps");

static __always_inline void stat_inc(u64 *v)
{
	__sync_fetch_and_add(v, 1);
}

/* this CPU's state (never NULL: an element of cpu_states) */
static __always_inline struct cpu_state *cpu_state_get(void)
{
	struct cpu_state *c = &cpu_states[bpf_get_smp_processor_id() & (RS_MAX_CPUS - 1)];

	/* opaque: clang then addresses the fields from c, rather than
	 * computing each field's address again from the CPU number (and
	 * keeping the number in a register for it) */
	asm volatile("" : "+r"(c));
	return c;
}

/* what an exit's ctx is, a constant in each front end (kctx below): fexit's
 * arguments (CTX_ARGS) or the registers (CTX_REGS, kprobe programs), and
 * with CTX_CAST the deferred stacks read stack words through
 * bpf_rdonly_cast (bpf/kword.bpf.h): the kprobe.session program (Linux
 * 6.10+) and rs_fexit_cast (where the kernel has the kfunc) */
enum { CTX_ARGS = 0, CTX_REGS = 1, CTX_CAST = 2 };

#include "kword.bpf.h"
#include "stack_defer.bpf.h"

#include "args_capture.bpf.h"

/* per-CPU guard: a traced function called from inside our own handler
 * (map helpers, ring buffer) must not recurse into the session logic.
 * Only fentry needs it: each fentry clone is its own program, and the
 * kernel's per-program recursion check does not stop another clone, while
 * kprobe and kprobe.multi programs never nest (the kernel's bpf_prog_active
 * counter skips a kprobe program run inside another). Returns the CPU's
 * state, NULL when taken */
static __always_inline struct cpu_state *guard_enter_as(u64 v)
{
	struct cpu_state *c = cpu_state_get();

	if (c->guard)
		return NULL;
	*(volatile u64 *)&c->guard = v;
	return c;
}

static __always_inline struct cpu_state *guard_enter(void)
{
	return guard_enter_as(1);
}

/* the fentry and fexit programs' guard: their context as the value, a
 * register already (no constant moved into one first), which ctx_addr
 * then reads back as a number (one store for both) */
static __always_inline struct cpu_state *guard_enter_ctx(void *ctx)
{
	return guard_enter_as((u64)ctx);
}

static __always_inline void guard_exit(struct cpu_state *c)
{
	c->guard = 0;
}

/* a 0 made where it is returned (clang otherwise makes the early
 * return's before the guard's test, on every path) */
static __always_inline u64 zero_here(void)
{
	u64 z;

	asm volatile("%0 = 0" : "=r"(z));
	return z;
}

/* guard_exit and the program's 0 from one register (64 bits wide, as
 * the guard: no extension between) */
static __always_inline int guard_exit_ret(struct cpu_state *c)
{
	u64 z = zero_here();

	c->guard = z;
	return (int)z;
}

/* task's session when the CPU's cache names it, else NULL. The slot's
 * owner alone tells: an open session's owner is its task, and a task has
 * one open at most (c->task is for session_uncached) */
static __always_inline struct session *session_cached(struct cpu_state *c, u64 task)
{
	struct session *s;

	s = bpf_map_lookup_elem(&sess_slots, &c->slot);   /* the key read in place */
	if (!s || s->owner != task)
		return NULL;
	return s;
}

/* session_cached for the fentry and fexit programs, without the task: the
 * session the CPU's cache names when the program runs on that session's
 * task's stack (its context, in the trampoline's frame, as the guard holds
 * it: ctx_addr, lies less than TAIL_STACK
 * above the stack base the session keeps), else NULL. A task's stack is
 * its own while it lives, and its session is closed (stack 0) before the
 * stack is freed (rs_task_exit), so the stack names the task as the owner
 * does, for the cost of two loads (ctx_addr), no helper call. On another
 * stack (an interrupt's) or further up a larger stack than TAIL_STACK,
 * NULL: the whole path then looks by the task (session_cached), so that a
 * call there is tracked as it always was (*slot_s: the slot's session
 * whatever its stack, for session_of_task) */
static __always_inline struct session *session_on_stack(struct cpu_state *c,
							struct session **slot_s)
{
	struct session *s = bpf_map_lookup_elem(&sess_slots, &c->slot);

	*slot_s = s;
	/* ctx's address read after the lookup's call: not kept across it */
	if (!s || ctx_addr(c) - s->stack >= TAIL_STACK)
		return NULL;
	return s;
}

/* session_cached's answer from the slot session_on_stack looked up */
static __always_inline struct session *session_of_task(struct session *slot_s, u64 task)
{
	return slot_s && slot_s->owner == task ? slot_s : NULL;
}

/* the CPU's cache names the current task's session in slot */
static __always_inline void cache_set(struct cpu_state *c, struct task_struct *t, u64 task, u32 slot)
{
	c->task = task;
	c->slot = slot;
	c->mig = t->se.nr_migrations;
	c->tstart = t->start_time;
}

/* the CPU's cache names the current task's latest session (see struct
 * cpu_state); its task is the current one */
static __always_inline bool cache_latest(struct cpu_state *c)
{
	struct task_struct *t = bpf_get_current_task_btf();

	return c->mig == t->se.nr_migrations && c->tstart == t->start_time;
}

/* the current thread's open session where session_cached found none, or
 * NULL; *tsp: the thread's task storage when it was looked up (for
 * session_take), *latest: none is open and the CPU's cache names its
 * latest slot (no storage looked up) */
static __always_inline struct session *session_uncached(struct cpu_state *c, u64 task, u32 **tsp,
							bool *latest)
{
	struct task_struct *t;
	struct session *s;
	u32 slot, *ts;

	if (c->task == task && cache_latest(c)) {
		*latest = true;
		return NULL;
	}
	t = bpf_get_current_task_btf();
	ts = bpf_task_storage_get(&task_slot, t, 0, 0);
	*tsp = ts;
	if (!ts || !*ts)
		return NULL;
	slot = *ts - 1;
	s = bpf_map_lookup_elem(&sess_slots, &slot);
	if (!s || s->owner != task)
		return NULL;
	cache_set(c, t, task, slot);
	return s;
}

/* the current thread's open session, or NULL (*tsp, *latest: as
 * session_uncached sets them) */
static __always_inline struct session *session_find(struct cpu_state *c, u64 task, u32 **tsp,
						    bool *latest)
{
	struct session *s = session_cached(c, task);

	return s ? s : session_uncached(c, task, tsp, latest);
}

/* a slot given back: kept as the CPU's spare when it has none (only
 * where no other of our programs can run in between on this CPU: kprobe
 * programs, guarded fentry ones), else into free_slots */
static __always_inline void slot_put(struct cpu_state *c, u32 slot)
{
	if (c && !c->spare)
		c->spare = slot + 1;
	else
		bpf_map_push_elem(&free_slots, &slot, 0);
}

/* a slot for a new session of the current thread (its fields as the last
 * session there left them: session_open resets them), or NULL; ts: the
 * thread's task storage if session_find looked it up, latest: as
 * session_find found it */
static __always_inline struct session *session_take(struct cpu_state *c, u64 task, u32 *ts,
						    bool latest)
{
	struct task_struct *t;
	struct session *s;
	u32 slot;

	if (latest && c->spare == c->slot + 1) {
		/* its latest slot, still the CPU's spare: the thread's task
		 * storage names it already, the CPU's cache too */
		slot = c->slot;
		s = bpf_map_lookup_elem(&sess_slots, &slot);
		if (s) {
			c->spare = 0;
			s->owner = task;
			s->slot = slot;
			return s;
		}
	}
	if (c->spare) {
		slot = c->spare - 1;
		c->spare = 0;
	} else if (bpf_map_pop_elem(&free_slots, &slot)) {
		return NULL;
	}
	s = bpf_map_lookup_elem(&sess_slots, &slot);
	t = bpf_get_current_task_btf();
	if (!ts)
		ts = bpf_task_storage_get(&task_slot, t, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!s || !ts) {
		slot_put(c, slot);
		return NULL;
	}
	*ts = slot + 1;
	s->owner = task;
	s->slot = slot;
	cache_set(c, t, task, slot);
	return s;
}

/* the session has ended: its slot goes back (the thread's task storage and
 * CPU caches still name it, and no longer match its owner); c: NULL where
 * the CPU's spare must not be touched */
static __always_inline void session_close(struct cpu_state *c, struct session *s)
{
	s->owner = 0;
	s->stack = 0;
	slot_put(c, s->slot);
}

static __always_inline bool task_allowed(void)
{
	u64 pid_tgid;
	u32 tgid = 0;
	u8 *v;

	if (self_tgid || filter_tgid || deny_tgid) {
		pid_tgid = bpf_get_current_pid_tgid();
		tgid = pid_tgid >> 32;
		if (tgid == self_tgid)
			return false;
	}
	if (filter_tgid || deny_tgid) {
		v = bpf_map_lookup_elem(&tgids, &tgid);
		if (v && *v == 2)
			return false;
		if (filter_tgid && (!v || *v != 1))
			return false;
	}
	if (filter_comm || deny_comm) {
		char comm[RS_TASK_COMM_LEN] = {};

		bpf_get_current_comm(comm, sizeof(comm));
		v = bpf_map_lookup_elem(&comms, comm);
		if ((v && *v == 2) || comm_glob_any_match(comm, 1))
			return false;
		if (filter_comm && (!v || *v != 1) && !comm_glob_any_match(comm, 0))
			return false;
	}
	return true;
}

static __always_inline u64 sess_id_of(u64 pid_tgid)
{
	u32 tid = (u32)pid_tgid;

	if (tid)
		return tid;
	return (1ULL << 32) | bpf_get_smp_processor_id();
}

/* SESSION_END wakes the reader only once wake_bytes are waiting: the reader
 * also drains the buffer on its poll timeout (record/capture.c), so a
 * session is read within that timeout and a flood costs one wakeup per
 * wake_bytes instead of one per session */
static __always_inline u64 wakeup_flag(void)
{
	if (bpf_ringbuf_query(&rb, BPF_RB_AVAIL_DATA) >= wake_bytes)
		return BPF_RB_FORCE_WAKEUP;
	return BPF_RB_NO_WAKEUP;
}

static __always_inline bool is_failure(u32 flags, s64 res)
{
	if (flags & RS_FUNC_CANT_FAIL)
		return false;
	if ((flags & RS_FUNC_RET_PTR) && res == 0)
		return true;
	if (flags & RS_FUNC_NEEDS_SIGN_EXT) {
		u32 lo = (u32)res;

		return lo >= 0xfffff001u;
	}
	return (u64)res >= (u64)-4095LL;
}

/* the session's own fields of a SESSION_START or SESSION_END record r
 * (the same names in both) */
#define sess_ident_copy(r, s) do {							\
	(r)->sess_id = (s)->sess_id;							\
	(r)->tid = (s)->tid;								\
	(r)->pid = (s)->pid;								\
	(r)->start_ts = (s)->start_ts;							\
	__builtin_memcpy((r)->task_comm, (s)->task_comm, sizeof((r)->task_comm));	\
	__builtin_memcpy((r)->proc_comm, (s)->proc_comm, sizeof((r)->proc_comm));	\
} while (0)

/* false when the ring buffer had no room (counted) */
static __always_inline bool emit_session_start(struct session *s)
{
	struct rs_rec_session_start *r;

	r = bpf_ringbuf_reserve(&rb, sizeof(*r), 0);
	if (!r) {
		stat_inc(&stats.records_dropped);
		return false;
	}
	r->hdr.type = RS_REC_SESSION_START;
	r->hdr.size = sizeof(*r);
	sess_ident_copy(r, s);
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);   /* SESSION_END wakes the reader */
	s->start_emitted = true;
	return true;
}

/* n records of the session the reader will never see (-T entries and
 * exits, -J probe hits): counted in the session (its SESSION_END says so)
 * and once as an incomplete session */
static __always_inline void records_lost(struct session *s, u32 n)
{
	__sync_fetch_and_add(&stats.records_dropped, n);
	s->dropped_records += n;
	if (!s->counted_incomplete) {
		s->counted_incomplete = true;
		stat_inc(&stats.sessions_incomplete);
	}
}

/* -T: the entries waiting in the session's batch into the ring buffer as
 * one TRACE_BATCH record, after the session's SESSION_START if it has not
 * been sent yet: its header filled in and the record's bytes copied once
 * (bpf_ringbuf_output: a plain memcpy, where a dynptr write is a memmove
 * that for 32 bytes and more is a byte-wise "rep movsb" on CPUs without
 * fast short moves). A BPF global function: verified once, whatever its
 * callers' states. */
__noinline int rs_trace_flush(struct session *s)
{
	struct rs_rec_trace_batch *b;
	u32 n, sz, slot;

	if (!s)
		return 0;
	n = s->tb_n;
	if (!n)
		return 0;
	s->tb_n = 0;
	slot = s->slot;   /* a map key from the stack: s is plain memory here */
	b = bpf_map_lookup_elem(&sess_tb, &slot);
	if (!b) {
		records_lost(s, n);
		return 0;
	}
	if (n > RS_TRACE_BATCH)
		n = RS_TRACE_BATCH;
	if (!s->start_emitted && !emit_session_start(s)) {
		records_lost(s, n);
		return 0;
	}
	sz = __builtin_offsetof(struct rs_rec_trace_batch, e) + n * sizeof(struct rs_trace_ent);
	b->hdr.type = RS_REC_TRACE_BATCH;
	b->hdr.size = sz;
	b->sess_id = s->sess_id;
	b->n = n;
	b->_pad = 0;
	/* no wakeup: SESSION_END's, or the reader's poll timeout, reads it */
	if (bpf_ringbuf_output(&rb, b, sz, BPF_RB_NO_WAKEUP))
		records_lost(s, n);
	return 0;
}

/* -T: one entry or exit into the session's batch (sent when full) */
static __always_inline void emit_trace_rec(struct session *s, u32 type, u32 seq_id, u32 func_id,
				       u32 depth, s64 res, u64 lat, u64 ts)
{
	u32 i = s->tb_n, slot = s->slot;
	struct rs_rec_trace_batch *tb = bpf_map_lookup_elem(&sess_tb, &slot);
	struct rs_trace_ent *e;

	/* never: a full batch is sent at once, and the map has every slot */
	if (i >= RS_TRACE_BATCH || !tb) {
		records_lost(s, 1);
		return;
	}
	e = &tb->e[i & (RS_TRACE_BATCH - 1)];
	e->ts = ts;
	e->seq_id = seq_id;
	e->func_id = func_id;
	e->depth = depth;
	e->type = type;
	e->_pad = 0;
	e->res = res;
	e->lat_ns = lat;
	s->tb_n = i + 1;
	if (i + 1 == RS_TRACE_BATCH)
		rs_trace_flush(s);
}

static __always_inline void capture_lbrs(struct session *s)
{
	u32 zero = 0, slot = s->slot;
	struct lbr_buf *lb;
	struct lbr_slots *ls;

	if (!use_lbr)
		return;
	lb = bpf_map_lookup_elem(&lbr_scratch, &zero);
	ls = bpf_map_lookup_elem(&sess_lbrs, &slot);
	if (!lb || !ls)
		return;
	s->lbrs_sz[s->cur & 1] = lb->sz;
	bpf_probe_read_kernel(ls->e[s->cur & 1], sizeof(ls->e[0]), lb->e);
}

#include "ustack.bpf.h"

/* internal submit_session flag (never in a record): the snapshot of an
 * injected probe's hit (-J -I): emitted whatever the session's state, with
 * the running frames and the kernel stack at the hit (in kstack slot 2) */
#define RS_SUBMIT_PROBE 0x80000000u

/* a SESSION_END's shape: its frames (a stitched one: the saved deeper
 * chain's, the current ones over its first keep) and their bytes fb, the
 * kstack slot of its kernel stack and that stack's bytes, the record's */
struct end_shape {
	u32 n, keep, slot, kb, fb, size;
	s32 ksz;
	bool stitched;
};

/* SESSION_END's fixed part, for a record of shape e; in_place: r is the
 * session's end_head, which holds the session's own fields already */
static __always_inline void end_fill(struct rs_rec_session_end *r, struct session *s, u32 flags,
				     u64 now, const struct end_shape *e, bool in_place)
{
	r->hdr.type = RS_REC_SESSION_END;
	r->hdr.size = e->size;
	if (!in_place)
		sess_ident_copy(r, s);
	r->end_ts = now;
	if (s->is_err)
		flags |= RS_SESS_IS_ERR;
	if (s->overflow_calls)
		flags |= RS_SESS_OVERFLOW;
	if (e->stitched)
		flags |= RS_SESS_STITCHED;
	r->flags = flags;
	r->nframes = e->n;
	r->depth = s->depth;
	r->stitch_pos = e->keep;
	r->_pad = 0;
	r->last_seq_id = s->next_seq_id ? s->next_seq_id - 1 : 0;
	r->dropped_records = s->dropped_records;
	r->overflow_calls = s->overflow_calls;
	r->kstack_sz = e->ksz;
}

static __always_inline void end_shape_of(struct session *s, bool probe, struct end_shape *e)
{
	u32 n, keep = 0, slot, kb;
	s32 ksz;

	/* stitch: the saved deeper error chain continues the current one */
	e->stitched = !probe && s->is_err && s->saved_depth && s->max_depth + 1 == s->saved_depth;
	if (e->stitched) {
		n = s->saved_max_depth;
		keep = s->saved_depth - 1;   /* current frames [0, keep) */
		slot = (s->cur ^ 1) & 1;
	} else if (probe) {
		n = s->depth;
		slot = 2;
	} else {
		n = s->max_depth;
		slot = s->cur & 1;
	}
	if (n > RS_MAX_FSTACK_DEPTH)
		n = RS_MAX_FSTACK_DEPTH;
	if (keep > n)
		keep = n;
	/* 6.1's verifier loses these bounds through register copies: masks
	 * it sees (no-ops: keep <= 64, slot <= 2) */
	asm volatile("" : "+r"(keep), "+r"(slot));
	keep &= 2 * RS_MAX_FSTACK_DEPTH - 1;
	slot &= 3;
	if (slot > 2)
		slot = 2;
	ksz = s->kstack_sz[slot];
	/* successful sessions have no kernel stack unless a call-stack view
	 * shows them (success_stacks): whatever a slot holds is not theirs */
	if (!s->is_err && !success_stacks && !probe)
		ksz = 0;
	kb = ksz > 0 ? (u32)ksz & ~7u : 0;
	if (kb > sizeof(s->kstack[0]))
		kb = sizeof(s->kstack[0]);
	e->n = n;
	e->keep = keep;
	e->slot = slot;
	e->ksz = ksz;
	e->kb = kb;
	e->fb = n * sizeof(struct rs_frame);
	e->size = END_FIXED + e->fb + kb;
}

/* a session's final SESSION_END, built in its slot: the head, the frames
 * already in place after it (a stitched record's saved ones copied below
 * the current ones), the kernel stack copied behind them (plain loads and
 * stores: a few words, where a helper call costs a hundred instructions),
 * then sent as one copy. Returns bpf_ringbuf_output's result. A BPF global
 * function: its copy loop is verified once, not in every state of
 * handle_exit that ends a session */
__noinline int rs_end_output(struct session *s, u32 flags, u64 now)
{
	struct end_shape e;
	u32 off, k;
	u64 *w, *ks;

	if (!s)
		return -1;
	end_shape_of(s, false, &e);
	end_fill((void *)s->end_head, s, flags, now, &e, true);
	/* the saved frames below the current ones: plain loads and stores
	 * (a few frames, where the helper's fault-safe copy costs about 30
	 * instructions per frame on top of its call). The loop ends on a
	 * count of its own, never on a test of e.n: the verifier then learns
	 * nothing new of e.n at each way out, and the states after the loop
	 * are one (a test of e.n made each way out a state of its own, and
	 * every one went through the stack copy's loop below: start-up +60%) */
	if (e.stitched) {
		u32 cnt = e.n > e.keep ? e.n - e.keep : 0;

		asm volatile("" : "+r"(cnt));   /* a value of its own, no link to e.n */
		for (u32 i = 0; i < RS_MAX_FSTACK_DEPTH; i++) {
			struct rs_frame *f;

			if (i >= cnt)
				break;
			f = &s->frames[FIDX(e.keep + i)];
			*f = *saved_of(f);
		}
	}
	w = (u64 *)s->frames;
	ks = s->kstack[e.slot];
	off = e.n * (sizeof(struct rs_frame) / 8);
	/* two words a step (an odd count's last one copies a word past the
	 * record: never sent); frames and saved_frames hold 2 * 64 * 3
	 * words, past n * 3 + 96 */
	for (u32 i = 0; i < RS_MAX_KSTACK_DEPTH; i += 2) {
		k = off + i;
		if (i >= e.kb / 8 || k >= 2 * RS_MAX_FSTACK_DEPTH * (sizeof(struct rs_frame) / 8) - 1)
			break;
		w[k] = ks[i];
		w[k + 1] = ks[i + 1];
	}
	return bpf_ringbuf_output(&rb, s->end_head, e.size, wakeup_flag());
}

/* a SESSION_END sent (err 0) or not, counted */
static __always_inline void session_counted(long err, u32 flags)
{
	if (err) {
		stat_inc(&stats.records_dropped);
		if (!(flags & RS_SESS_IGNORED))
			stat_inc(&stats.sessions_dropped);
	} else if (!(flags & RS_SESS_IGNORED)) {
		stat_inc(&stats.sessions_emitted);
	}
}

/* the session's stack as one SESSION_END record of the compact layout:
 * only the frames and kernel stack bytes it has are copied. The final one
 * through rs_end_output; a snapshot of a session that goes on (-I, -J -I)
 * piece by piece into a dynptr (a dynptr write is a memmove, byte-wise
 * "rep movsb" from 32 bytes on CPUs without fast short moves) */
static __always_inline void submit_session(void *ctx, struct session *s, u32 flags, u64 now)
{
	u64 fixed[END_FIXED / 8];
	struct bpf_dynptr dp;
	struct end_shape e;
	bool probe = flags & RS_SUBMIT_PROBE;
	long err;

	flags &= ~RS_SUBMIT_PROBE;
	if (!(flags & RS_SESS_IGNORED)) {
		if (!s->is_err && !emit_success && !probe)
			flags |= RS_SESS_IGNORED;
		else if (duration_ns) {
			u64 dur = (flags & RS_SESS_INTERIM) ? now - s->start_ts : s->frames[0].lat_ns;

			if (dur < duration_ns)
				flags |= RS_SESS_IGNORED;
		}
	}
	/* -T: the batch goes before the session's other records; a final
	 * snapshot nobody will see drops it */
	if (emit_trace) {
		if (!(flags & RS_SESS_IGNORED))
			rs_trace_flush(s);
		else if (!(flags & RS_SESS_INTERIM))
			s->tb_n = 0;
	}
	/* an ignored session only needs a record when user space holds its
	 * trace records (SESSION_START was sent) */
	if ((flags & RS_SESS_IGNORED) && !s->start_emitted)
		return;

	if (use_lbr && !(flags & RS_SESS_IGNORED)) {
		u32 sl = s->slot;
		struct rs_rec_lbr *l = bpf_ringbuf_reserve(&rb, sizeof(*l), 0);
		struct lbr_slots *lbrs = bpf_map_lookup_elem(&sess_lbrs, &sl);

		if (l && !lbrs) {   /* never: the map has every slot; counted below */
			bpf_ringbuf_discard(l, 0);
			l = NULL;
		}
		if (l) {
			u32 ls = (s->saved_depth && s->max_depth + 1 == s->saved_depth) ?
				 (s->cur ^ 1) & 1 : s->cur & 1;

			l->hdr.type = RS_REC_LBR;
			l->hdr.size = sizeof(*l);
			l->sess_id = s->sess_id;
			l->_pad = 0;
			l->lbrs_sz = s->lbrs_sz[ls];
			bpf_probe_read_kernel(l->lbrs, sizeof(l->lbrs), lbrs->e[ls]);
			bpf_ringbuf_submit(l, BPF_RB_NO_WAKEUP);
		} else {
			stat_inc(&stats.records_dropped);
		}
	}

	if (!(flags & RS_SESS_IGNORED))
		emit_ustack_rec(s);   /* -U: bpf/ustack.bpf.h */

	if (!probe && !(flags & RS_SESS_INTERIM)) {
		err = rs_end_output(s, flags, now);
	} else {
		if (probe)
			s->kstack_sz[2] = bpf_get_stack(ctx, s->kstack[2], sizeof(s->kstack[2]), 0);
		end_shape_of(s, probe, &e);
		if (!bpf_ringbuf_reserve_dynptr(&rb, e.size, 0, &dp)) {
			end_fill((void *)fixed, s, flags, now, &e, false);
			bpf_dynptr_write(&dp, 0, fixed, END_FIXED, 0);
			if (e.stitched) {
				bpf_dynptr_write(&dp, END_FIXED, s->saved_frames, e.fb, 0);
				bpf_dynptr_write(&dp, END_FIXED, s->frames,
						 e.keep * sizeof(struct rs_frame), 0);
			} else {
				bpf_dynptr_write(&dp, END_FIXED, s->frames, e.fb, 0);
			}
			bpf_dynptr_write(&dp, END_FIXED + e.fb, s->kstack[e.slot], e.kb, 0);
			bpf_ringbuf_submit_dynptr(&dp, wakeup_flag());
			err = 0;
		} else {
			bpf_ringbuf_discard_dynptr(&dp, 0);
			err = -1;
		}
	}
	session_counted(err, flags);
}

/* slow_at once pend_depth, saved_depth or overflow_depth changed (they
 * change only in session_open, which sets it, save_error_chain,
 * overflow_sync, handle_exit and the held exits of fast_exit and fexit_fast,
 * which call this last), so that the fast exits test one number */
static __always_inline void hold_sync(struct session *s)
{
	s32 h;

	/* every caller but overflow_sync runs with overflow_depth 0 (each
	 * has tested it, or taken the path that only runs then) */
	h = s->pend_depth[0] > s->pend_depth[1] ? s->pend_depth[0] : s->pend_depth[1];
	if (s->saved_depth && (s32)s->saved_depth - 2 > h)
		h = (s32)s->saved_depth - 2;
	if (h < 0)
		h = 0;
	s->slow_at = h;
}

/* overflow_depth changed: the fast paths' limits (depth_lim, slow_at)
 * follow it, so that they need not test it */
static __always_inline void overflow_sync(struct session *s)
{
	s->depth_lim = s->overflow_depth ? 0 : max_fstack_depth;
	if (s->overflow_depth)
		s->slow_at = 0x7fffffff;
	else
		hold_sync(s);
}

/* the current error chain [depth, max_depth) is about to be overwritten:
 * keep it so that it can be stitched later. Only its own frames are
 * copied; its kernel stack and LBRs change slots (cur ^= 1) instead */
static __always_inline void save_error_chain(struct session *s)
{
	u32 d = s->depth, md = s->max_depth, cnt;

	if (d >= RS_MAX_FSTACK_DEPTH || md > RS_MAX_FSTACK_DEPTH)
		return;
	if (!(s->saved_depth && md + 1 == s->saved_depth)) {
		/* a new chain replaces the saved one (else it directly
		 * continues it: prepended, the deeper stacks kept) */
		s->saved_max_depth = md;
		s->cur ^= 1;
	}
	cnt = md > d ? md - d : 0;
	asm volatile("" : "+r"(cnt));   /* a count of its own (as in rs_end_output) */
	for (u32 i = 0; i < RS_MAX_FSTACK_DEPTH; i++) {
		struct rs_frame *f;

		if (i >= cnt)
			break;
		f = &s->frames[FIDX(d + i)];
		*saved_of(f) = *f;
	}
	s->saved_depth = d + 1;
	s->saved_last_seq_id = s->next_seq_id - 1;   /* the failed call's exit had one */
	hold_sync(s);
}

/* a new session of the current thread, in place of its last one */
static __always_inline void session_open(struct session *s, u64 pid_tgid)
{
	struct task_struct *t;

	s->sess_id = sess_id_of(pid_tgid);
	s->tid = (u32)pid_tgid;
	s->pid = pid_tgid >> 32;
	s->next_seq_id = 0;
	s->dropped_records = 0;
	s->overflow_calls = 0;
	s->overflow_depth = 0;
	s->depth = s->max_depth = 0;
	s->is_err = s->defunct = s->start_emitted = s->counted_incomplete = false;
	s->saved_depth = s->saved_max_depth = 0;
	s->saved_last_seq_id = 0;
	s->kstack_sz[0] = s->kstack_sz[1] = 0;
	s->pend_depth[0] = s->pend_depth[1] = -1;
	s->slow_at = 0;
	s->depth_lim = max_fstack_depth;
	s->lbrs_sz[0] = s->lbrs_sz[1] = 0;
	s->tb_n = 0;
	/* both names read through the task's BTF pointer: plain loads, no
	 * helper call (a comm is NUL-padded to its 16 bytes) */
	t = bpf_get_current_task_btf();
	s->stack = (u64)t->stack;
	__builtin_memcpy(s->task_comm, t->comm, sizeof(s->task_comm));
	t = t->group_leader;
	__builtin_memcpy(s->proc_comm, t->comm, sizeof(s->proc_comm));
}

/* the exit of frame d, its result in is_err and max_depth: the saved error
 * chain is dropped once nothing can be stitched to it any more. Only a
 * chain whose deepest failure is right above it (max_depth + 1 ==
 * saved_depth) continues it, and at or above the saved chain's parent
 * (d + 2 <= saved_depth) the current state is final: a success there
 * swallowed the error (else a later sibling's error would be shown on top
 * of the saved chain); a chain that failed deeper went on through it (it
 * replaces the saved one at its next sibling's entry, and ends too deep to
 * be stitched); one that failed first higher up ends above. Dropped, its
 * deferred stack no longer goes on at every exit up to the session's end */
static __always_inline bool saved_chain_ends(struct session *s, u32 d)
{
	return s->saved_depth && d + 2 <= s->saved_depth &&
	       !(s->is_err && s->max_depth + 1 == s->saved_depth);
}

static __always_inline void saved_chain_exit(struct session *s, u32 d)
{
	if (saved_chain_ends(s, d)) {
		s->saved_depth = s->saved_max_depth = 0;
		s->pend_depth[(s->cur ^ 1) & 1] = -1;
	}
}

/* a chain's first failure at frame d: its kernel stack, deferred
 * (bpf/stack_defer.bpf.h: kprobe programs from the registers, fexit ones
 * from the trampoline's frame) or captured now */
static __always_inline void first_failure_stack(void *ctx, struct session *s, u32 d, u32 id, u32 kctx)
{
	u32 slot = s->cur & 1;

	if ((kctx & CTX_REGS) && defer_stacks) {
		defer_first_call(ctx, s, d, kctx & CTX_CAST);
		return;
	}
	if (defer_stacks) {
		fexit_defer_first(ctx, s, d, id, kctx & CTX_CAST);
		return;
	}
	s->pend_depth[slot] = -1;
	s->kstack_sz[slot] = bpf_get_stack(ctx, s->kstack[slot], sizeof(s->kstack[0]), 0);
}

/* a chain's first failure at frame d: is_err, its depth and its stack. A
 * chain ending right above the saved deeper one is emitted stitched, with
 * the saved chain's stack: this one would never be read (a successful
 * session's stack may be, when those have stacks). fast: fast_exit's, which
 * takes the deferral's common step inline (in handle_exit it made the
 * load's verification 40 ms slower); a constant in each caller */
static __always_inline void chain_first_failure(void *ctx, struct session *s, u32 d, u32 id,
						u32 kctx, bool fast)
{
	s->is_err = true;
	s->max_depth = d + 1;
	if (!success_stacks && s->saved_depth && d + 2 == s->saved_depth) {
		s->kstack_sz[s->cur & 1] = 0;
		s->pend_depth[s->cur & 1] = -1;
	} else if (fast && (kctx & CTX_REGS) && defer_stacks && defer_to_parent(ctx, s, s->cur & 1, d, 0)) {
		stat_inc(&stats.stacks_deferred);   /* rs_defer_first's common case */
	} else {
		first_failure_stack(ctx, s, d, id, kctx);
	}
}

/* The common call, on a path of its own: inside the current thread's open
 * session (found through the CPU's cache), in a mode where a call only
 * keeps its frame, its -T entries and its error chain (lean_calls): a
 * nested call's entry, and its exit (through fentry, one that leaves the
 * error chains as they are). Each returns false,
 * having changed nothing, for every other case (a session's first entry
 * and last exit, a missed return, a depth overflow), which handle_entry
 * and handle_exit then take whole. Kept apart so that the few registers
 * the common case needs are not spilled for the general one. */

/* a call's frame pushed at depth d (< RS_MAX_FSTACK_DEPTH), entered at
 * now (read_clock: read here, a constant in each caller), and its -T
 * entry; returns its seq_id. The clock is read last: only the frame's
 * address and the session then live across the helper call, in registers
 * the call keeps. The caller has cleared is_err (no chain below a new
 * frame) */
static __always_inline u32 frame_push(struct session *s, u32 d, u32 id, u64 now, bool read_clock)
{
	struct rs_frame *f = &s->frames[FIDX(d)];   /* one bounded index: FIDX's barrier is not merged */
	u32 seq_id = s->next_seq_id++;

	f->func_id = id;
	f->seq_id = seq_id;
	/* an open frame's result is read only by -I's snapshots: a frame
	 * is emitted once it has exited (frame_exit, handle_exit), or was
	 * dropped by a missed return (handle_exit zeroes those) */
	if (emit_interim)
		f->res = 0;
	s->depth = d + 1;
	s->max_depth = d + 1;
	if (read_clock)
		now = bpf_ktime_get_ns();
	f->lat_ns = now;
	if (emit_trace)
		emit_trace_rec(s, RS_REC_TRACE_ENTRY, seq_id, id, d + 1, 0, 0, now);
	return seq_id;
}

/* a fast exit's frame d (f, function id) given its result and, where it
 * is shown (the trace view, shown: the call's error chain goes on through
 * it), its latency, and with -T its trace entry */
static __always_inline void frame_exit(struct session *s, struct rs_frame *f, u32 d, u32 id,
				       s64 res, bool shown)
{
	u32 seq_id = s->next_seq_id++;
	u64 now, lat = 0;

	if (emit_trace || shown) {
		now = bpf_ktime_get_ns();
		lat = now - f->lat_ns;
		if (emit_trace)
			emit_trace_rec(s, RS_REC_TRACE_EXIT, seq_id, id, d + 1, res, lat, now);
	}
	f->res = res;
	f->lat_ns = lat;
}

/* frame_exit of a failed call whose result fexit_fail has stored
 * already (shown, no -T): its latency */
static __always_inline void frame_exit_lat(struct session *s, struct rs_frame *f)
{
	s->next_seq_id++;
	f->lat_ns = bpf_ktime_get_ns() - f->lat_ns;
}

/* a nested call's entry: its frame pushed (handle_entry's last part); s:
 * the session the CPU's cache names (session_cached) */
static __always_inline bool fast_entry(struct session *s, u64 cookie)
{
	u32 id = (u32)cookie, d;

	/* id: a traced function's (the front ends pass no other; the
	 * recorder keeps max_fstack_depth <= RS_MAX_FSTACK_DEPTH) */
	if (!lean_calls)
		return false;
	/* depth_lim: 0 while overflow_depth counts untracked calls (a
	 * defunct session counts them from its first entry on: handle_entry) */
	if (!s)
		return false;
	d = s->depth;
	if (d >= s->depth_lim)
		return false;
	/* an error chain about to be overwritten is saved (as in handle_entry;
	 * no -I snapshot here: lean_calls); is_err cleared only where set */
	if (s->is_err) {
		if (d != s->max_depth)
			save_error_chain(s);
		s->is_err = false;
	}
	frame_push(s, d, id, 0, true);
	return true;
}

/* a nested call's exit through kprobes: its frame popped, its result
 * kept, its latency read only where it is shown (the trace view, a
 * failure, a call that cannot fail returning inside an error chain: it
 * stays in the chain), as in handle_exit, whatever its result: a first
 * failure's stack deferred and the deferred stacks waiting for this exit
 * taken on (stack_defer.bpf.h, their common step inline). fentry has its
 * own, fexit_fast. The common exit (no error here and none going on
 * through it, no chain waiting at or below it: d above slow_at) tests
 * only that; the others compute the rest */
static __always_inline bool fast_exit(void *ctx, struct session *s, u64 cookie, u32 kctx)
{
	u32 id = (u32)cookie, flags = cookie >> 32, d;
	bool failed, went_on, waits;
	struct rs_frame *f;
	s64 res;

	if (!lean_calls)   /* id, s: as in fast_entry */
		return false;
	if (!s)
		return false;
	/* slow_at: as in fexit_fast (hold_sync). d < 1: the entry function's
	 * exit ends the session (a depth is never above max_fstack_depth <=
	 * RS_MAX_FSTACK_DEPTH: FIDX bounds the index for the verifier) */
	d = s->depth - 1;
	if ((s32)d <= s->slow_at) {
		if ((s32)d < 1 || s->overflow_depth)
			return false;
		goto held;
	}
	f = &s->frames[FIDX(d)];
	if (f->func_id != id)
		return false;
	/* the result read where it is used, from the registers (ctx is
	 * kept anyway): not kept in a stack slot from on_exit on */
	res = (s64)PT_REGS_RC((struct pt_regs *)ctx);
	if (flags & RS_FUNC_NEEDS_SIGN_EXT)
		res = (s64)(s32)res;
	/* is_failure, in one compare: the flags are not a constant here */
	if ((flags & RS_FUNC_CANT_FAIL) ? s->is_err :
	    (u64)res + 4095 < RS_COOKIE_FAIL_BOUND(cookie))
		goto held;
	/* the common exit: its result and latency are never read (lean_calls:
	 * no -S, no -I) but by -T's record. fexit_fast ends the same way; one
	 * helper for both measured +0.3 instructions per call on the fexit
	 * clones (insn_profile, clang's registers), so each keeps its own */
	if (emit_trace)
		frame_exit(s, f, d, id, res, false);
	else
		s->next_seq_id++;
	s->is_err = false;
	s->depth = d;
	return true;
held:
	/* computed again here, so that the common exit keeps none of it */
	asm volatile("" : "+r"(s));
	f = &s->frames[FIDX(d)];
	if (f->func_id != id)
		return false;
	res = (s64)PT_REGS_RC((struct pt_regs *)ctx);
	if (flags & RS_FUNC_NEEDS_SIGN_EXT)
		res = (s64)(s32)res;
	failed = (u64)res + 4095 < RS_COOKIE_FAIL_BOUND(cookie);
	went_on = (flags & RS_FUNC_CANT_FAIL) ? s->is_err : failed;
	waits = s->pend_depth[0] >= (s32)d || s->pend_depth[1] >= (s32)d;
	frame_exit(s, f, d, id, res, went_on);
	if (failed && !s->is_err)
		chain_first_failure(ctx, s, d, id, kctx, true);
	s->is_err = went_on;
	saved_chain_exit(s, d);
	if (defer_stacks && waits && !defer_exit_inline(ctx, s, d))
		defer_exit_call(ctx, s, d, kctx & CTX_CAST);
	s->depth = d;
	hold_sync(s);
	return true;
}

/* fentry's exit of a nested call while a chain waits for it or for a
 * frame above (d <= slow_at: fexit_fast's exception), fast where it did
 * not fail and that only lets chains go, as handle_exit does then: the
 * error was swallowed, so the current chain is let go where it waits for
 * this exit or a frame above (chain_goes_on), and the saved one where
 * nothing can be stitched to it any more (saved_chain_exit); the saved one
 * must then wait for an ancestor's exit, or for none. A call that cannot
 * fail inside the chain goes on with it: handle_exit's. fx: the function's
 * flags. Returns 1 when done, else 0, nothing changed. A global function
 * called from fexit_fast's exception: its common path keeps its registers */
__noinline int rs_fexit_swallow(struct session *s, u32 id, s64 res, u32 fx)
{
	struct rs_frame *f;
	u32 d, cur;
	bool drop_saved;

	if (!s || !defer_stacks || emit_trace || s->overflow_depth || s->depth < 2 ||
	    s->depth > RS_MAX_FSTACK_DEPTH)
		return 0;
	if (fx & RS_FUNC_NEEDS_SIGN_EXT)
		res = (s64)(s32)res;
	if (is_failure(fx, res) || ((fx & RS_FUNC_CANT_FAIL) && s->is_err))
		return 0;
	d = s->depth - 1;
	f = &s->frames[FIDX(d)];
	if (f->func_id != id)
		return 0;
	cur = s->cur & 1;
	drop_saved = s->saved_depth && d + 2 <= s->saved_depth;
	if (!drop_saved && s->pend_depth[cur ^ 1] >= (s32)d)
		return 0;
	frame_exit(s, f, d, id, res, false);
	s->is_err = false;
	saved_chain_exit(s, d);              /* drops the saved chain where drop_saved */
	(void)chain_goes_on(s, d, cur);      /* lets the current one go: no error here */
	hold_sync(s);
	s->depth = d;
	return 1;
}

static __always_inline int fexit_fail(struct session *s, u32 id, s64 res, u64 q, bool cast);
/* fexit_fail's answers: 0 for handle_exit, 1 done, and */
enum { FEXIT_ENDED = 2 /* done, the session ended: the caller closes it */ };

/* whether fexit_fail took this failed exit (fexit_fast's first test):
 * in lean mode with deferred stacks (each a constant the verifier prunes
 * by, in each clone); fx: the clone's flags, as in fexit_fast */
static __always_inline bool fexit_fail_of(void *ctx, struct cpu_state *c, struct session *s,
					  u64 cookie, s64 res, u32 fx, u32 ak, u32 kctx)
{
	u64 q;
	int r;

	if (!lean_calls || !defer_stacks || !s)
		return false;
	/* every test of the session's state is fexit_fail's (one for the
	 * session's end, d 0, too: fexit_end), none made twice */
	if (fx & RS_FUNC_NEEDS_SIGN_EXT)
		res = (s64)(s32)res;
	/* the trampoline's frame past the arguments, their count patched in
	 * (ak, RS_CLONE_ARGS_MAGIC's: no helper call here; 0 where not known:
	 * the whole path finds it, fexit_frame_addr) */
	if (!ak)
		return false;
	q = ctx_addr(c) + (u64)(ak - 1) * 8;
	r = fexit_fail(s, (u32)cookie, res, q, kctx & CTX_CAST);
	if (r == FEXIT_ENDED)
		session_close(c, s);
	return r;
}

/* fentry's fast exit: a nested call's exit that leaves the error chains as
 * they are (it did not fail, and no chain waits for it or for a frame
 * above: slow_at; else rs_fexit_swallow), its frame popped and its result
 * kept, as in fast_exit. A failure is tested first and goes to
 * fexit_fail (fexit_fail_of), inline: as a global function (verified once)
 * its call, prologue and tests cost the failing exits more than the
 * fourth callee-saved register the clones save inline costs every exit
 * (insn_profile: -8.9 instructions per traced call on failing calls,
 * -1.3 on succeeding ones), and the clones' verification is no longer
 * (its paths are those of a clone's flags only).
 * Everything else goes to handle_exit: fentry's deferral inline in the
 * fast exit made each clone a third larger and its load (verification)
 * slower, +21% start-up for 77 functions, for 3% on failing calls, and
 * its common step alone (rs_fdefer_keep called from here) cost the fast
 * exit 20 instructions more in registers spilled, more than it saved.
 * fx: the function's RS_FUNC_CANT_FAIL, _NEEDS_SIGN_EXT and _RET_PTR
 * flags, a constant in each copy (fexit_fast_of) */
static __always_inline bool fexit_fast(void *ctx, struct cpu_state *c, struct session *s,
				      u64 cookie, s64 res, u32 fx, u32 ak, u32 kctx)
{
	u32 id = (u32)cookie, d;
	struct rs_frame *f;
	bool went_on;

	if (!lean_calls || !s)   /* id, s: as in fast_entry */
		return false;
	/* a failure first, straight to fexit_fail (fexit_fail_of): none
	 * of the tests below is its. The sign extension is made here, again
	 * below and in fexit_fail_of rather than once above: once measured
	 * +0.7 instructions per call on succeeding exits (clang's registers) */
	if (is_failure(fx, (fx & RS_FUNC_NEEDS_SIGN_EXT) ? (s64)(s32)res : res))
		return fexit_fail_of(ctx, c, s, cookie, res, fx, ak, kctx);
	/* slow_at: at least 0, the entry function's exit (and one with no
	 * frame, d -1) ending the session; the largest s32 while
	 * overflow_depth counts untracked calls (hold_sync) */
	d = s->depth - 1;
	if ((s32)d <= s->slow_at) {
		if ((s32)d < 1 || s->overflow_depth)
			return false;
		return rs_fexit_swallow(s, id, res, fx);
	}
	f = &s->frames[FIDX(d)];
	if (f->func_id != id)
		return false;
	if (fx & RS_FUNC_NEEDS_SIGN_EXT)
		res = (s64)(s32)res;
	/* a call that cannot fail stays in an error chain that runs through
	 * it; else its result and latency are never read but by -T's record
	 * (as in fast_exit) */
	went_on = (fx & RS_FUNC_CANT_FAIL) && s->is_err;
	if (went_on || emit_trace)
		frame_exit(s, f, d, id, res, went_on);
	else
		s->next_seq_id++;
	s->is_err = went_on;
	s->depth = d;
	return true;
}

/* fentry's first failure, fast: the nested call of frame d (f) failed, no
 * error chain is open (is_err false) and none waits at or below it (d >
 * slow_at), and it returned into its parent's code. Its chain then starts
 * as handle_exit starts it (chain_first_failure, fexit_defer_first,
 * rs_fdefer_keep's common case): the site and return address from its
 * trampoline frame (at q: fexit_frame_addr) kept, the chain waiting for
 * the parent's exit, its frame's latency set (frame_exit_lat, shown: it
 * failed; its result fexit_fail's). Nothing else in handle_exit applies then: no -T, -S,
 * -I or -B (lean_calls, emit_trace), no saved chain to drop or stitch
 * (saved_depth - 2 <= slow_at < d), no other chain waiting for this exit.
 * Returns 1 when done, else 0, nothing changed (handle_exit then). Most
 * first failures are NULL results a caller swallows (a lookup that finds
 * nothing) */
static __always_inline int fexit_first(struct session *s, u32 d, struct rs_frame *f, u32 id,
				       u64 q, bool cast)
{
	struct fexit_ret w = {};   /* as in fexit_defer_first */
	struct rs_func_range *pr;
	u32 slot;

	if ((s32)d <= s->slow_at || !fexit_frame_at_c(q, id, &w, cast, true))
		return 0;
	/* into the parent's code, or into its trampoline when the parent
	 * tail-called this function (as rs_fdefer_keep) */
	pr = frame_range(s, d - 1);
	if (!pr || !((w.caller >= pr->start && w.caller < pr->end) ||
		     (w.caller >= pr->tramp_start && w.caller < pr->tramp_end)))
		return 0;
	frame_exit_lat(s, f);   /* its result: fexit_fail's */
	s->is_err = true;
	s->max_depth = d + 1;
	slot = s->cur & 1;
	s->kstack[slot][0] = w.site;
	s->kstack[slot][1] = w.caller;
	chain_wait(s, slot, 2, d - 1);
	stat_inc(&stats.stacks_deferred);
	/* hold_sync's answer: everything it takes the largest of was at
	 * most slow_at < d, and the chain now waits at d - 1 */
	s->slow_at = d - 1;
	s->depth = d;
	return 1;
}

/* the one chain that goes on through the exit of frame d (whose
 * trampoline frame is at q), its return addresses kept by rs_fdefer_keep's
 * checks (into a traced ancestor, or through a learned return site in
 * untraced code); the current chain's slot is taken to go on (is_err) or
 * to be ignored (ignore_cur). 1: done or nothing to do (no chain waits for
 * this exit), 0: handle_exit's (both wait, one waits for a deeper exit, the
 * checks fail), nothing changed but a learned site read */
static __always_inline int fexit_keep_one(struct session *s, u32 d, u32 id, u64 q, bool ignore_cur,
					  bool cast)
{
	struct fexit_ret w = {};   /* as in fexit_defer_first */
	u32 cur = s->cur & 1, slot;
	s32 p0 = s->pend_depth[0], p1 = s->pend_depth[1], sd = (s32)d;

	if (ignore_cur) {
		if (cur)
			p1 = -1;
		else
			p0 = -1;
	}
	if (p0 > sd || p1 > sd || (p0 == sd && p1 == sd))
		return 0;
	if (p0 != sd && p1 != sd)
		return 1;
	slot = p0 == sd ? 0 : 1;
	if (!fexit_frame_at_c(q, id, &w, cast, true))
		return 0;
	/* its common case (into the parent's code) inline, the rest through
	 * the global function, as handle_exit's deferral calls it: all of it
	 * inline here made each clone's verification half as long again */
	return fdefer_into_parent(s, slot, s->pend_n[slot], d, w.site, w.caller) ||
	       fdefer_keep_call(s, slot, s->pend_n[slot], d, &w, cast,
					 FKEEP_NOT_PARENT) == FKEEP_KEPT;
}

/* fentry's chain step, fast: the nested call of frame d (f) failed inside
 * the error chain (is_err), and the one chain waiting for this exit, if
 * any (the current one, or the saved one it will be stitched to), goes on
 * (fexit_keep_one). The rest as handle_exit does it then: the frame's
 * latency (shown; its result fexit_fail's), the saved chain's exit (first, as there:
 * done again there, a no-op, when this returns 0), slow_at. Returns 1 when
 * done, else 0 */
static __always_inline int fexit_chain(struct session *s, u32 d, struct rs_frame *f, u32 id,
				       u64 q, bool cast)
{
	saved_chain_exit(s, d);
	if (!fexit_keep_one(s, d, id, q, false, cast))
		return 0;
	frame_exit_lat(s, f);   /* its result: fexit_fail's */
	hold_sync(s);
	s->depth = d;
	return 1;
}

/* fentry's first failure right above the saved chain (d + 2 ==
 * saved_depth), fast: emitted stitched to it (chain_first_failure), so the
 * current slot keeps no stack, and the saved chain goes on through this
 * exit when it waits for it (fexit_keep_one); as handle_exit then. Returns
 * 1 when done, else 0, nothing changed */
static __always_inline int fexit_first_stitched(struct session *s, u32 d, struct rs_frame *f,
						u32 id, u64 q, bool cast)
{
	u32 cur = s->cur & 1;

	if (success_stacks || !fexit_keep_one(s, d, id, q, true, cast))
		return 0;
	frame_exit_lat(s, f);   /* its result: fexit_fail's */
	s->is_err = true;
	s->max_depth = d + 1;
	s->kstack_sz[cur] = 0;
	s->pend_depth[cur] = -1;
	saved_chain_exit(s, d);
	hold_sync(s);
	s->depth = d;
	return 1;
}

/* the failed exit of the session's entry function (frame 0, function id,
 * its trampoline frame at q) with the error chain gone on up to it
 * (is_err), fast: as handle_exit ends such a session in lean mode (no -T,
 * -S, -I, -B, -U), without its general tests. The chain waiting for this
 * exit (the current one, or the saved one the current one is stitched to)
 * is completed from a trusted learned tail (tail_read: nothing else is
 * tried here), the saved chain dropped where it is not stitched, frame 0's
 * latency set (its result fexit_fail's), the session submitted (rs_end_output, counted
 * as submit_session counts it). Returns FEXIT_ENDED when done (the caller
 * closes the session), else 0 with nothing changed but the tail's read count (never
 * at the read a check unwind is due at: TAIL_FIRST) or trust:
 * handle_exit then (both chains waiting, no tail learned yet, ...) */
static __always_inline int fexit_end(struct session *s, u32 id, u64 q, bool cast)
{
	struct fexit_ret w = {};   /* as in fexit_defer_first */
	u32 cur, slot = 0, n = 0, flags = 0;
	s32 p[2], cnt = 0;
	bool drop, waits;
	struct rs_frame *f;
	u64 now, *ks;
	long err;

	/* fexit_fail's, which tested s, fexit_fast_ready and depth 1 */
	if (!lean_calls || !defer_stacks || emit_success || emit_interim || use_lbr || emit_ustack)
		return 0;
	if (s->overflow_depth || !s->is_err)   /* frame 0's id: fexit_fail's */
		return 0;
	/* saved_chain_exit at frame 0, decided first (nothing it tests
	 * changes before it runs below): a dropped saved chain waits no more */
	cur = s->cur & 1;
	drop = saved_chain_ends(s, 0);
	p[0] = s->pend_depth[0];
	p[1] = s->pend_depth[1];
	if (drop)
		p[cur ^ 1] = -1;
	if (p[0] >= 0 && p[1] >= 0)
		return 0;
	waits = p[0] >= 0 || p[1] >= 0;
	if (waits) {
		slot = p[0] >= 0 ? 0 : 1;
		n = s->pend_n[slot];
		if (n > RS_MAX_KSTACK_DEPTH - 2 || !fexit_frame_at_c(q, id, &w, cast, true))
			return 0;
		cnt = tail_read_call(s, slot | (n + 1) << 1 | TAIL_FIRST, w.caller, w.sp, cast);
		if (cnt <= 0)
			return 0;
		/* fexit_rest's, the tail read */
		ks = s->kstack[slot];
		ks[KIDX(n)] = w.site;
		chain_completed(s, slot, (n + cnt + 1) * 8);
	}
	now = bpf_ktime_get_ns();
	f = &s->frames[0];   /* its result: fexit_fail's */
	f->lat_ns = now - f->lat_ns;
	s->next_seq_id++;
	saved_chain_exit(s, 0);
	s->depth = 0;
	if (duration_ns && f->lat_ns < duration_ns) {
		flags = RS_SESS_IGNORED;
		if (!s->start_emitted)
			return FEXIT_ENDED;
	}
	err = rs_end_output(s, flags, now);
	session_counted(err, flags);
	return FEXIT_ENDED;
}

/* fentry's failed call, fast where it can be: a chain's first failure
 * (fexit_first, fexit_first_stitched), its next step (fexit_chain), the
 * session's end (fexit_end: FEXIT_ENDED); 0 for handle_exit. Inline in
 * the clones (fexit_fast) */
static __always_inline int fexit_fail(struct session *s, u32 id, s64 res, u64 q, bool cast)
{
	struct rs_frame *f;
	u32 d;

	if (!s || emit_trace || !fexit_fast_ready())
		return 0;
	/* the frame's result is stored first, whatever is done then (the
	 * whole path, after a 0, stores the same in the same frame): res is
	 * not kept across a call, so the clone's common exit keeps no copy of
	 * it either */
	if (s->depth == 1) {
		if (s->frames[0].func_id != id)
			return 0;
		s->frames[0].res = res;
		return fexit_end(s, id, q, cast);
	}
	/* a depth is never above max_fstack_depth <= RS_MAX_FSTACK_DEPTH
	 * (FIDX bounds the index for the verifier) */
	if (s->overflow_depth || s->depth < 2)
		return 0;
	d = s->depth - 1;
	f = &s->frames[FIDX(d)];
	if (f->func_id != id)
		return 0;
	f->res = res;
	if (s->is_err)
		return fexit_chain(s, d, f, id, q, cast);
	if (s->saved_depth && d + 2 == s->saved_depth)
		return fexit_first_stitched(s, d, f, id, q, cast);
	return fexit_first(s, d, f, id, q, cast);
}

/* fexit_fast, its flags a constant in the copy each common set of them
 * gets: the verifier, which knows a clone's flags (RS_CLONE_FLAGS_MAGIC's
 * immediate, patched in as RS_CLONE_FLAGS of the cookie's by the recorder),
 * keeps only its function's copy */
static __always_inline bool fexit_fast_of(void *ctx, struct cpu_state *c, struct session *s,
					 u64 cookie, s64 res, u32 kctx)
{
	u32 fx, ak;

	asm volatile("%0 = %1" : "=r"(fx) : "i"(RS_CLONE_FLAGS_MAGIC));
	/* the argument registers + 1 (fexit_fail_of), read once here: the
	 * recorder patches the one copy */
	asm volatile("%0 = %1" : "=r"(ak) : "i"(RS_CLONE_ARGS_MAGIC));

	switch (fx) {
	case 0:
		return fexit_fast(ctx, c, s, cookie, res, 0, ak, kctx);
	case RS_FUNC_RET_PTR:
		return fexit_fast(ctx, c, s, cookie, res, RS_FUNC_RET_PTR, ak, kctx);
	case RS_FUNC_NEEDS_SIGN_EXT:
		return fexit_fast(ctx, c, s, cookie, res, RS_FUNC_NEEDS_SIGN_EXT, ak, kctx);
	case RS_FUNC_CANT_FAIL:
		return fexit_fast(ctx, c, s, cookie, res, RS_FUNC_CANT_FAIL, ak, kctx);
	case RS_FUNC_CANT_FAIL | RS_FUNC_NEEDS_SIGN_EXT:
		return fexit_fast(ctx, c, s, cookie, res, RS_FUNC_CANT_FAIL | RS_FUNC_NEEDS_SIGN_EXT, ak, kctx);
	default:
		return fexit_fast(ctx, c, s, cookie, res, fx, ak, kctx);
	}
}

/* cookie: RS_FUNC_COOKIE(id, flags) of the traced function; task: the
 * current one, s: its session as session_cached found it (NULL: not
 * looked up further yet); returns whether this call's exit must be seen
 * (kprobe.session skips the exit of a call that opened no frame and counts
 * no untracked depth) */
static __always_inline bool handle_entry(void *ctx, struct cpu_state *c, struct session *s,
					 u64 task, u64 cookie)
{
	u64 now;
	u32 id = (u32)cookie, flags = cookie >> 32, d, seq_id, *ts = NULL;
	bool fresh = false, latest = false;

	if (id >= nr_funcs)
		return false;
	if (!s)
		s = session_uncached(c, task, &ts, &latest);
	if (!s) {
		/* not ready (before the recorder's start, after its stop): no
		 * new session; the open ones go on to their ends */
		if (!(flags & RS_FUNC_IS_ENTRY) || !ready)
			return false;
		/* a thread the CPU's cache names had a session: it was allowed
		 * (and a tgid stays allowed; a name can change) */
		if ((!latest || filter_comm || deny_comm) && !task_allowed())
			return false;
		s = session_take(c, task, ts, latest);
		if (!s) {
			stat_inc(&stats.sessions_table_full);
			return false;
		}
		session_open(s, bpf_get_current_pid_tgid());
		fresh = true;
	}
	now = bpf_ktime_get_ns();   /* one clock read per call: the session's start too */
	if (fresh) {
		s->start_ts = now;
		/* -A: FUNC_ARGS records need their session now; -T alone sends
		 * it with the first batch (a session not shown sends nothing) */
		if (capture_args && !emit_session_start(s))
			s->defunct = true;
	}
	if (s->defunct) {
		s->overflow_depth++;
		overflow_sync(s);
		return true;
	}
	if (s->depth >= max_fstack_depth || s->depth >= RS_MAX_FSTACK_DEPTH || s->overflow_depth) {
		s->overflow_calls++;
		s->overflow_depth++;
		overflow_sync(s);
		stat_inc(&stats.depth_overflows);
		return true;
	}
	d = s->depth;
	if (d != s->max_depth) {
		/* deeper data is about to be overwritten: -I keeps a snapshot */
		if (emit_interim && (emit_success || s->is_err))
			submit_session(ctx, s, RS_SESS_INTERIM, now);
		if (s->is_err)
			save_error_chain(s);
	}

	if (d >= RS_MAX_FSTACK_DEPTH)
		return true;
	s->is_err = false;
	seq_id = frame_push(s, d, id, now, false);
	if (emit_trace && capture_args)   /* records of a session reach the reader in order */
		rs_trace_flush(s);
	args_capture(ctx, s->sess_id, seq_id, id);
	return true;
}

/* kctx: what ctx is (CTX_*); it picks the deferred stacks' form
 * (bpf/stack_defer.bpf.h). A constant in each caller. task, s: as in
 * handle_entry */
static __always_inline void handle_exit(void *ctx, struct cpu_state *c, struct session *s,
					u64 task, u64 cookie, s64 res, u32 kctx)
{
	struct rs_frame *f;
	u64 now, lat;
	u32 id = (u32)cookie, flags = cookie >> 32, d, seq_id, *ts = NULL;
	bool latest;
	bool failed;

	if (id >= nr_funcs)
		return;
	if (!s)
		s = session_uncached(c, task, &ts, &latest);
	if (!s)
		return;
	if (s->overflow_depth) {
		s->overflow_depth--;
		overflow_sync(s);
		if (s->defunct && !s->overflow_depth && !s->depth)
			session_close(c, s);
		return;
	}
	if (!s->depth)
		return;

	d = s->depth - 1;
	if (d >= RS_MAX_FSTACK_DEPTH)
		return;
	if (s->frames[FIDX(d)].func_id != id) {
		/* a missed return: find this function further down and drop
		 * the frames above it; an exit we never saw enter is ignored */
		u32 k, found = RS_MAX_FSTACK_DEPTH;

		stat_inc(&stats.exit_mismatches);
		/* each frame passed is dropped (or, not found, stays open:
		 * an open frame's result is not read) and shows no result */
		s->frames[FIDX(d)].res = 0;
		for (k = 0; k < RS_MAX_FSTACK_DEPTH; k++) {
			if (k >= d)
				break;
			if (s->frames[FIDX(d - 1 - k)].func_id == id) {
				found = d - 1 - k;
				break;
			}
			s->frames[FIDX(d - 1 - k)].res = 0;
		}
		if (found >= RS_MAX_FSTACK_DEPTH)
			return;
		d = found;
		s->depth = d + 1;
		if (s->max_depth < d + 1)
			s->max_depth = d + 1;
		if (!s->counted_incomplete) {
			s->counted_incomplete = true;
			stat_inc(&stats.sessions_incomplete);
		}
	}

	f = &s->frames[FIDX(d)];
	if (flags & RS_FUNC_NEEDS_SIGN_EXT)
		res = (s64)(s32)res;
	failed = is_failure(flags, res);
	/* a successful call's latency is read only by the trace view, success
	 * sessions, interim snapshots, the entry function's own frame (-L, the
	 * session's end) and calls that cannot fail (they stay in an error
	 * chain): else no clock read */
	if (failed || emit_trace || emit_success || emit_interim || d == 0 ||
	    (flags & RS_FUNC_CANT_FAIL)) {
		now = bpf_ktime_get_ns();
		lat = now - f->lat_ns;
	} else {
		now = lat = 0;
	}
	seq_id = s->next_seq_id++;
	if (emit_trace)
		emit_trace_rec(s, RS_REC_TRACE_EXIT, seq_id, id, d + 1, res, lat, now);

	f->res = res;
	f->lat_ns = lat;
	if (!(flags & RS_FUNC_CANT_FAIL)) {
		if (failed) {
			if (!s->is_err) {
				chain_first_failure(ctx, s, d, id, kctx, false);
				capture_lbrs(s);
			}
		} else {
			s->is_err = false;
		}
	}
	if (!s->is_err && emit_success && d + 1 == s->max_depth) {
		/* the deepest successful call's stack: a capture at every leaf
		 * exit, so only when a call-stack view will show it */
		if (success_stacks)
			s->kstack_sz[s->cur & 1] = bpf_get_stack(ctx, s->kstack[s->cur & 1],
								 sizeof(s->kstack[0]), 0);
		else
			s->kstack_sz[s->cur & 1] = 0;
		s->pend_depth[s->cur & 1] = -1;
		capture_lbrs(s);
	}
	saved_chain_exit(s, d);
	if (defer_stacks && (s->pend_depth[0] >= 0 || s->pend_depth[1] >= 0)) {
		if (kctx & CTX_REGS)
			defer_exit_call(ctx, s, d, kctx & CTX_CAST);   /* a chain waits for an exit */
		else
			fexit_defer_exit(ctx, s, d, id, kctx & CTX_CAST);
	}
	hold_sync(s);
	s->depth = d;
	if (d == 0) {
		submit_session(ctx, s, 0, now);
		session_close(c, s);
	}
}

/* the lean object's whole paths are outlined (on_entry, on_exit) */
#ifdef RS_LEAN
#define WHOLE_OUTLINED 1
#else
#define WHOLE_OUTLINED 0
#endif

/* handle_entry and handle_exit outlined: static subprograms (verified in
 * their caller's state, as inline code is), so that the front ends' own
 * code, whose common path calls neither, holds fewer values across calls:
 * the JIT saves and restores every callee-saved register a program's body
 * uses, on every run, whichever path it takes. handle_exit's CPU state
 * and task are read again there (a slow path), one copy per context kind */
static __noinline bool entry_whole(void *ctx, struct cpu_state *c, struct session *s, u64 task,
				   u64 cookie)
{
	return handle_entry(ctx, c, s, task, cookie);
}

/* an fentry clone's: the task read here, and its session looked up by it
 * (session_on_stack found none: see there; slot_s, its slot's session) */
static __noinline bool entry_whole_clone(void *ctx, struct cpu_state *c, struct session *slot_s,
					 u64 cookie)
{
	u64 task = bpf_get_current_task();

	return handle_entry(ctx, c, session_of_task(slot_s, task), task, cookie);
}

/* the traced call's result, read again here: the registers', or
 * through the helper for fexit (the clones' direct read, patched by the
 * recorder, stays one site: fexit_ret) */
#define EXIT_WHOLE(name, kctx)								\
static __noinline int name(void *ctx, struct session *s, u64 cookie)			\
{											\
	struct cpu_state *c = cpu_state_get();						\
	u64 res, task = bpf_get_current_task();						\
											\
	if ((kctx) & CTX_REGS) {							\
		res = PT_REGS_RC((struct pt_regs *)ctx);				\
	} else {									\
		bpf_get_func_ret(ctx, &res);						\
		s = session_cached(c, task);   /* session_on_stack's NULL */		\
	}										\
	handle_exit(ctx, c, s, task, cookie, (s64)res, kctx);				\
	return 0;									\
}
EXIT_WHOLE(exit_whole_args, CTX_ARGS)
EXIT_WHOLE(exit_whole_cast, CTX_ARGS | CTX_CAST)
EXIT_WHOLE(exit_whole_regs, CTX_REGS)
EXIT_WHOLE(exit_whole_regs_cast, CTX_REGS | CTX_CAST)

static __always_inline void exit_whole(void *ctx, struct session *s, u64 cookie, u32 kctx)
{
	if (kctx == CTX_ARGS)
		exit_whole_args(ctx, s, cookie);
	else if (kctx == (CTX_ARGS | CTX_CAST))
		exit_whole_cast(ctx, s, cookie);
	else if (kctx == CTX_REGS)
		exit_whole_regs(ctx, s, cookie);
	else
		exit_whole_regs_cast(ctx, s, cookie);
}

/* the current task (bpf_get_current_task), read by the front ends
 * first: after that helper call the fast paths call none, or only the
 * clock, so their values need not be kept across calls (spilled to the
 * stack and read back). 0 with -B, whose exit reads the branches first
 * (on_exit) */
static __always_inline u64 task_early(void)
{
	return use_lbr ? 0 : bpf_get_current_task();
}

/* the function's cookie: the recorder puts it in place of
 * RS_CLONE_COOKIE_MAGIC, in every copy clang makes of this read, before
 * each clone's (and the templates', function 0's) load (record/attach.c,
 * record/clone_patch.c); a program where it is not found is not loaded */
static __always_inline u64 fentry_func_cookie(void)
{
	u64 k;

	asm volatile("%0 = %1 ll" : "=r"(k) : "i"(RS_CLONE_COOKIE_MAGIC));
	return k;
}

/* a traced call's entry and exit: the fast path (fast_entry, fast_exit),
 * else the whole one, which starts from the fast path's session lookup
 * (the CPU's cache); on_entry returns whether the exit must be seen.
 * task: task_early's; clone (a constant): an fentry clone's, whose cookie
 * is read after the session's lookup (fentry_func_cookie: not kept across
 * its call), whose session is found by the stack it runs on
 * (session_on_stack) and whose whole path alone reads the task */
static __always_inline bool on_entry(void *ctx, struct cpu_state *c, u64 task, u64 cookie,
				     bool clone)
{
	struct session *s, *slot_s = NULL;

	if (clone) {
		s = session_on_stack(c, &slot_s);
		cookie = fentry_func_cookie();
	} else {
		if (use_lbr)
			task = bpf_get_current_task();
		s = session_cached(c, task);
	}
	if (fast_entry(s, cookie))
		return true;
	/* the whole path outlined in the lean object (WHOLE_OUTLINED), whose
	 * calls mostly take the fast path, else inline: in the general one
	 * with -A, -I, -S or -B every call takes it, and a call and a second
	 * lookup on each cost more than the registers the fast path then
	 * keeps (insn_profile: -M -T +67 instructions per traced call
	 * outlined; +10 still with both forms there, the verifier keeping
	 * one: clang's registers) */
	if (WHOLE_OUTLINED) {
		if (clone)
			return entry_whole_clone(ctx, c, slot_s, cookie);
		return entry_whole(ctx, c, s, task, cookie);
	}
	if (clone) {
		task = bpf_get_current_task();
		s = session_of_task(slot_s, task);
	}
	return handle_entry(ctx, c, s, task, cookie);
}

/* the traced function's return value: loaded from its slot in the
 * context where the recorder patched that in (RS_CLONE_RET_MAGIC; a
 * pointer's, which the verifier types by BTF, stored and read back so that
 * it is a number), else through the helper (which never fails in fexit) */
static __always_inline u64 fexit_ret(u64 *ctx, struct cpu_state *c, u32 kctx)
{
	u64 ret, direct;

	asm volatile("%0 = %1" : "=r"(direct) : "i"(RS_CLONE_RET_MAGIC));
	/* one load each (the recorder patches both offsets): each test is
	 * then the verifier's alone, direct being a constant in each clone,
	 * and the path a clone does not take is not in its code at all */
	if ((kctx & CTX_CAST) && direct == RS_CLONE_RET_NUM) {
		asm volatile("%0 = *(u64 *)(%1 + %2)" : "=r"(ret) : "r"(ctx), "i"(RS_CLONE_RET_OFF_MAGIC));
		return ret;
	}
	if ((kctx & CTX_CAST) && direct == RS_CLONE_RET_PTR) {
		asm volatile("%0 = *(u64 *)(%1 + %2)" : "=r"(ret) : "r"(ctx), "i"(RS_CLONE_RET_OFF_MAGIC));
		*(volatile u64 *)&c->ret = ret;
		return *(volatile u64 *)&c->ret;
	}
	bpf_get_func_ret(ctx, &ret);
	return ret;
}

/* cookie: the kprobe front ends' (an fexit clone's is read here, as in
 * on_entry); the call's result is read here, after the session's lookup
 * (fexit_ret, or the registers), so that it is not kept across it */
static __always_inline void on_exit(void *ctx, struct cpu_state *c, u64 task, u64 cookie, u32 kctx)
{
	struct session *s, *slot_s = NULL;
	s64 res;

	if (use_lbr) {
		/* first: the branches before this exit, not ours */
		u32 zero = 0;
		struct lbr_buf *lb = bpf_map_lookup_elem(&lbr_scratch, &zero);

		if (lb)
			lb->sz = bpf_get_branch_snapshot(lb->e, sizeof(lb->e), 0);
		if (kctx & CTX_REGS)   /* fexit's needs none: session_on_stack */
			task = bpf_get_current_task();
	}
	if (!(kctx & CTX_REGS))
		s = session_on_stack(c, &slot_s);
	else
		s = session_cached(c, task);
	/* fexit's result read here, not kept across the lookup (the
	 * registers' where used: fast_exit, handle_exit); an fexit clone's
	 * cookie as in on_entry */
	res = 0;
	if (!(kctx & CTX_REGS)) {
		res = (s64)fexit_ret(ctx, c, kctx);   /* first: may be a call */
		cookie = fentry_func_cookie();
	}
	/* no session the cache names: straight to the whole path (one NULL
	 * test, the fast paths below then know s) */
	if (s && ((kctx & CTX_REGS) ? fast_exit(ctx, s, cookie, kctx) :
		  fexit_fast_of(ctx, c, s, cookie, res, kctx)))
		return;
	if (!(kctx & CTX_REGS))   /* read again: not kept across fexit_fail's calls */
		cookie = fentry_func_cookie();
	/* outlined or inline, as in on_entry; fexit's session looked up by
	 * the task (outlined: there, nothing kept across fexit_fail's calls
	 * for it) */
	if (WHOLE_OUTLINED) {
		exit_whole(ctx, (kctx & CTX_REGS) ? s : NULL, cookie, kctx);
		return;
	}
	if (!(kctx & CTX_REGS)) {
		task = bpf_get_current_task();
		s = session_of_task(slot_s, task);
	} else {
		res = (s64)PT_REGS_RC((struct pt_regs *)ctx);
	}
	handle_exit(ctx, c, s, task, cookie, res, kctx);
}

#include "probes.bpf.h"

/* ------------------------------------------------------------ front ends */

/* kprobe.multi: the function's cookie from ip_cookies by its address
 * (retsnoop_abi.h), else from the link */
static __always_inline u64 multi_cookie(struct pt_regs *ctx)
{
	u64 ip = bpf_get_func_ip(ctx), sh = ipc_shift;
	/* RS_IPC_SLOT(ip, ipc_bits), its shift precomputed; < 1 << ipc_bits:
	 * the first probe needs no mask. 64 bits wide for the global table's
	 * index (no extension), the map's key its low half */
	u64 kd = (ip * 0x9e3779b97f4a7c15ULL) >> sh;
	u32 k = (u32)kd;

	/* the global table (the test is the verifier's: sh is a constant) */
	if (sh >= 64 - RS_IPC_DIRECT_BITS) {
		for (u32 i = 0; i < RS_IPC_PROBES; i++) {
			const struct rs_ip_cookie *c = &ipc_direct_tab[kd];

			if (c->ip == ip)
				return c->cookie;
			if (!c->ip)
				break;
			kd = (kd + 1) & ipc_mask;
		}
		return bpf_get_attach_cookie(ctx);
	}
	for (u32 i = 0; i < RS_IPC_PROBES; i++) {
		struct rs_ip_cookie *c = bpf_map_lookup_elem(&ip_cookies, &k);

		if (!c)
			break;
		if (c->ip == ip)   /* the common case first: a hit */
			return c->cookie;
		if (!c->ip)
			break;
		k = (k + 1) & ipc_mask;
	}
	return bpf_get_attach_cookie(ctx);
}

/* kprobe modes: no guard (see guard_enter); the cookie is the function's */
SEC("kprobe.multi")
int rs_kentry_multi(struct pt_regs *ctx)
{
	u64 cookie = multi_cookie(ctx), task = task_early();

	on_entry(ctx, cpu_state_get(), task, cookie, false);
	return 0;
}

SEC("kretprobe.multi")
int rs_kexit_multi(struct pt_regs *ctx)
{
	u64 cookie = multi_cookie(ctx), task = task_early();

	on_exit(ctx, cpu_state_get(), task, cookie, CTX_REGS);
	return 0;
}

/* kprobe.session (Linux 6.10+): one program and one link for both ends,
 * one ftrace_ops per function instead of two, and no exit at all for a
 * call handle_entry does not track (the entry's non-zero return). The
 * section is kprobe.multi because libbpf 1.1 does not know kprobe.session:
 * record/attach.c sets the attach type, loads this program only where the
 * kernel has the kfunc, and attaches it itself. */
extern bool bpf_session_is_return(void) __ksym __weak;
extern __u64 *bpf_session_cookie(void) __ksym __weak;

SEC("kprobe.multi")
int rs_ksession(struct pt_regs *ctx)
{
	u64 cookie, task;

	/* the call's own 8 bytes (bpf_session_cookie), from its entry to its
	 * exit: the function's cookie, so that the exit needs no ip_cookies
	 * lookup. Each end makes its helper calls first (task_early) */
	if (bpf_session_is_return()) {
		cookie = *bpf_session_cookie();
		task = task_early();
		on_exit(ctx, cpu_state_get(), task, cookie, CTX_REGS | CTX_CAST);
		return 0;
	}
	cookie = multi_cookie(ctx);
	*bpf_session_cookie() = cookie;
	task = task_early();
	return on_entry(ctx, cpu_state_get(), task, cookie, false) ? 0 : 1;
}

SEC("kprobe")
int rs_kentry(struct pt_regs *ctx)
{
	u64 cookie = bpf_get_attach_cookie(ctx), task = task_early();

	on_entry(ctx, cpu_state_get(), task, cookie, false);
	return 0;
}

SEC("kretprobe")
int rs_kexit(struct pt_regs *ctx)
{
	u64 cookie = bpf_get_attach_cookie(ctx), task = task_early();

	on_exit(ctx, cpu_state_get(), task, cookie, CTX_REGS);
	return 0;
}

SEC("fentry")
int rs_fentry(u64 *ctx)
{
	struct cpu_state *c;

	if (!(c = guard_enter_ctx(ctx)))
		return (int)zero_here();
	on_entry(ctx, c, 0, 0, true);   /* no task: session_on_stack */
	return guard_exit_ret(c);
}

static __always_inline int fexit_prog(u64 *ctx, u32 kctx)
{
	struct cpu_state *c;

	if (!(c = guard_enter_ctx(ctx)))
		return (int)zero_here();
	/* the task: read by on_exit (session_on_stack) */
	on_exit(ctx, c, 0, 0, kctx);
	return guard_exit_ret(c);
}

/* the fexit template, in two forms: the recorder loads rs_fexit_cast where
 * the kernel has bpf_rdonly_cast (Linux 6.2+), whose deferred stacks read
 * the trampoline frame's and the stack's words as plain loads, else
 * rs_fexit (record/attach.c) */
SEC("fexit")
int rs_fexit(u64 *ctx)
{
	return fexit_prog(ctx, CTX_ARGS);
}

SEC("fexit")
int rs_fexit_cast(u64 *ctx)
{
	return fexit_prog(ctx, CTX_ARGS | CTX_CAST);
}

/* ------------------------------------------------------ task lifecycle */

/* a thread that exits mid-session never returns: free its session */
SEC("raw_tp/sched_process_exit")
int rs_task_exit(void *ctx)
{
	struct cpu_state *c = cpu_state_get();
	u32 *ts = NULL;
	bool latest;
	struct session *s = session_find(c, bpf_get_current_task(), &ts, &latest);

	/* not the CPU's spare: this program is not guarded against running
	 * inside a preempted fentry one */
	if (s) {
		session_close(NULL, s);
		stat_inc(&stats.sessions_exited);
	}
	return 0;
}

/* children of a traced process (-- CMD) are traced too */
SEC("raw_tp/sched_process_fork")
int BPF_PROG(rs_task_fork, struct task_struct *parent, struct task_struct *child)
{
	u32 ptgid, ctgid;
	u8 *v, allow = 1;

	if (!filter_tgid)
		return 0;
	ptgid = BPF_CORE_READ(parent, tgid);
	ctgid = BPF_CORE_READ(child, tgid);
	if (ptgid == ctgid)
		return 0;
	v = bpf_map_lookup_elem(&tgids, &ptgid);
	if (v && *v == 1)
		bpf_map_update_elem(&tgids, &ctgid, &allow, BPF_NOEXIST);
	return 0;
}
