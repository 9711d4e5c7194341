#!/usr/bin/env bash
# live.sh - VM end-to-end tests of the live `retsnoop` tool on Debian's
# 6.12 cloud kernel in qemu (one boot for every case; checks on the host):
#  * `retsnoop ... -o FILE -- simfail CASE` for several cases (stack view,
#    rendering settings, -T, -T -E, an -x filter): the live stdout equals
#    `retsnoop-report` of the written file with the same flags;
#  * the report's outputs live (--format json, --summary with --perfetto,
#    --folded-weight=latency) and --stack-has: stdout (and the Perfetto
#    file) equal to `retsnoop-report` of the -o file with the same flags,
#    which keeps every session; -S live equals the report's -S, and the
#    report's --success-only / -Sn split it;
#  * an entry glob matching nothing: exit 1 and one line saying why;
#  * --dry-run -v: the function list and the attach plan, nothing attached;
#  * SIGTERM and SIGINT while tracing everything: Detaching... / drop
#    statistics / DONE in N ms., and stdout is line-buffered (the session is
#    in the output file before the signal);
#  * on a terminal (util-linux `script`): the attach progress bar and the
#    live status line, erased before every session and at exit; in every
#    other (non-TTY) run neither appears.
# Prints "vm-live: N passed, N failed"; exits non-zero on failure.
set -u
cd "$(dirname "$0")/../.." || exit 1
ROOT=$PWD
# shellcheck source=tests/vm/suite_lib.sh
. "$ROOT/tests/vm/suite_lib.sh"
suite_begin vm-live retsnoop simfail
SCRIPT=$(command -v script) || suite_fail "script(1) not found (apt-get install bsdutils)"
command -v python3 >/dev/null || suite_fail "python3 not found"
BPF='-e *sys_bpf -a __sys_bpf -a map_create -a array_map_* -a bpf_map_area_alloc -a __bpf_map_area_alloc -a vmemdup_user -a bpf_map_copy_value -a map_lookup_elem'
OPEN='-e *sys_openat -a do_sys_openat2 -a do_filp_open -a path_openat -a walk_component'
SLEEP='-e *sys_nanosleep -e *sys_clock_nanosleep -a hrtimer_nanosleep -a do_nanosleep'
cat >"$WORK/g/guest.sh" <<EOF
#!/bin/sh
cd "\$(dirname "\$0")"
L=./retsnoop
run() { name=\$1; shift; "\$@" >/out/\$name.out 2>/out/\$name.err; echo \$? >/out/\$name.rc; }
wait_for() {  # FILE TEXT: up to 120 s
	i=0; while ! grep -q "\$2" "\$1" 2>/dev/null && [ \$i -lt 1200 ]; do sleep 0.1; i=\$((i + 1)); done
}
# live vs report, several cases
run stack      \$L $BPF -o /out/stack.rsr -- ./simfail bpf-bad-map-max-entries-array
run settings   \$L -sn -C stacks.emit-addrs=1 -C stacks.dec-offs=1 $BPF -o /out/settings.rsr -- ./simfail bpf-bad-map-val-size-percpu-array
run trace      \$L -T $BPF -o /out/trace.rsr -- ./simfail bpf-bad-map-key-size-array
run trace-both \$L -T -E $OPEN -o /out/trace-both.rsr -- ./simfail open-missing
run xfilter    \$L -x EFAULT $BPF -o /out/xfilter.rsr -- ./simfail bpf-bad-map-max-entries-array bpf-bad-map-lookup-key
# the report's outputs and --stack-has, live
TWO="bpf-bad-map-max-entries-array bpf-bad-map-lookup-key"
run json       \$L --format json $BPF -o /out/json.rsr -- ./simfail \$TWO
run stackhas   \$L --stack-has vmemdup_user $BPF -o /out/stackhas.rsr -- ./simfail \$TWO
run summary    \$L --summary --perfetto /out/summary.perfetto.json $BPF -o /out/summary.rsr -- ./simfail \$TWO
run folded     \$L -T --folded-weight=latency $BPF -o /out/folded.rsr -- ./simfail bpf-bad-map-key-size-array
# -S live, then the report with the same -S
run success    \$L -S $BPF -o /out/success.rsr -- ./simfail bpf-simple-map bpf-bad-map-max-entries-array
# no entry function matched
run nomatch    \$L -e 'no_such_function_xyz*' -a 'array_map_*'
# dry run: the list and the plan, for -M (one kprobe.session link where the
# kernel has its kfunc, else two kprobe.multi links), -M without
# kprobe.session, and kprobes
grep -q ' bpf_session_is_return\$' /proc/kallsyms && echo yes >/out/has-session
run dry        \$L --dry-run -v $BPF
run dry-mp     \$L --dry-run -v -C bpf.kprobe-session=false $BPF
run dry-k      \$L --dry-run -v -K $BPF
# SIGTERM while tracing everything; stdout is a file (line-buffered?)
\$L $BPF -o /out/term.rsr >/out/term.out 2>/out/term.err &
pid=\$!
wait_for /out/term.out 'Receiving data'
./simfail bpf-bad-map-max-entries-array >/dev/null
sleep 1
cp /out/term.out /out/term.before-signal
kill -TERM \$pid; wait \$pid; echo \$? >/out/term.rc
# SIGINT with a ring buffer too small for a full trace: drops are counted
\$L -T -c bpf -C bpf.ringbuf-size=4096 -o /out/int.rsr >/out/int.out 2>/out/int.err &
pid=\$!
wait_for /out/int.out 'Receiving data'
./simfail bpf-bad-prog-load >/dev/null
sleep 1
kill -INT \$pid; wait \$pid; echo \$? >/out/int.rc
# on a terminal: progress bar (-K, >= 50 functions) and status line
./retsnoop --dry-run -K $SLEEP -a 'bpf_map_*' -a 'array_map_*' >/out/tty-count.out 2>&1
export SIMFAIL_SLEEP_MS=1500
# (a) no -- CMD: a recorder on the terminal, the workload started beside it
cat >./tty-bg.sh <<'TTY'
./retsnoop -S -K $SLEEP -a 'bpf_map_*' -a 'array_map_*' &
p=\$!
i=0; while ! grep -q 'Receiving data' /out/tty.typescript 2>/dev/null && [ \$i -lt 1200 ]; do sleep 0.1; i=\$((i + 1)); done
./simfail syscall-long-sleep >/dev/null 2>&1
sleep 0.6
kill -INT \$p; wait \$p
TTY
./script -qefc "sh ./tty-bg.sh" /out/tty.typescript >/dev/null 2>&1
echo \$? >/out/tty.rc
# (b) with -- CMD: the child prints on the same terminal while it runs, and
# no status line may share a line with it (three runs)
for n in 1 2 3; do
	./script -qefc "./retsnoop -S $SLEEP -- ./simfail syscall-long-sleep" /out/tty-cmd\$n.typescript >/dev/null 2>&1
	echo \$? >/out/tty-cmd\$n.rc
