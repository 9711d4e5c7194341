#!/usr/bin/env bash
# probes.sh - VM end-to-end checks of injected probes (-J) on a real
# kernel (Debian 6.12 in qemu), one boot: a failing openat (simfail
# open-missing) traced with -T passes through every probe kind (a kprobe
# in path_openat's walk, a kprobe at an offset, a kretprobe, a raw
# tracepoint, a classic tracepoint glob matching two events); their ◎ rows
# sit at the right depth between the right calls in text and JSON, in the
# kprobe.multi and fentry attach modes, in retsnoop-report and the live
# retsnoop; -I gives one interim snapshot per hit with the stack at the
# hit; with -A each hit's context (regs, raw tracepoint arguments,
# tracepoint fields and __data_loc strings) in text and JSON next to the
# functions' arguments; specs that match nothing or name no function are
# one-line errors;
# on Linux 6.1 (a second boot) rawtp specs are refused, one line each.
# Prints "vm-probes: N passed, N failed"; exits non-zero on failure.
set -u
cd "$(dirname "$0")/../.."
ROOT=$PWD
# shellcheck source=tests/vm/suite_lib.sh
. "$ROOT/tests/vm/suite_lib.sh"
suite_begin vm-probes retsnoop-record retsnoop simfail
OG='-e *sys_openat -a do_sys_openat2 -a do_filp_open -a path_openat -a getname*'
PR="-J kprobe:walk_component -J kprobe:alloc_empty_file+0x4 -J kretprobe:alloc_empty_file -J rawtp:kmem_cache_alloc -J tp:kmem:kmem_cache_*"
cat >"$WORK/g/guest.sh" <<EOF
#!/bin/sh
cd "\$(dirname "\$0")"
R=./retsnoop-record
run() { name=\$1; shift; "\$@" >/out/\$name.out 2>/out/\$name.err; echo \$? >/out/\$name.rc; }
set -f   # the globs are for retsnoop, not the shell
for m in M F; do
	run trace-\$m \$R -v -\$m -T -E $OG $PR -o /out/trace-\$m.rsr -- ./simfail open-missing
done
run dry \$R --dry-run $OG $PR
# -A: each hit's context, typed by the recording's BTF
run actx \$R -T -E -A $OG $PR -o /out/actx.rsr -- ./simfail open-missing
run actx-cut \$R -T -E -A -C args.max-sized-arg-size=32 $OG -J tp:kmem:kmem_cache_free -o /out/actx-cut.rsr -- ./simfail open-missing
run live ./retsnoop -T -E $OG $PR -o /out/live.rsr -- ./simfail open-missing
run interim \$R -I $OG -J kprobe:walk_component -o /out/interim.rsr -- ./simfail open-missing
printf 'kprobe:walk_component\n' >./probes.txt
run atfile \$R -T -E $OG -J @./probes.txt -o /out/atfile.rsr -- ./simfail open-missing
run nomatch \$R -T $OG -J 'tp:nosuch_cat:*' -J 'tp:kmem:nosuch_event' -o /out/nomatch.rsr -- ./simfail open-missing
run nofunc \$R -T $OG -J kprobe:no_such_function_xyz -o /out/nofunc.rsr -- ./simfail open-missing
run norawtp \$R -T $OG -J rawtp:no_such_tracepoint_xyz -o /out/norawtp.rsr -- ./simfail open-missing
EOF
chmod +x "$WORK/g/guest.sh"
boot_guest 900
rep() { TZ=UTC "$WORK/retsnoop-report" "$@" 2>/dev/null; }
indent() { sed -n "s/^\( *\)$1.*/\1/p" | head -1 | awk '{ print length($0) }'; }

