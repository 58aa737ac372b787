/*
 * test_history.c - the history store through its ops table, on temporary SQLite files:
 * append and read back, migration of an older schema, refusal of a newer one, a corrupt
 * file, settings precedence, password masking, the input rules of a renacer-history/1 import.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "config.h"
#include "history.h"
#include "runner/history/internal.h"
#include "verdict.h"
#include "utf8.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/rn-test-history.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static int count_cb(void *ctx, size_t ncols, const char *const *v)
{
	if (ncols >= 1 && v[0])
		*(long *)ctx = strtol(v[0], NULL, 10);
	return 0;
}

static long count(struct rn_history *h, const char *sql)
{
	long n = -1;

	assert_int_equal(rn_history_query(h, sql, NULL, 0, count_cb, &n), 0);
	return n;
}

/* One target with 3 runs of known metrics and two verdicts. */
static void fake_target(struct rn_target_result *r, struct rn_target_report *t,
			struct rn_verdict_result *v)
{
	size_t i;

	rn_target_result_init(r, "app");
	r->nruns = 3;
	r->runs = calloc(3, sizeof(*r->runs));
	assert_non_null(r->runs);
	for (i = 0; i < 3; i++) {
		r->runs[i].measures = RN_MEASURES_BOTH;
		r->runs[i].v[RN_METRIC_WALL] = 1000000 * (i + 1);
		r->runs[i].v[RN_METRIC_SYSCALLS] = 100 + i;
	}
	memset(v, 0, 2 * sizeof(*v));
	v[0].assertion = (char *)"budget";
	v[0].type = (char *)"critical_path";
	v[0].target = (char *)"app";
	v[0].verdict = RN_VERDICT_PASS;
	v[0].has_observed = true;
	v[0].observed = 2.0;
	v[0].unit = "ms";
	v[0].message = (char *)"ok";
	v[1] = v[0];
	v[1].assertion = (char *)"other";
	v[1].verdict = RN_VERDICT_FAIL;
	memset(t, 0, sizeof(*t));
	t->result = r;
	t->verdicts = v;
	t->nverdicts = 2;
}

static void test_history_append_and_read_back(void **state)
{
	struct rn_history h;
	struct rn_target_result r;
	struct rn_target_report t;
	struct rn_verdict_result v[2];
	struct rn_history_run run = { 1700000000000000000ull, "abc", "main", "m1", "desc", "check",
				      "renacer.toml",         1,     NULL,   NULL, 0,      NULL };
	char path[128];
	int64_t id;

	(void)state;
	snprintf(path, sizeof(path), "%s/sub/dir/history.db", dir);
	fake_target(&r, &t, v);
	assert_int_equal(rn_history_open(&h, path, true, 1000), 0);
	assert_string_equal(h.ops->name, "sqlite");
	id = rn_history_append(&h, &run, &t, 1);
	assert_int_equal(id, 1);
	/* the second run's target carries an environment fingerprint: kept as text */
	r.has_fingerprint = true;
	rn_fingerprint_set(&r.fingerprint, RN_FP_KERNEL, "6.8.0-1017-azure");
	rn_fingerprint_set(&r.fingerprint, RN_FP_GOVERNOR, "performance");
	id = rn_history_append(&h, &run, &t, 1);
	assert_int_equal(id, 2);
	assert_int_equal(count(&h,
			       "SELECT count(*) FROM runs WHERE fingerprint IS NULL AND id = 1"),
			 1);
	assert_int_equal(count(&h,
			       "SELECT count(*) FROM runs WHERE id = 2 AND fingerprint = "
			       "'kernel=6.8.0-1017-azure; governor=performance'"),
			 1);
	assert_int_equal(count(&h, "SELECT count(*) FROM runs"), 2);
	/* Two metrics had data: wall_time and syscalls. */
	assert_int_equal(count(&h, "SELECT count(*) FROM results"), 4);
	assert_int_equal(count(&h, "SELECT count(*) FROM verdicts WHERE verdict = 'FAIL'"), 2);
	assert_int_equal(count(&h, "SELECT version FROM renacer_schema"),
			 RN_HISTORY_SCHEMA_VERSION);
	assert_int_equal(count(&h,
			       "SELECT median FROM results WHERE metric = 'wall_time' AND "
			       "run_id = 1"),
			 2000000);
	{
		const char *p[] = { "syscalls" };
		long n = -1;

		assert_int_equal(rn_history_query(&h,
						  "SELECT count(*) FROM results WHERE metric = "
						  "? AND samples = '[100,101,102]'",
						  p, 1, count_cb, &n),
				 0);
		assert_int_equal(n, 2);
	}
	rn_history_close(&h);
	/* Reopened read-only: the same rows. */
	assert_int_equal(rn_history_open(&h, path, false, 1000), 0);
	assert_int_equal(count(&h,
			       "SELECT count(*) FROM results WHERE samples = "
			       "'[1000000,2000000,3000000]'"),
			 2);
	rn_history_close(&h);
	rn_target_result_release(&r);
}

