#!/usr/bin/env bash
# completion.sh - tests completion/retsnoop.bash without an interactive
# shell: sources it, sets COMP_WORDS/COMP_CWORD as bash would, calls the
# completion function and checks COMPREPLY: flags equal to each command's
# --help, -c presets equal to record/presets.c, -C keys equal to
# --config-help, errno names known to common/errnos.c, report
# subcommands, files for -o and recordings, the command after "--".
# Prints "cli-completion: N passed, N failed"; exits non-zero on failure.
cd "$(dirname "$0")/../.." || exit 1
ROOT=$PWD
PASS=0 FAIL=0
ok()  { PASS=$((PASS + 1)); }
bad() { FAIL=$((FAIL + 1)); echo "FAIL $*"; }
for b in retsnoop retsnoop-record retsnoop-report; do
	[ -x "build/$b" ] || { echo "cli-completion: build/$b missing (run make)"; echo "cli-completion: 0 passed, 1 failed"; exit 1; }
done
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

# shellcheck disable=SC1091
. completion/retsnoop.bash || { echo "cli-completion: 0 passed, 1 failed"; exit 1; }
complete -p retsnoop retsnoop-record retsnoop-report >/dev/null 2>&1 && ok ||
	bad "complete -F is not registered for all three commands"

comp() {  # WORDS... (the last one is being completed) -> sorted COMPREPLY, one per line
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	COMP_LINE="$*"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_retsnoop
	printf '%s\n' "${COMPREPLY[@]}" | sed '/^$/d' | sort -u
}
expect() {  # NAME EXPECTED-LINES ACTUAL-LINES
	if [ "$2" = "$3" ]; then ok; else
		bad "$1: expected [$(tr '\n' ' ' <<<"$2")] got [$(tr '\n' ' ' <<<"$3")]"; fi
}
contains() {  # NAME WORD ACTUAL-LINES
	if grep -qxF -- "$2" <<<"$3"; then ok; else bad "$1: '$2' not in [$(tr '\n' ' ' <<<"$3")]"; fi
}
help_flags() {  # same extraction as tests/cli/man_help.sh
	awk '{ match($0, /^ */) } RLENGTH >= 2 && RLENGTH <= 6 { sub(/^ +/, ""); n = index($0, "  "); if (n) $0 = substr($0, 1, n - 1); print }' |
		grep -oE '(^|[ ,/(])--?[A-Za-z][A-Za-z0-9-]*|^-- ' | sed -E 's/^[ ,/(]//; s/ $//' | sort -u
}
config_keys() { sed -n 's/^  \([a-z]*\.[a-z-]*\)=.*/\1=/p' | sort -u; }

# flags: exactly what --help lists
for cmd in retsnoop retsnoop-record retsnoop-report; do
	expect "$cmd -<TAB> = --help flags" "$("build/$cmd" --help | help_flags)" "$(comp "$cmd" -)"
done
expect "retsnoop-report addr2line -<TAB>" "$(build/retsnoop-report addr2line --help | help_flags)" \
	"$(comp retsnoop-report addr2line -)"
expect "retsnoop-report info -<TAB>" "$(build/retsnoop-report info --help | help_flags)" \
	"$(comp retsnoop-report info -)"
expect "retsnoop --con<TAB>" "$(printf '%s\n' --config --config-help)" "$(comp retsnoop --con)"

# options that take a value (from the table, --list-options): the word
# after them is their value, not a subcommand or a recording
table_values() {  # CMD...: the short and long names of options with a required value
	"$@" --list-options | awk '$3 == "required" { if ($1 != "-") print $1; if ($2 != "-") print $2 }'
}
missing=""
for f in $(table_values build/retsnoop-report) $(table_values build/retsnoop-report addr2line) \
	 $(table_values build/retsnoop-report diff); do
	_retsnoop_report_value "$f" || missing="$missing $f"
done
[ -z "$missing" ] && ok || bad "completion: report options taking a value not known to _retsnoop_report_value:$missing"
[ -n "$(table_values build/retsnoop-report)" ] && ok || bad "retsnoop-report --list-options lists no option with a value"

# -c presets: the names in record/presets.c
presets=$(sed -n 's/^[[:space:]]*{ "\([a-z0-9_-]*\)", [a-z0-9_]*_entry.*/\1/p' record/presets.c | sort -u)
[ -n "$presets" ] && ok || bad "no preset names parsed from record/presets.c"
expect "retsnoop -c <TAB>" "$presets" "$(comp retsnoop -c '')"
expect "retsnoop-record --case <TAB>" "$presets" "$(comp retsnoop-record --case '')"
expect "retsnoop -c b<TAB>" "bpf" "$(comp retsnoop -c b)"

