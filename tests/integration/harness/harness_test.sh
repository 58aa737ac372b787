#!/bin/sh
# Integration tests of harness targets and suites (runner/check/harness.h, docs/harness.md):
# a benchmark harness's benchmarks become one target each, judged on the harness's per-iteration
# times; a test runner's tests become one target each. Two temporary trees, base and head;
# the head has a file "slow" that makes one benchmark do 3x its work (or one test an fsync).
#
#     harness_test.sh CASE BUILD_DIR CXX_COMPILER SOURCE_DIR
#
# CASE: gbench, pytest, go, go_binary, hyperfine, ctest_suite, init_detect. Exit 0 = pass, 1 = fail, 77 = skipped (the harness is
# not installed, or tracing is not allowed here). Timing bars are tests/bench/harness's; this
# checks structure: the rows, the samples read, the names, and that a 3x change FAILs exactly
# that benchmark's row.
set -u
case_name=$1
build=$2
cxx=$3
src=$4
renacer="$build/renacer"
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] && echo "kept $tmp" >&2 || rm -rf "$tmp"' EXIT

fail() {
	echo "FAIL: $case_name: $*" >&2
	[ -f "$tmp/err" ] && sed 's/^/  | /' "$tmp/err" >&2
	exit 1
}

skip() {
	echo "SKIP: $case_name: $*" >&2
	exit 77
}

# Run renacer in the head tree; sets $rc.
run() {
	(cd "$tmp/head" && "$renacer" "$@" >"$tmp/out" 2>"$tmp/err")
	rc=$?
}

# The check's adaptive repeats end at 10 pairs, and a failing row is not profiled: the 3x
# change decides within them, and each run of a harness costs seconds.
bounded() {
	cat >>"$tmp/head/renacer.toml" <<TOML

[regression]
max_runs = 10

[profile]
on_failure = false
TOML
}

"$renacer" trace -c -o /dev/null -- /bin/true >/dev/null 2>&1 || skip "cannot trace here"
mkdir "$tmp/head" "$tmp/base"
: >"$tmp/head/slow"

# The bench JSON lists each target NAME's wall_time per iteration in ns over RUNS runs ("*":
# any number), and no other target's.
expect_rows() {
	python3 - "$tmp/bench.json" "$@" <<'PY' || fail "benchmark JSON: see above"
import json, sys
rows = {r["name"]: r for r in json.load(open(sys.argv[1]))}
runs = sys.argv[2]
for t in sys.argv[3:]:
    r = rows.get(t + " wall_time")
    if not r:
        sys.exit("no wall_time row for %s in %s" % (t, sorted(rows)))
    want = "per iteration, median of %s runs" % runs
    if r["unit"] != "ns" or not (r["extra"] == want or runs == "*" and
                                 r["extra"].startswith("per iteration, median of ")):
        sys.exit("%s: not per-iteration samples: %s" % (t, r))
    if not r["value"] > 0:
        sys.exit("%s: no time read: %s" % (t, r))
    if t + " critical_path" in rows:
        sys.exit("%s: critical_path row for a benchmark" % t)
    if t + " syscalls" not in rows:
        sys.exit("%s: no syscall count of the harness process" % t)
bench = [n for n in rows if n.endswith(" wall_time")]
if len(bench) != len(sys.argv) - 3:
    sys.exit("expected %d targets, found %s" % (len(sys.argv) - 3, bench))
PY
}

# Under --baseline, target SLOW's time (wall_time, or cpu_time where the harness reports it)
# FAILs; no time row of OTHERS does.
expect_only_fail() {
	slow=$1
	shift
	[ "$rc" = 1 ] || fail "expected exit 1 (a FAIL), got $rc"
	grep -Eq "^FAIL $slow/baseline:(wall|cpu)_time" "$tmp/err" ||
		fail "no FAIL row for $slow's time"
	for t in "$@"; do
		grep -E "FAIL *$t/baseline:(wall_time|cpu_time)" "$tmp/err" &&
			fail "$t FAILed, its work did not change"
	done
	:
}

# counted PROG: $tmp/counted runs PROG, each call's arguments a line of $tmp/calls, after a
# line of chatter on stderr (a harness's own output, which the console does not show).
counted() {
	printf '#!/bin/sh\necho "$*" >>"%s/calls"\necho "harness chatter" >&2\nexec %s "$@"\n' \
		"$tmp" "$1" >"$tmp/counted"
	chmod +x "$tmp/counted"
	: >"$tmp/calls"
}

