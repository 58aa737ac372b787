/*
 * check.c - `renacer check`, `renacer validate`, `renacer golden update`.
 */
#include "check.h"
#include "check_drivers.h"

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "assertion.h"
#include "baseline.h"
#include "calibrate.h"
#include "buf.h"
#include "collector.h"
#include "config.h"
#include "equivalence.h"
#include "github.h"
#include "golden.h"
#include "golden_equiv.h"
#include "preflight.h"
#include "history.h"
#include "judging.h"
#include "log.h"
#include "otlp.h"
#include "report.h"
#include "report_opts.h"
#include "reporter.h"
#include "shard.h"
#include "xalloc.h"

/* Option ids beyond single characters. */
enum {
	OPT_CONFIG = 'C',
	OPT_TARGET = 't',
	OPT_QUIET = 'q',
	OPT_HELP = 'h',
	OPT_RUNS = 256,
	OPT_NO_GOLDEN,
	OPT_TRACE_OUT,
	OPT_NO_PROPAGATE,
	OPT_ASSERT,
	OPT_RERUN_OF,
	OPT_SHARD,
	OPT_SHARD_BALANCE,
	OPT_DRIVER,
	OPT_BASELINE,
	OPT_CONFIRM,
	OPT_BASELINE_TOLERANCE,
	OPT_EFFECT,
	OPT_PAIRS,
	OPT_PLANT,
	OPT_WIDE,
	OPT_BUILD,
};

static const struct rn_option check_options[] = {
	{ OPT_CONFIG, "config", 'c', RN_OPT_REQUIRED, "FILE",
	  "config file (default renacer.toml)" },
	{ OPT_ASSERT, "assert", 0, RN_OPT_REQUIRED, "FILE",
	  "same as --config (original renacer spelling)" },
	{ OPT_TARGET, "target", 't', RN_OPT_REQUIRED, "NAME",
	  "check only this target (repeatable)" },
	{ OPT_RUNS, "runs", 0, RN_OPT_REQUIRED, "N", "override every target's timing runs" },
	{ OPT_NO_GOLDEN, "no-golden", 0, RN_OPT_NONE, NULL, "do not compare with golden traces" },
	{ OPT_BUILD, "build", 0, RN_OPT_NONE, NULL,
	  "run each selected target's `build` command first (/bin/sh -c, in its cwd); stop at a failure" },
	{ OPT_BASELINE, "baseline", 0, RN_OPT_REQUIRED, "DIR",
	  "run every target also in the built base checkout DIR, interleaved, and judge head vs base" },
	{ OPT_BASELINE_TOLERANCE, "baseline-tolerance", 0, RN_OPT_REQUIRED, "PCT",
	  "slowdown of head over base that fails, percent of the base median (default 3)" },
	{ OPT_CONFIRM, "confirm", 0, RN_OPT_NONE, NULL,
	  "with --baseline: re-measure a failing timing verdict once before it fails" },
	{ OPT_TRACE_OUT, "trace-out", 0, RN_OPT_REQUIRED, "FILE",
	  "write a Perfetto/Chrome trace-event JSON timeline of each target's last measured run" },
	{ OPT_NO_PROPAGATE, "no-propagate", 0, RN_OPT_NONE, NULL,
	  "do not put TRACEPARENT into targets' environment" },
	{ OPT_DRIVER, "driver", 0, RN_OPT_REQUIRED, "DRIVER",
	  "ptrace, ebpf or auto for every target (overrides each target's driver)" },
	{ OPT_RERUN_OF, "rerun-of", 0, RN_OPT_REQUIRED, "COMMIT",
	  "record the check as a re-run of COMMIT (flips between re-runs: renacer history quality)" },
	{ OPT_QUIET, "quiet", 'q', RN_OPT_NONE, NULL, "no progress lines" },
	{ OPT_WIDE, "wide", 0, RN_OPT_NONE, NULL,
	  "console table with every column (GOLDEN, BASE), whole names and REASON wrapped" },
	{ OPT_SHARD, "shard", 0, RN_OPT_REQUIRED, "K/N",
	  "run only shard K of N (targets split by a hash of their name; see renacer merge)" },
	{ OPT_SHARD_BALANCE, "shard-balance", 0, RN_OPT_REQUIRED, "HOW",
	  "name (default: shard_weight, else hash only) or golden (durations of the golden traces)" },
	/* clang-format off */
	RN_REPORT_OPTIONS(RN_REPORT_OPTION_ROW)
	/* clang-format on */
	{ OPT_HELP, "help", 'h', RN_OPT_NONE, NULL, "show this help" },
	{ 0, NULL, 0, RN_OPT_NONE, NULL, NULL },
};

const struct rn_command rn_cmd_check_def = {
	"check",
	"renacer check [--config FILE] [OPTIONS] [-- CMD [ARGS...]]",
	"run the targets of renacer.toml, judge every assertion and golden trace, write reports",
	"Metrics (units): critical_path = wall-clock length of the longest chain of dependent work\n"
	"from the root's exec to its exit through the children it waited for (ms in the config,\n"
	"median over timing runs unless `aggregate` says min, p95 or max); span_count = spans\n"
	"whose name fully matches a regex (PCRE2; syscalls by name, GPU spans as gpu:<name>);\n"
	"memory_usage = peak\n"
	"RSS of the tree (rss) or peak anonymous mapped bytes (allocations), in bytes. Every\n"
	"comparison is inclusive (<= passes). A metric without data is NO DATA, an error.\n"
	"Timing runs (`runs`) stop only at process events, so times are the program's own;\n"
	"counting runs (`counting_runs`, default 1) stop at every syscall for exact counts; a\n"
	"target gets the kinds its assertions and golden trace need.\n"
	"Verdicts: PASS, FAIL (blocking), WARN (fail_on_violation = false, or a timing comparison\n"
	"the data cannot decide: INCONCLUSIVE), SKIP (enabled = false), NO DATA, ERROR (target could\n"
	"not run, timed out, crashed, or a collector failed), NOT JUDGED (too few runs, or runs that\n"
	"can never reach alpha; never a pass; blocks with [regression] not_judged = \"fail\").\n"
	"--baseline DIR runs each target in DIR (a built checkout of the base revision) and here,\n"
	"alternating, and adds baseline:<metric> rows: times by the Wilcoxon signed-rank test on\n"
	"the paired differences with a Hodges-Lehmann interval (FAIL, PASS, or inconclusive as\n"
	"WARN), counts and memory against [regression]'s tolerances.",
	check_options,
};

static const struct rn_option validate_options[] = {
	{ OPT_CONFIG, "config", 'c', RN_OPT_REQUIRED, "FILE",
	  "config file (default renacer.toml)" },
	{ OPT_QUIET, "quiet", 'q', RN_OPT_NONE, NULL, "print nothing on success" },
	{ OPT_HELP, "help", 'h', RN_OPT_NONE, NULL, "show this help" },
	{ 0, NULL, 0, RN_OPT_NONE, NULL, NULL },
};

const struct rn_command rn_cmd_validate_def = {
	"validate",
	"renacer validate [--config FILE]",
	"parse and check renacer.toml without running anything (fast enough for a pre-commit hook)",
	NULL,
	validate_options,
};

static const struct rn_option calibrate_options[] = {
	{ OPT_CONFIG, "config", 'c', RN_OPT_REQUIRED, "FILE",
	  "config file (default renacer.toml)" },
	{ OPT_TARGET, "target", 't', RN_OPT_REQUIRED, "NAME",
	  "calibrate only this target (repeatable)" },
	{ OPT_EFFECT, "effect", 0, RN_OPT_REQUIRED, "PCT",
	  "the slowdown to gate, percent (default 5): the pairs it needs are stated" },
	{ OPT_PAIRS, "pairs", 0, RN_OPT_REQUIRED, "N", "A/A pairs measured (default 20)" },
	{ OPT_PLANT, "plant", 0, RN_OPT_REQUIRED, "PCT",
	  "planted extra CPU work, percent (default: twice the detection limit at max_runs)" },
	{ RN_RO_NO_COLOR, "no-color", 0, RN_OPT_NONE, NULL, "no colors (also NO_COLOR=1)" },
	{ OPT_QUIET, "quiet", 'q', RN_OPT_NONE, NULL, "no progress lines" },
	{ RN_RO_JUNIT, "junit", 0, RN_OPT_REQUIRED, "FILE",
	  "write JUnit XML to FILE (overrides [report] junit)" },
	{ OPT_HELP, "help", 'h', RN_OPT_NONE, NULL, "show this help" },
	{ 0, NULL, 0, RN_OPT_NONE, NULL, NULL },
};

const struct rn_command rn_cmd_calibrate_def = {
	"calibrate",
	"renacer calibrate [--config FILE] [--target NAME] [--effect PCT] [--pairs N] [--plant PCT]",
	"measure what a timing gate detects on this machine, and prove it with a planted slowdown",
	"For each target: A/A pairs (the target against itself, run side by side as\n"
	"check --baseline runs base and head) give the noise of cpu_time and wall_time;\n"
	"calibrate:noise states the detection limit at the first look and at [regression]\n"
	"max_runs, and the pairs a change of --effect needs (PASS when it can be gated, WARN\n"
	"when not). Then the head side runs behind a shell busy loop of --plant percent of the\n"
	"target's CPU time and the adaptive comparison of a real check judges it:\n"
	"calibrate:plant is PASS when the gate caught it and FAIL (exit 1) when not.\n"
	"Run it on the machine the gate runs on, with what runs beside it there.",
	calibrate_options,
};

