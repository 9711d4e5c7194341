#!/usr/bin/env bash
# run.sh - DWARF symbolizer correctness: compares `retsnoop-report
# addr2line -i` with `llvm-symbolizer --inlining` on the Debian -dbg vmlinux
# (VMLINUX, or VMLINUX_DBG from $KENV, default /opt/retsnoop-kernels/6.12.env)
# over three address sets: 2000 call-site return addresses (-1), 2000
# function entries, and the real kernel stack of a VM recording
# (tests/dwarf/data/bpf-percpu-array.rsr, unslid, -1; the report's own
# rendering of it is checked too), cold and then warm (cache), the same
# cold output with 1 and 4 indexing threads, and checks the cache survives
# truncation; then run_report.sh, run_debuginfod.sh,
# run_module.sh and run_pathglob.sh (see each). Prints "dwarf-*: N passed, N failed" lines.
set -uo pipefail
cd "$(dirname "$0")/../.."
KENV=${KENV:-/opt/retsnoop-kernels/6.12.env}
if [ -z "${VMLINUX:-}" ] && [ -f "$KENV" ]; then VMLINUX=$(. "$KENV"; echo "${VMLINUX_DBG:-}"); fi
if [ -z "${VMLINUX:-}" ] || [ ! -f "$VMLINUX" ]; then
	echo "dwarf: no vmlinux with DWARF (run scripts/fetch-kernels.sh or set VMLINUX)"
	echo "dwarf-setup: 0 passed, 1 failed"; exit 1
fi
LLVM=$(command -v llvm-symbolizer || command -v llvm-symbolizer-14) || {
	echo "dwarf-setup: llvm-symbolizer missing (apt-get install llvm)"; echo "dwarf-setup: 0 passed, 1 failed"; exit 1; }
