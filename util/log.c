#include "log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "escape.h"

void rn_write_stderr(const char *s, unsigned long len)
{
	while (len) {
		ssize_t n = write(2, s, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		s += n;
		len -= (unsigned long)n;
	}
}

/* Format "renacer: KIND: MSG\n" into one buffer and write it with one call. */
static void vreport(const char *kind, const char *fmt, va_list ap)
{
	char line[4096];
	int n = snprintf(line, sizeof(line), "renacer: %s: ", kind);
	int m;

	if (n < 0)
		return;
	m = vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	if (m < 0)
		m = 0;
	if (m > (int)sizeof(line) - n - 2)
		m = (int)sizeof(line) - n - 2;
	/* one message, one line: control characters in names and values are escaped */
	if (rn_has_ctl(line + n)) {
		char raw[sizeof(line)];

		memcpy(raw, line + n, (size_t)m + 1);
		m = (int)rn_escape_ctl(line + n, sizeof(line) - (size_t)n - 1, raw);
	}
	n += m;
	if (n > (int)sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	rn_write_stderr(line, (unsigned long)n);
}

int rn_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("error", fmt, ap);
	va_end(ap);
	return -1;
}

void rn_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("warning", fmt, ap);
	va_end(ap);
}

void rn_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("note", fmt, ap);
	va_end(ap);
}

void rn_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("error", fmt, ap);
	va_end(ap);
	exit(RN_EXIT_INTERNAL);
}

void rn_die_code(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("error", fmt, ap);
	va_end(ap);
	exit(code);
}
