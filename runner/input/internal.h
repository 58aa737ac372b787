/*
 * internal.h - what the config loader's files share (runner/input only): the parsing
 * context, the typed getters that read a TOML value into a field and locate a failure at its
 * value, and the [[target]] / [[assertion]] parsers that config.c calls per table.
 *
 * Errors: every int-returning function below returns 0 or -EINVAL with the error recorded in
 * c->d (file:line:col, rn_diag.h); -ENOMEM never comes back (the loader dies on out-of-memory,
 * rn_x*). Strings it stores in the config are owned by the config (rn_config_release).
 */
#ifndef RN_INPUT_INTERNAL_H
#define RN_INPUT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "diag.h"
#include "log.h"
#include "original.h"
#include "shard.h"
#include "strmap.h"
#include "toml.h"

/* Parsing context: the config being filled and where errors go. */
struct rn_cfg_ctx {
	struct rn_config *cfg;            /* the config being filled (not owned) */
	struct rn_diag *d;                /* where errors go (not owned) */
	const char *what;                 /* "[[target]] 'x'" for messages; points at what_buf */
	char what_buf[256];               /* storage of `what` */
	struct rn_strmap target_names;    /* target name -> index, for duplicates and lookups */
	struct rn_strmap assertion_names; /* assertion name -> index, for duplicates */
};

/* Record an error at `pos` (formatted as printf). Returns -EINVAL. */
int rn_cfg_err_at(struct rn_cfg_ctx *c, struct rn_toml_pos pos, const char *fmt, ...)
	RN_PRINTF(3, 4);
/* "'key' in <what> must be <want>, found <type>" at the value. Returns -EINVAL. */
int rn_cfg_type_err(struct rn_cfg_ctx *c, const struct rn_toml_kv *kv, const char *want);
/* Every key of table `tab` must be in `allowed` (NULL-terminated); an unknown key is an error
 * with a did-you-mean suggestion. */
int rn_cfg_check_keys(struct rn_cfg_ctx *c, const struct rn_toml_value *tab,
		      const char *const *allowed);

/* The getters: an absent key leaves *out as it is and returns 0; a present one of the wrong
 * type or out of range is an error at its value. */
/* A string, copied into *out (the previous value freed). */
int rn_cfg_get_string(struct rn_cfg_ctx *c, const struct rn_toml_value *tab, const char *key,
		      char **out);
/* A boolean. */
int rn_cfg_get_bool(struct rn_cfg_ctx *c, const struct rn_toml_value *tab, const char *key,
		    bool *out);
/* An integer in [min, max]. */
int rn_cfg_get_int(struct rn_cfg_ctx *c, const struct rn_toml_value *tab, const char *key,
		   int64_t min, int64_t max, int64_t *out);
/* A number (integer or float) in [min, max]. */
int rn_cfg_get_num(struct rn_cfg_ctx *c, const struct rn_toml_value *tab, const char *key,
		   double min, double max, double *out);
/* An array of strings, copied into a NULL-terminated list (*n_out: its length, may be NULL);
 * the list is freed with rn_cfg_free_strings. */
int rn_cfg_get_strings(struct rn_cfg_ctx *c, const struct rn_toml_value *tab, const char *key,
		       char ***out, size_t *n_out);
/* Free a NULL-terminated list of rn_cfg_get_strings (NULL is fine). */
void rn_cfg_free_strings(char **list);
/* One of `choices` (NULL-terminated); its index in *out. */
int rn_cfg_get_choice(struct rn_cfg_ctx *c, const struct rn_toml_value *tab, const char *key,
		      const char *const *choices, int *out);
/* Compile `pat` (a full-match pattern, rn_regex.h) once per config into c->cfg->regexes, which
 * owns it; an invalid pattern is an error at `pos` naming the byte PCRE2 stopped at. */
int rn_cfg_pool_compile(struct rn_cfg_ctx *c, struct rn_toml_pos pos, const char *key,
			const char *pat, const struct rn_regex **re_out);
/* A pattern string (copied into *pat) and its compiled form (rn_cfg_pool_compile). */
int rn_cfg_get_regex(struct rn_cfg_ctx *c, const struct rn_toml_value *tab, const char *key,
		     char **pat, const struct rn_regex **re_out);
/* Free every pattern of the pool and zero it. */
void rn_cfg_regex_pool_release(struct rn_regex_pool *pool);
/* `p` resolved against the config's directory unless absolute. Caller frees. */
char *rn_cfg_resolve_path(const struct rn_config *cfg, const char *p);

/* A target's defaults (cwd: the config's directory, timeout 300 s, one run of each kind, the
 * ptrace collector, ...), over whatever `t` held. */
void rn_cfg_target_defaults(struct rn_target_cfg *t, const struct rn_config *cfg);
/* Remove the files of folder `dir` whose names begin with `prefix` ("": all of them; a
 * harness's result files, the pytest plugin's folder). Errors are ignored: what is left is
 * in a temporary folder of renacer's own. NULL-safe. */
void rn_cfg_remove_files(const char *dir, const char *prefix);

/* Free what a target owns and zero it. */
void rn_cfg_target_release(struct rn_target_cfg *t);
/* One [[target]] table into `t` (set to its defaults here), or a [[suite]] table when the
 * caller set t->suite. */
int rn_cfg_parse_target(struct rn_cfg_ctx *c, const struct rn_toml_value *tab,
			struct rn_target_cfg *t);

/* Free what an assertion owns and zero it. */
void rn_cfg_assertion_release(struct rn_assertion_spec *a);
/* One [[assertion]] table into `a`. Returns 0, -EINVAL (error in c->d) or 1: an assertion of
 * the original format that is accepted with a note and left out (type custom). */
int rn_cfg_parse_assertion(struct rn_cfg_ctx *c, const struct rn_toml_value *tab,
			   struct rn_assertion_spec *a);

/* ---- original.c (the types are original.h's) ---- */

/* True when `table` is a top-level table of the original format listed in RN_ORIGINAL_KEYS. */
bool rn_original_is_table(const char *table);

/*
 * Accept the original-format table `table` (value `tab`, a TOML table) into `cfg`: apply the
 * keys with an equivalent and append one note per key to cfg->notes (strings with the
 * location, owned by cfg; printed by rn_config_parse unless quiet). Never fails: a value of
 * the wrong type or an unknown key is a note too, and changes nothing.
 */
void rn_original_table(struct rn_config *cfg, const char *table, const struct rn_toml_value *tab);

/* Append a note "FILE:LINE:COL: MSG" to cfg->notes (formatted once, owned by cfg). */
void rn_config_add_note(struct rn_config *cfg, struct rn_toml_pos pos, const char *fmt, ...)
	RN_PRINTF(3, 4);

/* ---- shard.c (the types are shard.h's) ---- */

/*
 * Assign each of `n` targets to a shard: `names[i]` its name, `weights[i]` its shard_weight
 * (> 0; NULL or all weights absent = unweighted), `weighted` whether any weight was set.
 * Fills `shard_of[i]` with a shard number in 1..count. `count` must be >= 1.
 * Returns 0, or -ENOMEM (nothing printed).
 */
int rn_shard_assign(const char *const *names, const double *weights, bool weighted, size_t n,
		    unsigned count, unsigned *shard_of);

#endif
