#!/usr/bin/env bash
# run_filters.sh - golden tests of retsnoop-report's report-time filters and
# analysis outputs: tests/golden/mkrec_filters writes filters.rsrec, each
# case renders it (TZ=UTC) and diffs stdout+stderr+exit status against
# tests/golden/expected/filters-NAME.txt. Every filter has a case where it
# removes sessions and one where it keeps them; sessions are listed as
# "session_id pid comm" through --format json and jq. The JSON output is
# also validated against docs/report.schema.json and the Perfetto output's
# structure is checked (tests/golden/check_report_json.py).
# `run_filters.sh --update` rewrites the expected files.
# Prints "golden-filters: N passed, N failed".
# shellcheck source=tests/golden/lib.sh
. "$(dirname "$0")/lib.sh"
fail_all() { echo "golden-filters: $1" >&2; echo "golden-filters: 0 passed, 1 failed"; exit 1; }

make -s build/retsnoop-report >/dev/null || fail_all "cannot build retsnoop-report"
LIBOBJS=$(ls build/format/*.o build/common/*.o)
gcc -std=gnu11 -Wall -Wextra -Werror -O2 -I. -D_GNU_SOURCE -o build/mkrec_filters \
	tests/golden/mkrec_filters.c tests/golden/reclib.c $LIBOBJS -lzstd -lz -lm || fail_all "cannot build mkrec_filters"
command -v jq >/dev/null || fail_all "jq is needed"
REPORT=$ROOT/build/retsnoop-report
WORK=$ROOT/build/golden-filters
rm -rf "$WORK"
mkdir -p "$WORK"
cd "$WORK" || exit 1
"$ROOT/build/mkrec_filters" . || fail_all "mkrec_filters failed"
REC=filters.rsrec
size=$(stat -c %s $REC)
head -c $(( size - 40 )) $REC > cut.rsrec
export TZ=UTC
GOLDEN_SUITE=golden-filters GOLDEN_WORK=$WORK GOLDEN_PREFIX=filters-

# list NAME ARGS...: the sessions kept, one line each
list() {
	local name=$1; shift
	{
		printf '$ retsnoop-report %s --format json %s | jq\n' "$*" $REC
		"$REPORT" "$@" --format json $REC >"$WORK/$name.json" 2>"$WORK/$name.stderr"
		echo "--- exit $?"
		jq -r '"\(.session_id) \(.pid) \(.task_comm)"' <"$WORK/$name.json"
		echo "--- stderr"
		cat "$WORK/$name.stderr"
	} >"$WORK/$name.out"
	golden_compare "$name"
}
raw() { golden_case "$@"; }

list all
list p-keep            -p 100
list p-remove          -p 300 -p 200
list P-remove          -P 100
list P-keep            -P 999
list n-keep            -n nginx
list n-glob            -n 'nginx*'
list N-remove          -N bash
list N-glob            -N 'w*'
list x-remove          -x ENOENT
list x-null            -x NULL
list x-two             -x EINVAL -x EACCES
list X-remove          -X ENOMEM
list X-keep            -X EPERM
list L-remove          -L 1
list L-keep            -L 0.01
list S-all             -S
list Sy-all            -Sy
list success-only      --success-only
list Sn-errors         -Sn
list stack-has-logical --stack-has path_openat
list stack-has-kernel  --stack-has capable
list stack-has-module  --stack-has 'kvm_* [kvm]'
list stack-has-and     --stack-has '*openat*' --stack-has capable
list stack-has-none    --stack-has 'nosuchfunc*'
list entry-one         --entry __x64_sys_bpf
list entry-or          --entry 'kvm*' --entry __x64_sys_openat
list since-clock       --since 22:13:24
list until-full        --until '2023-11-14 22:13:23.5'
list since-until-rel   --since +3s --until +4.5s
list until-min         --until +1.5m
list since-frac        --since 22:13:25.000000001
list combined          -p 100 -x EINVAL
list combined-text-L   -Sn -L 1 -n 'nginx*'

# impossible combinations and bad values: one line on stderr, exit 2
raw err-x-X            -x EINVAL -X EINVAL $REC
raw err-S-x            -S -x ENOENT $REC
raw err-since-until    --since 22:13:30 --until 22:13:20 $REC
raw err-p-P            -p 5 -P 5 $REC
raw err-S-Sn           -S -Sn $REC
raw err-bad-S          -Smaybe $REC
raw err-success-only-x --success-only -x ENOENT $REC
raw err-success-only-Sn --success-only -Sn $REC
raw err-n-N            -n 'nginx' -N 'ngi*' $REC
raw err-bad-time       --since 25:00:00 $REC
raw err-bad-errno      -x EWHATEVER $REC
raw err-bad-format     --format xml $REC
raw err-two-outputs    --folded --format json $REC
raw err-bad-L          -L fast $REC
raw err-empty-glob     --stack-has '' $REC
raw err-perfetto-dir   --perfetto /nonexistent/dir/x.json $REC
raw err-entry-none     --entry 'nosuch_*' $REC
raw err-until-before   --until 22:13:20 $REC

# outputs
raw text-filtered      -E -p 200 $REC
raw text-filtered-T    -T -n tracer $REC
raw json-full          --format json $REC
raw summary            summary $REC
raw summary-flag       --summary -Sn $REC
raw folded             --folded $REC
raw folded-latency     --folded-weight=latency $REC
raw folded-filtered    --folded -x ENOENT $REC
raw info               info $REC
raw info-cut           info cut.rsrec
raw info-usage         info
raw perfetto           --perfetto perfetto.json --format json -p 400 $REC
{ printf '$ cat perfetto.json\n'; cat perfetto.json; } > "$WORK/perfetto-file.out"; golden_compare perfetto-file

# format version 3 (-T batches stored raw, before TRACE_PACKED): the same
# recording written by that writer (tests/golden/data/filters-v3.rsrec)
# renders exactly as this writer's packed one
V3=$ROOT/tests/golden/data/filters-v3.rsrec
for args in "-T" "-T --format json" "-T -n tracer" ""; do
	# shellcheck disable=SC2086
	if cmp -s <("$REPORT" $args $REC 2>&1) <("$REPORT" $args "$V3" 2>&1); then
		golden_ok
	else
		golden_bad "format 3 file renders differently with '$args'"
	fi
done
if "$REPORT" info "$V3" | grep -q '^Format version: *3 ' && "$REPORT" info $REC | grep -q '^Format version: *4 ' &&
	[ "$("$REPORT" -T "$V3" 2>/dev/null | grep -c '→')" -ge 2 ]; then
	golden_ok
else
	golden_bad "format versions of filters-v3.rsrec / filters.rsrec are not 3 / 4, or no trace rows"
fi

# machine checks: schema of every JSON object, Perfetto structure
"$REPORT" --format json $REC > all-schema.json
"$REPORT" --perfetto all-perfetto.json -E $REC > /dev/null
"$REPORT" --perfetto none-perfetto.json -p 12345 $REC > /dev/null
for c in "schema $ROOT/docs/report.schema.json all-schema.json" \
	 "perfetto all-perfetto.json" "perfetto none-perfetto.json" "perfetto perfetto.json"; do
	if out=$(python3 "$ROOT/tests/golden/check_report_json.py" $c 2>&1); then
		golden_ok
	else
		golden_bad "check $c: $out"
	fi
done
# the checkers must reject broken input
printf '{"session_id":"x"}\n' > bad.json
printf '{"traceEvents":[{"ph":"X","pid":1,"tid":1,"ts":5,"dur":10,"name":"a"},{"ph":"X","pid":1,"tid":1,"ts":8,"dur":10,"name":"b"}]}' > bad-perfetto.json
for c in "schema $ROOT/docs/report.schema.json bad.json" "perfetto bad-perfetto.json"; do
	if python3 "$ROOT/tests/golden/check_report_json.py" $c >/dev/null 2>&1; then
		golden_bad "checker accepted bad input: $c"
	else
		golden_ok
	fi
done

golden_done
