/*
 * inject_rules.h - fault and delay injection into traced syscalls, strace's `--inject` syntax
 * (strace(1), "Tampering"):
 *
 *     SET:error=ERRNO|retval=N|signal=SIG|delay_enter=DUR|delay_exit=DUR[:when=EXPR]
 *
 * one or more `:`-separated modifiers after a syscall set (`-e trace=` syntax:
 * rn_syscall_set_parse). The ptrace collector applies a rule at the syscall-entry stop:
 *   error=ERRNO   the call is not made (its number is changed to -1, as strace does) and
 *                 returns -ERRNO (a name, EIO, or a number 1..4095)
 *   retval=N      the call is not made and returns N (>= 0)
 *   signal=SIG    SIG (a name, SIGUSR1 or USR1, or a number) is delivered to the task at the
 *                 entry stop, with or without error/retval
 *   delay_enter=DUR, delay_exit=DUR
 *                 the tracer holds the stopped task DUR before letting the call start (entry)
 *                 or before letting it see its result (exit); DUR is a number with an optional
 *                 unit s, ms, us or ns (microseconds without one, as strace)
 *   when=EXPR     which invocations, counted per syscall from 1: FIRST (that one only),
 *                 FIRST..LAST, FIRST+ (it and every one after), FIRST+STEP (it and every
 *                 STEP-th after), FIRST..LAST+STEP; default 1+ (every call)
 * Invocations are counted per rule and syscall over the traced tree (strace counts per
 * thread; the same for a single-threaded program). As in strace, only traced calls are
 * tampered with: under `-e trace=SET` those of SET, and never the runner's own calls before
 * the target's exec. Where several rules name one syscall,
 * the last one given applies to it, as in strace.
 *
 * The ptrace collector needs the stops of the injected calls: in filtered, count-only and
 * timing runs it adds them to its seccomp filter (collectors/ptrace/ptrace.c).
 *
 * The rules are part of a run's spec (struct rn_run_spec) and of renacer.toml's targets, so
 * this header is the collectors' common one; the parser and rn_inject_delay() are
 * implemented with the ptrace collector's syscall sets (collectors/ptrace/inject.c).
 */
#ifndef RN_INJECT_RULES_H
#define RN_INJECT_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rn_diag;

/* What a rule does (enum rn_inject_actions). */
enum rn_inject_actions {
	RN_INJECT_ERROR = 1 << 0,       /* skip the call, return -error */
	RN_INJECT_RETVAL = 1 << 1,      /* skip the call, return retval */
	RN_INJECT_SIGNAL = 1 << 2,      /* deliver signo at the entry stop */
	RN_INJECT_DELAY_ENTER = 1 << 3, /* hold the task delay_enter_ns before the call */
	RN_INJECT_DELAY_EXIT = 1 << 4,  /* hold the task delay_exit_ns after the call */
};

/* One parsed --inject rule. Owned by whoever parsed it; free with rn_inject_release(). */
struct rn_inject {
	bool *set;        /* syscalls it applies to, rn_syscall_table_size() entries, owned */
	uint32_t actions; /* enum rn_inject_actions, at least one */
	int error;        /* RN_INJECT_ERROR: the errno, 1..4095 */
	int64_t retval;   /* RN_INJECT_RETVAL: the return value, >= 0 */
	int signo;        /* RN_INJECT_SIGNAL: the signal number, 1..64 */
	uint64_t delay_enter_ns; /* RN_INJECT_DELAY_ENTER: ns */
	uint64_t delay_exit_ns;  /* RN_INJECT_DELAY_EXIT: ns */
	uint64_t first;          /* when=: first invocation, >= 1 */
	uint64_t last;           /* when=: last invocation, UINT64_MAX for no end */
	uint64_t step;           /* when=: every step-th from first (1: each) */
	char *text;              /* the rule as written, owned (messages, reports) */
};

/*
 * Parse one rule, `spec` as above, into `inj` (overwritten). Returns 0, or -1 with the
 * reason in `diag` (no location: the caller places it; nothing printed), e.g.
 * "unknown errno 'EOI' in inject 'fsync:error=EOI' (did you mean 'EIO'?)".
 */
int rn_inject_parse(struct rn_inject *inj, const char *spec, struct rn_diag *diag);
/* Free what `inj` owns (NULL-safe members); it is then zeroed. */
void rn_inject_release(struct rn_inject *inj);
/* Whether the `n`-th invocation (from 1) of a call the rule names is tampered with. */
bool rn_inject_when(const struct rn_inject *inj, uint64_t n);

/*
 * Plant a delay, for `renacer calibrate`: fill `inj` with the rule "SYSCALL:delay_exit=DUR"
 * (or "SYSCALL:delay_enter=DUR" when `at_entry`) for every invocation of syscall `name` with
 * `delay_ns` nanoseconds. A call that never returns takes only an entry delay:
 * ("exit_group", at_entry) adds `delay_ns` once to every process's end, and so to the run's
 * wall time and critical path. Hand it to a run through rn_run_spec.inject (one element,
 * ninject 1; timing runs then stop at that call only) and release it after the run:
 *
 *     struct rn_inject inj;
 *     rn_inject_delay(&inj, "exit_group", 20000000, true);   (+20 ms per process)
 *     spec.inject = &inj;
 *     spec.ninject = 1;
 *     rn_run_target(&spec, &t, &res);
 *     rn_inject_release(&inj);
 *
 * Returns 0, or -EINVAL for an unknown syscall name or a zero delay.
 */
int rn_inject_delay(struct rn_inject *inj, const char *name, uint64_t delay_ns, bool at_entry);

#endif
