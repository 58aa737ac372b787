#include "perfetto.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "internal.h"
#include "json_text.h"
#include "safefile.h"
#include "log.h"
#include "xalloc.h"

/* Reals as "%.15g": exact to the nanosecond for timelines up to about eleven days, and no
 * binary-to-decimal noise ("0.10000000000000001") in the file. */
#define DUMP_FLAGS (JSON_COMPACT | JSON_REAL_PRECISION(15))

struct writer {
	FILE *f;          /* the temporary file */
	uint64_t base_ns; /* CLOCK_MONOTONIC ns that becomes ts 0 */
	size_t events;    /* events written (for the separating commas) */
	int err;          /* first write error, negative errno */
	int next_pid;     /* next track number */
};

static json_t *jint(int64_t v)
{
	return json_integer((json_int_t)v);
}

static json_t *ju64(uint64_t v)
{
	return json_integer(v > INT64_MAX ? INT64_MAX : (json_int_t)v);
}

/* Microseconds since the base, as the format wants them. */
static double us(const struct writer *w, uint64_t ns)
{
	return ns >= w->base_ns ? (double)(ns - w->base_ns) / 1000.0 :
				  -(double)(w->base_ns - ns) / 1000.0;
}

/* Write one event (consumed) to the array, or record an error. */
static void emit(struct writer *w, json_t *ev)
{
	if (w->err)
		goto out;
	if (!ev) {
		w->err = -ENOMEM;
		goto out;
	}
	if ((w->events && fputs(",\n", w->f) == EOF) || json_dumpf(ev, w->f, DUMP_FLAGS)) {
		w->err = errno ? -errno : -EIO;
		goto out;
	}
	w->events++;
out:
	json_decref(ev);
}

/* ph "M" metadata: process_name, process_labels, thread_name. */
static void meta(struct writer *w, const char *what, int pid, int64_t tid, const char *key,
		 const char *value)
{
	emit(w,
	     json_pack("{s:s, s:s, s:i, s:I, s:{s:o}}", "name", what, "ph", "M", "pid", pid, "tid",
		       (json_int_t)tid, "args", key, rn_json_text(value)));
}

/* ph "X" complete event; `args` is consumed. */
static void slice(struct writer *w, const char *name, const char *cat, int pid, int64_t tid,
		  uint64_t start_ns, uint64_t dur_ns, json_t *args)
{
	json_t *ev = json_pack("{s:o, s:s, s:s, s:f, s:f, s:i, s:I, s:o}", "name",
			       rn_json_text(name), "cat", cat, "ph", "X", "ts", us(w, start_ns),
			       "dur", (double)dur_ns / 1000.0, "pid", pid, "tid", (json_int_t)tid,
			       "args", args ? args : json_object());

	emit(w, ev);
}

static void set(json_t *o, const char *k, json_t *v)
{
	if (o && v)
		json_object_set_new(o, k, v);
	else
		json_decref(v);
}

/* Set of threads whose thread_name was written: open addressing over (process, tid) keys. */
struct tidset {
	int64_t *keys; /* key + 1, 0 = empty slot */
	size_t cap;    /* slots, a power of two or 0 */
	size_t used;   /* keys stored */
};

static size_t tid_slot(int64_t key, size_t cap)
{
	return (size_t)(((uint64_t)key * 0x9e3779b97f4a7c15ull) >> 17) & (cap - 1);
}

/* Add key (>= 0); true when it was not there yet. Dies on out-of-memory. */
static bool tidset_add(struct tidset *s, int64_t key)
{
	size_t i;

	if ((s->used + 1) * 2 > s->cap) {
		struct tidset big = { NULL, s->cap ? s->cap * 2 : 64, 0 };

		big.keys = rn_xcalloc(big.cap, sizeof(*big.keys));
		for (i = 0; i < s->cap; i++)
			if (s->keys[i])
				tidset_add(&big, s->keys[i] - 1);
		free(s->keys);
		*s = big;
	}
	for (i = tid_slot(key, s->cap);; i = (i + 1) & (s->cap - 1)) {
		if (!s->keys[i]) {
			s->keys[i] = key + 1;
			s->used++;
			return true;
		}
		if (s->keys[i] == key + 1)
			return false;
	}
}

/* Per-target state. */
struct target {
	const struct rn_target_result *r; /* the target */
	int pid0;                         /* track of procs[0]; procs[k] is pid0 + k */
	int gpu_pid;                      /* the GPU track, 0 if no GPU spans */
	struct tidset threads;            /* threads named so far */
};

