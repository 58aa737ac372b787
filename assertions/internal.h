/*
 * internal.h - what the files of assertions/ share and no other folder calls, one section per
 * group of modules: the evaluators, the anti-pattern detectors, behaviour equivalence and the
 * golden-trace comparison. Their unit tests include it as "assertions/internal.h"; other
 * layers go through assertion.h, equivalence.h and golden.h.
 */
#ifndef RN_ASSERTIONS_INTERNAL_H
#define RN_ASSERTIONS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "assertion.h"
#include "buf.h"
#include "changepoint.h"
#include "equivalence.h"
#include "golden.h"
#include "log.h"
#include "stats.h"

/* ==== the evaluators (evaluate.c, result.c, gaps.c, span_time.c, witness.c) ==== */

/*
 * What the files of assertions/ share to evaluate assertions, and what
 * their unit tests call directly: names of enum values, the metrics of a trace, span counting
 * and the evaluators of single assertion types. Not for other layers: they go through
 * assertion.h (rn_assertion_evaluate and the result accessors).
 */

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

/* ==== the anti-pattern detectors (antipattern.c, antipattern/) ==== */

/*
 * The detector table, the thresholds and the entry points (one
 * detector, all detectors) of the anti-pattern detectors (assertions/antipattern.c and
 * assertions/antipattern/), shared with their tests so near-miss cases can be built exactly
 * at the edges. Definitions and confidence formulas are in assertions/ANTIPATTERNS.md.
 *
 * Confidence building blocks (every detector combines them with min(): the weakest piece of
 * evidence bounds the confidence):
 *
 *   ramp_log(x; lo, hi) = clamp(ln(x / lo) / ln(hi / lo), 0, 1)   for counts and ratios that
 *                         span orders of magnitude; 0 at or below lo, 1 at or above hi, 0.5 at
 *                         the geometric mean sqrt(lo * hi)
 *   ramp_lin(x; lo, hi) = clamp((x - lo) / (hi - lo), 0, 1)        for fractions in [0, 1]
 *
 * Durations are syscall spans as the tracer measured them ("under tracer": they include the
 * tracer's stops), so the time thresholds below are deliberately loose.
 */

/*
 * The detectors: X(id, canonical name, one-line definition). The order is the order of
 * rn_antipattern_names[] and of reports. Spellings accepted by rn_antipattern_canonical() are
 * the canonical names compared without case and ignoring '_', '-' and ' ' (so
 * "PCIeBottleneck", "pcie_bottleneck" and "tight-loop" are accepted).
 */
#define RN_ANTIPATTERNS(X)                                                                         \
	X(GOD_PROCESS, "GodProcess",                                                               \
	  "one process of a multi-process target does most of the work while the others idle")     \
	X(TIGHT_LOOP, "TightLoop",                                                                 \
	  "a thread spins: long runs of identical no-progress syscalls with tiny gaps, "           \
	  "zero-timeout polls, tiny sleeps or sched_yield storms")                                 \
	X(PCIE_BOTTLENECK, "PcieBottleneck",                                                       \
	  "host<->device copies take more GPU time than the compute they feed")                    \
	X(SMALL_IO, "SmallIO", "many reads or writes far below a page on the same fd")             \
	X(REDUNDANT_IO, "RedundantIO",                                                             \
	  "the same path opened or stat'ed many times, or the same file read again and again")     \
	X(ERROR_STORM, "ErrorStorm",                                                               \
	  "many failing calls of one syscall with one errno (ENOENT probing, EAGAIN spinning)")    \
	X(SYNC_STORM, "SyncStorm",                                                                 \
	  "fsync/fdatasync after every small write, or a GPU submit-and-wait per tiny batch")      \
	X(MEMORY_CHURN, "MemoryChurn",                                                             \
	  "short-lived anonymous mappings or brk grow/shrink cycles, over and over")

/* Detector identifiers (enum rn_ap_id), in table order. */
enum rn_ap_id {
#define RN_AP_ENUM(id, name, desc) RN_AP_##id,
	RN_ANTIPATTERNS(RN_AP_ENUM)
#undef RN_AP_ENUM
	RN_AP_COUNT
};

