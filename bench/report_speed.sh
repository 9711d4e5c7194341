#!/usr/bin/env bash
# report_speed.sh - retsnoop-report rendering speed and memory: writes
# synthetic recordings of 10k and 100k sessions over 300 traced functions
# through format/ (tests/golden/mkrec_filters), then measures text (to
# /dev/null), JSON (to /dev/null) and summary rendering with
# /usr/bin/time -v: sessions per second of CPU time (user+sys, one core)
# and of wall time, and peak RSS. Peers in the same run: `zstd -dc` of the
# text output compressed (the cost of just producing those bytes from a
# compressed file) and `jq -c .` over the 10k JSON output.
# Usage: bench/report_speed.sh [NSESS_BIG] (default 100000)
set -eu
cd "$(dirname "$0")/.."
ROOT=$PWD
BIG=${1:-100000}
SMALL=$((BIG / 10))
W=$ROOT/build/bench-report
mkdir -p "$W"
make -s build/retsnoop-report >/dev/null
gcc -std=gnu11 -Wall -Wextra -O2 -I. -D_GNU_SOURCE -o build/mkrec_filters \
	tests/golden/mkrec_filters.c build/format/*.o build/common/*.o -lzstd -lz
[ -x /usr/bin/time ] || { echo "report_speed: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
mkdir -p "$W/small" "$W/big"
build/mkrec_filters "$W/small" "$SMALL" 300
build/mkrec_filters "$W/big" "$BIG" 300
REP=$ROOT/build/retsnoop-report

# measure LABEL NSESS CMD... : prints one row
measure() {
	local label=$1 n=$2; shift 2
	/usr/bin/time -v -o "$W/time.txt" "$@" >/dev/null 2>"$W/stderr.txt" ||
		{ echo "report_speed: '$*' failed:" >&2; cat "$W/stderr.txt" >&2; exit 1; }
	awk -v label="$label" -v n="$n" '
		/User time/ {u=$NF} /System time/ {s=$NF}
		/Elapsed \(wall clock\)/ {split($NF, a, ":"); w = (length(a) == 3) ? a[1]*3600+a[2]*60+a[3] : a[1]*60+a[2]}
		/Maximum resident/ {r=$NF}
		END {cpu=u+s; if (cpu < 0.01) cpu=0.01; if (w < 0.01) w=0.01;
		     printf "%-28s %8d %9.2f %12.0f %12.0f %10.1f\n", label, n, cpu, n/cpu, n/w, r/1024}' "$W/time.txt"
	awk '/User time/ {u=$NF} /System time/ {s=$NF} END {print u+s}' "$W/time.txt" > "$W/last.cpu"
}
cpu() { cat "$W/last.cpu"; }

printf "%-28s %8s %9s %12s %12s %10s\n" "RUN" "SESSIONS" "CPU s" "SESS/S CPU" "SESS/S WALL" "RSS MiB"
measure "text $SMALL"        "$SMALL" "$REP" "$W/small/big.rsrec"
measure "text $BIG"          "$BIG"   "$REP" "$W/big/big.rsrec";            T_TEXT=$(cpu)
measure "json $SMALL"        "$SMALL" "$REP" --format json "$W/small/big.rsrec"
measure "json $BIG"          "$BIG"   "$REP" --format json "$W/big/big.rsrec"; T_JSON=$(cpu)
measure "summary $SMALL"     "$SMALL" "$REP" summary "$W/small/big.rsrec"
measure "summary $BIG"       "$BIG"   "$REP" summary "$W/big/big.rsrec";    T_SUM=$(cpu)
measure "folded $BIG"        "$BIG"   "$REP" --folded "$W/big/big.rsrec"
measure "filtered text $BIG" "$BIG"   "$REP" -Sn --stack-has 'bench_func_1?' "$W/big/big.rsrec"

# peers
"$REP" "$W/big/big.rsrec" 2>/dev/null | zstd -q -3 -c > "$W/text.zst"
measure "peer: zstd -dc text $BIG" "$BIG" zstd -dc "$W/text.zst";           T_ZSTD=$(cpu)
"$REP" --format json "$W/small/big.rsrec" > "$W/small.json" 2>/dev/null
measure "peer: jq -c . json $SMALL" "$SMALL" jq -c . "$W/small.json";       T_JQ=$(cpu)
echo
awk -v t="$T_TEXT" -v z="$T_ZSTD" -v j="$T_JSON" -v q="$T_JQ" -v s="$T_SUM" -v big="$BIG" -v small="$SMALL" 'BEGIN {
	printf "text render / zstd -dc of the same text: %.2fx the CPU time\n", t / (z > 0.005 ? z : 0.005);
	printf "json render / jq -c . re-parsing it:      %.3fx the CPU time per session\n", (j / big) / ((q > 0.005 ? q : 0.005) / small);
	printf "summary / text render:                   %.2fx\n", s / (t > 0.005 ? t : 0.005);
}'
ls -l "$W/big/big.rsrec" | awk '{printf "recording: %.1f MiB for %d sessions\n", $5/1048576, '"$BIG"'}'
