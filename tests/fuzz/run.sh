#!/usr/bin/env bash
# run.sh SECONDS - builds the libFuzzer targets (make fuzz), replays the
# committed regression inputs (tests/fuzz/regress/TARGET/*), then runs
# fuzz_reader, fuzz_report and fuzz_args side by side for SECONDS from a
# seed corpus made by mkcorpus.sh. Any crash, leak, timeout, OOM or
# sanitizer report is a failure; its input is kept in build/fuzz/crashes.
# Last lines: "fuzz: N passed, N failed" and "fuzz: N execs, M crashes".
set -uo pipefail
cd "$(dirname "$0")/../.."
SECS=${1:-20}
W=build/fuzz/run
rm -rf "$W"; mkdir -p "$W" build/fuzz/crashes
if ! make -s fuzz >"$W/build.log" 2>&1; then
	cat "$W/build.log"; echo "fuzz: 0 passed, 1 failed"; echo "fuzz: 0 execs, 1 crashes"; exit 1
fi
tests/fuzz/mkcorpus.sh "$W/corpus" || { echo "fuzz: 0 passed, 1 failed"; echo "fuzz: 0 execs, 1 crashes"; exit 1; }
CRASH=0 EXECS=0
COMMON=(-rss_limit_mb=2048 -timeout=10 -close_fd_mask=3 -print_final_stats=1)
for t in fuzz_reader fuzz_report fuzz_args; do   # regressions first: every input once
	if [ -n "$(ls tests/fuzz/regress/$t 2>/dev/null)" ]; then
		if ! build/fuzz/$t "${COMMON[@]}" -runs=0 tests/fuzz/regress/$t/* >"$W/$t.regress.log" 2>&1; then
			echo "fuzz: $t: a regression input fails again:"; tail -30 "$W/$t.regress.log"
			CRASH=$((CRASH + 1))
		fi
	fi
done
for t in fuzz_reader fuzz_report fuzz_args; do
	mkdir -p "$W/$t.corpus"
	build/fuzz/$t "${COMMON[@]}" -max_len=65536 -max_total_time="$SECS" \
		-artifact_prefix=build/fuzz/crashes/$t- "$W/$t.corpus" "$W/corpus/${t#fuzz_}" >"$W/$t.log" 2>&1 &
	eval "pid_$t=\$!"
done
for t in fuzz_reader fuzz_report fuzz_args; do
	eval "p=\$pid_$t"
	wait "$p"; rc=$?
	n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$W/$t.log" | tail -n 1)
	EXECS=$((EXECS + ${n:-0}))
	if [ "$rc" != 0 ] || grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|SUMMARY: ' "$W/$t.log"; then
		CRASH=$((CRASH + 1))
		echo "fuzz: $t failed (exit $rc):"
		grep -E -A30 'ERROR:|runtime error:' "$W/$t.log" | head -50
		ls build/fuzz/crashes/$t-* 2>/dev/null | sed 's/^/fuzz: input kept: /'
	fi
	echo "fuzz: $t: ${n:-0} execs in ${SECS} s"
done
if [ "$CRASH" = 0 ]; then echo "fuzz: 1 passed, 0 failed"; else echo "fuzz: 0 passed, 1 failed"; fi
echo "fuzz: $EXECS execs, $CRASH crashes"
[ "$CRASH" = 0 ]
