#include "otlp_spans.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "internal.h"
#include "now.h"
#include "otlp_redact.h"
#include "srcloc.h"
#include "symbolize.h"
#include "utf8.h"
#include "xalloc.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- From results to spans ---------------------------------------------------------------- */

static const char *const verdict_labels[] = {
#define LABEL(id, label) label,
	RN_VERDICTS(LABEL)
#undef LABEL
};

/* Root span attribute "renacer.check.verdicts.<label>": counts per verdict. */
static const char *const verdict_count_keys[] = {
	[RN_VERDICT_PASS] = "renacer.check.verdicts.pass",
	[RN_VERDICT_FAIL] = "renacer.check.verdicts.fail",
	[RN_VERDICT_WARN] = "renacer.check.verdicts.warn",
	[RN_VERDICT_SKIP] = "renacer.check.verdicts.skip",
	[RN_VERDICT_NO_DATA] = "renacer.check.verdicts.no_data",
	[RN_VERDICT_ERROR] = "renacer.check.verdicts.error",
	[RN_VERDICT_NOT_JUDGED] = "renacer.check.verdicts.not_judged",
};

/* Run span attribute keys: "renacer.run.<metric>" plus "_ns" or "_bytes" (units in names;
 * counts carry none), derived once from the metric table. */
static const char *metric_key(enum rn_metric m)
{
	static const struct {
		const char *name, *unit;
	} tab[] = {
#define METRIC(id, name, unit, desc) { name, unit },
		RN_METRICS(METRIC)
#undef METRIC
	};
	static char keys[RN_METRIC_COUNT][64];

	if (!keys[m][0]) {
		size_t n = strlen(tab[m].name), u = strlen(tab[m].unit);
		/* "gpu_copy_bytes" already says its unit */
		bool named = n > u && tab[m].name[n - u - 1] == '_' &&
			!strcmp(tab[m].name + n - u, tab[m].unit);
		bool suffix = strcmp(tab[m].unit, "count") && !named;

		snprintf(keys[m], sizeof(keys[m]), "renacer.run.%s%s%s", tab[m].name,
			 suffix ? "_" : "", suffix ? tab[m].unit : "");
	}
	return keys[m];
}

#define NAME_OF(table, i) ((size_t)(i) < ARRAY_SIZE(table) && (table)[i] ? (table)[i] : "unknown")

/* A name of the trace model (trace.h), "unknown" for a value outside its enum. */
static const char *known(const char *name)
{
	return name ? name : "unknown";
}

#define SB_MAX_ATTRS 40
#define SB_MAX_OWNED 40

/* One span being built: the model plus storage for its attributes and fixed-up strings. */
struct sb {
	struct rn_otlp_span s;                   /* the span */
	struct rn_otlp_attr attrs[SB_MAX_ATTRS]; /* its attributes */
	struct rn_otlp_event events[2];          /* its events */
	struct rn_otlp_attr ev_attrs[2][4];      /* attributes of each event */
	char name[320];                          /* storage of s.name */
	char *owned[SB_MAX_OWNED];               /* UTF-8-fixed copies, freed after emit */
	size_t nowned;                           /* owned used */
};

/* `s` if it is valid UTF-8, else a fixed copy that lives until the span is emitted. */
static const char *sb_keep(struct sb *b, const char *s)
{
	if (!s || rn_utf8_valid(s))
		return s;
	if (b->nowned == SB_MAX_OWNED)
		return "\xef\xbf\xbd";
	b->owned[b->nowned] = rn_utf8_fix(s);
	return b->owned[b->nowned++];
}

static struct rn_otlp_attr *sb_attr(struct sb *b, const char *key, enum rn_otlp_value_type t)
{
	struct rn_otlp_attr *a;

	if (b->s.nattrs == SB_MAX_ATTRS)
		return NULL;
	a = &b->attrs[b->s.nattrs++];
	a->key = key;
	a->type = t;
	return a;
}

static void sb_str(struct sb *b, const char *key, const char *v)
{
	struct rn_otlp_attr *a;

	if (v && (a = sb_attr(b, key, RN_OTLP_VAL_STRING)))
		a->u.s = sb_keep(b, v);
}

static void sb_int(struct sb *b, const char *key, int64_t v)
{
	struct rn_otlp_attr *a = sb_attr(b, key, RN_OTLP_VAL_INT);

	if (a)
		a->u.i = v;
}

static void sb_u64(struct sb *b, const char *key, uint64_t v)
{
	sb_int(b, key, v > INT64_MAX ? INT64_MAX : (int64_t)v);
}

static void sb_bool(struct sb *b, const char *key, bool v)
{
	struct rn_otlp_attr *a = sb_attr(b, key, RN_OTLP_VAL_BOOL);

	if (a)
		a->u.b = v;
}

static void sb_double(struct sb *b, const char *key, double v)
{
	struct rn_otlp_attr *a = sb_attr(b, key, RN_OTLP_VAL_DOUBLE);

	if (a)
		a->u.d = v;
}

/* Attach an event; its attributes are added with sb_event_str. Returns the event or NULL. */
static struct rn_otlp_event *sb_event(struct sb *b, const char *name, uint64_t time_unix_ns)
{
	struct rn_otlp_event *e;

	if (b->s.nevents == ARRAY_SIZE(b->events))
		return NULL;
	e = &b->events[b->s.nevents];
	e->name = name;
	e->time_unix_ns = time_unix_ns;
	e->attrs = b->ev_attrs[b->s.nevents];
	b->s.nevents++;
	return e;
}

static void sb_event_attr(struct sb *b, struct rn_otlp_event *e, const struct rn_otlp_attr *a)
{
	struct rn_otlp_attr *slot;
	size_t idx = (size_t)(e - b->events);

	if (e->nattrs == ARRAY_SIZE(b->ev_attrs[0]))
		return;
	slot = &b->ev_attrs[idx][e->nattrs++];
	*slot = *a;
	if (slot->type == RN_OTLP_VAL_STRING)
		slot->u.s = sb_keep(b, slot->u.s);
}

