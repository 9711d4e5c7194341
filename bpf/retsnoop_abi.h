/* retsnoop_abi.h - the kernel/user record ABI: every record the BPF side
 * emits through the ring buffer, and the per-function flags it consumes.
 * Included by bpf/retsnoop.bpf.c, format/, record/ and report/; the file
 * format stores these records verbatim (see docs/format.md). */
#ifndef RETSNOOP_ABI_H
#define RETSNOOP_ABI_H

#ifdef __bpf__
typedef unsigned char rs_u8;
typedef unsigned short rs_u16;
typedef unsigned int rs_u32;
typedef unsigned long long rs_u64;
typedef short rs_s16;
typedef int rs_s32;
typedef long long rs_s64;
#else
#include <stdint.h>
typedef uint8_t rs_u8;
typedef uint16_t rs_u16;
typedef uint32_t rs_u32;
typedef uint64_t rs_u64;
typedef int16_t rs_s16;
typedef int32_t rs_s32;
typedef int64_t rs_s64;
#endif

#define RS_MAX_FSTACK_DEPTH 64   /* logical (traced) frames per session */
#define RS_MAX_KSTACK_DEPTH 96   /* kernel stack entries captured */
#define RS_MAX_LBR_ENTRIES  32
#define RS_TASK_COMM_LEN    16
#define RS_MAX_CPUS       8192   /* the BPF side's per-CPU state (bpf/retsnoop.bpf.c
				  * cpu_states): every kernel's NR_CPUS at most */

/* per traced function flags (func_flags map value, and in the file's
 * traced-function table) */
enum rs_func_flags {
	RS_FUNC_IS_ENTRY       = 0x01,
	RS_FUNC_CANT_FAIL      = 0x02,
	RS_FUNC_NEEDS_SIGN_EXT = 0x04,
	RS_FUNC_RET_PTR        = 0x08,
	RS_FUNC_RET_BOOL       = 0x10,
	RS_FUNC_RET_VOID       = 0x20,
};

/* a traced function's failure bound: its result r (sign-extended from
 * 32 bits where RS_FUNC_NEEDS_SIGN_EXT) is a failure when
 * (u64)(r + 4095) < bound: 0 where it cannot fail, 4096 for a pointer
 * (an errno or NULL), else 4095 (an errno, -4095..-1) */
#define RS_FUNC_FAIL_BOUND(flags) \
	(((flags) & RS_FUNC_CANT_FAIL) ? 0 : ((flags) & RS_FUNC_RET_PTR) ? 4096 : 4095)

/* what the BPF side knows of a traced function, as one BPF cookie (kprobe
 * modes) or immediate (fentry: RS_CLONE_COOKIE_MAGIC): its id (index into
 * the traced-function table) in bits 0-31, its enum rs_func_flags in bits
 * 32-47 and its RS_FUNC_FAIL_BOUND in bits 48-63 (one compare tells a
 * failure where the flags are not a constant) */
#define RS_FUNC_COOKIE(id, flags) \
	(((rs_u64)RS_FUNC_FAIL_BOUND(flags) << 48) | ((rs_u64)((flags) & 0xffff) << 32) | \
	 (rs_u32)(id))
#define RS_COOKIE_FAIL_BOUND(cookie) ((cookie) >> 48)

/* kprobe.multi mode: the cookies again, in an open-addressing table
 * (array map ip_cookies, or the global array ipc_direct_tab up to
 * 1 << RS_IPC_DIRECT_BITS slots; 1 << bits slots, at most half full) keyed by the
 * function's address, which bpf_get_func_ip gives for the price of a load,
 * where bpf_get_attach_cookie bisects the link's sorted addresses at every
 * call. A function's slot is RS_IPC_SLOT or one of the next RS_IPC_PROBES - 1
 * (wrapping); one not found there falls back to bpf_get_attach_cookie. */
struct rs_ip_cookie {
	rs_u64 ip;                /* 0: an empty slot */
	rs_u64 cookie;            /* RS_FUNC_COOKIE */
};
#define RS_IPC_PROBES 8
/* a table of at most 1 << RS_IPC_DIRECT_BITS slots is the BPF side's
 * global array instead (no map lookup per call) */
#define RS_IPC_DIRECT_BITS 12