for m in M F; do
	f=$OUT/trace-$m.rsr
	[ -f "$f" ] || { bad "trace -$m: no recording ($(head -2 "$OUT/trace-$m.err" 2>/dev/null))"; continue; }
	check "trace -$m: 6 probes from 5 specs (the glob matched two events)" \
		grep -q '^6 injected probes from 5 -J specs' "$OUT/trace-$m.err"
	txt=$(rep -T "$f")
	check "trace -$m: one failing session" [ "$(grep -c 'TID/PID' <<<"$txt")" = 1 ]
	for p in 'kprobe:walk_component+0x0' 'kprobe:alloc_empty_file+0x4' 'kretprobe:alloc_empty_file' \
		 'rawtp:kmem_cache_alloc' 'tp:kmem:kmem_cache_alloc' 'tp:kmem:kmem_cache_free'; do
		check "trace -$m: a ◎ $p row" grep -q "◎ $p\$" <<<"$txt"
	done
	# path_openat is the 4th traced level (indent 12): its probes one deeper
	pin=$(indent '→ path_openat' <<<"$txt")
	check "trace -$m: path_openat at indent 12 (${pin:-none})" [ "${pin:-x}" = 12 ]
	for p in 'kprobe:walk_component' 'kretprobe:alloc_empty_file' 'kprobe:alloc_empty_file+0x4'; do
		n=$(indent "◎ $p" <<<"$txt")
		check "trace -$m: $p inside path_openat (indent ${n:-none})" [ "${n:-x}" = 16 ]
	done
	# the rows between path_openat's entry and exit: the walk and the file's allocation
	body=$(sed -n '/→ path_openat/,/← path_openat/p' <<<"$txt")
	check "trace -$m: kprobe before kretprobe of alloc_empty_file" \
		awk '/kprobe:alloc_empty_file/ { k = NR } /kretprobe:alloc_empty_file/ { r = NR } END { exit !(k && r && k < r) }' <<<"$body"
	check "trace -$m: walk_component hit inside path_openat" grep -q 'walk_component' <<<"$body"
	# putname frees the name after do_filp_open returned: inside do_sys_openat2 (indent 8)
	after=$(sed -n '/← do_filp_open/,/← do_sys_openat2/p' <<<"$txt")
	n=$(indent '◎ tp:kmem:kmem_cache_free' <<<"$after")
	check "trace -$m: kmem_cache_free after do_filp_open at indent 8 (${n:-none})" [ "${n:-x}" = 8 ]
	check "trace -$m: the entry function still fails with -ENOENT" grep -Eq '^← __x64_sys_openat +\[-ENOENT\]' <<<"$txt"
	# JSON: probe rows with depth and sequence ids between their calls
	rep --format json "$f" >"$WORK/trace-$m.json"
	check "trace -$m: JSON validates against the schema" \
		python3 "$ROOT/tests/golden/check_report_json.py" schema "$ROOT/docs/report.schema.json" "$WORK/trace-$m.json"
	check "trace -$m: JSON probe rows in sequence between path_openat's entry and exit, depth 5" python3 - "$WORK/trace-$m.json" <<'PY'
import json, sys
s = json.loads(open(sys.argv[1]).readline())
t = s["trace"]
seqs = [r["seq_id"] for r in t]
assert seqs == sorted(seqs), "not in sequence order"
ent = [r for r in t if r["type"] == "entry" and r["func"] == "path_openat"][0]
ext = [r for r in t if r["type"] == "exit" and r["func"] == "path_openat"][0]
walk = [r for r in t if r["type"] == "probe" and r["probe"] == "kprobe:walk_component+0x0"]
assert walk and all(ent["seq_id"] < r["seq_id"] < ext["seq_id"] and r["depth"] == 5 for r in walk)
kinds = {r["probe"].split(":")[0] for r in t if r["type"] == "probe"}
assert kinds == {"kprobe", "kretprobe", "rawtp", "tp"}, kinds
PY
	rep --perfetto "$WORK/trace-$m.pf.json" "$f" >/dev/null
	nj=$(grep -o '"type":"probe"' "$WORK/trace-$m.json" | wc -l)
	np=$(grep -o '"ph":"i"' "$WORK/trace-$m.pf.json" | wc -l)
	check "trace -$m: Perfetto has an instant event per probe row ($np = $nj)" [ "$np" = "$nj" ] && [ "$np" -gt 0 ]
	check "trace -$m: the Perfetto file is well formed" \
		python3 "$ROOT/tests/golden/check_report_json.py" perfetto "$WORK/trace-$m.pf.json"
done

# --dry-run resolves the specs (the glob expanded) and lists the probes
check "dry run: lists the 6 probes" grep -q '^6 injected probes would be attached:' "$OUT/dry.out"
check "dry run: the glob's events, each from its spec" \
	grep -q '^  tp:kmem:kmem_cache_free (from -J tp:kmem:kmem_cache_\*; context [0-9]* bytes)' "$OUT/dry.out"
