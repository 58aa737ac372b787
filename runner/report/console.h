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
#include "verdict.h"

/* "renacer check: renacer.toml (3 targets, 6 assertions)". */
void rn_report_header(bool color, const char *config, size_t ntargets, size_t nassertions);
/*
 * A progress line ("[2/5] parse_large run 3/5 ...") with the time elapsed since the first
 * progress line. `step` (0-based) of `nsteps` places it in the current unit of work (a
 * target's runs): step 0 starts the unit's clock. On a TTY the line overwrites the previous
 * one (carriage return), is cut to the terminal's width and adds an estimate of the unit's
 * time left (its steps so far at their mean pace), and a ticker thread (started on the first
 * TTY line, every signal blocked in it) redraws it 4 times a second while the step runs;
 * elsewhere (a CI log) it is a plain line per call.
 */
void rn_report_progress(bool color, unsigned step, unsigned nsteps, const char *fmt, ...)
	RN_PRINTF(4, 5);
/* End the progress line (clears it on a TTY) and the current unit. */
void rn_report_progress_done(void);
/*
 * The final report, on stderr, fitted to rn_term_width() columns: the header lines
 * (rn_report_console_header), a table of every verdict, then the message and detail of every
 * non-passing verdict (wrapped), then one summary line with the counts per verdict and the
 * exit code's meaning. Columns, one meaning each on every row: TARGET, ASSERTION, VERDICT,
 * MEASURED (this run's value; head under --baseline), LIMIT (the value past which the row
 * fails: a budget, the golden value plus its tolerance, the base median plus the baseline
 * tolerance), CHANGE (MEASURED against the golden trace's or the base's value, percent; "-"
 * for a budget-only row), REASON. The default is one line per verdict with names and REASON
 * shortened at a word boundary with "..."; `wide` adds GOLDEN and BASE (the reference
 * values), keeps names whole and wraps REASON under its column.
 */
void rn_report_console(bool color, bool wide, const struct rn_target_report *t, size_t n,
		       int exit_code);
/*
 * Add a line printed above the console table (for example how timing is gated), wrapped to
 * the width. Copied (control characters escaped); up to 8 lines, more are dropped. The lines
 * are printed and forgotten by the next rn_report_console() (process-wide: one check per
 * process).
 */
void rn_report_console_header(const char *line);

#endif
