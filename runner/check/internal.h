/*
 * internal.h - private to the check engine (runner/check): the run stage's entry points that
 * check.c's plan calls, then, one section per module, the functions of conditions.c,
 * preflight.c, profile_check.c and reporter.c that only this folder calls (their types stay
 * in the module's header, which other folders include).
 */
#ifndef RN_CHECK_INTERNAL_H
#define RN_CHECK_INTERNAL_H

#include <stdint.h>

#include "baseline.h"
#include "calibrate.h"
#include "calibrate_write.h"
#include "check.h"
#include "conditions.h"
#include "drivers_instructions.h"
#include "harness.h"
#include "preflight.h"
#include "profile_check.h"
#include "ratchet.h"
#include "reporter.h"

/* Run target `tc` in both trees side by side (`base_tc` is its base side, `bl` the base tree)
 * into `head` and `base`, and append its baseline:* verdicts to `tv`. `counted`: the head's
 * result of an earlier comparison in this check whose instruction count stands for this
 * head's (the ratchet after the pull-request comparison: Valgrind once per side), or NULL.
 * Returns 0 or -ECANCELED. */
int rn_check_run_baseline(const struct rn_config *cfg, const struct rn_target_cfg *tc,
			  const struct rn_target_cfg *base_tc, const struct rn_check_opts *o,
			  const struct rn_baseline *bl, size_t index, size_t count,
			  const struct rn_otlp_context *otlp_ctx,
			  const struct rn_target_result *counted, struct rn_target_result *head,
			  struct rn_target_result *base, struct rn_target_report *tv);

/* Calibrate one target (calibrate.h): A/A pairs, then a planted slowdown; its calibrate:*
 * verdicts into `tv`. Returns 0 or -ECANCELED. */
int rn_check_run_calibrate(const struct rn_config *cfg, const struct rn_target_cfg *tc,
			   const struct rn_check_opts *o, size_t index, size_t count,
			   const struct rn_otlp_context *otlp_ctx, struct rn_target_result *r,
			   struct rn_target_report *tv);

/* ---- conditions.c (the types are conditions.h's) ---- */

/*
 * Cumulative time, us, in which some runnable task of the machine waited for a CPU: the
 * "some ... total=" field of /proc/pressure/cpu (Linux PSI, Documentation/accounting/psi.rst).
 * 0, or a negative errno when the kernel has no PSI (-ENOENT, -EOPNOTSUPP) or the file is not
 * in that format (-EINVAL).
 */
int rn_cpu_pressure_total_us(uint64_t *out);

/* The same for I/O: cumulative time, us, in which some task of the machine waited on I/O
 * ("some ... total=" of /proc/pressure/io, Linux PSI); 0 or a negative errno as above. */
int rn_io_pressure_total_us(uint64_t *out);

void rn_pressure_probe_begin(struct rn_pressure_probe *p);
void rn_pressure_probe_end(const struct rn_pressure_probe *p, struct rn_target_result *r);

/*
 * The speed probe: a fixed piece of work (integer arithmetic and scattered writes over 64 KiB,
 * about 2 ms on a current x86_64 core) timed in renacer's own thread after a stretch of timing
 * runs (never between the sides of a same-job baseline, whose pairs must stay alike), so the
 * machine's speed at that time (load, frequency, SMT contention, another host) is measured
 * beside the target's own time. Appends the thread CPU time and the wall time of the work,
 * ns, to r->probe_cpu_ns / r->probe_wall_ns. Never fails.
 */
void rn_speed_probe(struct rn_target_result *r);

/*
 * After `golden update` measured `r`: warn, for each timing metric judged by `cfg`, when the
 * samples' robust spread (rn_golden_spread) exceeds the metric's tolerance, naming the spread it
 * saw (min, median, max, CPU pressure) and what to do. Also warns when `r` has fewer runs than
 * the rank test needs against `min_runs_for_timing` new runs. Returns the number of warnings.
 */
