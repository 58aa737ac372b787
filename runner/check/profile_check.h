/*
 * profile_check.h - where a failed timing row's time went: `check` profiles both sides of a
 * failing timing comparison and ranks what grew ([profile] in renacer.toml, docs/explain.md).
 *
 * A timing row is baseline:{wall_time,cpu_time,critical_path} or golden:{the same}. When the
 * first such row of a target FAILs and explaining is on ([profile] on_failure, default true;
 * a [[target]]'s `profile` overrides it), after the verdicts (when no timing row failed, the
 * first golden timing row that is WARN with its estimate beyond the limit, v->observed >
 * v->budget, is explained the same way under "why it may be slower (the row did not fail)"
 * instead of "where the time went"):
 *
 *   --baseline   the base and the head run [profile] runs more times each (default 3, a base
 *                run before each head run) under profiling: on-CPU samples
 *                (perf_event_open, collectors/profile.h) at [profile] frequency_hz and, with
 *                [profile] syscalls, syscall time and calls by call stack (syscall stops);
 *   golden       the head runs [profile] runs times under profiling and is compared with the
 *                golden side's profile (the mean of as many runs), which `golden update`
 *                recorded beside the golden trace
 *                (<golden dir>/<target>.folded, <target>.calls.folded and
 *                <target>.oncpu.folded) when renacer.toml has a [profile] table; without it
 *                the row says so in one line.
 *
 * One side's profile (the mean per run of its runs) is one folded-stacks file in nanoseconds: on-CPU samples scaled by the
 * sampling period (1e9 / frequency_hz ns of CPU time each; samples in the kernel are left out
 * when syscall stacks are on, as that time is in the syscall lines) and syscall time by stack,
 * each syscall a leaf frame under its caller. A second file counts the calls by stack. A third
 * is the time on CPU: the same samples, and each syscall's calling thread's CPU time in the
 * call (rn_syscall_event.cpu_ns) instead of its duration; a cpu_time row is ranked from it
 * (a call that waited is no CPU time), where the base side has one. Frames
 * carry DWARF file:line where the program has debug information ("hot_parse (src/parse.c:88)").
 *
 * The ranked list (largest growth first, in ns) holds three kinds of item:
 *   "+150.2 ms on CPU in hot_parse (src/parse.c:88), from main"   a function's own CPU time,
 *        summed over its lines (the line named is the one that grew most);
 *   "+2,000 openat from load_cfg (src/cfg.c:31), +41.2 ms"         a syscall by call stack: the
 *        change in calls and in time (measured at ptrace stops: the time includes the stops'
 *        cost, the counts are exact; "on CPU in the calls" explaining a cpu_time row);
 *   "child git +30.0 ms on the critical path"                      (baseline only) the time a
 *        child process (by name) spends on the critical path of the profiled run.
 *
 * Ranking rule: each pair of runs (head run i against base run i, or against the golden
 * profile) is compared on its own; an item is ranked only when it grew in most pairs and in
 * at least 2 (one run's noise, a single sample, is not). The others of at least 0.5% of the
 * growth follow unnumbered as "not ranked: seen in K of N runs: ...".
 *
 * Files, each written through a temporary and rename ([profile] dir, default
 * .renacer/explain beside renacer.toml): <target>.base.folded, <target>.head.folded (and
 * .calls.folded and .oncpu.folded of each), <target>.diff.svg (differential flame graph of head against base,
 * runner/report/flamegraph.h) and <target>.explain.txt (the ranked list: every item of at least 0.5% of the growth,
 * each with its call path). The first [profile]
 * top items, the flame graph's path and the files' folder are appended to the failing row's
 * detail, which the console, JUnit, GitHub and results files carry.
 */
#ifndef RN_PROFILE_CHECK_H
#define RN_PROFILE_CHECK_H

#include <jansson.h>
#include <stdbool.h>

#include "config.h"
#include "verdict.h"

/*
 * `golden update`: with [profile] golden (default when renacer.toml has a [profile] table),
 * profile [profile] runs runs of `tc` and write (their mean) <golden dir>/<target>.folded,
 * <target>.calls.folded and <target>.oncpu.folded.
 * Returns 0, or RN_EXIT_TARGET / RN_EXIT_OUTPUT after an error message.
 */
int rn_profile_check_record_golden(const struct rn_config *cfg, const struct rn_target_cfg *tc,
				   bool quiet);

/*
 * `renacer report --html PAGE`: the explanations of the page model (its "explain" and
 * "run_explain", read from the history store with their run, runner/history/history.h) name
 * the flame graph by its absolute path: make each relative to PAGE's folder (as the page links
 * it), "" when that folder cannot be resolved.
 */
void rn_profile_check_page(json_t *model, const char *page);

#endif
