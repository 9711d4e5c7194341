#!/usr/bin/env bash
# insn_profile.sh - where retsnoop-record's per-call overhead goes, counted
# in guest instructions and attributed to kernel symbols and BPF programs.
# The companion of bench/record_overhead.sh: that one times (ratios to the
# floors, medians of several runs); this one counts, exactly, in one short
# VM boot (about a minute), which makes it the tool to check a change to
# the BPF side's hot path before timing it.
#
# One boot of the Debian 6.12 kernel under qemu TCG with -icount shift=0
# (1 instruction = 1 ns of guest time: the totals here are the guest-time
# costs record_overhead.sh measures) and bench/qemu_insn_plugin.c, which
# counts the instructions vCPU 0 runs per translation block. The workload,
# record_overhead.sh's (bench/bench_tool.c loop, linked at a fixed address
# here), pinned to CPU 0, runs N openat() calls (failing and succeeding
# paths) between two runs of a marker function, at which the plugin writes
# its counts; it copies /proc/kallsyms first, with the tracer attached, so
# that every block is attributed to its symbol: the kernel's functions, each
# BPF program (prog:NAME), the BPF trampolines, user space.
#
# Per path and configuration: instructions per syscall, per traced call
# (traced calls per syscall: the runs of bench/kmulti_floor.c's empty
# kprobe.multi entry and return programs, halved), the ratio to the floor of
# the same attach type (as record_overhead.sh: kprobe.session's empty
# program for -M, -M -T; the kprobe.multi pair for -M with
# bpf.kprobe-session=false; bpftrace's empty kprobes for -K, its empty
# fentry/fexit programs for -F), then the symbols that make the difference
# to that floor, per syscall and per traced call, and the sums of the BPF
# programs' part and of the rest's (with BASE, the same against BASE: the
# programs' part is exact; the rest also holds the recorder's page
# allocations on vCPU 0, which differ by up to about 15 per call from run
# to run).
#
# Counted: everything vCPU 0 runs in the window, the recorder's threads
# included when they run there (they are pinned with the workload: its
# reader, the file writer's page-cache allocations); record_overhead.sh's
# CPU time counts the workload's thread alone. A block is counted whole
# each time it starts.
#
# Usage: bench/insn_profile.sh   (env: N=1000 syscalls per window,
#        CONFIGS="M Mpair K F MT" (any of those and MA, MU), PATHS="fail ok",
#        TOP=15 symbols shown per configuration,
#        BASE=path/to/another/retsnoop-record: profiled too, as rs0-*, with
#        its difference to rs per symbol, KEEP=1 keeps the work dir (per
#        window: ksyms.K, prof/prof.(2K+1); runs lists K PATH CONFIG),
#        JIT=1 (implies KEEP=1): per window of retsnoop-record, the JIT
#        image of each of its programs (bench/jit_images.c, dumped at the
#        kallsyms copy, in the same boot) and, for each that ran, its x86
#        instructions with their executions per syscall (out/jit.K/SYMBOL.ann,
#        insn_profile_report annotate; SYMBOL: the program's kallsyms name))
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/openat_funcs.sh
. bench/openat_funcs.sh
N=${N:-1000}
[ -n "${JIT:-}" ] && KEEP=1
CONFIGS=${CONFIGS:-M Mpair K F MT}
PATHS=${PATHS:-fail ok}
TOP=${TOP:-15}
KERNELS=${RETSNOOP_KERNELS:-/opt/retsnoop-kernels}
[ -f "$KERNELS/6.12.env" ] || { echo "insn_profile: no $KERNELS/6.12.env (scripts/setup.sh)" >&2; exit 1; }
# shellcheck disable=SC1091
. "$KERNELS/6.12.env"
BPFTRACE=$(command -v bpftrace || true)
[ -n "$BPFTRACE" ] || { echo "insn_profile: bpftrace missing (scripts/setup.sh installs it)" >&2; exit 1; }
make -s build/retsnoop-record >/dev/null
WORK=$(mktemp -d)
if [ -n "${KEEP:-}" ]; then echo "insn_profile: keeping $WORK" >&2; else trap 'rm -rf "$WORK"' EXIT; fi
mkdir -p "$WORK/g" "$WORK/out" "$WORK/prof"
CC="gcc -std=gnu11 -Wall -Wextra -O2"
$CC -shared -fPIC -o "$WORK/qemu_insn_plugin.so" bench/qemu_insn_plugin.c
$CC -o "$WORK/insn_profile_report" bench/insn_profile_report.c
$CC -static -no-pie -Wl,-Ttext-segment=0x10000000 -o "$WORK/g/bench_tool" bench/bench_tool.c
$CC -static -o "$WORK/g/kmulti_floor" bench/kmulti_floor.c
if [ -n "${JIT:-}" ]; then
	command -v objdump >/dev/null || { echo "insn_profile: JIT=1 needs objdump (binutils)" >&2; exit 1; }
	$CC -o "$WORK/g/jit_images" bench/jit_images.c -lbpf
