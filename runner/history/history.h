/*
 * history.h - the history store: every `check` (and `golden update`) remembered, per commit,
 * branch and machine, so trends and change points can be seen (`renacer history`,
 * `renacer report --html`).
 *
 * Two backends behind one ops table (struct rn_history_ops):
 *   sqlite      a file, default "<config dir>/.renacer/history.db"; WAL journal, a busy
 *               timeout and BEGIN IMMEDIATE make concurrent writers on one machine safe
 *   postgresql  "postgresql://..." or "postgres://..." (libpq connection URI), for many CI
 *               runners writing to one server; libpq is loaded with dlopen on first use, so
 *               a renacer that never talks to PostgreSQL does not pay for it at start
 *
 * The schema is created and migrated by renacer: a list of numbered migrations, each applied
 * once inside the transaction that bumps `renacer_schema.version` (PostgreSQL additionally
 * takes an advisory lock so concurrent first writers do not race). A store whose version is
 * newer than this renacer knows is refused with a one-line message ("schema version N is
 * newer than this renacer supports (M)").
 *
 * Tables (schema version 4):
 *   runs(id, created_ns, commit_sha, branch, machine, machine_desc, source, config,
 *        renacer_version, exit_code, uid, subject, author_ns, rerun_of)
 *        one row per check / golden update / import; uid is unique and kept by export and
 *        import ("local-..." for runs recorded before version 4); subject and author_ns
 *        (the commit's, from git at check time) and rerun_of (`check --rerun-of`) may be NULL
 *   results(id, run_id, target, metric, unit, nsamples, median, min_value, max_value, samples)
 *        one row per target and metric with data; samples is a JSON array of every run's
 *        value in the metric's unit (ns, bytes or count), in run order
 *   verdicts(id, run_id, target, assertion, type, verdict, observed, budget, golden, unit,
 *        message)                           every verdict of the check, as reported
 *   critical_path(id, run_id, target, seq, process, pid, start_ns, end_ns)
 *        the critical path of each target's last run (ns from the run's start)
 *   change_points(target, metric, machine, last_run, cuts)
 *        per series, the run ids where its change points start (space-separated) as last
 *        found, after run last_run: the next search starts from them (incremental)
 *   syscalls(id, run_id, target, syscall, calls, errors, time_ns)
 *        per syscall the target made: median calls and errors over its counting runs, the
 *        median summed duration (ns, NULL when not collected)
 *
 * Errors: functions return 0 or a negative errno (-EIO for a database error, -ENOENT when a
 * read-only open finds no store, -EPROTONOSUPPORT for a newer schema) and leave a one-line
 * reason in h->err. Not thread safe; one handle per process.
 */
#ifndef RN_HISTORY_H
#define RN_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report.h"

struct rn_config;

/* The schema version this renacer writes and reads. */
#define RN_HISTORY_SCHEMA_VERSION 4
/* Default SQLite store, relative to the config's directory. */
#define RN_HISTORY_DEFAULT_PATH ".renacer/history.db"
/* Runs of a series searched for change points by default (the last ones). */
#define RN_HISTORY_CHANGES_RUNS 500
/* Longest text of the cuts kept per series (run ids, space-separated). */
#define RN_HISTORY_CUTS_MAX 1024
/* Commits whose subject a check looks up in git for runs recorded without one. */
#define RN_HISTORY_BACKFILL 20
/* Default busy timeout of SQLite writers, ms. */
#define RN_HISTORY_BUSY_TIMEOUT_MS 30000

struct rn_history;

/*
 * A row of a query: `ncols` values as text (numbers in their decimal form), NULL for SQL NULL.
 * Borrowed until the callback returns. A non-zero return stops the query and is returned by
 * rn_history_query().
 */
typedef int (*rn_history_row_fn)(void *ctx, size_t ncols, const char *const *vals);

/* One backend. SQL handed to it uses '?' placeholders (PostgreSQL's backend numbers them). */
struct rn_history_ops {
	const char *name;      /* "sqlite" or "postgresql" */
	const char *id_type;   /* column type of a generated primary key */
	const char *begin_sql; /* statement that starts a write transaction */
	/* Open `location` (a path, or a libpq URI); `create` makes a missing SQLite file.
	 * 0 or negative errno with h->err set. */
	int (*open)(struct rn_history *h, const char *location, bool create, int busy_timeout_ms);
	/* Run one or more statements without parameters or results. */
	int (*exec)(struct rn_history *h, const char *sql);
	/* Run one statement with `nparams` text parameters (NULL = SQL NULL), calling `fn` for
	 * each row (fn may be NULL). */
	int (*query)(struct rn_history *h, const char *sql, const char *const *params,
		     size_t nparams, rn_history_row_fn fn, void *ctx);
	/* Serialize schema migrations of concurrent processes (inside the transaction). */
	int (*lock_schema)(struct rn_history *h);
	/* Close the connection (safe when open failed). */
	void (*close)(struct rn_history *h);
};

/* An open store. */
struct rn_history {
	const struct rn_history_ops *ops; /* the backend */
	void *db;                         /* the backend's handle (sqlite3 *, PGconn *) */
	char *location;                   /* path or URI as given (credentials masked:
					   * rn_history_redact), owned */
	char **secrets;                   /* the credentials masked, NULL-terminated, owned:
					   * scrubbed from every message in err */
	char err[512];                    /* the last error, one line, no trailing newline */
};

