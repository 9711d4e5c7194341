/* helper_kinds.c - the table of BPF helpers' real return kinds, looked up
 * by the kernel-side implementation's name (helper_kinds.h). Helpers not
 * listed return a long that is negative on error. */
#include "record/helper_kinds.h"
#include <stdlib.h>
#include <string.h>
#include "bpf/retsnoop_abi.h"

enum helper_kind {
	HK_PTR,      /* a pointer, NULL when it fails */
	HK_GETTER,   /* a value that cannot be an error */
	HK_VOID,     /* returns nothing (0) */
	HK_INT32,    /* an int: 32-bit, sign-extended */
};

struct helper_kind_ent {
	const char *name;
	enum helper_kind kind;
};

/* sorted by name (strcmp), checked by the unit test */
static const struct helper_kind_ent helpers[] = {
	{ "bpf_cgrp_storage_get", HK_PTR },
	{ "bpf_dynptr_data", HK_PTR },
	{ "bpf_get_attach_cookie", HK_GETTER },
	{ "bpf_get_attach_cookie_kprobe_multi", HK_GETTER },
	{ "bpf_get_attach_cookie_pe", HK_GETTER },
	{ "bpf_get_attach_cookie_trace", HK_GETTER },
	{ "bpf_get_attach_cookie_tracing", HK_GETTER },
	{ "bpf_get_attach_cookie_uprobe_multi", HK_GETTER },
	{ "bpf_get_cgroup_classid", HK_GETTER },
	{ "bpf_get_cgroup_classid_curr", HK_GETTER },
	{ "bpf_get_current_ancestor_cgroup_id", HK_GETTER },
	{ "bpf_get_current_cgroup_id", HK_GETTER },
	{ "bpf_get_current_task", HK_GETTER },
	{ "bpf_get_current_task_btf", HK_PTR },
	{ "bpf_get_func_ip_kprobe", HK_GETTER },
	{ "bpf_get_func_ip_kprobe_multi", HK_GETTER },
	{ "bpf_get_func_ip_tracing", HK_GETTER },
	{ "bpf_get_func_ip_uprobe_multi", HK_GETTER },
	{ "bpf_get_hash_recalc", HK_GETTER },
	{ "bpf_get_listener_sock", HK_PTR },
	{ "bpf_get_local_storage", HK_PTR },
	{ "bpf_get_netns_cookie", HK_GETTER },
	{ "bpf_get_netns_cookie_sk_msg", HK_GETTER },
	{ "bpf_get_netns_cookie_sock", HK_GETTER },
	{ "bpf_get_netns_cookie_sock_addr", HK_GETTER },
	{ "bpf_get_netns_cookie_sock_ops", HK_GETTER },
	{ "bpf_get_netns_cookie_sockopt", HK_GETTER },
	{ "bpf_get_numa_node_id", HK_GETTER },
	{ "bpf_get_raw_cpu_id", HK_GETTER },
	{ "bpf_get_retval", HK_INT32 },
	{ "bpf_get_route_realm", HK_GETTER },
	{ "bpf_get_smp_processor_id", HK_GETTER },
	{ "bpf_get_socket_cookie", HK_GETTER },
	{ "bpf_get_socket_cookie_sock", HK_GETTER },
	{ "bpf_get_socket_cookie_sock_addr", HK_GETTER },
	{ "bpf_get_socket_cookie_sock_ops", HK_GETTER },
	{ "bpf_get_socket_ptr_cookie", HK_GETTER },
	{ "bpf_get_socket_uid", HK_GETTER },
	{ "bpf_inode_storage_delete", HK_INT32 },
	{ "bpf_inode_storage_get", HK_PTR },
	{ "bpf_jiffies64", HK_GETTER },
	{ "bpf_kptr_xchg", HK_PTR },
	{ "bpf_ktime_get_boot_ns", HK_GETTER },
	{ "bpf_ktime_get_coarse_ns", HK_GETTER },
	{ "bpf_ktime_get_ns", HK_GETTER },
	{ "bpf_ktime_get_tai_ns", HK_GETTER },
	{ "bpf_map_lookup_elem", HK_PTR },
	{ "bpf_map_lookup_percpu_elem", HK_PTR },
	{ "bpf_per_cpu_ptr", HK_PTR },
	{ "bpf_ringbuf_discard", HK_VOID },
	{ "bpf_ringbuf_discard_dynptr", HK_VOID },
	{ "bpf_ringbuf_query", HK_GETTER },
	{ "bpf_ringbuf_reserve", HK_PTR },
	{ "bpf_ringbuf_submit", HK_VOID },
	{ "bpf_ringbuf_submit_dynptr", HK_VOID },
	{ "bpf_set_hash", HK_GETTER },
	{ "bpf_set_hash_invalid", HK_VOID },
	{ "bpf_set_retval", HK_INT32 },
	{ "bpf_sk_ancestor_cgroup_id", HK_GETTER },
	{ "bpf_sk_cgroup_id", HK_GETTER },
	{ "bpf_sk_fullsock", HK_PTR },
	{ "bpf_sk_lookup_tcp", HK_PTR },
	{ "bpf_sk_lookup_udp", HK_PTR },
	{ "bpf_sk_storage_get", HK_PTR },
	{ "bpf_sk_storage_get_tracing", HK_PTR },
	{ "bpf_skb_ancestor_cgroup_id", HK_GETTER },
	{ "bpf_skb_cgroup_classid", HK_GETTER },
	{ "bpf_skb_cgroup_id", HK_GETTER },
	{ "bpf_skb_get_pay_offset", HK_GETTER },
	{ "bpf_skc_lookup_tcp", HK_PTR },
	{ "bpf_skc_to_mptcp_sock", HK_PTR },
	{ "bpf_skc_to_tcp6_sock", HK_PTR },
	{ "bpf_skc_to_tcp_request_sock", HK_PTR },
	{ "bpf_skc_to_tcp_sock", HK_PTR },
	{ "bpf_skc_to_tcp_timewait_sock", HK_PTR },
	{ "bpf_skc_to_udp6_sock", HK_PTR },
	{ "bpf_skc_to_unix_sock", HK_PTR },
	{ "bpf_sock_addr_sk_lookup_tcp", HK_PTR },
	{ "bpf_sock_addr_sk_lookup_udp", HK_PTR },
	{ "bpf_sock_addr_skc_lookup_tcp", HK_PTR },
	{ "bpf_sock_from_file", HK_PTR },
	{ "bpf_spin_lock", HK_VOID },
	{ "bpf_spin_unlock", HK_VOID },
	{ "bpf_task_pt_regs", HK_PTR },
	{ "bpf_task_storage_get", HK_PTR },
	{ "bpf_task_storage_get_recur", HK_PTR },
	{ "bpf_tc_sk_lookup_tcp", HK_PTR },
	{ "bpf_tc_sk_lookup_udp", HK_PTR },
	{ "bpf_tc_skc_lookup_tcp", HK_PTR },
	{ "bpf_tcp_sock", HK_PTR },
	{ "bpf_this_cpu_ptr", HK_PTR },
	{ "bpf_user_rnd_u32", HK_GETTER },
	{ "bpf_xdp_get_buff_len", HK_GETTER },
	{ "bpf_xdp_sk_lookup_tcp", HK_PTR },
	{ "bpf_xdp_sk_lookup_udp", HK_PTR },
	{ "bpf_xdp_skc_lookup_tcp", HK_PTR },
	{ "get_func_arg_cnt", HK_GETTER },
};

static int cmp_ent(const void *key, const void *ent)
{
	return strcmp(key, ((const struct helper_kind_ent *)ent)->name);
}

bool helper_kind_flags(const char *name, uint32_t *flags)
{
	const struct helper_kind_ent *e;

	if (!name)
		return false;
	e = bsearch(name, helpers, sizeof(helpers) / sizeof(helpers[0]), sizeof(helpers[0]), cmp_ent);
	if (!e)
		return false;
	switch (e->kind) {
	case HK_PTR:    *flags = RS_FUNC_RET_PTR; break;
	case HK_GETTER: *flags = RS_FUNC_CANT_FAIL; break;
	case HK_VOID:   *flags = RS_FUNC_RET_VOID | RS_FUNC_CANT_FAIL; break;
	case HK_INT32:  *flags = RS_FUNC_NEEDS_SIGN_EXT; break;
	}
	return true;
}

/* for the unit test: the table is sorted and has no duplicates */
bool helper_kinds_sorted(void)
{
	for (size_t i = 1; i < sizeof(helpers) / sizeof(helpers[0]); i++)
		if (strcmp(helpers[i - 1].name, helpers[i].name) >= 0)
			return false;
	return true;
}
