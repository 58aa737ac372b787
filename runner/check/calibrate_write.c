/*
 * calibrate_write.c - a target's baseline tolerance from its A/A pairs, written into
 * renacer.toml (calibrate_write.h).
 */
#include "calibrate_write.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "fingerprint.h"
#include "internal.h"
#include "log.h"
#include "safefile.h"
#include "stats.h"
#include "xalloc.h"

/* The row's name and the key it writes. */
#define ROW_WHAT "tolerance"
#define KEY "baseline_tolerance"
#define COMMENT "# derived from "

/* The time rows a same-job baseline judges (baseline.c judges the same four). */
static const enum rn_metric time_metrics[] = { RN_METRIC_WALL, RN_METRIC_CRITICAL_PATH,
					       RN_METRIC_CPU_TIME, RN_METRIC_GPU_BUSY };

/* The tolerance metric `m` needs (top of calibrate_write.h), fraction; NAN without samples. */
static double metric_need(const struct rn_target_result *head, const struct rn_target_result *base,
			  enum rn_metric m, const struct rn_seq_design *seq, size_t *pairs)
{
	size_t nh, nb, n, i, k;
	double *h = rn_target_result_samples(head, m, &nh);
	double *b = rn_target_result_samples(base, m, &nb);
	double *d, med, need = -INFINITY;
	struct rn_walsh_ci ci;

	n = nh < nb ? nh : nb;
	*pairs = n;
	if (!n) {
		free(h);
		free(b);
		return NAN;
	}
	d = rn_xcalloc(n, sizeof(*d));
	for (i = 0; i < n; i++)
		d[i] = h[i] - b[i];
	med = rn_stats_median(b, n);
	/* every look before the last: none may FAIL */
	for (k = seq->first; k && k < n; k = rn_seq_next(seq, k)) {
		rn_stats_walsh_ci(d, k, rn_seq_alpha(seq, k), &ci);
		if (ci.k && ci.lower > need)
			need = ci.lower;
	}
	/* the last look, at every pair measured: it must PASS */
	rn_stats_walsh_ci(d, n, rn_seq_alpha(seq, n), &ci);
	if (!ci.k)
		need = INFINITY;
	else if (ci.upper > need)
		need = ci.upper;
	free(d);
	free(h);
	free(b);
	return med > 0 ? need / med : NAN;
}

void rn_calibrate_tolerance_row(const struct rn_target_result *head,
				const struct rn_target_result *base,
				const struct rn_seq_design *seq, const char *name,
				struct rn_target_report *tv)
{
	struct rn_verdict_result *v;
	struct rn_buf msg;
	double tol = -INFINITY;
	size_t i, pairs = 0, np;

	rn_buf_init(&msg, 0);
	for (i = 0; i < sizeof(time_metrics) / sizeof(time_metrics[0]); i++) {
		double need;

		if (!rn_target_result_time_judged(head, time_metrics[i]))
			continue;
		need = metric_need(head, base, time_metrics[i], seq, &np);
		if (isnan(need))
			continue;
		rn_buf_addf(&msg, "%s%s %+.2f%%", msg.len ? ", " : "",
			    rn_metric_info(time_metrics[i])->name, need * 100.0);
		if (need > tol)
			tol = need;
		if (!pairs || np < pairs)
			pairs = np;
	}
	if (!isfinite(tol)) {
		v = rn_target_report_push_row(tv, "calibrate", name, ROW_WHAT, RN_VERDICT_NO_DATA);
		v->message = rn_xstrfmt("no tolerance: %s",
					msg.len ? "too few A/A pairs for an interval" :
						  "no time measured by the A/A pairs");
		rn_buf_release(&msg);
		return;
	}
	/* rounded up to 0.1%, at least 0.1% */
	tol = ceil(tol * 1000.0 - 1e-9) / 1000.0;
	if (tol < 0.001)
		tol = 0.001;
	if (tol > RN_BASELINE_TOLERANCE_MAX) {
		/* what no config takes is no tolerance: a machine this noisy cannot calibrate */
		v = rn_target_report_push_row(tv, "calibrate", name, ROW_WHAT, RN_VERDICT_WARN);
		v->has_observed = true;
		v->observed = tol * 100.0;
		v->unit = "%";
		v->message = rn_xstrfmt("not written: %zu A/A pairs need " KEY " = %.3f, beyond "
					"the most a config takes (%.0f); calibrate on a quieter "
					"machine (%s)",
					pairs, tol, RN_BASELINE_TOLERANCE_MAX, msg.buf);
		v->aggregate = rn_xstrfmt("%zu", pairs);
		rn_buf_release(&msg);
		return;
	}
	v = rn_target_report_push_row(tv, "calibrate", name, ROW_WHAT, RN_VERDICT_PASS);
	v->has_observed = true;
	v->observed = tol * 100.0;
	v->unit = "%";
	v->message = rn_xstrfmt(KEY " = %.3f: the smallest at which %zu A/A pairs never FAIL "
				    "and PASS at the last look (%s)",
				tol, pairs, msg.buf);
	v->aggregate = rn_xstrfmt("%zu", pairs);
	rn_buf_release(&msg);
}

