#!/usr/bin/env bash
# args.sh - VM end-to-end checks of -A/--capture-args on 6.12 (one boot):
# in each attach mode (-M, -K, -F) the arguments of failing syscalls whose
# inputs are known are in the recording: the user path string given to
# openat (do_sys_openat2, getname), bpf()'s command and attribute size
# (__sys_bpf; its bpfptr_t is a 16-byte register pair), write()'s fd and
# count (ksys_write), connect()'s address length and the address read
# from user memory (__sys_connect). Checked raw (tests/vm/args_dump.c),
# in the rendered stack view and in JSON; `retsnoop-report info` counts
# the FUNC_ARGS records and the "btf" blob (size printed, under 1 MiB);
# the recorder's -v line gives the blob size of `-c bpf -A`.
# Prints "vm-args: N passed, N failed"; exits non-zero on failure.
set -u
cd "$(dirname "$0")/../.."
ROOT=$PWD
# shellcheck source=tests/vm/suite_lib.sh
. tests/vm/suite_lib.sh
suite_begin vm-args retsnoop-record simfail
[ -x build/args_dump ] || suite_fail "build/args_dump missing (run make build/args_dump)"
cp build/args_dump "$WORK/"
cat >"$WORK/g/guest.sh" <<'EOF'
#!/bin/sh
cd "$(dirname "$0")"
R=./retsnoop-record
run() { name=$1; shift; "$@" >/out/$name.out 2>/out/$name.err; echo $? >/out/$name.rc; }
for m in M K F; do
	run open-$m $R -$m -A -e '*sys_openat' -a do_sys_openat2 -a getname -a do_filp_open -a path_openat -o /out/open-$m.rsr -- ./simfail open-missing
	run bpf-$m $R -$m -A -e '*sys_bpf' -a __sys_bpf -a map_create -o /out/bpf-$m.rsr -- ./simfail bpf-bad-map-type
	run write-$m $R -$m -A -e '*sys_write' -a ksys_write -o /out/write-$m.rsr -- ./simfail write-bad-fd
	run conn-$m $R -$m -A -e '*sys_connect' -a __sys_connect -a __sys_connect_file -a inet_stream_connect -o /out/conn-$m.rsr -- ./simfail connect-bad-addrlen
done
# the "btf" blob of a -c bpf recording (-v prints its size)
run bpfcase $R -M -A -v -c bpf -o /out/bpfcase.rsr -- ./simfail bpf-bad-map-type
EOF
chmod +x "$WORK/g/guest.sh"
boot_guest 900

# the size of union bpf_attr simfail passes to bpf() (the host's header)
printf '#include <linux/bpf.h>\n#include <stdio.h>\nint main(void){printf("%%zu\\n", sizeof(union bpf_attr));return 0;}\n' >"$WORK/sz.c"
ATTR_SIZE=$(cc -o "$WORK/sz" "$WORK/sz.c" && "$WORK/sz")

dump_of() {  # FILE FUNC: the argument lines of FUNC's records
	"$WORK/args_dump" "$1" | mawk -v f="func=$2" '/^FUNC_ARGS/ { on = index($0, f " ") > 0; next } on'
}
has_arg() {  # FILE FUNC REGEX: some argument line of FUNC matches
	dump_of "$1" "$2" | grep -Eq "$3"
}
rendered() { "$WORK/retsnoop-report" "$1" 2>/dev/null; }
json() { "$WORK/retsnoop-report" --format json "$1" 2>/dev/null; }