done
dmesg >/out/dmesg
EOF
chmod +x "$WORK/g/guest.sh"
cp "$SCRIPT" "$WORK/g/script"

T0=$(date +%s)
boot_guest 600
echo "VM run took $(( $(date +%s) - T0 )) s"
# the guest has no vmlinux with DWARF, so its default symbolization was
# kallsyms-only: the host report must not pick up one either
rep()   { TZ=UTC RETSNOOP_NO_DWARF=1 "$WORK/retsnoop-report" "$@" 2>/dev/null; }
rc()    { cat "$OUT/$1.rc" 2>/dev/null || echo none; }
# live stdout without "Receiving data..." and the traced command's own lines
live()  { grep -v -e '^Receiving data\.\.\.$' -e '^simfail: ' "$OUT/$1.out"; }


same_as_report() {  # NAME REPORT-FLAGS...
	local name=$1; shift
	local l r
	if [ ! -f "$OUT/$name.rsr" ]; then
		bad "$name: no recording (exit $(rc "$name"): $(head -3 "$OUT/$name.err" 2>/dev/null))"
		return
	fi
	l=$(live "$name")
	r=$(rep "$@" "$OUT/$name.rsr")
	check "$name: live exit status 0" [ "$(rc "$name")" = 0 ]
	check "$name: printed Receiving data... first" [ "$(head -1 "$OUT/$name.out")" = "Receiving data..." ]
	check "$name: rendered $(grep -c 'TID/PID' <<<"$l") session(s)" grep -q 'TID/PID' <<<"$l"
	if diff <(printf '%s\n' "$l") <(printf '%s\n' "$r") >"$WORK/$name.diff"; then
		ok "$name: live output identical to retsnoop-report $* of its recording"
	else
		bad "$name: live output differs from retsnoop-report $*"; head -20 "$WORK/$name.diff"
	fi
	check "$name: Detaching... and DONE in N ms. on stderr" \
		bash -c "grep -qx 'Detaching\.\.\.' '$OUT/$name.err' && grep -Eqx 'DONE in [0-9]+ ms\.' '$OUT/$name.err'"
}
same_as_report stack
same_as_report settings -sn -C stacks.emit-addrs=1 -C stacks.dec-offs=1
check "settings: raw addresses and decimal offsets are shown" \
	grep -Eq '[0-9a-f]{16} +__x64_sys_bpf\+[0-9]+ *$' <<<"$(live settings)"
