#!/bin/sh
# The bars of harness targets and suites (docs/harness.md): for each harness, three benchmarks
# of which one gets +15% work in the head; CHECKS checks under `renacer check --baseline`, each
# classified: "hit" when that benchmark's wall_time or cpu_time row (Google Benchmark reports
# both; on a loaded machine the CPU time decides) FAILs and no time row of the two others does; the bar is >= CHECKS - 1 hits (19 of 20). Then a ctest suite of 20 tests of
# which one gains an fsync: every check must name that test (its baseline:syscalls row) and no
# other. Takes long (tens of minutes per harness on a 2-vCPU VM): run it by hand, not in ctest.
#
#     tests/bench/harness/bars.sh [BUILD_DIR] [CHECKS] [PAIRS] [HARNESSES]
#         defaults: build, 20, 10, "gbench pytest go ctest"
#     BUDGET_S=120 tests/bench/harness/bars.sh ...   [regression] time_budget_s in the trees
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../../.." && pwd)
build=$(cd "${1:-build}" && pwd)
checks=${2:-20}
pairs=${3:-10}
harnesses=${4:-gbench pytest go ctest}
renacer="$build/renacer"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0

# pressure_total: the CPU pressure's "some" stall total, us (0 without PSI).
pressure_total() {
	sed -n 's/^some .*total=\([0-9]*\).*/\1/p' /proc/pressure/cpu 2>/dev/null || echo 0
}

# bar_begin / bar_end NAME: the median seconds per check and the CPU pressure (the share of
# the bar's time some task waited for a CPU) over the bar, after its line.
bar_begin() {
	: >"$tmp/secs"
	p0=$(pressure_total)
	t0=$(date +%s)
}
check_time() { # check_time START_NS
	echo "$(($(date +%s%N) - $1))" >>"$tmp/secs"
}
bar_end() {
	p1=$(pressure_total)
	t1=$(date +%s)
	med=$(sort -n "$tmp/secs" | awk '{v[NR] = $1} END {if (NR) printf "%.1f", v[int((NR + 1) / 2)] / 1e9}')
	printf '%-16s median %s s a check, CPU pressure %s%% over %d s\n' "$1" "$med" \
		"$(awk -v p="$((p1 - p0))" -v t="$((t1 - t0))" 'BEGIN {printf "%.0f", t ? p / 1e4 / t : 0}')" \
		"$((t1 - t0))"
}

# trees NAME HARNESS COMMAND...: head and base trees of harness NAME, the head's beta +15%.
trees() {
	name=$1
	harness=$2
	shift 2
	rm -rf "$tmp/head" "$tmp/base"
	mkdir -p "$tmp/head" "$tmp/base"
	echo 1.15 >"$tmp/head/slow"
	cmd=$(printf '"%s", ' "$@")
	for d in head base; do
		cat >"$tmp/$d/renacer.toml" <<T
[[target]]
name = "$name"
harness = "$harness"
command = [${cmd%, }]
runs = $pairs
T
		[ -z "${BUDGET_S:-}" ] ||
			printf '[regression]\ntime_budget_s = %s\n' "$BUDGET_S" >>"$tmp/$d/renacer.toml"
	done
}

# bar NAME SLOW OTHER...: CHECKS checks; prints the counts and fails below the bar.
bar() {
	name=$1
	slow=$2
	shift 2
	hits=0
	i=0
	bar_begin
	while [ $i -lt "$checks" ]; do
		s0=$(date +%s%N)
		(cd "$tmp/head" && "$renacer" check --no-color --baseline ../base \
			>"$tmp/out" 2>"$tmp/err")
		check_time "$s0"
		ok=1
		# the FAIL lines under the table name the target in full (the table's column
		# cuts a long name: py.bench_test...)
		grep -Eq "^FAIL $slow/baseline:(wall|cpu)_time:" "$tmp/err" || ok=0
		for t in "$@"; do
			grep -Eq "^FAIL $t/baseline:(wall|cpu)_time:" "$tmp/err" && ok=0
		done
		hits=$((hits + ok))
		# a miss: its time rows, to see why
		[ $ok = 1 ] || grep -E "^[^ ]+ +baseline:(wall|cpu)_time " "$tmp/err" |
			sed "s/^/  miss $((i + 1)): /"
		i=$((i + 1))
	done
	printf '%-16s %2d of %2d checks: only %s FAILed\n' "$name" "$hits" "$checks" "$slow"
	bar_end "$name"
	[ "$hits" -ge $((checks - 1)) ] || status=1
}

for h in $harnesses; do
	case $h in
	gbench)
		c++ -O2 -o "$tmp/gbench" "$src/tests/integration/harness/gbench.cc" -lbenchmark \
			-lpthread || exit 1
		trees gb google-benchmark "$tmp/gbench" --benchmark_min_time=0.05
		bar google-benchmark gb.BM_beta gb.BM_alpha gb.BM_gamma
		;;
	pytest)
		# its CPU timer: rounds in CPU time, which a loaded runner's wall time buries
		# (docs/harness.md "pytest-benchmark: the CPU timer")
		trees py pytest-benchmark /usr/bin/python3 -m pytest -p no:cacheprovider \
			--benchmark-max-time=0.05 --benchmark-timer=time.process_time bench_test.py
		for d in head base; do
			cp "$src/tests/integration/harness/bench_test.py" "$tmp/$d/"
		done
		p=py.bench_test.py__test
		bar pytest-benchmark ${p}_beta ${p}_alpha ${p}_gamma
		;;
	go)
		export GOCACHE="$tmp/gocache" GOPATH="$tmp/gopath" GOFLAGS=-mod=mod GOPROXY=off
		export GOTOOLCHAIN=local
		# the compiled test binary (go test -c) at a pinned count: its runs leave the go
		# tool out, and give a CPU time per iteration (docs/harness.md)
		trees go go-test-bench ./bench.test -test.benchtime 20000x
		for d in head base; do
			cp "$src/tests/integration/harness/bench_test.go" "$tmp/$d/"
			printf 'module example.com/harness\n\ngo 1.18\n' >"$tmp/$d/go.mod"
			(cd "$tmp/$d" && go test -c -o bench.test .) || exit 1
		done
		bar go-test-bench go.BenchmarkBeta go.BenchmarkAlpha go.BenchmarkGamma
		;;
	ctest)
		# harness_test.sh's suite, 20 tests, t07 with an fsync in the head
		hits=0
		i=0
		bar_begin
		while [ $i -lt "$checks" ]; do
			s0=$(date +%s%N)
			sh "$src/tests/integration/harness/harness_test.sh" ctest_suite "$build" c++ \
				"$src" >/dev/null 2>"$tmp/err" && hits=$((hits + 1))
			check_time "$s0"
			i=$((i + 1))
		done
		printf '%-16s %2d of %2d checks: named suite.t07 alone\n' ctest "$hits" "$checks"
		bar_end ctest
		[ "$hits" -eq "$checks" ] || status=1
		;;
	esac
done
exit $status
