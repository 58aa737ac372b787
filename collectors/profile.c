/*
 * profile.c - folded stacks of syscall time and of on-CPU samples (profile.h).
 */
#include "profile.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "internal.h"
#include "perfmap.h"
#include "srcloc.h"
#include "symbolize.h"
#include "xalloc.h"

/* Ring buffer data pages per CPU (a power of two): 128 pages, 512 KiB, some 600 samples of
 * 100 frames; drained every DRAIN_NS. */
#define RING_PAGES 128
#define DRAIN_NS 50000000L
/* /proc/PID/maps reads per sampled process (a new mapping not yet seen triggers one). */
#define MAPS_READS 4

/* One stack and its value: (a) a syscall's call stack and number, (b) a sampled stack. */
struct entry {
	pid_t pid;      /* (a) index of the process in the trace; (b) the sampled process */
	int nr;         /* (a) syscall number; (b) -1 */
	uint16_t n;     /* addresses in pc */
	bool kernel;    /* (b) the sample hit kernel code (a "[kernel]" frame on top) */
	uint64_t *pc;   /* addresses, innermost first, owned */
	uint64_t hash;  /* of the fields above */
	uint64_t value; /* (a) nanoseconds; (b) samples */
	uint64_t calls; /* (a) calls; (b) samples */
	uint64_t cpu;   /* (a) the calls' on-CPU nanoseconds (their duration where unknown) */
	uint32_t id;    /* (b) the stack's id, its order of creation (rn_profile_timed.stack) */
};

/* Open-addressing table of entries (power-of-two capacity, linear probing). */
struct table {
	struct entry *v;
	size_t cap, n;
};

/* The sampler's /proc/PID/maps snapshots. */
struct pid_maps {
	pid_t pid;
	struct rn_maps *maps; /* owned, or NULL when unreadable */
	unsigned reads;
};

struct rn_profile {
	struct table syscalls;          /* (a) */
	struct table samples;           /* (b), written by the drain thread while it runs */
	struct rn_profile_timed *timed; /* (b) each sample's time, thread, stack [ntimed] */
	size_t ntimed, timed_cap;
	uint64_t untimed;      /* samples past RN_PROFILE_TIMED_MAX, in the table only */
	int ncpu;              /* events opened */
	int *fd;               /* perf event per CPU [ncpu] */
	void **ring;           /* their mmap'ed ring buffers [ncpu] */
	size_t ring_bytes;     /* bytes of each mapping (1 + RING_PAGES pages) */
	pthread_t thread;      /* the drain thread */
	bool running;          /* the thread runs */
	pthread_mutex_t mu;    /* guards stop */
	pthread_cond_t cv;     /* wakes the thread to stop */
	bool stop;             /* asked to stop */
	uint64_t nsamples;     /* samples read */
	uint64_t lost;         /* samples the kernel lost */
	struct pid_maps *maps; /* [nmaps] */
	size_t nmaps, maps_cap;
	uint64_t start_ns; /* rn_profile_attach's time, CLOCK_REALTIME_COARSE ns (perfmap.h) */
	char *root;        /* the run's working directory, absolute, owned, or NULL */
	unsigned hz;       /* asked-for rate, 0 = no sampling */
	bool user_only;    /* the kernel is not sampled (perf_event_paranoid) */
	const char *error; /* why sampling is off, "" when it is not */
	uint8_t *scratch;  /* a record that wraps around the ring's end */
};

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h;
}

static uint64_t key_hash(pid_t pid, int nr, bool kernel, const uint64_t *pc, uint16_t n)
{
	uint64_t h = mix(mix(mix(0, (uint64_t)pid), (uint64_t)(int64_t)nr), kernel);

	for (uint16_t i = 0; i < n; i++)
		h = mix(h, pc[i]);
	return h;
}