/* An explanation is kept with its run: the page shows it with that run only (not with a
 * later run that had none), and links its flame graph only while the file is the one the run
 * wrote. The trends mark the FAIL of every run. */
static void test_history_explanation_belongs_to_its_run(void **state)
{
	struct rn_history h;
	struct rn_target_result r;
	struct rn_target_report t;
	struct rn_verdict_result v[2];
	struct rn_history_run run = { 1700000000000000000ull, "abc", "main", "m1", "desc", "check",
				      "renacer.toml",         1,     NULL,   NULL, 0,      NULL };
	char path[128], svg[128], base[128], head[128], *real;
	struct rn_explanation e = { (char *)"golden:wall_time", (char *)"1. +9 ms on CPU in f\n",
				    svg, base, head };
	json_t *model, *list, *marks;
	const char *files[3] = { svg, base, head };
	int rc, i;
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/explain.db", dir);
	snprintf(svg, sizeof(svg), "%s/app.diff.svg", dir);
	snprintf(base, sizeof(base), "%s/app.base.folded", dir);
	snprintf(head, sizeof(head), "%s/app.head.folded", dir);
	for (i = 0; i < 3; i++) {
		f = fopen(files[i], "w");
		assert_non_null(f);
		fputs(i ? "main;f 10\n" : "<svg/>", f);
		fclose(f);
	}
	fake_target(&r, &t, v);
	assert_int_equal(rn_history_open(&h, path, true, 1000), 0);
	t.explain = &e;
	run.commit = "c1";
	assert_int_equal(rn_history_append(&h, &run, &t, 1), 1);
	t.explain = NULL;
	run.commit = "c2";
	assert_int_equal(rn_history_append(&h, &run, &t, 1), 2);
	assert_int_equal(count(&h,
			       "SELECT count(*) FROM explanations WHERE run_id = 1 AND "
			       "head_folded = 'main;f 10' || char(10) AND length(svg_hash) = 16"),
			 1);
	assert_int_equal(count(&h, "SELECT count(*) FROM explanations"), 1);

	model = rn_history_page_model(&h, NULL, NULL, 200, &rc);
	assert_int_equal(rc, 0);
	assert_non_null(model);
	/* the last check (run 2) had no explanation: none is shown with it */
	assert_int_equal(json_array_size(json_object_get(model, "explain")), 0);
	assert_null(json_object_get(json_object_get(model, "run_explain"), "2"));
	list = json_object_get(json_object_get(model, "run_explain"), "1");
	assert_int_equal(json_array_size(list), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(list, 0), "text")),
			    e.text);
	real = realpath(svg, NULL);
	assert_string_equal(json_string_value(json_object_get(json_array_get(list, 0), "svg")),
			    real);
	free(real);
	/* the FAIL of "other" (no chart of its metric) marked at both runs of every chart */
	marks = json_object_get(json_array_get(json_object_get(model, "charts"), 0), "marks");
	assert_int_equal(json_array_size(marks), 2);
	assert_string_equal(json_string_value(
				    json_object_get(json_array_get(marks, 0), "assertion")),
			    "other");
	json_decref(model);

	/* a later check rewrote the flame graph: not linked with run 1 */
	f = fopen(svg, "w");
	assert_non_null(f);
	fputs("<svg>another</svg>", f);
	fclose(f);
	model = rn_history_page_model(&h, NULL, NULL, 200, &rc);
	assert_non_null(model);
	list = json_object_get(json_object_get(model, "run_explain"), "1");
	assert_string_equal(json_string_value(json_object_get(json_array_get(list, 0), "svg")), "");
	json_decref(model);
	rn_history_close(&h);
	rn_target_result_release(&r);
}

