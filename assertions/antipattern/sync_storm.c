/*
 * antipattern/sync_storm.c - SyncStorm: syncs after tiny writes, or a GPU submit-and-wait per tiny
 * batch. Definition and confidence: below and in assertions/ANTIPATTERNS.md; thresholds in
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

/* ---- SyncStorm ------------------------------------------------------------------------------
 *
 * Definition (files): a process makes its data durable far more often than it writes
 * meaningful amounts: fsync/fdatasync/sync_file_range of an fd after fewer than
 * RN_AP_SYNC_SMALL_BYTES written to it since its previous sync (msync/syncfs/sync: written by
 * the process). Confidence per process:
 *   min(ramp_log(small syncs; SYNC_LO, SYNC_HI), ramp_lin(small syncs / syncs; SHARE_LO, HI))
 * Without the spool: syncs and writes from the statistics, with syncs / writes as the share.
 * Definition (GPU): submissions (submit spans, else command buffers, else dispatches) that
 * the host waited for and that ran shorter than RN_AP_GPU_TINY_NS: submit-then-wait per tiny
 * batch. Confidence: min(ramp_log(n; GPU_SYNC_LO, GPU_SYNC_HI), ramp_lin(n / submissions;
 * SHARE_LO, SHARE_HI)). The detector reports the larger of the two.
 */

/* The most sync-stormy process (files). */
struct sync_file {
	int best;                /* process index, -1 if none synced */
	double c, c1, c2, share; /* confidence, its two ramps, the share of small syncs */
	uint64_t small, syncs, writes;
};

/* The tiny waited GPU submissions. */
struct sync_gpu {
	enum rn_gpu_kind unit; /* the submission unit: the coarsest kind of span present */
	uint64_t nunits, tiny, tiny_ns;
	int proc;         /* process of the first tiny one, -1 if none */
	double c, c1, c2; /* confidence and its two ramps (0 without tiny ones) */
};

/* Process i's syncs, small syncs, writes and share (spool: small / syncs; statistics: syncs
 * per write, at most 1, every sync counted small). */
static void sync_proc_counts(const struct rn_ap_pass *ps, size_t i, uint64_t *small,
			     uint64_t *syncs, uint64_t *writes, double *share)
{
	static const char *const wnames[] = { "write", "pwrite64", "writev", "pwritev",
					      "pwritev2" };
	const char *const snames[] = { "fsync", "fdatasync", "sync_file_range" };
	const struct rn_ap_proc *pp = &ps->procs[i];
	const struct rn_process *p = &ps->t->procs[i];
	size_t k;

	if (ps->spool) {
		*small = pp->small_syncs;
		*syncs = pp->syncs;
		*writes = pp->writes;
		*share = *syncs ? (double)*small / (double)*syncs : 0;
		return;
	}
	*syncs = *writes = 0;
	for (k = 0; k < 3 && p->sc; k++) {
		int nr = rn_syscall_lookup(snames[k]);

		if (nr >= 0)
			*syncs += p->sc[nr].calls - p->sc[nr].errors;
	}
	for (k = 0; k < sizeof(wnames) / sizeof(wnames[0]) && p->sc; k++) {
		int nr = rn_syscall_lookup(wnames[k]);

		if (nr >= 0)
			*writes += p->sc[nr].calls;
	}
	*small = *syncs;
	*share = *writes ? (double)*syncs / (double)*writes : (*syncs ? 1.0 : 0.0);
	if (*share > 1)
		*share = 1;
}

