/*
 * history.c - the history store: settings, schema migrations, appending a check.
 */
#include "history.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "assertion.h"
#include "changepoint.h"
#include "buf.h"
#include "config.h"
#include "golden.h"
#include "internal.h"
#include "log.h"
#include "now.h"
#include "syscall_names.h"
#include "utf8.h"
#include "xalloc.h"

/*
 * The migrations, in order; migration i brings the schema from version i to i + 1. "%ID%"
 * becomes the backend's generated primary key type. Never edit a released migration: add one.
 */
static const char *const migrations[RN_HISTORY_SCHEMA_VERSION] = {
	/* 1: runs, results with every sample, verdicts, the last run's critical path */
	"CREATE TABLE runs (id %ID%, created_ns BIGINT NOT NULL, commit_sha TEXT NOT NULL, "
	"branch TEXT NOT NULL, machine TEXT NOT NULL, machine_desc TEXT NOT NULL, "
	"source TEXT NOT NULL, config TEXT NOT NULL, renacer_version TEXT NOT NULL, "
	"exit_code INTEGER NOT NULL);"
	"CREATE TABLE results (id %ID%, run_id BIGINT NOT NULL REFERENCES runs(id) ON DELETE "
	"CASCADE, target TEXT NOT NULL, metric TEXT NOT NULL, unit TEXT NOT NULL, "
	"nsamples INTEGER NOT NULL, median DOUBLE PRECISION NOT NULL, min_value DOUBLE PRECISION "
	"NOT NULL, max_value DOUBLE PRECISION NOT NULL, samples TEXT NOT NULL);"
	"CREATE INDEX results_series ON results (target, metric, run_id);"
	"CREATE TABLE verdicts (id %ID%, run_id BIGINT NOT NULL REFERENCES runs(id) ON DELETE "
	"CASCADE, target TEXT NOT NULL, assertion TEXT NOT NULL, type TEXT NOT NULL, "
	"verdict TEXT NOT NULL, observed DOUBLE PRECISION, budget DOUBLE PRECISION, "
	"golden DOUBLE PRECISION, unit TEXT, message TEXT);"
	"CREATE INDEX verdicts_run ON verdicts (run_id);"
	"CREATE TABLE critical_path (id %ID%, run_id BIGINT NOT NULL REFERENCES runs(id) ON "
	"DELETE CASCADE, target TEXT NOT NULL, seq INTEGER NOT NULL, process TEXT NOT NULL, "
	"pid INTEGER NOT NULL, start_ns BIGINT NOT NULL, end_ns BIGINT NOT NULL);"
	"CREATE INDEX critical_path_run ON critical_path (run_id);",
	/* 2: pruning by age and listing by time without a scan */
	"CREATE INDEX runs_created ON runs (created_ns);",
	/* 3: a series is read from the index alone (`history show` of 100,000 runs touched a
	 * table page per run: seconds; from the index: tens of ms) */
	"DROP INDEX results_series;"
	"CREATE INDEX results_series ON results (target, metric, run_id, median, min_value, "
	"max_value, nsamples, unit);",
	/* 4: a run id that survives export and import (uid), the commit's subject and author
	 * date for the page, re-runs of one commit for the gate-quality ledger, and the
	 * per-syscall medians. Runs of older renacers get a uid from their store's facts. */
	"ALTER TABLE runs ADD COLUMN uid TEXT;"
	"ALTER TABLE runs ADD COLUMN subject TEXT;"
	"ALTER TABLE runs ADD COLUMN author_ns BIGINT;"
	"ALTER TABLE runs ADD COLUMN rerun_of TEXT;"
	"UPDATE runs SET uid = 'local-' || machine || '-' || created_ns || '-' || id;"
	"CREATE UNIQUE INDEX runs_uid ON runs (uid);"
	"CREATE INDEX runs_commit ON runs (commit_sha);"
	"CREATE TABLE syscalls (id %ID%, run_id BIGINT NOT NULL REFERENCES runs(id) ON DELETE "
	"CASCADE, target TEXT NOT NULL, syscall TEXT NOT NULL, calls DOUBLE PRECISION NOT NULL, "
	"errors DOUBLE PRECISION NOT NULL, time_ns DOUBLE PRECISION);"
	"CREATE INDEX syscalls_run ON syscalls (run_id);"
	"CREATE INDEX results_run ON results (run_id);"
	"CREATE TABLE change_points (target TEXT NOT NULL, metric TEXT NOT NULL, machine TEXT NOT "
	"NULL, last_run BIGINT NOT NULL, cuts TEXT NOT NULL, PRIMARY KEY (target, metric, "
	"machine));",
	/* 5: the environment fingerprint of the run (util/fingerprint.h, "name=value; ..."):
	 * a change point at a kernel or image update reads as one. NULL for older runs. */
	"ALTER TABLE runs ADD COLUMN fingerprint TEXT;",
	/* 6: where a failed timing row's time went, kept with its run: the page shows the
	 * explanation of the run it belongs to, not whatever files a later check left on disk
	 * (runner/history/history_explain.c) */
	"CREATE TABLE explanations (id %ID%, run_id BIGINT NOT NULL REFERENCES runs(id) ON "
	"DELETE CASCADE, target TEXT NOT NULL, assertion TEXT NOT NULL, text TEXT NOT NULL, "
	"svg_path TEXT, svg_hash TEXT, base_path TEXT, base_hash TEXT, base_folded TEXT, "
	"head_path TEXT, head_hash TEXT, head_folded TEXT);"
	"CREATE INDEX explanations_run ON explanations (run_id);",
};

static void scrub(struct rn_history *h);