struct walk {
	const struct rn_otlp_cfg *cfg;     /* export settings */
	const struct rn_otlp_context *ctx; /* ids and clock offset */
	const struct rn_outcome *oc;       /* what to export */
	struct rn_otlp_batch *batch;       /* where spans go */
	uint32_t span_flags;               /* Span.flags of non-root spans */
	uint64_t root_start, root_end;     /* the root span, Unix ns */
	bool warned_spool;                 /* the no-spool fallback was reported */
};

static uint64_t to_unix(uint64_t mono_ns, int64_t off)
{
	return mono_ns ? (uint64_t)((int64_t)mono_ns + off) : 0;
}

static void sb_begin(struct walk *w, struct sb *b, const uint8_t id[8], const uint8_t *parent,
		     uint64_t start, uint64_t end)
{
	memset(&b->s, 0, sizeof(b->s));
	b->nowned = 0;
	memcpy(b->s.trace_id, w->ctx->trace_id, 16);
	memcpy(b->s.span_id, id, 8);
	if (parent) {
		memcpy(b->s.parent_span_id, parent, 8);
		b->s.has_parent = true;
	}
	b->s.kind = RN_OTLP_KIND_INTERNAL;
	b->s.flags = w->span_flags;
	b->s.start_unix_ns = start;
	b->s.end_unix_ns = end < start ? start : end;
	b->s.attrs = b->attrs;
	b->s.events = b->events;
	memset(b->events, 0, sizeof(b->events));
}

static void sb_name(struct sb *b, const char *fmt, ...) RN_PRINTF(2, 3);
static void sb_name(struct sb *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b->name, sizeof(b->name), fmt, ap);
	va_end(ap);
	b->s.name = sb_keep(b, b->name);
}

static int sb_emit(struct walk *w, struct sb *b)
{
	int rc = rn_otlp_batch_add(w->batch, &b->s);
	size_t i;

	for (i = 0; i < b->nowned; i++)
		free(b->owned[i]);
	b->nowned = 0;
	return rc;
}

static void sb_error(struct sb *b, const char *msg)
{
	b->s.status = RN_OTLP_STATUS_ERROR;
	b->s.status_message = sb_keep(b, msg);
}

/*
 * The failing verdicts (FAIL, ERROR, NO DATA) of the check or of one target, as two parallel
 * string arrays on a span: `names` (root: "<target>/<assertion>", target span: "<assertion>")
 * and `verdicts` ("FAIL", ...), in verdict order, so a trace says which assertion failed
 * without opening the assertion spans. Owned until failing_release, after the span's emit.
 */
struct failing {
	char **names;          /* owned strings */
	const char **verdicts; /* static labels */
	size_t n;              /* entries */
};

static bool is_failing(enum rn_verdict v)
{
	return v == RN_VERDICT_FAIL || v == RN_VERDICT_ERROR || v == RN_VERDICT_NO_DATA;
}

/* Collect the failing verdicts of target `target` (NULL: every target, names qualified) and
 * set them on `b` under `key_names` and `key_verdicts`; nothing when none failed. */
static void sb_failing(struct sb *b, const struct rn_outcome *oc, const char *target,
		       const char *key_names, const char *key_verdicts, struct failing *f)
{
	struct rn_outcome_verdicts it = { oc, 0, 0, 0 };
	size_t nverdicts = rn_outcome_nverdicts(oc);
	const struct rn_verdict_result *v;
	struct rn_otlp_attr *a;

	memset(f, 0, sizeof(*f));
	for (v = rn_outcome_verdict_next(&it); v; v = rn_outcome_verdict_next(&it)) {
		struct rn_buf name;

		if (!is_failing(v->verdict) ||
		    (target && (!v->target || strcmp(v->target, target))))
			continue;
		if (!f->names) {
			f->names = rn_xcalloc(nverdicts, sizeof(*f->names));
			f->verdicts = rn_xcalloc(nverdicts, sizeof(*f->verdicts));
		}
		rn_buf_init(&name, 0);
		if (!target)
			rn_buf_addf(&name, "%s/", v->target ? v->target : "");
		rn_buf_adds(&name, v->assertion ? v->assertion : "");
		f->names[f->n] = rn_buf_detach(&name, NULL);
		if (!rn_utf8_valid(f->names[f->n])) {
			char *fixed = rn_utf8_fix(f->names[f->n]);

			free(f->names[f->n]);
			f->names[f->n] = fixed;
		}
		f->verdicts[f->n++] = NAME_OF(verdict_labels, v->verdict);
	}
	if (!f->n)
		return;
	a = sb_attr(b, key_names, RN_OTLP_VAL_STRINGS);
	if (a) {
		a->u.strs.v = (const char *const *)f->names;
		a->u.strs.n = f->n;
	}
	a = sb_attr(b, key_verdicts, RN_OTLP_VAL_STRINGS);
	if (a) {
		a->u.strs.v = f->verdicts;
		a->u.strs.n = f->n;
	}
}

static void failing_release(struct failing *f)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		free(f->names[i]);
	free(f->names);
	free(f->verdicts);
}

/* Per-target state of the walk. */
struct twalk {
	size_t j;                         /* index of the target */
	const struct rn_target_result *r; /* the target */
	uint8_t target_id[8];             /* its span */
	uint8_t procs_parent[8];          /* parent of the root process: the last run's span */
	int64_t off;                      /* CLOCK_MONOTONIC -> Unix of the last run, ns */
	uint64_t start, end;              /* the target span, Unix ns */
};