check "dry run: a raw tracepoint's context is its arguments" \
	grep -Eq '^  rawtp:kmem_cache_alloc \(from -J rawtp:kmem_cache_alloc; context (8|16|24|32|40|48) bytes\)' "$OUT/dry.out"

# -A: contexts in the CONTEXT column, the functions' arguments still right
if [ -f "$OUT/actx.rsr" ]; then
	txt=$(rep -T "$OUT/actx.rsr")
	check "-A: kprobe rows carry regs" grep -Eq '◎ kprobe:walk_component\+0x0 +regs=\{\.r15=' <<<"$txt"
	check "-A: kretprobe rows carry regs" grep -Eq '◎ kretprobe:alloc_empty_file +regs=\{' <<<"$txt"
	check "-A: raw tracepoint arguments named from BTF" \
		grep -Eq '◎ rawtp:kmem_cache_alloc +call_site=0x[0-9a-f]+ ptr=0x[0-9a-f]+ s=0x[0-9a-f]+ gfp_flags=[0-9]+ node=-1' <<<"$txt"
	check "-A: tracepoint fields" \
		grep -Eq '◎ tp:kmem:kmem_cache_alloc +call_site=0x[0-9a-f]+ ptr=0x[0-9a-f]+ bytes_req=[0-9]+ bytes_alloc=[0-9]+' <<<"$txt"
	after=$(sed -n '/← do_filp_open/,/← do_sys_openat2/p' <<<"$txt")
	check "-A: putname's free names its cache (a __data_loc string)" \
		grep -Eq "◎ tp:kmem:kmem_cache_free +call_site=0x[0-9a-f]+ ptr=0x[0-9a-f]+ name='names_cache'" <<<"$after"
	check "-A: the traced functions' arguments render from the same BTF blob" \
		grep -Eq "→ do_sys_openat2 .*filename='/nonexistent/simfail'" <<<"$txt"
	check "-A: multiline rows" grep -Eq "^ +› name = 'names_cache'" <<<"$(rep -T -C args.fmt-mode=multiline "$OUT/actx.rsr")"
	rep --format json "$OUT/actx.rsr" >"$WORK/actx.json"
	check "-A: JSON validates against the schema" \
		python3 "$ROOT/tests/golden/check_report_json.py" schema "$ROOT/docs/report.schema.json" "$WORK/actx.json"
	check "-A: JSON probe contexts: rawtp arguments, the tracepoint's string" python3 - "$WORK/actx.json" <<'PY'
import json, sys
s = json.loads(open(sys.argv[1]).readline())
p = [r for r in s["trace"] if r["type"] == "probe"]
raw = [r for r in p if r["probe"] == "rawtp:kmem_cache_alloc"]
assert raw and [a["name"] for a in raw[0]["context"]] == ["call_site", "ptr", "s", "gfp_flags", "node"]
frees = [a for r in p if r["probe"] == "tp:kmem:kmem_cache_free" for a in r["context"] if a["name"] == "name"]
assert any(a["value"] == "'names_cache'" and a["type"] == "char[]" for a in frees), frees
assert all(r["context"] for r in p)
PY
	cut=$(rep -T "$OUT/actx-cut.rsr")
	check "-A: args.max-sized-arg-size=32 cuts the tracepoint's string" grep -q "name='name'…" <<<"$cut"
else
	bad "-A: no recording ($(head -2 "$OUT/actx.err"))"
fi

# live retsnoop: the same rows, its output identical to the report of its recording
live=$(grep -v -e '^Receiving data\.\.\.$' -e '^simfail: ' "$OUT/live.out")
check "live: rendered ◎ rows with probe names" grep -q '◎ kprobe:walk_component+0x0' <<<"$live"
check "live: output identical to retsnoop-report of its recording" \
	diff <(printf '%s\n' "$live") <(printf '%s\n' "$(rep -T -E "$OUT/live.rsr")")

