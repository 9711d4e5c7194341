#!/usr/bin/env bash
# flight.sh - VM checks of the flight recorder and the stop conditions
# (Debian 6.12 cloud kernel in qemu, one boot; checks on the host):
#  * a flood of failing openat calls recorded with -T and --max-size 1M for
#    well over the time it takes to fill 1 MiB: the file's size and disk use,
#    sampled five times a second during the run, never exceed 1 MiB; the
#    report renders it whole (no damage) and its newest sessions are there
#    (the last ended at most 1.5 s before the stop, the first began long
#    after the recording started: the oldest were overwritten); `info` says
#    how many sessions, records and bytes were overwritten;
#  * SIGKILL during the wrap (after it wrapped many times): the file is at
#    most 1 MiB, renders, `info` says TRUNCATED and what was overwritten;
#  * retsnoop-record --duration 3 stops by itself 3 s after it started
#    recording and says why; --stop-after 5 stops by itself with exactly 5
#    sessions in the file; live retsnoop --max-size 1M --stop-after 3 -o
#    prints 3 sessions and leaves a flight recording of the same 3;
#  * --max-size smaller than the header: one line says so, exit 1, no file
#    left, every probe detached.
# Prints "vm-flight: N passed, N failed" last; exits non-zero on failure.
set -u
cd "$(dirname "$0")/../.."
ROOT=$PWD
# shellcheck source=tests/vm/suite_lib.sh
. "$ROOT/tests/vm/suite_lib.sh"
suite_begin vm-flight retsnoop-record retsnoop
DATE=$(command -v date)
"$DATE" +%s.%N | grep -q '^[0-9]*\.[0-9]*$' || suite_fail "$DATE has no +%N"
cp "$DATE" "$WORK/g/ndate"           # busybox date has no %N
CAP=1048576
G="-e '*sys_openat' -a 'do_sys_openat2' -a 'do_filp_open' -a 'path_openat'"
cat >"$WORK/g/guest.sh" <<EOF
#!/bin/sh
cd "\$(dirname "\$0")"
wait_for() {  # FILE PATTERN: until a line of FILE matches, at most 120 s
	i=0; while ! grep -q "\$2" "\$1" 2>/dev/null && [ \$i -lt 1200 ]; do sleep 0.1; i=\$((i + 1)); done
}
sample() {  # FILE SECONDS: size and disk use five times a second
	i=0; while [ \$i -lt \$((\$2 * 5)) ]; do
		echo "\$(wc -c <"\$1" 2>/dev/null || echo 0) \$(du -k "\$1" 2>/dev/null | cut -f1)"
		sleep 0.2; i=\$((i + 1))
	done
}
sh -c 'while :; do true </nonexistent; done' 2>/dev/null &
F1=\$!
sh -c 'while :; do cat /nonexistent; done' 2>/dev/null &
F2=\$!
# the flight recorder, stopped cleanly with SIGINT after 25 s
./retsnoop-record -T --max-size 1M $G -o /out/flight.rsr >/dev/null 2>/out/flight.err &
p=\$!
wait_for /out/flight.err '^Recording '
./ndate +%s.%N >/out/flight.start
sample /out/flight.rsr 25 >/out/flight.samples
./ndate +%s.%N >/out/flight.stop
kill -INT \$p; wait \$p; echo \$? >/out/flight.rc
# SIGKILL during the wrap
./retsnoop-record -T --max-size 1M $G -o /out/kill.rsr >/dev/null 2>/out/kill.err &
p=\$!
wait_for /out/kill.err '^Recording '
sample /out/kill.rsr 12 >/out/kill.samples
kill -9 \$p; wait \$p; echo \$? >/out/kill.rc
# --duration and --stop-after
./ndate +%s.%N >/out/dur.t0
./retsnoop-record --duration 3 $G -o /out/dur.rsr >/dev/null 2>/out/dur.err
echo \$? >/out/dur.rc
./ndate +%s.%N >/out/dur.t1
./retsnoop-record --stop-after 5 $G -o /out/stop.rsr >/dev/null 2>/out/stop.err
echo \$? >/out/stop.rc
./retsnoop --max-size 1M --stop-after 3 -sn $G -o /out/live.rsr >/out/live.out 2>/out/live.err
echo \$? >/out/live.rc
# a cap smaller than the header: refused with one line, nothing left behind
./retsnoop-record --max-size 500K $G -o /out/small.rsr >/dev/null 2>/out/small.err
echo \$? >/out/small.rc
cat /sys/kernel/tracing/enabled_functions >/out/small.enabled-after
kill \$F1 \$F2
EOF
chmod +x "$WORK/g/guest.sh"

