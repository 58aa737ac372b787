#!/bin/sh
# Where does the run-to-run noise of a same-job comparison come from? A/A noise of
# `renacer calibrate` (paired differences of the target against itself) for a few workloads,
# one of one thread (compute, awk, sort) and two of several (a pipeline, xz -T2), placed:
#   unpinned   [regression] pin = false: wherever the scheduler puts each run
#   renacer    the default placement (one CPU for a lone thread; for a parallel tree the
#              highest min(4, half) CPUs where the machine has >= 4)
#   one-cpu    the whole check under taskset on the last CPU
#   two-cpus   the whole check under taskset on the last two CPUs
#   four-cpus  the whole check under taskset on the last four CPUs
# Not a ctest: it measures the machine it runs on.
#
#     tests/bench/timing/placement.sh RENACER PT_COMPUTE [PAIRS]
#
# Prints one line per workload and placement: "<workload> <placement>: <calibrate:noise row>".
set -u
renacer=$1
compute=$(realpath "$2")
pairs=${3:-30}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
awk 'BEGIN { srand(3); for (i = 0; i < 40000; i++) { for (j = 0; j < 8; j++)
	printf "w%d ", int(rand() * 500); print "" } }' >"$tmp/text.txt"
workload() { # NAME ARGV...
	name=$1
	shift
	mkdir -p "$tmp/$name" "$tmp/$name-nopin"
	q=
	for a in "$@"; do q="$q\"$a\", "; done
	printf '[[target]]\nname = "%s"\ncommand = [%s]\ncwd = "%s"\n' "$name" "${q%, }" "$tmp" \
		>"$tmp/$name/renacer.toml"
	printf '\n[regression]\npin = false\n' | cat "$tmp/$name/renacer.toml" - \
		>"$tmp/$name-nopin/renacer.toml"
}
workload compute "$compute" 8 0
workload awk awk '{ for (i = 1; i <= NF; i++) c[$i]++ } END { print length(c) }' text.txt
workload sort sort -k2 text.txt -o /dev/null
workload pipe sh -c 'sort text.txt | uniq -c | sort -rn >/dev/null'
workload xz sh -c 'exec xz -T2 -6 -c text.txt >/dev/null'
ncpu=$(nproc)
for w in ${PLACEMENT_WORKLOADS:-compute awk sort pipe xz}; do
	for placement in unpinned renacer one-cpu two-cpus four-cpus; do
		dir=$tmp/$w
		case $placement in
		unpinned) pre= dir=$tmp/$w-nopin ;;
		renacer) pre= ;;
		one-cpu) pre="taskset -c $((ncpu - 1))" ;;
		two-cpus) pre="taskset -c $((ncpu - 2)),$((ncpu - 1))" ;;
		four-cpus) pre="taskset -c $((ncpu - 4))-$((ncpu - 1))" ;;
		esac
		out=$(cd "$dir" && $pre "$renacer" calibrate --no-color --quiet \
			--pairs "$pairs" --plant 20 2>&1)
		noise=$(echo "$out" | grep -E '^(WARN|PASS|FAIL|NO DATA) [a-z]+/calibrate:noise' |
			head -1)
		echo "$w $placement: ${noise:-$(echo "$out" | tail -3)}"
	done
done
