#!/usr/bin/env bash
# record_overhead.sh - what retsnoop-record adds to every traced call, against
# bpftrace in the same VM boot (Debian 6.12 cloud kernel under qemu TCG: only
# ratios mean anything). Not a test: it reports and never fails on slowness.
#
# One boot runs, RUNS times each (interleaved), a static workload
# (bench/bench_tool.c) doing N openat() calls through a fixed set of VFS
# functions, on a failing path (ENOENT: one session emitted per call) and a
# succeeding one (nothing emitted):
#   - untraced (the base);
#   - bpftrace counting the traced calls (traced calls per syscall, counted);
#   - bpftrace with empty kprobe+kretprobe programs and empty kfunc+kretfunc
#     programs (the floors), bench/kmulti_floor.c's empty kprobe.multi entry
#     and return programs and (where the kernel has it) its one empty
#     kprobe.session program (the floors of -M's two forms), and a kprobe
#     program doing comparable entry/exit work (per-thread timestamp in a
#     map, latency and error at return);
#   - retsnoop-record -M, -M as two kprobe.multi links (Mpair: -C
#     bpf.kprobe-session=false), -K, -F, -M -T, -M -U (and -M -A once -A
#     exists); -U's bytes per session, in its records and in the compressed
#     file.
# Each measured command runs on CPU 0 (taskset), the workload timing its loop
# twice: wall time, and its thread's own CPU time (CLOCK_THREAD_CPUTIME_ID:
# its user and kernel time, so every probe run in its context, not the time
# of other tasks sharing CPU 0). The tracer's user-space side (its reader,
# compression, the work its start-up leaves to run beside the command)
# then takes CPU 0 from the workload instead of being counted in the
# workload's thread; on hardware it runs on another CPU meanwhile, and the
# recorder's CPU per session is measured apart (below). Ratios use the CPU
# time; the wall-time ratio is printed too ("x wall"). After each command
# the guest idles 2 s, so that the frees a tracer's exit leaves (maps,
# programs, links after RCU grace periods) are done before the next one.
# Overhead per traced call = (ns per syscall traced - untraced) / traced calls
# per syscall; the ratio is to the empty-probe floor of the same attach type
# (-M, -M -T, -M -A and -M -U: kprobe.session where that binary's --dry-run
# names it, else kprobe.multi; kprobe for -K, fentry for -F;
# the ratio to bpftrace's single-kprobe floor is printed too, as "x kprobe"). Medians of RUNS. Printed per mode: ns
# per syscall, ns per traced call, the floor's ns per traced call, the ratio
# and the issue's target for it (met or MISSED; -K and -M -A have none).
# Also: start-up of a one-function recording of /bin/true against bpftrace's
# one-probe start-up, the recorder's peak RSS and BPF map memory, its own
# CPU time per recorded session (-M and -M -T), which fexit template -F
# ran (a bpf_rdonly_cast template that fails to load falls back silently
# to the helper's, slower: flagged), and attach +
# detach of about 1k and 10k functions (the same globs given to both).
#
# Usage: bench/record_overhead.sh   (env: N=20000 syscalls per run, RUNS=3,
#        SIZES="1000 10000" ("" skips attach/detach), KEEP=1 keeps the work dir,
#        BASE=path/to/an/older/retsnoop-record: also measured in the same boot
#        and interleaved, as rs0-*, for an A/B comparison of a change,
#        ICOUNT=shift=0,sleep=off: qemu -icount, guest time counts
#        instructions (no host-load noise; waits such as RCU grace periods
#        are warped, so start-up and detach then count work, not waiting;
#        both vCPUs' instructions advance the one clock, so the wall time
#        of a loop counts whatever else ran meanwhile, on either CPU: the
#        recorder's reading and compressing when its 100 ms poll or 1 s
#        chunk flush lands inside the loop, the spread of the wall-time
#        ratios; a "rep movsb" counts one instruction per byte))
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/openat_funcs.sh
. bench/openat_funcs.sh
N=${N:-20000}
RUNS=${RUNS:-3}
SIZES=${SIZES-1000 10000}
KERNELS=${RETSNOOP_KERNELS:-/opt/retsnoop-kernels}
[ -f "$KERNELS/6.12.env" ] || { echo "record_overhead: no $KERNELS/6.12.env (scripts/setup.sh)" >&2; exit 1; }
# shellcheck disable=SC1091
. "$KERNELS/6.12.env"
BPFTRACE=$(command -v bpftrace || true)
[ -n "$BPFTRACE" ] || { echo "record_overhead: bpftrace missing (scripts/setup.sh installs it)" >&2; exit 1; }
make -s build/retsnoop-record build/retsnoop-report >/dev/null
WORK=$(mktemp -d)
if [ -n "${KEEP:-}" ]; then echo "record_overhead: keeping $WORK" >&2; else trap 'rm -rf "$WORK"' EXIT; fi
mkdir -p "$WORK/g" "$WORK/out"
gcc -std=gnu11 -Wall -Wextra -O2 -static -o "$WORK/g/bench_tool" bench/bench_tool.c
gcc -std=gnu11 -Wall -Wextra -O2 -static -o "$WORK/g/kmulti_floor" bench/kmulti_floor.c
cp build/retsnoop-record "$WORK/g/"
RSV="rs"
if [ -n "${BASE:-}" ]; then cp "$BASE" "$WORK/g/retsnoop-record.base"; RSV="rs rs0"; fi
HAS_A=0
# (grep without -q: under pipefail an early exit of grep -q fails the pipeline)
if build/retsnoop-record --help 2>&1 | grep -- '--capture-args' >/dev/null; then HAS_A=1; fi

