/*
 * antipattern/god_process.c - GodProcess: one process of a multi-process target does most of the
 * work while the others idle. Definition and confidence: below and in assertions/ANTIPATTERNS.md;
 * thresholds in antipattern_internal.h; the shared pass in antipattern/pass.h.
 */
#include "pass.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static void god_finish(struct rn_ap_pass *ps, struct rn_detection *out)
{
	uint64_t *busy = rn_xcalloc(ps->nprocs ? ps->nprocs : 1, sizeof(*busy));
	bool *anc = rn_xcalloc(ps->nprocs ? ps->nprocs : 1, sizeof(*anc));
	uint64_t total = 0, g0, g1, glife, ov_sum = 0, ov_max = 0, cp_g = 0;
	double idle_sum = 0, share, idle, conc, c1, c2, c3, c4, c;
	size_t i, nlive = 0, npeers = 0;
	int g = -1, a, depth = 0, top[5], ntop = 0, k;
	struct rn_critical_path cp;
	struct rn_buf b;

	for (i = 0; i < ps->nprocs; i++) {
		uint64_t life, bl;

		if (!ps->procs[i].allowed)
			continue;
		life = rn_ap_proc_life(ps, (int)i);
		if (!life)
			continue;
		bl = god_blocked(ps, (int)i);
		busy[i] = life > bl ? life - bl : 0;
		total += busy[i];
		nlive++;
		if (g < 0 || busy[i] > busy[g])
			g = (int)i;
	}
	if (nlive < 2 || g < 0) {
		out->confidence = 0;
		out->proc = g;
		out->evidence = rn_ap_fmt("%zu process%s: GodProcess needs a multi-process target",
					  nlive, nlive == 1 ? "" : "es");
		goto out_free;
	}
	for (a = ps->t->procs[g].parent; a >= 0 && (size_t)a < ps->nprocs && depth++ < 256;
	     a = ps->t->procs[a].parent)
		anc[a] = true;
	g0 = rn_ap_proc_begin(ps, g);
	g1 = rn_ap_proc_end(ps, g);
	glife = g1 - g0;
	for (i = 0; i < ps->nprocs; i++) {
		uint64_t ov, life;

		if (!ps->procs[i].allowed || (int)i == g || anc[i])
			continue;
		life = rn_ap_proc_life(ps, (int)i);
		ov = overlap(g0, g1, rn_ap_proc_begin(ps, (int)i), rn_ap_proc_end(ps, (int)i));
		if (!life || !ov)
			continue;
		npeers++;
		ov_sum += ov;
		if (ov > ov_max)
			ov_max = ov;
		idle_sum += (double)ov * (1.0 - (double)busy[i] / (double)life);
		/* keep the five longest-overlapping peers for the evidence */
		if (ntop < 5)
			top[ntop++] = (int)i;
		else if (ov >
			 overlap(g0, g1, rn_ap_proc_begin(ps, top[4]), rn_ap_proc_end(ps, top[4])))
			top[4] = (int)i;
		else
			continue;
		for (k = ntop - 1; k > 0; k--) {
			uint64_t o1 = overlap(g0, g1, rn_ap_proc_begin(ps, top[k]),
					      rn_ap_proc_end(ps, top[k]));
			uint64_t o0 = overlap(g0, g1, rn_ap_proc_begin(ps, top[k - 1]),
					      rn_ap_proc_end(ps, top[k - 1]));
			int tmp;

			if (o1 <= o0)
				break;
			tmp = top[k];
			top[k] = top[k - 1];
			top[k - 1] = tmp;
		}
	}
	share = total ? (double)busy[g] / (double)total : 0;
	idle = ov_sum ? idle_sum / (double)ov_sum : 0;
	conc = glife ? (double)ov_max / (double)glife : 0;
	c1 = rn_ap_ramp_lin(share, RN_AP_GOD_SHARE_LO, RN_AP_GOD_SHARE_HI);
	c2 = rn_ap_ramp_lin(idle, RN_AP_GOD_IDLE_LO, RN_AP_GOD_IDLE_HI);
	c3 = rn_ap_ramp_lin(conc, RN_AP_GOD_CONC_LO, RN_AP_GOD_CONC_HI);
	c4 = rn_ap_ramp_log((double)busy[g], RN_AP_GOD_BUSY_LO_NS, RN_AP_GOD_BUSY_HI_NS);
	c = min2(min2(c1, c2), min2(c3, c4));
	out->confidence = npeers ? c : 0;
	out->proc = g;
	rn_critical_path_compute(ps->t, &cp);
	for (i = 0; i < cp.nsegments; i++)
		if (cp.segments[i].proc == g && cp.segments[i].end_ns > cp.segments[i].start_ns)
			cp_g += cp.segments[i].end_ns - cp.segments[i].start_ns;
	out->summary =
	    rn_ap_fmt("%s was busy %s = %.1f%% of the tree's busy time while %zu concurrent "
		      "process%s idled %.1f%% of the time",
		      rn_ap_plabel(ps, g).s, rn_ap_dur(busy[g]).s, 100.0 * share, npeers,
		      npeers == 1 ? "" : "es", 100.0 * idle);
	rn_buf_init(&b, 0);
	rn_buf_addf(&b,
		    "%s was busy %s of its %s = %.1f%% of the busy time of the tree (%s over "
		    "%zu processes)\n",
		    rn_ap_plabel(ps, g).s, rn_ap_dur(busy[g]).s, rn_ap_dur(glife).s, 100.0 * share,
		    rn_ap_dur(total).s, nlive);
	if (npeers)
		rn_buf_addf(&b, "  %zu process%s alive alongside it idled %.1f%% of the time they "
			    "overlapped it (%s overlapped):\n",
			    npeers, npeers == 1 ? "" : "es", 100.0 * idle, rn_ap_dur(ov_sum).s);
	else
		rn_buf_adds(&b, "  no other process (its ancestors aside) ran alongside it\n");
	for (k = 0; k < ntop; k++) {
		uint64_t life = rn_ap_proc_life(ps, top[k]);

		rn_buf_addf(&b, "    %s: alive %s, busy %s (%.1f%%)\n", rn_ap_plabel(ps, top[k]).s,
			    rn_ap_dur(life).s, rn_ap_dur(busy[top[k]]).s,
			    pct((double)busy[top[k]], (double)life));
	}
	if (cp.length_ns)
		rn_buf_addf(
		    &b,
		    "  critical path: %.1f%% of its %s in %s, the rest in processes "
		    "waited for (the path follows a waited-for process whether it worked or "
		    "idled)\n",
		    pct((double)cp_g, (double)cp.length_ns), rn_ap_dur(cp.length_ns).s,
		    rn_ap_plabel(ps, g).s);
	rn_buf_addf(&b, "  busy = lifetime - time in waiting calls%s\n",
		    ps->spool ? " and in calls of >= 1 ms"
			      : " (statistics; the spool was not enabled, "
				"so blocking reads count as busy)");
	rn_buf_addf(&b, "  confidence = min(ramp_lin(share %.3f; %.2f..%.2f) %.2f, ramp_lin(idle "
		    "%.3f; %.2f..%.2f) %.2f, ramp_lin(concurrency %.3f; %.2f..%.2f) %.2f, "
		    "ramp_log(busy %s; %s..%s) %.2f) = %.2f",
		    share, RN_AP_GOD_SHARE_LO, RN_AP_GOD_SHARE_HI, c1, idle, RN_AP_GOD_IDLE_LO,
		    RN_AP_GOD_IDLE_HI, c2, conc, RN_AP_GOD_CONC_LO, RN_AP_GOD_CONC_HI, c3,
		    rn_ap_dur(busy[g]).s, rn_ap_dur((uint64_t)RN_AP_GOD_BUSY_LO_NS).s,
		    rn_ap_dur((uint64_t)RN_AP_GOD_BUSY_HI_NS).s, c4, out->confidence);
	out->evidence = rn_ap_buf_take(&b);
	rn_critical_path_release(&cp);
out_free:
	free(anc);
	free(busy);
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
