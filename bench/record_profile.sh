#!/usr/bin/env bash
# record_profile.sh - where retsnoop-record's time goes, in one VM boot of the
# 6.12 kernel (TCG: compare the numbers with each other, not with hardware).
# The companion of bench/record_overhead.sh: that one says how much, this one
# says where. Not a test: it reports, it never fails on slowness.
#
#   1. Per BPF program, with kernel.bpf_stats_enabled=1: runs and ns per run
#      (bpf_prog_info run_cnt / run_time_ns, read with bpftool while the
#      programs are attached) of retsnoop-record -M, -K, -F, -M -T and of
#      bpftrace's empty kprobe/fentry programs and its comparable-work
#      program, on the failing and the succeeding openat() path of
#      bench/bench_tool.c (the same function set as record_overhead.sh).
#   2. The cost of what start-up reads: /proc/kallsyms,
#      available_filter_functions, /sys/kernel/btf/vmlinux (wall ms of a cat).
#   3. retsnoop-record -v's start-up breakdown of a one-function recording of
#      /bin/true (median of RUNS), and a perf profile (cpu-clock, whole guest)
#      of one such start-up: the top symbols.
#
# Usage: bench/record_profile.sh   (env: N=5000 syscalls, RUNS=3, KEEP=1,
#        PARTS="progs reads startup perf" to run only some of them,
#        ICOUNT=shift=0,sleep=off: qemu -icount (see record_overhead.sh),
#        BASE=older/retsnoop-record: its programs measured too, as rs0-*)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/openat_funcs.sh
. bench/openat_funcs.sh
N=${N:-5000}
RUNS=${RUNS:-3}
PARTS=${PARTS:-progs reads startup perf}
KERNELS=${RETSNOOP_KERNELS:-/opt/retsnoop-kernels}
[ -f "$KERNELS/6.12.env" ] || { echo "record_profile: no $KERNELS/6.12.env (scripts/setup.sh)" >&2; exit 1; }
# shellcheck disable=SC1091
. "$KERNELS/6.12.env"
for t in bpftrace bpftool perf; do
	command -v $t >/dev/null || { echo "record_profile: $t missing (scripts/setup.sh installs it)" >&2; exit 1; }
done
make -s build/retsnoop-record >/dev/null
WORK=$(mktemp -d)
if [ -n "${KEEP:-}" ]; then echo "record_profile: keeping $WORK" >&2; else trap 'rm -rf "$WORK"' EXIT; fi
mkdir -p "$WORK/g" "$WORK/out"
gcc -std=gnu11 -Wall -Wextra -O2 -static -o "$WORK/g/bench_tool" bench/bench_tool.c
cp build/retsnoop-record "$WORK/g/"
RSV=rs
if [ -n "${BASE:-}" ]; then cp "$BASE" "$WORK/g/retsnoop-record.base"; RSV="rs rs0"; fi
PERF=$(command -v perf)

cat >"$WORK/g/guest.sh" <<EOF
#!/bin/sh
cd "\$(dirname "\$0")"
N=$N RUNS=$RUNS PARTS="$PARTS" RSV="$RSV"
part() { case " \$PARTS " in *" \$1 "*) return 0;; esac; return 1; }
AFF=/sys/kernel/tracing/available_filter_functions
res() { echo "\$*" >>/out/res; }
res clocksource \$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)
FUNCS=""
for f in $OPENAT_FUNCS; do
	grep -qx "\$f" \$AFF && FUNCS="\$FUNCS \$f"
done
kp=""; kr=""; kf=""; kx=""; ra=""
for f in \$FUNCS; do
	kp="\$kp\${kp:+,}kprobe:\$f"; kr="\$kr\${kr:+,}kretprobe:\$f"
	kf="\$kf\${kf:+,}kfunc:\$f"; kx="\$kx\${kx:+,}kretfunc:\$f"
	[ "\$f" = __x64_sys_openat ] || ra="\$ra -a \$f"
done
echo 1 >/proc/sys/kernel/bpf_stats_enabled
# the workload, then the programs' counters while they are still attached
part progs && for path in fail ok; do
	# w CONFIG: a script running the workload, then bpftool (bpftrace -c wants an ELF)
	w() { printf '#!/bin/sh\n./bench_tool loop %s %s >/dev/null\nbpftool prog show >/out/ps.%s.%s\n' \$path \$N \$path \$1 >w-\$1.sh; chmod +x w-\$1.sh; echo /bin/sh \$PWD/w-\$1.sh; }
	bpftrace -e "\$kp { } \$kr { }" -c "\$(w bt-kprobe-empty)" >/dev/null 2>>/out/bt.err
	bpftrace -e "\$kf { } \$kx { }" -c "\$(w bt-fentry-empty)" >/dev/null 2>>/out/bt.err
	bpftrace -e "\$kp { @s[tid, func] = nsecs; } \$kr { \\\$d = nsecs - @s[tid, func]; delete(@s[tid, func]); if ((int64)retval < 0) { @e[func] = count(); } }" \\
		-c "\$(w bt-kprobe-work)" >/dev/null 2>>/out/bt.err
	for m in M K F MT; do
		case \$m in M) fl=-M;; K) fl=-K;; F) fl=-F;; MT) fl="-M -T";; esac
		for v in \$RSV; do
			bin=./retsnoop-record; [ \$v = rs ] || bin=./retsnoop-record.base
			\$bin \$fl -e __x64_sys_openat \$ra -o /tmp/o.rsr -- \$(w \$v-\$m) 2>>/out/rs.err
		done
	done