# -C keys: what --config-help lists, per command
for cmd in retsnoop retsnoop-record retsnoop-report; do
	expect "$cmd -C <TAB> = --config-help keys" "$("build/$cmd" --config-help | config_keys)" "$(comp "$cmd" -C '')"
done
expect "retsnoop -C stacks.e<TAB>" "stacks.emit-addrs=" "$(comp retsnoop -C stacks.e)"

# -x/-X: errno names retsnoop accepts
out=$(comp retsnoop -x ENOME)
expect "retsnoop -x ENOME<TAB>" "ENOMEM" "$out"
contains "retsnoop-record -X N<TAB>" NULL "$(comp retsnoop-record -X N)"
unknown=""
for e in $(comp retsnoop -x E); do
	grep -q "\"$e\"" common/errnos.c || unknown="$unknown $e"
done
[ -z "$unknown" ] && ok || bad "errno names unknown to common/errnos.c:$unknown"

# files: -o, -k, recordings, report subcommands
mkdir -p "$W/d" && touch "$W/d/rec1.rsr" "$W/d/rec2.rsr" "$W/d/vmlinux-x"
cd "$W/d" || exit 1
expect "retsnoop -o rec<TAB>" "$(printf '%s\n' rec1.rsr rec2.rsr)" "$(comp retsnoop -o rec)"
expect "retsnoop-record -k vm<TAB>" "vmlinux-x" "$(comp retsnoop-record -k vm)"
expect "retsnoop-report <TAB>" "$(printf '%s\n' addr2line diff info rec1.rsr rec2.rsr summary vmlinux-x)" \
	"$(comp retsnoop-report '')"
expect "retsnoop-report i<TAB>" "info" "$(comp retsnoop-report i)"
expect "retsnoop-report info r<TAB>" "$(printf '%s\n' rec1.rsr rec2.rsr)" "$(comp retsnoop-report info r)"
expect "retsnoop-report -T r<TAB>" "$(printf '%s\n' rec1.rsr rec2.rsr)" "$(comp retsnoop-report -T r)"
expect "retsnoop-report addr2line -e vm<TAB>" "vmlinux-x" "$(comp retsnoop-report addr2line -e vm)"
# global options before the subcommand
expect "retsnoop-report -v <TAB>" "$(printf '%s\n' addr2line diff info rec1.rsr rec2.rsr summary vmlinux-x)" \
	"$(comp retsnoop-report -v '')"
expect "retsnoop-report -v info r<TAB>" "$(printf '%s\n' rec1.rsr rec2.rsr)" "$(comp retsnoop-report -v info r)"
expect "retsnoop-report -k vmlinux-x addr2line -e vm<TAB>" "vmlinux-x" \
	"$(comp retsnoop-report -k vmlinux-x addr2line -e vm)"
expect "retsnoop-report diff rec1.rsr r<TAB>" "$(printf '%s\n' rec1.rsr rec2.rsr)" "$(comp retsnoop-report diff rec1.rsr r)"
expect "retsnoop-report diff --format <TAB>" "$(printf '%s\n' json text)" "$(comp retsnoop-report diff --format '')"
cd "$ROOT" || exit 1

# values of long options written with '=' (bash splits the word at '=')
expect "retsnoop --symbolize=<TAB>" "$(printf '%s\n' inlines linenum none)" "$(comp retsnoop --symbolize = '')"
expect "retsnoop-report --format=j<TAB>" "json" "$(comp retsnoop-report --format = j)"
expect "retsnoop-report --folded-weight <TAB>" "$(printf '%s\n' count latency)" "$(comp retsnoop-report --folded-weight '')"

# after --: commands, then files
contains "retsnoop -e x -- bas<TAB>" bash "$(comp retsnoop -e x -- bas)"
out=$(comp retsnoop -e x -- ba -)
[ -z "$(grep -- '^--entry$' <<<"$out")" ] && ok || bad "flags completed after '--': $out"

# -p: process ids only
out=$(comp retsnoop -p '')
contains "retsnoop -p <TAB>" 1 "$out"
[ -z "$(grep -vE '^[0-9]+$' <<<"$out")" ] && ok || bad "retsnoop -p <TAB>: non-numeric entries"

echo "cli-completion: $PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
