/*
 * cmd_history.c - `renacer history`: list, show, changes, export, import, prune, quality.
 * The queries are runner/history/history.h's; this file parses and prints.
 */
#include "cmd_history.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "assertion.h"
#include "buf.h"
#include "changepoint.h"
#include "collector.h"
#include "config.h"
#include "csv.h"
#include "escape.h"
#include "exitcode.h"
#include "json_text.h"
#include "ledger.h"
#include "log.h"
#include "safefile.h"
#include "utf8.h"
#include "xalloc.h"

static const struct rn_option history_options[] = {
	{ RN_HO_DB, "db", 0, RN_OPT_REQUIRED, "URL",
	  "history store (default: $RENACER_HISTORY_URL, [history] url, .renacer/history.db)" },
	{ RN_HO_CONFIG, "config", 'c', RN_OPT_REQUIRED, "FILE",
	  "config whose [history] to use (default renacer.toml when present)" },
	{ RN_HO_LIMIT, "last", 'n', RN_OPT_REQUIRED, "N",
	  "list/show/changes/quality: only the last N runs (changes: default " RN_CFG_STR(
		  RN_HISTORY_CHANGES_RUNS) ")" },
	{ RN_HO_MACHINE, "machine", 0, RN_OPT_REQUIRED, "M",
	  "show/changes/export: only runs of this machine" },
	{ RN_HO_BRANCH, "branch", 0, RN_OPT_REQUIRED, "B",
	  "show/changes/export: only runs of this branch; import: record this branch" },
	{ RN_HO_TARGET, "target", 't', RN_OPT_REQUIRED, "NAME",
	  "export: only this target; import: record as this target" },
	{ RN_HO_METRIC, "metric", 'm', RN_OPT_REQUIRED, "NAME", "export: only this metric" },
	{ RN_HO_FORMAT, "format", 'f', RN_OPT_REQUIRED, "F",
	  "show: text, csv or json; changes: text or json; export: csv, json or history "
	  "(the whole store, which import reads)" },
	{ RN_HO_OUTPUT, "output", 'o', RN_OPT_REQUIRED, "FILE",
	  "export: write to FILE (atomically) instead of stdout" },
	{ RN_HO_COMMIT, "commit", 0, RN_OPT_REQUIRED, "ID", "import: record this commit" },
	{ RN_HO_OLDER_THAN, "older-than", 0, RN_OPT_REQUIRED, "DAYS",
	  "prune: delete runs older than DAYS days" },
	{ RN_HO_MIN_CHANGE, "min-change", 0, RN_OPT_REQUIRED, "PCT",
	  "changes: smallest change reported, percent of the median (default " RN_CFG_STR(
		  RN_CHANGEPOINT_MIN_CHANGE_PCT) ")" },
	{ RN_HO_ALPHA, "alpha", 0, RN_OPT_REQUIRED, "P",
	  "changes: largest Welch p-value of a change reported (default " RN_CFG_STR(
		  RN_CHANGEPOINT_ALPHA) ")" },
	{ RN_HO_HELP, "help", 'h', RN_OPT_NONE, NULL, "show this help" },
	{ 0, NULL, 0, RN_OPT_NONE, NULL, NULL },
};

const struct rn_command rn_cmd_history_def = {
	"history",
	"renacer history list|show TARGET METRIC|changes [TARGET [METRIC]]|export|import FILE...|prune --older-than DAYS|quality [TARGET]",
	"the history store: list recorded runs, show a metric's series, find change points, export, import, prune, gate quality",
	"A check records into the history store when renacer.toml has a [history] table (unless it\n"
	"says enabled = false), when $RENACER_HISTORY_URL is set, or with `renacer check --history`.\n"
	"The store is a SQLite file (default .renacer/history.db beside renacer.toml) or a\n"
	"PostgreSQL database (postgresql://user@host/db); renacer creates and migrates its schema.\n"
	"A failed write is a warning and never changes the verdict or the exit code.\n"
	"  list                       recorded runs, newest first\n"
	"  show TARGET METRIC         the metric's series (median, min, max over each run's samples)\n"
	"  changes [TARGET [METRIC]]  change points (E-Divisive, Welch t-test, advisory) per target,\n"
	"                             metric and machine: commit (or range of commits), medians\n"
	"                             before and after, their ratio, p-value; none under 2%\n"
	"  export                     every result with its samples as CSV or JSON; --format history:\n"
	"                             every run with all its rows (renacer-history/1)\n"
	"  import FILE...             renacer-history/1 exports (runs already in the store, by\n"
	"                             uid, are skipped), golden traces and renacer-json-v1 files\n"
	"  prune --older-than DAYS    delete older runs\n"
	"  quality [TARGET]           the gate-quality ledger per assertion: runs, FAIL rate, flips\n"
	"                             between re-runs of one commit (check --rerun-of), the false-\n"
	"                             alarm rate, noise, a suggested budget and its false-alarm rate\n"
	"Times are shown in ms, memory in bytes. Exit 0, 2 on usage errors, 6 when the store cannot\n"
	"be opened or written.",
	history_options,
};

static int parse_long_arg(const char *opt, const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return rn_error("--%s needs an integer between %ld and %ld, found '%s'", opt, min,
				max, s);
	*out = v;
	return 0;
}

