#include "diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "escape.h"
#include "xalloc.h"

void rn_diag_init(struct rn_diag *d, const char *file, const char *src, size_t src_len)
{
	memset(d, 0, sizeof(*d));
	d->file = file;
	d->src = src;
	d->src_len = src_len;
	d->max_errors = 1;
}

void rn_diag_collect(struct rn_diag *d, int max_errors)
{
	if (max_errors < 1)
		max_errors = 1;
	d->max_errors = max_errors > RN_DIAG_MAX_ERRORS ? RN_DIAG_MAX_ERRORS : max_errors;
}

bool rn_diag_full(const struct rn_diag *d)
{
	return d->max_errors > 1 && d->nerrors >= d->max_errors;
}

static void vset(struct rn_diag *d, int line, int col, const char *fmt, va_list ap)
{
	if (d->set) {
		struct rn_diag_more *m;

		if (d->max_errors <= 1)
			return;
		if (d->nerrors >= d->max_errors) {
			d->full = true;
			return;
		}
		m = &d->more[d->nerrors - 1];
		m->line = line;
		m->col = col;
		vsnprintf(m->msg, sizeof(m->msg), fmt, ap);
		d->nerrors++;
		return;
	}
	d->set = true;
	d->nerrors = 1;
	d->line = line;
	d->col = col;
	vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
	/* names and values quoted in the message must not start lines of their own */
	if (rn_has_ctl(d->msg)) {
		char raw[sizeof(d->msg)];

		memcpy(raw, d->msg, sizeof(raw));
		rn_escape_ctl(d->msg, sizeof(d->msg), raw);
	}
}

int rn_diag_set(struct rn_diag *d, int line, int col, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vset(d, line, col, fmt, ap);
	va_end(ap);
	return -1;
}

void rn_diag_position(const char *src, size_t len, size_t off, int *line, int *col)
{
	int l = 1, c = 1;
	size_t i;

	if (off > len)
		off = len;
	for (i = 0; i < off; i++) {
		unsigned char ch = (unsigned char)src[i];

		if (ch == '\n') {
			l++;
			c = 1;
		} else if ((ch & 0xC0) != 0x80) {
			c++; /* count code points: skip UTF-8 continuation bytes */
		}
	}
	*line = l;
	*col = c;
}

int rn_diag_set_at(struct rn_diag *d, size_t off, const char *fmt, ...)
{
	va_list ap;
	int line = 0, col = 0;

	if (d->src)
		rn_diag_position(d->src, d->src_len, off, &line, &col);
	va_start(ap, fmt);
	vset(d, line, col, fmt, ap);
	va_end(ap);
	return -1;
}

/* Find the start and length of 1-based line `line` in the source; false if absent. */
static bool find_line(const struct rn_diag *d, int line, const char **start, size_t *len)
{
	const char *p = d->src, *end;
	int l = 1;

	/* no source text (a diagnostic without it): NULL + 0 is undefined behaviour */
	if (!p || line < 1)
		return false;
	end = p + d->src_len;
	while (l < line) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		if (!nl)
			return false;
		p = nl + 1;
		l++;
	}
	*start = p;
	*len = 0;
	while (p + *len < end && p[*len] != '\n' && p[*len] != '\r')
		(*len)++;
	return true;
}

/* One error: the location line, then the source line and a caret when known. */
static void format_one(struct rn_buf *b, const struct rn_diag *d, int line, int col,
		       const char *msg, bool color)
{
	const char *file = d->file ? d->file : "<input>";
	const char *red = color ? "\033[1;31m" : "", *bold = color ? "\033[1m" : "";
	const char *reset = color ? "\033[0m" : "";
	const char *ls;
	size_t ll;

	if (line > 0)
		rn_buf_addf(b, "%s%s:%d:%d:%s %serror:%s %s\n", bold, file, line, col, reset, red,
			    reset, msg);
	else
		rn_buf_addf(b, "%s%s:%s %serror:%s %s\n", bold, file, reset, red, reset, msg);
	if (line > 0 && find_line(d, line, &ls, &ll)) {
		int i;
		size_t k;

		rn_buf_addf(b, "%5d | ", line);
		for (k = 0; k < ll; k++) {
			unsigned char ch = (unsigned char)ls[k];

			/* Show control characters as '?' so the caret stays aligned. */
			rn_buf_addc(b, (ch < 0x20 && ch != '\t') || ch == 0x7f ? '?' : (char)ch);
		}
		rn_buf_adds(b, "\n      | ");
		/* Align the caret: reproduce tabs, one space per code point otherwise. */
		for (i = 1, k = 0; i < col && k < ll; k++) {
			unsigned char ch = (unsigned char)ls[k];

			if ((ch & 0xC0) == 0x80)
				continue;
			rn_buf_addc(b, ch == '\t' ? '\t' : ' ');
			i++;
		}
		rn_buf_addf(b, "%s^%s\n", red, reset);
	}
}

