#include "trace.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "internal.h"
#include "symbolize.h"
#include "xalloc.h"

/*
 * Spool record layout (native endianness; the spool never leaves this process):
 * struct spool_rec, then nstack return addresses (uint64_t), then path_len bytes of path
 * (no NUL). Spans without a stack cost no more than before the stack was added.
 */
struct spool_rec {
	int32_t pid, tid, nr;
	uint32_t flags;
	uint64_t args[6];
	int64_t ret;
	int32_t err;
	uint32_t path_len; /* 0 = no path; UINT32_MAX never used */
	uint64_t start_ns, duration_ns;
	uint32_t nstack;   /* return addresses that follow, <= RN_SYSCALL_STACK_MAX */
	uint32_t reserved; /* 0 */
};

/* Open-addressing pid -> process index map, so lookups stay O(1) in fork-heavy trees. */
struct pid_map {
	int32_t *keys; /* pid, 0 = empty */
	int32_t *vals; /* index into procs */
	size_t cap;    /* power of two */
	size_t used;
};

static struct pid_map *map_of(const struct rn_trace *t)
{
	return (struct pid_map *)t->pid_index;
}

static size_t pid_hash(pid_t pid, size_t cap)
{
	return ((uint32_t)pid * 2654435761u) & (cap - 1);
}

static void map_put(struct pid_map *m, pid_t pid, int idx);

static void map_grow(struct pid_map *m)
{
	struct pid_map old = *m;
	size_t i;

	m->cap = old.cap ? old.cap * 2 : 64;
	m->keys = rn_xcalloc(m->cap, sizeof(*m->keys));
	m->vals = rn_xcalloc(m->cap, sizeof(*m->vals));
	m->used = 0;
	for (i = 0; i < old.cap; i++)
		if (old.keys[i])
			map_put(m, old.keys[i], old.vals[i]);
	free(old.keys);
	free(old.vals);
}

static void map_put(struct pid_map *m, pid_t pid, int idx)
{
	size_t i;

	if ((m->used + 1) * 2 > m->cap)
		map_grow(m);
	for (i = pid_hash(pid, m->cap);; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == pid) {
			m->vals[i] = idx; /* pid reuse: the newest process wins */
			return;
		}
		if (!m->keys[i]) {
			m->keys[i] = pid;
			m->vals[i] = idx;
			m->used++;
			return;
		}
	}
}

void rn_trace_init(struct rn_trace *t)
{
	memset(t, 0, sizeof(*t));
}

/* Free the latency histogram of syscall `nr` (t->latency is not NULL). */
static void drop_latency(struct rn_trace *t, int nr)
{
	if (t->latency[nr])
		rn_hist_release(t->latency[nr]);
	free(t->latency[nr]);
	t->latency[nr] = NULL;
}

void rn_trace_release(struct rn_trace *t)
{
	struct pid_map *m = map_of(t);
	size_t i;

	for (i = 0; i < t->nprocs; i++) {
		free(t->procs[i].exe);
		free(t->procs[i].comm);
		free(t->procs[i].sc);
		rn_maps_free(t->procs[i].maps);
		free(t->procs[i].reserved);
	}
	free(t->procs);
	for (i = 0; i < t->ngpu; i++) {
		free(t->gpu[i].name);
		free(t->gpu[i].region);
	}
	free(t->gpu);
	for (i = 0; i < t->napp; i++) {
		free(t->app[i].name);
		free(t->app[i].parent);
		free(t->app[i].attrs);
	}
	free(t->app);
	free(t->error);
	for (i = 0; i < t->ngaps; i++)
		free(t->gaps[i].reason);
	free(t->gaps);
	if (t->spool)
		fclose(t->spool);
	if (t->latency) {
		for (int nr = 0; nr < rn_syscall_table_size(); nr++)
			drop_latency(t, nr);
		free(t->latency);
	}
	if (m) {
		free(m->keys);
		free(m->vals);
		free(m);
	}
	rn_trace_init(t);
}

struct rn_process *rn_trace_add_process(struct rn_trace *t, pid_t pid, pid_t ppid,
					uint64_t start_ns)
{
	struct rn_process *p;
	struct pid_map *m = map_of(t);
	int parent = ppid ? rn_trace_find_process(t, ppid) : -1;

	if (!m) {
		m = rn_xcalloc(1, sizeof(*m));
		t->pid_index = m;
	}
	t->procs = rn_xgrow(t->procs, &t->procs_cap, t->nprocs + 1, sizeof(*t->procs));
	p = &t->procs[t->nprocs];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->ppid = ppid;
	p->parent = parent;
	p->reaped_by = -1;
	p->nthreads = 1;
	p->start_ns = start_ns;
	map_put(m, pid, (int)t->nprocs);
	t->nprocs++;
	return p;
}

