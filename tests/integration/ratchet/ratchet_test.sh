#!/bin/sh
# Integration tests of the release ratchet: a repository whose release v1 makes 1000 getppid
# calls and whose eight later commits add 1.5% each (1015, 1030, ... 1126). Each commit is
# checked as a pull request against the one before it (check --baseline, count_tolerance 3%),
# with [ratchet] reference = v1, budget = 5: every baseline:* row passes, and ratchet:* fails
# from the fourth commit on (+6.1%; the third is +4.6%).
#
#     ratchet_test.sh CASE BUILD_DIR C_COMPILER
#
# creep          the reference is the git ref v1 (renacer checks it out and builds it)
# creep_dir      the reference is a directory the test built (commits 3 and 4 only), and
#                --no-ratchet leaves it out
# bad_reference  a reference that is neither a directory nor a commit: exit 3, named
# instructions   instructions = true and CPU work +1.5% a commit (6 million rounds at v1):
#                baseline:instructions passes every pull request at 3%, ratchet:instructions
#                fails from the fourth commit on at budget 5, Valgrind once per side (the
#                head's count of the pull-request comparison serves the ratchet too)
#
# Exit 0 = pass, 1 = fail, 77 = skipped.
set -u
case_name=$1
build=$2
cc=$3
renacer="$build/renacer"
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || { git -C "$tmp/repo" worktree prune 2>/dev/null; rm -rf "$tmp"; }' EXIT

fail() {
	echo "FAIL: $case_name: $*" >&2
	[ -f "$tmp/err" ] && sed 's/^/  | /' "$tmp/err" >&2
	exit 1
}

command -v git >/dev/null 2>&1 || {
	echo "SKIP: no git" >&2
	exit 77
}
"$renacer" trace -c -o /dev/null -- /bin/true >/dev/null 2>&1 || {
	echo "SKIP: cannot trace here" >&2
	exit 77
}

# shellcheck source=../gitrepo.sh
. "$(dirname "$0")/../gitrepo.sh"
gitrepo_env "$tmp"
repo="$tmp/repo"
buildcmd="mkdir -p build && '$cc' -O1 -o build/app app.c"

# the release and commits 1..8 of `$1 "$repo/app.c" N` with N the rest of the arguments
creep() {
	make=$1
	shift
	gitrepo_commit "$repo" "release" || fail "commit"
	git -C "$repo" tag v1
	k=1
	for n in "$@"; do
		"$make" "$repo/app.c" "$n"
		gitrepo_commit "$repo" "commit $k: $n" || fail "commit $k"
		k=$((k + 1))
	done
}

# reference: the [ratchet] reference as written
make_repo() {
	gitrepo_init "$repo" || fail "git init"
	getppid_app "$repo/app.c" 1000
	cat >"$repo/renacer.toml" <<T
[[target]]
name = "app"
command = ["./build/app"]
build = "$buildcmd"
runs = 3

[regression]
timing = false
count_tolerance = 0.03
count_floor = 0

[ratchet]
reference = "$1"
budget = 5
T
	printf 'build/\n' >"$repo/.gitignore"
	creep getppid_app 1015 1030 1046 1061 1077 1093 1110 1126
}

# 6 million rounds at v1, +1.5% a commit (6090000 = 6000000 x 1.015, ...), instructions =
# true, the time rows SKIP (timing = false: the counts alone, exact)
make_cpu_repo() {
	gitrepo_init "$repo" || fail "git init"
	spin_app "$repo/app.c" 6000000
	cat >"$repo/renacer.toml" <<T
[[target]]
name = "app"
command = ["./build/app"]
build = "$buildcmd"
runs = 3
instructions = true

[regression]
timing = false

[ratchet]
reference = "v1"
budget = 5
T
	printf 'build/\n' >"$repo/.gitignore"
	creep spin_app $(awk 'BEGIN { for (k = 1; k <= 8; k++) printf "%d ", 6e6 * 1.015 ^ k }')
}

# pr K: check commit K as a pull request against commit K-1; sets $rc, output in $tmp/err
pr() {
	git -C "$repo" checkout -q "main~$((8 - $1))" || fail "checkout $1"
	(cd "$repo" && sh -c "$buildcmd") || fail "build head $1"
	rm -rf "$tmp/base"
	git -C "$repo" worktree prune
	git -C "$repo" worktree add -q --detach "$tmp/base" "main~$((9 - $1))" || fail "base $1"
	(cd "$tmp/base" && sh -c "$buildcmd") || fail "build base $1"
	(cd "$repo" && "$renacer" check --baseline "$tmp/base" >"$tmp/out" 2>"$tmp/err")
	rc=$?
}

