/*
 * antipattern/sync_storm.c - SyncStorm: syncs after tiny writes, or a GPU submit-and-wait per tiny
 * batch. Definition and confidence: below and in assertions/ANTIPATTERNS.md; thresholds in
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

static void sync_finish(struct rn_ap_pass *ps, struct rn_detection *out)
{
	size_t i;
	int best = -1, gpu_proc = -1;
	double best_c = 0, best_c1 = 0, best_c2 = 0, best_share = 0;
	uint64_t best_small = 0, best_syncs = 0, best_writes = 0;
	uint64_t units[RN_GPU_SUBMIT + 1] = { 0 }, tiny = 0, nunits = 0, tiny_ns = 0;
	enum rn_gpu_kind unit = RN_GPU_SUBMIT;
	double gc = 0, gc1 = 0, gc2 = 0;
	struct rn_buf b;
	int nr_fsync = rn_syscall_lookup("fsync"), nr_fdatasync = rn_syscall_lookup("fdatasync");
	int nr_sfr = rn_syscall_lookup("sync_file_range");
	const char *wnames[] = { "write", "pwrite64", "writev", "pwritev", "pwritev2" };

	for (i = 0; i < ps->nprocs; i++) {
		struct rn_ap_proc *pp = &ps->procs[i];
		const struct rn_process *p = &ps->t->procs[i];
		uint64_t small, syncs, writes;
		double share, c1, c2, c;

		if (!pp->allowed)
			continue;
		if (ps->spool) {
			small = pp->small_syncs;
			syncs = pp->syncs;
			writes = pp->writes;
			share = syncs ? (double)small / (double)syncs : 0;
		} else {
			size_t k;
			int nrs[3] = { nr_fsync, nr_fdatasync, nr_sfr };

			syncs = writes = 0;
			for (k = 0; k < 3 && p->sc; k++)
				if (nrs[k] >= 0)
					syncs += p->sc[nrs[k]].calls - p->sc[nrs[k]].errors;
			for (k = 0; k < sizeof(wnames) / sizeof(wnames[0]) && p->sc; k++) {
				int nr = rn_syscall_lookup(wnames[k]);

				if (nr >= 0)
					writes += p->sc[nr].calls;
			}
			small = syncs;
			share = writes ? (double)syncs / (double)writes : (syncs ? 1.0 : 0.0);
			if (share > 1)
				share = 1;
		}
		if (!small)
			continue;
		c1 = rn_ap_ramp_log((double)small, RN_AP_SYNC_LO, RN_AP_SYNC_HI);
		c2 = rn_ap_ramp_lin(share, RN_AP_SYNC_SHARE_LO, RN_AP_SYNC_SHARE_HI);
		c = min2(c1, c2);
		if (best < 0 || c > best_c || (c == best_c && small > best_small)) {
			best = (int)i;
			best_c = c;
			best_c1 = c1;
			best_c2 = c2;
			best_share = share;
			best_small = small;
			best_syncs = syncs;
			best_writes = writes;
		}
	}
	/* GPU: the coarsest kind of span present is the submission unit. */
	for (i = 0; i < ps->t->ngpu; i++) {
		const struct rn_gpu_span *g = &ps->t->gpu[i];
		int proc;

		if (rn_ap_gpu_allowed(ps, g->pid, &proc) && g->kind <= RN_GPU_SUBMIT)
			units[g->kind]++;
	}
	if (!units[RN_GPU_SUBMIT])
		unit = units[RN_GPU_CMDBUF] ? RN_GPU_CMDBUF : RN_GPU_DISPATCH;
	for (i = 0; i < ps->t->ngpu; i++) {
		const struct rn_gpu_span *g = &ps->t->gpu[i];
		uint64_t d = g->end_ns > g->start_ns ? g->end_ns - g->start_ns : 0;
		int proc;

		if (!rn_ap_gpu_allowed(ps, g->pid, &proc) || g->kind != unit)
			continue;
		nunits++;
		if ((g->flags & RN_GPU_WAITED) && d < RN_AP_GPU_TINY_NS) {
			tiny++;
			tiny_ns += d;
			if (gpu_proc < 0)
				gpu_proc = proc;
		}
	}
	if (tiny) {
		gc1 = rn_ap_ramp_log((double)tiny, RN_AP_GPU_SYNC_LO, RN_AP_GPU_SYNC_HI);
		gc2 = rn_ap_ramp_lin((double)tiny / (double)nunits, RN_AP_SYNC_SHARE_LO,
				     RN_AP_SYNC_SHARE_HI);
		gc = min2(gc1, gc2);
	}
	if (best < 0 && !tiny) {
		out->confidence = 0;
		out->evidence =
		    rn_ap_fmt("no small syncs%s", ps->t->ngpu ? " and no tiny waited GPU "
								"submissions"
							      : "");
		return;
	}
	rn_buf_init(&b, 0);
	if (best >= 0) {
		const struct rn_ap_proc *pp = &ps->procs[best];
		uint64_t life = rn_ap_proc_life(ps, best);

		if (ps->spool)
			rn_buf_addf(&b,
				    "%s: %" PRIu64 " of %" PRIu64 " syncs came after less than %s "
				    "written (%.1f%%); %" PRIu64 " writes, %s written in all%s%s\n",
				    rn_ap_plabel(ps, best).s, best_small, best_syncs,
				    rn_ap_bytes(RN_AP_SYNC_SMALL_BYTES).s, 100.0 * best_share,
				    best_writes, rn_ap_bytes(pp->write_bytes).s,
				    pp->sync_path[0] ? ", e.g. " : "", pp->sync_path);
		else
			rn_buf_addf(&b, "%s: %" PRIu64 " syncs for %" PRIu64 " writes (%.2f per "
				    "write; per-process statistics, the spool was not enabled)\n",
				    rn_ap_plabel(ps, best).s, best_syncs, best_writes, best_share);
		if (ps->spool)
			rn_buf_addf(&b,
				    "  time: %s in syncs = %.1f%% of the process lifetime (%s)\n",
				    rn_ap_dur(pp->sync_ns).s,
				    pct((double)pp->sync_ns, (double)life), rn_ap_dur(life).s);
		rn_ap_add_caller(ps, &b, &pp->sync_cl, "small syncs");
		rn_buf_addf(&b, "  confidence (files) = min(ramp_log(small syncs %" PRIu64 "; "
			    "%.0f..%.0f) %.2f, ramp_lin(share %.3f; %.2f..%.2f) %.2f) = %.2f\n",
			    best_small, RN_AP_SYNC_LO, RN_AP_SYNC_HI, best_c1, best_share,
			    RN_AP_SYNC_SHARE_LO, RN_AP_SYNC_SHARE_HI, best_c2, best_c);
	}
	if (tiny) {
		rn_buf_addf(&b, "GPU: %" PRIu64 " of %" PRIu64 " %s spans were waited for and ran "
			    "under %s (%s of GPU time in them)\n",
			    tiny, nunits, rn_gpu_kind_name(unit), rn_ap_dur(RN_AP_GPU_TINY_NS).s,
			    rn_ap_dur(tiny_ns).s);
		rn_buf_addf(&b, "  confidence (GPU) = min(ramp_log(tiny waited %" PRIu64 "; "
			    "%.0f..%.0f) %.2f, ramp_lin(share %.3f; %.2f..%.2f) %.2f) = %.2f\n",
			    tiny, RN_AP_GPU_SYNC_LO, RN_AP_GPU_SYNC_HI, gc1,
			    (double)tiny / (double)nunits, RN_AP_SYNC_SHARE_LO, RN_AP_SYNC_SHARE_HI,
			    gc2, gc);
	}
	rn_buf_addf(&b, "confidence = max(files, GPU) = %.2f", best_c > gc ? best_c : gc);
	out->evidence = rn_ap_buf_take(&b);
	if (best >= 0 && best_c >= gc) {
		out->confidence = best_c;
		out->proc = best;
		out->summary = rn_ap_fmt("%s synced %" PRIu64 " times after small writes (%" PRIu64
				    " writes)", rn_ap_plabel(ps, best).s, best_small, best_writes);
	} else {
		out->confidence = gc;
		out->proc = gpu_proc;
		out->summary =
		    rn_ap_fmt("%" PRIu64 " of %" PRIu64 " GPU %s spans were tiny and waited "
			      "for",
			      tiny, nunits, rn_gpu_kind_name(unit));
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
