/*
 * csv.h - the one CSV escaping function of renacer (`trace --format csv`, `history show
 * --format csv`, `history export`).
 *
 * Spec: RFC 4180, section 2: fields are separated by commas and records by CRLF (rule 2;
 * renacer writes LF, which every reader accepts, as strace -o files and shells expect, and
 * says so in --help); a field containing a comma, a double quote, CR or LF is enclosed in
 * double quotes (rules 5 and 6), and a double quote inside it is written twice (rule 7).
 * A field with leading or trailing spaces is quoted too, so readers that trim keep them.
 *
 * The text of a field comes from traced programs and imported files, so two more rules:
 * - CSV injection (OWASP, "CSV Injection"): a field that starts with '=', '+', '-', '@', a
 *   tab, CR or LF, also after leading spaces or double quotes (which spreadsheets trim), or
 *   with their fullwidth forms, is a formula to a spreadsheet. It is written with a single
 *   quote in front and quoted ("'=cmd|..."), so the spreadsheet shows it as text. Numbers are written by their
 *   callers, not through this function, and keep their sign.
 * - Bytes that are not valid UTF-8 (RFC 3629) are written as U+FFFD, as the JSON outputs do.
 */
#ifndef RN_CSV_H
#define RN_CSV_H

#include <stdbool.h>

#include "buf.h"

/* Append `s` to `b` as one CSV field (see above); NULL is the empty field. */
void rn_csv_add_field(struct rn_buf *b, const char *s);

/* True when `s` would be read as a formula by a spreadsheet: its first character after any
 * spaces (U+0020, U+3000) and double quotes is one of = + - @ TAB CR LF or the fullwidth
 * + - = @ (U+FF0B, U+FF0D, U+FF1D, U+FF20). rn_csv_add_field writes it with a leading single
 * quote. */
bool rn_csv_is_formula(const char *s);

#endif
