/*
 * golden_internal.h - what the files of the golden-trace comparison share (private to
 * assertions/golden*.c): the comparison steps, the state of one rn_golden_compare() call, and
 * the formatting and verdict helpers the judges use.
 *
 *   golden.c          configuration, check names, feasibility, host provenance, the step table
 *                     and rn_golden_compare() (the driver)
 *   golden_write.c    rn_golden_write(): renacer-golden/2 files
 *   golden_read.c     rn_golden_read(): renacer-golden/1 and /2, renacer-json-v1 import
 *   golden_judge.c    the helpers below: number formatting, samples, verdict fields
 *   golden_counts.c   judging counts: syscalls, per-syscall counts, GPU counts, instructions
 *   golden_timing.c   judging timing: rank test, Hodges-Lehmann bound, noise, load guard
 *   golden_memory.c   judging memory: median against a relative tolerance
 *
 * Strings written into `out` buffers are always NUL-terminated and cut at `cap`. Verdict
 * strings (message, detail, reason) are heap strings owned by the verdict. Out of memory dies
 * (rn_xmalloc). Nothing here keeps state between calls; nothing is thread-safe beyond that.
 */
#ifndef RN_GOLDEN_INTERNAL_H
#define RN_GOLDEN_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "golden.h"
#include "log.h"

/* What judges a metric (enum rn_golden_judge). */
enum rn_golden_judge {
	JUDGE_COUNT,        /* log-space growth with a floor */
	JUDGE_SYSCALLS,     /* JUDGE_COUNT for every syscall, one verdict */
	JUDGE_TIMING,       /* one-sided rank test plus Hodges-Lehmann bound */
	JUDGE_MEMORY,       /* median against a relative tolerance */
	JUDGE_INSTRUCTIONS, /* Valgrind count against instructions_tolerance, no floor */
	JUDGE_PROCESSES,    /* more processes than any golden run had */
};

/* One comparison, in report order. */
struct rn_golden_step {
	enum rn_golden_check check; /* which comparison ([golden] metrics) */
	enum rn_golden_judge judge; /* how */
	enum rn_metric metric;      /* which per-run metric (JUDGE_SYSCALLS: unused) */
	const char *name;           /* verdict name after "golden:" */
	const char *unit;           /* verdict unit (static) */
	bool gpu;                   /* only with a GPU summary in the golden trace */
};

/* State of one rn_golden_compare call. */
struct rn_golden_cmp {
	const struct rn_golden *g;           /* the baseline */
	const char *path;                    /* its file, for details */
	const struct rn_target_result *r;    /* the new runs */
	const struct rn_regression_cfg *cfg; /* tolerances */
	bool same_machine;                   /* rn_golden_same_machine(g) */
	double user_share;                   /* rn_golden_user_share(g, cfg) */
	unsigned fp_mask;                    /* rn_golden_fp_mask(g, r): fingerprint fields that
					      * differ from the recording's */
	char elsewhere[480];                 /* why the machine differs, for WARN messages */
	struct rn_verdict_result *v;         /* verdicts produced */
	size_t n;                            /* verdicts used */
	size_t cap;                          /* verdicts allocated */
};

/* ---- golden_timing.c -----------------------------------------------------------------------------
 */

/* The golden's user-time share of its CPU time (medians, 0..1), or -1 when it recorded no
 * user time (a golden trace older than the user_time metric), fewer than
 * cfg->min_runs_for_timing runs, or under 50 ms of CPU time (too little for the kernel's
 * tick-sampled user/system split to mean anything). */
double rn_golden_user_share(const struct rn_golden *g, const struct rn_regression_cfg *cfg);

/* ---- golden.c ---------------------------------------------------------------------------------
 */

/* The environment fingerprint fields (util/fingerprint.h, a bit each) in which the runs of `r`
 * differ from the recording of `g`, both known; 0 when either has no fingerprint. Any of them
 * alone can move a time, so timing against `g` is then never FAIL. */
unsigned rn_golden_fp_mask(const struct rn_golden *g, const struct rn_target_result *r);

/* The smallest one-sided p-value a Mann-Whitney test of na against nb samples can give. */
double rn_golden_min_p(size_t na, size_t nb);
/* The step judging metric `m` (a timing or memory metric of the step table; the first step
 * when none). Static storage. */
const struct rn_golden_step *rn_golden_step_of(enum rn_metric m);

/* ---- golden_write.c / golden_read.c -------------------------------------------------------------
 */

/* The word for a run status in messages: "ok", "timed out", ... (static). */
const char *rn_golden_status_name(enum rn_run_status s);
/* qsort/bsearch comparator of struct rn_golden_syscall by name. */
int rn_golden_cmp_syscall(const void *a, const void *b);

/* ---- golden_judge.c: formatting -----------------------------------------------------------------
 */

/*
 * Number formatting for messages and details. snprintf's %f follows LC_NUMERIC, and reports go
 * to machine readers (JUnit), so the radix character is forced to '.' as rn_buf_add_fixed does.
 * Each writes into out[cap]. fixed: v with `prec` decimals ("nan"/"inf" as such).
 */
