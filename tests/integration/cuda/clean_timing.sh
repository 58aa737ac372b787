#!/bin/sh
# clean_timing.sh BUILD_DIR - a CUDA target's timing runs carry no CUPTI library
# (`clean_timing`, runner/check/check_run.c): each run that gives times is a GPU execution
# with the library and a clean one without it. The target records, per execution, whether the
# CUDA driver was told to load the library (CUDA_INJECTION64_PATH): with runs = 4 and one
# warmup, 4 clean executions and 4 + 1 with the library; with clean_timing = false, none
# clean. That needs no GPU. With an NVIDIA GPU the target then also runs
# targets/cuda_kernels (30 kernels), and the GPU spans the clean runs keep are judged: 30
# kernels pass at max_spans = 30 and fail at 29.
set -u
build=$(cd "$1" && pwd) || exit 1
renacer=$build/renacer
target=$build/targets/cuda_kernels
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() {
	cat "$tmp/out"
	echo "FAIL: $*"
	exit 1
}

# write_config CLEAN MAX [PROGRAM]: the target (PROGRAM after the record, if given) and a
# span_count over its kernels at MAX
write_config() {
	run=${3:+; exec $3 10}
	{
		printf '[[target]]\nname = "kernels"\nwarmup = 1\nruns = 4\n'
		printf 'command = ["/bin/sh", "-c", "echo ${CUDA_INJECTION64_PATH:-clean} >> %s/execs%s"]\n' \
			"$tmp" "$run"
		printf 'collectors = ["cuda"]\nclean_timing = %s\n' "$1"
		printf '[[assertion]]\nname = "kernels"\ntype = "span_count"\n'
		printf 'max_spans = %d\nspan_name_pattern = "gpu:rn_.*"\n' "$2"
	} >"$tmp/renacer.toml"
	: >"$tmp/execs"
}

# executions: CLEAN EXPECTED_CLEAN EXPECTED_TRACED [PROGRAM]
executions() {
	write_config "$1" 30 "${4:-}"
	"$renacer" check --config "$tmp/renacer.toml" --no-golden >"$tmp/out" 2>&1
	rc=$?
	[ -n "${4:-}" ] && [ $rc -ne 0 ] && fail "30 kernels did not pass (clean_timing = $1)"
	clean=$(grep -c '^clean$' "$tmp/execs")
	traced=$(grep -vc '^clean$' "$tmp/execs")
	[ "$clean" -eq "$2" ] || fail "clean_timing = $1: expected $2 clean executions, got $clean"
	[ "$traced" -eq "$3" ] ||
		fail "clean_timing = $1: expected $3 executions with the library, got $traced"
}

executions true 4 5
executions false 0 5
if [ ! -e /dev/nvidia0 ] && ! nvidia-smi -L >/dev/null 2>&1; then
	echo "PASS: 4 clean timing executions beside 5 with the library (no GPU: kernels not run)"
	exit 0
fi
executions true 4 5 "$target"
write_config true 29 "$target"
"$renacer" check --config "$tmp/renacer.toml" --no-golden >"$tmp/out" 2>&1 &&
	fail "29 kernels passed: the GPU spans were not judged"
grep -q 'FAIL' "$tmp/out" || fail "no FAIL row for 29 kernels"
executions false 0 5 "$target"
echo "PASS: 4 clean timing executions beside 5 with the library; kernels judged"
