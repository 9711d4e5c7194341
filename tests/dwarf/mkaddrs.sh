#!/usr/bin/env bash
# mkaddrs.sh VMLINUX OUTDIR - makes the address sets used by the DWARF
# correctness test and the symbolizer benchmark, from the vmlinux itself:
#   rets.txt     every call site's return address - 1 in .text (objdump -d)
#   entries.txt  every function symbol's address (nm), without __pfx_ padding
#   mix-N.txt    N addresses (N = 1, 1000, 10000, 100000): 80% return
#                addresses, 20% entries, deterministic shuffle
# Files already present in OUTDIR are reused (keyed by the vmlinux build-id).
set -euo pipefail
V=${1:?usage: mkaddrs.sh VMLINUX OUTDIR}
OUT=${2:?usage: mkaddrs.sh VMLINUX OUTDIR}
mkdir -p "$OUT"
BID=$(readelf -n "$V" 2>/dev/null | awk '/Build ID/ {print $3; exit}')
if [ -f "$OUT/.bid" ] && [ "$(cat "$OUT/.bid")" = "$BID" ] && [ -s "$OUT/mix-100000.txt" ]; then
	exit 0
fi
seeded() { openssl enc -aes-256-ctr -pass pass:"$1" -nosalt </dev/zero 2>/dev/null || yes "$1"; }
objdump -d --no-show-raw-insn -j .text "$V" |
	awk -F: 'pc && /^ *[0-9a-f]+:/ { a = $1; gsub(/ /, "", a); print a } { pc = ($0 ~ /\tcall/) }' |
	python3 -c 'import sys
for l in sys.stdin: print(hex(int(l, 16) - 1))' >"$OUT/rets.txt"
nm "$V" | awk '$2 ~ /^[tT]$/ && $3 !~ /^__pfx_/ { print "0x" $1 }' | sort -u >"$OUT/entries.txt"
[ -s "$OUT/rets.txt" ] && [ -s "$OUT/entries.txt" ] || { echo "mkaddrs.sh: no addresses extracted from $V" >&2; exit 1; }
for n in 1 1000 10000 100000; do
	r=$(( n * 8 / 10 )); e=$(( n - r )); [ "$n" = 1 ] && r=1 e=0
	{ shuf -r -n "$r" --random-source=<(seeded r$n) "$OUT/rets.txt"
	  if [ "$e" -gt 0 ]; then shuf -r -n "$e" --random-source=<(seeded e$n) "$OUT/entries.txt"; fi
	} | shuf --random-source=<(seeded m$n) >"$OUT/mix-$n.txt"
done
echo "$BID" >"$OUT/.bid"