same_as_report trace -T
check "trace: trace view (→/←) and no stack view" \
	bash -c "grep -q '→' '$OUT/trace.out' && grep -q '←' '$OUT/trace.out' && ! grep -q 'entry_SYSCALL_64' '$OUT/trace.out'"
same_as_report trace-both -T -E
check "trace-both: trace and stack views, -ENOENT" \
	bash -c "grep -q '→' '$OUT/trace-both.out' && grep -Eq '\[-ENOENT\] +__x64_sys_openat' '$OUT/trace-both.out'"
same_as_report xfilter -x EFAULT
check "xfilter: one session kept, the -EFAULT one" \
	bash -c "[ \$(grep -c 'TID/PID' '$OUT/xfilter.out') = 1 ] && grep -q '\[-EFAULT\]' '$OUT/xfilter.out' && ! grep -q '\[-EINVAL\]' '$OUT/xfilter.out'"

# the report's outputs, live: stdout is exactly what retsnoop-report prints
# for the recording (Receiving data... goes to stderr)
same_output() {  # NAME REPORT-FLAGS...
	local name=$1; shift
	if [ ! -f "$OUT/$name.rsr" ]; then
		bad "$name: no recording (exit $(rc "$name"): $(head -3 "$OUT/$name.err" 2>/dev/null))"
		return 1
	fi
	check "$name: live exit status 0" [ "$(rc "$name")" = 0 ]
	check "$name: Receiving data... on stderr, not stdout" \
		bash -c "grep -qx 'Receiving data\.\.\.' '$OUT/$name.err' && ! grep -q 'Receiving data' '$OUT/$name.out'"
	check "$name: Detaching... and DONE in N ms. on stderr" \
		bash -c "grep -qx 'Detaching\.\.\.' '$OUT/$name.err' && grep -Eqx 'DONE in [0-9]+ ms\.' '$OUT/$name.err'"
	if diff <(live "$name") <(rep "$@" "$OUT/$name.rsr") >"$WORK/$name.diff"; then
		ok "$name: live stdout identical to retsnoop-report $* of its recording"
	else
		bad "$name: live stdout differs from retsnoop-report $*"; head -20 "$WORK/$name.diff"
	fi
}
same_output json --format json
njson=$(live json | wc -l)
check "json: $njson NDJSON line(s), each one object with a session_id, two sessions" \
	python3 -c 'import json, sys
lines = [l for l in open(sys.argv[1]) if not l.startswith("simfail: ")]
assert len(lines) == 2, len(lines)
for l in lines:
    assert isinstance(json.loads(l)["session_id"], int)' "$OUT/json.out"
same_as_report stackhas --stack-has vmemdup_user
kept=$(live stackhas | grep -c 'TID/PID')
recorded=$(rep "$OUT/stackhas.rsr" | grep -c 'TID/PID')
check "stackhas: live kept $kept of the $recorded recorded sessions: 1 of 2, the vmemdup_user one" \
	bash -c "[ $kept = 1 ] && [ $recorded = 2 ] && grep -q '\[-EFAULT\] *vmemdup_user' '$OUT/stackhas.out'"
