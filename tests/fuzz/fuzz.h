/*
 * fuzz.h - what every libFuzzer harness of tests/fuzz/ shares.
 *
 * Each fuzz_<name>.c defines LLVMFuzzerTestOneInput() and may define LLVMFuzzerInitialize().
 * The same file links either with libFuzzer (-fsanitize=fuzzer, clang, RN_FUZZ=ON) or with
 * replay_main.c, which feeds it the files named on its command line: the regression inputs
 * under tests/fuzz/regressions/<name>/ and the seed data, replayed by ctest on every build.
 *
 * A harness checks properties, not only the absence of crashes: when one does not hold it
 * calls fuzz_fail(), which prints what broke and aborts, so libFuzzer saves the input as a
 * crash and the replay driver exits non-zero.
 */
#ifndef RN_FUZZ_H
#define RN_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "log.h"

/* The libFuzzer entry points (https://llvm.org/docs/LibFuzzer.html). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* A property of the harness does not hold: print "fuzz: <harness>: <message>" and abort. */
RN_NORETURN void fuzz_fail(const char *fmt, ...) RN_PRINTF(1, 2);

/* Abort with `what` unless `cond` holds. */
#define FUZZ_CHECK(cond, what)                                                                     \
	do {                                                                                       \
		if (!(cond))                                                                       \
			fuzz_fail("%s:%d: %s (%s)", __FILE__, __LINE__, what, #cond);              \
	} while (0)

/*
 * A private temporary file for harnesses whose API takes a path: created on first use under
 * $TMPDIR (default /tmp), removed at exit. fuzz_tmpfile_write() replaces its contents with
 * `size` bytes and returns its path (static storage).
 */
const char *fuzz_tmpfile_write(const uint8_t *data, size_t size);

/*
 * Decode the UTF-8 sequence at s[0..n) (n >= 1) independently of the code under test, by
 * Unicode 15 Table 3-7 (Well-Formed UTF-8 Byte Sequences). Returns the bytes consumed and sets
 * *cp: the code point of a well-formed sequence, or -1 for an ill-formed one, in which case
 * the bytes consumed are its maximal subpart (section 3.9, "U+FFFD Substitution of Maximal
 * Subparts"): the longest prefix that could start a well-formed sequence, at least one byte.
 */
size_t fuzz_utf8_next(const uint8_t *s, size_t n, long *cp);

/* Is `cp` a character XML 1.0 allows (section 2.2, production Char)? */
int fuzz_xml_char(long cp);

/*
 * Check that `s` (`len` bytes) is well-formed UTF-8 made only of XML 1.0 characters; on
 * failure calls fuzz_fail() naming `what` and the byte offset.
 */
void fuzz_check_xml_chars(const char *s, size_t len, const char *what);

#endif
