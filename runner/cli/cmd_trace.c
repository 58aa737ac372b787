/*
 * cmd_trace.c - `renacer trace`: run one command under the ptrace collector (or the eBPF
 * counters, or Valgrind for --instructions) and print what strace would (per-call lines, the
 * -c summary), or the same as JSON / JSON Lines. With --collectors naming cuda or vulkan, GPU
 * spans (kernels, copies, dispatches, command buffers, regions, graph replays) get their own
 * lines and -c table after the run. Steps: parse_args, dest_open, choose_collectors,
 * prepare_outputs, rn_run_target, report_run, dest_close.
 */
#include "cmd_trace.h"
#include "config.h"
#include "trace_gpu.h"

#include "assertion.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "collector.h"
#include "exitcode.h"
#include "log.h"
#include "cachegrind/cachegrind.h"
#include "driver.h"
#include "inject_rules.h"
#include "ptrace/ptrace.h"
#include "flamegraph.h"
#include "profile.h"
#include "report_csv.h"
#include "report_json.h"
#include "report_strace.h"
#include "safefile.h"
#include "srcloc.h"
#include "symbolize.h"
#include "trace_json.h"
#include "xalloc.h"

/* Option ids: short options use their character. */
/* --profile without --profile-hz: samples per second of CPU time (99, not 100, so the
 * sampling does not run in lockstep with a periodic timer of the target). */
#define RN_TRACE_PROFILE_HZ 99

enum {
	OPT_SUMMARY_ONLY = 'c',
	OPT_SUMMARY = 'C',
	OPT_TIMES = 'T',
	OPT_FOLLOW = 'f',
	OPT_EXPR = 'e',
	OPT_OUTPUT = 'o',
	OPT_WALL = 'w',
	OPT_HELP = 'h',
	OPT_PID = 'p',
	OPT_FORMAT = 256,
	OPT_TIMEOUT,
	OPT_NO_PIN,
	OPT_COUNT_ONLY,
	OPT_ANTI_PATTERNS,
	OPT_SOURCE,
	OPT_DEBUG_DIR,
	OPT_DRIVER,
	OPT_INSTRUCTIONS,
	OPT_COLLECTORS,
	OPT_GPU_TIMING,
	OPT_PERCENTILES,
	OPT_INJECT,
	OPT_FAULT,
	OPT_PROFILE,
	OPT_PROFILE_HZ,
};

static const struct rn_option trace_options[] = {
	{ OPT_SUMMARY_ONLY, "summary-only", 'c', RN_OPT_NONE, NULL,
	  "count calls, errors and time per syscall; print only the summary" },
	{ OPT_SUMMARY, "summary", 'C', RN_OPT_NONE, NULL,
	  "print the per-call lines and the summary" },
	{ OPT_PERCENTILES, "percentiles", 0, RN_OPT_NONE, NULL,
	  "with -c/-C: add p50, p90, p99 and max latency columns (microseconds) per syscall" },
	{ OPT_TIMES, "syscall-times", 'T', RN_OPT_NONE, NULL,
	  "show the time spent in each call (under tracer)" },
	{ OPT_FOLLOW, "follow-forks", 'f', RN_OPT_NONE, NULL,
	  "trace child processes and threads too" },
	{ OPT_EXPR, "expr", 'e', RN_OPT_REQUIRED, "trace=SET",
	  "trace only SET (names, %file, %process, ...; '!' negates), filtered in the kernel by seccomp-bpf; as strace: -e inject=SET:ACTION is --inject, -e fault=SET is --fault" },
	{ OPT_INJECT, "inject", 0, RN_OPT_REQUIRED, "SET:ACTION",
	  "tamper with the calls of SET as strace --inject does: error=ERRNO, retval=N, signal=SIG, delay_enter=DUR, delay_exit=DUR (10ms, 500us; us without a unit), :when=FIRST[..LAST][+[STEP]]; repeatable" },
	{ OPT_FAULT, "fault", 0, RN_OPT_REQUIRED, "SET[:ACTION]",
	  "strace's --fault: --inject=SET:error=ENOSYS, or with the error= (and :when=) given" },
	{ OPT_PERCENTILES, "stats-extended", 0, RN_OPT_NONE, NULL,
	  "the original renacer's name of --percentiles" },
	{ RN_OPT_REPLACED, "function-time", 0, RN_OPT_NONE, NULL,
	  "the original renacer's function timing is --profile PREFIX (syscall time by call stack and CPU samples, as flame graphs; renacer explain ranks two of them)" },
	{ RN_OPT_REPLACED, "chaos", 0, RN_OPT_NONE, NULL,
	  "the original renacer's chaos presets are --inject=SET:ACTION rules (errors, return values, signals, delays per syscall; [[target]] inject in renacer.toml)" },
	{ OPT_PID, "attach", 'p', RN_OPT_REQUIRED, "PID",
	  "trace the running process PID (all its threads, and its children from now on) instead of CMD; repeatable; SIGINT or --timeout detaches and leaves it running" },
	{ OPT_PROFILE, "profile", 0, RN_OPT_REQUIRED, "PREFIX",
	  "where the time went: PREFIX.syscalls.folded/.svg (syscall time by call stack) and PREFIX.cpu.folded/.svg (on-CPU samples of a software CPU clock with user stacks), folded stacks and SVG flame graphs" },
	{ OPT_PROFILE_HZ, "profile-hz", 0, RN_OPT_REQUIRED, "HZ",
	  "with --profile: samples per second of CPU time (default " RN_CFG_STR(
		  RN_TRACE_PROFILE_HZ) "; 0: no sampling)" },
	{ OPT_OUTPUT, "output", 'o', RN_OPT_REQUIRED, "FILE",
	  "write the trace to FILE instead of stderr" },
	{ OPT_FORMAT, "format", 0, RN_OPT_REQUIRED, "FMT",
	  "text (default), json or jsonl (schema renacer-trace v1), or csv (RFC 4180 fields, LF line ends, formulas neutralized: one record per call, or the -c summary; -C: the calls in -o FILE, the summary in FILE.summary.csv)" },
	{ OPT_TIMEOUT, "timeout", 0, RN_OPT_REQUIRED, "SECONDS",
	  "kill the whole tree after SECONDS of wall-clock time" },
	{ OPT_COUNT_ONLY, "count-only", 0, RN_OPT_NONE, NULL,
	  "count calls at entry only: no durations, errors only where the result is needed" },
	{ OPT_ANTI_PATTERNS, "anti-patterns", 0, RN_OPT_NONE, NULL,
	  "after the run, print every anti-pattern detection with its confidence, evidence and recommendation (assertions/ANTIPATTERNS.md)" },
	{ OPT_SOURCE, "source", 0, RN_OPT_NONE, NULL,
	  "after each call, name the code that made it: function (file:line) from DWARF debug information, inlined frames included (a separate debug file is found by build-id under /usr/lib/debug; never downloaded)" },
	{ OPT_DEBUG_DIR, "debug-dir", 0, RN_OPT_REQUIRED, "DIRS",
	  "with --source: colon-separated folders searched for DIR/.build-id/xx/yyyy.debug before /usr/lib/debug" },
	{ OPT_DRIVER, "driver", 0, RN_OPT_REQUIRED, "DRIVER",
	  "ptrace (default), ebpf (count in the kernel without stopping CMD: -c only; root or CAP_BPF+CAP_PERFMON) or auto (ebpf where it can, else ptrace, saying why)" },
	{ OPT_INSTRUCTIONS, "instructions", 0, RN_OPT_NONE, NULL,
	  "count the instructions of each process under Valgrind (cachegrind) instead of tracing syscalls" },
	{ OPT_COLLECTORS, "collectors", 0, RN_OPT_REQUIRED, "LIST",
	  "comma-separated collectors: ptrace (default), cuda, vulkan, app; GPU and app spans are printed after the run, one line each (a table of GPU spans with -c)" },
	{ OPT_GPU_TIMING, "gpu-timing", 0, RN_OPT_REQUIRED, "MODE",
	  "vulkan: dispatch (default here: one span per dispatch and copy, serializes the GPU), cmdbuf or submit" },
	{ OPT_NO_PIN, "no-pin", 0, RN_OPT_NONE, NULL,
	  "do not share one CPU between renacer and a single-task target" },
	{ OPT_WALL, NULL, 'w', RN_OPT_NONE, NULL,
	  "accepted for strace compatibility: times are always wall-clock" },
	{ OPT_HELP, "help", 'h', RN_OPT_NONE, NULL, "show this help" },
	{ 0, NULL, 0, RN_OPT_NONE, NULL, NULL },
};

