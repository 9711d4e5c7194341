#!/usr/bin/env bash
# run.sh - the host test of -U user stacks (no tracing needed): selfcap
# (dynamic and static, -O2 -g without frame pointers) captures its own
# registers and stack three calls deep, mkustack makes a recording of it
# (UMAPS, USTACK, SESSION_END), and retsnoop-report must show level3,
# level2, level1 and main at the lines of their MARK comments, outermost
# first under the separator; with the binary moved away, path+0xOFFSET
# (the file offset inside level3) and the build-id, no names; with
# --symfs holding a copy, the names again; with another file at the
# recorded path, not used; stripped, its debug file found by build-id
# (names again: /usr/lib/debug/.build-id, debuginfod) or none (no names). Prints "ustack: N passed, N failed".
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
REPORT=${REPORT:-$ROOT/build/retsnoop-report}
SRC=$ROOT/tests/ustack/selfcap.c
PASS=0 FAIL=0
ok() { PASS=$((PASS + 1)); }
bad() { FAIL=$((FAIL + 1)); echo "FAIL: $*"; }
check() { # DESC CMD... : passes when CMD succeeds
	local d=$1; shift
	if "$@"; then ok; else bad "$d"; fi
}

if [ -z "${NO_BUILD:-}" ] && ! make -s -C "$ROOT" build/retsnoop-report build/selfcap \
		build/selfcap-static build/mkustack >/dev/null; then
	echo "ustack: cannot build"; echo "ustack: 0 passed, 1 failed"; exit 1
fi
WORK=$ROOT/build/ustack-test
rm -rf "$WORK"; mkdir -p "$WORK/bin" "$WORK/cache"
export XDG_CACHE_HOME=$WORK/cache
unset DEBUGINFOD_URLS
cd "$WORK" || exit 1

no_names() { ! grep -Eq 'level[123]|via_inline|^ *main\+' "$1"; }
mark_line() { grep -n "MARK $1 \*/" "$SRC" | cut -d: -f1; }
report() { "$REPORT" "$@" 2>>"$WORK/stderr"; }

# the file offset of symbol SYM in ELF BIN: its address in the executable
# PT_LOAD segment moved to that segment's file offset
sym_fileoff() { # BIN SYM -> "START END" (file offsets, decimal)
	local v size off vaddr
	read -r v size < <(nm -S "$1" | mawk -v s="$2" '$4 == s { print $1, $2; exit }')
	read -r off vaddr < <(readelf -lW "$1" | mawk '$1 == "LOAD" && / E / { print $2, $3; exit }')
	[ -n "$v" ] && [ -n "$off" ] || return 0
	echo "$((16#$v - vaddr + off)) $((16#$v - vaddr + off + 16#$size))"
}

# user frames of the text output, outermost first (after the separator)
user_rows() { mawk '/^----- user stack/ { u = 1; next } u && NF { print }' "$1"; }

names_ok() { # FILE VARIANT: the four frames, right lines, outermost first
	local f=$1 prev=0 fn want got n
	for fn in main level1 level2 level3; do
		want="tests/ustack/selfcap.c:$(mark_line "$fn")"
		n=$(user_rows "$f" | grep -n "^ *$fn+0x[0-9a-f]* *($want)" | cut -d: -f1 | head -1)
		if [ -z "$n" ]; then
			echo "  $2: no '$fn ... ($want)' row:"; user_rows "$f" | sed 's/^/    /'
			return 1
		fi
		[ "$n" -gt "$prev" ] || { echo "  $2: $fn out of order"; return 1; }
		prev=$n
	done
	want="tests/ustack/selfcap.c:$(mark_line via_inline)"
	user_rows "$f" | grep -A1 '^ *level2+' | grep -q "^ *\. via_inline *($want)\$" ||
		{ echo "  $2: no '. via_inline ($want)' row under level2"; return 1; }
}

