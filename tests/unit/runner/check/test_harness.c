/*
 * test_harness.c - harness targets and suites (runner/check/harness.h): the expansion into one
 * target per benchmark, and each harness's results read into per-iteration times.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "config.h"
#include "harness.h"
#include "runner/check/internal.h"
#include "xalloc.h"

static char *write_tmp(const char *text)
{
	char *path = strdup("/tmp/rn-harness-XXXXXX");
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

/* A benchmark target of harness `h` named `bench` reading `file`. */
static struct rn_target_cfg bench_target(enum rn_harness h, const char *bench, char *file)
{
	struct rn_target_cfg t;

	memset(&t, 0, sizeof(t));
	t.harness = h;
	t.bench = (char *)bench;
	t.bench_out = file;
	return t;
}

static void test_harness_google_benchmark_repetitions_median(void **state)
{
	/* three repetitions of BM_b (us), their aggregates, and another benchmark */
	char *f = write_tmp(
		"{\"context\": {}, \"benchmarks\": ["
		"{\"name\": \"BM_a\", \"run_name\": \"BM_a\", \"run_type\": \"iteration\","
		" \"real_time\": 1.0, \"cpu_time\": 1.0, \"time_unit\": \"us\"},"
		"{\"name\": \"BM_b\", \"run_name\": \"BM_b\", \"run_type\": \"iteration\","
		" \"real_time\": 2.0, \"cpu_time\": 1.5, \"time_unit\": \"us\"},"
		"{\"name\": \"BM_b\", \"run_name\": \"BM_b\", \"run_type\": \"iteration\","
		" \"real_time\": 4.0, \"cpu_time\": 3.5, \"time_unit\": \"us\"},"
		"{\"name\": \"BM_b\", \"run_name\": \"BM_b\", \"run_type\": \"iteration\","
		" \"real_time\": 3.0, \"cpu_time\": 2.5, \"time_unit\": \"us\"},"
		"{\"name\": \"BM_b_mean\", \"run_name\": \"BM_b\", \"run_type\": \"aggregate\","
		" \"real_time\": 900.0, \"cpu_time\": 900.0, \"time_unit\": \"us\"}]}");
	struct rn_target_cfg t = bench_target(RN_HARNESS_GOOGLE_BENCHMARK, "BM_b", f);
	double real, cpu;
	char why[256];

	(void)state;
	assert_int_equal(rn_harness_read(&t, NULL, false, 0.0, &real, &cpu, why, sizeof(why)), 0);
	assert_true(real == 3000.0); /* ns, the aggregate left out */
	assert_true(cpu == 2500.0);
	assert_int_equal(access(f, F_OK), -1); /* read once: removed */
	free(f);
}

static void test_harness_google_benchmark_missing_is_an_error(void **state)
{
	char *f = write_tmp("{\"benchmarks\": []}");
	struct rn_target_cfg t = bench_target(RN_HARNESS_GOOGLE_BENCHMARK, "BM_b", f);
	double real, cpu;
	char why[256];

	(void)state;
	assert_int_equal(rn_harness_read(&t, NULL, false, 0.0, &real, &cpu, why, sizeof(why)),
			 -EINVAL);
	assert_string_equal(why, "google-benchmark reported no time for 'BM_b'");
	/* no file at all */
	assert_int_equal(rn_harness_read(&t, NULL, false, 0.0, &real, &cpu, why, sizeof(why)),
			 -EINVAL);
	assert_non_null(strstr(why, "wrote no readable results"));
	free(f);
}

static void test_harness_pytest_benchmark_rounds(void **state)
{
	char *f = write_tmp("{\"benchmarks\": ["
			    "{\"fullname\": \"t.py::test_a\", \"stats\": {\"data\": [1e-3]}},"
			    "{\"fullname\": \"t.py::test_b\", \"stats\": {\"median\": 9,"
			    " \"data\": [2e-6, 1e-6, 5e-6]}}]}");
	struct rn_target_cfg t = bench_target(RN_HARNESS_PYTEST_BENCHMARK, "t.py::test_b", f);
	double real, cpu;
	char why[256];

	(void)state;
	assert_int_equal(rn_harness_read(&t, NULL, false, 0.0, &real, &cpu, why, sizeof(why)), 0);
	assert_true(real > 1999.0 && real < 2001.0);
	assert_true(cpu == 0.0); /* pytest-benchmark reports no CPU time */
	free(f);
}

