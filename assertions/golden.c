#include "golden.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <time.h>

#include "buf.h"
#include "safefile.h"
#include "stats.h"
#include "xalloc.h"

void rn_regression_cfg_init(struct rn_regression_cfg *cfg)
{
	cfg->enabled = true;
	cfg->count_tolerance = 0.10;
	cfg->instructions_tolerance = 0.005;
	cfg->count_floor = 1;
	cfg->timing_tolerance = 0.10;
	cfg->memory_tolerance = 0.10;
	cfg->memory_floor_bytes = 1u << 20;
	cfg->load_guard = true;
	cfg->alpha = 0.01;
	cfg->timing = true;
	cfg->min_runs_for_timing = 5;
	cfg->not_judged_fails = false;
	for (size_t i = 0; i < RN_GOLDEN_CHECK_COUNT; i++) {
		cfg->judged[i] = true;
		cfg->tolerance[i] = -1.0;
	}
}

static const char *const check_names[RN_GOLDEN_CHECK_COUNT] = {
#define RN_GOLDEN_CHECK_NAME(id, name) name,
	RN_GOLDEN_CHECKS(RN_GOLDEN_CHECK_NAME)
#undef RN_GOLDEN_CHECK_NAME
};

int rn_golden_check_lookup(const char *name)
{
	for (int i = 0; i < RN_GOLDEN_CHECK_COUNT; i++)
		if (!strcmp(check_names[i], name))
			return i;
	return -1;
}

const char *rn_golden_check_name(enum rn_golden_check c)
{
	return c < RN_GOLDEN_CHECK_COUNT ? check_names[c] : "?";
}

/* The smallest one-sided p-value a Mann-Whitney test of na against nb samples can give. */
static double min_p(size_t na, size_t nb)
{
	double n = (double)(na + nb), a = (double)na, b = (double)nb;

	if (!na || !nb)
		return 1.0;
	if (na + nb <= RN_STATS_EXACT_MAX) { /* one labelling of C(N, na) has the largest U */
		double comb = 1.0;
		size_t i;

		for (i = 1; i <= na; i++) /* exact while C(N, i) < 2^53, rounded once beyond */
			comb = comb * (double)(nb + i) / (double)i;
		return 1.0 / comb;
	}
	return rn_stats_normal_sf((a * b / 2.0 - 0.5) / sqrt(a * b * (n + 1.0) / 12.0));
}

bool rn_golden_timing_feasible(size_t na, size_t nb, double alpha)
{
	return min_p(na, nb) < alpha;
}

size_t rn_golden_timing_min_runs(size_t na, size_t least, double alpha)
{
	size_t nb;

	for (nb = least ? least : 1; na && nb <= 1000; nb++)
		if (rn_golden_timing_feasible(na, nb, alpha))
			return nb;
	return 0;
}

double rn_golden_spread(const double *x, size_t n)
{
	double med;

	if (n < 2)
		return 0.0;
	med = rn_stats_median(x, n);
	return med > 0.0 ? 1.4826 * rn_stats_mad(x, n) / med : 0.0;
}

/* ---- host provenance ---------------------------------------------------------------------- */

static void copy_field(char *dst, size_t cap, const char *src, size_t len)
{
	if (len >= cap)
		len = cap - 1;
	memcpy(dst, src, len);
	dst[len] = '\0';
}

/*
 * The first "model name" of /proc/cpuinfo (x86, and arm64 kernels >= 6.x on some SoCs). It is
 * in the first lines, so a fixed buffer does: no allocation that could fail and silently turn
 * the provenance into "unknown".
 */
