/*
 * test_shard - the shard partition (runner/input/shard.h) and the results file (runner/report/results.h):
 * K/N parsing, rendezvous assignment (a partition, stable when targets are added), balanced
 * assignment with shard_weight, and a write/read round trip of a results file that keeps
 * every field the reports read.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "results.h"
#include "runner/input/internal.h"
#include "shard.h"
#include "xalloc.h"

static void test_shard_parse(void **state)
{
	struct rn_shard s;

	(void)state;
	assert_int_equal(rn_shard_parse("1/3", &s), 0);
	assert_int_equal(s.index, 1);
	assert_int_equal(s.count, 3);
	assert_int_equal(rn_shard_parse("3/3", &s), 0);
	assert_int_equal(rn_shard_parse("1024/1024", &s), 0);
	assert_int_equal(s.count, 1024);
	assert_int_equal(rn_shard_parse("0/3", &s), -EINVAL);
	assert_int_equal(rn_shard_parse("4/3", &s), -EINVAL);
	assert_int_equal(rn_shard_parse("1/0", &s), -EINVAL);
	assert_int_equal(rn_shard_parse("1/1025", &s), -EINVAL);
	assert_int_equal(rn_shard_parse("1/3x", &s), -EINVAL);
	assert_int_equal(rn_shard_parse("1-3", &s), -EINVAL);
	assert_int_equal(rn_shard_parse("/3", &s), -EINVAL);
	assert_int_equal(rn_shard_parse("", &s), -EINVAL);
	assert_int_equal(rn_shard_parse("99999999999999999999/3", &s), -EINVAL);
}

#define NT 200

static char names_buf[NT][16];
static const char *names[NT];

static void make_names(void)
{
	size_t i;

	for (i = 0; i < NT; i++) {
		snprintf(names_buf[i], sizeof(names_buf[i]), "target_%zu", i);
		names[i] = names_buf[i];
	}
}

/* Every target lands in 1..N, and with 200 targets over 4 shards none is empty. */
static void test_shard_assign_partition(void **state)
{
	unsigned shard_of[NT], per[5] = { 0 };
	size_t i;

	(void)state;
	make_names();
	assert_int_equal(rn_shard_assign(names, NULL, false, NT, 4, shard_of), 0);
	for (i = 0; i < NT; i++) {
		assert_true(shard_of[i] >= 1 && shard_of[i] <= 4);
		per[shard_of[i]]++;
	}
	for (i = 1; i <= 4; i++)
		assert_true(per[i] > 20);
	/* One shard takes everything. */
	assert_int_equal(rn_shard_assign(names, NULL, false, NT, 1, shard_of), 0);
	for (i = 0; i < NT; i++)
		assert_int_equal(shard_of[i], 1);
}

/* Adding targets moves none of the others; going from N to N+1 shards moves only targets into
 * the new shard (the rendezvous property). */
static void test_shard_assign_stable(void **state)
{
	unsigned a[NT], b[NT];
	size_t i, moved = 0;

	(void)state;
	make_names();
	assert_int_equal(rn_shard_assign(names, NULL, false, NT / 2, 3, a), 0);
	assert_int_equal(rn_shard_assign(names, NULL, false, NT, 3, b), 0);
	for (i = 0; i < NT / 2; i++)
		assert_int_equal(a[i], b[i]);
	assert_int_equal(rn_shard_assign(names, NULL, false, NT, 4, a), 0);
	for (i = 0; i < NT; i++) {
		if (a[i] != b[i]) {
			assert_int_equal(a[i], 4);
			moved++;
		}
	}
	assert_true(moved > 0 && moved < NT / 2);
}

/* With weights, no shard exceeds 1.25 x the mean load (or the heaviest target). */
static void test_shard_assign_weighted(void **state)
{
	unsigned shard_of[NT];
	double w[NT], load[4] = { 0 }, total = 0;
	size_t i;

	(void)state;
	make_names();
	for (i = 0; i < NT; i++) {
		w[i] = (double)(i % 7 + 1) * (i % 13 == 0 ? 10 : 1);
		total += w[i];
	}
	assert_int_equal(rn_shard_assign(names, w, true, NT, 4, shard_of), 0);
	for (i = 0; i < NT; i++) {
		assert_true(shard_of[i] >= 1 && shard_of[i] <= 4);
		load[shard_of[i] - 1] += w[i];
	}
	for (i = 0; i < 4; i++)
		assert_true(load[i] <= 1.25 * total / 4 + 1e-9);
	/* Deterministic. */
	{
		unsigned again[NT];

		assert_int_equal(rn_shard_assign(names, w, true, NT, 4, again), 0);
		assert_memory_equal(again, shard_of, sizeof(again));
	}
}

static char *tmp_path(const char *name)
{
	char *p = rn_xmalloc(256);

	snprintf(p, 256, "/tmp/test_shard_%d_%s", (int)getpid(), name);
	return p;
}