int rn_golden_noise_report(const struct rn_target_result *r, const struct rn_regression_cfg *cfg);

/*
 * Warn when golden trace `g` (at `golden_file`, as reported) was recorded for another target
 * than `target` or with another argv than `argv_rel` (as rn_golden_write would record it now,
 * NULL-terminated), naming both. Baselines without a recorded target or argv are not checked.
 * Returns true when it warned.
 */
bool rn_golden_identity_warn(const struct rn_golden *g, const char *golden_file, const char *target,
			     const char *const *argv_rel);

/* ---- preflight.c (the types are preflight.h's) ---- */

/*
 * Make sure output file `path` (what: "JUnit XML", "timeline", ...) can be written: its
 * directory is created when missing (as mkdir -p, mode 0777 less the umask) and must be a
 * writable directory, and `path` itself must not be a directory. Prints the reason with
 * rn_error and returns a negative errno on failure, else 0. NULL `path`: 0.
 */
int rn_preflight_output(const char *path, const char *what);

/*
 * Warn (rn_warn, one line each, "FILE:LINE:1: ...") about every enabled [[assertion]] whose
 * trace_name_pattern matches none of the targets `cfg` declares: it would judge nothing, and
 * a check would show no row for it. Configs without targets (the target comes from the
 * command line) are not checked. Returns the number of such assertions.
 */
int rn_preflight_assertions(const struct rn_config *cfg);

/* ---- profile_check.c (the types are profile_check.h's) ---- */

/*
 * Explain the first failing timing row of `tv` (target `head`; `base` is its base side under
 * --baseline, else NULL) as above, appending to that row's detail. Nothing happens when no
 * timing row failed or explaining is off. Failures (a profiled run that failed, a file that
 * cannot be written) are stated in the detail and warned about; the verdicts are unchanged.
 * Progress goes to stderr unless `quiet`.
 */
void rn_profile_check_explain(const struct rn_config *cfg, const struct rn_target_cfg *head,
			      const struct rn_target_cfg *base, struct rn_target_report *tv,
			      bool quiet);

/*
 * The items of growth from the base profile to the head profile, without profiled runs to
 * hold them against: files[] are folded-stack files (base, base calls, head, head calls:
 * "stack NS" and "stack CALLS" lines); every item that grew is "not ranked" (it held in none
 * of 0 runs) and listed in rank order in `all` (growth before shrinkage, CPU samples and added
 * calls before syscall time over the same calls, larger first; with `cpu_row`, the calls that
 * wait, such as futex and poll, and the children's time on the critical path after the CPU
 * samples). `cp`, or NULL: the base's and the head's children on the critical path, "COMM NS"
 * lines (ns summed over a child's segments). Returns the items that grew, or -1 when a file
 * cannot be read (`out` says why).
 */
long rn_profile_rank_files(const char *const files[4], const char *const cp[2], bool cpu_row,
			   struct rn_buf *out, struct rn_buf *all);

/* ---- reporter.c (the types are reporter.h's) ---- */

/*
 * argv as a golden trace records it: arguments inside the config's directory made relative
 * to it, a harness's results folder masked (rn_report_mask_bench_dir), and secrets redacted
 * ([report] redact), since golden traces are committed. Returns a NULL-terminated copy; free
 * with rn_otlp_argv_free.
 */
char **rn_report_golden_argv(const struct rn_config *cfg, char *const *argv);
/* Mask in argv word `word`, in place, the random part of a harness's results folder
 * ("/tmp/renacer-bench-a1B2c3/0.json" -> "/tmp/renacer-bench-XXXXXX/0.json", runner/check/
 * harness.c): it is new in every check, and no part of the command a golden trace identifies. */
void rn_report_mask_bench_dir(char *word);

/* ---- baseline.c (the types are baseline.h's) ---- */

