/*
 * test_junit.c - the JUnit XML writer: exact output, verdict mapping, counts, the partial flag,
 * escaping, locale independence, allocation failures and write errors. Schema validation with
 * xmllint against both XSDs is the ctest of tests/integration/junit/tests.cmake.
 */
#include <errno.h>
#include <locale.h>
#include <signal.h>
#include <stdbool.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "junit.h"
#include "xalloc.h"

#define NOW (1700000000ull * 1000000000ull) /* 2023-11-14T22:13:20Z */

static struct rn_verdict_result verdict(const char *name, enum rn_verdict v, const char *msg)
{
	struct rn_verdict_result r;

	memset(&r, 0, sizeof(r));
	r.assertion = (char *)name;
	r.type = (char *)"critical_path";
	r.target = (char *)"io_loop";
	r.verdict = v;
	r.message = (char *)msg;
	r.unit = "ms";
	return r;
}

/* One target of a test's outcome, in the words of the report: what each <testsuite> shows. */
struct suite {
	const char *name;                      /* the target's name */
	const struct rn_target_result *result; /* its runs, or NULL (0 runs) */
	const struct rn_verdict_result *cases; /* its verdicts [ncases] */
	size_t ncases;                         /* entries in cases */
	const char *golden_file;               /* its report's golden file, or NULL */
	uint64_t start_unix_ns;                /* its start, Unix ns (0: the time of writing) */
	double time_s;                         /* its duration, seconds (negative: 0) */
	bool partial;                          /* interrupted before it finished */
};

/* The outcome of the targets `s[0..n)` (n <= 4), in static storage. */
static const struct rn_outcome *outcome_of(const struct suite *s, size_t n)
{
	static struct rn_target_result targets[4];
	static struct rn_target_report reports[4];
	static struct rn_outcome oc;
	size_t i;

	assert_true(n <= 4);
	memset(&oc, 0, sizeof(oc));
	memset(targets, 0, sizeof(targets));
	memset(reports, 0, sizeof(reports));
	for (i = 0; i < n; i++) {
		if (s[i].result)
			targets[i] = *s[i].result;
		targets[i].name = (char *)s[i].name;
		targets[i].start_unix_ns = s[i].start_unix_ns;
		targets[i].duration_ns = s[i].time_s > 0 ? (uint64_t)(s[i].time_s * 1e9) : 0;
		targets[i].status = s[i].partial ? RN_RUN_INTERRUPTED : RN_RUN_OK;
		reports[i].result = &targets[i];
		reports[i].verdicts = (struct rn_verdict_result *)s[i].cases;
		reports[i].nverdicts = s[i].ncases;
		reports[i].golden_file = (char *)s[i].golden_file;
		if (s[i].partial)
			oc.interrupted = SIGINT;
	}
	oc.targets = targets;
	oc.reports = reports;
	oc.ntargets = n;
	return &oc;
}

static char *render(const struct suite *s, size_t n)
{
	size_t len;
	char *xml = rn_junit_render(outcome_of(s, n), "ci-host", NOW, &len);

	assert_non_null(xml);
	assert_int_equal(strlen(xml), len);
	return xml;
}

