/*
 * rn_regex.h - the patterns of renacer.toml (span_name_pattern, region_pattern,
 * process_name_pattern, trace_name_pattern), compiled and matched by PCRE2.
 *
 * A pattern matches a name only when it matches the whole name: it is compiled anchored at
 * both ends (PCRE2_ANCHORED | PCRE2_ENDANCHORED), so "read" matches "read" and not "pread64",
 * as the POSIX "^(...)$" wrapping did before. The syntax is PCRE2's, a superset of the POSIX
 * extended syntax the configs were written in ("(open|close)", "[a-z]+", "[[:digit:]]{2,4}"),
 * with Perl's classes and flags: "\d", "\w", "\s", "(?i)read", non-greedy and possessive
 * repetitions. As in POSIX, "." matches every byte, newline included (PCRE2_DOTALL), and "$"
 * only the end of the name (PCRE2_DOLLAR_ENDONLY). Names are bytes (no UTF mode): an invalid
 * UTF-8 name is matched, never an error.
 *
 * Bounds, built into the engine rather than estimated beforehand:
 *   - a pattern is at most RN_REGEX_MAX_BYTES bytes, its parentheses nest at most
 *     RN_REGEX_MAX_NESTING deep, an interval's bounds are at most RN_REGEX_MAX_REPEAT (POSIX
 *     ERE's RE_DUP_MAX, 255; "(.*){0,3000}" is refused: each match of it took 16 MiB of
 *     backtracking frames), and PCRE2 refuses a compiled program over its 64 KiB link
 *     size ("(.*){1,32000}" fails at once with "regular expression is too large");
 *   - one match takes at most RN_REGEX_MATCH_LIMIT backtracking steps, RN_REGEX_DEPTH_LIMIT
 *     nested backtracking frames and RN_REGEX_HEAP_LIMIT_KIB KiB of heap, so "(a|a)*b"
 *     against a long run of "a" gives up in milliseconds instead of taking years.
 * A match that gives up is not a quiet "no": it returns false and counts in the pattern's
 * rn_regex_limit_hits(), which the assertion evaluator turns into an ERROR verdict.
 *
 * Thread safety: a compiled pattern may be matched from several threads at once (each match
 * allocates its own match data; the limit counter is atomic).
 */
#ifndef RN_REGEX_H
#define RN_REGEX_H

#include <stdbool.h>
#include <stddef.h>

#define RN_REGEX_MAX_BYTES 1024       /* longest pattern accepted, bytes */
#define RN_REGEX_MAX_NESTING 64       /* deepest parenthesis nesting accepted */
#define RN_REGEX_MAX_REPEAT 255       /* largest bound of an interval {m,n}: POSIX RE_DUP_MAX */
#define RN_REGEX_MATCH_LIMIT 1000000  /* backtracking steps per match (PCRE2 match limit) */
#define RN_REGEX_DEPTH_LIMIT 10000    /* nested backtracking frames per match */
#define RN_REGEX_HEAP_LIMIT_KIB 16384 /* heap for one match's backtracking frames, KiB */

/* A compiled pattern (opaque). Made by rn_regex_compile, freed by rn_regex_free. */
struct rn_regex;

/* Why a pattern did not compile, for a diagnostic at the pattern's file:line:col. */
struct rn_regex_error {
	char message[160]; /* PCRE2's reason, lowercase, no period, NUL-terminated */
	size_t offset;     /* byte of the pattern where the problem was seen, 0-based */
};

/*
 * Compile `pattern` (NUL-terminated, the text the user wrote, without anchors) to match whole
 * names as described above. On success returns 0 and stores a new pattern in *out (free with
 * rn_regex_free). Returns -EINVAL with *err filled for a pattern that is not valid, too long,
 * too deeply nested or too large once compiled (*out untouched); -ENOMEM when PCRE2 ran out of
 * memory. `err` may be NULL.
 */
int rn_regex_compile(const char *pattern, struct rn_regex **out, struct rn_regex_error *err);

/*
 * Whether `subject` (NUL-terminated) fully matches `re`. False when it does not, and false as
 * well when the match gave up at one of the limits above (or PCRE2 ran out of memory): such
 * a match is counted in rn_regex_limit_hits(re), so a caller that must not mistake it for a
 * "no" checks the count after matching.
 */
bool rn_regex_match(const struct rn_regex *re, const char *subject);

/* How many matches of `re` gave up at a limit (or for memory) since it was compiled. */
unsigned long rn_regex_limit_hits(const struct rn_regex *re);

/* The pattern as given to rn_regex_compile (owned by `re`). */
const char *rn_regex_pattern(const struct rn_regex *re);

/* Free `re` and everything it owns. NULL is accepted. */
void rn_regex_free(struct rn_regex *re);

#endif
