#!/usr/bin/env bash
# scenarios.sh - VM end-to-end checks of session semantics and the live tool
# on a real kernel (Debian 6.12 cloud in qemu): -T traces, -S success
# stacks, -L duration filter, stitching (⌇), a ring-buffer flood whose drops
# are counted, the LBR-unavailable path, a thread exiting mid-session, a
# thread moving CPU between and inside its sessions (tests/cpu_hop), and
# live `retsnoop` output equal to retsnoop-report of the same run, -I interim
# snapshots, depth overflow, and the record-time -n/-N/-p/-P filters on a
# recorder started without -- CMD; the stack view's frame order in the
# three attach modes, fentry's BPF frames, a BPF helper's error.
# One boot runs every scenario; checks run on the host.
# Prints "vm-scenarios: N passed, N failed"; exits non-zero on failure.
set -u
cd "$(dirname "$0")/../.."
ROOT=$PWD
# shellcheck source=tests/vm/suite_lib.sh
. "$ROOT/tests/vm/suite_lib.sh"
suite_begin vm-scenarios retsnoop-record retsnoop simfail cpu_hop
BPF_GLOBS='-e *sys_bpf -a __sys_bpf -a map_create -a array_map_* -a bpf_map_* -a bpf_prog_load -a bpf_check'
ORDER_GLOBS="-e *sys_write -e *sys_bpf -a ksys_write -a vfs_write -a pipe_write -a __sys_bpf -a bpf_prog_load -a bpf_check -a do_check* -a sk_filter_func_proto -a bpf_sk_base_func_proto -a bpf_base_func_proto"
cat >"$WORK/g/guest.sh" <<EOF
#!/bin/sh
cd "\$(dirname "\$0")"
R=./retsnoop-record
run() { name=\$1; shift; "\$@" >/out/\$name.out 2>/out/\$name.err; echo \$? >/out/\$name.rc; }
# -T on several cases
for c in bpf-bad-map-max-entries-array bpf-bad-map-key-size-array bpf-bad-prog-load open-missing; do
	case \$c in open-*) g='-e *sys_openat -a do_sys_openat2 -a do_filp_open -a path_openat -a getname*';;
	*) g='$BPF_GLOBS';; esac
	run trace-\$c \$R -T -E \$g -o /out/trace-\$c.rsr -- ./simfail \$c
done
# -S: a successful session is kept
run success \$R -S $BPF_GLOBS -o /out/success.rsr -- ./simfail bpf-simple-map
# -L: a 1.5 s sleep is kept with -L 1000 and dropped with -L 3000
export SIMFAIL_SLEEP_MS=1500
run long-keep \$R -S -L 1000 -e '*sys_nanosleep' -e '*sys_clock_nanosleep' -a 'hrtimer_nanosleep' -a 'do_nanosleep' -o /out/long-keep.rsr -- ./simfail syscall-long-sleep
run long-drop \$R -S -L 3000 -e '*sys_nanosleep' -e '*sys_clock_nanosleep' -a 'hrtimer_nanosleep' -a 'do_nanosleep' -o /out/long-drop.rsr -- ./simfail syscall-long-sleep
# stitching: with the bpf preset the failed allocation is followed by cleanup calls
run stitch \$R -c bpf -o /out/stitch.rsr -- ./simfail bpf-bad-map-val-size-percpu-array
# -I: the failed allocation is followed by cleanup calls that overwrite the
# deeper frames, so an interim snapshot is emitted before the final stack
run interim \$R -I -c bpf -o /out/interim.rsr -- ./simfail bpf-bad-map-val-size-percpu-array
# depth overflow: only 2 nested calls tracked; deeper ones are counted, and
# the returns of untracked calls do not disturb the tracked frames
run depth \$R -C bpf.max-depth=2 $BPF_GLOBS -o /out/depth.rsr -- ./simfail bpf-bad-map-val-size-percpu-array
# ring-buffer flood: the smallest ring buffer and a full trace of the verifier
run flood \$R -T -c bpf -C bpf.ringbuf-size=4096 -o /out/flood.rsr -- ./simfail bpf-bad-prog-load
# LBR is unavailable under TCG: said in one line, recorded in the file, not fatal
run lbr \$R -B $BPF_GLOBS -o /out/lbr.rsr -- ./simfail bpf-bad-map-max-entries-array
# -a/-d globs that select nothing are said (with the reason), -v counts each
# glob; an -a glob matching only entry functions is no problem (-v says so)
run globs \$R -v $BPF_GLOBS -a 'nomatch_xyz_*' -d 'nomatch_deny_*' -a '__x64_sys_bp*' -o /out/globs.rsr -- ./simfail bpf-bad-map-max-entries-array
# -- CMD is found along PATH before the fork: the command's one execve is
# its own, no failing execve for each PATH entry before the one it is in
run spawn env PATH=/nonexistent-a:/nonexistent-b:/bin:/usr/bin:/sbin:/usr/sbin \$R -e '*sys_execve' -a 'do_execveat_common*' -a alloc_bprm -a do_open_execat -o /out/spawn.rsr -- true
# the live tool traces system-wide with -S on write(): its own writes of
# what it prints are not sessions (else each printed session would make
# another, without end); a shell's writes are: 16 of them, every half
# second of the tool's 9 s, so that 6 or more come after its start-up
# however long that takes under load (a slow start once missed the first
# of 6 writes a second apart)
(i=0; while [ \$i -lt 16 ]; do sleep 0.5; echo x >/dev/null; i=\$((i + 1)); done) &
run self timeout -s INT 9 ./retsnoop -S -e '*sys_write' -a ksys_write -a vfs_write
wait
# the same naming itself with -p: each printed session makes another, as
# fast as they are read; Ctrl-C still stops it (KILL 30 s later if not)
timeout -k 30 -s INT 6 sh -c 'exec ./retsnoop -p \$\$ -S -e "*sys_write" -a ksys_write -a vfs_write' >/dev/null 2>/out/selfp.err; echo \$? >/out/selfp.rc
# a thread that exits inside a traced call never returns: its session is freed
run exit \$R -e '*sys_exit_group' -a do_group_exit -a do_exit -o /out/exit.rsr -- sh -c 'exit 3'
# session slots (-C bpf.sessions-size, plus one per possible CPU): with one,
# each simfail's exit_group session ends with its thread (the slot given
# back at the exit), and the next simfail's failing openat still gets one;
# two more sleeps at once than there are slots: two find none; two sleeps
# fit in two
run slots-reuse \$R -C bpf.sessions-size=1 -e '*sys_exit_group' -e '*sys_openat' -a do_sys_openat2 -a do_exit \\
	-o /out/slots-reuse.rsr -- sh -c './simfail open-missing; ./simfail open-missing; ./simfail open-missing'
