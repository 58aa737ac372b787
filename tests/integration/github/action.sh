#!/bin/sh
# action.sh BINARY_DIR SOURCE_DIR - the GitHub Action (ci/action.yml) run locally:
# its YAML parses and its structure is sound, the example workflow and pre-commit config agree
# with it, and its steps run in a simulated runner (run-action.py: GITHUB_* files
# in a scratch directory) with each fail-on mode:
#
#   build      renacer built and installed from the action's checkout, passing config: step
#              green, pass; the install saved in the (simulated) actions/cache
#   warm       the same again: restored from the cache, no apt, no cmake call
#   fail       failing config: step red, result=fail, failed=1, junit and report outputs
#   never      failing config: step green, result=fail
#   warn       warning-only config: step red, result=warn; with fail-on=fail it is green
#   error      config with a typo: step red, result=error, exit-code=3
#   comment    comment=true on a pull_request event (fake gh): posts, then updates, one
#              sticky comment; a fork's pull request gets a notice, no call
#   bad input  fail-on=maybe: step red; a renacer input naming no binary: step red
#   local      ci/action-run.sh outside GitHub prints its outputs
#
# The build step runs with a `cmake` first on PATH that stands for the build of BINARY_DIR: it
# checks what the step asks for (the action's checkout as the source, RelWithDebInfo, tests
# off, the install prefix under RUNNER_TEMP), then `cmake --install`s BINARY_DIR, already
# built, under that prefix with the real cmake. The step, the cache and the installed tree are
# the action's own; renacer is not compiled a second time. RN_ACTION_BUILD=full runs the real
# build instead (minutes); RN_ACTION_BUILD=0 skips the `build` and `warm` cases. Exit 77
# without a Python that has PyYAML (Debian: python3-yaml, which pre-commit depends on) or
# without the ptrace collector.
set -eu

bin=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rn-action.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() {
	echo "FAIL: $*" >&2
	exit 1
}

py=
for candidate in python3 /usr/bin/python3; do
	if "$candidate" -c 'import yaml' 2>/dev/null; then
		# The interpreter itself, not a wrapper such as a pyenv shim (it is run 70 times).
		py=$("$candidate" -c 'import sys; print(sys.executable or "")')
		[ -x "$py" ] || py=$candidate
		break
	fi
done
if [ -z "$py" ]; then
	echo "SKIP: no python3 with PyYAML (apt-get install python3-yaml)" >&2
	exit 77
fi
sim=$src/tests/integration/github/run-action.py

# ---- Static checks --------------------------------------------------------------------------
"$py" "$sim" "$src/ci/action.yml" --check-only >/dev/null || fail "ci/action.yml is malformed"
"$py" - "$src" <<'PY' || fail "the examples disagree with the action or the hooks"
import os, re, sys, yaml

src = sys.argv[1]
action = yaml.safe_load(open(os.path.join(src, "ci/action.yml")))
inputs = set(action["inputs"])
outputs = set(action["outputs"])
wf = yaml.safe_load(open(os.path.join(src, "ci/examples/renacer.yml")))
steps = [s for job in wf["jobs"].values() for s in job["steps"]]
uses = [s.get("uses", "") for s in steps]
for want in ("actions/checkout@", "/renacer/ci@", "actions/upload-artifact@",
             "dorny/test-reporter@"):
    assert any(want in u for u in uses), f"example workflow lacks a step using {want}"
for s in steps:
    if "/renacer/ci@" in s.get("uses", ""):
        bad = set(s.get("with", {})) - inputs
        assert not bad, f"example passes inputs the action lacks: {bad}"
        rid = s.get("id")
text = open(os.path.join(src, "ci/examples/renacer.yml")).read()
for m in re.finditer(r"steps\.%s\.outputs\.([A-Za-z0-9_-]+)" % rid, text):
    assert m.group(1) in outputs, f"example reads output {m.group(1)} the action lacks"
for name in ("renacer-history.yml", "renacer-baseline.yml"):
    yaml.safe_load(open(os.path.join(src, "ci/examples", name)))
bwf = yaml.safe_load(open(os.path.join(src, "ci/examples/renacer-baseline.yml")))
for s in [s for job in bwf["jobs"].values() for s in job["steps"]]:
    if "/renacer/ci@" in s.get("uses", ""):
        bad = set(s.get("with", {})) - inputs
        assert not bad, f"baseline example passes inputs the action lacks: {bad}"
        assert "baseline" in s["with"], "baseline example does not set the baseline input"