static int on_option(void *ctx, int id, const char *arg)
{
	struct rn_hist_opts *o = ctx;

	switch (id) {
	case RN_HO_DB:
		o->db = arg;
		break;
	case RN_HO_CONFIG:
		o->config = arg;
		break;
	case RN_HO_LIMIT:
		return parse_long_arg("last", arg, 1, 100000000, &o->limit);
	case RN_HO_MACHINE:
		o->machine = arg;
		break;
	case RN_HO_BRANCH:
		o->branch = arg;
		break;
	case RN_HO_TARGET:
		o->target = arg;
		break;
	case RN_HO_METRIC:
		o->metric = arg;
		break;
	case RN_HO_FORMAT:
		o->format = arg;
		break;
	case RN_HO_OUTPUT:
		o->output = arg;
		break;
	case RN_HO_COMMIT:
		o->commit = arg;
		break;
	case RN_HO_OLDER_THAN:
		return parse_long_arg("older-than", arg, 0, 1000000, &o->older_than_days);
	case RN_HO_HTML:
		o->html = arg;
		break;
	case RN_HO_MARKDOWN:
		o->markdown = arg;
		break;
	case RN_HO_MIN_CHANGE:
	case RN_HO_ALPHA: {
		char *end;
		double v = strtod(arg, &end);

		if (end == arg || *end ||
		    !(id == RN_HO_ALPHA ? v > 0 && v < 1 : v >= 0 && v < 1000))
			return rn_error("--%s needs %s, found '%s'",
					id == RN_HO_ALPHA ? "alpha" : "min-change",
					id == RN_HO_ALPHA ? "a number in (0, 1)" :
							    "a percentage in [0, 1000)",
					arg);
		if (id == RN_HO_ALPHA)
			o->alpha = v;
		else
			o->min_change_pct = v;
		break;
	}
	case RN_HO_HELP:
		o->help = true;
		break;
	default:
		return rn_error("unhandled option %d", id);
	}
	return 0;
}

/* Options may come before, between and after operands. */
int rn_hist_parse(const struct rn_command *cmd, int argc, char **argv, struct rn_hist_opts *o)
{
	return rn_cli_parse_operands(cmd, argc, argv, on_option, o, o->operands, 64, &o->noperands);
}

/* The config named by --config, or renacer.toml when it exists; NULL when none. */
int rn_hist_load_config(const struct rn_hist_opts *o, struct rn_config *cfg, bool *have)
{
	const char *path = o->config ? o->config : "renacer.toml";
	struct rn_diag d;

	*have = false;
	if (!o->config && access(path, F_OK))
		return 0;
	if (rn_config_load(cfg, path, true, &d)) {
		rn_diag_print(&d, false);
		rn_config_release(cfg);
		return RN_EXIT_CONFIG;
	}
	*have = true;
	return 0;
}

/* Open the store; with `empty_ok`, a database that exists without renacer's tables (an empty
 * PostgreSQL database) is returned as 1 with nothing printed: it lists as empty. */
int rn_hist_open_store(const struct rn_hist_opts *o, const struct rn_config *cfg, bool write,
		       struct rn_history *h, bool empty_ok)
{
	struct rn_history_cfg hc;
	int rc;

	rn_history_cfg_resolve(&hc, cfg, o->db, false);
	rc = rn_history_open(h, hc.url, write, hc.busy_timeout_ms);
	if (rc == -ENOENT && empty_ok && h->db)
		rc = 1;
	else if (rc)
		rn_error("history '%s': %s", h->location ? h->location : hc.url, h->err);
	rn_history_cfg_release(&hc);
	return rc;
}

static const char *or_dash(const char *s)
{
	return s && *s ? s : "-";
}

/* ---- list ------------------------------------------------------------------------------ */

/* A stored string as a column of at most `width` bytes in buf[cap]: invalid UTF-8 repaired (a
 * store written before names were), control characters escaped, cut between characters, "-"
 * when empty. Returns buf. */
static const char *column(char *buf, size_t cap, const char *s, size_t width)
{
	char *shown = rn_display_dup(or_dash(s));
	size_t n = rn_utf8_prefix(shown, width < cap ? width : cap - 1);

	memcpy(buf, shown, n);
	buf[n] = '\0';
	free(shown);
	return buf;
}

static int list_row(void *ctx, const struct rn_history_run_summary *r)
{
	char ns[24], when[32], commit[1024];
	char branch[1024], machine[1024], source[16];

	(void)ctx;
	/* Stored strings come from the environment, git and imported files: escaped, so a
	 * branch named "x\n::error::..." cannot start a line a CI system obeys. */
	snprintf(ns, sizeof(ns), "%lld", (long long)r->created_ns);
	rn_history_fmt_time(when, sizeof(when), ns);
	column(commit, sizeof(commit), r->commit, 12);
	column(branch, sizeof(branch), r->branch, 20);
	column(machine, sizeof(machine), r->machine, 16);
	column(source, sizeof(source), r->source, 6);
	printf("%-7lld %-19s  %-12s  %-20s  %-16s  %-6s  %4d  %lld\n", (long long)r->id, when,
	       commit, branch, machine, source, r->exit_code, (long long)r->failing);
	return 0;
}

