/*
 * results.c - the results file of a check: JSON writer and reader (format in RESULTS.md beside it).
 *
 * Enumerations travel by name through their one table (verdicts by the labels of RN_VERDICTS,
 * metrics by the names of RN_METRICS, syscalls by name), so a verdict or metric added to its
 * table is written and read without a change here, and a file moves between machines whose
 * syscall numbering differs. Unknown metric and syscall names are skipped on reading (a newer
 * writer or another architecture); an unknown verdict label is an error, since a verdict the
 * reader cannot judge must not turn into a pass.
 */
#include "results.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "internal.h"
#include "config.h"
#include "log.h"
#include "xalloc.h"

/* Units the evaluators and the golden comparison use (verdict->unit is a static string). */
static const char *const static_units[] = { "",           "ms",    "ns",    "bytes", "spans",
					    "confidence", "calls", "count", "%" };

/* ---- writing ---------------------------------------------------------------------------- */

/* Status names are the trace model's (trace.h); a corrupt value is written as "error". */
static const char *status_name(enum rn_run_status status)
{
	return rn_run_status_name(status) ? rn_run_status_name(status) : "error";
}

/* Members are added with put(); the first failure (out of memory) sticks in *failed. */
static void put(json_t *o, const char *key, json_t *v, bool *failed)
{
	if (!v || json_object_set_new(o, key, v) < 0)
		*failed = true;
}

static void append(json_t *a, json_t *v, bool *failed)
{
	if (!v || json_array_append_new(a, v) < 0)
		*failed = true;
}

static json_t *ju64(uint64_t v)
{
	return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)v);
}

/* A double; JSON has no infinities or NaN, so those become the strings "inf", "-inf", "nan". */
static json_t *jdouble(double v)
{
	if (isnan(v))
		return json_string("nan");
	if (isinf(v))
		return json_string(v > 0 ? "inf" : "-inf");
	return json_real(v);
}

static json_t *jstr_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *write_argv(char *const *argv, bool *failed)
{
	json_t *a = json_array();
	size_t i;

	if (!a) {
		*failed = true;
		return NULL;
	}
	for (i = 0; argv && argv[i]; i++)
		append(a, json_string(argv[i]), failed);
	return a;
}

static json_t *write_run(const struct rn_metrics *m, bool *failed)
{
	json_t *o = json_object(), *mv = json_object();
	int k;

	if (!o || !mv) {
		json_decref(o);
		json_decref(mv);
		*failed = true;
		return NULL;
	}
	put(o, "start_ns", ju64(m->start_ns), failed);
	put(o, "start_unix_ns", ju64(m->start_unix_ns), failed);
	put(o, "status", json_string(status_name(m->status)), failed);
	put(o, "has_gpu", json_boolean(m->has_gpu), failed);
	put(o, "measures",
	    json_string(m->measures == RN_MEASURES_TIMES          ? "times" :
				m->measures == RN_MEASURES_COUNTS ? "counts" :
								    "both"),
	    failed);
	for (k = 0; k < RN_METRIC_COUNT; k++)
		put(mv, rn_metric_info((enum rn_metric)k)->name, ju64(m->v[k]), failed);
	put(o, "metrics", mv, failed);
	return o;
}

static json_t *write_process(const struct rn_process *p, bool *failed)
{
	json_t *o = json_object(), *sc = json_object();
	int nr, n = rn_syscall_table_size();

	if (!o || !sc) {
		json_decref(o);
		json_decref(sc);
		*failed = true;
		return NULL;
	}
	put(o, "pid", json_integer(p->pid), failed);
	put(o, "ppid", json_integer(p->ppid), failed);
	put(o, "parent", json_integer(p->parent), failed);
	put(o, "nthreads", json_integer(p->nthreads), failed);
	put(o, "exe", jstr_or_null(p->exe), failed);
	put(o, "build_id", json_string(p->build_id), failed);
	put(o, "start_ns", ju64(p->start_ns), failed);
	put(o, "exec_ns", ju64(p->exec_ns), failed);
	put(o, "end_ns", ju64(p->end_ns), failed);
	put(o, "reaped_ns", ju64(p->reaped_ns), failed);
	put(o, "reaped_by", json_integer(p->reaped_by), failed);
	put(o, "end", json_string(rn_proc_end_name(p->end) ? rn_proc_end_name(p->end) : "lost"),
	    failed);
	put(o, "exit_code", json_integer(p->exit_code), failed);
	put(o, "term_signal", json_integer(p->term_signal), failed);
	put(o, "core_dumped", json_boolean(p->core_dumped), failed);
	put(o, "vm_hwm_bytes", ju64(p->vm_hwm_bytes), failed);
	put(o, "syscalls", ju64(p->syscalls), failed);
	put(o, "syscall_errors", ju64(p->syscall_errors), failed);
	put(o, "syscall_ns", ju64(p->syscall_ns), failed);
	put(o, "alloc_peak_bytes", ju64(p->alloc_peak_bytes), failed);
	put(o, "alloc_total_bytes", ju64(p->alloc_total_bytes), failed);
	/* Per syscall [calls, errors, total_ns, min_ns, max_ns], only the ones called. */
	for (nr = 0; p->sc && nr < n; nr++) {
		const struct rn_syscall_stat *s = &p->sc[nr];
		json_t *a;

		if (!s->calls && !s->errors)
			continue;
		a = json_pack("[IIIII]", (json_int_t)s->calls, (json_int_t)s->errors,
			      (json_int_t)s->total_ns, (json_int_t)s->min_ns,
			      (json_int_t)s->max_ns);
		put(sc, rn_syscall_name(nr), a, failed);
	}
	put(o, "syscall_stats", sc, failed);
	return o;
}

