/*
 * fuzz_toml.c - the TOML parser (runner/input/toml.c) on arbitrary bytes.
 *
 * Properties, beyond "no crash, no leak, no undefined behaviour":
 * - rn_toml_parse() either returns 0 with a table, or -1 with no tree and a diagnostic that
 *   formats (source line and caret) without reading outside the input;
 * - every key of every table is found again by rn_toml_get();
 * - round trip: a tree that parsed is written back as TOML (every table inline, every string
 *   escaped, floats with 17 significant digits, date-times through rn_toml_format_datetime);
 *   that text must parse, into the same tree.
 */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "diag.h"
#include "fuzz.h"
#include "toml.h"

static void emit_value(struct rn_buf *b, const struct rn_toml_value *v);

static void emit_string(struct rn_buf *b, const char *s, size_t len)
{
	size_t i;

	rn_buf_addc(b, '"');
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			rn_buf_addf(b, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			rn_buf_addf(b, "\\u%04X", c);
		else
			rn_buf_addc(b, (char)c);
	}
	rn_buf_addc(b, '"');
}

static void emit_float(struct rn_buf *b, double x)
{
	char tmp[64];

	if (isnan(x)) {
		rn_buf_adds(b, "nan");
		return;
	}
	if (isinf(x)) {
		rn_buf_adds(b, x < 0 ? "-inf" : "inf");
		return;
	}
	snprintf(tmp, sizeof(tmp), "%.17g", x);
	rn_buf_adds(b, tmp);
	if (!strpbrk(tmp, ".e"))
		rn_buf_adds(b, ".0");
}

static void emit_table_inline(struct rn_buf *b, const struct rn_toml_table *t)
{
	size_t i;

	rn_buf_addc(b, '{');
	for (i = 0; i < t->n; i++) {
		rn_buf_adds(b, i ? ", " : " ");
		emit_string(b, t->kv[i].key, t->kv[i].key_len);
		rn_buf_adds(b, " = ");
		emit_value(b, t->kv[i].val);
	}
	rn_buf_adds(b, t->n ? " }" : "}");
}

static void emit_value(struct rn_buf *b, const struct rn_toml_value *v)
{
	char dt[128];
	size_t i;

	switch (v->type) {
	case RN_TOML_STRING:
		emit_string(b, v->u.str.ptr, v->u.str.len);
		break;
	case RN_TOML_INTEGER:
		rn_buf_addf(b, "%" PRId64, v->u.integer);
		break;
	case RN_TOML_FLOAT:
		emit_float(b, v->u.fp);
		break;
	case RN_TOML_BOOL:
		rn_buf_adds(b, v->u.boolean ? "true" : "false");
		break;
	case RN_TOML_DATETIME:
	case RN_TOML_DATETIME_LOCAL:
	case RN_TOML_DATE_LOCAL:
	case RN_TOML_TIME_LOCAL:
		rn_toml_format_datetime(v, dt, sizeof(dt));
		rn_buf_adds(b, dt);
		break;
	case RN_TOML_ARRAY:
		rn_buf_addc(b, '[');
		for (i = 0; i < v->u.array.n; i++) {
			if (i)
				rn_buf_adds(b, ", ");
			emit_value(b, v->u.array.items[i]);
		}
		rn_buf_addc(b, ']');
		break;
	case RN_TOML_TABLE:
		emit_table_inline(b, v->u.table);
		break;
	}
}

/* Nesting depth of arrays and tables below `v` (the root table counts 0). */
static int depth_of(const struct rn_toml_value *v)
{
	int best = 0, d;
	size_t i;

	if (v->type == RN_TOML_ARRAY) {
		for (i = 0; i < v->u.array.n; i++)
			if ((d = depth_of(v->u.array.items[i])) > best)
				best = d;
		return best + 1;
	}
	if (v->type == RN_TOML_TABLE) {
		for (i = 0; i < v->u.table->n; i++)
			if ((d = depth_of(v->u.table->kv[i].val)) > best)
				best = d;
		return best + 1;
	}
	return 0;
}

static bool same_datetime(const struct rn_toml_datetime *a, const struct rn_toml_datetime *b,
			  enum rn_toml_type type)
{
	int fa = a->frac_digits > 9 ? 9 : a->frac_digits;
	int fb = b->frac_digits > 9 ? 9 : b->frac_digits;

	if (type != RN_TOML_TIME_LOCAL &&
	    (a->year != b->year || a->month != b->month || a->day != b->day))
		return false;
	if (type != RN_TOML_DATE_LOCAL &&
	    (a->hour != b->hour || a->minute != b->minute || a->second != b->second ||
	     a->nanosecond != b->nanosecond || fa != fb))
		return false;
	if (type == RN_TOML_DATETIME &&
	    (a->offset_minutes != b->offset_minutes || a->offset_z != b->offset_z))
		return false;
	return true;
}

/* Same tree? On a difference, describes where in `why`. */
static bool same_value(const struct rn_toml_value *a, const struct rn_toml_value *b,
		       struct rn_buf *why)
{
	size_t i;

