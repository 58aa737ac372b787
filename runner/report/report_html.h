/*
 * report_html.h - the report page: one self-contained HTML file (`renacer report --html`).
 *
 * The page needs nothing at view time: styles, the data (as JSON in a
 * <script type="application/json" id="renacer-data">) and the drawing script are inline; no
 * URL is fetched. The verdict table is static HTML (readable without script); trend charts and
 * the critical-path timeline are SVG drawn by the inline script from the data. When the script
 * has drawn, <body> carries data-charts-drawn="N" (charts with at least one point) and
 * data-timeline-drawn="N" (timeline bars); a script error sets data-script-error on <html> to
 * its message, so a test in a headless browser can tell a drawn page from a broken one.
 *
 * The page model (built by cmd_history.c from the history store), a JSON object:
 *   run:      {id, time, commit, branch, machine, machine_desc, exit_code, config}
 *   verdicts: [{target, assertion, type, verdict, observed, budget, golden, unit, message}]
 *   charts:   [{target, metric, unit, points: [{run, commit, time, median, min, max}],
 *               changes: [{index, run, commit, before, after, ratio, rel_change, p_value,
 *                         first_run, first_commit, last_run, last_commit, ...}],
 *               band: {lo, hi, median} or null}]          values in the unit shown (ms for ns)
 *   critical_path: [{target, segments: [{process, pid, start_ms, end_ms}]}]
 */
#ifndef RN_REPORT_HTML_H
#define RN_REPORT_HTML_H

#include <jansson.h>

/* Debian's Chart.js (package libjs-chart.js), inlined into the page when present;
 * $RENACER_CHART_JS names another file ("" for none: the SVG drawing). */
#define RN_REPORT_CHART_JS "/usr/share/javascript/chart.js/chart.min.js"

/*
 * Write the page of `model` (format above; borrowed) to `path` atomically. Returns 0 or a
 * negative errno (message printed).
 */
int rn_report_html_write(const char *path, const json_t *model);

#endif