static json_t *write_gpu(const struct rn_gpu_span *g, bool *failed)
{
	json_t *o = json_object();

	if (!o) {
		*failed = true;
		return NULL;
	}
	put(o, "pid", json_integer(g->pid), failed);
	put(o, "kind", json_integer(g->kind), failed);
	put(o, "flags", json_integer(g->flags), failed);
	put(o, "name", jstr_or_null(g->name), failed);
	put(o, "queue_family", json_integer(g->queue_family), failed);
	put(o, "start_ns", ju64(g->start_ns), failed);
	put(o, "end_ns", ju64(g->end_ns), failed);
	put(o, "submit_ns", ju64(g->submit_ns), failed);
	put(o, "uncertainty_ns", ju64(g->uncertainty_ns), failed);
	put(o, "groups",
	    json_pack("[iii]", (int)g->groups[0], (int)g->groups[1], (int)g->groups[2]), failed);
	put(o, "bytes", ju64(g->bytes), failed);
	put(o, "dir", json_integer(g->dir), failed);
	if (g->region)
		put(o, "region", jstr_or_null(g->region), failed);
	if (g->graph_id)
		put(o, "graph_id", ju64(g->graph_id), failed);
	if (g->graph_node_id)
		put(o, "graph_node_id", ju64(g->graph_node_id), failed);
	if (g->launch_id)
		put(o, "launch_id", ju64(g->launch_id), failed);
	return o;
}

static json_t *write_last(const struct rn_trace *t, bool *failed)
{
	json_t *o = json_object(), *procs = json_array(), *gpu = json_array();
	size_t i;

	if (!o || !procs || !gpu) {
		json_decref(o);
		json_decref(procs);
		json_decref(gpu);
		*failed = true;
		return NULL;
	}
	put(o, "start_ns", ju64(t->start_ns), failed);
	put(o, "end_ns", ju64(t->end_ns), failed);
	put(o, "peak_rss_bytes", ju64(t->peak_rss_bytes), failed);
	put(o, "cpu_ns", ju64(t->cpu_ns), failed);
	put(o, "user_ns", ju64(t->user_ns), failed);
	put(o, "filtered", json_boolean(t->filtered), failed);
	put(o, "counts_only", json_boolean(t->counts_only), failed);
	for (i = 0; i < t->nprocs; i++)
		append(procs, write_process(&t->procs[i], failed), failed);
	for (i = 0; i < t->ngpu; i++)
		append(gpu, write_gpu(&t->gpu[i], failed), failed);
	put(o, "processes", procs, failed);
	put(o, "gpu_spans", gpu, failed);
	return o;
}

static json_t *write_verdict(const struct rn_verdict_result *v, bool *failed)
{
	json_t *o = json_object();

	if (!o) {
		*failed = true;
		return NULL;
	}
	put(o, "assertion", jstr_or_null(v->assertion), failed);
	put(o, "type", jstr_or_null(v->type), failed);
	put(o, "target", jstr_or_null(v->target), failed);
	put(o, "verdict", json_string(rn_verdict_label(v->verdict)), failed);
	if (v->has_observed)
		put(o, "observed", jdouble(v->observed), failed);
	if (v->has_budget)
		put(o, "budget", jdouble(v->budget), failed);
	if (v->has_golden)
		put(o, "golden", jdouble(v->golden), failed);
	put(o, "delta_pct", jdouble(v->delta_pct), failed);
	put(o, "unit", jstr_or_null(v->unit), failed);
	put(o, "message", jstr_or_null(v->message), failed);
	put(o, "detail", jstr_or_null(v->detail), failed);
	put(o, "aggregate", jstr_or_null(v->aggregate), failed);
	put(o, "reason", jstr_or_null(v->reason), failed);
	put(o, "config_line", json_integer(v->config_line), failed);
	put(o, "confidence", jdouble(v->confidence), failed);
	if (v->mde_pct > 0)
		put(o, "mde_pct", jdouble(v->mde_pct), failed);
	put(o, "time_ns", ju64(v->time_ns), failed);
	return o;
}

