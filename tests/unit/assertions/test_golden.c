/*
 * test_golden.c - golden traces: write/read round trip, determinism, exact error messages for
 * broken files, the renacer-json-v1 import, and the regression semantics of rn_golden_compare
 * (counts in log space with a floor, noise-aware timing, memory, other-machine downgrade).
 *
 * Target results are built by hand (no tracing): per-run metrics and per-syscall medians are
 * filled directly, as rn_target_result_add_run() would.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "assertions/internal.h"
#include "buf.h"
#include "golden.h"

#define DATA RN_SOURCE_DIR "/tests/unit/assertions/golden/"
#define OUT RN_BINARY_DIR "/test_golden_"

/* ---- fixtures ----------------------------------------------------------------------------- */

/* Deterministic noise in [-1, 1). */
static double noise(unsigned *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return (double)((*seed >> 8) & 0xffff) / 32768.0 - 1.0;
}

static int nr_of(const char *name)
{
	int nr = rn_syscall_lookup(name);

	assert_true(nr >= 0);
	return nr;
}

/*
 * A clean result of `nruns` runs: wall time and critical path around `wall_ms` with +-`jitter`
 * relative noise, peak RSS `rss` bytes, and syscalls read = 100, openat = 20, close = 20.
 */
static void make_result(struct rn_target_result *r, size_t nruns, double wall_ms, double jitter,
			unsigned seed, uint64_t rss)
{
	size_t i, n = (size_t)rn_syscall_table_size();

	rn_target_result_init(r, "io_loop");
	r->nruns = nruns;
	r->runs = calloc(nruns, sizeof(*r->runs));
	r->syscall_calls = calloc(n, sizeof(double));
	r->syscall_errors = calloc(n, sizeof(double));
	assert_non_null(r->runs);
	r->status = RN_RUN_OK;
	r->start_unix_ns = 1700000000ull * 1000000000ull; /* 2023-11-14T22:13:20Z */
	r->build_id = strdup("3f2a9c0b");
	for (i = 0; i < nruns; i++) {
		double w = wall_ms * 1e6 * (1.0 + jitter * noise(&seed));

		r->runs[i].v[RN_METRIC_WALL] = (uint64_t)w;
		r->runs[i].v[RN_METRIC_CRITICAL_PATH] = (uint64_t)(w * 0.9);
		r->runs[i].v[RN_METRIC_PEAK_RSS] = rss;
		r->runs[i].v[RN_METRIC_ALLOC_PEAK] = rss / 2;
		r->runs[i].v[RN_METRIC_ALLOC_TOTAL] = rss;
		r->runs[i].v[RN_METRIC_SYSCALLS] = 140;
		r->runs[i].v[RN_METRIC_SYSCALL_ERRORS] = 2;
		r->runs[i].v[RN_METRIC_PROCESSES] = 1;
	}
	r->syscall_calls[nr_of("read")] = 100;
	r->syscall_calls[nr_of("openat")] = 20;
	r->syscall_errors[nr_of("openat")] = 2;
	r->syscall_calls[nr_of("close")] = 20;
}

/* Append the app span series `name` ("app:x", in name order after those there) to `r`: one
 * value per run around `ms` with +-`jitter` relative noise. */
static void add_span_series(struct rn_target_result *r, const char *name, double ms, double jitter,
			    unsigned seed)
{
	struct rn_span_series *s;
	size_t i;

	r->app_spans = realloc(r->app_spans, (r->napp_spans + 1) * sizeof(*r->app_spans));
	assert_non_null(r->app_spans);
	s = &r->app_spans[r->napp_spans++];
	memset(s, 0, sizeof(*s));
	s->name = strdup(name);
	s->ns = calloc(r->nruns, sizeof(*s->ns));
	assert_non_null(s->ns);
	s->n = r->nruns;
	for (i = 0; i < r->nruns; i++)
		s->ns[i] = floor(ms * 1e6 * (1.0 + jitter * noise(&seed)));
}

/* Give the last app span series of `r` a CPU time per run around `ms` with +-`jitter`
 * relative noise (renacer_span.h push/pop spans carry one). */
static void add_span_cpu(struct rn_target_result *r, double ms, double jitter, unsigned seed)
{
	struct rn_span_series *s = &r->app_spans[r->napp_spans - 1];
	size_t i;

	s->cpu_ns = calloc(s->n, sizeof(*s->cpu_ns));
	assert_non_null(s->cpu_ns);
	s->ncpu = s->n;
	for (i = 0; i < s->n; i++)
		s->cpu_ns[i] = floor(ms * 1e6 * (1.0 + jitter * noise(&seed)));
}

static void free_result(struct rn_target_result *r)
{
	free(r->syscall_ns);
	r->syscall_ns = NULL;
	rn_target_result_release(r);
}

/* Set the total syscall count of every run. */
static void set_total(struct rn_target_result *r, uint64_t calls)
{
	size_t i;

	for (i = 0; i < r->nruns; i++)
		r->runs[i].v[RN_METRIC_SYSCALLS] = calls;
}

/* Write `r` as a golden trace to OUT<name>.json and read it back into `g`. */
static void golden_of(const struct rn_target_result *r, const char *name, struct rn_golden *g)
{
	static const char *const argv[] = { "build/targets/io_loop", "--files", "8", NULL };
	char path[4096];
	struct rn_diag d;

	snprintf(path, sizeof(path), OUT "%s.json", name);
	assert_int_equal(rn_golden_write(path, r, argv, &d), 0);
	assert_int_equal(rn_golden_read(path, g, &d), 0);
}

static struct rn_verdict_result *find(struct rn_verdict_result *v, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(v[i].assertion, name))
			return &v[i];
	fail_msg("no verdict '%s'", name);
	return NULL;
}

static struct rn_verdict_result *find_or_null(struct rn_verdict_result *v, size_t n,
					      const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(v[i].assertion, name))
			return &v[i];
	return NULL;
}

static void free_verdicts(struct rn_verdict_result *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		rn_verdict_result_release(&v[i]);
	free(v);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

/* Compare `r` against `g` with the default configuration. */
static size_t compare(const struct rn_golden *g, const struct rn_target_result *r,
		      const struct rn_regression_cfg *cfg_or_null, struct rn_verdict_result **v)
{
	struct rn_regression_cfg cfg;
	size_t n;

	rn_regression_cfg_init(&cfg);
	assert_int_equal(rn_golden_compare(g, "golden_traces/io_loop.json", r,
					   cfg_or_null ? cfg_or_null : &cfg, v, &n),
			 0);
	return n;
}

/* ---- configuration and paths -------------------------------------------------------------- */

static void test_golden_regression_defaults(void **state)
{
	struct rn_regression_cfg cfg;

	(void)state;
	memset(&cfg, 0xff, sizeof(cfg));
	rn_regression_cfg_init(&cfg);
	assert_true(cfg.enabled);
	assert_float_equal(cfg.count_tolerance, 0.10, 0);
	assert_int_equal(cfg.count_floor, 1);
	assert_float_equal(cfg.timing_tolerance, 0.10, 0);
	assert_float_equal(cfg.memory_tolerance, 0.10, 0);
	assert_float_equal(cfg.alpha, 0.01, 0);
	assert_true(cfg.timing);
	assert_int_equal(cfg.min_runs_for_timing, 5);
}

static void test_golden_path(void **state)
{
	char *p;

	(void)state;
	p = rn_golden_path("golden_traces", "io_loop");
	assert_string_equal(p, "golden_traces/io_loop.json");
	free(p);
	assert_null(rn_golden_path("g", "a/b"));
	assert_null(rn_golden_path("g", ""));
	assert_null(rn_golden_path("g", ".."));
}

/* ---- writing and reading ------------------------------------------------------------------ */

static void test_golden_write_read_round_trip(void **state)
{
	struct rn_target_result r;
	struct rn_golden g;
	struct rn_golden_host h;
	size_t i;
	int m;

	(void)state;
	make_result(&r, 5, 100.0, 0.03, 1, 8 << 20);
	r.syscall_ns = calloc((size_t)rn_syscall_table_size(), sizeof(double));
	r.syscall_ns[nr_of("read")] = 123456.5; /* rounds half up */
	golden_of(&r, "roundtrip", &g);

	assert_int_equal(g.version, 3);
	assert_false(g.timing_under_tracer);
	assert_int_equal(g.ncounting_runs, 0);
	assert_false(g.counts_only);
	assert_string_equal(g.target, "io_loop");
	assert_string_equal(g.argv[0], "build/targets/io_loop");
	assert_string_equal(g.argv[1], "--files");
	assert_string_equal(g.argv[2], "8");
	assert_null(g.argv[3]);
	assert_int_equal(g.nruns, 5);
	for (m = 0; m < RN_METRIC_COUNT; m++) {
		if (m == RN_METRIC_INSTRUCTIONS && !r.runs[0].v[m]) {
			assert_null(g.samples[m]); /* not measured: left out */
			continue;
		}
		assert_non_null(g.samples[m]);
		for (i = 0; i < 5; i++)
			assert_true(g.samples[m][i] == (double)r.runs[i].v[m]);
	}
	/* Only syscalls with calls > 0, sorted by name. */
	assert_int_equal(g.nsyscalls, 3);
	assert_string_equal(g.syscalls[0].name, "close");
	assert_string_equal(g.syscalls[1].name, "openat");
	assert_string_equal(g.syscalls[2].name, "read");
	assert_true(g.syscalls[1].calls == 20 && g.syscalls[1].errors == 2);
	assert_true(g.syscalls[2].calls == 100 && g.syscalls[2].total_ns == 123457);
	/* Provenance of this host. */
	rn_golden_host(&h);
	assert_string_equal(g.renacer_version, RN_VERSION);
	assert_string_equal(g.created, "2023-11-14T22:13:20Z");
	assert_string_equal(g.kernel, h.kernel);
	assert_string_equal(g.machine, h.machine);
	assert_string_equal(g.cpu_model, h.cpu_model);
	assert_string_equal(g.build_id, "3f2a9c0b");
	assert_true(rn_golden_same_machine(&g));
	assert_false(g.has_gpu);
	rn_golden_release(&g);
	free_result(&r);
}

static void test_golden_write_is_deterministic(void **state)
{
	static const char *const argv[] = { "targets/x", NULL };
	struct rn_target_result r;
	struct rn_buf a, b;
	struct rn_diag d;
	const char *p;

	(void)state;
	make_result(&r, 4, 50.0, 0.05, 7, 1 << 20);
	assert_int_equal(rn_golden_write(OUT "det1.json", &r, argv, &d), 0);
	assert_int_equal(rn_golden_write(OUT "det2.json", &r, argv, &d), 0);
	rn_buf_init(&a, 0);
	rn_buf_init(&b, 0);
	assert_int_equal(rn_buf_read_file(&a, OUT "det1.json"), 0);
	assert_int_equal(rn_buf_read_file(&b, OUT "det2.json"), 0);
	assert_int_equal(a.len, b.len);
	assert_memory_equal(a.buf, b.buf, a.len);

	/* Sorted keys, two-space indent, a final newline, integers only. */
	assert_true(strstr(a.buf,
			   "{\n  \"argv\": [\n    \"targets/x\"\n  ],\n  \"conditions\": "
			   "{\n    \"cpu_pressure\": null,\n    \"cpus\": ") == a.buf);
	assert_non_null(strstr(a.buf,
			       "\"probe_wall_ns\": 0.0\n  },\n  \"counting_runs\": "
			       "0,\n  \"format\": \"renacer-golden/3\",\n  \"provenance\": "
			       "{\n"));
	assert_true(strstr(a.buf, "\"provenance\"") < strstr(a.buf, "\"runs\""));
	assert_true(strstr(a.buf, "\"samples\"") < strstr(a.buf, "\"syscalls\""));
	assert_true(strstr(a.buf, "\"syscalls\"") < strstr(a.buf, "\"target\""));
	assert_true(a.buf[a.len - 1] == '\n' && a.buf[a.len - 2] == '}');
	for (p = strstr(a.buf, "\"samples\""); *p; p++)
		assert_false(*p == '.' || *p == 'e' || *p == 'E' ? (p[-1] >= '0' && p[-1] <= '9') :
								   false);
	assert_null(strstr(a.buf, "\"gpu\""));

	/* SOURCE_DATE_EPOCH wins over the run's start time (reproducible builds). */
	setenv("SOURCE_DATE_EPOCH", "0", 1);
	assert_int_equal(rn_golden_write(OUT "det3.json", &r, argv, &d), 0);
	unsetenv("SOURCE_DATE_EPOCH");
	rn_buf_reset(&b);
	assert_int_equal(rn_buf_read_file(&b, OUT "det3.json"), 0);
	assert_non_null(strstr(b.buf, "\"created\": \"1970-01-01T00:00:00Z\""));
	rn_buf_release(&a);
	rn_buf_release(&b);
	free_result(&r);
}

static void test_golden_write_gpu_summary(void **state)
{
	struct rn_target_result r;
	struct rn_golden g;
	size_t i;

	(void)state;
	make_result(&r, 3, 10.0, 0.01, 3, 1 << 20);
	for (i = 0; i < 3; i++) {
		r.runs[i].has_gpu = i > 0;
		r.runs[i].v[RN_METRIC_GPU_BUSY] = 1000000 + i;
		r.runs[i].v[RN_METRIC_GPU_DISPATCHES] = 12;
		r.runs[i].v[RN_METRIC_GPU_COPY_BYTES] = 4096;
	}
	golden_of(&r, "gpu", &g);
	assert_true(g.has_gpu);
	assert_true(g.gpu.busy_ns == 1000001);
	assert_true(g.gpu.dispatches == 12);
	assert_true(g.gpu.copy_bytes == 4096);
	assert_int_equal(g.gpu.runs_with_gpu, 2);
	rn_golden_release(&g);
	free_result(&r);
}

static void test_golden_write_refuses_bad_results(void **state)
{
	struct rn_target_result r;
	struct rn_diag d;

	(void)state;
	make_result(&r, 3, 10.0, 0.01, 3, 1 << 20);
	r.status = RN_RUN_CRASHED;
	r.error = strdup("killed by SIGSEGV");
	assert_int_equal(rn_golden_write(OUT "crashed.json", &r, NULL, &d), -EINVAL);
	assert_string_equal(d.msg,
			    "target 'io_loop' crashed: killed by SIGSEGV: golden trace not "
			    "written");
	assert_int_equal(access(OUT "crashed.json", F_OK), -1);
	r.status = RN_RUN_OK;
	r.nruns = 0;
	assert_int_equal(rn_golden_write(OUT "crashed.json", &r, NULL, &d), -EINVAL);
	assert_string_equal(d.msg, "target 'io_loop' has no measured runs to record");
	r.nruns = 3;
	assert_int_equal(rn_golden_write(RN_BINARY_DIR "/no/such/dir/x.json", &r, NULL, &d),
			 -ENOENT);
	assert_string_equal(d.file, RN_BINARY_DIR "/no/such/dir/x.json");
	assert_string_equal(d.msg, "cannot write golden trace: No such file or directory");
	free_result(&r);
}

/* Read `path` expecting failure `rc`; return the one-line diagnostic (caller frees). */
static char *read_error(const char *path, int rc)
{
	struct rn_golden g;
	struct rn_diag d;

	memset(&g, 0x5a, sizeof(g)); /* must be overwritten, and need no release on failure */
	assert_int_equal(rn_golden_read(path, &g, &d), rc);
	assert_true(d.set);
	assert_null(g.target);
	return rn_diag_oneline(&d);
}

static void test_golden_read_errors(void **state)
{
	char *s;

	(void)state;
	s = read_error(DATA "does_not_exist.json", -ENOENT);
	assert_string_equal(s,
			    DATA "does_not_exist.json: error: cannot read golden trace: No such "
				 "file or directory");
	free(s);
	s = read_error(DATA "corrupt.json", -EINVAL);
	assert_string_equal(s,
			    DATA "corrupt.json:3:13: error: corrupt golden trace: string or '}' "
				 "expected near ','");
	free(s);
	s = read_error(DATA "truncated.json", -EINVAL);
	assert_string_equal(s,
			    DATA "truncated.json:8:23: error: truncated golden trace: premature "
				 "end of input near '\"Intel'");
	free(s);
	s = read_error(DATA "newer_format.json", -EPROTONOSUPPORT);
	assert_string_equal(s,
			    DATA "newer_format.json: error: written by a newer renacer (format "
				 "renacer-golden/4); this renacer reads renacer-golden/3");
	free(s);
	s = read_error(DATA "missing_format.json", -EINVAL);
	assert_string_equal(s,
			    DATA "missing_format.json: error: not a golden trace: missing "
				 "\"format\"");
	free(s);
}

/* Write `text` to OUT<name>.json and return the read error's message (static). */
static const char *read_text_error(const char *name, const char *text)
{
	static char msg[RN_DIAG_MSG_MAX];
	char path[4096];
	struct rn_golden g;
	struct rn_diag d;
	FILE *f;

	snprintf(path, sizeof(path), OUT "%s.json", name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_true(rn_golden_read(path, &g, &d) < 0);
	snprintf(msg, sizeof(msg), "%s", d.msg);
	return msg;
}

/* A golden trace cut after a newline: jansson says column 0; columns are 1-based. */
static void test_golden_read_error_column_is_one_based(void **state)
{
	char path[4096];
	struct rn_golden g;
	struct rn_diag d;
	char *s;
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), OUT "find.json");
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("{\n", f);
	fclose(f);
	assert_int_equal(rn_golden_read(path, &g, &d), -EINVAL);
	s = rn_diag_oneline(&d);
	assert_string_equal(s,
			    OUT "find.json:2:1: error: truncated golden trace: string or '}' "
				"expected near end of file");
	free(s);
}

