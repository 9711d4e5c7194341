#!/usr/bin/env bash
# man_help.sh - checks that each command's --help and its man page
# (docs/man/*.1) list the same flags, in both directions: flags are taken
# from the option column of --help (lines indented 2-6 spaces, up to the
# first double space) and from the .TP tags of the man page's OPTIONS
# sections. retsnoop-report's addr2line subcommand is checked the same way
# against its own "ADDR2LINE OPTIONS" section. Also checks that the pages
# are well-formed for man(1) (no warnings from groff) and that
# `make install` installs them with the bash completion.
# Prints "cli-man: N passed, N failed"; exits non-zero on failure.
set -u
cd "$(dirname "$0")/../.." || exit 1
PASS=0 FAIL=0
ok()  { PASS=$((PASS + 1)); }
bad() { FAIL=$((FAIL + 1)); echo "FAIL $*"; }
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

# the flags in an option column: -x, --long (stops at [ = space ,), and a bare "--"
flags_of_column() {
	grep -oE '(^|[ ,/(])--?[A-Za-z][A-Za-z0-9-]*|^-- ' | sed -E 's/^[ ,/(]//; s/ $//'
}

help_flags() {  # reads --help on stdin
	awk '{ match($0, /^ */) } RLENGTH >= 2 && RLENGTH <= 6 { sub(/^ +/, ""); n = index($0, "  "); if (n) $0 = substr($0, 1, n - 1); print }' |
		flags_of_column | sort -u
}

man_flags() {  # PAGE SECTION-REGEX: the .TP tags of matching .SH sections
	awk -v want="$2" '
		/^\.SH/ { t = $0; sub(/^\.SH +/, "", t); gsub(/"/, "", t); on = (t ~ want); next }
		on && tag { print; tag = 0; next }
		on && /^\.TP/ { tag = 1 }' "$1" |
		sed -E 's/\\f[BIRP]//g; s/\\-/-/g; s/\\ / /g' | flags_of_column | sort -u
}

compare() {  # NAME HELP-FILE MAN-FILE
	local only_help only_man
	only_help=$(comm -23 "$2" "$3" | tr '\n' ' ')
	only_man=$(comm -13 "$2" "$3" | tr '\n' ' ')
	if [ ! -s "$2" ] || [ ! -s "$3" ]; then
		bad "$1: no flags found (help: $(wc -l <"$2"), man: $(wc -l <"$3"))"
	elif [ -n "$only_help" ]; then
		bad "$1: in --help but not in the man page: $only_help"
	elif [ -n "$only_man" ]; then
		bad "$1: in the man page but not in --help: $only_man"
	else
		ok
	fi
}

for cmd in retsnoop retsnoop-record retsnoop-report; do
	page=docs/man/$cmd.1
	if [ ! -f "$page" ]; then bad "$page missing"; continue; fi
	if [ ! -x "build/$cmd" ]; then bad "build/$cmd missing (run make)"; continue; fi
	"build/$cmd" --help | help_flags >"$W/$cmd.help"
	man_flags "$page" '^([A-Z]+ )?OPTIONS$' | grep -v '^$' >"$W/$cmd.man"
	[ "$cmd" = retsnoop-report ] && sed -i '/^--$/d' "$W/$cmd.man"
	compare "$cmd --help vs $page ($(wc -l <"$W/$cmd.help") flags)" "$W/$cmd.help" "$W/$cmd.man"
	# the page renders without groff warnings and has the usual sections
	warn=$(LC_ALL=C groff -man -Tutf8 -ww -z "$page" 2>&1)
	[ -z "$warn" ] && ok || bad "$page: groff warnings: $warn"
	for sec in NAME SYNOPSIS DESCRIPTION OPTIONS 'EXIT STATUS' 'SEE ALSO'; do
		grep -Eq "^\.SH \"?$sec\"?\$" "$page" && ok || bad "$page: no $sec section"
	done
	# NAME line is "cmd \- summary" (what whatis/apropos read)
	sed -n '/^\.SH NAME/{n;p}' "$page" | grep -q "^$cmd \\\\- " && ok || bad "$page: NAME line is not '$cmd \\- ...'"
done
# --help is the option table (hidden: --list-options, for these tests)
for cmd in "retsnoop" "retsnoop-record" "retsnoop-report" "retsnoop-report info" \
	   "retsnoop-report addr2line" "retsnoop-report diff"; do
	set -- $cmd
	"build/$1" "${@:2}" --list-options | awk '{ if ($1 != "-") print $1; if ($2 != "-") print $2 }' |
		grep -vx -- --list-options | sort -u >"$W/table"
	"build/$1" "${@:2}" --help | help_flags | grep -vx -- -- >"$W/helpf"
	compare "$cmd --help vs its option table" "$W/helpf" "$W/table"
done
build/retsnoop-report addr2line --help | help_flags >"$W/a2l.help"
man_flags docs/man/retsnoop-report.1 '^ADDR2LINE OPTIONS$' >"$W/a2l.man"
compare "retsnoop-report addr2line --help vs its man section" "$W/a2l.help" "$W/a2l.man"

# make install puts the pages and the completion where man and bash look
D=$W/dest
if make -s install DESTDIR="$D" PREFIX=/usr >"$W/install.log" 2>&1; then
	for cmd in retsnoop retsnoop-record retsnoop-report; do
		[ -f "$D/usr/share/man/man1/$cmd.1" ] && ok || bad "make install: no man1/$cmd.1"
		# bash-completion loads completions/NAME on demand for command NAME
		[ -e "$D/usr/share/bash-completion/completions/$cmd" ] && ok ||
			bad "make install: no bash-completion/completions/$cmd"
	done
	MANPATH=$D/usr/share/man man -w retsnoop-record >/dev/null 2>&1 && ok || bad "man -w finds no installed retsnoop-record page"
else
	bad "make install failed: $(tail -3 "$W/install.log")"
fi

echo "cli-man: $PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
