/*
 * witness.c - the witness assertion: a program's own report of its spans against what the
 * kernel saw (assertion.h, rn_witness_evaluate).
 *
 * A server that says a request took 50 ms while it wrote the response 100 ms after it began
 * is caught by the write: the kernel's record of the syscalls is the witness. The syscalls
 * come from the span spool of the last counting run, one replay for every span; their times
 * are the tracer's entry and exit stops, on the clock of the app spans (CLOCK_MONOTONIC).
 *
 * The program's export of its spans to the app receiver is no part of its work, and an SDK
 * writes it right after a span ends (a synchronous exporter) or whenever its event loop runs:
 * counted, it would be the end of the last span. So the replay follows the program's
 * connections to the receiver (a connect() to 127.0.0.1:rn_trace.app_port, until the close()
 * of that descriptor in that process) and leaves out the witness calls on them; so are the
 * writes to eventfds (from eventfd() to close()), an event loop's wakeups, which libuv makes
 * whenever the SDK's export or a timer completes.
 *
 * A span is matched to syscalls by the thread that reported it when the SDK says which
 * (thread.id), by its process when only that is known (process.pid), and otherwise, as the
 * Node.js SDK's spans come, by the process tree of the processes that exported spans (those
 * connected to the receiver; the whole tree when none did): always within its window.
 */
#include "assertion.h"
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "xalloc.h"

/* One witness syscall: who made it and when it ended. */
struct call {
	pid_t pid, tid;
	uint64_t start_ns, end_ns;
};

/* A descriptor of a process that carries no work: a connection to the app receiver, or an
 * eventfd (an event loop's wakeup: libuv writes 8 bytes to one whenever a thread hands work
 * back, which says nothing about when a span's work ended). */
struct conn {
	pid_t pid;   /* the process (its threads share the descriptor) */
	uint64_t fd; /* the descriptor */
	bool wakeup; /* an eventfd, not the receiver */
};

struct calls {
	const struct rn_regex *re;
	struct call *v;
	size_t n, cap;
	char receiver[32];  /* the receiver as the spool names a connect's address
			      * ("inet 127.0.0.1:PORT"), "" without one */
	struct conn *conns; /* connections to the receiver open at this point of the replay */
	size_t nconns, conns_cap;
	pid_t *exporters; /* processes that connected to the receiver */
	size_t nexporters, exporters_cap;
	uint64_t left_out; /* witness calls on those connections, left out */
	uint64_t wakeups;  /* witness calls on eventfds, left out */
};

static size_t find_conn(const struct calls *c, pid_t pid, uint64_t fd)
{
	size_t i;

	for (i = 0; i < c->nconns; i++)
		if (c->conns[i].pid == pid && c->conns[i].fd == fd)
			return i;
	return SIZE_MAX;
}

static void add_conn(struct calls *c, pid_t pid, uint64_t fd, bool wakeup)
{
	size_t i = find_conn(c, pid, fd);

	if (i != SIZE_MAX) {
		c->conns[i].wakeup = wakeup;
		return;
	}
	c->conns = rn_xgrow(c->conns, &c->conns_cap, c->nconns + 1, sizeof(*c->conns));
	c->conns[c->nconns++] = (struct conn){ pid, fd, wakeup };
}

/* Follow connect() to the receiver, eventfd()s, and close() of such a descriptor. Returns
 * whether `ev` was one of them. */
static bool track_conn(struct calls *c, const struct rn_syscall_event *ev, const char *name)
{
	size_t i;

	if (!strcmp(name, "eventfd2") || !strcmp(name, "eventfd")) {
		if (ev->ret >= 0)
			add_conn(c, ev->pid, (uint64_t)ev->ret, true);
		return true;
	}
	if (!strcmp(name, "connect")) {
		/* non-blocking sockets (Node.js, most SDKs) answer EINPROGRESS */
		if (!c->receiver[0] || !ev->path || strcmp(ev->path, c->receiver) ||
		    (ev->ret && ev->err != EINPROGRESS))
			return false;
		add_conn(c, ev->pid, ev->args[0], false);
		for (i = 0; i < c->nexporters && c->exporters[i] != ev->pid; i++)
			;
		if (i == c->nexporters) {
			c->exporters = rn_xgrow(c->exporters, &c->exporters_cap, c->nexporters + 1,
						sizeof(*c->exporters));
			c->exporters[c->nexporters++] = ev->pid;
		}
		return true;
	}
	/* a descriptor handed out anew was closed before, whichever way (dup2 over it) */
	if (ev->ret >= 0 &&
	    (!strcmp(name, "socket") || !strcmp(name, "openat") || !strcmp(name, "open") ||
	     !strcmp(name, "accept4") || !strcmp(name, "accept") || !strcmp(name, "dup"))) {
		i = find_conn(c, ev->pid, (uint64_t)ev->ret);
		if (i != SIZE_MAX)
			c->conns[i] = c->conns[--c->nconns];
		return false;
	}
	if ((!strcmp(name, "dup2") || !strcmp(name, "dup3")) && ev->ret >= 0) {
		i = find_conn(c, ev->pid, ev->args[1]);
		if (i != SIZE_MAX)
			c->conns[i] = c->conns[--c->nconns];
		return false;
	}
	if (!strcmp(name, "close") && !ev->ret) {
		i = find_conn(c, ev->pid, ev->args[0]);
		if (i == SIZE_MAX)
			return false;
		c->conns[i] = c->conns[--c->nconns];
		return true;
	}
	return false;
}

