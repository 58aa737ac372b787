/*
 * github.c - GitHub Actions integration: annotations, job summary, report, outputs, groups.
 *
 * Workflow command syntax and escaping follow GitHub's "Workflow commands for GitHub Actions"
 * and the toolkit's command.ts (escapeData, escapeProperty). Limits: 10 error and 10 warning
 * annotations per step (more are dropped by GitHub without a word, hence our own "N more"
 * annotation), 1 MiB of job summary per step (a larger file fails the summary upload).
 */
#include "github.h"
#include "timing_gate.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "assertion.h"
#include "escape.h"
#include "exitcode.h"
#include "internal.h"
#include "log.h"
#include "safefile.h"
#include "textfit.h"
#include "units.h"
#include "xalloc.h"

/* Longest message cell of the summary table, bytes (the detail blocks carry the rest). */
#define GH_CELL_MAX 1024
/* Longest detail block per verdict in the summary, bytes. */
#define GH_DETAIL_MAX (8 * 1024)
/* Longest detail appended to an annotation message, bytes. */
#define GH_ANNOTATION_DETAIL_MAX 1024
/* Room kept for the truncation note at the end of a cut summary. */
#define GH_NOTE_RESERVE 512
/* Columns of every line of the comment outside <details> (a pull-request comment). */
#define GH_COMMENT_WIDTH 100
/* Most columns the cause of a failing row takes on its line above the fold. */
#define GH_CAUSE_MAX 60
/* Failing rows listed above the fold; more are counted there and listed in <details>. */
#define GH_HEADLINE_ROWS 8

/* Order of verdicts in the summary and what they count as. */
enum gh_rank {
	GH_RANK_BAD = 0, /* FAIL, ERROR, NO DATA: failures, `::error` */
	GH_RANK_WARN,    /* WARN, NOT JUDGED: `::warning` (a gate that judged less than it
			  * was asked to is worth a look) */
	GH_RANK_PASS,    /* PASS */
	GH_RANK_SKIP,    /* SKIP */
};

static enum gh_rank rank_of(enum rn_verdict v)
{
	switch (v) {
	case RN_VERDICT_FAIL:
	case RN_VERDICT_ERROR:
	case RN_VERDICT_NO_DATA:
		return GH_RANK_BAD;
	case RN_VERDICT_WARN:
	case RN_VERDICT_NOT_JUDGED:
		return GH_RANK_WARN;
	case RN_VERDICT_PASS:
		return GH_RANK_PASS;
	default:
		return GH_RANK_SKIP;
	}
}

static const char *rank_icon(enum gh_rank r)
{
	switch (r) {
	case GH_RANK_BAD:
		return "\u274c";
	case GH_RANK_WARN:
		return "\u26a0\ufe0f";
	case GH_RANK_PASS:
		return "\u2705";
	default:
		return "\u23ed\ufe0f";
	}
}

static const char *verdict_icon(enum rn_verdict v)
{
	return rank_icon(rank_of(v));
}

static const char *exit_description(int code)
{
	const char *m = rn_exit_meaning(code);

	return m ? m : "unknown exit code";
}

/* ---- Escaping --------------------------------------------------------------------------- */

static void escape_command(struct rn_buf *b, const char *s, bool property)
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
			/* other control characters (escape sequences) shown, not sent to the log */
			if ((unsigned char)*s < 0x20 || *s == 0x7f)
				rn_buf_addf(b, "\\x%02x", (unsigned char)*s);
			else
				rn_buf_addc(b, *s);
		}
	}
}

void rn_github_escape_data(struct rn_buf *b, const char *s)
{
	escape_command(b, s, false);
}

void rn_github_escape_property(struct rn_buf *b, const char *s)
{
	escape_command(b, s, true);
}

/* Bytes of the UTF-8 sequence that lead byte `c` starts (1 for ASCII and stray bytes). */
static size_t utf8_length(unsigned char c)
{
	if (c >= 0xf0)
		return 4;
	if (c >= 0xe0)
		return 3;
	return c >= 0xc0 ? 2 : 1;
}

/* Put after the @ of a mention: U+200D ZERO WIDTH JOINER, invisible, and no username
 * character, so GitHub links and notifies nobody. */
#define MENTION_BREAK "\u200d"

bool rn_github_add_mention_guard(struct rn_buf *b, const char *s)
{
	unsigned char next = (unsigned char)s[1];

	if (s[0] != '@' ||
	    !((next >= 'a' && next <= 'z') || (next >= 'A' && next <= 'Z') ||
	      (next >= '0' && next <= '9')))
		return false;
	rn_buf_addc(b, '@');
	rn_buf_adds(b, MENTION_BREAK);
	return true;
}

void rn_github_escape_markdown(struct rn_buf *b, const char *s, size_t max_bytes)
{
	size_t used = 0, k;

	for (; s && *s; s++, used++) {
		unsigned char c = (unsigned char)*s;

		/* Stop before a character that would cross the limit, never inside one. */
		if (max_bytes && (c & 0xc0) != 0x80 && used + utf8_length(c) > max_bytes) {
			rn_buf_adds(b, "\u2026");
			return;
		}
		if (rn_github_add_mention_guard(b, s))
			continue;
		if ((k = rn_buf_add_invisible(b, s))) {
			/* a C1 or bidirectional control, shown escaped (escape.h) */
			s += k - 1;
			used += k - 1;
			continue;
		}
		if (c < 0x20 || c == 0x7f)
			rn_buf_addc(b, ' ');
		else if (strchr("\\`*_[]<>|~&", c)) {
			rn_buf_addc(b, '\\');
			rn_buf_addc(b, (char)c);
		} else
			rn_buf_addc(b, (char)c);
	}
}

/* Text inside an HTML element (<summary>): entities, no Markdown; mentions guarded, as GitHub
 * links them there too. */
static void escape_html(struct rn_buf *b, const char *s)
{
	size_t k;

	for (; s && *s; s++) {
		if (rn_github_add_mention_guard(b, s))
			continue;
		if ((k = rn_buf_add_invisible(b, s))) {
			s += k - 1;
			continue;
		}
		switch (*s) {
		case '&':
			rn_buf_adds(b, "&amp;");
			break;
		case '<':
			rn_buf_adds(b, "&lt;");
			break;
		case '>':
			rn_buf_adds(b, "&gt;");
			break;
		case '"':
			rn_buf_adds(b, "&quot;");
			break;
		case '\n':
		case '\r':
			rn_buf_addc(b, ' ');
			break;
		default:
			rn_buf_addc(b, *s);
		}
	}
}

