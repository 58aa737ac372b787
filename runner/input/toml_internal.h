/*
 * toml_internal.h - what the TOML parser's files share (rn_toml only; the API is toml.h).
 *
 * toml_lex.c: errors, positions, whitespace, comments, strings; toml_value.c: numbers, dates,
 * scalars, arrays, inline tables; toml.c: the tree, keys, table headers, the document and the
 * queries. Every int-returning parse function returns 0 or a negative errno (-EINVAL for a
 * document error, -ENOMEM for memory) with the first error recorded in ps->d and its code in
 * ps->err, which a caller passing a failure up returns; a few return a count, a value or an
 * index (-1: none) where their comment says so.
 */
#ifndef RN_TOML_INTERNAL_H
#define RN_TOML_INTERNAL_H

#include <locale.h>
#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "diag.h"
#include "toml.h"

/*
 * Parser-private state of a table (struct rn_toml_table.flags). TOML 1.0.0 lets a table come
 * into being in several ways and the redefinition rules depend on which one it was, so each
 * table remembers how it was created.
 */
enum rn_toml_table_flags {
	RN_TOML_TF_IMPLICIT =
		1 << 0, /* created as a prefix of a [header] path: [x] may still define it */
	RN_TOML_TF_DEFINED =
		1 << 1, /* defined by a [header], a [[header]] or the root: closed to [x] */
	RN_TOML_TF_DOTTED =
		1 << 2, /* created by a dotted key: only more dotted keys may extend it */
	RN_TOML_TF_INLINE = 1 << 3,   /* inline table, complete: sealed against any addition */
	RN_TOML_TF_AOT_ELEM = 1 << 4, /* an element of an array of tables ([[header]]) */
};

/* Longest source excerpt quoted in a message. */
#define RN_TOML_QUOTE_MAX 64

struct rn_toml_parser {
	const char *text;           /* the input after a leading BOM: line 1, column 1 */
	const char *end;            /* one past the last byte */
	const char *p;              /* cursor */
	struct rn_diag *d;          /* where the first error goes */
	int line;                   /* line of the cursor (every newline goes through
				      * rn_toml_eat_newline(), which counts it) */
	const char *line_start;     /* first byte of that line */
	const char *col_ptr;        /* column cache: a pointer on the current line... */
	int col;                    /* ...and its column */
	locale_t c_locale;          /* "C" locale for strtod_l, created on first float */
	struct rn_buf scratch;      /* decoded text of the string being parsed, reused */
	struct rn_buf keybuf;       /* decoded text of the quoted key being parsed, reused */
	struct rn_toml_table *root; /* the document's table */
	struct rn_toml_table *cur;  /* table receiving key/value pairs (last header) */
	int cur_depth;              /* nesting depth of `cur` (root = 0) */
	int err;                    /* the first error's code (-EINVAL, -ENOMEM), 0 before one */
};

/* A key segment as parsed, until rn_toml_value_new() copies it into the block of its value. */
struct rn_toml_key {
	const char *s; /* the bytes: in the source (bare key) or in parser.keybuf (quoted) */
	size_t len;    /* bytes in s */
	char *copy;    /* NUL-terminated copy in the value's block, set by rn_toml_value_new() */
};

/* The byte at p + k as 0..255, or -1 past the end. */
static inline int peek(const struct rn_toml_parser *ps, size_t k)
{
	return (size_t)(ps->end - ps->p) > k ? (unsigned char)ps->p[k] : -1;
}

/* TOML 1.0.0, section Spec: "Whitespace means tab (0x09) or space (0x20)". */
static inline void skip_ws(struct rn_toml_parser *ps)
{
	const char *q = ps->p; /* a local: stores through char pointers could alias ps->p */

	while (q < ps->end && (*q == ' ' || *q == '\t'))
		q++;
	ps->p = q;
}

/* Newline means LF or CRLF (section Spec); a bare CR is not one. */
static inline bool at_newline(const struct rn_toml_parser *ps)
{
	return peek(ps, 0) == '\n' || (peek(ps, 0) == '\r' && peek(ps, 1) == '\n');
}

/* ---- Errors and positions (toml_lex.c) ---- */

/* Line and column (code points) of `at`, a pointer into the input (cached per line). */
struct rn_toml_pos rn_toml_pos_of(struct rn_toml_parser *ps, const char *at);
/* Record an error at `at` (a pointer into the input), formatted as printf. Returns ps->err:
 * -EINVAL, or the code of an error recorded before. */
int rn_toml_fail(struct rn_toml_parser *ps, const char *at, const char *fmt, ...) RN_PRINTF(3, 4);
/* Allocation failure: an error without a location (not the document's fault). Returns ps->err:
 * -ENOMEM, or the code of an error recorded before. */