static void table_grow(struct table *t)
{
	size_t cap = t->cap ? t->cap * 2 : 256;
	struct entry *v = rn_xcalloc(cap, sizeof(*v));

	for (size_t i = 0; i < t->cap; i++) {
		size_t k;

		if (!t->v[i].value)
			continue;
		for (k = t->v[i].hash & (cap - 1); v[k].value; k = (k + 1) & (cap - 1))
			;
		v[k] = t->v[i];
	}
	free(t->v);
	t->v = v;
	t->cap = cap;
}

/* Add `value` to the entry of the key, creating it. Every stored entry has value > 0.
 * Returns the entry's id. */
static uint32_t table_add(struct table *t, pid_t pid, int nr, bool kernel, const uint64_t *pc,
			  uint16_t n, uint64_t value, uint64_t cpu)
{
	uint64_t h = key_hash(pid, nr, kernel, pc, n);
	size_t k;

	if (!value)
		value = 1; /* a zero-length call still shows, as strace -c counts it */
	if ((t->n + 1) * 4 > t->cap * 3)
		table_grow(t);
	for (k = h & (t->cap - 1); t->v[k].value; k = (k + 1) & (t->cap - 1)) {
		struct entry *e = &t->v[k];

		if (e->hash == h && e->pid == pid && e->nr == nr && e->kernel == kernel &&
		    e->n == n && !memcmp(e->pc, pc, n * sizeof(*pc))) {
			e->value += value;
			e->calls++;
			e->cpu += cpu;
			return e->id;
		}
	}
	t->v[k] = (struct entry){ pid, nr,    n, kernel, rn_xmalloc(n ? n * sizeof(*pc) : 1),
				  h,   value, 1, cpu,    (uint32_t)t->n };
	memcpy(t->v[k].pc, pc, n * sizeof(*pc));
	return (uint32_t)t->n++;
}

static void table_release(struct table *t)
{
	for (size_t i = 0; i < t->cap; i++)
		free(t->v[i].pc);
	free(t->v);
	memset(t, 0, sizeof(*t));
}

struct rn_profile *rn_profile_new(void)
{
	struct rn_profile *p = rn_xcalloc(1, sizeof(*p));

	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	p->error = "";
	return p;
}

void rn_profile_free(struct rn_profile *p)
{
	if (!p)
		return;
	rn_profile_sample_stop(p);
	for (int i = 0; i < p->ncpu; i++) {
		if (p->ring[i] && p->ring[i] != MAP_FAILED)
			munmap(p->ring[i], p->ring_bytes);
		if (p->fd[i] >= 0)
			close(p->fd[i]);
	}
	free(p->fd);
	free(p->ring);
	free(p->root);
	for (size_t i = 0; i < p->nmaps; i++)
		rn_maps_free(p->maps[i].maps);
	free(p->maps);
	table_release(&p->syscalls);
	table_release(&p->samples);
	free(p->timed);
	free(p->scratch);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->cv);
	free(p);
}

void rn_profile_set_root(struct rn_profile *p, const char *dir)
{
	free(p->root);
	p->root = dir ? realpath(dir, NULL) : NULL;
}

/* ---- (a) syscall time, from the trace's sink --------------------------------------------- */

static void on_syscall(void *ctx, const struct rn_trace *t, const struct rn_syscall_event *ev)
{
	struct rn_profile *p = ctx;
	int pi;

	if ((ev->flags & RN_SC_UNFINISHED) || !ev->nstack)
		return;
	pi = rn_trace_find_process(t, ev->pid);
	if (pi < 0)
		return;
	table_add(&p->syscalls, pi, ev->nr, false, ev->stack, ev->nstack, ev->duration_ns,
		  (ev->flags & RN_SC_CPU) ? ev->cpu_ns : ev->duration_ns);
}

/*
 * Start sampling process `pid` (stopped before its exec) and its descendants at `hz` per
 * second of CPU time. 0, or -errno from perf_event_open (EACCES/EPERM:
 * /proc/sys/kernel/perf_event_paranoid forbids it; ENOENT: no software clock event).
 */
static int rn_profile_sample_start(struct rn_profile *p, pid_t pid, unsigned hz);

