#include "report_strace.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"
#include "syscall_args.h"
#include "xalloc.h"

struct flag_name {
	uint64_t bit;
	const char *name;
};

static const struct flag_name open_flags[] = {
	{ O_CREAT, "O_CREAT" },         { O_EXCL, "O_EXCL" },         { O_NOCTTY, "O_NOCTTY" },
	{ O_TRUNC, "O_TRUNC" },         { O_APPEND, "O_APPEND" },     { O_NONBLOCK, "O_NONBLOCK" },
	{ O_DSYNC, "O_DSYNC" },         { O_ASYNC, "O_ASYNC" },       { O_DIRECT, "O_DIRECT" },
	{ O_DIRECTORY, "O_DIRECTORY" }, { O_NOFOLLOW, "O_NOFOLLOW" }, { O_NOATIME, "O_NOATIME" },
	{ O_CLOEXEC, "O_CLOEXEC" },     { O_PATH, "O_PATH" },         { 0, NULL },
};

static const struct flag_name at_flags[] = {
	{ 0x100, "AT_SYMLINK_NOFOLLOW" }, { 0x200, "AT_REMOVEDIR" },
	{ 0x400, "AT_SYMLINK_FOLLOW" },   { 0x800, "AT_NO_AUTOMOUNT" },
	{ 0x1000, "AT_EMPTY_PATH" },      { 0, NULL },
};

static const struct flag_name prot_flags[] = {
	{ PROT_READ, "PROT_READ" },
	{ PROT_WRITE, "PROT_WRITE" },
	{ PROT_EXEC, "PROT_EXEC" },
	{ 0, NULL },
};

static const struct flag_name map_flags[] = {
	{ MAP_FIXED, "MAP_FIXED" },
	{ MAP_ANONYMOUS, "MAP_ANONYMOUS" },
	{ MAP_GROWSDOWN, "MAP_GROWSDOWN" },
	{ MAP_DENYWRITE, "MAP_DENYWRITE" },
	{ MAP_NORESERVE, "MAP_NORESERVE" },
	{ MAP_POPULATE, "MAP_POPULATE" },
	{ MAP_STACK, "MAP_STACK" },
	{ MAP_FIXED_NOREPLACE, "MAP_FIXED_NOREPLACE" },
	{ 0, NULL },
};

static const struct flag_name access_flags[] = {
	{ R_OK, "R_OK" },
	{ W_OK, "W_OK" },
	{ X_OK, "X_OK" },
	{ 0, NULL },
};

/* "A|B|0x40" for the bits of v; `zero` when v is 0. */
static void add_flags(struct rn_buf *b, uint64_t v, const struct flag_name *names, const char *zero)
{
	bool first = true;
	size_t i;

	if (!v) {
		rn_buf_adds(b, zero);
		return;
	}
	for (i = 0; names[i].name; i++) {
		if (!names[i].bit || (v & names[i].bit) != names[i].bit)
			continue;
		rn_buf_addf(b, "%s%s", first ? "" : "|", names[i].name);
		v &= ~names[i].bit;
		first = false;
	}
	if (v)
		rn_buf_addf(b, "%s%#" PRIx64, first ? "" : "|", v);
}

static void add_open_flags(struct rn_buf *b, uint64_t v)
{
	static const char *const acc[] = { "O_RDONLY", "O_WRONLY", "O_RDWR", "O_ACCMODE" };

	/* O_TMPFILE includes O_DIRECTORY's bit; name it whole */
	rn_buf_adds(b, acc[v & O_ACCMODE]);
	v &= ~(uint64_t)O_ACCMODE;
	if ((v & O_TMPFILE) == O_TMPFILE) {
		rn_buf_adds(b, "|O_TMPFILE");
		v &= ~(uint64_t)O_TMPFILE;
	}
	if (v & O_SYNC & ~O_DSYNC && (v & O_SYNC) == O_SYNC) {
		rn_buf_adds(b, "|O_SYNC");
		v &= ~(uint64_t)O_SYNC;
	}
	if (v) {
		rn_buf_addc(b, '|');
		add_flags(b, v, open_flags, "0");
	}
}

/* A C string literal as strace prints one. */
static void add_quoted(struct rn_buf *b, const char *s, bool truncated)
{
	rn_buf_addc(b, '"');
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		switch (ch) {
		case '"':
			rn_buf_adds(b, "\\\"");
			break;
		case '\\':
			rn_buf_adds(b, "\\\\");
			break;
		case '\n':
			rn_buf_adds(b, "\\n");
			break;
		case '\t':
			rn_buf_adds(b, "\\t");
			break;
		default:
			if (ch < 0x20 || ch == 0x7f)
				rn_buf_addf(b, "\\%o", ch);
			else
				rn_buf_addc(b, (char)ch);
		}
	}
	rn_buf_addc(b, '"');
	if (truncated)
		rn_buf_adds(b, "...");
}