int rn_trace_find_process(const struct rn_trace *t, pid_t pid)
{
	const struct pid_map *m = map_of(t);
	size_t i;

	if (!m || !pid)
		return -1;
	for (i = pid_hash(pid, m->cap); m->keys[i]; i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == pid)
			return m->vals[i];
	return -1;
}

void rn_process_set_exe(struct rn_process *p, const char *exe)
{
	const char *slash = strrchr(exe, '/');

	free(p->exe);
	free(p->comm);
	p->exe = rn_xstrdup(exe);
	p->comm = rn_xstrdup(slash ? slash + 1 : exe);
}

/* Syscall numbers of the memory calls, looked up once (the stop loop is hot). */
static int nr_mmap = -2, nr_munmap, nr_mremap, nr_brk, nr_mprotect;
static uint64_t page_bytes;

static void memory_nrs(void)
{
	long pg = sysconf(_SC_PAGESIZE);

	nr_mmap = rn_syscall_lookup("mmap");
	nr_munmap = rn_syscall_lookup("munmap");
	nr_mremap = rn_syscall_lookup("mremap");
	nr_brk = rn_syscall_lookup("brk");
	nr_mprotect = rn_syscall_lookup("mprotect");
	page_bytes = pg > 0 ? (uint64_t)pg : 4096;
}

/* `len` rounded up to whole pages, as the kernel maps it. */
static uint64_t page_round(uint64_t len)
{
	return len > UINT64_MAX - page_bytes ? len : (len + page_bytes - 1) & ~(page_bytes - 1);
}

/* Take [a, b) out of p's reserved ranges (splitting a range it cuts through). Returns the
 * bytes of [a, b) that were reserved. */
static uint64_t reserved_take(struct rn_process *p, uint64_t a, uint64_t b)
{
	uint64_t taken = 0;
	size_t i = 0;

	while (i < p->nreserved) {
		struct rn_addr_range *r = &p->reserved[i];
		uint64_t lo = r->start > a ? r->start : a, hi = r->end < b ? r->end : b;

		if (lo >= hi) {
			i++;
			continue;
		}
		taken += hi - lo;
		if (r->start < lo && r->end > hi) { /* [a, b) lies inside: split in two */
			struct rn_addr_range tail = { hi, r->end };

			r->end = lo;
			if (p->nreserved == p->reserved_cap) {
				p->reserved_cap = p->reserved_cap ? 2 * p->reserved_cap : 8;
				p->reserved = rn_xrealloc(p->reserved,
							  p->reserved_cap * sizeof(*p->reserved));
			}
			memmove(&p->reserved[i + 2], &p->reserved[i + 1],
				(p->nreserved - i - 1) * sizeof(*p->reserved));
			p->reserved[i + 1] = tail;
			p->nreserved++;
			break;
		}
		if (r->start < lo) {
			r->end = lo;
			i++;
		} else if (r->end > hi) {
			r->start = hi;
			i++;
		} else { /* wholly inside [a, b): drop it */
			memmove(r, r + 1, (p->nreserved - i - 1) * sizeof(*p->reserved));
			p->nreserved--;
		}
	}
	return taken;
}

/* Add [a, b) to p's reserved ranges (what it overlapped is replaced). */
static void reserved_add(struct rn_process *p, uint64_t a, uint64_t b)
{
	size_t i;

	if (a >= b)
		return;
	reserved_take(p, a, b);
	if (p->nreserved == p->reserved_cap) {
		p->reserved_cap = p->reserved_cap ? 2 * p->reserved_cap : 8;
		p->reserved = rn_xrealloc(p->reserved, p->reserved_cap * sizeof(*p->reserved));
	}
	for (i = p->nreserved; i > 0 && p->reserved[i - 1].start > a; i--)
		p->reserved[i] = p->reserved[i - 1];
	p->reserved[i].start = a;
	p->reserved[i].end = b;
	p->nreserved++;
}

/* The allocation change of a memory call other than brk, in bytes: anonymous mappings count
 * from the moment they are accessible (a PROT_NONE mapping reserves address space until
 * mprotect opens part of it, as glibc does for its arenas and thread stacks), munmap gives
 * back only what was counted. */