static int emit_root(struct walk *w)
{
	const struct rn_outcome *oc = w->oc;
	struct rn_outcome_verdicts it = { oc, 0, 0, 0 };
	size_t counts[RN_VERDICT_COUNT] = { 0 }, i;
	const struct rn_verdict_result *v;
	struct failing failed;
	struct sb b;
	char msg[64];
	int rc;

	for (v = rn_outcome_verdict_next(&it); v; v = rn_outcome_verdict_next(&it))
		if ((size_t)v->verdict < RN_VERDICT_COUNT)
			counts[v->verdict]++;
	sb_begin(w, &b, w->ctx->root_span_id, w->ctx->has_parent ? w->ctx->parent_span_id : NULL,
		 w->root_start, w->root_end);
	sb_name(&b, "renacer check");
	b.s.trace_state = w->ctx->trace_state;
	b.s.flags = w->ctx->trace_flags | RN_OTLP_SPAN_FLAGS_HAS_IS_REMOTE |
		(w->ctx->has_parent ? RN_OTLP_SPAN_FLAGS_IS_REMOTE : 0);
	sb_int(&b, "renacer.check.exit_code", oc->exit_code);
	sb_str(&b, "renacer.config.path", oc->config_path);
	sb_u64(&b, "renacer.check.targets", rn_outcome_nsides(oc));
	for (i = 0; i < RN_VERDICT_COUNT; i++)
		sb_u64(&b, verdict_count_keys[i], counts[i]);
	sb_failing(&b, oc, NULL, "renacer.check.failed_assertions", "renacer.check.failed_verdicts",
		   &failed);
	if (oc->exit_code) {
		snprintf(msg, sizeof(msg), "exit code %d", oc->exit_code);
		sb_error(&b, msg);
	}
	rc = sb_emit(w, &b);
	failing_release(&failed);
	return rc;
}

static int emit_target(struct walk *w, struct twalk *t)
{
	const struct rn_target_result *r = t->r;
	struct failing failed;
	struct sb b;
	int rc;

	sb_begin(w, &b, t->target_id, w->ctx->root_span_id, t->start, t->end);
	sb_name(&b, "target:%s", r->name ? r->name : "");
	sb_str(&b, "renacer.target.name", r->name);
	sb_u64(&b, "renacer.target.runs", r->nruns);
	sb_u64(&b, "renacer.target.counting_runs", r->ncounts);
	sb_str(&b, "renacer.target.status", known(rn_run_status_name(r->status)));
	sb_str(&b, "renacer.target.build_id", r->build_id);
	sb_failing(&b, w->oc, r->name ? r->name : "", "renacer.target.failed_assertions",
		   "renacer.target.failed_verdicts", &failed);
	if (r->status != RN_RUN_OK)
		sb_error(&b, r->error ? r->error : known(rn_run_status_name(r->status)));
	rc = sb_emit(w, &b);
	failing_release(&failed);
	return rc;
}

static uint64_t run_start_unix(const struct walk *w, const struct rn_metrics *m)
{
	return m->start_unix_ns ? m->start_unix_ns : to_unix(m->start_ns, w->ctx->mono_to_unix_ns);
}

/* Run `i` of the target's measured runs: the timing runs first (r->runs), then the counting
 * runs (r->counts), as check numbers them (the run index of its TRACEPARENT). */
static const struct rn_metrics *run_of(const struct rn_target_result *r, size_t i)
{
	return i < r->nruns ? &r->runs[i] : &r->counts[i - r->nruns];
}

/* "timing", "counting" or "both" (a run of a target without ptrace measured both). */
static const char *run_kind(const struct rn_metrics *m)
{
	if (m->measures == RN_MEASURES_TIMES)
		return "timing";
	if (m->measures == RN_MEASURES_COUNTS)
		return "counting";
	return "both";
}

/* Whether run `m` measured metric `k`: a timing run does not count syscalls or allocations
 * (its 0 would read as a measurement), a counting run's times are taken under the tracer. */
static bool run_measured(const struct rn_metrics *m, int k)
{
	enum rn_run_measures by = rn_metric_measured_by((enum rn_metric)k);
	uint32_t has = m->measures ? m->measures : RN_MEASURES_BOTH;

	if (!m->has_gpu &&
	    (k == RN_METRIC_GPU_BUSY || k == RN_METRIC_GPU_DISPATCHES ||
	     k == RN_METRIC_GPU_COPY_BYTES))
		return false;
	if (k == RN_METRIC_INSTRUCTIONS)
		return m->v[k] != 0; /* not counted without the Valgrind run */
	return by == RN_MEASURES_BOTH || (has & by) == by;
}

static int emit_run(struct walk *w, struct twalk *t, size_t i)
{
	const struct rn_metrics *m = run_of(t->r, i);
	uint64_t start = run_start_unix(w, m);
	uint8_t id[8];
	struct sb b;
	int k;

	rn_otlp_run_span_id(w->ctx, t->j, i, id);
	sb_begin(w, &b, id, t->target_id, start, start + m->v[RN_METRIC_WALL]);
	if (i < t->r->nruns)
		sb_name(&b, "run:%zu", i);
	else
		sb_name(&b, "counting_run:%zu", i - t->r->nruns);
	sb_u64(&b, "renacer.run.index", i);
	sb_str(&b, "renacer.run.kind", run_kind(m));
	sb_str(&b, "renacer.run.status", known(rn_run_status_name(m->status)));
	for (k = 0; k < RN_METRIC_COUNT; k++)
		if (run_measured(m, k))
			sb_u64(&b, metric_key((enum rn_metric)k), m->v[k]);
	if (m->status != RN_RUN_OK)
		sb_error(&b, known(rn_run_status_name(m->status)));
	return sb_emit(w, &b);
}

/* Index of the process that had thread group `pid` at time `ns` (pids can be reused within a
 * run: the newest process born before `ns`), or -1. */
