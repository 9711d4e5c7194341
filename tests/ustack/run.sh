#!/usr/bin/env bash
# run.sh - the host test of -U user stacks (no tracing needed): selfcap
# (dynamic and static, -O2 -g without frame pointers) captures its own
# registers and stack three calls deep, mkustack makes a recording of it
# (UMAPS, USTACK, SESSION_END), and retsnoop-report must show level3,
# level2, level1 and main at the lines of their MARK comments, outermost
# first under the separator; with the binary moved away, path+0xOFFSET
# (the file offset inside level3) and the build-id, no names; with
# --symfs holding a copy, the names again; with another file at the
# recorded path, not used. Prints "ustack: N passed, N failed".
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

	# the binary gone: path+offset inside level3 and the build-id, no names
	read -r lo hi < <(sym_fileoff "$bin" level3)
	mv "$bin" "$bin.away"
	report "$variant.rsr" >"$variant-away.txt"
	off=$(user_rows "$variant-away.txt" | sed -n "s|^ *$bin+0x\([0-9a-f]*\) *(build-id $bid)\$|\1|p" | tail -1)
	check "$variant away: $bin+0xOFF (build-id $bid) row" test -n "$off"
	check "$variant away: offset 0x${off:-?} inside level3 [$lo,$hi)" \
		test -n "$off" -a -n "$lo" -a "$((16#${off:-0}))" -ge "${lo:-1}" -a "$((16#${off:-0}))" -lt "${hi:-0}"
	check "$variant away: no names" sh -c "! grep -Eq 'level[123]|main\\+' $variant-away.txt"
	check "$variant away: note names the file" grep -q "$bin: not found (build-id $bid)" stderr

	# --symfs DIR holding the binary at DIR/<recorded path>
	mkdir -p "symfs$(dirname "$bin")"
	cp "$bin.away" "symfs$bin"
	report --symfs "$WORK/symfs" "$variant.rsr" >"$variant-symfs.txt"
	check "$variant --symfs: names again" names_ok "$variant-symfs.txt" "$variant --symfs"

	# another ELF (another build-id) at the recorded path: not used
	cp /bin/true "$bin"
	report "$variant.rsr" >"$variant-other.txt"
	check "$variant other build-id: not used" sh -c "! grep -Eq 'level[123]' $variant-other.txt"
	check "$variant other build-id: said" grep -q "$bin: the file has build-id .*, the recording's $bid" stderr
	mv "$bin.away" "$bin"
done

# no maps recorded: addresses only, said on the separator
"$ROOT/build/mkustack" "$WORK/dyn.dump" "$WORK/nomaps.rsr" nomaps
report nomaps.rsr >nomaps.txt
check "no maps: said" grep -q '^----- user stack: no memory maps recorded' nomaps.txt
check "no maps: no names" sh -c "! grep -Eq 'level[123]' nomaps.txt"

echo "ustack: $PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
