/*
 * cmd_trace.h - `renacer trace`: the strace-compatible face of the trace model, filled by the
 * ptrace collector (or counted in the kernel with --driver ebpf, or by Valgrind with
 * --instructions) and printed through runner/report/report_strace.h and runner/report/report_json.h.
 *
 *     renacer trace [-c] [-C] [-T] [-f] [-e trace=SET] [-o FILE] [--format text|json|jsonl]
 *                   [--driver ptrace|ebpf|auto] [--instructions] -- CMD [ARGS...]
 *     renacer -c -T -- CMD             (no subcommand word; main.c passes argv[0] = "trace")
 *
 * Trace output never goes to the target's stdout: it goes to stderr or to -o FILE. The JSON
 * schema is runner/report/TRACE_JSON.md.
 */
#ifndef RN_CMD_TRACE_H
#define RN_CMD_TRACE_H

#include "cli.h"

/*
 * Run `renacer trace`. argv[0] is "trace"; options follow (see rn_cmd_trace_def), then the
 * command. Returns the process exit code: the target's exit status (128 + signal when it was
 * killed by one) when it ran, else an enum rn_exit value (RN_EXIT_USAGE for a bad command
 * line, RN_EXIT_TARGET when it could not be executed or timed out, RN_EXIT_COLLECTOR when a
 * collector failed or the one asked for is unavailable, RN_EXIT_OUTPUT when -o cannot be
 * written, RN_EXIT_SIGINT/RN_EXIT_SIGTERM when renacer was interrupted).
 */
int rn_cmd_trace(int argc, char **argv);

/* The option table of `renacer trace` (for dispatch, --help and the man page). */
extern const struct rn_command rn_cmd_trace_def;

#endif
