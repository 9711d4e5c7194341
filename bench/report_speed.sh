#!/usr/bin/env bash
# report_speed.sh - retsnoop-report rendering speed and memory: writes
# synthetic recordings of NSESS/10, NSESS and 3*NSESS sessions over 300
# traced functions through format/ (tests/golden/mkrec_filters), then
# measures text (to /dev/null), JSON (to /dev/null) and summary rendering
# of each, and of NSESS real sessions (tests/golden/data/vm-bpf.rsr's
# repeated by bench/replicate_rec.c: real kallsyms, and DWARF source lines
# and inlined frames from the 6.12 -dbg vmlinux, each address looked up
# once and then cached) with /usr/bin/time -v: sessions per second of CPU time
# (user+sys, one core: the report is single-threaded) and of wall time,
# and peak RSS, whose ratio between the largest and the smallest recording
# shows whether memory grows with the number of sessions (it must not: the
# report streams). Folded stacks and Perfetto at NSESS too (folded
# memory grows with distinct stacks, which are nearly all distinct here).
# Peers in the same run: `zstd -dc` of the text output compressed (the
# cost of just producing those bytes from a compressed file) and `jq -c .`
# over the small JSON output.
# Usage: bench/report_speed.sh [NSESS] (default 100000)
set -eu
cd "$(dirname "$0")/.."
ROOT=$PWD
BIG=${1:-100000}
SMALL=$((BIG / 10))
HUGE=$((BIG * 3))
W=$ROOT/build/bench-report
mkdir -p "$W"
make -s build/retsnoop-report >/dev/null
gcc -std=gnu11 -Wall -Wextra -O2 -I. -D_GNU_SOURCE -o build/mkrec_filters \
	tests/golden/mkrec_filters.c tests/golden/reclib.c build/format/*.o build/common/*.o -lzstd -lz -lm
[ -x /usr/bin/time ] || { echo "report_speed: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
for n in "$SMALL" "$BIG" "$HUGE"; do
	mkdir -p "$W/$n"
	build/mkrec_filters "$W/$n" "$n" 300
done
gcc -std=gnu11 -Wall -Wextra -O2 -I. -D_GNU_SOURCE -o build/replicate_rec \
	bench/replicate_rec.c build/format/*.o build/common/*.o -lzstd -lz -lm
# real kernel stacks: the VM recording of -c bpf, its sessions repeated
build/replicate_rec tests/golden/data/vm-bpf.rsr "$W/real.rsr" "$BIG"
VMLINUX=$(f=${KENV:-/opt/retsnoop-kernels/6.12.env}; [ -f "$f" ] && . "$f" && echo "${VMLINUX_DBG:-}")
export RETSNOOP_NO_DWARF=1   # synthetic kernel: no vmlinux to look for
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
	awk '/Maximum resident/ {print $NF}' "$W/time.txt" > "$W/last.rss"
}
cpu() { cat "$W/last.cpu"; }
rss() { cat "$W/last.rss"; }

printf "%-28s %8s %9s %12s %12s %10s\n" "RUN" "SESSIONS" "CPU s" "SESS/S CPU" "SESS/S WALL" "RSS MiB"
for kind in text json summary; do
	for n in "$SMALL" "$BIG" "$HUGE"; do
		case $kind in
		text)    measure "text $n" "$n" "$REP" "$W/$n/big.rsrec" ;;
		json)    measure "json $n" "$n" "$REP" --format json "$W/$n/big.rsrec" ;;
		summary) measure "summary $n" "$n" "$REP" summary "$W/$n/big.rsrec" ;;
		esac
		eval "T_${kind}_$n=\$(cpu) R_${kind}_$n=\$(rss)"
	done
done
measure "folded $BIG"         "$BIG" "$REP" --folded "$W/$BIG/big.rsrec"
measure "perfetto+summary $BIG" "$BIG" "$REP" --perfetto "$W/perfetto.json" --summary "$W/$BIG/big.rsrec"
measure "filtered text $BIG"  "$BIG" "$REP" -Sn --stack-has 'bench_func_1?' "$W/$BIG/big.rsrec"
measure "real text $BIG (-sn)" "$BIG" "$REP" -sn "$W/real.rsr"
if [ -f "$VMLINUX" ]; then
	XDG_CACHE_HOME=$W/cache measure "real text $BIG (DWARF -ss)" "$BIG" \
		env -u RETSNOOP_NO_DWARF "$REP" -ss -k "$VMLINUX" "$W/real.rsr"
	XDG_CACHE_HOME=$W/cache measure "real json $BIG (DWARF -ss)" "$BIG" \
		env -u RETSNOOP_NO_DWARF "$REP" --format json -ss -k "$VMLINUX" "$W/real.rsr"
else
	echo "(no -dbg vmlinux: DWARF rows skipped; scripts/setup.sh fetches it)"
fi
T_TEXT=$(eval echo "\$T_text_$BIG") T_JSON=$(eval echo "\$T_json_$BIG") T_SUM=$(eval echo "\$T_summary_$BIG")

# peers
"$REP" "$W/$BIG/big.rsrec" 2>/dev/null | zstd -q -3 -c > "$W/text.zst"
measure "peer: zstd -dc text $BIG" "$BIG" zstd -dc "$W/text.zst";           T_ZSTD=$(cpu)
"$REP" --format json "$W/$SMALL/big.rsrec" > "$W/small.json" 2>/dev/null
measure "peer: jq -c . json $SMALL" "$SMALL" jq -c . "$W/small.json";       T_JQ=$(cpu)
echo
awk -v t="$T_TEXT" -v z="$T_ZSTD" -v j="$T_JSON" -v q="$T_JQ" -v s="$T_SUM" -v big="$BIG" -v small="$SMALL" 'BEGIN {
	printf "text render / zstd -dc of the same text: %.2fx the CPU time\n", t / (z > 0.005 ? z : 0.005);
	printf "json render / jq -c . re-parsing it:      %.3fx the CPU time per session\n", (j / big) / ((q > 0.005 ? q : 0.005) / small);
	printf "summary / text render:                   %.2fx\n", s / (t > 0.005 ? t : 0.005);
}'
for kind in text json summary; do
	a=$(eval echo "\$R_${kind}_$SMALL") b=$(eval echo "\$R_${kind}_$HUGE")
	awk -v k="$kind" -v a="$a" -v b="$b" -v s="$SMALL" -v h="$HUGE" 'BEGIN {
		printf "peak RSS %-7s %7d sessions / %6d sessions: %.2fx (%.1f / %.1f MiB)\n", k, h, s, b / a, b / 1024, a / 1024 }'
done
ls -l "$W/$BIG/big.rsrec" | awk '{printf "recording: %.1f MiB for %d sessions\n", $5/1048576, '"$BIG"'}'
