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
 * NVTX ranges (regions): the runner also points NVTX_INJECTION64_PATH at this library. The
 * program's first NVTX call loads it and calls InitializeInjectionNvtx2(), which subscribes
 * to CUPTI's NVTX callback domain (push/pop, start/end, their domain forms) and to the driver
 * API callbacks of work-launching calls (cuLaunch*, cuGraphLaunch*, cuMemcpy*, cuMemset*:
 * the runtime's launches go through them), then hands NVTX over to CUPTI's own
 * InitializeInjectionNvtx2 so CUPTI sees the calls. Each thread keeps a stack of its open
 * regions; a launch made while the stack is not empty is written as a "launch" record
 * mapping its correlation id to the innermost region, which the runner joins with the
 * kernel, memcpy and memset records (their correlationId). Region and launch records go
 * through a buffer flushed with the activity buffers and at exit, so a launch costs a
 * callback and a formatted append, not a write(2).
 *
 * It runs inside someone else's process: it never exits, never prints unless
 * RENACER_CUDA_DEBUG is non-empty, and turns failures into an "error" record (the runner
 * then fails the run rather than judging partial data) or into silence when it cannot even
 * open its file.
 */
#include <cupti.h>
#include <generated_nvtx_meta.h>
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

#define RECORD_FORMAT "renacer-cuda"   /* load.h RN_CUDA_FORMAT */
#define RECORD_VERSION 1               /* load.h RN_CUDA_VERSION (records were only added) */
#define BUFFER_BYTES ((size_t)4 << 20) /* one CUPTI activity buffer */
#define BUFFER_ALIGN 8                 /* CUPTI requires 8-byte aligned buffers */
#define LINE_BYTES 8192                /* longest line written (names are cut to fit) */
#define NAME_BYTES 4096                /* longest escaped kernel name kept */
#define CLOCK_SAMPLES 16               /* readings per calibration; the tightest is kept */
#define DEFAULT_FLUSH_MS 500
#define REGION_DEPTH 64               /* open regions tracked per thread */
#define REGION_NAME_BYTES 512         /* longest escaped region name kept */
#define RBUF_BYTES ((size_t)64 << 10) /* region/launch record buffer */
#define OPEN_RANGES 1024              /* start/end ranges open at once, process-wide */
#define BATCH_BYTES ((size_t)1 << 20) /* lines gathered before one write(2) */
#define NAME_CACHE 4096               /* kernel names kept demangled and escaped */

/* One open region of a thread's stack. */
struct open_region {
	uint64_t id;       /* region id (from 1, process-wide) */
	uint64_t range_id; /* nvtxRangeId_t of a start/end range, 0 for push/pop */
	bool start_end;    /* opened by nvtxRangeStartA/Ex or nvtxDomainRangeStartEx */
};

/* An open start/end range: start/end ranges may end on another thread. */
struct open_range {
	uint64_t range_id; /* nvtxRangeId_t, 0 = free slot */
	uint64_t region;   /* its region id */
	bool ended;        /* ended (on another thread): its owner drops it at its next call */
};

/* __cxa_demangle from libstdc++ when the process has it. */
typedef char *(*demangle_fn)(const char *mangled, char *buf, size_t *len, int *status);

static pthread_mutex_t write_lock = PTHREAD_MUTEX_INITIALIZER;
static int record_fd = -1;   /* the record file; -1 = not recording */
static bool debug;           /* RENACER_CUDA_DEBUG set */
static demangle_fn demangle; /* NULL: names stay mangled */

static pthread_mutex_t rbuf_lock = PTHREAD_MUTEX_INITIALIZER;
static char rbuf[RBUF_BYTES]; /* buffered region/launch lines, under rbuf_lock */
static size_t rbuf_len;
static uint64_t next_region_id;                    /* last region id given out, under rbuf_lock */
static uint64_t unbalanced;                        /* pops/ends without an open region, pushes past
				   * REGION_DEPTH, start/end ranges past OPEN_RANGES */
static struct open_range open_ranges[OPEN_RANGES]; /* under rbuf_lock */
static CUpti_SubscriberHandle subscriber;
static bool nvtx_on;          /* NVTX callbacks subscribed */
static uint64_t open_regions; /* region_begin records without their region_end yet, of every
			       * thread (atomic): while > 0 every launch gets a record */

/* This thread's open regions, innermost last; `top` is its innermost region id (0: none),
 * read on every launch without a lock. */
static __thread struct open_region stack[REGION_DEPTH];
static __thread unsigned depth; /* entries used (may exceed REGION_DEPTH: counted only) */
static __thread uint64_t top;
static __thread unsigned start_ends;       /* start/end entries on this thread's stack */
static __thread uint32_t last_correlation; /* of this thread's last launch record */
static __thread uint64_t last_region;      /* ... and its region */

EXPORT int InitializeInjection(void);
EXPORT int InitializeInjectionNvtx2(const void *get_export_table);

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

/* While a completed activity buffer is written out, its lines gather here and go to the
 * file in writes of BATCH_BYTES rather than one write(2) per record (buffer_completed). */
static __thread char *batch;
static __thread size_t batch_len;

static void batch_flush(void)
{
	if (batch && batch_len)
		emit(batch, batch_len);
	batch_len = 0;
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
	if (n <= 0 || (size_t)n >= sizeof(line))
		return;
	if (!batch) {
		emit(line, (size_t)n);
		return;
	}
	if (batch_len + (size_t)n > BATCH_BYTES)
		batch_flush();
	memcpy(batch + batch_len, line, (size_t)n);
	batch_len += (size_t)n;
}

/* Write the buffered region/launch lines; rbuf_lock held. */
static void rbuf_flush_locked(void)
{
	if (rbuf_len)
		emit(rbuf, rbuf_len);
	rbuf_len = 0;
}

static void rbuf_flush(void)
{
	pthread_mutex_lock(&rbuf_lock);
	rbuf_flush_locked();
	pthread_mutex_unlock(&rbuf_lock);
}

/* Append one formatted line to the buffer; rbuf_lock held. A line that cannot fit even an
 * empty buffer is dropped and counted. */
static void rbuf_addf_locked(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void rbuf_addf_locked(const char *fmt, ...)
{
	va_list ap;
	int n;

	for (int tries = 0; tries < 2; tries++) {
		va_start(ap, fmt);
		n = vsnprintf(rbuf + rbuf_len, sizeof(rbuf) - rbuf_len, fmt, ap);
		va_end(ap);
		if (n >= 0 && (size_t)n < sizeof(rbuf) - rbuf_len) {
			rbuf_len += (size_t)n;
			return;
		}
		rbuf_flush_locked();
	}
	unbalanced++;
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

/* Kernel names, demangled and escaped once: a program launches few kernels many times,
 * and demangling costs microseconds. Open addressing by the mangled name's hash; a full
 * table just stops caching. Used by the thread that completes buffers, under cache_lock. */
struct name_entry {
	char *mangled; /* owned, NULL = free slot */
	char *escaped; /* owned */
};
static struct name_entry name_cache[NAME_CACHE];
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* The escaped (demangled when possible) name of mangled name `m` into out (NAME_BYTES). */
static void kernel_name(const char *m, char *out)
{
	uint64_t h = fnv1a(m);
	char *dem = NULL;
	int status = -1;

	pthread_mutex_lock(&cache_lock);
	for (size_t i = 0; i < 8; i++) {
		struct name_entry *e = &name_cache[(h + i) % NAME_CACHE];

		if (e->mangled && !strcmp(e->mangled, m)) {
			memcpy(out, e->escaped, strlen(e->escaped) + 1);
			pthread_mutex_unlock(&cache_lock);
			return;
		}
		if (!e->mangled)
			break;
	}
	pthread_mutex_unlock(&cache_lock);
	if (demangle)
		dem = demangle(m, NULL, NULL, &status);
	json_escape(dem && !status ? dem : m, out, NAME_BYTES);
	free(dem);
	pthread_mutex_lock(&cache_lock);
	for (size_t i = 0; i < 8; i++) {
		struct name_entry *e = &name_cache[(h + i) % NAME_CACHE];

		if (e->mangled)
			continue;
		e->mangled = strdup(m);
		e->escaped = strdup(out);
		if (!e->mangled || !e->escaped) {
			free(e->mangled);
			free(e->escaped);
			e->mangled = e->escaped = NULL;
		}
		break;
	}
	pthread_mutex_unlock(&cache_lock);
}

static void emit_kernel(const CUpti_ActivityKernel10 *k)
{
	char name[NAME_BYTES];

	if (k->name)
		kernel_name(k->name, name);
	else
		json_escape("unknown", name, sizeof(name));
	emitf("{\"type\":\"kernel\",\"name\":\"%s\",\"device\":%" PRIu32 ",\"context\":%" PRIu32
	      ",\"stream\":%" PRIu32 ",\"correlation\":%" PRIu32 ",\"start\":%" PRIu64
	      ",\"end\":%" PRIu64 ",\"grid\":[%" PRIu32 ",%" PRIu32 ",%" PRIu32
	      "],\"block\":[%" PRIu32 ",%" PRIu32 ",%" PRIu32
	      "],\"registers\":%u,\"static_shared\":%" PRIu32 ",\"dynamic_shared\":%" PRIu32
	      ",\"graph\":%" PRIu32 ",\"graph_node\":%" PRIu64 "}\n",
	      name, k->deviceId, k->contextId, k->streamId, k->correlationId, k->start, k->end,
	      nonneg(k->gridX), nonneg(k->gridY), nonneg(k->gridZ), nonneg(k->blockX),
	      nonneg(k->blockY), nonneg(k->blockZ), (unsigned)k->registersPerThread,
	      nonneg(k->staticSharedMemory), nonneg(k->dynamicSharedMemory), k->graphId,
	      (uint64_t)k->graphNodeId);
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
		      ",\"end\":%" PRIu64 ",\"correlation\":%" PRIu32 ",\"graph\":%" PRIu32
		      ",\"graph_node\":%" PRIu64 "}\n",
		      copy_kind_name(m->copyKind), m->bytes, m->deviceId, m->streamId, m->start,
		      m->end, m->correlationId, m->graphId, (uint64_t)m->graphNodeId);
		break;
	}
	case CUPTI_ACTIVITY_KIND_MEMSET: {
		const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *)rec;

		emitf("{\"type\":\"memset\",\"bytes\":%" PRIu64 ",\"device\":%" PRIu32
		      ",\"stream\":%" PRIu32 ",\"start\":%" PRIu64 ",\"end\":%" PRIu64
		      ",\"correlation\":%" PRIu32 ",\"graph\":%" PRIu32 ",\"graph_node\":%" PRIu64
		      "}\n",
		      m->bytes, m->deviceId, m->streamId, m->start, m->end, m->correlationId,
		      m->graphId, (uint64_t)m->graphNodeId);
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
		batch = malloc(BATCH_BYTES);
		batch_len = 0;
		while (cuptiActivityGetNextRecord(buffer, valid_size, &rec) == CUPTI_SUCCESS)
			emit_record(rec);
		batch_flush();
		free(batch);
		batch = NULL;
	}
	if (cuptiActivityGetNumDroppedRecords(ctx, stream_id, &dropped) == CUPTI_SUCCESS && dropped)
		emitf("{\"type\":\"dropped\",\"count\":%zu}\n", dropped);
	free(buffer);
	rbuf_flush();
}

