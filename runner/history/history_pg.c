/*
 * history_pg.c - the PostgreSQL backend of the history store, for many CI runners writing to
 * one server.
 *
 * libpq pulls TLS, Kerberos and LDAP libraries into every process that links it; most renacer
 * runs never talk to PostgreSQL, so libpq (libpq.so.5, the soname of Debian's libpq5) is loaded
 * with dlopen on the first open, as libcurl is for OTLP (curl_dl.h). Only its header is used at
 * build time (pkg-config libpq).
 *
 * Time: every operation ends by a deadline. The session runs with statement_timeout and
 * lock_timeout of [history] busy_timeout_ms (a LOCK TABLE held elsewhere ends in an error, not
 * a wait), and the client polls a non-blocking connection to the same time plus a grace, so
 * a server that accepts and then never answers costs a check that long and no more.
 *
 * Concurrency: each append is one transaction of plain INSERTs (generated keys come from
 * sequences, which never block each other); schema migrations take a transaction-scoped
 * advisory lock so that concurrent first writers apply each migration once.
 */
#include "internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <libpq-fe.h>
#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "config.h"
#include "now.h"
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
	PGconn *(*connect_start_params)(const char *const *keywords, const char *const *values,
					int expand_dbname);
	PostgresPollingStatusType (*connect_poll)(PGconn *conn);
	int (*socket)(const PGconn *conn);
	int (*set_nonblocking)(PGconn *conn, int arg);
	int (*send_query_params)(PGconn *conn, const char *command, int nparams, const Oid *types,
				 const char *const *values, const int *lengths, const int *formats,
				 int result_format);
	int (*send_query)(PGconn *conn, const char *command);
	int (*flush)(PGconn *conn);
	int (*consume_input)(PGconn *conn);
	int (*is_busy)(PGconn *conn);
	PGresult *(*get_result)(PGconn *conn);
} pq;

/* The backend's state beside the connection: every operation ends by its deadline. */
struct pg_state {
	PGconn *conn;
	int timeout_ms; /* statement and lock timeout; the client waits a little longer */
	bool broken;    /* a deadline passed: the connection is in an unknown state */
};

/* The client's deadline is the server's timeouts plus this: the server's own error ("canceling
 * statement due to lock timeout") is clearer, so it gets the chance to arrive first. */
#define PG_CLIENT_GRACE_MS 2000

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
		SYM("PQconnectStartParams", connect_start_params),
		SYM("PQconnectPoll", connect_poll),
		SYM("PQsocket", socket),
		SYM("PQsetnonblocking", set_nonblocking),
		SYM("PQsendQueryParams", send_query_params),
		SYM("PQsendQuery", send_query),
		SYM("PQflush", flush),
		SYM("PQconsumeInput", consume_input),
		SYM("PQisBusy", is_busy),
		SYM("PQgetResult", get_result),
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

static int64_t now_ms(void)
{
	return (int64_t)(rn_mono_ns() / 1000000);
}

/* Wait until the connection's socket is readable (or writable) or `deadline_ms` passes.
 * 0, or -ETIMEDOUT / -errno. */