void rn_golden_fixed(char *out, size_t cap, double v, int prec);
/* A count: integral values without decimals, medians of even runs with one. */
void rn_golden_fmt_num(char *out, size_t cap, double v);
/* A signed percentage: "+100.0%", "-3.5%". */
void rn_golden_fmt_pct(char *out, size_t cap, double pct);
/* A tolerance fraction as "+10%". */
void rn_golden_fmt_tol(char *out, size_t cap, double tol);
/* A value in a metric's unit, for humans: ns as ms, bytes scaled, counts plain. */
void rn_golden_fmt_value(char *out, size_t cap, const char *unit, double v);
/* A signed difference in a metric's unit: "+30.20 ms". */
void rn_golden_fmt_signed(char *out, size_t cap, const char *unit, double v);
/* A fraction with at most four decimals and no trailing zeros: "0.01". */
void rn_golden_fmt_trim(char *out, size_t cap, double v);
/* A p-value: "p=0.0312", or "p<0.0001". */
void rn_golden_fmt_p(char *out, size_t cap, double p);

/* ---- golden_judge.c: samples --------------------------------------------------------------------
 */

/* Relative change in percent; relative to 1 when the golden value is 0. */
double rn_golden_delta_pct(double observed, double golden);
/* Median of x[n]; 0 when n is 0. */
double rn_golden_median_of(const double *x, size_t n);
/* Observed per-run samples of metric m as doubles (caller frees): the timing runs' for time
 * metrics (r->nruns of them), the counting runs' for counts (see rn_golden_observed_n). */
double *rn_golden_observed(const struct rn_target_result *r, enum rn_metric m);
/* How many samples rn_golden_observed() gives for metric m. */
size_t rn_golden_observed_n(const struct rn_target_result *r, enum rn_metric m);
/* How many samples the golden trace has for metric m. */
size_t rn_golden_golden_n(const struct rn_golden *g, enum rn_metric m);
/* Was the machine loaded over the measured runs (CPU pressure >= RN_LOAD_PRESSURE_BUSY)? */
bool rn_golden_loaded(const struct rn_golden_cmp *c);
/* Did the measured runs wait on I/O (I/O pressure >= RN_LOAD_PRESSURE_BUSY, the target's own
 * waits included)? Their time is then not comparable with another moment's. */
bool rn_golden_io_bound(const struct rn_golden_cmp *c);

/* ---- golden_judge.c: verdict fields -------------------------------------------------------------
 */

/* Set v's observed, golden, budget (metric unit in, verdict unit out: ns -> ms) and delta. */
void rn_golden_set_values(struct rn_verdict_result *v, const struct rn_golden_step *s, double obs,
			  double gold, double budget);
/* Finish a message buffer into v->message (taking b's text), adding the hint to failures. */
void rn_golden_set_message(struct rn_verdict_result *v, struct rn_buf *b);
/* The tolerance of step `s`: [golden.tolerances] when given, else `dflt`. */
double rn_golden_tol_of(const struct rn_golden_cmp *c, const struct rn_golden_step *s, double dflt);
/* Replace v->reason with the formatted text (at most 255 bytes). */
void rn_golden_set_reason(struct rn_verdict_result *v, const char *fmt, ...) RN_PRINTF(2, 3);
/* Append the "golden trace: <path> (recorded ... on ...)" line of the details. */
void rn_golden_add_golden_line(const struct rn_golden_cmp *c, struct rn_buf *b);
/* The detail table comparing two sample sets a[na] (golden) and bb[nb] (observed): runs,
 * median, MAD, min, max, in `unit`. */
void rn_golden_add_sample_table(struct rn_buf *b, const char *unit, const double *a, size_t na,
				const double *bb, size_t nb);
/* Downgrade a FAIL of a machine-dependent metric to WARN when the golden trace is foreign,
 * saying why in msg. */
void rn_golden_maybe_downgrade(struct rn_golden_cmp *c, struct rn_verdict_result *v,
			       struct rn_buf *msg);

/* ---- the judges: each fills verdict v (from rn_golden_compare's add_verdict) of step s ----------
 */

/* Counts (golden_counts.c): log-space growth over count_tolerance and above count_floor. */
/* golden:processes: FAIL when the runs' median process count exceeds the most any golden run
 * had (a new exec'd child of a build fails, whatever the tolerance of counts). */
void rn_golden_judge_processes(struct rn_golden_cmp *c, const struct rn_golden_step *s,
			       struct rn_verdict_result *v);
/* A count step (the syscall total, errors, allocations, GPU counts: metric s->metric) against
 * the golden's median: FAIL beyond count_tolerance in log space and count_floor (units of the
 * metric, one count), PASS otherwise; fills `v` (golden_counts.c). */
void rn_golden_judge_count(struct rn_golden_cmp *c, const struct rn_golden_step *s,
			   struct rn_verdict_result *v);
/* Every syscall's count, one verdict naming the worst (golden_counts.c). */
void rn_golden_judge_syscalls(struct rn_golden_cmp *c, const struct rn_golden_step *s,
			      struct rn_verdict_result *v);
/* Valgrind instruction counts against instructions_tolerance, no floor (golden_counts.c). */
void rn_golden_judge_instructions(struct rn_golden_cmp *c, const struct rn_golden_step *s,
				  struct rn_verdict_result *v);
/* Timing (golden_timing.c): one-sided Mann-Whitney U plus the Hodges-Lehmann bound. */
void rn_golden_judge_timing(struct rn_golden_cmp *c, const struct rn_golden_step *s,
			    struct rn_verdict_result *v);
/* Memory (golden_memory.c): the observed median against golden median * (1 + tolerance). */
void rn_golden_judge_memory(struct rn_golden_cmp *c, const struct rn_golden_step *s,
			    struct rn_verdict_result *v);

#endif