static int proc_at(const struct rn_trace *t, pid_t pid, uint64_t ns)
{
	int i = rn_trace_find_process(t, pid);

	if (i < 0 || t->procs[i].start_ns <= ns)
		return i;
	for (i--; i >= 0; i--)
		if (t->procs[i].pid == pid && t->procs[i].start_ns <= ns)
			return i;
	return -1;
}

/* Span id of process `k` of target t, or the procs_parent when k < 0. */
static void proc_span_id(const struct walk *w, const struct twalk *t, int k, uint8_t out[8])
{
	if (k < 0)
		memcpy(out, t->procs_parent, 8);
	else
		rn_otlp_derive_id(w->ctx, RN_OTLP_ROLE_PROCESS, t->j, (uint64_t)k, 0, out);
}

static int emit_process(struct walk *w, struct twalk *t, size_t k)
{
	const struct rn_trace *tr = &t->r->last;
	const struct rn_process *p = &tr->procs[k];
	uint64_t end_ns = p->end_ns ? p->end_ns : tr->end_ns;
	uint8_t id[8], parent[8];
	char **args = NULL;
	char msg[64];
	struct sb b;
	int rc;

	proc_span_id(w, t, (int)k, id);
	proc_span_id(w, t, p->parent, parent);
	sb_begin(w, &b, id, parent, to_unix(p->start_ns, t->off), to_unix(end_ns, t->off));
	if (p->comm)
		sb_name(&b, "process:%s", p->comm);
	else
		sb_name(&b, "process:%d", (int)p->pid);
	sb_int(&b, "process.pid", p->pid);
	if (p->ppid)
		sb_int(&b, "process.parent_pid", p->ppid);
	sb_str(&b, "process.executable.name", p->comm);
	sb_str(&b, "process.executable.path", p->exe);
	if (k == 0 && w->oc->argv && w->oc->argv[t->j]) {
		size_t n = 0;

		args = rn_redact_argv(w->oc->argv[t->j], (const char *const *)w->cfg->redact_words);
		while (args[n]) {
			if (!rn_utf8_valid(args[n])) {
				char *fixed = rn_utf8_fix(args[n]);

				free(args[n]);
				args[n] = fixed;
			}
			n++;
		}
		{
			struct rn_otlp_attr *a =
				sb_attr(&b, "process.command_args", RN_OTLP_VAL_STRINGS);

			if (a) {
				a->u.strs.v = (const char *const *)args;
				a->u.strs.n = n;
			}
		}
	}
	if (p->end == RN_PROC_EXITED)
		sb_int(&b, "process.exit.code", p->exit_code);
	if (p->build_id[0])
		sb_str(&b, "renacer.process.build_id", p->build_id);
	sb_str(&b, "renacer.process.end", known(rn_proc_end_name(p->end)));
	if (p->end == RN_PROC_SIGNALED) {
		sb_int(&b, "renacer.process.signal", p->term_signal);
		sb_bool(&b, "renacer.process.core_dumped", p->core_dumped);
	}
	sb_u64(&b, "renacer.process.threads", p->nthreads);
	sb_u64(&b, "renacer.process.syscalls", p->syscalls);
	sb_u64(&b, "renacer.process.syscall_errors", p->syscall_errors);
	sb_u64(&b, "renacer.process.syscall_time_ns", p->syscall_ns);
	if (p->vm_hwm_bytes)
		sb_u64(&b, "renacer.process.peak_rss_bytes", p->vm_hwm_bytes);
	sb_u64(&b, "renacer.process.alloc_peak_bytes", p->alloc_peak_bytes);
	sb_u64(&b, "renacer.process.alloc_total_bytes", p->alloc_total_bytes);
	if (p->exec_ns) {
		struct rn_otlp_event *e = sb_event(&b, "exec", to_unix(p->exec_ns, t->off));
		struct rn_otlp_attr a = { .key = "process.executable.path",
					  .type = RN_OTLP_VAL_STRING };

		a.u.s = p->exe;
		if (e && p->exe)
			sb_event_attr(&b, e, &a);
	}
	if (p->end == RN_PROC_SIGNALED) {
		snprintf(msg, sizeof(msg), "killed by signal %d%s", p->term_signal,
			 p->core_dumped ? " (core dumped)" : "");
		sb_error(&b, msg);
	} else if (p->end == RN_PROC_LOST) {
		sb_error(&b, "lost: no exit was reported");
	} else if (p->end == RN_PROC_EXITED && p->exit_code) {
		snprintf(msg, sizeof(msg), "exit code %d", p->exit_code);
		sb_error(&b, msg);
	}
	rc = sb_emit(w, &b);
	rn_otlp_argv_free(args);
	return rc;
}

/* aggregate mode: one span per syscall name per process, from the process start for the summed
 * duration (clamped to the process's life; the exact sum is an attribute). */
static int emit_syscall_aggregates(struct walk *w, struct twalk *t, size_t k)
{
	const struct rn_trace *tr = &t->r->last;
	const struct rn_process *p = &tr->procs[k];
	uint64_t start = to_unix(p->start_ns, t->off);
	uint64_t end_ns = p->end_ns ? p->end_ns : tr->end_ns;
	uint64_t life = end_ns > p->start_ns ? end_ns - p->start_ns : 0;
	int nr, n = rn_syscall_table_size(), rc;
	uint8_t parent[8];
	struct sb b;

	if (!p->sc)
		return 0;
	proc_span_id(w, t, (int)k, parent);
	for (nr = 0; nr < n; nr++) {
		const struct rn_syscall_stat *s = &p->sc[nr];
		uint8_t id[8];

		if (!s->calls)
			continue;
		rn_otlp_derive_id(w->ctx, RN_OTLP_ROLE_SYSCALL_AGG, t->j, k, (uint64_t)nr, id);
		sb_begin(w, &b, id, parent, start,
			 start + (life && s->total_ns > life ? life : s->total_ns));
		sb_name(&b, "%s", rn_syscall_name(nr));
		sb_bool(&b, "renacer.syscall.aggregate", true);
		sb_int(&b, "process.pid", p->pid);
		sb_u64(&b, "renacer.syscall.calls", s->calls);
		sb_u64(&b, "renacer.syscall.errors", s->errors);
		sb_u64(&b, "renacer.syscall.total_ns", s->total_ns);
		sb_u64(&b, "renacer.syscall.min_ns", s->min_ns);
		sb_u64(&b, "renacer.syscall.max_ns", s->max_ns);
		rc = sb_emit(w, &b);
		if (rc)
			return rc;
	}
	return 0;
}

