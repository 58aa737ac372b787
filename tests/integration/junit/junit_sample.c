/*
 * junit_sample.c - write JUnit reports covering every verdict kind for schema validation
 * (validate.sh runs xmllint on them against both XSDs of shared/junit/).
 *
 * Usage: junit_sample OUT_DIR
 * Writes OUT_DIR/mix.xml (pass, fail, warn, skip, no data, error, hostile text, a partial
 * suite, an unnamed suite), OUT_DIR/empty.xml (no suites) and OUT_DIR/golden.xml (the verdicts
 * of a real golden comparison). The locale comes from the environment (setlocale(LC_ALL, "")),
 * so running it under a decimal-comma locale checks that numbers do not follow it; it prints
 * "decimal point: X" for the caller.
 */
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "golden.h"
#include "junit.h"

static struct rn_verdict_result verdict(const char *name, const char *type, enum rn_verdict v,
					const char *msg)
{
	struct rn_verdict_result r;

	memset(&r, 0, sizeof(r));
	r.assertion = (char *)name;
	r.type = (char *)type;
	r.target = (char *)"sample";
	r.verdict = v;
	r.message = (char *)msg;
	r.unit = "ms";
	r.time_ns = 1234567;
	return r;
}

static int write_mix(const char *dir)
{
	struct rn_verdict_result v[7];
	struct rn_target_result r[3];
	struct rn_target_report t[3];
	struct rn_outcome oc;
	struct rn_metrics runs[5];
	char path[4096];
	size_t i;

	memset(r, 0, sizeof(r));
	memset(t, 0, sizeof(t));
	memset(&oc, 0, sizeof(oc));
	memset(runs, 0, sizeof(runs));
	for (i = 0; i < 5; i++)
		runs[i].v[RN_METRIC_WALL] = 1234567 + i; /* testcase time="0.001" */
	r[0].runs = runs;
	r[0].nruns = 5;
	v[0] = verdict("api_latency", "critical_path", RN_VERDICT_PASS, "critical path 1.2 ms");
	v[1] = verdict("span_budget", "span_count", RN_VERDICT_FAIL, "openat spans 40 > 20");
	v[1].has_observed = v[1].has_budget = true;
	v[1].observed = 40;
	v[1].budget = 20;
	v[1].delta_pct = 100;
	v[1].unit = "spans";
	v[1].detail = (char *)"span      count\nopenat       40\n";
	v[2] = verdict("rss_soft", "memory_usage", RN_VERDICT_WARN, "peak rss 12 MiB > 10 MiB");
	v[3] = verdict("disabled", "anti_pattern", RN_VERDICT_SKIP, "enabled = false");
	v[4] = verdict("gpu_time", "critical_path", RN_VERDICT_NO_DATA, "no GPU spans in any run");
	v[5] = verdict("crashed", "critical_path", RN_VERDICT_ERROR, "target killed by SIGSEGV");
	v[6] = verdict("hostile <&>\"'", "anti_pattern", RN_VERDICT_FAIL,
		       "bell\x07 esc\x1b[1m nul-free \xff\xfe \xef\xbf\xbe ]]> \r\n end");
	v[6].detail = (char *)"\x01\x02 control \xc0\x80 overlong\n";

	r[0].name = (char *)"sample";
	r[0].start_unix_ns = 1700000000ull * 1000000000ull;
	r[0].duration_ns = 12345600000ull;
	t[0].verdicts = v;
	t[0].nverdicts = 7;
	t[0].golden_file = (char *)"golden_traces/sample.json";
	r[1].name = (char *)"interrupted";
	r[1].status = RN_RUN_INTERRUPTED;
	r[1].duration_ns = 500000000ull;
	t[1].verdicts = v;
	t[1].nverdicts = 1;
	r[2].name = NULL;
	for (i = 0; i < 3; i++)
		t[i].result = &r[i];
	oc.targets = r;
	oc.reports = t;
	oc.ntargets = 3;
	oc.interrupted = SIGINT;
	snprintf(path, sizeof(path), "%s/mix.xml", dir);
	return rn_junit_write(path, &oc);
}

static int write_empty(const char *dir)
{
	struct rn_outcome oc;
	char path[4096];

	memset(&oc, 0, sizeof(oc));
	snprintf(path, sizeof(path), "%s/empty.xml", dir);
	return rn_junit_write(path, &oc);
}

/* A golden comparison with failures, as `renacer check` reports it. */
static int write_golden(const char *dir)
{
	int nr_read = rn_syscall_lookup("read"), n = rn_syscall_table_size(), rc;
	struct rn_regression_cfg cfg;
	struct rn_target_result r;
	struct rn_verdict_result *v;
	struct rn_target_report t;
	struct rn_outcome oc;
	struct rn_golden g;
	struct rn_diag d;
	char path[4096];
	size_t nv, i;

	rn_target_result_init(&r, "sample");
	r.nruns = 10;
	r.runs = calloc(10, sizeof(*r.runs));
	r.syscall_calls = calloc((size_t)n, sizeof(double));
	r.syscall_errors = calloc((size_t)n, sizeof(double));
	if (!r.runs || !r.syscall_calls || !r.syscall_errors || nr_read < 0)
		return -1;
	r.syscall_calls[nr_read] = 100;
	for (i = 0; i < 10; i++) {
		r.runs[i].v[RN_METRIC_WALL] = 100000000 + i * 100000;
		r.runs[i].v[RN_METRIC_CRITICAL_PATH] = 90000000 + i * 100000;
		r.runs[i].v[RN_METRIC_PEAK_RSS] = 8 << 20;
		r.runs[i].v[RN_METRIC_SYSCALLS] = 100;
	}
	snprintf(path, sizeof(path), "%s/sample.golden.json", dir);
	if (rn_golden_write(path, &r, NULL, &d) || rn_golden_read(path, &g, &d)) {
		rn_diag_print(&d, false);
		return -1;
	}
	for (i = 0; i < 10; i++) {
		r.runs[i].v[RN_METRIC_WALL] = 140000000 + i * 100000;
		r.runs[i].v[RN_METRIC_SYSCALLS] = 200;
	}
	r.syscall_calls[nr_read] = 200;
	rn_regression_cfg_init(&cfg);
	rn_golden_compare(&g, "golden_traces/sample.json", &r, &cfg, &v, &nv);
	memset(&t, 0, sizeof(t));
	memset(&oc, 0, sizeof(oc));
	r.duration_ns = 3000000000ull;
	t.result = &r;
	t.verdicts = v;
	t.nverdicts = nv;
	t.golden_file = (char *)"golden_traces/sample.json";
	oc.targets = &r;
	oc.reports = &t;
	oc.ntargets = 1;
	snprintf(path, sizeof(path), "%s/golden.xml", dir);
	rc = rn_junit_write(path, &oc);
	for (i = 0; i < nv; i++)
		rn_verdict_result_release(&v[i]);
	free(v);
	rn_golden_release(&g);
	rn_target_result_release(&r);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: junit_sample OUT_DIR\n");
		return 2;
	}
	setlocale(LC_ALL, "");
	printf("decimal point: %s\n", localeconv()->decimal_point);
	if (write_mix(argv[1]) || write_empty(argv[1]) || write_golden(argv[1]))
		return 1;
	return 0;
}
