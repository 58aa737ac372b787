#!/bin/sh
# history_test.sh CASE BINARY_DIR - the history store end to end, the same suite against a
# temporary SQLite file and a real PostgreSQL cluster (created with initdb in a temporary
# directory, listening only on a unix socket in it, removed at the end).
#
# Cases:
#   suite-sqlite, suite-postgres   8 concurrent `renacer check --history` processes, then exact
#                                  row counts; show, changes, export, import, prune, report
#   roundtrip                      a SQLite store of checks (with verdicts, critical paths,
#                                  syscalls, a re-run) exported, imported into an empty
#                                  PostgreSQL database, exported again: identical documents;
#                                  a second import adds nothing; an empty database lists empty
#   quality                        the gate-quality ledger on synthetic runs: an assertion that
#                                  fails 20% of 100 re-runs of one commit by noise alone reads
#                                  a false-alarm rate within 5 points of 20%; a steady one 0;
#                                  check --rerun-of groups re-runs under the commit named
#   bad-input                      unreachable PostgreSQL, locked and corrupt SQLite files, a
#                                  schema from a newer renacer: one warning line each, the
#                                  check's verdict and exit code unchanged
# Exit 77 (skip) when PostgreSQL's server programs are not installed.
set -u
case_name=$1
bin=$2/renacer
tmp=$(mktemp -d /tmp/renacer-history.XXXXXX)
chmod 755 "$tmp"
pgdir=
cleanup() {
	if [ -n "$pgdir" ] && [ -f "$pgdir/data/postmaster.pid" ]; then
		as_pg "$pgbin/pg_ctl" -D "$pgdir/data" -m immediate -w stop >/dev/null 2>&1
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# PostgreSQL refuses to run as root: the cluster belongs to 'nobody' when we are root.
as_pg() {
	if [ "$(id -u)" = 0 ]; then
		runuser -u nobody -- "$@"
	else
		"$@"
	fi
}
pg_user() {
	if [ "$(id -u)" = 0 ]; then echo nobody; else id -un; fi
}

start_postgres() {
	pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
	if [ -z "$pgbin" ] || [ ! -x "$pgbin/initdb" ]; then
		echo "PostgreSQL server programs not found (install postgresql)" >&2
		exit 77
	fi
	pgdir=$tmp/pg
	mkdir -p "$pgdir"
	[ "$(id -u)" = 0 ] && chown nobody "$pgdir"
	as_pg "$pgbin/initdb" -D "$pgdir/data" -A trust -U "$(pg_user)" >"$tmp/initdb.log" 2>&1 ||
		{ cat "$tmp/initdb.log" >&2; fail "initdb failed"; }
	as_pg "$pgbin/pg_ctl" -D "$pgdir/data" -l "$pgdir/log" -w \
		-o "-k $pgdir -c listen_addresses= -c max_connections=50" start >/dev/null ||
		{ cat "$pgdir/log" >&2; fail "postgres did not start"; }
	url="postgresql:///postgres?host=$pgdir&user=$(pg_user)"
}

# sql QUERY: one value from the store under test.
sql() {
	if [ "$backend" = postgres ]; then
		psql -X -A -t -q "$url" -c "$1"
	else
		sqlite3 "$db" "$1"
	fi
}

write_config() {
	# $1 dir, $2 max_duration_ms of the assertion (tiny: FAIL), $3 extra [history] lines
	mkdir -p "$1"
	cat >"$1/renacer.toml" <<EOT
[[target]]
name = "true"
command = ["true"]
runs = 2

[[target]]
name = "sh_echo"
command = ["sh", "-c", "echo hi"]
runs = 2

[[assertion]]
name = "quick"
type = "critical_path"
max_duration_ms = $2

[history]
$3
EOT
}

suite() {
	work=$tmp/work
	write_config "$work" 10000 ""
	cd "$work" || exit 1
	export RENACER_HISTORY_URL="$url"
	# One check alone gives the rows per check.
	RENACER_COMMIT=base RENACER_BRANCH=main "$bin" check -q >"$tmp/one.out" 2>&1 ||
		{ cat "$tmp/one.out" >&2; fail "first check failed"; }
	per_results=$(sql "SELECT count(*) FROM results")
	per_verdicts=$(sql "SELECT count(*) FROM verdicts")
	per_cp=$(sql "SELECT count(*) FROM critical_path")
	[ "$per_results" -gt 0 ] || fail "no results rows after one check"
	[ "$per_verdicts" = 2 ] || fail "expected 2 verdict rows, got $per_verdicts"
	[ "$per_cp" -gt 0 ] || fail "no critical path rows"
	# 8 checks at once.
	pids=
	for i in 1 2 3 4 5 6 7 8; do
		RENACER_COMMIT=commit$i RENACER_BRANCH=main "$bin" check -q \
			>"$tmp/check$i.out" 2>&1 &
		pids="$pids $!"
	done
	i=0
	for p in $pids; do
		i=$((i + 1))
		wait "$p" || { cat "$tmp/check$i.out" >&2; fail "concurrent check $i failed"; }
	done
	if grep -l "warning:\|error:" "$tmp"/check*.out; then
		cat "$tmp"/check*.out >&2
		fail "a concurrent check reported a problem"
	fi
	runs=$(sql "SELECT count(*) FROM runs")
	[ "$runs" = 9 ] || fail "expected 9 runs, found $runs"
	n=$(sql "SELECT count(*) FROM results")
	[ "$n" = $((9 * per_results)) ] || fail "expected $((9 * per_results)) results, found $n"
	n=$(sql "SELECT count(*) FROM verdicts")
	[ "$n" = $((9 * per_verdicts)) ] || fail "expected $((9 * per_verdicts)) verdicts, found $n"
	n=$(sql "SELECT count(*) FROM critical_path")
	[ "$n" = $((9 * per_cp)) ] || fail "expected $((9 * per_cp)) critical path rows, found $n"
	n=$(sql "SELECT count(DISTINCT commit_sha) FROM runs")
	[ "$n" = 9 ] || fail "expected 9 distinct commits, found $n"
	n=$(sql "SELECT version FROM renacer_schema")
	[ "$n" = 6 ] || fail "schema version $n, expected 6"
	# Every check recorded its environment fingerprint (the kernel is always known).
	n=$(sql "SELECT count(*) FROM runs WHERE fingerprint LIKE '%kernel=%'")
	[ "$n" = 9 ] || fail "expected 9 runs with a fingerprint, found $n"
	# Every sample kept: each results row has nsamples = 2 values.
	n=$(sql "SELECT count(*) FROM results WHERE nsamples <> 2")
	[ "$n" = 0 ] || fail "$n results rows without 2 samples"
	# Every check brought its series' change points up to date (the next search starts there).
	n=$(sql "SELECT count(*) FROM change_points WHERE last_run = (SELECT max(id) FROM runs)")
	[ "$n" -gt 0 ] || fail "no change_points row after the last check"
	echo "ok: 8 concurrent checks: $runs runs, $((9 * per_results)) results, exact"

	# show: 9 points of the series, oldest first.
	"$bin" history show true wall_time >"$tmp/show.out" || fail "history show failed"
	[ "$(grep -c ' main ' "$tmp/show.out")" = 9 ] || { cat "$tmp/show.out"; fail "show rows"; }
	head -n 1 "$tmp/show.out" | grep -q "^true wall_time (ms), 9 runs$" ||
		{ cat "$tmp/show.out"; fail "show header"; }
	"$bin" history show --last 3 --format csv true cpu_time >"$tmp/show.csv" ||
		fail "show csv failed"
	[ "$(wc -l <"$tmp/show.csv")" = 4 ] || { cat "$tmp/show.csv"; fail "show --last 3"; }
	# a target with no recorded run: an empty series in the metric's unit, and a note
	"$bin" history show ture wall_time >"$tmp/show.out" 2>"$tmp/err" || fail "show of no runs failed"
	head -n 1 "$tmp/show.out" | grep -q "^ture wall_time (ms), 0 runs$" ||
		{ cat "$tmp/show.out"; fail "empty show header"; }
	grep -q "no recorded run has target 'ture' with metric 'wall_time'" "$tmp/err" ||
		fail "no note for a target without runs"
	"$bin" history show true no_such_metric 2>"$tmp/err" && fail "unknown metric accepted"
	grep -q "unknown metric 'no_such_metric'" "$tmp/err" || fail "unknown metric message"
	# export: one row per results row.
	"$bin" history export -o "$tmp/all.csv" || fail "export failed"
	[ "$(($(wc -l <"$tmp/all.csv") - 1))" = $((9 * per_results)) ] || fail "export row count"
	"$bin" history export --format json --target sh_echo --metric wall_time -o "$tmp/e.json" ||
		fail "export json failed"
	python3 - "$tmp/e.json" <<'EOP' || fail "export json content"
import json, sys
rows = json.load(open(sys.argv[1]))
assert len(rows) == 9, len(rows)
assert all(r["target"] == "sh_echo" and r["metric"] == "wall_time" for r in rows)
assert all(len(r["samples"]) == 2 and r["nsamples"] == 2 for r in rows)
assert all(min(r["samples"]) == r["min"] and max(r["samples"]) == r["max"] for r in rows)
EOP
	# import: a golden trace and a renacer-json-v1 file.
	"$bin" golden update -q >/dev/null 2>&1 || fail "golden update failed"
	n=$(sql "SELECT count(*) FROM runs WHERE source = 'golden'")
	[ "$n" = 2 ] || fail "golden update recorded $n runs, expected 2"
	"$bin" history import --commit imported golden_traces/true.json >"$tmp/imp.out" ||
		fail "import golden failed"
	# golden update records [golden] runs (default 10) timing runs, more than runs = 2
	grep -q "as run .* (target 'true', 10 runs)" "$tmp/imp.out" || { cat "$tmp/imp.out"; fail "import message"; }
	"$bin" history import "$src/tests/unit/assertions/golden/json_v1.json" >"$tmp/imp2.out" ||
		fail "import json-v1 failed"
	grep -q "syscall counts only" "$tmp/imp2.out" || fail "json-v1 import message"
	n=$(sql "SELECT count(*) FROM results WHERE target = 'json_v1' AND metric = 'syscalls'")
	[ "$n" = 1 ] || fail "json-v1 import stored $n syscalls rows"
	# changes runs over every series without error.
	"$bin" history changes >"$tmp/changes.out" || fail "changes failed"
	grep -q "change points\? in [0-9]* series" "$tmp/changes.out" || fail "changes summary"
	# changes: a step in a count series is one change point, its medians printed whole
	# (they read "median 10.000 -> 40.000 count").
	mkdir -p "$tmp/steps"
	for i in $(seq 1 16); do
		n=10
		[ "$i" -gt 8 ] && n=40
		python3 -c '
import json, sys
n = int(sys.argv[1])
calls = [{"name": "getpid", "args": [], "result": 1, "duration_us": 1}] * n
print(json.dumps({"version": "0.4.1", "format": "renacer-json-v1", "syscalls": calls,
                  "summary": {"total_syscalls": n, "total_time_us": n, "exit_code": 0}}))
' "$n" >"$tmp/steps/s$i.json"
		"$bin" history import --commit "step$i" --target stepper "$tmp/steps/s$i.json" \
			>/dev/null || fail "import step $i failed"
	done
	"$bin" history changes stepper syscalls >"$tmp/changes.out" || fail "changes stepper failed"
	grep -q "^stepper syscalls .*(commit step9, [^)]*): +300.0% (median 10 -> 40 count, ratio 4.000), p 0$" "$tmp/changes.out" ||
		{ cat "$tmp/changes.out"; fail "changes: the step at step9, medians whole"; }
	# report page from this store.
	"$bin" report --html "$tmp/report.html" 2>/dev/null || fail "report failed"
	grep -q '<table id="verdicts">' "$tmp/report.html" || fail "report has no verdict table"
	if grep -q 'src="http\|href="http' "$tmp/report.html"; then fail "report references the network"; fi
	# prune: backdate two runs, prune them and their rows.
	sql "UPDATE runs SET created_ns = 1000000000 WHERE id IN (1, 2)" >/dev/null
	"$bin" history prune --older-than 30 >"$tmp/prune.out" || fail "prune failed"
	grep -q "^pruned 2 runs older than 30 days$" "$tmp/prune.out" || { cat "$tmp/prune.out"; fail "prune message"; }
	n=$(sql "SELECT count(*) FROM results WHERE run_id IN (1, 2)")
	[ "$n" = 0 ] || fail "prune left $n results rows"
	echo "ok: show, export, import, changes, report, prune"
	# Without RENACER_COMMIT the commit and branch come from git.
	if command -v git >/dev/null; then
		git init -q -b trunk . && git add renacer.toml &&
			git -c user.email=t@example.org -c user.name=t commit -q -m t ||
			fail "git setup failed"
		env -u GITHUB_SHA -u GITHUB_HEAD_REF -u GITHUB_REF_NAME -u CI_COMMIT_SHA \
			-u CI_COMMIT_REF_NAME "$bin" check -q >/dev/null 2>"$tmp/git.err" ||
			{ tail -20 "$tmp/git.err" >&2; fail "git check failed"; }
		head=$(git rev-parse HEAD)
		n=$(sql "SELECT count(*) FROM runs WHERE commit_sha = '$head' AND branch = 'trunk'")
		[ "$n" = 1 ] || fail "the check did not record git's commit $head on trunk"
		# its subject and author date from git
		n=$(sql "SELECT count(*) FROM runs WHERE commit_sha = '$head' AND subject = 't' AND author_ns > 0")
		[ "$n" = 1 ] || fail "the check did not record the commit's subject and author date"
		# earlier runs whose commits git does not know are looked up once and marked ''
		# (prune removed two of the commitN runs; which ones depends on the race)
		n=$(sql "SELECT count(*) FROM runs WHERE commit_sha LIKE 'commit_' AND subject = ''")
		[ "$n" = 7 ] || fail "$n of 7 commitN runs looked up in git"
		# a run recorded without a subject gets it from git at the next check
		sql "UPDATE runs SET subject = NULL, author_ns = NULL WHERE commit_sha = '$head'" >/dev/null
		RENACER_COMMIT=other "$bin" check -q >/dev/null 2>&1 || fail "check for backfill failed"
		n=$(sql "SELECT count(*) FROM runs WHERE commit_sha = '$head' AND subject = 't' AND author_ns > 0")
		[ "$n" = 1 ] || fail "the subject was not filled in for an earlier run"
		echo "ok: commit, branch, subject and author date from git"
	fi
}

case $case_name in
suite-sqlite)
	backend=sqlite
	command -v sqlite3 >/dev/null || { echo "sqlite3 not installed" >&2; exit 77; }
	db=$tmp/store/history.db
	url=$db
	src=$3
	suite
	;;
