/*
 * witness.c - the witness assertion: a program's own report of its spans against what the
 * kernel saw (assertion.h, rn_witness_evaluate).
 *
 * A server that says a request took 50 ms while it wrote the response 100 ms after it began
 * is caught by the write: the kernel's record of the syscalls is the witness. The syscalls
 * come from the span spool of the last counting run, one replay for every span; their times
 * are the tracer's entry and exit stops, on the clock of the app spans (CLOCK_MONOTONIC).
 */
#include "assertion.h"
#include "assertion_internal.h"

#include <errno.h>
#include <stdarg.h>
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

struct calls {
	const struct rn_regex *re;
	struct call *v;
	size_t n, cap;
};

static int collect(void *ctx, const struct rn_syscall_event *ev)
{
	struct calls *c = ctx;
	const char *name = rn_syscall_name(ev->nr);

	if ((ev->flags & RN_SC_UNFINISHED) || !name || !rn_regex_match(c->re, name))
		return 0;
	c->v = rn_xgrow(c->v, &c->cap, c->n + 1, sizeof(*c->v));
	c->v[c->n++] =
		(struct call){ ev->pid, ev->tid, ev->start_ns, ev->start_ns + ev->duration_ns };
	return 0;
}

static char *xfmt(const char *fmt, ...) RN_PRINTF(1, 2);

static char *xfmt(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		rn_die("out of memory");
	return s;
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

void rn_witness_evaluate(const struct rn_assertion_spec *a, struct rn_target_result *r,
			 struct rn_verdict_result *out)
{
	struct rn_trace *t = &r->last;
	struct calls c = { a->witness_re, NULL, 0, 0 };
	size_t i, k, nspans = 0, measured = 0, worst = SIZE_MAX;
	double worst_dev = -1;
	uint64_t worst_rep = 0, worst_ker = 0;
	struct rn_buf d;
	int rc;

	out->unit = "%";
	out->has_budget = true;
	out->budget = a->tolerance * 100.0;
	out->aggregate = xfmt("the last %s", r->ncounts ? "counting run" : "run");
	if (!t->spool) {
		out->verdict = RN_VERDICT_NO_DATA;
		out->message = xfmt("not measured: the run kept no syscall spans to witness with "
				    "(is \"ptrace\" in the target's collectors?)");
		return;
	}
	rc = rn_trace_spool_foreach(t, collect, &c);
	if (rc < 0) {
		free(c.v);
		out->verdict = RN_VERDICT_ERROR;
		out->message = xfmt("cannot read the span spool: %s", strerror(-rc));
		return;
	}
	rn_buf_init(&d, 0);
	rn_buf_adds(&d, "span                          reported ms  kernel ms  deviation\n");
	for (i = 0; i < t->napp; i++) {
		const struct rn_app_span *s = &t->app[i];
		uint64_t wend, kend = 0, rep, ker;
		double dev;

		if (!matches(a, s))
			continue;
		nspans++;
		wend = window_end(a, t, i);
		for (k = 0; k < c.n; k++)
			if (c.v[k].start_ns >= s->start_ns && c.v[k].start_ns < wend &&
			    same_thread(s, c.v[k].pid, c.v[k].tid) && c.v[k].end_ns > kend)
				kend = c.v[k].end_ns;
		if (!kend || kend <= s->start_ns)
			continue;
		measured++;
		rep = s->end_ns - s->start_ns;
		ker = kend - s->start_ns;
		dev = ((double)rep - (double)ker) / (double)ker;
		if (measured <= 20)
			rn_buf_addf(&d, "app:%-24.24s %11.3f %10.3f %+9.1f%%\n", s->name,
				    (double)rep / 1e6, (double)ker / 1e6, dev * 100.0);
		if ((dev < 0 ? -dev : dev) > worst_dev) {
			worst_dev = dev < 0 ? -dev : dev;
			worst = i;
			worst_rep = rep;
			worst_ker = ker;
		}
	}
	free(c.v);
	if (measured > 20)
		rn_buf_addf(&d, "... %zu more\n", measured - 20);
	if (!measured) {
		rn_buf_release(&d);
		out->verdict = RN_VERDICT_NO_DATA;
		out->message =
			xfmt("not measured: %s",
			     !nspans ?
				     "no app span matched the pattern (is \"app\" in the target's "
				     "collectors, and does the program report its spans?)" :
				     "no witness syscall was made inside the matching spans");
		return;
	}
	out->has_observed = true;
	out->observed = worst_dev * 100.0;
	out->verdict = worst_dev <= a->tolerance ?
		RN_VERDICT_PASS :
		(a->fail_on_violation ? RN_VERDICT_FAIL : RN_VERDICT_WARN);
	if (a->tolerance > 0)
		out->delta_pct = (worst_dev - a->tolerance) / a->tolerance * 100.0;
	out->message = xfmt("%zu of %zu app spans witnessed by /%s/; the furthest, app:%s, "
			    "reported %.3f ms where the kernel saw %.3f ms (%+.1f%%) %s tolerance "
			    "%.0f%%",
			    measured, nspans, a->witness_pattern, t->app[worst].name,
			    (double)worst_rep / 1e6, (double)worst_ker / 1e6,
			    ((double)worst_rep - (double)worst_ker) / (double)worst_ker * 100.0,
			    worst_dev <= a->tolerance ? "within" : "beyond", a->tolerance * 100.0);
	out->detail = rn_buf_detach(&d, NULL);
}
