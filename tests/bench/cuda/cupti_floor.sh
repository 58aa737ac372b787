#!/bin/sh
# cupti_floor.sh OUT - what CUPTI's kernel activity costs a ResNet-18 training step on the GPU
# machine, beside what renacer's library costs: interleaved rounds (ROUNDS, default 15) of
# tests/bench/cuda/torch_steps.py (50 steps, the step's median time) run
#   plain    no library
#   new      renacer's injection library, NVTX off (its activity records alone)
#   pt       the same built with CUPTI's per-thread activity buffers
#            (CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER, CUDA 12.3+)
#   prof     no library: the steps under torch.profiler with CUDA activity only (Kineto's
#            CUPTI use, the reference a PyTorch user knows)
# Each round's step medians go to OUT/t.<variant> as it ends (a cut run keeps its rounds);
# costs per GPU operation are the per-round differences over plain / 345 (the step's GPU
# operations, torch.profiler's count: collector_cost.sh).
set -u
out=$1
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
py=${PYTHON:-python3}
. "$here/inject_lib.sh"
cp "$src/collectors/cuda/inject/inject.c" "$tmp/new.c"
build_lib "$tmp/new.c" "$tmp/new.so" || exit 1
sed 's|\tactivity_on = true;|\t{ size_t sz = sizeof(uint8_t); uint8_t one = 1; cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER, \&sz, \&one); }\n\tactivity_on = true;|' \
	"$tmp/new.c" >"$tmp/pt.c"
build_lib "$tmp/pt.c" "$tmp/pt.so" || exit 1
variants="plain new pt prof"
for v in $variants; do : >"$out/t.$v"; done
r=0
while [ $r -lt "${ROUNDS:-15}" ]; do
	r=$((r + 1))
	for v in $variants; do
		rm -rf "$tmp/rec" && mkdir "$tmp/rec"
		case $v in
		plain) "$py" "$here/torch_steps.py" time 50 ;;
		prof) "$py" "$here/torch_steps.py" time-profiler 50 ;;
		*) CUDA_INJECTION64_PATH=$tmp/$v.so RENACER_CUDA_DIR=$tmp/rec RENACER_CUDA_NVTX=off \
			"$py" "$here/torch_steps.py" time 50 ;;
		esac 2>/dev/null | sed -n 's/^step_ms=//p' >>"$out/t.$v"
	done
	echo "round $r: $(for v in $variants; do printf '%s=%s ' $v "$(tail -1 "$out/t.$v")"; done)"
done
for v in new pt prof; do
	paste "$out/t.plain" "$out/t.$v" | awk '{ print ($2 - $1) / 345 * 1000 }' | sort -n | awk -v v=$v '
		{ a[NR] = $1 } END { m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
		printf "%s: %+.2f us per GPU operation [%.2f, %.2f], %d rounds\n", v, m, a[1], a[NR], NR }'
done
