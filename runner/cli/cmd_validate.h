/*
 * cmd_validate.h - `renacer validate`: parse and check renacer.toml without running anything.
 */
#ifndef RN_CMD_VALIDATE_H
#define RN_CMD_VALIDATE_H

#include "cli.h"

/* `renacer validate [--config FILE]`: parse the config, check that its timing assertions are
 * feasible and its golden traces readable. argv[0] is "validate". Returns RN_EXIT_OK,
 * RN_EXIT_USAGE or RN_EXIT_CONFIG. */
int rn_cmd_validate(int argc, char **argv);

/* The option table of `renacer validate` (for dispatch, --help and the man page). */
extern const struct rn_command rn_cmd_validate_def;

#endif
