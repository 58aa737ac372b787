/*
 * test_alloc_faults - allocation failure, one allocation at a time (curl's torture mode):
 * for the TOML parser, the config parser, the JUnit writer and the golden trace writer, fail
 * the 1st, 2nd, ... failable allocation (rn_alloc_fail_at, util/xalloc.h) until the
 * operation makes fewer allocations than the one to fail. Each attempt must end in one of:
 *
 *   - success with exactly the result of a run without failures (a swallowed failure must
 *     not turn into a wrong value: a truncated argv, a missing path, an "unknown" field);
 *   - a clear error: an "out of memory" diagnostic (or the equivalent strerror text), no
 *     partial result, and for writers the previous output file byte-identical and no
 *     temporary file left beside it.
 *
 * No attempt may crash; under ASan (ci/sanitize.sh) none may leak.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "buf.h"
#include "config.h"
#include "golden.h"
#include "junit.h"
#include "toml.h"
#include "xalloc.h"

/* Upper bound on attempts, so a loop that never ends is a failure, not a hang. */
#define MAX_ATTEMPTS 100000

/* True when `msg` says that memory ran out. */
static bool says_out_of_memory(const char *msg)
{
	return strstr(msg, "out of memory") || strstr(msg, "Cannot allocate memory");
}

/* ---- a scratch directory ------------------------------------------------------------------ */

static char scratch[256];

static int setup_scratch(void **state)
{
	(void)state;
	snprintf(scratch, sizeof(scratch), "/tmp/renacer-allocfault-XXXXXX");
	return mkdtemp(scratch) ? 0 : -1;
}

static int teardown_scratch(void **state)
{
	DIR *d = opendir(scratch);
	struct dirent *de;
	char path[512];

	(void)state;
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", scratch, de->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(scratch);
	return 0;
}

/* The names in the scratch directory other than `keep`, space-separated ("" when none). */
static void strays(const char *keep, char *out, size_t cap)
{
	DIR *d = opendir(scratch);
	struct dirent *de;
	size_t n = 0;

	out[0] = '\0';
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.' || !strcmp(de->d_name, keep))
			continue;
		n += (size_t)snprintf(out + n, n < cap ? cap - n : 0, "%s ", de->d_name);
		if (n >= cap)
			break;
	}
	if (d)
		closedir(d);
}

static char *read_all(const char *path, size_t *len)
{
	struct rn_buf b;

	rn_buf_init(&b, 0);
	if (rn_buf_read_file(&b, path)) {
		rn_buf_release(&b);
		return NULL;
	}
	return rn_buf_detach(&b, len);
}

/* ---- stderr capture (writers report with rn_error) ---------------------------------------- */

static int saved_stderr = -1;
static char err_path[512];

static void capture_stderr(void)
{
	int fd;

	snprintf(err_path, sizeof(err_path), "%s/stderr.txt", scratch);
	fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	saved_stderr = dup(2);
	dup2(fd, 2);
	close(fd);
}

/* Restore stderr; returns what was written to it (caller frees). */
static char *captured_stderr(void)
{
	char *text;

	dup2(saved_stderr, 2);
	close(saved_stderr);
	saved_stderr = -1;
	text = read_all(err_path, NULL);
	unlink(err_path);
	return text ? text : strdup("");
}

/* ---- canonical dumps, compared between a clean run and a run with a failure ---------------- */

