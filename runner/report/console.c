/*
 * console.c - the console report of `renacer check` on stderr: header, progress, verdict table.
 */
#include "console.h"
#include "internal.h"
#include "now.h"
#include "verdict.h"
#include "timing_gate.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "escape.h"
#include "exitcode.h"
#include "safefile.h"
#include "textfit.h"
#include "units.h"
#include "xalloc.h"

/*
 * Progress. On a terminal the line is redrawn in place: by each call, and every
 * TICK_MS by a ticker thread while a run goes on, so a long run shows its clock moving. The
 * ticker is started once, with every signal blocked (signals stay with the thread that runs
 * the targets), and only draws while a line is open; `progress_lock` orders its writes with
 * the caller's.
 */
#define TICK_MS 250
static pthread_mutex_t progress_lock = PTHREAD_MUTEX_INITIALIZER;
static bool progress_open;           /* a TTY line is on screen */
static bool ticker_started;          /* the ticker thread runs */
static char progress_text[512];      /* the current line without its times */
static unsigned progress_step;       /* step of progress_text */
static unsigned progress_nsteps;     /* steps of the unit */
static uint64_t progress_t0_ns;      /* the first progress line of this process */
static uint64_t progress_unit_ns;    /* step 0 of the current unit (a target's runs) */
static uint64_t progress_step_ns;    /* start of the current step */
static bool progress_logged;         /* a unit is under way in a CI log (not a TTY) */
static unsigned progress_steps_done; /* steps of that unit begun so far */

void rn_report_header(bool color, const char *config, size_t ntargets, size_t nassertions)
{
	struct rn_buf b, t;

	rn_buf_init(&b, 0);
	rn_buf_init(&t, 0);
	rn_buf_addf(&b, "%srenacer check%s: ", color ? "\033[1m" : "", color ? "\033[0m" : "");
	rn_buf_addf(&t, "%s (%zu target%s, %zu assertion%s)", config, ntargets,
		    ntargets == 1 ? "" : "s", nassertions, nassertions == 1 ? "" : "s");
	rn_text_wrap(&b, t.buf, (size_t)rn_term_width() - 14, 4);
	rn_buf_addc(&b, '\n');
	rn_write_stderr(b.buf, b.len);
	rn_buf_release(&t);
	rn_buf_release(&b);
}

/* The TTY line for `now`: text, elapsed time, the unit's time left; lock held. */
static void draw_tty(uint64_t now)
{
	struct rn_buf b, text;
	double elapsed_s = (double)(now - progress_t0_ns) / 1e9;
	double unit_s = (double)(now - progress_unit_ns) / 1e9;

	rn_buf_init(&text, 0);
	rn_buf_addf(&text, "%s  %.1f s elapsed", progress_text, elapsed_s);
	/* The estimate: every step at the mean pace of those done, less the time spent. */
	if (progress_step && progress_nsteps > progress_step) {
		double mean = (double)(progress_step_ns - progress_unit_ns) / 1e9 / progress_step;
		double left = mean * progress_nsteps - unit_s;

		rn_buf_addf(&text, ", ~%.1f s left", left > 0 ? left : 0.0);
	}
	rn_buf_init(&b, 0);
	rn_buf_addc(&b, '\r');
	rn_text_shorten(&b, text.buf, (size_t)rn_term_width() - 1);
	rn_buf_adds(&b, "\033[K");
	rn_write_stderr(b.buf, b.len);
	rn_buf_release(&b);
	rn_buf_release(&text);
}

static void *ticker_main(void *arg)
{
	struct timespec tick = { 0, TICK_MS * 1000000L };

	(void)arg;
	for (;;) {
		nanosleep(&tick, NULL);
		pthread_mutex_lock(&progress_lock);
		if (progress_open)
			draw_tty(rn_mono_ns());
		pthread_mutex_unlock(&progress_lock);
	}
	return NULL;
}