static void on_process(void *ctx, const struct rn_trace *t, const struct rn_process *proc,
		       char event)
{
	struct rn_profile *p = ctx;
	int rc;

	/* the root's birth: it waits before its exec, so the events count from the exec on */
	if (event != 'f' || proc != &t->procs[0] || !p->hz || p->ncpu)
		return;
	rc = rn_profile_sample_start(p, proc->pid, p->hz);
	if (rc == -EACCES || rc == -EPERM)
		p->error = "perf_event_open is not permitted (kernel.perf_event_paranoid; root or "
			   "CAP_PERFMON)";
	else if (rc)
		p->error = "perf_event_open failed (no software CPU clock event?)";
}

int rn_profile_attach(struct rn_profile *p, struct rn_trace *t, unsigned hz)
{
	struct rn_trace_sink sink = { on_syscall, on_process, p };

	p->hz = hz;
	/* perf maps modified before the run are of an earlier process with the same pid */
	p->start_ns = rn_perfmap_now();
	return rn_trace_add_sink(t, &sink);
}

/* ---- (b) sampling ------------------------------------------------------------------------ */

static const struct rn_maps *sampler_maps(struct rn_profile *p, pid_t pid, uint64_t addr)
{
	struct pid_maps *m = NULL;

	for (size_t i = 0; i < p->nmaps; i++)
		if (p->maps[i].pid == pid)
			m = &p->maps[i];
	if (!m) {
		p->maps = rn_xgrow(p->maps, &p->maps_cap, p->nmaps + 1, sizeof(*p->maps));
		m = &p->maps[p->nmaps++];
		*m = (struct pid_maps){ pid, NULL, 0 };
	}
	if ((!m->maps || !rn_maps_find(m->maps, addr)) && m->reads < MAPS_READS) {
		struct rn_maps *fresh = NULL;

		m->reads++;
		if (!rn_maps_read(pid, &fresh)) {
			rn_maps_free(m->maps);
			m->maps = fresh;
		}
	}
	return m->maps;
}

/* One PERF_RECORD_SAMPLE: ip, pid/tid, time, callchain (sample_type IP | TID | TIME |
 * CALLCHAIN, in the kernel's order of the fields). */
static void on_sample(struct rn_profile *p, const uint8_t *rec, size_t size)
{
	uint64_t ip, time, nr, pc[RN_PROFILE_FRAMES_MAX];
	uint32_t pid, tid, id;
	const uint8_t *q = rec + sizeof(struct perf_event_header);
	uint16_t n = 0;
	bool kernel;

	if (size < sizeof(struct perf_event_header) + 32)
		return;
	memcpy(&ip, q, 8);
	memcpy(&pid, q + 8, 4);
	memcpy(&tid, q + 12, 4);
	memcpy(&time, q + 16, 8);
	memcpy(&nr, q + 24, 8);
	q += 32;
	if (nr > (size - sizeof(struct perf_event_header) - 32) / 8)
		return;
	kernel = ip >= 0xffff800000000000ull;
	for (uint64_t i = 0; i < nr && n < RN_PROFILE_FRAMES_MAX; i++) {
		uint64_t a;

		memcpy(&a, q + i * 8, 8);
		if (a >= (uint64_t)PERF_CONTEXT_MAX || a >= 0xffff800000000000ull)
			continue; /* context markers and kernel frames */
		pc[n++] = a;
	}
	p->nsamples++;
	if (n)
		sampler_maps(p, (pid_t)pid, pc[0]);
	id = table_add(&p->samples, (pid_t)pid, -1, kernel, pc, n, 1, 0);
	if (p->ntimed >= RN_PROFILE_TIMED_MAX) {
		p->untimed++;
		return;
	}
	p->timed = rn_xgrow(p->timed, &p->timed_cap, p->ntimed + 1, sizeof(*p->timed));
	p->timed[p->ntimed++] = (struct rn_profile_timed){ time, (pid_t)tid, id };
}

