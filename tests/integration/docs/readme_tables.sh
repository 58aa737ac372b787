#!/bin/sh
# readme_tables.sh - the reference's tables of config keys, exit codes, verdicts, collectors,
# assertion types, metrics and count rules must be the code's: `renacer help config` (the key
# tables of runner/input/config.h) and `renacer help tables` (util/exitcode.h, RN_VERDICTS,
# RN_COLLECTORS, RN_ASSERTION_TYPES (names and keys), RN_METRICS, rn_count_rules,
# RN_FINGERPRINT_FIELDS). The tables live in docs/ (the README links to them): config keys in
# docs/config.md, verdicts, exit codes, assertion types and metrics in docs/metrics.md,
# collectors in docs/collectors.md, count rules in docs/golden.md, fingerprint fields in
# docs/timing.md. Prints a diff and fails when a page has drifted; then plants a drift of each
# kind (a renumbered exit code, a missing config key, verdict, collector, assertion type and
# metric row, an assertion type's key left out, a changed floor) in a scratch copy and fails
# unless the check catches every one.
#
#     readme_tables.sh RENACER DOCS_DIR
#
# Exit 0 = the same, 1 = drifted (or renacer missing: a missing build is a failure).
set -u
renacer=$1
docs=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0

if [ ! -x "$renacer" ]; then
	echo "FAIL: '$renacer' is not built"
	exit 1
fi
for page in config.md metrics.md collectors.md golden.md timing.md; do
	if [ ! -r "$docs/$page" ]; then
		echo "FAIL: cannot read '$docs/$page'"
		exit 1
	fi
done

# The rows of section "### $1" of `renacer help tables` (header and rule left out).
code_table() {
	"$renacer" help tables | awk -v h="### $1" '
		$0 == h { f = 1; n = 0; next }
		/^### / { f = 0 }
		f && /^\|/ { n++; if (n > 2) print }'
}
"$renacer" help config | sed 's/^### /## /' >"$tmp/config.code"
code_table "exit codes" >"$tmp/exit.code"
code_table "verdicts" >"$tmp/verdict.code"
code_table "collectors" >"$tmp/collector.code"
code_table "count rules" >"$tmp/rules.code"
code_table "metrics" >"$tmp/metrics.code"
# assertion types: the name and keys columns (the page explains each at length), sorted (the
# page orders them for the reader)
code_table "assertion types" | cut -d'|' -f1-3 | sort >"$tmp/types.code"
code_table "fingerprint" >"$tmp/fingerprint.code"

# The rows of the table of FILE whose header line is $2, up to the first non-table line.
doc_table() {
	awk -v h="$2" '$0 == h { f = 1; next } f && !/^\|/ { exit } f && !/^\|---/' "$1"
}

# same WHAT EXPECTED ACTUAL [quiet]: 0 when the page's table is the code's; otherwise prints
# why (unless quiet) and returns 1.
same() {
	if [ ! -s "$3" ]; then
		[ -n "${4:-}" ] || echo "FAIL: $1 has no table"
		return 1
	elif ! diff -u "$2" "$3" >"$tmp/diff"; then
		[ -n "${4:-}" ] || {
			echo "FAIL: $1 differs from the code's (- code, + page):"
			cat "$tmp/diff"
		}
		return 1
	fi
	return 0
}

# check_config FILE [quiet]: config keys, the whole reference between its two marker lines
# (headings one level below the page's title).
check_config() {
	awk '/^Every key, from the same table that validates them/ { f = 1; getline; next }
	     /^Errors name `file:line:col`/ { f = 0 }
	     f' "$1" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' >"$tmp/config.doc"
	same "the config key reference of $1" "$tmp/config.code" "$tmp/config.doc" ${2:-}
}

# check_exit FILE [quiet] and check_verdicts FILE [quiet] (the page explains each verdict at
# length; the names must be the code's, in order).
check_exit() {
	doc_table "$1" "| exit code | meaning |" >"$tmp/exit.doc"
	same "the exit code table of $1" "$tmp/exit.code" "$tmp/exit.doc" ${2:-}
}
check_verdicts() {
	doc_table "$1" "| verdict | meaning |" | sed 's/^| \([^|]*[^ |]\) *|.*/| \1 |/' >"$tmp/verdict.doc"
	same "the verdict table of $1" "$tmp/verdict.code" "$tmp/verdict.doc" ${2:-}
}
check_collectors() {
	doc_table "$1" "| collector | selected by | what it records |" >"$tmp/collector.doc"
	same "the collector table of $1" "$tmp/collector.code" "$tmp/collector.doc" ${2:-}
}

