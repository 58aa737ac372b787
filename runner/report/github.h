/*
 * github.h - GitHub Actions mode of `renacer check` (--github; on by default when
 * GITHUB_ACTIONS=true).
 *
 * Everything it writes follows GitHub's "Workflow commands for GitHub Actions":
 *
 *   annotations  `::error file=F,line=N,col=1,title=T::MSG` (and `::warning`) on stdout, one per
 *                failing (FAIL, ERROR, NO DATA) or warning (WARN) verdict. F and N point at the
 *                [[assertion]] header of the verdict in renacer.toml; a target that could not
 *                run points at its [[target]] header, a golden-trace regression at the golden
 *                trace file. GitHub keeps 10 error and 10 warning annotations per step; when
 *                there are more, the last annotation of the kind says how many were left out.
 *                RENACER_GITHUB_ANNOTATIONS (0..10, default 10) lowers that limit per kind.
 *   job summary  Markdown appended to $GITHUB_STEP_SUMMARY: a headline with the counts, then
 *                per target (targets with failures first) one table row per verdict (failures
 *                first): assertion, verdict, measured, budget, golden, delta, runs, message;
 *                then the detail of every non-passing verdict in a collapsed block. Cut at a
 *                row boundary to stay within GitHub's 1 MiB per step (less what the file
 *                already holds), with a note saying so.
 *   report       the same Markdown, never cut, written atomically to $RENACER_GITHUB_REPORT,
 *                else to $RUNNER_TEMP/renacer-report.md (for a pull-request comment).
 *   outputs      appended to $GITHUB_OUTPUT: result (pass | warn | fail | error), failed
 *                (FAIL + ERROR + NO DATA verdicts), warnings (WARN verdicts), exit_code, junit
 *                (the JUnit XML path, when one was written) and report (the report path).
 *   log groups   `::group::TITLE` / `::endgroup::` on stderr, the stream of the progress lines.
 *
 * Paths in annotations are made relative to $GITHUB_WORKSPACE (GitHub matches annotation files
 * against repository paths); a path outside it is kept as given. A missing environment variable
 * skips its part. Nothing here changes the check's verdict or exit code: a file that cannot be
 * written is a warning.
 *
 * Not thread-safe (writes stdout and files); call from the main thread after the check.
 */
#ifndef RN_GITHUB_H
#define RN_GITHUB_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "config.h"
#include "diag.h"
#include "outcome.h"
#include "verdict.h"

/* GitHub's limits per step: annotations of each kind, job summary bytes. */
#define RN_GITHUB_MAX_ANNOTATIONS 10
#define RN_GITHUB_SUMMARY_MAX ((size_t)1 << 20)

/* Environment variables renacer reads in GitHub mode besides GitHub's own. */
#define RN_GITHUB_ENV_ANNOTATIONS "RENACER_GITHUB_ANNOTATIONS" /* limit per kind, 0..10 */
#define RN_GITHUB_ENV_REPORT "RENACER_GITHUB_REPORT"           /* Markdown report path */

/*
 * Write the annotations, job summary, report and outputs of the finished check `oc` (see the
 * top of this file). Reads oc->cfg (renacer.toml's path and [[target]]/[[assertion]] lines for
 * the annotations; NULL: "renacer.toml", no lines), oc->reports[0..ntargets) (verdicts and
 * golden files, config order) and oc->exit_code. `junit` is the JUnit XML path written
 * (--junit or [report] junit), named in the "junit" output, or NULL. Returns 0, or the
 * negative errno of the first part that could not be written (a warning naming it has been
 * printed; the other parts are still written).
 */
int rn_github_write(const struct rn_outcome *oc, const char *junit);

/*
 * The Markdown report of a finished check, as the job summary and the report file have it
 * (headline with the verdict counts, then a section per target, failures first), whole. For
 * `renacer report --markdown` and pull-request comments. Reads of `oc` what rn_github_write
 * does. Caller frees; NULL on
 * out-of-memory; *len gets its length when len is not NULL.
 */
char *rn_github_markdown(const struct rn_outcome *oc, size_t *len);

/*
 * GitHub mode for a check that stopped at a config error: an `::error` annotation at d's
 * file, line and column with its message, a job summary holding the whole diagnostic, and the
 * outputs result=error, failed=0, warnings=0, exit_code. `d` must hold a recorded error.
 * Returns 0 or a negative errno (warning printed).
 */
int rn_github_report_diag(const struct rn_diag *d, int exit_code);

/* Open a collapsible log group `title` (escaped) on stderr: `::group::TITLE`. */
void rn_github_group_begin(const char *title);
/* Close the log group opened last: `::endgroup::` on stderr. */
void rn_github_group_end(void);

/*
 * Append `s` to `b` as text of a Markdown table cell, heading or list item (the job summary,
 * report --markdown, the pull-request comment, bisect --markdown): ASCII punctuation that
 * Markdown or a table would interpret (\ ` * _ [ ] < > | ~ &) is backslash-escaped, control
 * characters (newlines, tabs) become spaces, an @mention is guarded (a U+200D after the @),
 * and at most `max_bytes` bytes of `s` are used, cut at a UTF-8 character boundary and
 * marked with "…" (0 = no limit). `s` may be NULL (nothing appended).
 */
void rn_github_escape_markdown(struct rn_buf *b, const char *s, size_t max_bytes);

#endif
