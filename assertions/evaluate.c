/*
 * evaluate.c - judging one [[assertion]] against the runs of one target.
 *
 * Every comparison is inclusive: a value equal to its budget passes. A metric without data is
 * NO DATA (an error), never a pass. Budgets come from renacer.toml in the units the key names
 * carry; messages print them back in those units.
 */
#include "assertion.h"
#include "internal.h"

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "golden.h"
#include "stats.h"
#include "units.h"
#include "xalloc.h"

bool rn_assertion_applies(const struct rn_assertion_spec *a, const char *target)
{
	char **t;

	if (a->targets) {
		for (t = a->targets; *t; t++)
			if (!strcmp(*t, target))
				break;
		if (!*t)
			return false;
	}
	/* A match that gave up applies the assertion: its verdict is then ERROR (below). */
	if (a->trace_re && !rn_regex_match(a->trace_re, target) &&
	    !rn_regex_limit_hits(a->trace_re))
		return false;
	return true;
}

/* Name/count pairs for span_count, kept sorted by count (highest first) among the top n. */
static void top_insert(const char **names, uint64_t *counts, size_t ntop, const char *name,
		       uint64_t count)
{
	size_t i, j;

	for (i = 0; i < ntop; i++) {
		if (!names[i] || count > counts[i]) {
			for (j = ntop - 1; j > i; j--) {
				names[j] = names[j - 1];
				counts[j] = counts[j - 1];
			}
			names[i] = name;
			counts[i] = count;
			return;
		}
	}
}

/*
 * Names are kept as pointers while ranking (syscall names are static, GPU names live in
 * `gpu_names`) and copied out at the end.
 */
/* Spans of one name count together when they match under the same prefix: work ("gpu:"),
 * regions ("region:") and graph replays ("graph:") never mix. */
static int match_class(enum rn_gpu_kind kind)
{
	return kind == RN_GPU_REGION ? 1 : kind == RN_GPU_GRAPH ? 2 : 0;
}

bool rn_gpu_span_in_region(const struct rn_gpu_span *g, const struct rn_regex *region_re)
{
	if (!region_re)
		return true;
	return g->region && rn_regex_match(region_re, g->region);
}

/* The ranking of rn_span_count: the top names and counts so far, the names it owns (GPU and
 * app span names built for matching) and the total. */
struct span_rank {
	const char **names; /* top names [ntop], borrowed from the trace or from `owned` */
	uint64_t *counts;   /* their counts [ntop] */
	size_t ntop;        /* entries of names and counts */
	char **owned;       /* built names [nowned], freed at the end */
	size_t nowned;      /* entries of owned */
	uint64_t total;     /* spans counted */
};

/* Count `c` spans of name `full` (owned by the ranking from now on), or free it when c = 0. */
static void rank_owned(struct span_rank *rk, char *full, uint64_t c)
{
	if (!c) {
		free(full);
		return;
	}
	rk->total += c;
	rk->owned[rk->nowned] = full;
	top_insert(rk->names, rk->counts, rk->ntop, rk->owned[rk->nowned++], c);
}

/* Syscall spans, by syscall name. Syscalls happen in no region: a region filter leaves them
 * out. */
static void count_syscalls(const struct rn_trace *t, const struct rn_regex *re,
			   const struct rn_regex *region_re, struct span_rank *rk)
{
	int nr, n = rn_syscall_table_size();

	for (nr = 0; nr < n && !region_re; nr++) {
		struct rn_syscall_stat s = rn_trace_syscall_total(t, nr);

		if (!s.calls || !rn_regex_match(re, rn_syscall_name(nr)))
			continue;
		rk->total += s.calls;
		top_insert(rk->names, rk->counts, rk->ntop, rn_syscall_name(nr), s.calls);
	}
}

/* GPU spans: count per distinct match name (quadratic in distinct names, which are few);
 * `done` marks spans already counted under an earlier span's name. Patterns see the full
 * name, however long (templated C++ kernels). Adds the counted spans' durations to *ns. */
static void count_gpu(const struct rn_trace *t, const struct rn_regex *re,
		      const struct rn_regex *region_re, struct span_rank *rk, uint64_t *ns)
{
	bool *done = rn_xcalloc(t->ngpu ? t->ngpu : 1, sizeof(*done));
	size_t i, j;

	for (i = 0; i < t->ngpu; i++) {
		const struct rn_gpu_span *gi = &t->gpu[i];
		size_t cap = strlen(gi->name) + 16;
		uint64_t c = 0;
		char *full;

		if (done[i])
			continue;
		for (j = i; j < t->ngpu; j++) {
			if (done[j] || match_class(t->gpu[j].kind) != match_class(gi->kind) ||
			    strcmp(t->gpu[j].name, gi->name))
				continue;
			done[j] = true;
		}
		full = rn_xmalloc(cap);
		rn_gpu_span_match_name(gi, full, cap);
		if (!rn_regex_match(re, full)) {
			free(full);
			continue;
		}
		for (j = i; j < t->ngpu; j++) {
			const struct rn_gpu_span *g = &t->gpu[j];

			if (match_class(g->kind) != match_class(gi->kind) ||
			    strcmp(g->name, gi->name) || !rn_gpu_span_in_region(g, region_re))
				continue;
			c++;
			if (g->end_ns > g->start_ns)
				*ns += g->end_ns - g->start_ns;
		}
		rank_owned(rk, full, c);
	}
	free(done);
}

