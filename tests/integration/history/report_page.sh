#!/bin/sh
# report_page.sh BINARY_DIR - `renacer report --html` in a real headless Chromium: the page
# loads with no console message and no script error, every trend chart and the critical-path
# timeline are drawn, the verdict table read back from the rendered DOM equals the verdicts
# in the history store (failing rows first), and a screenshot shows the chart's line. A page whose script is
# broken on purpose must be caught by the same checks (so they can fail).
# Exit 77 when no Chromium is installed (Debian: chromium).
set -u
bin=$1/renacer
browser=
for b in chromium chromium-browser google-chrome; do
	if command -v "$b" >/dev/null 2>&1; then
		browser=$b
		break
	fi
done
if [ -z "$browser" ]; then
	echo "no Chromium found (install Debian's chromium)" >&2
	exit 77
fi
command -v sqlite3 >/dev/null || { echo "sqlite3 not installed" >&2; exit 77; }
tmp=$(mktemp -d /tmp/renacer-report.XXXXXX)
trap '[ -n "${RN_KEEP_TMP:-}" ] || rm -rf "$tmp"' EXIT
fail() {
	echo "FAIL: $*" >&2
	exit 1
}

cd "$tmp" || exit 1
cat >renacer.toml <<'EOT'
[[target]]
name = "gzip"
command = ["sh", "-c", "exec gzip -c /etc/services > /dev/null"]
runs = 3

[[target]]
name = "find"
command = ["find", "/usr/share/doc", "-maxdepth", "1", "-name", "a*"]
runs = 3

[[assertion]]
name = "gzip_fast"
type = "critical_path"
max_duration_ms = 10000
targets = ["gzip"]

[[assertion]]
name = "find_impossible"
type = "critical_path"
max_duration_ms = 0.000001
targets = ["find"]

[history]
EOT
"$bin" golden update -q >/dev/null 2>&1 || fail "golden update failed"
for i in 1 2 3 4 5 6; do
	RENACER_COMMIT=commit$i RENACER_BRANCH=main "$bin" check -q >/dev/null 2>&1
	[ $? = 1 ] || fail "check $i: expected exit 1 (find_impossible fails)"
done
"$bin" report --html page.html 2>report.err || { cat report.err; fail "report failed"; }
# The table lists failing rows first, then WARN, then PASS (each in the order recorded).
sqlite3 -separator '|' .renacer/history.db "SELECT target, assertion, verdict FROM verdicts
	WHERE run_id = (SELECT max(id) FROM runs) ORDER BY CASE WHEN verdict IN ('FAIL',
	'ERROR', 'NO DATA') THEN 0 WHEN verdict = 'WARN' THEN 1 WHEN verdict = 'PASS' THEN 2
	ELSE 3 END, id" >expected.txt
[ "$(wc -l <expected.txt)" -ge 2 ] || fail "expected at least 2 verdicts in the store"
grep -q "find|find_impossible|FAIL" expected.txt || fail "the store lacks the FAIL verdict"

# render PAGE PREFIX: DOM and console of the page, and a screenshot.
render() {
	HOME=$tmp timeout 120 "$browser" --headless --no-sandbox --disable-gpu \
		--no-first-run --disable-extensions --user-data-dir="$tmp/profile" \
		--enable-logging=stderr --v=0 --dump-dom "file://$tmp/$1" >"$2.dom" 2>"$2.log" ||
		{ cat "$2.log" >&2; fail "chromium --dump-dom failed"; }
	HOME=$tmp timeout 120 "$browser" --headless --no-sandbox --disable-gpu \
		--no-first-run --disable-extensions --user-data-dir="$tmp/profile" \
		--hide-scrollbars --window-size=1000,5000 --screenshot="$tmp/$2.png" \
		"file://$tmp/$1" >/dev/null 2>&1 || fail "chromium --screenshot failed"
}

cat >check_page.py <<'EOP'
# check_page.py PREFIX EXPECTED: judge the rendered page; exit 1 with a reason.
import re, struct, sys, zlib
from html.parser import HTMLParser

prefix, expected_file = sys.argv[1], sys.argv[2]
dom = open(prefix + ".dom", encoding="utf-8").read()
log = open(prefix + ".log", encoding="utf-8", errors="replace").read()
problems = []

