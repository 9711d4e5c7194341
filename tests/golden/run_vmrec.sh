#!/usr/bin/env bash
# run_vmrec.sh - golden tests of every report-time filter and every output
# on real recordings made in the Debian 6.12 VM (tests/golden/data/vm-*.rsr,
# remade by tests/golden/mkvmrec.sh; no VM runs here):
#   vm-trace.rsr  -T -E -S, 24 sessions of 8 processes named simfail,
#                 sf-open, sf-mkdir, sf-sleep: EINVAL, ENOENT, EEXIST,
#                 ENOMEM with NULL below it, successes, two long sleeps
#   vm-bpf.rsr    -c bpf, 4 failing sessions, stitched error chains
# Each filter case lists the sessions kept (via --format json and jq) and
# also asserts its class: "some" (keeps some, removes some), "all", "none";
# every filter has a "some" case, so it both removes and keeps. Outputs
# (text stack and -T views, JSON, Perfetto, folded, summary, info on whole
# and truncated copies) are diffed against tests/golden/expected/vmrec-*,
# rendered with TZ=UTC and without DWARF except the -k cases, whose point is
# the -dbg vmlinux's source lines. Machine checks: JSON schema, Perfetto
# structure and one call slice per -T call, folded and summary totals.
# Values given to filters (PIDs, times) are read from the recordings at run
# time. `run_vmrec.sh --update` rewrites the expected files.
# Prints "golden-vmrec: N passed, N failed".
# shellcheck source=tests/golden/lib.sh
. "$(dirname "$0")/lib.sh"
golden_vm_setup golden-vmrec vmrec- vm-trace vm-bpf
T=vm-trace.rsr
B=vm-bpf.rsr
CHECK=$ROOT/tests/golden/check_report_json.py

"$REPORT" --format json $T >all-T.json 2>/dev/null || fail_all "cannot render $T"
"$REPORT" --format json $B >all-B.json 2>/dev/null || fail_all "cannot render $B"
NT=$(wc -l <all-T.json)
NB=$(wc -l <all-B.json)

# ---------------------------------------------- values read from the data
# FIELD of the first session where KEY == VALUE (python: jq 1.6 rounds
# integers above 2^53, such as wall-clock nanoseconds)
first() {
	python3 -c 'import json, sys
for l in open("all-T.json"):
    s = json.loads(l)
    v = s["frames"][0]["func"] if sys.argv[1] == "entry" else s.get(sys.argv[1])
    if sys.argv[2] == "*" or str(v) == sys.argv[2]:
        print(s[sys.argv[3]]); break' "$@"
}
PID_MKDIR=$(first task_comm sf-mkdir pid)
PID_SLEEP=$(first task_comm sf-sleep pid)
PID_FIRST=$(first pid '*' pid)
REC_START=$("$REPORT" info $T | sed -n 's/^Start time: *//p')
START_NS=$(date -u -d "${REC_START% *}" +%s%N)
MKDIR_NS=$(first entry __x64_sys_mkdirat start_ns)
SLEEP_NS=$(first entry __x64_sys_clock_nanosleep start_ns)
LAST_NS=$(python3 -c 'import json; print([json.loads(l) for l in open("all-T.json")][-1]["start_ns"])')
clock() { echo "$(date -u -d "@${1:0:-9}" "+$2").${1: -9}"; }   # NS FORMAT: exact ns
SINCE_CLOCK=$(clock "$MKDIR_NS" %H:%M:%S)             # exactly a session's start: kept
UNTIL_FULL=$(clock "$SLEEP_NS" '%Y-%m-%d %H:%M:%S')   # exactly a session's start: kept
REL_SINCE=+$(( (SLEEP_NS - START_NS) / 1000000 + 1 ))ms   # just after the first sleep began
REL_UNTIL=+$(( (LAST_NS - START_NS) / 1000000 ))ms        # just before the last session
BEFORE=$(date -u -d "@$((START_NS / 1000000000 - 1))" +%H:%M:%S)
for v in PID_MKDIR PID_SLEEP PID_FIRST START_NS MKDIR_NS SLEEP_NS LAST_NS; do
	[[ ${!v} =~ ^[0-9]+$ ]] || fail_all "cannot read $v from the recordings (got '${!v}')"
done