static void test_golden_read_empty_and_odd_formats(void **state)
{
	(void)state;
	assert_string_equal(read_text_error("empty", ""), "truncated golden trace: empty file");
	assert_string_equal(read_text_error("blank", " \n\n"),
			    "truncated golden trace: empty file");
	assert_string_equal(read_text_error("cut", "{\"format\": \"renacer-golden/1\""),
			    "truncated golden trace: '}' expected near end of file");
	assert_string_equal(read_text_error("array", "[1, 2]"),
			    "corrupt golden trace: top level is not a JSON object");
	assert_string_equal(read_text_error("dup", "{\"format\": \"a\", \"format\": \"b\"}"),
			    "corrupt golden trace: duplicate object key near '\"format\"'");
	assert_string_equal(read_text_error("fmtnum", "{\"format\": 1}"),
			    "corrupt golden trace: \"format\" must be a string");
	assert_string_equal(read_text_error("other", "{\"format\": \"chrome-trace\"}"),
			    "not a golden trace: unknown format \"chrome-trace\" (expected "
			    "\"renacer-golden/3\", \"renacer-golden/2\", \"renacer-golden/1\" or "
			    "\"renacer-json-v1\")");
	assert_string_equal(read_text_error("v10", "{\"format\": \"renacer-golden/10\"}"),
			    "written by a newer renacer (format renacer-golden/10); this renacer "
			    "reads renacer-golden/3");
	assert_string_equal(read_text_error("v0", "{\"format\": \"renacer-golden/0\"}"),
			    "not a golden trace: unknown format \"renacer-golden/0\" (expected "
			    "\"renacer-golden/3\", \"renacer-golden/2\", \"renacer-golden/1\" or "
			    "\"renacer-json-v1\")");
}

/* A schema violation: modify a valid golden trace with `edit` and expect `msg`. */
struct schema_case {
	const char *name;           /* file name part */
	void (*edit)(json_t *root); /* the damage */
	const char *msg;            /* exact message */
};

static void drop_runs(json_t *root)
{
	json_object_del(root, "runs");
}

static void short_samples(json_t *root)
{
	json_array_remove(json_object_get(json_object_get(root, "samples"), "wall_time"), 0);
}

static void negative_sample(json_t *root)
{
	json_array_set_new(json_object_get(json_object_get(root, "samples"), "syscalls"), 1,
			   json_integer(-3));
}

static void real_sample(json_t *root)
{
	json_array_set_new(json_object_get(json_object_get(root, "samples"), "peak_rss"), 0,
			   json_real(1.5));
}

static void unknown_metric(json_t *root)
{
	json_object_set_new(json_object_get(root, "samples"), "wall_tmie", json_array());
}

static void unknown_key(json_t *root)
{
	json_object_set_new(root, "comment", json_string("hand edited"));
}

static void errors_exceed_calls(json_t *root)
{
	json_object_set_new(json_object_get(json_object_get(root, "syscalls"), "close"), "errors",
			    json_integer(21));
}

static void missing_total_ns(json_t *root)
{
	json_object_del(json_object_get(json_object_get(root, "syscalls"), "read"), "total_ns");
}

static void bad_build_id(json_t *root)
{
	json_object_set_new(json_object_get(root, "provenance"), "build_id", json_integer(5));
}

static void zero_runs(json_t *root)
{
	json_object_set_new(root, "runs", json_integer(0));
}

static void argv_not_strings(json_t *root)
{
	json_array_append_new(json_object_get(root, "argv"), json_integer(1));
}

static void fingerprint_not_string(json_t *root)
{
	json_t *fp = json_object();

	json_object_set_new(fp, "governor", json_integer(3));
	json_object_set_new(json_object_get(root, "conditions"), "fingerprint", fp);
}

static void test_golden_read_schema_errors(void **state)
{
	static const struct schema_case cases[] = {
		{ "s1", drop_runs, "corrupt golden trace: missing \"runs\"" },
		{ "s2", short_samples,
		  "corrupt golden trace: \"samples.wall_time\" has 2 values, "
		  "expected 3 (one per run)" },
		{ "s3", negative_sample,
		  "corrupt golden trace: \"samples.syscalls[1]\" must be an "
		  "integer >= 0" },
		{ "s4", real_sample,
		  "corrupt golden trace: \"samples.peak_rss[0]\" must be an "
		  "integer >= 0" },
		{ "s5", unknown_metric,
		  "corrupt golden trace: unknown metric \"samples.wall_tmie\"" },
		{ "s6", unknown_key, "corrupt golden trace: unknown key \"comment\"" },
		{ "s7", errors_exceed_calls,
		  "corrupt golden trace: \"syscalls.close.errors\" exceeds its calls" },
		{ "s8", missing_total_ns,
		  "corrupt golden trace: missing \"syscalls.read.total_ns\"" },
		{ "s9", bad_build_id,
		  "corrupt golden trace: \"provenance.build_id\" must be a string or null" },
		{ "s10", zero_runs, "corrupt golden trace: \"runs\" must be an integer >= 1" },
		{ "s11", argv_not_strings, "corrupt golden trace: \"argv[3]\" must be a string" },
		{ "s12", fingerprint_not_string,
		  "corrupt golden trace: \"conditions.fingerprint.governor\" must be a string" },
	};
	static const char *const argv[] = { "a", "b", "c", NULL };
	struct rn_target_result r;
	struct rn_diag d;
	size_t i;

	(void)state;
	make_result(&r, 3, 10.0, 0.01, 3, 1 << 20);
	assert_int_equal(rn_golden_write(OUT "schema.json", &r, argv, &d), 0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_error_t err;
		json_t *root = json_load_file(OUT "schema.json", 0, &err);
		char *text;

		assert_non_null(root);
		cases[i].edit(root);
		text = json_dumps(root, JSON_SORT_KEYS | JSON_INDENT(2));
		assert_string_equal(read_text_error(cases[i].name, text), cases[i].msg);
		free(text);
		json_decref(root);
	}
	free_result(&r);
}

static void test_golden_read_json_v1(void **state)
{
	static const struct {
		const char *name;
		double calls, errors;
	} want[] = {
		{ "close", 1, 0 },  { "exit_group", 1, 0 }, { "fstat", 1, 0 },
		{ "openat", 2, 1 }, { "read", 2, 0 },       { "write", 1, 0 },
	};
	struct rn_golden g;
	struct rn_diag d;
	size_t i;

	(void)state;
	assert_int_equal(rn_golden_read(DATA "json_v1.json", &g, &d), 0);
	assert_int_equal(g.version, 0);
	assert_true(g.counts_only);
	assert_null(g.target);
	assert_null(g.argv[0]);
	assert_string_equal(g.renacer_version, "0.4.1");
	assert_int_equal(g.nruns, 1);
	assert_int_equal(g.nsyscalls, 6);
	for (i = 0; i < 6; i++) {
		assert_string_equal(g.syscalls[i].name, want[i].name);
		assert_true(g.syscalls[i].calls == want[i].calls);
		assert_true(g.syscalls[i].errors == want[i].errors);
		assert_true(g.syscalls[i].total_ns == 0);
	}
	/* exit_group's -1 is no errno: only the failed openat counts as an error. */
	assert_true(g.samples[RN_METRIC_SYSCALLS][0] == 8);
	assert_true(g.samples[RN_METRIC_SYSCALL_ERRORS][0] == 1);
	assert_null(g.samples[RN_METRIC_WALL]);
	assert_false(rn_golden_same_machine(&g));
	rn_golden_release(&g);

	assert_string_equal(read_text_error("v1bad",
					    "{\"format\": \"renacer-json-v1\", "
					    "\"syscalls\": [{\"name\": \"read\", "
					    "\"args\": [], \"result\": \"7\"}], "
					    "\"summary\": {\"total_syscalls\": 1}}"),
			    "corrupt golden trace: \"syscalls[0].result\" must be an integer");
	assert_string_equal(read_text_error("v1nosum",
					    "{\"format\": \"renacer-json-v1\", "
					    "\"syscalls\": []}"),
			    "corrupt golden trace: missing \"summary\"");
}

