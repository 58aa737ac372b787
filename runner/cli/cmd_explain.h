/*
 * cmd_explain.h - `renacer explain BASE HEAD`: where a regression's time went, from two
 * folded-stack profiles (`renacer trace --profile`): the ranked list of grown call paths and
 * a differential flame graph (runner/check/explain.h, runner/report/flamegraph.h).
 */
#ifndef RN_CMD_EXPLAIN_H
#define RN_CMD_EXPLAIN_H

#include "cli.h"

/* Run the command; returns the exit code (0; 2 usage; 3 a profile cannot be read or is not
 * folded stacks; 6 the SVG cannot be written). */
int rn_cmd_explain(int argc, char **argv);

/* The command's definition (options, --help, man page). */
extern const struct rn_command rn_cmd_explain_def;

#endif