const struct rn_command rn_cmd_trace_def = {
	"trace",
	"renacer trace [-c] [-C] [--percentiles] [--inject=SET:ACTION] [-T] [-f] [-e trace=SET] [-o FILE] [--format text|json|jsonl] [--driver ptrace|ebpf|auto] [--instructions] -- CMD [ARGS...] | -p PID...",
	"trace the syscalls of CMD like strace (also: renacer -c -T -- CMD)",
	"Lines look like strace's: openat(AT_FDCWD, \"/etc/passwd\", O_RDONLY) = 3. The -c\n"
	"summary has strace's layout and counts calls and errors as strace -c does: a call is\n"
	"counted when it returns (exit_group and calls cut off by the process's death are not),\n"
	"a call interrupted with ERESTART* counts once with an error and again when the kernel\n"
	"restarts it, and CMD is resolved through PATH before its one execve. Times are measured\n"
	"between the syscall-entry and -exit stops: they are times under tracer and include the\n"
	"cost of the stops. With --driver ebpf the counts are made in the kernel without stopping\n"
	"CMD (-c only: no per-call lines, paths or argv), and times are the calls' own. Output\n"
	"goes to stderr or -o FILE, never to CMD's stdout. The exit status is CMD's (128 + signal\n"
	"if it was killed).",
	trace_options,
};

enum trace_format {
	FMT_TEXT,  /* strace lines and the -c table */
	FMT_JSON,  /* one document at the end */
	FMT_JSONL, /* one object per line as the run goes */
	FMT_CSV,   /* per-call records as the run goes, or the -c summary (report_csv.h) */
};

struct trace_opts {
	bool summary_only;          /* -c */
	bool summary;               /* -C */
	bool times;                 /* -T */
	bool percentiles;           /* --percentiles */
	struct rn_inject *inject;   /* --inject rules [ninject], owned */
	size_t ninject;             /* rules given */
	size_t inject_cap;          /* rules allocated */
	const char *profile;        /* --profile PREFIX, borrowed */
	unsigned profile_hz;        /* --profile-hz */
	pid_t *pids;                /* -p PIDs [npids], owned */
	size_t npids;               /* processes given */
	size_t pids_cap;            /* allocated */
	bool follow;                /* -f */
	bool count_only;            /* --count-only */
	bool no_pin;                /* --no-pin */
	bool anti_patterns;         /* --anti-patterns */
	bool source;                /* --source */
	const char *debug_dirs;     /* --debug-dir, borrowed */
	bool help;                  /* -h */
	enum rn_driver_pref driver; /* --driver */
	bool instructions;          /* --instructions */
	uint32_t collectors;        /* --collectors: enum rn_collector_mask, 0 = ptrace only */
	enum rn_gpu_mode gpu_mode;  /* --gpu-timing (vulkan), default dispatch */
	const char *expr;           /* -e, borrowed from argv */
	const char *output;         /* -o, borrowed */
	enum trace_format format;   /* --format */
	uint64_t timeout_ns;        /* --timeout, 0 = none */
};

/* What the sinks write to. */
struct out_ctx {
	FILE *out;                  /* stderr or -o FILE */
	struct rn_buf line;         /* scratch */
	const struct trace_opts *o; /* the options, borrowed */
	struct rn_symbolizer *sym;  /* --source: ELF symbols, owned */
	struct rn_srcloc *src;      /* --source: DWARF lines, owned */
	struct rn_profile *prof;    /* --profile, owned */
};

/* Parse "SECONDS[.FRACTION]" into ns. 0 or -1. */
static int parse_seconds(const char *s, uint64_t *ns)
{
	uint64_t whole = 0, frac = 0, scale = 1000000000u;
	const char *p = s;

	if (!(*p >= '0' && *p <= '9'))
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		whole = whole * 10 + (uint64_t)(*p - '0');
		if (whole > 100000000u)
			return -1;
	}
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++) {
			if (scale > 1) {
				scale /= 10;
				frac += (uint64_t)(*p - '0') * scale;
			}
		}
	}
	if (*p)
		return -1;
	*ns = whole * 1000000000u + frac;
	return *ns ? 0 : -1;
}

/* --collectors LIST: names from the collector registry, comma-separated. 0 or -1. */
static int parse_collectors(const char *list, uint32_t *mask)
{
	const char *p = list;

	*mask = 0;
	while (*p) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		char name[32];
		uint32_t bit;

		if (!len || len >= sizeof(name))
			return rn_error("renacer trace: bad --collectors '%s' (a comma-separated "
					"list of ptrace, cuda, vulkan, app)",
					list);
		memcpy(name, p, len);
		name[len] = 0;
		bit = rn_collector_mask_of(name);
		if (!bit || bit == RN_COLLECT_EBPF)
			return rn_error("renacer trace: unknown collector '%s' in --collectors "
					"(ptrace, cuda, vulkan or app; for eBPF use --driver ebpf)",
					name);
		*mask |= bit;
		p += len + (comma ? 1 : 0);
	}
	if (!*mask)
		return rn_error("renacer trace: --collectors names no collector");
	return 0;
}

