/*
 * report_html.c - the report page (see report_html.h).
 */
#include "report_html.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "log.h"
#include "units.h"
#include "xalloc.h"
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
	".mark-FAIL{fill:#b00020}.mark-WARN{fill:#e08a00}.env{stroke:#7b3fb5;stroke-width:1.5;"
	"stroke-dasharray:2 3}.env-label{font-size:10px;fill:#7b3fb5}\n"
	"#changed li{margin:.2em 0}#changed code{background:#f2f2f2;padding:0 .3em}"
	"details summary{cursor:pointer}\n"
	".label{font-size:11px;fill:#555}.bar{fill:#1f5fbf}.bar:nth-of-type(even){fill:#5a8fd8}\n"
	".off{fill:#b00020}.hit{fill:transparent;cursor:pointer}canvas{cursor:pointer}\n"
	"#tooltip{position:absolute;z-index:10;max-width:360px;background:#fff;border:1px solid "
	"#999;box-shadow:0 2px 6px rgba(0,0,0,.2);padding:6px 8px;font-size:12px;"
	"pointer-events:none}\n"
	"#controls{background:#fff;padding:6px 0;border-bottom:1px solid #ddd}"
	"#controls label{margin-right:1em}\n"
	"#run-detail{border:1px solid #ccc;padding:0 1em 1em;margin:1em 0}\n"
	"</style>\n</head>\n";

#include "report_page_js.h"

static void add_text(struct rn_buf *b, const char *s)
{
	rn_buf_add_xml(b, s ? s : "", s ? strlen(s) : 0, true);
}