int rn_history_fail(struct rn_history *h, int code, const char *fmt, ...)
{
	va_list ap;
	char *nl;

	va_start(ap, fmt);
	vsnprintf(h->err, sizeof(h->err), fmt, ap);
	va_end(ap);
	/* Database messages end with newlines and may span lines: keep one line. */
	while ((nl = strpbrk(h->err, "\n\t"))) {
		size_t skip = strspn(nl, "\n\t ");

		if (!nl[skip]) {
			*nl = '\0';
			break;
		}
		*nl = ' ';
		memmove(nl + 1, nl + skip, strlen(nl + skip) + 1);
	}
	scrub(h);
	return code;
}

bool rn_history_is_postgres(const char *url)
{
	return rn_config_is_postgres_url(url);
}

void rn_history_cfg_resolve(struct rn_history_cfg *hc, const struct rn_config *cfg,
			    const char *cli_url, bool cli_enable)
{
	const char *env = getenv("RENACER_HISTORY_URL");
	const struct rn_history_file_cfg *fc = cfg ? &cfg->history : NULL;
	bool file_off = fc && fc->present && !fc->enabled;

	memset(hc, 0, sizeof(*hc));
	if (env && !*env)
		env = NULL;
	hc->enabled = cli_enable || (fc && fc->present && fc->enabled) || (env && !file_off);
	if (cli_url)
		hc->url = rn_xstrdup(cli_url);
	else if (env)
		hc->url = rn_xstrdup(env);
	else if (fc && fc->url)
		hc->url = rn_xstrdup(fc->url);
	else if (cfg && cfg->dir) {
		struct rn_buf b;

		rn_buf_init(&b, 0);
		rn_buf_addf(&b, "%s/%s", cfg->dir, RN_HISTORY_DEFAULT_PATH);
		hc->url = rn_buf_detach(&b, NULL);
	} else
		hc->url = rn_xstrdup(RN_HISTORY_DEFAULT_PATH);
	hc->busy_timeout_ms = fc && fc->busy_timeout_ms >= 0 ? (int)fc->busy_timeout_ms :
							       RN_HISTORY_BUSY_TIMEOUT_MS;
	hc->machine = fc && fc->machine ? rn_xstrdup(fc->machine) : NULL;
}

void rn_history_cfg_release(struct rn_history_cfg *hc)
{
	free(hc->url);
	free(hc->machine);
	memset(hc, 0, sizeof(*hc));
}

/* Every secret of the store's location in h->err replaced by "***" (a server or libpq may
 * quote the connection string back). */
static void scrub(struct rn_history *h)
{
	size_t i;

	for (i = 0; h->secrets && h->secrets[i]; i++) {
		size_t n = strlen(h->secrets[i]);
		char *hit;

		/* A short secret ("a") would blank unrelated text; it is still masked in the
		 * location itself. */
		if (n < 3)
			continue;
		while ((hit = strstr(h->err, h->secrets[i]))) {
			memcpy(hit, "***", 3);
			memmove(hit + 3, hit + n, strlen(hit + n) + 1);
		}
	}
}

static int get_version(void *ctx, size_t ncols, const char *const *vals)
{
	long *v = ctx;

	if (ncols >= 1 && vals[0])
		*v = strtol(vals[0], NULL, 10);
	return 0;
}

static int has_table(void *ctx, size_t ncols, const char *const *vals)
{
	(void)ncols;
	(void)vals;
	*(bool *)ctx = true;
	return 0;
}

/* Replace "%ID%" with the backend's key type. */
static char *dialect(const struct rn_history_ops *ops, const char *sql)
{
	struct rn_buf b;
	const char *p;

	rn_buf_init(&b, 0);
	while ((p = strstr(sql, "%ID%"))) {
		rn_buf_add(&b, sql, (size_t)(p - sql));
		rn_buf_adds(&b, ops->id_type);
		sql = p + 4;
	}
	rn_buf_adds(&b, sql);
	return rn_buf_detach(&b, NULL);
}

/* The schema version of an open store; 0 when it has no renacer tables yet. */
static int schema_version(struct rn_history *h, long *version)
{
	bool exists = false;
	const char *probe = strcmp(h->ops->name, "sqlite") ?
		"SELECT 1 FROM information_schema.tables WHERE table_name = "
		"'renacer_schema' AND table_schema = current_schema()" :
		"SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = "
		"'renacer_schema'";
	int rc;

	*version = 0;
	rc = h->ops->query(h, probe, NULL, 0, has_table, &exists);
	if (rc || !exists)
		return rc;
	return h->ops->query(h, "SELECT version FROM renacer_schema", NULL, 0, get_version,
			     version);
}

static int newer_schema(struct rn_history *h, long version)
{
	return rn_history_fail(h, -EPROTONOSUPPORT,
			       "schema version %ld is newer than this renacer supports (%d); "
			       "upgrade renacer",
			       version, RN_HISTORY_SCHEMA_VERSION);
}

/* Bring the schema to RN_HISTORY_SCHEMA_VERSION in one transaction. */
static int migrate(struct rn_history *h)
{
	long version = 0;
	int rc;

	/* Most opens find the schema current: check without taking the write lock. */
	rc = schema_version(h, &version);
	if (rc)
		return rc;
	if (version > RN_HISTORY_SCHEMA_VERSION)
		return newer_schema(h, version);
	if (version == RN_HISTORY_SCHEMA_VERSION)
		return 0;
	rc = h->ops->exec(h, h->ops->begin_sql);
	if (rc)
		return rc;
	rc = h->ops->lock_schema(h);
	if (!rc)
		rc = schema_version(h, &version);
	if (!rc && version > RN_HISTORY_SCHEMA_VERSION)
		rc = newer_schema(h, version);
	if (!rc && version == 0)
		rc = h->ops->exec(h,
				  "CREATE TABLE renacer_schema (version INTEGER NOT NULL);"
				  "INSERT INTO renacer_schema VALUES (0);");
	while (!rc && version < RN_HISTORY_SCHEMA_VERSION) {
		char *sql = dialect(h->ops, migrations[version]);
		char v[32];
		const char *params[] = { v };

		rc = h->ops->exec(h, sql);
		free(sql);
		version++;
		snprintf(v, sizeof(v), "%ld", version);
		if (!rc)
			rc = h->ops->query(h, "UPDATE renacer_schema SET version = ?", params, 1,
					   NULL, NULL);
	}
	if (rc) {
		char keep[sizeof(h->err)];

		memcpy(keep, h->err, sizeof(keep));
		h->ops->exec(h, "ROLLBACK");
		memcpy(h->err, keep, sizeof(keep));
		return rc;
	}
	return h->ops->exec(h, "COMMIT");
}

