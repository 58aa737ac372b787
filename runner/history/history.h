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
 * Tables (schema version 6):
 *   runs(id, created_ns, commit_sha, branch, machine, machine_desc, source, config,
 *        renacer_version, exit_code, uid, subject, author_ns, rerun_of, fingerprint)
 *        one row per check / golden update / import; uid is unique and kept by export and
 *        import ("local-..." for runs recorded before version 4); subject and author_ns
 *        (the commit's, from git at check time) and rerun_of (`check --rerun-of`) may be NULL;
 *        fingerprint is the environment of the first target's runs as "name=value; ..."
 *        (util/fingerprint.h), NULL for runs before version 5, runs imported from a golden
 *        trace or renacer-json-v1 file and checks whose targets did not run (a
 *        renacer-history/1 document carries it)
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
 *   explanations(id, run_id, target, assertion, text, svg_path, svg_hash, base_path,
 *        base_hash, base_folded, head_path, head_hash, head_folded)
 *        where a failed timing row's time went (runner/check/profile_check.h), one row per
 *        target explained: the ranked list with call paths; the differential flame graph's
 *        and the base and head folded-stacks files' absolute paths with the 64-bit FNV-1a
 *        hash of their bytes (16 hex digits), and each folded-stacks file's text when at most
 *        256 KiB (else NULL: path and hash only). NULL where a file could not be read
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

#include "verdict.h"

struct rn_config;

/* The schema version this renacer writes and reads. */
#define RN_HISTORY_SCHEMA_VERSION 6
/* Default SQLite store, relative to the config's directory. */
#define RN_HISTORY_DEFAULT_PATH ".renacer/history.db"
/* Runs of a series searched for change points by default (the last ones). */
#define RN_HISTORY_CHANGES_RUNS 500
/* Longest text of the cuts kept per series (run ids, space-separated). */
#define RN_HISTORY_CUTS_MAX 1024
/* Commits whose subject a check looks up in git for runs recorded without one. */
#define RN_HISTORY_BACKFILL 20
/* Most columns of a verdict's short message on the report page (its first clause). */
#define RN_HISTORY_PAGE_SHORT 100

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

struct rn_changepoint;

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

/* ---- reads: every query `renacer history` and `renacer report` make ----------------------
 *
 * Rows come either typed (structs below, owned by the result and freed by its release
 * function) or, where a command prints rows as they arrive, through a rn_history_row_fn whose
 * columns each function lists in order: values as text (numbers in decimal), NULL for SQL
 * NULL, borrowed for the duration of the call. The functions return 0 or a negative errno
 * with h->err set (a callback's non-zero return stops the query and is returned).
 */

/* Filters of a read: each field restricts the rows to that value when not NULL. */
struct rn_history_filter {
	const char *target;  /* results.target */
	const char *metric;  /* results.metric */
	const char *machine; /* runs.machine */
	const char *branch;  /* runs.branch */
};

/* One run as `history list` shows it. Strings borrowed for the duration of the callback, as
 * stored (they may hold control characters or invalid UTF-8 from older stores). */
struct rn_history_run_summary {
	int64_t id;
	int64_t created_ns; /* ns since the epoch */
	const char *commit; /* "" when unknown */
	const char *branch;
	const char *machine;
	const char *source; /* "check", "golden", "import" */
	int exit_code;      /* the check's exit code */
	int64_t failing;    /* its FAIL, ERROR and NO DATA verdicts */
};

/* Called per run; a non-zero return stops the read and is returned. */
typedef int (*rn_history_run_fn)(void *ctx, const struct rn_history_run_summary *r);

/* The newest `limit` runs (`history list`), newest first, each through `fn`. */
int rn_history_list_runs(struct rn_history *h, long limit, rn_history_run_fn fn, void *ctx);

/* Which series to read: target/metric, optionally of one machine and branch. */
struct rn_history_series_query {
	const char *target;
	const char *metric;
	const char *machine; /* NULL: every machine */
	const char *branch;  /* NULL: every branch */
	long limit;          /* the last `limit` runs; 0: all */
	bool rounded;        /* median, min and max rounded to integers (as text: no exponent) */
	bool with_samples;   /* add the samples column */
};

/*
 * The points of a series in run order (oldest first), as rows. Columns: run id, created_ns,
 * commit_sha, branch, machine, nsamples, median, min, max, unit, and with q->with_samples the
 * samples (a JSON array in the metric's unit).
 */
int rn_history_series_read(struct rn_history *h, const struct rn_history_series_query *q,
			   rn_history_row_fn fn, void *ctx);

/* One point of a series (a run's result for one target and metric). */
struct rn_history_point {
	int64_t run_id;
	char *created_ns; /* ns since the epoch, as stored (decimal text) */
	char *commit;     /* "" when unknown */
	char *branch;     /* "" when unknown */
	char *machine;
	long nsamples;           /* runs behind the median */
	double median, min, max; /* in the series' unit */
	char *samples;           /* JSON array (with_samples), else NULL */
};

/* A series read whole: points oldest first; every string owned (rn_history_series_release). */
struct rn_history_series {
	struct rn_history_point *p;
	size_t n, cap;
	char unit[16]; /* "ns", "bytes", "count"; "" when no point */
};

/* Read the series `q` into `s` (zeroed here). On error `s` holds what was read; release it
 * either way. */
int rn_history_series_load(struct rn_history *h, const struct rn_history_series_query *q,
			   struct rn_history_series *s);
/* Free the points and zero `s`. */
void rn_history_series_release(struct rn_history_series *s);

/* A recorded series: (target, metric, machine), strings owned by the set. */
struct rn_history_series_key {
	char *target, *metric, *machine;
};
struct rn_history_series_keys {
	struct rn_history_series_key *k;
	size_t n, cap;
};

/* Every recorded series that `f` selects (its target, metric and machine; branch unused),
 * sorted. Release with rn_history_series_keys_release either way. */
int rn_history_series_keys(struct rn_history *h, const struct rn_history_filter *f,
			   struct rn_history_series_keys *ks);
void rn_history_series_keys_release(struct rn_history_series_keys *ks);

/* One change point of a recorded series (assertions/changepoint.h). Strings borrowed for the
 * duration of the callback. */
struct rn_history_change {
	const char *target;       /* target name */
	const char *metric;       /* metric name */
	const char *machine;      /* machine of the series */
	const char *unit;         /* the metric's unit: "ns", "bytes", "count" */
	int64_t run_id;           /* first run after the change */
	size_t index;             /* its position in the series searched (0-based) */
	const char *commit;       /* that run's commit ("" if unknown) */
	int64_t created_ns;       /* that run's time, ns since the epoch */
	double before;            /* median of the run medians before the change, in `unit` */
	double after;             /* median after it, in `unit` */
	double ratio;             /* after / before (0 when before is 0) */
	double rel_change;        /* ratio - 1 */
	double p_value;           /* Welch's two-sided p-value of the two segments */
	const char *first_commit; /* the range of runs the change may start at: first run's */
	const char *last_commit;  /* commit and last run's commit (equal when certain) */
	int64_t first_run;        /* run id of the range's first run */
	int64_t last_run;         /* run id of the range's last run */
};

/* Settings of a change-point search (assertions/changepoint.h). */
struct rn_edivisive_cfg;

/*
 * Search the last `last` runs (<= 0: 500) of target/metric on `machine` (and `branch` when not
 * NULL) for change points with `cfg` (NULL: the defaults) and call `fn` for each, oldest first.
 * Returns 0 or the store's error (h->err set).
 */
int rn_history_changes_of(struct rn_history *h, const char *target, const char *metric,
			  const char *machine, const char *branch, long last,
			  const struct rn_edivisive_cfg *cfg,
			  void (*fn)(void *ctx, const struct rn_history_change *c), void *ctx);

/* What `history import` records beside a file's contents (NULL: as a check would). */
struct rn_history_import_opts {
	const char *target;  /* target name (default: the file's, else its base name) */
	const char *machine; /* machine (default: this one, or "golden:CPU/KERNEL" for a trace
			      * recorded elsewhere) */
	const char *commit;  /* commit (default: this checkout's) */
	const char *branch;  /* branch (default: this checkout's) */
};

/* What one import recorded. */
struct rn_history_imported {
	int64_t id;       /* the new run's id */
	char target[256]; /* the target name recorded */
	size_t nruns;     /* timing runs of the file */
	bool counts_only; /* a renacer-json-v1 file: syscall counts only */
};

/*
 * Import one golden trace (renacer-golden/1) or renacer-json-v1 file at `path` into `h` as one
 * run (`history import`). The target name must pass check's rule (rn_config_name_valid);
 * text the file brings (CPU model, kernel) is stored as UTF-8 like every name. Returns the
 * run id (> 0, also in out->id); -EINVAL after printing the file's error or a name that
 * breaks the rule; another negative errno when the store failed (h->err says why). `cfg` may
 * be NULL.
 */
int64_t rn_history_import_file(struct rn_history *h, const char *path,
			       const struct rn_history_import_opts *io, const struct rn_config *cfg,
			       struct rn_history_imported *out);

/* One change as JSON (`history changes --format json`, the report page): values in the
 * metric's unit as stored. A new reference (json_t *), NULL on allocation failure. */
struct json_t;
struct json_t *rn_history_change_json(const struct rn_history_change *c);

/*
 * Every result row of the runs `f` selects (`history export --format csv|json`), in run then
 * row order, as the store's text (the CSV keeps the store's digits). Columns: run id,
 * created_ns, commit_sha, branch, machine, source, target, metric, unit, nsamples, median,
 * min, max, samples.
 */
int rn_history_export_results(struct rn_history *h, const struct rn_history_filter *f,
			      rn_history_row_fn fn, void *ctx);

/* The document `history export --format history` writes and `history import` reads. */
#define RN_HISTORY_FORMAT "renacer-history/1"

/* The whole store (runs of f->machine / f->branch; rows of f->target / f->metric) as a
 * RN_HISTORY_FORMAT document (runner/history/history_doc.c describes it) into *doc (a new
 * reference). */
int rn_history_export_doc(struct rn_history *h, const struct rn_history_filter *f,
			  struct json_t **doc);
/*
 * Import a RN_HISTORY_FORMAT document read from `path` (named in errors): every run whose uid
 * the store lacks, in one transaction. *added and *skipped count the runs added and those
 * already there. Returns 0; -EINVAL after printing what in the document is wrong; another
 * negative errno when the store failed (printed, h->err says why).
 */
int rn_history_import_doc(struct rn_history *h, const char *path, const struct json_t *doc,
			  size_t *added, size_t *skipped);

/* Delete the runs created before `cutoff_ns` (ns since the epoch) and their rows, in one
 * transaction; *removed receives how many runs. */
int rn_history_prune(struct rn_history *h, int64_t cutoff_ns, int64_t *removed);

/* The id of the oldest of the newest `n` runs into id[24] (decimal text; "" when the store has
 * none). */
int rn_history_first_of_last(struct rn_history *h, long n, char id[24]);

/*
 * The model of the report page (runner/report/report_html.h): the last check's run, verdicts
 * and critical path; the last `limit` runs of the store with their results as trend charts
 * (change points on `machine`, NULL: the last run's, each with the commits to bisect; the
 * golden band from cfg's golden traces when cfg is not NULL; the FAIL/WARN marks of each run),
 * environment changes, verdicts, critical paths, syscalls and explanations of each run; what
 * changed (verdict moves and change points on that machine, newest first, in human units);
 * the gate-quality ledger. Returns
 * a new reference, or NULL with *rc: -ENOENT (no run, printed) or the store's error (printed).
 */
struct json_t *rn_history_page_model(struct rn_history *h, const struct rn_config *cfg,
				     const char *machine, long limit, int *rc);

/* Display helpers shared by the history commands and the page. */
/* "2026-11-25 04:10:00" (UTC) into dst[cap] from ns since the epoch as text; "?" if none. */
void rn_history_fmt_time(char *dst, size_t cap, const char *ns_text);
/* A stored value in the unit shown: ns as ms, others as they are. */
double rn_history_shown(double v, const char *unit);
/* The unit shown for a stored unit: "ms" for "ns". */
const char *rn_history_shown_unit(const char *unit);

#endif