cat >"$WORK/g/guest.sh" <<EOF
#!/bin/sh
# runs inside the VM; results go to /out/res as "KEY VALUE..." lines
cd "\$(dirname "\$0")"
N=$N RUNS=$RUNS HAS_A=$HAS_A RSV="$RSV"
AFF=/sys/kernel/tracing/available_filter_functions
res() { echo "\$*" >>/out/res; echo "bench: done \$*" >/dev/kmsg 2>/dev/null; }   # kmsg: what ran last, if the guest dies
# the traced set: the entry and the VFS functions of an openat that exist here
FUNCS=""
for f in $OPENAT_FUNCS; do
	grep -qx "\$f" \$AFF && FUNCS="\$FUNCS \$f"
done
res funcs \$FUNCS
# kprobe.session (its kfunc in kallsyms), and the -M form each binary uses
HAS_SESS=0; grep -q ' bpf_session_is_return\$' /proc/kallsyms && HAS_SESS=1
for v in \$RSV; do
	bin=./retsnoop-record; [ \$v = rs ] || bin=./retsnoop-record.base
	res amode \$v \$(\$bin --dry-run -M -e __x64_sys_openat 2>&1 | sed -n 's/.* attached with \([a-z-]*\)\.\$/\1/p')
done
kp=""; kr=""; kf=""; kx=""; ra=""
for f in \$FUNCS; do
	kp="\$kp\${kp:+,}kprobe:\$f"; kr="\$kr\${kr:+,}kretprobe:\$f"
	kf="\$kf\${kf:+,}kfunc:\$f"; kx="\$kx\${kx:+,}kretfunc:\$f"
	[ "\$f" = __x64_sys_openat ] || ra="\$ra -a \$f"
done
PIN="taskset -c 0"   # every measured command on CPU 0 (see the header)
bt() { \$PIN bpftrace -e "\$1" -c "\$2" 2>>/out/bpftrace.err; }
# "WALL CPU": the loop's wall and thread CPU ns per syscall; then the guest
# idles (see the header)
ns() { sed -n 's/^ns_per_syscall //p; s/^cpu_ns_per_syscall //p' | tr '\n' ' '; sleep 2; }
for path in fail ok; do
	W="./bench_tool loop \$path \$N"
	c=\$(bt "\$kp /comm == \"bench_tool\"/ { @c = count(); }" "\$W" | sed -n 's/^@c: //p')
	res calls \$path \$c
	i=0
	while [ \$i -lt \$RUNS ]; do
		res ns \$path base \$(\$PIN \$W | ns)
		res ns \$path bt-kprobe-empty \$(bt "\$kp { } \$kr { }" "\$W" | ns)
		res ns \$path bt-fentry-empty \$(bt "\$kf { } \$kx { }" "\$W" | ns)
		res ns \$path kmulti-empty \$(\$PIN ./kmulti_floor "\$FUNCS" \$W | ns)
		[ \$HAS_SESS = 1 ] && res ns \$path ksess-empty \$(\$PIN ./kmulti_floor -s "\$FUNCS" \$W | ns)
		res ns \$path bt-kprobe-work \$(bt "\$kp { @s[tid, func] = nsecs; } \$kr { \\\$d = nsecs - @s[tid, func]; delete(@s[tid, func]); if ((int64)retval < 0) { @e[func] = count(); } }" "\$W" | ns)
		for m in M Mpair K F MT MA MU; do
			case \$m in M) fl=-M;; Mpair) [ \$HAS_SESS = 1 ] || continue; fl="-M -C bpf.kprobe-session=false";;
			K) fl=-K;; F) fl=-F;; MT) fl="-M -T";; MA) [ \$HAS_A = 1 ] || continue; fl="-M -A";; MU) fl="-M -U";; esac
			for v in \$RSV; do
				[ \$m = Mpair ] && [ \$v != rs ] && continue
				bin=./retsnoop-record; [ \$v = rs ] || bin=./retsnoop-record.base
				res ns \$path \$v-\$m \$(\$PIN \$bin \$fl -e __x64_sys_openat \$ra -o /tmp/o.rsr -- \$W 2>>/out/rs.err | ns)
			done
		done
		i=\$((i + 1))
	done
