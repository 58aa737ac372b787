/*
 * bench_json.c - the github-action-benchmark JSON (bench_json.h).
 */
#include "bench_json.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "safefile.h"

/* Keep the positive of s[n] in place; returns how many. */
static size_t drop_zeros(double *s, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (s[i] > 0.0)
			s[k++] = s[i];
	return k;
}

int rn_report_bench_json(const char *path, const struct rn_outcome *oc)
{
	const struct rn_target_report *t = oc->reports;
	size_t n = oc->ntargets;
	static const struct {
		enum rn_metric m;
		const char *unit;
		double scale;
		bool unknown_zero; /* a run's 0 means not measured (bench_json.h) */
	} rows[] = {
		{ RN_METRIC_WALL, "ms", 1e6, false },
		{ RN_METRIC_CRITICAL_PATH, "ms", 1e6, false },
		{ RN_METRIC_PEAK_RSS, "bytes", 1, true },
		{ RN_METRIC_SYSCALLS, "syscalls", 1, false },
	};
	json_t *arr = json_array();
	char *text;
	size_t i, k;
	int rc;

	for (i = 0; i < n; i++) {
		const struct rn_target_result *r = t[i].result;

		if (!rn_target_result_measured(r))
			continue;
		for (k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
			size_t ns;
			double *s = rn_target_result_samples(r, rows[k].m, &ns);
			double med;
			char name[256], extra[96];
			/* a harness's benchmark: its time per iteration, in ns (harness.h) */
			bool per_iter = r->per_iteration &&
				rn_metric_measured_by(rows[k].m) == RN_MEASURES_TIMES;

			if (!rn_target_result_time_judged(r, rows[k].m))
				ns = 0;
			if (rows[k].unknown_zero)
				ns = drop_zeros(s, ns);
			if (!ns) {
				free(s); /* not measured by the runs this check made */
				continue;
			}
			med = rn_aggregate(s, ns, RN_AGG_MEDIAN);
			snprintf(name, sizeof(name), "%s %s", r->name,
				 rn_metric_info(rows[k].m)->name);
			snprintf(extra, sizeof(extra), "%smedian of %zu %s",
				 per_iter ? "per iteration, " : "", ns,
				 rn_metric_measured_by(rows[k].m) == RN_MEASURES_COUNTS &&
						 r->ncounts ?
					 "counting runs" :
					 "runs");
			json_array_append_new(arr,
					      json_pack("{s:s, s:s, s:f, s:s}", "name", name,
							"unit", per_iter ? "ns" : rows[k].unit,
							"value",
							per_iter ? med : med / rows[k].scale,
							"extra", extra));
			free(s);
		}
	}
	text = json_dumps(arr, JSON_INDENT(2));
	json_decref(arr);
	if (!text)
		return rn_error("cannot encode '%s'", path);
	rc = rn_write_file_atomic(path, text, strlen(text));
	free(text);
	if (rc)
		return rn_error("cannot write '%s': %s", path, rn_safefile_strerror(rc));
	return 0;
}
