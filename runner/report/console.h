/*
 * console.h - the human report of `renacer check` on stderr: the header line, progress lines
 * while targets run, and the final verdict table.
 *
 * Colors only when stderr is a TTY and NO_COLOR is unset (the caller decides and passes
 * `color`). Progress lines overwrite themselves on a TTY and are plain lines otherwise.
 */
#ifndef RN_CONSOLE_H
#define RN_CONSOLE_H

#include <stdbool.h>
#include <stddef.h>

#include "assertion.h"
#include "log.h"
#include "outcome.h"
#include "verdict.h"

/* "renacer check: renacer.toml (3 targets, 6 assertions)". */
void rn_report_header(bool color, const char *config, size_t ntargets, size_t nassertions);
/*
 * A progress line ("[2/5] parse_large: run 3 of up to 60") with the time elapsed since the
 * first progress line. The text starts with the unit's label and ": " (the label is what a
 * CI log's line names). `step` (0-based) of `nsteps` places it in the current unit of work
 * (a target's runs): step 0 starts the unit's clock. On a TTY the line overwrites the
 * previous one (carriage return), is cut to the terminal's width and adds an estimate of the
 * unit's time left (its steps so far at their mean pace), and a ticker thread (started on the
 * first TTY line, every signal blocked in it) redraws it 4 times a second while the step runs.
 * Elsewhere (a CI log) nothing is written per step: rn_report_progress_done() writes one line
 * for the unit ("[2/5] parse_large: 1 warmup, 10 timing runs, 1 counting run in 3.1 s (9.4 s
 * elapsed)"). A unit may span several rn_report_progress() sequences that start at step 0
 * (the runs of a same-job baseline, one call each); it ends at rn_report_progress_done().
 */
void rn_report_progress(bool color, unsigned step, unsigned nsteps, const char *fmt, ...)
	RN_PRINTF(4, 5);
/* End the current unit: clears the progress line on a TTY; in a CI log writes the unit's one
 * line: `line` ("[1/2] app: 1 warmup, 10 timing runs, 1 counting run"; NULL: the last
 * progress line's label and its number of steps as runs) and the unit's time. */
void rn_report_progress_done(const char *line);
/*
 * The final report, on stderr, fitted to rn_term_width() columns: the header lines
 * (rn_report_console_header), one "note:" for warnings that share one cause (rows WARN for
 * the same REASON whose messages name the same circumstance after ", but ", such as golden
 * traces recorded on another machine: said once here, not under every row), a table with one
 * row per verdict, then below it the message and detail (the statistics) of every FAIL,
 * ERROR and NO DATA row and the message alone of the other non-passing rows (wrapped), then
 * one result line with the counts that are not zero and the exit code's meaning. `verbose`
 * (check --verbose) prints every non-passing row's message and detail and no shared note.
 * Values are in human units (units.h). Columns, one meaning each on every row: TARGET,
 * ASSERTION, VERDICT, MEASURED (this run's value; head under --baseline), LIMIT (the value
 * past which the row fails: a budget, the golden value plus its tolerance, the base median
 * plus the baseline tolerance), CHANGE (MEASURED against the golden trace's or the base's
 * value, percent; "-" for a budget-only row), REASON. The default is one line per verdict
 * with names and REASON shortened at a word boundary with "..."; `wide` adds GOLDEN and BASE
 * (the reference values), keeps names whole, prints exact values (ms with three decimals,
 * bytes) and wraps REASON under its column. Reads the verdicts oc->reports[0..ntargets) and
 * oc->exit_code, nothing else of `oc`.
 */
void rn_report_console(bool color, bool wide, bool verbose, const struct rn_outcome *oc);

#endif
