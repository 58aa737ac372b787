/*
 * test_reporter.c - the reporter table (runner/check/reporter.h): the order every output is written
 * in, how a failing output changes the exit code (only while it is still OK; later reporters
 * see the raised code), and the golden-files reporter.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "config.h"
#include "exitcode.h"
#include "otlp.h"
#include "reporter.h"
#include "runner/check/internal.h"

static void test_reporter_order(void **state)
{
	static const char *const order[] = { "golden",      "junit",      "timeline", "otlp-file",
					     "otlp-export", "bench-json", "results",  "github",
					     "baseline",    "console",    "history",  NULL };
	size_t i;

	(void)state;
	for (i = 0; order[i]; i++) {
		assert_non_null(rn_reporters[i]);
		assert_string_equal(rn_reporters[i]->name, order[i]);
		assert_non_null(rn_reporters[i]->write);
	}
	assert_null(rn_reporters[i]);
}

/* One target that passed. */
static void one_target(struct rn_target_result *r, struct rn_target_report *tv,
		       struct rn_outcome *oc)
{
	struct rn_verdict_result *v;

	rn_target_result_init(r, "t1");
	memset(tv, 0, sizeof(*tv));
	tv->result = r;
	v = rn_target_report_push(tv);
	v->assertion = strdup("a1");
	v->type = strdup("span_count");
	v->target = strdup("t1");
	v->verdict = RN_VERDICT_PASS;
	v->message = strdup("3 spans <= 10");
	memset(oc, 0, sizeof(*oc));
	oc->targets = r;
	oc->reports = tv;
	oc->ntargets = 1;
}

static void test_reporter_failed_output_sets_exit_code(void **state)
{
	struct rn_target_result r;
	struct rn_target_report tv;
	struct rn_outcome oc;
	struct rn_report_outputs out;
	char dir[] = "/tmp/rn_reporter_XXXXXX";
	char path[256];

	(void)state;
	assert_non_null(mkdtemp(dir));
	one_target(&r, &tv, &oc);
	memset(&out, 0, sizeof(out));
	out.quiet = true;
	/* written: the exit code stays OK */
	snprintf(path, sizeof(path), "%s/junit.xml", dir);
	out.junit = path;
	assert_int_equal(rn_report_all(&out, &oc), RN_EXIT_OK);
	assert_int_equal(access(path, F_OK), 0);
	unlink(path);
	/* a directory that does not exist: RN_EXIT_OUTPUT */
	snprintf(path, sizeof(path), "%s/missing/junit.xml", dir);
	oc.exit_code = RN_EXIT_OK;
	assert_int_equal(rn_report_all(&out, &oc), RN_EXIT_OUTPUT);
	assert_int_equal(oc.exit_code, RN_EXIT_OUTPUT);
	/* a failed check keeps its own code */
	oc.exit_code = RN_EXIT_FAIL;
	assert_int_equal(rn_report_all(&out, &oc), RN_EXIT_FAIL);
	/* the first failure wins: benchmark JSON fails too, the code stays the JUnit's */
	oc.exit_code = RN_EXIT_OK;
	out.bench_json = path;
	assert_int_equal(rn_report_all(&out, &oc), RN_EXIT_OUTPUT);
	rmdir(dir);
	rn_target_report_release(&tv);
	rn_target_result_release(&r);
}

static void test_reporter_golden_files(void **state)
{
	static const char *const cmd[] = { "/tmp/cfgdir/app", "--token=abc", NULL };
	const char *const *argv[] = { cmd };
	struct rn_target_result r;
	struct rn_target_report tv;
	struct rn_outcome oc;
	struct rn_report_outputs out;
	struct rn_config cfg;
	char **rel;

	(void)state;
	memset(&cfg, 0, sizeof(cfg));
	cfg.dir = (char *)"/tmp/cfgdir";
	cfg.path = (char *)"/tmp/cfgdir/renacer.toml";
	one_target(&r, &tv, &oc);
	oc.cfg = &cfg;
	oc.argv = argv;
	memset(&out, 0, sizeof(out));
	out.quiet = true;
	/* not golden update: nothing to write */
	assert_int_equal(rn_golden_reporter.write(&out, &oc), 0);
	/* a golden trace that cannot be written (a target without measured runs, into a
	 * directory that does not exist): its diagnostic, RN_EXIT_OUTPUT */
	out.golden_dir = "/nonexistent/renacer-golden";
	assert_int_equal(rn_golden_reporter.write(&out, &oc), RN_EXIT_OUTPUT);
	/* committed argv: relative to the config's directory, secrets redacted */
	rel = rn_report_golden_argv(&cfg, (char *const *)cmd);
	assert_string_equal(rel[0], "app");
	assert_null(strstr(rel[1], "abc"));
	assert_null(rel[2]);
	rn_otlp_argv_free(rel);
	/* a harness's results folder, new in every check, is masked */
	{
		char word[] = "--benchmark-json=/tmp/renacer-bench-a1B2c3/0.json";

		rn_report_mask_bench_dir(word);
		assert_string_equal(word, "--benchmark-json=/tmp/renacer-bench-XXXXXX/0.json");
	}
	rn_target_report_release(&tv);
	rn_target_result_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reporter_order),
		cmocka_unit_test(test_reporter_failed_output_sets_exit_code),
		cmocka_unit_test(test_reporter_golden_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
