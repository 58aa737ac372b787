/*
 * test_github - the GitHub Actions mode on synthetic verdicts: workflow-command and Markdown
 * escaping, the result word, the annotation limit per kind with its "N more" annotation,
 * workspace-relative paths, the job summary cut within GitHub's 1 MiB, the report file, the
 * outputs (with the delimiter form for multi-line values) and config-error annotations.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <fcntl.h>

#include "buf.h"
#include "config.h"
#include "diag.h"
#include "exitcode.h"
#include "github.h"
#include "runner/report/internal.h"
#include "verdict.h"
#include "xalloc.h"

/* A scratch directory with the GitHub files of one test. */
struct fixture {
	char dir[256];         /* the scratch directory (also GITHUB_WORKSPACE) */
	char summary[300];     /* GITHUB_STEP_SUMMARY */
	char output[300];      /* GITHUB_OUTPUT */
	char report[300];      /* RENACER_GITHUB_REPORT */
	char config[300];      /* a renacer.toml inside the workspace */
	char stdout_path[300]; /* where the annotations went */
};

static int setup(void **state)
{
	struct fixture *f = rn_xcalloc(1, sizeof(*f));
	const char *tmp = getenv("TMPDIR");
	FILE *c;

	snprintf(f->dir, sizeof(f->dir), "%s/rn-github-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->summary, sizeof(f->summary), "%s/summary.md", f->dir);
	snprintf(f->output, sizeof(f->output), "%s/output.txt", f->dir);
	snprintf(f->report, sizeof(f->report), "%s/report.md", f->dir);
	snprintf(f->config, sizeof(f->config), "%s/renacer.toml", f->dir);
	snprintf(f->stdout_path, sizeof(f->stdout_path), "%s/stdout.txt", f->dir);
	c = fopen(f->config, "w");
	if (!c)
		return -1;
	fputs("# test\n", c);
	fclose(c);
	setenv("GITHUB_STEP_SUMMARY", f->summary, 1);
	setenv("GITHUB_OUTPUT", f->output, 1);
	setenv("GITHUB_WORKSPACE", f->dir, 1);
	setenv(RN_GITHUB_ENV_REPORT, f->report, 1);
	unsetenv(RN_GITHUB_ENV_ANNOTATIONS);
	unsetenv("RUNNER_TEMP");
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	const char *files[] = { f->summary, f->output, f->report, f->config, f->stdout_path };
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		unlink(files[i]);
	rmdir(f->dir);
	free(f);
	return 0;
}

static char *slurp(const char *path)
{
	struct rn_buf b;

	rn_buf_init(&b, 0);
	if (rn_buf_read_file(&b, path)) {
		rn_buf_release(&b);
		return rn_xstrdup("");
	}
	return rn_buf_detach(&b, NULL);
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

/* Run rn_github_write with stdout sent to f->stdout_path; returns its result. */
static int write_captured(struct fixture *f, const struct rn_outcome *run, const char *junit)
{
	int saved, fd, rc;

	fflush(stdout);
	saved = dup(1);
	fd = open(f->stdout_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(saved >= 0 && fd >= 0);
	dup2(fd, 1);
	close(fd);
	rc = rn_github_write(run, junit);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	return rc;
}

static void add_verdict(struct rn_target_report *t, const char *name, enum rn_verdict verdict,
			int line, const char *message)
{
	struct rn_verdict_result *v = rn_target_report_push(t);

	v->assertion = rn_xstrdup(name);
	v->type = rn_xstrdup("span_count");
	v->target = rn_xstrdup(t->result->name);
	v->verdict = verdict;
	v->has_observed = true;
	v->observed = 42;
	v->has_budget = true;
	v->budget = 10;
	v->delta_pct = 320;
	v->unit = "spans";
	v->message = rn_xstrdup(message);
	v->config_line = line;
}

static void test_github_escape_data(void **state)
{
	struct rn_buf b;

	(void)state;
	rn_buf_init(&b, 0);
	rn_github_escape_data(&b, "50% a:b,c\r\nnext");
	assert_string_equal(b.buf, "50%25 a:b,c%0D%0Anext");
	rn_buf_reset(&b);
	rn_github_escape_data(&b, NULL);
	assert_string_equal(b.buf, "");
	rn_buf_release(&b);
}

static void test_github_escape_property(void **state)
{
	struct rn_buf b;

	(void)state;
	rn_buf_init(&b, 0);
	rn_github_escape_property(&b, "50% a:b,c\r\nnext");
	assert_string_equal(b.buf, "50%25 a%3Ab%2Cc%0D%0Anext");
	rn_buf_release(&b);
}

static void test_github_escape_markdown(void **state)
{
	struct rn_buf b;

	(void)state;
	rn_buf_init(&b, 0);
	rn_github_escape_markdown(&b, "a|b *c* `d` <e> [f] _g_ ~h~ & \\\nnext\tend", 0);
	assert_string_equal(
		b.buf, "a\\|b \\*c\\* \\`d\\` \\<e\\> \\[f\\] \\_g\\_ \\~h\\~ \\& \\\\ next end");
	/* "é" is two bytes: a limit of 3 keeps one, never half of the second. */
	rn_buf_reset(&b);
	rn_github_escape_markdown(&b, "\xc3\xa9\xc3\xa9\xc3\xa9", 3);
	assert_string_equal(b.buf, "\xc3\xa9\xe2\x80\xa6");
	rn_buf_reset(&b);
	rn_github_escape_markdown(&b, "abcd", 4);
	assert_string_equal(b.buf, "abcd");
	/* mentions of users and teams reach nobody: a zero-width joiner after the @ */
	rn_buf_reset(&b);
	rn_github_escape_markdown(&b, "@alice cc @acme/core, @9x; a@b.c @ x @-y", 0);
	assert_string_equal(b.buf,
			    "@\u200dalice cc @\u200dacme/core, @\u200d9x; a@\u200db.c @ x @-y");
	/* C1 and bidirectional controls, which reorder or hide the rest of a line, are shown */
	rn_buf_reset(&b);
	rn_github_escape_markdown(&b,
				  "exe\xe2\x80\xae"
				  "gpj x\xc2\x9b"
				  "2J \xe2\x81\xa6!",
				  0);
	assert_string_equal(b.buf, "exe\\u202egpj x\\u009b2J \\u2066!");
	rn_buf_release(&b);
}

static void test_github_result_word(void **state)
{
	(void)state;
	assert_string_equal(rn_github_result(RN_EXIT_OK, 0), "pass");
	assert_string_equal(rn_github_result(RN_EXIT_OK, 2), "warn");
	assert_string_equal(rn_github_result(RN_EXIT_FAIL, 0), "fail");
	assert_string_equal(rn_github_result(RN_EXIT_CONFIG, 0), "error");
	assert_string_equal(rn_github_result(RN_EXIT_TARGET, 1), "error");
}

static void test_github_annotation_limit_env(void **state)
{
	(void)state;
	unsetenv(RN_GITHUB_ENV_ANNOTATIONS);
	assert_int_equal(rn_github_annotation_limit(), 10);
	setenv(RN_GITHUB_ENV_ANNOTATIONS, "3", 1);
	assert_int_equal(rn_github_annotation_limit(), 3);
	setenv(RN_GITHUB_ENV_ANNOTATIONS, "0", 1);
	assert_int_equal(rn_github_annotation_limit(), 0);
	setenv(RN_GITHUB_ENV_ANNOTATIONS, "50", 1);
	assert_int_equal(rn_github_annotation_limit(), 10);
	setenv(RN_GITHUB_ENV_ANNOTATIONS, "3x", 1);
	assert_int_equal(rn_github_annotation_limit(), 10);
	setenv(RN_GITHUB_ENV_ANNOTATIONS, "-1", 1);
	assert_int_equal(rn_github_annotation_limit(), 10);
	unsetenv(RN_GITHUB_ENV_ANNOTATIONS);
}

/* 12 failures and 1 warning: 10 error annotations (the 10th names the 3 left out), 1 warning,
 * each at its own line of the workspace-relative renacer.toml. */
static void test_github_annotations_within_limits(void **state)
{
	struct fixture *f = *state;
	struct rn_config cfg;
	struct rn_target_result r;
	struct rn_target_report t;
	struct rn_outcome run = { .cfg = NULL };
	char name[32], expected[512], *out, *outputs;
	int i;

	memset(&cfg, 0, sizeof(cfg));
	cfg.path = f->config;
	rn_target_result_init(&r, "app");
	r.nruns = 0;
	memset(&t, 0, sizeof(t));
	t.result = &r;
	for (i = 0; i < 12; i++) {
		snprintf(name, sizeof(name), "a%02d", i);
		add_verdict(&t, name, RN_VERDICT_FAIL, 10 + i, "42 spans > 10: 50% over, a,b");
	}
	add_verdict(&t, "soft", RN_VERDICT_WARN, 99, "over budget");
	add_verdict(&t, "fine", RN_VERDICT_PASS, 120, "ok");
	run.cfg = &cfg;
	run.reports = &t;
	run.ntargets = 1;
	run.exit_code = RN_EXIT_FAIL;
	assert_int_equal(write_captured(f, &run, "out/junit.xml"), 0);

	out = slurp(f->stdout_path);
	assert_int_equal(count(out, "::error "), 10);
	assert_int_equal(count(out, "::warning "), 1);
	assert_non_null(
		strstr(out,
		       "::error file=renacer.toml,line=10,col=1,"
		       "title=renacer FAIL%3A app / a00::42 spans > 10: 50%25 over, a,b\n"));
	assert_non_null(strstr(out, "line=18,col=1,title=renacer FAIL%3A app / a08::"));
	assert_null(strstr(out, "title=renacer FAIL%3A app / a09::"));
	assert_non_null(strstr(out,
			       "::error file=renacer.toml,title=renacer%3A 3 more failures::"
			       "3 more failures not annotated"));
	assert_non_null(strstr(out, "%0AFAIL app / a11"));
	assert_non_null(strstr(out,
			       "::warning file=renacer.toml,line=99,col=1,"
			       "title=renacer WARN%3A app / soft::over budget\n"));
	assert_null(strstr(out, "fine"));
	free(out);

	outputs = slurp(f->output);
	snprintf(expected, sizeof(expected),
		 "result=fail\nfailed=12\nwarnings=1\nexit_code=1\njunit=out/junit.xml\nreport=%s\n",
		 f->report);
	assert_string_equal(outputs, expected);
	free(outputs);
	rn_target_report_release(&t);
	rn_target_result_release(&r);
}

/* The summary puts failures first, escapes cells, and the report is the same Markdown. */
static void test_github_summary_table(void **state)
{
	struct fixture *f = *state;
	struct rn_config cfg;
	struct rn_target_result r[2];
	struct rn_target_report t[2];
	struct rn_outcome run = { .cfg = NULL };
	char *summary, *report, *pass_row, *fail_row, *ok_target, *bad_target;

	memset(&cfg, 0, sizeof(cfg));
	cfg.path = f->config;
	memset(t, 0, sizeof(t));
	rn_target_result_init(&r[0], "good");
	rn_target_result_init(&r[1], "bad");
	r[0].nruns = 3;
	r[1].nruns = 5;
	t[0].result = &r[0];
	t[1].result = &r[1];
	add_verdict(&t[0], "g_ok", RN_VERDICT_PASS, 3, "fine");
	add_verdict(&t[1], "b_ok", RN_VERDICT_PASS, 4, "fine");
	add_verdict(&t[1], "b_fail", RN_VERDICT_FAIL, 5, "too many | spans");
	add_verdict(&t[1], "ping @acme/core", RN_VERDICT_FAIL, 5, "cc @alice");
	t[1].verdicts[2].detail = rn_xstrdup("in a code fence @alice stays as it is\n");
	t[1].verdicts[1].detail = rn_xstrdup("openat 30\nread ```` 12\n");
	run.cfg = &cfg;
	run.reports = t;
	run.ntargets = 2;
	run.exit_code = RN_EXIT_FAIL;
	assert_int_equal(write_captured(f, &run, NULL), 0);

	summary = slurp(f->summary);
	report = slurp(f->report);
	assert_string_equal(summary, report);
	assert_non_null(strstr(summary, "## \u274c renacer check: failed\n"));
	/* above the fold: the counts, then the failing row alone, with its message */
	assert_non_null(strstr(summary, "**2 failed** \u00b7 2 passed"));
	assert_non_null(
		strstr(summary,
		       "\n- \u274c **FAIL** bad/b\\_fail: 42 spans, limit 10 spans (+320%)\n"));
	assert_null(strstr(summary, "| assertion |")); /* no table anywhere */
	assert_true(strstr(summary, "<details><summary>All 4 rows of 2 targets</summary>") >
		    strstr(summary, "**FAIL** bad"));
	fail_row = strstr(summary,
			  "- \u274c FAIL **b\\_fail** \u00b7 42 spans, limit 10 spans "
			  "(+320.0%) \u00b7 too many \\| spans\n");
	pass_row = strstr(summary,
			  "- \u2705 PASS **b\\_ok** \u00b7 42 spans, limit 10 spans "
			  "(+320.0%) \u00b7 fine\n");
	assert_non_null(fail_row);
	assert_non_null(pass_row);
	assert_true(fail_row < pass_row);
	/* The failing target comes first although it is second in the config. */
	bad_target = strstr(summary, "#### \u274c bad (5 runs)");
	ok_target = strstr(summary, "#### \u2705 good (3 runs)");
	assert_non_null(bad_target);
	assert_non_null(ok_target);
	assert_true(bad_target < ok_target);
	/* The detail sits in a fence longer than its own backtick run. */
	assert_non_null(strstr(summary,
			       "<details><summary>FAIL: bad / b_fail</summary>\n\n`````text\n"
			       "openat 30\nread ```` 12\n`````\n"));
	/* no mention reaches the Markdown, in a cell or a <summary>; a code fence keeps it */
	assert_non_null(strstr(summary, "ping @\u200dacme/core"));
	assert_non_null(strstr(summary, "cc @\u200dalice"));
	assert_non_null(strstr(summary, "<summary>FAIL: bad / ping @\u200dacme/core</summary>"));
	assert_non_null(strstr(summary, "in a code fence @alice stays as it is"));
	assert_null(strstr(summary, "cc @alice"));
	assert_null(strstr(summary, "ping @acme"));
	assert_null(strstr(summary, "@acme"));
	free(summary);
	free(report);
	rn_target_report_release(&t[0]);
	rn_target_report_release(&t[1]);
	rn_target_result_release(&r[0]);
	rn_target_result_release(&r[1]);
}

/* A summary file already close to the limit: what is appended keeps it within 1 MiB, is cut
 * after a whole row and ends with the note; the report keeps everything. */
static void test_github_summary_within_limit(void **state)
{
	struct fixture *f = *state;
	struct rn_config cfg;
	struct rn_target_result r;
	struct rn_target_report t;
	struct rn_outcome run = { .cfg = NULL };
	char msg[901], name[32], *summary, *report, *added, *last;
	struct stat st;
	FILE *s;
	size_t before = RN_GITHUB_SUMMARY_MAX - 200 * 1024;
	int i;

	memset(&cfg, 0, sizeof(cfg));
	cfg.path = f->config;
	memset(&t, 0, sizeof(t));
	rn_target_result_init(&r, "big");
	t.result = &r;
	memset(msg, 'x', sizeof(msg) - 1);
	msg[sizeof(msg) - 1] = '\0';
	for (i = 0; i < 1000; i++) {
		snprintf(name, sizeof(name), "n%04d", i);
		memcpy(msg, name, 5); /* each its own message: no two rows are one line */
		add_verdict(&t, name, RN_VERDICT_FAIL, i + 1, msg);
	}
	s = fopen(f->summary, "w");
	assert_non_null(s);
	for (i = 0; (size_t)i < before; i++)
		fputc(i % 64 == 63 ? '\n' : 'p', s);
	fclose(s);
	run.cfg = &cfg;
	run.reports = &t;
	run.ntargets = 1;
	run.exit_code = RN_EXIT_FAIL;
	assert_int_equal(write_captured(f, &run, NULL), 0);

	assert_int_equal(stat(f->summary, &st), 0);
	assert_true((size_t)st.st_size <= RN_GITHUB_SUMMARY_MAX);
	assert_true((size_t)st.st_size > RN_GITHUB_SUMMARY_MAX - 4096);
	summary = slurp(f->summary);
	added = summary + before;
	assert_non_null(strstr(added, "1 MiB job summary limit"));
	/* The last row before the note is whole, and the note closes the fold it cut. */
	last = strstr(added, "\n\n</details>\n\n> [!NOTE]");
	assert_non_null(last);
	assert_memory_equal(last - 2, "xx", 2);
	report = slurp(f->report);
	assert_int_equal(count(report, "- \u274c FAIL **n"), 1000);
	/* above the fold: GH_HEADLINE_ROWS failing rows, the rest counted */
	assert_int_equal(count(report, "- \u274c **FAIL** big/n"), 8);
	assert_non_null(strstr(report, "- \u2026 and 992 more failing rows (below)\n"));
	free(summary);
	free(report);
	rn_target_report_release(&t);
	rn_target_result_release(&r);
}

/* Values with a line break use the delimiter form; a path outside the workspace is kept. */
static void test_github_outputs_multiline(void **state)
{
	struct fixture *f = *state;
	struct rn_config cfg;
	struct rn_outcome run = { .cfg = NULL };
	static const char head[] = "result=pass\nfailed=0\nwarnings=0\nexit_code=0\njunit<<";
	char *outputs, *p, delim[64];

	memset(&cfg, 0, sizeof(cfg));
	cfg.path = (char *)"/nonexistent/dir/renacer.toml";
	run.cfg = &cfg;
	run.reports = NULL;
	run.ntargets = 0;
	run.exit_code = RN_EXIT_OK;
	assert_int_equal(write_captured(f, &run, "odd\nname.xml"), 0);
	outputs = slurp(f->output);
	assert_true(!strncmp(outputs, head, strlen(head)));
	p = outputs + strlen(head);
	assert_true(strchr(p, '\n') - p < (long)sizeof(delim));
	snprintf(delim, sizeof(delim), "%.*s", (int)(strchr(p, '\n') - p), p);
	assert_true(!strncmp(delim, "ghadelimiter_", 13));
	p = strchr(p, '\n') + 1;
	assert_true(!strncmp(p, "odd\nname.xml\n", 13));
	assert_true(!strncmp(p + 13, delim, strlen(delim)));
	free(outputs);
	outputs = slurp(f->summary);
	assert_non_null(strstr(outputs, "/nonexistent/dir/renacer.toml \u00b7 exit 0"));
	free(outputs);
}

/* A config error: one annotation at its line and column, outputs say error. */
static void test_github_config_error(void **state)
{
	struct fixture *f = *state;
	static const char src[] = "[[assertion]]\nname = \"api\"\ntreshold = 0.5\n";
	struct rn_diag d;
	char *out, *outputs, *summary;
	int saved, fd;

	rn_diag_init(&d, f->config, src, sizeof(src) - 1);
	rn_diag_set(&d, 3, 1,
		    "unknown key 'treshold' in [[assertion]] 'api', did you mean: threshold");
	fflush(stdout);
	saved = dup(1);
	fd = open(f->stdout_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	dup2(fd, 1);
	close(fd);
	assert_int_equal(rn_github_report_diag(&d, RN_EXIT_CONFIG), 0);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	out = slurp(f->stdout_path);
	assert_string_equal(out,
			    "::error file=renacer.toml,line=3,col=1,title=renacer%3A config "
			    "error::unknown key 'treshold' in [[assertion]] 'api', did you mean: "
			    "threshold\n");
	outputs = slurp(f->output);
	assert_true(!strncmp(outputs, "result=error\nfailed=0\nwarnings=0\nexit_code=3\n",
			     strlen("result=error\nfailed=0\nwarnings=0\nexit_code=3\n")));
	summary = slurp(f->summary);
	assert_non_null(strstr(summary, "config error"));
	assert_non_null(strstr(summary, "treshold = 0.5"));
	free(out);
	free(outputs);
	free(summary);
}

/* Columns of a Markdown line as a reader sees it: code points, an emoji two wide. */
static size_t md_columns(const char *s, size_t len)
{
	size_t cols = 0, i;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if ((c & 0xc0) == 0x80)
			continue;
		if (c == 0xef && i + 2 < len && (unsigned char)s[i + 1] == 0xb8 &&
		    (unsigned char)s[i + 2] == 0x8f)
			continue; /* U+FE0F, the emoji presentation selector, adds nothing */
		cols += c >= 0xe2 ? 2 : 1;
	}
	return cols;
}

/* A failing baseline row with a profile's explanation among passing and advisory rows: the
 * comment's failing line names the interval and the cause, and the part above <details> keeps
 * within 15 lines and 100 columns. */
static void test_github_comment_names_cause(void **state)
{
	struct fixture *f = *state;
	struct rn_config cfg;
	struct rn_target_result r, r2;
	struct rn_target_report t[2];
	struct rn_outcome run = { .cfg = NULL };
	char name[32], *md, *fold, *line, *end;
	size_t lines = 0;
	int i;

	memset(&cfg, 0, sizeof(cfg));
	cfg.path = f->config;
	memset(t, 0, sizeof(t));
	rn_target_result_init(&r, "jq");
	rn_target_result_init(&r2, "down");
	t[0].result = &r;
	t[1].result = &r2;
	/* a target that did not run: each of its rows says so; one line above the fold */
	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "down_%d", i);
		add_verdict(&t[1], name, RN_VERDICT_ERROR, 40 + i,
			    "target 'down' did not run cleanly: exited with status 1");
		t[1].verdicts[i].has_observed = false;
	}
	add_verdict(&t[0], "baseline:cpu_time", RN_VERDICT_FAIL, 3,
		    "head - base +9.100 ms (+30.2% of base 30.1 ms), 95% CI [+19.0%, +47.0%] beyond "
		    "limit +3%; 12 pairs; detects >= +4.1%");
	t[0].verdicts[0].unit = "ms";
	t[0].verdicts[0].delta_pct = 30.2;
	t[0].verdicts[0].detail =
		rn_xstrdup("head vs base, cpu_time, 12 timing pairs run side by side\n"
			   "where the time went (head against base, one profiled run, 999 Hz):\n"
			   "  1. +9.0 ms on CPU in jv_copy (src/jv.c:123), from main\n"
			   "  2. +1.0 ms on CPU in jv_free (src/jv.c:200), from main\n");
	for (i = 0; i < 9; i++) {
		snprintf(name, sizeof(name), "pass_%d", i);
		add_verdict(&t[0], name, RN_VERDICT_PASS, 10 + i,
			    "a long message that stays folded");
	}
	add_verdict(&t[0], "golden:wall_time", RN_VERDICT_WARN, 30, "advisory: conditions differ");
	add_verdict(&t[0], "golden:critical_path", RN_VERDICT_WARN, 31,
		    "advisory: conditions differ");
	run.cfg = &cfg;
	run.reports = t;
	run.ntargets = 2;
	run.exit_code = RN_EXIT_FAIL;
	setenv("GITHUB_SERVER_URL", "https://github.com", 1);
	setenv("GITHUB_REPOSITORY", "o/r", 1);
	setenv("GITHUB_RUN_ID", "7", 1);
	md = rn_github_markdown(&run, NULL);
	unsetenv("GITHUB_SERVER_URL");
	unsetenv("GITHUB_REPOSITORY");
	unsetenv("GITHUB_RUN_ID");
	assert_non_null(md);
	assert_non_null(strstr(md,
			       "\n- \u274c **FAIL** jq/baseline:cpu\\_time: +30% \\[+19%, +47%\\] "
			       "\u00b7 +9.0 ms on CPU in jv\\_copy (src/jv.c:123)\n"));
	assert_non_null(
		strstr(md, "**1 failed** \u00b7 **3 errors** \u00b7 9 passed \u00b7 2 advisory "));
	assert_non_null(strstr(md,
			       "\n- \u274c **ERROR** down/down\\_0 and 2 more: target 'down' did "
			       "not run cleanly: exited with status 1\n"));
	assert_null(strstr(md, "**ERROR** down/down\\_1"));
	assert_non_null(
		strstr(md, "[Run page and artifacts](https://github.com/o/r/actions/runs/7)"));
	fold = strstr(md, "\n<details>");
	assert_non_null(fold);
	/* the passing and advisory rows stay below the fold */
	assert_null(memmem(md, (size_t)(fold - md), "pass\\_", 6));
	assert_null(memmem(md, (size_t)(fold - md), "golden:wall", 11));
	for (line = md; line <= fold; line = end + 1) {
		end = strchr(line, '\n');
		assert_true(md_columns(line, (size_t)(end - line)) <= 100);
		lines++;
	}
	assert_true(lines <= 15);
	free(md);
	rn_target_report_release(&t[0]);
	rn_target_report_release(&t[1]);
	rn_target_result_release(&r);
	rn_target_result_release(&r2);
}

/* A golden timing row that did not fail but was explained ("why it may be slower"): the
 * comment names its cause above the fold, as the console does, in a failing row's form; an
 * advisory row without an explanation stays below. */
static void test_github_comment_names_warn_cause(void **state)
{
	struct fixture *f = *state;
	struct rn_config cfg;
	struct rn_target_result r;
	struct rn_target_report t;
	struct rn_outcome run = { .cfg = NULL };
	char *md, *fold, *at;

	memset(&cfg, 0, sizeof(cfg));
	cfg.path = f->config;
	memset(&t, 0, sizeof(t));
	rn_target_result_init(&r, "app");
	t.result = &r;
	add_verdict(&t, "golden:wall_time", RN_VERDICT_WARN, 30,
		    "wall_time 62.6 ms vs golden 55.5 ms (+12.8%): INCONCLUSIVE (WARN)");
	t.verdicts[0].unit = "ms";
	t.verdicts[0].detail =
		rn_xstrdup("golden vs head, wall_time, 5 runs\n"
			   "why it may be slower (the row did not fail) (head against the golden "
			   "profile, 5 profiled runs of the head, 999 Hz; ranked: grew in 3 of "
			   "them or more):\n"
			   "  1. +4.2 ms on CPU in hot_loop (src/hot.c:17), from main\n");
	add_verdict(&t, "golden:cpu_time", RN_VERDICT_WARN, 31, "advisory: conditions differ");
	t.explain = rn_xcalloc(1, sizeof(*t.explain));
	t.explain->assertion = rn_xstrdup("golden:wall_time");
	run.cfg = &cfg;
	run.reports = &t;
	run.ntargets = 1;
	run.exit_code = RN_EXIT_OK;
	md = rn_github_markdown(&run, NULL);
	assert_non_null(md);
	fold = strstr(md, "\n<details>");
	assert_non_null(fold);
	at = strstr(md, "\n- \u26a0\ufe0f **WARN** app/golden:wall\\_time");
	assert_non_null(at);
	assert_true(at < fold);
	at = strstr(at, " \u00b7 may be slower: +4.2 ms on CPU in hot\\_loop (src/hot.c:17)\n");
	assert_non_null(at);
	assert_true(at < fold);
	assert_null(memmem(md, (size_t)(fold - md), "golden:cpu", 10));
	free(md);
	rn_target_report_release(&t);
	rn_target_result_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_github_escape_data),
		cmocka_unit_test(test_github_escape_property),
		cmocka_unit_test(test_github_escape_markdown),
		cmocka_unit_test(test_github_result_word),
		cmocka_unit_test(test_github_annotation_limit_env),
		cmocka_unit_test_setup_teardown(test_github_annotations_within_limits, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_github_summary_table, setup, teardown),
		cmocka_unit_test_setup_teardown(test_github_summary_within_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_github_comment_names_cause, setup, teardown),
		cmocka_unit_test_setup_teardown(test_github_comment_names_warn_cause, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_github_outputs_multiline, setup, teardown),
		cmocka_unit_test_setup_teardown(test_github_config_error, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