static bool activity_on; /* the Activity API was set up (InitializeInjection) */

static void at_exit(void)
{
	if (activity_on) {
		CUptiResult res = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);

		if (res != CUPTI_SUCCESS)
			emit_error("cuptiActivityFlushAll", res);
	}
	pthread_mutex_lock(&rbuf_lock);
	if (unbalanced)
		rbuf_addf_locked("{\"type\":\"region_lost\",\"count\":%" PRIu64 "}\n", unbalanced);
	rbuf_flush_locked();
	pthread_mutex_unlock(&rbuf_lock);
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

/* ---- NVTX regions ------------------------------------------------------------------- */

/* `v` in decimal at `out` (at least 20 bytes); returns the digits written. */
static size_t put_u64(char *out, uint64_t v)
{
	char tmp[20];
	size_t n = 0, i;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (i = 0; i < n; i++)
		out[i] = tmp[n - 1 - i];
	return n;
}

static uint64_t cupti_now(void)
{
	uint64_t ts = 0;

	if (cuptiGetTimestamp(&ts) != CUPTI_SUCCESS)
		return 0;
	return ts;
}

/* The name an NVTX event attribute structure carries ("" when none is readable: a wide or
 * registered string has no ASCII form here). */
static const char *attr_name(const nvtxEventAttributes_t *a)
{
	if (!a || a->messageType != NVTX_MESSAGE_TYPE_ASCII || !a->message.ascii)
		return a && a->messageType == NVTX_MESSAGE_TYPE_REGISTERED ? "registered-string" :
									     "";
	return a->message.ascii;
}

