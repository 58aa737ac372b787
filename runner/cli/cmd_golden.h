/*
 * cmd_golden.h - `renacer golden update`: run the targets and write their golden traces.
 */
#ifndef RN_CMD_GOLDEN_H
#define RN_CMD_GOLDEN_H

#include "cli.h"

/* `renacer golden update [--config FILE] [--target NAME]`: run targets, write golden traces
 * atomically (and the behaviour traces their equivalence assertions compare with). argv[0] is
 * "golden". Returns an enum rn_exit value. */
int rn_cmd_golden(int argc, char **argv);

/* The option table of `renacer golden` (for dispatch, --help and the man page). */
extern const struct rn_command rn_cmd_golden_def;

#endif