static void test_history_migrates_an_older_schema(void **state)
{
	struct rn_history h;
	char path[128];

	(void)state;
	snprintf(path, sizeof(path), "%s/old.db", dir);
	/* A version-1 store as the first renacer with history wrote it, with one run. */
	assert_int_equal(rn_history_open(&h, path, true, 1000), 0);
	assert_int_equal(
		h.ops->exec(
			&h,
			"DROP TABLE explanations; DROP TABLE change_points; DROP TABLE syscalls; "
			"DROP TABLE critical_path; "
			"DROP TABLE verdicts; "
			"DROP TABLE results; DROP TABLE runs; "
			"CREATE TABLE runs (id INTEGER PRIMARY KEY, created_ns BIGINT NOT NULL, "
			"commit_sha TEXT NOT NULL, branch TEXT NOT NULL, machine TEXT NOT NULL, "
			"machine_desc TEXT NOT NULL, source TEXT NOT NULL, config TEXT NOT NULL, "
			"renacer_version TEXT NOT NULL, exit_code INTEGER NOT NULL);"
			"CREATE TABLE results (id INTEGER PRIMARY KEY, run_id BIGINT NOT NULL "
			"REFERENCES runs(id) ON DELETE CASCADE, target TEXT NOT NULL, metric TEXT "
			"NOT NULL, unit TEXT NOT NULL, nsamples INTEGER NOT NULL, median DOUBLE "
			"PRECISION NOT NULL, min_value DOUBLE PRECISION NOT NULL, max_value DOUBLE "
			"PRECISION NOT NULL, samples TEXT NOT NULL);"
			"CREATE INDEX results_series ON results (target, metric, run_id);"
			"CREATE TABLE verdicts (id INTEGER PRIMARY KEY, run_id BIGINT NOT NULL, "
			"target TEXT NOT NULL, assertion TEXT NOT NULL, type TEXT NOT NULL, "
			"verdict TEXT NOT NULL, observed DOUBLE PRECISION, budget DOUBLE "
			"PRECISION, golden DOUBLE PRECISION, unit TEXT, message TEXT);"
			"CREATE TABLE critical_path (id INTEGER PRIMARY KEY, run_id BIGINT NOT "
			"NULL, target TEXT NOT NULL, seq INTEGER NOT NULL, process TEXT NOT NULL, "
			"pid INTEGER NOT NULL, start_ns BIGINT NOT NULL, end_ns BIGINT NOT NULL);"
			"INSERT INTO runs VALUES (7, 1700000000000000000, 'abc', 'main', 'm1', "
			"'d', 'check', 'renacer.toml', '0.0.1', 0);"
			"UPDATE renacer_schema SET version = 1"),
		0);
	rn_history_close(&h);
	assert_int_equal(rn_history_open(&h, path, false, 1000), 0);
	assert_int_equal(count(&h, "SELECT version FROM renacer_schema"),
			 RN_HISTORY_SCHEMA_VERSION);
	assert_int_equal(count(&h,
			       "SELECT count(*) FROM sqlite_master WHERE name = "
			       "'runs_created'"),
			 1);
	assert_int_equal(count(&h,
			       "SELECT count(*) FROM sqlite_master WHERE name = "
			       "'results_series' AND sql LIKE '%median%'"),
			 1);
	/* Version 4: the old run got a uid from its facts; the new columns are NULL. */
	assert_int_equal(count(&h,
			       "SELECT count(*) FROM runs WHERE uid = "
			       "'local-m1-1700000000000000000-7' AND subject IS NULL AND rerun_of "
			       "IS NULL"),
			 1);
	assert_int_equal(count(&h, "SELECT count(*) FROM syscalls"), 0);
	rn_history_close(&h);
}

