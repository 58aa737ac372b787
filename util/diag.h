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
/* The most errors one diag collects (rn_diag_collect): a config with more stops there. */
#define RN_DIAG_MAX_ERRORS 20

/* An error after the first, in collecting mode. */
struct rn_diag_more {
	int line;                  /* 1-based line, 0 = no location */
	int col;                   /* 1-based column (code points) */
	char msg[RN_DIAG_MSG_MAX]; /* the message */
};

struct rn_diag {
	const char *file;          /* file name for messages, borrowed; NULL prints "<input>" */
	const char *src;           /* source text, borrowed; may be NULL (no source line printed) */
	size_t src_len;            /* bytes in src */
	bool set;                  /* an error has been recorded */
	int line;                  /* 1-based line of the error, 0 = no location */
	int col;                   /* 1-based column (code points) */
	char msg[RN_DIAG_MSG_MAX]; /* the message, without location or "error:" */
	int max_errors; /* errors kept: 1 (after init: the first only) up to RN_DIAG_MAX_ERRORS */
	int nerrors;    /* errors recorded (the first included), at most max_errors */
	bool full;      /* an error arrived after max_errors were kept (it was dropped) */
	struct rn_diag_more more[RN_DIAG_MAX_ERRORS - 1]; /* errors 2..nerrors, in order */
};

/* Point `d` at a file name and its text (both borrowed); clears any recorded error. It keeps
 * the first error only. */
void rn_diag_init(struct rn_diag *d, const char *file, const char *src, size_t src_len);
/* From now on keep up to `max_errors` errors (at most RN_DIAG_MAX_ERRORS), so that a parser
 * that recovers (the config loader, per [[target]], [[assertion]] and table) reports every
 * error in one pass. The first stays in line/col/msg; rn_diag_format prints all of them. */
void rn_diag_collect(struct rn_diag *d, int max_errors);
/* True when collecting has reached its cap: a recovering parser stops there. */
bool rn_diag_full(const struct rn_diag *d);
/* Record an error at line:col (1-based). A second call keeps the first error (or, collecting,
 * adds it while there is room). Returns -1. */
int rn_diag_set(struct rn_diag *d, int line, int col, const char *fmt, ...) RN_PRINTF(4, 5);
/* Record an error at byte offset `off` into d->src (computes line and column). Returns -1. */
int rn_diag_set_at(struct rn_diag *d, size_t off, const char *fmt, ...) RN_PRINTF(3, 4);
/* Compute the 1-based line and code-point column of byte offset `off` in `src`. */
void rn_diag_position(const char *src, size_t len, size_t off, int *line, int *col);
/*
 * Format the recorded error: "FILE:LINE:COL: error: MSG\n" plus, when the source is known,
 * the source line and a caret line; in collecting mode every error so, then
 * "FILE: N errors" (and "stopped after N" at the cap). `color` adds ANSI colors. Returns a
 * malloc'ed string the caller frees.
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
