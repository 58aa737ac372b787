/*
 * results.h - the results file of one `renacer check` (`--results FILE`), the unit that
 * `renacer merge` combines: what every report needs, so that the reports of a suite spread
 * over the shards of a CI matrix can be written once from the shards' files.
 *
 * Format (documented in runner/report/RESULTS.md, "renacer-results" version 1): one JSON object with the
 * shard (K of N), the suite's target names in config order, the check's start, end and exit
 * code, and per target of the shard: argv, status, error, build-id, start, duration, golden
 * file, every measured run's metrics (by the names of RN_METRICS), a summary of the last run's
 * process tree (processes, per-syscall statistics by name) and every verdict (by the labels of
 * RN_VERDICTS). Readers refuse a different "format" or a higher major "version".
 *
 * Errors follow the runner's I/O convention: 0 or a negative errno, after one rn_error() that
 * names the file.
 */
#ifndef RN_RESULTS_H
#define RN_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "outcome.h"

/* The "format" member and the version this build writes and reads. */
#define RN_RESULTS_FORMAT "renacer-results"
#define RN_RESULTS_VERSION 1
/* Largest results file read, bytes (a shard of 1000 targets x 100 runs is about 30 MiB). */
#define RN_RESULTS_MAX_BYTES ((size_t)1 << 30)

/*
 * One results file read back: the outcome it holds, every array and string of it owned here
 * (freed by rn_results_release), and the storage of the verdicts' units.
 */
struct rn_results {
	struct rn_outcome oc; /* the shard's check: shard (K/N), config_path, suite [nsuite],
			       * start/end, exit_code, worst_other, interrupted,
			       * not_judged_fails, targets/reports/argv [ntargets] (config
			       * order; reports[i].result is &targets[i]); no bases, no cfg */
	char **strings;       /* units not in the static list, owned */
	size_t nstrings;      /* entries in strings */
};

/*
 * Write the outcome `oc` to `path` as JSON, atomically (rn_write_file_atomic): oc->shard (count
 * 0 is written as 1/1, not sharded), config_path, suite, start_unix_ns, end_unix_ns
 * (rn_outcome_end_ns), exit_code, worst_other, interrupted, not_judged_fails, and per head
 * target its result, golden file, verdicts and argv[i] (oc->argv may be NULL: no commands).
 * The base sides and oc->cfg are not written. 0, or a negative errno after rn_error() naming
 * the path.
 */
int rn_results_write(const char *path, const struct rn_outcome *oc);

/*
 * Read the results file `path` into `res` (zeroed first; release with rn_results_release,
 * also after a failure). Checks the format name, the version, the shard numbers and every
 * member's type. 0, or -ENOENT, -EIO, -EINVAL (malformed: "FILE: error: ..." names the
 * member), -ENOMEM, after one rn_error().
 */
int rn_results_read(const char *path, struct rn_results *res);

/* Free what rn_results_read filled; `res` is zeroed. No-op on a zeroed struct. */
void rn_results_release(struct rn_results *res);

/* Free a NULL-terminated command as rn_results_read allocates it (each string, then the
 * array); NULL is a no-op. For a command moved out of a results file (renacer merge). */
void rn_results_argv_free(const char *const *argv);

#endif