SLEEPS='-S -e *sys_nanosleep -e *sys_clock_nanosleep -a hrtimer_nanosleep -a do_nanosleep'
export NSLEEP=\$((\$(cut -d- -f2 /sys/devices/system/cpu/possible) + 4))
echo \$NSLEEP >/out/slots-full.n
run slots-full \$R -C bpf.sessions-size=1 \$SLEEPS -o /out/slots-full.rsr -- \\
	sh -c 'i=0; while [ \$i -lt \$NSLEEP ]; do ./simfail syscall-long-sleep & i=\$((i + 1)); done; wait'
run slots-two \$R -C bpf.sessions-size=2 \$SLEEPS -o /out/slots-two.rsr -- \\
	sh -c './simfail syscall-long-sleep & ./simfail syscall-long-sleep; wait'
# one thread from CPU to CPU (the per-CPU session cache): two failing
# openats on one CPU, then a sched_setaffinity that moves it to the next
# inside the syscall, 40 rounds; -S shows the moves' sessions; one slot
# (plus one per CPU) so that slots are reused too
run hop \$R -S -C bpf.sessions-size=1 -e '*sys_openat' -e '*sys_sched_setaffinity' -a do_sys_openat2 \\
	-a getname_flags -a sched_setaffinity -a '__set_cpus_allowed_ptr*' -a affine_move_task \\
	-o /out/hop.rsr -- ./cpu_hop 40
# live tool with -o: rendered output equals the report of the written file
run live ./retsnoop -c bpf -o /out/live.rsr -- ./simfail bpf-bad-map-val-size-percpu-array
# record-time process filters (-n/-N/-p/-P) on a recorder started without
# -- CMD: two workloads, one of them excluded by each filter
cp ./simfail ./simother
wait_for() {  # FILE PATTERN: until a line of FILE matches, at most 120 s
	i=0; while ! grep -q "\$2" "\$1" 2>/dev/null && [ \$i -lt 1200 ]; do sleep 0.1; i=\$((i + 1)); done
}
bg_rec() {  # NAME FLAGS...: start a recorder, return once it is recording
	name=\$1; shift
	\$R "\$@" $BPF_GLOBS -o /out/\$name.rsr >/out/\$name.out 2>/out/\$name.err &
	echo \$! >/out/\$name.recpid
	wait_for /out/\$name.err '^Recording '
}
stop_rec() { p=\$(cat /out/\$1.recpid); kill -INT \$p; wait \$p; echo \$? >/out/\$1.rc; }
gated() {   # a process that becomes ./simfail CASE once ./go exists (exec keeps its PID)
	rm -f ./go
	(while [ ! -f ./go ]; do sleep 0.05; done; exec ./simfail "\$1") &
	GATED=\$!
}
bg_rec comm -n simfail
./simfail bpf-bad-map-max-entries-array; ./simother bpf-bad-map-key-size-array
stop_rec comm
bg_rec nocomm -N simfail
./simfail bpf-bad-map-max-entries-array; ./simother bpf-bad-map-key-size-array
stop_rec nocomm
# -n/-N globs, matched in the BPF program (bpf/comm_glob.h); -n @FILE
printf '# allowed\\nsimf*\\n' >./comms
bg_rec commglob -n @./comms
./simfail bpf-bad-map-max-entries-array; ./simother bpf-bad-map-key-size-array
stop_rec commglob
bg_rec nocommglob -N '*oth?r'
./simfail bpf-bad-map-max-entries-array; ./simother bpf-bad-map-key-size-array
stop_rec nocommglob
bg_rec commmix -n 'sim*' -N 'simo*'
./simfail bpf-bad-map-max-entries-array; ./simother bpf-bad-map-key-size-array
stop_rec commmix
# the most globs there can be (64 -n, 64 -N): the programs still load
i=1; : >./n64; : >./N64
while [ \$i -le 64 ]; do
	[ \$i -lt 64 ] && echo "g\${i}x*" >>./n64; echo "*h\${i}?y" >>./N64; i=\$((i + 1))
