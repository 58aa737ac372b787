/*
 * main.c - renacer's entry point: pick the subcommand and hand over.
 *
 *     renacer init | check | validate | golden update | merge | calibrate | bisect | trace |
 *             diff | explain | history | report | completion | help | man   (commands[])
 *     renacer -c -T -- CMD          (no subcommand word: trace, as the original renacer)
 *     renacer --assert FILE -- CMD  (the original renacer's check spelling)
 */
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cmd_bisect.h"
#include "cmd_calibrate.h"
#include "cmd_check.h"
#include "cmd_diff.h"
#include "cmd_explain.h"
#include "cmd_golden.h"
#include "cmd_history.h"
#include "cmd_report.h"
#include "cmd_init.h"
#include "cmd_trace.h"
#include "cmd_validate.h"
#include "config.h"
#include "exitcode.h"
#include "golden.h"
#include "golden_equiv.h"
#include "log.h"
#include "cmd_merge.h"
#include "completion.h"

static int cmd_help(int argc, char **argv);
static int cmd_man(int argc, char **argv);
static int cmd_completion(int argc, char **argv);

static const struct rn_option no_options[] = {
	{ 0, NULL, 0, RN_OPT_NONE, NULL, NULL },
};

static const struct rn_command help_def = {
	"help",
	"renacer help [COMMAND | config | tables]",
	"show help of a command (renacer help check), of the config keys (help config), or the exit "
	"codes, verdicts, collectors, assertion types, metrics, count rules and fingerprint fields "
	"(help tables)",
	NULL,
	no_options,
};

static const struct rn_command man_def = {
	"man", "renacer man", "print the renacer(1) man page (troff)", NULL, no_options,
};

static const struct rn_command completion_def = {
	"completion",
	"renacer completion bash|zsh|fish",
	"print the shell completion script of renacer's commands and options for bash, zsh or fish",
	"The package installs all three where each shell looks for them; by hand: "
	"renacer completion bash > ~/.local/share/bash-completion/completions/renacer",
	no_options,
};

/* Every command (as git's commands[]): one table feeds dispatch, --help, `renacer help` and
 * the man page. Each command's options, usage and summary are its rn_command. */