static json_t *write_target(const struct rn_outcome *oc, size_t i, bool *failed)
{
	const struct rn_target_result *r = &oc->targets[i];
	const struct rn_target_report *tv = &oc->reports[i];
	json_t *o = json_object(), *runs = json_array(), *counts = json_array(),
	       *verdicts = json_array();
	size_t k;

	if (!o || !runs || !counts || !verdicts) {
		json_decref(o);
		json_decref(runs);
		json_decref(counts);
		json_decref(verdicts);
		*failed = true;
		return NULL;
	}
	put(o, "name", json_string(r->name), failed);
	put(o, "argv", write_argv(oc->argv ? (char *const *)oc->argv[i] : NULL, failed), failed);
	put(o, "status", json_string(status_name(r->status)), failed);
	put(o, "error", jstr_or_null(r->error), failed);
	put(o, "build_id", jstr_or_null(r->build_id), failed);
	put(o, "start_unix_ns", ju64(r->start_unix_ns), failed);
	put(o, "duration_ns", ju64(r->duration_ns), failed);
	if (r->has_cpu_pressure)
		put(o, "cpu_pressure", jdouble(r->cpu_pressure), failed);
	put(o, "golden_file", jstr_or_null(tv->golden_file), failed);
	for (k = 0; k < r->nruns; k++)
		append(runs, write_run(&r->runs[k], failed), failed);
	put(o, "runs", runs, failed);
	for (k = 0; k < r->ncounts; k++)
		append(counts, write_run(&r->counts[k], failed), failed);
	put(o, "counting_runs", counts, failed);
	put(o, "last_run", write_last(&r->last, failed), failed);
	for (k = 0; k < tv->nverdicts; k++)
		append(verdicts, write_verdict(&tv->verdicts[k], failed), failed);
	put(o, "verdicts", verdicts, failed);
	return o;
}

int rn_results_write(const char *path, const struct rn_outcome *oc)
{
	json_t *root = json_object(), *shard = json_object(), *suite = json_array(),
	       *targets = json_array();
	bool failed = !root || !shard || !suite || !targets;
	char *text = NULL;
	size_t i;
	int rc;

	if (failed) {
		json_decref(root);
		json_decref(shard);
		json_decref(suite);
		json_decref(targets);
		rn_error("cannot write results file '%s': out of memory", path);
		return -ENOMEM;
	}
	put(root, "format", json_string(RN_RESULTS_FORMAT), &failed);
	put(root, "version", json_integer(RN_RESULTS_VERSION), &failed);
	put(root, "renacer_version", json_string(RN_VERSION), &failed);
	put(shard, "index", json_integer(oc->shard.count ? oc->shard.index : 1), &failed);
	put(shard, "count", json_integer(oc->shard.count ? oc->shard.count : 1), &failed);
	put(root, "shard", shard, &failed);
	put(root, "config", jstr_or_null(oc->config_path), &failed);
	for (i = 0; i < oc->nsuite; i++)
		append(suite, json_string(oc->suite[i]), &failed);
	put(root, "suite", suite, &failed);
	put(root, "start_unix_ns", ju64(oc->start_unix_ns), &failed);
	put(root, "end_unix_ns", ju64(rn_outcome_end_ns(oc)), &failed);
	put(root, "exit_code", json_integer(oc->exit_code), &failed);
	put(root, "worst_other", json_integer(oc->worst_other), &failed);
	put(root, "interrupted", json_integer(oc->interrupted), &failed);
	put(root, "not_judged_fails", json_boolean(oc->not_judged_fails), &failed);
	for (i = 0; i < oc->ntargets; i++)
		append(targets, write_target(oc, i, &failed), &failed);
	put(root, "targets", targets, &failed);
	if (!failed)
		text = json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
	json_decref(root);
	if (!text) {
		rn_error("cannot write results file '%s': out of memory", path);
		return -ENOMEM;
	}
	rc = rn_write_file_atomic(path, text, strlen(text));
	free(text);
	if (rc < 0)
		rn_error("cannot write results file '%s': %s", path, strerror(-rc));
	return rc;
}

/* ---- reading ---------------------------------------------------------------------------- */

/* Reader state: the file name for messages and the first error. */
struct reader {
	const char *path;
	int err;                /* first error, 0 while fine */
	struct rn_results *res; /* what is read; res->oc's arrays are those below */
	char ***argv;           /* the owned commands, res->oc.argv */
	char **suite;           /* the owned suite names, res->oc.suite */
};