/* ---- Small helpers ---------------------------------------------------------------------- */

const char *rn_github_result(int exit_code, size_t warnings)
{
	if (exit_code == RN_EXIT_OK)
		return warnings ? "warn" : "pass";
	return exit_code == RN_EXIT_FAIL ? "fail" : "error";
}

int rn_github_annotation_limit(void)
{
	const char *s = getenv(RN_GITHUB_ENV_ANNOTATIONS);
	char *end;
	long v;

	if (!s || !*s)
		return RN_GITHUB_MAX_ANNOTATIONS;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0) {
		rn_warn("%s='%s' is not a number from 0 to %d; using %d", RN_GITHUB_ENV_ANNOTATIONS,
			s, RN_GITHUB_MAX_ANNOTATIONS, RN_GITHUB_MAX_ANNOTATIONS);
		return RN_GITHUB_MAX_ANNOTATIONS;
	}
	/* GitHub drops what is beyond its limit anyway; a larger request is the limit. */
	return v > RN_GITHUB_MAX_ANNOTATIONS ? RN_GITHUB_MAX_ANNOTATIONS : (int)v;
}

/* The repository root above the absolute path `abs`: the nearest ancestor directory holding
 * a ".git" entry (a directory, or a file in worktrees and submodules). Caller frees; NULL if
 * none. */
static char *git_toplevel(const char *abs)
{
	char *dir = rn_xstrdup(abs), *slash;
	struct rn_buf probe;

	rn_buf_init(&probe, 0);
	while ((slash = strrchr(dir, '/'))) {
		*slash = '\0';
		rn_buf_reset(&probe);
		rn_buf_addf(&probe, "%s/.git", dir);
		if (!access(probe.buf, F_OK)) {
			rn_buf_release(&probe);
			if (!*dir) {
				free(dir);
				return rn_xstrdup("/");
			}
			return dir;
		}
	}
	rn_buf_release(&probe);
	free(dir);
	return NULL;
}

/*
 * `path` as GitHub wants it in an annotation: relative to the repository root when it lies
 * inside: $GITHUB_WORKSPACE, or without it the git toplevel above the file. A relative `path`
 * is taken relative to `base` (the config's directory for the golden files it names; NULL:
 * the current directory). Outside any root: as given without a leading "./". Caller frees.
 */
static char *workspace_path_in(const char *base, const char *path)
{
	const char *ws = getenv("GITHUB_WORKSPACE");
	char *abs, *wsabs = NULL, *out = NULL;
	size_t n;

	if (base && path[0] != '/') {
		struct rn_buf joined;

		rn_buf_init(&joined, 0);
		rn_buf_addf(&joined, "%s/%s", base, path);
		abs = realpath(joined.buf, NULL);
		rn_buf_release(&joined);
	} else {
		abs = realpath(path, NULL);
	}
	if (abs && ws && *ws)
		wsabs = realpath(ws, NULL);
	else if (abs)
		wsabs = git_toplevel(abs);
	if (abs && wsabs) {
		n = strlen(wsabs);
		if (n == 1 && abs[1])
			out = rn_xstrdup(abs + 1); /* the workspace is "/" */
		else if (!strncmp(abs, wsabs, n) && abs[n] == '/')
			out = rn_xstrdup(abs + n + 1);
	}
	free(wsabs);
	free(abs);
	if (out)
		return out;
	while (path[0] == '.' && path[1] == '/')
		path += 2;
	return rn_xstrdup(path);
}

static char *workspace_path(const char *path)
{
	return workspace_path_in(NULL, path);
}

static int append_file(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "a");
	int rc = 0;

	if (!f)
		return -errno;
	if (len && fwrite(data, 1, len, f) != len)
		rc = -EIO;
	if (fclose(f) && !rc)
		rc = -errno;
	return rc;
}

/* Bytes already in the file at `path` (0 when it does not exist yet). */
static size_t file_size(const char *path)
{
	struct stat st;

	if (stat(path, &st) || st.st_size < 0)
		return 0;
	return (size_t)st.st_size;
}

/* A random delimiter for a multi-line output value that does not occur in it. */
static void output_delimiter(char *out, size_t size, const char *value)
{
	unsigned long long x =
		(unsigned long long)time(NULL) ^ ((unsigned long long)getpid() << 32);
	FILE *f = fopen("/dev/urandom", "rb");

	if (f) {
		if (fread(&x, sizeof(x), 1, f) != 1)
			x ^= (unsigned long long)clock();
		fclose(f);
	}
	do {
		snprintf(out, size, "ghadelimiter_%016llx", x);
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	} while (strstr(value, out));
}

/* One `name=value` line of $GITHUB_OUTPUT; a value with a line break uses the heredoc form. */
static void output_kv(struct rn_buf *b, const char *name, const char *value)
{
	char delim[64];

	if (!strpbrk(value, "\r\n")) {
		rn_buf_addf(b, "%s=%s\n", name, value);
		return;
	}
	output_delimiter(delim, sizeof(delim), value);
	rn_buf_addf(b, "%s<<%s\n%s\n%s\n", name, delim, value, delim);
}

static int write_outputs(const char *result, size_t failed, size_t warnings, int exit_code,
			 const char *junit, const char *report)
{
	const char *output = getenv("GITHUB_OUTPUT");
	struct rn_buf b;
	char num[32];
	int rc;

	if (!output || !*output)
		return 0;
	rn_buf_init(&b, 0);
	output_kv(&b, "result", result);
	snprintf(num, sizeof(num), "%zu", failed);
	output_kv(&b, "failed", num);
	snprintf(num, sizeof(num), "%zu", warnings);
	output_kv(&b, "warnings", num);
	snprintf(num, sizeof(num), "%d", exit_code);
	output_kv(&b, "exit_code", num);
	if (junit)
		output_kv(&b, "junit", junit);
	if (report)
		output_kv(&b, "report", report);
	rc = rn_buf_failed(&b) ? -ENOMEM : append_file(output, b.buf, b.len);
	if (rc)
		rn_warn("cannot append to GITHUB_OUTPUT '%s': %s", output, strerror(-rc));
	rn_buf_release(&b);
	return rc;
}

/*
 * Append `md` to $GITHUB_STEP_SUMMARY, cut at the last of `cuts` (offsets of block ends in
 * `md`, ascending) that keeps the file within GitHub's limit.
 */