same_output summary summary
check "summary: counts the two failing sessions" grep -q '^SESSIONS: 2 (2 failed' "$OUT/summary.out"
rep --perfetto "$WORK/summary.perfetto.json" "$OUT/summary.rsr" >/dev/null
check "summary: live --perfetto file identical to retsnoop-report --perfetto of the recording" \
	bash -c "[ -s '$OUT/summary.perfetto.json' ] && cmp -s '$OUT/summary.perfetto.json' '$WORK/summary.perfetto.json'"
same_output folded --folded-weight=latency
check "folded: stacks with latency weights" grep -Eq '^__x64_sys_bpf;.* [0-9]+$' "$OUT/folded.out"
# -S: the live tool shows successful sessions too; the report with the same
# -S shows the same, --success-only / -Sn each remove some of them
same_as_report success -S
nsucc=$(rep --success-only --format json "$OUT/success.rsr" | wc -l)
nfail=$(rep -Sn --format json "$OUT/success.rsr" | wc -l)
nall=$(live success | grep -c 'TID/PID')
check "success: live -S showed $nall session(s): $nsucc successful and $nfail failing, both kinds" \
	bash -c "[ $nsucc -ge 1 ] && [ $nfail -ge 1 ] && [ $((nsucc + nfail)) = $nall ]"
check "success: report -S = report without -S on a recording made with -S" \
	diff <(rep -S "$OUT/success.rsr") <(rep "$OUT/success.rsr")

# no entry function matched
check "nomatch: exit 1, one line naming the glob and why ($(head -c 200 "$OUT/nomatch.err"))" \
	bash -c "[ '$(rc nomatch)' = 1 ] && [ \$(wc -l <'$OUT/nomatch.err') = 1 ] &&
		grep -q \"entry glob 'no_such_function_xyz\\*' matches no kernel function\" '$OUT/nomatch.err'"

# dry run
for d in dry dry-mp dry-k; do
	n=$(grep -c ' (addr 0x' "$OUT/$d.out")
	check "$d: exit 0, lists $n functions with addresses" [ "$(rc $d)" = 0 ] && [ "$n" -gt 3 ]
	check "$d: __x64_sys_bpf listed as entry" grep -Eq '^__x64_sys_bpf \(addr 0x[0-9a-f]+, entry' "$OUT/$d.out"
	check "$d: summary line counts the same $n functions" grep -q "^$n functions would be attached with " "$OUT/$d.out"
	check "$d: says nothing was loaded" grep -qx 'Dry run: no tracing program was loaded or attached.' "$OUT/$d.out"
	check "$d: no Receiving/Detaching (nothing attached)" bash -c "! grep -q -e Receiving -e Detaching '$OUT/$d.out' '$OUT/$d.err'"
done
if [ -f "$OUT/has-session" ]; then
	check "dry: attach plan for -M: one kprobe.session link" grep -q '^Attach plan: .*1 kprobe.session link ' "$OUT/dry.out"
	check "dry: named kprobe-session" grep -Eq '^[0-9]+ functions would be attached with kprobe-session ' "$OUT/dry.out"
else
	check "dry: attach plan for -M: kprobe.multi (no kprobe.session here)" grep -q '^Attach plan: .*2 kprobe.multi links' "$OUT/dry.out"
fi
check "dry-mp: -C bpf.kprobe-session=false: attach plan for kprobe.multi" grep -q '^Attach plan: .*2 kprobe.multi links' "$OUT/dry-mp.out"
check "dry-k: attach plan for kprobes" grep -Eq '^Attach plan: .*[0-9]+ kprobes and [0-9]+ kretprobes' "$OUT/dry-k.out"

# signals
check "SIGTERM: exit 0" [ "$(rc term)" = 0 ]
check "SIGTERM: the session was in stdout (a file) before the signal: line-buffered" \
	grep -q 'TID/PID' "$OUT/term.before-signal"
check "SIGTERM: Detaching... then DONE in N ms. on stderr" \
	bash -c "grep -A9 -x 'Detaching\.\.\.' '$OUT/term.err' | grep -Eqx 'DONE in [0-9]+ ms\.'"