static void bad(struct reader *rd, const char *fmt, ...) RN_PRINTF(2, 3);
static void bad(struct reader *rd, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (rd->err)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	rn_error("%s: %s", rd->path, msg);
	rd->err = -EINVAL;
}

static json_t *member(struct reader *rd, json_t *o, const char *key, json_type type,
		      const char *where, bool optional)
{
	json_t *v = json_object_get(o, key);

	if (!v || json_is_null(v)) {
		if (!optional)
			bad(rd, "missing '%s' in %s", key, where);
		return NULL;
	}
	if (json_typeof(v) != type && !(type == JSON_TRUE && json_is_boolean(v)) &&
	    !(type == JSON_REAL && json_is_number(v)) &&
	    !(type == JSON_REAL && json_is_string(v))) {
		bad(rd, "'%s' in %s has the wrong type", key, where);
		return NULL;
	}
	return v;
}

static uint64_t get_u64(struct reader *rd, json_t *o, const char *key, const char *where)
{
	json_t *v = member(rd, o, key, JSON_INTEGER, where, true);

	if (!v)
		return 0;
	if (json_integer_value(v) < 0) {
		bad(rd, "'%s' in %s must not be negative", key, where);
		return 0;
	}
	return (uint64_t)json_integer_value(v);
}

static long long get_int(struct reader *rd, json_t *o, const char *key, const char *where)
{
	json_t *v = member(rd, o, key, JSON_INTEGER, where, true);

	return v ? (long long)json_integer_value(v) : 0;
}

static bool get_bool(struct reader *rd, json_t *o, const char *key, const char *where)
{
	json_t *v = member(rd, o, key, JSON_TRUE, where, true);

	return v && json_is_true(v);
}

/* An owned copy of a string member, or NULL when absent or null. */
static char *get_str(struct reader *rd, json_t *o, const char *key, const char *where,
		     bool optional)
{
	json_t *v = member(rd, o, key, JSON_STRING, where, optional);

	return v ? rn_xstrdup(json_string_value(v)) : NULL;
}

static double get_double(struct reader *rd, json_t *o, const char *key, const char *where,
			 bool *has)
{
	json_t *v = member(rd, o, key, JSON_REAL, where, true);
	const char *s;

	*has = v != NULL;
	if (!v)
		return 0;
	if (json_is_number(v))
		return json_number_value(v);
	s = json_string_value(v);
	if (!strcmp(s, "inf"))
		return INFINITY;
	if (!strcmp(s, "-inf"))
		return -INFINITY;
	if (!strcmp(s, "nan"))
		return NAN;
	bad(rd, "'%s' in %s is not a number", key, where);
	*has = false;
	return 0;
}

static enum rn_run_status get_status(struct reader *rd, json_t *o, const char *where)
{
	json_t *v = member(rd, o, "status", JSON_STRING, where, false);
	int i;

	if (!v)
		return RN_RUN_ERROR;
	i = rn_run_status_lookup(json_string_value(v));
	if (i < 0) {
		bad(rd, "unknown status '%s' in %s", json_string_value(v), where);
		return RN_RUN_ERROR;
	}
	return (enum rn_run_status)i;
}

static char **read_argv(struct reader *rd, json_t *a, const char *where)
{
	size_t i, n = a ? json_array_size(a) : 0;
	char **argv = rn_xcalloc(n + 1, sizeof(*argv));

	for (i = 0; i < n; i++) {
		json_t *s = json_array_get(a, i);

		if (!json_is_string(s)) {
			bad(rd, "argv of %s holds a non-string", where);
			break;
		}
		argv[i] = rn_xstrdup(json_string_value(s));
	}
	return argv;
}

static void read_run(struct reader *rd, json_t *o, struct rn_metrics *m, const char *where)
{
	json_t *mv, *val;
	const char *key;

	if (!json_is_object(o)) {
		bad(rd, "a run of %s is not an object", where);
		return;
	}
	m->start_ns = get_u64(rd, o, "start_ns", where);
	m->start_unix_ns = get_u64(rd, o, "start_unix_ns", where);
	m->status = get_status(rd, o, where);
	m->has_gpu = get_bool(rd, o, "has_gpu", where);
	{
		json_t *mv_kind = member(rd, o, "measures", JSON_STRING, where, true);
		const char *kind = mv_kind ? json_string_value(mv_kind) : "both";

		if (!strcmp(kind, "times"))
			m->measures = RN_MEASURES_TIMES;
		else if (!strcmp(kind, "counts"))
			m->measures = RN_MEASURES_COUNTS;
		else if (!strcmp(kind, "both"))
			m->measures = RN_MEASURES_BOTH;
		else
			bad(rd, "a run of %s measures '%s' (expected times, counts or both)", where,
			    kind);
	}
	mv = member(rd, o, "metrics", JSON_OBJECT, where, false);
	json_object_foreach(mv, key, val)
	{
		int k = rn_metric_lookup(key);

		if (k < 0)
			continue; /* a metric of a newer writer */
		if (!json_is_integer(val) || json_integer_value(val) < 0) {
			bad(rd, "metric '%s' of %s is not a non-negative integer", key, where);
			return;
		}
		m->v[k] = (uint64_t)json_integer_value(val);
	}
}

