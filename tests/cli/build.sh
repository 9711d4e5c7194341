#!/usr/bin/env bash
# build.sh - build-system checks: retsnoop-report builds from an empty
# build directory without clang and bpftool (it never needs the BPF
# skeleton), and touching a header rebuilds only the objects that include it.
# Prints "cli-build: N passed, N failed"; exits non-zero on failure.
set -u
cd "$(dirname "$0")/../.." || exit 1
ROOT=$PWD
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
PASS=0 FAIL=0
ok()  { PASS=$((PASS + 1)); }
bad() { FAIL=$((FAIL + 1)); echo "FAIL $*"; }

# retsnoop-report without the BPF toolchain, from a clean directory
B=$W/b
if ! make -s -C "$ROOT" -j2 O="$B" CLANG=/nonexistent/clang BPFTOOL=/nonexistent/bpftool \
	"$B/retsnoop-report" >"$W/log" 2>&1; then
	bad "retsnoop-report without clang/bpftool: make failed: $(tail -3 "$W/log")"
elif [ ! -x "$B/retsnoop-report" ]; then
	bad "retsnoop-report without clang/bpftool: no binary"
elif [ -e "$B/retsnoop.skel.h" ] || [ -e "$B/retsnoop.bpf.o" ]; then
	bad "retsnoop-report without clang/bpftool: the BPF skeleton was built"
elif ! "$B/retsnoop-report" --help >/dev/null 2>&1; then
	bad "retsnoop-report without clang/bpftool: the binary does not run"
else
	ok
fi

# header dependencies: touching a header rebuilds the objects that include
# it and not the others (format/ never includes symbols/ headers); its
# modification time is put back afterwards
if [ -x "$B/retsnoop-report" ]; then
	touch "$W/stamp"; sleep 1
	touch -r "$ROOT/symbols/dwarf_path.h" "$W/h"   # its modification time
	touch "$ROOT/symbols/dwarf_path.h"
	make -s -C "$ROOT" O="$B" CLANG=/nonexistent/clang BPFTOOL=/nonexistent/bpftool \
		"$B/retsnoop-report" >/dev/null 2>&1
	touch -r "$W/h" "$ROOT/symbols/dwarf_path.h" 2>/dev/null
	rebuilt=$(find "$B" -name '*.o' -newer "$W/stamp" | sed "s,^$B/,," | sort | tr '\n' ' ')
	if ! grep -q 'symbols/dwarf_path.o' <<<"$rebuilt"; then
		bad "touching symbols/dwarf_path.h did not rebuild symbols/dwarf_path.o (rebuilt: $rebuilt)"
	elif grep -q 'format/' <<<"$rebuilt"; then
		bad "touching symbols/dwarf_path.h rebuilt format/ objects: $rebuilt"
	else
		ok
	fi
fi

echo "cli-build: $PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
