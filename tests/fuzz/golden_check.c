/*
 * golden_check.c - see golden_check.h.
 */
#include "golden_check.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "golden.h"
#include "junit.h"

#define NRUNS 5

static bool starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* A clean result of NRUNS runs with a few syscalls, as rn_target_result_add_run would fill. */
static void make_result(struct rn_target_result *r)
{
	static const char *const names[] = { "read", "openat", "close", "fsync" };
	size_t n = (size_t)rn_syscall_table_size(), i;

	rn_target_result_init(r, "fuzz");
	r->nruns = NRUNS;
	r->runs = calloc(NRUNS, sizeof(*r->runs));
	r->syscall_calls = calloc(n, sizeof(double));
	r->syscall_errors = calloc(n, sizeof(double));
	FUZZ_CHECK(r->runs && r->syscall_calls && r->syscall_errors, "out of memory");
	r->status = RN_RUN_OK;
	r->start_unix_ns = 1700000000ull * 1000000000ull;
	for (i = 0; i < NRUNS; i++) {
		r->runs[i].v[RN_METRIC_WALL] = 10000000 + 1000 * i;
		r->runs[i].v[RN_METRIC_CRITICAL_PATH] = 9000000 + 1000 * i;
		r->runs[i].v[RN_METRIC_PEAK_RSS] = 4 << 20;
		r->runs[i].v[RN_METRIC_ALLOC_PEAK] = 1 << 20;
		r->runs[i].v[RN_METRIC_SYSCALLS] = 140;
		r->runs[i].v[RN_METRIC_SYSCALL_ERRORS] = 2;
		r->runs[i].v[RN_METRIC_PROCESSES] = 1;
		r->runs[i].v[RN_METRIC_GPU_BUSY] = 500000;
		r->runs[i].v[RN_METRIC_GPU_DISPATCHES] = 12;
	}
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		int nr = rn_syscall_lookup(names[i]);

		if (nr >= 0)
			r->syscall_calls[nr] = (double)(20 * (i + 1));
	}
}

static void check_golden(const struct rn_golden *g)
{
	size_t i;

	FUZZ_CHECK(g->version == 0 || g->version == 1 || g->version == 2 ||
			   g->version == RN_GOLDEN_VERSION,
		   "unexpected version");
	FUZZ_CHECK(g->has_spans == (g->version >= 3), "has_spans disagrees with the version");
	for (i = 0; i < g->nspans; i++) {
		FUZZ_CHECK(!strncmp(g->spans[i].name, "app:", 4), "a span name without \"app:\"");
		FUZZ_CHECK(g->spans[i].n >= 1 && g->spans[i].n <= g->nruns,
			   "a span's run count is not 1..runs");
		FUZZ_CHECK(g->spans[i].ncpu <= g->nruns && !g->spans[i].ncpu == !g->spans[i].cpu_ns,
			   "a span's CPU run count is not 0..runs");
		if (i)
			FUZZ_CHECK(strcmp(g->spans[i - 1].name, g->spans[i].name) < 0,
				   "spans not sorted by name, or a name repeats");
	}
	FUZZ_CHECK(g->timing_under_tracer == (g->version == 1),
		   "timing_under_tracer disagrees with the version");
	FUZZ_CHECK(g->counts_only == (g->version == 0), "counts_only disagrees with the version");
	FUZZ_CHECK(g->nruns >= 1, "no runs");
	FUZZ_CHECK(g->argv != NULL, "argv is NULL");
	FUZZ_CHECK(g->version == 0 || (g->target && *g->target), "no target name");
	FUZZ_CHECK(g->nsyscalls == 0 || g->syscalls, "syscalls missing");
	for (i = 0; i < RN_METRIC_COUNT; i++)
		FUZZ_CHECK(!g->samples[i] || g->nsamples[i] == g->nruns ||
				   g->nsamples[i] == g->ncounting_runs,
			   "a metric's sample count is neither runs nor counting_runs");
	for (i = 0; i < g->nsyscalls; i++) {
		FUZZ_CHECK(g->syscalls[i].name && *g->syscalls[i].name, "syscall without a name");
		FUZZ_CHECK(g->syscalls[i].calls >= 0 && g->syscalls[i].errors >= 0 &&
				   g->syscalls[i].total_ns >= 0,
			   "negative syscall count");
		FUZZ_CHECK(g->syscalls[i].errors <= g->syscalls[i].calls, "errors > calls");
		if (i)
			FUZZ_CHECK(strcmp(g->syscalls[i - 1].name, g->syscalls[i].name) < 0,
				   "syscalls not sorted by name, or a name repeats");
	}
}