/* deferred stacks (bpf/stack_defer.bpf.h): a traced function's code, in
 * the array map func_ranges by function id; end 0: unknown. Fentry mode:
 * also its BPF trampoline's image once attached (tramp_end 0: unknown),
 * into which a function it tail-called returns */
struct rs_func_range {
	rs_u64 start, end;        /* [start, end) */
	rs_u64 tramp_start, tramp_end;
};
#define RS_IPC_SLOT(ip, bits) ((rs_u32)(((rs_u64)(ip) * 0x9e3779b97f4a7c15ULL) >> (64 - (bits))))

/* fentry mode: each function's clone of the fentry/fexit template, and the
 * templates themselves (function 0's), get its cookie in place of this
 * 64-bit immediate (record/attach.c). The source reads it once in each;
 * clang may copy that read into the paths after it, up to RS_COOKIE_SITES
 * copies in all */
#define RS_CLONE_COOKIE_MAGIC 0x5e7c00c1e5eed5a1ULL
#define RS_COOKIE_SITES 4

/* fentry mode, the fexit template: the flags its fast exit is specialized
 * by, RS_CLONE_FLAGS of its function's, in place of this 32-bit move
 * immediate (once in the template; the verifier then keeps only that
 * specialization, and it costs one move) */
#define RS_CLONE_FLAGS_MAGIC 0x5e7cf1a6
#define RS_CLONE_FLAGS(flags) ((flags) & (RS_FUNC_CANT_FAIL | RS_FUNC_NEEDS_SIGN_EXT | RS_FUNC_RET_PTR))

/* fentry mode, the fexit template that reads stack words through
 * bpf_rdonly_cast: its return value read from the context directly where
 * the verifier allows it (record/func_flags.c btf_func_ret_slot), else
 * through bpf_get_func_ret. A clone gets RS_CLONE_RET_NUM (an integer's
 * or an enum's slot, a number to the verifier) or RS_CLONE_RET_PTR (a
 * pointer's, which the verifier types: the program makes it a number) in
 * place of the 32-bit immediate RS_CLONE_RET_MAGIC (the template itself,
 * and a clone the kernel refused so, 0; it appears once) and then its
 * return slot's offset in place of the load offset RS_CLONE_RET_OFF_MAGIC
 * (once per form of the read, at most RS_RET_OFF_SITES) */
#define RS_CLONE_RET_MAGIC 0x5e7c0de1
#define RS_CLONE_RET_NUM 1
#define RS_CLONE_RET_PTR 2
#define RS_CLONE_RET_OFF_MAGIC 0x7ab8

/* fentry mode, the fexit template: its function's argument registers + 1
 * (record/func_flags.c btf_func_arg_regs; 0: not known) in place of this
 * 32-bit move immediate (once in the template), so that a failed exit
 * finds the trampoline's frame past the arguments without
 * bpf_get_func_arg_cnt (a helper call to clang: the values live across it
 * take callee-saved registers the common exit then saves too) */
#define RS_CLONE_ARGS_MAGIC 0x5e7ca125
#define RS_CLONE_ARGS(regs) ((regs) >= 0 ? (uint32_t)(regs) + 1 : 0u)

enum rs_rec_type {
	RS_REC_SESSION_START = 1, /* a session began (only with -T) */
	RS_REC_SESSION_END   = 2, /* final / interim stack snapshot */
	RS_REC_TRACE_ENTRY   = 3, /* -T: function entry */
	RS_REC_TRACE_EXIT    = 4, /* -T: function exit */
	RS_REC_LBR           = 5, /* -B: branch records of a session */
	RS_REC_FUNC_ARGS     = 6, /* -A: arguments of one traced call */
	RS_REC_PROBE         = 7, /* -J: an injected probe hit inside a session */
	RS_REC_USTACK        = 8, /* -U: user registers and stack copy of a session */
	RS_REC_UMAPS         = 9, /* -U: a process's executable mappings (written by
				   * the recorder from user space, not by BPF) */
	RS_REC_TRACE_BATCH   = 10, /* -T entries and exits of one session, stored
				    * as sent (format version 3); readers expand
				    * it into TRACE_ENTRY/EXIT records
				    * (format/rsf_trace_batch.c) */
	RS_REC_TRACE_PACKED  = 11, /* files only (format version 4): a
				    * TRACE_BATCH as the writer stores it, its
				    * entries delta- and varint-encoded
				    * (format/rsf_trace_pack.c) */
};

