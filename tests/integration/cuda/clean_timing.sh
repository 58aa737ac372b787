#!/bin/sh
# clean_timing.sh BUILD_DIR - a CUDA target's timing runs carry no CUPTI library
# (`clean_timing`, runner/check/check_run.c): each run that gives times is a GPU execution
# with the library and a clean one without it. The target records, per execution, whether the
# CUDA driver was told to load the library (CUDA_INJECTION64_PATH), then runs
# targets/cuda_kernels (30 kernels). With runs = 4 and one warmup: 4 clean executions and
# 4 + 1 with the library, and the GPU spans of the clean runs' GPU executions are judged (30
# kernels pass at max_spans = 30, fail at 29). With clean_timing = false: no clean execution.
# Exits 77 (skip) without an NVIDIA GPU.
set -u
build=$(cd "$1" && pwd) || exit 1
renacer=$build/renacer
target=$build/targets/cuda_kernels
if [ ! -e /dev/nvidia0 ] && ! nvidia-smi -L >/dev/null 2>&1; then
	echo "no NVIDIA GPU: skipped"
	exit 77
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() {
	cat "$tmp/out"
	echo "FAIL: $*"
	exit 1
}

# write_config CLEAN MAX: the target and a span_count over its kernels at MAX
write_config() {
	{
		printf '[[target]]\nname = "kernels"\nwarmup = 1\nruns = 4\n'
		printf 'command = ["/bin/sh", "-c", "echo ${CUDA_INJECTION64_PATH:-clean} >> %s/execs; exec %s 10"]\n' \
			"$tmp" "$target"
		printf 'collectors = ["cuda"]\nclean_timing = %s\n' "$1"
		printf '[[assertion]]\nname = "kernels"\ntype = "span_count"\n'
		printf 'max_spans = %d\nspan_name_pattern = "gpu:rn_.*"\n' "$2"
	} >"$tmp/renacer.toml"
	: >"$tmp/execs"
}

write_config true 30
"$renacer" check --config "$tmp/renacer.toml" --no-golden >"$tmp/out" 2>&1 ||
	fail "30 kernels did not pass with clean timing runs"
clean=$(grep -c '^clean$' "$tmp/execs")
traced=$(grep -vc '^clean$' "$tmp/execs")
[ "$clean" -eq 4 ] || fail "expected 4 clean executions, got $clean"
[ "$traced" -eq 5 ] || fail "expected 5 executions with the library (4 + warmup), got $traced"

write_config true 29
"$renacer" check --config "$tmp/renacer.toml" --no-golden >"$tmp/out" 2>&1 &&
	fail "29 kernels passed: the GPU spans were not judged"
grep -q 'span_count.* FAIL\|FAIL.*kernels' "$tmp/out" || fail "no FAIL row for 29 kernels"

write_config false 30
"$renacer" check --config "$tmp/renacer.toml" --no-golden >"$tmp/out" 2>&1 ||
	fail "30 kernels did not pass with clean_timing = false"
clean=$(grep -c '^clean$' "$tmp/execs")
[ "$clean" -eq 0 ] || fail "clean_timing = false made $clean clean executions"
echo "PASS: 4 clean timing executions beside 5 with the library; kernels judged"