/* --benchmark-timer=time.process_time: its rounds are CPU time, and no wall time is reported */
static void test_harness_pytest_benchmark_cpu_timer(void **state)
{
	char *f = write_tmp("{\"benchmarks\": ["
			    "{\"fullname\": \"t.py::test_b\", \"options\": {\"timer\":"
			    " \"process_time\"}, \"stats\": {\"data\": [2e-6, 1e-6, 5e-6]}}]}");
	struct rn_target_cfg t = bench_target(RN_HARNESS_PYTEST_BENCHMARK, "t.py::test_b", f);
	struct rn_target_result r;
	double real, cpu;
	char why[256];

	(void)state;
	assert_int_equal(rn_harness_read(&t, NULL, false, 0.0, &real, &cpu, why, sizeof(why)), 0);
	assert_true(cpu > 1999.0 && cpu < 2001.0);
	assert_true(real == 0.0);
	/* a run's result: cpu_time is judged, wall_time is not */
	memset(&r, 0, sizeof(r));
	r.runs = calloc(1, sizeof(*r.runs));
	assert_non_null(r.runs);
	r.nruns = 1;
	rn_target_result_set_bench(&r, real, cpu);
	assert_true(rn_target_result_time_judged(&r, RN_METRIC_CPU_TIME));
	assert_false(rn_target_result_time_judged(&r, RN_METRIC_WALL));
	free(r.runs);
	free(f);
}

static void test_harness_go_lines(void **state)
{
	static const char out[] = "goos: linux\n"
				  "BenchmarkAlphaBeta-2   \t 100\t    99 ns/op\n"
				  "BenchmarkAlpha-2   \t    2000\t     12345 ns/op\n"
				  "BenchmarkAlpha-2   \t    2000\t     12000.5 ns/op\t  0 B/op\n"
				  "BenchmarkAlpha-2   \t    2000\t     13000 ns/op\n"
				  "PASS\nok  \texample.com/h\t0.2s\n";
	struct rn_target_cfg t = bench_target(RN_HARNESS_GO_TEST_BENCH, "BenchmarkAlpha", NULL);
	double real, cpu;
	char why[256];

	(void)state;
	assert_int_equal(rn_harness_read(&t, out, false, 0.0, &real, &cpu, why, sizeof(why)), 0);
	assert_true(real == 12345.0); /* BenchmarkAlphaBeta is another benchmark */
}

static void test_harness_hyperfine_and_criterion(void **state)
{
	char *h = write_tmp("{\"results\": [{\"command\": \"sleep 0\","
			    " \"times\": [0.002, 0.001, 0.003]}]}");
	char *c = write_tmp("{\"sampling_mode\": \"Linear\", \"iters\": [10, 20, 30],"
			    " \"times\": [1000, 1800, 3300]}");
	struct rn_target_cfg th = bench_target(RN_HARNESS_HYPERFINE, "sleep 0", h);
	struct rn_target_cfg tc = bench_target(RN_HARNESS_CRITERION, "parse", c);
	double real, cpu;
	char why[256];

	(void)state;
	assert_int_equal(rn_harness_read(&th, NULL, false, 0.0, &real, &cpu, why, sizeof(why)), 0);
	assert_true(real > 1999999.0 && real < 2000001.0);
	assert_int_equal(rn_harness_read(&tc, NULL, false, 0.0, &real, &cpu, why, sizeof(why)), 0);
	assert_true(real == 100.0);           /* 100, 90, 110 ns per iteration */
	assert_int_equal(access(c, F_OK), 0); /* criterion's own file stays */
	unlink(c);
	free(h);
	free(c);
}