/* ---- GodProcess ---------------------------------------------------------------------------- */
/* A single call at least this long counts as waiting, not working (spool only), ns. */
#define RN_AP_GOD_BLOCKED_CALL_NS 1000000ULL
/* Share of the tree's busy time held by the busiest process: ramp_lin(share; LO, HI). */
#define RN_AP_GOD_SHARE_LO 0.60
#define RN_AP_GOD_SHARE_HI 0.90
/* Idle fraction of its concurrent peers while they overlap it: ramp_lin(idle; LO, HI). */
#define RN_AP_GOD_IDLE_LO 0.60
#define RN_AP_GOD_IDLE_HI 0.90
/* Longest peer overlap over its lifetime: ramp_lin(concurrency; LO, HI). */
#define RN_AP_GOD_CONC_LO 0.10
#define RN_AP_GOD_CONC_HI 0.50
/* Its busy time must matter at all: ramp_log(busy_ns; LO, HI). */
#define RN_AP_GOD_BUSY_LO_NS 2000000.0
#define RN_AP_GOD_BUSY_HI_NS 50000000.0

/* ---- TightLoop ----------------------------------------------------------------------------- */
/* Largest user-space gap (previous call's exit to next call's entry) inside a spin run, ns. */
#define RN_AP_TL_MAX_GAP_NS 1000000ULL
/* A poll-family call that timed out, or a sleep, within this is a "zero/tiny timeout", ns. */
#define RN_AP_TL_TINY_WAIT_NS 200000ULL
/* Runs of at least this many calls count toward the spinning share of the lifetime. */
#define RN_AP_TL_EPISODE_MIN 16
/* Calls in spin runs of >= RN_AP_TL_EPISODE_MIN calls: ramp_log(calls; LO, HI). */
#define RN_AP_TL_RUN_LO 64.0
#define RN_AP_TL_RUN_HI 4096.0
/* Share of the process lifetime spent in spin runs: ramp_lin(share; LO, HI). */
#define RN_AP_TL_SHARE_LO 0.02
#define RN_AP_TL_SHARE_HI 0.20
/* Distinct call signatures remembered per thread (catches loops alternating a few calls). */
#define RN_AP_TL_SIGS 4
/* Without the spool: sched_yield calls of one process, ramp_log(calls; LO, HI). */
#define RN_AP_TL_YIELD_LO 1000.0
#define RN_AP_TL_YIELD_HI 64000.0

/* ---- PcieBottleneck ------------------------------------------------------------------------ */
/* Host<->device copy time over compute time: ramp_log(ratio; LO, HI) (0.5 at ratio 1). */
#define RN_AP_PCIE_RATIO_LO 0.25
#define RN_AP_PCIE_RATIO_HI 4.0
/* Copy time must matter at all: ramp_log(copy_ns; LO, HI). */
#define RN_AP_PCIE_COPY_LO_NS 10000.0
#define RN_AP_PCIE_COPY_HI_NS 1000000.0

/* ---- SmallIO ------------------------------------------------------------------------------- */
/* A read (bytes asked for) or write (bytes given) below this is small: 1/8 of a page. */
#define RN_AP_SMALL_IO_BYTES 512
/* Small transfers on one fd in one direction: ramp_log(n; LO, HI). */
#define RN_AP_SMALL_IO_LO 64.0
#define RN_AP_SMALL_IO_HI 4096.0
/* Share of that fd's transfers (same direction) that were small: ramp_lin(share; LO, HI). */
#define RN_AP_SMALL_IO_SHARE_LO 0.50
#define RN_AP_SMALL_IO_SHARE_HI 0.90

/* ---- RedundantIO --------------------------------------------------------------------------- */
/* Repeated accesses of one path by one process (opens + stats + re-reads - 1):
 * ramp_log(n; LO, HI). */
#define RN_AP_REDUNDANT_LO 8.0
#define RN_AP_REDUNDANT_HI 512.0

/* ---- ErrorStorm ---------------------------------------------------------------------------- */
/* Failures of one (process, syscall, errno): ramp_log(n; LO, HI). */
#define RN_AP_ERR_LO 64.0
#define RN_AP_ERR_HI 4096.0
/* Share of that syscall's calls in the process that failed so: ramp_lin(share; LO, HI). */
#define RN_AP_ERR_SHARE_LO 0.20
#define RN_AP_ERR_SHARE_HI 0.80

