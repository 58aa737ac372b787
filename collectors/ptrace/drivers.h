/*
 * ptrace/drivers.h - the two drivers of the ptrace collector (see collectors/driver.h).
 */
#ifndef RN_PTRACE_DRIVERS_H
#define RN_PTRACE_DRIVERS_H

#include "driver.h"

/* Counting runs: syscall stops (full tracing, or the seccomp-filtered and count-only modes). */
extern const struct rn_loop_ops rn_ptrace_loop;
/* Timing runs (RN_RUN_EVENTS_ONLY): process events only, no syscall stop. */
extern const struct rn_loop_ops rn_ptrace_events_loop;

#endif
