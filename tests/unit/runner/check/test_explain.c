/*
 * test_explain.c - ranked differences of folded-stack profiles (runner/check/explain.h) and the
 * flame graph writers (runner/report/flamegraph.h).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "explain.h"
#include "flamegraph.h"

static char *write_tmp(const char *text)
{
	char *path = strdup("/tmp/rn-explain-XXXXXX");
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

static void test_explain_ranks_growth_first(void **state)
{
	char *b = write_tmp("app;main;parse_row 100\napp;main;load_cfg;openat 50\n"
			    "app;main;idle 30\napp;main;parse_row 20\n");
	char *h = write_tmp("app;main;parse_row 9220\napp;main;load_cfg;openat 2050\n"
			    "app;main;idle 10\napp;main;new_fn 5\n");
	struct rn_folded fb, fh;
	struct rn_explain_item *it;
	struct rn_diag d;
	struct rn_buf line;
	size_t n;

	(void)state;
	rn_diag_init(&d, NULL, NULL, 0);
	assert_int_equal(rn_folded_read(&fb, b, &d), 0);
	assert_int_equal(rn_folded_read(&fh, h, &d), 0);
	assert_int_equal(fb.n, 3); /* parse_row given twice: merged */
	assert_int_equal(fb.total, 200);
	it = rn_explain_rank(&fb, &fh, &n);
	assert_int_equal(n, 4);
	assert_string_equal(it[0].stack, "app;main;parse_row");
	assert_int_equal(it[0].delta, 9100);
	assert_string_equal(it[0].leaf, "parse_row");
	assert_string_equal(it[0].caller, "main");
	assert_string_equal(it[1].leaf, "openat");
	assert_string_equal(it[1].caller, "load_cfg");
	assert_string_equal(it[2].leaf, "new_fn");
	assert_int_equal(it[2].base, 0);
	assert_int_equal(it[3].delta, -20); /* shrinks last */
	rn_buf_init(&line, 0);
	rn_explain_format(&line, &it[0], "ns", 9100 + 2000 + 5);
	assert_string_equal(line.buf, "+9.1 us in parse_row, from main (82% of the growth)");
	rn_buf_reset(&line);
	rn_explain_format(&line, &it[1], "samples", 0);
	assert_string_equal(line.buf, "+2000 samples in openat, from load_cfg");
	rn_buf_release(&line);
	rn_explain_items_free(it, n);
	rn_folded_release(&fb);
	rn_folded_release(&fh);
	unlink(b);
	unlink(h);
	free(b);
	free(h);
}

static void test_explain_bad_profile(void **state)
{
	char *p = write_tmp("a;b 3\na;c x\n");
	struct rn_folded f;
	struct rn_diag d;

	(void)state;
	rn_diag_init(&d, NULL, NULL, 0);
	assert_int_equal(rn_folded_read(&f, p, &d), -1);
	assert_int_equal(d.line, 2);
	assert_non_null(strstr(d.msg, "line 2 is not folded stacks"));
	rn_diag_init(&d, NULL, NULL, 0);
	assert_int_equal(rn_folded_read(&f, "/nonexistent/x.folded", &d), -1);
	assert_non_null(strstr(d.msg, "cannot read"));
	unlink(p);
	free(p);
}

/* A write made through stdio is the write of the program's function that called fprintf; a
 * path with nothing but runtime and interpreter frames says so. */
static void test_explain_caller_skips_runtime(void **state)
{
	char *b = write_tmp("app;main (w.c:30);write_out (w.c:12);_IO_new_file_write "
			    "[libc.so.6];write 10\n");
	char *h = write_tmp("app;main (w.c:30);write_out (w.c:12);_IO_new_file_write "
			    "[libc.so.6];write 990\n"
			    "python3;_PyEval_EvalFrameDefault;PyObject_Call;libc.so.6+0x11a2b0;"
			    "openat 5\n");
	struct rn_folded fb, fh;
	struct rn_explain_item *it;
	struct rn_diag d;
	struct rn_buf line;
	size_t n;

	(void)state;
	rn_diag_init(&d, NULL, NULL, 0);
	assert_int_equal(rn_folded_read(&fb, b, &d), 0);
	assert_int_equal(rn_folded_read(&fh, h, &d), 0);
	it = rn_explain_rank(&fb, &fh, &n);
	assert_int_equal(n, 2);
	assert_string_equal(it[0].leaf, "write");
	assert_string_equal(it[0].caller, "write_out (w.c:12)");
	assert_false(it[0].only_system);
	assert_null(it[1].caller);
	assert_true(it[1].only_system);
	rn_buf_init(&line, 0);
	rn_explain_format(&line, &it[0], "ns", 0);
	assert_string_equal(line.buf, "+980 ns in write, from write_out (w.c:12)");
	rn_buf_reset(&line);
	rn_explain_format(&line, &it[1], "samples", 0);
	assert_string_equal(line.buf,
			    "+5 samples in openat, from no frame of the program's own "
			    "(only C runtime, loader or interpreter frames)");
	rn_buf_release(&line);
	rn_explain_items_free(it, n);
	rn_folded_release(&fb);
	rn_folded_release(&fh);
	unlink(b);
	unlink(h);
	free(b);
	free(h);
}

/* A leaf that is the program's own function (a source frame) under runtime frames only (GCC's
 * frameless leaf, called "from" __libc_start_call_main) is not "no frame of the program's
 * own": its caller is the frame above it. */
