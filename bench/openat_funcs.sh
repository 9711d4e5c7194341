# openat_funcs.sh - the traced set of the openat benchmarks, sourced by
# bench/record_overhead.sh, bench/insn_profile.sh and bench/record_profile.sh
# so that their numbers are of one set: the syscall's entry (the session's
# entry function) and the VFS functions an openat() goes through. Each guest
# keeps those its kernel's available_filter_functions lists. One line: the
# scripts write it into their guest scripts' word lists.
# shellcheck shell=bash disable=SC2034
OPENAT_FUNCS="__x64_sys_openat do_sys_openat2 getname_flags getname do_filp_open path_openat"
OPENAT_FUNCS+=" alloc_empty_file init_file path_init link_path_walk walk_component lookup_fast"
OPENAT_FUNCS+=" step_into may_open vfs_open do_dentry_open complete_walk terminate_walk putname"
