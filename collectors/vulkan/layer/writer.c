/*
 * writer.c - the layer's configuration (read once from the environment) and its record file.
 *
 * One file per process, "<RENACER_VK_DIR>/vk-<pid>.rnvk", opened on the first record and
 * appended with O_APPEND. Records are buffered and written by writer_flush(), which the layer
 * calls at the end of every harvest, so a crash loses at most the records of one harvest.
 * After fork() the child notices the pid change, drops the parent's buffered records (the
 * parent writes them) and starts its own file.
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Buffered bytes past which an append flushes at once. */
#define WRITER_FLUSH_BYTES (256u * 1024u)

static struct layer_config config;
static pthread_once_t config_once = PTHREAD_ONCE_INIT;

static struct {
	pthread_mutex_t lock;
	int fd;           /* -1 until opened */
	pid_t pid;        /* process the fd and buffer belong to */
	bool failed;      /* open or write failed: drop everything from now on */
	uint8_t *buf;     /* buffered records */
	size_t len;       /* bytes used */
	size_t cap;       /* bytes allocated */
	uint32_t next_id; /* last device id handed out */
} writer = { PTHREAD_MUTEX_INITIALIZER, -1, 0, false, NULL, 0, 0, 0 };

static void read_config(void)
{
	const char *dir = getenv("RENACER_VK_DIR");
	const char *mode = getenv("RENACER_VK_MODE");
	const char *reset = getenv("RENACER_VK_RESET");
	const char *dbg = getenv("RENACER_LAYER_DEBUG");

	config.debug = dbg && *dbg && strcmp(dbg, "0");
	config.mode = RN_VK_MODE_CMDBUF;
	if (mode && !strcmp(mode, "submit"))
		config.mode = RN_VK_MODE_SUBMIT;
	else if (mode && !strcmp(mode, "dispatch"))
		config.mode = RN_VK_MODE_DISPATCH;
	else if (mode && *mode && strcmp(mode, "cmdbuf"))
		layer_debug("unknown RENACER_VK_MODE '%s', using cmdbuf", mode);
	config.reset = reset && !strcmp(reset, "stream") ? RESET_STREAM : RESET_AUTO;
	if (dir && *dir && strlen(dir) < sizeof(config.dir) - 32) {
		memcpy(config.dir, dir, strlen(dir) + 1);
		config.enabled = true;
	}
	layer_debug("loaded: %s, mode %d", config.enabled ? config.dir : "no RENACER_VK_DIR, inert",
		    (int)config.mode);
}

const struct layer_config *layer_config(void)
{
	pthread_once(&config_once, read_config);
	return &config;
}

void layer_debug(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	int n;

	/* config.debug is read before anything can call this except read_config itself. */
	if (!config.debug)
		return;
	n = snprintf(msg, sizeof(msg), "renacer-layer[%d]: ", (int)getpid());
	va_start(ap, fmt);
	vsnprintf(msg + n, sizeof(msg) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	n = (int)strlen(msg);
	msg[n++] = '\n';
	if (write(2, msg, (size_t)n) < 0)
		return;
}

uint64_t layer_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static int buf_reserve(size_t extra)
{
	size_t cap = writer.cap ? writer.cap : 64 * 1024;
	uint8_t *b;

	if (writer.len + extra <= writer.cap)
		return 0;
	while (cap < writer.len + extra)
		cap *= 2;
	b = realloc(writer.buf, cap);
	if (!b)
		return -1;
	writer.buf = b;
	writer.cap = cap;
	return 0;
}

static int flush_locked(void)
{
	if (writer.failed || writer.fd < 0 || !writer.len)
		return writer.failed ? -1 : 0;
	if (write_all(writer.fd, writer.buf, writer.len)) {
		layer_debug("writing records failed: %s", strerror(errno));
		writer.failed = true;
		return -1;
	}
	writer.len = 0;
	return 0;
}

/* Open this process's file and queue the preamble and PROCESS record. */
static int open_locked(void)
{
	const struct layer_config *cfg = layer_config();
	struct rn_vk_record rec;
	char path[4200];
	size_t n;

	if (writer.fd >= 0 && writer.pid != getpid()) {
		/* Forked: the buffered bytes are the parent's to write. */
		close(writer.fd);
		writer.fd = -1;
		writer.len = 0;
	}
	if (writer.fd >= 0)
		return 0;
	if (writer.failed || !cfg->enabled)
		return -1;
	writer.pid = getpid();
	snprintf(path, sizeof(path), "%s/vk-%d.rnvk", cfg->dir, (int)writer.pid);
	writer.fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (writer.fd < 0) {
		layer_debug("cannot open '%s': %s", path, strerror(errno));
		writer.failed = true;
		return -1;
	}
	if (buf_reserve(RN_VK_PREAMBLE_BYTES + RN_VK_RECORD_MAX_BYTES))
		goto out_fail;
	writer.len += rn_vk_record_preamble(writer.buf + writer.len, writer.cap - writer.len);
	memset(&rec, 0, sizeof(rec));
	rec.type = RN_VK_REC_PROCESS;
	rec.u.process.pid = (uint32_t)writer.pid;
	rec.u.process.load_ns = layer_now_ns();
	snprintf(rec.u.process.exe, sizeof(rec.u.process.exe), "%s", program_invocation_short_name);
	n = rn_vk_record_encode(&rec, writer.buf + writer.len, writer.cap - writer.len);
	if (!n)
		goto out_fail;
	writer.len += n;
	layer_debug("writing records to '%s'", path);
	return 0;
out_fail:
	writer.failed = true;
	return -1;
}

int writer_append(const struct rn_vk_record *rec)
{
	int ret = -1;
	size_t n;

	pthread_mutex_lock(&writer.lock);
	if (open_locked())
		goto out_unlock;
	if (buf_reserve(RN_VK_RECORD_MAX_BYTES)) {
		writer.failed = true;
		goto out_unlock;
	}
	n = rn_vk_record_encode(rec, writer.buf + writer.len, writer.cap - writer.len);
	if (!n)
		goto out_unlock;
	writer.len += n;
	ret = 0;
	if (writer.len >= WRITER_FLUSH_BYTES)
		ret = flush_locked();
out_unlock:
	pthread_mutex_unlock(&writer.lock);
	return ret;
}

int writer_flush(void)
{
	int ret;

	pthread_mutex_lock(&writer.lock);
	if (writer.fd >= 0 && writer.pid != getpid())
		ret = open_locked();
	ret = flush_locked();
	pthread_mutex_unlock(&writer.lock);
	return ret;
}

uint32_t writer_next_device_id(void)
{
	uint32_t id;

	pthread_mutex_lock(&writer.lock);
	id = ++writer.next_id;
	pthread_mutex_unlock(&writer.lock);
	return id;
}

/* The loader may unload the layer at vkDestroyInstance, or the process may exit without
 * destroying its device: write what is buffered either way. */
__attribute__((destructor)) static void writer_fini(void)
{
	writer_flush();
}