# expect_shared N NAME...: a run of the harness measures all the benchmarks NAME of its table
# at once (harness.h): at least N calls name several of them, and fewer than N name one alone
# (its counting runs; a harness run per benchmark and pair would make N such calls for each).
expect_shared() {
	python3 - "$tmp/calls" "$@" <<'PY' || fail "harness calls (in $tmp/calls): see above"
import sys
calls = open(sys.argv[1]).read().splitlines()
n, names = int(sys.argv[2]), sys.argv[3:]
named = [[b for b in names if b in c] for c in calls]
shared = sum(1 for x in named if len(x) > 1)
if shared < n:
    sys.exit("%d harness calls ran several benchmarks, expected >= %d:\n%s"
             % (shared, n, "\n".join(calls)))
for b in names:
    alone = sum(1 for x in named if x == [b])
    if alone >= n:
        sys.exit("%d harness calls ran %s alone (one run per benchmark), expected < %d"
                 % (alone, b, n))
PY
	grep -q "harness chatter" "$tmp/err" && fail "the harness's own output reached the console"
	:
}

case "$case_name" in
gbench)
	[ -f /usr/include/benchmark/benchmark.h ] || skip "libbenchmark-dev is not installed"
	"$cxx" -O2 -o "$tmp/gbench" "$src/tests/integration/harness/gbench.cc" -lbenchmark \
		-lpthread 2>"$tmp/err" || fail "cannot build the benchmark program"
	cat >"$tmp/head/renacer.toml" <<TOML
[[target]]
name = "gb"
harness = "google-benchmark"
command = ["$tmp/gbench", "--benchmark_min_time=0.01"]
runs = 3
TOML
	bounded
	cp "$tmp/head/renacer.toml" "$tmp/base/"
	run check --no-color --no-golden --bench-json "$tmp/bench.json"
	[ "$rc" = 0 ] || fail "expected exit 0, got $rc"
	expect_rows 3 gb.BM_alpha gb.BM_beta gb.BM_gamma
	# a pattern keeps two; an assertion naming the table applies to each benchmark
	cat >"$tmp/head/renacer.toml" <<TOML
[[target]]
name = "gb"
harness = "google-benchmark"
command = ["$tmp/gbench", "--benchmark_min_time=0.01"]
runs = 3
pattern = "BM_(alpha|gamma)"

[[assertion]]
name = "few_forks"
type = "span_count"
max_spans = 1000000
targets = ["gb"]
TOML
	run check --no-color --no-golden --bench-json "$tmp/bench.json"
	[ "$rc" = 0 ] || fail "expected exit 0 with a pattern, got $rc"
	expect_rows 3 gb.BM_alpha gb.BM_gamma
	for t in gb.BM_alpha gb.BM_gamma; do
		grep -Eq "^$t +few_forks +PASS" "$tmp/err" ||
			fail "the table's assertion did not judge $t"
	done
	# --target names the table (all its benchmarks) or one benchmark
	run check --no-color --no-golden --runs 1 --target gb --bench-json "$tmp/bench.json"
	[ "$rc" = 0 ] || fail "--target gb: expected exit 0, got $rc"
	expect_rows 1 gb.BM_alpha gb.BM_gamma
	run check --no-color --no-golden --runs 1 --target gb.BM_gamma --bench-json "$tmp/bench.json"
	[ "$rc" = 0 ] || fail "--target gb.BM_gamma: expected exit 0, got $rc"
	expect_rows 1 gb.BM_gamma
	# the harness's output shows when its run fails, not else
	cat >"$tmp/head/renacer.toml" <<TOML
[[target]]
name = "gb"
harness = "google-benchmark"
command = ["$tmp/gbench", "--benchmark_min_time=0.01"]
benchmarks = ["BM_missing"]
runs = 1
TOML
	run check --no-color --no-golden
	[ "$rc" = 0 ] && fail "a benchmark the program lacks: expected an error"
	grep -q "^Failed to match any benchmarks" "$tmp/err" ||
		fail "the failed harness's own output is not shown"
	# 8 pairs: each a run of the harness for the three benchmarks, not one each
	counted "$tmp/gbench"
	for d in head base; do
		sed "s|\"$tmp/gbench\"|\"$tmp/counted\"|" "$tmp/base/renacer.toml" >"$tmp/$d/r.toml"
	done
	mv "$tmp/head/r.toml" "$tmp/head/renacer.toml"
	mv "$tmp/base/r.toml" "$tmp/base/renacer.toml"
	run check --no-color --baseline ../base --runs 8
	expect_only_fail gb.BM_beta gb.BM_alpha gb.BM_gamma
	expect_shared 16 BM_alpha BM_beta BM_gamma
	;;
