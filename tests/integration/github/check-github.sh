#!/bin/sh
# check-github.sh BINARY_DIR - `renacer check --github` end to end, with
# GITHUB_STEP_SUMMARY, GITHUB_OUTPUT and GITHUB_WORKSPACE in a scratch directory, on small
# configs around the bundled example target (build/targets/example_work 5: five fsync calls).
#
# A failing config (FAIL, WARN, PASS, SKIP): exit 1, one `::error` at the failing assertion's
# own [[assertion]] line and one `::warning` at the warning's, a summary shaped as a comment
# (at most 15 lines and 100 columns above <details>, the failing row named there with its
# cause, the run's link), outputs result=fail failed=1 warnings=1 junit report. A passing config: exit 0, no
# annotation, result=pass. Also: GITHUB_ACTIONS=true turns the mode on, --no-github turns it
# off, RENACER_GITHUB_ANNOTATIONS limits annotations, paths are relative to the workspace.
# Exit 77 (skip) when the ptrace collector is unavailable here.
set -eu

bin=$(cd "$1" && pwd)
renacer=$bin/renacer
work=$bin/targets/example_work
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rn-github.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
ws=$tmp/ws
mkdir -p "$ws/sub"

fail() {
	echo "FAIL: $*" >&2
	exit 1
}
# expect FILE TEXT: FILE contains the fixed string TEXT.
expect() {
	grep -qF -- "$2" "$1" || {
		echo "--- $1:" >&2
		cat "$1" >&2
		fail "'$1' lacks: $2"
	}
}
# header_line FILE NAME: line of the [[assertion]] header of assertion NAME.
header_line() {
	awk -v n="name = \"$2\"" '/^\[\[assertion\]\]/ { h = NR } index($0, n) == 1 { print h }' "$1"
}
# run_check NAME ARGS...: renacer check in $ws with fresh GitHub files $tmp/NAME.*;
# sets $rc.
run_check() {
	name=$1
	shift
	: >"$tmp/$name.summary"
	: >"$tmp/$name.output"
	set +e
	(cd "$ws" && GITHUB_ACTIONS=true GITHUB_WORKSPACE="$ws" \
		GITHUB_SERVER_URL=https://github.example GITHUB_REPOSITORY=o/r GITHUB_RUN_ID=42 \
		GITHUB_STEP_SUMMARY="$tmp/$name.summary" GITHUB_OUTPUT="$tmp/$name.output" \
		RUNNER_TEMP="$tmp" RENACER_GITHUB_REPORT="$tmp/$name.report" \
		"$renacer" check --no-golden --no-color "$@" >"$tmp/$name.stdout" 2>"$tmp/$name.stderr")
	rc=$?
	set -e
}

cat >"$ws/renacer.toml" <<EOF
# A config with one verdict of each kind.
[[target]]
name = "work"
command = ["$work", "5"]
counting_runs = 2

[[assertion]]
name = "fsync_loose"
type = "span_count"
max_spans = 1000
span_name_pattern = "f(data)?sync"

[[assertion]]
name = "fsync_tight"
type = "span_count"
max_spans = 1
span_name_pattern = "f(data)?sync"

[[assertion]]
name = "fsync_soft"
type = "span_count"
max_spans = 2
span_name_pattern = "f(data)?sync"
fail_on_violation = false

[[assertion]]
name = "fsync_off"
type = "span_count"
max_spans = 1
span_name_pattern = "f(data)?sync"
enabled = false
EOF
tight=$(header_line "$ws/renacer.toml" fsync_tight)
soft=$(header_line "$ws/renacer.toml" fsync_soft)
if [ "$tight" != 13 ] || [ "$soft" != 19 ]; then
	fail "header lines: tight=$tight soft=$soft"
fi

# ---- A failing check ------------------------------------------------------------------------
run_check failing --github --junit "$tmp/junit.xml"
if [ "$rc" = 5 ]; then
	echo "SKIP: the ptrace collector is unavailable here" >&2
	cat "$tmp/failing.stderr" >&2
	exit 77
fi
[ "$rc" = 1 ] || { cat "$tmp/failing.stderr" >&2; fail "failing config: exit $rc, expected 1"; }

# Annotations: exactly one error and one warning, at their own lines, with escaped titles.
[ "$(grep -c '^::error ' "$tmp/failing.stdout")" = 1 ] || fail "expected one ::error line"
[ "$(grep -c '^::warning ' "$tmp/failing.stdout")" = 1 ] || fail "expected one ::warning line"
expect "$tmp/failing.stdout" "::error file=renacer.toml,line=$tight,col=1,title=renacer FAIL%3A work / fsync_tight::"
expect "$tmp/failing.stdout" "::warning file=renacer.toml,line=$soft,col=1,title=renacer WARN%3A work / fsync_soft::"
grep -q 'fsync_loose\|fsync_off' "$tmp/failing.stdout" && fail "a passing or skipped assertion was annotated"