suite-postgres)
	backend=postgres
	src=$3
	start_postgres
	suite
	;;
roundtrip)
	start_postgres
	work=$tmp/rt
	write_config "$work" 10000 ""
	# a span_count assertion makes counting runs: per-syscall rows
	cat >>"$work/renacer.toml" <<EOT

[[assertion]]
name = "few_opens"
type = "span_count"
span_name_pattern = "openat"
max_spans = 100000
EOT
	cd "$work" || exit 1
	db=$tmp/rt.db
	export RENACER_HISTORY_URL="$db"
	# An empty PostgreSQL database lists as empty (exit 0) and exports an empty document.
	"$bin" history --db "$url" list >"$tmp/list.out" 2>&1 || { cat "$tmp/list.out"; fail "empty list exit $?"; }
	[ "$(wc -l <"$tmp/list.out")" = 1 ] && grep -q "^RUN " "$tmp/list.out" ||
		{ cat "$tmp/list.out"; fail "empty list output"; }
	"$bin" history --db "$url" export --format history >"$tmp/empty.json" || fail "empty export"
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d=={"format":"renacer-history/1","runs":[]}, d' \
		"$tmp/empty.json" || fail "empty export content"
	for i in 1 2 3; do
		RENACER_COMMIT=c$i RENACER_BRANCH=main "$bin" check -q >/dev/null 2>&1 || fail "check $i"
	done
	RENACER_COMMIT=c3 RENACER_BRANCH=main "$bin" check -q --rerun-of c3 >/dev/null 2>&1 ||
		fail "re-run check"
	# one subject with quotes and a newline-free unicode name, to carry every kind of field
	sqlite3 "$db" "UPDATE runs SET subject = 'fix \"quoted\" <b>', author_ns = 1700000000000000000 WHERE commit_sha = 'c2'"
	# an explanation kept with run c2 (a check profiles only where perf events are allowed)
	sqlite3 "$db" "INSERT INTO explanations (run_id, target, assertion, text, svg_path,
		svg_hash, head_path, head_hash, head_folded) SELECT id, 'true', 'golden:wall_time',
		'1. +9.00 ms on CPU in f', '/x/true.diff.svg', '0123456789abcdef', '/x/true.head.folded',
		'fedcba9876543210', 'main;f 10' FROM runs WHERE commit_sha = 'c2'"
	"$bin" history --db "$db" export --format history -o "$tmp/a.json" || fail "export sqlite"
	python3 - "$tmp/a.json" <<'EOP' || fail "export content"
