/*
 * report.c - the console report and the benchmark JSON.
 */
#include "report.h"
#include "timing_gate.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "escape.h"
#include "exitcode.h"
#include "safefile.h"
#include "xalloc.h"

struct rn_verdict_result *rn_target_report_push(struct rn_target_report *t)
{
	t->verdicts = rn_xgrow(t->verdicts, &t->cap, t->nverdicts + 1, sizeof(*t->verdicts));
	memset(&t->verdicts[t->nverdicts], 0, sizeof(t->verdicts[0]));
	return &t->verdicts[t->nverdicts++];
}

struct rn_verdict_result *rn_target_report_push_row(struct rn_target_report *t, const char *type,
						    const char *target, const char *what,
						    enum rn_verdict v)
{
	struct rn_verdict_result *r = rn_target_report_push(t);
	struct rn_buf b;

	rn_buf_init(&b, 0);
	rn_buf_addf(&b, "%s:%s", type, what);
	r->assertion = rn_buf_detach(&b, NULL);
	r->type = rn_xstrdup(type);
	r->target = rn_xstrdup(target);
	r->verdict = v;
	return r;
}

void rn_target_report_release(struct rn_target_report *t)
{
	size_t i;

	for (i = 0; i < t->nverdicts; i++)
		rn_verdict_result_release(&t->verdicts[i]);
	free(t->verdicts);
	free(t->golden_file);
	t->verdicts = NULL;
	t->nverdicts = t->cap = 0;
	t->golden_file = NULL;
}

static bool progress_open;

void rn_report_header(bool color, const char *config, size_t ntargets, size_t nassertions)
{
	char line[1024];
	int n = snprintf(line, sizeof(line),
			 "%srenacer check%s: %s (%zu target%s, %zu assertion%s)\n",
			 color ? "\033[1m" : "", color ? "\033[0m" : "", config, ntargets,
			 ntargets == 1 ? "" : "s", nassertions, nassertions == 1 ? "" : "s");

	if (n > 0)
		rn_write_stderr(line,
				(unsigned long)(n < (int)sizeof(line) ? n : (int)sizeof(line) - 1));
}

void rn_report_progress(bool color, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;
	bool tty = isatty(2);

	(void)color;
	va_start(ap, fmt);
	n = vsnprintf(line + 1, sizeof(line) - 3, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(line) - 4)
		n = (int)sizeof(line) - 4;
	/* On a TTY: "\r<line>\033[K" overwrites; elsewhere one line per step. */
	line[0] = tty ? '\r' : ' ';
	if (tty) {
		memcpy(line + 1 + n, "\033[K", 3);
		rn_write_stderr(line, (unsigned long)n + 4);
	} else {
		line[1 + n] = '\n';
		rn_write_stderr(line + 1, (unsigned long)n + 1);
	}
	progress_open = tty;
}

void rn_report_progress_done(void)
{
	if (progress_open)
		rn_write_stderr("\r\033[K", 4);
	progress_open = false;
}

size_t rn_report_count(const struct rn_target_report *t, size_t n, enum rn_verdict v)
{
	size_t i, k, c = 0;

	for (i = 0; i < n; i++)
		for (k = 0; k < t[i].nverdicts; k++)
			c += t[i].verdicts[k].verdict == v;
	return c;
}

static const char *verdict_color(enum rn_verdict v)
{
	switch (v) {
	case RN_VERDICT_PASS:
		return "\033[32m";
	case RN_VERDICT_FAIL:
	case RN_VERDICT_ERROR:
	case RN_VERDICT_NO_DATA:
		return "\033[1;31m";
	case RN_VERDICT_WARN:
	case RN_VERDICT_NOT_JUDGED:
		return "\033[33m";
	default:
		return "\033[2m";
	}
}

/* Format a value in its unit for the table: ms with 3 decimals, bytes, counts. */
static void fmt_value(char *out, size_t size, bool has, double v, const char *unit)
{
	if (!has) {
		snprintf(out, size, "-");
		return;
	}
	if (!unit)
		unit = "";
	if (!strcmp(unit, "ms"))
		snprintf(out, size, "%.3f ms", v);
	else if (!strcmp(unit, "bytes"))
		snprintf(out, size, "%.0f B", v);
	else if (!strcmp(unit, "confidence"))
		snprintf(out, size, "%.2f", v);
	else
		snprintf(out, size, "%.0f %s", v, unit);
}

