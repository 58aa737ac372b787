/*
 * history_internal.h - what the history store's backends share with history.c (private to the
 * runner).
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

#endif