/* ---- comparing ---------------------------------------------------------------------------- */

/* The program's own spans: recorded per run, one row per span name judged by the timing rule
 * of the wall-time row; a 3x span fails and the others do not; what cannot be compared is SKIP
 * or NO DATA, never FAIL. */
static void test_golden_compare_span_time(void **state)
{
	struct rn_target_result gold, now;
	struct rn_regression_cfg cfg;
	struct rn_golden g;
	struct rn_verdict_result *v, *s;
	size_t n;

	(void)state;
	make_result(&gold, 10, 100.0, 0.02, 41, 8 << 20);
	add_span_series(&gold, "app:load", 30.0, 0.03, 1);
	add_span_series(&gold, "app:solve", 50.0, 0.03, 2);
	golden_of(&gold, "spans", &g);
	assert_true(g.has_spans);
	assert_int_equal(g.nspans, 2);
	assert_string_equal(g.spans[0].name, "app:load");
	assert_int_equal(g.spans[1].n, 10);
	assert_float_equal(g.spans[1].ns[3], gold.app_spans[1].ns[3], 0.5);

	/* solve does 3x the work: its row fails, with its detection limit; load's passes */
	make_result(&now, 10, 100.0, 0.02, 42, 8 << 20);
	add_span_series(&now, "app:load", 30.0, 0.03, 3);
	add_span_series(&now, "app:solve", 150.0, 0.03, 4);
	n = compare(&g, &now, NULL, &v);
	assert_int_equal(n, 10);
	assert_string_equal(v[8].assertion, "golden:span_time:app:load");
	s = find(v, n, "golden:span_time:app:solve");
	assert_int_equal(s->verdict, RN_VERDICT_FAIL);
	assert_string_equal(s->unit, "ms");
	assert_string_equal(s->type, "regression");
	assert_non_null(strstr(s->message, "app:solve "));
	assert_non_null(strstr(s->message, "; detects >= +"));
	assert_true(s->mde_pct > 0.0);
	assert_non_null(strstr(s->detail, "Mann-Whitney U = 100.0 of 100 pairs"));
	assert_int_equal(find(v, n, "golden:span_time:app:load")->verdict, RN_VERDICT_PASS);
	free_verdicts(v, n);

	/* [golden] metrics without span_time: SKIP */
	rn_regression_cfg_init(&cfg);
	cfg.judged[RN_GOLDEN_CHECK_SPAN_TIME] = false;
	n = compare(&g, &now, &cfg, &v);
	s = find(v, n, "golden:span_time:app:solve");
	assert_int_equal(s->verdict, RN_VERDICT_SKIP);
	assert_string_equal(s->reason, "not in [golden] metrics");
	free_verdicts(v, n);
	free_result(&now);

	/* solve gone (NO DATA), a new span (SKIP) */
	make_result(&now, 10, 100.0, 0.02, 43, 8 << 20);
	add_span_series(&now, "app:load", 30.0, 0.03, 5);
	add_span_series(&now, "app:parse", 10.0, 0.03, 6);
	n = compare(&g, &now, NULL, &v);
	assert_int_equal(n, 11);
	assert_int_equal(find(v, n, "golden:span_time:app:solve")->verdict, RN_VERDICT_NO_DATA);
	s = find(v, n, "golden:span_time:app:parse");
	assert_int_equal(s->verdict, RN_VERDICT_SKIP);
	assert_non_null(strstr(s->message, "new since it was recorded"));
	free_verdicts(v, n);
	free_result(&now);

	/* a golden trace without span data (renacer-golden/2): every span row SKIP, saying so */
	g.has_spans = false;
	g.version = 2;
	make_result(&now, 10, 100.0, 0.02, 44, 8 << 20);
	add_span_series(&now, "app:load", 300.0, 0.03, 7);
	n = compare(&g, &now, NULL, &v);
	s = find(v, n, "golden:span_time:app:load");
	assert_int_equal(s->verdict, RN_VERDICT_SKIP);
	assert_non_null(strstr(s->message,
			       "the golden trace (renacer-golden/2) records no span "
			       "durations"));
	assert_null(find_or_null(v, n, "golden:span_time:app:solve"));
	free_verdicts(v, n);
	free_result(&now);
	rn_golden_release(&g);
	free_result(&gold);
}

/*
 * The spans' CPU time: written per run beside the durations ("span_cpu") and read back; one
 * golden:span_cpu row per span whose CPU time both sides measured, judged by the rule of
 * cpu_time (a +30% fails, an unchanged one passes; under load it still gates beyond the drift
 * limit where the wall-time span row is advisory); no row where either side has none.
 */
static void test_golden_compare_span_cpu(void **state)
{
	struct rn_target_result gold, now;
	struct rn_golden g;
	struct rn_verdict_result *v, *s;
	struct rn_buf b;
	size_t n, i;

	(void)state;
	make_result(&gold, 10, 100.0, 0.02, 61, 8 << 20);
	add_span_series(&gold, "app:load", 30.0, 0.03, 1);
	add_span_series(&gold, "app:solve", 60.0, 0.03, 2);
	add_span_cpu(&gold, 50.0, 0.03, 3);
	golden_of(&gold, "spancpu", &g);
	rn_buf_init(&b, 0);
	assert_int_equal(rn_buf_read_file(&b, OUT "spancpu.json"), 0);
	assert_non_null(strstr(b.buf, "\"span_cpu\": {\n    \"app:solve\": ["));
	rn_buf_release(&b);
	/* the round trip: solve's CPU times as written, load (no CPU time) without */
	assert_int_equal(g.nspans, 2);
	assert_int_equal(g.spans[0].ncpu, 0);
	assert_null(g.spans[0].cpu_ns);
	assert_int_equal(g.spans[1].ncpu, 10);
	for (i = 0; i < 10; i++)
		assert_float_equal(g.spans[1].cpu_ns[i], gold.app_spans[1].cpu_ns[i], 0.5);

	/* solve's CPU time +30%, its duration unchanged: the CPU row fails, load has none */
	make_result(&now, 10, 100.0, 0.02, 62, 8 << 20);
	add_span_series(&now, "app:load", 30.0, 0.03, 4);
	add_span_series(&now, "app:solve", 60.0, 0.03, 5);
	add_span_cpu(&now, 65.0, 0.03, 6);
	n = compare(&g, &now, NULL, &v);
	assert_int_equal(n, 11);
	assert_string_equal(v[9].assertion, "golden:span_time:app:solve");
	assert_string_equal(v[10].assertion, "golden:span_cpu:app:solve");
	assert_null(find_or_null(v, n, "golden:span_cpu:app:load"));
	s = &v[10];
	assert_int_equal(s->verdict, RN_VERDICT_FAIL);
	assert_string_equal(s->unit, "ms");
	assert_non_null(strstr(s->message, "app:solve CPU "));
	assert_non_null(strstr(s->message, "; detects >= +"));
	assert_int_equal(v[9].verdict, RN_VERDICT_PASS);
	free_verdicts(v, n);
	free_result(&now);

	/* unchanged: PASS */
	make_result(&now, 10, 100.0, 0.02, 63, 8 << 20);
	add_span_series(&now, "app:load", 30.0, 0.03, 7);
	add_span_series(&now, "app:solve", 60.0, 0.03, 8);
	add_span_cpu(&now, 50.0, 0.03, 9);
	n = compare(&g, &now, NULL, &v);
	assert_int_equal(find(v, n, "golden:span_cpu:app:solve")->verdict, RN_VERDICT_PASS);
	free_verdicts(v, n);
	free_result(&now);

	/* a loaded machine: a 2x span fails on its CPU time (beyond the drift limit), where its
	 * wall-time row is advisory; +30% is advisory on both */
	make_result(&now, 10, 100.0, 0.02, 64, 8 << 20);
	now.has_cpu_pressure = true;
	now.cpu_pressure = 0.5;
	add_span_series(&now, "app:load", 30.0, 0.03, 10);
	add_span_series(&now, "app:solve", 120.0, 0.03, 11);
	add_span_cpu(&now, 100.0, 0.03, 12);
	n = compare(&g, &now, NULL, &v);
	assert_int_equal(find(v, n, "golden:span_time:app:solve")->verdict, RN_VERDICT_WARN);
	s = find(v, n, "golden:span_cpu:app:solve");
	assert_int_equal(s->verdict, RN_VERDICT_FAIL);
	assert_non_null(strstr(s->message, "beyond the drift limit"));
	free_verdicts(v, n);
	for (i = 0; i < now.app_spans[1].ncpu; i++)
		now.app_spans[1].cpu_ns[i] *= 0.65;
	n = compare(&g, &now, NULL, &v);
	assert_int_equal(find(v, n, "golden:span_cpu:app:solve")->verdict, RN_VERDICT_WARN);
	free_verdicts(v, n);

	/* runs without the span's CPU time (an OTLP span now): no CPU row, nothing says PASS */
	free(now.app_spans[1].cpu_ns);
	now.app_spans[1].cpu_ns = NULL;
	now.app_spans[1].ncpu = 0;
	n = compare(&g, &now, NULL, &v);
	assert_int_equal(n, 10);
	assert_null(find_or_null(v, n, "golden:span_cpu:app:solve"));
	free_verdicts(v, n);
	free_result(&now);
	rn_golden_release(&g);

	/* a golden trace without span CPU time: no CPU row */
	free(gold.app_spans[1].cpu_ns);
	gold.app_spans[1].cpu_ns = NULL;
	gold.app_spans[1].ncpu = 0;
	golden_of(&gold, "spancpu0", &g);
	rn_buf_init(&b, 0);
	assert_int_equal(rn_buf_read_file(&b, OUT "spancpu0.json"), 0);
	assert_null(strstr(b.buf, "span_cpu"));
	rn_buf_release(&b);
	make_result(&now, 10, 100.0, 0.02, 65, 8 << 20);
	add_span_series(&now, "app:solve", 60.0, 0.03, 13);
	add_span_cpu(&now, 100.0, 0.03, 14);
	n = compare(&g, &now, NULL, &v);
	assert_null(find_or_null(v, n, "golden:span_cpu:app:solve"));
	assert_non_null(find_or_null(v, n, "golden:span_time:app:solve"));
	free_verdicts(v, n);
	free_result(&now);
	rn_golden_release(&g);
	free_result(&gold);
}

/* "span_cpu" must name spans of "spans", with 1..runs integers. */
static void test_golden_read_span_cpu_errors(void **state)
{
	struct rn_target_result r;
	struct rn_golden g;
	struct rn_diag d;
	struct rn_buf b;
	char *p;
	FILE *f;

	(void)state;
	make_result(&r, 5, 100.0, 0.02, 66, 8 << 20);
	add_span_series(&r, "app:load", 30.0, 0.03, 1);
	add_span_cpu(&r, 20.0, 0.03, 2);
	golden_of(&r, "spancpu_e", &g);
	rn_golden_release(&g);
	rn_buf_init(&b, 0);
	assert_int_equal(rn_buf_read_file(&b, OUT "spancpu_e.json"), 0);
	p = strstr(b.buf, "\"span_cpu\": {\n    \"app:load\"");
	assert_non_null(p);
	memcpy(p + strlen("\"span_cpu\": {\n    \"app:"), "lost", 4);
	f = fopen(OUT "spancpu_e2.json", "w");
	assert_non_null(f);
	fputs(b.buf, f);
	fclose(f);
	rn_buf_release(&b);
	assert_int_equal(rn_golden_read(OUT "spancpu_e2.json", &g, &d), -EINVAL);
	assert_non_null(strstr(d.msg, "\"span_cpu.app:lost\" names no span of \"spans\""));
	free_result(&r);
}