/*
 * The primary time metric of a target's pairs, the one whose decision stops the adaptive
 * repeats: RN_METRIC_WALL when the base's median CPU time is under RN_BASELINE_CPU_SHARE of its
 * wall time (a tree that mostly waits) or either is missing, else whichever of cpu_time and
 * wall_time has the smaller relative noise of the paired differences so far; RN_METRIC_CPU_TIME
 * when the head's wall time is not judged (a harness that reports CPU time alone). Both
 * results are borrowed and only read.
 */
enum rn_metric rn_baseline_primary(const struct rn_target_result *head,
				   const struct rn_target_result *base);

/*
 * The noise of time metric `m` over the timing pairs of `head` and `base` (paired by index):
 * *median = the base median, *sigma = 1.4826 MAD of the differences head - base, both in the
 * metric's unit (ns). Returns the number of pairs (0: both outputs 0).
 */
size_t rn_baseline_pair_noise(const struct rn_target_result *head,
			      const struct rn_target_result *base, enum rn_metric m, double *median,
			      double *sigma);

/*
 * Set up `b` for base tree `dir` and the config directory `config_dir` (absolute). Fails with
 * an error naming the base side when `dir` does not exist, is not a directory, or is the head
 * tree itself. Returns 0 or -errno (nothing to release then).
 */
int rn_baseline_init(struct rn_baseline *b, const char *dir, const char *config_dir);

/* Free what `b` owns. */
void rn_baseline_release(struct rn_baseline *b);

/*
 * The base side of target `head`: a copy whose name is "<name> (base)" (so progress lines and
 * errors name the side) and whose argv elements, cwd and environment values under the head's
 * root are re-rooted under b->dir. Fills `base` (released with rn_baseline_target_release).
 */
void rn_baseline_target(const struct rn_baseline *b, const struct rn_target_cfg *head,
			struct rn_target_cfg *base);

/*
 * `path` (absolute) with the head's root re-rooted under b->dir, as rn_baseline_target
 * re-roots argv elements; a copy when it is not under the head's root. Caller frees.
 */
char *rn_baseline_reroot(const struct rn_baseline *b, const char *path);

/* Free what rn_baseline_target() allocated in `base`. */
void rn_baseline_target_release(struct rn_target_cfg *base);

/*
 * Is the base side built? Every argv element that names an existing file of the head (an
 * absolute path, or a relative one with a '/' resolved against cwd) must exist in the base,
 * as must the base cwd. Prints an error naming the base side and the missing path and returns
 * -ENOENT; else 0.
 */
int rn_baseline_check_built(const struct rn_baseline *b, const struct rn_target_cfg *head,
			    const struct rn_target_cfg *base);

/*
 * The look schedule of `plan` (sequential.h): first look max(pairs, the fewest pairs whose
 * exact test can decide at its alpha share), last look max_pairs, total alpha reg->alpha.
 */
struct rn_seq_design rn_baseline_design(const struct rn_baseline_plan *plan,
					const struct rn_regression_cfg *reg);

/*
 * Measure, judge and (with b->confirm) confirm one target: runs `plan` through `fn`, then
 * appends the `baseline:*` verdicts for target `name` to `tv`. A side that failed gives one
 * ERROR row naming it. Returns 0 or -ECANCELED (interrupted; no verdicts then).
 */
int rn_baseline_run_target(const struct rn_baseline *b, const struct rn_baseline_plan *plan,
			   const struct rn_regression_cfg *reg, const char *name,
			   rn_baseline_run_fn fn, void *ctx, struct rn_target_result *head,
			   struct rn_target_result *base, struct rn_target_report *tv);

/*
 * Judge head against base (see the top of baseline.h) and append the verdicts to `tv`. Time
 * metrics use the timing pairs from index `first_pair` on (the runs of both results are
 * paired by index), at the look of `seq` their number makes; `budget_spent` says no further
 * look was possible (an inconclusive row says so). Both sides must have run cleanly.
 */
