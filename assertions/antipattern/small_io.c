/*
 * antipattern/small_io.c - SmallIO: many reads or writes far below a page on one fd.
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

/* ---- fds: SmallIO, RedundantIO re-reads, SyncStorm -----------------------------------------
 *
 * SmallIO definition: many successful reads or writes on one fd of one process, in one
 * direction, each far below a page: a read asking for, or a write giving, fewer than
 * RN_AP_SMALL_IO_BYTES (vectored and msghdr calls: the bytes moved). Event-style fds
 * (eventfd, timerfd, signalfd, inotify, epoll), whose records are small by definition, are
 * skipped. Confidence, per (process, fd, direction), best reported:
 *   min(ramp_log(small calls; SMALL_IO_LO, SMALL_IO_HI),
 *       ramp_lin(small calls / calls; SMALL_IO_SHARE_LO, SMALL_IO_SHARE_HI))
 * Without the spool (no sizes): NO DATA.
 */

void rn_ap_small_fd_done(struct rn_ap_pass *ps, struct rn_ap_fd *f)
{
	int dir;

	if (!ps->want[RN_AP_SMALL_IO] || f->kind == FD_EVENT)
		return;
	for (dir = 0; dir < 2; dir++) {
		double n = (double)f->n[dir], sm = (double)f->small[dir];
		double c1, c2, c, life;
		struct rn_ap_cand c0;
		struct rn_buf b;
		const char *what = dir ? "write" : "read";

		if (!f->small[dir])
			continue;
		c1 = rn_ap_ramp_log(sm, RN_AP_SMALL_IO_LO, RN_AP_SMALL_IO_HI);
		c2 = rn_ap_ramp_lin(sm / n, RN_AP_SMALL_IO_SHARE_LO, RN_AP_SMALL_IO_SHARE_HI);
		c = min2(c1, c2);
		if (!rn_ap_top_wants(&ps->small, c, sm))
			continue;
		life = (double)rn_ap_proc_life(ps, f->proc);
		memset(&c0, 0, sizeof(c0));
		c0.conf = c;
		c0.mag = sm;
		c0.proc = f->proc;
		c0.summary =
			rn_xstrfmt("%s: %" PRIu64 " %ss below %d bytes on fd %d%s%s%s (mean %.0f "
				   "bytes)",
				   rn_ap_plabel(ps, f->proc).s, f->small[dir], what,
				   RN_AP_SMALL_IO_BYTES, f->fd, f->path[0] ? " (" : "", f->path,
				   f->path[0] ? ")" : "", n > 0 ? (double)f->bytes[dir] / n : 0.0);
		rn_buf_init(&b, 0);
		rn_buf_addf(&b, "%s, fd %d %s\n", rn_ap_plabel(ps, f->proc).s, f->fd,
			    f->path[0]                   ? f->path :
				    f->kind == FD_SOCKET ? "(socket)" :
							   "(inherited or pipe)");
		rn_buf_addf(&b,
			    "  %ss: %" PRIu64 " of %" PRIu64 " below %d bytes (%.1f%%), "
			    "%s moved, mean %.1f bytes per call\n",
			    what, f->small[dir], f->n[dir], RN_AP_SMALL_IO_BYTES, pct(sm, n),
			    rn_ap_bytes(f->bytes[dir]).s, n > 0 ? (double)f->bytes[dir] / n : 0.0);
		rn_buf_addf(&b, "  time: %s in these %ss = %.1f%% of the process lifetime (%s)\n",
			    rn_ap_dur(f->ns[dir]).s, what, pct((double)f->ns[dir], life),
			    rn_ap_dur((uint64_t)life).s);
		rn_ap_add_caller(ps, &b, &f->cl[dir], dir ? "small writes" : "small reads");
		rn_buf_addf(&b,
			    "  confidence = min(ramp_log(small %" PRIu64 "; %.0f..%.0f) %.2f, "
			    "ramp_lin(share %.3f; %.2f..%.2f) %.2f) = %.2f",
			    f->small[dir], RN_AP_SMALL_IO_LO, RN_AP_SMALL_IO_HI, c1, sm / n,
			    RN_AP_SMALL_IO_SHARE_LO, RN_AP_SMALL_IO_SHARE_HI, c2, c);
		c0.evidence = rn_ap_buf_take(&b);
		rn_ap_top_put(&ps->small, &c0);
	}
}

/* ---- SmallIO (finish) ------------------------------------------------------------------------ */

static void small_finish(struct rn_ap_pass *ps, struct rn_detection *out)
{
	size_t i;
	char note[128];

	if (!ps->spool) {
		out->no_data = true;
		out->evidence =
			rn_xstrfmt("the spool was not enabled: SmallIO needs the size of every "
				   "read and write");
		return;
	}
	for (i = 0; i < ps->fds.cap; i++) {
		struct rn_ap_fd *f = rn_antipattern_map_slot(&ps->fds, i);

		if (ps->fds.keys[i] && f->used)
			rn_ap_small_fd_done(ps, f);
	}
	if (!ps->small.n) {
		out->confidence = 0;
		out->evidence =
			rn_xstrfmt("no small reads or writes: 0 of %" PRIu64 " below %d bytes",
				   ps->io_calls, RN_AP_SMALL_IO_BYTES);
		return;
	}
	snprintf(note, sizeof(note), "%" PRIu64 " fds beyond %u were not followed", ps->fds.dropped,
		 RN_AP_MAX_FDS);
	rn_ap_top_out(ps, &ps->small, out, ps->fds.dropped ? note : NULL);
}

const struct rn_detector_ops rn_ap_small_io_ops = {
	.id = RN_AP_SMALL_IO,
	.recommendation = "buffer the I/O (stdio, a 64 KiB user buffer, or writev of a whole "
			  "record) so each syscall moves at least a page",
	.uses_spool = true,
	.needs_fds = true,
	.init = NULL,
	.span = NULL,
	.finish = small_finish,
};
