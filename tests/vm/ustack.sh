#!/usr/bin/env bash
# ustack.sh - VM checks of -U/--user-stacks recording (Debian 6.12 cloud
# kernel in qemu, one boot; checks on the host with build/ustack_dump):
#  * the frame-pointer-less test programs (tests/ustack/ustack_prog.c),
#    static and dynamic, recorded with -U in -M, -K and -F: every session
#    has its USTACK right before its SESSION_END; its IP lies in an
#    executable mapping of the latest UMAPS of its process written before
#    it, its SP is a user address equal to the copy's start; the copy is
#    the configured size or marked SHORT; UMAPS holds the program's path
#    with the build-id `readelf -n` reads on the host, and for the dynamic
#    program libc with its build-id;
#    a SHORT copy ends at a page end (the first unreadable page);
#  * -C user.stack-size=4096: copies of exactly 4096 bytes or SHORT; 256:
#    every copy 256 bytes (record 472 bytes), not SHORT; 65536 accepted;
#    65537 and 63 refused with one line, exit 2;
#  * an exec in a traced process (same pid): a second UMAPS record with the
#    new program, and the sessions after it have their IP in it;
#  * -x EBADF: the stack of the session it filters out is not written;
#  * without -U: no USTACK or UMAPS record; the live tool with -U -o: the
#    same records in its file;
#  * rendered (when retsnoop-report has --symfs): with the programs only
#    under --symfs DIR, main > load_config > open_config_file and main >
#    send_packet > write_frame with the source lines of their calls, in
#    -M, -K and -F; the dynamic program's libc frames by build-id; the
#    binary missing: path+offset with its build-id, no function names.
# Prints "vm-ustack: N passed, N failed" last; exits non-zero on failure.
set -u
cd "$(dirname "$0")/../.."
ROOT=$PWD
# shellcheck source=tests/vm/suite_lib.sh
. "$ROOT/tests/vm/suite_lib.sh"
suite_begin vm-ustack retsnoop-record retsnoop ustack_prog_static ustack_prog_dyn
[ -x build/ustack_dump ] || suite_fail "build/ustack_dump missing (run make)"
G="-e '*sys_openat' -e '*sys_write' -a do_sys_openat2 -a ksys_write -a vfs_write"
cat >"$WORK/g/guest.sh" <<EOF
#!/bin/sh
cd "\$(dirname "\$0")"
R=./retsnoop-record
run() { name=\$1; shift; "\$@" >/out/\$name.out 2>/out/\$name.err; echo \$? >/out/\$name.rc; }
for m in M K F; do
	for p in static dyn; do
		run \$m-\$p \$R -\$m -U -v $G -o /out/\$m-\$p.rsr -- ./ustack_prog_\$p all 300
	done
done
run size4k \$R -M -U -C user.stack-size=4096 $G -o /out/size4k.rsr -- ./ustack_prog_static all 300
run size256 \$R -M -U -C user.stack-size=256 $G -o /out/size256.rsr -- ./ustack_prog_static all 300
run size64k \$R -M -U -C user.stack-size=65536 $G -o /out/size64k.rsr -- ./ustack_prog_dyn all 300
run exec \$R -M -U $G -o /out/exec.rsr -- ./ustack_prog_dyn open 300 exec ./ustack_prog_static write 300
run filt \$R -M -U -x EBADF $G -o /out/filt.rsr -- ./ustack_prog_dyn all 300
run noU \$R -M $G -o /out/noU.rsr -- ./ustack_prog_dyn all 300
run live ./retsnoop -M -U $G -o /out/live.rsr -- ./ustack_prog_dyn all 300
EOF
chmod +x "$WORK/g/guest.sh"
boot_guest 900

build_id() { readelf -n "$1" 2>/dev/null | awk '/Build ID:/ { print $3; exit }'; }
PS_ID=$(build_id "$WORK/g/ustack_prog_static")
PD_ID=$(build_id "$WORK/g/ustack_prog_dyn")
LIBC=$(ldd "$WORK/g/ustack_prog_dyn" | awk '/libc\.so/ { print $3 }')
LIBC_REAL=$(readlink -f "$LIBC")
LIBC_ID=$(build_id "$LIBC_REAL")
[ -n "$PS_ID" ] && [ -n "$PD_ID" ] && [ -n "$LIBC_ID" ] || bad "build-ids on the host ($PS_ID/$PD_ID/$LIBC_ID)"

dump() { build/ustack_dump "$OUT/$1.rsr" >"$WORK/$1.dump" 2>&1; }