/* The program's own spans, "app:<name>": a region filter keeps those whose enclosing app
 * span matches it. */
static void count_app(const struct rn_trace *t, const struct rn_regex *re,
		      const struct rn_regex *region_re, struct span_rank *rk)
{
	bool *adone = rn_xcalloc(t->napp ? t->napp : 1, sizeof(*adone));
	size_t i, j;

	for (i = 0; i < t->napp; i++) {
		const struct rn_app_span *ai = &t->app[i];
		uint64_t c = 0;
		char *full;

		if (adone[i])
			continue;
		full = rn_xmalloc(strlen(ai->name) + 5);
		memcpy(full, "app:", 4);
		memcpy(full + 4, ai->name, strlen(ai->name) + 1);
		for (j = i; j < t->napp; j++) {
			const struct rn_app_span *aj = &t->app[j];

			if (adone[j] || strcmp(aj->name, ai->name))
				continue;
			adone[j] = true;
			if (region_re && (!aj->parent || !rn_regex_match(region_re, aj->parent)))
				continue;
			c++;
		}
		if (c && !rn_regex_match(re, full))
			c = 0;
		rank_owned(rk, full, c);
	}
	free(adone);
}

uint64_t rn_span_count(const struct rn_trace *t, const struct rn_regex *re,
		       const struct rn_regex *region_re, char (*top_names)[RN_SPAN_NAME_MAX],
		       uint64_t *top_counts, size_t ntop, char **top_full, uint64_t *gpu_ns)
{
	struct span_rank rk = { 0 };
	uint64_t ns = 0;
	size_t i;

	rk.names = rn_xcalloc(ntop ? ntop : 1, sizeof(*rk.names));
	rk.counts = top_counts;
	rk.ntop = ntop;
	rk.owned = rn_xcalloc(t->ngpu + t->napp ? t->ngpu + t->napp : 1, sizeof(*rk.owned));
	for (i = 0; i < ntop; i++)
		top_counts[i] = 0;
	count_syscalls(t, re, region_re, &rk);
	count_gpu(t, re, region_re, &rk, &ns);
	count_app(t, re, region_re, &rk);
	for (i = 0; i < ntop; i++) {
		rn_gpu_display_name(rk.names[i] ? rk.names[i] : "", RN_GPU_DISPLAY_MAX,
				    top_names[i], RN_SPAN_NAME_MAX);
		if (top_full)
			top_full[i] = rk.names[i] ? rn_xstrdup(rk.names[i]) : NULL;
	}
	if (gpu_ns)
		*gpu_ns = ns;
	for (i = 0; i < rk.nowned; i++)
		free(rk.owned[i]);
	free(rk.owned);
	free(rk.names);
	return rk.total;
}

/* Fill the common fields of a verdict. */
static void verdict_begin(struct rn_verdict_result *out, const struct rn_assertion_spec *a,
			  const struct rn_target_result *r)
{
	memset(out, 0, sizeof(*out));
	out->assertion = rn_xstrdup(a->name);
	out->type = rn_xstrdup(rn_assertion_type_name(a->type));
	out->target = rn_xstrdup(r->name);
	out->config_line = a->line;
}

/* PASS, or FAIL/WARN by fail_on_violation, from an inclusive comparison. */
static void judge(struct rn_verdict_result *out, const struct rn_assertion_spec *a, bool ok)
{
	out->verdict =
		ok ? RN_VERDICT_PASS : (a->fail_on_violation ? RN_VERDICT_FAIL : RN_VERDICT_WARN);
	if (out->has_budget && out->budget > 0)
		out->delta_pct = (out->observed - out->budget) / out->budget * 100.0;
}

/* "5 runs: 10.1 10.3 ..." list of samples (ms) for the detail body. */
static void samples_line(struct rn_buf *b, const double *s, size_t n, double scale,
			 const char *unit)
{
	size_t i;

	rn_buf_addf(b, "samples (%zu run%s):", n, n == 1 ? "" : "s");
	for (i = 0; i < n && i < 50; i++)
		rn_buf_addf(b, " %.3f", s[i] / scale);
	if (n > 50)
		rn_buf_adds(b, " ...");
	rn_buf_addf(b, " %s\n", unit);
}

