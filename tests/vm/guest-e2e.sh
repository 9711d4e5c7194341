#!/bin/sh
# guest-e2e.sh - runs inside the test VM (started by tests/vm/run.sh): for each
# line "TAG|CASE|RECORD ARGS" of the plan file it records one simfail case:
#   ./retsnoop-record ARGS -o /out/TAG.rsr -- ./simfail CASE
# keeping simfail's stdout, the recorder's stderr, the recorder's exit status
# and the run's duration under /out/TAG.*; each case also runs once without a
# tracer (/out/plain-CASE.*).  A TAG starting with "kproc-" records with
# RETSNOOP_KALLSYMS=proc (kallsyms from /proc/kallsyms, not the BPF ksym
# iterator).  Finally the kernel log goes to /out/dmesg.txt.
#   usage: guest-e2e.sh PLAN        (retsnoop-record and simfail next to it)
set -f      # the plan holds globs: never expand them here
cd "$(dirname "$0")" || exit 1
PLAN=${1:?usage: guest-e2e.sh PLAN}
[ -r "$PLAN" ] || { echo "guest-e2e: no plan file $PLAN" >&2; exit 1; }
up() { cut -d' ' -f1 /proc/uptime; }

uname -r >/out/uname
# readiness of the tracing features the suite relies on
{
    for f in /sys/kernel/btf/vmlinux /sys/kernel/tracing/available_filter_functions \
             /sys/kernel/tracing/kprobe_events; do
        if [ -r "$f" ]; then echo "present $f"; else echo "missing $f"; fi
    done
    # kprobe.session (-M's one-link form) exists where its kfunc does
    if grep -q ' bpf_session_is_return$' /proc/kallsyms; then echo "kfunc bpf_session_is_return"; fi
} >/out/features.txt

for c in $(cut -d'|' -f2 "$PLAN" | sort -u); do
    ./simfail "$c" >/out/plain-"$c".simfail 2>&1
    echo $? >/out/plain-"$c".rc
done

while IFS='|' read -r tag case args; do
    [ -n "$tag" ] || continue
    echo "<6>guest-e2e: $tag" >/dev/kmsg
    t0=$(up)
    ksrc=; case $tag in kproc-*) ksrc=proc ;; esac
    # shellcheck disable=SC2086  # ARGS are words on purpose
    RETSNOOP_KALLSYMS=$ksrc ./retsnoop-record $args -o /out/"$tag".rsr -- ./simfail "$case" \
        >/out/"$tag".simfail 2>/out/"$tag".stderr </dev/null
    echo $? >/out/"$tag".rc
    echo "$t0 $(up)" >/out/"$tag".time
    echo "guest-e2e: $tag status $(cat /out/"$tag".rc) ($t0 -> $(up))"
done <"$PLAN"

dmesg >/out/dmesg.txt
echo "guest-e2e: done"