check_metrics() {
	doc_table "$1" "| metric | unit | measured by | what it is |" >"$tmp/metrics.doc"
	same "the metric table of $1" "$tmp/metrics.code" "$tmp/metrics.doc" ${2:-}
}

check_types() {
	doc_table "$1" "| assertion | keys | metric (unit) |" | cut -d'|' -f1-3 | sort >"$tmp/types.doc"
	same "the assertion type table of $1" "$tmp/types.code" "$tmp/types.doc" ${2:-}
}

check_rules() {
	doc_table "$1" "| syscall | tolerance at least | floor at least | a passing row reads |" \
		>"$tmp/rules.doc"
	same "the count rule table of $1" "$tmp/rules.code" "$tmp/rules.doc" ${2:-}
}

check_fingerprint() {
	doc_table "$1" "| field | what it holds |" >"$tmp/fingerprint.doc"
	same "the fingerprint field table of $1" "$tmp/fingerprint.code" "$tmp/fingerprint.doc" \
		${2:-}
}

# check_pitch FILE WHAT CODE_FILE [quiet]: the README's bullet "- **WHAT**:" (up to the next
# bullet) names every name of the code's table, in backticks, and no other backticked word.
check_pitch() {
	awk -v h="- **$2**:" 'index($0, h) == 1 { f = 1 } f && n++ && /^- / { exit } f' "$1" |
		grep -o '`[^`]*`' | tr -d '`' | sort -u >"$tmp/pitch.doc"
	sed 's/^| `\([^`]*\)`.*/\1/' "$3" | sort -u >"$tmp/pitch.code"
	same "the README's $2 list ($1)" "$tmp/pitch.code" "$tmp/pitch.doc" ${4:-}
}

check_config "$docs/config.md" || status=1
check_pitch "$docs/../README.md" Assertions "$tmp/types.code" || status=1
check_pitch "$docs/../README.md" Collectors "$tmp/collector.code" || status=1
check_exit "$docs/metrics.md" || status=1
check_metrics "$docs/metrics.md" || status=1
check_types "$docs/metrics.md" || status=1
check_verdicts "$docs/metrics.md" || status=1
check_collectors "$docs/collectors.md" || status=1
check_rules "$docs/golden.md" || status=1
check_fingerprint "$docs/timing.md" || status=1

# Negative controls: each planted drift must fail its check, or the check proves nothing.
planted() {
	if "$@" quiet; then
		echo "FAIL: a page with a planted drift still matches ($1): the check proves nothing"
		status=1
	fi
}
sed 's/^| 70 | internal error/| 71 | internal error/' "$docs/metrics.md" >"$tmp/renumbered.md"
planted check_exit "$tmp/renumbered.md"
sed '/^| `warmup` |/d' "$docs/config.md" >"$tmp/no_key.md"
planted check_config "$tmp/no_key.md"
sed '/^| NOT JUDGED |/d' "$docs/metrics.md" >"$tmp/no_verdict.md"
planted check_verdicts "$tmp/no_verdict.md"
sed '/^| `ebpf` |/d' "$docs/collectors.md" >"$tmp/no_collector.md"
planted check_collectors "$tmp/no_collector.md"
sed 's/^| `brk` | +0% | 2 calls/| `brk` | +0% | 3 calls/' "$docs/golden.md" >"$tmp/rule_floor.md"
planted check_rules "$tmp/rule_floor.md"
sed '/^| `process_alloc_peak` |/d' "$docs/metrics.md" >"$tmp/no_metric.md"
planted check_metrics "$tmp/no_metric.md"
sed '/^| `witness` |/d' "$docs/metrics.md" >"$tmp/no_type.md"
planted check_types "$tmp/no_type.md"
sed 's/^| `instructions` | `max_instructions`, `tolerance` |/| `instructions` | `max_instructions` |/' \
	"$docs/metrics.md" >"$tmp/type_key.md"
planted check_types "$tmp/type_key.md"
sed 's/`witness`, //' "$docs/../README.md" >"$tmp/no_pitch_type.md"
planted check_pitch "$tmp/no_pitch_type.md" Assertions "$tmp/types.code"
sed 's/^- \*\*Collectors\*\*: `ptrace`/- **Collectors**: `ptrace`, `perf`/' "$docs/../README.md" \
	>"$tmp/extra_pitch_collector.md"
planted check_pitch "$tmp/extra_pitch_collector.md" Collectors "$tmp/collector.code"
sed '/^| `governor` |/d' "$docs/timing.md" >"$tmp/no_field.md"
planted check_fingerprint "$tmp/no_field.md"
[ "$status" -eq 0 ] &&
	echo "docs/ tables match the code (config keys, exit codes, verdicts, collectors," \
		"assertion types, metrics, count rules, fingerprint fields; the README's lists)"
exit "$status"
