/*
 * golden_write.c - rn_golden_write(): a target's measured runs as a renacer-golden/3 file.
 * Shared declarations: internal.h; the API: golden.h.
 */
#include "internal.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "stats.h"
#include "xalloc.h"
#include <fcntl.h>
#include <jansson.h>
#include <time.h>
#include <unistd.h>
#include <sys/utsname.h>

#include "safefile.h"

/* ---- writing ------------------------------------------------------------------------------ */

static double median_u64(const struct rn_target_result *r, enum rn_metric m)
{
	size_t n;
	double *s = rn_target_result_samples(r, m, &n), med;

	med = n ? rn_stats_median(s, n) : 0.0;
	free(s);
	return med;
}

/* JSON integers are signed 64-bit in jansson; our values are non-negative. */
static json_t *jint(uint64_t v)
{
	return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)v);
}

/* A median as a JSON integer: rounded to nearest, halves up (medians of an even number of runs
 * can end in .5); the format keeps integers only so files diff cleanly. */
static json_t *jround(double v)
{
	if (!(v > 0.0))
		return json_integer(0);
	if (v >= 9.2e18)
		return json_integer(INT64_MAX);
	return json_integer((json_int_t)floor(v + 0.5));
}

/* Set o[key] = v, remembering any failure (NULL v from an allocation failure included). */
static void put(json_t *o, const char *key, json_t *v, bool *failed)
{
	if (!v || json_object_set_new(o, key, v) < 0)
		*failed = true;
}