/* ---- SyncStorm ----------------------------------------------------------------------------- */
/* A sync of an fd after fewer bytes written than this (since its previous sync) is small. */
#define RN_AP_SYNC_SMALL_BYTES 16384
/* Small syncs of one process: ramp_log(n; LO, HI). */
#define RN_AP_SYNC_LO 8.0
#define RN_AP_SYNC_HI 512.0
/* Share of its syncs that were small (spool), or syncs per write (statistics):
 * ramp_lin(share; LO, HI). */
#define RN_AP_SYNC_SHARE_LO 0.30
#define RN_AP_SYNC_SHARE_HI 0.90
/* A GPU submission (submit, else command buffer, else dispatch span) shorter than this that
 * the host waited for is a tiny waited submission, ns. */
#define RN_AP_GPU_TINY_NS 100000ULL
/* Tiny waited submissions: ramp_log(n; LO, HI); share of submissions: ramp_lin. */
#define RN_AP_GPU_SYNC_LO 16.0
#define RN_AP_GPU_SYNC_HI 1024.0

/* ---- MemoryChurn --------------------------------------------------------------------------- */
/* An anonymous mapping unmapped, or a brk shrink grown back, within this is short-lived, ns. */
#define RN_AP_CHURN_SHORT_NS 10000000ULL
/* Short-lived mappings and brk cycles of one process: ramp_log(n; LO, HI). */
#define RN_AP_CHURN_LO 64.0
#define RN_AP_CHURN_HI 4096.0
/* Share of its anonymous maps and brk growths that were short-lived: ramp_lin(share; LO, HI). */
#define RN_AP_CHURN_SHARE_LO 0.25
#define RN_AP_CHURN_SHARE_HI 0.90
/* Without the spool: alloc_total / alloc_peak turnover, ramp_log(turnover; LO, HI). */
#define RN_AP_CHURN_TURNOVER_LO 4.0
#define RN_AP_CHURN_TURNOVER_HI 64.0

/* ---- Memory bounds ------------------------------------------------------------------------- */
/* Keys of each bounded table; a full table refuses new keys (counted, and said in the
 * evidence) so a 10M-syscall trace cannot grow memory past a few tens of MiB. Tables are at
 * most 3/4 full, so these are 3/4 of a power of two. Threads leave their table when they exit
 * and fds when they are closed: those caps bound what is alive at once. */
#define RN_AP_MAX_THREADS 12288u   /* live threads' spin state */
#define RN_AP_MAX_FDS 12288u       /* open (process, fd) I/O state */
#define RN_AP_MAX_PATHS 49152u     /* per (process, path) access counts */
#define RN_AP_MAX_ERRORS 12288u    /* per (process, syscall, errno) failure counts */
#define RN_AP_MAP_SLOTS (1u << 16) /* direct-mapped (process, address) -> mapping cache */
/* Bytes of a path kept for evidence (the tail is kept when longer). */
#define RN_AP_PATH_KEEP 112

/* The confidence ramps (see the top of this header). Pure functions, exposed for tests. */
double rn_ap_ramp_log(double x, double lo, double hi);
double rn_ap_ramp_lin(double x, double lo, double hi);

/*
 * Run detector `pattern` (canonical name) on `t`. Fills *out (caller frees with
 * rn_detection_release). Returns 0 or negative errno (unknown pattern: -EINVAL).
 * Processes whose comm does not fully match `process_re` (a compiled pattern, or NULL for
 * all) are ignored.
 */
int rn_antipattern_detect(struct rn_trace *t, const char *pattern,
			  const struct rn_regex *process_re, struct rn_detection *out);
void rn_detection_release(struct rn_detection *d);
/* The one-line definition of detector `name` (any accepted spelling), or NULL. Static. */
const char *rn_antipattern_description(const char *name);
/*
 * Run every detector over `t` in one replay of the spool. `out` has one entry per name of
 * rn_antipattern_names (same order), each filled as rn_antipattern_detect() would (caller
 * releases each). Returns 0 or negative errno (spool read error; then nothing is filled).
 */
int rn_antipattern_detect_all(struct rn_trace *t, const struct rn_regex *process_re,
			      struct rn_detection *out);

/* ==== behaviour equivalence (equivalence*.c) ==== */

/*
 * What the equivalence files share (assertions only; the API is
 * equivalence.h): the behaviour model built from a trace's syscalls and processes.
 *   equivalence.c          normalisation, the model, facts from syscalls and processes
 *   equivalence_compare.c  finishing (roles, subjects, sorting) and comparing two behaviours
 *   equivalence_eval.c     behaviours read from recorded traces, the assertion's verdict
 */

