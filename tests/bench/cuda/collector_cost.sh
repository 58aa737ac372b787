#!/bin/sh
# collector_cost.sh OUT [OLD_INJECT_C] - the CUDA collector's cost per GPU operation, on the
# GPU machine, without the rest of renacer (the injection library is built here from its
# source with the machine's CUPTI; OLD_INJECT_C, another version of inject.c, is measured
# beside it). Interleaved rounds of:
#   nvtx_launches.cu (6,000 small kernel launches in one NVTX range):
#       plain / inject without NVTX / inject with NVTX, per library
#   torch_steps.py (ResNet-18 training steps in NVTX ranges "step"): plain / inject
# (ROUNDS rounds of nvtx_launches, TORCH_ROUNDS rounds of STEPS torch steps, the library in
# each of TORCH_NVTX's modes, "on" by default, "off on" to see what the region callbacks add; each cost is the
# median of the per-round paired differences, with their range, so a reader sees whether the
# rounds settled), and the record files of one torch run and of cuda_threads.cu into OUT, for the region
# counts (the runner's loader reads them: tests/bench/cuda/count_regions.c).
set -eu
out=$1
old=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
py=${PYTHON:-python3}
. "$here/inject_lib.sh"
build_lib "$src/collectors/cuda/inject/inject.c" "$tmp/new.so"
libs=new
if [ -n "$old" ]; then
	build_lib "$old" "$tmp/old.so"
	libs="old new"
fi
nvcc -O2 -o "$tmp/nvtx_launches" "$here/nvtx_launches.cu"
nvcc -O2 -o "$tmp/cuda_threads" "$src/tests/integration/cuda/cuda_threads.cu"

with() { # LIB NVTX(on|off) CMD... : run CMD with the library injected, records in $tmp/rec
	l=$1 n=$2
	shift 2
	rm -rf "$tmp/rec" && mkdir "$tmp/rec"
	if [ "$l" = plain ]; then
		"$@"
	else
		CUDA_INJECTION64_PATH=$tmp/$l.so NVTX_INJECTION64_PATH=$tmp/$l.so \
			RENACER_CUDA_DIR=$tmp/rec RENACER_CUDA_NVTX=$n "$@"
	fi
}
median() {
	sort -n | awk '{ v[NR] = $1 }
		END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
# paired A B SCALE: "median [min, max]" of (B[i] - A[i]) / SCALE over the rounds (files of one
# number a line, round i on line i)
paired() {
	paste "$1" "$2" | awk -v s="$3" '{ print ($2 - $1) / s }' | sort -n | awk '
		{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.3f [%.3f, %.3f]", m, v[1], v[NR] }'
}

rounds=${ROUNDS:-9}
: >"$tmp/launch.plain"
for l in $libs; do : >"$tmp/launch.$l.off"; : >"$tmp/launch.$l.on"; done
i=0
while [ $i -lt "$rounds" ]; do
	with plain off "$tmp/nvtx_launches" outer | sed -n 's/^loop_ns=//p' >>"$tmp/launch.plain"
	for l in $libs; do
		for n in off on; do
			with $l $n "$tmp/nvtx_launches" outer | sed -n 's/^loop_ns=//p' \
				>>"$tmp/launch.$l.$n"
		done
	done
	i=$((i + 1))
done
p=$(median <"$tmp/launch.plain")
echo "nvtx_launches: 6000 launches, median of $rounds: plain $(awk -v p="$p" 'BEGIN{printf "%.3f", p/1e6}') ms"
for l in $libs; do
	for n in off on; do
		v=$(median <"$tmp/launch.$l.$n")
		awk -v l="$l" -v n="$n" -v p="$p" -v v="$v" 'BEGIN { printf \
			"  %s inject, NVTX %s: %.3f ms, %.3f us per launch over plain", l, n, \
			v / 1e6, (v - p) / 6000 / 1e3 }'
		echo "; paired per round: $(paired "$tmp/launch.plain" "$tmp/launch.$l.$n" 6e6) us"
	done
done

with new on "$tmp/cuda_threads"
cp "$tmp"/rec/cuda-*.jsonl "$out/cuda_threads.jsonl"

if "$py" -c 'import torch, torchvision; assert torch.cuda.is_available()' 2>/dev/null; then
	steps=${STEPS:-50}
	modes=${TORCH_NVTX:-on}
	: >"$tmp/torch.plain"
	for l in $libs; do for n in $modes; do : >"$tmp/torch.$l.$n"; done; done
	r=0
	while [ $r -lt "${TORCH_ROUNDS:-3}" ]; do
		r=$((r + 1))
		with plain off "$py" "$here/torch_steps.py" time "$steps" |
			sed -n 's/^step_ms=//p' >>"$tmp/torch.plain"
		for l in $libs; do
			for n in $modes; do
				with $l $n "$py" "$here/torch_steps.py" time "$steps" |
					sed -n 's/^step_ms=//p' >>"$tmp/torch.$l.$n"
			done
		done
		cp "$tmp"/torch.* "$out/" # the rounds so far, should the run be cut
	done
	with new on "$py" "$here/torch_steps.py" time 5 >/dev/null
	cp "$tmp"/rec/cuda-*.jsonl "$out/torch_steps.jsonl"
	with plain off "$py" "$here/torch_steps.py" profile 5 | tee "$out/torch_profile.txt"
	ops=$(cat "$out/torch_steps.jsonl" | grep -c '"type":"\(kernel\|memcpy\|memset\)"' || true)
	p=$(median <"$tmp/torch.plain")
	per=$(sed -n 's/^profiler_ops=//p' "$out/torch_profile.txt")
	per=$(awk -v o="${per:-0}" 'BEGIN { print o / 5 }')
	scale=$(awk -v o="$per" 'BEGIN { print o / 1000 }') # ms of a step -> us per GPU operation
	echo "torch ResNet-18 step, median of ${TORCH_ROUNDS:-3} runs x $steps steps: plain $p ms;" \
		"GPU ops in 5+5 steps: $ops; per step (torch.profiler): $per"
	for l in $libs; do
		for n in $modes; do
			v=$(median <"$tmp/torch.$l.$n")
			echo "  $l inject (NVTX $n): $v ms ($(awk -v p="$p" -v v="$v" 'BEGIN{printf "x%.3f", v/p}'));" \
				"paired per round: $(paired "$tmp/torch.plain" "$tmp/torch.$l.$n" "$scale") us per GPU operation"
		done
	done
fi
