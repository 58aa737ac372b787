/*
 * conditions.c - pressure and speed probes, golden noise report, golden identity and
 * feasibility checks.
 */
#include "conditions.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "diag.h"
#include "internal.h"
#include "log.h"
#include "now.h"
#include "sequential.h"
#include "stats.h"
#include "xalloc.h"

/* The "some ... total=" field of a PSI file (Documentation/accounting/psi.rst), us. */
static int pressure_total_us(const char *path, uint64_t *out)
{
	char text[512], *p, *end;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	unsigned long long v;

	if (fd < 0)
		return -errno;
	n = read(fd, text, sizeof(text) - 1);
	if (n < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	close(fd);
	text[n] = '\0';
	if (strncmp(text, "some ", 5))
		return -EINVAL;
	p = strstr(text, " total=");
	if (!p || p > strchr(text, '\n'))
		return -EINVAL;
	p += 7;
	errno = 0;
	v = strtoull(p, &end, 10);
	if (errno || end == p)
		return -EINVAL;
	*out = (uint64_t)v;
	return 0;
}

int rn_cpu_pressure_total_us(uint64_t *out)
{
	return pressure_total_us("/proc/pressure/cpu", out);
}

int rn_io_pressure_total_us(uint64_t *out)
{
	return pressure_total_us("/proc/pressure/io", out);
}

void rn_pressure_probe_begin(struct rn_pressure_probe *p)
{
	p->ok = !rn_cpu_pressure_total_us(&p->total_us);
	p->io_ok = !rn_io_pressure_total_us(&p->io_total_us);
	p->mono_ns = rn_mono_ns();
}

/* The share of `ns` of wall time that `delta_us` of PSI stall is, clamped to [0, 1]. */
static double stall_share(uint64_t delta_us, uint64_t ns)
{
	double share = (double)delta_us * 1e3 / (double)ns;

	return share < 0.0 ? 0.0 : share > 1.0 ? 1.0 : share;
}

void rn_pressure_probe_end(const struct rn_pressure_probe *p, struct rn_target_result *r)
{
	uint64_t now = rn_mono_ns(), total;

	if (now <= p->mono_ns)
		return;
	if (p->ok && !rn_cpu_pressure_total_us(&total) && total >= p->total_us) {
		r->cpu_pressure = stall_share(total - p->total_us, now - p->mono_ns);
		r->has_cpu_pressure = true;
	}
	if (p->io_ok && !rn_io_pressure_total_us(&total) && total >= p->io_total_us) {
		r->io_pressure = stall_share(total - p->io_total_us, now - p->mono_ns);
		r->has_io_pressure = true;
	}
}

/* Words written by the probe: 64 KiB, within L2, so that the probe leaves the caches of the
 * target's next run as they were as far as it can. */
#define PROBE_WORDS (1u << 14)
/* Iterations of the probe's loop. */
#define PROBE_ITERATIONS (1u << 21)

void rn_speed_probe(struct rn_target_result *r)
{
	static uint32_t buf[PROBE_WORDS];
	volatile uint32_t sink;
	uint32_t x = 2463534242u, sum = 0, i;
	uint64_t c0, w0, c1, w1;

	w0 = rn_mono_ns();
	c0 = rn_now_ns(CLOCK_THREAD_CPUTIME_ID);
	for (i = 0; i < PROBE_ITERATIONS; i++) {
		x ^= x << 13; /* xorshift32: addresses the prefetcher cannot guess */
		x ^= x >> 17;
		x ^= x << 5;
		buf[x & (PROBE_WORDS - 1)] += i;
		sum += buf[(x >> 7) & (PROBE_WORDS - 1)];
	}
	c1 = rn_now_ns(CLOCK_THREAD_CPUTIME_ID);
	w1 = rn_mono_ns();
	sink = sum;
	(void)sink;
	r->probe_cpu_ns = rn_xrealloc(r->probe_cpu_ns, (r->nprobes + 1) * sizeof(double));
	r->probe_wall_ns = rn_xrealloc(r->probe_wall_ns, (r->nprobes + 1) * sizeof(double));
	r->probe_cpu_ns[r->nprobes] = (double)(c1 - c0);
	r->probe_wall_ns[r->nprobes] = (double)(w1 - w0);
	r->nprobes++;
}

/* ---- golden update: its own noise ---------------------------------------------------------- */

static const struct {
	enum rn_metric metric;
	enum rn_golden_check check;
} timing_metrics[] = {
	{ RN_METRIC_CPU_TIME, RN_GOLDEN_CHECK_CPU_TIME },
	{ RN_METRIC_WALL, RN_GOLDEN_CHECK_WALL_TIME },
	{ RN_METRIC_CRITICAL_PATH, RN_GOLDEN_CHECK_CRITICAL_PATH },
};

int rn_golden_noise_report(const struct rn_target_result *r, const struct rn_regression_cfg *cfg)
{
	size_t i, k;
	int warned = 0;

	if (!r->nruns)
		return 0;
	if (cfg->timing &&
	    !rn_golden_timing_feasible(r->nruns, cfg->min_runs_for_timing, cfg->alpha)) {
		size_t need =
			rn_golden_timing_min_runs(cfg->min_runs_for_timing, r->nruns, cfg->alpha);

		rn_warn("target '%s': a golden trace of %zu run%s cannot reach alpha %g against "
			"%u measured runs (min_runs_for_timing): timing will be NOT JUDGED; record "
			"at least %zu runs ([golden] runs)",
			r->name, r->nruns, r->nruns == 1 ? "" : "s", cfg->alpha,
			cfg->min_runs_for_timing, need);
		warned++;
	}
	for (i = 0; cfg->timing && i < sizeof(timing_metrics) / sizeof(timing_metrics[0]); i++) {
		enum rn_metric m = timing_metrics[i].metric;
		double tol = cfg->tolerance[timing_metrics[i].check] >= 0.0 ?
			cfg->tolerance[timing_metrics[i].check] :
			cfg->timing_tolerance;
		double *s, spread, lo, hi, med;
		char load[96] = "";
		size_t n = 0;

		if (!cfg->judged[timing_metrics[i].check])
			continue;
		s = rn_target_result_samples(r, m, &n);
		if (n < 2) {
			free(s);
			continue;
		}
		spread = rn_golden_spread(s, n);
		med = rn_stats_median(s, n);
		lo = hi = s[0];
		for (k = 1; k < n; k++) {
			lo = fmin(lo, s[k]);
			hi = fmax(hi, s[k]);
		}
		free(s);
		if (!(spread > tol) || !(med > 0.0))
			continue;
		if (r->has_cpu_pressure)
			snprintf(load, sizeof(load), "; CPU pressure %.0f%% during the runs",
				 r->cpu_pressure * 100.0);
		rn_warn("target '%s': %s samples spread %.1f%% (1.4826 MAD / median; %zu runs "
			"from %.2f to %.2f ms, median %.2f ms%s), wider than its tolerance %+.0f%%: "
			"slowdowns within that spread will be INCONCLUSIVE; record on a quieter "
			"machine, with more runs ([golden] runs), or loosen [golden.tolerances] %s",
			r->name, rn_metric_info(m)->name, spread * 100.0, n, lo / 1e6, hi / 1e6,
			med / 1e6, load, tol * 100.0, rn_metric_info(m)->name);
		warned++;
	}
	return warned;
}

/* ---- golden identity ----------------------------------------------------------------------- */

static void join_argv(struct rn_buf *b, const char *const *argv)
{
	size_t i;

	for (i = 0; argv && argv[i]; i++)
		rn_buf_addf(b, "%s%s", i ? " " : "", argv[i]);
}

bool rn_golden_identity_warn(const struct rn_golden *g, const char *golden_file, const char *target,
			     const char *const *argv_rel)
{
	bool other_target = g->target && target && strcmp(g->target, target);
	bool other_argv = false;
	size_t i;

	if (g->argv && g->argv[0] && argv_rel) {
		for (i = 0; g->argv[i] && argv_rel[i]; i++) {
			/* a golden trace written before the results folder was masked */
			char *word = rn_xstrdup(g->argv[i]);
			bool same;

			rn_report_mask_bench_dir(word);
			same = !strcmp(word, argv_rel[i]);
			free(word);
			if (!same)
				break;
		}
		other_argv = g->argv[i] || argv_rel[i];
	}
	if (other_target) {
		rn_warn("golden trace '%s' was recorded for target '%s', not '%s': it is compared "
			"anyway; re-record it (renacer golden update --target %s) if it was copied",
			golden_file, g->target, target, target);
	}
	if (other_argv) {
		struct rn_buf a, b;

		rn_buf_init(&a, 1024);
		rn_buf_init(&b, 1024);
		join_argv(&a, (const char *const *)g->argv);
		join_argv(&b, argv_rel);
		rn_warn("golden trace '%s' was recorded with another command: '%s', now '%s'; the "
			"comparison may measure a different program (re-record it with renacer "
			"golden update --target %s)",
			golden_file, a.buf ? a.buf : "", b.buf ? b.buf : "", target);
		rn_buf_release(&a);
		rn_buf_release(&b);
	}
	return other_target || other_argv;
}

/* ---- validate: feasibility ----------------------------------------------------------------- */

/* The smallest max_runs under which a paired comparison can decide at `alpha`. */
static size_t feasible_max(double alpha)
{
	size_t m;

	for (m = 2; m <= 1000; m++)
		if (rn_seq_paired_first(m, alpha))
			return m;
	return 0;
}

static bool timing_judged(const struct rn_regression_cfg *r)
{
	size_t i;

	if (!r->enabled || !r->timing)
		return false;
	for (i = 0; i < sizeof(timing_metrics) / sizeof(timing_metrics[0]); i++)
		if (r->judged[timing_metrics[i].check])
			return true;
	return false;
}

int rn_config_check_feasible(const struct rn_config *cfg, bool color)
{
	const struct rn_regression_cfg *r = &cfg->regression;
	int errors = 0;
	size_t i;

	if (r->timing && !rn_seq_paired_first(r->max_runs, r->alpha))
		/* --baseline only: a warning, since a golden-only config may set it low */
		rn_warn("%s: [regression] max_runs = %u can never decide a same-job baseline "
			"(check --baseline) at alpha %g: no number of pairs up to it reaches its "
			"share of alpha; use max_runs >= %zu or a larger alpha",
			cfg->path, r->max_runs, r->alpha, feasible_max(r->alpha));
	if (!timing_judged(r))
		return errors;
	for (i = 0; i < cfg->ntargets; i++) {
		const struct rn_target_cfg *tc = &cfg->targets[i];
		size_t nb = tc->runs,
		       na = tc->runs > cfg->golden_runs ? tc->runs : cfg->golden_runs;
		const char *from = "golden update would record";
		char *path;
		struct rn_golden g;
		struct rn_diag d;

		if (nb < r->min_runs_for_timing)
			continue; /* check reports NOT JUDGED, naming the runs to add */
		path = rn_golden_path(cfg->golden_dir, tc->name);
		if (path && !access(path, R_OK)) {
			rn_diag_init(&d, path, NULL, 0);
			if (!rn_golden_read(path, &g, &d)) {
				if (!g.counts_only) {
					na = g.nruns;
					from = "its golden trace has";
				}
				rn_golden_release(&g);
			}
		}
		free(path);
		{
			/* Adaptive repeats: the last look, at max_runs, with its alpha share. */
			struct rn_seq_design seq = { nb, nb > r->max_runs ? nb : r->max_runs,
						     r->alpha };

			if (rn_golden_timing_feasible(na, seq.max, rn_seq_alpha(&seq, seq.max)))
				continue;
		}
		{
			size_t need_b = rn_golden_timing_min_runs(na, nb, r->alpha);
			size_t need_a = rn_golden_timing_min_runs(nb, na, r->alpha);
			char msg[RN_DIAG_MSG_MAX];

			snprintf(msg, sizeof(msg),
				 "target '%s': runs = %zu against %zu golden runs (%s) can never "
				 "reach alpha %g in the rank test (adaptive repeats up to max_runs "
				 "%u), so its timing could never fail; use runs >= %zu, or golden "
				 "runs >= %zu ([golden] runs, then renacer golden update), or a larger "
				 "alpha or max_runs",
				 tc->name, nb, na, from, r->alpha, r->max_runs, need_b, need_a);
			rn_diag_init(&d, cfg->path, cfg->src, cfg->src_len);
			rn_diag_set(&d, tc->line, 1, "%s", msg);
			rn_diag_print(&d, color);
			errors++;
		}
	}
	return errors;
}