static int collect(void *ctx, const struct rn_syscall_event *ev)
{
	struct calls *c = ctx;
	const char *name = rn_syscall_name(ev->nr);
	size_t i;

	if (!name)
		return 0;
	if (!(ev->flags & RN_SC_UNFINISHED) && track_conn(c, ev, name))
		return 0;
	if ((ev->flags & RN_SC_UNFINISHED) || !rn_regex_match(c->re, name))
		return 0;
	/* the write and send family take the descriptor first; sendto may name the address */
	i = find_conn(c, ev->pid, ev->args[0]);
	if (i != SIZE_MAX && c->conns[i].wakeup) {
		c->wakeups++;
		return 0;
	}
	if (i != SIZE_MAX || (c->receiver[0] && ev->path && !strcmp(ev->path, c->receiver))) {
		c->left_out++;
		return 0;
	}
	c->v = rn_xgrow(c->v, &c->cap, c->n + 1, sizeof(*c->v));
	c->v[c->n++] =
		(struct call){ ev->pid, ev->tid, ev->start_ns, ev->start_ns + ev->duration_ns };
	return 0;
}

/* Whether app span `s` and syscall or span of (pid, tid) are on one thread: the same thread
 * when the span names its thread, the same process when only that is known, any when neither
 * is (an OTLP span without process.pid: a target of one process). */
static bool same_thread(const struct rn_app_span *s, pid_t pid, pid_t tid)
{
	if (s->pid && s->pid != pid)
		return false;
	return !s->tid || s->tid == tid;
}

/* Whether process `pid` is an exporter or one of its descendants (any process of the tree
 * when no process connected to the receiver). */
static bool in_exporters_tree(const struct calls *c, const struct rn_trace *t, pid_t pid)
{
	int i = rn_trace_find_process(t, pid), hops;
	size_t k;

	if (!c->nexporters)
		return true;
	for (hops = 0; i >= 0 && (size_t)i < t->nprocs && hops < 4096; hops++) {
		for (k = 0; k < c->nexporters; k++)
			if (t->procs[i].pid == c->exporters[k])
				return true;
		i = t->procs[i].parent;
	}
	return false;
}

/* Whether syscall `k` can be the work of span `s`: its thread or process where the span names
 * them, else the exporters' process tree. */
static bool witness_of(const struct calls *c, const struct rn_trace *t, const struct rn_app_span *s,
		       const struct call *k)
{
	if (s->pid || s->tid)
		return same_thread(s, k->pid, k->tid);
	return in_exporters_tree(c, t, k->pid);
}

static bool matches(const struct rn_assertion_spec *a, const struct rn_app_span *s)
{
	char name[RN_SPAN_NAME_MAX + 8];

	snprintf(name, sizeof(name), "app:%s", s->name);
	return rn_regex_match(a->span_re, name);
}

/* The end of the window of span i: the start of the next matching span on its thread, or
 * UINT64_MAX. */
static uint64_t window_end(const struct rn_assertion_spec *a, const struct rn_trace *t, size_t i)
{
	const struct rn_app_span *s = &t->app[i];
	uint64_t end = UINT64_MAX;
	size_t k;

	for (k = 0; k < t->napp; k++) {
		const struct rn_app_span *o = &t->app[k];

		if (k != i && o->start_ns > s->start_ns && o->start_ns < end &&
		    same_thread(s, o->pid, o->tid) && matches(a, o))
			end = o->start_ns;
	}
	return end;
}

/* What the spans of one run showed: how many matched and were measured, and the furthest. */
struct furthest {
	size_t nspans;   /* app spans matching the pattern */
	size_t measured; /* of them, with a witness syscall */
	size_t worst;    /* index in t->app of the furthest, SIZE_MAX when none */
	double dev;      /* its absolute deviation, fraction (-1 when none) */
	uint64_t rep;    /* its reported duration, ns */
	uint64_t ker;    /* the kernel's, ns */
};

/* Each matching app span of `t` against the witness syscalls of `c`: a detail line for each
 * of the first 20 measured into `d`, the counts and the furthest into *f. */
static void measure_spans(const struct rn_assertion_spec *a, struct rn_trace *t, struct calls *c,
			  struct rn_buf *d, struct furthest *f)
{
	size_t i, k;

