/*
 * guard.h - the seccomp filter that keeps renacer's own process out of the target's reach.
 *
 * Installed in every target (whatever the collectors and the ptrace driver) after the
 * collectors are attached and before exec, unless the run asks for none (RN_RUN_NO_GUARD:
 * timing runs with [regression] timing_guard = false; a seccomp filter moves every syscall
 * onto the kernel's slow entry path, 1M getppid: 1.117x native with it). It makes these calls fail with EPERM in the target
 * and all its descendants, so a target cannot trace, stop, signal or write renacer:
 *   - ptrace(any request, renacer's pid)                      (PTRACE_ATTACH/SEIZE, ...)
 *   - kill(renacer's pid | 0 | -1 | -renacer's process group, any signal), when the target
 *     starts in renacer's process group (0 and the group would reach renacer); -1 always
 *   - tkill, tgkill, rt_sigqueueinfo, rt_tgsigqueueinfo, pidfd_open, process_vm_readv,
 *     process_vm_writev of renacer's pid (first argument)
 * Only the low 32 bits of a pid argument are compared: the kernel converts it to pid_t.
 * Calls of a foreign ABI (i386, x32) are allowed: renacer reports those targets as unsupported.
 * Not covered: signals through a pidfd made from a /proc/<pid> directory (pidfd_send_signal).
 */
#ifndef RN_GUARD_H
#define RN_GUARD_H

#include <linux/filter.h>
#include <stddef.h>
#include <sys/types.h>

/* Instructions rn_guard_filter() may write. */
#define RN_GUARD_MAX_INSNS 48

/* Write the guard program for renacer's pid `protect` and process group `pgrp` (0 = the
 * target runs in a group of its own) into `out` (RN_GUARD_MAX_INSNS entries). Returns the
 * number of instructions. Async-signal-safe (used in the forked child). */
size_t rn_guard_filter(pid_t protect, pid_t pgrp, struct sock_filter *out);

#endif