/* Innermost open region of this thread after dropping start/end ranges that other threads
 * ended; called at each of this thread's NVTX calls (not on launches). */
static void compact_stack(void)
{
	unsigned n = depth < REGION_DEPTH ? depth : REGION_DEPTH, o = 0;

	if (start_ends) {
		pthread_mutex_lock(&rbuf_lock);
		for (unsigned i = 0; i < n; i++) {
			bool gone = false;

			if (stack[i].start_end) {
				for (size_t k = 0; k < OPEN_RANGES; k++) {
					struct open_range *r = &open_ranges[k];

					if (r->range_id == stack[i].range_id &&
					    r->region == stack[i].id && r->ended) {
						memset(r, 0, sizeof(*r));
						gone = true;
						start_ends--;
						break;
					}
				}
			}
			if (!gone)
				stack[o++] = stack[i];
		}
		pthread_mutex_unlock(&rbuf_lock);
		depth -= n - o;
	}
	top = depth && depth <= REGION_DEPTH ? stack[depth - 1].id : 0;
}

/* A region opens on this thread: a record and a stack entry. */
static void region_open(const char *name, bool start_end, uint64_t range_id)
{
	char esc[REGION_NAME_BYTES];
	uint64_t now = cupti_now(), id, parent;

	compact_stack();
	parent = top;
	json_escape(name, esc, sizeof(esc));
	pthread_mutex_lock(&rbuf_lock);
	id = ++next_region_id;
	__atomic_add_fetch(&open_regions, 1, __ATOMIC_RELAXED);
	rbuf_addf_locked("{\"type\":\"region_begin\",\"id\":%" PRIu64 ",\"parent\":%" PRIu64
			 ",\"name\":\"%s\",\"tid\":%ld,\"start\":%" PRIu64 "}\n",
			 id, parent, esc, (long)gettid(), now);
	if (start_end) {
		size_t k;

		for (k = 0; k < OPEN_RANGES && open_ranges[k].range_id; k++)
			;
		if (k < OPEN_RANGES) {
			open_ranges[k].range_id = range_id;
			open_ranges[k].region = id;
			open_ranges[k].ended = false;
		} else {
			unbalanced++;
		}
	}
	pthread_mutex_unlock(&rbuf_lock);
	if (depth < REGION_DEPTH) {
		stack[depth].id = id;
		stack[depth].range_id = range_id;
		stack[depth].start_end = start_end;
		if (start_end)
			start_ends++;
		top = id;
	} else {
		top = 0; /* too deep: its work is not attributed to a wrong region */
		pthread_mutex_lock(&rbuf_lock);
		unbalanced++;
		pthread_mutex_unlock(&rbuf_lock);
	}
	depth++;
}

