#!/usr/bin/env bash
# run_args.sh - golden tests of captured-argument (-A) rendering:
# build/mkrec_args writes synthetic recordings carrying a BTF blob and a
# func_btf table built with libbpf's BTF API plus FUNC_ARGS records
# (args.rsrec), the same records without blobs (args-nobtf.rsrec) and with
# a broken blob (args-badbtf.rsrec). Each case's stdout, stderr and exit
# status are diffed against tests/golden/expected/args-*.txt: the stack
# and trace views in the three -C args.fmt-mode layouts and under
# args.fmt-max-arg-width, NDJSON (also checked against
# docs/report.schema.json) and the Perfetto file (also checked by
# check_report_json.py perfetto). `--update` rewrites the expected files.
# Prints "golden-args: N passed, N failed".
# shellcheck source=tests/golden/lib.sh
. "$(dirname "$0")/lib.sh"
REPORT=${REPORT:-$ROOT/build/retsnoop-report}
MKREC_ARGS=${MKREC_ARGS:-$ROOT/build/mkrec_args}
CHECK=$ROOT/tests/golden/check_report_json.py

if [ -z "${NO_BUILD:-}" ] && ! make -s build/retsnoop-report build/mkrec_args >/dev/null; then
	echo "golden-args: cannot build retsnoop-report and mkrec_args" >&2
	echo "golden-args: 0 passed, 1 failed"
	exit 1
fi
WORK=$ROOT/build/golden-args
rm -rf "$WORK"
mkdir -p "$WORK" "$EXP"
cd "$WORK" || exit 1
if ! "$MKREC_ARGS" .; then
	echo "golden-args: mkrec_args failed" >&2
	echo "golden-args: 0 passed, 1 failed"
	exit 1
fi

GOLDEN_SUITE=golden-args GOLDEN_WORK=$WORK GOLDEN_PREFIX=args-
case_() { golden_case "$@"; }

case_ compact            args.rsrec
case_ multiline          -C args.fmt-mode=multiline args.rsrec
case_ verbose            -C args.fmt-mode=v args.rsrec
case_ width16            -C args.fmt-max-arg-width=16 args.rsrec
case_ width16-m          -C args.fmt-mode=m -C args.fmt-max-arg-width=16 args.rsrec
case_ stack-only         -E args.rsrec
case_ json               --format json args.rsrec
case_ nobtf              args-nobtf.rsrec
case_ badbtf             args-badbtf.rsrec
case_ err-mode           -C args.fmt-mode=fancy args.rsrec
case_ err-width          -C args.fmt-max-arg-width=251 args.rsrec
case_ filter-stack-has   --stack-has many_args args.rsrec
# a real recording: `retsnoop-record -F -A -T` of simfail open-missing in the
# 6.12 VM (openat path with struct open_how, struct filename, nameidata)
cp "$ROOT/tests/golden/data/vm-args-F.rsr" .
case_ vm-F               -sn -T vm-args-F.rsr
case_ vm-F-json          -sn --format json vm-args-F.rsr

# the JSON lines follow the schema (args per frame and trace entry)
if out=$(python3 "$CHECK" schema "$ROOT/docs/report.schema.json" "$WORK/json.stdout" 2>&1); then
	golden_ok
else
	golden_bad "json-schema: $out"
fi

# Perfetto: arguments in the call slices' args; a valid trace-event file
TZ=UTC "$REPORT" --perfetto "$WORK/trace.json" args.rsrec >/dev/null 2>&1
{ echo "\$ retsnoop-report --perfetto trace.json args.rsrec"; python3 -m json.tool --indent 1 "$WORK/trace.json"; } \
	>"$WORK/perfetto.out" 2>&1
golden_compare perfetto
if out=$(python3 "$CHECK" perfetto "$WORK/trace.json" 2>&1); then
	golden_ok
else
	golden_bad "perfetto-check: $out"
fi

# rendering needs no BTF of the host: the same output with the host's
# /sys/kernel/btf hidden behind an empty tmpfs in a mount namespace, for
# the synthetic recording and for every committed -A VM recording
# (tests/golden/data/*args*.rsr); needs root (unshare -m): said and not
# counted otherwise
hidden_btf_same() {  # NAME ARGS...
	local name=$1; shift
	TZ=UTC "$REPORT" "$@" >"$WORK/$name.shown" 2>&1
	# shellcheck disable=SC2016
	TZ=UTC unshare -m sh -c 'mount -t tmpfs -o size=64k none /sys/kernel/btf &&
		[ -z "$(ls -A /sys/kernel/btf)" ] || { echo "BTF not hidden"; exit 99; }
		exec "$@"' sh "$REPORT" "$@" >"$WORK/$name.hidden" 2>&1
	if [ ! -s "$WORK/$name.shown" ]; then
		golden_bad "$name: no output"
	elif diff -u "$WORK/$name.shown" "$WORK/$name.hidden" >"$WORK/$name.diff"; then
		golden_ok
	else
		golden_bad "$name: the output changed with the host's BTF hidden:"
		head -c 4000 "$WORK/$name.diff"
	fi
}
if [ -d /sys/kernel/btf ] && unshare -m true 2>/dev/null; then
	hidden_btf_same nobtf-host-compact args.rsrec
	hidden_btf_same nobtf-host-verbose -T -C args.fmt-mode=verbose args.rsrec
	hidden_btf_same nobtf-host-json --format json args.rsrec
	for r in "$ROOT"/tests/golden/data/*args*.rsr; do
		[ -f "$r" ] || continue
		hidden_btf_same "nobtf-host-$(basename "$r" .rsr)" -sn "$r"
		hidden_btf_same "nobtf-host-$(basename "$r" .rsr)-json" -sn --format json "$r"
	done
else
	echo "golden-args: note: no mount namespace (needs root): host-BTF-hidden checks not run" >&2
fi
golden_done