static const char *str_of(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

/* A number cell: the value in human units (util/units.h), or "-" when null. */
static void add_num(struct rn_buf *b, const json_t *v, const char *unit)
{
	char text[RN_UNITS_MAX];

	if (json_is_number(v))
		rn_buf_addf(b, "<td class=\"num\">%s</td>",
			    rn_fmt_value(text, sizeof(text), json_number_value(v), unit));
	else
		rn_buf_adds(b, "<td class=\"num\">-</td>");
}

/* The last check's explained timing failures: the ranked list and the differential flame
 * graph, linked and shown (the model's "explain": the run's own, from the history store). */
static void add_explain(struct rn_buf *b, const json_t *explain)
{
	size_t i;
	const json_t *e;

	if (!json_array_size(explain))
		return;
	rn_buf_adds(b, "<h2>Where the time went</h2>\n");
	json_array_foreach(explain, i, e)
	{
		rn_buf_adds(b, "<h3 class=\"explain\">");
		add_text(b, str_of(e, "target"));
		rn_buf_adds(b, " &middot; ");
		add_text(b, str_of(e, "assertion"));
		rn_buf_adds(b, "</h3>\n<pre class=\"explain\">");
		add_text(b, str_of(e, "text"));
		rn_buf_adds(b, "</pre>\n");
		if (*str_of(e, "svg")) {
			rn_buf_adds(b, "<p><a class=\"explain-svg\" href=\"");
			add_text(b, str_of(e, "svg"));
			rn_buf_adds(b, "\">differential flame graph</a><br><img src=\"");
			add_text(b, str_of(e, "svg"));
			rn_buf_adds(b, "\" alt=\"differential flame graph of ");
			add_text(b, str_of(e, "target"));
			rn_buf_adds(b, "\" style=\"max-width:100%\"></p>\n");
		}
	}
}

/* Where a verdict sorts in the table: failing (FAIL, ERROR, NO DATA), WARN, PASS, the rest. */
static int verdict_rank(const json_t *v)
{
	const char *s = str_of(v, "verdict");

	if (!strcmp(s, "FAIL") || !strcmp(s, "ERROR") || !strcmp(s, "NO DATA"))
		return 0;
	return !strcmp(s, "WARN") ? 1 : !strcmp(s, "PASS") ? 2 : 3;
}

struct ranked {
	const json_t *v;
	int rank;
	size_t seq;
};

static int ranked_cmp(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank - y->rank;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* The message cell: the short message, the whole one on click when it was cut. */
static void add_message(struct rn_buf *b, const json_t *v)
{
	const char *msg = str_of(v, "message"), *brief = str_of(v, "short");

	rn_buf_adds(b, "<td class=\"msg\">");
	if (*brief && strcmp(brief, msg)) {
		rn_buf_adds(b, "<details><summary>");
		add_text(b, brief);
		rn_buf_adds(b, "</summary>");
		add_text(b, msg);
		rn_buf_adds(b, "</details>");
	} else {
		add_text(b, msg);
	}
	rn_buf_adds(b, "</td></tr>\n");
}

static void add_verdict_row(struct rn_buf *b, const json_t *v)
{
	const char *unit = str_of(v, "unit");
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
	add_num(b, json_object_get(v, "observed"), unit);
	add_num(b, json_object_get(v, "budget"), unit);
	add_num(b, json_object_get(v, "golden"), unit);
	add_message(b, v);
}

/* The verdicts of the last check: failing rows first, then WARN, then PASS. */
static void add_verdicts(struct rn_buf *b, const json_t *verdicts)
{
	size_t i, n = json_array_size(verdicts);
	struct ranked *r = rn_xcalloc(n ? n : 1, sizeof(*r));
	const json_t *v;

	rn_buf_adds(b,
		    "<h2>Verdicts</h2>\n<table id=\"verdicts\">\n<thead><tr><th>target</th>"
		    "<th>assertion</th><th>verdict</th><th>measured</th><th>budget</th>"
		    "<th>golden</th><th>message</th></tr></thead>\n<tbody>\n");
	json_array_foreach(verdicts, i, v)
	{
		r[i].v = v;
		r[i].rank = verdict_rank(v);
		r[i].seq = i;
	}
	qsort(r, n, sizeof(*r), ranked_cmp);
	for (i = 0; i < n; i++)
		add_verdict_row(b, r[i].v);
	if (!n)
		rn_buf_adds(b,
			    "<tr><td colspan=\"7\">no verdicts were recorded for this run</td>"
			    "</tr>\n");
	rn_buf_adds(b, "</tbody>\n</table>\n");
	free(r);
}

/* The gate-quality ledger (static: readable without script). */
static void add_quality(struct rn_buf *b, const json_t *quality)
{
	size_t i;
	const json_t *q;

	rn_buf_adds(
		b,
		"<h2>Gate quality</h2>\n<p class=\"meta\">Per assertion over the runs of this page "
		"(<code>renacer history quality</code>: over all of them): FAIL rate; re-runs of one commit (<code>renacer check --rerun-of</code>) "
		"and the flips between them; false alarms: FAILs of re-run commits whose runs "
		"mostly pass; the noise of the measured value; a budget the data supports "
		"(median &times; (1 + 3 noise)) and the false-alarm rate it would have had.</p>\n"
		"<table id=\"quality\">\n<thead><tr><th>target</th><th>assertion</th>"
		"<th>runs</th><th>FAIL</th><th>re-run commits</th><th>flips</th>"
		"<th>false alarms</th><th>overridden</th><th>noise</th><th>budget</th>"
		"<th>suggested</th><th>false alarms at suggested</th></tr></thead>\n<tbody>\n");
	json_array_foreach(quality, i, q)
	{
		const char *unit = str_of(q, "unit");
		const json_t *fa = json_object_get(q, "false_alarm_rate");
		const json_t *sfa = json_object_get(q, "suggested_false_alarm_rate");
		const json_t *noise = json_object_get(q, "noise");
		const json_t *bud = json_object_get(q, "budget");
		const json_t *sug = json_object_get(q, "suggested");

		rn_buf_adds(b, "<tr><td>");
		add_text(b, str_of(q, "target"));
		rn_buf_adds(b, "</td><td>");
		add_text(b, str_of(q, "assertion"));
		rn_buf_addf(b,
			    "</td><td class=\"num\">%lld</td><td class=\"num\">%.1f%%</td>"
			    "<td class=\"num\">%lld</td><td class=\"num\">%lld</td>",
			    (long long)json_integer_value(json_object_get(q, "runs")),
			    json_number_value(json_object_get(q, "fail_rate")) * 100,
			    (long long)json_integer_value(json_object_get(q, "rerun_commits")),
			    (long long)json_integer_value(json_object_get(q, "flips")));
		if (json_is_number(fa))
			rn_buf_addf(b, "<td class=\"num\">%.1f%%</td>",
				    json_number_value(fa) * 100);
		else
			rn_buf_adds(b, "<td class=\"num\">-</td>");
		rn_buf_addf(b, "<td class=\"num\">%lld</td>",
			    (long long)json_integer_value(json_object_get(q, "overridden")));
		if (json_is_number(noise))
			rn_buf_addf(b, "<td class=\"num\">&plusmn;%.1f%%</td>",
				    json_number_value(noise) * 100);
		else
			rn_buf_adds(b, "<td class=\"num\">-</td>");
		if (json_is_number(bud)) {
			rn_buf_addf(b, "<td class=\"num\">%.4g ", json_number_value(bud));
			add_text(b, unit);
			rn_buf_adds(b, "</td>");
		} else {
			rn_buf_adds(b, "<td class=\"num\">-</td>");
		}
		if (json_is_number(sug)) {
			rn_buf_addf(b, "<td class=\"num\">%.4g ", json_number_value(sug));
			add_text(b, unit);
			rn_buf_adds(b, "</td>");
		} else {
			rn_buf_adds(b, "<td class=\"num\">-</td>");
		}
		if (json_is_number(sfa))
			rn_buf_addf(b, "<td class=\"num\">%.1f%%</td></tr>\n",
				    json_number_value(sfa) * 100);
		else
			rn_buf_adds(b, "<td class=\"num\">-</td></tr>\n");
	}
	if (!json_array_size(quality))
		rn_buf_adds(b, "<tr><td colspan=\"12\">no verdicts recorded</td></tr>\n");
	rn_buf_adds(b, "</tbody>\n</table>\n");
}

/* Append `text` for inclusion in a <script> element: "</" is written "<\/" (the same string
 * to the script, no end tag to the HTML parser), and "<!--" as "<\!--". */
static void add_script_text(struct rn_buf *b, const char *text, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (text[i] == '<' && i + 1 < len && (text[i + 1] == '/' || text[i + 1] == '!')) {
			rn_buf_adds(b, text[i + 1] == '/' ? "<\\/" : "<\\!");
			i++;
			continue;
		}
		rn_buf_addc(b, text[i]);
	}
}

/* Inline Debian's Chart.js (libjs-chart.js) when installed; false when not there. */
static bool add_chart_js(struct rn_buf *b)
{
	const char *path = getenv("RENACER_CHART_JS");
	struct rn_buf js;
	bool ok;
	int fd;

	if (!path)
		path = RN_REPORT_CHART_JS;
	if (!*path)
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	rn_buf_init(&js, 8u << 20);
	ok = rn_buf_read_fd(&js, fd) == 0 && !rn_buf_failed(&js) && js.len > 0;
	close(fd);
	if (ok) {
		rn_buf_adds(b, "<script>\n");
		add_script_text(b, js.buf, js.len);
		rn_buf_adds(b, "\n</script>\n");
	}
	rn_buf_release(&js);
	return ok;
}

/* The page's title and the last check's run. */
static void add_run_header(struct rn_buf *b, const json_t *run)
{
	rn_buf_adds(b, "<body>\n<h1>renacer report</h1>\n<p class=\"meta\">last check: run ");
	rn_buf_addf(b, "%lld", (long long)json_integer_value(json_object_get(run, "id")));
	rn_buf_adds(b, " &middot; ");
	add_text(b, str_of(run, "time"));
	rn_buf_adds(b, " UTC &middot; commit <code>");
	add_text(b, *str_of(run, "commit") ? str_of(run, "commit") : "unknown");
	rn_buf_adds(b, "</code> &middot; branch ");
	add_text(b, *str_of(run, "branch") ? str_of(run, "branch") : "unknown");
	rn_buf_adds(b, " &middot; machine <code>");
	add_text(b, str_of(run, "machine"));
	rn_buf_adds(b, "</code> (");
	add_text(b, str_of(run, "machine_desc"));
	rn_buf_addf(b, ") &middot; exit code %lld</p>\n",
		    (long long)json_integer_value(json_object_get(run, "exit_code")));
}

int rn_report_html_write(const char *path, const json_t *model)
{
	const json_t *run = json_object_get(model, "run");
	const json_t *cps = json_object_get(model, "critical_path");
	const json_t *c;
	struct rn_buf b;
	char *js, *p;
	size_t i;
	bool chartjs;
	int rc;

	rn_buf_init(&b, 0);
	rn_buf_adds(&b, page_head);
	add_run_header(&b, run);
	add_verdicts(&b, json_object_get(model, "verdicts"));
	add_explain(&b, json_object_get(model, "explain"));
	rn_buf_adds(&b,
		    "<h2>What changed</h2>\n<p class=\"meta\">Over the runs shown (the trends' "
		    "range, their machine), newest first: an assertion's verdict that moved "
		    "(PASS to FAIL or WARN, and back) and each change point of a trend, with "
		    "the value before and after; at a change point, the command that bisects "
		    "it.</p>\n<ol id=\"changed\"></ol>\n");
	rn_buf_adds(
		&b,
		"<div id=\"controls\"><label>branch <select id=\"f-branch\"></select></label>"
		"<label>machine <select id=\"f-machine\"></select></label>"
		"<button id=\"z-in\" title=\"zoom in\">+</button>"
		"<button id=\"z-out\" title=\"zoom out\">&minus;</button>"
		"<button id=\"z-left\" title=\"earlier\">&larr;</button>"
		"<button id=\"z-right\" title=\"later\">&rarr;</button>"
		"<button id=\"z-reset\">all</button> <span id=\"view-info\" class=\"meta\"></span>"
		"</div>\n<div id=\"tooltip\" role=\"tooltip\" hidden></div>\n"
		"<section id=\"run-detail\" hidden></section>\n"
		"<section id=\"compare\"><h2>Compare two runs</h2><p class=\"meta\">Click a point, "
		"then another: the first is A, the second B. Or pick them here.</p>"
		"<label>A <select id=\"cmp-a\"></select></label> "
		"<label>B <select id=\"cmp-b\"></select></label>\n"
		"<h3>Metrics (largest change first)</h3><table id=\"cmp-metrics\"><thead><tr>"
		"<th>target</th><th>metric</th><th>A</th><th>B</th><th>change</th></tr></thead>"
		"<tbody></tbody></table>\n<h3>Syscalls that moved (largest first)</h3>"
		"<table id=\"cmp-syscalls\"><thead><tr><th>target</th><th>syscall</th><th>A</th>"
		"<th>B</th><th>change</th></tr></thead><tbody></tbody></table></section>\n"
		"<h2>Trends</h2>\n<p class=\"meta\">Each point is a run of a commit (hover: commit, "
		"subject, date; click: the run). Median per run (line), min to max of its samples "
		"(shade), the golden trace's range (yellow), change points (red dashes; advisory), "
		"runs whose assertion of the chart FAILed (red mark) or WARNed (amber mark) at "
		"the top, and environment changes (purple dots: the run's fingerprint differs "
		"from the run before it on its machine). "
		"The y-scale leaves out values beyond 8 noise sd of the median: they are drawn at "
		"the edge as red triangles. Wheel or drag on a chart to zoom and pan.</p>\n"
		"<div id=\"trends\"></div>\n<h3>Flat series</h3><ul id=\"flat\"></ul>\n"
		"<h2>Per-syscall series</h2>\n<div id=\"syscalls\"></div>\n");
	add_quality(&b, json_object_get(model, "quality"));
	rn_buf_adds(&b, "<h2>Critical path of the last check</h2>\n");
	json_array_foreach(cps, i, c)
	{
		rn_buf_adds(&b, "<h3>");
		add_text(&b, str_of(c, "target"));
		rn_buf_addf(&b, "</h3>\n<div id=\"timeline-%zu\"></div>\n", i);
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
	chartjs = add_chart_js(&b);
	rn_buf_adds(&b, "<script>\n");
	add_script_text(&b, rn_report_page_js, strlen(rn_report_page_js));
	rn_buf_adds(&b, "</script>\n");
	rn_buf_addf(&b, "<!-- charts: %s -->\n</body>\n</html>\n",
		    chartjs ? "Chart.js (libjs-chart.js), inlined" : "inline SVG");
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