static void region_close_record(uint64_t id)
{
	uint64_t now = cupti_now();

	pthread_mutex_lock(&rbuf_lock);
	__atomic_sub_fetch(&open_regions, 1, __ATOMIC_RELAXED);
	rbuf_addf_locked("{\"type\":\"region_end\",\"id\":%" PRIu64 ",\"end\":%" PRIu64 "}\n", id,
			 now);
	pthread_mutex_unlock(&rbuf_lock);
}

/* nvtxRangePop / nvtxDomainRangePop: the innermost push/pop region of this thread. */
static void region_pop(void)
{
	compact_stack();
	if (!depth) {
		pthread_mutex_lock(&rbuf_lock);
		unbalanced++;
		pthread_mutex_unlock(&rbuf_lock);
		return;
	}
	depth--;
	if (depth < REGION_DEPTH) {
		if (stack[depth].start_end)
			start_ends--; /* a pop closing a start/end range: mismatched, but closed */
		region_close_record(stack[depth].id);
	}
	top = depth && depth <= REGION_DEPTH ? stack[depth - 1].id : 0;
}

/* nvtxRangeEnd / nvtxDomainRangeEnd: the start/end range `range_id`, opened by any thread;
 * range_id 0 (CUPTI gave no id at the start) ends this thread's latest start/end range. */