static void read_process(struct reader *rd, json_t *o, struct rn_trace *t, const char *where)
{
	struct rn_process *p;
	json_t *sc, *val;
	const char *key, *end;
	char *exe;
	int i;

	if (!json_is_object(o)) {
		bad(rd, "a process of %s is not an object", where);
		return;
	}
	p = rn_trace_add_process(t, (pid_t)get_int(rd, o, "pid", where),
				 (pid_t)get_int(rd, o, "ppid", where),
				 get_u64(rd, o, "start_ns", where));
	p->parent = (int)get_int(rd, o, "parent", where);
	if (p->parent < -1 || p->parent >= (int)t->nprocs - 1) {
		bad(rd, "a process of %s has parent %d out of range", where, p->parent);
		p->parent = -1;
	}
	p->nthreads = (uint32_t)get_u64(rd, o, "nthreads", where);
	exe = get_str(rd, o, "exe", where, true);
	if (exe)
		rn_process_set_exe(p, exe);
	free(exe);
	{
		json_t *b = member(rd, o, "build_id", JSON_STRING, where, true);

		if (b)
			snprintf(p->build_id, sizeof(p->build_id), "%s", json_string_value(b));
	}
	p->exec_ns = get_u64(rd, o, "exec_ns", where);
	p->end_ns = get_u64(rd, o, "end_ns", where);
	p->reaped_ns = get_u64(rd, o, "reaped_ns", where);
	p->reaped_by = (int)get_int(rd, o, "reaped_by", where);
	end = json_string_value(member(rd, o, "end", JSON_STRING, where, true));
	i = rn_proc_end_lookup(end);
	p->end = i < 0 ? RN_PROC_LOST : (enum rn_proc_end)i;
	p->exit_code = (int)get_int(rd, o, "exit_code", where);
	p->term_signal = (int)get_int(rd, o, "term_signal", where);
	p->core_dumped = get_bool(rd, o, "core_dumped", where);
	p->vm_hwm_bytes = get_u64(rd, o, "vm_hwm_bytes", where);
	p->syscalls = get_u64(rd, o, "syscalls", where);
	p->syscall_errors = get_u64(rd, o, "syscall_errors", where);
	p->syscall_ns = get_u64(rd, o, "syscall_ns", where);
	p->alloc_peak_bytes = get_u64(rd, o, "alloc_peak_bytes", where);
	p->alloc_total_bytes = get_u64(rd, o, "alloc_total_bytes", where);
	sc = member(rd, o, "syscall_stats", JSON_OBJECT, where, true);
	json_object_foreach(sc, key, val)
	{
		int nr = rn_syscall_lookup(key);
		json_int_t v[5];

		if (nr < 0)
			continue; /* not a syscall of this machine's ABI */
		if (json_unpack(val, "[IIIII]", &v[0], &v[1], &v[2], &v[3], &v[4])) {
			bad(rd,
			    "syscall '%s' of %s is not [calls, errors, total_ns, min_ns, max_ns]",
			    key, where);
			return;
		}
		if (!p->sc)
			p->sc = rn_xcalloc((size_t)rn_syscall_table_size(), sizeof(*p->sc));
		p->sc[nr].calls = (uint64_t)v[0];
		p->sc[nr].errors = (uint64_t)v[1];
		p->sc[nr].total_ns = (uint64_t)v[2];
		p->sc[nr].min_ns = (uint64_t)v[3];
		p->sc[nr].max_ns = (uint64_t)v[4];
	}
}