static void test_explain_own_leaf_under_runtime(void **state)
{
	char *b = write_tmp("app;main (a.c:30);cold (a.c:9) 10\n");
	char *h = write_tmp("app;main (a.c:30);cold (a.c:9) 10\n"
			    "app;libc.so.6+0x2724a;hot_parse (app.c:19) 5\n");
	struct rn_folded fb, fh;
	struct rn_explain_item *it;
	struct rn_diag d;
	struct rn_buf line;
	size_t n;

	(void)state;
	rn_diag_init(&d, NULL, NULL, 0);
	assert_int_equal(rn_folded_read(&fb, b, &d), 0);
	assert_int_equal(rn_folded_read(&fh, h, &d), 0);
	it = rn_explain_rank(&fb, &fh, &n);
	assert_int_equal(n, 1);
	assert_false(it[0].only_system);
	assert_string_equal(it[0].caller, "libc.so.6+0x2724a");
	rn_buf_init(&line, 0);
	rn_explain_format(&line, &it[0], "samples", 0);
	assert_string_equal(line.buf, "+5 samples in hot_parse (app.c:19), from libc.so.6+0x2724a");
	rn_buf_release(&line);
	rn_explain_items_free(it, n);
	rn_folded_release(&fb);
	rn_folded_release(&fh);
	unlink(b);
	unlink(h);
	free(b);
	free(h);
}

static void test_flamegraph_boxes(void **state)
{
	const char *folded = "app;main;hot 75\napp;main;cold 25\n";
	FILE *in = fmemopen((void *)folded, strlen(folded), "r");
	char *svg = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&svg, &len);
	int bad = 0;

	(void)state;
	assert_int_equal(rn_flamegraph_svg(in, out, "T <&>", "ns", &bad), 0);
	fclose(in);
	fclose(out);
	assert_non_null(strstr(svg, "<title>hot: 75 ns (75.00%)</title>"));
	assert_non_null(strstr(svg, "<title>cold: 25 ns (25.00%)</title>"));
	assert_non_null(strstr(svg, "width=\"900.0\"")); /* 75% of 1200 */
	assert_non_null(strstr(svg, "T &lt;&amp;&gt;"));
	free(svg);

	in = fmemopen((void *)"a;b 1\nbroken\n", 13, "r");
	out = open_memstream(&svg, &len);
	assert_int_equal(rn_flamegraph_svg(in, out, "t", "ns", &bad), -EINVAL);
	assert_int_equal(bad, 2);
	fclose(in);
	fclose(out);
	free(svg);
}

static void test_flamegraph_diff_colours(void **state)
{
	const char *base = "app;hot 10\napp;cold 50\n", *head = "app;hot 60\napp;cold 40\n";
	FILE *b = fmemopen((void *)base, strlen(base), "r");
	FILE *h = fmemopen((void *)head, strlen(head), "r");
	char *svg = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&svg, &len);
	const char *hot, *cold;

	(void)state;
	assert_int_equal(rn_flamegraph_diff_svg(b, h, out, "d", "ns", NULL), 0);
	fclose(b);
	fclose(h);
	fclose(out);
	hot = strstr(svg, "<title>hot: 60 ns (60.00%), base 10 (+50)</title>");
	cold = strstr(svg, "<title>cold: 40 ns (40.00%), base 50 (-10)</title>");
	assert_non_null(hot);
	assert_non_null(cold);
	/* the largest growth is the deepest red, a shrink is blue */
	assert_non_null(strstr(hot, "fill=\"rgb(255,55,55)\""));
	assert_true(strstr(cold, "fill=\"rgb(") && strstr(cold, ",255)\""));
	free(svg);
}

/* The samples inside an app span: a function's lines add up, shown at its busiest line; the
 * top 3 by samples, each with its share; names escaped; an empty profile says so. */
static void test_explain_inside_span(void **state)
{
	struct rn_folded f;
	struct rn_diag d;
	struct rn_buf b;

	(void)state;
	rn_diag_init(&d, NULL, NULL, 0);
	assert_int_equal(rn_folded_parse(&f,
					 "app;main;work;solve_step (app.c:40) 60\n"
					 "app;main;work;solve_step (app.c:41) 22\n"
					 "app;main;work;pick (app.c:9) 9\n"
					 "app;main;work;odd\x1b 5\n"
					 "app;main;memcpy [libc.so.6] 4\n",
					 "inside", &d),
			 0);
	rn_buf_init(&b, 0);
	rn_explain_inside(&b, "app:solve", 3, &f, 3);
	rn_buf_reset(&b);
	rn_explain_inside(&b, "app:solve", 3, &f, 5);
	assert_non_null(strstr(b.buf, ", 5% in odd\\e, 4% in memcpy [libc.so.6]\n"));
	rn_buf_reset(&b);
	rn_explain_inside(&b, "app:solve", 3, &f, 3);
	assert_string_equal(b.buf,
			    "inside app:solve (3 profiled runs, 100 samples): 82% of its "
			    "samples in solve_step (app.c:40), 9% in pick (app.c:9), 5% "
			    "in odd\\e\n");
	rn_folded_release(&f);
	rn_buf_reset(&b);
	assert_int_equal(rn_folded_parse(&f, "", "inside", &d), 0);
	rn_explain_inside(&b, "app:solve", 1, &f, 3);
	assert_string_equal(b.buf,
			    "inside app:solve (1 profiled run): no on-CPU samples in its "
			    "windows\n");
	rn_folded_release(&f);
	rn_buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_explain_ranks_growth_first),
		cmocka_unit_test(test_explain_bad_profile),
		cmocka_unit_test(test_explain_caller_skips_runtime),
		cmocka_unit_test(test_explain_own_leaf_under_runtime),
		cmocka_unit_test(test_explain_inside_span),
		cmocka_unit_test(test_flamegraph_boxes),
		cmocka_unit_test(test_flamegraph_diff_colours),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