/* Record that thread `tid` of process k (k == nprocs: the GPU track) exists; true the first
 * time, when its thread_name is due. */
static bool thread_seen(struct target *t, size_t k, int64_t tid)
{
	return tidset_add(&t->threads, ((int64_t)k << 32) | (tid & 0xffffffff));
}

static int proc_at(const struct rn_trace *tr, pid_t pid, uint64_t ns)
{
	int i = rn_trace_find_process(tr, pid);

	if (i < 0 || tr->procs[i].start_ns <= ns)
		return i;
	for (i--; i >= 0; i--)
		if (tr->procs[i].pid == pid && tr->procs[i].start_ns <= ns)
			return i;
	return -1;
}

static uint64_t proc_end(const struct rn_trace *tr, const struct rn_process *p)
{
	uint64_t end = p->end_ns ? p->end_ns : tr->end_ns;

	return end > p->start_ns ? end : p->start_ns;
}

static void write_process(struct writer *w, struct target *t, size_t k)
{
	const struct rn_trace *tr = &t->r->last;
	const struct rn_process *p = &tr->procs[k];
	int pid = t->pid0 + (int)k;
	json_t *args = json_object();
	char name[512];

	snprintf(name, sizeof(name), "%s (pid %d) [%s]", p->comm ? p->comm : "?", (int)p->pid,
		 t->r->name ? t->r->name : "");
	meta(w, "process_name", pid, 0, "name", name);
	meta(w, "process_labels", pid, 0, "labels", t->r->name);
	if (thread_seen(t, k, p->pid))
		meta(w, "thread_name", pid, p->pid, "name", p->comm ? p->comm : "main");
	set(args, "pid", jint(p->pid));
	set(args, "ppid", jint(p->ppid));
	if (p->exe)
		set(args, "exe", rn_json_text(p->exe));
	if (p->build_id[0])
		set(args, "build_id", rn_json_text(p->build_id));
	set(args, "end",
	    rn_json_text(rn_proc_end_name(p->end) ? rn_proc_end_name(p->end) : "unknown"));
	if (p->end == RN_PROC_EXITED)
		set(args, "exit_code", jint(p->exit_code));
	if (p->end == RN_PROC_SIGNALED)
		set(args, "signal", jint(p->term_signal));
	set(args, "threads", ju64(p->nthreads));
	set(args, "syscalls", ju64(p->syscalls));
	set(args, "syscall_errors", ju64(p->syscall_errors));
	set(args, "syscall_time_ns", ju64(p->syscall_ns));
	if (p->vm_hwm_bytes)
		set(args, "peak_rss_bytes", ju64(p->vm_hwm_bytes));
	snprintf(name, sizeof(name), "process:%s", p->comm ? p->comm : "?");
	slice(w, name, "process", pid, p->pid, p->start_ns, proc_end(tr, p) - p->start_ns, args);
}

/* Without a spool: one slice per process summarizing its syscalls. */
static void write_aggregate(struct writer *w, struct target *t, size_t k)
{
	const struct rn_trace *tr = &t->r->last;
	const struct rn_process *p = &tr->procs[k];
	uint64_t life = proc_end(tr, p) - p->start_ns, dur = p->syscall_ns;
	json_t *args, *per;
	int nr, n = rn_syscall_table_size();

	if (!p->syscalls)
		return;
	args = json_object();
	per = json_object();
	set(args, "calls", ju64(p->syscalls));
	set(args, "errors", ju64(p->syscall_errors));
	set(args, "total_ns", ju64(p->syscall_ns));
	for (nr = 0; p->sc && nr < n; nr++) {
		const struct rn_syscall_stat *s = &p->sc[nr];

		if (!s->calls)
			continue;
		set(per, rn_syscall_name(nr),
		    json_pack("{s:o, s:o, s:o}", "calls", ju64(s->calls), "errors", ju64(s->errors),
			      "total_ns", ju64(s->total_ns)));
	}
	set(args, "by_syscall", per);
	if (life && dur > life)
		dur = life;
	slice(w, "syscalls", "syscall", t->pid0 + (int)k, p->pid, p->start_ns, dur, args);
}

struct spool_ctx {
	struct writer *w; /* output */
	struct target *t; /* the target */
};

