/*
 * buf.h - growable byte buffer (git's strbuf, curl's dynbuf).
 *
 * Invariants: after rn_buf_init() `buf` is never NULL and always NUL-terminated (buf[len] == 0),
 * so it can be used as a C string at any time. A buffer has a size cap (`max`, bytes,
 * excluding the NUL); an append that would exceed it, or an allocation failure, puts the buffer
 * in a sticky failed state: later appends are ignored and rn_buf_failed() returns true. Writers
 * append freely and check once at the end, so hostile input fails cleanly instead of growing
 * without bound. Allocation uses the failable rn_realloc() (fault injection reaches it).
 */
#ifndef RN_BUF_H
#define RN_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "log.h"

/* Default cap of a buffer: 1 GiB. */
#define RN_BUF_DEFAULT_MAX ((size_t)1 << 30)

struct rn_buf {
	char *buf;   /* contents, NUL-terminated; points to a static "" until first growth */
	size_t len;  /* bytes used, excluding the NUL */
	size_t cap;  /* bytes allocated (0 while buf is the static "") */
	size_t max;  /* cap on len in bytes */
	bool failed; /* sticky: an append failed (out of memory or over max) */
};

/* Make `b` an empty buffer with cap `max` bytes (0 = RN_BUF_DEFAULT_MAX). Allocates nothing. */
void rn_buf_init(struct rn_buf *b, size_t max);
/* Free the contents; `b` is then empty and usable again (as after init, same max). */
void rn_buf_release(struct rn_buf *b);
/* Drop the contents but keep the allocation; clears the failed state. */
void rn_buf_reset(struct rn_buf *b);
/* Take the contents as a malloc'ed NUL-terminated string (caller frees); `b` becomes empty.
 * Returns NULL if the buffer failed (the contents are freed). */
char *rn_buf_detach(struct rn_buf *b, size_t *len);
/* Ensure room for `extra` more bytes. 0 or -ENOMEM / -E2BIG (also sets failed). */
int rn_buf_grow(struct rn_buf *b, size_t extra);
/* Append `n` bytes. 0 or negative errno (the buffer is then failed). */
int rn_buf_add(struct rn_buf *b, const void *data, size_t n);
/* Append a NUL-terminated string. */
int rn_buf_adds(struct rn_buf *b, const char *s);
/* Append one byte. */
int rn_buf_addc(struct rn_buf *b, char c);
/* Append printf-formatted text (locale of the process; use rn_buf_addf_num for numbers in
 * machine output). */
int rn_buf_addf(struct rn_buf *b, const char *fmt, ...) RN_PRINTF(2, 3);
/* Append a double in the "C" locale regardless of LC_NUMERIC, with `prec` decimals,
 * never in exponent form (JUnit's decimal seconds). */
int rn_buf_add_fixed(struct rn_buf *b, double v, int prec);
/* True when an append has failed since init/reset. */
static inline bool rn_buf_failed(const struct rn_buf *b)
{
	return b->failed;
}

/* Read the whole file at `path` into `b` (appending). 0 or negative errno. */
int rn_buf_read_file(struct rn_buf *b, const char *path);
/* Read everything from fd into `b`. 0 or negative errno. */
int rn_buf_read_fd(struct rn_buf *b, int fd);

/*
 * Write `len` bytes to `path` atomically through a safely created temporary in the same
 * directory (safefile.h: O_EXCL|O_NOFOLLOW, random name, mode from the umask), fsync, rename
 * over `path`. On any failure the temp file is removed and `path` is untouched. Returns 0,
 * -ELOOP when `path` is a symbolic link (rn_safefile_strerror says so), or negative errno.
 */
int rn_write_file_atomic(const char *path, const void *data, size_t len);

#endif
