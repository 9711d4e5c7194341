#!/usr/bin/env bash
# demo.sh - the main job: record a failing bpf() call with retsnoop-record
# and render it with retsnoop-report. On a host whose kernel can trace, it
# records here; otherwise (this project's CI and dev hosts) it records inside
# a qemu VM booting Debian's 6.12 cloud kernel (tests/vm/vmrun) and renders
# the file on the host. Usage: scripts/demo.sh [SIMFAIL_CASE] [RECORD_FLAGS...]
set -euo pipefail
cd "$(dirname "$0")/.."
CASE=${1:-bpf-bad-map-val-size-percpu-array}
shift || true
FLAGS=("$@")
[ ${#FLAGS[@]} -gt 0 ] || FLAGS=(-c bpf)
OUT=${DEMO_OUT:-$PWD/build/demo}
REPORT_FLAGS=()
mkdir -p "$OUT"
make -s all

can_trace_here() {
	[ "$(id -u)" = 0 ] && [ -r /sys/kernel/tracing/available_filter_functions ] &&
		{ [ -e /sys/bus/event_source/devices/kprobe/type ] || return 1; }
}

if can_trace_here; then
	echo "demo: recording on this host"
	build/retsnoop-record "${FLAGS[@]}" -o "$OUT/demo.rsr" -- build/simfail "$CASE"
else
	echo "demo: this kernel cannot trace ($(build/retsnoop-record -e x -o /dev/null 2>&1 | head -c 160)...)"
	echo "demo: recording inside a VM booting Debian's 6.12 cloud kernel instead"
	KERNELS=${RETSNOOP_KERNELS:-/opt/retsnoop-kernels}
	[ -f "$KERNELS/6.12.env" ] || scripts/fetch-kernels.sh
	# shellcheck disable=SC1091
	. "$KERNELS/6.12.env"
	WORK=$(mktemp -d)
	trap 'rm -rf "$WORK"' EXIT
	cp build/retsnoop-record build/simfail "$WORK/"
	rm -f "$OUT/demo.rsr"
	(cd "$WORK" && "$OLDPWD/tests/vm/vmrun" -q --kernel "$KIMG" --modules "$KMODS" \
		--add ./retsnoop-record --add ./simfail --out "$OUT" -- \
		./retsnoop-record "${FLAGS[@]}" -o /out/demo.rsr -- ./simfail "$CASE")
	# the VM kernel's vmlinux with DWARF (from its -dbg package), for source
	# lines and inlined frames
	[ -n "${VMLINUX_DBG:-}" ] && [ -f "$VMLINUX_DBG" ] && REPORT_FLAGS=(-k "$VMLINUX_DBG")
fi
echo "demo: rendering $OUT/demo.rsr with retsnoop-report ${REPORT_FLAGS[*]}"
build/retsnoop-report "${REPORT_FLAGS[@]}" "$OUT/demo.rsr"