/* Read every record of CPU `i`'s ring buffer. */
static void drain_ring(struct rn_profile *p, int i)
{
	struct perf_event_mmap_page *meta = p->ring[i];
	uint8_t *data = (uint8_t *)p->ring[i] + meta->data_offset;
	uint64_t size = meta->data_size, head, tail = meta->data_tail;

	head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	while (tail + sizeof(struct perf_event_header) <= head) {
		struct perf_event_header h;
		const uint8_t *rec;
		uint64_t off = tail % size;

		if (off + sizeof(h) <= size) {
			memcpy(&h, data + off, sizeof(h));
		} else {
			size_t first = (size_t)(size - off);

			memcpy(&h, data + off, first);
			memcpy((uint8_t *)&h + first, data, sizeof(h) - first);
		}
		if (!h.size || tail + h.size > head)
			break;
		if (off + h.size <= size) {
			rec = data + off;
		} else {
			size_t first = (size_t)(size - off);

			memcpy(p->scratch, data + off, first);
			memcpy(p->scratch + first, data, h.size - first);
			rec = p->scratch;
		}
		if (h.type == PERF_RECORD_SAMPLE)
			on_sample(p, rec, h.size);
		else if (h.type == PERF_RECORD_LOST && h.size >= sizeof(h) + 16) {
			uint64_t lost;

			memcpy(&lost, rec + sizeof(h) + 8, 8);
			p->lost += lost;
		}
		tail += h.size;
	}
	__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
}

static void *drain_main(void *arg)
{
	struct rn_profile *p = arg;
	bool stop = false;

	while (!stop) {
		struct timespec until;

		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += DRAIN_NS;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_mutex_lock(&p->mu);
		if (!p->stop)
			pthread_cond_timedwait(&p->cv, &p->mu, &until);
		stop = p->stop;
		pthread_mutex_unlock(&p->mu);
		for (int i = 0; i < p->ncpu; i++)
			drain_ring(p, i);
	}
	return NULL;
}

static int open_event(pid_t pid, int cpu, unsigned hz, bool kernel_ok)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	/* a fixed period of CPU clock nanoseconds, not freq mode: the kernel's frequency mode
	 * starts from a long period and adjusts it, so a short run got half its samples (290 ms
	 * of CPU at 999 Hz: 129 samples); with a fixed period each sample stands for exactly
	 * 1e9 / hz ns of CPU time */
	a.freq = 0;
	a.sample_period = 1000000000ull / hz;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN;
	/* sample times on the trace's clock (CLOCK_MONOTONIC, trace.h), so the samples can be
	 * placed in the spans' windows */
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	a.disabled = 1;
	a.enable_on_exec = 1;
	a.inherit = 1;
	a.exclude_kernel = !kernel_ok;
	a.exclude_hv = 1;
	a.exclude_callchain_kernel = 1;
	a.sample_max_stack = RN_PROFILE_FRAMES_MAX;
	a.wakeup_events = 0;
	return (int)syscall(SYS_perf_event_open, &a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static int rn_profile_sample_start(struct rn_profile *p, pid_t pid, unsigned hz)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	long page = sysconf(_SC_PAGESIZE);
	bool kernel_ok = true;
	int rc = 0;

	if (p->ncpu || ncpu <= 0)
		return -EBUSY;
	p->fd = rn_xcalloc((size_t)ncpu, sizeof(*p->fd));
	p->ring = rn_xcalloc((size_t)ncpu, sizeof(*p->ring));
	p->ring_bytes = (size_t)page * (1 + RING_PAGES);
	p->scratch = rn_xmalloc(65536);
	for (int i = 0; i < ncpu; i++)
		p->fd[i] = -1;
	p->ncpu = (int)ncpu;
	for (int i = 0; i < ncpu && !rc; i++) {
		p->fd[i] = open_event(pid, i, hz, kernel_ok);
		if (p->fd[i] < 0 && kernel_ok && (errno == EACCES || errno == EPERM)) {
			kernel_ok = false; /* sample user code only */
			p->user_only = true;
			p->fd[i] = open_event(pid, i, hz, kernel_ok);
		}
		if (p->fd[i] < 0) {
			/* an offline CPU: its event is not needed */
			if (errno == ENODEV || errno == EINVAL)
				continue;
			rc = -errno;
			break;
		}
		p->ring[i] =
			mmap(NULL, p->ring_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, p->fd[i], 0);
		if (p->ring[i] == MAP_FAILED) {
			p->ring[i] = NULL;
			rc = -errno;
		}
	}
	if (!rc) {
		sigset_t all, old;

		/* the thread takes no signal: SIGINT and the run's timer must interrupt the run
		 * loop's wait4 in the main thread */
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		rc = -pthread_create(&p->thread, NULL, drain_main, p);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		p->running = !rc;
	}
	if (rc) {
		for (int i = 0; i < p->ncpu; i++) {
			if (p->ring[i])
				munmap(p->ring[i], p->ring_bytes);
			if (p->fd[i] >= 0)
				close(p->fd[i]);
			p->ring[i] = NULL;
			p->fd[i] = -1;
		}
	}
	return rc;
}

