/*
 * cachegrind.c - the instructions collector (cachegrind.h).
 */
#include "cachegrind.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "xalloc.h"

#define HINT "valgrind is not installed (Debian/Ubuntu: apt-get install valgrind)"

/* Is `name` an executable file in a PATH directory? */
static bool in_path(const char *name)
{
	const char *path = getenv("PATH"), *p;
	char buf[4096];

	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path;;) {
		const char *end = strchr(p, ':');
		int len = end ? (int)(end - p) : (int)strlen(p);
		struct stat st;

		snprintf(buf, sizeof(buf), "%.*s/%s", len, len ? p : ".", name);
		if (!stat(buf, &st) && S_ISREG(st.st_mode) && !access(buf, X_OK))
			return true;
		if (!end)
			return false;
		p = end + 1;
	}
}

const char *rn_cachegrind_unavailable(void)
{
	return in_path("valgrind") ? NULL : HINT;
}

int rn_cachegrind_parse_file(const char *path, struct rn_cachegrind_proc *p)
{
	struct rn_buf b;
	const char *line;
	bool have = false;
	int rc;

	memset(p, 0, sizeof(*p));
	rn_buf_init(&b, (size_t)1 << 30);
	rc = rn_buf_read_file(&b, path);
	if (rc) {
		rn_buf_release(&b);
		return rc;
	}
	for (line = b.buf; line && *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);

		if (len > 5 && !strncmp(line, "cmd: ", 5) && !p->cmd) {
			p->cmd = rn_xstrndup(line + 5, len - 5);
		} else if (len > 9 && !strncmp(line, "summary: ", 9)) {
			char *end;
			unsigned long long v;

			/* A count is decimal digits: strtoull would take "-5" as 2^64 - 5 and
			 * wrap an overflow silently. What another program wrote is checked. */
			errno = 0;
			v = strtoull(line + 9, &end, 10);
			if (line[9] < '0' || line[9] > '9' || errno ||
			    (end < line + len && *end != ' ' && *end != '\t' && *end != '\r')) {
				rc = -EINVAL;
				break;
			}
			p->instructions = v;
			have = true;
		}
		line = nl ? nl + 1 : NULL;
	}
	rn_buf_release(&b);
	if (rc || !have) {
		free(p->cmd);
		p->cmd = NULL;
		return rc ? rc : -ENODATA;
	}
	return 0;
}

void rn_cachegrind_result_release(struct rn_cachegrind_result *r)
{
	size_t i;

	for (i = 0; i < r->nprocs; i++)
		free(r->procs[i].cmd);
	free(r->procs);
	memset(r, 0, sizeof(*r));
}

