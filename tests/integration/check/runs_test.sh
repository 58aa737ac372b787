#!/bin/sh
# Integration tests of timing runs and counting runs in `renacer check` / `golden update`:
# the mix follows what the assertions and golden traces need (counted by structure: the
# progress lines and the golden trace's run counts), counts stay exact, and a golden trace of
# the older format renacer-golden/1 gates timing as WARN at most.
#
#     runs_test.sh CASE BUILD_DIR SOURCE_DIR
#
# Exit 0 = pass, 1 = fail, 77 = skipped.
set -u
case_name=$1
build=$2
renacer="$build/renacer"
tree="$build/targets/pt_forktree"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() {
	echo "FAIL: $case_name: $*" >&2
	[ -f "$tmp/err" ] && sed 's/^/  | /' "$tmp/err" >&2
	exit 1
}

run() {
	"$renacer" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

expect_rc() {
	[ "$rc" = "$1" ] || fail "expected exit $1, got $rc"
}

expect_err() {
	grep -q -- "$1" "$tmp/err" || fail "stderr lacks '$1'"
}

# Runs of one kind ("timing run", "counting run") as the target's progress line in a log
# counts them ("[1/1] tree: 1 warmup, 3 timing runs, 2 counting runs in 0.4 s").
count_runs() {
	n=$(grep "^\[1/1\] tree: " "$tmp/err" | grep -o "[0-9]* $1" | head -1 | cut -d' ' -f1)
	echo "${n:-0}"
}

# A config for pt_forktree (63 getpid calls in 9 processes): `runs` timing runs, 2 counting
# runs, then the text on stdin (assertions, tables).
config() {
	{
		printf '[[target]]\nname = "tree"\ncommand = ["%s", "4"]\nruns = %s\n' "$tree" "$1"
		printf 'counting_runs = 2\n\n[golden]\ndir = "%s/golden"\n\n' "$tmp"
		cat
	} >"$tmp/renacer.toml"
}

time_assertion='[[assertion]]
name = "cp"
type = "critical_path"
max_duration_ms = 60000
'
count_assertion='[[assertion]]
name = "getpid"
type = "span_count"
span_name_pattern = "getpid"
max_spans = 63
'

# Is ptrace permitted here?
"$renacer" trace -c -o /dev/null -- /bin/true >/dev/null 2>&1 || {
	echo "SKIP: cannot trace here" >&2
	exit 77
}

case $case_name in
time_only)
	printf '%s' "$time_assertion" | config 3
	run check --config "$tmp/renacer.toml"
	expect_rc 0
	[ "$(count_runs 'timing run')" = 3 ] || fail "not 3 timing runs: $(count_runs 'timing run')"
	[ "$(count_runs 'counting run')" = 0 ] || fail "a time-only config made a counting run"
	;;
count_only)
	printf '%s' "$count_assertion" | config 3
	run check --config "$tmp/renacer.toml"
	expect_rc 0
	[ "$(count_runs 'timing run')" = 0 ] || fail "a count-only config made a timing run"
	[ "$(count_runs 'counting run')" = 2 ] || fail "not 2 counting runs"
	expect_err "63 calls"
	;;
both)
	# Counts come from the counting runs, exact; the critical path from the timing runs.
	printf '%s\n%s' "$time_assertion" "$count_assertion" | sed 's/max_spans = 63/max_spans = 62/' |
		config 3
	run check --config "$tmp/renacer.toml"
	expect_rc 1
	[ "$(count_runs 'timing run')" = 3 ] || fail "not 3 timing runs"
	[ "$(count_runs 'counting run')" = 2 ] || fail "not 2 counting runs"
	expect_err "63 calls matching /getpid/ (median of 2 counting runs) > budget 62"
	;;