done
# -U's bytes per session: the failing workload recorded with and without it
./retsnoop-record -M -e __x64_sys_openat \$ra -o /out/u0.rsr -- ./bench_tool loop fail \$N >/dev/null 2>&1
./retsnoop-record -M -U -e __x64_sys_openat \$ra -o /out/u1.rsr -- ./bench_tool loop fail \$N >/dev/null 2>&1
# start-up: a one-function recording of /bin/true vs a one-probe bpftrace
# (each followed by the idle seconds, as above: the previous tool's exit
# frees would otherwise land in the next one's start-up)
up() { ./bench_tool run "\$@" 2>/dev/null; sleep 2; }
i=0
while [ \$i -lt \$RUNS ]; do
	res startup rs \$(up ./retsnoop-record -e __x64_sys_openat -o /tmp/s.rsr -- /bin/true)
	[ "\$RSV" = rs ] || res startup rs0 \$(up ./retsnoop-record.base -e __x64_sys_openat -o /tmp/s.rsr -- /bin/true)
	res startup bt \$(up bpftrace -e 'kprobe:__x64_sys_openat { }' -c /bin/true)
	i=\$((i + 1))
done
# which fexit template -F ran (-v says when bpf_rdonly_cast's did not load
# and the helper's ran instead: a slower -F, silently in the runs above)
for v in \$RSV; do
	bin=./retsnoop-record; [ \$v = rs ] || bin=./retsnoop-record.base
	\$bin -v -F -e __x64_sys_openat \$ra -o /tmp/t.rsr -- /bin/true >/dev/null 2>/out/tmpl-\$v.err
	if grep -q 'did not load' /out/tmpl-\$v.err; then t=helper-fallback
	elif grep -q 'plain loads' /out/tmpl-\$v.err; then t=rdonly-cast; else t=helper; fi
	res tmpl \$v \$t
	# and which build of the BPF object (bpf/lean_knobs.h): the lean one
	# for the default -M, -K and -F rows, the general one with -T, -A, -U
	res obj \$v \$(sed -n 's/.* the \([a-z]*\) BPF object\..*/\1/p' /out/tmpl-\$v.err) unsaid