static void read_gpu(struct reader *rd, json_t *o, struct rn_trace *t, const char *where)
{
	struct rn_gpu_span g;
	char *name, *region;
	json_t *groups;

	if (!json_is_object(o)) {
		bad(rd, "a GPU span of %s is not an object", where);
		return;
	}
	memset(&g, 0, sizeof(g));
	g.pid = (pid_t)get_int(rd, o, "pid", where);
	g.kind = (enum rn_gpu_kind)get_int(rd, o, "kind", where);
	g.flags = (uint32_t)get_u64(rd, o, "flags", where);
	name = get_str(rd, o, "name", where, true);
	g.name = name ? name : (char *)"";
	g.queue_family = (uint32_t)get_u64(rd, o, "queue_family", where);
	g.start_ns = get_u64(rd, o, "start_ns", where);
	g.end_ns = get_u64(rd, o, "end_ns", where);
	g.submit_ns = get_u64(rd, o, "submit_ns", where);
	g.uncertainty_ns = get_u64(rd, o, "uncertainty_ns", where);
	groups = member(rd, o, "groups", JSON_ARRAY, where, true);
	if (groups) {
		int a = 0, b = 0, c = 0;

		json_unpack(groups, "[iii]", &a, &b, &c);
		g.groups[0] = (uint32_t)a;
		g.groups[1] = (uint32_t)b;
		g.groups[2] = (uint32_t)c;
	}
	g.bytes = get_u64(rd, o, "bytes", where);
	g.dir = (enum rn_gpu_dir)get_int(rd, o, "dir", where);
	region = get_str(rd, o, "region", where, true);
	g.region = region;
	g.graph_id = (uint32_t)get_u64(rd, o, "graph_id", where);
	g.graph_node_id = get_u64(rd, o, "graph_node_id", where);
	g.launch_id = get_u64(rd, o, "launch_id", where);
	/* Enumerations index name tables in the exporters: out of range is malformed. */
	if ((unsigned)g.kind > RN_GPU_GRAPH || (unsigned)g.dir > RN_GPU_DIR_HTOH)
		bad(rd, "a GPU span of %s has an unknown kind or direction", where);
	else
		rn_trace_add_gpu(t, &g);
	free(name);
	free(region);
}

static void read_last(struct reader *rd, json_t *o, struct rn_trace *t, const char *where)
{
	json_t *a;
	size_t i;

	if (!o)
		return;
	t->start_ns = get_u64(rd, o, "start_ns", where);
	t->end_ns = get_u64(rd, o, "end_ns", where);
	t->peak_rss_bytes = get_u64(rd, o, "peak_rss_bytes", where);
	t->cpu_ns = get_u64(rd, o, "cpu_ns", where);
	t->user_ns = get_u64(rd, o, "user_ns", where);
	t->filtered = get_bool(rd, o, "filtered", where);
	t->counts_only = get_bool(rd, o, "counts_only", where);
	a = member(rd, o, "processes", JSON_ARRAY, where, true);
	for (i = 0; a && i < json_array_size(a) && !rd->err; i++)
		read_process(rd, json_array_get(a, i), t, where);
	for (i = 0; i < t->nprocs && !rd->err; i++) {
		if (t->procs[i].reaped_by < -1 || t->procs[i].reaped_by >= (int)t->nprocs) {
			bad(rd, "a process of %s has reaped_by %d out of range", where,
			    t->procs[i].reaped_by);
			t->procs[i].reaped_by = -1;
		}
	}
	a = member(rd, o, "gpu_spans", JSON_ARRAY, where, true);
	for (i = 0; a && i < json_array_size(a) && !rd->err; i++)
		read_gpu(rd, json_array_get(a, i), t, where);
}

/* verdict->unit is a static string: the known ones map to literals, others are kept in the
 * results' pool. */
static const char *intern_unit(struct rn_results *res, const char *s)
{
	size_t i;

	if (!s)
		return NULL;
	for (i = 0; i < sizeof(static_units) / sizeof(static_units[0]); i++)
		if (!strcmp(static_units[i], s))
			return static_units[i];
	for (i = 0; i < res->nstrings; i++)
		if (!strcmp(res->strings[i], s))
			return res->strings[i];
	res->strings = rn_xrealloc(res->strings, (res->nstrings + 1) * sizeof(*res->strings));
	res->strings[res->nstrings] = rn_xstrdup(s);
	return res->strings[res->nstrings++];
}

static void read_verdict(struct reader *rd, json_t *o, struct rn_verdict_result *v,
			 const char *where)
{
	json_t *lab;
	int k;

	if (!json_is_object(o)) {
		bad(rd, "a verdict of %s is not an object", where);
		return;
	}
	v->assertion = get_str(rd, o, "assertion", where, false);
	v->type = get_str(rd, o, "type", where, true);
	v->target = get_str(rd, o, "target", where, true);
	if (v->target && !rn_config_name_valid(v->target))
		bad(rd, "target name '%s' of a verdict of %s must match [A-Za-z0-9_.-]+", v->target,
		    where);
	lab = member(rd, o, "verdict", JSON_STRING, where, false);
	for (k = 0; lab && k < RN_VERDICT_COUNT; k++)
		if (!strcmp(rn_verdict_label((enum rn_verdict)k), json_string_value(lab)))
			break;
	if (lab && k == RN_VERDICT_COUNT)
		bad(rd, "unknown verdict '%s' of '%s' in %s", json_string_value(lab),
		    v->assertion ? v->assertion : "?", where);
	v->verdict = lab && k < RN_VERDICT_COUNT ? (enum rn_verdict)k : RN_VERDICT_ERROR;
	v->observed = get_double(rd, o, "observed", where, &v->has_observed);
	v->budget = get_double(rd, o, "budget", where, &v->has_budget);
	v->golden = get_double(rd, o, "golden", where, &v->has_golden);
	{
		bool has;

		v->delta_pct = get_double(rd, o, "delta_pct", where, &has);
		v->confidence = get_double(rd, o, "confidence", where, &has);
		v->mde_pct = get_double(rd, o, "mde_pct", where, &has);
		if (!has || !(v->mde_pct > 0))
			v->mde_pct = 0.0;
	}
	{
		json_t *u = member(rd, o, "unit", JSON_STRING, where, true);

		v->unit = u ? intern_unit(rd->res, json_string_value(u)) : NULL;
	}
	v->message = get_str(rd, o, "message", where, true);
	v->detail = get_str(rd, o, "detail", where, true);
	v->aggregate = get_str(rd, o, "aggregate", where, true);
	v->reason = get_str(rd, o, "reason", where, true);
	v->config_line = (int)get_int(rd, o, "config_line", where);
	v->time_ns = get_u64(rd, o, "time_ns", where);
}

