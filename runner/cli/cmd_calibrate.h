/*
 * cmd_calibrate.h - `renacer calibrate`: what a timing gate detects on this machine (calibrate.h).
 */
#ifndef RN_CMD_CALIBRATE_H
#define RN_CMD_CALIBRATE_H

#include "cli.h"

/* `renacer calibrate [--config FILE] [--target NAME] [--effect PCT] [--pairs N] [--plant PCT]`:
 * A/A noise, detection limits and a planted slowdown per target (runner/check/calibrate.h).
 * argv[0] is "calibrate". Returns an enum rn_exit value: RN_EXIT_FAIL when a planted slowdown
 * was not caught. */
int rn_cmd_calibrate(int argc, char **argv);

/* The option table of `renacer calibrate` (for dispatch, --help and the man page). */
extern const struct rn_command rn_cmd_calibrate_def;

#endif