done
# the recorder's memory on the failing workload
res mem \$(./bench_tool run ./retsnoop-record -M -e __x64_sys_openat \$ra -o /tmp/m.rsr -- ./bench_tool loop fail \$N 2>/dev/null | grep wall_ms)
# the consumer: the recorder's own CPU time while it records the failing
# workload's sessions (system-wide by name, so that the workload is not its
# child), read from /proc/PID/task/*/schedstat (ns on a CPU, all threads)
# just before the workload and 1.5 s after it (the reader's poll timeout and
# the file's 1 s flush, so its compression counts too): the recorder's own
# start-up and detach are outside the window. Both on CPU 0, so that the
# workload's instructions are not counted as the recorder's (both vCPUs
# advance one clock). Per session recorded, -M and -M -T.
cpu_ns() { cat /proc/\$1/task/*/schedstat 2>/dev/null | awk '{ s += \$1 } END { printf "%.0f", s }'; }
for v in \$RSV; do
	bin=./retsnoop-record; [ \$v = rs ] || bin=./retsnoop-record.base
	for m in M MT; do
		fl=-M; [ \$m = MT ] && fl="-M -T"
		rm -f /tmp/c.err
		\$PIN \$bin -v \$fl -n bench_tool --duration 300 -e __x64_sys_openat \$ra -o /tmp/c.rsr >/dev/null 2>/tmp/c.err &
		RP=\$!
		i=0; while ! grep -q '^Recording ' /tmp/c.err 2>/dev/null && [ \$i -lt 600 ]; do sleep 0.1; i=\$((i + 1)); done
		t0=\$(cpu_ns \$RP)
		\$PIN ./bench_tool loop fail \$N >/dev/null
		sleep 1.5
		t1=\$(cpu_ns \$RP)
		kill -INT \$RP; wait \$RP
		res cpu \$v \$m ns \$((t1 - t0)) sessions \$(sed -n 's/^\([0-9]*\) sessions, .*/\1/p' /tmp/c.err)
	done
done
# attach + detach at about SIZE functions: whole "subsystem_" prefixes of
# leaf-ish code (nothing the tracing path itself runs), biggest first
for size in $SIZES; do
	globs=\$(grep -E '^[a-z][a-z0-9]*_[a-z0-9_]*\$' \$AFF | \\
		grep -vE '^(rcu|irq|lock|raw|spin|sched|ktime|trace|bpf|perf|ftrace|preempt|tick|hrtimer|native|kvm|x86|arch|mutex|rt|cpu|idle|timer|clock|local|smp|nmi|do|entry|syscall|context|switch|task|get|put|kmem|kfree|kmalloc|mem|page|folio|slab|alloc|free|vm|mm|text|jump|static|stack|unwind|kprobe|fprobe|is|in|console|printk|serial|uart|tty|vt|virtio|pci|ring|lru|ack|apic|x2apic|hv|xen|acpi|mce|kthread|wake|try|update|queue|work|softirq|srcu|list|rb|find|search|bsearch|should|check|set|copy|security|cgroup|css|fput|fget|file|path|dput|dentry|inode|d|iput|mnt|seq|kernfs|sysfs|proc|user|uprobe|ret|kallsyms|module|insn|poke|pv|paravirt|default|io|csd|flush|native|pvclock|kvmclock|sync|wait|signal|posix|hash|rht|xa|idr|ida|radix|refcount|percpu|pcpu|pm|dev|device|driver|bus|kobject|klist|fwnode|of|tlb|pte|pmd|pud|p4d|pgd|pfn|numa|node|zone|vma|anon|shmem|swap|writeback|wb|blk|bio|submit|block|sb|super|fs|vfs|generic|filemap|readahead|iomap|buffer|mpage|net|sock|sk|skb|dst|neigh|netif|dev)_' | \\
		sed 's/_.*/_/' | sort | uniq -c | sort -rn | \\
		awk -v want=\$size '{ if (sum < want) { sum += \$1; printf "%s ", \$2 } }')
	ra2=""; bk=""
	for g in \$globs; do ra2="\$ra2 -a \$g*"; bk="\$bk\${bk:+,}kprobe:\$g*"; done
	res globs \$size \$globs
	nbt=0; for g in \$globs; do nbt=\$((nbt + \$(bpftrace -l "kprobe:\$g*" 2>/dev/null | wc -l))); done
	./bench_tool run ./retsnoop-record -v -M -e __x64_sys_openat \$ra2 -o /tmp/a.rsr -- /bin/true >/out/att-rs-\$size.run 2>/out/att-rs-\$size.err
	res att rs \$size \$(grep wall_ms /out/att-rs-\$size.run) attached \$(sed -n 's/^Recording \([0-9]*\) functions.*/\1/p' /out/att-rs-\$size.err) \\
		attach_ms \$(sed -n 's/^Attached .* in \([0-9]*\) ms.*/\1/p' /out/att-rs-\$size.err) detach_ms \$(sed -n 's/.*detach took \([0-9]*\) ms.*/\1/p' /out/att-rs-\$size.err)
	./bench_tool run bpftrace -e "\$bk { }" -c /bin/true >/out/att-bt-\$size.run 2>/out/att-bt-\$size.err
	res att bt \$size \$(grep wall_ms /out/att-bt-\$size.run) probes \$(sed -n 's/^Attaching \([0-9]*\) probes.*/\1/p' /out/att-bt-\$size.err /out/att-bt-\$size.run | head -n 1) attached \$nbt
done
EOF
chmod +x "$WORK/g/guest.sh"
echo "record_overhead: one VM boot, N=$N syscalls per run, $RUNS runs each; this takes several minutes" >&2
tests/vm/vmrun -q --timeout 3600 ${ICOUNT:+--icount "$ICOUNT"} --kernel "$KIMG" --modules "$KMODS" --add "$WORK/g" \
	--add "$BPFTRACE:/usr/bin/bpftrace" --out "$WORK/out" -- "$WORK/g/guest.sh" || {
	echo "record_overhead: the VM run failed" >&2; exit 1; }
R=$WORK/out/res
[ -s "$R" ] || { echo "record_overhead: no results" >&2; exit 1; }

median() {  # the median of the numbers on stdin (empty when none)
	sort -n | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
# ns lines: "ns PATH CONFIG WALL CPU"; nsmed PATH CONFIG [wall]: the median
# CPU time per syscall (wall time with "wall")
nsmed() { awk -v p="$1" -v c="$2" -v f="$([ "${3:-}" = wall ] && echo 4 || echo 5)" \
	'$1 == "ns" && $2 == p && $3 == c && $f != "" { print $f }' "$R" | median; }

echo "traced set: $(sed -n 's/^funcs //p' "$R")"
# the issue's targets: ratio to the empty-probe floor of the same attach type
target() {  # PATH CONFIG -> the target ratio, or nothing
	case "$1 $2" in
	"fail rs-M") echo 2.0 ;; "fail rs-F") echo 2.5 ;; "fail rs-MT") echo 3.0 ;;
	"ok rs-M") echo 1.5 ;; "ok rs-F") echo 2.0 ;;
	esac
}
printf '%-8s %-18s %11s %14s %12s %8s %-12s %8s %10s\n' path config "ns/syscall" "ns/traced call" \
	"floor ns" "x floor" target "x wall" "x kprobe"
