/*
 * inject.c - librenacer_cuda_inject.so: loaded by the CUDA driver into the target through
 * CUDA_INJECTION64_PATH, it records kernel, memcpy and memset activity with the CUPTI
 * Activity API and writes it as JSON Lines (collectors/cuda/load.h) to
 * $RENACER_CUDA_DIR/cuda-<pid>.jsonl.
 *
 * The driver calls InitializeInjection() once per process while initializing (cuInit). The
 * library registers buffer callbacks (cuptiActivityRegisterCallbacks), enables
 * CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, _MEMCPY and _MEMSET, asks CUPTI to flush every
 * $RENACER_CUDA_FLUSH_MS (cuptiActivityFlushPeriod, default 500 ms, 0 = only at exit) and
 * flushes everything at exit (atexit -> cuptiActivityFlushAll). Buffers are completed on
 * CUPTI's own thread, so the program never waits on the file.
 *
 * It runs inside someone else's process: it never exits, never prints unless
 * RENACER_CUDA_DEBUG is non-empty, and turns failures into an "error" record (the runner
 * then fails the run rather than judging partial data) or into silence when it cannot even
 * open its file.
 */
#include <cupti.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"

#define EXPORT __attribute__((visibility("default")))

#define RECORD_FORMAT "renacer-cuda" /* load.h RN_CUDA_FORMAT */
#define RECORD_VERSION 1             /* load.h RN_CUDA_VERSION */
#define BUFFER_BYTES ((size_t)4 << 20)  /* one CUPTI activity buffer */
#define BUFFER_ALIGN 8                  /* CUPTI requires 8-byte aligned buffers */
#define LINE_BYTES 8192                 /* longest line written (names are cut to fit) */
#define NAME_BYTES 4096                 /* longest escaped kernel name kept */
#define CLOCK_SAMPLES 16                /* readings per calibration; the tightest is kept */
#define DEFAULT_FLUSH_MS 500

/* __cxa_demangle from libstdc++ when the process has it. */
typedef char *(*demangle_fn)(const char *mangled, char *buf, size_t *len, int *status);

static pthread_mutex_t write_lock = PTHREAD_MUTEX_INITIALIZER;
static int record_fd = -1;        /* the record file; -1 = not recording */
static bool debug;                /* RENACER_CUDA_DEBUG set */
static demangle_fn demangle;      /* NULL: names stay mangled */

EXPORT int InitializeInjection(void);

static void dbg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void dbg(const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	int n;

	if (!debug)
		return;
	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(msg))
		n = (int)sizeof(msg) - 1;
	/* One write per message so lines stay whole; the result is of no use here. */
	if (write(STDERR_FILENO, msg, (size_t)n) < 0)
		return;
}

/* Write one whole line (with its '\n') to the record file. */
static void emit(const char *line, size_t len)
{
	pthread_mutex_lock(&write_lock);
	while (record_fd >= 0 && len) {
		ssize_t n = write(record_fd, line, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			dbg("renacer-cuda: write failed: %s\n", strerror(errno));
			break;
		}
		line += n;
		len -= (size_t)n;
	}
	pthread_mutex_unlock(&write_lock);
}

static void emitf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void emitf(const char *fmt, ...)
{
	char line[LINE_BYTES];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* A line that did not fit would be cut without its newline: drop it instead. */
	if (n > 0 && (size_t)n < sizeof(line))
		emit(line, (size_t)n);
}

/* `s` as the body of a JSON string into `out` (NUL-terminated, cut at a character boundary
 * to fit `cap`). Bytes >= 0x80 become '?' so the line stays valid UTF-8 whatever the name. */
static void json_escape(const char *s, char *out, size_t cap)
{
	size_t o = 0;

	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		char tmp[8];
		size_t n;

		if (ch == '"' || ch == '\\') {
			tmp[0] = '\\';
			tmp[1] = (char)ch;
			n = 2;
		} else if (ch < 0x20) {
			n = (size_t)snprintf(tmp, sizeof(tmp), "\\u%04x", ch);
		} else {
			tmp[0] = ch >= 0x80 ? '?' : (char)ch;
			n = 1;
		}
		if (o + n >= cap)
			break;
		memcpy(out + o, tmp, n);
		o += n;
	}
	out[o] = 0;
}