static int write_summary(const struct rn_buf *md, const size_t *cuts, size_t ncuts)
{
	const char *summary = getenv("GITHUB_STEP_SUMMARY");
	static const char note[] =
		"\n</details>\n\n> [!NOTE]\n> The rest of this summary was cut to stay within GitHub's 1 MiB "
		"job summary limit; the JUnit report and the report output have all of it.\n";
	size_t have, budget, len;
	struct rn_buf b;
	int rc;

	if (!summary || !*summary)
		return 0;
	have = file_size(summary);
	budget = have < RN_GITHUB_SUMMARY_MAX ? RN_GITHUB_SUMMARY_MAX - have : 0;
	if (md->len <= budget) {
		rc = append_file(summary, md->buf, md->len);
	} else if (budget < GH_NOTE_RESERVE) {
		rn_warn("GITHUB_STEP_SUMMARY '%s' already holds %zu bytes; no room for the summary",
			summary, have);
		return -EFBIG;
	} else {
		len = 0;
		while (ncuts && cuts[ncuts - 1] > budget - GH_NOTE_RESERVE)
			ncuts--;
		if (ncuts)
			len = cuts[ncuts - 1];
		rn_buf_init(&b, 0);
		rn_buf_add(&b, md->buf, len);
		rn_buf_adds(&b, note);
		rc = rn_buf_failed(&b) ? -ENOMEM : append_file(summary, b.buf, b.len);
		rn_buf_release(&b);
	}
	if (rc)
		rn_warn("cannot append to GITHUB_STEP_SUMMARY '%s': %s", summary, strerror(-rc));
	return rc;
}

/* Where the full Markdown report goes: $RENACER_GITHUB_REPORT, else in $RUNNER_TEMP. Caller
 * frees; NULL when neither is set. */
static char *report_path(void)
{
	const char *p = getenv(RN_GITHUB_ENV_REPORT);
	const char *tmp = getenv("RUNNER_TEMP");
	struct rn_buf b;

	if (p && *p)
		return rn_xstrdup(p);
	if (!tmp || !*tmp)
		return NULL;
	rn_buf_init(&b, 0);
	rn_buf_addf(&b, "%s/renacer-report.md", tmp);
	return rn_buf_detach(&b, NULL);
}

static int write_report(const char *path, const struct rn_buf *md)
{
	int rc = rn_write_file_atomic(path, md->buf, md->len);

	if (rc)
		rn_warn("cannot write the GitHub report '%s': %s", path, rn_safefile_strerror(rc));
	return rc;
}

static void keep(int *rc, int r)
{
	if (r && !*rc)
		*rc = r;
}

/* ---- Annotations ------------------------------------------------------------------------ */

/* One verdict to annotate. */
struct gh_note {
	const struct rn_target_report *t;  /* its target */
	const struct rn_verdict_result *v; /* the verdict */
};

static int target_line(const struct rn_config *cfg, const char *name)
{
	size_t i;

	for (i = 0; cfg && name && i < cfg->ntargets; i++)
		if (!strcmp(cfg->targets[i].name, name))
			return cfg->targets[i].line;
	return 0;
}

static void annotation(struct rn_buf *b, const struct rn_outcome *oc, const struct gh_note *n,
		       const char *cfg_file)
{
	const struct rn_verdict_result *v = n->v;
	const char *name = n->t->result ? n->t->result->name : v->target;
	struct rn_buf title, msg;
	char *golden = NULL;
	int line = v->config_line;

	if (!line && v->type && !strcmp(v->type, "run"))
		line = target_line(oc->cfg, name);
	rn_buf_addf(b, "::%s file=", rank_of(v->verdict) == GH_RANK_WARN ? "warning" : "error");
	if (!line && v->type && !strcmp(v->type, "regression") && n->t->golden_file) {
		/* the golden file is named relative to the config */
		golden = workspace_path_in(oc->cfg ? oc->cfg->dir : NULL, n->t->golden_file);
		rn_github_escape_property(b, golden);
	} else {
		rn_github_escape_property(b, cfg_file);
		if (line > 0)
			rn_buf_addf(b, ",line=%d,col=1", line);
	}
	rn_buf_init(&title, 0);
	rn_buf_addf(&title, "renacer %s: %s / %s", rn_verdict_label(v->verdict), name ? name : "?",
		    v->assertion ? v->assertion : "?");
	rn_buf_adds(b, ",title=");
	rn_github_escape_property(b, title.buf);
	rn_buf_adds(b, "::");
	rn_buf_init(&msg, 0);
	rn_buf_adds(&msg, v->message ? v->message : rn_verdict_label(v->verdict));
	if (golden)
		rn_buf_addf(&msg, " (golden trace %s)", golden);
	if (v->detail && *v->detail) {
		rn_buf_addc(&msg, '\n');
		if (strlen(v->detail) > GH_ANNOTATION_DETAIL_MAX) {
			size_t cut = GH_ANNOTATION_DETAIL_MAX;

			/* Back to the first byte of a character: no split UTF-8 sequence. */
			while (cut && ((unsigned char)v->detail[cut] & 0xc0) == 0x80)
				cut--;
			rn_buf_add(&msg, v->detail, cut);
			rn_buf_adds(&msg, "\n...");
		} else {
			rn_buf_adds(&msg, v->detail);
		}
	}
	/* A message ending in a newline would show an empty last line. */
	while (msg.len && (msg.buf[msg.len - 1] == '\n' || msg.buf[msg.len - 1] == '\r'))
		msg.buf[--msg.len] = '\0';
	rn_github_escape_data(b, msg.buf);
	rn_buf_addc(b, '\n');
	rn_buf_release(&msg);
	rn_buf_release(&title);
	free(golden);
}

