/*
 * escape.h - control characters made visible in human output.
 *
 * Names and messages can carry text renacer does not control (assertion names from
 * renacer.toml, process names a target chose, error strings). Written raw, a newline starts a
 * new line that a CI system reads as its own command (GitHub's "::error::", "::add-mask::"),
 * and escape sequences drive the terminal. Every human-readable message therefore goes
 * through one of these: bytes 0x00-0x1f and 0x7f become "\n", "\r", "\t", "\e" or "\xHH";
 * a backslash is kept as it is; other bytes (UTF-8 included) are copied.
 */
#ifndef RN_ESCAPE_H
#define RN_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"

/* Does `s` hold a byte that rn_escape_ctl() would rewrite? */
bool rn_has_ctl(const char *s);
/* Write `src` with control characters escaped into `dst` (`dst_size` bytes, > 0), always
 * NUL-terminated; an escape that does not fit is dropped whole. Returns strlen(dst). */
size_t rn_escape_ctl(char *dst, size_t dst_size, const char *src);
/* `s` with control characters escaped, in a new string the caller frees; "" for NULL. */
char *rn_escaped_dup(const char *s);
/*
 * `s` as text to show, in a new string the caller frees: invalid UTF-8 repaired (each byte
 * that starts no valid sequence becomes U+FFFD, utf8.h rn_utf8_fix), control characters
 * escaped as rn_escape_ctl() does, and the C1 controls (U+0080-U+009F), the line and
 * paragraph separators (U+2028, U+2029) and the bidirectional controls (U+061C, U+200E,
 * U+200F, U+202A-U+202E, U+2066-U+2069) written as "\u202e". For names a traced program or an input file chose (span
 * names, frame names, stored history strings): the result is valid UTF-8 and one line. Dies
 * on out-of-memory.
 */
char *rn_display_dup(const char *s);
/*
 * Bytes of the character `s` starts when it is a C1 control (U+0080-U+009F), a line or
 * paragraph separator (U+2028, U+2029) or a bidirectional control (U+061C, U+200E, U+200F,
 * U+202A-U+202E, U+2066-U+2069), else 0. `s` is NUL-terminated; a byte that starts no such
 * UTF-8 sequence gives 0.
 */
size_t rn_invisible_control(const char *s);
/* When `s` starts such a character, append its escape ("\u202e") to `b` and return its bytes;
 * else append nothing and return 0. */
size_t rn_buf_add_invisible(struct rn_buf *b, const char *s);

#endif
