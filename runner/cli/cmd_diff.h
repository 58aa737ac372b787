/*
 * cmd_diff.h - `renacer diff A B`: behaviour equivalence of two recorded traces.
 *
 *     renacer diff [--min-confidence X] [--ignore PATTERN]... [--keep-system] [--no-normalize]
 *                  [--max N] A B
 *
 * A and B are `renacer trace -f --format jsonl` (or `--format json`) outputs; the comparison
 * is assertions/equivalence.h's.
 */
#ifndef RN_CMD_DIFF_H
#define RN_CMD_DIFF_H

#include "cli.h"

/* Run `renacer diff`. argv[0] is "diff". Returns RN_EXIT_OK when A and B are equivalent,
 * RN_EXIT_FAIL when they are not, RN_EXIT_USAGE for a bad command line and RN_EXIT_CONFIG
 * when a trace cannot be read. */
int rn_cmd_diff(int argc, char **argv);

/* The option table of `renacer diff` (for dispatch, --help and the man page). */
extern const struct rn_command rn_cmd_diff_def;

#endif
