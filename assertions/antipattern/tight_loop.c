/*
 * antipattern/tight_loop.c - TightLoop: a thread spins on no-progress syscalls.
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

/* ---- TightLoop ------------------------------------------------------------------------------
 *
 * Definition: a thread spins when it makes the same no-progress syscalls back to back with
 * tiny user-space gaps (<= RN_AP_TL_MAX_GAP_NS between one call's exit and the next call's
 * entry). A call continues a spin run when it is
 *   - sched_yield;
 *   - a poll-family call (poll, ppoll, select, pselect6, epoll_wait, epoll_pwait[2]) that
 *     timed out (returned 0) with a zero timeout argument, or, where the timeout is behind a
 *     pointer, within RN_AP_TL_TINY_WAIT_NS;
 *   - a sleep (nanosleep, clock_nanosleep) that lasted less than RN_AP_TL_TINY_WAIT_NS;
 *   - any other call identical to one of the thread's last RN_AP_TL_SIGS distinct calls (same
 *     number, same arguments as far as the call takes them, same decoded path, same result),
 *     taking under
 *     RN_AP_TL_MAX_GAP_NS itself, unless it moved data (a positive read/write/getdents/...
 *     return is progress, not spinning) or it is a memory, futex, exit or exec call.
 * Confidence, per process, best process reported:
 *   min(ramp_log(spin calls; RUN_LO, RUN_HI), ramp_lin(spin share; SHARE_LO, SHARE_HI))
 * where spin calls are the calls in its runs of >= RN_AP_TL_EPISODE_MIN calls and spin share
 * = wall time of those runs / its lifetime. Counting all such runs rather than the longest
 * keeps the confidence stable when preemption splits one spin into several runs (a gap over
 * RN_AP_TL_MAX_GAP_NS ends a run). The longest run is shown as evidence.
 * Without the spool only sched_yield storms can be seen (statistics): confidence
 * ramp_log(sched_yield calls; YIELD_LO, YIELD_HI); nothing there means NO DATA.
 */

static uint64_t rel_ns(const struct rn_ap_pass *ps, uint64_t ns)
{
	uint64_t base = ps->t->start_ns;

	if (!base && ps->t->nprocs)
		base = ps->t->procs[0].start_ns;
	return ns > base ? ns - base : 0;
}
/* Hash of a call's signature: number, compared arguments, result, decoded path. */
static uint64_t ev_sig_hash(const struct rn_syscall_event *ev, int nargs)
{
	uint64_t h = mix64((uint64_t)(uint32_t)ev->nr << 32 ^ (uint64_t)(uint32_t)ev->err);
	int i;

	h = mix64(h ^ (uint64_t)ev->ret);
	for (i = 0; i < nargs && i < 6; i++)
		h = mix64(h ^ ev->args[i]);
	return ev->path ? rn_ap_str_key(ev->path, h) : h;
}

/* Is `ev` (whose signature hashes to `h`) the call of signature `a`? */
static bool sig_equal(const struct rn_ap_tl_sig *a, const struct rn_syscall_event *ev, int nargs,
		      uint64_t h)
{
	int i;

	if (a->hash != h || a->nr != ev->nr || a->ret != ev->ret || a->err != ev->err)
		return false;
	for (i = 0; i < nargs && i < 6; i++)
		if (a->args[i] != ev->args[i])
			return false;
	return true;
}

/* Move the signature of `ev` to the front of the history; returns its slot (0). */
static struct rn_ap_tl_sig *sig_touch(struct rn_ap_tl_thread *th, const struct rn_syscall_event *ev,
				      int nargs, uint64_t sh)
{
	struct rn_ap_tl_sig s;
	int i, found = -1;

	for (i = 0; i < th->nhist; i++)
		if (sig_equal(&th->hist[i], ev, nargs, sh)) {
			found = i;
			break;
		}
	if (found >= 0) {
		s = th->hist[found];
	} else {
		memset(&s, 0, sizeof(s));
		s.nr = ev->nr;
		s.err = ev->err;
		s.ret = ev->ret;
		memcpy(s.args, ev->args, sizeof(s.args));
		s.hash = sh;
		found = th->nhist < RN_AP_TL_SIGS ? th->nhist++ : RN_AP_TL_SIGS - 1;
	}
	for (i = found; i > 0; i--)
		th->hist[i] = th->hist[i - 1];
	th->hist[0] = s;
	return &th->hist[0];
}

