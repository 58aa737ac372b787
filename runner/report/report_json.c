#include "report_json.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "report_strace.h"
#include "trace_json.h"

/* Names are the trace model's (trace.h); a value outside its enum, which only a corrupt trace
 * holds, keeps the name this schema has always written for it. */
static const char *proc_end_name(enum rn_proc_end end)
{
	return rn_proc_end_name(end) ? rn_proc_end_name(end) : "running";
}

static const char *run_status_name(enum rn_run_status status)
{
	return rn_run_status_name(status) ? rn_run_status_name(status) : "error";
}

void rn_json_add_syscall(struct rn_buf *b, const struct rn_syscall_event *ev)
{
	int i;

	rn_buf_adds(b, "{" RN_TJ_K(RN_TJ_TYPE) "\"" RN_TJ_TYPE_SYSCALL "\",");
	rn_buf_addf(b, RN_TJ_K(RN_TJ_PID) "%d," RN_TJ_K(RN_TJ_TID) "%d,", (int)ev->pid,
		    (int)ev->tid);
	rn_buf_addf(b, RN_TJ_K(RN_TJ_NR) "%d," RN_TJ_K(RN_TJ_NAME), ev->nr);
	rn_json_add_string(b, rn_syscall_name(ev->nr));
	rn_buf_adds(b, "," RN_TJ_K(RN_TJ_ARGS) "[");
	for (i = 0; i < 6; i++)
		rn_buf_addf(b, "%s\"%#" PRIx64 "\"", i ? "," : "", ev->args[i]);
	rn_buf_adds(b, "]," RN_TJ_K(RN_TJ_PATH));
	rn_json_add_string(b, ev->path);
	if (ev->path2) {
		rn_buf_adds(b, "," RN_TJ_K(RN_TJ_PATH2));
		rn_json_add_string(b, ev->path2);
	}
	if (ev->argv) {
		const char *a = ev->argv;
		uint32_t k;

		rn_buf_adds(b, "," RN_TJ_K(RN_TJ_ARGV) "[");
		for (k = 0; k < ev->nargv; k++, a += strlen(a) + 1) {
			if (k)
				rn_buf_addc(b, ',');
			rn_json_add_string(b, a);
		}
		rn_buf_addf(b, "]," RN_TJ_K(RN_TJ_ARGV_MORE) "%s",
			    ev->argv_more ? "true" : "false");
	}
	if (ev->flags & RN_SC_UNFINISHED)
		rn_buf_adds(b, "," RN_TJ_K(RN_TJ_RET) "null," RN_TJ_K(RN_TJ_ERRNO) "null");
	else if (ev->err)
		rn_buf_addf(b, "," RN_TJ_K(RN_TJ_RET) "%" PRId64 "," RN_TJ_K(RN_TJ_ERRNO) "\"%s\"",
			    ev->ret, rn_errno_name(ev->err));
	else
		rn_buf_addf(b, "," RN_TJ_K(RN_TJ_RET) "%" PRId64 "," RN_TJ_K(RN_TJ_ERRNO) "null",
			    ev->ret);
	rn_buf_addf(b, "," RN_TJ_K(RN_TJ_START_NS) "%" PRIu64, ev->start_ns);
	rn_buf_addf(b, "," RN_TJ_K(RN_TJ_DURATION_NS) "%" PRIu64, ev->duration_ns);
	rn_buf_addf(b, "," RN_TJ_K(RN_TJ_UNFINISHED) "%s," RN_TJ_K(RN_TJ_RESTARTED) "%s}",
		    ev->flags & RN_SC_UNFINISHED ? "true" : "false",
		    ev->flags & RN_SC_RESTARTED ? "true" : "false");
	/* --inject marks, only where set (the schema's other objects are unchanged) */
	if (ev->flags & (RN_SC_INJECTED | RN_SC_DELAYED)) {
		b->len--;
		b->buf[b->len] = '\0';
		if (ev->flags & RN_SC_INJECTED)
			rn_buf_adds(b, "," RN_TJ_K(RN_TJ_INJECTED) "true");
		if (ev->flags & RN_SC_DELAYED)
			rn_buf_adds(b, "," RN_TJ_K(RN_TJ_DELAYED) "true");
		rn_buf_addc(b, '}');
	}
}