/* --inject SPEC (and -e inject=SPEC): one more rule. 0 or -1. */
static int add_inject(struct trace_opts *o, const char *spec)
{
	struct rn_diag diag;

	o->inject = rn_xgrow(o->inject, &o->inject_cap, o->ninject + 1, sizeof(*o->inject));
	rn_diag_init(&diag, NULL, NULL, 0);
	if (rn_inject_parse(&o->inject[o->ninject], spec, &diag))
		return rn_error("renacer trace: %s", diag.msg);
	o->ninject++;
	return 0;
}

/* strace's --fault=SET[:error=ERRNO][:when=EXPR] (and -e fault=): an inject rule whose error
 * is ENOSYS unless one is given (strace(1), "-e fault"). 0 or -1. */
static int add_fault(struct trace_opts *o, const char *spec)
{
	struct rn_buf b;
	int rc;

	if (strstr(spec, ":error="))
		return add_inject(o, spec);
	rn_buf_init(&b, 0);
	rn_buf_addf(&b, "%s:error=ENOSYS", spec);
	rc = add_inject(o, b.buf);
	rn_buf_release(&b);
	return rc;
}

/* --profile-hz HZ: 0..100000. 0 or -1. */
static int set_profile_hz(struct trace_opts *o, const char *arg)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (*end || end == arg || v < 0 || v > 100000)
		return rn_error("renacer trace: --profile-hz wants 0..100000, not '%s'", arg);
	o->profile_hz = (unsigned)v;
	return 0;
}

/* -p PID: one more process to attach to. 0 or -1. */
static int add_pid(struct trace_opts *o, const char *arg)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (*end || end == arg || v <= 0 || v > INT32_MAX)
		return rn_error("renacer trace: -p wants a process id, not '%s'", arg);
	o->pids = rn_xgrow(o->pids, &o->pids_cap, o->npids + 1, sizeof(*o->pids));
	o->pids[o->npids++] = (pid_t)v;
	return 0;
}

/* -e EXPR: strace's -e inject=, -e fault= (the same rules as --inject and --fault), else the
 * one -e trace= expression. 0 or -1. */
static int set_expr(struct trace_opts *o, const char *arg)
{
	if (!strncmp(arg, "inject=", 7))
		return add_inject(o, arg + 7);
	if (!strncmp(arg, "fault=", 6))
		return add_fault(o, arg + 6);
	if (o->expr)
		return rn_error("renacer trace: only one -e trace= expression is supported");
	o->expr = arg;
	return 0;
}

/* --format text|json|jsonl|csv. 0 or -1. */
static int set_format(struct trace_opts *o, const char *arg)
{
	if (!strcmp(arg, "text"))
		o->format = FMT_TEXT;
	else if (!strcmp(arg, "json"))
		o->format = FMT_JSON;
	else if (!strcmp(arg, "jsonl"))
		o->format = FMT_JSONL;
	else if (!strcmp(arg, "csv"))
		o->format = FMT_CSV;
	else
		return rn_error("renacer trace: unknown --format '%s' (text, json, jsonl or csv)",
				arg);
	return 0;
}

/* --gpu-timing dispatch|cmdbuf|submit. 0 or -1. */
static int set_gpu_timing(struct trace_opts *o, const char *arg)
{
	if (!strcmp(arg, "dispatch"))
		o->gpu_mode = RN_GPU_MODE_DISPATCH;
	else if (!strcmp(arg, "cmdbuf"))
		o->gpu_mode = RN_GPU_MODE_CMDBUF;
	else if (!strcmp(arg, "submit"))
		o->gpu_mode = RN_GPU_MODE_SUBMIT;
	else
		return rn_error("renacer trace: unknown --gpu-timing '%s' (dispatch, cmdbuf or "
				"submit)",
				arg);
	return 0;
}

static int on_option(void *ctx, int id, const char *arg)
{
	struct trace_opts *o = ctx;

	switch (id) {
	case OPT_SUMMARY_ONLY:
		o->summary_only = true;
		break;
	case OPT_SUMMARY:
		o->summary = true;
		break;
	case OPT_TIMES:
		o->times = true;
		break;
	case OPT_PERCENTILES:
		o->percentiles = true;
		break;
	case OPT_PROFILE:
		o->profile = arg;
		break;
	case OPT_PROFILE_HZ:
		return set_profile_hz(o, arg);
	case OPT_PID:
		return add_pid(o, arg);
	case OPT_INJECT:
		return add_inject(o, arg);
	case OPT_FAULT:
		return add_fault(o, arg);
	case OPT_FOLLOW:
		o->follow = true;
		break;
	case OPT_EXPR:
		return set_expr(o, arg);
	case OPT_OUTPUT:
		o->output = arg;
		break;
	case OPT_FORMAT:
		return set_format(o, arg);
	case OPT_TIMEOUT:
		if (parse_seconds(arg, &o->timeout_ns))
			return rn_error("renacer trace: --timeout wants seconds > 0, not '%s'",
					arg);
		break;
	case OPT_COUNT_ONLY:
		o->count_only = true;
		break;
	case OPT_ANTI_PATTERNS:
		o->anti_patterns = true;
		break;
	case OPT_SOURCE:
		o->source = true;
		break;
	case OPT_DEBUG_DIR:
		o->debug_dirs = arg;
		break;
	case OPT_DRIVER:
		if (rn_driver_pref_parse(arg, &o->driver))
			return rn_error(
				"renacer trace: unknown --driver '%s' (ptrace, ebpf or auto)", arg);
		break;
	case OPT_INSTRUCTIONS:
		o->instructions = true;
		break;
	case OPT_COLLECTORS:
		return parse_collectors(arg, &o->collectors);
	case OPT_GPU_TIMING:
		return set_gpu_timing(o, arg);
	case OPT_NO_PIN:
		o->no_pin = true;
		break;
	case OPT_WALL:
		break;
	case OPT_HELP:
		o->help = true;
		break;
	default:
		return -1;
	}
	return 0;
}

