/*
 * drivers_instructions.h - the parts of `renacer check` and `renacer golden update` that choose
 * each target's syscall driver (ptrace or eBPF) and count its instructions under Valgrind.
 */
#ifndef RN_DRIVERS_INSTRUCTIONS_H
#define RN_DRIVERS_INSTRUCTIONS_H

#include <stdbool.h>

#include "assertion.h"
#include "config.h"

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
 * into RN_METRIC_INSTRUCTIONS of every measured run, timing and counting runs alike (the count is deterministic: one run is
 * its value) and the per-process table into r->instructions_detail. A failed Valgrind run
 * marks the target ERROR (r->status, r->error). Returns 0, or -ECANCELED when interrupted.
 */
int rn_check_instructions(const struct rn_target_cfg *tc, struct rn_target_result *r, bool quiet);

/*
 * The count rn_check_instructions put into `from` (the same program run earlier in this
 * check: the head side of the pull-request comparison) put into every measured run of `r`,
 * with its per-process table, instead of another Valgrind run. Returns true when `from` had a
 * count, false (r untouched) when not.
 */
bool rn_check_instructions_reuse(const struct rn_target_result *from, struct rn_target_result *r);

#endif