/* mkdir -p of the directory part of `path`. */
static int make_parent(const char *path)
{
	char *dir = rn_xstrdup(path), *p;
	int rc = 0;

	for (p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0755) && errno != EEXIST) {
			rc = -errno;
			break;
		}
		*p = '/';
	}
	free(dir);
	return rc;
}

/*
 * A read-only SQLite store of an older schema, which this process may not migrate, read as if
 * it were current: temporary objects (they shadow the store's own for unqualified names and
 * live in the connection's temp database, which is writable while the store is not) add the
 * columns runs lacks as a view (version < 4: the uid migration 4 would give them; < 5: no
 * fingerprint) and the tables added since, empty. Versions 1 to 3 differ only in indexes.
 */
static int old_shape(struct rn_history *h, long version)
{
	int rc = 0;

	if (version < 4)
		rc = h->ops->exec(
			h,
			"CREATE TEMP VIEW runs AS SELECT *, 'local-' || machine || '-' || "
			"created_ns || '-' || id AS uid, NULL AS subject, NULL AS author_ns, NULL "
			"AS rerun_of, NULL AS fingerprint FROM main.runs;"
			"CREATE TEMP TABLE syscalls (id INTEGER PRIMARY KEY, run_id BIGINT NOT NULL, "
			"target TEXT NOT NULL, syscall TEXT NOT NULL, calls DOUBLE PRECISION NOT "
			"NULL, errors DOUBLE PRECISION NOT NULL, time_ns DOUBLE PRECISION);"
			"CREATE TEMP TABLE change_points (target TEXT NOT NULL, metric TEXT NOT "
			"NULL, machine TEXT NOT NULL, last_run BIGINT NOT NULL, cuts TEXT NOT NULL, "
			"PRIMARY KEY (target, metric, machine));");
	else if (version < 5)
		rc = h->ops->exec(h,
				  "CREATE TEMP VIEW runs AS SELECT *, NULL AS fingerprint FROM "
				  "main.runs;");
	if (!rc && version < 6)
		rc = h->ops->exec(h,
				  "CREATE TEMP TABLE explanations (id INTEGER PRIMARY KEY, "
				  "run_id BIGINT NOT NULL, target TEXT NOT NULL, assertion TEXT "
				  "NOT NULL, text TEXT NOT NULL, svg_path TEXT, svg_hash TEXT, "
				  "base_path TEXT, base_hash TEXT, base_folded TEXT, head_path "
				  "TEXT, head_hash TEXT, head_folded TEXT);");
	return rc;
}

int rn_history_open(struct rn_history *h, const char *url, bool write, int busy_timeout_ms)
{
	const char *location = url;
	int rc;

	memset(h, 0, sizeof(*h));
	h->location = rn_history_redact(url, &h->secrets);
	if (rn_history_is_postgres(url)) {
		h->ops = &rn_history_postgres_ops;
	} else {
		h->ops = &rn_history_sqlite_ops;
		if (!strncmp(location, "sqlite:", 7))
			location += 7;
		if (write) {
			rc = make_parent(location);
			if (rc)
				return rn_history_fail(h, rc,
						       "cannot create the directory of '%s': %s",
						       location, strerror(-rc));
		} else {
			struct stat st;

			/* Only a missing file is "no store yet": a symlink loop, a path through
			 * a file or a directory without search permission is an error to fix. */
			if (stat(location, &st)) {
				int e = errno;

				if (e == ENOENT)
					return rn_history_fail(
						h, -ENOENT,
						"no history store yet (checks record one with a "
						"[history] table in renacer.toml, or with "
						"--history)");
				return rn_history_fail(h, -e, "cannot open '%s': %s", location,
						       strerror(e));
			}
			if (S_ISDIR(st.st_mode))
				return rn_history_fail(h, -EISDIR,
						       "cannot open '%s': it is a directory",
						       location);
		}
		/* A FIFO would block the open (a reader waited forever), a device is no
		 * database: a store is a regular file or nothing yet. */
		{
			struct stat st;

			if (!stat(location, &st) && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
				return rn_history_fail(h, -EINVAL,
						       "cannot open '%s': not a regular file",
						       location);
		}
	}
	rc = h->ops->open(h, location, write, busy_timeout_ms);
	if (rc)
		return rc;
	if (write)
		return migrate(h);
	{
		long version = 0;

		rc = schema_version(h, &version);
		if (rc)
			return rc;
		if (version > RN_HISTORY_SCHEMA_VERSION)
			return newer_schema(h, version);
		if (version == 0)
			return rn_history_fail(h, -ENOENT, "no renacer history in '%s'",
					       h->location);
		/* A store of an older renacer: readers migrate it too where they may write;
		 * a read-only store is read as it is, seen through the shape of the current
		 * schema (old_shape). */
		if (version < RN_HISTORY_SCHEMA_VERSION && h->ops != &rn_history_sqlite_ops)
			return migrate(h);
		if (version < RN_HISTORY_SCHEMA_VERSION) {
			h->ops->close(h);
			rc = h->ops->open(h, location, true, busy_timeout_ms);
			if (!rc)
				return migrate(h);
			h->ops->close(h);
			rc = h->ops->open(h, location, false, busy_timeout_ms);
			return rc ? rc : old_shape(h, version);
		}
	}
	return 0;
}

void rn_history_close(struct rn_history *h)
{
	if (h->ops && h->db)
		h->ops->close(h);
	free(h->location);
	h->location = NULL;
	rn_history_secrets_free(h->secrets);
	h->secrets = NULL;
	h->db = NULL;
}

int rn_history_query(struct rn_history *h, const char *sql, const char *const *params,
		     size_t nparams, rn_history_row_fn fn, void *ctx)
{
	return h->ops->query(h, sql, params, nparams, fn, ctx);
}

/* Run `argv` in `dir` and return its first output line (malloc'ed), or NULL. */
static char *command_line(const char *dir, const char *const *argv)
{
	int fds[2];
	pid_t pid;
	struct rn_buf b;
	char *nl, *out = NULL;
	int status;

	if (pipe(fds))
		return NULL;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return NULL;
	}
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDWR);

		dup2(fds[1], 1);
		if (devnull >= 0) {
			dup2(devnull, 0);
			dup2(devnull, 2);
		}
		close(fds[0]);
		if (dir && chdir(dir))
			_exit(127);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(fds[1]);
	rn_buf_init(&b, 0);
	rn_buf_read_fd(&b, fds[0]);
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	nl = strchr(b.buf, '\n');
	if (nl)
		*nl = '\0';
	if (WIFEXITED(status) && !WEXITSTATUS(status) && b.buf[0] && !rn_buf_failed(&b))
		out = rn_xstrdup(b.buf);
	rn_buf_release(&b);
	return out;
}

