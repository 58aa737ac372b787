/*
 * antipattern/god_process.c - GodProcess: one process of a multi-process target does most of the
 * work while the others idle. Definition and confidence: below and in assertions/ANTIPATTERNS.md;
 * thresholds in assertions/internal.h; the shared pass in antipattern/pass.h.
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

/* ---- GodProcess -----------------------------------------------------------------------------
 *
 * Definition: in a multi-process target, one process G does most of the work while processes
 * running alongside it idle. busy(P) = lifetime(P) - time P spent waiting: in wait4, waitid,
 * poll/select/epoll, futex, sleeps, pause, sigsuspend, accept, ..., and (spool only) in any
 * call lasting RN_AP_GOD_BLOCKED_CALL_NS or more (a read blocked on a pipe). G is the busiest
 * process; its peers are the other processes alive at the same time, except G's ancestors
 * (waiting for a child is supervision, not idling). With overlap(P) = time P and G were both
 * alive and busy assumed spread evenly over a lifetime:
 *   share       = busy(G) / sum of busy over all processes
 *   idle        = sum over peers of overlap(P) * (1 - busy(P) / lifetime(P)) / sum of overlap(P)
 *   concurrency = largest overlap(P) / lifetime(G)
 *   confidence  = min(ramp_lin(share; SHARE_LO, HI), ramp_lin(idle; IDLE_LO, HI),
 *                     ramp_lin(concurrency; CONC_LO, HI), ramp_log(busy(G); BUSY_LO, HI))
 * A target with one process (threads do not count) never qualifies: confidence 0. The share
 * of the critical path spent in G is reported as evidence.
 */

static void god_span(struct rn_ap_pass *ps, int proc, const struct rn_ap_sc *si,
		     const struct rn_syscall_event *ev)
{
	if ((si->flags & C_WAIT) || ev->duration_ns >= RN_AP_GOD_BLOCKED_CALL_NS)
		ps->procs[proc].blocked_ns += ev->duration_ns;
}

static uint64_t god_blocked(const struct rn_ap_pass *ps, int i)
{
	const struct rn_process *p = &ps->t->procs[i];
	uint64_t w = 0;
	int nr;

	if (ps->spool)
		return ps->procs[i].blocked_ns;
	for (nr = 0; p->sc && nr < ps->sc.n; nr++)
		if (ps->sc.v[nr].flags & C_WAIT)
			w += p->sc[nr].total_ns;
	return w;
}

static uint64_t overlap(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1)
{
	uint64_t lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;

	return hi > lo ? hi - lo : 0;
}

/* What god_finish works out, step by step. */
struct god {
	uint64_t *busy;          /* [nprocs] busy time per process, ns (0: filtered or no life) */
	bool *anc;               /* [nprocs] ancestors of g */
	uint64_t total;          /* busy time of the tree, ns */
	size_t nlive;            /* allowed processes with a lifetime */
	int g;                   /* the busiest process, -1 if none */
	uint64_t g0, g1, glife;  /* its birth, end and lifetime, ns */
	size_t npeers;           /* processes alive alongside it, its ancestors aside */
	uint64_t ov_sum, ov_max; /* their overlaps with it: sum and largest, ns */
	double idle_sum;         /* sum of overlap * idle fraction */
	int top[5], ntop;        /* the longest-overlapping peers, longest first */
	double share, idle, conc, c1, c2, c3, c4;
};

/* Busy time per process, the tree's total, and the busiest process. */
static void god_busiest(const struct rn_ap_pass *ps, struct god *st)
{
	size_t i;

	for (i = 0; i < ps->nprocs; i++) {
		uint64_t life, bl;

		if (!ps->procs[i].allowed)
			continue;
		life = rn_ap_proc_life(ps, (int)i);
		if (!life)
			continue;
		bl = god_blocked(ps, (int)i);
		st->busy[i] = life > bl ? life - bl : 0;
		st->total += st->busy[i];
		st->nlive++;
		if (st->g < 0 || st->busy[i] > st->busy[st->g])
			st->g = (int)i;
	}
}

static uint64_t god_overlap_of(const struct rn_ap_pass *ps, const struct god *st, int i)
{
	return overlap(st->g0, st->g1, rn_ap_proc_begin(ps, i), rn_ap_proc_end(ps, i));
}

