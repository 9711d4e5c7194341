#!/usr/bin/env bash
# run_views.sh - golden tests of retsnoop-report's function-call trace (-T)
# and LBR (-B) views and of report-time view selection: build/mkrec_views
# writes the views-*.rsrec recordings (plus views-real.rsrec from the
# Debian 6.12 -dbg kernel's System.map when /opt/retsnoop-kernels/6.12.env
# exists), each case's stdout, stderr and exit status are diffed against
# tests/golden/expected/views-*.txt. Called by run.sh; `--update` rewrites
# the expected files. REPORT / MKREC_VIEWS override the binaries.
# Prints "golden-views: N passed, N failed".
# shellcheck source=tests/golden/lib.sh
. "$(dirname "$0")/lib.sh"
REPORT=${REPORT:-$ROOT/build/retsnoop-report}
MKREC_VIEWS=${MKREC_VIEWS:-$ROOT/build/mkrec_views}
KENV=${KENV:-/opt/retsnoop-kernels/6.12.env}

if [ -z "${NO_BUILD:-}" ] && ! make -s build/retsnoop-report build/mkrec_views >/dev/null; then
	echo "golden-views: cannot build retsnoop-report and mkrec_views" >&2
	echo "golden-views: 0 passed, 1 failed"
	exit 1
fi
WORK=$ROOT/build/golden-views
rm -rf "$WORK"
mkdir -p "$WORK" "$EXP"
cd "$WORK" || exit 1
SYSMAP=
if [ -f "$KENV" ]; then
	SYSMAP=$(. "$KENV" && echo "${SYSMAP:-}")
	[ -f "$SYSMAP" ] || SYSMAP=
fi
if ! "$MKREC_VIEWS" . $SYSMAP; then
	echo "golden-views: mkrec_views failed" >&2
	echo "golden-views: 0 passed, 1 failed"
	exit 1
fi

GOLDEN_SUITE=golden-views GOLDEN_WORK=$WORK
case_() { golden_case "$@"; }

# trace view (-T recording with stacks)
case_ views-trace               views-trace.rsrec
case_ views-trace-T             -T views-trace.rsrec
case_ views-trace-E             --call-stack views-trace.rsrec
case_ views-trace-err-B         -B views-trace.rsrec
case_ views-traceonly           views-traceonly.rsrec
case_ views-traceonly-err-E     -E views-traceonly.rsrec
# LBR view
case_ views-lbr                 views-lbr.rsrec
case_ views-lbr-max2            --lbr-max-count 2 views-lbr.rsrec
case_ views-lbr-max3-dec        -C fmt.lbr-max-count=3 -C stacks.dec-offs=true views-lbr.rsrec
case_ views-lbr-addrs           --lbr -C stacks.emit-addrs=y views-lbr.rsrec
case_ views-lbr-unfiltered      -C stacks.unfiltered=true views-lbr.rsrec
case_ views-lbr-err-T           --trace views-lbr.rsrec
case_ views-lbr-err-max         -C fmt.lbr-max-count=lots views-lbr.rsrec
case_ views-lbr-err-max-arg     views-lbr.rsrec --lbr-max-count
case_ views-lbr-unavail         views-lbr-unavail.rsrec
case_ views-lbr-unavail-B       -B views-lbr-unavail.rsrec
# view selection on a -T -B -E recording
case_ views-all                 views-all.rsrec
case_ views-all-T               -T views-all.rsrec
case_ views-all-B               -B views-all.rsrec
case_ views-all-TB              -T -B views-all.rsrec
case_ views-all-E               -E views-all.rsrec
case_ views-all-TE              -T -E views-all.rsrec
# real branch pairs and stack of the Debian 6.12 -dbg vmlinux
if [ -n "$SYSMAP" ]; then
	case_ views-real            views-real.rsrec
	case_ views-real-max3       --lbr-max-count=3 views-real.rsrec
	# with the -dbg vmlinux's DWARF: source lines and inlined frames
	VMLINUX_DBG=$(. "$KENV" && echo "${VMLINUX_DBG:-}")
	if [ -f "$VMLINUX_DBG" ]; then
		GOLDEN_ENV="env -u RETSNOOP_NO_DWARF" case_ views-real-dwarf -ss -k "$VMLINUX_DBG" views-real.rsrec
	else
		echo "SKIP views-real-dwarf: no -dbg vmlinux ($KENV)"
	fi
else
	echo "SKIP views-real: no System.map ($KENV)"
fi

# the trace view is the same whether or not the stack view follows it
if diff <(sed -n '/^FUNCTION CALLS/,/^$/p' views-all-T.stdout) \
	<(sed -n '/^FUNCTION CALLS/,/^$/p' views-all.stdout) >/dev/null &&
   [ -s views-all-T.stdout ] && grep -q '^FUNCTION CALLS' views-all-T.stdout; then
	golden_ok
else
	golden_bad "views-trace-stable: the trace view differs between -T and the default"
fi
golden_done
