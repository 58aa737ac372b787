#include "xalloc.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

static unsigned long alloc_count;
static unsigned long alloc_fail_at;

void rn_alloc_fail_at(unsigned long n)
{
	alloc_fail_at = n;
	alloc_count = 0;
}

unsigned long rn_alloc_count(void)
{
	return alloc_count;
}

/* True when fault injection wants this call to fail. */
static int should_fail(void)
{
	alloc_count++;
	return alloc_fail_at && alloc_count == alloc_fail_at;
}

void *rn_malloc(size_t size)
{
	if (should_fail())
		return NULL;
	return malloc(size ? size : 1);
}

void *rn_calloc(size_t nmemb, size_t size)
{
	if (should_fail())
		return NULL;
	if (size && nmemb > SIZE_MAX / size)
		return NULL;
	return calloc(nmemb ? nmemb : 1, size ? size : 1);
}

void *rn_realloc(void *ptr, size_t size)
{
	if (should_fail())
		return NULL;
	return realloc(ptr, size ? size : 1);
}

char *rn_strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = rn_malloc(n);

	if (p)
		memcpy(p, s, n);
	return p;
}

static void oom(size_t size)
{
	rn_die_code(RN_EXIT_INTERNAL, "out of memory (%zu bytes)", size);
}

void *rn_xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		oom(size);
	return p;
}

void *rn_xcalloc(size_t nmemb, size_t size)
{
	void *p;

	if (size && nmemb > SIZE_MAX / size)
		oom(SIZE_MAX);
	p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (!p)
		oom(nmemb * size);
	return p;
}

void *rn_xrealloc(void *ptr, size_t size)
{
	void *p = realloc(ptr, size ? size : 1);

	if (!p)
		oom(size);
	return p;
}

char *rn_xstrdup(const char *s)
{
	return rn_xstrndup(s, strlen(s));
}

char *rn_xstrndup(const char *s, size_t n)
{
	char *p = rn_xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

void *rn_xgrow(void *ptr, size_t *cap, size_t need, size_t elem)
{
	size_t n = *cap;

	if (need <= n)
		return ptr;
	if (n < 8)
		n = 8;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			oom(SIZE_MAX);
		n *= 2;
	}
	if (elem && n > SIZE_MAX / elem)
		oom(SIZE_MAX);
	ptr = rn_xrealloc(ptr, n * elem);
	*cap = n;
	return ptr;
}

char *rn_xstrfmt(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		rn_die_code(RN_EXIT_INTERNAL, "cannot format '%s'", fmt);
	s = rn_xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return s;
}