static void read_cpu_model(char *dst, size_t cap)
{
	char buf[8192];
	ssize_t n = 0, r;
	const char *p;
	int fd;

	copy_field(dst, cap, "unknown", 7);
	fd = open("/proc/cpuinfo", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	while (n < (ssize_t)sizeof(buf) - 1) {
		r = read(fd, buf + n, sizeof(buf) - 1 - (size_t)n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += r;
	}
	close(fd);
	buf[n] = '\0';
	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *colon, *end, *v;

		if (strncmp(p, "model name", 10))
			continue;
		colon = strchr(p, ':');
		end = strchr(p, '\n');
		if (!colon || (end && colon > end))
			continue;
		if (!end)
			end = p + strlen(p);
		for (v = colon + 1; v < end && (*v == ' ' || *v == '\t'); v++)
			;
		while (end > v && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
			end--;
		if (end > v)
			copy_field(dst, cap, v, (size_t)(end - v));
		break;
	}
}

void rn_golden_host(struct rn_golden_host *h)
{
	struct utsname u;

	if (uname(&u) == 0) {
		copy_field(h->kernel, sizeof(h->kernel), u.release, strlen(u.release));
		copy_field(h->machine, sizeof(h->machine), u.machine, strlen(u.machine));
	} else {
		copy_field(h->kernel, sizeof(h->kernel), "unknown", 7);
		copy_field(h->machine, sizeof(h->machine), "unknown", 7);
	}
	read_cpu_model(h->cpu_model, sizeof(h->cpu_model));
}

bool rn_golden_same_machine(const struct rn_golden *g)
{
	struct rn_golden_host h;

	if (!g->cpu_model || !g->kernel || !g->machine)
		return false;
	rn_golden_host(&h);
	return !strcmp(g->cpu_model, h.cpu_model) && !strcmp(g->kernel, h.kernel) &&
	       !strcmp(g->machine, h.machine);
}

char *rn_golden_path(const char *dir, const char *target)
{
	struct rn_buf b;

	if (!*target || !strcmp(target, ".") || !strcmp(target, "..") || strchr(target, '/'))
		return NULL;
	rn_buf_init(&b, 0);
	rn_buf_addf(&b, "%s/%s.json", dir, target);
	if (rn_buf_failed(&b))
		rn_die("out of memory");
	return rn_buf_detach(&b, NULL);
}

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

static const char *status_name(enum rn_run_status s)
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

int rn_golden_write(const char *path, const struct rn_target_result *r,
		    const char *const *argv_rel, struct rn_diag *d)
{
	json_t *root, *argv, *gpu;
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
			    status_name(r->status), r->error ? ": " : "", r->error ? r->error : "");
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
	put(root, "samples", build_samples(r, r->runs, &failed), &failed);
	if (r->ncounts)
		put(root, "counting_samples", build_samples(r, r->counts, &failed), &failed);
	put(root, "syscalls", build_syscalls(r, &failed), &failed);
	gpu = build_gpu(r, &failed);
	if (gpu)
		put(root, "gpu", gpu, &failed);
	if (failed) {
		json_decref(root);
		/* The only ways to fail above: an allocation, or a target name not in UTF-8. */
		rn_diag_set(d, 0, 0, "cannot encode golden trace of target '%s' (out of memory or "
			    "invalid UTF-8)", r->name);
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

	json_object_foreach((json_t *)o, key, v) {
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

static int cmp_syscall(const void *a, const void *b)
{
	return strcmp(((const struct rn_golden_syscall *)a)->name,
		      ((const struct rn_golden_syscall *)b)->name);
}

static int read_provenance(const json_t *o, struct rn_golden *g, struct rn_diag *d)
{
	static const char *const keys[] = { "build_id", "cpu_model", "created", "kernel",
					    "machine", "renacer_version", NULL };
	char **dst[] = { &g->build_id, &g->cpu_model, &g->created, &g->kernel, &g->machine,
			 &g->renacer_version };
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

/* "samples" (`nruns` values per metric) or "counting_samples" (`nruns` = counting runs). */
static int read_samples(const json_t *o, const char *what, size_t nruns, struct rn_golden *g,
			struct rn_diag *d)
{
	const char *key;
	json_t *v;

	if (!json_is_object(o))
		return corrupt(d, "\"%s\" must be an object", what);
	json_object_foreach((json_t *)o, key, v) {
		int m = rn_metric_lookup(key);
		size_t i;

		if (m < 0)
			return corrupt(d, "unknown metric \"%s.%s\"", what, key);
		if (g->samples[m])
			return corrupt(d, "metric \"%s\" is in both \"samples\" and "
				       "\"counting_samples\"", key);
		if (!json_is_array(v))
			return corrupt(d, "\"%s.%s\" must be an array", what, key);
		if (json_array_size(v) != nruns)
			return corrupt(d,
				       "\"%s.%s\" has %zu values, expected %zu (one per run)",
				       what, key, json_array_size(v), nruns);
		g->samples[m] = rn_xcalloc(nruns ? nruns : 1, sizeof(double));
		g->nsamples[m] = nruns;
		for (i = 0; i < nruns; i++)
			if (!get_count(json_array_get(v, i), &g->samples[m][i]))
				return corrupt(d, "\"%s.%s[%zu]\" must be an integer >= 0",
					       what, key, i);
	}
	return 0;
}

static int read_syscalls(const json_t *o, struct rn_golden *g, struct rn_diag *d)
{
	static const char *const keys[] = { "calls", "errors", "total_ns", NULL };
	const char *key;
	json_t *v;
	size_t n = 0;

	if (!json_is_object(o))
		return corrupt(d, "\"syscalls\" must be an object");
	g->syscalls = rn_xcalloc(json_object_size(o) + 1, sizeof(*g->syscalls));
	json_object_foreach((json_t *)o, key, v) {
		struct rn_golden_syscall *s = &g->syscalls[n];
		char where[160];
		double *dst[] = { &s->calls, &s->errors, &s->total_ns };
		size_t i;

		snprintf(where, sizeof(where), "syscalls.%s.", key);
		if (!*key)
			return corrupt(d, "empty syscall name in \"syscalls\"");
		if (!json_is_object(v))
			return corrupt(d, "\"syscalls.%s\" must be an object", key);
		if (check_keys(v, keys, where, d))
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
	}
	qsort(g->syscalls, g->nsyscalls, sizeof(*g->syscalls), cmp_syscall);
	return 0;
}

static int read_gpu(const json_t *o, struct rn_golden *g, struct rn_diag *d)
{
	static const char *const keys[] = { "busy_ns", "copy_bytes", "dispatches",
					    "runs_with_gpu", "spans", NULL };
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
	json_object_foreach((json_t *)spans, key, v) {
		double c;

		if (!get_count(v, &c))
			return corrupt(d, "\"gpu.spans.%s\" must be an integer >= 0", key);
	}
	g->has_gpu = true;
	return 0;
}

/* renacer-golden/1 (version 1) and renacer-golden/2 (version 2, with counting runs). */
static int read_golden_v1(const json_t *root, int version, struct rn_golden *g,
			  struct rn_diag *d)
{
	static const char *const keys_v1[] = { "argv", "format", "gpu", "provenance", "runs",
					       "samples", "syscalls", "target", NULL };
	static const char *const keys[] = { "argv", "counting_runs", "counting_samples",
					    "format", "gpu", "provenance", "runs", "samples",
					    "syscalls", "target", NULL };
	static const char *const required[] = { "argv", "provenance", "runs", "samples",
						"syscalls", "target", NULL };
	const json_t *v;
	double runs;
	size_t i;

	if (check_keys(root, version == 1 ? keys_v1 : keys, "", d))
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
			return corrupt(d, "\"counting_samples\" must be present exactly when "
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
		const json_t *e = json_array_get(calls, i), *dur;

		if (!json_is_object(e)) {
			rc = corrupt(d, "\"syscalls[%zu]\" must be an object", i);
			goto out_free_names;
		}
		v = json_object_get(e, "name");
		if (!json_is_string(v) || !*json_string_value(v)) {
			rc = corrupt(d, "\"syscalls[%zu].name\" must be a non-empty string", i);
			goto out_free_names;
		}
		names[i] = json_string_value(v);
		if (!json_is_array(json_object_get(e, "args"))) {
			rc = corrupt(d, "\"syscalls[%zu].args\" must be an array", i);
			goto out_free_names;
		}
		if (!json_is_integer(json_object_get(e, "result"))) {
			rc = corrupt(d, "\"syscalls[%zu].result\" must be an integer", i);
			goto out_free_names;
		}
		dur = json_object_get(e, "duration_us");
		if (dur && (!json_is_integer(dur) || json_integer_value(dur) < 0)) {
			rc = corrupt(d, "\"syscalls[%zu].duration_us\" must be an integer >= 0", i);
			goto out_free_names;
		}
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
		s = bsearch(&key, g->syscalls, g->nsyscalls, sizeof(*s), cmp_syscall);
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

int rn_golden_read(const char *path, struct rn_golden *g, struct rn_diag *d)
{
	struct rn_buf b;
	json_error_t err;
	json_t *root;
	const json_t *fmt;
	const char *f;
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

		rn_diag_set(d, err.line > 0 ? err.line : 0, err.line > 0 ? err.column : 0,
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
	f = json_string_value(fmt);
	if (!strcmp(f, RN_GOLDEN_FORMAT)) {
		rc = read_golden_v1(root, RN_GOLDEN_VERSION, g, d);
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
		rn_diag_set(d, 0, 0,
			    "written by a newer renacer (format %.64s); this renacer reads "
			    RN_GOLDEN_FORMAT, f);
		rc = -EPROTONOSUPPORT;
	} else {
		rn_diag_set(d, 0, 0, "not a golden trace: unknown format \"%.64s\" (expected \""
			    RN_GOLDEN_FORMAT "\", \"" RN_GOLDEN_FORMAT_V1 "\" or \"" RN_GOLDEN_JSON_V1
			    "\")", f);
		rc = -EINVAL;
	}
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
	memset(g, 0, sizeof(*g));
}

/* ---- comparing ---------------------------------------------------------------------------- */

/* What judges a metric (enum judge). */
enum judge {
	JUDGE_COUNT,    /* log-space growth with a floor */
	JUDGE_SYSCALLS, /* JUDGE_COUNT for every syscall, one verdict */
	JUDGE_TIMING,   /* one-sided rank test plus Hodges-Lehmann bound */
	JUDGE_MEMORY,   /* median against a relative tolerance */
	JUDGE_INSTRUCTIONS, /* Valgrind count against instructions_tolerance, no floor */
};

/* One comparison, in report order. */
struct step {
	enum rn_golden_check check; /* which comparison ([golden] metrics) */
	enum judge judge;    /* how */
	enum rn_metric metric; /* which per-run metric (JUDGE_SYSCALLS: unused) */
	const char *name;    /* verdict name after "golden:" */
	const char *unit;    /* verdict unit (static) */
	bool gpu;            /* only with a GPU summary in the golden trace */
};

static const struct step steps[] = {
	{ RN_GOLDEN_CHECK_SYSCALLS, JUDGE_COUNT, RN_METRIC_SYSCALLS, "syscalls", "calls", false },
	{ RN_GOLDEN_CHECK_SYSCALL_COUNTS, JUDGE_SYSCALLS, RN_METRIC_SYSCALLS, "syscall_counts",
	  "calls", false },
	{ RN_GOLDEN_CHECK_CPU_TIME, JUDGE_TIMING, RN_METRIC_CPU_TIME, "cpu_time", "ms", false },
	{ RN_GOLDEN_CHECK_WALL_TIME, JUDGE_TIMING, RN_METRIC_WALL, "wall_time", "ms", false },
	{ RN_GOLDEN_CHECK_CRITICAL_PATH, JUDGE_TIMING, RN_METRIC_CRITICAL_PATH, "critical_path",
	  "ms", false },
	{ RN_GOLDEN_CHECK_PEAK_RSS, JUDGE_MEMORY, RN_METRIC_PEAK_RSS, "peak_rss", "bytes", false },
	{ RN_GOLDEN_CHECK_ALLOC_PEAK, JUDGE_MEMORY, RN_METRIC_ALLOC_PEAK, "alloc_peak", "bytes",
	  false },
	{ RN_GOLDEN_CHECK_GPU_BUSY, JUDGE_TIMING, RN_METRIC_GPU_BUSY, "gpu_busy", "ms", true },
	{ RN_GOLDEN_CHECK_GPU_DISPATCHES, JUDGE_COUNT, RN_METRIC_GPU_DISPATCHES, "gpu_dispatches",
	  "spans", true },
	{ RN_GOLDEN_CHECK_GPU_COPY_BYTES, JUDGE_COUNT, RN_METRIC_GPU_COPY_BYTES, "gpu_copy_bytes",
	  "bytes", true },
	{ RN_GOLDEN_CHECK_INSTRUCTIONS, JUDGE_INSTRUCTIONS, RN_METRIC_INSTRUCTIONS, "instructions",
	  "instructions", false },
};

/* The step judging metric `m` (a timing metric of the table above). */
static const struct step *step_of(enum rn_metric m)
{
	size_t i;

	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		if (steps[i].metric == m && steps[i].judge != JUDGE_SYSCALLS)
			return &steps[i];
	return &steps[0];
}

/* State of one rn_golden_compare call. */
struct cmp {
	const struct rn_golden *g;            /* the baseline */
	const char *path;                     /* its file, for details */
	const struct rn_target_result *r;     /* the new runs */
	const struct rn_regression_cfg *cfg;  /* tolerances */
	bool same_machine;                    /* rn_golden_same_machine(g) */
	char elsewhere[480];                  /* why the machine differs, for WARN messages */
	struct rn_verdict_result *v;          /* verdicts produced */
	size_t n;                             /* verdicts used */
	size_t cap;                           /* verdicts allocated */
};

/*
 * Number formatting for messages and details. snprintf's %f follows LC_NUMERIC, and reports go
 * to machine readers (JUnit), so the radix character is forced to '.' as rn_buf_add_fixed does.
 */
static void fixed(char *out, size_t cap, double v, int prec)
{
	char *p;

	if (!isfinite(v))
		v = 0.0;
	snprintf(out, cap, "%.*f", prec, v);
	for (p = out; *p; p++)
		if (*p == ',')
			*p = '.';
}

/* A count: integral values without decimals, medians of even runs with one. */
static void fmt_num(char *out, size_t cap, double v)
{
	fixed(out, cap, v, fabs(v - floor(v + 0.5)) < 1e-9 ? 0 : 1);
}

/* A signed percentage: "+100.0%", "-3.5%". */
static void fmt_pct(char *out, size_t cap, double pct)
{
	char num[32];

	fixed(num, sizeof(num), pct, 1);
	snprintf(out, cap, "%s%s%%", pct >= 0.0 && num[0] != '-' ? "+" : "", num);
}

/* A tolerance fraction as "+10%". */
static void fmt_tol(char *out, size_t cap, double tol)
{
	char num[32];

	fmt_num(num, sizeof(num), floor(tol * 1000.0 + 0.5) / 10.0);
	snprintf(out, cap, "+%s%%", num);
}

/* A value in a metric's unit, for humans: ns as ms, bytes scaled, counts plain. */
static void fmt_value(char *out, size_t cap, const char *unit, double v)
{
	char num[32];

	if (!strcmp(unit, "ms") || !strcmp(unit, "ns")) {
		double ms = v / 1e6;
		double a = fabs(ms);

		fixed(num, sizeof(num), ms, a >= 100.0 ? 1 : a >= 1.0 ? 2 : 3);
		snprintf(out, cap, "%s ms", num);
	} else if (!strcmp(unit, "bytes")) {
		static const char *const units[] = { "KiB", "MiB", "GiB", "TiB" };
		double x = v;
		int i = -1;

		while (fabs(x) >= 1024.0 && i < 3) {
			x /= 1024.0;
			i++;
		}
		if (i < 0) {
			fmt_num(num, sizeof(num), v);
			snprintf(out, cap, "%s bytes", num);
		} else {
			fixed(num, sizeof(num), x, 1);
			snprintf(out, cap, "%s %s", num, units[i]);
		}
	} else {
		fmt_num(out, cap, v);
	}
}

/* A signed difference in a metric's unit: "+30.20 ms". */
static void fmt_signed(char *out, size_t cap, const char *unit, double v)
{
	char num[48];

	fmt_value(num, sizeof(num), unit, v);
	snprintf(out, cap, "%s%s", v >= 0.0 && num[0] != '-' ? "+" : "", num);
}

/* A fraction with at most four decimals and no trailing zeros: "0.01". */
static void fmt_trim(char *out, size_t cap, double v)
{
	size_t n;

	fixed(out, cap, v, 4);
	n = strlen(out);
	while (n > 1 && strchr(out, '.') && (out[n - 1] == '0' || out[n - 1] == '.')) {
		char c = out[n - 1];

		out[--n] = '\0';
		if (c == '.')
			break;
	}
}

static void fmt_p(char *out, size_t cap, double p)
{
	char num[32];

	if (p < 0.0001) {
		snprintf(out, cap, "p<0.0001");
		return;
	}
	fixed(num, sizeof(num), p, 4);
	snprintf(out, cap, "p=%s", num);
}

/* Relative change in percent; relative to 1 when the golden value is 0. */
static double delta_pct(double observed, double golden)
{
	return (observed - golden) / (golden > 0.0 ? golden : 1.0) * 100.0;
}

static double median_of(const double *x, size_t n)
{
	return n ? rn_stats_median(x, n) : 0.0;
}

/* Observed per-run samples of metric m as doubles (caller frees): the timing runs' for time
 * metrics (r->nruns of them), the counting runs' for counts (see observed_n). */
static double *observed(const struct rn_target_result *r, enum rn_metric m)
{
	size_t n;

	return rn_target_result_samples(r, m, &n);
}

/* How many samples observed() gives for metric m. */
static size_t observed_n(const struct rn_target_result *r, enum rn_metric m)
{
	size_t n;

	rn_target_result_runs_of(r, m, &n);
	return n;
}

/* How many samples the golden trace has for metric m. */
static size_t golden_n(const struct rn_golden *g, enum rn_metric m)
{
	return g->nsamples[m] ? g->nsamples[m] : g->nruns;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static struct rn_verdict_result *add_verdict(struct cmp *c, const struct step *s)
{
	struct rn_verdict_result *v;
	char name[64];

	c->v = rn_xgrow(c->v, &c->cap, c->n + 1, sizeof(*c->v));
	v = &c->v[c->n++];
	memset(v, 0, sizeof(*v));
	snprintf(name, sizeof(name), "golden:%s", s->name);
	v->assertion = rn_xstrdup(name);
	v->type = rn_xstrdup("regression");
	v->target = rn_xstrdup(c->r->name ? c->r->name : "");
	v->unit = s->unit;
	return v;
}

/* Convert a value in the metric's unit to the verdict's unit (ns -> ms). */
static double in_unit(const struct step *s, double v)
{
	return !strcmp(s->unit, "ms") ? v / 1e6 : v;
}

static void set_values(struct rn_verdict_result *v, const struct step *s, double obs, double gold,
		       double budget)
{
	v->has_observed = true;
	v->observed = in_unit(s, obs);
	v->has_golden = true;
	v->golden = in_unit(s, gold);
	v->has_budget = true;
	v->budget = in_unit(s, budget);
	v->delta_pct = delta_pct(obs, gold);
}

static char *aggregate_text(const struct cmp *c)
{
	struct rn_buf b;

	rn_buf_init(&b, 0);
	rn_buf_addf(&b, "median of %zu run%s (golden: %zu run%s)", c->r->nruns,
		    c->r->nruns == 1 ? "" : "s", c->g->nruns, c->g->nruns == 1 ? "" : "s");
	return rn_buf_detach(&b, NULL);
}

/* Finish a message buffer into v->message, adding the hint to failures. */
static void set_message(struct rn_verdict_result *v, struct rn_buf *b)
{
	if (v->verdict == RN_VERDICT_FAIL)
		rn_buf_adds(b, "; " RN_GOLDEN_HINT);
	v->message = rn_buf_detach(b, NULL);
	if (!v->message)
		rn_die("out of memory");
}

/* The tolerance of step `s`: [golden.tolerances] when given, else `dflt`. */
static double tol_of(const struct cmp *c, const struct step *s, double dflt)
{
	double t = c->cfg->tolerance[s->check];

	return t >= 0.0 ? t : dflt;
}

static void set_reason(struct rn_verdict_result *v, const char *fmt, ...) RN_PRINTF(2, 3);
static void set_reason(struct rn_verdict_result *v, const char *fmt, ...)
{
	char text[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	free(v->reason);
	v->reason = rn_xstrdup(text);
}

static void add_golden_line(const struct cmp *c, struct rn_buf *b)
{
	const struct rn_golden *g = c->g;

	rn_buf_addf(b, "golden trace: %s", c->path ? c->path : "(unnamed)");
	if (g->counts_only)
		rn_buf_addf(b, " (renacer-json-v1 baseline%s%s, counts only)",
			    g->renacer_version ? " of renacer " : "",
			    g->renacer_version ? g->renacer_version : "");
	else
		rn_buf_addf(b, " (recorded %s by renacer %s on %s, %s, kernel %s)",
			    g->created ? g->created : "?",
			    g->renacer_version ? g->renacer_version : "?",
			    g->cpu_model ? g->cpu_model : "?", g->machine ? g->machine : "?",
			    g->kernel ? g->kernel : "?");
	rn_buf_addc(b, '\n');
}

static bool count_fails(const struct rn_regression_cfg *cfg, double tol, double obs, double gold)
{
	return log1p(obs) - log1p(gold) > log1p(tol) && obs - gold > (double)cfg->count_floor;
}

/* Largest observed value that passes: both conditions of count_fails must hold to fail. */
static double count_allowed(const struct rn_regression_cfg *cfg, double tol, double gold)
{
	return fmax((gold + 1.0) * (1.0 + tol) - 1.0, gold + (double)cfg->count_floor);
}

static void add_count_rule(const struct cmp *c, double tolerance, struct rn_buf *b)
{
	char tol[64];

	fmt_trim(tol, sizeof(tol), tolerance);
	rn_buf_addf(b, "rule: fails when log(observed + 1) - log(golden + 1) > log(1 + %s) and "
		    "observed - golden > %" PRIu64 " (count_tolerance, count_floor)\n", tol,
		    c->cfg->count_floor);
}

static void judge_count(struct cmp *c, const struct step *s, struct rn_verdict_result *v)
{
	const char *name = rn_metric_info(s->metric)->name;
	double *obs_s = observed(c->r, s->metric);
	double gold = median_of(c->g->samples[s->metric], golden_n(c->g, s->metric));
	double tol = tol_of(c, s, c->cfg->count_tolerance);
	double obs = median_of(obs_s, observed_n(c->r, s->metric));
	double allowed = count_allowed(c->cfg, tol, gold);
	char o[64], g[64], d[64], t[64], a[64];
	struct rn_buf b;

	free(obs_s);
	set_values(v, s, obs, gold, allowed);
	v->verdict = count_fails(c->cfg, tol, obs, gold) ? RN_VERDICT_FAIL : RN_VERDICT_PASS;
	fmt_value(o, sizeof(o), s->unit, obs);
	fmt_value(g, sizeof(g), s->unit, gold);
	fmt_pct(d, sizeof(d), v->delta_pct);
	fmt_tol(t, sizeof(t), tol);
	set_reason(v, "%s vs golden %s, tolerance %s", d, g, t);
	fmt_value(a, sizeof(a), s->unit, allowed);

	rn_buf_init(&b, 0);
	rn_buf_addf(&b, "%s %s vs golden %s (%s, tolerance %s)", name, o, g, d, t);
	set_message(v, &b);

	rn_buf_init(&b, 0);
	rn_buf_addf(&b, "%-16s %14s %14s %10s %14s\n", "metric", "golden", "observed", "delta",
		    "allowed");
	rn_buf_addf(&b, "%-16s %14s %14s %10s %14s\n", name, g, o, d, a);
	add_count_rule(c, tol, &b);
	add_golden_line(c, &b);
	v->detail = rn_buf_detach(&b, NULL);
}

/* One syscall whose count grew or is new. */
struct sc_row {
	char *name;   /* syscall name, owned */
	double gold;  /* golden median calls (0 when new) */
	double obs;   /* observed median calls */
	double fewest; /* fewest calls of any observed run (what is judged) */
	bool is_new;  /* absent from the golden trace */
	bool fail;    /* beyond tolerance and floor */
};

/* Fewest calls of syscall `nr` in any run of `r`; `median` when per-run counts are not kept. */
static double fewest_calls(const struct rn_target_result *r, int nr, double median)
{
	double lo = median;
	size_t k;

	if (!r->syscall_samples)
		return median;
	for (k = 0; k < rn_target_result_count_runs(r); k++) {
		double x = (double)rn_target_result_run_calls(r, k, nr);

		lo = k ? fmin(lo, x) : x;
	}
	return lo;
}

static int cmp_rows(const void *pa, const void *pb)
{
	const struct sc_row *a = pa, *b = pb;
	double ga = log1p(a->obs) - log1p(a->gold), gb = log1p(b->obs) - log1p(b->gold);

	if (a->fail != b->fail)
		return a->fail ? -1 : 1;
	if (ga != gb)
		return ga > gb ? -1 : 1;
	return strcmp(a->name, b->name);
}

static const struct rn_golden_syscall *find_syscall(const struct rn_golden *g, const char *name)
{
	struct rn_golden_syscall key = { .name = (char *)name };

	if (!g->nsyscalls)
		return NULL;
	return bsearch(&key, g->syscalls, g->nsyscalls, sizeof(key), cmp_syscall);
}

/* Rows listed in the detail table at most; the rest are summarized in one line. */
#define MAX_ROWS 30
/* Syscalls named in the one-line message at most. */
#define MAX_NAMED 3

static void judge_syscalls(struct cmp *c, const struct step *s, struct rn_verdict_result *v)
{
	const struct rn_target_result *r = c->r;
	int nr, ntable = rn_syscall_table_size();
	struct sc_row *rows = NULL;
	size_t nrows = 0, cap = 0, nfail = 0, compared = 0, shrunk = 0, i;
	double sum_obs = 0.0, sum_gold = 0.0, tol = tol_of(c, s, c->cfg->count_tolerance);
	size_t nnew_fail = 0;
	char t[64];
	struct rn_buf b;

	for (nr = 0; r->syscall_calls && nr < ntable; nr++) {
		double obs = r->syscall_calls[nr];
		const struct rn_golden_syscall *gs;
		const char *name;

		if (!(obs > 0.0))
			continue;
		name = rn_syscall_name(nr);
		gs = find_syscall(c->g, name);
		compared++;
		sum_obs += obs;
		if (gs && obs <= gs->calls)
			continue;
		rows = rn_xgrow(rows, &cap, nrows + 1, sizeof(*rows));
		rows[nrows].name = rn_xstrdup(name);
		rows[nrows].gold = gs ? gs->calls : 0.0;
		rows[nrows].obs = obs;
		rows[nrows].fewest = fewest_calls(r, nr, obs);
		rows[nrows].is_new = !gs;
		/* Judged on the run with the fewest calls: a count the program itself changed
		 * grows in every run, one that grew in some runs only (futex, sched_yield under
		 * contention) depends on scheduling. A syscall the golden trace never made, in
		 * every run, is a change of behaviour whatever its count: one new sync() can
		 * cost seconds on a busy disk. */
		rows[nrows].fail = !gs ? rows[nrows].fewest >= 1.0
				       : count_fails(c->cfg, tol, rows[nrows].fewest, rows[nrows].gold);
		nnew_fail += !gs && rows[nrows].fail;
		nfail += rows[nrows].fail;
		nrows++;
	}
	for (i = 0; i < c->g->nsyscalls; i++) {
		const struct rn_golden_syscall *gs = &c->g->syscalls[i];
		int k = rn_syscall_lookup(gs->name);
		double obs = k >= 0 && r->syscall_calls ? r->syscall_calls[k] : 0.0;

		sum_gold += gs->calls;
		if (!(obs > 0.0))
			compared++; /* gone: counted once here, never seen in the loop above */
		if (obs < gs->calls)
			shrunk++;
	}
	if (nrows)
		qsort(rows, nrows, sizeof(*rows), cmp_rows);

	if (nrows) {
		set_values(v, s, rows[0].obs, rows[0].gold,
			   rows[0].is_new ? 0.0 : count_allowed(c->cfg, tol, rows[0].gold));
	} else {
		set_values(v, s, sum_obs, sum_gold, count_allowed(c->cfg, tol, sum_gold));
	}
	v->verdict = nfail ? RN_VERDICT_FAIL : RN_VERDICT_PASS;
	fmt_tol(t, sizeof(t), tol);
	if (nnew_fail)
		set_reason(v, "%zu new syscall%s (first: %s)", nnew_fail, nnew_fail == 1 ? "" : "s",
			   rows[0].name);
	else if (nfail)
		set_reason(v, "%zu syscall%s grew beyond %s", nfail, nfail == 1 ? "" : "s", t);
	else
		set_reason(v, "%zu syscalls within %s, none new", compared, t);

	rn_buf_init(&b, 0);
	if (nfail) {
		if (nnew_fail == nfail)
			rn_buf_addf(&b, "%zu new syscall%s, absent from the golden trace: ", nfail,
				    nfail == 1 ? "" : "s");
		else
			rn_buf_addf(&b, "%zu syscall%s %sgrew beyond tolerance (%s, floor %" PRIu64
				    "): ", nfail, nfail == 1 ? "" : "s", nnew_fail ? "new or " : "",
				    t, c->cfg->count_floor);
		for (i = 0; i < nfail && i < MAX_NAMED; i++) {
			char o[64], g[64], d[64];

			fmt_num(o, sizeof(o), rows[i].obs);
			fmt_num(g, sizeof(g), rows[i].gold);
			fmt_pct(d, sizeof(d), delta_pct(rows[i].obs, rows[i].gold));
			rn_buf_addf(&b, "%s%s %s vs golden %s (%s)", i ? ", " : "", rows[i].name, o,
				    g, rows[i].is_new ? "new" : d);
		}
		if (nfail > MAX_NAMED)
			rn_buf_addf(&b, ", and %zu more", nfail - MAX_NAMED);
	} else {
		size_t nnew = 0;

		rn_buf_addf(&b, "%zu syscall%s within tolerance (%s, floor %" PRIu64 ")", compared,
			    compared == 1 ? "" : "s", t, c->cfg->count_floor);
		for (i = 0; i < nrows; i++) {
			char o[64];

			if (!rows[i].is_new)
				continue;
			fmt_num(o, sizeof(o), rows[i].obs);
			rn_buf_addf(&b, "%s%s %s", nnew ? ", " : "; new: ", rows[i].name, o);
			nnew++;
		}
	}
	set_message(v, &b);

	rn_buf_init(&b, 0);
	if (nrows) {
		rn_buf_addf(&b, "%-24s %12s %12s %10s  %s\n", "syscall", "golden", "observed",
			    "delta", "status");
		for (i = 0; i < nrows && i < MAX_ROWS; i++) {
			char o[64], g[64], d[64];

			fmt_num(o, sizeof(o), rows[i].obs);
			fmt_num(g, sizeof(g), rows[i].gold);
			fmt_pct(d, sizeof(d), delta_pct(rows[i].obs, rows[i].gold));
			rn_buf_addf(&b, "%-24s %12s %12s %10s  %s\n", rows[i].name, g, o,
				    rows[i].is_new ? "new" : d,
				    rows[i].fail ? (rows[i].is_new ? "FAIL (new)" : "FAIL")
				    : rows[i].is_new ? "ok (new in some runs only)"
				    : count_fails(c->cfg, tol, rows[i].obs, rows[i].gold)
					    ? "ok (grew in some runs only)"
					    : "ok (within tolerance)");
		}
		if (nrows > MAX_ROWS)
			rn_buf_addf(&b, "... and %zu more grown or new syscalls\n",
				    nrows - MAX_ROWS);
	} else {
		rn_buf_adds(&b, "no syscall grew and none is new\n");
	}
	if (shrunk)
		rn_buf_addf(&b, "%zu syscall%s made fewer calls or none (not a regression)\n",
			    shrunk, shrunk == 1 ? "" : "s");
	add_count_rule(c, tol, &b);
	rn_buf_adds(&b, "rule: a syscall absent from the golden trace fails (new behaviour); both "
		       "rules judge the run with the fewest calls, so a count that grew in some "
		       "runs only (scheduling: futex, sched_yield) does not fail\n");
	add_golden_line(c, &b);
	v->detail = rn_buf_detach(&b, NULL);

	for (i = 0; i < nrows; i++)
		free(rows[i].name);
	free(rows);
}

/* The detail table comparing two sample sets: runs, median, MAD, min, max. */
static void add_sample_table(struct rn_buf *b, const char *unit, const double *a, size_t na,
			     const double *bb, size_t nb)
{
	char x[64], y[64];
	double amin = 0, amax = 0, bmin = 0, bmax = 0;
	size_t i;

	for (i = 0; i < na; i++) {
		amin = i ? fmin(amin, a[i]) : a[i];
		amax = i ? fmax(amax, a[i]) : a[i];
	}
	for (i = 0; i < nb; i++) {
		bmin = i ? fmin(bmin, bb[i]) : bb[i];
		bmax = i ? fmax(bmax, bb[i]) : bb[i];
	}
	rn_buf_addf(b, "%-28s %14s %14s\n", "", "golden", "observed");
	rn_buf_addf(b, "%-28s %14zu %14zu\n", "runs", na, nb);
	fmt_value(x, sizeof(x), unit, median_of(a, na));
	fmt_value(y, sizeof(y), unit, median_of(bb, nb));
	rn_buf_addf(b, "%-28s %14s %14s\n", "median", x, y);
	fmt_value(x, sizeof(x), unit, na ? rn_stats_mad(a, na) : 0.0);
	fmt_value(y, sizeof(y), unit, nb ? rn_stats_mad(bb, nb) : 0.0);
	rn_buf_addf(b, "%-28s %14s %14s\n", "MAD", x, y);
	fmt_value(x, sizeof(x), unit, amin);
	fmt_value(y, sizeof(y), unit, bmin);
	rn_buf_addf(b, "%-28s %14s %14s\n", "min", x, y);
	fmt_value(x, sizeof(x), unit, amax);
	fmt_value(y, sizeof(y), unit, bmax);
	rn_buf_addf(b, "%-28s %14s %14s\n", "max", x, y);
}

/* Downgrade a FAIL of a machine-dependent metric to WARN when the golden trace is foreign. */
static void maybe_downgrade(struct cmp *c, struct rn_verdict_result *v, struct rn_buf *msg)
{
	if (v->verdict != RN_VERDICT_FAIL || c->same_machine)
		return;
	v->verdict = RN_VERDICT_WARN;
	rn_buf_addf(msg, "; not gated: golden trace recorded on another machine (%s)",
		    c->elsewhere);
}

/* How the timing rule decided (enum timing_outcome). */
enum timing_outcome {
	T_PASS,          /* no slowdown beyond the tolerance at significance */
	T_FAIL,          /* a regression */
	T_NOISE,         /* slower beyond the tolerance, but within the golden trace's own noise */
	T_LOAD,          /* slower beyond the tolerance, but within the loaded machine's allowance */
	T_GUARD,         /* wall clock slower, cpu_time not: contention (the load guard) */
};

/* The inputs and bounds of one timing decision. */
struct timing_eval {
	struct rn_mann_whitney mw;
	struct rn_hodges_lehmann hl;
	double gold;      /* golden median, ns */
	double limit;     /* tolerance * gold, ns */
	double noise;     /* RN_GOLDEN_NOISE_SIGMAS * 1.4826 * MAD of the golden samples, ns */
	double allowance; /* RN_LOAD_ALLOWANCE * CPU pressure * gold when loaded, else 0, ns */
	char why[256];    /* the load guard's reason (T_GUARD) */
};

static bool loaded(const struct cmp *c)
{
	return c->r->has_cpu_pressure && c->r->cpu_pressure >= RN_LOAD_PRESSURE_BUSY;
}

static const struct step *step_of(enum rn_metric m);

/*
 * The timing rule for step `s` (samples present on both sides, enough runs): a regression needs
 * a significant shift (p < alpha) whose lower confidence bound exceeds the tolerance, the
 * golden's own noise, and on a loaded machine the load allowance; wall time and critical path
 * also need cpu_time to have regressed when the target is CPU-bound or the machine loaded.
 */
static enum timing_outcome timing_rule(const struct cmp *c, const struct step *s,
				       struct timing_eval *e)
{
	const double *a = c->g->samples[s->metric];
	size_t na = golden_n(c->g, s->metric), nb = observed_n(c->r, s->metric);
	double *b = observed(c->r, s->metric);

	memset(e, 0, sizeof(*e));
	e->gold = median_of(a, na);
	e->limit = tol_of(c, s, c->cfg->timing_tolerance) * e->gold;
	e->noise = RN_GOLDEN_NOISE_SIGMAS * 1.4826 * (na ? rn_stats_mad(a, na) : 0.0);
	e->allowance = loaded(c) ? RN_LOAD_ALLOWANCE * c->r->cpu_pressure * e->gold : 0.0;
	if (e->allowance > 0.0 && s->metric == RN_METRIC_CPU_TIME && c->g->samples[RN_METRIC_SYSCALLS]) {
		/* Load slows the tracer's stops most: weigh by the share of cpu_time they take. */
		double stops = median_of(c->g->samples[RN_METRIC_SYSCALLS],
					 golden_n(c->g, RN_METRIC_SYSCALLS)) * RN_LOAD_STOP_NS;
		double w = e->gold > 0.0 ? stops / e->gold : 1.0;

		e->allowance *= w < RN_LOAD_CPU_FLOOR ? RN_LOAD_CPU_FLOOR : w > 1.0 ? 1.0 : w;
	}
	rn_stats_mann_whitney(a, na, b, nb, &e->mw);
	rn_stats_hodges_lehmann(a, na, b, nb, c->cfg->alpha, &e->hl);
	free(b);
	if (!(e->mw.p < c->cfg->alpha && e->hl.lower > e->limit))
		return T_PASS;
	if (e->hl.lower <= e->noise)
		return T_NOISE;
	if (e->hl.lower <= e->limit + e->allowance)
		return T_LOAD;
	if (c->cfg->load_guard &&
	    (s->metric == RN_METRIC_WALL || s->metric == RN_METRIC_CRITICAL_PATH)) {
		const double *cpu = c->g->samples[RN_METRIC_CPU_TIME];
		const double *wall = c->g->samples[RN_METRIC_WALL];
		struct timing_eval ce;
		bool cpu_bound;

		size_t ncpu = golden_n(c->g, RN_METRIC_CPU_TIME), nwall = golden_n(c->g, RN_METRIC_WALL);

		if (!cpu || !wall || !(median_of(cpu, ncpu) > 0.0))
			return T_FAIL;
		cpu_bound = median_of(cpu, ncpu) >= 0.5 * median_of(wall, nwall);
		if (!cpu_bound && !loaded(c))
			return T_FAIL; /* an I/O-bound target on a quiet machine: its own time */
		if (timing_rule(c, step_of(RN_METRIC_CPU_TIME), &ce) == T_FAIL)
			return T_FAIL;
		if (loaded(c))
			snprintf(e->why, sizeof(e->why), "cpu_time did not regress and the machine "
				 "was loaded (CPU pressure %.0f%% of the runs' time >= %.0f%%)",
				 c->r->cpu_pressure * 100.0, RN_LOAD_PRESSURE_BUSY * 100.0);
		else
			snprintf(e->why, sizeof(e->why), "cpu_time did not regress for this "
				 "CPU-bound target: the machine was busier, not the program");
		return T_GUARD;
	}
	return T_FAIL;
}

/* Write a NOT JUDGED timing verdict: `reason` for the table, `fix` says what to change. */
static void not_judged(struct rn_verdict_result *v, struct rn_buf *m, struct rn_buf *det,
		       const char *head, const char *reason, const char *fix)
{
	v->verdict = RN_VERDICT_NOT_JUDGED;
	set_reason(v, "%s", reason);
	rn_buf_addf(m, "%s; not judged: %s; to judge it: %s", head, reason, fix);
	rn_buf_addf(det, "not judged: %s\nto judge it: %s\n", reason, fix);
}

static void judge_timing(struct cmp *c, const struct step *s, struct rn_verdict_result *v)
{
	const struct rn_regression_cfg *cfg = c->cfg;
	const char *name = rn_metric_info(s->metric)->name;
	const char *tname = c->r->name ? c->r->name : "?";
	const double *a = c->g->samples[s->metric];
	size_t na = golden_n(c->g, s->metric), nb = observed_n(c->r, s->metric);
	size_t fewest = na < nb ? na : nb;
	double *b = observed(c->r, s->metric);
	double gold = median_of(a, na), obs = median_of(b, nb);
	double tol = tol_of(c, s, cfg->timing_tolerance);
	double limit = tol * gold;
	double noise = RN_GOLDEN_NOISE_SIGMAS * 1.4826 * (na ? rn_stats_mad(a, na) : 0.0);
	char o[64], g[64], d[64], t[64], conf[64], p[64], lo[64], sh[64], lim[64], al[32];
	char head[256], reason[200], fix[400];
	struct timing_eval e;
	enum timing_outcome outcome;
	struct rn_buf m, det;

	set_values(v, s, obs, gold, gold + limit);
	fmt_value(o, sizeof(o), "ns", obs);
	fmt_value(g, sizeof(g), "ns", gold);
	fmt_pct(d, sizeof(d), v->delta_pct);
	fmt_tol(t, sizeof(t), tol);
	fmt_trim(al, sizeof(al), cfg->alpha);
	fmt_num(conf, sizeof(conf), floor((1.0 - cfg->alpha) * 1000.0 + 0.5) / 10.0);
	snprintf(head, sizeof(head), "%s %s vs golden %s (%s)", name, o, g, d);
	rn_buf_init(&m, 0);
	rn_buf_init(&det, 0);
	add_sample_table(&det, "ns", a, na, b, nb);

	if (!(obs > 0.0) && gold > 0.0) {
		v->verdict = RN_VERDICT_NO_DATA;
		rn_buf_addf(&m, "%s: no data in this run (golden %s)", name, g);
		goto out;
	}
	if (!(gold > 0.0)) {
		/* A zero median is a metric the golden run did not measure: any time would look
		 * like an infinite slowdown. */
		snprintf(head, sizeof(head), "%s %s", name, o);
		snprintf(reason, sizeof(reason), "the golden trace has no %s data", name);
		not_judged(v, &m, &det, head, reason, "re-record it with renacer golden update");
		goto out;
	}
	if (!cfg->timing) {
		v->verdict = RN_VERDICT_SKIP;
		set_reason(v, "timing = false");
		rn_buf_addf(&m, "%s; not judged: timing is off ([regression] timing = false)", head);
		goto out;
	}
	if (fewest < cfg->min_runs_for_timing) {
		size_t want = cfg->min_runs_for_timing;

		snprintf(reason, sizeof(reason), "%zu %s run%s < min_runs_for_timing %zu",
			 fewest, nb <= na ? "measured" : "golden", fewest == 1 ? "" : "s", want);
		if (nb < want && na < want)
			snprintf(fix, sizeof(fix), "runs >= %zu in [[target]] '%s' (or --runs %zu), "
				 "and a golden trace of >= %zu runs ([golden] runs, then renacer "
				 "golden update)", want, tname, want, want);
		else if (nb < want)
			snprintf(fix, sizeof(fix), "runs >= %zu in [[target]] '%s' (or --runs %zu)",
				 want, tname, want);
		else
			snprintf(fix, sizeof(fix), "re-record the golden trace with >= %zu runs "
				 "([golden] runs, then renacer golden update)", want);
		not_judged(v, &m, &det, head, reason, fix);
		goto out;
	}
	if (!rn_golden_timing_feasible(na, nb, cfg->alpha)) {
		size_t need = rn_golden_timing_min_runs(na, nb, cfg->alpha);

		snprintf(reason, sizeof(reason), "%zu runs vs %zu golden runs can never reach "
			 "alpha %s (smallest p %.4f)", nb, na, al, min_p(na, nb));
		if (need)
			snprintf(fix, sizeof(fix), "runs >= %zu in [[target]] '%s' against this "
				 "%zu-run golden trace, or a golden trace of more runs", need, tname,
				 na);
		else
			snprintf(fix, sizeof(fix), "a golden trace of more runs");
		not_judged(v, &m, &det, head, reason, fix);
		goto out;
	}

	outcome = timing_rule(c, s, &e);
	fmt_p(p, sizeof(p), e.mw.p);
	fmt_signed(sh, sizeof(sh), "ns", e.hl.shift);
	fmt_signed(lim, sizeof(lim), "ns", limit);
	if (isfinite(e.hl.lower))
		fmt_signed(lo, sizeof(lo), "ns", e.hl.lower);
	else
		snprintf(lo, sizeof(lo), "none (too few runs)");
	rn_buf_addf(&m, "%s %s vs golden %s (%s, tolerance %s)", name, o, g, d, t);
	switch (outcome) {
	case T_NOISE: {
		char nz[64];

		/* The golden trace's own runs differ by more than this shift: it cannot tell the
		 * program from the noise it was recorded in. */
		fmt_signed(nz, sizeof(nz), "ns", noise);
		v->verdict = RN_VERDICT_WARN;
		set_reason(v, "inconclusive: shift %s within golden noise %s", lo, nz);
		rn_buf_addf(&m, ": INCONCLUSIVE (WARN): slower by at least %s (%s), but the golden "
			    "trace's own runs spread by %s (%.0f x 1.4826 MAD); re-record it on a "
			    "quieter machine with more runs, or raise the tolerance", lo + 1, p,
			    nz + 1, RN_GOLDEN_NOISE_SIGMAS);
		rn_buf_addf(&det, "inconclusive: the lower bound %s does not exceed the golden "
			    "noise %s\n", lo, nz);
		break;
	}
	case T_LOAD: {
		char al2[64];

		fmt_signed(al2, sizeof(al2), "ns", e.limit + e.allowance);
		v->verdict = RN_VERDICT_WARN;
		set_reason(v, "inconclusive: machine loaded (CPU pressure %.0f%%)",
			   c->r->cpu_pressure * 100.0);
		rn_buf_addf(&m, ": INCONCLUSIVE (WARN): slower by at least %s (%s), but the machine "
			    "was loaded (CPU pressure %.0f%% of the runs' time) and the shift stays "
			    "within tolerance plus the load allowance (%s); run the check on a "
			    "quieter machine to decide", lo + 1, p, c->r->cpu_pressure * 100.0,
			    al2 + 1);
		rn_buf_addf(&det, "inconclusive: the lower bound %s does not exceed the limit plus "
			    "the load allowance, %s (%.2f x pressure x golden%s)\n", lo, al2,
			    RN_LOAD_ALLOWANCE, s->metric == RN_METRIC_CPU_TIME
						       ? " x the syscall stops' share" : "");
		break;
	}
	case T_GUARD:
		v->verdict = RN_VERDICT_WARN;
		set_reason(v, "inconclusive: %s", loaded(c) ? "machine loaded, cpu_time same"
							    : "cpu_time same (CPU-bound)");
		rn_buf_addf(&m, ": INCONCLUSIVE (WARN), not FAIL: slower by at least %s (%s), but %s "
			    "([regression] load_guard)", lo + 1, p, e.why);
		rn_buf_addf(&det, "load guard: %s\n", e.why);
		break;
	case T_FAIL:
		v->verdict = RN_VERDICT_FAIL;
		set_reason(v, "slower by >= %s (%s)", lo + 1, p);
		rn_buf_addf(&m, ": slower by at least %s at %s%% confidence (%s)", lo + 1, conf, p);
		break;
	case T_PASS:
		v->verdict = RN_VERDICT_PASS;
		if (e.mw.p < cfg->alpha) {
			set_reason(v, "significant (%s) but within %s", p, t);
			rn_buf_addf(&m, ": significant slowdown (%s) of at least %s, within %s", p,
				    isfinite(e.hl.lower) && e.hl.lower > 0 ? lo + 1 : "0 ms",
				    lim + 1);
		} else {
			set_reason(v, "no significant slowdown (%s)", p);
			rn_buf_addf(&m, ": no significant slowdown (%s)", p);
		}
		break;
	}
	maybe_downgrade(c, v, &m);
	if (c->r->has_cpu_pressure)
		rn_buf_addf(&det, "%-28s %13.0f%%\n", "CPU pressure during runs",
			    c->r->cpu_pressure * 100.0);
	if (c->g->timing_under_tracer) {
		/* WARN at most until the golden trace is regenerated with timing runs */
		if (v->verdict == RN_VERDICT_FAIL)
			v->verdict = RN_VERDICT_WARN;
		rn_buf_adds(&m, "; " RN_GOLDEN_UNDER_TRACER_HINT);
	}

	rn_buf_addf(&det, "%-28s %14s\n", "shift (Hodges-Lehmann)", sh);
	{
		char label[96], nz[64];

		snprintf(label, sizeof(label), "lower bound (%s%%)", conf);
		rn_buf_addf(&det, "%-28s %14s\n", label, lo);
		snprintf(label, sizeof(label), "limit (tolerance %s)", t);
		rn_buf_addf(&det, "%-28s %14s\n", label, lim);
		fmt_signed(nz, sizeof(nz), "ns", noise);
		rn_buf_addf(&det, "%-28s %14s\n", "golden noise (2 x 1.48 MAD)", nz);
		if (e.allowance > 0.0) {
			fmt_signed(nz, sizeof(nz), "ns", e.allowance);
			rn_buf_addf(&det, "%-28s %14s\n", "load allowance", nz);
		}
	}
	{
		char u[64];

		fixed(u, sizeof(u), e.mw.u, 1);
		rn_buf_addf(&det, "Mann-Whitney U = %s of %zu pairs, one-sided %s (%s), alpha %s\n",
			    u, na * nb, p, e.mw.exact ? "exact" : "normal approximation", al);
	}
	rn_buf_addf(&det, "rule: fails when p < alpha and the lower bound exceeds the limit, the "
			  "golden noise and (loaded machine) the limit plus the load allowance; "
			  "inconclusive (WARN) when it exceeds only some, or when the load guard "
			  "applies\n");
out:
	free(b);
	set_message(v, &m);
	add_golden_line(c, &det);
	v->detail = rn_buf_detach(&det, NULL);
}

static void judge_memory(struct cmp *c, const struct step *s, struct rn_verdict_result *v)
{
	const char *name = rn_metric_info(s->metric)->name;
	const double *a = c->g->samples[s->metric];
	size_t na = golden_n(c->g, s->metric), nb = observed_n(c->r, s->metric);
	double *b = observed(c->r, s->metric);
	double gold = median_of(a, na), obs = median_of(b, nb);
	double tol = tol_of(c, s, c->cfg->memory_tolerance);
	double allowed = gold * (1.0 + tol);
	char o[64], g[64], d[64], t[64], al[64];

	/* Small programs: a few pages of RSS noise must not look like a regression. */
	if (allowed < gold + (double)c->cfg->memory_floor_bytes)
		allowed = gold + (double)c->cfg->memory_floor_bytes;
	struct rn_buf m, det;

	set_values(v, s, obs, gold, allowed);
	fmt_value(o, sizeof(o), "bytes", obs);
	fmt_value(g, sizeof(g), "bytes", gold);
	fmt_value(al, sizeof(al), "bytes", allowed);
	fmt_pct(d, sizeof(d), v->delta_pct);
	fmt_tol(t, sizeof(t), tol);
	rn_buf_init(&m, 0);
	rn_buf_init(&det, 0);
	add_sample_table(&det, "bytes", a, na, b, nb);

	if (!(gold > 0.0) && obs > 0.0) {
		v->verdict = RN_VERDICT_NOT_JUDGED;
		set_reason(v, "golden has no %s data", name);
		rn_buf_addf(&m, "%s %s; not judged: the golden trace has no %s data; to judge it: "
			    "re-record it with renacer golden update", name, o, name);
	} else if (!(obs > 0.0) && gold > 0.0) {
		v->verdict = RN_VERDICT_NO_DATA;
		rn_buf_addf(&m, "%s: no data in this run (golden %s)", name, g);
	} else {
		v->verdict = obs > allowed ? RN_VERDICT_FAIL : RN_VERDICT_PASS;
		set_reason(v, "%s vs golden %s, allowed %s", d, g, al);
		rn_buf_addf(&m, "%s %s vs golden %s (%s, tolerance %s)", name, o, g, d, t);
		maybe_downgrade(c, v, &m);
	}
	rn_buf_addf(&det, "%-28s %14s\n", "allowed (median)", al);
	rn_buf_addf(&det, "rule: fails when the observed median exceeds golden median * (1 + %s) "
			  "and golden median + %llu bytes\n",
		    t + 1, (unsigned long long)c->cfg->memory_floor_bytes);
	free(b);
	set_message(v, &m);
	add_golden_line(c, &det);
	v->detail = rn_buf_detach(&det, NULL);
}

/* Instruction counts are deterministic: a tight relative tolerance, no floor, no load
 * guard (a loaded machine does not change them). */
static void judge_instructions(struct cmp *c, const struct step *s, struct rn_verdict_result *v)
{
	const double *a = c->g->samples[s->metric];
	size_t na = golden_n(c->g, s->metric), nb = observed_n(c->r, s->metric);
	double *b = observed(c->r, s->metric);
	double gold = median_of(a, na), obs = median_of(b, nb);
	double tol = tol_of(c, s, c->cfg->instructions_tolerance);
	double allowed = gold * (1.0 + tol);
	char d[64], t[64];
	struct rn_buf m, det;

	set_values(v, s, obs, gold, allowed);
	fmt_pct(d, sizeof(d), v->delta_pct);
	fixed(t, sizeof(t), tol * 100.0, 2);
	rn_buf_init(&m, 0);
	rn_buf_init(&det, 0);
	if (!(obs > 0.0)) {
		v->verdict = RN_VERDICT_NO_DATA;
		rn_buf_addf(&m, "instructions: not counted in this check (golden %.0f); set "
			    "instructions = true on the target", gold);
	} else {
		v->verdict = obs > allowed ? RN_VERDICT_FAIL : RN_VERDICT_PASS;
		rn_buf_addf(&m, "instructions %.0f vs golden %.0f (%s, tolerance +%s%%)", obs, gold,
			    d, t);
	}
	rn_buf_addf(&det, "%-28s %14.0f\n", "golden", gold);
	rn_buf_addf(&det, "%-28s %14.0f\n", "observed", obs);
	rn_buf_addf(&det, "%-28s %14.0f\n", "allowed", allowed);
	rn_buf_addf(&det, "rule: fails when the count exceeds golden * (1 + %s%%) "
			  "(instructions_tolerance)\n", t);
	if (c->r->instructions_detail)
		rn_buf_addf(&det, "pid instructions command\n%s", c->r->instructions_detail);
	free(b);
	set_message(v, &m);
	add_golden_line(c, &det);
	v->detail = rn_buf_detach(&det, NULL);
}

/* Every verdict ERROR: the target did not run cleanly, there is nothing to compare. */
static void not_compared(struct cmp *c, struct rn_verdict_result *v)
{
	struct rn_buf b;

	v->verdict = RN_VERDICT_ERROR;
	rn_buf_init(&b, 0);
	if (!c->r->nruns)
		rn_buf_addf(&b, "not compared with the golden trace: target '%s' has no measured "
			    "runs", v->target);
	else
		rn_buf_addf(&b, "not compared with the golden trace: target '%s' %s%s%s", v->target,
			    status_name(c->r->status), c->r->error ? ": " : "",
			    c->r->error ? c->r->error : "");
	set_message(v, &b);
}

static void describe_elsewhere(struct cmp *c)
{
	const struct rn_golden *g = c->g;
	struct rn_golden_host h;
	struct rn_buf b;
	char *s;

	rn_golden_host(&h);
	rn_buf_init(&b, sizeof(c->elsewhere) - 1);
	if (!g->cpu_model || !g->kernel || !g->machine) {
		rn_buf_adds(&b, "its machine is not recorded");
	} else {
		const char *sep = "";

		if (strcmp(g->cpu_model, h.cpu_model)) {
			rn_buf_addf(&b, "cpu '%.100s', here '%.100s'", g->cpu_model, h.cpu_model);
			sep = "; ";
		}
		if (strcmp(g->kernel, h.kernel)) {
			rn_buf_addf(&b, "%skernel %.60s, here %.60s", sep, g->kernel, h.kernel);
			sep = "; ";
		}
		if (strcmp(g->machine, h.machine))
			rn_buf_addf(&b, "%smachine %.30s, here %.30s", sep, g->machine, h.machine);
	}
	s = rn_buf_detach(&b, NULL);
	snprintf(c->elsewhere, sizeof(c->elsewhere), "%s", s ? s : "differs");
	free(s);
}

int rn_golden_compare(const struct rn_golden *g, const char *golden_path,
		      const struct rn_target_result *r, const struct rn_regression_cfg *cfg,
		      struct rn_verdict_result **out, size_t *nout)
{
	struct cmp c = { .g = g, .path = golden_path, .r = r, .cfg = cfg };
	bool failed_target = !r->nruns || r->status != RN_RUN_OK;
	bool observed_gpu = false;
	size_t i;

	*out = NULL;
	*nout = 0;
	if (!cfg->enabled)
		return 0;
	c.same_machine = rn_golden_same_machine(g);
	if (!c.same_machine)
		describe_elsewhere(&c);
	for (i = 0; i < r->nruns; i++)
		observed_gpu |= r->runs[i].has_gpu;

	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		const struct step *s = &steps[i];
		struct rn_verdict_result *v;
		uint64_t t0;

		if (s->judge != JUDGE_SYSCALLS && !g->samples[s->metric])
			continue; /* not in the golden trace (counts-only baselines) */
		if (s->gpu && !g->has_gpu)
			continue;
		t0 = now_ns();
		v = add_verdict(&c, s);
		if (failed_target) {
			not_compared(&c, v);
		} else if (!cfg->judged[s->check]) {
			struct rn_buf b;

			v->verdict = RN_VERDICT_SKIP;
			v->reason = rn_xstrdup("not in [golden] metrics");
			rn_buf_init(&b, 0);
			rn_buf_addf(&b, "%s: not compared (not listed in [golden] metrics)", s->name);
			set_message(v, &b);
		} else if (s->gpu && !observed_gpu) {
			struct rn_buf b;

			v->verdict = RN_VERDICT_NO_DATA;
			rn_buf_init(&b, 0);
			rn_buf_addf(&b, "%s: no GPU spans in any run, the golden trace has them "
				    "(is the Vulkan collector enabled for this target?)", s->name);
			set_message(v, &b);
		} else {
			switch (s->judge) {
			case JUDGE_COUNT:
				judge_count(&c, s, v);
				break;
			case JUDGE_SYSCALLS:
				judge_syscalls(&c, s, v);
				break;
			case JUDGE_TIMING:
				judge_timing(&c, s, v);
				break;
			case JUDGE_MEMORY:
				judge_memory(&c, s, v);
				break;
			case JUDGE_INSTRUCTIONS:
				judge_instructions(&c, s, v);
				break;
			}
			v->aggregate = aggregate_text(&c);
		}
		v->time_ns = now_ns() - t0;
	}
	*out = c.v;
	*nout = c.n;
	return 0;
}
