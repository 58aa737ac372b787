#!/bin/sh
# span_time on syscall spans and the configuration of span_time (tests.cmake).
#
#     spans_test.sh CASE BUILD_DIR SOURCE_DIR
#
# The target (tests/targets/sp_writes.c) makes 20 one-byte writes to /dev/null and, with a
# delay, two more into a pipe, the second of which blocks for the delay: 22 writes, one slow.
# Budgets sit far from both sides (a write to /dev/null under the tracer takes microseconds,
# the planted one 400 ms): the verdicts, not the timings, are tested. Exit 0 pass, 1 fail.
set -u
case_name=$1
build=$2
renacer="$build/renacer"
target="$build/targets/sp_writes"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() {
	echo "FAIL: $case_name: $*" >&2
	[ -f "$tmp/err" ] && sed 's/^/  | /' "$tmp/err" >&2
	exit 1
}

# config DELAY_MS ASSERTION_KEYS...: one target, one span_time assertion named "w".
config() {
	delay=$1
	shift
	{
		printf '[[target]]\nname = "w"\ncommand = ["%s", "20", "%s"]\n' "$target" "$delay"
		printf '[[assertion]]\nname = "w"\ntype = "span_time"\n'
		for kv in "$@"; do
			printf '%s\n' "$kv"
		done
	} >"$tmp/renacer.toml"
}

check() {
	"$renacer" check --config "$tmp/renacer.toml" --no-golden >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

expect() {
	[ "$rc" = "$1" ] || fail "expected exit $1, got $rc"
	shift
	for s in "$@"; do
		grep -q -- "$s" "$tmp/err" || fail "stderr lacks '$s'"
	done
}

# app_config COMMAND_JSON PARSE_BUDGET_MS [ENV]: the program's own spans, with a span_time
# budget on its "parse" span and counts of its spans.
app_config() {
	{
		printf '[[target]]\nname = "app"\ncommand = %s\n' "$1"
		printf 'collectors = ["ptrace", "app"]\nstderr = "inherit"\n'
		[ -n "${3:-}" ] && printf 'env = { %s }\n' "$3"
		printf '[[assertion]]\nname = "parse_budget"\ntype = "span_time"\n'
		printf 'span_name_pattern = "app:parse"\nmax_ms = %s\n' "$2"
		printf '[[assertion]]\nname = "in_request"\ntype = "span_count"\n'
		printf 'span_name_pattern = "app:.*"\nregion_pattern = "request"\nmax_spans = 2\n'
	} >"$tmp/renacer.toml"
}

# check_export FILE: in the OTLP export, app:parse and app:render lie under app:request, and
# app:request under the run's span (the parent of the process spans).
check_export() {
	python3 - "$1" <<'PY' || fail "OTLP export: app spans not where they belong"
import json, sys
spans = {}
for line in open(sys.argv[1]):
    for rs in json.loads(line)["resourceSpans"]:
        for ss in rs["scopeSpans"]:
            for s in ss["spans"]:
                spans.setdefault(s["name"], []).append(s)
req = spans["app:request"][0]
proc = [s for n, v in spans.items() if n.startswith("process:") for s in v]
assert proc, "no process span"
assert req.get("parentSpanId") == proc[0].get("parentSpanId"), "app:request not under the run"
for child in ("app:parse", "app:render"):
    assert spans[child][0]["parentSpanId"] == req["spanId"], child + " not under app:request"
attrs = {a["key"]: a["value"] for a in req.get("attributes", [])}
assert "thread.id" in attrs or attrs.get("http.route") == {"stringValue": "/items"}, attrs
# a renacer_span.h span carries its own CPU time, an OTLP span none
for name in ("app:request", "app:parse", "app:render"):
    a = {x["key"]: x["value"] for x in spans[name][0].get("attributes", [])}
    if a["renacer.app.source"] == {"stringValue": "renacer_span.h"}:
        assert int(a["renacer.app.cpu_ns"]["intValue"]) >= 0, (name, a)
    else:
        assert "renacer.app.cpu_ns" not in a, (name, a)
PY
}

case $case_name in
app_header)
	# renacer_span.h: request > parse (argv ms) + render, and a thread's worker span.
	app_config "[\"$build/targets/sp_app\", \"5\"]" 1000
	"$renacer" check --config "$tmp/renacer.toml" --no-golden --otlp-file "$tmp/otlp.jsonl" \
		--trace-out "$tmp/timeline.json" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	expect 0 "max of 1 spans matching /app:parse/" "2 spans matching /app:.\*/ in region /request/"
	check_export "$tmp/otlp.jsonl"
	python3 -c '
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
names = sorted(e["name"] for e in ev if e.get("cat") == "app")
assert names == ["app:parse", "app:render", "app:request", "app:worker"], names
w = [e for e in ev if e.get("name") == "app:worker"][0]
r = [e for e in ev if e.get("name") == "app:request"][0]
assert w["tid"] != r["tid"], "worker and request on one thread"
assert all(e["args"]["cpu_ns"] >= 0 for e in ev if e.get("cat") == "app"), "a slice without cpu_ns"
' "$tmp/timeline.json" || fail "timeline: app slices missing or on the wrong thread"
	app_config "[\"$build/targets/sp_app\", \"1500\"]" 1000
	check
	expect 1 "FAIL" "max of 1 spans matching /app:parse/"
	# renacer trace prints them after the run, one line each
	"$renacer" trace --collectors ptrace,app -o "$tmp/lines" -- "$build/targets/sp_app" 5 \
		2>"$tmp/err" || fail "renacer trace failed"
	[ "$(grep -c '^\[app [0-9]*/[0-9]*\] [0-9.]* app:' "$tmp/lines")" = 4 ] ||
		fail "renacer trace: not 4 app lines"
	grep -q ' app:parse <[0-9.]*> parent=request cpu=[0-9]*\.[0-9]\{6\}$' "$tmp/lines" ||
		fail "renacer trace: app:parse without its parent and CPU time"
	;;