void rn_json_add_process(struct rn_buf *b, const struct rn_trace *t, const struct rn_process *p,
			 char event)
{
	rn_buf_addc(b, '{');
	if (event) {
		rn_buf_adds(b, RN_TJ_K(RN_TJ_TYPE) "\"" RN_TJ_TYPE_PROCESS "\",");
		rn_buf_addf(b, RN_TJ_K(RN_TJ_EVENT) "\"%s\",",
			    event == 'f'         ? RN_TJ_EVENT_FORK :
				    event == 'e' ? RN_TJ_EVENT_EXEC :
						   RN_TJ_EVENT_EXIT);
	}
	rn_buf_addf(b, RN_TJ_K(RN_TJ_PID) "%d," RN_TJ_K(RN_TJ_PPID) "%d," RN_TJ_K(RN_TJ_EXE),
		    (int)p->pid, (int)p->ppid);
	rn_json_add_string(b, p->exe);
	rn_buf_adds(b, ",\"comm\":");
	rn_json_add_string(b, p->comm);
	rn_buf_adds(b, ",\"build_id\":");
	rn_json_add_string(b, p->build_id[0] ? p->build_id : NULL);
	rn_buf_addf(b,
		    ",\"elf_machine\":%u,\"nthreads\":%u,\"start_ns\":%" PRIu64
		    ",\"exec_ns\":%" PRIu64 ",\"end_ns\":%" PRIu64 "," RN_TJ_K(RN_TJ_END) "\"%s\"",
		    (unsigned)p->elf_machine, (unsigned)p->nthreads, p->start_ns, p->exec_ns,
		    p->end_ns, proc_end_name(p->end));
	if (p->end == RN_PROC_EXITED)
		rn_buf_addf(b, "," RN_TJ_K(RN_TJ_EXIT_CODE) "%d," RN_TJ_K(RN_TJ_SIGNAL) "null",
			    p->exit_code);
	else if (p->end == RN_PROC_SIGNALED || p->end == RN_PROC_LOST)
		rn_buf_addf(b, "," RN_TJ_K(RN_TJ_EXIT_CODE) "null," RN_TJ_K(RN_TJ_SIGNAL) "\"%s\"",
			    p->term_signal ? rn_signal_name(p->term_signal) : "SIGKILL");
	else
		rn_buf_adds(b, "," RN_TJ_K(RN_TJ_EXIT_CODE) "null," RN_TJ_K(RN_TJ_SIGNAL) "null");
	rn_buf_addf(b, ",\"core_dumped\":%s", p->core_dumped ? "true" : "false");
	if (p->reaped_by >= 0 && (size_t)p->reaped_by < t->nprocs)
		rn_buf_addf(b, ",\"reaped_by\":%d,\"reaped_ns\":%" PRIu64,
			    (int)t->procs[p->reaped_by].pid, p->reaped_ns);
	else
		rn_buf_adds(b, ",\"reaped_by\":null,\"reaped_ns\":null");
	rn_buf_addf(b,
		    ",\"vm_hwm_bytes\":%" PRIu64 ",\"alloc_peak_bytes\":%" PRIu64
		    ",\"alloc_total_bytes\":%" PRIu64 ",\"syscalls\":%" PRIu64
		    ",\"syscall_errors\":%" PRIu64 ",\"syscall_ns\":%" PRIu64 "}",
		    p->vm_hwm_bytes, p->alloc_peak_bytes, p->alloc_total_bytes, p->syscalls,
		    p->syscall_errors, p->syscall_ns);
}

void rn_json_add_summary(struct rn_buf *b, const struct rn_trace *t)
{
	size_t nrows, i;
	struct rn_summary_row *rows = rn_trace_summary_rows(t, &nrows);

	rn_buf_addc(b, '[');
	for (i = 0; i < nrows; i++) {
		const struct rn_syscall_stat *s = &rows[i].s;
		const struct rn_hist *h;

		rn_buf_adds(b, i ? ",{\"syscall\":" : "{\"syscall\":");
		rn_json_add_string(b, rn_syscall_name(rows[i].nr));
		rn_buf_addf(b,
			    ",\"nr\":%d,\"calls\":%" PRIu64 ",\"errors\":%" PRIu64
			    ",\"total_ns\":%" PRIu64 ",\"min_ns\":%" PRIu64 ",\"max_ns\":%" PRIu64
			    "",
			    rows[i].nr, s->calls, s->errors, s->total_ns, s->min_ns, s->max_ns);
		h = rn_trace_latency(t, rows[i].nr);
		if (h)
			rn_buf_addf(b,
				    ",\"p50_ns\":%" PRIu64 ",\"p90_ns\":%" PRIu64
				    ",\"p99_ns\":%" PRIu64,
				    rn_hist_quantile(h, 0.50), rn_hist_quantile(h, 0.90),
				    rn_hist_quantile(h, 0.99));
		rn_buf_addc(b, '}');
	}
	rn_buf_addc(b, ']');
	free(rows);
}

void rn_json_add_run_members(struct rn_buf *b, const struct rn_trace *t)
{
	uint64_t errors = 0;
	size_t i;

	for (i = 0; i < t->nprocs; i++)
		errors += t->procs[i].syscall_errors;
	rn_buf_addf(b, "\"status\":\"%s\",\"error\":", run_status_name(t->status));
	rn_json_add_string(b, t->error);
	rn_buf_addf(b,
		    ",\"start_ns\":%" PRIu64 ",\"end_ns\":%" PRIu64 ",\"wall_ns\":%" PRIu64
		    ",\"process_count\":%zu,\"syscalls\":%" PRIu64 ",\"syscall_errors\":%" PRIu64
		    ",\"peak_rss_bytes\":%" PRIu64 ",\"max_rss_bytes\":%" PRIu64
		    ",\"alloc_peak_bytes\":%" PRIu64 ",\"alloc_total_bytes\":%" PRIu64
		    ",\"filtered\":%s,\"counts_only\":%s",
		    t->start_ns, t->end_ns, rn_trace_wall_ns(t), t->nprocs,
		    rn_trace_total_syscalls(t), errors, t->peak_rss_bytes, t->max_rss_bytes,
		    t->alloc_peak_bytes, t->alloc_total_bytes, t->filtered ? "true" : "false",
		    t->counts_only ? "true" : "false");
}
