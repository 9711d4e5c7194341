#!/usr/bin/env bash
# mkcorpus.sh DIR - writes the fuzz seed corpus into DIR/reader and
# DIR/report: the small synthetic recordings the golden tests make
# (build/golden*, made first when missing), the -U self-capture ones
# (build/ustack-test), heads of the committed real VM
# recordings (tests/golden/data, tests/dwarf/data), the compact-END ones
# (build/golden/compact), truncated and
# byte-damaged variants of each; report seeds carry a leading byte that
# picks the command line (tests/fuzz/fuzz_report.c), several per seed.
set -euo pipefail
cd "$(dirname "$0")/../.."
D=$1
mkdir -p "$D/src" "$D/reader" "$D/report"
if ! ls build/golden/*.rsrec build/golden-filters/*.rsrec build/golden-views/*.rsrec \
	build/golden-args/*.rsrec build/golden-probes/*.rsrec >/dev/null 2>&1; then
	tests/golden/run.sh >/dev/null 2>&1 || true
	tests/golden/run_filters.sh >/dev/null 2>&1 || true
	tests/golden/run_views.sh >/dev/null 2>&1 || true
	tests/golden/run_args.sh >/dev/null 2>&1 || true
	tests/golden/run_probes.sh >/dev/null 2>&1 || true
fi
# -U user stacks: the host self-capture recordings (tests/ustack/run.sh)
ls build/ustack-test/*.rsr >/dev/null 2>&1 || tests/ustack/run.sh >/dev/null 2>&1 || true
n=0
for f in build/ustack-test/*.rsr build/golden/*.rsrec build/golden/compact/*.rsrec \
	 build/golden-filters/*.rsrec build/golden-views/*.rsrec \
	 build/golden-args/*.rsrec build/golden-probes/*.rsrec; do
	[ -f "$f" ] || continue
	sz=$(stat -c %s "$f")
	[ "$sz" -le 65536 ] || [ "${f##*/}" = flight.rsrec ] || continue   # the ring's one seed
	n=$((n + 1)); cp "$f" "$D/src/s$n"
	head -c $((sz / 2)) "$f" >"$D/src/s$n.half"
	head -c $((sz - 7)) "$f" >"$D/src/s$n.cut"
	cp "$f" "$D/src/s$n.dmg"
	printf '\377' | dd of="$D/src/s$n.dmg" bs=1 seek=$((sz * 2 / 3)) conv=notrunc status=none
done
for f in tests/golden/data/*.rsr tests/dwarf/data/*.rsr; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	head -c 4096 "$f" >"$D/src/real$n.4k"
	head -c 60000 "$f" >"$D/src/real$n.60k"
done
cp "$D"/src/* "$D/reader/"
i=0
for f in "$D"/src/*; do
	for v in 0 1 2 3 5 6 7 9 10 11 13 14; do
		i=$((i + 1))
		{ printf "\\$(printf '%03o' $(( (v + i) % 20 )))"; cat "$f"; } >"$D/report/$(basename "$f").v$v"
	done
done
# fuzz_args: the golden -A recording's BTF, func_btf table and one record each
mkdir -p "$D/args"
make -s build/mkrec_args >/dev/null && build/mkrec_args "$D/args" seeds
echo "mkcorpus: $(ls "$D/reader" | wc -l) reader seeds, $(ls "$D/report" | wc -l) report seeds," \
	"$(ls "$D/args" | wc -l) args seeds" >&2
