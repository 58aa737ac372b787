/*
 * otlp_client.c - exports the synthetic check of fixture.h with renacer's OTLP exporter, for
 * check.js. Configuration comes from the environment (OTEL_*, GITHUB_*) and these
 * options, which act like the [otlp] table and the command line:
 *
 *     otlp_client [--endpoint URL] [--protocol P] [--compression C] [--timeout-ms N]
 *                 [--syscalls MODE] [--threshold-ns N] [--max-bytes N] [--spool]
 *                 [--file PATH] [--header NAME=VALUE]
 *
 * Prints one JSON line: {"rc": <rn_otlp_export's return>, "ms": <its duration>,
 * "file_rc": <rn_otlp_write_file's return or 0>, "traceparent_run1": "<traceparent of api's
 * run 1>"}. Exits 0 once it printed that line (the checker judges the numbers).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fixture.h"
#include "otlp.h"

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static unsigned long long number(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);

	if (!*s || *end) {
		fprintf(stderr, "otlp_client: not a number: '%s'\n", s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "endpoint", required_argument, NULL, 'e' },
		{ "protocol", required_argument, NULL, 'p' },
		{ "compression", required_argument, NULL, 'c' },
		{ "timeout-ms", required_argument, NULL, 't' },
		{ "syscalls", required_argument, NULL, 's' },
		{ "threshold-ns", required_argument, NULL, 'T' },
		{ "max-bytes", required_argument, NULL, 'm' },
		{ "spool", no_argument, NULL, 'S' },
		{ "file", required_argument, NULL, 'f' },
		{ "header", required_argument, NULL, 'H' },
		{ NULL, 0, NULL, 0 },
	};
	struct rn_otlp_context ctx;
	struct rn_otlp_cfg cfg;
	const char *file = NULL;
	char tp[RN_OTLP_TRACEPARENT_LEN + 1];
	bool spool = false;
	long long t0, ms = 0;
	int c, rc = 0, file_rc = 0;
	struct fx f;

	rn_otlp_cfg_init(&cfg);
	rn_otlp_cfg_from_env(&cfg);
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'e':
			if (rn_otlp_cfg_set_endpoint(&cfg, optarg))
				return 2;
			break;
		case 'p':
			if (rn_otlp_cfg_set_protocol(&cfg, optarg))
				return 2;
			break;
		case 'c':
			if (rn_otlp_cfg_set_compression(&cfg, optarg))
				return 2;
			break;
		case 't':
			cfg.timeout_ms = (uint32_t)number(optarg);
			break;
		case 's':
			if (rn_otlp_syscall_mode_parse(optarg, &cfg.syscall_spans))
				return 2;
			break;
		case 'T':
			cfg.syscall_threshold_ns = number(optarg);
			break;
		case 'm':
			cfg.max_request_bytes = (size_t)number(optarg);
			break;
		case 'S':
			spool = true;
			break;
		case 'f':
			file = optarg;
			break;
		case 'H': {
			char *eq = strchr(optarg, '=');

			if (!eq)
				return 2;
			*eq = '\0';
			if (rn_otlp_cfg_set_header(&cfg, optarg, eq + 1))
				return 2;
			break;
		}
		default:
			return 2;
		}
	}
	if (rn_otlp_cfg_finish(&cfg))
		return 2;
	fx_init(&f, spool);
	fx_context(&ctx);
	rn_otlp_traceparent(&ctx, 0, 1, tp, sizeof(tp));
	if (file)
		file_rc = rn_otlp_write_file(file, &cfg, &ctx, &f.in);
	if (cfg.enabled) {
		t0 = now_ms();
		rc = rn_otlp_export(&cfg, &ctx, &f.in);
		ms = now_ms() - t0;
	}
	printf("{\"rc\": %d, \"ms\": %lld, \"file_rc\": %d, \"traceparent_run1\": \"%s\"}\n", rc,
	       ms, file_rc, tp);
	fx_release(&f);
	rn_otlp_cfg_release(&cfg);
	return 0;
}
