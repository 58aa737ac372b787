/*
 * history_doc.c - moving a store: the renacer-history/1 document (export and import of every
 * table), and the import of one golden trace or renacer-json-v1 file as a run (history.h).
 */
#include "history.h"
#include "internal.h"

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
#include "collector.h"
#include "config.h"
#include "escape.h"
#include "golden.h"
#include "json_text.h"
#include "log.h"
#include "now.h"
#include "utf8.h"
#include "xalloc.h"

/*
 * The document `history export --format history` writes and `history import` reads:
 *   {"format": "renacer-history/1", "runs": [{uid, created_ns, commit, branch, machine,
 *    machine_desc, source, config, renacer_version, exit_code, subject, author_ns, rerun_of,
 *    fingerprint,
 *    results: [{target, metric, unit, nsamples, median, min, max, samples}],
 *    verdicts: [{target, assertion, type, verdict, observed, budget, golden, unit, message}],
 *    critical_path: [{target, seq, process, pid, start_ns, end_ns}],
 *    syscalls: [{target, syscall, calls, errors, time_ns}],
 *    explanations: [{target, assertion, text, svg_path, svg_hash, base_path, base_hash,
 *                    base_folded, head_path, head_hash, head_folded}]}]}
 * Runs oldest first (created_ns, then uid), each table's rows in the order recorded. Values as
 * stored: ns, bytes, counts; null where the store has NULL. The local row ids are not
 * exported: a run is known by its uid, so importing a file twice adds nothing the second time.
 */

/*
 * What an imported value must be beyond its kind: the rules check applies to what it records
 * (runner/history/history.c), so an imported run could have been recorded by a check. Check
 * repairs what it reads from git and the environment (cut to 255 bytes, invalid UTF-8 as
 * U+FFFD); an imported file is input, and a value that breaks a rule is an error naming it.
 */
enum doc_rule {
	DOC_ANY,  /* a number or JSON value: its kind is the rule */
	DOC_NAME, /* check's target name rule: [A-Za-z0-9_.-]+ (rn_config_name_valid) */
	DOC_LINE, /* one line: UTF-8, no control character, at most `max` bytes */
	DOC_TEXT, /* text: UTF-8, at most `max` bytes (newlines allowed: messages, the config) */
};

/* Columns of one table in the document: name, kind (s string, i integer, d double, j JSON
 * text), rule and whether it must be there (NOT NULL in the store), NULL-terminated. The SQL
 * selects run_id first, then these in order. */
struct doc_col {
	const char *name;   /* key in the document */
	const char *sql;    /* column in the store */
	char kind;          /* 's', 'i', 'd' or 'j' */
	enum doc_rule rule; /* what a string must be */
	unsigned max;       /* DOC_LINE, DOC_TEXT: most bytes */
	bool required;      /* null or absent is an error */
};

/* The identity strings check keeps (commit, branch, machine): UTF-8 of at most 255 bytes
 * (control characters are kept and escaped where they are shown, as check's are). */
#define DOC_IDENT DOC_TEXT, 255
/* A uid: "local-MACHINE-TIME-ID" for runs of schemas before 4, so a machine name and more. */
#define DOC_UID DOC_TEXT, 320
/* A word of renacer's own (a metric, unit, verdict, syscall name). */
#define DOC_WORD DOC_LINE, 64
/* Free text: a message, a name from the config, the config itself (its file cap). */
#define DOC_FREE DOC_TEXT, (64u << 20)