/* -e trace=SET (also t=SET and a bare SET, as strace accepts). NULL set = everything. */
static int parse_expr(const char *expr, bool **set_out)
{
	const char *set = expr, *eq = strchr(expr, '=');
	int n = rn_syscall_table_size(), i;
	bool *set_v, all = true;
	struct rn_diag diag;

	*set_out = NULL;
	if (eq) {
		size_t klen = (size_t)(eq - expr);

		if (!((klen == 5 && !strncmp(expr, "trace", 5)) || (klen == 1 && *expr == 't')))
			return rn_error("renacer trace: -e '%.*s=' is not supported; only "
					"-e trace=SET is",
					(int)klen, expr);
		set = eq + 1;
	}
	set_v = rn_xcalloc((size_t)n, sizeof(*set_v));
	rn_diag_init(&diag, NULL, NULL, 0);
	if (rn_syscall_set_parse(set, set_v, &diag)) {
		free(set_v);
		return rn_error("renacer trace: -e trace=%s: %s", set, diag.msg);
	}
	for (i = 0; i < n; i++)
		all = all && set_v[i];
	if (all) {
		free(set_v); /* everything: full tracing, no seccomp filter */
		return 0;
	}
	*set_out = set_v;
	return 0;
}

static uint32_t line_flags(const struct out_ctx *oc, const struct rn_trace *t)
{
	uint32_t f = oc->o->times ? RN_LINE_TIME : 0;

	if (oc->o->follow && (t->nprocs > 1 || (t->nprocs && t->procs[0].nthreads > 1)))
		f |= RN_LINE_PID;
	return f;
}

/* The code that made a call (--source): the caller's source frames. Returns the number of
 * frames, 0 when only the ELF symbol is known (mod and fn set), -1 when nothing is. */
static int source_of(struct out_ctx *oc, const struct rn_trace *t,
		     const struct rn_syscall_event *ev, struct rn_src_frame *f, const char **mod,
		     const char **fn, uint64_t *vaddr)
{
	int pi = rn_trace_find_process(t, ev->pid), n;

	if (pi < 0 || !ev->nstack)
		return -1;
	n = rn_srcloc_caller(oc->src, oc->sym, t->procs[pi].maps, ev->stack, ev->nstack, f,
			     RN_SRC_FRAMES_MAX, mod, fn, vaddr);
	return n < 0 ? -1 : n;
}

/* strace -k style lines after the call: " > function (file:line)", innermost first. */
static void text_source(struct out_ctx *oc, const struct rn_trace *t,
			const struct rn_syscall_event *ev)
{
	struct rn_src_frame f[RN_SRC_FRAMES_MAX];
	const char *mod = NULL, *fn = NULL;
	uint64_t vaddr = 0;
	int n = source_of(oc, t, ev, f, &mod, &fn, &vaddr), i;

	if (n < 0)
		return;
	for (i = 0; i < n; i++) {
		rn_buf_adds(&oc->line, " > ");
		rn_src_frame_format(&oc->line, &f[i]);
		rn_buf_adds(&oc->line, f[i].inlined ? " [inlined]\n" : "\n");
	}
	if (!n)
		rn_buf_addf(&oc->line, " > %s (%s+0x%" PRIx64 ")\n", fn ? fn : "??", mod, vaddr);
}

/* JSON: close the syscall object with "source" (--source): {"module","symbol","frames"} or
 * null when no caller was found. */
static void json_source(struct out_ctx *oc, struct rn_buf *b, const struct rn_trace *t,
			const struct rn_syscall_event *ev)
{
	struct rn_src_frame f[RN_SRC_FRAMES_MAX];
	const char *mod = NULL, *fn = NULL;
	uint64_t vaddr = 0;
	int n;

	if (!oc->o->source || !b->len || b->buf[b->len - 1] != '}')
		return;
	n = source_of(oc, t, ev, f, &mod, &fn, &vaddr);
	b->len--;
	b->buf[b->len] = '\0';
	if (n < 0) {
		rn_buf_adds(b, ",\"source\":null}");
		return;
	}
	rn_buf_adds(b, ",\"source\":{\"module\":");
	rn_json_add_string(b, mod);
	rn_buf_adds(b, ",\"symbol\":");
	if (fn)
		rn_json_add_string(b, fn);
	else
		rn_buf_adds(b, "null");
	rn_buf_addf(b, ",\"vaddr\":\"0x%" PRIx64 "\",\"frames\":", vaddr);
	rn_src_frames_json(b, f, n);
	rn_buf_adds(b, "}}");
}

static void text_syscall(void *ctx, const struct rn_trace *t, const struct rn_syscall_event *ev)
{
	struct out_ctx *oc = ctx;

	rn_buf_reset(&oc->line);
	rn_syscall_format(&oc->line, ev, line_flags(oc, t));
	rn_buf_addc(&oc->line, '\n');
	if (oc->o->source)
		text_source(oc, t, ev);
	fwrite(oc->line.buf, 1, oc->line.len, oc->out);
}

static void text_process(void *ctx, const struct rn_trace *t, const struct rn_process *p,
			 char event)
{
	struct out_ctx *oc = ctx;

	if (event != 'x')
		return;
	rn_buf_reset(&oc->line);
	rn_process_format_end(&oc->line, p, line_flags(oc, t));
	rn_buf_addc(&oc->line, '\n');
	fwrite(oc->line.buf, 1, oc->line.len, oc->out);
}

static void csv_syscall(void *ctx, const struct rn_trace *t, const struct rn_syscall_event *ev)
{
	struct out_ctx *oc = ctx;

	(void)t;
	rn_buf_reset(&oc->line);
	rn_csv_add_syscall(&oc->line, ev);
	fwrite(oc->line.buf, 1, oc->line.len, oc->out);
}

static void jsonl_syscall(void *ctx, const struct rn_trace *t, const struct rn_syscall_event *ev)
{
	struct out_ctx *oc = ctx;

	rn_buf_reset(&oc->line);
	rn_json_add_syscall(&oc->line, ev);
	json_source(oc, &oc->line, t, ev);
	rn_buf_addc(&oc->line, '\n');
	fwrite(oc->line.buf, 1, oc->line.len, oc->out);
}

static void jsonl_process(void *ctx, const struct rn_trace *t, const struct rn_process *p,
			  char event)
{
	struct out_ctx *oc = ctx;

	rn_buf_reset(&oc->line);
	rn_json_add_process(&oc->line, t, p, event);
	rn_buf_addc(&oc->line, '\n');
	fwrite(oc->line.buf, 1, oc->line.len, oc->out);
}

static void add_header_members(struct rn_buf *b, char **cmd)
{
	int i;

	rn_buf_adds(b, RN_TJ_K(RN_TJ_SCHEMA) "\"" RN_TJ_SCHEMA_NAME "\",");
	rn_buf_addf(b, RN_TJ_K(RN_TJ_VERSION) "%d," RN_TJ_K(RN_TJ_COMMAND) "[",
		    RN_TRACE_JSON_VERSION);
	for (i = 0; cmd && cmd[i]; i++) {
		if (i)
			rn_buf_addc(b, ',');
		rn_json_add_string(b, cmd[i]);
	}
	rn_buf_addc(b, ']');
}