boot_guest 900
rep()  { TZ=UTC "$WORK/retsnoop-report" "$@" 2>/dev/null; }
num()  { sed -n "s/^$1 *\([0-9]*\).*/\1/p"; }

# the flight recorder over 25 s of flood
for t in flight kill; do
	s=$OUT/$t.samples
	max=$(awk '$1 + 0 > m { m = $1 + 0 } END { print m + 0 }' "$s" 2>/dev/null)
	maxdu=$(awk '$2 + 0 > m { m = $2 + 0 } END { print m + 0 }' "$s" 2>/dev/null)
	n=$(wc -l <"$s" 2>/dev/null)
	echo "info $t: $n samples, largest size $max bytes, largest disk use $maxdu KiB (cap $CAP bytes)"
	check "$t: sampled during the run ($n samples)" [ "${n:-0}" -ge 50 ]
	check "$t: the file filled the cap (largest size $max > 90% of $CAP)" [ "${max:-0}" -gt $((CAP * 9 / 10)) ]
	check "$t: size never above the cap ($max <= $CAP)" [ "${max:-0}" -le $CAP ]
	check "$t: disk use never above the cap ($maxdu KiB <= $((CAP / 1024)))" [ "${maxdu:-0}" -le $((CAP / 1024)) ]
	check "$t: final size at most the cap" [ "$(wc -c <"$OUT/$t.rsr")" -le $CAP ]
	info=$(rep info "$OUT/$t.rsr")
	echo "$info" | grep -E '^(Max size|Overwritten|  [0-9]|Records|Integrity)' | sed "s/^/info $t: /"
	ow=$(echo "$info" | sed -n 's/^Overwritten: *\([0-9]*\) session(s), \([0-9]*\) record(s), \([0-9]*\) byte.*/\1 \2 \3/p')
	read -r ows owr owb <<<"${ow:-0 0 0}"
	check "$t: info says sessions, records and bytes were overwritten ($ow)" \
		bash -c '[ "$1" -gt 0 ] && [ "$2" -gt 0 ] && [ "$3" -gt $((4 * $4)) ]' _ "$ows" "$owr" "$owb" "$CAP"
	check "$t: info names the cap" grep -q "^Max size: *flight recorder, at most $CAP bytes" <<<"$info"
	txt=$(rep -sn "$OUT/$t.rsr"); rc=$?
	nt=$(grep -c 'TID/PID' <<<"$txt")
	check "$t: the report renders it (exit $rc, $nt sessions)" bash -c '[ "$1" = 0 ] && [ "$2" -gt 0 ]' _ "$rc" "$nt"
	check "$t: the trace view shows the failing openat" grep -Eq '← __(x64|arm64|ia32)_sys_openat +\[-ENOENT\]' <<<"$txt"
	check "$t: no report warning about orphan trace records" not grep -q 'whose start was not recorded' <<<"$(TZ=UTC "$WORK/retsnoop-report" -sn "$OUT/$t.rsr" 2>&1 >/dev/null)"
done
check "flight: stopped by SIGINT with status 0 ($(cat "$OUT/flight.rc"))" [ "$(cat "$OUT/flight.rc")" = 0 ]
check "flight: info says complete" grep -q '^Integrity: *complete' <<<"$(rep info "$OUT/flight.rsr")"
check "kill: killed by SIGKILL ($(cat "$OUT/kill.rc"))" [ "$(cat "$OUT/kill.rc")" = 137 ]
check "kill: info says truncated" grep -q '^Integrity: *TRUNCATED' <<<"$(rep info "$OUT/kill.rsr")"
# the newest sessions are kept: the last ended near the stop, the first
# began long after the start
ends=$(rep --format json "$OUT/flight.rsr" | jq -r '[.start_ns, .end_ns] | @tsv' |
	awk 'NR == 1 || $1 < f { f = $1 } $2 > l { l = $2 } END { printf "%.3f %.3f\n", f / 1e9, l / 1e9 }')