for path in fail ok; do
	calls=$(awk -v p=$path '$1 == "calls" && $2 == p { print $3 }' "$R")
	per=$(awk -v c="${calls:-0}" -v n="$N" 'BEGIN { if (c > 0) printf "%.2f", c / n; else print 0 }')
	echo "$path: $calls traced calls in $N syscalls = $per per syscall (counted by bpftrace)"
	has() { [ -n "$(nsmed $path "$1")" ]; }
	for cfg in base bt-kprobe-empty bt-fentry-empty kmulti-empty ksess-empty bt-kprobe-work rs-M rs0-M \
		rs-Mpair rs-K rs0-K rs-F rs0-F rs-MT rs0-MT rs-MA rs0-MA rs-MU; do
		has $cfg || continue
		# the floor of the same attach type: fentry for -F, single
		# kprobes for -K (and bpftrace's programs), kprobe.multi for -M*
		case $cfg in
		rs-F|rs0-F|bt-fentry-empty) fc="bt-fentry-empty" ;;
		rs-K|rs0-K|bt-*) fc="bt-kprobe-empty" ;;
		ksess-empty) fc="ksess-empty" ;;
		rs-Mpair|kmulti-empty) fc="kmulti-empty" ;;
		*)	# -M forms: the one that binary uses
			if [ "$(awk -v v="${cfg%%-*}" '$1 == "amode" && $2 == v { print $3 }' "$R")" = kprobe-session ] &&
			   has ksess-empty; then fc="ksess-empty"; else fc="kmulti-empty"; fi ;;
		esac
		has $fc || fc="bt-kprobe-empty"
		awk -v p=$path -v c=$cfg -v per="$per" -v t="$(target $path $cfg)" \
			-v v="$(nsmed $path $cfg)" -v b="$(nsmed $path base)" -v fl="$(nsmed $path $fc)" \
			-v vw="$(nsmed $path $cfg wall)" -v bw="$(nsmed $path base wall)" -v flw="$(nsmed $path $fc wall)" \
			-v fk="$(nsmed $path bt-kprobe-empty)" 'BEGIN {
			if (c == "base") { printf "%-8s %-18s %11.1f %14s %12s %8s %-12s %8s %10s\n", p, c, v, "-", "-", "-", "-", "-", "-"; exit }
			o = (per > 0) ? (v - b) / per : 0; fo = (per > 0) ? (fl - b) / per : 0
			ko = (per > 0) ? (fk - b) / per : 0
			r = (fo > 0) ? o / fo : -1
			rw = (flw - bw > 0) ? (vw - bw) / (flw - bw) : -1
			tt = (t == "" || r < 0) ? "-" : sprintf("<=%s %s", t, (r <= t + 0) ? "met" : "MISSED")
			printf "%-8s %-18s %11.1f %14.1f %12.1f %8s %-12s %8s %10s\n", p, c, v, o, fo,
				(r >= 0) ? sprintf("%.2fx", r) : "-", tt, (rw >= 0) ? sprintf("%.2fx", rw) : "-",
				(ko > 0) ? sprintf("%.2fx", o / ko) : "-" }'
	done
