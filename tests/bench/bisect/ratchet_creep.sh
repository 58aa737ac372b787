#!/bin/sh
# Ratchet benchmark: eight commits of +STEP% CPU work each after a release; each is checked as a
# pull request against the commit before it (check --baseline, the default 3% tolerance) with
# [ratchet] reference = the release (a git ref: renacer checks it out and builds it) and
# budget = 5. Expected: every pull-request gate passes (no FAIL), and the ratchet fails from
# the fourth commit on (+6.1% cumulative at STEP 1.5; the third is +4.6%).
#
#     tests/bench/bisect/ratchet_creep.sh [BUILD_DIR] [STEP_PCT] [RUNS] [instructions]
#                                                 defaults: build, 1.5, 10, time rows only
#
# `instructions` as the fourth argument sets `instructions = true` on the target: both
# comparisons then add an instruction-count row (Valgrind once per side: head, base,
# reference), printed beside the time rows, and the ratchet's first FAIL counts any ratchet row.
# The target is pt_compute R 2000 with R = 70 * (1 + STEP/100)^k at commit k (about 70 ms of
# computing at the release). Prints per commit the verdicts of the time rows of both
# comparisons (the primary's, cpu_time, wall_time), the exit code and the seconds taken.
set -u
build=$(cd "${1:-build}" && pwd)
step=${2:-1.5}
runs=${3:-10}
instr=${4:-}
case $instr in '' | instructions) ;; *) echo "usage: $0 [BUILD_DIR] [STEP_PCT] [RUNS] [instructions]" >&2; exit 2 ;; esac
tmp=$(mktemp -d)
trap 'git -C "$tmp/repo" worktree prune 2>/dev/null; rm -rf "$tmp"' EXIT
export GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@example.com GIT_COMMITTER_NAME=b \
	GIT_COMMITTER_EMAIL=b@example.com GIT_CONFIG_NOSYSTEM=1 HOME="$tmp"
repo="$tmp/repo"
mkdir "$repo"
git -C "$repo" init -q -b main
printf '#!/bin/sh\nexec %s "$(cat "$(dirname "$0")/../rounds")" 2000\n' \
	"$build/targets/pt_compute" >"$repo/app.sh"
echo 70 >"$repo/rounds"
buildcmd="mkdir -p build && cp app.sh build/app && chmod +x build/app"
cat >"$repo/renacer.toml" <<T
[[target]]
name = "compute"
command = ["./build/app"]
build = "$buildcmd"
runs = $runs
warmup = 1
$([ -n "$instr" ] && echo "instructions = true")

[ratchet]
reference = "v1"
budget = 5
T
printf 'build/\n' >"$repo/.gitignore"
git -C "$repo" add -A && git -C "$repo" commit -q -m release && git -C "$repo" tag v1
k=1
while [ $k -le 8 ]; do
	awk -v p="$step" -v k=$k 'BEGIN { printf "%.4f\n", 70 * (1 + p / 100) ^ k }' >"$repo/rounds"
	git -C "$repo" commit -q -am "commit $k"
	k=$((k + 1))
done

# verdict ROW: the console table's verdict of row ROW of the last check (a long name is cut
# to its start and "...", as baseline:instruct... is)
verdict() {
	awk -v r="$1" '($2 == r || ($2 ~ /[.][.][.]$/ && index(r, substr($2, 1, length($2) - 3)) == 1)) &&
		$3 !~ /:$/ { print $3; exit }' "$tmp/err"
}

printf '%-6s %-9s %-26s %-26s %4s %5s\n' commit cumul "PR cpu/wall[/instr]" \
	"ratchet cpu/wall[/instr]" exit secs
k=1
pr_fail=0 ratchet_first=
while [ $k -le 8 ]; do
	git -C "$repo" checkout -q "main~$((8 - k))"
	(cd "$repo" && sh -c "$buildcmd")
	rm -rf "$tmp/base"
	git -C "$repo" worktree prune
	git -C "$repo" worktree add -q --detach "$tmp/base" "main~$((9 - k))"
	(cd "$tmp/base" && sh -c "$buildcmd")
	start=$(date +%s)
	(cd "$repo" && "$build/renacer" check --no-color --baseline "$tmp/base" >"$tmp/out" 2>"$tmp/err")
	rc=$?
	secs=$(($(date +%s) - start))
	cumul=$(awk -v p="$step" -v k=$k 'BEGIN { printf "+%.1f%%", ((1 + p / 100) ^ k - 1) * 100 }')
	pr="$(verdict baseline:cpu_time)/$(verdict baseline:wall_time)"
	ra="$(verdict ratchet:cpu_time)/$(verdict ratchet:wall_time)"
	if [ -n "$instr" ]; then
		pr="$pr/$(verdict baseline:instructions)"
		ra="$ra/$(verdict ratchet:instructions)"
	fi
	case $pr in *FAIL*) pr_fail=$((pr_fail + 1)) ;; esac
	case $ra in *FAIL*) [ -z "$ratchet_first" ] && ratchet_first=$k ;; esac
	printf '%-6s %-9s %-26s %-26s %4d %5d\n' "$k" "$cumul" "$pr" "$ra" "$rc" "$secs"
	k=$((k + 1))
done
printf 'pull-request gates failed: %d of 8; ratchet first failed at commit %s (expected 4)\n' \
	"$pr_fail" "${ratchet_first:-none}"