both_ebpf)
	# The same with driver = "ebpf": timing runs apart from the counting run (the kernel
	# counter's syscall programs would slow the program being timed), counts as exact.
	"$renacer" trace --driver ebpf -c -- /bin/true >/dev/null 2>&1 ||
		{ echo "SKIP: the eBPF driver cannot run here" >&2; exit 77; }
	printf '%s\n%s' "$time_assertion" "$count_assertion" | sed 's/max_spans = 63/max_spans = 62/' |
		config 3
	sed -i 's/^runs = 3$/runs = 3\ndriver = "ebpf"/' "$tmp/renacer.toml"
	run check --config "$tmp/renacer.toml"
	expect_rc 1
	[ "$(count_runs 'timing run')" = 3 ] || fail "not 3 timing runs"
	[ "$(count_runs 'counting run')" = 2 ] || fail "not 2 counting runs"
	expect_err "63 calls matching /getpid/ (median of 2 counting runs) > budget 62"
	;;
golden)
	# golden update records both kinds apart; the golden trace says which runs gave what.
	# [golden] runs (default 10) raises the timing runs it records above the target's 3;
	# counting runs give exact counts: at least 3, so that the golden records their spread.
	: | config 3
	run golden update --config "$tmp/renacer.toml"
	expect_rc 0
	expect_err "(10 timing runs, 3 counting runs)"
	python3 - "$tmp/golden/tree.json" <<'PY' || fail "golden trace layout"
import json, sys
g = json.load(open(sys.argv[1]))
assert g["format"] == "renacer-golden/3", g["format"]
assert g["runs"] == 10 and g["counting_runs"] == 3, (g["runs"], g["counting_runs"])
s, c = g["samples"], g["counting_samples"]
for m in ("wall_time", "critical_path", "cpu_time", "peak_rss", "processes"):
    assert len(s[m]) == 10 and m not in c, m
for m in ("syscalls", "syscall_errors", "alloc_peak"):
    assert len(c[m]) == 3 and m not in s, m
assert s["processes"] == [9] * 10, s["processes"]
assert g["syscalls"]["getpid"]["calls"] == 63, g["syscalls"]["getpid"]
# exact counts, but a fork interrupted by a child's SIGCHLD is made again (ERESTARTNOINTR):
# under load one run once made one call more ([116, 117, 116] in a -j2 suite run)
assert max(c["syscalls"]) - min(c["syscalls"]) <= 2 and min(c["syscalls"]) > 63, c["syscalls"]
PY
	;;
runs_flag)
	# --runs N is N timing runs: against a golden trace whose comparison one run cannot decide,
	# the adaptive repeats once took it to 60 (the pre-commit hook's --runs 1 ran 192 s).
	: | config 3
	run golden update --config "$tmp/renacer.toml"
	expect_rc 0
	run check --config "$tmp/renacer.toml" --runs 1
	[ "$(count_runs "timing run")" = 1 ] || fail "--runs 1 ran $(count_runs "timing run") timing runs"
	run check --config "$tmp/renacer.toml" --runs 4
	[ "$(count_runs "timing run")" = 4 ] || fail "--runs 4 ran $(count_runs "timing run") timing runs"
	;;
golden_v1)
	# A golden trace whose times are 100x shorter than today's: in renacer-golden/2 the
	# slowdown FAILs; in renacer-golden/1 (timed under the tracer) it is WARN at most, with
	# the hint to regenerate.
	# (memory is not what this case is about: a process tree's peak RSS moves with how its
	# children overlap on a loaded machine, so it gets a wide tolerance here)
	printf '%s\n[regression]\nmin_runs_for_timing = 5\nmemory_tolerance = 2.0\n' "$time_assertion" | config 6
	run golden update --config "$tmp/renacer.toml"
	expect_rc 0
	python3 - "$tmp/golden/tree.json" <<'PY' || fail "cannot derive the golden traces"
