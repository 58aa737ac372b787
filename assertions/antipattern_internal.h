/*
 * antipattern_internal.h - the detector table, the thresholds and the entry points (one
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
#ifndef RN_ANTIPATTERN_INTERNAL_H
#define RN_ANTIPATTERN_INTERNAL_H

#include "assertion.h"

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

#endif
