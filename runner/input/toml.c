#include "toml.h"

#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "xalloc.h"

/*
 * Parser-private state of a table (struct rn_toml_table.flags). TOML 1.0.0 lets a table come
 * into being in several ways and the redefinition rules depend on which one it was, so each
 * table remembers how it was created.
 */
enum table_flags {
	TF_IMPLICIT = 1 << 0, /* created as a prefix of a [header] path: [x] may still define it */
	TF_DEFINED = 1 << 1,  /* defined by a [header], a [[header]] or the root: closed to [x] */
	TF_DOTTED = 1 << 2,   /* created by a dotted key: only more dotted keys may extend it */
	TF_INLINE = 1 << 3,   /* inline table, complete: sealed against any addition */
	TF_AOT_ELEM = 1 << 4, /* an element of an array of tables ([[header]]) */
};

/* Tables with more keys than this get a hash index, so duplicate checks stay O(1). */
#define INDEX_MIN_KEYS 16

/* Open-addressing hash index of a table's keys (struct rn_toml_table.index). */
struct kv_index {
	size_t cap;   /* slots, a power of two, kept at most half full */
	size_t *slot; /* 1 + index into the table's kv array; 0 = empty */
};

/* Longest source excerpt quoted in a message. */
#define QUOTE_MAX 64

struct parser {
	const char *text;           /* the input after a leading BOM: line 1, column 1 */
	const char *end;            /* one past the last byte */
	const char *p;              /* cursor */
	struct rn_diag *d;          /* where the first error goes */
	int line;                   /* line of the cursor (every newline goes through
				      * eat_newline(), which counts it) */
	const char *line_start;     /* first byte of that line */
	const char *col_ptr;        /* column cache: a pointer on the current line... */
	int col;                    /* ...and its column */
	locale_t c_locale;          /* "C" locale for strtod_l, created on first float */
	struct rn_buf scratch;      /* decoded text of the string being parsed, reused */
	struct rn_buf keybuf;       /* decoded text of the quoted key being parsed, reused */
	struct rn_toml_table *root; /* the document's table */
	struct rn_toml_table *cur;  /* table receiving key/value pairs (last header) */
	int cur_depth;              /* nesting depth of `cur` (root = 0) */
};

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
static struct rn_toml_pos pos_of(struct parser *ps, const char *at)
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

/* Record an error at `at` (a pointer into the input); returns -1. */
static int fail(struct parser *ps, const char *at, const char *fmt, ...) RN_PRINTF(3, 4);
static int fail(struct parser *ps, const char *at, const char *fmt, ...)
{
	char msg[RN_DIAG_MSG_MAX];
	struct rn_toml_pos pos;
	va_list ap;

	/* The column is counted from after the BOM (editors do not show one), which is why this
	 * computes the position itself rather than calling rn_diag_set_at(). */
	pos = pos_of(ps, at < ps->text ? ps->text : at);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return rn_diag_set(ps->d, pos.line, pos.col, "%s", msg);
}

/* Allocation failure: no location, it is not the document's fault. Returns -1. */
static int oom(struct parser *ps)
{
	return rn_diag_set(ps->d, 0, 0, "out of memory");
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
static void describe(const struct parser *ps, const char *at, char *out, size_t size)
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
static const char *excerpt(const char *from, const char *to, char *out, size_t size)
{
	size_t n = (size_t)(to - from);

	if (n <= QUOTE_MAX) {
		snprintf(out, size, "%.*s", (int)n, from);
		return out;
	}
	/* Cut on a code point boundary so the message stays valid UTF-8. */
	n = QUOTE_MAX;
	while (n > 0 && ((unsigned char)from[n] & 0xC0) == 0x80)
		n--;
	snprintf(out, size, "%.*s...", (int)n, from);
	return out;
}

/* "an integer", "a table", ... for messages about a key that already holds a value. */
static const char *a_type(const struct rn_toml_value *v)
{
	switch (v->type) {
	case RN_TOML_STRING:
		return "a string";
	case RN_TOML_INTEGER:
		return "an integer";
	case RN_TOML_FLOAT:
		return "a float";
	case RN_TOML_BOOL:
		return "a boolean";
	case RN_TOML_DATETIME:
		return "an offset date-time";
	case RN_TOML_DATETIME_LOCAL:
		return "a local date-time";
	case RN_TOML_DATE_LOCAL:
		return "a local date";
	case RN_TOML_TIME_LOCAL:
		return "a local time";
	case RN_TOML_ARRAY:
		return "an array";
	case RN_TOML_TABLE:
		return "a table";
	}
	return "a value";
}

/* ---- Tree construction ------------------------------------------------------------------ */

/*
 * Allocation layout: allocations dominate the parse time, so each value is one block holding
 * the struct, then its table (a table value) or its text (a string value), then a copy of the
 * key it is stored under (struct rn_toml_kv.key points there). Only rn_toml_free() and
 * table_release() know this; the header just says the tree owns every pointer in it.
 */
struct table_value {
	struct rn_toml_value v; /* must be first: freed through &tv->v */
	struct rn_toml_table t; /* v.u.table points here */
};

/* A key segment as parsed, until value_new() copies it into the block of its value. */
struct key {
	const char *s; /* the bytes: in the source (bare key) or in parser.keybuf (quoted) */
	size_t len;    /* bytes in s */
	char *copy;    /* NUL-terminated copy in the value's block, set by value_new() */
};

static void table_release(struct rn_toml_table *t);

void rn_toml_free(struct rn_toml_value *v)
{
	size_t i;

	if (!v)
		return;
	switch (v->type) {
	case RN_TOML_ARRAY:
		for (i = 0; i < v->u.array.n; i++)
			rn_toml_free(v->u.array.items[i]);
		free(v->u.array.items);
		break;
	case RN_TOML_TABLE:
		table_release(v->u.table);
		break;
	default:
		break; /* a string's text and the key are part of the value's block */
	}
	free(v);
}

static void index_free(struct rn_toml_table *t)
{
	struct kv_index *ix = t->index;

	if (ix) {
		free(ix->slot);
		free(ix);
		t->index = NULL;
	}
}

/* Free what a table owns (not the table itself: it lives in its value's block). */
static void table_release(struct rn_toml_table *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		rn_toml_free(t->kv[i].val); /* the key is part of the value's block */
	free(t->kv);
	index_free(t);
}

/*
 * A new value of `type` at `pos` in one block holding also, for a string, a copy of `slen`
 * bytes of `text`, and a NUL-terminated copy of key `k` (if not NULL; sets k->copy). A table
 * value gets an empty table. NULL on out of memory.
 */
static struct rn_toml_value *value_new(enum rn_toml_type type, struct rn_toml_pos pos,
				       struct key *k, const char *text, size_t slen)
{
	size_t head =
		type == RN_TOML_TABLE ? sizeof(struct table_value) : sizeof(struct rn_toml_value);
	size_t klen = k ? k->len + 1 : 0, tlen = type == RN_TOML_STRING ? slen + 1 : 0;
	struct rn_toml_value *v;
	char *tail;

	if (tlen > SIZE_MAX / 2 || klen > SIZE_MAX / 4)
		return NULL;
	v = rn_malloc(head + tlen + klen);
	if (!v)
		return NULL;
	memset(v, 0, head);
	v->type = type;
	v->pos = pos;
	tail = (char *)v + head;
	if (type == RN_TOML_TABLE) {
		v->u.table = &((struct table_value *)v)->t;
	} else if (type == RN_TOML_STRING) {
		v->u.str.ptr = tail;
		v->u.str.len = slen;
		if (slen)
			memcpy(tail, text, slen);
		tail[slen] = '\0';
		tail += tlen;
	}
	if (k) {
		if (k->len)
			memcpy(tail, k->s, k->len);
		tail[k->len] = '\0';
		k->copy = tail;
	}
	return v;
}

/* FNV-1a: keys are short and this needs no state. */
static size_t hash_key(const char *key, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)key[i];
		h *= 0x100000001b3ULL;
	}
	return (size_t)h;
}

