#!/usr/bin/env bash
# symbolize.sh - benchmarks `retsnoop-report addr2line -i` against
# `llvm-symbolizer --inlining` and `eu-addr2line -f -i` on the same vmlinux
# and the same address sets (1, 1k, 10k, 100k addresses from
# tests/dwarf/mkaddrs.sh), ours cold (empty cache dir; CUs indexed on one
# thread per CPU, then again on one thread) and warm (cache present).
# Prints wall and CPU seconds, ratios to llvm-symbolizer and peak RSS (GNU
# time). Not a test: it never fails on slowness.
#
# vmlinux: $VMLINUX, else VMLINUX_DBG from $KENV (default
# /opt/retsnoop-kernels/6.12.env). Env: SIZES="1 1000 10000 100000",
# EU_MAX=10000 (largest set given to eu-addr2line; it needs ~2 ms/address),
# REPORT=build/retsnoop-report, ADDRS_DIR (cache of address sets);
# PEER=another retsnoop-report build (e.g. before a change) timed cold and
# warm in the same run, with PEER_ENV="VAR=value ..." set for it.
set -euo pipefail
cd "$(dirname "$0")/.."
KENV=${KENV:-/opt/retsnoop-kernels/6.12.env}
if [ -z "${VMLINUX:-}" ] && [ -f "$KENV" ]; then VMLINUX=$(. "$KENV"; echo "${VMLINUX_DBG:-}"); fi
[ -n "${VMLINUX:-}" ] && [ -f "$VMLINUX" ] || { echo "symbolize.sh: no vmlinux with DWARF (set VMLINUX or KENV)" >&2; exit 1; }
REPORT=${REPORT:-build/retsnoop-report}
[ -x "$REPORT" ] || { echo "symbolize.sh: $REPORT not built (make)" >&2; exit 1; }
LLVM=$(command -v llvm-symbolizer || command -v llvm-symbolizer-14 || true)
EU=$(command -v eu-addr2line || true)
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "symbolize.sh: GNU time missing (apt-get install time)" >&2; exit 1; }
SIZES=${SIZES:-1 1000 10000 100000}
EU_MAX=${EU_MAX:-10000}
ADDRS_DIR=${ADDRS_DIR:-${TMPDIR:-/tmp}/retsnoop-bench-addrs}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

tests/dwarf/mkaddrs.sh "$VMLINUX" "$ADDRS_DIR"
echo "vmlinux: $VMLINUX ($(stat -c %s "$VMLINUX") bytes)"
echo "cpus: $(nproc), load: $(cut -d' ' -f1-3 /proc/loadavg)"
[ -z "${PEER:-}" ] || echo "peer: $PEER ${PEER_ENV:-}"

# run NAME INPUT CMD... -> sets R_WALL R_CPU R_RSS (MB); output discarded
run() {
	local in=$1; shift
	"$TIME" -f '%e %U %S %M' -o "$WORK/t" "$@" <"$in" >"$WORK/out" 2>"$WORK/err" || {
		echo "symbolize.sh: '$*' failed: $(tail -1 "$WORK/err")" >&2; return 1; }
	read -r w u s m <"$WORK/t"
	R_WALL=$w
	R_CPU=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')
	R_RSS=$(( m / 1024 ))
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "-" }'; }

printf '\n%-8s %-18s %8s %8s %8s %12s %12s\n' addrs tool wall_s cpu_s rss_MB "llvm/us wall" "llvm/us cpu"
for n in $SIZES; do
	in="$ADDRS_DIR/mix-$n.txt"
	L_WALL=0 L_CPU=0
	if [ -n "$LLVM" ]; then
		run "$in" "$LLVM" --inlining -e "$VMLINUX"
		L_WALL=$R_WALL L_CPU=$R_CPU
		printf '%-8s %-18s %8s %8s %8s\n' "$n" llvm-symbolizer "$R_WALL" "$R_CPU" "$R_RSS"
	fi
	if [ -n "$EU" ] && [ "$n" -le "$EU_MAX" ]; then
		run "$in" "$EU" -f -i -e "$VMLINUX"
		printf '%-8s %-18s %8s %8s %8s %12s %12s\n' "$n" eu-addr2line "$R_WALL" "$R_CPU" "$R_RSS" \
			"$(ratio "$L_WALL" "$R_WALL")" "$(ratio "$L_CPU" "$R_CPU")"
	fi
	rm -rf "$WORK/cache"
	run "$in" env XDG_CACHE_HOME="$WORK/cache" "$REPORT" addr2line -e "$VMLINUX" -i
	printf '%-8s %-18s %8s %8s %8s %12s %12s\n' "$n" "ours cold" "$R_WALL" "$R_CPU" "$R_RSS" \
		"$(ratio "$L_WALL" "$R_WALL")" "$(ratio "$L_CPU" "$R_CPU")"
	run "$in" env XDG_CACHE_HOME="$WORK/cache" "$REPORT" addr2line -e "$VMLINUX" -i
	printf '%-8s %-18s %8s %8s %8s %12s %12s\n' "$n" "ours warm" "$R_WALL" "$R_CPU" "$R_RSS" \
		"$(ratio "$L_WALL" "$R_WALL")" "$(ratio "$L_CPU" "$R_CPU")"
	printf '%-8s %-18s %8s\n' "$n" "cache file MB" "$(du -m "$WORK"/cache/retsnoop/*.idx 2>/dev/null | awk '{s+=$1} END {print s+0}')"
	run "$in" env RETSNOOP_NO_SYMCACHE=1 RETSNOOP_SYM_THREADS=1 "$REPORT" addr2line -e "$VMLINUX" -i
	printf '%-8s %-18s %8s %8s %8s %12s %12s\n' "$n" "ours cold 1 thread" "$R_WALL" "$R_CPU" "$R_RSS" \
		"$(ratio "$L_WALL" "$R_WALL")" "$(ratio "$L_CPU" "$R_CPU")"
	if [ -n "${PEER:-}" ]; then
		rm -rf "$WORK/peercache"
		# shellcheck disable=SC2086
		run "$in" env XDG_CACHE_HOME="$WORK/peercache" ${PEER_ENV:-} "$PEER" addr2line -e "$VMLINUX" -i
		printf '%-8s %-18s %8s %8s %8s %12s %12s\n' "$n" "peer cold" "$R_WALL" "$R_CPU" "$R_RSS" \
			"$(ratio "$L_WALL" "$R_WALL")" "$(ratio "$L_CPU" "$R_CPU")"
		# shellcheck disable=SC2086
		run "$in" env XDG_CACHE_HOME="$WORK/peercache" ${PEER_ENV:-} "$PEER" addr2line -e "$VMLINUX" -i
		printf '%-8s %-18s %8s %8s %8s %12s %12s\n' "$n" "peer warm" "$R_WALL" "$R_CPU" "$R_RSS" \
			"$(ratio "$L_WALL" "$R_WALL")" "$(ratio "$L_CPU" "$R_CPU")"
	fi
done
echo
echo "targets: cold <= llvm on every set; warm >= 10x faster than llvm on 10k/100k; RSS <= llvm/2"