console = [l for l in log.splitlines() if "CONSOLE" in l]
if console:
    problems.append("console messages: " + " | ".join(console))

class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.rows, self.cell, self.row, self.in_table = [], None, None, False
        self.attrs, self.figures, self.series, self.canvases = {}, 0, [], 0
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("html", "body"):
            self.attrs.update({k: v for k, v in a.items() if k.startswith("data-")})
        if tag == "table" and a.get("id") == "verdicts":
            self.in_table = True
        if self.in_table and tag == "tr":
            self.row = []
        if self.in_table and tag == "td" and self.row is not None:
            self.cell = ""
        if tag == "figure" and a.get("class") == "chart":
            self.figures += 1
        if tag == "path" and a.get("class") == "series":
            self.series.append(a.get("d", ""))
        if tag == "canvas":
            self.canvases += 1
    def handle_endtag(self, tag):
        if tag == "td" and self.cell is not None:
            self.row.append(self.cell.strip())
            self.cell = None
        if tag == "tr" and self.row:
            self.rows.append(self.row)
            self.row = None
        if tag == "table":
            self.in_table = False
    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data

p = Page()
p.feed(dom)
if "data-script-error" in p.attrs:
    problems.append("script error: " + p.attrs["data-script-error"])
drawn = int(p.attrs.get("data-charts-drawn", "0"))
sysc = int(p.attrs.get("data-syscall-charts", "0"))
if drawn == 0 or drawn + sysc != p.figures:
    problems.append("charts drawn %d + %d syscall charts of %d figures" % (drawn, sysc, p.figures))
if int(p.attrs.get("data-timeline-drawn", "0")) < 2:
    problems.append("critical-path timeline not drawn")
if p.attrs.get("data-renderer") == "svg":
    lines = [d for d in p.series if len(re.findall(r"[ML]", d)) >= 6]
    if len(lines) != p.figures:
        problems.append("%d of %d charts have a line of 6 runs" % (len(lines), p.figures))
elif p.canvases != p.figures:
    problems.append("%d canvases for %d charts (Chart.js)" % (p.canvases, p.figures))
got = ["|".join((r[0], r[1], r[2])) for r in p.rows]
want = open(expected_file).read().splitlines()  # verdicts may contain spaces ("NOT JUDGED")
if got != want:
    problems.append("verdict table %r, store says %r" % (got, want))

def png_pixels(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, color = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and color in (2, 6), "unexpected PNG format"
            bpp = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, bpp, rows

w, h, bpp, rows = png_pixels(prefix + ".png")
# The series line is #1f5fbf, drawn above the tolerance band; count its pixels
# (anti-aliasing: within 40 per channel).
line_px = sum(1 for r in rows for x in range(0, w * bpp, bpp)
              if abs(r[x] - 0x1f) < 40 and abs(r[x + 1] - 0x5f) < 40 and abs(r[x + 2] - 0xbf) < 40)
# A drawn 720-px-wide chart's median line is several hundred pixels; ask 100 of each chart.
if line_px < 100 * p.figures:
    problems.append("screenshot shows %d pixels of a chart line for %d charts" % (line_px, p.figures))
if problems:
    print("\n".join(problems))
    sys.exit(1)
print("ok: %s: %d charts drawn, %d verdict rows read back, %d line pixels" %
      (p.attrs.get("data-renderer"), drawn, len(got), line_px))
EOP

render page.html good
python3 check_page.py good expected.txt || fail "the report page is not right"
# The fallback without Chart.js: the same checks on the SVG drawing.
RENACER_CHART_JS= "$bin" report --html page-svg.html 2>report.err || { cat report.err; fail "report (svg) failed"; }
render page-svg.html svg
python3 check_page.py svg expected.txt || fail "the SVG report page is not right"

# The same checks must catch a page whose drawing script breaks.
sed 's/data\.charts\.forEach/data.chartz.forEach/' page.html >broken.html
render broken.html broken
if python3 check_page.py broken expected.txt >broken.out; then
	fail "a broken page passed the checks"
fi
grep -q "script error" broken.out || { cat broken.out; fail "the broken page's error was not seen"; }
echo "ok: a broken page is caught ($(head -n 1 broken.out))"
exit 0