fi
MARK=$(nm "$WORK/g/bench_tool" | sed -n 's/^\([0-9a-f]*\) T rs_insn_mark$/0x\1/p')
[ -n "$MARK" ] || { echo "insn_profile: no rs_insn_mark in the workload" >&2; exit 1; }
cp build/retsnoop-record "$WORK/g/"
RSV="rs"
if [ -n "${BASE:-}" ]; then cp "$BASE" "$WORK/g/retsnoop-record.base"; RSV="rs rs0"; fi

cat >"$WORK/g/guest.sh" <<EOF
#!/bin/sh
# runs inside the VM: one window per line of /out/runs ("K PATH CONFIG")
cd "\$(dirname "\$0")"
AFF=/sys/kernel/tracing/available_filter_functions
FUNCS=""; ra=""; kp=""; kr=""; kf=""; kx=""
for f in $OPENAT_FUNCS; do
	grep -qx "\$f" \$AFF || continue
	FUNCS="\$FUNCS \$f"
	kp="\$kp\${kp:+,}kprobe:\$f"; kr="\$kr\${kr:+,}kretprobe:\$f"
	kf="\$kf\${kf:+,}kfunc:\$f"; kx="\$kx\${kx:+,}kretfunc:\$f"
	[ "\$f" = __x64_sys_openat ] || ra="\$ra -a \$f"
done
HAS_SESS=0; grep -q ' bpf_session_is_return\$' /proc/kallsyms && HAS_SESS=1
echo "sess \$HAS_SESS" >/out/kernel
P="taskset -c 0"
k=0
for path in $PATHS; do
	floors="base kmulti bt-kprobe bt-fentry"
	[ \$HAS_SESS = 1 ] && floors="\$floors ksess"
	for cfg in \$floors; do
		W="./bench_tool loop \$path $N /out/ksyms.\$k"
		case \$cfg in
		base) \$P \$W >/dev/null ;;
		kmulti) \$P ./kmulti_floor "\$FUNCS" \$W >/dev/null ;;
		ksess) \$P ./kmulti_floor -s "\$FUNCS" \$W >/dev/null ;;
		bt-kprobe) \$P bpftrace -e "\$kp { } \$kr { }" -c "\$W" >/dev/null 2>>/out/bpftrace.err ;;
		bt-fentry) \$P bpftrace -e "\$kf { } \$kx { }" -c "\$W" >/dev/null 2>>/out/bpftrace.err ;;
		esac || echo "\$path \$cfg failed" >>/out/failed
		echo "\$k \$path \$cfg" >>/out/runs
		k=\$((k + 1))
	done
	for m in $CONFIGS; do
		case \$m in M) fl=-M;; Mpair) [ \$HAS_SESS = 1 ] || continue; fl="-M -C bpf.kprobe-session=false";;
		K) fl=-K;; F) fl=-F;; MT) fl="-M -T";; MA) fl="-M -A";; MU) fl="-M -U";; *) continue;; esac
		for v in $RSV; do
			bin=./retsnoop-record; [ \$v = rs ] || bin=./retsnoop-record.base
			dump=""
			[ -x ./jit_images ] && mkdir -p /out/jit.\$k && dump="./jit_images /out/jit.\$k rs_"
			\$P \$bin \$fl -e __x64_sys_openat \$ra -o /tmp/o.rsr -- ./bench_tool loop \$path $N /out/ksyms.\$k \\
				\${dump:+"\$dump"} >/dev/null 2>>/out/rs.err || echo "\$path \$v-\$m failed" >>/out/failed
			echo "\$k \$path \$v-\$m" >>/out/runs
			k=\$((k + 1))
		done
	done
done
EOF
chmod +x "$WORK/g/guest.sh"

echo "insn_profile: one VM boot, N=$N syscalls per window; about a minute per 10 windows" >&2
tests/vm/vmrun -q --timeout 3600 --icount shift=0,sleep=off \
	--plugin "$WORK/qemu_insn_plugin.so,mark=$MARK,dir=$WORK/prof" \
	--kernel "$KIMG" --modules "$KMODS" --add "$WORK/g" \
	--add "$BPFTRACE:/usr/bin/bpftrace" --out "$WORK/out" -- "$WORK/g/guest.sh" >"$WORK/vm.log" 2>&1 || {
	tail -30 "$WORK/vm.log" >&2; echo "insn_profile: the VM run failed" >&2; exit 1; }
