/*
 * golden.c - golden traces: configuration, check names, timing feasibility, host provenance,
 * file names, and rn_golden_compare(), which runs the step table through the judges of
 * golden_counts.c, golden_timing.c and golden_memory.c. Reading and writing the files:
 * golden_read.c, golden_write.c. Shared declarations: internal.h.
 */
#include "golden.h"
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <time.h>

#include "buf.h"
#include "now.h"
#include "safefile.h"
#include "stats.h"
#include "xalloc.h"

const char *const rn_pair_scheme_names[] = {
#define RN_PAIR_SCHEME_NAME(id, name) name,
	RN_PAIR_SCHEMES(RN_PAIR_SCHEME_NAME)
#undef RN_PAIR_SCHEME_NAME
		NULL,
};

void rn_regression_cfg_init(struct rn_regression_cfg *cfg)
{
	cfg->enabled = true;
	cfg->count_tolerance = RN_REGRESSION_COUNT_TOLERANCE;
	cfg->instructions_tolerance = RN_REGRESSION_INSTRUCTIONS_TOLERANCE;
	cfg->count_floor = RN_REGRESSION_COUNT_FLOOR;
	cfg->timing_tolerance = RN_REGRESSION_TIMING_TOLERANCE;
	cfg->memory_tolerance = RN_REGRESSION_MEMORY_TOLERANCE;
	cfg->memory_floor_bytes = RN_REGRESSION_MEMORY_FLOOR_BYTES;
	cfg->load_guard = true;
	cfg->alpha = RN_REGRESSION_ALPHA;
	cfg->timing = true;
	cfg->min_runs_for_timing = RN_REGRESSION_MIN_RUNS_FOR_TIMING;
	cfg->max_runs = RN_REGRESSION_MAX_RUNS;
	cfg->drift_limit = RN_REGRESSION_DRIFT_LIMIT;
	cfg->pin = true;
	cfg->pairs = RN_PAIRS_DEFAULT;
	cfg->timing_guard = true;
	cfg->time_budget_s = RN_REGRESSION_TIME_BUDGET_S;
	cfg->not_judged_fails = false;
	for (size_t i = 0; i < RN_GOLDEN_CHECK_COUNT; i++) {
		cfg->judged[i] = true;
		cfg->tolerance[i] = -1.0;
	}
}

static const char *const check_names[RN_GOLDEN_CHECK_COUNT] = {
#define RN_GOLDEN_CHECK_NAME(id, name) name,
	RN_GOLDEN_CHECKS(RN_GOLDEN_CHECK_NAME)
#undef RN_GOLDEN_CHECK_NAME
};

int rn_golden_check_lookup(const char *name)
{
	for (int i = 0; i < RN_GOLDEN_CHECK_COUNT; i++)
		if (!strcmp(check_names[i], name))
			return i;
	return -1;
}

const char *rn_golden_check_name(enum rn_golden_check c)
{
	return c < RN_GOLDEN_CHECK_COUNT ? check_names[c] : "?";
}

/* The smallest one-sided p-value a Mann-Whitney test of na against nb samples can give. */
double rn_golden_min_p(size_t na, size_t nb)
{
	double n = (double)(na + nb), a = (double)na, b = (double)nb;

	if (!na || !nb)
		return 1.0;
	if (na + nb <= RN_STATS_EXACT_MAX) { /* one labelling of C(N, na) has the largest U */
		double comb = 1.0;
		size_t i;

		for (i = 1; i <= na; i++) /* exact while C(N, i) < 2^53, rounded once beyond */
			comb = comb * (double)(nb + i) / (double)i;
		return 1.0 / comb;
	}
	return rn_stats_normal_sf((a * b / 2.0 - 0.5) / sqrt(a * b * (n + 1.0) / 12.0));
}

bool rn_golden_timing_feasible(size_t na, size_t nb, double alpha)
{
	return rn_golden_min_p(na, nb) < alpha;
}

size_t rn_golden_timing_min_runs(size_t na, size_t least, double alpha)
{
	size_t nb;

	for (nb = least ? least : 1; na && nb <= 1000; nb++)
		if (rn_golden_timing_feasible(na, nb, alpha))
			return nb;
	return 0;
}

double rn_golden_spread(const double *x, size_t n)
{
	double med;

	if (n < 2)
		return 0.0;
	med = rn_stats_median(x, n);
	return med > 0.0 ? 1.4826 * rn_stats_mad(x, n) / med : 0.0;
}

/* ---- host provenance ---------------------------------------------------------------------- */

