/*
 * cmd_check.c - `renacer check`: its options, the option handler check, calibrate, validate
 * and golden update share, and the hand-over to the check engine (check.h).
 */
#include "cmd_check.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "exitcode.h"
#include "log.h"
#include "report_opts.h"
#include "shard.h"
#include "xalloc.h"

static const struct rn_option check_options[] = {
	{ RN_CO_CONFIG, "config", 'c', RN_OPT_REQUIRED, "FILE",
	  "config file (default renacer.toml)" },
	{ RN_CO_ASSERT, "assert", 0, RN_OPT_REQUIRED, "FILE",
	  "same as --config (original renacer spelling)" },
	{ RN_CO_TARGET, "target", 't', RN_OPT_REQUIRED, "NAME",
	  "check only this target (repeatable)" },
	{ RN_CO_RUNS, "runs", 0, RN_OPT_REQUIRED, "N", "override every target's timing runs" },
	{ RN_CO_NO_GOLDEN, "no-golden", 0, RN_OPT_NONE, NULL, "do not compare with golden traces" },
	{ RN_CO_BUILD, "build", 0, RN_OPT_NONE, NULL,
	  "run each selected target's `build` command first (/bin/sh -c, in its cwd); stop at a failure" },
	{ RN_CO_BASELINE, "baseline", 0, RN_OPT_REQUIRED, "DIR",
	  "run every target also in the built base checkout DIR, interleaved, and judge head vs base" },
	{ RN_CO_BASELINE_TOLERANCE, "baseline-tolerance", 0, RN_OPT_REQUIRED, "PCT",
	  "slowdown of head over base that fails, percent of the base median (default " RN_CFG_STR(
		  RN_BASELINE_TOLERANCE_PCT) ")" },
	{ RN_CO_CONFIRM, "confirm", 0, RN_OPT_NONE, NULL,
	  "with --baseline: re-measure a failing timing verdict once before it fails" },
	{ RN_CO_NO_RATCHET, "no-ratchet", 0, RN_OPT_NONE, NULL,
	  "with --baseline: leave out the [ratchet] comparison (head vs base only)" },
	{ RN_CO_PAIR_SCHEME, "pairs", 0, RN_OPT_REQUIRED, "HOW",
	  "with --baseline: \"duet\" (both sides at once on two CPUs) or \"sequential\" timing pairs for every target" },
	{ RN_CO_TRACE_OUT, "trace-out", 0, RN_OPT_REQUIRED, "FILE",
	  "write a Perfetto/Chrome trace-event JSON timeline of each target's last measured run" },
	{ RN_CO_NO_PROPAGATE, "no-propagate", 0, RN_OPT_NONE, NULL,
	  "do not put TRACEPARENT into targets' environment" },
	{ RN_CO_DRIVER, "driver", 0, RN_OPT_REQUIRED, "DRIVER",
	  "ptrace, ebpf or auto for every target (overrides each target's driver)" },
	{ RN_CO_RERUN_OF, "rerun-of", 0, RN_OPT_REQUIRED, "COMMIT",
	  "record the check as a re-run of COMMIT (flips between re-runs: renacer history quality)" },
	{ RN_CO_QUIET, "quiet", 'q', RN_OPT_NONE, NULL, "no progress lines" },
	{ RN_CO_WIDE, "wide", 0, RN_OPT_NONE, NULL,
	  "console table with every column (GOLDEN, BASE), whole names and REASON wrapped" },
	{ RN_CO_VERBOSE, "verbose", 'v', RN_OPT_NONE, NULL,
	  "console: the statistics of every non-passing row, not only of the failing ones" },
	{ RN_CO_SHARD, "shard", 0, RN_OPT_REQUIRED, "K/N",
	  "run only shard K of N (targets split by a hash of their name; see renacer merge)" },
	{ RN_CO_SHARD_BALANCE, "shard-balance", 0, RN_OPT_REQUIRED, "HOW",
	  "name (default: shard_weight, else hash only) or golden (durations of the golden traces)" },
	/* clang-format off */
	RN_REPORT_OPTIONS(RN_REPORT_OPTION_ROW)
	/* clang-format on */
	{ RN_CO_HELP, "help", 'h', RN_OPT_NONE, NULL, "show this help" },
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
	"alternating (or at once on two CPUs: pairs = \"duet\"), and adds baseline:<metric> rows:\n"
	"times by the Wilcoxon signed-rank test on the paired differences with a Hodges-Lehmann\n"
	"interval (FAIL, PASS, or inconclusive as WARN), counts and memory against [regression]'s\n"
	"tolerances.",
	check_options,
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

/* --effect PCT, --plant PCT and --pairs N of the calibration. 0 or -1. */
static int on_calibration_option(struct rn_check_opts *o, int id, const char *arg)
{
	long n;

	if (id == RN_CO_PAIRS) {
		if (parse_long(arg, 2, 1000, &n))
			return rn_error("--pairs needs an integer between 2 and 1000, found '%s'",
					arg);
		o->cal.pairs = (unsigned)n;
		return 0;
	}
	if (parse_long(arg, 1, 1000, &n))
		return rn_error("--%s needs a whole percentage between 1 and 1000, found '%s'",
				id == RN_CO_EFFECT ? "effect" : "plant", arg);
	*(id == RN_CO_EFFECT ? &o->cal.effect : &o->cal.plant) = (double)n / 100.0;
	return 0;
}

/* --baseline-tolerance PCT. 0 or -1. */
static int set_baseline_tolerance(struct rn_check_opts *o, const char *arg)
{
	long pct;

	if (parse_long(arg, 1, 100, &pct))
		return rn_error("--baseline-tolerance needs a whole percentage between 1 and 100, "
				"found '%s'",
				arg);
	o->baseline_tolerance = (double)pct / 100.0;
	return 0;
}

int rn_check_on_option(void *ctx, int id, const char *arg)
{
	struct rn_check_opts *o = ctx;

	if (!rn_report_opts_apply(&o->rep, id, arg))
		return 0;
	switch (id) {
	case RN_CO_CONFIG:
	case RN_CO_ASSERT:
		o->config = arg;
		break;
	case RN_CO_TARGET:
		o->only = rn_xrealloc(o->only, (o->nonly + 2) * sizeof(*o->only));
		o->only[o->nonly++] = arg;
		o->only[o->nonly] = NULL;
		break;
	case RN_CO_RUNS:
		if (parse_long(arg, 1, 1000, &o->runs))
			return rn_error("--runs needs an integer between 1 and 1000, found '%s'",
					arg);
		break;
	case RN_CO_NO_GOLDEN:
		o->no_golden = true;
		break;
	case RN_CO_BASELINE:
		o->baseline = arg;
		break;
	case RN_CO_EFFECT:
	case RN_CO_PLANT:
	case RN_CO_PAIRS:
		return on_calibration_option(o, id, arg);
	case RN_CO_CONFIRM:
		o->confirm = true;
		break;
	case RN_CO_NO_RATCHET:
		o->no_ratchet = true;
		break;
	case RN_CO_WRITE:
		o->cal.write = true;
		break;
	case RN_CO_PAIR_SCHEME: {
		int i;

		for (i = 0; rn_pair_scheme_names[i] && strcmp(rn_pair_scheme_names[i], arg); i++)
			;
		if (!rn_pair_scheme_names[i])
			return rn_error("--pairs needs 'duet' or 'sequential', found '%s'", arg);
		o->pairs = i;
		break;
	}
	case RN_CO_BASELINE_TOLERANCE:
		return set_baseline_tolerance(o, arg);
	case RN_CO_TRACE_OUT:
		o->trace_out = arg;
		break;
	case RN_CO_DRIVER:
		o->driver = arg;
		break;
	case RN_CO_NO_PROPAGATE:
		o->no_propagate = true;
		break;
	case RN_CO_QUIET:
		o->quiet = true;
		break;
	case RN_CO_WIDE:
		o->wide = true;
		break;
	case RN_CO_VERBOSE:
		o->verbose = true;
		break;
	case RN_CO_BUILD:
		o->build = true;
		break;
	case RN_CO_HELP:
		o->help = true;
		break;
	case RN_CO_RERUN_OF:
		if (!*arg)
			return rn_error("--rerun-of needs a commit");
		o->rerun_of = arg;
		break;
	case RN_CO_SHARD:
		if (rn_shard_parse(arg, &o->shard))
			return rn_error("--shard needs K/N with 1 <= K <= N <= %d, found '%s'",
					RN_SHARD_MAX, arg);
		break;
	case RN_CO_SHARD_BALANCE:
		if (rn_shard_balance_parse(arg, &o->shard_balance))
			return rn_error("--shard-balance needs 'name' or 'golden', found '%s'",
					arg);
		break;
	default:
		return rn_error("unhandled option %d", id);
	}
	return 0;
}

/* Parse the command line. Returns -1 to go on, else the exit code to return at once. */
static int check_args(struct rn_check_opts *o, int argc, char **argv, int *first)
{
	if (rn_cli_parse(&rn_cmd_check_def, argc, argv, rn_check_on_option, o, first))
		return RN_EXIT_USAGE;
	if (o->help) {
		rn_cli_help(&rn_cmd_check_def, stdout);
		return RN_EXIT_OK;
	}
	if (!o->baseline &&
	    (o->confirm || o->no_ratchet || o->baseline_tolerance > 0 || o->pairs >= 0)) {
		rn_error(
			"--confirm, --no-ratchet, --baseline-tolerance and --pairs need --baseline "
			"DIR");
		return RN_EXIT_USAGE;
	}
	return -1;
}

int rn_cmd_check(int argc, char **argv)
{
	struct rn_check_opts o;
	int first, rc;

	rn_check_opts_init(&o);
	rc = check_args(&o, argc, argv, &first);
	if (rc < 0)
		rc = rn_check_execute(&o, argc, argv, first);
	rn_check_opts_release(&o);
	return rc;
}
