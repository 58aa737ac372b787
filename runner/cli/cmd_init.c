/*
 * cmd_init.c - `renacer init [-- CMD ARGS]`: a first gate in one command. It measures the
 * command, writes a commented renacer.toml with budgets that state their headroom, records
 * the golden trace, and prints the next three commands (see cmd_init.h).
 */
#include "cmd_init.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "cmd_golden.h"
#include "collector.h"
#include "config.h"
#include "exitcode.h"
#include "golden.h"
#include "log.h"
#include "init_detect.h"
#include "safefile.h"
#include "utf8.h"
#include "xalloc.h"

/* Without --runs and --headroom: the timing runs written into the config, and the critical
 * path budget over the measured median, percent. */
#define RN_INIT_RUNS 5
#define RN_INIT_HEADROOM_PCT 100

enum {
	OPT_CONFIG = 'c',
	OPT_NAME = 'n',
	OPT_HELP = 'h',
	OPT_RUNS = 256,
	OPT_HEADROOM,
	OPT_EQUIVALENCE,
};

static const struct rn_option init_options[] = {
	{ OPT_CONFIG, "config", 'c', RN_OPT_REQUIRED, "FILE",
	  "config to write (default renacer.toml); never overwritten" },
	{ OPT_NAME, "name", 'n', RN_OPT_REQUIRED, "NAME",
	  "target name (default: the command's file name; for sh -c SCRIPT, the program the "
	  "script runs)" },
	{ OPT_RUNS, "runs", 0, RN_OPT_REQUIRED, "N",
	  "timing runs of the target in the config (default " RN_CFG_STR(
		  RN_INIT_RUNS) "; the golden trace records " RN_CFG_STR(RN_GOLDEN_RUNS_DEFAULT) ")" },
	{ OPT_HEADROOM, "headroom", 0, RN_OPT_REQUIRED, "PCT",
	  "critical path budget over the measured median, percent (default " RN_CFG_STR(
		  RN_INIT_HEADROOM_PCT) ")" },
	{ OPT_EQUIVALENCE, "equivalence", 0, RN_OPT_NONE, NULL,
	  "also gate the behaviour: an equivalence assertion and its recorded trace" },
	{ OPT_HELP, "help", 'h', RN_OPT_NONE, NULL, "show this help" },
	{ 0, NULL, 0, RN_OPT_NONE, NULL, NULL },
};

const struct rn_command rn_cmd_init_def = {
	"init",
	"renacer init [--config FILE] [--name NAME] [--runs N] [--headroom PCT] [--equivalence] [-- CMD [ARGS...]]",
	"write a commented renacer.toml for a command, measure it, record its golden trace",
	"Without -- CMD, first looks at the project in the config's folder: a CMake project whose\n"
	"targets link Google Benchmark (and its ctest suite), pytest-benchmark tests, a Cargo\n"
	"project with criterion benches or a Go module with benchmarks and tests becomes harness\n"
	"[[target]] and [[suite]] tables (docs/harness.md), written without measuring. Else asks\n"
	"for the command on a terminal. Runs the command as `renacer golden\n"
	"update` would (warm-up-free timing runs and one counting run), records\n"
	"golden_traces/<name>.json beside the config, and writes the config with three budgets\n"
	"from what it measured, each with its headroom in a comment: the critical path (median\n"
	"times 1 + --headroom/100, at least median + 50 ms), the peak RSS (+50%) and the syscalls\n"
	"of one run (+25%, at\n"
	"least 10 more). The config is written atomically and never replaces an existing file\n"
	"(exit 2). With --equivalence the config also has an equivalence assertion, and its\n"
	"behaviour trace is recorded in golden_traces/behaviour/<name>.jsonl. Prints the next three\n"
	"commands: the gate, the commit, the CI workflow.",
	init_options,
};

struct init_opts {
	const char *config;
	const char *name;
	long runs;
	double headroom;  /* fraction */
	bool equivalence; /* --equivalence */
	bool help;
};

