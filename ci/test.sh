#!/bin/sh
# Build renacer with its tests and run every test (cmocka unit tests and ctest integration
# tests). The last lines are ctest's own summary, with the count of executed tests.
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRN_BUILD_TESTS=ON "$@"
cmake --build "$BUILD" -j"$(nproc)"
if [ -f tests/integration/otlp/package.json ] && command -v npm >/dev/null 2>&1; then
	npm ci --prefix tests/integration/otlp --no-audit --no-fund --loglevel=error ||
		echo "warning: npm install failed; OTLP receiver tests will be skipped" >&2
fi
if [ -f tests/integration/spans/package.json ] && command -v npm >/dev/null 2>&1; then
	npm ci --prefix tests/integration/spans --no-audit --no-fund --loglevel=error ||
		echo "warning: npm install failed; the OpenTelemetry SDK app-span tests will be skipped" >&2
fi
if [ -f tests/integration/shard/package.json ] && command -v npm >/dev/null 2>&1; then
	npm ci --prefix tests/integration/shard --no-audit --no-fund --loglevel=error ||
		echo "warning: npm install failed; the workflow schema test will be skipped" >&2
fi
cd "$BUILD"
# Tests run renacer themselves: keep them from writing into a surrounding GitHub job.
unset GITHUB_ACTIONS GITHUB_STEP_SUMMARY GITHUB_OUTPUT
# ctest ends with label timings and the list of skipped tests; repeat its summary line
# ("N% tests passed, F tests failed out of T") last, so the count of executed tests closes
# the run. Success means ctest reported 0 failed tests.
log=$(mktemp)
ctest --output-on-failure -j2 --timeout 600 2>&1 | tee "$log" || true
summary=$(grep -E '^[0-9]+% tests passed' "$log" | tail -n 1)
rm -f "$log"
[ -d report-screenshots ] &&
	echo "report page screenshots (keep them as CI artifacts): $BUILD/report-screenshots"
echo
echo "$summary"
[ -n "$summary" ] && echo "$summary" | grep -q ' 0 tests failed' || exit 1
