/*
 * assertion_internal.h - what the files of assertions/ share to evaluate assertions, and what
 * their unit tests call directly: names of enum values, the metrics of a trace, span counting
 * and the evaluators of single assertion types. Not for other layers: they go through
 * assertion.h (rn_assertion_evaluate and the result accessors).
 */
#ifndef RN_ASSERTION_INTERNAL_H
#define RN_ASSERTION_INTERNAL_H

#include "assertion.h"

/* Reduce a finished trace to its metrics (critical path included). */
void rn_metrics_from_trace(const struct rn_trace *t, struct rn_metrics *m);

/* "median", "min", "p95", "max". */
const char *rn_aggregate_name(enum rn_aggregate a);

/* The runs whose values of metric `m` are its samples: r->runs or r->counts (see
 * rn_metric_measured_by); *n gets their number (0: no data). */
const struct rn_metrics *rn_target_result_runs_of(const struct rn_target_result *r,
						  enum rn_metric m, size_t *n);

/* Name of an assertion type ("critical_path"). */
const char *rn_assertion_type_name(enum rn_assertion_type t);

/* The evaluate and gaps functions of each row of RN_ASSERTION_TYPES (assertion.h): each
 * type's evaluate lives in its own file (span_time.c, witness.c, equivalence_eval.c) or in
 * evaluate.c; the gaps functions in gaps.c. */
#define RN_ASSERTION_TYPE_DECL(id, name, evaluate, gaps, keys, help)                               \
	void evaluate(const struct rn_assertion_spec *a, struct rn_target_result *r,               \
		      struct rn_verdict_result *out);                                              \
	uint32_t gaps(const struct rn_assertion_spec *a, const struct rn_target_result *r,         \
		      bool *count_bound);
RN_ASSERTION_TYPES(RN_ASSERTION_TYPE_DECL)
#undef RN_ASSERTION_TYPE_DECL

/* The gap scopes (enum rn_gap_scope) the metric of assertion `a` reads from the runs of `r`
 * (its row's gaps): GPU spans for span_count patterns that can match a GPU span ("gpu:..."),
 * critical_path and anti_pattern; the span detail of the spool for anti_pattern, span_time,
 * witness and for equivalence replayed from the spool; the Valgrind run's count for
 * instructions. 0 for memory_usage. *count_bound: a loss could only have raised the metric
 * (span_count, instructions, span_time count_above). */
uint32_t rn_assertion_gap_scopes(const struct rn_assertion_spec *a,
				 const struct rn_target_result *r, bool *count_bound);

/* Count spans whose name fully matches compiled pattern `re` in trace `t`: syscall
 * spans named by syscall, GPU spans "gpu:<name>", region spans "region:<name>"
 * (rn_gpu_span_match_name). With `region_re` (non-NULL) only GPU spans whose
 * innermost enclosing region's name fully matches it count (syscalls have no region and
 * are left out). Patterns see full names. Fills the `ntop` highest (name, count) pairs,
 * highest first, into the caller's arrays: `top_names` gets names shortened for consoles
 * (rn_gpu_display_name, "" past the last); `top_full`, when non-NULL, gets the full names
 * (heap copies the caller frees, NULL past the last). `gpu_ns`, when non-NULL, receives the
 * summed durations of the counted GPU spans, ns. Dies on out-of-memory. */
uint64_t rn_span_count(const struct rn_trace *t, const struct rn_regex *re,
		       const struct rn_regex *region_re, char (*top_names)[RN_SPAN_NAME_MAX],
		       uint64_t *top_counts, size_t ntop, char **top_full, uint64_t *gpu_ns);

/* The span_time assertion (assertions/span_time.c); `out` is begun by rn_assertion_evaluate. */
void rn_span_time_evaluate(const struct rn_assertion_spec *a, struct rn_target_result *r,
			   struct rn_verdict_result *out);

/*
 * The witness assertion (assertions/witness.c): each app span matching a->span_re, as the
 * program reported it, against what the kernel saw of the same work. The kernel's end of a
 * span is the end of the last syscall matching a->witness_re (the response written) that the
 * span's thread (its process when the thread is unknown) began between the span's start and
 * the start of its next matching span on that thread (or the process's end); the kernel's
 * duration runs from the reported start to there. A span whose reported duration differs
 * from the kernel's by more than a->tolerance of the kernel's fails. Spans without a witness
 * syscall are not measured; none measured (no spool, no matching span or syscall) is NO DATA,
 * never a pass. `out` is begun by rn_assertion_evaluate.
 */
void rn_witness_evaluate(const struct rn_assertion_spec *a, struct rn_target_result *r,
			 struct rn_verdict_result *out);

/* Whether GPU span `g` lies in a region whose name fully matches `region_re`;
 * true for every span when `region_re` is NULL. */
bool rn_gpu_span_in_region(const struct rn_gpu_span *g, const struct rn_regex *region_re);

#endif
