#!/bin/sh
# Overhead of VK_LAYER_RENACER_timing on a dispatch-heavy workload (tests/bench/vulkan).
#
# Usage: run.sh VK_BENCH LAYER_MANIFEST_DIR [REPS] [-- vk_bench options]
# Runs vk_bench REPS times (default 5) in each configuration, interleaved, and prints the
# median GPU time per command buffer and the median wall time of each, and their ratios to
# the run without the layer. The environment is what the collector's prepare() sets.
# Target (cmdbuf mode, command buffers >= 100 us): GPU and wall ratios <= 1.02.
set -eu
bench=$1
layer_dir=$2
reps=${3:-5}
shift 2
[ $# -gt 0 ] && shift
[ "${1:-}" = "--" ] && shift
recdir=$(mktemp -d)
trap 'rm -rf "$recdir"' EXIT
out=$recdir/results

run() { # config -> appends "config gpu_us wall_ms"
	cfg=$1
	shift
	rc=0
	if [ "$cfg" = none ]; then
		line=$("$bench" "$@") || rc=$?
	else
		line=$(VK_ADD_LAYER_PATH="$layer_dir" VK_INSTANCE_LAYERS=VK_LAYER_RENACER_timing \
			VK_LOADER_LAYERS_ENABLE=VK_LAYER_RENACER_timing RENACER_VK_DIR="$recdir" \
			RENACER_VK_MODE="$cfg" "$bench" "$@") || rc=$?
		spans=$(cat "$recdir"/vk-*.rnvk 2>/dev/null | wc -c)
		[ "$spans" -gt 0 ] || { echo "run.sh: the layer wrote no records"; exit 1; }
		rm -f "$recdir"/vk-*.rnvk
	fi
	[ $rc -eq 77 ] && { echo "run.sh: no Vulkan device"; exit 77; }
	[ $rc -eq 0 ] || { echo "run.sh: vk_bench failed ($rc)"; exit 1; }
	gpu=$(echo "$line" | sed -n 's/.*gpu_us_per_cb_median=\([0-9.]*\).*/\1/p')
	wall=$(echo "$line" | sed -n 's/.*wall_ms=\([0-9.]*\).*/\1/p')
	echo "$cfg $gpu $wall" >>"$out"
	echo "$line" | sed "s/^/  [$cfg] /"
}

i=0
while [ $i -lt "$reps" ]; do
	for cfg in none cmdbuf dispatch; do
		run $cfg "$@"
	done
	i=$((i + 1))
done

median() { # config column
	awk -v c="$1" -v k="$2" '$1 == c { print $k }' "$out" | sort -g |
		awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
g0=$(median none 2)
w0=$(median none 3)
echo "median GPU us/cmdbuf, median wall ms, ratios to no layer ($reps runs each):"
for cfg in none cmdbuf dispatch; do
	g=$(median $cfg 2)
	w=$(median $cfg 3)
	awk -v c="$cfg" -v g="$g" -v w="$w" -v g0="$g0" -v w0="$w0" 'BEGIN {
		printf "  %-8s gpu %10.2f us  wall %10.3f ms  gpu x%.4f  wall x%.4f\n", c, g, w, g / g0, w / w0 }'
done