static void dump_toml(struct rn_buf *b, const struct rn_toml_value *v)
{
	char dt[128];
	size_t i;

	rn_buf_addf(b, "%s@%d:%d:", rn_toml_type_name(v->type), v->pos.line, v->pos.col);
	switch (v->type) {
	case RN_TOML_STRING:
		rn_buf_addf(b, "%zu:", v->u.str.len);
		rn_buf_add(b, v->u.str.ptr, v->u.str.len);
		break;
	case RN_TOML_INTEGER:
		rn_buf_addf(b, "%" PRId64, v->u.integer);
		break;
	case RN_TOML_FLOAT:
		rn_buf_addf(b, "%.17g", v->u.fp);
		break;
	case RN_TOML_BOOL:
		rn_buf_adds(b, v->u.boolean ? "true" : "false");
		break;
	case RN_TOML_DATETIME:
	case RN_TOML_DATETIME_LOCAL:
	case RN_TOML_DATE_LOCAL:
	case RN_TOML_TIME_LOCAL:
		rn_toml_format_datetime(v, dt, sizeof(dt));
		rn_buf_adds(b, dt);
		break;
	case RN_TOML_ARRAY:
		rn_buf_addc(b, '[');
		for (i = 0; i < v->u.array.n; i++) {
			dump_toml(b, v->u.array.items[i]);
			rn_buf_addc(b, ',');
		}
		rn_buf_addc(b, ']');
		break;
	case RN_TOML_TABLE:
		rn_buf_addc(b, '{');
		for (i = 0; i < v->u.table->n; i++) {
			const struct rn_toml_kv *kv = &v->u.table->kv[i];

			rn_buf_addf(b, "%zu:", kv->key_len);
			rn_buf_add(b, kv->key, kv->key_len);
			rn_buf_addf(b, "@%d:%d=", kv->key_pos.line, kv->key_pos.col);
			dump_toml(b, kv->val);
			rn_buf_addc(b, ';');
			/* lookups must work on a tree built under failures too */
			if (strlen(kv->key) == kv->key_len && rn_toml_get(v, kv->key) != kv->val)
				rn_buf_adds(b, "<lookup fails>");
		}
		rn_buf_addc(b, '}');
		break;
	}
}

static void dump_strv(struct rn_buf *b, const char *name, char *const *v)
{
	size_t i;

	rn_buf_addf(b, "%s=", name);
	if (!v) {
		rn_buf_adds(b, "NULL\n");
		return;
	}
	for (i = 0; v[i]; i++)
		rn_buf_addf(b, "[%s]", v[i]);
	rn_buf_addc(b, '\n');
}

static void dump_str(struct rn_buf *b, const char *name, const char *s)
{
	rn_buf_addf(b, "%s=%s\n", name, s ? s : "(NULL)");
}

static void dump_config(struct rn_buf *b, const struct rn_config *cfg)
{
	size_t i;

	dump_str(b, "path", cfg->path);
	dump_str(b, "dir", cfg->dir);
	dump_str(b, "golden_dir", cfg->golden_dir);
	dump_str(b, "junit", cfg->junit);
	dump_str(b, "trace_out", cfg->trace_out);
	dump_str(b, "otlp_file", cfg->otlp_file);
	for (i = 0; i < cfg->ntargets; i++) {
		const struct rn_target_cfg *t = &cfg->targets[i];

		dump_str(b, "target", t->name);
		dump_strv(b, "argv", t->argv);
		dump_str(b, "cwd", t->cwd);
		dump_strv(b, "env", t->env);
		rn_buf_addf(b,
			    "timeout=%" PRIu64 " runs=%u warmup=%u coll=%u gpu=%d out=%d err=%d "
			    "procs=%" PRIu64 " as=%" PRIu64 " line=%d\n",
			    t->timeout_ns, t->runs, t->warmup, t->collectors, (int)t->gpu_mode,
			    (int)t->out, (int)t->err, t->max_procs, t->max_as_bytes, t->line);
	}
	for (i = 0; i < cfg->nassertions; i++) {
		const struct rn_assertion_spec *a = &cfg->assertions[i];

		dump_str(b, "assertion", a->name);
		rn_buf_addf(b,
			    "type=%d line=%d en=%d fov=%d agg=%d dur=%" PRIu64 " spans=%" PRIu64
			    " bytes=%" PRIu64 " mode=%d thr=%.17g\n",
			    (int)a->type, a->line, a->enabled, a->fail_on_violation,
			    (int)a->aggregate, a->max_duration_ns, a->max_spans, a->max_bytes,
			    (int)a->tracking_mode, a->threshold);
		dump_strv(b, "targets", a->targets);
		dump_str(b, "trace_pat", a->trace_name_pattern);
		dump_str(b, "span_pat", a->span_name_pattern);
		dump_str(b, "pattern", a->pattern);
		dump_str(b, "proc_pat", a->process_name_pattern);
		rn_buf_addf(b, "re=%d%d%d\n", !!a->trace_re, !!a->span_re, !!a->process_re);
	}
	rn_buf_addf(b, "otlp: set=%d en=%d req=%d timeout=%" PRId64 " thr=%" PRId64 "\n",
		    cfg->otlp.set_enabled, cfg->otlp.enabled, cfg->otlp.required,
		    cfg->otlp.timeout_ms, cfg->otlp.syscall_threshold_us);
	dump_str(b, "endpoint", cfg->otlp.endpoint);
	dump_str(b, "protocol", cfg->otlp.protocol);
	dump_str(b, "service", cfg->otlp.service_name);
	dump_strv(b, "headers", cfg->otlp.headers);
	dump_str(b, "compression", cfg->otlp.compression);
	dump_str(b, "spans", cfg->otlp.syscall_spans);
	rn_buf_addf(b, "regression: %d %.17g %" PRIu64 " %.17g %.17g %.17g %d %u\n",
		    cfg->regression.enabled, cfg->regression.count_tolerance,
		    cfg->regression.count_floor, cfg->regression.timing_tolerance,
		    cfg->regression.memory_tolerance, cfg->regression.alpha, cfg->regression.timing,
		    cfg->regression.min_runs_for_timing);
	dump_strv(b, "ignored", cfg->ignored_tables);
}