static void region_end(uint64_t range_id)
{
	unsigned n = depth < REGION_DEPTH ? depth : REGION_DEPTH;
	uint64_t id = 0;

	for (unsigned i = n; i-- > 0;) {
		if (stack[i].start_end && (!range_id || stack[i].range_id == range_id)) {
			id = stack[i].id;
			range_id = stack[i].range_id;
			memmove(&stack[i], &stack[i + 1], (n - i - 1) * sizeof(stack[0]));
			depth--;
			start_ends--;
			break;
		}
	}
	pthread_mutex_lock(&rbuf_lock);
	for (size_t k = 0; k < OPEN_RANGES; k++) {
		struct open_range *r = &open_ranges[k];

		if (!r->range_id || r->range_id != range_id || r->ended || (id && r->region != id))
			continue;
		if (id) {
			memset(r, 0, sizeof(*r)); /* ours: gone now */
		} else {
			id = r->region; /* another thread's: it drops it at its next call */
			r->ended = true;
		}
		break;
	}
	if (!id && !range_id)
		unbalanced++;
	pthread_mutex_unlock(&rbuf_lock);
	if (id)
		region_close_record(id);
	else if (range_id)
		region_end(0); /* the id CUPTI showed at the start was not this one */
	compact_stack();
}

static uint64_t returned_range_id(const CUpti_NvtxData *d)
{
	return d->functionReturnValue ? *(const nvtxRangeId_t *)d->functionReturnValue : 0;
}

static void on_nvtx(CUpti_CallbackId cbid, const CUpti_NvtxData *d)
{
	const void *p = d->functionParams;

	switch (cbid) {
	case CUPTI_CBID_NVTX_nvtxRangePushA:
		region_open(((const nvtxRangePushA_params *)p)->message ?
				    ((const nvtxRangePushA_params *)p)->message :
				    "",
			    false, 0);
		break;
	case CUPTI_CBID_NVTX_nvtxRangePushEx:
		region_open(attr_name(((const nvtxRangePushEx_params *)p)->eventAttrib), false, 0);
		break;
	case CUPTI_CBID_NVTX_nvtxDomainRangePushEx:
		region_open(attr_name(((const nvtxDomainRangePushEx_params *)p)->core.eventAttrib),
			    false, 0);
		break;
	case CUPTI_CBID_NVTX_nvtxRangePop:
	case CUPTI_CBID_NVTX_nvtxDomainRangePop:
		region_pop();
		break;
	case CUPTI_CBID_NVTX_nvtxRangeStartA:
		region_open(((const nvtxRangeStartA_params *)p)->message ?
				    ((const nvtxRangeStartA_params *)p)->message :
				    "",
			    true, returned_range_id(d));
		break;
	case CUPTI_CBID_NVTX_nvtxRangeStartEx:
		region_open(attr_name(((const nvtxRangeStartEx_params *)p)->eventAttrib), true,
			    returned_range_id(d));
		break;
	case CUPTI_CBID_NVTX_nvtxDomainRangeStartEx:
		region_open(attr_name(((const nvtxDomainRangeStartEx_params *)p)->core.eventAttrib),
			    true, returned_range_id(d));
		break;
	case CUPTI_CBID_NVTX_nvtxRangeEnd:
		region_end(((const nvtxRangeEnd_params *)p)->id);
		break;
	case CUPTI_CBID_NVTX_nvtxDomainRangeEnd:
		region_end(((const nvtxDomainRangeEnd_params *)p)->core.id);
		break;
	default:
		break;
	}
}

