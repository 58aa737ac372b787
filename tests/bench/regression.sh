#!/bin/sh
# Regression-gate benchmark: how often does `renacer check` raise a false alarm on this
# machine, and does it catch a 30% CPU slowdown and a doubling of syscalls?
#
#     tests/bench/regression.sh [BUILD_DIR] [CHECKS]      defaults: build, 20
#
# Records a golden trace of example_work with 10 runs, then runs CHECKS checks with nothing
# changed (every failure is a false alarm), CHECKS checks with RN_EXAMPLE_CPU=1.3 (30% more CPU
# work; every pass is a missed regression) and one with RN_EXAMPLE_SYSCALLS=2.
set -u
build=$(cd "${1:-build}" && pwd)
checks=${2:-20}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/renacer.toml" <<EOT
[[target]]
name = "work"
command = ["$build/targets/example_work", "20"]
runs = 10
warmup = 1
[golden]
dir = "$tmp/golden"
EOT
"$build/renacer" golden update --config "$tmp/renacer.toml" -q || exit 1

false_alarms=0
for i in $(seq "$checks"); do
	if ! "$build/renacer" check --config "$tmp/renacer.toml" -q 2>"$tmp/err"; then
		false_alarms=$((false_alarms + 1))
		grep -E "^(FAIL|WARN)" "$tmp/err" | head -3
	fi
done
detected=0
for i in $(seq "$checks"); do
	RN_EXAMPLE_CPU=1.3 "$build/renacer" check --config "$tmp/renacer.toml" -q 2>"$tmp/err" ||
		detected=$((detected + 1))
done
syscalls=missed
RN_EXAMPLE_SYSCALLS=2 "$build/renacer" check --config "$tmp/renacer.toml" -q 2>"$tmp/err" ||
	syscalls=detected
echo "false alarms (unchanged program): $false_alarms/$checks"
echo "30% CPU slowdown detected:        $detected/$checks"
echo "doubled syscalls:                 $syscalls"