static const struct rn_option golden_options[] = {
	{ OPT_CONFIG, "config", 'c', RN_OPT_REQUIRED, "FILE",
	  "config file (default renacer.toml)" },
	{ OPT_TARGET, "target", 't', RN_OPT_REQUIRED, "NAME",
	  "update only this target (repeatable)" },
	{ OPT_RUNS, "runs", 0, RN_OPT_REQUIRED, "N", "override every target's timing runs" },
	{ RN_RO_HISTORY, "history", 0, RN_OPT_NONE, NULL,
	  "record the runs in the history store even without [history]" },
	{ RN_RO_NO_COLOR, "no-color", 0, RN_OPT_NONE, NULL, "no colors (also NO_COLOR=1)" },
	{ OPT_QUIET, "quiet", 'q', RN_OPT_NONE, NULL, "no progress lines" },
	{ OPT_SHARD, "shard", 0, RN_OPT_REQUIRED, "K/N",
	  "update only the golden traces of shard K of N (as check --shard)" },
	{ OPT_SHARD_BALANCE, "shard-balance", 0, RN_OPT_REQUIRED, "HOW",
	  "name or golden, as check --shard-balance" },
	{ OPT_HELP, "help", 'h', RN_OPT_NONE, NULL, "show this help" },
	{ 0, NULL, 0, RN_OPT_NONE, NULL, NULL },
};

const struct rn_command rn_cmd_golden_def = {
	"golden",
	"renacer golden update [--config FILE] [--target NAME]",
	"run the targets and write golden_traces/<target>.json (atomically)",
	"Golden traces record provenance (renacer version, date, kernel, CPU model, build-id),\n"
	"per-run samples of every metric and per-syscall statistics; for a target with an\n"
	"equivalence assertion, also the behaviour trace it compares with (its `golden` file or\n"
	"[semantic_equivalence] baseline_dir/<target>.jsonl). Review the change with\n"
	"share/renacer/regenerate-golden.sh (installed with renacer), which prints what moved,\n"
	"and commit the files.",
	golden_options,
};

/* Parsed command line of check/validate/golden. */
struct check_opts {
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
	const char *trace_out;
	const char *driver; /* --driver, or NULL */
	bool no_propagate;
	bool otlp_spool; /* the OTLP export wants every span */
	bool quiet;
	bool wide;  /* --wide: the console's wide table */
	bool build; /* --build: run the targets' build commands first */
	bool help;
	const char *rerun_of;     /* --rerun-of COMMIT, or NULL */
	struct rn_shard shard;    /* --shard K/N; count 0 = all targets */
	const char **shard_names; /* targets of the shard, NULL-terminated, borrowed names */
	enum rn_shard_balance shard_balance; /* --shard-balance */
	bool calibrate;                      /* renacer calibrate */
	int pin_cpu;                         /* >= 0: timing runs on this CPU (baseline) */
	struct rn_calibrate_opts cal;        /* its --effect, --pairs, --plant */
};

static int parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static int on_option(void *ctx, int id, const char *arg)
{
	struct check_opts *o = ctx;

	if (!rn_report_opts_apply(&o->rep, id, arg))
		return 0;
	switch (id) {
	case OPT_CONFIG:
	case OPT_ASSERT:
		o->config = arg;
		break;
	case OPT_TARGET:
		o->only = rn_xrealloc(o->only, (o->nonly + 2) * sizeof(*o->only));
		o->only[o->nonly++] = arg;
		o->only[o->nonly] = NULL;
		break;
	case OPT_RUNS:
		if (parse_long(arg, 1, 1000, &o->runs))
			return rn_error("--runs needs an integer between 1 and 1000, found '%s'",
					arg);
		break;
	case OPT_NO_GOLDEN:
		o->no_golden = true;
		break;
	case OPT_BASELINE:
		o->baseline = arg;
		break;
	case OPT_EFFECT:
	case OPT_PLANT: {
		long pct;

		if (parse_long(arg, 1, 1000, &pct))
			return rn_error(
				"--%s needs a whole percentage between 1 and 1000, found '%s'",
				id == OPT_EFFECT ? "effect" : "plant", arg);
		*(id == OPT_EFFECT ? &o->cal.effect : &o->cal.plant) = (double)pct / 100.0;
		break;
	}
	case OPT_PAIRS: {
		long n;

		if (parse_long(arg, 2, 1000, &n))
			return rn_error("--pairs needs an integer between 2 and 1000, found '%s'",
					arg);
		o->cal.pairs = (unsigned)n;
		break;
	}
	case OPT_CONFIRM:
		o->confirm = true;
		break;
	case OPT_BASELINE_TOLERANCE: {
		long pct;

		if (parse_long(arg, 1, 100, &pct))
			return rn_error(
				"--baseline-tolerance needs a whole percentage between 1 and "
				"100, found '%s'",
				arg);
		o->baseline_tolerance = (double)pct / 100.0;
		break;
	}
	case OPT_TRACE_OUT:
		o->trace_out = arg;
		break;
	case OPT_DRIVER:
		o->driver = arg;
		break;
	case OPT_NO_PROPAGATE:
		o->no_propagate = true;
		break;
	case OPT_QUIET:
		o->quiet = true;
		break;
	case OPT_WIDE:
		o->wide = true;
		break;
	case OPT_BUILD:
		o->build = true;
		break;
	case OPT_HELP:
		o->help = true;
		break;
	case OPT_RERUN_OF:
		if (!*arg)
			return rn_error("--rerun-of needs a commit");
		o->rerun_of = arg;
		break;
	case OPT_SHARD:
		if (rn_shard_parse(arg, &o->shard))
			return rn_error("--shard needs K/N with 1 <= K <= N <= %d, found '%s'",
					RN_SHARD_MAX, arg);
		break;
	case OPT_SHARD_BALANCE:
		if (rn_shard_balance_parse(arg, &o->shard_balance))
			return rn_error("--shard-balance needs 'name' or 'golden', found '%s'",
					arg);
		break;
	default:
		return rn_error("unhandled option %d", id);
	}
	return 0;
}

static void opts_init(struct check_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->config = "renacer.toml";
	o->cal.pairs = RN_CALIBRATE_PAIRS;
	o->pin_cpu = -1;
	o->cal.effect = RN_CALIBRATE_EFFECT;
	rn_report_opts_init(&o->rep);
}

/* Load the config; prints the diagnostic (and annotates it in GitHub mode). Returns 0 or
 * RN_EXIT_CONFIG. */
static int load_config(struct rn_config *cfg, const char *path, bool color, bool quiet, bool github)
{
	struct rn_diag d;

	if (rn_config_load(cfg, path, quiet, &d)) {
		rn_diag_print(&d, color);
		if (github)
			rn_github_report_diag(&d, RN_EXIT_CONFIG);
		rn_config_release(cfg);
		return RN_EXIT_CONFIG;
	}
	rn_preflight_assertions(cfg);
	return 0;
}

static bool selected(const struct check_opts *o, const char *name)
{
	size_t i;

	if (o->shard.count && !rn_shard_list_has(o->shard_names, name))
		return false;
	if (!o->nonly)
		return true;
	for (i = 0; i < o->nonly; i++)
		if (!strcmp(o->only[i], name))
			return true;
	return false;
}

/* Every --target must name a configured target. */
static int check_selection(const struct check_opts *o, const struct rn_config *cfg)
{
	size_t i, k;

	for (i = 0; i < o->nonly; i++) {
		for (k = 0; k < cfg->ntargets; k++)
			if (!strcmp(cfg->targets[k].name, o->only[i]))
				break;
		if (k == cfg->ntargets) {
			rn_error("--target '%s': no such target in '%s'", o->only[i], cfg->path);
			return RN_EXIT_USAGE;
		}
	}
	return 0;
}

/* RENACER_DISABLE_COLLECTORS="a,b" makes those collectors unavailable (to test how CI
 * behaves on a machine without them, e.g. without ptrace permission or a GPU). */
static bool disabled_by_env(const char *name)
{
	const char *list = getenv("RENACER_DISABLE_COLLECTORS");
	size_t n = strlen(name);

	while (list && *list) {
		const char *comma = strchr(list, ',');
		size_t len = comma ? (size_t)(comma - list) : strlen(list);

		if (len == n && !strncmp(list, name, n))
			return true;
		list = comma ? comma + 1 : NULL;
	}
	return false;
}

/* Resolve the drivers, then: are all collectors a target asks for usable here? Prints why
 * not. */