static void compare_and_render(const struct rn_golden *g, const char *path)
{
	struct rn_regression_cfg cfg;
	struct rn_target_result r;
	struct rn_verdict_result *v = NULL;
	struct rn_target_report t;
	struct rn_outcome oc;
	size_t nv = 0, i, len = 0;
	char *xml;

	make_result(&r);
	rn_regression_cfg_init(&cfg);
	FUZZ_CHECK(rn_golden_compare(g, path, &r, &cfg, &v, &nv) == 0, "compare failed");
	FUZZ_CHECK(nv == 0 || v, "verdicts missing");
	for (i = 0; i < nv; i++) {
		FUZZ_CHECK(v[i].assertion && starts_with(v[i].assertion, "golden:"),
			   "verdict without a golden: name");
		FUZZ_CHECK(v[i].message != NULL, "verdict without a message");
	}
	memset(&t, 0, sizeof(t));
	memset(&oc, 0, sizeof(oc));
	t.result = &r;
	t.verdicts = v;
	t.nverdicts = nv;
	t.golden_file = (char *)path;
	oc.targets = &r;
	oc.reports = &t;
	oc.ntargets = 1;
	xml = rn_junit_render(&oc, "fuzzhost", r.start_unix_ns, &len);
	FUZZ_CHECK(xml != NULL, "JUnit rendering failed");
	fuzz_check_xml_chars(xml, len, "JUnit report of golden verdicts");
	free(xml);
	for (i = 0; i < nv; i++)
		rn_verdict_result_release(&v[i]);
	free(v);
	rn_target_result_release(&r);
}

void golden_check(const uint8_t *data, size_t size)
{
	const char *path = fuzz_tmpfile_write(data, size);
	struct rn_golden g;
	struct rn_diag d;
	int rc;

	rc = rn_golden_read(path, &g, &d);
	if (rc) {
		static const char *const documented[] = {
			"truncated golden trace: ",
			"corrupt golden trace: ",
			"not a golden trace: ",
			"written by a newer renacer (format ",
			NULL,
		};
		char *line;
		size_t i;

		FUZZ_CHECK(rc == -EINVAL || rc == -EPROTONOSUPPORT, "undocumented return code");
		FUZZ_CHECK(d.set, "error without a diagnostic");
		FUZZ_CHECK(d.file && !strcmp(d.file, path), "diagnostic does not name the file");
		for (i = 0; documented[i]; i++)
			if (starts_with(d.msg, documented[i]))
				break;
		if (!documented[i])
			fuzz_fail("undocumented golden trace error: %s", d.msg);
		FUZZ_CHECK((rc == -EPROTONOSUPPORT) == (i == 3),
			   "newer-format code and message differ");
		line = rn_diag_oneline(&d);
		FUZZ_CHECK(line && starts_with(line, path), "one-line diagnostic lacks the path");
		free(line);
		/* Nothing to release on failure: g must be zeroed. */
		FUZZ_CHECK(!g.target && !g.argv && !g.syscalls && !g.nsyscalls,
			   "failed read left data behind");
		return;
	}
	check_golden(&g);
	compare_and_render(&g, path);
	rn_golden_release(&g);
}
