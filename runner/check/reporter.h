/*
 * reporter.h - the outputs of a judged check: one table of reporters, run in a fixed order over
 * one struct rn_outcome (runner/report/outcome.h, which each writer reads directly), by `renacer check` (runner/check/check.c) and `renacer merge`
 * (runner/cli/cmd_merge.c) alike, so the two cannot write a report differently.
 *
 *     struct rn_outcome oc = { targets, reports, verdict exit code, ... };
 *     struct rn_report_outputs out = { junit path, OTLP settings, ... };
 *     exit_code = rn_report_all(&out, &oc);
 *
 * Reporters, in the order they run (rn_reporters): golden files, JUnit XML, timeline
 * (Perfetto), OTLP file, OTLP export, github-action-benchmark JSON, results file (shards),
 * GitHub Actions, the baseline table, the console table, history (last: the verdict is
 * printed before a slow store is written). Each writes only when its
 * output is asked for. `renacer golden update` calls only rn_golden_reporter, once per target
 * that ran cleanly, so each golden trace is written as soon as its runs end. A
 * reporter that fails gives the exit code of its failure (RN_EXIT_OUTPUT for a file,
 * RN_EXIT_FAIL for a required OTLP export), which replaces the outcome's exit code only
 * while that is still RN_EXIT_OK; later reporters (GitHub, console, history) see the updated
 * code. History is advisory: its failure is a warning, never an exit code.
 */
#ifndef RN_REPORTER_H
#define RN_REPORTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "outcome.h"

struct rn_config;
struct rn_otlp_cfg;
struct rn_otlp_context;

/* Which outputs to write and how. Pointers borrowed; NULL or false leaves an output out. */
struct rn_report_outputs {
	const char *junit;                      /* JUnit XML path, or NULL */
	const char *trace_out;                  /* Perfetto/Chrome timeline path, or NULL */
	const char *otlp_file;                  /* OTLP JSON Lines path, or NULL */
	const struct rn_otlp_cfg *otlp;         /* OTLP settings (export when ->enabled), or NULL */
	const struct rn_otlp_context *otlp_ctx; /* trace and span ids handed to the targets */
	const char *bench_json;                 /* github-action-benchmark JSON path, or NULL */
	const char *results;                    /* results file path (--results), or NULL */
	const char *golden_dir;                 /* golden update: write each target's golden trace
					       * <dir>/<target>.json and its history entry
					       * ("golden"), or NULL */
	bool github;                            /* GitHub Actions annotations and summary */
	bool history;                           /* --history: record even without [history] */
	const char *history_source;             /* "check" or "merge": the history entry's kind */
	const char *rerun_of;                   /* --rerun-of: the commit re-run, or NULL */
	bool color;                             /* console colors */
	bool wide;                              /* console: the wide table (rn_report_console) */
	bool verbose; /* console: every non-passing row's detail (rn_report_console) */
	bool quiet;   /* no notes (history, timeline) */
};

/* One output of a check. */
struct rn_reporter_ops {
	const char *name; /* what it writes ("junit", "otlp-file", ...) */
	/* Write the output when `out` asks for it (else return 0 at once). Returns 0, or the
	 * enum rn_exit value its failure gives (it has printed why). */
	int (*write)(const struct rn_report_outputs *out, const struct rn_outcome *oc);
};

/* Every reporter in the order they run; NULL-terminated. */
extern const struct rn_reporter_ops *const rn_reporters[];

/* The golden-files reporter of the table (out->golden_dir): for each target of the outcome,
 * the noise report, the golden trace written atomically ("wrote PATH (...)" unless quiet) and
 * one history entry; a write that fails prints its diagnostic and gives RN_EXIT_OUTPUT, the
 * other targets are still written. The targets must have run cleanly. */
extern const struct rn_reporter_ops rn_golden_reporter;

/*
 * Run every reporter of rn_reporters over `oc` with the settings `out`, updating
 * oc->exit_code as described at the top of this file. Returns the final exit code.
 */
int rn_report_all(const struct rn_report_outputs *out, struct rn_outcome *oc);

#endif