static int check_collectors(struct rn_config *cfg, const struct check_opts *o)
{
	size_t i;
	int k;

	k = rn_check_drivers(cfg, o->driver, o->trace_out || cfg->trace_out);
	if (k)
		return k;

	for (i = 0; i < cfg->ntargets; i++) {
		if (!selected(o, cfg->targets[i].name))
			continue;
		for (k = 0; rn_collectors[k]; k++) {
			uint32_t bit = rn_collector_mask_of(rn_collectors[k]->name);
			const char *why;

			if (!(cfg->targets[i].collectors & bit))
				continue;
			why = rn_collectors[k]->unavailable ? rn_collectors[k]->unavailable() :
							      NULL;
			if (disabled_by_env(rn_collectors[k]->name))
				why = "disabled by RENACER_DISABLE_COLLECTORS";
			if (why) {
				rn_error("target '%s': collector '%s' is unavailable: %s",
					 cfg->targets[i].name, rn_collectors[k]->name, why);
				return RN_EXIT_COLLECTOR;
			}
		}
	}
	return 0;
}

static uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Does any enabled assertion that applies to this target need every span (spool)? */
static bool needs_spool(const struct rn_config *cfg, const struct rn_target_cfg *tc,
			const struct check_opts *o)
{
	size_t i;

	if (o->trace_out || cfg->trace_out || o->otlp_spool)
		return true;
	for (i = 0; i < cfg->nassertions; i++) {
		const struct rn_assertion_spec *a = &cfg->assertions[i];

		if (a->enabled &&
		    (a->type == RN_ASSERT_ANTI_PATTERN || a->type == RN_ASSERT_EQUIVALENCE ||
		     a->type == RN_ASSERT_SPAN_TIME || a->type == RN_ASSERT_WITNESS) &&
		    rn_assertion_applies(a, tc->name))
			return true;
	}
	return false;
}

/*
 * The runs of one target (struct run_plan). A target with the ptrace collector gets timing
 * runs (process events only: its times are the program's own) and counting runs (every
 * syscall stops: exact counts, spans, allocations), each only where something needs it:
 *   timing runs    a critical_path assertion, a golden trace (compared or updated),
 *                  --bench-json, or a memory_usage "rss" assertion (peak RSS is a tree metric
 *                  that timing runs measure)
 *   counting runs  span_count, span_time and anti_pattern assertions, memory_usage
 *                  "allocations", a golden trace, --bench-json, and the outputs that want
 *                  every span (the timeline, OTLP "all")
 * A target with nothing to judge gets both. A target without the ptrace collector (GPU
 * collectors alone) has no such split: its `runs` measure both.
 */
struct run_plan {
	unsigned timing;   /* timing runs (the target's `runs`, or --runs); 0 = none */
	unsigned counting; /* counting runs (`counting_runs`); 0 = none */
	bool split;        /* timing and counting runs are different runs */
};

static bool golden_exists(const struct rn_config *cfg, const char *target)
{
	char *path = rn_golden_path(cfg->golden_dir, target);
	bool yes = path && !access(path, F_OK);

	free(path);
	return yes;
}

static void plan_runs(const struct rn_config *cfg, const struct rn_target_cfg *tc,
		      const struct check_opts *o, bool golden_update, struct run_plan *p)
{
	unsigned runs = o->runs ? (unsigned)o->runs : tc->runs;
	bool time = false, count = false, tree = false;
	size_t i;

	if (!o->runs && runs < o->min_runs) /* golden update: [golden] runs */
		runs = o->min_runs;

	memset(p, 0, sizeof(*p));
	if (!(tc->collectors & RN_COLLECT_PTRACE)) {
		p->timing = runs;
		return;
	}
	p->split = true;
	for (i = 0; i < cfg->nassertions; i++) {
		const struct rn_assertion_spec *a = &cfg->assertions[i];

		if (!a->enabled || !rn_assertion_applies(a, tc->name))
			continue;
		if (a->type == RN_ASSERT_CRITICAL_PATH)
			time = true;
		else if (a->type == RN_ASSERT_MEMORY_USAGE && a->tracking_mode == RN_TRACK_RSS)
			tree = true;
		else
			count = true;
	}
	if (golden_update || o->rep.bench_json ||
	    (!o->no_golden && cfg->regression.enabled && golden_exists(cfg, tc->name)))
		time = count = true;
	if (needs_spool(cfg, tc, o))
		count = true;
	if (o->baseline) /* head vs base compares times, counts and memory */
		time = count = true;
	if (!time && !count && !tree)
		time = count = true;
	p->timing = time || tree ? runs : 0;
	p->counting = count ? tc->counting_runs : 0;
	/* a golden trace records the spread of its counting runs (threads, a parallel build's
	 * overlap), which the counts and memory are then judged against */
	if (golden_update && p->counting && p->counting < RN_GOLDEN_CONFIRM_COUNTING)
		p->counting = RN_GOLDEN_CONFIRM_COUNTING;
}

/* Does an enabled equivalence assertion apply to this target? Its behaviour is then taken
 * live, with execve argv, which the spool does not keep. */
static bool needs_behaviour(const struct rn_config *cfg, const struct rn_target_cfg *tc)
{
	size_t i;

	for (i = 0; i < cfg->nassertions; i++)
		if (cfg->assertions[i].enabled &&
		    cfg->assertions[i].type == RN_ASSERT_EQUIVALENCE &&
		    rn_assertion_applies(&cfg->assertions[i], tc->name))
			return true;
	return false;
}

/* One target's runs as they go: what every run of it shares. */
struct target_runs {
	const struct rn_config *cfg;
	const struct rn_target_cfg *tc;
	const struct check_opts *o;
	size_t index, count;                /* progress position */
	const struct rn_otlp_context *otlp; /* trace context handed to the target, or NULL */
	struct run_plan plan;
	bool spool;                 /* measured runs keep every span */
	bool behave;                /* measured runs record the behaviour */
	struct rn_target_result *r; /* filled */
	bool probe;                 /* a speed probe before each timing run (judging.h) */
};

/* The progress line of run `k` (0-based over warmup, timing and counting runs). */
static void run_progress(const struct target_runs *tr, unsigned k, bool warm, bool counting)
{
	const struct rn_target_cfg *tc = tr->tc;
	const struct run_plan *p = &tr->plan;
	size_t pos = tr->index + 1;

	if (tr->o->quiet)
		return;
	unsigned nsteps = tc->warmup + p->timing + p->counting;

	if (warm)
		rn_report_progress(tr->o->rep.color, k, nsteps, "[%zu/%zu] %s warmup %u/%u ...",
				   pos, tr->count, tc->name, k + 1, tc->warmup);
	else if (counting)
		rn_report_progress(tr->o->rep.color, k, nsteps,
				   "[%zu/%zu] %s counting run %u/%u ...", pos, tr->count, tc->name,
				   k - tc->warmup - p->timing + 1, p->counting);
	else
		rn_report_progress(tr->o->rep.color, k, nsteps, "[%zu/%zu] %s %srun %u/%u ...", pos,
				   tr->count, tc->name, p->split ? "timing " : "",
				   k - tc->warmup + 1, p->timing);
}

/* The run spec of one run of `tc`: a timing run (`timing`: process events only, so no
 * hand-off to pin for) or a run that stops at syscalls. */
static void run_spec_of(const struct rn_target_cfg *tc, bool timing, struct rn_run_spec *spec)
{
	memset(spec, 0, sizeof(*spec));
	spec->name = tc->name;
	spec->argv = tc->argv;
	spec->cwd = tc->cwd;
	spec->env_add = tc->env;
	spec->stdio[0] = RN_STDIO_NULL;
	spec->stdio[1] = tc->out;
	spec->stdio[2] = tc->err;
	spec->timeout_ns = tc->timeout_ns;
	spec->collectors = tc->collectors;
	spec->flags = timing ? RN_RUN_FOLLOW_FORKS | RN_RUN_EVENTS_ONLY :
			       RN_RUN_FOLLOW_FORKS | RN_RUN_PIN_CPU;
	spec->gpu_mode = tc->gpu_mode;
	spec->region_thread_scope = tc->region_thread_scope;
	spec->max_procs = tc->max_procs;
	spec->max_as_bytes = tc->max_as_bytes;
	spec->inject = tc->inject;
	spec->ninject = tc->ninject;
}

/* The span spool and the behaviour sink of a measured run that stops at syscalls. Returns the
 * behaviour recorder (owned by the caller) or NULL. */
static struct rn_behaviour *run_sinks(const struct target_runs *tr, struct rn_trace *t)
{
	struct rn_behaviour *bh;
	struct rn_trace_sink sink;

	if (tr->spool && rn_trace_spool_enable(t)) {
		rn_warn("target '%s': cannot create the span spool; anti-patterns and the "
			"timeline will lack span detail",
			tr->tc->name);
		rn_trace_add_gap(t, RN_GAP_SPOOL, RN_GAP_SPAN_DETAIL, "ptrace", 0,
				 "the span spool could not be created");
	}
	if (!tr->behave)
		return NULL;
	bh = rn_behaviour_new(tr->cfg->semantic);
	rn_behaviour_sink(bh, &sink);
	if (rn_trace_add_sink(t, &sink)) {
		rn_behaviour_free(bh);
		return NULL;
	}
	return bh;
}

/* A program that failed did not do the work being measured: its numbers are not judged
 * unless the target expects that status. */