app_otel_proto | app_otel_json)
	# An unmodified OpenTelemetry SDK program (Node.js) exporting to the receiver.
	here=$(cd "$(dirname "$0")" && pwd)
	command -v node >/dev/null 2>&1 || { echo "skip: node is not installed"; exit 77; }
	if [ ! -d "$here/node_modules/@opentelemetry/sdk-trace-base" ]; then
		echo "skip: the SDK is not installed (npm ci --prefix tests/integration/spans)"
		exit 77
	fi
	proto=http/protobuf
	[ "$case_name" = app_otel_json ] && proto=http/json
	app_config "[\"node\", \"$here/otel_app.js\", \"5\"]" 1000 \
		"OTEL_EXPORTER_OTLP_PROTOCOL = \"$proto\""
	"$renacer" check --config "$tmp/renacer.toml" --no-golden --otlp-file "$tmp/otlp.jsonl" \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
	expect 0 "max of 1 spans matching /app:parse/" "2 spans matching /app:.\*/ in region /request/"
	check_export "$tmp/otlp.jsonl"
	app_config "[\"node\", \"$here/otel_app.js\", \"1500\"]" 1000 \
		"OTEL_EXPORTER_OTLP_PROTOCOL = \"$proto\""
	check
	expect 1 "FAIL" "max of 1 spans matching /app:parse/"
	;;