/* Annotate the verdicts of one kind within `limit`; the last slot says what was left out. */
static void annotations(struct rn_buf *b, const struct rn_outcome *oc, enum gh_rank kind, int limit,
			const char *cfg_file)
{
	struct gh_note *notes = NULL;
	size_t n = 0, cap = 0, i, k, shown;

	for (i = 0; i < oc->ntargets; i++) {
		for (k = 0; k < oc->reports[i].nverdicts; k++) {
			if (rank_of(oc->reports[i].verdicts[k].verdict) != kind)
				continue;
			notes = rn_xgrow(notes, &cap, n + 1, sizeof(*notes));
			notes[n].t = &oc->reports[i];
			notes[n].v = &oc->reports[i].verdicts[k];
			n++;
		}
	}
	shown = n <= (size_t)limit ? n : (limit > 0 ? (size_t)limit - 1 : 0);
	for (i = 0; i < shown; i++)
		annotation(b, oc, &notes[i], cfg_file);
	if (limit > 0 && shown < n) {
		struct rn_buf msg, title;

		rn_buf_init(&msg, 0);
		rn_buf_init(&title, 0);
		rn_buf_addf(&msg,
			    "%zu more %s not annotated (GitHub shows %d per step; see the job "
			    "summary):",
			    n - shown, kind == GH_RANK_WARN ? "warnings" : "failures", limit);
		for (i = shown; i < n && msg.len < 2048; i++)
			rn_buf_addf(&msg, "\n%s %s / %s", rn_verdict_label(notes[i].v->verdict),
				    notes[i].t->result ? notes[i].t->result->name : "?",
				    notes[i].v->assertion ? notes[i].v->assertion : "?");
		if (i < n)
			rn_buf_adds(&msg, "\n...");
		rn_buf_addf(b, "::%s file=", kind == GH_RANK_WARN ? "warning" : "error");
		rn_github_escape_property(b, cfg_file);
		rn_buf_adds(b, ",title=");
		rn_buf_addf(&title, "renacer: %zu more %s", n - shown,
			    kind == GH_RANK_WARN ? "warnings" : "failures");
		rn_github_escape_property(b, title.buf);
		rn_buf_adds(b, "::");
		rn_github_escape_data(b, msg.buf);
		rn_buf_addc(b, '\n');
		rn_buf_release(&title);
		rn_buf_release(&msg);
	}
	free(notes);
}

/* ---- Job summary and comment ----------------------------------------------------------- */

/* A verdict's value in its unit, for people (units.h); "-" when it has none. */
static void value_text(char *out, size_t cap, bool has, double v, const char *unit)
{
	if (!has || !isfinite(v))
		snprintf(out, cap, "-");
	else
		rn_fmt_value(out, cap, v, unit);
}

/* Worst rank of a target's verdicts (a target without verdicts ranks as passed). */
static enum gh_rank target_rank(const struct rn_target_report *t)
{
	enum gh_rank r = GH_RANK_SKIP;
	size_t k;

	for (k = 0; k < t->nverdicts; k++)
		if (rank_of(t->verdicts[k].verdict) < r)
			r = rank_of(t->verdicts[k].verdict);
	return t->nverdicts ? r : GH_RANK_PASS;
}

/* Record the end of a complete block: the summary may be cut there. */
static void cut_here(size_t **cuts, size_t *ncuts, size_t *cap, const struct rn_buf *b)
{
	*cuts = rn_xgrow(*cuts, cap, *ncuts + 1, sizeof(**cuts));
	(*cuts)[(*ncuts)++] = b->len;
}

/* Longest run of backticks in `s`, so a code fence around it can be longer. */
static size_t backtick_run(const char *s)
{
	size_t best = 0, cur = 0;

	for (; s && *s; s++) {
		cur = *s == '`' ? cur + 1 : 0;
		if (cur > best)
			best = cur;
	}
	return best;
}

/*
 * The first clause of `s` into `b`: up to the first ", " or "; " outside parentheses and
 * brackets ("read 427 vs golden 329 (+29.8%), tolerance ..." -> "read 427 vs golden 329
 * (+29.8%)").
 */
static void first_clause(struct rn_buf *b, const char *s)
{
	const char *p;
	int depth = 0;

	if (!s)
		return;
	for (p = s; *p; p++) {
		if (*p == '(' || *p == '[')
			depth++;
		else if ((*p == ')' || *p == ']') && depth > 0)
			depth--;
		else if (!depth && (*p == ',' || *p == ';') && (p[1] == ' ' || !p[1]))
			break;
		else if (*p == '\n')
			break;
	}
	rn_buf_add(b, s, (size_t)(p - s));
}

/*
 * What a failing row measured, short: a time row whose message states a confidence interval
 * ("... CI [+19.0%, +47.0%] ...") as its change and that interval in whole percents ("+30%
 * [+19%, +47%]"); a budget row as its value and limit ("20 calls, limit 10 calls (+100%)");
 * else its message's first clause ("read 427 vs golden 329 (+29.8%)").
 */
static void row_what(struct rn_buf *b, const struct rn_verdict_result *v)
{
	const char *ci = v->message ? strstr(v->message, "CI [") : NULL;
	const char *close = ci ? strchr(ci, ']') : NULL;

	double lo = 0.0, hi = 0.0;
	char *end = NULL;

	/* "CI [+19.0%, +47.0%]": whole percents are enough to read a change */
	if (close) {
		lo = strtod(ci + 4, &end);
		if (end && *end == '%' && end[1] == ',')
			hi = strtod(end + 2, &end);
		else
			close = NULL;
		if (!end || *end != '%')
			close = NULL;
	}
	if (close && v->has_observed && (v->has_golden || v->has_budget) &&
	    isfinite(v->delta_pct) && isfinite(lo) && isfinite(hi)) {
		rn_buf_addf(b, "%+.0f%% [%+.0f%%, %+.0f%%]", v->delta_pct, lo, hi);
	} else if (v->has_observed && v->has_budget && !v->has_golden && isfinite(v->observed) &&
		   isfinite(v->budget)) {
		/* a budget row: the values say it ("20 calls, limit 10 calls (+100%)") */
		char val[RN_UNITS_MAX], lim[RN_UNITS_MAX];

		value_text(val, sizeof(val), true, v->observed, v->unit);
		value_text(lim, sizeof(lim), true, v->budget, v->unit);
		rn_buf_addf(b, "%s, limit %s", val, lim);
		if (isfinite(v->delta_pct))
			rn_buf_addf(b, " (%+.0f%%)", v->delta_pct);
	} else if (v->message && *v->message) {
		first_clause(b, v->message);
	} else {
		rn_buf_adds(b, rn_verdict_label(v->verdict));
	}
}

/* The header of a profile's ranked list in a row's detail (runner/check/profile_check.c): of
 * a failed row, and of a golden timing row that did not fail but leans to a slowdown. */
#define GH_CAUSE_FAILED "where the time went"
#define GH_CAUSE_LEANING "why it may be slower (the row did not fail)"