static void CUPTIAPI on_callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
				 const void *cbdata)
{
	(void)userdata;
	if (domain == CUPTI_CB_DOMAIN_NVTX) {
		on_nvtx(cbid, cbdata);
		return;
	}
	/* A launch, at its entry, while a region is open on any thread: its correlation id,
	 * this thread's innermost region and its time, so the runner can attribute it by
	 * thread or by time window (collectors/cuda/load.h). */
	if ((top || __atomic_load_n(&open_regions, __ATOMIC_RELAXED)) &&
	    (domain == CUPTI_CB_DOMAIN_DRIVER_API || domain == CUPTI_CB_DOMAIN_RUNTIME_API)) {
		const CUpti_CallbackData *cd = cbdata;
		char line[128];
		size_t n;

		/* A runtime launch and the driver launch it makes share one correlation id
		 * (seen on CUDA 13): one record for both. */
		if (cd->callbackSite != CUPTI_API_ENTER ||
		    (cd->correlationId == last_correlation && top == last_region))
			return;
		last_correlation = cd->correlationId;
		last_region = top;
		/* formatted by hand: this runs on every launch of the program */
#define PUT_LIT(lit)                                                                               \
	do {                                                                                       \
		memcpy(line + n, lit, sizeof(lit) - 1);                                            \
		n += sizeof(lit) - 1;                                                              \
	} while (0)
		n = 0;
		PUT_LIT("{\"type\":\"launch\",\"correlation\":");
		n += put_u64(line + n, cd->correlationId);
		PUT_LIT(",\"region\":");
		n += put_u64(line + n, top);
		PUT_LIT(",\"t\":");
		n += put_u64(line + n, cupti_now());
		PUT_LIT("}\n");
#undef PUT_LIT
		pthread_mutex_lock(&rbuf_lock);
		if (rbuf_len + n > sizeof(rbuf))
			rbuf_flush_locked();
		memcpy(rbuf + rbuf_len, line, n);
		rbuf_len += n;
		pthread_mutex_unlock(&rbuf_lock);
	}
}