witness)
	# A server reporting its request time through renacer_span.h: honest, it passes; saying
	# half the time it took, the response writes the kernel saw contradict it.
	w_config() {
		printf '[[target]]\nname = "srv"\ncommand = ["%s", "3", "60", "%s"]\n' \
			"$build/targets/sp_server" "$1"
		printf 'collectors = ["ptrace", "app"]\n'
		printf '[[assertion]]\nname = "w"\ntype = "witness"\nspan_name_pattern = "%s"\n' "$2"
		[ -n "${3:-}" ] && printf '%s\n' "$3"
	}
	w_config 1 "app:request" >"$tmp/renacer.toml"
	check
	expect 0 "PASS" "3 of 3 app spans witnessed"
	w_config 0.5 "app:request" >"$tmp/renacer.toml"
	check
	expect 1 "FAIL" "3 of 3 app spans witnessed" "beyond tolerance 20%"
	grep -q -- "-5[0-9]\.[0-9]%" "$tmp/err" || fail "the deviation is not about -50%"
	# No witness: NOT MEASURED (NO DATA), never a pass.
	w_config 1 "app:request" 'witness_pattern = "sendmmsg"' >"$tmp/renacer.toml"
	check
	expect 1 "NO DATA" "not measured: no witness syscall was made inside the matching spans"
	w_config 1 "app:nothing" >"$tmp/renacer.toml"
	check
	expect 1 "NO DATA" "not measured: no app span matched"
	;;
witness_python | witness_node)
	# Real OpenTelemetry programs (tests/bench/spans/witness_bench.sh runs them 10 times):
	# Python exporting OTLP/JSON with urllib right after each span, on the span's thread
	# (its spans name process and thread), and the Node.js SDK exporting from its event loop
	# between spans (its spans name neither). Their export to the receiver is no part of the
	# work: honest, they pass; a span that reports half its time fails.
	here=$(cd "$(dirname "$0")" && pwd)
	if [ "$case_name" = witness_node ]; then
		command -v node >/dev/null 2>&1 || { echo "skip: node is not installed"; exit 77; }
		if [ ! -d "$here/node_modules/@opentelemetry/sdk-trace-base" ]; then
			echo "skip: the SDK is not installed (npm ci --prefix tests/integration/spans)"
			exit 77
		fi
		prog="\"node\", \"$here/otel_server.js\""
	else
		command -v python3 >/dev/null 2>&1 || { echo "skip: no python3"; exit 77; }
		prog="\"python3\", \"$here/otlp_json_app.py\""
	fi
	w_config() {
		printf '[[target]]\nname = "srv"\ncommand = [%s, "4", "40", "%s"]\n' "$prog" "$1"
		printf 'collectors = ["ptrace", "app"]\nstderr = "inherit"\n'
		printf '[[assertion]]\nname = "w"\ntype = "witness"\n'
		printf 'span_name_pattern = "app:request"\n'
	}
	w_config 1 >"$tmp/renacer.toml"
	COLUMNS=400 "$renacer" check --config "$tmp/renacer.toml" --no-golden >"$tmp/out" 2>"$tmp/err"
	rc=$?
	expect 0 "PASS" "4 of 4 app spans witnessed"
	w_config 0.5 >"$tmp/renacer.toml"
	COLUMNS=400 "$renacer" check --config "$tmp/renacer.toml" --no-golden >"$tmp/out" 2>"$tmp/err"
	rc=$?
	expect 1 "FAIL" "4 of 4 app spans witnessed" "beyond tolerance 20%"
	grep -q "reported [0-9.]* ms where the kernel saw [0-9.]* ms (-[45][0-9]\.[0-9]%)" "$tmp/err" ||
		fail "the deviation is not about -50%"
	# the detail says the export was seen and left out
	grep -q "call(s) on the program's connection to the span receiver" "$tmp/err" ||
		fail "the program's export to the receiver was not left out"
	;;
