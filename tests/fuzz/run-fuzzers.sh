#!/bin/sh
# Build the libFuzzer harnesses of tests/fuzz with clang (-fsanitize=fuzzer,address,undefined)
# in a build directory of their own, make seed corpora from the tests and the toml-test suite,
# and run each harness for a bounded time. Prints, per harness, the executions, the coverage
# (libFuzzer's final "cov:" count of instrumented edges), the corpus size and the crashes.
#
#     tests/fuzz/run-fuzzers.sh [HARNESS...]      (default: all)
#
# Environment:
#     FUZZ_SECONDS   time per harness in seconds (default 60)
#     FUZZ_BUILD     build directory (default build-fuzz beside this checkout's CMakeLists.txt)
#     FUZZ_PARALLEL  harnesses run at once (default 1)
#     SHARED_DIR     shared data with toml-test/ (default ../shared beside the checkout)
#     CC             clang to use (default clang)
#
# Crashing inputs are kept under $FUZZ_BUILD/artifacts/<harness>/; to turn one into a
# regression test, copy it to tests/fuzz/regressions/<harness>/ (ctest fuzz.replay.<harness>
# replays it with the ordinary build). The working corpus grows across runs in
# $FUZZ_BUILD/corpus/<harness>/. Exit 0 when no harness crashed, 1 when one did, 2 on setup
# errors.
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
seconds=${FUZZ_SECONDS:-60}
build=${FUZZ_BUILD:-$src/build-fuzz}
parallel=${FUZZ_PARALLEL:-1}
shared=${SHARED_DIR:-$src/../shared}
cc=${CC:-clang}
all="toml config golden json_v1 vk_record xml json regex results diff history_import otlp_receive"
all="$all span_pipe"
harnesses=${*:-$all}

die() {
	echo "run-fuzzers: $*" >&2
	exit 2
}

command -v "$cc" >/dev/null 2>&1 || die "'$cc' not found: libFuzzer needs clang"
"$cc" --version 2>/dev/null | grep -q clang || die "'$cc' is not clang"

echo "run-fuzzers: building in $build" >&2
mkdir -p "$build" || die "cannot create '$build'"
cmake -S "$src" -B "$build" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	-DRN_FUZZ=ON -DRN_SANITIZE="address;undefined" -DRN_WITH_VULKAN=OFF \
	-DRN_BUILD_TESTS=ON >"$build/configure.log" 2>&1 ||
	{ tail -20 "$build/configure.log" >&2; die "cmake configure failed (log: $build/configure.log)"; }
cmake --build "$build" -j"$(nproc 2>/dev/null || echo 2)" --target fuzzers \
	>"$build/build.log" 2>&1 ||
	{ grep -E "error|Error" "$build/build.log" | head -20 >&2; die "build failed (log: $build/build.log)"; }

# ---- seed corpora ---------------------------------------------------------------------------
seeds=$build/seeds
rm -rf "$seeds"
for h in $all; do
	mkdir -p "$seeds/$h" "$build/corpus/$h" "$build/artifacts/$h"
done

