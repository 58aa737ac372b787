/*
 * report_html.c - the report page (see report_html.h).
 */
#include "report_html.h"

#include <errno.h>
#include <string.h>

#include "buf.h"
#include "log.h"
#include "xml.h"

static const char page_head[] =
	"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	"<title>renacer report</title>\n"
	/* The first script: errors of the drawing script are recorded on <body>. */
	"<script>window.addEventListener('error', function (e) {"
	" document.documentElement.setAttribute('data-script-error', String(e.message)); });"
	"</script>\n"
	"<style>\n"
	"body{font:14px/1.4 system-ui,sans-serif;margin:1.5em auto;max-width:1100px;color:#222;"
	"padding:0 1em}\n"
	"h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em}h3{font-size:1em;margin:1em 0 .3em}\n"
	"table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:3px 8px;"
	"border-bottom:1px solid #ddd;vertical-align:top}\n"
	"td.num{text-align:right;font-variant-numeric:tabular-nums}\n"
	".v-PASS{color:#17702a;font-weight:600}.v-FAIL,.v-ERROR,.v-NO-DATA{color:#b00020;"
	"font-weight:600}.v-WARN{color:#a05a00;font-weight:600}.v-SKIP{color:#777}\n"
	".meta{color:#555}.msg{color:#444;font-size:.9em}\n"
	"figure{margin:.5em 0 1em}figcaption{font-weight:600}svg{background:#fafafa;"
	"border:1px solid #e4e4e4}\n"
	".series{fill:none;stroke:#1f5fbf;stroke-width:1.5}.spread{fill:#1f5fbf;opacity:.15}\n"
	".band{fill:#f0b400;opacity:.25}.bandline{stroke:#c08a00;stroke-dasharray:4 3}\n"
	".change{stroke:#b00020;stroke-width:1.5;stroke-dasharray:5 3}.axis{stroke:#999}\n"
	".label{font-size:11px;fill:#555}.bar{fill:#1f5fbf}.bar:nth-of-type(even){fill:#5a8fd8}\n"
	"</style>\n</head>\n";