/* "timing run", "counting run" or "run" (a run that measured both): what gave the samples
 * of metric `m`, for the aggregate text. */
static const char *runs_word(const struct rn_target_result *r, enum rn_metric m)
{
	size_t n;
	const struct rn_metrics *runs = rn_target_result_runs_of(r, m, &n);

	if (n && runs[0].measures == RN_MEASURES_TIMES)
		return "timing run";
	if (n && runs[0].measures == RN_MEASURES_COUNTS)
		return "counting run";
	return "run"; /* runs that measured both */
}

static double drift_limit_of(const struct rn_assertion_spec *a)
{
	return a->has_drift_limit ? a->drift_limit : RN_REGRESSION_DRIFT_LIMIT;
}

/* The one-sided error rate of a time budget's evidence: a budget FAILs when the 95% lower
 * confidence bound of its aggregate is over it (with the default median and 5 runs: every
 * run over the budget, which an unchanged program whose median sits at the budget does in
 * 1 check of 32). */
#define RN_BUDGET_ALPHA 0.05

/* The quantile an aggregate states (rn_aggregate). */
static double quantile_of(enum rn_aggregate a)
{
	switch (a) {
	case RN_AGG_MIN:
		return 0.0;
	case RN_AGG_P95:
		return 0.95;
	case RN_AGG_MAX:
		return 1.0;
	case RN_AGG_MEDIAN:
		break;
	}
	return 0.5;
}

/*
 * How many CPUs the tree's CPU time can have been spread over at once: the tasks (processes
 * and their threads) of the last counting run, at most the CPUs this process may use; all
 * those CPUs when no counting run saw the tree. A program of one thread gets 1: its CPU time
 * is then a lower bound on its critical path that waiting for a CPU cannot raise.
 */
static double tree_parallelism(const struct rn_target_result *r)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t set;
	double tasks = 0.0;
	size_t i;

	if (!sched_getaffinity(0, sizeof(set), &set) && CPU_COUNT(&set) > 0)
		ncpu = CPU_COUNT(&set);
	if (ncpu < 1)
		ncpu = 1;
	for (i = 0; i < r->last.nprocs; i++)
		tasks += r->last.procs[i].nthreads ? r->last.procs[i].nthreads : 1;
	return tasks >= 1.0 && tasks < (double)ncpu ? tasks : (double)ncpu;
}

/* The evidence behind a time budget row (time_budget_judge). */
struct budget_evidence {
	double lower;       /* lower confidence bound of the aggregate, ns (-INFINITY: none) */
	size_t rank;        /* its order statistic (0: too few runs for a bound) */
	size_t over;        /* runs over the budget */
	bool gross;         /* no bound: every run beyond the drift limit over the budget */
	bool loaded;        /* CPU pressure >= RN_LOAD_PRESSURE_BUSY over the runs */
	double cpu_lower;   /* loaded: the same bound of CPU time / parallelism, ns */
	double parallelism; /* the divisor of cpu_lower */
};

/*
 * One rule for a time budget `budget` (ns) over samples `s` (ns): FAIL only when the evidence
 * shows the budget exceeded beyond what run-to-run noise and the machine's load explain.
 * - noise: the aggregate's lower confidence bound (rn_stats_quantile_lower at
 *   RN_BUDGET_ALPHA) is over the budget; with too few runs for a bound, every run is beyond
 *   the drift limit over it (and by at least RN_GOLDEN_DRIFT_FLOOR_NS);
 * - load: on a loaded machine a wall-clock time includes the waits for a CPU, so the same
 *   bound of the runs' CPU time spread over the tree's parallelism, which waiting does not
 *   raise, must be beyond the drift limit over the budget too (CPU time itself grows by up to
 *   +35-50% from cache and SMT contention under heavy load, docs/timing.md).
 * Returns true when the budget's excess is shown; fills `e`.
 */