/* execve's argument vector as strace prints it: ["ls", "-l"], long strings and vectors cut
 * with "..." (see rn_syscall_event.argv). */
static void add_argv(struct rn_buf *b, const struct rn_syscall_event *ev)
{
	const char *s = ev->argv;
	uint32_t i;

	rn_buf_addc(b, '[');
	for (i = 0; i < ev->nargv; i++) {
		size_t len = strlen(s);
		char cut[RN_ARGV_STR_MAX + 1];

		if (i)
			rn_buf_adds(b, ", ");
		if (len > RN_ARGV_STR_MAX) {
			memcpy(cut, s, RN_ARGV_STR_MAX);
			cut[RN_ARGV_STR_MAX] = '\0';
			add_quoted(b, cut, true);
		} else {
			add_quoted(b, s, false);
		}
		s += len + 1;
	}
	if (ev->argv_more)
		rn_buf_adds(b, ev->nargv ? ", ..." : "...");
	rn_buf_addc(b, ']');
}

static void add_hex(struct rn_buf *b, uint64_t v)
{
	if (!v)
		rn_buf_adds(b, "NULL");
	else
		rn_buf_addf(b, "%#" PRIx64, v);
}

/* Calls whose return value is an address, printed in hex as strace does. Numbers looked up
 * once (-1 where the architecture lacks the call). */
static bool returns_address(int nr)
{
	static int mmap_nr = -2, mremap_nr, brk_nr, shmat_nr;

	if (mmap_nr == -2) {
		mmap_nr = rn_syscall_lookup("mmap");
		mremap_nr = rn_syscall_lookup("mremap");
		brk_nr = rn_syscall_lookup("brk");
		shmat_nr = rn_syscall_lookup("shmat");
	}
	return nr >= 0 && (nr == mmap_nr || nr == mremap_nr || nr == brk_nr || nr == shmat_nr);
}

/* One argument `a` of ev, of signature kind `kind` (rn_syscall_signature, syscall_args.h);
 * *npath counts the path arguments so far, which print the paths the collector read. */
static void add_arg(struct rn_buf *b, const struct rn_syscall_event *ev, char kind, uint64_t a,
		    int *npath)
{
	const char *paths[2] = { ev->path, ev->path2 };

	switch (kind) {
	case 'd':
		if ((int)a == AT_FDCWD)
			rn_buf_adds(b, "AT_FDCWD");
		else
			rn_buf_addf(b, "%d", (int)a);
		break;
	case 'f':
	case 'i':
		rn_buf_addf(b, "%d", (int)a);
		break;
	case 'u':
		rn_buf_addf(b, "%" PRIu64, a);
		break;
	case 'p':
		if (*npath < 2 && paths[*npath])
			add_quoted(b, paths[*npath], ev->flags & RN_SC_PATH_TRUNC);
		else
			add_hex(b, a);
		(*npath)++;
		break;
	case 'o':
		add_open_flags(b, a);
		break;
	case 'm':
		rn_buf_addf(b, "%#03" PRIo64, a);
		break;
	case 'a':
		add_flags(b, a, access_flags, "F_OK");
		break;
	case 'A':
		add_flags(b, a, at_flags, "0");
		break;
	case 'P':
		add_flags(b, a, prot_flags, "PROT_NONE");
		break;
	case 'M': {
		static const char *const type[] = { "0", "MAP_SHARED", "MAP_PRIVATE",
						    "MAP_SHARED_VALIDATE" };

		rn_buf_adds(b, type[a & 3]);
		if (a & ~(uint64_t)3) {
			rn_buf_addc(b, '|');
			add_flags(b, a & ~(uint64_t)3, map_flags, "0");
		}
		break;
	}
	case 's':
		rn_buf_adds(b, rn_signal_name((int)a));
		break;
	case 'v':
		if (ev->argv)
			add_argv(b, ev);
		else
			add_hex(b, a);
		break;
	case 'e':
		add_hex(b, a);
		if (ev->env_known)
			rn_buf_addf(b, " /* %" PRIu32 " var%s */", ev->nenv,
				    ev->nenv == 1 ? "" : "s");
		break;
	default:
		add_hex(b, a);
		break;
	}
}

