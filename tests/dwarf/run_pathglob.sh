#!/usr/bin/env bash
# run_pathglob.sh - record-time ':path' globs, in the 6.12 VM (tests/vm/vmrun)
# with the Debian -dbg vmlinux placed where discovery looks for it:
# -e ':kernel/bpf/arraymap.c' -a ':kernel/bpf/syscall.c' must trace exactly
# functions of those files (checked against the vmlinux DWARF with
# llvm-symbolizer: each selected function's entry must resolve to one of
# them or to a header), then the errors: a glob matching no compile
# unit, -k naming a missing file, and no vmlinux found. Prints
# "dwarf-pathglob: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
KENV=${KENV:-/opt/retsnoop-kernels/6.12.env}
if [ ! -f "$KENV" ]; then
	echo "dwarf-pathglob: no $KENV (run scripts/fetch-kernels.sh)"; echo "dwarf-pathglob: 0 passed, 1 failed"; exit 1
fi
. "$KENV"
make -s build/retsnoop-record build/retsnoop-report build/simfail >/dev/null || {
	echo "dwarf-pathglob: build failed"; echo "dwarf-pathglob: 0 passed, 1 failed"; exit 1; }
W=$(mktemp -d)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$W"' EXIT
cp build/retsnoop-record build/simfail "$W/"
DBG=/usr/lib/debug/boot/vmlinux-$KREL
cat >"$W/guest.sh" <<GUEST
./retsnoop-record -v --dry-run -e ':kernel/bpf/arraymap.c' -a ':kernel/bpf/syscall.c' >/out/list.txt 2>&1
./retsnoop-record -e ':kernel/bpf/arraymap.c' -a ':kernel/bpf/syscall.c' -o /out/pg.rsr -- ./simfail bpf-bad-map-val-size-percpu-array 2>/out/ok.err; echo \$? >/out/ok.rc
./retsnoop-record -e ':nosuch/dir/*.c' -o /out/x.rsr -- true 2>/out/nomatch.err; echo \$? >/out/nomatch.rc
./retsnoop-record -k /nonexistent -e ':kernel/bpf/*.c' -o /out/x.rsr -- true 2>/out/badk.err; echo \$? >/out/badk.rc
mv $DBG /vmlinux.moved
./retsnoop-record -e ':kernel/bpf/*.c' -o /out/x.rsr -- true 2>/out/none.err; echo \$? >/out/none.rc
GUEST
mkdir -p "$W/out"
(cd "$W" && timeout 300 "$ROOT/tests/vm/vmrun" -q --timeout 240 --kernel "$KIMG" --modules "$KMODS" \
	--mem 2048 --add ./retsnoop-record --add ./simfail --add ./guest.sh \
	--add "$VMLINUX_DBG:$DBG" --out "$W/out" -- sh ./guest.sh) >"$W/vm.log" 2>&1
P=0 F=0
check() {  # NAME COND-CMD...
	local name=$1; shift
	if "$@"; then P=$((P + 1)); else echo "FAIL pathglob $name"; F=$((F + 1)); fi
}
O=$W/out
rc() { cat "$O/$1.rc" 2>/dev/null || echo none; }
check "record with :path globs exits 0 ($(rc ok): $(head -c 300 "$O/ok.err" 2>/dev/null))" [ "$(rc ok)" = 0 ]
if [ -f "$O/pg.rsr" ]; then
	NTRACED=$(build/retsnoop-report info "$O/pg.rsr" | sed -n 's/^Traced functions: *\([0-9]*\) (\([0-9]*\) entry).*/\1 \2/p')
	read -r NT NE <<<"$NTRACED"
	check "some functions traced (${NT:-0}, ${NE:-0} entry)" [ "${NT:-0}" -gt 10 ] && [ "${NE:-0}" -gt 5 ]
	# the selection listed by --dry-run -v: link addresses from nm, files from llvm-symbolizer
	sed -n 's/^\([A-Za-z0-9_.]*\) (addr 0x.*/\1/p' "$O/list.txt" | sort -u >"$W/names.txt"
	nm "$VMLINUX_DBG" | awk '$2 ~ /^[tT]$/ { print $3, $1 }' | sort -k1,1 -u | join - "$W/names.txt" |
		awk '{ print "0x" $2 }' >"$W/addrs.txt"
	llvm-symbolizer --no-inlines -e "$VMLINUX_DBG" <"$W/addrs.txt" | sed -n '2~3p' >"$W/files.txt"
	NL=$(wc -l <"$W/files.txt")
	NOK=$(grep -cE '/(kernel/bpf/(arraymap|syscall)\.c|include/[^:]*\.h):' "$W/files.txt")
	check "--dry-run selection: $NOK of $NL functions from arraymap.c/syscall.c (or headers)" \
		[ "$NL" -gt 10 ] && [ $((NOK * 100)) -ge $((NL * 95)) ]
	[ "$NOK" = "$NL" ] || grep -vE '/(kernel/bpf/(arraymap|syscall)\.c|include/[^:]*\.h):' "$W/files.txt" | head -5
	OUT=$(build/retsnoop-report -k "$VMLINUX_DBG" "$O/pg.rsr" 2>&1)
	check "the failing entry array_map_alloc is in the report with its arraymap.c line" \
		grep -q 'array_map_alloc+0x[0-9a-f]* *(kernel/bpf/arraymap.c:[0-9]*)' <<<"$OUT"
else
	check "pg.rsr written" false
fi
check "no matching CU: non-zero exit, one line naming the glob" \
	bash -c '[ "$(cat '"$O"'/nomatch.rc)" != 0 ] && [ "$(wc -l <'"$O"'/nomatch.err)" = 1 ] && grep -q ":nosuch/dir/\*.c" '"$O"'/nomatch.err'
check "-k missing file: non-zero exit, names the file" \
	bash -c '[ "$(cat '"$O"'/badk.rc)" != 0 ] && grep -q "/nonexistent" '"$O"'/badk.err'
check "no vmlinux found: non-zero exit, says how to get one" \
	bash -c '[ "$(cat '"$O"'/none.rc)" != 0 ] && [ "$(wc -l <'"$O"'/none.err)" = 1 ] && grep -q "dbg package" '"$O"'/none.err'
if [ "$F" != 0 ]; then
	for f in "$O"/*.err; do echo "--- $f"; head -5 "$f"; done
	tail -20 "$W/vm.log"
fi
echo "dwarf-pathglob: $P passed, $F failed"
[ "$F" = 0 ]