hooks = {h["id"] for h in yaml.safe_load(open(os.path.join(src, ".pre-commit-hooks.yaml")))}
cfg = yaml.safe_load(open(os.path.join(src, "ci/examples/pre-commit-config.yaml")))
for repo in cfg["repos"]:
    for h in repo["hooks"]:
        assert h["id"] in hooks, f"pre-commit example names unknown hook {h['id']}"
PY

# The build cache's key: the commit the action's checkout stands at (not github.action_ref,
# which may be a branch), the compiler and the version. The key step's script runs in two
# scratch action checkouts: a second commit on the same branch gives another key; the same
# tree without .git (as a runner unpacks an action) a key of its files. The cold job's apt
# step installs only the gate's packages (install-deps.sh --gate).
"$py" - "$src" "$tmp/keys" <<'PY' || fail "the build cache's key does not follow the action's commit"
import os, re, subprocess, sys, yaml

src, tmp = sys.argv[1], sys.argv[2]
action = yaml.safe_load(open(os.path.join(src, "ci/action.yml")))
steps = {s.get("id"): s for s in action["runs"]["steps"]}
key = steps["cache"]["with"]["key"]
assert "action_ref" not in key, f"the cache key uses github.action_ref: {key}"
for part in ("version", "source", "compiler"):
    assert f"steps.version.outputs.{part}" in key, f"the cache key lacks {part}: {key}"
deps = [s["run"] for s in action["runs"]["steps"] if "install-deps.sh" in s.get("run", "")]
assert deps and all("install-deps.sh\" --gate" in r for r in deps), "apt step is not --gate"
script = steps["version"]["run"]

def key_of(root):
    out = os.path.join(tmp, "out")
    open(out, "w").close()
    env = dict(os.environ, GITHUB_ACTION_PATH=os.path.join(root, "ci"), GITHUB_OUTPUT=out,
               RUNNER_TEMP=tmp)
    subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
                   env=env, check=True, stdout=subprocess.DEVNULL)
    return dict(l.split("=", 1) for l in open(out).read().splitlines())

def git(root, *args):
    subprocess.run(["git", "-C", root, "-c", "user.name=t", "-c", "user.email=t@t", *args],
                   check=True, capture_output=True)

repo = os.path.join(tmp, "action")
os.makedirs(os.path.join(repo, "ci"))
open(os.path.join(repo, "CMakeLists.txt"), "w").write("project(renacer VERSION 1.2.3 LANGUAGES C)\n")
open(os.path.join(repo, "ci", "action.yml"), "w").write("name: x\n")
git(repo, "init", "-q", "-b", "main")
git(repo, "add", ".")
git(repo, "commit", "-qm", "one")
first = key_of(repo)
head = subprocess.run(["git", "-C", repo, "rev-parse", "HEAD"], capture_output=True,
                      text=True, check=True).stdout.strip()
assert first["version"] == "1.2.3" and first["source"] == head, first
assert re.fullmatch(r"[0-9a-f]{16}", first["compiler"]), first
open(os.path.join(repo, "ci", "action.yml"), "a").write("# later\n")
git(repo, "commit", "-qam", "two")
second = key_of(repo)
assert second["source"] != first["source"], "a later commit of the branch kept the key"
subprocess.run(["rm", "-rf", os.path.join(repo, ".git")], check=True)
bare = key_of(repo)
assert bare["source"].startswith("tree-") and len(bare["source"]) == 45, bare
open(os.path.join(repo, "ci", "action.yml"), "a").write("# third\n")
assert key_of(repo)["source"] != bare["source"], "a changed unpacked action kept the key"
PY

# ---- Simulated runs -------------------------------------------------------------------------
ws=$tmp/ws
mkdir -p "$ws"
config() { # config NAME MAX_SPANS FAIL_ON_VIOLATION [EXTRA]
	cat >"$ws/$1.toml" <<EOF
[[target]]
name = "work"
command = ["$bin/targets/example_work", "5"]

[[assertion]]
name = "fsync_budget"
type = "span_count"
max_spans = $2
span_name_pattern = "f(data)?sync"
fail_on_violation = $3
${4:-}
EOF
}
config pass 1000 true
config fail 1 true
config warn 1 false
config typo 1000 true 'treshold = 1'