static void test_harness_expand_named_benchmarks(void **state)
{
	static const char toml[] = "[[target]]\n"
				   "name = \"plain\"\n"
				   "command = [\"true\"]\n"
				   "[[target]]\n"
				   "name = \"gb\"\n"
				   "harness = \"google-benchmark\"\n"
				   "command = [\"./bench\", \"--x\"]\n"
				   "benchmarks = [\"BM_a/8\", \"BM_b\", \"BM_c\"]\n"
				   "pattern = \"BM_(a/8|b)\"\n"
				   "runs = 4\n"
				   "[[assertion]]\n"
				   "name = \"n\"\n"
				   "type = \"span_count\"\n"
				   "max_spans = 10\n"
				   "targets = [\"gb\"]\n";
	struct rn_config cfg;
	struct rn_diag d;

	(void)state;
	memset(&cfg, 0, sizeof(cfg));
	assert_int_equal(rn_config_parse(&cfg, "/tmp/renacer.toml", toml, strlen(toml), true, &d),
			 0);
	assert_int_equal(rn_harness_expand(&cfg, false, true), 0);
	assert_int_equal(cfg.ntargets, 3);
	assert_string_equal(cfg.targets[0].name, "plain");
	assert_string_equal(cfg.targets[1].name, "gb.BM_a_8");
	assert_string_equal(cfg.targets[1].bench, "BM_a/8");
	assert_int_equal(cfg.targets[1].runs, 4);
	assert_string_equal(cfg.targets[1].argv[0], "./bench");
	assert_string_equal(cfg.targets[1].argv[1], "--x");
	assert_string_equal(cfg.targets[1].argv[2], "--benchmark_filter=^BM_a/8$");
	assert_non_null(strstr(cfg.targets[1].argv[3], "--benchmark_out="));
	assert_string_equal(cfg.targets[1].argv[4], "--benchmark_out_format=json");
	assert_null(cfg.targets[1].argv[5]);
	assert_string_equal(cfg.targets[2].name, "gb.BM_b");
	/* the assertion follows its table to each benchmark */
	assert_string_equal(cfg.assertions[0].targets[0], "gb");
	assert_string_equal(cfg.assertions[0].targets[1], "gb.BM_a_8");
	assert_string_equal(cfg.assertions[0].targets[2], "gb.BM_b");
	assert_null(cfg.assertions[0].targets[3]);
	/* a result file left by the last run goes with the config, and its folder too */
	{
		char *dir = strdup(cfg.bench_dir), *out = strdup(cfg.targets[1].bench_out);
		FILE *f = fopen(out, "w");

		assert_non_null(f);
		fclose(f);
		rn_config_release(&cfg);
		assert_int_equal(access(out, F_OK), -1);
		assert_int_equal(access(dir, F_OK), -1);
		free(dir);
		free(out);
	}
}

static void test_harness_expand_pytest_keeps_options(void **state)
{
	static const char toml[] = "[[target]]\n"
				   "name = \"py\"\n"
				   "harness = \"pytest-benchmark\"\n"
				   "cwd = \"/\"\n"
				   "command = [\"python3\", \"-m\", \"pytest\", \"-p\", "
				   "\"no:cacheprovider\", \"--benchmark-max-time=0.02\", \"tmp\", "
				   "\"b.py::test_z\"]\n"
				   "benchmarks = [\"b.py::test_a\"]\n";
	struct rn_config cfg;
	struct rn_diag d;
	char **v, **e, *plugin, *path, *dir;

	(void)state;
	memset(&cfg, 0, sizeof(cfg));
	assert_int_equal(rn_config_parse(&cfg, "/tmp/renacer.toml", toml, strlen(toml), true, &d),
			 0);
	assert_int_equal(rn_harness_expand(&cfg, false, true), 0);
	assert_int_equal(cfg.ntargets, 1);
	assert_string_equal(cfg.targets[0].name, "py.b.py__test_a");
	v = cfg.targets[0].argv;
	/* the path (/tmp exists) and the test id it collected are left out, options stay */
	assert_string_equal(v[2], "pytest");
	assert_string_equal(v[3], "-p");
	assert_string_equal(v[4], "no:cacheprovider");
	assert_string_equal(v[5], "--benchmark-max-time=0.02");
	/* renacer's plugin (pytest's bookkeeping, docs/harness.md), first on PYTHONPATH */
	assert_string_equal(v[6], "-p");
	assert_string_equal(v[7], "renacer_pytest");
	assert_string_equal(v[8], "-q");
	assert_non_null(strstr(v[9], "--benchmark-json="));
	assert_string_equal(v[10], "b.py::test_a");
	assert_null(v[11]);
	assert_non_null(cfg.bench_dir);
	plugin = rn_xstrfmt("%s/pytest/renacer_pytest.py", cfg.bench_dir);
	dir = rn_xstrdup(cfg.bench_dir);
	assert_int_equal(access(plugin, R_OK), 0);
	assert_non_null(cfg.targets[0].env);
	path = rn_xstrfmt("PYTHONPATH=%s/pytest", cfg.bench_dir);
	for (e = cfg.targets[0].env; *e && strncmp(*e, "PYTHONPATH=", 11); e++)
		;
	assert_non_null(*e);
	assert_int_equal(strncmp(*e, path, strlen(path)), 0);
	rn_config_release(&cfg);
	/* removed with the config */
	assert_int_not_equal(access(plugin, F_OK), 0);
	assert_int_not_equal(access(dir, F_OK), 0);
	free(plugin);
	free(path);
	free(dir);
}