static int wait_socket(PGconn *conn, bool for_write, int64_t deadline_ms)
{
	struct pollfd pfd = { pq.socket(conn), for_write ? POLLOUT : POLLIN, 0 };

	if (pfd.fd < 0)
		return -EBADF;
	for (;;) {
		int64_t left = deadline_ms - now_ms();
		int n;

		if (left <= 0)
			return -ETIMEDOUT;
		n = poll(&pfd, 1, left > INT32_MAX ? INT32_MAX : (int)left);
		if (n > 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return -errno;
	}
}

static int timed_out(struct rn_history *h, struct pg_state *ps, const char *what)
{
	ps->broken = true;
	return rn_history_fail(h, -ETIMEDOUT, "%s: no answer from the server within %d ms", what,
			       ps->timeout_ms + PG_CLIENT_GRACE_MS);
}

static int pg_open(struct rn_history *h, const char *location, bool create, int busy_timeout_ms)
{
	/* connect_timeout and options first: values in the URI override them (later settings
	 * win), while the client's deadline below holds whatever the URI says. */
	char timeouts[96], connect_s[24];
	const char *keys[] = { "connect_timeout", "options", "application_name", "dbname", NULL };
	const char *vals[] = { connect_s, timeouts, "renacer", location, NULL };
	struct pg_state *ps;
	int64_t deadline;
	int rc = load_libpq(h);

	(void)create;
	if (rc)
		return rc;
	ps = rn_xcalloc(1, sizeof(*ps));
	ps->timeout_ms = busy_timeout_ms > 0 ? busy_timeout_ms : RN_HISTORY_BUSY_TIMEOUT_MS;
	snprintf(timeouts, sizeof(timeouts), "-c statement_timeout=%d -c lock_timeout=%d",
		 ps->timeout_ms, ps->timeout_ms);
	snprintf(connect_s, sizeof(connect_s), "%d", (ps->timeout_ms + 999) / 1000);
	h->db = ps;
	/* A non-blocking connect polled to a deadline: connect_timeout bounds each step, not
	 * a server that accepts, authenticates and then says nothing. */
	deadline = now_ms() + ps->timeout_ms + PG_CLIENT_GRACE_MS;
	ps->conn = pq.connect_start_params(keys, vals, 1);
	if (!ps->conn)
		return rn_history_fail(h, -ENOMEM, "cannot connect: out of memory");
	if (pq.status(ps->conn) == CONNECTION_BAD)
		return rn_history_fail(h, -EIO, "cannot connect: %s", pq.error_message(ps->conn));
	for (;;) {
		PostgresPollingStatusType st = pq.connect_poll(ps->conn);

		if (st == PGRES_POLLING_OK)
			break;
		if (st == PGRES_POLLING_FAILED)
			return rn_history_fail(h, -EIO, "cannot connect: %s",
					       pq.error_message(ps->conn));
		rc = wait_socket(ps->conn, st == PGRES_POLLING_WRITING, deadline);
		if (rc == -ETIMEDOUT)
			return timed_out(h, ps, "cannot connect");
		if (rc)
			return rn_history_fail(h, rc, "cannot connect: %s", strerror(-rc));
	}
	if (pq.set_nonblocking(ps->conn, 1))
		return rn_history_fail(h, -EIO, "cannot connect: %s", pq.error_message(ps->conn));
	pq.set_notice_processor(ps->conn, quiet_notice, NULL);
	return 0;
}

/*
 * Send `sql`: statements without parameters (`params` NULL: several may be given, as the
 * migrations are), or one statement with `nparams` parameters; collect the last result by
 * the deadline. Returns the result (caller clears) or NULL with h->err set and *rc the code.
 */
static PGresult *run(struct rn_history *h, const char *sql, const char *const *params,
		     size_t nparams, int *rc)
{
	struct pg_state *ps = h->db;
	PGconn *conn = ps->conn;
	int64_t deadline = now_ms() + ps->timeout_ms + PG_CLIENT_GRACE_MS;
	PGresult *last = NULL, *res;
	int f;

	*rc = 0;
	if (ps->broken) {
		*rc = rn_history_fail(h, -EIO, "the connection was given up after a timeout");
		return NULL;
	}
	if (!(params ? pq.send_query_params(conn, sql, (int)nparams, NULL, params, NULL, NULL, 0) :
		       pq.send_query(conn, sql))) {
		*rc = rn_history_fail(h, -EIO, "%s", pq.error_message(conn));
		return NULL;
	}
	while ((f = pq.flush(conn)) == 1) {
		*rc = wait_socket(conn, true, deadline);
		if (*rc) {
			*rc = *rc == -ETIMEDOUT ? timed_out(h, ps, "cannot send a statement") :
						  rn_history_fail(h, *rc, "%s", strerror(-*rc));
			return NULL;
		}
	}
	if (f < 0) {
		*rc = rn_history_fail(h, -EIO, "%s", pq.error_message(conn));
		return NULL;
	}
	for (;;) {
		while (pq.is_busy(conn)) {
			*rc = wait_socket(conn, false, deadline);
			if (!*rc && !pq.consume_input(conn))
				*rc = rn_history_fail(h, -EIO, "%s", pq.error_message(conn));
			else if (*rc == -ETIMEDOUT)
				*rc = timed_out(h, ps, "a statement");
			else if (*rc)
				*rc = rn_history_fail(h, *rc, "%s", strerror(-*rc));
			if (*rc) {
				pq.clear(last);
				return NULL;
			}
		}
		res = pq.get_result(conn);
		if (!res)
			break;
		pq.clear(last);
		last = res;
	}
	if (!last)
		*rc = rn_history_fail(h, -EIO, "%s", pq.error_message(conn));
	return last;
}

static int pg_exec(struct rn_history *h, const char *sql)
{
	int rc;
	PGresult *res = run(h, sql, NULL, 0, &rc);
	ExecStatusType st = res ? pq.result_status(res) : PGRES_FATAL_ERROR;

	if (!res)
		return rc;
	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
		rc = rn_history_fail(h, -EIO, "%s", pq.result_error_message(res));
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
	int ret = 0;
	PGresult *res = run(h, q, params, nparams, &ret);
	ExecStatusType st = res ? pq.result_status(res) : PGRES_FATAL_ERROR;
	const char *vals[32];
	int rows, cols, r, c;

	free(q);
	if (!res)
		return ret;
	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
		ret = rn_history_fail(h, -EIO, "%s", pq.result_error_message(res));
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
	struct pg_state *ps = h->db;

	if (ps && ps->conn)
		pq.finish(ps->conn);
	free(ps);
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
