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

#endif
