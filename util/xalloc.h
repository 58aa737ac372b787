/*
 * xalloc.h - allocation wrappers for the runner (strace's "x" convention).
 *
 * The runner may die on out-of-memory: rn_xmalloc() and friends never return NULL; on failure
 * they print "renacer: error: out of memory (N bytes)" and exit with RN_EXIT_INTERNAL (70).
 * Code that must survive allocation failure (the TOML parser, report writers) uses
 * rn_malloc()/rn_realloc(), which return NULL and can be told to fail on purpose.
 *
 * Fault injection (curl's torture mode): rn_alloc_fail_at(n) makes the n-th call (1-based)
 * of the failable allocators from now on return NULL; rn_alloc_fail_at(0) disables it.
 * Not thread safe; the runner is single threaded.
 */
#ifndef RN_XALLOC_H
#define RN_XALLOC_H

#include <stddef.h>

#include "log.h"

/* Failable malloc: returns NULL on failure or when fault injection says so. Caller frees. */
void *rn_malloc(size_t size);
/* Failable calloc of nmemb * size bytes with overflow check; NULL on failure. Caller frees. */
void *rn_calloc(size_t nmemb, size_t size);
/* Failable realloc; on NULL the old block is untouched and still owned by the caller. */
void *rn_realloc(void *ptr, size_t size);
/* Failable strdup; NULL on failure. Caller frees. */
char *rn_strdup(const char *s);

/* Non-failing variants: die with exit code 70 on out-of-memory. Caller frees the result. */
void *rn_xmalloc(size_t size);
void *rn_xcalloc(size_t nmemb, size_t size);
void *rn_xrealloc(void *ptr, size_t size);
char *rn_xstrdup(const char *s);
/* Duplicate the first n bytes of s and NUL-terminate. Caller frees. */
char *rn_xstrndup(const char *s, size_t n);
/* A new string formatted as printf would, never shortened: dies on out-of-memory, and with
 * RN_EXIT_INTERNAL when vsnprintf fails (an encoding error). Caller frees. */
char *rn_xstrfmt(const char *fmt, ...) RN_PRINTF(1, 2);

/*
 * Grow an array so it holds at least `need` elements of `elem` bytes; *cap is its current
 * capacity in elements and is updated. Doubles, at least 8. Dies on overflow/out-of-memory.
 */
void *rn_xgrow(void *ptr, size_t *cap, size_t need, size_t elem);

/* Fault injection: fail the n-th failable allocation from now (1-based); 0 turns it off. */
void rn_alloc_fail_at(unsigned long n);
/* Number of failable allocations made since the last rn_alloc_fail_at() call. */
unsigned long rn_alloc_count(void);

#endif