static bool time_budget_shown(const struct rn_assertion_spec *a, struct rn_target_result *r,
			      const double *s, size_t n, double budget, struct budget_evidence *e)
{
	double q = quantile_of(a->aggregate), gross = budget * (1.0 + drift_limit_of(a));
	size_t i;
	bool shown;

	memset(e, 0, sizeof(*e));
	if (gross < budget + RN_GOLDEN_DRIFT_FLOOR_NS)
		gross = budget + RN_GOLDEN_DRIFT_FLOOR_NS;
	for (i = 0; i < n; i++)
		e->over += s[i] > budget;
	e->lower = rn_stats_quantile_lower(s, n, q, RN_BUDGET_ALPHA, &e->rank);
	shown = e->rank ? e->lower > budget : n && rn_aggregate(s, n, RN_AGG_MIN) > gross;
	e->gross = !e->rank && shown;
	e->loaded = r->has_cpu_pressure && r->cpu_pressure >= RN_LOAD_PRESSURE_BUSY;
	if (shown && e->loaded) {
		size_t nc;
		double *c = rn_target_result_samples(r, RN_METRIC_CPU_TIME, &nc);
		size_t rank;

		e->parallelism = tree_parallelism(r);
		for (i = 0; i < nc; i++)
			c[i] /= e->parallelism;
		e->cpu_lower =
			nc ? rn_stats_quantile_lower(c, nc, q, RN_BUDGET_ALPHA, &rank) : -INFINITY;
		if (nc && !rank)
			e->cpu_lower = rn_aggregate(c, nc, RN_AGG_MIN);
		free(c);
		shown = e->cpu_lower > gross;
	}
	return shown;
}

/* The message's reason for a time budget's verdict (`over`: the aggregate is over it). */
static void budget_reason(struct rn_buf *m, const struct rn_assertion_spec *a,
			  const struct rn_target_result *r, const struct budget_evidence *e,
			  size_t n, bool over, bool shown)
{
	if (!over)
		return;
	if (shown) {
		if (e->gross)
			rn_buf_addf(m, "; every run beyond +%.0f%% over it",
				    drift_limit_of(a) * 100.0);
		else
			rn_buf_addf(m, "; %zu of %zu runs over it, %.0f%% lower bound %.3f ms",
				    e->over, n, (1.0 - RN_BUDGET_ALPHA) * 100.0, e->lower / 1e6);
		if (e->loaded)
			rn_buf_addf(m,
				    "; on a loaded machine (CPU pressure %.0f%%) the runs' CPU time "
				    "alone (%.3f ms on %.0f CPU%s) is beyond +%.0f%% over it",
				    r->cpu_pressure * 100.0, e->cpu_lower / 1e6, e->parallelism,
				    e->parallelism == 1.0 ? "" : "s", drift_limit_of(a) * 100.0);
		return;
	}
	rn_buf_adds(m, "; inconclusive, not a gate: ");
	/* parallelism is set only where the noise showed it and the machine was loaded */
	if (e->parallelism > 0)
		rn_buf_addf(m,
			    "the machine was loaded (CPU pressure %.0f%% of the runs' time) and the "
			    "runs' CPU time (%.3f ms on %.0f CPU%s) stays within +%.0f%% of the "
			    "budget: waiting for a CPU can explain the rest; judge it on a quieter "
			    "machine or with --baseline",
			    r->cpu_pressure * 100.0, e->cpu_lower / 1e6, e->parallelism,
			    e->parallelism == 1.0 ? "" : "s", drift_limit_of(a) * 100.0);
	else if (!e->rank)
		rn_buf_addf(m,
			    "%zu run%s cannot show it beyond run-to-run noise (a bound needs at "
			    "least 5 runs: set the target's runs)",
			    n, n == 1 ? "" : "s");
	else
		rn_buf_addf(m,
			    "%zu of %zu runs over it, %.0f%% lower bound %.3f ms within it: "
			    "run-to-run noise can explain the excess",
			    e->over, n, (1.0 - RN_BUDGET_ALPHA) * 100.0, e->lower / 1e6);
}

void rn_critical_path_evaluate(const struct rn_assertion_spec *a, struct rn_target_result *r,
			       struct rn_verdict_result *out)
{
	size_t ns;
	double *s = rn_target_result_samples(r, RN_METRIC_CRITICAL_PATH, &ns);
	double v = rn_aggregate(s, ns, a->aggregate);
	const struct rn_trace *t = rn_target_result_cp_trace(r);
	struct budget_evidence e;
	struct rn_buf b, m;
	bool over, shown;
	size_t i;

