#!/bin/sh
# witness_bench.sh - the bar of the witness assertion on real OpenTelemetry programs (not a
# ctest: 40 runs; tests/integration/spans/spans_test.sh checks one honest and one lying run
# of each).
#
# Two programs serve requests of WORK_MS, write each response, and report a "request" span:
#   - python: tests/integration/spans/otlp_json_app.py, OTLP/JSON over HTTP with urllib,
#     its spans carrying process.pid and thread.id (matched by thread);
#   - node: tests/integration/spans/otel_server.js, the Node.js OpenTelemetry SDK over
#     OTLP/HTTP protobuf, its spans carrying neither (matched by the exporter's process tree).
# Honest (factor 1) runs must pass `witness` ROUNDS of ROUNDS; lying ones (factor 0.5, a span
# that reports half the time it took) must fail ROUNDS of ROUNDS.
#
#     witness_bench.sh BUILD_DIR [ROUNDS] [REQUESTS] [WORK_MS]
#
# Needs node and the SDK (npm ci --prefix tests/integration/spans). Prints one line per
# program and factor ("python honest: 10 of 10 PASS"); exit 0 when every bar holds.
set -u
build=$1
rounds=${2:-10}
requests=${3:-5}
work_ms=${4:-40}
here=$(cd "$(dirname "$0")/../../integration/spans" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0

# bench NAME COMMAND_JSON_PREFIX FACTOR WANT(PASS|FAIL)
bench() {
	got=0
	i=0
	while [ "$i" -lt "$rounds" ]; do
		cat >"$tmp/renacer.toml" <<T
[[target]]
name = "$1"
command = $2 "$requests", "$work_ms", "$3"]
collectors = ["ptrace", "app"]
[[assertion]]
name = "w"
type = "witness"
span_name_pattern = "app:request"
T
		COLUMNS=400 "$build/renacer" check --config "$tmp/renacer.toml" --no-golden >"$tmp/out" \
			2>"$tmp/err"
		rc=$?
		verdict=ERROR
		[ "$rc" = 0 ] && grep -q "PASS" "$tmp/err" && verdict=PASS
		[ "$rc" = 1 ] && grep -q "FAIL $1/w" "$tmp/err" && verdict=FAIL
		[ "$verdict" = "$4" ] && got=$((got + 1))
		grep -o "the furthest, app:request, reported [0-9.]* ms where the kernel saw [0-9.]* ms ([-+0-9.]*%)" \
			"$tmp/err" | head -1 | tr -d "\n" | sed "s/^/  /" >>"$tmp/log"
		echo " $verdict" >>"$tmp/log"
		i=$((i + 1))
	done
	kind=honest
	[ "$4" = FAIL ] && kind=lying
	echo "$1 $kind: $got of $rounds $4"
	[ "$got" = "$rounds" ] || status=1
}

bench python "[\"python3\", \"$here/otlp_json_app.py\"," 1 PASS
bench python "[\"python3\", \"$here/otlp_json_app.py\"," 0.5 FAIL
if command -v node >/dev/null 2>&1 && [ -d "$here/node_modules/@opentelemetry/sdk-trace-base" ]
then
	bench node "[\"node\", \"$here/otel_server.js\"," 1 PASS
	bench node "[\"node\", \"$here/otel_server.js\"," 0.5 FAIL
else
	echo "node: skipped (node or the SDK is not installed)"
	status=1
fi
cat "$tmp/log"
exit $status