static void tl_end_run(struct rn_ap_pass *ps, struct rn_ap_tl_thread *th)
{
	struct rn_ap_tl_cur *r = &th->run;
	struct rn_ap_proc *pp = &ps->procs[th->proc];
	int i;

	if (r->len >= RN_AP_TL_EPISODE_MIN) {
		pp->spin_ns += r->end_ns > r->start_ns ? r->end_ns - r->start_ns : 0;
		pp->spin_runs++;
		pp->spin_calls += r->len;
	}
	if (r->len >= 2 && (!pp->best || r->len > pp->best->c.len)) {
		struct rn_ap_tl_run *br;
		int j;

		if (!pp->best)
			pp->best = rn_xcalloc(1, sizeof(*pp->best));
		br = pp->best;
		br->c = *r;
		br->nsigs = 0;
		for (i = 0; i < th->nhist; i++) {
			if (!th->hist[i].count)
				continue;
			/* most frequent first */
			for (j = br->nsigs; j > 0 && br->sigs[j - 1].count < th->hist[i].count; j--)
				br->sigs[j] = br->sigs[j - 1];
			br->sigs[j] = th->hist[i];
			br->nsigs++;
		}
	}
	for (i = 0; i < th->nhist; i++)
		th->hist[i].count = 0;
	memset(r, 0, sizeof(*r));
	th->pre = false;
}

/* How a call relates to spinning (enum tl_step). */
enum tl_step {
	TL_BREAK, /* progress or never-spin: ends the run */
	TL_START, /* a no-progress call not seen just before: may start a run */
	TL_SPIN,  /* continues (or starts) a run */
};

static enum tl_step tl_classify(const struct rn_ap_pass *ps, const struct rn_ap_tl_thread *th,
				const struct rn_ap_sc *si, const struct rn_syscall_event *ev,
				uint64_t sh)
{
	bool timed = !ps->t->counts_only; /* durations are meaningful */
	int i;

	if ((ev->flags & RN_SC_UNFINISHED) || (si->flags & C_NOSPIN))
		return TL_BREAK;
	if ((si->flags & C_PROGRESS) && !ev->err && ev->ret > 0)
		return TL_BREAK;
	if (si->flags & C_YIELD)
		return TL_SPIN;
	if (si->flags & C_POLL) {
		if (ev->err)
			return TL_START;
		if (ev->ret != 0)
			return TL_BREAK;
		if (si->tmo_arg >= 0)
			return (int32_t)(uint32_t)ev->args[si->tmo_arg] == 0 ? TL_SPIN : TL_BREAK;
		return timed && ev->duration_ns < RN_AP_TL_TINY_WAIT_NS ? TL_SPIN : TL_BREAK;
	}
	if (si->flags & C_SLEEP)
		return timed && !ev->err && ev->duration_ns < RN_AP_TL_TINY_WAIT_NS ? TL_SPIN :
										      TL_BREAK;
	if (timed && ev->duration_ns >= RN_AP_TL_MAX_GAP_NS)
		return TL_BREAK; /* a blocking call: a loop around it is not tight */
	for (i = 0; i < th->nhist; i++)
		if (sig_equal(&th->hist[i], ev, si->nargs, sh))
			return TL_SPIN;
	return TL_START;
}

static void tl_span(struct rn_ap_pass *ps, int proc, const struct rn_ap_sc *si,
		    const struct rn_syscall_event *ev)
{
	struct rn_ap_tl_thread *th =
		rn_antipattern_map_get(&ps->threads, (uint64_t)(uint32_t)ev->tid, true);
	enum tl_step step;
	bool gap_ok, pre;
	uint64_t sh = ev_sig_hash(ev, si->nargs);
	uint64_t end = ev->start_ns + ev->duration_ns;
	struct rn_ap_tl_sig *s;

	if (!th)
		return;
	if (!th->seen) {
		th->proc = proc;
		th->seen = true;
		th->last_end_ns = ev->start_ns;
	} else if (th->proc != proc) {
		/* tid reused by another process: start over */
		tl_end_run(ps, th);
		th->nhist = 0;
		th->proc = proc;
	}
	step = tl_classify(ps, th, si, ev, sh);
	gap_ok = ev->start_ns <= th->last_end_ns ||
		ev->start_ns - th->last_end_ns <= RN_AP_TL_MAX_GAP_NS;
	if (th->run.len && (step != TL_SPIN || !gap_ok))
		tl_end_run(ps, th);
	if (step == TL_SPIN && !th->run.len) {
		th->run.tid = ev->tid;
		th->run.start_ns = ev->start_ns;
		th->pre = th->pend && gap_ok && th->nhist;
		if (th->pre) {
			th->pre_hash = th->hist[0].hash;
			th->pre_start_ns = th->pend_start_ns;
			th->pre_ns = th->pend_ns;
		}
	}
	pre = th->pre && step == TL_SPIN && th->pre_hash == sh;
	s = sig_touch(th, ev, si->nargs, sh);
	if (step == TL_SPIN) {
		if (pre) {
			th->pre = false;
			th->run.start_ns = th->pre_start_ns;
			th->run.len++;
			th->run.call_ns += th->pre_ns;
			s->count++;
		}
		th->run.len++;
		th->run.end_ns = end;
		th->run.call_ns += ev->duration_ns;
		rn_ap_callers_add(&th->run.cl, ps->ev_caller);
		s->count++;
	}
	th->pend = step == TL_START;
	th->pend_start_ns = ev->start_ns;
	th->pend_ns = ev->duration_ns;
	th->last_end_ns = end;
	if (si->flags & C_EXIT) {
		/* The thread is gone: keep the table to live threads. */
		tl_end_run(ps, th);
		rn_antipattern_map_del(&ps->threads, th);
	}
}