static void format_created(const struct rn_target_result *r, char *out, size_t cap)
{
	const char *sde = getenv("SOURCE_DATE_EPOCH");
	time_t when = 0;
	struct tm tm;

	if (sde && *sde && strspn(sde, "0123456789") == strlen(sde) && strlen(sde) < 19)
		when = (time_t)strtoll(sde, NULL, 10);
	else if (r->start_unix_ns)
		when = (time_t)(r->start_unix_ns / 1000000000u);
	else
		when = time(NULL);
	if (!gmtime_r(&when, &tm))
		memset(&tm, 0, sizeof(tm));
	snprintf(out, cap, "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900, tm.tm_mon + 1,
		 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

static json_t *string_or_unknown(const char *s)
{
	json_t *v = json_string(s);

	return v ? v : json_string("unknown");
}

static json_t *build_provenance(const struct rn_target_result *r, bool *failed)
{
	struct rn_golden_host h;
	json_t *o = json_object();
	char created[80];

	if (!o) {
		*failed = true;
		return NULL;
	}
	rn_golden_host(&h);
	format_created(r, created, sizeof(created));
	put(o, "renacer_version", json_string(RN_VERSION), failed);
	put(o, "created", json_string(created), failed);
	/* uname and /proc/cpuinfo are ASCII in practice; anything else is stored as "unknown"
	 * rather than making the golden trace unwritable. */
	put(o, "kernel", string_or_unknown(h.kernel), failed);
	put(o, "machine", string_or_unknown(h.machine), failed);
	put(o, "cpu_model", string_or_unknown(h.cpu_model), failed);
	put(o, "build_id", r->build_id && *r->build_id ? json_string(r->build_id) : json_null(),
	    failed);
	return o;
}

/* The environment fingerprint of the runs (util/fingerprint.h): its known fields. */
static json_t *build_fingerprint(const struct rn_fingerprint *fp, bool *failed)
{
	json_t *o = json_object();
	int i;

	if (!o) {
		*failed = true;
		return NULL;
	}
	for (i = 0; i < RN_FP_COUNT; i++)
		if (fp->field[i][0])
			put(o, rn_fingerprint_field_name((enum rn_fingerprint_field)i),
			    string_or_unknown(fp->field[i]), failed);
	return o;
}

/* The conditions of the recording (golden.h, struct rn_golden): CPUs, load, speed probe and
 * the environment fingerprint. */
static json_t *build_conditions(const struct rn_target_result *r, bool *failed)
{
	json_t *o = json_object();
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	if (!o) {
		*failed = true;
		return NULL;
	}
	put(o, "cpus", json_integer(cpus > 0 ? cpus : 0), failed);
	put(o, "cpu_pressure", r->has_cpu_pressure ? json_real(r->cpu_pressure) : json_null(),
	    failed);
	put(o, "probe_cpu_ns",
	    json_real(r->nprobes ? rn_stats_median(r->probe_cpu_ns, r->nprobes) : 0.0), failed);
	put(o, "probe_wall_ns",
	    json_real(r->nprobes ? rn_stats_median(r->probe_wall_ns, r->nprobes) : 0.0), failed);
	if (r->has_fingerprint)
		put(o, "fingerprint", build_fingerprint(&r->fingerprint, failed), failed);
	return o;
}

/* The samples of every metric measured by `runs` (r->runs: "samples", r->counts:
 * "counting_samples"), one value per run of that kind. */
static json_t *build_samples(const struct rn_target_result *r, const struct rn_metrics *runs,
			     bool *failed)
{
	json_t *o = json_object();
	int m;
	size_t i, n;

	if (!o) {
		*failed = true;
		return NULL;
	}
	for (m = 0; m < RN_METRIC_COUNT; m++) {
		const struct rn_metrics *from = rn_target_result_runs_of(r, (enum rn_metric)m, &n);
		json_t *a;

		if (from != runs || !n)
			continue;
		if (m == RN_METRIC_INSTRUCTIONS && !from[0].v[m])
			continue; /* not counted (no Valgrind run): absent, not zeros */
		a = json_array();
		for (i = 0; a && i < n; i++)
			if (json_array_append_new(a, jint(from[i].v[m])) < 0)
				*failed = true;
		put(o, rn_metric_info((enum rn_metric)m)->name, a, failed);
	}
	return o;
}

/* Whether syscall `nr` was called in any measured run (its median may still be 0). */
static bool seen_in_any_run(const struct rn_target_result *r, int nr)
{
	size_t k;

	for (k = 0; k < rn_target_result_count_runs(r); k++)
		if (rn_target_result_run_calls(r, k, nr))
			return true;
	return false;
}

static json_t *build_syscalls(const struct rn_target_result *r, bool *failed)
{
	json_t *o = json_object();
	int nr, n = rn_syscall_table_size();

	if (!o) {
		*failed = true;
		return NULL;
	}
	for (nr = 0; r->syscall_calls && nr < n; nr++) {
		json_t *s;
		double total_ns;

		if (!(r->syscall_calls[nr] > 0.0) && !seen_in_any_run(r, nr))
			continue; /* kept when seen at all, so that it is never "new" to a check */
		if (r->syscall_ns)
			total_ns = r->syscall_ns[nr];
		else
			total_ns = (double)rn_trace_syscall_total(&r->last, nr).total_ns;
		s = json_object();
		if (!s) {
			*failed = true;
			break;
		}
		put(s, "calls", jround(r->syscall_calls[nr]), failed);
		/* the spread of the counting runs: a check's fewest calls are judged against
		 * the most of any golden run (a program's own nondeterminism, perl's hash seed,
		 * moves brk 7 -> 9 between unchanged runs) */
		if (rn_target_result_calls_extreme(r, nr, 0.0, true) > r->syscall_calls[nr])
			put(s, "calls_max",
			    jround(rn_target_result_calls_extreme(r, nr, 0.0, true)), failed);
		put(s, "errors", jround(r->syscall_errors ? r->syscall_errors[nr] : 0.0), failed);
		put(s, "total_ns", jround(total_ns), failed);
		put(o, rn_syscall_name(nr), s, failed);
	}
	return o;
}

static json_t *build_gpu(const struct rn_target_result *r, bool *failed)
{
	json_t *o, *spans;
	uint64_t runs_with_gpu = 0;
	size_t i;

	for (i = 0; i < r->nruns; i++)
		runs_with_gpu += r->runs[i].has_gpu;
	if (!runs_with_gpu)
		return NULL;
	o = json_object();
	spans = json_object();
	if (!o || !spans) {
		json_decref(o);
		json_decref(spans);
		*failed = true;
		return NULL;
	}
	put(o, "busy_ns", jround(median_u64(r, RN_METRIC_GPU_BUSY)), failed);
	put(o, "dispatches", jround(median_u64(r, RN_METRIC_GPU_DISPATCHES)), failed);
	put(o, "copy_bytes", jround(median_u64(r, RN_METRIC_GPU_COPY_BYTES)), failed);
	put(o, "runs_with_gpu", jint(runs_with_gpu), failed);
	for (i = 0; i < r->last.ngpu; i++) {
		const char *kind = rn_gpu_kind_name(r->last.gpu[i].kind);
		json_t *c = json_object_get(spans, kind);

		if (c)
			json_integer_set(c, json_integer_value(c) + 1);
		else
			put(spans, kind, json_integer(1), failed);
	}
	put(o, "spans", spans, failed);
	return o;
}

/* "spans": per app span name of the timing runs, the per-run summed durations; NULL when no
 * run had app spans. */
static json_t *build_spans(const struct rn_target_result *r, bool *failed)
{
	json_t *o;
	size_t i, k;

	if (!r->napp_spans)
		return NULL;
	o = json_object();
	if (!o) {
		*failed = true;
		return NULL;
	}
	for (i = 0; i < r->napp_spans; i++) {
		const struct rn_span_series *s = &r->app_spans[i];
		json_t *name = json_string(s->name), *a;

		if (!name)
			continue; /* not valid UTF-8: no key of a JSON file, and not compared */
		json_decref(name);
		a = json_array();
		for (k = 0; a && k < s->n; k++)
			if (json_array_append_new(a, jround(s->ns[k])) < 0)
				*failed = true;
		put(o, s->name, a, failed);
	}
	return o;
}

/* "span_cpu": per app span name whose spans carried CPU time in a timing run (renacer_span.h
 * push/pop), the per-run summed CPU time; NULL when none did. */
static json_t *build_span_cpu(const struct rn_target_result *r, bool *failed)
{
	json_t *o = NULL;
	size_t i, k;

	for (i = 0; i < r->napp_spans; i++) {
		const struct rn_span_series *s = &r->app_spans[i];
		json_t *name, *a;

		if (!s->ncpu)
			continue;
		name = json_string(s->name);
		if (!name)
			continue; /* not valid UTF-8: not in "spans" either */
		json_decref(name);
		if (!o)
			o = json_object();
		if (!o) {
			*failed = true;
			return NULL;
		}
		a = json_array();
		for (k = 0; a && k < s->ncpu; k++)
			if (json_array_append_new(a, jround(s->cpu_ns[k])) < 0)
				*failed = true;
		put(o, s->name, a, failed);
	}
	return o;
}

const char *rn_golden_status_name(enum rn_run_status s)
{
	switch (s) {
	case RN_RUN_OK:
		return "ok";
	case RN_RUN_EXEC_FAILED:
		return "could not be executed";
	case RN_RUN_CRASHED:
		return "crashed";
	case RN_RUN_TIMED_OUT:
		return "timed out";
	case RN_RUN_INTERRUPTED:
		return "was interrupted";
	case RN_RUN_LIMIT:
		return "hit a limit";
	case RN_RUN_ERROR:
		return "failed (collector error)";
	}
	return "failed";
}

int rn_golden_write(const char *path, const struct rn_target_result *r, const char *const *argv_rel,
		    struct rn_diag *d)
{
	json_t *root, *argv, *gpu, *spans;
	bool failed = false;
	char *text;
	size_t i;
	int rc;

	rn_diag_init(d, path, NULL, 0);
	if (!r->nruns || (r->runs[0].measures == RN_MEASURES_TIMES && !r->ncounts)) {
		rn_diag_set(d, 0, 0, "target '%s' has no %s runs to record", r->name,
			    r->nruns ? "counting" : "measured");
		return -EINVAL;
	}
	if (r->status != RN_RUN_OK) {
		rn_diag_set(d, 0, 0, "target '%s' %s%s%s: golden trace not written", r->name,
			    rn_golden_status_name(r->status), r->error ? ": " : "",
			    r->error ? r->error : "");
		return -EINVAL;
	}
	root = json_object();
	argv = json_array();
	if (!root || !argv)
		rn_die("out of memory");
	for (i = 0; argv_rel && argv_rel[i]; i++) {
		json_t *s = json_string(argv_rel[i]);

		if (!s) {
			json_decref(argv);
			json_decref(root);
			rn_diag_set(d, 0, 0,
				    "cannot record argv[%zu] of target '%s': not valid UTF-8", i,
				    r->name);
			return -EINVAL;
		}
		json_array_append_new(argv, s);
	}
	put(root, "format", json_string(RN_GOLDEN_FORMAT), &failed);
	put(root, "target", json_string(r->name), &failed);
	put(root, "argv", argv, &failed);
	put(root, "runs", jint(r->nruns), &failed);
	put(root, "counting_runs", jint(r->ncounts), &failed);
	put(root, "provenance", build_provenance(r, &failed), &failed);
	put(root, "conditions", build_conditions(r, &failed), &failed);
	put(root, "samples", build_samples(r, r->runs, &failed), &failed);
	if (r->ncounts)
		put(root, "counting_samples", build_samples(r, r->counts, &failed), &failed);
	put(root, "syscalls", build_syscalls(r, &failed), &failed);
	gpu = build_gpu(r, &failed);
	if (gpu)
		put(root, "gpu", gpu, &failed);
	spans = build_spans(r, &failed);
	if (spans)
		put(root, "spans", spans, &failed);
	spans = build_span_cpu(r, &failed);
	if (spans)
		put(root, "span_cpu", spans, &failed);
	if (failed) {
		json_decref(root);
		/* The only ways to fail above: an allocation, or a target name not in UTF-8. */
		rn_diag_set(d, 0, 0,
			    "cannot encode golden trace of target '%s' (out of memory or "
			    "invalid UTF-8)",
			    r->name);
		return -EINVAL;
	}
	text = json_dumps(root, JSON_SORT_KEYS | JSON_INDENT(2));
	json_decref(root);
	if (!text)
		rn_die("out of memory");
	{
		size_t len = strlen(text);
		char *withnl = rn_xmalloc(len + 2);

		memcpy(withnl, text, len);
		withnl[len] = '\n';
		withnl[len + 1] = '\0';
		free(text);
		rc = rn_write_file_atomic(path, withnl, len + 1);
		free(withnl);
	}
	if (rc < 0) {
		rn_diag_set(d, 0, 0, "cannot write golden trace: %s", rn_safefile_strerror(rc));
		return rc;
	}
	return 0;
}
