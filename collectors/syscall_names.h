/*
 * syscall_names.h - the syscall and errno name tables of the trace model.
 *
 * The model (trace.h) indexes per-syscall statistics by syscall number and names syscalls and
 * errors in every output; this header is the interface it owns for that. The tables are
 * generated at build time from the kernel headers of the build machine (the tracer's native
 * ABI: asm/unistd_64.h on x86_64, asm-generic/unistd.h on aarch64), never typed by hand: the
 * ptrace collector's build generates the implementation (collectors/ptrace/gen_tables.cmake),
 * which includes only this header.
 *
 * Strings returned are static storage (or a static buffer where said); nothing is allocated.
 * Not thread safe where a static buffer is used.
 */
#ifndef RN_SYSCALL_NAMES_H
#define RN_SYSCALL_NAMES_H

#include <stdbool.h>

/* Entries of the syscall table (highest syscall number + 1): the size of every array indexed
 * by syscall number (struct rn_process.sc, syscall sets). */
int rn_syscall_table_size(void);
/* Name of syscall `nr`, e.g. "openat"; for a number without a name "syscall_0x1f4" (the
 * number in hex, as strace prints it) in a static buffer valid until the next call. Never
 * NULL. */
const char *rn_syscall_name(int nr);
/* True when syscall `nr` has a name in the table (rn_syscall_name prints "syscall_0x.." else). */
bool rn_syscall_has_name(int nr);
/* Number of a syscall by name, or -1. */
int rn_syscall_lookup(const char *name);

/* Name of errno `err` as a string ("ENOENT"), including the kernel-internal codes 512..531
 * ("ERESTARTSYS"); "E?" + number if unknown, in a static buffer valid until the next call. */
const char *rn_errno_name(int err);
/* strerror-like description of errno `err`, including the kernel-internal restart codes
 * (512..531) as strace prints them. Static storage (or strerror's), never NULL. */
const char *rn_errno_desc(int err);
/* True for ERESTARTSYS, ERESTARTNOINTR, ERESTARTNOHAND and ERESTART_RESTARTBLOCK: the call
 * returned to the tracer with this code and the kernel will restart it. */
bool rn_errno_is_restart(int err);

#endif
