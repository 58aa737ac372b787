#!/bin/sh
# Integration tests of sharded checks: `renacer check --shard K/N --results FILE`,
# `renacer merge`, `renacer golden update --shard K/N`, and the sharded example workflow.
#
#     shard_test.sh CASE BUILD_DIR SOURCE_DIR
#
# The suite is 12 cheap targets (sh -c, true, false): two of them fail a span_count budget,
# one exits with an unexpected status (ERROR), the rest pass. Exit 0 = pass, 1 = fail,
# 77 = skipped.
set -u
case_name=$1
build=$2
src=$3
renacer="$build/renacer"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1

fail() {
	echo "FAIL: $case_name: $*" >&2
	[ -f "$tmp/err" ] && sed 's/^/  | /' "$tmp/err" >&2
	exit 1
}

# Run renacer with stderr captured; sets $rc.
run() {
	"$renacer" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

expect_rc() {
	[ "$rc" = "$1" ] || fail "expected exit $1, got $rc"
}

expect_err() {
	grep -q -- "$1" "$tmp/err" || fail "stderr lacks '$1'"
}

# suite N [failing]: renacer.toml with targets t01..tN; with "failing", t03 and t07 fail a
# span_count budget and t05 exits 3 (ERROR). Extra TOML lines per target from $weight_of.
suite() {
	n=$1
	mode=${2:-}
	: >renacer.toml
	i=1
	while [ "$i" -le "$n" ]; do
		name=$(printf 't%02d' "$i")
		cmd='["sh", "-c", "echo x >/dev/null"]'
		[ $((i % 4)) = 0 ] && cmd='["true"]'
		[ "$mode" = failing ] && [ "$i" = 5 ] && cmd='["sh", "-c", "exit 3"]'
		{
			echo "[[target]]"
			echo "name = \"$name\""
			echo "command = $cmd"
			[ "${weighted:-}" = 1 ] && echo "shard_weight = $((i % 5 + 1))"
			echo
		} >>renacer.toml
		i=$((i + 1))
	done
	cat >>renacer.toml <<'EOF'
[[assertion]]
name = "quick"
type = "critical_path"
max_duration_ms = 60000

[[assertion]]
name = "few_execs"
type = "span_count"
span_name_pattern = "execve"
max_spans = 5
EOF
	if [ "$mode" = failing ]; then
		cat >>renacer.toml <<'EOF'

[[assertion]]
name = "no_open"
type = "span_count"
span_name_pattern = "open.*"
max_spans = 0
targets = ["t03", "t07"]
EOF
	fi
	cat >>renacer.toml <<EOF

[golden]
dir = "$tmp/golden"
EOF
}

# names FILE...: the target names of results files, one per line.
names() {
	python3 - "$@" <<'EOF'
import json, sys
for f in sys.argv[1:]:
    for t in json.load(open(f))["targets"]:
        print(t["name"])
EOF
}

# shards N: run every shard of the current suite; results in s<k>.json, JUnit in j<k>.xml.
shards() {
	k=1
	while [ "$k" -le "$1" ]; do
		"$renacer" check -q --no-github --shard "$k/$1" --results "s$k.json" \
			--junit "j$k.xml" ${shard_flags:-} >/dev/null 2>"err$k"
		echo $? >"rc$k"
		[ -f "s$k.json" ] || { cat "err$k" >&2; fail "shard $k/$1 wrote no results"; }
		k=$((k + 1))
	done
}

# junit_shape FILE: the JUnit XML without what differs between runs (times, timestamps,
# host names, measured values in messages), one element per line.
junit_shape() {
	python3 - "$1" <<'EOF'
import re, sys, xml.etree.ElementTree as ET
def walk(e, depth):
    attrs = {k: v for k, v in e.attrib.items() if k not in ("time", "timestamp", "hostname")}
    if "message" in attrs:
        attrs["message"] = re.sub(r"[0-9.]+", "N", attrs["message"])
    print("  " * depth + e.tag + " " + " ".join("%s=%r" % kv for kv in sorted(attrs.items())))
    for c in e:
        walk(c, depth + 1)
walk(ET.parse(sys.argv[1]).getroot(), 0)
EOF
}

command -v python3 >/dev/null || { echo "skip: python3 is needed"; exit 77; }

case $case_name in
history)
	# One history entry for the merged suite, with every target's verdicts: the shards,
	# though asked to record (--history), leave it to the merge.
	suite 12 failing
	shard_flags=--history shards 3
	run merge --no-github --history s1.json s2.json s3.json
	expect_rc 4
	expect_err "history: recorded run"
	run history --config renacer.toml list
	[ "$rc" = 0 ] || fail "history list exited $rc"
	grep -q merge "$tmp/out" || fail "history list shows no merge run: $(cat "$tmp/out")"
	grep -q check "$tmp/out" && fail "history list shows a shard's check run: $(cat "$tmp/out")"
	;;