void rn_baseline_judge(const struct rn_baseline *b, const struct rn_regression_cfg *reg,
		       const struct rn_seq_design *seq, bool budget_spent, const char *name,
		       const struct rn_target_result *head, const struct rn_target_result *base,
		       size_t first_pair, struct rn_target_report *tv);

/* Print the "head vs base" table (medians, difference, interval) of every baseline time row
 * of the verdicts oc->reports[0..ntargets) to stderr; reads nothing else of `oc`. */
void rn_baseline_report_console(bool color, const struct rn_outcome *oc);

/*
 * The deterministic second opinion of instructions = true (runner/check/baseline_instr.c):
 * after rn_baseline_judge, with both sides' Valgrind counts in their results
 * (RN_METRIC_INSTRUCTIONS, one count a side), append a baseline:instructions row to `tv`, FAIL
 * when head's count exceeds base's by more than b->tolerance, else PASS, and say the count's
 * change on every inconclusive time row of this target (rows from index `first_row`). Nothing
 * when a side has no count.
 */
void rn_baseline_judge_instructions(const struct rn_baseline *b, const char *name,
				    const struct rn_target_result *head,
				    const struct rn_target_result *base, size_t first_row,
				    struct rn_target_report *tv);

/* ---- ratchet.c (the types are ratchet.h's) ---- */

/*
 * Set `r` up for `cfg`'s [ratchet] and the `nsel` selected targets `sel` (indexes into
 * cfg->targets): the reference tree (checked out and built for a git ref) and each target's
 * reference side, which must be built there. Does nothing (returns 0, `r` zeroed) without a
 * [ratchet] table, without --baseline or with --no-ratchet. Returns 0 or an exit code (RN_EXIT_CONFIG: no such
 * directory or ref; RN_EXIT_TARGET: its build failed or a target is not built there), after an
 * error naming the reference. rn_ratchet_release(r) either way.
 */
int rn_ratchet_setup(struct rn_ratchet *r, const struct rn_config *cfg,
		     const struct rn_check_opts *o, const size_t *sel, size_t nsel);

/*
 * Run selected target `idx` (its config `tc`) against the reference and append its
 * `ratchet:<metric>` rows to `tv`. Its runs are its own (the head's result of the check,
 * `head`, is left as it is); a target with `instructions = true` gets `ratchet:instructions`,
 * the reference's count against the head's, judged with the budget as its limit, the head's
 * count taken from `head` (counted once in the job) when it has one. Returns 0 or -ECANCELED
 * (interrupted).
 */
int rn_ratchet_run_target(const struct rn_ratchet *r, const struct rn_config *cfg,
			  const struct rn_target_cfg *tc, size_t idx, size_t count,
			  const struct rn_check_opts *o, const struct rn_otlp_context *otlp_ctx,
			  const struct rn_target_result *head, struct rn_target_report *tv);

/* Free what `r` holds and remove a checkout it made. No-op on a zeroed one. */
void rn_ratchet_release(struct rn_ratchet *r);

/* ---- harness.c (the types are harness.h's) ---- */

/*
 * Expand every harness [[target]] and every [[suite]] of `cfg` in place: each is replaced by
 * its targets (at its position, in the harness's order), and every assertion that names it
 * in `targets` names them instead. The names come from `benchmarks`, else from the harness's
 * own list (a run of the harness's list command in the table's cwd), kept where `pattern`
 * fully matches. With `build`, a table's `build` command runs first (check --build): the
 * list needs the program. Returns 0, or an exit code (RN_EXIT_TARGET: a list command or a
 * build failed; RN_EXIT_CONFIG: two names make one target name, or nothing is left) after
 * printing why.
 */
int rn_harness_expand(struct rn_config *cfg, bool build, bool quiet);

/* Before a run of expanded benchmark `tc`: its previous result file is removed, so a run that
 * writes none is not read as its predecessor's. Nothing for other targets. */
