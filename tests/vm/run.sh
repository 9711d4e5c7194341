#!/usr/bin/env bash
# run.sh - VM end-to-end suite for retsnoop-record/-report on real kernels:
# boots Debian's 6.12 cloud kernel (kprobe.multi, kprobes, fentry) and 6.1
# cloud kernel (no kprobe.multi: the default must fall back) once each, runs
# every simfail case under retsnoop-record in every attach mode, and checks
# on the host with retsnoop-report: one session per failing case (none
# lost), the entry function's result equals the syscall's errno, the
# expected failing function is in the stack, the command's status is passed
# through, and the guest's dmesg has no WARNING/BUG/Oops.
# Prints "vm-KERNEL: N passed, N failed" lines; exits non-zero on failure.
set -u
cd "$(dirname "$0")/../.."
ROOT=$PWD
KERNELS=${RETSNOOP_KERNELS:-/opt/retsnoop-kernels}
[ -f "$KERNELS/6.12.env" ] && [ -f "$KERNELS/6.1.env" ] || scripts/fetch-kernels.sh >&2
for b in retsnoop-record retsnoop-report simfail; do
	[ -x "build/$b" ] || { echo "vm: build/$b missing (run make)"; echo "vm: 0 passed, 1 failed"; exit 1; }
done

BPF_CASES="bpf-bad-map-type bpf-bad-map-create-flags bpf-bad-map-key-size-array bpf-bad-map-max-entries-array bpf-bad-map-key-size-ringbuf bpf-bad-map-val-size-percpu-array bpf-bad-map-lookup-key bpf-bad-map-lookup-value bpf-bad-prog-load"
# deepest function each case must show (a traced function on its failure path)
declare -A EXPECT=(
	[bpf-bad-map-type]=map_create [bpf-bad-map-create-flags]=map_create
	[bpf-bad-map-key-size-array]=array_map_alloc_check [bpf-bad-map-max-entries-array]=array_map_alloc_check
	[bpf-bad-map-key-size-ringbuf]=map_create [bpf-bad-map-val-size-percpu-array]=array_map_alloc
	[bpf-bad-map-lookup-key]=map_lookup_elem [bpf-bad-map-lookup-value]=map_lookup_elem
	[bpf-bad-prog-load]=bpf_check [open-missing]=do_filp_open [mkdir-existing]=filename_create
)
BPF_GLOBS="-e *sys_bpf -a __sys_bpf -a map_create -a array_map_* -a bpf_map_* -a ringbuf_map_* -a map_lookup_elem -a bpf_prog_load -a bpf_check -a __bpf_map_area_alloc -a __vmalloc_node*"
OPEN_GLOBS="-e *sys_openat -a do_sys_openat2 -a do_filp_open -a path_openat -a link_path_walk* -a open_last_lookups -a walk_component -a lookup_fast"
MKDIR_GLOBS="-e *sys_mkdirat -e *sys_mkdir -a do_mkdirat -a filename_create -a lookup_one_qstr_excl*"