# simulate CASE INPUTS...: run the action; the JSON report is $tmp/CASE.json.
simulate() {
	name=$1
	shift
	mkdir -p "$tmp/$name.temp"
	"$py" "$sim" "$src/ci/action.yml" --workspace "$ws" --runner-temp "$tmp/$name.temp" \
		--with install-deps=false --with "junit=$name-junit.xml" --with args=--no-golden \
		"$@" --json "$tmp/$name.json" 2>"$tmp/$name.log" || {
		cat "$tmp/$name.log" >&2
		fail "$name: the simulator failed"
	}
}
# field CASE EXPR: a value of the JSON report (python expression over `r`).
field() {
	"$py" -c "import json,sys; r=json.load(open(sys.argv[1])); S={s['id']: s for s in r['steps'] if s['id']}; print($2)" "$tmp/$1.json"
}
# is CASE EXPR WANT
is() {
	got=$(field "$1" "$2")
	if [ "$got" != "$3" ]; then
		cat "$tmp/$1.log" >&2
		fail "$1: $2 is '$got', expected '$3'"
	fi
}

# Probe: can the ptrace collector run here?
set +e
"$bin/renacer" check --no-github --no-golden --quiet --config "$ws/pass.toml" 2>"$tmp/probe"
rc=$?
set -e
if [ "$rc" = 5 ]; then
	echo "SKIP: the ptrace collector is unavailable here" >&2
	exit 77
fi
[ "$rc" = 0 ] || { cat "$tmp/probe" >&2; fail "probe: exit $rc"; }