static void test_history_refuses_newer_and_corrupt(void **state)
{
	struct rn_history h;
	char path[128], msg[128];
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/new.db", dir);
	assert_int_equal(rn_history_open(&h, path, true, 1000), 0);
	assert_int_equal(h.ops->exec(&h, "UPDATE renacer_schema SET version = 42"), 0);
	rn_history_close(&h);
	assert_int_equal(rn_history_open(&h, path, true, 1000), -EPROTONOSUPPORT);
	snprintf(msg, sizeof(msg),
		 "schema version 42 is newer than this renacer supports (%d); upgrade renacer",
		 RN_HISTORY_SCHEMA_VERSION);
	assert_string_equal(h.err, msg);
	rn_history_close(&h);
	assert_int_equal(rn_history_open(&h, path, false, 1000), -EPROTONOSUPPORT);
	rn_history_close(&h);

	snprintf(path, sizeof(path), "%s/corrupt.db", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("this is not a database, but it is long enough to look like a header......\n", f);
	for (int i = 0; i < 200; i++)
		fputs("garbage garbage garbage garbage garbage garbage garbage garbage\n", f);
	fclose(f);
	assert_int_equal(rn_history_open(&h, path, true, 1000), -EIO);
	assert_non_null(strstr(h.err, "not a database"));
	assert_null(strchr(h.err, '\n'));
	rn_history_close(&h);

	snprintf(path, sizeof(path), "%s/missing.db", dir);
	assert_int_equal(rn_history_open(&h, path, false, 1000), -ENOENT);
	assert_int_equal(access(path, F_OK), -1);
	rn_history_close(&h);
}

static void test_history_settings_and_masking(void **state)
{
	struct rn_history_cfg hc;
	struct rn_config cfg;
	struct rn_history h;

	(void)state;
	memset(&cfg, 0, sizeof(cfg));
	cfg.dir = (char *)"/proj";
	cfg.history.busy_timeout_ms = -1;
	unsetenv("RENACER_HISTORY_URL");
	rn_history_cfg_resolve(&hc, &cfg, NULL, false);
	assert_false(hc.enabled);
	assert_string_equal(hc.url, "/proj/.renacer/history.db");
	assert_int_equal(hc.busy_timeout_ms, RN_HISTORY_BUSY_TIMEOUT_MS);
	rn_history_cfg_release(&hc);
	cfg.history.present = true;
	cfg.history.enabled = true;
	cfg.history.url = (char *)"/proj/h.db";
	cfg.history.busy_timeout_ms = 5;
	setenv("RENACER_HISTORY_URL", "postgresql://u:secret@db.example/h", 1);
	rn_history_cfg_resolve(&hc, &cfg, NULL, false);
	assert_true(hc.enabled);
	assert_string_equal(hc.url, "postgresql://u:secret@db.example/h");
	assert_int_equal(hc.busy_timeout_ms, 5);
	rn_history_cfg_release(&hc);
	rn_history_cfg_resolve(&hc, &cfg, "/cli.db", false);
	assert_string_equal(hc.url, "/cli.db");
	rn_history_cfg_release(&hc);
	/* enabled = false wins over the environment, not over --history. */
	cfg.history.enabled = false;
	rn_history_cfg_resolve(&hc, &cfg, NULL, false);
	assert_false(hc.enabled);
	rn_history_cfg_release(&hc);
	rn_history_cfg_resolve(&hc, &cfg, NULL, true);
	assert_true(hc.enabled);
	rn_history_cfg_release(&hc);
	unsetenv("RENACER_HISTORY_URL");
	assert_true(rn_history_is_postgres("postgres://x/y"));
	assert_false(rn_history_is_postgres("/tmp/postgresql://x"));
	/* A password never reaches a message. */
	assert_int_not_equal(rn_history_open(&h,
					     "postgresql://u:secret@127.0.0.1:1/h?"
					     "connect_timeout=1",
					     true, 1000),
			     0);
	assert_string_equal(h.location, "postgresql://u:***@127.0.0.1:1/h?connect_timeout=1");
	assert_null(strstr(h.err, "secret"));
	rn_history_close(&h);
}

/* Every credential form libpq takes is masked, and each secret is listed for scrubbing. */
static void test_history_redact_every_form(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "postgresql://u:pw1@h/db", "postgresql://u:***@h/db" },
		/* an unencoded '@' in the password: masked up to the last '@' before the path */
		{ "postgresql://u:p@ss@h:5432/db", "postgresql://u:***@h:5432/db" },
		{ "postgres://h/db?sslmode=disable&password=pw2",
		  "postgres://h/db?sslmode=disable&password=***" },
		{ "postgresql://h/db?sslpassword=pw3", "postgresql://h/db?sslpassword=***" },
		/* libpq percent-decodes keys */
		{ "postgresql://h/db?%70assword=pw4", "postgresql://h/db?%70assword=***" },
		{ "host=h password=pw5 dbname=x", "host=h password=*** dbname=x" },
		{ "host=h password = 'p w\\' 6' dbname=x", "host=h password = *** dbname=x" },
		{ "postgresql://u@h/db", "postgresql://u@h/db" },
		{ "/var/lib/renacer/history.db", "/var/lib/renacer/history.db" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char **secrets = NULL;
		char *r = rn_history_redact(cases[i].in, &secrets);

		assert_string_equal(r, cases[i].out);
		free(r);
		rn_history_secrets_free(secrets);
	}
	{
		char **secrets = NULL;
		char *r = rn_history_redact("postgresql://u:hunter@2sec@h/db", &secrets);
		bool tail = false;

		for (i = 0; secrets && secrets[i]; i++)
			tail |= !strcmp(secrets[i], "2sec");
		assert_true(tail); /* libpq quotes "2sec@h" as the host: scrubbed from messages */
		free(r);
		rn_history_secrets_free(secrets);
	}
	assert_true(rn_history_is_postgres("host=db dbname=x"));
	assert_false(rn_history_is_postgres("hostile.db"));
}

