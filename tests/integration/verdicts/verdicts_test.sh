#!/bin/sh
# Integration tests of verdict honesty: a metric that was not judged never reads PASS (console,
# JUnit, GitHub summary, exit code with [regression] not_judged), `validate` rejects run counts
# that can never reach alpha, [golden] metrics, a new syscall fails, a golden trace recorded for
# another target or command is named.
#
#     verdicts_test.sh CASE BUILD_DIR
#
# Exit 0 = pass, 1 = fail, 77 = skipped.
set -u
case_name=$1
build=$2
renacer="$build/renacer"
targets="$build/targets"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() {
	echo "FAIL: $*" >&2
	[ -f "$tmp/err" ] && sed 's/^/  | /' "$tmp/err" >&2
	exit 1
}

run() {
	"$renacer" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

expect_rc() {
	[ "$rc" = "$1" ] || fail "$case_name: expected exit $1, got $rc"
}

expect_err() {
	grep -q -- "$1" "$tmp/err" || fail "$case_name: stderr lacks '$1'"
}

# example_work with `runs` measured runs and extra TOML appended.
work_config() {
	cat >"$tmp/renacer.toml" <<EOT
[[target]]
name = "work"
command = ["$targets/example_work", "5"]
runs = $1
[report]
junit = "$tmp/junit.xml"
$2
EOT
}

case $case_name in
not_judged)
	# runs = 1 against a golden trace, adaptive repeats off (max_runs = 1): timing is NOT
	# JUDGED everywhere, with what to change; never PASS.
	work_config 1 '[regression]
max_runs = 1'
	run golden update --config "$tmp/renacer.toml"
	expect_rc 0
	expect_err "(10 timing runs, 3 counting runs)" # [golden] runs defaults to 10, 3 counting
	GITHUB_STEP_SUMMARY="$tmp/summary.md" GITHUB_OUTPUT="$tmp/gh_out" \
		"$renacer" check --config "$tmp/renacer.toml" --github >"$tmp/out" 2>"$tmp/err"
	rc=$?
	expect_rc 0
	expect_err "golden:wall_time  *NOT JUDGED"
	expect_err "golden:cpu_time  *NOT JUDGED"
	expect_err "1 measured run < min_runs_for_timing 5"
	expect_err "to judge it: runs >= 5 in \[\[target\]\] 'work' (or --runs 5)"
	expect_err "result: .*3 not judged.*; exit 0"
	expect_err "note: 3 metrics were not judged"
	if grep -q "golden:wall_time  *PASS" "$tmp/err"; then fail "wall_time reads PASS"; fi
	grep -q '<testcase name="golden:wall_time"' "$tmp/junit.xml" || fail "no wall_time testcase"
	sed -n '/name="golden:wall_time"/,/<\/testcase>/p' "$tmp/junit.xml" |
		grep -q '<skipped message="wall_time .*not judged: 1 measured run' ||
		fail "junit: wall_time is not skipped with its reason"
	grep -q 'skipped="3"' "$tmp/junit.xml" || fail "junit: skipped count is not 3"
	grep -q "NOT JUDGED" "$tmp/summary.md" || fail "summary lacks NOT JUDGED"
	grep -q "to judge it: runs" "$tmp/summary.md" || fail "summary lacks what to change"
	grep -q "^result=warn" "$tmp/gh_out" || fail "GitHub result is not warn"
	grep -q "::warning .*NOT JUDGED" "$tmp/out" || fail "no warning annotation"
	# [regression] not_judged = "fail": the gate blocks on what it could not judge.
	work_config 1 '[regression]
not_judged = "fail"
max_runs = 1'
	run check --config "$tmp/renacer.toml"
	expect_rc 1
	expect_err "result: .*3 not judged.*; exit 1"
	# Enough runs: judged (PASS or INCONCLUSIVE, never NOT JUDGED).
	run check --config "$tmp/renacer.toml" --runs 5
	if grep -q "NOT JUDGED" "$tmp/err"; then fail "5 runs against 10 still NOT JUDGED"; fi
	# The default max_runs: adaptive repeats measure more runs than the one asked for.
	work_config 1 ""
	run check --config "$tmp/renacer.toml"
	if grep -q "NOT JUDGED" "$tmp/err"; then fail "5 runs against 10 still NOT JUDGED"; fi
	;;
infeasible)
	# 3 runs against a 5-run golden can never reach alpha 0.01: validate says so and names the
	# smallest run counts that can.
	work_config 3 '[golden]
runs = 5
[regression]
min_runs_for_timing = 3
max_runs = 3'
	run validate --config "$tmp/renacer.toml"
	expect_rc 3
	expect_err "renacer.toml:1:1: error: target 'work': runs = 3 against 5 golden runs"
	expect_err "can never reach alpha 0.01"
	expect_err "use runs >= 4, or golden runs >= 7"
	# Possible once the golden has 7 runs (1/C(10,3) = 0.0083).
	work_config 3 '[golden]
runs = 7
[regression]
min_runs_for_timing = 3
max_runs = 3'
	run validate --config "$tmp/renacer.toml"
	expect_rc 0
	# An existing golden trace counts with its own runs: 5 recorded, checked with 3.
	work_config 5 '[golden]