	out->unit = "ms";
	out->has_budget = true;
	out->budget = (double)a->max_duration_ns / 1e6;
	out->aggregate = rn_xstrfmt("%s of %zu %s%s", rn_aggregate_name(a->aggregate), ns,
				    runs_word(r, RN_METRIC_CRITICAL_PATH), ns == 1 ? "" : "s");
	if (!ns) {
		out->verdict = RN_VERDICT_NO_DATA;
		out->message = rn_xstrfmt("no timing run measured the critical path");
		free(s);
		return;
	}
	out->has_observed = true;
	out->observed = v / 1e6;
	over = v > (double)a->max_duration_ns;
	shown = over && time_budget_shown(a, r, s, ns, (double)a->max_duration_ns, &e);
	judge(out, a, !over);
	if (over && !shown)
		out->verdict = RN_VERDICT_WARN;
	rn_buf_init(&m, 0);
	rn_buf_addf(&m, "critical path %.3f ms (%s) %s budget %.3f ms (%+.1f%%, inclusive)",
		    out->observed, out->aggregate, over ? ">" : "<=", out->budget, out->delta_pct);
	budget_reason(&m, a, r, &e, ns, over, shown);
	out->message = rn_buf_detach(&m, NULL);
	rn_buf_init(&b, 0);
	samples_line(&b, s, ns, 1e6, "ms");
	rn_buf_addf(&b, "chain of the last run (%zu segment%s):\n", r->cp.nsegments,
		    r->cp.nsegments == 1 ? "" : "s");
	for (i = 0; i < r->cp.nsegments && i < 20; i++) {
		const struct rn_cp_segment *sg = &r->cp.segments[i];
		const struct rn_process *p = &t->procs[sg->proc];

		rn_buf_addf(&b, "  %-20s pid %-7d %10.3f ms\n", p->comm ? p->comm : "?",
			    (int)p->pid, (double)(sg->end_ns - sg->start_ns) / 1e6);
	}
	if (r->cp.nsegments > 20)
		rn_buf_addf(&b, "  ... %zu more\n", r->cp.nsegments - 20);
	/* The longest syscalls of the root: where the chain's own time went (a counting run's,
	 * timing runs have none). */
	t = &r->last;
	if (t->nprocs && t->procs[0].sc) {
		const char *names[5];
		uint64_t tot[5];
		int nr, n = rn_syscall_table_size();

		memset(names, 0, sizeof(names));
		for (nr = 0; nr < n; nr++)
			if (t->procs[0].sc[nr].calls)
				top_insert(names, tot, 5, rn_syscall_name(nr),
					   t->procs[0].sc[nr].total_ns);
		rn_buf_adds(&b,
			    "longest syscalls of the root (a counting run, total under tracer):");
		for (i = 0; i < 5 && names[i]; i++)
			rn_buf_addf(&b, " %s %.3f ms", names[i], (double)tot[i] / 1e6);
		rn_buf_addc(&b, '\n');
	}
	out->detail = rn_buf_detach(&b, NULL);
	free(s);
}

/* Whether zero matching spans is a measurement: counts were taken (a counting run) and the
 * pattern fully matches the name of at least one syscall, so the target made none of them.
 * A pattern that names no syscall matched nothing because of what it says (a typo, a GPU name
 * without a GPU collector): that is no data, never a pass. */
static bool names_a_syscall(const struct rn_assertion_spec *a, const struct rn_target_result *r)
{
	int nr, nsc = rn_syscall_table_size();

	if (!a->span_re || !rn_target_result_count_runs(r))
		return false;
	for (nr = 0; nr < nsc; nr++)
		if (rn_regex_match(a->span_re, rn_syscall_name(nr)))
			return true;
	return false;
}

/* The span count of span_count's assertion `a` aggregated over the runs that measured counts:
 * syscall spans are counted per run, GPU spans (`last_total` holds those of the last run
 * with its syscall spans) are kept for the last run only and count the same in every run.
 * Sets out->aggregate (what was aggregated). Returns the aggregate count. */
static uint64_t span_count_over_runs(const struct rn_assertion_spec *a,
				     const struct rn_target_result *r, uint64_t last_total,
				     struct rn_verdict_result *out)
{
	size_t nk = rn_target_result_count_runs(r), k;
	const char *kind = r->ncounts ? "counting run" : "run";
	uint64_t gpu, last_sc = 0, total;
	double *per_run;
	int nr, nsc = rn_syscall_table_size();

	if (nk <= 1) {
		out->aggregate = rn_xstrfmt("%s of %zu %s", rn_aggregate_name(a->aggregate),
					    nk ? nk : 1, kind);
		return last_total;
	}
	per_run = rn_xcalloc(nk, sizeof(*per_run));
	for (nr = 0; nr < nsc && !a->region_re; nr++) {
		if (a->span_re && !rn_regex_match(a->span_re, rn_syscall_name(nr)))
			continue;
		for (k = 0; k < nk; k++)
			per_run[k] += (double)rn_target_result_run_calls(r, k, nr);
		last_sc += rn_target_result_run_calls(r, nk - 1, nr);
	}
	gpu = last_total >= last_sc ? last_total - last_sc : 0;
	for (k = 0; k < nk; k++)
		per_run[k] += (double)gpu;
	total = (uint64_t)(rn_aggregate(per_run, nk, a->aggregate) + 0.5);
	free(per_run);
	out->aggregate = rn_xstrfmt("%s of %zu %ss%s", rn_aggregate_name(a->aggregate), nk, kind,
				    gpu ? ", GPU spans of the last run" : "");
	return total;
}

