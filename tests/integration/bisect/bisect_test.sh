#!/bin/sh
# Integration tests of `renacer bisect GOOD BAD`: a repository of 12 commits whose target is
# built by its `build` key; commit 7 triples the target's getppid calls (a count plant, so
# the verdicts are exact and no timing decides).
#
#     bisect_test.sh CASE BUILD_DIR C_COMPILER
#
# names_commit7     the count plant: commit 7 named, with its FAIL rows and the Markdown
# no_regression     no plant: exit 0, nothing to bisect
# bad_revs          BAD before GOOD, an unknown GOOD: exit 2
# instructions_cpu  instructions = true and a CPU plant (+30% rounds at commit 7): the
#                   baseline:instructions row decides every step (named on each), time rows
#                   that cannot decide skip nothing, the comparisons after BAD run one
#                   timing pair a side, and the [ratchet] is not compared
#
# Exit 0 = pass, 1 = fail, 77 = skipped.
set -u
case_name=$1
build=$2
cc=$3
renacer="$build/renacer"
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT

fail() {
	echo "FAIL: $case_name: $*" >&2
	[ -f "$tmp/err" ] && sed 's/^/  | /' "$tmp/err" >&2
	[ -f "$tmp/out" ] && sed 's/^/  > /' "$tmp/out" >&2
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

# commits 2..12 after commit 1; commit PLANT runs `$1 "$repo/app.c" $3` (else $2)
commits() {
	n=2
	while [ $n -le 12 ]; do
		echo "$n" >>"$repo/NOTES"
		[ "$n" = "$plant" ] && "$1" "$repo/app.c" "$2"
		gitrepo_commit "$repo" "${subject:-}commit $n" || fail "commit $n"
		n=$((n + 1))
	done
}

# commit N: the 12 commits; commit PLANT (7 unless given) triples the calls.
# make_repo PLANT [SUBJECT]: commit N's subject is "SUBJECT commit N" ("commit N" by default).
make_repo() {
	plant=$1
	subject=${2:-}
	gitrepo_init "$repo" || fail "git init"
	getppid_app "$repo/app.c" 200
	cat >"$repo/renacer.toml" <<T
[[target]]
name = "app"
command = ["./build/app"]
build = "mkdir -p build && '$cc' -O1 -o build/app app.c"
runs = 3

[regression]
timing = false
count_tolerance = 0.03
count_floor = 0
T
	printf 'build/\n' >"$repo/.gitignore"
	gitrepo_commit "$repo" "commit 1" || fail "commit 1"
	commits getppid_app 600
}

# The CPU plant: 4 million rounds, 5.2 million from commit 7 on (+30% instructions), with
# instructions = true; the time rows measured as usual (a few pairs: they cannot decide a
# step). [ratchet] names the release: bisect must not compare with it.
make_cpu_repo() {
	plant=7
	subject=
	gitrepo_init "$repo" || fail "git init"
	spin_app "$repo/app.c" 4000000
	cat >"$repo/renacer.toml" <<T
[[target]]
name = "app"
command = ["./build/app"]
build = "mkdir -p build && '$cc' -O1 -o build/app app.c"
runs = 3
instructions = true

[regression]
max_runs = 6

[ratchet]
reference = "release"
budget = 5
T
	printf 'build/\n' >"$repo/.gitignore"
	gitrepo_commit "$repo" "commit 1" || fail "commit 1"
	git -C "$repo" tag release
	commits spin_app 5200000
}

# hash of commit N
hash_of() {
	gitrepo_hash "$repo" "$1"
}

case $case_name in
names_commit7)
	make_repo 7
	(cd "$repo" && "$renacer" bisect --markdown "$tmp/bisect.md" "$(hash_of 1)" main \
		>"$tmp/out" 2>"$tmp/err")
	rc=$?
	[ $rc = 1 ] || fail "expected exit 1 (a regression found), got $rc"
	h7=$(hash_of 7)
	grep -q "^first bad commit: $(echo "$h7" | cut -c1-12)" "$tmp/out" ||
		fail "commit 7 ($h7) not named first bad"
	grep -q "FAIL app/baseline:syscall" "$tmp/out" || fail "no FAIL row explains it"
	grep -q "getppid" "$tmp/out" || fail "the explanation does not name getppid"
	grep -q "^# renacer bisect: first bad commit \`$(echo "$h7" | cut -c1-12)\`" \
		"$tmp/bisect.md" || fail "the Markdown does not name commit 7"
	grep -q '^| 1 |' "$tmp/bisect.md" || fail "the Markdown lists no steps"
	# binary search: BAD, then at most ceil(log2(11)) = 4 more comparisons
	steps=$(grep -c '^  \[[0-9]*\]' "$tmp/out")
	[ "$steps" -le 5 ] || fail "$steps comparisons for 11 candidates"
	# every checkout removed, and the repository's worktree list is as before
	[ -z "$(ls -A "$tmp/t")" ] || fail "left behind in TMPDIR: $(ls -A "$tmp/t")"
	[ "$(git -C "$repo" worktree list | wc -l)" = 1 ] || fail "a worktree is left registered"
	;;
