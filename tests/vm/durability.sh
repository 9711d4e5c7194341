#!/usr/bin/env bash
# durability.sh - VM checks that a recording survives the recorder's death and
# a full disk (Debian 6.12 cloud kernel in qemu, one boot; checks on the host):
#  * SIGKILL: retsnoop-record and the live `retsnoop -o FILE`, each killed
#    with SIGKILL during a stream of failing openat calls, leave a file that
#    retsnoop-report renders, `info` calls TRUNCATED, and whose last session
#    ended at most 1.5 s before the kill (chunks are flushed about every
#    second; the measured loss window is printed per tool);
#  * full disk: both tools recording onto a tiny tmpfs during a flood stop
#    by themselves with one stderr line naming the file and "No space left on
#    device", exit non-zero, detach every probe (enabled_functions and
#    kprobe_events empty afterwards), and leave a file that reads as
#    TRUNCATED up to its last complete chunk.
# The tmpfs holds the file's header (mostly the kallsyms snapshot, measured
# in the guest by a short recording) plus 256 KiB for chunks.
# Prints "vm-durability: N passed, N failed" last; exits non-zero on failure.
set -u
cd "$(dirname "$0")/../.."
ROOT=$PWD
# shellcheck source=tests/vm/suite_lib.sh
. "$ROOT/tests/vm/suite_lib.sh"
suite_begin vm-durability retsnoop-record retsnoop
DATE=$(command -v date)
"$DATE" +%s.%N | grep -q '^[0-9]*\.[0-9]*$' || suite_fail "$DATE has no +%N"
cp "$DATE" "$WORK/g/ndate"           # busybox date has no %N
G="-e '*sys_openat' -a 'do_sys_openat2' -a 'do_filp_open' -a 'path_openat'"
cat >"$WORK/g/guest.sh" <<EOF
#!/bin/sh
cd "\$(dirname "\$0")"
T=/sys/kernel/tracing
wait_for() {  # FILE PATTERN: until a line of FILE matches, at most 120 s
	i=0; while ! grep -q "\$2" "\$1" 2>/dev/null && [ \$i -lt 1200 ]; do sleep 0.1; i=\$((i + 1)); done
}
# failing openat calls: a cat loop (a fork and exec each: a few hundred a
# second) during the SIGKILL runs, so that the live tool's rendering keeps
# up even on a loaded host and the loss window measures the flushing, not
# the consumer's lag; the full-disk runs add the shell's own redirections
# (no fork), a flood
sh -c 'while :; do cat /nonexistent; done' 2>/dev/null &
F2=\$!
# SIGKILL in the middle of the flood, after 3 s of recording
kill_run() {  # NAME TOOL FLAGS...
	name=\$1; shift
	"\$@" $G -o /out/\$name.rsr >/dev/null 2>/out/\$name.err &
	p=\$!
	wait_for /out/\$name.err '^Recording '
	sleep 3
	./ndate +%s.%N >/out/\$name.killtime
	kill -9 \$p
	./ndate +%s.%N >/out/\$name.killedtime
	wait \$p; echo \$? >/out/\$name.rc
}
kill_run kill-rec ./retsnoop-record
kill_run kill-live ./retsnoop
# the header's size (kallsyms snapshot and tables) from a short recording
./retsnoop-record $G -o /tmp/hdr.rsr -- true >/dev/null 2>/out/hdr.err
hdr=\$(wc -c </tmp/hdr.rsr)
echo \$hdr >/out/hdr.size
mkdir -p /mnt/small
mount -t tmpfs -o size=\$(( (hdr / 4096 + 1) * 4096 + 262144 )) t /mnt/small
df -k /mnt/small >/out/small.df
sh -c 'while :; do true </nonexistent; done' 2>/dev/null &
F1=\$!
# full disk: the tool must stop by itself (at most 180 s)
full_run() {  # NAME TOOL FLAGS...
	name=\$1; shift
	rm -f /mnt/small/*
	( "\$@" -T $G -o /mnt/small/\$name.rsr >/dev/null 2>/out/\$name.err & echo \$! >/out/\$name.pid
	  wait \$!; echo \$? >/out/\$name.rc ) &
	wait_for /out/\$name.err '^Recording '
	cat \$T/enabled_functions >/out/\$name.enabled-during
	i=0; while [ ! -f /out/\$name.rc ] && [ \$i -lt 1800 ]; do sleep 0.1; i=\$((i + 1)); done
	if [ ! -f /out/\$name.rc ]; then
		echo timeout >/out/\$name.timeout
		kill -INT \$(cat /out/\$name.pid); wait_for /out/\$name.rc .
	fi
	cat \$T/enabled_functions >/out/\$name.enabled-after
	cat \$T/kprobe_events >/out/\$name.kprobes-after
	cp /mnt/small/\$name.rsr /out/ 2>/dev/null
}
full_run full-rec ./retsnoop-record
full_run full-live ./retsnoop
kill \$F1 \$F2
dmesg >/out/dmesg
EOF
chmod +x "$WORK/g/guest.sh"

boot_guest 900
rep()  { TZ=UTC "$WORK/retsnoop-report" "$@" 2>/dev/null; }

# the recorder flushes its chunk at least once a second (record/capture.c)
iv=$(awk 'match($0, /last_tick >= [0-9.]+/) { s = substr($0, RSTART, RLENGTH); sub(/.*>= /, "", s); print s; exit }' record/capture.c)
check "flush interval in record/capture.c is at most 1 s (${iv:-not found})" \
	awk -v v="${iv:-x}" 'BEGIN { exit !(v ~ /^[0-9.]+$/ && v + 0 > 0 && v + 0 <= 1) }'

# SIGKILL
for t in kill-rec kill-live; do
	f=$OUT/$t.rsr
	check "$t: killed by SIGKILL during the flood (status $(cat "$OUT/$t.rc" 2>/dev/null))" \
		[ "$(cat "$OUT/$t.rc" 2>/dev/null)" = 137 ]
	txt=$(rep "$f")
	n=$(grep -c 'TID/PID' <<<"$txt")
	check "$t: the report renders sessions ($n)" [ "$n" -gt 0 ]
	check "$t: rendered stacks show the failing openat" grep -Eq '\[-ENOENT\] +__(x64|arm64|ia32)_sys_openat' <<<"$txt"
	check "$t: info says truncated" grep -q 'Integrity: *TRUNCATED' <<<"$(rep info "$f")"
	kt=$(cat "$OUT/$t.killtime" 2>/dev/null) ka=$(cat "$OUT/$t.killedtime" 2>/dev/null)
	# the last recovered session's end_ns: wall-clock ns (ktime + the
	# recording's monotonic-to-realtime offset), compared with the guest's
	# CLOCK_REALTIME right before kill -9 (the loss window; the recorder still
	# runs for a few ms between that reading and the kill, so it may be
	# slightly negative) and right after it (no session can end later)
	last=$(rep --format json "$f" | sed -n 's/.*"end_ns": *\([0-9]*\).*/\1/p' |
		awk '$1 + 0 > m { m = $1 + 0 } END { if (m) printf "%.6f\n", m / 1e9; else print "none" }')
	win=$(awk -v kt="${kt:-x}" -v l="$last" 'BEGIN { if (kt !~ /^[0-9.]+$/ || l !~ /^[0-9.]+$/) print "none"; else printf "%.3f\n", kt - l }')
	echo "info $t: loss window $win s (kill time minus the last recovered session's end)"
	check "$t: last recovered session ended at most 1.5 s before the kill ($win s)" \
		awk -v w="$win" 'BEGIN { exit !(w ~ /^-?[0-9.]+$/ && w + 0 <= 1.5) }'
	check "$t: and not after the recorder was dead (${last:-none} <= ${ka:-none})" \
		awk -v l="$last" -v ka="${ka:-x}" 'BEGIN { exit !(l ~ /^[0-9.]+$/ && ka ~ /^[0-9.]+$/ && l + 0 <= ka + 0.001) }'
