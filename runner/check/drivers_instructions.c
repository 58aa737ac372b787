/*
 * drivers_instructions.c - driver choice and the instructions run of check
 * (drivers_instructions.h).
 */
#include "drivers_instructions.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "cachegrind/cachegrind.h"
#include "driver.h"
#include "exitcode.h"
#include "internal.h"
#include "log.h"
#include "xalloc.h"

/* What of target `tc` only ptrace gives, as a static phrase, or NULL. */
static const char *needs_ptrace(const struct rn_config *cfg, const struct rn_target_cfg *tc,
				bool wants_spans)
{
	size_t i;

	if (wants_spans)
		return "the timeline/OTLP export wants per-call spans";
	if (tc->ninject)
		return "its inject rules tamper with calls at ptrace stops";
	for (i = 0; i < cfg->nassertions; i++) {
		const struct rn_assertion_spec *a = &cfg->assertions[i];

		if (!a->enabled || !rn_assertion_applies(a, tc->name))
			continue;
		if (a->type == RN_ASSERT_ANTI_PATTERN)
			return "an anti_pattern assertion needs per-call spans and their evidence";
		if (a->type == RN_ASSERT_SPAN_TIME)
			return "a span_time assertion needs each syscall span's duration";
		if (a->type == RN_ASSERT_WITNESS)
			return "a witness assertion needs each syscall span";
		if (a->type == RN_ASSERT_MEMORY_USAGE && a->tracking_mode == RN_TRACK_ALLOCATIONS)
			return "a memory_usage assertion on allocations needs mmap/brk sizes";
		/* Under eBPF the only memory figure is the root's ru_maxrss, which holds the image
		 * of renacer the root was cloned from (some 14 MiB): `true` would read 14 MiB. */
		if (a->type == RN_ASSERT_MEMORY_USAGE)
			return "a memory_usage assertion on rss needs each process's VmHWM";
	}
	return NULL;
}

int rn_check_drivers(struct rn_config *cfg, const char *cli_driver, bool wants_spans)
{
	enum rn_driver_pref cli = RN_DRIVER_PREF_PTRACE;
	size_t i;

	if (cli_driver && rn_driver_pref_parse(cli_driver, &cli)) {
		rn_error("unknown --driver '%s' (ptrace, ebpf or auto)", cli_driver);
		return RN_EXIT_USAGE;
	}
	for (i = 0; i < cfg->ntargets; i++) {
		struct rn_target_cfg *tc = &cfg->targets[i];
		enum rn_driver_pref pref = cli_driver ? cli : (enum rn_driver_pref)tc->driver;
		const char *need, *why;
		uint32_t bit;

		if (rn_check_wants_instructions(cfg, tc) && rn_cachegrind_unavailable()) {
			rn_error("target '%s' counts instructions, but %s", tc->name,
				 rn_cachegrind_unavailable());
			return RN_EXIT_COLLECTOR;
		}
		if (pref == RN_DRIVER_PREF_PTRACE || !(tc->collectors & RN_COLLECT_PTRACE))
			continue;
		need = needs_ptrace(cfg, tc, wants_spans);
		bit = rn_driver_pref_resolve(pref, need, &why);
		if (pref == RN_DRIVER_PREF_EBPF && need) {
			rn_note("target '%s': driver ebpf, but %s: it runs under ptrace", tc->name,
				need);
			continue;
		}
		/* asked for eBPF where it cannot load: a collector error before anything runs
		 * (as `trace --driver ebpf`), not a target that failed */
		if (pref == RN_DRIVER_PREF_EBPF && why) {
			rn_error("target '%s': driver ebpf cannot be used: %s", tc->name, why);
			return RN_EXIT_COLLECTOR;
		}
		if (bit == RN_COLLECT_PTRACE) {
			rn_note("target '%s': driver auto uses ptrace: %s", tc->name, why);
			continue;
		}
		tc->collectors = (tc->collectors & ~(uint32_t)RN_COLLECT_PTRACE) | bit;
	}
	return 0;
}

bool rn_check_wants_instructions(const struct rn_config *cfg, const struct rn_target_cfg *tc)
{
	size_t i;

	if (tc->instructions >= 0)
		return tc->instructions > 0;
	for (i = 0; i < cfg->nassertions; i++) {
		const struct rn_assertion_spec *a = &cfg->assertions[i];

		if (a->enabled && a->type == RN_ASSERT_INSTRUCTIONS &&
		    rn_assertion_applies(a, tc->name))
			return true;
	}
	return false;
}