done
bg_rec maxglobs -n @./n64 -n 'simf*' -N @./N64
./simfail bpf-bad-map-max-entries-array; ./simother bpf-bad-map-key-size-array
stop_rec maxglobs
gated bpf-bad-map-max-entries-array; echo \$GATED >/out/pid.target
bg_rec pid -p \$GATED
touch ./go; wait \$GATED; ./simother bpf-bad-map-key-size-array
stop_rec pid
gated bpf-bad-map-max-entries-array; echo \$GATED >/out/nopid.target
bg_rec nopid -P \$GATED
touch ./go; wait \$GATED; ./simother bpf-bad-map-key-size-array
stop_rec nopid
# Ctrl-C during a long attach (-K, the whole bpf preset): stop attaching,
# detach what was attached, finish the file
\$R -v -K -c bpf -o /out/early.rsr >/out/early.out 2>/out/early.err &
p=\$!
wait_for /out/early.err '^Found '
sleep 3
kill -INT \$p; wait \$p; echo \$? >/out/early.rc
# issue 11: the stack view in each attach mode (a tail call and returned
# lookups), fentry's BPF frames, a BPF helper's error
for m in M K F; do
	run order-\$m \$R -\$m $ORDER_GLOBS -o /out/order-\$m.rsr -- sh -c './simfail pipe-write-no-reader; ./simfail bpf-prog-bad-helper'
