/*
 * diag.h - diagnostics with source locations (git's `strbuf *err`, jq's located errors).
 *
 * Functions that can fail on user input take a `struct rn_diag *` and fill it only on failure.
 * The caller owns the diag, points it at the source text and file name (both borrowed, must
 * outlive the diag), and prints it once with rn_diag_print():
 *
 *     renacer.toml:12:5: error: unknown key 'treshold' in [[assertion]] 'api' (did you mean 'threshold'?)
 *        12 | treshold = 3
 *           |     ^
 *
 * Lines and columns are 1-based; columns count Unicode code points (UTF-8 sequences), not bytes.
 * A diag with line 0 has no location and prints as "FILE: error: MSG".
 */
#ifndef RN_DIAG_H
#define RN_DIAG_H

#include <stdbool.h>
#include <stddef.h>

#include "log.h"

#define RN_DIAG_MSG_MAX 512

struct rn_diag {
	const char *file; /* file name for messages, borrowed; NULL prints "<input>" */
	const char *src;  /* source text, borrowed; may be NULL (no source line printed) */
	size_t src_len;   /* bytes in src */
	bool set;         /* an error has been recorded */
	int line;         /* 1-based line of the error, 0 = no location */
	int col;          /* 1-based column (code points) */
	char msg[RN_DIAG_MSG_MAX]; /* the message, without location or "error:" */
};

/* Point `d` at a file name and its text (both borrowed); clears any recorded error. */
void rn_diag_init(struct rn_diag *d, const char *file, const char *src, size_t src_len);
/* Record an error at line:col (1-based). A second call keeps the first error. Returns -1. */
int rn_diag_set(struct rn_diag *d, int line, int col, const char *fmt, ...) RN_PRINTF(4, 5);
/* Record an error at byte offset `off` into d->src (computes line and column). Returns -1. */
int rn_diag_set_at(struct rn_diag *d, size_t off, const char *fmt, ...) RN_PRINTF(3, 4);
/* Compute the 1-based line and code-point column of byte offset `off` in `src`. */
void rn_diag_position(const char *src, size_t len, size_t off, int *line, int *col);
/*
 * Format the recorded error: "FILE:LINE:COL: error: MSG\n" plus, when the source is known,
 * the source line and a caret line. `color` adds ANSI colors. Returns a malloc'ed string the
 * caller frees.
 */
char *rn_diag_format(const struct rn_diag *d, bool color);
/* Print rn_diag_format() to stderr with one write. */
void rn_diag_print(const struct rn_diag *d, bool color);
/* The first line only ("FILE:LINE:COL: error: MSG"), for JUnit and annotations. Caller frees. */
char *rn_diag_oneline(const struct rn_diag *d);

/*
 * Did-you-mean: of the NULL-terminated `candidates`, the one closest to `word` by Damerau-
 * Levenshtein distance, if that distance is at most max(1, strlen(word) / 3); else NULL.
 * Returns a borrowed pointer into `candidates`.
 */
const char *rn_suggest(const char *word, const char *const *candidates);

#endif
