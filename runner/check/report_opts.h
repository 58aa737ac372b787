/*
 * report_opts.h - the report options `renacer check` and `renacer merge` share: one table of
 * names and help lines (RN_REPORT_OPTIONS, spliced into each command's rn_option table),
 * one struct for their values and one handler, so the two commands cannot drift.
 */
#ifndef RN_REPORT_OPTS_H
#define RN_REPORT_OPTS_H

#include <stdbool.h>

#include "cli.h"
#include "config.h"
#include "otlp.h"
#include "reporter.h"

/*
 * X(id, long_name, arg, arg_name, help): the shared report options, in --help order. Each
 * command splices them into its struct rn_option table with
 * RN_REPORT_OPTIONS(RN_REPORT_OPTION_ROW).
 */
#define RN_REPORT_OPTIONS(X)                                                                       \
	X(RN_RO_JUNIT, "junit", RN_OPT_REQUIRED, "FILE",                                           \
	  "write JUnit XML to FILE (overrides [report] junit)")                                    \
	X(RN_RO_RESULTS, "results", RN_OPT_REQUIRED, "FILE",                                       \
	  "write the results (runs, verdicts) as JSON to FILE, for renacer merge "                 \
	  "(runner/report/RESULTS.md)")                                                            \
	X(RN_RO_OTLP_ENDPOINT, "otlp-endpoint", RN_OPT_REQUIRED, "URL",                            \
	  "export the check as OTLP to URL (/v1/traces appended)")                                 \
	X(RN_RO_OTLP_PROTOCOL, "otlp-protocol", RN_OPT_REQUIRED, "P",                              \
	  "http/protobuf (default) or http/json")                                                  \
	X(RN_RO_OTLP_FILE, "otlp-file", RN_OPT_REQUIRED, "FILE",                                   \
	  "write the OTLP trace as JSON Lines to FILE")                                            \
	X(RN_RO_GITHUB, "github", RN_OPT_NONE, NULL,                                               \
	  "GitHub Actions mode (default when GITHUB_ACTIONS=true)")                                \
	X(RN_RO_NO_GITHUB, "no-github", RN_OPT_NONE, NULL, "disable GitHub Actions mode")          \
	X(RN_RO_BENCH_JSON, "bench-json", RN_OPT_REQUIRED, "FILE",                                 \
	  "write metrics in github-action-benchmark customSmallerIsBetter format")                 \
	X(RN_RO_HISTORY, "history", RN_OPT_NONE, NULL,                                             \
	  "record the check in the history store even without [history]")                          \
	X(RN_RO_NO_COLOR, "no-color", RN_OPT_NONE, NULL, "no colors (also NO_COLOR=1)")

/* Option ids of the shared report options (struct rn_option.id), above every command's own. */
enum rn_report_opt_id {
	RN_RO_BASE = 0x1000, /* below the first id */
#define RN_REPORT_OPTION_ENUM(id, name, arg, arg_name, help) id,
	RN_REPORT_OPTIONS(RN_REPORT_OPTION_ENUM)
#undef RN_REPORT_OPTION_ENUM
};

/* One struct rn_option row of the X-macro above (no short option). */
#define RN_REPORT_OPTION_ROW(id, name, arg, arg_name, help) { id, name, 0, arg, arg_name, help },

/* The values of the shared report options. Strings borrow from argv. */
struct rn_report_opts {
	const char *junit;         /* --junit FILE, or NULL ([report] junit applies) */
	const char *results;       /* --results FILE, or NULL */
	const char *otlp_endpoint; /* --otlp-endpoint URL, or NULL */
	const char *otlp_protocol; /* --otlp-protocol P, or NULL */
	const char *otlp_file;     /* --otlp-file FILE, or NULL ([report] otlp_file applies) */
	const char *bench_json;    /* --bench-json FILE, or NULL */
	int github;                /* 1: GitHub Actions mode, 0: off */
	bool color;                /* colors on stderr */
	bool history;              /* --history: record even without [history] */
};

/* Defaults: GitHub mode when GITHUB_ACTIONS=true, colors when stderr is a terminal and
 * NO_COLOR is unset or empty; everything else off. */
void rn_report_opts_init(struct rn_report_opts *o);

/* Apply option `id` (an rn_report_opt_id) with `arg` (NULL for flags). Returns 0 when it was
 * one of the report options, 1 when `id` is not one (the command handles it). */
int rn_report_opts_apply(struct rn_report_opts *o, int id, const char *arg);

/*
 * Fill the report options' part of `out` (zeroing the rest): junit and otlp_file from the
 * command line, else from [report] of `cfg` (NULL when no config was loaded); bench_json,
 * results, github, history and color as given. The command sets the other fields.
 */
void rn_report_opts_outputs(const struct rn_report_opts *o, const struct rn_config *cfg,
			    struct rn_report_outputs *out);

/*
 * OTLP settings in the order of precedence: the standard OTEL_* environment variables, then
 * [otlp] of `cfg` (NULL when no config was loaded), then --otlp-endpoint / --otlp-protocol
 * (each later layer overrides what it sets); copies cfg's redact words. Returns 0,
 * RN_EXIT_CONFIG or RN_EXIT_USAGE (after printing why).
 */
int rn_report_opts_otlp(const struct rn_report_opts *o, const struct rn_config *cfg,
			struct rn_otlp_cfg *oc);

#endif
