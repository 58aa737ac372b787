/*
 * csv.h - the one CSV escaping function of renacer (`trace --format csv`).
 *
 * Spec: RFC 4180, section 2: fields are separated by commas and records by CRLF (rule 2;
 * renacer writes LF, which every reader accepts, as strace -o files and shells expect, and
 * says so in --help); a field containing a comma, a double quote, CR or LF is enclosed in
 * double quotes (rules 5 and 6), and a double quote inside it is written twice (rule 7).
 * A field with leading or trailing spaces is quoted too, so readers that trim keep them.
 */
#ifndef RN_CSV_H
#define RN_CSV_H

#include "buf.h"

/* Append `s` to `b` as one CSV field (quoted where RFC 4180 requires it); NULL is the empty
 * field. */
void rn_csv_add_field(struct rn_buf *b, const char *s);

#endif
