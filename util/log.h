/*
 * log.h - the one reporting API: every message renacer prints about itself.
 *
 * Messages go to stderr as "renacer: error: MSG\n" (or "warning:"), formatted whole and
 * written with one write(2) so lines from several writers never interleave. Messages are
 * lowercase, carry no trailing period, say what failed first and quote the subject (git).
 */
#ifndef RN_LOG_H
#define RN_LOG_H

#include "exitcode.h"

#if defined(__GNUC__)
#define RN_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define RN_NORETURN __attribute__((noreturn))
#else
#define RN_PRINTF(f, a)
#define RN_NORETURN
#endif

/* Print "renacer: error: ..." and return -1 so callers can `return rn_error(...)`. */
int rn_error(const char *fmt, ...) RN_PRINTF(1, 2);
/* Print "renacer: warning: ...". */
void rn_warn(const char *fmt, ...) RN_PRINTF(1, 2);
/* Print "renacer: note: ..." (a command's quiet flag decides whether to call it). */
void rn_note(const char *fmt, ...) RN_PRINTF(1, 2);
/* Print "renacer: error: ..." and exit with RN_EXIT_INTERNAL. */
RN_NORETURN void rn_die(const char *fmt, ...) RN_PRINTF(1, 2);
/* Print "renacer: error: ..." and exit with `code` (an enum rn_exit value). */
RN_NORETURN void rn_die_code(int code, const char *fmt, ...) RN_PRINTF(2, 3);
/* Write `len` bytes to fd 2 in as few write(2) calls as the kernel allows (EINTR-safe). */
void rn_write_stderr(const char *s, unsigned long len);

#endif