pytest)
	/usr/bin/python3 -c 'import pytest_benchmark' 2>/dev/null ||
		skip "python3-pytest-benchmark is not installed"
	for d in head base; do
		cp "$src/tests/integration/harness/bench_test.py" "$tmp/$d/bench_test.py"
	done
	counted /usr/bin/python3
	cat >"$tmp/head/renacer.toml" <<TOML
[[target]]
name = "py"
harness = "pytest-benchmark"
command = ["$tmp/counted", "-m", "pytest", "-p", "no:cacheprovider",
	"--benchmark-max-time=0.02", "bench_test.py"]
env = { PYTHONDONTWRITEBYTECODE = "1" }
runs = 3
TOML
	bounded
	cp "$tmp/head/renacer.toml" "$tmp/base/"
	# one check (each pytest run costs seconds): the rows, then the verdicts
	mkdir "$tmp/t"
	export TMPDIR="$tmp/t"
	run check --no-color --baseline ../base --runs 8 --bench-json "$tmp/bench.json"
	unset TMPDIR
	expect_rows '*' py.bench_test.py__test_alpha py.bench_test.py__test_beta \
		py.bench_test.py__test_gamma
	# every run loads renacer's pytest plugin, which keeps pytest-benchmark's bookkeeping
	# processes (git, py-cpuinfo's python, lscpu, dmesg) out of the counts: the benchmark's
	# processes are python and at most platform's `file` (without it: 9 or more); the plugin's
	# folder is gone with the check
	grep -v -- "--collect-only" "$tmp/calls" | grep -v -- "-p renacer_pytest" &&
		fail "a pytest run without renacer's plugin"
	grep -Eq "baseline:processes +PASS +[12] process" "$tmp/err" ||
		fail "pytest-benchmark's bookkeeping processes are counted: $(grep baseline:processes "$tmp/err")"
	[ -z "$(ls -A "$tmp/t")" ] || fail "the check left $(ls -A "$tmp/t") in TMPDIR"
	expect_only_fail py.bench_test.py__test_beta py.bench_test.py__test_alpha \
		py.bench_test.py__test_gamma
	expect_shared 16 test_alpha test_beta test_gamma
	grep -q "Wrote benchmark data" "$tmp/err" && fail "pytest-benchmark's output reached the console"
	;;
pytest_clock)
	# with pytest-benchmark's CPU timer (time.process_time: clock_gettime with the process's
	# CPU clock, a syscall each, no vDSO) the harness's clock reads are thousands of a run's
	# syscalls and move with its rounds: the counting runs leave them out (check_run.c)
	/usr/bin/python3 -c 'import pytest_benchmark' 2>/dev/null ||
		skip "python3-pytest-benchmark is not installed"
	cp "$src/tests/integration/harness/bench_test.py" "$tmp/head/bench_test.py"
	cat >"$tmp/head/renacer.toml" <<TOML
[[target]]
name = "py"
harness = "pytest-benchmark"
command = ["/usr/bin/python3", "-m", "pytest", "-p", "no:cacheprovider",
	"--benchmark-max-time=0.02", "--benchmark-timer=time.process_time", "bench_test.py"]
benchmarks = ["bench_test.py::test_alpha"]
runs = 2
TOML
	bounded
	run check --no-color --no-golden --results "$tmp/results.json"
	python3 - "$tmp/results.json" <<'PY' || fail "the harness's clock reads are counted"
import json, sys
doc = json.load(open(sys.argv[1]))
(t,) = doc["targets"]
procs = t["last_run"]["processes"]
assert len(t["counting_runs"]) >= 1, t["counting_runs"]
assert sum(p["syscalls"] for p in procs) > 100, procs  # pytest's own calls are there
for p in procs:
    assert "clock_gettime" not in p.get("syscall_stats", {}), (p["exe"], p["syscall_stats"]["clock_gettime"])
PY
	;;
go)
	command -v go >/dev/null || skip "golang-go is not installed"
	export GOCACHE="$tmp/gocache" GOPATH="$tmp/gopath" GOFLAGS=-mod=mod GO111MODULE=on
	export GOPROXY=off GOTOOLCHAIN=local
	for d in head base; do
		cp "$src/tests/integration/harness/bench_test.go" "$tmp/$d/bench_test.go"
		printf 'module example.com/harness\n\ngo 1.18\n' >"$tmp/$d/go.mod"
	done
	counted "$(command -v go)"
	cat >"$tmp/head/renacer.toml" <<TOML
