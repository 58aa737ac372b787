/*
 * cmd_init.h - `renacer init [-- CMD ARGS]`: a first gate for a command in one step.
 *
 *     renacer init [--config FILE] [--name NAME] [--runs N] [--headroom PCT] [-- CMD ARGS...]
 *
 * Measures CMD through `renacer golden update` on a temporary config beside FILE (which
 * records golden_traces/NAME.json), then writes FILE: a commented renacer.toml with the
 * target and three budgets (critical path, peak RSS, syscalls of one run) from the golden
 * trace's medians, each with its headroom stated. FILE is written atomically and never
 * replaces an existing file. Without CMD it asks for it on a terminal.
 */
#ifndef RN_CMD_INIT_H
#define RN_CMD_INIT_H

#include "cli.h"

/* Run `renacer init`. argv[0] is "init". RN_EXIT_OK when the config and golden trace were
 * written; RN_EXIT_USAGE for a bad command line, no command, or a config that exists (left
 * untouched); the golden update's exit code when measuring failed (then no config is
 * written); RN_EXIT_CONFIG when the golden trace cannot be read back; RN_EXIT_OUTPUT when
 * the config cannot be written. */
int rn_cmd_init(int argc, char **argv);

/* The option table of `renacer init` (for dispatch, --help and the man page). */
extern const struct rn_command rn_cmd_init_def;

#endif