/* A renacer-golden/2 trace is read as before: no span data. */
static void test_golden_read_v2_has_no_spans(void **state)
{
	struct rn_target_result r;
	struct rn_golden g;
	struct rn_diag d;
	struct rn_buf b;
	char *p;
	FILE *f;

	(void)state;
	make_result(&r, 5, 100.0, 0.02, 51, 8 << 20);
	add_span_series(&r, "app:load", 30.0, 0.03, 1);
	golden_of(&r, "v3", &g);
	assert_true(g.has_spans);
	rn_golden_release(&g);
	/* the same file as renacer-golden/2, without its "spans" */
	rn_buf_init(&b, 0);
	assert_int_equal(rn_buf_read_file(&b, OUT "v3.json"), 0);
	p = strstr(b.buf, "renacer-golden/3");
	assert_non_null(p);
	p[strlen("renacer-golden/")] = '2';
	p = strstr(b.buf, "  \"spans\": {");
	assert_non_null(p);
	memmove(p, strstr(p, "},\n") + 3, strlen(strstr(p, "},\n") + 3) + 1);
	f = fopen(OUT "v2.json", "w");
	assert_non_null(f);
	fputs(b.buf, f);
	fclose(f);
	rn_buf_release(&b);
	assert_int_equal(rn_golden_read(OUT "v2.json", &g, &d), 0);
	assert_int_equal(g.version, 2);
	assert_false(g.has_spans);
	assert_int_equal(g.nspans, 0);
	rn_golden_release(&g);
	/* "spans" in a renacer-golden/2 file is an unknown key */
	assert_string_equal(read_text_error("v2spans",
					    "{\"format\": \"renacer-golden/2\", \"spans\": {}}"),
			    "corrupt golden trace: unknown key \"spans\"");
	free_result(&r);
}

static void test_golden_compare_verdict_set(void **state)
{
	static const char *const names[] = { "golden:syscalls",  "golden:syscall_counts",
					     "golden:processes", "golden:cpu_time",
					     "golden:wall_time", "golden:critical_path",
					     "golden:peak_rss",  "golden:alloc_peak" };
	struct rn_target_result r;
	struct rn_golden g;
	struct rn_verdict_result *v;
	struct rn_diag d;
	size_t n, i;

	(void)state;
	make_result(&r, 5, 100.0, 0.02, 11, 8 << 20);
	golden_of(&r, "set", &g);
	n = compare(&g, &r, NULL, &v);
	assert_int_equal(n, 8);
	for (i = 0; i < n; i++) {
		assert_string_equal(v[i].assertion, names[i]);
		assert_string_equal(v[i].type, "regression");
		assert_string_equal(v[i].target, "io_loop");
		if (i == 3) {
			/* make_result records no cpu_time: never a PASS for what was not judged. */
			assert_int_equal(v[i].verdict, RN_VERDICT_NOT_JUDGED);
			assert_string_equal(v[i].reason, "the golden trace has no cpu_time data");
			assert_non_null(strstr(v[i].message, "not judged"));
			continue;
		}
		assert_int_equal(v[i].verdict, RN_VERDICT_PASS);
		assert_non_null(v[i].reason);
		assert_true(v[i].has_observed && v[i].has_golden);
		assert_non_null(v[i].message);
		assert_non_null(v[i].detail);
		assert_string_equal(v[i].aggregate, "median of 5 runs (golden: 5 runs)");
		assert_null(strstr(v[i].message, RN_GOLDEN_HINT));
	}
	free_verdicts(v, n);
	rn_golden_release(&g);

	/* A renacer-json-v1 baseline gates counts only. */
	assert_int_equal(rn_golden_read(DATA "json_v1.json", &g, &d), 0);
	n = compare(&g, &r, NULL, &v);
	assert_int_equal(n, 2);
	assert_string_equal(v[0].assertion, "golden:syscalls");
	assert_string_equal(v[1].assertion, "golden:syscall_counts");
	free_verdicts(v, n);
	rn_golden_release(&g);
	free_result(&r);
}

/* The total of syscalls carries what the count rules allow their syscalls: 60 futex calls may
 * double, so a total 140 -> 190 (+50) passes, while +75 (beyond 60 and the floor) fails. */
static void test_golden_compare_total_rule_slack(void **state)
{
	struct rn_target_result r;
	struct rn_golden g;
	struct rn_verdict_result *v, *s;
	size_t n;

	(void)state;
	make_result(&r, 5, 100.0, 0.02, 11, 8 << 20);
	r.syscall_calls[nr_of("futex")] = 60;
	set_total(&r, 140);
	golden_of(&r, "total_slack", &g);
	set_total(&r, 190);
	n = compare(&g, &r, NULL, &v);
	s = find(v, n, "golden:syscalls");
	assert_int_equal(s->verdict, RN_VERDICT_PASS);
	assert_non_null(strstr(s->detail, "the floor includes 60 calls the count rules allow"));
	free_verdicts(v, n);
	set_total(&r, 215);
	n = compare(&g, &r, NULL, &v);
	assert_int_equal(find(v, n, "golden:syscalls")->verdict, RN_VERDICT_FAIL);
	free_verdicts(v, n);
	rn_golden_release(&g);
	free_result(&r);
	assert_float_equal(rn_count_rule_slack("futex", 148, 266), 384.0, 1e-9);
	assert_float_equal(rn_count_rule_slack("brk", 7, 7), 2.0, 1e-9);
	assert_float_equal(rn_count_rule_slack("write", 7, 9), 0.0, 1e-9);
}

static void test_golden_compare_total_syscalls_message(void **state)
{
	struct rn_target_result r;
	struct rn_golden g;
	struct rn_verdict_result *v, *s;
	size_t n;

	(void)state;
	make_result(&r, 5, 100.0, 0.02, 11, 8 << 20);
	set_total(&r, 1240);
	golden_of(&r, "total", &g);
	set_total(&r, 2480);
	n = compare(&g, &r, NULL, &v);
	s = find(v, n, "golden:syscalls");
	assert_int_equal(s->verdict, RN_VERDICT_FAIL);
	assert_string_equal(
		s->message,
		"syscalls 2480 vs golden 1240 (+100.0%, tolerance +10%); " RN_GOLDEN_HINT);
	/* The advice names what a user has, not a path of renacer's own checkout. */
	assert_null(strstr(RN_GOLDEN_HINT, "ci/"));
	assert_non_null(strstr(RN_GOLDEN_HINT, "renacer golden update"));
	assert_true(s->observed == 2480 && s->golden == 1240);
	assert_float_equal(s->delta_pct, 100.0, 1e-9);
	assert_string_equal(s->unit, "calls");
	/* Largest passing count: max((1240 + 1) * 1.1 - 1, 1240 + 1) = 1364.1 */
	assert_float_equal(s->budget, 1364.1, 1e-6);
	assert_non_null(strstr(s->detail, "syscalls"));
	free_verdicts(v, n);

	/* +10% exactly passes (log(1365/1241) < log(1.1)); +11% fails. */
	set_total(&r, 1364);
	n = compare(&g, &r, NULL, &v);
	assert_int_equal(find(v, n, "golden:syscalls")->verdict, RN_VERDICT_PASS);
	free_verdicts(v, n);
	set_total(&r, 1377);
	n = compare(&g, &r, NULL, &v);
	assert_int_equal(find(v, n, "golden:syscalls")->verdict, RN_VERDICT_FAIL);
	free_verdicts(v, n);
	/* Fewer syscalls never fail. */
	set_total(&r, 10);
	n = compare(&g, &r, NULL, &v);
	assert_int_equal(find(v, n, "golden:syscalls")->verdict, RN_VERDICT_PASS);
	assert_non_null(strstr(find(v, n, "golden:syscalls")->message, "(-99.2%,"));
	free_verdicts(v, n);
	rn_golden_release(&g);
	free_result(&r);
}

static void test_golden_compare_doubled_syscall_fails_naming_it(void **state)
{
	struct rn_target_result r;
	struct rn_golden g;
	struct rn_verdict_result *v, *s;
	size_t n;

	(void)state;
	make_result(&r, 5, 100.0, 0.02, 11, 8 << 20);
	golden_of(&r, "doubled", &g);
	r.syscall_calls[nr_of("openat")] = 40;
	n = compare(&g, &r, NULL, &v);
	s = find(v, n, "golden:syscall_counts");
	assert_int_equal(s->verdict, RN_VERDICT_FAIL);
	assert_string_equal(s->message,
			    "1 syscall grew beyond tolerance (+10%, floor 1): openat "
			    "40 vs golden 20 (+100.0%); " RN_GOLDEN_HINT);
	assert_true(s->observed == 40 && s->golden == 20);
	assert_non_null(strstr(s->detail, "openat"));
	assert_non_null(strstr(s->detail, "FAIL"));
	assert_null(strstr(s->detail, "read ")); /* unchanged syscalls are not listed */
	/* The total did not move: only the per-syscall verdict fails. */
	assert_int_equal(find(v, n, "golden:syscalls")->verdict, RN_VERDICT_PASS);
	free_verdicts(v, n);
	rn_golden_release(&g);
	free_result(&r);
}

/* futex and sched_yield count lock contention, which load moves in every run: they fail only
 * beyond +100% (and the floor), where another syscall fails beyond the count tolerance. */
static void test_golden_compare_contention_counts(void **state)
{
	struct rn_target_result r;
	struct rn_golden g;
	struct rn_verdict_result *v, *s;
	size_t n;

	(void)state;
	make_result(&r, 5, 100.0, 0.02, 11, 8 << 20);
	r.syscall_calls[nr_of("futex")] = 15;
	golden_of(&r, "contention", &g);

	r.syscall_calls[nr_of("futex")] = 23; /* +53%: contention under load */
	n = compare(&g, &r, NULL, &v);
	s = find(v, n, "golden:syscall_counts");
	assert_int_equal(s->verdict, RN_VERDICT_PASS);
	assert_non_null(strstr(s->detail, "ok (lock contention: within +100%)"));
	/* The columns show what was judged: futex's count within futex's limit (+100%), not
	 * over the count tolerance's (+10%, which once made a PASS row read as over its LIMIT). */
	assert_true(s->observed == 23 && s->golden == 15);
	assert_true(s->observed <= s->budget && s->budget >= 30);
	assert_non_null(strstr(s->reason, "futex grew most"));
	free_verdicts(v, n);

	r.syscall_calls[nr_of("futex")] = 40; /* +156%: beyond what contention explains */
	n = compare(&g, &r, NULL, &v);
	s = find(v, n, "golden:syscall_counts");
	assert_int_equal(s->verdict, RN_VERDICT_FAIL);
	assert_non_null(strstr(s->message, "futex 40 vs golden 15"));
	assert_true(s->observed == 40 && s->observed > s->budget);
	free_verdicts(v, n);

	/* the same growth of a work syscall fails at the count tolerance */
	r.syscall_calls[nr_of("futex")] = 15;
	r.syscall_calls[nr_of("openat")] = 31;
	n = compare(&g, &r, NULL, &v);
	assert_int_equal(find(v, n, "golden:syscall_counts")->verdict, RN_VERDICT_FAIL);
	free_verdicts(v, n);
	rn_golden_release(&g);
	free_result(&r);
}

/* brk moves with the heap's layout (the environment's size): +2 calls pass as "heap layout"
 * whatever the count tolerance; +3 fail, and the rule table is sorted for its lookup. */
static void test_golden_compare_brk_layout(void **state)
{
	struct rn_target_result r;
	struct rn_golden g;
	struct rn_verdict_result *v, *s;
	const struct rn_count_rule *rules;
	size_t n, i, nrules;

	(void)state;
	make_result(&r, 5, 100.0, 0.02, 11, 8 << 20);
	r.syscall_calls[nr_of("brk")] = 7;
	golden_of(&r, "brk", &g);

	r.syscall_calls[nr_of("brk")] = 9; /* perl with 2000 bytes more environment */
	n = compare(&g, &r, NULL, &v);
	s = find(v, n, "golden:syscall_counts");
	assert_int_equal(s->verdict, RN_VERDICT_PASS);
	assert_non_null(strstr(s->detail, "ok (heap layout: within +2 calls)"));
	free_verdicts(v, n);

	r.syscall_calls[nr_of("brk")] = 10;
	n = compare(&g, &r, NULL, &v);
	s = find(v, n, "golden:syscall_counts");
	assert_int_equal(s->verdict, RN_VERDICT_FAIL);
	assert_non_null(strstr(s->message, "brk 10 vs golden 7"));
	free_verdicts(v, n);
	rn_golden_release(&g);
	free_result(&r);

	assert_int_equal(rn_count_floor_of("brk", 1), 2);
	assert_int_equal(rn_count_floor_of("brk", 5), 5);
	assert_int_equal(rn_count_floor_of("openat", 1), 1);
	assert_true(rn_count_tolerance_of("futex", 0.1) == RN_GOLDEN_CONTENTION_TOLERANCE);
	assert_true(rn_count_tolerance_of("brk", 0.1) == 0.1);
	assert_null(rn_count_rule_of(NULL));
	rules = rn_count_rules(&nrules);
	assert_true(nrules >= 4);
	for (i = 1; i < nrules; i++)
		assert_true(strcmp(rules[i - 1].syscall, rules[i].syscall) < 0);
	for (i = 0; i < nrules; i++)
		assert_ptr_equal(rn_count_rule_of(rules[i].syscall), &rules[i]);
}