/* The NO DATA message of a span_count that matched no span. */
static char *span_count_no_data(const struct rn_assertion_spec *a, const struct rn_target_result *r,
				bool gpu_pattern)
{
	return rn_xstrfmt("no span matched /%s/%s%s%s%s", a->span_name_pattern,
			  a->region_re ? " in a region matching /" : "",
			  a->region_re ? a->region_pattern : "", a->region_re ? "/" : "",
			  gpu_pattern && !r->last.ngpu ?
				  " (no GPU spans: is \"vulkan\" or \"cuda\" in the "
				  "target's collectors?)" :
				  a->region_re ? "" :
						 " (and it names no syscall: a typo?)");
}

/* The one-line message of a span_count verdict: the count against the budget, the top names
 * (shortened for consoles). */
static char *span_count_message(const struct rn_assertion_spec *a, const struct rn_target_result *r,
				const struct rn_verdict_result *out, uint64_t total,
				uint64_t gpu_ns, char (*names)[RN_SPAN_NAME_MAX],
				const uint64_t *counts)
{
	bool many = rn_target_result_count_runs(r) > 1;
	struct rn_buf b;
	size_t i;

	rn_buf_init(&b, 0);
	rn_buf_addf(&b, "%llu %s matching /%s/", (unsigned long long)total,
		    rn_plural((double)total, out->unit), a->span_name_pattern);
	if (a->region_re && (gpu_ns || r->last.ngpu))
		rn_buf_addf(&b, " in region /%s/ (GPU time %.3f ms)", a->region_pattern,
			    (double)gpu_ns / 1e6);
	else if (a->region_re) /* app spans in an enclosing app span: no GPU */
		rn_buf_addf(&b, " in region /%s/", a->region_pattern);
	rn_buf_addf(&b,
		    "%s%s%s %s budget %llu (%+.1f%%, "
		    "inclusive); top%s:",
		    many ? " (" : "", many ? out->aggregate : "", many ? ")" : "",
		    total <= a->max_spans ? "<=" : ">", (unsigned long long)a->max_spans,
		    out->delta_pct, many ? " of the last run" : "");
	for (i = 0; i < 5 && names[i][0]; i++)
		rn_buf_addf(&b, "%s %s=%llu", i ? "," : "", names[i],
			    (unsigned long long)counts[i]);
	return rn_buf_detach(&b, NULL);
}

/* The detail of a span_count verdict: the top names in full (JUnit, OTLP). */
static char *span_count_detail(const struct rn_verdict_result *out, char (*names)[RN_SPAN_NAME_MAX],
			       char **full, const uint64_t *counts)
{
	struct rn_buf b;
	size_t i;

	rn_buf_init(&b, 0);
	rn_buf_addf(&b, "spans counted: %s; top names of the last run:\n", out->aggregate);
	rn_buf_adds(&b, "span                          count\n");
	for (i = 0; i < 5 && names[i][0]; i++)
		rn_buf_addf(&b, "%-28s %6llu\n", full[i] ? full[i] : names[i],
			    (unsigned long long)counts[i]);
	return rn_buf_detach(&b, NULL);
}

void rn_span_count_evaluate(const struct rn_assertion_spec *a, struct rn_target_result *r,
			    struct rn_verdict_result *out)
{
	char names[5][RN_SPAN_NAME_MAX];
	char *full[5] = { NULL };
	uint64_t counts[5], total;
	size_t i;
	uint64_t gpu_ns = 0;
	bool gpu_pattern = a->region_re ||
		(a->span_name_pattern &&
		 (!strncmp(a->span_name_pattern, "gpu:", 4) ||
		  !strncmp(a->span_name_pattern, "region:", 7)));

	total = rn_span_count(&r->last, a->span_re, a->region_re, names, counts, 5, full, &gpu_ns);
	/* a pattern of syscall names counts calls; GPU and region patterns count spans */
	out->unit = gpu_pattern ? "spans" : "calls";
	out->has_budget = true;
	out->budget = (double)a->max_spans;
	total = span_count_over_runs(a, r, total, out);
	if (!total && (a->max_spans > 0 || (gpu_pattern && !r->last.ngpu)) &&
	    !(!gpu_pattern && !a->region_re && names_a_syscall(a, r))) {
		out->verdict = RN_VERDICT_NO_DATA;
		out->message = span_count_no_data(a, r, gpu_pattern);
	} else {
		out->has_observed = true;
		out->observed = (double)total;
		judge(out, a, total <= a->max_spans);
		out->message = span_count_message(a, r, out, total, gpu_ns, names, counts);
		/* The detail keeps full names (JUnit, OTLP); the one-line message shortens them. */
		out->detail = span_count_detail(out, names, full, counts);
	}
	for (i = 0; i < 5; i++)
		free(full[i]);
}