/* Print the lines of `got` that differ from `want` (same line count expected). */
static void report_difference(const char *what, unsigned long n, const char *want, const char *got)
{
	const char *w = want, *g = got;

	fprintf(stderr, "%s: allocation %lu failed, yet it succeeded with:\n", what, n);
	while (*w || *g) {
		size_t wl = strcspn(w, "\n"), gl = strcspn(g, "\n");

		if (wl != gl || memcmp(w, g, wl))
			fprintf(stderr, "    %.*s\n    instead of %.*s\n", (int)gl, g, (int)wl, w);
		w += wl + (w[wl] == '\n');
		g += gl + (g[gl] == '\n');
	}
}

/* ---- the TOML parser ---------------------------------------------------------------------- */

static const char rich_toml[] =
	"# every kind of value and table\n"
	"title = \"TOML \\u00e9 \\\"quoted\\\"\"\n"
	"lit = 'C:\\path'\n"
	"ml = \"\"\"\nline one \\\n   continued\"\"\"\n"
	"mll = '''\nraw\n text'''\n"
	"int = [1_000, 0xff, 0o17, 0b101, -9223372036854775808]\n"
	"flt = [1.5, -0.0, 6.02e23, inf, nan]\n"
	"odt = 1979-05-27T07:32:00.999999-07:00\n"
	"ldt = 1979-05-27T07:32:00\n"
	"ld = 1979-05-27\n"
	"lt = 07:32:00.5\n"
	"mixed = [[1, 2], [\"a\", 'b'], [{x = 1}, {y.z = [true]}]]\n"
	"a.b.c = 1\n"
	"a.b.d = { e = 2, f = { g = [] } }\n"
	"\"quoted key\" = \"v\"\n"
	"[server]\nhost = \"x\"\nport = 8080\n"
	"[server.tls]\nenabled = false\n"
	"[[products]]\nname = \"Hammer\"\n[[products.variants]]\ncolor = \"red\"\n"
	"[[products]]\nname = \"Nail\"\nsku = 284758393\n"
	"[[products.variants]]\ncolor = \"gray\"\n[[products.variants]]\ncolor = \"black\"\n";

static void toml_torture(const char *what, const char *src, size_t len)
{
	struct rn_toml_value *root = NULL;
	struct rn_diag d;
	struct rn_buf want, got;
	unsigned long n, made;
	char *expected_error = NULL;
	int rc;

	rn_diag_init(&d, what, src, len);
	rc = rn_toml_parse(src, len, &root, &d);
	rn_buf_init(&want, 0);
	if (rc)
		expected_error = strdup(d.msg);
	else
		dump_toml(&want, root);
	rn_toml_free(root);
	assert_false(rn_buf_failed(&want));

	for (n = 1; n < MAX_ATTEMPTS; n++) {
		root = NULL;
		rn_diag_init(&d, what, src, len);
		rn_alloc_fail_at(n);
		rc = rn_toml_parse(src, len, &root, &d);
		made = rn_alloc_count();
		rn_alloc_fail_at(0);
		if (rc) {
			if (root)
				fail_msg("%s: allocation %lu failed: parse failed but left a tree",
					 what, n);
			if (!d.set ||
			    !(says_out_of_memory(d.msg) ||
			      (expected_error && !strcmp(d.msg, expected_error))))
				fail_msg("%s: allocation %lu failed: unclear error '%s'", what, n,
					 d.msg);
		} else {
			if (expected_error)
				fail_msg("%s: allocation %lu failed: an invalid document parsed",
					 what, n);
			rn_buf_init(&got, 0);
			dump_toml(&got, root);
			if (strcmp(got.buf, want.buf))
				fail_msg(
					"%s: allocation %lu failed, parse succeeded with another tree",
					what, n);
			rn_buf_release(&got);
			rn_toml_free(root);
		}
		if (made < n)
			break; /* this attempt injected nothing: every allocation was tried */
	}
	assert_true(n < MAX_ATTEMPTS);
	assert_true(n > 1);
	rn_buf_release(&want);
	free(expected_error);
}

