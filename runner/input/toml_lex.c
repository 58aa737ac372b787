/*
 * toml_lex.c - the TOML parser's lexical layer: error positions and messages, whitespace,
 * newlines and comments, and strings with their escapes (TOML 1.0.0, sections Spec, Comment,
 * String). Private to the parser: toml_internal.h.
 */
#include "toml_internal.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "xalloc.h"

/* ---- Errors and positions --------------------------------------------------------------- */

/* Column of `at` on the line starting at `start`: 1 + the code points before it. */
static int count_col(const char *start, const char *at, int col)
{
	for (; start < at; start++)
		col += ((unsigned char)*start & 0xC0) != 0x80; /* skip UTF-8 continuations */
	return col;
}

/*
 * Line and column (code points) of `at`. The parser counts lines as it consumes newlines, so
 * a position on the current line costs only its column, and that is cached too: successive
 * values on one long line (a huge one-line array) stay linear. A position on an earlier line
 * (only some errors need one) is found by rescanning the input.
 */
struct rn_toml_pos rn_toml_pos_of(struct rn_toml_parser *ps, const char *at)
{
	struct rn_toml_pos pos;
	const char *q, *ls = ps->text;

	if (at >= ps->line_start) {
		if (ps->col_ptr < ps->line_start || at < ps->col_ptr) {
			ps->col_ptr = ps->line_start;
			ps->col = 1;
		}
		ps->col = count_col(ps->col_ptr, at, ps->col);
		ps->col_ptr = at;
		pos.line = ps->line;
		pos.col = ps->col;
		return pos;
	}
	pos.line = 1;
	for (q = ps->text; q < at; q++) {
		if (*q == '\n') {
			pos.line++;
			ls = q + 1;
		}
	}
	pos.col = count_col(ls, at, 1);
	return pos;
}

/* Record an error at `at` (a pointer into the input); returns ps->err (-EINVAL for the first). */
int rn_toml_fail(struct rn_toml_parser *ps, const char *at, const char *fmt, ...)
{
	char msg[RN_DIAG_MSG_MAX];
	struct rn_toml_pos pos;
	va_list ap;

	/* The column is counted from after the BOM (editors do not show one), which is why this
	 * computes the position itself rather than calling rn_diag_set_at(). */
	pos = rn_toml_pos_of(ps, at < ps->text ? ps->text : at);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	rn_diag_set(ps->d, pos.line, pos.col, "%s", msg);
	if (!ps->err)
		ps->err = -EINVAL;
	return ps->err;
}

/* Allocation failure: no location, it is not the document's fault. Returns ps->err (-ENOMEM
 * for the first). */
int rn_toml_oom(struct rn_toml_parser *ps)
{
	rn_diag_set(ps->d, 0, 0, "out of memory");
	if (!ps->err)
		ps->err = -ENOMEM;
	return ps->err;
}

/*
 * Decode one UTF-8 sequence at p (p < end) into *cp; returns its length, 0 if invalid.
 * TOML 1.0.0 (section Spec): "A TOML file must be a valid UTF-8 encoded Unicode document", so
 * overlong forms, surrogates (U+D800..U+DFFF) and anything past U+10FFFF are rejected.
 */
static int utf8_decode(const char *p, const char *end, uint32_t *cp)
{
	const unsigned char *s = (const unsigned char *)p;
	size_t avail = (size_t)(end - p);
	uint32_t c, min;
	int n, i;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	} else if ((s[0] & 0xE0) == 0xC0) {
		n = 2, c = s[0] & 0x1F, min = 0x80;
	} else if ((s[0] & 0xF0) == 0xE0) {
		n = 3, c = s[0] & 0x0F, min = 0x800;
	} else if ((s[0] & 0xF8) == 0xF0) {
		n = 4, c = s[0] & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	if (avail < (size_t)n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3F);
	}
	if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
		return 0;
	*cp = c;
	return n;
}

/* True for the control characters TOML forbids unescaped: U+0000..U+001F except tab, U+007F. */
static bool is_control(uint32_t c)
{
	return (c < 0x20 && c != '\t') || c == 0x7F;
}

