#include "junit.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "internal.h"
#include "now.h"
#include "safefile.h"
#include "timing_gate.h"
#include "log.h"
#include "xalloc.h"
#include "xml.h"

/* ` name="value"` with the value escaped for an attribute. */
static void add_attr(struct rn_buf *b, const char *name, const char *value)
{
	rn_buf_addf(b, " %s=\"", name);
	rn_buf_add_xml(b, value ? value : "", value ? strlen(value) : 0, true);
	rn_buf_addc(b, '"');
}

static void add_attr_u64(struct rn_buf *b, const char *name, uint64_t v)
{
	rn_buf_addf(b, " %s=\"%llu\"", name, (unsigned long long)v);
}

/* Decimal seconds with three decimals: xs:decimal for windyroad, SUREFIRE_TIME for Jenkins
 * (at most three decimals), '.' whatever LC_NUMERIC says. */
static void add_attr_seconds(struct rn_buf *b, const char *name, double s)
{
	rn_buf_addf(b, " %s=\"", name);
	rn_buf_add_fixed(b, isfinite(s) && s > 0.0 ? s : 0.0, 3);
	rn_buf_addc(b, '"');
}

/* "YYYY-MM-DDThh:mm:ss" in UTC: the windyroad ISO8601_DATETIME_PATTERN (no zone). */
static void add_attr_timestamp(struct rn_buf *b, uint64_t unix_ns)
{
	time_t t = (time_t)(unix_ns / 1000000000u);
	struct tm tm;

	if (!gmtime_r(&t, &tm))
		memset(&tm, 0, sizeof(tm));
	rn_buf_addf(b, " timestamp=\"%04d-%02d-%02dT%02d:%02d:%02d\"", tm.tm_year + 1900,
		    tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

/* A value in a verdict's unit, for the failure body. */
static void add_quantity(struct rn_buf *b, double v, const char *unit)
{
	int prec;

	if (unit && !strcmp(unit, "ms"))
		prec = 3;
	else if (unit && !strcmp(unit, "confidence"))
		prec = 2;
	else
		prec = fabs(v - floor(v + 0.5)) < 1e-9 ? 0 : 1;
	rn_buf_add_fixed(b, v, prec);
	if (unit && *unit) {
		rn_buf_addc(b, ' ');
		rn_buf_adds(b, unit);
	}
}

/* The body of <failure>/<error>: message, the numbers, then the detail table. Plain text,
 * escaped by the caller. */
static void build_body(struct rn_buf *t, const struct rn_verdict_result *v)
{
	if (v->message)
		rn_buf_addf(t, "%s\n", v->message);
	if (v->has_observed) {
		rn_buf_adds(t, "observed: ");
		add_quantity(t, v->observed, v->unit);
		rn_buf_addc(t, '\n');
	}
	if (v->has_budget) {
		rn_buf_adds(t, "budget: ");
		add_quantity(t, v->budget, v->unit);
		rn_buf_addc(t, '\n');
	}
	if (v->has_golden) {
		rn_buf_adds(t, "golden: ");
		add_quantity(t, v->golden, v->unit);
		rn_buf_addc(t, '\n');
	}
	if (v->has_observed && (v->has_golden || v->has_budget)) {
		rn_buf_adds(t, "delta: ");
		if (v->delta_pct >= 0)
			rn_buf_addc(t, '+');
		rn_buf_add_fixed(t, v->delta_pct, 1);
		rn_buf_adds(t, "%\n");
	}
	if (v->aggregate)
		rn_buf_addf(t, "aggregate: %s\n", v->aggregate);
	if (v->config_line > 0)
		rn_buf_addf(t, "config line: %d\n", v->config_line);
	if (v->detail && *v->detail) {
		rn_buf_addc(t, '\n');
		rn_buf_adds(t, v->detail);
	}
}

/* <failure>/<error>/<skipped> child of a testcase, with a body. */
static void add_outcome(struct rn_buf *b, const char *elem, const char *type,
			const struct rn_verdict_result *v)
{
	struct rn_buf body;

	rn_buf_addf(b, "      <%s", elem);
	if (type)
		add_attr(b, "type", type);
	add_attr(b, "message", v->message ? v->message : "");
	rn_buf_addc(b, '>');
	rn_buf_init(&body, 0);
	build_body(&body, v);
	if (rn_buf_failed(&body))
		b->failed = true; /* an incomplete body must not pass for a complete report */
	else
		rn_buf_add_xml(b, body.buf, body.len, false);
	rn_buf_release(&body);
	rn_buf_addf(b, "</%s>\n", elem);
}

/* A WARN testcase: <skipped message="WARN: ..."> with the body. Test reporters have no
 * "passed with a warning": dorny/test-reporter (java-junit parser: failure or error -> failed,
 * skipped -> skipped, else success) and GitLab (lib/gitlab/ci/parsers/test/junit.rb: the same
 * order, the skipped body shown as the case's output) would show a bare testcase as passed and
 * ignore the suite's <system-out>. Skipped is the one status both show that does not fail. */
static void add_warn(struct rn_buf *b, const struct rn_verdict_result *v)
{
	struct rn_buf msg, body;

	rn_buf_init(&msg, 0);
	rn_buf_addf(&msg, "WARN: %s", v->message ? v->message : "");
	rn_buf_adds(b, "      <skipped");
	add_attr(b, "message", msg.buf);
	rn_buf_addc(b, '>');
	rn_buf_init(&body, 0);
	rn_buf_adds(&body, "WARN (not blocking): ");
	build_body(&body, v);
	if (rn_buf_failed(&body) || rn_buf_failed(&msg))
		b->failed = true;
	else
		rn_buf_add_xml(b, body.buf, body.len, false);
	rn_buf_adds(b, "</skipped>\n");
	rn_buf_release(&body);
	rn_buf_release(&msg);
}

static void add_testcase(struct rn_buf *b, const char *classname, const struct rn_verdict_result *v,
			 double time_s)
{
	rn_buf_adds(b, "    <testcase");
	add_attr(b, "name", v->assertion && *v->assertion ? v->assertion : "unnamed");
	add_attr(b, "classname", classname);
	add_attr_seconds(b, "time", time_s);
	switch (v->verdict) {
	case RN_VERDICT_FAIL:
		rn_buf_adds(b, ">\n");
		add_outcome(b, "failure", v->type && *v->type ? v->type : "FAIL", v);
		break;
	case RN_VERDICT_ERROR:
		rn_buf_adds(b, ">\n");
		add_outcome(b, "error", "ERROR", v);
		break;
	case RN_VERDICT_NO_DATA:
		rn_buf_adds(b, ">\n");
		add_outcome(b, "error", "NO DATA", v);
		break;
	case RN_VERDICT_SKIP:
		rn_buf_adds(b, ">\n      <skipped");
		add_attr(b, "message", v->message ? v->message : "");
		rn_buf_adds(b, "/>\n");
		break;
	case RN_VERDICT_NOT_JUDGED: /* skipped, with the reason and what to change as body */
		rn_buf_adds(b, ">\n");
		add_outcome(b, "skipped", NULL, v);
		break;
	case RN_VERDICT_WARN: /* does not block, but is no pass: skipped with "WARN: " */
		rn_buf_adds(b, ">\n");
		add_warn(b, v);
		break;
	case RN_VERDICT_PASS:
	default:
		rn_buf_adds(b, "/>\n");
		return;
	}
	rn_buf_adds(b, "    </testcase>\n");
}

/*
 * A testcase's time, seconds: what its row measured when that is a duration (a verdict in unit
 * "ms": critical path, wall and CPU time against a golden trace or the base, span_time), else
 * `target_s`, the time the check spent on the target (the suite's time: its runs and their
 * judging).
 */
static double case_time_s(double target_s, const struct rn_verdict_result *v)
{
	if (v->has_observed && v->unit && !strcmp(v->unit, "ms") && isfinite(v->observed) &&
	    v->observed >= 0.0)
		return v->observed / 1e3;
	return target_s;
}

/* The <properties> of target `r`: version, runs, the check's timing gate, golden file. */
static void add_properties(struct rn_buf *b, const struct rn_target_result *r,
			   const struct rn_target_report *t, const char *timing_gate)
{
	rn_buf_adds(b, ">\n    <properties>\n");
	rn_buf_adds(b, "      <property name=\"renacer_version\"");
	add_attr(b, "value", RN_VERSION);
	rn_buf_adds(b, "/>\n      <property name=\"runs\"");
	add_attr_u64(b, "value", r->nruns);
	rn_buf_adds(b, "/>\n      <property name=\"counting_runs\"");
	add_attr_u64(b, "value", r->ncounts);
	rn_buf_adds(b, "/>\n");
	if (*timing_gate) {
		rn_buf_adds(b, "      <property name=\"timing_gate\"");
		add_attr(b, "value", timing_gate);
		rn_buf_adds(b, "/>\n");
	}
	if (t->golden_file) {
		rn_buf_adds(b, "      <property name=\"golden_file\"");
		add_attr(b, "value", t->golden_file);
		rn_buf_adds(b, "/>\n");
	}
	rn_buf_adds(b, "    </properties>\n");
}

/* The testcase that says the target did not finish (renacer was interrupted). */
static void add_interrupted(struct rn_buf *b, const char *classname, const char *name)
{
	struct rn_buf msg;

	rn_buf_init(&msg, 0);
	rn_buf_addf(&msg, "renacer was interrupted before target '%s' finished", name);
	rn_buf_adds(b, "    <testcase name=\"renacer interrupted\"");
	add_attr(b, "classname", classname);
	rn_buf_adds(b, " time=\"0.000\">\n      <error type=\"interrupted\"");
	add_attr(b, "message", msg.buf);
	rn_buf_adds(b, "/>\n    </testcase>\n");
	if (rn_buf_failed(&msg))
		b->failed = true;
	rn_buf_release(&msg);
}

/* <system-out>: one line per WARN verdict, and the partial-report line. */
static void add_system_out(struct rn_buf *b, const struct rn_target_report *t, const char *name,
			   bool partial)
{
	struct rn_buf out;
	size_t i;

	rn_buf_init(&out, 0);
	for (i = 0; i < t->nverdicts; i++)
		if (t->verdicts[i].verdict == RN_VERDICT_WARN)
			rn_buf_addf(&out, "WARN %s: %s\n", t->verdicts[i].assertion,
				    t->verdicts[i].message ? t->verdicts[i].message : "");
	if (partial)
		rn_buf_addf(&out,
			    "renacer was interrupted before target '%s' finished; this "
			    "report is partial\n",
			    name);
	rn_buf_adds(b, "    <system-out>");
	if (rn_buf_failed(&out))
		b->failed = true;
	else
		rn_buf_add_xml(b, out.buf, out.len, false);
	rn_buf_adds(b, "</system-out>\n    <system-err></system-err>\n  </testsuite>\n");
	rn_buf_release(&out);
}

/* The <testsuite> of target `id` of the outcome. */
static void add_suite(struct rn_buf *b, const struct rn_outcome *oc, size_t id,
		      const char *timing_gate, const char *hostname, uint64_t now_unix_ns)
{
	const struct rn_target_result *r = &oc->targets[id];
	const struct rn_target_report *t = &oc->reports[id];
	const char *name = r->name && *r->name ? r->name : "unnamed";
	bool partial = oc->interrupted && r->status == RN_RUN_INTERRUPTED;
	double time_s = (double)r->duration_ns / 1e9;
	size_t failures = 0, errors = 0, skipped = 0, i;
	struct rn_buf classname;

	for (i = 0; i < t->nverdicts; i++) {
		enum rn_verdict v = t->verdicts[i].verdict;

		failures += v == RN_VERDICT_FAIL;
		errors += v == RN_VERDICT_ERROR || v == RN_VERDICT_NO_DATA;
		skipped +=
			v == RN_VERDICT_SKIP || v == RN_VERDICT_NOT_JUDGED || v == RN_VERDICT_WARN;
	}
	rn_buf_init(&classname, 0);
	rn_buf_addf(&classname, "renacer.%s", name);
	if (rn_buf_failed(&classname))
		b->failed = true;

	rn_buf_adds(b, "  <testsuite");
	add_attr(b, "name", name);
	add_attr_u64(b, "tests", t->nverdicts + partial);
	add_attr_u64(b, "failures", failures);
	add_attr_u64(b, "errors", errors + partial);
	add_attr_u64(b, "skipped", skipped);
	add_attr_seconds(b, "time", time_s);
	add_attr_timestamp(b, r->start_unix_ns ? r->start_unix_ns : now_unix_ns);
	add_attr(b, "hostname", hostname);
	add_attr_u64(b, "id", id);
	add_attr(b, "package", "renacer");
	add_properties(b, r, t, timing_gate);
	for (i = 0; i < t->nverdicts; i++)
		add_testcase(b, classname.buf, &t->verdicts[i],
			     case_time_s(time_s, &t->verdicts[i]));
	if (partial)
		add_interrupted(b, classname.buf, name);
	add_system_out(b, t, name, partial);
	rn_buf_release(&classname);
}

char *rn_junit_render(const struct rn_outcome *oc, const char *hostname, uint64_t now_unix_ns,
		      size_t *len)
{
	struct rn_timing_gate gate;
	char host[256], gate_line[256];
	struct rn_buf b;
	size_t i;

	if (!hostname) {
		if (gethostname(host, sizeof(host)) < 0)
			host[0] = '\0';
		host[sizeof(host) - 1] = '\0';
		/* The windyroad schema: "'localhost' should be used if the hostname cannot be
		 * determined". */
		hostname = host[0] ? host : "localhost";
	}
	if (!now_unix_ns)
		now_unix_ns = rn_real_ns();
	rn_timing_gate(oc->reports, oc->ntargets, &gate);
	rn_timing_gate_format(&gate, gate_line, sizeof(gate_line));
	rn_buf_init(&b, 0);
	rn_buf_adds(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n");
	for (i = 0; i < oc->ntargets; i++)
		add_suite(&b, oc, i, gate_line, hostname, now_unix_ns);
	rn_buf_adds(&b, "</testsuites>\n");
	return rn_buf_detach(&b, len);
}

/* The directory part of `path` ("." when it has none), malloc'ed. */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t n;
	char *d;

	if (!slash)
		return rn_strdup(".");
	n = slash == path ? 1 : (size_t)(slash - path);
	d = rn_malloc(n + 1);
	if (d) {
		memcpy(d, path, n);
		d[n] = '\0';
	}
	return d;
}

int rn_junit_write(const char *path, const struct rn_outcome *oc)
{
	size_t len;
	char *xml = rn_junit_render(oc, NULL, 0, &len);
	int rc;

	if (!xml) {
		rn_error("cannot write JUnit report '%s': out of memory", path);
		return -ENOMEM;
	}
	rc = rn_write_file_atomic(path, xml, len);
	free(xml);
	if (rc == -ENOENT) {
		char *dir = dir_of(path);
		struct stat st;

		if (dir && stat(dir, &st) < 0)
			rn_error("cannot write JUnit report '%s': directory '%s' does not exist",
				 path, dir);
		else
			rn_error("cannot write JUnit report '%s': %s", path,
				 rn_safefile_strerror(rc));
		free(dir);
	} else if (rc < 0) {
		rn_error("cannot write JUnit report '%s': %s", path, rn_safefile_strerror(rc));
	}
	return rc;
}
