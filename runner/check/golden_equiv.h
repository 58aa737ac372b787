/*
 * golden_equiv.h - `golden update` records the behaviour trace of equivalence assertions.
 *
 * An equivalence assertion compares a run with a recorded trace: its `golden` file, or
 * [semantic_equivalence] baseline_dir/<target>.jsonl. `renacer golden update` records that
 * file as `renacer trace -f --format jsonl -o FILE -- CMD` would, with the target's cwd and
 * environment, so every golden of a target comes from one command.
 *
 * The trace command belongs to the command line (runner/cli), a layer above this engine: main
 * hands it down with rn_golden_equiv_set_tracer before any command runs.
 */
#ifndef RN_GOLDEN_EQUIV_H
#define RN_GOLDEN_EQUIV_H

#include <stdbool.h>

#include "config.h"

/*
 * A command that records a trace as `renacer trace` does: argv[0] is "trace", argv
 * NULL-terminated and borrowed. Returns the traced target's exit status, or an enum rn_exit
 * code when it could not run it.
 */
typedef int (*rn_trace_cmd_fn)(int argc, char **argv);

/* Set the command rn_golden_record_behaviour records with (the cli's rn_cmd_trace).
 * Process-wide; until it is set, recording a behaviour trace is an internal error. */
void rn_golden_equiv_set_tracer(rn_trace_cmd_fn trace);

/*
 * Record the behaviour trace of every enabled equivalence assertion of `cfg` that applies to
 * target `tc` (one run per distinct file), each written atomically (a temporary beside it,
 * renamed when the trace is complete; missing directories are created). Prints "wrote FILE"
 * unless `quiet`. Returns 0 (also when no assertion applies), or an enum rn_exit code
 * (RN_EXIT_TARGET when the run did not end as the target's expect_exit says,
 * RN_EXIT_OUTPUT when the file cannot be written) after printing why; earlier files stay.
 */
int rn_golden_record_behaviour(const struct rn_config *cfg, const struct rn_target_cfg *tc,
			       bool quiet);

#endif