static void check_expected_exit(const struct rn_target_cfg *tc, struct rn_trace *t)
{
	if (t->status == RN_RUN_OK && t->nprocs && t->procs[0].end == RN_PROC_EXITED &&
	    tc->expect_exit >= 0 && t->procs[0].exit_code != tc->expect_exit)
		rn_trace_fail(t, RN_RUN_ERROR,
			      "target '%s' exited with status %d (expected %d; set expect_exit to "
			      "accept it)",
			      tc->name, t->procs[0].exit_code, tc->expect_exit);
}

/* Keep a finished run `t` (measured, not warmup) in the target result. */
static void keep_run(struct rn_target_result *r, struct rn_trace *t, struct rn_behaviour *bh,
		     bool counting, uint64_t start_unix)
{
	if (bh) {
		rn_behaviour_take_processes(bh, t);
		rn_behaviour_free(r->behaviour);
		r->behaviour = bh;
	}
	if (counting) {
		rn_target_result_add_counting_run(r, t);
		r->counts[r->ncounts - 1].start_unix_ns = start_unix;
	} else {
		rn_target_result_add_run(r, t);
		r->runs[r->nruns - 1].start_unix_ns = start_unix;
	}
}

/* Run `k` of the target. Returns 0 (go on), 1 (the target stops: a run failed, the target is
 * ERROR) or -ECANCELED (interrupted). */
static int one_run(struct target_runs *tr, unsigned k, struct rn_pressure_probe *probe)
{
	const struct rn_target_cfg *tc = tr->tc;
	struct rn_target_result *r = tr->r;
	bool warm = k < tc->warmup;
	/* a counting run (warmups are of the first kind measured) */
	bool counting =
		tr->plan.split && (k >= tc->warmup + tr->plan.timing || (warm && !tr->plan.timing));
	bool stops = counting || !tr->plan.split; /* the run stops at syscalls */
	struct rn_behaviour *bh = NULL;
	struct rn_run_spec spec;
	struct rn_run_result res;
	struct rn_trace t;
	char traceparent[64];
	uint64_t start_unix;
	int rc;

	run_progress(tr, k, warm, counting);
	run_spec_of(tc, !stops, &spec);
	if (!stops && !tr->cfg->regression.timing_guard)
		spec.flags |= RN_RUN_NO_GUARD;
	if (!stops && tr->o->pin_cpu >= 0) {
		spec.flags |= RN_RUN_PIN_TARGET;
		spec.pin_cpu = tr->o->pin_cpu;
	}
	memset(&res, 0, sizeof(res));
	if (!tr->o->no_propagate && tr->otlp) {
		rn_otlp_traceparent(tr->otlp, tr->index,
				    warm ? RN_OTLP_RUN_NONE : rn_target_result_measured(r),
				    traceparent, sizeof(traceparent));
		spec.traceparent = traceparent;
	}
	if (k == tc->warmup)
		rn_pressure_probe_begin(probe);
	rn_trace_init(&t);
	if (!warm && stops)
		bh = run_sinks(tr, &t);
	start_unix = realtime_ns();
	if (!r->start_unix_ns)
		r->start_unix_ns = start_unix;
	rc = rn_run_target(&spec, &t, &res);
	rn_run_result_release(&res);
	if (!rc)
		check_expected_exit(tc, &t);
	if (rc == -ECANCELED) {
		if (!r->error)
			r->error = rn_xstrdup("renacer was interrupted");
		r->status = RN_RUN_INTERRUPTED;
	} else if (rc < 0 || t.status != RN_RUN_OK) {
		/* A run that could not start or did not end cleanly makes the target ERROR;
		 * its partial trace is still the last one, for the report. */
		if (!t.error)
			rn_trace_fail(&t, t.status ? t.status : RN_RUN_ERROR, "run %u failed (%s)",
				      k + 1, strerror(-rc));
		if (!warm || !rn_target_result_measured(r)) {
			r->status = t.status;
			free(r->error);
			r->error = rn_xstrdup(t.error);
		}
		rc = 1;
	} else if (!warm) {
		keep_run(r, &t, bh, counting, start_unix);
		bh = NULL;
	}
	rn_trace_release(&t);
	rn_behaviour_free(bh);
	return rc;
}

/* Speed probes after a stretch of timing runs (judging.h): a few, back to back. */
static void speed_probes(struct rn_target_result *r)
{
	int i;

	for (i = 0; i < RN_SPEED_PROBES; i++)
		rn_speed_probe(r);
}

/* The golden trace of target `tc`, read quietly (compare_golden reports a bad one). */
static bool read_golden(const struct rn_config *cfg, const struct rn_target_cfg *tc,
			struct rn_golden *g)
{
	char *path = rn_golden_path(cfg->golden_dir, tc->name);
	struct rn_diag d;
	bool ok;

	rn_diag_init(&d, path, NULL, 0);
	ok = path && !access(path, F_OK) && !rn_golden_read(path, g, &d);
	free(path);
	return ok;
}

/*
 * Adaptive repeats against golden trace `g` (assertions/sequential.h): after the first look
 * (the target's runs), more timing runs while a timing comparison is undecided, up to
 * [regression] max_runs or time_budget_s. Returns what one_run returned last (`rc` if none).
 */
static int adaptive_runs(struct target_runs *tr, const struct rn_golden *g,
			 struct rn_pressure_probe *probe, int rc)
{
	const struct rn_regression_cfg *reg = &tr->cfg->regression;
	struct rn_target_result *r = tr->r;
	struct rn_seq_design seq;
	uint64_t t0 = monotonic_ns(), budget = (uint64_t)(reg->time_budget_s * 1e9);
	size_t next;

	seq.first = tr->plan.timing;
	seq.max = reg->max_runs > tr->plan.timing ? reg->max_runs : tr->plan.timing;
	seq.alpha = reg->alpha;
	r->look_first = seq.first;
	r->look_max = seq.max;
	r->looks_spent = true;
	while (!rc && r->status == RN_RUN_OK) {
		next = rn_seq_next(&seq, r->nruns);
		if (!next || (budget && monotonic_ns() - t0 >= budget))
			break;
		if (!rn_golden_timing_undecided(g, r, reg)) {
			r->looks_spent = false;
			break;
		}
		while (!rc && r->nruns < next) {
			/* one more timing run: it goes where the timing runs end */
			tr->plan.timing++;
			rc = one_run(tr, tr->tc->warmup + tr->plan.timing - 1, probe);
		}
		if (!rc)
			speed_probes(r);
	}
	return rc;
}

static void github_group_begin(const struct rn_target_cfg *tc, const struct run_plan *p)
{
	char title[256];

	snprintf(title, sizeof(title),
		 "renacer: %s (%u warmup + %u timing run%s + %u counting run%s)", tc->name,
		 tc->warmup, p->timing, p->timing == 1 ? "" : "s", p->counting,
		 p->counting == 1 ? "" : "s");
	rn_github_group_begin(title);
}

/* Run one target: warmup, then its timing runs, then its counting runs (struct run_plan),
 * into `r`. Returns 0, or -ECANCELED when interrupted. */
static int run_target(const struct rn_config *cfg, const struct rn_target_cfg *tc,
		      const struct check_opts *o, size_t index, size_t count,
		      const struct rn_otlp_context *otlp_ctx, bool golden_update,
		      struct rn_target_result *r)
{
	struct target_runs tr = { cfg,
				  tc,
				  o,
				  index,
				  count,
				  otlp_ctx,
				  { 0, 0, false },
				  needs_spool(cfg, tc, o),
				  needs_behaviour(cfg, tc),
				  r,
				  false };
	struct rn_pressure_probe probe = { 0 };
	uint64_t t0 = monotonic_ns();
	struct rn_golden g;
	bool have_golden;
	unsigned first, k;
	int rc = 0;

	plan_runs(cfg, tc, o, golden_update, &tr.plan);
	/* never in a same-job baseline: the base side has no golden trace, and the pairs must
	 * stay alike */
	tr.probe = tr.plan.timing && !o->baseline && !o->calibrate &&
		(golden_update || golden_exists(cfg, tc->name));
	have_golden = !golden_update && !o->baseline && !o->calibrate && !o->no_golden &&
		cfg->regression.enabled && read_golden(cfg, tc, &g);
	if (o->rep.github)
		github_group_begin(tc, &tr.plan);
	first = tc->warmup + tr.plan.timing;
	for (k = 0; k < first && !rc; k++)
		rc = one_run(&tr, k, &probe);
	if (tr.probe && !rc)
		speed_probes(r);
	if (have_golden && tr.plan.timing && cfg->regression.timing)
		rc = adaptive_runs(&tr, &g, &probe, rc);
	for (k = tc->warmup + tr.plan.timing;
	     k < tc->warmup + tr.plan.timing + tr.plan.counting && !rc; k++)
		rc = one_run(&tr, k, &probe);
	/* A count that fails against the golden trace after the configured counting runs is
	 * measured again: counts of threads and parallel children vary from run to run, and the
	 * per-syscall rule judges the run with the fewest calls. */
	while (have_golden && !rc && tr.plan.counting && r->status == RN_RUN_OK &&
	       r->ncounts < RN_GOLDEN_CONFIRM_COUNTING &&
	       rn_golden_counts_fail(&g, r, &cfg->regression)) {
		tr.plan.counting++;
		rc = one_run(&tr, tc->warmup + tr.plan.timing + tr.plan.counting - 1, &probe);
	}
	if (have_golden)
		rn_golden_release(&g);
	if (rc > 0) /* the target is ERROR; the check goes on */
		rc = 0;
	if (probe.mono_ns && r->nruns)
		rn_pressure_probe_end(&probe, r);
	if (!rc && r->status == RN_RUN_OK && (r->nruns || r->ncounts) &&
	    rn_check_wants_instructions(cfg, tc))
		rc = rn_check_instructions(tc, r, o->quiet);
	r->duration_ns = monotonic_ns() - t0;
	if (!o->quiet)
		rn_report_progress_done();
	if (o->rep.github)
		rn_github_group_end();
	return rc;
}