void rn_profile_sample_stop(struct rn_profile *p)
{
	if (!p->running)
		return;
	for (int i = 0; i < p->ncpu; i++)
		if (p->fd[i] >= 0)
			ioctl(p->fd[i], PERF_EVENT_IOC_DISABLE, 0);
	pthread_mutex_lock(&p->mu);
	p->stop = true;
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
	pthread_join(p->thread, NULL);
	p->running = false;
	/* the thread drained once more after the stop; rings of a CPU are read by it only */
}

uint64_t rn_profile_samples(const struct rn_profile *p)
{
	return p->nsamples;
}

uint64_t rn_profile_lost(const struct rn_profile *p)
{
	return p->lost;
}

const char *rn_profile_sampling_error(const struct rn_profile *p)
{
	return p->error;
}

bool rn_profile_coverage_note(const struct rn_profile *p, const struct rn_trace *t, char *note,
			      size_t cap)
{
	double period_ns, cpu_ns, covered_ns;

	if (!p->hz || !p->ncpu || *p->error)
		return false;
	period_ns = 1e9 / p->hz;
	cpu_ns = (double)(p->user_only ? t->user_ns : t->cpu_ns);
	covered_ns = (double)(p->nsamples + p->lost) * period_ns;
	if (cpu_ns < RN_PROFILE_COVERAGE_MIN_PERIODS * period_ns ||
	    covered_ns >= RN_PROFILE_THIN_COVERAGE * cpu_ns)
		return false;
	snprintf(note, cap,
		 "%" PRIu64 " samples at %u Hz stand for %.0f ms of the %.0f ms of %sCPU time "
		 "(%.0f%%): processes that run less than one period (%.1f ms of CPU) each are "
		 "not sampled; raise the rate, or read the syscall profile",
		 p->nsamples + p->lost, p->hz, covered_ns / 1e6, cpu_ns / 1e6,
		 p->user_only ? "user " : "", 100.0 * covered_ns / cpu_ns, period_ns / 1e6);
	return true;
}

/* ---- folded stacks ----------------------------------------------------------------------- */

/* Replace the folded format's separators in b[start + 1 ..]: ';' and newlines, and with
 * `spaces` also ' ', by '_'. */
static void unseparate(struct rn_buf *b, size_t start, bool spaces)
{
	for (size_t i = start + 1; i < b->len; i++)
		if (b->buf[i] == ';' || b->buf[i] == '\n' || (spaces && b->buf[i] == ' '))
			b->buf[i] = '_';
}

/* Append ";" and the name of `addr` from the perf map of process `pid` (else of `alt`, the
 * parent whose image a fork child runs; 0: none) followed by " [jit]" (perfmap.h), and
 * return true; false (nothing appended) when no perf map region holds it. */
