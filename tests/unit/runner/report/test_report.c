/*
 * test_report.c - the console table: each column means one thing on every row kind (a
 * baseline row's reference goes under BASE, a golden row's under GOLDEN, both under LIMIT
 * their limit), the header-line hook, and every line within COLUMNS.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "buf.h"
#include "console.h"
#include "runner/report/internal.h"
#include "verdict.h"
#include "xalloc.h"

/* rn_report_console's stderr, as a string the caller frees. */
static char *console_v(const struct rn_target_report *t, size_t n, bool wide, bool verbose)
{
	char path[] = "/tmp/rn-test-report-XXXXXX";
	int fd = mkstemp(path), saved = dup(2);
	struct rn_outcome oc;
	struct rn_buf b;

	assert_true(fd >= 0 && saved >= 0);
	assert_int_equal(dup2(fd, 2), 2);
	memset(&oc, 0, sizeof(oc));
	oc.reports = (struct rn_target_report *)t;
	oc.ntargets = n;
	oc.exit_code = 1;
	rn_report_console(false, wide, verbose, &oc);
	assert_int_equal(dup2(saved, 2), 2);
	close(saved);
	close(fd);
	rn_buf_init(&b, 0);
	assert_int_equal(rn_buf_read_file(&b, path), 0);
	unlink(path);
	return rn_buf_detach(&b, NULL);
}

/* The cell of column `col` on the first line containing `row`: MEASURED and the columns
 * after it are right-aligned, so a cell spans from the end of the previous header to the end
 * of its own. */
static char *cell(const char *text, const char *row, const char *col)
{
	const char *hdr = strstr(text, "TARGET"), *line = strstr(text, row), *c;
	size_t start, end;

	assert_non_null(hdr);
	assert_non_null(line);
	while (line > text && line[-1] != '\n')
		line--;
	c = strstr(hdr, col);
	assert_non_null(c);
	end = (size_t)(c - hdr) + strlen(col);
	start = (size_t)(c - hdr);
	while (start > 0 && hdr[start - 1] == ' ')
		start--;
	while (start < end && line[start] == ' ')
		start++;
	return rn_xstrndup(line + start, end - start);
}

static char *console(const struct rn_target_report *t, size_t n, bool wide)
{
	return console_v(t, n, wide, false);
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	while ((hay = strstr(hay, needle))) {
		n++;
		hay += strlen(needle);
	}
	return n;
}

static void fill(struct rn_verdict_result *v, const char *name, const char *type, double obs,
		 double limit, double ref)
{
	memset(v, 0, sizeof(*v));
	v->assertion = (char *)name;
	v->type = (char *)type;
	v->verdict = RN_VERDICT_FAIL;
	v->unit = "calls";
	v->has_observed = v->has_budget = v->has_golden = true;
	v->observed = obs;
	v->budget = limit;
	v->golden = ref;
	v->delta_pct = (obs - ref) / ref * 100.0;
	v->message = (char *)"a message";
}

