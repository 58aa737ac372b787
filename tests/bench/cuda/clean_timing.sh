#!/bin/sh
# clean_timing.sh OUT [RENACER] - a CUDA target's timing runs against the program run alone,
# on the GPU machine: interleaved rounds (ROUNDS, default 15; the order alternates every
# round) of tests/bench/cuda/torch_steps.py (ResNet-18, 50 steps, the step's median) run
# plain and as the target of `renacer check` (collectors = ["cuda"], runs = 1, clean_timing
# on): its GPU execution (with the CUPTI library) and its clean execution (the one its times
# come from). The injection library is built here from its source. Prints, per round and at
# the end, each execution's step time over plain per GPU operation (/ 345: collector_cost.sh).
set -u
out=$1
renacer=${2:-build/renacer}
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../../.." && pwd)
renacer=$(cd "$(dirname "$renacer")" && pwd)/$(basename "$renacer")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
py=${PYTHON:-python3}
. "$here/inject_lib.sh"
build_lib "$src/collectors/cuda/inject/inject.c" "$tmp/inject.so" || exit 1
export RENACER_CUDA_INJECTION="$tmp/inject.so"
cat >"$tmp/renacer.toml" <<T
[[target]]
name = "resnet"
command = ["/bin/sh", "-c", "$py $here/torch_steps.py time 50 | sed -n 's/^step_ms=//p' >> $out/steps.check"]
collectors = ["cuda"]
runs = 1
timeout_s = 120
clean_timing = true
T
: >"$out/steps.plain"
: >"$out/steps.check"
check() { (cd "$tmp" && "$renacer" check --no-golden --no-color >/dev/null 2>&1); }
plain() { "$py" "$here/torch_steps.py" time 50 | sed -n 's/^step_ms=//p' >>"$out/steps.plain"; }
r=0
while [ $r -lt "${ROUNDS:-15}" ]; do
	r=$((r + 1))
	if [ $((r % 2)) = 1 ]; then plain; check; else check; plain; fi
	echo "round $r: plain $(tail -1 "$out/steps.plain") gpu,clean $(tail -2 "$out/steps.check" | tr '\n' ' ')"
done
# the check's lines alternate: its GPU execution, then its clean one
awk 'NR % 2 == 1' "$out/steps.check" >"$out/steps.gpu"
awk 'NR % 2 == 0' "$out/steps.check" >"$out/steps.clean"
for v in clean gpu; do
	paste "$out/steps.plain" "$out/steps.$v" | awk 'NF == 2 { print ($2 - $1) / 345 * 1000 }' |
		sort -n | awk -v v=$v '{ a[NR] = $1 } END { m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
		printf "%s execution: %+.2f us per GPU operation over plain [%.2f, %.2f], %d rounds\n", v, m, a[1], a[NR], NR }'
done
