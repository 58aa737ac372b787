/*
 * span_time.c - time budgets on spans: the span_time assertion.
 *
 * The durations come from the trace of each counting run that kept spans (the spool, and the
 * traces the result keeps: rn_target_result_span_trace): syscall spans one by one from the
 * spool, GPU work, regions and graph replays from the GPU spans, and the program's own spans
 * from the app spans (their self times for stat "self", their own thread CPU times for stat
 * "cpu": only renacer_span.h push/pop spans have one). The median of the runs' statistic is
 * judged against the budget; under --baseline the runs are also compared with the base's
 * (against_base). Syscall durations are taken
 * under the tracer (entry stop to exit stop), so they include the stops' cost, some
 * microseconds a call: budgets of a few microseconds on syscalls are not meaningful.
 */
#include "assertion.h"
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "sat.h"
#include "stats.h"
#include "xalloc.h"

static const char *const stat_names[] = {
#define RN_SPAN_STAT_NAME(id, name, doc) name,
	RN_SPAN_STATS(RN_SPAN_STAT_NAME)
#undef RN_SPAN_STAT_NAME
};

/* Name of a span_time statistic ("p95"). */
static const char *rn_span_stat_name(enum rn_span_stat s)
{
	return (unsigned)s < RN_SPAN_STAT_COUNT ? stat_names[s] : "?";
}

/* The growing list of durations while collecting. */
struct collect {
	const struct rn_regex *re;
	struct rn_span_times *st;
	size_t cap;
};

static void add_span(struct collect *c, const char *name, uint64_t ns)
{
	struct rn_span_times *st = c->st;

	st->ns = rn_xgrow(st->ns, &c->cap, st->n + 1, sizeof(*st->ns));
	st->ns[st->n++] = ns;
	if (!st->top_name[0] || ns > st->top_ns) {
		snprintf(st->top_name, sizeof(st->top_name), "%s", name);
		st->top_ns = ns;
	}
}