static void test_report_columns_mean_one_thing(void **state)
{
	struct rn_target_result r;
	struct rn_verdict_result v[2];
	struct rn_target_report t;
	char *out, *c;

	(void)state;
	setenv("COLUMNS", "120", 1);
	memset(&r, 0, sizeof(r));
	r.name = (char *)"app";
	fill(&v[0], "golden:syscalls", "regression", 140, 154, 130);
	fill(&v[1], "baseline:syscalls", "baseline", 141, 131, 131);
	memset(&t, 0, sizeof(t));
	t.result = &r;
	t.verdicts = v;
	t.nverdicts = 2;
	rn_report_console_header("timing gated at >= 5%");
	out = console(&t, 1, true);
	/* The header line comes first, above the table. */
	assert_non_null(strstr(out, "timing gated at >= 5%"));
	assert_true(strstr(out, "timing gated") < strstr(out, "TARGET"));
	c = cell(out, "golden:syscalls", "GOLDEN");
	assert_string_equal(c, "130 calls");
	free(c);
	c = cell(out, "golden:syscalls", "BASE");
	assert_string_equal(c, "-");
	free(c);
	c = cell(out, "baseline:syscalls", "BASE");
	assert_string_equal(c, "131 calls");
	free(c);
	c = cell(out, "baseline:syscalls", "GOLDEN");
	assert_string_equal(c, "-");
	free(c);
	c = cell(out, "baseline:syscalls", "LIMIT");
	assert_string_equal(c, "131 calls");
	free(c);
	free(out);
	/* The header line is printed once. */
	out = console(&t, 1, false);
	assert_null(strstr(out, "timing gated"));
	/* The default table has no GOLDEN or BASE column, and fits COLUMNS. */
	assert_null(strstr(out, "GOLDEN"));
	{
		const char *p = out;

		while (*p) {
			size_t len = strcspn(p, "\n");

			assert_true(len <= 120);
			p += len + (p[len] ? 1 : 0);
		}
	}
	free(out);
	unsetenv("COLUMNS");
}

/* Values in human units; WARN rows with one cause said once above the table, their
 * statistics only with --verbose; a FAIL row's statistics always. */
static void test_report_units_and_shared_warnings(void **state)
{
	struct rn_target_result r;
	struct rn_verdict_result v[5];
	struct rn_target_report t;
	char *out, *c;
	int i;

	(void)state;
	setenv("COLUMNS", "100", 1);
	memset(&r, 0, sizeof(r));
	r.name = (char *)"app";
	fill(&v[0], "golden:processes", "regression", 1, 2, 1);
	v[0].unit = "processes";
	v[0].verdict = RN_VERDICT_PASS;
	fill(&v[1], "rss", "memory_usage", 27443200.0, 268435456.0, 1);
	v[1].unit = "bytes";
	v[1].has_golden = false;
	v[1].verdict = RN_VERDICT_PASS;
	for (i = 2; i < 4; i++) {
		fill(&v[i], i == 2 ? "golden:cpu_time" : "golden:wall_time", "regression", 62.6,
		     111, 55.5);
		v[i].unit = "ms";
		v[i].verdict = RN_VERDICT_WARN;
		v[i].reason = (char *)"advisory: conditions differ";
		v[i].message =
			(char *)"x vs golden y: advisory (WARN), not a gate: CI [-5%, +20%], "
				"but recorded on another machine (kernel a, here b); only a "
				"shift beyond the drift limit fails here";
		v[i].detail = (char *)"STATISTICS BLOCK";
	}
	fill(&v[4], "golden:syscalls", "regression", 140, 154, 130);
	v[4].detail = (char *)"FAIL STATISTICS";
	memset(&t, 0, sizeof(t));
	t.result = &r;
	t.verdicts = v;
	t.nverdicts = 5;
	out = console(&t, 1, false);
	c = cell(out, "golden:processes", "MEASURED");
	assert_string_equal(c, "1 process");
	free(c);
	c = cell(out, "golden:processes", "LIMIT");
	assert_string_equal(c, "2 processes");
	free(c);
	c = cell(out, "rss", "MEASURED");
	assert_string_equal(c, "26.2 MiB");
	free(c);
	c = cell(out, "golden:cpu_time", "MEASURED");
	assert_string_equal(c, "62.6 ms");
	free(c);
	/* one note for both warnings, above the table; no block of theirs below it */
	assert_int_equal(count(out, "recorded on another machine (kernel a, here b)"), 1);
	assert_non_null(strstr(out, "note: 2 rows are WARN for one cause: recorded on another "));
	assert_true(strstr(out, "note: 2 rows") < strstr(out, "TARGET"));
	assert_null(strstr(out, "STATISTICS BLOCK"));
	assert_null(strstr(out, "WARN app/golden:cpu_time"));
	assert_non_null(strstr(out, "FAIL STATISTICS"));
	assert_non_null(strstr(out, "result: 1 failed, 2 warnings, 2 passed; exit 1"));
	free(out);
	/* --verbose: every non-passing row's message and statistics, no shared note */
	out = console_v(&t, 1, false, true);
	assert_int_equal(count(out, "STATISTICS BLOCK"), 2);
	assert_non_null(strstr(out, "WARN app/golden:cpu_time"));
	assert_null(strstr(out, "note: 2 rows"));
	free(out);
	/* rows sharing a reason whose messages name no circumstance (no ", but "): the note is
	 * the reason alone (it once escaped a NULL circumstance and crashed) */
	for (i = 2; i < 4; i++) {
		v[i].reason = (char *)"inconclusive: CI straddles the limit";
		v[i].message = (char *)"x vs golden y: INCONCLUSIVE (WARN)";
	}
	out = console(&t, 1, false);
	assert_non_null(
		strstr(out, "note: 2 rows are WARN for one cause: inconclusive: CI straddles"));
	free(out);
	unsetenv("COLUMNS");
}