[[target]]
name = "go"
harness = "go-test-bench"
command = ["$tmp/counted", "test", "-benchtime", "2000x", "."]
runs = 3
timeout_s = 600
TOML
	bounded
	cp "$tmp/head/renacer.toml" "$tmp/base/"
	# one check (each go test run costs seconds): the rows, then the verdicts
	run check --no-color --baseline ../base --runs 8 --bench-json "$tmp/bench.json"
	expect_rows '*' go.BenchmarkAlpha go.BenchmarkBeta go.BenchmarkGamma
	expect_only_fail go.BenchmarkBeta go.BenchmarkAlpha go.BenchmarkGamma
	expect_shared 16 BenchmarkAlpha BenchmarkBeta BenchmarkGamma
	;;
go_binary)
	# the compiled test binary at a pinned count (docs/harness.md "Go: the test binary at a
	# pinned count"): -test.* flags, one benchmark a run, a cpu_time row per benchmark; each
	# tree runs its own binary through ./run (which logs its arguments)
	command -v go >/dev/null || skip "golang-go is not installed"
	export GOCACHE="$tmp/gocache" GOPATH="$tmp/gopath" GOFLAGS=-mod=mod GO111MODULE=on
	export GOPROXY=off GOTOOLCHAIN=local
	: >"$tmp/calls"
	for d in head base; do
		cp "$src/tests/integration/harness/bench_test.go" "$tmp/$d/bench_test.go"
		printf 'module example.com/harness\n\ngo 1.18\n' >"$tmp/$d/go.mod"
		(cd "$tmp/$d" && go test -c -o bench.test .) >"$tmp/err" 2>&1 ||
			fail "go test -c: $(cat "$tmp/err")"
		printf '#!/bin/sh\necho "$*" >>"%s/calls"\nexec ./bench.test "$@"\n' "$tmp" \
			>"$tmp/$d/run"
		chmod +x "$tmp/$d/run"
	done
	cat >"$tmp/head/renacer.toml" <<TOML
[[target]]
name = "go"
harness = "go-test-bench"
command = ["./run", "-test.benchtime", "2000x"]
runs = 3
timeout_s = 600
TOML
	bounded
	cp "$tmp/head/renacer.toml" "$tmp/base/"
	run check --no-color --baseline ../base --runs 8 --bench-json "$tmp/bench.json"
	expect_rows '*' go.BenchmarkAlpha go.BenchmarkBeta go.BenchmarkGamma
	expect_only_fail go.BenchmarkBeta go.BenchmarkAlpha go.BenchmarkGamma
	for t in go.BenchmarkAlpha go.BenchmarkBeta go.BenchmarkGamma; do
		grep -Eq "^ +$t baseline:cpu_time " "$tmp/err" || fail "no cpu_time row for $t"
	done
	python3 - "$tmp/calls" <<'PY' || fail "harness calls (in $tmp/calls): see above"
import re, sys
calls = [c for c in open(sys.argv[1]).read().splitlines() if "-test.bench " in c]
if len(calls) < 16:
    sys.exit("%d benchmark runs, expected >= 16" % len(calls))
for c in calls:
    if not re.search(r"-test\.benchtime 2000x .*-test\.run \^\$ -test\.count 1 "
                     r"-test\.bench \^Benchmark[A-Za-z]+\$$", c):
        sys.exit("not one benchmark at the pinned count: " + c)
PY
	;;
ctest_suite)
	# 20 tests of a ctest directory written by hand, each writing a file and syncing its data
	# (fdatasync); in the head, t07 syncs it with fsync instead
	for d in head base; do
		mkdir "$tmp/$d/build"
		i=1
		while [ $i -le 20 ]; do
			n=$(printf 't%02d' $i)
			if [ $d = head ] && [ $n = t07 ]; then
				sync_cmd="sync $n.out"
			else
				sync_cmd="sync -d $n.out"
			fi
			printf '#!/bin/sh\necho %s >%s.out\n%s\nrm -f %s.out\n' "$n" "$n" \
				"$sync_cmd" "$n" >"$tmp/$d/build/$n.sh"
			printf 'add_test(%s "/bin/sh" "%s/%s/build/%s.sh")\n' "$n" "$tmp" "$d" \
				"$n" >>"$tmp/$d/build/CTestTestfile.cmake"
			printf 'set_tests_properties(%s PROPERTIES WORKING_DIRECTORY "%s/%s/build")\n' \
				"$n" "$tmp" "$d" >>"$tmp/$d/build/CTestTestfile.cmake"
			i=$((i + 1))
		done
	done
	cat >"$tmp/head/renacer.toml" <<TOML
