/*
 * check.h - the engine of the main job: plan -> run -> judge -> report.
 *
 * Plan: config, selected targets, per target its warmup, timing and counting runs. Run: the
 * runs under its collectors -> per-run metrics and gaps (check_run.c). Judge: each enabled
 * assertion that applies, the golden comparison, known data loss -> verdicts. Report: one
 * struct rn_outcome (runner/report/outcome.h) through every reporter of runner/check/reporter.h (JUnit, timeline, OTLP,
 * benchmark JSON, results, GitHub, history, console) -> exit code.
 *
 * The commands that drive it each have their own file: cmd_check.c (`renacer check`),
 * cmd_calibrate.c, cmd_validate.c and cmd_golden.c (`renacer golden update`).
 */
#ifndef RN_CHECK_H
#define RN_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "calibrate.h"
#include "config.h"
#include "report_opts.h"
#include "shard.h"

struct rn_golden;
struct rn_otlp_context;
struct rn_target_report;
struct rn_target_result;

/*
 * The parsed command line of check, calibrate, validate and golden update: what the engine
 * reads. The command files fill it (runner/cli/cmd_check.h, rn_check_on_option); `only` and
 * `shard_names` are owned (rn_check_opts_release frees them), the strings they point to are
 * borrowed from argv and the config.
 */
struct rn_check_opts {
	const char *config;
	struct rn_report_opts rep; /* --junit, --otlp-*, --github, --no-color, --history, ... */
	const char **only;         /* --target names, NULL-terminated */
	size_t nonly;
	long runs;         /* 0 = as configured */
	unsigned min_runs; /* golden update: record at least this many runs unless --runs */
	bool no_golden;
	const char *baseline;      /* --baseline DIR, or NULL */
	double baseline_tolerance; /* fraction; 0 = RN_BASELINE_TOLERANCE */
	bool confirm;              /* --confirm */
	bool no_ratchet;           /* --no-ratchet: [ratchet] not compared (renacer bisect) */
	int pairs;                 /* --pairs: enum rn_pair_scheme of every target, -1 = as
				    * configured */
	const char *trace_out;
	const char *driver; /* --driver, or NULL */
	bool no_propagate;
	bool otlp_spool; /* the OTLP export wants every span */
	bool quiet;
	bool progress_part; /* the runs are part of a larger unit (a baseline pair): no
			     * progress unit line of their own */
	bool wide;          /* --wide: the console's wide table */
	bool verbose;       /* --verbose: every non-passing row's statistics on the console */
	bool build;         /* --build: run the targets' build commands first */
	bool help;
	const char *rerun_of;     /* --rerun-of COMMIT, or NULL */
	struct rn_shard shard;    /* --shard K/N; count 0 = all targets */
	const char **shard_names; /* targets of the shard, NULL-terminated, borrowed names */
	enum rn_shard_balance shard_balance; /* --shard-balance */
	bool calibrate;                      /* renacer calibrate */
	int pin_cpu;                         /* >= 0: timing runs on this CPU (baseline) */
	int pin_ncpus; /* and the next pin_ncpus - 1 CPUs of the affinity (<= 1: this one) */
	struct rn_calibrate_opts cal; /* its --effect, --pairs, --plant */
};

/* Defaults: config "renacer.toml", calibrate's effect and pairs, no CPU pinning, the report
 * options' defaults (rn_report_opts_init). */
void rn_check_opts_init(struct rn_check_opts *o);
/* Free what rn_check_opts_init and the option parser allocated (`only`, `shard_names`). */
void rn_check_opts_release(struct rn_check_opts *o);

/* Load the config at `path` into `cfg` and run the assertions' preflight; prints the
 * diagnostic (and annotates it in GitHub mode). Returns 0, or RN_EXIT_CONFIG with `cfg`
 * released. */
int rn_check_load_config(struct rn_config *cfg, const char *path, bool color, bool quiet,
			 bool github);
/* Is target `name` selected by --target and --shard? */
bool rn_check_selected(const struct rn_check_opts *o, const char *name);
/* The selection: every --target names a configured target (else RN_EXIT_USAGE), --shard's
 * targets into o->shard_names, then the drivers resolved and every collector a selected
 * target asks for usable here (else RN_EXIT_COLLECTOR, or rn_check_drivers' code). Prints why.
 * Returns 0 or an exit code. */
int rn_check_select(struct rn_check_opts *o, struct rn_config *cfg);

/*
 * Run one target: warmup, then its timing runs, then its counting runs, into `r` (initialized
 * by the caller). `index` of `count` is the progress position; `otlp_ctx` (or NULL) gives the
 * targets a TRACEPARENT; `golden_update` plans the runs a golden trace records. `golden` (or
 * NULL; borrowed) is the target's golden trace: while a timing comparison with it is
 * undecided, more timing runs follow (up to [regression] max_runs and time_budget_s), and a
 * count that fails against it is measured again (RN_GOLDEN_CONFIRM_COUNTING). Returns 0, or
 * -ECANCELED when a signal interrupted it (rn_run_interrupted says which).
 */
int rn_check_run_target(const struct rn_config *cfg, const struct rn_target_cfg *tc,
			const struct rn_check_opts *o, size_t index, size_t count,
			const struct rn_otlp_context *otlp_ctx, bool golden_update,
			const struct rn_golden *golden, struct rn_target_result *r);

/*
 * The whole check (o->calibrate: renacer calibrate) for parsed options `o`: config (plus the
 * target argv[first..argc-1] from the command line, when first < argc), selection, preflight,
 * plan, --build, each target's runs and verdicts, then every reporter. `o` stays the caller's
 * (rn_check_opts_release). Returns the check's enum rn_exit value.
 */
int rn_check_execute(struct rn_check_opts *o, int argc, char **argv, int first);

/*
 * The exit code `renacer check` gives for `n` targets' verdicts (FAIL or NO DATA, and NOT
 * JUDGED when `not_judged_fails` ([regression] not_judged = "fail"): RN_EXIT_FAIL; ERROR:
 * RN_EXIT_TARGET; else RN_EXIT_OK), unless `worst_other` (an exit code not derived from
 * verdicts, such as RN_EXIT_CONFIG for an unusable golden trace) is non-zero. Used by
 * `renacer merge` so a merged suite exits as one check would have.
 */
int rn_check_exit_code(const struct rn_target_report *tvs, size_t n, int worst_other,
		       bool not_judged_fails);

#endif
