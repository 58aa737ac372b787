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
#include "report.h"
#include "xalloc.h"

/* rn_report_console's stderr, as a string the caller frees. */
static char *console(const struct rn_target_report *t, size_t n, bool wide)
{
	char path[] = "/tmp/rn-test-report-XXXXXX";
	int fd = mkstemp(path), saved = dup(2);
	struct rn_buf b;

	assert_true(fd >= 0 && saved >= 0);
	assert_int_equal(dup2(fd, 2), 2);
	rn_report_console(false, wide, false, t, n, 1);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report_columns_mean_one_thing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