static bool add_jit_frame(struct rn_buf *b, struct rn_perfmaps *jit, pid_t pid, pid_t alt,
			  uint64_t addr, bool is_return)
{
	/* a return address is looked up at the call before it (a call that ends a region) */
	uint64_t look = is_return && addr ? addr - 1 : addr;
	const char *name = NULL;
	char frame[512];
	size_t start;

	if (jit && pid > 0)
		name = rn_perfmaps_lookup(jit, pid, look);
	if (!name && jit && alt > 0 && alt != pid)
		name = rn_perfmaps_lookup(jit, alt, look);
	if (!name)
		return false;
	start = b->len;
	rn_buf_addc(b, ';');
	rn_buf_adds(b, rn_perfmap_frame_name(name, rn_perfmaps_root(jit), frame, sizeof(frame)));
	unseparate(b, start, false);
	rn_buf_adds(b, " [jit]");
	return true;
}

/* Append ";" and frame `addr` of process `pid` (`alt`: add_jit_frame) with mappings `m`: its
 * function, else module+0xVADDR; the raw address without mappings. A function of the C
 * runtime, the loader or an interpreter library is followed by its module, "fwrite
 * [libc.so.6]"; an address that no file's symbol names but the process's perf map does (code
 * compiled at run time) is that name followed by " [jit]". Semicolons and spaces (the
 * format's separators) in a name become '_' (a perf map name keeps its spaces). Returns false
 * (nothing appended) for an address no executable file mapping or perf map region holds. */
static bool add_frame(struct rn_buf *b, struct rn_symbolizer *sym, struct rn_perfmaps *jit,
		      pid_t pid, pid_t alt, struct rn_srcloc *src, const struct rn_maps *m,
		      uint64_t addr, bool is_return)
{
	struct rn_src_frame sf[RN_SRC_FRAMES_MAX];
	struct rn_frame f;
	bool system;
	size_t start;
	int nsf;

	if (!m || rn_symbolize(sym, m, addr, is_return, &f)) {
		/* anonymous executable memory: JIT-compiled code, named by the perf map */
		if (add_jit_frame(b, jit, pid, alt, addr, is_return))
			return true;
		if (m)
			return false; /* not code: a frame-pointer walk's stray word, left out */
	}
	/* the C runtime's, the loader's and an interpreter's frames carry their module, so an
	 * explanation can pass them by to the program's own code (rn_frame_is_system) */
	system = m && (rn_module_is_runtime(f.module) || rn_module_is_interpreter(f.module));
	/* with debug information: one frame per source frame, inlined ones included,
	 * outermost first, each "function (file:line)" (of the call for a return address) */
	nsf = m && src && !system ? rn_srcloc_lookup(src, f.module, f.vaddr - (is_return ? 1 : 0),
						     sf, RN_SRC_FRAMES_MAX) :
				    0;
	if (nsf > 0 && sf[0].file) {
		for (int k = nsf; k-- > 0;) {
			start = b->len;
			rn_buf_addc(b, ';');
			rn_src_frame_format(b, &sf[k]);
			unseparate(b, start, false);
		}
		return true;
	}
	start = b->len;
	if (m && f.function) {
		rn_buf_addc(b, ';');
		rn_buf_adds(b, f.function);
	} else if (m) {
		const char *base = strrchr(f.module, '/');

		rn_buf_addf(b, ";%s+0x%" PRIx64, base ? base + 1 : f.module, f.vaddr);
	} else {
		rn_buf_addf(b, ";0x%" PRIx64, addr);
	}
	unseparate(b, start, true);
	if (system && f.function) {
		const char *base = strrchr(f.module, '/');

		rn_buf_addf(b, " [%s]", base ? base + 1 : f.module);
		unseparate(b, start, false);
	}
	return true;
}

static int line_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The mappings recorded for process `pid` at its last drain (the latest of them), or NULL. */
static const struct rn_maps *drained_maps(const struct rn_profile *p, pid_t pid)
{
	const struct rn_maps *m = NULL;

	for (size_t k = 0; k < p->nmaps; k++)
		if (p->maps[k].pid == pid)
			m = p->maps[k].maps;
	return m;
}