static void test_junit_exact_document(void **state)
{
	struct rn_verdict_result v[2];
	struct rn_target_result r;
	struct rn_metrics runs[5], counts[1];
	struct suite s;
	char *xml;
	size_t i;

	(void)state;
	memset(&r, 0, sizeof(r));
	memset(runs, 0, sizeof(runs));
	memset(counts, 0, sizeof(counts));
	/* The time row's testcase time is what it measured (12 ms), the count row's the
	 * target's check time (the suite's, 1.235 s). */
	for (i = 0; i < 5; i++) {
		runs[i].v[RN_METRIC_WALL] = (i + 1) * 1000000u;
		runs[i].status = RN_RUN_OK;
	}
	counts[0].v[RN_METRIC_WALL] = 90000000u; /* a counting run's time is not the target's */
	r.runs = runs;
	r.nruns = 5;
	r.counts = counts;
	r.ncounts = 1;
	v[0] = verdict("api_latency", RN_VERDICT_PASS, "critical path 12.0 ms <= 50 ms");
	v[0].unit = "ms";
	v[0].has_observed = true;
	v[0].observed = 12.0;
	v[1] = verdict("golden:syscalls", RN_VERDICT_FAIL,
		       "syscalls 2480 vs golden 1240 (+100.0%, tolerance +10%)");
	v[1].type = (char *)"regression";
	v[1].unit = "calls";
	v[1].has_observed = v[1].has_golden = v[1].has_budget = true;
	v[1].observed = 2480;
	v[1].golden = 1240;
	v[1].budget = 1364.1;
	v[1].delta_pct = 100;
	v[1].aggregate = (char *)"median of 5 runs";
	v[1].detail = (char *)"metric  golden  observed\nsyscalls  1240  2480\n";
	memset(&s, 0, sizeof(s));
	s.name = "io_loop";
	s.result = &r;
	s.cases = v;
	s.ncases = 2;
	s.golden_file = "golden_traces/io_loop.json";
	s.start_unix_ns = NOW + 7000000000ull;
	s.time_s = 1.23456;
	xml = render(&s, 1);
	assert_string_equal(
		xml,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<testsuites>\n"
		"  <testsuite name=\"io_loop\" tests=\"2\" failures=\"1\" errors=\"0\" "
		"skipped=\"0\" time=\"1.235\" timestamp=\"2023-11-14T22:13:27\" "
		"hostname=\"ci-host\" id=\"0\" package=\"renacer\">\n"
		"    <properties>\n"
		"      <property name=\"renacer_version\" value=\"" RN_VERSION "\"/>\n"
		"      <property name=\"runs\" value=\"5\"/>\n"
		"      <property name=\"counting_runs\" value=\"1\"/>\n"
		"      <property name=\"golden_file\" value=\"golden_traces/io_loop.json\"/>\n"
		"    </properties>\n"
		"    <testcase name=\"api_latency\" classname=\"renacer.io_loop\" "
		"time=\"0.012\"/>\n"
		"    <testcase name=\"golden:syscalls\" classname=\"renacer.io_loop\" "
		"time=\"1.235\">\n"
		"      <failure type=\"regression\" message=\"syscalls 2480 vs golden 1240 "
		"(+100.0%, tolerance +10%)\">"
		"syscalls 2480 vs golden 1240 (+100.0%, tolerance +10%)\n"
		"observed: 2480 calls\n"
		"budget: 1364.1 calls\n"
		"golden: 1240 calls\n"
		"delta: +100.0%\n"
		"aggregate: median of 5 runs\n"
		"\n"
		"metric  golden  observed\n"
		"syscalls  1240  2480\n"
		"</failure>\n"
		"    </testcase>\n"
		"    <system-out></system-out>\n"
		"    <system-err></system-err>\n"
		"  </testsuite>\n"
		"</testsuites>\n");
	free(xml);
}

static void test_junit_verdict_mapping_and_counts(void **state)
{
	struct rn_verdict_result v[6];
	struct suite s;
	char *xml;

	(void)state;
	v[0] = verdict("a_pass", RN_VERDICT_PASS, "ok");
	v[1] = verdict("a_fail", RN_VERDICT_FAIL, "over budget");
	v[2] = verdict("a_warn", RN_VERDICT_WARN, "over budget, not blocking");
	v[3] = verdict("a_skip", RN_VERDICT_SKIP, "enabled = false");
	v[4] = verdict("a_nodata", RN_VERDICT_NO_DATA, "no GPU spans");
	v[5] = verdict("a_error", RN_VERDICT_ERROR, "target crashed");
	memset(&s, 0, sizeof(s));
	s.name = "mix";
	s.cases = v;
	s.ncases = 6;
	xml = render(&s, 1);
	assert_non_null(strstr(xml, "tests=\"6\" failures=\"1\" errors=\"2\" skipped=\"2\""));
	assert_non_null(strstr(xml,
			       "<testcase name=\"a_pass\" classname=\"renacer.mix\" "
			       "time=\"0.000\"/>"));
	assert_non_null(strstr(xml, "<failure type=\"critical_path\" message=\"over budget\">"));
	/* WARN does not fail and is no pass: skipped with "WARN: ", the message also in the
	 * suite's system-out. */
	assert_non_null(strstr(xml,
			       "<testcase name=\"a_warn\" classname=\"renacer.mix\" "
			       "time=\"0.000\">\n"
			       "      <skipped message=\"WARN: over budget, not blocking\">WARN "
			       "(not blocking): over budget, not blocking\n</skipped>\n"
			       "    </testcase>"));
	assert_non_null(strstr(xml,
			       "<system-out>WARN a_warn: over budget, not blocking\n"
			       "</system-out>"));
	assert_non_null(strstr(xml, "<skipped message=\"enabled = false\"/>"));
	assert_non_null(strstr(xml, "<error type=\"NO DATA\" message=\"no GPU spans\">"));
	assert_non_null(strstr(xml, "<error type=\"ERROR\" message=\"target crashed\">"));
	/* No golden trace: no golden_file property; no result: 0 runs. */
	assert_null(strstr(xml, "golden_file"));
	assert_non_null(strstr(xml, "<property name=\"runs\" value=\"0\"/>"));
	/* Start 0: the time of writing. */
	assert_non_null(strstr(xml, "timestamp=\"2023-11-14T22:13:20\""));
	free(xml);
}