/* Variable-sized records (FUNC_ARGS, PROBE, USTACK, UMAPS): hdr.size is
 * the fixed part plus the bytes that follow it, rounded up to 8; readers
 * take the payload length from the record's own length field and check it
 * against hdr.size. */
#define RS_REC_ALIGN(n) (((n) + 7) & ~7u)

/* every record starts with this; size covers the whole record */
struct rs_rec_hdr {
	rs_u32 type;
	rs_u32 size;
};

/* RS_REC_SESSION_END flags */
enum rs_sess_flags {
	RS_SESS_IS_ERR     = 0x01, /* the entry function failed */
	RS_SESS_INTERIM    = 0x02, /* interim snapshot (-I), session continues */
	RS_SESS_IGNORED    = 0x04, /* filtered on the BPF side: only frees state */
	RS_SESS_STITCHED   = 0x08, /* frames [stitch_pos, nframes) come from a saved deeper chain */
	RS_SESS_OVERFLOW   = 0x10, /* calls deeper than RS_MAX_FSTACK_DEPTH happened */
};

struct rs_frame {
	rs_u32 func_id;   /* index into the traced-function table */
	rs_u32 seq_id;    /* per-session sequence id of the entry */
	rs_s64 res;       /* raw return register (unfinished: 0) */
	rs_u64 lat_ns;    /* duration; for unfinished frames the entry time */
};

struct rs_rec_session_start {
	struct rs_rec_hdr hdr;
	rs_u64 sess_id;
	rs_u32 tid, pid;
	rs_u64 start_ts;                  /* bpf_ktime_get_ns() */
	char task_comm[RS_TASK_COMM_LEN];
	char proc_comm[RS_TASK_COMM_LEN];
};

/* two layouts (docs/format.md): full (hdr.size = sizeof, as declared) or
 * compact (hdr.size smaller: frames[nframes] follow the fixed part, then
 * kstack_sz bytes of kernel stack); readers expand both with
 * rsf_end_expand() (format/rsfile.h) */
struct rs_rec_session_end {
	struct rs_rec_hdr hdr;
	rs_u64 sess_id;                   /* tid, or (1<<32 | cpu) for idle threads */
	rs_u32 tid, pid;
	rs_u64 start_ts, end_ts;          /* bpf_ktime_get_ns() */
	char task_comm[RS_TASK_COMM_LEN];
	char proc_comm[RS_TASK_COMM_LEN];
	rs_u32 flags;                     /* enum rs_sess_flags */
	rs_u16 nframes;                   /* valid entries of frames[] (max depth of the stack) */
	rs_u16 depth;                     /* frames [0, depth) were still running (interim) */
	rs_u16 stitch_pos;                /* with RS_SESS_STITCHED */
	rs_u16 _pad;
	rs_u32 last_seq_id;
	rs_u32 dropped_records;           /* -T records lost to a full ring buffer */
	rs_u32 overflow_calls;            /* calls not tracked: deeper than 64 */
	rs_s32 kstack_sz;                 /* bytes of kstack[] (negative: error) */
	struct rs_frame frames[RS_MAX_FSTACK_DEPTH];
	rs_u64 kstack[RS_MAX_KSTACK_DEPTH];
};

struct rs_rec_trace {
	struct rs_rec_hdr hdr;            /* RS_REC_TRACE_ENTRY / RS_REC_TRACE_EXIT */
	rs_u64 sess_id;
	rs_u64 ts;
	rs_u32 seq_id;
	rs_u32 func_id;
	rs_u16 depth;                     /* 1-based */
	rs_u16 _pad[3];
	rs_s64 res;                       /* exit only */
	rs_u64 lat_ns;                    /* exit only */
};

/* -T: the kernel side keeps a session's entries and exits in its own
 * storage and sends them RS_TRACE_BATCH at a time (or before any other
 * record of the session, or at its end), one ring-buffer record instead of
 * one per call end; a succeeding session that is not shown sends none */
#define RS_TRACE_BATCH 64
struct rs_trace_ent {
	rs_u64 ts;
	rs_u32 seq_id;
	rs_u32 func_id;
	rs_u16 depth;                     /* 1-based */
	rs_u16 type;                      /* RS_REC_TRACE_ENTRY / RS_REC_TRACE_EXIT */
	rs_u32 _pad;
	rs_s64 res;                       /* exit only */
	rs_u64 lat_ns;                    /* exit only */
};