done

# full disk
echo "info tmpfs: header $(cat "$OUT/hdr.size" 2>/dev/null) bytes + 256 KiB; $(tail -1 "$OUT/small.df" 2>/dev/null)"
for t in full-rec full-live; do
	case $t in full-rec) prog=retsnoop-record ;; *) prog=retsnoop ;; esac
	f=$OUT/$t.rsr err=$OUT/$t.err rc=$(cat "$OUT/$t.rc" 2>/dev/null)
	check "$t: stopped by itself (no timeout)" [ ! -f "$OUT/$t.timeout" ]
	check "$t: exit status non-zero, not a signal (${rc:-none})" \
		bash -c '[ -n "$1" ] && [ "$1" -gt 0 ] && [ "$1" -lt 124 ]' _ "$rc"
	nl=$(grep -c 'No space left on device' "$err")
	check "$t: exactly one stderr line says 'No space left on device' ($nl)" [ "$nl" = 1 ]
	check "$t: that line names the file" grep -q "/mnt/small/$t.rsr.*No space left on device" "$err"
	# (a notice such as the live tool's "no vmlinux with debug info" is no error)
	ne=$(grep -Eci "^$prog: .*(fail|error|cannot|no space)" "$err")
	check "$t: no other error line from $prog ($ne in all)" [ "$ne" = 1 ]
	check "$t: probes were attached while recording (enabled_functions had $(wc -l <"$OUT/$t.enabled-during" 2>/dev/null) lines)" \
		[ -s "$OUT/$t.enabled-during" ]
	check "$t: every probe detached: enabled_functions empty after exit ($(wc -l <"$OUT/$t.enabled-after" 2>/dev/null) lines)" \
		bash -c '[ -f "$1" ] && [ ! -s "$1" ]' _ "$OUT/$t.enabled-after"
	check "$t: no kprobe_events left after exit" \
		bash -c '[ -f "$1" ] && ! grep -q . "$1"' _ "$OUT/$t.kprobes-after"
	info=$(rep info "$f")
	check "$t: info says truncated, not damaged" grep -q 'Integrity: *TRUNCATED' <<<"$info"
	ch=$(awk '/^Chunks read:/ { print $3 }' <<<"$info")
	check "$t: complete chunks were read (${ch:-none})" [ "${ch:-0}" -gt 0 ]
	n=$(rep "$f" | grep -c 'TID/PID')
	check "$t: the report renders sessions ($n)" [ "$n" -gt 0 ]
done

check "guest dmesg has no WARNING/BUG/Oops" bash -c "[ -f '$OUT/dmesg' ] && ! grep -Eq 'WARNING:|BUG:|Oops' '$OUT/dmesg'"

echo "$SUITE: $PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
