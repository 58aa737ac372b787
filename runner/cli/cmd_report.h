/*
 * cmd_report.h - `renacer report`: the HTML page of the history store (--html) or the
 * Markdown report of results files (--markdown).
 */
#ifndef RN_CMD_REPORT_H
#define RN_CMD_REPORT_H

#include "cli.h"

/* `renacer report --html FILE [--db URL] [--config FILE] | --markdown FILE RESULTS...`.
 * argv[0] is "report". Returns an enum rn_exit value (--markdown: the check's exit code). */
int rn_cmd_report(int argc, char **argv);

/* The option table of `renacer report` (for dispatch, --help and the man page). */
extern const struct rn_command rn_cmd_report_def;

#endif