void rn_memory_usage_evaluate(const struct rn_assertion_spec *a, struct rn_target_result *r,
			      struct rn_verdict_result *out)
{
	enum rn_metric m =
		a->tracking_mode == RN_TRACK_RSS ? RN_METRIC_PEAK_RSS : RN_METRIC_ALLOC_PEAK;
	size_t n;
	double *s = rn_target_result_samples(r, m, &n);
	double v = rn_aggregate(s, n, a->aggregate);
	const char *mode = a->tracking_mode == RN_TRACK_RSS ? "peak RSS" : "peak allocations";
	char hv[RN_UNITS_MAX], hb[RN_UNITS_MAX];
	struct rn_buf b;

	out->unit = "bytes";
	out->has_budget = true;
	out->budget = (double)a->max_bytes;
	out->aggregate = rn_xstrfmt("%s of %zu %s%s", rn_aggregate_name(a->aggregate), n,
				    runs_word(r, m), n == 1 ? "" : "s");
	if (v <= 0) {
		out->verdict = RN_VERDICT_NO_DATA;
		out->message =
			rn_xstrfmt("no %s data (is \"ptrace\" in the target's collectors?)", mode);
		free(s);
		return;
	}
	out->has_observed = true;
	out->observed = v;
	judge(out, a, v <= (double)a->max_bytes);
	rn_fmt_bytes(hv, sizeof(hv), v);
	rn_fmt_bytes(hb, sizeof(hb), (double)a->max_bytes);
	out->message =
		rn_xstrfmt("%s %s (%s) %s budget %s (%+.1f%%, inclusive)", mode, hv, out->aggregate,
			   v <= (double)a->max_bytes ? "<=" : ">", hb, out->delta_pct);
	rn_buf_init(&b, 0);
	samples_line(&b, s, n, 1, "bytes");
	out->detail = rn_buf_detach(&b, NULL);
	free(s);
}

/* Whether a process of `t` has a comm that fully matches `re`, as the detectors filter them. */
static bool any_process_matches(const struct rn_trace *t, const struct rn_regex *re)
{
	size_t i;

	for (i = 0; i < t->nprocs; i++)
		if (rn_regex_match(re, t->procs[i].comm ? t->procs[i].comm : ""))
			return true;
	return false;
}

void rn_anti_pattern_evaluate(const struct rn_assertion_spec *a, struct rn_target_result *r,
			      struct rn_verdict_result *out)
{
	struct rn_detection det;
	int rc;

	memset(&det, 0, sizeof(det));
	out->unit = "confidence";
	out->has_budget = true;
	out->budget = a->threshold;
	out->aggregate = rn_xstrfmt("last of %zu %s%s", r->ncounts ? r->ncounts : r->nruns,
				    r->ncounts ? "counting run" : "run",
				    (r->ncounts ? r->ncounts : r->nruns) == 1 ? "" : "s");
	if (a->region_re) {
		/* Only the GPU spans of the matching regions: a view of the trace whose GPU array
		 * holds shallow copies of them (names stay owned by the trace), put back after. */
		struct rn_gpu_span *all = r->last.gpu, *kept = NULL;
		size_t nall = r->last.ngpu, cap = r->last.gpu_cap, n = 0, i;

		if (nall)
			kept = rn_xcalloc(nall, sizeof(*kept));
		for (i = 0; i < nall; i++)
			if (rn_gpu_span_in_region(&all[i], a->region_re))
				kept[n++] = all[i];
		r->last.gpu = kept;
		r->last.ngpu = n;
		r->last.gpu_cap = nall;
		rc = rn_antipattern_detect(&r->last, a->pattern, a->process_re, &det);
		r->last.gpu = all;
		r->last.ngpu = nall;
		r->last.gpu_cap = cap;
		free(kept);
	} else {
		rc = rn_antipattern_detect(&r->last, a->pattern, a->process_re, &det);
	}
	if (rc) {
		out->verdict = RN_VERDICT_ERROR;
		out->message = rn_xstrfmt("detector %s failed: %s", a->pattern, strerror(-rc));
		return;
	}
	if (a->process_re && !any_process_matches(&r->last, a->process_re)) {
		/* Nothing was looked at: a pattern that names no process of the run (a typo, a
		 * renamed binary) must not read as "not detected". */
		out->verdict = RN_VERDICT_NO_DATA;
		out->message =
			rn_xstrfmt("%s: no process of the run matches process_name_pattern /%s/",
				   a->pattern, a->process_name_pattern);
		rn_detection_release(&det);
		return;
	}
	if (det.no_data) {
		out->verdict = RN_VERDICT_NO_DATA;
		out->message = rn_xstrfmt("%s: no data%s%s", a->pattern, det.evidence ? ": " : "",
					  det.evidence ? det.evidence : "");
		rn_detection_release(&det);
		return;
	}
	out->has_observed = true;
	out->observed = det.confidence;
	out->confidence = det.confidence;
	/* Detected when the confidence reaches the threshold: a pass is strictly below. */
	judge(out, a, det.confidence < a->threshold);
	if (det.confidence >= a->threshold)
		out->message = rn_xstrfmt("%s detected with confidence %.2f (threshold %.2f): %s",
					  a->pattern, det.confidence, a->threshold,
					  det.recommendation ? det.recommendation : "");
	else
		out->message = rn_xstrfmt("%s not detected: confidence %.2f < threshold %.2f",
					  a->pattern, det.confidence, a->threshold);
	if (det.evidence)
		out->detail = rn_xstrdup(det.evidence);
	rn_detection_release(&det);
}

