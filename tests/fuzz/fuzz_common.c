/*
 * fuzz_common.c - helpers shared by the harnesses (fuzz.h).
 */
#include "fuzz.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmp_path[4096];
static int tmp_fd = -1;

void fuzz_fail(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "fuzz: property violated: %s\n", msg);
	fflush(stderr);
	abort();
}

static void remove_tmpfile(void)
{
	if (tmp_fd >= 0) {
		close(tmp_fd);
		unlink(tmp_path);
		tmp_fd = -1;
	}
}

const char *fuzz_tmpfile_write(const uint8_t *data, size_t size)
{
	size_t off = 0;

	if (tmp_fd < 0) {
		const char *dir = getenv("TMPDIR");

		snprintf(tmp_path, sizeof(tmp_path), "%s/renacer-fuzz-XXXXXX",
			 dir && *dir ? dir : "/tmp");
		tmp_fd = mkstemp(tmp_path);
		if (tmp_fd < 0)
			fuzz_fail("cannot create a temporary file in '%s': %s", tmp_path,
				  strerror(errno));
		atexit(remove_tmpfile);
	}
	if (ftruncate(tmp_fd, 0))
		fuzz_fail("ftruncate '%s': %s", tmp_path, strerror(errno));
	while (off < size) {
		ssize_t n = pwrite(tmp_fd, data + off, size - off, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			fuzz_fail("write '%s': %s", tmp_path, strerror(errno));
		off += (size_t)n;
	}
	return tmp_path;
}

size_t fuzz_utf8_next(const uint8_t *s, size_t n, long *cp)
{
	/* Table 3-7: lead byte range, then the allowed range of the second byte; later bytes
	 * are always 80..BF. */
	static const struct {
		uint8_t lo, hi;   /* lead byte range */
		uint8_t len;      /* sequence length */
		uint8_t lo2, hi2; /* second byte range */
	} rows[] = {
		{ 0x00, 0x7F, 1, 0, 0 },       { 0xC2, 0xDF, 2, 0x80, 0xBF },
		{ 0xE0, 0xE0, 3, 0xA0, 0xBF }, { 0xE1, 0xEC, 3, 0x80, 0xBF },
		{ 0xED, 0xED, 3, 0x80, 0x9F }, { 0xEE, 0xEF, 3, 0x80, 0xBF },
		{ 0xF0, 0xF0, 4, 0x90, 0xBF }, { 0xF1, 0xF3, 4, 0x80, 0xBF },
		{ 0xF4, 0xF4, 4, 0x80, 0x8F },
	};
	size_t r, k;
	long v;

	for (r = 0; r < sizeof(rows) / sizeof(rows[0]); r++)
		if (s[0] >= rows[r].lo && s[0] <= rows[r].hi)
			break;
	if (r == sizeof(rows) / sizeof(rows[0])) {
		*cp = -1;
		return 1;
	}
	if (rows[r].len == 1) {
		*cp = s[0];
		return 1;
	}
	v = s[0] & (0xFF >> (rows[r].len + 1));
	for (k = 1; k < rows[r].len; k++) {
		uint8_t lo = k == 1 ? rows[r].lo2 : 0x80, hi = k == 1 ? rows[r].hi2 : 0xBF;

		if (k >= n || s[k] < lo || s[k] > hi) {
			*cp = -1;
			return k;
		}
		v = (v << 6) | (s[k] & 0x3F);
	}
	*cp = v;
	return rows[r].len;
}

int fuzz_xml_char(long cp)
{
	return cp == 0x9 || cp == 0xA || cp == 0xD || (cp >= 0x20 && cp <= 0xD7FF) ||
		(cp >= 0xE000 && cp <= 0xFFFD) || (cp >= 0x10000 && cp <= 0x10FFFF);
}

void fuzz_check_xml_chars(const char *s, size_t len, const char *what)
{
	const uint8_t *p = (const uint8_t *)s;
	size_t i = 0;

	while (i < len) {
		long cp;
		size_t n = fuzz_utf8_next(p + i, len - i, &cp);

		if (cp < 0)
			fuzz_fail("%s: ill-formed UTF-8 at byte %zu", what, i);
		if (!fuzz_xml_char(cp))
			fuzz_fail("%s: character U+%04lX at byte %zu is not allowed in XML 1.0",
				  what, cp, i);
		i += n;
	}
}