/* Without the spool only sched_yield storms are visible (statistics). */
static void tl_finish_stats(struct rn_ap_pass *ps, struct rn_detection *out)
{
	size_t i;
	int best = -1;
	int nr = rn_syscall_lookup("sched_yield");
	uint64_t calls = 0;

	for (i = 0; nr >= 0 && i < ps->nprocs; i++) {
		const struct rn_process *p = &ps->t->procs[i];

		if (ps->procs[i].allowed && p->sc && p->sc[nr].calls > calls) {
			calls = p->sc[nr].calls;
			best = (int)i;
		}
	}
	out->confidence = rn_ap_ramp_log((double)calls, RN_AP_TL_YIELD_LO, RN_AP_TL_YIELD_HI);
	if (out->confidence <= 0) {
		out->no_data = true;
		out->evidence =
			rn_xstrfmt("the spool was not enabled: TightLoop needs every syscall "
				   "span (statistics show no sched_yield storm)");
		return;
	}
	out->proc = best;
	out->summary = rn_xstrfmt("%s called sched_yield %" PRIu64 " times",
				  rn_ap_plabel(ps, best).s, calls);
	out->evidence = rn_xstrfmt("%s: %" PRIu64 " sched_yield calls (per-process statistics; "
				   "the spool was not enabled, so runs and polls were not seen)\n"
				   "confidence = ramp_log(calls %" PRIu64 "; %.0f..%.0f) = %.2f",
				   rn_ap_plabel(ps, best).s, calls, calls, RN_AP_TL_YIELD_LO,
				   RN_AP_TL_YIELD_HI, out->confidence);
}

