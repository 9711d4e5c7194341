#!/usr/bin/env bash
# stack_defer.sh - VM checks of deferred kernel stacks (bpf/stack_defer.bpf.h;
# Debian 6.12 cloud kernel in qemu, one boot): a failing call's stack is
# captured only once its error goes on (return addresses kept while each
# call returns into a traced caller, or a short unwind up to one, the rest
# captured at the first exit that reaches none), never when a caller
# swallows the error. The stacks shown
# must be the ones a capture at the failing call gives. In -M, -K and -F:
#  * workloads with swallowed and propagated errors, each run three times:
#    failing openat() through the VFS path walk, the bpf preset on a
#    percpu-array map whose failed allocation is followed by cleanup calls
#    (stitched stacks), a BPF program load the verifier rejects (deep
#    chains), each with about 20 traced functions (-K and -F attach them
#    one by one), recorded with the default (deferred in kprobe modes) and
#    again with -C bpf.defer-stacks=false after a warm-up run;
#  * the distinct per-session stacks (the visible kernel frames as
#    symbol+offset and which visible frame each traced call is shown on,
#    from the JSON output: fentry's deferred stacks leave out the hidden
#    trampoline frames) are the same sets with and without;
#  * the repeated openat workload read learned return sites and stack
#    tails instead of unwinding (bpf/ret_sites.bpf.h, stack_tails.bpf.h);
#  * 400 failing openats in -F: a learned tail is still checked by a real
#    unwind once in 64 reads where the session's fast end reads it first;
#  * retsnoop-report info of the default recordings counts deferred stacks,
#    completed ones (so the comparison covered completed stacks) and
#    never-captured ones, and those with the key off count none; the
#    openat workload completes at most one stack per emitted session;
#  * -F twice: with the fexit template that reads stack words through
#    bpf_rdonly_cast (bpf/kword.bpf.h; -v says so) and with the helper's
#    (-C bpf.rdonly-cast=false), each against its own run without deferral;
#    the first one's clones read return values from the context directly,
#    the second's through bpf_get_func_ret: the same results;
#  * the recordings with deferral ran the lean BPF object (bpf/lean_knobs.h),
#    except Fh's, with -C bpf.lean=false, and those without it the general
#    one (-v says which), so every comparison above is also one of the two
#    builds, and Fh's is the general build's deferral;
#  * on Linux 6.1 (a second boot), the same in -K and -F with
#    link_path_walk traced too (chains extended through it rather than
#    captured at it), -F through the helper's template (no kfunc there),
#    where replaced trampoline images outlive the ranges' setting (-v).
# Prints "vm-stack-defer: N passed, N failed" last; exits non-zero on failure.
set -u
cd "$(dirname "$0")/../.."
ROOT=$PWD
# shellcheck source=tests/vm/suite_lib.sh
. "$ROOT/tests/vm/suite_lib.sh"
suite_begin vm-stack-defer retsnoop-record simfail
command -v jq >/dev/null || suite_fail "jq missing (scripts/setup.sh installs it)"
OPEN="-e *sys_openat -a do_sys_openat2 -a getname* -a do_filp_open -a path_openat -a path_init -a link_path_walk -a walk_component -a lookup_fast -a step_into -a may_open -a complete_walk -a terminate_walk -a putname -a d_alloc* -a lookup_one*"
BPF="-e *sys_bpf -a __sys_bpf -a map_create -a array_map_alloc* -a bpf_map_area_alloc -a __bpf_map_area_alloc -a __vmalloc_node_range* -a array_map_free -a bpf_map_free* -a bpf_prog_load -a bpf_check -a do_check* -a check_helper_call -a check_mem_access -a check_reg_arg -a check_cfg -a resolve_pseudo_ldimm64 -a check_subprogs"
cat >"$WORK/g/guest.sh" <<EOF
#!/bin/sh
cd "\$(dirname "\$0")"
R=./retsnoop-record
run() { name=\$1; shift; "\$@" >/out/\$name.out 2>/out/\$name.err; echo \$? >/out/\$name.rc; }
for c in open-missing bpf-bad-map-val-size-percpu-array bpf-bad-prog-load; do
	case \$c in open-*) g='$OPEN';; *) g='$BPF';; esac
	W="./simfail \$c; ./simfail \$c; ./simfail \$c"
	# openat's: a dozen, so that return sites are learned and read
	case \$c in open-*) W="i=0; while [ \\\$i -lt 12 ]; do ./simfail \$c; i=\\\$((i + 1)); done";; esac
	sh -c "\$W" >/dev/null 2>&1
	for m in M K F Fh; do
		# Fh: -F with the fexit template that reads through the helper,
		# in the general BPF object (the others: the lean one)
		case \$m in Fh) fl="-F -C bpf.rdonly-cast=false -C bpf.lean=false";; *) fl=-\$m;; esac
		run d-\$m-\$c \$R -v \$fl \$g -o /out/d-\$m-\$c.rsr -- sh -c "\$W"
		run n-\$m-\$c \$R -v \$fl \$g -C bpf.defer-stacks=false -o /out/n-\$m-\$c.rsr -- sh -c "\$W"
	done