/* " = RESULT" at column 40, strace's marks of a tampered call and the time spent. */
static void add_result(struct rn_buf *b, const struct rn_syscall_event *ev, uint32_t flags,
		       size_t line_start)
{
	/* strace aligns " = " at column 40 */
	while (b->len - line_start < 39)
		rn_buf_addc(b, ' ');
	if (ev->flags & RN_SC_UNFINISHED)
		rn_buf_adds(b, " = ?");
	else if (ev->err && rn_errno_is_restart(ev->err))
		rn_buf_addf(b, " = ? %s (%s)", rn_errno_name(ev->err), rn_errno_desc(ev->err));
	else if (ev->err)
		rn_buf_addf(b, " = -1 %s (%s)", rn_errno_name(ev->err), rn_errno_desc(ev->err));
	else if (returns_address(ev->nr))
		rn_buf_addf(b, " = %#" PRIx64, (uint64_t)ev->ret);
	else
		rn_buf_addf(b, " = %" PRId64, ev->ret);
	/* strace's marks of a tampered call (--inject) */
	if (ev->flags & RN_SC_INJECTED)
		rn_buf_adds(b, " (INJECTED)");
	if (ev->flags & RN_SC_DELAYED)
		rn_buf_adds(b, " (DELAYED)");
	if ((flags & RN_LINE_TIME) && !(ev->flags & RN_SC_UNFINISHED))
		rn_buf_addf(b, " <%" PRIu64 ".%06" PRIu64 ">", ev->duration_ns / 1000000000u,
			    ev->duration_ns / 1000 % 1000000);
}

void rn_syscall_format(struct rn_buf *b, const struct rn_syscall_event *ev, uint32_t flags)
{
	const char *sig = rn_syscall_signature(ev->nr);
	size_t line_start = b->len;
	int i, nargs, npath = 0;

	if (flags & RN_LINE_PID)
		rn_buf_addf(b, "[pid %5d] ", (int)ev->tid);
	rn_buf_addf(b, "%s(", rn_syscall_name(ev->nr));
	nargs = sig ? (int)strlen(sig) : 6;
	for (i = 0; i < nargs; i++) {
		uint64_t a = ev->args[i];
		char kind = sig ? sig[i] : 'x';

		if (i)
			rn_buf_adds(b, ", ");
		add_arg(b, ev, kind, a, &npath);
		/* the mode is only meaningful, and only printed, with O_CREAT/O_TMPFILE */
		if (kind == 'o' && sig[i + 1] == 'm' && !(a & O_CREAT) &&
		    (a & O_TMPFILE) != O_TMPFILE)
			nargs = i + 1;
	}
	rn_buf_addc(b, ')');
	add_result(b, ev, flags, line_start);
}

void rn_process_format_end(struct rn_buf *b, const struct rn_process *p, uint32_t flags)
{
	if (flags & RN_LINE_PID)
		rn_buf_addf(b, "[pid %5d] ", (int)p->pid);
	switch (p->end) {
	case RN_PROC_EXITED:
		rn_buf_addf(b, "+++ exited with %d +++", p->exit_code);
		break;
	case RN_PROC_SIGNALED:
		rn_buf_addf(b, "+++ killed by %s%s +++", rn_signal_name(p->term_signal),
			    p->core_dumped ? " (core dumped)" : "");
		break;
	case RN_PROC_LOST:
		rn_buf_adds(b, "+++ killed by renacer +++");
		break;
	case RN_PROC_RUNNING:
		rn_buf_adds(b, "+++ still running +++");
		break;
	}
}

/* ---- the -c summary ----------------------------------------------------------------------- */

static int row_cmp(const void *a, const void *b)
{
	const struct rn_summary_row *x = a, *y = b;

	if (x->s.total_ns != y->s.total_ns)
		return x->s.total_ns > y->s.total_ns ? -1 : 1;
	return x->nr - y->nr; /* stable: ties in syscall-number order, as strace's sort */
}

struct rn_summary_row *rn_trace_summary_rows(const struct rn_trace *t, size_t *nrows)
{
	int n = rn_syscall_table_size(), nr;
	struct rn_summary_row *rows = rn_xcalloc((size_t)n + 1, sizeof(*rows));
	size_t k = 0;

	for (nr = 0; nr < n; nr++) {
		struct rn_syscall_stat s = rn_trace_syscall_total(t, nr);

		if (!s.calls)
			continue;
		rows[k].nr = nr;
		rows[k].s = s;
		k++;
	}
	qsort(rows, k, sizeof(*rows), row_cmp);
	*nrows = k;
	return rows;
}

static int digits_u64(uint64_t v)
{
	char tmp[32];

	return snprintf(tmp, sizeof(tmp), "%" PRIu64, v);
}

/* usecs/call as strace computes it: the average as a timespec, then float seconds * 1e6. */
static uint64_t usecs_per_call(uint64_t total_ns, uint64_t calls)
{
	uint64_t avg = calls ? total_ns / calls : 0;
	double secs = (double)(avg / 1000000000u) + (double)(avg % 1000000000u) / 1e9;

	return (uint64_t)(secs * 1e6);
}

/* The percentile columns of --percentiles: quantile, header. */
static const struct {
	double q;
	const char *head;
} pct_cols[] = { { 0.50, "p50 us" }, { 0.90, "p90 us" }, { 0.99, "p99 us" }, { 1.0, "max us" } };