# Each "### case" snippet of tests/unit/runner/input/config/errors.test as a file of its own.
split_errors_test() {
	awk -v dir="$1" '
		/^### / { n++; file = sprintf("%s/errors_%03d.toml", dir, n); next }
		/^--- / { file = ""; next }
		file != "" { print > file }
	' "$src/tests/unit/runner/input/config/errors.test"
}
split_errors_test "$seeds/toml"
split_errors_test "$seeds/config"
cp "$src/renacer.toml.example" "$seeds/toml/example.toml"
cp "$src/renacer.toml.example" "$seeds/config/example.toml"
if [ -d "$shared/toml-test" ]; then
	i=0
	find "$shared/toml-test" -type f -name '*.toml' | sort | while read -r f; do
		i=$((i + 1))
		cp "$f" "$seeds/toml/tt_$i.toml"
		case $f in */valid/*) cp "$f" "$seeds/config/tt_$i.toml" ;; esac
		# a sample of varied text (including invalid UTF-8) for the escapers
		if [ $((i % 4)) = 0 ]; then
			cp "$f" "$seeds/xml/tt_$i"
			cp "$f" "$seeds/json/tt_$i"
		fi
	done
else
	echo "run-fuzzers: no toml-test suite at $shared/toml-test; seeding without it" >&2
fi
for f in "$src"/golden_traces/*.json "$src"/tests/unit/assertions/golden/*.json; do
	[ -f "$f" ] && cp "$f" "$seeds/golden/$(basename "$f")"
done
for f in "$src"/tests/integration/shard/seeds/*.json; do
	[ -f "$f" ] && cp "$f" "$seeds/results/$(basename "$f")"
done
for f in "$src"/golden_traces/*.json "$src"/tests/unit/assertions/golden/*.json; do
	[ -f "$f" ] && cp "$f" "$seeds/history_import/$(basename "$f")"
done
cp "$here"/regressions/diff/* "$seeds/diff/" 2>/dev/null
cp "$here"/regressions/otlp_receive/* "$seeds/otlp_receive/" 2>/dev/null
cp "$here"/regressions/span_pipe/* "$seeds/span_pipe/" 2>/dev/null
# json-v1 seeds: the rest of an object after the harness's '{"format": "renacer-json-v1",'.
if [ -f "$src/tests/unit/assertions/golden/json_v1.json" ]; then
	grep -v '"format"' "$src/tests/unit/assertions/golden/json_v1.json" | sed '1s/^[[:space:]]*{//' \
		>"$seeds/json_v1/json_v1_body.json"
fi
printf '"syscalls": [], "summary": {"total_syscalls": 0}}' >"$seeds/json_v1/empty.json"
printf '"syscalls": [{"name": "exit_group", "args": ["0"], "result": -1}], "summary": {"total_syscalls": 1, "exit_code": 0}, "version": "0.4.1"}' \
	>"$seeds/json_v1/exit.json"
"$build/tests/fuzz_vk_seeds" "$seeds/vk_record" || die "cannot make the vk_record seeds"
printf '\000a<b>&c"d'"'"'e\tf\ng\rh' >"$seeds/xml/specials"
printf '\001\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xef\xbf\xbe\xed\xa0\x80\xc0\xaf\xf4\x90\x80\x80\xe2\x82' \
	>"$seeds/xml/utf8"
cp "$seeds/xml/specials" "$seeds/xml/utf8" "$seeds/json/"
for f in "$seeds"/config/errors_00*.toml; do
	[ -f "$f" ] && cp "$f" "$seeds/xml/" && cp "$f" "$seeds/json/"
done

# regex seeds: the regression patterns (catastrophic ones among them) and the example's
cp "$here"/regressions/regex/* "$seeds/regex/" 2>/dev/null
sed -n 's/^[a-z_]*_pattern = "\(.*\)"$/\1/p' "$src/renacer.toml.example" | while read -r p; do
	printf '%s' "$p" >"$seeds/regex/example_$(printf '%s' "$p" | cksum | cut -d' ' -f1)"
done

# ---- fuzzing --------------------------------------------------------------------------------
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

run_one() {
	h=$1
	bin=$build/tests/fuzz_$h
	log=$build/fuzz_$h.log
	dict=""
	case $h in
	golden | history_import) dict="-dict=$here/golden.dict" ;;
	json_v1) dict="-dict=$here/json_v1.dict" ;;
	esac
	[ -x "$bin" ] || { echo "$h: not built" >"$log"; return; }
	start=$(date +%s)
	# The grown corpus first, then the seeds; fuzz for the time given.
	# shellcheck disable=SC2086
	"$bin" $dict -max_total_time="$seconds" -print_final_stats=1 -timeout=10 \
		-rss_limit_mb=2048 -max_len=8192 -artifact_prefix="$build/artifacts/$h/" \
		"$build/corpus/$h" "$seeds/$h" >"$log" 2>&1
	echo "$?" >"$build/fuzz_$h.rc"
	echo $(($(date +%s) - start)) >"$build/fuzz_$h.time"
}

echo "run-fuzzers: $seconds s per harness: $harnesses" >&2
running=0
for h in $harnesses; do
	case " $all " in *" $h "*) ;; *) die "unknown harness '$h' (known: $all)" ;; esac
	rm -f "$build/fuzz_$h.rc"
	run_one "$h" &
	running=$((running + 1))
	if [ "$running" -ge "$parallel" ]; then
		wait
		running=0
	fi
done
wait

status=0
printf '%-10s %12s %6s %8s %8s %8s %8s  %s\n' harness executions time exec/s cov ft corpus crashes
for h in $harnesses; do
	log=$build/fuzz_$h.log
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
	# The last status line (-a: a crash report may hold binary bytes).
	last=$(grep -aE '^#[0-9]+.*cov: ' "$log" | tail -1)
	cov=$(echo "$last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
	ft=$(echo "$last" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
	corp=$(echo "$last" | sed -n 's/.*corp: \([0-9]*\).*/\1/p')
	crashes=$(find "$build/artifacts/$h" -type f \( -name 'crash-*' -o -name 'leak-*' \
		-o -name 'timeout-*' -o -name 'oom-*' \) -newer "$build/seeds" 2>/dev/null | wc -l)
	rc=$(cat "$build/fuzz_$h.rc" 2>/dev/null || echo "?")
	what=$crashes
	if [ "$crashes" != 0 ] || [ "$rc" != 0 ]; then
		status=1
		what="$crashes (exit $rc; see $log, inputs in $build/artifacts/$h/)"
	fi
	secs=$(cat "$build/fuzz_$h.time" 2>/dev/null || echo "?")
	printf '%-10s %12s %5ss %8s %8s %8s %8s  %s\n' "$h" "${execs:-?}" "$secs" "${rate:-?}" "${cov:-?}" \
		"${ft:-?}" "${corp:-?}" "$what"
done
exit $status
