/*
 * cmd_history.c - `renacer history` (list, show, changes, export, import, prune) and
 * `renacer report --html`.
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
#include "config.h"
#include "escape.h"
#include "exitcode.h"
#include "github.h"
#include "golden.h"
#include "history.h"
#include "json_text.h"
#include "ledger.h"
#include "log.h"
#include "cmd_merge.h"
#include "report_html.h"
#include "utf8.h"
#include "xalloc.h"

/* Option ids: short options use their character. */
enum {
	OPT_CONFIG = 'c',
	OPT_LIMIT = 'n',
	OPT_FORMAT = 'f',
	OPT_OUTPUT = 'o',
	OPT_TARGET = 't',
	OPT_METRIC = 'm',
	OPT_HELP = 'h',
	OPT_DB = 256,
	OPT_MACHINE,
	OPT_BRANCH,
	OPT_COMMIT,
	OPT_OLDER_THAN,
	OPT_HTML,
	OPT_MARKDOWN,
	OPT_MIN_CHANGE,
	OPT_ALPHA,
};

static const struct rn_option history_options[] = {
	{ OPT_DB, "db", 0, RN_OPT_REQUIRED, "URL",
	  "history store (default: $RENACER_HISTORY_URL, [history] url, .renacer/history.db)" },
	{ OPT_CONFIG, "config", 'c', RN_OPT_REQUIRED, "FILE",
	  "config whose [history] to use (default renacer.toml when present)" },
	{ OPT_LIMIT, "last", 'n', RN_OPT_REQUIRED, "N",
	  "list/show/changes/quality: only the last N runs (changes: default 500)" },
	{ OPT_MACHINE, "machine", 0, RN_OPT_REQUIRED, "M",
	  "show/changes/export: only runs of this machine" },
	{ OPT_BRANCH, "branch", 0, RN_OPT_REQUIRED, "B",
	  "show/changes/export: only runs of this branch; import: record this branch" },
	{ OPT_TARGET, "target", 't', RN_OPT_REQUIRED, "NAME",
	  "export: only this target; import: record as this target" },
	{ OPT_METRIC, "metric", 'm', RN_OPT_REQUIRED, "NAME", "export: only this metric" },
	{ OPT_FORMAT, "format", 'f', RN_OPT_REQUIRED, "F",
	  "show: text, csv or json; changes: text or json; export: csv, json or history "
	  "(the whole store, which import reads)" },
	{ OPT_OUTPUT, "output", 'o', RN_OPT_REQUIRED, "FILE",
	  "export: write to FILE (atomically) instead of stdout" },
	{ OPT_COMMIT, "commit", 0, RN_OPT_REQUIRED, "ID", "import: record this commit" },
	{ OPT_OLDER_THAN, "older-than", 0, RN_OPT_REQUIRED, "DAYS",
	  "prune: delete runs older than DAYS days" },
	{ OPT_MIN_CHANGE, "min-change", 0, RN_OPT_REQUIRED, "PCT",
	  "changes: smallest change reported, percent of the median (default 2)" },
	{ OPT_ALPHA, "alpha", 0, RN_OPT_REQUIRED, "P",
	  "changes: largest Welch p-value of a change reported (default 0.001)" },
	{ OPT_HELP, "help", 'h', RN_OPT_NONE, NULL, "show this help" },
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

static const struct rn_option report_options[] = {
	{ OPT_HTML, "html", 0, RN_OPT_REQUIRED, "FILE",
	  "write the report page to FILE (atomically)" },
	{ OPT_MARKDOWN, "markdown", 0, RN_OPT_REQUIRED, "FILE",
	  "write the Markdown report of the RESULTS files (check --results, the shards) to FILE, for a pull-request comment" },
	{ OPT_DB, "db", 0, RN_OPT_REQUIRED, "URL", "history store (default as renacer history)" },
	{ OPT_CONFIG, "config", 'c', RN_OPT_REQUIRED, "FILE",
	  "config: golden traces for the bands (default renacer.toml when present)" },
	{ OPT_LIMIT, "last", 'n', RN_OPT_REQUIRED, "N",
	  "runs per trend chart (default 200, at most 5000)" },
	{ OPT_MACHINE, "machine", 0, RN_OPT_REQUIRED, "M",
	  "trends of this machine (default: the last run's)" },
	{ OPT_HELP, "help", 'h', RN_OPT_NONE, NULL, "show this help" },
	{ 0, NULL, 0, RN_OPT_NONE, NULL, NULL },
};

const struct rn_command rn_cmd_report_def = {
	"report",
	"renacer report --html FILE [--db URL] [--config FILE] | --markdown FILE RESULTS...",
	"write one self-contained HTML page from the history: verdicts, trends, change points, critical path",
	"The page shows the verdict table of the last recorded check, a trend chart per target and\n"
	"metric (the last N runs of that check's machine) with its change points and the golden\n"
	"trace's band (the range of its runs' samples, when renacer.toml's golden trace exists),\n"
	"and the critical-path timeline of the last run. It needs no network to view: styles,\n"
	"data and the drawing script are inline. Run `renacer check` with history enabled first.\n"
	"--markdown FILE RESULTS... writes the Markdown report of a check from its results files\n"
	"(`renacer check --results FILE`, or every shard's for a sharded suite, merged as `renacer\n"
	"merge` does): the text of the GitHub job summary, for a pull-request comment (`-` writes\n"
	"it to stdout). It exits with the check's exit code, so a script can tell pass from fail.",
	report_options,
};

/* Parsed command line of history and report. */
struct hist_opts {
	const char *db;
	const char *config;
	long limit;
	const char *machine;
	const char *branch;
	const char *target;
	const char *metric;
	const char *format;
	const char *output;
	const char *commit;
	long older_than_days;
	double min_change_pct; /* --min-change, percent; < 0 when not given */
	double alpha;          /* --alpha; 0 when not given */
	const char *html;
	const char *markdown; /* report --markdown FILE */
	bool help;
	const char *operands[64];
	size_t noperands;
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
	struct hist_opts *o = ctx;

	switch (id) {
	case OPT_DB:
		o->db = arg;
		break;
	case OPT_CONFIG:
		o->config = arg;
		break;
	case OPT_LIMIT:
		return parse_long_arg("last", arg, 1, 100000000, &o->limit);
	case OPT_MACHINE:
		o->machine = arg;
		break;
	case OPT_BRANCH:
		o->branch = arg;
		break;
	case OPT_TARGET:
		o->target = arg;
		break;
	case OPT_METRIC:
		o->metric = arg;
		break;
	case OPT_FORMAT:
		o->format = arg;
		break;
	case OPT_OUTPUT:
		o->output = arg;
		break;
	case OPT_COMMIT:
		o->commit = arg;
		break;
	case OPT_OLDER_THAN:
		return parse_long_arg("older-than", arg, 0, 1000000, &o->older_than_days);
	case OPT_HTML:
		o->html = arg;
		break;
	case OPT_MARKDOWN:
		o->markdown = arg;
		break;
	case OPT_MIN_CHANGE:
	case OPT_ALPHA: {
		char *end;
		double v = strtod(arg, &end);

		if (end == arg || *end || !(id == OPT_ALPHA ? v > 0 && v < 1 : v >= 0 && v < 1000))
			return rn_error("--%s needs %s, found '%s'",
					id == OPT_ALPHA ? "alpha" : "min-change",
					id == OPT_ALPHA ? "a number in (0, 1)" :
							  "a percentage in [0, 1000)",
					arg);
		if (id == OPT_ALPHA)
			o->alpha = v;
		else
			o->min_change_pct = v;
		break;
	}
	case OPT_HELP:
		o->help = true;
		break;
	default:
		return rn_error("unhandled option %d", id);
	}
	return 0;
}

/* Options may come before, between and after operands. */
static int parse_all(const struct rn_command *cmd, int argc, char **argv, struct hist_opts *o)
{
	return rn_cli_parse_operands(cmd, argc, argv, on_option, o, o->operands, 64, &o->noperands);
}

/* The config named by --config, or renacer.toml when it exists; NULL when none. */
static int load_config(const struct hist_opts *o, struct rn_config *cfg, bool *have)
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
static int open_store(const struct hist_opts *o, const struct rn_config *cfg, bool write,
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

/* "2026-11-25 04:10" (UTC) from ns since the epoch. */
static void fmt_time(char *dst, size_t cap, const char *ns_text)
{
	time_t t = (time_t)(strtoll(ns_text ? ns_text : "0", NULL, 10) / 1000000000ll);
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(dst, cap, "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(dst, cap, "?");
}

static const char *str_of_json(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

static const char *or_dash(const char *s)
{
	return s && *s ? s : "-";
}

/* Values are stored in the metric's unit (ns, bytes, count); times are shown in ms. */
static double shown(double v, const char *unit)
{
	return unit && !strcmp(unit, "ns") ? v / 1e6 : v;
}

static const char *shown_unit(const char *unit)
{
	return unit && !strcmp(unit, "ns") ? "ms" : unit ? unit : "";
}

/* ---- list ------------------------------------------------------------------------------ */

/* A stored string as a column of at most `width` bytes in buf[cap]: invalid UTF-8 repaired (a
 * store written before names were), control characters escaped, cut between characters, "-"
 * when empty. Returns buf. */
static const char *column(char *buf, size_t cap, const char *s, size_t width)
{
	char *fixed = NULL;

	s = or_dash(s);
	if (!rn_utf8_valid(s))
		s = fixed = rn_utf8_fix(s);
	rn_escape_ctl(buf, cap, s);
	free(fixed);
	buf[rn_utf8_prefix(buf, width < cap ? width : cap - 1)] = '\0';
	return buf;
}

static int list_row(void *ctx, size_t ncols, const char *const *v)
{
	char when[32], commit[1024];
	char branch[1024], machine[1024], source[16];

	(void)ctx;
	if (ncols < 8)
		return 0;
	/* Stored strings come from the environment, git and imported files: escaped, so a
	 * branch named "x\n::error::..." cannot start a line a CI system obeys. */
	fmt_time(when, sizeof(when), v[1]);
	column(commit, sizeof(commit), v[2], 12);
	column(branch, sizeof(branch), v[3], 20);
	column(machine, sizeof(machine), v[4], 16);
	column(source, sizeof(source), v[5], 6);
	printf("%-7s %-19s  %-12s  %-20s  %-16s  %-6s  %4s  %s\n", v[0], when, commit, branch,
	       machine, source, v[6], v[7]);
	return 0;
}

static void history_list_header(void)
{
	printf("%-7s %-19s  %-12s  %-20s  %-16s  %-6s  %4s  %s\n", "RUN", "TIME (UTC)", "COMMIT",
	       "BRANCH", "MACHINE", "SOURCE", "EXIT", "FAILING");
}

static int history_list(struct rn_history *h, const struct hist_opts *o)
{
	char sql[1024];

	snprintf(
		sql, sizeof(sql),
		"SELECT r.id, r.created_ns, r.commit_sha, r.branch, r.machine, r.source, "
		"r.exit_code, (SELECT count(*) FROM verdicts v WHERE v.run_id = r.id AND "
		"v.verdict IN ('FAIL', 'ERROR', 'NO DATA')) FROM runs r ORDER BY r.id DESC LIMIT %ld",
		o->limit ? o->limit : 50);
	history_list_header();
	return rn_history_query(h, sql, NULL, 0, list_row, NULL);
}

/* ---- one series ------------------------------------------------------------------------ */

/* A point of a series, in run order. */
struct point {
	int64_t run_id;
	char *created_ns;
	char *commit;
	char *branch;
	char *machine;
	long nsamples;
	double median, min, max;
	char *samples;
};

struct series {
	struct point *p;
	size_t n, cap;
	char unit[16];
	bool with_samples;
	bool as_text;       /* format rows into `text` instead of keeping points */
	struct rn_buf text; /* with as_text: the table rows, oldest first */
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
static void text_row(struct series *s, const char *const *v)
{
	const char *unit = v[9] ? v[9] : "";
	char num[40], line[256], e[1024], *p = line;

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
}

static int series_row(void *ctx, size_t ncols, const char *const *v)
{
	struct series *s = ctx;
	struct point *p;

	if (ncols < 10)
		return 0;
	if (s->as_text) {
		text_row(s, v);
		return 0;
	}
	s->p = rn_xgrow(s->p, &s->cap, s->n + 1, sizeof(*s->p));
	p = &s->p[s->n++];
	memset(p, 0, sizeof(*p));
	p->run_id = strtoll(v[0], NULL, 10);
	p->created_ns = rn_xstrdup(v[1] ? v[1] : "0");
	p->commit = rn_xstrdup(v[2] ? v[2] : "");
	p->branch = rn_xstrdup(v[3] ? v[3] : "");
	p->machine = rn_xstrdup(v[4] ? v[4] : "");
	p->nsamples = strtol(v[5] ? v[5] : "0", NULL, 10);
	p->median = strtod(v[6] ? v[6] : "0", NULL);
	p->min = strtod(v[7] ? v[7] : "0", NULL);
	p->max = strtod(v[8] ? v[8] : "0", NULL);
	snprintf(s->unit, sizeof(s->unit), "%s", v[9] ? v[9] : "");
	if (s->with_samples && ncols > 10)
		p->samples = rn_xstrdup(v[10] ? v[10] : "[]");
	return 0;
}

static void series_release(struct series *s)
{
	size_t i;

	for (i = 0; s->p && i < s->n; i++) {
		free(s->p[i].created_ns);
		free(s->p[i].commit);
		free(s->p[i].branch);
		free(s->p[i].machine);
		free(s->p[i].samples);
	}
	free(s->p);
	if (s->as_text)
		rn_buf_release(&s->text);
	memset(s, 0, sizeof(*s));
}

/* The last `limit` points (0: all) of target/metric, optionally of one machine and branch, in
 * run order. */
static int load_series(struct rn_history *h, const char *target, const char *metric,
		       const char *machine, const char *branch, long limit, struct series *s)
{
	struct rn_buf sql;
	const char *params[4];
	size_t np = 0;
	int rc;

	params[np++] = target;
	params[np++] = metric;
	rn_buf_init(&sql, 0);
	/* Oldest first; the last `limit` runs come from the newest end of the index. */
	if (limit)
		rn_buf_adds(&sql, "SELECT * FROM (");
	rn_buf_adds(&sql,
		    "SELECT r.id, r.created_ns, r.commit_sha, r.branch, r.machine, "
		    "s.nsamples, ");
	if (s->as_text)
		rn_buf_adds(&sql,
			    "CAST(ROUND(s.median) AS BIGINT), CAST(ROUND(s.min_value) AS "
			    "BIGINT), CAST(ROUND(s.max_value) AS BIGINT)");
	else
		rn_buf_adds(&sql, "s.median, s.min_value, s.max_value");
	rn_buf_adds(&sql, ", s.unit");
	if (s->with_samples)
		rn_buf_adds(&sql, ", s.samples");
	/* CROSS JOIN: SQLite keeps the order written (the series' index first, so --last N
	 * reads N rows from its newest end even with a machine filter, instead of scanning every
	 * run); PostgreSQL plans it as the inner join it is. */
	rn_buf_adds(&sql,
		    " FROM results s CROSS JOIN runs r WHERE r.id = s.run_id AND s.target = ? "
		    "AND s.metric = ?");
	if (machine) {
		rn_buf_adds(&sql, " AND r.machine = ?");
		params[np++] = machine;
	}
	if (branch) {
		rn_buf_adds(&sql, " AND r.branch = ?");
		params[np++] = branch;
	}
	if (limit)
		rn_buf_addf(&sql, " ORDER BY s.run_id DESC LIMIT %ld) AS last ORDER BY 1", limit);
	else
		rn_buf_adds(&sql, " ORDER BY s.run_id");
	rc = rn_history_query(h, sql.buf, params, np, series_row, s);
	rn_buf_release(&sql);
	return rc;
}

static void csv_field(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

static int history_show(struct rn_history *h, const struct hist_opts *o)
{
	struct series s;
	const char *fmt = o->format ? o->format : "text";
	size_t i;
	int rc;

	if (o->noperands != 3)
		return rn_error("usage: renacer history show TARGET METRIC"), -EINVAL;
	if (rn_metric_lookup(o->operands[2]) < 0)
		return rn_error("unknown metric '%s' (see 'renacer help config' for the names)",
				o->operands[2]),
		       -EINVAL;
	if (strcmp(fmt, "text") && strcmp(fmt, "csv") && strcmp(fmt, "json"))
		return rn_error("--format must be text, csv or json, found '%s'", fmt), -EINVAL;
	memset(&s, 0, sizeof(s));
	s.with_samples = strcmp(fmt, "text") != 0;
	s.as_text = !strcmp(fmt, "text");
	if (s.as_text)
		rn_buf_init(&s.text, 0);
	rc = load_series(h, o->operands[1], o->operands[2], o->machine, o->branch, o->limit, &s);
	if (rc) {
		rn_error("history '%s': %s", h->location, h->err);
		series_release(&s);
		return rc;
	}
	if (!s.n)
		rn_note("history '%s': no recorded run has target '%s' with metric '%s' (a "
			"misspelt target?)",
			h->location, o->operands[1], o->operands[2]);
	if (s.as_text) {
		/* An empty series read no unit from the store: the metric's own */
		const char *unit =
			s.unit[0] ? s.unit : rn_metric_info(rn_metric_lookup(o->operands[2]))->unit;

		printf("%s %s (%s), %zu run%s\n", o->operands[1], o->operands[2], shown_unit(unit),
		       s.n, s.n == 1 ? "" : "s");
		printf("%-7s %-19s  %-12s  %-16s  %-16s  %4s  %14s  %14s  %14s\n", "RUN",
		       "TIME (UTC)", "COMMIT", "BRANCH", "MACHINE", "N", "MEDIAN", "MIN", "MAX");
		fwrite(s.text.buf, 1, s.text.len, stdout);
	} else if (!strcmp(fmt, "csv")) {
		printf("run,created_ns,commit,branch,machine,nsamples,median,min,max,unit,samples\n");
		for (i = 0; i < s.n; i++) {
			const struct point *p = &s.p[i];

			printf("%lld,%s,", (long long)p->run_id, p->created_ns);
			csv_field(stdout, p->commit);
			fputc(',', stdout);
			csv_field(stdout, p->branch);
			fputc(',', stdout);
			csv_field(stdout, p->machine);
			printf(",%ld,%.17g,%.17g,%.17g,%s,", p->nsamples, p->median, p->min, p->max,
			       s.unit);
			csv_field(stdout, p->samples ? p->samples : "[]");
			fputc('\n', stdout);
		}
	} else {
		json_t *arr = json_array();
		char *text;

		for (i = 0; i < s.n; i++) {
			const struct point *p = &s.p[i];

			json_array_append_new(
				arr,
				json_pack("{s:I, s:s, s:o, s:o, s:o, s:I, s:f, s:f, s:f, s:s, s:o}",
					  "run", (json_int_t)p->run_id, "created_ns", p->created_ns,
					  "commit", rn_json_text(p->commit), "branch",
					  rn_json_text(p->branch), "machine",
					  rn_json_text(p->machine), "nsamples",
					  (json_int_t)p->nsamples, "median", p->median, "min",
					  p->min, "max", p->max, "unit", s.unit, "samples",
					  json_loads(p->samples ? p->samples : "[]", 0, NULL)));
		}
		text = json_dumps(arr, JSON_INDENT(2));
		if (text)
			printf("%s\n", text);
		free(text);
		json_decref(arr);
	}
	series_release(&s);
	return 0;
}

/* ---- change points ---------------------------------------------------------------------- */

/* A (target, metric, machine) with enough points. */
struct key {
	char *target, *metric, *machine;
};

struct keys {
	struct key *k;
	size_t n, cap;
};

static int key_row(void *ctx, size_t ncols, const char *const *v)
{
	struct keys *ks = ctx;

	if (ncols < 3)
		return 0;
	ks->k = rn_xgrow(ks->k, &ks->cap, ks->n + 1, sizeof(*ks->k));
	ks->k[ks->n].target = rn_xstrdup(v[0] ? v[0] : "");
	ks->k[ks->n].metric = rn_xstrdup(v[1] ? v[1] : "");
	ks->k[ks->n].machine = rn_xstrdup(v[2] ? v[2] : "");
	ks->n++;
	return 0;
}

static void keys_release(struct keys *ks)
{
	size_t i;

	for (i = 0; i < ks->n; i++) {
		free(ks->k[i].target);
		free(ks->k[i].metric);
		free(ks->k[i].machine);
	}
	free(ks->k);
}

/* The search the store keeps up to date: default settings, one machine, every branch, the
 * last RN_HISTORY_CHANGES_RUNS runs. */
static bool default_search(const struct rn_edivisive_cfg *cfg, const char *machine,
			   const char *branch, long last)
{
	struct rn_edivisive_cfg d;

	rn_edivisive_cfg_init(&d);
	return machine && !branch && last == RN_HISTORY_CHANGES_RUNS && d.alpha == cfg->alpha &&
		d.min_rel_change == cfg->min_rel_change && d.min_size == cfg->min_size &&
		d.exponent == cfg->exponent && d.max_changes == cfg->max_changes &&
		d.refine == cfg->refine && d.trim == cfg->trim;
}

int rn_history_changes_of(struct rn_history *h, const char *target, const char *metric,
			  const char *machine, const char *branch, long last,
			  const struct rn_edivisive_cfg *ecfg,
			  void (*fn)(void *ctx, const struct rn_history_change *c), void *ctx)
{
	struct series s;
	struct rn_edivisive_cfg cfg;
	struct rn_changepoint *cp = NULL;
	double *x;
	size_t ncp = 0, i;
	int rc;

	memset(&s, 0, sizeof(s));
	if (last <= 0 || last > RN_EDIVISIVE_MAX_POINTS)
		last = last <= 0 ? RN_HISTORY_CHANGES_RUNS : RN_EDIVISIVE_MAX_POINTS;
	rc = load_series(h, target, metric, machine, branch, last, &s);
	if (rc) {
		series_release(&s);
		return rc;
	}
	x = rn_xcalloc(s.n + 1, sizeof(*x));
	for (i = 0; i < s.n; i++)
		x[i] = s.p[i].median;
	if (ecfg)
		cfg = *ecfg;
	else
		rn_edivisive_cfg_init(&cfg);
	if (default_search(&cfg, machine, branch, last)) {
		/* Incremental: from the cuts kept at the last check (rn_history_series_changes
		 * reads the same runs); their indices map to this series by run id. */
		int64_t *run = NULL;
		double *y = NULL;
		size_t n = 0, j, k = 0;

		rc = rn_history_series_changes(h, target, metric, machine, &run, &y, &n, &cp, &ncp,
					       false);
		for (j = 0; !rc && j < ncp; j++) {
			while (k < s.n && s.p[k].run_id != run[cp[j].index])
				k++;
			if (k == s.n || n != s.n) {
				/* The store changed between the two reads: search this series. */
				free(cp);
				cp = NULL;
				rn_edivisive(x, s.n, &cfg, &cp, &ncp);
				break;
			}
		}
		free(run);
		free(y);
		if (rc) {
			free(x);
			series_release(&s);
			return rc;
		}
	} else {
		rn_edivisive(x, s.n, &cfg, &cp, &ncp);
	}
	for (i = 0; i < ncp; i++) {
		const struct point *p = &s.p[cp[i].index];
		struct rn_history_change c;

		c.target = target;
		c.metric = metric;
		c.machine = machine;
		c.unit = s.unit;
		c.run_id = p->run_id;
		c.index = cp[i].index;
		c.commit = p->commit;
		c.created_ns = strtoll(p->created_ns, NULL, 10);
		c.before = cp[i].median_before;
		c.after = cp[i].median_after;
		c.ratio = cp[i].ratio;
		c.rel_change = cp[i].rel_change;
		c.p_value = cp[i].p_value;
		c.first_commit = s.p[cp[i].first].commit;
		c.last_commit = s.p[cp[i].last].commit;
		c.first_run = s.p[cp[i].first].run_id;
		c.last_run = s.p[cp[i].last].run_id;
		fn(ctx, &c);
	}
	free(cp);
	free(x);
	series_release(&s);
	return 0;
}

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
	fmt_time(when, sizeof(when), ns);
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
	       c->rel_change * 100, decimals(c->before, c->unit), shown(c->before, c->unit),
	       decimals(c->after, c->unit), shown(c->after, c->unit), shown_unit(c->unit), c->ratio,
	       c->p_value);
}

/* One change as JSON (`history changes --format json`, the report page): values in the
 * metric's unit as stored. */
static json_t *change_json(const struct rn_history_change *c)
{
	return json_pack("{s:o, s:o, s:o, s:s, s:I, s:I, s:o, s:I, s:f, s:f, s:f, s:f, s:f, "
			 "s:I, s:o, s:I, s:o}",
			 "target", rn_json_text(c->target), "metric", rn_json_text(c->metric),
			 "machine", rn_json_text(c->machine), "unit", c->unit, "run",
			 (json_int_t)c->run_id, "index", (json_int_t)c->index, "commit",
			 rn_json_text(c->commit), "created_ns", (json_int_t)c->created_ns, "before",
			 c->before, "after", c->after, "ratio", c->ratio, "rel_change",
			 c->rel_change, "p_value", c->p_value, "first_run",
			 (json_int_t)c->first_run, "first_commit", rn_json_text(c->first_commit),
			 "last_run", (json_int_t)c->last_run, "last_commit",
			 rn_json_text(c->last_commit));
}

struct counting {
	size_t n;
	json_t *arr; /* --format json: the changes, else NULL */
};

static void print_and_count(void *ctx, const struct rn_history_change *c)
{
	struct counting *k = ctx;

	if (k->arr)
		json_array_append_new(k->arr, change_json(c));
	else
		print_change(NULL, c);
	k->n++;
}

/* The search's settings from --min-change and --alpha. */
static void changes_cfg(const struct hist_opts *o, struct rn_edivisive_cfg *cfg)
{
	rn_edivisive_cfg_init(cfg);
	if (o->min_change_pct >= 0)
		cfg->min_rel_change = o->min_change_pct / 100;
	if (o->alpha > 0)
		cfg->alpha = o->alpha;
}

static int history_changes(struct rn_history *h, const struct hist_opts *o)
{
	struct keys ks;
	struct rn_buf sql;
	const char *params[3];
	size_t np = 0, i;
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
	memset(&ks, 0, sizeof(ks));
	rn_buf_init(&sql, 0);
	rn_buf_adds(&sql,
		    "SELECT DISTINCT s.target, s.metric, r.machine FROM results s JOIN runs "
		    "r ON r.id = s.run_id WHERE 1 = 1");
	if (o->noperands >= 2) {
		rn_buf_adds(&sql, " AND s.target = ?");
		params[np++] = o->operands[1];
	}
	if (o->noperands >= 3) {
		rn_buf_adds(&sql, " AND s.metric = ?");
		params[np++] = o->operands[2];
	}
	if (o->machine) {
		rn_buf_adds(&sql, " AND r.machine = ?");
		params[np++] = o->machine;
	}
	rn_buf_adds(&sql, " ORDER BY 1, 2, 3");
	rc = rn_history_query(h, sql.buf, params, np, key_row, &ks);
	rn_buf_release(&sql);
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
	keys_release(&ks);
	return rc;
}

/* ---- export and import of a whole store (renacer-history/1) ------------------------------ */

static int count_rows(void *ctx, size_t ncols, const char *const *v);

/*
 * The document `history export --format history` writes and `history import` reads:
 *   {"format": "renacer-history/1", "runs": [{uid, created_ns, commit, branch, machine,
 *    machine_desc, source, config, renacer_version, exit_code, subject, author_ns, rerun_of,
 *    results: [{target, metric, unit, nsamples, median, min, max, samples}],
 *    verdicts: [{target, assertion, type, verdict, observed, budget, golden, unit, message}],
 *    critical_path: [{target, seq, process, pid, start_ns, end_ns}],
 *    syscalls: [{target, syscall, calls, errors, time_ns}]}]}
 * Runs oldest first (created_ns, then uid), each table's rows in the order recorded. Values as
 * stored: ns, bytes, counts; null where the store has NULL. The local row ids are not
 * exported: a run is known by its uid, so importing a file twice adds nothing the second time.
 */
#define HISTORY_FORMAT "renacer-history/1"

/* Columns of one table in the document: name and kind (s string, i integer, d double,
 * j JSON text), NULL-terminated. The SQL selects run_id first, then these in order. */
struct doc_col {
	const char *name; /* key in the document */
	const char *sql;  /* column in the store */
	char kind;        /* 's', 'i', 'd' or 'j' */
};

static const struct doc_col run_cols[] = {
	{ "uid", "uid", 's' },
	{ "created_ns", "created_ns", 'i' },
	{ "commit", "commit_sha", 's' },
	{ "branch", "branch", 's' },
	{ "machine", "machine", 's' },
	{ "machine_desc", "machine_desc", 's' },
	{ "source", "source", 's' },
	{ "config", "config", 's' },
	{ "renacer_version", "renacer_version", 's' },
	{ "exit_code", "exit_code", 'i' },
	{ "subject", "subject", 's' },
	{ "author_ns", "author_ns", 'i' },
	{ "rerun_of", "rerun_of", 's' },
	{ NULL, NULL, 0 },
};

static const struct doc_col result_cols[] = {
	{ "target", "target", 's' },     { "metric", "metric", 's' },   { "unit", "unit", 's' },
	{ "nsamples", "nsamples", 'i' }, { "median", "median", 'd' },   { "min", "min_value", 'd' },
	{ "max", "max_value", 'd' },     { "samples", "samples", 'j' }, { NULL, NULL, 0 },
};

static const struct doc_col verdict_cols[] = {
	{ "target", "target", 's' },     { "assertion", "assertion", 's' },
	{ "type", "type", 's' },         { "verdict", "verdict", 's' },
	{ "observed", "observed", 'd' }, { "budget", "budget", 'd' },
	{ "golden", "golden", 'd' },     { "unit", "unit", 's' },
	{ "message", "message", 's' },   { NULL, NULL, 0 },
};

static const struct doc_col cp_cols[] = {
	{ "target", "target", 's' }, { "seq", "seq", 'i' },           { "process", "process", 's' },
	{ "pid", "pid", 'i' },       { "start_ns", "start_ns", 'i' }, { "end_ns", "end_ns", 'i' },
	{ NULL, NULL, 0 },
};

static const struct doc_col syscall_cols[] = {
	{ "target", "target", 's' }, { "syscall", "syscall", 's' }, { "calls", "calls", 'd' },
	{ "errors", "errors", 'd' }, { "time_ns", "time_ns", 'd' }, { NULL, NULL, 0 },
};

/* The tables below runs, in document order. */
static const struct doc_table {
	const char *key;            /* member of a run in the document */
	const char *table;          /* table in the store */
	const struct doc_col *cols; /* its columns */
} doc_tables[] = {
	{ "results", "results", result_cols },
	{ "verdicts", "verdicts", verdict_cols },
	{ "critical_path", "critical_path", cp_cols },
	{ "syscalls", "syscalls", syscall_cols },
};

static json_t *doc_value(const char *v, char kind)
{
	if (!v)
		return json_null();
	switch (kind) {
	case 'i':
		return json_integer(strtoll(v, NULL, 10));
	case 'd':
		return json_real(strtod(v, NULL));
	case 'j': {
		json_t *j = json_loads(v, JSON_DECODE_ANY, NULL);

		return j ? j : rn_json_text(v);
	}
	default:
		return rn_json_text(v);
	}
}

static json_t *doc_row(const struct doc_col *cols, size_t ncols, const char *const *v)
{
	json_t *o = json_object();
	size_t i;

	for (i = 0; cols[i].name && i < ncols; i++)
		json_object_set_new(o, cols[i].name, doc_value(v[i], cols[i].kind));
	return o;
}

/* The runs exported, by local id (sorted), each with its document object. */
struct doc_run {
	int64_t id;
	json_t *run; /* borrowed from the runs array */
};

struct doc_export {
	struct doc_run *r;
	size_t n, cap;
	json_t *runs;              /* the document's runs */
	const struct doc_table *t; /* table being read */
	const char *target;        /* --target, or NULL */
	const char *metric;        /* --metric, or NULL */
};

static int doc_run_row(void *ctx, size_t ncols, const char *const *v)
{
	struct doc_export *e = ctx;
	json_t *o;
	size_t k;

	if (ncols < 14)
		return 0;
	o = doc_row(run_cols, ncols - 1, v + 1);
	for (k = 0; k < sizeof(doc_tables) / sizeof(doc_tables[0]); k++)
		json_object_set_new(o, doc_tables[k].key, json_array());
	json_array_append_new(e->runs, o);
	e->r = rn_xgrow(e->r, &e->cap, e->n + 1, sizeof(*e->r));
	e->r[e->n].id = strtoll(v[0], NULL, 10);
	e->r[e->n].run = o;
	e->n++;
	return 0;
}

static int cmp_doc_run(const void *a, const void *b)
{
	const struct doc_run *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static int doc_child_row(void *ctx, size_t ncols, const char *const *v)
{
	struct doc_export *e = ctx;
	struct doc_run key, *r;

	if (ncols < 2 || !v[0])
		return 0;
	key.id = strtoll(v[0], NULL, 10);
	r = bsearch(&key, e->r, e->n, sizeof(*e->r), cmp_doc_run);
	if (!r)
		return 0;
	if (e->target && (!v[1] || strcmp(v[1], e->target)))
		return 0;
	if (e->metric && e->t->cols == result_cols && (!v[2] || strcmp(v[2], e->metric)))
		return 0;
	json_array_append_new(json_object_get(r->run, e->t->key),
			      doc_row(e->t->cols, ncols - 1, v + 1));
	return 0;
}

static void select_cols(struct rn_buf *sql, const char *first, const struct doc_col *cols)
{
	size_t i;

	rn_buf_addf(sql, "SELECT %s", first);
	for (i = 0; cols[i].name; i++)
		rn_buf_addf(sql, ", %s", cols[i].sql);
}

/* The whole store (runs of --machine / --branch; rows of --target / --metric) as a
 * renacer-history/1 document. */
static int export_store(struct rn_history *h, const struct hist_opts *o, json_t **doc)
{
	struct doc_export e;
	struct rn_buf sql;
	const char *params[2];
	size_t np = 0, k;
	int rc;

	memset(&e, 0, sizeof(e));
	e.runs = json_array();
	e.target = o->target;
	e.metric = o->metric;
	rn_buf_init(&sql, 0);
	select_cols(&sql, "id", run_cols);
	rn_buf_adds(&sql, " FROM runs WHERE 1 = 1");
	if (o->machine) {
		rn_buf_adds(&sql, " AND machine = ?");
		params[np++] = o->machine;
	}
	if (o->branch) {
		rn_buf_adds(&sql, " AND branch = ?");
		params[np++] = o->branch;
	}
	rn_buf_adds(&sql, " ORDER BY created_ns, uid");
	rc = rn_history_query(h, sql.buf, params, np, doc_run_row, &e);
	qsort(e.r, e.n, sizeof(*e.r), cmp_doc_run);
	for (k = 0; !rc && e.n && k < sizeof(doc_tables) / sizeof(doc_tables[0]); k++) {
		rn_buf_reset(&sql);
		select_cols(&sql, "run_id", doc_tables[k].cols);
		rn_buf_addf(&sql, " FROM %s ORDER BY run_id, id", doc_tables[k].table);
		e.t = &doc_tables[k];
		rc = rn_history_query(h, sql.buf, NULL, 0, doc_child_row, &e);
	}
	rn_buf_release(&sql);
	free(e.r);
	if (rc) {
		json_decref(e.runs);
		return rc;
	}
	*doc = json_pack("{s:s, s:o}", "format", HISTORY_FORMAT, "runs", e.runs);
	return 0;
}

/* The text of a document value for a parameter (NULL for null); into buf[48] for numbers,
 * a malloc'ed *owned for JSON. Returns -1 when the value is of the wrong kind. */
static int doc_param(const json_t *v, char kind, char *buf, char **owned, const char **out)
{
	*owned = NULL;
	if (!v || json_is_null(v)) {
		*out = NULL;
		return 0;
	}
	switch (kind) {
	case 'i':
		if (!json_is_integer(v))
			return -1;
		snprintf(buf, 48, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		break;
	case 'd':
		if (!json_is_number(v))
			return -1;
		snprintf(buf, 48, "%.17g", json_number_value(v));
		break;
	case 'j':
		*owned = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
		*out = *owned;
		return *owned ? 0 : -1;
	default:
		if (!json_is_string(v))
			return -1;
		*out = json_string_value(v);
		return 0;
	}
	*out = buf;
	return 0;
}

/* Insert one document object into `table` (columns `cols`; run_id first when given). */
static int doc_insert(struct rn_history *h, const char *path, const char *table,
		      const struct doc_col *cols, const char *run_id, const json_t *o,
		      const char *returning, int64_t *id)
{
	const char *params[20];
	char bufs[20][48], *owned[20];
	struct rn_buf sql;
	size_t n = 0, i;
	int rc = 0;

	rn_buf_init(&sql, 0);
	rn_buf_addf(&sql, "INSERT INTO %s (", table);
	if (run_id) {
		rn_buf_adds(&sql, "run_id");
		owned[n] = NULL;
		params[n++] = run_id;
	}
	for (i = 0; cols[i].name; i++) {
		rn_buf_addf(&sql, "%s%s", n ? ", " : "", cols[i].sql);
		if (doc_param(json_object_get(o, cols[i].name), cols[i].kind, bufs[n], &owned[n],
			      &params[n])) {
			rc = rn_error("%s: %s: '%s' is not a%s %s", path, table, cols[i].name,
				      cols[i].kind == 'i' ? "n" : "",
				      cols[i].kind == 'i'         ? "integer" :
					      cols[i].kind == 'd' ? "number" :
					      cols[i].kind == 'j' ? "JSON value" :
								    "string");
			rc = -EINVAL;
		}
		n++;
	}
	rn_buf_adds(&sql, ") VALUES (");
	for (i = 0; i < n; i++)
		rn_buf_adds(&sql, i ? ", ?" : "?");
	rn_buf_addf(&sql, ")%s", returning ? returning : "");
	if (!rc)
		rc = rn_history_query(h, sql.buf, params, n, returning ? count_rows : NULL, id);
	for (i = 0; i < n; i++)
		free(owned[i]);
	rn_buf_release(&sql);
	return rc;
}

static int exists_row(void *ctx, size_t ncols, const char *const *v)
{
	(void)ncols;
	(void)v;
	*(bool *)ctx = true;
	return 0;
}

/* Import a renacer-history/1 document: every run whose uid the store lacks, in one
 * transaction. */
static int import_store(struct rn_history *h, const char *path, const json_t *doc)
{
	const json_t *runs = json_object_get(doc, "runs");
	size_t i, added = 0, skipped = 0, k;
	int rc;

	if (!json_is_array(runs))
		return rn_error("%s: 'runs' is not an array", path), -EINVAL;
	rc = h->ops->exec(h, h->ops->begin_sql);
	for (i = 0; i < json_array_size(runs) && !rc; i++) {
		const json_t *run = json_array_get(runs, i);
		const char *uid = json_string_value(json_object_get(run, "uid"));
		const char *params[1] = { uid };
		bool exists = false;
		int64_t id = 0;
		char idtext[24];

		if (!json_is_object(run) || !uid || !*uid) {
			rc = rn_error("%s: run %zu has no uid", path, i + 1);
			rc = -EINVAL;
			break;
		}
		rc = rn_history_query(h, "SELECT 1 FROM runs WHERE uid = ?", params, 1, exists_row,
				      &exists);
		if (rc || exists) {
			skipped += exists;
			continue;
		}
		rc = doc_insert(h, path, "runs", run_cols, NULL, run, " RETURNING id", &id);
		if (!rc && id <= 0)
			rc = -EIO, snprintf(h->err, sizeof(h->err), "the imported run got no id");
		snprintf(idtext, sizeof(idtext), "%lld", (long long)id);
		for (k = 0; !rc && k < sizeof(doc_tables) / sizeof(doc_tables[0]); k++) {
			const json_t *rows = json_object_get(run, doc_tables[k].key);
			size_t r;

			for (r = 0; !rc && r < json_array_size(rows); r++)
				rc = doc_insert(h, path, doc_tables[k].table, doc_tables[k].cols,
						idtext, json_array_get(rows, r), NULL, NULL);
		}
		added += !rc;
	}
	if (!rc)
		rc = h->ops->exec(h, "COMMIT");
	if (rc) {
		char keep[sizeof(h->err)];

		memcpy(keep, h->err, sizeof(keep));
		h->ops->exec(h, "ROLLBACK");
		memcpy(h->err, keep, sizeof(keep));
		if (rc != -EINVAL)
			rn_error("history '%s': %s", h->location, h->err);
		return rc;
	}
	printf("imported %s: %zu run%s added, %zu already in the store\n", path, added,
	       added == 1 ? "" : "s", skipped);
	return 0;
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
		if (strpbrk(s, ",\"\n\r")) {
			rn_buf_addc(e->b, '"');
			for (; *s; s++) {
				if (*s == '"')
					rn_buf_addc(e->b, '"');
				rn_buf_addc(e->b, *s);
			}
			rn_buf_addc(e->b, '"');
		} else {
			rn_buf_adds(e->b, s);
		}
	}
	rn_buf_addc(e->b, '\n');
	return 0;
}

static int history_export(struct rn_history *h, const struct hist_opts *o)
{
	const char *fmt = o->format ? o->format : "csv";
	struct export_ctx e;
	struct rn_buf b, sql;
	const char *params[4];
	size_t np = 0;
	int rc;

	if (strcmp(fmt, "csv") && strcmp(fmt, "json") && strcmp(fmt, "history"))
		return rn_error("--format must be csv, json or history, found '%s'", fmt), -EINVAL;
	rn_buf_init(&b, 0);
	if (!strcmp(fmt, "history")) {
		json_t *doc = NULL;
		char *text;

		e.arr = NULL;
		rc = export_store(h, o, &doc);
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
	rn_buf_init(&sql, 0);
	e.b = &b;
	e.json = !strcmp(fmt, "json");
	e.arr = e.json ? json_array() : NULL;
	if (!e.json)
		rn_buf_adds(&b, EXPORT_CSV_HEADER);
	rn_buf_adds(&sql,
		    "SELECT r.id, r.created_ns, r.commit_sha, r.branch, r.machine, r.source, "
		    "s.target, s.metric, s.unit, s.nsamples, s.median, s.min_value, "
		    "s.max_value, s.samples FROM results s JOIN runs r ON r.id = s.run_id "
		    "WHERE 1 = 1");
	if (o->target) {
		rn_buf_adds(&sql, " AND s.target = ?");
		params[np++] = o->target;
	}
	if (o->metric) {
		rn_buf_adds(&sql, " AND s.metric = ?");
		params[np++] = o->metric;
	}
	if (o->machine) {
		rn_buf_adds(&sql, " AND r.machine = ?");
		params[np++] = o->machine;
	}
	if (o->branch) {
		rn_buf_adds(&sql, " AND r.branch = ?");
		params[np++] = o->branch;
	}
	rn_buf_adds(&sql, " ORDER BY r.id, s.id");
	rc = rn_history_query(h, sql.buf, params, np, export_row, &e);
	rn_buf_release(&sql);
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

/* "2025-01-31T12:00:00Z" -> ns since the epoch; 0 when it does not parse. */
static uint64_t parse_iso(const char *s)
{
	struct tm tm;
	const char *end;

	if (!s)
		return 0;
	memset(&tm, 0, sizeof(tm));
	end = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!end)
		return 0;
	return (uint64_t)timegm(&tm) * 1000000000ull;
}

/* A golden trace as a target result: its timing runs and its counting runs (when it has
 * any), every metric's samples in the runs that measure it. */
static void golden_to_result(const struct rn_golden *g, const char *name,
			     struct rn_target_result *r)
{
	size_t i, k;
	int m;

	rn_target_result_init(r, name);
	r->nruns = g->nruns ? g->nruns : 1;
	r->runs = rn_xcalloc(r->nruns, sizeof(*r->runs));
	for (i = 0; i < r->nruns; i++) {
		r->runs[i].status = RN_RUN_OK;
		r->runs[i].measures = g->ncounting_runs ? RN_MEASURES_TIMES : RN_MEASURES_BOTH;
	}
	if (g->ncounting_runs) {
		r->ncounts = g->ncounting_runs;
		r->counts = rn_xcalloc(r->ncounts, sizeof(*r->counts));
		for (i = 0; i < r->ncounts; i++) {
			r->counts[i].status = RN_RUN_OK;
			r->counts[i].measures = RN_MEASURES_COUNTS;
		}
	}
	for (m = 0; m < RN_METRIC_COUNT; m++) {
		bool counting = g->ncounting_runs &&
			rn_metric_measured_by((enum rn_metric)m) == RN_MEASURES_COUNTS;
		struct rn_metrics *runs = counting ? r->counts : r->runs;
		size_t n = counting ? r->ncounts : r->nruns;

		for (i = 0; g->samples[m] && i < g->nsamples[m] && i < n; i++)
			runs[i].v[m] = (uint64_t)llround(g->samples[m][i]);
	}
	/* A renacer-json-v1 baseline has counts only: its one run's syscalls and errors. */
	if (g->counts_only) {
		double calls = 0, errors = 0;

		for (k = 0; k < g->nsyscalls; k++) {
			calls += g->syscalls[k].calls;
			errors += g->syscalls[k].errors;
		}
		r->runs[0].v[RN_METRIC_SYSCALLS] = (uint64_t)llround(calls);
		r->runs[0].v[RN_METRIC_SYSCALL_ERRORS] = (uint64_t)llround(errors);
	}
}

int64_t rn_history_import_file(struct rn_history *h, const char *path,
			       const struct rn_history_import_opts *io, const struct rn_config *cfg,
			       struct rn_history_imported *out)
{
	struct rn_golden g;
	struct rn_diag d;
	struct rn_target_result r;
	struct rn_target_report tr;
	struct rn_history_run run;
	char bufs[4][256], machine[256];
	const char *base = strrchr(path, '/');
	char *dot, *name = out->target;
	int64_t id;

	memset(out, 0, sizeof(*out));
	if (rn_golden_read(path, &g, &d)) {
		rn_diag_print(&d, false);
		return -EINVAL;
	}
	snprintf(name, sizeof(out->target), "%s", base ? base + 1 : path);
	dot = strrchr(name, '.');
	if (dot)
		*dot = '\0';
	if (io->target)
		snprintf(name, sizeof(out->target), "%s", io->target);
	else if (g.target)
		snprintf(name, sizeof(out->target), "%s", g.target);
	/* check's rule for target names: the name is printed and recorded */
	if (!rn_config_name_valid(name)) {
		rn_error("%s: target name '%s' must match [A-Za-z0-9_.-]+ (give one with --target)",
			 path, name);
		rn_golden_release(&g);
		return -EINVAL;
	}
	memset(&run, 0, sizeof(run));
	rn_history_run_identify(&run, cfg ? cfg->dir : ".", cfg ? cfg->history.machine : NULL,
				bufs);
	/* A trace recorded elsewhere is not this machine's series. */
	if (!io->machine && !rn_golden_same_machine(&g)) {
		snprintf(machine, sizeof(machine), "golden:%s/%s",
			 g.cpu_model ? g.cpu_model : "unknown", g.kernel ? g.kernel : "unknown");
		run.machine = machine;
	} else if (io->machine) {
		run.machine = io->machine;
	}
	if (io->commit)
		run.commit = io->commit;
	if (io->branch)
		run.branch = io->branch;
	run.created_ns = parse_iso(g.created);
	if (!run.created_ns) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		run.created_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	}
	run.source = "import";
	run.config = path;
	golden_to_result(&g, name, &r);
	memset(&tr, 0, sizeof(tr));
	tr.result = &r;
	id = rn_history_append(h, &run, &tr, 1);
	out->id = id;
	out->nruns = r.nruns;
	out->counts_only = g.counts_only;
	rn_target_result_release(&r);
	rn_golden_release(&g);
	return id;
}

static int history_import(struct rn_history *h, const struct hist_opts *o,
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

		{
			json_t *doc = json_load_file(path, 0, NULL);
			const char *f = json_string_value(json_object_get(doc, "format"));

			if (f && !strcmp(f, HISTORY_FORMAT)) {
				int rc = import_store(h, path, doc);

				json_decref(doc);
				if (rc)
					return rc;
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

static int count_rows(void *ctx, size_t ncols, const char *const *v)
{
	if (ncols >= 1 && v[0])
		*(int64_t *)ctx = strtoll(v[0], NULL, 10);
	return 0;
}

static int history_prune(struct rn_history *h, const struct hist_opts *o)
{
	static const char *const deletes[] = {
		"DELETE FROM critical_path WHERE run_id IN (SELECT id FROM runs WHERE created_ns < ?)",
		"DELETE FROM syscalls WHERE run_id IN (SELECT id FROM runs WHERE created_ns < ?)",
		"DELETE FROM verdicts WHERE run_id IN (SELECT id FROM runs WHERE created_ns < ?)",
		"DELETE FROM results WHERE run_id IN (SELECT id FROM runs WHERE created_ns < ?)",
		"DELETE FROM runs WHERE created_ns < ?",
	};
	struct timespec ts;
	char cutoff[32];
	const char *params[] = { cutoff };
	int64_t n = 0;
	size_t i;
	int rc;

	if (o->older_than_days < 0)
		return rn_error("usage: renacer history prune --older-than DAYS"), -EINVAL;
	clock_gettime(CLOCK_REALTIME, &ts);
	snprintf(cutoff, sizeof(cutoff), "%lld",
		 ((long long)ts.tv_sec - o->older_than_days * 86400ll) * 1000000000ll);
	rc = h->ops->exec(h, h->ops->begin_sql);
	if (!rc)
		rc = rn_history_query(h, "SELECT count(*) FROM runs WHERE created_ns < ?", params,
				      1, count_rows, &n);
	for (i = 0; i < sizeof(deletes) / sizeof(deletes[0]) && !rc; i++)
		rc = rn_history_query(h, deletes[i], params, 1, NULL, NULL);
	if (!rc)
		rc = h->ops->exec(h, "COMMIT");
	if (rc) {
		rn_error("history '%s': %s", h->location, h->err);
		h->ops->exec(h, "ROLLBACK");
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

static int first_col(void *ctx, size_t ncols, const char *const *v)
{
	if (ncols >= 1 && v[0])
		snprintf(ctx, 24, "%s", v[0]);
	return 0;
}

static int history_quality(struct rn_history *h, const struct hist_opts *o)
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
		char sql[160];

		snprintf(
			sql, sizeof(sql),
			"SELECT min(id) FROM (SELECT id FROM runs ORDER BY id DESC LIMIT %ld) AS last",
			o->limit);
		rc = rn_history_query(h, sql, NULL, 0, first_col, min_run);
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

/* ---- the report page --------------------------------------------------------------------- */

struct last_run {
	json_t *run;
	char id[24];
	char machine[256];
};

static int last_run_row(void *ctx, size_t ncols, const char *const *v)
{
	struct last_run *lr = ctx;
	char when[32];

	if (ncols < 8)
		return 0;
	fmt_time(when, sizeof(when), v[1]);
	/* Stored text as JSON strings through rn_json_text: a store written before names were
	 * repaired may hold invalid UTF-8, which json_pack's "s" refuses (the run was lost). */
	lr->run = json_pack("{s:I, s:s, s:o, s:o, s:o, s:o, s:I, s:o}", "id",
			    (json_int_t)strtoll(v[0], NULL, 10), "time", when, "commit",
			    rn_json_text(v[2]), "branch", rn_json_text(v[3]), "machine",
			    rn_json_text(v[4]), "machine_desc", rn_json_text(v[5]), "exit_code",
			    (json_int_t)strtoll(v[6] ? v[6] : "0", NULL, 10), "config",
			    rn_json_text(v[7]));
	snprintf(lr->id, sizeof(lr->id), "%s", v[0]);
	snprintf(lr->machine, sizeof(lr->machine), "%s", v[4] ? v[4] : "");
	return 1;
}

static json_t *num_or_null(const char *s)
{
	return s ? json_real(strtod(s, NULL)) : json_null();
}

static int verdict_row(void *ctx, size_t ncols, const char *const *v)
{
	if (ncols < 9)
		return 0;
	json_array_append_new(ctx,
			      json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "target",
					rn_json_text(v[0]), "assertion", rn_json_text(v[1]), "type",
					rn_json_text(v[2]), "verdict", rn_json_text(v[3]),
					"observed", num_or_null(v[4]), "budget", num_or_null(v[5]),
					"golden", num_or_null(v[6]), "unit", rn_json_text(v[7]),
					"message", rn_json_text(v[8])));
	return 0;
}

static int cp_row(void *ctx, size_t ncols, const char *const *v)
{
	json_t *list = ctx, *last;
	size_t n = json_array_size(list);

	if (ncols < 5)
		return 0;
	last = n ? json_array_get(list, n - 1) : NULL;
	if (!last || strcmp(str_of_json(last, "target"), v[0] ? v[0] : "")) {
		last = json_pack("{s:o, s:[]}", "target", rn_json_text(v[0]), "segments");
		json_array_append_new(list, last);
	}
	json_array_append_new(json_object_get(last, "segments"),
			      json_pack("{s:o, s:I, s:f, s:f}", "process",
					rn_json_text(v[1] ? v[1] : "?"), "pid",
					(json_int_t)strtoll(v[2] ? v[2] : "0", NULL, 10),
					"start_ms", strtod(v[3] ? v[3] : "0", NULL) / 1e6, "end_ms",
					strtod(v[4] ? v[4] : "0", NULL) / 1e6));
	return 0;
}

static void add_change(void *ctx, const struct rn_history_change *c)
{
	json_t *j = change_json(c);

	/* The page draws in the unit shown. */
	json_object_set_new(j, "before", json_real(shown(c->before, c->unit)));
	json_object_set_new(j, "after", json_real(shown(c->after, c->unit)));
	json_array_append_new(ctx, j);
}

/* The golden trace's range of `metric` for `target`, in the unit shown; NULL when none. */
static json_t *golden_band(const struct rn_config *cfg, const char *target, const char *metric)
{
	char *path;
	struct rn_golden g;
	struct rn_diag d;
	json_t *band = NULL;
	int m = rn_metric_lookup(metric);

	if (!cfg || m < 0)
		return NULL;
	path = rn_golden_path(cfg->golden_dir, target);
	if (!path || access(path, F_OK) || rn_golden_read(path, &g, &d)) {
		free(path);
		return NULL;
	}
	if (g.samples[m] && g.nsamples[m]) {
		const char *unit = rn_metric_info((enum rn_metric)m)->unit;
		double lo = g.samples[m][0], hi = lo;
		size_t i;

		for (i = 1; i < g.nsamples[m]; i++) {
			lo = fmin(lo, g.samples[m][i]);
			hi = fmax(hi, g.samples[m][i]);
		}
		band = json_pack("{s:f, s:f, s:f}", "lo", shown(lo, unit), "hi", shown(hi, unit),
				 "median",
				 shown(rn_aggregate(g.samples[m], g.nsamples[m], RN_AGG_MEDIAN),
				       unit));
	}
	rn_golden_release(&g);
	free(path);
	return band;
}

/* The runs of the page: the last N of the store, every machine and branch. */
struct page {
	json_t *runs;     /* [{id, time, commit, subject, date, branch, machine, exit_code}] */
	json_t *charts;   /* [{target, metric, unit, points: [[run, median, min, max]], ...}] */
	json_t *verdicts; /* {run: [{target, assertion, type, verdict, observed, budget, ...}]} */
	json_t *cps;      /* {run: [{target, segments: [{process, pid, start_ms, end_ms}]}]} */
	json_t *syscalls; /* {run: {target: {syscall: calls}}} */
	char min_id[24];  /* the oldest run of the page */
};

static int page_run_row(void *ctx, size_t ncols, const char *const *v)
{
	struct page *pg = ctx;
	char when[32], date[32] = "";

	if (ncols < 8)
		return 0;
	fmt_time(when, sizeof(when), v[1]);
	if (v[6])
		fmt_time(date, sizeof(date), v[6]);
	json_array_insert_new(pg->runs, 0,
			      json_pack("{s:I, s:s, s:o, s:o, s:o, s:o, s:s, s:I}", "id",
					(json_int_t)strtoll(v[0], NULL, 10), "time", when, "commit",
					rn_json_text(v[2]), "branch", rn_json_text(v[3]), "machine",
					rn_json_text(v[4]), "subject", rn_json_text(v[5]), "date",
					date, "exit_code",
					(json_int_t)strtoll(v[7] ? v[7] : "0", NULL, 10)));
	snprintf(pg->min_id, sizeof(pg->min_id), "%s", v[0]);
	return 0;
}

static int page_result_row(void *ctx, size_t ncols, const char *const *v)
{
	struct page *pg = ctx;
	size_t n = json_array_size(pg->charts);
	json_t *last = n ? json_array_get(pg->charts, n - 1) : NULL;
	const char *unit = v[3] ? v[3] : "";

	if (ncols < 7)
		return 0;
	if (!last || strcmp(str_of_json(last, "target"), v[1] ? v[1] : "") ||
	    strcmp(str_of_json(last, "metric"), v[2] ? v[2] : "")) {
		last = json_pack("{s:o, s:o, s:s, s:s, s:[]}", "target", rn_json_text(v[1]),
				 "metric", rn_json_text(v[2]), "unit", shown_unit(unit),
				 "stored_unit", unit, "points");
		json_array_append_new(pg->charts, last);
	}
	json_array_append_new(json_object_get(last, "points"),
			      json_pack("[I, f, f, f]", (json_int_t)strtoll(v[0], NULL, 10),
					shown(strtod(v[4] ? v[4] : "0", NULL), unit),
					shown(strtod(v[5] ? v[5] : "0", NULL), unit),
					shown(strtod(v[6] ? v[6] : "0", NULL), unit)));
	return 0;
}

/* The array of key `run` in the object `map` (created empty). */
static json_t *per_run(json_t *map, const char *run, bool object)
{
	json_t *a = json_object_get(map, run);

	if (!a) {
		a = object ? json_object() : json_array();
		json_object_set_new(map, run, a);
	}
	return a;
}

static int page_verdict_row(void *ctx, size_t ncols, const char *const *v)
{
	struct page *pg = ctx;

	if (ncols < 10 || !v[0])
		return 0;
	return verdict_row(per_run(pg->verdicts, v[0], false), ncols - 1, v + 1);
}

static int page_cp_row(void *ctx, size_t ncols, const char *const *v)
{
	struct page *pg = ctx;

	if (ncols < 6 || !v[0])
		return 0;
	return cp_row(per_run(pg->cps, v[0], false), ncols - 1, v + 1);
}

static int page_syscall_row(void *ctx, size_t ncols, const char *const *v)
{
	struct page *pg = ctx;
	json_t *t;

	if (ncols < 4 || !v[0] || !v[1] || !v[2])
		return 0;
	t = per_run(per_run(pg->syscalls, v[0], true), v[1], true);
	json_object_set_new(t, v[2], json_real(strtod(v[3] ? v[3] : "0", NULL)));
	return 0;
}

static json_t *report_model(struct rn_history *h, const struct hist_opts *o,
			    const struct rn_config *cfg, int *rc)
{
	struct last_run lr;
	struct page pg;
	struct rn_ledger_set led;
	json_t *model, *verdicts, *cps, *quality, *c;
	const char *params[1];
	char sql[512];
	size_t i;

	memset(&lr, 0, sizeof(lr));
	/* The last check (a walk back along the primary key), else the last run of any kind. */
	*rc = rn_history_query(h,
			       "SELECT id, created_ns, commit_sha, branch, machine, machine_desc, "
			       "exit_code, config FROM runs WHERE source = 'check' ORDER BY id DESC "
			       "LIMIT 1",
			       NULL, 0, last_run_row, &lr);
	if (*rc >= 0 && !lr.run)
		*rc = rn_history_query(h,
				       "SELECT id, created_ns, commit_sha, branch, machine, "
				       "machine_desc, exit_code, config FROM runs ORDER BY id DESC "
				       "LIMIT 1",
				       NULL, 0, last_run_row, &lr);
	if (*rc < 0)
		return NULL;
	*rc = 0;
	if (!lr.run) {
		rn_error("history '%s' has no recorded run: run 'renacer check --history' first",
			 h->location);
		*rc = -ENOENT;
		return NULL;
	}
	memset(&pg, 0, sizeof(pg));
	pg.runs = json_array();
	pg.charts = json_array();
	pg.verdicts = json_object();
	pg.cps = json_object();
	pg.syscalls = json_object();
	verdicts = json_array();
	cps = json_array();
	quality = json_array();
	params[0] = lr.id;
	*rc = rn_history_query(h,
			       "SELECT target, assertion, type, verdict, observed, budget, golden, "
			       "unit, message FROM verdicts WHERE run_id = ? ORDER BY id",
			       params, 1, verdict_row, verdicts);
	if (!*rc)
		*rc = rn_history_query(h,
				       "SELECT target, process, pid, start_ns, end_ns FROM "
				       "critical_path WHERE run_id = ? ORDER BY target, seq",
				       params, 1, cp_row, cps);
	/* The page's window: the last N runs of the store (the page's size is bounded by N,
	 * whatever the store holds). */
	snprintf(sql, sizeof(sql),
		 "SELECT id, created_ns, commit_sha, branch, machine, subject, author_ns, exit_code "
		 "FROM runs WHERE source <> 'golden' ORDER BY id DESC LIMIT %ld",
		 o->limit);
	if (!*rc)
		*rc = rn_history_query(h, sql, NULL, 0, page_run_row, &pg);
	params[0] = pg.min_id[0] ? pg.min_id : lr.id;
	if (!*rc)
		*rc = rn_history_query(
			h,
			"SELECT s.run_id, s.target, s.metric, s.unit, s.median, "
			"s.min_value, s.max_value FROM results s JOIN runs r ON r.id = "
			"s.run_id WHERE s.run_id >= ? AND r.source <> 'golden' ORDER BY "
			"s.target, s.metric, s.run_id",
			params, 1, page_result_row, &pg);
	if (!*rc)
		*rc = rn_history_query(
			h,
			"SELECT run_id, target, assertion, type, verdict, observed, "
			"budget, golden, unit, message FROM verdicts WHERE run_id >= ? "
			"ORDER BY run_id, id",
			params, 1, page_verdict_row, &pg);
	if (!*rc)
		*rc = rn_history_query(
			h,
			"SELECT run_id, target, process, pid, start_ns, end_ns FROM "
			"critical_path WHERE run_id >= ? ORDER BY run_id, target, seq",
			params, 1, page_cp_row, &pg);
	if (!*rc)
		*rc = rn_history_query(h,
				       "SELECT run_id, target, syscall, calls FROM syscalls WHERE "
				       "run_id >= ? ORDER BY run_id, target, syscall",
				       params, 1, page_syscall_row, &pg);
	/* Change points and the golden band of each chart, on the last run's machine. */
	json_array_foreach(pg.charts, i, c)
	{
		json_t *changes = json_array(), *band;
		const char *target = str_of_json(c, "target"), *metric = str_of_json(c, "metric");

		if (!*rc)
			*rc = rn_history_changes_of(h, target, metric,
						    o->machine ? o->machine : lr.machine, NULL,
						    o->limit, NULL, add_change, changes);
		band = golden_band(cfg, target, metric);
		json_object_set_new(c, "changes", changes);
		json_object_set_new(c, "band", band ? band : json_null());
	}
	if (!*rc) {
		/* Over the runs of the page: its time stays bounded by --last. */
		*rc = rn_ledger_read(h, NULL, NULL, pg.min_id[0] ? pg.min_id : NULL, &led);
		for (i = 0; !*rc && i < led.n; i++)
			json_array_append_new(quality, rn_ledger_json(&led.l[i]));
		rn_ledger_release(&led);
	}
	model = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "run", lr.run,
			  "verdicts", verdicts, "critical_path", cps, "runs", pg.runs, "charts",
			  pg.charts, "run_verdicts", pg.verdicts, "run_critical_paths", pg.cps,
			  "run_syscalls", pg.syscalls, "quality", quality, "machine",
			  rn_json_text(o->machine ? o->machine : lr.machine));
	if (*rc) {
		rn_error("history '%s': %s", h->location, h->err);
		json_decref(model);
		return NULL;
	}
	return model;
}

/* ---- the commands ----------------------------------------------------------------------- */

int rn_cmd_history(int argc, char **argv)
{
	struct hist_opts o;
	struct rn_config cfg;
	struct rn_history h;
	bool have_cfg = false, write;
	const char *sub;
	int rc;

	memset(&o, 0, sizeof(o));
	o.older_than_days = -1;
	o.min_change_pct = -1;
	if (parse_all(&rn_cmd_history_def, argc, argv, &o))
		return RN_EXIT_USAGE;
	if (o.help) {
		rn_cli_help(&rn_cmd_history_def, stdout);
		return RN_EXIT_OK;
	}
	sub = o.noperands ? o.operands[0] : "list";
	if (strcmp(sub, "list") && strcmp(sub, "show") && strcmp(sub, "changes") &&
	    strcmp(sub, "export") && strcmp(sub, "import") && strcmp(sub, "prune") &&
	    strcmp(sub, "quality")) {
		static const char *const subs[] = { "list",   "show",  "changes", "export",
						    "import", "prune", "quality", NULL };
		const char *hint = rn_suggest(sub, subs);

		rn_error("renacer history: unknown subcommand '%s'%s%s%s", sub,
			 hint ? " (did you mean '" : "", hint ? hint : "", hint ? "'?)" : "");
		return RN_EXIT_USAGE;
	}
	rc = load_config(&o, &cfg, &have_cfg);
	if (rc)
		return rc;
	write = !strcmp(sub, "import") || !strcmp(sub, "prune");
	if (!strcmp(sub, "prune") && o.older_than_days < 0) {
		rn_error("usage: renacer history prune --older-than DAYS");
		rc = RN_EXIT_USAGE;
		goto out_cfg;
	}
	rc = open_store(&o, have_cfg ? &cfg : NULL, write, &h,
			!strcmp(sub, "list") || !strcmp(sub, "export"));
	if (rc == 1) {
		/* A database without renacer's tables holds no runs: list and export say so. */
		rc = RN_EXIT_OK;
		if (!strcmp(sub, "list"))
			history_list_header();
		else if (o.format && !strcmp(o.format, "history"))
			printf("{\n \"format\": \"%s\",\n \"runs\": []\n}\n", HISTORY_FORMAT);
		else if (!o.format || !strcmp(o.format, "csv"))
			printf("%s", EXPORT_CSV_HEADER);
		else
			printf("[]\n");
		goto out_close;
	}
	if (rc) {
		rc = RN_EXIT_OUTPUT;
		goto out_close;
	}
	if (!strcmp(sub, "list"))
		rc = history_list(&h, &o);
	else if (!strcmp(sub, "show"))
		rc = history_show(&h, &o);
	else if (!strcmp(sub, "changes"))
		rc = history_changes(&h, &o);
	else if (!strcmp(sub, "export"))
		rc = history_export(&h, &o);
	else if (!strcmp(sub, "import"))
		rc = history_import(&h, &o, have_cfg ? &cfg : NULL);
	else if (!strcmp(sub, "quality"))
		rc = history_quality(&h, &o);
	else
		rc = history_prune(&h, &o);
	if (rc == -EINVAL)
		rc = RN_EXIT_USAGE;
	else if (rc)
		rc = RN_EXIT_OUTPUT;
out_close:
	rn_history_close(&h);
out_cfg:
	if (have_cfg)
		rn_config_release(&cfg);
	return rc;
}

/* report --markdown FILE RESULTS...: the merged results as the job summary's Markdown. The
 * check's exit code, or RN_EXIT_USAGE / RN_EXIT_CONFIG / RN_EXIT_OUTPUT. */
static int report_markdown(const struct hist_opts *o)
{
	struct rn_merged m;
	struct rn_github_run run;
	char *md;
	size_t len = 0;
	int rc;

	if (!o->noperands) {
		rn_error("renacer report --markdown: no results file (renacer check --results FILE "
			 "writes one)");
		return RN_EXIT_USAGE;
	}
	rc = rn_merged_load(&m, o->operands, o->noperands);
	if (rc) {
		rn_merged_release(&m);
		return rc;
	}
	memset(&run, 0, sizeof(run));
	run.targets = m.reports;
	run.ntargets = m.ntargets;
	run.exit_code = m.exit_code;
	md = rn_github_markdown(&run, &len);
	if (!md) {
		rn_merged_release(&m);
		rn_error("renacer report --markdown: out of memory");
		return RN_EXIT_INTERNAL;
	}
	if (!strcmp(o->markdown, "-")) {
		if (fwrite(md, 1, len, stdout) != len || fflush(stdout))
			rc = RN_EXIT_OUTPUT;
	} else {
		int err = rn_write_file_atomic(o->markdown, md, len);

		if (err) {
			rn_error("cannot write '%s': %s", o->markdown, strerror(-err));
			rc = RN_EXIT_OUTPUT;
		} else {
			fprintf(stderr, "wrote %s\n", o->markdown);
		}
	}
	if (!rc)
		rc = m.exit_code;
	free(md);
	rn_merged_release(&m);
	return rc;
}

int rn_cmd_report(int argc, char **argv)
{
	struct hist_opts o;
	struct rn_config cfg;
	struct rn_history h;
	bool have_cfg = false;
	int rc;

	memset(&o, 0, sizeof(o));
	if (parse_all(&rn_cmd_report_def, argc, argv, &o))
		return RN_EXIT_USAGE;
	if (o.help) {
		rn_cli_help(&rn_cmd_report_def, stdout);
		return RN_EXIT_OK;
	}
	if (o.markdown && !o.html)
		return report_markdown(&o);
	if (!o.html || o.noperands) {
		rn_error("usage: %s", rn_cmd_report_def.usage);
		return RN_EXIT_USAGE;
	}
	if (o.limit > RN_REPORT_HTML_MAX_RUNS) {
		rn_error("renacer report: --last %ld is more than the page shows (at most %d runs "
			 "per chart)",
			 o.limit, RN_REPORT_HTML_MAX_RUNS);
		return RN_EXIT_USAGE;
	}
	rc = load_config(&o, &cfg, &have_cfg);
	if (rc)
		return rc;
	if (!o.limit)
		o.limit = 200;
	if (open_store(&o, have_cfg ? &cfg : NULL, false, &h, false)) {
		rc = RN_EXIT_OUTPUT;
	} else {
		json_t *model = report_model(&h, &o, have_cfg ? &cfg : NULL, &rc);

		if (model)
			rc = rn_report_html_write(o.html, model);
		json_decref(model);
		if (rc == -ENOENT)
			rc = RN_EXIT_USAGE;
		else if (rc)
			rc = RN_EXIT_OUTPUT;
		else
			fprintf(stderr, "wrote %s\n", o.html);
	}
	rn_history_close(&h);
	if (have_cfg)
		rn_config_release(&cfg);
	return rc;
}