# Summary: the comment a reviewer reads in ten seconds. Above the fold: the verdict line, the
# counts, the one failing row with its cause; everything else folded in <details>, as a list
# (no table: a table scrolls sideways), failures first.
s=$tmp/failing.summary
expect "$s" "## ❌ renacer check: failed"
expect "$s" "**1 failed** · 1 passed · 1 advisory · 1 skipped"
expect "$s" "exit 1: a blocking assertion"
expect "$s" "- ❌ **FAIL** work/fsync\_tight: 5 calls, limit 1 call (+400%)"
expect "$s" "[Run page and artifacts](https://github.example/o/r/actions/runs/42)"
# span counts only: no timing run, the two counting runs
expect "$s" "#### ❌ work (0 timing runs, 2 counting runs)"
expect "$s" "- ❌ FAIL **fsync\_tight** · 5 calls, limit 1 call (+400.0%) · "
expect "$s" "- ⚠️ WARN **fsync\_soft** · 5 calls, limit 2 calls (+150.0%) · "
expect "$s" "- ✅ PASS **fsync\_loose** · 5 calls, limit 1000 calls"
expect "$s" "- ⏭️ SKIP **fsync\_off**"
grep -q '^|' "$s" && fail "the summary has a table"
order=$(grep -o '^- [^ ]* [A-Z]* \*\*fsync\\_[a-z]*' "$s" | sed 's/.*_//' | tr '\n' ' ')
[ "$order" = "tight soft loose off " ] || fail "summary rows not failures first: $order"
# The bar: at most 15 lines above the fold, every one within 100 columns.
fold=$(grep -n '^<details>' "$s" | head -1 | cut -d: -f1)
[ -n "$fold" ] && [ "$fold" -le 16 ] || fail "$((fold - 1)) lines above <details> (at most 15)"
python3 - "$s" "$fold" <<'PY' || fail "a line above <details> is wider than 100 columns"
import sys, unicodedata
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")[: int(sys.argv[2]) - 1]
width = lambda l: sum(2 if unicodedata.east_asian_width(c) == "W" else 1
		      for c in l if unicodedata.category(c) != "Mn" and c != "\ufe0f")
sys.exit(max(map(width, lines)) > 100)
PY
cmp -s "$s" "$tmp/failing.report" || fail "the report differs from the job summary"

# Outputs.
o=$tmp/failing.output
expect "$o" "result=fail"
expect "$o" "failed=1"
expect "$o" "warnings=1"
expect "$o" "exit_code=1"
expect "$o" "report=$tmp/failing.report"
expect "$o" "junit=$tmp/junit.xml"
[ -s "$tmp/junit.xml" ] || fail "no JUnit XML written"

# ---- A passing check ------------------------------------------------------------------------
cat >"$ws/sub/renacer.toml" <<EOF
[[target]]
name = "work"
command = ["$work", "5"]

[[assertion]]
name = "fsync_loose"
type = "span_count"
max_spans = 1000
span_name_pattern = "f(data)?sync"
EOF
run_check passing --config sub/renacer.toml
[ "$rc" = 0 ] || { cat "$tmp/passing.stderr" >&2; fail "passing config: exit $rc, expected 0"; }
grep -q '^::error\|^::warning' "$tmp/passing.stdout" && fail "a passing check annotated something"
expect "$tmp/passing.summary" "## ✅ renacer check: passed"
expect "$tmp/passing.summary" "sub/renacer.toml"
expect "$tmp/passing.output" "result=pass"
expect "$tmp/passing.output" "failed=0"
expect "$tmp/passing.output" "warnings=0"

# ---- The mode's switches and limits ---------------------------------------------------------
# GITHUB_ACTIONS=true alone turns it on (run_check sets it; no --github here).
run_check auto
[ "$rc" = 1 ] || fail "auto: exit $rc"
expect "$tmp/auto.output" "result=fail"
expect "$tmp/auto.stdout" "::error file=renacer.toml,line=$tight,"
# --no-github turns it off.
run_check off --no-github
[ "$rc" = 1 ] || fail "off: exit $rc"
[ -s "$tmp/off.output" ] && fail "--no-github still wrote outputs"
[ -s "$tmp/off.summary" ] && fail "--no-github still wrote a summary"
grep -q '^::' "$tmp/off.stdout" && fail "--no-github still annotated"
# RENACER_GITHUB_ANNOTATIONS=0: no annotation, the summary and outputs stay.
RENACER_GITHUB_ANNOTATIONS=0
export RENACER_GITHUB_ANNOTATIONS
run_check quiet --github
unset RENACER_GITHUB_ANNOTATIONS
[ "$rc" = 1 ] || fail "quiet: exit $rc"
grep -q '^::error\|^::warning' "$tmp/quiet.stdout" && fail "annotations despite a limit of 0"
expect "$tmp/quiet.output" "failed=1"
# A config given by absolute path outside the current directory is still workspace-relative.
: >"$tmp/abs.summary"
: >"$tmp/abs.output"
set +e
(cd "$tmp" && GITHUB_ACTIONS=true GITHUB_WORKSPACE="$ws" GITHUB_STEP_SUMMARY="$tmp/abs.summary" \
	GITHUB_OUTPUT="$tmp/abs.output" "$renacer" check --no-golden --config "$ws/renacer.toml" \
	>"$tmp/abs.stdout" 2>"$tmp/abs.stderr")
rc=$?
set -e
[ "$rc" = 1 ] || fail "abs: exit $rc"
expect "$tmp/abs.stdout" "::error file=renacer.toml,line=$tight,col=1,"

# Log groups around the runs, when check.c opens them, are balanced.
opened=$(grep -c '^::group::' "$tmp/failing.stderr" || true)
closed=$(grep -c '^::endgroup::' "$tmp/failing.stderr" || true)
[ "$opened" = "$closed" ] || fail "$opened ::group:: but $closed ::endgroup:: lines"

echo "ok: GitHub mode (annotations at lines $tight and $soft, summary, outputs, switches)"