done
# 400 failing openats in one process: a learned tail's check unwinds
L=; i=0; while [ \$i -lt 400 ]; do L="\$L open-missing"; i=\$((i + 1)); done
run tchk \$R -F $OPEN -o /out/tchk.rsr -- ./simfail \$L
EOF
chmod +x "$WORK/g/guest.sh"
boot_guest 1500

rep() { RETSNOOP_NO_DWARF=1 "$WORK/retsnoop-report" -sn "$@" 2>/dev/null; }
# one line per distinct session stack: entry, the visible kernel frames and
# where each traced call is shown
sigs() {
	rep --format json "$1" | jq -c '([.kstack | to_entries[] | select(.value.hidden | not) | .key]) as $vis |
		[.frames[0].func,
		[.kstack[] | select(.hidden | not) | "\(.symbol)+\(.offset)"],
		[.frames[] | "\(.func)@\(.kstack_index as $k | if $k == null then null else ($vis | index($k)) end)"]]' | sort -u
}
split_counts() {  # FILE -> "deferred completed" from retsnoop-report info
	"$WORK/retsnoop-report" info "$1" 2>/dev/null | sed -n 's/^ *kernel stacks *\([0-9]*\) deferred, \([0-9]*\) completed.*/\1 \2/p'
}
saved() {  # LABEL FILE -> the count on info's "LABEL unwinds saved" line
	"$WORK/retsnoop-report" info "$2" 2>/dev/null | sed -n "s/^ *$1 unwinds saved *\([0-9]*\).*/\1/p"
}
# short unwinds replaced by a learned site's read (bpf/ret_sites.bpf.h)
reads() { saved short "$1"; }
# completing unwinds replaced by a learned tail's reads (bpf/stack_tails.bpf.h)
tails() { saved completing "$1"; }
emitted() {  # FILE -> info's "sessions emitted"
	"$WORK/retsnoop-report" info "$1" 2>/dev/null | sed -n 's/^ *sessions emitted *\([0-9]*\).*/\1/p'
}
# compare PREFIX MODES [READS]: the recordings of one boot ($OUT), PREFIX in
# the names; READS: the repeated openat workload must have read learned
# return sites (its chains return through untraced link_path_walk there)
compare() {
	local pre=$1 m c d n sd sn dd cc dsum csum r
	for m in $2; do
		dsum=0; csum=0
		for c in open-missing bpf-bad-map-val-size-percpu-array bpf-bad-prog-load; do
			d=$OUT/d-$m-$c.rsr; n=$OUT/n-$m-$c.rsr
			if [ "$(cat "$OUT/d-$m-$c.rc" 2>/dev/null)" != 0 ] || [ "$(cat "$OUT/n-$m-$c.rc" 2>/dev/null)" != 0 ]; then
				bad "$pre-$m $c: a recording failed"; head -3 "$OUT/d-$m-$c.err" "$OUT/n-$m-$c.err" 2>/dev/null
				continue
			fi
			sd=$(sigs "$d"); sn=$(sigs "$n")
			if [ -z "$sn" ]; then
				bad "$pre-$m $c: no failing session recorded"
				continue
			fi
			if [ "$sd" = "$sn" ]; then
				ok "$pre-$m $c: the same stacks with and without deferred capture ($(wc -l <<<"$sn") distinct)"
			else
				bad "$pre-$m $c: stacks differ with deferred capture"
				diff <(echo "$sn") <(echo "$sd") | head -20
			fi
			check "$pre-$m $c: without it, info counts no deferred stack" test -z "$(split_counts "$n")"
			read -r dd cc <<<"$(split_counts "$d")"
			dsum=$((dsum + ${dd:-0})); csum=$((csum + ${cc:-0}))
		done
		check "$pre-$m: stacks were deferred ($dsum)" test "$dsum" -gt 0
		check "$pre-$m: some were completed at an ancestor's exit ($csum) and shown above" test "$csum" -gt 0
		check "$pre-$m: some were never captured: their error was swallowed ($((dsum - csum)))" test "$csum" -lt "$dsum"
		# each failing openat's chain is completed once, at the entry
		# function's exit: a swallowed chain, or a saved one nothing can be
		# stitched to any more, is let go, never completed as well
		read -r dd cc <<<"$(split_counts "$OUT/d-$m-open-missing.rsr")"
		r=$(emitted "$OUT/d-$m-open-missing.rsr")
		check "$pre-$m open-missing: one completed stack per emitted session at most (${cc:-0} for ${r:-0})" \
			test "${r:-0}" -gt 0 -a "${cc:-0}" -le "${r:-0}"
		r=$(tails "$OUT/d-$m-open-missing.rsr")
		check "$pre-$m open-missing: learned stack tails were read instead of unwound (${r:-0}), the stacks above the same" test "${r:-0}" -gt 0
		check "$pre-$m open-missing: without deferral, none were" test -z "$(tails "$OUT/n-$m-open-missing.rsr")"
		if [ -n "${3:-}" ]; then
			r=$(reads "$OUT/d-$m-open-missing.rsr")
			check "$pre-$m open-missing: learned return sites were read instead of unwound (${r:-0}), the stacks above the same" test "${r:-0}" -gt 0
			check "$pre-$m open-missing: without deferral, none were (the learning is part of it)" test -z "$(reads "$OUT/n-$m-open-missing.rsr")"
		fi
	done
}
compare "" "M K F Fh" reads
# which fexit template ran: bpf_rdonly_cast's where the kernel has it
# (6.2+), unless -C bpf.rdonly-cast=false (bpf/kword.bpf.h)
PLAIN="Deferred stacks read stack words as plain loads"
# a learned tail is checked by a real unwind once in TAIL_CHECK (64) of a
# CPU's reads, also where the session's end reads it first (fexit_fail's
# fast end, TAIL_FIRST): of 400 completions on at most 2 CPUs, at most 4 are
# the learning unwinds, and at least 5 are checks
read -r dd cc <<<"$(split_counts "$OUT/tchk.rsr")"
r=$(tails "$OUT/tchk.rsr")
check "-F, 400 failing openats: learned tails were read (${r:-0}) and checked by real unwinds ($(( ${cc:-0} - ${r:-0} )) of ${cc:-0} completions)" \
	test "$(cat "$OUT/tchk.rc" 2>/dev/null)" = 0 -a "${r:-0}" -gt 0 -a $(( ${cc:-0} - ${r:-0} )) -ge 6