static void sync_best_file(const struct rn_ap_pass *ps, struct sync_file *fb)
{
	size_t i;

	memset(fb, 0, sizeof(*fb));
	fb->best = -1;
	for (i = 0; i < ps->nprocs; i++) {
		uint64_t small, syncs, writes;
		double share, c1, c2, c;

		if (!ps->procs[i].allowed)
			continue;
		sync_proc_counts(ps, i, &small, &syncs, &writes, &share);
		if (!small)
			continue;
		c1 = rn_ap_ramp_log((double)small, RN_AP_SYNC_LO, RN_AP_SYNC_HI);
		c2 = rn_ap_ramp_lin(share, RN_AP_SYNC_SHARE_LO, RN_AP_SYNC_SHARE_HI);
		c = min2(c1, c2);
		if (fb->best < 0 || c > fb->c || (c == fb->c && small > fb->small)) {
			fb->best = (int)i;
			fb->c = c;
			fb->c1 = c1;
			fb->c2 = c2;
			fb->share = share;
			fb->small = small;
			fb->syncs = syncs;
			fb->writes = writes;
		}
	}
}

static void sync_gpu_scan(const struct rn_ap_pass *ps, struct sync_gpu *gb)
{
	uint64_t units[RN_GPU_SUBMIT + 1] = { 0 };
	size_t i;
	int proc;

	memset(gb, 0, sizeof(*gb));
	gb->proc = -1;
	gb->unit = RN_GPU_SUBMIT;
	for (i = 0; i < ps->t->ngpu; i++) {
		const struct rn_gpu_span *g = &ps->t->gpu[i];

		if (rn_ap_gpu_allowed(ps, g->pid, &proc) && g->kind <= RN_GPU_SUBMIT)
			units[g->kind]++;
	}
	if (!units[RN_GPU_SUBMIT])
		gb->unit = units[RN_GPU_CMDBUF] ? RN_GPU_CMDBUF : RN_GPU_DISPATCH;
	for (i = 0; i < ps->t->ngpu; i++) {
		const struct rn_gpu_span *g = &ps->t->gpu[i];
		uint64_t d = g->end_ns > g->start_ns ? g->end_ns - g->start_ns : 0;

		if (!rn_ap_gpu_allowed(ps, g->pid, &proc) || g->kind != gb->unit)
			continue;
		gb->nunits++;
		if ((g->flags & RN_GPU_WAITED) && d < RN_AP_GPU_TINY_NS) {
			gb->tiny++;
			gb->tiny_ns += d;
			if (gb->proc < 0)
				gb->proc = proc;
		}
	}
	if (gb->tiny) {
		gb->c1 = rn_ap_ramp_log((double)gb->tiny, RN_AP_GPU_SYNC_LO, RN_AP_GPU_SYNC_HI);
		gb->c2 = rn_ap_ramp_lin((double)gb->tiny / (double)gb->nunits, RN_AP_SYNC_SHARE_LO,
					RN_AP_SYNC_SHARE_HI);
		gb->c = min2(gb->c1, gb->c2);
	}
}

static void sync_file_evidence(struct rn_ap_pass *ps, struct rn_buf *b, const struct sync_file *fb)
{
	const struct rn_ap_proc *pp = &ps->procs[fb->best];
	uint64_t life = rn_ap_proc_life(ps, fb->best);

	if (ps->spool)
		rn_buf_addf(b,
			    "%s: %" PRIu64 " of %" PRIu64 " syncs came after less than %s "
			    "written (%.1f%%); %" PRIu64 " writes, %s written in all%s%s\n",
			    rn_ap_plabel(ps, fb->best).s, fb->small, fb->syncs,
			    rn_ap_bytes(RN_AP_SYNC_SMALL_BYTES).s, 100.0 * fb->share, fb->writes,
			    rn_ap_bytes(pp->write_bytes).s, pp->sync_path[0] ? ", e.g. " : "",
			    pp->sync_path);
	else
		rn_buf_addf(b,
			    "%s: %" PRIu64 " syncs for %" PRIu64 " writes (%.2f per "
			    "write; per-process statistics, the spool was not enabled)\n",
			    rn_ap_plabel(ps, fb->best).s, fb->syncs, fb->writes, fb->share);
	if (ps->spool)
		rn_buf_addf(b, "  time: %s in syncs = %.1f%% of the process lifetime (%s)\n",
			    rn_ap_dur(pp->sync_ns).s, pct((double)pp->sync_ns, (double)life),
			    rn_ap_dur(life).s);
	rn_ap_add_caller(ps, b, &pp->sync_cl, "small syncs");
	rn_buf_addf(b,
		    "  confidence (files) = min(ramp_log(small syncs %" PRIu64 "; "
		    "%.0f..%.0f) %.2f, ramp_lin(share %.3f; %.2f..%.2f) %.2f) = %.2f\n",
		    fb->small, RN_AP_SYNC_LO, RN_AP_SYNC_HI, fb->c1, fb->share, RN_AP_SYNC_SHARE_LO,
		    RN_AP_SYNC_SHARE_HI, fb->c2, fb->c);
}