static int spool_event(void *vctx, const struct rn_syscall_event *ev)
{
	struct spool_ctx *c = vctx;
	struct target *t = c->t;
	const struct rn_trace *tr = &t->r->last;
	int k = proc_at(tr, ev->pid, ev->start_ns);
	json_t *args = json_object();
	int pid;

	if (k < 0) {
		/* A span of a process the model does not know: give it the root's track rather
		 * than dropping it, so every recorded span has its slice. */
		k = 0;
	}
	pid = t->pid0 + k;
	if (thread_seen(t, (size_t)k, ev->tid)) {
		char name[64];

		snprintf(name, sizeof(name), "%s%d", ev->tid == ev->pid ? "main " : "thread ",
			 (int)ev->tid);
		meta(c->w, "thread_name", pid, ev->tid, "name", name);
	}
	set(args, "pid", jint(ev->pid));
	set(args, "tid", jint(ev->tid));
	if (ev->flags & RN_SC_UNFINISHED)
		set(args, "unfinished", json_true());
	else
		set(args, "ret", jint(ev->ret));
	if (ev->err)
		set(args, "errno", rn_json_text(rn_errno_name(ev->err)));
	if (ev->path)
		set(args, "path", rn_json_text(ev->path));
	if (ev->flags & RN_SC_RESTARTED)
		set(args, "restarted", json_true());
	slice(c->w, rn_syscall_name(ev->nr), "syscall", pid, ev->tid, ev->start_ns,
	      (ev->flags & RN_SC_UNFINISHED) ? 0 : ev->duration_ns, args);
	return c->w->err;
}

static void write_gpu(struct writer *w, struct target *t)
{
	const struct rn_trace *tr = &t->r->last;
	size_t i;

	if (!tr->ngpu)
		return;
	t->gpu_pid = w->next_pid++;
	meta(w, "process_name", t->gpu_pid, 0, "name", "GPU");
	meta(w, "process_labels", t->gpu_pid, 0, "labels", t->r->name);
	for (i = 0; i < tr->ngpu; i++) {
		const struct rn_gpu_span *g = &tr->gpu[i];
		int64_t tid = (int64_t)g->queue_family + 1; /* tid 0 is the process itself */
		json_t *args = json_object();
		char name[300];

		if (thread_seen(t, tr->nprocs, tid)) {
			snprintf(name, sizeof(name), "queue family %u", g->queue_family);
			meta(w, "thread_name", t->gpu_pid, tid, "name", name);
		}
		set(args, "kind", rn_json_text(rn_gpu_kind_name(g->kind)));
		set(args, "pid", jint(g->pid));
		set(args, "queue_family", ju64(g->queue_family));
		if (g->kind == RN_GPU_DISPATCH && !(g->flags & RN_GPU_INDIRECT))
			set(args, "groups",
			    json_pack("[I, I, I]", (json_int_t)g->groups[0],
				      (json_int_t)g->groups[1], (json_int_t)g->groups[2]));
		if (g->flags & RN_GPU_INDIRECT)
			set(args, "indirect", json_true());
		if (g->bytes)
			set(args, "bytes", ju64(g->bytes));
		if (g->dir != RN_GPU_DIR_NONE && rn_gpu_dir_name(g->dir))
			set(args, "direction", rn_json_text(rn_gpu_dir_name(g->dir)));
		if (g->flags & RN_GPU_SERIALIZED)
			set(args, "serialized", json_true());
		if (g->flags & RN_GPU_WAITED)
			set(args, "waited", json_true());
		if (g->region)
			set(args, "region", rn_json_text(g->region));
		if (g->graph_id)
			set(args, "graph", ju64(g->graph_id));
		if (g->graph_node_id)
			set(args, "graph_node", ju64(g->graph_node_id));
		if (g->flags & RN_GPU_UNCLOSED)
			set(args, "unclosed", json_true());
		set(args, "uncertainty_ns", ju64(g->uncertainty_ns));
		{
			/* Full names, however long (templated C++ kernels): "gpu:<name>",
			 * "region:<name>", "graph:<id>" as span_count matches them. */
			size_t cap = strlen(g->name ? g->name : "unnamed") + 16;
			char *full = rn_xmalloc(cap);

			if (g->name)
				rn_gpu_span_match_name(g, full, cap);
			else
				snprintf(full, cap, "gpu:unnamed");
			slice(w, full, "gpu", t->gpu_pid, tid, g->start_ns,
			      g->end_ns > g->start_ns ? g->end_ns - g->start_ns : 0, args);
			free(full);
		}
	}
}