static void copy_field(char *dst, size_t cap, const char *src, size_t len)
{
	if (len >= cap)
		len = cap - 1;
	memcpy(dst, src, len);
	dst[len] = '\0';
}

/*
 * The first "model name" of /proc/cpuinfo (x86, and arm64 kernels >= 6.x on some SoCs). It is
 * in the first lines, so a fixed buffer does: no allocation that could fail and silently turn
 * the provenance into "unknown".
 */
static void read_cpu_model(char *dst, size_t cap)
{
	char buf[8192];
	ssize_t n = 0, r;
	const char *p;
	int fd;

	copy_field(dst, cap, "unknown", 7);
	fd = open("/proc/cpuinfo", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	while (n < (ssize_t)sizeof(buf) - 1) {
		r = read(fd, buf + n, sizeof(buf) - 1 - (size_t)n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += r;
	}
	close(fd);
	buf[n] = '\0';
	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *colon, *end, *v;

		if (strncmp(p, "model name", 10))
			continue;
		colon = strchr(p, ':');
		end = strchr(p, '\n');
		if (!colon || (end && colon > end))
			continue;
		if (!end)
			end = p + strlen(p);
		for (v = colon + 1; v < end && (*v == ' ' || *v == '\t'); v++)
			;
		while (end > v && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
			end--;
		if (end > v)
			copy_field(dst, cap, v, (size_t)(end - v));
		break;
	}
}

void rn_golden_host(struct rn_golden_host *h)
{
	struct utsname u;

	if (uname(&u) == 0) {
		copy_field(h->kernel, sizeof(h->kernel), u.release, strlen(u.release));
		copy_field(h->machine, sizeof(h->machine), u.machine, strlen(u.machine));
	} else {
		copy_field(h->kernel, sizeof(h->kernel), "unknown", 7);
		copy_field(h->machine, sizeof(h->machine), "unknown", 7);
	}
	read_cpu_model(h->cpu_model, sizeof(h->cpu_model));
}

bool rn_golden_same_machine(const struct rn_golden *g)
{
	struct rn_golden_host h;

	if (!g->cpu_model || !g->kernel || !g->machine)
		return false;
	rn_golden_host(&h);
	return !strcmp(g->cpu_model, h.cpu_model) && !strcmp(g->kernel, h.kernel) &&
		!strcmp(g->machine, h.machine);
}

unsigned rn_golden_fp_mask(const struct rn_golden *g, const struct rn_target_result *r)
{
	if (!g->has_fingerprint || !r->has_fingerprint)
		return 0;
	return rn_fingerprint_diff(&g->fingerprint, &r->fingerprint);
}

char *rn_golden_path(const char *dir, const char *target)
{
	struct rn_buf b;

	if (!*target || !strcmp(target, ".") || !strcmp(target, "..") || strchr(target, '/'))
		return NULL;
	rn_buf_init(&b, 0);
	rn_buf_addf(&b, "%s/%s.json", dir, target);
	if (rn_buf_failed(&b))
		rn_die("out of memory");
	return rn_buf_detach(&b, NULL);
}

static const struct rn_golden_step steps[] = {
	{ RN_GOLDEN_CHECK_SYSCALLS, JUDGE_COUNT, RN_METRIC_SYSCALLS, "syscalls", "calls", false },
	{ RN_GOLDEN_CHECK_SYSCALL_COUNTS, JUDGE_SYSCALLS, RN_METRIC_SYSCALLS, "syscall_counts",
	  "calls", false },
	{ RN_GOLDEN_CHECK_PROCESSES, JUDGE_PROCESSES, RN_METRIC_PROCESSES, "processes", "processes",
	  false },
	{ RN_GOLDEN_CHECK_CPU_TIME, JUDGE_TIMING, RN_METRIC_CPU_TIME, "cpu_time", "ms", false },
	{ RN_GOLDEN_CHECK_WALL_TIME, JUDGE_TIMING, RN_METRIC_WALL, "wall_time", "ms", false },
	{ RN_GOLDEN_CHECK_CRITICAL_PATH, JUDGE_TIMING, RN_METRIC_CRITICAL_PATH, "critical_path",
	  "ms", false },
	{ RN_GOLDEN_CHECK_PEAK_RSS, JUDGE_MEMORY, RN_METRIC_PEAK_RSS, "peak_rss", "bytes", false },
	{ RN_GOLDEN_CHECK_ALLOC_PEAK, JUDGE_MEMORY, RN_METRIC_ALLOC_PEAK, "alloc_peak", "bytes",
	  false },
	{ RN_GOLDEN_CHECK_GPU_BUSY, JUDGE_TIMING, RN_METRIC_GPU_BUSY, "gpu_busy", "ms", true },
	{ RN_GOLDEN_CHECK_GPU_DISPATCHES, JUDGE_COUNT, RN_METRIC_GPU_DISPATCHES, "gpu_dispatches",
	  "spans", true },
	{ RN_GOLDEN_CHECK_GPU_COPY_BYTES, JUDGE_COUNT, RN_METRIC_GPU_COPY_BYTES, "gpu_copy_bytes",
	  "bytes", true },
	{ RN_GOLDEN_CHECK_INSTRUCTIONS, JUDGE_INSTRUCTIONS, RN_METRIC_INSTRUCTIONS, "instructions",
	  "instructions", false },
};

/* The step judging metric `m` (a timing metric of the table above). */
const struct rn_golden_step *rn_golden_step_of(enum rn_metric m)
{
	size_t i;

	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		if (steps[i].metric == m && steps[i].judge != JUDGE_SYSCALLS)
			return &steps[i];
	return &steps[0];
}
/* A new verdict "golden:<name>[:<sub>]" of step `s` (sub: a span's name, or NULL). */
static struct rn_verdict_result *add_verdict_of(struct rn_golden_cmp *c,
						const struct rn_golden_step *s, const char *sub)
{
	struct rn_verdict_result *v;
	struct rn_buf name;

	c->v = rn_xgrow(c->v, &c->cap, c->n + 1, sizeof(*c->v));
	v = &c->v[c->n++];
	memset(v, 0, sizeof(*v));
	rn_buf_init(&name, 0);
	rn_buf_addf(&name, "golden:%s%s%s", s->name, sub ? ":" : "", sub ? sub : "");
	if (rn_buf_failed(&name))
		rn_die("out of memory");
	v->assertion = rn_buf_detach(&name, NULL);
	v->type = rn_xstrdup("regression");
	v->target = rn_xstrdup(c->r->name ? c->r->name : "");
	v->unit = s->unit;
	return v;
}

static struct rn_verdict_result *add_verdict(struct rn_golden_cmp *c,
					     const struct rn_golden_step *s)
{
	return add_verdict_of(c, s, NULL);
}

static char *aggregate_text(const struct rn_golden_cmp *c)
{
	struct rn_buf b;

	rn_buf_init(&b, 0);
	rn_buf_addf(&b, "median of %zu run%s (golden: %zu run%s)", c->r->nruns,
		    c->r->nruns == 1 ? "" : "s", c->g->nruns, c->g->nruns == 1 ? "" : "s");
	return rn_buf_detach(&b, NULL);
}

/* Every verdict ERROR: the target did not run cleanly, there is nothing to compare. */
static void not_compared(struct rn_golden_cmp *c, struct rn_verdict_result *v)
{
	struct rn_buf b;

	v->verdict = RN_VERDICT_ERROR;
	rn_buf_init(&b, 0);
	if (!c->r->nruns)
		rn_buf_addf(&b,
			    "not compared with the golden trace: target '%s' has no measured "
			    "runs",
			    v->target);
	else
		rn_buf_addf(&b, "not compared with the golden trace: target '%s' %s%s%s", v->target,
			    rn_golden_status_name(c->r->status), c->r->error ? ": " : "",
			    c->r->error ? c->r->error : "");
	rn_golden_set_message(v, &b);
}

static void describe_elsewhere(struct rn_golden_cmp *c)
{
	const struct rn_golden *g = c->g;
	struct rn_golden_host h;
	struct rn_buf b;
	char *s;

	rn_golden_host(&h);
	rn_buf_init(&b, sizeof(c->elsewhere) - 1);
	if (!g->cpu_model || !g->kernel || !g->machine) {
		rn_buf_adds(&b, "its machine is not recorded");
	} else {
		const char *sep = "";

		if (strcmp(g->cpu_model, h.cpu_model)) {
			rn_buf_addf(&b, "cpu '%.100s', here '%.100s'", g->cpu_model, h.cpu_model);
			sep = "; ";
		}
		if (strcmp(g->kernel, h.kernel)) {
			rn_buf_addf(&b, "%skernel %.60s, here %.60s", sep, g->kernel, h.kernel);
			sep = "; ";
		}
		if (strcmp(g->machine, h.machine))
			rn_buf_addf(&b, "%smachine %.30s, here %.30s", sep, g->machine, h.machine);
	}
	s = rn_buf_detach(&b, NULL);
	snprintf(c->elsewhere, sizeof(c->elsewhere), "%s", s ? s : "differs");
	free(s);
}

/* The span rows' step: a span's duration is judged as a wall time (the wall speed probe, and
 * advisory under load unless cpu_time fails beyond the drift limit), one row per span name. */
static const struct rn_golden_step span_step = {
	RN_GOLDEN_CHECK_SPAN_TIME, JUDGE_TIMING, RN_METRIC_WALL, "span_time", "ms", false
};

/* The span CPU rows' step: a span's thread CPU time is judged as cpu_time is (the CPU speed
 * probe; under load it still gates beyond the drift limit), one row per span name whose spans
 * carried CPU time in the golden's runs and in these. */
static const struct rn_golden_step span_cpu_step = {
	RN_GOLDEN_CHECK_SPAN_CPU, JUDGE_TIMING, RN_METRIC_CPU_TIME, "span_cpu", "ms", false
};

/* A span row that is not compared: SKIP with `reason`; the message says why. */
static void span_skip(struct rn_verdict_result *v, const char *name, const char *reason,
		      const char *why)
{
	struct rn_buf b;

	v->verdict = RN_VERDICT_SKIP;
	v->reason = rn_xstrdup(reason);
	rn_buf_init(&b, 0);
	rn_buf_addf(&b, "%s: not compared: %s", name, why);
	rn_golden_set_message(v, &b);
}

/* The golden:span_time row of one app span: `gold` its series in the golden trace (NULL: not
 * there), `obs` in the runs (NULL: in no run). */
static void span_row(struct rn_golden_cmp *c, const struct rn_span_series *gold,
		     const struct rn_span_series *obs, bool failed_target)
{
	const char *name = gold ? gold->name : obs->name;
	struct rn_verdict_result *v = add_verdict_of(c, &span_step, name);
	uint64_t t0 = rn_mono_ns();
	char why[200];

	if (failed_target) {
		not_compared(c, v);
	} else if (!c->cfg->judged[span_step.check]) {
		span_skip(v, name, "not in [golden] metrics", "not listed in [golden] metrics");
	} else if (!c->g->has_spans) {
		snprintf(why, sizeof(why),
			 "the golden trace (%s) records no span durations; re-record it (renacer "
			 "golden update) to compare them",
			 c->g->version == 2         ? RN_GOLDEN_FORMAT_V2 :
				 c->g->version == 1 ? RN_GOLDEN_FORMAT_V1 :
						      RN_GOLDEN_JSON_V1);
		span_skip(v, name, "the golden trace has no span data", why);
	} else if (!gold) {
		span_skip(v, name, "not in the golden trace",
			  "a span the golden trace does not have (new since it was recorded); "
			  "re-record it (renacer golden update) to compare it");
	} else {
		rn_golden_judge_span_time(c, &span_step, gold, obs, v);
		v->aggregate = aggregate_text(c);
	}
	v->time_ns = rn_mono_ns() - t0;
}

/* The golden:span_cpu row of one app span, only where both the golden's runs and these had its
 * CPU time (renacer_span.h push/pop; OTLP spans and older golden traces have none): without
 * both nothing is judged, and no row says PASS. */
static void span_cpu_row(struct rn_golden_cmp *c, const struct rn_span_series *gold,
			 const struct rn_span_series *obs, bool failed_target)
{
	struct rn_verdict_result *v;
	uint64_t t0 = rn_mono_ns();

	if (!gold || !obs || !gold->ncpu || !obs->ncpu || !c->g->has_spans)
		return;
	v = add_verdict_of(c, &span_cpu_step, gold->name);
	if (failed_target) {
		not_compared(c, v);
	} else if (!c->cfg->judged[span_cpu_step.check]) {
		span_skip(v, gold->name, "not in [golden] metrics",
			  "not listed in [golden] metrics");
	} else {
		rn_golden_judge_span_time(c, &span_cpu_step, gold, obs, v);
		v->aggregate = aggregate_text(c);
	}
	v->time_ns = rn_mono_ns() - t0;
}

/* The golden:span_time rows: one per app span name of the golden trace (when it records span
 * durations) or of the runs, in name order, each followed by its golden:span_cpu row when both
 * sides measured the span's CPU time. */
static void compare_spans(struct rn_golden_cmp *c, bool failed_target)
{
	const struct rn_target_result *r = c->r;
	size_t i = 0, k = 0, ng = c->g->has_spans ? c->g->nspans : 0;

	while (i < ng || k < r->napp_spans) {
		const struct rn_span_series *gs = i < ng ? &c->g->spans[i] : NULL;
		const struct rn_span_series *os = k < r->napp_spans ? &r->app_spans[k] : NULL;
		int cmp = !gs ? 1 : !os ? -1 : strcmp(gs->name, os->name);

		span_row(c, cmp <= 0 ? gs : NULL, cmp >= 0 ? os : NULL, failed_target);
		span_cpu_row(c, cmp <= 0 ? gs : NULL, cmp >= 0 ? os : NULL, failed_target);
		i += cmp <= 0;
		k += cmp >= 0;
	}
}

bool rn_golden_counts_fail(const struct rn_golden *g, const struct rn_target_result *r,
			   const struct rn_regression_cfg *cfg)
{
	struct rn_verdict_result *v = NULL;
	size_t n = 0, i;
	bool fail = false;

	if (rn_golden_compare(g, "", r, cfg, &v, &n))
		return false;
	for (i = 0; i < n; i++) {
		if (v[i].verdict == RN_VERDICT_FAIL && v[i].assertion &&
		    (!strcmp(v[i].assertion, "golden:syscalls") ||
		     !strcmp(v[i].assertion, "golden:syscall_counts") ||
		     !strcmp(v[i].assertion, "golden:alloc_peak")))
			fail = true;
		rn_verdict_result_release(&v[i]);
	}
	free(v);
	return fail;
}

int rn_golden_compare(const struct rn_golden *g, const char *golden_path,
		      const struct rn_target_result *r, const struct rn_regression_cfg *cfg,
		      struct rn_verdict_result **out, size_t *nout)
{
	struct rn_golden_cmp c = { .g = g, .path = golden_path, .r = r, .cfg = cfg };
	bool failed_target = !r->nruns || r->status != RN_RUN_OK;
	bool observed_gpu = false;
	size_t i;

	*out = NULL;
	*nout = 0;
	if (!cfg->enabled)
		return 0;
	c.same_machine = rn_golden_same_machine(g);
	c.user_share = rn_golden_user_share(g, cfg);
	c.fp_mask = rn_golden_fp_mask(g, r);
	if (!c.same_machine)
		describe_elsewhere(&c);
	for (i = 0; i < r->nruns; i++)
		observed_gpu |= r->runs[i].has_gpu;

	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		const struct rn_golden_step *s = &steps[i];
		struct rn_verdict_result *v;
		uint64_t t0;

		if (s->judge != JUDGE_SYSCALLS && !g->samples[s->metric])
			continue; /* not in the golden trace (counts-only baselines) */
		if (s->gpu && !g->has_gpu)
			continue;
		if (s->judge == JUDGE_TIMING && !rn_target_result_time_judged(r, s->metric))
			continue; /* a harness's benchmark: times the harness does not report */
		t0 = rn_mono_ns();
		v = add_verdict(&c, s);
		if (failed_target) {
			not_compared(&c, v);
		} else if (!cfg->judged[s->check]) {
			struct rn_buf b;

			v->verdict = RN_VERDICT_SKIP;
			v->reason = rn_xstrdup("not in [golden] metrics");
			rn_buf_init(&b, 0);
			rn_buf_addf(&b, "%s: not compared (not listed in [golden] metrics)",
				    s->name);
			rn_golden_set_message(v, &b);
		} else if (s->gpu && !observed_gpu) {
			struct rn_buf b;

			v->verdict = RN_VERDICT_NO_DATA;
			rn_buf_init(&b, 0);
			rn_buf_addf(&b,
				    "%s: no GPU spans in any run, the golden trace has them "
				    "(is the Vulkan collector enabled for this target?)",
				    s->name);
			rn_golden_set_message(v, &b);
		} else {
			switch (s->judge) {
			case JUDGE_COUNT:
				rn_golden_judge_count(&c, s, v);
				break;
			case JUDGE_SYSCALLS:
				rn_golden_judge_syscalls(&c, s, v);
				break;
			case JUDGE_TIMING:
				rn_golden_judge_timing(&c, s, v);
				break;
			case JUDGE_MEMORY:
				rn_golden_judge_memory(&c, s, v);
				break;
			case JUDGE_PROCESSES:
				rn_golden_judge_processes(&c, s, v);
				break;
			case JUDGE_INSTRUCTIONS:
				rn_golden_judge_instructions(&c, s, v);
				/* a total that lacks processes is not a measurement */
				rn_verdict_apply_gaps(r, RN_GAP_INSTRUCTIONS, false, v);
				break;
			}
			v->aggregate = aggregate_text(&c);
		}
		v->time_ns = rn_mono_ns() - t0;
	}
	compare_spans(&c, failed_target);
	*out = c.v;
	*nout = c.n;
	return 0;
}
