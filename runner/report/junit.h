/*
 * junit.h - the JUnit XML report of `renacer check --junit FILE`.
 *
 * Spec: JUnit XML as accepted by both windyroad JUnit.xsd (the strict Apache Ant schema) and
 * jenkins junit-10.xsd (what Jenkins, GitLab and most GitHub reporters read); copies of both are
 * in shared/junit/. What the stricter one dictates:
 *
 *   <?xml version="1.0" encoding="UTF-8"?>
 *   <testsuites>                                         no attributes
 *     <testsuite name="io_loop" tests="6" failures="1" errors="0" skipped="0" time="1.234"
 *                timestamp="2025-01-31T12:00:00" hostname="ci-7" id="0" package="renacer">
 *       <properties>                                     always present, first
 *         <property name="renacer_version" value="0.1.0"/>
 *         <property name="runs" value="5"/>               timing runs
 *         <property name="counting_runs" value="1"/>
 *         <property name="golden_file" value="golden_traces/io_loop.json"/>  when there is one
 *       </properties>
 *       <testcase name="golden:syscalls" classname="renacer.io_loop" time="0.012">
 *         <failure type="regression" message="syscalls 2480 vs golden 1240 (...)">body</failure>
 *       </testcase>
 *       ...
 *       <system-out>summary, then one line per WARN verdict</system-out>    always present
 *       <system-err></system-err>                                            always present
 *     </testsuite>
 *   </testsuites>
 *
 * Verdicts map to testcases as follows: PASS -> an empty testcase; FAIL -> <failure type=
 * "<assertion type>">; ERROR -> <error type="ERROR">; NO DATA -> <error type="NO DATA"> (a
 * missing metric must never look like a pass); SKIP -> <skipped>; NOT JUDGED -> <skipped> with
 * the reason as body; WARN -> <skipped message="WARN: <message>"> with the body (a WARN must
 * not fail the build, and must not read as a pass in dorny/test-reporter or GitLab, which
 * both show skipped but ignore the suite's <system-out>; the windyroad schema allows no
 * <system-out> or properties inside a testcase), also listed in the suite's <system-out> as
 * "WARN <assertion>: <message>". The suite's skipped count includes WARN and NOT JUDGED. A
 * testcase's time is what its row measured when that is a duration (unit "ms": critical path,
 * wall and CPU time against a golden trace or the base, span_time), else the target's check
 * time (the suite's `time`: its runs and their judging).
 *
 * Numbers are locale independent: times are decimal seconds with exactly three decimals (the
 * Jenkins schema's SUREFIRE_TIME allows at most three), timestamps are UTC without a zone.
 * Text goes through rn_buf_add_xml() (util/xml.h), so control characters and invalid
 * UTF-8 in messages cannot make the file unreadable.
 */
#ifndef RN_JUNIT_H
#define RN_JUNIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "outcome.h"

/*
 * Write the JUnit XML report of the outcome `oc` to `path`, atomically (rn_write_file_atomic: a
 * previous report stays intact on failure). One <testsuite> per target oc->targets[i] with the
 * verdicts oc->reports[i] as testcases, in order: its "name" is the target's name ("unnamed"
 * when empty), "id" its 0-based index, "package" "renacer", "hostname" gethostname() or
 * "localhost", "time" the target's duration_ns in seconds, "timestamp" its start_unix_ns (0:
 * the time of writing); properties "runs" and "counting_runs" from its nruns and ncounts,
 * "timing_gate" the check's timing gate statement (timing_gate.h, left out when empty) and
 * "golden_file" the report's golden_file (when not NULL). A target whose status is
 * RN_RUN_INTERRUPTED in an outcome with `interrupted` set gets an <error type="interrupted">
 * testcase "renacer interrupted". Reads nothing else of `oc`; the base sides are not shown.
 *
 * Returns 0, or a negative errno after printing one rn_error() naming the path: the directory
 * missing (-ENOENT, "directory 'out' does not exist"), not writable (-EACCES), out of memory
 * (-ENOMEM). Not thread safe (none of the runner is).
 */
int rn_junit_write(const char *path, const struct rn_outcome *oc);

/*
 * Render the report into a malloc'ed NUL-terminated string (caller frees), for tests and for
 * writers that send it elsewhere. `hostname` overrides the host name when not NULL, and
 * `now_unix_ns` stands for the time of writing (targets with start_unix_ns 0), so the output
 * can be made byte-for-byte reproducible. Returns NULL on out-of-memory.
 */
char *rn_junit_render(const struct rn_outcome *oc, const char *hostname, uint64_t now_unix_ns,
		      size_t *len);

#endif
