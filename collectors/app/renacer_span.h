/*
 * renacer_span.h - mark the blocks of your program as spans in renacer's trace.
 *
 * A program run by `renacer check` or `renacer trace` with the "app" collector can mark its
 * own compute blocks, requests or phases without an OpenTelemetry SDK: each
 * renacer_span_push() opens a span on the calling thread, renacer_span_pop() closes the
 * innermost one the thread opened (as NVTX ranges nest). The spans land in the trace as
 * "app:<name>", with the process and thread that made them, where span_count and span_time
 * assertions, the timeline and the OTLP export see them.
 *
 *     #include <renacer_span.h>
 *
 *     renacer_span_push("parse");
 *     parse(input);
 *     renacer_span_pop();
 *
 * Outside renacer (RENACER_SPAN_FD unset) every call does nothing but one getenv() on the
 * first call. Header only, C99 or later, Linux; no library to link; thread safe (each call
 * is one write(2) of one record, atomic on a pipe since the record is smaller than
 * PIPE_BUF).
 *
 * Wire format (one record per call, native endianness, the reader is the same machine's
 * renacer): struct renacer_span_rec below, written to the pipe whose write end renacer
 * passes as the decimal file descriptor in RENACER_SPAN_FD. Times are CLOCK_MONOTONIC ns,
 * the clock of renacer's other spans.
 *
 * Compatibility: the record has no version field; its size and magic never change, and a
 * field changes meaning only where its old value stays valid. Push and pop carry the
 * calling thread's CPU clock (CLOCK_THREAD_CPUTIME_ID ns) in t1_ns, so a span's own CPU
 * time is pop's t1_ns - push's; earlier versions of this header wrote 0 there, which the
 * reader takes as "no CPU time" (as it does a pop below its push), so old and new programs
 * and readers mix freely.
 */
#ifndef RENACER_SPAN_H
#define RENACER_SPAN_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* The environment variable holding the write end of renacer's span pipe. */
#define RENACER_SPAN_FD_ENV "RENACER_SPAN_FD"
/* First bytes of every record: "RNSP" read as a little-endian uint32. */
#define RENACER_SPAN_MAGIC 0x50534e52u
/* Longest span name kept, bytes (longer names are cut between UTF-8 characters). */
#define RENACER_SPAN_NAME_MAX 96

/* Record operations (enum renacer_span_op). */
enum renacer_span_op {
	RENACER_SPAN_PUSH = 1,   /* open a span named `name` at t0_ns on thread `tid` */
	RENACER_SPAN_POP = 2,    /* close the innermost span thread `tid` opened, at t0_ns */
	RENACER_SPAN_RECORD = 3, /* a whole span `name` from t0_ns to t1_ns, on thread `tid` */
};

/* One record on the pipe: 128 bytes. */
struct renacer_span_rec {
	uint32_t magic;                   /* RENACER_SPAN_MAGIC */
	uint16_t op;                      /* enum renacer_span_op */
	uint16_t name_len;                /* bytes of `name` used (no NUL) */
	int32_t pid;                      /* getpid() */
	int32_t tid;                      /* gettid() */
	uint64_t t0_ns;                   /* CLOCK_MONOTONIC ns: push, pop, or start */
	uint64_t t1_ns;                   /* RECORD: CLOCK_MONOTONIC ns of the end; PUSH and
					   * POP: the thread's CPU clock, ns (0: unknown) */
	char name[RENACER_SPAN_NAME_MAX]; /* span name, not NUL-terminated */
};

/* CLOCK_MONOTONIC now, ns: the clock renacer_span_record() takes. */
static inline uint64_t renacer_span_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The calling thread's CPU clock (CLOCK_THREAD_CPUTIME_ID) now, ns; 0 when unavailable. */
static inline uint64_t renacer_span_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The pipe's write end, or -1 when not run by renacer (looked up once per process). */
static inline int renacer_span_fd(void)
{
	static int fd = -2;
	static pid_t owner;

	if (fd == -2 || owner != getpid()) {
		const char *s = getenv(RENACER_SPAN_FD_ENV);
		char *end = NULL;
		long v = s ? strtol(s, &end, 10) : -1;

		fd = s && end && !*end && v >= 0 && v < 1 << 20 ? (int)v : -1;
		owner = getpid();
	}
	return fd;
}

/* Write one record; errors are ignored (a span lost is never the program's failure). */
static inline void renacer_span_send(uint16_t op, const char *name, uint64_t t0, uint64_t t1)
{
	struct renacer_span_rec r;
	int fd = renacer_span_fd();
	size_t len = name ? strlen(name) : 0;
	int saved = errno;

	if (fd < 0)
		return;
	memset(&r, 0, sizeof(r));
	r.magic = RENACER_SPAN_MAGIC;
	r.op = op;
	if (len > RENACER_SPAN_NAME_MAX) {
		/* cut before the character that does not fit whole: back over UTF-8
		 * continuation bytes (10xxxxxx) to the byte that starts it */
		len = RENACER_SPAN_NAME_MAX;
		while (len && ((unsigned char)name[len] & 0xc0) == 0x80)
			len--;
	}
	r.name_len = (uint16_t)len;
	if (len)
		memcpy(r.name, name, len);
	r.pid = (int32_t)getpid();
	r.tid = (int32_t)syscall(SYS_gettid);
	r.t0_ns = t0;
	r.t1_ns = t1;
	while (write(fd, &r, sizeof(r)) < 0 && errno == EINTR)
		;
	errno = saved;
}

/* Open a span named `name` on the calling thread. */
static inline void renacer_span_push(const char *name)
{
	if (renacer_span_fd() < 0)
		return;
	renacer_span_send(RENACER_SPAN_PUSH, name, renacer_span_now_ns(), renacer_span_cpu_ns());
}

/* Close the innermost span the calling thread opened (no-op without one). */
static inline void renacer_span_pop(void)
{
	uint64_t cpu = renacer_span_fd() < 0 ? 0 : renacer_span_cpu_ns();

	renacer_span_send(RENACER_SPAN_POP, NULL, renacer_span_now_ns(), cpu);
}

/* Report a whole span with its own times (CLOCK_MONOTONIC ns, renacer_span_now_ns()), for
 * work measured elsewhere; the thread is the calling one. */
static inline void renacer_span_record(const char *name, uint64_t start_ns, uint64_t end_ns)
{
	renacer_span_send(RENACER_SPAN_RECORD, name, start_ns, end_ns);
}

#endif
