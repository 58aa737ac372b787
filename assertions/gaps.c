/*
 * gaps.c - known data loss (collectors/trace.h struct rn_trace_gap) in verdicts: a collector
 * that lost spans says so in the trace, and a verdict on those spans says it is incomplete
 * instead of passing on data known to be partial.
 */
#include "assertion.h"
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "xalloc.h"

void rn_target_result_add_gaps(struct rn_target_result *r, const struct rn_trace *t)
{
	size_t i, k;

	for (i = 0; i < t->ngaps; i++) {
		const struct rn_trace_gap *g = &t->gaps[i];

		for (k = 0; k < r->ngaps; k++) {
			struct rn_trace_gap *h = &r->gaps[k];

			if (h->kind != g->kind || h->scope != g->scope ||
			    strcmp(h->source, g->source))
				continue;
			/* per run, not summed: a count verdict judges one run's worth (or a
			 * statistic of runs), so the largest loss of one run bounds it */
			if (!h->count || !g->count)
				h->count = 0;
			else if (g->count > h->count)
				h->count = g->count;
			break;
		}
		if (k < r->ngaps)
			continue;
		r->gaps = rn_xrealloc(r->gaps, (r->ngaps + 1) * sizeof(*r->gaps));
		r->gaps[r->ngaps] = *g;
		r->gaps[r->ngaps].reason = rn_xstrdup(g->reason);
		r->ngaps++;
	}
}

/* Can a span_count pattern count GPU spans (named "gpu:<name>")? A lost span's name is not
 * known, so any pattern that accepts a "gpu:" name, or matches a GPU span of the last run,
 * could have counted it. */
static bool counts_gpu_spans(const struct rn_assertion_spec *a, const struct rn_target_result *r)
{
	char name[RN_SPAN_NAME_MAX];
	size_t i;

	if (!a->span_re)
		return false;
	if (a->span_name_pattern && !strncmp(a->span_name_pattern, "gpu:", 4))
		return true;
	if (rn_regex_match(a->span_re, "gpu:dispatch") || rn_regex_match(a->span_re, "gpu:kernel"))
		return true;
	for (i = 0; i < r->last.ngpu; i++) {
		snprintf(name, sizeof(name), "gpu:%s", r->last.gpu[i].name);
		if (rn_regex_match(a->span_re, name))
			return true;
	}
	return false;
}

/* The gaps column of RN_ASSERTION_TYPES (assertion.h), one function per kind of metric. */
uint32_t rn_gaps_none(const struct rn_assertion_spec *a, const struct rn_target_result *r,
		      bool *count_bound)
{
	(void)a;
	(void)r;
	(void)count_bound;
	return 0;
}

uint32_t rn_gaps_gpu_spans(const struct rn_assertion_spec *a, const struct rn_target_result *r,
			   bool *count_bound)
{
	(void)a;
	(void)r;
	(void)count_bound;
	return RN_GAP_GPU_SPANS;
}

uint32_t rn_gaps_span_detail(const struct rn_assertion_spec *a, const struct rn_target_result *r,
			     bool *count_bound)
{
	(void)a;
	(void)r;
	(void)count_bound;
	return RN_GAP_SPAN_DETAIL;
}

uint32_t rn_gaps_span_count(const struct rn_assertion_spec *a, const struct rn_target_result *r,
			    bool *count_bound)
{
	*count_bound = true; /* a lost span could only have raised the count */
	return counts_gpu_spans(a, r) ? RN_GAP_GPU_SPANS : 0;
}

uint32_t rn_gaps_span_time(const struct rn_assertion_spec *a, const struct rn_target_result *r,
			   bool *count_bound)
{
	*count_bound = a->span_stat == RN_SPAN_STAT_COUNT_ABOVE;
	/* syscall spans one by one come from the spool */
	return (counts_gpu_spans(a, r) ? RN_GAP_GPU_SPANS : 0) | RN_GAP_SPAN_DETAIL;
}

uint32_t rn_gaps_anti_pattern(const struct rn_assertion_spec *a, const struct rn_target_result *r,
			      bool *count_bound)
{
	(void)a;
	(void)r;
	(void)count_bound;
	return RN_GAP_GPU_SPANS | RN_GAP_SPAN_DETAIL;
}

uint32_t rn_gaps_equivalence(const struct rn_assertion_spec *a, const struct rn_target_result *r,
			     bool *count_bound)
{
	(void)a;
	(void)count_bound;
	return r->behaviour ? 0 : RN_GAP_SPAN_DETAIL;
}

uint32_t rn_gaps_instructions(const struct rn_assertion_spec *a, const struct rn_target_result *r,
			      bool *count_bound)
{
	(void)a;
	(void)r;
	*count_bound = true; /* a process that left no count could only have added to it */
	return RN_GAP_INSTRUCTIONS;
}

uint32_t rn_assertion_gap_scopes(const struct rn_assertion_spec *a,
				 const struct rn_target_result *r, bool *count_bound)
{
	*count_bound = false;
	if (a->type >= RN_ASSERT_COUNT)
		return 0;
	return rn_assertion_types[a->type].gaps(a, r, count_bound);
}

static void append(char **msg, const char *text)
{
	struct rn_buf b;

	rn_buf_init(&b, 0);
	rn_buf_addf(&b, "%s%s%s", *msg ? *msg : "", *msg && **msg ? "; " : "", text);
	free(*msg);
	*msg = rn_buf_detach(&b, NULL);
}

void rn_verdict_apply_gaps(const struct rn_target_result *r, uint32_t scopes, bool count_bound,
			   struct rn_verdict_result *v)
{
	struct rn_buf what;
	uint64_t lost = 0;
	bool unknown = false, any = false;
	size_t i;
	char *text;

	if (v->verdict == RN_VERDICT_SKIP || !scopes)
		return;
	rn_buf_init(&what, 0);
	for (i = 0; i < r->ngaps; i++) {
		const struct rn_trace_gap *g = &r->gaps[i];

		if (!(g->scope & scopes))
			continue;
		if (g->count)
			rn_buf_addf(&what, "%s%s: %llu %s (%s)", any ? ", " : "", g->source,
				    (unsigned long long)g->count, rn_gap_kind_name(g->kind),
				    g->reason);
		else
			rn_buf_addf(&what, "%s%s: %s, how many unknown (%s)", any ? ", " : "",
				    g->source, rn_gap_kind_name(g->kind), g->reason);
		any = true;
		unknown |= !g->count;
		lost += g->count;
	}
	text = rn_buf_detach(&what, NULL);
	if (!any) {
		free(text);
		return;
	}
	if (v->verdict == RN_VERDICT_PASS) {
		bool bounded = count_bound && v->has_budget && v->has_observed;

		if (bounded && !unknown && v->observed + (double)lost <= v->budget) {
			append(&v->message,
			       "data incomplete, but the lost items cannot reach the "
			       "budget");
		} else if (bounded) {
			v->verdict = RN_VERDICT_NO_DATA;
			free(v->reason);
			v->reason = rn_xstrdup("data lost: the count is a lower bound");
			append(&v->message,
			       "NO DATA: the count is a lower bound and the lost items "
			       "could exceed the budget");
		} else {
			v->verdict = RN_VERDICT_WARN;
			free(v->reason);
			v->reason = rn_xstrdup("passed on incomplete data");
			append(&v->message, "WARN: passed on incomplete data");
		}
	}
	{
		struct rn_buf b;

		rn_buf_init(&b, 0);
		rn_buf_addf(&b, "known data loss: %s", text);
		append(&v->message, b.buf);
		rn_buf_release(&b);
	}
	free(text);
}