static const struct doc_col run_cols[] = {
	{ "uid", "uid", 's', DOC_UID, true },
	{ "created_ns", "created_ns", 'i', DOC_ANY, 0, true },
	{ "commit", "commit_sha", 's', DOC_IDENT, true },
	{ "branch", "branch", 's', DOC_IDENT, true },
	{ "machine", "machine", 's', DOC_IDENT, true },
	{ "machine_desc", "machine_desc", 's', DOC_IDENT, true },
	{ "source", "source", 's', DOC_IDENT, true },
	{ "config", "config", 's', DOC_FREE, true },
	{ "renacer_version", "renacer_version", 's', DOC_WORD, true },
	{ "exit_code", "exit_code", 'i', DOC_ANY, 0, true },
	{ "subject", "subject", 's', DOC_TEXT, 4096, false },
	{ "author_ns", "author_ns", 'i', DOC_ANY, 0, false },
	{ "rerun_of", "rerun_of", 's', DOC_IDENT, false },
	{ "fingerprint", "fingerprint", 's', DOC_TEXT, 4096, false },
	{ NULL, NULL, 0, DOC_ANY, 0, false },
};

static const struct doc_col result_cols[] = {
	{ "target", "target", 's', DOC_NAME, 0, true },
	{ "metric", "metric", 's', DOC_WORD, true },
	{ "unit", "unit", 's', DOC_WORD, true },
	{ "nsamples", "nsamples", 'i', DOC_ANY, 0, true },
	{ "median", "median", 'd', DOC_ANY, 0, true },
	{ "min", "min_value", 'd', DOC_ANY, 0, true },
	{ "max", "max_value", 'd', DOC_ANY, 0, true },
	{ "samples", "samples", 'j', DOC_ANY, 0, true },
	{ NULL, NULL, 0, DOC_ANY, 0, false },
};

static const struct doc_col verdict_cols[] = {
	{ "target", "target", 's', DOC_NAME, 0, true },
	{ "assertion", "assertion", 's', DOC_FREE, true },
	{ "type", "type", 's', DOC_WORD, true },
	{ "verdict", "verdict", 's', DOC_WORD, true },
	{ "observed", "observed", 'd', DOC_ANY, 0, false },
	{ "budget", "budget", 'd', DOC_ANY, 0, false },
	{ "golden", "golden", 'd', DOC_ANY, 0, false },
	{ "unit", "unit", 's', DOC_WORD, false },
	{ "message", "message", 's', DOC_FREE, false },
	{ NULL, NULL, 0, DOC_ANY, 0, false },
};

static const struct doc_col cp_cols[] = {
	{ "target", "target", 's', DOC_NAME, 0, true },
	{ "seq", "seq", 'i', DOC_ANY, 0, true },
	{ "process", "process", 's', DOC_FREE, true },
	{ "pid", "pid", 'i', DOC_ANY, 0, true },
	{ "start_ns", "start_ns", 'i', DOC_ANY, 0, true },
	{ "end_ns", "end_ns", 'i', DOC_ANY, 0, true },
	{ NULL, NULL, 0, DOC_ANY, 0, false },
};

static const struct doc_col syscall_cols[] = {
	{ "target", "target", 's', DOC_NAME, 0, true },
	{ "syscall", "syscall", 's', DOC_WORD, true },
	{ "calls", "calls", 'd', DOC_ANY, 0, true },
	{ "errors", "errors", 'd', DOC_ANY, 0, true },
	{ "time_ns", "time_ns", 'd', DOC_ANY, 0, false },
	{ NULL, NULL, 0, DOC_ANY, 0, false },
};

