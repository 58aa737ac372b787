/*
 * antipattern/error_storm.c - ErrorStorm: many failures of one syscall with one errno.
 * Definition and confidence: below and in assertions/ANTIPATTERNS.md; thresholds in
 * assertions/internal.h; the shared pass in antipattern/pass.h.
 */
#include "pass.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "xalloc.h"

/* ---- ErrorStorm -----------------------------------------------------------------------------
 *
 * Definition: one process fails the same syscall with the same errno many times (ENOENT
 * probing of paths, EAGAIN spinning on a non-blocking fd, EBADF/EINVAL loops). futex
 * failures (EAGAIN, ETIMEDOUT) are its normal protocol and restarted calls are the kernel's
 * business: both are skipped. Confidence, per (process, syscall, errno), best reported:
 *   min(ramp_log(failures; ERR_LO, ERR_HI),
 *       ramp_lin(failures / calls of that syscall in the process; ERR_SHARE_LO, ERR_SHARE_HI))
 * Without the spool the per-process statistics give failures per syscall (errno unknown).
 */

static uint64_t err_key(pid_t pid, int nr, int err)
{
	return (uint64_t)(uint32_t)pid << 32 | (uint64_t)(nr & 0xffff) << 16 |
		(uint64_t)(err & 0xffff);
}

static void err_span(struct rn_ap_pass *ps, int proc, const struct rn_ap_sc *si,
		     const struct rn_syscall_event *ev)
{
	struct rn_ap_err *e;

	if (!ev->err || (ev->flags & (RN_SC_RESTARTED | RN_SC_UNFINISHED)) || (si->flags & C_NOERR))
		return;
	ps->failed++;
	e = rn_antipattern_map_get(&ps->errs, err_key(ev->pid, ev->nr, ev->err), true);
	if (!e)
		return;
	if (!e->count) {
		e->proc = proc;
		e->nr = ev->nr;
		e->err = ev->err;
		e->first_ns = ev->start_ns;
	}
	e->count++;
	e->ns += ev->duration_ns;
	e->last_ns = ev->start_ns + ev->duration_ns;
	rn_ap_callers_add(&e->cl, ps->ev_caller);
	if (ev->path && ev->path[0]) {
		if (!e->path1[0])
			rn_ap_keep_path(e->path1, sizeof(e->path1), ev->path);
		else if (strcmp(e->path1, ev->path))
			rn_ap_keep_path(e->path2, sizeof(e->path2), ev->path);
	}
}

/* Calls of syscall `nr` made by process `proc` (statistics), at least `seen`. */
static uint64_t proc_calls(const struct rn_ap_pass *ps, int proc, int nr, uint64_t seen)
{
	const struct rn_process *p = &ps->t->procs[proc];
	uint64_t n = 0;

	if (p->sc && nr >= 0 && nr < rn_syscall_table_size())
		n = p->sc[nr].calls;
	return n > seen ? n : seen;
}

