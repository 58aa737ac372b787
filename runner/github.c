/*
 * github.c - GitHub Actions integration: job summary, annotations, step outputs.
 *
 * Workflow commands are documented in "Workflow commands for GitHub Actions": data is escaped
 * with %25 %0D %0A, property values additionally with %3A %2C. GitHub keeps at most 10 error
 * annotations per step and 1 MiB of job summary per step; we stay within both.
 */
#include "github.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "exitcode.h"
#include "xalloc.h"

/* GitHub's limits per step. */
#define GH_MAX_ERRORS 10
#define GH_SUMMARY_MAX ((size_t)1 << 20)

/* Escape workflow-command data (`property` adds ':' and ','). */
static void gh_escape(struct rn_buf *b, const char *s, bool property)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '%':
			rn_buf_adds(b, "%25");
			break;
		case '\r':
			rn_buf_adds(b, "%0D");
			break;
		case '\n':
			rn_buf_adds(b, "%0A");
			break;
		case ':':
			rn_buf_adds(b, property ? "%3A" : ":");
			break;
		case ',':
			rn_buf_adds(b, property ? "%2C" : ",");
			break;
		default:
			rn_buf_addc(b, *s);
		}
	}
}

/* Markdown table cells: no pipes or newlines. */
static void md_cell(struct rn_buf *b, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '|')
			rn_buf_adds(b, "\\|");
		else if (*s == '\n' || *s == '\r')
			rn_buf_addc(b, ' ');
		else
			rn_buf_addc(b, *s);
	}
}

static int append_file(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "a");
	int rc = 0;

	if (!f)
		return -errno;
	if (fwrite(data, 1, len, f) != len)
		rc = -EIO;
	if (fclose(f) && !rc)
		rc = -errno;
	return rc;
}

static void value_cell(struct rn_buf *b, bool has, double v, const char *unit)
{
	if (!has)
		rn_buf_adds(b, "-");
	else if (unit && !strcmp(unit, "ms"))
		rn_buf_addf(b, "%.3f ms", v);
	else if (unit && !strcmp(unit, "confidence"))
		rn_buf_addf(b, "%.2f", v);
	else
		rn_buf_addf(b, "%.0f %s", v, unit ? unit : "");
}

/* Is this verdict a failure for ordering and annotations? */
static bool is_bad(enum rn_verdict v)
{
	return v == RN_VERDICT_FAIL || v == RN_VERDICT_ERROR || v == RN_VERDICT_NO_DATA;
}

static void summary_rows(struct rn_buf *b, const struct rn_target_report *t, bool bad)
{
	size_t k;

	for (k = 0; k < t->nverdicts; k++) {
		const struct rn_verdict_result *v = &t->verdicts[k];

		if (is_bad(v->verdict) != bad)
			continue;
		rn_buf_adds(b, "| ");
		md_cell(b, v->assertion);
		rn_buf_addf(b, " | %s%s | ", bad ? "❌ " : "", rn_verdict_label(v->verdict));
		value_cell(b, v->has_observed, v->observed, v->unit);
		rn_buf_adds(b, " | ");
		value_cell(b, v->has_budget, v->budget, v->unit);
		rn_buf_adds(b, " | ");
		value_cell(b, v->has_golden, v->golden, v->unit);
		if (v->has_observed && (v->has_budget || v->has_golden))
			rn_buf_addf(b, " | %+.1f%% | ", v->delta_pct);
		else
			rn_buf_adds(b, " | - | ");
		rn_buf_addf(b, "%zu | ", t->result->nruns);
		md_cell(b, v->message);
		rn_buf_adds(b, " |\n");
	}
}

int rn_github_report(const struct rn_config *cfg, const struct rn_target_report *t, size_t n,
		     int exit_code)
{
	const char *summary = getenv("GITHUB_STEP_SUMMARY");
	const char *output = getenv("GITHUB_OUTPUT");
	struct rn_buf b;
	size_t i, k, errors = 0, failed = 0;
	int rc = 0, r;

	/* Annotations: on stdout as workflow commands, at the assertion's own line. */
	rn_buf_init(&b, 0);
	for (i = 0; i < n; i++) {
		for (k = 0; k < t[i].nverdicts; k++) {
			const struct rn_verdict_result *v = &t[i].verdicts[k];
			struct rn_buf title;

			if (!is_bad(v->verdict) && v->verdict != RN_VERDICT_WARN)
				continue;
			if (is_bad(v->verdict))
				failed++;
			if (errors >= GH_MAX_ERRORS)
				continue;
			errors++;
			rn_buf_init(&title, 0);
			rn_buf_addf(&title, "renacer %s: %s/%s", rn_verdict_label(v->verdict),
				    t[i].result->name, v->assertion);
			rn_buf_addf(&b, "::%s file=", v->verdict == RN_VERDICT_WARN ? "warning" : "error");
			gh_escape(&b, cfg->path, true);
			if (v->config_line > 0)
				rn_buf_addf(&b, ",line=%d,col=1", v->config_line);
			rn_buf_adds(&b, ",title=");
			gh_escape(&b, title.buf, true);
			rn_buf_adds(&b, "::");
			gh_escape(&b, v->message, false);
			rn_buf_addc(&b, '\n');
			rn_buf_release(&title);
		}
	}
	fwrite(b.buf, 1, b.len, stdout);
	fflush(stdout);
	rn_buf_reset(&b);

	if (summary && *summary) {
		rn_buf_addf(&b, "## renacer check: %s\n\n", exit_code == RN_EXIT_OK ? "✅ passed" : "❌ failed");
		for (i = 0; i < n && b.len < GH_SUMMARY_MAX - 4096; i++) {
			rn_buf_adds(&b, "### ");
			md_cell(&b, t[i].result->name);
			rn_buf_addf(&b, " (%zu run%s)\n\n", t[i].result->nruns,
				    t[i].result->nruns == 1 ? "" : "s");
			rn_buf_adds(&b, "| assertion | verdict | measured | budget | golden | delta | runs | message |\n"
					"|---|---|---|---|---|---|---|---|\n");
			summary_rows(&b, &t[i], true); /* failures first */
			summary_rows(&b, &t[i], false);
			rn_buf_addc(&b, '\n');
		}
		if (b.len > GH_SUMMARY_MAX - 128) {
			b.len = GH_SUMMARY_MAX - 128;
			b.buf[b.len] = '\0';
			rn_buf_adds(&b, "\n\n(truncated to stay within GitHub's 1 MiB summary limit)\n");
		}
		r = append_file(summary, b.buf, b.len);
		if (r) {
			rn_warn("cannot append to GITHUB_STEP_SUMMARY '%s': %s", summary, strerror(-r));
			rc = r;
		}
		rn_buf_reset(&b);
	}
	if (output && *output) {
		rn_buf_addf(&b, "result=%s\nfailed=%zu\n", exit_code == RN_EXIT_OK ? "pass" : "fail",
			    failed);
		if (cfg->junit)
			rn_buf_addf(&b, "junit=%s\n", cfg->junit);
		r = append_file(output, b.buf, b.len);
		if (r) {
			rn_warn("cannot append to GITHUB_OUTPUT '%s': %s", output, strerror(-r));
			rc = r;
		}
	}
	rn_buf_release(&b);
	return rc;
}
