/*
 * golden_read.c - rn_golden_read(): renacer-golden/1, /2 and /3 files and renacer-json-v1 imports,
 * validated key by key (errors name the key), and rn_golden_release().
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

/* ---- reading ------------------------------------------------------------------------------ */

static int corrupt(struct rn_diag *d, const char *fmt, ...) RN_PRINTF(2, 3);

static int corrupt(struct rn_diag *d, const char *fmt, ...)
{
	char msg[RN_DIAG_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	rn_diag_set(d, 0, 0, "corrupt golden trace: %s", msg);
	return -EINVAL;
}

/* Integer >= 0 (a JSON real such as 1.5 or 1e3 is rejected: the format writes integers). */
static bool get_count(const json_t *v, double *out)
{
	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return false;
	*out = (double)json_integer_value(v);
	return true;
}

static int check_keys(const json_t *o, const char *const *allowed, const char *where,
		      struct rn_diag *d)
{
	const char *key;
	json_t *v;
	size_t i;

	json_object_foreach((json_t *)o, key, v)
	{
		for (i = 0; allowed[i]; i++)
			if (!strcmp(allowed[i], key))
				break;
		if (!allowed[i])
			return corrupt(d, "unknown key \"%s%s\"", where, key);
	}
	return 0;
}

static char *dup_string(const json_t *v)
{
	return rn_xstrdup(json_string_value(v));
}

int rn_golden_cmp_syscall(const void *a, const void *b)
{
	return strcmp(((const struct rn_golden_syscall *)a)->name,
		      ((const struct rn_golden_syscall *)b)->name);
}

static int read_provenance(const json_t *o, struct rn_golden *g, struct rn_diag *d)
{
	static const char *const keys[] = { "build_id", "cpu_model",       "created", "kernel",
					    "machine",  "renacer_version", NULL };
	char **dst[] = { &g->build_id, &g->cpu_model, &g->created,
			 &g->kernel,   &g->machine,   &g->renacer_version };
	size_t i;

	if (!json_is_object(o))
		return corrupt(d, "\"provenance\" must be an object");
	if (check_keys(o, keys, "provenance.", d))
		return -EINVAL;
	for (i = 0; keys[i]; i++) {
		const json_t *v = json_object_get(o, keys[i]);

		if (!v)
			return corrupt(d, "missing \"provenance.%s\"", keys[i]);
		if (json_is_null(v) && !strcmp(keys[i], "build_id"))
			continue;
		if (!json_is_string(v))
			return corrupt(d, "\"provenance.%s\" must be a string%s", keys[i],
				       strcmp(keys[i], "build_id") ? "" : " or null");
		*dst[i] = dup_string(v);
	}
	return 0;
}

/*
 * "conditions.fingerprint" (optional: files written before it have none): a string per field of
 * util/fingerprint.h. A key this renacer does not know is skipped, not an error: a newer
 * renacer may fingerprint more, and an older field set still compares on what both know.
 */
static int read_fingerprint(const json_t *o, struct rn_golden *g, struct rn_diag *d)
{
	const char *key;
	json_t *v;

	if (!json_is_object(o))
		return corrupt(d, "\"conditions.fingerprint\" must be an object");
	json_object_foreach((json_t *)o, key, v)
	{
		int f = rn_fingerprint_field_lookup(key);

		if (!json_is_string(v))
			return corrupt(d, "\"conditions.fingerprint.%s\" must be a string", key);
		if (f >= 0)
			rn_fingerprint_set(&g->fingerprint, (enum rn_fingerprint_field)f,
					   json_string_value(v));
	}
	g->has_fingerprint = true;
	return 0;
}

/* "conditions" (renacer-golden/2, optional): the recording's CPUs, load, speed probe and
 * environment fingerprint. */
static int read_conditions(const json_t *o, struct rn_golden *g, struct rn_diag *d)
{
	static const char *const keys[] = { "cpu_pressure", "cpus",          "fingerprint",
					    "probe_cpu_ns", "probe_wall_ns", NULL };
	const json_t *v;
	double cpus;

	if (!json_is_object(o))
		return corrupt(d, "\"conditions\" must be an object");
	if (check_keys(o, keys, "conditions.", d))
		return -EINVAL;
	if (!get_count(json_object_get(o, "cpus"), &cpus) || cpus > 1e6)
		return corrupt(d, "\"conditions.cpus\" must be an integer >= 0");
	g->cpus = (unsigned)cpus;
	v = json_object_get(o, "cpu_pressure");
	g->cpu_pressure = -1.0;
	if (v && !json_is_null(v)) {
		if (!json_is_number(v) || json_number_value(v) < 0 || json_number_value(v) > 1)
			return corrupt(d,
				       "\"conditions.cpu_pressure\" must be a number in [0, 1] "
				       "or null");
		g->cpu_pressure = json_number_value(v);
	}
	v = json_object_get(o, "probe_cpu_ns");
	if (v && (!json_is_number(v) || !(json_number_value(v) >= 0)))
		return corrupt(d, "\"conditions.probe_cpu_ns\" must be a number >= 0");
	g->probe_cpu_ns = v ? json_number_value(v) : 0.0;
	v = json_object_get(o, "probe_wall_ns");
	if (v && (!json_is_number(v) || !(json_number_value(v) >= 0)))
		return corrupt(d, "\"conditions.probe_wall_ns\" must be a number >= 0");
	g->probe_wall_ns = v ? json_number_value(v) : 0.0;
	v = json_object_get(o, "fingerprint");
	if (v && read_fingerprint(v, g, d))
		return -EINVAL;
	g->has_conditions = true;
	return 0;
}

/* "samples" (`nruns` values per metric) or "counting_samples" (`nruns` = counting runs). */
static int read_samples(const json_t *o, const char *what, size_t nruns, struct rn_golden *g,
			struct rn_diag *d)
{
	const char *key;
	json_t *v;

	if (!json_is_object(o))
		return corrupt(d, "\"%s\" must be an object", what);
	json_object_foreach((json_t *)o, key, v)
	{
		int m = rn_metric_lookup(key);
		size_t i;

		if (m < 0)
			return corrupt(d, "unknown metric \"%s.%s\"", what, key);
		if (g->samples[m])
			return corrupt(d,
				       "metric \"%s\" is in both \"samples\" and "
				       "\"counting_samples\"",
				       key);
		if (!json_is_array(v))
			return corrupt(d, "\"%s.%s\" must be an array", what, key);
		if (json_array_size(v) != nruns)
			return corrupt(d, "\"%s.%s\" has %zu values, expected %zu (one per run)",
				       what, key, json_array_size(v), nruns);
		g->samples[m] = rn_xcalloc(nruns ? nruns : 1, sizeof(double));
		g->nsamples[m] = nruns;
		for (i = 0; i < nruns; i++)
			if (!get_count(json_array_get(v, i), &g->samples[m][i]))
				return corrupt(d, "\"%s.%s[%zu]\" must be an integer >= 0", what,
					       key, i);
	}
	return 0;
}

static int read_syscalls(const json_t *o, struct rn_golden *g, struct rn_diag *d)
{
	static const char *const keys[] = { "calls", "errors", "total_ns", NULL };
	static const char *const allowed[] = { "calls", "errors", "total_ns", "calls_max", NULL };
	const char *key;
	json_t *v;
	size_t n = 0;

	if (!json_is_object(o))
		return corrupt(d, "\"syscalls\" must be an object");
	g->syscalls = rn_xcalloc(json_object_size(o) + 1, sizeof(*g->syscalls));
	json_object_foreach((json_t *)o, key, v)
	{
		struct rn_golden_syscall *s = &g->syscalls[n];
		char where[160];
		double *dst[] = { &s->calls, &s->errors, &s->total_ns };
		size_t i;

		snprintf(where, sizeof(where), "syscalls.%s.", key);
		if (!*key)
			return corrupt(d, "empty syscall name in \"syscalls\"");
		if (!json_is_object(v))
			return corrupt(d, "\"syscalls.%s\" must be an object", key);
		if (check_keys(v, allowed, where, d))
			return -EINVAL;
		s->name = rn_xstrdup(key);
		g->nsyscalls = ++n;
		for (i = 0; keys[i]; i++) {
			const json_t *c = json_object_get(v, keys[i]);

			if (!c)
				return corrupt(d, "missing \"syscalls.%s.%s\"", key, keys[i]);
			if (!get_count(c, dst[i]))
				return corrupt(d, "\"syscalls.%s.%s\" must be an integer >= 0", key,
					       keys[i]);
		}
		if (s->errors > s->calls)
			return corrupt(d, "\"syscalls.%s.errors\" exceeds its calls", key);
		s->calls_max = s->calls;
		if (json_object_get(v, "calls_max") &&
		    (!get_count(json_object_get(v, "calls_max"), &s->calls_max) ||
		     s->calls_max < s->calls))
			return corrupt(d,
				       "\"syscalls.%s.calls_max\" must be an integer >= its calls",
				       key);
	}
	qsort(g->syscalls, g->nsyscalls, sizeof(*g->syscalls), rn_golden_cmp_syscall);
	return 0;
}

static int read_gpu(const json_t *o, struct rn_golden *g, struct rn_diag *d)
{
	static const char *const keys[] = { "busy_ns",       "copy_bytes", "dispatches",
					    "runs_with_gpu", "spans",      NULL };
	double *dst[] = { &g->gpu.busy_ns, &g->gpu.copy_bytes, &g->gpu.dispatches };
	const json_t *spans;
	const char *key;
	json_t *v;
	double runs;
	size_t i;

	if (!json_is_object(o))
		return corrupt(d, "\"gpu\" must be an object");
	if (check_keys(o, keys, "gpu.", d))
		return -EINVAL;
	for (i = 0; i < 3; i++)
		if (!get_count(json_object_get(o, keys[i]), dst[i]))
			return corrupt(d, "\"gpu.%s\" must be an integer >= 0", keys[i]);
	if (!get_count(json_object_get(o, "runs_with_gpu"), &runs) || runs < 1 ||
	    runs > (double)g->nruns)
		return corrupt(d, "\"gpu.runs_with_gpu\" must be an integer from 1 to %zu",
			       g->nruns);
	g->gpu.runs_with_gpu = (uint64_t)runs;
	spans = json_object_get(o, "spans");
	if (!json_is_object(spans))
		return corrupt(d, "\"gpu.spans\" must be an object");
	json_object_foreach((json_t *)spans, key, v)
	{
		double c;

		if (!get_count(v, &c))
			return corrupt(d, "\"gpu.spans.%s\" must be an integer >= 0", key);
	}
	g->has_gpu = true;
	return 0;
}

static int cmp_series(const void *a, const void *b)
{
	return strcmp(((const struct rn_span_series *)a)->name,
		      ((const struct rn_span_series *)b)->name);
}

/* "spans" (renacer-golden/3, optional): per app span name, 1..nruns per-run durations, ns. */
static int read_spans(const json_t *o, size_t nruns, struct rn_golden *g, struct rn_diag *d)
{
	const char *key;
	json_t *v;

	if (!json_is_object(o))
		return corrupt(d, "\"spans\" must be an object");
	g->spans = rn_xcalloc(json_object_size(o) + 1, sizeof(*g->spans));
	json_object_foreach((json_t *)o, key, v)
	{
		struct rn_span_series *s = &g->spans[g->nspans];
		size_t i, n = json_is_array(v) ? json_array_size(v) : 0;

		if (strncmp(key, "app:", 4) || !key[4])
			return corrupt(d, "\"spans.%s\" is not an app span name (\"app:<name>\")",
				       key);
		if (!n || n > nruns)
			return corrupt(d, "\"spans.%s\" must be an array of 1 to %zu values (runs)",
				       key, nruns);
		s->name = rn_xstrdup(key);
		s->ns = rn_xcalloc(n, sizeof(*s->ns));
		s->n = n;
		g->nspans++;
		for (i = 0; i < n; i++)
			if (!get_count(json_array_get(v, i), &s->ns[i]))
				return corrupt(d, "\"spans.%s[%zu]\" must be an integer >= 0", key,
					       i);
	}
	qsort(g->spans, g->nspans, sizeof(*g->spans), cmp_series);
	return 0;
}

/*
 * "span_cpu" (renacer-golden/3, optional: files written before it have none): per app span name
 * of "spans", 1..nruns per-run CPU times, ns. Read after "spans" (g->spans sorted).
 */
static int read_span_cpu(const json_t *o, size_t nruns, struct rn_golden *g, struct rn_diag *d)
{
	const char *key;
	json_t *v;

	if (!json_is_object(o))
		return corrupt(d, "\"span_cpu\" must be an object");
	json_object_foreach((json_t *)o, key, v)
	{
		struct rn_span_series k = { .name = (char *)key }, *s;
		size_t i, n = json_is_array(v) ? json_array_size(v) : 0;

		s = g->nspans ? bsearch(&k, g->spans, g->nspans, sizeof(*g->spans), cmp_series) :
				NULL;
		if (!s)
			return corrupt(d, "\"span_cpu.%s\" names no span of \"spans\"", key);
		if (!n || n > nruns)
			return corrupt(d,
				       "\"span_cpu.%s\" must be an array of 1 to %zu values (runs)",
				       key, nruns);
		s->cpu_ns = rn_xcalloc(n, sizeof(*s->cpu_ns));
		s->ncpu = n;
		for (i = 0; i < n; i++)
			if (!get_count(json_array_get(v, i), &s->cpu_ns[i]))
				return corrupt(d, "\"span_cpu.%s[%zu]\" must be an integer >= 0",
					       key, i);
	}
	return 0;
}

/* renacer-golden/1 (version 1), renacer-golden/2 (version 2, with counting runs) and
 * renacer-golden/3 (version 3, with span durations). */
static int read_golden_v1(const json_t *root, int version, struct rn_golden *g, struct rn_diag *d)
{
	static const char *const keys_v1[] = { "argv",       "conditions", "format",  "gpu",
					       "provenance", "runs",       "samples", "syscalls",
					       "target",     NULL };
	static const char *const keys[] = {
		"argv",       "conditions", "counting_runs", "counting_samples", "format", "gpu",
		"provenance", "runs",       "samples",       "syscalls",         "target", NULL
	};
	static const char *const keys_v3[] = {
		"argv",    "conditions", "counting_runs", "counting_samples",
		"format",  "gpu",        "provenance",    "runs",
		"samples", "span_cpu",   "spans",         "syscalls",
		"target",  NULL
	};
	static const char *const required[] = { "argv",     "provenance", "runs", "samples",
						"syscalls", "target",     NULL };
	const json_t *v;
	double runs;
	size_t i;

	if (check_keys(root, version == 1 ? keys_v1 : version == 2 ? keys : keys_v3, "", d))
		return -EINVAL;
	for (i = 0; required[i]; i++)
		if (!json_object_get(root, required[i]))
			return corrupt(d, "missing \"%s\"", required[i]);
	g->version = version;
	/* Version 1 timed every run with syscall stops: its times include the tracer's. */
	g->timing_under_tracer = version == 1;
	v = json_object_get(root, "target");
	if (!json_is_string(v) || !*json_string_value(v))
		return corrupt(d, "\"target\" must be a non-empty string");
	g->target = dup_string(v);
	v = json_object_get(root, "argv");
	if (!json_is_array(v))
		return corrupt(d, "\"argv\" must be an array of strings");
	g->argv = rn_xcalloc(json_array_size(v) + 1, sizeof(*g->argv));
	for (i = 0; i < json_array_size(v); i++) {
		if (!json_is_string(json_array_get(v, i)))
			return corrupt(d, "\"argv[%zu]\" must be a string", i);
		g->argv[i] = dup_string(json_array_get(v, i));
	}
	if (!get_count(json_object_get(root, "runs"), &runs) || runs < 1)
		return corrupt(d, "\"runs\" must be an integer >= 1");
	g->nruns = (size_t)runs;
	if (version >= 2) {
		double counting;

		if (!get_count(json_object_get(root, "counting_runs"), &counting))
			return corrupt(d, "\"counting_runs\" must be an integer >= 0");
		g->ncounting_runs = (size_t)counting;
		v = json_object_get(root, "counting_samples");
		if (!v != !g->ncounting_runs)
			return corrupt(d,
				       "\"counting_samples\" must be present exactly when "
				       "counting_runs > 0");
		if (v && read_samples(v, "counting_samples", g->ncounting_runs, g, d))
			return -EINVAL;
	}
	if (read_provenance(json_object_get(root, "provenance"), g, d) ||
	    read_samples(json_object_get(root, "samples"), "samples", g->nruns, g, d) ||
	    read_syscalls(json_object_get(root, "syscalls"), g, d))
		return -EINVAL;
	v = json_object_get(root, "gpu");
	if (v && read_gpu(v, g, d))
		return -EINVAL;
	v = json_object_get(root, "conditions");
	if (v && read_conditions(v, g, d))
		return -EINVAL;
	g->has_spans = version >= 3;
	v = json_object_get(root, "spans");
	if (v && read_spans(v, g->nruns, g, d))
		return -EINVAL;
	v = json_object_get(root, "span_cpu");
	if (v && read_span_cpu(v, g->nruns, g, d))
		return -EINVAL;
	return 0;
}

/*
 * The original renacer's `--format json` output, as a counts-only baseline. Unknown keys are
 * ignored: that format promises only additions ("parsers should ignore unknown fields").
 */
static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The name of the i-th entry of the original format's "syscalls" array into *name
 * (borrowed from the document), after checking the entry's shape. 0 or -EINVAL. */
static int v1_call_name(const json_t *calls, size_t i, const char **name, struct rn_diag *d)
{
	const json_t *e = json_array_get(calls, i), *v, *dur;

	if (!json_is_object(e))
		return corrupt(d, "\"syscalls[%zu]\" must be an object", i);
	v = json_object_get(e, "name");
	if (!json_is_string(v) || !*json_string_value(v))
		return corrupt(d, "\"syscalls[%zu].name\" must be a non-empty string", i);
	*name = json_string_value(v);
	if (!json_is_array(json_object_get(e, "args")))
		return corrupt(d, "\"syscalls[%zu].args\" must be an array", i);
	if (!json_is_integer(json_object_get(e, "result")))
		return corrupt(d, "\"syscalls[%zu].result\" must be an integer", i);
	dur = json_object_get(e, "duration_us");
	if (dur && (!json_is_integer(dur) || json_integer_value(dur) < 0))
		return corrupt(d, "\"syscalls[%zu].duration_us\" must be an integer >= 0", i);
	return 0;
}

static int read_json_v1(const json_t *root, struct rn_golden *g, struct rn_diag *d)
{
	const json_t *calls = json_object_get(root, "syscalls");
	const json_t *summary = json_object_get(root, "summary");
	const json_t *v;
	const char **names;
	size_t n, i, j, errors = 0;
	int rc = 0;

	if (!calls)
		return corrupt(d, "missing \"syscalls\"");
	if (!json_is_array(calls))
		return corrupt(d, "\"syscalls\" must be an array");
	if (!summary)
		return corrupt(d, "missing \"summary\"");
	if (!json_is_object(summary))
		return corrupt(d, "\"summary\" must be an object");
	v = json_object_get(summary, "total_syscalls");
	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return corrupt(d, "\"summary.total_syscalls\" must be an integer >= 0");
	v = json_object_get(summary, "exit_code");
	if (v && !json_is_integer(v))
		return corrupt(d, "\"summary.exit_code\" must be an integer");
	v = json_object_get(root, "version");
	if (v && !json_is_string(v))
		return corrupt(d, "\"version\" must be a string");
	g->renacer_version = v ? dup_string(v) : NULL;
	g->version = 0;
	g->counts_only = true;
	g->nruns = 1;
	g->argv = rn_xcalloc(1, sizeof(*g->argv));

	n = json_array_size(calls);
	names = rn_xcalloc(n + 1, sizeof(*names));
	for (i = 0; i < n; i++) {
		rc = v1_call_name(calls, i, &names[i], d);
		if (rc)
			goto out_free_names;
	}
	/* Group by name: sort a copy of the names, then count each run of equal names. */
	{
		const char **sorted = rn_xmalloc((n + 1) * sizeof(*sorted));

		memcpy(sorted, names, n * sizeof(*sorted));
		qsort(sorted, n, sizeof(*sorted), cmp_str);
		g->syscalls = rn_xcalloc(n + 1, sizeof(*g->syscalls));
		for (i = 0; i < n; i = j) {
			struct rn_golden_syscall *s = &g->syscalls[g->nsyscalls++];

			for (j = i + 1; j < n && !strcmp(sorted[j], sorted[i]); j++)
				;
			s->name = rn_xstrdup(sorted[i]);
			s->calls = (double)(j - i);
		}
		free(sorted);
	}
	for (i = 0; i < n; i++) {
		const json_t *e = json_array_get(calls, i);
		struct rn_golden_syscall key = { .name = (char *)names[i] }, *s;

		/* exit and exit_group never return: the original renacer prints them with result
		 * -1, which is no errno. Every other negative result is -errno. */
		if (json_integer_value(json_object_get(e, "result")) >= 0 ||
		    !strcmp(names[i], "exit") || !strcmp(names[i], "exit_group"))
			continue;
		s = bsearch(&key, g->syscalls, g->nsyscalls, sizeof(*s), rn_golden_cmp_syscall);
		s->errors++;
		errors++;
	}
	g->samples[RN_METRIC_SYSCALLS] = rn_xmalloc(sizeof(double));
	g->samples[RN_METRIC_SYSCALLS][0] = (double)n;
	g->nsamples[RN_METRIC_SYSCALLS] = 1;
	g->samples[RN_METRIC_SYSCALL_ERRORS] = rn_xmalloc(sizeof(double));
	g->samples[RN_METRIC_SYSCALL_ERRORS][0] = (double)errors;
	g->nsamples[RN_METRIC_SYSCALL_ERRORS] = 1;

out_free_names:
	free(names);
	return rc;
}

/* True when only whitespace remains in s[0..n). */
static bool blank(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r')
			return false;
	return true;
}

/* Read `root` of format `f` into `g`. Returns 0, -EINVAL or -EPROTONOSUPPORT (d filled). */
static int read_format(const json_t *root, const char *f, struct rn_golden *g, struct rn_diag *d)
{
	int rc;

	if (!strcmp(f, RN_GOLDEN_FORMAT)) {
		rc = read_golden_v1(root, RN_GOLDEN_VERSION, g, d);
	} else if (!strcmp(f, RN_GOLDEN_FORMAT_V2)) {
		rc = read_golden_v1(root, 2, g, d);
	} else if (!strcmp(f, RN_GOLDEN_FORMAT_V1)) {
		rc = read_golden_v1(root, 1, g, d);
	} else if (!strcmp(f, RN_GOLDEN_JSON_V1)) {
		rc = read_json_v1(root, g, d);
	} else if (!strncmp(f, RN_GOLDEN_FORMAT_PREFIX, strlen(RN_GOLDEN_FORMAT_PREFIX)) &&
		   f[strlen(RN_GOLDEN_FORMAT_PREFIX)] >= '1' &&
		   f[strlen(RN_GOLDEN_FORMAT_PREFIX)] <= '9' &&
		   strspn(f + strlen(RN_GOLDEN_FORMAT_PREFIX), "0123456789") ==
			   strlen(f + strlen(RN_GOLDEN_FORMAT_PREFIX))) {
		/* A well-formed version other than ours: numbers are not compared as strings, so
		 * "renacer-golden/10" is newer too. */
		rn_diag_set(
			d, 0, 0,
			"written by a newer renacer (format %.64s); this renacer reads " RN_GOLDEN_FORMAT,
			f);
		rc = -EPROTONOSUPPORT;
	} else {
		rn_diag_set(
			d, 0, 0,
			"not a golden trace: unknown format \"%.64s\" (expected \"" RN_GOLDEN_FORMAT
			"\", \"" RN_GOLDEN_FORMAT_V2 "\", \"" RN_GOLDEN_FORMAT_V1
			"\" or \"" RN_GOLDEN_JSON_V1 "\")",
			f);
		rc = -EINVAL;
	}
	return rc;
}

int rn_golden_read(const char *path, struct rn_golden *g, struct rn_diag *d)
{
	struct rn_buf b;
	json_error_t err;
	json_t *root;
	const json_t *fmt;
	int rc;

	memset(g, 0, sizeof(*g));
	rn_diag_init(d, path, NULL, 0);
	rn_buf_init(&b, 0);
	/* a regular file of bounded size: a FIFO must not block, /dev/zero must not fill memory */
	rc = rn_read_regular_file(&b, path, RN_GOLDEN_MAX_BYTES);
	if (rc < 0) {
		rn_buf_release(&b);
		if (rc == -EINVAL)
			rn_diag_set(d, 0, 0, "cannot use golden trace: not a regular file");
		else if (rc == -EFBIG)
			rn_diag_set(d, 0, 0, "cannot use golden trace: larger than %d MiB",
				    RN_GOLDEN_MAX_BYTES >> 20);
		else
			rn_diag_set(d, 0, 0, "cannot read golden trace: %s", strerror(-rc));
		return rc;
	}
	if (blank(b.buf, b.len)) {
		rn_buf_release(&b);
		rn_diag_set(d, 0, 0, "truncated golden trace: empty file");
		return -EINVAL;
	}
	/* jansson stops at a NUL byte and calls it the end of the input: a NUL anywhere is
	 * corruption (binary garbage), not a file that ends early. */
	{
		const char *nul = memchr(b.buf, '\0', b.len);

		if (nul) {
			int line, col;

			rn_diag_position(b.buf, b.len, (size_t)(nul - b.buf), &line, &col);
			rn_buf_release(&b);
			rn_diag_set(d, line, col, "corrupt golden trace: NUL byte (binary data)");
			return -EINVAL;
		}
	}
	root = json_loadb(b.buf, b.len, JSON_REJECT_DUPLICATES, &err);
	rn_buf_release(&b);
	if (!root) {
		bool truncated = json_error_code(&err) == json_error_premature_end_of_input ||
			strstr(err.text, "end of file");

		/* jansson's column is that of the last character it read, 0 when that was a
		 * newline (input that ends after one): columns are 1-based, so the error then
		 * sits at column 1 of the next line. */
		rn_diag_set(d, err.line > 0 ? err.line : 0,
			    err.line > 0 ? (err.column > 0 ? err.column : 1) : 0,
			    "%s golden trace: %s", truncated ? "truncated" : "corrupt", err.text);
		return -EINVAL;
	}
	if (!json_is_object(root)) {
		json_decref(root);
		return corrupt(d, "top level is not a JSON object");
	}
	fmt = json_object_get(root, "format");
	if (!fmt) {
		json_decref(root);
		rn_diag_set(d, 0, 0, "not a golden trace: missing \"format\"");
		return -EINVAL;
	}
	if (!json_is_string(fmt)) {
		json_decref(root);
		return corrupt(d, "\"format\" must be a string");
	}
	rc = read_format(root, json_string_value(fmt), g, d);
	json_decref(root);
	if (rc)
		rn_golden_release(g);
	return rc;
}

void rn_golden_release(struct rn_golden *g)
{
	size_t i;
	int m;

	free(g->target);
	for (i = 0; g->argv && g->argv[i]; i++)
		free(g->argv[i]);
	free(g->argv);
	free(g->renacer_version);
	free(g->created);
	free(g->kernel);
	free(g->cpu_model);
	free(g->machine);
	free(g->build_id);
	for (m = 0; m < RN_METRIC_COUNT; m++)
		free(g->samples[m]);
	for (i = 0; i < g->nsyscalls; i++)
		free(g->syscalls[i].name);
	free(g->syscalls);
	for (i = 0; i < g->nspans; i++) {
		free(g->spans[i].name);
		free(g->spans[i].ns);
		free(g->spans[i].cpu_ns);
	}
	free(g->spans);
	memset(g, 0, sizeof(*g));
}
