/*
 * toml_value.c - TOML values: numbers, dates and times, scalars, arrays and inline tables
 * (TOML 1.0.0, sections Integer, Float, Offset Date-Time ... Local Time, Array, Inline Table).
 * Private to the parser: toml_internal.h.
 */
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

/* ---- Numbers (TOML 1.0.0, sections Integer and Float) ----------------------------------- */

static int digit_val(int c, int radix)
{
	int v = rn_toml_hex_val(c);

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
static int to_double(struct rn_toml_parser *ps, const char *s, const char *e, double *out)
{
	char small[128], *tmp = small, *endp;
	size_t n = 0, cap = sizeof(small);
	const char *q;

	if ((size_t)(e - s) >= cap) {
		cap = (size_t)(e - s) + 1;
		tmp = rn_malloc(cap);
		if (!tmp)
			return rn_toml_oom(ps);
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
			return rn_toml_oom(ps);
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
static int parse_radix_int(struct rn_toml_parser *ps, const char *s, const char *q, const char *e,
			   struct rn_toml_value *v)
{
	int tl = e - s > RN_TOML_QUOTE_MAX ? RN_TOML_QUOTE_MAX : (int)(e - s);
	int radix = q[1] == 'x' ? 16 : q[1] == 'o' ? 8 : 2;
	const char *int_start;
	uint64_t acc = 0;
	long n;

	if (q != s)
		return rn_toml_fail(ps, s,
				    "invalid integer '%.*s': a sign is not allowed with a "
				    "0%c prefix",
				    tl, s, q[1]);
	q += 2;
	int_start = q;
	n = scan_digits(&q, e, radix);
	if (n < 0)
		return rn_toml_fail(ps, s, "invalid integer '%.*s': '_' must be between digits", tl,
				    s);
	if (!n || q != e)
		return rn_toml_fail(ps, s, "invalid integer '%.*s': expected base-%d digits", tl, s,
				    radix);
	for (; int_start < e; int_start++) {
		if (*int_start == '_')
			continue;
		if (acc >
		    ((uint64_t)INT64_MAX - (uint64_t)rn_toml_hex_val(*int_start)) / (uint64_t)radix)
			return rn_toml_fail(ps, s, "integer '%.*s' is out of range (int64)", tl, s);
		acc = acc * (uint64_t)radix + (uint64_t)rn_toml_hex_val(*int_start);
	}
	v->type = RN_TOML_INTEGER;
	v->u.integer = (int64_t)acc;
	return 0;
}

/* The fraction and exponent of a decimal number, after its integer part (*q advances);
 * *is_float is set when either is present. */
static int scan_float_tail(struct rn_toml_parser *ps, const char *s, const char **q, const char *e,
			   bool *is_float)
{
	int tl = e - s > RN_TOML_QUOTE_MAX ? RN_TOML_QUOTE_MAX : (int)(e - s);
	long n;

	if (*q < e && **q == '.') {
		(*q)++;
		*is_float = true;
		n = scan_digits(q, e, 10);
		if (n < 0)
			return rn_toml_fail(ps, s,
					    "invalid float '%.*s': '_' must be between digits", tl,
					    s);
		if (!n)
			return rn_toml_fail(ps, s,
					    "invalid float '%.*s': expected a digit after '.'", tl,
					    s);
	}
	if (*q < e && (**q == 'e' || **q == 'E')) {
		(*q)++;
		*is_float = true;
		if (*q < e && (**q == '+' || **q == '-'))
			(*q)++;
		n = scan_digits(q, e, 10);
		if (n < 0)
			return rn_toml_fail(ps, s,
					    "invalid float '%.*s': '_' must be between digits", tl,
					    s);
		if (!n)
			return rn_toml_fail(ps, s,
					    "invalid float '%.*s': expected a digit in the exponent",
					    tl, s);
	}
	return 0;
}

/* The value of the decimal integer digits [int_start, e) ('_' skipped), negated when neg. */
static int decimal_int(struct rn_toml_parser *ps, const char *s, const char *int_start,
		       const char *e, bool neg, struct rn_toml_value *v)
{
	int tl = e - s > RN_TOML_QUOTE_MAX ? RN_TOML_QUOTE_MAX : (int)(e - s);
	/* Accumulate the magnitude; -9223372036854775808 is in range, its negation is not. */
	uint64_t acc = 0, limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	const char *q;

	for (q = int_start; q < e; q++) {
		uint64_t dv;

		if (*q == '_')
			continue;
		dv = (uint64_t)(*q - '0');
		if (acc > (limit - dv) / 10)
			return rn_toml_fail(ps, s, "integer '%.*s' is out of range (int64)", tl, s);
		acc = acc * 10 + dv;
	}
	v->type = RN_TOML_INTEGER;
	v->u.integer = neg ? (int64_t)(0 - acc) : (int64_t)acc;
	return 0;
}

int rn_toml_parse_number(struct rn_toml_parser *ps, const char *s, const char *e,
			 struct rn_toml_value *v)
{
	const char *q = s, *int_start;
	int tl = e - s > RN_TOML_QUOTE_MAX ? RN_TOML_QUOTE_MAX : (int)(e - s);
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
		return rn_toml_fail(ps, s, "invalid number '%.*s': '_' must be between digits", tl,
				    s);
	if (!n)
		return rn_toml_fail(ps, s, "invalid number '%.*s'", tl, s);
	if (*int_start == '0' && n > 1)
		return rn_toml_fail(ps, s, "invalid number '%.*s': leading zeros are not allowed",
				    tl, s);
	if (*int_start == '0' && q - int_start > 1)
		return rn_toml_fail(ps, s, "invalid number '%.*s': '_' must be between digits", tl,
				    s);
	if (scan_float_tail(ps, s, &q, e, &is_float))
		return ps->err;
	if (q != e)
		return rn_toml_fail(ps, s, "invalid number '%.*s'", tl, s);
	if (!is_float)
		return decimal_int(ps, s, int_start, e, neg, v);
	if (to_double(ps, s, e, &d))
		return ps->err;
	if (isinf(d))
		return rn_toml_fail(ps, s, "float '%.*s' is out of range (double)", tl, s);
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
bool rn_toml_looks_like_date(const char *s, const char *e)
{
	return fixed_digits(s, e, 4) >= 0 && e - s > 4 && s[4] == '-';
}

bool rn_toml_looks_like_time(const char *s, const char *e)
{
	return fixed_digits(s, e, 2) >= 0 && e - s > 2 && s[2] == ':';
}

/* Parse HH:MM:SS[.fraction] at *s into dt. RFC 3339 time-second allows 60 (leap second);
 * TOML 1.0.0 requires the seconds. Fraction digits past nanoseconds are truncated (section
 * Offset Date-Time: "truncate the additional precision"). */
static int parse_time(struct rn_toml_parser *ps, const char **s, const char *e, const char *tok,
		      int tl, struct rn_toml_datetime *dt)
{
	const char *q = *s;
	int k;

	/* partial-time = time-hour ":" time-minute ":" time-second [time-secfrac] */
	dt->hour = fixed_digits(q, e, 2);
	dt->minute = e - q >= 3 && q[2] == ':' ? fixed_digits(q + 3, e, 2) : -1;
	dt->second = e - q >= 6 && q[5] == ':' ? fixed_digits(q + 6, e, 2) : -1;
	if (dt->hour < 0 || dt->minute < 0)
		return rn_toml_fail(ps, tok, "invalid time in '%.*s': expected HH:MM:SS", tl, tok);
	if (dt->second < 0)
		return rn_toml_fail(ps, tok,
				    "invalid time in '%.*s': seconds are required (HH:MM:SS)", tl,
				    tok);
	if (dt->hour > 23 || dt->minute > 59 || dt->second > 60)
		return rn_toml_fail(ps, tok, "invalid time in '%.*s': %s out of range", tl, tok,
				    dt->hour > 23           ? "hour" :
					    dt->minute > 59 ? "minute" :
							      "second");
	q += 8;
	if (q < e && *q == '.') {
		q++;
		if (q >= e || *q < '0' || *q > '9')
			return rn_toml_fail(ps, tok,
					    "invalid time in '%.*s': expected a digit after '.'",
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

/* Parse YYYY-MM-DD at *s into dt, a day that exists in its month. */
static int parse_date(struct rn_toml_parser *ps, const char **s, const char *e, const char *tok,
		      int tl, struct rn_toml_datetime *dt)
{
	const char *q = *s;
	int dim;

	/* full-date = date-fullyear "-" date-month "-" date-mday: exactly 4, 2, 2 digits. */
	dt->year = fixed_digits(q, e, 4);
	dt->month = e - q >= 10 && q[4] == '-' ? fixed_digits(q + 5, e, 2) : -1;
	dt->day = e - q >= 10 && q[7] == '-' ? fixed_digits(q + 8, e, 2) : -1;
	if (dt->year < 0 || dt->month < 0 || dt->day < 0)
		return rn_toml_fail(ps, tok, "invalid date '%.*s': expected YYYY-MM-DD", tl, tok);
	if (dt->month < 1 || dt->month > 12)
		return rn_toml_fail(ps, tok, "invalid date '%.*s': month out of range (01-12)", tl,
				    tok);
	dim = days_in_month(dt->year, dt->month);
	if (dt->day < 1 || dt->day > dim)
		return rn_toml_fail(ps, tok, "invalid date '%.*s': day out of range (01-%02d)", tl,
				    tok, dim);
	*s = q + 10;
	return 0;
}

/* Parse the UTC offset of a date-time at *s into dt, if there is one: Z (or z) or +HH:MM. */
static int parse_offset(struct rn_toml_parser *ps, const char **s, const char *e, const char *tok,
			int tl, struct rn_toml_datetime *dt)
{
	const char *q = *s;
	int sign, oh, om;

	if (*q == 'Z' || *q == 'z') {
		dt->offset_z = true;
		*s = q + 1;
		return 0;
	}
	if (*q != '+' && *q != '-')
		return 0;
	sign = *q == '-' ? -1 : 1;
	oh = fixed_digits(q + 1, e, 2);
	om = e - q >= 6 && q[3] == ':' ? fixed_digits(q + 4, e, 2) : -1;
	/* time-numoffset = ("+" / "-") time-hour ":" time-minute */
	if (oh < 0 || om < 0)
		return rn_toml_fail(ps, tok,
				    "invalid date-time '%.*s': expected a UTC offset (Z or +HH:MM)",
				    tl, tok);
	if (oh > 23 || om > 59)
		return rn_toml_fail(ps, tok, "invalid date-time '%.*s': UTC offset out of range",
				    tl, tok);
	dt->offset_minutes = sign * (oh * 60 + om);
	*s = q + 6;
	return 0;
}

/* Parse a date-time, local date or local time spelled by [s, e) into v. */
int rn_toml_parse_datetime(struct rn_toml_parser *ps, const char *s, const char *e,
			   struct rn_toml_value *v)
{
	struct rn_toml_datetime *dt = &v->u.dt;
	int tl = e - s > RN_TOML_QUOTE_MAX ? RN_TOML_QUOTE_MAX : (int)(e - s);
	const char *q = s;

	memset(dt, 0, sizeof(*dt));
	if (rn_toml_looks_like_time(s, e)) {
		if (parse_time(ps, &q, e, s, tl, dt))
			return ps->err;
		if (q != e)
			return rn_toml_fail(ps, s, "invalid local time '%.*s'", tl, s);
		v->type = RN_TOML_TIME_LOCAL;
		return 0;
	}
	if (parse_date(ps, &q, e, s, tl, dt))
		return ps->err;
	if (q == e) {
		v->type = RN_TOML_DATE_LOCAL;
		return 0;
	}
	/* Section Offset Date-Time: the T may be a space (RFC 3339 section 5.6 NOTE); t and z
	 * are accepted in lowercase as RFC 3339 allows. */
	if (*q != 'T' && *q != 't' && *q != ' ')
		return rn_toml_fail(ps, s, "invalid date-time '%.*s': expected 'T' after the date",
				    tl, s);
	q++;
	if (parse_time(ps, &q, e, s, tl, dt))
		return ps->err;
	if (q == e) {
		v->type = RN_TOML_DATETIME_LOCAL;
		return 0;
	}
	if (parse_offset(ps, &q, e, s, tl, dt))
		return ps->err;
	if (q != e)
		return rn_toml_fail(ps, s, "invalid date-time '%.*s'", tl, s);
	v->type = RN_TOML_DATETIME;
	return 0;
}

/* ---- Values (TOML 1.0.0, section Value) ------------------------------------------------- */

/* Characters of an unquoted scalar: numbers, booleans, inf/nan and date-times. */
static bool is_token_char(int c)
{
	return rn_toml_is_bare_key_char(c) || c == '+' || c == '.' || c == ':';
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
	if (q - s == 10 && rn_toml_looks_like_date(s, e) && e - q > 3 && *q == ' ' &&
	    rn_toml_looks_like_time(q + 1, e)) {
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
static int parse_scalar(struct rn_toml_parser *ps, struct rn_toml_value *v)
{
	const char *s = ps->p, *e = token_end(ps->p, ps->end), *digits = s;
	size_t n = (size_t)(e - s);
	int tl = n > RN_TOML_QUOTE_MAX ? RN_TOML_QUOTE_MAX : (int)n;
	char what[48];

	if (!n) {
		rn_toml_describe(ps, s, what, sizeof(what));
		return rn_toml_fail(ps, s, "expected a value, found %s", what);
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
	if (digits == s && (rn_toml_looks_like_date(s, e) || rn_toml_looks_like_time(s, e)))
		return rn_toml_parse_datetime(ps, s, e, v);
	if (digits == s && looks_like_partial_datetime(s, e))
		return rn_toml_fail(ps, s,
				    "invalid date or time '%.*s' (expected YYYY-MM-DD, HH:MM:SS or "
				    "both)",
				    tl, s);
	if (digits < e && *digits >= '0' && *digits <= '9')
		return rn_toml_parse_number(ps, s, e, v);
	if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z'))
		return rn_toml_fail(ps, s, "invalid value '%.*s' (strings must be quoted)", tl, s);
	return rn_toml_fail(ps, s, "invalid value '%.*s'", tl, s);
}

/* Section Array: values separated by commas, a trailing comma allowed, newlines and
 * comments anywhere between the brackets; types may be mixed. */
static int parse_array(struct rn_toml_parser *ps, int depth, struct rn_toml_value *a)
{
	const char *open = ps->p;
	char what[48];

	ps->p++;
	for (;;) {
		struct rn_toml_value *item;

		if (rn_toml_skip_ws_nl(ps))
			return ps->err;
		if (peek(ps, 0) == ']')
			break;
		if (ps->p >= ps->end)
			return rn_toml_fail(ps, open, "unterminated array (missing ']')");
		if (rn_toml_parse_value(ps, depth + 1, NULL, &item) ||
		    rn_toml_array_push(ps, a, item))
			return ps->err;
		if (rn_toml_skip_ws_nl(ps))
			return ps->err;
		if (peek(ps, 0) == ',') {
			ps->p++;
			continue;
		}
		if (peek(ps, 0) == ']')
			break;
		if (ps->p >= ps->end)
			return rn_toml_fail(ps, open, "unterminated array (missing ']')");
		rn_toml_describe(ps, ps->p, what, sizeof(what));
		return rn_toml_fail(ps, ps->p,
				    "expected ',' or ']' after an array element, found %s", what);
	}
	ps->p++;
	return 0;
}

/* Section Inline Table: on one line, comma separated, no trailing comma, and "fully
 * self-contained": once closed, nothing may be added to it. */
static int parse_inline_table(struct rn_toml_parser *ps, int depth, struct rn_toml_value *v)
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
				return rn_toml_fail(ps, ps->p,
						    "trailing comma is not allowed in an inline "
						    "table");
			if (at_newline(ps))
				return rn_toml_fail(ps, ps->p,
						    "newline in inline table (inline tables "
						    "must be on one line)");
			if (ps->p >= ps->end)
				return rn_toml_fail(ps, open,
						    "unterminated inline table (missing '}')");
			if (rn_toml_parse_keyval(ps, t, depth))
				return ps->err;
			skip_ws(ps);
			if (peek(ps, 0) == ',') {
				ps->p++;
				continue;
			}
			if (peek(ps, 0) == '}')
				break;
			if (ps->p >= ps->end)
				return rn_toml_fail(ps, open,
						    "unterminated inline table (missing '}')");
			if (at_newline(ps))
				return rn_toml_fail(ps, ps->p,
						    "newline in inline table (inline tables "
						    "must be on one line)");
			rn_toml_describe(ps, ps->p, what, sizeof(what));
			return rn_toml_fail(ps, ps->p,
					    "expected ',' or '}' in inline table, found %s", what);
		}
	}
	ps->p++;
	t->flags |= RN_TOML_TF_INLINE | RN_TOML_TF_DEFINED;
	return 0;
}

/* Parse any value at ps->p into a new tree *out at nesting depth `depth`, to be stored under
 * key `k` (NULL for an array element; see rn_toml_value_new()). */
int rn_toml_parse_value(struct rn_toml_parser *ps, int depth, struct rn_toml_key *k,
			struct rn_toml_value **out)
{
	const char *at = ps->p;
	struct rn_toml_pos pos = rn_toml_pos_of(ps, at);
	struct rn_toml_value *v;
	int c = peek(ps, 0), r;

	*out = NULL;
	if (c == '"' || c == '\'') {
		rn_buf_reset(&ps->scratch);
		if (rn_toml_parse_string(ps, &ps->scratch, true))
			return ps->err;
		*out = rn_toml_value_new(RN_TOML_STRING, pos, k, ps->scratch.buf, ps->scratch.len);
		return *out ? 0 : rn_toml_oom(ps);
	}
	if (c == '[' || c == '{') {
		if (rn_toml_check_depth(ps, at, depth))
			return ps->err;
		v = rn_toml_value_new(c == '[' ? RN_TOML_ARRAY : RN_TOML_TABLE, pos, k, NULL, 0);
		if (!v)
			return rn_toml_oom(ps);
		r = c == '[' ? parse_array(ps, depth, v) : parse_inline_table(ps, depth, v);
	} else {
		v = rn_toml_value_new(RN_TOML_BOOL, pos, k, NULL, 0);
		if (!v)
			return rn_toml_oom(ps);
		r = parse_scalar(ps, v);
	}
	if (r) {
		rn_toml_free(v);
		return ps->err;
	}
	*out = v;
	return 0;
}