static void test_harness_expand_nothing_left(void **state)
{
	static const char toml[] = "[[target]]\n"
				   "name = \"gb\"\n"
				   "harness = \"google-benchmark\"\n"
				   "command = [\"./bench\"]\n"
				   "benchmarks = [\"BM_a\"]\n"
				   "pattern = \"BM_z\"\n";
	struct rn_config cfg;
	struct rn_diag d;

	(void)state;
	memset(&cfg, 0, sizeof(cfg));
	assert_int_equal(rn_config_parse(&cfg, "/tmp/renacer.toml", toml, strlen(toml), true, &d),
			 0);
	assert_int_equal(rn_harness_expand(&cfg, false, true), 3); /* RN_EXIT_CONFIG */
	assert_int_equal(cfg.ntargets, 1);                         /* the config as it was */
	assert_string_equal(cfg.targets[0].name, "gb");
	rn_config_release(&cfg);
}

/* Table `h` with three benchmarks a, b, c (named as that harness names them), expanded. */
static void expand_three(struct rn_config *cfg, const char *h, const char *command,
			 const char *names)
{
	char toml[512];
	struct rn_diag d;

	snprintf(toml, sizeof(toml),
		 "[[target]]\nname = \"t\"\nharness = \"%s\"\ncwd = \"/tmp\"\ncommand = %s\n"
		 "benchmarks = %s\n",
		 h, command, names);
	memset(cfg, 0, sizeof(*cfg));
	assert_int_equal(rn_config_parse(cfg, "/tmp/renacer.toml", toml, strlen(toml), true, &d),
			 0);
	assert_int_equal(rn_harness_expand(cfg, false, true), 0);
	assert_int_equal(cfg->ntargets, 3);
}

/* The words of `v` joined by spaces (owned). */
static char *joined(char **v)
{
	size_t n = 1, i, at = 0;
	char *s;

	for (i = 0; v[i]; i++)
		n += strlen(v[i]) + 1;
	s = calloc(1, n);
	for (i = 0; v[i]; i++)
		at += (size_t)snprintf(s + at, n - at, "%s%s", v[i], v[i + 1] ? " " : "");
	return s;
}