static int by_pid(const void *a, const void *b)
{
	const struct rn_cachegrind_proc *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/* Note a process without a count: `why` for the first one, the count for all. */
static void missing(struct rn_cachegrind_result *out, pid_t pid, const char *why)
{
	if (!out->nmissing)
		snprintf(out->missing, sizeof(out->missing), "process %d %s", (int)pid, why);
	out->nmissing++;
}

/* Read every DIR/cg.PID into `out`; remove the directory's files and the directory. Valgrind
 * opens its log vg.PID when a process starts and writes cg.PID when it exits: a process with a
 * log and no count ended without Valgrind's exit (SIGKILL, the OOM killer), and one with an
 * invalid count cannot be added up. Either is a process the total lacks (out->nmissing). */
static void collect(const char *dir, struct rn_cachegrind_result *out, struct rn_buf *vglog)
{
	size_t cap = 0, nlogs = 0, logs_cap = 0, i;
	pid_t *logs = NULL;
	DIR *d = opendir(dir);
	struct dirent *de;
	struct rn_buf path;

	rn_buf_init(&path, 0);
	while (d && (de = readdir(d))) {
		struct rn_cachegrind_proc p;
		pid_t pid;
		int rc;

		if (de->d_name[0] == '.' || strlen(de->d_name) < 4)
			continue;
		pid = (pid_t)strtol(de->d_name + 3, NULL, 10);
		rn_buf_reset(&path);
		rn_buf_addf(&path, "%s/%s", dir, de->d_name);
		if (!strncmp(de->d_name, "cg.", 3)) {
			rc = rn_cachegrind_parse_file(path.buf, &p);
			if (!rc && out->total + p.instructions < out->total)
				rc = -ERANGE;
			if (rc) {
				free(p.cmd);
				missing(out, pid,
					rc == -ENODATA ? "has a count file without a summary" :
							 "has a count file whose summary is not a "
							 "count of instructions");
				/* logged, and not counted twice as a process without a file */
				logs = rn_xgrow(logs, &logs_cap, nlogs + 1, sizeof(*logs));
				logs[nlogs++] = -pid;
			} else {
				p.pid = pid;
				out->procs = rn_xgrow(out->procs, &cap, out->nprocs + 1,
						      sizeof(*out->procs));
				out->procs[out->nprocs++] = p;
				out->total += p.instructions;
			}
		} else if (!strncmp(de->d_name, "vg.", 3)) {
			logs = rn_xgrow(logs, &logs_cap, nlogs + 1, sizeof(*logs));
			logs[nlogs++] = pid;
			if (vglog->len < 4096) {
				struct rn_buf l;

				rn_buf_init(&l, 1 << 20);
				if (!rn_buf_read_file(&l, path.buf) && l.len)
					rn_buf_add(vglog, l.buf, l.len < 2048 ? l.len : 2048);
				rn_buf_release(&l);
			}
		}
		unlink(path.buf);
	}
	rn_buf_release(&path);
	if (d)
		closedir(d);
	rmdir(dir);
	if (out->nprocs > 1)
		qsort(out->procs, out->nprocs, sizeof(*out->procs), by_pid);
	/* A log whose pid has no count (and no invalid one, marked -pid above). */
	if (nlogs > 1)
		qsort(logs, nlogs, sizeof(*logs), cmp_pid);
	for (i = 0; i < nlogs; i++) {
		struct rn_cachegrind_proc key = { .pid = logs[i] };

		if (logs[i] <= 0)
			continue;
		if (bsearch(&key, out->procs, out->nprocs, sizeof(*out->procs), by_pid))
			continue;
		if (bsearch(&(pid_t){ -logs[i] }, logs, nlogs, sizeof(*logs), cmp_pid))
			continue;
		missing(out, logs[i],
			"wrote no instruction count (killed by SIGKILL, or by the OOM "
			"killer?)");
	}
	free(logs);
}

int rn_cachegrind_run(const struct rn_run_spec *spec, struct rn_trace *t,
		      struct rn_cachegrind_result *out)
{
	const char *tmp = getenv("TMPDIR");
	char dir[4096], outopt[4200], logopt[4200];
	struct rn_run_spec s = *spec;
	struct rn_run_result res;
	struct rn_buf vglog;
	char **argv;
	size_t n = 0, i, k = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	if (rn_cachegrind_unavailable())
		return -ENOENT;
	snprintf(dir, sizeof(dir), "%s/renacer-cg-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		return -errno;
	snprintf(outopt, sizeof(outopt), "--cachegrind-out-file=%s/cg.%%p", dir);
	snprintf(logopt, sizeof(logopt), "--log-file=%s/vg.%%p", dir);
	while (spec->argv[n])
		n++;
	argv = rn_xcalloc(n + 9, sizeof(*argv));
	argv[k++] = (char *)"valgrind";
	argv[k++] = (char *)"--tool=cachegrind";
	argv[k++] = (char *)"--cache-sim=no";
	argv[k++] = (char *)"--trace-children=yes";
	argv[k++] = outopt;
	argv[k++] = logopt;
	argv[k++] = (char *)"--";
	for (i = 0; i < n; i++)
		argv[k++] = spec->argv[i];
	argv[k] = NULL;
	s.argv = argv;
	s.collectors = 0; /* the plain driver: no tracer under Valgrind */
	s.syscall_filter = NULL;
	s.flags &= ~(uint32_t)RN_RUN_PIN_CPU;
	rc = rn_run_target(&s, t, &res);
	rn_run_result_release(&res);
	free(argv);
	rn_buf_init(&vglog, 0);
	collect(dir, out, &vglog);
	if (!rc && !out->nprocs) {
		if (t->status == RN_RUN_OK && out->nmissing)
			rn_trace_fail(t, RN_RUN_ERROR, "valgrind wrote no instruction counts: %s",
				      out->missing);
		else if (t->status == RN_RUN_OK)
			rn_trace_fail(t, RN_RUN_ERROR, "valgrind wrote no instruction counts%s%.*s",
				      vglog.len ? ": " : "",
				      (int)(vglog.len > 400 ? 400 : vglog.len),
				      vglog.len ? vglog.buf : "");
		rc = -ENODATA;
	} else if (!rc && out->nmissing) {
		/* A total without some processes is a lower bound, never a measurement: a gap
		 * of the trace that the instructions verdicts see (NO DATA or WARN). */
		rn_trace_add_gap(t, RN_GAP_DROPPED, RN_GAP_INSTRUCTIONS, "cachegrind", 0,
				 "%zu process%s without an instruction count: %s", out->nmissing,
				 out->nmissing == 1 ? "" : "es", out->missing);
	}
	rn_buf_release(&vglog);
	return rc;
}