/* Widest reason shown in the console table, bytes; the message below has all of it. */
#define REASON_MAX 72

const char *rn_report_reason(const struct rn_verdict_result *v)
{
	if (v->reason && *v->reason)
		return v->reason;
	if (v->message && *v->message)
		return v->message;
	return v->aggregate ? v->aggregate : "";
}

static const char *exit_meaning(int code)
{
	switch (code) {
#define RN_EXIT_CASE(name, value, desc)                                                            \
	case value:                                                                                \
		return desc;
		RN_EXIT_CODES(RN_EXIT_CASE)
#undef RN_EXIT_CASE
	}
	return "unknown";
}

void rn_report_console(bool color, const struct rn_target_report *t, size_t n, int exit_code)
{
	const char *bold = color ? "\033[1m" : "", *reset = color ? "\033[0m" : "";
	struct rn_timing_gate gate;
	char gate_line[256];
	struct rn_buf b;
	size_t i, k;

	rn_buf_init(&b, 0);
	rn_timing_gate(t, n, &gate);
	if (rn_timing_gate_format(&gate, gate_line, sizeof(gate_line)))
		rn_buf_addf(&b, "\n%s%s%s", bold, gate_line, reset);
	rn_buf_addf(&b, "\n%s%-18s %-24s %-10s %16s %16s %16s %9s  %s%s\n", bold, "TARGET",
		    "ASSERTION", "VERDICT", "MEASURED", "BUDGET", "GOLDEN", "DELTA", "REASON",
		    reset);
	for (i = 0; i < n; i++) {
		for (k = 0; k < t[i].nverdicts; k++) {
			const struct rn_verdict_result *v = &t[i].verdicts[k];
			char meas[32], bud[32], gold[32], delta[16];

			fmt_value(meas, sizeof(meas), v->has_observed, v->observed, v->unit);
			fmt_value(bud, sizeof(bud), v->has_budget, v->budget, v->unit);
			fmt_value(gold, sizeof(gold), v->has_golden, v->golden, v->unit);
			if (v->has_observed && (v->has_budget || v->has_golden))
				snprintf(delta, sizeof(delta), "%+.1f%%", v->delta_pct);
			else
				snprintf(delta, sizeof(delta), "-");
			char *aname = rn_escaped_dup(v->assertion);

			rn_buf_addf(&b, "%-18.18s %-24.24s %s%-10s%s %16s %16s %16s %9s  %.*s\n",
				    t[i].result->name, aname,
				    color ? verdict_color(v->verdict) : "",
				    rn_verdict_label(v->verdict), reset, meas, bud, gold, delta,
				    REASON_MAX, rn_report_reason(v));
			free(aname);
		}
	}
	/* Details of everything that did not pass, so the failure says what grew and by how much. */
	for (i = 0; i < n; i++) {
		for (k = 0; k < t[i].nverdicts; k++) {
			const struct rn_verdict_result *v = &t[i].verdicts[k];

			/* calibrate's rows are what it measured: shown whole whatever the verdict */
			if ((v->verdict == RN_VERDICT_PASS &&
			     !(v->type && !strcmp(v->type, "calibrate"))) ||
			    v->verdict == RN_VERDICT_SKIP)
				continue;
			char *aname = rn_escaped_dup(v->assertion);
			char *msg = rn_escaped_dup(v->message ? v->message : "");

			rn_buf_addf(&b, "\n%s%s%s %s/%s: %s\n",
				    color ? verdict_color(v->verdict) : "",
				    rn_verdict_label(v->verdict), reset, t[i].result->name, aname,
				    msg);
			free(aname);
			free(msg);
			if (v->detail) {
				const char *p = v->detail;

				while (*p) {
					const char *nl = strchr(p, '\n');
					size_t len = nl ? (size_t)(nl - p) : strlen(p);
					char *line = rn_xstrndup(p, len),
					     *esc = rn_escaped_dup(line);

					rn_buf_addf(&b, "    %s\n", esc);
					free(esc);
					free(line);
					p += len + (nl ? 1 : 0);
				}
			}
		}
	}
	rn_buf_addf(&b,
		    "\n%sresult:%s %zu passed, %zu failed, %zu warnings, %zu no data, %zu errors, "
		    "%zu skipped, %zu not judged; exit %d (%s)\n",
		    bold, reset, rn_report_count(t, n, RN_VERDICT_PASS),
		    rn_report_count(t, n, RN_VERDICT_FAIL), rn_report_count(t, n, RN_VERDICT_WARN),
		    rn_report_count(t, n, RN_VERDICT_NO_DATA),
		    rn_report_count(t, n, RN_VERDICT_ERROR), rn_report_count(t, n, RN_VERDICT_SKIP),
		    rn_report_count(t, n, RN_VERDICT_NOT_JUDGED), exit_code,
		    exit_meaning(exit_code));
	/* A target that ran with nothing to judge it adds no row: say so, or a config whose golden
	 * traces were never recorded reads as a clean pass. */
	for (i = 0; i < n; i++) {
		char *name;

		if (t[i].nverdicts || !t[i].result)
			continue;
		name = rn_escaped_dup(t[i].result->name);
		rn_buf_addf(&b,
			    "%snote:%s target '%s' was run but nothing judged it: no assertion "
			    "applies to it and no golden trace was compared (renacer golden update "
			    "records one)\n",
			    bold, reset, name);
		free(name);
	}
	if (rn_report_count(t, n, RN_VERDICT_NOT_JUDGED))
		rn_buf_addf(&b,
			    "%snote:%s %zu metric%s not judged: this gate covered only the judged "
			    "ones (the messages above say what to change; [regression] not_judged = "
			    "\"fail\" makes them block)\n",
			    bold, reset, rn_report_count(t, n, RN_VERDICT_NOT_JUDGED),
			    rn_report_count(t, n, RN_VERDICT_NOT_JUDGED) == 1 ? " was" : "s were");
	rn_write_stderr(b.buf, b.len);
	rn_buf_release(&b);
}

