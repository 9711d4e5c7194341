#!/usr/bin/env bash
# run.sh - the VM end-to-end suite: records every simfail case with
# build/retsnoop-record inside qemu (one boot per kernel, every attach mode
# batched into it by tests/vm/guest-e2e.sh) and checks the recordings on the
# host with build/retsnoop-report.  Kernels come from the .env files written
# by scripts/fetch-kernels.sh (run automatically when they are missing).
#
# Prints one "vm-GROUP: N passed, N failed" line per kernel and attach mode
# (the format tests/run-all.sh tallies) and exits non-zero on any failure,
# including missing binaries.
#
# Checks per recording: the entry function's row carries the errno simfail
# printed; the expected deepest failing function (tests/vm/cases.txt) shows up
# with its result; exactly one session per failing case and none for success
# cases; retsnoop-record's exit status equals simfail's own.  The kallsyms
# snapshot of a recording whose kallsyms came from the BPF ksym iterator
# equals (but for the [bpf] symbols) that of one forced to read
# /proc/kallsyms (RETSNOOP_KALLSYMS=proc).  Per kernel: the
# guest's dmesg shows no WARNING/BUG/Oops, and the tracing features exist.
#
# Before that, three short boots check the harness (tests/vm/vmrun) itself:
# exit status and /out passthrough, a kernel crash (125), a timeout (124).
#
# Environment: RETSNOOP_KERNELS (kernel store), VM_E2E_KERNELS (default
# "6.12 6.1"), VM_E2E_KEEP=DIR (keep the VM outputs there), VM_E2E_CASES
# (space-separated subset of the case names), VM_E2E_CASEFILE (another case
# table, e.g. to see checks fail), VM_E2E_NO_SELFTEST=1 (skip
# the harness checks), VM_E2E_TIMEOUT (seconds per boot, default 900).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
ROOT=$PWD
KDIR=${RETSNOOP_KERNELS:-/opt/retsnoop-kernels}
KERNELS=${VM_E2E_KERNELS:-6.12 6.1}
say() { printf 'vm: %s\n' "$*" >&2; }

for b in build/retsnoop-record build/retsnoop-report build/simfail build/ksyms_dump; do
    if [ ! -x "$b" ]; then
        say "$b is missing: run 'make' first"
        echo "vm-setup: 0 passed, 1 failed"
        exit 1
    fi
done

if [ -n "${VM_E2E_KEEP:-}" ]; then WORK=$VM_E2E_KEEP; mkdir -p "$WORK"
else WORK=$(mktemp -d "${TMPDIR:-/tmp}/vm-e2e.XXXXXX"); trap 'rm -rf -- "$WORK"' EXIT; fi

# private copies: immune to rebuilds while the VMs run
mkdir -p "$WORK/bin"
cp build/retsnoop-record build/retsnoop-report build/simfail build/ksyms_dump "$WORK/bin/"
REPORT=$WORK/bin/retsnoop-report
export TZ=UTC

# ---- the case table
declare -A C_ENTRY C_ALLOW C_FN612 C_FN61 C_RES
CASES=()
CASEFILE=${VM_E2E_CASEFILE:-tests/vm/cases.txt}
BPF_ALLOW=$(sed -n 's/^@BPF=//p' "$CASEFILE")
while IFS='|' read -r name entry allow fn612 fn61 res; do
    case "$name" in ''|'#'*|'@'*) continue ;; esac
    if [ -n "${VM_E2E_CASES:-}" ] && [[ " $VM_E2E_CASES " != *" $name "* ]]; then continue; fi
    [ "$allow" = @BPF ] && allow=$BPF_ALLOW
    CASES+=("$name")
    C_ENTRY[$name]=$entry C_ALLOW[$name]=$allow C_FN612[$name]=$fn612 C_FN61[$name]=$fn61 C_RES[$name]=$res
