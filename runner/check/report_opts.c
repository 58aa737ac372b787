#include "report_opts.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exitcode.h"
#include "log.h"
#include "xalloc.h"

void rn_report_opts_init(struct rn_report_opts *o)
{
	const char *nc = getenv("NO_COLOR");
	const char *gh = getenv("GITHUB_ACTIONS");

	memset(o, 0, sizeof(*o));
	o->github = gh && !strcmp(gh, "true") ? 1 : 0;
	o->color = isatty(2) && !(nc && *nc);
}

int rn_report_opts_apply(struct rn_report_opts *o, int id, const char *arg)
{
	switch (id) {
	case RN_RO_JUNIT:
		o->junit = arg;
		return 0;
	case RN_RO_RESULTS:
		o->results = arg;
		return 0;
	case RN_RO_OTLP_ENDPOINT:
		o->otlp_endpoint = arg;
		return 0;
	case RN_RO_OTLP_PROTOCOL:
		o->otlp_protocol = arg;
		return 0;
	case RN_RO_OTLP_FILE:
		o->otlp_file = arg;
		return 0;
	case RN_RO_GITHUB:
		o->github = 1;
		return 0;
	case RN_RO_NO_GITHUB:
		o->github = 0;
		return 0;
	case RN_RO_BENCH_JSON:
		o->bench_json = arg;
		return 0;
	case RN_RO_HISTORY:
		o->history = true;
		return 0;
	case RN_RO_NO_COLOR:
		o->color = false;
		return 0;
	default:
		return 1;
	}
}

void rn_report_opts_outputs(const struct rn_report_opts *o, const struct rn_config *cfg,
			    struct rn_report_outputs *out)
{
	memset(out, 0, sizeof(*out));
	out->junit = o->junit ? o->junit : cfg ? cfg->junit : NULL;
	out->otlp_file = o->otlp_file ? o->otlp_file : cfg ? cfg->otlp_file : NULL;
	out->bench_json = o->bench_json;
	out->results = o->results;
	out->github = o->github;
	out->history = o->history;
	out->color = o->color;
}

int rn_report_opts_otlp(const struct rn_report_opts *o, const struct rn_config *cfg,
			struct rn_otlp_cfg *oc)
{
	rn_otlp_cfg_from_env(oc);
	if (cfg && rn_otlp_cfg_apply_file(oc, &cfg->otlp))
		return RN_EXIT_CONFIG;
	if (o->otlp_endpoint && rn_otlp_cfg_set_endpoint(oc, o->otlp_endpoint)) {
		rn_error("--otlp-endpoint '%s' is not an http:// or https:// URL",
			 o->otlp_endpoint);
		return RN_EXIT_USAGE;
	}
	if (o->otlp_protocol && rn_otlp_cfg_set_protocol(oc, o->otlp_protocol))
		return RN_EXIT_USAGE;
	if (rn_otlp_cfg_finish(oc))
		return RN_EXIT_CONFIG;
	if (cfg && cfg->redact) {
		size_t n = 0, i;

		while (cfg->redact[n])
			n++;
		oc->redact_words = rn_xcalloc(n + 1, sizeof(*oc->redact_words));
		for (i = 0; i < n; i++)
			oc->redact_words[i] = rn_xstrdup(cfg->redact[i]);
	}
	return 0;
}