check "-F: the fexit template read stack words as plain loads (-v)" grep -q "$PLAIN" "$OUT/d-F-open-missing.err"
check "-F -C bpf.rdonly-cast=false: through the helper (-v says nothing)" \
	not grep -q "$PLAIN" "$OUT/d-Fh-open-missing.err"
# -F's clones read the return value from the fexit context directly where
# the verifier allows it (record/func_flags.c btf_func_ret_slot), Fh's
# through bpf_get_func_ret: the same results, call by call
DIRECT="fexit programs read the return value from the context directly"
check "-F: most fexit clones read the return value directly (-v)" grep -q "$DIRECT" "$OUT/d-F-open-missing.err"
check "-F -C bpf.rdonly-cast=false: none do (-v says nothing)" not grep -q "$DIRECT" "$OUT/d-Fh-open-missing.err"
# -v: what the kernel's verifier went through (bpf_prog_info's
# verified_insns, 5.16+), in all and per fentry/fexit clone pair, where the
# attach time of -F goes (record/attach.c tracer_verified_insns)
verified() { sed -n 's/^The kernel verified \([0-9]*\) BPF instructions.*/\1/p' "$1"; }
v=$(verified "$OUT/d-F-open-missing.err")
pc=$(sed -n 's/.*, \([0-9]*\) per fentry\/fexit clone pair\./\1/p' "$OUT/d-F-open-missing.err")
check "-F -v: the verifier's instructions in all (${v:-none}) and per clone pair (${pc:-none})" \
	test "${pc:-0}" -gt 0 -a "${v:-0}" -gt "${pc:-0}"