/* What a category of facts is (RN_EQUIV_CATEGORIES). */
struct rn_equiv_cat_info {
	const char *name; /* as configs and messages spell it */
	bool is_set;      /* values compared as a set (duplicates collapse), else a multiset */
	bool strict;      /* a difference fails whatever min_confidence says */
};

/* A file a process has open or had open: its I/O sequence so far. */
struct rn_equiv_file {
	char *path;          /* normalised path, owned */
	struct rn_buf seq;   /* "open w,creat; write 12; ..." */
	char pend;           /* 'r' or 'w' while reads (writes) are being merged, else 0 */
	uint64_t pend_bytes; /* bytes of the merged reads (writes) */
	bool written;        /* a write fact is due */
	bool ignored;        /* no facts (system file, ignore_paths) */
};

struct rn_equiv_fact {
	enum rn_equiv_cat cat;
	int proc;      /* index of the process, or -1 once resolved */
	char *subject; /* set at finish (role [+ file]), owned */
	char *value;   /* owned */
};

struct rn_equiv_proc {
	pid_t pid, ppid;
	char *exe;            /* final image, owned, or NULL */
	int parent;           /* index, -1 for the root or unknown */
	bool exec_seen;       /* an exec happened (the root's first one is the command) */
	int execs;            /* successful execs */
	enum rn_proc_end end; /* how it ended */
	int exit_code, term_signal;
	int *fds;    /* file indices by fd (+1, 0 = not tracked) [nfds], owned; NULL
			       * until the first use (then inherited from the parent) */
	size_t nfds; /* entries of fds (grows to the highest fd used + 1, < MAX_FDS) */
	int top;     /* at finish: the ancestor the role starts from (root or orphan) */
	int depth;   /* at finish: steps from `top`, -1 unknown, -2 being walked */
	struct rn_equiv_file *files; /* files of this process, owned */
	size_t nfiles, files_cap;
	char *role; /* at finish, owned */
};

struct rn_equiv_behaviour {
	struct rn_equiv_opts o;
	struct rn_equiv_proc *procs;
	size_t nprocs, procs_cap;
	int *by_pid; /* open-addressing table of the newest process index + 1 per pid
			     * [by_pid_cap, a power of two], so a lookup is O(1) (a linear
			     * search made 128k processes take 37 s) */
	size_t by_pid_cap;
	bool too_many; /* more than RN_EQUIV_MAX_PROCESSES processes: the rest ignored */
	struct rn_equiv_fact *facts;
	size_t nfacts, facts_cap;
	bool finished;
	bool argv_missing; /* an exec was recorded without its argv (--format json) */
	char tmpdir[256];  /* $TMPDIR without a trailing slash, "" if unset or /tmp */
	/* syscall numbers looked up by name (-1 when the ABI has none) */
	int nr_open, nr_openat, nr_openat2, nr_creat, nr_read, nr_pread, nr_readv, nr_preadv,
		nr_preadv2, nr_write, nr_pwrite, nr_writev, nr_pwritev, nr_pwritev2, nr_close,
		nr_dup, nr_dup2, nr_dup3, nr_fcntl, nr_ftruncate, nr_truncate, nr_fsync,
		nr_fdatasync, nr_mkdir, nr_mkdirat, nr_unlink, nr_unlinkat, nr_rmdir, nr_rename,
		nr_renameat, nr_renameat2, nr_connect, nr_sendto, nr_execve, nr_execveat, nr_kill,
		nr_tkill, nr_tgkill;
};

/* The categories' names and kinds, indexed by enum rn_equiv_cat. */
extern const struct rn_equiv_cat_info rn_equiv_cats[];

/* Index of the newest process with `pid` in b->procs, or -1. */
int rn_equiv_proc_find(const struct rn_equiv_behaviour *b, pid_t pid);
/* Add a fact of `cat` about process index `proc`: `subject` (copied, or NULL: set at finish)
 * and `value` (copied, NULL as ""). Dies on out-of-memory. */
void rn_equiv_add_fact(struct rn_equiv_behaviour *b, enum rn_equiv_cat cat, int proc,
		       const char *subject, const char *value);
/* End the merged run of reads or writes of `f` in its I/O sequence. */
void rn_equiv_seq_flush(struct rn_equiv_file *f);

