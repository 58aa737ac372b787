/*
 * history_pg.c - the PostgreSQL backend of the history store, for many CI runners writing to
 * one server.
 *
 * libpq pulls TLS, Kerberos and LDAP libraries into every process that links it; most renacer
 * runs never talk to PostgreSQL, so libpq (libpq.so.5, the soname of Debian's libpq5) is loaded
 * with dlopen on the first open, as libcurl is for OTLP (curl_dl.h). Only its header is used at
 * build time (pkg-config libpq).
 *
 * Concurrency: each append is one transaction of plain INSERTs (generated keys come from
 * sequences, which never block each other); schema migrations take a transaction-scoped
 * advisory lock so that concurrent first writers apply each migration once.
 */
#include "history_internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <libpq-fe.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "xalloc.h"

/* The libpq functions used, resolved from libpq.so.5 (signatures of libpq-fe.h). */
static struct pq_api {
	void *lib;
	PGconn *(*connectdb_params)(const char *const *keywords, const char *const *values,
				    int expand_dbname);
	ConnStatusType (*status)(const PGconn *conn);
	char *(*error_message)(const PGconn *conn);
	void (*finish)(PGconn *conn);
	PGresult *(*exec)(PGconn *conn, const char *query);
	PGresult *(*exec_params)(PGconn *conn, const char *command, int nparams, const Oid *types,
				 const char *const *values, const int *lengths, const int *formats,
				 int result_format);
	ExecStatusType (*result_status)(const PGresult *res);
	char *(*result_error_message)(const PGresult *res);
	void (*clear)(PGresult *res);
	int (*ntuples)(const PGresult *res);
	int (*nfields)(const PGresult *res);
	char *(*getvalue)(const PGresult *res, int row, int col);
	int (*getisnull)(const PGresult *res, int row, int col);
	PQnoticeProcessor (*set_notice_processor)(PGconn *conn, PQnoticeProcessor proc, void *arg);
} pq;

static int load_libpq(struct rn_history *h)
{
	static const struct {
		const char *name;
		size_t off;
	} syms[] = {
#define SYM(n, field) { n, offsetof(struct pq_api, field) }
		SYM("PQconnectdbParams", connectdb_params),
		SYM("PQstatus", status),
		SYM("PQerrorMessage", error_message),
		SYM("PQfinish", finish),
		SYM("PQexec", exec),
		SYM("PQexecParams", exec_params),
		SYM("PQresultStatus", result_status),
		SYM("PQresultErrorMessage", result_error_message),
		SYM("PQclear", clear),
		SYM("PQntuples", ntuples),
		SYM("PQnfields", nfields),
		SYM("PQgetvalue", getvalue),
		SYM("PQgetisnull", getisnull),
		SYM("PQsetNoticeProcessor", set_notice_processor),
#undef SYM
	};
	size_t i;

	if (pq.lib)
		return 0;
	pq.lib = dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL);
	if (!pq.lib)
		return rn_history_fail(h, -ENOENT, "cannot load libpq.so.5 (install libpq5): %s",
				       dlerror());
	for (i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		void *f = dlsym(pq.lib, syms[i].name);

		if (!f) {
			dlclose(pq.lib);
			pq.lib = NULL;
			return rn_history_fail(h, -ENOENT, "libpq.so.5 lacks %s", syms[i].name);
		}
		memcpy((char *)&pq + syms[i].off, &f, sizeof(f));
	}
	return 0;
}

/* NOTICEs ("relation already exists, skipping") are not the user's concern. */
static void quiet_notice(void *arg, const char *message)
{
	(void)arg;
	(void)message;
}

static int pg_open(struct rn_history *h, const char *location, bool create, int busy_timeout_ms)
{
	/* connect_timeout first: a value in the URI overrides it (later settings win). */
	const char *keys[] = { "connect_timeout", "application_name", "dbname", NULL };
	const char *vals[] = { "10", "renacer", location, NULL };
	PGconn *conn;
	int rc = load_libpq(h);

	(void)create;
	(void)busy_timeout_ms;
	if (rc)
		return rc;
	conn = pq.connectdb_params(keys, vals, 1);
	h->db = conn;
	if (!conn)
		return rn_history_fail(h, -ENOMEM, "cannot connect: out of memory");
	if (pq.status(conn) != CONNECTION_OK)
		return rn_history_fail(h, -EIO, "cannot connect: %s", pq.error_message(conn));
	pq.set_notice_processor(conn, quiet_notice, NULL);
	return 0;
}

static int pg_exec(struct rn_history *h, const char *sql)
{
	PGresult *res = pq.exec(h->db, sql);
	ExecStatusType st = res ? pq.result_status(res) : PGRES_FATAL_ERROR;
	int rc = 0;

	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
		rc = rn_history_fail(h, -EIO, "%s",
				     res ? pq.result_error_message(res) : pq.error_message(h->db));
	pq.clear(res);
	return rc;
}

/* '?' placeholders -> $1, $2 ... (renacer's SQL has no '?' inside literals). */
static char *number_params(const char *sql)
{
	struct rn_buf b;
	int n = 0;

	rn_buf_init(&b, 0);
	for (; *sql; sql++) {
		if (*sql == '?')
			rn_buf_addf(&b, "$%d", ++n);
		else
			rn_buf_addc(&b, *sql);
	}
	return rn_buf_detach(&b, NULL);
}

static int pg_query(struct rn_history *h, const char *sql, const char *const *params,
		    size_t nparams, rn_history_row_fn fn, void *ctx)
{
	char *q = number_params(sql);
	PGresult *res = pq.exec_params(h->db, q, (int)nparams, NULL, params, NULL, NULL, 0);
	ExecStatusType st = res ? pq.result_status(res) : PGRES_FATAL_ERROR;
	const char *vals[32];
	int rows, cols, r, c, ret = 0;

	free(q);
	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
		ret = rn_history_fail(h, -EIO, "%s",
				      res ? pq.result_error_message(res) : pq.error_message(h->db));
		pq.clear(res);
		return ret;
	}
	rows = pq.ntuples(res);
	cols = pq.nfields(res);
	if (cols > 32)
		cols = 32;
	for (r = 0; r < rows && fn && !ret; r++) {
		for (c = 0; c < cols; c++)
			vals[c] = pq.getisnull(res, r, c) ? NULL : pq.getvalue(res, r, c);
		ret = fn(ctx, (size_t)cols, vals);
	}
	pq.clear(res);
	return ret;
}

static int pg_lock_schema(struct rn_history *h)
{
	/* 0x72656e61 = "rena": one lock id for renacer's migrations in this database. */
	return pg_exec(h, "SELECT pg_advisory_xact_lock(1919250017)");
}

static void pg_close(struct rn_history *h)
{
	pq.finish(h->db);
	h->db = NULL;
}

const struct rn_history_ops rn_history_postgres_ops = {
	.name = "postgresql",
	.id_type = "BIGSERIAL PRIMARY KEY",
	.begin_sql = "BEGIN",
	.open = pg_open,
	.exec = pg_exec,
	.query = pg_query,
	.lock_schema = pg_lock_schema,
	.close = pg_close,
};