# The stand-in for cmake (see the header); each call is logged to $tmp/cmake.log.
mkdir -p "$tmp/cmakebin"
: >"$tmp/cmake.log"
cat >"$tmp/cmakebin/cmake" <<'CMAKE'
#!/bin/sh
set -eu
echo "cmake $*" >>"$RN_CMAKE_LOG"
die() {
	echo "cmake stand-in: $*" >&2
	exit 1
}
case $1 in
-S)
	src= build= type= tests= prefix=
	while [ $# -gt 0 ]; do
		case $1 in
		-S) src=$2 && shift ;;
		-B) build=$2 && shift ;;
		-DCMAKE_BUILD_TYPE=*) type=${1#*=} ;;
		-DRN_BUILD_TESTS=*) tests=${1#*=} ;;
		-DCMAKE_INSTALL_PREFIX=*) prefix=${1#*=} ;;
		*) die "unexpected argument '$1'" ;;
		esac
		shift
	done
	[ "$(cd "$src" && pwd -P)" = "$RN_SOURCE" ] || die "source '$src' is not the checkout"
	[ "$type" = RelWithDebInfo ] || die "build type '$type'"
	[ "$tests" = OFF ] || die "RN_BUILD_TESTS '$tests'"
	case $prefix in
	"$RUNNER_TEMP"/*) ;;
	*) die "install prefix '$prefix' is not under RUNNER_TEMP" ;;
	esac
	mkdir -p "$build" && printf '%s\n' "$prefix" >"$build/prefix"
	;;
--build)
	[ -f "$2/prefix" ] || die "'$2' is not configured"
	;;
--install)
	[ -f "$2/prefix" ] || die "'$2' is not configured"
	exec "$RN_REAL_CMAKE" --install "$RN_BUILT" --prefix "$(cat "$2/prefix")"
	;;
*) die "unexpected call: $*" ;;
esac
CMAKE
chmod +x "$tmp/cmakebin/cmake"
# build_case CASE INPUTS...: simulate with the stand-in first on PATH, or the real cmake.
build_case() {
	if [ "${RN_ACTION_BUILD:-1}" = full ]; then
		simulate "$@"
	else
		real=$(command -v cmake) || fail "no cmake on PATH"
		PATH="$tmp/cmakebin:$PATH" RN_REAL_CMAKE=$real RN_BUILT=$bin \
			RN_SOURCE=$(cd "$src" && pwd -P) RN_CMAKE_LOG="$tmp/cmake.log" simulate "$@"
	fi
}

if [ "${RN_ACTION_BUILD:-1}" != 0 ]; then
	build_case build --with config=pass.toml --cache-dir "$tmp/cache"
	is build "r['failed']" False
	is build "r['outputs']['result']" pass
	is build "r['outputs']['renacer'].endswith('/renacer-install/bin/renacer')" True
	is build "[s['outcome'] for s in r['steps']]" "['success', 'success', 'success', 'skipped', 'success', 'success', 'skipped', 'success', 'skipped', 'success', 'success', 'success']"
	is build "S['cache']" "{'id': 'cache', 'name': 'Restore the renacer build', 'outcome': 'success', 'log': ''}"
	# No release package here (no gh, no release): the build is the fallback.
	is build "'no release package of v' in S['release']['log']" True
	if [ "${RN_ACTION_BUILD:-1}" != full ]; then
		# The step configured, built and installed, in that order, into the step's prefix.
		calls=$(cut -d' ' -f2 "$tmp/cmake.log" | tr '\n' ' ')
		[ "$calls" = "-S --build --install " ] ||
			{ cat "$tmp/cmake.log" >&2; fail "build: cmake calls '$calls'"; }
		inst=$tmp/build.temp/renacer-install
		[ -x "$inst/bin/renacer" ] && [ -f "$inst/share/renacer/ci/action.yml" ] ||
			fail "build: the install prefix lacks bin/renacer or share/renacer/ci/action.yml"
	fi
	# A warm job: the same version's build comes from the cache; nothing is built.
	: >"$tmp/cmake.log"
	build_case warm --with config=pass.toml --with install-deps=true --cache-dir "$tmp/cache"
	[ ! -s "$tmp/cmake.log" ] || { cat "$tmp/cmake.log" >&2; fail "warm: cmake was called"; }
	is warm "r['failed']" False
	is warm "r['outputs']['result']" pass
	is warm "S['build']['outcome']" skipped
	is warm "[s['outcome'] for s in r['steps']][2:5]" "['skipped', 'skipped', 'skipped']"
	is warm "r['outputs']['renacer'].endswith('/renacer-install/bin/renacer')" True
fi

simulate fail --with config=fail.toml --with "renacer=$bin/renacer"
is fail "r['failed']" True
is fail "S['check']['outcome']" failure
is fail "r['outputs']['result']" fail
is fail "r['outputs']['failed']" 1
is fail "r['outputs']['exit-code']" 1
is fail "r['outputs']['junit']" fail-junit.xml
is fail "r['outputs']['report'] == '$tmp/fail.temp/renacer-report.md'" True
is fail "'- ❌ FAIL **fsync\\\\_budget** · 5 calls, limit 1 call (+400.0%)' in r['summary']" True
is fail "'::error file=fail.toml,line=5,col=1,' in S['check']['log']" True
[ -s "$ws/fail-junit.xml" ] || fail "fail: no JUnit XML in the workspace"
[ -s "$tmp/fail.temp/renacer-report.md" ] || fail "fail: no report file"
# The report page: written from the history store, uploaded, linked from the summary.
is fail "r['outputs']['report-html'] == '$ws/renacer-report.html'" True
is fail "S['upload']['outcome']" success
is fail "'[renacer report page](file://$tmp/fail.temp/artifacts/renacer-report)' in r['summary']" True
grep -q '<table id="verdicts">' "$tmp/fail.temp/artifacts/renacer-report/renacer-report.html" ||
	fail "fail: the uploaded report page has no verdict table"
[ -s "$ws/.renacer/history.db" ] || fail "fail: the check was not recorded in the history store"

simulate never --with config=fail.toml --with "renacer=$bin/renacer" --with fail-on=never
is never "r['failed']" False
is never "r['outputs']['result']" fail
is never "'fail-on is never' in S['check']['log']" True

# The pull-request comment (comment: true), with a fake `gh` that logs its calls: the first run
# posts one comment starting with the marker, a later run updates the comment found by it, a
# pull request from a fork gets a notice and no call. The fake API answers the comment list
# with FAKE_GH_COMMENTS (the lines the script's --jq makes: ID, author, starts with the
# marker) and `gh api user` with FAKE_GH_LOGIN, or fails as it does for the job's
# GITHUB_TOKEN.
mkdir -p "$tmp/fakebin"
cat >"$tmp/fakebin/gh" <<'GH'
#!/bin/sh
echo "gh $*" >>"$FAKE_GH_LOG"
if [ "$1 $2" = "api user" ]; then
	[ -n "${FAKE_GH_LOGIN:-}" ] || { echo "Resource not accessible by integration" >&2; exit 1; }
	echo "$FAKE_GH_LOGIN"
	exit 0
fi
for a; do
	case $a in
	--paginate) [ -n "${FAKE_GH_COMMENTS:-}" ] && printf '%b\n' "$FAKE_GH_COMMENTS" ;;
	body=@*) cp "${a#body=@}" "$FAKE_GH_LOG.body" ;;
	esac
done
exit 0
GH
chmod +x "$tmp/fakebin/gh"
printf '{"pull_request": {"number": 42, "head": {"repo": {"fork": false, "full_name": "acme/api"}}}}' >"$tmp/pr.json"
printf '{"pull_request": {"number": 43, "head": {"repo": {"fork": true, "full_name": "eve/api"}}}}' >"$tmp/fork.json"
comment_run() { # CASE EVENT_FILE [FAKE_GH_COMMENTS [FAKE_GH_LOGIN]]
	: >"$tmp/$1.gh"
	PATH="$tmp/fakebin:$PATH" GITHUB_EVENT_NAME=pull_request GITHUB_EVENT_PATH="$2" \
		GITHUB_REPOSITORY=acme/api FAKE_GH_LOG="$tmp/$1.gh" FAKE_GH_COMMENTS="${3:-}" \
		FAKE_GH_LOGIN="${4:-}" \
		simulate "$1" --with config=fail.toml --with "renacer=$bin/renacer" --with comment=true
}
comment_run comment "$tmp/pr.json"
is comment "S['comment']['outcome']" success
grep -q '^gh api -X POST repos/acme/api/issues/42/comments -F body=@' "$tmp/comment.gh" ||
	{ cat "$tmp/comment.gh" >&2; fail "comment: no POST of the report"; }
head -n 1 "$tmp/comment.gh.body" | grep -qx '<!-- renacer-report -->' || fail "comment: no marker"
grep -q 'renacer check: failed' "$tmp/comment.gh.body" || fail "comment: the body is not the report"
comment_run update "$tmp/pr.json" '77\tgithub-actions[bot]\ttrue'
grep -q '^gh api -X PATCH repos/acme/api/issues/comments/77 -F body=@' "$tmp/update.gh" ||
	{ cat "$tmp/update.gh" >&2; fail "update: the sticky comment was not updated"; }
grep -q 'POST' "$tmp/update.gh" && fail "update: a second comment was posted"
# A comment someone else started with the marker is never taken over: a new one is posted,
# and with both, ours is the one updated.
comment_run hijack "$tmp/pr.json" '66\teve\ttrue'
grep -q 'PATCH' "$tmp/hijack.gh" && { cat "$tmp/hijack.gh" >&2; fail "hijack: eve's comment was edited"; }
grep -q '^gh api -X POST repos/acme/api/issues/42/comments' "$tmp/hijack.gh" ||
	{ cat "$tmp/hijack.gh" >&2; fail "hijack: no comment of our own"; }
comment_run both "$tmp/pr.json" '66\teve\ttrue\n70\tgithub-actions[bot]\tfalse\n77\tgithub-actions[bot]\ttrue'
grep -q '^gh api -X PATCH repos/acme/api/issues/comments/77 ' "$tmp/both.gh" &&
	[ "$(grep -c 'PATCH\|POST' "$tmp/both.gh")" = 1 ] ||
	{ cat "$tmp/both.gh" >&2; fail "both: not exactly our marked comment updated"; }
# A token of a user (a PAT or an app): that user's comment, not the bot's.
comment_run pat "$tmp/pr.json" '77\tgithub-actions[bot]\ttrue\n88\tci-bot\ttrue' ci-bot
grep -q '^gh api -X PATCH repos/acme/api/issues/comments/88 ' "$tmp/pat.gh" &&
	[ "$(grep -c 'PATCH\|POST' "$tmp/pat.gh")" = 1 ] ||
	{ cat "$tmp/pat.gh" >&2; fail "pat: not the token user's comment updated"; }
comment_run fork "$tmp/fork.json"
is fork "'comes from a fork' in S['comment']['log']" True
[ -s "$tmp/fork.gh" ] && fail "fork: gh was called for a fork's pull request"

simulate warn --with config=warn.toml --with "renacer=$bin/renacer" --with fail-on=warn
is warn "r['failed']" True
is warn "r['outputs']['result']" warn
is warn "r['outputs']['warnings']" 1
is warn "'::warning file=warn.toml,line=5,col=1,' in S['check']['log']" True

simulate warnok --with config=warn.toml --with "renacer=$bin/renacer" --with annotations=0
is warnok "r['failed']" False
is warnok "r['outputs']['result']" warn
is warnok "'::warning' in S['check']['log']" False

simulate typo --with config=typo.toml --with "renacer=$bin/renacer"
is typo "r['failed']" True
is typo "r['outputs']['result']" error
is typo "r['outputs']['exit-code']" 3
is typo "r['outputs']['failed']" 0
is typo "'treshold' in S['check']['log']" True
# Once check.c annotates config errors, the annotation must sit at the typo's line.
is typo "'::error file=typo.toml' not in S['check']['log'] or '::error file=typo.toml,line=11,col=1,' in S['check']['log']" True

simulate badinput --with config=pass.toml --with "renacer=$bin/renacer" --with fail-on=maybe
is badinput "r['failed']" True
is badinput "'fail-on must be fail, warn or never' in S['check']['log']" True

# baseline: a git repository whose head makes one more fsync than its parent commit; the
# action checks the parent out into a worktree, builds it there and passes --baseline.
repo=$ws/repo
mkdir -p "$repo/build"
cat >"$repo/app.c" <<'CSRC'
#include <fcntl.h>
#include <unistd.h>
int main(void)
{
	int fd = open("out.tmp", O_CREAT | O_WRONLY | O_TRUNC, 0644), i;

	for (i = 0; i < NFSYNC; i++)
		fsync(fd);
	close(fd);
	return unlink("out.tmp");
}
CSRC
cat >"$repo/renacer.toml" <<'TOML'
[[target]]
name = "app"
command = ["./build/app"]
runs = 3

[regression]
count_tolerance = 0.0
count_floor = 0
TOML
printf '1\n' >"$repo/nfsync"
(cd "$repo" && git init -q && git add app.c renacer.toml nfsync &&
	git -c user.name=t -c user.email=t@t commit -qm base && printf '2\n' >nfsync &&
	git -c user.name=t -c user.email=t@t commit -qam head &&
	cc -DNFSYNC="$(cat nfsync)" -o build/app app.c) || fail "baseline: cannot set up the repository"
simulate baseline --with config=renacer.toml --with "renacer=$bin/renacer" \
	--with working-directory=repo --with baseline=HEAD~1 \
	--with 'baseline-build=mkdir -p build && cc -DNFSYNC="$(cat nfsync)" -o build/app app.c'
is baseline "[s['outcome'] for s in r['steps']]" "['skipped', 'skipped', 'skipped', 'skipped', 'skipped', 'success', 'success', 'failure', 'skipped', 'success', 'success', 'success']"
is baseline "r['outputs']['result']" fail
is baseline "'fsync head 2 vs base 1 calls' in r['summary']" True

simulate nobinary --with config=pass.toml --with renacer=no/such/renacer
is nobinary "r['failed']" True
is nobinary "[s['outcome'] for s in r['steps']]" "['skipped', 'skipped', 'skipped', 'skipped', 'skipped', 'failure', 'skipped', 'skipped', 'skipped', 'skipped', 'skipped', 'skipped']"
is nobinary "'no renacer binary' in S['locate']['log']" True
is nobinary "r['outputs']['result']" ""

# ---- Local use of the check step ------------------------------------------------------------
set +e
(cd "$ws" && env -u GITHUB_ACTIONS -u GITHUB_OUTPUT -u GITHUB_STEP_SUMMARY RENACER="$bin/renacer" \
	RENACER_CONFIG=fail.toml RENACER_FAIL_ON=never "$src/ci/action-run.sh" --no-golden \
	>"$tmp/local.out" 2>"$tmp/local.err")
rc=$?
set -e
[ "$rc" = 0 ] || { cat "$tmp/local.err" >&2; fail "local fail-on=never: exit $rc"; }
grep -q '^  result=fail$' "$tmp/local.err" || { cat "$tmp/local.err" >&2; fail "local: no outputs printed"; }
grep -q '^::' "$tmp/local.out" && fail "local: workflow commands outside GitHub"

echo "ok: action structure, examples, and simulated runs"
