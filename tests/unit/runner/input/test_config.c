/*
 * test_config - renacer.toml schema: every diagnostic path with its exact message
 * (config/errors.test beside this file), the defaults, the example config, and ignored tables.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "buf.h"
#include "config.h"
#include "xalloc.h"

/* The data of these tests: config/ beside this file. */
#define DATA RN_SOURCE_DIR "/tests/unit/runner/input/config/"

static int parse(struct rn_config *cfg, const char *text, struct rn_diag *d)
{
	return rn_config_parse(cfg, "renacer.toml", text, strlen(text), true, d);
}

/* `expected` with @ASSERTION_TYPES@ replaced by the table's type names, quoted and
 * comma-separated as the parser's choice error lists them (RN_ASSERTION_TYPES); owned. */
static char *expand_expected(const char *expected)
{
	static const char mark[] = "@ASSERTION_TYPES@";
	const char *at = strstr(expected, mark);
	struct rn_buf b;
	int t;

	rn_buf_init(&b, 0);
	if (!at) {
		rn_buf_adds(&b, expected);
		return rn_buf_detach(&b, NULL);
	}
	rn_buf_add(&b, expected, (size_t)(at - expected));
	for (t = 0; t < RN_ASSERT_COUNT; t++)
		rn_buf_addf(&b, "%s\"%s\"", t ? ", " : "", rn_assertion_types[t].name);
	rn_buf_adds(&b, at + strlen(mark));
	return rn_buf_detach(&b, NULL);
}

/* Run every case of errors.test; each must fail with exactly its expected first line. */
static void test_config_error_cases(void **state)
{
	struct rn_buf file, snippet;
	char *p, *line;
	char name[256] = "";
	int cases = 0, failures = 0;

	(void)state;
	rn_buf_init(&file, 0);
	rn_buf_init(&snippet, 0);
	assert_int_equal(rn_buf_read_file(&file, DATA "errors.test"), 0);
	for (p = file.buf; p && *p;) {
		char *nl = strchr(p, '\n');

		line = p;
		if (nl)
			*nl = '\0';
		p = nl ? nl + 1 : NULL;
		if (!strncmp(line, "### ", 4)) {
			snprintf(name, sizeof(name), "%s", line + 4);
			rn_buf_reset(&snippet);
		} else if (!strncmp(line, "--- ", 4)) {
			struct rn_config cfg;
			struct rn_diag d;
			char *got, *want;

			cases++;
			if (!parse(&cfg, snippet.buf, &d)) {
				fprintf(stderr, "case '%s': parsed, expected an error\n", name);
				failures++;
				rn_config_release(&cfg);
				continue;
			}
			got = rn_diag_oneline(&d);
			want = expand_expected(line + 4);
			if (strcmp(got, want)) {
				fprintf(stderr, "case '%s':\n  expected: %s\n  got:      %s\n",
					name, want, got);
				failures++;
			}
			free(want);
			free(got);
			rn_config_release(&cfg);
			name[0] = '\0';
		} else if (name[0]) {
			rn_buf_addf(&snippet, "%s\n", line);
		}
	}
	rn_buf_release(&file);
	rn_buf_release(&snippet);
	assert_true(cases >= 20);
	assert_int_equal(failures, 0);
}

static void test_config_defaults(void **state)
{
	struct rn_config cfg;
	struct rn_diag d;
	const struct rn_target_cfg *t;
	const struct rn_assertion_spec *a;

	(void)state;
	assert_int_equal(parse(&cfg,
			       "[[target]]\nname = \"t\"\ncommand = [\"true\"]\n"
			       "[[assertion]]\nname = \"c\"\ntype = \"critical_path\"\n"
			       "max_duration_ms = 1.5\n",
			       &d),
			 0);
	assert_int_equal(cfg.ntargets, 1);
	t = &cfg.targets[0];
	assert_string_equal(t->argv[0], "true");
	assert_null(t->argv[1]);
	assert_int_equal(t->runs, 1);
	assert_int_equal(t->warmup, 0);
	assert_true(t->timeout_ns == 300ull * 1000000000ull);
	assert_int_equal(t->collectors, RN_COLLECT_PTRACE);
	assert_int_equal(t->out, RN_STDIO_NULL);
	assert_int_equal(cfg.nassertions, 1);
	a = &cfg.assertions[0];
	assert_true(a->enabled);
	assert_true(a->fail_on_violation);
	assert_int_equal(a->aggregate, RN_AGG_MEDIAN);
	assert_true(a->max_duration_ns == 1500000);
	assert_int_equal(a->line, 4);
	assert_true(cfg.regression.enabled);
	rn_config_release(&cfg);
}

/* A target's time_budget_s overrides [regression]'s for its adaptive repeats; without it the
 * target takes [regression]'s; 0 is no limit. */
