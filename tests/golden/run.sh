#!/usr/bin/env bash
# run.sh - golden tests of retsnoop-report: tests/golden/mkrec writes
# synthetic recordings through format/, retsnoop-report renders each one
# (TZ=UTC) and its stdout, stderr and exit status are diffed against
# tests/golden/expected/NAME.txt. `run.sh --update` rewrites the expected
# files instead (review them against the upstream format before committing).
# Prints "golden: N passed, N failed"; exits non-zero on any failure.
# shellcheck source=tests/golden/lib.sh
. "$(dirname "$0")/lib.sh"

if ! make -s build/retsnoop-report build/mkrec >/dev/null; then
	echo "golden: cannot build retsnoop-report and mkrec" >&2
	echo "golden: 0 passed, 1 failed"
	exit 1
fi
REPORT=$ROOT/build/retsnoop-report
WORK=$ROOT/build/golden
rm -rf "$WORK"
mkdir -p "$WORK" "$EXP"
cd "$WORK" || exit 1
if ! "$ROOT/build/mkrec" .; then
	echo "golden: mkrec failed" >&2
	echo "golden: 0 passed, 1 failed"
	exit 1
fi

# damaged copies of the 3-chunk recording without trailer (chunks are
# ~160 bytes each): cut inside the last chunk; flip a byte of the middle one
size=$(stat -c %s notrailer.rsrec)
cp notrailer.rsrec truncated.rsrec
truncate -s $(( size - 10 )) truncated.rsrec
cp notrailer.rsrec corrupt.rsrec
printf '\xff' | dd of=corrupt.rsrec bs=1 seek=$(( size - 230 )) conv=notrunc status=none
echo "just some text, not a recording" > notarecording.txt
: > empty.rsrec

GOLDEN_SUITE=golden GOLDEN_WORK=$WORK
case_() { golden_case "$@"; }

case_ kprobe_err        kprobe_err.rsrec
case_ kprobe_dec_offs   -C stacks.dec-offs=true kprobe_err.rsrec
case_ kaslr             kaslr.rsrec
case_ fexit             fexit.rsrec
case_ fexit_unfiltered  -C stacks.unfiltered=true -C stacks.emit-addrs=true fexit.rsrec
case_ fexit_addrs       -C stacks.emit-addrs=y fexit.rsrec
case_ results           results.rsrec
case_ stitched          stitched.rsrec
case_ interim           interim.rsrec
case_ idle              idle.rsrec
case_ notrailer         notrailer.rsrec
case_ truncated         truncated.rsrec
case_ corrupt           corrupt.rsrec
case_ drops             drops.rsrec
case_ err_bad_flag      -Z kprobe_err.rsrec
case_ err_missing_file  no-such-file.rsrec
case_ err_not_recording notarecording.txt
case_ err_empty_file    empty.rsrec
case_ err_no_file
case_ err_bad_config    -C stacks.foo=1 kprobe_err.rsrec
case_ err_bad_bool      -C stacks.unfiltered=maybe kprobe_err.rsrec
case_ two_files         kprobe_err.rsrec fexit.rsrec
case_ flight_info       info flight.rsrec
case_ flight_summary    summary flight.rsrec
case_ linkmiss_k        linkmiss_k.rsrec
case_ linkmiss_m        linkmiss_m.rsrec
case_ linkmiss_k_info   info linkmiss_k.rsrec
case_ linkmiss_m_info   info linkmiss_m.rsrec
case_ linkmiss_two      linkmiss_k.rsrec linkmiss_k.rsrec

# the KASLR-shifted recording must render exactly like the unshifted one
if diff <(tail -n +2 "$WORK/kprobe_err.out") <(tail -n +2 "$WORK/kaslr.out") >/dev/null; then
	golden_ok
else
	golden_bad "kaslr_same_as_kprobe: the KASLR slide changed the rendering"
fi
# the compact SESSION_END layout (what the BPF side writes) renders exactly
# like the full one: the same recordings written both ways
mkdir -p "$WORK/compact"
if (cd "$WORK/compact" && RB_COMPACT=1 "$ROOT/build/mkrec" .); then
	for f in kprobe_err fexit results stitched interim idle drops; do
		for fl in "" "--format json" "summary"; do
			# shellcheck disable=SC2086
			if diff <(cd "$WORK" && "$REPORT" $fl "$f.rsrec" 2>&1) \
				<(cd "$WORK/compact" && "$REPORT" $fl "$f.rsrec" 2>&1) >/dev/null &&
				! cmp -s "$WORK/$f.rsrec" "$WORK/compact/$f.rsrec"; then
				golden_ok
			else
				golden_bad "compact_same_as_full: $f ${fl:-(stack view)} differs, or the file is not compact"
			fi
		done
	done
else
	golden_bad "compact_same_as_full: mkrec RB_COMPACT=1 failed"
fi
golden_done
RC=$?

# trace (-T) / LBR (-B) view cases: their own script and counts line
VIEWS_RC=0
"$ROOT/tests/golden/run_views.sh" $([ $UPDATE = 1 ] && echo --update) || VIEWS_RC=1
"$ROOT/tests/golden/run_probes.sh" $([ $UPDATE = 1 ] && echo --update) || VIEWS_RC=1
[ $RC = 0 ] && [ $VIEWS_RC = 0 ]