/* What the baseline's runner callback needs (baseline_run_one). */
struct baseline_ctx {
	const struct rn_config *cfg;
	const struct check_opts *o;
	const struct rn_target_cfg *head, *base; /* the two sides of the target */
	size_t index, count;                     /* progress position */
	size_t base_index;                       /* OTLP target index of the base side */
	const struct rn_otlp_context *otlp;
	int pin;       /* CPU of the timing runs, -1 none, RN_PIN_UNDECIDED before a pair */
	bool seen[2];  /* a timing run of the side was measured */
	bool alone[2]; /* it was one process of one thread */
};

/* baseline_ctx.pin before the first timing pair decided it */
#define RN_PIN_UNDECIDED (-2)

/* The CPU both sides of a same-job baseline run on: the one the scheduler has renacer on
 * (the least busy, as far as it knows), else the last one renacer may use. */
static int pin_choice(void)
{
	cpu_set_t set;
	int i, now = sched_getcpu();

	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	if (now >= 0 && now < CPU_SETSIZE && CPU_ISSET(now, &set))
		return now;
	for (i = CPU_SETSIZE - 1; i >= 0; i--)
		if (CPU_ISSET(i, &set))
			return i;
	return -1;
}

/* Placement of the timing runs: after one timing run of each side, a target of one process
 * and one thread on both sides runs pinned to one CPU from then on (the pairs' placement is
 * then the same: on a loaded 2-vCPU VM, cpu_time noise of a 70 ms program +-2.6% -> +-0.9%
 * a pair, tests/bench/timing/placement.sh); anything parallel stays unpinned, so that its
 * parallelism is still measured. */
static void pin_decide(struct baseline_ctx *c, enum rn_baseline_side side,
		       const struct rn_target_result *r)
{
	const struct rn_trace *t = rn_target_result_cp_trace(r); /* the last timing run's */

	if (c->pin != RN_PIN_UNDECIDED || c->seen[side])
		return;
	c->seen[side] = true;
	c->alone[side] = t->nprocs == 1 && t->procs[0].nthreads <= 1;
	if (c->seen[0] && c->seen[1])
		c->pin = c->alone[0] && c->alone[1] && c->cfg->regression.pin ? pin_choice() : -1;
}

/* One run of one side for the baseline (rn_baseline_run_fn): run_target with that single
 * run, its time added to the side's total. */
static int baseline_run_one(void *ctx, enum rn_baseline_side side, enum rn_baseline_run kind,
			    struct rn_target_result *r)
{
	struct baseline_ctx *c = ctx;
	struct rn_target_cfg tc = side == RN_BASELINE_BASE ? *c->base : *c->head;
	struct check_opts o = *c->o;
	uint64_t before = r->duration_ns;
	cpu_set_t mine, one;
	bool pinned = false;
	int rc;

	o.runs = 0;
	o.rep.github = 0;
	o.pin_cpu = c->pin >= 0 ? c->pin : -1;
	tc.warmup = kind == RN_BASELINE_WARMUP;
	tc.runs = kind == RN_BASELINE_TIMING;
	tc.counting_runs = kind == RN_BASELINE_COUNTING;
	/* renacer's thread beside a pinned target: its event stops then wake no idle CPU, and the
	 * CPU stays busy (no frequency ramp) between the runs (quiet 16-core machine: awk's A/A
	 * noise +-13% a pair with the target alone pinned, +-1.8% with both) */
	if (o.pin_cpu >= 0 && !sched_getaffinity(0, sizeof(mine), &mine)) {
		CPU_ZERO(&one);
		CPU_SET(o.pin_cpu, &one);
		pinned = !sched_setaffinity(0, sizeof(one), &one);
	}
	rc = run_target(c->cfg, &tc, &o, side == RN_BASELINE_BASE ? c->base_index : c->index,
			c->count, c->otlp, false, r);
	if (pinned)
		(void)sched_setaffinity(0, sizeof(mine), &mine);
	r->duration_ns += before;
	if (!rc && kind == RN_BASELINE_TIMING && r->status == RN_RUN_OK)
		pin_decide(c, side, r);
	return rc;
}

/* Run target `tc` in both trees side by side and append its baseline:* verdicts. Returns 0 or
 * -ECANCELED. */
static int run_baseline(const struct rn_config *cfg, const struct rn_target_cfg *tc,
			const struct rn_target_cfg *base_tc, const struct check_opts *o,
			const struct rn_baseline *bl, size_t index, size_t count,
			const struct rn_otlp_context *otlp_ctx, struct rn_target_result *head,
			struct rn_target_result *base, struct rn_target_report *tv)
{
	struct baseline_ctx c = { cfg,           o,        tc,
				  base_tc,       index,    count,
				  count + index, otlp_ctx, RN_PIN_UNDECIDED,
				  { 0 },         { 0 } };
	struct rn_baseline_plan plan;
	struct run_plan rp;
	int rc;

	plan_runs(cfg, tc, o, false, &rp);
	plan.warmup = tc->warmup;
	plan.pairs = rp.timing;
	plan.counting = rp.split ? rp.counting : 0;
	plan.max_pairs = cfg->regression.max_runs;
	plan.budget_ns = (uint64_t)(cfg->regression.time_budget_s * 1e9);
	{
		struct rn_seq_design seq = rn_baseline_design(&plan, &cfg->regression);

		plan.pairs = (unsigned)seq.first;
	}
	if (o->rep.github) {
		char title[256];

		snprintf(title, sizeof(title),
			 "renacer: %s vs base (%u warmup + %u to %u timing pairs + %u counting "
			 "run%s a side)",
			 tc->name, plan.warmup, plan.pairs, plan.max_pairs, plan.counting,
			 plan.counting == 1 ? "" : "s");
		rn_github_group_begin(title);
	}
	rc = rn_baseline_run_target(bl, &plan, &cfg->regression, tc->name, baseline_run_one, &c,
				    head, base, tv);
	if (o->rep.github)
		rn_github_group_end();
	return rc;
}

/* calibrate: the planted head side, a shell busy loop before the target's command. */
struct planted {
	struct baseline_ctx c;   /* head = &tc */
	struct rn_target_cfg tc; /* the head target with argv planted */
	char **argv;             /* sh -c SCRIPT argv..., owned (strings borrowed but [2]) */
};

static void plant_argv(void *ctx, unsigned long iterations)
{
	struct planted *p = ctx;
	size_t n = 0, i;

	if (p->argv) {
		free(p->argv[2]);
		free(p->argv);
	}
	for (n = 0; p->c.base->argv[n]; n++)
		;
	p->argv = rn_xcalloc(n + 4, sizeof(*p->argv));
	p->argv[0] = (char *)"/bin/sh";
	p->argv[1] = (char *)"-c";
	p->argv[2] = rn_xstrdup(rn_calibrate_loop_script(iterations));
	for (i = 0; i < n; i++)
		p->argv[3 + i] = p->c.base->argv[i];
	p->tc.argv = p->argv;
}

/* calibrate one target (calibrate.h): A/A, then a planted slowdown. Returns 0 or -ECANCELED. */
static int run_calibrate(const struct rn_config *cfg, const struct rn_target_cfg *tc,
			 const struct check_opts *o, size_t index, size_t count,
			 const struct rn_otlp_context *otlp_ctx, struct rn_target_result *r,
			 struct rn_target_report *tv)
{
	struct rn_target_cfg base = *tc;
	struct baseline_ctx aa = { cfg,           o,        tc,
				   &base,         index,    count,
				   count + index, otlp_ctx, RN_PIN_UNDECIDED,
				   { 0 },         { 0 } };
	struct planted pl;
	struct rn_calibrate_sides sides = { baseline_run_one, &aa, &pl, plant_argv };
	struct rn_target_result more[3], *res[4] = { r, &more[0], &more[1], &more[2] };
	struct rn_baseline bl;
	struct rn_baseline_plan plan;
	struct run_plan rp;
	char *base_name, *planted_name;
	size_t i;
	int rc;