static int64_t map_delta(struct rn_process *p, const struct rn_syscall_event *ev)
{
	uint64_t addr, len;

	if (ev->nr == nr_mmap) {
		/* MAP_ANONYMOUS = 0x20 and PROT_NONE = 0 on every architecture renacer
		 * supports; the result is the mapping's address. */
		if (!(ev->args[3] & 0x20))
			return 0;
		addr = (uint64_t)ev->ret;
		len = page_round(ev->args[1]);
		if (ev->args[2] == 0) {
			reserved_add(p, addr, addr + len);
			return 0;
		}
		reserved_take(p, addr, addr + len); /* MAP_FIXED over a reservation */
		return (int64_t)len;
	}
	if (ev->nr == nr_munmap) {
		addr = ev->args[0];
		len = page_round(ev->args[1]);
		return -(int64_t)(len - reserved_take(p, addr, addr + len));
	}
	if (ev->nr == nr_mprotect) {
		/* Opening a reserved range allocates it; closing memory (a guard page) does not
		 * free it, and anything else is not a reservation */
		if (ev->args[2] == 0)
			return 0;
		addr = ev->args[0];
		return (int64_t)reserved_take(p, addr, addr + page_round(ev->args[1]));
	}
	/* mremap: a reservation moves as a reservation, anything else by its size change */
	addr = ev->args[0];
	len = page_round(ev->args[1]);
	if (len && reserved_take(p, addr, addr + len) == len) {
		reserved_add(p, (uint64_t)ev->ret, (uint64_t)ev->ret + page_round(ev->args[2]));
		return 0;
	}
	return (int64_t)ev->args[2] - (int64_t)ev->args[1];
}

/* The bytes of `p` that count in the tree's current total: its image's bytes less those it
 * holds as a fork copy of its parent's. */
static uint64_t tree_share(const struct rn_process *p)
{
	return p->alloc_cur_bytes > p->alloc_inherited_bytes ?
		p->alloc_cur_bytes - p->alloc_inherited_bytes :
		0;
}

/* Move the tree's current total from `before` (tree_share before a change) to p's share now. */
static void tree_update(struct rn_trace *t, const struct rn_process *p, uint64_t before)
{
	uint64_t after = tree_share(p);

	if (after >= before) {
		t->alloc_cur_bytes += after - before;
	} else {
		uint64_t down = before - after;

		t->alloc_cur_bytes = down < t->alloc_cur_bytes ? t->alloc_cur_bytes - down : 0;
	}
	if (t->alloc_cur_bytes > t->alloc_peak_bytes)
		t->alloc_peak_bytes = t->alloc_cur_bytes;
}

void rn_trace_image_fork(struct rn_trace *t, struct rn_process *child,
			 const struct rn_process *parent, bool shares_vm)
{
	uint64_t before = tree_share(child);

	if (shares_vm || !parent)
		return;
	child->nreserved = 0;
	if (parent->nreserved) {
		child->reserved_cap = parent->nreserved;
		child->reserved =
			rn_xrealloc(child->reserved, parent->nreserved * sizeof(*child->reserved));
		memcpy(child->reserved, parent->reserved,
		       parent->nreserved * sizeof(*child->reserved));
		child->nreserved = parent->nreserved;
	}
	child->brk_cur = parent->brk_cur;
	child->alloc_cur_bytes = parent->alloc_cur_bytes;
	child->alloc_inherited_bytes = parent->alloc_cur_bytes;
	if (child->alloc_cur_bytes > child->alloc_peak_bytes)
		child->alloc_peak_bytes = child->alloc_cur_bytes;
	tree_update(t, child, before);
}

void rn_trace_image_end(struct rn_trace *t, struct rn_process *p)
{
	uint64_t before = tree_share(p);

	p->alloc_cur_bytes = 0;
	p->alloc_inherited_bytes = 0;
	p->brk_cur = 0;
	p->nreserved = 0;
	tree_update(t, p, before);
}

void rn_trace_image_map(struct rn_trace *t, struct rn_process *p, uint64_t bytes)
{
	uint64_t before = tree_share(p);

	p->alloc_cur_bytes += bytes;
	p->alloc_total_bytes += bytes;
	t->alloc_total_bytes += bytes;
	if (p->alloc_cur_bytes > p->alloc_peak_bytes)
		p->alloc_peak_bytes = p->alloc_cur_bytes;
	tree_update(t, p, before);
}

/* Anonymous-memory accounting from the arguments and results of memory syscalls, in the
 * current image of `p` (see rn_trace_image_end: an exec restarts it). */
