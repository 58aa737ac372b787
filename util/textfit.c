/*
 * textfit.c - terminal width, shortening and wrapping (see textfit.h).
 */
#include "textfit.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

int rn_term_width(void)
{
	const char *env = getenv("COLUMNS");
	struct winsize ws;

	if (env && *env) {
		char *end;
		long v;

		errno = 0;
		v = strtol(env, &end, 10);
		if (!errno && !*end && v >= 20 && v <= 1000)
			return (int)v;
	}
	if (isatty(2) && !ioctl(2, TIOCGWINSZ, &ws) && ws.ws_col >= 20)
		return ws.ws_col;
	return RN_TEXTFIT_DEFAULT_WIDTH;
}

static bool cont_byte(char c)
{
	return ((unsigned char)c & 0xC0) == 0x80;
}

size_t rn_text_width(const char *s, size_t len)
{
	size_t i, w = 0;

	for (i = 0; i < len; i++)
		w += !cont_byte(s[i]);
	return w;
}

/* Bytes of `s` (length `len`) that fill at most `cols` columns, ending between code points. */
static size_t bytes_for(const char *s, size_t len, size_t cols)
{
	size_t i, w = 0;

	for (i = 0; i < len; i++) {
		if (!cont_byte(s[i])) {
			if (w == cols)
				return i;
			w++;
		}
	}
	return len;
}

void rn_text_shorten(struct rn_buf *b, const char *s, size_t width)
{
	size_t len = strlen(s), cut, k;

	if (rn_text_width(s, len) <= width) {
		rn_buf_add(b, s, len);
		return;
	}
	if (width < 4) {
		rn_buf_add(b, s, bytes_for(s, len, width));
		return;
	}
	cut = bytes_for(s, len, width - 3);
	/* Back to a word boundary when one is in the second half; the word is cut otherwise. */
	for (k = cut; k > 0 && s[k] != ' '; k--)
		;
	if (k > 0 && rn_text_width(s, k) >= (width - 3) / 2)
		cut = k;
	/* No ellipsis after a space or a separator: "top: ..." reads worse than "top..." */
	while (cut > 0 && strchr(" ,;:", s[cut - 1]))
		cut--;
	rn_buf_add(b, s, cut);
	rn_buf_adds(b, "...");
}

void rn_text_shorten_middle(struct rn_buf *b, const char *s, size_t width)
{
	size_t len = strlen(s), w = rn_text_width(s, len), head, tail;

	if (w <= width) {
		rn_buf_add(b, s, len);
		return;
	}
	if (width < 5) {
		rn_buf_add(b, s, bytes_for(s, len, width));
		return;
	}
	head = bytes_for(s, len, (width - 3 + 1) / 2);
	/* The tail starts at the code point that leaves (width - 3) / 2 columns. */
	tail = bytes_for(s, len, w - (width - 3) / 2);
	rn_buf_add(b, s, head);
	rn_buf_adds(b, "...");
	rn_buf_add(b, s + tail, len - tail);
}

static void indent_to(struct rn_buf *b, size_t indent)
{
	size_t i;

	rn_buf_addc(b, '\n');
	for (i = 0; i < indent; i++)
		rn_buf_addc(b, ' ');
}

void rn_text_wrap(struct rn_buf *b, const char *s, size_t width, size_t indent)
{
	size_t col = 0;

	if (width < 1)
		width = 1;
	while (*s) {
		size_t sp, wlen, ww, i;
		const char *word;

		if (*s == '\n') {
			indent_to(b, indent);
			col = 0;
			s++;
			continue;
		}
		sp = strspn(s, " ");
		word = s + sp;
		wlen = strcspn(word, " \n");
		if (!wlen) { /* spaces before a newline or the end */
			s = word;
			continue;
		}
		ww = rn_text_width(word, wlen);
		/* Spaces inside a line are kept (the alignment of detail tables); at a break,
		 * dropped. */
		if (col && col + sp + ww > width) {
			indent_to(b, indent);
			col = 0;
			sp = 0;
		} else if (!col && sp + ww > width) {
			sp = 0;
		}
		for (i = 0; i < sp; i++)
			rn_buf_addc(b, ' ');
		col += sp;
		while (ww > width - col) { /* a word longer than the line is broken */
			size_t take = bytes_for(word, wlen, width - col);

			rn_buf_add(b, word, take);
			word += take;
			wlen -= take;
			ww = rn_text_width(word, wlen);
			indent_to(b, indent);
			col = 0;
		}
		rn_buf_add(b, word, wlen);
		col += ww;
		s = word + wlen;
	}
}
