/*
 * trace_json.h - the "renacer-trace" JSON format's names, and its reader.
 *
 * `renacer trace --format json|jsonl` writes a trace in this format (the writer:
 * runner/report/report_json.c and the document frame in runner/cli/cmd_trace.c; the schema in full:
 * runner/report/TRACE_JSON.md); the equivalence assertion and `renacer diff` read it back
 * (assertions/equivalence.c, through rn_trace_json_read below). Both sides take every key from
 * the one list here, so a renamed field cannot leave one of them behind. The reader lives with
 * the trace model because the assertions layer reads it and may not reach the report layer.
 */
#ifndef RN_TRACE_JSON_H
#define RN_TRACE_JSON_H

#include <stddef.h>
#include <sys/types.h>

#include "trace.h"

#define RN_TJ_SCHEMA_NAME "renacer-trace" /* value of "schema" */

/* Keys and fixed values of the format (one list; RN_TJ_K makes a "key": prefix for writers'
 * format strings). */
#define RN_TJ_SCHEMA "schema"        /* the header's / document's schema name */
#define RN_TJ_VERSION "version"      /* its version (RN_TRACE_JSON_VERSION) */
#define RN_TJ_COMMAND "command"      /* argv of the traced command */
#define RN_TJ_TYPE "type"            /* JSONL line kind: the values below */
#define RN_TJ_TYPE_HEADER "header"   /* first line */
#define RN_TJ_TYPE_SYSCALL "syscall" /* one span */
#define RN_TJ_TYPE_PROCESS "process" /* a process event */
#define RN_TJ_TYPE_END "end"         /* last line: run fields, summary, processes */
#define RN_TJ_EVENT "event"          /* process event: the values below */
#define RN_TJ_EVENT_FORK "fork"
#define RN_TJ_EVENT_EXEC "exec"
#define RN_TJ_EVENT_EXIT "exit"
#define RN_TJ_PROCESSES "processes" /* array of process objects */
#define RN_TJ_SYSCALLS "syscalls"   /* array of spans (json), null with -c */
#define RN_TJ_SUMMARY "summary"     /* the -c rows */
/* syscall objects */
#define RN_TJ_PID "pid"
#define RN_TJ_TID "tid"
#define RN_TJ_NR "nr"
#define RN_TJ_NAME "name"
#define RN_TJ_ARGS "args" /* six strings "0x..." */
#define RN_TJ_PATH "path"
#define RN_TJ_PATH2 "path2"
#define RN_TJ_ARGV "argv" /* execve's argv, when recorded */
#define RN_TJ_ARGV_MORE "argv_more"
#define RN_TJ_RET "ret" /* null when unfinished */
#define RN_TJ_ERRNO "errno"
#define RN_TJ_START_NS "start_ns"
#define RN_TJ_DURATION_NS "duration_ns"
#define RN_TJ_UNFINISHED "unfinished"
#define RN_TJ_RESTARTED "restarted"
#define RN_TJ_INJECTED "injected" /* --inject skipped the call; present only when true */
#define RN_TJ_DELAYED "delayed"   /* --inject held the call; present only when true */
/* process objects (besides pid and start_ns) */
#define RN_TJ_PPID "ppid"
#define RN_TJ_EXE "exe"
#define RN_TJ_END "end" /* rn_proc_end_name() */
#define RN_TJ_EXIT_CODE "exit_code"
#define RN_TJ_SIGNAL "signal" /* rn_signal_name() */

/* "\"key\":" for a writer's format string: RN_TJ_K(RN_TJ_PID) is "\"pid\":". */
#define RN_TJ_K(key) "\"" key "\":"

/* One process as the reader hands it over. Strings borrow from the parsed document and live
 * until the callback returns. */
struct rn_tj_process {
	pid_t pid;            /* process id */
	pid_t ppid;           /* parent's pid */
	const char *exe;      /* executable path, or NULL */
	enum rn_proc_end end; /* how it ended (RN_PROC_RUNNING when unknown) */
	int exit_code;        /* with RN_PROC_EXITED */
	int term_signal;      /* signal number with RN_PROC_SIGNALED / LOST, 0 if none */
};

/* Where the reader sends what it reads, in the trace's order. `ctx` is the caller's. */
struct rn_tj_sink {
	/* A process born ('f'), exec'd ('e') or ended ('x'). */
	void (*process)(void *ctx, const struct rn_tj_process *p, char event);
	/* One syscall span; its strings borrow from the document until the call returns. */
	void (*syscall)(void *ctx, const struct rn_syscall_event *ev);
};

/*
 * Read a renacer-trace document (`--format json`: processes born, every span, processes
 * ended) or stream (`--format jsonl`: lines in order; the header must come first) from `text`
 * (`len` bytes, NUL-terminated at text[len]) into `sink`. Unknown keys are ignored. Returns 0, or -EINVAL with *err set to a
 * static message and *err_line to the 1-based line it concerns (0: the whole text):
 * "not a renacer-trace header", "the trace has no syscalls (recorded with -c?)", "empty
 * trace", ... Dies on out-of-memory.
 */
int rn_trace_json_read(const char *text, size_t len, const struct rn_tj_sink *sink, void *ctx,
		       const char **err, size_t *err_line);

#endif