/* The process of entry e of a `kind` profile (*proc, or NULL) and the mappings its addresses
 * are symbolized with (or NULL). */
static const struct rn_maps *entry_maps(const struct rn_profile *p, const struct rn_trace *t,
					const struct entry *e, enum rn_profile_kind kind,
					const struct rn_process **procp)
{
	const struct rn_process *proc;
	const struct rn_maps *m;
	int pi;

	if (kind != RN_PROFILE_CPU) {
		proc = e->pid >= 0 && (size_t)e->pid < t->nprocs ? &t->procs[e->pid] : NULL;
		*procp = proc;
		return proc ? proc->maps : NULL;
	}
	pi = rn_trace_find_process(t, e->pid);
	proc = pi >= 0 ? &t->procs[pi] : NULL;
	*procp = proc;
	m = drained_maps(p, e->pid);
	if (!m && proc)
		m = proc->maps;
	/* a fork child gone before its samples were drained, which never exec'd: its image is
	 * its parent's (mappings made after the fork aside) */
	while (!m && proc && !proc->exec_ns && proc->parent >= 0) {
		proc = &t->procs[proc->parent];
		m = drained_maps(p, proc->pid);
		if (!m)
			m = proc->maps;
	}
	return m;
}

/* Entry e as a folded line into b: "comm;frame;...;frame VALUE". */
static void fold_entry(struct rn_buf *b, const struct entry *e, enum rn_profile_kind kind,
		       const struct rn_process *proc, const struct rn_maps *m,
		       struct rn_symbolizer *sym, struct rn_perfmaps *jit, struct rn_srcloc *src)
{
	/* the process whose perf map names its JIT code: a sample's own (entry_maps may have
	 * gone up to the parent of a fork child, then also tried), a syscall's */
	pid_t pid = kind == RN_PROFILE_CPU ? e->pid : proc ? proc->pid : 0;
	pid_t alt = proc ? proc->pid : 0;

	rn_buf_reset(b);
	if (proc && proc->comm)
		rn_buf_adds(b, proc->comm);
	else
		rn_buf_addf(b, "pid_%d", (int)e->pid);
	for (size_t k = 0; k < b->len; k++)
		if (b->buf[k] == ';' || b->buf[k] == ' ')
			b->buf[k] = '_';
	for (uint16_t k = e->n; k-- > 0;) {
		/* a sample's first address is where it ran; the rest are return addresses, as
		 * are all of a syscall's */
		add_frame(b, sym, jit, pid, alt, src, m, e->pc[k], kind != RN_PROFILE_CPU || k > 0);
	}
	if (kind != RN_PROFILE_CPU)
		rn_buf_addf(b, ";%s", rn_syscall_name(e->nr));
	else if (e->kernel)
		rn_buf_adds(b, ";[kernel]");
	rn_buf_addf(b, " %" PRIu64,
		    kind == RN_PROFILE_SYSCALL_CALLS       ? e->calls :
			    kind == RN_PROFILE_SYSCALL_CPU ? e->cpu :
							     e->value);
}

/* Print the nl sorted folded lines, freeing them; stacks that symbolize alike (two call sites
 * in one function) are merged. */
static void print_merged(FILE *out, char **lines, size_t nl)
{
	for (size_t i = 0; i < nl; i++) {
		char *first = lines[i], *sp = strrchr(first, ' ');
		uint64_t v = strtoull(sp + 1, NULL, 10);
		size_t klen = (size_t)(sp - first);

		while (i + 1 < nl) {
			char *sp2 = strrchr(lines[i + 1], ' ');

			if ((size_t)(sp2 - lines[i + 1]) != klen ||
			    memcmp(first, lines[i + 1], klen))
				break;
			v += strtoull(sp2 + 1, NULL, 10);
			free(lines[++i]);
		}
		fprintf(out, "%.*s %" PRIu64 "\n", (int)klen, first, v);
		free(first);
	}
}