	memset(&bl, 0, sizeof(bl));
	bl.tolerance = RN_BASELINE_TOLERANCE;
	base_name = rn_xstrdup(tc->name);
	planted_name = rn_xstrdup(tc->name);
	{
		struct rn_buf b;

		rn_buf_init(&b, 0);
		rn_buf_addf(&b, "%s (A)", tc->name);
		free(base_name);
		base_name = rn_buf_detach(&b, NULL);
		rn_buf_init(&b, 0);
		rn_buf_addf(&b, "%s (planted)", tc->name);
		free(planted_name);
		planted_name = rn_buf_detach(&b, NULL);
	}
	base.name = base_name;
	memset(&pl, 0, sizeof(pl));
	pl.tc = *tc;
	pl.tc.name = planted_name;
	pl.c = aa;
	pl.c.head = &pl.tc;
	plan_runs(cfg, tc, o, false, &rp);
	plan.warmup = tc->warmup;
	plan.pairs = rp.timing;
	plan.counting = 0;
	plan.max_pairs = cfg->regression.max_runs;
	plan.budget_ns = (uint64_t)(cfg->regression.time_budget_s * 1e9);
	rn_target_result_init(&more[0], base.name);
	rn_target_result_init(&more[1], pl.tc.name);
	rn_target_result_init(&more[2], base.name);
	rc = rn_calibrate_target(&bl, &plan, &cfg->regression, &o->cal, tc->name, &sides, res, tv);
	for (i = 0; i < 3; i++)
		rn_target_result_release(&more[i]);
	if (pl.argv) {
		free(pl.argv[2]);
		free(pl.argv);
	}
	free(base_name);
	free(planted_name);
	return rc;
}

/* --baseline: set up the base tree and check that every selected target is built there.
 * Returns 0, RN_EXIT_USAGE (no such tree) or RN_EXIT_TARGET (not built). */
static int baseline_setup(const struct check_opts *o, const struct rn_config *cfg,
			  struct rn_baseline *bl, struct rn_target_cfg *base_tcs)
{
	size_t i, idx = 0;
	int rc = 0;

	if (rn_baseline_init(bl, o->baseline, cfg->dir))
		return RN_EXIT_USAGE;
	if (o->baseline_tolerance > 0)
		bl->tolerance = o->baseline_tolerance;
	bl->confirm = o->confirm;
	for (i = 0; i < cfg->ntargets; i++) {
		if (!selected(o, cfg->targets[i].name))
			continue;
		rn_baseline_target(bl, &cfg->targets[i], &base_tcs[idx]);
		if (!rc && rn_baseline_check_built(bl, &cfg->targets[i], &base_tcs[idx]))
			rc = RN_EXIT_TARGET;
		idx++;
	}
	return rc;
}

static char *path_join(const char *dir, const char *name, const char *ext)
{
	struct rn_buf b;

	rn_buf_init(&b, 0);
	rn_buf_addf(&b, "%s/%s%s", dir, name, ext);
	return rn_buf_detach(&b, NULL);
}

/* Golden comparison of one target: appends verdicts. Returns RN_EXIT_CONFIG when the golden
 * file is unusable (reported as ERROR verdict too), else 0. */
static int compare_golden(const struct rn_config *cfg, const struct rn_target_cfg *tc,
			  struct rn_target_result *r, struct rn_target_report *tv)
{
	char *path = path_join(cfg->golden_dir, r->name, ".json");
	struct rn_golden g;
	struct rn_diag d;
	struct rn_verdict_result *out = NULL;
	const char *rel;
	size_t nout = 0, i;
	int rc = 0;

	/* Only a path that does not exist means "no golden trace": a dangling or looping link,
	 * a FIFO or a device is an unusable golden trace (rn_golden_read says why). */
	{
		struct stat st;

		if (lstat(path, &st) && errno == ENOENT) {
			free(path);
			return 0;
		}
	}
	/* Reports name the golden relative to the config, as it is committed. */
	{
		size_t dl = strlen(cfg->dir);

		rel = !strncmp(path, cfg->dir, dl) && path[dl] == '/' ? path + dl + 1 : path;
	}
	tv->golden_file = rn_xstrdup(rel);
	if (rn_golden_read(path, &g, &d)) {
		struct rn_verdict_result *v = rn_target_report_push(tv);
		char *line = rn_diag_oneline(&d);

		rn_diag_print(&d, false);
		v->assertion = rn_xstrdup("golden");
		v->type = rn_xstrdup("regression");
		v->target = rn_xstrdup(r->name);
		v->verdict = RN_VERDICT_ERROR;
		v->message = line;
		free(path);
		return RN_EXIT_CONFIG;
	}
	{
		char **argv_rel = rn_report_golden_argv(cfg, tc->argv);

		rn_golden_identity_warn(&g, rel, r->name, (const char *const *)argv_rel);
		rn_otlp_argv_free(argv_rel);
	}
	if (rn_target_result_measured(r) && r->status == RN_RUN_OK &&
	    !rn_golden_compare(&g, rel, r, &cfg->regression, &out, &nout)) {
		for (i = 0; i < nout; i++)
			*rn_target_report_push(tv) = out[i];
		free(out);
	}
	rn_golden_release(&g);
	free(path);
	return rc;
}

/* Exit code of the whole check from its verdicts (priority documented in --help). */
static int exit_code_of(const struct rn_target_report *tvs, size_t n, int worst_other,
			bool not_judged_fails)
{
	bool fail = false, error = false;
	size_t i, k;

	for (i = 0; i < n; i++) {
		for (k = 0; k < tvs[i].nverdicts; k++) {
			enum rn_verdict v = tvs[i].verdicts[k].verdict;

			if (v == RN_VERDICT_FAIL || v == RN_VERDICT_NO_DATA ||
			    (v == RN_VERDICT_NOT_JUDGED && not_judged_fails))
				fail = true;
			if (v == RN_VERDICT_ERROR)
				error = true;
		}
	}
	if (worst_other)
		return worst_other;
	if (error)
		return RN_EXIT_TARGET;
	return fail ? RN_EXIT_FAIL : RN_EXIT_OK;
}

int rn_check_exit_code(const struct rn_target_report *tvs, size_t n, int worst_other,
		       bool not_judged_fails)
{
	return exit_code_of(tvs, n, worst_other, not_judged_fails);
}

static bool want_target(void *ctx, const char *name)
{
	return selected(ctx, name);
}

/* Before the first run: every golden trace the check will read (an unusable one marks its
 * target in bad_golden, cfg->ntargets entries: it is not run, its golden verdict is ERROR),
 * and the directories of the outputs it will write (created when missing), all reported at
 * once. Returns 0 or RN_EXIT_OUTPUT. */
static int preflight(const struct rn_config *cfg, const struct check_opts *o, bool *bad_golden)
{
	const char *paths[] = { o->rep.junit ? o->rep.junit : cfg->junit,
				o->trace_out ? o->trace_out : cfg->trace_out,
				o->rep.otlp_file ? o->rep.otlp_file : cfg->otlp_file,
				o->rep.bench_json };
	const char *what[] = { "JUnit report", "timeline", "OTLP file", "benchmark JSON" };
	bool out_failed = false;
	size_t i;

	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		if (rn_preflight_output(paths[i], what[i]))
			out_failed = true;
	if (!out_failed && !o->no_golden && cfg->regression.enabled)
		rn_preflight_goldens(cfg, want_target, (void *)o, o->rep.color, o->rep.github,
				     RN_DIAG_MAX_ERRORS, bad_golden);
	return out_failed ? RN_EXIT_OUTPUT : 0;
}

/*
 * `renacer check` is plan -> run -> judge -> report:
 *   plan    the selected targets in config order, each with its base side under --baseline
 *           (check_plan); per target, the runs it needs (plan_runs)
 *   run     each target's runs into its struct rn_target_result (run_target, run_baseline)
 *   judge   the target's verdicts into its struct rn_target_report (judge_target), right
 *           after its runs, so a target interrupted half-way is judged on what it has
 *   report  one struct rn_outcome handed to every reporter of runner/reporter.h
 */
struct check {
	struct check_opts o;
	struct rn_config cfg;
	bool have_cfg; /* cfg is loaded */
	struct rn_otlp_cfg otlp_cfg;
	bool have_otlp; /* otlp_cfg is initialized */
	struct rn_otlp_context otlp_ctx;
	struct rn_baseline bl; /* --baseline: the base tree */
	bool *bad_golden;      /* per config target: its golden trace is unusable */
	/* the plan: selected targets */
	size_t *sel; /* [nsel] indexes into cfg.targets */
	size_t nsel;
	struct rn_target_cfg *base_tcs; /* --baseline: [nsel] base sides, or NULL */
	/* the outcome */
	struct rn_target_result *results; /* [nsel] */
	struct rn_target_result *bases;   /* --baseline: [nsel], or NULL */
	struct rn_target_report *tvs;     /* [nsel] */
	int worst;                        /* first exit code not derived from verdicts */
	int interrupted;                  /* signal that interrupted the check, or 0 */
	uint64_t check_start;             /* Unix ns */
};

/* --build: each selected target's `build` command, /bin/sh -c in its cwd, its output on
 * stderr (stdout would mix with the report's consumers). 0, or RN_EXIT_TARGET at the first
 * that fails (the check stops: a stale binary would be judged). */