/* Keep the five longest-overlapping peers for the evidence (insertion, longest first). */
static void god_keep_top(const struct rn_ap_pass *ps, struct god *st, int i, uint64_t ov)
{
	int k;

	if (st->ntop < 5)
		st->top[st->ntop++] = i;
	else if (ov > god_overlap_of(ps, st, st->top[4]))
		st->top[4] = i;
	else
		return;
	for (k = st->ntop - 1; k > 0; k--) {
		uint64_t o1 = god_overlap_of(ps, st, st->top[k]);
		uint64_t o0 = god_overlap_of(ps, st, st->top[k - 1]);
		int tmp;

		if (o1 <= o0)
			break;
		tmp = st->top[k];
		st->top[k] = st->top[k - 1];
		st->top[k - 1] = tmp;
	}
}

/* The peers of g: every allowed process alive alongside it, except its ancestors. */
static void god_peers(const struct rn_ap_pass *ps, struct god *st)
{
	size_t i;
	int a, depth = 0;

	for (a = ps->t->procs[st->g].parent; a >= 0 && (size_t)a < ps->nprocs && depth++ < 256;
	     a = ps->t->procs[a].parent)
		st->anc[a] = true;
	st->g0 = rn_ap_proc_begin(ps, st->g);
	st->g1 = rn_ap_proc_end(ps, st->g);
	st->glife = st->g1 - st->g0;
	for (i = 0; i < ps->nprocs; i++) {
		uint64_t ov, life;

		if (!ps->procs[i].allowed || (int)i == st->g || st->anc[i])
			continue;
		life = rn_ap_proc_life(ps, (int)i);
		ov = god_overlap_of(ps, st, (int)i);
		if (!life || !ov)
			continue;
		st->npeers++;
		st->ov_sum += ov;
		if (ov > st->ov_max)
			st->ov_max = ov;
		st->idle_sum += (double)ov * (1.0 - (double)st->busy[i] / (double)life);
		god_keep_top(ps, st, (int)i, ov);
	}
}

static void god_evidence(struct rn_ap_pass *ps, const struct god *st, struct rn_buf *b,
			 double confidence)
{
	struct rn_critical_path cp;
	uint64_t cp_g = 0, busy_g = st->busy[st->g];
	size_t i;
	int k;

	rn_critical_path_compute(ps->t, &cp);
	for (i = 0; i < cp.nsegments; i++)
		if (cp.segments[i].proc == st->g && cp.segments[i].end_ns > cp.segments[i].start_ns)
			cp_g += cp.segments[i].end_ns - cp.segments[i].start_ns;
	rn_buf_addf(b,
		    "%s was busy %s of its %s = %.1f%% of the busy time of the tree (%s over "
		    "%zu processes)\n",
		    rn_ap_plabel(ps, st->g).s, rn_ap_dur(busy_g).s, rn_ap_dur(st->glife).s,
		    100.0 * st->share, rn_ap_dur(st->total).s, st->nlive);
	if (st->npeers)
		rn_buf_addf(b,
			    "  %zu process%s alive alongside it idled %.1f%% of the time they "
			    "overlapped it (%s overlapped):\n",
			    st->npeers, st->npeers == 1 ? "" : "es", 100.0 * st->idle,
			    rn_ap_dur(st->ov_sum).s);
	else
		rn_buf_adds(b, "  no other process (its ancestors aside) ran alongside it\n");
	for (k = 0; k < st->ntop; k++) {
		uint64_t life = rn_ap_proc_life(ps, st->top[k]);

		rn_buf_addf(b, "    %s: alive %s, busy %s (%.1f%%)\n",
			    rn_ap_plabel(ps, st->top[k]).s, rn_ap_dur(life).s,
			    rn_ap_dur(st->busy[st->top[k]]).s,
			    pct((double)st->busy[st->top[k]], (double)life));
	}
	if (cp.length_ns)
		rn_buf_addf(b,
			    "  critical path: %.1f%% of its %s in %s, the rest in processes "
			    "waited for (the path follows a waited-for process whether it worked or "
			    "idled)\n",
			    pct((double)cp_g, (double)cp.length_ns), rn_ap_dur(cp.length_ns).s,
			    rn_ap_plabel(ps, st->g).s);
	rn_critical_path_release(&cp);
	rn_buf_addf(b, "  busy = lifetime - time in waiting calls%s\n",
		    ps->spool ? " and in calls of >= 1 ms" :
				" (statistics; the spool was not enabled, "
				"so blocking reads count as busy)");
	rn_buf_addf(b,
		    "  confidence = min(ramp_lin(share %.3f; %.2f..%.2f) %.2f, ramp_lin(idle "
		    "%.3f; %.2f..%.2f) %.2f, ramp_lin(concurrency %.3f; %.2f..%.2f) %.2f, "
		    "ramp_log(busy %s; %s..%s) %.2f) = %.2f",
		    st->share, RN_AP_GOD_SHARE_LO, RN_AP_GOD_SHARE_HI, st->c1, st->idle,
		    RN_AP_GOD_IDLE_LO, RN_AP_GOD_IDLE_HI, st->c2, st->conc, RN_AP_GOD_CONC_LO,
		    RN_AP_GOD_CONC_HI, st->c3, rn_ap_dur(busy_g).s,
		    rn_ap_dur((uint64_t)RN_AP_GOD_BUSY_LO_NS).s,
		    rn_ap_dur((uint64_t)RN_AP_GOD_BUSY_HI_NS).s, st->c4, confidence);
}

