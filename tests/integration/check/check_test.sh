#!/bin/sh
# Integration tests of `renacer check` / `validate` / `golden update`: every verdict kind and
# exit code, the bundled example end to end, and regression detection against golden traces.
#
#     check_test.sh CASE BUILD_DIR SOURCE_DIR SHARED_DIR
#
# Exit 0 = pass, 1 = fail, 77 = skipped.
set -u
case_name=$1
build=$2
src=$3
shared=$4
renacer="$build/renacer"
targets="$build/targets"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() {
	echo "FAIL: $*" >&2
	[ -f "$tmp/err" ] && sed 's/^/  | /' "$tmp/err" >&2
	exit 1
}

# Run renacer with stderr captured; sets $rc.
run() {
	"$renacer" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

# A missing build is a failure, never a skip.
[ -x "$renacer" ] || fail "'$renacer' is not built"
[ -d "$targets" ] || fail "the target programs are not built ('$targets' is missing)"

expect_rc() {
	[ "$rc" = "$1" ] || fail "$case_name: expected exit $1, got $rc"
}

expect_err() {
	grep -q -- "$1" "$tmp/err" || fail "$case_name: stderr lacks '$1'"
}

# A config for example_work with a golden directory of its own.
work_config() {
	runs=$1
	cat >"$tmp/renacer.toml" <<EOT
[[target]]
name = "work"
command = ["$targets/example_work", "10"]
runs = $runs
[golden]
dir = "$tmp/golden"
[report]
junit = "$tmp/junit.xml"
EOT
}

case $case_name in
example)
	# The README's main job, against the committed golden traces of the example. Counts are
	# judged; timing is not (the committed golden was recorded at another time, and this
	# test runs beside others: tests/bench/regression.sh measures the timing gate).
	sed -e "s|build/targets/|$targets/|g" -e "s|build/renacer-junit.xml|$tmp/junit.xml|" \
		-e "s|dir = \"golden_traces\"|dir = \"$src/golden_traces\"|" \
		-e "s|^timing = true|timing = false|" \
		"$src/renacer.toml.example" >"$tmp/renacer.toml"
	run check --config "$tmp/renacer.toml"
	expect_rc 0
	# the result line counts what is not zero: passes and skips only here
	expect_err "result: "
	grep "^result: " "$tmp/err" | sed 's/;.*//' | grep -Eq "failed|warning|no data|error" &&
		fail "$case_name: a failure, warning or error in: $(grep '^result: ' "$tmp/err")"
	expect_err " passed"
	expect_err "golden"
	# what a newcomer reads: one progress line per target in a log, the whole report within
	# 40 lines (statistics only under FAIL rows)
	[ "$(grep -c '^\[1/2\] example_work: ' "$tmp/err")" = 1 ] ||
		fail "$case_name: not one progress line for example_work"
	[ "$(wc -l <"$tmp/err")" -le 40 ] || fail "$case_name: $(wc -l <"$tmp/err") lines > 40"
	grep -q '<testsuite name="example_work"' "$tmp/junit.xml" || fail "no example_work suite"
	;;
