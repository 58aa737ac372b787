/*
 * completion.c - bash, zsh and fish completion scripts written from the commands table.
 */
#include "completion.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "xalloc.h"

/* Whether the option's argument is a path (FILE, DIR, ...), which the shell completes. */
static bool takes_path(const struct rn_option *o)
{
	return o->arg == RN_OPT_REQUIRED && o->arg_name &&
		(strstr(o->arg_name, "FILE") || strstr(o->arg_name, "DIR") ||
		 strstr(o->arg_name, "PATH"));
}

/* Write `s` with each character of `special` preceded by a backslash. */
static void put_escaped(FILE *out, const char *s, const char *special)
{
	for (; s && *s; s++) {
		if (*s == '\n')
			fputc(' ', out);
		else if (*s == '\'')
			fputs("'\\''", out); /* every script quotes these strings with '' */
		else {
			if (strchr(special, *s))
				fputc('\\', out);
			fputc(*s, out);
		}
	}
}

/*
 * bash: one function; the first word completes command names, later words the options of
 * the command (after an option that takes a path, file names). Plain bash: no helper of the
 * bash-completion package is needed.
 */
static void write_bash(FILE *out, const struct rn_command *const *cmds, size_t n)
{
	const struct rn_option *o;
	size_t i;

	fputs("# bash completion for renacer, written by `renacer completion bash` from its "
	      "commands table\n"
	      "_renacer()\n{\n"
	      "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
	      "\tif [ \"$COMP_CWORD\" -eq 1 ]; then\n\t\tCOMPREPLY=($(compgen -W '",
	      out);
	for (i = 0; i < n; i++)
		fprintf(out, "%s%s", i ? " " : "", cmds[i]->name);
	fputs("' -- \"$cur\"))\n\t\treturn\n\tfi\n\tcase ${COMP_WORDS[1]} in\n", out);
	for (i = 0; i < n; i++) {
		bool paths = false;

		fprintf(out, "\t%s)\n", cmds[i]->name);
		for (o = cmds[i]->options; o->id; o++)
			paths |= takes_path(o);
		if (paths) {
			const char *sep = "";

			fputs("\t\tcase $prev in\n\t\t", out);
			for (o = cmds[i]->options; o->id; o++) {
				if (!takes_path(o))
					continue;
				if (o->long_name) {
					fprintf(out, "%s--%s", sep, o->long_name);
					sep = "|";
				}
				if (o->short_name) {
					fprintf(out, "%s-%c", sep, o->short_name);
					sep = "|";
				}
			}
			fputs(")\n\t\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n\t\t\treturn\n"
			      "\t\t\t;;\n\t\tesac\n",
			      out);
		}
		fputs("\t\tCOMPREPLY=($(compgen -W '", out);
		for (o = cmds[i]->options; o->id; o++) {
			if (o->long_name)
				fprintf(out, "--%s ", o->long_name);
			if (o->short_name)
				fprintf(out, "-%c ", o->short_name);
		}
		fputs("' -- \"$cur\"))\n\t\t;;\n", out);
	}
	fputs("\tesac\n}\ncomplete -o default -F _renacer renacer\n", out);
}

/* One _arguments spec of an option: '--config=[config file]:FILE:_files'. */
static void zsh_spec(FILE *out, const struct rn_option *o, bool is_long)
{
	fputc('\'', out);
	if (is_long)
		fprintf(out, "--%s%s", o->long_name, o->arg == RN_OPT_REQUIRED ? "=" : "");
	else
		fprintf(out, "-%c%s", o->short_name, o->arg == RN_OPT_REQUIRED ? "+" : "");
	fputc('[', out);
	put_escaped(out, o->help, "[]:\\");
	fputc(']', out);
	if (o->arg == RN_OPT_REQUIRED) {
		fputc(':', out);
		put_escaped(out, o->arg_name, ":\\");
		fputs(takes_path(o) ? ":_files" : ": ", out);
	}
	fputs("' \\\n", out);
}