static int on_option(void *ctx, int id, const char *arg)
{
	struct init_opts *o = ctx;
	char *end;

	switch (id) {
	case OPT_CONFIG:
		o->config = arg;
		break;
	case OPT_NAME:
		o->name = arg;
		break;
	case OPT_RUNS:
		errno = 0;
		o->runs = strtol(arg, &end, 10);
		if (errno || *end || end == arg || o->runs < 1 || o->runs > 1000)
			return rn_error("renacer init: --runs wants a count in 1..1000, not '%s'",
					arg);
		break;
	case OPT_HEADROOM:
		errno = 0;
		o->headroom = strtod(arg, &end) / 100.0;
		if (errno || *end || end == arg || !(o->headroom >= 0 && o->headroom <= 100))
			return rn_error("renacer init: --headroom wants a percentage in 0..10000, "
					"not '%s'",
					arg);
		break;
	case OPT_EQUIVALENCE:
		o->equivalence = true;
		break;
	case OPT_HELP:
		o->help = true;
		break;
	default:
		return -1;
	}
	return 0;
}

/* A TOML basic string (quotes included) of `s`: ", \ and control characters escaped. */
static void add_toml_string(struct rn_buf *b, const char *s)
{
	rn_buf_addc(b, '"');
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			rn_buf_addf(b, "\\%c", ch);
		else if (ch < 0x20 || ch == 0x7f)
			rn_buf_addf(b, "\\u%04x", ch);
		else
			rn_buf_addc(b, (char)ch);
	}
	rn_buf_addc(b, '"');
}

/* The target name for `argv0`: its file name with anything outside [A-Za-z0-9_.-] as '_'. */
static char *name_of(const char *argv0)
{
	const char *base = strrchr(argv0, '/');
	char *name, *p;

	name = rn_xstrdup(base && base[1] ? base + 1 : argv0);
	for (p = name; *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-",
			    *p))
			*p = '_';
	if (!*name) {
		free(name);
		name = rn_xstrdup("app");
	}
	return name;
}

/* Whether `argv0` names a POSIX shell (sh, bash, dash, zsh, ksh), by its file name. */
static bool is_shell(const char *argv0)
{
	static const char *const shells[] = { "sh", "bash", "dash", "zsh", "ksh", "mksh" };
	const char *base = strrchr(argv0, '/');

	base = base ? base + 1 : argv0;
	for (size_t i = 0; i < sizeof(shells) / sizeof(shells[0]); i++)
		if (!strcmp(base, shells[i]))
			return true;
	return false;
}

/* The program word of the simple command at `p` (past `env`, `time`, `nice`, `exec`,
 * `command` and VAR=value assignments): its start, its length in *len (0 when the command
 * has none). Words end at blanks and shell operators; no quoting is interpreted. */
static const char *command_word(const char *p, size_t *len)
{
	static const char *const skip[] = { "exec", "env", "time", "nice", "command" };

	for (;;) {
		bool skipped = false;

		p += strspn(p, " \t\n");
		*len = strcspn(p, " \t\n;&|<>()'\"`$");
		if (!*len)
			return p;
		for (size_t i = 0; i < sizeof(skip) / sizeof(skip[0]); i++)
			if (strlen(skip[i]) == *len && !strncmp(p, skip[i], *len))
				skipped = true;
		if (!skipped && !memchr(p, '=', *len))
			return p;
		p += *len;
	}
}

/* Whether the command word `w` (`len` bytes) only prepares or feeds the work: file
 * housekeeping, shell builtins and `cat` in front of a pipe. */
static bool is_housekeeping(const char *w, size_t len)
{
	static const char *const words[] = { "rm",   "mkdir",  "cp",     "mv",   "ln",    "touch",
					     "cd",   "echo",   "printf", "true", ":",     "test",
					     "[",    "export", "set",    "cat",  "sleep", "chmod",
					     "sync", "umask",  "unset",  "trap", "wait",  "read" };
	const char *base = memrchr(w, '/', len);

	if (base) {
		len -= (size_t)(base + 1 - w);
		w = base + 1;
	}
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strlen(words[i]) == len && !strncmp(w, words[i], len))
			return true;
	return false;
}