static void history_list_header(void)
{
	printf("%-7s %-19s  %-12s  %-20s  %-16s  %-6s  %4s  %s\n", "RUN", "TIME (UTC)", "COMMIT",
	       "BRANCH", "MACHINE", "SOURCE", "EXIT", "FAILING");
}

static int history_list(struct rn_history *h, const struct rn_hist_opts *o)
{
	history_list_header();
	return rn_history_list_runs(h, o->limit ? o->limit : 50, list_row, NULL);
}

/* ---- show ------------------------------------------------------------------------------ */

/* The rows of `history show` as text, formatted as they arrive. */
struct text_rows {
	struct rn_buf text; /* the table rows, oldest first */
	size_t n;           /* rows */
	char unit[16];      /* the stored unit of the first row */
};

/* Civil date of `days` since 1970-01-01 (Howard Hinnant's days_from_civil inverse): no
 * strftime locale work per row. */
static void civil(long long days, long long *y, long long *m, long long *d)
{
	long long z = days + 719468;
	long long era = (z >= 0 ? z : z - 146096) / 146097;
	long long doe = z - era * 146097;
	long long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	long long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	long long mp = (5 * doy + 2) / 153;

	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = yoe + era * 400 + (*m <= 2);
}

/* Digits of `v` (>= 0) right-aligned before `end`; returns the first digit. */
static char *utoa_back(char *end, unsigned long long v)
{
	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return end;
}

/* A value in the unit shown: ns as ms with three decimals, from the integer the query
 * rounded (printf's floating point dominated a long series). Writes into buf[40]. */
static const char *fmt_value(char *buf, const char *text, const char *unit)
{
	long long v = strtoll(text ? text : "0", NULL, 10);
	bool neg = v < 0;
	unsigned long long a = neg ? 0ull - (unsigned long long)v : (unsigned long long)v;
	char *end = buf + 39, *p;

	*end = '\0';
	if (!strcmp(unit, "ns")) {
		unsigned long long us = (a + 500) / 1000;

		p = utoa_back(end, us % 1000 + 1000); /* "1ddd": keeps the leading zeros */
		*p = '.';
		p = utoa_back(p, us / 1000);
	} else {
		p = utoa_back(end, a);
	}
	if (neg)
		*--p = '-';
	return p;
}

/* A stored string for a text column (see column()); plain strings, the rows of a long
 * series, are returned as they are (put() cuts them between characters). */
static const char *esc(char *buf, size_t cap, const char *s)
{
	s = or_dash(s);
	if (rn_utf8_valid(s) && !rn_has_ctl(s))
		return s;
	return column(buf, cap, s, cap - 1);
}

/* Append `text` cut at `max` bytes and padded with spaces to `width` on the right (left:
 * false) or the left (left: true). */
static char *put(char *p, const char *text, size_t width, size_t max, bool left)
{
	size_t n = rn_utf8_prefix(text, max); /* between characters */

	if (left && n < width) {
		memset(p, ' ', width - n);
		p += width - n;
	}
	memcpy(p, text, n);
	p += n;
	if (!left && n < width) {
		memset(p, ' ', width - n);
		p += width - n;
	}
	return p;
}

/* "2026-11-25 04:10:00" into p (19 bytes). */
static char *put_time(char *p, long long secs)
{
	long long days = secs >= 0 ? secs / 86400 : (secs - 86399) / 86400;
	long long rem = secs - days * 86400, y, m, d;
	const long long parts[6] = { 0, 0, 0, rem / 3600, rem / 60 % 60, rem % 60 };
	int i;

	civil(days, &y, &m, &d);
	if (y < 0 || y > 9999)
		y = 0;
	p[0] = (char)('0' + y / 1000);
	p[1] = (char)('0' + y / 100 % 10);
	p[2] = (char)('0' + y / 10 % 10);
	p[3] = (char)('0' + y % 10);
	p[4] = '-';
	p[5] = (char)('0' + m / 10);
	p[6] = (char)('0' + m % 10);
	p[7] = '-';
	p[8] = (char)('0' + d / 10);
	p[9] = (char)('0' + d % 10);
	p[10] = ' ';
	for (i = 3; i < 6; i++) {
		p[11 + (i - 3) * 3] = (char)('0' + parts[i] / 10);
		p[12 + (i - 3) * 3] = (char)('0' + parts[i] % 10);
		if (i < 5)
			p[13 + (i - 3) * 3] = ':';
	}
	return p + 19;
}

/* One table row of `history show`, formatted by hand as the row arrives (printf's
 * parsing of a format per row was most of the time of a 100,000-run series). Values come
 * rounded to integers. The layout is the header's: RUN, TIME, COMMIT, BRANCH, MACHINE, N,
 * MEDIAN, MIN, MAX. */