/* The finding for process `best`: its longest run and its spinning share. */
static void tl_report(struct rn_ap_pass *ps, struct rn_detection *out, int best, double best_conf,
		      double conf_run, double conf_share)
{
	const struct rn_ap_proc *pp = &ps->procs[best];
	const struct rn_ap_tl_run *br = pp->best;
	const struct rn_ap_tl_cur *r = &br->c;
	uint64_t wall = r->end_ns > r->start_ns ? r->end_ns - r->start_ns : 0;
	uint64_t life = rn_ap_proc_life(ps, best);
	double gap = r->len > 1 && wall > r->call_ns ?
		(double)(wall - r->call_ns) / (double)(r->len - 1) :
		0;
	struct rn_buf b;
	int k;

	out->confidence = best_conf;
	out->proc = best;
	rn_buf_init(&b, 0);
	for (k = 0; k < br->nsigs; k++)
		if (!k || br->sigs[k].nr != br->sigs[0].nr)
			rn_buf_addf(&b, "%s%s", k ? "/" : "", rn_syscall_name(br->sigs[k].nr));
	out->summary =
		rn_xstrfmt("%s: %" PRIu64 " no-progress calls in spin runs, the longest %" PRIu64
			   " consecutive %s calls (spinning %.1f%% of its lifetime)",
			   rn_ap_plabel(ps, best).s, pp->spin_calls, r->len, b.buf,
			   pct((double)pp->spin_ns, (double)life));
	rn_buf_reset(&b);
	rn_buf_addf(&b,
		    "%s, thread %d: longest run %" PRIu64 " consecutive no-progress "
		    "calls\n",
		    rn_ap_plabel(ps, best).s, (int)r->tid, r->len);
	for (k = 0; k < br->nsigs; k++) {
		rn_buf_adds(&b, "  calls: ");
		rn_ap_add_call(&b, &ps->sc, br->sigs[k].nr, br->sigs[k].args, br->sigs[k].ret,
			       br->sigs[k].err);
		rn_buf_addf(&b, " x%" PRIu64 "\n", br->sigs[k].count);
	}
	rn_buf_addf(&b,
		    "  run: %s from +%s, mean gap %s, %.0f calls/s, %.0f%% of it "
		    "inside the calls\n",
		    rn_ap_dur(wall).s, rn_ap_dur(rel_ns(ps, r->start_ns)).s,
		    rn_ap_dur((uint64_t)gap).s, wall ? (double)r->len * 1e9 / (double)wall : 0.0,
		    pct((double)r->call_ns, (double)wall));
	rn_ap_add_caller(ps, &b, &r->cl, "calls of the run");
	rn_buf_addf(&b,
		    "  spinning: %" PRIu64 " calls, %s in %" PRIu64 " run%s of >= %d "
		    "calls = %.1f%% of the process lifetime (%s)\n",
		    pp->spin_calls, rn_ap_dur(pp->spin_ns).s, pp->spin_runs,
		    pp->spin_runs == 1 ? "" : "s", RN_AP_TL_EPISODE_MIN,
		    pct((double)pp->spin_ns, (double)life), rn_ap_dur(life).s);
	rn_buf_addf(&b,
		    "  confidence = min(ramp_log(spin calls %" PRIu64 "; %.0f..%.0f) "
		    "%.2f, ramp_lin(share %.3f; %.2f..%.2f) %.2f) = %.2f",
		    pp->spin_calls, RN_AP_TL_RUN_LO, RN_AP_TL_RUN_HI, conf_run,
		    life ? (double)pp->spin_ns / (double)life : 0.0, RN_AP_TL_SHARE_LO,
		    RN_AP_TL_SHARE_HI, conf_share, best_conf);
	if (ps->threads.dropped)
		rn_buf_addf(&b, "\n  note: %" PRIu64 " threads beyond %u were not followed",
			    ps->threads.dropped, RN_AP_MAX_THREADS);
	out->evidence = rn_ap_buf_take(&b);
}

static void tl_finish(struct rn_ap_pass *ps, struct rn_detection *out)
{
	size_t i;
	int best = -1;
	double best_conf = -1, best_len = -1, conf_run = 0, conf_share = 0;

	if (!ps->spool) {
		tl_finish_stats(ps, out);
		return;
	}
	for (i = 0; i < ps->threads.cap; i++)
		if (ps->threads.keys[i])
			tl_end_run(ps, rn_antipattern_map_slot(&ps->threads, i));
	for (i = 0; i < ps->nprocs; i++) {
		const struct rn_ap_proc *pp = &ps->procs[i];
		double life, share, c1, c2, c;

		if (!pp->allowed || !pp->best)
			continue;
		life = (double)rn_ap_proc_life(ps, (int)i);
		share = life > 0 ? (double)pp->spin_ns / life : 0;
		if (share > 1)
			share = 1;
		c1 = rn_ap_ramp_log((double)pp->spin_calls, RN_AP_TL_RUN_LO, RN_AP_TL_RUN_HI);
		c2 = rn_ap_ramp_lin(share, RN_AP_TL_SHARE_LO, RN_AP_TL_SHARE_HI);
		c = min2(c1, c2);
		if (c > best_conf || (c == best_conf && (double)pp->best->c.len > best_len)) {
			best = (int)i;
			best_conf = c;
			best_len = (double)pp->best->c.len;
			conf_run = c1;
			conf_share = c2;
		}
	}
	if (best < 0) {
		out->confidence = 0;
		out->evidence =
			rn_xstrfmt("no run of repeated no-progress calls in %" PRIu64 " spans",
				   ps->spans);
		return;
	}
	tl_report(ps, out, best, best_conf, conf_run, conf_share);
}

static void tl_init(struct rn_ap_pass *ps)
{
	rn_antipattern_map_init(&ps->threads, sizeof(struct rn_ap_tl_thread), RN_AP_MAX_THREADS);
}

const struct rn_detector_ops rn_ap_tight_loop_ops = {
	.id = RN_AP_TIGHT_LOOP,
	.recommendation = "block instead of spinning: wait with a real timeout, a blocking read or "
			  "a futex/condition variable, and drop sched_yield loops",
	.uses_spool = true,
	.needs_fds = false,
	.init = tl_init,
	.span = tl_span,
	.finish = tl_finish,
};