int rn_check_instructions(const struct rn_target_cfg *tc, struct rn_target_result *r, bool quiet)
{
	struct rn_run_spec spec;
	struct rn_cachegrind_result cg;
	struct rn_trace t;
	struct rn_buf b;
	size_t i;
	int rc;

	if (!quiet)
		rn_note("target '%s': counting instructions under Valgrind", tc->name);
	memset(&spec, 0, sizeof(spec));
	spec.name = tc->name;
	spec.argv = tc->argv;
	spec.cwd = tc->cwd;
	spec.env_add = tc->env;
	spec.stdio[0] = RN_STDIO_NULL;
	spec.stdio[1] = tc->out;
	spec.stdio[2] = tc->err;
	/* Valgrind runs programs 5-50x slower */
	spec.timeout_ns = tc->timeout_ns ? tc->timeout_ns * 20 : 0;
	spec.flags = RN_RUN_FOLLOW_FORKS;
	spec.max_procs = tc->max_procs;
	spec.max_as_bytes = 0; /* Valgrind reserves far more address space than the program */
	rn_trace_init(&t);
	rc = rn_cachegrind_run(&spec, &t, &cg);
	if (rc == -ECANCELED) {
		rn_trace_release(&t);
		rn_cachegrind_result_release(&cg);
		return rc;
	}
	if (!rc && t.status == RN_RUN_OK && t.nprocs && t.procs[0].end == RN_PROC_EXITED &&
	    tc->expect_exit >= 0 && t.procs[0].exit_code != tc->expect_exit)
		rn_trace_fail(&t, RN_RUN_ERROR,
			      "target '%s' exited with status %d under Valgrind (expected %d)",
			      tc->name, t.procs[0].exit_code, tc->expect_exit);
	if (rc || t.status != RN_RUN_OK) {
		r->status = t.status != RN_RUN_OK ? t.status : RN_RUN_ERROR;
		free(r->error);
		r->error = rn_xstrdup(t.error ? t.error : "the Valgrind run failed");
	} else {
		for (i = 0; i < r->nruns; i++)
			r->runs[i].v[RN_METRIC_INSTRUCTIONS] = cg.total;
		for (i = 0; i < r->ncounts; i++)
			r->counts[i].v[RN_METRIC_INSTRUCTIONS] = cg.total;
		rn_buf_init(&b, 0);
		for (i = 0; i < cg.nprocs; i++)
			rn_buf_addf(&b, "%d %" PRIu64 " %s\n", (int)cg.procs[i].pid,
				    cg.procs[i].instructions,
				    cg.procs[i].cmd ? cg.procs[i].cmd : "?");
		free(r->instructions_detail);
		r->instructions_detail = rn_buf_detach(&b, NULL);
		/* processes without a count: the verdicts on the total see the gap, and a golden
		 * update that records the total says it is short */
		rn_target_result_add_gaps(r, &t);
		if (cg.nmissing)
			rn_warn("target '%s': the instruction count lacks %zu process%s: %s",
				tc->name, cg.nmissing, cg.nmissing == 1 ? "" : "es", cg.missing);
	}
	rn_trace_release(&t);
	rn_cachegrind_result_release(&cg);
	return 0;
}

bool rn_check_instructions_reuse(const struct rn_target_result *from, struct rn_target_result *r)
{
	uint64_t total = 0;
	size_t i;

	if (from->status != RN_RUN_OK)
		return false;
	if (from->nruns)
		total = from->runs[0].v[RN_METRIC_INSTRUCTIONS];
	else if (from->ncounts)
		total = from->counts[0].v[RN_METRIC_INSTRUCTIONS];
	if (!total)
		return false;
	for (i = 0; i < r->nruns; i++)
		r->runs[i].v[RN_METRIC_INSTRUCTIONS] = total;
	for (i = 0; i < r->ncounts; i++)
		r->counts[i].v[RN_METRIC_INSTRUCTIONS] = total;
	free(r->instructions_detail);
	r->instructions_detail =
		from->instructions_detail ? rn_xstrdup(from->instructions_detail) : NULL;
	return true;
}