static void index_put(struct kv_index *ix, const struct rn_toml_kv *kv, size_t i)
{
	size_t mask = ix->cap - 1, s = hash_key(kv->key, kv->key_len) & mask;

	while (ix->slot[s])
		s = (s + 1) & mask;
	ix->slot[s] = i + 1;
}

/*
 * Make the index cover all of t->kv, growing it when half full. The index only speeds up
 * lookups: if it cannot be allocated it is dropped and lookups scan linearly, so this never
 * fails.
 */
static void index_update(struct rn_toml_table *t)
{
	struct kv_index *ix = t->index;
	size_t cap, i;

	if (t->n <= INDEX_MIN_KEYS)
		return;
	if (ix && t->n * 2 <= ix->cap) {
		index_put(ix, &t->kv[t->n - 1], t->n - 1);
		return;
	}
	index_free(t);
	for (cap = 64; cap < t->n * 2; cap *= 2)
		;
	ix = rn_malloc(sizeof(*ix));
	if (!ix)
		return;
	ix->cap = cap;
	ix->slot = rn_calloc(cap, sizeof(*ix->slot));
	if (!ix->slot) {
		free(ix);
		return;
	}
	for (i = 0; i < t->n; i++)
		index_put(ix, &t->kv[i], i);
	t->index = ix;
}

/* Index of `key` in t->kv, or -1. */
static long table_find(const struct rn_toml_table *t, const char *key, size_t len)
{
	const struct kv_index *ix = t->index;
	size_t i;

	if (ix) {
		size_t mask = ix->cap - 1, s = hash_key(key, len) & mask;

		for (; ix->slot[s]; s = (s + 1) & mask) {
			const struct rn_toml_kv *kv = &t->kv[ix->slot[s] - 1];

			if (kv->key_len == len && !memcmp(kv->key, key, len))
				return (long)(ix->slot[s] - 1);
		}
		return -1;
	}
	for (i = 0; i < t->n; i++)
		if (t->kv[i].key_len == len && !memcmp(t->kv[i].key, key, len))
			return (long)i;
	return -1;
}

/*
 * Append k -> val to t, where val was made by value_new() with k (so k->copy is in its block).
 * Takes ownership of `val` in every case (freed on failure). Returns 0 or -1 (out of memory).
 */
static int table_add(struct parser *ps, struct rn_toml_table *t, const struct key *k,
		     struct rn_toml_pos key_pos, struct rn_toml_value *val)
{
	struct rn_toml_kv *kv;

	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 8;

		kv = rn_realloc(t->kv, cap * sizeof(*kv));
		if (!kv) {
			rn_toml_free(val);
			return oom(ps);
		}
		t->kv = kv;
		t->cap = cap;
	}
	kv = &t->kv[t->n++];
	kv->key = k->copy;
	kv->key_len = k->len;
	kv->key_pos = key_pos;
	kv->val = val;
	index_update(t);
	return 0;
}

/*
 * Append `item` to array value `a`, taking ownership (freed on failure). The capacity is not
 * stored: it is 4, 8, 16, ... so the array is full exactly when n is 0 or a power of two >= 4.
 */
static int array_push(struct parser *ps, struct rn_toml_value *a, struct rn_toml_value *item)
{
	size_t n = a->u.array.n;

	if (n == 0 || (n >= 4 && !(n & (n - 1)))) {
		size_t cap = n ? n * 2 : 4;
		struct rn_toml_value **items;

		if (cap > SIZE_MAX / sizeof(*items)) {
			rn_toml_free(item);
			return oom(ps);
		}
		items = rn_realloc(a->u.array.items, cap * sizeof(*items));
		if (!items) {
			rn_toml_free(item);
			return oom(ps);
		}
		a->u.array.items = items;
	}
	a->u.array.items[a->u.array.n++] = item;
	return 0;
}

/* Is `v` an array of tables (made by [[header]]), as opposed to a static array? Arrays of
 * tables are never empty and all their elements carry TF_AOT_ELEM; inline tables never do. */
static bool is_aot(const struct rn_toml_value *v)
{
	return v->type == RN_TOML_ARRAY && v->u.array.n > 0 &&
		v->u.array.items[0]->type == RN_TOML_TABLE &&
		(v->u.array.items[0]->u.table->flags & TF_AOT_ELEM);
}

/* ---- Lexical helpers -------------------------------------------------------------------- */

/* The byte at p + k as 0..255, or -1 past the end. */
static int peek(const struct parser *ps, size_t k)
{
	return (size_t)(ps->end - ps->p) > k ? (unsigned char)ps->p[k] : -1;
}

/* TOML 1.0.0, section Spec: "Whitespace means tab (0x09) or space (0x20)". */
static void skip_ws(struct parser *ps)
{
	const char *q = ps->p; /* a local: stores through char pointers could alias ps->p */

	while (q < ps->end && (*q == ' ' || *q == '\t'))
		q++;
	ps->p = q;
}

/* Newline means LF or CRLF (section Spec); a bare CR is not one. */
static bool at_newline(const struct parser *ps)
{
	return peek(ps, 0) == '\n' || (peek(ps, 0) == '\r' && peek(ps, 1) == '\n');
}

static void eat_newline(struct parser *ps)
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
static int text_char(struct parser *ps, const char *where)
{
	uint32_t cp;
	int n = utf8_decode(ps->p, ps->end, &cp);

	if (!n)
		return fail(ps, ps->p, "invalid UTF-8 byte 0x%02x in %s", (unsigned char)*ps->p,
			    where);
	if (cp == '\r')
		return fail(ps, ps->p, "carriage return without a line feed in %s", where);
	if (is_control(cp))
		return fail(ps, ps->p, "control character U+%04X is not allowed in %s",
			    (unsigned)cp, where);
	return n;
}

/* Skip a comment if one starts here. TOML 1.0.0, section Comment: control characters other
 * than tab are not permitted in comments. */
static int skip_comment(struct parser *ps)
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
			return -1;
		q += n;
	}
}

/* Skip whitespace, comments and newlines (between array elements). */
static int skip_ws_nl(struct parser *ps)
{
	for (;;) {
		skip_ws(ps);
		if (skip_comment(ps))
			return -1;
		if (!at_newline(ps))
			return 0;
		eat_newline(ps);
	}
}

/* After a key/value pair or a header: optional whitespace and comment, then newline or EOF. */
static int expect_eol(struct parser *ps, const char *after)
{
	char what[48];

	skip_ws(ps);
	if (skip_comment(ps))
		return -1;
	if (ps->p >= ps->end)
		return 0;
	if (at_newline(ps)) {
		eat_newline(ps);
		return 0;
	}
	describe(ps, ps->p, what, sizeof(what));
	return fail(ps, ps->p, "expected end of line after %s, found %s", after, what);
}