read -r first last <<<"$ends"
t0=$(cat "$OUT/flight.start") t1=$(cat "$OUT/flight.stop")
echo "info flight: recording from $t0 to $t1, sessions kept from $first to $last"
check "flight: the newest sessions are there (last ended $(awk -v a="$t1" -v b="$last" 'BEGIN { printf "%.3f", a - b }') s before the stop)" \
	awk -v a="$t1" -v b="$last" 'BEGIN { exit !(a - b <= 1.5) }'
check "flight: the oldest were dropped (first kept began $(awk -v a="$first" -v b="$t0" 'BEGIN { printf "%.3f", a - b }') s after the start)" \
	awk -v a="$first" -v b="$t0" 'BEGIN { exit !(a - b >= 5) }'

# stop conditions
el=$(awk -v a="$(cat "$OUT/dur.t0")" -v b="$(cat "$OUT/dur.t1")" 'BEGIN { printf "%.3f", b - a }')
echo "info duration: retsnoop-record --duration 3 ran $el s in all (attach and detach included)"
check "duration: exit 0 ($(cat "$OUT/dur.rc"))" [ "$(cat "$OUT/dur.rc")" = 0 ]
check "duration: says why it stopped" grep -q 'the --duration time is up' "$OUT/dur.err"
check "duration: stopped by itself after at least 3 s and within 60 s ($el s)" \
	awk -v e="$el" 'BEGIN { exit !(e >= 3 && e < 60) }'
check "duration: the recording is complete" grep -q '^Integrity: *complete' <<<"$(rep info "$OUT/dur.rsr")"
check "stop-after: exit 0 ($(cat "$OUT/stop.rc"))" [ "$(cat "$OUT/stop.rc")" = 0 ]
check "stop-after: says why it stopped" grep -q '5 sessions recorded (--stop-after)' "$OUT/stop.err"
ns=$(rep --format json "$OUT/stop.rsr" | grep -c .)
check "stop-after: exactly 5 sessions in the file ($ns)" [ "$ns" = 5 ]
check "live: exit 0 ($(cat "$OUT/live.rc"))" [ "$(cat "$OUT/live.rc")" = 0 ]
nl=$(grep -c 'TID/PID' "$OUT/live.out")
check "live: printed exactly 3 sessions ($nl)" [ "$nl" = 3 ]
check "live: the -o file is a flight recording" grep -q '^Max size: *flight recorder' <<<"$(rep info "$OUT/live.rsr")"
check "live: and holds the same 3 sessions" [ "$(rep -sn "$OUT/live.rsr" | grep 'TID/PID')" = "$(grep 'TID/PID' "$OUT/live.out")" ]

check "too small: exit 1 ($(cat "$OUT/small.rc"))" [ "$(cat "$OUT/small.rc")" = 1 ]
check "too small: one line says why ($(head -c 300 "$OUT/small.err"))" \
	bash -c '[ "$(grep -c "maximum size 512000 bytes is too small" "$1")" = 1 ]' _ "$OUT/small.err"
check "too small: no file left behind" [ ! -e "$OUT/small.rsr" ]
check "too small: every probe detached" bash -c '[ -f "$1" ] && [ ! -s "$1" ]' _ "$OUT/small.enabled-after"
# what the flight recording holds plus what it overwrote is what was emitted
em=$(rep info "$OUT/flight.rsr" | sed -n 's/^  sessions emitted *\([0-9]*\)/\1/p')
kept=$(rep --format json "$OUT/flight.rsr" | grep -c .)
ow=$(rep info "$OUT/flight.rsr" | sed -n 's/^Overwritten: *\([0-9]*\) session.*/\1/p')
echo "info flight: $kept sessions kept + ${ow:-?} overwritten, ${em:-?} emitted by the BPF side"
check "flight: kept + overwritten <= emitted ($kept + ${ow:-?} <= ${em:-?})" \
	bash -c '[ -n "$2" ] && [ -n "$3" ] && [ $(($1 + $2)) -le "$3" ] && [ $(($1 + $2)) -gt $(($3 * 9 / 10)) ]' _ "$kept" "$ow" "$em"

echo "$SUITE: $PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