/*
 * The program a shell command line `script` runs, owned, or NULL when none is found: the
 * word after its last `exec`, else the first program of its simple commands (split at `;`,
 * `&`, `|` and newlines) that is not housekeeping (is_housekeeping: rm, mkdir, cd, cat, ...),
 * else its first program ("rm -f db && exec mdb_load -f dump" and "rm -f db && sqlite3 db <
 * x.sql" give "mdb_load" and "sqlite3"; "cat x | zstd -12 > y" gives "zstd"). No quoting is
 * interpreted.
 */
static char *script_program(const char *script)
{
	const char *p = script, *last_exec = NULL, *w, *first = NULL;
	size_t len, first_len = 0;

	for (w = script; (w = strstr(w, "exec")); w += 4)
		if ((w == script || strchr(" \t\n;&|(", w[-1])) && (w[4] == ' ' || w[4] == '\t'))
			last_exec = w;
	if (last_exec) {
		w = command_word(last_exec, &len);
		return len ? rn_xstrndup(w, len) : NULL;
	}
	while (*p) {
		w = command_word(p, &len);
		if (len && !first) {
			first = w;
			first_len = len;
		}
		if (len && !is_housekeeping(w, len))
			return rn_xstrndup(w, len);
		/* the next simple command */
		p = w + len + strcspn(w + len, ";&|\n");
		p += strspn(p, ";&|\n");
	}
	return first ? rn_xstrndup(first, first_len) : NULL;
}

static bool valid_name(const char *s)
{
	return *s &&
		strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") ==
		strlen(s);
}

/* Ask for the command on a terminal: one line, split at blanks (no shell). NULL-terminated
 * owned array of owned strings, or NULL when nothing was given. */
static char **ask_command(void)
{
	char line[4096], **argv = NULL, *tok, *save = NULL;
	size_t n = 0;

	fputs("renacer init: the command to gate, as you would type it (no shell quoting): ",
	      stderr);
	fflush(stderr);
	if (!fgets(line, sizeof(line), stdin))
		return NULL;
	for (tok = strtok_r(line, " \t\r\n", &save); tok; tok = strtok_r(NULL, " \t\r\n", &save)) {
		argv = rn_xrealloc(argv, (n + 2) * sizeof(*argv));
		argv[n++] = rn_xstrdup(tok);
		argv[n] = NULL;
	}
	return argv;
}

/* The config's directory (for the temporary measuring config and golden_traces/). */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return rn_xstrdup(".");
	if (slash == path)
		return rn_xstrdup("/");
	return rn_xstrndup(path, (size_t)(slash - path));
}

/* The [[target]] table shared by the measuring and the final config. */
static void add_target(struct rn_buf *b, const char *name, char *const *argv, long runs)
{
	size_t i;

	rn_buf_adds(b, "[[target]]\nname = ");
	add_toml_string(b, name);
	rn_buf_adds(b, "\ncommand = [");
	for (i = 0; argv[i]; i++) {
		if (i)
			rn_buf_adds(b, ", ");
		add_toml_string(b, argv[i]);
	}
	rn_buf_addf(b,
		    "]   # argv, no shell; argv[0] is searched in PATH\n"
		    "runs = %ld                 # timing runs per check: times are judged from 5 "
		    "on\n"
		    "counting_runs = 1          # one run stopped at every syscall: exact counts\n"
		    "warmup = 1                 # one unmeasured run first (page cache, loader)\n",
		    runs);
}

/* --equivalence: the assertion and [semantic_equivalence] that golden update records. */
static void add_equivalence(struct rn_buf *b, const char *name)
{
	rn_buf_addf(b,
		    "\n[[assertion]]\nname = \"%s_behaviour\"\ntype = \"equivalence\"\n"
		    "# the run must do what the recorded trace did: programs run, files written, "
		    "endpoints,\n# exit statuses (`renacer golden update` re-records it)\n"
		    "targets = [",
		    name);
	add_toml_string(b, name);
	rn_buf_adds(b,
		    "]\n\n[semantic_equivalence]\nenabled = true\n"
		    "baseline_dir = \"golden_traces/behaviour\"   # <target>.jsonl\n");
}