struct rs_rec_trace_batch {
	struct rs_rec_hdr hdr;            /* RS_REC_TRACE_BATCH; size: e[n] */
	rs_u64 sess_id;
	rs_u32 n;                         /* entries in e[], 1..RS_TRACE_BATCH */
	rs_u32 _pad;
	struct rs_trace_ent e[RS_TRACE_BATCH];
};

/* a TRACE_BATCH in a file (format version 4): the same entries, packed
 * (docs/format.md); hdr.size is the fixed part plus nbytes, rounded up to 8 */
struct rs_rec_trace_packed {
	struct rs_rec_hdr hdr;            /* RS_REC_TRACE_PACKED */
	rs_u64 sess_id;
	rs_u32 n;                         /* entries, 1..RS_TRACE_BATCH */
	rs_u32 nbytes;                    /* bytes of data[] */
	rs_u8 data[];
};

struct rs_lbr_entry {
	rs_u64 from, to, flags;
};

struct rs_rec_lbr {
	struct rs_rec_hdr hdr;
	rs_u64 sess_id;
	rs_s32 lbrs_sz;                   /* bytes of lbrs[] (negative: error) */
	rs_u32 _pad;
	struct rs_lbr_entry lbrs[RS_MAX_LBR_ENTRIES];
};

/* ------------------------------------------------------------ -A arguments */
#define RS_MAX_FUNC_ARGS 12      /* descriptors per record: named args + vararg slots */

enum rs_arg_kind {
	RS_ARG_NONE     = 0,
	RS_ARG_VALUE    = 1,    /* the value's bytes (integer, enum, struct/union by value) */
	RS_ARG_STR      = 2,    /* char *: the string read through the pointer (NUL not kept) */
	RS_ARG_PTR_DATA = 3,    /* pointer to a sized type: the pointee's bytes */
	RS_ARG_PTR      = 4,    /* other pointers (or -C args.capture-raw-ptrs): 8-byte value */
	RS_ARG_VARARG   = 5,    /* one 8-byte slot of printf-like varargs */
	RS_ARG_RAW      = 6,    /* no BTF for the function: one raw 8-byte argument register */
};

enum rs_arg_flags {
	RS_ARGF_TRUNC   = 0x01, /* captured bytes were cut to a -C args.* budget */
	RS_ARGF_USER    = 0x02, /* read from user memory */
	RS_ARGF_NULL    = 0x04, /* the pointer was NULL (len 0) */
	RS_ARGF_UNAVAIL = 0x08, /* passed on the stack, which fentry cannot read (len 0) */
	RS_ARGF_ERR     = 0x10, /* the read failed: err holds -errno (len 0) */
	RS_ARGF_STRISH  = 0x20, /* vararg slot that looked like a kernel address:
				 * its string follows the slot's 8 bytes */
};

struct rs_arg_desc {
	rs_u8 kind;              /* enum rs_arg_kind */
	rs_u8 flags;             /* enum rs_arg_flags */
	rs_s16 err;              /* -errno with RS_ARGF_ERR */
	rs_u16 len;              /* bytes of this argument in data[] */
	rs_u16 off;              /* offset of those bytes in data[] (8-byte aligned) */
};

enum rs_args_rec_flags {
	RS_ARGS_BUDGET  = 0x01, /* args.max-total-args-size cut later arguments */
	RS_ARGS_NO_BTF  = 0x02, /* the function has no BTF: RS_ARG_RAW registers */
};

struct rs_rec_func_args {
	struct rs_rec_hdr hdr;            /* RS_REC_FUNC_ARGS */
	rs_u64 sess_id;
	rs_u32 seq_id;                    /* the call's entry seq_id (rs_frame.seq_id) */
	rs_u32 func_id;
	rs_u8 nargs;                      /* valid entries of args[] */
	rs_u8 flags;                      /* enum rs_args_rec_flags */
	rs_u16 data_len;                  /* bytes of data[] */
	rs_u32 _pad;
	struct rs_arg_desc args[RS_MAX_FUNC_ARGS];
	rs_u8 data[];
};

/* ------------------------------------------------------- -J injected probes */
enum rs_probe_flags {
	RS_PROBEF_CTX     = 0x01, /* data[] holds the hit's context (-A) */
	RS_PROBEF_TRUNC   = 0x02, /* context cut to args.max-sized-arg-size */
	RS_PROBEF_CTX_ERR = 0x04, /* reading the context failed: ctx_len is -errno */
};

