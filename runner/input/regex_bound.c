#include "regex_bound.h"

#include <errno.h>
#include <regex.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

/* Write why (`what`: a format with one %ld for `n`) and where; evaluates to -1. */
#define fail(why, size, offset, at, what, n)                                                       \
	(snprintf((why), (size), what, (long)(n)), *(offset) = (at), -1)

/* The limits are spelled out in the messages below. */
_Static_assert(RN_REGEX_MAX_COUNT == 255, "the repetition count message says 255");
_Static_assert(RN_REGEX_MAX_NESTED_COUNT == 32, "the nested repetition message says 32");

#define ADJACENT_DUP                                                                               \
	"%ld or more repetition operators in a row: adjacent duplication symbols are undefined "   \
	"in POSIX EREs (XBD 9.4.6)"

/* The largest count `big` of an interval {m,n} against the limits (RN_REGEX_MAX_NESTED_COUNT
 * when the repeated group holds a repetition itself: `nested`). 0, or -1 with why/offset set
 * (at = the interval's byte). */
static int interval_limits(unsigned long big, bool nested, char *why, size_t why_size,
			   size_t *offset, size_t at)
{
	if (big > RN_REGEX_MAX_COUNT)
		return fail(why, why_size, offset, at,
			    "repetition count %ld is more than the limit of 255",
			    (long)(big > 1000000 ? 1000000 : big));
	if (nested && big > RN_REGEX_MAX_NESTED_COUNT)
		return fail(why, why_size, offset, at,
			    "repetition count %ld of a group that repeats inside is more than the "
			    "limit of 32 for nested repetitions",
			    (long)big);
	return 0;
}

static unsigned long mul_cap(unsigned long a, unsigned long b)
{
	if (a && b > (RN_REGEX_MAX_COST + 1) / a)
		return RN_REGEX_MAX_COST + 1;
	return a * b;
}

/* Parse "{m}", "{m,}", "{m,n}" or glibc's "{,n}" (0 to n) at p (which points at '{'); false if it is not an interval
 * (then glibc reads the '{' as itself). *len gets its length, *count the larger bound (m + 1
 * for "{m,}"), *big the largest number written, capped. */
static bool interval(const char *p, size_t *len, unsigned long *count, unsigned long *big)
{
	unsigned long m = 0, n = 0;
	const char *s = p + 1;
	bool has_n = false, comma = false;

	if ((*s < '0' || *s > '9') && *s != ',')
		return false;
	for (; *s >= '0' && *s <= '9'; s++)
		if (m < 1000000)
			m = m * 10 + (unsigned long)(*s - '0');
	if (*s == ',') {
		comma = true;
		for (s++; *s >= '0' && *s <= '9'; s++) {
			has_n = true;
			if (n < 1000000)
				n = n * 10 + (unsigned long)(*s - '0');
		}
	}
	if (*s != '}')
		return false;
	*len = (size_t)(s + 1 - p);
	*big = has_n && n > m ? n : m;
	*count = has_n ? (n > m ? n : m) : comma ? m + 1 : m;
	if (*count == 0)
		*count = 1;
	return true;
}

/* Length of the bracket expression at p ('['), or 0 when it does not close. */
static size_t bracket(const char *p)
{
	const char *s = p + 1;

	if (*s == '^')
		s++;
	if (*s == ']')
		s++;
	while (*s && *s != ']') {
		if (*s == '[' && (s[1] == ':' || s[1] == '.' || s[1] == '=')) {
			char close = s[1];
			const char *e = s + 2;

			while (*e && !(e[0] == close && e[1] == ']'))
				e++;
			if (!*e)
				return 0;
			s = e + 2;
			continue;
		}
		s++;
	}
	return *s == ']' ? (size_t)(s + 1 - p) : 0;
}