done
echo "(ns: the workload thread's own CPU time (see the header); x wall: the same ratio from wall time."
echo " floor: the empty programs of the same attach type: for -M, -M -T, -M -A, -M -U ksess-empty (one"
echo " kprobe.session program, bench/kmulti_floor.c -s) where the binary uses kprobe.session, else"
echo " kmulti-empty (kprobe.multi entry and return programs); bpftrace's kprobes for -K; its fentry for -F."
echo " x kprobe: against bpftrace's empty single kprobes whatever the attach type)"
echo "-M forms: $(awk '$1 == "amode" { printf "%s%s %s", n++ ? ", " : "", $2, $3 }' "$R")"
med_field() {  # KIND WHO FIELD: median of FIELD's value on "KIND WHO ... FIELD V" lines
	awk -v k="$1" -v w="$2" -v f="$3" '$1 == k && $2 == w { for (i = 3; i < NF; i++) if ($i == f) print $(i + 1) }' "$R" | median
}
if [ -s "$WORK/out/u1.rsr" ] && [ -s "$WORK/out/u0.rsr" ]; then   # -U: bytes per session
	build/retsnoop-report info "$WORK/out/u1.rsr" | sed -n 's/^User stacks: *\(.*\)/-U records (before compression): \1/p'
	awk -v a="$(wc -c <"$WORK/out/u1.rsr")" -v b="$(wc -c <"$WORK/out/u0.rsr")" -v n="$N" \
		'BEGIN { printf "-U file bytes per session (zstd, -M -U minus -M, %d sessions): %.0f\n", n, (a - b) / n }'
fi
rs_up=$(med_field startup rs wall_ms); bt_up=$(med_field startup bt wall_ms)
echo "start-up, one function, -- /bin/true: retsnoop-record ${rs_up} ms, bpftrace ${bt_up} ms" \
	"($(awk -v a="$rs_up" -v b="$bt_up" 'BEGIN { if (a > 0) printf "bpftrace/ours %.2fx; target: no slower than bpftrace, %s",
		b / a, (a <= b) ? "met" : "MISSED" }'))"
[ -z "${BASE:-}" ] || echo "start-up of BASE (rs0): $(med_field startup rs0 wall_ms) ms"
echo "recorder on the failing workload (-M): $(sed -n 's/^mem //p' "$R")"
awk '$1 == "tmpl" { printf "-F fexit template, %s: %s%s\n", $2, $3,
	$3 == "helper-fallback" ? " (WARNING: rs_fexit_cast did not load here; the -F rows ran the helper template)" : "" }' "$R"
awk '$1 == "obj" { printf "BPF object of the default -M, -K and -F rows, %s: %s\n", $2, $3 }' "$R"
awk '$1 == "cpu" { ns = 0; n = 0; for (i = 4; i < NF; i++) { if ($i == "ns") ns = $(i + 1); if ($i == "sessions") n = $(i + 1) }
	if (n > 0) printf "recorder CPU per recorded session, failing workload, %s: %s %.1f us (%.1f ms for %d sessions, from the schedstat of its threads)\n",
		$3 == "MT" ? "-M -T" : "-M", $2, ns / 1000 / n, ns / 1e6, n }' "$R"
for size in $SIZES; do
	rs=$(awk -v s="$size" '$1 == "att" && $2 == "rs" && $3 == s' "$R")
	bt=$(awk -v s="$size" '$1 == "att" && $2 == "bt" && $3 == s' "$R")
	echo "~$size functions ($(awk -v s="$size" '$1 == "globs" && $2 == s { print NF - 2 }' "$R") globs):"
	echo "  retsnoop-record -M: $rs"
	echo "  bpftrace:           $bt"
	echo "$rs" "$bt" | awk -v up_rs="$rs_up" -v up_bt="$bt_up" -v size="$size" '{
		for (i = 1; i < NF; i++) if ($i == "wall_ms") w[++n] = $(i + 1)
		r = (w[1] - up_rs > 0) ? (w[2] - up_bt) / (w[1] - up_rs) : 0
		if (n == 2) printf "  beyond one-function start-up: ours %.0f ms, bpftrace %.0f ms (bpftrace/ours %.2fx%s)\n",
			w[1] - up_rs, w[2] - up_bt, r, (size >= 10000) ? sprintf("; target >= 2x, %s", (r >= 2) ? "met" : "MISSED") : "" }'
done