struct spool_walk {
	struct walk *w;            /* the walk */
	struct twalk *t;           /* the target */
	uint64_t seq;              /* index of the event in the spool (span id input) */
	uint64_t min_ns;           /* threshold: export spans longer than this; 0 = all */
	bool threshold;            /* threshold mode */
	struct rn_symbolizer *sym; /* callers of the spans (code.* attributes), owned */
	struct rn_srcloc *src;     /* their DWARF lines, owned */
};

/* code.filepath, code.lineno, code.function of the code that made a spooled call (OTel
 * semantic conventions, "code" attributes), from DWARF when its module has debug info. */
static void sb_code(struct sb *b, struct spool_walk *sw, const struct rn_trace *tr,
		    const struct rn_syscall_event *ev)
{
	struct rn_src_frame f[RN_SRC_FRAMES_MAX];
	int pi = ev->nstack ? rn_trace_find_process(tr, ev->pid) : -1;

	if (pi < 0 ||
	    rn_srcloc_caller(sw->src, sw->sym, tr->procs[pi].maps, ev->stack, ev->nstack, f,
			     RN_SRC_FRAMES_MAX, NULL, NULL, NULL) < 1 ||
	    !f[0].file)
		return;
	sb_str(b, "code.filepath", f[0].file);
	if (f[0].line)
		sb_int(b, "code.lineno", f[0].line);
	if (f[0].function)
		sb_str(b, "code.function", f[0].function);
}

/* all/threshold modes: one span per spooled syscall. */
static int spool_span(void *vctx, const struct rn_syscall_event *ev)
{
	struct spool_walk *sw = vctx;
	struct walk *w = sw->w;
	struct twalk *t = sw->t;
	uint64_t seq = sw->seq++, start;
	uint8_t id[8], parent[8];
	struct sb b;

	if (sw->threshold && ((ev->flags & RN_SC_UNFINISHED) || ev->duration_ns <= sw->min_ns))
		return 0;
	start = to_unix(ev->start_ns, t->off);
	rn_otlp_derive_id(w->ctx, RN_OTLP_ROLE_SYSCALL, t->j, seq, 0, id);
	proc_span_id(w, t, proc_at(&t->r->last, ev->pid, ev->start_ns), parent);
	sb_begin(w, &b, id, parent, start,
		 start + ((ev->flags & RN_SC_UNFINISHED) ? 0 : ev->duration_ns));
	sb_name(&b, "%s", rn_syscall_name(ev->nr));
	sb_int(&b, "process.pid", ev->pid);
	sb_int(&b, "thread.id", ev->tid);
	if (!(ev->flags & RN_SC_UNFINISHED))
		sb_int(&b, "renacer.syscall.ret", ev->ret);
	if (ev->err)
		sb_str(&b, "error.type", rn_errno_name(ev->err));
	if (ev->path)
		sb_str(&b, "file.path", ev->path);
	if (ev->flags & RN_SC_PATH_TRUNC)
		sb_bool(&b, "renacer.syscall.path_truncated", true);
	sb_code(&b, sw, &t->r->last, ev);
	if (ev->flags & RN_SC_UNFINISHED)
		sb_bool(&b, "renacer.syscall.unfinished", true);
	if (ev->flags & RN_SC_RESTARTED)
		sb_bool(&b, "renacer.syscall.restarted", true);
	return sb_emit(w, &b);
}

static int emit_syscalls(struct walk *w, struct twalk *t)
{
	const struct rn_trace *tr = &t->r->last;
	enum rn_otlp_syscall_spans mode = w->cfg->syscall_spans;
	size_t k;
	int rc;

	if (mode != RN_OTLP_SYSCALLS_AGGREGATE && tr->spool) {
		struct spool_walk sw = { w,
					 t,
					 0,
					 w->cfg->syscall_threshold_ns,
					 mode == RN_OTLP_SYSCALLS_THRESHOLD,
					 rn_symbolizer_new(),
					 rn_srcloc_new(NULL) };

		/* Replaying moves the spool's file offset only; the trace is otherwise read-only. */
		rc = rn_trace_spool_foreach((struct rn_trace *)tr, spool_span, &sw);
		rn_srcloc_free(sw.src);
		rn_symbolizer_free(sw.sym);
		if (rc < 0 && rc != w->batch->err)
			rn_warn("cannot read the span spool of target '%s': %s", t->r->name,
				strerror(-rc));
		return rc == w->batch->err ? rc : 0;
	}
	if (mode != RN_OTLP_SYSCALLS_AGGREGATE && !w->warned_spool && rn_trace_total_syscalls(tr)) {
		rn_warn("otlp: syscall_spans = '%s' needs the span spool, which target '%s' did "
			"not keep; exporting its syscalls as per-process aggregates",
			rn_otlp_syscall_mode_names[mode], t->r->name ? t->r->name : "");
		w->warned_spool = true;
	}
	for (k = 0; k < tr->nprocs; k++) {
		rc = emit_syscall_aggregates(w, t, k);
		if (rc)
			return rc;
	}
	return 0;
}