/* Write table `tab` of `kind` folded to `out`: each stack with its value, or with counts[id]
 * when `counts` is given (stacks with none left out). */
static int write_table(struct rn_profile *p, const struct rn_trace *t, const struct table *tab,
		       enum rn_profile_kind kind, const uint64_t *counts, struct rn_srcloc *src,
		       FILE *out)
{
	struct rn_symbolizer *sym = rn_symbolizer_new();
	struct rn_perfmaps *jit = rn_perfmaps_new(p->start_ns, p->root);
	char **lines = rn_xcalloc(tab->n + 1, sizeof(*lines));
	size_t nl = 0;
	struct rn_buf b;

	rn_buf_init(&b, 0);
	for (size_t i = 0; i < tab->cap; i++) {
		struct entry e = tab->v[i];
		const struct rn_process *proc;
		const struct rn_maps *m;

		if (!e.value || (counts && !counts[e.id]) ||
		    (kind == RN_PROFILE_SYSCALL_CPU && !e.cpu))
			continue;
		if (counts)
			e.value = counts[e.id];
		m = entry_maps(p, t, &e, kind, &proc);
		fold_entry(&b, &e, kind, proc, m, sym, jit, src);
		if (rn_buf_failed(&b))
			continue;
		lines[nl++] = rn_xstrdup(b.buf);
	}
	qsort(lines, nl, sizeof(*lines), line_cmp);
	print_merged(out, lines, nl);
	free(lines);
	rn_buf_release(&b);
	rn_perfmaps_free(jit);
	rn_symbolizer_free(sym);
	return ferror(out) ? -EIO : 0;
}

int rn_profile_write_folded(struct rn_profile *p, const struct rn_trace *t,
			    enum rn_profile_kind kind, struct rn_srcloc *src, FILE *out)
{
	return write_table(p, t, kind == RN_PROFILE_CPU ? &p->samples : &p->syscalls, kind, NULL,
			   src, out);
}

/* ---- samples in time windows ------------------------------------------------------------- */

static int timed_cmp(const void *a, const void *b)
{
	const struct rn_profile_timed *x = a, *y = b;

	return x->time_ns < y->time_ns ? -1 : x->time_ns > y->time_ns;
}

uint64_t rn_profile_window_count(struct rn_profile_timed *s, size_t ns,
				 const struct rn_profile_window *w, size_t nw, uint64_t *counts,
				 size_t nstacks)
{
	uint8_t *seen;
	uint64_t total = 0;

	if (!ns || !nw)
		return 0;
	qsort(s, ns, sizeof(*s), timed_cmp);
	seen = rn_xcalloc(ns, 1);
	for (size_t k = 0; k < nw; k++) {
		size_t lo = 0, hi = ns;

		/* the first sample at or after the window's start */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (s[mid].time_ns < w[k].start_ns)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (size_t i = lo; i < ns && s[i].time_ns < w[k].end_ns; i++) {
			if (seen[i] || (w[k].tid && s[i].tid != w[k].tid) || s[i].stack >= nstacks)
				continue;
			seen[i] = 1;
			counts[s[i].stack]++;
			total++;
		}
	}
	free(seen);
	return total;
}

uint64_t rn_profile_untimed(const struct rn_profile *p)
{
	return p->untimed;
}

int rn_profile_write_folded_windows(struct rn_profile *p, const struct rn_trace *t,
				    const struct rn_profile_window *w, size_t nw,
				    struct rn_srcloc *src, FILE *out, uint64_t *counted)
{
	uint64_t *counts = rn_xcalloc(p->samples.n + 1, sizeof(*counts));
	uint64_t total = rn_profile_window_count(p->timed, p->ntimed, w, nw, counts, p->samples.n);
	int rc;

	if (counted)
		*counted = total;
	rc = write_table(p, t, &p->samples, RN_PROFILE_CPU, counts, src, out);
	free(counts);
	return rc;
}