static const struct doc_col explanation_cols[] = {
	{ "target", "target", 's', DOC_NAME, 0, true },
	{ "assertion", "assertion", 's', DOC_FREE, true },
	{ "text", "text", 's', DOC_FREE, true },
	{ "svg_path", "svg_path", 's', DOC_FREE, false },
	{ "svg_hash", "svg_hash", 's', DOC_WORD, false },
	{ "base_path", "base_path", 's', DOC_FREE, false },
	{ "base_hash", "base_hash", 's', DOC_WORD, false },
	{ "base_folded", "base_folded", 's', DOC_FREE, false },
	{ "head_path", "head_path", 's', DOC_FREE, false },
	{ "head_hash", "head_hash", 's', DOC_WORD, false },
	{ "head_folded", "head_folded", 's', DOC_FREE, false },
	{ NULL, NULL, 0, DOC_ANY, 0, false },
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
	{ "explanations", "explanations", explanation_cols },
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

	if (ncols < 15)
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

int rn_history_export_doc(struct rn_history *h, const struct rn_history_filter *f, json_t **doc)
{
	/* the runs of f's machine and branch; f's target and metric select the rows below */
	const struct rn_history_filter runs = { NULL, NULL, f->machine, f->branch };
	struct doc_export e;
	struct rn_buf sql;
	const char *params[4];
	size_t np, k;
	int rc;

	memset(&e, 0, sizeof(e));
	e.runs = json_array();
	e.target = f->target;
	e.metric = f->metric;
	rn_buf_init(&sql, 0);
	select_cols(&sql, "id", run_cols);
	rn_buf_adds(&sql, " FROM runs r WHERE 1 = 1");
	np = rn_history_where(&sql, &runs, params);
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
	*doc = json_pack("{s:s, s:o}", "format", RN_HISTORY_FORMAT, "runs", e.runs);
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

/* Whether string `v` keeps `c`'s rule; else what is wrong, into why[cap]. */
static bool doc_rule_ok(const struct doc_col *c, const char *v, char *why, size_t cap)
{
	size_t len = strlen(v);

	switch (c->rule) {
	case DOC_NAME:
		if (rn_config_name_valid(v))
			return true;
		snprintf(why, cap, "must match [A-Za-z0-9_.-]+ (check's target name rule)");
		return false;
	case DOC_LINE:
	case DOC_TEXT:
		if (len > c->max) {
			snprintf(why, cap, "is %zu bytes long, at most %u", len, c->max);
			return false;
		}
		if (!rn_utf8_valid(v)) {
			snprintf(why, cap, "is not valid UTF-8");
			return false;
		}
		if (c->rule == DOC_LINE && rn_has_ctl(v)) {
			snprintf(why, cap, "must be one line without control characters");
			return false;
		}
		return true;
	default:
		return true;
	}
}

/*
 * Check object `o` at `where` (a place in the document: "runs[2].results[0]") against
 * `cols`: an object, each value of its column's kind and rule, none missing that must be
 * there. 0, or -EINVAL after an error naming the file, the place, the key and the value.
 */
static int doc_check(const char *path, const char *where, const struct doc_col *cols,
		     const json_t *o)
{
	char why[96];
	size_t i;

	if (!json_is_object(o))
		return rn_error("%s: %s: not an object", path, where), -EINVAL;
	for (i = 0; cols[i].name; i++) {
		const json_t *v = json_object_get(o, cols[i].name);
		const char *kind = cols[i].kind == 'i' ? "an integer" :
			cols[i].kind == 'd'            ? "a number" :
			cols[i].kind == 'j'            ? "a JSON value" :
							 "a string";
		bool ok;

		if (!v || json_is_null(v)) {
			if (!cols[i].required)
				continue;
			return rn_error("%s: %s.%s: missing (%s)", path, where, cols[i].name, kind),
			       -EINVAL;
		}
		ok = cols[i].kind == 'i'    ? json_is_integer(v) :
			cols[i].kind == 'd' ? json_is_number(v) :
			cols[i].kind == 'j' ? true :
					      json_is_string(v);
		if (!ok)
			return rn_error("%s: %s.%s: must be %s", path, where, cols[i].name, kind),
			       -EINVAL;
		if (cols[i].kind != 's')
			continue;
		if (strlen(json_string_value(v)) != json_string_length(v))
			return rn_error("%s: %s.%s: must not contain NUL characters", path, where,
					cols[i].name),
			       -EINVAL;
		if (!doc_rule_ok(&cols[i], json_string_value(v), why, sizeof(why))) {
			char shown[64];

			/* the value, escaped and cut: it may be long, and it is not ours */
			rn_escape_ctl(shown, sizeof(shown), json_string_value(v));
			shown[rn_utf8_prefix(shown, sizeof(shown) - 4)] = '\0';
			return rn_error("%s: %s.%s: \"%s%s\" %s", path, where, cols[i].name, shown,
					strlen(json_string_value(v)) >= sizeof(shown) - 4 ? "..." :
											    "",
					why),
			       -EINVAL;
		}
	}
	return 0;
}

/* Every run of the document and each of its rows checked (doc_check) before anything is
 * written. 0 or -EINVAL. */
static int doc_check_runs(const char *path, const json_t *runs)
{
	char where[96];
	size_t i, k, r;
	int rc;

	for (i = 0; i < json_array_size(runs); i++) {
		const json_t *run = json_array_get(runs, i);

		snprintf(where, sizeof(where), "runs[%zu]", i);
		rc = doc_check(path, where, run_cols, run);
		if (rc)
			return rc;
		if (!*json_string_value(json_object_get(run, "uid")))
			return rn_error("%s: %s.uid: must not be empty", path, where), -EINVAL;
		for (k = 0; k < sizeof(doc_tables) / sizeof(doc_tables[0]); k++) {
			const json_t *rows = json_object_get(run, doc_tables[k].key);

			if (!rows || json_is_null(rows))
				continue;
			if (!json_is_array(rows))
				return rn_error("%s: runs[%zu].%s: must be an array", path, i,
						doc_tables[k].key),
				       -EINVAL;
			for (r = 0; r < json_array_size(rows); r++) {
				snprintf(where, sizeof(where), "runs[%zu].%s[%zu]", i,
					 doc_tables[k].key, r);
				rc = doc_check(path, where, doc_tables[k].cols,
					       json_array_get(rows, r));
				if (rc)
					return rc;
			}
		}
	}
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
		rc = rn_history_query(h, sql.buf, params, n,
				      returning ? rn_history_int64_row : NULL, id);
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

int rn_history_import_doc(struct rn_history *h, const char *path, const json_t *doc, size_t *added,
			  size_t *skipped)
{
	const json_t *runs = json_object_get(doc, "runs");
	size_t i, k;
	int rc;

	*added = *skipped = 0;
	if (!json_is_array(runs))
		return rn_error("%s: 'runs' is not an array", path), -EINVAL;
	/* the input rules first: a file that breaks one is an input error naming the place,
	 * never a half-written store or a database error */
	if (doc_check_runs(path, runs))
		return -EINVAL;
	rc = h->ops->exec(h, h->ops->begin_sql);
	for (i = 0; i < json_array_size(runs) && !rc; i++) {
		const json_t *run = json_array_get(runs, i);
		const char *uid = json_string_value(json_object_get(run, "uid"));
		const char *params[1] = { uid };
		bool exists = false;
		int64_t id = 0;
		char idtext[24];

		/* SIGINT/SIGTERM (rn_run_catch_signals): the transaction is rolled back, the
		 * store is closed as it was, and the command ends with the signal's code */
		if (rn_run_interrupted()) {
			rc = -ECANCELED;
			break;
		}
		if (!json_is_object(run) || !uid || !*uid) {
			rc = rn_error("%s: run %zu has no uid", path, i + 1);
			rc = -EINVAL;
			break;
		}
		rc = rn_history_query(h, "SELECT 1 FROM runs WHERE uid = ?", params, 1, exists_row,
				      &exists);
		if (rc || exists) {
			*skipped += exists;
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
		*added += !rc;
	}
	rc = rn_history_finish(h, rc);
	if (rc == -ECANCELED)
		rn_error("%s: interrupted: nothing of it imported", path);
	else if (rc && rc != -EINVAL)
		rn_error("history '%s': %s", h->location, h->err);
	return rc;
}

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
	if (!run.created_ns)
		run.created_ns = rn_real_ns();
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