static void add_processes(struct rn_buf *b, const struct rn_trace *t)
{
	size_t i;

	rn_buf_addc(b, '[');
	for (i = 0; i < t->nprocs; i++) {
		if (i)
			rn_buf_addc(b, ',');
		rn_json_add_process(b, t, &t->procs[i], 0);
	}
	rn_buf_addc(b, ']');
}

struct spool_ctx {
	FILE *out;
	struct rn_buf *b;
	bool first;
	struct out_ctx *oc;       /* for --source */
	const struct rn_trace *t; /* for --source */
};

static int spool_span(void *ctx, const struct rn_syscall_event *ev)
{
	struct spool_ctx *sc = ctx;

	rn_buf_reset(sc->b);
	if (!sc->first)
		rn_buf_addc(sc->b, ',');
	sc->first = false;
	rn_json_add_syscall(sc->b, ev);
	json_source(sc->oc, sc->b, sc->t, ev);
	fwrite(sc->b->buf, 1, sc->b->len, sc->out);
	return 0;
}

/* The final JSON document or the last JSONL line. */
static void write_json_end(struct out_ctx *oc, struct rn_trace *t, char **cmd)
{
	struct rn_buf *b = &oc->line;

	rn_buf_reset(b);
	if (oc->o->format == FMT_JSONL)
		rn_buf_adds(b, "{" RN_TJ_K(RN_TJ_TYPE) "\"" RN_TJ_TYPE_END "\",");
	else {
		rn_buf_addc(b, '{');
		add_header_members(b, cmd);
		rn_buf_addc(b, ',');
	}
	rn_json_add_run_members(b, t);
	rn_buf_adds(b, "," RN_TJ_K(RN_TJ_SUMMARY));
	rn_json_add_summary(b, t);
	rn_buf_adds(b, "," RN_TJ_K(RN_TJ_PROCESSES));
	add_processes(b, t);
	if (t->ngpu) {
		rn_buf_adds(b, ",\"gpu\":");
		rn_trace_gpu_json(b, t);
	}
	if (oc->o->format == FMT_JSONL) {
		rn_buf_adds(b, "}\n");
		fwrite(b->buf, 1, b->len, oc->out);
		return;
	}
	rn_buf_adds(b, "," RN_TJ_K(RN_TJ_SYSCALLS));
	if (!t->spool) {
		rn_buf_adds(b, "null}\n");
		fwrite(b->buf, 1, b->len, oc->out);
		return;
	}
	rn_buf_addc(b, '[');
	fwrite(b->buf, 1, b->len, oc->out);
	{
		struct rn_buf span;
		struct spool_ctx sc = { oc->out, &span, true, oc, t };

		rn_buf_init(&span, 0);
		rn_trace_spool_foreach(t, spool_span, &sc);
		rn_buf_release(&span);
	}
	fputs("]}\n", oc->out);
}

static int exit_code(const struct rn_trace *t, const struct rn_run_result *res)
{
	switch (t->status) {
	case RN_RUN_OK:
	case RN_RUN_CRASHED:
		break;
	case RN_RUN_INTERRUPTED:
		return rn_exit_for_signal(rn_run_interrupted());
	case RN_RUN_ERROR:
		return RN_EXIT_COLLECTOR;
	default:
		return RN_EXIT_TARGET;
	}
	if (WIFEXITED(res->root_status))
		return WEXITSTATUS(res->root_status);
	if (WIFSIGNALED(res->root_status))
		return 128 + WTERMSIG(res->root_status);
	return RN_EXIT_TARGET;
}

/* What of `o` only the ptrace driver gives, or NULL (see rn_driver_pref_resolve). */
static const char *needs_ptrace(const struct trace_opts *o)
{
	if (!o->summary_only)
		return "it gives counts only: per-call lines need ptrace (use -c)";
	if (o->expr)
		return "-e trace= needs ptrace";
	if (o->anti_patterns)
		return "--anti-patterns needs per-call spans (ptrace)";
	if (o->percentiles)
		return "--percentiles needs each call's duration (ptrace)";
	if (o->ninject)
		return "--inject tampers with calls at ptrace stops";
	if (o->profile)
		return "--profile needs each call's stack (ptrace)";
	return NULL;
}

/* --instructions: run CMD under cachegrind, print "pid instructions command" per process
 * image and the total to `out`. Returns the exit code. */
static int trace_instructions(const struct trace_opts *o, char **cmd, FILE *out)
{
	struct rn_run_spec spec;
	struct rn_cachegrind_result cg;
	struct rn_trace t;
	const struct rn_process *root;
	int rc, code = RN_EXIT_TARGET;
	size_t i;

	if (rn_cachegrind_unavailable()) {
		rn_error("renacer trace --instructions: %s", rn_cachegrind_unavailable());
		return RN_EXIT_COLLECTOR;
	}
	memset(&spec, 0, sizeof(spec));
	spec.name = cmd[0];
	spec.argv = cmd;
	spec.timeout_ns = o->timeout_ns;
	spec.flags = RN_RUN_FOLLOW_FORKS | RN_RUN_NO_PROPAGATE;
	rn_trace_init(&t);
	rc = rn_cachegrind_run(&spec, &t, &cg);
	if (!rc) {
		fprintf(out, "%10s %16s  %s\n", "pid", "instructions", "command");
		for (i = 0; i < cg.nprocs; i++)
			fprintf(out, "%10d %16llu  %s\n", (int)cg.procs[i].pid,
				(unsigned long long)cg.procs[i].instructions,
				cg.procs[i].cmd ? cg.procs[i].cmd : "?");
		fprintf(out, "%10s %16llu  (%zu process image%s)\n", "total",
			(unsigned long long)cg.total, cg.nprocs, cg.nprocs == 1 ? "" : "s");
	}
	root = t.nprocs ? &t.procs[0] : NULL;
	if (t.status == RN_RUN_INTERRUPTED)
		code = rn_run_interrupted() == SIGTERM ? RN_EXIT_SIGTERM : RN_EXIT_SIGINT;
	else if (t.status != RN_RUN_OK && t.status != RN_RUN_CRASHED)
		rn_error("%s", t.error ? t.error : "the Valgrind run failed");
	else if (root && root->end == RN_PROC_EXITED)
		code = root->exit_code;
	else if (root && root->end == RN_PROC_SIGNALED)
		code = 128 + root->term_signal;
	rn_cachegrind_result_release(&cg);
	rn_trace_release(&t);
	return code;
}

/* ---- the command, step by step: options, output, driver, run, report ---------------------- */

