/*
 * units.c - numbers for people (units.h).
 */
#include "units.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* `v` with three significant digits and no exponent: 1.23, 12.3, 123, 1234. */
static void sig3(char *out, size_t cap, double v)
{
	double a = fabs(v);

	if (a >= 99.95 || a == 0.0)
		snprintf(out, cap, "%.0f", v);
	else if (a >= 9.995)
		snprintf(out, cap, "%.1f", v);
	else
		snprintf(out, cap, "%.2f", v);
}

char *rn_fmt_bytes(char *out, size_t cap, double bytes)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB" };
	char num[32];
	double x = bytes;
	int i = -1;

	if (!isfinite(bytes)) {
		snprintf(out, cap, "-");
		return out;
	}
	if (fabs(x) < 1024.0) {
		snprintf(out, cap, "%.0f B", x);
		return out;
	}
	while (fabs(x) >= 1023.95 && i < 4) {
		x /= 1024.0;
		i++;
	}
	sig3(num, sizeof(num), x);
	snprintf(out, cap, "%s %s", num, units[i]);
	return out;
}

char *rn_fmt_ms(char *out, size_t cap, double ms)
{
	char num[32];
	double a = fabs(ms);

	if (!isfinite(ms)) {
		snprintf(out, cap, "-");
		return out;
	}
	if (a == 0.0) {
		snprintf(out, cap, "0 ms");
	} else if (a < 0.001) {
		snprintf(out, cap, "%.1f us", ms * 1000.0);
	} else if (a < 0.9995) {
		sig3(num, sizeof(num), ms * 1000.0);
		snprintf(out, cap, "%s us", num);
	} else if (a < 999.5) {
		sig3(num, sizeof(num), ms);
		snprintf(out, cap, "%s ms", num);
	} else if (a < 99950.0) {
		sig3(num, sizeof(num), ms / 1000.0);
		snprintf(out, cap, "%s s", num);
	} else {
		double s = floor(a / 1000.0 + 0.5);

		snprintf(out, cap, "%s%.0f min %.0f s", ms < 0 ? "-" : "", floor(s / 60.0),
			 fmod(s, 60.0));
	}
	return out;
}

char *rn_fmt_ns(char *out, size_t cap, double ns)
{
	return rn_fmt_ms(out, cap, ns / 1e6);
}

/* Whether `w` ends with `suffix`. */
static bool ends_with(const char *w, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);

	return n >= k && !memcmp(w + n - k, suffix, k);
}

const char *rn_plural(double n, const char *noun)
{
	static _Thread_local char words[RN_PLURAL_SLOTS][64];
	static _Thread_local unsigned slot;
	char *word = words[slot++ % RN_PLURAL_SLOTS];
	size_t len = noun ? strlen(noun) : 0;
	bool one = fabs(n) == 1.0;

	if (!len || len + 3 > sizeof(words[0]))
		return noun ? noun : "";
	memcpy(word, noun, len + 1);
	/* A plural given: singular for one, kept otherwise. */
	if (ends_with(word, len, "ies") && len > 3) {
		if (one)
			memcpy(word + len - 3, "y", 2);
		return word;
	}
	if (ends_with(word, len, "sses") || ends_with(word, len, "ches") ||
	    ends_with(word, len, "shes") || ends_with(word, len, "xes")) {
		if (one)
			word[len - 2] = '\0';
		return word;
	}
	if (ends_with(word, len, "s") && !ends_with(word, len, "ss")) {
		if (one)
			word[len - 1] = '\0';
		return word;
	}
	/* A singular given. */
	if (one)
		return word;
	if (ends_with(word, len, "ss") || ends_with(word, len, "ch") ||
	    ends_with(word, len, "sh") || ends_with(word, len, "x"))
		memcpy(word + len, "es", 3);
	else if (ends_with(word, len, "y") && len > 1 && !strchr("aeiou", word[len - 2]))
		memcpy(word + len - 1, "ies", 4);
	else
		memcpy(word + len, "s", 2);
	return word;
}

char *rn_fmt_count(char *out, size_t cap, double n, const char *noun)
{
	double r = floor(n + 0.5);

	if (!isfinite(n))
		snprintf(out, cap, "-");
	else if (noun && *noun)
		snprintf(out, cap, "%.0f %s", r, rn_plural(r, noun));
	else
		snprintf(out, cap, "%.0f", r);
	return out;
}

char *rn_fmt_value(char *out, size_t cap, double v, const char *unit)
{
	if (!isfinite(v))
		snprintf(out, cap, "-");
	else if (unit && !strcmp(unit, "ms"))
		rn_fmt_ms(out, cap, v);
	else if (unit && !strcmp(unit, "ns"))
		rn_fmt_ns(out, cap, v);
	else if (unit && !strcmp(unit, "bytes"))
		rn_fmt_bytes(out, cap, v);
	else if (unit && !strcmp(unit, "confidence"))
		snprintf(out, cap, "%.2f", v);
	else if (unit && !strcmp(unit, "%"))
		snprintf(out, cap, "%.1f%%", v);
	else
		rn_fmt_count(out, cap, v, unit);
	return out;
}

char *rn_fmt_signed(char *out, size_t cap, double v, const char *unit)
{
	char num[RN_UNITS_MAX];

	rn_fmt_value(num, sizeof(num), v, unit);
	snprintf(out, cap, "%s%s", isfinite(v) && v >= 0.0 ? "+" : "", num);
	return out;
}
