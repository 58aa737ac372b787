/*
 * report_csv.c - the CSV views of a trace (report_csv.h).
 */
#include "report_csv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "csv.h"
#include "internal.h"
#include "report_strace.h"

/* enum rn_syscall_flags by name, in the order the flags column lists them. */
static const struct {
	uint32_t flag;
	const char *name;
} flag_names[] = {
	{ RN_SC_UNFINISHED, "unfinished" },     { RN_SC_RESTARTED, "restarted" },
	{ RN_SC_INJECTED, "injected" },         { RN_SC_DELAYED, "delayed" },
	{ RN_SC_PATH_TRUNC, "path_truncated" },
};

void rn_csv_add_syscall_header(struct rn_buf *b)
{
	rn_buf_adds(b,
		    "start_ns,pid,tid,syscall,nr,arg0,arg1,arg2,arg3,arg4,arg5,ret,errno,"
		    "duration_ns,path,path2,flags\n");
}

void rn_csv_add_syscall(struct rn_buf *b, const struct rn_syscall_event *ev)
{
	bool unfinished = ev->flags & RN_SC_UNFINISHED, first = true;

	rn_buf_addf(b, "%" PRIu64 ",%d,%d,", ev->start_ns, (int)ev->pid, (int)ev->tid);
	rn_csv_add_field(b, rn_syscall_name(ev->nr));
	rn_buf_addf(b, ",%d", ev->nr);
	for (int i = 0; i < 6; i++)
		rn_buf_addf(b, ",0x%" PRIx64, ev->args[i]);
	rn_buf_addc(b, ',');
	if (!unfinished)
		rn_buf_addf(b, "%" PRId64, ev->ret);
	rn_buf_addc(b, ',');
	if (ev->err && !unfinished)
		rn_csv_add_field(b, rn_errno_name(ev->err));
	rn_buf_addc(b, ',');
	if (!unfinished)
		rn_buf_addf(b, "%" PRIu64, ev->duration_ns);
	rn_buf_addc(b, ',');
	rn_csv_add_field(b, ev->path);
	rn_buf_addc(b, ',');
	rn_csv_add_field(b, ev->path2);
	rn_buf_addc(b, ',');
	for (size_t k = 0; k < sizeof(flag_names) / sizeof(flag_names[0]); k++) {
		if (!(ev->flags & flag_names[k].flag))
			continue;
		if (!first)
			rn_buf_addc(b, '|');
		rn_buf_adds(b, flag_names[k].name);
		first = false;
	}
	rn_buf_addc(b, '\n');
}

int rn_trace_summary_csv(const struct rn_trace *t, FILE *out)
{
	size_t nrows, i;
	struct rn_summary_row *rows = rn_trace_summary_rows(t, &nrows);
	uint64_t total = 0, calls = 0, errors = 0;
	bool pcts = t->latency != NULL;
	struct rn_buf b;

	for (i = 0; i < nrows; i++) {
		total += rows[i].s.total_ns;
		calls += rows[i].s.calls;
		errors += rows[i].s.errors;
	}
	rn_buf_init(&b, 0);
	rn_buf_adds(&b, "syscall,nr,calls,errors,total_ns,min_ns,max_ns,avg_ns,time_pct");
	rn_buf_adds(&b, pcts ? ",p50_ns,p90_ns,p99_ns\n" : "\n");
	for (i = 0; i < nrows; i++) {
		const struct rn_syscall_stat *s = &rows[i].s;
		const struct rn_hist *h = rn_trace_latency(t, rows[i].nr);

		rn_csv_add_field(&b, rn_syscall_name(rows[i].nr));
		rn_buf_addf(&b,
			    ",%d,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
			    ",%" PRIu64 ",%.2f",
			    rows[i].nr, s->calls, s->errors, s->total_ns, s->min_ns, s->max_ns,
			    s->calls ? s->total_ns / s->calls : 0,
			    total ? 100.0 * (double)s->total_ns / (double)total : 0.0);
		if (pcts && h)
			rn_buf_addf(&b, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64,
				    rn_hist_quantile(h, 0.50), rn_hist_quantile(h, 0.90),
				    rn_hist_quantile(h, 0.99));
		else if (pcts)
			rn_buf_adds(&b, ",,,");
		rn_buf_addc(&b, '\n');
	}
	rn_buf_addf(&b, "total,,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",,,%" PRIu64 ",100.00%s\n",
		    calls, errors, total, calls ? total / calls : 0, pcts ? ",,," : "");
	free(rows);
	if (!rn_buf_failed(&b))
		fwrite(b.buf, 1, b.len, out);
	rn_buf_release(&b);
	return ferror(out) ? -EIO : 0;
}
