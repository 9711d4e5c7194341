#!/usr/bin/env bash
# args_render.sh - what rendering captured arguments (-A) costs
# retsnoop-report: tests/golden/mkrec_args writes NSESS pairs of the golden
# -A sessions (an openat failing four calls deep with -T records and
# structs, strings and raw registers as arguments; a printf-like call with
# varargs, a NULL, a read fault, an unavailable stack argument) with their
# BTF blobs, and the same sessions without FUNC_ARGS records or blobs (the
# peer in the same run). Each is rendered as text (stack and trace views,
# to /dev/null) and as JSON, with /usr/bin/time: CPU seconds (user+sys),
# sessions per CPU second and peak RSS; the last column is the time with
# arguments over the time without.
# Usage: bench/args_render.sh [NSESS] (default 20000 pairs = 40000 sessions)
set -eu
cd "$(dirname "$0")/.."
N=${1:-20000}
W=build/bench-args
mkdir -p "$W"
make -s build/retsnoop-report build/mkrec_args >/dev/null
[ -x /usr/bin/time ] || { echo "args_render: needs /usr/bin/time" >&2; exit 1; }
build/mkrec_args "$W" "$N"
SESS=$((2 * N))

measure() {  # FILE ARGS... -> "cpu_seconds peak_rss_kb"
	local f=$1; shift
	/usr/bin/time -f '%U %S %M' -o "$W/time" build/retsnoop-report -sn "$@" "$f" >/dev/null 2>"$W/err" ||
		{ echo "args_render: retsnoop-report failed: $(head -3 "$W/err")" >&2; exit 1; }
	awk '{ printf "%.3f %d\n", $1 + $2, $3 }' "$W/time"
}

printf '%-24s %10s %12s %10s %8s\n' output "cpu s" "sessions/s" "RSS KiB" "vs bare"
for o in "text:-T" "json:--format json" "verbose:-T -C args.fmt-mode=verbose"; do
	name=${o%%:*} args=${o#*:}
	# shellcheck disable=SC2086
	read -r bc br < <(measure "$W/args-many-bare.rsrec" $args)
	# shellcheck disable=SC2086
	read -r ac ar < <(measure "$W/args-many.rsrec" $args)
	awk -v n="$name" -v s="$SESS" -v bc="$bc" -v br="$br" -v ac="$ac" -v ar="$ar" 'BEGIN {
		printf "%-24s %10.3f %12.0f %10d %8s\n", n " (no args)", bc, (bc > 0 ? s / bc : 0), br, "";
		printf "%-24s %10.3f %12.0f %10d %7.2fx\n", n " (args)", ac, (ac > 0 ? s / ac : 0), ar,
			(bc > 0 ? ac / bc : 0) }'
done
echo "($SESS sessions each; $(stat -c %s "$W/args-many.rsrec") / $(stat -c %s "$W/args-many-bare.rsrec") bytes with / without arguments)"
