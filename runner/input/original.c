/*
 * original.c - accept the tables of the original renacer.toml format (see original.h).
 */
#include "original.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "config.h"
#include "diag.h"
#include "internal.h"
#include "log.h"
#include "xalloc.h"

struct original_key {
	const char *table;
	const char *key;
	enum rn_original_action action;
	const char *note;
};

#define ORIGINAL_ROW(t, k, a, n) { t, k, a, n },
static const struct original_key original_keys[] = { RN_ORIGINAL_KEYS(ORIGINAL_ROW) };
#undef ORIGINAL_ROW

#define NKEYS (sizeof(original_keys) / sizeof(original_keys[0]))

bool rn_original_is_table(const char *table)
{
	size_t i;

	for (i = 0; i < NKEYS; i++)
		if (!strcmp(original_keys[i].table, table))
			return true;
	return false;
}

void rn_config_add_note(struct rn_config *cfg, struct rn_toml_pos pos, const char *fmt, ...)
{
	char msg[RN_DIAG_MSG_MAX], *line;
	size_t n = 0;
	va_list ap;
	int len;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	len = snprintf(NULL, 0, "%s:%d:%d: %s", cfg->path ? cfg->path : "<input>", pos.line,
		       pos.col, msg);
	if (len < 0)
		rn_die("cannot format a config note");
	line = rn_xmalloc((size_t)len + 1);
	snprintf(line, (size_t)len + 1, "%s:%d:%d: %s", cfg->path ? cfg->path : "<input>", pos.line,
		 pos.col, msg);
	while (cfg->notes && cfg->notes[n])
		n++;
	cfg->notes = rn_xrealloc(cfg->notes, (n + 2) * sizeof(*cfg->notes));
	cfg->notes[n] = line;
	cfg->notes[n + 1] = NULL;
}

void rn_original_table(struct rn_config *cfg, const char *table, const struct rn_toml_value *tab)
{
	const char *names[NKEYS + 1];
	struct rn_toml_pos unused_pos = { 0, 0 };
	struct rn_buf unused;
	size_t i, j, n = 0;

	rn_buf_init(&unused, 4096);

	for (j = 0; j < NKEYS; j++)
		if (!strcmp(original_keys[j].table, table))
			names[n++] = original_keys[j].key;
	names[n] = NULL;
	for (i = 0; i < tab->u.table->n; i++) {
		const struct rn_toml_kv *kv = &tab->u.table->kv[i];
		const struct original_key *ok = NULL;

		for (j = 0; j < NKEYS; j++) {
			if (!strcmp(original_keys[j].table, table) &&
			    !strcmp(original_keys[j].key, kv->key)) {
				ok = &original_keys[j];
				break;
			}
		}
		if (!ok) {
			const char *hint = rn_suggest(kv->key, names);

			rn_config_add_note(cfg, kv->key_pos,
					   "[%s] %s: not a key of the original renacer format; "
					   "ignored%s%s%s",
					   table, kv->key, hint ? " (did you mean '" : "",
					   hint ? hint : "", hint ? "'?)" : "");
			continue;
		}
		if (ok->action == RN_ORIG_REGRESSION) {
			if (kv->val->type != RN_TOML_BOOL) {
				rn_config_add_note(cfg, kv->val->pos,
						   "[%s] %s: expected a boolean; ignored", table,
						   kv->key);
				continue;
			}
			if (!kv->val->u.boolean)
				cfg->regression.enabled = false;
			/* the note says what this value does, not what the other one would */
			rn_config_add_note(
				cfg, kv->key_pos, "[%s] %s: %s", table, kv->key,
				kv->val->u.boolean ?
					"true: golden traces are compared (the default)" :
					"false: golden traces are not compared ([regression] "
					"enabled = false)");
			continue;
		}
		if (!strcmp(ok->note, "not used")) {
			/* one note for all of them, at the first */
			if (!unused.len)
				unused_pos = kv->key_pos;
			rn_buf_addf(&unused, "%s%s", unused.len ? ", " : "", kv->key);
			continue;
		}
		rn_config_add_note(cfg, kv->key_pos, "[%s] %s: %s", table, kv->key, ok->note);
	}
	if (unused.len)
		rn_config_add_note(cfg, unused_pos, "[%s] %s: not used by this renacer", table,
				   unused.buf);
	rn_buf_release(&unused);
}
