#!/bin/sh
# Build renacer and run the main job: `renacer check` on renacer.toml.example against the
# bundled example targets and the committed golden traces. Exit status is renacer's.
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$BUILD" -j"$(nproc)" >/dev/null
exec "$BUILD/renacer" check --config renacer.toml.example "$@"