static void god_finish(struct rn_ap_pass *ps, struct rn_detection *out)
{
	struct god st;
	struct rn_buf b;
	uint64_t busy_g;

	memset(&st, 0, sizeof(st));
	st.g = -1;
	st.busy = rn_xcalloc(ps->nprocs ? ps->nprocs : 1, sizeof(*st.busy));
	st.anc = rn_xcalloc(ps->nprocs ? ps->nprocs : 1, sizeof(*st.anc));
	god_busiest(ps, &st);
	if (st.nlive < 2 || st.g < 0) {
		out->confidence = 0;
		out->proc = st.g;
		out->evidence = rn_xstrfmt("%zu process%s: GodProcess needs a multi-process target",
					   st.nlive, st.nlive == 1 ? "" : "es");
		goto out_free;
	}
	god_peers(ps, &st);
	busy_g = st.busy[st.g];
	st.share = st.total ? (double)busy_g / (double)st.total : 0;
	st.idle = st.ov_sum ? st.idle_sum / (double)st.ov_sum : 0;
	st.conc = st.glife ? (double)st.ov_max / (double)st.glife : 0;
	st.c1 = rn_ap_ramp_lin(st.share, RN_AP_GOD_SHARE_LO, RN_AP_GOD_SHARE_HI);
	st.c2 = rn_ap_ramp_lin(st.idle, RN_AP_GOD_IDLE_LO, RN_AP_GOD_IDLE_HI);
	st.c3 = rn_ap_ramp_lin(st.conc, RN_AP_GOD_CONC_LO, RN_AP_GOD_CONC_HI);
	st.c4 = rn_ap_ramp_log((double)busy_g, RN_AP_GOD_BUSY_LO_NS, RN_AP_GOD_BUSY_HI_NS);
	out->confidence = st.npeers ? min2(min2(st.c1, st.c2), min2(st.c3, st.c4)) : 0;
	out->proc = st.g;
	out->summary =
		rn_xstrfmt("%s was busy %s = %.1f%% of the tree's busy time while %zu concurrent "
			   "process%s idled %.1f%% of the time",
			   rn_ap_plabel(ps, st.g).s, rn_ap_dur(busy_g).s, 100.0 * st.share,
			   st.npeers, st.npeers == 1 ? "" : "es", 100.0 * st.idle);
	rn_buf_init(&b, 0);
	god_evidence(ps, &st, &b, out->confidence);
	out->evidence = rn_ap_buf_take(&b);
out_free:
	free(st.anc);
	free(st.busy);
}

const struct rn_detector_ops rn_ap_god_process_ops = {
	.id = RN_AP_GOD_PROCESS,
	.recommendation = "spread the dominant process's work over the idle processes, or drop the "
			  "processes that only wait",
	.uses_spool = true,
	.needs_fds = false,
	.init = NULL,
	.span = god_span,
	.finish = god_finish,
};
