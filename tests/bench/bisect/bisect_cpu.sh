#!/bin/sh
# Bisect benchmark: a repository of 12 commits whose 7th adds +30% CPU work to its one target;
# how often does `renacer bisect FIRST main` name commit 7?
#
#     tests/bench/bisect/bisect_cpu.sh [BUILD_DIR] [TIMES] [PLANT_PCT] [instructions]
#                                                      defaults: build, 10, 30, time rows only
#
# `instructions` as the fourth argument sets `instructions = true` on the target: each
# comparison counts both sides once under Valgrind and the baseline:instructions row decides
# the steps (the line of each bisection then says how many steps the count decided).
# The target is pt_compute 70 2000 (about 70 ms of computing; commit 7: 70 * (1 + PLANT/100)),
# built by its `build` key (a copy into build/). Each of TIMES bisections starts afresh and is
# classified by what it printed: commit 7 named, another commit named, only a range (skipped
# commits), or BAD did not fail. Prints one line per bisection and the tally.
set -u
build=$(cd "${1:-build}" && pwd)
times=${2:-10}
plant=${3:-30}
instr=${4:-}
case $instr in '' | instructions) ;; *) echo "usage: $0 [BUILD_DIR] [TIMES] [PLANT_PCT] [instructions]" >&2; exit 2 ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@example.com GIT_COMMITTER_NAME=b \
	GIT_COMMITTER_EMAIL=b@example.com GIT_CONFIG_NOSYSTEM=1 HOME="$tmp"
repo="$tmp/repo"
mkdir "$repo"
git -C "$repo" init -q -b main
printf '#!/bin/sh\nexec %s "$(cat "$(dirname "$0")/../rounds")" 2000\n' \
	"$build/targets/pt_compute" >"$repo/app.sh"
echo 70 >"$repo/rounds"
cat >"$repo/renacer.toml" <<'T'
[[target]]
name = "compute"
command = ["./build/app"]
build = "mkdir -p build && cp app.sh build/app && chmod +x build/app"
runs = 10
warmup = 1
T
[ -n "$instr" ] && echo "instructions = true" >>"$repo/renacer.toml"
printf 'build/\n' >"$repo/.gitignore"
git -C "$repo" add -A && git -C "$repo" commit -q -m "commit 1"
n=2
while [ $n -le 12 ]; do
	echo "$n" >>"$repo/NOTES"
	[ $n = 7 ] && awk -v p="$plant" 'BEGIN { printf "%g\n", 70 * (1 + p / 100) }' >"$repo/rounds"
	git -C "$repo" add -A && git -C "$repo" commit -q -m "commit $n"
	n=$((n + 1))
done
first=$(git -C "$repo" rev-list --max-parents=0 main)
h7=$(git -C "$repo" log --format='%H %s' | awk '/ commit 7$/ {print substr($1, 1, 12)}')

named7=0 other=0 range=0 none=0 i=1
while [ $i -le "$times" ]; do
	start=$(date +%s)
	(cd "$repo" && "$build/renacer" bisect -q "$first" main >"$tmp/out" 2>"$tmp/err")
	rc=$?
	secs=$(($(date +%s) - start))
	steps=$(grep -c '^  \[[0-9]*\]' "$tmp/out")
	skips=$(grep -c '^  \[[0-9]*\] [0-9a-f]* skip' "$tmp/out")
	counted=$(grep -c '^  \[[0-9]*\] [0-9a-f]* .* -- decided by [^ ]*/baseline:instructions' "$tmp/out")
	if grep -q "^first bad commit: $h7" "$tmp/out"; then
		what="commit 7"
		named7=$((named7 + 1))
	elif grep -q "^first bad commit:" "$tmp/out"; then
		what="other: $(sed -n 2p "$tmp/out")"
		other=$((other + 1))
	elif grep -q "is one of" "$tmp/out"; then
		what="range"
		range=$((range + 1))
	else
		what="not found (exit $rc)"
		none=$((none + 1))
	fi
	printf 'bisect %2d: %-20s exit %d, %d comparisons (%d skipped, %d decided by instructions), %d s\n' \
		"$i" "$what" "$rc" "$steps" "$skips" "$counted" "$secs"
	# why each skipped commit was skipped, cut to one screen line
	grep '^  \[[0-9]*\] [0-9a-f]* skip' "$tmp/out" | cut -c1-160 | sed 's/^/    /'
	i=$((i + 1))
done
printf '+%s%% at commit 7: named commit 7 in %d of %d, another commit %d, a range %d, none %d\n' \
	"$plant" "$named7" "$times" "$other" "$range" "$none"