import json, sys
d = json.load(open(sys.argv[1]))
runs = d["runs"]
assert d["format"] == "renacer-history/1" and len(runs) == 4, len(runs)
assert all(r["results"] and r["verdicts"] and r["critical_path"] and r["syscalls"] for r in runs)
assert [r["rerun_of"] for r in runs].count("c3") == 1
assert len({r["uid"] for r in runs}) == 4
assert any(s["syscall"] == "execve" for s in runs[0]["syscalls"]), runs[0]["syscalls"][:3]
assert all("kernel=" in (r.get("fingerprint") or "") for r in runs), [r.get("fingerprint") for r in runs]
ex = [e for r in runs for e in r["explanations"]]
assert len(ex) == 1 and ex[0]["head_folded"] == "main;f 10" and ex[0]["base_folded"] is None, ex
EOP
	"$bin" history --db "$url" import "$tmp/a.json" >"$tmp/imp.out" || fail "import into postgres"
	grep -q "4 runs added, 0 already in the store" "$tmp/imp.out" || { cat "$tmp/imp.out"; fail "import message"; }
	"$bin" history --db "$url" export --format history -o "$tmp/b.json" || fail "export postgres"
	cmp "$tmp/a.json" "$tmp/b.json" || { diff "$tmp/a.json" "$tmp/b.json" | head -20; fail "export differs after import"; }
	# Idempotent: the same file again adds nothing; back into a fresh SQLite store: identical.
	"$bin" history --db "$url" import "$tmp/a.json" >"$tmp/imp.out" || fail "second import"
	grep -q "0 runs added, 4 already in the store" "$tmp/imp.out" || { cat "$tmp/imp.out"; fail "second import message"; }
	"$bin" history --db "$tmp/back.db" import "$tmp/b.json" >/dev/null || fail "import into sqlite"
	"$bin" history --db "$tmp/back.db" export --format history -o "$tmp/c.json" || fail "export back"
	cmp "$tmp/a.json" "$tmp/c.json" || fail "sqlite -> postgres -> sqlite differs"
	# A results export is not a store export: one line saying what to use instead.
	"$bin" history --db "$db" export --format json -o "$tmp/flat.json" || fail "flat export"
	"$bin" history --db "$tmp/back.db" import "$tmp/flat.json" 2>"$tmp/err" && fail "flat import accepted"
	grep -q "export --format history" "$tmp/err" || { cat "$tmp/err"; fail "flat import message"; }
	# A file that breaks check's input rules is an input error naming the place (exit 2),
	# never a database error (exit 6), and adds nothing.
	python3 - "$tmp/a.json" "$tmp/bad.json" <<'EOP' || fail "bad document"