static const char *first_env(const char *const *names)
{
	for (; *names; names++) {
		const char *v = getenv(*names);

		if (v && *v)
			return v;
	}
	return NULL;
}

static uint64_t fnv1a(uint64_t h, const char *s)
{
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ull;
	}
	return h;
}

static long long mem_total_kib(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[256];
	long long kib = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "MemTotal:", 9)) {
			kib = strtoll(line + 9, NULL, 10);
			break;
		}
	fclose(f);
	return kib;
}

/* `src` as stored text in dst[cap]: invalid UTF-8 repaired (rn_utf8_fix: a git branch may be
 * any bytes, a database column holds UTF-8), then cut to fit on a character boundary. */
static void text_fit(char *dst, size_t cap, const char *src)
{
	char *fixed = rn_utf8_valid(src) ? NULL : rn_utf8_fix(src);
	const char *t = fixed ? fixed : src;
	size_t n = rn_utf8_prefix(t, cap - 1);

	memmove(dst, t, n);
	dst[n] = '\0';
	free(fixed);
}

void rn_history_run_identify(struct rn_history_run *run, const char *dir,
			     const char *machine_override, char (*bufs)[256])
{
	static const char *const commit_env[] = { "RENACER_COMMIT", "GITHUB_SHA", "CI_COMMIT_SHA",
						  NULL };
	static const char *const branch_env[] = { "RENACER_BRANCH", "GITHUB_HEAD_REF",
						  "GITHUB_REF_NAME", "CI_COMMIT_REF_NAME", NULL };
	static const char *const git_commit[] = { "git", "rev-parse", "HEAD", NULL };
	static const char *const git_branch[] = { "git", "rev-parse", "--abbrev-ref", "HEAD",
						  NULL };
	const char *v;
	char *s;
	struct rn_golden_host host;
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	long long mem = mem_total_kib();

	v = first_env(commit_env);
	s = v ? NULL : command_line(dir, git_commit);
	text_fit(bufs[0], 256, v ? v : s ? s : "");
	free(s);
	v = first_env(branch_env);
	s = v ? NULL : command_line(dir, git_branch);
	text_fit(bufs[1], 256, v ? v : s ? s : "");
	free(s);
	rn_golden_host(&host);
	{
		/* A description cut at 255 bytes is still a description. */
		char desc[1024];

		snprintf(desc, sizeof(desc), "%s, %ld CPUs, %.1f GiB, %s %s", host.cpu_model, ncpu,
			 (double)mem / (1024.0 * 1024.0), host.kernel, host.machine);
		text_fit(bufs[3], 256, desc);
	}
	v = machine_override ? machine_override : getenv("RENACER_MACHINE");
	if (v && *v) {
		text_fit(bufs[2], 256, v);
	} else {
		char facts[512];

		/* The facts timing depends on; not the host name, which ephemeral runners change
		 * on every job while the hardware stays the same. */
		if (snprintf(facts, sizeof(facts), "%s|%ld|%lld|%s|%s", host.cpu_model, ncpu,
			     mem / (1024 * 1024), host.kernel, host.machine) >= (int)sizeof(facts))
			facts[sizeof(facts) - 1] = '\0';
		snprintf(bufs[2], 256, "%016llx",
			 (unsigned long long)fnv1a(0xcbf29ce484222325ull, facts));
	}
	run->commit = bufs[0];
	run->branch = bufs[1];
	run->machine = bufs[2];
	run->machine_desc = bufs[3];
}

/* An INSERT of text parameters, each repaired to UTF-8 first (messages quote paths and process
 * names, which are bytes; PostgreSQL refuses a row with an invalid byte sequence). */
static int insert(struct rn_history *h, const char *sql, const char *const *params, size_t n)
{
	char *fixed[16] = { NULL };
	const char *p[16];
	size_t i;
	int rc;

	for (i = 0; i < n && i < 16; i++) {
		if (params[i] && !rn_utf8_valid(params[i]))
			fixed[i] = rn_utf8_fix(params[i]);
		p[i] = fixed[i] ? fixed[i] : params[i];
	}
	rc = h->ops->query(h, sql, p, n < 16 ? n : 16, NULL, NULL);
	for (i = 0; i < n && i < 16; i++)
		free(fixed[i]);
	return rc;
}