static void account_memory(struct rn_trace *t, struct rn_process *p,
			   const struct rn_syscall_event *ev)
{
	uint64_t before = tree_share(p);
	int64_t delta = 0;

	if (ev->err || (ev->flags & RN_SC_UNFINISHED))
		return;
	if (nr_mmap == -2)
		memory_nrs();
	if (ev->nr == nr_mmap || ev->nr == nr_munmap || ev->nr == nr_mremap ||
	    ev->nr == nr_mprotect) {
		delta = map_delta(p, ev);
	} else if (ev->nr == nr_brk) {
		/* brk(0) queries the break; later calls move it. Track growth from the image's
		 * first answer (brk_cur is 0 again after an exec: the new image's break is
		 * elsewhere, and a difference with the old one would be garbage). A brk(0)
		 * takes the answer as the base too. */
		if (!p->brk_cur || !ev->args[0]) {
			p->brk_cur = (uint64_t)ev->ret;
			return;
		}
		delta = (int64_t)((uint64_t)ev->ret - p->brk_cur);
		p->brk_cur = (uint64_t)ev->ret;
	} else {
		return;
	}
	if (delta > 0) {
		p->alloc_total_bytes += (uint64_t)delta;
		t->alloc_total_bytes += (uint64_t)delta;
	}
	/* munmap of file mappings is indistinguishable here: clamp at zero. */
	if (delta < 0 && (uint64_t)-delta > p->alloc_cur_bytes)
		delta = -(int64_t)p->alloc_cur_bytes;
	p->alloc_cur_bytes = (uint64_t)((int64_t)p->alloc_cur_bytes + delta);
	if (p->alloc_inherited_bytes > p->alloc_cur_bytes)
		p->alloc_inherited_bytes = p->alloc_cur_bytes;
	if (p->alloc_cur_bytes > p->alloc_peak_bytes)
		p->alloc_peak_bytes = p->alloc_cur_bytes;
	tree_update(t, p, before);
}

static void spool_write(struct rn_trace *t, const struct rn_syscall_event *ev)
{
	struct spool_rec r;
	size_t plen = ev->path ? strlen(ev->path) : 0;

	memset(&r, 0, sizeof(r));
	r.pid = ev->pid;
	r.tid = ev->tid;
	r.nr = ev->nr;
	r.flags = ev->flags;
	memcpy(r.args, ev->args, sizeof(r.args));
	r.ret = ev->ret;
	r.err = ev->err;
	r.path_len = (uint32_t)plen;
	r.start_ns = ev->start_ns;
	r.duration_ns = ev->duration_ns;
	r.nstack = ev->nstack <= RN_SYSCALL_STACK_MAX ? ev->nstack : RN_SYSCALL_STACK_MAX;
	if (fwrite(&r, sizeof(r), 1, t->spool) != 1 ||
	    (r.nstack && fwrite(ev->stack, sizeof(ev->stack[0]), r.nstack, t->spool) != r.nstack) ||
	    (plen && fwrite(ev->path, 1, plen, t->spool) != plen)) {
		rn_trace_fail(t, RN_RUN_ERROR, "cannot write the span spool: %s", strerror(errno));
		fclose(t->spool);
		t->spool = NULL;
		return;
	}
	t->spooled++;
}

void rn_trace_syscall(struct rn_trace *t, struct rn_process *p, const struct rn_syscall_event *ev)
{
	int i, n = rn_syscall_table_size();

	/* A call that never returned (exit_group, a thread's call cut off by exit_group or by
	 * another thread's execve) is not counted: strace -c counts calls at their exit. Sinks
	 * and the spool still see it. */
	if (ev->flags & RN_SC_UNFINISHED)
		goto out_sinks;
	if (ev->nr >= 0 && ev->nr < n) {
		struct rn_syscall_stat *s;

		if (!p->sc)
			p->sc = rn_xcalloc((size_t)n, sizeof(*p->sc));
		s = &p->sc[ev->nr];
		s->calls++;
		if (ev->err)
			s->errors++;
		s->total_ns += ev->duration_ns;
		if (s->calls == 1 || ev->duration_ns < s->min_ns)
			s->min_ns = ev->duration_ns;
		if (ev->duration_ns > s->max_ns)
			s->max_ns = ev->duration_ns;
		if (t->latency) {
			if (!t->latency[ev->nr]) {
				t->latency[ev->nr] = rn_xmalloc(sizeof(struct rn_hist));
				rn_hist_init(t->latency[ev->nr]);
			}
			rn_hist_record(t->latency[ev->nr], ev->duration_ns);
		}
	}
	p->syscalls++;
	if (ev->err)
		p->syscall_errors++;
	p->syscall_ns += ev->duration_ns;
	account_memory(t, p, ev);
out_sinks:
	for (i = 0; i < t->nsinks; i++)
		if (t->sinks[i].syscall)
			t->sinks[i].syscall(t->sinks[i].ctx, t, ev);
	if (t->spool)
		spool_write(t, ev);
}

void rn_trace_latency_enable(struct rn_trace *t)
{
	if (!t->latency)
		t->latency = rn_xcalloc((size_t)rn_syscall_table_size(), sizeof(*t->latency));
}

