#!/usr/bin/env bash
# run_multi.sh - reports over several recordings and `diff`, on the
# committed VM recordings of two scenarios (tests/golden/data: vm-trace.rsr
# with -T -E -S on simfail/sf-* processes, vm-bpf.rsr with -c bpf):
#   - text, summary and JSON of both at once, diffed against
#     tests/golden/expected/multi-*; machine checks: every session of both
#     comes out once, labelled with its recording, in end-time order; the
#     summary's per-recording counts match each recording's own report;
#   - diff OLD NEW in text and JSON (golden), and the JSON's structure:
#     swapping OLD and NEW swaps only_in_new and only_in_old, a recording
#     diffed with itself has no difference, counts add up to the failing
#     sessions;
#   - usage errors (diff with one file, -k with several recordings);
#   - each recording symbolized against its own vmlinux: with -s, the VM
#     recording's frames get source lines from its -dbg vmlinux found by
#     discovery (RETSNOOP_DEBUG_ROOT), a synthetic recording of another
#     kernel merged with it keeps kallsyms names and is the only one named
#     in the "no vmlinux" note.
# `run_multi.sh --update` rewrites the expected files.
# Prints "golden-multi: N passed, N failed".
# shellcheck source=tests/golden/lib.sh
. "$(dirname "$0")/lib.sh"
golden_vm_setup golden-multi multi- vm-trace vm-bpf
T=vm-trace.rsr
B=vm-bpf.rsr

check() {   # check NAME CONDITION-STATUS
	if [ "$2" = 0 ]; then golden_ok; else golden_bad "$1"; fi
}

golden_case text -sn $B $T
golden_case summary summary $B $T
golden_case json --format json $B $T
golden_case diff diff $B $T
golden_case diff-json diff --format json $B $T
golden_case err-diff-one diff $T
golden_case err-diff-format diff --format xml $B $T
golden_case err-k-several -k /nonexistent $B $T

# info describes each recording in turn, the worst exit status
"$REPORT" info $B $T >info2.out 2>&1
[ $? = 0 ] && [ "$(grep -c '^File:' info2.out)" = 2 ] && [ "$(grep -c '^Integrity: *complete' info2.out)" = 2 ]
check "info over two recordings" $?
"$REPORT" info $B nonexistent.rsr >/dev/null 2>&1
check "info: an unreadable one makes the exit status 2" "$([ $? = 2 ]; echo $?)"

# every session of both, once, labelled, in end-time order
"$REPORT" --format json $T 2>/dev/null | wc -l >n-T
"$REPORT" --format json $B 2>/dev/null | wc -l >n-B
"$REPORT" --format json $B $T 2>/dev/null >both.json
[ "$(wc -l <both.json)" = $(($(cat n-T) + $(cat n-B))) ]
check "merged JSON has every session of both" $?
[ "$(jq -r .recording.file both.json | sort | uniq -c | awk '{print $2 "=" $1}' | tr '\n' ' ')" \
	= "$B=$(cat n-B) $T=$(cat n-T) " ]
check "each session labelled with its recording" $?
python3 -c 'import json, sys
ends = [json.loads(l)["end_ns"] for l in open("both.json")]
sys.exit(0 if ends == sorted(ends) else 1)'
check "sessions in end-time order" $?
[ "$(jq -r '.recording.hostname' both.json | sort -u)" = "$("$REPORT" info $T | sed -n 's/^Hostname: *//p')" ]
check "hostname field" $?
python3 "$ROOT/tests/golden/check_report_json.py" schema "$ROOT/docs/report.schema.json" both.json
check "merged JSON against docs/report.schema.json" $?