# every END preceded by its USTACK; each USTACK's ip inside an executable
# mapping of its pid's latest UMAPS, sp a user address = stack_addr, and
# stack_len = SIZE or SHORT. Prints the number of sessions checked, or
# "BAD reason" on the first problem.
check_records() {  # DUMP SIZE
	awk -v size="$2" '
	function hex(s,   i, c, v) { v = 0; s = tolower(s); sub(/^0x/, "", s)
		for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)) - 1; v = v * 16 + c }
		return v }
	function field(name,   i) { for (i = 1; i <= NF; i++) if (index($i, name "=") == 1) return substr($i, length(name) + 2); return "" }
	/^BAD/ { print "BAD dump: " $0; bad = 1; exit }
	/^UMAPS / { p = field("pid"); n[p] = 0 }
	/^MAP / { p = field("pid"); k = n[p]++; lo[p, k] = hex(field("start")); hi[p, k] = hex(field("end")) }
	/^USTACK / { us = field("sess"); p = field("pid"); ip = hex(field("ip")); sp = hex(field("sp"))
		f = field("flags") + 0; len = field("stack_len") + 0
		if (f % 4 >= 2) { print "BAD NO_USER for a user process"; bad = 1; exit }
		inside = 0; for (k = 0; k < n[p]; k++) if (ip >= lo[p, k] && ip < hi[p, k]) inside = 1
		if (!inside) { print "BAD ip " field("ip") " of pid " p " outside its recorded mappings"; bad = 1; exit }
		if (field("sp") != field("stack_addr") || sp < 65536 || sp >= 140737488355328) { print "BAD sp " field("sp"); bad = 1; exit }
		if (len != size && f % 2 != 1) { print "BAD stack_len " len " without SHORT (size " size ")"; bad = 1; exit }
		if (len > size) { print "BAD stack_len " len " > " size; bad = 1; exit }
		if (f % 2 == 1 && (sp + len) % 4096 != 0) { print "BAD SHORT copy not ending at a page end"; bad = 1; exit } }
	/^END / { if (field("flags") % 8 >= 4) next   # ignored: filtered, no stack
		if (field("sess") != us) { print "BAD END of session " field("sess") " without its USTACK"; bad = 1; exit }
		us = ""; ends++ }
	END { if (!bad) print ends + 0 }' "$1"
}

has_map() {  # DUMP PATH-SUFFIX BUILD-ID: a MAP line of that file with that build-id
	grep -q "^MAP .* build_id=$3 path=.*$2\$" "$1"
}

for m in M K F; do
	for p in static dyn; do
		n=$m-$p
		check "$n: recorded (exit 0)" [ "$(cat "$OUT/$n.rc" 2>/dev/null)" = 0 ]
		dump "$n"
		r=$(check_records "$WORK/$n.dump" 16384)
		case $r in
		BAD*) bad "$n: $r" ;;
		*) check "$n: $r sessions, each with a plausible USTACK (expected 2)" [ "$r" = 2 ] ;;
		esac
		if [ $p = static ]; then
			check "$n: UMAPS has the program with its build-id" has_map "$WORK/$n.dump" /ustack_prog_static "$PS_ID"
		else
			check "$n: UMAPS has the program with its build-id" has_map "$WORK/$n.dump" /ustack_prog_dyn "$PD_ID"
			check "$n: UMAPS has libc with its build-id" has_map "$WORK/$n.dump" "/$(basename "$LIBC_REAL")" "$LIBC_ID"
		fi
		check "$n: -v says what -U read" grep -q '^-U: 1 processes' "$OUT/$n.err"
	done
done

dump size4k
r=$(check_records "$WORK/size4k.dump" 4096)
check "user.stack-size=4096: copies of 4096 bytes or SHORT ($r)" [ "$r" = 2 ]
dump size256
check "user.stack-size=256: every copy exactly 256 bytes, not SHORT" \
	[ "$(grep -c '^USTACK .*flags=0 .*stack_len=256 size=472$' "$WORK/size256.dump")" = 2 ]
dump size64k
r=$(check_records "$WORK/size64k.dump" 65536)
check "user.stack-size=65536 records ($r)" [ "$r" = 2 ]
for v in 65537 63; do
	"$WORK/g/retsnoop-record" -U -C user.stack-size=$v -e x -o "$WORK/bad.rsr" >"$WORK/bad.out" 2>&1
	rc=$?
	check "user.stack-size=$v refused (exit 2)" [ "$rc" = 2 ]
	check "user.stack-size=$v: one line names the range" \
		grep -q "bad user.stack-size '$v': must be 64..65536" "$WORK/bad.out"
done

dump exec
check "exec: two UMAPS records of the same process" \
	[ "$(grep '^UMAPS ' "$WORK/exec.dump" | awk '{ print $2 }' | sort -u | wc -l)" = 1 ] && \
	[ "$(grep -c '^UMAPS ' "$WORK/exec.dump")" -ge 2 ]
check "exec: the new program's mappings with its build-id" has_map "$WORK/exec.dump" /ustack_prog_static "$PS_ID"
r=$(check_records "$WORK/exec.dump" 16384)
check "exec: every IP inside the mappings recorded before it ($r)" [ "$r" = 2 ]

