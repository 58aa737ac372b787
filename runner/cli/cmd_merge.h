/*
 * cmd_merge.h - `renacer merge RESULTS...`: the reports of a suite checked as the N shards
 * of a CI matrix (`renacer check --shard K/N --results FILE` in each job), written once from
 * the shards' results files (runner/report/results.h, runner/report/RESULTS.md) as `renacer
 * check` would have written them for the whole suite: the console table, the verdict and exit
 * code, JUnit XML (one testsuite per target, in config order), the GitHub Actions annotations
 * and job summary, the OTLP trace and github-action-benchmark JSON. The reporter table of
 * runner/check/reporter.h does the writing, as for check; merge only rebuilds its input
 * (struct rn_outcome, runner/report/outcome.h).
 *
 * Every shard 1..N must be given exactly once, all from the same suite, and every target of
 * the suite must be in exactly one of them; otherwise merge names the missing or duplicated
 * shard or target and exits RN_EXIT_USAGE without writing a report.
 */
#ifndef RN_CMD_MERGE_H
#define RN_CMD_MERGE_H

#include "cli.h"
#include "results.h"

/* `renacer merge [OPTIONS] RESULTS...`. Returns an enum rn_exit value: the exit code `check`
 * would have given for the whole suite, or RN_EXIT_USAGE for a bad set of files. */
int rn_cmd_merge(int argc, char **argv);

/* Option table (for --help and the man page). */
extern const struct rn_command rn_cmd_merge_def;

/*
 * The merged suite: every shard's targets moved into suite order, as the outcome the reports
 * read (runner/report/outcome.h). All owned; release with rn_merged_release.
 */
struct rn_merged {
	struct rn_results *shards; /* the files read [nshards], emptied of their targets */
	size_t nshards;            /* files given */
	struct rn_outcome oc;      /* the suite: targets, reports and argv [ntargets] in suite
				    * order (owned), suite and config_path of the first file
				    * (borrowed from shards[0]), the earliest start and latest
				    * end of the shards, the first shard's worst_other and
				    * interrupted, not_judged_fails of any shard, and the exit
				    * code `check` would have given for the whole suite; cfg
				    * NULL and shard 0/0 (not sharded) */
};

/*
 * Read the `n` results files `paths` and merge them into `m` (zeroed first). Checks that the
 * shards 1..N are each given once, from one suite, covering each target once; errors name the
 * shard or target and its files. 0, RN_EXIT_USAGE (a bad set of files) or RN_EXIT_CONFIG (a
 * file that cannot be read or is not a results file), after rn_error(). Release `m` with
 * rn_merged_release in every case.
 */
int rn_merged_load(struct rn_merged *m, const char *const *paths, size_t n);

/* Free everything `m` holds; `m` is zeroed. */
void rn_merged_release(struct rn_merged *m);

#endif