/* Start the ticker once, every signal blocked in it; without it the line moves per step. */
static void start_ticker(void)
{
	sigset_t all, old;
	pthread_t th;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (!pthread_create(&th, NULL, ticker_main, NULL)) {
		pthread_detach(th);
		ticker_started = true;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void rn_report_progress(bool color, unsigned step, unsigned nsteps, const char *fmt, ...)
{
	va_list ap;
	uint64_t now = rn_mono_ns();
	bool tty = isatty(2);

	(void)color;
	pthread_mutex_lock(&progress_lock);
	if (!progress_t0_ns)
		progress_t0_ns = now;
	if (!progress_unit_ns || (!step && !progress_logged && !progress_open))
		progress_unit_ns = now;
	progress_step = step;
	progress_nsteps = nsteps;
	progress_step_ns = now;
	va_start(ap, fmt);
	vsnprintf(progress_text, sizeof(progress_text), fmt, ap);
	va_end(ap);
	if (tty) {
		draw_tty(now);
		progress_open = true;
	} else {
		/* A CI log: nothing per step; rn_report_progress_done() writes the unit's line. */
		progress_logged = true;
		progress_steps_done++;
	}
	pthread_mutex_unlock(&progress_lock);
	if (tty && !ticker_started)
		start_ticker();
}

void rn_report_progress_done(const char *line)
{
	uint64_t now = rn_mono_ns();

	pthread_mutex_lock(&progress_lock);
	if (progress_open)
		rn_write_stderr("\r\033[K", 4);
	if (progress_logged) {
		/* one line per unit in a CI log: its label, its steps and its time */
		struct rn_buf b, text;
		const char *colon = strstr(progress_text, ": ");
		size_t label = colon ? (size_t)(colon - progress_text) : strlen(progress_text);

		rn_buf_init(&text, 0);
		if (line) {
			rn_buf_adds(&text, line);
		} else {
			rn_buf_add(&text, progress_text, label);
			rn_buf_addf(&text, ": %u %s", progress_steps_done,
				    rn_plural(progress_steps_done, "run"));
		}
		rn_buf_addf(&text, " in %.1f s (%.1f s elapsed)",
			    (double)(now - progress_unit_ns) / 1e9,
			    (double)(now - progress_t0_ns) / 1e9);
		rn_buf_init(&b, 0);
		rn_text_wrap(&b, text.buf, (size_t)rn_term_width(), 4);
		rn_buf_addc(&b, '\n');
		rn_write_stderr(b.buf, b.len);
		rn_buf_release(&b);
		rn_buf_release(&text);
	}
	progress_open = false;
	progress_logged = false;
	progress_steps_done = 0;
	progress_unit_ns = 0;
	pthread_mutex_unlock(&progress_lock);
}

static const char *verdict_color(enum rn_verdict v)
{
	switch (v) {
	case RN_VERDICT_PASS:
		return "\033[32m";
	case RN_VERDICT_FAIL:
	case RN_VERDICT_ERROR:
	case RN_VERDICT_NO_DATA:
		return "\033[1;31m";
	case RN_VERDICT_WARN:
	case RN_VERDICT_NOT_JUDGED:
		return "\033[33m";
	default:
		return "\033[2m";
	}
}

/* Format a value in its unit for the table. `exact` (--wide): ms with 3 decimals, bytes in
 * bytes; otherwise in human units (units.h: us/ms/s, KiB/MiB/GiB, counts with their noun). */
static void fmt_value(char *out, size_t size, bool has, double v, const char *unit, bool exact)
{
	if (!has) {
		snprintf(out, size, "-");
		return;
	}
	if (!unit)
		unit = "";
	if (exact && !strcmp(unit, "ms"))
		snprintf(out, size, "%.3f ms", v);
	else if (exact && !strcmp(unit, "bytes"))
		snprintf(out, size, "%.0f B", v);
	else
		rn_fmt_value(out, size, v, unit);
}

/* The REASON column of the console table: v->reason, else the message ("critical path 236 ms
 * (median of 5 runs) > budget 71.8 ms ..."), else the aggregate. Borrowed, never NULL. */
static const char *rn_report_reason(const struct rn_verdict_result *v)
{
	if (v->reason && *v->reason)
		return v->reason;
	if (v->message && *v->message)
		return v->message;
	return v->aggregate ? v->aggregate : "";
}

static const char *exit_meaning(int code)
{
	const char *m = rn_exit_meaning(code);

	return m ? m : "unknown";
}

/* Lines printed above the table (rn_report_console_header), owned; one check per process. */
#define HEADER_LINES_MAX 8
static char *header_lines[HEADER_LINES_MAX];
static size_t nheader_lines;

void rn_report_console_header(const char *line)
{
	if (nheader_lines < HEADER_LINES_MAX)
		header_lines[nheader_lines++] = rn_escaped_dup(line);
}

/* Columns of the table (enum col): a header and a meaning each, the same on every row. */
enum col {
	COL_TARGET,   /* target name */
	COL_NAME,     /* assertion name, golden:<metric> or baseline:<metric> */
	COL_VERDICT,  /* the verdict's label */
	COL_MEASURED, /* the value measured on this run (head, under --baseline) */
	COL_LIMIT,    /* the value past which the row fails: a budget, the golden value plus its
		       * tolerance, the base median plus --baseline-tolerance */
	COL_GOLDEN,   /* golden rows: the golden trace's value (--wide) */
	COL_BASE,     /* baseline rows: the base side's value (--wide) */
	COL_CHANGE,   /* MEASURED against the reference (golden or base), percent */
	COL_REASON,   /* why this verdict, shortened (default) or wrapped (--wide) */
	NCOLS
};

static const char *const col_header[NCOLS] = { "TARGET",   "ASSERTION", "VERDICT",
					       "MEASURED", "LIMIT",     "GOLDEN",
					       "BASE",     "CHANGE",    "REASON" };
/* Widest TARGET in the default layout (ASSERTION is as wide as its longest name), the longest
 * assertion name never cut to keep REASON on the row, then the narrowest they shrink to when
 * the terminal is narrow; REASON gets what is left, at least REASON_MIN or a line of its own. */
#define TARGET_MAX 16
#define NAME_KEEP 26
#define NAME_SHRINK 12
#define REASON_MIN 24

/* One table row's cells, escaped, owned. */
struct row {
	char *cell[NCOLS];
	enum rn_verdict verdict;
};

static bool is_baseline_row(const struct rn_verdict_result *v)
{
	return v->type && !strcmp(v->type, "baseline");
}

static void fill_row(struct row *r, const char *target, const struct rn_verdict_result *v,
		     bool exact)
{
	char buf[64];
	bool base = is_baseline_row(v);

	r->verdict = v->verdict;
	r->cell[COL_TARGET] = rn_escaped_dup(target);
	r->cell[COL_NAME] = rn_escaped_dup(v->assertion ? v->assertion : "");
	r->cell[COL_VERDICT] = rn_xstrdup(rn_verdict_label(v->verdict));
	fmt_value(buf, sizeof(buf), v->has_observed, v->observed, v->unit, exact);
	r->cell[COL_MEASURED] = rn_xstrdup(buf);
	fmt_value(buf, sizeof(buf), v->has_budget, v->budget, v->unit, exact);
	r->cell[COL_LIMIT] = rn_xstrdup(buf);
	/* A baseline row keeps the base median in the verdict's golden field: BASE, not GOLDEN. */
	fmt_value(buf, sizeof(buf), v->has_golden && !base, v->golden, v->unit, exact);
	r->cell[COL_GOLDEN] = rn_xstrdup(buf);
	fmt_value(buf, sizeof(buf), v->has_golden && base, v->golden, v->unit, exact);
	r->cell[COL_BASE] = rn_xstrdup(buf);
	if (v->has_observed && v->has_golden && isfinite(v->delta_pct))
		snprintf(buf, sizeof(buf), "%+.1f%%", v->delta_pct);
	else
		snprintf(buf, sizeof(buf), "-");
	r->cell[COL_CHANGE] = rn_xstrdup(buf);
	r->cell[COL_REASON] = rn_escaped_dup(rn_report_reason(v));
}

static void release_row(struct row *r)
{
	size_t c;

	for (c = 0; c < NCOLS; c++)
		free(r->cell[c]);
}

/* Pad `b` with spaces to `n` columns after writing `w` of them. */
static void pad(struct rn_buf *b, size_t w, size_t n)
{
	for (; w < n; w++)
		rn_buf_addc(b, ' ');
}

/* Shrink column `c` (TARGET or ASSERTION), no narrower than `floor_w` or its header, until
 * the row's `fixed` columns fit `width`; only when `on`. */
static void shrink_name(size_t *w, size_t c, size_t *fixed, size_t width, size_t floor_w, bool on)
{
	size_t lo = strlen(col_header[c]) > floor_w ? strlen(col_header[c]) : floor_w;

	while (on && *fixed > width && w[c] > lo) {
		w[c]--;
		(*fixed)--;
	}
}

/* Where the table's columns go: the column model console_table prints from. */
struct table_layout {
	size_t w[NCOLS];   /* column widths, in terminal columns */
	bool shown[NCOLS]; /* the columns printed */
	bool own_line;     /* REASON goes on a line of its own under each row */
	size_t reason_at;  /* REASON's first column */
	size_t reason_w;   /* REASON's width */
	size_t name_keep;  /* the longest assertion name of at most NAME_KEEP columns */
};

/* Drop trailing blanks written after offset `start` of `b`. */
static void trim_blanks(struct rn_buf *b, size_t start)
{
	while (b->len > start && b->buf[b->len - 1] == ' ')
		b->buf[--b->len] = '\0';
}

/* The widths the cells want (TARGET capped unless `wide`); returns the columns the row takes
 * before REASON. */
static size_t natural_widths(struct table_layout *l, bool wide, const struct row *rows,
			     size_t nrows)
{
	size_t c, i, fixed = 0;

	for (c = 0; c < NCOLS; c++) {
		l->w[c] = strlen(col_header[c]);
		l->shown[c] = wide || (c != COL_GOLDEN && c != COL_BASE);
	}
	l->name_keep = 0;
	for (i = 0; i < nrows; i++)
		for (c = 0; c < COL_REASON; c++) {
			size_t cw = rn_text_width(rows[i].cell[c], strlen(rows[i].cell[c]));

			l->w[c] = cw > l->w[c] ? cw : l->w[c];
			if (c == COL_NAME && cw <= NAME_KEEP && cw > l->name_keep)
				l->name_keep = cw;
		}
	if (!wide)
		l->w[COL_TARGET] = l->w[COL_TARGET] < TARGET_MAX ? l->w[COL_TARGET] : TARGET_MAX;
	for (c = 0; c < COL_REASON; c++)
		fixed += l->shown[c] ? l->w[c] + 1 : 0;
	return fixed + 1; /* two spaces before REASON */
}

/* Fit the row, `fixed` columns wide before REASON, into `width` (not when `wide`). An assertion
 * name is what a reader looks for, so ASSERTION is the last column to give way. */
static void fit_width(struct table_layout *l, size_t fixed, bool wide, size_t width)
{
	size_t target_w = l->w[COL_TARGET], name_w = l->w[COL_NAME];
	bool narrow;

	/* A narrow terminal: before REASON loses its room, TARGET shrinks to NAME_SHRINK and
	 * ASSERTION to the longest name of at most NAME_KEEP columns, which stays whole (a
	 * longer one is cut in any case). */
	shrink_name(l->w, COL_TARGET, &fixed, width - REASON_MIN, NAME_SHRINK,
		    !wide && width > REASON_MIN);
	shrink_name(l->w, COL_NAME, &fixed, width - REASON_MIN,
		    l->name_keep > NAME_SHRINK ? l->name_keep : NAME_SHRINK,
		    !wide && width > REASON_MIN);
	l->own_line = fixed + REASON_MIN > width;
	/* Narrower still: REASON goes on a line of its own under the row, so the names get their
	 * room back as far as the row fits; then TARGET down to NAME_SHRINK, CHANGE goes,
	 * ASSERTION down to NAME_SHRINK, both down to their headers' width, LIMIT goes (the
	 * messages below the table keep both values and the whole name). */
	if (l->own_line) {
		fixed += target_w - l->w[COL_TARGET] + name_w - l->w[COL_NAME];
		l->w[COL_TARGET] = target_w;
		l->w[COL_NAME] = name_w;
	}
	narrow = !wide && l->own_line;
	shrink_name(l->w, COL_TARGET, &fixed, width, NAME_SHRINK, narrow);
	if (narrow && fixed > width) {
		l->shown[COL_CHANGE] = false;
		fixed -= l->w[COL_CHANGE] + 1;
	}
	shrink_name(l->w, COL_NAME, &fixed, width, NAME_SHRINK, narrow);
	shrink_name(l->w, COL_TARGET, &fixed, width, 0, narrow);
	shrink_name(l->w, COL_NAME, &fixed, width, 0, narrow);
	if (narrow && fixed > width) {
		l->shown[COL_LIMIT] = false;
		fixed -= l->w[COL_LIMIT] + 1;
	}
	l->reason_at = l->own_line ? 4 : fixed;
	l->reason_w = width > l->reason_at ? width - l->reason_at : 1;
}

static void print_header(struct rn_buf *b, const struct table_layout *l, const char *bold,
			 const char *reset)
{
	size_t c;

	rn_buf_addc(b, '\n');
	rn_buf_adds(b, bold);
	for (c = 0; c < COL_REASON; c++) {
		if (!l->shown[c])
			continue;
		if (c >= COL_MEASURED) {
			pad(b, strlen(col_header[c]), l->w[c]);
			rn_buf_adds(b, col_header[c]);
		} else {
			rn_buf_adds(b, col_header[c]);
			pad(b, strlen(col_header[c]), l->w[c]);
		}
		rn_buf_adds(b, c + 1 == COL_REASON ? "  " : " ");
	}
	if (l->own_line) {
		trim_blanks(b, 0);
		rn_buf_adds(b, reset);
		rn_buf_adds(b, "\n    ");
		rn_buf_adds(b, bold);
	}
	rn_buf_adds(b, col_header[COL_REASON]);
	rn_buf_adds(b, reset);
	rn_buf_addc(b, '\n');
}

/* One cell of row `r`: numbers right-aligned, words shortened to the column (an assertion name
 * in its middle, so its metric or span at the end stays). */
static void print_cell(struct rn_buf *b, const struct table_layout *l, const struct row *r,
		       size_t c)
{
	if (c >= COL_MEASURED) {
		pad(b, rn_text_width(r->cell[c], strlen(r->cell[c])), l->w[c]);
		rn_buf_adds(b, r->cell[c]);
	} else {
		size_t at = b->len;

		if (c == COL_NAME)
			rn_text_shorten_middle(b, r->cell[c], l->w[c]);
		else
			rn_text_shorten(b, r->cell[c], l->w[c]);
		pad(b, rn_text_width(b->buf + at, b->len - at), l->w[c]);
	}
}

static void print_row(struct rn_buf *b, const struct table_layout *l, const struct row *r,
		      bool color, bool wide)
{
	const char *reset = color ? "\033[0m" : "";
	size_t c, start = b->len;

	for (c = 0; c < COL_REASON; c++) {
		if (!l->shown[c])
			continue;
		if (c == COL_VERDICT && color)
			rn_buf_adds(b, verdict_color(r->verdict));
		print_cell(b, l, r, c);
		if (c == COL_VERDICT && color)
			rn_buf_adds(b, reset);
		rn_buf_adds(b, c + 1 == COL_REASON ? "  " : " ");
	}
	if (l->own_line) {
		trim_blanks(b, start);
		rn_buf_adds(b, "\n    ");
	}
	if (wide)
		rn_text_wrap(b, r->cell[COL_REASON], l->reason_w, l->reason_at);
	else
		rn_text_shorten(b, r->cell[COL_REASON], l->reason_w);
	/* No trailing blanks when REASON is empty. */
	trim_blanks(b, start);
	rn_buf_addc(b, '\n');
}

/* The table. Default: one row per assertion in `width` columns, ASSERTION as wide as its longest
 * name where the row fits, names and REASON shortened with an ellipsis where they must; --wide: every column, names whole, REASON wrapped under its column. */
static void console_table(struct rn_buf *b, bool color, bool wide, size_t width,
			  const struct row *rows, size_t nrows)
{
	struct table_layout l;
	size_t i;

	fit_width(&l, natural_widths(&l, wide, rows, nrows), wide, width);
	print_header(b, &l, color ? "\033[1m" : "", color ? "\033[0m" : "");
	for (i = 0; i < nrows; i++)
		print_row(b, &l, &rows[i], color, wide);
}

/*
 * Warnings with one cause. Rows that are WARN for the same REASON and, where their message
 * names it after ", but ", the same circumstance (golden traces recorded on another machine:
 * "advisory: conditions differ", "... but recorded on another machine (kernel A, here B);")
 * are said once above the table instead of once per row.
 */
#define CAUSES_MAX 8
struct cause {
	const char *reason; /* the rows' shared REASON (borrowed) */
	char *why;          /* the circumstance their messages name, owned, or NULL */
	size_t rows;        /* rows that share it */
};

/* The circumstance a WARN message names after ", but " up to the next ';' (owned), or NULL. */
static char *message_why(const char *msg)
{
	const char *p = msg ? strstr(msg, ", but ") : NULL, *end;

	if (!p)
		return NULL;
	p += 6;
	end = strchr(p, ';');
	return end ? rn_xstrndup(p, (size_t)(end - p)) : rn_xstrdup(p);
}

static bool same_text(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* The cause group of warning `v` in `c[0..n)`, or -1. */
static int cause_of(const struct cause *c, size_t n, const struct rn_verdict_result *v)
{
	char *why;
	size_t i;
	int found = -1;

	if (v->verdict != RN_VERDICT_WARN || !v->reason || !*v->reason)
		return -1;
	why = message_why(v->message);
	for (i = 0; i < n && found < 0; i++)
		if (!strcmp(c[i].reason, v->reason) && same_text(c[i].why, why))
			found = (int)i;
	free(why);
	return found;
}

/* Group the WARN rows of `t` by cause; only causes of 2 rows or more count. */
static size_t find_causes(const struct rn_target_report *t, size_t n, struct cause *c)
{
	size_t i, k, nc = 0, kept = 0;

	for (i = 0; i < n; i++)
		for (k = 0; k < t[i].nverdicts; k++) {
			const struct rn_verdict_result *v = &t[i].verdicts[k];
			int at;

			if (v->verdict != RN_VERDICT_WARN || !v->reason || !*v->reason)
				continue;
			at = cause_of(c, nc, v);
			if (at >= 0) {
				c[at].rows++;
			} else if (nc < CAUSES_MAX) {
				c[nc].reason = v->reason;
				c[nc].why = message_why(v->message);
				c[nc++].rows = 1;
			}
		}
	for (i = 0; i < nc; i++) {
		if (c[i].rows < 2) {
			free(c[i].why);
			continue;
		}
		c[kept++] = c[i];
	}
	return kept;
}

/* One "note:" paragraph per shared cause, above the table. */
static void cause_notes(struct rn_buf *b, bool color, size_t width, const struct cause *c,
			size_t nc)
{
	const char *bold = color ? "\033[1m" : "", *reset = color ? "\033[0m" : "";
	struct rn_buf line;
	size_t i;

	rn_buf_init(&line, 0);
	for (i = 0; i < nc; i++) {
		/* a cause whose rows give no reason beyond their label has no `why` */
		char *reason = rn_escaped_dup(c[i].reason);
		char *why = c[i].why ? rn_escaped_dup(c[i].why) : NULL;

		rn_buf_reset(&line);
		rn_buf_addf(&line, "%zu rows are WARN for one cause: %s%s%s%s", c[i].rows,
			    c[i].why ? why : reason, c[i].why ? " (" : "", c[i].why ? reason : "",
			    c[i].why ? ")" : "");
		if (!strncmp(c[i].reason, "advisory", 8))
			rn_buf_adds(&line,
				    "; golden traces recorded here (renacer golden update) "
				    "or check --baseline gate them");
		rn_buf_addf(b, "%snote:%s ", bold, reset);
		rn_text_wrap(b, line.buf, width - 6, 4);
		rn_buf_addc(b, '\n');
		free(why);
		free(reason);
	}
	rn_buf_release(&line);
}

/* The message of a non-passing row under the table, wrapped; its detail (the statistics) too
 * when `with_detail`. */
static void row_message(struct rn_buf *b, bool color, size_t width, const char *target,
			const struct rn_verdict_result *v, bool with_detail)
{
	const char *reset = color ? "\033[0m" : "", *label = rn_verdict_label(v->verdict);
	char *aname = rn_escaped_dup(v->assertion);
	char *msg = rn_escaped_dup(v->message ? v->message : "");
	char *tname = rn_escaped_dup(target);
	struct rn_buf line;

	rn_buf_init(&line, 0);
	rn_buf_addf(&line, "%s/%s: %s", tname, aname, msg);
	/* The label is colored after wrapping, so widths count only the text. A row shown
	 * without its detail is one line (its message shortened; --verbose has it whole). */
	rn_buf_addf(b, "%s%s%s%s ", with_detail ? "\n" : "", color ? verdict_color(v->verdict) : "",
		    label, reset);
	if (with_detail)
		rn_text_wrap(b, line.buf, width - strlen(label) - 1, 4);
	else
		rn_text_shorten(b, line.buf, width - strlen(label) - 1);
	rn_buf_addc(b, '\n');
	rn_buf_release(&line);
	free(tname);
	free(aname);
	free(msg);
	if (!with_detail || !v->detail)
		return;
	for (const char *p = v->detail; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char *dl = rn_xstrndup(p, len), *esc = rn_escaped_dup(dl);

		rn_buf_adds(b, "    ");
		rn_text_wrap(b, esc, width - 6, 6);
		rn_buf_addc(b, '\n');
		free(esc);
		free(dl);
		p += len + (nl ? 1 : 0);
	}
}

/* " 3 passed, 1 failed" ...: the counts that are not zero, in the table's order. */
static void result_counts(struct rn_buf *b, const struct rn_target_report *t, size_t n)
{
	static const struct {
		enum rn_verdict v;
		const char *one, *many;
	} words[] = {
		{ RN_VERDICT_FAIL, "failed", "failed" },
		{ RN_VERDICT_ERROR, "error", "errors" },
		{ RN_VERDICT_NO_DATA, "no data", "no data" },
		{ RN_VERDICT_WARN, "warning", "warnings" },
		{ RN_VERDICT_NOT_JUDGED, "not judged", "not judged" },
		{ RN_VERDICT_PASS, "passed", "passed" },
		{ RN_VERDICT_SKIP, "skipped", "skipped" },
	};
	size_t i, c, shown = 0;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		c = rn_report_count(t, n, words[i].v);
		if (!c)
			continue;
		rn_buf_addf(b, "%s%zu %s", shown++ ? ", " : "", c,
			    c == 1 ? words[i].one : words[i].many);
	}
	if (!shown)
		rn_buf_adds(b, "nothing judged");
}

/* The lines rn_report_console_header queued, wrapped to `width`; the queue is emptied. */
static void add_header_lines(struct rn_buf *b, size_t width)
{
	size_t i;

	for (i = 0; i < nheader_lines; i++) {
		rn_text_wrap(b, header_lines[i], width, 2);
		rn_buf_addc(b, '\n');
		free(header_lines[i]);
		header_lines[i] = NULL;
	}
	nheader_lines = 0;
}

/* The table of every verdict of the n targets of t. */
static void add_table(struct rn_buf *b, bool color, bool wide, size_t width,
		      const struct rn_target_report *t, size_t n)
{
	struct row *rows = NULL;
	size_t i, k, nrows = 0, cap = 0;

	for (i = 0; i < n; i++)
		for (k = 0; k < t[i].nverdicts; k++) {
			rows = rn_xgrow(rows, &cap, nrows + 1, sizeof(*rows));
			fill_row(&rows[nrows++], t[i].result->name, &t[i].verdicts[k], wide);
		}
	console_table(b, color, wide, width, rows, nrows);
	for (i = 0; i < nrows; i++)
		release_row(&rows[i]);
	free(rows);
}

/*
 * Below the table: what failed, with its statistics, so the failure says what grew and
 * by how much; the other non-passing rows' messages without their statistics (those come
 * with --verbose), except warnings already said once above the table.
 */
static void add_messages(struct rn_buf *b, bool color, bool verbose, size_t width,
			 const struct rn_target_report *t, size_t n, const struct cause *causes,
			 size_t ncauses)
{
	size_t i, k, short_rows = 0;
	bool detail;

	for (i = 0; i < n; i++) {
		for (k = 0; k < t[i].nverdicts; k++) {
			const struct rn_verdict_result *v = &t[i].verdicts[k];
			bool calibrate = v->type && !strcmp(v->type, "calibrate");
			bool failing = v->verdict == RN_VERDICT_FAIL ||
				v->verdict == RN_VERDICT_ERROR || v->verdict == RN_VERDICT_NO_DATA;
			/* a row that did not fail but was explained (a golden timing row WARN
			 * that leans to a slowdown, runner/check/profile_check.h): its detail
			 * holds the explanation, shown as a failing row's */
			bool explained = t[i].explain && t[i].explain->assertion && v->assertion &&
				!strcmp(t[i].explain->assertion, v->assertion);

			/* calibrate's rows are what it measured: shown whole whatever the verdict */
			if ((v->verdict == RN_VERDICT_PASS && !calibrate) ||
			    v->verdict == RN_VERDICT_SKIP)
				continue;
			if (!verbose && !failing && !calibrate && !explained &&
			    cause_of(causes, ncauses, v) >= 0)
				continue;
			detail = verbose || failing || calibrate || explained;
			/* one blank line between blocks; the one-line rows stand together */
			if (!detail && !short_rows++)
				rn_buf_addc(b, '\n');
			row_message(b, color, width, t[i].result->name, v, detail);
		}
	}
}

/* One "note:" paragraph of `text`, wrapped to `width`. */
static void add_note(struct rn_buf *b, const char *bold, const char *reset, size_t width,
		     const char *text)
{
	rn_buf_addf(b, "%snote:%s ", bold, reset);
	rn_text_wrap(b, text, width - 6, 4);
	rn_buf_addc(b, '\n');
}

/* The result line, then the notes on what the gate did not judge. */
static void add_result(struct rn_buf *b, const char *bold, const char *reset, size_t width,
		       const struct rn_target_report *t, size_t n, int exit_code)
{
	size_t i, not_judged = rn_report_count(t, n, RN_VERDICT_NOT_JUDGED);
	struct rn_buf line;

	rn_buf_init(&line, 0);
	result_counts(&line, t, n);
	rn_buf_addf(&line, "; exit %d (%s)", exit_code, exit_meaning(exit_code));
	rn_buf_addf(b, "\n%sresult:%s ", bold, reset);
	rn_text_wrap(b, line.buf, width - 8, 4);
	rn_buf_addc(b, '\n');
	/* A target that ran with nothing to judge it adds no row: say so, or a config whose golden
	 * traces were never recorded reads as a clean pass. */
	for (i = 0; i < n; i++) {
		char *name;

		if (t[i].nverdicts || !t[i].result)
			continue;
		name = rn_escaped_dup(t[i].result->name);
		rn_buf_reset(&line);
		rn_buf_addf(&line,
			    "target '%s' was run but nothing judged it: no assertion applies to it "
			    "and no golden trace was compared (renacer golden update records one)",
			    name);
		add_note(b, bold, reset, width, line.buf);
		free(name);
	}
	if (not_judged) {
		rn_buf_reset(&line);
		rn_buf_addf(&line,
			    "%zu metric%s not judged: this gate covered only the judged ones (the "
			    "messages above say what to change; [regression] not_judged = \"fail\" "
			    "makes them block)",
			    not_judged, not_judged == 1 ? " was" : "s were");
		add_note(b, bold, reset, width, line.buf);
	}
	rn_buf_release(&line);
}

void rn_report_console(bool color, bool wide, bool verbose, const struct rn_outcome *oc)
{
	const struct rn_target_report *t = oc->reports;
	size_t n = oc->ntargets;
	int exit_code = oc->exit_code;
	const char *bold = color ? "\033[1m" : "", *reset = color ? "\033[0m" : "";
	size_t width = (size_t)rn_term_width();
	struct rn_timing_gate gate;
	struct cause causes[CAUSES_MAX];
	char gate_line[512];
	size_t i, ncauses;
	struct rn_buf b;

	/* the timing gate statement opens the report (timing_gate.h) */
	rn_timing_gate(t, n, &gate);
	if (rn_timing_gate_format(&gate, gate_line, sizeof(gate_line)))
		rn_report_console_header(gate_line);
	ncauses = verbose ? 0 : find_causes(t, n, causes);
	rn_buf_init(&b, 0);
	if (nheader_lines || ncauses)
		rn_buf_addc(&b, '\n');
	add_header_lines(&b, width);
	cause_notes(&b, color, width, causes, ncauses);
	add_table(&b, color, wide, width, t, n);
	add_messages(&b, color, verbose, width, t, n, causes, ncauses);
	for (i = 0; i < ncauses; i++)
		free(causes[i].why);
	add_result(&b, bold, reset, width, t, n, exit_code);
	rn_write_stderr(b.buf, b.len);
	rn_buf_release(&b);
}