/* Median of golden metric `m`, in its unit; NAN without samples. */
static double golden_median(const struct rn_golden *g, enum rn_metric m)
{
	if (!g->samples[m] || !g->nsamples[m])
		return NAN;
	return rn_aggregate(g->samples[m], g->nsamples[m], RN_AGG_MEDIAN);
}

/* Round `v` up to 3 significant digits (a budget reads better as 2.35 than 2.3417). */
static double round_up3(double v)
{
	double scale;

	if (!(v > 0))
		return 0;
	scale = pow(10.0, floor(log10(v)) - 2.0);
	return ceil(v / scale) * scale;
}

/* Least headroom of the critical path budget over the measured median, ms. */
#define CP_FLOOR_MS 50.0

/* The final config: target, three budgets with their headroom, [golden], [report]. */
static void compose(struct rn_buf *b, const struct init_opts *o, const char *name,
		    char *const *argv, const struct rn_golden *g)
{
	double cp = golden_median(g, RN_METRIC_CRITICAL_PATH) / 1e6,
	       rss = golden_median(g, RN_METRIC_PEAK_RSS),
	       sc = golden_median(g, RN_METRIC_SYSCALLS);
	/* A short program's time is mostly scheduling on a shared CI machine: the budget keeps
	 * at least CP_FLOOR_MS over the median, so a loaded runner does not fail it. */
	double cp_budget = round_up3(fmax(cp * (1.0 + o->headroom), cp + CP_FLOOR_MS));
	double rss_budget = ceil(rss * 1.5 / 65536.0) * 65536.0;
	double sc_budget = ceil(fmax(sc * 1.25, sc + 10));

	rn_buf_adds(b, "# renacer.toml - written by `renacer init`: a first performance gate for ");
	add_toml_string(b, name);
	rn_buf_adds(b,
		    ".\n# Every key is explained in `renacer help config`; renacer.toml.example "
		    "(installed in\n# share/doc/renacer/) shows them all. `renacer validate` "
		    "checks this file.\n"
		    "#\n# The budgets below come from what `renacer init` measured on this machine "
		    "(median of\n");
	rn_buf_addf(b,
		    "# %zu timing runs and %zu counting run%s), with the headroom each comment "
		    "states: a\n# budget is a ceiling that catches gross regressions; the golden "
		    "trace catches the\n# small ones (counts exactly, times by a rank test against "
		    "the recorded runs).\n# Budgets are kept by hand: `renacer golden update` "
		    "names any the new runs exceed\n# (raise it there if the change is intended). "
		    "A time budget fails only when the runs\n# show it exceeded beyond their noise "
		    "(with 5 runs: all 5 over it) and, on a loaded\n# machine, their CPU time alone "
		    "beyond it by [regression] drift_limit (+50%%).\n\n",
		    g->nruns, g->ncounting_runs, g->ncounting_runs == 1 ? "" : "s");
	add_target(b, name, argv, o->runs);
	rn_buf_addf(b,
		    "\n[[assertion]]\nname = \"%s_critical_path\"\ntype = \"critical_path\"\n"
		    "# measured: median %.3f ms; budget = median x %.2f (%.0f%% headroom: CI "
		    "machines are\n# slower and noisier than a workstation), at least median + "
		    "%g ms\n"
		    "max_duration_ms = %g\naggregate = \"median\"\ntargets = [",
		    name, cp, 1.0 + o->headroom, o->headroom * 100.0, CP_FLOOR_MS, cp_budget);
	add_toml_string(b, name);
	rn_buf_addf(b,
		    "]\n\n[[assertion]]\nname = \"%s_memory\"\ntype = \"memory_usage\"\n"
		    "# measured: peak RSS %.0f bytes (%.1f MiB); budget = +50%%, rounded up to "
		    "64 KiB\nmax_bytes = %.0f\ntracking_mode = \"rss\"\ntargets = [",
		    name, rss, rss / 1048576.0, rss_budget);
	add_toml_string(b, name);
	rn_buf_addf(b,
		    "]\n\n[[assertion]]\nname = \"%s_syscalls\"\ntype = \"span_count\"\n"
		    "# measured: %.0f syscalls in one run; budget = +25%% (at least 10 more): "
		    "exact counts,\n# so growth here is new work, not noise\n"
		    "span_name_pattern = \".*\"\nmax_spans = %.0f\ntargets = [",
		    name, sc, sc_budget);
	add_toml_string(b, name);
	rn_buf_adds(b, "]\n");
	if (o->equivalence)
		add_equivalence(b, name);
	rn_buf_adds(b,
		    "\n[golden]\n# golden_traces/<target>.json, recorded by `renacer golden "
		    "update` (renacer init\n# recorded the first one); `renacer check` compares "
		    "every run with it.\ndir = \"golden_traces\"\n\n[report]\n"
		    "junit = \"renacer-junit.xml\"   # JUnit XML for CI test reporters\n");
}

