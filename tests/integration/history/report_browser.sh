#!/bin/sh
# report_browser.sh BINARY_DIR SOURCE_DIR - the report page driven with real mouse events in
# headless Chromium (report_browser.py) on a synthetic store
# (page_store.py) and on a history of real checks with a regression planted at one commit
# (its FAIL mark, change point and what-changed lines at that commit): once with Chart.js
# inlined (when libjs-chart.js is installed), once with the SVG drawing. Screenshots:
# BINARY_DIR/report-screenshots/.
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

# A regression planted at commit06 in a history of real checks: target "work" starts 2, then
# from commit06 on 6 children (processes 3 -> 7: golden:processes FAILs), and the runner image
# changes at the same commit (an environment change). commit01..05 pass; an impossible
# critical_path budget that only warns WARNs in every run (amber marks).
mkdir "$tmp/reg" || fail "mkdir"
echo 2 >"$tmp/reg/level"
cat >"$tmp/reg/renacer.toml" <<EOT
[[target]]
name = "work"
command = ["sh", "-c", "read n < $tmp/reg/level; i=0; while [ \$i -lt \$n ]; do /bin/true; i=\$((i+1)); done"]
runs = 3

[[assertion]]
name = "slow_warn"
type = "critical_path"
max_duration_ms = 0.000001
fail_on_violation = false

[golden]
metrics = ["processes"]

[history]
EOT
(cd "$tmp/reg" && ImageOS=ubuntu24 ImageVersion=1 "$bin" golden update -q >/dev/null 2>&1) ||
	fail "golden update"
for i in 01 02 03 04 05 06 07 08 09 10; do
	image=1 want=0
	case $i in 0[6-9] | 10)
		echo 6 >"$tmp/reg/level"
		image=2 want=1
		;;
	esac
	(cd "$tmp/reg" && ImageOS=ubuntu24 ImageVersion=$image RENACER_COMMIT=commit$i \
		RENACER_BRANCH=main "$bin" check -q >/dev/null 2>&1)
	got=$?
	[ $got = $want ] || fail "check of commit$i: exit $got, expected $want"
done
(cd "$tmp/reg" && "$bin" report --html page.html 2>/dev/null &&
	RENACER_CHART_JS= "$bin" report --html page-svg.html 2>/dev/null) || fail "report (regression)"
for p in page:chartjs page-svg:svg; do
	timeout 120 python3 "$here/report_browser.py" "$browser" "$tmp/reg/${p%%:*}.html" "$shots" \
		"regression-${p#*:}" regression commit06 work/processes golden:processes || rc=1
done
ls "$shots"/*.png >/dev/null 2>&1 || fail "no screenshot written"
exit $rc