static const struct {
	const struct rn_command *def;
	int (*run)(int argc, char **argv); /* argv[0] is the command's name */
} commands[] = {
	{ &rn_cmd_init_def, rn_cmd_init },
	{ &rn_cmd_check_def, rn_cmd_check },
	{ &rn_cmd_validate_def, rn_cmd_validate },
	{ &rn_cmd_golden_def, rn_cmd_golden },
	{ &rn_cmd_merge_def, rn_cmd_merge },
	{ &rn_cmd_calibrate_def, rn_cmd_calibrate },
	{ &rn_cmd_bisect_def, rn_cmd_bisect },
	{ &rn_cmd_trace_def, rn_cmd_trace },
	{ &rn_cmd_diff_def, rn_cmd_diff },
	{ &rn_cmd_explain_def, rn_cmd_explain },
	{ &rn_cmd_history_def, rn_cmd_history },
	{ &rn_cmd_report_def, rn_cmd_report },
	{ &completion_def, cmd_completion },
	{ &help_def, cmd_help },
	{ &man_def, cmd_man },
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void print_exit_codes(FILE *out, bool man)
{
#define RN_EXIT_HELP(name, value, desc)                                                            \
	if (man)                                                                                   \
		fprintf(out, ".TP\n.B %d\n%s\n", value, desc);                                     \
	else                                                                                       \
		fprintf(out, "  %3d  %s\n", value, desc);
	RN_EXIT_CODES(RN_EXIT_HELP)
#undef RN_EXIT_HELP
}

static void usage(FILE *out)
{
	size_t i;

	fprintf(out,
		"usage: renacer <command> [options]\n\n"
		"renacer makes performance a CI gate: it runs programs under its collectors\n"
		"(renacer help tables lists them), judges assertions and golden traces, and\n"
		"writes a verdict, JUnit XML and OTLP traces.\n\ncommands:\n");
	for (i = 0; i < NCOMMANDS; i++)
		fprintf(out, "  %-10s %s\n", commands[i].def->name, commands[i].def->summary);
	fprintf(out, "\nexit codes:\n");
	print_exit_codes(out, false);
	fprintf(out, "\nrenacer %s\n", RN_VERSION);
}

/* The keys of an assertion type's row ("a b") as "`a`, `b`" ("none" for none). */
static void print_keys(FILE *out, const char *keys)
{
	const char *p = keys;
	int n = 0;

	while (*p) {
		size_t len = strcspn(p, " ");

		if (len)
			fprintf(out, "%s`%.*s`", n++ ? ", " : "", (int)len, p);
		p += len + (p[len] == ' ');
	}
	if (!n)
		fputs("none", out);
}

/* The table of assertion types (RN_ASSERTION_TYPES): docs/metrics.md's first two columns. */
static void print_assertion_types(FILE *out)
{
	int t;

	fputs("\n### assertion types\n\n| assertion | keys | what it judges |\n|---|---|---|\n",
	      out);
	for (t = 0; t < RN_ASSERT_COUNT; t++) {
		fprintf(out, "| `%s` | ", rn_assertion_types[t].name);
		print_keys(out, rn_assertion_types[t].keys);
		fprintf(out, " | %s |\n", rn_assertion_types[t].help);
	}
}

/*
 * `renacer help tables`: the exit codes, verdicts, collectors, assertion types, metrics,
 * count rules and fingerprint fields as the Markdown tables of docs/metrics.md, docs/collectors.md,
 * docs/golden.md and docs/timing.md, from the code's
 * own lists (tests/integration/docs compares the pages with this and with `renacer help
 * config`).
 */
static void print_tables(FILE *out)
{
	int v;

	fputs("### exit codes\n\n| exit code | meaning |\n|---|---|\n", out);
#define RN_EXIT_ROW(name, value, desc) fprintf(out, "| %d | %s |\n", value, desc);
	RN_EXIT_CODES(RN_EXIT_ROW)
#undef RN_EXIT_ROW
	fputs("\n### verdicts\n\n| verdict |\n|---|\n", out);
	for (v = 0; v < RN_VERDICT_COUNT; v++)
		fprintf(out, "| %s |\n", rn_verdict_label((enum rn_verdict)v));
	fputs("\n### collectors\n\n| collector | selected by | what it records |\n|---|---|---|\n",
	      out);
#define RN_TARGET_ROW(name, id, desc)                                                              \
	fprintf(out, "| `%s` | `collectors = [\"%s\"]` | %s |\n", #name, #name, desc);
#define RN_DRIVER_ROW(name, id, desc)                                                              \
	fprintf(out, "| `%s` | `driver = \"%s\"` | %s |\n", #name, #name, desc);
	RN_TARGET_COLLECTORS(RN_TARGET_ROW)
	RN_DRIVER_COLLECTORS(RN_DRIVER_ROW)
#undef RN_TARGET_ROW
#undef RN_DRIVER_ROW
	print_assertion_types(out);
	fputs("\n### metrics\n\n| metric | unit | measured by | what it is |\n|---|---|---|---|\n",
	      out);
	for (v = 0; v < RN_METRIC_COUNT; v++) {
		const struct rn_metric_info *mi = rn_metric_info((enum rn_metric)v);
		enum rn_run_measures by = rn_metric_measured_by((enum rn_metric)v);

		fprintf(out, "| `%s` | %s | %s | %s |\n", mi->name, mi->unit,
			by == RN_MEASURES_TIMES          ? "timing runs" :
				by == RN_MEASURES_COUNTS ? "counting runs" :
							   "either",
			mi->desc);
	}
	{
		size_t i, n;
		const struct rn_count_rule *r = rn_count_rules(&n);

		fputs("\n### count rules\n\n| syscall | tolerance at least | floor at least | a "
		      "passing row reads |\n|---|---|---|---|\n",
		      out);
		for (i = 0; i < n; i++)
			fprintf(out, "| `%s` | %+g%% | %llu calls | %s |\n", r[i].syscall,
				r[i].tolerance_min * 100.0, (unsigned long long)r[i].floor_min,
				r[i].status);
	}
	fputs("\n### fingerprint\n\n| field | what it holds |\n|---|---|\n", out);
	for (v = 0; v < RN_FP_COUNT; v++)
		fprintf(out, "| `%s` | %s |\n",
			rn_fingerprint_field_name((enum rn_fingerprint_field)v),
			rn_fingerprint_field_what((enum rn_fingerprint_field)v));
}

/* The renacer(1) man page, generated from the same tables as --help. */
static void man_page(FILE *out)
{
	size_t i;

	fprintf(out, ".TH RENACER 1 \"\" \"renacer %s\" \"User Commands\"\n", RN_VERSION);
	fputs(".SH NAME\nrenacer \\- make performance a CI gate\n.SH SYNOPSIS\n", out);
	for (i = 0; i < NCOMMANDS; i++)
		fprintf(out, ".B %s\n.br\n", commands[i].def->usage);
	fputs(".SH DESCRIPTION\nrenacer runs programs under its collectors (COLLECTORS below), "
	      "judges the assertions of renacer.toml and the golden traces kept with the code, and "
	      "writes a verdict, JUnit XML and OTLP traces.\n",
	      out);
	for (i = 0; i < NCOMMANDS; i++) {
		fprintf(out, ".SH %s\n", commands[i].def->name);
		fprintf(out, "%s\n", commands[i].def->summary);
		if (commands[i].def->description)
			fprintf(out, ".PP\n%s\n", commands[i].def->description);
		rn_cli_man_options(commands[i].def, out);
	}
	fputs(".SH CONFIGURATION\nThe keys of renacer.toml:\n.nf\n", out);
	rn_config_write_docs(out);
	fputs(".fi\n.SH COLLECTORS\n", out);
#define RN_MAN_TARGET(name, id, desc)                                                              \
	fprintf(out, ".TP\n.B %s\n%s (collectors = [\"%s\"])\n", #name, desc, #name);
#define RN_MAN_DRIVER(name, id, desc)                                                              \
	fprintf(out, ".TP\n.B %s\n%s (driver = \"%s\")\n", #name, desc, #name);
	RN_TARGET_COLLECTORS(RN_MAN_TARGET)
	RN_DRIVER_COLLECTORS(RN_MAN_DRIVER)
#undef RN_MAN_TARGET
#undef RN_MAN_DRIVER
	fputs(".SH ASSERTION TYPES\n", out);
	for (i = 0; i < RN_ASSERT_COUNT; i++)
		fprintf(out, ".TP\n.B %s\n%s\n", rn_assertion_types[i].name,
			rn_assertion_types[i].help);
	fputs(".SH VERDICTS\n", out);
	for (i = 0; i < RN_VERDICT_COUNT; i++)
		fprintf(out, "%s%s", i ? ", " : "", rn_verdict_label((enum rn_verdict)i));
	fputs("\n.SH EXIT STATUS\n", out);
	print_exit_codes(out, true);
}

/* help and man have no options of their own: rn_cli_parse applies the global ones. */
static int no_handler(void *ctx, int id, const char *arg)
{
	(void)ctx;
	(void)id;
	(void)arg;
	return -1;
}

/* `renacer help [COMMAND | config | tables]`. */
static int cmd_help(int argc, char **argv)
{
	size_t i;
	int first;

	/* the global options, then at most one operand */
	if (rn_cli_parse(&help_def, argc, argv, no_handler, NULL, &first))
		return RN_EXIT_USAGE;
	argv += first - 1;
	argc -= first - 1;
	if (argc < 2) {
		usage(stdout);
		return RN_EXIT_OK;
	}
	for (i = 0; i < NCOMMANDS; i++) {
		if (!strcmp(argv[1], commands[i].def->name)) {
			rn_cli_help(commands[i].def, stdout);
			return RN_EXIT_OK;
		}
	}
	if (!strcmp(argv[1], "config")) {
		rn_config_write_docs(stdout);
		return RN_EXIT_OK;
	}
	if (!strcmp(argv[1], "tables")) {
		print_tables(stdout);
		return RN_EXIT_OK;
	}
	rn_error("no such command '%s'; see 'renacer --help'", argv[1]);
	return RN_EXIT_USAGE;
}

/* `renacer man`. */
static int cmd_man(int argc, char **argv)
{
	int first;

	if (rn_cli_parse(&man_def, argc, argv, no_handler, NULL, &first))
		return RN_EXIT_USAGE;
	if (first < argc) {
		rn_error("renacer man: unexpected argument '%s'", argv[first]);
		return RN_EXIT_USAGE;
	}
	man_page(stdout);
	return RN_EXIT_OK;
}

/* `renacer completion bash|zsh|fish`: the script, from the same commands[] as --help. */
static int cmd_completion(int argc, char **argv)
{
	const struct rn_command *defs[NCOMMANDS];
	size_t i;
	int first;

	for (i = 1; i < (size_t)argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			rn_cli_help(&completion_def, stdout);
			return RN_EXIT_OK;
		}
	/* the global options (--no-color) as every command takes them */
	if (rn_cli_parse(&completion_def, argc, argv, no_handler, NULL, &first))
		return RN_EXIT_USAGE;
	for (i = 0; i < NCOMMANDS; i++)
		defs[i] = commands[i].def;
	if (first != argc - 1 || rn_completion_write(stdout, argv[first], defs, NCOMMANDS) < 0) {
		rn_error("usage: renacer completion SHELL, where SHELL is " RN_COMPLETION_SHELLS);
		return RN_EXIT_USAGE;
	}
	return RN_EXIT_OK;
}

int main(int argc, char **argv)
{
	size_t i;

	/* Numbers in machine output must not follow the user's LC_NUMERIC. */
	setlocale(LC_ALL, "C");
	/* A full disk during a golden write must be an error we report, not a dead process. */
	signal(SIGXFSZ, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	/* SIGUSR1/SIGUSR2 (from a target or from outside) must not kill renacer without a report:
	 * ignored. SIGHUP and SIGQUIT end a run as SIGTERM does (collectors/run.c, exit 129/131);
	 * outside a run they keep their default action. */
	signal(SIGUSR1, SIG_IGN);
	signal(SIGUSR2, SIG_IGN);
	/* golden update records behaviour traces with the trace command (check sits below it). */
	rn_golden_equiv_set_tracer(rn_cmd_trace);

	if (argc < 2) {
		usage(stderr);
		return RN_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return RN_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("renacer %s\n", RN_VERSION);
		return RN_EXIT_OK;
	}
	/* The original renacer's spelling of check: renacer --assert FILE -- CMD. */
	if (!strncmp(argv[1], "--assert", 8))
		return rn_cmd_check(argc, argv);
	/* No subcommand word but options: strace-style tracing (renacer -c -T -- CMD). */
	if (argv[1][0] == '-') {
		argv[0] = (char *)"trace";
		return rn_cmd_trace(argc, argv);
	}
	for (i = 0; i < NCOMMANDS; i++)
		if (!strcmp(argv[1], commands[i].def->name))
			return commands[i].run(argc - 1, argv + 1);
	{
		const char *names[NCOMMANDS + 1];
		const char *hint;

		for (i = 0; i < NCOMMANDS; i++)
			names[i] = commands[i].def->name;
		names[NCOMMANDS] = NULL;
		hint = rn_suggest(argv[1], names);
		if (hint)
			rn_error("unknown command '%s' (did you mean '%s'?)", argv[1], hint);
		else
			rn_error("unknown command '%s'; see 'renacer --help'", argv[1]);
	}
	return RN_EXIT_USAGE;
}