const struct rn_hist *rn_trace_latency(const struct rn_trace *t, int nr)
{
	if (!t->latency || nr < 0 || nr >= rn_syscall_table_size())
		return NULL;
	return t->latency[nr];
}

void rn_process_set_end(struct rn_process *p, int wait_status, bool lost)
{
	if (lost) {
		p->end = RN_PROC_LOST;
		p->term_signal = WIFSIGNALED(wait_status) ? WTERMSIG(wait_status) : 0;
		p->exit_code = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 0;
	} else if (WIFSIGNALED(wait_status)) {
		p->end = RN_PROC_SIGNALED;
		p->term_signal = WTERMSIG(wait_status);
		p->core_dumped = WCOREDUMP(wait_status);
	} else {
		p->end = RN_PROC_EXITED;
		p->exit_code = WEXITSTATUS(wait_status);
	}
}

void rn_trace_process_event(struct rn_trace *t, const struct rn_process *p, char event)
{
	int i;

	for (i = 0; i < t->nsinks; i++)
		if (t->sinks[i].process)
			t->sinks[i].process(t->sinks[i].ctx, t, p, event);
}

int rn_trace_add_sink(struct rn_trace *t, const struct rn_trace_sink *sink)
{
	if (t->nsinks >= RN_TRACE_MAX_SINKS)
		return -ENOSPC;
	t->sinks[t->nsinks++] = *sink;
	return 0;
}

struct rn_gpu_span *rn_trace_add_gpu(struct rn_trace *t, const struct rn_gpu_span *span)
{
	struct rn_gpu_span *g;

	t->gpu = rn_xgrow(t->gpu, &t->gpu_cap, t->ngpu + 1, sizeof(*t->gpu));
	g = &t->gpu[t->ngpu++];
	*g = *span;
	g->name = rn_xstrdup(span->name ? span->name : "unnamed");
	g->region = span->region ? rn_xstrdup(span->region) : NULL;
	return g;
}

/* The pid in `dst` of the process that `pid` is in `src`: the same birth order, else dst's root. */
static pid_t mapped_pid(const struct rn_trace *dst, const struct rn_trace *src, pid_t pid)
{
	int i = rn_trace_find_process(src, pid);

	if (i >= 0 && (size_t)i < dst->nprocs)
		return dst->procs[i].pid;
	return dst->nprocs ? dst->procs[0].pid : pid;
}

void rn_trace_take_gpu(struct rn_trace *dst, struct rn_trace *src)
{
	int64_t shift = (int64_t)(dst->start_ns - src->start_ns);
	size_t i;

	dst->gpu = rn_xgrow(dst->gpu, &dst->gpu_cap, dst->ngpu + src->ngpu, sizeof(*dst->gpu));
	for (i = 0; i < src->ngpu; i++) {
		struct rn_gpu_span *g = &dst->gpu[dst->ngpu++];

		*g = src->gpu[i]; /* its name and region move with it */
		g->pid = mapped_pid(dst, src, g->pid);
		g->start_ns = (uint64_t)((int64_t)g->start_ns + shift);
		g->end_ns = (uint64_t)((int64_t)g->end_ns + shift);
		if (g->submit_ns)
			g->submit_ns = (uint64_t)((int64_t)g->submit_ns + shift);
	}
	src->ngpu = 0;
	for (i = 0; i < src->ngaps; i++) {
		const struct rn_trace_gap *gap = &src->gaps[i];

		if (gap->scope & RN_GAP_GPU_SPANS)
			rn_trace_add_gap(dst, gap->kind, gap->scope, gap->source, gap->count, "%s",
					 gap->reason);
	}
}

struct rn_app_span *rn_trace_add_app(struct rn_trace *t, const struct rn_app_span *span)
{
	struct rn_app_span *a;

	t->app = rn_xgrow(t->app, &t->app_cap, t->napp + 1, sizeof(*t->app));
	a = &t->app[t->napp++];
	*a = *span;
	a->name = rn_xstrdup(span->name ? span->name : "unnamed");
	a->parent = span->parent ? rn_xstrdup(span->parent) : NULL;
	a->attrs = span->attrs ? rn_xstrdup(span->attrs) : NULL;
	return a;
}

void rn_trace_fail(struct rn_trace *t, enum rn_run_status status, const char *fmt, ...)
{
	va_list ap;
	char tmp[1024];

	va_start(ap, fmt);
	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	free(t->error);
	t->error = rn_xstrdup(tmp);
	t->status = status;
}