partition)
	# The union of --shard k/3 for k = 1..3 is every target exactly once, also weighted.
	for w in 0 1; do
		weighted=$w
		suite 12
		rm -f s*.json
		shards 3
		names s1.json s2.json s3.json | sort >got
		printf 't%02d\n' $(seq 1 12) >want
		cmp -s got want || { diff got want >&2; fail "weighted=$w: shards' targets are not every target once"; }
		for k in 1 2 3; do
			[ "$(cat rc$k)" = 0 ] || { cat err$k >&2; fail "weighted=$w: shard $k exited $(cat rc$k)"; }
		done
		# Each shard's JUnit holds only its own targets.
		for k in 1 2 3; do
			python3 -c "
import sys, xml.etree.ElementTree as ET
print('\n'.join(s.get('name') for s in ET.parse('j$k.xml').getroot()))" >jn
			names s$k.json >rn
			cmp -s jn rn || fail "weighted=$w: JUnit of shard $k differs from its results"
		done
	done
	# The same partition on every run (deterministic).
	weighted=0
	suite 12
	"$renacer" check -q --no-github --shard 1/3 --results first.json >/dev/null 2>&1
	names first.json >first
	"$renacer" check -q --no-github --shard 1/3 --results again.json >/dev/null 2>&1
	names again.json >second
	cmp -s first second || fail "--shard 1/3 picked different targets on a second run"
	;;
merge_equal)
	# merge of 3 shards = one unsharded check: verdicts, JUnit shape, exit code.
	for mode in failing passing; do
		suite 12 "$mode"
		"$renacer" check -q --no-github --results all.json --junit all.xml >/dev/null 2>&1
		want_rc=$?
		rm -f s*.json
		shards 3
		run merge --no-github --junit merged.xml --results merged.json s3.json s1.json s2.json
		[ "$rc" = "$want_rc" ] || fail "$mode: merge exited $rc, the unsharded check $want_rc"
		if [ "$mode" = failing ]; then
			[ "$rc" = 4 ] || fail "failing: expected exit 4 (ERROR first), got $rc"
			expect_err "t03 *no_open *FAIL"
		else
			[ "$rc" = 0 ] || fail "passing: expected exit 0, got $rc"
		fi
		expect_err "12 targets"
		junit_shape all.xml >want
		junit_shape merged.xml >got
		cmp -s want got || { diff want got >&2; fail "$mode: merged JUnit differs from the unsharded one"; }
		grep -q '<testsuite name="t12"' merged.xml || fail "$mode: no testsuite per target"
		python3 - all.json merged.json <<'EOF' || fail "$mode: merged verdicts differ"
import json, sys
def v(f):
    d = json.load(open(f))
    return [(t["name"], t["status"], len(t["runs"]), len(t.get("counting_runs", [])),
             [(x["assertion"], x["verdict"], x["unit"]) for x in t["verdicts"]])
            for t in d["targets"]]
a, b = v(sys.argv[1]), v(sys.argv[2])
if a != b:
    print(a, b, sep="\n", file=sys.stderr)
    sys.exit(1)
EOF
	done
	# A merged results file merges again (as shard 1/1) to the same verdict.
	run merge --no-github merged.json
	expect_rc 0
	;;
stable)
	# Adding a 13th target moves at most a third of the others (rendezvous hashing: none).
	suite 12
	shards 3
	for k in 1 2 3; do names s$k.json | sed "s/\$/ $k/"; done | sort >before
	suite 13
	rm -f s*.json
	shards 3
	for k in 1 2 3; do names s$k.json | sed "s/\$/ $k/"; done | sort | grep -v '^t13 ' >after
	[ "$(wc -l <after)" = 12 ] || fail "the 12 old targets are not all in the 13-target shards"
	moved=$(comm -13 before after | wc -l)
	[ "$moved" -le 4 ] || fail "$moved of 12 targets moved to another shard (at most 4 allowed)"
	[ "$moved" = 0 ] || fail "$moved targets moved; rendezvous hashing moves none"
	;;