json_frames() { # FILE BIN BUILD-ID found|"missing LO HI"
	python3 - "$@" "$SRC" <<'PY'
import json, re, sys
path, binp, bid, mode, src = sys.argv[1:6]
marks = {}
for n, l in enumerate(open(src), 1):
    m = re.search(r'MARK (\w+) \*/', l)
    if m:
        marks[m.group(1)] = n
us = json.loads(open(path).readline())['user_stack']
fr = us['frames']
def fail(msg):
    print('  ' + path + ': ' + msg + ': ' + json.dumps(fr[:5])[:600]); sys.exit(1)
f0 = fr[0]
if f0['module'] != binp or f0['build_id'] != bid or not isinstance(f0['offset'], int):
    fail('frame 0 module/build_id/offset')
if not f0['ip'].startswith('0x') or not us['maps_recorded']:
    fail('ip or maps_recorded')
if mode == 'found':
    for i, fn in enumerate(['level3', 'level2', 'level1', 'main']):
        f = fr[i]
        if (f['function'], f['file'], f['line'], f['found']) != (fn, 'tests/ustack/selfcap.c', marks[fn], True):
            fail('frame %d is not %s at line %d' % (i, fn, marks[fn]))
    if fr[1]['inlines'] != [{'function': 'via_inline', 'file': 'tests/ustack/selfcap.c', 'line': marks['via_inline']}]:
        fail('level2 has not via_inline inlined')
else:
    lo, hi = int(mode.split()[1]), int(mode.split()[2])
    if f0['found'] or f0['function'] is not None or f0['file'] is not None or not lo <= f0['offset'] < hi:
        fail('frame 0 should be unnamed at a file offset in [%d,%d)' % (lo, hi))
PY
}