void rn_harness_run_begin(const struct rn_target_cfg *tc);

/*
 * One run for the benchmarks of a table. A timing run of a benchmark runs its harness for
 * every benchmark of its table whose target is not done (rn_harness_run_argv): one harness
 * run a pair or a look, whatever the number of benchmarks. It reads its own times and leaves
 * each other's in the table's folder, keyed by side (head or base) and run index; the other
 * benchmark's run of that index takes them (rn_harness_take) instead of running the harness.
 * Once a benchmark's target is judged it is done: the looks that follow, of benchmarks still
 * undecided, run the harness filtered to those. The counting runs stay one benchmark's each
 * (its own syscalls and memory).
 */

/* Before the runs: the benchmarks of the selected targets `sel[nsel]` (indices into
 * cfg->targets) share their timing runs when `share`; the others are done. */
void rn_harness_select(struct rn_config *cfg, const size_t *sel, size_t nsel, bool share);

/* Benchmark `tc`'s runs are over: no later run includes it. Nothing for other targets. */
void rn_harness_done(const struct rn_target_cfg *tc);

/* The argv of a timing run of `tc` that runs every benchmark of its table not done (owned,
 * NULL-terminated), or NULL when it runs its one benchmark (tc->argv). */
char **rn_harness_run_argv(const struct rn_target_cfg *tc);

/*
 * After timing run `k` (0-based, of its side) of `tc` that ran with rn_harness_run_argv's argv
 * and was kept as `run` (its times tc's): the times of each other benchmark it ran, read from
 * the result file (removed then) or `out` (go test), are left for that benchmark's run `k`,
 * with the run's other metrics (processes, peak RSS: the shared run's).
 */
void rn_harness_leave(const struct rn_target_cfg *tc, const char *out, size_t k,
		      const struct rn_metrics *run);

/* Whether a shared run left `tc` its timing run `k` (0-based, of its side): then `run` holds
 * it (times per iteration, as rn_target_result_set_bench sets them) and the harness need not
 * run. */
bool rn_harness_take(const struct rn_target_cfg *tc, size_t k, struct rn_metrics *run);

/*
 * After a timing run of expanded benchmark `tc`: its per-iteration times from the harness's
 * result file (or `out`, the run's captured stdout, for go test), ns. *cpu_ns is 0 where the
 * harness reports no CPU time; for a go test binary whose argv pins the iteration count
 * (rn_harness_go_cpu) and a run of this one benchmark, it is `proc_cpu_ns` (the run's process
 * CPU time, ns) over the iterations the run did. `keep`: the result file stays for
 * rn_harness_leave (the run was shared). Returns 0, or -EINVAL / -errno with `why` (cap
 * bytes) saying what was missing.
 */
int rn_harness_read(const struct rn_target_cfg *tc, const char *out, bool keep, double proc_cpu_ns,
		    double *real_ns, double *cpu_ns, char *why, size_t cap);

/*
 * Whether `tc` (a go-test-bench table or one of its benchmarks) runs a compiled test binary
 * (`go test -c`; no word of its argv is `test`, as in `go test`) with a pinned iteration
 * count (`-test.benchtime Nx`): then each run covers one benchmark (its table's runs are not
 * shared) and the run's process CPU time per iteration is its cpu_time.
 */
bool rn_harness_go_cpu(const struct rn_target_cfg *tc);

/* ---- drivers_instructions.c (the types are drivers_instructions.h's) ---- */

/*
 * Resolve every target's `driver` (or `cli_driver`, the --driver of the command line, when
 * not NULL) into its collectors: RN_COLLECT_PTRACE or RN_COLLECT_EBPF.
 *   "ptrace": unchanged.
 *   "ebpf":   eBPF, unless an enabled assertion that applies needs what only ptrace gives
 *             (anti_pattern: per-call spans; memory_usage "allocations": mmap/brk sizes) or
 *             `wants_spans` (a timeline or OTLP span export): then the target runs under
 *             ptrace and a note says why. Where eBPF cannot load, the later collector check
 *             fails with exit 5.
 *   "auto":   eBPF when it can load here and nothing needs ptrace, else ptrace with a note.
 * Also checks that valgrind is present for every target that counts instructions.
 * Returns 0, RN_EXIT_USAGE (bad --driver) or RN_EXIT_COLLECTOR (valgrind missing: the install
 * hint is printed).
 */