done
echo 0 >/proc/sys/kernel/bpf_stats_enabled
# what start-up reads
part reads && for f in /proc/kallsyms \$AFF /sys/kernel/btf/vmlinux; do
	res read \$f lines \$(wc -l <\$f) \$(./bench_tool run sh -c "cat \$f >/dev/null")
done
part reads && res read /proc/kallsyms+AFF-together \$(./bench_tool run sh -c "cat /proc/kallsyms >/dev/null & cat \$AFF >/dev/null; wait")
i=0
part startup || i=\$RUNS
while [ \$i -lt \$RUNS ]; do
	res startup \$(./bench_tool run ./retsnoop-record -v -e __x64_sys_openat -o /tmp/s.rsr -- /bin/true 2>/out/su.err) \\
		\$(sed -n 's/^Start-up \([0-9]*\) ms: /total \1 /p' /out/su.err | tr -d ',.' | sed 's/ ms//g; s/file header/header/')
	res startup-bt \$(./bench_tool run bpftrace -e 'kprobe:__x64_sys_openat { }' -c /bin/true 2>/dev/null)
	i=\$((i + 1))
done
part startup && res file-size \$(wc -c </tmp/s.rsr)
part perf || exit 0
perf record -q -F 2000 -e cpu-clock -a -o /tmp/perf.data -- ./retsnoop-record -e __x64_sys_openat -o /tmp/s.rsr -- /bin/true >/dev/null 2>&1
perf report -i /tmp/perf.data --stdio --no-children --sort comm,dso,sym --percent-limit 0.7 2>/dev/null | grep -v '^#' | grep -v '^\$' >/out/perf-startup.txt
perf report -i /tmp/perf.data --stdio --no-children --sort comm --percent-limit 0.5 2>/dev/null | grep -v '^#' | grep -v '^\$' >/out/perf-comm.txt
EOF
chmod +x "$WORK/g/guest.sh"
echo "record_profile: one VM boot, N=$N syscalls per run; this takes a few minutes" >&2
tests/vm/vmrun -q --timeout 3600 ${ICOUNT:+--icount "$ICOUNT"} --kernel "$KIMG" --modules "$KMODS" --add "$WORK/g" \
	--add "$(command -v bpftrace):/usr/bin/bpftrace" --add "$(command -v bpftool):/usr/bin/bpftool" \
	--add "$PERF:/usr/bin/perf" --out "$WORK/out" -- "$WORK/g/guest.sh" || {
	echo "record_profile: the VM run failed" >&2; exit 1; }
O=$WORK/out
R=$O/res
[ -s "$R" ] || { echo "record_profile: no results" >&2; exit 1; }

echo "clocksource: $(sed -n 's/^clocksource //p' "$R")"
echo "BPF programs (kernel.bpf_stats_enabled=1; runs include the whole system while attached):"
printf '  %-5s %-18s %-22s %10s %10s\n' path config program runs "ns/run"
for f in "$O"/ps.*; do
	[ -f "$f" ] || continue
	b=${f##*/ps.}
	path=${b%%.*}
	cfg=${b#*.}
	# "ID: TYPE  name NAME  tag T  gpl run_time_ns X run_cnt Y": summed per
	# program name (fentry clones share theirs); bpftrace's per-probe names
	# are grouped by their probe type
	awk -v p="$path" -v c="$cfg" '
		/run_cnt/ {
			name = ""; rt = 0; rc = 0
			for (i = 1; i < NF; i++) {
				if ($i == "name") name = $(i + 1)
				if ($i == "run_time_ns") rt = $(i + 1)
				if ($i == "run_cnt") rc = $(i + 1)
			}
			if (name !~ /^rs_/) { sub(/_.*/, "", name); name = name "_*" }
			t[name] += rt; n[name] += rc
		}
		END { for (k in t) if (n[k] > 0) printf "  %-5s %-18s %-22s %10d %10.0f\n", p, c, k, n[k], t[k] / n[k] }' "$f"
done | sort
echo "reading at start-up (wall ms of a cat in the guest):"
awk '$1 == "read" { printf "  %-50s", $2; for (i = 3; i <= NF; i++) if ($i == "lines" || $i == "wall_ms") printf " %s %s", $i, $(i + 1); printf "\n" }' "$R"
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
field() { awk -v k="$1" -v f="$2" '$1 == k { for (i = 2; i < NF; i++) if ($i == f) print $(i + 1) }' "$R" | median; }
echo "start-up of a one-function recording of /bin/true (medians of $RUNS, ms):"
printf '  wall %s (bpftrace one probe: %s); -v breakdown:' "$(field startup wall_ms)" "$(field startup-bt wall_ms)"
for s in total checks kallsyms BTF selection probes load attach header; do
	printf ' %s %s' "$s" "$(field startup $s)"
done
printf '\n  recording size: %s bytes\n' "$(sed -n 's/^file-size //p' "$R")"
if [ -f "$O/perf-comm.txt" ]; then
	echo "perf, one start-up (cpu-clock, whole guest), by command:"
	sed 's/^/  /' "$O/perf-comm.txt"
	echo "perf, top symbols:"
	head -n 40 "$O/perf-startup.txt" | sed 's/^/  /'
fi
