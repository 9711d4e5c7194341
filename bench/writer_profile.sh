#!/usr/bin/env bash
# writer_profile.sh - where the recorder's consumer spends its instructions
# per recorded session, on the host (no VM): bench/writer_feed.c hands the
# file writer (format/) N synthetic failing openat() sessions shaped like
# bench/record_overhead.sh's, as SESSION_END alone (-M) and as
# SESSION_START + a 26-entry TRACE_BATCH + SESSION_END (-M -T), under
# valgrind's callgrind (instruction counts, deterministic). Prints per
# session: all of it, our format/ code by function, zstd, zlib (the CRC),
# and zstd's share. The harness's own code (record building) and libc
# (the writer's copies among them) are counted apart. Not a test: it reports, it never fails on slowness.
#
# Usage: bench/writer_profile.sh   (env: N=3000 sessions, KEEP=1)
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-3000}
for t in valgrind callgrind_annotate; do
	command -v $t >/dev/null || { echo "writer_profile: $t missing (scripts/setup.sh installs valgrind)" >&2; exit 1; }
done
WORK=$(mktemp -d)
if [ -n "${KEEP:-}" ]; then echo "writer_profile: keeping $WORK" >&2; else trap 'rm -rf "$WORK"' EXIT; fi
make -s build/retsnoop-report >/dev/null   # the generated headers the sources include
# shellcheck disable=SC2046
gcc -std=gnu11 -O2 -g -I. -Ibuild -D_GNU_SOURCE -o "$WORK/writer_feed" bench/writer_feed.c \
	tests/golden/reclib.c $(ls format/*.c common/*.c) -lzstd -lz -lelf -lm
echo "writer_profile: $N sessions per mode, instructions per session (callgrind)"
for mode in M T; do
	arg=""; [ $mode = T ] && arg=T
	valgrind -q --tool=callgrind --callgrind-out-file="$WORK/cg.$mode" \
		"$WORK/writer_feed" "$WORK/out.$mode.rsr" "$N" $arg
	size=$(wc -c <"$WORK/out.$mode.rsr")
	callgrind_annotate --threshold=100 "$WORK/cg.$mode" 2>/dev/null |
	awk -v n="$N" -v mode="$mode" -v size="$size" '
		/^ *[0-9,]+ +\(/ && / \[/ {
			ir = $1; gsub(",", "", ir); ir += 0
			fn = ""; obj = $NF
			for (i = 2; i < NF; i++) if ($i ~ /%\)$/) { fn = $(i + 1); break }
			if (fn == "" || fn == "PROGRAM") next
			if (obj ~ /libzstd/) { zstd += ir; next }
			if (obj ~ /libz\./) { zlib += ir; next }
			if (fn ~ /^format\//) { sub(/^format\//, "", fn); ours[fn] += ir; own += ir; next }
			other += ir
		}
		END {
			total = own + zstd + zlib
			printf "%s: %.0f per session in the writer and its libraries (file: %.0f bytes per session)\n",
				mode == "T" ? "-M -T" : "-M", total / n, size / n
			printf "  %-34s %8.0f\n", "zstd", zstd / n
			printf "  %-34s %8.0f\n", "zlib (CRC)", zlib / n
			printf "  %-34s %8.0f\n", "format/ (ours), of which:", own / n
			k = 0
			for (f in ours) { names[++k] = f }
			for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++)
				if (ours[names[j]] > ours[names[i]]) { t = names[i]; names[i] = names[j]; names[j] = t }
			for (i = 1; i <= k && i <= 5; i++)
				printf "    %-32s %8.0f\n", names[i], ours[names[i]] / n
			printf "  zstd / format/: %.1fx; zstd share of the writer: %.0f%%\n",
				own ? zstd / own : 0, total ? 100 * zstd / total : 0
			printf "  (the harness itself, not counted: %.0f)\n", other / n
		}'
done