import json, sys
path = sys.argv[1]
g = json.load(open(path))
for m in ("wall_time", "critical_path", "cpu_time"):
    g["samples"][m] = [v // 100 for v in g["samples"][m]]
json.dump(g, open(path + ".v2", "w"), indent=2, sort_keys=True)
v1 = dict(g)
v1.pop("counting_runs")
for m, vals in v1.pop("counting_samples").items():
    v1["samples"][m] = [vals[0]] * v1["runs"]
v1["format"] = "renacer-golden/1"
json.dump(v1, open(path + ".v1", "w"), indent=2, sort_keys=True)
PY
	cp "$tmp/golden/tree.json.v2" "$tmp/golden/tree.json"
	run check --config "$tmp/renacer.toml"
	expect_rc 1
	expect_err "FAIL tree/golden:critical_path"
	cp "$tmp/golden/tree.json.v1" "$tmp/golden/tree.json"
	run check --config "$tmp/renacer.toml"
	expect_rc 0
	expect_err "WARN tree/golden:critical_path"
	expect_err "not gated: the golden trace (renacer-golden/1) timed its runs under the tracer"
	expect_err "regenerate it (renacer golden update)"
	;;
golden_fingerprint)
	# The golden's times 100x shorter than today's FAIL; the same golden with another kernel
	# (or governor, where this machine has one) in its environment fingerprint is not FAIL:
	# every timing row is WARN and names the field. Without a fingerprint (a file written
	# before it) the golden still reads and gates.
	printf '%s\n[regression]\nmin_runs_for_timing = 5\nmemory_tolerance = 2.0\n' "$time_assertion" | config 6
	run golden update --config "$tmp/renacer.toml"
	expect_rc 0
	python3 - "$tmp/golden/tree.json" <<'PY' || fail "cannot derive the golden traces"
import json, sys
path = sys.argv[1]
g = json.load(open(path))
fp = g["conditions"]["fingerprint"]
for k in ("cpu_model", "kernel", "virt", "renacer", "compiler"):
    assert fp.get(k), (k, fp)
for m in ("wall_time", "critical_path", "cpu_time"):
    g["samples"][m] = [v // 100 for v in g["samples"][m]]
json.dump(g, open(path + ".fast", "w"), indent=2, sort_keys=True)
g["conditions"]["fingerprint"]["kernel"] = "0.0.1-other"
json.dump(g, open(path + ".kernel", "w"), indent=2, sort_keys=True)
g["conditions"]["fingerprint"]["kernel"] = fp["kernel"]
if "governor" in fp:
    g["conditions"]["fingerprint"]["governor"] = fp["governor"] + "-other"
    json.dump(g, open(path + ".governor", "w"), indent=2, sort_keys=True)
del g["conditions"]["fingerprint"]
json.dump(g, open(path + ".old", "w"), indent=2, sort_keys=True)
PY
	cp "$tmp/golden/tree.json.fast" "$tmp/golden/tree.json"
	run check --config "$tmp/renacer.toml"
	expect_rc 1
	expect_err "FAIL tree/golden:critical_path"
	cp "$tmp/golden/tree.json.old" "$tmp/golden/tree.json"
	run check --config "$tmp/renacer.toml"
	expect_rc 1
	expect_err "FAIL tree/golden:critical_path"
	for field in kernel governor; do
		[ -f "$tmp/golden/tree.json.$field" ] || {
			echo "note: no cpufreq governor on this machine: $field not simulated" >&2
			continue
		}
		cp "$tmp/golden/tree.json.$field" "$tmp/golden/tree.json"
		run check --config "$tmp/renacer.toml"
		expect_rc 0
		for m in cpu_time wall_time critical_path; do
			expect_err "WARN tree/golden:$m"
			grep "tree/golden:$m" "$tmp/err" | grep -q "FAIL" && fail "$m FAILs ($field)"
		done
		grep -q "FAIL tree/golden:" "$tmp/err" && fail "a golden row FAILs ($field)"
		expect_err "$field differs from the golden's"
		expect_err "$field '"
	done
	;;
*)
	fail "unknown case"
	;;
esac
exit 0
