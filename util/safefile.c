#include "safefile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "now.h"
#include "xalloc.h"

#define TMP_TAG ".rn-tmp."

/* Split `path` into a directory (owned, "." when none) and the base name inside it. */
static char *dir_of(const char *path, const char **base)
{
	const char *slash = strrchr(path, '/');
	char *dir;

	if (!slash) {
		*base = path;
		return rn_xstrdup(".");
	}
	*base = slash + 1;
	if (slash == path)
		return rn_xstrdup("/");
	dir = rn_xmalloc((size_t)(slash - path) + 1);
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	return dir;
}

/* The pid in the decimal digits at `s` (ending at '.' or NUL), or 0. */
static long pid_at(const char *s)
{
	long pid = 0;

	if (*s < '0' || *s > '9')
		return 0;
	for (; *s >= '0' && *s <= '9'; s++) {
		pid = pid * 10 + (*s - '0');
		if (pid > 1 << 30)
			return 0;
	}
	return *s == '.' || !*s ? pid : 0;
}

/* Remove ".<base>.rn-tmp.<pid>.*" and the older "<base>.tmp.<pid>" of processes that no longer
 * exist. Only names built from `base` are touched; unlinking a link removes the link. */
static void remove_stale(const char *dir, const char *base)
{
	size_t blen = strlen(base);
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((de = readdir(d))) {
		const char *n = de->d_name, *rest = NULL;
		long pid;

		if (n[0] == '.' && !strncmp(n + 1, base, blen) &&
		    !strncmp(n + 1 + blen, TMP_TAG, strlen(TMP_TAG)))
			rest = n + 1 + blen + strlen(TMP_TAG);
		else if (!strncmp(n, base, blen) && !strncmp(n + blen, ".tmp.", 5))
			rest = n + blen + 5;
		if (!rest)
			continue;
		pid = pid_at(rest);
		if (pid <= 0 || pid == (long)getpid())
			continue;
		if (kill((pid_t)pid, 0) < 0 && errno == ESRCH)
			unlinkat(dirfd(d), n, 0);
	}
	closedir(d);
}

int rn_safefile_open(struct rn_safefile *sf, const char *path)
{
	struct stat st;
	const char *base;
	char *dir;
	int tries;

	memset(sf, 0, sizeof(*sf));
	sf->fd = -1;
	if (!lstat(path, &st)) {
		if (S_ISLNK(st.st_mode))
			return -ELOOP;
		if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
			return -ENXIO; /* a device or FIFO would be replaced by the rename */
	}
	dir = dir_of(path, &base);
	if (!*base) {
		free(dir);
		return -EISDIR;
	}
	remove_stale(dir, base);
	for (tries = 0; tries < 16; tries++) {
		uint64_t rnd = 0;
		size_t len = strlen(dir) + strlen(base) + 64;
		char *tmp = rn_xmalloc(len);

		if (getrandom(&rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
			rnd ^= rn_real_ns() * 0x9e3779b97f4a7c15ull ^ (uint64_t)(uintptr_t)tmp;
		snprintf(tmp, len, "%s/.%s%s%ld.%016llx", dir, base, TMP_TAG, (long)getpid(),
			 (unsigned long long)rnd);
		sf->fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
		if (sf->fd >= 0) {
			sf->tmp_path = tmp;
			sf->path = rn_xstrdup(path);
			free(dir);
			return 0;
		}
		free(tmp);
		if (errno != EEXIST) {
			int rc = -errno;

			free(dir);
			return rc;
		}
	}
	free(dir);
	return -EEXIST;
}

FILE *rn_safefile_stream(struct rn_safefile *sf)
{
	if (!sf->f && sf->fd >= 0) {
		sf->f = fdopen(sf->fd, "w");
		if (sf->f)
			sf->fd = -1;
	}
	return sf->f;
}

int rn_safefile_write(struct rn_safefile *sf, const void *data, size_t len)
{
	const char *p = data;

	if (sf->fd < 0)
		return -EBADF;
	while (len) {
		ssize_t n = write(sf->fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static void release(struct rn_safefile *sf)
{
	free(sf->path);
	free(sf->tmp_path);
	sf->path = sf->tmp_path = NULL;
}

/* Flush, fsync and close the temporary file of `sf` (its stream or its descriptor). 0 or the
 * first -errno; the file is closed either way. */
static int flush_close(struct rn_safefile *sf)
{
	int rc = 0;

	if (sf->f) {
		if (fflush(sf->f))
			rc = -errno;
		if (!rc && fsync(fileno(sf->f)) && errno != EINVAL)
			rc = -errno;
		if (fclose(sf->f) && !rc)
			rc = -errno;
		sf->f = NULL;
	} else if (sf->fd >= 0) {
		if (fsync(sf->fd) && errno != EINVAL)
			rc = -errno;
		if (close(sf->fd) && !rc)
			rc = -errno;
		sf->fd = -1;
	}
	return rc;
}

int rn_safefile_commit(struct rn_safefile *sf)
{
	struct stat st;
	int rc = 0;

	if (!sf->tmp_path)
		return -EBADF;
	rc = flush_close(sf);
	/* a link placed at the final path while we wrote is not replaced either */
	if (!rc && !lstat(sf->path, &st) && S_ISLNK(st.st_mode))
		rc = -ELOOP;
	if (!rc && rename(sf->tmp_path, sf->path))
		rc = -errno;
	if (rc)
		unlink(sf->tmp_path);
	release(sf);
	return rc;
}

int rn_safefile_commit_new(struct rn_safefile *sf)
{
	int rc = 0;

	if (!sf->tmp_path)
		return -EBADF;
	rc = flush_close(sf);
	if (!rc && link(sf->tmp_path, sf->path))
		rc = -errno;
	unlink(sf->tmp_path);
	release(sf);
	return rc;
}

void rn_safefile_abort(struct rn_safefile *sf)
{
	if (sf->f)
		fclose(sf->f);
	else if (sf->fd >= 0)
		close(sf->fd);
	sf->f = NULL;
	sf->fd = -1;
	if (sf->tmp_path)
		unlink(sf->tmp_path);
	release(sf);
}

const char *rn_safefile_strerror(int rc)
{
	if (rc == -ELOOP)
		return "is a symbolic link (refusing to replace or follow it)";
	if (rc == -ENXIO)
		return "is not a regular file (refusing to replace it)";
	return strerror(rc < 0 ? -rc : rc);
}

int rn_open_regular(const char *path, uint64_t max_bytes)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	int rc;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		rc = -errno;
		goto out_close;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
		goto out_close;
	}
	if ((uint64_t)st.st_size > max_bytes) {
		rc = -EFBIG;
		goto out_close;
	}
	return fd;
out_close:
	close(fd);
	return rc;
}

int rn_read_regular_file(struct rn_buf *b, const char *path, size_t max_bytes)
{
	char chunk[65536];
	size_t total = 0;
	int fd = rn_open_regular(path, max_bytes);
	int rc = 0;

	if (fd < 0)
		return fd;
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -errno;
			break;
		}
		if (n == 0)
			break;
		total += (size_t)n;
		if (total > max_bytes) { /* grew while we read */
			rc = -EFBIG;
			break;
		}
		rn_buf_add(b, chunk, (size_t)n);
		if (rn_buf_failed(b)) {
			rc = -ENOMEM;
			break;
		}
	}
	close(fd);
	return rc;
}
