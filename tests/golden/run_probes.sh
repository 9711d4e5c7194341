#!/usr/bin/env bash
# run_probes.sh - golden tests of injected-probe (-J) rendering from a
# synthetic recording (build/mkrec_probes): ◎ rows between the calls at
# the hit's depth in the trace view, a gap row for a lost record, an id
# the probe table lacks, a malformed probe record counted, an interim
# snapshot showing only the hits before it, JSON probe rows, Perfetto
# instant events, -A contexts in every args.fmt-mode, and the same
# records without the "probes" blob. Called by run.sh; `--update` rewrites
# the expected files. Prints "golden-probes: N passed, N failed".
# shellcheck source=tests/golden/lib.sh
. "$(dirname "$0")/lib.sh"
REPORT=${REPORT:-$ROOT/build/retsnoop-report}
MKREC_PROBES=${MKREC_PROBES:-$ROOT/build/mkrec_probes}

if [ -z "${NO_BUILD:-}" ] && ! make -s build/retsnoop-report build/mkrec_probes >/dev/null; then
	echo "golden-probes: cannot build retsnoop-report and mkrec_probes" >&2
	echo "golden-probes: 0 passed, 1 failed"
	exit 1
fi
WORK=$ROOT/build/golden-probes
rm -rf "$WORK"
mkdir -p "$WORK" "$EXP"
cd "$WORK" || exit 1
if ! "$MKREC_PROBES" .; then
	echo "golden-probes: mkrec_probes failed" >&2
	echo "golden-probes: 0 passed, 1 failed"
	exit 1
fi

GOLDEN_SUITE=golden-probes GOLDEN_WORK=$WORK
golden_case probes-trace         -T probes.rsrec
golden_case probes-trace-E       -T -E probes.rsrec
golden_case probes-json          --format json probes.rsrec
golden_case probes-noblob        -T probes-noblob.rsrec
# -A contexts: compact CONTEXT column, multiline rows, verbose, JSON
golden_case probes-ctx           -T probes-ctx.rsrec
golden_case probes-ctx-multi     -T -C args.fmt-mode=multiline probes-ctx.rsrec
golden_case probes-ctx-verbose   -T -C args.fmt-mode=verbose probes-ctx.rsrec
golden_case probes-ctx-width     -T -C args.fmt-max-arg-width=20 probes-ctx.rsrec
golden_case probes-ctx-json      --format json probes-ctx.rsrec
# the JSON rows validate against the schema
if python3 "$ROOT/tests/golden/check_report_json.py" schema "$ROOT/docs/report.schema.json" \
	<(TZ=UTC "$REPORT" --format json probes.rsrec probes-ctx.rsrec 2>/dev/null); then
	golden_ok
else
	golden_bad "probes-json-schema: the JSON does not validate"
fi
# JSON and Perfetto stay plain ASCII: a cut context string ends in "..."
if TZ=UTC "$REPORT" --format json --perfetto ascii.json probes-ctx.rsrec >ascii.ndjson 2>/dev/null &&
	! LC_ALL=C grep -q '[^ -~]' ascii.ndjson ascii.json && ! grep -q 'u00e2' ascii.ndjson ascii.json &&
	grep -q "'name'\.\.\." ascii.ndjson; then
	golden_ok
else
	golden_bad "probes-ascii: JSON or Perfetto output is not plain ASCII"
fi
# Perfetto: the hits are instant events among the call slices
if TZ=UTC "$REPORT" --perfetto probes.json probes.rsrec probes-ctx.rsrec >/dev/null 2>&1 &&
	python3 "$ROOT/tests/golden/check_report_json.py" perfetto probes.json &&
	[ "$(grep -o '"ph":"i"' probes.json | wc -l)" = 11 ] &&
	grep -q '"name":"tp:kmem:kmem_cache_free","pid":78,"tid":78,"ts":5000003.000,"args":{"depth":2,"context":{"call_site":"0xffffffff8145c0c0"' probes.json; then
	golden_ok
else
	golden_bad "probes-perfetto: instant events missing or invalid"
fi
golden_done