int rn_report_bench_json(const char *path, const struct rn_target_report *t, size_t n)
{
	static const struct {
		enum rn_metric m;
		const char *unit;
		double scale;
	} rows[] = {
		{ RN_METRIC_WALL, "ms", 1e6 },
		{ RN_METRIC_CRITICAL_PATH, "ms", 1e6 },
		{ RN_METRIC_PEAK_RSS, "bytes", 1 },
		{ RN_METRIC_SYSCALLS, "syscalls", 1 },
	};
	json_t *arr = json_array();
	char *text;
	size_t i, k;
	int rc;

	for (i = 0; i < n; i++) {
		const struct rn_target_result *r = t[i].result;

		if (!rn_target_result_measured(r))
			continue;
		for (k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
			size_t ns;
			double *s = rn_target_result_samples(r, rows[k].m, &ns);
			double med = rn_aggregate(s, ns, RN_AGG_MEDIAN);
			char name[256], extra[64];

			if (!ns) {
				free(s); /* not measured by the runs this check made */
				continue;
			}
			snprintf(name, sizeof(name), "%s %s", r->name,
				 rn_metric_info(rows[k].m)->name);
			snprintf(extra, sizeof(extra), "median of %zu %s", ns,
				 rn_metric_measured_by(rows[k].m) == RN_MEASURES_COUNTS &&
						 r->ncounts ?
					 "counting runs" :
					 "runs");
			json_array_append_new(arr,
					      json_pack("{s:s, s:s, s:f, s:s}", "name", name,
							"unit", rows[k].unit, "value",
							med / rows[k].scale, "extra", extra));
			free(s);
		}
	}
	text = json_dumps(arr, JSON_INDENT(2));
	json_decref(arr);
	if (!text)
		return rn_error("cannot encode '%s'", path);
	rc = rn_write_file_atomic(path, text, strlen(text));
	free(text);
	if (rc)
		return rn_error("cannot write '%s': %s", path, rn_safefile_strerror(rc));
	return 0;
}
