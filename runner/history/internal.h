/*
 * internal.h - what the files of runner/history/ share: the backends, the query
 * helpers behind every read and write of the store, run identity, credential redaction and
 * change-point upkeep (private to the layer; other layers go through history.h).
 */
#ifndef RN_HISTORY_INTERNAL_H
#define RN_HISTORY_INTERNAL_H

#include "history.h"
#include "log.h"

/* The SQLite backend (history_sqlite.c). */
extern const struct rn_history_ops rn_history_sqlite_ops;
/* The PostgreSQL backend (history_pg.c); libpq is loaded with dlopen on open. */
extern const struct rn_history_ops rn_history_postgres_ops;

/* Format a one-line reason into h->err (newlines folded) and return `code`. */
int rn_history_fail(struct rn_history *h, int code, const char *fmt, ...) RN_PRINTF(3, 4);

/* A rn_history_row_fn that stores the first column of a row as an int64_t into *ctx (left
 * as it is when the column is NULL or there is no row). */
int rn_history_int64_row(void *ctx, size_t ncols, const char *const *vals);

struct rn_buf;

/* Append " AND <column> = ?" to `sql` for each field of `f` that is not NULL (s.target,
 * s.metric, r.machine, r.branch: the query names results `s` and runs `r`), its value into
 * params[] (room for 4). Returns how many were added. */
size_t rn_history_where(struct rn_buf *sql, const struct rn_history_filter *f, const char **params);

/* End the transaction the caller began: COMMIT when `rc` is 0, else (or when COMMIT fails)
 * ROLLBACK with h->err kept as the failure left it. Returns `rc`, or COMMIT's error. */
int rn_history_finish(struct rn_history *h, int rc);

/* The backend's query, with the error prefixed by the store's location. */
int rn_history_query(struct rn_history *h, const char *sql, const char *const *params,
		     size_t nparams, rn_history_row_fn fn, void *ctx);

/*
 * Append one run: its identity, every target's per-run samples of every metric with data,
 * every verdict, the critical path of each target's last run and its per-syscall medians, in
 * one transaction.
 * Returns the new run's id (> 0) or a negative errno with h->err set.
 */
int64_t rn_history_append(struct rn_history *h, const struct rn_history_run *run,
			  const struct rn_target_report *t, size_t n);

/* Largest file an explanation's hash is taken of (a flame graph, a folded-stacks file), bytes:
 * a larger one is not kept (its path and hash are NULL). */
#define RN_HISTORY_EXPLAIN_FILE_MAX ((size_t)64 << 20)
/* Largest folded-stacks file kept whole in the store, bytes; a larger one keeps its path and
 * hash only. */
#define RN_HISTORY_FOLDED_INLINE ((size_t)256 << 10)

/* The 64-bit FNV-1a hash of the file at `path` as 16 hex digits into hex[17], its bytes
 * appended to `content` when not NULL (at most RN_HISTORY_EXPLAIN_FILE_MAX). False when the
 * file cannot be read (hex and content untouched). */
bool rn_history_file_hash(const char *path, char hex[17], struct rn_buf *content);

/* Append t->explain (not NULL) of run `run_id` to the explanations table (the caller holds
 * the write transaction): the ranked list, and the flame graph's and both folded-stacks
 * files' absolute paths and hashes, each folded-stacks file's text too when at most
 * RN_HISTORY_FOLDED_INLINE bytes. A file that cannot be read is kept as NULL. 0 or negative
 * errno (h->err set). */
int rn_history_append_explanation(struct rn_history *h, const char *run_id,
				  const struct rn_target_report *t);

/* A rn_history_row_fn for the page: the columns run_id, target, assertion, text, svg_path,
 * svg_hash of explanations appended to the JSON object `ctx` as {RUN: [{target, assertion,
 * text, svg}]}; svg is the flame graph's absolute path while the file still has the hash
 * stored, else "". */
int rn_history_explain_row(void *ctx, size_t ncols, const char *const *v);

/* Is `url` a PostgreSQL location: a postgresql:// or postgres:// URI, or a libpq key=value
 * connection string ("host=db dbname=perf user=ci")? */
bool rn_history_is_postgres(const char *url);

/*
 * `location` fit to print: every credential form libpq accepts masked as "***": the password
 * of a URI's userinfo (up to the last '@' before the path, so an unencoded '@' in it does
 * not leave its tail), `password` and `sslpassword` in a URI's query (keys percent-decoded
 * as libpq decodes them), and the same keys of a key=value connection string (quoted values
 * too). A new string the caller frees. When `secrets` is not NULL it receives a new
 * NULL-terminated array of the masked values, raw and percent-decoded (free with
 * rn_history_secrets_free), to scrub from messages that quote them.
 */
char *rn_history_redact(const char *location, char ***secrets);
void rn_history_secrets_free(char **secrets);

/*
 * Fill commit, branch, machine and machine_desc for the current checkout and host: commit from
 * $RENACER_COMMIT, $GITHUB_SHA, $CI_COMMIT_SHA or `git rev-parse HEAD` in `dir`; branch from
 * $RENACER_BRANCH, $GITHUB_HEAD_REF, $GITHUB_REF_NAME, $CI_COMMIT_REF_NAME or git; machine from
 * `machine_override`, $RENACER_MACHINE, or a fingerprint (16 hex digits of a hash of CPU model,
 * CPU count, memory size, kernel release and architecture). Strings are written into the
 * caller's buffers (`bufs`, 4 x 256 bytes) and `run` points at them.
 */
void rn_history_run_identify(struct rn_history_run *run, const char *dir,
			     const char *machine_override, char (*bufs)[256]);

/*
 * The change points of the last RN_HISTORY_CHANGES_RUNS runs of target/metric on `machine`,
 * searched incrementally: from the cuts kept in change_points (rn_changepoints_update: only
 * the tail from the second-to-last cut is searched again), the whole series when none are kept.
 * With `store`, the new cuts are kept (the caller holds a write transaction). *cp receives a
 * malloc'ed array of *ncp change points (caller frees); when `run` is not NULL, *run, *x and
 * *n receive the series (run ids and medians, oldest first, malloc'ed; caller frees).
 * Returns 0 or negative errno with h->err set.
 */
int rn_history_series_changes(struct rn_history *h, const char *target, const char *metric,
			      const char *machine, int64_t **run, double **x, size_t *n,
			      struct rn_changepoint **cp, size_t *ncp, bool store);

#endif
