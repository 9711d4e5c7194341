#!/usr/bin/env bash
# mkvmrec.sh - remakes the real recordings of the report golden tests
# (tests/golden/data/vm-*.rsr, used by tests/golden/run_vmrec.sh): boots
# Debian's 6.12 cloud kernel in qemu (tests/vm/vmrun), records simfail runs
# with build/retsnoop-record and copies the files into tests/golden/data/.
# The goldens never boot a VM: they render the committed files. After
# remaking, review and rewrite the goldens: tests/golden/run_vmrec.sh --update.
#
#   vm-trace.rsr  -T -E -S over bpf/openat/mkdirat/nanosleep entries; one
#                 shell runs several processes under different names
#                 (simfail, sf-open, sf-mkdir, sf-sleep): EINVAL, ENOENT,
#                 EEXIST, ENOMEM with a NULL deeper down, successful map
#                 creation and openat calls of the dynamic loader, and two
#                 sleeps (150 ms, 400 ms) that spread the sessions in time.
#   vm-bpf.rsr    -c bpf (about 1800 functions), failing sessions only, in
#                 kprobe.multi mode: EINVAL from the verifier and the map
#                 checks, EFAULT, ENOMEM with a stitched error chain.
#   vm-order-M.rsr, vm-order-K.rsr, vm-order-F.rsr
#                 one workload in each attach mode (kprobe.multi, kprobes,
#                 fentry): write() to a pipe without readers (EPIPE;
#                 __x64_sys_write tail-calls ksys_write, so it has no frame)
#                 and a socket filter calling a kprobe-only helper (EINVAL
#                 after three *_func_proto lookups return NULL under the
#                 untraced check_helper_call.isra.0); the stack
#                 view's frame order and fentry's trampoline filtering.
#   vm-helper.rsr -c bpf -S -T: socket filters run by BPF_PROG_TEST_RUN
#                 whose helper fails: bpf_skb_load_bytes past the packet
#                 (-EFAULT), and a pop from an empty queue map (-ENOENT;
#                 the verifier calls queue_map_pop_elem directly, which
#                 -c bpf does not trace).
#
# Usage: tests/golden/mkvmrec.sh [OUTDIR [RECORDING...]]
#   (default tests/golden/data, every recording; e.g. vm-order-M vm-helper)
set -eu
cd "$(dirname "$0")/../.."
ROOT=$PWD
DEST=${1:-$ROOT/tests/golden/data}
shift $(( $# > 0 ? 1 : 0 ))
RECS=${*:-vm-trace vm-bpf vm-order-M vm-order-K vm-order-F vm-helper}
KERNELS=${RETSNOOP_KERNELS:-/opt/retsnoop-kernels}
[ -f "$KERNELS/6.12.env" ] || scripts/fetch-kernels.sh >&2
# shellcheck disable=SC1091
. "$KERNELS/6.12.env"
make -s -j2 build/retsnoop-record build/simfail build/retsnoop-report >/dev/null

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/g" "$WORK/out" "$DEST"
cp build/retsnoop-record build/simfail "$WORK/g/"
for n in sf-open sf-mkdir sf-sleep; do cp build/simfail "$WORK/g/$n"; done

TRACE_GLOBS="-e '*sys_bpf' -e '*sys_openat' -e '*sys_mkdirat' -e '*sys_clock_nanosleep'
	-a __sys_bpf -a map_create -a array_map_alloc -a array_map_alloc_check
	-a bpf_map_area_alloc -a __bpf_map_area_alloc
	-a do_sys_openat2 -a do_filp_open -a path_openat
	-a do_mkdirat -a filename_create
	-a hrtimer_nanosleep -a do_nanosleep"
ORDER_GLOBS="-e '*sys_write' -e '*sys_bpf' -a ksys_write -a vfs_write -a pipe_write
	-a __sys_bpf -a bpf_prog_load -a bpf_check -a 'do_check*'
	-a sk_filter_func_proto -a bpf_sk_base_func_proto -a bpf_base_func_proto"
cat >"$WORK/g/guest.sh" <<EOF
#!/bin/sh
cd "\$(dirname "\$0")"
want() { case " $RECS " in *" \$1 "*) return 0;; esac; return 1; }
for m in M K F; do
	want vm-order-\$m || continue
	./retsnoop-record -\$m ${ORDER_GLOBS//$'\n'/ } -o /out/vm-order-\$m.rsr -- sh -c '
		./simfail pipe-write-no-reader
		./simfail bpf-prog-bad-helper
		true' >/out/vm-order-\$m.out 2>&1
	echo \$? >/out/vm-order-\$m.rc
done
if want vm-helper; then
./retsnoop-record -c bpf -S -T -o /out/vm-helper.rsr -- sh -c './simfail bpf-skb-load-bytes-bad; ./simfail bpf-queue-pop-empty' >/out/vm-helper.out 2>&1
echo \$? >/out/vm-helper.rc
fi
want vm-trace && {
./retsnoop-record -T -E -S ${TRACE_GLOBS//$'\n'/ } -o /out/vm-trace.rsr -- sh -c '
	./simfail bpf-bad-map-max-entries-array
	./sf-open open-missing
	SIMFAIL_SLEEP_MS=150 ./sf-sleep syscall-long-sleep
	./sf-mkdir mkdir-existing
	./simfail bpf-simple-map
	SIMFAIL_SLEEP_MS=400 ./sf-sleep syscall-long-sleep
	./simfail bpf-bad-map-val-size-percpu-array
	./sf-open open-missing
	true' >/out/vm-trace.out 2>&1
echo \$? >/out/vm-trace.rc
}
want vm-bpf && {
./retsnoop-record -c bpf -o /out/vm-bpf.rsr -- sh -c '
	./simfail bpf-bad-map-key-size-array
	./simfail bpf-bad-map-lookup-key
	./simfail bpf-bad-prog-load
	./simfail bpf-bad-map-val-size-percpu-array
	true' >/out/vm-bpf.out 2>&1
echo \$? >/out/vm-bpf.rc
}
true
EOF
chmod +x "$WORK/g/guest.sh"

echo "mkvmrec: recording in the $KREL VM (a minute or two)..." >&2
(cd "$WORK/g" && "$ROOT/tests/vm/vmrun" -q --timeout 900 --kernel "$KIMG" --modules "$KMODS" \
	--add "$WORK/g" --out "$WORK/out" -- "$WORK/g/guest.sh") >"$WORK/vm.log" 2>&1 ||
	{ echo "mkvmrec: the VM run failed:" >&2; tail -30 "$WORK/vm.log" >&2; exit 1; }
for r in $RECS; do
	if [ "$(cat "$WORK/out/$r.rc" 2>/dev/null)" != 0 ] || [ ! -s "$WORK/out/$r.rsr" ]; then
		echo "mkvmrec: recording $r failed:" >&2
		cat "$WORK/out/$r.out" >&2 2>/dev/null
		exit 1
	fi
	build/retsnoop-report info "$WORK/out/$r.rsr" >/dev/null ||
		{ echo "mkvmrec: $r.rsr is not complete" >&2; exit 1; }
	cp "$WORK/out/$r.rsr" "$DEST/$r.rsr"
	chmod 0644 "$DEST/$r.rsr"
	echo "mkvmrec: $DEST/$r.rsr ($(stat -c %s "$DEST/$r.rsr") bytes)" >&2
done
