#!/bin/sh
# readme_tables.sh - the README's tables of config keys, exit codes, verdicts and collectors
# must be the code's: `renacer help config` (the key tables of runner/input/config.h) and
# `renacer help tables` (runner/util/exitcode.h, RN_VERDICTS, RN_COLLECTORS). Prints a diff
# and fails when the README has drifted.
#
#     readme_tables.sh RENACER README
#
# Exit 0 = the same, 1 = drifted (or renacer missing: a missing build is a failure).
set -u
renacer=$1
readme=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0

if [ ! -x "$renacer" ]; then
	echo "FAIL: '$renacer' is not built"
	exit 1
fi
if [ ! -r "$readme" ]; then
	echo "FAIL: cannot read '$readme'"
	exit 1
fi

# compare WHAT EXPECTED ACTUAL: the README's table must be the code's.
compare() {
	if [ ! -s "$3" ]; then
		echo "FAIL: the README has no $1 table"
		status=1
	elif ! diff -u "$2" "$3" >"$tmp/diff"; then
		echo "FAIL: the README's $1 table differs from the code's (- code, + README):"
		cat "$tmp/diff"
		status=1
	fi
}

# The rows of the README table whose header line is $1, up to the first non-table line.
readme_table() {
	awk -v h="$1" '$0 == h { f = 1; next } f && !/^\|/ { exit } f && !/^\|---/' "$readme"
}

# The rows of section "### $1" of `renacer help tables` (header and rule left out).
code_table() {
	"$renacer" help tables | awk -v h="### $1" '
		$0 == h { f = 1; n = 0; next }
		/^### / { f = 0 }
		f && /^\|/ { n++; if (n > 2) print }'
}

# Config keys: the whole reference between its two marker lines, headings one level deeper.
"$renacer" help config | sed 's/^### /#### /' >"$tmp/config.code"
awk '/^Every key, from the same table that validates them/ { f = 1; getline; next }
     /^Errors name `file:line:col`/ { f = 0 }
     f' "$readme" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' >"$tmp/config.readme"
compare "config key" "$tmp/config.code" "$tmp/config.readme"

code_table "exit codes" >"$tmp/exit.code"
readme_table "| exit code | meaning |" >"$tmp/exit.readme"
compare "exit code" "$tmp/exit.code" "$tmp/exit.readme"

# Verdicts: the README explains each at length; the names must be the code's, in order.
code_table "verdicts" >"$tmp/verdict.code"
readme_table "| verdict | meaning |" | sed 's/^| \([^|]*[^ |]\) *|.*/| \1 |/' >"$tmp/verdict.readme"
compare "verdict" "$tmp/verdict.code" "$tmp/verdict.readme"

code_table "collectors" >"$tmp/collector.code"
readme_table "| collector | selected by | what it records |" >"$tmp/collector.readme"
compare "collector" "$tmp/collector.code" "$tmp/collector.readme"

# Negative control: a drifted README must fail this check.
sed 's/^| 70 | internal error/| 71 | internal error/' "$readme" >"$tmp/bad.md"
if awk -v h="| exit code | meaning |" '$0 == h { f = 1; next } f && !/^\|/ { exit } f && !/^\|---/' \
	"$tmp/bad.md" | diff -q "$tmp/exit.code" - >/dev/null; then
	echo "FAIL: a README with a renumbered exit code still matches: the check proves nothing"
	status=1
fi

[ "$status" -eq 0 ] && echo "README tables match the code (config keys, exit codes, verdicts, collectors)"
exit "$status"
