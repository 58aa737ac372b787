/*
 * antipattern/memory_churn.c - MemoryChurn: short-lived anonymous mappings and brk cycles.
 * Definition and confidence: below and in assertions/ANTIPATTERNS.md; thresholds in
 * antipattern_internal.h; the shared pass in antipattern/pass.h.
 */
#include "pass.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

/* ---- MemoryChurn ----------------------------------------------------------------------------
 *
 * Definition: a process maps anonymous memory and unmaps it again within
 * RN_AP_CHURN_SHORT_NS (mmap(MAP_ANONYMOUS) followed by munmap of the same address; mremap
 * moves keep the mapping alive), or shrinks its heap with brk and grows it back within the
 * same time, over and over. Each costs two syscalls plus page faults on fresh pages.
 * churn = short-lived mappings + brk shrink/grow cycles; base = anonymous mmaps + brk growths.
 * Confidence per process:
 *   min(ramp_log(churn; CHURN_LO, CHURN_HI), ramp_lin(churn / base; SHARE_LO, SHARE_HI))
 * Without the spool: min(ramp_log(munmap calls; CHURN_LO, CHURN_HI),
 *   ramp_log(alloc_total_bytes / alloc_peak_bytes; TURNOVER_LO, TURNOVER_HI)).
 * Mappings are followed in a direct-mapped cache of RN_AP_MAP_SLOTS entries: a collision
 * forgets the older mapping, which can only undercount.
 */

static struct rn_ap_map_slot *map_slot_of(struct rn_ap_pass *ps, pid_t pid, uint64_t addr)
{
	uint64_t h = mix64((uint64_t)(uint32_t)pid << 48 ^ addr);

	return &ps->maps[h & (RN_AP_MAP_SLOTS - 1)];
}

static void churn_span(struct rn_ap_pass *ps, int proc, const struct rn_ap_sc *si,
		       const struct rn_syscall_event *ev)
{
	struct rn_ap_proc *pp = &ps->procs[proc];
	struct rn_ap_map_slot *m;
	uint64_t end = ev->start_ns + ev->duration_ns;

	if (!(si->flags & (C_MMAP | C_MUNMAP | C_MREMAP | C_BRK)))
		return;
	pp->mm_calls++;
	pp->mm_ns += ev->duration_ns;
	if (ev->err || (ev->flags & RN_SC_UNFINISHED))
		return;
	if (si->flags & C_MMAP) {
		if (!(ev->args[3] & 0x20)) /* MAP_ANONYMOUS on every supported architecture */
			return;
		pp->anon_maps++;
		m = map_slot_of(ps, ev->pid, (uint64_t)ev->ret);
		m->pid = ev->pid;
		m->addr = (uint64_t)ev->ret;
		m->len = ev->args[1];
		m->map_ns = end;
	} else if (si->flags & C_MUNMAP) {
		pp->unmaps++;
		m = map_slot_of(ps, ev->pid, ev->args[0]);
		if (m->pid != ev->pid || m->addr != ev->args[0])
			return;
		if (ev->start_ns >= m->map_ns && ev->start_ns - m->map_ns < RN_AP_CHURN_SHORT_NS) {
			pp->short_unmaps++;
			pp->short_bytes += m->len;
			rn_ap_callers_add(&pp->churn_cl, ps->ev_caller);
		}
		m->pid = 0;
	} else if (si->flags & C_MREMAP) {
		struct rn_ap_map_slot old;

		m = map_slot_of(ps, ev->pid, ev->args[0]);
		if (m->pid != ev->pid || m->addr != ev->args[0])
			return;
		old = *m;
		m->pid = 0;
		m = map_slot_of(ps, ev->pid, (uint64_t)ev->ret);
		*m = old;
		m->addr = (uint64_t)ev->ret;
		m->len = ev->args[2];
	} else {
		uint64_t nb = (uint64_t)ev->ret;

		if (!ev->args[0] || !pp->brk_cur) {
			pp->brk_cur = nb;
			return;
		}
		if (nb > pp->brk_cur) {
			pp->brk_grows++;
			if (pp->brk_shrunk &&
			    ev->start_ns - pp->brk_shrink_ns < RN_AP_CHURN_SHORT_NS) {
				pp->brk_cycles++;
				rn_ap_callers_add(&pp->churn_cl, ps->ev_caller);
			}
			pp->brk_shrunk = false;
		} else if (nb < pp->brk_cur) {
			pp->brk_shrunk = true;
			pp->brk_shrink_ns = end;
		}
		pp->brk_cur = nb;
	}
}