/* ---- Strings (TOML 1.0.0, section String) ----------------------------------------------- */

static int hex_val(int c)
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
static int parse_escape(struct parser *ps, struct rn_buf *out)
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
			int h = hex_val(peek(ps, 2 + (size_t)i));

			if (h < 0) {
				describe(ps, at + 2 + i, what, sizeof(what));
				return fail(ps, at,
					    "invalid escape '\\%c': expected %d hex "
					    "digits, found %s",
					    c, digits, what);
			}
			cp = (cp << 4) | (uint32_t)h;
		}
		if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
			return fail(ps, at,
				    "invalid escape '%.*s': U+%04X is not a unicode scalar "
				    "value",
				    digits + 2, at, (unsigned)cp);
		buf_add_utf8(out, cp);
		ps->p += 2 + (size_t)digits;
		return 0;
	default:
		if (c > 0x20 && c < 0x7F)
			return fail(ps, at, "invalid escape '\\%c' in string", c);
		describe(ps, at + 1, what, sizeof(what));
		return fail(ps, at, "invalid escape in string: backslash followed by %s", what);
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
static int ml_quotes(struct parser *ps, char q, struct rn_buf *out)
{
	size_t n = 0;

	while (peek(ps, n) == q)
		n++;
	if (n > 5)
		return fail(ps, ps->p + 5,
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
static void string_copy_run(struct parser *ps, struct rn_buf *out, char q, bool basic)
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
static int string_backslash(struct parser *ps, struct rn_buf *out, bool ml)
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
				eat_newline(ps);
			else if (*ps->p == ' ' || *ps->p == '\t')
				ps->p++;
			else
				break;
		}
		return 0;
	}
	ps->p = bs;
	return parse_escape(ps, out) ? -1 : 0;
}

/* The diagnostic for a string that reached the end of the document. */
static int string_unterminated(struct parser *ps, const char *open, bool basic, bool ml)
{
	return fail(ps, open, "unterminated %s%s (missing closing %s)", ml ? "multi-line " : "",
		    basic ? "basic string" : "literal string",
		    basic ? (ml ? "\"\"\"" : "'\"'") : (ml ? "'''" : "\"'\""));
}

/* One step of parse_string at ps->p (not at the end, not at a run of plain characters): 1 when
 * the closing delimiter was consumed, 0 to go on, -1 on failure (diagnostic set). */
static int string_step(struct parser *ps, struct rn_buf *out, const char *open, char q, bool ml)
{
	bool basic = q == '"';
	int n;

	if (*ps->p == q) {
		if (!ml) {
			ps->p++;
			return 1;
		}
		n = ml_quotes(ps, q, out);
		return n < 0 ? -1 : n ? 1 : 0;
	}
	if (at_newline(ps)) {
		if (!ml)
			return fail(ps, open,
				    "unterminated %s (newlines are not "
				    "allowed in single-line strings)",
				    basic ? "basic string" : "literal string");
		/* CRLF becomes LF so a value does not depend on the checkout's line endings; the
		 * spec lets parsers normalize newlines this way. */
		eat_newline(ps);
		rn_buf_addc(out, '\n');
		return 0;
	}
	if (basic && *ps->p == '\\')
		return string_backslash(ps, out, ml);
	n = text_char(ps,
		      basic ? (ml ? "a multi-line basic string" : "a basic string") :
			      (ml ? "a multi-line literal string" : "a literal string"));
	if (n < 0)
		return -1;
	rn_buf_add(out, ps->p, (size_t)n);
	ps->p += n;
	return 0;
}

static int parse_string(struct parser *ps, struct rn_buf *out, bool ml_allowed)
{
	const char *open = ps->p;
	char q = *ps->p;
	bool ml = peek(ps, 1) == q && peek(ps, 2) == q;
	bool basic = q == '"';
	int rc;

	if (ml && !ml_allowed)
		return fail(ps, open, "a multi-line string cannot be used as a key");
	ps->p += ml ? 3 : 1;
	/* "A newline immediately following the opening delimiter will be trimmed." */
	if (ml && at_newline(ps))
		eat_newline(ps);
	for (;;) {
		string_copy_run(ps, out, q, basic);
		if (ps->p >= ps->end)
			return string_unterminated(ps, open, basic, ml);
		rc = string_step(ps, out, open, q, ml);
		if (rc < 0)
			return -1;
		if (rc)
			break;
	}
	if (rn_buf_failed(out))
		return oom(ps);
	return 0;
}

/* ---- Keys (TOML 1.0.0, section Keys) ---------------------------------------------------- */

static bool is_bare_key_char(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		c == '_' || c == '-';
}

/*
 * Parse one key segment (bare, basic or literal) at ps->p into *k. "Bare keys may only
 * contain ASCII letters, ASCII digits, underscores, and dashes"; quoted keys follow the string
 * rules and may be empty. k->s stays valid until the next quoted key is parsed.
 */
static int parse_key_segment(struct parser *ps, struct key *k)
{
	const char *start = ps->p, *q = start;
	char what[48];

	if (peek(ps, 0) == '"' || peek(ps, 0) == '\'') {
		rn_buf_reset(&ps->keybuf);
		if (parse_string(ps, &ps->keybuf, false))
			return -1;
		k->s = ps->keybuf.buf;
		k->len = ps->keybuf.len;
		return 0;
	}
	while (q < ps->end && is_bare_key_char(*q))
		q++;
	if (q == start) {
		describe(ps, start, what, sizeof(what));
		return fail(ps, start, "expected a key, found %s", what);
	}
	ps->p = q;
	k->s = start;
	k->len = (size_t)(q - start);
	return 0;
}

/* Check the nesting bound before going one level deeper (depth = the new level). */
static int check_depth(struct parser *ps, const char *at, int depth)
{
	if (depth > RN_TOML_MAX_DEPTH)
		return fail(ps, at, "nesting is deeper than %d levels", RN_TOML_MAX_DEPTH);
	return 0;
}

static int parse_value(struct parser *ps, int depth, struct key *k, struct rn_toml_value **out);

/*
 * Parse `key = value` at ps->p into table t (at nesting depth `depth`). Section Keys and
 * Table: a dotted key creates and extends tables, but only tables that were themselves
 * created by dotted keys (not tables defined by a [header], not inline tables, which are
 * sealed), and no key may be defined twice.
 */