/*
 * The cause a row's detail names, or nothing: the first item of the profile's ranked list
 * under GH_CAUSE_FAILED, or under GH_CAUSE_LEANING after "may be slower: ", as its first
 * clause ("+181.8 ms on CPU in hot_parse (src/parse.c:88), from main" -> without ", from
 * main"). Returns whether one was appended to `b`.
 */
static bool add_cause(struct rn_buf *b, const char *detail)
{
	const char *p = detail ? strstr(detail, GH_CAUSE_FAILED) : NULL;
	bool leaning = false;

	if (!p && detail) {
		p = strstr(detail, GH_CAUSE_LEANING);
		leaning = p != NULL;
	}

	while (p && (p = strchr(p, '\n'))) {
		p++;
		while (*p == ' ')
			p++;
		if (p[0] == '1' && p[1] == '.' && p[2] == ' ') {
			if (leaning)
				rn_buf_adds(b, "may be slower: ");
			first_clause(b, p + 3);
			return true;
		}
	}
	return false;
}

/*
 * Append `text` (plain, escaped here) in at most `room` columns: shortened at a word boundary
 * with "..." until its escaped form fits (escapes add backslashes). Returns the columns used.
 */
static size_t fitted_text(struct rn_buf *b, const char *text, size_t room)
{
	size_t w = room, ew = 0;
	struct rn_buf cut, esc;

	rn_buf_init(&cut, 0);
	rn_buf_init(&esc, 0);
	for (;;) {
		rn_buf_reset(&cut);
		rn_buf_reset(&esc);
		rn_text_shorten(&cut, text, w);
		rn_github_escape_markdown(&esc, cut.buf, 0);
		ew = rn_text_width(esc.buf, esc.len);
		if (ew <= room || w <= 4)
			break;
		w -= ew - room < w - 4 ? ew - room : w - 4;
	}
	rn_buf_add(b, esc.buf, esc.len);
	rn_buf_release(&esc);
	rn_buf_release(&cut);
	return ew;
}

/* Markdown text wrapped to the comment's width (a paragraph: GitHub joins its lines). */
static void wrapped(struct rn_buf *b, const char *md)
{
	rn_text_wrap(b, md, GH_COMMENT_WIDTH, 0);
	rn_buf_addc(b, '\n');
}

/*
 * One failing row above the fold (and the `same` later rows of its target that repeat its
 * verdict and message: "app/a and 3 more: target 'app' did not run cleanly"), one line of at
 * most GH_COMMENT_WIDTH columns:
 * "- ❌ **FAIL** app/baseline:cpu_time: +30% [+19%, +47%] · +9.0 ms on CPU in jv_copy
 * (src/jv.c:123)". The cause keeps its room (up to 60 columns); what the row measured is
 * shortened first.
 */
/* Whether two failing rows say the same: one verdict, one message. */
static bool same_row(const struct rn_verdict_result *a, const struct rn_verdict_result *b)
{
	return a->verdict == b->verdict && a->message && b->message &&
		!strcmp(a->message, b->message);
}

/* Whether failing row `k` of `t` repeats an earlier failing row. */
static bool same_as_earlier(const struct rn_target_report *t, size_t k)
{
	size_t j;

	for (j = 0; j < k; j++)
		if (same_row(&t->verdicts[j], &t->verdicts[k]))
			return true;
	return false;
}

/* Later rows of `t` that repeat row `k`. */
static size_t same_later(const struct rn_target_report *t, size_t k)
{
	size_t j, n = 0;

	for (j = k + 1; j < t->nverdicts; j++)
		n += same_row(&t->verdicts[j], &t->verdicts[k]);
	return n;
}

static void headline_row(struct rn_buf *b, const struct rn_target_report *t,
			 const struct rn_verdict_result *v, size_t same)
{
	struct rn_buf text, cause, tail;
	size_t used, cause_w = 0;

	rn_buf_init(&text, 0);
	rn_buf_init(&cause, 0);
	rn_buf_init(&tail, 0);
	rn_buf_addf(b, "- %s **%s** ", verdict_icon(v->verdict), rn_verdict_label(v->verdict));
	/* "- ", the icon (drawn two columns wide), " **", the label, "** " */
	used = 2 + 2 + 3 + strlen(rn_verdict_label(v->verdict)) + 3;
	if (add_cause(&cause, v->detail)) {
		rn_buf_adds(&tail, " \u00b7 ");
		cause_w = 3 + fitted_text(&tail, cause.buf, GH_CAUSE_MAX);
	}
	rn_buf_addf(&text, "%s/%s", t->result ? t->result->name : v->target,
		    v->assertion ? v->assertion : "?");
	if (same)
		rn_buf_addf(&text, " and %zu more", same);
	rn_buf_adds(&text, ": ");
	if (same)
		first_clause(&text, v->message);
	else
		row_what(&text, v);
	fitted_text(b, text.buf,
		    GH_COMMENT_WIDTH > used + cause_w + 8 ? GH_COMMENT_WIDTH - used - cause_w : 8);
	rn_buf_add(b, tail.buf, tail.len);
	rn_buf_addc(b, '\n');
	rn_buf_release(&tail);
	rn_buf_release(&cause);
	rn_buf_release(&text);
}

static void details_block(struct rn_buf *b, const struct rn_target_report *t,
			  const struct rn_verdict_result *v)
{
	size_t fence = backtick_run(v->detail) + 1, i, len = strlen(v->detail);

	if (fence < 3)
		fence = 3;
	rn_buf_adds(b, "<details><summary>");
	escape_html(b, rn_verdict_label(v->verdict));
	rn_buf_adds(b, ": ");
	escape_html(b, t->result ? t->result->name : v->target);
	rn_buf_adds(b, " / ");
	escape_html(b, v->assertion);
	rn_buf_adds(b, "</summary>\n\n");
	for (i = 0; i < fence; i++)
		rn_buf_addc(b, '`');
	rn_buf_adds(b, "text\n");
	if (len > GH_DETAIL_MAX) {
		/* Cut at a line end within the limit, so no UTF-8 sequence is split. */
		const char *end = v->detail + GH_DETAIL_MAX;

		while (end > v->detail && *end != '\n')
			end--;
		rn_buf_add(b, v->detail, (size_t)(end - v->detail));
		rn_buf_adds(b, "\n... (cut; the JUnit report has all of it)");
	} else {
		rn_buf_adds(b, v->detail);
	}
	if (b->len && b->buf[b->len - 1] != '\n')
		rn_buf_addc(b, '\n');
	for (i = 0; i < fence; i++)
		rn_buf_addc(b, '`');
	rn_buf_adds(b, "\n\n</details>\n\n");
}