struct rs_rec_probe {
	struct rs_rec_hdr hdr;            /* RS_REC_PROBE */
	rs_u64 sess_id;
	rs_u64 ts;                        /* bpf_ktime_get_ns() */
	rs_u32 seq_id;                    /* place in the session's call sequence */
	rs_u32 probe_id;                  /* index into the recording's "probes" table */
	rs_u16 depth;                     /* traced frames running at the hit */
	rs_u16 flags;                     /* enum rs_probe_flags */
	rs_s32 ctx_len;                   /* bytes of data[] (negative: -errno) */
	rs_u8 data[];                     /* kprobe/kretprobe: struct pt_regs; rawtp: the
					   * u64 arguments; tp: the raw trace event record */
};

/* ------------------------------------------------------ -U user stacks */
#define RS_USER_NREGS 21          /* x86-64 struct pt_regs, in the kernel's order:
				   * r15 r14 r13 r12 bp bx r11 r10 r9 r8 ax cx dx si di
				   * orig_ax ip cs flags sp ss */

enum rs_ustack_flags {
	RS_USTACKF_SHORT   = 0x01, /* the copy stopped at an unreadable page */
	RS_USTACKF_NO_USER = 0x02, /* a kernel thread: no user registers or stack */
	RS_USTACKF_ERR     = 0x04, /* reading failed from the start: err holds -errno */
};

struct rs_rec_ustack {
	struct rs_rec_hdr hdr;            /* RS_REC_USTACK, before its SESSION_END */
	rs_u64 sess_id;
	rs_u32 tid, pid;
	rs_u32 flags;                     /* enum rs_ustack_flags */
	rs_s32 err;
	rs_u64 regs[RS_USER_NREGS];       /* the task's user pt_regs */
	rs_u64 stack_addr;                /* user address of stack[0] (= regs' sp) */
	rs_u32 stack_len;                 /* bytes of stack[] */
	rs_u32 _pad;
	rs_u8 stack[];
};

struct rs_umap {
	rs_u64 start, end, pgoff;         /* as in /proc/PID/maps */
	rs_u8 build_id[20];
	rs_u8 build_id_len;               /* 0: none found */
	rs_u8 _pad[3];
	rs_u32 path_off;                  /* offset of the NUL-terminated path in the
					   * record's strings (after maps[]) */
};

struct rs_rec_umaps {
	struct rs_rec_hdr hdr;            /* RS_REC_UMAPS */
	rs_u64 ts;                        /* bpf_ktime_get_ns() clock when read */
	rs_u32 pid;
	rs_u32 nmaps;                     /* entries of maps[]; the strings follow */
	rs_u32 strings_len;
	rs_u32 _pad;
	struct rs_umap maps[];
};

/* BPF-side global counters (in .bss), copied to the file's trailer */
struct rs_bpf_stats {
	rs_u64 sessions_emitted;
	rs_u64 sessions_dropped;          /* ring buffer reservation failed for a session record */
	rs_u64 sessions_incomplete;       /* lost records inside a session */
	rs_u64 sessions_table_full;       /* no room in the sessions map */
	rs_u64 sessions_exited;           /* thread exited mid-session (cleaned up) */
	rs_u64 records_dropped;           /* all ring buffer reservation failures */
	rs_u64 depth_overflows;           /* calls deeper than RS_MAX_FSTACK_DEPTH */
	rs_u64 exit_mismatches;           /* exit of a function not on top of the shadow stack */
	rs_u64 ustacks_dropped;           /* -U: USTACK records lost (ring buffer full) */
	rs_u64 args_dropped;              /* -A: FUNC_ARGS records the ring buffer had no room for */
	rs_u64 stacks_deferred;           /* kernel stacks whose capture waited (bpf/stack_defer.bpf.h) */
	rs_u64 stacks_completed;          /* of those, completed at an ancestor's exit (the rest never needed) */
	rs_u64 stacks_read;               /* short unwinds replaced by a learned return site's read (bpf/ret_sites.bpf.h) */
	rs_u64 tails_read;                /* completing unwinds replaced by a learned tail's reads (bpf/stack_tails.bpf.h) */
};

#endif
