/* link_info_ext.h - the head of the kernel's struct bpf_link_info
 * (include/uapi/linux/bpf.h) as far as the attach links' "missed" counters,
 * which the distribution's headers (linux-libc-dev 6.1) predate:
 * kprobe_multi.missed and perf_event.kprobe.missed, both added in Linux 6.7
 * ("bpf: Add missed value to kprobe_multi / kprobe perf link info").
 * Only the members on the way to those fields are spelled out; the layout is
 * the kernel's UAPI one and checked below. A kernel whose struct ends before
 * RS_LINK_INFO_MISSED_END (it says how much it filled in info_len) does not
 * report missed counts per link. */
#ifndef RS_LINK_INFO_EXT_H
#define RS_LINK_INFO_EXT_H

#include <stddef.h>
#include <linux/types.h>

struct rs_link_info_ext {
	__u32 type;                     /* enum bpf_link_type */
	__u32 id;
	__u32 prog_id;
	__u32 :32;
	union {
		struct {
			__aligned_u64 addrs;    /* in/out: addresses buffer (0: none) */
			__u32 count;            /* in/out: addresses wanted / present */
			__u32 flags;            /* BPF_F_KPROBE_MULTI_RETURN for an exit link */
			__u64 missed;
			__aligned_u64 cookies;
		} kprobe_multi;             /* BPF_LINK_TYPE_KPROBE_MULTI */
		struct {
			__u32 type;             /* enum bpf_perf_event_type */
			__u32 :32;
			struct {
				__aligned_u64 func_name;  /* in/out (0: not wanted) */
				__u32 name_len;
				__u32 offset;
				__u64 addr;
				__u64 missed;
				__u64 cookie;
			} kprobe;               /* BPF_PERF_EVENT_KPROBE, _KRETPROBE */
		} perf_event;               /* BPF_LINK_TYPE_PERF_EVENT */
	};
} __attribute__((aligned(8)));

/* the UAPI offsets (x86-64 and every 64-bit ABI: 8-byte aligned u64) */
_Static_assert(offsetof(struct rs_link_info_ext, kprobe_multi.missed) == 32,
	       "bpf_link_info.kprobe_multi.missed is at byte 32");
_Static_assert(offsetof(struct rs_link_info_ext, perf_event.kprobe.missed) == 48,
	       "bpf_link_info.perf_event.kprobe.missed is at byte 48");
_Static_assert(sizeof(struct rs_link_info_ext) == 64, "struct rs_link_info_ext is 64 bytes");

/* both missed fields came in the same kernel series: a kernel whose
 * bpf_link_info reaches past perf_event.kprobe.missed has them both */
#define RS_LINK_INFO_MISSED_END \
	(offsetof(struct rs_link_info_ext, perf_event.kprobe.missed) + sizeof(__u64))

/* BPF_PERF_EVENT_KPROBE, _KRETPROBE of enum bpf_perf_event_type (6.6+) */
#define RS_PERF_EVENT_KPROBE    3
#define RS_PERF_EVENT_KRETPROBE 4

#endif