# list CLASS NAME REC ARGS...: the sessions kept, one line each; CLASS is
# some / all / none: what the filter must keep of REC's sessions
list() {
	local class=$1 name=$2 rec=$3 n total got; shift 3
	{
		printf '$ retsnoop-report %s --format json %s | jq\n' "$*" "$rec"
		"$REPORT" "$@" --format json "$rec" >"$name.json" 2>"$name.stderr"
		echo "--- exit $?"
		jq -r '"\(.session_id) \(.pid) \(.task_comm) \(.frames[0].func) \(.frames[0].result.text) \(.latency_ns / 1000 | floor)us"' <"$name.json"
		echo "--- stderr"
		cat "$name.stderr"
	} >"$name.out"
	golden_compare "$name"
	n=$(wc -l <"$name.json")
	total=$([ "$rec" = $T ] && echo "$NT" || echo "$NB")
	got=some
	[ "$n" = 0 ] && got=none
	[ "$n" = "$total" ] && got=all
	[ "$got" = "$class" ] || golden_bad "$name: kept $n of $total sessions, expected $class"
}

# ------------------------------------------------------------ filters
list all  all-T           $T
list all  all-B           $B
list some p               $T -p "$PID_MKDIR" -p "$PID_SLEEP"
list some P               $T -P "$PID_FIRST"
list all  P-keep          $T -P 1
list some n               $T -n simfail
list some n-glob          $T -n 'sf-*'
list some N               $T -N 'sf-*'
list all  N-keep          $T -N 'nginx*'
list some x               $T -x ENOENT
list some x-null          $T -x NULL
list some x-two           $T -x EEXIST -x EINVAL
list all  x-any           $T -x any
list some x-efault        $B -x EFAULT
list some X               $T -X ENOENT
list some X-null          $B -X NULL
list all  X-keep          $B -X EPERM
list some L               $T -L 100
list some L-frac          $T -L 0.5
list all  S               $T -S
list all  S-no-success    $B -S
list some success-only    $T --success-only
list some Sn              $T -Sn
list all  Sn-keep         $B -Sn
list some stack-has       $T --stack-has array_map_alloc
list some stack-has-kernel $T --stack-has common_nsleep
list some stack-has-and   $T --stack-has '*openat*' --stack-has do_filp_open
list some stack-has-stitched $B --stack-has resolve_pseudo_ldimm64
list none stack-has-none  $T --stack-has 'nosuch_*'
list some entry           $T --entry '*sys_mkdirat'
list some entry-or        $T --entry '*sys_bpf' --entry '*nanosleep'
list some since-clock     $T --since "$SINCE_CLOCK"
list some until-full      $T --until "$UNTIL_FULL"
list some since-until-rel $T --since "$REL_SINCE" --until "$REL_UNTIL"
list all  since-keep      $T --since +0s
list some combined        $T -n simfail -x EINVAL
list some combined-3      $T -Sn -L 0.3 --entry '*openat'

# impossible combinations: one line on stderr, exit 2
golden_case err-success-only-no-success --success-only $B
golden_case err-success-only-x --success-only -x ENOENT $T
golden_case err-success-only-Sn --success-only -Sn $T
golden_case err-entry-none    --entry '*sys_write' $T
golden_case err-until-before  --until "$BEFORE" $T
golden_case err-T-not-recorded -T $B
golden_case err-p-P           -p "$PID_MKDIR" -P "$PID_MKDIR" $T
golden_case err-x-X           -x ENOENT -X ENOENT $T
golden_case err-since-until   --since +2s --until +1s $T
golden_case err-S-x           -S -x ENOENT $T

# ------------------------------------------------------------ outputs
golden_case text-T-all        --entry '*sys_bpf' $T
golden_case text-T-trace      -T -n sf-mkdir $T
golden_case text-T-stack      -E -x ENOMEM $T
golden_case text-B            $B
golden_case text-B-addrs      -C stacks.emit-addrs=true -x EFAULT $B
golden_case json-T            --format json -x ENOMEM $T
golden_case json-B            --format json $B
golden_case perfetto-T-stdout --perfetto perfetto-T.json -x ENOMEM $T
{ printf '$ cat perfetto-T.json\n'; cat perfetto-T.json; } >perfetto-T.out; golden_compare perfetto-T
golden_case perfetto-B-stdout --perfetto perfetto-B.json --format json -x EFAULT $B
{ printf '$ cat perfetto-B.json\n'; cat perfetto-B.json; } >perfetto-B.out; golden_compare perfetto-B
golden_case folded-T          --folded $T
golden_case folded-T-latency  --folded-weight=latency $T
golden_case folded-B          --folded -Sn $B
golden_case summary-T         summary $T
golden_case summary-T-errors  summary -Sn $T
golden_case summary-B         summary $B
golden_case info-T            info $T
golden_case info-B            info $B

