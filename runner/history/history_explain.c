/*
 * history_explain.c - explanations kept with their run (history.h, table explanations): where
 * a failed timing row's time went, written by `check` with the run and read back by the page
 * for that run only.
 */
#include "history.h"
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "json_text.h"
#include "utf8.h"
#include "xalloc.h"

bool rn_history_file_hash(const char *path, char hex[17], struct rn_buf *content)
{
	struct rn_buf b;
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i;
	bool ok;

	rn_buf_init(&b, RN_HISTORY_EXPLAIN_FILE_MAX);
	ok = path && !rn_buf_read_file(&b, path) && !rn_buf_failed(&b);
	for (i = 0; ok && i < b.len; i++) {
		h ^= (unsigned char)b.buf[i];
		h *= 0x100000001b3ull;
	}
	if (ok)
		snprintf(hex, 17, "%016llx", (unsigned long long)h);
	if (ok && content)
		rn_buf_add(content, b.buf, b.len);
	rn_buf_release(&b);
	return ok;
}

/* One file of an explanation: its absolute path, its hash and, when at most
 * RN_HISTORY_FOLDED_INLINE bytes, its text. Every string NULL when the file cannot be read. */
struct kept_file {
	char *path;
	char hash[17];
	char *text;
};

static void keep_file(struct kept_file *k, const char *path, bool inline_text)
{
	struct rn_buf b;

	memset(k, 0, sizeof(*k));
	rn_buf_init(&b, RN_HISTORY_EXPLAIN_FILE_MAX);
	if (!path || !rn_history_file_hash(path, k->hash, &b)) {
		rn_buf_release(&b);
		return;
	}
	k->path = realpath(path, NULL);
	if (!k->path)
		k->path = rn_xstrdup(path);
	if (inline_text && b.len <= RN_HISTORY_FOLDED_INLINE)
		k->text = rn_utf8_fix(b.buf);
	rn_buf_release(&b);
}

static void kept_release(struct kept_file *k)
{
	free(k->path);
	free(k->text);
}

int rn_history_append_explanation(struct rn_history *h, const char *run_id,
				  const struct rn_target_report *t)
{
	const struct rn_explanation *e = t->explain;
	struct kept_file f[3];
	char *assertion = rn_utf8_fix(e->assertion ? e->assertion : "");
	char *text = rn_utf8_fix(e->text ? e->text : "");
	const char *p[12];
	size_t i;
	int rc;

	keep_file(&f[0], e->svg, false);
	keep_file(&f[1], e->base_folded, true);
	keep_file(&f[2], e->head_folded, true);
	p[0] = run_id;
	p[1] = t->result->name;
	p[2] = assertion;
	p[3] = text;
	p[4] = f[0].path;
	p[5] = f[0].path ? f[0].hash : NULL;
	for (i = 1; i < 3; i++) {
		p[3 * i + 3] = f[i].path;
		p[3 * i + 4] = f[i].path ? f[i].hash : NULL;
		p[3 * i + 5] = f[i].text;
	}
	rc = h->ops->query(h,
			   "INSERT INTO explanations (run_id, target, assertion, text, svg_path, "
			   "svg_hash, base_path, base_hash, base_folded, head_path, head_hash, "
			   "head_folded) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			   p, 12, NULL, NULL);
	for (i = 0; i < 3; i++)
		kept_release(&f[i]);
	free(assertion);
	free(text);
	return rc;
}

int rn_history_explain_row(void *ctx, size_t ncols, const char *const *v)
{
	json_t *map = ctx, *list, *e;
	char hash[17];

	if (ncols < 6 || !v[0])
		return 0;
	list = json_object_get(map, v[0]);
	if (!list) {
		list = json_array();
		json_object_set_new(map, v[0], list);
	}
	/* The flame graph only while its file is still the one written with this run: a later
	 * check overwrites it. */
	e = json_pack("{s:o, s:o, s:o, s:o}", "target", rn_json_text(v[1]), "assertion",
		      rn_json_text(v[2]), "text", rn_json_text(v[3]), "svg",
		      rn_json_text(v[4] && v[5] && rn_history_file_hash(v[4], hash, NULL) &&
						   !strcmp(hash, v[5]) ?
					   v[4] :
					   ""));
	json_array_append_new(list, e);
	return 0;
}