/* The fingerprint summary of the comment: this machine's known fields that move times. */
static void add_fingerprint(struct rn_buf *b)
{
	static const enum rn_fingerprint_field fields[] = { RN_FP_CPU_MODEL, RN_FP_KERNEL,
							    RN_FP_GOVERNOR, RN_FP_SMT, RN_FP_VIRT };
	struct rn_fingerprint fp;
	size_t i, n = 0;

	rn_fingerprint_host(&fp, NULL);
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		const char *v = fp.field[fields[i]];

		if (!*v)
			continue;
		rn_buf_addf(b, "%s%s=%s", n++ ? ", " : "", rn_fingerprint_field_name(fields[i]), v);
	}
	if (!n)
		rn_buf_adds(b, "an unknown machine");
}

/* One line of the text: [p, p + len), without its newline. */
struct line {
	const char *p;
	size_t len;
};

/* The lines of `s` (a last line without newline included). Caller frees. */
static struct line *split(const char *s, size_t n, size_t *nl)
{
	struct line *l = NULL;
	size_t cap = 0, k = 0, i, start = 0;

	for (i = 0; i <= n; i++) {
		if (i < n && s[i] != '\n')
			continue;
		if (i == n && start == n)
			break;
		l = rn_xgrow(l, &cap, k + 1, sizeof(*l));
		l[k].p = s + start;
		l[k++].len = i - start;
		start = i + 1;
	}
	*nl = k;
	return l;
}

/* The line without leading blanks. */
static const char *lstrip(const struct line *l, size_t *len)
{
	size_t i = 0;

	while (i < l->len && (l->p[i] == ' ' || l->p[i] == '\t'))
		i++;
	*len = l->len - i;
	return l->p + i;
}

/* Does the line start with `word` (after blanks)? */
static bool starts(const struct line *l, const char *word)
{
	size_t len, w = strlen(word);
	const char *p = lstrip(l, &len);

	return len >= w && !memcmp(p, word, w);
}

/* Is the line the key `KEY = ...`? */
static bool key_line(const struct line *l)
{
	size_t len, w = strlen(KEY);
	const char *p = lstrip(l, &len);

	if (len <= w || memcmp(p, KEY, w))
		return false;
	for (p += w, len -= w; len && (*p == ' ' || *p == '\t'); p++, len--)
		;
	return len && *p == '=';
}

/*
 * Put `value_line` (with `comment` above it) into the table whose header is line `header`
 * (0-based) of `text`: over an existing key (and its derived-from comment), else after the
 * table's last key. The result replaces `text`.
 */
static void edit_table(struct rn_buf *text, size_t header, const char *comment,
		       const char *value_line)
{
	struct rn_buf out;
	size_t n, i, end, at, from, to;
	struct line *l = split(text->buf, text->len, &n);
	bool ends_nl = text->len && text->buf[text->len - 1] == '\n';

	for (end = header + 1; end < n && !starts(&l[end], "["); end++)
		;
	from = to = 0;
	for (i = header + 1; i < end; i++)
		if (key_line(&l[i]))
			break;
	if (i < end) {
		from = i;
		to = i + 1;
		if (from > header + 1 && starts(&l[from - 1], COMMENT))
			from--;
		at = from;
	} else {
		/* after the last line that is neither blank nor a comment */
		at = header + 1;
		for (i = header + 1; i < end; i++) {
			size_t len;
			const char *p = lstrip(&l[i], &len);

			if (len && *p != '#')
				at = i + 1;
		}
	}
	rn_buf_init(&out, 0);
	for (i = 0; i < n; i++) {
		if (i == at) {
			rn_buf_addf(&out, "%s\n%s\n", comment, value_line);
		}
		if (to > from && i >= from && i < to)
			continue;
		rn_buf_add(&out, l[i].p, l[i].len);
		if (i + 1 < n || ends_nl)
			rn_buf_addc(&out, '\n');
	}
	if (at >= n) {
		if (n && !ends_nl)
			rn_buf_addc(&out, '\n');
		rn_buf_addf(&out, "%s\n%s\n", comment, value_line);
	}
	free(l);
	rn_buf_release(text);
	*text = out;
}