int rn_regex_check_bounds(const char *pat, char *why, size_t why_size, size_t *offset,
			  bool *needs_trial)
{
	/* per open group: the cost summed so far inside it, whether it holds a repetition */
	unsigned long sum[RN_REGEX_MAX_DEPTH + 1];
	bool rep[RN_REGEX_MAX_DEPTH + 1];
	bool last_rep = false;  /* the last atom is a group holding a repetition */
	bool last_dup = false;  /* the last token was a duplication symbol (*, +, ?, {m,n}) */
	unsigned long last = 0; /* cost of the atom a following repetition applies to */
	size_t depth = 0, i = 0, len = strlen(pat);

	if (len > RN_REGEX_MAX_BYTES)
		return fail(why, why_size, offset, RN_REGEX_MAX_BYTES,
			    "pattern longer than %ld bytes", RN_REGEX_MAX_BYTES);
	*needs_trial = false;
	sum[0] = 0;
	rep[0] = false;
	while (pat[i]) {
		char ch = pat[i];
		size_t n;
		unsigned long count, big;
		bool dup = false; /* this token is a duplication symbol */

		switch (ch) {
		case '\\':
			if (pat[i + 1] >= '1' && pat[i + 1] <= '9')
				return fail(
					why, why_size, offset, i,
					"back-reference \\%ld makes matching exponential; not allowed",
					pat[i + 1] - '0');
			last = 1;
			sum[depth] += last;
			i += pat[i + 1] ? 2 : 1;
			break;
		case '[':
			n = bracket(pat + i);
			last = 1;
			sum[depth] += last;
			i += n ? n : 1;
			break;
		case '(':
			if (depth == RN_REGEX_MAX_DEPTH)
				return fail(why, why_size, offset, i,
					    "groups nested more than %ld deep", RN_REGEX_MAX_DEPTH);
			sum[++depth] = 0;
			rep[depth] = false;
			last = 0;
			i++;
			break;
		case ')':
			last_dup = false;
			if (depth) {
				last_rep = rep[depth];
				last = sum[depth--];
				if (!last)
					last = 1;
				sum[depth] += last;
				rep[depth] |= last_rep;
				i++;
				continue; /* keeps last_rep for a repetition that follows */
			}
			i++;
			break;
		case '*':
		case '+':
		case '?':
			if (last_dup)
				return fail(why, why_size, offset, i, ADJACENT_DUP, 2L);
			dup = true;
			/* a loop or an option: one more copy at most */
			*needs_trial |= last_rep;
			rep[depth] = true;
			sum[depth] += last;
			last *= 2;
			i++;
			break;
		case '{':
			if (!interval(pat + i, &n, &count, &big)) {
				last = 1;
				sum[depth] += last;
				i++;
				break;
			}
			if (last_dup)
				return fail(why, why_size, offset, i, ADJACENT_DUP, 2L);
			dup = true;
			if (interval_limits(big, last_rep, why, why_size, offset, i))
				return -1;
			if (!last)
				last = 1;
			*needs_trial |= last_rep;
			rep[depth] = true;
			sum[depth] += mul_cap(last, count - 1);
			last = mul_cap(last, count);
			i += n;
			break;
		default: /* '|', '^', '$', '.', literals */
			last = ch == '|' || ch == '^' || ch == '$' ? 0 : 1;
			sum[depth] += last;
			i++;
			break;
		}
		last_rep = false;
		last_dup = dup;
		if (sum[depth] > RN_REGEX_MAX_COST || last > RN_REGEX_MAX_COST)
			return fail(why, why_size, offset, i ? i - 1 : 0,
				    "pattern expands to more than %ld states (nested repetitions)",
				    RN_REGEX_MAX_COST);
	}
	if (sum[0] > RN_REGEX_TRIAL_COST)
		*needs_trial = true;
	return 0;
}

int rn_regex_trial_compile(const char *pattern, int cflags)
{
	int status;
	pid_t pid, w;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		struct itimerval it = {
			{ 0, 0 }, { RN_REGEX_TRIAL_MS / 1000, (RN_REGEX_TRIAL_MS % 1000) * 1000 }
		};
		regex_t re;

		signal(SIGALRM, SIG_DFL);
		setitimer(ITIMER_REAL, &it, NULL);
		_exit(regcomp(&re, pattern, cflags) == REG_ESPACE ? 1 : 0);
	}
	while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	if (w < 0)
		return -errno;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	return -ETIMEDOUT;
}