/* A golden trace's calls_max (the most calls of any golden counting run) is what a check's
 * fewest calls are judged against: a program's own run-to-run spread (brk 7 in the median, 9
 * in one golden run) does not fail, growth beyond it does. */
static void test_golden_compare_calls_max(void **state)
{
	struct rn_target_result r;
	struct rn_golden g;
	struct rn_verdict_result *v;
	struct rn_golden_syscall *gs = NULL;
	size_t n, i;

	(void)state;
	make_result(&r, 5, 100.0, 0.02, 11, 8 << 20);
	r.syscall_calls[nr_of("brk")] = 7;
	golden_of(&r, "calls_max", &g);
	for (i = 0; i < g.nsyscalls; i++)
		if (!strcmp(g.syscalls[i].name, "brk"))
			gs = &g.syscalls[i];
	assert_non_null(gs);
	assert_true(gs->calls_max == gs->calls); /* no per-run spread written: the median */

	r.syscall_calls[nr_of("brk")] = 10;
	n = compare(&g, &r, NULL, &v);
	assert_int_equal(find(v, n, "golden:syscall_counts")->verdict, RN_VERDICT_FAIL);
	free_verdicts(v, n);

	gs->calls_max = 9; /* one golden run made 9 */
	n = compare(&g, &r, NULL, &v);
	assert_int_equal(find(v, n, "golden:syscall_counts")->verdict, RN_VERDICT_PASS);
	free_verdicts(v, n);

	r.syscall_calls[nr_of("brk")] = 12; /* beyond the most of any golden run */
	n = compare(&g, &r, NULL, &v);
	assert_int_equal(find(v, n, "golden:syscall_counts")->verdict, RN_VERDICT_FAIL);
	free_verdicts(v, n);
	rn_golden_release(&g);
	free_result(&r);
}

static void test_golden_compare_floor_and_new_syscalls(void **state)
{
	struct rn_target_result r;
	struct rn_golden g;
	struct rn_verdict_result *v, *s;
	size_t n;

	(void)state;
	make_result(&r, 5, 100.0, 0.02, 11, 8 << 20);
	r.syscall_calls[nr_of("fsync")] = 5;
	golden_of(&r, "floor", &g);

	/* 5 -> 6 is +20% but only one call: within the floor. */
	r.syscall_calls[nr_of("fsync")] = 6;
	n = compare(&g, &r, NULL, &v);
	s = find(v, n, "golden:syscall_counts");
	assert_int_equal(s->verdict, RN_VERDICT_PASS);
	assert_string_equal(s->message, "4 syscalls within tolerance (+10%, floor 1)");
	assert_string_equal(s->reason,
			    "fsync grew most (fewest run); 4 syscalls within +10%, none new");
	assert_non_null(strstr(s->detail, "fsync"));
	free_verdicts(v, n);

	/* A syscall the golden trace never saw, once (one new sync()): a regression, whatever
	 * the floor. */
	r.syscall_calls[nr_of("getpid")] = 1;
	n = compare(&g, &r, NULL, &v);
	s = find(v, n, "golden:syscall_counts");
	assert_int_equal(s->verdict, RN_VERDICT_FAIL);
	assert_string_equal(s->message,
			    "1 new syscall, absent from the golden trace: getpid 1 vs "
			    "golden 0 (new); " RN_GOLDEN_HINT);
	assert_string_equal(s->reason,
			    "getpid is new; 1 syscall failed (1 new, 0 grew beyond +10%)");
	assert_non_null(strstr(s->detail, "FAIL (new)"));
	free_verdicts(v, n);

	/* Twice: fails as new. */
	r.syscall_calls[nr_of("getpid")] = 2;
	n = compare(&g, &r, NULL, &v);
	s = find(v, n, "golden:syscall_counts");
	assert_int_equal(s->verdict, RN_VERDICT_FAIL);
	assert_non_null(strstr(s->message, "getpid 2 vs golden 0 (new)"));
	assert_non_null(strstr(s->detail, "FAIL (new)"));
	assert_true(ends_with(s->message, "; " RN_GOLDEN_HINT));
	free_verdicts(v, n);

	/* A larger floor allows it. */
	{
		struct rn_regression_cfg cfg;

		rn_regression_cfg_init(&cfg);
		cfg.count_floor = 2;
		n = compare(&g, &r, &cfg, &v);
		/* The floor allows growth, never a new syscall. */
		assert_int_equal(find(v, n, "golden:syscall_counts")->verdict, RN_VERDICT_FAIL);
		free_verdicts(v, n);
	}
	/* A syscall that disappeared is no regression, but is counted in the detail. */
	r.syscall_calls[nr_of("getpid")] = 0;
	r.syscall_calls[nr_of("fsync")] = 0;
	n = compare(&g, &r, NULL, &v);
	s = find(v, n, "golden:syscall_counts");
	assert_int_equal(s->verdict, RN_VERDICT_PASS);
	assert_non_null(strstr(s->detail, "1 syscall made fewer calls or none"));
	free_verdicts(v, n);
	rn_golden_release(&g);
	free_result(&r);
}

static void test_golden_compare_slowdown_30pct_over_10_runs_fails(void **state)
{
	struct rn_target_result gold, now;
	struct rn_golden g;
	struct rn_verdict_result *v, *s;
	size_t n;

	(void)state;
	make_result(&gold, 10, 100.0, 0.05, 21, 8 << 20);
	golden_of(&gold, "slow", &g);
	make_result(&now, 10, 130.0, 0.05, 22, 8 << 20);
	n = compare(&g, &now, NULL, &v);
	s = find(v, n, "golden:wall_time");
	assert_int_equal(s->verdict, RN_VERDICT_FAIL);
	assert_string_equal(s->unit, "ms");
	assert_float_equal(s->delta_pct, 30.0, 6.0);
	assert_non_null(strstr(s->message, "wall_time "));
	assert_non_null(strstr(s->message, ": slower, 98% CI ["));
	assert_non_null(strstr(s->message, "] beyond the limit"));
	assert_non_null(strstr(s->message, "; detects >= +"));
	assert_true(s->mde_pct > 10.0 && s->mde_pct < 30.0);
	assert_true(ends_with(s->message, "; " RN_GOLDEN_TIMING_HINT));
	assert_non_null(strstr(s->detail, "Mann-Whitney U = 100.0 of 100 pairs"));
	assert_non_null(strstr(s->detail, "(exact)"));
	assert_int_equal(find(v, n, "golden:critical_path")->verdict, RN_VERDICT_FAIL);
	/* Counts did not change. */
	assert_int_equal(find(v, n, "golden:syscalls")->verdict, RN_VERDICT_PASS);
	free_verdicts(v, n);
	rn_golden_release(&g);
	free_result(&gold);
	free_result(&now);
}

/* Runs pinned to one CPU for a same-job baseline are another placement than the golden's
 * (one vCPU of a shared VM ran tcc 45% slower than the other): the same +30% that fails
 * above is advisory there, named as such, and asks for no profiled runs. */
static void test_golden_compare_pinned_runs_never_fail(void **state)
{
	struct rn_target_result gold, now;
	struct rn_golden g;
	struct rn_verdict_result *v, *s;
	size_t n;

	(void)state;
	make_result(&gold, 10, 100.0, 0.05, 21, 8 << 20);
	golden_of(&gold, "pinned", &g);
	make_result(&now, 10, 130.0, 0.05, 22, 8 << 20);
	now.pin_cpu = 1;
	n = compare(&g, &now, NULL, &v);
	s = find(v, n, "golden:wall_time");
	assert_int_equal(s->verdict, RN_VERDICT_WARN);
	assert_non_null(strstr(s->message, "pinned to CPU 1 for the same-job pairs"));
	assert_non_null(strstr(s->reason, "advisory: runs pinned for --baseline"));
	assert_non_null(strstr(s->detail, "differ: never fails"));
	assert_false(s->slower_shown);
	assert_int_equal(find(v, n, "golden:critical_path")->verdict, RN_VERDICT_WARN);
	/* more runs cannot make it fail: no adaptive repeats are asked for */
	{
		struct rn_regression_cfg cfg;

		rn_regression_cfg_init(&cfg);
		assert_false(rn_golden_timing_undecided(&g, &now, &cfg, NULL));
	}
	assert_int_equal(find(v, n, "golden:syscalls")->verdict, RN_VERDICT_PASS);
	free_verdicts(v, n);
	rn_golden_release(&g);
	free_result(&gold);
	free_result(&now);
}

static void test_golden_compare_noise_only_never_fails(void **state)
{
	struct rn_target_result gold, now;
	struct rn_golden g;
	struct rn_verdict_result *v, *s;
	unsigned seed;
	size_t n;

	(void)state;
	make_result(&gold, 10, 100.0, 0.15, 31, 8 << 20);
	golden_of(&gold, "noise", &g);
	/* Same distribution, other draws: +-15% noise, one outlier at +60%: never a FAIL, and
	 * a PASS only where the interval is within the tolerance. */
	for (seed = 32; seed < 40; seed++) {
		make_result(&now, 10, 100.0, 0.15, seed, 8 << 20);
		now.runs[3].v[RN_METRIC_WALL] = 160000000;
		n = compare(&g, &now, NULL, &v);
		s = find(v, n, "golden:wall_time");
		assert_int_not_equal(s->verdict, RN_VERDICT_FAIL);
		if (s->verdict == RN_VERDICT_PASS)
			assert_non_null(strstr(s->message, ": within tolerance"));
		else
			assert_non_null(strstr(s->message, "INCONCLUSIVE (WARN)"));
		free_verdicts(v, n);
		free_result(&now);
	}
	/* A real but small slowdown (3%, tiny noise) is shown within tolerance: PASS. */
	make_result(&now, 10, 103.0, 0.001, 41, 8 << 20);
	rn_golden_release(&g);
	free_result(&gold);
	make_result(&gold, 10, 100.0, 0.001, 42, 8 << 20);
	golden_of(&gold, "small", &g);
	n = compare(&g, &now, NULL, &v);
	s = find(v, n, "golden:wall_time");
	assert_int_equal(s->verdict, RN_VERDICT_PASS);
	assert_non_null(strstr(s->message, ": within tolerance, 98% CI [+"));
	free_verdicts(v, n);
	rn_golden_release(&g);
	free_result(&gold);
	free_result(&now);
}

/*
 * An undecided comparison never reads PASS: a golden of 100 ms, then runs of 60, 300, 300,
 * 300, 300 ms (the interval straddles the limit at 5 runs).
 */
/* One more process than any golden run had fails golden:processes, whatever count_tolerance. */
static void test_golden_compare_processes(void **state)
{
	struct rn_target_result gold, now;
	struct rn_golden g;
	struct rn_verdict_result *v, *s;
	size_t n, i;

	(void)state;
	make_result(&gold, 10, 100.0, 0.02, 7, 8 << 20);
	for (i = 0; i < 10; i++)
		gold.runs[i].v[RN_METRIC_PROCESSES] = i % 2 ? 279 : 278;
	golden_of(&gold, "procs", &g);
	make_result(&now, 5, 100.0, 0.02, 8, 8 << 20);
	for (i = 0; i < 5; i++)
		now.runs[i].v[RN_METRIC_PROCESSES] = 279;
	n = compare(&g, &now, NULL, &v);
	s = find(v, n, "golden:processes");
	assert_int_equal(s->verdict, RN_VERDICT_PASS);
	free_verdicts(v, n);
	for (i = 0; i < 5; i++)
		now.runs[i].v[RN_METRIC_PROCESSES] = 280;
	n = compare(&g, &now, NULL, &v);
	s = find(v, n, "golden:processes");
	assert_int_equal(s->verdict, RN_VERDICT_FAIL);
	assert_non_null(strstr(s->message,
			       "processes 280 vs golden 278.5 (the most of its 10 runs: "
			       "279): a process more"));
	free_verdicts(v, n);
	rn_golden_release(&g);
	free_result(&gold);
	free_result(&now);
}

static void test_golden_compare_undecided_is_not_pass(void **state)
{
	static const double ms[] = { 60, 300, 300, 300, 300 };
	struct rn_target_result gold, now;
	struct rn_golden g;
	struct rn_verdict_result *v, *s;
	size_t n, i;

	(void)state;
	make_result(&gold, 10, 100.0, 0.02, 5, 8 << 20);
	golden_of(&gold, "undecided", &g);
	make_result(&now, 5, 100.0, 0.0, 6, 8 << 20);
	for (i = 0; i < 5; i++) {
		now.runs[i].v[RN_METRIC_WALL] = (uint64_t)(ms[i] * 1e6);
		now.runs[i].v[RN_METRIC_CRITICAL_PATH] = (uint64_t)(ms[i] * 0.9e6);
	}
	n = compare(&g, &now, NULL, &v);
	s = find(v, n, "golden:wall_time");
	assert_int_not_equal(s->verdict, RN_VERDICT_PASS);
	/* The same runs as the last of a 5-to-60-run design spend less alpha: still no PASS. */
	free_verdicts(v, n);
	now.look_first = 5;
	now.look_max = 60;
	n = compare(&g, &now, NULL, &v);
	s = find(v, n, "golden:wall_time");
	assert_int_not_equal(s->verdict, RN_VERDICT_PASS);
	free_verdicts(v, n);
	rn_golden_release(&g);
	free_result(&gold);
	free_result(&now);
}