/* Describe the character at `at` for "found ..." in messages. */
void rn_toml_describe(const struct rn_toml_parser *ps, const char *at, char *out, size_t size)
{
	uint32_t cp;
	int n;

	if (at >= ps->end) {
		snprintf(out, size, "end of input");
		return;
	}
	if (*at == '\n' || (*at == '\r' && at + 1 < ps->end && at[1] == '\n')) {
		snprintf(out, size, "end of line");
		return;
	}
	if (*at == '\r') {
		snprintf(out, size, "a carriage return without a line feed");
		return;
	}
	n = utf8_decode(at, ps->end, &cp);
	if (!n)
		snprintf(out, size, "invalid UTF-8 byte 0x%02x", (unsigned char)*at);
	else if (is_control(cp))
		snprintf(out, size, "control character U+%04X", (unsigned)cp);
	else if (cp == '\'')
		snprintf(out, size, "\"'\"");
	else
		snprintf(out, size, "'%.*s'", n, at);
}

/* Copy source text [from, to) for quoting in a message, shortened with "..." if long;
 * returns `out`. Only called once an error is certain: formatting costs more than parsing. */
const char *rn_toml_excerpt(const char *from, const char *to, char *out, size_t size)
{
	size_t n = (size_t)(to - from);

	if (n <= RN_TOML_QUOTE_MAX) {
		snprintf(out, size, "%.*s", (int)n, from);
		return out;
	}
	/* Cut on a code point boundary so the message stays valid UTF-8. */
	n = RN_TOML_QUOTE_MAX;
	while (n > 0 && ((unsigned char)from[n] & 0xC0) == 0x80)
		n--;
	snprintf(out, size, "%.*s...", (int)n, from);
	return out;
}

/* ---- Lexical helpers -------------------------------------------------------------------- */

void rn_toml_eat_newline(struct rn_toml_parser *ps)
{
	ps->p += *ps->p == '\r' ? 2 : 1;
	ps->line++;
	ps->line_start = ps->p;
}

/*
 * Check the character at ps->p inside a comment or string and return its length. Invalid
 * UTF-8 and control characters other than tab are errors (sections Comment and String).
 * `where` names the context for the message.
 */
static int text_char(struct rn_toml_parser *ps, const char *where)
{
	uint32_t cp;
	int n = utf8_decode(ps->p, ps->end, &cp);

	if (!n)
		return rn_toml_fail(ps, ps->p, "invalid UTF-8 byte 0x%02x in %s",
				    (unsigned char)*ps->p, where);
	if (cp == '\r')
		return rn_toml_fail(ps, ps->p, "carriage return without a line feed in %s", where);
	if (is_control(cp))
		return rn_toml_fail(ps, ps->p, "control character U+%04X is not allowed in %s",
				    (unsigned)cp, where);
	return n;
}

/* Skip a comment if one starts here. TOML 1.0.0, section Comment: control characters other
 * than tab are not permitted in comments. */
int rn_toml_skip_comment(struct rn_toml_parser *ps)
{
	const char *q;

	if (peek(ps, 0) != '#')
		return 0;
	for (q = ps->p + 1;;) {
		int n;

		/* Fast path: printable ASCII and tab, kept in a local (see skip_ws). */
		while (q < ps->end && ((*q >= 0x20 && *q < 0x7F) || *q == '\t'))
			q++;
		ps->p = q;
		if (q >= ps->end || at_newline(ps))
			return 0;
		n = text_char(ps, "a comment");
		if (n < 0)
			return ps->err;
		q += n;
	}
}

/* Skip whitespace, comments and newlines (between array elements). */
int rn_toml_skip_ws_nl(struct rn_toml_parser *ps)
{
	for (;;) {
		skip_ws(ps);
		if (rn_toml_skip_comment(ps))
			return ps->err;
		if (!at_newline(ps))
			return 0;
		rn_toml_eat_newline(ps);
	}
}

/* After a key/value pair or a header: optional whitespace and comment, then newline or EOF. */
int rn_toml_expect_eol(struct rn_toml_parser *ps, const char *after)
{
	char what[48];

	skip_ws(ps);
	if (rn_toml_skip_comment(ps))
		return ps->err;
	if (ps->p >= ps->end)
		return 0;
	if (at_newline(ps)) {
		rn_toml_eat_newline(ps);
		return 0;
	}
	rn_toml_describe(ps, ps->p, what, sizeof(what));
	return rn_toml_fail(ps, ps->p, "expected end of line after %s, found %s", after, what);
}

/* ---- Strings (TOML 1.0.0, section String) ----------------------------------------------- */

