/*
 * textfit.h - fitting text to a terminal: its width, shortening at a word boundary with an
 * ellipsis, and word wrapping. Widths are in columns: one per UTF-8 code point (a wide
 * character counts one, so a line may come out shorter than measured, never longer), bytes
 * that continue a sequence count none. Text is cut only between code points.
 *
 * libsmartcols (util-linux) was the candidate library: its truncation adds no ellipsis and
 * its wrapping cuts at character counts unless custom chunk callbacks are written, and the
 * report's notes and details are not a table; these three functions do what the console
 * needs without a dependency.
 */
#ifndef RN_TEXTFIT_H
#define RN_TEXTFIT_H

#include <stddef.h>

#include "buf.h"

/* The width a report on stderr should fit: $COLUMNS when it is a number in 20..1000, else the
 * terminal's (ioctl TIOCGWINSZ on fd 2), else RN_TEXTFIT_DEFAULT_WIDTH (a log, a pipe). */
int rn_term_width(void);
/* The width assumed when stderr is not a terminal and COLUMNS is not set, columns. */
#define RN_TEXTFIT_DEFAULT_WIDTH 100

/* Columns of the first `len` bytes of `s`. */
size_t rn_text_width(const char *s, size_t len);
/*
 * Append `s` to `b` in at most `width` columns: whole when it fits, else cut at the last word
 * boundary (a space) that leaves room for "..." and the ellipsis appended; a word longer than
 * half the width is cut inside. `width` < 4 cuts without an ellipsis.
 */
void rn_text_shorten(struct rn_buf *b, const char *s, size_t width);
/*
 * Append `s` to `b` in at most `width` columns: whole when it fits, else its head, "..." and
 * its tail (the tail one column shorter than the head when the room is odd), so a name that
 * differs from another only at its end (`golden:span_time:app:<span>`) stays identifiable.
 * `width` < 5 cuts at the end without an ellipsis.
 */
void rn_text_shorten_middle(struct rn_buf *b, const char *s, size_t width);
/*
 * Append `s` to `b` word-wrapped into lines of at most `width` columns (at least 8 is
 * sensible). The first line starts where the caller's cursor is; each following line starts
 * with "\n" and `indent` spaces (`indent` is not counted in `width`). A word longer than
 * `width` is broken. Newlines in `s` start a new line (with the indent); runs of spaces at a
 * break are dropped. Adds no final newline.
 */
void rn_text_wrap(struct rn_buf *b, const char *s, size_t width, size_t indent);

#endif