done
run helper \$R -c bpf -S -T -o /out/helper.rsr -- ./simfail bpf-skb-load-bytes-bad
# missed probes per attach link: get_perf_callchain runs only inside
# retsnoop's program (the stack capture), so its kprobes always miss
run linkmiss \$R -K $BPF_GLOBS -a get_perf_callchain -o /out/linkmiss.rsr -- ./simfail bpf-bad-map-val-size-percpu-array
run linkmiss-live ./retsnoop -K $BPF_GLOBS -a get_perf_callchain -- ./simfail bpf-bad-map-val-size-percpu-array
# exact names (record/select_exact.c): found in kallsyms without reading
# available_filter_functions; the same recording as the globs naming the
# same two functions (full path)
run exact \$R -v -e __x64_sys_openat -a do_sys_openat2 -o /out/exact.rsr -- ./simfail open-missing
run exactglob \$R -v -e '__x64_sys_opena?' -a 'do_sys_opena?2' -o /out/exactglob.rsr -- ./simfail open-missing
# a kallsyms function ftrace cannot trace (not listed, unique, no alias):
# kprobe.multi refuses it, and the full path says so in its usual words
NT=\$(awk 'NR == FNR { aff[\$1] = 1; next }
	\$2 ~ /^[tTwW]\$/ && NF == 3 { n[\$3]++; a[\$3] = \$1; c[\$1]++; if (n[\$3] == 1) o[++k] = \$3 }
	END { for (i = 1; i <= k; i++) { s = o[i]
		if (n[s] == 1 && c[a[s]] == 1 && !(s in aff) && s ~ /^[a-z][a-z0-9_]*\$/ && s !~ /bpf|rcu|preempt|migrate|lock/) { print s; exit } } }' \
	/sys/kernel/tracing/available_filter_functions /proc/kallsyms)
echo "\$NT" >/out/notrace.name
run notrace \$R -e "\$NT" -o /out/notrace.rsr -- true
run notrace-K \$R -K -e "\$NT" -o /out/notrace-K.rsr -- true
run notrace-v \$R -v -e "\$NT" -o /out/notrace-v.rsr -- true
run notrace-a \$R -v -e __x64_sys_openat -a "\$NT" -o /out/notrace-a.rsr -- ./simfail open-missing
# a function single kprobes cannot attach (on the kprobe blacklist, yet in
# available_filter_functions): -K records the rest, and says so without -v
KB=\$(awk 'NR == FNR { b[\$2] = 1; next } (\$1 in b) && \$1 ~ /^[a-z][a-z0-9_]*\$/ { print \$1; exit }' \
	/sys/kernel/debug/kprobes/blacklist /sys/kernel/tracing/available_filter_functions)
echo "\$KB" >/out/attachfail.name
run attachfail \$R -K -e __x64_sys_openat -a "\$KB" -o /out/attachfail.rsr -- ./simfail open-missing
run attachfail-v \$R -K -v -e __x64_sys_openat -a "\$KB" -o /out/attachfail-v.rsr -- ./simfail open-missing
# more possible CPUs than the BPF side keeps per-CPU state for
# (RS_MAX_CPUS): refused in one line, not traced with CPUs sharing state
echo 0-8192 >/tmp/possible
if mount --bind /tmp/possible /sys/devices/system/cpu/possible; then
	run manycpus \$R -e __x64_sys_openat -o /out/manycpus.rsr -- true
	umount /sys/devices/system/cpu/possible
fi
dmesg >/out/dmesg
EOF
chmod +x "$WORK/g/guest.sh"

boot_guest 900
rep()  { TZ=UTC "$WORK/retsnoop-report" "$@" 2>/dev/null; }

# -T: arrows balance, entry row result = syscall errno, durations grow outward
for c in bpf-bad-map-max-entries-array bpf-bad-map-key-size-array bpf-bad-prog-load open-missing; do
	f=$OUT/trace-$c.rsr
	[ -f "$f" ] || { bad "trace $c: no recording ($(cat "$OUT/trace-$c.err" 2>/dev/null | head -2))"; continue; }
	txt=$(rep -T "$f")
	txt_all=$(rep "$f")
	errno=$(sed -n 's/.*errno=\([A-Z0-9]*\).*/\1/p' "$OUT/trace-$c.out")
	n_in=$(grep -c '→' <<<"$txt"); n_out=$(grep -c '←' <<<"$txt")
	check "trace $c: $n_in entries balance $n_out exits" [ "$n_in" -gt 0 ] && [ "$n_in" = "$n_out" ]
	last_exit=$(grep '^← ' <<<"$txt" | tail -1)
	check "trace $c: entry function returns -$errno" grep -q -- "\[-$errno\]" <<<"$last_exit"
	# every exit's duration is >= the durations of the rows nested inside it
	depth_ok=$(printf '%s\n' "$txt" | awk '
		/(←|↔) / {
			ind = match($0, /[^ ]/) - 1
			if (match($0, /[0-9]+\.[0-9]+us *$/)) dur = substr($0, RSTART, RLENGTH) + 0; else next
			for (k in best) if (k + 0 > ind && best[k] > dur + 0.001) { bad = 1 }
			if (dur > best[ind]) best[ind] = dur
			for (k in best) if (k + 0 > ind) delete best[k]
		}
		END { print bad ? "no" : "yes" }')
	check "trace $c: durations are monotone with nesting" [ "$depth_ok" = yes ]
	check "trace $c: stack view shows the entry row with -$errno" grep -Eq -- "\[-$errno\] +__x64_sys_" <<<"$txt_all"
done

# -S: exactly one successful session whose entry returned the map fd (>= 0)
txt=$(rep "$OUT/success.rsr")
check "success: one session" [ "$(grep -c 'TID/PID' <<<"$txt")" = 1 ]
check "success: entry result is a non-negative fd" grep -Eq '\[[0-9]+\] +__x64_sys_bpf' <<<"$txt"

# -L
check "long sleep kept with -L 1000" [ "$(rep "$OUT/long-keep.rsr" | grep -c 'TID/PID')" = 1 ]
check "long sleep dropped with -L 3000" [ "$(rep "$OUT/long-drop.rsr" | grep -c 'TID/PID')" = 0 ]

# stitching
txt=$(rep "$OUT/stitch.rsr")
check "stitch: stitched frames are marked ⌇" grep -q '⌇' <<<"$txt"
check "stitch: the entry function still fails with -ENOMEM" grep -Eq '\[-ENOMEM\] +__x64_sys_bpf' <<<"$txt"

# -I: an interim snapshot ([...] rows of unfinished calls) precedes the final stack
txt=$(rep "$OUT/interim.rsr")
n=$(grep -c 'TID/PID' <<<"$txt")
check "interim: interim snapshot plus final session ($n sessions)" [ "$n" -ge 2 ]
check "interim: unfinished frames shown as [...]" grep -q '\[\.\.\.\]' <<<"$txt"
check "interim: the final session fails with -ENOMEM" grep -Eq '\[-ENOMEM\] +__x64_sys_bpf' <<<"$txt"
check "interim: info counts interim records" grep -Eq '[1-9][0-9]* interim' <<<"$(rep info "$OUT/interim.rsr")"

# depth overflow
info=$(rep info "$OUT/depth.rsr")
ov=$(awk '/depth overflows/ { print $3 }' <<<"$info")
mm=$(awk '/exit mismatches/ { print $3 }' <<<"$info")
check "depth: calls beyond -C bpf.max-depth=2 are counted (${ov:-none})" [ "${ov:-0}" -gt 0 ]
check "depth: no exit mismatches from untracked returns (${mm:-none})" [ "${mm:-x}" = 0 ]
txt=$(rep "$OUT/depth.rsr")
check "depth: one session, entry fails with -ENOMEM" [ "$(grep -c 'TID/PID' <<<"$txt")" = 1 ] && grep -Eq '\[-ENOMEM\] +__x64_sys_bpf' <<<"$txt"
check "depth: the report warns about untracked nested calls" grep -q 'nested call(s) beyond the tracked depth' <<<"$txt"
G=$OUT/globs.err
check "globs: recording still made (exit $(cat "$OUT/globs.rc"))" [ "$(cat "$OUT/globs.rc")" = 0 ]
check "globs: an -a glob matching nothing is said, with why" \
	grep -q "^retsnoop-record: warning: allow glob 'nomatch_xyz_\*' matches no kernel function: not in kallsyms.*; ignored\$" "$G"
check "globs: a -d glob matching nothing is said" \
	grep -q "^retsnoop-record: warning: deny glob 'nomatch_deny_\*' matches no traceable function: it denies nothing\$" "$G"
n=$(sed -n "s/^retsnoop-record: allow glob 'array_map_\*' selected \([0-9]*\) function(s)\$/\1/p" "$G")
check "globs: -v counts what each glob selected (array_map_*: ${n:-none})" [ "${n:-0}" -gt 0 ]
check "globs: an -a glob matching only an entry function is no warning" \
	bash -c '! grep -q "warning: allow glob .__x64_sys_bp" "$1"' _ "$G"
check "globs: -v says it selected nothing besides that entry function" \
	grep -q "^retsnoop-record: allow glob '__x64_sys_bp\*' selected no function besides the 1 entry function(s) it matches\$" "$G"
n=$(grep -c 'TID/PID' "$OUT/self.out")
check "self: the workload's writes were shown ($n sessions, 6 at least of its 16)" [ "$n" -ge 6 ]
check "self: none of the live tool's own" bash -c '! grep -q "(retsnoop/retsnoop)" "$1"' _ "$OUT/self.out"
check "self: -p naming itself floods, and Ctrl-C still ends it (exit $(cat "$OUT/selfp.rc"), not 137: killed)" \
	[ "$(cat "$OUT/selfp.rc")" = 0 ]
check "self: it detached and finished" grep -q '^DONE in' "$OUT/selfp.err"
check "spawn: -- true along a PATH with two missing entries: recorded (exit $(cat "$OUT/spawn.rc"))" [ "$(cat "$OUT/spawn.rc")" = 0 ]
check "spawn: no failing execve from the PATH search" \
	grep -q '^Records: .* 0 session(s) (0 failed' <<<"$(rep info "$OUT/spawn.rsr")"
check "depth: map_create (depth 3) is not a tracked frame" bash -c '! grep -Eq "\[-ENOMEM\] +map_create" <<<"$1"' _ "$txt"

# flood: drops are counted in the trailer and shown, never silent
info=$(rep info "$OUT/flood.rsr")
drops=$(awk '/records dropped/ { print $3 }' <<<"$info")
check "flood: ring buffer drops counted (${drops:-none})" [ "${drops:-0}" -gt 0 ]
txt=$(TZ=UTC "$WORK/retsnoop-report" -T "$OUT/flood.rsr" 2>&1)   # the drop table is on stderr
check "flood: the report shows the loss" grep -Eq 'missing|WARNING|dropped' <<<"$txt"

# record-time process filters: each keeps one workload and removes the other
heads() { rep "$OUT/$1.rsr" | grep 'TID/PID'; }
for f in comm nocomm commglob nocommglob commmix maxglobs pid nopid; do
	check "$f: recorder stopped cleanly by SIGINT" [ "$(cat "$OUT/$f.rc" 2>/dev/null)" = 0 ]
done
h=$(heads comm)
check "-n simfail: keeps simfail" grep -q '(simfail/simfail)' <<<"$h"
check "-n simfail: removes simother" bash -c '! grep -q simother <<<"$1"' _ "$h"
h=$(heads nocomm)
check "-N simfail: keeps simother" grep -q '(simother/simother)' <<<"$h"
check "-N simfail: removes simfail" bash -c '! grep -q "(simfail/" <<<"$1"' _ "$h"
h=$(heads commglob)
check "-n @FILE with 'simf*': keeps simfail" grep -q '(simfail/simfail)' <<<"$h"
check "-n @FILE with 'simf*': removes simother" bash -c '! grep -q simother <<<"$1"' _ "$h"
h=$(heads nocommglob)
check "-N '*oth?r': keeps simfail" grep -q '(simfail/simfail)' <<<"$h"
check "-N '*oth?r': removes simother" bash -c '! grep -q simother <<<"$1"' _ "$h"
h=$(heads commmix)
check "-n 'sim*' -N 'simo*': keeps simfail" grep -q '(simfail/simfail)' <<<"$h"
check "-n 'sim*' -N 'simo*': removes simother" bash -c '! grep -q simother <<<"$1"' _ "$h"
h=$(heads maxglobs)
check "128 -n/-N globs: keeps simfail" grep -q '(simfail/simfail)' <<<"$h"
check "128 -n/-N globs: removes simother" bash -c '! grep -q simother <<<"$1"' _ "$h"
tp=$(cat "$OUT/pid.target" 2>/dev/null)
h=$(heads pid)
check "-p PID: keeps that process (${tp:-?})" grep -q "TID/PID $tp/$tp (simfail/simfail)" <<<"$h"
check "-p PID: removes the other process" bash -c '! grep -q simother <<<"$1"' _ "$h"
tp=$(cat "$OUT/nopid.target" 2>/dev/null)
h=$(heads nopid)
check "-P PID: keeps the other process" grep -q '(simother/simother)' <<<"$h"
check "-P PID: removes that process (${tp:-?})" bash -c '! grep -q "TID/PID $2/" <<<"$1"' _ "$h" "$tp"

# SIGINT during attach
check "early stop: exit 0 after SIGINT during attach ($(tail -1 "$OUT/early.err" 2>/dev/null))" [ "$(cat "$OUT/early.rc" 2>/dev/null)" = 0 ]
info=$(rep info "$OUT/early.rsr")
check "early stop: the file is complete" grep -q 'Integrity: *complete' <<<"$info"
att=$(awk '/^Attach:/ { print $2 }' <<<"$info"); tot=$(awk '/^Traced functions:/ { print $3 }' <<<"$info")
check "early stop: attaching stopped early (${att:-?} of ${tot:-?})" [ "${att:-0}" -lt "${tot:-0}" ]

# LBR unavailable
check "lbr: recorder says why LBR is unavailable" grep -q 'LBR (-B) unavailable' "$OUT/lbr.err"
why_con=$(sed -n 's/.*LBR (-B) unavailable: \(.*\); recording continues without it$/\1/p' "$OUT/lbr.err")
why_info=$(rep info "$OUT/lbr.rsr" | sed -n 's/^LBR: .*, not captured: //p')
check "lbr: the reason is whole (${#why_con} chars, ends '${why_con: -12}')" [ "${#why_con}" -gt 127 ] && [ "${why_con: -1}" = ")" ]
check "lbr: info shows the same whole reason as the console" [ -n "$why_info" ] && [ "$why_info" = "$why_con" ]
check "lbr: recording still succeeded" [ "$(cat "$OUT/lbr.rc")" = 0 ] && [ "$(rep "$OUT/lbr.rsr" | grep -c 'TID/PID')" = 1 ]

# thread exit mid-session
check "exit: the command's status (3) is passed through" [ "$(cat "$OUT/exit.rc")" = 3 ]
exited=$(rep info "$OUT/exit.rsr" | awk '/sessions exited/ { print $3 }')
check "exit: the session of the exiting thread is counted, not leaked (${exited:-none})" [ "${exited:-0}" -ge 1 ]

# session slots
info=$(rep info "$OUT/slots-reuse.rsr")
full=$(awk '/sessions table full/ { print $4 }' <<<"$info")
exited=$(awk '/sessions exited/ { print $3 }' <<<"$info")
n=$(rep "$OUT/slots-reuse.rsr" | grep -c -- '\[-ENOENT\] *__x64_sys_openat')
check "slots: one slot serves 3 failing openats between exiting threads ($n shown, ${exited:-?} exited, ${full:-?} full)" \
	[ "$n" -ge 3 ] && [ "${full:-x}" = 0 ] && [ "${exited:-0}" -ge 3 ]
info=$(rep info "$OUT/slots-full.rsr")
full=$(awk '/sessions table full/ { print $4 }' <<<"$info")
n=$(rep "$OUT/slots-full.rsr" | grep -c 'TID/PID')
want=$(cat "$OUT/slots-full.n" 2>/dev/null)
check "slots: $want sleeps at once, two more than the slots: those without one are counted (${full:-?} full, $n shown)" \
	[ "${full:-0}" -ge 2 ] && [ $((n + ${full:-0})) = "${want:-x}" ]
check "slots: the drop table says so" grep -q '^SESSIONS TABLE FULL: *[1-9]' <<<"$(TZ=UTC "$WORK/retsnoop-report" "$OUT/slots-full.rsr" 2>&1)"
info=$(rep info "$OUT/slots-two.rsr")
full=$(awk '/sessions table full/ { print $4 }' <<<"$info")
n=$(rep "$OUT/slots-two.rsr" | grep -c 'TID/PID')
check "slots: two slots hold both sleeps ($n shown, ${full:-?} full)" [ "${full:-x}" = 0 ] && [ "$n" = 2 ]

# a thread changing CPU between its sessions and inside one: every session
# found its end, none was lost or mixed up
info=$(rep info "$OUT/hop.rsr")
txt=$(rep "$OUT/hop.rsr")
tid=$(sed -n 's/.*TID\/PID \([0-9]*\)\/.*(cpu_hop\/cpu_hop).*/\1/p' <<<"$txt" | sort -u)
nopen=$(grep -c -- '\[-ENOENT\] *__x64_sys_openat' <<<"$txt")
nmove=$(grep -Ec -- '\[0\] +__x64_sys_sched_setaffinity' <<<"$txt")
mm=$(awk '/exit mismatches/ { print $3 }' <<<"$info")
inc=$(awk '/sessions incomplete/ { print $3 }' <<<"$info")
full=$(awk '/sessions table full/ { print $4 }' <<<"$info")
check "hop: the workload ran ($(cat "$OUT/hop.out" 2>/dev/null))" grep -q '^cpu_hop: 40 rounds, 80 failed opens, 40 moves' "$OUT/hop.out"
check "hop: 80 failing openats shown, each once ($nopen)" [ "$nopen" = 80 ]
check "hop: 40 sessions that moved CPU inside shown ($nmove)" [ "$nmove" = 40 ]
check "hop: all of one thread (${tid//$'\n'/ })" [ "$(wc -w <<<"$tid")" = 1 ]
check "hop: no exit mismatch, incomplete session or full table (${mm:-?} ${inc:-?} ${full:-?})" \
	[ "${mm:-x}" = 0 ] && [ "${inc:-x}" = 0 ] && [ "${full:-x}" = 0 ]

# live output == report of the written file
# the command's own stdout (simfail: ...) shares the terminal with the live view
live=$(grep -v -e '^Receiving data\.\.\.$' -e '^simfail: ' "$OUT/live.out")
check "live: rendered a session" grep -q 'TID/PID' <<<"$live"
check "live: output identical to retsnoop-report of its recording" \
	diff <(printf '%s\n' "$live") <(printf '%s\n' "$(rep "$OUT/live.rsr")")

# frame order: every mode keeps the rule and the modes agree; fentry shows
# no BPF frame or raw address unless stacks.unfiltered, which marks them
ROWS=$ROOT/tests/golden/stack_rows.py
for m in M K F; do
	rep "$OUT/order-$m.rsr" >"$WORK/order-$m.txt"
	check "order -$m: two failing sessions (EPIPE, EINVAL) recorded" \
		[ "$(grep -c 'TID/PID' "$WORK/order-$m.txt")" = 2 ]
	check "order -$m: no kernel-only row after a missing (!) one" python3 "$ROWS" rule "$WORK/order-$m.txt"
done
for m in M K; do
	check "order -$m: __x64_sys_write (a tail call) right before ksys_write, below the entry frames" \
		bash -c 'python3 "$1" rows "$2" | grep -q "K:do_syscall_64 !:__x64_sys_write C:ksys_write"' _ "$ROWS" "$WORK/order-$m.txt"
	check "order -$m: the returned *_func_proto lookups below check_helper_call.isra.0" \
		bash -c 'python3 "$1" rows "$2" | grep -q "K:check_helper_call.isra.0 !:sk_filter_func_proto !:bpf_sk_base_func_proto !:bpf_base_func_proto"' _ "$ROWS" "$WORK/order-$m.txt"
done
check "order: -M, -K and -F list their shared frames in the same order" \
	python3 "$ROWS" same "$WORK/order-M.txt" "$WORK/order-K.txt" "$WORK/order-F.txt"
check "fentry: no trampoline, BPF program or raw address in the stack view" \
	not grep -Eq '(bpf_trampoline_|bpf_prog_[0-9a-f]{16}|  0x[0-9a-f]+)' "$WORK/order-F.txt"
rep -C stacks.unfiltered=true "$OUT/order-F.rsr" >"$WORK/order-F-unf.txt"
check "fentry: stacks.unfiltered=true shows the trampolines, marked ~" \
	grep -Eq '^~ +bpf_trampoline_[0-9]+\+0x' "$WORK/order-F-unf.txt"
check "fentry: the recorded snapshot names the recorder's BPF programs" \
	grep -Eq '^~ +bpf_prog_[0-9a-f]{16}_' "$WORK/order-F-unf.txt"
# missed probes: the recorder splits them into entry and exit programs
info=$(rep info "$OUT/stitch.rsr")
read -r mp me mx <<<"$(sed -n 's/^ *missed probes *\([0-9]*\)\( (entry programs \([0-9]*\), exit programs \([0-9]*\))\)\{0,1\}$/\1 \3 \4/p' <<<"$info")"
check "missed probes: ${mp:-?} = entry ${me:-0} + exit ${mx:-0}" \
	bash -c '[ -n "$1" ] && [ "$1" = "$2" ]' _ "$mp" "$(( ${me:-0} + ${mx:-0} ))"
# missed probes per attach link (the kernel's bpf_link_info has them since
# 6.7): -K names the functions whose kprobes missed, in all three commands
mline='^MISSED PROBES: +[0-9]+ \(.*kprobe links: ([a-z_0-9.]+ [0-9]+, )*get_perf_callchain [0-9]+'
check "linkmiss: the recorder's MISSED PROBES line names get_perf_callchain's links" grep -Eq "$mline" "$OUT/linkmiss.err"
check "linkmiss: the explanation follows it" bash -c 'grep -A1 "^MISSED PROBES" "$1" | tail -1 | grep -q "^ *(traced calls"' _ "$OUT/linkmiss.err"
check "linkmiss: retsnoop-report names them too" bash -c 'TZ=UTC "$1" "$2" 2>&1 >/dev/null | grep -Eq "$3"' _ "$WORK/retsnoop-report" "$OUT/linkmiss.rsr" "$mline"
check "linkmiss: live retsnoop names them too" grep -Eq "$mline" "$OUT/linkmiss-live.err"
read -r ln lsum <<<"$(rep info "$OUT/linkmiss.rsr" | sed -n 's/^ *missed by attach links *\([0-9]*\) (kprobe links: \(.*\))$/\1, \2/p' |
	awk -F', ' '{ s = 0; for (i = 2; i <= NF; i++) { n = split($i, a, " "); s += a[n] } print $1, s }')"
check "linkmiss: info: missed by attach links ${ln:-?} = the listed counts ${lsum:-?}" \
	bash -c '[ "${1:-0}" -gt 0 ] && [ "$1" = "$2" ]' _ "$ln" "$lsum"
check "linkmiss: -M (kprobe.multi) recordings carry the links' counts too" grep -Eq '^ *missed by attach links +[0-9]+' <<<"$info"
# a helper's error (BTF declares helpers u64) is an error
n=$(rep --format json "$OUT/helper.rsr" | jq -s '[.[].trace[] | select(.type == "exit" and .func == "bpf_skb_load_bytes" and .result.is_error and .result.text == "-EFAULT")] | length')
check "helper: bpf_skb_load_bytes fails with -EFAULT under BPF_PROG_TEST_RUN, shown as an error (${n:-0})" [ "${n:-0}" -ge 1 ]
check "helper: the -T view shows it" grep -Eq '↔ bpf_skb_load_bytes +\[-EFAULT\]' <(rep -T "$OUT/helper.rsr")

# exact names: kallsyms instead of available_filter_functions, same recording
check "exact: recorded (exit $(cat "$OUT/exact.rc"), as the globs' $(cat "$OUT/exactglob.rc"))" \
	[ "$(cat "$OUT/exact.rc")" = "$(cat "$OUT/exactglob.rc")" ] && [ -f "$OUT/exact.rsr" ]
check "exact: -v says available_filter_functions was not read" \
	grep -Eq '^Found 2 attachable functions \(exact names, from kallsyms: available_filter_functions not read\); attach mode kprobe-(multi|session)\.$' "$OUT/exact.err"
check "exact: the globs read it" grep -Eq '^Found 2 attachable functions \(of [0-9]+ traceable\)' "$OUT/exactglob.err"
check "exact: the same -v glob counts" diff <(grep "glob '__x64_sys_openat' selected\|glob 'do_sys_openat2' selected" "$OUT/exact.err") \
	<(grep "selected" "$OUT/exactglob.err" | sed "s/__x64_sys_opena?/__x64_sys_openat/; s/do_sys_opena?2/do_sys_openat2/")
mask() { rep "$@" | sed -E 's/[0-9]+/N/g; s/ +/ /g'; }   # column widths follow the numbers' digits
check "exact: the same report as the globs' (numbers masked)" diff <(mask "$OUT/exact.rsr") <(mask "$OUT/exactglob.rsr")
check "exact: a failing session with the entry's -ENOENT" grep -Eq '\[-ENOENT\] +__x64_sys_openat' <(rep "$OUT/exact.rsr")
check "exact: same traced functions in info" diff <(rep info "$OUT/exact.rsr" | grep '^Traced functions:') \
	<(rep info "$OUT/exactglob.rsr" | grep '^Traced functions:')
nt=$(cat "$OUT/notrace.name" 2>/dev/null)
want="retsnoop-record: entry glob '$nt' matches 1 kallsyms function(s) but none is traceable (not in available_filter_functions: notrace, inlined or blacklisted)"
check "exact, not traceable ($nt): the full path's one-line error, exit 1" \
	bash -c '[ -n "$1" ] && [ "$(cat "$2/notrace.err")" = "$3" ] && [ "$(cat "$2/notrace.rc")" = 1 ]' _ "$nt" "$OUT" "$want"
check "exact, not traceable: -K says the same, exit 1" \
	bash -c '[ "$(cat "$1/notrace-K.err")" = "$2" ] && [ "$(cat "$1/notrace-K.rc")" = 1 ]' _ "$OUT" "$want"
check "exact, not traceable: no file left" not test -e "$OUT/notrace.rsr"
check "exact, not traceable: -v says kprobe.multi refused, then the full path's error" \
	bash -c 'grep -q "^Attaching the functions found in kallsyms failed" "$1" && [ "$(tail -1 "$1")" = "$2" ]' _ "$OUT/notrace-v.err" "$want"
check "exact, not traceable as -a: the full path's warning, recorded (exit $(cat "$OUT/notrace-a.rc"))" \
	grep -q "^retsnoop-record: warning: allow glob '$nt' matches 1 kallsyms function(s) but none is traceable (.*); ignored\$" "$OUT/notrace-a.err"
check "exact, not traceable as -a: the other function is recorded" grep -Eq '\[-ENOENT\] +__x64_sys_openat' <(rep "$OUT/notrace-a.rsr")

kb=$(cat "$OUT/attachfail.name" 2>/dev/null)
check "attach failure ($kb, on the kprobe blacklist): -K records the rest (exit $(cat "$OUT/attachfail.rc"), the workload's)" \
	bash -c '[ -n "$1" ] && [ "$(cat "$2/attachfail.rc")" = "$(cat "$2/notrace-a.rc")" ] && [ -s "$2/attachfail.rsr" ]' _ "$kb" "$OUT"
check "attach failure: one warning line without -v, naming the count" \
	grep -qx 'retsnoop-record: warning: 1 of 2 functions could not be attached with kprobe (-v names them); their calls are not traced' "$OUT/attachfail.err"
check "attach failure: -v names the function instead" \
	bash -c 'grep -q "^Function '"'"'$1'"'"' could not be attached: " "$2" && ! grep -q "warning: 1 of 2" "$2"' _ "$kb" "$OUT/attachfail-v.err"
check "attach failure: the attached function is recorded" grep -Eq '\[-ENOENT\] +__x64_sys_openat' <(rep "$OUT/attachfail.rsr")
check "attach failure: info counts it" grep -Eq '^Attach: +1 attached, 1 failed' <(rep info "$OUT/attachfail.rsr")
check "8193 possible CPUs: refused in one line naming both counts, exit 1" \
	bash -c '[ "$(cat "$1/manycpus.rc")" = 1 ] && [ "$(wc -l <"$1/manycpus.err")" = 1 ] &&
		grep -qx "retsnoop-record: .*this machine has 8193 possible CPUs; the BPF side keeps state for 8192 at most" "$1/manycpus.err"' _ "$OUT"

check "guest dmesg has no WARNING/BUG/Oops" bash -c "! grep -Eq 'WARNING:|BUG:|Oops' '$OUT/dmesg'"

echo "vm-scenarios: $PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