/* A results file written and read back holds the same targets, runs, trace summary and
 * verdicts, non-finite numbers included. */
static void test_results_roundtrip(void **state)
{
	struct rn_target_result r;
	struct rn_target_report tv;
	struct rn_outcome out;
	struct rn_results in;
	struct rn_verdict_result *v;
	struct rn_process *p;
	char sa[] = "a", sb[] = "b", a0[] = "sh", a1[] = "-c", a2[] = "true";
	char *suite[] = { sa, sb, NULL };
	char *argv0[] = { a0, a1, a2, NULL };
	char **argvs[] = { argv0 };
	char *path = tmp_path("rt.json");
	int nr = rn_syscall_lookup("openat");

	(void)state;
	rn_target_result_init(&r, "a");
	r.runs = rn_xcalloc(2, sizeof(*r.runs));
	r.nruns = 2;
	r.runs[0].v[RN_METRIC_WALL] = 1234567;
	r.runs[1].v[RN_METRIC_SYSCALLS] = 42;
	r.runs[1].start_unix_ns = 1700000000000000000ull;
	r.runs[1].status = RN_RUN_OK;
	r.runs[0].measures = RN_MEASURES_TIMES;
	r.runs[1].measures = RN_MEASURES_BOTH;
	r.counts = rn_xcalloc(1, sizeof(*r.counts));
	r.ncounts = 1;
	r.counts[0].measures = RN_MEASURES_COUNTS;
	r.counts[0].v[RN_METRIC_SYSCALLS] = 4242;
	r.status = RN_RUN_TIMED_OUT;
	r.error = rn_xstrdup("run 2 timed out");
	r.duration_ns = 99;
	p = rn_trace_add_process(&r.last, 100, 1, 5);
	rn_process_set_exe(p, "/bin/sh");
	p->end = RN_PROC_SIGNALED;
	p->term_signal = 9;
	p->syscalls = 7;
	if (nr >= 0) {
		p->sc = rn_xcalloc((size_t)rn_syscall_table_size(), sizeof(*p->sc));
		p->sc[nr].calls = 3;
		p->sc[nr].max_ns = 77;
	}
	memset(&tv, 0, sizeof(tv));
	tv.result = &r;
	tv.golden_file = rn_xstrdup("golden_traces/a.json");
	v = rn_target_report_push(&tv);
	v->assertion = rn_xstrdup("budget");
	v->type = rn_xstrdup("critical_path");
	v->target = rn_xstrdup("a");
	v->verdict = RN_VERDICT_NO_DATA;
	v->has_observed = true;
	v->observed = 1.5;
	v->delta_pct = INFINITY;
	v->unit = "ms";
	v->message = rn_xstrdup("no data \"quoted\"\n");
	v->config_line = 12;
	v = rn_target_report_push(&tv);
	v->assertion = rn_xstrdup("golden:syscalls");
	v->verdict = RN_VERDICT_WARN;
	v->unit = "odd-unit";
	v->delta_pct = NAN;

	memset(&out, 0, sizeof(out));
	out.shard.index = 2;
	out.shard.count = 2;
	out.suite = (const char *const *)suite;
	out.nsuite = 2;
	out.exit_code = 4;
	out.targets = &r;
	out.reports = &tv;
	out.argv = (const char *const *const *)argvs;
	out.ntargets = 1;
	assert_int_equal(rn_results_write(path, &out), 0);
	assert_int_equal(rn_results_read(path, &in), 0);
	assert_int_equal(in.oc.shard.index, 2);
	assert_int_equal(in.oc.shard.count, 2);
	assert_int_equal(in.oc.nsuite, 2);
	assert_string_equal(in.oc.suite[1], "b");
	assert_int_equal(in.oc.exit_code, 4);
	assert_int_equal(in.oc.ntargets, 1);
	assert_string_equal(in.oc.targets[0].name, "a");
	assert_ptr_equal(in.oc.reports[0].result, &in.oc.targets[0]);
	assert_string_equal(in.oc.argv[0][2], "true");
	assert_null(in.oc.argv[0][3]);
	assert_int_equal(in.oc.targets[0].nruns, 2);
	assert_int_equal(in.oc.targets[0].runs[0].v[RN_METRIC_WALL], 1234567);
	assert_int_equal(in.oc.targets[0].runs[1].v[RN_METRIC_SYSCALLS], 42);
	assert_int_equal(in.oc.targets[0].runs[1].start_unix_ns, 1700000000000000000ull);
	assert_int_equal(in.oc.targets[0].runs[0].measures, RN_MEASURES_TIMES);
	assert_int_equal(in.oc.targets[0].runs[1].measures, RN_MEASURES_BOTH);
	assert_int_equal(in.oc.targets[0].ncounts, 1);
	assert_int_equal(in.oc.targets[0].counts[0].measures, RN_MEASURES_COUNTS);
	assert_int_equal(in.oc.targets[0].counts[0].v[RN_METRIC_SYSCALLS], 4242);
	assert_int_equal(in.oc.targets[0].status, RN_RUN_TIMED_OUT);
	assert_string_equal(in.oc.targets[0].error, "run 2 timed out");
	assert_int_equal(in.oc.targets[0].duration_ns, 99);
	assert_int_equal(in.oc.targets[0].last.nprocs, 1);
	assert_string_equal(in.oc.targets[0].last.procs[0].comm, "sh");
	assert_int_equal(in.oc.targets[0].last.procs[0].end, RN_PROC_SIGNALED);
	assert_int_equal(in.oc.targets[0].last.procs[0].syscalls, 7);
	if (nr >= 0) {
		assert_non_null(in.oc.targets[0].last.procs[0].sc);
		assert_int_equal(in.oc.targets[0].last.procs[0].sc[nr].calls, 3);
		assert_int_equal(in.oc.targets[0].last.procs[0].sc[nr].max_ns, 77);
	}
	assert_string_equal(in.oc.reports[0].golden_file, "golden_traces/a.json");
	assert_int_equal(in.oc.reports[0].nverdicts, 2);
	v = &in.oc.reports[0].verdicts[0];
	assert_int_equal(v->verdict, RN_VERDICT_NO_DATA);
	assert_true(v->has_observed);
	assert_true(v->observed == 1.5);
	assert_false(v->has_budget);
	assert_true(isinf(v->delta_pct) && v->delta_pct > 0);
	assert_string_equal(v->unit, "ms");
	assert_string_equal(v->message, "no data \"quoted\"\n");
	assert_int_equal(v->config_line, 12);
	v = &in.oc.reports[0].verdicts[1];
	assert_int_equal(v->verdict, RN_VERDICT_WARN);
	assert_true(isnan(v->delta_pct));
	assert_string_equal(v->unit, "odd-unit");
	rn_results_release(&in);
	rn_target_report_release(&tv);
	rn_target_result_release(&r);
	unlink(path);
	free(path);
}