/* One verdict in the folded list: "- ❌ FAIL **name** · 5 calls, limit 1 call (+400.0%) · msg". */
static void list_row(struct rn_buf *b, const struct rn_verdict_result *v, bool baseline_side)
{
	char val[RN_UNITS_MAX];

	rn_buf_addf(b, "- %s %s **", verdict_icon(v->verdict), rn_verdict_label(v->verdict));
	rn_github_escape_markdown(b, v->assertion, GH_CELL_MAX);
	rn_buf_adds(b, "**");
	if (v->has_observed) {
		value_text(val, sizeof(val), true, v->observed, v->unit);
		rn_buf_addf(b, " \u00b7 %s", val);
		if (v->has_budget) {
			value_text(val, sizeof(val), true, v->budget, v->unit);
			rn_buf_addf(b, ", limit %s", val);
		}
		if (v->has_golden) {
			value_text(val, sizeof(val), true, v->golden, v->unit);
			rn_buf_addf(b, ", %s %s", baseline_side ? "base" : "golden", val);
		}
		if ((v->has_budget || v->has_golden) && isfinite(v->delta_pct))
			rn_buf_addf(b, " (%+.1f%%)", v->delta_pct);
	}
	if (v->message && *v->message) {
		rn_buf_adds(b, " \u00b7 ");
		rn_github_escape_markdown(b, v->message, GH_CELL_MAX);
	}
	rn_buf_addc(b, '\n');
}

static void target_section(struct rn_buf *b, const struct rn_target_report *t,
			   const char *golden_file, size_t **cuts, size_t *ncuts, size_t *cap)
{
	const struct rn_target_result *r = t->result;
	size_t nruns = r ? rn_target_result_measured(r) : 0, k;
	int rank;

	rn_buf_addf(b, "#### %s ", rank_icon(target_rank(t)));
	rn_github_escape_markdown(b, r ? r->name : "?", GH_CELL_MAX);
	if (r && r->ncounts)
		rn_buf_addf(b, " (%zu timing %s, %zu counting %s)\n\n", r->nruns,
			    rn_plural((double)r->nruns, "run"), r->ncounts,
			    rn_plural((double)r->ncounts, "run"));
	else
		rn_buf_addf(b, " (%zu %s)\n\n", nruns, rn_plural((double)nruns, "run"));
	if (r && r->error) {
		rn_buf_adds(b, "> **target error:** ");
		rn_github_escape_markdown(b, r->error, GH_CELL_MAX);
		rn_buf_adds(b, "\n\n");
	}
	if (golden_file) {
		rn_buf_adds(b, "Golden trace: ");
		rn_github_escape_markdown(b, golden_file, GH_CELL_MAX);
		rn_buf_adds(b, "\n\n");
	}
	cut_here(cuts, ncuts, cap, b);
	if (!t->nverdicts) {
		rn_buf_adds(b, "No assertion applies to this target.\n\n");
		cut_here(cuts, ncuts, cap, b);
		return;
	}
	for (rank = GH_RANK_BAD; rank <= GH_RANK_SKIP; rank++) {
		for (k = 0; k < t->nverdicts; k++) {
			const struct rn_verdict_result *v = &t->verdicts[k];

			if ((int)rank_of(v->verdict) != rank)
				continue;
			list_row(b, v, v->type && !strcmp(v->type, "baseline"));
			cut_here(cuts, ncuts, cap, b);
		}
	}
	rn_buf_addc(b, '\n');
	cut_here(cuts, ncuts, cap, b);
	for (k = 0; k < t->nverdicts; k++) {
		const struct rn_verdict_result *v = &t->verdicts[k];

		if (rank_of(v->verdict) > GH_RANK_WARN || !v->detail || !*v->detail)
			continue;
		details_block(b, t, v);
		cut_here(cuts, ncuts, cap, b);
	}
}

/* The run's page on GitHub, from the runner's environment: caller frees; NULL when unknown. */
static char *run_url(void)
{
	const char *server = getenv("GITHUB_SERVER_URL"), *repo = getenv("GITHUB_REPOSITORY");
	const char *id = getenv("GITHUB_RUN_ID");
	struct rn_buf b;

	if (!server || !*server || !repo || !*repo || !id || !*id)
		return NULL;
	/* URL parts only: anything that would end the Markdown link is refused */
	if (strpbrk(server, " ()<>\n") || strpbrk(repo, " ()<>\n") || strpbrk(id, " ()<>\n"))
		return NULL;
	rn_buf_init(&b, 0);
	rn_buf_addf(&b, "%s/%s/actions/runs/%s", server, repo, id);
	return rn_buf_detach(&b, NULL);
}

/* The counts, the config and the exit code: one paragraph. */
static void counts_paragraph(struct rn_buf *b, const struct rn_outcome *oc, const char *cfg_file)
{
	struct rn_buf line;
	size_t c;

	rn_buf_init(&line, 0);
	c = rn_report_count(oc->reports, oc->ntargets, RN_VERDICT_FAIL);
	if (c)
		rn_buf_addf(&line, "**%zu failed** \u00b7 ", c);
	c = rn_report_count(oc->reports, oc->ntargets, RN_VERDICT_ERROR);
	if (c)
		rn_buf_addf(&line, "**%zu %s** \u00b7 ", c, rn_plural((double)c, "error"));
	c = rn_report_count(oc->reports, oc->ntargets, RN_VERDICT_NO_DATA);
	if (c)
		rn_buf_addf(&line, "**%zu no data** \u00b7 ", c);
	rn_buf_addf(&line, "%zu passed",
		    rn_report_count(oc->reports, oc->ntargets, RN_VERDICT_PASS));
	c = rn_report_count(oc->reports, oc->ntargets, RN_VERDICT_WARN) +
		rn_report_count(oc->reports, oc->ntargets, RN_VERDICT_NOT_JUDGED);
	if (c)
		rn_buf_addf(&line, " \u00b7 %zu advisory", c);
	c = rn_report_count(oc->reports, oc->ntargets, RN_VERDICT_SKIP);
	if (c)
		rn_buf_addf(&line, " \u00b7 %zu skipped", c);
	rn_buf_adds(&line, " \u00b7 ");
	rn_github_escape_markdown(&line, cfg_file, GH_CELL_MAX);
	rn_buf_addf(&line, " \u00b7 exit %d: ", oc->exit_code);
	rn_github_escape_markdown(&line, exit_description(oc->exit_code), 0);
	wrapped(b, line.buf);
	rn_buf_addc(b, '\n');
	rn_buf_release(&line);
}