static int text_row(void *ctx, size_t ncols, const char *const *v)
{
	struct text_rows *s = ctx;
	const char *unit;
	char num[40], line[256], e[1024], *p = line;

	if (ncols < 10)
		return 0;
	unit = v[9] ? v[9] : "";
	p = put(p, v[0] ? v[0] : "", 7, 20, false);
	*p++ = ' ';
	p = put_time(p, strtoll(v[1] ? v[1] : "0", NULL, 10) / 1000000000ll);
	p = put(p, "  ", 2, 2, false);
	p = put(p, esc(e, sizeof(e), v[2]), 12, 12, false);
	p = put(p, "  ", 2, 2, false);
	p = put(p, esc(e, sizeof(e), v[3]), 16, 16, false);
	p = put(p, "  ", 2, 2, false);
	p = put(p, esc(e, sizeof(e), v[4]), 16, 16, false);
	p = put(p, "  ", 2, 2, false);
	p = put(p, v[5] ? v[5] : "0", 4, 20, true);
	p = put(p, "  ", 2, 2, false);
	p = put(p, fmt_value(num, v[6], unit), 14, 39, true);
	p = put(p, "  ", 2, 2, false);
	p = put(p, fmt_value(num, v[7], unit), 14, 39, true);
	p = put(p, "  ", 2, 2, false);
	p = put(p, fmt_value(num, v[8], unit), 14, 39, true);
	*p++ = '\n';
	rn_buf_add(&s->text, line, (size_t)(p - line));
	if (!s->n)
		snprintf(s->unit, sizeof(s->unit), "%s", unit);
	s->n++;
	return 0;
}

/* One CSV field of `s` to `out`, through the one CSV escaping function (csv.h). */
static void csv_field(FILE *out, const char *s)
{
	struct rn_buf b;

	rn_buf_init(&b, 0);
	rn_csv_add_field(&b, s);
	fwrite(b.buf, 1, b.len, out);
	rn_buf_release(&b);
}

/* A numeric cell as it is when it is one number, else a text field (an imported store may
 * hold anything in any column). */
static void csv_number(struct rn_buf *b, const char *s)
{
	char *end;

	if (*s && (strtod(s, &end), !*end) && !strpbrk(s, " \t\r\n"))
		rn_buf_adds(b, s);
	else
		rn_csv_add_field(b, s);
}

/* `history show` as text: rows formatted as they arrive (fast for a long series). */
static void show_text(const struct rn_hist_opts *o, struct text_rows *t)
{
	/* An empty series read no unit from the store: the metric's own */
	const char *unit =
		t->unit[0] ? t->unit : rn_metric_info(rn_metric_lookup(o->operands[2]))->unit;

	printf("%s %s (%s), %zu run%s\n", o->operands[1], o->operands[2],
	       rn_history_shown_unit(unit), t->n, t->n == 1 ? "" : "s");
	printf("%-7s %-19s  %-12s  %-16s  %-16s  %4s  %14s  %14s  %14s\n", "RUN", "TIME (UTC)",
	       "COMMIT", "BRANCH", "MACHINE", "N", "MEDIAN", "MIN", "MAX");
	fwrite(t->text.buf, 1, t->text.len, stdout);
}

static void show_csv(const struct rn_history_series *s)
{
	size_t i;

	printf("run,created_ns,commit,branch,machine,nsamples,median,min,max,unit,samples\n");
	for (i = 0; i < s->n; i++) {
		const struct rn_history_point *p = &s->p[i];

		printf("%lld,", (long long)p->run_id);
		csv_field(stdout, p->created_ns);
		fputc(',', stdout);
		csv_field(stdout, p->commit);
		fputc(',', stdout);
		csv_field(stdout, p->branch);
		fputc(',', stdout);
		csv_field(stdout, p->machine);
		printf(",%ld,%.17g,%.17g,%.17g,", p->nsamples, p->median, p->min, p->max);
		csv_field(stdout, s->unit);
		fputc(',', stdout);
		csv_field(stdout, p->samples ? p->samples : "[]");
		fputc('\n', stdout);
	}
}

static void show_json(const struct rn_history_series *s)
{
	json_t *arr = json_array();
	char *text;
	size_t i;

	for (i = 0; i < s->n; i++) {
		const struct rn_history_point *p = &s->p[i];

		json_array_append_new(
			arr,
			json_pack("{s:I, s:s, s:o, s:o, s:o, s:I, s:f, s:f, s:f, s:s, s:o}", "run",
				  (json_int_t)p->run_id, "created_ns", p->created_ns, "commit",
				  rn_json_text(p->commit), "branch", rn_json_text(p->branch),
				  "machine", rn_json_text(p->machine), "nsamples",
				  (json_int_t)p->nsamples, "median", p->median, "min", p->min,
				  "max", p->max, "unit", s->unit, "samples",
				  json_loads(p->samples ? p->samples : "[]", 0, NULL)));
	}
	text = json_dumps(arr, JSON_INDENT(2));
	if (text)
		printf("%s\n", text);
	free(text);
	json_decref(arr);
}

