/*
 * utf8.h - UTF-8 checks for text that comes from traced programs (paths, argv, labels),
 * which need not be valid UTF-8 while JSON, protobuf `string` fields and XML must be.
 * Validity follows RFC 3629 / Unicode section 3.9: no overlong forms, no surrogates
 * (U+D800..U+DFFF), nothing above U+10FFFF.
 */
#ifndef RN_UTF8_H
#define RN_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/* Length in bytes (1..4) of the valid UTF-8 sequence at `s`, or 0 if it is not one. `s` must
 * be NUL-terminated (a NUL ends any sequence early, so reads stay in bounds). */
size_t rn_utf8_seq(const unsigned char *s);
/* True when the NUL-terminated `s` is valid UTF-8. */
bool rn_utf8_valid(const char *s);
/* Copy of `s` with every byte that does not start a valid sequence replaced by U+FFFD.
 * Caller frees. Dies on out-of-memory (rn_xmalloc). */
char *rn_utf8_fix(const char *s);
/* Length of the longest prefix of the NUL-terminated `s` of at most `max` bytes that does not
 * split a UTF-8 character (it ends before a lead byte, or at the end of `s`): where to cut a
 * name to fit a column or a database field. */
size_t rn_utf8_prefix(const char *s, size_t max);

#endif