same_as_report term
check "SIGINT: exit 0" [ "$(rc int)" = 0 ]
check "SIGINT with drops: drop statistics between Detaching... and DONE" \
	bash -c "sed -n '/^Detaching\.\.\.\$/,/^DONE in [0-9]* ms\.\$/p' '$OUT/int.err' | grep -q '^WARNING! There were dropped' &&
		grep -Eq '^DROPPED RECORDS: +[1-9]' '$OUT/int.err' && grep -Eqx 'DONE in [0-9]+ ms\.' '$OUT/int.err'"
TABLE='^(WARNING! There were dropped|[A-Z][A-Z -]*: +[0-9]+$)'
check "SIGINT with drops: one drop table (stderr), none on stdout" \
	bash -c "[ \$(grep -c '^WARNING! There were dropped' '$OUT/int.err') = 1 ] &&
		! grep -q -e '^WARNING! There were dropped' -e '^DROPPED ' '$OUT/int.out'"
check "SIGINT with drops: retsnoop-report prints the same table (labels and counts) of the -o file" \
	bash -c "diff <(grep -E '$TABLE' '$OUT/int.err') \
		<(RETSNOOP_NO_DWARF=1 '$WORK/retsnoop-report' -sn '$OUT/int.rsr' 2>&1 >/dev/null | grep -E '$TABLE')"
same_as_report int -T

# terminal only: progress bar and status line
nfun=$(sed -n 's/^\([0-9]*\) functions would be attached.*/\1/p' "$OUT/tty-count.out")
check "tty: command exit status 0 through script(1)" [ "$(rc tty)" = 0 ]
TS=$OUT/tty.typescript
check "tty: attach progress bar for $nfun functions (-K)" \
	bash -c "[ '${nfun:-0}' -ge 50 ] && grep -aq 'Attaching \[#*\.*\] [0-9]*/$nfun functions' '$TS'"
check "tty: live status line (sessions captured, dropped, elapsed)" \
	grep -aEq $'\r\e\\[K[0-9]+ sessions? captured, [0-9]+ dropped, [0-9]{2}:[0-9]{2}:[0-9]{2} elapsed' "$TS"
check "tty: the session was printed" grep -aq 'TID/PID' "$TS"
# with -- CMD: the child's own lines come through whole, never beside a status line
for n in 1 2 3; do
	T=$OUT/tty-cmd$n.typescript
	check "tty -- CMD run $n: exit status 0" [ "$(rc tty-cmd$n)" = 0 ]
	check "tty -- CMD run $n: the child's line is printed" grep -aq 'simfail: syscall-long-sleep result=0 errno=0' "$T"
	check "tty -- CMD run $n: no status line while the child runs" not grep -aq 'captured, ' "$T"
	check "tty -- CMD run $n: the session was printed" grep -aq 'TID/PID' "$T"
done
# every drawn line is erased before anything else is written, and at exit
if python3 - "$TS" <<'PY'
import re, sys
data = open(sys.argv[1], 'rb').read()
erase = b'\r\x1b[K'
draw = re.compile(rb'\r\x1b\[K((?:Attaching \[|[0-9]+ sessions? captured)[^\r\n\x1b]*)')
bad, n = 0, 0
for m in draw.finditer(data):
    n += 1
    if not data.startswith(erase, m.end()):
        bad += 1
        print('  not erased:', data[m.start():m.end() + 40])
sys.exit(1 if bad or n == 0 else 0)
PY
then ok "tty: every progress/status line erased before other output and at exit"
else bad "tty: a progress/status line was left on screen"; fi
# no terminal: none of it anywhere
leak=$(grep -al -e $'\e\\[K' -e 'captured, ' -e 'Attaching \[' "$OUT"/*.err "$OUT"/*.out 2>/dev/null | tr '\n' ' ')
check "no TTY: no progress bar or status line in any redirected run${leak:+ ($leak)}" [ -z "$leak" ]

check "guest dmesg has no WARNING/BUG/Oops" bash -c "! grep -Eq 'WARNING:|BUG:|Oops' '$OUT/dmesg'"

echo "vm-live: $PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