errors)
	suite 12 failing
	shards 3
	run merge --no-github s1.json s3.json
	expect_rc 2
	expect_err "shard 2/3 is missing"
	run merge --no-github s1.json s2.json s2.json s3.json
	expect_rc 2
	expect_err "shard 2/3 is given twice: 's2.json' and 's2.json'"
	run merge --no-github
	expect_rc 2
	expect_err "no results file given"
	# Shards of a different split or suite.
	"$renacer" check -q --no-github --shard 1/2 --results h1.json >/dev/null 2>&1
	run merge --no-github h1.json s2.json s3.json
	expect_rc 2
	expect_err "different numbers of shards"
	cp renacer.toml full.toml
	suite 13
	"$renacer" check -q --no-github --shard 2/3 --results other.json >/dev/null 2>&1
	run merge --no-github s1.json other.json s3.json
	expect_rc 2
	expect_err "come from different suites"
	# A damaged file, and one of a future format version.
	echo '{"format": "renacer-results", "version": 99}' >future.json
	run merge --no-github s1.json future.json s3.json
	expect_rc 3
	expect_err "version 99 is not supported"
	sed 's/"FAIL"/"MAYBE"/' s1.json >odd.json
	if ! cmp -s s1.json odd.json; then
		run merge --no-github odd.json s2.json s3.json
		expect_rc 3
		expect_err "unknown verdict 'MAYBE'"
	fi
	run merge --no-github nosuch.json
	expect_rc 3
	expect_err "cannot read results file 'nosuch.json'"
	run check --shard 4/3
	expect_rc 2
	expect_err "--shard needs K/N"
	;;