/*
 * The equivalence assertion (assertions/equivalence.c): the behaviour of the last measured
 * run (r->behaviour, else replayed from its spool) against the recorded trace a->golden (or
 * a->golden_dir/<target>.jsonl). PASS when equivalent, FAIL/WARN with the structured diff
 * as detail, NO DATA without a recorded trace or spool, ERROR when the trace is invalid.
 * Called by rn_assertion_evaluate(); `out` is begun by it.
 */
struct rn_assertion_spec; /* assertions/assertion.h */
struct rn_target_result;
struct rn_verdict_result;
void rn_equiv_evaluate(const struct rn_assertion_spec *a, struct rn_target_result *r,
		       struct rn_verdict_result *out);

/* Feed one syscall span (completed or unfinished) in completion order. */
void rn_equiv_behaviour_syscall(struct rn_equiv_behaviour *b, const struct rn_syscall_event *ev);

/* Feed a process: born ('f', with its parent), exec'd ('e', exe is the new image) or ended
 * ('x', with its end). `exe` may be NULL; strings are copied. */
void rn_equiv_behaviour_process(struct rn_equiv_behaviour *b, pid_t pid, pid_t ppid,
				const char *exe, char event, enum rn_proc_end end, int exit_code,
				int term_signal);

/* Facts of a behaviour: how many. The first call finishes it (roles resolved, facts sorted;
 * later events are ignored). */
size_t rn_equiv_behaviour_nfacts(struct rn_equiv_behaviour *b);

/* Name of a category ("process", ...). */
const char *rn_equiv_cat_name(enum rn_equiv_cat cat);

/* Normalise a path or argv string with the `normalize` flags into `out` (`cap` bytes,
 * always NUL-terminated). Exposed for tests. */
void rn_equiv_normalize(const char *in, unsigned normalize, char *out, size_t cap);

/* ==== the golden-trace comparison (golden*.c) ==== */

/*
 * What the files of the golden-trace comparison share (private to
 * assertions/golden*.c): the comparison steps, the state of one rn_golden_compare() call, and
 * the formatting and verdict helpers the judges use.
 *
 *   golden.c          configuration, check names, feasibility, host provenance, the step table
 *                     and rn_golden_compare() (the driver)
 *   golden_write.c    rn_golden_write(): renacer-golden/3 files
 *   golden_read.c     rn_golden_read(): renacer-golden/1, /2 and /3, renacer-json-v1 import
 *   golden_judge.c    the helpers below: number formatting, samples, verdict fields
 *   golden_counts.c   judging counts: syscalls, per-syscall counts, GPU counts, instructions
 *   golden_timing.c   judging timing: rank test, Hodges-Lehmann bound, noise, load guard;
 *                     metrics and the program's span durations by the one rule
 *   golden_memory.c   judging memory: median against a relative tolerance
 *
 * Strings written into `out` buffers are always NUL-terminated and cut at `cap`. Verdict
 * strings (message, detail, reason) are heap strings owned by the verdict. Out of memory dies
 * (rn_xmalloc). Nothing here keeps state between calls; nothing is thread-safe beyond that.
 */

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
/* One app span's durations (golden:span_time:app:<name>, golden_timing.c): the golden's
 * per-run durations `gold` (n >= 1) against the runs' `obs` (NULL when no run had the span: NO
 * DATA), judged by the timing rule of step `s` (a wall-time step of check SPAN_TIME), with its
 * messages, detection limit and details. With a CPU-time step of check SPAN_CPU
 * (golden:span_cpu:app:<name>) the series' CPU times are judged instead (gold->ncpu >= 1), by
 * the rule of cpu_time: the CPU speed probe, and gating beyond the drift limit under load. */
void rn_golden_judge_span_time(struct rn_golden_cmp *c, const struct rn_golden_step *s,
			       const struct rn_span_series *gold, const struct rn_span_series *obs,
			       struct rn_verdict_result *v);
/* Memory (golden_memory.c): the observed median against golden median * (1 + tolerance). */
void rn_golden_judge_memory(struct rn_golden_cmp *c, const struct rn_golden_step *s,
			    struct rn_verdict_result *v);

/* ---- stats.c (the types are stats.h's) ---- */