static int write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* Malformed files fail with an error, never a partial success. */
static void test_results_malformed(void **state)
{
	static const char *const bad[] = {
		"[]",
		"{\"format\": \"other\", \"version\": 1}",
		"{\"format\": \"renacer-results\", \"version\": 2, \"shard\": {\"index\": 1, \"count\": 1}}",
		"{\"format\": \"renacer-results\", \"version\": 1, \"shard\": {\"index\": 3, \"count\": 2},"
		" \"suite\": [], \"targets\": []}",
		"{\"format\": \"renacer-results\", \"version\": 1, \"shard\": {\"index\": 1, \"count\": 1},"
		" \"suite\": [\"a\"], \"targets\": [{\"name\": \"a\", \"status\": \"ok\", \"runs\": [],"
		" \"verdicts\": [{\"assertion\": \"x\", \"verdict\": \"GREAT\"}]}]}",
		"{\"format\": \"renacer-results\", \"version\": 1, \"shard\": {\"index\": 1, \"count\": 1},"
		" \"suite\": [\"a\"], \"targets\": [{\"name\": \"a\", \"status\": \"ok\", \"runs\": [{"
		"\"status\": \"ok\", \"metrics\": {\"wall_time\": -5}}], \"verdicts\": []}]}",
		"{\"format\": \"renacer-results\", \"version\": 1, \"shard\": {\"index\": 1, \"count\": 1},"
		" \"suite\": [\"a\"], \"targets\": [{\"name\": \"a\", \"status\": \"sleeping\","
		" \"runs\": [], \"verdicts\": []}]}",
		"{\"format\": \"renacer-results\", \"format\": \"renacer-results\"}",
		"{\"format\": \"renacer-results\", \"version\": 1,",
	};
	char *path = tmp_path("bad.json");
	struct rn_results in;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(write_text(path, bad[i]), 0);
		assert_int_equal(rn_results_read(path, &in), -EINVAL);
		rn_results_release(&in);
	}
	/* The minimal valid file reads. */
	assert_int_equal(write_text(path,
				    "{\"format\": \"renacer-results\", \"version\": 1, "
				    "\"shard\": {\"index\": 1, \"count\": 1}, \"suite\": [], "
				    "\"targets\": []}"),
			 0);
	assert_int_equal(rn_results_read(path, &in), 0);
	assert_int_equal(in.oc.ntargets, 0);
	rn_results_release(&in);
	unlink(path);
	assert_int_equal(rn_results_read(path, &in), -ENOENT);
	rn_results_release(&in);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shard_parse),
		cmocka_unit_test(test_shard_assign_partition),
		cmocka_unit_test(test_shard_assign_stable),
		cmocka_unit_test(test_shard_assign_weighted),
		cmocka_unit_test(test_results_roundtrip),
		cmocka_unit_test(test_results_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