# row NAME VERDICT: the console's row NAME reads VERDICT
row() {
	grep -E "^ *(app +)?$1 .*$2|$2 .*$1" "$tmp/err" >/dev/null ||
		grep -q "$1.*$2" "$tmp/err" || fail "commit $k: no $2 row $1"
}

case $case_name in
creep)
	make_repo v1
	k=1
	while [ $k -le 8 ]; do
		pr $k
		grep -q "ratchet:syscalls" "$tmp/err" || fail "commit $k: no ratchet:syscalls row"
		grep "baseline:syscalls" "$tmp/err" | grep -q PASS ||
			fail "commit $k: the pull-request gate did not pass"
		if [ $k -le 3 ]; then
			[ $rc = 0 ] || fail "commit $k (+$((15 * k))%%0): expected exit 0, got $rc"
			grep "ratchet:syscalls" "$tmp/err" | grep -q PASS ||
				fail "commit $k: ratchet:syscalls did not pass"
		else
			[ $rc = 1 ] || fail "commit $k: expected exit 1 (ratchet), got $rc"
			grep "ratchet:syscalls" "$tmp/err" | grep -q FAIL ||
				fail "commit $k: ratchet:syscalls did not fail"
		fi
		k=$((k + 1))
	done
	# the reference's checkout is removed after each check
	[ -z "$(ls -A "$tmp/t")" ] || fail "left behind in TMPDIR: $(ls -A "$tmp/t")"
	[ "$(git -C "$repo" worktree list | wc -l)" = 2 ] ||
		fail "worktrees left: $(git -C "$repo" worktree list)"
	;;
creep_dir)
	make_repo ../ref
	git -C "$repo" worktree add -q --detach "$tmp/ref" v1 || fail "ref"
	(cd "$tmp/ref" && sh -c "$buildcmd") || fail "build ref"
	for k in 3 4; do
		pr $k
		if [ $k = 3 ]; then
			[ $rc = 0 ] || fail "commit 3: expected exit 0, got $rc"
		else
			[ $rc = 1 ] || fail "commit 4: expected exit 1, got $rc"
			grep "ratchet:syscalls" "$tmp/err" | grep -q FAIL ||
				fail "commit 4: ratchet:syscalls did not fail"
		fi
	done
	# --no-ratchet: head against base only (as renacer bisect compares its commits)
	(cd "$repo" && "$renacer" check --baseline "$tmp/base" --no-ratchet >"$tmp/out" \
		2>"$tmp/err")
	rc=$?
	[ $rc = 0 ] || fail "commit 4 with --no-ratchet: expected exit 0, got $rc"
	grep -q "ratchet:" "$tmp/err" && fail "--no-ratchet: a ratchet row is left"
	grep -q "baseline:syscalls" "$tmp/err" || fail "--no-ratchet: no baseline row"
	;;
bad_reference)
	make_repo nosuchref
	pr 1
	[ $rc = 3 ] || fail "expected exit 3, got $rc"
	grep -q "\[ratchet\] reference 'nosuchref' is neither a directory nor a commit" \
		"$tmp/err" || fail "the reference is not named"
	;;
instructions)
	command -v valgrind >/dev/null 2>&1 || {
		echo "SKIP: no valgrind" >&2
		exit 77
	}
	make_cpu_repo
	k=1
	while [ $k -le 8 ]; do
		pr $k
		grep "baseline:instructions" "$tmp/err" | grep -q PASS ||
			fail "commit $k: the pull-request gate on instructions did not pass"
		grep -q "baseline:instructions.*FAIL" "$tmp/err" &&
			fail "commit $k: the pull-request gate on instructions failed"
		if [ $k -le 3 ]; then
			[ $rc = 0 ] || fail "commit $k: expected exit 0, got $rc"
			grep "ratchet:instructions" "$tmp/err" | grep -q PASS ||
				fail "commit $k: ratchet:instructions did not pass"
		else
			[ $rc = 1 ] || fail "commit $k: expected exit 1 (ratchet), got $rc"
			grep "ratchet:instructions" "$tmp/err" | grep -q FAIL ||
				fail "commit $k: ratchet:instructions did not fail"
		fi
		# head, base and reference: one Valgrind run each
		n=$(grep -c "counting instructions under Valgrind" "$tmp/err")
		[ "$n" = 3 ] || fail "commit $k: $n Valgrind runs, expected 3 (one a side)"
		k=$((k + 1))
	done
	[ -z "$(ls -A "$tmp/t")" ] || fail "left behind in TMPDIR: $(ls -A "$tmp/t")"
	;;
*)
	fail "unknown case"
	;;
esac
exit 0