static int history_show(struct rn_history *h, const struct rn_hist_opts *o)
{
	struct rn_history_series_query q;
	struct rn_history_series s;
	struct text_rows t;
	const char *fmt = o->format ? o->format : "text";
	bool as_text = !strcmp(fmt, "text");
	size_t n;
	int rc;

	if (o->noperands != 3)
		return rn_error("usage: renacer history show TARGET METRIC"), -EINVAL;
	if (rn_metric_lookup(o->operands[2]) < 0)
		return rn_error("unknown metric '%s' (see 'renacer help config' for the names)",
				o->operands[2]),
		       -EINVAL;
	if (strcmp(fmt, "text") && strcmp(fmt, "csv") && strcmp(fmt, "json"))
		return rn_error("--format must be text, csv or json, found '%s'", fmt), -EINVAL;
	memset(&q, 0, sizeof(q));
	q.target = o->operands[1];
	q.metric = o->operands[2];
	q.machine = o->machine;
	q.branch = o->branch;
	q.limit = o->limit;
	q.rounded = as_text;
	q.with_samples = !as_text;
	memset(&s, 0, sizeof(s));
	memset(&t, 0, sizeof(t));
	rn_buf_init(&t.text, 0);
	if (as_text)
		rc = rn_history_series_read(h, &q, text_row, &t);
	else
		rc = rn_history_series_load(h, &q, &s);
	n = as_text ? t.n : s.n;
	if (rc)
		rn_error("history '%s': %s", h->location, h->err);
	else if (!n)
		rn_note("history '%s': no recorded run has target '%s' with metric '%s' (a "
			"misspelt target?)",
			h->location, o->operands[1], o->operands[2]);
	if (!rc && as_text)
		show_text(o, &t);
	else if (!rc && !strcmp(fmt, "csv"))
		show_csv(&s);
	else if (!rc)
		show_json(&s);
	rn_buf_release(&t.text);
	rn_history_series_release(&s);
	return rc;
}

/* ---- change points ---------------------------------------------------------------------- */

/* Decimals to print a median in the unit shown: ms to the microsecond; bytes and counts
 * whole (a median of an even number of runs may end in .5). */
static int decimals(double v, const char *unit)
{
	if (unit && !strcmp(unit, "ns"))
		return 3;
	return v == floor(v) ? 0 : 1;
}

static void print_change(void *ctx, const struct rn_history_change *c)
{
	char when[32], ns[32], range[96] = "", target[256], metric[64], machine[256], commit[13];
	char first[13], last[13];

	(void)ctx;
	snprintf(ns, sizeof(ns), "%lld", (long long)c->created_ns);
	rn_history_fmt_time(when, sizeof(when), ns);
	rn_escape_ctl(target, sizeof(target), c->target);
	rn_escape_ctl(metric, sizeof(metric), c->metric);
	rn_escape_ctl(machine, sizeof(machine), c->machine ? c->machine : "");
	rn_escape_ctl(commit, sizeof(commit), or_dash(c->commit));
	rn_escape_ctl(first, sizeof(first), or_dash(c->first_commit));
	rn_escape_ctl(last, sizeof(last), or_dash(c->last_commit));
	if (c->first_run != c->last_run)
		snprintf(range, sizeof(range),
			 ", somewhere in runs %lld..%lld (commits %.12s..%.12s)",
			 (long long)c->first_run, (long long)c->last_run, first, last);
	printf("%s %s [%s]: run %lld (commit %.12s, %s%s): %+.1f%% (median %.*f -> %.*f %s, "
	       "ratio %.3f), p %.2g\n",
	       target, metric, machine, (long long)c->run_id, commit, when, range,
	       c->rel_change * 100, decimals(c->before, c->unit),
	       rn_history_shown(c->before, c->unit), decimals(c->after, c->unit),
	       rn_history_shown(c->after, c->unit), rn_history_shown_unit(c->unit), c->ratio,
	       c->p_value);
}

struct counting {
	size_t n;
	json_t *arr; /* --format json: the changes, else NULL */
};

static void print_and_count(void *ctx, const struct rn_history_change *c)
{
	struct counting *k = ctx;

	if (k->arr)
		json_array_append_new(k->arr, rn_history_change_json(c));
	else
		print_change(NULL, c);
	k->n++;
}

/* The search's settings from --min-change and --alpha. */
static void changes_cfg(const struct rn_hist_opts *o, struct rn_edivisive_cfg *cfg)
{
	rn_edivisive_cfg_init(cfg);
	if (o->min_change_pct >= 0)
		cfg->min_rel_change = o->min_change_pct / 100;
	if (o->alpha > 0)
		cfg->alpha = o->alpha;
}

static int history_changes(struct rn_history *h, const struct rn_hist_opts *o)
{
	struct rn_history_series_keys ks;
	struct rn_history_filter f = { NULL, NULL, o->machine, NULL };
	size_t i;
	struct counting k = { 0, NULL };
	struct rn_edivisive_cfg ecfg;
	const char *fmt = o->format ? o->format : "text";
	int rc;

	if (o->noperands > 3)
		return rn_error("usage: renacer history changes [TARGET [METRIC]]"), -EINVAL;
	if (strcmp(fmt, "text") && strcmp(fmt, "json"))
		return rn_error("--format must be text or json, found '%s'", fmt), -EINVAL;
	changes_cfg(o, &ecfg);
	if (!strcmp(fmt, "json"))
		k.arr = json_array();
	if (o->noperands >= 2)
		f.target = o->operands[1];
	if (o->noperands >= 3)
		f.metric = o->operands[2];
	rc = rn_history_series_keys(h, &f, &ks);
	for (i = 0; i < ks.n && !rc; i++)
		rc = rn_history_changes_of(h, ks.k[i].target, ks.k[i].metric, ks.k[i].machine,
					   o->branch, o->limit, &ecfg, print_and_count, &k);
	if (rc) {
		rn_error("history '%s': %s", h->location, h->err);
	} else if (k.arr) {
		char *text = json_dumps(k.arr, JSON_INDENT(2));

		printf("%s\n", text ? text : "[]");
		free(text);
	} else {
		printf("%zu change point%s in %zu series (E-Divisive, Welch p <= %g, at least "
		       "%g%%; advisory)\n",
		       k.n, k.n == 1 ? "" : "s", ks.n, ecfg.alpha, ecfg.min_rel_change * 100);
	}
	json_decref(k.arr);
	rn_history_series_keys_release(&ks);
	return rc;
}

