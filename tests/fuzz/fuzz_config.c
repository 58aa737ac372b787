/*
 * fuzz_config.c - the renacer.toml schema layer (rn_config_parse, runner/input/config.c) on
 * arbitrary text.
 *
 * Properties: a failure carries a diagnostic whose location lies inside the text (a line that
 * exists, or the one after a final newline) and which formats with its source line and caret; a
 * success gives a config every later stage can use without checking again: targets with a name, a
 * non-empty argv, an absolute working directory, "KEY=VALUE" environment entries, runs within
 * 1..1000; named assertions; an absolute golden directory. Seeds: renacer.toml.example, the
 * snippets of tests/unit/runner/input/config/errors.test, toml-test's valid set.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "fuzz.h"

static size_t count_lines(const uint8_t *data, size_t size)
{
	size_t n = 1, i;

	for (i = 0; i < size; i++)
		n += data[i] == '\n';
	return n;
}

static void check_config(const struct rn_config *cfg)
{
	size_t i, k;

	FUZZ_CHECK(cfg->path && cfg->dir && cfg->src, "config lacks path, dir or source");
	FUZZ_CHECK(cfg->golden_dir && cfg->golden_dir[0] == '/', "golden dir missing or relative");
	FUZZ_CHECK(cfg->ntargets == 0 || cfg->targets, "targets missing");
	FUZZ_CHECK(cfg->nassertions == 0 || cfg->assertions, "assertions missing");
	for (i = 0; i < cfg->ntargets; i++) {
		const struct rn_target_cfg *t = &cfg->targets[i];

		FUZZ_CHECK(t->name && *t->name, "target without a name");
		FUZZ_CHECK(t->argv && t->argv[0], "target without argv");
		FUZZ_CHECK(t->cwd && t->cwd[0] == '/', "target cwd missing or relative");
		FUZZ_CHECK(t->runs >= 1 && t->runs <= 1000, "runs out of range");
		for (k = 0; t->env && t->env[k]; k++)
			FUZZ_CHECK(strchr(t->env[k], '=') != NULL, "env entry without '='");
		for (k = 0; k < i; k++)
			FUZZ_CHECK(strcmp(cfg->targets[k].name, t->name), "duplicate target names");
	}
	for (i = 0; i < cfg->nassertions; i++)
		FUZZ_CHECK(cfg->assertions[i].name && *cfg->assertions[i].name,
			   "assertion without a name");
	for (i = 0; cfg->otlp.headers && cfg->otlp.headers[i]; i++)
		FUZZ_CHECK(strstr(cfg->otlp.headers[i], ": ") != NULL, "header without ': '");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rn_config cfg;
	struct rn_diag d;

	if (rn_config_parse(&cfg, "renacer.toml", (const char *)data, size, true, &d)) {
		char *msg;

		FUZZ_CHECK(d.set, "failed parse without a diagnostic");
		FUZZ_CHECK(d.line >= 0 && (size_t)d.line <= count_lines(data, size),
			   "diagnostic line outside the text");
		FUZZ_CHECK(d.line == 0 || d.col >= 1, "diagnostic without a column");
		msg = rn_diag_format(&d, false);
		FUZZ_CHECK(msg && !strncmp(msg, "renacer.toml", 12), "diagnostic lacks the file");
		free(msg);
		msg = rn_diag_oneline(&d);
		free(msg);
		rn_config_release(&cfg);
		return 0;
	}
	check_config(&cfg);
	rn_config_release(&cfg);
	return 0;
}
