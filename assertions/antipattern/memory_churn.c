/*
 * antipattern/memory_churn.c - MemoryChurn: short-lived anonymous mappings and brk cycles.
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

/* The churn of the most-churning process: its counts and the two ramps' confidences. */
struct churn_best {
	int proc;         /* index into ps->procs, -1 = none */
	double c, c1, c2; /* confidence, and the two ramps it is the minimum of */
	double x, y;      /* churn (or munmaps) and share (or turnover) */
};

/* The evidence of `best` from the span spool: short-lived mappings and brk cycles. */
static void churn_evidence_spool(struct rn_ap_pass *ps, const struct churn_best *cb,
				 struct rn_detection *out, struct rn_buf *b)
{
	int best = cb->proc;
	const struct rn_ap_proc *pp = &ps->procs[best];
	const struct rn_process *p = &ps->t->procs[best];
	uint64_t life = rn_ap_proc_life(ps, best);

	out->summary = rn_xstrfmt("%s: %" PRIu64 " anonymous mappings lived under %s, %" PRIu64
				  " brk shrink/grow cycles",
				  rn_ap_plabel(ps, best).s, pp->short_unmaps,
				  rn_ap_dur(RN_AP_CHURN_SHORT_NS).s, pp->brk_cycles);
	rn_buf_addf(b,
		    "%s: %" PRIu64 " of %" PRIu64 " anonymous mappings were unmapped "
		    "within %s (%s in them); %" PRIu64 " brk shrink/grow cycles of %" PRIu64
		    " growths\n",
		    rn_ap_plabel(ps, best).s, pp->short_unmaps, pp->anon_maps,
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
		    cb->x, RN_AP_CHURN_LO, RN_AP_CHURN_HI, cb->c1, cb->y, RN_AP_CHURN_SHARE_LO,
		    RN_AP_CHURN_SHARE_HI, cb->c2, cb->c);
}

/* The evidence of `best` from per-process statistics alone (no spool). */
static void churn_evidence_stats(struct rn_ap_pass *ps, const struct churn_best *cb,
				 struct rn_detection *out, struct rn_buf *b)
{
	int best = cb->proc;
	const struct rn_process *p = &ps->t->procs[best];

	out->summary =
		rn_xstrfmt("%s: %.0f munmap calls, %s mapped for a peak of %s",
			   rn_ap_plabel(ps, best).s, cb->x, rn_ap_bytes(p->alloc_total_bytes).s,
			   rn_ap_bytes(p->alloc_peak_bytes).s);
	rn_buf_addf(b,
		    "%s: %.0f munmap calls; %s mapped anonymously or by brk over its "
		    "life for a peak of %s (turnover %.1f; per-process statistics, the "
		    "spool was not enabled)\n",
		    rn_ap_plabel(ps, best).s, cb->x, rn_ap_bytes(p->alloc_total_bytes).s,
		    rn_ap_bytes(p->alloc_peak_bytes).s, cb->y);
	rn_buf_addf(b,
		    "  confidence = min(ramp_log(munmaps %.0f; %.0f..%.0f) %.2f, "
		    "ramp_log(turnover %.1f; %.0f..%.0f) %.2f) = %.2f",
		    cb->x, RN_AP_CHURN_LO, RN_AP_CHURN_HI, cb->c1, cb->y, RN_AP_CHURN_TURNOVER_LO,
		    RN_AP_CHURN_TURNOVER_HI, cb->c2, cb->c);
}

/* The most-churning allowed process of the pass (cb->proc -1 when none churned). */
static void churn_pick(struct rn_ap_pass *ps, struct churn_best *cb)
{
	int nr_munmap = rn_syscall_lookup("munmap");
	size_t i;

	memset(cb, 0, sizeof(*cb));
	cb->proc = -1;
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
		if (cb->proc < 0 || c > cb->c || (c == cb->c && x > cb->x)) {
			cb->proc = (int)i;
			cb->c = c;
			cb->c1 = c1;
			cb->c2 = c2;
			cb->x = x;
			cb->y = y;
		}
	}
}

static void churn_finish(struct rn_ap_pass *ps, struct rn_detection *out)
{
	struct churn_best cb;
	struct rn_buf b;

	churn_pick(ps, &cb);
	if (cb.proc < 0) {
		out->confidence = 0;
		out->evidence = rn_xstrfmt("no short-lived anonymous mappings or brk cycles");
		return;
	}
	out->confidence = cb.c;
	out->proc = cb.proc;
	rn_buf_init(&b, 0);
	if (ps->spool)
		churn_evidence_spool(ps, &cb, out, &b);
	else
		churn_evidence_stats(ps, &cb, out, &b);
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