static void test_golden_compare_other_machine_is_advisory_but_2x_fails(void **state)
{
	struct rn_target_result gold, now;
	struct rn_golden g;
	struct rn_verdict_result *v, *s;
	size_t n;

	(void)state;
	make_result(&gold, 10, 100.0, 0.05, 21, 8 << 20);
	golden_of(&gold, "elsewhere", &g);
	free(g.cpu_model);
	g.cpu_model = strdup("Imaginary CPU 9000");
	assert_false(rn_golden_same_machine(&g));
	make_result(&now, 10, 130.0, 0.05, 22, 12 << 20);
	now.syscall_calls[nr_of("openat")] = 40;
	n = compare(&g, &now, NULL, &v);
	s = find(v, n, "golden:wall_time");
	assert_int_equal(s->verdict, RN_VERDICT_WARN);
	assert_non_null(strstr(s->message, ": advisory (WARN), not a gate"));
	assert_non_null(strstr(s->message,
			       "recorded on another machine (cpu 'Imaginary CPU 9000', here '"));
	assert_null(strstr(s->message, RN_GOLDEN_HINT));
	/* Memory too depends on the machine; counts do not. */
	assert_int_equal(find(v, n, "golden:peak_rss")->verdict, RN_VERDICT_WARN);
	assert_int_equal(find(v, n, "golden:syscall_counts")->verdict, RN_VERDICT_FAIL);
	free_verdicts(v, n);
	free_result(&now);
	/* 2x is beyond any drift: it fails whatever the machine. */
	make_result(&now, 10, 200.0, 0.05, 23, 8 << 20);
	n = compare(&g, &now, NULL, &v);
	s = find(v, n, "golden:wall_time");
	assert_int_equal(s->verdict, RN_VERDICT_FAIL);
	assert_non_null(strstr(s->message, "beyond the drift limit +50%"));
	free_verdicts(v, n);
	rn_golden_release(&g);
	free_result(&gold);
	free_result(&now);
}

/*
 * The environment fingerprint: written under "conditions" and read back; a golden recorded
 * under another governor makes a 2x slowdown (beyond any drift limit, which fails on another
 * machine) INCONCLUSIVE, naming the governor, while counts still gate; the same fingerprint
 * gates as before, and a field unknown on one side explains nothing.
 */
static void test_golden_compare_fingerprint(void **state)
{
	struct rn_target_result gold, now;
	struct rn_golden g;
	struct rn_verdict_result *v, *s;
	size_t n;

	(void)state;
	make_result(&gold, 10, 100.0, 0.05, 31, 8 << 20);
	gold.has_fingerprint = true;
	rn_fingerprint_set(&gold.fingerprint, RN_FP_GOVERNOR, "powersave");
	rn_fingerprint_set(&gold.fingerprint, RN_FP_KERNEL, "6.1.0-18-amd64");
	golden_of(&gold, "fingerprint", &g);
	assert_true(g.has_fingerprint);
	assert_string_equal(g.fingerprint.field[RN_FP_GOVERNOR], "powersave");
	assert_string_equal(g.fingerprint.field[RN_FP_KERNEL], "6.1.0-18-amd64");
	assert_string_equal(g.fingerprint.field[RN_FP_SMT], "");
	{
		/* a field a newer renacer records is skipped, not an error */
		json_error_t err;
		json_t *root = json_load_file(OUT "fingerprint.json", 0, &err);
		struct rn_golden g2;
		struct rn_diag d;

		assert_non_null(root);
		json_object_set_new(json_object_get(json_object_get(root, "conditions"),
						    "fingerprint"),
				    "numa_nodes", json_string("2"));
		assert_int_equal(json_dump_file(root, OUT "fingerprint_newer.json", 0), 0);
		json_decref(root);
		assert_int_equal(rn_golden_read(OUT "fingerprint_newer.json", &g2, &d), 0);
		assert_string_equal(g2.fingerprint.field[RN_FP_GOVERNOR], "powersave");
		rn_golden_release(&g2);
	}

	make_result(&now, 10, 200.0, 0.05, 32, 8 << 20);
	now.syscall_calls[nr_of("openat")] = 40;
	now.has_fingerprint = true;
	now.fingerprint = gold.fingerprint;
	rn_fingerprint_set(&now.fingerprint, RN_FP_GOVERNOR, "performance");
	n = compare(&g, &now, NULL, &v);
	s = find(v, n, "golden:wall_time");
	assert_int_equal(s->verdict, RN_VERDICT_WARN);
	assert_non_null(strstr(s->reason, "inconclusive: governor differs from the golden's"));
	assert_non_null(strstr(s->message, "governor 'powersave', here 'performance'"));
	assert_null(strstr(s->message, "kernel '"));
	assert_int_equal(find(v, n, "golden:critical_path")->verdict, RN_VERDICT_WARN);
	assert_int_equal(find(v, n, "golden:syscall_counts")->verdict, RN_VERDICT_FAIL);
	free_verdicts(v, n);
	/* adaptive repeats cannot turn it into a FAIL: no more runs are asked for */
	{
		struct rn_regression_cfg cfg;

		rn_regression_cfg_init(&cfg);
		assert_false(rn_golden_timing_undecided(&g, &now, &cfg, NULL));
	}

	/* the governor unknown now: nothing differs, and 2x fails */
	rn_fingerprint_set(&now.fingerprint, RN_FP_GOVERNOR, NULL);
	n = compare(&g, &now, NULL, &v);
	assert_int_equal(find(v, n, "golden:wall_time")->verdict, RN_VERDICT_FAIL);
	free_verdicts(v, n);
	rn_golden_release(&g);
	free_result(&gold);
	free_result(&now);
}

/*
 * Two modes: runs alternating 100 and 200 ms against a one-mode golden of 100 ms are
 * INCONCLUSIVE saying "two modes", never FAIL; a one-mode 300 ms (the modes moved) fails.
 */
static void test_golden_compare_two_modes(void **state)
{
	struct rn_target_result gold, now;
	struct rn_golden g;
	struct rn_verdict_result *v, *s;
	size_t n, i;

	(void)state;
	make_result(&gold, 10, 100.0, 0.02, 41, 8 << 20);
	golden_of(&gold, "two_modes", &g);
	make_result(&now, 10, 100.0, 0.02, 42, 8 << 20);
	for (i = 1; i < now.nruns; i += 2) {
		now.runs[i].v[RN_METRIC_WALL] *= 2;
		now.runs[i].v[RN_METRIC_CRITICAL_PATH] *= 2;
	}
	n = compare(&g, &now, NULL, &v);
	s = find(v, n, "golden:wall_time");
	assert_int_equal(s->verdict, RN_VERDICT_WARN);
	assert_non_null(strstr(s->reason, "inconclusive: two modes"));
	assert_non_null(strstr(s->message, "this check two modes (5 runs near "));
	assert_non_null(strstr(s->message, "the golden one mode"));
	assert_int_equal(find(v, n, "golden:critical_path")->verdict, RN_VERDICT_WARN);
	free_verdicts(v, n);
	free_result(&now);

	make_result(&now, 10, 300.0, 0.02, 43, 8 << 20);
	n = compare(&g, &now, NULL, &v);
	assert_int_equal(find(v, n, "golden:wall_time")->verdict, RN_VERDICT_FAIL);
	free_verdicts(v, n);
	rn_golden_release(&g);
	free_result(&gold);
	free_result(&now);
}

static void test_golden_compare_few_runs_not_judged(void **state)
{
	struct rn_target_result gold, now;
	struct rn_golden g;
	struct rn_verdict_result *v, *s;
	size_t n;

	(void)state;
	make_result(&gold, 10, 100.0, 0.0, 21, 8 << 20);
	golden_of(&gold, "few", &g);
	make_result(&now, 3, 200.0, 0.0, 22, 8 << 20);
	n = compare(&g, &now, NULL, &v);
	s = find(v, n, "golden:wall_time");
	assert_int_equal(s->verdict, RN_VERDICT_NOT_JUDGED);
	assert_string_equal(s->message,
			    "wall_time 200.0 ms vs golden 100.0 ms (+100.0%); not "
			    "judged: 3 measured runs < min_runs_for_timing 5; to judge "
			    "it: runs >= 5 in [[target]] 'io_loop' (or --runs 5)");
	assert_string_equal(s->reason, "3 measured runs < min_runs_for_timing 5");
	assert_non_null(strstr(s->detail, "not judged: 3 measured runs < min_runs_for_timing 5"));
	free_verdicts(v, n);
	rn_golden_release(&g);
	free_result(&gold);
	free_result(&now);
}

static void test_golden_compare_memory(void **state)
{
	struct rn_target_result gold, now;
	struct rn_golden g;
	struct rn_verdict_result *v, *s;
	size_t n;

	(void)state;
	make_result(&gold, 5, 100.0, 0.02, 21, 8 << 20);
	golden_of(&gold, "mem", &g);
	make_result(&now, 5, 100.0, 0.02, 22, 10 << 20);
	n = compare(&g, &now, NULL, &v);
	s = find(v, n, "golden:peak_rss");
	assert_int_equal(s->verdict, RN_VERDICT_FAIL);
	assert_string_equal(s->message,
			    "peak_rss 10.0 MiB vs golden 8.0 MiB (+25.0%, tolerance "
			    "+10%); " RN_GOLDEN_HINT);
	assert_string_equal(s->unit, "bytes");
	assert_true(s->observed == 10 << 20 && s->golden == 8 << 20);
	free_verdicts(v, n);
	free_result(&now);

	make_result(&now, 5, 100.0, 0.02, 22, (8 << 20) + (400 << 10)); /* +4.9% */
	n = compare(&g, &now, NULL, &v);
	assert_int_equal(find(v, n, "golden:peak_rss")->verdict, RN_VERDICT_PASS);
	free_verdicts(v, n);
	free_result(&now);

	/* Runs that spread: judged on the fewest against the golden's most, and the columns
	 * show those numbers, so a PASS never reads over its limit (the median, 10.2 MiB, is
	 * over the 9.0 MiB the golden's median would allow). */
	make_result(&now, 5, 100.0, 0.02, 22, (uint64_t)(10.2 * (1 << 20)));
	now.runs[0].v[RN_METRIC_PEAK_RSS] = (uint64_t)(8.5 * (1 << 20));
	n = compare(&g, &now, NULL, &v);
	s = find(v, n, "golden:peak_rss");
	assert_int_equal(s->verdict, RN_VERDICT_PASS);
	assert_true(s->observed == (uint64_t)(8.5 * (1 << 20)) && s->golden == 8 << 20);
	assert_true(s->observed <= s->budget && s->budget == 9 << 20);
	assert_non_null(strstr(s->reason, "fewest run vs golden's most 8.0 MiB"));
	assert_non_null(strstr(s->message, "peak_rss 10.2 MiB vs golden 8.0 MiB"));
	free_verdicts(v, n);
	free_result(&now);

	/* No data now while the golden trace has some: never a silent pass. */
	make_result(&now, 5, 100.0, 0.02, 22, 0);
	n = compare(&g, &now, NULL, &v);
	s = find(v, n, "golden:peak_rss");
	assert_int_equal(s->verdict, RN_VERDICT_NO_DATA);
	assert_string_equal(s->message, "peak_rss: no data in this run (golden 8.0 MiB)");
	free_verdicts(v, n);
	free_result(&now);
	rn_golden_release(&g);
	free_result(&gold);
}

/* Set every run's tree alloc_peak (MiB, one per run) and largest process's (MiB). */
static void set_alloc(struct rn_target_result *r, const double *tree_mib, double proc_mib)
{
	size_t i;

	for (i = 0; i < r->nruns; i++) {
		r->runs[i].v[RN_METRIC_ALLOC_PEAK] = (uint64_t)(tree_mib[i] * (1 << 20));
		r->runs[i].v[RN_METRIC_PROCESS_ALLOC_PEAK] = (uint64_t)(proc_mib * (1 << 20));
	}
}

/* A parallel tree's alloc_peak moves with the overlap of its processes: judged on its largest
 * process when either side's runs spread, and never past 2x. */