app_runs_self)
	# span_time reads every counting run (their median), stat = "self" takes the children's
	# time out of a parent span (sp_app: request holds parse, PARSE_MS, and render, 2 ms)
	{
		printf '[[target]]\nname = "app"\ncommand = ["%s", "1500"]\n' "$build/targets/sp_app"
		printf 'collectors = ["ptrace", "app"]\ncounting_runs = 3\n'
		printf '[[assertion]]\nname = "self"\ntype = "span_time"\n'
		printf 'span_name_pattern = "app:request"\nstat = "self"\nmax_ms = 1000\n'
		printf '[[assertion]]\nname = "whole"\ntype = "span_time"\n'
		printf 'span_name_pattern = "app:request"\nmax_ms = 1000\n'
	} >"$tmp/renacer.toml"
	COLUMNS=400 "$renacer" check --config "$tmp/renacer.toml" --no-golden >"$tmp/out" 2>"$tmp/err"
	rc=$?
	expect 1 "FAIL app/whole: max of 1 spans matching /app:request/" \
		"(median of 3 counting runs) > budget 1000.000 ms"
	grep -q "app  *self  *PASS" "$tmp/err" || fail "the self time of request is not within 1 s"
	;;
app_cpu)
	# stat = "cpu": a span's own CPU time (renacer_span.h push/pop carry the thread's CPU
	# clock). sp_cpu's "burn" computes, its "nap" sleeps longer than burn runs: burn's CPU time
	# is at least 10x nap's, and a budget below burn's CPU time fails
	{
		printf '[[target]]\nname = "app"\ncommand = ["%s", "40", "200"]\n' \
			"$build/targets/sp_cpu"
		printf 'collectors = ["ptrace", "app"]\ncounting_runs = 3\n'
		for s in burn nap; do
			printf '[[assertion]]\nname = "%s"\ntype = "span_time"\n' "$s"
			printf 'span_name_pattern = "app:%s"\nstat = "cpu"\nmax_ms = 100000\n' "$s"
		done
		printf '[[assertion]]\nname = "tight"\ntype = "span_time"\n'
		printf 'span_name_pattern = "app:burn"\nstat = "cpu"\nmax_ms = 0.001\n'
	} >"$tmp/renacer.toml"
	COLUMNS=400 "$renacer" check --config "$tmp/renacer.toml" --no-golden >"$tmp/out" 2>"$tmp/err"
	rc=$?
	expect 1 "FAIL app/tight: cpu of 1 spans matching /app:burn/" \
		"(median of 3 counting runs) > budget 0.001 ms"
	python3 -c '
import re, sys
text = open(sys.argv[1]).read()
def cpu(name):
	m = re.search(r"cpu of 1 spans matching /app:%s/ ([0-9.]+) ms" % name, text)
	assert m, "no cpu row for " + name
	return float(m.group(1))
burn, nap = cpu("burn"), cpu("nap")
assert burn > 0 and burn >= 10 * nap, (burn, nap)
' "$tmp/err" || fail "burn's CPU time is not 10x the sleeping span's"
	;;
app_baseline)
	# span_time under --baseline: the head's parse span (120 ms) against the base's (60 ms) over
	# 5 counting runs a side grows beyond the limit (10% of the base's); the same program
	# does not fail
	for side in head base; do
		mkdir -p "$tmp/$side"
		ms=60
		[ "$side" = head ] && ms=120
		printf '#!/bin/sh\nexec "%s" %s\n' "$build/targets/sp_app" "$ms" >"$tmp/$side/app.sh"
		chmod +x "$tmp/$side/app.sh"
	done
	{
		printf '[[target]]\nname = "app"\ncommand = ["./app.sh"]\n'
		printf 'collectors = ["ptrace", "app"]\ncounting_runs = 5\nruns = 3\n'
		printf '[[assertion]]\nname = "parse"\ntype = "span_time"\n'
		printf 'span_name_pattern = "app:parse"\nmax_ms = 5000\n'
	} >"$tmp/head/renacer.toml"
	(cd "$tmp/head" && COLUMNS=400 "$renacer" check --baseline ../base >"$tmp/out" 2>"$tmp/err")
	grep -q "FAIL app/parse: .* against the base (median 6[0-9]\.[0-9]* ms over 5 runs): grew beyond the limit" \
		"$tmp/err" || fail "2x the base's parse span is not a FAIL against the base"
	cp "$tmp/base/app.sh" "$tmp/head/app.sh"
	(cd "$tmp/head" && COLUMNS=400 "$renacer" check --baseline ../base >"$tmp/out" 2>"$tmp/err")
	grep -q "app  *parse  *\(PASS\|WARN\)" "$tmp/err" || fail "the unchanged program fails"
	;;
