/*
 * history_sqlite.c - the SQLite backend of the history store.
 *
 * Concurrent writers (parallel CI jobs on one machine, 8 checks at once in the tests) are made
 * safe by SQLite itself: the WAL journal lets readers go on while one writer writes, every
 * write transaction starts with BEGIN IMMEDIATE (it takes the write lock at once, so two
 * writers never deadlock upgrading read locks), and the busy timeout makes a writer wait for
 * the lock instead of failing (https://www.sqlite.org/wal.html, section "Concurrency").
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "xalloc.h"

static int sq_fail(struct rn_history *h, const char *what)
{
	sqlite3 *db = h->db;

	return rn_history_fail(h, -EIO, "%s: %s", what, db ? sqlite3_errmsg(db) : "out of memory");
}

static int sq_exec(struct rn_history *h, const char *sql)
{
	char *msg = NULL;
	int rc = sqlite3_exec(h->db, sql, NULL, NULL, &msg);

	if (rc != SQLITE_OK) {
		rn_history_fail(h, -EIO, "%s", msg ? msg : sqlite3_errstr(rc));
		sqlite3_free(msg);
		return -EIO;
	}
	return 0;
}

/* May this process write `path`, or create files beside it (the -wal and -shm files)? */
static bool writable(const char *path, bool dir)
{
	char *copy, *slash;
	bool ok;

	if (!dir)
		return !faccessat(AT_FDCWD, path, W_OK, AT_EACCESS);
	copy = rn_xstrdup(path);
	slash = strrchr(copy, '/');
	if (slash == copy)
		slash[1] = '\0';
	else if (slash)
		*slash = '\0';
	ok = !faccessat(AT_FDCWD, slash ? copy : ".", W_OK | X_OK, AT_EACCESS);
	free(copy);
	return ok;
}

/* "file:<path>?immutable=1" (RFC 3986 percent-encoding of the path, as SQLite's URI
 * filenames want it). Caller frees. */
static char *immutable_uri(const char *path)
{
	struct rn_buf b;
	const unsigned char *p;

	rn_buf_init(&b, 0);
	rn_buf_adds(&b, "file:");
	for (p = (const unsigned char *)path; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("/-._~", *p))
			rn_buf_addc(&b, (char)*p);
		else
			rn_buf_addf(&b, "%%%02X", *p);
	}
	rn_buf_adds(&b, "?immutable=1");
	return rn_buf_detach(&b, NULL);
}

static int sq_open(struct rn_history *h, const char *location, bool create, int busy_timeout_ms)
{
	sqlite3 *db = NULL;
	/* One handle per process, used by one thread (history.h): no mutex per call. Readers
	 * open read-only, so a store they may not write can still be read; where this process
	 * can write neither the file nor its directory, no -shm file can be made beside it
	 * either and the store is opened immutable (https://www.sqlite.org/uri.html,
	 * "immutable"): nothing writes it while it is read. */
	int flags = SQLITE_OPEN_NOMUTEX |
		(create ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY);
	char *uri = NULL;
	int rc;

	if (!create && !writable(location, false) && !writable(location, true)) {
		uri = immutable_uri(location);
		flags |= SQLITE_OPEN_URI;
	}
	rc = sqlite3_open_v2(uri ? uri : location, &db, flags, NULL);
	free(uri);
	h->db = db;
	if (rc != SQLITE_OK)
		return sq_fail(h, "cannot open");
	sqlite3_busy_timeout(db, busy_timeout_ms);
	sqlite3_extended_result_codes(db, 0);
	/* WAL persists in the file; setting it again is a no-op. NORMAL is durable in WAL mode
	 * except for the last transactions on power loss, which a history can afford. */
	if (create && sq_exec(h, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL"))
		return -EIO;
	/* Reads of a long history map the file instead of copying page by page. */
	return sq_exec(h, "PRAGMA mmap_size = 1073741824");
}

static int sq_query(struct rn_history *h, const char *sql, const char *const *params,
		    size_t nparams, rn_history_row_fn fn, void *ctx)
{
	sqlite3_stmt *st = NULL;
	const char *vals[32];
	char num[32][32];
	size_t i;
	int rc, ret = 0;

	if (sqlite3_prepare_v2(h->db, sql, -1, &st, NULL) != SQLITE_OK)
		return sq_fail(h, "cannot prepare a query");
	for (i = 0; i < nparams; i++) {
		rc = params[i] ? sqlite3_bind_text(st, (int)i + 1, params[i], -1, SQLITE_STATIC) :
				 sqlite3_bind_null(st, (int)i + 1);
		if (rc != SQLITE_OK) {
			sqlite3_finalize(st);
			return sq_fail(h, "cannot bind a parameter");
		}
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int ncols = sqlite3_column_count(st), c;

		if (ncols > 32)
			ncols = 32;
		for (c = 0; c < ncols; c++) {
			/* SQLite's own text of a REAL has 15 digits: not the stored double.
			 * The shortest text that reads back as the same double. */
			if (sqlite3_column_type(st, c) == SQLITE_FLOAT) {
				double v = sqlite3_column_double(st, c);

				snprintf(num[c], sizeof(num[c]), "%.15g", v);
				if (strtod(num[c], NULL) != v)
					snprintf(num[c], sizeof(num[c]), "%.17g", v);
				vals[c] = num[c];
				continue;
			}
			vals[c] = (const char *)sqlite3_column_text(st, c);
		}
		if (fn) {
			ret = fn(ctx, (size_t)ncols, vals);
			if (ret)
				break;
		}
	}
	if (!ret && rc != SQLITE_DONE)
		ret = sq_fail(h, "query failed");
	sqlite3_finalize(st);
	return ret;
}

static int sq_lock_schema(struct rn_history *h)
{
	/* BEGIN IMMEDIATE already holds the write lock. */
	(void)h;
	return 0;
}

static void sq_close(struct rn_history *h)
{
	sqlite3_close_v2(h->db);
	h->db = NULL;
}

const struct rn_history_ops rn_history_sqlite_ops = {
	.name = "sqlite",
	.id_type = "INTEGER PRIMARY KEY",
	.begin_sql = "BEGIN IMMEDIATE",
	.open = sq_open,
	.exec = sq_exec,
	.query = sq_query,
	.lock_schema = sq_lock_schema,
	.close = sq_close,
};
