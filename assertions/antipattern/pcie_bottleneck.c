/*
 * antipattern/pcie_bottleneck.c - PcieBottleneck: host<->device copies outweigh the GPU compute
 * they feed. Definition and confidence: below and in assertions/ANTIPATTERNS.md; thresholds in
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

/* ---- PcieBottleneck -------------------------------------------------------------------------
 *
 * Definition: host<->device copies (GPU copy spans whose direction is host-to-device or
 * device-to-host) take more GPU time than the compute they feed (dispatch and render-pass
 * spans). copy = summed copy span time, compute = summed dispatch + render pass time.
 *   confidence = min(ramp_log(copy / compute; RATIO_LO, RATIO_HI),
 *                    ramp_log(copy; COPY_LO_NS, COPY_HI_NS))
 * (0.5 when copies take as long as compute; copies with no compute at all give ratio
 * infinity). Without GPU spans, or with only command-buffer/submit spans (gpu_timing other
 * than "dispatch"), there is no way to tell copies from compute: NO DATA, never a pass.
 */

static void pcie_finish(struct rn_ap_pass *ps, struct rn_detection *out)
{
	uint64_t copy_ns[RN_GPU_DIR_HTOH + 1] = { 0 }, copy_b[RN_GPU_DIR_HTOH + 1] = { 0 };
	uint64_t ncopy[RN_GPU_DIR_HTOH + 1] = { 0 };
	uint64_t comp_ns = 0, ndisp = 0, nrp = 0, nspans = 0, xfer_ns, xfer_b;
	int proc = -1;
	size_t i;
	double ratio, c1, c2, c;
	struct rn_buf b;
	int d;
	static const char *const dname[] = { "other", "host->device", "device->host",
					     "device->device", "host->host" };

	for (i = 0; i < ps->t->ngpu; i++) {
		const struct rn_gpu_span *g = &ps->t->gpu[i];
		uint64_t dn = g->end_ns > g->start_ns ? g->end_ns - g->start_ns : 0;
		int pr;

		if (!rn_ap_gpu_allowed(ps, g->pid, &pr))
			continue;
		nspans++;
		if (proc < 0)
			proc = pr;
		if (g->kind == RN_GPU_COPY && g->dir <= RN_GPU_DIR_HTOH) {
			copy_ns[g->dir] += dn;
			copy_b[g->dir] += g->bytes;
			ncopy[g->dir]++;
		} else if (g->kind == RN_GPU_DISPATCH) {
			comp_ns += dn;
			ndisp++;
		} else if (g->kind == RN_GPU_RENDER_PASS) {
			comp_ns += dn;
			nrp++;
		}
	}
	if (!nspans) {
		out->no_data = true;
		out->evidence =
			rn_xstrfmt("no GPU spans: run the target with collectors = [\"ptrace\", "
				   "\"vulkan\"] and gpu_timing = \"dispatch\"");
		return;
	}
	xfer_ns = copy_ns[RN_GPU_DIR_HTOD] + copy_ns[RN_GPU_DIR_DTOH];
	xfer_b = copy_b[RN_GPU_DIR_HTOD] + copy_b[RN_GPU_DIR_DTOH];
	if (!ndisp && !nrp && !ncopy[0] && !ncopy[1] && !ncopy[2] && !ncopy[3] && !ncopy[4]) {
		out->no_data = true;
		out->evidence =
			rn_xstrfmt("%" PRIu64 " GPU spans but none is a copy or a dispatch: set "
				   "gpu_timing = \"dispatch\" to time them one by one",
				   nspans);
		return;
	}
	ratio = comp_ns ? (double)xfer_ns / (double)comp_ns : (xfer_ns ? INFINITY : 0);
	c1 = rn_ap_ramp_log(ratio, RN_AP_PCIE_RATIO_LO, RN_AP_PCIE_RATIO_HI);
	c2 = rn_ap_ramp_log((double)xfer_ns, RN_AP_PCIE_COPY_LO_NS, RN_AP_PCIE_COPY_HI_NS);
	c = min2(c1, c2);
	out->confidence = c;
	out->proc = proc;
	out->summary = rn_xstrfmt("host<->device copies took %s of GPU time for %s of compute "
				  "(ratio %.2f)",
				  rn_ap_dur(xfer_ns).s, rn_ap_dur(comp_ns).s, ratio);
	rn_buf_init(&b, 0);
	rn_buf_addf(&b,
		    "GPU of %s: host<->device copies %s, compute %s (%" PRIu64
		    " dispatches, %" PRIu64 " render passes): copy/compute = %.2f\n",
		    rn_ap_plabel(ps, proc).s, rn_ap_dur(xfer_ns).s, rn_ap_dur(comp_ns).s, ndisp,
		    nrp, ratio);
	for (d = 0; d <= RN_GPU_DIR_HTOH; d++) {
		if (!ncopy[d])
			continue;
		rn_buf_addf(&b, "  %s: %" PRIu64 " copies, %s, %s, mean %s, %.2f GB/s\n", dname[d],
			    ncopy[d], rn_ap_bytes(copy_b[d]).s, rn_ap_dur(copy_ns[d]).s,
			    rn_ap_bytes(copy_b[d] / ncopy[d]).s,
			    copy_ns[d] ? (double)copy_b[d] / (double)copy_ns[d] : 0.0);
	}
	if (xfer_ns)
		rn_buf_addf(&b, "  host<->device bandwidth: %s in %s = %.2f GB/s\n",
			    rn_ap_bytes(xfer_b).s, rn_ap_dur(xfer_ns).s,
			    (double)xfer_b / (double)xfer_ns);
	rn_buf_addf(&b,
		    "  confidence = min(ramp_log(ratio %.2f; %.2f..%.2f) %.2f, ramp_log(copy "
		    "%s; %s..%s) %.2f) = %.2f",
		    ratio, RN_AP_PCIE_RATIO_LO, RN_AP_PCIE_RATIO_HI, c1, rn_ap_dur(xfer_ns).s,
		    rn_ap_dur((uint64_t)RN_AP_PCIE_COPY_LO_NS).s,
		    rn_ap_dur((uint64_t)RN_AP_PCIE_COPY_HI_NS).s, c2, c);
	out->evidence = rn_ap_buf_take(&b);
}

const struct rn_detector_ops rn_ap_pcie_bottleneck_ops = {
	.id = RN_AP_PCIE_BOTTLENECK,
	.recommendation = "keep data resident on the device, batch copies into fewer large "
			  "transfers, and overlap them with compute on a transfer queue",
	.uses_spool = false,
	.needs_fds = false,
	.init = NULL,
	.span = NULL,
	.finish = pcie_finish,
};