import json, sys
d = json.load(open(sys.argv[1]))
d["runs"][0]["uid"] = "new-uid"
d["runs"][0]["results"][1]["target"] = "a\nb"
json.dump(d, open(sys.argv[2], "w"))
EOP
	"$bin" history --db "$tmp/back.db" import "$tmp/bad.json" >/dev/null 2>"$tmp/err"
	rc=$?
	[ "$rc" = 2 ] || { cat "$tmp/err"; fail "bad import: exit $rc, expected 2"; }
	grep -q 'bad.json: runs\[0\].results\[1\].target: "a\\nb" must match' "$tmp/err" ||
		{ cat "$tmp/err"; fail "bad import message"; }
	[ "$(sqlite3 "$tmp/back.db" "SELECT count(*) FROM runs WHERE uid = 'new-uid'")" = 0 ] ||
		fail "bad import added a run"
	# CSV cells that a spreadsheet would evaluate are neutralized (a leading single quote)
	sqlite3 "$db" "UPDATE runs SET branch = '=HYPERLINK(\"x\")' WHERE commit_sha = 'c2'"
	"$bin" history --db "$db" export -o "$tmp/f.csv" || fail "csv export"
	"$bin" history --db "$db" show --format csv true wall_time >"$tmp/f2.csv" || fail "csv show"
	python3 - "$tmp/f.csv" "$tmp/f2.csv" <<'EOP' || fail "csv formulas"
