/*
 * toml-decode - the conformance decoder for toml-test (run by tests/integration/toml/tests.cmake).
 *
 * Reads a TOML document from stdin and prints it as toml-test's tagged JSON on stdout:
 * tables become objects, arrays arrays, and every scalar {"type": T, "value": TEXT}.
 *
 * Exit status: 0 valid document (nothing on stderr); 1 invalid document, with the
 * diagnostic on stderr (what toml-test's runner requires); 2 an internal failure (cannot read
 * stdin, out of memory).
 */
#include "toml.h"

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"

static json_t *to_json(const struct rn_toml_value *v);

/* {"type": type, "value": text}; NULL on out of memory. */
static json_t *tagged(const char *type, const char *text, size_t len)
{
	return json_pack("{s:s, s:s%}", "type", type, "value", text, len);
}

/*
 * The shortest "%.Ng" that reads back as the same double, so the grader's float comparison
 * sees exactly the parsed value. inf and nan are spelled as toml-test expects; a NaN's sign
 * is not kept (toml-test compares all NaNs equal).
 */
static void format_float(double d, char *out, size_t size)
{
	int prec;

	if (isnan(d)) {
		snprintf(out, size, "nan");
		return;
	}
	if (isinf(d)) {
		snprintf(out, size, "%s", d < 0 ? "-inf" : "inf");
		return;
	}
	for (prec = 15; prec <= 17; prec++) {
		snprintf(out, size, "%.*g", prec, d);
		if (strtod(out, NULL) == d)
			return;
	}
}

static json_t *table_to_json(const struct rn_toml_table *t)
{
	json_t *obj = json_object();
	size_t i;

	if (!obj)
		return NULL;
	for (i = 0; i < t->n; i++) {
		json_t *val = to_json(t->kv[i].val);

		/* setn: a quoted key may contain U+0000. */
		if (!val || json_object_setn_new(obj, t->kv[i].key, t->kv[i].key_len, val)) {
			json_decref(obj);
			return NULL;
		}
	}
	return obj;
}

static json_t *to_json(const struct rn_toml_value *v)
{
	char text[64];
	json_t *arr;
	size_t i;

	switch (v->type) {
	case RN_TOML_STRING:
		return tagged("string", v->u.str.ptr, v->u.str.len);
	case RN_TOML_INTEGER:
		snprintf(text, sizeof(text), "%" PRId64, v->u.integer);
		return tagged("integer", text, strlen(text));
	case RN_TOML_FLOAT:
		format_float(v->u.fp, text, sizeof(text));
		return tagged("float", text, strlen(text));
	case RN_TOML_BOOL:
		return tagged("bool", v->u.boolean ? "true" : "false", v->u.boolean ? 4 : 5);
	case RN_TOML_DATETIME:
	case RN_TOML_DATETIME_LOCAL:
	case RN_TOML_DATE_LOCAL:
	case RN_TOML_TIME_LOCAL:
		rn_toml_format_datetime(v, text, sizeof(text));
		return tagged(rn_toml_type_name(v->type), text, strlen(text));
	case RN_TOML_ARRAY:
		arr = json_array();
		if (!arr)
			return NULL;
		for (i = 0; i < v->u.array.n; i++) {
			json_t *item = to_json(v->u.array.items[i]);

			if (!item || json_array_append_new(arr, item)) {
				json_decref(arr);
				return NULL;
			}
		}
		return arr;
	case RN_TOML_TABLE:
		return table_to_json(v->u.table);
	}
	return NULL;
}

int main(void)
{
	struct rn_toml_value *root = NULL;
	struct rn_diag d;
	struct rn_buf in;
	json_t *json;
	char *out;
	int rc = 2;

	rn_buf_init(&in, 0);
	if (rn_buf_read_fd(&in, 0) < 0) {
		fprintf(stderr, "toml-decode: error: cannot read standard input\n");
		goto out_release_input;
	}
	rn_diag_init(&d, "<stdin>", in.buf, in.len);
	if (rn_toml_parse(in.buf, in.len, &root, &d)) {
		rn_diag_print(&d, false);
		rc = 1;
		goto out_release_input;
	}
	json = to_json(root);
	if (!json) {
		fprintf(stderr, "toml-decode: error: out of memory building JSON\n");
		goto out_free_tree;
	}
	out = json_dumps(json, JSON_INDENT(1) | JSON_SORT_KEYS);
	json_decref(json);
	if (!out) {
		fprintf(stderr, "toml-decode: error: out of memory formatting JSON\n");
		goto out_free_tree;
	}
	fputs(out, stdout);
	fputc('\n', stdout);
	free(out);
	rc = fflush(stdout) ? 2 : 0;
out_free_tree:
	rn_toml_free(root);
out_release_input:
	rn_buf_release(&in);
	return rc;
}