/* Parse the command line into `o`, the command into *cmd and -e trace= into *filter (NULL for
 * everything; the caller frees it). Returns -1 to go on, else the exit code to return now
 * (after --help, or after a usage error was printed). */
static int parse_args(int argc, char **argv, struct trace_opts *o, char ***cmd, bool **filter)
{
	int first;

	memset(o, 0, sizeof(*o));
	o->gpu_mode = RN_GPU_MODE_DISPATCH;
	o->profile_hz = RN_TRACE_PROFILE_HZ;
	*filter = NULL;
	if (rn_cli_parse(&rn_cmd_trace_def, argc, argv, on_option, o, &first))
		return RN_EXIT_USAGE;
	if (o->help) {
		rn_cli_help(&rn_cmd_trace_def, stdout);
		return RN_EXIT_OK;
	}
	if (o->npids) {
		if (first < argc) {
			rn_error("renacer trace: -p traces running processes: give no command too");
			return RN_EXIT_USAGE;
		}
		if (o->count_only || o->instructions || o->driver == RN_DRIVER_PREF_EBPF ||
		    o->collectors) {
			rn_error("renacer trace: -p attaches with ptrace: no --count-only, "
				 "--instructions, --driver ebpf or --collectors");
			return RN_EXIT_USAGE;
		}
		*cmd = NULL;
		o->follow = true; /* threads and new children are traced: lines say whose */
	} else if (first >= argc) {
		rn_error("renacer trace: no command given; usage: %s", rn_cmd_trace_def.usage);
		return RN_EXIT_USAGE;
	} else {
		*cmd = argv + first;
	}
	if (o->percentiles && o->count_only) {
		rn_error("renacer trace: --percentiles needs durations, which --count-only does "
			 "not measure");
		return RN_EXIT_USAGE;
	}
	if (o->summary && o->format == FMT_CSV && !o->output) {
		rn_error("renacer trace: -C --format csv writes two tables, one per file: give -o "
			 "FILE (the calls; the summary goes to FILE.summary.csv), or -c for the "
			 "summary alone");
		return RN_EXIT_USAGE;
	}
	if (o->expr && parse_expr(o->expr, filter))
		return RN_EXIT_USAGE;
	return -1;
}

/* Free what the options own (the --inject rules). */
static void trace_opts_release(struct trace_opts *o)
{
	for (size_t i = 0; i < o->ninject; i++)
		rn_inject_release(&o->inject[i]);
	free(o->inject);
	o->inject = NULL;
	o->ninject = 0;
	free(o->pids);
	o->pids = NULL;
	o->npids = 0;
}

/* Where the trace goes: stderr, or -o FILE. */
struct trace_dest {
	FILE *out;               /* the stream written to */
	struct rn_safefile file; /* -o of a regular file (or a new one): a safe temporary */
	bool safefile;           /* `file` is in use: committed or aborted at the end */
	bool opened; /* `out` was opened directly (a device or FIFO): closed at the end */
};

/* Open the destination of the trace. 0, or RN_EXIT_OUTPUT after an error naming `path`. */
static int dest_open(struct trace_dest *d, const char *path)
{
	struct stat st;
	int orc;

	memset(d, 0, sizeof(*d));
	d->out = stderr;
	if (!path)
		return 0;
	/* A file is written through a safe temporary and renamed into place at the end (a
	 * symlink there is refused); a device or FIFO the user named, directly or through a
	 * link (-o /dev/null, -o /dev/stdout), is written directly, as strace does. */
	if (stat(path, &st) || S_ISREG(st.st_mode)) {
		orc = rn_safefile_open(&d->file, path);
		if (!orc && !(d->out = rn_safefile_stream(&d->file))) {
			orc = -errno;
			rn_safefile_abort(&d->file);
		}
		if (orc) {
			rn_error("cannot write the trace to '%s': %s", path,
				 rn_safefile_strerror(orc));
			return RN_EXIT_OUTPUT;
		}
		d->safefile = true;
		return 0;
	}
	d->out = fopen(path, "we");
	if (!d->out) {
		rn_error("cannot open '%s' for writing: %s", path, strerror(errno));
		return RN_EXIT_OUTPUT;
	}
	d->opened = true;
	return 0;
}

/* Finish the destination: a safe temporary is renamed into place unless the trace could not
 * be written (`code` RN_EXIT_OUTPUT), in which case it is removed. Returns `code`, or
 * RN_EXIT_OUTPUT when the rename failed. */
static int dest_close(struct trace_dest *d, const char *path, int code)
{
	int crc;

	if (d->safefile) {
		crc = code == RN_EXIT_OUTPUT ? -EIO : rn_safefile_commit(&d->file);
		if (code == RN_EXIT_OUTPUT) {
			rn_safefile_abort(&d->file);
		} else if (crc) {
			rn_error("cannot write the trace to '%s': %s", path,
				 rn_safefile_strerror(crc));
			code = RN_EXIT_OUTPUT;
		}
	} else if (d->opened) {
		fclose(d->out);
	}
	return code;
}

/* --instructions: refuse the options that trace syscalls, else count instructions. Returns
 * the exit code. */
static int run_instructions(const struct trace_opts *o, char **cmd, FILE *out)
{
	if (o->summary || o->summary_only || o->expr || o->anti_patterns || o->ninject ||
	    o->format != FMT_TEXT) {
		rn_error("renacer trace: --instructions does not trace syscalls: it takes "
			 "no -c, -C, -e, --inject, --format or --anti-patterns");
		return RN_EXIT_USAGE;
	}
	return trace_instructions(o, cmd, out);
}

/* Choose who collects (--driver) into spec->collectors. Returns -1 to go on, else the exit
 * code after an error (--driver ebpf where it cannot be used). */
static int choose_collectors(const struct trace_opts *o, struct rn_run_spec *spec)
{
	const char *why;

	spec->collectors = rn_driver_pref_resolve(o->driver, needs_ptrace(o), &why);
	if (o->collectors) {
		/* --collectors: the GPU collectors named, with the syscall driver only when
		 * ptrace is among them */
		spec->collectors = (o->collectors & RN_COLLECT_PTRACE ? spec->collectors : 0) |
			(o->collectors & ~(uint32_t)RN_COLLECT_PTRACE);
		spec->gpu_mode = o->gpu_mode;
		for (const struct rn_collector_ops *const *c = rn_collectors; *c; c++) {
			const char *u = (*c)->unavailable ? (*c)->unavailable() : NULL;

			if ((rn_collector_mask_of((*c)->name) & o->collectors) && u) {
				rn_error("renacer trace: collector '%s' is not available: %s",
					 (*c)->name, u);
				return RN_EXIT_COLLECTOR;
			}
		}
	}
	if (why && o->driver == RN_DRIVER_PREF_EBPF) {
		rn_error("renacer trace: --driver ebpf cannot be used: %s", why);
		return needs_ptrace(o) ? RN_EXIT_USAGE : RN_EXIT_COLLECTOR;
	}
	if (why)
		rn_note("renacer trace: --driver auto uses ptrace: %s", why);
	return -1;
}