/* The program's own spans: slices "app:<name>" on its process's track, on the thread that
 * made them (the main thread's when unknown), with the attributes it gave and its own thread
 * CPU time (args.cpu_ns) where it has one. */
static void write_app(struct writer *w, struct target *t)
{
	const struct rn_trace *tr = &t->r->last;
	size_t i;

	for (i = 0; i < tr->napp && !w->err; i++) {
		const struct rn_app_span *a = &tr->app[i];
		int k = a->pid ? proc_at(tr, a->pid, a->start_ns) : 0;
		int64_t tid = a->tid ? a->tid : (k >= 0 && tr->nprocs ? tr->procs[k].pid : 0);
		json_t *args = json_object(), *attrs;
		size_t len = strlen(a->name) + 5;
		char *name = rn_xmalloc(len);

		if (k < 0 || !tr->nprocs)
			k = 0;
		set(args, "source",
		    json_string(a->source == RN_APP_SOURCE_OTLP ? "otlp" : "renacer_span.h"));
		if (a->parent)
			set(args, "parent", rn_json_text(a->parent));
		if (a->flags & RN_APP_CPU)
			set(args, "cpu_ns", ju64(a->cpu_ns));
		if (a->flags & RN_APP_UNCLOSED)
			set(args, "unclosed", json_true());
		if (a->flags & RN_APP_ERROR)
			set(args, "error", json_true());
		attrs = a->attrs ? json_loads(a->attrs, 0, NULL) : NULL;
		if (attrs)
			set(args, "attributes", attrs);
		snprintf(name, len, "app:%s", a->name);
		slice(w, name, "app", t->pid0 + k, tid, a->start_ns,
		      a->end_ns > a->start_ns ? a->end_ns - a->start_ns : 0, args);
		free(name);
	}
}

static void write_target(struct writer *w, struct target *t)
{
	const struct rn_trace *tr = &t->r->last;
	size_t k;

	t->pid0 = w->next_pid;
	w->next_pid += (int)tr->nprocs;
	for (k = 0; k < tr->nprocs; k++)
		write_process(w, t, k);
	if (tr->spool && tr->nprocs) {
		struct spool_ctx c = { w, t };
		/* Replaying moves the spool's file offset only. */
		int rc = rn_trace_spool_foreach((struct rn_trace *)tr, spool_event, &c);

		if (rc < 0 && !w->err)
			w->err = rc;
	} else {
		for (k = 0; k < tr->nprocs; k++)
			write_aggregate(w, t, k);
	}
	write_gpu(w, t);
	write_app(w, t);
	free(t->threads.keys);
	t->threads.keys = NULL;
}

int rn_perfetto_write(const char *path, const struct rn_outcome *oc)
{
	size_t n = rn_outcome_nsides(oc), j;
	struct writer w;
	struct rn_safefile sf;
	int rc = 0;

	memset(&w, 0, sizeof(w));
	w.next_pid = 1;
	w.base_ns = UINT64_MAX;
	for (j = 0; j < n; j++) {
		const struct rn_trace *tr = &rn_outcome_side(oc, j)->last;
		size_t k;

		for (k = 0; k < tr->nprocs; k++)
			if (tr->procs[k].start_ns && tr->procs[k].start_ns < w.base_ns)
				w.base_ns = tr->procs[k].start_ns;
		for (k = 0; k < tr->ngpu; k++)
			if (tr->gpu[k].start_ns && tr->gpu[k].start_ns < w.base_ns)
				w.base_ns = tr->gpu[k].start_ns;
	}
	if (w.base_ns == UINT64_MAX)
		w.base_ns = 0;

	rc = rn_safefile_open(&sf, path);
	if (rc || !(w.f = rn_safefile_stream(&sf))) {
		if (!rc) {
			rc = -errno;
			rn_safefile_abort(&sf);
		}
		goto out_error;
	}
	if (fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", w.f) == EOF)
		w.err = -errno;
	for (j = 0; j < n && !w.err; j++) {
		struct target t;

		memset(&t, 0, sizeof(t));
		t.r = rn_outcome_side(oc, j);
		write_target(&w, &t);
	}
	if (!w.err && fputs("\n]}\n", w.f) == EOF)
		w.err = -errno;
	rc = w.err;
	if (rc)
		rn_safefile_abort(&sf);
	else
		rc = rn_safefile_commit(&sf);
	if (!rc)
		return 0;
out_error:
	rn_error("cannot write timeline '%s': %s", path, rn_safefile_strerror(rc));
	return rc;
}
