# suite_lib.sh - sourced by the one-boot VM suites (scenarios.sh, live.sh,
# durability.sh): boot the guest script, then the host-side check helpers
# that count into PASS/FAIL. Needs ROOT, WORK, OUT, KIMG, KMODS set.

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
