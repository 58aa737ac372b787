#!/bin/sh
# span_time on syscall spans and the configuration of span_time (tests/spans/tests.cmake).
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

case $case_name in
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