static void test_golden_compare_alloc_overlap(void **state)
{
	static const double tight[] = { 7.0, 7.1, 7.0, 7.2, 7.1 };
	static const double spread[] = { 11.0, 12.0, 9.0, 10.0, 12.0 };
	static const double twice[] = { 15.0, 18.0, 16.0, 17.0, 15.0 };
	struct rn_target_result gold, now;
	struct rn_golden g;
	struct rn_verdict_result *v, *s;
	size_t n;

	(void)state;
	make_result(&gold, 5, 100.0, 0.02, 21, 64 << 20);
	set_alloc(&gold, tight, 3.0);
	golden_of(&gold, "overlap", &g);

	/* The tree's fewest (9 MiB) is beyond the golden's most (7.2) + 10%, but the runs spread
	 * and the largest process did not grow: PASS, judged per process. */
	make_result(&now, 5, 100.0, 0.02, 22, 64 << 20);
	set_alloc(&now, spread, 3.0);
	n = compare(&g, &now, NULL, &v);
	s = find(v, n, "golden:alloc_peak");
	assert_int_equal(s->verdict, RN_VERDICT_PASS);
	assert_string_equal(s->message,
			    "alloc_peak of the largest process 3.0 MiB vs golden 3.0 MiB (+0.0%, "
			    "tolerance +10%); the tree's peak moves with how its processes overlap "
			    "(golden runs 7.0 MiB-7.2 MiB, these 9.0 MiB-12.0 MiB)");
	assert_non_null(strstr(s->detail, "the largest process (process_alloc_peak):"));
	free_verdicts(v, n);

	/* The largest process +50%: FAIL. */
	set_alloc(&now, spread, 4.5);
	n = compare(&g, &now, NULL, &v);
	s = find(v, n, "golden:alloc_peak");
	assert_int_equal(s->verdict, RN_VERDICT_FAIL);
	assert_true(s->observed == 4.5 * (1 << 20) && s->golden == 3.0 * (1 << 20));
	free_verdicts(v, n);

	/* The tree beyond twice the golden's most fails whatever its processes did: the columns
	 * show the tree (fewest 15 MiB, over twice the golden's most 7.2 MiB), not the
	 * largest process's 3.0 MiB within its 3.3 MiB limit. */
	set_alloc(&now, twice, 3.0);
	n = compare(&g, &now, NULL, &v);
	s = find(v, n, "golden:alloc_peak");
	assert_int_equal(s->verdict, RN_VERDICT_FAIL);
	assert_non_null(strstr(s->message, ": the fewest is beyond twice the golden's most"));
	assert_true(s->observed > s->budget);
	assert_true(s->observed == 15.0 * (1 << 20) &&
		    s->golden == (double)(uint64_t)(7.2 * (1 << 20)));
	assert_non_null(strstr(s->reason, "twice"));
	free_verdicts(v, n);

	/* Neither side spreads: the tree is judged, 8.45 MiB > 7.2 MiB * 1.1 and + 1 MiB fails. */
	{
		static const double grown[] = { 8.5, 8.6, 8.45, 8.5, 8.55 };

		set_alloc(&now, grown, 3.0);
		n = compare(&g, &now, NULL, &v);
		s = find(v, n, "golden:alloc_peak");
		assert_int_equal(s->verdict, RN_VERDICT_FAIL);
		assert_true(strncmp(s->message, "alloc_peak 8.5 MiB vs golden 7.1 MiB", 36) == 0);
		free_verdicts(v, n);
	}
	rn_golden_release(&g);
	free_result(&gold);

	/* A golden trace without process_alloc_peak: the spreading tree is WARN below 2x. */
	make_result(&gold, 5, 100.0, 0.02, 21, 64 << 20);
	set_alloc(&gold, tight, 0.0);
	golden_of(&gold, "overlap_old", &g);
	set_alloc(&now, spread, 3.0);
	n = compare(&g, &now, NULL, &v);
	s = find(v, n, "golden:alloc_peak");
	assert_int_equal(s->verdict, RN_VERDICT_WARN);
	assert_non_null(strstr(s->message, "the golden trace has no process_alloc_peak"));
	free_verdicts(v, n);
	free_result(&now);
	rn_golden_release(&g);
	free_result(&gold);
}

/* rn_alloc_peak_judge alone: the spread, the floor and which metric is judged. */
static void test_alloc_peak_judge(void **state)
{
	const double mib = 1 << 20;
	const double ref[] = { 7 * mib, 7.1 * mib }, obs[] = { 9 * mib, 12 * mib };
	const double pr[] = { 3 * mib, 3 * mib }, po[] = { 3.2 * mib, 3.1 * mib };
	struct rn_alloc_judgement j;

	(void)state;
	rn_alloc_peak_judge(ref, 2, obs, 2, pr, 2, po, 2, 0.10, 0, &j);
	assert_true(j.overlap && j.per_process && !j.grew);
	assert_true(j.obs_fewest == 3.1 * mib && j.ref_most == 3 * mib);
	/* a floor larger than the spread: the tree does not depend on the overlap */
	rn_alloc_peak_judge(ref, 2, obs, 2, pr, 2, po, 2, 0.10, 4 * mib, &j);
	assert_true(!j.overlap && !j.per_process && !j.grew);
	assert_true(j.obs_fewest == 9 * mib && j.ref_most == 7.1 * mib);
	/* no process data on one side: the tree alone, within 2x */
	rn_alloc_peak_judge(ref, 2, obs, 2, NULL, 0, po, 2, 0.10, 0, &j);
	assert_true(j.overlap && !j.per_process && !j.grew);
}

static void test_golden_compare_timing_without_data(void **state)
{
	struct rn_target_result gold, now;
	struct rn_golden g;
	struct rn_verdict_result *v, *s;
	size_t n, i;

	(void)state;
	make_result(&gold, 5, 100.0, 0.02, 21, 8 << 20);
	for (i = 0; i < 5; i++)
		gold.runs[i].v[RN_METRIC_CRITICAL_PATH] = 0;
	golden_of(&gold, "nocp", &g);
	make_result(&now, 5, 100.0, 0.02, 22, 8 << 20);
	n = compare(&g, &now, NULL, &v);
	s = find(v, n, "golden:critical_path");
	assert_int_equal(s->verdict, RN_VERDICT_NOT_JUDGED);
	assert_true(ends_with(s->message,
			      " ms; not judged: the golden trace has no critical_path "
			      "data; to judge it: re-record it with renacer golden "
			      "update"));
	assert_string_equal(s->reason, "the golden trace has no critical_path data");
	s = find(v, n, "golden:wall_time");
	assert_int_equal(s->verdict, RN_VERDICT_PASS);
	free_verdicts(v, n);
	for (i = 0; i < 5; i++)
		now.runs[i].v[RN_METRIC_WALL] = 0;
	n = compare(&g, &now, NULL, &v);
	s = find(v, n, "golden:wall_time");
	assert_int_equal(s->verdict, RN_VERDICT_NO_DATA);
	assert_non_null(strstr(s->message, "wall_time: no data in this run (golden "));
	free_verdicts(v, n);
	rn_golden_release(&g);
	free_result(&gold);
	free_result(&now);
}

static void test_golden_compare_failed_target_is_error(void **state)
{
	struct rn_target_result gold, now;
	struct rn_golden g;
	struct rn_verdict_result *v;
	size_t n, i;

	(void)state;
	make_result(&gold, 5, 100.0, 0.02, 21, 8 << 20);
	golden_of(&gold, "failed", &g);
	make_result(&now, 5, 100.0, 0.02, 22, 8 << 20);
	now.status = RN_RUN_TIMED_OUT;
	now.error = strdup("run 3 exceeded 10 s");
	n = compare(&g, &now, NULL, &v);
	assert_int_equal(n, 8);
	for (i = 0; i < n; i++) {
		assert_int_equal(v[i].verdict, RN_VERDICT_ERROR);
		assert_string_equal(v[i].message,
				    "not compared with the golden trace: target "
				    "'io_loop' timed out: run 3 exceeded 10 s");
	}
	free_verdicts(v, n);
	rn_golden_release(&g);
	free_result(&gold);
	free_result(&now);
}

static void test_golden_compare_config_switches(void **state)
{
	struct rn_target_result gold, now;
	struct rn_regression_cfg cfg;
	struct rn_golden g;
	struct rn_verdict_result *v, *s;
	size_t n;

	(void)state;
	make_result(&gold, 10, 100.0, 0.05, 21, 8 << 20);
	golden_of(&gold, "switches", &g);
	make_result(&now, 10, 130.0, 0.05, 22, 8 << 20);
	rn_regression_cfg_init(&cfg);
	cfg.timing = false;
	n = compare(&g, &now, &cfg, &v);
	s = find(v, n, "golden:wall_time");
	assert_int_equal(s->verdict, RN_VERDICT_SKIP);
	assert_true(
		ends_with(s->message, "not judged: timing is off ([regression] timing = false)"));
	free_verdicts(v, n);

	/* A looser tolerance lets a 30% slowdown pass. */
	rn_regression_cfg_init(&cfg);
	cfg.timing_tolerance = 0.5;
	n = compare(&g, &now, &cfg, &v);
	assert_int_equal(find(v, n, "golden:wall_time")->verdict, RN_VERDICT_PASS);
	free_verdicts(v, n);

	rn_regression_cfg_init(&cfg);
	cfg.enabled = false;
	n = compare(&g, &now, &cfg, &v);
	assert_int_equal(n, 0);
	assert_null(v);
	rn_golden_release(&g);
	free_result(&gold);
	free_result(&now);
}

static void test_golden_compare_gpu(void **state)
{
	struct rn_target_result gold, now;
	struct rn_golden g;
	struct rn_verdict_result *v;
	size_t n, i;

	(void)state;
	make_result(&gold, 5, 100.0, 0.02, 21, 8 << 20);
	for (i = 0; i < 5; i++) {
		gold.runs[i].has_gpu = true;
		gold.runs[i].v[RN_METRIC_GPU_BUSY] = 2000000;
		gold.runs[i].v[RN_METRIC_GPU_DISPATCHES] = 10;
		gold.runs[i].v[RN_METRIC_GPU_COPY_BYTES] = 1 << 20;
	}
	golden_of(&gold, "gpu_cmp", &g);
	make_result(&now, 5, 100.0, 0.02, 22, 8 << 20);
	n = compare(&g, &now, NULL, &v);
	assert_int_equal(n, 11);
	assert_int_equal(find(v, n, "golden:gpu_busy")->verdict, RN_VERDICT_NO_DATA);
	assert_int_equal(find(v, n, "golden:gpu_dispatches")->verdict, RN_VERDICT_NO_DATA);
	assert_int_equal(find(v, n, "golden:gpu_copy_bytes")->verdict, RN_VERDICT_NO_DATA);
	free_verdicts(v, n);
	for (i = 0; i < 5; i++) {
		now.runs[i].has_gpu = true;
		now.runs[i].v[RN_METRIC_GPU_BUSY] = 2000000;
		now.runs[i].v[RN_METRIC_GPU_DISPATCHES] = 20;
		now.runs[i].v[RN_METRIC_GPU_COPY_BYTES] = 1 << 20;
	}
	n = compare(&g, &now, NULL, &v);
	assert_int_equal(find(v, n, "golden:gpu_busy")->verdict, RN_VERDICT_PASS);
	assert_int_equal(find(v, n, "golden:gpu_dispatches")->verdict, RN_VERDICT_FAIL);
	assert_string_equal(find(v, n, "golden:gpu_dispatches")->unit, "spans");
	assert_int_equal(find(v, n, "golden:gpu_copy_bytes")->verdict, RN_VERDICT_PASS);
	free_verdicts(v, n);
	rn_golden_release(&g);
	free_result(&gold);
	free_result(&now);
}

/* Set cpu_time of every run to `share` of its wall time, scaled by `cpu_scale`, all of it
 * user time (a CPU-bound program in user space). */
static void set_cpu(struct rn_target_result *r, double share, double cpu_scale)
{
	size_t i;

	for (i = 0; i < r->nruns; i++) {
		r->runs[i].v[RN_METRIC_CPU_TIME] =
			(uint64_t)((double)r->runs[i].v[RN_METRIC_WALL] * share * cpu_scale);
		r->runs[i].v[RN_METRIC_USER_TIME] = r->runs[i].v[RN_METRIC_CPU_TIME];
	}
}

/* Split each run's cpu_time: `user_share` of it user time, the rest the kernel's. */
static void set_user_share(struct rn_target_result *r, double user_share)
{
	size_t i;

	for (i = 0; i < r->nruns; i++)
		r->runs[i].v[RN_METRIC_USER_TIME] =
			(uint64_t)((double)r->runs[i].v[RN_METRIC_CPU_TIME] * user_share);
}

