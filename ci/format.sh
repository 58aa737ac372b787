#!/bin/sh
# The house style of .clang-format on every C file of the repository.
#
#     ci/format.sh          check: list the files clang-format would change, exit 1 if any
#     ci/format.sh --fix    rewrite them in place
#
# Needs clang-format (Debian's clang-format package, version 14 in bookworm).
set -eu
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null 2>&1 || { echo "format.sh: clang-format is not installed (apt-get install clang-format)" >&2; exit 2; }
files=$(git ls-files '*.c' '*.h')
if [ "${1:-}" = "--fix" ]; then
	# shellcheck disable=SC2086
	clang-format -i --style=file $files
	exit 0
fi
bad=0
for f in $files; do
	if ! clang-format --style=file "$f" | cmp -s - "$f"; then
		echo "format.sh: $f differs from .clang-format (ci/format.sh --fix rewrites it)" >&2
		bad=$((bad + 1))
	fi
done
n=$(echo "$files" | wc -l)
echo "format.sh: $n files checked, $bad differ from .clang-format"
[ "$bad" = 0 ]