/* Whether `v` is the row of `t` that a profile explained (its detail has the ranked list). */
static bool is_explained(const struct rn_target_report *t, const struct rn_verdict_result *v)
{
	return t->explain && t->explain->assertion && v->assertion &&
		!strcmp(t->explain->assertion, v->assertion) && v->detail &&
		strstr(v->detail, GH_CAUSE_LEANING);
}

/* The failing rows (nbad of them), one line each, up to GH_HEADLINE_ROWS; rows of one target
 * with one message (a target that did not run fails each of its assertions) are one line;
 * then each explained WARN row with its cause. */
static void headline_rows(struct rn_buf *b, const struct rn_outcome *oc, size_t nbad)
{
	size_t i, k, shown = 0, lines = 0;

	for (i = 0; i < oc->ntargets; i++)
		for (k = 0; k < oc->reports[i].nverdicts; k++) {
			const struct rn_verdict_result *v = &oc->reports[i].verdicts[k];
			size_t same;

			if (rank_of(v->verdict) != GH_RANK_BAD ||
			    same_as_earlier(&oc->reports[i], k))
				continue;
			same = same_later(&oc->reports[i], k);
			if (lines++ < GH_HEADLINE_ROWS) {
				headline_row(b, &oc->reports[i], v, same);
				shown += 1 + same;
			}
		}
	if (nbad > shown)
		rn_buf_addf(b, "- \u2026 and %zu more failing %s (below)\n", nbad - shown,
			    rn_plural((double)(nbad - shown), "row"));
	/* A row that did not fail but was explained (a golden timing row WARN whose estimate
	 * leans beyond its limit): the console prints its cause, so does the comment. */
	for (i = 0; i < oc->ntargets; i++)
		for (k = 0; k < oc->reports[i].nverdicts; k++) {
			const struct rn_verdict_result *v = &oc->reports[i].verdicts[k];

			if (rank_of(v->verdict) != GH_RANK_WARN ||
			    !is_explained(&oc->reports[i], v))
				continue;
			headline_row(b, &oc->reports[i], v, 0);
			lines++;
		}
	if (lines)
		rn_buf_addc(b, '\n');
}

/*
 * The Markdown of a finished check, shaped as a pull-request comment that is read in ten
 * seconds (the job summary and `renacer report --markdown` are the same text):
 *
 *   ## ❌ renacer check: failed
 *
 *   **1 failed** · 9 passed · 2 advisory · renacer.toml · exit 1: a blocking assertion failed
 *
 *   - ❌ **FAIL** app/baseline:cpu_time: +30% [+19%, +47%] · +9.0 ms on CPU in jv_copy (src/j...
 *                                                                     (one line, shortened)
 *
 *   timing gated at >= +4.1% (worst: target 'app')
 *
 *   [Run page and artifacts](https://github.com/o/r/actions/runs/1)
 *
 *   <details><summary>All 12 rows of 3 targets</summary> ... every target's rows as a list,
 *   failures first, with each non-passing row's detail folded ... </details>
 *
 * Only rows that fail (FAIL, ERROR, NO DATA) stand above the fold, one line each, and a WARN
 * row that a profile explained, with its cause ("· may be slower: +9.0 ms on CPU in ..."); under
 * --baseline a row that moved beyond the base is a FAIL row, so those are the rows that
 * changed since the base. Every line outside <details> fits GH_COMMENT_WIDTH columns, and no
 * table is used anywhere (a table scrolls sideways in a comment).
 */
static void summary_markdown(struct rn_buf *b, const struct rn_outcome *oc, const char *cfg_file,
			     size_t **cuts, size_t *ncuts, size_t *cap)
{
	struct rn_timing_gate gate;
	struct rn_buf line;
	size_t i, k, nbad = 0, nrows = 0;
	char gate_line[256], *url;
	int rank;

	for (i = 0; i < oc->ntargets; i++) {
		nrows += oc->reports[i].nverdicts;
		for (k = 0; k < oc->reports[i].nverdicts; k++)
			nbad += rank_of(oc->reports[i].verdicts[k].verdict) == GH_RANK_BAD;
	}
	rn_buf_addf(b, "## %s renacer check: %s\n\n",
		    oc->exit_code == RN_EXIT_OK ? "\u2705" : "\u274c",
		    oc->exit_code == RN_EXIT_OK ? "passed" : "failed");

	counts_paragraph(b, oc, cfg_file);
	headline_rows(b, oc, nbad);

	rn_buf_init(&line, 0);
	rn_timing_gate(oc->reports, oc->ntargets, &gate);
	if (rn_timing_gate_format(&gate, gate_line, sizeof(gate_line))) {
		rn_buf_reset(&line);
		rn_github_escape_markdown(&line, gate_line, 0);
		wrapped(b, line.buf);
		rn_buf_addc(b, '\n');
	}
	url = run_url();
	if (url) {
		rn_buf_addf(b, "[Run page and artifacts](%s)\n\n", url);
		free(url);
	}
	rn_buf_release(&line);

	/* Everything else, a click away. */
	if (!oc->ntargets) {
		cut_here(cuts, ncuts, cap, b);
		return;
	}
	rn_buf_addf(b, "<details><summary>All %zu %s of %zu %s</summary>\n\n", nrows,
		    rn_plural((double)nrows, "row"), oc->ntargets,
		    rn_plural((double)oc->ntargets, "target"));
	cut_here(cuts, ncuts, cap, b);
	/* Targets with failures first, then warnings, then the rest, each in config order. */
	for (rank = GH_RANK_BAD; rank <= GH_RANK_SKIP; rank++) {
		for (i = 0; i < oc->ntargets; i++) {
			const struct rn_target_report *t = &oc->reports[i];
			char *golden;

			if ((int)target_rank(t) != rank)
				continue;
			golden = t->golden_file ?
				workspace_path_in(oc->cfg ? oc->cfg->dir : NULL, t->golden_file) :
				NULL;
			target_section(b, t, golden, cuts, ncuts, cap);
			free(golden);
		}
	}
	rn_buf_adds(b, "</details>\n");
	cut_here(cuts, ncuts, cap, b);
}