golden)
	# golden update --shard writes only its shard's golden traces; the union is the set the
	# unsharded update writes, and a merge job collecting them checks against all of them.
	suite 12
	"$renacer" golden update -q >/dev/null 2>&1 || fail "unsharded golden update failed"
	ls golden >want
	shards 3
	k=1
	while [ "$k" -le 3 ]; do
		rm -rf golden
		"$renacer" golden update -q --shard "$k/3" >/dev/null 2>err || { cat err >&2; fail "golden update --shard $k/3 failed"; }
		ls golden >got
		names "s$k.json" | sed 's/$/.json/' | sort >want_k
		cmp -s got want_k || fail "golden update --shard $k/3 wrote other files than its targets'"
		mkdir -p collected && cp golden/*.json collected/
		k=$((k + 1))
	done
	ls collected >got
	cmp -s got want || fail "the shards' golden traces together differ from the unsharded set"
	rm -rf golden && mv collected golden
	rm -f s*.json
	shards 3
	run merge --no-github --junit merged.xml s1.json s2.json s3.json
	[ "$(grep -c 'name="golden_file"' merged.xml)" = 12 ] ||
		fail "the merged JUnit does not name 12 golden traces"
	grep -q "golden:syscalls" merged.xml || fail "no golden verdict in the merged JUnit"
	;;
balance_golden)
	# --shard-balance golden weighs targets by their golden durations: a slow target (0.4 s a
	# run) outweighs the 11 fast ones together, so its shard gets no other target; the split is
	# still every target exactly once.
	suite 12
	python3 - <<'EOF'
import re
t = open("renacer.toml").read()
t = t.replace('name = "t06"\ncommand = ["sh", "-c", "echo x >/dev/null"]',
              'name = "t06"\ncommand = ["sh", "-c", "sleep 0.4"]')
open("renacer.toml", "w").write(t)
EOF
	grep -q 'sleep 0.4' renacer.toml || fail "could not make t06 slow"
	"$renacer" golden update -q >/dev/null 2>&1 || fail "golden update failed"
	k=1
	while [ "$k" -le 3 ]; do
		"$renacer" check -q --no-github --no-golden --shard "$k/3" --shard-balance golden \
			--results "b$k.json" >/dev/null 2>"err$k" || [ $? = 1 ] || { cat "err$k" >&2; fail "shard $k failed"; }
		k=$((k + 1))
	done
	names b1.json b2.json b3.json | sort >got
	printf 't%02d\n' $(seq 1 12) >want
	cmp -s got want || fail "balanced shards' targets are not every target once"
	for k in 1 2 3; do
		if names "b$k.json" | grep -q '^t06$'; then
			[ "$(names "b$k.json" | wc -l)" = 1 ] ||
				fail "the slow target shares shard $k with $(names "b$k.json" | tr '\n' ' ')"
		fi
	done
	run check --shard 1/3 --shard-balance speed
	expect_rc 2
	expect_err "--shard-balance needs 'name' or 'golden'"
	;;
reports)
	# Merge writes every report: GitHub summary and outputs, OTLP file, bench JSON.
	suite 12 failing
	shards 3
	GITHUB_STEP_SUMMARY=$tmp/summary.md GITHUB_OUTPUT=$tmp/gh_out RUNNER_TEMP=$tmp \
		"$renacer" merge --github --otlp-file otlp.jsonl --bench-json bench.json \
		s1.json s2.json s3.json >gh_stdout 2>err
	rc=$?
	expect_rc 4
	grep -q '^::error .*no_open' gh_stdout || fail "no annotation for the failing assertion"
	grep -q 'result=error' gh_out || fail "GitHub output result is not error"
	grep -q 't07' summary.md || fail "the job summary lacks target t07"
	# The merged OTLP trace has the spans of an unsharded check (targets, runs, processes,
	# syscall aggregates, assertions), by name.
	"$renacer" check -q --no-github --otlp-file whole.jsonl >/dev/null 2>&1
	python3 - whole.jsonl otlp.jsonl <<'EOF' || fail "the merged OTLP spans differ from an unsharded check's"
import collections, json, re, sys
def spans(f):
    c = collections.Counter()
    for line in open(f):
        for rs in json.loads(line)["resourceSpans"]:
            for ss in rs["scopeSpans"]:
                for s in ss["spans"]:
                    c[re.sub(r"[0-9]+", "N", s["name"])] += 1
    return c
a, b = spans(sys.argv[1]), spans(sys.argv[2])
if a != b or sum(a.values()) < 12 * 5:
    print(sorted(a.items()), sorted(b.items()), sep="\n", file=sys.stderr)
    sys.exit(1)
EOF
	[ "$(python3 -c 'import json; print(len(json.load(open("bench.json"))))')" -ge 12 ] ||
		fail "the bench JSON lacks targets"
	;;
action)
	# The action's step script: each shard with RENACER_SHARD and RENACER_RESULTS, then the
	# merge with RENACER_MERGE (a glob), gives the outputs of the whole suite.
	suite 12 failing
	for k in 1 2 3; do
		RENACER=$renacer RENACER_SHARD=$k/3 RENACER_RESULTS=a$k.json RENACER_FAIL_ON=never \
			RENACER_JUNIT= GITHUB_OUTPUT=$tmp/out$k sh "$src/ci/action-run.sh" \
			>/dev/null 2>&1 || fail "shard $k: the step failed under fail-on never"
		[ -f "a$k.json" ] || fail "shard $k: no results file"
	done
	RENACER=$renacer RENACER_MERGE='a*.json' RENACER_JUNIT=merged.xml GITHUB_OUTPUT=$tmp/outm \
		sh "$src/ci/action-run.sh" >/dev/null 2>err
	rc=$?
	expect_rc 4
	grep -qx 'exit_code=4' outm || fail "the merge step's outputs lack exit_code=4"
	grep -qx 'result=error' outm || fail "the merge step's outputs lack result=error"
	grep -q '<testsuite name="t12"' merged.xml || fail "the merge step wrote no JUnit"
	;;
workflow)
	# The sharded example workflow and the action validate against GitHub Actions' schemas
	# (@action-validator/cli, installed with npm ci --prefix tests/integration/shard); a broken
	# copy must not, so the validator is known to judge.
	validator="$src/tests/integration/shard/node_modules/.bin/action-validator"
	if [ ! -x "$validator" ]; then
		echo "skip: the validator is not installed (npm ci --prefix tests/integration/shard)"
		exit 77
	fi
	wf="$src/ci/examples/renacer-sharded.yml"
	"$validator" "$wf" >out 2>&1 || { cat out >&2; fail "the sharded example workflow does not validate"; }
	"$validator" "$src/ci/action.yml" >out 2>&1 || { cat out >&2; fail "ci/action.yml does not validate"; }
	sed 's/^\(    \)runs-on:/\1runs_on:/' "$wf" >broken.yml
	"$validator" broken.yml >out 2>&1 && fail "the validator accepted a job without runs-on"
	python3 - "$wf" <<'EOF' || fail "the example's matrix and merge job do not fit together"
import re, sys, yaml
wf = yaml.safe_load(open(sys.argv[1]))
jobs = wf["jobs"]
shard, merge = jobs["check"], jobs["merge"]
n = len(shard["strategy"]["matrix"]["shard"])
assert shard["strategy"]["fail-fast"] is False, "fail-fast would cancel shards"
text = open(sys.argv[1]).read()
assert "shard: ${{ matrix.shard }}/%d" % n in text or "${{ matrix.shard }}/%d" % n in text, \
    "the shard count in the step is not the matrix size %d" % n
assert merge["needs"] == "check" or "check" in merge["needs"]
assert "always()" in merge.get("if", "") or "!cancelled()" in merge.get("if", "")
up = [s for s in shard["steps"] if s.get("uses", "").startswith("actions/upload-artifact")]
down = [s for s in merge["steps"] if s.get("uses", "").startswith("actions/download-artifact")]
assert up and down, "results must travel as artifacts"
assert "merge" in " ".join(s.get("uses", "") + s.get("run", "") + str(s.get("with", "")) for s in merge["steps"])
EOF
	;;
*)
	fail "unknown case"
	;;
esac
exit 0
