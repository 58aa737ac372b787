#!/bin/sh
# alloc_overlap.sh - memory verdicts of a parallel build, both ways: false failures of unchanged
# checks and detection of a planted memory regression, against a golden trace and against the
# same-job base.
#
# A `make -j2` tree peaks where its compile jobs overlap, which moves from run to run; renacer
# then judges the largest process's own peak (process_alloc_peak, docs/golden.md). Planted: one
# source file gains an initialized table of TABLE ints (default 16000), which makes its compiler
# process (cc1) map more memory; the script measures by how much (the largest process's peak over one check's
# counting runs on each side, from `check --results`) and prints it beside the detection rate.
#
# Usage: tests/bench/real/alloc_overlap.sh [RENACER] [CHECKS] [--hog]
#   RENACER  the renacer binary (default build/renacer)
#   CHECKS   checks per scenario (default 20)
#   --hog    a busy loop runs beside every check (what a CI runner looks like)
#   TABLE=N  in the environment: the planted table's size (default 16000: cc1's 5.9 MiB
#            -> 7.5 MiB, +29%; 17000 reads 10.1 MiB, 28000 11.2 MiB: cc1 grows in steps)
# Not a ctest: it takes minutes. Prints one Markdown table; exit 0 unless renacer could not run.
set -u
R=$(realpath "${1:-build/renacer}")
N=${2:-20}
HOG=${3:-}
command -v make > /dev/null && command -v gcc > /dev/null || {
	echo "alloc_overlap.sh: needs make and gcc" >&2
	exit 0
}
W=$(mktemp -d /tmp/rn-alloc-overlap.XXXXXX)
hog=
cleanup() {
	[ -n "$hog" ] && kill "$hog" 2> /dev/null
	rm -rf "$W"
}
trap cleanup EXIT INT TERM

# project SIDE TABLE: four small C files, main.c and a Makefile; TABLE > 0 adds a table of that
# many ints to m1.c
project() {
	d=$W/$1
	mkdir -p "$d/src"
	for i in 0 1 2 3; do
		k=0
		: > "$d/src/m$i.c"
		while [ $k -lt 10 ]; do
			echo "int f${i}_$k(int x) { return x * $((k + 1)) + $i; }" >> "$d/src/m$i.c"
			k=$((k + 1))
		done
	done
	if [ "$2" -gt 0 ]; then
		awk -v n="$2" 'BEGIN { printf "const int table[] = {"; for (i = 0; i < n; i++)
			printf "%d,", i * 7 % 1000; print "0};" }' >> "$d/src/m1.c"
	fi
	echo 'int main(void) { return 0; }' > "$d/src/main.c"
	printf 'all: app\napp: main.o m0.o m1.o m2.o m3.o\n\tgcc -o $@ $^\n%%.o: %%.c\n\tgcc -O0 -c -o $@ $<\n' \
		> "$d/src/Makefile"
	cat > "$d/renacer.toml" << EOF
[[target]]
name = "build"
command = ["make", "-s", "-B", "-j2", "-C", "src"]
EOF
	git -C "$d" init -q 2> /dev/null
}

# median over one check's counting runs of the largest process's alloc_peak, MiB
largest() {
	(cd "$W/$1" && "$R" check --no-color --results "$W/$1.results.json" > /dev/null 2>&1)
	python3 -c '
import json, statistics, sys
t = json.load(open(sys.argv[1]))["targets"][0]
v = [r["metrics"]["process_alloc_peak"] for r in t["counting_runs"]]
print("%.2f" % (statistics.median(v) / 1048576))' "$W/$1.results.json" 2> /dev/null || echo "?"
}

project base 0
project same 0
project head "${TABLE:-16000}"
(cd "$W/same" && "$R" golden update > /dev/null 2>&1) || {
	echo "alloc_overlap.sh: golden update failed" >&2
	exit 1
}
cp -r "$W/same/golden_traces" "$W/head/"
[ "$HOG" = "--hog" ] && {
	sh -c 'while :; do :; done' &
	hog=$!
}
b=$(largest base)
h=$(largest head)

# scenario DIR ARGS...: N checks; prints "fails/N alloc_fails/N"
scenario() {
	dir=$1
	shift
	f=0
	a=0
	i=0
	while [ $i -lt "$N" ]; do
		out=$(cd "$W/$dir" && "$R" check --no-color "$@" 2>&1)
		rc=$?
		[ $rc -eq 1 ] && f=$((f + 1))
		echo "$out" | grep -Eq '^FAIL +[^ ]+/(golden|baseline):alloc_peak' && a=$((a + 1))
		[ $rc -gt 1 ] && echo "$out" | tail -5 >&2
		i=$((i + 1))
	done
	echo "$f/$N $a/$N"
}

set -- $(scenario same) $(scenario head) $(scenario same --baseline ../base) \
	$(scenario head --baseline ../base)
echo "### make -j2: memory verdicts ($N checks each; ${HOG:-no load added})"
echo
echo "largest process (cc1) alloc_peak: base $b MiB, planted $h MiB"
echo
echo "| reference | unchanged: exit 1 | unchanged: alloc_peak FAIL | planted: exit 1 | planted: alloc_peak FAIL |"
echo "|---|---|---|---|---|"
echo "| golden trace | $1 | $2 | $3 | $4 |"
echo "| --baseline | $5 | $6 | $7 | $8 |"
