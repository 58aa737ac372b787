#!/bin/sh
# Build what the example needs and run the main job: `renacer check` on renacer.toml.example
# against the bundled example targets and the committed golden traces. Exit status is
# renacer's.
#
# It builds renacer and the two example targets alone (tests off, the GPU collectors and the
# eBPF driver off: the example uses ptrace), with every core, in a build directory of its own
# (BUILD, default build-example), so it neither waits for the test suite nor reconfigures the
# test build (build/, ci/test.sh). The example's paths name build/targets/: the check runs
# in BUILD/example, where they lead to BUILD's targets and the committed golden traces.
# Arguments go to `renacer check`.
set -eu
cd "$(dirname "$0")/.."
src=$(pwd)
BUILD=${BUILD:-build-example}
mkdir -p "$BUILD"
build=$(cd "$BUILD" && pwd)
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRN_BUILD_TESTS=OFF \
	-DRN_WITH_VULKAN=OFF -DRN_WITH_CUDA=OFF -DRN_WITH_EBPF=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" --target renacer target_example_work target_example_tree \
	>/dev/null
# The config as committed, in a scratch project whose build/targets and golden_traces are
# links to this build's targets and the committed golden traces (same argv as the goldens).
run=$build/example
mkdir -p "$run/build"
ln -sfn "$build/targets" "$run/build/targets"
ln -sfn "$src/golden_traces" "$run/golden_traces"
cp renacer.toml.example "$run/renacer.toml.example"
exec "$build/renacer" check --config "$run/renacer.toml.example" "$@"