static int two_strings(void *ctx, size_t ncols, const char *const *v)
{
	char(*got)[512] = ctx;

	if (ncols >= 2) {
		snprintf(got[0], 512, "%s", v[0] ? v[0] : "");
		snprintf(got[1], 512, "%s", v[1] ? v[1] : "");
	}
	return 0;
}

/* Names longer than 255 bytes are cut between characters; invalid bytes become U+FFFD. */
static void test_history_names_are_utf8(void **state)
{
	struct rn_history h;
	struct rn_history_run run;
	char path[4200], branch[401], got[2][512];
	struct rn_target_result r;
	struct rn_target_report tr;
	int64_t id;
	size_t i;

	(void)state;
	for (i = 0; i < 200; i++)
		memcpy(branch + 2 * i, "\xc3\xa9", 2); /* U+00E9, 400 bytes */
	branch[400] = '\0';
	snprintf(path, sizeof(path), "%s/utf8.db", dir);
	assert_int_equal(rn_history_open(&h, path, true, 1000), 0);
	memset(&run, 0, sizeof(run));
	run.created_ns = 1;
	run.commit = "feat\xff";
	run.branch = branch;
	run.machine = "m";
	run.machine_desc = "d";
	run.source = "check";
	run.config = "c\xc0";
	rn_target_result_init(&r, "t");
	memset(&tr, 0, sizeof(tr));
	tr.result = &r;
	id = rn_history_append(&h, &run, &tr, 1);
	assert_true(id > 0);
	memset(got, 0, sizeof(got));
	assert_int_equal(rn_history_query(&h, "SELECT commit_sha, branch FROM runs", NULL, 0,
					  two_strings, got),
			 0);
	assert_string_equal(got[0], "feat\xef\xbf\xbd");
	assert_int_equal(strlen(got[1]), 254); /* 127 whole characters */
	assert_true(rn_utf8_valid(got[1]));
	rn_target_result_release(&r);
	rn_history_close(&h);
}

/* A renacer-history/1 document of one run with one result, with `patch` (JSON) merged into the
 * run and `row` (JSON) into its result. */