static void test_config_target_time_budget(void **state)
{
	struct rn_config cfg;
	struct rn_diag d;

	(void)state;
	assert_int_equal(parse(&cfg,
			       "[[target]]\nname = \"a\"\ncommand = [\"true\"]\n"
			       "time_budget_s = 120\n"
			       "[[target]]\nname = \"b\"\ncommand = [\"true\"]\n"
			       "[[target]]\nname = \"c\"\ncommand = [\"true\"]\n"
			       "time_budget_s = 0\n"
			       "[regression]\ntime_budget_s = 30\n",
			       &d),
			 0);
	assert_int_equal(cfg.ntargets, 3);
	assert_true(rn_target_time_budget_ns(&cfg, &cfg.targets[0]) == 120000000000ull);
	assert_true(rn_target_time_budget_ns(&cfg, &cfg.targets[1]) == 30000000000ull);
	assert_true(rn_target_time_budget_ns(&cfg, &cfg.targets[2]) == 0);
	rn_config_release(&cfg);
	/* without [regression]: its default */
	assert_int_equal(parse(&cfg, "[[target]]\nname = \"b\"\ncommand = [\"true\"]\n", &d), 0);
	assert_true(rn_target_time_budget_ns(&cfg, &cfg.targets[0]) ==
		    (uint64_t)RN_REGRESSION_TIME_BUDGET_S * 1000000000ull);
	rn_config_release(&cfg);
}

static void test_config_shell_and_env(void **state)
{
	struct rn_config cfg;
	struct rn_diag d;

	(void)state;
	assert_int_equal(parse(&cfg,
			       "[[target]]\nname = \"t\"\ncommand = [\"echo\", \"$HOME\"]\n"
			       "shell = true\nenv = { A = \"1\", B = \"x=y\" }\n",
			       &d),
			 0);
	assert_string_equal(cfg.targets[0].argv[0], "/bin/sh");
	assert_string_equal(cfg.targets[0].argv[1], "-c");
	assert_string_equal(cfg.targets[0].argv[2], "echo $HOME");
	assert_string_equal(cfg.targets[0].env[0], "A=1");
	assert_string_equal(cfg.targets[0].env[1], "B=x=y");
	/* fixed_hash_seed (default true) adds the seeds env does not set */
	assert_string_equal(cfg.targets[0].env[2], "PYTHONHASHSEED=0");
	assert_string_equal(cfg.targets[0].env[3], "PERL_HASH_SEED=0");
	assert_string_equal(cfg.targets[0].env[4], "PERL_PERTURB_KEYS=0");
	assert_null(cfg.targets[0].env[5]);
	rn_config_release(&cfg);
	/* one set by env stays as set; fixed_hash_seed = false adds none */
	assert_int_equal(parse(&cfg,
			       "[[target]]\nname = \"t\"\ncommand = [\"true\"]\n"
			       "env = { PYTHONHASHSEED = \"random\" }\n",
			       &d),
			 0);
	assert_string_equal(cfg.targets[0].env[0], "PYTHONHASHSEED=random");
	assert_string_equal(cfg.targets[0].env[1], "PERL_HASH_SEED=0");
	rn_config_release(&cfg);
	assert_int_equal(parse(&cfg,
			       "[[target]]\nname = \"t\"\ncommand = [\"true\"]\n"
			       "fixed_hash_seed = false\n",
			       &d),
			 0);
	assert_true(!cfg.targets[0].env || !cfg.targets[0].env[0]);
	rn_config_release(&cfg);
}

/* Tables written for other renacer versions are ignored (and named), not errors; tables of
 * the original format are accepted with notes. */
static void test_config_ignored_tables(void **state)
{
	struct rn_config cfg;
	struct rn_diag d;

	(void)state;
	assert_int_equal(parse(&cfg,
			       "[ci]\nfail_fast = true\n[lamport_clock]\n"
			       "x = 1\n[telemetry]\nflamegraphs = true\n[[assertion]]\n"
			       "name = \"m\"\ntype = \"memory_usage\"\nmax_bytes = 5\n"
			       "tracking_mode = \"rss\"\n",
			       &d),
			 0);
	assert_non_null(cfg.ignored_tables);
	assert_string_equal(cfg.ignored_tables[0], "telemetry");
	assert_null(cfg.ignored_tables[1]);
	assert_non_null(cfg.notes);
	assert_non_null(strstr(cfg.notes[0], "renacer.toml:2:1: [ci] fail_fast: "));
	/* a key the original format does not have either: noted, not an error */
	assert_non_null(strstr(cfg.notes[1], "renacer.toml:4:1: [lamport_clock] x: not a key"));
	assert_null(cfg.notes[2]);
	assert_int_equal(cfg.ntargets, 0);
	rn_config_release(&cfg);
}

/* A config with only keys of the original renacer format loads: span_count without a
 * pattern counts every span, custom assertions are left out with a note, compare_with_baseline
 * = false turns off golden comparison, memory_usage without tracking_mode is noted. */