/* Where the store is and whether a check records into it. */
struct rn_history_cfg {
	bool enabled;        /* record checks */
	char *url;           /* location (path or postgresql:// URI), owned */
	int busy_timeout_ms; /* SQLite busy timeout, ms */
	char *machine;       /* machine name override, owned, or NULL (fingerprint) */
};

/*
 * Resolve the settings of a command from, in order of precedence: `cli_url` (NULL if not
 * given), $RENACER_HISTORY_URL, the config's [history] table (cfg may be NULL), the default
 * path under the config's directory (or the current directory). `enabled` is true when
 * `cli_enable`, or the config has [history] and does not say enabled = false, or
 * $RENACER_HISTORY_URL is set (unless the config says enabled = false).
 * Release with rn_history_cfg_release.
 */
void rn_history_cfg_resolve(struct rn_history_cfg *hc, const struct rn_config *cfg,
			    const char *cli_url, bool cli_enable);
void rn_history_cfg_release(struct rn_history_cfg *hc);

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

/* Is `url` a PostgreSQL location: a postgresql:// or postgres:// URI, or a libpq key=value
 * connection string ("host=db dbname=perf user=ci")? */
bool rn_history_is_postgres(const char *url);

/*
 * Open the store at `url` and bring its schema to RN_HISTORY_SCHEMA_VERSION when `write`
 * (creating the SQLite file and its directory if needed). Without `write` a SQLite store is
 * opened read-only (immutable where this process can write neither the file nor its
 * directory); a missing SQLite file, or a database without renacer's tables, is -ENOENT, and
 * a path that cannot be reached (a symlink loop, no permission) is its errno; a store of an
 * older schema is migrated where it may be written and read as it is otherwise (through
 * temporary views of the current shape: the columns and tables it lacks read as migration 4
 * would fill them). Every
 * PostgreSQL operation ends within `busy_timeout_ms` plus 2 s (-ETIMEDOUT). On failure h->err says why and the caller still calls
 * rn_history_close().
 */
int rn_history_open(struct rn_history *h, const char *url, bool write, int busy_timeout_ms);
/* Close and free; safe after a failed open and on a zeroed struct. */
void rn_history_close(struct rn_history *h);

/* The backend's query, with the error prefixed by the store's location. */
int rn_history_query(struct rn_history *h, const char *sql, const char *const *params,
		     size_t nparams, rn_history_row_fn fn, void *ctx);

/* What identifies one recorded run. Strings borrowed. */
struct rn_history_run {
	uint64_t created_ns;      /* CLOCK_REALTIME, ns since the epoch */
	const char *commit;       /* commit id, "" if unknown */
	const char *branch;       /* branch name, "" if unknown */
	const char *machine;      /* machine fingerprint or name */
	const char *machine_desc; /* human description of the machine */
	const char *source;       /* "check", "golden", "import" */
	const char *config;       /* config path, or the imported file */
	int exit_code;            /* exit code of the check (0 for imports and golden updates) */
	const char *uid;          /* unique run id, or NULL: a new one (rn_history_new_uid) */
	const char *subject;      /* the commit's subject line, or NULL/"" if unknown */
	int64_t author_ns;        /* the commit's author date, ns since the epoch, 0 if unknown */
	const char *rerun_of;     /* the commit this run re-runs (`check --rerun-of`), or NULL */
};

/* A new unique run id into dst (cap >= 34): the run's time and 64 random bits in hex. */
void rn_history_new_uid(char *dst, size_t cap, uint64_t created_ns);

/*
 * The subject line and author date (ns since the epoch) of `commit` from `git log` in `dir`;
 * "" and 0 when git, the repository or the commit is not there. Never fails.
 */
void rn_history_commit_info(const char *dir, const char *commit, char *subject, size_t cap,
			    int64_t *author_ns);

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
 * Append one run: its identity, every target's per-run samples of every metric with data,
 * every verdict, the critical path of each target's last run and its per-syscall medians, in
 * one transaction.
 * Returns the new run's id (> 0) or a negative errno with h->err set.
 */
int64_t rn_history_append(struct rn_history *h, const struct rn_history_run *run,
			  const struct rn_target_report *t, size_t n);

struct rn_changepoint;

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

/*
 * The one call of `check` and `golden update`: resolve the settings, and if enabled open the
 * store and append. Any failure is a warning naming the store and the reason
 * ("history: not recorded: ..."); the caller's verdict and exit code never depend on it.
 * `rerun_of` (NULL if none) marks the run as a re-run of that commit (`check --rerun-of`); the
 * commit's subject and author date are taken from git, and so are those of up to
 * RN_HISTORY_BACKFILL commits of earlier runs recorded without them; the change points of the
 * run's series are brought up to date (rn_history_series_changes).
 * Returns 0 when recorded or disabled, else negative errno (already reported).
 */
int rn_history_record(const struct rn_config *cfg, bool cli_enable, const char *source,
		      const struct rn_target_report *t, size_t n, int exit_code, bool quiet,
		      const char *rerun_of);

#endif