int rn_check_drivers(struct rn_config *cfg, const char *cli_driver, bool wants_spans);

/* Does target `tc` count instructions (its `instructions` key, else an enabled
 * instructions assertion that applies)? */
bool rn_check_wants_instructions(const struct rn_config *cfg, const struct rn_target_cfg *tc);

/*
 * Run `tc` once more under Valgrind (collectors/cachegrind/cachegrind.h) and put the total
 * into RN_METRIC_INSTRUCTIONS of every measured run, timing and counting runs alike (the
 * count is deterministic: one run is its value) and the per-process table into
 * r->instructions_detail. A failed Valgrind run marks the target ERROR (r->status,
 * r->error). Returns 0, or -ECANCELED when interrupted.
 */
int rn_check_instructions(const struct rn_target_cfg *tc, struct rn_target_result *r, bool quiet);

/*
 * The count rn_check_instructions put into `from` (the same program run earlier in this
 * check: the head side of the pull-request comparison) put into every measured run of `r`,
 * with its per-process table, instead of another Valgrind run. Returns true when `from` had a
 * count, false (r untouched) when not.
 */
bool rn_check_instructions_reuse(const struct rn_target_result *from, struct rn_target_result *r);

/* ---- calibrate.c (the types are calibrate.h's) ---- */

/* Calibrate one target through `sides` (calibrate.h): res[0..1] the A/A head and base results,
 * res[2..3] the planted head and its base, all initialized by the caller; appends the rows
 * calibrate:noise and calibrate:plant to `tv`. Returns 0 or -ECANCELED (interrupted). */
int rn_calibrate_target(const struct rn_baseline *b, const struct rn_baseline_plan *plan,
			const struct rn_regression_cfg *reg, const struct rn_calibrate_opts *o,
			const char *name, const struct rn_calibrate_sides *sides,
			struct rn_target_result *res[4], struct rn_target_report *tv);

/*
 * The shell busy loop that plants CPU work: argv prefix
 *   /bin/sh -c 'i=0; while [ $i -lt N ]; do i=$((i+1)); done; exec "$0" "$@"'
 * The cost of one iteration on this machine, CPU ns, measured by running 200,000 of them
 * once (0 when /bin/sh could not be run).
 */
double rn_calibrate_loop_ns(void);

/* The -c script of the loop for `iterations` (static buffer, overwritten by the next call). */
const char *rn_calibrate_loop_script(unsigned long iterations);

/* ---- calibrate_write.c (the types are calibrate_write.h's) ---- */

/*
 * The tolerance of the A/A pairs of `head` and `base` (paired by index) under `seq` (top of
 * calibrate_write.h), as a row calibrate:tolerance appended to `tv` (PASS; NO DATA without
 * time samples): observed = the tolerance in percent, the message names it and each
 * metric's share.
 */
void rn_calibrate_tolerance_row(const struct rn_target_result *head,
				const struct rn_target_result *base,
				const struct rn_seq_design *seq, const char *name,
				struct rn_target_report *tv);

/*
 * Write the calibrate:tolerance row of each of the `n` reports into `cfg`'s file as its
 * target's baseline_tolerance (top of calibrate_write.h). Targets expanded from a harness or
 * [[suite]] have no table of their own and are left out with a note. 0, or a negative errno
 * after rn_error() naming the file.
 */
int rn_calibrate_write_config(const struct rn_config *cfg, const struct rn_target_report *tvs,
			      size_t n, bool quiet);

#endif