void rn_trace_add_gap(struct rn_trace *t, enum rn_gap_kind kind, uint32_t scope, const char *source,
		      uint64_t count, const char *fmt, ...)
{
	struct rn_trace_gap *g;
	va_list ap;
	char tmp[512];
	size_t i;

	for (i = 0; i < t->ngaps; i++) {
		g = &t->gaps[i];
		if (g->kind == kind && g->scope == scope && !strcmp(g->source, source)) {
			/* unknown stays unknown: a count of 0 means "how many is not known" */
			g->count = g->count && count ? g->count + count : 0;
			return;
		}
	}
	va_start(ap, fmt);
	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	t->gaps = rn_xrealloc(t->gaps, (t->ngaps + 1) * sizeof(*t->gaps));
	g = &t->gaps[t->ngaps++];
	g->kind = kind;
	g->scope = scope;
	g->source = source;
	g->count = count;
	g->reason = rn_xstrdup(tmp);
}

const char *rn_gap_kind_name(enum rn_gap_kind kind)
{
	switch (kind) {
	case RN_GAP_DROPPED:
		return "dropped";
	case RN_GAP_UNTIMED:
		return "untimed";
	case RN_GAP_SPOOL:
		return "spool";
	}
	return "?";
}

int rn_trace_spool_enable(struct rn_trace *t)
{
	if (t->spool)
		return 0;
	t->spool = tmpfile();
	if (!t->spool)
		return -errno;
	/* The spool is opened before the target is spawned: without close-on-exec every target
	 * inherits it (an extra fd that shifts its fd numbers, and renacer's data open to it). */
	if (fcntl(fileno(t->spool), F_SETFD, FD_CLOEXEC) < 0) {
		int err = -errno;

		fclose(t->spool);
		t->spool = NULL;
		return err;
	}
	return 0;
}

int rn_trace_spool_foreach(struct rn_trace *t,
			   int (*fn)(void *ctx, const struct rn_syscall_event *ev), void *ctx)
{
	char path[RN_PATH_MAX];
	struct spool_rec r;
	int rc = 0;

	if (!t->spool)
		return 0;
	if (fflush(t->spool) || fseek(t->spool, 0, SEEK_SET))
		return -errno;
	while (fread(&r, sizeof(r), 1, t->spool) == 1) {
		struct rn_syscall_event ev;

		if (r.path_len >= sizeof(path) || r.nstack > RN_SYSCALL_STACK_MAX) {
			rc = -EIO;
			break;
		}
		memset(&ev, 0, sizeof(ev));
		if (r.nstack &&
		    fread(ev.stack, sizeof(ev.stack[0]), r.nstack, t->spool) != r.nstack) {
			rc = -EIO;
			break;
		}
		ev.nstack = (uint8_t)r.nstack;
		if (r.path_len && fread(path, 1, r.path_len, t->spool) != r.path_len) {
			rc = -EIO;
			break;
		}
		path[r.path_len] = '\0';
		ev.pid = r.pid;
		ev.tid = r.tid;
		ev.nr = r.nr;
		ev.flags = r.flags;
		memcpy(ev.args, r.args, sizeof(ev.args));
		ev.ret = r.ret;
		ev.err = r.err;
		ev.start_ns = r.start_ns;
		ev.duration_ns = r.duration_ns;
		ev.path = r.path_len ? path : NULL;
		rc = fn(ctx, &ev);
		if (rc)
			break;
	}
	fseek(t->spool, 0, SEEK_END);
	return rc;
}

struct rn_syscall_stat rn_trace_syscall_total(const struct rn_trace *t, int nr)
{
	struct rn_syscall_stat s;
	size_t i;

	memset(&s, 0, sizeof(s));
	if (nr < 0 || nr >= rn_syscall_table_size())
		return s;
	for (i = 0; i < t->nprocs; i++) {
		const struct rn_syscall_stat *p;

		if (!t->procs[i].sc)
			continue;
		p = &t->procs[i].sc[nr];
		if (!p->calls)
			continue;
		if (!s.calls || p->min_ns < s.min_ns)
			s.min_ns = p->min_ns;
		if (p->max_ns > s.max_ns)
			s.max_ns = p->max_ns;
		s.calls += p->calls;
		s.errors += p->errors;
		s.total_ns += p->total_ns;
	}
	return s;
}

void rn_trace_forget_syscall(struct rn_trace *t, int nr)
{
	size_t i;

	if (nr < 0 || nr >= rn_syscall_table_size())
		return;
	for (i = 0; i < t->nprocs; i++) {
		struct rn_process *p = &t->procs[i];

		if (!p->sc)
			continue;
		p->syscalls -= p->sc[nr].calls < p->syscalls ? p->sc[nr].calls : p->syscalls;
		p->syscall_errors -=
			p->sc[nr].errors < p->syscall_errors ? p->sc[nr].errors : p->syscall_errors;
		memset(&p->sc[nr], 0, sizeof(p->sc[nr]));
	}
	if (t->latency)
		drop_latency(t, nr);
}