# truncated copies: cut right before the trailer block (the recorder was
# killed after its last flush) and inside the last chunk
python3 - $T <<'PY' || fail_all "cannot cut $T"
import struct, sys
src = sys.argv[1]
d = open(src, 'rb').read()
off, blocks = 32, []
while off + 32 <= len(d):
    magic, typ, comp = struct.unpack_from('<3I', d, off)
    assert magic == 0x4b425352, f"no block at {off}"
    blocks.append((off, typ, comp))
    off += 32 + comp
trailer = [b for b in blocks if b[1] == 6][0]
last_chunk = [b for b in blocks if b[1] == 5][-1]
open('cut-trailer.rsr', 'wb').write(d[:trailer[0]])
open('cut-chunk.rsr', 'wb').write(d[:last_chunk[0] + 32 + last_chunk[2] // 2])
PY
golden_case info-cut-trailer  info cut-trailer.rsr
golden_case info-cut-chunk    info cut-chunk.rsr
golden_case text-cut-trailer  -Sn cut-trailer.rsr
golden_case text-cut-chunk    -Sn cut-chunk.rsr

# DWARF: source lines and inlined frames from the -dbg vmlinux of the kernel
# the recordings were made on
KENV=${KENV:-/opt/retsnoop-kernels/6.12.env}
VMLINUX=$( [ -f "$KENV" ] && . "$KENV" && echo "${VMLINUX_DBG:-}")
if [ -n "$VMLINUX" ] && [ -f "$VMLINUX" ]; then
	export XDG_CACHE_HOME=$WORK/cache
	GOLDEN_ENV="env -u RETSNOOP_NO_DWARF"
	GOLDEN_SED="s|$VMLINUX|VMLINUX|g"
	golden_case dwarf-text-ss   -ss -k "$VMLINUX" -E -x ENOMEM $T
	golden_case dwarf-text-s    -s -k "$VMLINUX" -x EFAULT $B
	golden_case dwarf-json      --format json -k "$VMLINUX" -x ENOMEM $B
	golden_case dwarf-stack-has-inline --stack-has __do_sys_bpf -sn -k "$VMLINUX" -E $B
	golden_case dwarf-stack-has-inline-ss --stack-has __do_sys_bpf -ss -k "$VMLINUX" -x EFAULT $B
	env -u RETSNOOP_NO_DWARF "$REPORT" --format json -k "$VMLINUX" $T >dwarf-T.json 2>/dev/null
	env -u RETSNOOP_NO_DWARF "$REPORT" --format json -s -k "$VMLINUX" $T >dwarf-s-T.json 2>/dev/null
	unset GOLDEN_ENV GOLDEN_SED
	# every frame found on the kernel stack has a source line; -s has no inlines
	count() { jq -s "map($1) | add" "$2"; }
	if [ "$(count '[.frames[] | select(.kstack_index != null and .source == null)] | length' dwarf-T.json)" = 0 ] &&
	   [ "$(count '[.frames[] | select(.source != null)] | length' dwarf-T.json)" -gt 0 ] &&
	   [ "$(count '[.kstack[] | select(.inlines != [])] | length' dwarf-T.json)" -gt 0 ] &&
	   [ "$(count '[.kstack[], .frames[] | select(.inlines != [])] | length' dwarf-s-T.json)" = 0 ] &&
	   [ "$(count '[.kstack[] | select(.source != null)] | length' dwarf-s-T.json)" -gt 0 ]; then
		golden_ok
	else
		golden_bad "dwarf-json-fields: frames on the kernel stack without source, or inlines with -s"
	fi
	SCHEMA_FILES="all-T.json all-B.json dwarf-T.json dwarf-s-T.json"
else
	golden_bad "dwarf: no -dbg vmlinux for the recordings' kernel ($KENV; scripts/setup.sh fetches it)"
	SCHEMA_FILES="all-T.json all-B.json"
fi

# ------------------------------------------------------------ machine checks
for f in $SCHEMA_FILES; do
	if out=$(python3 "$CHECK" schema "$ROOT/docs/report.schema.json" "$f" 2>&1); then
		golden_ok
	else
		golden_bad "schema $f: $out"
	fi
done
# -T: every session of vm-trace carries its entry/exit records in JSON
if [ "$(jq -s 'map(select(.trace | length == 0)) | length' all-T.json)" = 0 ] &&
   [ "$(jq -s 'map(.trace[] | select(.type == "exit" and .result == null)) | length' all-T.json)" = 0 ]; then
	golden_ok
else
	golden_bad "json-trace: a -T session without trace records, or an exit without result"
fi
"$REPORT" --perfetto all-T-perfetto.json -E $T >/dev/null 2>&1
"$REPORT" --perfetto all-B-perfetto.json -E $B >/dev/null 2>&1
for f in all-T-perfetto.json all-B-perfetto.json perfetto-T.json perfetto-B.json; do
	if out=$(python3 "$CHECK" perfetto "$f" 2>&1); then
		golden_ok
	else
		golden_bad "perfetto $f: $out"
	fi
done
# one call slice per traced call (-T entry record), per thread track, and
# failing exits marked
if python3 - all-T.json all-T-perfetto.json <<'PY'
import json, sys
sess = [json.loads(l) for l in open(sys.argv[1])]
ev = json.load(open(sys.argv[2]))["traceEvents"]
calls = {}
errs = {}
for e in ev:
    if e.get("ph") == "X" and e.get("cat") == "call":
        calls[(e["pid"], e["tid"])] = calls.get((e["pid"], e["tid"]), 0) + 1
        errs[(e["pid"], e["tid"])] = errs.get((e["pid"], e["tid"]), 0) + (e.get("cname") == "terrible")
want, want_err = {}, {}
for s in sess:
    k = (s["pid"], s["tid"])
    want[k] = want.get(k, 0) + sum(t["type"] == "entry" for t in s["trace"])
    want_err[k] = want_err.get(k, 0) + sum(t["type"] == "exit" and t["result"]["is_error"] for t in s["trace"])
assert calls == want, f"call slices per track {calls} != -T entries {want}"
assert errs == want_err, f"red slices per track {errs} != failing exits {want_err}"
assert len(want) == len({(s['pid'], s['tid']) for s in sess}) >= 4
PY
then golden_ok; else golden_bad "perfetto-calls: slices do not match the -T records"; fi
# folded: one count per session; latency weights add up to the entry latencies
if [ "$(awk '{ n += $NF } END { print n }' folded-T.stdout)" = "$NT" ] &&
   [ "$(awk '{ n += $NF } END { print n }' folded-B.stdout)" = "$NB" ]; then
	golden_ok
else
	golden_bad "folded-counts: counts do not add up to the number of sessions"
fi
lat_sum=$(jq -s 'map(.latency_ns / 1000 | floor) | add' all-T.json)
frames=$(jq -s 'map(.frames | length) | add' all-T.json)
w_sum=$(awk '{ n += $NF } END { print n }' folded-T-latency.stdout)
if [ "$w_sum" -le "$lat_sum" ] && [ "$w_sum" -ge $((lat_sum - frames)) ]; then
	golden_ok
else
	golden_bad "folded-latency: weights add up to $w_sum us, entry latencies to $lat_sum us"
fi
# summary and info count what JSON lists
fails=$(jq -s 'map(select(.is_err)) | length' all-T.json)
if grep -q "^SESSIONS: $NT ($fails failed, $((NT - fails)) succeeded)" summary-T.stdout &&
   grep -q "Records: .* $NT session(s) ($fails failed" info-T.stdout &&
   grep -q "Integrity: *complete" info-T.stdout &&
   grep -q "Integrity: *TRUNCATED" info-cut-trailer.stdout &&
   grep -q "Integrity: *DAMAGED" info-cut-chunk.stdout; then
	golden_ok
else
	golden_bad "summary-info-counts: summary/info disagree with the JSON session list or integrity"
fi

golden_done