static void test_alloc_faults_toml(void **state)
{
	struct rn_buf example;
	static const char invalid[] = "[a]\nx = 1\n[a]\ny = 2\n";

	(void)state;
	toml_torture("rich.toml", rich_toml, sizeof(rich_toml) - 1);
	rn_buf_init(&example, 0);
	assert_int_equal(rn_buf_read_file(&example, RN_SOURCE_DIR "/renacer.toml.example"), 0);
	toml_torture("renacer.toml.example", example.buf, example.len);
	rn_buf_release(&example);
	toml_torture("invalid.toml", invalid, sizeof(invalid) - 1);
}

/* ---- the config parser -------------------------------------------------------------------- */

static const char rich_config[] =
	"[[target]]\n"
	"name = \"work\"\n"
	"command = [\"build/targets/example_work\", \"20\", \"--flag=x y\"]\n"
	"cwd = \"sub/dir\"\n"
	"env = { LC_ALL = \"C\", B = \"x=y\", EMPTY = \"\" }\n"
	"timeout_s = 2.5\nruns = 3\nwarmup = 1\nstdout = \"capture\"\nstderr = \"null\"\n"
	"max_processes = 50\nmax_memory_bytes = 1073741824\n"
	"[[target]]\n"
	"name = \"shell\"\n"
	"command = [\"echo\", \"$HOME\", \"&&\", \"true\"]\n"
	"shell = true\n"
	"[[assertion]]\n"
	"name = \"cp\"\ntype = \"critical_path\"\nmax_duration_ms = 20\n"
	"trace_name_pattern = \"wo.*\"\naggregate = \"p95\"\n"
	"[[assertion]]\n"
	"name = \"sc\"\ntype = \"span_count\"\nmax_spans = 4\nspan_name_pattern = \"f(data)?sync\"\n"
	"targets = [\"work\", \"shell\"]\nfail_on_violation = false\n"
	"[[assertion]]\n"
	"name = \"mem\"\ntype = \"memory_usage\"\nmax_bytes = 1000\ntracking_mode = \"allocations\"\n"
	"[[assertion]]\n"
	"name = \"ap\"\ntype = \"anti_pattern\"\npattern = \"TightLoop\"\nthreshold = 0.5\n"
	"process_name_pattern = \"example_.*\"\nenabled = false\n"
	"[golden]\ndir = \"gold\"\n"
	"[report]\njunit = \"out/junit.xml\"\ntrace_out = \"/abs/trace.json\"\notlp_file = \"o.jsonl\"\n"
	"[otlp]\nenabled = true\nendpoint = \"http://127.0.0.1:4318\"\nprotocol = \"http/json\"\n"
	"service_name = \"svc\"\nheaders = { Authorization = \"Bearer x\", X-Team = \"perf\" }\n"
	"timeout_ms = 500\ncompression = \"gzip\"\nrequired = true\nsyscall_spans = \"threshold\"\n"
	"syscall_threshold_us = 10\n"
	"[regression]\ncount_tolerance = 0.2\ncount_floor = 3\nalpha = 0.05\ntiming = false\n"
	"min_runs_for_timing = 4\n"
	"[semantic_equivalence]\nenabled = true\n";

static const char bad_config[] =
	"[[assertion]]\nname = \"api\"\ntype = \"anti_pattern\"\npattern = \"TightLoop\"\n"
	"treshold = 0.5\n";

/* Parse `src` (or load the file `path` when src is NULL) with allocation n failing. */
static int config_attempt(struct rn_config *cfg, const char *path, const char *src,
			  struct rn_diag *d)
{
	if (src)
		return rn_config_parse(cfg, path, src, strlen(src), true, d);
	return rn_config_load(cfg, path, true, d);
}