static void test_junit_partial_adds_interrupted_error(void **state)
{
	struct rn_verdict_result v[1];
	struct suite s[2];
	char *xml, *second;

	(void)state;
	v[0] = verdict("a_pass", RN_VERDICT_PASS, "ok");
	memset(s, 0, sizeof(s));
	s[0].name = "done";
	s[0].cases = v;
	s[0].ncases = 1;
	s[1].name = "cut";
	s[1].cases = v;
	s[1].ncases = 1;
	s[1].partial = true;
	xml = render(s, 2);
	second = strstr(xml, "<testsuite name=\"cut\"");
	assert_non_null(second);
	/* Only the unfinished suite gets the extra testcase. */
	assert_true(strstr(xml, "renacer interrupted") > second);
	assert_non_null(strstr(second, "tests=\"2\" failures=\"0\" errors=\"1\" skipped=\"0\""));
	assert_non_null(strstr(second, "id=\"1\""));
	assert_non_null(strstr(second,
			       "<testcase name=\"renacer interrupted\" "
			       "classname=\"renacer.cut\" time=\"0.000\">\n"
			       "      <error type=\"interrupted\" message=\"renacer was "
			       "interrupted before target &apos;cut&apos; finished\"/>\n"
			       "    </testcase>"));
	assert_non_null(strstr(second, "this report is partial"));
	assert_non_null(strstr(xml, "tests=\"1\" failures=\"0\" errors=\"0\""));
	free(xml);
}

static void test_junit_escapes_hostile_text(void **state)
{
	struct rn_verdict_result v[1];
	struct suite s;
	char *xml;
	const char *p;

	(void)state;
	v[0] = verdict("x<y>&\"z\"", RN_VERDICT_FAIL, "bad\x01 \"msg\" <b>\xff\ttab\nline");
	v[0].detail = (char *)"]]> \x1b[31mred\x1b[0m";
	memset(&s, 0, sizeof(s));
	s.name = "t&t";
	s.cases = v;
	s.ncases = 1;
	xml = render(&s, 1);
	assert_non_null(strstr(xml, "<testsuite name=\"t&amp;t\""));
	assert_non_null(strstr(xml,
			       "name=\"x&lt;y&gt;&amp;&quot;z&quot;\" "
			       "classname=\"renacer.t&amp;t\""));
	assert_non_null(strstr(xml,
			       "message=\"bad &quot;msg&quot; &lt;b&gt;\xef\xbf\xbd&#9;tab"
			       "&#10;line\">"));
	assert_non_null(strstr(xml, "]]&gt; [31mred[0m"));
	for (p = xml; *p; p++)
		assert_true((unsigned char)*p >= 0x20 || *p == '\n' || *p == '\t');
	free(xml);
}

static void test_junit_names_and_times(void **state)
{
	struct rn_verdict_result v[2];
	struct suite s;
	struct rn_target_result r;
	struct rn_metrics counts[3];
	char *xml;

	(void)state;
	/* A row that measured no duration takes the target's check time; a time row, what it
	 * measured. */
	v[0] = verdict("", RN_VERDICT_PASS, NULL);
	v[1] = verdict("cp", RN_VERDICT_PASS, NULL);
	v[1].unit = "ms";
	v[1].has_observed = true;
	v[1].observed = 2999.9999;
	memset(&r, 0, sizeof(r));
	memset(counts, 0, sizeof(counts));
	counts[0].v[RN_METRIC_WALL] = 1000000000ull;
	counts[1].v[RN_METRIC_WALL] = 2999999999ull;
	counts[2].v[RN_METRIC_WALL] = 5000000000ull;
	r.counts = counts;
	r.ncounts = 3;
	memset(&s, 0, sizeof(s));
	s.result = &r;
	s.cases = v;
	s.ncases = 2;
	s.time_s = 7.25;
	xml = render(&s, 1);
	assert_non_null(strstr(xml, "<testsuite name=\"unnamed\""));
	assert_non_null(strstr(xml, "time=\"7.250\" timestamp="));
	assert_non_null(strstr(xml,
			       "<testcase name=\"unnamed\" classname=\"renacer.unnamed\" "
			       "time=\"7.250\"/>"));
	assert_non_null(strstr(xml,
			       "<testcase name=\"cp\" classname=\"renacer.unnamed\" "
			       "time=\"3.000\"/>"));
	free(xml);
	s.time_s = 0.0; /* a target that took no time */
	s.ncases = 1;
	xml = render(&s, 1);
	assert_non_null(strstr(xml, "time=\"0.000\" timestamp="));
	assert_non_null(strstr(xml, "classname=\"renacer.unnamed\" time=\"0.000\"/>"));
	free(xml);
	/* No suites: still a valid document. */
	xml = render(NULL, 0);
	assert_string_equal(xml,
			    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n"
			    "</testsuites>\n");
	free(xml);
}

