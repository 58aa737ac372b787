/*
 * completion.h - shell completion for renacer, generated from the commands table.
 *
 * `renacer completion bash|zsh|fish` prints a script that completes the command words and each
 * command's options from the same struct rn_command tables that feed getopt_long, --help and
 * the man page (runner/cli/main.c's commands[]), so completion cannot drift from them. The
 * build writes the three scripts with the built renacer and installs them where each shell
 * looks: share/bash-completion/completions/renacer, share/zsh/vendor-completions/_renacer,
 * share/fish/vendor_completions.d/renacer.fish.
 */
#ifndef RN_COMPLETION_H
#define RN_COMPLETION_H

#include <stddef.h>
#include <stdio.h>

#include "cli.h"

/* The shells a script is written for, as `renacer completion` names them. */
#define RN_COMPLETION_SHELLS "bash, zsh or fish"

/*
 * Write the completion script for `shell` ("bash", "zsh" or "fish") of the commands
 * cmds[0..n) to `out`. An option whose argument name holds FILE or DIR completes file names;
 * any other argument completes nothing. Returns 0, or -EINVAL (nothing written) when `shell`
 * is none of those.
 */
int rn_completion_write(FILE *out, const char *shell, const struct rn_command *const *cmds,
			size_t n);

#endif
