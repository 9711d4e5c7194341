#!/usr/bin/env bash
# run_vmorder.sh - golden tests of the stack view's frame order and of
# fentry's BPF-frame filtering, and of BPF helpers' error kinds, on real
# recordings made in the Debian 6.12 VM (tests/golden/mkvmrec.sh; no VM
# runs here):
#   vm-order-M.rsr, vm-order-K.rsr, vm-order-F.rsr: the same workload
#       recorded in kprobe.multi, kprobe and fentry mode: write() to a pipe
#       without readers (EPIPE; __x64_sys_write tail-calls ksys_write) and a
#       socket filter calling a helper it may not use (three *_func_proto
#       lookups return NULL below the untraced check_helper_call.isra.0)
#   vm-helper.rsr: -c bpf -S -T, bpf_skb_load_bytes failing (-EFAULT) inside
#       a program run by BPF_PROG_TEST_RUN
# Besides the goldens, machine checks that hold for any recording:
#   - after a `!` row (a traced function absent from the kernel stack) comes
#     another `!` row, a traced row found on the stack, or nothing: never a
#     kernel-only row (it goes right before the next matched traced frame,
#     else after the remaining kernel frames);
#   - the three modes list the functions they share in the same order;
#   - fentry: no trampoline, BPF program or raw-address row unless
#     stacks.unfiltered=true, which shows them marked `~` and otherwise the
#     same rows;
#   - a BPF helper's failure is an error in the -T records.
# `run_vmorder.sh --update` rewrites the expected files.
# Prints "golden-vmorder: N passed, N failed".
# shellcheck source=tests/golden/lib.sh
. "$(dirname "$0")/lib.sh"
golden_vm_setup golden-vmorder vmorder- vm-order-M vm-order-K vm-order-F vm-helper

golden_case order-M vm-order-M.rsr
golden_case order-K vm-order-K.rsr
golden_case order-F vm-order-F.rsr
golden_case order-F-unfiltered -C stacks.unfiltered=true vm-order-F.rsr
golden_case order-F-unfiltered-addrs -C stacks.unfiltered=true -C stacks.emit-addrs=true vm-order-F.rsr
golden_case order-M-addrs -C stacks.emit-addrs=true vm-order-M.rsr
golden_case helper-T -T -x EFAULT -S vm-helper.rsr

ROWS=$ROOT/tests/golden/stack_rows.py
for m in M K F; do
	"$REPORT" vm-order-$m.rsr >order-$m.txt 2>/dev/null
	python3 "$ROWS" rows order-$m.txt >rows-$m.txt
done
"$REPORT" -C stacks.unfiltered=true vm-order-F.rsr >unf-F.txt 2>/dev/null
python3 "$ROWS" rows unf-F.txt >rows-unf-F.txt

# every mode: two sessions, and no kernel-only row right after a `!` row
for m in M K F; do
	n=$(wc -l <rows-$m.txt)
	if [ "$n" = 2 ] && out=$(python3 "$ROWS" rule order-$m.txt 2>&1); then
		golden_ok
	else
		golden_bad "order-rule-$m: $n sessions (want 2); $out"
	fi
done
# the kprobe modes do have `!` rows (the rule is exercised) and fentry has
# the tail-calling __x64_sys_write on the stack
if grep -q '!:__x64_sys_write C:ksys_write' rows-M.txt && grep -q '!:__x64_sys_write C:ksys_write' rows-K.txt &&
   grep -q 'K:check_helper_call.isra.0 !:sk_filter_func_proto' rows-M.txt &&
   grep -q 'C:__x64_sys_write C:ksys_write' rows-F.txt; then
	golden_ok
else
	golden_bad "order-cases: the recordings do not show the tail call and the returned lookups as expected"
fi
# shared functions in the same order in every pair of modes, per session
if out=$(python3 "$ROWS" same order-M.txt order-K.txt order-F.txt 2>&1); then
	golden_ok
else
	golden_bad "order-modes: the attach modes list their shared frames in different orders: $out"
fi
# fentry: nothing of BPF or raw in the default view; unfiltered shows the
# trampolines and the program, marked, and the rest equals the default view
if ! grep -qE '(^| )[A-Z!~]:(bpf_trampoline_|bpf_prog_[0-9a-f]{16}|0x)' rows-F.txt &&
   grep -qE '~:bpf_trampoline_[0-9]+' rows-unf-F.txt && grep -qE '~:bpf_prog_[0-9a-f]{16}' rows-unf-F.txt &&
   [ "$(sed -E 's/ ?~:[^ ]+//g' rows-unf-F.txt)" = "$(cat rows-F.txt)" ]; then
	golden_ok
else
	golden_bad "fentry-filter: BPF frames shown by default, or not shown (marked) with stacks.unfiltered"
fi
# a BPF helper's failure is an error (BTF declares helpers u64)
"$REPORT" --format json vm-helper.rsr >helper.json 2>/dev/null
if [ "$(jq -s '[.[].trace[] | select(.type == "exit" and .func == "bpf_skb_load_bytes" and .result.is_error and .result.text == "-EFAULT")] | length' helper.json)" -ge 1 ]; then
	golden_ok
else
	golden_bad "helper-error: bpf_skb_load_bytes's -EFAULT is not an error in the -T records"
fi

golden_done
