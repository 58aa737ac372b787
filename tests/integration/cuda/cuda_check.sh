#!/bin/sh
# cuda_check.sh BUILD_DIR - run targets/cuda_kernels under `renacer check` with the CUDA
# collector and demand exact counts: 3 kernels x 10 launches, 2 HtoD and 1 DtoH memcpy.
# Each count is asserted twice: max_spans = N must pass and max_spans = N-1 must fail.
# Exits 77 (skip) without an NVIDIA GPU.
set -u
set -f # patterns below must not glob
# Absolute: the config written below lives in a temporary directory, and renacer resolves a
# relative command against the config's directory.
build=$(cd "$1" && pwd) || exit 1
renacer=$build/renacer
target=$build/targets/cuda_kernels
if [ ! -e /dev/nvidia0 ] && ! nvidia-smi -L >/dev/null 2>&1; then
	echo "no NVIDIA GPU: skipped"
	exit 77
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# write_config SLACK: every budget is the known count minus SLACK.
write_config() {
	slack=$1
	{
		printf '[[target]]\nname = "kernels"\ncommand = ["%s", "10"]\n' "$target"
		printf 'collectors = ["cuda"]\n'
		for a in 'scale rn_scale\(.*\) 10' 'add rn_add\(.*\) 10' \
			'square rn_square\(.*\) 10' 'kernels rn_.* 30' 'htod memcpy_htod 2' \
			'dtoh memcpy_dtoh 1' 'all .* 33'; do
			set -- $a
			printf '[[assertion]]\nname = "%s"\ntype = "span_count"\n' "$1"
			printf 'max_spans = %d\nspan_name_pattern = "gpu:%s"\n' $(($3 - slack)) \
				"$(printf '%s' "$2" | sed 's/\\/\\\\/g')"
		done
	} >"$tmp/renacer.toml"
}

write_config 0
if ! "$renacer" check --config "$tmp/renacer.toml" --no-golden \
	--trace-out "$tmp/trace.json" >"$tmp/out" 2>&1; then
	cat "$tmp/out"
	echo "FAIL: exact budgets did not pass"
	exit 1
fi
cat "$tmp/out"
write_config 1
if "$renacer" check --config "$tmp/renacer.toml" --no-golden >"$tmp/out1" 2>&1; then
	cat "$tmp/out1"
	echo "FAIL: budgets one below the known counts passed"
	exit 1
fi
fails=$(grep -c ' FAIL' "$tmp/out1")
if [ "$fails" -lt 7 ]; then
	cat "$tmp/out1"
	echo "FAIL: expected all 7 assertions to fail one below their counts, got $fails"
	exit 1
fi
echo "PASS: exact counts"
