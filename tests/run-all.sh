#!/usr/bin/env bash
# run-all.sh - runs the test suites (unit, golden, dwarf, cli, fuzz, vm; all by default), each
# of which prints "NAME: N passed, N failed" lines, and prints the total as
# the last line. Exits non-zero if anything failed or a suite crashed.
set -u
cd "$(dirname "$0")/.."
SUITES=("$@")
[ ${#SUITES[@]} -gt 0 ] || SUITES=(unit golden dwarf cli fuzz vm)
TOTAL_P=0 TOTAL_F=0 BROKEN=0
LOG=$(mktemp)
# tests/vm/vmrun appends a line here for each guest it had to boot again
# because it died before its command started (a boot-time panic)
export VMRUN_RETRY_LOG
VMRUN_RETRY_LOG=$(mktemp)
trap 'rm -f "$LOG" "$VMRUN_RETRY_LOG"' EXIT

tally() {   # reads suite output on stdin, echoes it, sums the counts
	local line p f
	while IFS= read -r line; do
		printf '%s\n' "$line"
		if [[ $line =~ ^[A-Za-z0-9_./-]+:\ ([0-9]+)\ passed,\ ([0-9]+)\ failed ]]; then
			p=${BASH_REMATCH[1]} f=${BASH_REMATCH[2]}
			echo "$p $f" >>"$LOG"
		fi
	done
}

run_suite() {  # NAME CMD...
	local name=$1; shift
	echo "=== $name"
	local rc
	"$@" 2>&1 | tally
	rc=${PIPESTATUS[0]}
	if [ "$rc" != 0 ]; then echo "=== $name: exit status $rc"; BROKEN=$((BROKEN + 1)); fi
	local retries
	retries=$(wc -l <"$VMRUN_RETRY_LOG")
	if [ "$retries" -gt 0 ]; then
		echo "=== $name: $retries VM boot retries (guest died before its command started):"
		sed 's/^/===   /' "$VMRUN_RETRY_LOG"
		cat "$VMRUN_RETRY_LOG" >>"$LOG.retries"; : >"$VMRUN_RETRY_LOG"
	fi
}

for s in "${SUITES[@]}"; do
	case "$s" in
	unit)
		for t in build/tests/test_*; do
			[ -x "$t" ] || continue
			run_suite "unit/$(basename "$t")" "$t"
		done ;;
	golden) run_suite golden tests/golden/run.sh; run_suite golden-filters tests/golden/run_filters.sh; run_suite golden-vmrec tests/golden/run_vmrec.sh
		run_suite golden-vmorder tests/golden/run_vmorder.sh; run_suite golden-multi tests/golden/run_multi.sh
		run_suite golden-ustack tests/ustack/run.sh
		run_suite golden-args tests/golden/run_args.sh ;;
	dwarf)  run_suite dwarf tests/dwarf/run.sh ;;
	cli)    run_suite cli tests/cli/run.sh; run_suite cli-man tests/cli/man_help.sh
		run_suite cli-build tests/cli/build.sh
		run_suite cli-structure tests/cli/structure.sh
		run_suite cli-completion tests/cli/completion.sh ;;
	vm)     run_suite vm tests/vm/run.sh; run_suite vm-scenarios tests/vm/scenarios.sh
		run_suite vm-live tests/vm/live.sh; run_suite vm-durability tests/vm/durability.sh
		run_suite vm-flight tests/vm/flight.sh; run_suite vm-probes tests/vm/probes.sh
		run_suite vm-args tests/vm/args.sh
		run_suite vm-ustack tests/vm/ustack.sh
		run_suite vm-stack-defer tests/vm/stack_defer.sh ;;
	fuzz)   run_suite fuzz tests/fuzz/run.sh "${FUZZ_SECONDS:-20}" ;;
	*) echo "run-all.sh: unknown suite '$s' (unit, golden, dwarf, cli, fuzz, vm)" >&2; exit 2 ;;
	esac
done
while read -r p f; do TOTAL_P=$((TOTAL_P + p)); TOTAL_F=$((TOTAL_F + f)); done <"$LOG"
if [ "$BROKEN" -gt 0 ] && [ "$TOTAL_F" -eq 0 ]; then TOTAL_F=$BROKEN; fi
RETRIES=$(cat "$LOG.retries" 2>/dev/null | wc -l); rm -f "$LOG.retries"
echo "VM boot retries: $RETRIES"
echo "all: $TOTAL_P passed, $TOTAL_F failed"
[ "$TOTAL_F" -eq 0 ] && [ "$BROKEN" -eq 0 ] && [ "$TOTAL_P" -gt 0 ]
