/*
 * antipattern/redundant_io.c - RedundantIO: the same path opened, stat'ed or re-read over and over.
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

/* ---- RedundantIO ----------------------------------------------------------------------------
 *
 * Definition: one process accesses the same path over and over: successful opens (open,
 * openat, openat2, creat) and lookups (stat, lstat, newfstatat, statx, access, faccessat,
 * readlink) of the same path, plus re-reads of a file through an fd it keeps (a read that
 * starts at the offset where one of its last 8 reads started: a rewind, or pread64 of the
 * same offset; random access elsewhere does not count).
 * redundant = opens + stats + re-reads - 1. Confidence, per (process, path), best reported:
 *   ramp_log(redundant; REDUNDANT_LO, REDUNDANT_HI)
 * A relative path counts per directory: per open of the directory fd it is relative to
 * (openat, newfstatat, ...), or per working directory (each chdir/fchdir starts a new one),
 * so walking many directories that each hold a "Makefile" is not redundant. Without the
 * spool (no paths): NO DATA.
 */

static void path_span(struct rn_ap_pass *ps, int proc, const struct rn_ap_sc *si,
		      const struct rn_syscall_event *ev)
{
	struct rn_ap_path *e;

	if (!(si->flags & (C_OPEN | C_STAT)) || ev->err || !ps->ev_has_path)
		return;
	e = rn_antipattern_map_get(&ps->paths, ps->ev_key, true);
	if (!e)
		return;
	if (!e->path[0]) {
		e->proc = proc;
		memcpy(e->path, ps->ev_disp, sizeof(e->path));
	}
	if (si->flags & C_OPEN)
		e->opens++;
	else
		e->stats++;
	e->ns += ev->duration_ns;
	rn_ap_callers_add(&e->cl, ps->ev_caller);
}

static uint64_t path_n(const struct rn_ap_path *e)
{
	return (uint64_t)e->opens + e->stats + e->rereads;
}

static void redundant_finish(struct rn_ap_pass *ps, struct rn_detection *out)
{
	const struct rn_ap_path *best = NULL, *also[RN_AP_TOP_N];
	size_t i;
	int nalso = 0, k;
	double c;
	uint64_t red, life, tracked = 0;
	struct rn_buf b;

	if (!ps->spool) {
		out->no_data = true;
		out->evidence =
			rn_xstrfmt("the spool was not enabled: RedundantIO needs the path of "
				   "every open and stat");
		return;
	}
	for (i = 0; i < ps->paths.cap; i++) {
		const struct rn_ap_path *e = rn_antipattern_map_slot(&ps->paths, i);

		if (!ps->paths.keys[i])
			continue;
		tracked++;
		if (!best || path_n(e) > path_n(best))
			best = e;
	}
	if (!best || path_n(best) < 2) {
		out->confidence = 0;
		out->evidence =
			rn_xstrfmt("no path was accessed twice by one process (%" PRIu64 " paths)",
				   tracked);
		return;
	}
	/* Runners-up of the same process, for the evidence. */
	for (i = 0; i < ps->paths.cap; i++) {
		const struct rn_ap_path *e = rn_antipattern_map_slot(&ps->paths, i);

		if (!ps->paths.keys[i] || e == best || e->proc != best->proc || path_n(e) < 2)
			continue;
		if (nalso < RN_AP_TOP_N) {
			also[nalso++] = e;
		} else if (path_n(e) > path_n(also[RN_AP_TOP_N - 1])) {
			also[RN_AP_TOP_N - 1] = e;
		} else {
			continue;
		}
		for (k = nalso - 1; k > 0 && path_n(also[k]) > path_n(also[k - 1]); k--) {
			const struct rn_ap_path *tmp = also[k];

			also[k] = also[k - 1];
			also[k - 1] = tmp;
		}
	}
	red = path_n(best) - 1;
	c = rn_ap_ramp_log((double)red, RN_AP_REDUNDANT_LO, RN_AP_REDUNDANT_HI);
	life = rn_ap_proc_life(ps, best->proc);
	out->confidence = c;
	out->proc = best->proc;
	out->summary =
		rn_xstrfmt("%s accessed %s %" PRIu64 " times (%u opens, %u stats, %u re-reads)",
			   rn_ap_plabel(ps, best->proc).s, best->path, path_n(best), best->opens,
			   best->stats, best->rereads);
	rn_buf_init(&b, 0);
	rn_buf_addf(&b,
		    "%s: %s accessed %" PRIu64 " times: %u opens, %u stats, %u re-reads "
		    "(%" PRIu64 " redundant)\n",
		    rn_ap_plabel(ps, best->proc).s, best->path, path_n(best), best->opens,
		    best->stats, best->rereads, red);
	rn_buf_addf(&b,
		    "  time: %s in these opens and stats = %.1f%% of the process lifetime "
		    "(%s)\n",
		    rn_ap_dur(best->ns).s, pct((double)best->ns, (double)life), rn_ap_dur(life).s);
	rn_ap_add_caller(ps, &b, &best->cl, "accesses");
	for (k = 0; k < nalso; k++)
		rn_buf_addf(&b, "  also: %s %" PRIu64 " times (%u opens, %u stats, %u re-reads)\n",
			    also[k]->path, path_n(also[k]), also[k]->opens, also[k]->stats,
			    also[k]->rereads);
	rn_buf_addf(&b, "  confidence = ramp_log(redundant %" PRIu64 "; %.0f..%.0f) = %.2f", red,
		    RN_AP_REDUNDANT_LO, RN_AP_REDUNDANT_HI, c);
	if (ps->paths.dropped)
		rn_buf_addf(&b,
			    "\n  note: %" PRIu64 " accesses of paths beyond %u were not counted",
			    ps->paths.dropped, RN_AP_MAX_PATHS);
	out->evidence = rn_ap_buf_take(&b);
}

static void redundant_init(struct rn_ap_pass *ps)
{
	rn_antipattern_map_init(&ps->paths, sizeof(struct rn_ap_path), RN_AP_MAX_PATHS);
}

const struct rn_detector_ops rn_ap_redundant_io_ops = {
	.id = RN_AP_REDUNDANT_IO,
	.recommendation =
		"open, stat or read the file once and keep the result instead of repeating the lookup",
	.uses_spool = true,
	.needs_fds = true,
	.init = redundant_init,
	.span = path_span,
	.finish = redundant_finish,
};