/* The process whose churn is most confident, and the terms of its confidence. */
struct churn_best {
	int proc;  /* index of the process, -1 when none churned */
	double c;  /* confidence, min(c1, c2) */
	double c1; /* the churn's ramp */
	double c2; /* the share's (spool) or the turnover's (statistics) ramp */
	double x;  /* churn: short unmaps and brk cycles (spool) or munmap calls */
	double y;  /* share of mappings that churned (spool) or turnover */
};

/* The evidence from the spool: short-lived mappings and brk cycles of w->proc. */
static void spool_evidence(struct rn_ap_pass *ps, const struct churn_best *w,
			   struct rn_detection *out, struct rn_buf *b)
{
	const struct rn_ap_proc *pp = &ps->procs[w->proc];
	const struct rn_process *p = &ps->t->procs[w->proc];
	uint64_t life = rn_ap_proc_life(ps, w->proc);

	out->summary = rn_ap_fmt("%s: %" PRIu64 " anonymous mappings lived under %s, %" PRIu64
				 " brk shrink/grow cycles",
				 rn_ap_plabel(ps, w->proc).s, pp->short_unmaps,
				 rn_ap_dur(RN_AP_CHURN_SHORT_NS).s, pp->brk_cycles);
	rn_buf_addf(b,
		    "%s: %" PRIu64 " of %" PRIu64 " anonymous mappings were unmapped "
		    "within %s (%s in them); %" PRIu64 " brk shrink/grow cycles of %" PRIu64
		    " growths\n",
		    rn_ap_plabel(ps, w->proc).s, pp->short_unmaps, pp->anon_maps,
		    rn_ap_dur(RN_AP_CHURN_SHORT_NS).s, rn_ap_bytes(pp->short_bytes).s,
		    pp->brk_cycles, pp->brk_grows);
	rn_buf_addf(b,
		    "  time: %s in %" PRIu64 " mmap/munmap/mremap/brk calls = %.1f%% "
		    "of the process lifetime (%s); faults on fresh pages come on top\n",
		    rn_ap_dur(pp->mm_ns).s, pp->mm_calls, pct((double)pp->mm_ns, (double)life),
		    rn_ap_dur(life).s);
	if (p->alloc_peak_bytes)
		rn_buf_addf(b, "  turnover: %s mapped over its life for a peak of %s\n",
			    rn_ap_bytes(p->alloc_total_bytes).s,
			    rn_ap_bytes(p->alloc_peak_bytes).s);
	rn_ap_add_caller(ps, b, &pp->churn_cl, "short-lived unmaps and brk regrowths");
	rn_buf_addf(b,
		    "  confidence = min(ramp_log(churn %.0f; %.0f..%.0f) %.2f, "
		    "ramp_lin(share %.3f; %.2f..%.2f) %.2f) = %.2f",
		    w->x, RN_AP_CHURN_LO, RN_AP_CHURN_HI, w->c1, w->y, RN_AP_CHURN_SHARE_LO,
		    RN_AP_CHURN_SHARE_HI, w->c2, w->c);
}

/* The evidence from the per-process statistics (no spool): munmap calls and turnover. */
static void stats_evidence(struct rn_ap_pass *ps, const struct churn_best *w,
			   struct rn_detection *out, struct rn_buf *b)
{
	const struct rn_process *p = &ps->t->procs[w->proc];