uint64_t rn_trace_total_syscalls(const struct rn_trace *t)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < t->nprocs; i++)
		n += t->procs[i].syscalls;
	return n;
}

uint64_t rn_trace_wall_ns(const struct rn_trace *t)
{
	return t->end_ns > t->start_ns ? t->end_ns - t->start_ns : 0;
}

/* Order lifetime edges by time; at equal times ends come first (no false overlap). */
struct edge {
	uint64_t ns;
	int64_t delta;
};

static int edge_cmp(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns < y->ns ? -1 : 1;
	return x->delta < y->delta ? -1 : x->delta > y->delta;
}

void rn_trace_finish_memory(struct rn_trace *t)
{
	struct edge *e = rn_xcalloc(t->nprocs * 2 + 1, sizeof(*e));
	uint64_t cur = 0, peak = 0;
	size_t i, n = 0;

	for (i = 0; i < t->nprocs; i++) {
		const struct rn_process *p = &t->procs[i];
		uint64_t end = p->end_ns ? p->end_ns : t->end_ns;

		if (p->vm_hwm_bytes > t->max_rss_bytes)
			t->max_rss_bytes = p->vm_hwm_bytes;
		if (!p->vm_hwm_bytes)
			continue;
		e[n++] = (struct edge){ p->start_ns, (int64_t)p->vm_hwm_bytes };
		e[n++] = (struct edge){ end, -(int64_t)p->vm_hwm_bytes };
	}
	qsort(e, n, sizeof(*e), edge_cmp);
	for (i = 0; i < n; i++) {
		cur = (uint64_t)((int64_t)cur + e[i].delta);
		if (cur > peak)
			peak = cur;
	}
	free(e);
	t->peak_rss_bytes = peak > t->max_rss_bytes ? peak : t->max_rss_bytes;
}