import csv, sys
for path in sys.argv[1:]:
    rows = list(csv.DictReader(open(path, newline="")))
    branches = {r["branch"] for r in rows}
    assert "'=HYPERLINK(\"x\")" in branches, (path, branches)
    assert not any(v[:1] in "=+-@\t\r" and v for r in rows for k, v in r.items()
                   if k not in ("median", "min", "max")), path
EOP
	echo "ok: sqlite -> postgres -> sqlite round trip identical, import idempotent, empty lists empty"
	;;
quality)
	command -v sqlite3 >/dev/null || { echo "sqlite3 not installed" >&2; exit 77; }
	db=$tmp/q.db
	# 20 commits checked once, then 100 re-runs of one commit, for 10 targets (noise seeds).
	# "flaky" observes N(100, 10) against a budget of 108.4162 (P(FAIL) = P(z > 0.8416) =
	# 0.20: the truth); "steady" observes N(50, 1) against 100. Sampling alone spreads the
	# FAIL share of 100 runs by 4 points (sd), so each target's rate must equal its own runs'
	# share exactly, and against the truth: the median within 5 points, 7 of 10 too.
	python3 - "$tmp/q.json" "$tmp/q.truth" <<'EOP' || fail "generator"
import json, random, sys
runs, truth = [], {}
def run(i, t, commit, rnd, fails):
    verdicts = []
    for name, mu, sd, budget in (("flaky", 100, 10, 108.4162), ("steady", 50, 1, 100)):
        o = rnd.gauss(mu, sd)
        if commit == "rerun" and name == "flaky":
            fails.append(o > budget)
        verdicts.append({"target": t, "assertion": name, "type": "critical_path",
                         "verdict": "FAIL" if o > budget else "PASS", "observed": o,
                         "budget": budget, "golden": None, "unit": "ms", "message": ""})
    return {"uid": "q%s-%04d" % (t, i), "created_ns": 1700000000000000000 + i * 10**9,
            "commit": commit, "branch": "main", "machine": "m", "machine_desc": "m",
            "source": "check", "config": "renacer.toml", "renacer_version": "t",
            "exit_code": 0, "subject": None, "author_ns": None, "rerun_of": None,
            "results": [], "verdicts": verdicts, "critical_path": [], "syscalls": []}
