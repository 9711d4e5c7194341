#!/usr/bin/env bash
# longfuncs.sh - lists the C functions longer than a limit (100 lines by
# default, signature to closing brace) in the given files or folders
# (default: record/ report/ live/ format/ symbols/ common/), one
# "file:line: name (N lines)" per function. Relies on the tree's style: a
# function body opens with "{" and closes with "}" in column 0.
# Exits 1 when any is found.
set -u
cd "$(dirname "$0")/.." || exit 2
MAX=${LONGFUNCS_MAX:-100}
[ $# -gt 0 ] || set -- record report live format symbols common
files=()
for a in "$@"; do
	if [ -d "$a" ]; then
		while IFS= read -r f; do files+=("$f"); done < <(find "$a" -name '*.c' | sort)
	else
		files+=("$a")
	fi
done
[ ${#files[@]} -gt 0 ] || exit 0
awk -v max="$MAX" '
FNR == 1 { sig = 0; start = 0 }
# a line in column 0 that may start a function signature
/^[A-Za-z_]/ && !/;[ \t]*$/ { if (!start) { sig = FNR; sigline = $0 } }
/^[ \t]*$/ || /^#/ || /;[ \t]*$/ { if (!start) sig = 0 }
/^\{/ { if (sig) { start = sig; name = sigline } }
/^\}/ {
	if (start) {
		n = FNR - start + 1
		if (n > max) {
			sub(/\(.*/, "", name); sub(/.*[ *]/, "", name)
			printf "%s:%d: %s (%d lines)\n", FILENAME, start, name, n
			found = 1
		}
	}
	start = 0; sig = 0
}
END { exit found ? 1 : 0 }
' "${files[@]}"