/* zsh: #compdef, the commands with their summaries, then _arguments per command. */
static void write_zsh(FILE *out, const struct rn_command *const *cmds, size_t n)
{
	const struct rn_option *o;
	size_t i;

	fputs("#compdef renacer\n# zsh completion for renacer, written by `renacer completion "
	      "zsh` from its commands table\n"
	      "_renacer() {\n\tlocal -a commands\n\tcommands=(\n",
	      out);
	for (i = 0; i < n; i++) {
		fprintf(out, "\t\t'%s:", cmds[i]->name);
		put_escaped(out, cmds[i]->summary, ":\\");
		fputs("'\n", out);
	}
	fputs("\t)\n\tif (( CURRENT == 2 )); then\n\t\t_describe 'command' commands\n"
	      "\t\treturn\n\tfi\n\tshift words\n\t(( CURRENT-- ))\n\tcase $words[1] in\n",
	      out);
	for (i = 0; i < n; i++) {
		fprintf(out, "\t%s)\n\t\t_arguments -s \\\n", cmds[i]->name);
		for (o = cmds[i]->options; o->id; o++) {
			if (o->long_name)
				zsh_spec(out, o, true);
			if (o->short_name)
				zsh_spec(out, o, false);
		}
		fputs("\t\t\t'*:argument:_files'\n\t\t;;\n", out);
	}
	fputs("\tesac\n}\n_renacer \"$@\"\n", out);
}

/* fish: one `complete` line per command word and per option. */
static void write_fish(FILE *out, const struct rn_command *const *cmds, size_t n)
{
	const struct rn_option *o;
	size_t i;

	fputs("# fish completion for renacer, written by `renacer completion fish` from its "
	      "commands table\ncomplete -c renacer -f\n",
	      out);
	for (i = 0; i < n; i++) {
		fprintf(out, "complete -c renacer -n __fish_use_subcommand -a %s -d '",
			cmds[i]->name);
		put_escaped(out, cmds[i]->summary, "\\");
		fputs("'\n", out);
	}
	for (i = 0; i < n; i++) {
		for (o = cmds[i]->options; o->id; o++) {
			fprintf(out, "complete -c renacer -n '__fish_seen_subcommand_from %s'",
				cmds[i]->name);
			if (o->long_name)
				fprintf(out, " -l %s", o->long_name);
			if (o->short_name)
				fprintf(out, " -s %c", o->short_name);
			if (o->arg == RN_OPT_REQUIRED)
				fputs(takes_path(o) ? " -r -F" : " -x", out);
			fputs(" -d '", out);
			put_escaped(out, o->help, "\\");
			fputs("'\n", out);
		}
	}
}

int rn_completion_write(FILE *out, const char *shell, const struct rn_command *const *cmds,
			size_t n)
{
	/* each command with the global options it lacks, as rn_cli_parse accepts them */
	struct rn_command *all = rn_xcalloc(n ? n : 1, sizeof(*all));
	const struct rn_command **defs = rn_xcalloc(n ? n : 1, sizeof(*defs));
	struct rn_option **opts = rn_xcalloc(n ? n : 1, sizeof(*opts));
	size_t i;
	int rc = 0;

	for (i = 0; i < n; i++) {
		all[i] = *cmds[i];
		opts[i] = rn_cli_options_with_globals(cmds[i]);
		all[i].options = opts[i];
		defs[i] = &all[i];
	}
	if (!strcmp(shell, "bash"))
		write_bash(out, defs, n);
	else if (!strcmp(shell, "zsh"))
		write_zsh(out, defs, n);
	else if (!strcmp(shell, "fish"))
		write_fish(out, defs, n);
	else
		rc = -EINVAL;
	for (i = 0; i < n; i++)
		free(opts[i]);
	free(opts);
	free(defs);
	free(all);
	return rc;
}