/* Register the sinks of the output format (the JSONL header is written now) and enable the
 * spool where the output replays every span. */
static void prepare_outputs(struct out_ctx *oc, struct rn_trace *t, char **cmd)
{
	const struct trace_opts *o = oc->o;
	struct rn_trace_sink sink;
	int rc;

	memset(&sink, 0, sizeof(sink));
	sink.ctx = oc;
	if (o->percentiles)
		rn_trace_latency_enable(t);
	if (o->format == FMT_TEXT && !o->summary_only) {
		sink.syscall = text_syscall;
		sink.process = text_process;
		rn_trace_add_sink(t, &sink);
	} else if (o->format == FMT_CSV && !o->summary_only) {
		rn_buf_reset(&oc->line);
		rn_csv_add_syscall_header(&oc->line);
		fwrite(oc->line.buf, 1, oc->line.len, oc->out);
		sink.syscall = csv_syscall;
		rn_trace_add_sink(t, &sink);
	} else if (o->format == FMT_JSONL) {
		rn_buf_adds(&oc->line, "{" RN_TJ_K(RN_TJ_TYPE) "\"" RN_TJ_TYPE_HEADER "\",");
		add_header_members(&oc->line, cmd);
		rn_buf_adds(&oc->line, "}\n");
		fwrite(oc->line.buf, 1, oc->line.len, oc->out);
		if (!o->summary_only)
			sink.syscall = jsonl_syscall;
		sink.process = jsonl_process;
		rn_trace_add_sink(t, &sink);
	}
	/* JSON output and the detectors both replay every span from the spool; spooled spans
	 * carry their callers' return addresses, which --source resolves. */
	if (o->source && (!o->summary_only || o->profile)) {
		oc->sym = rn_symbolizer_new();
		oc->src = rn_srcloc_new(o->debug_dirs);
	}
	if (o->profile) {
		oc->prof = rn_profile_new();
		rn_profile_attach(oc->prof, t, o->npids ? 0 : o->profile_hz);
	}
	if ((o->format == FMT_JSON && !o->summary_only) || o->anti_patterns || oc->src ||
	    oc->prof) {
		rc = rn_trace_spool_enable(t);
		if (rc)
			rn_warn("cannot create the span spool: %s; syscalls are left out",
				strerror(-rc));
	}
}

/* Where -C --format csv writes the summary: one table per file, the calls in -o FILE and the
 * summary in FILE.summary.csv. Caller frees. */
static char *summary_csv_path(const char *output)
{
	struct rn_buf b;

	rn_buf_init(&b, 0);
	rn_buf_addf(&b, "%s.summary.csv", output);
	return rn_buf_detach(&b, NULL);
}

/* The -C summary table into its own file, atomically. 0 or -1 after an error. */
static int write_summary_csv(const struct rn_trace *t, const char *output)
{
	char *path = summary_csv_path(output);
	struct rn_safefile sf;
	FILE *f = NULL;
	int rc;

	rc = rn_safefile_open(&sf, path);
	if (!rc && !(f = rn_safefile_stream(&sf))) {
		rc = -errno;
		rn_safefile_abort(&sf);
	}
	if (!rc) {
		rc = rn_trace_summary_csv(t, f);
		if (!rc && fflush(f))
			rc = -errno;
		if (rc)
			rn_safefile_abort(&sf);
		else
			rc = rn_safefile_commit(&sf);
	}
	if (rc)
		rn_error("cannot write the summary to '%s': %s", path, rn_safefile_strerror(rc));
	free(path);
	return rc ? -1 : 0;
}

/* After the run: the GPU span lines, the -c summaries (syscalls unless only GPU collectors ran:
 * `spec_collectors` is the run's enum rn_collector_mask) or the JSON end, the anti-patterns,
 * the run's error. Returns the exit code (CMD's, or RN_EXIT_OUTPUT when the trace could not be
 * written). */
static int report_run(struct out_ctx *oc, struct rn_trace *t, const struct rn_run_result *res,
		      char **cmd, uint32_t spec_collectors)
{
	const struct trace_opts *o = oc->o;
	bool summary_failed = false;
	int code;

	if (o->format == FMT_TEXT) {
		bool syscalls = !o->collectors ||
			(spec_collectors &
			 ~(uint32_t)(RN_COLLECT_CUDA | RN_COLLECT_VULKAN | RN_COLLECT_APP));

		/* GPU spans arrive at the collectors' finish: their lines follow the run's */
		if (!o->summary_only && t->ngpu)
			rn_trace_gpu_lines(t, oc->out);
		/* and so do the program's own spans */
		if (!o->summary_only && t->napp)
			rn_trace_app_lines(t, oc->out);
		/* a command that could not be executed has no summary, only its error */
		if ((o->summary_only || o->summary) && t->status != RN_RUN_EXEC_FAILED) {
			if (syscalls)
				rn_trace_summary_write(t, oc->out);
			if (o->collectors & (RN_COLLECT_CUDA | RN_COLLECT_VULKAN)) {
				if (syscalls)
					fputc('\n', oc->out);
				rn_trace_gpu_summary(t, oc->out);
			}
		}
	} else if (o->format == FMT_CSV) {
		/* one table per file: with -C the summary has its own (summary_csv_path) */
		if (o->summary_only && t->status != RN_RUN_EXEC_FAILED)
			rn_trace_summary_csv(t, oc->out);
		else if (o->summary && t->status != RN_RUN_EXEC_FAILED &&
			 write_summary_csv(t, o->output))
			summary_failed = true;
	} else {
		write_json_end(oc, t, cmd);
	}
	if (o->anti_patterns && t->status != RN_RUN_EXEC_FAILED) {
		/* Detections from confidence 0.5 on; weaker ones are listed on one line. */
		fputc('\n', oc->out);
		rn_antipattern_report_all(t, NULL, 0.5, oc->out);
	}
	code = exit_code(t, res);
	if (t->status != RN_RUN_OK && t->status != RN_RUN_CRASHED && t->error)
		rn_error("%s", t->error);
	if (fflush(oc->out) || ferror(oc->out)) {
		rn_error("cannot write the trace to '%s': %s", o->output ? o->output : "stderr",
			 strerror(errno));
		code = RN_EXIT_OUTPUT;
	}
	if (summary_failed)
		code = RN_EXIT_OUTPUT;
	return code;
}