static int parse_keyval(struct parser *ps, struct rn_toml_table *t, int depth)
{
	const char *kstart = ps->p, *kend = NULL, *seg;
	char name[QUOTE_MAX + 8], what[48];
	struct rn_toml_value *v;
	struct rn_toml_pos seg_pos;
	struct key k;
	long i;

	for (;;) {
		seg = ps->p;
		if (parse_key_segment(ps, &k))
			return -1;
		kend = ps->p;
		skip_ws(ps);
		if (peek(ps, 0) != '.')
			break;
		ps->p++;
		skip_ws(ps);
		/* An intermediate segment: the table it names, created on first use. */
		if (check_depth(ps, seg, ++depth))
			return -1;
		i = table_find(t, k.s, k.len);
		if (i < 0) {
			v = value_new(RN_TOML_TABLE, pos_of(ps, seg), &k, NULL, 0);
			if (!v)
				return oom(ps);
			v->u.table->flags = TF_DOTTED;
			if (table_add(ps, t, &k, v->pos, v))
				return -1;
			t = v->u.table;
			continue;
		}
		v = t->kv[i].val;
		if (v->type == RN_TOML_TABLE && (v->u.table->flags & TF_DOTTED) &&
		    !(v->u.table->flags & TF_INLINE)) {
			t = v->u.table;
			continue;
		}
		excerpt(kstart, kend, name, sizeof(name));
		if (v->type != RN_TOML_TABLE)
			return fail(ps, seg,
				    "cannot use key '%s' as a table: it is already %s "
				    "(defined at line %d)",
				    name, a_type(v), v->pos.line);
		if (v->u.table->flags & TF_INLINE)
			return fail(ps, seg,
				    "cannot add keys to inline table '%s' (defined at "
				    "line %d): inline tables are complete",
				    name, v->pos.line);
		/* "using dotted keys to redefine tables already defined in [table] form is not
		 * allowed". A table only created implicitly by a longer header ([a.b.c] makes
		 * a.b) is refused too: the spec is ambiguous there (toml-lang/toml#846) and
		 * implementations differ; refusing keeps each table's keys in one place. */
		return fail(ps, seg,
			    "cannot add keys to table '%s' with a dotted key: it was "
			    "defined by a table header at line %d",
			    name, v->pos.line);
	}
	seg_pos = pos_of(ps, seg);
	i = table_find(t, k.s, k.len);
	if (i >= 0) {
		excerpt(kstart, kend, name, sizeof(name));
		return fail(ps, seg, "duplicate key '%s' (first defined at line %d)", name,
			    t->kv[i].key_pos.line);
	}
	if (peek(ps, 0) != '=') {
		excerpt(kstart, kend, name, sizeof(name));
		describe(ps, ps->p, what, sizeof(what));
		return fail(ps, ps->p, "expected '=' after key '%s', found %s", name, what);
	}
	ps->p++;
	skip_ws(ps);
	/* The key is copied into the value's block when the value is created, before any
	 * nested key could overwrite parser.keybuf. */
	if (parse_value(ps, depth + 1, &k, &v))
		return -1;
	return table_add(ps, t, &k, seg_pos, v);
}

/* ---- Numbers (TOML 1.0.0, sections Integer and Float) ----------------------------------- */

static int digit_val(int c, int radix)
{
	int v = hex_val(c);

	return v >= 0 && v < radix ? v : -1;
}

/*
 * Scan digits of `radix` from *s, where "underscores are allowed between digits ... each
 * underscore must be surrounded by at least one digit on each side". Returns the number of
 * digits (0 if none) or -1 on a misplaced underscore; *s is left after the run.
 */
static long scan_digits(const char **s, const char *e, int radix)
{
	const char *q = *s;
	long n = 0;

	while (q < e) {
		if (*q == '_') {
			if (!n || q + 1 >= e || digit_val((unsigned char)q[1], radix) < 0)
				return -1;
			q++;
			continue;
		}
		if (digit_val((unsigned char)*q, radix) < 0)
			break;
		q++;
		n++;
	}
	*s = q;
	return n;
}

/* Convert a decimal float spelled in [s, e) (underscores already checked) to a double, in the
 * "C" locale whatever the process's LC_NUMERIC says. */
static int to_double(struct parser *ps, const char *s, const char *e, double *out)
{
	char small[128], *tmp = small, *endp;
	size_t n = 0, cap = sizeof(small);
	const char *q;

	if ((size_t)(e - s) >= cap) {
		cap = (size_t)(e - s) + 1;
		tmp = rn_malloc(cap);
		if (!tmp)
			return oom(ps);
	}
	for (q = s; q < e; q++)
		if (*q != '_')
			tmp[n++] = *q;
	tmp[n] = '\0';
	if (!ps->c_locale) {
		ps->c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
		if (!ps->c_locale) {
			if (tmp != small)
				free(tmp);
			return oom(ps);
		}
	}
	*out = strtod_l(tmp, &endp, ps->c_locale);
	if (tmp != small)
		free(tmp);
	return 0;
}

/*
 * Parse an integer or float spelled by the token [s, e). Section Integer: decimal with an
 * optional sign and no leading zeros; 0x/0o/0b prefixes (lowercase) without sign; "arbitrary
 * 64-bit signed integers ... should be accepted and handled losslessly. If an integer cannot
 * be represented losslessly, an error must be thrown." Section Float: an integer part
 * followed by a fractional part and/or an exponent part; "a fractional part is a decimal
 * point followed by one or more digits", "an exponent part ... may include leading zeros".
 */
/* An integer with a 0x, 0o or 0b prefix at q (s: the whole token, for messages). */
static int parse_radix_int(struct parser *ps, const char *s, const char *q, const char *e,
			   struct rn_toml_value *v)
{
	int tl = e - s > QUOTE_MAX ? QUOTE_MAX : (int)(e - s);
	int radix = q[1] == 'x' ? 16 : q[1] == 'o' ? 8 : 2;
	const char *int_start;
	uint64_t acc = 0;
	long n;

	if (q != s)
		return fail(ps, s,
			    "invalid integer '%.*s': a sign is not allowed with a "
			    "0%c prefix",
			    tl, s, q[1]);
	q += 2;
	int_start = q;
	n = scan_digits(&q, e, radix);
	if (n < 0)
		return fail(ps, s, "invalid integer '%.*s': '_' must be between digits", tl, s);
	if (!n || q != e)
		return fail(ps, s, "invalid integer '%.*s': expected base-%d digits", tl, s, radix);
	for (; int_start < e; int_start++) {
		if (*int_start == '_')
			continue;
		if (acc > ((uint64_t)INT64_MAX - (uint64_t)hex_val(*int_start)) / (uint64_t)radix)
			return fail(ps, s, "integer '%.*s' is out of range (int64)", tl, s);
		acc = acc * (uint64_t)radix + (uint64_t)hex_val(*int_start);
	}
	v->type = RN_TOML_INTEGER;
	v->u.integer = (int64_t)acc;
	return 0;
}

/* The fraction and exponent of a decimal number, after its integer part (*q advances);
 * *is_float is set when either is present. */
static int scan_float_tail(struct parser *ps, const char *s, const char **q, const char *e,
			   bool *is_float)
{
	int tl = e - s > QUOTE_MAX ? QUOTE_MAX : (int)(e - s);
	long n;

	if (*q < e && **q == '.') {
		(*q)++;
		*is_float = true;
		n = scan_digits(q, e, 10);
		if (n < 0)
			return fail(ps, s, "invalid float '%.*s': '_' must be between digits", tl,
				    s);
		if (!n)
			return fail(ps, s, "invalid float '%.*s': expected a digit after '.'", tl,
				    s);
	}
	if (*q < e && (**q == 'e' || **q == 'E')) {
		(*q)++;
		*is_float = true;
		if (*q < e && (**q == '+' || **q == '-'))
			(*q)++;
		n = scan_digits(q, e, 10);
		if (n < 0)
			return fail(ps, s, "invalid float '%.*s': '_' must be between digits", tl,
				    s);
		if (!n)
			return fail(ps, s, "invalid float '%.*s': expected a digit in the exponent",
				    tl, s);
	}
	return 0;
}