/* The example workflow beside this renacer: share/renacer/ci/examples/renacer.yml of its
 * prefix (installed), else ci/examples/renacer.yml of the source tree whose build directory
 * holds it (build/renacer, as the README builds it); else a placeholder. Owned. */
static char *workflow_example(void)
{
	static const char *const beside[] = { "../share/renacer/ci/examples/renacer.yml",
					      "../ci/examples/renacer.yml" };
	char exe[4096], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	size_t i;

	if (n <= 0)
		return rn_xstrdup("RENACER_SOURCE/ci/examples/renacer.yml");
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	for (i = 0; slash && i < sizeof(beside) / sizeof(beside[0]); i++) {
		struct rn_buf p;
		char *real;

		rn_buf_init(&p, 0);
		rn_buf_addf(&p, "%s/%s", exe, beside[i]);
		real = access(p.buf, R_OK) ? NULL : realpath(p.buf, NULL);
		rn_buf_release(&p);
		if (real)
			return real;
	}
	return rn_xstrdup("RENACER_SOURCE/ci/examples/renacer.yml");
}

/* Write `text` to `path` atomically, never over an existing file. 0 or an exit code. */
static int write_new(const char *path, const struct rn_buf *text)
{
	struct rn_safefile sf;
	int rc = rn_safefile_open(&sf, path);

	if (!rc)
		rc = rn_safefile_write(&sf, text->buf, text->len);
	if (!rc)
		rc = rn_safefile_commit_new(&sf);
	else
		rn_safefile_abort(&sf);
	if (rc == -EEXIST) {
		rn_error("renacer init: '%s' exists (created while measuring?); it was left as it "
			 "is",
			 path);
		return RN_EXIT_USAGE;
	}
	if (rc) {
		rn_error("renacer init: cannot write '%s': %s", path, rn_safefile_strerror(rc));
		return RN_EXIT_OUTPUT;
	}
	return 0;
}

/*
 * What init adds to the directory, so that a failure or a signal before the config is written
 * takes it all back out: init either completes or leaves the directory as it was.
 */
struct init_undo {
	char *tmp_config;       /* the measuring config, or NULL before it is written */
	char *golden_dir;       /* golden_traces beside the config */
	char *golden;           /* golden_traces/<name>.json */
	char *behaviour_dir;    /* golden_traces/behaviour (--equivalence), or NULL */
	char *behaviour;        /* golden_traces/behaviour/<name>.jsonl, or NULL */
	bool had_golden_dir;    /* golden_dir was there before */
	bool had_behaviour_dir; /* behaviour_dir was there before */
};

static void undo_release(struct init_undo *u)
{
	free(u->tmp_config);
	free(u->golden_dir);
	free(u->golden);
	free(u->behaviour_dir);
	free(u->behaviour);
}

/* Remove what init added (files it created, directories it made, if they are empty). */
static void undo_apply(const struct init_undo *u)
{
	if (u->tmp_config)
		unlink(u->tmp_config);
	unlink(u->golden);
	if (u->behaviour)
		unlink(u->behaviour);
	if (u->behaviour_dir && !u->had_behaviour_dir)
		rmdir(u->behaviour_dir);
	if (!u->had_golden_dir)
		rmdir(u->golden_dir);
}