static int emit_gpu(struct walk *w, struct twalk *t)
{
	const struct rn_trace *tr = &t->r->last;
	size_t i;
	int rc;

	for (i = 0; i < tr->ngpu; i++) {
		const struct rn_gpu_span *g = &tr->gpu[i];
		int64_t groups[3]; /* borrowed by the groups attribute until sb_emit */
		uint8_t id[8], parent[8];
		struct sb b;

		rn_otlp_derive_id(w->ctx, RN_OTLP_ROLE_GPU, t->j, i, 0, id);
		proc_span_id(w, t, proc_at(tr, g->pid, g->start_ns), parent);
		sb_begin(w, &b, id, parent, to_unix(g->start_ns, t->off),
			 to_unix(g->end_ns, t->off));
		sb_name(&b, "gpu:%s", g->name ? g->name : "unnamed");
		sb_str(&b, "renacer.gpu.kind", rn_gpu_kind_name(g->kind));
		sb_int(&b, "process.pid", g->pid);
		sb_u64(&b, "renacer.gpu.queue_family", g->queue_family);
		if (g->kind == RN_GPU_DISPATCH) {
			struct rn_otlp_attr *a;

			if (g->flags & RN_GPU_INDIRECT) {
				sb_bool(&b, "renacer.gpu.indirect", true);
			} else if ((a = sb_attr(&b, "renacer.gpu.groups", RN_OTLP_VAL_INTS))) {
				groups[0] = g->groups[0];
				groups[1] = g->groups[1];
				groups[2] = g->groups[2];
				a->u.ints.v = groups;
				a->u.ints.n = 3;
			}
		}
		if (g->bytes)
			sb_u64(&b, "renacer.gpu.bytes", g->bytes);
		if (g->dir != RN_GPU_DIR_NONE)
			sb_str(&b, "renacer.gpu.direction", known(rn_gpu_dir_name(g->dir)));
		if (g->flags & RN_GPU_SERIALIZED)
			sb_bool(&b, "renacer.gpu.serialized", true);
		if (g->flags & RN_GPU_WAITED)
			sb_bool(&b, "renacer.gpu.waited", true);
		if (g->region)
			sb_str(&b, "renacer.gpu.region", g->region);
		if (g->graph_id)
			sb_u64(&b, "renacer.gpu.graph_id", g->graph_id);
		sb_u64(&b, "renacer.gpu.uncertainty_ns", g->uncertainty_ns);
		if (g->submit_ns)
			sb_event(&b, "submit", to_unix(g->submit_ns, t->off));
		rc = sb_emit(w, &b);
		if (rc)
			return rc;
	}
	return 0;
}

/* Index of the app span of `tr` whose OTLP span id is `id`, or -1 (header spans have none:
 * their parent is matched by name on the same thread, see app_parent). */
static long app_by_span_id(const struct rn_trace *tr, const uint8_t *id)
{
	static const uint8_t zero[8];
	size_t i;

	if (!memcmp(id, zero, 8))
		return -1;
	for (i = 0; i < tr->napp; i++)
		if (!memcmp(tr->app[i].span_id, id, 8))
			return (long)i;
	return -1;
}

/* The enclosing app span of app span `i`: by OTLP parent id, else the innermost span of the
 * same thread named like its parent that contains it. -1 for none. */
static long app_parent(const struct rn_trace *tr, size_t i)
{
	const struct rn_app_span *a = &tr->app[i];
	long best = -1;
	size_t k;

	if (a->source == RN_APP_SOURCE_OTLP)
		return app_by_span_id(tr, a->parent_span_id);
	if (!a->parent)
		return -1;
	for (k = 0; k < tr->napp; k++) {
		const struct rn_app_span *p = &tr->app[k];

		if (k == i || p->pid != a->pid || p->tid != a->tid || strcmp(p->name, a->parent) ||
		    p->start_ns > a->start_ns || p->end_ns < a->end_ns)
			continue;
		if (best < 0 || p->start_ns >= tr->app[best].start_ns)
			best = (long)k;
	}
	return best;
}

/*
 * The program's own spans (the "app" collector): each under its enclosing app span, a
 * top-level one under the run's span, with the attributes the program gave (scalars as they
 * are, arrays and objects as JSON text), the thread, and the span's own thread CPU time
 * (renacer.app.cpu_ns, renacer_span.h push/pop spans) where it has one.
 */
static int emit_app(struct walk *w, struct twalk *t)
{
	const struct rn_trace *tr = &t->r->last;
	size_t i;
	int rc = 0;

	for (i = 0; i < tr->napp && !rc; i++) {
		const struct rn_app_span *a = &tr->app[i];
		uint8_t id[8], parent[8];
		long p = app_parent(tr, i);
		json_t *attrs = a->attrs ? json_loads(a->attrs, 0, NULL) : NULL, *v;
		char *texts[SB_MAX_ATTRS];
		size_t ntexts = 0, k;
		const char *key;
		struct sb b;

		rn_otlp_derive_id(w->ctx, RN_OTLP_ROLE_APP, t->j, i, 0, id);
		if (p >= 0)
			rn_otlp_derive_id(w->ctx, RN_OTLP_ROLE_APP, t->j, (uint64_t)p, 0, parent);
		else
			memcpy(parent, t->procs_parent, 8);
		sb_begin(w, &b, id, parent, to_unix(a->start_ns, t->off),
			 to_unix(a->end_ns, t->off));
		sb_name(&b, "app:%s", a->name);
		sb_str(&b, "renacer.app.source",
		       a->source == RN_APP_SOURCE_OTLP ? "otlp" : "renacer_span.h");
		if (a->pid)
			sb_int(&b, "process.pid", a->pid);
		if (a->tid)
			sb_int(&b, "thread.id", a->tid);
		if (a->flags & RN_APP_CPU)
			sb_int(&b, "renacer.app.cpu_ns",
			       a->cpu_ns > INT64_MAX ? INT64_MAX : (int64_t)a->cpu_ns);
		if (a->flags & RN_APP_UNCLOSED)
			sb_bool(&b, "renacer.app.unclosed", true);
		json_object_foreach(attrs, key, v)
		{
			if (!strcmp(key, "thread.id") || !strcmp(key, "process.pid"))
				continue;
			if (json_is_string(v))
				sb_str(&b, key, json_string_value(v));
			else if (json_is_integer(v))
				sb_int(&b, key, json_integer_value(v));
			else if (json_is_real(v))
				sb_double(&b, key, json_real_value(v));
			else if (json_is_boolean(v))
				sb_bool(&b, key, json_is_true(v));
			else if (ntexts < SB_MAX_ATTRS &&
				 (texts[ntexts] = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY)))
				sb_str(&b, key, texts[ntexts++]);
		}
		if (a->flags & RN_APP_ERROR)
			sb_error(&b, "the program marked the span as an error");
		rc = sb_emit(w, &b);
		for (k = 0; k < ntexts; k++)
			free(texts[k]);
		json_decref(attrs);
	}
	return rc;
}