# the summary's per-recording rows match each recording's own summary
own() { "$REPORT" summary "$1" 2>/dev/null | sed -n 's/^SESSIONS: \([0-9]*\) (\([0-9]*\) failed.*/\1 \2/p'; }
row() { "$REPORT" summary $B $T 2>/dev/null | awk -v f="$1" '$3 == f { print $4, $5 }'; }
[ "$(own $T)" = "$(row $T)" ] && [ "$(own $B)" = "$(row $B)" ]
check "per-recording counts = each recording's own summary" $?
total=$("$REPORT" summary $B $T 2>/dev/null | awk '$1 == "TOTAL" { print $2, $3 }')
read -r st ft <<<"$(own $T)"; read -r sb fb <<<"$(own $B)"
[ "$total" = "$((st + sb)) $((ft + fb))" ]
check "TOTAL row = sum" $?

# diff: symmetric, empty against itself, counts add up
"$REPORT" diff --format json $B $T >d1.json && "$REPORT" diff --format json $T $B >d2.json
check "diff exits 0" $?
[ "$(jq -c '.only_in_new' d1.json)" = "$(jq -c '.only_in_old | map(.new = .old | .old = 0)' d2.json | jq -c 'map({deepest, error, path, old: 0, new})')" ] \
	&& [ "$(jq '.only_in_new | length' d1.json)" -gt 0 ] && [ "$(jq '.only_in_old | length' d1.json)" -gt 0 ]
check "swapping OLD and NEW swaps only_in_new and only_in_old" $?
"$REPORT" diff --format json $T $T >self.json
[ "$(jq '(.only_in_new + .only_in_old + .changed) | length' self.json)" = 0 ] && [ "$(jq .unchanged self.json)" -gt 0 ]
check "a recording diffed with itself: no difference" $?
for side in old new; do
	[ "$(jq "[(.only_in_new + .only_in_old + .changed)[] | .$side] | add" d1.json)" \
		-le "$(jq ".$side.failing_sessions" d1.json)" ] || exit_bad=1
done
[ "$(jq '[(.only_in_new + .only_in_old + .changed)[] | .new] | add + 0' d1.json)" -gt 0 ] && [ -z "${exit_bad:-}" ]
check "diff counts within the failing sessions" $?

# each recording symbolized against its own vmlinux, found by its build-id:
# the VM recording's through discovery under RETSNOOP_DEBUG_ROOT (the -dbg
# package scripts/setup.sh fetches), a synthetic one of another kernel with
# no vmlinux at all keeps kallsyms names, and only it is named in the note
KENV=${KENV:-/opt/retsnoop-kernels/6.12.env}
DBGROOT=$( [ -f "$KENV" ] && . "$KENV" && [ -n "${VMLINUX_DBG:-}" ] && echo "${VMLINUX_DBG%/usr/lib/debug/boot/*}")
if [ -n "$DBGROOT" ] && make -s -C "$ROOT" build/mkrec >/dev/null && "$ROOT/build/mkrec" "$WORK" >/dev/null; then
	env -u RETSNOOP_NO_DWARF RETSNOOP_DEBUG_ROOT="$DBGROOT" "$REPORT" -s $B kprobe_err.rsrec >sym.out 2>sym.err
	check "two kernels: report exits 0 ($?)" $?
	vm_lines=$(awk '/^\[/ { cur = $2 } cur == "vm-bpf.rsr]" && /\.c:[0-9]+/' sym.out | wc -l)
	syn_lines=$(awk '/^\[/ { cur = $2 } cur == "kprobe_err.rsrec]" && /\.c:[0-9]+/' sym.out | wc -l)
	[ "$vm_lines" -gt 0 ]
	check "two kernels: the VM recording's frames have source lines ($vm_lines)" $?
	[ "$syn_lines" = 0 ] && grep -q '^\[golden kprobe_err.rsrec\]' sym.out
	check "two kernels: the other recording's frames keep kallsyms names" $?
	grep -q 'no vmlinux with debug info for 6.12.9-cloud-amd64' sym.err &&
		[ "$(grep -c 'no vmlinux with debug info' sym.err)" = 1 ]
	check "two kernels: only the recording without a vmlinux is named in the note" $?
else
	golden_bad "two kernels: no -dbg vmlinux for the VM recordings' kernel ($KENV; scripts/setup.sh fetches it)"
fi

golden_done
