/*
 * test_rn_regex.c - the config's patterns (util/rn_regex.h over PCRE2): full-match
 * semantics, the POSIX extended syntax of existing configs, Perl classes and flags, errors
 * with the byte they point at, and the match limits on a catastrophic pattern.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include "rn_regex.h"

static struct rn_regex *compile_ok(const char *pattern)
{
	struct rn_regex *re = NULL;
	struct rn_regex_error err;

	assert_int_equal(rn_regex_compile(pattern, &re, &err), 0);
	assert_non_null(re);
	assert_string_equal(rn_regex_pattern(re), pattern);
	return re;
}

/* A pattern matches the whole name, never a part of it. */
static void test_rn_regex_full_match(void **state)
{
	struct rn_regex *re = compile_ok("read");

	(void)state;
	assert_true(rn_regex_match(re, "read"));
	assert_false(rn_regex_match(re, "pread64"));
	assert_false(rn_regex_match(re, "readv"));
	assert_false(rn_regex_match(re, "read\n")); /* "$" only at the very end */
	rn_regex_free(re);
	re = compile_ok("open|close");
	assert_true(rn_regex_match(re, "close"));
	assert_false(rn_regex_match(re, "openclose")); /* the alternation is anchored whole */
	rn_regex_free(re);
	re = compile_ok("a.b");
	assert_true(rn_regex_match(re, "a\nb")); /* "." matches a newline, as in POSIX */
	rn_regex_free(re);
}

/* Patterns written for the POSIX extended engine keep their meaning. */
static void test_rn_regex_ere_still_valid(void **state)
{
	struct rn_regex *re = compile_ok("(open|close|read)(at)?");

	(void)state;
	assert_true(rn_regex_match(re, "openat"));
	assert_true(rn_regex_match(re, "read"));
	assert_false(rn_regex_match(re, "write"));
	rn_regex_free(re);
	re = compile_ok("[[:alpha:]_]+[[:digit:]]{2,4}");
	assert_true(rn_regex_match(re, "pread64"));
	assert_false(rn_regex_match(re, "pread6"));
	rn_regex_free(re);
	re = compile_ok("gpu:.*");
	assert_true(rn_regex_match(re, "gpu:void k<float>(float*, int)"));
	assert_false(rn_regex_match(re, "region:main"));
	rn_regex_free(re);
}

/* \d, \w and (?i), as in the original renacer's Rust regexes. */
static void test_rn_regex_perl_classes_and_flags(void **state)
{
	struct rn_regex *re = compile_ok("graph:\\d+");

	(void)state;
	assert_true(rn_regex_match(re, "graph:42"));
	assert_false(rn_regex_match(re, "graph:4x"));
	rn_regex_free(re);
	re = compile_ok("\\w+64");
	assert_true(rn_regex_match(re, "pread64"));
	assert_false(rn_regex_match(re, "p-read64"));
	rn_regex_free(re);
	re = compile_ok("(?i)OPENAT");
	assert_true(rn_regex_match(re, "openat"));
	assert_true(rn_regex_match(re, "OpenAt"));
	assert_false(rn_regex_match(re, "open"));
	rn_regex_free(re);
}

/* A bad pattern is -EINVAL with PCRE2's reason and the byte it stopped at. */
static void test_rn_regex_errors(void **state)
{
	struct rn_regex *re = NULL;
	struct rn_regex_error err;
	char big[RN_REGEX_MAX_BYTES + 2];

	(void)state;
	assert_int_equal(rn_regex_compile("open(at", &re, &err), -EINVAL);
	assert_null(re);
	assert_non_null(strstr(err.message, "missing closing parenthesis"));
	assert_int_equal(err.offset, 7);
	assert_int_equal(rn_regex_compile("a{2,1}", &re, &err), -EINVAL);
	assert_non_null(strstr(err.message, "out of order"));
	/* An interval over POSIX's RE_DUP_MAX (255): "(.*){0,3000}" took 16 MiB of backtracking
	 * frames a match; so is the automaton glibc spent minutes building. */
	assert_int_equal(rn_regex_compile("(.*){0,3000}", &re, &err), -EINVAL);
	assert_string_equal(err.message,
			    "repetition bound 3000 is over 255 (RE_DUP_MAX, POSIX ERE)");
	assert_int_equal(err.offset, 4);
	assert_int_equal(rn_regex_compile("(.*){1,32000}", &re, &err), -EINVAL);
	assert_int_equal(rn_regex_compile("x{256}", &re, &err), -EINVAL);
	assert_int_equal(err.offset, 1);
	assert_int_equal(rn_regex_compile("x{300,}", &re, &err), -EINVAL);
	/* a bound at 255, an escaped brace, a brace in a bracket expression or in \Q...\E, and a
	 * '{' that starts no interval are no intervals over it */
	assert_int_equal(rn_regex_compile("(.*){1,255}", &re, &err), 0);
	rn_regex_free(re);
	assert_int_equal(rn_regex_compile("a\\{300}", &re, &err), 0);
	assert_true(rn_regex_match(re, "a{300}"));
	rn_regex_free(re);
	assert_int_equal(rn_regex_compile("[]{]300}", &re, &err), 0);
	rn_regex_free(re);
	assert_int_equal(rn_regex_compile("\\Q{300}\\E", &re, &err), 0);
	assert_true(rn_regex_match(re, "{300}"));
	rn_regex_free(re);
	assert_int_equal(rn_regex_compile("a{,300}b", &re, &err), 0);
	rn_regex_free(re);
	re = NULL;
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(rn_regex_compile(big, &re, &err), -EINVAL);
	assert_null(re);
	assert_string_equal(err.message, "pattern is longer than 1024 bytes");
	assert_int_equal(err.offset, RN_REGEX_MAX_BYTES);
	assert_int_equal(rn_regex_compile(big, &re, NULL), -EINVAL); /* err is optional */
}

/* A catastrophic pattern gives up within the match limit: false, and counted. */
static void test_rn_regex_catastrophic_bounded(void **state)
{
	struct rn_regex *re = compile_ok("(a|aa)*(b|c)");
	char subject[64];

	(void)state;
	memset(subject, 'a', sizeof(subject) - 1);
	subject[sizeof(subject) - 1] = '\0';
	assert_int_equal(rn_regex_limit_hits(re), 0);
	/* 2^63 ways to split the run: the match limit stops it, and says so. */
	assert_false(rn_regex_match(re, subject));
	assert_int_equal(rn_regex_limit_hits(re), 1);
	assert_true(rn_regex_match(re, "aaab"));
	assert_false(rn_regex_match(re, "aaad")); /* a quick "no" is not a limit hit */
	assert_int_equal(rn_regex_limit_hits(re), 1);
	rn_regex_free(re);
	rn_regex_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rn_regex_full_match),
		cmocka_unit_test(test_rn_regex_ere_still_valid),
		cmocka_unit_test(test_rn_regex_perl_classes_and_flags),
		cmocka_unit_test(test_rn_regex_errors),
		cmocka_unit_test(test_rn_regex_catastrophic_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