runs = 5
[regression]
min_runs_for_timing = 3
max_runs = 3'
	run golden update --config "$tmp/renacer.toml"
	expect_rc 0
	run check --config "$tmp/renacer.toml" --runs 3
	expect_err "golden:wall_time  *NOT JUDGED"
	expect_err "3 runs vs 5 golden runs can never reach alpha 0.01 (smallest p 0.0179)"
	expect_err "to judge it: runs >= 4 in \[\[target\]\] 'work' against this 5-run golden trace"
	work_config 3 '[golden]
runs = 10
[regression]
min_runs_for_timing = 3
max_runs = 3'
	run validate --config "$tmp/renacer.toml"
	expect_rc 3
	expect_err "runs = 3 against 5 golden runs (its golden trace has) can never reach"
	;;
golden_metrics)
	work_config 1 '[golden]
metrics = ["syscalls", "syscall_counts"]
[golden.tolerances]
syscalls = 0.5'
	run golden update --config "$tmp/renacer.toml"
	expect_rc 0
	run check --config "$tmp/renacer.toml"
	expect_rc 0
	expect_err "golden:wall_time  *SKIP"
	expect_err "not in \[golden\] metrics"
	expect_err "golden:syscalls  *PASS"
	expect_err "tolerance +50%"
	if grep -q "NOT JUDGED" "$tmp/err"; then fail "a left-out metric reads NOT JUDGED"; fi
	work_config 1 '[golden]
metrics = ["wall_tme"]'
	run validate --config "$tmp/renacer.toml"
	expect_rc 3
	expect_err "unknown golden metric \"wall_tme\" in \[golden\] metrics (did you mean \"wall_time\"?)"
	work_config 1 '[golden.tolerances]
wall_time = "lots"'
	run validate --config "$tmp/renacer.toml"
	expect_rc 3
	expect_err "'wall_time' in \[golden.tolerances\] must be a number"
	;;
new_syscall)
	# One new sync() in a shell script the target runs: FAIL, naming it.
	command -v sync >/dev/null || exit 77
	printf 'cat /dev/null\n' >"$tmp/job.sh"
	cat >"$tmp/renacer.toml" <<EOT
[[target]]
name = "job"
command = ["sh", "$tmp/job.sh"]
runs = 3
[golden]
metrics = ["syscalls", "syscall_counts"]
EOT
	run golden update --config "$tmp/renacer.toml"
	expect_rc 0
	run check --config "$tmp/renacer.toml"
	expect_rc 0
	printf 'cat /dev/null\nsync\n' >"$tmp/job.sh"
	run check --config "$tmp/renacer.toml"
	expect_rc 1
	expect_err "golden:syscall_counts  *FAIL"
	expect_err "sync 1 vs golden 0 (new)"
	;;
golden_identity)
	work_config 1 '[golden]
metrics = ["syscalls"]'
	run golden update --config "$tmp/renacer.toml"
	expect_rc 0
	cp "$tmp/golden_traces/work.json" "$tmp/golden_traces/copy.json"
	cat >>"$tmp/renacer.toml" <<EOT
[[target]]
name = "copy"
command = ["$targets/example_work", "6"]
EOT
	run check --config "$tmp/renacer.toml" --target copy
	expect_err "golden trace 'golden_traces/copy.json' was recorded for target 'work', not 'copy'"
	expect_err "recorded with another command: '$targets/example_work 5', now '$targets/example_work 6'"
	run check --config "$tmp/renacer.toml" --target work
	if grep -q "was recorded" "$tmp/err"; then fail "warned about its own golden trace"; fi
	;;
span_aggregate)
	# span_count honours aggregate over runs: the target syncs once in run 1, twice in run 2,
	# three times in run 3 (median 2, max 3, min 1). Span counts come from counting runs (the
	# timing runs do not stop at syscalls), so there are 3 of those and no timing run.
	command -v sync >/dev/null || exit 77
	cat >"$tmp/job.sh" <<'EOT'
n=$(cat "$1" 2>/dev/null || echo 0)
n=$((n + 1))
echo $n >"$1"
i=0
while [ $i -lt $n ]; do sync; i=$((i + 1)); done
EOT
	cat >"$tmp/renacer.toml" <<EOT
[[target]]
name = "job"
command = ["sh", "$tmp/job.sh", "$tmp/count"]
counting_runs = 3
[[assertion]]
name = "median_syncs"
type = "span_count"
span_name_pattern = "sync"
max_spans = 2
[[assertion]]
name = "max_syncs"
type = "span_count"
span_name_pattern = "sync"
max_spans = 2
aggregate = "max"
[[assertion]]
name = "min_syncs"
type = "span_count"
span_name_pattern = "sync"
max_spans = 1
aggregate = "min"
EOT
	run check --config "$tmp/renacer.toml" --no-golden
	expect_rc 1
	expect_err "job  *median_syncs  *PASS  *2 calls"
	expect_err "job  *max_syncs  *FAIL  *3 calls"
	expect_err "job  *min_syncs  *PASS  *1 call"
	expect_err "median of 3 counting runs"
	if grep -q "timing run" "$tmp/err"; then fail "$case_name: a count-only config made a timing run"; fi
	;;
*)
	echo "unknown case $case_name" >&2
	exit 1
	;;
esac
exit 0