/* instructions: the Valgrind count against the budget, `tolerance` over it allowed. */
void rn_instructions_evaluate(const struct rn_assertion_spec *a, struct rn_target_result *r,
			      struct rn_verdict_result *out)
{
	size_t n;
	double *s = rn_target_result_samples(r, RN_METRIC_INSTRUCTIONS, &n);
	double v = n ? rn_aggregate(s, n, a->aggregate) : 0;
	double limit = (double)a->max_instructions * (1.0 + a->tolerance);
	struct rn_buf b;

	out->unit = "instructions";
	out->has_budget = true;
	out->budget = (double)a->max_instructions;
	out->aggregate = rn_xstrfmt("one Valgrind run");
	if (v <= 0) {
		out->verdict = RN_VERDICT_NO_DATA;
		out->message =
			rn_xstrfmt("no instruction count (was the target run under Valgrind?)");
		free(s);
		return;
	}
	out->has_observed = true;
	out->observed = v;
	judge(out, a, v <= limit);
	out->message = rn_xstrfmt("%.0f instructions %s budget %llu (%+.3f%%, tolerance %.2f%%)", v,
				  v <= limit ? "<=" : ">", (unsigned long long)a->max_instructions,
				  out->delta_pct, a->tolerance * 100.0);
	rn_buf_init(&b, 0);
	rn_buf_adds(&b, "pid instructions command\n");
	if (r->instructions_detail)
		rn_buf_adds(&b, r->instructions_detail);
	out->detail = rn_buf_detach(&b, NULL);
	free(s);
}

/* A pattern of `a` that gave up on a name (rn_regex.h limits) leaves the count or the
 * filter unknown: the verdict is ERROR, never a PASS on a partial match. */
static bool gave_up(const struct rn_assertion_spec *a, struct rn_verdict_result *out)
{
	const struct rn_regex *res[] = { a->trace_re, a->span_re, a->region_re, a->process_re,
					 a->witness_re };
	size_t i;

	for (i = 0; i < sizeof(res) / sizeof(res[0]); i++) {
		if (!res[i] || !rn_regex_limit_hits(res[i]))
			continue;
		free(out->message);
		out->verdict = RN_VERDICT_ERROR;
		out->message =
			rn_xstrfmt("pattern '%s' gave up on a name at the regex engine's limits "
				   "(%d steps); simplify it",
				   rn_regex_pattern(res[i]), RN_REGEX_MATCH_LIMIT);
		return true;
	}
	return false;
}

void rn_assertion_evaluate(const struct rn_assertion_spec *a, struct rn_target_result *r,
			   struct rn_verdict_result *out)
{
	bool count_bound;
	uint32_t scopes;

	verdict_begin(out, a, r);
	if (!a->enabled) {
		out->verdict = RN_VERDICT_SKIP;
		out->message = rn_xstrfmt("disabled (enabled = false)");
		return;
	}
	if (!rn_target_result_measured(r) || r->status != RN_RUN_OK) {
		out->verdict = RN_VERDICT_ERROR;
		out->message = rn_xstrfmt("target '%s' did not run cleanly: %s", r->name,
					  r->error ? r->error : "no measured run");
		return;
	}
	if (a->type >= RN_ASSERT_COUNT) {
		out->verdict = RN_VERDICT_ERROR;
		out->message = rn_xstrfmt("unknown assertion type");
	} else {
		rn_assertion_types[a->type].evaluate(a, r, out);
	}
	if (gave_up(a, out))
		return;
	/* Known data loss of the runs: a count that a loss could only have raised is a lower
	 * bound, anything else WARN. */
	scopes = rn_assertion_gap_scopes(a, r, &count_bound);
	rn_verdict_apply_gaps(r, scopes, count_bound, out);
}