	out->summary =
		rn_ap_fmt("%s: %.0f munmap calls, %s mapped for a peak of %s",
			  rn_ap_plabel(ps, w->proc).s, w->x, rn_ap_bytes(p->alloc_total_bytes).s,
			  rn_ap_bytes(p->alloc_peak_bytes).s);
	rn_buf_addf(b,
		    "%s: %.0f munmap calls; %s mapped anonymously or by brk over its "
		    "life for a peak of %s (turnover %.1f; per-process statistics, the "
		    "spool was not enabled)\n",
		    rn_ap_plabel(ps, w->proc).s, w->x, rn_ap_bytes(p->alloc_total_bytes).s,
		    rn_ap_bytes(p->alloc_peak_bytes).s, w->y);
	rn_buf_addf(b,
		    "  confidence = min(ramp_log(munmaps %.0f; %.0f..%.0f) %.2f, "
		    "ramp_log(turnover %.1f; %.0f..%.0f) %.2f) = %.2f",
		    w->x, RN_AP_CHURN_LO, RN_AP_CHURN_HI, w->c1, w->y, RN_AP_CHURN_TURNOVER_LO,
		    RN_AP_CHURN_TURNOVER_HI, w->c2, w->c);
}

static void churn_finish(struct rn_ap_pass *ps, struct rn_detection *out)
{
	size_t i;
	int nr_munmap = rn_syscall_lookup("munmap");
	struct churn_best w = { .proc = -1 };
	struct rn_buf b;

	for (i = 0; i < ps->nprocs; i++) {
		const struct rn_ap_proc *pp = &ps->procs[i];
		const struct rn_process *p = &ps->t->procs[i];
		double x, y, c1, c2, c;

		if (!pp->allowed)
			continue;
		if (ps->spool) {
			uint64_t base = pp->anon_maps + pp->brk_grows;

			x = (double)(pp->short_unmaps + pp->brk_cycles);
			y = base ? x / (double)base : 0;
			c1 = rn_ap_ramp_log(x, RN_AP_CHURN_LO, RN_AP_CHURN_HI);
			c2 = rn_ap_ramp_lin(y, RN_AP_CHURN_SHARE_LO, RN_AP_CHURN_SHARE_HI);
		} else {
			x = p->sc && nr_munmap >= 0 ? (double)p->sc[nr_munmap].calls : 0;
			y = p->alloc_peak_bytes ?
				(double)p->alloc_total_bytes / (double)p->alloc_peak_bytes :
				0;
			c1 = rn_ap_ramp_log(x, RN_AP_CHURN_LO, RN_AP_CHURN_HI);
			c2 = rn_ap_ramp_log(y, RN_AP_CHURN_TURNOVER_LO, RN_AP_CHURN_TURNOVER_HI);
		}
		if (x <= 0)
			continue;
		c = min2(c1, c2);
		if (w.proc < 0 || c > w.c || (c == w.c && x > w.x))
			w = (struct churn_best){ (int)i, c, c1, c2, x, y };
	}
	if (w.proc < 0) {
		out->confidence = 0;
		out->evidence = rn_ap_fmt("no short-lived anonymous mappings or brk cycles");
		return;
	}
	out->confidence = w.c;
	out->proc = w.proc;
	rn_buf_init(&b, 0);
	if (ps->spool)
		spool_evidence(ps, &w, out, &b);
	else
		stats_evidence(ps, &w, out, &b);
	out->evidence = rn_ap_buf_take(&b);
}

static void churn_init(struct rn_ap_pass *ps)
{
	ps->maps = rn_xcalloc(RN_AP_MAP_SLOTS, sizeof(*ps->maps));
}

const struct rn_detector_ops rn_ap_memory_churn_ops = {
	.id = RN_AP_MEMORY_CHURN,
	.recommendation = "reuse buffers (a pool or an arena) instead of mapping and unmapping per "
			  "use; raise M_MMAP_THRESHOLD/M_TRIM_THRESHOLD for malloc",
	.uses_spool = true,
	.needs_fds = false,
	.init = churn_init,
	.span = churn_span,
	.finish = churn_finish,
};