for seed in range(10):
    rnd, t, fails = random.Random(seed), "t%d" % seed, []
    for i in range(120):
        runs.append(run(i, t, "c%02d" % i if i < 20 else "rerun", rnd, fails))
    truth[t] = sum(fails) / len(fails)
json.dump({"format": "renacer-history/1", "runs": runs}, open(sys.argv[1], "w"))
json.dump(truth, open(sys.argv[2], "w"))
EOP
	"$bin" history --db "$db" import "$tmp/q.json" >/dev/null || fail "import synthetic runs"
	"$bin" history --db "$db" quality --format json >"$tmp/q.out" || fail "quality failed"
	python3 - "$tmp/q.out" "$tmp/q.truth" <<'EOP' || { cat "$tmp/q.out"; fail "ledger numbers"; }
import json, statistics, sys
led = json.load(open(sys.argv[1]))
share = json.load(open(sys.argv[2]))
flaky = [l for l in led if l["assertion"] == "flaky"]
steady = [l for l in led if l["assertion"] == "steady"]
assert len(flaky) == 10 and len(steady) == 10
rates = []
for f in flaky:
    assert f["runs"] == 120 and f["rerun_commits"] == 1, f
    assert abs(f["false_alarm_rate"] - share[f["target"]]) < 1e-9, (f, share[f["target"]])
    assert f["flips"] > 10 and f["overridden"] > 0, f
    assert abs(f["noise"] - 0.10) < 0.04, f  # a MAD of 100 points: sd 1.2 points
    assert f["suggested"] > 120 and f["suggested_false_alarm_rate"] <= 0.02, f
    rates.append(f["false_alarm_rate"])
within = sum(abs(r - 0.20) <= 0.05 for r in rates)
print("flaky (truth 0.20): observed false-alarm rates %s; median %.3f; %d of 10 within 5 points"
      % (" ".join("%.2f" % r for r in rates), statistics.median(rates), within))
assert abs(statistics.median(rates) - 0.20) <= 0.05 and within >= 7
for s in steady:
    assert s["fails"] == 0 and s["flips"] == 0 and s["false_alarm_rate"] == 0, s
EOP
	"$bin" history --db "$db" quality >"$tmp/q.txt" || fail "quality text"
	grep -q "^t0  *flaky  *120 " "$tmp/q.txt" || { cat "$tmp/q.txt"; fail "quality table"; }
	# check --rerun-of: a re-run of another commit counts under the commit named.
	work=$tmp/qr
	write_config "$work" 10000 ""
	cd "$work" || exit 1
	RENACER_HISTORY_URL=$db RENACER_COMMIT=c00 "$bin" check -q >/dev/null 2>&1 || fail "check"
	RENACER_HISTORY_URL=$db RENACER_COMMIT=local-edit "$bin" check -q --rerun-of c00 \
		>/dev/null 2>&1 || fail "check --rerun-of"
	n=$(sqlite3 "$db" "SELECT count(*) FROM runs WHERE rerun_of = 'c00'")
	[ "$n" = 1 ] || fail "--rerun-of not recorded ($n)"
	"$bin" history --db "$db" quality true --format json >"$tmp/q2.out" || fail "quality target"
	python3 -c 'import json,sys; l=json.load(open(sys.argv[1])); assert l and all(x["target"]=="true" and x["rerun_commits"]==1 for x in l), l' \
		"$tmp/q2.out" || { cat "$tmp/q2.out"; fail "re-run not grouped"; }
	echo "ok: gate-quality ledger"
	;;