syscall_max)
	config 0 'span_name_pattern = "write"' 'max_ms = 150'
	check
	expect 0 "PASS" "max of 20 spans matching /write/"
	config 400 'span_name_pattern = "write"' 'max_ms = 150'
	check
	expect 1 "FAIL" "max of 22 spans matching /write/" "> budget 150.000 ms" "longest: write"
	;;
syscall_count_above)
	config 0 'span_name_pattern = "write"' 'stat = "count_above"' 'threshold_ms = 150'
	check
	expect 0 "PASS" "0 of 20 spans matching /write/ took more than 150.000 ms"
	config 400 'span_name_pattern = "write"' 'stat = "count_above"' 'threshold_ms = 150' \
		'max_spans = 1'
	check
	expect 0 "PASS" "1 of 22 spans"
	config 400 'span_name_pattern = "write"' 'stat = "count_above"' 'threshold_ms = 150'
	check
	expect 1 "FAIL" "1 of 22 spans matching /write/ took more than 150.000 ms"
	;;
syscall_p95)
	# One slow write of 22: the 95th percentile (nearest rank 21 of 22) is a fast one, the
	# total holds the slow one.
	config 400 'span_name_pattern = "write"' 'stat = "p95"' 'max_ms = 150'
	check
	expect 0 "PASS" "p95 of 22 spans"
	config 400 'span_name_pattern = "write"' 'stat = "total"' 'max_ms = 150'
	check
	expect 1 "FAIL" "total of 22 spans"
	# A syscall the target never makes: a sum of zero spans is a measurement...
	config 0 'span_name_pattern = "fsync"' 'stat = "total"' 'max_ms = 1'
	check
	expect 0 "PASS" "total of 0 spans matching /fsync/"
	# ... its longest span is not.
	config 0 'span_name_pattern = "fsync"' 'max_ms = 1'
	check
	expect 1 "NO DATA" "no span matched /fsync/"
	;;
config_errors)
	config 0 'stat = "count_above"'
	check
	expect 3 "renacer.toml:4:1: error: \[\[assertion\]\] 'w' of type span_time with stat \"count_above\" needs 'threshold_ms'"
	config 0 'stat = "p95"' 'max_time_ms = 3'
	check
	expect 3 "renacer.toml:8:1: error: \[\[assertion\]\] 'w': max_time_ms is the longest span's budget"
	config 0 'threshold_ms = 3' 'max_ms = 3'
	check
	expect 3 "renacer.toml:7:1: error: \[\[assertion\]\] 'w': 'threshold_ms' applies only with stat \"count_above\""
	config 0 'span_name_pattern = "write"'
	check
	expect 3 "needs 'max_ms' or 'min_ms'"
	config 0 'stat = "p59"' 'max_ms = 3'
	check
	expect 3 "p59"
	;;
original_keys)
	# The original format's per-name budgets: the longest span and the shortest one.
	config 400 'span_name_pattern = "write"' 'max_time_ms = 150'
	check
	expect 1 "FAIL" "max of 22 spans matching /write/"
	config 0 'span_name_pattern = "write"' 'max_time_ms = 150'
	check
	expect 0 "PASS"
	config 0 'span_name_pattern = "write"' 'min_time_ms = 100'
	check
	expect 1 "FAIL" "min_time_ms 100.000"
	;;
*)
	fail "unknown case"
	;;
esac
echo "PASS: $case_name"
