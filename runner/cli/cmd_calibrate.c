/*
 * cmd_calibrate.c - `renacer calibrate`: what a timing gate detects on this machine (calibrate.h).
 */
#include "cmd_calibrate.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cmd_check.h"
#include "config.h"
#include "exitcode.h"
#include "log.h"
#include "report_opts.h"

static const struct rn_option calibrate_options[] = {
	{ RN_CO_CONFIG, "config", 'c', RN_OPT_REQUIRED, "FILE",
	  "config file (default renacer.toml)" },
	{ RN_CO_TARGET, "target", 't', RN_OPT_REQUIRED, "NAME",
	  "calibrate only this target (repeatable)" },
	{ RN_CO_EFFECT, "effect", 0, RN_OPT_REQUIRED, "PCT",
	  "the slowdown to gate, percent (default " RN_CFG_STR(
		  RN_CALIBRATE_EFFECT_PCT) "): the pairs it needs are stated" },
	{ RN_CO_PAIRS, "pairs", 0, RN_OPT_REQUIRED, "N",
	  "A/A pairs measured (default " RN_CFG_STR(RN_CALIBRATE_PAIRS) ")" },
	{ RN_CO_PLANT, "plant", 0, RN_OPT_REQUIRED, "PCT",
	  "planted extra CPU work, percent (default: twice the detection limit at max_runs)" },
	{ RN_CO_WRITE, "write", 0, RN_OPT_NONE, NULL,
	  "write each target's baseline_tolerance into the config: the smallest its A/A pairs "
	  "never trip" },
	{ RN_RO_NO_COLOR, "no-color", 0, RN_OPT_NONE, NULL, "no colors (also NO_COLOR=1)" },
	{ RN_CO_QUIET, "quiet", 'q', RN_OPT_NONE, NULL, "no progress lines" },
	{ RN_RO_JUNIT, "junit", 0, RN_OPT_REQUIRED, "FILE",
	  "write JUnit XML to FILE (overrides [report] junit)" },
	{ RN_CO_HELP, "help", 'h', RN_OPT_NONE, NULL, "show this help" },
	{ 0, NULL, 0, RN_OPT_NONE, NULL, NULL },
};

const struct rn_command rn_cmd_calibrate_def = {
	"calibrate",
	"renacer calibrate [--config FILE] [--target NAME] [--effect PCT] [--pairs N] [--plant PCT] "
	"[--write]",
	"measure what a timing gate detects on this machine, and prove it with a planted slowdown",
	"For each target: A/A pairs (the target against itself, run side by side as\n"
	"check --baseline runs base and head) give the noise of cpu_time and wall_time;\n"
	"calibrate:noise states the detection limit at the first look and at [regression]\n"
	"max_runs, and the pairs a change of --effect needs (PASS when it can be gated, WARN\n"
	"when not). Then the head side runs behind a shell busy loop of --plant percent of the\n"
	"target's CPU time and the adaptive comparison of a real check judges it:\n"
	"calibrate:plant is PASS when the gate caught it and FAIL (exit 1) when not.\n"
	"Run it on the machine the gate runs on, with what runs beside it there.\n"
	"--write adds calibrate:tolerance, the smallest tolerance at which the A/A pairs never\n"
	"FAIL at any look and PASS at the last (cpu_time, wall_time, critical_path), and writes\n"
	"it as each [[target]]'s baseline_tolerance into the config (atomically, every other line\n"
	"and comment kept) with a comment naming the pairs, the machine and the date.",
	calibrate_options,
};

int rn_cmd_calibrate(int argc, char **argv)
{
	struct rn_check_opts o;
	int first, rc;

	rn_check_opts_init(&o);
	if (rn_cli_parse(&rn_cmd_calibrate_def, argc, argv, rn_check_on_option, &o, &first)) {
		rn_check_opts_release(&o);
		return RN_EXIT_USAGE;
	}
	if (o.help) {
		rn_cli_help(&rn_cmd_calibrate_def, stdout);
		rn_check_opts_release(&o);
		return RN_EXIT_OK;
	}
	o.calibrate = true;
	o.no_golden = true;
	rc = rn_check_execute(&o, argc, argv, first);
	rn_check_opts_release(&o);
	return rc;
}