static int check_build(const struct check *c)
{
	size_t i;

	for (i = 0; i < c->nsel; i++) {
		const struct rn_target_cfg *tc = &c->cfg.targets[c->sel[i]];
		pid_t pid;
		int status;

		if (!tc->build)
			continue;
		if (!c->o.quiet)
			fprintf(stderr, "renacer check: building '%s': %s\n", tc->name, tc->build);
		pid = fork();
		if (pid < 0) {
			rn_error("cannot fork for the build of '%s': %s", tc->name,
				 strerror(errno));
			return RN_EXIT_TARGET;
		}
		if (!pid) {
			if (tc->cwd && chdir(tc->cwd))
				_exit(126);
			dup2(2, 1);
			execl("/bin/sh", "sh", "-c", tc->build, (char *)NULL);
			_exit(127);
		}
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			rn_error("target '%s': build command failed (%s %d): %s", tc->name,
				 WIFEXITED(status) ? "exit" : "signal",
				 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
				 tc->build);
			return RN_EXIT_TARGET;
		}
	}
	return 0;
}

/* Parse the command line. Returns -1 to go on, else the exit code to return at once. */
static int check_args(struct check *c, int argc, char **argv, int *first)
{
	opts_init(&c->o);
	if (rn_cli_parse(&rn_cmd_check_def, argc, argv, on_option, &c->o, first))
		return RN_EXIT_USAGE;
	if (c->o.help) {
		rn_cli_help(&rn_cmd_check_def, stdout);
		return RN_EXIT_OK;
	}
	if (!c->o.baseline && (c->o.confirm || c->o.baseline_tolerance > 0)) {
		rn_error("--confirm and --baseline-tolerance need --baseline DIR");
		return RN_EXIT_USAGE;
	}
	return -1;
}

/* Everything before the plan: the config (plus a target from the command line), the
 * selection, the collectors, the preflight and the OTLP settings. Returns 0 or an exit code. */
static int check_prepare(struct check *c, int argc, char **argv, int first)
{
	struct check_opts *o = &c->o;
	struct rn_config *cfg = &c->cfg;
	int rc;

	rc = load_config(cfg, o->config, o->rep.color, false, o->rep.github);
	if (rc)
		return rc;
	c->have_cfg = true;
	if (first < argc) /* renacer check [--config FILE] -- ./app args */
		rn_config_add_cli_target(cfg, argv + first);
	if (!cfg->ntargets) {
		rn_error("'%s' has no [[target]]: add one, or name the program after '--' "
			 "(renacer check -- ./app args)",
			 cfg->path);
		return RN_EXIT_USAGE;
	}
	rc = check_selection(o, cfg);
	if (!rc && o->shard.count)
		o->shard_names = rn_shard_targets(cfg, o->only, &o->shard, o->shard_balance);
	if (!rc)
		rc = check_collectors(cfg, o);
	c->bad_golden = rn_xcalloc(cfg->ntargets, sizeof(*c->bad_golden));
	if (!rc)
		rc = preflight(cfg, o, c->bad_golden);
	if (rc)
		return rc;
	rn_otlp_cfg_init(&c->otlp_cfg);
	c->have_otlp = true;
	rc = rn_report_opts_otlp(&o->rep, cfg, &c->otlp_cfg);
	if (rc)
		return rc;
	rn_otlp_context_init(&c->otlp_ctx);
	o->otlp_spool = rn_otlp_cfg_needs_spool(&c->otlp_cfg) &&
		(c->otlp_cfg.enabled || o->rep.otlp_file || cfg->otlp_file);
	return 0;
}

/* The plan: the selected targets, the outcome's storage, the base tree. Returns 0 or an exit
 * code. */
static int check_plan(struct check *c)
{
	size_t i;
	int rc;

	c->sel = rn_xcalloc(c->cfg.ntargets + 1, sizeof(*c->sel));
	for (i = 0; i < c->cfg.ntargets; i++)
		if (selected(&c->o, c->cfg.targets[i].name))
			c->sel[c->nsel++] = i;
	if (c->o.shard.count && !c->nsel)
		rn_note("shard %u/%u has no targets: its results file lists none", c->o.shard.index,
			c->o.shard.count);
	c->results = rn_xcalloc(c->nsel, sizeof(*c->results));
	c->tvs = rn_xcalloc(c->nsel, sizeof(*c->tvs));
	if (!c->o.baseline)
		return 0;
	c->base_tcs = rn_xcalloc(c->nsel, sizeof(*c->base_tcs));
	c->bases = rn_xcalloc(c->nsel, sizeof(*c->bases));
	rc = baseline_setup(&c->o, &c->cfg, &c->bl, c->base_tcs);
	if (rc)
		return rc;
	for (i = 0; i < c->nsel; i++)
		rn_target_result_init(&c->bases[i], c->base_tcs[i].name);
	return 0;
}

/* Run selected target `idx` (or mark why it is not run). */
static void check_run(struct check *c, size_t idx)
{
	const struct rn_target_cfg *tc = &c->cfg.targets[c->sel[idx]];
	struct rn_target_result *r = &c->results[idx];
	int rc = 0;

	rn_target_result_init(r, tc->name);
	c->tvs[idx].result = r;
	if (c->bad_golden[c->sel[idx]]) {
		/* its golden trace is unusable (reported before the first run): the runs could
		 * not be judged against it */
		r->status = RN_RUN_ERROR;
		r->error = rn_xstrdup("not run: its golden trace is unusable");
	} else if (c->interrupted) {
		r->status = RN_RUN_INTERRUPTED;
		r->error = rn_xstrdup("not run: renacer was interrupted");
	} else if (c->o.calibrate) {
		rc = run_calibrate(&c->cfg, tc, &c->o, idx, c->nsel, &c->otlp_ctx, r, &c->tvs[idx]);
	} else if (c->o.baseline) {
		rc = run_baseline(&c->cfg, tc, &c->base_tcs[idx], &c->o, &c->bl, idx, c->nsel,
				  &c->otlp_ctx, r, &c->bases[idx], &c->tvs[idx]);
	} else {
		rc = run_target(&c->cfg, tc, &c->o, idx, c->nsel, &c->otlp_ctx, false, r);
	}
	if (rc == -ECANCELED)
		c->interrupted = rn_run_interrupted();
}

/* Known data loss against a golden comparison: the GPU metrics read GPU spans; the span and
 * copy counts can only have been lowered by lost spans. */
static void golden_gaps(const struct rn_target_result *r, struct rn_verdict_result *v)
{
	static const struct {
		const char *name;
		bool count;
	} gpu[] = { { "golden:gpu_busy", false },
		    { "golden:gpu_dispatches", true },
		    { "golden:gpu_copy_bytes", true } };
	size_t i;

	for (i = 0; i < sizeof(gpu) / sizeof(gpu[0]); i++)
		if (v->assertion && !strcmp(v->assertion, gpu[i].name))
			rn_verdict_apply_gaps(r, RN_GAP_GPU_SPANS, gpu[i].count, v);
}

/* The verdicts of selected target `idx`: its assertions, its golden trace, and ERROR for a
 * target that failed to run and has no other verdict. */
static void judge_target(struct check *c, size_t idx)
{
	const struct rn_config *cfg = &c->cfg;
	const struct rn_target_cfg *tc = &cfg->targets[c->sel[idx]];
	struct rn_target_result *r = &c->results[idx];
	struct rn_target_report *tv = &c->tvs[idx];
	size_t k;

	for (k = 0; k < cfg->nassertions && !c->o.calibrate; k++)
		if (rn_assertion_applies(&cfg->assertions[k], tc->name))
			rn_assertion_evaluate(&cfg->assertions[k], r, rn_target_report_push(tv));
	if (!c->o.no_golden && cfg->regression.enabled && !c->interrupted) {
		size_t first = tv->nverdicts;
		int rc = compare_golden(cfg, tc, r, tv);

		if (rc && !c->worst)
			c->worst = rc;
		for (k = first; k < tv->nverdicts; k++)
			golden_gaps(r, &tv->verdicts[k]);
	}
	if (r->status != RN_RUN_OK && !tv->nverdicts) {
		/* A target with no assertion that failed to run still shows up as ERROR. */
		struct rn_verdict_result *v = rn_target_report_push(tv);

		v->assertion = rn_xstrdup("run");
		v->type = rn_xstrdup("run");
		v->target = rn_xstrdup(tc->name);
		v->verdict = RN_VERDICT_ERROR;
		v->message = rn_xstrdup(r->error ? r->error : "target failed");
	}
}

/* Hand the outcome to every reporter. Returns the check's exit code. */
static int check_report(struct check *c)
{
	const struct check_opts *o = &c->o;
	const struct rn_config *cfg = &c->cfg;
	struct rn_report_outputs out;
	struct rn_outcome oc = {
		.cfg = cfg,
		.config_path = cfg->path,
		.targets = c->results,
		.reports = c->tvs,
		.ntargets = c->nsel,
		.bases = c->bases,
		.shard = o->shard,
		.start_unix_ns = c->check_start,
		.worst_other = c->worst,
		.interrupted = c->interrupted,
		.not_judged_fails = cfg->regression.not_judged_fails,
	};
	const char *const **argvs = rn_xcalloc(2 * c->nsel + 1, sizeof(*argvs));
	size_t i, k = 0;
	int rc;

	rn_report_opts_outputs(&o->rep, cfg, &out);
	out.trace_out = o->trace_out ? o->trace_out : cfg->trace_out;
	out.otlp = &c->otlp_cfg;
	out.otlp_ctx = &c->otlp_ctx;
	out.history_source = "check";
	out.rerun_of = o->rerun_of;
	out.quiet = o->quiet;
	out.wide = o->wide;
	oc.exit_code = exit_code_of(c->tvs, c->nsel, c->worst, cfg->regression.not_judged_fails);
	if (c->interrupted)
		oc.exit_code = rn_exit_for_signal(c->interrupted);
	for (i = 0; i < c->nsel; i++)
		argvs[k++] = (const char *const *)cfg->targets[c->sel[i]].argv;
	for (i = 0; c->base_tcs && i < c->nsel; i++)
		argvs[k++] = (const char *const *)c->base_tcs[i].argv;
	oc.argv = argvs;
	if (o->rep.results)
		oc.suite = rn_shard_suite(cfg, o->only, &oc.nsuite);
	rc = rn_report_all(&out, &oc);
	free((void *)oc.suite);
	free(argvs);
	return rc;
}