/* ---- export ----------------------------------------------------------------------------- */

#define EXPORT_CSV_HEADER                                                                          \
	"run,created_ns,commit,branch,machine,source,target,metric,unit,nsamples,median,min,max,"  \
	"samples\n"

struct export_ctx {
	struct rn_buf *b;
	bool json;
	json_t *arr;
};

static int export_row(void *ctx, size_t ncols, const char *const *v)
{
	struct export_ctx *e = ctx;
	static const char *const names[] = { "run",    "created_ns", "commit", "branch", "machine",
					     "source", "target",     "metric", "unit",   "nsamples",
					     "median", "min",        "max",    "samples" };
	size_t i;

	if (ncols < 14)
		return 0;
	if (e->json) {
		json_t *o = json_object();

		for (i = 0; i < 14; i++) {
			const char *s = v[i] ? v[i] : "";

			if (i == 0 || i == 1 || i == 9)
				json_object_set_new(o, names[i],
						    json_integer(strtoll(s, NULL, 10)));
			else if (i >= 10 && i <= 12)
				json_object_set_new(o, names[i], json_real(strtod(s, NULL)));
			else if (i == 13)
				json_object_set_new(o, names[i], json_loads(s, 0, NULL));
			else
				json_object_set_new(o, names[i], rn_json_text(s));
		}
		json_array_append_new(e->arr, o);
		return 0;
	}
	for (i = 0; i < 14; i++) {
		const char *s = v[i] ? v[i] : "";

		if (i)
			rn_buf_addc(e->b, ',');
		if (i == 0 || i == 1 || (i >= 9 && i <= 12))
			csv_number(e->b, s);
		else
			rn_csv_add_field(e->b, s);
	}
	rn_buf_addc(e->b, '\n');
	return 0;
}

static int history_export(struct rn_history *h, const struct rn_hist_opts *o)
{
	const char *fmt = o->format ? o->format : "csv";
	struct export_ctx e;
	struct rn_history_filter f = { o->target, o->metric, o->machine, o->branch };
	struct rn_buf b;
	int rc;

	if (strcmp(fmt, "csv") && strcmp(fmt, "json") && strcmp(fmt, "history"))
		return rn_error("--format must be csv, json or history, found '%s'", fmt), -EINVAL;
	rn_buf_init(&b, 0);
	if (!strcmp(fmt, "history")) {
		json_t *doc = NULL;
		char *text;

		e.arr = NULL;
		rc = rn_history_export_doc(h, &f, &doc);
		if (rc) {
			rn_error("history '%s': %s", h->location, h->err);
			goto out;
		}
		text = json_dumps(doc, JSON_INDENT(1));
		json_decref(doc);
		rn_buf_adds(&b, text ? text : "{}");
		rn_buf_addc(&b, '\n');
		free(text);
		goto write;
	}
	e.b = &b;
	e.json = !strcmp(fmt, "json");
	e.arr = e.json ? json_array() : NULL;
	if (!e.json)
		rn_buf_adds(&b, EXPORT_CSV_HEADER);
	rc = rn_history_export_results(h, &f, export_row, &e);
	if (rc) {
		rn_error("history '%s': %s", h->location, h->err);
		goto out;
	}
	if (e.json) {
		char *text = json_dumps(e.arr, JSON_INDENT(2));

		rn_buf_adds(&b, text ? text : "[]");
		rn_buf_addc(&b, '\n');
		free(text);
	}
write:
	if (rn_buf_failed(&b)) {
		rc = rn_error("export: out of memory");
		goto out;
	}
	if (o->output) {
		rc = rn_write_file_atomic(o->output, b.buf, b.len);
		if (rc)
			rn_error("cannot write '%s': %s", o->output, strerror(-rc));
	} else {
		fwrite(b.buf, 1, b.len, stdout);
	}
out:
	json_decref(e.arr);
	rn_buf_release(&b);
	return rc;
}

/* ---- import ----------------------------------------------------------------------------- */