REPORT=${REPORT:-build/retsnoop-report}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
ADDRS_DIR=${ADDRS_DIR:-${TMPDIR:-/tmp}/retsnoop-bench-addrs}
tests/dwarf/mkaddrs.sh "$VMLINUX" "$ADDRS_DIR" || { echo "dwarf-setup: 0 passed, 1 failed"; exit 1; }
seeded() { openssl enc -aes-256-ctr -pass pass:"$1" -nosalt </dev/zero 2>/dev/null || yes "$1"; }
shuf -n 2000 --random-source=<(seeded rets) "$ADDRS_DIR/rets.txt" >"$W/rets.txt"
shuf -n 2000 --random-source=<(seeded ents) "$ADDRS_DIR/entries.txt" >"$W/entries.txt"
# a real captured stack: the kernel stack entries of the 6.12 VM recording
# tests/dwarf/data/bpf-percpu-array.rsr inside vmlinux text, KASLR-unslid
# (recorded runtime _text - the vmlinux's _text), minus 1 as the stack view
# looks return addresses up
REC=tests/dwarf/data/bpf-percpu-array.rsr
RT_TEXT=$("$REPORT" info "$REC" | sed -n 's/^Runtime _text: *//p')
read -r LT_TEXT LT_ETEXT < <(nm "$VMLINUX" | awk '$3 == "_text" { t = $1 } $3 == "_etext" { e = $1 }
	END { print t, e }')
SLIDE=$(( RT_TEXT - 0x$LT_TEXT ))
TEXT_LO=$(printf '%x' $(( 0x$LT_TEXT + SLIDE )))
TEXT_HI=$(printf '%x' $(( 0x$LT_ETEXT + SLIDE )))
"$REPORT" --format json -sn "$REC" >"$W/rec.json" 2>/dev/null
python3 tests/dwarf/rsr_stacks.py addrs "$W/rec.json" "$SLIDE" "$TEXT_LO" "$TEXT_HI" >"$W/stack.txt"

FAIL=0
export XDG_CACHE_HOME="$W/cache"
for set in rets entries stack; do
	for pass in cold warm; do
		"$REPORT" addr2line -e "$VMLINUX" -i <"$W/$set.txt" >"$W/ours-$set-$pass.txt" 2>"$W/err" ||
			{ echo "dwarf-$set-$pass: addr2line failed: $(head -1 "$W/err")"; }
	done
	"$LLVM" --inlining -e "$VMLINUX" <"$W/$set.txt" >"$W/llvm-$set.txt"
	python3 tests/dwarf/compare.py --name "dwarf-compare-$set" "$W/$set.txt" \
		"$W/ours-$set-cold.txt" "$W/llvm-$set.txt" --show 5 || FAIL=1
	if cmp -s "$W/ours-$set-cold.txt" "$W/ours-$set-warm.txt"; then
		echo "dwarf-warm-$set: 1 passed, 0 failed"
	else
		echo "dwarf-warm-$set: cached output differs from cold output"
		echo "dwarf-warm-$set: 0 passed, 1 failed"; FAIL=1
	fi
done

# the CUs of a batch are indexed on several threads, each with its own
# libdw handle: one thread and four threads (no cache) must give the same
# bytes as the default (one per CPU) cold run above
P=0 F=0
for t in 1 4; do
	if RETSNOOP_SYM_THREADS=$t RETSNOOP_NO_SYMCACHE=1 "$REPORT" addr2line -e "$VMLINUX" -i \
		<"$W/rets.txt" >"$W/threads-$t.txt" 2>"$W/err" && cmp -s "$W/threads-$t.txt" "$W/ours-rets-cold.txt"; then
		P=$((P + 1))
	else
		echo "  $t indexing thread(s): output differs from the default cold run: $(head -1 "$W/err")"; F=$((F + 1))
	fi
done
echo "dwarf-threads: $P passed, $F failed"
[ "$F" = 0 ] || FAIL=1

# the report itself on that recording: its source lines and inlined frames
# (slide, addr - 1, inline order) against llvm-symbolizer
"$REPORT" --format json -k "$VMLINUX" "$REC" >"$W/rec-dwarf.json" 2>"$W/err" ||
	echo "dwarf-report-stack: report failed: $(head -1 "$W/err")"
python3 tests/dwarf/rsr_stacks.py check dwarf-report-stack "$W/rec-dwarf.json" "$SLIDE" \
	"$TEXT_LO" "$TEXT_HI" "$W/llvm-stack.txt" || FAIL=1

# damaged caches: truncated, flipped byte, garbage; must give the cold output
IDX=$(ls "$XDG_CACHE_HOME"/retsnoop/*.idx 2>/dev/null | head -1)
if [ -z "$IDX" ]; then
	echo "dwarf-cache: no cache file written"; echo "dwarf-cache: 0 passed, 1 failed"; exit 1
fi
cp "$IDX" "$W/good.idx"
P=0 F=0
damage() {
	case $1 in
	truncate) truncate -s $(( $(stat -c %s "$W/good.idx") / 2 )) "$IDX" ;;
	flip) cp "$W/good.idx" "$IDX"
	      printf '\xff\xff\xff\xff' | dd of="$IDX" bs=1 seek=$(( $(stat -c %s "$IDX") - 5000 )) conv=notrunc status=none ;;
	garbage) head -c 100000 /dev/urandom >"$IDX" ;;
	empty) : >"$IDX" ;;
	esac
}
for kind in truncate flip garbage empty; do
	damage "$kind"
	if "$REPORT" addr2line -e "$VMLINUX" -i <"$W/rets.txt" >"$W/damaged.txt" 2>"$W/err" &&
	   cmp -s "$W/damaged.txt" "$W/ours-rets-cold.txt"; then
		P=$((P + 1))
	else
		echo "  cache damage '$kind': wrong output or failure: $(head -1 "$W/err")"; F=$((F + 1))
	fi
done
echo "dwarf-cache: $P passed, $F failed"
[ "$F" = 0 ] || FAIL=1
# the report's DWARF stack view, debuginfod, and (in the VM, slow: skip with
# DWARF_NO_VM=1) record-time ':path' globs
tests/dwarf/run_report.sh || FAIL=1
tests/dwarf/run_debuginfod.sh || FAIL=1
# kernel modules: the overlay.ko debug file against llvm-symbolizer and
# eu-addr2line, then (VM part skipped with DWARF_NO_VM=1) a real module stack
tests/dwarf/run_module.sh || FAIL=1
[ -n "${DWARF_NO_VM:-}" ] || tests/dwarf/run_pathglob.sh || FAIL=1
exit $FAIL