char *rn_diag_format(const struct rn_diag *d, bool color)
{
	struct rn_diag_more first;
	const struct rn_diag_more *all[RN_DIAG_MAX_ERRORS];
	struct rn_buf b;
	char *s;
	int i, j, n = d->nerrors > 0 ? d->nerrors : 1;

	/* in the order of the file (insertion sort: at most RN_DIAG_MAX_ERRORS, stable) */
	first.line = d->line;
	first.col = d->col;
	memcpy(first.msg, d->msg, sizeof(first.msg));
	all[0] = &first;
	for (i = 1; i < n; i++) {
		const struct rn_diag_more *m = &d->more[i - 1];

		for (j = i; j > 0 &&
		     (all[j - 1]->line > m->line ||
		      (all[j - 1]->line == m->line && all[j - 1]->col > m->col));
		     j--)
			all[j] = all[j - 1];
		all[j] = m;
	}
	rn_buf_init(&b, 0);
	for (i = 0; i < n; i++)
		format_one(&b, d, all[i]->line, all[i]->col, all[i]->msg, color);
	if (d->nerrors > 1 || d->full)
		rn_buf_addf(&b, "%s: %d errors%s\n", d->file ? d->file : "<input>", d->nerrors,
			    d->full ? " (stopped there: fix these and run again)" : "");
	s = rn_buf_detach(&b, NULL);
	return s ? s : rn_xstrdup("renacer: error: out of memory formatting a diagnostic\n");
}

void rn_diag_print(const struct rn_diag *d, bool color)
{
	char *s = rn_diag_format(d, color);

	rn_write_stderr(s, strlen(s));
	free(s);
}

char *rn_diag_oneline(const struct rn_diag *d)
{
	struct rn_buf b;
	char *s;

	rn_buf_init(&b, 0);
	if (d->line > 0)
		rn_buf_addf(&b, "%s:%d:%d: error: %s", d->file ? d->file : "<input>", d->line,
			    d->col, d->msg);
	else
		rn_buf_addf(&b, "%s: error: %s", d->file ? d->file : "<input>", d->msg);
	s = rn_buf_detach(&b, NULL);
	return s ? s : rn_xstrdup(d->msg);
}

/* Optimal string alignment distance (Damerau-Levenshtein with adjacent transpositions). */
static size_t osa_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, r;
	size_t *d;

	if (la > 64 || lb > 64)
		return (size_t)-1;
	d = rn_xcalloc((la + 1) * (lb + 1), sizeof(*d));
#define D(x, y) d[(x) * (lb + 1) + (y)]
	for (i = 0; i <= la; i++)
		D(i, 0) = i;
	for (j = 0; j <= lb; j++)
		D(0, j) = j;
	for (i = 1; i <= la; i++) {
		for (j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
			size_t v = D(i - 1, j) + 1;

			if (D(i, j - 1) + 1 < v)
				v = D(i, j - 1) + 1;
			if (D(i - 1, j - 1) + cost < v)
				v = D(i - 1, j - 1) + cost;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    D(i - 2, j - 2) + 1 < v)
				v = D(i - 2, j - 2) + 1;
			D(i, j) = v;
		}
	}
	r = D(la, lb);
#undef D
	free(d);
	return r;
}

const char *rn_suggest(const char *word, const char *const *candidates)
{
	size_t best = (size_t)-1, limit = strlen(word) / 3;
	const char *pick = NULL;

	if (limit < 1)
		limit = 1;
	for (; *candidates; candidates++) {
		size_t dist = osa_distance(word, *candidates);

		if (dist < best) {
			best = dist;
			pick = *candidates;
		}
	}
	return best <= limit ? pick : NULL;
}
