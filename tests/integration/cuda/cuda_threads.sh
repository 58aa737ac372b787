#!/bin/sh
# cuda_threads.sh BUILD_DIR - regions across threads (cuda_threads.cu): by time
# window (the default region_scope) the main thread's "step" holds the 10 kernels a second
# thread launched in it and its own 5; with region_scope = "thread", its own 5. Each count
# is asserted exactly (N passes, N-1 fails). Exits 77 (skip) without an NVIDIA GPU.
set -u
build=$(cd "$1" && pwd) || exit 1
renacer=$build/renacer
target=$build/targets/cuda_threads
if [ ! -e /dev/nvidia0 ] && ! nvidia-smi -L >/dev/null 2>&1; then
	echo "no NVIDIA GPU: skipped"
	exit 77
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# scope count expect_exit
try() {
	{
		printf '[[target]]\nname = "threads"\ncommand = ["%s"]\ncollectors = ["cuda"]\n' \
			"$target"
		[ "$1" = default ] || printf 'region_scope = "%s"\n' "$1"
		printf '[[assertion]]\nname = "step"\ntype = "span_count"\n'
		printf 'span_name_pattern = "gpu:.*"\nregion_pattern = "step"\nmax_spans = %d\n' "$2"
	} >"$tmp/renacer.toml"
	"$renacer" check --config "$tmp/renacer.toml" --no-golden >"$tmp/out" 2>&1
	rc=$?
	if [ "$rc" != "$3" ]; then
		cat "$tmp/out"
		echo "FAIL: region_scope $1, budget $2: exit $rc, want $3"
		exit 1
	fi
}
try default 15 0
try default 14 1
try process 15 0
try thread 5 0
try thread 4 1
echo "PASS: regions across threads (process 15, thread 5)"