example_junit_schema)
	# The example's JUnit report against both schemas of shared/junit/. Without the schemas
	# or xmllint this is a skip that says why (exit 77), never a silent pass.
	if [ ! -d "$shared/junit" ]; then
		echo "SKIP: JUnit schemas absent: no directory '$shared/junit'" >&2
		exit 77
	fi
	set -- "$shared"/junit/*.xsd
	if [ ! -f "$1" ]; then
		echo "SKIP: JUnit schemas absent: no .xsd in '$shared/junit'" >&2
		exit 77
	fi
	if ! command -v xmllint >/dev/null 2>&1; then
		echo "SKIP: xmllint is not installed (libxml2-utils)" >&2
		exit 77
	fi
	sed -e "s|build/targets/|$targets/|g" -e "s|build/renacer-junit.xml|$tmp/junit.xml|" \
		-e "s|dir = \"golden_traces\"|dir = \"$src/golden_traces\"|" \
		-e "s|^timing = true|timing = false|" \
		"$src/renacer.toml.example" >"$tmp/renacer.toml"
	run check --config "$tmp/renacer.toml"
	expect_rc 0
	[ -s "$tmp/junit.xml" ] || fail "no JUnit report written"
	for xsd in "$@"; do
		xmllint --noout --schema "$xsd" "$tmp/junit.xml" 2>"$tmp/err" ||
			fail "junit does not validate against $xsd"
	done
	;;
doubled_syscalls)
	# Golden of the normal program, then the same program doing twice the I/O: exit 1 and the
	# grown syscall is named.
	work_config 3
	run golden update --config "$tmp/renacer.toml"
	expect_rc 0
	[ -f "$tmp/golden/work.json" ] || fail "no golden written"
	run check --config "$tmp/renacer.toml"
	expect_rc 0
	RN_EXAMPLE_SYSCALLS=2 "$renacer" check --config "$tmp/renacer.toml" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	expect_rc 1
	expect_err "fsync"
	expect_err "regenerate-golden.sh"
	grep -q "<failure" "$tmp/junit.xml" || fail "junit has no failure"
	;;
golden_update_budgets)
	# A budget kept in renacer.toml that the newly recorded runs exceed is named by golden
	# update with its config line (the golden trace moves, the hand-kept budget does not);
	# one that still holds is not.
	work_config 3
	cat >>"$tmp/renacer.toml" <<EOT

[[assertion]]
name = "work_syscalls"
type = "span_count"
span_name_pattern = ".*"
max_spans = 3
targets = ["work"]

[[assertion]]
name = "work_fsync"
type = "span_count"
span_name_pattern = "fsync"
max_spans = 1000
targets = ["work"]
EOT
	line=$(grep -n 'name = "work_syscalls"' "$tmp/renacer.toml" | cut -d: -f1)
	run golden update --config "$tmp/renacer.toml"
	expect_rc 0
	expect_err "warning: $tmp/renacer.toml:$((line - 1)): budget 'work_syscalls' does not hold for the runs just recorded"
	grep -q "work_fsync" "$tmp/err" && fail "a budget that holds was named"
	;;
golden_corrupt)
	# A corrupt golden trace is an error naming the file, never a pass, never overwritten.
	work_config 1
	mkdir -p "$tmp/golden"
	printf '{"format": "renacer-golden/1", "runs": ' >"$tmp/golden/work.json"
	cp "$tmp/golden/work.json" "$tmp/before.json"
	run check --config "$tmp/renacer.toml"
	expect_rc 3
	expect_err "$tmp/golden/work.json"
	cmp -s "$tmp/golden/work.json" "$tmp/before.json" || fail "check modified the golden"
	printf '{"format": "renacer-golden/7"}' >"$tmp/golden/work.json"
	run check --config "$tmp/renacer.toml"
	expect_rc 3
	expect_err "newer renacer"
	;;
verdicts)
	# PASS, FAIL, WARN, SKIP, NO DATA in one config: exit 1 (FAIL and NO DATA block).
	cat >"$tmp/renacer.toml" <<EOT
[[target]]
name = "work"
command = ["$targets/example_work", "5"]
[[assertion]]
name = "pass_fsync"
type = "span_count"
max_spans = 5
span_name_pattern = "fsync"
[[assertion]]
name = "fail_fsync"
type = "span_count"
max_spans = 4
span_name_pattern = "fsync"
[[assertion]]
name = "warn_fsync"
type = "span_count"
max_spans = 1
span_name_pattern = "fsync"
fail_on_violation = false
[[assertion]]
name = "skip_me"
type = "span_count"
max_spans = 1
span_name_pattern = "fsync"
enabled = false
[[assertion]]
name = "no_data"
type = "span_count"
max_spans = 10
span_name_pattern = "gpu:.*"
[report]
junit = "$tmp/junit.xml"
EOT
	run check --config "$tmp/renacer.toml" --no-golden
	expect_rc 1
	expect_err "work  *pass_fsync  *PASS"
	expect_err "work  *fail_fsync  *FAIL"
	expect_err "work  *warn_fsync  *WARN"
	expect_err "work  *skip_me  *SKIP"
	expect_err "work  *no_data  *NO DATA"
	expect_err "5 calls matching /fsync/ > budget 4"
	expect_err "result: 1 failed, 1 no data, 1 warning, 1 passed, 1 skipped; exit 1"
	# The inclusive boundary: exactly the budget passes.
	grep -Eq "pass_fsync +PASS +5 calls +5 calls" "$tmp/err" || fail "5 calls vs budget 5 did not pass"
	grep -q '<skipped' "$tmp/junit.xml" || fail "junit lacks <skipped>"
	grep -q '<error' "$tmp/junit.xml" || fail "junit lacks <error> for NO DATA"
	;;
warn_only)
	# Only a WARN: exit 0.
	cat >"$tmp/renacer.toml" <<EOT
[[target]]
name = "work"
command = ["$targets/example_work", "3"]
[[assertion]]
name = "warn_fsync"
type = "span_count"
max_spans = 1
span_name_pattern = "fsync"
fail_on_violation = false
EOT
	run check --config "$tmp/renacer.toml" --no-golden
	expect_rc 0
	expect_err "WARN"
	;;
error_target)
	# A target that cannot be executed: ERROR verdicts, exit 4, a clear message.
	cat >"$tmp/renacer.toml" <<EOT
[[target]]
name = "missing"
command = ["./does-not-exist"]
[[assertion]]
name = "cp"
type = "critical_path"
max_duration_ms = 100
EOT
	run check --config "$tmp/renacer.toml"
	expect_rc 4
	expect_err "cannot execute './does-not-exist': No such file or directory"
	expect_err "ERROR"
	;;
crash_target)
	# A target killed by a signal is ERROR too (exit 4), and says which signal.
	cat >"$tmp/renacer.toml" <<EOT
[[target]]
name = "crash"
command = ["/bin/sh", "-c", "kill -SEGV \$\$"]
[[assertion]]
name = "cp"
type = "critical_path"
max_duration_ms = 10000
EOT
	run check --config "$tmp/renacer.toml"
	expect_rc 4
	expect_err "signal 11"
	;;
timeout_target)
	cat >"$tmp/renacer.toml" <<EOT
[[target]]
name = "sleepy"
command = ["/bin/sleep", "30"]
timeout_s = 0.5
[[assertion]]
name = "cp"
type = "critical_path"
max_duration_ms = 100000
EOT
	run check --config "$tmp/renacer.toml"
	expect_rc 4
	expect_err "timed out"
	;;
usage)
	run check --no-such-option
	expect_rc 2
	expect_err "unknown option"
	run frobnicate
	expect_rc 2
	printf '[[assertion]]\nname = "m"\ntype = "memory_usage"\nmax_bytes = 5\n' >"$tmp/renacer.toml"
	run check --config "$tmp/renacer.toml"
	expect_rc 2
	expect_err "has no \[\[target\]\]"
	;;
global_options)
	# Every command takes the global options (runner/input/cli.h RN_GLOBAL_OPTIONS):
	# validate --no-color once exited 2 while check accepted it.
	printf '[[target]]\nname = "t"\ncommand = ["true"]\n' >"$tmp/renacer.toml"
	run validate --no-color --config "$tmp/renacer.toml"
	expect_rc 0
	cmds=$("$renacer" --help | sed -n '/^commands:/,/^$/p' | awk 'NF > 1 { print $1 }')
	[ "$(echo "$cmds" | wc -l)" -ge 10 ] || fail "$case_name: no command list in --help"
	for c in $cmds; do
		case $c in
		help | man) run help --no-color "$c" ;;
		golden) run golden update --no-color --help ;;
		*) run "$c" --no-color --help ;;
		esac
		expect_rc 0
		grep -q -- "--no-color" "$tmp/out" ||
			fail "$case_name: the help of 'renacer $c' does not list --no-color"
	done
	run man --no-color
	expect_rc 0
	grep -c '^\.B \\-\\-no\\-color' "$tmp/out" >"$tmp/n"
	[ "$(cat "$tmp/n")" -ge 10 ] || fail "$case_name: the man page lists --no-color $(cat "$tmp/n") times"
	;;
signals_outside_runs)
	# The first SIGINT/SIGTERM ends a long command with its documented exit code even when it
	# lands outside a run (calibrate once finished with a full report and exit 0). The signal
	# is sent while renacer reads its config from a FIFO, and, as in a background job of a
	# shell, SIGINT starts ignored: only renacer's own handler can catch it.
	printf '[[target]]\nname = "t"\ncommand = ["true"]\nruns = 5\n' >"$tmp/cfg"
	for spec in "calibrate INT 130" "check INT 130" "check TERM 143" "golden TERM 143"; do
		set -- $spec
		rm -f "$tmp/fifo" "$tmp/j.xml"
		rm -rf "$tmp/golden_traces"
		mkfifo "$tmp/fifo"
		sub=$1
		[ "$sub" = golden ] && sub="golden update"
		# shellcheck disable=SC2086
		(trap '' INT; exec "$renacer" $sub --config "$tmp/fifo" $([ "$1" != golden ] &&
			echo --junit "$tmp/j.xml") >"$tmp/out" 2>"$tmp/err") &
		pid=$!
		exec 3>"$tmp/fifo" # returns once renacer has opened the FIFO: its handler is set
		kill -"$2" "$pid"
		sed 's,golden_traces,'"$tmp"'/golden_traces,' "$tmp/cfg" >&3
		printf '[golden]\ndir = "%s/golden_traces"\n' "$tmp" >&3
		exec 3>&-
		wait "$pid"
		rc=$?
		[ "$rc" = "$3" ] || fail "$case_name: $1 after SIG$2 exited $rc, expected $3"
		[ -e "$tmp/golden_traces/t.json" ] && fail "$case_name: golden update wrote a trace after SIG$2"
		if [ "$1" != golden ]; then
			grep -q 'interrupted' "$tmp/j.xml" || fail "$case_name: $1: no partial JUnit report"
		fi
	done
	;;
config_error)
	printf '[[target]]\nname = "t"\ncommand = ["true"]\nruns = "x"\n' >"$tmp/renacer.toml"
	run check --config "$tmp/renacer.toml"
	expect_rc 3
	expect_err "renacer.toml:4:8: error: 'runs' in \[\[target\]\] 't' must be an integer"
	run validate --config "$tmp/renacer.toml"
	expect_rc 3
	printf '[[target]]\nname = "t"\ncommand = ["true"]\n[telemetry]\nx = 1\n' >"$tmp/renacer.toml"
	run validate --config "$tmp/renacer.toml"
	expect_rc 0
	expect_err "ignoring table \[telemetry\]"
	# a table of the original renacer format: accepted, each key with a note
	printf '[[target]]\nname = "t"\ncommand = ["true"]\n[ci]\nfail_fast = true\n' >"$tmp/renacer.toml"
	run validate --config "$tmp/renacer.toml"
	expect_rc 0
	expect_err "renacer.toml:5:1: \[ci\] fail_fast: no equivalent"
	;;
cli_target)
	# Assertions only in the file, the target from the command line (the original DSL).
	printf '[[assertion]]\nname = "few_fsync"\ntype = "span_count"\nmax_spans = 2\nspan_name_pattern = "fsync"\n' >"$tmp/renacer.toml"
	run check --config "$tmp/renacer.toml" -- "$targets/example_work" 2
	expect_rc 0
	run --assert "$tmp/renacer.toml" -- "$targets/example_work" 3
	expect_rc 1
	expect_err "3 calls matching /fsync/ > budget 2"
	# the command-line target's stdout goes to /dev/null, as every target's by default:
	# renacer's stdout holds the report only
	# (a program that makes no fsync: 0 spans, a measurement, judged PASS)
	run check --config "$tmp/renacer.toml" -- sh -c 'echo rn-target-stdout-marker; echo rn-target-stderr-marker >&2'
	expect_rc 0
	grep -q rn-target-stdout-marker "$tmp/out" && fail "$case_name: the target's stdout reached renacer's stdout"
	grep -q few_fsync "$tmp/out" "$tmp/err" || fail "$case_name: no report"
	expect_err rn-target-stderr-marker
	expect_err "0 calls matching /fsync/ <= budget 2"
	# a pattern that names no syscall is a config error at its position, before any run
	printf '[[assertion]]\nname = "few_fsync"\ntype = "span_count"\nmax_spans = 2\nspan_name_pattern = "fsynk"\n' >"$tmp/renacer.toml"
	run check --config "$tmp/renacer.toml" -- "$targets/example_work" 2
	expect_rc 3
	expect_err "renacer.toml:5:21: error: span_name_pattern \"fsynk\" .* matches no syscall of .* (did you mean \"fsync\"?)"
	;;
collector_unavailable)
	printf '[[target]]\nname = "t"\ncommand = ["true"]\ncollectors = ["vulkan"]\n' >"$tmp/renacer.toml"
	RENACER_DISABLE_COLLECTORS=vulkan "$renacer" check --config "$tmp/renacer.toml" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	expect_rc 5
	expect_err "collector 'vulkan' is unavailable"
	;;
output_error)
	# An output that cannot be written fails before the first run, naming it; every such
	# output is reported at once; a missing directory is created (mkdir -p).
	work_config 1
	: >"$tmp/afile"
	run check --config "$tmp/renacer.toml" --junit "$tmp/afile/junit.xml" --trace-out "$tmp/afile/t.json"
	expect_rc 6
	expect_err "cannot write JUnit report '$tmp/afile/junit.xml'"
	expect_err "cannot write timeline '$tmp/afile/t.json'"
	grep -q "run 1/1" "$tmp/err" && fail "$case_name: the target ran before the output error"
	run check --config "$tmp/renacer.toml" --junit "$tmp/new/deeper/junit.xml" --otlp-file "$tmp/o/otlp.jsonl"
	expect_rc 0
	[ -s "$tmp/new/deeper/junit.xml" ] || fail "$case_name: the JUnit directory was not created"
	[ -s "$tmp/o/otlp.jsonl" ] || fail "$case_name: the OTLP file directory was not created"
	;;
config_errors_all)
	# Every config error in one pass (not one per run), each with its location.
	cat >"$tmp/renacer.toml" <<EOT
[[target]]
name = "a"
command = ["true"]
runs = "x"
[[target]]
name = "b"
comand = ["true"]
[[assertion]]
name = "x"
type = "span_count"
max_spans = -1
[regresion]
alpha = 0.1
EOT
	run validate --config "$tmp/renacer.toml"
	expect_rc 3
	expect_err "renacer.toml:4:8: error: 'runs'"
	expect_err "renacer.toml:7:1: error: unknown key 'comand'"
	expect_err "renacer.toml:11:13: error: 'max_spans'"
	expect_err "renacer.toml:12:2: error: unknown table \[regresion\]"
	expect_err "renacer.toml: 4 errors"
	run check --config "$tmp/renacer.toml"
	expect_rc 3
	expect_err "renacer.toml: 4 errors"
	# an empty config is an error for validate
	: >"$tmp/renacer.toml"
	run validate --config "$tmp/renacer.toml"
	expect_rc 3
	expect_err "empty config"
	;;
validate_golden)
	# validate reads the golden traces: a corrupt one fails validate, every one is named
	cat >"$tmp/renacer.toml" <<EOT
[[target]]
name = "one"
command = ["true"]
[[target]]
name = "two"
command = ["true"]
[golden]
dir = "$tmp/golden"
EOT
	mkdir -p "$tmp/golden"
	run validate --config "$tmp/renacer.toml"
	expect_rc 0
	printf '{"format": "renacer-golden/1", "runs": ' >"$tmp/golden/one.json"
	printf 'not json' >"$tmp/golden/two.json"
	run validate --config "$tmp/renacer.toml"
	expect_rc 3
	expect_err "$tmp/golden/one.json"
	expect_err "$tmp/golden/two.json"
	# check reports them before running anything, and runs no target it cannot judge
	run check --config "$tmp/renacer.toml"
	expect_rc 3
	expect_err "$tmp/golden/two.json"
	grep -q "run 1/1" "$tmp/err" && fail "$case_name: a target ran despite its corrupt golden"
	head -n 6 "$tmp/err" | grep -q "$tmp/golden/one.json" ||
		fail "$case_name: the golden errors are not reported first"
	;;
nothing_judged)
	# A target with no assertion and no golden trace is run but judged by nothing: the report
	# says so (it once printed an empty table and a bare "0 passed ... exit 0").
	cat >"$tmp/renacer.toml" <<EOT
[[target]]
name = "lonely"
command = ["true"]
[[target]]
name = "judged"
command = ["true"]
[[assertion]]
name = "cp"
type = "critical_path"
max_duration_ms = 100000
targets = ["judged"]
[golden]
dir = "$tmp/golden"
EOT
	run check --config "$tmp/renacer.toml"
	expect_rc 0
	expect_err "note: target 'lonely' was run but nothing judged it: no assertion applies to it and no golden trace was compared"
	grep -q "target 'judged' was run but nothing judged" "$tmp/err" && fail "judged target noted"
	run golden update --config "$tmp/renacer.toml"
	expect_rc 0
	run check --config "$tmp/renacer.toml"
	grep -q "nothing judged it" "$tmp/err" && fail "noted with a golden trace"
	;;
pattern_matches_none)
	# An assertion whose trace_name_pattern matches no declared target judges nothing and
	# shows no row: validate and check warn at its line.
	cat >"$tmp/renacer.toml" <<EOT
[[target]]
name = "gzip_small"
command = ["true"]

[[assertion]]
name = "cp"
type = "critical_path"
max_duration_ms = 100000
trace_name_pattern = "gzp.*"

[[assertion]]
name = "cp_ok"
type = "critical_path"
max_duration_ms = 100000
trace_name_pattern = "gzip.*"
EOT
	run validate --config "$tmp/renacer.toml"
	expect_rc 0
	expect_err "renacer.toml:5:1: \[\[assertion\]\] 'cp' applies to no target: trace_name_pattern 'gzp.\*' matches none of 'gzip_small'; it judges nothing"
	grep -q "'cp_ok' applies to no target" "$tmp/err" && fail "a matching pattern warned"
	run check --config "$tmp/renacer.toml"
	expect_rc 0
	expect_err "'cp' applies to no target"
	expect_err "gzip_small *cp_ok *PASS"
	;;
init_equivalence)
	# renacer init --equivalence: the config gates the behaviour too, and the behaviour trace
	# is recorded with the golden trace; the config is never replaced.
	mkdir -p "$tmp/proj" "$tmp/work"
	(cd "$tmp/proj" && "$renacer" init --equivalence -- "$targets/eq_orig" "$tmp/work") \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
	expect_rc 0
	[ -s "$tmp/proj/golden_traces/eq_orig.json" ] || fail "$case_name: no golden trace"
	[ -s "$tmp/proj/golden_traces/behaviour/eq_orig.jsonl" ] ||
		fail "$case_name: no behaviour trace"
	grep -q '^type = "equivalence"' "$tmp/proj/renacer.toml" || fail "$case_name: no assertion"
	grep -q '^# measured: median .* ms; budget = median x 2.00' "$tmp/proj/renacer.toml" ||
		fail "$case_name: the critical path budget does not state its headroom"
	(cd "$tmp/proj" && "$renacer" check) >"$tmp/out" 2>"$tmp/err"
	rc=$?
	expect_rc 0
	expect_err "eq_orig  *eq_orig_behaviour  *PASS"
	;;
init_shell_name)
	# renacer init -- sh -c SCRIPT names the target after the program the script runs (the word
	# after its last exec, else its first program that is not housekeeping), not after the shell.
	mkdir -p "$tmp/proj" "$tmp/proj2"
	(cd "$tmp/proj" && "$renacer" init --runs 5 -- sh -c 'rm -f x && exec true --x') \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
	expect_rc 0
	grep -q '^name = "true"$' "$tmp/proj/renacer.toml" || fail "$case_name: not named true"
	grep -q "printf '.renacer/" "$tmp/err" || fail "$case_name: no .gitignore line for what a check writes"
	[ -s "$tmp/proj/golden_traces/true.json" ] || fail "$case_name: no golden trace true.json"
	# the example workflow it points at: the source tree's, when the build directory is in it
	if [ -r "$build/../ci/examples/renacer.yml" ]; then
		wf=$(cd "$build/../ci/examples" && pwd -P)/renacer.yml
		grep -qF "cp $wf .github/workflows/renacer.yml" "$tmp/err" ||
			fail "$case_name: the workflow example is not $wf"
	fi
	(cd "$tmp/proj2" && "$renacer" init --runs 5 -- sh -c 'LC_ALL=C env X=1 echo hi >/dev/null') \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
	expect_rc 0
	grep -q '^name = "echo"$' "$tmp/proj2/renacer.toml" || fail "$case_name: not named echo"
	# housekeeping first (mkdir, cat into a pipe): the program that does the work names it
	mkdir -p "$tmp/proj3"
	(cd "$tmp/proj3" && "$renacer" init --runs 5 -- sh -c 'mkdir -p d && cat /dev/null | wc -c >d/n') \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
	expect_rc 0
	grep -q '^name = "wc"$' "$tmp/proj3/renacer.toml" || fail "$case_name: not named wc"
	;;
report_markdown)
	# renacer report --markdown: a check's results file as the job summary's Markdown, for a
	# pull-request comment; the exit code is the check's.
	cat >"$tmp/renacer.toml" <<EOT
[[target]]
name = "work"
command = ["$targets/example_work", "5"]
runs = 2
[[assertion]]
name = "few_fsync"
type = "span_count"
max_spans = 1
span_name_pattern = "fsync"
[[assertion]]
name = "fast"
type = "critical_path"
max_duration_ms = 100000
EOT
	run check --config "$tmp/renacer.toml" --no-golden --results "$tmp/results.json"
	expect_rc 1
	run report --markdown "$tmp/report.md" "$tmp/results.json"
	expect_rc 1
	grep -q '^## .* renacer check: failed' "$tmp/report.md" || fail "$case_name: no headline"
	grep -q '^- .* \*\*FAIL\*\* work/few\\_fsync: 5 calls, limit 1 call (+400%)$' "$tmp/report.md" ||
		fail "$case_name: no FAIL line for few_fsync above the fold"
	grep -q '^- .* FAIL \*\*few\\_fsync\*\* · 5 calls, limit 1 call (+400.0%)' \
		"$tmp/report.md" || fail "$case_name: no FAIL row for few_fsync"
	grep -q '^\*\*1 failed\*\* · 1 passed · ' "$tmp/report.md" || fail "$case_name: no counts"
	# Timing and counting runs are told apart, never summed.
	grep -q '(2 timing runs, 1 counting run)' "$tmp/report.md" || fail "$case_name: runs summed"
	"$renacer" report --markdown - "$tmp/results.json" >"$tmp/stdout.md" 2>/dev/null
	cmp -s "$tmp/stdout.md" "$tmp/report.md" || fail "$case_name: '-' differs from the file"
	run report --markdown "$tmp/x.md"
	expect_rc 2
	;;
golden_equivalence)
	# golden update records the behaviour trace an equivalence assertion compares with, as
	# `renacer trace -f --format jsonl` would, in the target's cwd; check then judges it.
	mkdir -p "$tmp/work"
	cat >"$tmp/renacer.toml" <<EOT
[[target]]
name = "orig"
command = ["$targets/eq_orig", "$tmp/work"]
stdout = "null"
[[assertion]]
name = "same_behaviour"
type = "equivalence"
[semantic_equivalence]
enabled = true
baseline_dir = "golden_traces/behaviour"
[golden]
dir = "$tmp/golden"
runs = 1
EOT
	run check --config "$tmp/renacer.toml" --no-golden
	[ "$rc" = 0 ] && fail "$case_name: check passed without a recorded behaviour trace"
	run golden update --config "$tmp/renacer.toml"
	expect_rc 0
	expect_err "wrote $tmp/golden_traces/behaviour/orig.jsonl (behaviour trace for equivalence assertion 'same_behaviour')"
	tail -n 1 "$tmp/golden_traces/behaviour/orig.jsonl" | grep -q '"type":"end"' ||
		fail "$case_name: the behaviour trace is not a complete JSONL trace"
	ls "$tmp/golden_traces/behaviour" | grep -q tmp && fail "$case_name: a temporary was left"
	run check --config "$tmp/renacer.toml" --no-golden
	expect_rc 0
	expect_err "orig  *same_behaviour  *PASS"
	;;
syscall_patterns)
	# validate resolves span_name_pattern against the architecture's syscall table: a typo
	# is an error at its position (check would call it NO DATA, or pass it at 0); a syscall
	# libc no longer makes (open: glibc calls openat) gets a note naming the one it does.
	arch=$(uname -m)
	cat >"$tmp/renacer.toml" <<EOT
[[target]]
name = "t"
command = ["true"]
[[assertion]]
name = "typo"
type = "span_count"
max_spans = 1
span_name_pattern = "opne.*"
EOT
	run validate --config "$tmp/renacer.toml"
	expect_rc 3
	expect_err "renacer.toml:8:21: error: span_name_pattern \"opne.\*\" in \[\[assertion\]\] 'typo' matches no syscall of $arch and no span of another kind (gpu:, region:, graph:, app:) (did you mean \"open"
	cat >"$tmp/renacer.toml" <<EOT
[[target]]
name = "t"
command = ["true"]
[[assertion]]
name = "old_open"
type = "span_count"
max_spans = 1
span_name_pattern = "open"
[[assertion]]
name = "both"
type = "span_count"
max_spans = 1
span_name_pattern = "open|openat"
[[assertion]]
name = "gpu"
type = "span_count"
max_spans = 1
span_name_pattern = "gpu:.*"
EOT
	run validate --config "$tmp/renacer.toml"
	# x86_64 has an open syscall that glibc never makes (a note); aarch64 has none (an error);
	# either way the message names openat.
	case $arch in
	x86_64) expect_rc 0 ;;
	*) expect_rc 3 ;;
	esac
	expect_err "renacer.toml:8:21: .*span_name_pattern \"open\" in \[\[assertion\]\] 'old_open'.*open() calls openat"
	grep -q "'both'" "$tmp/err" && fail "open|openat (openat included) got a note"
	grep -q "'gpu'" "$tmp/err" && fail "a gpu: pattern was resolved against syscalls"
	;;
spool_fd)
	# A check whose outputs need every span spools them to an unlinked file opened before the
	# target is spawned; the target must not inherit it (an extra fd shifts its fd numbers).
	cat >"$tmp/renacer.toml" <<EOT
[[target]]
name = "fds"
command = ["sh", "-c", "ls -l /proc/\$\$/fd/ >$tmp/fds.txt"]
EOT
	run check --config "$tmp/renacer.toml" --trace-out "$tmp/trace.json" --otlp-file "$tmp/otlp.jsonl"
	expect_rc 0
	grep -q ' 1 -> ' "$tmp/fds.txt" || fail "the target listed no fds: $(cat "$tmp/fds.txt")"
	grep '(deleted)' "$tmp/fds.txt" && fail "the target inherited renacer's spool"
	run trace --source -o "$tmp/trace.txt" -- sh -c "ls -l /proc/\$\$/fd/ >$tmp/fds.txt"
	expect_rc 0
	grep '(deleted)' "$tmp/fds.txt" && fail "trace --source: the target inherited renacer's spool"
	;;
redaction)
	# Secrets in argv never reach committed golden traces or exported OTLP attributes; the
	# list of secret-name words is configurable ([report] redact).
	cat >"$tmp/renacer.toml" <<EOT
[[target]]
name = "work"
command = ["$targets/example_work", "2", "--api-token=s3cret", "MYPASS=hunter2", "--cred", "x9x9"]
[golden]
dir = "$tmp/golden"
[report]
redact = ["token", "pass", "cred"]
EOT
	run golden update --config "$tmp/renacer.toml"
	expect_rc 0
	for secret in s3cret hunter2 x9x9; do
		grep -q "$secret" "$tmp/golden/work.json" && fail "golden keeps '$secret'"
	done
	grep -q -- '--api-token=\[REDACTED\]' "$tmp/golden/work.json" || fail "golden lacks the redacted flag"
	run check --config "$tmp/renacer.toml" --otlp-file "$tmp/otlp.jsonl"
	expect_rc 0
	for secret in s3cret hunter2 x9x9; do
		grep -q "$secret" "$tmp/otlp.jsonl" && fail "OTLP file keeps '$secret'"
	done
	grep -q 'MYPASS=\[REDACTED\]' "$tmp/otlp.jsonl" || fail "OTLP file lacks the redacted variable"
	;;
*)
	echo "unknown case $case_name" >&2
	exit 2
	;;
esac
echo "ok: $case_name"
exit 0