static void test_config_original_format(void **state)
{
	struct rn_config cfg;
	struct rn_diag d;
	size_t i;
	bool custom_note = false, mode_note = false, ci_note = false;

	(void)state;
	if (rn_config_load(&cfg, DATA "original.toml", true, &d)) {
		rn_diag_print(&d, false);
		fail();
	}
	/* the custom one is left out; [semantic_equivalence] baseline_dir adds the implicit
	 * "semantic_equivalence" assertion */
	assert_int_equal(cfg.nassertions, 7);
	assert_string_equal(cfg.assertions[6].name, "semantic_equivalence");
	assert_string_equal(cfg.assertions[1].name, "syscall_budget");
	assert_string_equal(cfg.assertions[1].span_name_pattern, ".*");
	assert_non_null(cfg.assertions[1].span_re);
	assert_true(cfg.regression.enabled); /* compare_with_baseline = true */
	assert_null(cfg.ignored_tables);
	for (i = 0; cfg.notes && cfg.notes[i]; i++) {
		if (strstr(cfg.notes[i], "'custom_validation' of type custom"))
			custom_note = true;
		if (strstr(cfg.notes[i], "'mem_default_mode' has no tracking_mode"))
			mode_note = true;
		/* the note says what the value given does (it once read "applied: false turns
		 * off ..." for true) */
		if (strstr(cfg.notes[i],
			   "[ci] compare_with_baseline: true: golden traces are "
			   "compared (the default)"))
			ci_note = true;
		assert_null(strstr(cfg.notes[i], "compare_with_baseline: false"));
	}
	assert_true(custom_note);
	assert_true(mode_note);
	assert_true(ci_note);
	rn_config_release(&cfg);
	assert_int_equal(parse(&cfg, "[ci]\ncompare_with_baseline = false\n", &d), 0);
	assert_false(cfg.regression.enabled);
	assert_non_null(cfg.notes);
	assert_non_null(strstr(cfg.notes[0],
			       "compare_with_baseline: false: golden traces are "
			       "not compared"));
	rn_config_release(&cfg);
}

/* The shipped example documents every key and must load. */
static void test_config_example_parses(void **state)
{
	struct rn_config cfg;
	struct rn_diag d;

	(void)state;
	if (rn_config_load(&cfg, RN_SOURCE_DIR "/renacer.toml.example", true, &d)) {
		rn_diag_print(&d, false);
		fail();
	}
	assert_int_equal(cfg.ntargets, 2);
	assert_true(cfg.nassertions >= 6);
	assert_false(cfg.assertions[cfg.nassertions - 1].enabled);
	assert_non_null(cfg.junit);
	rn_config_release(&cfg);
}

/* Every documented key appears in the example (the key tables and the file cannot drift). */
static void test_config_example_documents_every_key(void **state)
{
	static const char *const keys[] = {
#define K(key, type, doc) #key,
		RN_TARGET_KEYS(K) RN_ASSERTION_KEYS(K) RN_GOLDEN_KEYS(K) RN_REPORT_KEYS(K)
			RN_OTLP_KEYS(K) RN_REGRESSION_KEYS(K) RN_PROFILE_KEYS(K) RN_RATCHET_KEYS(K)
#undef K
				NULL
	};
	struct rn_buf b;
	size_t i;

	(void)state;
	rn_buf_init(&b, 0);
	assert_int_equal(rn_buf_read_file(&b, RN_SOURCE_DIR "/renacer.toml.example"), 0);
	for (i = 0; keys[i]; i++) {
		char pat[64];

		snprintf(pat, sizeof(pat), "%s = ", keys[i]);
		if (!strstr(b.buf, pat)) {
			fprintf(stderr, "key '%s' is not documented in renacer.toml.example\n",
				keys[i]);
			fail();
		}
	}
	rn_buf_release(&b);
}

/* A missing file is a clear error without a location. */
static void test_config_missing_file(void **state)
{
	struct rn_config cfg;
	struct rn_diag d;
	char *line;

	(void)state;
	assert_int_equal(rn_config_load(&cfg, "/nonexistent/renacer.toml", true, &d), -ENOENT);
	line = rn_diag_oneline(&d);
	assert_string_equal(line,
			    "/nonexistent/renacer.toml: error: cannot read config: No such "
			    "file or directory");
	free(line);
	rn_config_release(&cfg);
}

/* The caret line points at the column of the error. */
static void test_config_caret(void **state)
{
	struct rn_config cfg;
	struct rn_diag d;
	char *text;

	(void)state;
	assert_int_equal(parse(&cfg, "[[target]]\nname = \"t\"\ncommand = [\"true\"]\nruns = 0\n",
			       &d),
			 -EINVAL);
	text = rn_diag_format(&d, false);
	assert_non_null(strstr(text, "    4 | runs = 0\n      |        ^\n"));
	free(text);
	rn_config_release(&cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_error_cases),
		cmocka_unit_test(test_config_defaults),
		cmocka_unit_test(test_config_target_time_budget),
		cmocka_unit_test(test_config_shell_and_env),
		cmocka_unit_test(test_config_ignored_tables),
		cmocka_unit_test(test_config_original_format),
		cmocka_unit_test(test_config_example_parses),
		cmocka_unit_test(test_config_example_documents_every_key),
		cmocka_unit_test(test_config_missing_file),
		cmocka_unit_test(test_config_caret),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
