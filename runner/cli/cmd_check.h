/*
 * cmd_check.h - `renacer check`, and the command line it shares with calibrate, validate and
 * golden update (one option-id list, one handler filling struct rn_check_opts).
 */
#ifndef RN_CMD_CHECK_H
#define RN_CMD_CHECK_H

#include "check.h"
#include "cli.h"

/* Option ids of check, calibrate, validate and golden update (struct rn_option.id): short
 * options by their character, the others from 256. */
enum rn_check_opt_id {
	RN_CO_CONFIG = 'C',
	RN_CO_TARGET = 't',
	RN_CO_QUIET = 'q',
	RN_CO_HELP = 'h',
	RN_CO_RUNS = 256,
	RN_CO_NO_GOLDEN,
	RN_CO_TRACE_OUT,
	RN_CO_NO_PROPAGATE,
	RN_CO_ASSERT,
	RN_CO_RERUN_OF,
	RN_CO_SHARD,
	RN_CO_SHARD_BALANCE,
	RN_CO_DRIVER,
	RN_CO_BASELINE,
	RN_CO_CONFIRM,
	RN_CO_BASELINE_TOLERANCE,
	RN_CO_EFFECT,
	RN_CO_PAIRS,
	RN_CO_PLANT,
	RN_CO_WIDE,
	RN_CO_VERBOSE,
	RN_CO_BUILD,
	RN_CO_WRITE,
	RN_CO_PAIR_SCHEME,
	RN_CO_NO_RATCHET,
};

/* The rn_cli_parse callback of the four commands: apply option `id` with `arg` to the
 * struct rn_check_opts `ctx`. Returns 0, or -1 after printing why `arg` is invalid. */
int rn_check_on_option(void *ctx, int id, const char *arg);

/* `renacer check [OPTIONS] [-- CMD [ARGS...]]`. argv[0] is "check" (or "--assert..." for the
 * original renacer's spelling). Returns an enum rn_exit value. */
int rn_cmd_check(int argc, char **argv);

/* The option table of `renacer check` (for dispatch, --help and the man page). */
extern const struct rn_command rn_cmd_check_def;

#endif