v=$(verified "$OUT/d-M-open-missing.err")
check "-M -v: the verifier's instructions (${v:-none}), no clone pairs" \
	test "${v:-0}" -gt 0 -a -z "$(grep 'clone pair' "$OUT/d-M-open-missing.err")"
results() { rep --format json "$1" | jq -c '[.frames[] | "\(.func)=\(.result)"]' | sort -u; }
for c in open-missing bpf-bad-map-val-size-percpu-array bpf-bad-prog-load; do
	r=$(results "$OUT/d-F-$c.rsr"); rh=$(results "$OUT/d-Fh-$c.rsr")
	check "-F $c: the results read directly are the helper's" test -n "$r" -a "$r" = "$rh"
done
objects() {  # "PREFIX" "MODES": with deferral the lean BPF object (Fh: -C bpf.lean=false), without it the general one
	local want
	for m in $2; do
		want=lean; [ "$m" = Fh ] && want=general
		check "$1-$m: deferred stacks ran the $want BPF object (-v)" grep -q "the $want BPF object" "$OUT/d-$m-open-missing.err"
		check "$1-$m: without deferral, the general one (-v)" grep -q "the general BPF object" "$OUT/n-$m-open-missing.err"
	done
}
objects "" "M K F Fh"

# Linux 6.1 (a second boot, kretprobes only: no kprobe.multi there), with
# link_path_walk traced too, so that openat's chains go on through it: its
# verifier is older (the deferral's code must load there too)
if [ -f "$KERNELS/6.1.env" ]; then
	# shellcheck disable=SC1091
	. "$KERNELS/6.1.env"
	OUT=$WORK/out61
	mkdir -p "$OUT"
	sed -i 's/ -a link_path_walk / -a link_path_walk* /; s/for m in M K F Fh; do/for m in K F; do/; /^run tchk /d' "$WORK/g/guest.sh"
	boot_guest 1500
	compare "6.1 " "K F"
	objects "6.1 " "K F"
	check "6.1 -F: no bpf_rdonly_cast there: the helper's fexit template (-v says nothing)" \
		not grep -q "$PLAIN" "$OUT/d-F-open-missing.err"
	# each attach there rebuilds the function's trampoline elsewhere, the
	# replaced image registered a while longer under the same name: the
	# ranges must be the current images' (record/bpf_ksym_watch.c), else
	# a chain through walk_component's tail call kept its site twice
	r=$(cat "$OUT"/[dn]-F-*.err 2>/dev/null | sed -n 's/.*: \([0-9]*\) replaced trampoline images still registered.*/\1/p' | sort -n | tail -1)
	check "6.1 -F: replaced trampoline images were still registered when the ranges were set (up to ${r:-0}), not taken: the stacks above the same" \
		test "${r:-0}" -gt 0
fi
echo "vm-stack-defer: $PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
