#include "rn_regex.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <errno.h>
#include <pcre2.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rn_regex {
	pcre2_code *code;          /* the compiled program, owned */
	pcre2_match_context *mctx; /* the match, depth and heap limits, owned */
	char *pattern;             /* as given, owned */
	atomic_ulong limit_hits;   /* matches that gave up (rn_regex_limit_hits) */
};

/* POSIX ERE meanings kept: "." matches a newline, "$" only the very end. Full match. */
#define COMPILE_OPTIONS (PCRE2_ANCHORED | PCRE2_ENDANCHORED | PCRE2_DOTALL | PCRE2_DOLLAR_ENDONLY)

static void set_error(struct rn_regex_error *err, int code, size_t offset)
{
	PCRE2_UCHAR msg[sizeof(err->message)];

	if (!err)
		return;
	if (pcre2_get_error_message(code, msg, sizeof(msg)) < 0)
		snprintf((char *)msg, sizeof(msg), "pcre2 error %d", code);
	snprintf(err->message, sizeof(err->message), "%s", (const char *)msg);
	err->offset = offset;
}

/* The compile context with the pattern bounds, or NULL on out-of-memory. */
static pcre2_compile_context *bounded_compile_context(void)
{
	pcre2_compile_context *cctx = pcre2_compile_context_create(NULL);

	if (!cctx)
		return NULL;
	pcre2_set_max_pattern_length(cctx, RN_REGEX_MAX_BYTES);
	pcre2_set_parens_nest_limit(cctx, RN_REGEX_MAX_NESTING);
	return cctx;
}

static pcre2_match_context *bounded_match_context(void)
{
	pcre2_match_context *mctx = pcre2_match_context_create(NULL);

	if (!mctx)
		return NULL;
	pcre2_set_match_limit(mctx, RN_REGEX_MATCH_LIMIT);
	pcre2_set_depth_limit(mctx, RN_REGEX_DEPTH_LIMIT);
	pcre2_set_heap_limit(mctx, RN_REGEX_HEAP_LIMIT_KIB);
	return mctx;
}

/* The byte offset of the first interval "{m}", "{m,}" or "{m,n}" of `p` with a bound over
 * RN_REGEX_MAX_REPEAT (its bound in *bound), or -1 when none. Escapes, \Q...\E and bracket
 * expressions are passed by; a '{' that starts no interval is a literal, as in PCRE2. */
static long over_repeat(const char *p, unsigned long *bound)
{
	bool in_class = false;

	for (const char *s = p; *s; s++) {
		if (*s == '\\' && s[1] == 'Q') {
			const char *e = strstr(s + 2, "\\E");

			if (!e)
				return -1;
			s = e + 1;
		} else if (*s == '\\') {
			if (!*++s)
				return -1;
		} else if (in_class) {
			in_class = *s != ']';
		} else if (*s == '[') {
			in_class = true;
			s += s[1] == '^';
			s += s[1] == ']'; /* a leading ']' is a member */
		} else if (*s == '{' && s[1] >= '0' && s[1] <= '9') {
			char *end;
			unsigned long lo = strtoul(s + 1, &end, 10), hi = lo;

			if (*end == ',' && end[1] >= '0' && end[1] <= '9')
				hi = strtoul(end + 1, &end, 10);
			else if (*end == ',')
				end++; /* "{m,}" */
			if (*end == '}' && (lo > RN_REGEX_MAX_REPEAT || hi > RN_REGEX_MAX_REPEAT)) {
				*bound = lo > hi ? lo : hi;
				return (long)(s - p);
			}
		}
	}
	return -1;
}

/* A pattern refused before PCRE2 sees it: the reason and its offset into *err (when given).
 * Returns -EINVAL. */
static int refuse(struct rn_regex_error *err, size_t offset, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int refuse(struct rn_regex_error *err, size_t offset, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		va_start(ap, fmt);
		vsnprintf(err->message, sizeof(err->message), fmt, ap);
		va_end(ap);
		err->offset = offset;
	}
	return -EINVAL;
}

int rn_regex_compile(const char *pattern, struct rn_regex **out, struct rn_regex_error *err)
{
	pcre2_compile_context *cctx;
	struct rn_regex *re;
	PCRE2_SIZE offset = 0;
	int code = 0;

	unsigned long bound = 0;
	long at;

	if (strlen(pattern) > RN_REGEX_MAX_BYTES)
		return refuse(err, RN_REGEX_MAX_BYTES, "pattern is longer than %d bytes",
			      RN_REGEX_MAX_BYTES);
	/* before PCRE2 (whose bound is 65535): "(.*){0,3000}" compiles there, and each match of
	 * it against a name took 16 MiB of backtracking frames, 450 names 14 s under ASan */
	at = over_repeat(pattern, &bound);
	if (at >= 0)
		return refuse(err, (size_t)at,
			      "repetition bound %lu is over %d (RE_DUP_MAX, POSIX ERE)", bound,
			      RN_REGEX_MAX_REPEAT);
	cctx = bounded_compile_context();
	if (!cctx)
		return -ENOMEM;
	re = calloc(1, sizeof(*re));
	if (!re)
		goto out_free_cctx;
	re->code = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, COMPILE_OPTIONS, &code,
				 &offset, cctx);
	pcre2_compile_context_free(cctx);
	if (!re->code) {
		free(re);
		if (code == PCRE2_ERROR_HEAP_FAILED)
			return -ENOMEM;
		set_error(err, code, offset);
		return -EINVAL;
	}
	re->mctx = bounded_match_context();
	re->pattern = strdup(pattern);
	if (!re->mctx || !re->pattern) {
		rn_regex_free(re);
		return -ENOMEM;
	}
	atomic_init(&re->limit_hits, 0);
	*out = re;
	return 0;

out_free_cctx:
	pcre2_compile_context_free(cctx);
	return -ENOMEM;
}

bool rn_regex_match(const struct rn_regex *re, const char *subject)
{
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(re->code, NULL);
	int rc;

	if (!md) {
		/* The counter is the one field a match writes: the object is never const. */
		atomic_fetch_add(&((struct rn_regex *)re)->limit_hits, 1);
		return false;
	}
	rc = pcre2_match(re->code, (PCRE2_SPTR)subject, PCRE2_ZERO_TERMINATED, 0, 0, md, re->mctx);
	pcre2_match_data_free(md);
	if (rc >= 0)
		return true;
	if (rc != PCRE2_ERROR_NOMATCH)
		atomic_fetch_add(&((struct rn_regex *)re)->limit_hits, 1);
	return false;
}

unsigned long rn_regex_limit_hits(const struct rn_regex *re)
{
	return atomic_load(&((struct rn_regex *)re)->limit_hits);
}

const char *rn_regex_pattern(const struct rn_regex *re)
{
	return re->pattern;
}

void rn_regex_free(struct rn_regex *re)
{
	if (!re)
		return;
	pcre2_code_free(re->code);
	pcre2_match_context_free(re->mctx);
	free(re->pattern);
	free(re);
}