/*
 * The subject line and author date (ns since the epoch) of `commit` from `git log` in `dir`;
 * "" and 0 when git, the repository or the commit is not there. Never fails.
 */
static void rn_history_commit_info(const char *dir, const char *commit, char *subject, size_t cap,
				   int64_t *author_ns)
{
	char spec[300];
	const char *argv[] = { "git", "log", "-1", "--no-show-signature", NULL, spec, NULL };
	char *s;

	subject[0] = '\0';
	*author_ns = 0;
	if (!commit || !*commit || strlen(commit) > 256 || commit[0] == '-')
		return;
	snprintf(spec, sizeof(spec), "%s", commit);
	argv[4] = "--format=%at";
	s = command_line(dir, argv);
	if (s)
		*author_ns = strtoll(s, NULL, 10) * 1000000000ll;
	free(s);
	argv[4] = "--format=%s";
	s = command_line(dir, argv);
	if (s)
		snprintf(subject, cap, "%s", s);
	free(s);
}

int rn_history_int64_row(void *ctx, size_t ncols, const char *const *vals)
{
	if (ncols >= 1 && vals[0])
		*(int64_t *)ctx = strtoll(vals[0], NULL, 10);
	return 0;
}

static void fmt_double(char *dst, size_t cap, double v)
{
	snprintf(dst, cap, "%.17g", v);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* One results row per metric with data. */
static int append_results(struct rn_history *h, const char *run_id,
			  const struct rn_target_result *r)
{
	int m, rc = 0;

	for (m = 0; m < RN_METRIC_COUNT && !rc; m++) {
		const struct rn_metric_info *mi = rn_metric_info((enum rn_metric)m);
		double *s, *sorted;
		char med[40], lo[40], hi[40], ns[24];
		struct rn_buf js;
		size_t i, n = 0;
		bool any = false;

		/* user_time is the kernel's tick-sampled split of cpu_time (a short run reads 0
		 * or 4 ms): judged against golden traces, charted as cpu_time */
		if (m == RN_METRIC_USER_TIME)
			continue;
		/* Times from the timing runs, counts from the counting runs: the runs that
		 * measure the metric (rn_target_result_samples). */
		s = rn_target_result_samples(r, (enum rn_metric)m, &n);
		for (i = 0; i < n; i++)
			any |= s[i] != 0;
		if (!any) {
			free(s);
			continue;
		}
		rn_buf_init(&js, 0);
		rn_buf_addc(&js, '[');
		for (i = 0; i < n; i++)
			rn_buf_addf(&js, "%s%.17g", i ? "," : "", s[i]);
		rn_buf_addc(&js, ']');
		sorted = rn_xmalloc(n * sizeof(*sorted));
		memcpy(sorted, s, n * sizeof(*sorted));
		qsort(sorted, n, sizeof(*sorted), cmp_double);
		fmt_double(med, sizeof(med), rn_aggregate(s, n, RN_AGG_MEDIAN));
		fmt_double(lo, sizeof(lo), sorted[0]);
		fmt_double(hi, sizeof(hi), sorted[n - 1]);
		snprintf(ns, sizeof(ns), "%zu", n);
		{
			const char *p[] = { run_id, r->name, mi->name, mi->unit, ns,
					    med,    lo,      hi,       js.buf };

			rc = insert(h,
				    "INSERT INTO results (run_id, target, metric, unit, "
				    "nsamples, median, min_value, max_value, samples) VALUES "
				    "(?, ?, ?, ?, ?, ?, ?, ?, ?)",
				    p, 9);
		}
		rn_buf_release(&js);
		free(sorted);
		free(s);
	}
	return rc;
}

static int append_verdicts(struct rn_history *h, const char *run_id,
			   const struct rn_target_report *t)
{
	size_t k;
	int rc = 0;

	for (k = 0; k < t->nverdicts && !rc; k++) {
		const struct rn_verdict_result *v = &t->verdicts[k];
		char obs[40], bud[40], gold[40];
		const char *p[10];

		fmt_double(obs, sizeof(obs), v->observed);
		fmt_double(bud, sizeof(bud), v->budget);
		fmt_double(gold, sizeof(gold), v->golden);
		p[0] = run_id;
		p[1] = v->target ? v->target : t->result->name;
		p[2] = v->assertion ? v->assertion : "";
		p[3] = v->type ? v->type : "";
		p[4] = rn_verdict_label(v->verdict);
		p[5] = v->has_observed ? obs : NULL;
		p[6] = v->has_budget ? bud : NULL;
		p[7] = v->has_golden ? gold : NULL;
		p[8] = v->unit;
		p[9] = v->message;
		rc = insert(h,
			    "INSERT INTO verdicts (run_id, target, assertion, type, verdict, "
			    "observed, budget, golden, unit, message) VALUES "
			    "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			    p, 10);
	}
	return rc;
}

/* The critical path of the last timing run, ns from the run's first process start. */
static int append_critical_path(struct rn_history *h, const char *run_id,
				const struct rn_target_result *r)
{
	const struct rn_trace *t = rn_target_result_cp_trace(r);
	uint64_t origin = UINT64_MAX;
	size_t k;
	int rc = 0;

	for (k = 0; k < r->cp.nsegments; k++)
		if (r->cp.segments[k].start_ns < origin)
			origin = r->cp.segments[k].start_ns;
	for (k = 0; k < r->cp.nsegments && !rc; k++) {
		const struct rn_cp_segment *s = &r->cp.segments[k];
		char seq[24], pid[24], a[24], b[24];
		const char *name = "?";
		const char *p[7];

		if (s->proc >= 0 && (size_t)s->proc < t->nprocs) {
			name = t->procs[s->proc].comm ? t->procs[s->proc].comm : "?";
			snprintf(pid, sizeof(pid), "%d", (int)t->procs[s->proc].pid);
		} else {
			snprintf(pid, sizeof(pid), "0");
		}
		snprintf(seq, sizeof(seq), "%zu", k);
		snprintf(a, sizeof(a), "%llu", (unsigned long long)(s->start_ns - origin));
		snprintf(b, sizeof(b), "%llu", (unsigned long long)(s->end_ns - origin));
		p[0] = run_id;
		p[1] = r->name;
		p[2] = seq;
		p[3] = name;
		p[4] = pid;
		p[5] = a;
		p[6] = b;
		rc = insert(h,
			    "INSERT INTO critical_path (run_id, target, seq, process, pid, "
			    "start_ns, end_ns) VALUES (?, ?, ?, ?, ?, ?, ?)",
			    p, 7);
	}
	return rc;
}

/* One syscalls row per syscall the target made (medians over its counting runs). */
static int append_syscalls(struct rn_history *h, const char *run_id,
			   const struct rn_target_result *r)
{
	int nr, n = rn_syscall_table_size(), rc = 0;

	if (!r->syscall_calls)
		return 0;
	for (nr = 0; nr < n && !rc; nr++) {
		char calls[40], errors[40], ns[40];
		const char *p[6];

		if (!(r->syscall_calls[nr] > 0))
			continue;
		fmt_double(calls, sizeof(calls), r->syscall_calls[nr]);
		fmt_double(errors, sizeof(errors), r->syscall_errors ? r->syscall_errors[nr] : 0);
		if (r->syscall_ns)
			fmt_double(ns, sizeof(ns), r->syscall_ns[nr]);
		p[0] = run_id;
		p[1] = r->name;
		p[2] = rn_syscall_name(nr);
		p[3] = calls;
		p[4] = errors;
		p[5] = r->syscall_ns ? ns : NULL;
		rc = h->ops->query(h,
				   "INSERT INTO syscalls (run_id, target, syscall, calls, errors, "
				   "time_ns) VALUES (?, ?, ?, ?, ?, ?)",
				   p, 6, NULL, NULL);
	}
	return rc;
}

/* A new unique run id into dst (cap >= 34): the run's time and 64 random bits in hex. */
static void rn_history_new_uid(char *dst, size_t cap, uint64_t created_ns)
{
	uint64_t r = 0;
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

	if (fd < 0 || read(fd, &r, sizeof(r)) != (ssize_t)sizeof(r)) {
		/* No entropy device: the process and the monotonic clock still differ per run. */
		r = fnv1a((uint64_t)getpid() * 0x9e3779b97f4a7c15ull ^ rn_mono_ns(), "uid");
	}
	if (fd >= 0)
		close(fd);
	snprintf(dst, cap, "%016llx-%016llx", (unsigned long long)created_ns,
		 (unsigned long long)r);
}

/* The fingerprint text of a run ("name=value; ..."): the first target's that has one (the
 * targets of one check share the machine; the compiler is its root binary's), or NULL. */
static char *run_fingerprint(const struct rn_target_report *t, size_t n)
{
	struct rn_buf b;
	size_t i;

	for (i = 0; i < n; i++) {
		char *text, *fixed;

		if (!t[i].result || !t[i].result->has_fingerprint)
			continue;

		rn_buf_init(&b, 4096);
		rn_fingerprint_add_text(&b, &t[i].result->fingerprint);
		text = rn_buf_detach(&b, NULL);
		/* a CPU model is bytes: PostgreSQL refuses a row with an invalid sequence */
		if (!text || rn_utf8_valid(text))
			return text;
		fixed = rn_utf8_fix(text);
		free(text);
		return fixed;
	}
	return NULL;
}

int64_t rn_history_append(struct rn_history *h, const struct rn_history_run *run,
			  const struct rn_target_report *t, size_t n)
{
	char created[24], code[16], id[24], uid[48], author[24], rerun[256], ident[4][256];
	char *config, *subject, *fingerprint;
	int64_t run_id = 0;
	size_t i;
	int rc;
	const char *p[14];

	snprintf(created, sizeof(created), "%llu", (unsigned long long)run->created_ns);
	snprintf(code, sizeof(code), "%d", run->exit_code);
	/* Whatever set them (git, the environment, import's options): UTF-8, at most 255
	 * bytes, cut between characters. */
	text_fit(ident[0], sizeof(ident[0]), run->commit ? run->commit : "");
	text_fit(ident[1], sizeof(ident[1]), run->branch ? run->branch : "");
	text_fit(ident[2], sizeof(ident[2]), run->machine ? run->machine : "");
	text_fit(ident[3], sizeof(ident[3]), run->machine_desc ? run->machine_desc : "");
	config = rn_utf8_fix(run->config ? run->config : "");
	p[0] = created;
	p[1] = ident[0];
	p[2] = ident[1];
	p[3] = ident[2];
	p[4] = ident[3];
	p[5] = run->source;
	p[6] = config;
	p[7] = RN_VERSION;
	p[8] = code;
	if (run->uid && *run->uid)
		text_fit(uid, sizeof(uid), run->uid);
	else
		rn_history_new_uid(uid, sizeof(uid), run->created_ns);
	p[9] = uid;
	subject = run->subject && *run->subject ? rn_utf8_fix(run->subject) : NULL;
	p[10] = subject;
	snprintf(author, sizeof(author), "%lld", (long long)run->author_ns);
	p[11] = run->author_ns ? author : NULL;
	text_fit(rerun, sizeof(rerun), run->rerun_of ? run->rerun_of : "");
	p[12] = rerun[0] ? rerun : NULL;
	fingerprint = run_fingerprint(t, n);
	p[13] = fingerprint;
	rc = h->ops->exec(h, h->ops->begin_sql);
	if (rc) {
		free(config);
		free(subject);
		free(fingerprint);
		return rc;
	}
	rc = h->ops->query(
		h,
		"INSERT INTO runs (created_ns, commit_sha, branch, machine, machine_desc, "
		"source, config, renacer_version, exit_code, uid, subject, author_ns, rerun_of, "
		"fingerprint) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
		p, 14, rn_history_int64_row, &run_id);
	free(config);
	free(subject);
	free(fingerprint);
	if (!rc && run_id <= 0)
		rc = rn_history_fail(h, -EIO, "the new run got no id");
	snprintf(id, sizeof(id), "%lld", (long long)run_id);
	for (i = 0; i < n && !rc; i++) {
		rc = append_results(h, id, t[i].result);
		if (!rc)
			rc = append_verdicts(h, id, &t[i]);
		if (!rc && t[i].result->cp.nsegments)
			rc = append_critical_path(h, id, t[i].result);
		if (!rc)
			rc = append_syscalls(h, id, t[i].result);
		if (!rc && t[i].explain)
			rc = rn_history_append_explanation(h, id, &t[i]);
	}
	rc = rn_history_finish(h, rc);
	return rc ? rc : run_id;
}

int rn_history_finish(struct rn_history *h, int rc)
{
	char keep[sizeof(h->err)];

	if (!rc)
		rc = h->ops->exec(h, "COMMIT");
	if (!rc)
		return 0;
	memcpy(keep, h->err, sizeof(keep));
	h->ops->exec(h, "ROLLBACK");
	memcpy(h->err, keep, sizeof(keep));
	return rc;
}

size_t rn_history_where(struct rn_buf *sql, const struct rn_history_filter *f, const char **params)
{
	const char *const col[] = { "s.target", "s.metric", "r.machine", "r.branch" };
	const char *const val[] = { f->target, f->metric, f->machine, f->branch };
	size_t i, np = 0;

	for (i = 0; i < 4; i++) {
		if (!val[i])
			continue;
		rn_buf_addf(sql, " AND %s = ?", col[i]);
		params[np++] = val[i];
	}
	return np;
}

/* ---- change points kept up to date as runs are appended ---- */

/* A series of run medians, oldest first. */
struct cp_series {
	int64_t *run;
	double *x;
	size_t n, cap, capx;
};

static int cp_series_row(void *ctx, size_t ncols, const char *const *v)
{
	struct cp_series *s = ctx;

	if (ncols < 2 || !v[0] || !v[1])
		return 0;
	s->run = rn_xgrow(s->run, &s->cap, s->n + 1, sizeof(*s->run));
	s->x = rn_xgrow(s->x, &s->capx, s->n + 1, sizeof(*s->x));
	s->run[s->n] = strtoll(v[0], NULL, 10);
	s->x[s->n++] = strtod(v[1], NULL);
	return 0;
}

static int cp_cache_row(void *ctx, size_t ncols, const char *const *v)
{
	if (ncols >= 1 && v[0])
		snprintf(ctx, RN_HISTORY_CUTS_MAX, "%s", v[0]);
	return 0;
}

int rn_history_series_changes(struct rn_history *h, const char *target, const char *metric,
			      const char *machine, int64_t **run, double **x, size_t *n,
			      struct rn_changepoint **cp, size_t *ncp, bool store)
{
	struct cp_series s = { NULL, NULL, 0, 0, 0 };
	const char *params[5] = { target, metric, machine };
	char sql[512], cuts[RN_HISTORY_CUTS_MAX] = "", last[24];
	struct rn_edivisive_cfg cfg;
	size_t prev[64], nprev = 0, i, k;
	const char *p;
	int rc;

	*cp = NULL;
	*ncp = 0;
	snprintf(sql, sizeof(sql),
		 "SELECT * FROM (SELECT s.run_id, s.median FROM results s CROSS JOIN runs r WHERE "
		 "r.id = s.run_id AND s.target = ? AND s.metric = ? AND r.machine = ? ORDER BY "
		 "s.run_id DESC LIMIT %d) AS last ORDER BY 1",
		 RN_HISTORY_CHANGES_RUNS);
	rc = h->ops->query(h, sql, params, 3, cp_series_row, &s);
	if (!rc)
		rc = h->ops->query(h,
				   "SELECT cuts FROM change_points WHERE target = ? AND metric = ? "
				   "AND machine = ?",
				   params, 3, cp_cache_row, cuts);
	if (rc)
		goto out;
	/* The cuts found before, as positions in this series (those that fell off its start
	 * are gone). */
	for (p = cuts; *p && nprev < 64;) {
		char *end;
		long long id = strtoll(p, &end, 10);

		if (end == p)
			break;
		for (k = 0; k < s.n && s.run[k] != id; k++)
			;
		if (k < s.n && k > 0 && (!nprev || k > prev[nprev - 1]))
			prev[nprev++] = k;
		p = end;
	}
	rn_edivisive_cfg_init(&cfg);
	rn_changepoints_update(s.x, s.n, prev, nprev, &cfg, cp, ncp);
	if (store && s.n) {
		struct rn_buf b;

		rn_buf_init(&b, RN_HISTORY_CUTS_MAX - 1);
		for (i = 0; i < *ncp; i++)
			rn_buf_addf(&b, "%s%lld", i ? " " : "", (long long)s.run[(*cp)[i].index]);
		snprintf(last, sizeof(last), "%lld", (long long)s.run[s.n - 1]);
		params[3] = last;
		params[4] = rn_buf_failed(&b) ? "" : b.buf;
		rc = h->ops->query(h,
				   "DELETE FROM change_points WHERE target = ? AND metric = ? AND "
				   "machine = ?",
				   params, 3, NULL, NULL);
		if (!rc)
			rc = h->ops->query(h,
					   "INSERT INTO change_points (target, metric, machine, "
					   "last_run, cuts) VALUES (?, ?, ?, ?, ?)",
					   params, 5, NULL, NULL);
		rn_buf_release(&b);
	}
out:
	if (rc || !run) {
		free(s.run);
		free(s.x);
		if (rc) {
			free(*cp);
			*cp = NULL;
			*ncp = 0;
		}
	} else {
		*run = s.run;
		*x = s.x;
		*n = s.n;
	}
	return rc;
}

struct pairs {
	char (*p)[2][256];
	size_t n, cap;
};

static int pair_row(void *ctx, size_t ncols, const char *const *v)
{
	struct pairs *ps = ctx;

	if (ncols < 2 || !v[0] || !v[1])
		return 0;
	ps->p = rn_xgrow(ps->p, &ps->cap, ps->n + 1, sizeof(*ps->p));
	snprintf(ps->p[ps->n][0], 256, "%s", v[0]);
	snprintf(ps->p[ps->n][1], 256, "%s", v[1]);
	ps->n++;
	return 0;
}

/* After appending run `id`: the change points of each of its series on its machine, searched
 * from the cuts kept before (rn_changepoints_update) and kept for the next time. Best effort. */
static void update_changes(struct rn_history *h, int64_t id, const char *machine)
{
	struct pairs ps = { NULL, 0, 0 };
	char run[24];
	const char *params[1] = { run };
	size_t i;

	snprintf(run, sizeof(run), "%lld", (long long)id);
	if (h->ops->query(h, "SELECT target, metric FROM results WHERE run_id = ?", params, 1,
			  pair_row, &ps) ||
	    h->ops->exec(h, h->ops->begin_sql)) {
		free(ps.p);
		return;
	}
	for (i = 0; i < ps.n; i++) {
		struct rn_changepoint *cp;
		size_t ncp;

		if (rn_history_series_changes(h, ps.p[i][0], ps.p[i][1], machine, NULL, NULL, NULL,
					      &cp, &ncp, true))
			break;
		free(cp);
	}
	h->ops->exec(h, i == ps.n ? "COMMIT" : "ROLLBACK");
	free(ps.p);
}

struct commits {
	char c[RN_HISTORY_BACKFILL][257];
	size_t n;
};

static int commit_row(void *ctx, size_t ncols, const char *const *v)
{
	struct commits *cs = ctx;

	if (ncols >= 1 && v[0] && cs->n < RN_HISTORY_BACKFILL)
		snprintf(cs->c[cs->n++], sizeof(cs->c[0]), "%s", v[0]);
	return 0;
}

/* Runs recorded without their commit's subject (by an older renacer, or imported) get it
 * from git when it knows the commit: the newest RN_HISTORY_BACKFILL commits of the last
 * 1,000 runs per check; "" marks a commit git did not know. Best effort: errors are ignored
 * (the run itself is recorded). */
static void backfill_subjects(struct rn_history *h, const char *dir)
{
	struct commits cs;
	size_t i;

	cs.n = 0;
	if (h->ops->query(h,
			  "SELECT commit_sha FROM runs WHERE subject IS NULL AND commit_sha <> '' "
			  "AND id > (SELECT max(id) - 1000 FROM runs) GROUP BY commit_sha ORDER BY "
			  "max(id) DESC",
			  NULL, 0, commit_row, &cs))
		return;
	for (i = 0; i < cs.n; i++) {
		char subject[256], author[24];
		int64_t author_ns;
		const char *p[3] = { subject, author, cs.c[i] };

		rn_history_commit_info(dir, cs.c[i], subject, sizeof(subject), &author_ns);
		snprintf(author, sizeof(author), "%lld", (long long)author_ns);
		if (!author_ns)
			p[1] = NULL;
		if (insert(h,
			   "UPDATE runs SET subject = ?, author_ns = ? WHERE commit_sha = ? AND "
			   "subject IS NULL",
			   p, 3))
			return;
	}
}

int rn_history_record(const struct rn_config *cfg, bool cli_enable, const char *source,
		      const struct rn_target_report *t, size_t n, int exit_code, bool quiet,
		      const char *rerun_of)
{
	struct rn_history_cfg hc;
	struct rn_history h;
	struct rn_history_run run;
	char bufs[4][256], subject[256];
	int64_t id;
	int rc;

	rn_history_cfg_resolve(&hc, cfg, NULL, cli_enable);
	if (!hc.enabled) {
		rn_history_cfg_release(&hc);
		return 0;
	}
	memset(&run, 0, sizeof(run));
	run.created_ns = rn_real_ns();
	rn_history_run_identify(&run, cfg->dir, hc.machine, bufs);
	run.source = source;
	run.config = cfg->path;
	run.exit_code = exit_code;
	run.rerun_of = rerun_of;
	rn_history_commit_info(cfg->dir, run.commit, subject, sizeof(subject), &run.author_ns);
	run.subject = subject;
	rc = rn_history_open(&h, hc.url, true, hc.busy_timeout_ms);
	id = rc ? rc : rn_history_append(&h, &run, t, n);
	if (id > 0) {
		backfill_subjects(&h, cfg->dir);
		update_changes(&h, id, run.machine);
	}
	if (id < 0)
		rn_warn("history: not recorded in '%s': %s", h.location, h.err);
	else if (!quiet)
		rn_note("history: recorded run %lld in '%s'", (long long)id, h.location);
	rn_history_close(&h);
	rn_history_cfg_release(&hc);
	return id < 0 ? (int)id : 0;
}
