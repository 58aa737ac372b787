/*
 * cmd_validate.c - `renacer validate`: parse and check renacer.toml without running anything.
 */
#include "cmd_validate.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cmd_check.h"
#include "exitcode.h"
#include "log.h"
#include "config.h"
#include "github.h"
#include "conditions.h"
#include "preflight.h"

static const struct rn_option validate_options[] = {
	{ RN_CO_CONFIG, "config", 'c', RN_OPT_REQUIRED, "FILE",
	  "config file (default renacer.toml)" },
	{ RN_CO_QUIET, "quiet", 'q', RN_OPT_NONE, NULL, "print nothing on success" },
	{ RN_RO_NO_COLOR, "no-color", 0, RN_OPT_NONE, NULL, "no colors (also NO_COLOR=1)" },
	{ RN_CO_HELP, "help", 'h', RN_OPT_NONE, NULL, "show this help" },
	{ 0, NULL, 0, RN_OPT_NONE, NULL, NULL },
};

const struct rn_command rn_cmd_validate_def = {
	"validate",
	"renacer validate [--config FILE]",
	"parse and check renacer.toml without running anything (fast enough for a pre-commit hook)",
	NULL,
	validate_options,
};

int rn_cmd_validate(int argc, char **argv)
{
	struct rn_check_opts o;
	struct rn_config cfg;
	int first, rc;

	rn_check_opts_init(&o);
	if (rn_cli_parse(&rn_cmd_validate_def, argc, argv, rn_check_on_option, &o, &first))
		return RN_EXIT_USAGE;
	if (o.help) {
		rn_cli_help(&rn_cmd_validate_def, stdout);
		return RN_EXIT_OK;
	}
	if (first < argc) {
		rn_error("renacer validate: unexpected argument '%s'", argv[first]);
		return RN_EXIT_USAGE;
	}
	rc = rn_check_load_config(&cfg, o.config, o.rep.color, o.quiet, o.rep.github);
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
				 NULL, NULL)) {
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
