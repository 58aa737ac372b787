/*
 * xml.h - the one XML escaping function of renacer (JUnit reports and anything else in XML).
 *
 * Spec: XML 1.0 (Fifth Edition), section 2.2 Characters: a document may contain only
 *
 *     Char ::= #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]
 *
 * and the restriction holds for character references too (section 4.1, "Well-formedness
 * constraint: Legal Character"), so `&#1;` is as illegal as a raw 0x01 byte. Section 2.4 says
 * which characters must be escaped in text ('<', '&', and '>' in "]]>"), section 3.3.3 how
 * attribute values are normalized (TAB, LF and CR become spaces unless written as references),
 * and section 2.11 that a parser turns CR LF and lone CR into LF.
 */
#ifndef RN_XML_H
#define RN_XML_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"

/*
 * Append `len` bytes of `s` (UTF-8, may contain NUL bytes) to `b` as XML character data, or as
 * the contents of an attribute value delimited by '"' or '\'' when `attr` is true.
 *
 * - '&', '<' and '>' become "&amp;", "&lt;", "&gt;" (always, so "]]>" can never appear);
 *   with `attr`, '"' and '\'' become "&quot;" and "&apos;".
 * - CR becomes "&#13;" (a parser would otherwise turn it into LF); with `attr`, TAB and LF
 *   become "&#9;" and "&#10;" so attribute-value normalization keeps them.
 * - Characters outside the Char production are dropped: C0 controls other than TAB, LF, CR
 *   (NUL included), U+FFFE and U+FFFF. No numeric reference to them is ever written.
 * - Bytes that are not well-formed UTF-8 (stray continuation bytes, overlong forms,
 *   surrogates, code points above U+10FFFF, truncated sequences) become U+FFFD, one per
 *   maximal ill-formed subpart (Unicode 15, section 3.9, "U+FFFD Substitution of Maximal
 *   Subparts"; what Python's bytes.decode("utf-8", "replace") does).
 * - Everything else is copied as is (valid multi-byte UTF-8 stays UTF-8).
 *
 * Returns 0, or the buffer's negative errno (-ENOMEM, -E2BIG) when it has failed (sticky).
 */
int rn_buf_add_xml(struct rn_buf *b, const char *s, size_t len, bool attr);

#endif
