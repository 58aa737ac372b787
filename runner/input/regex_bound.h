/*
 * regex_bound.h - what a POSIX extended regex from renacer.toml may ask of the regex engine.
 *
 * glibc's regcomp() expands every bounded repetition into copies of its operand, so
 * "(.*){1,32000}" builds a huge automaton and takes minutes; a back-reference makes matching
 * exponential. Patterns are therefore checked before they are compiled:
 *   - at most RN_REGEX_MAX_BYTES bytes;
 *   - no back-references (\1 .. \9), so matching needs no backtracking;
 *   - repetition counts {m}, {m,}, {m,n} of at most RN_REGEX_MAX_COUNT, and of at most
 *     RN_REGEX_MAX_NESTED_COUNT on a group that holds a repetition itself ("(.*){1,255}"
 *     takes glibc 0.5 s to compile, "(.*){1,32}" under 2 ms: a fixed bound, not a timer);
 *   - parentheses nested at most RN_REGEX_MAX_DEPTH deep;
 *   - an estimated expanded size (atoms, multiplied out through nested repetitions and
 *     summed over alternatives) of at most RN_REGEX_MAX_COST.
 * glibc's compile time also grows steeply with repetitions nested inside repeated groups
 * ("((a|.?)*){1,20}", "(a|.?)*(a|.?)*..."), beyond what a static estimate predicts. A pattern
 * with such nesting, or a large estimate, is therefore first compiled in a forked child that
 * gets RN_REGEX_TRIAL_MS of wall time (rn_regex_trial_compile); only a pattern that compiled
 * there in time is compiled by renacer. Matching (REG_NOSUB, no back-references: glibc's DFA
 * path) then takes time linear in the subject for the compiled automaton.
 */
#ifndef RN_REGEX_BOUND_H
#define RN_REGEX_BOUND_H

#include <stdbool.h>
#include <stddef.h>

#define RN_REGEX_MAX_BYTES 1024
#define RN_REGEX_MAX_COUNT 255
#define RN_REGEX_MAX_NESTED_COUNT 32
#define RN_REGEX_MAX_DEPTH 16
#define RN_REGEX_MAX_COST 2000
#define RN_REGEX_TRIAL_COST 256 /* estimates above this get a trial compile */
#define RN_REGEX_TRIAL_MS 500

/* Check `pat` against the bounds above. Returns -1 and writes why (one lowercase line, no
 * period) into `why` (`why_size` bytes, NUL-terminated) with *offset set to the byte of `pat`
 * where the problem was seen; 0 when the pattern may be compiled, with *needs_trial set when
 * it must pass rn_regex_trial_compile() first (nested repetitions or an estimate above
 * RN_REGEX_TRIAL_COST). Syntax errors are left to regcomp(). */
int rn_regex_check_bounds(const char *pat, char *why, size_t why_size, size_t *offset,
			  bool *needs_trial);

/* Compile `pattern` with regcomp(`cflags`) in a forked child that is killed after
 * RN_REGEX_TRIAL_MS ms. 0 when it compiled (or failed to compile: regcomp in the caller
 * reports the syntax error) in time, -ETIMEDOUT when it did not, -errno when the child could
 * not be made (the caller may then compile in process). */
int rn_regex_trial_compile(const char *pattern, int cflags);

#endif