for m in M K F; do
	for c in open bpf write conn; do
		check "$c -$m: recorded (status 0)" [ "$(cat "$OUT/$c-$m.rc" 2>/dev/null)" = 0 ]
		check "$c -$m: FUNC_ARGS records valid" "$WORK/args_dump" "$OUT/$c-$m.rsr" >/dev/null
	done
	f=$OUT/open-$m.rsr
	check "open -$m: do_sys_openat2 filename is the user string" \
		has_arg "$f" do_sys_openat2 "^  arg 1 kind=STR flags=0x2 err=0 len=20 str='/nonexistent/simfail'$"
	check "open -$m: do_sys_openat2 dfd is AT_FDCWD" has_arg "$f" do_sys_openat2 "^  arg 0 kind=VALUE .* val=4294967196$"
	check "open -$m: getname's string" has_arg "$f" getname "str='/nonexistent/simfail'$"
	check "open -$m: rendered filename='/nonexistent/simfail'" \
		grep -Eq "do_sys_openat2.* dfd=-100 filename='/nonexistent/simfail'" <(rendered "$f")
	check "open -$m: JSON has the filename argument" \
		grep -q '"name":"filename","type":"const char \*","value":"'"'"'/nonexistent/simfail'"'"'"' <(json "$f")
	f=$OUT/bpf-$m.rsr
	check "bpf -$m: __sys_bpf cmd 0 (BPF_MAP_CREATE) and size $ATTR_SIZE" \
		bash -c "'$WORK/args_dump' '$f' | grep -A3 'func=__sys_bpf ' | grep -q 'arg 2 kind=VALUE .* val=$ATTR_SIZE\$'"
	check "bpf -$m: bpfptr_t uattr captured whole (a 16-byte register pair)" \
		has_arg "$f" __sys_bpf "^  arg 1 kind=VALUE flags=0x0 err=0 len=16 hex="
	check "bpf -$m: rendered cmd=BPF_MAP_CREATE ... size=$ATTR_SIZE" \
		grep -Eq "__sys_bpf.* cmd=BPF_MAP_CREATE .* size=$ATTR_SIZE" <(rendered "$f")
	check "bpf -$m: map_create's attr (pointee bytes): map_type -1" \
		grep -Eq "map_create(\+0x[0-9a-f]+)? .*attr=&\{\{\.map_type=0xffffffff" <(rendered "$f")
	f=$OUT/write-$m.rsr
	check "write -$m: ksys_write fd 1000, count 4321" \
		bash -c "'$WORK/args_dump' '$f' | grep -A3 'func=ksys_write ' | grep -A2 'arg 0 .* val=1000\$' | grep -q 'arg 2 kind=VALUE .* val=4321\$'"
	check "write -$m: rendered fd=1000 ... count=4321" grep -Eq "ksys_write.* fd=1000 .* count=4321" <(rendered "$f")
	check "write -$m: JSON count 4321" grep -q '"name":"count","type":"size_t","value":"4321"' <(json "$f")
	f=$OUT/conn-$m.rsr
	check "conn -$m: __sys_connect addrlen 9" has_arg "$f" __sys_connect "^  arg 2 kind=VALUE .* val=9$"
	check "conn -$m: the address read from user memory (AF_INET)" \
		has_arg "$f" __sys_connect "^  arg 1 kind=PTR_DATA flags=0x2 err=0 len=16 hex=0200"
	check "conn -$m: rendered uservaddr=&{.sa_family=2 ... addrlen=9" \
		grep -Eq "__sys_connect.* uservaddr=&\{\.sa_family=2.* addrlen=9" <(rendered "$f")
	check "conn -$m: JSON addrlen 9" grep -q '"name":"addrlen","type":"int","value":"9"' <(json "$f")
	check "conn -$m: JSON uservaddr's family" \
		grep -q '"name":"uservaddr","type":"struct sockaddr \*","value":"&{.sa_family=2,' <(json "$f")
	check "conn -$m: no argument unavailable or failed (all in registers)" \
		not grep -Eq 'flags=0x(8|10) ' <("$WORK/args_dump" "$f")
done

# info counts the records and gives the blob sizes; the -c bpf blob
info=$("$WORK/retsnoop-report" info "$OUT/open-M.rsr" 2>&1)
check "info: FUNC_ARGS records counted" grep -Eq '^Arguments \(-A\): +[1-9][0-9]* record\(s\)' <<<"$info"
bline=$(grep -h '"btf" blob' "$OUT/bpfcase.err")
bsize=$(sed -n 's/.*"btf" blob \([0-9]*\) bytes.*/\1/p' <<<"$bline")
echo "     -c bpf -A: $bline"
check "-c bpf -A: recorded (status 0)" [ "$(cat "$OUT/bpfcase.rc")" = 0 ]
under_1m() { [ -n "$1" ] && [ "$1" -gt 0 ] && [ "$1" -lt 1048576 ]; }
check "-c bpf -A: the btf blob is under 1 MiB (${bsize:-?} bytes)" under_1m "$bsize"
bsize_info=$("$WORK/retsnoop-report" info "$OUT/bpfcase.rsr" 2>&1 | sed -n 's/.*"btf" blob \([0-9]*\) byte.*/\1/p')
check "-c bpf -A: info gives the same blob size" [ "$bsize_info" = "$bsize" ]
for c in open bpf write conn; do
	echo "     $c-M: file $(stat -c %s "$OUT/$c-M.rsr") bytes; $("$WORK/retsnoop-report" info "$OUT/$c-M.rsr" 2>&1 | grep '^Arguments')"
done
check "no WARNING/BUG in the guest log" not grep -Eq 'WARNING:|BUG:' "$WORK/vm.log"

echo "vm-args: $PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