/* Without a command: the harnesses and suites the project in the config's folder already has,
 * written as its config (init_detect.h); nothing is measured, since their lists need the
 * project built. Returns an exit code, or -1 when nothing was recognised. */
static int init_from_project(const struct init_opts *o)
{
	char *dir = dir_of(o->config);
	struct rn_buf text;
	size_t n;
	int rc;

	rn_buf_init(&text, 0);
	rn_buf_adds(&text,
		    "# renacer.toml written by renacer init from the project's own "
		    "benchmarks and tests (docs/harness.md)\n\n");
	n = rn_init_detect(dir, &text);
	if (!n) {
		rn_buf_release(&text);
		free(dir);
		return -1;
	}
	rn_buf_adds(&text, "[golden]\ndir = \"golden_traces\"\n");
	rc = write_new(o->config, &text);
	if (!rc) {
		const char *cf = strcmp(o->config, "renacer.toml") ? " --config " : "";
		const char *cp = *cf ? o->config : "";

		fprintf(stderr,
			"wrote %s: %zu harness table%s from the project's files\n\n"
			"next:\n"
			"  renacer check --build%s%s   # build, list and run each benchmark and test\n"
			"  renacer golden update%s%s   # record their golden traces\n",
			o->config, n, n == 1 ? "" : "s", cf, cp, cf, cp);
	}
	rn_buf_release(&text);
	free(dir);
	return rc;
}

/* Step 0 of init: what it will add (u), each never over something that is there. 0, or an
 * exit code when the golden trace or the behaviour file exists. */
static int plan_undo(struct init_undo *u, const struct init_opts *o, const char *golden_dir,
		     const char *golden_path, const char *name)
{
	u->golden_dir = rn_xstrdup(golden_dir);
	u->golden = rn_xstrdup(golden_path);
	u->had_golden_dir = !access(golden_dir, F_OK);
	if (o->equivalence) {
		struct rn_buf b;

		rn_buf_init(&b, 0);
		rn_buf_addf(&b, "%s/behaviour", golden_dir);
		u->behaviour_dir = rn_buf_detach(&b, NULL);
		rn_buf_init(&b, 0);
		rn_buf_addf(&b, "%s/%s.jsonl", u->behaviour_dir, name);
		u->behaviour = rn_buf_detach(&b, NULL);
		u->had_behaviour_dir = !access(u->behaviour_dir, F_OK);
	}
	if (!access(u->golden, F_OK) || (u->behaviour && !access(u->behaviour, F_OK))) {
		rn_error("renacer init: '%s' exists; init never overwrites a golden trace (give "
			 "--name NEW, or record it with `renacer golden update`)",
			 !access(u->golden, F_OK) ? u->golden : u->behaviour);
		return RN_EXIT_USAGE;
	}
	return 0;
}

/* Step 1 of init: a measuring config (the target alone) beside the final one, and golden
 * update on it: the runs, the golden trace, the numbers for the budgets. 0 or an exit code;
 * the measuring config is removed either way. */
static int measure(const struct init_opts *o, const char *dir, const char *name, char **cmd,
		   struct init_undo *u)
{
	struct rn_buf text, tmp_path;
	int rc;

	rn_buf_init(&text, 0);
	rn_buf_init(&tmp_path, 0);
	rn_buf_addf(&tmp_path, "%s/.renacer-init-%ld.toml", dir, (long)getpid());
	rn_buf_adds(&text, "# renacer init: measuring (removed when done)\n");
	add_target(&text, name, cmd, o->runs);
	if (o->equivalence)
		add_equivalence(&text, name);
	rn_buf_adds(&text, "[golden]\ndir = \"golden_traces\"\n");
	rc = write_new(tmp_path.buf, &text);
	if (rc)
		goto out;
	u->tmp_config = rn_xstrdup(tmp_path.buf);
	fprintf(stderr, "renacer init: measuring '%s' (%s) and recording its golden trace\n", name,
		cmd[0]);
	{
		char a0[] = "golden", a1[] = "update", a2[] = "--config";
		char *gargv[] = { a0, a1, a2, tmp_path.buf, NULL };

		rc = rn_cmd_golden(4, gargv);
	}
	unlink(tmp_path.buf);
	if (rc)
		rn_error("renacer init: measuring '%s' failed (exit %d); no config written", name,
			 rc);
out:
	rn_buf_release(&tmp_path);
	rn_buf_release(&text);
	return rc;
}

