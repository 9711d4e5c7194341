#!/usr/bin/env bash
# run_module.sh - kernel module symbolization, on Debian's 6.12 overlay.ko
# debug file (KMODS_DBG from $KENV, extracted by scripts/fetch-kernels.sh):
#  1. host: `retsnoop-report addr2line -i` on the ET_REL .ko (code sections
#     laid out from 0, .text first) over every call site's return
#     address - 1 and every function entry in .text, against
#     llvm-symbolizer --inlining (on a copy whose other sections are moved
#     away from 0, so its symbol-table names are .text's; addresses where
#     llvm-symbolizer 14 has no line at all are left out and counted) and
#     against eu-addr2line -a -f -i (DWARF names: ours with --dwarf-names);
#  2. VM (tests/vm/vmrun, 6.12): overlay.ko loaded, a failing overlay mount
#     recorded with retsnoop-record; on the host retsnoop-report -k
#     VMLINUX_DBG finds the module's debug file by build-id under
#     $RETSNOOP_DEBUG_ROOT, relocates it to the recorded section addresses,
#     and every overlay frame with an offset must show the file:line and
#     inlined frames llvm-symbolizer gives for that .text offset; then a
#     debug file with another build-id and a missing one are each reported
#     in one line naming the module, and the frames fall back to kallsyms.
# DWARF_NO_VM=1 skips part 2. Prints "dwarf-module-*: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
KENV=${KENV:-/opt/retsnoop-kernels/6.12.env}
fail_setup() { echo "dwarf-module: $*"; echo "dwarf-module-setup: 0 passed, 1 failed"; exit 1; }
[ -f "$KENV" ] || fail_setup "no $KENV (run scripts/fetch-kernels.sh)"
. "$KENV"
KMODS_DBG=${KMODS_DBG:-$(dirname "$VMLINUX_DBG")/../lib/modules/$KREL}
KO_DBG=$KMODS_DBG/kernel/fs/overlayfs/overlay.ko
[ -f "$KO_DBG" ] || fail_setup "no $KO_DBG (run scripts/fetch-kernels.sh)"
LLVM=$(command -v llvm-symbolizer || command -v llvm-symbolizer-14) || fail_setup "llvm-symbolizer missing"
EU=$(command -v eu-addr2line) || fail_setup "eu-addr2line missing (apt-get install elfutils)"
command -v debuginfod >/dev/null || fail_setup "debuginfod missing (apt-get install debuginfod)"
make -s build/retsnoop-record build/retsnoop-report >/dev/null || fail_setup "build failed"
REPORT=$ROOT/build/retsnoop-report
W=$(mktemp -d)
. tests/dwarf/debuginfod_lib.sh
trap 'dbgd_stop; [ -n "${KEEP:-}" ] || rm -rf "$W"' EXIT
FAIL=0

# ---------------------------------------------------------------- host --
objdump -d --no-show-raw-insn -j .text "$KO_DBG" |
	awk -F: 'pc && /^ *[0-9a-f]+:/ { a = $1; gsub(/ /, "", a); print a } { pc = ($0 ~ /\tcall/) }' |
	python3 -c 'import sys
for l in sys.stdin: print(hex(int(l, 16) - 1))' >"$W/addrs.txt"
# function entries in .text (section 1 in readelf -s), without __pfx_ padding
TEXT_NDX=$(readelf -SW "$KO_DBG" | sed -n 's/^ *\[ *\([0-9]*\)\] \.text .*/\1/p' | head -1)
readelf -sW "$KO_DBG" | awk -v t="$TEXT_NDX" '$4 == "FUNC" && $7 == t && $8 !~ /^__pfx_/ { print "0x" $2 }' |
	python3 -c 'import sys