/*
 * The fault-free run must give what the test expects: with `want_error`, a failure whose
 * message contains it; otherwise a config whose dump contains every line of `want_lines`
 * (NULL-terminated). Then every allocation failing in turn must give that same config, the
 * same error, or a clear out-of-memory error.
 */
static void config_torture(const char *path, const char *src, const char *const *want_lines,
			   const char *want_error)
{
	struct rn_config cfg;
	struct rn_diag d;
	struct rn_buf want, got;
	unsigned long n, made;
	char *expected_error = NULL;
	int rc, wrong = 0;
	size_t i;

	rc = config_attempt(&cfg, path, src, &d);
	rn_buf_init(&want, 0);
	if (rc)
		expected_error = strdup(d.msg);
	else
		dump_config(&want, &cfg);
	rn_config_release(&cfg);
	assert_false(rn_buf_failed(&want));
	if (want_error) {
		if (!rc || !d.set || !strstr(d.msg, want_error))
			fail_msg("%s: expected an error containing '%s', got rc %d '%s'", path,
				 want_error, rc, rc ? d.msg : "");
	} else {
		if (rc)
			fail_msg("%s: the config does not load: %s", path, d.msg);
		for (i = 0; want_lines && want_lines[i]; i++)
			if (!strstr(want.buf, want_lines[i]))
				fail_msg("%s: '%s' missing from the loaded config:\n%s", path,
					 want_lines[i], want.buf);
	}

	for (n = 1; n < MAX_ATTEMPTS; n++) {
		rn_alloc_fail_at(n);
		rc = config_attempt(&cfg, path, src, &d);
		made = rn_alloc_count();
		rn_alloc_fail_at(0);
		if (rc) {
			if (!d.set ||
			    !(says_out_of_memory(d.msg) ||
			      (expected_error && !strcmp(d.msg, expected_error)))) {
				rn_config_release(&cfg);
				fail_msg("%s: allocation %lu failed: unclear error '%s'", path, n,
					 d.msg);
			}
		} else {
			if (expected_error) {
				rn_config_release(&cfg);
				fail_msg("%s: allocation %lu failed: an invalid config loaded",
					 path, n);
			}
			rn_buf_init(&got, 0);
			dump_config(&got, &cfg);
			if (strcmp(got.buf, want.buf)) {
				report_difference(path, n, want.buf, got.buf);
				wrong++;
			}
			rn_buf_release(&got);
		}
		rn_config_release(&cfg);
		if (made < n)
			break;
	}
	assert_true(n < MAX_ATTEMPTS);
	rn_buf_release(&want);
	free(expected_error);
	if (wrong)
		fail_msg("%s: %d allocation failures were swallowed: the config loaded with other "
			 "contents (listed above)",
			 path, wrong);
}

static void test_alloc_faults_config_example(void **state)
{
	static const char *const lines[] = {
		"target=example_work\n",           "target=example_tree\n",
		"assertion=work_critical_path\n",  "assertion=work_no_tight_loop\n",
		"assertion=tree_gpu_dispatches\n", NULL,
	};

	(void)state;
	config_torture(RN_SOURCE_DIR "/renacer.toml.example", NULL, lines, NULL);
}

static void test_alloc_faults_config_every_table(void **state)
{
	static const char *const lines[] = {
		"target=work\n",
		"target=shell\n",
		"/sub/dir\n",
		"argv=[/bin/sh][-c][echo $HOME && true]\n",
		"timeout=2500000000 runs=3 warmup=1 ",
		"assertion=cp\n",
		"assertion=sc\n",
		"targets=[work][shell]\n",
		"span_pat=f(data)?sync\n",
		"assertion=mem\n",
		"assertion=ap\n",
		"pattern=TightLoop\n",
		"proc_pat=example_.*\n",
		"/out/junit.xml\n",
		"otlp: set=1 en=1 req=1 timeout=500 thr=10\n",
		NULL,
	};

	(void)state;
	config_torture(RN_SOURCE_DIR "/tests/renacer.toml", rich_config, lines, NULL);
}

static void test_alloc_faults_config_error(void **state)
{
	(void)state;
	config_torture(RN_SOURCE_DIR "/tests/renacer.toml", bad_config, NULL,
		       "unknown key 'treshold'");
}