TOTAL_FAIL=0
run_kernel() {  # NAME MODES...
	local name=$1; shift
	local modes=("$@") work out rc pass=0 fail=0
	# shellcheck disable=SC1090
	. "$KERNELS/$name.env"
	work=$(mktemp -d); out=$work/out
	mkdir -p "$out" "$work/g"
	cp build/retsnoop-record build/simfail "$work/g/"
	cp build/retsnoop-report "$work/"
	{
		echo '#!/bin/sh'
		echo 'cd "$(dirname "$0")"'
		for m in "${modes[@]}"; do
			tag=${m:-auto}
			echo "./retsnoop-record $m $BPF_GLOBS -o /out/$tag-bpf.rsr -- ./simfail $BPF_CASES >/out/$tag-bpf.out 2>/out/$tag-bpf.err; echo \$? >/out/$tag-bpf.rc"
			echo "./retsnoop-record $m $OPEN_GLOBS -o /out/$tag-open.rsr -- ./simfail open-missing >/out/$tag-open.out 2>/out/$tag-open.err; echo \$? >/out/$tag-open.rc"
			echo "./retsnoop-record $m $MKDIR_GLOBS -o /out/$tag-mkdir.rsr -- ./simfail mkdir-existing >/out/$tag-mkdir.out 2>/out/$tag-mkdir.err; echo \$? >/out/$tag-mkdir.rc"
		done
		echo 'dmesg >/out/dmesg'
	} >"$work/g/guest.sh"
	chmod +x "$work/g/guest.sh"
	(cd "$work/g" && "$ROOT/tests/vm/vmrun" -q --timeout 1200 --kernel "$KIMG" --modules "$KMODS" \
		--add "$work/g" --add /bin/sh --out "$out" -- "$work/g/guest.sh") >"$work/vm.log" 2>&1
	rc=$?
	ok()  { pass=$((pass + 1)); echo "ok   [$name] $*"; }
	bad() { fail=$((fail + 1)); echo "FAIL [$name] $*"; }
	[ "$rc" = 0 ] && ok "VM run" || { bad "VM run (status $rc)"; tail -20 "$work/vm.log"; }
	for m in "${modes[@]}"; do
		tag=${m:-auto}
		for fam in bpf open mkdir; do
			f=$out/$tag-$fam.rsr
			if [ ! -s "$f" ]; then
				bad "$tag $fam: no recording: $(head -c 300 "$out/$tag-$fam.err" 2>/dev/null)"; continue
			fi
			[ "$(cat "$out/$tag-$fam.rc")" = 0 ] && ok "$tag $fam: recorder returned simfail's status 0" ||
				bad "$tag $fam: status $(cat "$out/$tag-$fam.rc"): $(head -c 300 "$out/$tag-$fam.err")"
			TZ=UTC "$work/retsnoop-report" -sn "$f" >"$work/rep.txt" 2>"$work/rep.err"
			# split the report into one file per session
			awk -v d="$work" '/TID\/PID/ { n++ } n { print > (d "/sess." n) }' "$work/rep.txt"
			i=0
			while read -r line; do
				c=$(sed -n 's/^simfail: \([^ ]*\) .*/\1/p' <<<"$line")
				e=$(sed -n 's/.*errno=\([A-Z0-9]*\).*/\1/p' <<<"$line")
				[ -n "$c" ] && [ "$e" != 0 ] || continue
				i=$((i + 1))
				s=$work/sess.$i
				if [ ! -f "$s" ]; then bad "$tag $c: session $i missing (lost)"; continue; fi
				grep -Eq "\[-$e\] +__(x64|se|do)_sys_" "$s" && ok "$tag $c: entry function returned -$e" ||
					bad "$tag $c: entry row is not -$e: $(grep -m1 '__x64_sys' "$s")"
				grep -Eq "\[(-E[A-Z0-9]+|NULL)\] +${EXPECT[$c]}(\+|\s|$)" "$s" && ok "$tag $c: ${EXPECT[$c]} failed in the stack" ||
					bad "$tag $c: ${EXPECT[$c]} not failing in: $(tr '\n' '|' <"$s" | head -c 600)"
			done <"$out/$tag-$fam.out"
			n=$(grep -c 'TID/PID' "$work/rep.txt")
			[ "$n" = "$i" ] && ok "$tag $fam: $n session(s) for $i failing case(s)" ||
				bad "$tag $fam: $n session(s) for $i failing case(s)"
			rm -f "$work"/sess.*
		done
	done
	if grep -Eq 'WARNING:|BUG:|Oops' "$out/dmesg" 2>/dev/null; then
		bad "guest dmesg has WARNING/BUG/Oops: $(grep -Em3 'WARNING:|BUG:|Oops' "$out/dmesg")"
	else
		ok "guest dmesg clean"
	fi
	if [ "$name" = 6.1 ] && [ -f "$out/auto-bpf.err" ]; then
		# 6.1 has no kprobe.multi: the default mode must fall back to kprobes
		TZ=UTC "$work/retsnoop-report" info "$out/auto-bpf.rsr" 2>/dev/null | grep -q 'Attach mode: *kprobe$' &&
			ok "default mode fell back to kprobes" || bad "default mode did not fall back to kprobes"
	fi
	echo "vm-$name: $pass passed, $fail failed"
	TOTAL_FAIL=$((TOTAL_FAIL + fail))
	[ -n "${KEEP:-}" ] && echo "kept $work" || rm -rf "$work"
}

run_kernel 6.12 -M -K -F
run_kernel 6.1 "" -K -F
[ "$TOTAL_FAIL" = 0 ]
