#!/bin/sh
# Every function of runner/, collectors/, util/ and assertions/ fits a screen and a reader's
# head: at most 100 lines and a cyclomatic complexity of at most 30, as pmccabe counts them
# (column 5, lines from the opening line to the closing brace; column 1, McCabe's number with
# a switch counted once, whatever its cases). A function over either limit is split into named
# helpers (a table, a function per case) rather than exempted; no file is exempt.
#
#     ci/complexity.sh [ROOT]       check the C files of ROOT (default: this tree); prints one
#                                   line per offender, file:line: function: N lines,
#                                   complexity M (limits 100, 30)
#     ci/complexity.sh --self-test  plant an over-long and an over-complex function beside
#                                   two that sit on the limits in a scratch tree and check that
#                                   exactly the two offenders are reported
#
# Exit 0 = every function within the limits, 1 = an offender (or a failed self-test),
# 77 = pmccabe is not installed (Debian's pmccabe package; ci/install-deps.sh installs it).
set -u
MAX_LINES=100
MAX_COMPLEXITY=30
DIRS="runner collectors util assertions"

if ! command -v pmccabe >/dev/null 2>&1; then
	echo "complexity.sh: pmccabe is not installed (apt-get install pmccabe): skipped"
	exit 77
fi

# check ROOT: print the offenders of ROOT, exit 1 when there is one.
check() {
	root=$1
	cd "$root" || exit 1
	# The tracked files where ROOT is a git checkout (scratch files stay out), else every
	# .c file of the folders.
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		# The patterns go to git unexpanded (git's * matches across folders).
		set -f
		# shellcheck disable=SC2046 # one pattern per folder is the point
		files=$(git ls-files -- $(for d in $DIRS; do printf "%s/*.c " "$d"; done))
		set +f
	else
		# shellcheck disable=SC2086
		files=$(find $DIRS -name '*.c' 2>/dev/null | sort)
	fi
	if [ -z "$files" ]; then
		echo "complexity.sh: no C file under $DIRS in '$root'"
		exit 1
	fi
	n=$(echo "$files" | wc -l)
	# pmccabe: complexity, traditional complexity, statements, first line, lines,
	# "file(line): function".
	# shellcheck disable=SC2086
	out=$(pmccabe $files | awk -v ml="$MAX_LINES" -v mc="$MAX_COMPLEXITY" -F '\t' '
		$1 > mc || $5 > ml {
			where = $6
			sub(/\): .*/, "", where)
			file = where
			sub(/\([0-9]+$/, "", file)
			name = $6
			sub(/^[^)]*\): /, "", name)
			printf "%s:%s: %s: %d lines, complexity %d (limits %d, %d)\n",
				file, $4, name, $5, $1, ml, mc
		}' | sort -t: -k1,1 -k2,2n)
	if [ -n "$out" ]; then
		echo "$out"
		echo "complexity.sh: $(echo "$out" | wc -l) functions over the limits in $n files" \
			"(split them into named helpers)"
		exit 1
	fi
	echo "complexity.sh: $n files, every function within $MAX_LINES lines and" \
		"complexity $MAX_COMPLEXITY"
	exit 0
}

# A function NAME of BODY_LINES lines between its braces (BODY_LINES + 3 lines as pmccabe counts
# them, from the line of its name to the closing brace) and BRANCHES if statements (complexity
# BRANCHES + 1).
plant() {
	name=$1
	body_lines=$2
	branches=$3
	echo "int $name(int x)"
	echo "{"
	i=0
	while [ "$i" -lt "$branches" ]; do
		echo "	if (x == $i)"
		echo "		x++;"
		i=$((i + 1))
	done
	i=$((branches * 2))
	while [ "$i" -lt "$body_lines" ]; do
		echo "	x++;"
		i=$((i + 1))
	done
	echo "}"
}

self_test() {
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	mkdir -p "$tmp/runner" "$tmp/collectors" "$tmp/util" "$tmp/assertions"
	{
		plant on_the_line_limit 97 0
		plant one_line_too_long 98 0
	} >"$tmp/collectors/long.c"
	{
		plant on_the_complexity_limit 60 29
		plant one_branch_too_many 60 30
	} >"$tmp/assertions/branchy.c"
	echo "int main(void) { return 0; }" >"$tmp/util/ok.c"
	got=$(sh "$0" "$tmp")
	rc=$?
	fail=0
	if [ "$rc" != 1 ]; then
		echo "FAIL: self-test: the planted tree exited $rc, not 1"
		fail=1
	fi
	for want in \
		"collectors/long.c:101: one_line_too_long: 101 lines, complexity 1 (limits 100, 30)" \
		"assertions/branchy.c:64: one_branch_too_many: 63 lines, complexity 31 (limits 100, 30)"; do
		if ! echo "$got" | grep -qxF "$want"; then
			echo "FAIL: self-test: no line '$want' in:"
			echo "$got"
			fail=1
		fi
	done
	for ok in on_the_line_limit on_the_complexity_limit main; do
		if echo "$got" | grep -q ": $ok:"; then
			echo "FAIL: self-test: '$ok' is within the limits but was reported:"
			echo "$got"
			fail=1
		fi
	done
	[ "$fail" = 0 ] && echo "ok: self-test: the planted offenders are reported, the rest not"
	exit "$fail"
}

case ${1:-} in
--self-test) self_test ;;
'') check "$(dirname "$0")/.." ;;
*) check "$1" ;;
esac
