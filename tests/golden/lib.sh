# lib.sh - what the golden test scripts share (sourced first thing, not
# run): the common setup (set -u, no DWARF unless a case asks for it, the
# repository root as working directory, ROOT, EXP, UPDATE from --update)
# and the compare loop. A case runs retsnoop-report, writes
# "$ retsnoop-report ARGS", its stdout, stderr and exit status to
# $GOLDEN_WORK/NAME.out and diffs that against
# $EXP/${GOLDEN_PREFIX}NAME.txt, or rewrites the expected file with
# --update. Counts go to the "SUITE: N passed, N failed" line golden_done
# prints.
#
# Set before the first case: GOLDEN_SUITE (name on the counts line),
# GOLDEN_WORK, REPORT (the binary); optional GOLDEN_PREFIX (expected-file
# prefix), GOLDEN_ENV (words put before the command, e.g.
# "env -u RETSNOOP_NO_DWARF"), GOLDEN_SED (a sed script applied to each
# .out, e.g. to replace machine-specific paths).

set -u
export RETSNOOP_NO_DWARF=1   # renderings must not depend on installed debug info
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
ROOT=$PWD
EXP=$ROOT/tests/golden/expected
UPDATE=0
[ "${1:-}" = "--update" ] && UPDATE=1

GOLDEN_PASS=0
GOLDEN_FAIL=0

golden_ok()  { GOLDEN_PASS=$((GOLDEN_PASS + 1)); }
golden_bad() { echo "FAIL $*"; GOLDEN_FAIL=$((GOLDEN_FAIL + 1)); }

# golden_compare NAME: $GOLDEN_WORK/NAME.out against its expected file
golden_compare() {
	local name=$1 out="$GOLDEN_WORK/$1.out" exp="$EXP/${GOLDEN_PREFIX:-}$1.txt"
	if [ -n "${GOLDEN_SED:-}" ]; then
		sed -e "$GOLDEN_SED" "$out" >"$out.sed" && mv "$out.sed" "$out"
	fi
	if [ "$UPDATE" = 1 ]; then
		cp "$out" "$exp"
		golden_ok
	elif [ ! -f "$exp" ]; then
		golden_bad "$name: no expected output (run $0 --update)"
	elif diff -u "$exp" "$out" >"$GOLDEN_WORK/$name.diff"; then
		golden_ok
	else
		golden_bad "$name:"
		head -c 20000 "$GOLDEN_WORK/$name.diff"
	fi
}

# golden_case NAME ARGS...: renders with TZ=UTC, records everything, compares
golden_case() {
	local name=$1 rc; shift
	{
		printf '$ retsnoop-report %s\n' "$*"
		# shellcheck disable=SC2086
		TZ=UTC ${GOLDEN_ENV:-} "$REPORT" "$@" >"$GOLDEN_WORK/$name.stdout" 2>"$GOLDEN_WORK/$name.stderr"
		rc=$?
		cat "$GOLDEN_WORK/$name.stdout"
		echo "--- stderr"
		cat "$GOLDEN_WORK/$name.stderr"
		echo "--- exit $rc"
	} >"$GOLDEN_WORK/$name.out"
	golden_compare "$name"
}

# golden_done: the counts line; status 0 when nothing failed
golden_done() {
	[ "$UPDATE" = 1 ] && echo "$GOLDEN_SUITE: expected files rewritten in $EXP"
	echo "$GOLDEN_SUITE: $GOLDEN_PASS passed, $GOLDEN_FAIL failed"
	[ "$GOLDEN_FAIL" = 0 ]
}

# golden_vm_setup SUITE PREFIX REC...: the set-up of the suites over the
# committed VM recordings: builds retsnoop-report, needs jq, copies the
# recordings tests/golden/data/REC.rsr into a fresh build/SUITE and works
# there in UTC; sets REPORT, WORK and the GOLDEN_* variables
golden_vm_setup() {
	local suite=$1 prefix=$2 r
	shift 2
	fail_all() { echo "$GOLDEN_SUITE: $1" >&2; echo "$GOLDEN_SUITE: 0 passed, 1 failed"; exit 1; }
	GOLDEN_SUITE=$suite GOLDEN_PREFIX=$prefix
	make -s build/retsnoop-report >/dev/null || fail_all "cannot build retsnoop-report"
	command -v jq >/dev/null || fail_all "jq is needed"
	REPORT=$ROOT/build/retsnoop-report
	WORK=$ROOT/build/$suite
	GOLDEN_WORK=$WORK
	rm -rf "$WORK"
	mkdir -p "$WORK"
	for r in "$@"; do
		cp "tests/golden/data/$r.rsr" "$WORK/" || fail_all "no recording $r.rsr"
	done
	cd "$WORK" || exit 1
	export TZ=UTC
}