static void err_cand(struct rn_ap_pass *ps, struct rn_ap_top *tp, int proc, int nr, int err,
		     uint64_t count, uint64_t ns, uint64_t span_ns, const char *path1,
		     const char *path2, const struct rn_ap_callers *cl)
{
	uint64_t calls = proc_calls(ps, proc, nr, count), life = rn_ap_proc_life(ps, proc);
	double share = calls ? (double)count / (double)calls : 0;
	double c1 = rn_ap_ramp_log((double)count, RN_AP_ERR_LO, RN_AP_ERR_HI);
	double c2 = rn_ap_ramp_lin(share, RN_AP_ERR_SHARE_LO, RN_AP_ERR_SHARE_HI);
	double c = min2(c1, c2);
	const char *ename = err ? rn_errno_name(err) : "an error";
	struct rn_ap_cand c0;
	struct rn_buf b;

	if (!rn_ap_top_wants(tp, c, (double)count))
		return;
	memset(&c0, 0, sizeof(c0));
	c0.conf = c;
	c0.mag = (double)count;
	c0.proc = proc;
	c0.summary = rn_xstrfmt("%s: %" PRIu64 " of %" PRIu64 " %s calls failed with %s",
				rn_ap_plabel(ps, proc).s, count, calls, rn_syscall_name(nr), ename);
	rn_buf_init(&b, 0);
	rn_buf_addf(&b, "%s: %" PRIu64 " of %" PRIu64 " %s calls failed with %s (%.1f%%)\n",
		    rn_ap_plabel(ps, proc).s, count, calls, rn_syscall_name(nr), ename,
		    pct((double)count, (double)calls));
	if (path1 && path1[0])
		rn_buf_addf(&b, "  paths: %s%s%s\n", path1, path2 && path2[0] ? ", ... " : "",
			    path2 ? path2 : "");
	if (span_ns)
		rn_buf_addf(&b,
			    "  time: %s inside the failing calls, spread over %s = %.1f%% "
			    "of the process lifetime (%s)\n",
			    rn_ap_dur(ns).s, rn_ap_dur(span_ns).s,
			    pct((double)span_ns, (double)life), rn_ap_dur(life).s);
	else
		rn_buf_addf(&b,
			    "  time: %s inside the failing calls (per-process statistics; "
			    "the spool was not enabled, errno unknown)\n",
			    rn_ap_dur(ns).s);
	if (cl)
		rn_ap_add_caller(ps, &b, cl, "failing calls");
	rn_buf_addf(&b,
		    "  confidence = min(ramp_log(failures %" PRIu64 "; %.0f..%.0f) %.2f, "
		    "ramp_lin(share %.3f; %.2f..%.2f) %.2f) = %.2f",
		    count, RN_AP_ERR_LO, RN_AP_ERR_HI, c1, share, RN_AP_ERR_SHARE_LO,
		    RN_AP_ERR_SHARE_HI, c2, c);
	c0.evidence = rn_ap_buf_take(&b);
	rn_ap_top_put(tp, &c0);
}

static void err_finish(struct rn_ap_pass *ps, struct rn_detection *out)
{
	struct rn_ap_top tp;
	size_t i;
	char note[128];

	memset(&tp, 0, sizeof(tp));
	if (ps->spool) {
		for (i = 0; i < ps->errs.cap; i++) {
			const struct rn_ap_err *e = rn_antipattern_map_slot(&ps->errs, i);

			if (!ps->errs.keys[i])
				continue;
			err_cand(ps, &tp, e->proc, e->nr, e->err, e->count, e->ns,
				 e->last_ns > e->first_ns ? e->last_ns - e->first_ns : 1, e->path1,
				 e->path2, &e->cl);
		}
	} else {
		int nr, n = rn_syscall_table_size();

		for (i = 0; i < ps->nprocs; i++) {
			const struct rn_process *p = &ps->t->procs[i];

			if (!ps->procs[i].allowed || !p->sc)
				continue;
			for (nr = 0; nr < n; nr++)
				if (p->sc[nr].errors &&
				    !(rn_ap_sc_of(&ps->sc, nr)->flags & C_NOERR))
					err_cand(ps, &tp, (int)i, nr, 0, p->sc[nr].errors,
						 p->sc[nr].total_ns * p->sc[nr].errors /
							 (p->sc[nr].calls ? p->sc[nr].calls : 1),
						 0, NULL, NULL, NULL);
		}
	}
	if (!tp.n) {
		out->confidence = 0;
		out->evidence = rn_xstrfmt("no failing syscalls (%" PRIu64 " spans%s)", ps->spans,
					   ps->spool ? "" : ", statistics only");
		return;
	}
	snprintf(note, sizeof(note),
		 "%" PRIu64 " (syscall, errno) pairs beyond %u were not counted", ps->errs.dropped,
		 RN_AP_MAX_ERRORS);
	rn_ap_top_out(ps, &tp, out, ps->errs.dropped ? note : NULL);
	rn_ap_top_release(&tp);
}

static void err_init(struct rn_ap_pass *ps)
{
	rn_antipattern_map_init(&ps->errs, sizeof(struct rn_ap_err), RN_AP_MAX_ERRORS);
}

const struct rn_detector_ops rn_ap_error_storm_ops = {
	.id = RN_AP_ERROR_STORM,
	.recommendation = "stop retrying the failing call: check once, cache negative lookups, or "
			  "wait for readiness (poll/epoll) instead of retrying EAGAIN",
	.uses_spool = true,
	.needs_fds = false,
	.init = err_init,
	.span = err_span,
	.finish = err_finish,
};