[[suite]]
name = "suite"
harness = "ctest"
command = ["ctest", "--test-dir", "build"]
TOML
	bounded
	cp "$tmp/head/renacer.toml" "$tmp/base/"
	run check --no-color --no-golden --bench-json "$tmp/bench.json"
	[ "$rc" = 0 ] || fail "expected exit 0, got $rc"
	n=$(python3 -c 'import json,sys; print(len([r for r in json.load(open(sys.argv[1])) if r["name"].endswith(" syscalls")]))' "$tmp/bench.json")
	[ "$n" = 20 ] || fail "expected 20 tests with syscall counts, found $n"
	run check --no-color --baseline ../base
	[ "$rc" = 1 ] || fail "expected exit 1 (a FAIL), got $rc"
	grep -q "^FAIL suite.t07/baseline:syscalls: .*fsync head 1 vs base 0 calls" "$tmp/err" ||
		fail "the suite check does not name t07's fsync"
	grep -E "FAIL *suite.t([0-6][0-9]|0[89]|[1-2][0-9])/baseline:syscalls" "$tmp/err" |
		grep -v "suite.t07/" && fail "another test's syscalls FAILed"
	:
	;;
hyperfine)
	# the commands of `benchmarks`, one target each, hyperfine's runs read from its JSON
	command -v hyperfine >/dev/null || skip "hyperfine is not installed"
	counted "$(command -v hyperfine)"
	cat >"$tmp/head/renacer.toml" <<TOML
[[target]]
name = "hf"
harness = "hyperfine"
command = ["$tmp/counted", "--runs", "3", "--style", "none"]
benchmarks = ["sleep 0.001", "sleep 0.002"]
runs = 2
TOML
	run check --no-color --no-golden --bench-json "$tmp/bench.json"
	[ "$rc" = 0 ] || fail "expected exit 0, got $rc"
	expect_rows 2 hf.sleep_0.001 hf.sleep_0.002
	expect_shared 2 "sleep 0.001" "sleep 0.002"
	;;
init_detect)
	# renacer init without a command: the project's harnesses and suites become its config
	p="$tmp/head"
	mkdir "$p/bench" "$p/pkg" "$p/rs"
	printf 'project(p CXX)\nenable_testing()\nadd_subdirectory(bench)\n' >"$p/CMakeLists.txt"
	printf 'add_executable(my_bench b.cc)\ntarget_link_libraries(my_bench PRIVATE %s)\n%s\n' \
		benchmark::benchmark 'target_link_libraries(other PRIVATE m)' >"$p/bench/CMakeLists.txt"
	printf 'def test_x(benchmark):\n    benchmark(len, "x")\n' >"$p/test_speed.py"
	printf 'module x\n' >"$p/go.mod"
	printf 'package pkg\nfunc BenchmarkX(b *testing.B) {}\n' >"$p/pkg/x_test.go"
	printf '[dev-dependencies]\ncriterion = "0.5"\n' >"$p/rs/Cargo.toml"
	run init </dev/null
	[ "$rc" = 0 ] || fail "init: expected exit 0, got $rc"
	for want in 'name = "my_bench"' 'command = \["build/bench/my_bench"' \
		'build = "cmake --build build --target my_bench"' 'harness = "ctest"' \
		'harness = "pytest-benchmark"' 'harness = "criterion"' 'harness = "go-test-bench"' \
		'time_budget_s = 120'; do
		grep -q "$want" "$p/renacer.toml" || fail "init's config lacks $want"
	done
	# the budget is the pytest-benchmark target's alone
	[ "$(grep -c '^time_budget_s' "$p/renacer.toml")" = 1 ] &&
		sed -n '/harness = "pytest-benchmark"/,/^\[/p' "$p/renacer.toml" | grep -q '^time_budget_s = 120' ||
		fail "time_budget_s = 120 is not the pytest-benchmark target's alone"
	grep -q 'name = "other"' "$p/renacer.toml" && fail "a program without Google Benchmark"
	grep -q 'harness = "go-test"$' "$p/renacer.toml" && fail "a go test suite without tests"
	run validate
	[ "$rc" = 0 ] || fail "init's config does not validate"
	# never over an existing config; nothing recognised and no terminal: the usage error
	run init </dev/null
	[ "$rc" = 2 ] || fail "init over an existing config: expected exit 2, got $rc"
	(cd "$tmp/base" && "$renacer" init </dev/null >"$tmp/out" 2>"$tmp/err")
	rc=$?
	[ "$rc" = 2 ] && grep -q "no command" "$tmp/err" || fail "an empty folder: expected the usage error"
	;;
*)
	fail "unknown case"
	;;
esac
exit 0