/* ---- Entry points ----------------------------------------------------------------------- */

int rn_github_write(const struct rn_outcome *oc, const char *junit)
{
	const char *cfg_path = oc->cfg && oc->cfg->path ? oc->cfg->path : "renacer.toml";
	char *cfg_file = workspace_path(cfg_path);
	char *report = report_path();
	size_t failed = 0, warnings, *cuts = NULL, ncuts = 0, cap = 0;
	int limit = rn_github_annotation_limit(), rc = 0;
	struct rn_buf b;

	rn_buf_init(&b, 0);
	annotations(&b, oc, GH_RANK_BAD, limit, cfg_file);
	annotations(&b, oc, GH_RANK_WARN, limit, cfg_file);
	if (b.len) {
		fwrite(b.buf, 1, b.len, stdout);
		fflush(stdout);
	}
	rn_buf_reset(&b);

	summary_markdown(&b, oc, cfg_file, &cuts, &ncuts, &cap);
	if (rn_buf_failed(&b)) {
		rn_warn("cannot build the GitHub job summary: out of memory");
		keep(&rc, -ENOMEM);
	} else {
		keep(&rc, write_summary(&b, cuts, ncuts));
		if (report && write_report(report, &b)) {
			keep(&rc, -EIO);
			free(report);
			report = NULL;
		}
	}

	failed = rn_report_count(oc->reports, oc->ntargets, RN_VERDICT_FAIL) +
		rn_report_count(oc->reports, oc->ntargets, RN_VERDICT_ERROR) +
		rn_report_count(oc->reports, oc->ntargets, RN_VERDICT_NO_DATA);
	warnings = rn_report_count(oc->reports, oc->ntargets, RN_VERDICT_WARN) +
		rn_report_count(oc->reports, oc->ntargets, RN_VERDICT_NOT_JUDGED);
	keep(&rc,
	     write_outputs(rn_github_result(oc->exit_code, warnings), failed, warnings,
			   oc->exit_code, junit, report));
	free(cuts);
	free(report);
	free(cfg_file);
	rn_buf_release(&b);
	return rc;
}

char *rn_github_markdown(const struct rn_outcome *oc, size_t *len)
{
	const char *cfg_path = oc->cfg && oc->cfg->path ? oc->cfg->path : "renacer.toml";
	char *cfg_file = workspace_path(cfg_path), *md;
	size_t *cuts = NULL, ncuts = 0, cap = 0;
	struct rn_buf b;

	rn_buf_init(&b, 0);
	summary_markdown(&b, oc, cfg_file, &cuts, &ncuts, &cap);
	free(cuts);
	free(cfg_file);
	if (rn_buf_failed(&b)) {
		rn_buf_release(&b);
		return NULL;
	}
	md = rn_buf_detach(&b, len);
	return md;
}

int rn_github_report_diag(const struct rn_diag *d, int exit_code)
{
	char *file = workspace_path(d->file ? d->file : "renacer.toml");
	char *text = rn_diag_format(d, false);
	char *report = report_path();
	size_t fence = backtick_run(text) + 1, i, cut;
	struct rn_buf b;
	int rc = 0;

	rn_buf_init(&b, 0);
	if (rn_github_annotation_limit() > 0) {
		rn_buf_adds(&b, "::error file=");
		rn_github_escape_property(&b, file);
		if (d->line > 0)
			rn_buf_addf(&b, ",line=%d,col=%d", d->line, d->col > 0 ? d->col : 1);
		rn_buf_adds(&b, ",title=");
		rn_github_escape_property(&b, "renacer: config error");
		rn_buf_adds(&b, "::");
		rn_github_escape_data(&b, d->msg);
		rn_buf_addc(&b, '\n');
		/* the other errors of a collecting diag, each at its own line */
		for (i = 1; i < (size_t)d->nerrors && i <= (size_t)rn_github_annotation_limit();
		     i++) {
			const struct rn_diag_more *m = &d->more[i - 1];

			rn_buf_adds(&b, "::error file=");
			rn_github_escape_property(&b, file);
			if (m->line > 0)
				rn_buf_addf(&b, ",line=%d,col=%d", m->line,
					    m->col > 0 ? m->col : 1);
			rn_buf_adds(&b, ",title=");
			rn_github_escape_property(&b, "renacer: config error");
			rn_buf_adds(&b, "::");
			rn_github_escape_data(&b, m->msg);
			rn_buf_addc(&b, '\n');
		}
		fwrite(b.buf, 1, b.len, stdout);
		fflush(stdout);
	}
	rn_buf_reset(&b);
	if (fence < 3)
		fence = 3;
	rn_buf_addf(&b, "## \u274c renacer check: config error\n\n");
	rn_github_escape_markdown(&b, file, GH_CELL_MAX);
	rn_buf_addf(&b, " \u00b7 exit %d: ", exit_code);
	rn_github_escape_markdown(&b, exit_description(exit_code), 0);
	rn_buf_adds(&b, "\n\n");
	cut = b.len;
	for (i = 0; i < fence; i++)
		rn_buf_addc(&b, '`');
	rn_buf_adds(&b, "text\n");
	rn_buf_adds(&b, text);
	if (b.buf[b.len - 1] != '\n')
		rn_buf_addc(&b, '\n');
	for (i = 0; i < fence; i++)
		rn_buf_addc(&b, '`');
	rn_buf_adds(&b, "\n\n");
	if (rn_buf_failed(&b)) {
		keep(&rc, -ENOMEM);
	} else {
		size_t cuts[2] = { cut, b.len };

		keep(&rc, write_summary(&b, cuts, 2));
		if (report && write_report(report, &b)) {
			keep(&rc, -EIO);
			free(report);
			report = NULL;
		}
	}
	keep(&rc, write_outputs("error", 0, 0, exit_code, NULL, report));
	rn_buf_release(&b);
	free(report);
	free(text);
	free(file);
	return rc;
}

void rn_github_group_begin(const char *title)
{
	struct rn_buf b;

	rn_buf_init(&b, 4096);
	rn_buf_adds(&b, "::group::");
	rn_github_escape_data(&b, title);
	rn_buf_addc(&b, '\n');
	if (!rn_buf_failed(&b))
		rn_write_stderr(b.buf, b.len);
	rn_buf_release(&b);
}

void rn_github_group_end(void)
{
	rn_write_stderr("::endgroup::\n", 13);
}