static void read_target(struct reader *rd, json_t *o, size_t i)
{
	struct rn_results *res = rd->res;
	struct rn_target_result *r = &res->oc.targets[i];
	struct rn_target_report *tv = &res->oc.reports[i];
	char where[256];
	json_t *name, *a;
	size_t k;

	if (!json_is_object(o)) {
		bad(rd, "targets[%zu] is not an object", i);
		return;
	}
	snprintf(where, sizeof(where), "targets[%zu]", i);
	name = member(rd, o, "name", JSON_STRING, where, false);
	if (!name)
		return;
	/* check's rule: a results file comes from a job that ran a pull request's code, and
	 * its names reach logs, JUnit, the history store and CI commands */
	if (!rn_config_name_valid(json_string_value(name))) {
		bad(rd, "target name '%s' of %s must match [A-Za-z0-9_.-]+",
		    json_string_value(name), where);
		return;
	}
	rn_target_result_init(r, json_string_value(name));
	tv->result = r;
	snprintf(where, sizeof(where), "target '%s'", r->name);
	rd->argv[i] = read_argv(rd, member(rd, o, "argv", JSON_ARRAY, where, true), where);
	r->status = get_status(rd, o, where);
	r->error = get_str(rd, o, "error", where, true);
	r->build_id = get_str(rd, o, "build_id", where, true);
	r->start_unix_ns = get_u64(rd, o, "start_unix_ns", where);
	r->duration_ns = get_u64(rd, o, "duration_ns", where);
	r->cpu_pressure = get_double(rd, o, "cpu_pressure", where, &r->has_cpu_pressure);
	tv->golden_file = get_str(rd, o, "golden_file", where, true);
	a = member(rd, o, "runs", JSON_ARRAY, where, false);
	if (a && json_array_size(a)) {
		r->runs = rn_xcalloc(json_array_size(a), sizeof(*r->runs));
		for (k = 0; k < json_array_size(a) && !rd->err; k++) {
			read_run(rd, json_array_get(a, k), &r->runs[k], where);
			r->nruns++;
		}
	}
	a = member(rd, o, "counting_runs", JSON_ARRAY, where, true);
	if (a && json_array_size(a)) {
		r->counts = rn_xcalloc(json_array_size(a), sizeof(*r->counts));
		for (k = 0; k < json_array_size(a) && !rd->err; k++) {
			read_run(rd, json_array_get(a, k), &r->counts[k], where);
			r->ncounts++;
		}
	}
	read_last(rd, member(rd, o, "last_run", JSON_OBJECT, where, true), &r->last, where);
	a = member(rd, o, "verdicts", JSON_ARRAY, where, false);
	for (k = 0; a && k < json_array_size(a) && !rd->err; k++)
		read_verdict(rd, json_array_get(a, k), rn_target_report_push(tv), where);
}

