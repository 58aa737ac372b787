/*
 * span_time.c - time budgets on spans: the span_time assertion.
 *
 * The durations come from the trace of the last counting run (the one that keeps the span
 * spool): syscall spans one by one from the spool, GPU work, regions and graph replays from
 * the GPU spans, and the program's own spans from the app spans. Syscall durations are taken
 * under the tracer (entry stop to exit stop), so they include the stops' cost, some
 * microseconds a call: budgets of a few microseconds on syscalls are not meaningful.
 */
#include "assertion.h"
#include "assertion_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "sat.h"
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

/* Free what *st owns. */
static void rn_span_times_release(struct rn_span_times *st)
{
	free(st->ns);
	memset(st, 0, sizeof(*st));
}

/* Fill *out (caller releases with rn_span_times_release) from `t`. Returns 0, or a negative
 * errno when the spool could not be read (then *out is released). Dies on out-of-memory. */
static int rn_span_times_collect(struct rn_trace *t, const struct rn_regex *re,
				 const struct rn_regex *region_re, struct rn_span_times *out)
{
	struct collect c = { re, out, 0 };
	char name[RN_SPAN_NAME_MAX + 8];
	size_t i;
	int rc;

	memset(out, 0, sizeof(*out));
	out->agg_min_ns = UINT64_MAX;
	/* Syscalls happen in no region: a region filter leaves them out. */
	if (!region_re) {
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
		if (rn_regex_match(re, full)) {
			add_span(&c, full, g->end_ns > g->start_ns ? g->end_ns - g->start_ns : 0);
			out->ngpu++;
		}
		free(full);
	}
	for (i = 0; i < t->napp; i++) {
		const struct rn_app_span *a = &t->app[i];

		if (region_re && (!a->parent || !rn_regex_match(region_re, a->parent)))
			continue;
		snprintf(name, sizeof(name), "app:%s", a->name);
		if (!rn_regex_match(re, name))
			continue;
		add_span(&c, name, a->end_ns > a->start_ns ? a->end_ns - a->start_ns : 0);
		out->napp++;
	}
	if (out->n)
		qsort(out->ns, out->n, sizeof(*out->ns), cmp_u64);
	return 0;
}

static char *xfmt(const char *fmt, ...) RN_PRINTF(1, 2);

static char *xfmt(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		rn_die("out of memory");
	return s;
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
	return s == RN_SPAN_STAT_TOTAL || s == RN_SPAN_STAT_MAX || s == RN_SPAN_STAT_MIN;
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
	return xfmt("/%s/%s%s%s", a->span_name_pattern, a->region_re ? " in region /" : "",
		    a->region_re ? a->region_pattern : "", a->region_re ? "/" : "");
}

static void verdict_of(struct rn_verdict_result *out, const struct rn_assertion_spec *a, bool ok)
{
	out->verdict =
		ok ? RN_VERDICT_PASS : (a->fail_on_violation ? RN_VERDICT_FAIL : RN_VERDICT_WARN);
	if (out->has_budget && out->budget > 0)
		out->delta_pct = (out->observed - out->budget) / out->budget * 100.0;
}

