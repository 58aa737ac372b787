#!/bin/sh
# nvtx_bench.sh BUILD_DIR [ROUNDS] - overhead of NVTX region recording in the CUDA injection
# library on 6,000 kernel launches (tests/bench/cuda/nvtx_launches.cu). Three configurations
# run interleaved, ROUNDS times each (default 15), with the environment renacer's CUDA
# collector sets (CUDA_INJECTION64_PATH, NVTX_INJECTION64_PATH, RENACER_CUDA_DIR):
#   plain   no injection at all
#   nonvtx  the injection library, NVTX recording off (RENACER_CUDA_NVTX=off)
#   nvtx    the injection library with NVTX recording
# for two workloads: "outer" (one range around the 6,000 launches: one launch record each)
# and "per-launch" (each launch also in its own range: 6,000 more push/pop pairs).
# Prints the median launch-loop time of each and the ratios nvtx/nonvtx and nvtx/plain.
set -eu
build=$(cd "$1" && pwd)
rounds=${2:-15}
here=$(cd "$(dirname "$0")" && pwd)
lib=$build/cuda/librenacer_cuda_inject.so
nvcc=${NVCC:-nvcc}
[ -r "$lib" ] || { echo "no $lib: build with the CUDA collector" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$nvcc" -O2 -o "$tmp/nvtx_launches" "$here/nvtx_launches.cu"

run() { # CONFIG WORKLOAD -> loop ns
	rm -rf "$tmp/rec" && mkdir "$tmp/rec"
	case $1 in
	plain) "$tmp/nvtx_launches" "$2" ;;
	nonvtx) CUDA_INJECTION64_PATH=$lib NVTX_INJECTION64_PATH=$lib RENACER_CUDA_DIR=$tmp/rec \
		RENACER_CUDA_NVTX=off "$tmp/nvtx_launches" "$2" ;;
	nvtx) CUDA_INJECTION64_PATH=$lib NVTX_INJECTION64_PATH=$lib RENACER_CUDA_DIR=$tmp/rec \
		"$tmp/nvtx_launches" "$2" ;;
	esac | sed -n 's/^loop_ns=//p'
	if [ "$1" = nvtx ]; then
		# the records must be there: a benchmark of a library that recorded nothing is void
		n=$(cat "$tmp"/rec/cuda-*.jsonl | grep -c '"type":"launch"' || true)
		[ "$n" -ge 6000 ] || { echo "nvtx run wrote $n launch records" >&2; exit 1; }
	fi
}

median() {
	sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2];
		else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

for w in outer per-launch; do
	: >"$tmp/plain.$w"; : >"$tmp/nonvtx.$w"; : >"$tmp/nvtx.$w"
	i=0
	while [ $i -lt "$rounds" ]; do
		for c in plain nonvtx nvtx; do
			run $c $w >>"$tmp/$c.$w"
		done
		i=$((i + 1))
	done
	p=$(median <"$tmp/plain.$w")
	o=$(median <"$tmp/nonvtx.$w")
	v=$(median <"$tmp/nvtx.$w")
	awk -v w="$w" -v p="$p" -v o="$o" -v v="$v" -v r="$rounds" 'BEGIN {
		printf "%-10s 6000 launches, median of %d: plain %.3f ms, inject %.3f ms, " \
			"inject+nvtx %.3f ms; nvtx/inject x%.4f, nvtx/plain x%.4f, " \
			"nvtx cost %.2f us/launch\n", w, r, p / 1e6, o / 1e6, v / 1e6, v / o, v / p,
			(v - o) / 6000 / 1e3 }'
done
