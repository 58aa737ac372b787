/*
 * guard.h - what keeps renacer's own process out of the target's reach.
 *
 * Installed in every target (whatever the collectors and the ptrace driver) after the
 * collectors are attached and before exec, unless the run asks for none (RN_RUN_NO_GUARD:
 * timing runs with [regression] timing_guard = false). Two forms, the first the kernel has:
 *
 * 1. A Landlock domain scoped for signals (rn_guard_landlock; Linux 6.12+, Landlock ABI 6,
 *    Documentation/userspace-api/landlock.rst, "Scoped access rights"): the target and its
 *    descendants can neither signal (kill, tkill, tgkill, rt_*sigqueueinfo,
 *    pidfd_send_signal, F_SETOWN) nor ptrace (attach, seize, process_vm_readv/writev,
 *    /proc/<pid>/mem, pidfd_getfd) any process outside their own tree, renacer included,
 *    whatever their capabilities. No cost per syscall: checked only at those operations.
 *    A signal to a group (kill(0), kill(-1)) reaches only the target's own tree.
 * 2. Else the seccomp filter of rn_guard_filter: every syscall of the target then takes the
 *    kernel's slow entry path (1M getppid: +6% on a 16-core machine, docs/benchmarks.md). It
 *    makes these calls fail with EPERM in the target and all its descendants, so a target
 *    cannot trace, stop, signal or write renacer:
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

/* The first Landlock ABI that scopes signals (LANDLOCK_SCOPE_SIGNAL, Linux 6.12). */
#define RN_GUARD_LANDLOCK_MIN_ABI 6

/* Instructions rn_guard_filter() may write. */
#define RN_GUARD_MAX_INSNS 48

#endif