for l in sorted({int(x, 16) for x in sys.stdin}): print(hex(l))' >>"$W/addrs.txt"
# a copy where every allocated section but .text sits far from 0
python3 - "$KO_DBG" >"$W/objcopy.args" <<'PY'
import sys, struct
d = open(sys.argv[1], 'rb').read()
shoff, = struct.unpack_from('<Q', d, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from('<HHH', d, 0x3a)
sh = lambda i: struct.unpack_from('<IIQQQQIIQQ', d, shoff + i * shentsize)
stro = sh(shstrndx)[4]
n = 0
for i in range(1, shnum):
    name_off, typ, flags = sh(i)[:3]
    name = d[stro + name_off:d.index(b'\0', stro + name_off)].decode()
    if flags & 2 and name != '.text':
        n += 1
        print(f'--change-section-address={name}=0x{(n + 1) << 24:x}')
PY
xargs -a "$W/objcopy.args" objcopy "$KO_DBG" "$W/shifted.ko" 2>"$W/objcopy.err" ||
	fail_setup "objcopy failed: $(head -1 "$W/objcopy.err")"
"$REPORT" addr2line -e "$KO_DBG" -i <"$W/addrs.txt" >"$W/ours.txt" 2>"$W/err" ||
	echo "dwarf-module: addr2line failed: $(head -1 "$W/err")"
"$REPORT" addr2line -e "$KO_DBG" -i --dwarf-names <"$W/addrs.txt" >"$W/ours-dn.txt" 2>>"$W/err"
"$LLVM" --inlining -e "$W/shifted.ko" <"$W/addrs.txt" >"$W/llvm.txt"
"$EU" -a -f -i -e "$KO_DBG" <"$W/addrs.txt" >"$W/eu.txt"
OUTL=$(python3 tests/dwarf/compare.py --name dwarf-module-llvm --skip-ref-unknown \
	"$W/addrs.txt" "$W/ours.txt" "$W/llvm.txt" --show 5) || FAIL=1
echo "$OUTL"
# llvm-symbolizer must place nearly all of them for the comparison to mean something
NADDR=$(wc -l <"$W/addrs.txt")
NSKIP=$(sed -n 's/.*; \([0-9]*\) addresses left out.*/\1/p' <<<"$OUTL" | head -1)
if [ -n "$NSKIP" ] && [ $((NSKIP * 20)) -le "$NADDR" ]; then
	echo "dwarf-module-llvm-coverage: 1 passed, 0 failed"
else
	echo "dwarf-module-llvm-coverage: llvm-symbolizer placed too few addresses (${NSKIP:-?} of $NADDR left out)"
	echo "dwarf-module-llvm-coverage: 0 passed, 1 failed"; FAIL=1
fi
python3 tests/dwarf/compare.py --name dwarf-module-eu --ref-format eu \
	"$W/addrs.txt" "$W/ours-dn.txt" "$W/eu.txt" --show 5 || FAIL=1

# ------------------------------------------------------------------ VM --
if [ -n "${DWARF_NO_VM:-}" ]; then exit $FAIL; fi
KO=$(ls "$KMODS"/kernel/fs/overlayfs/overlay.ko* 2>/dev/null | head -1)
[ -n "$KO" ] || fail_setup "overlay.ko not in $KMODS"
case "$KO" in
*.xz) xz -dc "$KO" >"$W/overlay.ko" ;;
*.zst) zstd -qdc "$KO" >"$W/overlay.ko" ;;
*) cp "$KO" "$W/overlay.ko" ;;
esac
cp build/retsnoop-record "$W/"
cat >"$W/guest.sh" <<'GUEST'
insmod ./overlay.ko; echo $? >/out/insmod.rc
mkdir -p /mnt/o
./retsnoop-record -e 'ovl_*' -o /out/ovl.rsr -- mount -t overlay none /mnt/o -o lowerdir=/nonexistent \
	>/out/rec.out 2>/out/rec.err
GUEST
mkdir -p "$W/out"
(cd "$W" && timeout 300 "$ROOT/tests/vm/vmrun" -q --timeout 240 --kernel "$KIMG" --modules "$KMODS" \
	--mem 1024 --add ./retsnoop-record --add ./overlay.ko --add ./guest.sh --out "$W/out" \
	-- sh ./guest.sh) >"$W/vm.log" 2>&1
