/*
 * ap_driver - run a command under the ptrace collector with the span spool enabled, print
 * every anti-pattern detection (rn_antipattern_report_all) and check expectations. It is what
 * `renacer trace --anti-patterns` does, kept separate so the integration tests exercise the
 * detectors on real traces without depending on the CLI.
 *
 *     ap_driver [--no-spool] [--min C] [--expect EXPR]... -- CMD [ARGS...]
 *
 *     --no-spool     do not enable the spool (detectors fall back to statistics or NO DATA)
 *     --min C        print detections with confidence >= C (default 0.5)
 *     --expect EXPR  NAME>=C, NAME<C or NAME=nodata; any spelling of NAME that
 *                    rn_antipattern_canonical accepts
 *
 * Exit status: 0 when every expectation holds, 1 when one fails, 2 on usage errors, 77 when
 * ptrace is not permitted here (the test is then a skip), 3 when the command did not run.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assertion.h"
#include "assertions/internal.h"
#include "collector.h"
#include "trace.h"

#define MAX_EXPECT 16

/* One expectation of --expect (enum exp_kind). */
enum exp_kind {
	EXP_AT_LEAST, /* NAME>=C: detected with at least this confidence */
	EXP_BELOW,    /* NAME<C: confidence below C, and data was there */
	EXP_NO_DATA,  /* NAME=nodata: the detector says it lacked data */
};

struct expect {
	const char *name;   /* canonical detector name (static) */
	enum exp_kind kind; /* what must hold */
	double value;       /* the confidence bound */
};

static int usage(const char *why)
{
	fprintf(stderr,
		"ap_driver: %s\nusage: ap_driver [--no-spool] [--min C] "
		"[--expect NAME>=C|NAME<C|NAME=nodata]... -- CMD [ARGS...]\n",
		why);
	return 2;
}

static bool parse_num(const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	return !errno && end != s && !*end && *out >= 0.0 && *out <= 1.0;
}

static bool parse_expect(const char *arg, struct expect *e)
{
	const char *op = strpbrk(arg, "<>=");
	char name[64];
	size_t n;

	if (!op || (size_t)(op - arg) >= sizeof(name))
		return false;
	n = (size_t)(op - arg);
	memcpy(name, arg, n);
	name[n] = '\0';
	e->name = rn_antipattern_canonical(name);
	if (!e->name)
		return false;
	if (!strncmp(op, ">=", 2)) {
		e->kind = EXP_AT_LEAST;
		return parse_num(op + 2, &e->value);
	}
	if (*op == '<') {
		e->kind = EXP_BELOW;
		return parse_num(op + 1, &e->value);
	}
	if (!strcmp(op, "=nodata")) {
		e->kind = EXP_NO_DATA;
		return true;
	}
	return false;
}

static int index_of(const char *name)
{
	int i;

	for (i = 0; rn_antipattern_names[i]; i++)
		if (!strcmp(rn_antipattern_names[i], name))
			return i;
	return -1;
}

int main(int argc, char **argv)
{
	struct expect exp[MAX_EXPECT];
	struct rn_detection det[32];
	struct rn_run_spec spec;
	struct rn_run_result res;
	struct rn_trace t;
	bool spool = true;
	double min = 0.5;
	int nexp = 0, i, rc, failed = 0, ndet;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		} else if (!strcmp(argv[i], "--no-spool")) {
			spool = false;
		} else if (!strcmp(argv[i], "--min") && i + 1 < argc) {
			if (!parse_num(argv[++i], &min))
				return usage("--min wants a number in [0, 1]");
		} else if (!strcmp(argv[i], "--expect") && i + 1 < argc) {
			if (nexp == MAX_EXPECT || !parse_expect(argv[++i], &exp[nexp++]))
				return usage("bad --expect");
		} else {
			return usage("unknown option");
		}
	}
	if (i >= argc)
		return usage("no command");
	for (ndet = 0; rn_antipattern_names[ndet]; ndet++)
		;
	if (ndet > (int)(sizeof(det) / sizeof(det[0])))
		return usage("too many detectors");

	memset(&spec, 0, sizeof(spec));
	memset(&res, 0, sizeof(res));
	spec.name = argv[i];
	spec.argv = argv + i;
	spec.stdio[0] = RN_STDIO_NULL;
	spec.stdio[1] = RN_STDIO_NULL;
	spec.stdio[2] = RN_STDIO_INHERIT;
	spec.timeout_ns = 120ULL * 1000000000ULL;
	spec.collectors = RN_COLLECT_PTRACE;
	spec.flags = RN_RUN_FOLLOW_FORKS | RN_RUN_PIN_CPU | RN_RUN_NO_PROPAGATE;
	rn_trace_init(&t);
	if (spool && (rc = rn_trace_spool_enable(&t))) {
		fprintf(stderr, "ap_driver: cannot create the spool: %s\n", strerror(-rc));
		return 3;
	}
	rc = rn_run_target(&spec, &t, &res);
	rn_run_result_release(&res);
	if (rc == -EPERM || (t.error && strstr(t.error, "not permitted"))) {
		fprintf(stderr, "ap_driver: skipped: %s\n",
			t.error ? t.error : "ptrace not permitted");
		rn_trace_release(&t);
		return 77;
	}
	if (rc < 0 || t.status != RN_RUN_OK) {
		fprintf(stderr, "ap_driver: '%s' did not run cleanly: %s\n", argv[i],
			t.error ? t.error : strerror(-rc));
		rn_trace_release(&t);
		return 3;
	}
	printf("%s: %llu syscalls in %zu process%s, %llu spooled\n", argv[i],
	       (unsigned long long)rn_trace_total_syscalls(&t), t.nprocs, t.nprocs == 1 ? "" : "es",
	       (unsigned long long)t.spooled);
	rc = rn_antipattern_report_all(&t, NULL, min, stdout);
	if (rc < 0) {
		fprintf(stderr, "ap_driver: detectors failed: %s\n", strerror(-rc));
		rn_trace_release(&t);
		return 3;
	}
	if (nexp) {
		rc = rn_antipattern_detect_all(&t, NULL, det);
		if (rc < 0) {
			fprintf(stderr, "ap_driver: detectors failed: %s\n", strerror(-rc));
			rn_trace_release(&t);
			return 3;
		}
		for (i = 0; i < nexp; i++) {
			const struct rn_detection *d = &det[index_of(exp[i].name)];
			bool ok = exp[i].kind == EXP_NO_DATA ?
				d->no_data :
				exp[i].kind == EXP_AT_LEAST ?
				!d->no_data && d->confidence >= exp[i].value :
				!d->no_data && d->confidence < exp[i].value;

			char what[32];

			if (exp[i].kind == EXP_NO_DATA)
				snprintf(what, sizeof(what), "no data");
			else
				snprintf(what, sizeof(what), "%s %.2f",
					 exp[i].kind == EXP_AT_LEAST ? ">=" : "<", exp[i].value);
			printf("%s: %s %s: confidence %.2f%s\n", ok ? "ok" : "FAIL", exp[i].name,
			       what, d->confidence, d->no_data ? " (no data)" : "");
			if (!ok) {
				printf("%s\n", d->evidence ? d->evidence : "");
				failed++;
			}
		}
		for (i = 0; i < ndet; i++)
			rn_detection_release(&det[i]);
	}
	rn_trace_release(&t);
	return failed ? 1 : 0;
}
