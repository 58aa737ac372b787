#!/bin/sh
# golden-paths.sh BINARY_DIR - GitHub annotations of golden-trace regressions name
# the golden file relative to the repository root when the config sits in a subdirectory:
# with GITHUB_WORKSPACE, and without it (the git toplevel above the file), whether renacer
# runs from the repository root or from the subdirectory.
# Exit 77 (skip) when the ptrace collector is unavailable here.
set -eu

bin=$(cd "$1" && pwd)
renacer=$bin/renacer
work=$bin/targets/example_work
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rn-ghpaths.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
repo=$tmp/repo
mkdir -p "$repo/perf/ci" "$repo/.git"

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# The golden records 5 fsync calls; the check then runs with 50.
write_config() {
	cat >"$repo/perf/ci/renacer.toml" <<EOT
[[target]]
name = "work"
command = ["$work", "$1"]
[golden]
dir = "golden_traces"
EOT
}
write_config 5
set +e
(cd "$repo" && "$renacer" golden update --config perf/ci/renacer.toml >"$tmp/update.out" 2>&1)
rc=$?
set -e
if [ "$rc" = 5 ]; then
	echo "SKIP: the ptrace collector is unavailable here" >&2
	exit 77
fi
[ "$rc" = 0 ] || { cat "$tmp/update.out" >&2; fail "golden update: exit $rc"; }
[ -f "$repo/perf/ci/golden_traces/work.json" ] || fail "no golden written"
write_config 50

# check_in DIR CONFIG WORKSPACE: renacer check --github from DIR; stdout in $tmp/out.
check_in() {
	set +e
	(cd "$1" && env -u GITHUB_WORKSPACE ${3:+GITHUB_WORKSPACE="$3"} \
		GITHUB_STEP_SUMMARY="$tmp/summary" GITHUB_OUTPUT="$tmp/output" \
		RENACER_GITHUB_REPORT="$tmp/report" \
		"$renacer" check --github --no-color --config "$2" >"$tmp/out" 2>"$tmp/err")
	rc=$?
	set -e
	[ "$rc" = 1 ] || { cat "$tmp/err" >&2; fail "check from $1: exit $rc, expected 1"; }
	grep -q '^::error file=perf/ci/golden_traces/work.json,' "$tmp/out" || {
		cat "$tmp/out" >&2
		fail "check from $1 (workspace '${3:-}'): the golden annotation is not repository-relative"
	}
	grep -q 'perf/ci/golden\\_traces/work.json' "$tmp/summary" || {
		cat "$tmp/summary" >&2
		fail "check from $1: the summary does not name perf/ci/golden_traces/work.json"
	}
}
check_in "$repo" perf/ci/renacer.toml "$repo"
check_in "$repo/perf/ci" renacer.toml "$repo"
check_in "$repo" perf/ci/renacer.toml ""
check_in "$repo/perf" ci/renacer.toml ""
echo "ok: golden annotations are relative to the repository root"