/* A golden trace `name` of a CPU-bound program (10 runs of 100 ms wall, 90% of it user CPU
 * time) recorded with a speed probe of 2 ms; `gold` keeps the result it was made from. */
static void probed_golden(struct rn_target_result *gold, const char *name, struct rn_golden *g)
{
	make_result(gold, 10, 100.0, 0.02, 3, 8 << 20);
	set_cpu(gold, 0.9, 1.0);
	golden_of(gold, name, g);
	g->has_conditions = true;
	g->probe_cpu_ns = g->probe_wall_ns = 2e6;
}

/* A check of the same program: 10 runs of `wall_ms`, 90% user CPU time, one speed probe of
 * `probe_ns` (2e6 = the golden's speed). */
static void probed_run(struct rn_target_result *now, double wall_ms, double probe_ns)
{
	make_result(now, 10, wall_ms, 0.02, 17, 8 << 20);
	set_cpu(now, 0.9, 1.0);
	now->nprobes = 1;
	now->probe_cpu_ns = malloc(sizeof(double));
	now->probe_wall_ns = malloc(sizeof(double));
	now->probe_cpu_ns[0] = now->probe_wall_ns[0] = probe_ns;
}

/*
 * The speed probe: a machine running at 1.3x the recording's probe time (load, frequency) makes
 * timing advisory (WARN, with the shift measured on scaled golden samples), never a FAIL
 * within the drift limit; at the recording's speed the same 30% slowdown fails.
 */
static void test_golden_speed_probe(void **state)
{
	struct rn_target_result gold, now;
	struct rn_golden g;
	struct rn_verdict_result *v;
	size_t n;

	(void)state;
	probed_golden(&gold, "probe", &g);
	probed_run(&now, 130.0, 2.6e6); /* 1.3x slower machine */
	n = compare(&g, &now, NULL, &v);
	assert_int_equal(find(v, n, "golden:cpu_time")->verdict, RN_VERDICT_WARN);
	assert_non_null(strstr(find(v, n, "golden:cpu_time")->message, "speed probe"));
	assert_int_equal(find(v, n, "golden:wall_time")->verdict, RN_VERDICT_WARN);
	free_verdicts(v, n);

	now.probe_cpu_ns[0] = now.probe_wall_ns[0] = 2.02e6; /* same speed */
	n = compare(&g, &now, NULL, &v);
	assert_int_equal(find(v, n, "golden:cpu_time")->verdict, RN_VERDICT_FAIL);
	assert_int_equal(find(v, n, "golden:wall_time")->verdict, RN_VERDICT_FAIL);
	free_verdicts(v, n);
	rn_target_result_release(&now);
	rn_golden_release(&g);
	free_result(&gold);
}

/*
 * A probe faster now than when the golden trace was recorded (0.7x) never scales the golden
 * down: under load the ~2 ms probe swings 2-5x, and a scaled-down golden made an unchanged run
 * faster than it read +46%. So +12% of raw time against such a probe is no failure (it would
 * have been +60% scaled), and a run as fast as its golden reads no slowdown at all; a 2x still
 * fails beyond the drift limit.
 */
static void test_golden_probe_never_scales_down(void **state)
{
	struct rn_target_result gold, now;
	struct rn_golden g;
	struct rn_verdict_result *v, *cpu;
	size_t n;

	(void)state;
	probed_golden(&gold, "drift", &g);
	probed_run(&now, 112.0, 1.4e6);
	n = compare(&g, &now, NULL, &v);
	cpu = find(v, n, "golden:cpu_time");
	assert_int_equal(cpu->verdict, RN_VERDICT_WARN);
	assert_null(strstr(cpu->message, "speed-scaled"));
	assert_true(cpu->delta_pct < 20.0);
	assert_int_equal(find(v, n, "golden:wall_time")->verdict, RN_VERDICT_WARN);
	free_verdicts(v, n);
	rn_target_result_release(&now);

	probed_run(&now, 100.0, 0.5e6); /* unchanged, a probe 4x faster */
	n = compare(&g, &now, NULL, &v);
	/* the runs' own noise (2%) only: scaled down by the probe it read +300% */
	assert_true(find(v, n, "golden:cpu_time")->delta_pct < 5.0);
	assert_true(find(v, n, "golden:wall_time")->delta_pct < 5.0);
	free_verdicts(v, n);
	rn_target_result_release(&now);

	probed_run(&now, 200.0, 1.4e6); /* 2x */
	n = compare(&g, &now, NULL, &v);
	assert_int_equal(find(v, n, "golden:cpu_time")->verdict, RN_VERDICT_FAIL);
	free_verdicts(v, n);
	rn_target_result_release(&now);
	rn_golden_release(&g);
	free_result(&gold);
}

/*
 * A kernel-bound program (90% of the golden's CPU time system time, cp -r of a file tree): its
 * cpu_time is not compared with another moment's, as the file system's state moves it (+170%
 * of system time alone is a WARN, not a FAIL); user time beyond the drift limit fails (a 2x
 * of CPU work in user space); its wall time, mostly the kernel's work too, is advisory unless
 * cpu_time fails. A program of too little CPU time for the split keeps the plain rule.
 */
static void test_golden_kernel_bound(void **state)
{
	struct rn_target_result gold, now;
	struct rn_golden g;
	struct rn_verdict_result *v, *cpu;
	size_t n, i;

	(void)state;
	make_result(&gold, 10, 100.0, 0.02, 3, 8 << 20);
	set_cpu(&gold, 0.9, 1.0);
	set_user_share(&gold, 0.1);
	golden_of(&gold, "kernel", &g);

	/* the same user time, 2.7x the system time: the file system aged */
	make_result(&now, 10, 250.0, 0.02, 17, 8 << 20);
	for (i = 0; i < now.nruns; i++) {
		now.runs[i].v[RN_METRIC_USER_TIME] = gold.runs[i].v[RN_METRIC_USER_TIME];
		now.runs[i].v[RN_METRIC_CPU_TIME] = gold.runs[i].v[RN_METRIC_USER_TIME] +
			(uint64_t)((double)(gold.runs[i].v[RN_METRIC_CPU_TIME] -
					    gold.runs[i].v[RN_METRIC_USER_TIME]) *
				   2.7);
	}
	n = compare(&g, &now, NULL, &v);
	cpu = find(v, n, "golden:cpu_time");
	assert_int_equal(cpu->verdict, RN_VERDICT_WARN);
	assert_non_null(strstr(cpu->message, "kernel-bound"));
	assert_int_equal(find(v, n, "golden:wall_time")->verdict, RN_VERDICT_WARN);
	free_verdicts(v, n);

	/* twice the CPU work, all of it in user space */
	for (i = 0; i < now.nruns; i++) {
		now.runs[i].v[RN_METRIC_CPU_TIME] = gold.runs[i].v[RN_METRIC_CPU_TIME] * 2;
		now.runs[i].v[RN_METRIC_USER_TIME] =
			gold.runs[i].v[RN_METRIC_USER_TIME] + gold.runs[i].v[RN_METRIC_CPU_TIME];
	}
	n = compare(&g, &now, NULL, &v);
	assert_int_equal(find(v, n, "golden:cpu_time")->verdict, RN_VERDICT_FAIL);
	free_verdicts(v, n);
	rn_target_result_release(&now);
	rn_golden_release(&g);
	free_result(&gold);

	/* 9 ms of CPU time: too short for the split, a 2.7x of system time fails as before */
	make_result(&gold, 10, 10.0, 0.02, 3, 8 << 20);
	set_cpu(&gold, 0.9, 1.0);
	set_user_share(&gold, 0.1);
	golden_of(&gold, "short", &g);
	make_result(&now, 10, 25.0, 0.02, 17, 8 << 20);
	set_cpu(&now, 0.9, 1.0);
	set_user_share(&now, 0.04);
	n = compare(&g, &now, NULL, &v);
	assert_int_equal(find(v, n, "golden:cpu_time")->verdict, RN_VERDICT_FAIL);
	free_verdicts(v, n);
	rn_target_result_release(&now);
	rn_golden_release(&g);
	free_result(&gold);
}

/*
 * Runs that waited on I/O (I/O pressure >= 10%) are not compared with another moment's: a +30%
 * that fails on the same machine at the same speed is advisory there, and a 2x of cpu_time
 * still fails (beyond the drift limit).
 */
static void test_golden_io_bound_advisory(void **state)
{
	struct rn_target_result gold, now;
	struct rn_golden g;
	struct rn_verdict_result *v;
	size_t n;

	(void)state;
	probed_golden(&gold, "io", &g);
	probed_run(&now, 130.0, 2.02e6); /* same speed */
	now.has_io_pressure = true;
	now.io_pressure = 0.02;
	n = compare(&g, &now, NULL, &v);
	assert_int_equal(find(v, n, "golden:cpu_time")->verdict, RN_VERDICT_FAIL);
	free_verdicts(v, n);

	now.io_pressure = 0.30;
	n = compare(&g, &now, NULL, &v);
	assert_int_equal(find(v, n, "golden:cpu_time")->verdict, RN_VERDICT_WARN);
	assert_non_null(strstr(find(v, n, "golden:cpu_time")->message, "waited on I/O"));
	assert_int_equal(find(v, n, "golden:wall_time")->verdict, RN_VERDICT_WARN);
	free_verdicts(v, n);
	rn_target_result_release(&now);

	probed_run(&now, 200.0, 2.02e6); /* 2x */
	now.has_io_pressure = true;
	now.io_pressure = 0.30;
	n = compare(&g, &now, NULL, &v);
	assert_int_equal(find(v, n, "golden:cpu_time")->verdict, RN_VERDICT_FAIL);
	assert_int_equal(find(v, n, "golden:wall_time")->verdict, RN_VERDICT_FAIL);
	free_verdicts(v, n);
	rn_target_result_release(&now);
	rn_golden_release(&g);
	free_result(&gold);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden_speed_probe),
		cmocka_unit_test(test_golden_compare_fingerprint),
		cmocka_unit_test(test_golden_compare_two_modes),
		cmocka_unit_test(test_golden_io_bound_advisory),
		cmocka_unit_test(test_golden_probe_never_scales_down),
		cmocka_unit_test(test_golden_regression_defaults),
		cmocka_unit_test(test_golden_path),
		cmocka_unit_test(test_golden_write_read_round_trip),
		cmocka_unit_test(test_golden_write_is_deterministic),
		cmocka_unit_test(test_golden_write_gpu_summary),
		cmocka_unit_test(test_golden_write_refuses_bad_results),
		cmocka_unit_test(test_golden_read_errors),
		cmocka_unit_test(test_golden_read_error_column_is_one_based),
		cmocka_unit_test(test_golden_read_empty_and_odd_formats),
		cmocka_unit_test(test_golden_read_schema_errors),
		cmocka_unit_test(test_golden_read_json_v1),
		cmocka_unit_test(test_golden_compare_verdict_set),
		cmocka_unit_test(test_golden_compare_span_time),
		cmocka_unit_test(test_golden_read_v2_has_no_spans),
		cmocka_unit_test(test_golden_compare_span_cpu),
		cmocka_unit_test(test_golden_read_span_cpu_errors),
		cmocka_unit_test(test_golden_compare_total_syscalls_message),
		cmocka_unit_test(test_golden_compare_total_rule_slack),
		cmocka_unit_test(test_golden_compare_doubled_syscall_fails_naming_it),
		cmocka_unit_test(test_golden_compare_contention_counts),
		cmocka_unit_test(test_golden_compare_brk_layout),
		cmocka_unit_test(test_golden_kernel_bound),
		cmocka_unit_test(test_golden_compare_calls_max),
		cmocka_unit_test(test_golden_compare_floor_and_new_syscalls),
		cmocka_unit_test(test_golden_compare_slowdown_30pct_over_10_runs_fails),
		cmocka_unit_test(test_golden_compare_pinned_runs_never_fail),
		cmocka_unit_test(test_golden_compare_noise_only_never_fails),
		cmocka_unit_test(test_golden_compare_undecided_is_not_pass),
		cmocka_unit_test(test_golden_compare_processes),
		cmocka_unit_test(test_golden_compare_other_machine_is_advisory_but_2x_fails),
		cmocka_unit_test(test_golden_compare_few_runs_not_judged),
		cmocka_unit_test(test_golden_compare_memory),
		cmocka_unit_test(test_golden_compare_alloc_overlap),
		cmocka_unit_test(test_alloc_peak_judge),
		cmocka_unit_test(test_golden_compare_timing_without_data),
		cmocka_unit_test(test_golden_compare_failed_target_is_error),
		cmocka_unit_test(test_golden_compare_config_switches),
		cmocka_unit_test(test_golden_compare_gpu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