static void emit_error(const char *what, CUptiResult res)
{
	const char *str = NULL;
	char esc[256];

	if (cuptiGetResultString(res, &str) != CUPTI_SUCCESS || !str)
		str = "unknown CUPTI error";
	json_escape(str, esc, sizeof(esc));
	emitf("{\"type\":\"error\",\"what\":\"%s: %s\"}\n", what, esc);
	dbg("renacer-cuda: %s: %s\n", what, str);
}

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Measure the CUPTI-to-CLOCK_MONOTONIC offset (clock.h) and write a "clock" record. */
static void calibrate(void)
{
	struct rn_cuda_clock_sample s[CLOCK_SAMPLES];
	struct rn_cuda_clock c;
	size_t n = 0;

	for (size_t i = 0; i < CLOCK_SAMPLES; i++) {
		uint64_t before = monotonic_ns(), cupti = 0;
		CUptiResult res = cuptiGetTimestamp(&cupti);

		s[n].host_before_ns = before;
		s[n].cupti_ns = cupti;
		s[n].host_after_ns = monotonic_ns();
		if (res == CUPTI_SUCCESS)
			n++;
	}
	if (rn_cuda_clock_calibrate(s, n, &c)) {
		emit_error("cuptiGetTimestamp", CUPTI_ERROR_UNKNOWN);
		return;
	}
	emitf("{\"type\":\"clock\",\"offset_ns\":%" PRId64 ",\"uncertainty_ns\":%" PRIu64 "}\n",
	      c.offset_ns, c.uncertainty_ns);
}

static const char *copy_kind_name(uint8_t kind)
{
	switch (kind) {
	case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
	case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA:
		return "htod";
	case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
	case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH:
		return "dtoh";
	case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
	case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA:
	case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD:
	case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA:
	case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP:
		return "dtod";
	case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
		return "htoh";
	default:
		return "other";
	}
}

static uint32_t nonneg(int32_t v)
{
	return v < 0 ? 0 : (uint32_t)v;
}

static void emit_kernel(const CUpti_ActivityKernel10 *k)
{
	char name[NAME_BYTES];
	char *dem = NULL;
	int status = -1;

	if (demangle && k->name)
		dem = demangle(k->name, NULL, NULL, &status);
	json_escape(dem && !status ? dem : k->name ? k->name : "unknown", name, sizeof(name));
	free(dem);
	emitf("{\"type\":\"kernel\",\"name\":\"%s\",\"device\":%" PRIu32 ",\"context\":%" PRIu32
	      ",\"stream\":%" PRIu32 ",\"correlation\":%" PRIu32 ",\"start\":%" PRIu64
	      ",\"end\":%" PRIu64 ",\"grid\":[%" PRIu32 ",%" PRIu32 ",%" PRIu32 "],\"block\":[%" PRIu32
	      ",%" PRIu32 ",%" PRIu32 "],\"registers\":%u,\"static_shared\":%" PRIu32
	      ",\"dynamic_shared\":%" PRIu32 "}\n",
	      name, k->deviceId, k->contextId, k->streamId, k->correlationId, k->start, k->end,
	      nonneg(k->gridX), nonneg(k->gridY), nonneg(k->gridZ), nonneg(k->blockX),
	      nonneg(k->blockY), nonneg(k->blockZ), (unsigned)k->registersPerThread,
	      nonneg(k->staticSharedMemory), nonneg(k->dynamicSharedMemory));
}

static void emit_record(const CUpti_Activity *rec)
{
	switch (rec->kind) {
	case CUPTI_ACTIVITY_KIND_KERNEL:
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
		emit_kernel((const CUpti_ActivityKernel10 *)rec);
		break;
	case CUPTI_ACTIVITY_KIND_MEMCPY: {
		const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *)rec;

		emitf("{\"type\":\"memcpy\",\"copy_kind\":\"%s\",\"bytes\":%" PRIu64
		      ",\"device\":%" PRIu32 ",\"stream\":%" PRIu32 ",\"start\":%" PRIu64
		      ",\"end\":%" PRIu64 "}\n",
		      copy_kind_name(m->copyKind), m->bytes, m->deviceId, m->streamId, m->start,
		      m->end);
		break;
	}
	case CUPTI_ACTIVITY_KIND_MEMSET: {
		const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *)rec;

		emitf("{\"type\":\"memset\",\"bytes\":%" PRIu64 ",\"device\":%" PRIu32
		      ",\"stream\":%" PRIu32 ",\"start\":%" PRIu64 ",\"end\":%" PRIu64 "}\n",
		      m->bytes, m->deviceId, m->streamId, m->start, m->end);
		break;
	}
	default:
		break;
	}
}

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
	void *p = NULL;

	if (posix_memalign(&p, BUFFER_ALIGN, BUFFER_BYTES))
		p = NULL;
	*buffer = p;
	*size = p ? BUFFER_BYTES : 0;
	*max_records = 0;
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream_id, uint8_t *buffer,
				      size_t size, size_t valid_size)
{
	CUpti_Activity *rec = NULL;
	size_t dropped = 0;

	(void)size;
	if (buffer && valid_size) {
		while (cuptiActivityGetNextRecord(buffer, valid_size, &rec) == CUPTI_SUCCESS)
			emit_record(rec);
	}
	if (cuptiActivityGetNumDroppedRecords(ctx, stream_id, &dropped) == CUPTI_SUCCESS &&
	    dropped)
		emitf("{\"type\":\"dropped\",\"count\":%zu}\n", dropped);
	free(buffer);
}

