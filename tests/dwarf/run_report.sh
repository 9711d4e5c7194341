#!/usr/bin/env bash
# run_report.sh - retsnoop-report's DWARF stack view on a real recording made
# in the 6.12 VM (tests/dwarf/data/*.rsr) with the real Debian -dbg vmlinux:
# -ss/-s/-sn, -k and discovery (RETSNOOP_DEBUG_ROOT), no vmlinux, and a
# build-id mismatch (a copy of the vmlinux with its build-id bytes altered),
# refused or allowed. Output (stdout, stderr, exit status) is diffed against
# tests/golden/expected/dwarf-NAME.txt; `--update` rewrites those files.
# The index cache lives in a temp dir so results never depend on it.
# Prints "dwarf-report: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
EXP=$ROOT/tests/golden/expected
UPDATE=0
[ "${1:-}" = "--update" ] && UPDATE=1
KENV=${KENV:-/opt/retsnoop-kernels/6.12.env}
if [ -z "${VMLINUX:-}" ] && [ -f "$KENV" ]; then VMLINUX=$(. "$KENV"; echo "${VMLINUX_DBG:-}"); fi
if [ -z "${VMLINUX:-}" ] || [ ! -f "$VMLINUX" ]; then
	echo "dwarf-report: no vmlinux with DWARF (run scripts/fetch-kernels.sh or set VMLINUX)"
	echo "dwarf-report: 0 passed, 1 failed"; exit 1
fi
REPORT=${REPORT:-$ROOT/build/retsnoop-report}
REC=$ROOT/tests/dwarf/data/bpf-percpu-array.rsr
REL=$("$REPORT" info "$REC" | sed -n 's/^Kernel release: *//p')
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export XDG_CACHE_HOME=$W/cache TZ=UTC
unset DEBUGINFOD_URLS RETSNOOP_NO_DWARF RETSNOOP_DEBUG_ROOT
mkdir -p "$W/empty" "$W/good/usr/lib/debug/boot" "$W/bad/usr/lib/debug/boot"
ln -s "$VMLINUX" "$W/good/usr/lib/debug/boot/vmlinux-$REL"
# the same vmlinux under another build-id: every copy of the id's bytes changed
python3 - "$VMLINUX" "$W/bad/usr/lib/debug/boot/vmlinux-$REL" <<'PY'
import sys, subprocess
src, dst = sys.argv[1], sys.argv[2]
out = subprocess.run(['readelf', '-n', src], capture_output=True, text=True).stdout
bid = bytes.fromhex(out.split('Build ID:')[1].split()[0])
data = bytearray(open(src, 'rb').read())
new = bytes(b ^ 0x5a for b in bid)
n = data.count(bid)
assert n >= 1
open(dst, 'wb').write(data.replace(bid, new))
PY
BAD=$W/bad/usr/lib/debug/boot/vmlinux-$REL

P=0 F=0
# case NAME [ENV=VAL...] -- ARGS...
case_() {
	local name=$1; shift
	local envs=()
	while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
	local out="$W/$name.out" rc
	{
		printf '$ %sretsnoop-report %s\n' "${envs[*]:+${envs[*]} }" "$*"
		env ${envs[@]+"${envs[@]}"} "$REPORT" "$@" >"$W/stdout" 2>"$W/stderr"
		rc=$?
		cat "$W/stdout"
		echo "--- stderr"
		cat "$W/stderr"
		echo "--- exit $rc"
	} | sed -e "s|$BAD|BAD_VMLINUX|g" -e "s|$VMLINUX|VMLINUX|g" -e "s|$W|TMP|g" -e "s|$ROOT/||g" >"$out"
	if [ $UPDATE = 1 ]; then
		cp "$out" "$EXP/dwarf-$name.txt"; P=$((P + 1))
	elif diff -u "$EXP/dwarf-$name.txt" "$out" >"$W/diff" 2>&1; then
		P=$((P + 1))
	else
		echo "FAIL dwarf-$name:"; cat "$W/diff"; F=$((F + 1))
	fi
}

case_ ss -- -k "$VMLINUX" "$REC"
case_ s -- -s -k "$VMLINUX" "$REC"
case_ sn -- -sn -k "$VMLINUX" "$REC"
case_ ss-addrs -- -ss -C stacks.emit-addrs=true -C stacks.unfiltered=true -k "$VMLINUX" "$REC"
case_ discovered RETSNOOP_DEBUG_ROOT="$W/good" -- "$REC"
case_ mismatch-k -- -k "$BAD" "$REC"
case_ mismatch-found RETSNOOP_DEBUG_ROOT="$W/bad" -- "$REC"
case_ mismatch-allowed -- --allow-build-id-mismatch -k "$BAD" "$REC"
case_ bad-k -- -k "$W/nonexistent" "$REC"
if [ ! -e "/usr/lib/debug/boot/vmlinux-$REL" ] && [ ! -e "/boot/vmlinux-$REL" ] &&
   [ ! -e "/lib/modules/$REL/build/vmlinux" ] && [ ! -e "/usr/lib/debug/lib/modules/$REL/vmlinux" ]; then
	case_ no-vmlinux RETSNOOP_DEBUG_ROOT="$W/empty" -- "$REC"
	case_ no-vmlinux-sn RETSNOOP_DEBUG_ROOT="$W/empty" -- -sn "$REC"
else
	echo "dwarf-report: a vmlinux for $REL is installed on this host: no-vmlinux cases skipped"
fi

# -ss output must equal the discovered one, and the inline rows must agree
# with llvm-symbolizer on the first return address (checked in the goldens'
# review; here: the cache, now warm, gives the same rendering)
if "$REPORT" -k "$VMLINUX" "$REC" 2>&1 | diff -q - <(sed -n '2,/^--- stderr/p' "$EXP/dwarf-ss.txt" | sed '$d') >/dev/null; then
	P=$((P + 1))
else
	echo "FAIL dwarf-warm: warm-cache rendering differs from the expected one"; F=$((F + 1))
fi
[ $UPDATE = 1 ] && echo "dwarf-report: expected files rewritten in $EXP"
echo "dwarf-report: $P passed, $F failed"
[ "$F" = 0 ]
