/* kernel_types.h - the few kernel types the BPF programs touch, declared
 * with preserve_access_index so CO-RE relocates every field access against
 * the running kernel's BTF (no generated vmlinux.h needed). */
#ifndef RS_KERNEL_TYPES_H
#define RS_KERNEL_TYPES_H

#define __VMLINUX_H__ 1   /* makes bpf_tracing.h use kernel pt_regs field names */

typedef unsigned char __u8;
typedef unsigned short __u16;
typedef unsigned int __u32;
typedef unsigned long long __u64;
typedef signed char __s8;
typedef short __s16;
typedef int __s32;
typedef long long __s64;
typedef __u16 __be16;
typedef __u32 __be32;
typedef __u32 __wsum;
typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s16 s16;
typedef __s32 s32;
typedef __s64 s64;
typedef _Bool bool;
#define true 1
#define false 0

enum bpf_map_type {
	BPF_MAP_TYPE_HASH = 1,
	BPF_MAP_TYPE_ARRAY = 2,
	BPF_MAP_TYPE_PERCPU_ARRAY = 6,
	BPF_MAP_TYPE_QUEUE = 22,
	BPF_MAP_TYPE_RINGBUF = 27,
	BPF_MAP_TYPE_TASK_STORAGE = 29,
};

enum {
	BPF_F_NO_PREALLOC = 1,            /* map_flags (required by task storage) */
};

enum {
	BPF_LOCAL_STORAGE_GET_F_CREATE = 1,
};

/* opaque: a ring buffer record reserved with bpf_ringbuf_reserve_dynptr */
struct bpf_dynptr {
	__u64 __opaque[2];
} __attribute__((aligned(8)));

enum {
	BPF_ANY = 0,
	BPF_NOEXIST = 1,
	BPF_EXIST = 2,
};

enum {
	BPF_RB_NO_WAKEUP = 1,
	BPF_RB_FORCE_WAKEUP = 2,
};

enum {
	BPF_RB_AVAIL_DATA = 0,     /* bpf_ringbuf_query(): bytes not yet consumed */
};

#if defined(__TARGET_ARCH_x86)
struct pt_regs {
	unsigned long r15, r14, r13, r12, bp, bx, r11, r10, r9, r8;
	unsigned long ax, cx, dx, si, di, orig_ax, ip, cs, flags, sp, ss;
} __attribute__((preserve_access_index));
#elif defined(__TARGET_ARCH_arm64)
struct user_pt_regs {
	__u64 regs[31];
	__u64 sp;
	__u64 pc;
	__u64 pstate;
} __attribute__((preserve_access_index));
struct pt_regs {
	union {
		struct user_pt_regs user_regs;
		struct {
			__u64 regs[31];
			__u64 sp;
			__u64 pc;
			__u64 pstate;
		};
	};
	__u64 orig_x0;
} __attribute__((preserve_access_index));
#endif

struct sched_entity {
	__u64 nr_migrations;
} __attribute__((preserve_access_index));

struct task_struct {
	void *stack;
	struct sched_entity se;
	__u64 start_time;
	int pid;
	int tgid;
	char comm[16];
	struct task_struct *group_leader;
	struct task_struct *real_parent;
} __attribute__((preserve_access_index));

struct perf_branch_entry {
	__u64 from;
	__u64 to;
	__u64 flags;
};

#endif
