/*
 * exitcode.h - renacer's process exit codes: one table, never renumbered (curl's CURLcode).
 *
 * X(NAME, value, description). The enum, `--help`, the man page and the table of docs/metrics.md are
 * all derived from this list.
 */
#ifndef RN_EXITCODE_H
#define RN_EXITCODE_H

#define RN_EXIT_CODES(X)                                                                           \
	X(OK, 0, "success: no blocking assertion failed")                                          \
	X(FAIL, 1, "a blocking assertion failed")                                                  \
	X(USAGE, 2, "usage error: bad command line")                                               \
	X(CONFIG, 3, "config error: renacer.toml or a golden trace is invalid")                    \
	X(TARGET, 4, "a target failed to run (cannot execute, crashed, timed out)")                \
	X(COLLECTOR, 5, "a collector is unavailable (not built, no permission)")                   \
	X(OUTPUT, 6, "an output file (JUnit, golden trace, report) could not be written")          \
	X(INTERNAL, 70, "internal error (out of memory, bug)")                                     \
	X(SIGHUP, 129, "hung up (SIGHUP); tracees killed, partial reports written")                \
	X(SIGINT, 130, "interrupted by SIGINT; tracees killed, partial reports written")           \
	X(SIGQUIT, 131, "quit (SIGQUIT); tracees killed, partial reports written")                 \
	X(SIGTERM, 143, "terminated by SIGTERM; tracees killed, partial reports written")

/* Exit codes of the renacer process. */
enum rn_exit {
#define RN_EXIT_ENUM(name, value, desc) RN_EXIT_##name = value,
	RN_EXIT_CODES(RN_EXIT_ENUM)
#undef RN_EXIT_ENUM
};

/* The description of exit code `code` from RN_EXIT_CODES (static storage), or NULL for a code
 * renacer never exits with. */
static inline const char *rn_exit_meaning(int code)
{
	switch (code) {
#define RN_EXIT_MEANING(name, value, desc)                                                         \
	case value:                                                                                \
		return desc;
		RN_EXIT_CODES(RN_EXIT_MEANING)
#undef RN_EXIT_MEANING
	}
	return NULL;
}

/* The exit code for a run ended by signal `sig` (SIGINT, SIGTERM, SIGHUP, SIGQUIT: 128 + sig);
 * any other value gives RN_EXIT_SIGTERM. SIGUSR1, SIGUSR2 and SIGPIPE are ignored by renacer
 * (runner/cli/main.c) and never end a run. */
static inline int rn_exit_for_signal(int sig)
{
	switch (sig) {
	case 1: /* SIGHUP */
		return RN_EXIT_SIGHUP;
	case 2: /* SIGINT */
		return RN_EXIT_SIGINT;
	case 3: /* SIGQUIT */
		return RN_EXIT_SIGQUIT;
	default:
		return RN_EXIT_SIGTERM;
	}
}

#endif
