# suite_lib.sh - sourced by the one-boot VM suites (scenarios.sh, live.sh,
# durability.sh, flight.sh, ...): the common start (kernel, binaries, work
# directory), the guest boot, then the host-side check helpers that count
# into PASS/FAIL. Sourced from the repository root with ROOT set.

# suite_fail MSG: the suite cannot run; one failure, exit 1
suite_fail() {
	echo "$SUITE: $*"
	echo "$SUITE: 0 passed, 1 failed"
	exit 1
}

# suite_begin NAME BINARY...: the 6.12 kernel's env (fetched when missing),
# build/BINARY... checked and copied into the guest directory $WORK/g, a
# private copy of retsnoop-report in $WORK (immune to rebuilds while the VM
# runs), $OUT for the guest's /out; $WORK removed at exit unless KEEP is set
suite_begin() {
	SUITE=$1
	shift
	KERNELS=${RETSNOOP_KERNELS:-/opt/retsnoop-kernels}
	[ -f "$KERNELS/6.12.env" ] || scripts/fetch-kernels.sh >&2 || suite_fail "no 6.12 kernel"
	# shellcheck disable=SC1091
	. "$KERNELS/6.12.env"
	for b in "$@" retsnoop-report; do
		[ -x "build/$b" ] || suite_fail "build/$b missing (run make)"
	done
	WORK=$(mktemp -d)
	if [ -n "${KEEP:-}" ]; then echo "keeping $WORK"; else trap 'rm -rf "$WORK"' EXIT; fi
	OUT=$WORK/out
	mkdir -p "$OUT" "$WORK/g"
	for b; do
		cp "build/$b" "$WORK/g/"
	done
	cp build/retsnoop-report "$WORK/"
}

# boot_guest TIMEOUT: runs $WORK/g/guest.sh in one VM boot ($WORK/g and
# /bin/sh added, /out back in $OUT); a failed boot is the first failure
boot_guest() {
	(cd "$WORK/g" && "$ROOT/tests/vm/vmrun" -q --timeout "$1" --kernel "$KIMG" --modules "$KMODS" \
		--add "$WORK/g" --add /bin/sh --out "$OUT" -- "$WORK/g/guest.sh") >"$WORK/vm.log" 2>&1
	VMRC=$?
	if [ "$VMRC" != 0 ]; then
		bad "VM run (status $VMRC)"; tail -30 "$WORK/vm.log"
	fi
}

PASS=0 FAIL=0
ok()    { PASS=$((PASS + 1)); echo "ok   $*"; }
bad()   { FAIL=$((FAIL + 1)); echo "FAIL $*"; }
check() { local what=$1; shift; if "$@"; then ok "$what"; else bad "$what"; fi; }
not()   { ! "$@"; }