P=0 F=0
check() {  # NAME COND-CMD...
	local name=$1; shift
	if "$@"; then P=$((P + 1)); else echo "FAIL module $name"; F=$((F + 1)); fi
}
REC=$W/out/ovl.rsr
check "overlay.ko loaded in the VM" [ "$(cat "$W/out/insmod.rc" 2>/dev/null)" = 0 ]
check "recording written ($(tail -1 "$W/out/rec.err" 2>/dev/null))" [ -s "$REC" ]
if [ -s "$REC" ]; then
	DBGROOT=$W/dbgroot
	MODDIR=$DBGROOT/usr/lib/debug/lib/modules/$KREL/kernel/fs/overlayfs
	mkdir -p "$MODDIR"
	ln -s "$KO_DBG" "$MODDIR/overlay.ko"
	RETSNOOP_DEBUG_ROOT=$DBGROOT "$REPORT" -k "$VMLINUX_DBG" "$REC" >"$W/rep.txt" 2>"$W/rep.err"
	check "report exits 0 ($(head -1 "$W/rep.err"))" [ $? = 0 ]
	# overlay frames with an offset: name, offset and what follows on the
	# row and on its inline rows; expected from llvm-symbolizer at the
	# .text offset (symbol value + offset - 1: return addresses)
	nm "$KO_DBG" | awk '$2 ~ /^[tT]$/ { print $3, $1 }' >"$W/nm.txt"
	python3 - "$W/rep.txt" "$W/nm.txt" "$W/frames.txt" "$W/expect-addrs.txt" <<'PY'
import re, sys
rep, nm, frames, addrs = sys.argv[1:5]
syms = {}
for l in open(nm):
    n, a = l.split(); syms.setdefault(n, int(a, 16))
lines = open(rep).read().split('\n')
out, ads = [], []
for i, l in enumerate(lines):
    m = re.search(r'\s([A-Za-z0-9_.]+)\+0x([0-9a-f]+)\s+(\(.*\))?\s*$', l)
    if not m or m.group(1) not in syms:
        continue
    rows = [(m.group(1), m.group(3) or '')]
    j = i + 1
    while j < len(lines):
        mm = re.match(r'^\s+\. (\S+)\s+(\(.*\))\s*$', lines[j])
        if not mm:
            break
        rows.append((mm.group(1), mm.group(2))); j += 1
    out.append(repr(rows))
    ads.append(hex(syms[m.group(1)] + int(m.group(2), 16) - 1))
open(frames, 'w').write('\n'.join(out) + '\n')
open(addrs, 'w').write('\n'.join(ads) + '\n')
PY
	NFR=$(grep -c . "$W/frames.txt")
	check "overlay frames with offsets in the report ($NFR)" [ "$NFR" -ge 1 ]
	"$LLVM" --inlining -e "$W/shifted.ko" <"$W/expect-addrs.txt" >"$W/expect.txt"
	python3 - "$W/frames.txt" "$W/expect.txt" >"$W/cmp.txt" <<'PY'
import sys, os
frames = [eval(l) for l in open(sys.argv[1]) if l.strip()]
blocks, cur = [], []
for l in open(sys.argv[2]).read().split('\n'):
    if l == '':
        if cur: blocks.append(cur); cur = []
        continue
    cur.append(l)
bad = 0
for rows, blk in zip(frames, blocks):
    exp = []   # innermost first: (func, path, line)
    for k in range(0, len(blk) - 1, 2):
        p = blk[k + 1].rsplit(':', 2)
        exp.append((blk[k], os.path.normpath(p[0]), p[1]))
    # the report: the real function's row carries the outermost location,
    # then the inline rows from the outermost inlined call to the innermost
    got_locs = [r[1].strip('()') for r in rows]
    want = [exp[-1]] + list(reversed(exp[:-1]))
    ok = len(got_locs) == len(want)
    for g, (fn, path, line) in zip(got_locs, want):
        gl = g.split(' @ ')[-1]
        gpath, _, gline = gl.rpartition(':')
        if not (path.endswith('/' + gpath) or path == gpath) or gline != line:
            ok = False
    for r, (fn, path, line) in zip(rows[1:], list(reversed(exp[:-1]))):
        if r[0] != fn:
            ok = False
    if not ok:
        bad += 1
        print('  differs:', rows, 'llvm:', exp)