/* The value of the decimal integer digits [int_start, e) ('_' skipped), negated when neg. */
static int decimal_int(struct parser *ps, const char *s, const char *int_start, const char *e,
		       bool neg, struct rn_toml_value *v)
{
	int tl = e - s > QUOTE_MAX ? QUOTE_MAX : (int)(e - s);
	/* Accumulate the magnitude; -9223372036854775808 is in range, its negation is not. */
	uint64_t acc = 0, limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	const char *q;

	for (q = int_start; q < e; q++) {
		uint64_t dv;

		if (*q == '_')
			continue;
		dv = (uint64_t)(*q - '0');
		if (acc > (limit - dv) / 10)
			return fail(ps, s, "integer '%.*s' is out of range (int64)", tl, s);
		acc = acc * 10 + dv;
	}
	v->type = RN_TOML_INTEGER;
	v->u.integer = neg ? (int64_t)(0 - acc) : (int64_t)acc;
	return 0;
}

static int parse_number(struct parser *ps, const char *s, const char *e, struct rn_toml_value *v)
{
	const char *q = s, *int_start;
	int tl = e - s > QUOTE_MAX ? QUOTE_MAX : (int)(e - s);
	bool neg = false, is_float = false;
	double d;
	long n;

	if (*q == '+' || *q == '-')
		neg = *q++ == '-';
	if (q + 1 < e && q[0] == '0' && (q[1] == 'x' || q[1] == 'o' || q[1] == 'b'))
		return parse_radix_int(ps, s, q, e, v);
	int_start = q;
	n = scan_digits(&q, e, 10);
	if (n < 0)
		return fail(ps, s, "invalid number '%.*s': '_' must be between digits", tl, s);
	if (!n)
		return fail(ps, s, "invalid number '%.*s'", tl, s);
	if (*int_start == '0' && n > 1)
		return fail(ps, s, "invalid number '%.*s': leading zeros are not allowed", tl, s);
	if (*int_start == '0' && q - int_start > 1)
		return fail(ps, s, "invalid number '%.*s': '_' must be between digits", tl, s);
	if (scan_float_tail(ps, s, &q, e, &is_float))
		return -1;
	if (q != e)
		return fail(ps, s, "invalid number '%.*s'", tl, s);
	if (!is_float)
		return decimal_int(ps, s, int_start, e, neg, v);
	if (to_double(ps, s, e, &d))
		return -1;
	if (isinf(d))
		return fail(ps, s, "float '%.*s' is out of range (double)", tl, s);
	v->type = RN_TOML_FLOAT;
	v->u.fp = d;
	return 0;
}

/* ---- Dates and times (TOML 1.0.0, sections Offset Date-Time ... Local Time; RFC 3339) --- */