/* The detail body: the spans seen, the statistics, the longest span. */
static char *detail_of(const struct rn_span_times *st, uint64_t threshold_ns)
{
	struct rn_buf b;
	enum rn_span_stat s;

	rn_buf_init(&b, 0);
	rn_buf_addf(&b, "spans: %zu (syscalls %zu%s, GPU %zu, app %zu)\n",
		    st->n + (size_t)st->agg_calls, st->nsyscall,
		    st->agg_calls ? " known by their totals only: no spool" : "", st->ngpu,
		    st->napp);
	for (s = 0; s < RN_SPAN_STAT_COUNT && st->n + st->agg_calls; s++) {
		if (!stat_known(st, s))
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
		rn_buf_addf(&b, "longest: %s %.3f ms\n", st->top_name, (double)st->top_ns / 1e6);
	return rn_buf_detach(&b, NULL);
}

void rn_span_time_evaluate(const struct rn_assertion_spec *a, struct rn_target_result *r,
			   struct rn_verdict_result *out)
{
	struct rn_span_times st;
	enum rn_span_stat s = a->span_stat;
	bool counting = s == RN_SPAN_STAT_COUNT_ABOVE, ok;
	uint64_t v, total_spans;
	char *what = what_of(a);
	int rc;

	out->aggregate = xfmt("the last %s", r->ncounts ? "counting run" : "run");
	rc = rn_span_times_collect(&r->last, a->span_re, a->region_re, &st);
	if (rc) {
		out->verdict = RN_VERDICT_ERROR;
		out->message = xfmt("cannot read the span spool: %s", strerror(-rc));
		free(what);
		return;
	}
	total_spans = st.n + st.agg_calls;
	out->unit = counting ? "spans" : "ms";
	out->has_budget = counting || a->has_max_span || a->has_min_span;
	out->budget = counting  ? (double)a->max_spans :
		a->has_max_span ? (double)a->max_span_ns / 1e6 :
				  (double)a->min_span_ns / 1e6;
	/* Zero spans is a measurement only for sums and counts of spans the run could have
	 * made (a syscall name and counted syscalls); otherwise nothing was looked at. */
	if (!total_spans &&
	    !((s == RN_SPAN_STAT_TOTAL || counting) && st.syscalls_matched && !a->region_re &&
	      rn_target_result_count_runs(r) && !a->has_min_each)) {
		out->verdict = RN_VERDICT_NO_DATA;
		out->message =
			xfmt("no span matched %s%s", what,
			     st.syscalls_matched ?
				     "" :
				     !strncmp(a->span_name_pattern, "gpu:", 4) && !r->last.ngpu ?
				     " (no GPU spans: is \"vulkan\" or \"cuda\" in the "
				     "target's collectors?)" :
				     !strncmp(a->span_name_pattern, "app:", 4) && !r->last.napp ?
				     " (no app spans: is \"app\" in the target's "
				     "collectors, and does the program export its spans?)" :
				     " (and it names no syscall: a typo?)");
		free(what);
		rn_span_times_release(&st);
		return;
	}
	if (!stat_known(&st, s)) {
		out->verdict = RN_VERDICT_NO_DATA;
		out->message = xfmt("%s of %s needs each syscall span, and the run kept no spool",
				    rn_span_stat_name(s), what);
		free(what);
		rn_span_times_release(&st);
		return;
	}
	v = total_spans ? stat_value(&st, s, a->threshold_ns) : 0;
	out->has_observed = true;
	out->observed = counting ? (double)v : (double)v / 1e6;
	if (counting)
		ok = v <= a->max_spans;
	else
		ok = (!a->has_max_span || v <= a->max_span_ns) &&
			(!a->has_min_span || v >= a->min_span_ns);
	if (a->has_min_each && total_spans && stat_value(&st, RN_SPAN_STAT_MIN, 0) < a->min_each_ns)
		ok = false;
	verdict_of(out, a, ok);
	if (counting)
		out->message = xfmt("%llu of %llu spans matching %s took more than %.3f ms (%s) "
				    "%s budget %llu (inclusive)",
				    (unsigned long long)v, (unsigned long long)total_spans, what,
				    (double)a->threshold_ns / 1e6, out->aggregate, ok ? "<=" : ">",
				    (unsigned long long)a->max_spans);
	else {
		struct rn_buf b;

		rn_buf_init(&b, 0);
		rn_buf_addf(&b, "%s of %llu spans matching %s %.3f ms (%s)", rn_span_stat_name(s),
			    (unsigned long long)total_spans, what, (double)v / 1e6, out->aggregate);
		if (a->has_max_span)
			rn_buf_addf(&b, " %s budget %.3f ms", v <= a->max_span_ns ? "<=" : ">",
				    (double)a->max_span_ns / 1e6);
		if (a->has_min_span)
			rn_buf_addf(&b, "%s %s floor %.3f ms", a->has_max_span ? "," : "",
				    v >= a->min_span_ns ? ">=" : "<", (double)a->min_span_ns / 1e6);
		if (a->has_min_each) {
			uint64_t m = stat_value(&st, RN_SPAN_STAT_MIN, 0);

			rn_buf_addf(&b, "%s shortest %.3f ms %s min_time_ms %.3f",
				    a->has_max_span || a->has_min_span ? "," : "", (double)m / 1e6,
				    m >= a->min_each_ns ? ">=" : "<", (double)a->min_each_ns / 1e6);
		}
		if (a->has_max_span)
			rn_buf_addf(&b, " (%+.1f%%, inclusive)", out->delta_pct);
		out->message = rn_buf_detach(&b, NULL);
	}
	out->detail = detail_of(&st, a->threshold_ns);
	free(what);
	rn_span_times_release(&st);
}