static const char page_script[] =
	"<script>\n"
	"(function () {\n"
	"'use strict';\n"
	"var data = JSON.parse(document.getElementById('renacer-data').textContent);\n"
	"var NS = 'http://www.w3.org/2000/svg';\n"
	"function el(name, attrs, parent, text) {\n"
	"  var e = document.createElementNS(NS, name), k;\n"
	"  for (k in attrs) e.setAttribute(k, attrs[k]);\n"
	"  if (text !== undefined) e.textContent = text;\n"
	"  if (parent) parent.appendChild(e);\n"
	"  return e;\n"
	"}\n"
	"function fmt(v) {\n"
	"  var a = Math.abs(v);\n"
	"  if (a >= 1e9) return (v / 1e9).toFixed(2) + 'G';\n"
	"  if (a >= 1e6) return (v / 1e6).toFixed(2) + 'M';\n"
	"  if (a >= 1e4) return (v / 1e3).toFixed(1) + 'k';\n"
	"  return a >= 100 ? v.toFixed(1) : v.toPrecision(3);\n"
	"}\n"
	"var drawn = 0;\n"
	"data.charts.forEach(function (c, ci) {\n"
	"  var svg = document.getElementById('chart-' + ci), pts = c.points;\n"
	"  if (!svg || !pts.length) return;\n"
	"  var W = 720, H = 220, L = 64, R = 12, T = 12, B = 28;\n"
	"  var lo = Infinity, hi = -Infinity;\n"
	"  pts.forEach(function (p) { lo = Math.min(lo, p.min); hi = Math.max(hi, p.max); });\n"
	"  if (c.band) { lo = Math.min(lo, c.band.lo); hi = Math.max(hi, c.band.hi); }\n"
	"  if (hi <= lo) { hi = lo + 1; }\n"
	"  var pad = (hi - lo) * 0.06; lo -= pad; hi += pad;\n"
	"  function X(i) { return L + (pts.length === 1 ? (W - L - R) / 2 :\n"
	"    i * (W - L - R) / (pts.length - 1)); }\n"
	"  function Y(v) { return T + (hi - v) * (H - T - B) / (hi - lo); }\n"
	"  el('line', {x1: L, y1: T, x2: L, y2: H - B, 'class': 'axis'}, svg);\n"
	"  el('line', {x1: L, y1: H - B, x2: W - R, y2: H - B, 'class': 'axis'}, svg);\n"
	"  el('text', {x: L - 4, y: T + 10, 'text-anchor': 'end', 'class': 'label'}, svg,\n"
	"    fmt(hi));\n"
	"  el('text', {x: L - 4, y: H - B, 'text-anchor': 'end', 'class': 'label'}, svg,\n"
	"    fmt(lo));\n"
	"  el('text', {x: L, y: H - 8, 'class': 'label'}, svg, 'run ' + pts[0].run);\n"
	"  el('text', {x: W - R, y: H - 8, 'text-anchor': 'end', 'class': 'label'}, svg,\n"
	"    'run ' + pts[pts.length - 1].run + ' (' + pts.length + ' runs, ' + c.unit + ')');\n"
	"  if (c.band) {\n"
	"    var b = el('rect', {x: L, width: W - L - R, y: Y(c.band.hi),\n"
	"      height: Math.max(1, Y(c.band.lo) - Y(c.band.hi)), 'class': 'band'}, svg);\n"
	"    el('title', {}, b, 'golden trace: ' + fmt(c.band.lo) + ' to ' + fmt(c.band.hi) +\n"
	"      ' ' + c.unit);\n"
	"    el('line', {x1: L, x2: W - R, y1: Y(c.band.median), y2: Y(c.band.median),\n"
	"      'class': 'bandline'}, svg);\n"
	"  }\n"
	"  var up = [], down = [];\n"
	"  pts.forEach(function (p, i) { up.push(X(i) + ',' + Y(p.max));\n"
	"    down.unshift(X(i) + ',' + Y(p.min)); });\n"
	"  el('polygon', {points: up.concat(down).join(' '), 'class': 'spread'}, svg);\n"
	"  var d = pts.map(function (p, i) { return (i ? 'L' : 'M') + X(i).toFixed(1) + ' ' +\n"
	"    Y(p.median).toFixed(1); }).join(' ');\n"
	"  var path = el('path', {d: d, 'class': 'series'}, svg);\n"
	"  el('title', {}, path, c.target + ' ' + c.metric + ' median per run');\n"
	"  c.changes.forEach(function (ch) {\n"
	"    var x = X(ch.index), l = el('line', {x1: x, x2: x, y1: T, y2: H - B,\n"
	"      'class': 'change'}, svg);\n"
	"    el('title', {}, l, 'change point at run ' + ch.run + ' (commit ' +\n"
	"      ch.commit.slice(0, 12) + '): ' + (ch.rel_change * 100).toFixed(1) +\n"
	"      '% (median ' + ch.before.toPrecision(4) + ' -> ' + ch.after.toPrecision(4) +\n"
	"      ', ratio ' + ch.ratio.toFixed(3) + ', p ' + ch.p_value.toPrecision(2) + ')');\n"
	"  });\n"
	"  drawn++;\n"
	"});\n"
	"var bars = 0;\n"
	"data.critical_path.forEach(function (cp, ti) {\n"
	"  var svg = document.getElementById('timeline-' + ti), segs = cp.segments;\n"
	"  if (!svg || !segs.length) return;\n"
	"  var W = 720, L = 150, R = 12, row = 18, end = 0;\n"
	"  segs.forEach(function (s) { end = Math.max(end, s.end_ms); });\n"
	"  if (end <= 0) end = 1;\n"
	"  svg.setAttribute('height', segs.length * row + 24);\n"
	"  svg.setAttribute('viewBox', '0 0 ' + W + ' ' + (segs.length * row + 24));\n"
	"  segs.forEach(function (s, i) {\n"
	"    var x = L + s.start_ms * (W - L - R) / end;\n"
	"    var w = Math.max(1, (s.end_ms - s.start_ms) * (W - L - R) / end);\n"
	"    el('text', {x: L - 6, y: i * row + 13, 'text-anchor': 'end', 'class': 'label'}, svg,\n"
	"      s.process + ' [' + s.pid + ']');\n"
	"    var r = el('rect', {x: x, y: i * row + 2, width: w, height: row - 4,\n"
	"      'class': 'bar'}, svg);\n"
	"    el('title', {}, r, s.process + ': ' + s.start_ms.toFixed(3) + ' to ' +\n"
	"      s.end_ms.toFixed(3) + ' ms');\n"
	"    bars++;\n"
	"  });\n"
	"  el('text', {x: W - R, y: segs.length * row + 18, 'text-anchor': 'end',\n"
	"    'class': 'label'}, svg, end.toFixed(3) + ' ms');\n"
	"});\n"
	"document.body.setAttribute('data-charts-drawn', String(drawn));\n"
	"document.body.setAttribute('data-timeline-drawn', String(bars));\n"
	"})();\n"
	"</script>\n";

