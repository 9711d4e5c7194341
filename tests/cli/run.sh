#!/usr/bin/env bash
# run.sh - command-line tests of retsnoop, retsnoop-record and
# retsnoop-report that need no tracing: every bad input gives a non-zero
# exit and one clear line on stderr naming the problem (retsnoop-report adds
# its "Try --help" hint line), nothing on stdout, and no output file left
# behind; --help/--config-help/-V succeed; when this kernel cannot trace (or
# we are not root) the recorder says why in one line.
# Prints "cli: N passed, N failed"; exits non-zero on failure.
set -u
cd "$(dirname "$0")/../.." || exit 1
ROOT=$PWD
B=$ROOT/build
for b in retsnoop retsnoop-record retsnoop-report; do
	[ -x "$B/$b" ] || { echo "cli: build/$b missing (run make)"; echo "cli: 0 passed, 1 failed"; exit 1; }
done
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 1

PASS=0 FAIL=0
ok()  { PASS=$((PASS + 1)); }
bad() { FAIL=$((FAIL + 1)); echo "FAIL $*"; }

run() {  # CMD... -> $RC, $OUT, $ERR
	"$@" >"$W/out" 2>"$W/err" </dev/null
	RC=$?
	OUT=$(cat "$W/out")
	ERR=$(cat "$W/err")
}