/* ---- the JUnit writer --------------------------------------------------------------------- */

static void make_verdict(struct rn_verdict_result *v, const char *name, enum rn_verdict verdict,
			 const char *message)
{
	memset(v, 0, sizeof(*v));
	v->assertion = (char *)name;
	v->type = (char *)"span_count";
	v->target = (char *)"work";
	v->verdict = verdict;
	v->message = (char *)message;
	v->has_observed = true;
	v->observed = 5;
	v->has_budget = true;
	v->budget = 4;
	v->unit = "spans";
	v->delta_pct = 25;
	v->aggregate = (char *)"median of 3 runs";
	v->detail = (char *)"name      count\nfsync         5\n<&>\"'\x01\r\n";
	v->config_line = 12;
	v->time_ns = 1500000;
}

static void test_alloc_faults_junit(void **state)
{
	struct rn_verdict_result v[6];
	struct rn_target_result r[2];
	struct rn_target_report t[2];
	struct rn_outcome oc;
	char path[512], keep_name[] = "junit.xml", stray[1024];
	char *want, *before, *after, *err;
	size_t want_len, before_len, after_len;
	unsigned long n, made;
	int rc;

	(void)state;
	make_verdict(&v[0], "pass", RN_VERDICT_PASS, "5 <= 5");
	make_verdict(&v[1], "fail", RN_VERDICT_FAIL, "5 spans matching /fsync/ > budget 4");
	make_verdict(&v[2], "warn", RN_VERDICT_WARN, "over budget & not blocking");
	make_verdict(&v[3], "skip", RN_VERDICT_SKIP, "enabled = false");
	make_verdict(&v[4], "nodata", RN_VERDICT_NO_DATA, "no span matched /gpu:.*/");
	make_verdict(&v[5], "error", RN_VERDICT_ERROR, "target 'work' was killed by signal 11");
	memset(r, 0, sizeof(r));
	memset(t, 0, sizeof(t));
	memset(&oc, 0, sizeof(oc));
	r[0].name = (char *)"work";
	r[0].start_unix_ns = 1700000000ull * 1000000000ull;
	r[0].duration_ns = 1250000000ull;
	t[0].verdicts = v;
	t[0].nverdicts = 6;
	t[0].golden_file = (char *)"golden_traces/work.json";
	r[1].name = (char *)"tree";
	r[1].start_unix_ns = 1700000000ull * 1000000000ull;
	r[1].status = RN_RUN_INTERRUPTED;
	t[1].verdicts = v + 1;
	t[1].nverdicts = 2;
	t[0].result = &r[0];
	t[1].result = &r[1];
	oc.targets = r;
	oc.reports = t;
	oc.ntargets = 2;
	oc.interrupted = SIGINT;

	snprintf(path, sizeof(path), "%s/%s", scratch, keep_name);
	assert_int_equal(rn_junit_write(path, &oc), 0);
	want = read_all(path, &want_len);
	assert_non_null(want);

	for (n = 1; n < MAX_ATTEMPTS; n++) {
		/* A previous report that a failed write must leave alone. */
		static const char previous[] = "<?xml version=\"1.0\"?><testsuites/>\n";

		assert_int_equal(rn_write_file_atomic(path, previous, sizeof(previous) - 1), 0);
		capture_stderr();
		rn_alloc_fail_at(n);
		rc = rn_junit_write(path, &oc);
		made = rn_alloc_count();
		rn_alloc_fail_at(0);
		err = captured_stderr();
		strays(keep_name, stray, sizeof(stray));
		if (stray[0])
			fail_msg("junit: allocation %lu failed: files left beside the report: %s",
				 n, stray);
		after = read_all(path, &after_len);
		assert_non_null(after);
		if (rc) {
			before = strdup(previous);
			before_len = strlen(previous);
			if (rc != -ENOMEM)
				fail_msg("junit: allocation %lu failed: returned %d, not -ENOMEM",
					 n, rc);
			if (!strstr(err, "cannot write JUnit report") || !says_out_of_memory(err) ||
			    !strstr(err, path))
				fail_msg("junit: allocation %lu failed: unclear error '%s'", n,
					 err);
			if (after_len != before_len || memcmp(after, before, before_len))
				fail_msg("junit: allocation %lu failed: the previous report changed",
					 n);
			free(before);
		} else if (after_len != want_len || memcmp(after, want, want_len)) {
			fail_msg("junit: allocation %lu failed, the write succeeded with other "
				 "contents",
				 n);
		}
		free(after);
		free(err);
		if (made < n)
			break;
	}
	assert_true(n > 1 && n < MAX_ATTEMPTS);
	free(want);
	unlink(path);
}