static void free_argv(char **v)
{
	size_t i;

	for (i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* A timing run of the first benchmark of each harness's table runs all three (one filter, or
 * a word each); once it is done, the next runs the two left; the last runs alone. */
static void test_harness_one_run_for_the_table(void **state)
{
	static const struct {
		const char *harness, *command, *names, *all, *two;
	} cases[] = {
		{ "google-benchmark", "[\"./b\", \"--x\"]", "[\"BM_a\", \"BM_b\", \"BM_c\"]",
		  "./b --x --benchmark_filter=^(BM_a|BM_b|BM_c)$ ",
		  "./b --x --benchmark_filter=^(BM_b|BM_c)$ " },
		{ "pytest-benchmark", "[\"python3\", \"-m\", \"pytest\"]",
		  "[\"f.py::a\", \"f.py::b\", \"f.py::c\"]", " f.py::a f.py::b f.py::c",
		  " f.py::b f.py::c" },
		{ "go-test-bench", "[\"go\", \"test\", \".\"]",
		  "[\"BenchmarkA\", \"BenchmarkB\", \"BenchmarkC\"]",
		  "go test . -run ^$ -count 1 -bench ^(BenchmarkA|BenchmarkB|BenchmarkC)$",
		  "-bench ^(BenchmarkB|BenchmarkC)$" },
		{ "hyperfine", "[\"hyperfine\"]", "[\"sleep 1\", \"sleep 2\", \"sleep 3\"]",
		  " -- sleep 1 sleep 2 sleep 3", " -- sleep 2 sleep 3" },
		{ "criterion", "[\"cargo\", \"bench\"]", "[\"a\", \"b\", \"c\"]",
		  "cargo bench -- ^(a|b|c)$", "cargo bench -- ^(b|c)$" },
	};
	size_t sel[3] = { 0, 1, 2 }, i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rn_config cfg;
		char **v, *s;

		expand_three(&cfg, cases[i].harness, cases[i].command, cases[i].names);
		rn_harness_select(&cfg, sel, 3, true);
		v = rn_harness_run_argv(&cfg.targets[0]);
		assert_non_null(v);
		s = joined(v);
		if (!strstr(s, cases[i].all))
			fail_msg("%s: '%s' lacks '%s'", cases[i].harness, s, cases[i].all);
		free(s);
		free_argv(v);
		rn_harness_done(&cfg.targets[0]);
		v = rn_harness_run_argv(&cfg.targets[1]);
		assert_non_null(v);
		s = joined(v);
		if (!strstr(s, cases[i].two))
			fail_msg("%s: '%s' lacks '%s'", cases[i].harness, s, cases[i].two);
		free(s);
		free_argv(v);
		rn_harness_done(&cfg.targets[1]);
		assert_null(rn_harness_run_argv(&cfg.targets[2])); /* alone: its own argv */
		/* not shared (calibrate): each runs alone */
		rn_harness_select(&cfg, sel, 3, false);
		assert_null(rn_harness_run_argv(&cfg.targets[0]));
		rn_config_release(&cfg);
	}
}

/* A compiled go test binary at a pinned count: its flags are -test.*, the count stays in each
 * benchmark's argv (so the base side, a copy, runs the same count), each benchmark runs alone,
 * and its cpu_time is the run's process CPU time over the N + 1 iterations it did. The go tool
 * (or a count not pinned) gives no CPU time. */
static void test_harness_go_test_binary_pinned(void **state)
{
	static const char out[] = "goos: linux\n"
				  "BenchmarkB-2   \t    2000\t     12345 ns/op\n"
				  "PASS\n";
	size_t sel[3] = { 0, 1, 2 }, i;
	struct rn_config cfg;
	double real, cpu;
	char why[256], *s;

	(void)state;
	expand_three(&cfg, "go-test-bench", "[\"./h.test\", \"-test.benchtime\", \"2000x\"]",
		     "[\"BenchmarkA\", \"BenchmarkB\", \"BenchmarkC\"]");
	s = joined(cfg.targets[1].argv);
	assert_string_equal(s,
			    "./h.test -test.benchtime 2000x -test.run ^$ -test.count 1 "
			    "-test.bench ^BenchmarkB$");
	free(s);
	assert_true(rn_harness_go_cpu(&cfg.targets[1]));
	rn_harness_select(&cfg, sel, 3, true);
	for (i = 0; i < 3; i++) {
		assert_null(cfg.targets[i].group);
		assert_null(rn_harness_run_argv(&cfg.targets[i])); /* alone */
	}
	assert_int_equal(rn_harness_read(&cfg.targets[1], out, false, 4002000.0, &real, &cpu, why,
					 sizeof(why)),
			 0);
	assert_true(real == 12345.0);
	assert_true(cpu == 2000.0); /* 4002000 ns over 2001 iterations */
	/* another count than the argv's (a line not of this run): no CPU time */
	assert_int_equal(rn_harness_read(&cfg.targets[1], "BenchmarkB-2 \t 50\t 9 ns/op\n", false,
					 4002000.0, &real, &cpu, why, sizeof(why)),
			 0);
	assert_true(cpu == 0.0);
	rn_config_release(&cfg);

	/* a count in seconds: the table's runs are shared, no CPU time */
	expand_three(&cfg, "go-test-bench", "[\"./h.test\", \"-test.benchtime=1s\"]",
		     "[\"BenchmarkA\", \"BenchmarkB\", \"BenchmarkC\"]");
	assert_false(rn_harness_go_cpu(&cfg.targets[1]));
	assert_non_null(cfg.targets[1].group);
	assert_int_equal(rn_harness_read(&cfg.targets[1], out, false, 4002000.0, &real, &cpu, why,
					 sizeof(why)),
			 0);
	assert_true(cpu == 0.0);
	rn_config_release(&cfg);

	/* the go tool: its own flags, its own CPU time in the process's */
	expand_three(&cfg, "go-test-bench",
		     "[\"/usr/bin/go\", \"test\", \"-benchtime\", \"2000x\"]",
		     "[\"BenchmarkA\", \"BenchmarkB\", \"BenchmarkC\"]");
	s = joined(cfg.targets[1].argv);
	assert_string_equal(s,
			    "/usr/bin/go test -benchtime 2000x -run ^$ -count 1 -bench "
			    "^BenchmarkB$");
	free(s);
	assert_false(rn_harness_go_cpu(&cfg.targets[1]));
	assert_int_equal(rn_harness_read(&cfg.targets[1], out, false, 4002000.0, &real, &cpu, why,
					 sizeof(why)),
			 0);
	assert_true(cpu == 0.0);
	rn_config_release(&cfg);
}