# usage_err NAME 'TEXT' CMD...: exit 2, stdout empty, stderr is one line
# that starts with the program name and contains TEXT, then the hint
# "Try 'PROG --help' for more information." (not with NO_HINT=1: input
# errors, which are not usage errors, have no hint)
usage_err() {
	local name=$1 text=$2; shift 2
	local prog=${PROG_NAME:-${1##*/}} lines want=1
	run "$@"
	[ -z "${NO_HINT:-}" ] && want=2
	lines=$(printf '%s\n' "$ERR" | wc -l)
	if [ "$RC" != 2 ]; then
		bad "$name: exit $RC, expected 2 (stderr: $ERR)"
	elif [ -n "$OUT" ]; then
		bad "$name: stdout not empty: $OUT"
	elif [ "$lines" != "$want" ]; then
		bad "$name: $lines stderr lines, expected $want: $ERR"
	elif [[ $(head -1 <<<"$ERR") != "$prog: "* ]]; then
		bad "$name: message does not start with '$prog: ': $ERR"
	elif ! grep -qF -- "$text" <<<"$(head -1 <<<"$ERR")"; then
		bad "$name: message lacks '$text': $ERR"
	elif [ "$want" = 2 ] && [ -z "${NO_HINT:-}" ] && [ "$(tail -1 <<<"$ERR")" != "Try '$prog --help' for more information." ]; then
		bad "$name: second line is not the --help hint: $ERR"
	else
		ok
	fi
}

REC=$B/retsnoop-record LIVE=$B/retsnoop REP=$B/retsnoop-report

# ---- errors shared by the recorder and the live tool
for T in "$REC" "$LIVE"; do
	p=${T##*/}
	o=(-o "$W/x.rsr")
	usage_err "$p unknown long flag"   "unknown option '--bogus'" "$T" --bogus -e x "${o[@]}"
	usage_err "$p unknown short flag"  "unknown option '-Z'" "$T" -Z -e x "${o[@]}"
	usage_err "$p flag without value"  "option '-e' needs a value" "$T" -e
	usage_err "$p stray argument"      "unexpected argument 'foo' (a command goes after --)" "$T" -e x "${o[@]}" foo
	usage_err "$p stray word before --" "unexpected argument 'echo' (a command goes after --)" "$T" -T -S echo -e x "${o[@]}" -- true
	usage_err "$p bad glob: '['"       "bad entry glob '[': invalid glob '[': unbalanced '['" "$T" -e '[' "${o[@]}"
	usage_err "$p bad glob: empty -a"  "bad allow glob '': invalid glob '': empty glob" "$T" -e x -a '' "${o[@]}"
	usage_err "$p bad glob: '**'"      "bad deny glob '**'" "$T" -e x -d '**' "${o[@]}"
	usage_err "$p bad glob: module"    "empty module glob" "$T" -e 'x []' "${o[@]}"
	usage_err "$p unknown errno -x"    "unknown error 'EFOO' for -x/-X" "$T" -e x -x EFOO "${o[@]}"
	usage_err "$p unknown errno -X"    "unknown error 'ENOTANERROR' for -x/-X" "$T" -e x -X ENOTANERROR "${o[@]}"
	usage_err "$p bad PID abc"         "bad PID 'abc'" "$T" -e x -p abc "${o[@]}"
	usage_err "$p bad PID 0"           "bad PID '0'" "$T" -e x -p 0 "${o[@]}"
	usage_err "$p bad PID -5"          "bad PID '-5'" "$T" -e x -p -5 "${o[@]}"
	usage_err "$p bad PID -P 1x"       "bad PID '1x'" "$T" -e x -P 1x "${o[@]}"
	usage_err "$p -S with -x"          "-S (successful sessions too) cannot be combined with -x" "$T" -e x -S -x EINVAL "${o[@]}"
	usage_err "$p -Sy with -x"         "-S (successful sessions too) cannot be combined with -x" "$T" -e x -x ENOMEM -Sy "${o[@]}"
	usage_err "$p bad -J kind"         "bad probe 'uprobe:foo': expected kprobe:NAME[+OFF], kretprobe:NAME, rawtp:NAME or tp:CATEGORY:NAME" "$T" -e x -J uprobe:foo "${o[@]}"
	usage_err "$p bad -J offset"       "bad probe 'kprobe:f+x': expected +OFFSET" "$T" -e x -J kprobe:f+x "${o[@]}"
	usage_err "$p bad -J tracepoint"   "bad probe 'tp:sock': expected tp:CATEGORY:NAME" "$T" -e x --inject-probe tp:sock "${o[@]}"
	printf 'kprobe:ok_fn\nrawtp:bad.name\n' >"$W/probes"
	usage_err "$p bad -J in @FILE"     "probes:2: bad probe 'rawtp:bad.name'" "$T" -e x -J "@$W/probes" "${o[@]}"
	usage_err "$p -Sy with -Sn"        "-Sy and -Sn contradict each other" "$T" -e x -Sy -Sn "${o[@]}"
	usage_err "$p bad -S value"        "bad -S value 'maybe'" "$T" -e x -Smaybe "${o[@]}"
	usage_err "$p no entry glob"       "no entry function: give at least one -e GLOB" "$T" -a x "${o[@]}"
	usage_err "$p unknown preset"      "unknown preset 'nope' for -c (known: bpf, perf)" "$T" -c nope "${o[@]}"
	usage_err "$p two attach modes"    "-M, -K and -F are mutually exclusive" "$T" -e x -M -F "${o[@]}"
	usage_err "$p bad -L"              "bad -L duration 'soon'" "$T" -e x -L soon "${o[@]}"
	usage_err "$p bad comm"            "bad comm 'a-name-longer-than-15'" "$T" -e x -n a-name-longer-than-15 "${o[@]}"
	usage_err "$p bad LBR flags"       "bad LBR flags 'sideways'" "$T" -e x -Bsideways "${o[@]}"
	usage_err "$p bad -R (v0.9 -B)"    "bad LBR flags 'sideways'" "$T" -e x -Rsideways "${o[@]}"
	usage_err "$p malformed -C"        "malformed -C 'ringbuf'" "$T" -e x -C ringbuf "${o[@]}"
	usage_err "$p unknown -C key"      "unknown config key 'bpf.nope' (see --config-help)" "$T" -e x -C bpf.nope=1 "${o[@]}"
	usage_err "$p bad ringbuf size"    "bad bpf.ringbuf-size '1000'" "$T" -e x -C bpf.ringbuf-size=1000 "${o[@]}"
	usage_err "$p bad sessions size"   "bad bpf.sessions-size '0'" "$T" -e x -C bpf.sessions-size=0 "${o[@]}"
	usage_err "$p sessions size too big" "bad bpf.sessions-size '65537'" "$T" -e x -C bpf.sessions-size=65537 "${o[@]}"
	usage_err "$p bad max depth"       "bad bpf.max-depth '65'" "$T" -e x -C bpf.max-depth=65 "${o[@]}"
	[ -e "$W/x.rsr" ] && bad "$p: a usage error left $W/x.rsr behind" || ok
done

# -p naming no process, or a thread (not its process's id): a warning line
# before anything else, not an error (tracing itself may then fail here)
NOPID=4194303
while [ -e "/proc/$NOPID" ]; do NOPID=$((NOPID - 1)); done
printf '#include <pthread.h>\n#include <stdio.h>\n#include <sys/syscall.h>\n#include <unistd.h>\n%s\n%s\n' \
	'static void *run(void *a) { (void)a; printf("%ld\n", (long)syscall(SYS_gettid)); fflush(stdout); pause(); return NULL; }' \
	'int main(void) { pthread_t t; pthread_create(&t, NULL, run, NULL); pause(); return 0; }' >"$W/thr.c"
gcc -pthread -o "$W/thr" "$W/thr.c" || bad "pid check: the two-thread helper did not build"
"$W/thr" >"$W/thr.out" &
THR=$!
for _ in 1 2 3 4 5 6 7 8 9 10; do [ -s "$W/thr.out" ] && break; sleep 0.2; done
TID=$(cat "$W/thr.out")
for T in "$REC" "$LIVE"; do
	p=${T##*/}
	run "$T" -e x -p "$NOPID" -o "$W/x.rsr"
	[ "$(head -1 "$W/err")" = "$p: warning: -p $NOPID: no such process now (its calls are traced only if a process gets that id)" ] &&
		ok || bad "$p -p of no process: first line '$(head -1 "$W/err")'"
	run "$T" -e x -p "$TID" -o "$W/x.rsr"
	[ "$(head -1 "$W/err")" = "$p: warning: -p $TID is a thread of process $THR: -p takes process ids (-p $THR traces all its threads)" ] &&
		ok || bad "$p -p of a thread: first line '$(head -1 "$W/err")'"
	run "$T" -e x -p "$THR" -p $$ -o "$W/x.rsr"
	grep -q -- 'warning: -p' "$W/err" && bad "$p -p of live processes warned: $(head -1 "$W/err")" || ok
done
kill "$THR" 2>/dev/null; wait "$THR" 2>/dev/null

usage_err "retsnoop-record needs -o"        "no output file: give -o FILE" "$REC" -e x
usage_err "retsnoop-record has no -s"       "unknown option '-s'" "$REC" -s -e x -o "$W/x.rsr"
usage_err "retsnoop-record renders nothing" "unknown option '--allow-build-id-mismatch'" "$REC" --allow-build-id-mismatch -e x -o "$W/x.rsr"
usage_err "retsnoop-record rendering -C"    "config key 'stacks.emit-addrs' is a setting of retsnoop-report and retsnoop (see --config-help)" "$REC" -C stacks.emit-addrs=1 -e x -o "$W/x.rsr"
# flight recorder and stop conditions (issue 15)
usage_err "retsnoop-record --max-size 0"       "bad --max-size '0'" "$REC" --max-size 0 -e x -o "$W/x.rsr"
usage_err "retsnoop-record --max-size 10X"     "bad --max-size '10X'" "$REC" --max-size 10X -e x -o "$W/x.rsr"
usage_err "retsnoop-record --max-size 1.5M"    "bad --max-size '1.5M'" "$REC" --max-size=1.5M -e x -o "$W/x.rsr"
usage_err "retsnoop-record --max-size huge"    "bad --max-size '99999999999999G'" "$REC" --max-size 99999999999999G -e x -o "$W/x.rsr"
usage_err "retsnoop-record --duration garbage" "bad --duration 'garbage'" "$REC" --duration garbage -e x -o "$W/x.rsr"
usage_err "retsnoop-record --duration 0"       "bad --duration '0'" "$REC" --duration 0 -e x -o "$W/x.rsr"
usage_err "retsnoop-record --duration 5d"      "bad --duration '5d'" "$REC" --duration 5d -e x -o "$W/x.rsr"
usage_err "retsnoop-record --stop-after 0"     "bad --stop-after '0'" "$REC" --stop-after 0 -e x -o "$W/x.rsr"
usage_err "retsnoop-record --stop-after x"     "bad --stop-after 'x'" "$REC" --stop-after x -e x -o "$W/x.rsr"
usage_err "retsnoop --max-size without -o"     "--max-size limits the recording: give -o FILE too" "$LIVE" --max-size 1M -e x
usage_err "retsnoop --stop-after 0"            "bad --stop-after '0'" "$LIVE" --stop-after 0 -e x
usage_err "retsnoop --duration -3"             "bad --duration '-3'" "$LIVE" --duration -3 -e x
usage_err "retsnoop bad -s level"           "bad -s value 'q'" "$LIVE" -sq -e x
usage_err "retsnoop bad --lbr-max-count"    "bad --lbr-max-count 'many'" "$LIVE" --lbr-max-count many -e x
usage_err "retsnoop unknown stacks key"     "unknown config key 'stacks.nope' (see --config-help)" "$LIVE" -C stacks.nope=1 -e x
usage_err "retsnoop bad stacks bool"        "bad stacks.emit-addrs 'maybe': must be true/y/1 or false/n/0" "$LIVE" -C stacks.emit-addrs=maybe -e x
# the report's outputs and --stack-has, live: checked before anything is traced
usage_err "retsnoop bad --format"           "--format: expected 'text' or 'json', got 'xml'" "$LIVE" --format xml -e x
usage_err "retsnoop bad --folded-weight"    "--folded-weight: expected 'count' or 'latency', got 'heavy'" "$LIVE" --folded-weight=heavy -e x
NO_HINT=1 usage_err "retsnoop two stdout outputs" "--format json, --folded and summary all write to stdout: choose one" "$LIVE" --folded --format json -e x
NO_HINT=1 usage_err "retsnoop two stdout outputs (2)" "choose one" "$LIVE" --summary --folded-weight latency -e x
NO_HINT=1 usage_err "retsnoop --perfetto bad dir" "--perfetto: cannot create '/nonexistent/dir/x.json': No such file or directory" "$LIVE" --perfetto /nonexistent/dir/x.json -e x
usage_err "retsnoop empty --stack-has"      "--stack-has: invalid glob ''" "$LIVE" --stack-has '' -e x
usage_err "retsnoop --stack-has path glob"  "--stack-has: source-path globs are not supported here (':kernel/bpf/*.c')" "$LIVE" --stack-has ':kernel/bpf/*.c' -e x
usage_err "retsnoop --symfs not a directory" "--symfs: '/nonexistent/dir' is not a directory" "$LIVE" --symfs /nonexistent/dir -e x
usage_err "retsnoop-report --symfs not a directory" "--symfs: '/dev/null' is not a directory" "$REP" --symfs /dev/null x.rsr
usage_err "retsnoop-report empty --symfs" "--symfs needs a directory" "$REP" --symfs '' x.rsr
for f in --format --perfetto --stack-has --folded-weight --symfs; do
	usage_err "retsnoop-record has no $f"   "unknown option '$f'" "$REC" "$f" x -e x -o "$W/x.rsr"
done
for f in --folded --summary; do
	usage_err "retsnoop-record has no $f"   "unknown option '$f'" "$REC" "$f" -e x -o "$W/x.rsr"
done

good() {  # NAME 'TEXT' CMD...
	local name=$1 text=$2; shift 2
	run "$@"
	if [ "$RC" = 0 ] && [ -z "$ERR" ] && grep -qF -- "$text" <<<"$OUT"; then ok
	else bad "$name: exit $RC, stderr '$ERR', stdout lacks '$text'"; fi
}
# ---- one option layer: the same flags, ranges and forms in every command
accepted() {  # NAME CMD...: not a usage error (tracing itself may fail here)
	local name=$1; shift
	run "$@"
	if [ "$RC" = 2 ]; then bad "$name: refused (exit 2): $ERR"; else ok; fi
}
printf '# entry functions\n\n  *sys_bpf  \n[\n' >"$W/globs"
printf 'ngin*\n\n# comment\nworker?\n' >"$W/comms"
pids=(); for i in $(seq 1 256); do pids+=(-p "$i"); done
for T in "$REC" "$LIVE"; do
	p=${T##*/}
	usage_err "$p @FILE: bad glob on its line" "$W/globs:4: bad entry glob '['" "$T" -e "@$W/globs" -o "$W/x.rsr"
	NO_HINT=1 usage_err "$p @FILE: no such file" "-e @$W/nope: cannot open: No such file or directory" "$T" -e "@$W/nope" -o "$W/x.rsr"
	accepted "$p -n @FILE of globs" "$T" -e x -n "@$W/comms" -N 'k*' -o "$W/x.rsr"
	accepted "$p -L fractional" "$T" -e x -L 0.5 -o "$W/x.rsr"
	accepted "$p -L 0" "$T" -e x --longer=0 -o "$W/x.rsr"
	accepted "$p 256 -p values" "$T" -e x "${pids[@]}" -o "$W/x.rsr"
	usage_err "$p 257 -p values" "too many -p values (max 256) at '257'" "$T" -e x "${pids[@]}" -p 257 -o "$W/x.rsr"
	usage_err "$p -L negative" "bad -L duration '-1'" "$T" -e x -L -1 -o "$W/x.rsr"
	usage_err "$p long flag with a value it does not take" "option '--trace' takes no value" "$T" --trace=1 -e x
	good "$p --usage" "[-e GLOB]" "$T" --usage
	rm -f "$W/x.rsr"
done

# ---- retsnoop-report
usage_err "retsnoop-report unknown flag"    "unknown option '--bogus'" "$REP" --bogus f.rsr
usage_err "retsnoop-report no file"         "no recording file given" "$REP"
# input errors are not usage errors: one line, no --help hint
NO_HINT=1 usage_err "retsnoop-report missing file"    "nope.rsr: cannot open: No such file or directory" "$REP" nope.rsr
usage_err "retsnoop-report -k with two recordings" "-k names one vmlinux" "$REP" -k vmlinux a.rsr b.rsr
usage_err "retsnoop-report unknown -C key"  "unknown config key 'stacks.nope' (see --config-help)" "$REP" -C stacks.nope=1 f.rsr
usage_err "retsnoop-report unknown errno"   "unknown error 'EFOO' for -x/-X" "$REP" -x EFOO f.rsr
usage_err "retsnoop-report bad PID abc"     "'abc'" "$REP" -p abc f.rsr
usage_err "retsnoop-report bad PID 0"       "'0'" "$REP" -p 0 f.rsr
usage_err "retsnoop-report bad PID -5"      "'-5'" "$REP" -p -5 f.rsr
usage_err "retsnoop-report bad glob"        "invalid glob '['" "$REP" --entry '[' f.rsr
echo "not a recording" >"$W/text.rsr"
NO_HINT=1 usage_err "retsnoop-report not a recording" "text.rsr" "$REP" "$W/text.rsr"
# the output guard: no output may be a file that is read; the input stays intact
GUARD_REC=$ROOT/tests/golden/data/vm-bpf.rsr
cp "$GUARD_REC" "$W/g.rsr"; ln -sf "$W/g.rsr" "$W/g-sym.rsr"; ln -f "$W/g.rsr" "$W/g-hard.rsr"
for out in g.rsr g-sym.rsr g-hard.rsr; do
	usage_err "retsnoop-report --perfetto onto its input ($out)" "--perfetto '$W/$out' is the recording being read: refusing to overwrite it" \
		"$REP" --perfetto "$W/$out" "$W/g.rsr"
	if cmp -s "$GUARD_REC" "$W/g.rsr"; then ok; else bad "retsnoop-report --perfetto $out changed the recording it reads"; fi
done
usage_err "retsnoop-report --perfetto onto -k" "is the vmlinux given with -k" "$REP" -k "$W/g-sym.rsr" --perfetto "$W/g.rsr" "$W/text.rsr"
if cmp -s "$GUARD_REC" "$W/g.rsr"; then ok; else bad "retsnoop-report --perfetto onto -k changed the file"; fi
usage_err "retsnoop-record -o onto -k" "-o '$W/g-hard.rsr' is the vmlinux given with -k: refusing to overwrite it" "$REC" -e x -k "$W/g.rsr" -o "$W/g-hard.rsr"
usage_err "retsnoop --perfetto onto -o" "is the recording written with -o: refusing to overwrite it" "$LIVE" -e x -o "$W/g.rsr" --perfetto "$W/g-sym.rsr"
if cmp -s "$GUARD_REC" "$W/g.rsr"; then ok; else bad "record/live guards changed the file"; fi

# ---- issue 11's messages on a real recording (no DWARF found: an empty
# debug root, no debuginfod)
VREC=$ROOT/tests/golden/data/vm-trace.rsr
mkdir -p "$W/nodbg" "$W/kdir"
export RETSNOOP_DEBUG_ROOT=$W/nodbg
NO_HINT=1 usage_err "retsnoop-report -k missing" "-k $W/nope: no such file" "$REP" -k "$W/nope" "$VREC"
NO_HINT=1 usage_err "retsnoop-report -k directory" "-k $W/kdir: Is a directory" "$REP" -k "$W/kdir" "$VREC"
# a compressed kernel image: the x86 boot header's magic at 0x202
python3 -c 'import sys; b = bytearray(4096); b[0x202:0x206] = b"HdrS"; open(sys.argv[1], "wb").write(b)' "$W/vmlinuz"
NO_HINT=1 usage_err "retsnoop-report -k bzImage" "-k $W/vmlinuz: a compressed kernel image (bzImage), not a vmlinux with debug info; pass the vmlinux from the linux-image-" "$REP" -k "$W/vmlinuz" "$VREC"
printf '\x1f\x8b\x08\x00' >"$W/vmlinux.gz"
NO_HINT=1 usage_err "retsnoop-report -k gzip" "a gzip-compressed file, not a vmlinux with debug info; pass the vmlinux from the linux-image-" "$REP" -k "$W/vmlinux.gz" "$VREC"
# the missing-vmlinux line: short, once, only for outputs with source lines
nov() {  # NAME WANT(0|1) ARGS...: stderr has (1) / has not (0) the line
	local name=$1 want=$2 n; shift 2
	run env -u RETSNOOP_NO_DWARF -u DEBUGINFOD_URLS "$REP" "$@" "$VREC"
	n=$(grep -c 'no vmlinux with debug info' <<<"$ERR")
	if [ "$RC" != 0 ] || [ "$n" != "$want" ]; then
		bad "$name: exit $RC, the no-vmlinux line $n times (want $want): $ERR"
	elif [ "$want" = 1 ] && [ "$(grep 'no vmlinux' <<<"$ERR" | wc -c)" -gt 160 ]; then
		bad "$name: the no-vmlinux line is long: $ERR"
	elif [ "$want" = 1 ] && ! grep -q "^retsnoop-report: no source lines: no vmlinux with debug info for [^ ]* (install its -dbg package, pass -k, or set DEBUGINFOD_URLS)\$" <<<"$ERR"; then
		bad "$name: unexpected no-vmlinux line: $ERR"
	else
		ok
	fi
}
nov "no vmlinux: stack view"   1 -x ENOENT
nov "no vmlinux: --folded"     0 --folded
nov "no vmlinux: summary"      0 summary
nov "no vmlinux: --format json" 0 --format json
nov "no vmlinux: -T view only" 0 -T -x ENOENT
# with DEBUGINFOD_URLS set, what debuginfod said instead of advice to set it
run env -u RETSNOOP_NO_DWARF DEBUGINFOD_URLS=http://127.0.0.1:9 DEBUGINFOD_TIMEOUT=5 "$REP" -x ENOENT "$VREC"
if [ "$RC" = 0 ] && grep -q '^retsnoop-report: no source lines: no vmlinux with debug info for [^ ]* here, and debuginfod http://127.0.0.1:9: build-id [0-9a-f]*: ' <<<"$ERR" &&
   ! grep -q 'set DEBUGINFOD_URLS' <<<"$ERR"; then ok; else bad "no vmlinux, DEBUGINFOD_URLS set: exit $RC: $ERR"; fi
unset RETSNOOP_DEBUG_ROOT
# filters that keep no session: one line on stderr, exit 0, nothing on stdout
for f in "--stack-has nosuch_fn" "-x EPERM" "-n nosuch-comm --format json" "--entry *sys_mkdirat -x ENOENT --folded"; do
	# shellcheck disable=SC2086
	RETSNOOP_NO_DWARF=1 run "$REP" $f "$VREC"
	if [ "$RC" = 0 ] && [ -z "$OUT" ] && [ "$ERR" = "retsnoop-report: the filters kept none of the 24 session(s)" ]; then ok
	else bad "filters keeping nothing ($f): exit $RC, stdout '$OUT', stderr '$ERR'"; fi
done
run "$REP" -x ENOENT "$VREC"
[ "$RC" = 0 ] && [ -n "$OUT" ] && ! grep -q 'kept none' <<<"$ERR" && ok || bad "filters keeping some: said they kept none: $ERR"
# no trailing blanks on stack and trace rows
run "$REP" -T "$VREC"
[ "$RC" = 0 ] && [ -n "$OUT" ] && ! grep -q ' $' <<<"$OUT" && ok || bad "-T view: rows with trailing blanks"
run "$REP" -E "$VREC"
[ "$RC" = 0 ] && [ -n "$OUT" ] && ! grep -q ' $' <<<"$OUT" && ok || bad "stack view: rows with trailing blanks"
# the missed-probe line explains itself
run "$REP" "$ROOT/tests/golden/data/vm-bpf.rsr"
grep -A1 '^MISSED PROBES: *[0-9]' <<<"$ERR" | tail -1 | grep -q "^ *(traced calls the kernel ran without retsnoop's BPF program" && ok ||
	bad "MISSED PROBES: no explanation line: $ERR"

# ---- subcommands: global flags before or after the subcommand and the file
good "retsnoop-report info -v FILE" "Integrity:" "$REP" info -v "$GUARD_REC"
good "retsnoop-report info FILE -v" "Integrity:" "$REP" info "$GUARD_REC" -v
good "retsnoop-report info --usage" "Usage: retsnoop-report info" "$REP" info --usage
good "retsnoop-report addr2line --usage" "[-e VMLINUX]" "$REP" addr2line --usage
PROG_NAME="retsnoop-report addr2line" usage_err "retsnoop-report addr2line: no -e" "missing -e VMLINUX" "$REP" addr2line -i
PROG_NAME="retsnoop-report diff" usage_err "retsnoop-report diff: one file" "expected two recordings: OLD NEW" "$REP" diff a.rsr
PROG_NAME="retsnoop-report diff" usage_err "retsnoop-report diff: three files" "got another: c.rsr" "$REP" diff a.rsr b.rsr c.rsr
PROG_NAME="retsnoop-report diff" usage_err "retsnoop-report diff: bad --format" "--format: expected 'text' or 'json', got 'xml'" "$REP" diff --format=xml a.rsr b.rsr
PROG_NAME="retsnoop-report diff" usage_err "retsnoop-report diff: unknown flag" "unknown option '--bogus'" "$REP" diff --bogus a.rsr b.rsr
good "retsnoop-report diff --usage" "OLD NEW" "$REP" diff --usage
good "retsnoop-report diff --help" "--format text|json" "$REP" diff --help

# the report takes the recorder's long forms, ranges and @FILE
good "retsnoop-report -v info FILE" "Integrity:" "$REP" -v info "$GUARD_REC"
for args in "-v summary" "summary -v"; do   # -v: recording details on stderr
	run "$REP" $args "$GUARD_REC"
	[ "$RC" = 0 ] && grep -q '^SESSIONS:' <<<"$OUT" && grep -q '^Recording by' <<<"$ERR" && ok ||
		bad "retsnoop-report $args FILE: exit $RC: $ERR"
done
run "$REP" summary "$GUARD_REC" -v
[ "$RC" = 0 ] && grep -q '^SESSIONS:' <<<"$OUT" && grep -q '^Recording by' <<<"$ERR" && ok ||
	bad "retsnoop-report summary FILE -v: exit $RC: $ERR"
good "retsnoop-report --usage" "[--stack-has GLOB]" "$REP" --usage
good "retsnoop-report -V" "retsnoop-report 0." "$REP" -V
run "$REP" --pid=1 --no-pid 2 --comm 'x*' --no-comm=y --allow-errors ENOMEM --deny-errors=EPERM \
	--longer 0.5 --symbolize=none --verbose --config stacks.dec-offs=1 "$GUARD_REC"
[ "$RC" = 0 ] && ok || bad "retsnoop-report refuses the recorder's long forms (exit $RC): $ERR"
run "$REP" -n "@$W/comms" -p 3 "$GUARD_REC"
[ "$RC" = 0 ] && ok || bad "retsnoop-report -n @FILE (exit $RC): $ERR"
run "$REP" "${pids[@]}" "$GUARD_REC"
[ "$RC" = 0 ] && ok || bad "retsnoop-report 256 -p values (exit $RC): $ERR"
usage_err "retsnoop-report 257 -p values" "too many -p values (max 256) at '257'" "$REP" "${pids[@]}" -p 257 "$GUARD_REC"
usage_err "retsnoop-report -L negative" "bad -L duration '-1'" "$REP" -L -1 "$GUARD_REC"
NO_HINT=1 usage_err "retsnoop-report -n @FILE: no such file" "-n @$W/nope: cannot open" "$REP" -n "@$W/nope" "$GUARD_REC"
usage_err "retsnoop-report -S with -x (as when recording)" "-S (successful sessions too) cannot be combined with -x" "$REP" -S -x EINVAL "$GUARD_REC"
# the same error words in every command for a shared flag
for T in "$REC" "$LIVE" "$REP"; do
	run "$T" -p abc
	[[ $(head -1 <<<"$ERR") == *"bad PID 'abc': expected a process id (a positive integer)" ]] && ok ||
		bad "${T##*/} -p abc: not the shared message: $ERR"
done
# no "retsnoop-report:" inside the live tool's messages
run "$LIVE" -e x --format xml
[[ $ERR != *retsnoop-report:* ]] && [[ $ERR == retsnoop:* ]] && ok || bad "live: a message under another name: $ERR"

# ---- help, config help, version: exit 0, on stdout, nothing on stderr
for T in "$REC" "$LIVE" "$REP"; do
	p=${T##*/}
	good "$p --help"        "Usage: $p " "$T" --help
	good "$p -h"            "Usage: $p " "$T" -h
	good "$p --config-help" "(default: " "$T" --config-help
done
# each command lists only the keys it takes
run "$REC" --config-help
[ "$RC" = 0 ] && grep -q '^  bpf\.ringbuf-size=' <<<"$OUT" && ! grep -q 'stacks\.' <<<"$OUT" &&
	! grep -q 'fmt\.' <<<"$OUT" && ok || bad "retsnoop-record --config-help: bpf.* only: $OUT"
run "$REP" --config-help
[ "$RC" = 0 ] && ! grep -q 'bpf\.' <<<"$OUT" && grep -q 'fmt\.lbr-max-count=N' <<<"$OUT" && ok ||
	bad "retsnoop-report --config-help: stacks.*/fmt.* only: $OUT"
run "$LIVE" --config-help
for k in bpf.ringbuf-size bpf.sessions-size stacks.symb-mode stacks.unfiltered stacks.emit-addrs \
	 stacks.dec-offs fmt.lbr-max-count; do
	# one line per key: KEY=VALUE, a description, the default
	grep -Eq "^  $k=[A-Z]+ +[^ ].* \(default: [^)]+\)\$" <<<"$OUT" && ok ||
		bad "retsnoop --config-help: no line for $k with description and default"
done
good "retsnoop-record -V"    "retsnoop-record 0." "$REC" -V
good "retsnoop -V"           "retsnoop 0." "$LIVE" -V
good "retsnoop-report --version" "retsnoop-report 0." "$REP" --version
run "$LIVE" -Vv
for f in 'BPF ringbuf map supported:' 'bpf_get_func_ip() supported:' 'bpf_get_branch_snapshot() supported:' \
	 'BPF cookie supported:' 'multi-attach kprobe supported:' 'fentry/fexit supported:' \
	 'bpf_rdonly_cast() supported:' 'LBR:' \
	 'Feature calibration:'; do
	[ "$RC" = 0 ] && grep -qF -- "$f" <<<"$OUT" && ok || bad "retsnoop -Vv lacks '$f' (exit $RC)"
done

# ---- tracing not permitted: says why, in one line, exit 1, no file left
not_permitted() {  # NAME 'TEXT' CMD...
	local name=$1 text=$2; shift 2
	run "$@"
	if [ "$RC" != 1 ]; then bad "$name: exit $RC, expected 1: $ERR"
	elif [ "$(printf '%s\n' "$ERR" | wc -l)" != 1 ]; then bad "$name: not one line: $ERR"
	elif ! grep -qF -- "$text" <<<"$ERR"; then bad "$name: lacks '$text': $ERR"
	elif [ -e "$W/t.rsr" ]; then bad "$name: left the output file behind"
	else ok; fi
}
if [ "$(id -u)" != 0 ]; then
	for T in "$REC" "$LIVE"; do
		not_permitted "${T##*/} as non-root" "must run as root" "$T" -e '*sys_bpf' -o "$W/t.rsr"
	done
else
	if command -v setpriv >/dev/null; then
		chmod 755 "$W"
		for T in "$REC" "$LIVE"; do
			not_permitted "${T##*/} as nobody" "must run as root" \
				setpriv --reuid=65534 --regid=65534 --clear-groups "$T" -e '*sys_bpf' -o "$W/t.rsr"
		done
	fi
	if ! [ -r /sys/kernel/tracing/available_filter_functions ] &&
	   ! [ -r /sys/kernel/debug/tracing/available_filter_functions ]; then
		for T in "$REC" "$LIVE"; do
			not_permitted "${T##*/} on a kernel that cannot trace" "this kernel cannot be traced here: " \
				"$T" -e '*sys_bpf' -o "$W/t.rsr"
			# the reason names every backend
			grep -q 'available_filter_functions' <<<"$ERR" && grep -Eq 'kprobe' <<<"$ERR" &&
				grep -q 'fentry' <<<"$ERR" && ok || bad "${T##*/}: the reason misses a backend: $ERR"
		done
	fi
fi

# ---- write errors of every report output reach the exit status: 1 and one
# line naming what could not be written (stdout or the --perfetto file)
write_err() {  # NAME 'TEXT' CMD... (stdout to /dev/full)
	local name=$1 text=$2; shift 2
	"$@" >/dev/full 2>"$W/err" </dev/null
	RC=$? ERR=$(cat "$W/err")
	if [ "$RC" != 1 ]; then bad "$name: exit $RC, expected 1 (stderr: $ERR)"
	elif ! grep -qxF -- "retsnoop-report: $text" <<<"$ERR"; then bad "$name: no line '$text': $ERR"
	else ok; fi
}
RSR=$ROOT/tests/golden/data/vm-bpf.rsr
for o in "" "--format json" "--folded" "--summary"; do
	# shellcheck disable=SC2086
	write_err "report ${o:-text} to a full disk" "error writing the output" "$REP" -sn $o "$RSR"
done
write_err "report -T to a full disk" "error writing the output" \
	"$REP" -sn -T "$ROOT/tests/golden/data/vm-trace.rsr"
"$REP" -sn --perfetto /dev/full "$RSR" >/dev/null 2>"$W/err"
RC=$? ERR=$(cat "$W/err")
[ "$RC" = 1 ] && grep -qxF "retsnoop-report: --perfetto: error writing '/dev/full'" <<<"$ERR" && ok ||
	bad "report --perfetto to a full disk: exit $RC: $ERR"

# ---- bench/insn_profile.sh's pieces: the plugin and the workload build
# warning-free, and insn_profile_report attributes a synthetic window's
# blocks to the right symbols (a block counts insns x execs), renames BPF
# programs and trampolines, counts program runs at their first block, and
# rejects bad input with one line and exit 1
CCW="gcc -std=gnu11 -Wall -Wextra -Werror -O2"
if $CCW -shared -fPIC -o "$W/plugin.so" "$ROOT/bench/qemu_insn_plugin.c" 2>"$W/err" &&
	$CCW -o "$W/workload" "$ROOT/bench/bench_tool.c" 2>>"$W/err" &&
	$CCW -o "$W/ipr" "$ROOT/bench/insn_profile_report.c" 2>>"$W/err"; then ok
else bad "bench: insn_profile's pieces do not build cleanly: $(head -3 "$W/err")"; fi
if [ -x "$W/ipr" ]; then
	cat >"$W/ks" <<'KS'
ffffffff81000000 T alpha
ffffffff81000100 t beta
ffffffffc0001000 t bpf_prog_0123456789abcdef_rs_ksession	[bpf]
ffffffffc0002000 t bpf_trampoline_42	[bpf]
KS
	cat >"$W/pa" <<'PA'
ffffffff81000000 4 10
ffffffff81000010 6 10
ffffffff81000100 2 5
ffffffffc0001000 10 8
ffffffffc0001020 3 2
ffffffffc0002000 5 4
401000 7 1
PA
	cat >"$W/pb" <<'PB'
ffffffff81000000 4 10
ffffffff81000100 2 15
ffffffffc0002000 5 4
PB
	run "$W/ipr" total "$W/ks" "$W/pa" 10
	[ "$RC" = 0 ] && [ "$OUT" = "22.3" ] && ok || bad "insn_profile_report total: $RC '$OUT', expected 22.3"
	run "$W/ipr" calls "$W/ks" "$W/pa" 2
	[ "$RC" = 0 ] && [ "$OUT" = "4.00" ] && ok || bad "insn_profile_report calls: $RC '$OUT', expected 4.00"
	run "$W/ipr" top "$W/ks" "$W/pa" 10 2 3
	want=$(printf '%s\n' '       10.0      5.0  alpha' '        8.6      4.3  prog:rs_ksession' '        2.0      1.0  bpf_trampoline')
	[ "$RC" = 0 ] && [ "$OUT" = "$want" ] && ok || bad "insn_profile_report top: $RC '$OUT'"
	run "$W/ipr" diff "$W/ks" "$W/pa" "$W/ks" "$W/pb" 10 2
	want=$(printf '%s\n' '       -8.6     -4.3  prog:rs_ksession' '       -6.0     -3.0  alpha' '       +2.0     +1.0  beta' '       -0.7     -0.3  [user]' \
		'       -8.6     -4.3  = the BPF programs (prog:*)' '       -4.7     -2.4  = the rest (helpers, kernel, user space)')
	[ "$RC" = 0 ] && [ "$OUT" = "$want" ] && ok || bad "insn_profile_report diff: $RC '$OUT'"
	run "$W/ipr" blocks "$W/ks" "$W/pa" 2 rs_ksession
	[ "$RC" = 0 ] && grep -qx 'prog:rs_ksession+0x0020 insns   3 execs     1.00 =      3.0' <<<"$OUT" &&
		[ "$(tail -1 <<<"$OUT")" = "total 43.0" ] && ok || bad "insn_profile_report blocks: $RC '$OUT'"
	printf 'ffffffff81000000 4\n' >"$W/pbad"
	for c in "malformed line:total $W/ks $W/pbad 1" "cannot read:total $W/ks $W/none 1" \
		"not a positive number:total $W/ks $W/pa 0" "no block of gamma:blocks $W/ks $W/pa 1 gamma"; do
		# shellcheck disable=SC2086
		run "$W/ipr" ${c#*:}
		[ "$RC" = 1 ] && [ -z "$OUT" ] && [ "$(wc -l <<<"$ERR")" = 1 ] && grep -q "^insn_profile_report: ${c%%:*}" <<<"$ERR" &&
			ok || bad "insn_profile_report ${c#*:}: exit $RC, stderr '$ERR'"
	done
fi

echo "cli: $PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