if [ -s "$WORK/out/failed" ]; then
	echo "insn_profile: some windows failed:" >&2; cat "$WORK/out/failed" >&2
	[ -s "$WORK/out/rs.err" ] && tail -5 "$WORK/out/rs.err" >&2
	exit 1
fi

R="$WORK/insn_profile_report"
# window K: its kallsyms copy and the plugin's second dump of it
ks() { echo "$WORK/out/ksyms.$1"; }
pf() { echo "$WORK/prof/prof.$((2 * $1 + 1))"; }
win() { awk -v p="$1" -v c="$2" '$2 == p && $3 == c { print $1 }' "$WORK/out/runs"; }
has_sess=$(awk '{print $2}' "$WORK/out/kernel")
# the floor a configuration is measured against (as record_overhead.sh's);
# nothing for a floor itself
floor_of() {
	case $1 in
	*-Mpair) echo kmulti ;;
	*-M|*-MT|*-MA|*-MU) if [ "$has_sess" = 1 ]; then echo ksess; else echo kmulti; fi ;;
	*-K) echo bt-kprobe ;;
	*-F) echo bt-fentry ;;
	esac
}

if [ -n "${JIT:-}" ]; then
	for d in "$WORK"/out/jit.*; do
		[ -d "$d" ] || continue
		k=${d##*.}
		for img in "$d"/*.bin; do
			sym=$(basename "$img" .bin)
			objdump -D -b binary -m i386:x86-64 "$img" |
				"$R" annotate "$(ks "$k")" "$(pf "$k")" "$N" "$sym" >"$d/$sym.ann" 2>/dev/null ||
				rm -f "$d/$sym.ann"
		done
	done
	echo "insn_profile: JIT=1: annotated programs in $WORK/out/jit.K/*.ann (K: the window, $WORK/out/runs)" >&2
fi
echo "instructions counted on vCPU 0 (qemu TCG, -icount shift=0: 1 instruction = 1 ns of guest time); N=$N syscalls per window"
for path in $PATHS; do
	kb=$(win "$path" base); km=$(win "$path" kmulti)
	base=$("$R" total "$(ks "$kb")" "$(pf "$kb")" "$N")
	calls=$(awk -v r="$("$R" calls "$(ks "$km")" "$(pf "$km")" "$N")" 'BEGIN { printf "%.2f", r / 2 }')
	echo
	echo "== $path: $calls traced calls per syscall (runs of the empty kprobe.multi pair, halved); untraced $base instructions per syscall"
	printf '%-6s %-14s %14s %14s %-14s %8s\n' path config insns/syscall "per call" floor ratio
	per_call() { awk -v t="$1" -v b="$base" -v c="$calls" 'BEGIN { printf "%.1f", (t - b) / c }'; }
	while read -r k p cfg; do
		[ "$p" = "$path" ] || continue
		[ "$cfg" = base ] && continue
		t=$("$R" total "$(ks "$k")" "$(pf "$k")" "$N")
		pc=$(per_call "$t")
		fl=$(floor_of "$cfg")
		if [ -n "$fl" ]; then
			kf=$(win "$path" "$fl")
			fpc=$(per_call "$("$R" total "$(ks "$kf")" "$(pf "$kf")" "$N")")
			ratio=$(awk -v a="$pc" -v b="$fpc" 'BEGIN { printf "%.2fx", a / b }')
			printf '%-6s %-14s %14s %14s %-14s %8s\n' "$path" "$cfg" "$t" "$pc" "$fl $fpc" "$ratio"
		else
			printf '%-6s %-14s %14s %14s %-14s %8s\n' "$path" "$cfg" "$t" "$pc" "-" "-"
		fi
	done <"$WORK/out/runs"
	while read -r k p cfg; do
		[ "$p" = "$path" ] || continue
		fl=$(floor_of "$cfg")
		[ -n "$fl" ] || continue
		kf=$(win "$path" "$fl")
		echo
		echo "$path $cfg minus $fl: instructions per syscall, per traced call"
		"$R" diff "$(ks "$kf")" "$(pf "$kf")" "$(ks "$k")" "$(pf "$k")" "$N" "$calls" "$TOP"
		if [ "${cfg#rs0-}" != "$cfg" ]; then
			kr=$(win "$path" "rs-${cfg#rs0-}")
			echo "$path rs-${cfg#rs0-} minus $cfg (the change): instructions per syscall, per traced call"
			"$R" diff "$(ks "$k")" "$(pf "$k")" "$(ks "$kr")" "$(pf "$kr")" "$N" "$calls" "$TOP"
		fi
	done <"$WORK/out/runs"
done