done <"$CASEFILE"
[ ${#CASES[@]} -gt 0 ] || { say "no cases selected"; echo "vm-setup: 0 passed, 1 failed"; exit 1; }

# ---- counters per group
declare -A PASS FAIL
GROUPS_SEEN=()
ok()  { local g=$1; [ -n "${PASS[$g]+x}" ] || { PASS[$g]=0; FAIL[$g]=0; GROUPS_SEEN+=("$g"); }; PASS[$g]=$((PASS[$g] + 1)); }
bad() { local g=$1; shift; [ -n "${PASS[$g]+x}" ] || { PASS[$g]=0; FAIL[$g]=0; GROUPS_SEEN+=("$g"); }; FAIL[$g]=$((FAIL[$g] + 1)); say "FAIL [$g] $*"; }
check() { local g=$1 msg=$2; shift 2; if "$@"; then ok "$g"; else bad "$g" "$msg"; fi; }
not() { ! "$@"; }

# report_facts REPORT: for the first session of simfail, one line per row with
# a result: "ROW <symbol without offset> <result>"; plus "SESSIONS <n>"
report_facts() {
    awk '
        /^[0-9][0-9]:[0-9][0-9]:[0-9][0-9]\.[0-9]+ -> .* TID\/PID [0-9]+\/[0-9]+ \(.*\):$/ {
            if ($0 ~ /\(simfail\/simfail\):$/) { n++; cur = (n == 1) } else cur = 0
            next
        }
        cur && match($0, /\[[^]]*\]/) {
            res = substr($0, RSTART, RLENGTH); rest = substr($0, RSTART + RLENGTH)
            split(rest, w, " "); sym = w[1]; sub(/\+0x[0-9a-f]+$/, "", sym); sub(/\+[0-9]+$/, "", sym)
            print "ROW", sym, res
        }
        END { print "SESSIONS", n + 0 }' "$1"
}

# check_ksym_sources GROUP OUT: the exact-names recording read kallsyms
# through the ksym iterator, the kproc- one from /proc/kallsyms, and their
# snapshots hold the same symbols but for [bpf] (the recorders' own programs)
check_ksym_sources() {
    local g=$1 out=$2 it f
    [ -f "$out/kproc-open-missing.stderr" ] || return 0
    it=$out/M-exact; [ -f "$it.stderr" ] || it=$out/default-exact
    check "$g-ksyms" "$(basename "$it"): -v does not say kallsyms came from the ksym iterator" \
        grep -q '^Kernel symbols: [0-9]* functions from the ksym iterator$' "$it.stderr"
    check "$g-ksyms" "kproc: -v does not say kallsyms came from /proc/kallsyms" \
        grep -q '^Kernel symbols: [0-9]* functions from /proc/kallsyms (not the ksym iterator: RETSNOOP_KALLSYMS=proc)$' \
        "$out/kproc-open-missing.stderr"
    for f in "$it" "$out/kproc-open-missing"; do
        "$WORK/bin/ksyms_dump" "$f.rsr" >"$f.allsyms" || true
        grep -v ' \[bpf\]$' "$f.allsyms" >"$f.ksyms"
        # the recorder's own programs, loaded after the kallsyms read (the
        # perf KSYMBOL watch, record/bpf_ksym_watch.c), while those of the
        # recordings before are freed, maybe at the same addresses
        check "$g-ksyms" "$(basename "$f"): the snapshot lacks the recorder's own [bpf] programs: $(grep -c ' \[bpf\]$' "$f.allsyms") [bpf] symbols" \
            sh -c "grep -q '_rs_task_exit \[bpf\]\$' '$f.allsyms' && grep -q '_rs_task_fork \[bpf\]\$' '$f.allsyms'"
    done
    check "$g-ksyms" "snapshot has no vmlinux functions: $(wc -l <"$it.ksyms") lines" \
        grep -q ' [tT] vfs_read$' "$it.ksyms"
    check "$g-ksyms" "ksym iterator and /proc/kallsyms snapshots differ: $(diff "$it.ksyms" "$out/kproc-open-missing.ksyms" | head -n 6)" \
        cmp -s "$it.ksyms" "$out/kproc-open-missing.ksyms"
}

# ---- one boot per kernel
run_kernel() {
    local major=$1 env=$KDIR/$1.env KREL KIMG KMODS VMLINUX_DBG SYSMAP modes m flag c tag
    # shellcheck disable=SC1090
    . "$env"
    local out=$WORK/$major plan=$WORK/$major.plan
    mkdir -p "$out"
    : >"$plan"
    # Mpair: -M as two kprobe.multi links where it would be one kprobe.session
    # link (@ stands for a space in a mode's flags)
    if [ "$major" = 6.12 ]; then modes="M:-M Mpair:-M@-C@bpf.kprobe-session=false K:-K F:-F"
    else modes="K:-K F:-F default:"; fi
    for m in $modes; do
        flag=${m#*:}; flag=${flag//@/ }
        for c in "${CASES[@]}"; do
            local args="$flag -e ${C_ENTRY[$c]}" g
            for g in ${C_ALLOW[$c]}; do args="$args -a $g"; done
            printf '%s|%s|%s\n' "${m%%:*}-$c" "$c" "$args" >>"$plan"
        done
    done
    # exact names (record/select_exact.c): found in kallsyms on 6.12 (-M), and
    # on 6.1 (no kprobe.multi) selected again the full way for kprobes
    if [[ " ${CASES[*]} " == *" open-missing "* ]]; then
        local ex="-e __x64_sys_openat"
        for g in ${C_ALLOW[open-missing]}; do ex="$ex -a $g"; done
        if [ "$major" = 6.12 ]; then
            printf 'M-exact|open-missing|-M -v %s\n' "$ex" >>"$plan"
        else
            printf 'default-exact|open-missing|-v %s\n' "$ex" >>"$plan"
        fi
        # the same with kallsyms from /proc/kallsyms: the snapshots compared
        printf 'kproc-open-missing|open-missing|-v %s\n' "$ex" >>"$plan"
    fi
    # one run with the bpf preset (about a thousand functions: kprobe.multi only)
    if [ "$major" = 6.12 ] && [[ " ${CASES[*]} " == *" bpf-bad-prog-load "* ]]; then
        printf '%s|%s|%s\n' "cbpf-bpf-bad-prog-load" bpf-bad-prog-load "-M -v -c bpf" >>"$plan"
    fi
    say "kernel $KREL: $(wc -l <"$plan") recordings in one boot"
    local t0=$SECONDS vrc=0
    tests/vm/vmrun -q --kernel "$KIMG" --modules "$KMODS" --timeout "${VM_E2E_TIMEOUT:-900}" \
        --add "$WORK/bin/retsnoop-record:/e2e/retsnoop-record" --add "$WORK/bin/simfail:/e2e/simfail" \
        --add tests/vm/guest-e2e.sh:/e2e/guest-e2e.sh --add "$plan":/e2e/plan \
        --out "$out" --dmesg "$WORK/$major.dmesg" --log "$WORK/$major.console" \
        -- sh /e2e/guest-e2e.sh /e2e/plan || vrc=$?
    say "kernel $KREL: VM ran $((SECONDS - t0)) s (status $vrc)"
    local G=vm-$major
    check "$G-boot" "VM status $vrc (see $WORK/$major.console)" [ "$vrc" = 0 ]
    check "$G-boot" "guest ran kernel '$(cat "$out/uname" 2>/dev/null)', wanted $KREL" \
        [ "$(cat "$out/uname" 2>/dev/null)" = "$KREL" ]
    local f
    for f in /sys/kernel/btf/vmlinux /sys/kernel/tracing/available_filter_functions; do
        check "$G-boot" "$f missing in the guest" grep -qx "present $f" "$out/features.txt"
    done
    check "$G-boot" "guest dmesg has WARNING/BUG/Oops: $(grep -aE 'WARNING:|BUG:|Oops' "$WORK/$major.dmesg" | head -n 2)" \
        sh -c "! grep -aqE 'WARNING: CPU|BUG: |Oops|general protection fault|Kernel panic' '$WORK/$major.dmesg'"

    local line fn res want sessions plainrc recrc entryres group secs
    while IFS='|' read -r tag c _; do
        group=$G-${tag%%-*}
        [ "${tag%%-*}" = cbpf ] && group=$G-cbpf
        local base=$out/$tag
        if [ ! -f "$base.rc" ]; then bad "$group" "$tag: never ran (VM died?)"; continue; fi
        recrc=$(cat "$base.rc"); plainrc=$(cat "$out/plain-$c.rc" 2>/dev/null || echo '?')
        check "$group" "$tag: retsnoop-record status $recrc, simfail alone $plainrc ($(head -c 300 "$base.stderr"))" \
            [ "$recrc" = "$plainrc" ]
        line=$(grep -m1 "^simfail: $c result=" "$base.simfail" || true)
        if [ -z "$line" ]; then bad "$group" "$tag: simfail printed no result line"; continue; fi
        want=${line##*errno=}
        if ! "$REPORT" "$base.rsr" >"$base.report" 2>"$base.report.err"; then
            bad "$group" "$tag: retsnoop-report failed: $(head -n 3 "$base.report.err")"; continue
        fi
        report_facts "$base.report" >"$base.facts"
        "$REPORT" info "$base.rsr" >"$base.info" 2>&1
        local mode_want mode_got
        case "${tag%%-*}" in
            # -M: one kprobe.session link where the kernel has it (its kfunc
            # in the guest's kallsyms, guest-e2e.sh)
            M|cbpf) mode_want=kprobe-multi
                    grep -qx 'kfunc bpf_session_is_return' "$out/features.txt" && mode_want=kprobe-session ;;
            Mpair) mode_want=kprobe-multi ;; K) mode_want=kprobe ;; F) mode_want=fentry ;;
            default) mode_want=kprobe ;;    # 6.1 has no kprobe.multi: must fall back
            kproc) mode_want=kprobe    # no mode flag: the default mode, as -M's on 6.12
                   if [ "$major" = 6.12 ]; then
                       mode_want=kprobe-multi
                       grep -qx 'kfunc bpf_session_is_return' "$out/features.txt" && mode_want=kprobe-session
                   fi ;;
        esac
        mode_got=$(sed -n 's/^Attach mode: *//p' "$base.info")
        check "$group" "$tag: attach mode '$mode_got', wanted '$mode_want'" [ "$mode_got" = "$mode_want" ]
        check "$group" "$tag: sessions dropped: $(grep 'sessions dropped' "$base.info")" \
            grep -qE '^ *sessions dropped +0$' "$base.info"
        sessions=$(awk '$1 == "SESSIONS" { print $2 }' "$base.facts")
        fn=${C_FN612[$c]}; [ "$major" = 6.1 ] && fn=${C_FN61[$c]}
        [ "$group" = "$G-cbpf" ] && fn=bpf_check
        res=${C_RES[$c]}
        secs=$(awk '{ printf "%.1f", $2 - $1 }' "$base.time" 2>/dev/null)
        if [ "$fn" = - ]; then
            check "$group" "$tag: success case, expected no session, got $sessions" [ "$sessions" = 0 ]
            continue
        fi
        check "$group" "$tag: expected 1 session, got $sessions (${secs}s)" [ "$sessions" = 1 ]
        entryres=$(awk '$1 == "ROW" { print $3; exit }' "$base.facts")
        check "$group" "$tag: entry row result $entryres, simfail said -$want" [ "$entryres" = "[-$want]" ]
        check "$group" "$tag: no '$fn [$res]' row in the report:
$(cat "$base.report")" grep -qxF "ROW $fn [$res]" "$base.facts"
    done <"$plan"

    if [ "$major" = 6.12 ] && [ -f "$out/M-exact.stderr" ]; then
        check "$G-M" "M-exact: -v says available_filter_functions was not read" \
            grep -q '^Found 5 attachable functions (exact names, from kallsyms' "$out/M-exact.stderr"
        # both forms of kprobe.multi's cookie table found the functions
        # (the rows checked above): a few functions' in the global array,
        # the bpf preset's (more than 2048 functions: a table of more than
        # 4096 slots) in the ip_cookies map
        check "$G-M" "M-exact: -v says the cookie table is the global array: $(grep 'cookie table' "$out/M-exact.stderr")" \
            grep -Eq '^The functions. cookie table by address has [0-9]+ slots: a global array\.$' "$out/M-exact.stderr"
    elif [ -f "$out/default-exact.stderr" ]; then
        check "$G-default" "default-exact: kprobes, selected through available_filter_functions" \
            grep -Eq '^Found 5 attachable functions \(of [0-9]+ traceable\); attach mode kprobe\.$' "$out/default-exact.stderr"
    fi
    if [ -f "$out/cbpf-bpf-bad-prog-load.stderr" ]; then
        local slots
        slots=$(sed -n 's/^The functions. cookie table by address has \([0-9]*\) slots: the ip_cookies map\.$/\1/p' "$out/cbpf-bpf-bad-prog-load.stderr")
        check "$G-cbpf" "cbpf: -v says the cookie table is the ip_cookies map, of more than 4096 slots: $(grep 'cookie table' "$out/cbpf-bpf-bad-prog-load.stderr")" \
            [ "${slots:-0}" -gt 4096 ]
    fi
    check_ksym_sources "$G" "$out"
    # attach/detach timings the recorder printed (-v run) and per-mode run times
    if [ -f "$out/cbpf-bpf-bad-prog-load.stderr" ]; then
        grep -hE 'Attached|detach took|DONE in' "$out/cbpf-bpf-bad-prog-load.stderr" "$out/cbpf-bpf-bad-prog-load.simfail" 2>/dev/null \
            | sed "s/^/vm: $major -c bpf: /" >&2
    fi
    for m in $modes cbpf:; do
        m=${m%%:*}
        cat "$out/$m"-*.info 2>/dev/null | awk -v k="$major" -v m="$m" '
            /^Timings:/ { a += $3; d += $6; n++ }
            /^Attach: / { f += $2 }
            END { if (n) printf "vm: %s mode %s: %d functions attached per run on average, attach %.0f ms, detach %.0f ms on average\n", k, m, f / n, a / n, d / n }' >&2
        cat "$out/$m"-*.time 2>/dev/null | awk -v k="$major" -v m="$m" \
            '{ s += $2 - $1; n++ } END { if (n) printf "vm: %s mode %s: %d recordings, %.1f s in total, %.1f s each\n", k, m, n, s, s / n }' >&2
    done
}