static int history_import(struct rn_history *h, const struct rn_hist_opts *o,
			  const struct rn_config *cfg)
{
	const struct rn_history_import_opts io = { o->target, o->machine, o->commit, o->branch };
	size_t i;

	if (o->noperands < 2)
		return rn_error("usage: renacer history import FILE..."), -EINVAL;
	for (i = 1; i < o->noperands; i++) {
		const char *path = o->operands[i];
		struct rn_history_imported im;
		int64_t id;

		if (rn_run_interrupted()) {
			rn_error("%s: interrupted: nothing of it imported", path);
			return -ECANCELED;
		}
		{
			json_t *doc = json_load_file(path, 0, NULL);
			const char *f = json_string_value(json_object_get(doc, "format"));

			if (f && !strcmp(f, RN_HISTORY_FORMAT)) {
				size_t added, skipped;
				int rc = rn_history_import_doc(h, path, doc, &added, &skipped);

				json_decref(doc);
				if (rc)
					return rc;
				printf("imported %s: %zu run%s added, %zu already in the store\n",
				       path, added, added == 1 ? "" : "s", skipped);
				continue;
			}
			if (json_is_array(doc) &&
			    json_object_get(json_array_get(doc, 0), "samples") &&
			    json_object_get(json_array_get(doc, 0), "run")) {
				json_decref(doc);
				return rn_error(
					       "%s: a results export (--format json) holds no verdicts "
					       "or run ids; move a store with 'history export --format "
					       "history'",
					       path),
				       -EINVAL;
			}
			json_decref(doc);
		}
		id = rn_history_import_file(h, path, &io, cfg, &im);
		if (id == -EINVAL)
			return -EINVAL;
		if (id < 0) {
			rn_error("history '%s': %s", h->location, h->err);
			return (int)id;
		}
		printf("imported %s as run %lld (target '%s', %zu run%s%s)\n", o->operands[i],
		       (long long)id, im.target, im.nruns, im.nruns == 1 ? "" : "s",
		       im.counts_only ? ", syscall counts only" : "");
	}
	return 0;
}

/* ---- prune ------------------------------------------------------------------------------ */

static int history_prune(struct rn_history *h, const struct rn_hist_opts *o)
{
	int64_t n = 0;
	int rc;

	if (o->older_than_days < 0)
		return rn_error("usage: renacer history prune --older-than DAYS"), -EINVAL;
	rc = rn_history_prune(h,
			      ((int64_t)time(NULL) - o->older_than_days * 86400ll) * 1000000000ll,
			      &n);
	if (rc) {
		rn_error("history '%s': %s", h->location, h->err);
		return rc;
	}
	printf("pruned %lld run%s older than %ld day%s\n", (long long)n, n == 1 ? "" : "s",
	       o->older_than_days, o->older_than_days == 1 ? "" : "s");
	return 0;
}

/* ---- the gate-quality ledger (runner/history/ledger.h) -------------------------------- */

static void pct(char *buf, size_t cap, double v, bool has)
{
	if (has)
		snprintf(buf, cap, "%.1f%%", v * 100);
	else
		snprintf(buf, cap, "-");
}

static int history_quality(struct rn_history *h, const struct rn_hist_opts *o)
{
	struct rn_ledger_set lr;
	char min_run[24] = "";
	const char *fmt = o->format ? o->format : "text";
	size_t i;
	int rc;

	if (o->noperands > 2)
		return rn_error("usage: renacer history quality [TARGET]"), -EINVAL;
	if (strcmp(fmt, "text") && strcmp(fmt, "json"))
		return rn_error("--format must be text or json, found '%s'", fmt), -EINVAL;
	if (o->limit) {
		rc = rn_history_first_of_last(h, o->limit, min_run);
		if (rc) {
			rn_error("history '%s': %s", h->location, h->err);
			return rc;
		}
	}
	rc = rn_ledger_read(h, o->machine, o->noperands == 2 ? o->operands[1] : NULL,
			    min_run[0] ? min_run : NULL, &lr);
	if (rc) {
		rn_error("history '%s': %s", h->location, h->err);
		rn_ledger_release(&lr);
		return rc;
	}
	if (!strcmp(fmt, "json")) {
		json_t *arr = json_array();
		char *text;

		for (i = 0; i < lr.n; i++)
			json_array_append_new(arr, rn_ledger_json(&lr.l[i]));
		text = json_dumps(arr, JSON_INDENT(2));
		printf("%s\n", text ? text : "[]");
		free(text);
		json_decref(arr);
	} else {
		printf("%-16s %-20s %5s %6s %6s %5s %7s %5s %7s %12s %12s %7s\n", "TARGET",
		       "ASSERTION", "RUNS", "FAIL", "RERUNS", "FLIPS", "FALSE", "OVER", "NOISE",
		       "BUDGET", "SUGGESTED", "FALSE@S");
		for (i = 0; i < lr.n; i++) {
			const struct rn_ledger *l = &lr.l[i];
			char fail[16], fa[16], noise[16], sfa[16], bud[40], sug[40];
			char target[256], assertion[256];

			pct(fail, sizeof(fail), l->runs ? (double)l->fails / (double)l->runs : 0,
			    true);
			pct(fa, sizeof(fa), l->pool ? (double)l->false_alarms / (double)l->pool : 0,
			    l->pool > 0);
			pct(noise, sizeof(noise), l->noise, l->noise >= 0);
			pct(sfa, sizeof(sfa), l->suggested_rate, l->suggested_rate >= 0);
			if (l->has_budget)
				snprintf(bud, sizeof(bud), "%.4g %s", l->budget, l->unit);
			else
				snprintf(bud, sizeof(bud), "-");
			if (l->suggested >= 0)
				snprintf(sug, sizeof(sug), "%.4g %s", l->suggested, l->unit);
			else
				snprintf(sug, sizeof(sug), "-");
			rn_escape_ctl(target, sizeof(target), l->target);
			rn_escape_ctl(assertion, sizeof(assertion), l->assertion);
			printf("%-16.16s %-20.20s %5zu %6s %6zu %5zu %7s %5zu %7s %12s %12s %7s\n",
			       target, assertion, l->runs, fail, l->rerun_commits, l->flips, fa,
			       l->overridden, noise, bud, sug, sfa);
		}
		printf("FAIL: share of runs failed; RERUNS: commits checked more than once; FALSE: "
		       "FAILs of re-run commits that mostly pass, per their runs;\nOVER: FAILs a "
		       "later re-run passed; NOISE: relative sd of the observed value; SUGGESTED: "
		       "median x (1 + 3 NOISE), FALSE@S its false-alarm rate\n");
	}
	rn_ledger_release(&lr);
	return 0;
}

