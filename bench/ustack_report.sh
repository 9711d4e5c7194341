#!/usr/bin/env bash
# ustack_report.sh - the report-side cost of -U user stacks: the host
# self-capture program (tests/ustack/selfcap, dynamic: its own frames
# plus libc's, with libc's debug file when installed) gives one real
# stack; build/mkustack writes recordings of 1 and NSESS sessions of it
# with their USTACK records, and NSESS sessions without them (the peer in
# the same run: the same report minus the user stacks). Each is rendered
# as text and as JSON to /dev/null under /usr/bin/time -v: CPU seconds
# (user+sys; one core), peak RSS, and the added cost per session
# (with - without) / NSESS. The 1-session recording shows the fixed cost
# (finding and opening the binaries, the first DWARF lookups).
# Usage: bench/ustack_report.sh [NSESS] (default 20000)
set -eu
cd "$(dirname "$0")/.."
ROOT=$PWD
N=${1:-20000}
W=$ROOT/build/bench-ustack
rm -rf "$W"; mkdir -p "$W/cache"
make -s build/retsnoop-report build/selfcap build/mkustack >/dev/null
[ -x /usr/bin/time ] || { echo "ustack_report: needs /usr/bin/time" >&2; exit 1; }
export XDG_CACHE_HOME=$W/cache
unset DEBUGINFOD_URLS
cp build/selfcap "$W/selfcap"
"$W/selfcap" "$W/dump"
build/mkustack "$W/dump" "$W/one.rsr" sessions=1
build/mkustack "$W/dump" "$W/with.rsr" sessions="$N"
build/mkustack "$W/dump" "$W/without.rsr" sessions-nou="$N"
build/retsnoop-report "$W/one.rsr" >/dev/null 2>&1   # the DWARF index cache, warm

measure() { # NAME ARGS... -> "cpu_s rss_kb"
	/usr/bin/time -v build/retsnoop-report "$@" >/dev/null 2>"$W/time.txt" || true
	mawk -F': ' '/User time/ { u = $2 } /System time/ { s = $2 }
		/Maximum resident/ { r = $2 } END { printf "%.3f %d\n", u + s, r }' "$W/time.txt"
}

printf '%-8s %-26s %10s %10s\n' format recording cpu_s rss_kb
for fmt in text json; do
	args=(); [ $fmt = json ] && args=(--format json)
	read -r c1 r1 < <(measure "${args[@]}" "$W/one.rsr")
	read -r cw rw < <(measure "${args[@]}" "$W/with.rsr")
	read -r cn rn < <(measure "${args[@]}" "$W/without.rsr")
	printf '%-8s %-26s %10s %10s\n' $fmt "1 session, -U" "$c1" "$r1" \
		$fmt "$N sessions, -U" "$cw" "$rw" $fmt "$N sessions, no -U (peer)" "$cn" "$rn"
	mawk -v a="$cw" -v b="$cn" -v n="$N" -v f=$fmt 'BEGIN {
		ra = 0; rb = 0; if (a > 0) ra = n / a; if (b > 0) rb = n / b
		printf "%-8s user stack: %.1f us/session added (%.0f sessions/s with -U, %.0f without)\n",
			f, (a - b) * 1e6 / n, ra, rb }'
done