# ---- the harness itself: status passthrough, /out, panic and timeout handling
harness_selftest() {
    local KREL KIMG KMODS VMLINUX_DBG SYSMAP rc G=vm-harness d=$WORK/selftest
    # shellcheck disable=SC1090
    . "$KDIR/$1.env"
    mkdir -p "$d"
    rc=0; tests/vm/vmrun -q --kernel "$KIMG" --modules "$KMODS" --out "$d/out" \
        -- sh -c 'echo hello >/out/h; exit 7' 2>"$d/1.err" || rc=$?
    check $G "exit status 7 passed through as $rc" [ "$rc" = 7 ]
    check $G "/out/h did not come back" grep -qx hello "$d/out/h"
    rc=0; tests/vm/vmrun -q --kernel "$KIMG" --modules "$KMODS" \
        -- sh -c 'echo c >/proc/sysrq-trigger; sleep 30' 2>"$d/2.err" || rc=$?
    check $G "kernel crash gave status $rc, wanted 125" [ "$rc" = 125 ]
    check $G "kernel crash not reported: $(tail -n 3 "$d/2.err")" grep -q 'KERNEL PANIC' "$d/2.err"
    check $G "a crash after the command started was retried" not grep -q RETRY "$d/2.err"
    # a guest that panics while booting (no init to run) is booted once more,
    # said on stderr and counted in VMRUN_RETRY_LOG (a private one here)
    rc=0; VMRUN_RETRY_LOG=$d/retries tests/vm/vmrun -q --timeout 120 --kernel "$KIMG" --modules "$KMODS" \
        --append rdinit=/no-such-init -- true 2>"$d/4.err" || rc=$?
    check $G "boot-time panic gave status $rc, wanted 125" [ "$rc" = 125 ]
    check $G "boot-time panic not retried once: $(grep -c RETRY "$d/4.err") RETRY lines" [ "$(grep -c RETRY "$d/4.err")" = 1 ]
    check $G "boot-time retry not counted: $(cat "$d/retries" 2>/dev/null)" [ "$(wc -l <"$d/retries" 2>/dev/null)" = 1 ]
    rc=0; tests/vm/vmrun -q --timeout 15 --kernel "$KIMG" --modules "$KMODS" -- sleep 100 2>"$d/3.err" || rc=$?
    check $G "timeout gave status $rc, wanted 124" [ "$rc" = 124 ]
}

for k in $KERNELS; do
    if [ ! -f "$KDIR/$k.env" ]; then
        say "no $KDIR/$k.env: fetching the kernels (scripts/fetch-kernels.sh)"
        scripts/fetch-kernels.sh || { echo "vm-setup: 0 passed, 1 failed"; exit 1; }
    fi
    if [ ! -f "$KDIR/$k.env" ]; then say "fetch-kernels.sh wrote no $k.env"; echo "vm-$k-setup: 0 passed, 1 failed"; exit 1; fi
    if [ -z "${VM_E2E_NO_SELFTEST:-}" ] && [ -z "${SELFTEST_DONE:-}" ]; then harness_selftest "$k"; SELFTEST_DONE=1; fi
    run_kernel "$k"
done

TOTAL_F=0
for g in "${GROUPS_SEEN[@]}"; do
    echo "$g: ${PASS[$g]} passed, ${FAIL[$g]} failed"
    TOTAL_F=$((TOTAL_F + FAIL[$g]))
done
[ -z "${VM_E2E_KEEP:-}" ] || say "outputs kept in $WORK"
[ "$TOTAL_F" = 0 ]
