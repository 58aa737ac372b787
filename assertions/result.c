/*
 * result.c - per-run metrics, their aggregation over runs, and the critical path.
 */
#include "assertion.h"
#include "internal.h"
#include "equivalence.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

static const struct rn_metric_info metric_table[RN_METRIC_COUNT] = {
#define RN_METRIC_INFO(id, name, unit, desc) { name, unit, desc },
	RN_METRICS(RN_METRIC_INFO)
#undef RN_METRIC_INFO
};

const struct rn_metric_info *rn_metric_info(enum rn_metric m)
{
	return &metric_table[m];
}

enum rn_run_measures rn_metric_measured_by(enum rn_metric m)
{
	switch (m) {
	case RN_METRIC_WALL:
	case RN_METRIC_CRITICAL_PATH:
	case RN_METRIC_CPU_TIME:
	case RN_METRIC_USER_TIME:
	case RN_METRIC_GPU_BUSY:
		return RN_MEASURES_TIMES;
	case RN_METRIC_PEAK_RSS:
	case RN_METRIC_PROCESSES:
	case RN_METRIC_INSTRUCTIONS: /* its own Valgrind run, written into runs of both kinds */
		return RN_MEASURES_BOTH;
	default:
		return RN_MEASURES_COUNTS;
	}
}

int rn_metric_lookup(const char *name)
{
	int i;

	for (i = 0; i < RN_METRIC_COUNT; i++)
		if (!strcmp(metric_table[i].name, name))
			return i;
	return -1;
}

static const char *const verdict_labels[RN_VERDICT_COUNT] = {
#define RN_VERDICT_LABEL(id, label) label,
	RN_VERDICTS(RN_VERDICT_LABEL)
#undef RN_VERDICT_LABEL
};

const char *rn_verdict_label(enum rn_verdict v)
{
	return v < RN_VERDICT_COUNT ? verdict_labels[v] : "?";
}