static void add_text(struct rn_buf *b, const char *s)
{
	rn_buf_add_xml(b, s ? s : "", s ? strlen(s) : 0, true);
}

static const char *str_of(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

/* A number cell: the value in `unit`, or "-" when null. */
static void add_num(struct rn_buf *b, const json_t *v)
{
	if (json_is_number(v))
		rn_buf_addf(b, "<td class=\"num\">%.3f</td>", json_number_value(v));
	else
		rn_buf_adds(b, "<td class=\"num\">-</td>");
}

static void add_verdicts(struct rn_buf *b, const json_t *verdicts)
{
	size_t i;
	const json_t *v;

	rn_buf_adds(b,
		    "<h2>Verdicts</h2>\n<table id=\"verdicts\">\n<thead><tr><th>target</th>"
		    "<th>assertion</th><th>verdict</th><th>measured</th><th>budget</th>"
		    "<th>golden</th><th>unit</th><th>message</th></tr></thead>\n<tbody>\n");
	json_array_foreach(verdicts, i, v)
	{
		char cls[32];
		size_t k;

		/* "NO DATA" -> class v-NO-DATA */
		snprintf(cls, sizeof(cls), "v-%s", str_of(v, "verdict"));
		for (k = 0; cls[k]; k++)
			if (cls[k] == ' ')
				cls[k] = '-';
		rn_buf_adds(b, "<tr><td>");
		add_text(b, str_of(v, "target"));
		rn_buf_adds(b, "</td><td>");
		add_text(b, str_of(v, "assertion"));
		rn_buf_adds(b, "</td><td class=\"verdict ");
		add_text(b, cls);
		rn_buf_adds(b, "\">");
		add_text(b, str_of(v, "verdict"));
		rn_buf_adds(b, "</td>");
		add_num(b, json_object_get(v, "observed"));
		add_num(b, json_object_get(v, "budget"));
		add_num(b, json_object_get(v, "golden"));
		rn_buf_adds(b, "<td>");
		add_text(b, str_of(v, "unit"));
		rn_buf_adds(b, "</td><td class=\"msg\">");
		add_text(b, str_of(v, "message"));
		rn_buf_adds(b, "</td></tr>\n");
	}
	if (!json_array_size(verdicts))
		rn_buf_adds(b,
			    "<tr><td colspan=\"8\">no verdicts were recorded for this run</td>"
			    "</tr>\n");
	rn_buf_adds(b, "</tbody>\n</table>\n");
}

int rn_report_html_write(const char *path, const json_t *model)
{
	const json_t *run = json_object_get(model, "run");
	const json_t *charts = json_object_get(model, "charts");
	const json_t *cps = json_object_get(model, "critical_path");
	const json_t *c;
	struct rn_buf b;
	char *js, *p;
	size_t i;
	int rc;

	rn_buf_init(&b, 0);
	rn_buf_adds(&b, page_head);
	rn_buf_adds(&b, "<body>\n<h1>renacer report</h1>\n<p class=\"meta\">run ");
	rn_buf_addf(&b, "%lld", (long long)json_integer_value(json_object_get(run, "id")));
	rn_buf_adds(&b, " &middot; ");
	add_text(&b, str_of(run, "time"));
	rn_buf_adds(&b, " UTC &middot; commit <code>");
	add_text(&b, *str_of(run, "commit") ? str_of(run, "commit") : "unknown");
	rn_buf_adds(&b, "</code> &middot; branch ");
	add_text(&b, *str_of(run, "branch") ? str_of(run, "branch") : "unknown");
	rn_buf_adds(&b, " &middot; machine <code>");
	add_text(&b, str_of(run, "machine"));
	rn_buf_adds(&b, "</code> (");
	add_text(&b, str_of(run, "machine_desc"));
	rn_buf_addf(&b, ") &middot; exit code %lld</p>\n",
		    (long long)json_integer_value(json_object_get(run, "exit_code")));
	add_verdicts(&b, json_object_get(model, "verdicts"));

	rn_buf_adds(&b,
		    "<h2>Trends</h2>\n<p class=\"meta\">Median per run (line), min to max of "
		    "each run's samples (shade), the golden trace's range (yellow band, its "
		    "median dashed) and change points (red, E-Divisive; advisory).</p>\n");
	json_array_foreach(charts, i, c)
	{
		size_t nchanges = json_array_size(json_object_get(c, "changes"));

		rn_buf_adds(&b, "<figure class=\"chart\"><figcaption>");
		add_text(&b, str_of(c, "target"));
		rn_buf_adds(&b, " &middot; ");
		add_text(&b, str_of(c, "metric"));
		rn_buf_addf(&b, " (%s, %zu runs, %zu change point%s)</figcaption>\n",
			    str_of(c, "unit"), json_array_size(json_object_get(c, "points")),
			    nchanges, nchanges == 1 ? "" : "s");
		rn_buf_addf(&b,
			    "<svg id=\"chart-%zu\" width=\"720\" height=\"220\" "
			    "viewBox=\"0 0 720 220\" role=\"img\"></svg></figure>\n",
			    i);
	}
	if (!json_array_size(charts))
		rn_buf_adds(&b, "<p>no metric has data</p>\n");
	rn_buf_adds(&b, "<h2>Critical path of the last run</h2>\n");
	json_array_foreach(cps, i, c)
	{
		rn_buf_adds(&b, "<h3>");
		add_text(&b, str_of(c, "target"));
		rn_buf_addf(&b,
			    "</h3>\n<svg id=\"timeline-%zu\" width=\"720\" height=\"40\" "
			    "role=\"img\"></svg>\n",
			    i);
	}
	if (!json_array_size(cps))
		rn_buf_adds(&b, "<p>no critical path was recorded</p>\n");

	/* The data: '<' written as \u003c so no "</script>" can end the element early. */
	js = json_dumps(model, JSON_COMPACT);
	if (!js) {
		rn_buf_release(&b);
		return rn_error("report: cannot encode the page data"), -ENOMEM;
	}
	rn_buf_adds(&b, "<script type=\"application/json\" id=\"renacer-data\">");
	for (p = js; *p; p++) {
		if (*p == '<')
			rn_buf_adds(&b, "\\u003c");
		else
			rn_buf_addc(&b, *p);
	}
	free(js);
	rn_buf_adds(&b, "</script>\n");
	rn_buf_adds(&b, page_script);
	rn_buf_adds(&b, "</body>\n</html>\n");
	if (rn_buf_failed(&b)) {
		rn_buf_release(&b);
		return rn_error("report: out of memory"), -ENOMEM;
	}
	rc = rn_write_file_atomic(path, b.buf, b.len);
	if (rc)
		rn_error("cannot write '%s': %s", path, strerror(-rc));
	rn_buf_release(&b);
	return rc;
}