static int spool_span(void *ctx, const struct rn_syscall_event *ev)
{
	struct collect *c = ctx;
	const char *name;

	if (ev->flags & RN_SC_UNFINISHED)
		return 0;
	name = rn_syscall_name(ev->nr);
	if (!name || !rn_regex_match(c->re, name))
		return 0;
	add_span(c, name, ev->duration_ns);
	c->st->nsyscall++;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Syscalls: one by one from the spool, else only their per-syscall stats. */
static int collect_syscalls(struct rn_trace *t, struct collect *c)
{
	struct rn_span_times *st = c->st;
	int nr, n = rn_syscall_table_size(), rc;

	for (nr = 0; nr < n; nr++)
		if (rn_syscall_name(nr) && rn_regex_match(c->re, rn_syscall_name(nr)))
			st->syscalls_matched = true;
	if (!st->syscalls_matched)
		return 0;
	if (t->spool) {
		rc = rn_trace_spool_foreach(t, spool_span, c);
		return rc < 0 ? rc : 0;
	}
	for (nr = 0; nr < n; nr++) {
		struct rn_syscall_stat s;

		if (!rn_regex_match(c->re, rn_syscall_name(nr)))
			continue;
		s = rn_trace_syscall_total(t, nr);
		if (!s.calls)
			continue;
		st->agg_calls += s.calls;
		st->agg_total_ns = rn_sat_add_u64(st->agg_total_ns, s.total_ns);
		if (s.max_ns > st->agg_max_ns)
			st->agg_max_ns = s.max_ns;
		if (s.min_ns < st->agg_min_ns)
			st->agg_min_ns = s.min_ns;
		if (s.max_ns > st->top_ns) {
			snprintf(st->top_name, sizeof(st->top_name), "%s", rn_syscall_name(nr));
			st->top_ns = s.max_ns;
		}
	}
	st->nsyscall += (size_t)st->agg_calls;
	return 0;
}

/* ---- self time ----------------------------------------------------------------------------- */

/* An app span's place, for finding parents. */
struct node {
	size_t i; /* index in t->app */
	pid_t pid, tid;
	uint64_t start_ns, end_ns;
};

static int node_by_thread_start(const void *a, const void *b)
{
	const struct node *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	if (x->end_ns != y->end_ns) /* the enclosing span first */
		return x->end_ns > y->end_ns ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

static const struct rn_trace *id_trace; /* qsort/bsearch context: the trace of the ids */

static int index_by_span_id(const void *a, const void *b)
{
	return memcmp(id_trace->app[*(const size_t *)a].span_id,
		      id_trace->app[*(const size_t *)b].span_id, 8);
}

static int id_cmp(const void *key, const void *elem)
{
	return memcmp(key, id_trace->app[*(const size_t *)elem].span_id, 8);
}

static uint64_t dur(const struct rn_app_span *a)
{
	return a->end_ns > a->start_ns ? a->end_ns - a->start_ns : 0;
}

/*
 * The summed durations of each app span's direct children [t->napp], ns (malloc'ed). An OTLP
 * span's parent is the span whose span id is its parent span id; a renacer_span.h span's is
 * the innermost span of its thread that encloses it in time and has the name it recorded as
 * its parent. O(n log n). Not thread safe (a sort context).
 */
static uint64_t *children_ns(const struct rn_trace *t)
{
	uint64_t *sum = rn_xcalloc(t->napp + 1, sizeof(*sum));
	struct node *v = rn_xmalloc((t->napp + 1) * sizeof(*v)), **stack;
	size_t *ids = rn_xmalloc((t->napp + 1) * sizeof(*ids)), nv = 0, nids = 0, depth = 0, i;
	static const uint8_t zero[8];

	for (i = 0; i < t->napp; i++) {
		const struct rn_app_span *a = &t->app[i];

		if (a->source == RN_APP_SOURCE_OTLP) {
			if (memcmp(a->span_id, zero, 8))
				ids[nids++] = i;
		} else {
			v[nv++] = (struct node){ i, a->pid, a->tid, a->start_ns, a->end_ns };
		}
	}
	/* OTLP: by parent span id */
	id_trace = t;
	qsort(ids, nids, sizeof(*ids), index_by_span_id);
	for (i = 0; i < t->napp; i++) {
		const struct rn_app_span *a = &t->app[i];
		const size_t *p;

		if (a->source != RN_APP_SOURCE_OTLP || !memcmp(a->parent_span_id, zero, 8))
			continue;
		p = bsearch(a->parent_span_id, ids, nids, sizeof(*ids), id_cmp);
		if (p && *p != i)
			sum[*p] += dur(a);
	}
	id_trace = NULL;
	/* renacer_span.h: per thread, the enclosing spans open at each start */
	qsort(v, nv, sizeof(*v), node_by_thread_start);
	stack = rn_xmalloc((nv + 1) * sizeof(*stack));
	for (i = 0; i < nv; i++) {
		const struct rn_app_span *a = &t->app[v[i].i];

		if (i && (v[i].pid != v[i - 1].pid || v[i].tid != v[i - 1].tid))
			depth = 0;
		while (depth && stack[depth - 1]->end_ns < v[i].end_ns)
			depth--; /* ended before this one does: not an enclosing span */
		if (a->parent) {
			size_t k;

			for (k = depth; k-- > 0;)
				if (!strcmp(t->app[stack[k]->i].name, a->parent)) {
					sum[stack[k]->i] += dur(a);
					break;
				}
		}
		stack[depth++] = &v[i];
	}
	free(stack);
	free(v);
	free(ids);
	return sum;
}

/* Free what *st owns. */
static void rn_span_times_release(struct rn_span_times *st)
{
	free(st->ns);
	memset(st, 0, sizeof(*st));
}

/* Fill *out (caller releases with rn_span_times_release) from `t`; under stat "self" an app span
 * counts its self time (children_ns); under "cpu" its own CPU time, and only app spans that
 * have one count (the others matching are counted in nno_cpu). Returns 0, or a negative errno
 * when the spool could not be read (then *out is released). Dies on out-of-memory. */
static int rn_span_times_collect(struct rn_trace *t, const struct rn_regex *re,
				 const struct rn_regex *region_re, enum rn_span_stat stat,
				 struct rn_span_times *out)
{
	bool self = stat == RN_SPAN_STAT_SELF, cpu = stat == RN_SPAN_STAT_CPU;
	struct collect c = { re, out, 0 };
	char name[RN_SPAN_NAME_MAX + 8];
	uint64_t *kids;
	size_t i;
	int rc;

	memset(out, 0, sizeof(*out));
	out->agg_min_ns = UINT64_MAX;
	/* Syscalls happen in no region: a region filter leaves them out; they have no CPU time
	 * of their own. */
	if (!region_re && !cpu) {
		rc = collect_syscalls(t, &c);
		if (rc) {
			rn_span_times_release(out);
			return rc;
		}
	}
	for (i = 0; i < t->ngpu; i++) {
		const struct rn_gpu_span *g = &t->gpu[i];
		char *full;
		size_t cap = strlen(g->name) + 16;

		if (!rn_gpu_span_in_region(g, region_re))
			continue;
		full = rn_xmalloc(cap);
		rn_gpu_span_match_name(g, full, cap);
		if (rn_regex_match(re, full) && cpu) {
			out->nno_cpu++;
		} else if (rn_regex_match(re, full)) {
			add_span(&c, full, g->end_ns > g->start_ns ? g->end_ns - g->start_ns : 0);
			out->ngpu++;
		}
		free(full);
	}
	kids = self && t->napp ? children_ns(t) : NULL;
	for (i = 0; i < t->napp; i++) {
		const struct rn_app_span *a = &t->app[i];
		uint64_t ns = dur(a);

		if (region_re && (!a->parent || !rn_regex_match(region_re, a->parent)))
			continue;
		snprintf(name, sizeof(name), "app:%s", a->name);
		if (!rn_regex_match(re, name))
			continue;
		/* self time: what the children account for is theirs (they may overlap, as
		 * threads' spans do: never below zero) */
		if (kids)
			ns = kids[i] < ns ? ns - kids[i] : 0;
		if (cpu && !(a->flags & RN_APP_CPU)) {
			out->nno_cpu++;
			continue;
		}
		if (cpu)
			ns = a->cpu_ns;
		add_span(&c, name, ns);
		out->napp++;
	}
	free(kids);
	if (out->n)
		qsort(out->ns, out->n, sizeof(*out->ns), cmp_u64);
	return 0;
}

/* Nearest-rank percentile `p` (0..100] of the sorted `ns` (n >= 1). */
static uint64_t percentile(const uint64_t *ns, size_t n, double p)
{
	size_t rank = (size_t)((p / 100.0) * (double)n + 0.999999999);

	if (!n)
		return 0;
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return ns[rank - 1];
}

/* Whether statistic `s` can be computed from `st`: quantiles and counts above a threshold
 * need each span; total, max and min also work from per-syscall stats. */
static bool stat_known(const struct rn_span_times *st, enum rn_span_stat s)
{
	if (!st->agg_calls)
		return true;
	return s == RN_SPAN_STAT_TOTAL || s == RN_SPAN_STAT_MAX || s == RN_SPAN_STAT_SELF ||
		s == RN_SPAN_STAT_MIN;
}

/* Value of statistic `s` over the spans of `st` (at least one): ns, or a count. */
static uint64_t stat_value(const struct rn_span_times *st, enum rn_span_stat s,
			   uint64_t threshold_ns)
{
	uint64_t v = 0;
	size_t i;

	switch (s) {
	case RN_SPAN_STAT_TOTAL:
		/* saturating: two spans of 2^64-1 and 2 ns total "too long", never 1 ns */
		for (i = 0; i < st->n; i++)
			v = rn_sat_add_u64(v, st->ns[i]);
		return rn_sat_add_u64(v, st->agg_total_ns);
	case RN_SPAN_STAT_P50:
		return percentile(st->ns, st->n, 50);
	case RN_SPAN_STAT_P95:
		return percentile(st->ns, st->n, 95);
	case RN_SPAN_STAT_MAX:
	case RN_SPAN_STAT_SELF: /* over self times (rn_span_times_collect) */
	case RN_SPAN_STAT_CPU:  /* over CPU times */
		v = st->n ? st->ns[st->n - 1] : 0;
		return v > st->agg_max_ns ? v : st->agg_max_ns;
	case RN_SPAN_STAT_MIN:
		v = st->n ? st->ns[0] : UINT64_MAX;
		return v < st->agg_min_ns ? v : st->agg_min_ns;
	case RN_SPAN_STAT_COUNT_ABOVE:
		for (i = 0; i < st->n; i++)
			v += st->ns[i] > threshold_ns;
		return v;
	case RN_SPAN_STAT_COUNT:
		break;
	}
	return 0;
}

/* "/write/" or "/gpu:gemm/ in region /main/" for messages. */
static char *what_of(const struct rn_assertion_spec *a)
{
	return rn_xstrfmt("/%s/%s%s%s", a->span_name_pattern, a->region_re ? " in region /" : "",
			  a->region_re ? a->region_pattern : "", a->region_re ? "/" : "");
}

static void verdict_of(struct rn_verdict_result *out, const struct rn_assertion_spec *a, bool ok)
{
	out->verdict =
		ok ? RN_VERDICT_PASS : (a->fail_on_violation ? RN_VERDICT_FAIL : RN_VERDICT_WARN);
	if (out->has_budget && out->budget > 0)
		out->delta_pct = (out->observed - out->budget) / out->budget * 100.0;
}

/* The detail body: the spans seen, the statistics, the longest span; `cpu`: of CPU times. */
static char *detail_of(const struct rn_span_times *st, uint64_t threshold_ns, bool cpu)
{
	struct rn_buf b;
	enum rn_span_stat s;

	rn_buf_init(&b, 0);
	rn_buf_addf(&b, "spans: %zu (syscalls %zu%s, GPU %zu, app %zu)\n",
		    st->n + (size_t)st->agg_calls, st->nsyscall,
		    st->agg_calls ? " known by their totals only: no spool" : "", st->ngpu,
		    st->napp);
	if (cpu)
		rn_buf_addf(&b,
			    "own CPU times (thread CPU clock from push to pop)%s; without one: "
			    "%zu\n",
			    st->n ? "" : ": none", st->nno_cpu);
	for (s = 0; s < RN_SPAN_STAT_COUNT && st->n + st->agg_calls; s++) {
		if (!stat_known(st, s) || s == RN_SPAN_STAT_SELF || s == RN_SPAN_STAT_CPU)
			continue;
		if (s == RN_SPAN_STAT_COUNT_ABOVE)
			rn_buf_addf(&b, "  %-12s %llu (> %.3f ms)\n", rn_span_stat_name(s),
				    (unsigned long long)stat_value(st, s, threshold_ns),
				    (double)threshold_ns / 1e6);
		else
			rn_buf_addf(&b, "  %-12s %.3f ms\n", rn_span_stat_name(s),
				    (double)stat_value(st, s, threshold_ns) / 1e6);
	}
	if (st->top_name[0])
		rn_buf_addf(&b, "%s: %s %.3f ms\n", cpu ? "most CPU" : "longest", st->top_name,
			    (double)st->top_ns / 1e6);
	return rn_buf_detach(&b, NULL);
}

/* One-sided level of the interval against a base: the timing rows' alpha by default. */
#define SPAN_TIME_ALPHA 0.05

/* Whether run `st` has a value of the statistic: spans matched, or none where zero is a
 * measurement (sums and counts of syscalls the run could have made), and the statistic is
 * computable from what the run kept. */
static bool has_value(const struct rn_assertion_spec *a, const struct rn_target_result *r,
		      const struct rn_span_times *st)
{
	enum rn_span_stat s = a->span_stat;

	if (!st->n && !st->agg_calls &&
	    !((s == RN_SPAN_STAT_TOTAL || s == RN_SPAN_STAT_COUNT_ABOVE) && st->syscalls_matched &&
	      !a->region_re && rn_target_result_count_runs(r) && !a->has_min_each))
		return false;
	return stat_known(st, s);
}

/* The statistic of every run of `r` that kept spans (or of r->last when none did) into
 * `vals` (ns, or a count) and their number into *n (malloc'ed; runs without a value are left
 * out); the last run's spans into *last (caller releases). Returns 0 or a negative errno. */
static int run_values(const struct rn_assertion_spec *a, struct rn_target_result *r, double **vals,
		      size_t *n, struct rn_span_times *last)
{
	size_t runs = rn_target_result_span_runs(r), k;
	int rc = 0;

	*n = 0;
	*vals = rn_xcalloc(runs + 1, sizeof(**vals));
	memset(last, 0, sizeof(*last));
	if (!runs)
		return rn_span_times_collect(&r->last, a->span_re, a->region_re, a->span_stat,
					     last);
	for (k = 0; k < runs && !rc; k++) {
		struct rn_span_times st;

		rc = rn_span_times_collect(rn_target_result_span_trace(r, k), a->span_re,
					   a->region_re, a->span_stat, &st);
		if (rc)
			break;
		if (has_value(a, r, &st))
			(*vals)[(*n)++] =
				(double)(st.n + st.agg_calls ?
						 stat_value(&st, a->span_stat, a->threshold_ns) :
						 0);
		if (k + 1 == runs)
			*last = st;
		else
			rn_span_times_release(&st);
	}
	return rc;
}

/* The worse of two verdicts of one row (FAIL > WARN > PASS). */
static enum rn_verdict worse(enum rn_verdict x, enum rn_verdict y)
{
	int rx = x == RN_VERDICT_FAIL ? 2 : x == RN_VERDICT_WARN,
	    ry = y == RN_VERDICT_FAIL ? 2 : y == RN_VERDICT_WARN;

	return rx >= ry ? x : y;
}

/* "3.000 ms" or "3 spans" */
static void add_value(struct rn_buf *b, double v, bool counting)
{
	if (counting)
		rn_buf_addf(b, "%.0f", v);
	else
		rn_buf_addf(b, "%.3f ms", v / 1e6);
}

/*
 * --baseline: the head's runs against the base's, by the rule of the timing rows (docs/timing.md):
 * the Hodges-Lehmann shift of head over base with its one-sided bounds at SPAN_TIME_ALPHA;
 * limit = tolerance x the base's median. FAIL (WARN when not blocking) when the lower bound
 * exceeds the limit, PASS when the upper bound is within it, otherwise WARN (inconclusive: too
 * few runs, or a change near the limit). Appends the sentence to `msg` and returns the verdict,
 * or RN_VERDICT_COUNT when the base has no value.
 */
static enum rn_verdict against_base(const struct rn_assertion_spec *a, struct rn_target_result *r,
				    const double *head, size_t nh, bool counting,
				    struct rn_buf *msg, struct rn_buf *detail)
{
	struct rn_target_result *base = (struct rn_target_result *)r->base;
	struct rn_span_times bst;
	struct rn_hodges_lehmann hl;
	enum rn_verdict v;
	double *bv, bmed, limit;
	size_t nb;

	if (!base || !nh)
		return RN_VERDICT_COUNT;
	if (run_values(a, base, &bv, &nb, &bst) || !nb) {
		rn_span_times_release(&bst);
		free(bv);
		rn_buf_adds(msg, "; the base kept no such spans to compare with");
		return RN_VERDICT_COUNT;
	}
	rn_span_times_release(&bst);
	bmed = rn_stats_median(bv, nb);
	limit = a->tolerance * bmed;
	rn_stats_hodges_lehmann(bv, nb, head, nh, SPAN_TIME_ALPHA, &hl);
	if (hl.lower > limit)
		v = a->fail_on_violation ? RN_VERDICT_FAIL : RN_VERDICT_WARN;
	else if (hl.upper <= limit)
		v = RN_VERDICT_PASS;
	else
		v = RN_VERDICT_WARN;
	rn_buf_adds(msg, "; against the base (median ");
	add_value(msg, bmed, counting);
	rn_buf_addf(msg, " over %zu run%s): ", nb, nb == 1 ? "" : "s");
	if (v == RN_VERDICT_PASS)
		rn_buf_adds(msg, "within");
	else if (hl.lower > limit)
		rn_buf_adds(msg, "grew beyond");
	else
		rn_buf_addf(msg, "inconclusive%s against",
			    hl.k ? "" : " (too few runs for an interval: raise counting_runs)");
	rn_buf_addf(msg, " the limit +");
	add_value(msg, limit, counting);
	rn_buf_addf(msg, " (tolerance %.0f%%)", a->tolerance * 100.0);
	rn_buf_adds(detail, "against the base:\n  shift (Hodges-Lehmann)  ");
	add_value(detail, hl.shift, counting);
	if (hl.k) {
		rn_buf_addf(detail, "\n  interval (%.0f%%)          ", (1 - SPAN_TIME_ALPHA) * 100);
		add_value(detail, hl.lower, counting);
		rn_buf_adds(detail, " .. ");
		add_value(detail, hl.upper, counting);
	}
	rn_buf_adds(detail, "\n  base runs              ");
	for (size_t k = 0; k < nb; k++) {
		rn_buf_adds(detail, k ? ", " : "");
		add_value(detail, bv[k], counting);
	}
	rn_buf_adds(detail,
		    "\n  rule: FAIL when the interval's lower bound exceeds the limit; PASS "
		    "when its upper bound is within it; otherwise WARN\n");
	free(bv);
	return v;
}

/* Why no span matched `what`: a hint at the likely cause. */
static char *no_span_message(const struct rn_assertion_spec *a, const struct rn_target_result *r,
			     const struct rn_span_times *st, const char *what)
{
	return rn_xstrfmt("no span matched %s%s", what,
			  st->syscalls_matched ?
				  "" :
				  !strncmp(a->span_name_pattern, "gpu:", 4) && !r->last.ngpu ?
				  " (no GPU spans: is \"vulkan\" or \"cuda\" in the "
				  "target's collectors?)" :
				  !strncmp(a->span_name_pattern, "app:", 4) && !r->last.napp ?
				  " (no app spans: is \"app\" in the target's "
				  "collectors, and does the program export its spans?)" :
				  " (and it names no syscall: a typo?)");
}

/* The unit, budget and whether it is one, of the verdict of `a`. */
static void set_budget(struct rn_verdict_result *out, const struct rn_assertion_spec *a,
		       bool counting)
{
	out->unit = counting ? "spans" : "ms";
	out->has_budget = counting || a->has_max_span || a->has_min_span;
	out->budget = counting  ? (double)a->max_spans :
		a->has_max_span ? (double)a->max_span_ns / 1e6 :
				  (double)a->min_span_ns / 1e6;
}

/* Whether value `v` (a count, or ns) passes the budget and floors of `a`. */
static bool value_ok(const struct rn_assertion_spec *a, const struct rn_span_times *st, double v,
		     uint64_t total_spans, bool counting)
{
	bool ok;

	if (counting)
		ok = v <= (double)a->max_spans;
	else
		ok = (!a->has_max_span || v <= (double)a->max_span_ns) &&
			(!a->has_min_span || v >= (double)a->min_span_ns);
	if (a->has_min_each && total_spans && stat_value(st, RN_SPAN_STAT_MIN, 0) < a->min_each_ns)
		ok = false;
	return ok;
}

/* The message of the verdict: the value against the budget, floor and min_time_ms. */
static void add_message(struct rn_buf *b, const struct rn_assertion_spec *a,
			const struct rn_span_times *st, const struct rn_verdict_result *out,
			double v, uint64_t total_spans, const char *what, bool ok)
{
	if (a->span_stat == RN_SPAN_STAT_COUNT_ABOVE) {
		rn_buf_addf(b,
			    "%.0f of %llu spans matching %s took more than %.3f ms (%s) "
			    "%s budget %llu (inclusive)",
			    v, (unsigned long long)total_spans, what, (double)a->threshold_ns / 1e6,
			    out->aggregate, ok ? "<=" : ">", (unsigned long long)a->max_spans);
		return;
	}
	rn_buf_addf(b, "%s of %llu spans matching %s %.3f ms (%s)", rn_span_stat_name(a->span_stat),
		    (unsigned long long)total_spans, what, v / 1e6, out->aggregate);
	if (a->has_max_span)
		rn_buf_addf(b, " %s budget %.3f ms", v <= (double)a->max_span_ns ? "<=" : ">",
			    (double)a->max_span_ns / 1e6);
	if (a->has_min_span)
		rn_buf_addf(b, "%s %s floor %.3f ms", a->has_max_span ? "," : "",
			    v >= (double)a->min_span_ns ? ">=" : "<", (double)a->min_span_ns / 1e6);
	if (a->has_min_each) {
		uint64_t m = stat_value(st, RN_SPAN_STAT_MIN, 0);

		rn_buf_addf(b, "%s shortest %.3f ms %s min_time_ms %.3f",
			    a->has_max_span || a->has_min_span ? "," : "", (double)m / 1e6,
			    m >= a->min_each_ns ? ">=" : "<", (double)a->min_each_ns / 1e6);
	}
	if (a->has_max_span)
		rn_buf_addf(b, " (%+.1f%%, inclusive)", out->delta_pct);
}

/* "<stat> per run: v1, v2, ..." when there is more than one run. */
static void add_per_run(struct rn_buf *detail, enum rn_span_stat s, const double *vals,
			size_t nvals, bool counting)
{
	if (nvals <= 1)
		return;
	rn_buf_addf(detail, "%s per run:", rn_span_stat_name(s));
	for (size_t k = 0; k < nvals; k++) {
		rn_buf_adds(detail, k ? ", " : " ");
		add_value(detail, vals[k], counting);
	}
	rn_buf_addc(detail, '\n');
}

void rn_span_time_evaluate(const struct rn_assertion_spec *a, struct rn_target_result *r,
			   struct rn_verdict_result *out)
{
	struct rn_span_times st;
	enum rn_span_stat s = a->span_stat;
	bool counting = s == RN_SPAN_STAT_COUNT_ABOVE, ok;
	uint64_t total_spans;
	double *vals, v;
	size_t nvals;
	char *what = what_of(a);
	const char *kind = r->ncounts ? "counting run" : "run";
	struct rn_buf b, detail;
	enum rn_verdict ref;
	int rc;

	rc = run_values(a, r, &vals, &nvals, &st);
	if (rc) {
		out->verdict = RN_VERDICT_ERROR;
		out->message = rn_xstrfmt("cannot read the span spool: %s", strerror(-rc));
		rn_span_times_release(&st);
		free(vals);
		free(what);
		return;
	}
	if (rn_target_result_span_runs(r) <= 1)
		out->aggregate = rn_xstrfmt("the last %s", kind);
	else
		out->aggregate = rn_xstrfmt("median of %zu %ss", nvals, kind);
	total_spans = st.n + st.agg_calls;
	set_budget(out, a, counting);
	/* Zero spans is a measurement only for sums and counts of spans the run could have
	 * made (a syscall name and counted syscalls); otherwise nothing was looked at. */
	if (!total_spans && s == RN_SPAN_STAT_CPU && st.nno_cpu) {
		out->verdict = RN_VERDICT_NOT_JUDGED;
		out->message = rn_xstrfmt(
			"cpu of %s: not judged, its %zu matching span%s carry no CPU time (only "
			"renacer_span.h push/pop spans do; OTLP spans, GPU spans, "
			"renacer_span_record() spans and programs built with an older "
			"renacer_span.h do not)",
			what, st.nno_cpu, st.nno_cpu == 1 ? "" : "s");
		goto out_free;
	}
	if (!total_spans && !has_value(a, r, &st)) {
		out->verdict = RN_VERDICT_NO_DATA;
		out->message = no_span_message(a, r, &st, what);
		goto out_free;
	}
	if (!stat_known(&st, s)) {
		out->verdict = RN_VERDICT_NO_DATA;
		out->message =
			rn_xstrfmt("%s of %s needs each syscall span, and the run kept no spool",
				   rn_span_stat_name(s), what);
		goto out_free;
	}
	/* the last run's value when it is the only one, else the median over the runs */
	if (nvals <= 1)
		v = total_spans ? (double)stat_value(&st, s, a->threshold_ns) : 0;
	else
		v = rn_stats_median(vals, nvals);
	out->has_observed = true;
	out->observed = counting ? v : v / 1e6;
	ok = value_ok(a, &st, v, total_spans, counting);
	verdict_of(out, a, ok);
	rn_buf_init(&b, 0);
	rn_buf_init(&detail, 0);
	add_message(&b, a, &st, out, v, total_spans, what, ok);
	add_per_run(&detail, s, vals, nvals, counting);
	ref = against_base(a, r, vals, nvals, counting, &b, &detail);
	if (ref != RN_VERDICT_COUNT)
		out->verdict = worse(out->verdict, ref);
	out->message = rn_buf_detach(&b, NULL);
	{
		char *last = detail_of(&st, a->threshold_ns, s == RN_SPAN_STAT_CPU);

		rn_buf_adds(&detail, last);
		free(last);
	}
	out->detail = rn_buf_detach(&detail, NULL);
out_free:
	free(what);
	free(vals);
	rn_span_times_release(&st);
}