# -I: each walk_component hit is an interim snapshot whose stack ends at the hit
txt=$(rep "$OUT/interim.rsr")
hits=$(grep -c '^ *walk_component+0x' <<<"$txt")
info=$(rep info "$OUT/interim.rsr")
ni=$(sed -n 's/.* \([0-9][0-9]*\) interim.*/\1/p' <<<"$info" | head -1)
check "interim: snapshots at the hits ($hits stacks end in walk_component)" [ "$hits" -ge 1 ]
check "interim: info counts the interim snapshots (${ni:-none} >= $hits)" [ "${ni:-0}" -ge "$hits" ]
check "interim: the running frames are unfinished ([...])" grep -q '\[\.\.\.\] *path_openat' <<<"$txt"

check "@FILE: the probe read from the file gives rows" grep -q '◎ kprobe:walk_component+0x0' <<<"$(rep -T "$OUT/atfile.rsr")"

# errors: exit 1, one line per failing spec naming it, no recording left
errs() {  # NAME: the lines of stderr
	cat "$OUT/$1.err"
}
check "nomatch: exit 1" [ "$(cat "$OUT/nomatch.rc")" = 1 ]
check "nomatch: one line per spec" [ "$(errs nomatch | wc -l)" = 2 ]
check "nomatch: the glob matches no tracepoint" grep -qx "retsnoop-record: probe 'tp:nosuch_cat:\*' matches no tracepoint (see tracefs available_events)" "$OUT/nomatch.err"
check "nomatch: no such tracepoint" grep -qx "retsnoop-record: probe 'tp:kmem:nosuch_event': no such tracepoint (see tracefs available_events)" "$OUT/nomatch.err"
check "nomatch: no recording" [ ! -e "$OUT/nomatch.rsr" ]
check "nofunc: exit 1, one line" [ "$(cat "$OUT/nofunc.rc")" = 1 ] && [ "$(errs nofunc | wc -l)" = 1 ]
check "nofunc: names the probe and the reason" grep -q "probe 'kprobe:no_such_function_xyz': attaching .*(no such kernel function" "$OUT/nofunc.err"
check "norawtp: exit 1, one line" [ "$(cat "$OUT/norawtp.rc")" = 1 ] && [ "$(errs norawtp | wc -l)" = 1 ]
check "norawtp: names the probe" grep -q "probe 'rawtp:no_such_tracepoint_xyz': attaching .*(no such raw tracepoint" "$OUT/norawtp.err"

# Linux 6.1 (a second, short boot): raw tracepoints have no BPF cookie
# there, said once per rawtp spec; the other kinds work
if [ -f "$KERNELS/6.1.env" ]; then
	# shellcheck disable=SC1091
	. "$KERNELS/6.1.env"
	OUT=$WORK/out61
	mkdir -p "$OUT"
	cat >"$WORK/g/guest.sh" <<EOF
#!/bin/sh
cd "\$(dirname "\$0")"
R=./retsnoop-record
run() { name=\$1; shift; "\$@" >/out/\$name.out 2>/out/\$name.err; echo \$? >/out/\$name.rc; }
set -f
run old-rawtp \$R -T $OG -J rawtp:kmem_cache_alloc -J kprobe:walk_component -J rawtp:sys_enter -o /out/old-rawtp.rsr -- ./simfail open-missing
run old-ok \$R -T -E $OG -J kprobe:walk_component -J tp:kmem:kmem_cache_free -o /out/old-ok.rsr -- ./simfail open-missing
EOF
	boot_guest 600
	check "6.1: rawtp specs refused, exit 1" [ "$(cat "$OUT/old-rawtp.rc")" = 1 ]
	check "6.1: one line per rawtp spec naming the missing feature" \
		[ "$(grep -c "needs raw tracepoint BPF cookies (Linux 6.10+), which this kernel lacks" "$OUT/old-rawtp.err")" = 2 ]
	check "6.1: the lines name the specs" grep -q "^retsnoop-record: probe 'rawtp:sys_enter' needs" "$OUT/old-rawtp.err"
	check "6.1: kprobe and tp probes give rows" \
		grep -q '◎ kprobe:walk_component+0x0' <<<"$(rep -T "$OUT/old-ok.rsr")"
else
	bad "6.1: no kernel in $KERNELS (scripts/fetch-kernels.sh)"
fi

echo "vm-probes: $PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