/*
 * One span per verdict, with the OpenTelemetry test semantic conventions (test.case.name,
 * test.case.result.status = pass|fail, test.suite.name). Verdicts carry a duration but no
 * start: they end with their parent (evaluation follows the runs) and last their duration,
 * cut to the parent's [parent_start, parent_end] so the child lies within its parent.
 */
static int emit_verdict(struct walk *w, const struct rn_verdict_result *v, size_t vi,
			const uint8_t parent[8], uint64_t parent_start, uint64_t parent_end)
{
	uint64_t end = parent_end, span = parent_end > parent_start ? parent_end - parent_start : 0;
	uint64_t start = end - (v->time_ns < span ? v->time_ns : span);
	uint8_t id[8];
	struct sb b;
	bool failed = v->verdict == RN_VERDICT_FAIL || v->verdict == RN_VERDICT_ERROR ||
		v->verdict == RN_VERDICT_NO_DATA;

	rn_otlp_derive_id(w->ctx, RN_OTLP_ROLE_VERDICT, vi, 0, 0, id);
	sb_begin(w, &b, id, parent, start, end);
	sb_name(&b, "assertion:%s", v->assertion ? v->assertion : "");
	sb_str(&b, "test.case.name", v->assertion);
	if (v->verdict != RN_VERDICT_SKIP && v->verdict != RN_VERDICT_NOT_JUDGED)
		sb_str(&b, "test.case.result.status", failed ? "fail" : "pass");
	sb_str(&b, "test.suite.name", v->target);
	sb_str(&b, "renacer.assertion.type", v->type);
	sb_str(&b, "renacer.assertion.verdict", NAME_OF(verdict_labels, v->verdict));
	if (v->has_observed)
		sb_double(&b, "renacer.assertion.observed", v->observed);
	if (v->has_budget)
		sb_double(&b, "renacer.assertion.budget", v->budget);
	if (v->has_golden)
		sb_double(&b, "renacer.assertion.golden", v->golden);
	if (v->has_observed && (v->has_budget || v->has_golden))
		sb_double(&b, "renacer.assertion.delta_pct", v->delta_pct);
	sb_str(&b, "renacer.assertion.unit", v->unit);
	sb_str(&b, "renacer.assertion.message", v->message);
	sb_str(&b, "renacer.assertion.aggregate", v->aggregate);
	if (v->config_line > 0)
		sb_int(&b, "renacer.assertion.config_line", v->config_line);
	if (v->type && !strcmp(v->type, "anti_pattern"))
		sb_double(&b, "renacer.assertion.confidence", v->confidence);
	if (failed)
		sb_error(&b, v->message ? v->message : NAME_OF(verdict_labels, v->verdict));
	return sb_emit(w, &b);
}

static void twalk_init(struct walk *w, struct twalk *t, size_t j)
{
	const struct rn_target_result *r = rn_outcome_side(w->oc, j);
	size_t i;

	memset(t, 0, sizeof(*t));
	t->j = j;
	t->r = r;
	rn_otlp_derive_id(w->ctx, RN_OTLP_ROLE_TARGET, j, 0, 0, t->target_id);
	t->off = w->ctx->mono_to_unix_ns;
	/* The processes are those of r->last: the last counting run's when there were counting
	 * runs (timing runs then keep theirs apart), else the last run's. */
	if (r->nruns || r->ncounts) {
		size_t li = r->ncounts ? r->nruns + r->ncounts - 1 : r->nruns - 1;
		const struct rn_metrics *last = run_of(r, li);

		rn_otlp_run_span_id(w->ctx, j, li, t->procs_parent);
		/* The last run recorded both clocks at its start: that offset lines its
		 * processes up with its span exactly. */
		if (last->start_unix_ns && last->start_ns)
			t->off = (int64_t)last->start_unix_ns - (int64_t)last->start_ns;
	} else {
		memcpy(t->procs_parent, t->target_id, 8);
	}
	t->start = r->start_unix_ns;
	if (!t->start && r->nruns)
		t->start = run_start_unix(w, &r->runs[0]);
	if (!t->start && r->last.start_ns)
		t->start = to_unix(r->last.start_ns, t->off);
	if (!t->start)
		t->start = w->root_start;
	t->end = t->start + r->duration_ns;
	for (i = 0; i < r->nruns + r->ncounts; i++) {
		uint64_t e = run_start_unix(w, run_of(r, i)) + run_of(r, i)->v[RN_METRIC_WALL];

		if (e > t->end)
			t->end = e;
	}
	if (r->last.end_ns && to_unix(r->last.end_ns, t->off) > t->end)
		t->end = to_unix(r->last.end_ns, t->off);
}