/* n decimal digits at s as a number, or -1 if any is not a digit. */
static int fixed_digits(const char *s, const char *e, int n)
{
	int v = 0, i;

	if (e - s < n)
		return -1;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

static bool is_leap(int y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int days_in_month(int y, int m)
{
	static const int days[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };

	return m == 2 && is_leap(y) ? 29 : days[m - 1];
}

/* Does [s, e) start like a date (YYYY-) or a time (HH:)? Decides how a token is read. */
static bool looks_like_date(const char *s, const char *e)
{
	return fixed_digits(s, e, 4) >= 0 && e - s > 4 && s[4] == '-';
}

static bool looks_like_time(const char *s, const char *e)
{
	return fixed_digits(s, e, 2) >= 0 && e - s > 2 && s[2] == ':';
}

/* Parse HH:MM:SS[.fraction] at *s into dt. RFC 3339 time-second allows 60 (leap second);
 * TOML 1.0.0 requires the seconds. Fraction digits past nanoseconds are truncated (section
 * Offset Date-Time: "truncate the additional precision"). */
static int parse_time(struct parser *ps, const char **s, const char *e, const char *tok, int tl,
		      struct rn_toml_datetime *dt)
{
	const char *q = *s;
	int k;

	/* partial-time = time-hour ":" time-minute ":" time-second [time-secfrac] */
	dt->hour = fixed_digits(q, e, 2);
	dt->minute = e - q >= 3 && q[2] == ':' ? fixed_digits(q + 3, e, 2) : -1;
	dt->second = e - q >= 6 && q[5] == ':' ? fixed_digits(q + 6, e, 2) : -1;
	if (dt->hour < 0 || dt->minute < 0)
		return fail(ps, tok, "invalid time in '%.*s': expected HH:MM:SS", tl, tok);
	if (dt->second < 0)
		return fail(ps, tok, "invalid time in '%.*s': seconds are required (HH:MM:SS)", tl,
			    tok);
	if (dt->hour > 23 || dt->minute > 59 || dt->second > 60)
		return fail(ps, tok, "invalid time in '%.*s': %s out of range", tl, tok,
			    dt->hour > 23           ? "hour" :
				    dt->minute > 59 ? "minute" :
						      "second");
	q += 8;
	if (q < e && *q == '.') {
		q++;
		if (q >= e || *q < '0' || *q > '9')
			return fail(ps, tok, "invalid time in '%.*s': expected a digit after '.'",
				    tl, tok);
		for (; q < e && *q >= '0' && *q <= '9'; q++) {
			if (dt->frac_digits < 9)
				dt->nanosecond = dt->nanosecond * 10 + (*q - '0');
			if (dt->frac_digits < 1000000)
				dt->frac_digits++;
		}
		for (k = dt->frac_digits; k < 9; k++)
			dt->nanosecond *= 10;
	}
	*s = q;
	return 0;
}

/* Parse a date-time, local date or local time spelled by [s, e) into v. */
static int parse_datetime(struct parser *ps, const char *s, const char *e, struct rn_toml_value *v)
{
	struct rn_toml_datetime *dt = &v->u.dt;
	int tl = e - s > QUOTE_MAX ? QUOTE_MAX : (int)(e - s);
	const char *q = s;
	int dim;

	memset(dt, 0, sizeof(*dt));
	if (looks_like_time(s, e)) {
		if (parse_time(ps, &q, e, s, tl, dt))
			return -1;
		if (q != e)
			return fail(ps, s, "invalid local time '%.*s'", tl, s);
		v->type = RN_TOML_TIME_LOCAL;
		return 0;
	}
	/* full-date = date-fullyear "-" date-month "-" date-mday: exactly 4, 2, 2 digits. */
	dt->year = fixed_digits(q, e, 4);
	dt->month = e - q >= 10 && q[4] == '-' ? fixed_digits(q + 5, e, 2) : -1;
	dt->day = e - q >= 10 && q[7] == '-' ? fixed_digits(q + 8, e, 2) : -1;
	if (dt->year < 0 || dt->month < 0 || dt->day < 0)
		return fail(ps, s, "invalid date '%.*s': expected YYYY-MM-DD", tl, s);
	if (dt->month < 1 || dt->month > 12)
		return fail(ps, s, "invalid date '%.*s': month out of range (01-12)", tl, s);
	dim = days_in_month(dt->year, dt->month);
	if (dt->day < 1 || dt->day > dim)
		return fail(ps, s, "invalid date '%.*s': day out of range (01-%02d)", tl, s, dim);
	q += 10;
	if (q == e) {
		v->type = RN_TOML_DATE_LOCAL;
		return 0;
	}
	/* Section Offset Date-Time: the T may be a space (RFC 3339 section 5.6 NOTE); t and z
	 * are accepted in lowercase as RFC 3339 allows. */
	if (*q != 'T' && *q != 't' && *q != ' ')
		return fail(ps, s, "invalid date-time '%.*s': expected 'T' after the date", tl, s);
	q++;
	if (parse_time(ps, &q, e, s, tl, dt))
		return -1;
	if (q == e) {
		v->type = RN_TOML_DATETIME_LOCAL;
		return 0;
	}
	if (*q == 'Z' || *q == 'z') {
		dt->offset_z = true;
		q++;
	} else if (*q == '+' || *q == '-') {
		int sign = *q == '-' ? -1 : 1;
		int oh = fixed_digits(q + 1, e, 2);
		int om = e - q >= 6 && q[3] == ':' ? fixed_digits(q + 4, e, 2) : -1;

		/* time-numoffset = ("+" / "-") time-hour ":" time-minute */
		if (oh < 0 || om < 0)
			return fail(ps, s,
				    "invalid date-time '%.*s': expected a UTC offset "
				    "(Z or +HH:MM)",
				    tl, s);
		if (oh > 23 || om > 59)
			return fail(ps, s, "invalid date-time '%.*s': UTC offset out of range", tl,
				    s);
		dt->offset_minutes = sign * (oh * 60 + om);
		q += 6;
	}
	if (q != e)
		return fail(ps, s, "invalid date-time '%.*s'", tl, s);
	v->type = RN_TOML_DATETIME;
	return 0;
}

/* ---- Values (TOML 1.0.0, section Value) ------------------------------------------------- */

/* Characters of an unquoted scalar: numbers, booleans, inf/nan and date-times. */
static bool is_token_char(int c)
{
	return is_bare_key_char(c) || c == '+' || c == '.' || c == ':';
}

/*
 * The end of the unquoted scalar starting at s. A date followed by a space and a time is one
 * token: "you may replace the T delimiter between date and time with a space character".
 */
static const char *token_end(const char *s, const char *e)
{
	const char *q = s;

	while (q < e && is_token_char((unsigned char)*q))
		q++;
	if (q - s == 10 && looks_like_date(s, e) && e - q > 3 && *q == ' ' &&
	    looks_like_time(q + 1, e)) {
		q++;
		while (q < e && is_token_char((unsigned char)*q))
			q++;
	}
	return q;
}

/* Does a token that is neither a date nor a time still use their separators ("1:32:00",
 * "10000-01-01")? A '-' after a digit never occurs in a number (only after 'e'). */
static bool looks_like_partial_datetime(const char *s, const char *e)
{
	const char *q;

	if (*s < '0' || *s > '9')
		return false;
	for (q = s + 1; q < e; q++)
		if (*q == ':' || (*q == '-' && q[-1] >= '0' && q[-1] <= '9'))
			return true;
	return false;
}

/* Parse a bool, number or date-time; ps->p at its first character. */
static int parse_scalar(struct parser *ps, struct rn_toml_value *v)
{
	const char *s = ps->p, *e = token_end(ps->p, ps->end), *digits = s;
	size_t n = (size_t)(e - s);
	int tl = n > QUOTE_MAX ? QUOTE_MAX : (int)n;
	char what[48];

	if (!n) {
		describe(ps, s, what, sizeof(what));
		return fail(ps, s, "expected a value, found %s", what);
	}
	ps->p = e;
	/* Section Boolean: "always lowercase". */
	if ((n == 4 && !memcmp(s, "true", 4)) || (n == 5 && !memcmp(s, "false", 5))) {
		v->type = RN_TOML_BOOL;
		v->u.boolean = *s == 't';
		return 0;
	}
	if (*digits == '+' || *digits == '-')
		digits++;
	/* Section Float: "Special float values can also be expressed. They are always
	 * lowercase." inf and nan take an optional sign. */
	if (e - digits == 3 && (!memcmp(digits, "inf", 3) || !memcmp(digits, "nan", 3))) {
		v->type = RN_TOML_FLOAT;
		if (digits[0] == 'i')
			v->u.fp = *s == '-' ? -HUGE_VAL : HUGE_VAL;
		else
			v->u.fp = *s == '-' ? -NAN : NAN;
		return 0;
	}
	if (digits == s && (looks_like_date(s, e) || looks_like_time(s, e)))
		return parse_datetime(ps, s, e, v);
	if (digits == s && looks_like_partial_datetime(s, e))
		return fail(ps, s,
			    "invalid date or time '%.*s' (expected YYYY-MM-DD, HH:MM:SS or "
			    "both)",
			    tl, s);
	if (digits < e && *digits >= '0' && *digits <= '9')
		return parse_number(ps, s, e, v);
	if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z'))
		return fail(ps, s, "invalid value '%.*s' (strings must be quoted)", tl, s);
	return fail(ps, s, "invalid value '%.*s'", tl, s);
}

/* Section Array: values separated by commas, a trailing comma allowed, newlines and
 * comments anywhere between the brackets; types may be mixed. */
static int parse_array(struct parser *ps, int depth, struct rn_toml_value *a)
{
	const char *open = ps->p;
	char what[48];

	ps->p++;
	for (;;) {
		struct rn_toml_value *item;

		if (skip_ws_nl(ps))
			return -1;
		if (peek(ps, 0) == ']')
			break;
		if (ps->p >= ps->end)
			return fail(ps, open, "unterminated array (missing ']')");
		if (parse_value(ps, depth + 1, NULL, &item) || array_push(ps, a, item))
			return -1;
		if (skip_ws_nl(ps))
			return -1;
		if (peek(ps, 0) == ',') {
			ps->p++;
			continue;
		}
		if (peek(ps, 0) == ']')
			break;
		if (ps->p >= ps->end)
			return fail(ps, open, "unterminated array (missing ']')");
		describe(ps, ps->p, what, sizeof(what));
		return fail(ps, ps->p, "expected ',' or ']' after an array element, found %s",
			    what);
	}
	ps->p++;
	return 0;
}

/* Section Inline Table: on one line, comma separated, no trailing comma, and "fully
 * self-contained": once closed, nothing may be added to it. */
static int parse_inline_table(struct parser *ps, int depth, struct rn_toml_value *v)
{
	struct rn_toml_table *t = v->u.table;
	const char *open = ps->p;
	char what[48];

	ps->p++;
	skip_ws(ps);
	if (peek(ps, 0) != '}') {
		for (;;) {
			skip_ws(ps);
			if (peek(ps, 0) == '}')
				return fail(ps, ps->p,
					    "trailing comma is not allowed in an inline "
					    "table");
			if (at_newline(ps))
				return fail(ps, ps->p,
					    "newline in inline table (inline tables "
					    "must be on one line)");
			if (ps->p >= ps->end)
				return fail(ps, open, "unterminated inline table (missing '}')");
			if (parse_keyval(ps, t, depth))
				return -1;
			skip_ws(ps);
			if (peek(ps, 0) == ',') {
				ps->p++;
				continue;
			}
			if (peek(ps, 0) == '}')
				break;
			if (ps->p >= ps->end)
				return fail(ps, open, "unterminated inline table (missing '}')");
			if (at_newline(ps))
				return fail(ps, ps->p,
					    "newline in inline table (inline tables "
					    "must be on one line)");
			describe(ps, ps->p, what, sizeof(what));
			return fail(ps, ps->p, "expected ',' or '}' in inline table, found %s",
				    what);
		}
	}
	ps->p++;
	t->flags |= TF_INLINE | TF_DEFINED;
	return 0;
}

/* Parse any value at ps->p into a new tree *out at nesting depth `depth`, to be stored under
 * key `k` (NULL for an array element; see value_new()). */
static int parse_value(struct parser *ps, int depth, struct key *k, struct rn_toml_value **out)
{
	const char *at = ps->p;
	struct rn_toml_pos pos = pos_of(ps, at);
	struct rn_toml_value *v;
	int c = peek(ps, 0), r;

	*out = NULL;
	if (c == '"' || c == '\'') {
		rn_buf_reset(&ps->scratch);
		if (parse_string(ps, &ps->scratch, true))
			return -1;
		*out = value_new(RN_TOML_STRING, pos, k, ps->scratch.buf, ps->scratch.len);
		return *out ? 0 : oom(ps);
	}
	if (c == '[' || c == '{') {
		if (check_depth(ps, at, depth))
			return -1;
		v = value_new(c == '[' ? RN_TOML_ARRAY : RN_TOML_TABLE, pos, k, NULL, 0);
		if (!v)
			return oom(ps);
		r = c == '[' ? parse_array(ps, depth, v) : parse_inline_table(ps, depth, v);
	} else {
		v = value_new(RN_TOML_BOOL, pos, k, NULL, 0);
		if (!v)
			return oom(ps);
		r = parse_scalar(ps, v);
	}
	if (r) {
		rn_toml_free(v);
		return -1;
	}
	*out = v;
	return 0;
}

/* ---- Tables (TOML 1.0.0, sections Table and Array of Tables) ---------------------------- */

/*
 * Parse a [header] or [[header]] at ps->p and make its table the current one. Rules
 * enforced here: a table may be defined only once, tables created implicitly by a longer
 * header may be defined later, tables created by dotted keys or inline tables may not be
 * redefined by a header, [[x]] may only append to an array of tables (never to a static
 * array), and a header path through an array of tables refers to its last element.
 */
/* The state of one table header being parsed (parse_header). */
struct header {
	const char *open;            /* its '[' */
	struct rn_toml_pos open_pos; /* where it starts */
	bool aot;                    /* [[array of tables]] */
	const char *kstart, *kend;   /* the whole key, for messages */
	const char *seg;             /* the last key segment */
	struct key k;                /* the last key segment, parsed */
	struct rn_toml_table *t;     /* the table the last segment is looked up in */
	int depth;                   /* nesting depth reached */
	char name[QUOTE_MAX + 8];    /* the key for messages */
};

/* Walk into the prefix h->k of a dotted header key (the segment before a '.'), creating it
 * implicitly if absent. */
static int header_enter(struct parser *ps, struct header *h)
{
	struct rn_toml_value *v;
	long i = table_find(h->t, h->k.s, h->k.len);

	if (i < 0) {
		v = value_new(RN_TOML_TABLE, pos_of(ps, h->seg), &h->k, NULL, 0);
		if (!v)
			return oom(ps);
		v->u.table->flags = TF_IMPLICIT;
		if (table_add(ps, h->t, &h->k, v->pos, v))
			return -1;
		h->t = v->u.table;
		return 0;
	}
	v = h->t->kv[i].val;
	if (is_aot(v)) {
		/* Section Array of Tables: a sub-table header under [[x]] belongs to the most
		 * recently defined element. */
		if (check_depth(ps, h->seg, ++h->depth))
			return -1;
		v = v->u.array.items[v->u.array.n - 1];
	} else if (v->type != RN_TOML_TABLE || (v->u.table->flags & TF_INLINE)) {
		excerpt(h->kstart, h->kend, h->name, sizeof(h->name));
		if (v->type == RN_TOML_TABLE)
			return fail(ps, h->seg,
				    "cannot add to inline table '%s' (defined at "
				    "line %d): inline tables are complete",
				    h->name, v->pos.line);
		return fail(ps, h->seg,
			    "cannot use key '%s' as a table: it is already %s "
			    "(defined at line %d)",
			    h->name, a_type(v), v->pos.line);
	}
	h->t = v->u.table;
	return 0;
}

/* The key of a header, up to its last segment (h->k, looked up in h->t). */
static int header_key(struct parser *ps, struct header *h)
{
	h->kstart = ps->p;
	for (;;) {
		h->seg = ps->p;
		if (parse_key_segment(ps, &h->k))
			return -1;
		h->kend = ps->p;
		skip_ws(ps);
		if (check_depth(ps, h->seg, ++h->depth))
			return -1;
		if (peek(ps, 0) != '.')
			return 0;
		ps->p++;
		skip_ws(ps);
		if (header_enter(ps, h))
			return -1;
	}
}

/* [[h]]: a new element of the array of tables (index i in h->t, or -1: a new array). */
static int header_aot(struct parser *ps, struct header *h, long i)
{
	struct rn_toml_value *v, *elem = value_new(RN_TOML_TABLE, h->open_pos, NULL, NULL, 0);

	if (!elem)
		return oom(ps);
	elem->u.table->flags = TF_DEFINED | TF_AOT_ELEM;
	if (i < 0) {
		v = value_new(RN_TOML_ARRAY, h->open_pos, &h->k, NULL, 0);
		if (!v) {
			rn_toml_free(elem);
			return oom(ps);
		}
		if (table_add(ps, h->t, &h->k, pos_of(ps, h->seg), v)) {
			rn_toml_free(elem);
			return -1;
		}
	} else {
		v = h->t->kv[i].val;
		if (!is_aot(v)) {
			rn_toml_free(elem);
			return fail(ps, h->seg,
				    "cannot define array of tables '%s': it is "
				    "already %s (defined at line %d)",
				    h->name, a_type(v), v->pos.line);
		}
	}
	if (array_push(ps, v, elem))
		return -1;
	h->t = elem->u.table;
	h->depth++;
	return 0;
}

/* [h]: define the table (index i in h->t, or -1: a new one). */
static int header_table(struct parser *ps, struct header *h, long i)
{
	struct rn_toml_value *v;
	uint32_t flags;

	if (i < 0) {
		v = value_new(RN_TOML_TABLE, h->open_pos, &h->k, NULL, 0);
		if (!v)
			return oom(ps);
		v->u.table->flags = TF_DEFINED;
		if (table_add(ps, h->t, &h->k, pos_of(ps, h->seg), v))
			return -1;
		h->t = v->u.table;
		return 0;
	}
	v = h->t->kv[i].val;
	flags = v->type == RN_TOML_TABLE ? v->u.table->flags : 0;
	if (v->type != RN_TOML_TABLE)
		return fail(ps, h->seg,
			    "cannot define table '%s': it is already %s (defined "
			    "at line %d)",
			    h->name, is_aot(v) ? "an array of tables" : a_type(v), v->pos.line);
	if (flags & TF_INLINE)
		return fail(ps, h->seg,
			    "cannot define table '%s': it is already an inline "
			    "table (defined at line %d)",
			    h->name, v->pos.line);
	if (flags & TF_DOTTED)
		return fail(ps, h->seg,
			    "cannot define table '%s': it was already created by "
			    "dotted keys (at line %d)",
			    h->name, v->pos.line);
	if (flags & TF_DEFINED)
		return fail(ps, h->seg, "duplicate table '%s' (first defined at line %d)", h->name,
			    v->pos.line);
	/* Created implicitly by a longer header before: "Defining a super-table after
	 * sub-tables is valid". From now on it counts as defined here. */
	v->u.table->flags = (flags & ~(uint32_t)TF_IMPLICIT) | TF_DEFINED;
	v->pos = h->open_pos;
	h->t = v->u.table;
	return 0;
}

static int parse_header(struct parser *ps)
{
	struct header h;
	char what[48];
	long i;

	memset(&h, 0, sizeof(h));
	h.open = ps->p;
	h.open_pos = pos_of(ps, h.open);
	h.aot = peek(ps, 1) == '[';
	h.t = ps->root;
	ps->p += h.aot ? 2 : 1;
	skip_ws(ps);
	if (header_key(ps, &h))
		return -1;
	excerpt(h.kstart, h.kend, h.name, sizeof(h.name));
	/* The closing bracket(s): "]]" must be written without a space between. */
	if (peek(ps, 0) != ']' || (h.aot && peek(ps, 1) != ']')) {
		describe(ps, ps->p, what, sizeof(what));
		return fail(ps, ps->p, "expected '%s' to close table header '%s', found %s",
			    h.aot ? "]]" : "]", h.name, what);
	}
	ps->p += h.aot ? 2 : 1;
	i = table_find(h.t, h.k.s, h.k.len);
	if (h.aot ? header_aot(ps, &h, i) : header_table(ps, &h, i))
		return -1;
	ps->cur = h.t;
	ps->cur_depth = h.depth;
	return expect_eol(ps, "table header");
}

/* ---- Document --------------------------------------------------------------------------- */

/* The top level: a sequence of lines, each empty, a comment, a header or a key/value pair
 * (section Spec and Key/Value Pair: "the key, equals sign, and value must be on the same
 * line"). */
static int parse_document(struct parser *ps)
{
	while (ps->p < ps->end) {
		skip_ws(ps);
		if (skip_comment(ps))
			return -1;
		if (ps->p >= ps->end)
			break;
		if (at_newline(ps)) {
			eat_newline(ps);
			continue;
		}
		if (*ps->p == '[') {
			if (parse_header(ps))
				return -1;
			continue;
		}
		if (parse_keyval(ps, ps->cur, ps->cur_depth) || expect_eol(ps, "value"))
			return -1;
	}
	return 0;
}

int rn_toml_parse(const char *src, size_t len, struct rn_toml_value **root, struct rn_diag *d)
{
	struct parser ps;
	struct rn_toml_value *top;
	int r;

	memset(&ps, 0, sizeof(ps));
	*root = NULL;
	if (!src)
		src = ""; /* pointer arithmetic on NULL is undefined even for len 0 */
	ps.end = src + len;
	ps.text = src;
	ps.d = d;
	rn_buf_init(&ps.scratch, 0);
	rn_buf_init(&ps.keybuf, 0);
	/* A leading byte order mark is not part of the document (toml-test expects it
	 * ignored). Anywhere else U+FEFF is an ordinary character: fine in strings and
	 * comments, a syntax error elsewhere. */
	if (len >= 3 && !memcmp(src, "\xEF\xBB\xBF", 3))
		ps.text += 3;
	ps.p = ps.text;
	ps.line = 1;
	ps.line_start = ps.text;
	ps.col_ptr = ps.text;
	ps.col = 1;
	top = value_new(RN_TOML_TABLE, pos_of(&ps, ps.text), NULL, NULL, 0);
	if (!top)
		return oom(&ps);
	top->u.table->flags = TF_DEFINED;
	ps.root = top->u.table;
	ps.cur = ps.root;
	r = parse_document(&ps);
	if (ps.c_locale)
		freelocale(ps.c_locale);
	rn_buf_release(&ps.scratch);
	rn_buf_release(&ps.keybuf);
	if (r) {
		rn_toml_free(top);
		return -1;
	}
	*root = top;
	return 0;
}

/* ---- Queries ---------------------------------------------------------------------------- */

const struct rn_toml_kv *rn_toml_get_kv(const struct rn_toml_value *table, const char *key)
{
	const struct rn_toml_table *t;
	long i;

	if (!table || table->type != RN_TOML_TABLE || !key)
		return NULL;
	t = table->u.table;
	i = table_find(t, key, strlen(key));
	return i < 0 ? NULL : &t->kv[i];
}

const struct rn_toml_value *rn_toml_get(const struct rn_toml_value *table, const char *key)
{
	const struct rn_toml_kv *kv = rn_toml_get_kv(table, key);

	return kv ? kv->val : NULL;
}

const char *rn_toml_type_name(enum rn_toml_type type)
{
	switch (type) {
	case RN_TOML_STRING:
		return "string";
	case RN_TOML_INTEGER:
		return "integer";
	case RN_TOML_FLOAT:
		return "float";
	case RN_TOML_BOOL:
		return "bool";
	case RN_TOML_DATETIME:
		return "datetime";
	case RN_TOML_DATETIME_LOCAL:
		return "datetime-local";
	case RN_TOML_DATE_LOCAL:
		return "date-local";
	case RN_TOML_TIME_LOCAL:
		return "time-local";
	case RN_TOML_ARRAY:
		return "array";
	case RN_TOML_TABLE:
		return "table";
	}
	return "unknown";
}

int rn_toml_format_datetime(const struct rn_toml_value *v, char *out, size_t size)
{
	const struct rn_toml_datetime *dt = &v->u.dt;
	char date[48] = "", time[64] = "", frac[16] = "", off[32] = "";
	int digits = dt->frac_digits > 9 ? 9 : dt->frac_digits;
	const char *sep = "";

	if (v->type == RN_TOML_DATETIME || v->type == RN_TOML_DATETIME_LOCAL ||
	    v->type == RN_TOML_DATE_LOCAL)
		snprintf(date, sizeof(date), "%04d-%02d-%02d", dt->year, dt->month, dt->day);
	if (v->type == RN_TOML_DATETIME || v->type == RN_TOML_DATETIME_LOCAL ||
	    v->type == RN_TOML_TIME_LOCAL) {
		if (digits > 0) {
			char ns[16];

			snprintf(ns, sizeof(ns), "%09d", dt->nanosecond);
			snprintf(frac, sizeof(frac), ".%.*s", digits, ns);
		}
		snprintf(time, sizeof(time), "%02d:%02d:%02d%s", dt->hour, dt->minute, dt->second,
			 frac);
	}
	if (*date && *time)
		sep = "T";
	if (v->type == RN_TOML_DATETIME) {
		int m = dt->offset_minutes < 0 ? -dt->offset_minutes : dt->offset_minutes;

		if (dt->offset_z)
			snprintf(off, sizeof(off), "Z");
		else
			snprintf(off, sizeof(off), "%c%02d:%02d",
				 dt->offset_minutes < 0 ? '-' : '+', m / 60, m % 60);
	}
	return snprintf(out, size, "%s%s%s%s", date, sep, time, off);
}