/* Whether a driver/runtime API function launches or moves GPU work. */
static bool is_launch_name(const char *n)
{
	static const char *const prefixes[] = { "cuLaunch",   "cuGraphLaunch", "cuMemcpy",
						"cuMemset",   "cudaLaunch",    "cudaGraphLaunch",
						"cudaMemcpy", "cudaMemset" };

	for (size_t i = 0; n && i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(n, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

static void enable_launch_callbacks(CUpti_CallbackDomain domain, uint32_t size)
{
	for (uint32_t cbid = 1; cbid < size; cbid++) {
		const char *name = NULL;

		if (cuptiGetCallbackName(domain, cbid, &name) != CUPTI_SUCCESS ||
		    !is_launch_name(name))
			continue;
		if (cuptiEnableCallback(1, subscriber, domain, cbid) != CUPTI_SUCCESS)
			dbg("renacer-cuda: no callback for %s\n", name);
	}
}

/* Open the record file and write its header, once per process (either entry point). */
static bool recording_started(void)
{
	static bool tried, ok;
	const char *dir = getenv("RENACER_CUDA_DIR");
	const char *dbg_env = getenv("RENACER_CUDA_DEBUG");
	char path[4096];
	int n;

	if (tried)
		return ok;
	tried = true;
	debug = dbg_env && *dbg_env;
	if (!dir || !*dir) {
		dbg("renacer-cuda: RENACER_CUDA_DIR not set, not recording\n");
		return false;
	}
	n = snprintf(path, sizeof(path), "%s/cuda-%ld.jsonl", dir, (long)getpid());
	if (n < 0 || (size_t)n >= sizeof(path))
		return false;
	record_fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0600);
	if (record_fd < 0) {
		dbg("renacer-cuda: cannot open '%s': %s\n", path, strerror(errno));
		return false;
	}
	pthread_atfork(NULL, NULL, at_fork_child);
	emitf("{\"format\":\"%s\",\"version\":%d,\"pid\":%ld}\n", RECORD_FORMAT, RECORD_VERSION,
	      (long)getpid());
	find_demangler();
	calibrate();
	atexit(at_exit);
	dbg("renacer-cuda: recording to '%s'\n", path);
	ok = true;
	return true;
}

/* NVTX's loader calls this at the program's first NVTX call (NVTX_INJECTION64_PATH names
 * this library): subscribe to the NVTX and launch callbacks, then let CUPTI's own NVTX
 * injection fill NVTX's function table so the callbacks are issued. Returns NVTX's success
 * value (non-zero) when CUPTI took NVTX over. */
EXPORT int InitializeInjectionNvtx2(const void *get_export_table)
{
	typedef int (*nvtx_init_fn)(const void *);
	static bool done;
	Dl_info info;
	void *lib;
	nvtx_init_fn cupti_init;
	CUptiResult res;

	const char *nvtx_env = getenv("RENACER_CUDA_NVTX");

	if (done || !recording_started())
		return 0;
	done = true;
	if (nvtx_env && !strcmp(nvtx_env, "off")) {
		dbg("renacer-cuda: RENACER_CUDA_NVTX=off, NVTX ranges not recorded\n");
		return 0;
	}
	/* CUPTI's InitializeInjectionNvtx2, from the libcupti this library is linked to. */
	if (!dladdr((void *)cuptiSubscribe, &info) || !info.dli_fname)
		return 0;
	lib = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
	cupti_init = lib ? (nvtx_init_fn)dlsym(lib, "InitializeInjectionNvtx2") : NULL;
	if (!cupti_init) {
		emit_error("InitializeInjectionNvtx2 not found in libcupti", CUPTI_ERROR_UNKNOWN);
		return 0;
	}
	res = cuptiSubscribe(&subscriber, on_callback, NULL);
	if (res == CUPTI_SUCCESS)
		res = cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_NVTX);
	if (res != CUPTI_SUCCESS) {
		emit_error("cuptiSubscribe(NVTX)", res);
		return 0;
	}
	/* Driver API only: the runtime launches through it, and a runtime call and the driver
	 * call it makes share one correlation id (seen on CUDA 13), so runtime callbacks would
	 * only double the cost of a launch. */
	enable_launch_callbacks(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE);
	nvtx_on = true;
	dbg("renacer-cuda: NVTX ranges recorded\n");
	return cupti_init(get_export_table);
}

EXPORT int InitializeInjection(void)
{
	static const CUpti_ActivityKind kinds[] = { CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
						    CUPTI_ACTIVITY_KIND_MEMCPY,
						    CUPTI_ACTIVITY_KIND_MEMSET };
	static const char *const kind_names[] = { "CONCURRENT_KERNEL", "MEMCPY", "MEMSET" };
	static bool done;
	CUptiResult res;
	unsigned period;

	if (done)
		return 1;
	done = true;
	if (!recording_started())
		return 1;
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
	activity_on = true;
	period = flush_period_ms();
	if (period) {
		res = cuptiActivityFlushPeriod(period);
		if (res != CUPTI_SUCCESS)
			dbg("renacer-cuda: no periodic flush (%d), flushing at exit only\n",
			    (int)res);
	}
	dbg("renacer-cuda: activity recorded (flush every %u ms, names %s, NVTX %s)\n", period,
	    demangle ? "demangled" : "mangled", nvtx_on ? "on" : "not used yet");
	return 1;
}
