/*
 * outcome.h - the judgement of one check, as every report writer reads it: the console table,
 * JUnit XML, the GitHub annotations, summary and Markdown report, OTLP, the timeline,
 * github-action-benchmark JSON and the results file all take one `const struct rn_outcome *`
 * (git's wt-status.c: one struct of the state, read by each output format), so no writer keeps
 * a copy of it in a struct of its own.
 *
 *     struct rn_outcome oc = { .targets = results, .reports = verdicts, .ntargets = n, ... };
 *     rn_junit_write(path, &oc);
 *     rn_report_console(color, wide, verbose, &oc);
 *
 * `renacer check` (runner/check/check.c) and `renacer merge` (runner/cli/cmd_merge.c) fill
 * it; a results file (results.h) is one written down. It sits in the report layer because it
 * names only what lies below: the config (runner/input), the shard, the results and verdicts
 * of assertions/.
 *
 * Sides: with --baseline each head target i has a base side bases[i]; the writers that show
 * both (the timeline, OTLP) take the head results, then the base sides, as one sequence of
 * sides indexed like argv (the walk over sides and verdicts that the writers share is in
 * runner/report/internal.h, outcome.c).
 */
#ifndef RN_OUTCOME_H
#define RN_OUTCOME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "assertion.h"
#include "shard.h"
#include "verdict.h"

struct rn_config;

/*
 * The judgement of a check: its targets, their verdicts and the exit code so far. All
 * pointers are borrowed from the command that fills it; nothing here is freed by a writer
 * (a results file read back owns them: rn_results_release).
 */
struct rn_outcome {
	const struct rn_config *cfg;      /* the config checked, or NULL (merge without one) */
	const char *config_path;          /* renacer.toml named in OTLP and results, or NULL */
	struct rn_target_result *targets; /* [ntargets] head results, suite order */
	struct rn_target_report *reports; /* [ntargets] verdicts; reports[i].result is
					       * &targets[i] */
	size_t ntargets;                  /* selected (check) or suite (merge) targets */
	struct rn_target_result *bases;   /* --baseline: [ntargets] base sides, or NULL */
	const char *const *const *argv;   /* [ntargets] commands, then [ntargets] base
					       * commands when bases; NULL-terminated each; or
					       * NULL (no command lines known) */
	const char *const *suite;         /* results file: every target name of the suite,
					       * [nsuite] */
	size_t nsuite;                    /* entries in suite */
	struct rn_shard shard;            /* results file: K/N (count 0: not sharded) */
	uint64_t start_unix_ns;           /* start of the check, Unix ns (0: the earliest
					       * target start) */
	uint64_t end_unix_ns;             /* end of the check, Unix ns; 0 = the time each
					       * writer writes */
	int worst_other;                  /* exit code not derived from verdicts (an unusable
					       * golden trace: RN_EXIT_CONFIG), or 0 */
	int interrupted;                  /* signal that interrupted the check, or 0 */
	bool not_judged_fails;            /* [regression] not_judged = "fail" */
	int exit_code;                    /* enum rn_exit: the verdicts' code on entry,
					       * raised by failing reporters */
};

#endif