import-signal)
	# SIGTERM or SIGINT during history import: the file's transaction is rolled back, the
	# store is closed cleanly (no -wal or -shm journal left) and renacer exits 143 or 130
	# itself (it was killed by the signal, journal left behind). The signal is sent once the
	# import has opened its transaction (the journal exists).
	command -v sqlite3 >/dev/null || { echo "sqlite3 not installed" >&2; exit 77; }
	python3 - "$bin" "$tmp" <<'EOP' || fail "import under a signal"
import json, os, signal, subprocess, sys, time
renacer, tmp = sys.argv[1:3]
def run(i):
    return {"uid": "u%d" % i, "created_ns": 1700000000000000000 + i, "commit": "c",
            "branch": "b", "machine": "m", "machine_desc": "m", "source": "check",
            "config": "x", "renacer_version": "t", "exit_code": 0, "subject": None,
            "author_ns": None, "rerun_of": None, "results": [], "critical_path": [],
            "syscalls": [], "verdicts": [{"target": "t", "assertion": "a%d" % k,
                                          "type": "critical_path", "verdict": "PASS",
                                          "observed": 1.0, "budget": 2.0, "golden": None,
                                          "unit": "ms", "message": ""} for k in range(10)]}
doc = tmp + "/big.json"
json.dump({"format": "renacer-history/1", "runs": [run(i) for i in range(20000)]}, open(doc, "w"))
for sig, code in ((signal.SIGTERM, 143), (signal.SIGINT, 130)):
    db = "%s/s%d.db" % (tmp, sig)
    p = subprocess.Popen(["env", "--default-signal=INT,TERM", renacer, "history", "--db", db,
                          "import", doc], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    for _ in range(3000):
        if os.path.exists(db + "-wal") or os.path.exists(db + "-journal") or p.poll() is not None:
            break
        time.sleep(0.01)
    assert p.poll() is None, "the import ended before the signal"
    time.sleep(0.05)
    p.send_signal(sig)
    err = p.communicate()[1].decode()
    assert p.returncode == code, "%s: exit %r, expected %d: %s" % (sig.name, p.returncode, code, err)
    assert "interrupted: nothing of it imported" in err, err
    left = [f for f in os.listdir(tmp) if f.startswith(os.path.basename(db) + "-")]
    assert not left, "journal left: %s" % left
    n = subprocess.run(["sqlite3", db, "SELECT count(*) FROM runs"], capture_output=True,
                       text=True).stdout.strip()
    assert n == "0", "%s runs imported" % n
    print("%s: exit %d, nothing imported, no journal left" % (sig.name, code))
EOP
	;;
bad-input)
	work=$tmp/bad
	write_config "$work" 10000 "busy_timeout_ms = 300"
	cd "$work" || exit 1
	unset RENACER_HISTORY_URL
	# expect_check NAME EXIT PATTERN: the check exits EXIT and warns once, matching PATTERN.
	expect_check() {
		"$bin" check --no-color >"$tmp/out" 2>&1
		rc=$?
		[ "$rc" = "$2" ] || { cat "$tmp/out" >&2; fail "$1: exit $rc, expected $2"; }
		n=$(grep -c "history: not recorded" "$tmp/out")
		[ "$n" = 1 ] || { cat "$tmp/out" >&2; fail "$1: $n history warnings, expected 1"; }
		grep "history: not recorded" "$tmp/out" | grep -q "$3" ||
			{ cat "$tmp/out" >&2; fail "$1: warning does not say '$3'"; }
		grep "history: not recorded" "$tmp/out"
	}
	# Unreachable PostgreSQL (nothing listens on port 1).
	RENACER_HISTORY_URL="postgresql://renacer@127.0.0.1:1/none?connect_timeout=2" \
		expect_check unreachable 0 "cannot connect"
	# The same with a failing assertion: still exit 1, not 6.
	write_config "$work" 0.000001 "busy_timeout_ms = 300"
	RENACER_HISTORY_URL="postgresql://renacer@127.0.0.1:1/none?connect_timeout=2" \
		expect_check unreachable-fail 1 "cannot connect"
	write_config "$work" 10000 "busy_timeout_ms = 300"
	# Corrupt SQLite file.
	mkdir -p .renacer
	head -c 8192 /dev/urandom >.renacer/history.db
	expect_check corrupt 0 "not a database"
	rm -f .renacer/history.db*
	# No store yet: list exits 6, names the store once and says how one is recorded.
	"$bin" history list 2>"$tmp/err" && fail "history list without a store exited 0"
	[ "$(grep -o "history.db" "$tmp/err" | wc -l)" = 1 ] || fail "store named twice: $(cat "$tmp/err")"
	grep -q "no history store yet (checks record one with a \[history\] table" "$tmp/err" ||
		fail "no-store message: $(cat "$tmp/err")"
	# A schema from a newer renacer.
	"$bin" check -q >/dev/null 2>&1 || fail "check to create the store failed"
	sqlite3 .renacer/history.db "UPDATE renacer_schema SET version = 99"
	expect_check newer-schema 0 "schema version 99 is newer than this renacer supports (6)"
	"$bin" history list 2>"$tmp/err" && fail "history list read a newer schema"
	grep -q "schema version 99 is newer" "$tmp/err" || fail "history list message"
	[ "$(wc -l <"$tmp/err")" = 1 ] || fail "history list printed more than one line"
	rm -f .renacer/history.db*
	# A store locked by another writer for longer than busy_timeout_ms.
	"$bin" check -q >/dev/null 2>&1 || fail "check to create the store failed"
	python3 -c '
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
c.execute("ROLLBACK")
' .renacer/history.db 30 >"$tmp/lock.out" &
	locker=$!
	i=0
	until grep -q locked "$tmp/lock.out" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 100 ] || fail "the locking process did not start"
		sleep 0.1
	done
	expect_check locked 0 "database is locked"
	kill "$locker" 2>/dev/null
	wait "$locker" 2>/dev/null
	# A store of schema 3 (before uid, subject, syscalls and change_points) that this user may
	# not write: read as it is, nothing migrated, every reader works.
	rm -f .renacer/history.db*
	"$bin" check -q >/dev/null 2>&1 || fail "check to create the store failed"
	sqlite3 .renacer/history.db "DROP INDEX runs_uid; DROP INDEX runs_commit; DROP INDEX results_run;
		ALTER TABLE runs DROP COLUMN uid; ALTER TABLE runs DROP COLUMN subject;
		ALTER TABLE runs DROP COLUMN author_ns; ALTER TABLE runs DROP COLUMN rerun_of;
		DROP TABLE syscalls; DROP TABLE change_points; UPDATE renacer_schema SET version = 3;
		PRAGMA journal_mode = DELETE;" >/dev/null || fail "making a schema 3 store failed"
	chmod 444 .renacer/history.db
	chmod 555 .renacer
	as_reader() {
		if [ "$(id -u)" = 0 ]; then runuser -u nobody -- "$@"; else "$@"; fi
	}
	as_reader "$bin" history list >"$tmp/v3.out" 2>&1 || { cat "$tmp/v3.out"; fail "list of a read-only schema 3 store"; }
	grep -q "check" "$tmp/v3.out" || { cat "$tmp/v3.out"; fail "list of a schema 3 store shows no run"; }
	as_reader "$bin" history export --format history >"$tmp/v3.json" 2>"$tmp/v3.err" ||
		{ cat "$tmp/v3.err"; fail "export of a read-only schema 3 store"; }
	grep -q '"uid": "local-' "$tmp/v3.json" || fail "export of a schema 3 store: no local- uid"
	as_reader "$bin" history quality >/dev/null 2>"$tmp/v3.err" ||
		{ cat "$tmp/v3.err"; fail "quality of a read-only schema 3 store"; }
	mkdir -p "$tmp/page" && chmod 777 "$tmp/page"
	as_reader "$bin" report --html "$tmp/page/v3.html" 2>"$tmp/v3.err" ||
		{ cat "$tmp/v3.err"; fail "report page of a read-only schema 3 store"; }
	grep -q '<table id="verdicts">' "$tmp/page/v3.html" || fail "page of a schema 3 store has no verdicts"
	[ "$(sqlite3 .renacer/history.db "SELECT version FROM renacer_schema")" = 3 ] ||
		fail "a reader migrated a store it may not write"
	chmod 755 .renacer
	chmod 644 .renacer/history.db
	echo "ok: bad input leaves verdicts and exit codes alone; an old read-only store is read"
	;;
*)
	fail "unknown case $case_name"
	;;
esac
exit 0