	if (a->type != b->type) {
		rn_buf_addf(why, "type %s became %s", rn_toml_type_name(a->type),
			    rn_toml_type_name(b->type));
		return false;
	}
	switch (a->type) {
	case RN_TOML_STRING:
		if (a->u.str.len != b->u.str.len ||
		    memcmp(a->u.str.ptr, b->u.str.ptr, a->u.str.len)) {
			rn_buf_adds(why, "string differs");
			return false;
		}
		return true;
	case RN_TOML_INTEGER:
		if (a->u.integer != b->u.integer) {
			rn_buf_addf(why, "integer %" PRId64 " became %" PRId64, a->u.integer,
				    b->u.integer);
			return false;
		}
		return true;
	case RN_TOML_FLOAT:
		if (isnan(a->u.fp) ? !isnan(b->u.fp) :
				     (a->u.fp != b->u.fp || signbit(a->u.fp) != signbit(b->u.fp))) {
			rn_buf_addf(why, "float %.17g became %.17g", a->u.fp, b->u.fp);
			return false;
		}
		return true;
	case RN_TOML_BOOL:
		if (a->u.boolean != b->u.boolean) {
			rn_buf_adds(why, "boolean differs");
			return false;
		}
		return true;
	case RN_TOML_DATETIME:
	case RN_TOML_DATETIME_LOCAL:
	case RN_TOML_DATE_LOCAL:
	case RN_TOML_TIME_LOCAL:
		if (!same_datetime(&a->u.dt, &b->u.dt, a->type)) {
			rn_buf_adds(why, "date/time differs");
			return false;
		}
		return true;
	case RN_TOML_ARRAY:
		if (a->u.array.n != b->u.array.n) {
			rn_buf_addf(why, "array of %zu became %zu items", a->u.array.n,
				    b->u.array.n);
			return false;
		}
		for (i = 0; i < a->u.array.n; i++) {
			if (!same_value(a->u.array.items[i], b->u.array.items[i], why)) {
				rn_buf_addf(why, " in item %zu", i);
				return false;
			}
		}
		return true;
	case RN_TOML_TABLE:
		if (a->u.table->n != b->u.table->n) {
			rn_buf_addf(why, "table of %zu became %zu keys", a->u.table->n,
				    b->u.table->n);
			return false;
		}
		for (i = 0; i < a->u.table->n; i++) {
			const struct rn_toml_kv *ka = &a->u.table->kv[i], *kb = &b->u.table->kv[i];

			if (ka->key_len != kb->key_len || memcmp(ka->key, kb->key, ka->key_len)) {
				rn_buf_addf(why, "key %zu differs", i);
				return false;
			}
			if (!same_value(ka->val, kb->val, why)) {
				rn_buf_addf(why, " under key %zu", i);
				return false;
			}
		}
		return true;
	}
	return false;
}

/* Every key (without an embedded NUL) is found by rn_toml_get. */
static void check_lookup(const struct rn_toml_value *v)
{
	size_t i;

	FUZZ_CHECK(rn_toml_type_name(v->type) != NULL, "type without a name");
	if (v->type == RN_TOML_ARRAY) {
		for (i = 0; i < v->u.array.n; i++)
			check_lookup(v->u.array.items[i]);
		return;
	}
	if (v->type != RN_TOML_TABLE)
		return;
	FUZZ_CHECK(v->u.table->n <= v->u.table->cap || !v->u.table->cap, "table n > cap");
	for (i = 0; i < v->u.table->n; i++) {
		const struct rn_toml_kv *kv = &v->u.table->kv[i];

		FUZZ_CHECK(kv->key && kv->val, "pair without key or value");
		FUZZ_CHECK(kv->key[kv->key_len] == '\0', "key not NUL-terminated");
		FUZZ_CHECK(kv->key_pos.line >= 1 && kv->key_pos.col >= 1, "key without position");
		if (strlen(kv->key) == kv->key_len)
			FUZZ_CHECK(rn_toml_get(v, kv->key) == kv->val, "rn_toml_get misses a key");
		check_lookup(kv->val);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rn_toml_value *root = NULL, *again = NULL;
	struct rn_diag d, d2;
	struct rn_buf text, why;

	rn_diag_init(&d, "fuzz.toml", (const char *)data, size);
	if (rn_toml_parse((const char *)data, size, &root, &d)) {
		char *msg;

		FUZZ_CHECK(!root, "failed parse left a tree");
		FUZZ_CHECK(d.set, "failed parse without a diagnostic");
		FUZZ_CHECK(d.line >= 0 && d.col >= 0, "negative position");
		msg = rn_diag_format(&d, true);
		FUZZ_CHECK(msg != NULL, "diagnostic does not format");
		free(msg);
		msg = rn_diag_oneline(&d);
		free(msg);
		return 0;
	}
	FUZZ_CHECK(root && root->type == RN_TOML_TABLE, "parse ok without a root table");
	check_lookup(root);

	if (depth_of(root) < RN_TOML_MAX_DEPTH - 2) {
		rn_buf_init(&text, 0);
		for (size_t i = 0; i < root->u.table->n; i++) {
			const struct rn_toml_kv *kv = &root->u.table->kv[i];

			emit_string(&text, kv->key, kv->key_len);
			rn_buf_adds(&text, " = ");
			emit_value(&text, kv->val);
			rn_buf_addc(&text, '\n');
		}
		FUZZ_CHECK(!rn_buf_failed(&text), "out of memory writing the tree back");
		rn_diag_init(&d2, "roundtrip.toml", text.buf, text.len);
		if (rn_toml_parse(text.buf, text.len, &again, &d2)) {
			char *msg = rn_diag_format(&d2, false);

			fprintf(stderr, "round trip text:\n%s\n", text.buf);
			fuzz_fail("the tree written back does not parse: %s", msg ? msg : "?");
		}
		rn_buf_init(&why, 0);
		if (!same_value(root, again, &why)) {
			fprintf(stderr, "round trip text:\n%s\n", text.buf);
			fuzz_fail("round trip changed the tree: %s", why.buf);
		}
		rn_buf_release(&why);
		rn_toml_free(again);
		rn_buf_release(&text);
	}
	rn_toml_free(root);
	return 0;
}