int rn_toml_hex_val(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Append code point `c` (a Unicode scalar value) as UTF-8. */
static void buf_add_utf8(struct rn_buf *b, uint32_t c)
{
	char u[4];
	size_t n;

	if (c < 0x80) {
		u[0] = (char)c;
		n = 1;
	} else if (c < 0x800) {
		u[0] = (char)(0xC0 | (c >> 6));
		u[1] = (char)(0x80 | (c & 0x3F));
		n = 2;
	} else if (c < 0x10000) {
		u[0] = (char)(0xE0 | (c >> 12));
		u[1] = (char)(0x80 | ((c >> 6) & 0x3F));
		u[2] = (char)(0x80 | (c & 0x3F));
		n = 3;
	} else {
		u[0] = (char)(0xF0 | (c >> 18));
		u[1] = (char)(0x80 | ((c >> 12) & 0x3F));
		u[2] = (char)(0x80 | ((c >> 6) & 0x3F));
		u[3] = (char)(0x80 | (c & 0x3F));
		n = 4;
	}
	rn_buf_add(b, u, n);
}

/*
 * Decode the escape sequence at ps->p (a backslash) into `out`. Section String lists the only
 * escapes: \b \t \n \f \r \" \\ \uXXXX \UXXXXXXXX; "any Unicode character may be escaped with
 * the \uXXXX or \UXXXXXXXX forms. The escape codes must be valid Unicode scalar values", so
 * surrogates and values past U+10FFFF are errors. All other escapes are reserved: errors.
 */
static int parse_escape(struct rn_toml_parser *ps, struct rn_buf *out)
{
	const char *at = ps->p;
	int c = peek(ps, 1), digits, i;
	uint32_t cp = 0;
	char what[48];

	switch (c) {
	case 'b':
		rn_buf_addc(out, '\b');
		break;
	case 't':
		rn_buf_addc(out, '\t');
		break;
	case 'n':
		rn_buf_addc(out, '\n');
		break;
	case 'f':
		rn_buf_addc(out, '\f');
		break;
	case 'r':
		rn_buf_addc(out, '\r');
		break;
	case '"':
		rn_buf_addc(out, '"');
		break;
	case '\\':
		rn_buf_addc(out, '\\');
		break;
	case 'u':
	case 'U':
		digits = c == 'u' ? 4 : 8;
		for (i = 0; i < digits; i++) {
			int h = rn_toml_hex_val(peek(ps, 2 + (size_t)i));

			if (h < 0) {
				rn_toml_describe(ps, at + 2 + i, what, sizeof(what));
				return rn_toml_fail(ps, at,
						    "invalid escape '\\%c': expected %d hex "
						    "digits, found %s",
						    c, digits, what);
			}
			cp = (cp << 4) | (uint32_t)h;
		}
		if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
			return rn_toml_fail(ps, at,
					    "invalid escape '%.*s': U+%04X is not a unicode scalar "
					    "value",
					    digits + 2, at, (unsigned)cp);
		buf_add_utf8(out, cp);
		ps->p += 2 + (size_t)digits;
		return 0;
	default:
		if (c > 0x20 && c < 0x7F)
			return rn_toml_fail(ps, at, "invalid escape '\\%c' in string", c);
		rn_toml_describe(ps, at + 1, what, sizeof(what));
		return rn_toml_fail(ps, at, "invalid escape in string: backslash followed by %s",
				    what);
	}
	ps->p += 2;
	return 0;
}

/*
 * A run of closing quotes `q` in a multi-line string, ps->p at the first. Section String:
 * "You can write a quotation mark, or two adjacent quotation marks, anywhere inside a
 * multi-line string", including right before the delimiter, so a run of 3 to 5 quotes closes
 * the string and its first n - 3 belong to the content. Returns 1 when closed, 0 when the run
 * is content (appended), -1 on error.
 */
static int ml_quotes(struct rn_toml_parser *ps, char q, struct rn_buf *out)
{
	size_t n = 0;

	while (peek(ps, n) == q)
		n++;
	if (n > 5)
		return rn_toml_fail(ps, ps->p + 5,
				    "too many quotes at the end of a multi-line string "
				    "(at most 2 may precede the closing %c%c%c)",
				    q, q, q);
	if (n < 3) {
		rn_buf_add(out, ps->p, n);
		ps->p += n;
		return 0;
	}
	rn_buf_add(out, ps->p, n - 3);
	ps->p += n;
	return 1;
}

/*
 * Parse any of the four string kinds at ps->p into `out` (decoded UTF-8). `ml_allowed` allows
 * multi-line forms (keys may not use them).
 */
/* Fast path of parse_string: copy a run of printable ASCII (and tab) up to the quote `q` (or,
 * in a basic string, a backslash) in one go. */
static void string_copy_run(struct rn_toml_parser *ps, struct rn_buf *out, char q, bool basic)
{
	const char *run = ps->p;

	while (run < ps->end && ((*run >= 0x20 && *run < 0x7F) || *run == '\t') && *run != q &&
	       (*run != '\\' || !basic))
		run++;
	if (run > ps->p) {
		rn_buf_add(out, ps->p, (size_t)(run - ps->p));
		ps->p = run;
	}
}

/* A backslash in a basic string (at ps->p): an escape, or in a multi-line string a line
 * ending backslash. 0 or -1 (failed, diagnostic set). */
static int string_backslash(struct rn_toml_parser *ps, struct rn_buf *out, bool ml)
{
	const char *bs = ps->p, *after = ps->p + 1;

	/* Section String, multi-line basic strings: "When the last non-whitespace character on a
	 * line is an unescaped \, it will be trimmed along with all whitespace (including
	 * newlines) up to the next non-whitespace character or closing delimiter." */
	while (ml && after < ps->end && (*after == ' ' || *after == '\t'))
		after++;
	ps->p = after;
	if (ml && at_newline(ps)) {
		while (ps->p < ps->end) {
			if (at_newline(ps))
				rn_toml_eat_newline(ps);
			else if (*ps->p == ' ' || *ps->p == '\t')
				ps->p++;
			else
				break;
		}
		return 0;
	}
	ps->p = bs;
	return parse_escape(ps, out) ? ps->err : 0;
}

/* The diagnostic for a string that reached the end of the document. */
static int string_unterminated(struct rn_toml_parser *ps, const char *open, bool basic, bool ml)
{
	return rn_toml_fail(ps, open, "unterminated %s%s (missing closing %s)",
			    ml ? "multi-line " : "", basic ? "basic string" : "literal string",
			    basic ? (ml ? "\"\"\"" : "'\"'") : (ml ? "'''" : "\"'\""));
}

/* One step of parse_string at ps->p (not at the end, not at a run of plain characters): 1 when
 * the closing delimiter was consumed, 0 to go on, -1 on failure (diagnostic set). */
static int string_step(struct rn_toml_parser *ps, struct rn_buf *out, const char *open, char q,
		       bool ml)
{
	bool basic = q == '"';
	int n;

	if (*ps->p == q) {
		if (!ml) {
			ps->p++;
			return 1;
		}
		n = ml_quotes(ps, q, out);
		return n < 0 ? ps->err : n ? 1 : 0;
	}
	if (at_newline(ps)) {
		if (!ml)
			return rn_toml_fail(ps, open,
					    "unterminated %s (newlines are not "
					    "allowed in single-line strings)",
					    basic ? "basic string" : "literal string");
		/* CRLF becomes LF so a value does not depend on the checkout's line endings; the
		 * spec lets parsers normalize newlines this way. */
		rn_toml_eat_newline(ps);
		rn_buf_addc(out, '\n');
		return 0;
	}
	if (basic && *ps->p == '\\')
		return string_backslash(ps, out, ml);
	n = text_char(ps,
		      basic ? (ml ? "a multi-line basic string" : "a basic string") :
			      (ml ? "a multi-line literal string" : "a literal string"));
	if (n < 0)
		return ps->err;
	rn_buf_add(out, ps->p, (size_t)n);
	ps->p += n;
	return 0;
}

int rn_toml_parse_string(struct rn_toml_parser *ps, struct rn_buf *out, bool ml_allowed)
{
	const char *open = ps->p;
	char q = *ps->p;
	bool ml = peek(ps, 1) == q && peek(ps, 2) == q;
	bool basic = q == '"';
	int rc;

	if (ml && !ml_allowed)
		return rn_toml_fail(ps, open, "a multi-line string cannot be used as a key");
	ps->p += ml ? 3 : 1;
	/* "A newline immediately following the opening delimiter will be trimmed." */
	if (ml && at_newline(ps))
		rn_toml_eat_newline(ps);
	for (;;) {
		string_copy_run(ps, out, q, basic);
		if (ps->p >= ps->end)
			return string_unterminated(ps, open, basic, ml);
		rc = string_step(ps, out, open, q, ml);
		if (rc < 0)
			return ps->err;
		if (rc)
			break;
	}
	if (rn_buf_failed(out))
		return rn_toml_oom(ps);
	return 0;
}
