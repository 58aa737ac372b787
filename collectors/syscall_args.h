/*
 * syscall_args.h - what renacer knows about each syscall's arguments beyond its name: one
 * letter per argument giving its kind, as strace's syscallent tables do. The ptrace collector
 * reads it to decode path arguments and to derive the %file and %desc classes; the
 * strace-style view (runner/report/report_strace.h) reads it to print each argument.
 *
 * Kinds: d directory fd (AT_FDCWD), f fd, p path, o open flags, m mode (octal), a access mode,
 * A AT_* flags, P PROT_* bits, M MAP_* flags, s signal number, i int, u unsigned decimal,
 * v argv of execve, e envp of execve, x raw hex (pointers, masks). The legend in
 * syscall_args.c says more.
 *
 * Knowledge is attached to names; names and numbers come from syscall_names.h, so a name
 * missing on an architecture (open on aarch64) is skipped. Not thread safe (the table is
 * built on first use).
 */
#ifndef RN_SYSCALL_ARGS_H
#define RN_SYSCALL_ARGS_H

/* Argument kinds of syscall `nr`, one letter per argument (as many letters as the syscall has
 * arguments; "" for none), or NULL when renacer does not know the syscall or `nr` is outside
 * the table. Static storage. Dies on out-of-memory at the first call. */
const char *rn_syscall_signature(int nr);

#endif