/* Union of GPU span intervals: sort by start and sweep. */
static int gpu_cmp(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

uint64_t rn_trace_gpu_busy_ns(const struct rn_trace *t)
{
	uint64_t *iv, busy = 0, cs = 0, ce = 0;
	size_t i, n = 0;

	if (!t->ngpu)
		return 0;
	iv = rn_xcalloc(t->ngpu * 2, sizeof(*iv));
	for (i = 0; i < t->ngpu; i++) {
		/* Submit spans contain the command buffers they carry: count each instant once.
		 * Regions are host intervals and graph replays cover their kernels. */
		if (t->gpu[i].end_ns <= t->gpu[i].start_ns || !rn_gpu_kind_is_work(t->gpu[i].kind))
			continue;
		iv[2 * n] = t->gpu[i].start_ns;
		iv[2 * n + 1] = t->gpu[i].end_ns;
		n++;
	}
	qsort(iv, n, 2 * sizeof(*iv), gpu_cmp);
	for (i = 0; i < n; i++) {
		if (!i || iv[2 * i] > ce) {
			busy += ce - cs;
			cs = iv[2 * i];
			ce = iv[2 * i + 1];
		} else if (iv[2 * i + 1] > ce) {
			ce = iv[2 * i + 1];
		}
	}
	busy += ce - cs;
	free(iv);
	return busy;
}

/* ---- Names of the model's enums ----------------------------------------------------------- */

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const char *const run_status_names[] = {
	[RN_RUN_OK] = "ok",
	[RN_RUN_EXEC_FAILED] = "exec_failed",
	[RN_RUN_CRASHED] = "crashed",
	[RN_RUN_TIMED_OUT] = "timed_out",
	[RN_RUN_INTERRUPTED] = "interrupted",
	[RN_RUN_LIMIT] = "limit",
	[RN_RUN_ERROR] = "error",
};

static const char *const proc_end_names[] = {
	[RN_PROC_RUNNING] = "running",
	[RN_PROC_EXITED] = "exited",
	[RN_PROC_SIGNALED] = "signaled",
	[RN_PROC_LOST] = "lost",
};

static const char *const gpu_dir_names[] = {
	[RN_GPU_DIR_NONE] = "none",           [RN_GPU_DIR_HTOD] = "host_to_device",
	[RN_GPU_DIR_DTOH] = "device_to_host", [RN_GPU_DIR_DTOD] = "device_to_device",
	[RN_GPU_DIR_HTOH] = "host_to_host",
};

static const char *name_of(const char *const *names, size_t n, size_t i)
{
	return i < n ? names[i] : NULL;
}

static int index_of(const char *const *names, size_t n, const char *name)
{
	size_t i;

	for (i = 0; name && i < n; i++)
		if (names[i] && !strcmp(names[i], name))
			return (int)i;
	return -1;
}

const char *rn_run_status_name(enum rn_run_status status)
{
	return name_of(run_status_names, ARRAY_SIZE(run_status_names), (size_t)status);
}

const char *rn_proc_end_name(enum rn_proc_end end)
{
	return name_of(proc_end_names, ARRAY_SIZE(proc_end_names), (size_t)end);
}

const char *rn_gpu_dir_name(enum rn_gpu_dir dir)
{
	return name_of(gpu_dir_names, ARRAY_SIZE(gpu_dir_names), (size_t)dir);
}

int rn_run_status_lookup(const char *name)
{
	return index_of(run_status_names, ARRAY_SIZE(run_status_names), name);
}

int rn_proc_end_lookup(const char *name)
{
	return index_of(proc_end_names, ARRAY_SIZE(proc_end_names), name);
}

static const char *const signal_names[] = {
	[SIGHUP] = "SIGHUP",       [SIGINT] = "SIGINT",       [SIGQUIT] = "SIGQUIT",
	[SIGILL] = "SIGILL",       [SIGTRAP] = "SIGTRAP",     [SIGABRT] = "SIGABRT",
	[SIGBUS] = "SIGBUS",       [SIGFPE] = "SIGFPE",       [SIGKILL] = "SIGKILL",
	[SIGUSR1] = "SIGUSR1",     [SIGSEGV] = "SIGSEGV",     [SIGUSR2] = "SIGUSR2",
	[SIGPIPE] = "SIGPIPE",     [SIGALRM] = "SIGALRM",     [SIGTERM] = "SIGTERM",
	[SIGSTKFLT] = "SIGSTKFLT", [SIGCHLD] = "SIGCHLD",     [SIGCONT] = "SIGCONT",
	[SIGSTOP] = "SIGSTOP",     [SIGTSTP] = "SIGTSTP",     [SIGTTIN] = "SIGTTIN",
	[SIGTTOU] = "SIGTTOU",     [SIGURG] = "SIGURG",       [SIGXCPU] = "SIGXCPU",
	[SIGXFSZ] = "SIGXFSZ",     [SIGVTALRM] = "SIGVTALRM", [SIGPROF] = "SIGPROF",
	[SIGWINCH] = "SIGWINCH",   [SIGIO] = "SIGIO",         [SIGPWR] = "SIGPWR",
	[SIGSYS] = "SIGSYS",
};

const char *rn_signal_name(int sig)
{
	static char other[24];

	if (sig > 0 && (size_t)sig < sizeof(signal_names) / sizeof(signal_names[0]) &&
	    signal_names[sig])
		return signal_names[sig];
	if (sig >= 32 && sig <= 64) {
		snprintf(other, sizeof(other), "SIGRT_%d", sig - 32);
		return other;
	}
	snprintf(other, sizeof(other), "SIG%d", sig);
	return other;
}

const char *rn_gpu_kind_name(enum rn_gpu_kind kind)
{
	switch (kind) {
	case RN_GPU_DISPATCH:
		return "dispatch";
	case RN_GPU_COPY:
		return "copy";
	case RN_GPU_RENDER_PASS:
		return "render_pass";
	case RN_GPU_CMDBUF:
		return "cmdbuf";
	case RN_GPU_SUBMIT:
		return "submit";
	case RN_GPU_REGION:
		return "region";
	case RN_GPU_GRAPH:
		return "graph";
	}
	return "unknown";
}

bool rn_gpu_kind_is_work(enum rn_gpu_kind kind)
{
	return kind <= RN_GPU_SUBMIT;
}

void rn_gpu_span_match_name(const struct rn_gpu_span *g, char *out, size_t cap)
{
	if (g->kind == RN_GPU_GRAPH)
		snprintf(out, cap, "%s", g->name); /* already "graph:<id>" */
	else
		snprintf(out, cap, "%s:%s", g->kind == RN_GPU_REGION ? "region" : "gpu", g->name);
}

const char *rn_gpu_display_name(const char *name, size_t max, char *out, size_t cap)
{
	size_t len = strlen(name), head;

	if (max < 16)
		max = 16;
	if (max >= cap)
		max = cap - 1;
	if (len <= max) {
		memcpy(out, name, len + 1);
		return out;
	}
	head = max - 23;
	memcpy(out, name, head);
	memcpy(out + head, "...", 3);
	memcpy(out + head + 3, name + len - 20, 20);
	out[max] = 0;
	return out;
}