static void test_junit_numbers_ignore_locale(void **state)
{
	static const char *const locales[] = { "de_DE.UTF-8", "de_DE.utf8",  "fr_FR.UTF-8",
					       "fr_FR.utf8",  "nl_NL.UTF-8", NULL };
	struct rn_verdict_result v[1];
	struct suite s;
	char *xml;
	int i;

	(void)state;
	for (i = 0; locales[i]; i++)
		if (setlocale(LC_NUMERIC, locales[i]))
			break;
	if (!locales[i])
		skip(); /* no locale with a decimal comma installed */
	v[0] = verdict("a", RN_VERDICT_PASS, "ok");
	v[0].unit = "ms";
	v[0].has_observed = true;
	v[0].observed = 1500.0;
	memset(&s, 0, sizeof(s));
	s.name = "n";
	s.cases = v;
	s.ncases = 1;
	s.time_s = 2.25;
	xml = render(&s, 1);
	setlocale(LC_NUMERIC, "C");
	assert_non_null(strstr(xml, "time=\"2.250\""));
	assert_non_null(strstr(xml, "time=\"1.500\""));
	free(xml);
}

static void test_junit_allocation_failures(void **state)
{
	struct rn_verdict_result v[3];
	struct suite s;
	char *ref, *xml;
	unsigned long n;
	size_t len;
	int nulls = 0;

	(void)state;
	v[0] = verdict("a", RN_VERDICT_FAIL, "over budget");
	v[0].detail = (char *)"a long detail table\n";
	v[1] = verdict("b", RN_VERDICT_WARN, "warned");
	v[2] = verdict("c", RN_VERDICT_PASS, "ok");
	memset(&s, 0, sizeof(s));
	s.name = "alloc";
	s.cases = v;
	s.ncases = 3;
	s.partial = true;
	ref = render(&s, 1);
	/* Fail each allocation in turn: the result is either NULL or the complete document,
	 * never a truncated one that would pass for a report. */
	for (n = 1; n < 200; n++) {
		rn_alloc_fail_at(n);
		xml = rn_junit_render(outcome_of(&s, 1), "ci-host", NOW, &len);
		rn_alloc_fail_at(0);
		if (!xml) {
			nulls++;
			continue;
		}
		assert_string_equal(xml, ref);
		free(xml);
	}
	assert_true(nulls > 0);
	free(ref);
}

static void test_junit_write_errors_and_success(void **state)
{
	struct rn_verdict_result v[1];
	struct suite s;
	char path[4096];
	struct stat st;

	(void)state;
	v[0] = verdict("a", RN_VERDICT_PASS, "ok");
	memset(&s, 0, sizeof(s));
	s.name = "w";
	s.cases = v;
	s.ncases = 1;
	assert_int_equal(rn_junit_write(RN_BINARY_DIR "/no/such/dir/junit.xml", outcome_of(&s, 1)),
			 -ENOENT);
	assert_int_equal(stat(RN_BINARY_DIR "/no/such/dir/junit.xml", &st), -1);

	snprintf(path, sizeof(path), "%s/test_junit_out.xml", RN_BINARY_DIR);
	unlink(path);
	assert_int_equal(rn_junit_write(path, outcome_of(&s, 1)), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_true(st.st_size > 100);
	unlink(path);

	/* A path through a regular file. */
	assert_int_equal(rn_junit_write(RN_SOURCE_DIR "/CMakeLists.txt/junit.xml",
					outcome_of(&s, 1)),
			 -ENOTDIR);

	/* A directory we may not write into (root may write anywhere: skip that part). */
	if (geteuid() != 0) {
		const char *dir = RN_BINARY_DIR "/test_junit_ro";

		mkdir(dir, 0755);
		chmod(dir, 0555);
		snprintf(path, sizeof(path), "%s/junit.xml", dir);
		assert_int_equal(rn_junit_write(path, outcome_of(&s, 1)), -EACCES);
		chmod(dir, 0755);
		rmdir(dir);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_junit_exact_document),
		cmocka_unit_test(test_junit_verdict_mapping_and_counts),
		cmocka_unit_test(test_junit_partial_adds_interrupted_error),
		cmocka_unit_test(test_junit_escapes_hostile_text),
		cmocka_unit_test(test_junit_names_and_times),
		cmocka_unit_test(test_junit_numbers_ignore_locale),
		cmocka_unit_test(test_junit_allocation_failures),
		cmocka_unit_test(test_junit_write_errors_and_success),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