static int walk_target(struct walk *w, size_t j)
{
	struct rn_outcome_verdicts it = { w->oc, 0, 0, 0 };
	const struct rn_verdict_result *v;
	struct twalk t;
	size_t i;
	int rc;

	twalk_init(w, &t, j);
	rc = emit_target(w, &t);
	for (i = 0; !rc && i < t.r->nruns + t.r->ncounts; i++)
		rc = emit_run(w, &t, i);
	for (i = 0; !rc && i < t.r->last.nprocs; i++)
		rc = emit_process(w, &t, i);
	if (!rc)
		rc = emit_syscalls(w, &t);
	if (!rc)
		rc = emit_gpu(w, &t);
	if (!rc)
		rc = emit_app(w, &t);
	for (v = rn_outcome_verdict_next(&it); !rc && v; v = rn_outcome_verdict_next(&it))
		if (v->target && t.r->name && !strcmp(v->target, t.r->name))
			rc = emit_verdict(w, v, it.index - 1, t.target_id, t.start, t.end);
	return rc;
}

static bool verdict_has_target(const struct rn_outcome *oc, const struct rn_verdict_result *v)
{
	size_t j;

	for (j = 0; v->target && j < rn_outcome_nsides(oc); j++) {
		const struct rn_target_result *r = rn_outcome_side(oc, j);

		if (r->name && !strcmp(r->name, v->target))
			return true;
	}
	return false;
}

/* Produce every span of the check into `batch`, parents before children. */
int rn_otlp_walk(const struct rn_otlp_cfg *cfg, const struct rn_otlp_context *ctx,
		 const struct rn_outcome *oc, struct rn_otlp_batch *batch)
{
	struct rn_outcome_verdicts it = { oc, 0, 0, 0 };
	size_t nsides = rn_outcome_nsides(oc), j;
	const struct rn_verdict_result *v;
	struct walk w;
	int rc;

	memset(&w, 0, sizeof(w));
	w.cfg = cfg;
	w.ctx = ctx;
	w.oc = oc;
	w.batch = batch;
	w.span_flags = ctx->trace_flags | RN_OTLP_SPAN_FLAGS_HAS_IS_REMOTE;
	w.root_start = oc->start_unix_ns;
	w.root_end = rn_outcome_end_ns(oc);
	if (!w.root_start) {
		w.root_start = w.root_end;
		for (j = 0; j < nsides; j++) {
			uint64_t start = rn_outcome_side(oc, j)->start_unix_ns;

			if (start && start < w.root_start)
				w.root_start = start;
		}
	}
	rc = emit_root(&w);
	for (j = 0; !rc && j < nsides; j++)
		rc = walk_target(&w, j);
	for (v = rn_outcome_verdict_next(&it); !rc && v; v = rn_outcome_verdict_next(&it))
		if (!verdict_has_target(oc, v))
			rc = emit_verdict(&w, v, it.index - 1, ctx->root_span_id, w.root_start,
					  w.root_end);
	if (!rc)
		rc = rn_otlp_batch_flush(batch);
	return rc;
}

/* ---- Resource ---------------------------------------------------------------------------- */

static void res_set(struct rn_otlp_res *r, const char *key, const char *value)
{
	size_t i;

	if (!rn_utf8_valid(value)) {
		r->owned = rn_xrealloc(r->owned, (r->nowned + 1) * sizeof(*r->owned));
		r->owned[r->nowned] = rn_utf8_fix(value);
		value = r->owned[r->nowned++];
	}
	for (i = 0; i < r->n; i++) {
		if (!strcmp(r->attrs[i].key, key)) {
			r->attrs[i].u.s = value;
			return;
		}
	}
	r->attrs = rn_xrealloc(r->attrs, (r->n + 1) * sizeof(*r->attrs));
	r->attrs[r->n].key = key;
	r->attrs[r->n].type = RN_OTLP_VAL_STRING;
	r->attrs[r->n].u.s = value;
	r->n++;
}

/* semconv host.arch values for uname's machine names. */
static const char *host_arch(const char *machine)
{
	static const struct {
		const char *uname, *arch;
	} map[] = {
		{ "x86_64", "amd64" }, { "aarch64", "arm64" }, { "arm64", "arm64" },
		{ "i386", "x86" },     { "i686", "x86" },      { "armv7l", "arm32" },
		{ "ppc64", "ppc64" },  { "ppc64le", "ppc64" }, { "s390x", "s390x" },
		{ "ppc", "ppc32" },    { "ia64", "ia64" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(map); i++)
		if (!strcmp(machine, map[i].uname))
			return map[i].arch;
	return machine;
}

/* Resource attributes, later ones overriding earlier ones with the same key: detected facts,
 * then cfg->resource (CI/VCS, then OTEL_RESOURCE_ATTRIBUTES, then the config file), then the
 * service name (config/CLI, OTEL_SERVICE_NAME). */
void rn_otlp_res_build(struct rn_otlp_res *r, const struct rn_otlp_cfg *cfg)
{
	size_t i;

	memset(r, 0, sizeof(*r));
	res_set(r, "service.name", RN_OTLP_DEFAULT_SERVICE_NAME);
	res_set(r, "service.version", RN_VERSION);
	if (!gethostname(r->host, sizeof(r->host) - 1))
		res_set(r, "host.name", r->host);
	if (!uname(&r->uts)) {
		res_set(r, "host.arch", host_arch(r->uts.machine));
		res_set(r, "os.version", r->uts.release);
	}
	res_set(r, "os.type", "linux");
	for (i = 0; i < cfg->nresource; i++)
		res_set(r, cfg->resource[i].key, cfg->resource[i].value);
	if (cfg->service_name)
		res_set(r, "service.name", cfg->service_name);
	r->res.attrs = r->attrs;
	r->res.nattrs = r->n;
	r->res.scope_name = "renacer";
	r->res.scope_version = RN_VERSION;
}

void rn_otlp_res_release(struct rn_otlp_res *r)
{
	size_t i;

	for (i = 0; i < r->nowned; i++)
		free(r->owned[i]);
	free(r->owned);
	free(r->attrs);
}