int rn_results_read(const char *path, struct rn_results *res)
{
	struct reader rd = { path, 0, res, NULL, NULL };
	struct rn_outcome *oc = &res->oc;
	struct rn_buf text;
	json_error_t jerr;
	int rc;
	json_t *root, *v, *a;
	const char *fmt;
	size_t i;

	memset(res, 0, sizeof(*res));
	/* Read whole, then parse from memory: jansson's file reader goes a getc() at a time. */
	rn_buf_init(&text, RN_RESULTS_MAX_BYTES);
	rc = rn_buf_read_file(&text, path);
	if (rc < 0) {
		rn_error("cannot read results file '%s': %s", path, strerror(-rc));
		rn_buf_release(&text);
		return rc;
	}
	root = json_loadb(text.buf, text.len, JSON_REJECT_DUPLICATES, &jerr);
	rn_buf_release(&text);
	if (!root) {
		rn_error("%s:%d:%d: error: not a results file: %s", path, jerr.line, jerr.column,
			 jerr.text);
		return -EINVAL;
	}
	if (!json_is_object(root)) {
		bad(&rd, "not a results file (the top level is not an object)");
		goto out;
	}
	fmt = json_string_value(json_object_get(root, "format"));
	if (!fmt || strcmp(fmt, RN_RESULTS_FORMAT)) {
		bad(&rd, "not a results file (\"format\" is not \"%s\")", RN_RESULTS_FORMAT);
		goto out;
	}
	v = member(&rd, root, "version", JSON_INTEGER, "the file", false);
	if (v && (json_integer_value(v) < 1 || json_integer_value(v) > RN_RESULTS_VERSION)) {
		bad(&rd,
		    "results format version %lld is not supported (this renacer reads "
		    "version %d)",
		    (long long)json_integer_value(v), RN_RESULTS_VERSION);
		goto out;
	}
	v = member(&rd, root, "shard", JSON_OBJECT, "the file", false);
	if (v) {
		long long k = get_int(&rd, v, "index", "shard");
		long long n = get_int(&rd, v, "count", "shard");

		if (n < 1 || n > RN_SHARD_MAX || k < 1 || k > n)
			bad(&rd, "shard %lld/%lld is not a shard (1 <= K <= N <= %d)", k, n,
			    RN_SHARD_MAX);
		oc->shard.index = (unsigned)k;
		oc->shard.count = (unsigned)n;
	}
	oc->config_path = get_str(&rd, root, "config", "the file", true);
	a = member(&rd, root, "suite", JSON_ARRAY, "the file", false);
	if (a) {
		oc->nsuite = json_array_size(a);
		rd.suite = rn_xcalloc(oc->nsuite + 1, sizeof(*rd.suite));
		oc->suite = (const char *const *)rd.suite;
		for (i = 0; i < oc->nsuite; i++) {
			const char *s = json_string_value(json_array_get(a, i));

			if (!s) {
				bad(&rd, "suite[%zu] is not a string", i);
				break;
			}
			if (!rn_config_name_valid(s)) {
				bad(&rd,
				    "target name '%s' of suite[%zu] must match [A-Za-z0-9_.-]+", s,
				    i);
				break;
			}
			rd.suite[i] = rn_xstrdup(s);
		}
	}
	oc->start_unix_ns = get_u64(&rd, root, "start_unix_ns", "the file");
	oc->end_unix_ns = get_u64(&rd, root, "end_unix_ns", "the file");
	oc->exit_code = (int)get_int(&rd, root, "exit_code", "the file");
	oc->worst_other = (int)get_int(&rd, root, "worst_other", "the file");
	oc->interrupted = (int)get_int(&rd, root, "interrupted", "the file");
	oc->not_judged_fails = get_bool(&rd, root, "not_judged_fails", "the file");
	a = member(&rd, root, "targets", JSON_ARRAY, "the file", false);
	if (a && !rd.err) {
		size_t n = json_array_size(a);

		oc->targets = rn_xcalloc(n ? n : 1, sizeof(*oc->targets));
		oc->reports = rn_xcalloc(n ? n : 1, sizeof(*oc->reports));
		rd.argv = rn_xcalloc(n ? n : 1, sizeof(*rd.argv));
		oc->argv = (const char *const *const *)rd.argv;
		for (i = 0; i < n && !rd.err; i++) {
			read_target(&rd, json_array_get(a, i), i);
			oc->ntargets = i + 1;
		}
	}
out:
	json_decref(root);
	return rd.err;
}

void rn_results_argv_free(const char *const *argv)
{
	size_t k;

	for (k = 0; argv && argv[k]; k++)
		free((char *)argv[k]);
	free((char **)argv);
}

void rn_results_release(struct rn_results *res)
{
	struct rn_outcome *oc = &res->oc;
	size_t i;

	/* rn_results_read allocated every array and string the outcome points at; the outcome
	 * holds them const because writers only read them. */
	free((char *)oc->config_path);
	for (i = 0; i < oc->nsuite && oc->suite; i++)
		free((char *)oc->suite[i]);
	free((char **)oc->suite);
	for (i = 0; i < oc->ntargets; i++) {
		rn_target_report_release(&oc->reports[i]);
		rn_target_result_release(&oc->targets[i]);
		if (oc->argv)
			rn_results_argv_free(oc->argv[i]);
	}
	free(oc->targets);
	free(oc->reports);
	free((char ***)oc->argv);
	for (i = 0; i < res->nstrings; i++)
		free(res->strings[i]);
	free(res->strings);
	memset(res, 0, sizeof(*res));
}
