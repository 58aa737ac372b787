#include "buf.h"

#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "safefile.h"
#include "xalloc.h"

static char empty[1];

void rn_buf_init(struct rn_buf *b, size_t max)
{
	b->buf = empty;
	b->len = 0;
	b->cap = 0;
	b->max = max ? max : RN_BUF_DEFAULT_MAX;
	b->failed = false;
}

void rn_buf_release(struct rn_buf *b)
{
	if (b->cap)
		free(b->buf);
	rn_buf_init(b, b->max);
}

void rn_buf_reset(struct rn_buf *b)
{
	b->len = 0;
	b->failed = false;
	if (b->cap)
		b->buf[0] = '\0';
}

char *rn_buf_detach(struct rn_buf *b, size_t *len)
{
	char *s;

	if (b->failed) {
		rn_buf_release(b);
		return NULL;
	}
	if (!b->cap) {
		s = rn_strdup("");
	} else {
		s = b->buf;
	}
	if (len)
		*len = b->len;
	rn_buf_init(b, b->max);
	return s;
}

int rn_buf_grow(struct rn_buf *b, size_t extra)
{
	size_t want, cap;
	char *p;

	if (b->failed)
		return -ENOMEM;
	if (extra > b->max || b->len > b->max - extra) {
		b->failed = true;
		return -E2BIG;
	}
	want = b->len + extra + 1;
	if (want <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 64;
	while (cap < want)
		cap = cap > SIZE_MAX / 2 ? want : cap * 2;
	p = rn_realloc(b->cap ? b->buf : NULL, cap);
	if (!p) {
		b->failed = true;
		return -ENOMEM;
	}
	if (!b->cap)
		p[0] = '\0';
	b->buf = p;
	b->cap = cap;
	return 0;
}

int rn_buf_add(struct rn_buf *b, const void *data, size_t n)
{
	int rc = rn_buf_grow(b, n);

	if (rc)
		return rc;
	memcpy(b->buf + b->len, data, n);
	b->len += n;
	b->buf[b->len] = '\0';
	return 0;
}

int rn_buf_adds(struct rn_buf *b, const char *s)
{
	return rn_buf_add(b, s, strlen(s));
}

int rn_buf_addc(struct rn_buf *b, char c)
{
	return rn_buf_add(b, &c, 1);
}

int rn_buf_addf(struct rn_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n, rc;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->failed = true;
		return -EINVAL;
	}
	rc = rn_buf_grow(b, (size_t)n);
	if (rc)
		return rc;
	va_start(ap, fmt);
	vsnprintf(b->buf + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

int rn_buf_add_fixed(struct rn_buf *b, double v, int prec)
{
	char tmp[64];
	int n;
	char *p;

	if (!isfinite(v))
		v = 0.0;
	if (prec < 0)
		prec = 0;
	if (prec > 9)
		prec = 9;
	n = snprintf(tmp, sizeof(tmp), "%.*f", prec, v);
	if (n < 0 || n >= (int)sizeof(tmp)) {
		b->failed = true;
		return -ERANGE;
	}
	/* LC_NUMERIC may use another radix character: machine output always uses '.'. */
	for (p = tmp; *p; p++)
		if (*p == ',')
			*p = '.';
	return rn_buf_add(b, tmp, (size_t)n);
}

int rn_buf_read_fd(struct rn_buf *b, int fd)
{
	for (;;) {
		ssize_t n;
		int rc = rn_buf_grow(b, 65536);

		if (rc)
			return rc;
		n = read(fd, b->buf + b->len, 65536);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		b->len += (size_t)n;
		b->buf[b->len] = '\0';
	}
}

int rn_buf_read_file(struct rn_buf *b, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int rc;

	if (fd < 0)
		return -errno;
	rc = rn_buf_read_fd(b, fd);
	close(fd);
	return rc;
}

int rn_write_file_atomic(const char *path, const void *data, size_t len)
{
	struct rn_safefile sf;
	int rc = rn_safefile_open(&sf, path);

	if (rc)
		return rc;
	rc = rn_safefile_write(&sf, data, len);
	if (rc) {
		rn_safefile_abort(&sf);
		return rc;
	}
	return rn_safefile_commit(&sf);
}
