#!/bin/sh
# report_browser.sh BINARY_DIR SOURCE_DIR - the report page driven with real mouse events in
# headless Chromium (report_browser.py) on a synthetic store
# (page_store.py): once with Chart.js inlined (when libjs-chart.js is
# installed), once with the SVG drawing. Screenshots: BINARY_DIR/report-screenshots/.
# Exit 77 when no Chromium is installed (Debian: chromium).
set -u
bin=$1/renacer
src=$2
browser=
for b in chromium chromium-browser google-chrome; do
	if command -v "$b" >/dev/null 2>&1; then
		browser=$b
		break
	fi
done
[ -n "$browser" ] || { echo "no Chromium found (install Debian's chromium)" >&2; exit 77; }
tmp=$(mktemp -d /tmp/renacer-browser.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
shots=$1/report-screenshots
mkdir -p "$shots"
fail() {
	echo "FAIL: $*" >&2
	exit 1
}
here=$src/tests/integration/history
python3 "$here/page_store.py" "$tmp/store.json" || fail "page_store.py"
"$bin" history --db "$tmp/h.db" import "$tmp/store.json" >/dev/null || fail "import"
"$bin" report --db "$tmp/h.db" --html "$tmp/page.html" 2>/dev/null || fail "report"
RENACER_CHART_JS= "$bin" report --db "$tmp/h.db" --html "$tmp/page-svg.html" 2>/dev/null ||
	fail "report (svg)"
grep -q "charts: Chart.js" "$tmp/page.html" || echo "note: libjs-chart.js not installed: both pages draw SVG"
grep -q "charts: inline SVG" "$tmp/page-svg.html" || fail "RENACER_CHART_JS= did not select the SVG drawing"
rc=0
timeout 120 python3 "$here/report_browser.py" "$browser" "$tmp/page.html" "$shots" chartjs || rc=1
timeout 120 python3 "$here/report_browser.py" "$browser" "$tmp/page-svg.html" "$shots" svg || rc=1
ls "$shots"/*.png >/dev/null 2>&1 || fail "no screenshot written"
exit $rc