const char *rn_aggregate_name(enum rn_aggregate a)
{
	switch (a) {
	case RN_AGG_MEDIAN:
		return "median";
	case RN_AGG_MIN:
		return "min";
	case RN_AGG_P95:
		return "p95";
	case RN_AGG_MAX:
		return "max";
	}
	return "?";
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double rn_aggregate(const double *samples, size_t n, enum rn_aggregate a)
{
	double *s, v;
	size_t rank;

	if (!n)
		return 0;
	s = rn_xmalloc(n * sizeof(*s));
	memcpy(s, samples, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	switch (a) {
	case RN_AGG_MIN:
		v = s[0];
		break;
	case RN_AGG_MAX:
		v = s[n - 1];
		break;
	case RN_AGG_P95:
		/* Nearest rank: the smallest sample with at least 95% of samples <= it. */
		rank = (size_t)ceil(0.95 * (double)n);
		v = s[rank ? rank - 1 : 0];
		break;
	case RN_AGG_MEDIAN:
	default:
		v = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
		break;
	}
	free(s);
	return v;
}

/* ---- critical path ------------------------------------------------------------------------ */

struct cp_builder {
	const struct rn_trace *t;
	struct rn_cp_segment *seg;
	size_t n, cap;
};

static void cp_add(struct cp_builder *b, int proc, uint64_t start, uint64_t end)
{
	if (end <= start)
		return;
	b->seg = rn_xgrow(b->seg, &b->cap, b->n + 1, sizeof(*b->seg));
	b->seg[b->n++] = (struct rn_cp_segment){ proc, start, end };
}

static uint64_t proc_begin(const struct rn_process *p)
{
	return p->start_ns;
}

static uint64_t proc_end(const struct rn_trace *t, const struct rn_process *p)
{
	return p->end_ns ? p->end_ns : t->end_ns;
}

/*
 * Walk process `pi` backwards from `cursor`: the last child it waited for before `cursor`
 * is on the path from that child's exit to the wait; the chain then continues inside the
 * child, and in `pi` again before the child was forked. Segments are appended in reverse
 * time order.
 */
static void cp_walk(struct cp_builder *b, int pi, uint64_t cursor, int depth)
{
	const struct rn_trace *t = b->t;
	uint64_t begin = proc_begin(&t->procs[pi]);

	for (;;) {
		int best = -1;
		uint64_t best_end = 0;
		size_t i;

		if (depth < 256) {
			for (i = 0; i < t->nprocs; i++) {
				const struct rn_process *c = &t->procs[i];
				uint64_t ce = proc_end(t, c);

				if (c->reaped_by != pi || !c->reaped_ns || c->reaped_ns > cursor ||
				    c->start_ns < begin || ce > cursor)
					continue;
				if (best < 0 || ce > best_end) {
					best = (int)i;
					best_end = ce;
				}
			}
		}
		if (best < 0) {
			cp_add(b, pi, begin, cursor);
			return;
		}
		cp_add(b, pi, best_end, cursor);
		cp_walk(b, best, best_end, depth + 1);
		cursor = t->procs[best].start_ns;
		if (cursor <= begin)
			return;
	}
}

void rn_critical_path_compute(const struct rn_trace *t, struct rn_critical_path *cp)
{
	struct cp_builder b = { t, NULL, 0, 0 };
	uint64_t end;
	size_t i;

	memset(cp, 0, sizeof(*cp));
	if (!t->nprocs)
		return;
	end = proc_end(t, &t->procs[0]);
	cp_walk(&b, 0, end, 0);
	/* Built backwards: reverse into time order. */
	for (i = 0; i < b.n / 2; i++) {
		struct rn_cp_segment tmp = b.seg[i];

		b.seg[i] = b.seg[b.n - 1 - i];
		b.seg[b.n - 1 - i] = tmp;
	}
	cp->segments = b.seg;
	cp->nsegments = b.n;
	cp->length_ns = end > t->procs[0].start_ns ? end - t->procs[0].start_ns : 0;
}

void rn_critical_path_release(struct rn_critical_path *cp)
{
	free(cp->segments);
	memset(cp, 0, sizeof(*cp));
}

void rn_metrics_from_trace(const struct rn_trace *t, struct rn_metrics *m)
{
	struct rn_critical_path cp;
	uint64_t errors = 0, dispatches = 0, copy_bytes = 0, process_alloc_peak = 0;
	size_t i;

	memset(m, 0, sizeof(*m));
	rn_critical_path_compute(t, &cp);
	for (i = 0; i < t->nprocs; i++) {
		errors += t->procs[i].syscall_errors;
		if (t->procs[i].alloc_peak_bytes > process_alloc_peak)
			process_alloc_peak = t->procs[i].alloc_peak_bytes;
	}
	for (i = 0; i < t->ngpu; i++) {
		if (t->gpu[i].kind == RN_GPU_DISPATCH)
			dispatches++;
		if (t->gpu[i].kind == RN_GPU_COPY)
			copy_bytes += t->gpu[i].bytes;
	}
	m->v[RN_METRIC_WALL] = rn_trace_wall_ns(t);
	m->v[RN_METRIC_CRITICAL_PATH] = cp.length_ns;
	m->v[RN_METRIC_CPU_TIME] = t->cpu_ns;
	m->v[RN_METRIC_USER_TIME] = t->user_ns;
	m->v[RN_METRIC_PEAK_RSS] = t->peak_rss_bytes;
	m->v[RN_METRIC_ALLOC_PEAK] = t->alloc_peak_bytes;
	m->v[RN_METRIC_PROCESS_ALLOC_PEAK] = process_alloc_peak;
	m->v[RN_METRIC_ALLOC_TOTAL] = t->alloc_total_bytes;
	m->v[RN_METRIC_SYSCALLS] = rn_trace_total_syscalls(t);
	m->v[RN_METRIC_SYSCALL_ERRORS] = errors;
	m->v[RN_METRIC_PROCESSES] = t->nprocs;
	m->v[RN_METRIC_GPU_BUSY] = rn_trace_gpu_busy_ns(t);
	m->v[RN_METRIC_GPU_DISPATCHES] = dispatches;
	m->v[RN_METRIC_GPU_COPY_BYTES] = copy_bytes;
	m->has_gpu = t->ngpu > 0;
	m->start_ns = t->start_ns;
	m->status = t->status;
	rn_critical_path_release(&cp);
}

/* ---- target results ----------------------------------------------------------------------- */

/* Per-run rows kept in syscall_samples: calls, errors, summed ns. */
#define SAMPLE_ROWS 3

void rn_target_result_init(struct rn_target_result *r, const char *name)
{
	memset(r, 0, sizeof(*r));
	r->name = rn_xstrdup(name);
	r->pin_cpu = -1;
	rn_trace_init(&r->last);
	rn_trace_init(&r->last_timing);
}

void rn_target_result_release(struct rn_target_result *r)
{
	size_t i;

	free(r->name);
	free(r->runs);
	free(r->counts);
	free(r->syscall_calls);
	free(r->syscall_errors);
	free(r->syscall_ns);
	for (i = 0; r->syscall_samples && i < SAMPLE_ROWS * r->nsyscall_runs; i++)
		free(r->syscall_samples[i]);
	free(r->syscall_samples);
	rn_trace_release(&r->last);
	rn_trace_release(&r->last_timing);
	for (i = 0; i < r->nspan_runs; i++)
		rn_trace_release(&r->span_runs[i]);
	free(r->span_runs);
	for (i = 0; i < r->napp_spans; i++) {
		free(r->app_spans[i].name);
		free(r->app_spans[i].ns);
		free(r->app_spans[i].cpu_ns);
	}
	free(r->app_spans);
	rn_critical_path_release(&r->cp);
	free(r->error);
	free(r->instructions_detail);
	for (i = 0; i < r->ngaps; i++)
		free(r->gaps[i].reason);
	free(r->gaps);
	free(r->build_id);
	free(r->exe);
	free(r->probe_cpu_ns);
	free(r->probe_wall_ns);
	rn_equiv_behaviour_free(r->behaviour);
	memset(r, 0, sizeof(*r));
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Median over runs of per-run sample row `which` (0 calls, 1 errors, 2 ns) for every syscall. */
static void syscall_medians(struct rn_target_result *r, size_t which, double *out)
{
	size_t n = (size_t)rn_syscall_table_size(), k, nr, nk = r->nsyscall_runs;
	uint64_t *col = rn_xmalloc(nk * sizeof(*col));

	for (nr = 0; nr < n; nr++) {
		for (k = 0; k < nk; k++)
			col[k] = r->syscall_samples[SAMPLE_ROWS * k + which][nr];
		qsort(col, nk, sizeof(*col), cmp_u64);
		out[nr] = nk % 2 ? (double)col[nk / 2] :
				   ((double)col[nk / 2 - 1] + (double)col[nk / 2]) / 2;
	}
	free(col);
}

uint64_t rn_target_result_run_calls(const struct rn_target_result *r, size_t run, int nr)
{
	if (run >= r->nsyscall_runs || !r->syscall_samples || nr < 0 ||
	    nr >= rn_syscall_table_size())
		return 0;
	return r->syscall_samples[SAMPLE_ROWS * run][nr];
}

size_t rn_target_result_count_runs(const struct rn_target_result *r)
{
	return r->nsyscall_runs;
}

double rn_target_result_calls_extreme(const struct rn_target_result *r, int nr, double none,
				      bool most)
{
	double x = none;
	size_t k;

	if (!r->syscall_samples)
		return none;
	for (k = 0; k < r->nsyscall_runs; k++) {
		double c = (double)rn_target_result_run_calls(r, k, nr);

		x = k ? (most ? fmax(x, c) : fmin(x, c)) : c;
	}
	return x;
}

/* The per-syscall samples of a run that measured counts. */
static void add_syscall_samples(struct rn_target_result *r, const struct rn_trace *t)
{
	size_t n = (size_t)rn_syscall_table_size(), i, nr, k = r->nsyscall_runs;
	uint64_t *calls, *errs, *ns;

	r->syscall_samples = rn_xrealloc(r->syscall_samples,
					 SAMPLE_ROWS * (k + 1) * sizeof(*r->syscall_samples));
	calls = rn_xcalloc(n, sizeof(*calls));
	errs = rn_xcalloc(n, sizeof(*errs));
	ns = rn_xcalloc(n, sizeof(*ns));
	for (i = 0; i < t->nprocs; i++) {
		const struct rn_process *p = &t->procs[i];

		if (!p->sc)
			continue;
		for (nr = 0; nr < n; nr++) {
			calls[nr] += p->sc[nr].calls;
			errs[nr] += p->sc[nr].errors;
			ns[nr] += p->sc[nr].total_ns;
		}
	}
	r->syscall_samples[SAMPLE_ROWS * k] = calls;
	r->syscall_samples[SAMPLE_ROWS * k + 1] = errs;
	r->syscall_samples[SAMPLE_ROWS * k + 2] = ns;
	r->nsyscall_runs++;
	if (!r->syscall_calls) {
		r->syscall_calls = rn_xcalloc(n, sizeof(double));
		r->syscall_errors = rn_xcalloc(n, sizeof(double));
		r->syscall_ns = rn_xcalloc(n, sizeof(double));
	}
	syscall_medians(r, 0, r->syscall_calls);
	syscall_medians(r, 1, r->syscall_errors);
	syscall_medians(r, 2, r->syscall_ns);
}

/* What every run adds: identity and status. */
static void add_common(struct rn_target_result *r, const struct rn_trace *t)
{
	if (t->nprocs && t->procs[0].build_id[0]) {
		free(r->build_id);
		r->build_id = rn_xstrdup(t->procs[0].build_id);
	}
	if (t->nprocs && t->procs[0].exe) {
		free(r->exe);
		r->exe = rn_xstrdup(t->procs[0].exe);
	}
	if (t->status > r->status)
		r->status = t->status;
	if (t->error && !r->error)
		r->error = rn_xstrdup(t->error);
	rn_target_result_add_gaps(r, t);
}

/* Whether trace `t` of a run that stopped at syscalls kept spans span_time reads. */
static bool has_spans(const struct rn_trace *t)
{
	return !t->events_only && (t->spool || t->napp || t->ngpu);
}

/* `t` (r->last, about to be replaced by a run of the same kind) moves into r->span_runs when
 * it kept spans; the oldest goes when RN_SPAN_RUNS_MAX are kept. */
static void keep_span_run(struct rn_target_result *r, struct rn_trace *t)
{
	if (!has_spans(t))
		return;
	if (r->nspan_runs == RN_SPAN_RUNS_MAX) {
		rn_trace_release(&r->span_runs[0]);
		memmove(r->span_runs, r->span_runs + 1,
			(r->nspan_runs - 1) * sizeof(*r->span_runs));
		r->nspan_runs--;
	}
	r->span_runs = rn_xrealloc(r->span_runs, (r->nspan_runs + 1) * sizeof(*r->span_runs));
	r->span_runs[r->nspan_runs++] = *t;
	rn_trace_init(t);
}

size_t rn_target_result_span_runs(const struct rn_target_result *r)
{
	return has_spans(&r->last) ? r->nspan_runs + 1 : 0;
}

struct rn_trace *rn_target_result_span_trace(struct rn_target_result *r, size_t i)
{
	return i < r->nspan_runs ? &r->span_runs[i] : &r->last;
}

/* The series of app span `name` (without "app:") in r->app_spans, inserted in name order when
 * new. */
static struct rn_span_series *span_series_of(struct rn_target_result *r, const char *name)
{
	size_t lo = 0, hi = r->napp_spans, len;
	struct rn_span_series *s;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int cmp = strcmp(r->app_spans[mid].name + 4, name);

		if (!cmp)
			return &r->app_spans[mid];
		if (cmp < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	r->app_spans = rn_xrealloc(r->app_spans, (r->napp_spans + 1) * sizeof(*r->app_spans));
	memmove(r->app_spans + lo + 1, r->app_spans + lo,
		(r->napp_spans - lo) * sizeof(*r->app_spans));
	r->napp_spans++;
	s = &r->app_spans[lo];
	memset(s, 0, sizeof(*s));
	len = strlen(name);
	s->name = rn_xmalloc(len + 5);
	memcpy(s->name, "app:", 4);
	memcpy(s->name + 4, name, len + 1);
	return s;
}

/* Add the app spans of run `t` (the r->nruns-th run) to r->app_spans: per name, the summed
 * duration of its spans in this run, and the summed CPU time of those that carry one. */
static void add_app_spans(struct rn_target_result *r, const struct rn_trace *t)
{
	size_t i;

	for (i = 0; i < t->napp; i++) {
		const struct rn_app_span *a = &t->app[i];
		struct rn_span_series *s = span_series_of(r, a->name);
		double ns = a->end_ns > a->start_ns ? (double)(a->end_ns - a->start_ns) : 0.0;

		if (s->last_run != r->nruns) {
			s->ns = rn_xrealloc(s->ns, (s->n + 1) * sizeof(*s->ns));
			s->ns[s->n++] = 0.0;
			s->last_run = r->nruns;
		}
		s->ns[s->n - 1] += ns;
		if (!(a->flags & RN_APP_CPU))
			continue;
		if (s->last_cpu_run != r->nruns) {
			s->cpu_ns = rn_xrealloc(s->cpu_ns, (s->ncpu + 1) * sizeof(*s->cpu_ns));
			s->cpu_ns[s->ncpu++] = 0.0;
			s->last_cpu_run = r->nruns;
		}
		s->cpu_ns[s->ncpu - 1] += (double)a->cpu_ns;
	}
}

void rn_target_result_add_run(struct rn_target_result *r, struct rn_trace *t)
{
	struct rn_trace *keep;

	r->runs = rn_xrealloc(r->runs, (r->nruns + 1) * sizeof(*r->runs));
	rn_metrics_from_trace(t, &r->runs[r->nruns]);
	r->runs[r->nruns].measures = t->events_only ? RN_MEASURES_TIMES : RN_MEASURES_BOTH;
	r->nruns++;
	add_app_spans(r, t);
	if (!t->events_only)
		add_syscall_samples(r, t);
	add_common(r, t);
	/* A timing run's trace goes beside the counting run's, never over it. */
	keep = r->ncounts ? &r->last_timing : &r->last;
	if (keep == &r->last && !t->events_only)
		keep_span_run(r, keep);
	rn_trace_release(keep);
	rn_critical_path_release(&r->cp);
	*keep = *t;
	rn_trace_init(t);
	rn_critical_path_compute(keep, &r->cp);
}

void rn_target_result_add_counting_run(struct rn_target_result *r, struct rn_trace *t)
{
	r->counts = rn_xrealloc(r->counts, (r->ncounts + 1) * sizeof(*r->counts));
	rn_metrics_from_trace(t, &r->counts[r->ncounts]);
	r->counts[r->ncounts].measures = RN_MEASURES_COUNTS;
	r->ncounts++;
	add_syscall_samples(r, t);
	add_common(r, t);
	if (r->ncounts == 1 && r->nruns) {
		/* the timing run's trace, which r->cp indexes, moves aside */
		rn_trace_release(&r->last_timing);
		r->last_timing = r->last;
		rn_trace_init(&r->last);
	} else if (r->ncounts > 1) {
		keep_span_run(r, &r->last);
	}
	rn_trace_release(&r->last);
	r->last = *t;
	rn_trace_init(t);
}

void rn_target_result_set_bench(struct rn_target_result *r, double real_ns, double cpu_ns)
{
	struct rn_metrics *m;

	if (!r->nruns)
		return;
	m = &r->runs[r->nruns - 1];
	m->v[RN_METRIC_WALL] = (uint64_t)llround(real_ns);
	m->v[RN_METRIC_CRITICAL_PATH] = 0;
	m->v[RN_METRIC_CPU_TIME] = (uint64_t)llround(cpu_ns);
	/* the harness's CPU time is its thread's, user and system alike: all of it counts as
	 * the program's own work (no kernel-bound rule) */
	m->v[RN_METRIC_USER_TIME] = m->v[RN_METRIC_CPU_TIME];
	r->per_iteration = true;
	if (real_ns > 0.0)
		r->per_iteration_wall = true;
	if (cpu_ns > 0.0)
		r->per_iteration_cpu = true;
}

bool rn_target_result_time_judged(const struct rn_target_result *r, enum rn_metric m)
{
	if (!r->per_iteration)
		return true;
	if (m == RN_METRIC_CRITICAL_PATH || m == RN_METRIC_GPU_BUSY)
		return false;
	if (m == RN_METRIC_CPU_TIME || m == RN_METRIC_USER_TIME)
		return r->per_iteration_cpu;
	if (m == RN_METRIC_WALL)
		return r->per_iteration_wall;
	return true;
}

const struct rn_metrics *rn_target_result_runs_of(const struct rn_target_result *r,
						  enum rn_metric m, size_t *n)
{
	enum rn_run_measures by = rn_metric_measured_by(m);

	if (by == RN_MEASURES_COUNTS && r->ncounts) {
		*n = r->ncounts;
		return r->counts;
	}
	if (by == RN_MEASURES_BOTH && !r->nruns) {
		*n = r->ncounts;
		return r->counts;
	}
	/* times, and counts of runs that measured both; timing runs have no counts */
	if (by == RN_MEASURES_COUNTS && r->nruns && r->runs[0].measures == RN_MEASURES_TIMES) {
		*n = 0;
		return r->runs;
	}
	*n = r->nruns;
	return r->runs;
}

double *rn_target_result_samples(const struct rn_target_result *r, enum rn_metric m, size_t *n)
{
	const struct rn_metrics *runs = rn_target_result_runs_of(r, m, n);
	double *s = rn_xcalloc(*n ? *n : 1, sizeof(*s));
	size_t i;

	for (i = 0; i < *n; i++)
		s[i] = (double)runs[i].v[m];
	return s;
}

const struct rn_trace *rn_target_result_cp_trace(const struct rn_target_result *r)
{
	return r->last_timing.nprocs ? &r->last_timing : &r->last;
}

size_t rn_target_result_measured(const struct rn_target_result *r)
{
	return r->nruns + r->ncounts;
}

void rn_verdict_result_release(struct rn_verdict_result *v)
{
	free(v->assertion);
	free(v->type);
	free(v->target);
	free(v->message);
	free(v->detail);
	free(v->aggregate);
	free(v->reason);
	memset(v, 0, sizeof(*v));
}
