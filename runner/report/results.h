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

#include "assertion.h"
#include "verdict.h"
#include "shard.h"

/* The "format" member and the version this build writes and reads. */
#define RN_RESULTS_FORMAT "renacer-results"
#define RN_RESULTS_VERSION 1
/* Largest results file read, bytes (a shard of 1000 targets x 100 runs is about 30 MiB). */
#define RN_RESULTS_MAX_BYTES ((size_t)1 << 30)

/*
 * The content of one results file. When written, every pointer is borrowed from the check;
 * when read (rn_results_read), everything is owned and freed by rn_results_release().
 */
struct rn_results {
	struct rn_shard shard;            /* K/N; count 0 is written as 1/1 (not sharded) */
	char *config_path;                /* renacer.toml checked, or NULL */
	char **suite;                     /* every target name of the suite, config order
					    * (all shards), [nsuite] */
	size_t nsuite;                    /* entries in suite */
	uint64_t start_unix_ns;           /* start of the check, Unix ns */
	uint64_t end_unix_ns;             /* end of the check, Unix ns */
	int exit_code;                    /* the shard's own enum rn_exit */
	int worst_other;                  /* exit code not derived from verdicts (an unusable
					    * golden trace: RN_EXIT_CONFIG), 0 if none */
	int interrupted;                  /* SIGINT or SIGTERM when interrupted, else 0 */
	bool not_judged_fails;            /* [regression] not_judged = "fail": NOT JUDGED
					    * verdicts block (the exit code) */
	struct rn_target_result *targets; /* this shard's targets [ntargets], config order */
	struct rn_target_report *reports; /* their verdicts [ntargets]; reports[i].result
					    * points at targets[i] */
	char ***argv;                     /* argv[i]: NULL-terminated command of target i */
	size_t ntargets;                  /* entries in targets, reports, argv */
	char **strings;                   /* read: units not in the static list, owned */
	size_t nstrings;                  /* entries in strings */
	bool owned;                       /* filled by rn_results_read */
};

/*
 * Write `res` to `path` as JSON, atomically (rn_write_file_atomic). 0, or a negative errno
 * after rn_error() naming the path.
 */
int rn_results_write(const char *path, const struct rn_results *res);

/*
 * Read the results file `path` into `res` (zeroed first; release with rn_results_release,
 * also after a failure). Checks the format name, the version, the shard numbers and every
 * member's type. 0, or -ENOENT, -EIO, -EINVAL (malformed: "FILE: error: ..." names the
 * member), -ENOMEM, after one rn_error().
 */
int rn_results_read(const char *path, struct rn_results *res);

/* Free what rn_results_read filled; `res` is zeroed. No-op on a zeroed struct. */
void rn_results_release(struct rn_results *res);

#endif