hostile_subjects)
	# A commit's subject is anyone's text: in the console its controls are escaped, in the
	# Markdown it mentions no one, opens no HTML comment and breaks no table or fence.
	make_repo 7 "$(printf '@org/team @alice <!-- x | \140\140\140 \033[2J\007 ')"
	(cd "$repo" && "$renacer" bisect --markdown "$tmp/bisect.md" "$(hash_of 1)" main \
		>"$tmp/out" 2>"$tmp/err")
	rc=$?
	[ $rc = 1 ] || fail "expected exit 1 (a regression found), got $rc"
	grep -q "$(printf '\033')\\|$(printf '\007')" "$tmp/out" "$tmp/err" "$tmp/bisect.md" &&
		fail "a raw ESC or BEL was written"
	grep -q '\\e\[2J\\x07 commit 7' "$tmp/out" ||
		fail "the console does not show the subject escaped"
	grep -q '@org\|@alice\|[^\]<!--' "$tmp/bisect.md" &&
		fail "a mention or an HTML comment in the Markdown"
	grep -q '^| [0-9]* | `[0-9a-f]*` | @.org/team @.alice \\<!-- x \\| \\`\\`\\`' \
		"$tmp/bisect.md" || fail "the subject is not one escaped table cell"
	;;
no_regression)
	make_repo 0
	(cd "$repo" && "$renacer" bisect "$(hash_of 1)" main >"$tmp/out" 2>"$tmp/err")
	rc=$?
	[ $rc = 0 ] || fail "expected exit 0 (BAD does not fail), got $rc"
	grep -q "nothing to bisect" "$tmp/out" || fail "no 'nothing to bisect'"
	[ -z "$(ls -A "$tmp/t")" ] || fail "left behind in TMPDIR: $(ls -A "$tmp/t")"
	;;
bad_revs)
	make_repo 7
	(cd "$repo" && "$renacer" bisect main "$(hash_of 1)" >"$tmp/out" 2>"$tmp/err")
	rc=$?
	[ $rc = 2 ] || fail "BAD before GOOD: expected exit 2, got $rc"
	grep -q "BAD must descend from GOOD" "$tmp/err" || fail "no reason given"
	(cd "$repo" && "$renacer" bisect nosuchref main >"$tmp/out" 2>"$tmp/err")
	rc=$?
	[ $rc = 2 ] || fail "unknown GOOD: expected exit 2, got $rc"
	grep -q "'nosuchref' is not a commit" "$tmp/err" || fail "unknown ref not named"
	;;
instructions_cpu)
	command -v valgrind >/dev/null 2>&1 || {
		echo "SKIP: no valgrind" >&2
		exit 77
	}
	make_cpu_repo
	(cd "$repo" && "$renacer" bisect -v --markdown "$tmp/bisect.md" "$(hash_of 1)" main \
		>"$tmp/out" 2>"$tmp/err")
	rc=$?
	[ $rc = 1 ] || fail "expected exit 1 (a regression found), got $rc"
	h7=$(hash_of 7 | cut -c1-12)
	grep -q "^first bad commit: $h7" "$tmp/out" || fail "commit 7 ($h7) not named first bad"
	grep -q "^# renacer bisect: first bad commit \`$h7\`" "$tmp/bisect.md" ||
		fail "the Markdown does not name commit 7"
	grep -q "FAIL app/baseline:instructions" "$tmp/out" || fail "no instructions FAIL row"
	# BAD's count decides; each step says so, none is skipped, no time row decides
	grep -q "deciding on app/baseline:instructions" "$tmp/err" ||
		fail "BAD's instruction row does not decide"
	grep -q "deciding on .*baseline:\(cpu_time\|wall_time\)" "$tmp/err" &&
		fail "a time row decides beside the count"
	steps=$(grep -c '^  \[[0-9]*\]' "$tmp/out")
	by=$(grep -c '^  \[[0-9]*\] [0-9a-f]* \(good\|bad\) .* -- decided by app/baseline:instructions \(PASS\|FAIL\)' "$tmp/out")
	[ "$steps" -ge 4 ] && [ "$steps" -le 5 ] || fail "$steps comparisons for 11 candidates"
	[ "$by" = "$steps" ] || fail "$by of $steps steps say the instruction count decided"
	n=$(grep -c '| decided by app/baseline:instructions' "$tmp/bisect.md")
	[ "$n" = "$steps" ] || fail "the Markdown names the deciding row on $n of $steps steps"
	# two Valgrind runs a comparison (one a side), and no comparison with the [ratchet]
	n=$(grep -c "counting instructions under Valgrind" "$tmp/err")
	[ "$n" = $((2 * steps)) ] || fail "$n Valgrind runs for $steps comparisons"
	grep -q "ratchet" "$tmp/err" && fail "a comparison ran the [ratchet]"
	# no deciding row is timed: after BAD each comparison ran one timing pair a side
	grep -q "deciding on .*no deciding row is timed: one timing pair a side" "$tmp/err" ||
		fail "the deciding line does not say the later comparisons run one pair"
	n=$(sed -n '/deciding on/,$p' "$tmp/err" | grep -c "app vs base: 1 timing pair,")
	[ "$n" = $((steps - 1)) ] ||
		fail "$n of $((steps - 1)) comparisons after BAD ran one timing pair"
	[ -z "$(ls -A "$tmp/t")" ] || fail "left behind in TMPDIR: $(ls -A "$tmp/t")"
	;;
*)
	fail "unknown case"
	;;
esac
exit 0