/*
 * Distribution-free lower confidence bound of the q-quantile of the population `x` was drawn
 * from: the k-th smallest sample x_(k) with the largest k such that P(Binomial(n, q) >= k) >=
 * 1 - alpha (at least k of n samples fall at or below the true quantile with that probability;
 * the order-statistic interval of Hollander, Wolfe & Chicken, section 3.6). `q` in [0, 1]:
 * 0.5 is the median, 1 the largest sample (a bound that is the sample maximum itself), 0 the
 * smallest. Writes k to `*rank` when not NULL (0: no sample is a bound at this alpha: too few
 * samples, e.g. a median with n < 5 at alpha 0.05) and returns -INFINITY then. Units of `x`.
 */
double rn_stats_quantile_lower(const double *x, size_t n, double q, double alpha, size_t *rank);

/* Standard normal survival function P(Z > z), accurate in the far tail (uses erfc). */
double rn_stats_normal_sf(double z);

/* Standard normal quantile: the z with P(Z <= z) = p, for 0 < p < 1 (+-INFINITY at 1 and 0).
 * Accurate to about 1e-12 (bisection on erfc). */
double rn_stats_normal_quantile(double p);

/*
 * One-sided Mann-Whitney U test of H1: `b` is stochastically greater than `a` (b tends to be
 * larger: a slowdown when a is the golden trace and b the new runs).
 *
 * Exact when na + nb <= RN_STATS_EXACT_MAX: the p-value is the share of the C(N, nb) ways of
 * labelling the pooled (mid-)ranks as `b` whose rank sum is at least the observed one, so ties
 * are handled exactly, not approximately. Otherwise the normal approximation
 * z = (U - na*nb/2 - 1/2) / sigma, sigma^2 = na*nb/12 * ((N + 1) - sum(t^3 - t) / (N (N - 1)))
 * over tie groups of size t, with p = P(Z >= z). This matches scipy.stats.mannwhitneyu(b, a,
 * alternative="greater", method="exact" / "asymptotic") on untied data.
 *
 * With an empty sample, or when every value is tied, p = 1 (no evidence). Never fails.
 */
void rn_stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
			   struct rn_mann_whitney *out);

/*
 * Hodges-Lehmann estimate of the location shift of `b` over `a` (how much larger b tends to
 * be), and its distribution-free one-sided confidence bounds at level 1 - alpha (0 < alpha <
 * 0.5). With the differences D_(1) <= ... <= D_(na*nb) sorted, the lower bound is D_(k) for the
 * largest k with P(U <= k - 1) <= alpha under the null distribution of U without ties
 * (Hollander, Wolfe & Chicken, section 4.3): P(D_(k) <= shift) >= 1 - alpha. The exact
 * distribution is used when na + nb <= RN_STATS_EXACT_MAX, else
 * k = floor(na*nb/2 - z_(1-alpha) * sqrt(na*nb*(N+1)/12) + 1/2).
 *
 * Either sample empty: shift = NaN and no bounds. Never fails.
 */
void rn_stats_hodges_lehmann(const double *a, size_t na, const double *b, size_t nb, double alpha,
			     struct rn_hodges_lehmann *out);

/* ---- result.c (the types are assertion.h's) ---- */

/* Runs whose spans were kept: nspan_runs + 1 when `last` is such a run, else 0. */
size_t rn_target_result_span_runs(const struct rn_target_result *r);

/* The trace of the i-th of them (oldest first; the last is r->last). */
struct rn_trace *rn_target_result_span_trace(struct rn_target_result *r, size_t i);

/* ---- changepoint.c (the types are changepoint.h's) ---- */

/*
 * Welch's two-sample t-test of b against a (b's mean minus a's) on means trimmed by `trim` at
 * each end (Yuen 1974: trimmed means, winsorized variances, Welch-Satterthwaite degrees of
 * freedom over the h untrimmed points; trim 0 is Welch's test): *t and the two-sided p-value
 * from Student's t distribution. Two constant samples give p = 0 when their values differ, 1
 * when equal. Needs na, nb >= 2 and trim in [0, 0.5) (else p = 1, t = 0).
 */
double rn_welch_p(const double *a, size_t na, const double *b, size_t nb, double trim, double *t);

/* ---- golden.c (the types are golden.h's) ---- */

/* The rule of `syscall` (a name; NULL allowed), or NULL: judged with the configured
 * tolerance and floor alone. */
const struct rn_count_rule *rn_count_rule_of(const char *syscall);

#endif
