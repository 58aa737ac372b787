#!/bin/sh
# regenerate.sh BINARY_DIR SOURCE_DIR - ci/regenerate-golden.sh as a user runs it: from
# a scratch repository under /tmp (not renacer's tree), with renacer found on PATH or through
# RENACER=path, a relative config path in a subdirectory, and a diff table in the report's
# units (ms, never raw ns). Exit 77 (skip) when the ptrace collector is unavailable here.
set -eu

bin=$(cd "$1" && pwd)
srcdir=$(cd "$2" && pwd)
script=$srcdir/ci/regenerate-golden.sh
work=$bin/targets/example_work
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rn-regen.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
repo=$tmp/repo
mkdir -p "$repo/perf" "$tmp/bin"
ln -s "$bin/renacer" "$tmp/bin/renacer"
unset CI GITHUB_ACTIONS GITLAB_CI JENKINS_URL RENACER || true

fail() {
	echo "FAIL: $*" >&2
	[ -f "$tmp/out" ] && sed 's/^/  | /' "$tmp/out" >&2
	exit 1
}

write_config() {
	cat >"$repo/perf/renacer.toml" <<EOT
[[target]]
name = "work"
command = ["$work", "$1"]
runs = 2
EOT
}

# First recording, renacer from PATH, the config named relative to the repository root.
write_config 5
set +e
(cd "$repo" && PATH="$tmp/bin:$PATH" sh "$script" perf/renacer.toml >"$tmp/out" 2>&1)
rc=$?
set -e
if [ "$rc" != 0 ] && grep -q "collector 'ptrace' is unavailable\|ptrace.*not permitted" "$tmp/out"; then
	echo "SKIP: the ptrace collector is unavailable here" >&2
	exit 77
fi
[ "$rc" = 0 ] || fail "first recording: exit $rc"
[ -f "$repo/perf/golden_traces/work.json" ] || fail "no golden at perf/golden_traces/work.json"
grep -q "new golden trace" "$tmp/out" || fail "the table does not announce the new golden"

# Second recording with more work, renacer through RENACER=path and no renacer on PATH, run
# from the config's own directory with the default config name.
write_config 40
set +e
(cd "$repo/perf" && PATH=/usr/bin:/bin RENACER="$bin/renacer" sh "$script" >"$tmp/out" 2>&1)
rc=$?
set -e
[ "$rc" = 0 ] || fail "second recording: exit $rc"
grep -q "syscall fsync" "$tmp/out" || fail "the table lacks the fsync change"
grep -Eq "^  wall_time +[0-9]+\.[0-9]{3} ms +[0-9]+\.[0-9]{3} ms" "$tmp/out" ||
	fail "wall_time is not in ms"
if grep -E "^  (wall_time|cpu_time|critical_path) " "$tmp/out" | grep -vq " ms "; then
	fail "a time metric is shown without ms"
fi
grep -Eq "^  [a-z_]+ +[0-9]{7,} +[0-9]{7,} " "$tmp/out" && fail "raw nanoseconds in the table"

# A program's own spans (renacer_span.h, collector "app"): their durations and their thread
# CPU time each get a line, in ms, old and new (recorded twice, "solve" doing twice the work).
for units in 4 8; do
	cat >"$repo/perf/renacer.toml" <<EOT
[[target]]
name = "work"
command = ["$bin/targets/sp_work", "2", "$units", "2"]
collectors = ["ptrace", "app"]
runs = 2
EOT
	set +e
	(cd "$repo" && PATH="$tmp/bin:$PATH" sh "$script" perf/renacer.toml >"$tmp/out" 2>&1)
	rc=$?
	set -e
	[ "$rc" = 0 ] || fail "span recording ($units units): exit $rc"
done
for m in span_time:app:solve span_cpu:app:solve; do
	grep -Eq "^  $m +[0-9]+\.[0-9]{3} ms +[0-9]+\.[0-9]{3} ms" "$tmp/out" ||
		fail "the table lacks $m in ms"
done

# Nothing to run: a clear error, not a build of renacer.
if PATH=/usr/bin:/bin command -v renacer >/dev/null 2>&1; then
	echo "ok: regenerate-golden.sh from a scratch repository (renacer installed: no missing case)"
	exit 0
fi
set +e
(cd "$repo" && PATH=/usr/bin:/bin sh "$script" perf/renacer.toml >"$tmp/out" 2>&1)
rc=$?
set -e
[ "$rc" = 2 ] || fail "without renacer: exit $rc, expected 2"
grep -q "RENACER=" "$tmp/out" || fail "without renacer: the error does not mention RENACER"
echo "ok: regenerate-golden.sh from a scratch repository"