#define DASHES "--------------------------------------------------------------------"

/* The rule under the header and above the total: one dash run per column. */
static void summary_rule(FILE *out, int w_sec, int w_avg, int w_calls, int w_err, int w_name,
			 bool pcts)
{
	fprintf(out, "------ %.*s %.*s %.*s %.*s", w_sec, DASHES, w_avg, DASHES, w_calls, DASHES,
		w_err, DASHES);
	if (pcts)
		for (size_t k = 0; k < sizeof(pct_cols) / sizeof(pct_cols[0]); k++)
			fprintf(out, " %.*s", 11, DASHES);
	fprintf(out, " %.*s\n", w_name, DASHES);
}

/* The percentile cells of syscall `nr` (" %11.1f" each, microseconds), or of the whole
 * table when `nr` < 0 (blank: percentiles of different calls do not add up). */
static void summary_pcts(FILE *out, const struct rn_trace *t, int nr)
{
	const struct rn_hist *h = nr >= 0 ? rn_trace_latency(t, nr) : NULL;

	for (size_t k = 0; k < sizeof(pct_cols) / sizeof(pct_cols[0]); k++) {
		if (h)
			fprintf(out, " %11.1f", (double)rn_hist_quantile(h, pct_cols[k].q) / 1e3);
		else
			fprintf(out, " %11s", "");
	}
}

int rn_trace_summary_write(const struct rn_trace *t, FILE *out)
{
	size_t nrows, i;
	struct rn_summary_row *rows = rn_trace_summary_rows(t, &nrows);
	uint64_t cum_ns = 0, calls = 0, errors = 0, avg_max = 0;
	int w_sec, w_avg, w_calls, w_err, w_name;
	size_t name_max = 0;
	bool pcts = t->latency != NULL;
	double cum;
	char tmp[64];

	for (i = 0; i < nrows; i++) {
		uint64_t avg = usecs_per_call(rows[i].s.total_ns, rows[i].s.calls);

		cum_ns += rows[i].s.total_ns;
		calls += rows[i].s.calls;
		errors += rows[i].s.errors;
		if (avg > avg_max)
			avg_max = avg;
		if (strlen(rn_syscall_name(rows[i].nr)) > name_max)
			name_max = strlen(rn_syscall_name(rows[i].nr));
	}
	cum = (double)cum_ns / 1e9;
	/* column widths: the historical sizes, widened by what they must hold (strace) */
	w_sec = snprintf(tmp, sizeof(tmp), "%.6f", cum);
	w_sec = w_sec > 11 ? w_sec : 11;
	w_avg = digits_u64(avg_max) > 11 ? digits_u64(avg_max) : 11;
	w_calls = digits_u64(calls) > 9 ? digits_u64(calls) : 9;
	w_err = digits_u64(errors) > 9 ? digits_u64(errors) : 9;
	w_name = (int)name_max + 1 > 16 ? (int)name_max + 1 : 16;

	fprintf(out, "%6s %*s %*s %*s %*s", "% time", w_sec, "seconds", w_avg, "usecs/call",
		w_calls, "calls", w_err, "errors");
	if (pcts)
		for (size_t k = 0; k < sizeof(pct_cols) / sizeof(pct_cols[0]); k++)
			fprintf(out, " %11s", pct_cols[k].head);
	fprintf(out, " syscall\n");
	summary_rule(out, w_sec, w_avg, w_calls, w_err, w_name, pcts);
	for (i = 0; i < nrows; i++) {
		const struct rn_syscall_stat *s = &rows[i].s;
		double secs = (double)s->total_ns / 1e9;
		double pct = 100.0 * secs;

		if (pct != 0.0)
			pct /= cum;
		fprintf(out, "%6.2f %*.6f %*" PRIu64 " %*" PRIu64 " %*.0" PRIu64, pct, w_sec, secs,
			w_avg, usecs_per_call(s->total_ns, s->calls), w_calls, s->calls, w_err,
			s->errors);
		if (pcts)
			summary_pcts(out, t, rows[i].nr);
		fprintf(out, " %s\n", rn_syscall_name(rows[i].nr));
	}
	summary_rule(out, w_sec, w_avg, w_calls, w_err, w_name, pcts);
	fprintf(out, "%6.2f %*.6f %*" PRIu64 " %*" PRIu64 " %*.0" PRIu64, 100.0, w_sec, cum, w_avg,
		calls ? (uint64_t)(cum / (double)calls * 1e6) : 0, w_calls, calls, w_err, errors);
	if (pcts)
		summary_pcts(out, t, -1);
	fprintf(out, " total\n");
	free(rows);
	return ferror(out) ? -EIO : 0;
}