static void check_release(struct check *c)
{
	size_t i;

	for (i = 0; c->tvs && i < c->nsel; i++) {
		rn_target_report_release(&c->tvs[i]);
		rn_target_result_release(&c->results[i]);
		if (c->bases)
			rn_target_result_release(&c->bases[i]);
		if (c->base_tcs)
			rn_baseline_target_release(&c->base_tcs[i]);
	}
	free(c->tvs);
	free(c->results);
	free(c->bases);
	free(c->base_tcs);
	free(c->sel);
	rn_baseline_release(&c->bl);
	if (c->have_otlp)
		rn_otlp_cfg_release(&c->otlp_cfg);
	free(c->bad_golden);
	if (c->have_cfg)
		rn_config_release(&c->cfg);
	free(c->o.only);
	free(c->o.shard_names);
}

int rn_cmd_check(int argc, char **argv)
{
	struct check c;
	size_t i;
	int first, rc;

	memset(&c, 0, sizeof(c));
	c.check_start = realtime_ns();
	rc = check_args(&c, argc, argv, &first);
	if (rc >= 0) {
		free(c.o.only);
		return rc;
	}
	rc = check_prepare(&c, argc, argv, first);
	if (!rc)
		rc = check_plan(&c);
	if (!rc && c.o.build)
		rc = check_build(&c);
	if (!rc) {
		if (!c.o.quiet)
			rn_report_header(c.o.rep.color, c.cfg.path, c.nsel, c.cfg.nassertions);
		for (i = 0; i < c.nsel; i++) {
			check_run(&c, i);
			judge_target(&c, i);
		}
		rc = check_report(&c);
	}
	check_release(&c);
	return rc;
}

int rn_cmd_calibrate(int argc, char **argv)
{
	struct check c;
	size_t i;
	int first, rc;

	memset(&c, 0, sizeof(c));
	c.check_start = realtime_ns();
	opts_init(&c.o);
	if (rn_cli_parse(&rn_cmd_calibrate_def, argc, argv, on_option, &c.o, &first))
		return RN_EXIT_USAGE;
	if (c.o.help) {
		rn_cli_help(&rn_cmd_calibrate_def, stdout);
		free(c.o.only);
		return RN_EXIT_OK;
	}
	c.o.calibrate = true;
	c.o.no_golden = true;
	rc = check_prepare(&c, argc, argv, first);
	if (!rc)
		rc = check_plan(&c);
	if (!rc) {
		if (!c.o.quiet)
			rn_report_header(c.o.rep.color, c.cfg.path, c.nsel, 0);
		for (i = 0; i < c.nsel; i++) {
			check_run(&c, i);
			judge_target(&c, i);
		}
		rc = check_report(&c);
	}
	check_release(&c);
	return rc;
}

int rn_cmd_validate(int argc, char **argv)
{
	struct check_opts o;
	struct rn_config cfg;
	int first, rc;

	opts_init(&o);
	if (rn_cli_parse(&rn_cmd_validate_def, argc, argv, on_option, &o, &first))
		return RN_EXIT_USAGE;
	if (o.help) {
		rn_cli_help(&rn_cmd_validate_def, stdout);
		return RN_EXIT_OK;
	}
	if (first < argc) {
		rn_error("renacer validate: unexpected argument '%s'", argv[first]);
		return RN_EXIT_USAGE;
	}
	rc = load_config(&cfg, o.config, o.rep.color, o.quiet, o.rep.github);
	if (rc)
		return rc;
	if (!cfg.ntargets && !cfg.nassertions) {
		struct rn_diag d;

		/* a check of it would judge nothing */
		rn_diag_init(&d, cfg.path, NULL, 0);
		rn_diag_set(&d, 0, 0,
			    "empty config: no [[target]] and no [[assertion]] "
			    "(renacer.toml.example shows every key)");
		rn_diag_print(&d, o.rep.color);
		if (o.rep.github)
			rn_github_report_diag(&d, RN_EXIT_CONFIG);
		rn_config_release(&cfg);
		return RN_EXIT_CONFIG;
	}
	if (rn_config_check_feasible(&cfg, o.rep.color)) {
		rn_config_release(&cfg);
		return RN_EXIT_CONFIG;
	}
	/* the golden traces check would read: a corrupt one fails here, not after the runs */
	if (rn_preflight_goldens(&cfg, NULL, NULL, o.rep.color, o.rep.github, RN_DIAG_MAX_ERRORS,
				 NULL)) {
		rn_config_release(&cfg);
		return RN_EXIT_CONFIG;
	}
	if (!o.quiet)
		fprintf(stderr, "%s: ok (%zu target%s, %zu assertion%s)\n", cfg.path, cfg.ntargets,
			cfg.ntargets == 1 ? "" : "s", cfg.nassertions,
			cfg.nassertions == 1 ? "" : "s");
	rn_config_release(&cfg);
	return RN_EXIT_OK;
}

int rn_cmd_golden(int argc, char **argv)
{
	struct check_opts o;
	struct rn_config cfg;
	struct rn_report_outputs out;
	struct rn_outcome oc;
	size_t i, idx = 0, nsel = 0;
	int first, rc;

	opts_init(&o);
	if (argc < 2 || strcmp(argv[1], "update")) {
		if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
			rn_cli_help(&rn_cmd_golden_def, stdout);
			return RN_EXIT_OK;
		}
		rn_error("usage: %s", rn_cmd_golden_def.usage);
		return RN_EXIT_USAGE;
	}
	if (rn_cli_parse(&rn_cmd_golden_def, argc - 1, argv + 1, on_option, &o, &first))
		return RN_EXIT_USAGE;
	if (o.help) {
		rn_cli_help(&rn_cmd_golden_def, stdout);
		free(o.only);
		return RN_EXIT_OK;
	}
	rc = load_config(&cfg, o.config, o.rep.color, false, false);
	if (rc) {
		free(o.only);
		return rc;
	}
	rc = check_selection(&o, &cfg);
	if (!rc && o.shard.count)
		o.shard_names = rn_shard_targets(&cfg, o.only, &o.shard, o.shard_balance);
	if (!rc)
		rc = check_collectors(&cfg, &o);
	if (rc)
		goto out;
	if (mkdir(cfg.golden_dir, 0755) && errno != EEXIST) {
		rn_error("cannot create golden trace directory '%s': %s", cfg.golden_dir,
			 strerror(errno));
		rc = RN_EXIT_OUTPUT;
		goto out;
	}
	for (i = 0; i < cfg.ntargets; i++)
		nsel += selected(&o, cfg.targets[i].name);
	o.min_runs = cfg.golden_runs;
	memset(&out, 0, sizeof(out));
	out.golden_dir = cfg.golden_dir;
	out.history = o.rep.history;
	out.color = o.rep.color;
	out.quiet = o.quiet;
	memset(&oc, 0, sizeof(oc));
	oc.cfg = &cfg;
	oc.config_path = cfg.path;
	oc.ntargets = 1;
	for (i = 0; i < cfg.ntargets; i++) {
		const struct rn_target_cfg *tc = &cfg.targets[i];
		struct rn_target_result r;
		const char *const *cmd = (const char *const *)tc->argv;

		if (!selected(&o, tc->name))
			continue;
		rn_target_result_init(&r, tc->name);
		if (run_target(&cfg, tc, &o, idx++, nsel, NULL, true, &r) == -ECANCELED) {
			int sig = rn_run_interrupted();

			rn_target_result_release(&r);
			rc = rn_exit_for_signal(sig);
			goto out;
		}
		if (r.status != RN_RUN_OK || !r.nruns) {
			rn_error("target '%s': %s; golden trace not written", tc->name,
				 r.error ? r.error : "no measured run");
			rn_target_result_release(&r);
			rc = RN_EXIT_TARGET;
			continue;
		}
		/* the golden-files reporter, for this one target */
		oc.targets = &r;
		oc.argv = &cmd;
		if (rn_golden_reporter.write(&out, &oc))
			rc = RN_EXIT_OUTPUT;
		rn_target_result_release(&r);
		/* the behaviour traces its equivalence assertions compare with */
		{
			int erc = rn_golden_record_behaviour(&cfg, tc, o.quiet);

			if (erc && !rc)
				rc = erc;
		}
	}
out:
	rn_config_release(&cfg);
	free(o.only);
	free(o.shard_names);
	return rc;
}