/* One --profile output: PREFIX.NAME.folded and PREFIX.NAME.svg. 0 or -1 after an error. */
static int write_profile(const char *prefix, struct rn_profile *p, const struct rn_trace *t,
			 struct rn_srcloc *src, enum rn_profile_kind kind, const char *name,
			 const char *title, const char *unit)
{
	char *text = NULL, path[4096];
	size_t len = 0;
	struct rn_safefile sf;
	FILE *mem = open_memstream(&text, &len), *in;
	int rc;

	if (!mem)
		return rn_error("--profile: %s", strerror(errno));
	rn_profile_write_folded(p, t, kind, src, mem);
	fclose(mem);
	for (int svg = 0; svg < 2; svg++) {
		snprintf(path, sizeof(path), "%s.%s.%s", prefix, name, svg ? "svg" : "folded");
		rc = rn_safefile_open(&sf, path);
		if (rc) {
			free(text);
			return rn_error("cannot write '%s': %s", path, rn_safefile_strerror(rc));
		}
		if (!svg) {
			rc = rn_safefile_write(&sf, text, len);
		} else {
			in = fmemopen(text, len ? len : 1, "r");
			rc = in ?
				rn_flamegraph_svg(in, rn_safefile_stream(&sf), title, unit, NULL) :
				-errno;
			if (in)
				fclose(in);
		}
		rc = rc ? rc : rn_safefile_commit(&sf);
		if (rc) {
			rn_safefile_abort(&sf);
			free(text);
			return rn_error("cannot write '%s': %s", path, rn_safefile_strerror(rc));
		}
	}
	free(text);
	return 0;
}

/* --profile after the run: both profiles, and a note of what was sampled. Returns the exit
 * code, RN_EXIT_OUTPUT when a file could not be written. */
static int report_profile(struct out_ctx *oc, const struct rn_trace *t, int code)
{
	const char *prefix = oc->o->profile;
	char note[320], title[400];
	bool thin;

	rn_profile_sample_stop(oc->prof);
	/* thin coverage is said on the flame graph itself, not only on the console */
	thin = !oc->o->npids && rn_profile_coverage_note(oc->prof, t, note, sizeof(note));
	snprintf(title, sizeof(title), "On-CPU samples%s%s", thin ? " - THIN COVERAGE: " : "",
		 thin ? note : "");
	if (write_profile(prefix, oc->prof, t, oc->src, RN_PROFILE_SYSCALLS, "syscalls",
			  "Syscall time by call stack", "ns") ||
	    write_profile(prefix, oc->prof, t, oc->src, RN_PROFILE_CPU, "cpu", title, "samples"))
		return RN_EXIT_OUTPUT;
	if (thin)
		rn_warn("--profile: thin on-CPU profile: %s", note);
	if (*rn_profile_sampling_error(oc->prof))
		rn_warn("--profile: no on-CPU samples: %s", rn_profile_sampling_error(oc->prof));
	else if (oc->o->profile_hz && !oc->o->npids)
		rn_note("--profile: %llu samples at %u Hz (%llu lost); %s.cpu.svg, "
			"%s.syscalls.svg",
			(unsigned long long)rn_profile_samples(oc->prof), oc->o->profile_hz,
			(unsigned long long)rn_profile_lost(oc->prof), prefix, prefix);
	return code;
}

/* Trace the syscalls of `cmd` (only those of `filter`, borrowed, when not NULL) into `out`.
 * Returns the exit code. */
static int trace_syscalls(const struct trace_opts *o, char **cmd, bool *filter, FILE *out)
{
	struct rn_run_spec spec;
	struct rn_run_result res;
	struct rn_trace t;
	struct out_ctx oc;
	int code;

	memset(&spec, 0, sizeof(spec));
	code = choose_collectors(o, &spec);
	if (code >= 0)
		return code;
	if (o->profile) {
		/* the profile's folder must take files before the run, not after it */
		char *dir = rn_xstrdup(o->profile), *slash = strrchr(dir, '/');

		if (slash)
			*(slash == dir ? slash + 1 : slash) = '\0';
		if (access(slash ? dir : ".", W_OK | X_OK)) {
			rn_error("cannot write the profile '%s.*': %s: %s", o->profile,
				 slash ? dir : ".", strerror(errno));
			free(dir);
			return RN_EXIT_OUTPUT;
		}
		free(dir);
	}
	spec.name = cmd ? cmd[0] : "attached";
	spec.argv = cmd;
	spec.attach = o->pids;
	spec.nattach = o->npids;
	spec.flags = (o->follow ? RN_RUN_FOLLOW_FORKS : 0) | (o->no_pin ? 0 : RN_RUN_PIN_CPU) |
		(o->count_only ? RN_RUN_COUNT_ONLY : 0) | RN_RUN_NO_PROPAGATE;
	spec.timeout_ns = o->timeout_ns;
	spec.syscall_filter = filter;
	spec.inject = o->inject;
	spec.ninject = o->ninject;

	memset(&oc, 0, sizeof(oc));
	oc.o = o;
	oc.out = out;
	rn_buf_init(&oc.line, 0);
	rn_trace_init(&t);
	prepare_outputs(&oc, &t, cmd);
	/* A run that fails says why in t.status and t.error, which report_run() reads. */
	rn_run_target(&spec, &t, &res);
	code = report_run(&oc, &t, &res, cmd, spec.collectors);
	if (oc.prof)
		code = report_profile(&oc, &t, code);
	rn_run_result_release(&res);
	rn_trace_release(&t);
	rn_buf_release(&oc.line);
	rn_srcloc_free(oc.src);
	rn_symbolizer_free(oc.sym);
	rn_profile_free(oc.prof);
	return code;
}

int rn_cmd_trace(int argc, char **argv)
{
	struct trace_opts o;
	struct trace_dest dest;
	bool *filter = NULL;
	char **cmd = NULL;
	int code;

	code = parse_args(argc, argv, &o, &cmd, &filter);
	if (code >= 0) {
		free(filter);
		trace_opts_release(&o);
		return code;
	}
	/* the first SIGINT/SIGTERM ends the trace with its exit code, in a run or not */
	rn_run_catch_signals();
	code = dest_open(&dest, o.output);
	if (code) {
		free(filter);
		trace_opts_release(&o);
		return code;
	}
	if (o.instructions)
		code = run_instructions(&o, cmd, dest.out);
	else
		code = trace_syscalls(&o, cmd, filter, dest.out);
	code = dest_close(&dest, o.output, code);
	/* -p: SIGINT/SIGTERM is how an attached trace ends (it detaches), not an interruption */
	if (rn_run_interrupted() && !o.npids && code != RN_EXIT_OUTPUT)
		code = rn_exit_for_signal(rn_run_interrupted());
	free(filter);
	trace_opts_release(&o);
	return code;
}