static void at_exit(void)
{
	CUptiResult res = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);

	if (res != CUPTI_SUCCESS)
		emit_error("cuptiActivityFlushAll", res);
	calibrate();
	dbg("renacer-cuda: flushed at exit\n");
}

/* A child forked without exec shares our file: it stops recording rather than interleave. */
static void at_fork_child(void)
{
	record_fd = -1;
}

static void find_demangler(void)
{
	void *sym = dlsym(RTLD_DEFAULT, "__cxa_demangle");

	if (!sym) {
		void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);

		if (h)
			sym = dlsym(h, "__cxa_demangle");
	}
	/* POSIX guarantees dlsym's object pointer converts to a function pointer. */
	demangle = (demangle_fn)sym;
}

static unsigned flush_period_ms(void)
{
	const char *s = getenv("RENACER_CUDA_FLUSH_MS");
	unsigned long v;
	char *end;

	if (!s || !*s)
		return DEFAULT_FLUSH_MS;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > 3600000)
		return DEFAULT_FLUSH_MS;
	return (unsigned)v;
}

EXPORT int InitializeInjection(void)
{
	static const CUpti_ActivityKind kinds[] = { CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
						    CUPTI_ACTIVITY_KIND_MEMCPY,
						    CUPTI_ACTIVITY_KIND_MEMSET };
	static const char *const kind_names[] = { "CONCURRENT_KERNEL", "MEMCPY", "MEMSET" };
	static bool done;
	const char *dir = getenv("RENACER_CUDA_DIR");
	const char *dbg_env = getenv("RENACER_CUDA_DEBUG");
	char path[4096];
	CUptiResult res;
	unsigned period;
	int n;

	if (done)
		return 1;
	done = true;
	debug = dbg_env && *dbg_env;
	if (!dir || !*dir) {
		dbg("renacer-cuda: RENACER_CUDA_DIR not set, not recording\n");
		return 1;
	}
	n = snprintf(path, sizeof(path), "%s/cuda-%ld.jsonl", dir, (long)getpid());
	if (n < 0 || (size_t)n >= sizeof(path))
		return 1;
	record_fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0600);
	if (record_fd < 0) {
		dbg("renacer-cuda: cannot open '%s': %s\n", path, strerror(errno));
		return 1;
	}
	pthread_atfork(NULL, NULL, at_fork_child);
	emitf("{\"format\":\"%s\",\"version\":%d,\"pid\":%ld}\n", RECORD_FORMAT, RECORD_VERSION,
	      (long)getpid());
	find_demangler();
	calibrate();
	res = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
	if (res != CUPTI_SUCCESS) {
		emit_error("cuptiActivityRegisterCallbacks", res);
		return 1;
	}
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		res = cuptiActivityEnable(kinds[i]);
		if (res != CUPTI_SUCCESS) {
			char what[64];

			snprintf(what, sizeof(what), "cuptiActivityEnable(%s)", kind_names[i]);
			emit_error(what, res);
			return 1;
		}
	}
	period = flush_period_ms();
	if (period) {
		res = cuptiActivityFlushPeriod(period);
		if (res != CUPTI_SUCCESS)
			dbg("renacer-cuda: no periodic flush (%d), flushing at exit only\n",
			    (int)res);
	}
	atexit(at_exit);
	dbg("renacer-cuda: recording to '%s' (flush every %u ms, names %s)\n", path, period,
	    demangle ? "demangled" : "mangled");
	return 1;
}
