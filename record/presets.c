/* presets.c - glob bundles for -c and the enforced deny list (presets.h). */
#include "record/presets.h"
#include <string.h>

static const char *const bpf_entry[] = { "*_sys_bpf", NULL };
static const char *const bpf_allow[] = {
	"*bpf*", "*btf*", "do_check*", "reg_*", "check_*", "resolve_*", "convert_*",
	"adjust_*", "sanitize_*", "map_*", "ringbuf_*", "array_*", "__vmalloc_*",
	"__alloc*", "pcpu_*", "memdup_*", "stack_map_*", "htab_*", "generic_map_*",
	"*copy_from*", "*copy_to*", NULL,
};
static const char *const bpf_deny[] = {
	"bpf_get_smp_processor_id", "bpf_get_current_pid_tgid", "*migrate*",
	"rcu_read_lock*", "rcu_read_unlock*", "bpf_lsm_*", "check_cfs_rq_runtime",
	"find_busiest_group", "find_vma*", "btf_sec_info_cmp", "copy_to_user_nofault",
	/* what bpf_probe_read_kernel() runs: in this preset only our own programs call it */
	"copy_from_kernel_nofault*", NULL,
};
static const char *const perf_entry[] = { "*_sys_perf_event_open", "perf_ioctl", NULL };
static const char *const perf_allow[] = { "*perf_*", NULL };
static const char *const none[] = { NULL };

static const struct preset presets[] = {
	{ "bpf", bpf_entry, bpf_allow, bpf_deny },
	{ "perf", perf_entry, perf_allow, none },
};

const struct preset *preset_find(const char *name)
{
	for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++)
		if (strcmp(presets[i].name, name) == 0)
			return &presets[i];
	return NULL;
}

const char *preset_names(void)
{
	return "bpf, perf";
}

/* on the BPF program invocation path, in the idle loop, or primitives the
 * trampoline/kprobe machinery itself uses: tracing them recurses or hangs */
const char *const enforced_deny[] = {
	"bpf_get_smp_processor_id", "migrate_enable", "migrate_disable",
	"rcu_read_lock*", "rcu_read_unlock*", "__rcu_read_lock*", "__rcu_read_unlock*",
	"preempt_count_add", "preempt_count_sub", "__preempt_count_*",
	"bpf_spin_lock", "bpf_spin_unlock", "__bpf_prog_enter*", "__bpf_prog_exit*",
	"__bpf_tramp_enter*", "__bpf_tramp_exit*", "update_prog_stats", "inc_misses_counter",
	"bpf_prog_start_time", "bpf_get_stack*", "bpf_ringbuf_*", "__bpf_ringbuf_*",
	"bpf_get_func_ip*", "bpf_get_attach_cookie*", "bpf_get_branch_snapshot*",
	/* BPF helper implementations retsnoop's own programs call on every event
	 * (only BPF programs call them): a probe on them can only ever fire
	 * inside our program, where the kernel skips it as a missed probe */
	"bpf_ktime_get_ns", "bpf_get_current_pid_tgid", "bpf_get_current_comm",
	"bpf_get_current_task", "bpf_get_current_task_btf", "bpf_probe_read_kernel",
	"bpf_probe_read_kernel_str", "bpf_map_lookup_elem", "bpf_map_update_elem",
	"bpf_map_delete_elem", "bpf_map_push_elem", "bpf_map_pop_elem", "queue_map_*",
	"__queue_map_get", "queue_stack_map_*",
	/* the threads' session slots in task-local storage and the snapshots' dynptr writes */
	"bpf_task_storage_get*", "__bpf_task_storage_get", "task_storage_lookup",
	"bpf_task_storage_trylock", "bpf_task_storage_unlock", "bpf_local_storage_lookup",
	"bpf_local_storage_update", "bpf_selem_*", "bpf_dynptr_write", "__bpf_dynptr_write",
	"bpf_dynptr_check_off_len", "bpf_dynptr_is_rdonly",
	/* the kernel-stack capture (bpf_get_stack) path: unwinding asks these
	 * about every frame */
	"__bpf_get_stack*", "is_bpf_text_address", "bpf_ksym_find", "bpf_prog_ksym_find",
	"__bpf_address_lookup", "bpf_address_lookup", "is_bpf_image_address",
	"search_bpf_extables", "bpf_has_frame_pointer",
	"arch_cpu_idle", "default_idle", "cpu_idle_poll", "do_idle",
	"*trace_hardirqs*", "lockdep_*", "__lock_acquire", "lock_acquire", "lock_release",
	"rethook_*", "kprobe_*", "*kretprobe*", "fprobe_*", "ftrace_*", "*_ftrace_*",
	NULL,
};