dump filt
r=$(check_records "$WORK/filt.dump" 16384)
check "-x EBADF: the kept session has its USTACK ($r)" [ "$r" = 1 ]
check "-x EBADF: the filtered session's stack is not written" \
	[ "$(grep -c '^USTACK ' "$WORK/filt.dump")" = 1 ] && [ "$(grep -c '^END ' "$WORK/filt.dump")" = 2 ]
dump noU
check "without -U: sessions but no USTACK/UMAPS" \
	[ "$(grep -c '^END ' "$WORK/noU.dump")" = 2 ] && not grep -q '^USTACK\|^UMAPS' "$WORK/noU.dump"
dump live
r=$(check_records "$WORK/live.dump" 16384)
check "live retsnoop -U -o: the records in its file ($r)" [ "$r" = 2 ]
check "live retsnoop -U -o: libc with its build-id" has_map "$WORK/live.dump" "/$(basename "$LIBC_REAL")" "$LIBC_ID"

# rendering (report/ustack_*, when this retsnoop-report has it): the known
# functions with their file:line, through --symfs; libc's frames by
# build-id; path+offset with the build-id when the binary is missing
if "$WORK/retsnoop-report" --help 2>&1 | grep -q -- '--symfs'; then
	SRC=tests/ustack/ustack_prog.c
	ln_of() { grep -nF "$1" "$SRC" | head -n 1 | cut -d: -f1; }
	L_OPEN=$(ln_of 'openat(AT_FDCWD'); L_LOAD=$(ln_of 'r = open_config_file(path)')
	L_MAIN1=$(ln_of 'r = load_config('); L_WRITE=$(ln_of 'long n = write(fd')
	L_SEND=$(ln_of 'r = write_frame('); L_MAIN2=$(ln_of 'r = send_packet(')
	frames_in_order() {  # FILE FUNC:LINE...: each frame present, outermost first, adjacent
		local f=$1 prev=0 n; shift
		for fl; do
			n=$(grep -nE "^ +${fl%%:*}\+0x[0-9a-f]+ +\(.*ustack_prog\.c:${fl##*:}\)" "$f" | head -n 1 | cut -d: -f1)
			[ -n "$n" ] && { [ "$prev" = 0 ] || [ "$n" = $((prev + 1)) ]; } || return 1
			prev=$n
		done
	}
	mkdir -p "$WORK/symfs$WORK/g"
	for b in ustack_prog_static ustack_prog_dyn; do
		mv "$WORK/g/$b" "$WORK/symfs$WORK/g/$b"   # only --symfs finds them now
	done
	for m in M K F; do
		"$WORK/retsnoop-report" --symfs "$WORK/symfs" "$OUT/$m-static.rsr" >"$WORK/$m-static.txt" 2>&1
		check "$m-static --symfs: main:$L_MAIN1 > load_config:$L_LOAD > open_config_file:$L_OPEN" \
			frames_in_order "$WORK/$m-static.txt" main:$L_MAIN1 load_config:$L_LOAD open_config_file:$L_OPEN
		check "$m-static --symfs: main:$L_MAIN2 > send_packet:$L_SEND > write_frame:$L_WRITE" \
			frames_in_order "$WORK/$m-static.txt" main:$L_MAIN2 send_packet:$L_SEND write_frame:$L_WRITE
	done
	"$WORK/retsnoop-report" --symfs "$WORK/symfs" "$OUT/M-dyn.rsr" >"$WORK/M-dyn.txt" 2>&1
	check "M-dyn --symfs: main > load_config > open_config_file with lines" \
		frames_in_order "$WORK/M-dyn.txt" main:$L_MAIN1 load_config:$L_LOAD open_config_file:$L_OPEN
	check "M-dyn: libc's frames by its build-id (__libc_start_call_main)" \
		grep -qE '^ +__libc_start_call_main\+0x' "$WORK/M-dyn.txt"
	check "live retsnoop -U: prints the user frames as the sessions end" \
		frames_in_order "$OUT/live.out" main:$L_MAIN2 send_packet:$L_SEND write_frame:$L_WRITE
	"$WORK/retsnoop-report" "$OUT/M-static.rsr" >"$WORK/M-missing.txt" 2>&1
	check "binary missing: frames as path+offset with the build-id" \
		grep -qE "^ +$WORK/g/ustack_prog_static\+0x[0-9a-f]+ +\(build-id $PS_ID\)" "$WORK/M-missing.txt"
	check "binary missing: no function name made up" not grep -qE '^ +(main|load_config|open_config_file)\+' "$WORK/M-missing.txt"
else
	echo "skip: this retsnoop-report has no --symfs (user-stack rendering not built)"
fi

# the bytes -U adds per session, for the record (compressed in the file)
echo "per-session USTACK bytes (uncompressed, M-dyn): $(awk '/^USTACK/ { s += substr($NF, 6); n++ } END { if (n) print int(s / n) }' "$WORK/M-dyn.dump")"
echo "vm-ustack: $PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
