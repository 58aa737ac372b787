#include "toml.h"
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

/* Tables with more keys than this get a hash index, so duplicate checks stay O(1). */
#define INDEX_MIN_KEYS 16

/* Open-addressing hash index of a table's keys (struct rn_toml_table.index). */
struct kv_index {
	size_t cap;   /* slots, a power of two, kept at most half full */
	size_t *slot; /* 1 + index into the table's kv array; 0 = empty */
};

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
struct rn_toml_value *rn_toml_value_new(enum rn_toml_type type, struct rn_toml_pos pos,
					struct rn_toml_key *k, const char *text, size_t slen)
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
long rn_toml_table_find(const struct rn_toml_table *t, const char *key, size_t len)
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
 * Append k -> val to t, where val was made by rn_toml_value_new() with k (so k->copy is in its block).
 * Takes ownership of `val` in every case (freed on failure). Returns 0 or -1 (out of memory).
 */
int rn_toml_table_add(struct rn_toml_parser *ps, struct rn_toml_table *t,
		      const struct rn_toml_key *k, struct rn_toml_pos key_pos,
		      struct rn_toml_value *val)
{
	struct rn_toml_kv *kv;

	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 8;

		kv = rn_realloc(t->kv, cap * sizeof(*kv));
		if (!kv) {
			rn_toml_free(val);
			return rn_toml_oom(ps);
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
int rn_toml_array_push(struct rn_toml_parser *ps, struct rn_toml_value *a,
		       struct rn_toml_value *item)
{
	size_t n = a->u.array.n;

	if (n == 0 || (n >= 4 && !(n & (n - 1)))) {
		size_t cap = n ? n * 2 : 4;
		struct rn_toml_value **items;

		if (cap > SIZE_MAX / sizeof(*items)) {
			rn_toml_free(item);
			return rn_toml_oom(ps);
		}
		items = rn_realloc(a->u.array.items, cap * sizeof(*items));
		if (!items) {
			rn_toml_free(item);
			return rn_toml_oom(ps);
		}
		a->u.array.items = items;
	}
	a->u.array.items[a->u.array.n++] = item;
	return 0;
}

/* Is `v` an array of tables (made by [[header]]), as opposed to a static array? Arrays of
 * tables are never empty and all their elements carry RN_TOML_TF_AOT_ELEM; inline tables never do. */
bool rn_toml_is_aot(const struct rn_toml_value *v)
{
	return v->type == RN_TOML_ARRAY && v->u.array.n > 0 &&
		v->u.array.items[0]->type == RN_TOML_TABLE &&
		(v->u.array.items[0]->u.table->flags & RN_TOML_TF_AOT_ELEM);
}

/* ---- Keys (TOML 1.0.0, section Keys) ---------------------------------------------------- */

bool rn_toml_is_bare_key_char(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		c == '_' || c == '-';
}

/*
 * Parse one key segment (bare, basic or literal) at ps->p into *k. "Bare keys may only
 * contain ASCII letters, ASCII digits, underscores, and dashes"; quoted keys follow the string
 * rules and may be empty. k->s stays valid until the next quoted key is parsed.
 */
int rn_toml_parse_key_segment(struct rn_toml_parser *ps, struct rn_toml_key *k)
{
	const char *start = ps->p, *q = start;
	char what[48];

	if (peek(ps, 0) == '"' || peek(ps, 0) == '\'') {
		rn_buf_reset(&ps->keybuf);
		if (rn_toml_parse_string(ps, &ps->keybuf, false))
			return ps->err;
		k->s = ps->keybuf.buf;
		k->len = ps->keybuf.len;
		return 0;
	}
	while (q < ps->end && rn_toml_is_bare_key_char(*q))
		q++;
	if (q == start) {
		rn_toml_describe(ps, start, what, sizeof(what));
		return rn_toml_fail(ps, start, "expected a key, found %s", what);
	}
	ps->p = q;
	k->s = start;
	k->len = (size_t)(q - start);
	return 0;
}

/* Check the nesting bound before going one level deeper (depth = the new level). */
int rn_toml_check_depth(struct rn_toml_parser *ps, const char *at, int depth)
{
	if (depth > RN_TOML_MAX_DEPTH)
		return rn_toml_fail(ps, at, "nesting is deeper than %d levels", RN_TOML_MAX_DEPTH);
	return 0;
}

/*
 * Parse `key = value` at ps->p into table t (at nesting depth `depth`). Section Keys and
 * Table: a dotted key creates and extends tables, but only tables that were themselves
 * created by dotted keys (not tables defined by a [header], not inline tables, which are
 * sealed), and no key may be defined twice.
 */
int rn_toml_parse_keyval(struct rn_toml_parser *ps, struct rn_toml_table *t, int depth)
{
	const char *kstart = ps->p, *kend = NULL, *seg;
	char name[RN_TOML_QUOTE_MAX + 8], what[48];
	struct rn_toml_value *v;
	struct rn_toml_pos seg_pos;
	struct rn_toml_key k;
	long i;

	for (;;) {
		seg = ps->p;
		if (rn_toml_parse_key_segment(ps, &k))
			return ps->err;
		kend = ps->p;
		skip_ws(ps);
		if (peek(ps, 0) != '.')
			break;
		ps->p++;
		skip_ws(ps);
		/* An intermediate segment: the table it names, created on first use. */
		if (rn_toml_check_depth(ps, seg, ++depth))
			return ps->err;
		i = rn_toml_table_find(t, k.s, k.len);
		if (i < 0) {
			v = rn_toml_value_new(RN_TOML_TABLE, rn_toml_pos_of(ps, seg), &k, NULL, 0);
			if (!v)
				return rn_toml_oom(ps);
			v->u.table->flags = RN_TOML_TF_DOTTED;
			if (rn_toml_table_add(ps, t, &k, v->pos, v))
				return ps->err;
			t = v->u.table;
			continue;
		}
		v = t->kv[i].val;
		if (v->type == RN_TOML_TABLE && (v->u.table->flags & RN_TOML_TF_DOTTED) &&
		    !(v->u.table->flags & RN_TOML_TF_INLINE)) {
			t = v->u.table;
			continue;
		}
		rn_toml_excerpt(kstart, kend, name, sizeof(name));
		if (v->type != RN_TOML_TABLE)
			return rn_toml_fail(ps, seg,
					    "cannot use key '%s' as a table: it is already %s "
					    "(defined at line %d)",
					    name, rn_toml_type_phrase(v->type), v->pos.line);
		if (v->u.table->flags & RN_TOML_TF_INLINE)
			return rn_toml_fail(ps, seg,
					    "cannot add keys to inline table '%s' (defined at "
					    "line %d): inline tables are complete",
					    name, v->pos.line);
		/* "using dotted keys to redefine tables already defined in [table] form is not
		 * allowed". A table only created implicitly by a longer header ([a.b.c] makes
		 * a.b) is refused too: the spec is ambiguous there (toml-lang/toml#846) and
		 * implementations differ; refusing keeps each table's keys in one place. */
		return rn_toml_fail(ps, seg,
				    "cannot add keys to table '%s' with a dotted key: it was "
				    "defined by a table header at line %d",
				    name, v->pos.line);
	}
	seg_pos = rn_toml_pos_of(ps, seg);
	i = rn_toml_table_find(t, k.s, k.len);
	if (i >= 0) {
		rn_toml_excerpt(kstart, kend, name, sizeof(name));
		return rn_toml_fail(ps, seg, "duplicate key '%s' (first defined at line %d)", name,
				    t->kv[i].key_pos.line);
	}
	if (peek(ps, 0) != '=') {
		rn_toml_excerpt(kstart, kend, name, sizeof(name));
		rn_toml_describe(ps, ps->p, what, sizeof(what));
		return rn_toml_fail(ps, ps->p, "expected '=' after key '%s', found %s", name, what);
	}
	ps->p++;
	skip_ws(ps);
	/* The key is copied into the value's block when the value is created, before any
	 * nested key could overwrite parser.keybuf. */
	if (rn_toml_parse_value(ps, depth + 1, &k, &v))
		return ps->err;
	return rn_toml_table_add(ps, t, &k, seg_pos, v);
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
	const char *open;                 /* its '[' */
	struct rn_toml_pos open_pos;      /* where it starts */
	bool aot;                         /* [[array of tables]] */
	const char *kstart, *kend;        /* the whole key, for messages */
	const char *seg;                  /* the last key segment */
	struct rn_toml_key k;             /* the last key segment, parsed */
	struct rn_toml_table *t;          /* the table the last segment is looked up in */
	int depth;                        /* nesting depth reached */
	char name[RN_TOML_QUOTE_MAX + 8]; /* the key for messages */
};

/* Walk into the prefix h->k of a dotted header key (the segment before a '.'), creating it
 * implicitly if absent. */
static int header_enter(struct rn_toml_parser *ps, struct header *h)
{
	struct rn_toml_value *v;
	long i = rn_toml_table_find(h->t, h->k.s, h->k.len);

	if (i < 0) {
		v = rn_toml_value_new(RN_TOML_TABLE, rn_toml_pos_of(ps, h->seg), &h->k, NULL, 0);
		if (!v)
			return rn_toml_oom(ps);
		v->u.table->flags = RN_TOML_TF_IMPLICIT;
		if (rn_toml_table_add(ps, h->t, &h->k, v->pos, v))
			return ps->err;
		h->t = v->u.table;
		return 0;
	}
	v = h->t->kv[i].val;
	if (rn_toml_is_aot(v)) {
		/* Section Array of Tables: a sub-table header under [[x]] belongs to the most
		 * recently defined element. */
		if (rn_toml_check_depth(ps, h->seg, ++h->depth))
			return ps->err;
		v = v->u.array.items[v->u.array.n - 1];
	} else if (v->type != RN_TOML_TABLE || (v->u.table->flags & RN_TOML_TF_INLINE)) {
		rn_toml_excerpt(h->kstart, h->kend, h->name, sizeof(h->name));
		if (v->type == RN_TOML_TABLE)
			return rn_toml_fail(ps, h->seg,
					    "cannot add to inline table '%s' (defined at "
					    "line %d): inline tables are complete",
					    h->name, v->pos.line);
		return rn_toml_fail(ps, h->seg,
				    "cannot use key '%s' as a table: it is already %s "
				    "(defined at line %d)",
				    h->name, rn_toml_type_phrase(v->type), v->pos.line);
	}
	h->t = v->u.table;
	return 0;
}

/* The key of a header, up to its last segment (h->k, looked up in h->t). */
static int header_key(struct rn_toml_parser *ps, struct header *h)
{
	h->kstart = ps->p;
	for (;;) {
		h->seg = ps->p;
		if (rn_toml_parse_key_segment(ps, &h->k))
			return ps->err;
		h->kend = ps->p;
		skip_ws(ps);
		if (rn_toml_check_depth(ps, h->seg, ++h->depth))
			return ps->err;
		if (peek(ps, 0) != '.')
			return 0;
		ps->p++;
		skip_ws(ps);
		if (header_enter(ps, h))
			return ps->err;
	}
}

/* [[h]]: a new element of the array of tables (index i in h->t, or -1: a new array). */
static int header_aot(struct rn_toml_parser *ps, struct header *h, long i)
{
	struct rn_toml_value *v,
		*elem = rn_toml_value_new(RN_TOML_TABLE, h->open_pos, NULL, NULL, 0);

	if (!elem)
		return rn_toml_oom(ps);
	elem->u.table->flags = RN_TOML_TF_DEFINED | RN_TOML_TF_AOT_ELEM;
	if (i < 0) {
		v = rn_toml_value_new(RN_TOML_ARRAY, h->open_pos, &h->k, NULL, 0);
		if (!v) {
			rn_toml_free(elem);
			return rn_toml_oom(ps);
		}
		if (rn_toml_table_add(ps, h->t, &h->k, rn_toml_pos_of(ps, h->seg), v)) {
			rn_toml_free(elem);
			return ps->err;
		}
	} else {
		v = h->t->kv[i].val;
		if (!rn_toml_is_aot(v)) {
			rn_toml_free(elem);
			return rn_toml_fail(ps, h->seg,
					    "cannot define array of tables '%s': it is "
					    "already %s (defined at line %d)",
					    h->name, rn_toml_type_phrase(v->type), v->pos.line);
		}
	}
	if (rn_toml_array_push(ps, v, elem))
		return ps->err;
	h->t = elem->u.table;
	h->depth++;
	return 0;
}

/* [h]: define the table (index i in h->t, or -1: a new one). */
static int header_table(struct rn_toml_parser *ps, struct header *h, long i)
{
	struct rn_toml_value *v;
	uint32_t flags;

	if (i < 0) {
		v = rn_toml_value_new(RN_TOML_TABLE, h->open_pos, &h->k, NULL, 0);
		if (!v)
			return rn_toml_oom(ps);
		v->u.table->flags = RN_TOML_TF_DEFINED;
		if (rn_toml_table_add(ps, h->t, &h->k, rn_toml_pos_of(ps, h->seg), v))
			return ps->err;
		h->t = v->u.table;
		return 0;
	}
	v = h->t->kv[i].val;
	flags = v->type == RN_TOML_TABLE ? v->u.table->flags : 0;
	if (v->type != RN_TOML_TABLE)
		return rn_toml_fail(ps, h->seg,
				    "cannot define table '%s': it is already %s (defined "
				    "at line %d)",
				    h->name,
				    rn_toml_is_aot(v) ? "an array of tables" :
							rn_toml_type_phrase(v->type),
				    v->pos.line);
	if (flags & RN_TOML_TF_INLINE)
		return rn_toml_fail(ps, h->seg,
				    "cannot define table '%s': it is already an inline "
				    "table (defined at line %d)",
				    h->name, v->pos.line);
	if (flags & RN_TOML_TF_DOTTED)
		return rn_toml_fail(ps, h->seg,
				    "cannot define table '%s': it was already created by "
				    "dotted keys (at line %d)",
				    h->name, v->pos.line);
	if (flags & RN_TOML_TF_DEFINED)
		return rn_toml_fail(ps, h->seg, "duplicate table '%s' (first defined at line %d)",
				    h->name, v->pos.line);
	/* Created implicitly by a longer header before: "Defining a super-table after
	 * sub-tables is valid". From now on it counts as defined here. */
	v->u.table->flags = (flags & ~(uint32_t)RN_TOML_TF_IMPLICIT) | RN_TOML_TF_DEFINED;
	v->pos = h->open_pos;
	h->t = v->u.table;
	return 0;
}

static int parse_header(struct rn_toml_parser *ps)
{
	struct header h;
	char what[48];
	long i;

	memset(&h, 0, sizeof(h));
	h.open = ps->p;
	h.open_pos = rn_toml_pos_of(ps, h.open);
	h.aot = peek(ps, 1) == '[';
	h.t = ps->root;
	ps->p += h.aot ? 2 : 1;
	skip_ws(ps);
	if (header_key(ps, &h))
		return ps->err;
	rn_toml_excerpt(h.kstart, h.kend, h.name, sizeof(h.name));
	/* The closing bracket(s): "]]" must be written without a space between. */
	if (peek(ps, 0) != ']' || (h.aot && peek(ps, 1) != ']')) {
		rn_toml_describe(ps, ps->p, what, sizeof(what));
		return rn_toml_fail(ps, ps->p, "expected '%s' to close table header '%s', found %s",
				    h.aot ? "]]" : "]", h.name, what);
	}
	ps->p += h.aot ? 2 : 1;
	i = rn_toml_table_find(h.t, h.k.s, h.k.len);
	if (h.aot ? header_aot(ps, &h, i) : header_table(ps, &h, i))
		return ps->err;
	ps->cur = h.t;
	ps->cur_depth = h.depth;
	return rn_toml_expect_eol(ps, "table header");
}

/* ---- Document --------------------------------------------------------------------------- */

/* The top level: a sequence of lines, each empty, a comment, a header or a key/value pair
 * (section Spec and Key/Value Pair: "the key, equals sign, and value must be on the same
 * line"). */
static int parse_document(struct rn_toml_parser *ps)
{
	while (ps->p < ps->end) {
		skip_ws(ps);
		if (rn_toml_skip_comment(ps))
			return ps->err;
		if (ps->p >= ps->end)
			break;
		if (at_newline(ps)) {
			rn_toml_eat_newline(ps);
			continue;
		}
		if (*ps->p == '[') {
			if (parse_header(ps))
				return ps->err;
			continue;
		}
		if (rn_toml_parse_keyval(ps, ps->cur, ps->cur_depth) ||
		    rn_toml_expect_eol(ps, "value"))
			return ps->err;
	}
	return 0;
}

int rn_toml_parse(const char *src, size_t len, struct rn_toml_value **root, struct rn_diag *d)
{
	struct rn_toml_parser ps;
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
	top = rn_toml_value_new(RN_TOML_TABLE, rn_toml_pos_of(&ps, ps.text), NULL, NULL, 0);
	if (!top)
		return rn_toml_oom(&ps);
	top->u.table->flags = RN_TOML_TF_DEFINED;
	ps.root = top->u.table;
	ps.cur = ps.root;
	r = parse_document(&ps);
	if (ps.c_locale)
		freelocale(ps.c_locale);
	rn_buf_release(&ps.scratch);
	rn_buf_release(&ps.keybuf);
	if (r) {
		rn_toml_free(top);
		return r;
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
	i = rn_toml_table_find(t, key, strlen(key));
	return i < 0 ? NULL : &t->kv[i];
}

const struct rn_toml_value *rn_toml_get(const struct rn_toml_value *table, const char *key)
{
	const struct rn_toml_kv *kv = rn_toml_get_kv(table, key);

	return kv ? kv->val : NULL;
}

const char *rn_toml_type_phrase(enum rn_toml_type type)
{
	switch (type) {
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