print(f'{len(frames)} frames, {bad} differ')
PY
	cat "$W/cmp.txt"
	check "overlay frames match llvm-symbolizer on the .ko at their .text offsets" \
		grep -q "^$NFR frames, 0 differ" "$W/cmp.txt"
	check "an inlined frame inside overlay.ko is shown" grep -q "^ *\. ovl_" "$W/rep.txt"
	RETSNOOP_DEBUG_ROOT=$DBGROOT "$REPORT" -s -k "$VMLINUX_DBG" "$REC" >"$W/rep-s.txt" 2>/dev/null
	check "-s: overlay frames have file:line, no inline rows" \
		bash -c "grep -qE 'ovl_[a-z_]+\+0x[0-9a-f]+ +\(fs/overlayfs/[a-z_]+\.c:[0-9]+\)' '$W/rep-s.txt' && ! grep -q '^ *\. ovl_' '$W/rep-s.txt'"
	RETSNOOP_DEBUG_ROOT=$DBGROOT "$REPORT" -sn -k "$VMLINUX_DBG" "$REC" >"$W/rep-sn.txt" 2>/dev/null
	check "-sn: no source locations" bash -c "! grep -q 'fs/overlayfs/' '$W/rep-sn.txt'"
	# a debug file with another build-id: refused, named, kallsyms only
	BID=$(readelf -n "$KO_DBG" | awk '/Build ID/ { print $3; exit }')
	python3 - "$KO_DBG" "$W/other.ko" "$BID" <<'PY'
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
bid = bytes.fromhex(sys.argv[3])
i = d.find(bid)
assert len(bid) >= 8 and i > 0
d[i] ^= 0xff
open(sys.argv[2], 'wb').write(d)
PY
	rm "$MODDIR/overlay.ko"
	cp "$W/other.ko" "$MODDIR/overlay.ko"
	RETSNOOP_DEBUG_ROOT=$DBGROOT "$REPORT" -k "$VMLINUX_DBG" "$REC" >"$W/rep-mm.txt" 2>"$W/rep-mm.err"
	RC=$?
	check "mismatching module build-id: exit 0, one line naming the module and both ids ($(head -1 "$W/rep-mm.err"))" \
		bash -c "[ $RC = 0 ] && [ \$(grep -c 'module overlay' '$W/rep-mm.err') = 1 ] && grep -q 'has build-id .*, the recorded module has' '$W/rep-mm.err' && ! grep -q 'fs/overlayfs/' '$W/rep-mm.txt'"
	rm "$MODDIR/overlay.ko"
	RETSNOOP_DEBUG_ROOT=$DBGROOT "$REPORT" -k "$VMLINUX_DBG" "$REC" >"$W/rep-none.txt" 2>"$W/rep-none.err"
	RC=$?
	check "no module debug file: exit 0, one line saying how to get it ($(head -1 "$W/rep-none.err"))" \
		bash -c "[ $RC = 0 ] && [ \$(grep -c 'module overlay' '$W/rep-none.err') = 1 ] && grep -q 'dbg package' '$W/rep-none.err' && grep -q 'ovl_parse_param+0x' '$W/rep-none.txt'"
	# no local file but a debuginfod server that has it: fetched by build-id
	mkdir -p "$W/srv" "$W/dbgd"
	ln -s "$KO_DBG" "$W/srv/overlay.ko"
	if dbgd_start "$W/srv" "$W/dbgd"; then
		DEBUGINFOD_URLS=http://127.0.0.1:$DBGD_PORT DEBUGINFOD_CACHE_PATH=$W/dcache DEBUGINFOD_TIMEOUT=30 \
			RETSNOOP_DEBUG_ROOT=$DBGROOT timeout 120 "$REPORT" -k "$VMLINUX_DBG" "$REC" \
			>"$W/rep-dbgd.txt" 2>"$W/rep-dbgd.err"
		RC=$?
		check "module debug file through debuginfod: same report, nothing on stderr ($(head -1 "$W/rep-dbgd.err"))" \
			bash -c "[ $RC = 0 ] && [ ! -s '$W/rep-dbgd.err' ] && cmp -s '$W/rep.txt' '$W/rep-dbgd.txt'"
		check "the server served the module by its build-id" \
			grep -q "GET /buildid/$BID/debuginfo 200" "$W/dbgd/server.log"
	else
		check "debuginfod server scanned $W/srv: $(tail -1 "$W/dbgd/server.log")" false
	fi
	dbgd_stop
fi
if [ "$F" != 0 ]; then
	tail -20 "$W/vm.log"
	head -40 "$W/rep.txt" 2>/dev/null
fi
echo "dwarf-module-vm: $P passed, $F failed"
[ "$F" = 0 ] || FAIL=1
exit $FAIL