/* Step 2 of init: the numbers, from the golden trace just written into g. 0 or an exit code. */
static int read_numbers(const char *golden_path, struct rn_golden *g)
{
	struct rn_diag d;

	rn_diag_init(&d, golden_path, NULL, 0);
	if (rn_golden_read(golden_path, g, &d)) {
		rn_diag_print(&d, false);
		return RN_EXIT_CONFIG;
	}
	if (isnan(golden_median(g, RN_METRIC_CRITICAL_PATH)) ||
	    isnan(golden_median(g, RN_METRIC_PEAK_RSS)) ||
	    isnan(golden_median(g, RN_METRIC_SYSCALLS))) {
		rn_error("renacer init: '%s' lacks a critical path, peak RSS or syscall count; "
			 "no config written",
			 golden_path);
		return RN_EXIT_CONFIG;
	}
	return 0;
}

/* What to do after init wrote the config of target `name` beside golden_traces in `dir`. */
static void print_next(const struct init_opts *o, const char *name, const char *dir)
{
	char *example = workflow_example();

	fprintf(stderr,
		"\nwrote %s: target '%s' with critical path, memory and syscall budgets\n\n"
		"next:\n"
		"  renacer check%s%s   # the gate, here: it should pass\n"
		"  printf '.renacer/\\nrenacer-junit.xml\\n' >> .gitignore   # what a check writes\n"
		"  git add %s %s%s && git commit -m 'renacer: first performance gate'\n"
		"  cp %s .github/workflows/renacer.yml\n",
		o->config, name, strcmp(o->config, "renacer.toml") ? " --config " : "",
		strcmp(o->config, "renacer.toml") ? o->config : "", o->config,
		strcmp(dir, ".") ? dir : "", strcmp(dir, ".") ? "/golden_traces" : "golden_traces",
		example);
	free(example);
}

/* The target's command: the arguments after the options, else asked on a terminal into
 * *asked (a NULL-terminated array the caller frees with free_argv), else NULL. */
static char **command_of(int argc, char **argv, int first, char ***asked)
{
	if (first < argc)
		return argv + first;
	if (isatty(0) && isatty(2)) {
		*asked = ask_command();
		return *asked;
	}
	return NULL;
}

static void free_argv(char **v)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; v[i]; i++)
		free(v[i]);
	free(v);
}

/* Whether every argument of `cmd` is UTF-8, which TOML strings must be (TOML v1.0.0,
 * "Strings"); says which one is not. */
static bool command_is_utf8(char **cmd)
{
	for (size_t i = 0; cmd[i]; i++) {
		if (!rn_utf8_valid(cmd[i])) {
			rn_error("renacer init: command argument %zu is not valid UTF-8, which a "
				 "renacer.toml string cannot hold; run it from a script and give "
				 "init the script",
				 i + 1);
			return false;
		}
	}
	return true;
}

/* The target's name for `cmd` (--name, or the base name of the program it runs: a shell's
 * `-c` script names the program it runs, script_program), owned, or NULL when the command or
 * the name cannot go into a config (said on stderr). */
static char *target_name_of(const struct init_opts *o, char **cmd)
{
	char *name;

	if (!command_is_utf8(cmd))
		return NULL;
	if (o->name) {
		name = rn_xstrdup(o->name);
	} else {
		/* `sh -c 'zstd -12 data > out'` is a zstd gate, not a shell's */
		char *prog = is_shell(cmd[0]) && cmd[1] && !strcmp(cmd[1], "-c") && cmd[2] ?
			script_program(cmd[2]) :
			NULL;

		name = name_of(prog ? prog : cmd[0]);
		free(prog);
	}
	if (!valid_name(name)) {
		rn_error("renacer init: --name '%s' is not a target name ([A-Za-z0-9_.-]+)", name);
		free(name);
		return NULL;
	}
	return name;
}