static void sync_gpu_evidence(struct rn_buf *b, const struct sync_gpu *gb)
{
	rn_buf_addf(b,
		    "GPU: %" PRIu64 " of %" PRIu64 " %s spans were waited for and ran "
		    "under %s (%s of GPU time in them)\n",
		    gb->tiny, gb->nunits, rn_gpu_kind_name(gb->unit),
		    rn_ap_dur(RN_AP_GPU_TINY_NS).s, rn_ap_dur(gb->tiny_ns).s);
	rn_buf_addf(b,
		    "  confidence (GPU) = min(ramp_log(tiny waited %" PRIu64 "; "
		    "%.0f..%.0f) %.2f, ramp_lin(share %.3f; %.2f..%.2f) %.2f) = %.2f\n",
		    gb->tiny, RN_AP_GPU_SYNC_LO, RN_AP_GPU_SYNC_HI, gb->c1,
		    (double)gb->tiny / (double)gb->nunits, RN_AP_SYNC_SHARE_LO, RN_AP_SYNC_SHARE_HI,
		    gb->c2, gb->c);
}

static void sync_finish(struct rn_ap_pass *ps, struct rn_detection *out)
{
	struct sync_file fb;
	struct sync_gpu gb;
	struct rn_buf b;

	sync_best_file(ps, &fb);
	sync_gpu_scan(ps, &gb);
	if (fb.best < 0 && !gb.tiny) {
		out->confidence = 0;
		out->evidence =
			rn_xstrfmt("no small syncs%s",
				   ps->t->ngpu ? " and no tiny waited GPU submissions" : "");
		return;
	}
	rn_buf_init(&b, 0);
	if (fb.best >= 0)
		sync_file_evidence(ps, &b, &fb);
	if (gb.tiny)
		sync_gpu_evidence(&b, &gb);
	rn_buf_addf(&b, "confidence = max(files, GPU) = %.2f", fb.c > gb.c ? fb.c : gb.c);
	out->evidence = rn_ap_buf_take(&b);
	if (fb.best >= 0 && fb.c >= gb.c) {
		out->confidence = fb.c;
		out->proc = fb.best;
		out->summary = rn_xstrfmt("%s synced %" PRIu64 " times after small writes (%" PRIu64
					  " writes)",
					  rn_ap_plabel(ps, fb.best).s, fb.small, fb.writes);
	} else {
		out->confidence = gb.c;
		out->proc = gb.proc;
		out->summary = rn_xstrfmt("%" PRIu64 " of %" PRIu64 " GPU %s spans were tiny and "
					  "waited for",
					  gb.tiny, gb.nunits, rn_gpu_kind_name(gb.unit));
	}
}

const struct rn_detector_ops rn_ap_sync_storm_ops = {
	.id = RN_AP_SYNC_STORM,
	.recommendation = "batch writes and sync once per batch (group commit); on the GPU, record "
			  "more work per submit and wait once",
	.uses_spool = true,
	.needs_fds = true,
	.init = NULL,
	.span = NULL,
	.finish = sync_finish,
};