/* ---- the golden trace writer -------------------------------------------------------------- */

static void make_result(struct rn_target_result *r)
{
	size_t i, n = (size_t)rn_syscall_table_size();

	rn_target_result_init(r, "work");
	r->nruns = 3;
	r->runs = calloc(3, sizeof(*r->runs));
	r->syscall_calls = calloc(n, sizeof(double));
	r->syscall_errors = calloc(n, sizeof(double));
	assert_non_null(r->runs);
	r->status = RN_RUN_OK;
	r->start_unix_ns = 1700000000ull * 1000000000ull;
	r->build_id = strdup("3f2a9c0b");
	for (i = 0; i < 3; i++) {
		r->runs[i].v[RN_METRIC_WALL] = 10000000 + i;
		r->runs[i].v[RN_METRIC_CRITICAL_PATH] = 9000000 + i;
		r->runs[i].v[RN_METRIC_PEAK_RSS] = 4 << 20;
		r->runs[i].v[RN_METRIC_SYSCALLS] = 140;
		r->runs[i].v[RN_METRIC_PROCESSES] = 1;
	}
	r->syscall_calls[rn_syscall_lookup("read")] = 100;
	r->syscall_calls[rn_syscall_lookup("openat")] = 20;
	r->syscall_errors[rn_syscall_lookup("openat")] = 2;
}

static void test_alloc_faults_golden(void **state)
{
	static const char *const argv[] = { "build/targets/example_work", "20", NULL };
	static const char previous[] = "{\"format\": \"renacer-golden/1\"}\n";
	struct rn_target_result r;
	struct rn_diag d;
	char path[512], keep_name[] = "work.json", stray[1024];
	char *want, *after;
	size_t want_len, after_len;
	unsigned long n, made;
	int rc, wrong = 0;

	(void)state;
	make_result(&r);
	snprintf(path, sizeof(path), "%s/%s", scratch, keep_name);
	assert_int_equal(rn_golden_write(path, &r, argv, &d), 0);
	want = read_all(path, &want_len);
	assert_non_null(want);

	for (n = 1; n < MAX_ATTEMPTS; n++) {
		assert_int_equal(rn_write_file_atomic(path, previous, sizeof(previous) - 1), 0);
		rn_alloc_fail_at(n);
		rc = rn_golden_write(path, &r, argv, &d);
		made = rn_alloc_count();
		rn_alloc_fail_at(0);
		strays(keep_name, stray, sizeof(stray));
		if (stray[0])
			fail_msg("golden: allocation %lu failed: files left beside the trace: %s",
				 n, stray);
		after = read_all(path, &after_len);
		assert_non_null(after);
		if (rc) {
			if (!d.set || !says_out_of_memory(d.msg))
				fail_msg("golden: allocation %lu failed: unclear error '%s'", n,
					 d.msg);
			if (after_len != sizeof(previous) - 1 || memcmp(after, previous, after_len))
				fail_msg("golden: allocation %lu failed: the previous trace changed",
					 n);
		} else if (after_len != want_len || memcmp(after, want, want_len)) {
			report_difference(path, n, want, after);
			wrong++;
		}
		free(after);
		if (made < n)
			break;
	}
	assert_true(n < MAX_ATTEMPTS);
	free(want);
	unlink(path);
	rn_target_result_release(&r);
	if (wrong)
		fail_msg("golden: %d allocation failures were swallowed: the trace was written with "
			 "other contents (listed above)",
			 wrong);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alloc_faults_toml),
		cmocka_unit_test(test_alloc_faults_config_example),
		cmocka_unit_test(test_alloc_faults_config_every_table),
		cmocka_unit_test(test_alloc_faults_config_error),
		cmocka_unit_test_setup_teardown(test_alloc_faults_junit, setup_scratch,
						teardown_scratch),
		cmocka_unit_test_setup_teardown(test_alloc_faults_golden, setup_scratch,
						teardown_scratch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