int rn_cmd_init(int argc, char **argv)
{
	struct init_opts o = { "renacer.toml", NULL, RN_INIT_RUNS, RN_INIT_HEADROOM_PCT / 100.0,
			       false,          false };
	char **cmd, **asked = NULL, *name = NULL, *dir = NULL, *golden_path = NULL;
	struct rn_buf text, golden_dir;
	struct init_undo undo;
	bool measured = false;
	struct rn_golden g;
	int first, rc = RN_EXIT_OK;

	rn_buf_init(&text, 0);
	rn_buf_init(&golden_dir, 0);
	memset(&g, 0, sizeof(g));
	memset(&undo, 0, sizeof(undo));
	if (rn_cli_parse(&rn_cmd_init_def, argc, argv, on_option, &o, &first))
		return RN_EXIT_USAGE;
	if (o.help) {
		rn_cli_help(&rn_cmd_init_def, stdout);
		return RN_EXIT_OK;
	}
	if (!access(o.config, F_OK)) {
		rn_error("renacer init: '%s' exists; init never overwrites a config (edit it, run "
			 "`renacer validate`, or give --config NEW.toml)",
			 o.config);
		return RN_EXIT_USAGE;
	}
	if (first >= argc) {
		rc = init_from_project(&o);
		if (rc >= 0)
			return rc;
		rc = RN_EXIT_OK;
	}
	cmd = command_of(argc, argv, first, &asked);
	if (!cmd || !cmd[0]) {
		rn_error("renacer init: no command; usage: %s", rn_cmd_init_def.usage);
		rc = RN_EXIT_USAGE;
		goto out;
	}
	name = target_name_of(&o, cmd);
	if (!name) {
		rc = RN_EXIT_USAGE;
		goto out;
	}

	/* 0. What init will add, each never over something that is there: a signal or a failure
	 * before the config is written takes it back out (init_undo). From here on the first
	 * SIGINT/SIGTERM is caught wherever it lands. */
	dir = dir_of(o.config);
	rn_buf_addf(&golden_dir, "%s/golden_traces", dir);
	golden_path = rn_golden_path(golden_dir.buf, name);
	rc = plan_undo(&undo, &o, golden_dir.buf, golden_path, name);
	if (rc)
		goto out;
	rn_run_catch_signals();

	/* 1. Measure; from here on a failure undoes what init wrote. 2. The numbers. */
	measured = true;
	rc = measure(&o, dir, name, cmd, &undo);
	if (!rc)
		rc = read_numbers(golden_path, &g);
	if (rc)
		goto out;

	/* 3. The config, atomically, never over an existing file; not after a signal, which
	 * ends init with everything it wrote taken back. Once it is written, init is complete. */
	compose(&text, &o, name, cmd, &g);
	if (rn_run_interrupted()) {
		rc = rn_exit_for_signal(rn_run_interrupted());
		goto out;
	}
	rc = write_new(o.config, &text);
	if (rc)
		goto out;
	measured = false; /* complete: nothing to undo */
	print_next(&o, name, dir);
	rc = RN_EXIT_OK;
out:
	if (measured) {
		/* a failure or a signal before the config: the directory as it was */
		undo_apply(&undo);
		if (rn_run_interrupted()) {
			rc = rn_exit_for_signal(rn_run_interrupted());
			rn_error("renacer init: %s before the config was written: nothing it wrote "
				 "was kept",
				 rn_run_interrupted() == SIGINT ? "interrupted by SIGINT" :
								  "terminated by a signal");
		}
	}
	undo_release(&undo);
	free_argv(asked);
	rn_golden_release(&g);
	free(golden_path);
	free(dir);
	free(name);
	rn_buf_release(&golden_dir);
	rn_buf_release(&text);
	return rc;
}