/* Every line of `out` within `width` columns (bytes: the cells here are ASCII). */
static void assert_lines_within(const char *out, size_t width)
{
	while (*out) {
		size_t len = strcspn(out, "\n");

		assert_true(len <= width);
		out += len + (out[len] ? 1 : 0);
	}
}

/* The ASSERTION cell on the first line containing `row` (left-aligned: from under its header
 * to the next blank). */
static char *name_cell(const char *text, const char *row)
{
	const char *hdr = strstr(text, "TARGET"), *line = strstr(text, row), *c;

	assert_non_null(hdr);
	assert_non_null(line);
	while (line > text && line[-1] != '\n')
		line--;
	c = strstr(hdr, "ASSERTION");
	assert_non_null(c);
	line += c - hdr;
	return rn_xstrndup(line, strcspn(line, " \n"));
}

/* ASSERTION fits the longest name: wide MEASURED and LIMIT cells move REASON to a line of its
 * own before a name is cut (`baseline:instructions` was cut to `baseline:...`); a name that
 * must still be cut keeps both ends. */
static void test_report_assertion_names_whole(void **state)
{
	struct rn_target_result r;
	struct rn_verdict_result v[2];
	struct rn_target_report t;
	char *out, *c;

	(void)state;
	setenv("COLUMNS", "100", 1);
	memset(&r, 0, sizeof(r));
	r.name = (char *)"compile_unit";
	fill(&v[0], "baseline:instructions", "baseline", 1234567891, 1100000003, 1000000007);
	v[0].unit = "instructions";
	fill(&v[1], "golden:span_time:app:render_frame_shadow_pass", "regression", 5e6, 4e6, 3e6);
	v[1].unit = "ns";
	memset(&t, 0, sizeof(t));
	t.result = &r;
	t.verdicts = v;
	t.nverdicts = 1;
	out = console(&t, 1, false);
	c = name_cell(out, "baseline:");
	assert_string_equal(c, "baseline:instructions");
	free(c);
	assert_lines_within(out, 100);
	free(out);
	/* A long span name on a 60-column terminal: cut in its middle, both ends kept. */
	setenv("COLUMNS", "60", 1);
	t.verdicts = &v[1];
	out = console(&t, 1, false);
	assert_non_null(strstr(out, "golden:"));
	assert_null(strstr(out, "golden:span_time:app:render_frame_shadow_pass "));
	c = name_cell(out, "golden:");
	assert_non_null(strstr(c, "..."));
	assert_true(strncmp(c, "golden:", 7) == 0);
	assert_true(strlen(c) > 6 && !strcmp(c + strlen(c) - 6, "w_pass"));
	free(c);
	assert_lines_within(out, 60);
	free(out);
	unsetenv("COLUMNS");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report_columns_mean_one_thing),
		cmocka_unit_test(test_report_units_and_shared_warnings),
		cmocka_unit_test(test_report_assertion_names_whole),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