for variant in dyn static; do
	exe=selfcap; [ $variant = static ] && exe=selfcap-static
	bin=$WORK/bin/$exe
	cp "$ROOT/build/$exe" "$bin"
	if ! "$bin" "$WORK/$variant.dump" || ! "$ROOT/build/mkustack" "$WORK/$variant.dump" \
			"$WORK/$variant.rsr"; then
		bad "$variant: capture or recording failed"; continue
	fi
	bid=$(readelf -nW "$bin" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
	report "$variant.rsr" >"$variant.txt"
	check "$variant: separator line" grep -q '^----- user stack --' "$variant.txt"
	check "$variant: kernel frames above the separator" \
		sh -c "mawk '/do_sys_openat2/ { k = NR } /^----- user stack/ { s = NR } END { exit !(k && s > k) }' $variant.txt"
	check "$variant: level3..main with file:line" names_ok "$variant.txt" "$variant"

	report --format json "$variant.rsr" >"$variant.json"
	check "$variant: JSON matches docs/report.schema.json" \
		python3 "$ROOT/tests/golden/check_report_json.py" schema "$ROOT/docs/report.schema.json" "$variant.json"
	check "$variant: JSON user frames" json_frames "$variant.json" "$bin" "$bid" found
	report --folded "$variant.rsr" >"$variant.folded"
	check "$variant: folded: user frames root-first, then kernel" \
		grep -q '^_start;.*main;level1;level2;via_inline;level3;__x64_sys_openat;do_sys_openat2 1$' "$variant.folded"

	# the binary gone: path+offset inside level3 and the build-id, no names
	read -r lo hi < <(sym_fileoff "$bin" level3)
	mv "$bin" "$bin.away"
	report "$variant.rsr" >"$variant-away.txt"
	report --format json "$variant.rsr" >"$variant-away.json"
	check "$variant away: JSON frame 0 unnamed, with module, build-id, offset" \
		json_frames "$variant-away.json" "$bin" "$bid" "missing $lo $hi"
	report --folded "$variant.rsr" >"$variant-away.folded"
	check "$variant away: folded root is $bin+0xOFF" grep -q "^$bin+0x[0-9a-f]*;__x64_sys_openat;do_sys_openat2 1\$" "$variant-away.folded"
	off=$(user_rows "$variant-away.txt" | sed -n "s|^ *$bin+0x\([0-9a-f]*\) *(build-id $bid)\$|\1|p" | tail -1)
	check "$variant away: $bin+0xOFF (build-id $bid) row" test -n "$off"
	check "$variant away: offset 0x${off:-?} inside level3 [$lo,$hi)" \
		test -n "$off" -a -n "$lo" -a "$((16#${off:-0}))" -ge "${lo:-1}" -a "$((16#${off:-0}))" -lt "${hi:-0}"
	check "$variant away: no names" no_names $variant-away.txt
	check "$variant away: note names the file" grep -q "$bin: not found (build-id $bid)" stderr

	# --symfs DIR holding the binary at DIR/<recorded path>
	mkdir -p "symfs$(dirname "$bin")"
	cp "$bin.away" "symfs$bin"
	report --symfs "$WORK/symfs" "$variant.rsr" >"$variant-symfs.txt"
	check "$variant --symfs: names again" names_ok "$variant-symfs.txt" "$variant --symfs"

	# another ELF (another build-id) at the recorded path: not used
	cp /bin/true "$bin"
	report "$variant.rsr" >"$variant-other.txt"
	check "$variant other build-id: not used" no_names $variant-other.txt
	check "$variant other build-id: said" grep -q "$bin: the file has build-id .*, the recording's $bid" stderr

	# a FIFO at the recorded path is not opened (it would block)
	rm -f "$bin"; mkfifo "$bin"
	timeout 20 "$REPORT" "$variant.rsr" >"$variant-fifo.txt" 2>>"$WORK/stderr"
	rc=$?
	check "$variant FIFO at the path: the report ends (status $rc)" test "$rc" = 0
	check "$variant FIFO at the path: no names" no_names "$variant-fifo.txt"
	rm -f "$bin"
	mv "$bin.away" "$bin"

	# stripped (no symbols, no DWARF): its debug file found by build-id
	# under RETSNOOP_DEBUG_ROOT/usr/lib/debug/.build-id gives it all back;
	# without it, the binary is found but has nothing to name a frame
	dbg=$WORK/debugroot/usr/lib/debug/.build-id/${bid:0:2}/${bid:2}.debug
	mkdir -p "$(dirname "$dbg")"
	objcopy --only-keep-debug "$bin" "$dbg"
	cp "$bin" "$bin.full"
	strip -s "$bin"
	RETSNOOP_DEBUG_ROOT=$WORK/debugroot report "$variant.rsr" >"$variant-dbg.txt"
	check "$variant stripped + .build-id debug file: names and lines" \
		names_ok "$variant-dbg.txt" "$variant stripped + debug file"
	report "$variant.rsr" >"$variant-stripped.txt"
	check "$variant stripped, no debug file: no names" \
		no_names $variant-stripped.txt
	check "$variant stripped, no debug file: level3 as $bin+0xOFF" \
		grep -q "^ *$bin+0x[0-9a-f]*\$" "$variant-stripped.txt"
	mv "$bin.full" "$bin"
done

# two recordings in one report (same pid in both): each session unwinds
# with its own recording's maps
report --format json dyn.rsr static.rsr >multi.json
check "two recordings: each session with its own binary" python3 - multi.json "$WORK/bin" <<'PY'
import json, sys
want = {'dyn.rsr': 'selfcap', 'static.rsr': 'selfcap-static'}
got = {}
for line in open(sys.argv[1]):
    d = json.loads(line)
    got[d['recording']['file']] = d['user_stack']['frames'][0]['module']
ok = got == {f: sys.argv[2] + '/' + b for f, b in want.items()}
if not ok:
    print('  ', got)
sys.exit(0 if ok else 1)
PY

# debuginfod (DEBUGINFOD_URLS set): the stripped binary's debug file
# fetched by build-id from a local server that has only it
# shellcheck source=tests/dwarf/debuginfod_lib.sh
. "$ROOT/tests/dwarf/debuginfod_lib.sh"
bin=$WORK/bin/selfcap
bid=$(readelf -nW "$bin" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
mkdir -p "$WORK/served" "$WORK/dbgd"
objcopy --only-keep-debug "$bin" "$WORK/served/selfcap.debug"
cp "$bin" "$bin.full"
strip -s "$bin"
if dbgd_start "$WORK/served" "$WORK/dbgd"; then
	DEBUGINFOD_URLS=http://127.0.0.1:$DBGD_PORT DEBUGINFOD_CACHE_PATH=$WORK/dbgd/cache \
		report dyn.rsr >dyn-dbgd.txt
	check "debuginfod: names and lines of the stripped binary" names_ok dyn-dbgd.txt debuginfod
else
	bad "debuginfod: the local server did not start (see $WORK/dbgd/server.log)"
fi
dbgd_stop
mv "$bin.full" "$bin"

# a -T recording: the trace view alone carries the user frames after the
# calls; with the stack view too, they are shown once, under the kernel's
"$ROOT/build/mkustack" "$WORK/dyn.dump" "$WORK/trace.rsr" trace
report -T trace.rsr >trace-T.txt
check "-T: user frames after the trace" \
	sh -c "mawk '/← __x64_sys_openat/ { t = NR } /^----- user stack/ { s = NR } END { exit !(t && s > t) }' trace-T.txt"
check "-T: level3..main with file:line" names_ok trace-T.txt "-T"
report trace.rsr >trace-TE.txt
check "-T and stack view: user frames once" test "$(grep -c '^----- user stack' trace-TE.txt)" = 1
check "-T and stack view: level3..main" names_ok trace-TE.txt "-T -E"

# no maps recorded: addresses only, said on the separator
"$ROOT/build/mkustack" "$WORK/dyn.dump" "$WORK/nomaps.rsr" nomaps
report nomaps.rsr >nomaps.txt
check "no maps: said" grep -q '^----- user stack: no memory maps recorded' nomaps.txt
check "no maps: no names" no_names nomaps.txt

echo "ustack: $PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
