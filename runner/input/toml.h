/*
 * toml.h - renacer's TOML 1.0.0 parser (https://toml.io/en/v1.0.0).
 *
 * The whole language: basic, literal and multi-line strings with every escape and the
 * line-ending-backslash trimming rule; integers in decimal/hex/octal/binary with underscores and
 * int64 overflow rejected; floats with exponents, inf and nan; booleans; offset and local
 * date-times, local dates and local times (nanosecond precision kept); arrays (mixed types);
 * inline tables; standard tables; arrays of tables; dotted keys; the redefinition rules of
 * spec sections "Table", "Inline Table" and "Array of Tables"; comments; LF and CRLF; UTF-8
 * validation and the control-character rules; a leading BOM ignored. Nesting of arrays and
 * tables is bounded by RN_TOML_MAX_DEPTH.
 *
 * Every key and value carries its 1-based source position (line, column in code points) so
 * the config layer can point errors and GitHub annotations at the exact spot.
 *
 * Ownership: rn_toml_parse() returns a tree the caller frees with rn_toml_free(); every
 * pointer inside it is owned by the tree. The parser allocates through the failable
 * rn_malloc() family, so allocation failures become a diagnostic ("out of memory"), never a
 * crash. Re-entrant; no global state.
 */
#ifndef RN_TOML_H
#define RN_TOML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"

/* Deepest nesting of arrays and inline tables (and of table headers' key paths). */
#define RN_TOML_MAX_DEPTH 128

/* The type of a TOML value (enum rn_toml_type); names follow toml-test's tagged JSON. */
enum rn_toml_type {
	RN_TOML_STRING,         /* "string" */
	RN_TOML_INTEGER,        /* "integer": int64 */
	RN_TOML_FLOAT,          /* "float": IEEE-754 double */
	RN_TOML_BOOL,           /* "bool" */
	RN_TOML_DATETIME,       /* "datetime": offset date-time (RFC 3339) */
	RN_TOML_DATETIME_LOCAL, /* "datetime-local" */
	RN_TOML_DATE_LOCAL,     /* "date-local" */
	RN_TOML_TIME_LOCAL,     /* "time-local" */
	RN_TOML_ARRAY,          /* array, including an array of tables */
	RN_TOML_TABLE,          /* table: root, [table], inline table, dotted-key table */
};

/* A source position: 1-based line and column (code points). */
struct rn_toml_pos {
	int line; /* 1-based line */
	int col;  /* 1-based column, counted in code points */
};

/* Date and/or time fields; which ones are meaningful depends on the value's type. */
struct rn_toml_datetime {
	int year, month, day;     /* date part (datetime, datetime-local, date-local) */
	int hour, minute, second; /* time part (datetime, datetime-local, time-local) */
	int nanosecond;           /* fraction of the second in ns (digits past 9 truncated) */
	int frac_digits;          /* fraction digits written in the source (0 = none) */
	int offset_minutes;       /* UTC offset in minutes (datetime only); Z is 0 */
	bool offset_z;            /* the offset was written as Z/z */
};

struct rn_toml_table;

/* A value of any type. */
struct rn_toml_value {
	enum rn_toml_type type; /* which member of `u` is valid */
	struct rn_toml_pos pos; /* position of the value's first character */
	union {
		struct {
			char *ptr;  /* decoded UTF-8, NUL-terminated (may contain NUL: use len) */
			size_t len; /* bytes, excluding the terminating NUL */
		} str;              /* RN_TOML_STRING */
		int64_t integer;    /* RN_TOML_INTEGER */
		double fp;          /* RN_TOML_FLOAT */
		bool boolean;       /* RN_TOML_BOOL */
		struct rn_toml_datetime dt; /* the four date/time types */
		struct {
			struct rn_toml_value **items; /* elements in source order */
			size_t n;                     /* number of elements */
		} array;                              /* RN_TOML_ARRAY */
		struct rn_toml_table *table;          /* RN_TOML_TABLE */
	} u;
};

/* One key/value pair of a table. */
struct rn_toml_kv {
	char *key;                  /* decoded key (one segment of a dotted key), NUL-terminated */
	size_t key_len;             /* bytes in key (a quoted key may contain NUL) */
	struct rn_toml_pos key_pos; /* where the key segment was first written */
	struct rn_toml_value *val;  /* the value, owned */
};

/* A table: key/value pairs in the order they were first defined. */
struct rn_toml_table {
	struct rn_toml_kv *kv; /* pairs in definition order */
	size_t n;              /* pairs used */
	size_t cap;            /* pairs allocated */
	void *index;           /* parser-private lookup index, may be NULL */
	uint32_t flags;        /* parser-private state (defined, implicit, inline, ...) */
};

/*
 * Parse `len` bytes of TOML. On success returns 0 and sets *root to a RN_TOML_TABLE value the
 * caller frees with rn_toml_free(). On failure returns -EINVAL (-ENOMEM when memory ran out),
 * leaves *root NULL and fills `d` (which must have been initialized with the same source for
 * line/column and caret output) with the first error, e.g. "2:7: expected '=' after a key, found 'x'".
 */
int rn_toml_parse(const char *src, size_t len, struct rn_toml_value **root, struct rn_diag *d);

/* Free a value tree (NULL-safe). Only for trees made by rn_toml_parse(): a value, its string
 * text and its key share one allocation, so never free or realloc a pointer inside a tree. */
void rn_toml_free(struct rn_toml_value *v);

/* The value of `key` in table value `table` (not dotted: one segment), or NULL if absent or
 * `table` is not a table. Borrowed. */
const struct rn_toml_value *rn_toml_get(const struct rn_toml_value *table, const char *key);
/* Like rn_toml_get but returns the whole pair (for the key's position), or NULL. */
const struct rn_toml_kv *rn_toml_get_kv(const struct rn_toml_value *table, const char *key);

/* `type` as a message names it ("a string", "an integer", "an offset date-time", ..., "a
 * table"; static), for "must be a string, found an array". */
const char *rn_toml_type_phrase(enum rn_toml_type type);
/* toml-test's type name of `type` ("string", "integer", ..., "array", "table"). */
const char *rn_toml_type_name(enum rn_toml_type type);

/*
 * Format a date/time value as toml-test expects (RFC 3339 for datetime, with the fraction
 * digits kept up to 9). Writes at most `size` bytes including the NUL; returns the length.
 */
int rn_toml_format_datetime(const struct rn_toml_value *v, char *out, size_t size);

#endif
