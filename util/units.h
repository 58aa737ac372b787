/*
 * units.h - numbers for people: one formatter per kind of quantity, used by every report a
 * person reads (console, GitHub comment and summary, page, JUnit messages, verdict messages),
 * so a value prints the same way everywhere.
 *
 *   bytes     binary prefixes: "512 B", "1.5 KiB", "26.2 MiB", "3.01 GiB" (three significant
 *             digits from KiB up; bytes below 1 KiB whole)
 *   durations from milliseconds: "850 us", "12.3 ms", "5.03 s", "2 min 5 s" (three
 *             significant digits; below 1 us as "0.4 us")
 *   counts    whole numbers with their noun, singular or plural: "1 process", "3 processes",
 *             "12 calls"
 *
 * Machine outputs (JSON, OTLP attributes, CSV, results files) keep exact numbers in the
 * unit their key names; these are for text only. Every function writes at most `cap` bytes
 * into `out`, always NUL-terminated (cap > 0), and returns `out`. Thread-safe, no allocation.
 */
#ifndef RN_UNITS_H
#define RN_UNITS_H

#include <stddef.h>

/* Room enough for any value these functions write. */
#define RN_UNITS_MAX 48

/* A byte count with a binary prefix: "27443200" -> "26.2 MiB". Non-finite: "-". */
char *rn_fmt_bytes(char *out, size_t cap, double bytes);
/* A duration given in milliseconds: 5029.057 -> "5.03 s", 0.85 -> "850 us". */
char *rn_fmt_ms(char *out, size_t cap, double ms);
/* A duration given in nanoseconds (as rn_fmt_ms of ns / 1e6). */
char *rn_fmt_ns(char *out, size_t cap, double ns);
/*
 * A count with its noun: rn_fmt_count(out, cap, 1, "process") -> "1 process", 3 ->
 * "3 processes". The plural is rn_plural's. Rounded to a whole number.
 */
char *rn_fmt_count(char *out, size_t cap, double n, const char *noun);
/*
 * The noun for `n` of it: `noun` when n is 1, else its English plural ("process" ->
 * "processes", "call" -> "calls", "entry" -> "entries"). `noun` may already be a plural
 * ("calls", "processes", "bytes"): it is made singular for 1 and kept otherwise. Returns a
 * pointer to a thread-local buffer that stays valid for the next RN_PLURAL_SLOTS - 1 calls on
 * the thread (so several may be arguments of one printf).
 */
#define RN_PLURAL_SLOTS 4
const char *rn_plural(double n, const char *noun);
/*
 * A value in a verdict's unit (rn_verdict_result.unit): "ms" and "ns" as durations, "bytes"
 * scaled, "confidence" with two decimals, "%" as a percent with one decimal, any other unit a
 * count with that noun ("calls", "processes", "spans", "dispatches"), NULL or "" a plain
 * whole number.
 */
char *rn_fmt_value(char *out, size_t cap, double v, const char *unit);
/* As rn_fmt_value with a sign: "+9.00 ms", "-1.5 MiB", "+3 calls". */
char *rn_fmt_signed(char *out, size_t cap, double v, const char *unit);

#endif