static json_t *import_doc(const char *patch, const char *row)
{
	json_t *doc = json_loads(
		"{\"format\": \"renacer-history/1\", \"runs\": [{\"uid\": \"u-1\", "
		"\"created_ns\": 1, \"commit\": \"abc\", \"branch\": \"main\", \"machine\": "
		"\"m\", \"machine_desc\": \"d\", \"source\": \"check\", \"config\": \"c\", "
		"\"renacer_version\": \"1\", \"exit_code\": 0, \"results\": [{\"target\": "
		"\"t\", \"metric\": \"wall_time\", \"unit\": \"ns\", \"nsamples\": 1, "
		"\"median\": 1, \"min\": 1, \"max\": 1, \"samples\": [1]}]}]}",
		0, NULL);
	json_t *run = json_array_get(json_object_get(doc, "runs"), 0);
	json_t *p;

	assert_non_null(doc);
	if (patch) {
		p = json_loads(patch, JSON_ALLOW_NUL, NULL);
		assert_non_null(p);
		assert_int_equal(json_object_update(run, p), 0);
		json_decref(p);
	}
	if (row) {
		p = json_loads(row, 0, NULL);
		assert_non_null(p);
		assert_int_equal(
			json_object_update(json_array_get(json_object_get(run, "results"), 0), p),
			0);
		json_decref(p);
	}
	return doc;
}

/* history import of a renacer-history/1 file applies check's input rules: a value that breaks
 * one is -EINVAL (an input error naming the place), and nothing is written; a value the store
 * would refuse (null where it holds NOT NULL) is the same input error, not a database error. */
static void test_history_import_applies_input_rules(void **state)
{
	static const struct {
		const char *patch, *row;
	} bad[] = {
		{ NULL, "{\"target\": \"a\\nb\"}" },       /* check's target name rule */
		{ NULL, "{\"target\": \"\"}" },            /* an empty target name */
		{ "{\"commit\": null}", NULL },            /* NOT NULL in the store */
		{ "{\"created_ns\": \"1\"}", NULL },       /* the wrong kind */
		{ "{\"branch\": \"b\\u0000x\"}", NULL },   /* a NUL inside */
		{ NULL, "{\"median\": null}" },            /* NOT NULL in the store */
		{ NULL, "{\"metric\": \"wall\\ntime\"}" }, /* a word of renacer's, one line */
		{ "{\"results\": [1]}", NULL },            /* a row that is no object */
		{ "{\"verdicts\": {}}", NULL },            /* rows that are no array */
		{ "{\"uid\": \"\"}", NULL },               /* an empty uid */
	};
	char path[4200], *commit;
	struct rn_history h;
	size_t added, skipped, i;
	json_t *doc;

	(void)state;
	snprintf(path, sizeof(path), "%s/import.db", dir);
	assert_int_equal(rn_history_open(&h, path, true, 1000), 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		doc = import_doc(bad[i].patch, bad[i].row);
		assert_int_equal(rn_history_import_doc(&h, "f.json", doc, &added, &skipped),
				 -EINVAL);
		assert_int_equal(added, 0);
		json_decref(doc);
	}
	/* a 100k-character commit: check keeps at most 255 bytes */
	commit = malloc(100001);
	assert_non_null(commit);
	memset(commit, 'a', 100000);
	commit[100000] = '\0';
	doc = import_doc(NULL, NULL);
	json_object_set_new(json_array_get(json_object_get(doc, "runs"), 0), "commit",
			    json_string(commit));
	assert_int_equal(rn_history_import_doc(&h, "f.json", doc, &added, &skipped), -EINVAL);
	json_decref(doc);
	free(commit);
	assert_int_equal(count(&h, "SELECT count(*) FROM runs"), 0);
	/* the same document within the rules is imported */
	doc = import_doc(NULL, NULL);
	assert_int_equal(rn_history_import_doc(&h, "f.json", doc, &added, &skipped), 0);
	assert_int_equal(added, 1);
	json_decref(doc);
	assert_int_equal(count(&h, "SELECT count(*) FROM results"), 1);
	rn_history_close(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_history_append_and_read_back),
		cmocka_unit_test(test_history_explanation_belongs_to_its_run),
		cmocka_unit_test(test_history_migrates_an_older_schema),
		cmocka_unit_test(test_history_refuses_newer_and_corrupt),
		cmocka_unit_test(test_history_settings_and_masking),
		cmocka_unit_test(test_history_redact_every_form),
		cmocka_unit_test(test_history_names_are_utf8),
		cmocka_unit_test(test_history_import_applies_input_rules),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