/* ---- the command ------------------------------------------------------------------------ */

/* The subcommands: `run` reads the store (import, the one that also reads the config, has
 * none); `write` opens the store for writing; `empty_ok` takes a database without renacer's
 * tables as one without runs. */
static const struct history_sub {
	const char *name;                                               /* operand */
	int (*run)(struct rn_history *h, const struct rn_hist_opts *o); /* or NULL: import */
	bool write;                                                     /* changes the store */
	bool empty_ok;                                                  /* an empty store */
} history_subs[] = {
	{ "list", history_list, false, true },
	{ "show", history_show, false, false },
	{ "changes", history_changes, false, false },
	{ "export", history_export, false, true },
	{ "import", NULL, true, false },
	{ "prune", history_prune, true, false },
	{ "quality", history_quality, false, false },
};

#define NSUBS (sizeof(history_subs) / sizeof(history_subs[0]))

/* The subcommand named `name`, or NULL after an error that suggests the closest one. */
static const struct history_sub *find_sub(const char *name)
{
	const char *names[NSUBS + 1];
	const char *hint;
	size_t i;

	for (i = 0; i < NSUBS; i++) {
		if (!strcmp(name, history_subs[i].name))
			return &history_subs[i];
		names[i] = history_subs[i].name;
	}
	names[i] = NULL;
	hint = rn_suggest(name, names);
	rn_error("renacer history: unknown subcommand '%s'%s%s%s", name,
		 hint ? " (did you mean '" : "", hint ? hint : "", hint ? "'?)" : "");
	return NULL;
}

/* What list and export print for a database without renacer's tables: no runs. */
static void print_empty_store(const struct history_sub *sub, const struct rn_hist_opts *o)
{
	if (!strcmp(sub->name, "list"))
		history_list_header();
	else if (o->format && !strcmp(o->format, "history"))
		printf("{\n \"format\": \"%s\",\n \"runs\": []\n}\n", RN_HISTORY_FORMAT);
	else if (!o->format || !strcmp(o->format, "csv"))
		printf("%s", EXPORT_CSV_HEADER);
	else
		printf("[]\n");
}

int rn_cmd_history(int argc, char **argv)
{
	struct rn_hist_opts o;
	struct rn_config cfg;
	struct rn_history h;
	const struct history_sub *sub;
	bool have_cfg = false;
	int rc;

	memset(&o, 0, sizeof(o));
	o.older_than_days = -1;
	o.min_change_pct = -1;
	if (rn_hist_parse(&rn_cmd_history_def, argc, argv, &o))
		return RN_EXIT_USAGE;
	if (o.help) {
		rn_cli_help(&rn_cmd_history_def, stdout);
		return RN_EXIT_OK;
	}
	sub = find_sub(o.noperands ? o.operands[0] : "list");
	if (!sub)
		return RN_EXIT_USAGE;
	/* import writes: the first SIGINT/SIGTERM rolls back the file being imported and ends
	 * the command with the signal's code, the store closed cleanly (no journal left) */
	if (!sub->run)
		rn_run_catch_signals();
	rc = rn_hist_load_config(&o, &cfg, &have_cfg);
	if (rc)
		return rc;
	if (sub->run == history_prune && o.older_than_days < 0) {
		rn_error("usage: renacer history prune --older-than DAYS");
		rc = RN_EXIT_USAGE;
		goto out_cfg;
	}
	rc = rn_hist_open_store(&o, have_cfg ? &cfg : NULL, sub->write, &h, sub->empty_ok);
	if (rc == 1) {
		/* A database without renacer's tables holds no runs: list and export say so. */
		rc = RN_EXIT_OK;
		print_empty_store(sub, &o);
		goto out_close;
	}
	if (rc) {
		rc = RN_EXIT_OUTPUT;
		goto out_close;
	}
	if (sub->run)
		rc = sub->run(&h, &o);
	else
		rc = history_import(&h, &o, have_cfg ? &cfg : NULL);
	if (rc == -EINVAL)
		rc = RN_EXIT_USAGE;
	else if (rc)
		rc = RN_EXIT_OUTPUT;
out_close:
	rn_history_close(&h);
out_cfg:
	if (have_cfg)
		rn_config_release(&cfg);
	if (!sub->run && rn_run_interrupted())
		rc = rn_exit_for_signal(rn_run_interrupted());
	return rc;
}