	for (i = 0; i < t->napp; i++) {
		const struct rn_app_span *s = &t->app[i];
		uint64_t wend, kend = 0, rep, ker;
		double dev;

		if (!matches(a, s))
			continue;
		f->nspans++;
		wend = window_end(a, t, i);
		for (k = 0; k < c->n; k++)
			if (c->v[k].start_ns >= s->start_ns && c->v[k].start_ns < wend &&
			    witness_of(c, t, s, &c->v[k]) && c->v[k].end_ns > kend)
				kend = c->v[k].end_ns;
		if (!kend || kend <= s->start_ns)
			continue;
		f->measured++;
		rep = s->end_ns - s->start_ns;
		ker = kend - s->start_ns;
		dev = ((double)rep - (double)ker) / (double)ker;
		if (f->measured <= 20)
			rn_buf_addf(d, "app:%-24.24s %11.3f %10.3f %+9.1f%%\n", s->name,
				    (double)rep / 1e6, (double)ker / 1e6, dev * 100.0);
		if ((dev < 0 ? -dev : dev) > f->dev) {
			f->dev = dev < 0 ? -dev : dev;
			f->worst = i;
			f->rep = rep;
			f->ker = ker;
		}
	}
}

/* The detail's closing lines: spans past the first 20, calls left out and why. */
static void add_left_out(struct rn_buf *d, const struct calls *c, size_t measured)
{
	if (measured > 20)
		rn_buf_addf(d, "... %zu more\n", measured - 20);
	if (c->left_out)
		rn_buf_addf(d,
			    "%llu call(s) on the program's connection to the span receiver "
			    "(its export of the spans) left out\n",
			    (unsigned long long)c->left_out);
	if (c->wakeups)
		rn_buf_addf(d, "%llu write(s) to eventfds (an event loop's wakeups) left out\n",
			    (unsigned long long)c->wakeups);
}

void rn_witness_evaluate(const struct rn_assertion_spec *a, struct rn_target_result *r,
			 struct rn_verdict_result *out)
{
	struct rn_trace *t = &r->last;
	struct calls c = { .re = a->witness_re };
	struct furthest f = { .worst = SIZE_MAX, .dev = -1 };
	struct rn_buf d;
	int rc;

	out->unit = "%";
	out->has_budget = true;
	out->budget = a->tolerance * 100.0;
	out->aggregate = rn_xstrfmt("the last %s", r->ncounts ? "counting run" : "run");
	if (t->app_port)
		snprintf(c.receiver, sizeof(c.receiver), "inet 127.0.0.1:%u",
			 (unsigned)t->app_port);
	if (!t->spool) {
		out->verdict = RN_VERDICT_NO_DATA;
		out->message =
			rn_xstrfmt("not measured: the run kept no syscall spans to witness with "
				   "(is \"ptrace\" in the target's collectors?)");
		return;
	}
	rc = rn_trace_spool_foreach(t, collect, &c);
	free(c.conns);
	if (rc < 0) {
		free(c.v);
		free(c.exporters);
		out->verdict = RN_VERDICT_ERROR;
		out->message = rn_xstrfmt("cannot read the span spool: %s", strerror(-rc));
		return;
	}
	rn_buf_init(&d, 0);
	rn_buf_adds(&d, "span                          reported ms  kernel ms  deviation\n");
	measure_spans(a, t, &c, &d, &f);
	free(c.v);
	free(c.exporters);
	add_left_out(&d, &c, f.measured);
	if (!f.measured) {
		rn_buf_release(&d);
		out->verdict = RN_VERDICT_NO_DATA;
		out->message = rn_xstrfmt(
			"not measured: %s",
			!f.nspans ? "no app span matched the pattern (is \"app\" in the target's "
				    "collectors, and does the program report its spans?)" :
				    "no witness syscall was made inside the matching spans");
		return;
	}
	out->has_observed = true;
	out->observed = f.dev * 100.0;
	out->verdict = f.dev <= a->tolerance ?
		RN_VERDICT_PASS :
		(a->fail_on_violation ? RN_VERDICT_FAIL : RN_VERDICT_WARN);
	if (a->tolerance > 0)
		out->delta_pct = (f.dev - a->tolerance) / a->tolerance * 100.0;
	out->message =
		rn_xstrfmt("%zu of %zu app spans witnessed by /%s/; the furthest, app:%s, "
			   "reported %.3f ms where the kernel saw %.3f ms (%+.1f%%) %s tolerance "
			   "%.0f%%",
			   f.measured, f.nspans, a->witness_pattern, t->app[f.worst].name,
			   (double)f.rep / 1e6, (double)f.ker / 1e6,
			   ((double)f.rep - (double)f.ker) / (double)f.ker * 100.0,
			   f.dev <= a->tolerance ? "within" : "beyond", a->tolerance * 100.0);
	out->detail = rn_buf_detach(&d, NULL);
}
