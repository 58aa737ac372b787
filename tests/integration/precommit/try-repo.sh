#!/bin/sh
# try-repo.sh BINARY_DIR SOURCE_DIR - renacer's pre-commit hooks
# (.pre-commit-hooks.yaml) run by the real pre-commit, with `pre-commit try-repo` against a
# scratch copy of the repository that has the hooks file committed, and BINARY_DIR/renacer on
# PATH:
#
#   renacer-validate  passes on a good renacer.toml; fails on a broken one, printing the config
#                     error with its location; is skipped when renacer.toml is not among the
#                     files
#   renacer-check     runs (passes) when golden_traces/ or renacer.toml change; skipped else
#   renacer-check-code  runs on any staged change (a C file, a jq program), building first
#                     (the target's `build` runs once); fails when the build fails
#
# pre-commit keeps its cache in PRE_COMMIT_HOME and wants a HOME: both point into a scratch
# directory. Exit 77 when pre-commit is not installed (Debian: apt-get install pre-commit).
set -eu

bin=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
if ! command -v pre-commit >/dev/null 2>&1; then
	echo "SKIP: pre-commit is not installed" >&2
	exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rn-precommit.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# A clean, private environment for git and pre-commit; no GitHub mode from an outer CI job.
mkdir -p "$tmp/home" "$tmp/bin"
export HOME="$tmp/home" PRE_COMMIT_HOME="$tmp/pre-commit" XDG_CACHE_HOME="$tmp/cache"
export GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=renacer GIT_AUTHOR_EMAIL=renacer@localhost
export GIT_COMMITTER_NAME=renacer GIT_COMMITTER_EMAIL=renacer@localhost
unset GITHUB_ACTIONS GITHUB_OUTPUT GITHUB_STEP_SUMMARY PRE_COMMIT_COLOR 2>/dev/null || true
ln -s "$bin/renacer" "$tmp/bin/renacer"
PATH="$tmp/bin:$PATH"
export PATH

# The hooks repository: the hooks file committed (try-repo clones HEAD).
hooks=$tmp/hooks
mkdir "$hooks"
cp "$src/.pre-commit-hooks.yaml" "$hooks/"
git -C "$hooks" init -q
git -C "$hooks" add .pre-commit-hooks.yaml
git -C "$hooks" commit -q -m "renacer hooks"

# The project the hooks run in.
proj=$tmp/project
mkdir -p "$proj/golden_traces"
git -C "$proj" init -q
cat >"$proj/renacer.toml" <<EOF
[[target]]
name = "work"
command = ["$bin/targets/example_work", "2"]

[[assertion]]
name = "fsync_budget"
type = "span_count"
max_spans = 1000
span_name_pattern = "f(data)?sync"
EOF
echo "notes" >"$proj/README.md"
echo "{}" >"$proj/golden_traces/notes.txt"
git -C "$proj" add renacer.toml README.md golden_traces/notes.txt

# try HOOK ARGS...: pre-commit try-repo in the project; output in $out, status in $rc.
try() {
	hook=$1
	shift
	set +e
	out=$(cd "$proj" && pre-commit try-repo --color never "$hooks" "$hook" "$@" 2>&1)
	rc=$?
	set -e
}
show() {
	printf '%s\n' "$out" >&2
}

try renacer-validate --all-files
[ "$rc" = 0 ] || { show; fail "validate on a good config: exit $rc"; }
printf '%s\n' "$out" | grep -q '^renacer validate\.*Passed$' || { show; fail "validate did not pass"; }

try renacer-validate --files README.md
[ "$rc" = 0 ] || { show; fail "validate on README.md: exit $rc"; }
printf '%s\n' "$out" | grep -q '^renacer validate\.*(no files to check)Skipped$' ||
	{ show; fail "validate was not skipped for README.md"; }

# renacer-check runs for golden_traces/ and is skipped for other files.
try renacer-check --files README.md
printf '%s\n' "$out" | grep -q '^renacer check\.*(no files to check)Skipped$' ||
	{ show; fail "check was not skipped for README.md"; }
try renacer-check --files golden_traces/notes.txt
if printf '%s\n' "$out" | grep -q 'Skipped'; then
	show
	fail "check was skipped for a golden_traces/ file"
fi
if printf '%s\n' "$out" | grep -q 'collector .* is unavailable'; then
	echo "note: ptrace is unavailable here; renacer-check ran but could not pass" >&2
elif [ "$rc" != 0 ]; then
	show
	fail "check on a passing config: exit $rc"
fi

# renacer-check-code: a staged change rebuilds (the target's `build`) and checks; a failing
# build fails the hook before anything runs.
cat >"$proj/renacer.toml" <<EOF
[[target]]
name = "work"
command = ["./work_bin", "2"]
build = "cp '$bin/targets/example_work' work_bin && echo built >>build.log"

[[assertion]]
name = "fsync_budget"
type = "span_count"
max_spans = 1000
span_name_pattern = "f(data)?sync"
EOF
echo "int main(void) { return 0; }" >"$proj/work.c"
echo '.items | map(.cost) | add' >"$proj/cost.jq"
git -C "$proj" add renacer.toml work.c cost.jq
try renacer-check-code --files work.c
if printf '%s\n' "$out" | grep -q 'collector .* is unavailable'; then
	echo "note: ptrace is unavailable here; renacer-check-code ran but could not pass" >&2
elif [ "$rc" != 0 ]; then
	show
	fail "check-code on a code change: exit $rc"
fi
[ "$(cat "$proj/build.log" 2>/dev/null)" = built ] || { show; fail "check-code did not build once"; }
# Any tracked file the targets may read triggers it, not a list of extensions: a script in a
# language pre-commit has no type for (a jq program) is code too.
try renacer-check-code --files cost.jq
printf '%s\n' "$out" | grep -q 'Skipped' && { show; fail "check-code was skipped for cost.jq"; }
[ "$(grep -c built "$proj/build.log")" = 2 ] || { show; fail "check-code did not run for cost.jq"; }
sed -i 's/^build = .*/build = "exit 3"/' "$proj/renacer.toml"
git -C "$proj" add renacer.toml
try renacer-check-code --files work.c
[ "$rc" = 1 ] || { show; fail "check-code with a failing build: exit $rc, expected 1"; }
printf '%s\n' "$out" | grep -qF "target 'work': build command failed (exit 3): exit 3" ||
	{ show; fail "the build failure is not shown"; }
cat >"$proj/renacer.toml" <<EOF
[[target]]
name = "work"
command = ["$bin/targets/example_work", "2"]

[[assertion]]
name = "fsync_budget"
type = "span_count"
max_spans = 1000
span_name_pattern = "f(data)?sync"
EOF
git -C "$proj" add renacer.toml

# A broken config: the hook fails and shows the error with its location.
cat >>"$proj/renacer.toml" <<'EOF'
treshold = 0.5
EOF
git -C "$proj" add renacer.toml
try renacer-validate --all-files
[ "$rc" = 1 ] || { show; fail "validate on a broken config: exit $rc, expected 1"; }
printf '%s\n' "$out" | grep -q '^renacer validate\.*Failed$' || { show; fail "validate did not fail"; }
printf '%s\n' "$out" |
	grep -qF "renacer.toml:10:1: error: unknown key 'treshold' in [[assertion]] 'fsync_budget'" ||
	{ show; fail "the config error is not shown"; }

echo "ok: pre-commit $(pre-commit --version | cut -d' ' -f2) runs renacer-validate, renacer-check-code and renacer-check"
