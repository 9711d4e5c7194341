#!/usr/bin/env bash
# run_debuginfod.sh - vmlinux fetch by build-id through libdebuginfod:
# starts Debian's `debuginfod` (apt-get install debuginfod) on a random high
# port serving a directory that holds the -dbg vmlinux, renders the real
# recording with no local vmlinux (RETSNOOP_DEBUG_ROOT empty) and
# DEBUGINFOD_URLS=http://127.0.0.1:PORT, and expects the same DWARF stack
# view as tests/golden/expected/dwarf-ss.txt and the file in
# DEBUGINFOD_CACHE_PATH; then an unreachable server must fall back to
# kallsyms names with the one hint line. The server is stopped by this
# script and bounded by `timeout`. Prints "dwarf-debuginfod: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
KENV=${KENV:-/opt/retsnoop-kernels/6.12.env}
if [ -z "${VMLINUX:-}" ] && [ -f "$KENV" ]; then VMLINUX=$(. "$KENV"; echo "${VMLINUX_DBG:-}"); fi
if ! command -v debuginfod >/dev/null || [ -z "${VMLINUX:-}" ] || [ ! -f "$VMLINUX" ]; then
	echo "dwarf-debuginfod: needs debuginfod (apt-get install debuginfod) and the -dbg vmlinux"
	echo "dwarf-debuginfod: 0 passed, 1 failed"; exit 1
fi
REPORT=${REPORT:-$ROOT/build/retsnoop-report}
REC=$ROOT/tests/dwarf/data/bpf-percpu-array.rsr
EXPECTED=$ROOT/tests/golden/expected/dwarf-ss.txt
REL=$("$REPORT" info "$REC" | sed -n 's/^Kernel release: *//p')
BID=$("$REPORT" info "$REC" | sed -n 's/^Kernel build-id: *//p')
for p in "/usr/lib/debug/boot/vmlinux-$REL" "/boot/vmlinux-$REL" "/lib/modules/$REL/build/vmlinux" \
	 "/usr/lib/debug/lib/modules/$REL/vmlinux"; do
	if [ -e "$p" ]; then
		echo "dwarf-debuginfod: $p is installed, so nothing would be fetched: skipped"
		echo "dwarf-debuginfod: 0 passed, 0 failed"; exit 0
	fi
done
W=$(mktemp -d)
. tests/dwarf/debuginfod_lib.sh
cleanup() { dbgd_stop; rm -rf "$W"; }
trap cleanup EXIT
mkdir -p "$W/srv" "$W/empty"
ln -s "$VMLINUX" "$W/srv/vmlinux"
export TZ=UTC XDG_CACHE_HOME=$W/cache RETSNOOP_DEBUG_ROOT=$W/empty
unset RETSNOOP_NO_DWARF
P=0 F=0
ok() { P=$((P + 1)); }
bad() { echo "FAIL debuginfod: $*"; F=$((F + 1)); }

# the server (at most 180 s even if this script dies)
if dbgd_start "$W/srv" "$W"; then ok; else bad "server did not scan $W/srv in 60 s: $(tail -2 "$W/server.log")"; fi
PORT=$DBGD_PORT

DEBUGINFOD_URLS=http://127.0.0.1:$PORT DEBUGINFOD_CACHE_PATH=$W/dcache DEBUGINFOD_TIMEOUT=30 \
	timeout 120 "$REPORT" "$REC" >"$W/out.txt" 2>"$W/err.txt"
rc=$?
if [ $rc = 0 ] && [ ! -s "$W/err.txt" ] &&
   diff -u <(sed -n '2,/^--- stderr/p' "$EXPECTED" | sed '$d') "$W/out.txt" >"$W/diff"; then
	ok
else
	bad "fetched vmlinux: exit $rc, stderr '$(head -c 300 "$W/err.txt")'"; head -20 "$W/diff"
fi
if [ -f "$W/dcache/$BID/debuginfo" ] && cmp -s "$W/dcache/$BID/debuginfo" "$VMLINUX"; then
	ok
else
	bad "no copy of the vmlinux in DEBUGINFOD_CACHE_PATH/$BID/debuginfo"
fi
if grep -q "GET /buildid/$BID/debuginfo 200" "$W/server.log"; then ok; else bad "the server log shows no fetch by build-id"; fi

dbgd_stop
# server gone: kallsyms names, one line with debuginfod's answer, exit 0, no hang
DEBUGINFOD_URLS=http://127.0.0.1:$PORT DEBUGINFOD_CACHE_PATH=$W/dcache2 DEBUGINFOD_TIMEOUT=5 \
	timeout 60 "$REPORT" "$REC" >"$W/out2.txt" 2>"$W/err2.txt"
rc=$?
# the one line says what debuginfod answered, not to set DEBUGINFOD_URLS
if [ $rc = 0 ] && [ "$(wc -l <"$W/err2.txt")" = 1 ] &&
   grep -q "and debuginfod http://127.0.0.1:$PORT: build-id [0-9a-f]*: Connection refused\$" "$W/err2.txt" &&
   ! grep -q "set DEBUGINFOD_URLS" "$W/err2.txt" &&
   ! grep -q '(kernel/bpf/' "$W/out2.txt" && grep -q 'map_create+0x' "$W/out2.txt"; then
	ok
else
	bad "unreachable server: exit $rc, stderr '$(head -c 300 "$W/err2.txt")'"
fi
echo "dwarf-debuginfod: $P passed, $F failed"
[ "$F" = 0 ]