int rn_toml_oom(struct rn_toml_parser *ps);
/* Describe the character at `at` for "found ..." in messages, into out[size]. */
void rn_toml_describe(const struct rn_toml_parser *ps, const char *at, char *out, size_t size);
/* Copy source text [from, to) into out[size] for quoting in a message, shortened with "..." if
 * long; returns `out`. */
const char *rn_toml_excerpt(const char *from, const char *to, char *out, size_t size);

/* ---- Lexical helpers and strings (toml_lex.c) ---- */

/* Consume the newline (LF or CRLF) at ps->p and count the line. */
void rn_toml_eat_newline(struct rn_toml_parser *ps);
/* Skip a comment if one starts here (control characters other than tab are errors). */
int rn_toml_skip_comment(struct rn_toml_parser *ps);
/* Skip whitespace, comments and newlines (between array elements). */
int rn_toml_skip_ws_nl(struct rn_toml_parser *ps);
/* After a key/value pair or a header (`after` names it for the message): optional whitespace
 * and comment, then a newline or the end. */
int rn_toml_expect_eol(struct rn_toml_parser *ps, const char *after);
/* The value of hex digit `c`, or -1. */
int rn_toml_hex_val(int c);
/* Parse a basic or literal string at ps->p (multi-line forms only if `ml_allowed`) into `out`
 * (reset first), escapes decoded. */
int rn_toml_parse_string(struct rn_toml_parser *ps, struct rn_buf *out, bool ml_allowed);

/* ---- Tree and keys (toml.c) ---- */

/* A new value of `type` at `pos` in one block holding also, for a string, a copy of `slen`
 * bytes of `text`, and a NUL-terminated copy of key `k` (if not NULL; sets k->copy). A table
 * value gets an empty table. NULL on out of memory. */
struct rn_toml_value *rn_toml_value_new(enum rn_toml_type type, struct rn_toml_pos pos,
					struct rn_toml_key *k, const char *text, size_t slen);
/* Index of key [key, key + len) in t->kv, or -1. */
long rn_toml_table_find(const struct rn_toml_table *t, const char *key, size_t len);
/* Append k -> val to t, where val was made by rn_toml_value_new() with k. Takes ownership of
 * `val` in every case (freed on failure). Returns 0 or -ENOMEM. */
int rn_toml_table_add(struct rn_toml_parser *ps, struct rn_toml_table *t,
		      const struct rn_toml_key *k, struct rn_toml_pos key_pos,
		      struct rn_toml_value *val);
/* Append `item` to array value `a`, taking ownership (freed on failure). 0 or -ENOMEM. */
int rn_toml_array_push(struct rn_toml_parser *ps, struct rn_toml_value *a,
		       struct rn_toml_value *item);
/* Is `v` an array of tables (made by [[header]]), as opposed to a static array? */
bool rn_toml_is_aot(const struct rn_toml_value *v);
/* ASCII letter, digit, '_' or '-' (section Keys). */
bool rn_toml_is_bare_key_char(int c);
/* Parse one key segment (bare, basic or literal) at ps->p into *k; k->s stays valid until the
 * next quoted key is parsed. */
int rn_toml_parse_key_segment(struct rn_toml_parser *ps, struct rn_toml_key *k);
/* Check the nesting bound (RN_TOML_MAX_DEPTH) before going one level deeper. */
int rn_toml_check_depth(struct rn_toml_parser *ps, const char *at, int depth);
/* Parse `key = value` at ps->p into table t (at nesting depth `depth`): dotted keys create and
 * extend tables created by dotted keys only, and no key may be defined twice. */
int rn_toml_parse_keyval(struct rn_toml_parser *ps, struct rn_toml_table *t, int depth);

/* ---- Values (toml_value.c) ---- */

/* Parse the integer or float spelled by [s, e) into v. */
int rn_toml_parse_number(struct rn_toml_parser *ps, const char *s, const char *e,
			 struct rn_toml_value *v);
/* Does [s, e) start like a date (YYYY-)? */
bool rn_toml_looks_like_date(const char *s, const char *e);
/* Does [s, e) start like a time (HH:)? */
bool rn_toml_looks_like_time(const char *s, const char *e);
/* Parse a date-time, local date or local time spelled by [s, e) into v. */
int rn_toml_parse_datetime(struct rn_toml_parser *ps, const char *s, const char *e,
			   struct rn_toml_value *v);
/* Parse any value at ps->p into a new tree *out at nesting depth `depth`, to be stored under
 * key `k` (NULL for an array element; see rn_toml_value_new()). */
int rn_toml_parse_value(struct rn_toml_parser *ps, int depth, struct rn_toml_key *k,
			struct rn_toml_value **out);

#endif