/* The calibrate:tolerance row of `tv`, or NULL. */
static const struct rn_verdict_result *tolerance_row(const struct rn_target_report *tv)
{
	size_t k;

	for (k = 0; k < tv->nverdicts; k++)
		if (tv->verdicts[k].assertion &&
		    !strcmp(tv->verdicts[k].assertion, "calibrate:" ROW_WHAT) &&
		    tv->verdicts[k].verdict == RN_VERDICT_PASS)
			return &tv->verdicts[k];
	return NULL;
}

/* Order of edits: the lowest table last, so earlier edits never move a later one's line. */
struct edit {
	int line;                          /* 1-based line of the [[target]] header */
	const struct rn_verdict_result *v; /* its row */
};

static int by_line_desc(const void *a, const void *b)
{
	const struct edit *x = a, *y = b;

	return (x->line < y->line) - (x->line > y->line);
}

int rn_calibrate_write_config(const struct rn_config *cfg, const struct rn_target_report *tvs,
			      size_t n, bool quiet)
{
	struct edit *e = rn_xcalloc(n + 1, sizeof(*e));
	struct rn_buf text, fpb;
	size_t i, j, ne = 0;
	char date[16];
	time_t now = time(NULL);
	struct tm tm;
	int rc;

	for (i = 0; i < n; i++) {
		const struct rn_verdict_result *v = tolerance_row(&tvs[i]);
		const struct rn_target_cfg *tc = NULL;

		if (!v)
			continue;
		for (j = 0; j < cfg->ntargets; j++)
			if (!strcmp(cfg->targets[j].name, v->target))
				tc = &cfg->targets[j];
		if (!tc || tc->parent || tc->line <= 0) {
			rn_note("calibrate --write: '%s' has no [[target]] table of its own (a "
				"harness or [[suite]] expanded it, or the command line named it): "
				"its tolerance %.3f is not written",
				v->target, v->observed / 100.0);
			continue;
		}
		e[ne].line = tc->line;
		e[ne++].v = v;
	}
	if (!ne) {
		free(e);
		return 0;
	}
	qsort(e, ne, sizeof(*e), by_line_desc);
	gmtime_r(&now, &tm);
	strftime(date, sizeof(date), "%Y-%m-%d", &tm);
	rn_buf_init(&fpb, 0);
	add_fingerprint(&fpb);
	rn_buf_init(&text, 0);
	rn_buf_add(&text, cfg->src, cfg->src_len);
	for (i = 0; i < ne; i++) {
		char *comment =
			rn_xstrfmt(COMMENT "%s A/A pairs on %s, %s",
				   e[i].v->aggregate ? e[i].v->aggregate : "?", fpb.buf, date);
		char *value = rn_xstrfmt(KEY " = %.3f", e[i].v->observed / 100.0);
		size_t nl;
		struct line *l = split(text.buf, text.len, &nl);
		bool ok = (size_t)e[i].line <= nl && starts(&l[e[i].line - 1], "[[target]]");

		free(l);
		if (ok)
			edit_table(&text, (size_t)e[i].line - 1, comment, value);
		else
			rn_warn("calibrate --write: line %d of '%s' is not the [[target]] of '%s'; "
				"left as it is",
				e[i].line, cfg->path, e[i].v->target);
		free(comment);
		free(value);
	}
	rc = rn_buf_failed(&text) ? -ENOMEM : rn_write_file_atomic(cfg->path, text.buf, text.len);
	if (rc)
		rn_error("calibrate --write: cannot write '%s': %s", cfg->path,
			 rn_safefile_strerror(rc));
	else if (!quiet)
		fprintf(stderr,
			"renacer calibrate: wrote baseline_tolerance of %zu target%s into %s\n", ne,
			ne == 1 ? "" : "s", cfg->path);
	rn_buf_release(&text);
	rn_buf_release(&fpb);
	free(e);
	return rc;
}