/* The times a shared run read for the others are taken by their runs of the same index and
 * side, once. */
static void test_harness_shared_run_left_for_the_others(void **state)
{
	struct rn_config cfg;
	struct rn_metrics run, got;
	struct rn_target_cfg base;
	size_t sel[3] = { 0, 1, 2 };
	FILE *f;

	(void)state;
	expand_three(&cfg, "google-benchmark", "[\"./b\"]", "[\"BM_a\", \"BM_b\", \"BM_c\"]");
	rn_harness_select(&cfg, sel, 3, true);
	f = fopen(cfg.targets[0].bench_out, "w");
	assert_non_null(f);
	fputs("{\"benchmarks\": ["
	      "{\"name\": \"BM_a\", \"run_type\": \"iteration\", \"real_time\": 1.0,"
	      " \"cpu_time\": 1.0, \"time_unit\": \"us\"},"
	      "{\"name\": \"BM_b\", \"run_type\": \"iteration\", \"real_time\": 2.0,"
	      " \"cpu_time\": 1.5, \"time_unit\": \"us\"},"
	      "{\"name\": \"BM_c\", \"run_type\": \"iteration\", \"real_time\": 3.0,"
	      " \"cpu_time\": 2.5, \"time_unit\": \"us\"}]}",
	      f);
	fclose(f);
	memset(&run, 0, sizeof(run));
	run.v[RN_METRIC_PROCESSES] = 1;
	rn_harness_leave(&cfg.targets[0], NULL, 4, &run);
	assert_int_equal(access(cfg.targets[0].bench_out, F_OK), -1);
	/* another index, or the base side: nothing */
	assert_false(rn_harness_take(&cfg.targets[1], 3, &got));
	base = cfg.targets[1];
	base.name = (char *)"t.BM_b (base)";
	assert_false(rn_harness_take(&base, 4, &got));
	assert_true(rn_harness_take(&cfg.targets[1], 4, &got));
	assert_int_equal(got.v[RN_METRIC_WALL], 2000);
	assert_int_equal(got.v[RN_METRIC_CPU_TIME], 1500);
	assert_int_equal(got.v[RN_METRIC_PROCESSES], 1);
	assert_false(rn_harness_take(&cfg.targets[1], 4, &got)); /* taken once */
	/* c's is left until the config goes, with the folder */
	{
		char *dir = strdup(cfg.bench_dir);

		rn_config_release(&cfg);
		assert_int_equal(access(dir, F_OK), -1);
		free(dir);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_harness_google_benchmark_repetitions_median),
		cmocka_unit_test(test_harness_google_benchmark_missing_is_an_error),
		cmocka_unit_test(test_harness_pytest_benchmark_rounds),
		cmocka_unit_test(test_harness_pytest_benchmark_cpu_timer),
		cmocka_unit_test(test_harness_go_lines),
		cmocka_unit_test(test_harness_hyperfine_and_criterion),
		cmocka_unit_test(test_harness_expand_named_benchmarks),
		cmocka_unit_test(test_harness_expand_pytest_keeps_options),
		cmocka_unit_test(test_harness_expand_nothing_left),
		cmocka_unit_test(test_harness_one_run_for_the_table),
		cmocka_unit_test(test_harness_go_test_binary_pinned),
		cmocka_unit_test(test_harness_shared_run_left_for_the_others),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
