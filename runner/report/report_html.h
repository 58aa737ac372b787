/*
 * report_html.h - the report page: one self-contained HTML file (`renacer report --html`).
 *
 * The page needs nothing at view time: styles, the data (as JSON in a
 * <script type="application/json" id="renacer-data">, '<' written as \u003c), Chart.js (Debian's
 * libjs-chart.js, read from RN_REPORT_CHART_JS when the page is written; absent: the script
 * draws SVG) and the drawing script (report_page.js, embedded at build time) are inline; no URL
 * is fetched. Inlined scripts have "</" written "<\/". The verdict table of the last check and
 * the gate-quality table are static HTML (readable without script); the script builds the
 * trends, per-syscall series, run details and comparisons from the data and sets every string
 * as text, never as markup. When it has drawn, <body> carries data-ready="1",
 * data-renderer ("chart.js" or "svg"), data-charts-drawn (metric charts), data-charts-folded
 * (flat series folded into text), data-syscall-charts, data-timeline-drawn (bars of the last
 * check's critical path) and data-render-ms (ms from navigation); a script error sets
 * data-script-error on <html> to its message. window.renacerPage.pointPosition(KEY, RUN) gives a
 * point's viewport position ("target/metric" or "target/syscall/NAME") for tests, and
 * window.renacerPage.marks(KEY) the FAIL/WARN marks drawn on that chart: [{run, commit, verdict,
 * title, x, y}] (viewport). The verdict table lists failing rows (FAIL, ERROR, NO DATA) first,
 * then WARN, then PASS; values in human units (util/units.h); each message as its short form,
 * the whole one in a <details>. The list #changed (data-items: its lines) shows the model's
 * "changed" items of the runs in view.
 *
 * The page model (built by cmd_history.c from the history store), a JSON object:
 *   run:      {id, time, commit, branch, machine, machine_desc, exit_code, config} (last check)
 *   verdicts: [{target, assertion, type, verdict, observed, budget, golden, unit, message,
 *               short (the message's first clause, at most 100 columns)}]
 *   critical_path: [{target, segments: [{process, pid, start_ms, end_ms}]}]   (last check)
 *   machine:  the machine whose change points are drawn (the last check's, or --machine)
 *   runs:     [{id, time, commit, subject, date, branch, machine, exit_code, env_change}] the
 *             last N runs, oldest first (time, date: UTC "YYYY-MM-DD HH:MM:SS"; date "" when
 *             unknown; env_change, only where the run's environment fingerprint differs from
 *             the previous run's on its machine: "kernel '6.1.0', now '6.8.0'")
 *   charts:   [{target, metric, unit, stored_unit, points: [[run, median, min, max]],
 *               changes: [{run, index, before, after, ratio, rel_change, p_value, first_run,
 *                          first_commit, last_run, last_commit, good_commit, bad_commit,
 *                          bisect ("renacer bisect GOOD BAD --target T", when both are
 *                          known), env_change (a run of its range changed environment)}],
 *               marks: [{run, verdict, assertion, short}] FAIL/ERROR/NO DATA/WARN verdicts
 *                      of the chart's metric (or of a metric without a chart) per run,
 *               band: {lo, hi, median} or null}]          values in the unit shown (ms for ns)
 *   run_verdicts:       {RUN: [verdict as above]}
 *   run_critical_paths: {RUN: [{target, segments: [...]}]}
 *   run_syscalls:       {RUN: {target: {syscall: calls}}}
 *   run_explain:        {RUN: [explain entry as below]} each run's own explanations
 *   quality:  [ledger of `renacer history quality --format json`]
 *   changed:  [{run, commit, kind ("verdict" or "change"), target, name (assertion or metric),
 *               text (one line in human units), from, to, short (verdict) or rel_change,
 *               bisect, env_change (change)}] what changed on the page's machine, newest first
 *   explain:  [{target, assertion, text, svg}] the last check's explained timing failures as
 *             the history store kept them with its run (empty when it had none): the ranked
 *             list and the flame graph's path relative to the page, "" when its file is gone
 *             or no longer the one that run wrote (runner/check/profile_check.h)
 */
#ifndef RN_REPORT_HTML_H
#define RN_REPORT_HTML_H

#include <jansson.h>

/* The most runs a trend chart of the page shows (`renacer report --last N`): a page of every
 * run of a long history took tens of seconds and gigabytes and was too large to open. */
#define RN_REPORT_HTML_MAX_RUNS 5000

/* Debian's Chart.js (package libjs-chart.js), inlined into the page when present;
 * $RENACER_CHART_JS names another file ("" for none: the SVG drawing). */
#define RN_REPORT_CHART_JS "/usr/share/javascript/chart.js/chart.min.js"

/*
 * Write the page of `model` (format above; borrowed) to `path` atomically. Returns 0 or a
 * negative errno (message printed).
 */
int rn_report_html_write(const char *path, const json_t *model);

#endif
