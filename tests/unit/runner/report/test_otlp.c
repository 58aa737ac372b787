/*
 * test_otlp.c - OTLP export: configuration layers and environment precedence, percent-decoding,
 * W3C traceparent validation and propagation, command-line redaction, the OTLP/JSON encoding,
 * the trace shape written to the JSON Lines file, batching, and a dead collector. Delivery to
 * a real receiver (protobuf, JSON, gzip, retries) is tests/integration/otlp/tests.cmake.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "integration/otlp/fixture.h"
#include "otlp.h"
#include "runner/report/internal.h"

static const char *header(const struct rn_otlp_cfg *cfg, const char *name)
{
	size_t i;

	for (i = 0; i < cfg->nheaders; i++)
		if (!strcmp(cfg->headers[i].key, name))
			return cfg->headers[i].value;
	return NULL;
}

static const char *resource(const struct rn_otlp_cfg *cfg, const char *key)
{
	size_t i;

	for (i = 0; i < cfg->nresource; i++)
		if (!strcmp(cfg->resource[i].key, key))
			return cfg->resource[i].value;
	return NULL;
}

static void test_otlp_defaults(void **state)
{
	struct rn_otlp_cfg cfg;
	static const char *const none[] = { NULL };

	(void)state;
	rn_otlp_cfg_init(&cfg);
	assert_int_equal(rn_otlp_cfg_apply_env(&cfg, none), 0);
	assert_false(cfg.enabled);
	assert_null(cfg.endpoint);
	assert_int_equal(cfg.protocol, RN_OTLP_HTTP_PROTOBUF);
	assert_int_equal(cfg.compression, RN_OTLP_COMPRESSION_NONE);
	assert_int_equal(cfg.timeout_ms, 10000);
	assert_int_equal(cfg.syscall_spans, RN_OTLP_SYSCALLS_AGGREGATE);
	assert_false(rn_otlp_cfg_needs_spool(&cfg));
	assert_int_equal(rn_otlp_cfg_finish(&cfg), 0);
	assert_null(cfg.endpoint); /* not enabled: nothing defaulted */
	cfg.enabled = true;
	assert_int_equal(rn_otlp_cfg_finish(&cfg), 0);
	assert_string_equal(cfg.endpoint, "http://localhost:4318/v1/traces");
	rn_otlp_cfg_release(&cfg);
}

static void test_otlp_env_endpoints(void **state)
{
	static const char *const base[] = { "OTEL_EXPORTER_OTLP_ENDPOINT=http://c:4318", NULL };
	static const char *const slash[] = { "OTEL_EXPORTER_OTLP_ENDPOINT=https://c/otlp/", NULL };
	static const char *const both[] = {
		"OTEL_EXPORTER_OTLP_ENDPOINT=http://generic:4318",
		"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=http://specific:9999/custom/path", NULL
	};
	static const char *const bad[] = { "OTEL_EXPORTER_OTLP_ENDPOINT=ftp://c", NULL };
	static const char *const empty[] = { "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=",
					     "OTEL_EXPORTER_OTLP_ENDPOINT=http://g", NULL };
	struct rn_otlp_cfg cfg;

	(void)state;
	rn_otlp_cfg_init(&cfg);
	rn_otlp_cfg_apply_env(&cfg, base);
	assert_true(cfg.enabled);
	assert_string_equal(cfg.endpoint, "http://c:4318/v1/traces");
	rn_otlp_cfg_release(&cfg);

	rn_otlp_cfg_apply_env(&cfg, slash);
	assert_string_equal(cfg.endpoint, "https://c/otlp/v1/traces");
	rn_otlp_cfg_release(&cfg);

	/* The signal-specific variable wins and is used as is. */
	rn_otlp_cfg_apply_env(&cfg, both);
	assert_string_equal(cfg.endpoint, "http://specific:9999/custom/path");
	rn_otlp_cfg_release(&cfg);

	rn_otlp_cfg_apply_env(&cfg, bad); /* warned, ignored */
	assert_false(cfg.enabled);
	assert_null(cfg.endpoint);
	rn_otlp_cfg_release(&cfg);

	/* An empty variable counts as unset. */
	rn_otlp_cfg_apply_env(&cfg, empty);
	assert_string_equal(cfg.endpoint, "http://g/v1/traces");
	rn_otlp_cfg_release(&cfg);
}

static void test_otlp_env_settings(void **state)
{
	static const char *const env[] = {
		"OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf",
		"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/json",
		"OTEL_EXPORTER_OTLP_TIMEOUT=2500",
		"OTEL_EXPORTER_OTLP_COMPRESSION=gzip",
		"OTEL_SERVICE_NAME=checkout",
		NULL,
	};
	static const char *const bad[] = {
		"OTEL_EXPORTER_OTLP_PROTOCOL=carrier-pigeon",
		"OTEL_EXPORTER_OTLP_TIMEOUT=10s",
		"OTEL_EXPORTER_OTLP_TRACES_TIMEOUT=0",
		"OTEL_EXPORTER_OTLP_COMPRESSION=zstd",
		NULL,
	};
	struct rn_otlp_cfg cfg;

	(void)state;
	rn_otlp_cfg_init(&cfg);
	rn_otlp_cfg_apply_env(&cfg, env);
	assert_int_equal(cfg.protocol, RN_OTLP_HTTP_JSON);
	assert_int_equal(cfg.timeout_ms, 2500);
	assert_int_equal(cfg.compression, RN_OTLP_COMPRESSION_GZIP);
	assert_string_equal(cfg.service_name, "checkout");
	rn_otlp_cfg_release(&cfg);

	/* Invalid values are warned about and leave the defaults. */
	rn_otlp_cfg_apply_env(&cfg, bad);
	assert_int_equal(cfg.protocol, RN_OTLP_HTTP_PROTOBUF);
	assert_int_equal(cfg.timeout_ms, 10000);
	assert_int_equal(cfg.compression, RN_OTLP_COMPRESSION_NONE);
	rn_otlp_cfg_release(&cfg);
}

static void test_otlp_env_grpc_refused(void **state)
{
	static const char *const env[] = { "OTEL_EXPORTER_OTLP_PROTOCOL=grpc", NULL };
	static const char *const env_on[] = { "OTEL_EXPORTER_OTLP_PROTOCOL=grpc",
					      "OTEL_EXPORTER_OTLP_ENDPOINT=http://c:4317", NULL };
	struct rn_otlp_cfg cfg;

	(void)state;
	rn_otlp_cfg_init(&cfg);
	rn_otlp_cfg_apply_env(&cfg, env);
	assert_int_equal(cfg.protocol, RN_OTLP_GRPC);
	assert_int_equal(rn_otlp_cfg_finish(&cfg), 0); /* export off: nothing to refuse */
	rn_otlp_cfg_release(&cfg);

	rn_otlp_cfg_apply_env(&cfg, env_on);
	assert_int_equal(rn_otlp_cfg_finish(&cfg), -EINVAL);
	/* A later layer can fix it. */
	assert_int_equal(rn_otlp_cfg_set_protocol(&cfg, "http/json"), 0);
	assert_int_equal(rn_otlp_cfg_finish(&cfg), 0);
	assert_int_equal(rn_otlp_cfg_set_protocol(&cfg, "udp"), -EINVAL);
	rn_otlp_cfg_release(&cfg);
}

static void test_otlp_env_kill_switches(void **state)
{
	static const char *const sdk[] = { "OTEL_EXPORTER_OTLP_ENDPOINT=http://c",
					   "OTEL_SDK_DISABLED=TRUE", NULL };
	static const char *const none[] = { "OTEL_EXPORTER_OTLP_ENDPOINT=http://c",
					    "OTEL_TRACES_EXPORTER=none", NULL };
	static const char *const notdis[] = { "OTEL_EXPORTER_OTLP_ENDPOINT=http://c",
					      "OTEL_SDK_DISABLED=false", NULL };
	struct rn_otlp_cfg cfg;

	(void)state;
	rn_otlp_cfg_init(&cfg);
	rn_otlp_cfg_apply_env(&cfg, sdk);
	assert_true(cfg.disabled_by_env);
	/* Even an explicit endpoint of a later layer does not re-enable export. */
	assert_int_equal(rn_otlp_cfg_set_endpoint(&cfg, "http://explicit:4318"), 0);
	assert_int_equal(rn_otlp_cfg_finish(&cfg), 0);
	assert_false(cfg.enabled);
	rn_otlp_cfg_release(&cfg);

	rn_otlp_cfg_apply_env(&cfg, none);
	rn_otlp_cfg_finish(&cfg);
	assert_false(cfg.enabled);
	rn_otlp_cfg_release(&cfg);

	rn_otlp_cfg_apply_env(&cfg, notdis);
	rn_otlp_cfg_finish(&cfg);
	assert_true(cfg.enabled);
	rn_otlp_cfg_release(&cfg);
}

static void test_otlp_env_headers(void **state)
{
	static const char *const generic[] = {
		"OTEL_EXPORTER_OTLP_HEADERS= api-key = secret%20value ,x-tenant=a%3Db%2Cc,,", NULL
	};
	static const char *const both[] = { "OTEL_EXPORTER_OTLP_HEADERS=x-generic=1",
					    "OTEL_EXPORTER_OTLP_TRACES_HEADERS=x-traces=2", NULL };
	static const char *const bad[] = {
		"OTEL_EXPORTER_OTLP_HEADERS=novalue,=x,ok=1,bad%zz=%zz,sp ace=1,nul=%00", NULL
	};
	struct rn_otlp_cfg cfg;

	(void)state;
	rn_otlp_cfg_init(&cfg);
	rn_otlp_cfg_apply_env(&cfg, generic);
	assert_int_equal(cfg.nheaders, 2);
	assert_string_equal(header(&cfg, "api-key"), "secret value");
	assert_string_equal(header(&cfg, "x-tenant"), "a=b,c");
	rn_otlp_cfg_release(&cfg);

	/* The traces variable replaces the generic one. */
	rn_otlp_cfg_apply_env(&cfg, both);
	assert_int_equal(cfg.nheaders, 1);
	assert_string_equal(header(&cfg, "x-traces"), "2");
	rn_otlp_cfg_release(&cfg);

	/* Malformed entries are skipped (and counted in a warning that prints no value). */
	rn_otlp_cfg_apply_env(&cfg, bad);
	assert_int_equal(cfg.nheaders, 1);
	assert_string_equal(header(&cfg, "ok"), "1");
	rn_otlp_cfg_release(&cfg);

	/* Later layers replace a header by name, case-insensitively. */
	rn_otlp_cfg_apply_env(&cfg, generic);
	assert_int_equal(rn_otlp_cfg_set_header(&cfg, "API-Key", "from-config"), 0);
	assert_int_equal(cfg.nheaders, 2);
	assert_string_equal(cfg.headers[0].value, "from-config");
	assert_int_equal(rn_otlp_cfg_set_header(&cfg, "bad name", "v"), -EINVAL);
	assert_int_equal(rn_otlp_cfg_set_header(&cfg, "x", "a\r\nInjected: 1"), -EINVAL);
	rn_otlp_cfg_release(&cfg);
}

static void test_otlp_percent_decode(void **state)
{
	struct rn_buf b;

	(void)state;
	rn_buf_init(&b, 0);
	assert_int_equal(rn_otlp_percent_decode("a%2Cb%2c%25+x", 13, &b), 0);
	assert_string_equal(b.buf, "a,b,%+x");
	rn_buf_reset(&b);
	assert_int_equal(rn_otlp_percent_decode("%C3%A9", 6, &b), 0);
	assert_string_equal(b.buf, "\xc3\xa9");
	rn_buf_reset(&b);
	assert_int_equal(rn_otlp_percent_decode("%", 1, &b), -EINVAL);
	rn_buf_reset(&b);
	assert_int_equal(rn_otlp_percent_decode("ab%2", 4, &b), -EINVAL);
	rn_buf_reset(&b);
	assert_int_equal(rn_otlp_percent_decode("%g0", 3, &b), -EINVAL);
	rn_buf_reset(&b);
	assert_int_equal(rn_otlp_percent_decode("%00", 3, &b), -EINVAL);
	rn_buf_reset(&b);
	/* Only `len` bytes are read: "%41" cut after two bytes is a truncated escape. */
	assert_int_equal(rn_otlp_percent_decode("%41", 2, &b), -EINVAL);
	rn_buf_release(&b);
}

static void test_otlp_env_resource(void **state)
{
	static const char *const env[] = {
		"GITHUB_WORKFLOW=perf gate",
		"GITHUB_RUN_ID=12345",
		"GITHUB_SERVER_URL=https://github.example.com",
		"GITHUB_REPOSITORY=acme/api",
		"GITHUB_SHA=0123abcd",
		"GITHUB_REF_NAME=main",
		"OTEL_RESOURCE_ATTRIBUTES=deployment.environment=ci,vcs.ref.head.name=release%2F1,"
		"service.name=from-attrs",
		NULL,
	};
	struct rn_otlp_cfg cfg;

	(void)state;
	rn_otlp_cfg_init(&cfg);
	rn_otlp_cfg_apply_env(&cfg, env);
	assert_string_equal(resource(&cfg, "cicd.pipeline.name"), "perf gate");
	assert_string_equal(resource(&cfg, "cicd.pipeline.run.id"), "12345");
	assert_string_equal(resource(&cfg, "vcs.repository.url.full"),
			    "https://github.example.com/acme/api");
	assert_string_equal(resource(&cfg, "vcs.ref.head.revision"), "0123abcd");
	/* OTEL_RESOURCE_ATTRIBUTES overrides detected values. */
	assert_string_equal(resource(&cfg, "vcs.ref.head.name"), "release/1");
	assert_string_equal(resource(&cfg, "deployment.environment"), "ci");
	assert_string_equal(resource(&cfg, "service.name"), "from-attrs");
	assert_null(cfg.service_name);
	rn_otlp_cfg_release(&cfg);
}

/* A pull request's run: the head is the PR's branch (GITHUB_REF_NAME is "<n>/merge"), the
 * base its target, the change id its number; the job and the run's page (semconv vcs.*,
 * cicd.*). */
static void test_otlp_env_resource_pull_request(void **state)
{
	static const char *const env[] = {
		"GITHUB_WORKFLOW=perf",
		"GITHUB_RUN_ID=777",
		"GITHUB_JOB=gate",
		"GITHUB_SERVER_URL=https://github.com",
		"GITHUB_REPOSITORY=acme/api",
		"GITHUB_SHA=feedface",
		"GITHUB_REF=refs/pull/42/merge",
		"GITHUB_REF_NAME=42/merge",
		"GITHUB_REF_TYPE=branch",
		"GITHUB_HEAD_REF=fix-io",
		"GITHUB_BASE_REF=main",
		NULL,
	};
	struct rn_otlp_cfg cfg;

	(void)state;
	rn_otlp_cfg_init(&cfg);
	rn_otlp_cfg_apply_env(&cfg, env);
	assert_string_equal(resource(&cfg, "vcs.ref.head.name"), "fix-io");
	assert_string_equal(resource(&cfg, "vcs.ref.head.type"), "branch");
	assert_string_equal(resource(&cfg, "vcs.ref.base.name"), "main");
	assert_string_equal(resource(&cfg, "vcs.change.id"), "42");
	assert_string_equal(resource(&cfg, "vcs.repository.name"), "api");
	assert_string_equal(resource(&cfg, "cicd.pipeline.task.name"), "gate");
	assert_string_equal(resource(&cfg, "cicd.pipeline.run.url.full"),
			    "https://github.com/acme/api/actions/runs/777");
	rn_otlp_cfg_release(&cfg);
}

static void test_otlp_endpoint_setter(void **state)
{
	struct rn_otlp_cfg cfg;

	(void)state;
	rn_otlp_cfg_init(&cfg);
	assert_int_equal(rn_otlp_cfg_set_endpoint(&cfg, "http://c:4318"), 0);
	assert_true(cfg.enabled);
	assert_string_equal(cfg.endpoint, "http://c:4318/v1/traces");
	assert_int_equal(rn_otlp_cfg_set_endpoint(&cfg, "http://c:4318/"), 0);
	assert_string_equal(cfg.endpoint, "http://c:4318/v1/traces");
	assert_int_equal(rn_otlp_cfg_set_endpoint(&cfg, "https://c/prefix"), 0);
	assert_string_equal(cfg.endpoint, "https://c/prefix/v1/traces");
	assert_int_equal(rn_otlp_cfg_set_endpoint(&cfg, "https://c/x/v1/traces"), 0);
	assert_string_equal(cfg.endpoint, "https://c/x/v1/traces");
	assert_int_equal(rn_otlp_cfg_set_endpoint(&cfg, "localhost:4318"), -EINVAL);
	assert_int_equal(rn_otlp_cfg_set_endpoint(&cfg, "http:///path"), -EINVAL);
	assert_string_equal(cfg.endpoint, "https://c/x/v1/traces"); /* unchanged */
	rn_otlp_cfg_release(&cfg);
}

static void test_otlp_name_parsers(void **state)
{
	enum rn_otlp_syscall_spans m;
	enum rn_otlp_compression c;

	(void)state;
	assert_int_equal(rn_otlp_syscall_mode_parse("threshold", &m), 0);
	assert_int_equal(m, RN_OTLP_SYSCALLS_THRESHOLD);
	assert_int_equal(rn_otlp_syscall_mode_parse("every", &m), -EINVAL);
	assert_int_equal(rn_otlp_compression_parse("gzip", &c), 0);
	assert_int_equal(c, RN_OTLP_COMPRESSION_GZIP);
	assert_string_equal(rn_otlp_protocol_names[RN_OTLP_HTTP_JSON], "http/json");
	assert_null(rn_otlp_syscall_mode_names[3]);
}

static void test_otlp_traceparent_validation(void **state)
{
	uint8_t tid[16], sid[8], fl = 0;

	(void)state;
	assert_true(
		rn_otlp_traceparent_parse("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
					  tid, sid, &fl));
	assert_int_equal(tid[0], 0x4b);
	assert_int_equal(tid[15], 0x36);
	assert_int_equal(sid[7], 0xb7);
	assert_int_equal(fl, 1);
	/* Section 3.2.2: lowercase only, ids not all zero, version ff invalid, exact length. */
	assert_false(
		rn_otlp_traceparent_parse("00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
					  NULL, NULL, NULL));
	assert_false(
		rn_otlp_traceparent_parse("00-00000000000000000000000000000000-00f067aa0ba902b7-01",
					  NULL, NULL, NULL));
	assert_false(
		rn_otlp_traceparent_parse("00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
					  NULL, NULL, NULL));
	assert_false(
		rn_otlp_traceparent_parse("ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
					  NULL, NULL, NULL));
	assert_false(rn_otlp_traceparent_parse(
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-", NULL, NULL, NULL));
	assert_false(
		rn_otlp_traceparent_parse("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-1",
					  NULL, NULL, NULL));
	assert_false(
		rn_otlp_traceparent_parse("00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
					  NULL, NULL, NULL));
	assert_false(
		rn_otlp_traceparent_parse("00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01",
					  NULL, NULL, NULL));
	assert_false(rn_otlp_traceparent_parse("", NULL, NULL, NULL));
	assert_false(rn_otlp_traceparent_parse(NULL, NULL, NULL, NULL));
	/* Section 3.2.4: a future version may carry more fields after a '-'. */
	assert_true(rn_otlp_traceparent_parse(
		"01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra", NULL, NULL, NULL));
	assert_false(rn_otlp_traceparent_parse(
		"01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01extra", NULL, NULL, NULL));

	assert_true(rn_otlp_tracestate_valid("congo=t61rcWkgMzE,rojo=00f067aa0ba902b7"));
	assert_true(rn_otlp_tracestate_valid("a=1, b=2"));
	assert_false(rn_otlp_tracestate_valid("novalue"));
	assert_false(rn_otlp_tracestate_valid("a=\x01"));
	assert_false(rn_otlp_tracestate_valid(""));
}

static void test_otlp_context_from_environment(void **state)
{
	static const char *const valid[] = {
		"TRACEPARENT=00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00",
		"TRACESTATE=vendor=abc", NULL
	};
	static const char *const invalid[] = {
		"TRACEPARENT=00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
		"TRACESTATE=vendor=abc", NULL
	};
	static const uint8_t zero[16];
	struct rn_otlp_context a, b;
	char tp[RN_OTLP_TRACEPARENT_LEN + 1];

	(void)state;
	rn_otlp_context_init_env(&a, valid);
	assert_true(a.has_parent);
	assert_int_equal(a.trace_id[0], 0x4b);
	assert_int_equal(a.parent_span_id[0], 0x00);
	assert_int_equal(a.parent_span_id[1], 0xf0);
	assert_int_equal(a.trace_flags, 0); /* the parent's sampling decision is kept */
	assert_string_equal(a.trace_state, "vendor=abc");
	assert_memory_not_equal(a.root_span_id, zero, 8);

	rn_otlp_context_init_env(&b, invalid);
	assert_false(b.has_parent);
	assert_string_equal(b.trace_state, ""); /* tracestate needs a valid traceparent */
	assert_memory_not_equal(b.trace_id, zero, 16);
	assert_int_equal(b.trace_flags, 1);
	assert_memory_not_equal(b.trace_id, a.trace_id, 16);

	/* The traceparent of a run is valid, deterministic, distinct per run and target. */
	assert_int_equal(rn_otlp_traceparent(&a, 0, 0, tp, sizeof(tp)), 0);
	assert_int_equal(strlen(tp), RN_OTLP_TRACEPARENT_LEN);
	assert_true(rn_otlp_traceparent_parse(tp, NULL, NULL, NULL));
	assert_memory_equal(tp, "00-4bf92f3577b34da6a3ce929d0e0e4736-", 36);
	assert_string_equal(tp + 52, "-00");
	{
		char again[64], other_run[64], other_target[64], warm[64];

		rn_otlp_traceparent(&a, 0, 0, again, sizeof(again));
		rn_otlp_traceparent(&a, 0, 1, other_run, sizeof(other_run));
		rn_otlp_traceparent(&a, 1, 0, other_target, sizeof(other_target));
		rn_otlp_traceparent(&a, 0, RN_OTLP_RUN_NONE, warm, sizeof(warm));
		assert_string_equal(tp, again);
		assert_string_not_equal(tp, other_run);
		assert_string_not_equal(tp, other_target);
		assert_string_not_equal(tp, warm);
	}
	assert_int_equal(rn_otlp_traceparent(&a, 0, 0, tp, 55), -ENOSPC);
}

static void test_otlp_redaction(void **state)
{
	static const char *const argv[] = { "./app",        "--token",
					    "abc",          "-password",
					    "pw",           "--api-key=xyz",
					    "--verbose",    "AWS_SECRET_ACCESS_KEY=s3",
					    "NAME=visible", "https://user:pa55@host/x",
					    "--Token=CASE", "--",
					    "--secret",     NULL };
	static const char *const want[] = { "./app",
					    "--token",
					    "[REDACTED]",
					    "-password",
					    "[REDACTED]",
					    "--api-key=[REDACTED]",
					    "--verbose",
					    "AWS_SECRET_ACCESS_KEY=[REDACTED]",
					    "NAME=visible",
					    "https://user:[REDACTED]@host/x",
					    "--Token=[REDACTED]",
					    "--",
					    "--secret",
					    NULL };
	char **out;
	size_t i;

	(void)state;
	out = rn_otlp_redact_argv(argv);
	for (i = 0; want[i]; i++)
		assert_string_equal(out[i], want[i]);
	assert_null(out[i]);
	rn_otlp_argv_free(out);
	assert_null(rn_otlp_redact_argv(NULL));
	rn_otlp_argv_free(NULL);
}

/* ---- JSON encoding --------------------------------------------------------------------- */

static json_t *path(json_t *j, const char *p)
{
	char key[64];

	while (j && *p) {
		size_t n = strcspn(p, ".");

		snprintf(key, sizeof(key), "%.*s", (int)n, p);
		if (json_is_array(j))
			j = json_array_get(j, strtoul(key, NULL, 10));
		else
			j = json_object_get(j, key);
		p += n;
		if (*p)
			p++;
	}
	return j;
}

static const char *str_at(json_t *j, const char *p)
{
	const char *s = json_string_value(path(j, p));

	if (!s)
		fail_msg("no string at %s", p);
	return s;
}

static void test_otlp_json_encoding(void **state)
{
	static const char *const strs[] = { "x", "y" };
	static const int64_t ints[] = { 7, -9 };
	struct rn_otlp_attr attrs[] = {
		{ .key = "s", .type = RN_OTLP_VAL_STRING, .u.s = "caf\xc3\xa9 \"q\"" },
		{ .key = "i", .type = RN_OTLP_VAL_INT, .u.i = INT64_MIN },
		{ .key = "b", .type = RN_OTLP_VAL_BOOL, .u.b = true },
		{ .key = "d", .type = RN_OTLP_VAL_DOUBLE, .u.d = 0.25 },
		{ .key = "n", .type = RN_OTLP_VAL_DOUBLE, .u.d = NAN },
		{ .key = "ss", .type = RN_OTLP_VAL_STRINGS, .u.strs = { strs, 2 } },
		{ .key = "is", .type = RN_OTLP_VAL_INTS, .u.ints = { ints, 2 } },
		{ .key = "bad",
		  .type = RN_OTLP_VAL_STRING,
		  .u.s = "a\xff"
			 "b" },
	};
	struct rn_otlp_resource res = { attrs, 1, "renacer", "0.1.0" };
	struct rn_otlp_event ev = { "exec", 18446744073709551615ull, NULL, 0 };
	struct rn_otlp_span s;
	struct rn_buf out;
	json_t *j, *sp;

	(void)state;
	memset(&s, 0, sizeof(s));
	memset(s.trace_id, 0xab, 16);
	s.span_id[7] = 0x01;
	s.parent_span_id[0] = 0xfe;
	s.has_parent = true;
	s.name = "span";
	s.kind = RN_OTLP_KIND_INTERNAL;
	s.start_unix_ns = 1700000000123456789ull;
	s.end_unix_ns = 1700000000223456789ull;
	s.attrs = attrs;
	s.nattrs = sizeof(attrs) / sizeof(attrs[0]);
	s.events = &ev;
	s.nevents = 1;
	s.status = RN_OTLP_STATUS_ERROR;
	s.status_message = "boom";
	s.flags = 0x101;
	rn_buf_init(&out, 0);
	assert_int_equal(rn_otlp_encode_request(RN_OTLP_HTTP_JSON, &res, &s, 1, &out), 0);
	j = json_loads(out.buf, 0, NULL);
	assert_non_null(j);
	assert_string_equal(str_at(j, "resourceSpans.0.resource.attributes.0.key"), "s");
	assert_string_equal(str_at(j, "resourceSpans.0.scopeSpans.0.scope.name"), "renacer");
	assert_string_equal(str_at(j, "resourceSpans.0.scopeSpans.0.scope.version"), "0.1.0");
	sp = path(j, "resourceSpans.0.scopeSpans.0.spans.0");
	assert_non_null(sp);
	/* Ids as lowercase hex, 64-bit integers as decimal strings, enums as integers. */
	assert_string_equal(str_at(sp, "traceId"), "abababababababababababababababab");
	assert_string_equal(str_at(sp, "spanId"), "0000000000000001");
	assert_string_equal(str_at(sp, "parentSpanId"), "fe00000000000000");
	assert_string_equal(str_at(sp, "startTimeUnixNano"), "1700000000123456789");
	assert_string_equal(str_at(sp, "endTimeUnixNano"), "1700000000223456789");
	assert_int_equal(json_integer_value(path(sp, "kind")), 1);
	assert_int_equal(json_integer_value(path(sp, "flags")), 0x101);
	assert_int_equal(json_integer_value(path(sp, "status.code")), 2);
	assert_string_equal(str_at(sp, "status.message"), "boom");
	assert_string_equal(str_at(sp, "events.0.timeUnixNano"), "18446744073709551615");
	assert_string_equal(str_at(sp, "attributes.0.value.stringValue"), "caf\xc3\xa9 \"q\"");
	assert_string_equal(str_at(sp, "attributes.1.value.intValue"), "-9223372036854775808");
	assert_true(json_is_true(path(sp, "attributes.2.value.boolValue")));
	assert_true(json_real_value(path(sp, "attributes.3.value.doubleValue")) == 0.25);
	assert_string_equal(str_at(sp, "attributes.4.value.doubleValue"), "NaN");
	assert_string_equal(str_at(sp, "attributes.5.value.arrayValue.values.1.stringValue"), "y");
	assert_string_equal(str_at(sp, "attributes.6.value.arrayValue.values.1.intValue"), "-9");
	assert_string_equal(str_at(sp, "attributes.7.value.stringValue"),
			    "a\xef\xbf\xbd"
			    "b");
	assert_null(path(sp, "links")); /* empty repeated fields are omitted */
	assert_null(path(sp, "traceState"));
	json_decref(j);

	/* grpc has no encoding here. */
	assert_int_equal(rn_otlp_encode_request(RN_OTLP_GRPC, &res, &s, 1, &out), -EINVAL);
	/* An empty request is still a valid request. */
	rn_buf_reset(&out);
	assert_int_equal(rn_otlp_encode_request(RN_OTLP_HTTP_JSON, &res, NULL, 0, &out), 0);
	j = json_loads(out.buf, 0, NULL);
	assert_int_equal(json_array_size(path(j, "resourceSpans.0.scopeSpans.0.spans")), 0);
	json_decref(j);
	rn_buf_release(&out);
}

/* Allocation failures while encoding (curl's torture mode): each one is reported as -ENOMEM
 * and leaks nothing (the suite runs under ASan in CI). */
static void test_otlp_encode_allocation_failures(void **state)
{
	struct rn_otlp_attr a = { .key = "k", .type = RN_OTLP_VAL_STRING, .u.s = "v" };
	struct rn_otlp_resource res = { &a, 1, "renacer", "1" };
	struct rn_otlp_span spans[3];
	struct rn_buf out, ref;
	unsigned long n, total;
	int rc;

	(void)state;
	memset(spans, 0, sizeof(spans));
	spans[0].name = "a";
	spans[0].attrs = &a;
	spans[0].nattrs = 1;
	spans[1].name = "b";
	spans[2].name = "c";
	rn_buf_init(&ref, 0);
	rn_alloc_fail_at(0);
	assert_int_equal(rn_otlp_encode_request(RN_OTLP_HTTP_PROTOBUF, &res, spans, 3, &ref), 0);
	total = rn_alloc_count();
	assert_true(total > 0);
	for (n = 1; n <= total; n++) {
		rn_buf_init(&out, 0);
		rn_alloc_fail_at(n);
		rc = rn_otlp_encode_request(RN_OTLP_HTTP_PROTOBUF, &res, spans, 3, &out);
		rn_alloc_fail_at(0);
		assert_int_equal(rc, -ENOMEM);
		rn_buf_release(&out);
	}
	rn_buf_release(&ref);
}

/* ---- The trace written to the JSON Lines file ------------------------------------------- */

struct spans {
	json_t *all;  /* array of span objects over all lines */
	json_t *res;  /* resource attributes of the first line */
	size_t lines; /* requests */
};

static void read_spans(const char *file, struct spans *out)
{
	FILE *f = fopen(file, "r");
	char *line = NULL;
	size_t cap = 0;

	assert_non_null(f);
	out->all = json_array();
	out->res = NULL;
	out->lines = 0;
	while (getline(&line, &cap, f) > 0) {
		json_error_t err;
		json_t *j = json_loads(line, 0, &err), *spans;
		size_t i;

		if (!j)
			fail_msg("line %zu: %s", out->lines + 1, err.text);
		assert_int_equal(json_array_size(path(j, "resourceSpans")), 1);
		spans = path(j, "resourceSpans.0.scopeSpans.0.spans");
		assert_true(json_is_array(spans));
		for (i = 0; i < json_array_size(spans); i++)
			json_array_append(out->all, json_array_get(spans, i));
		if (!out->res)
			out->res = json_incref(path(j, "resourceSpans.0.resource.attributes"));
		json_decref(j);
		out->lines++;
	}
	free(line);
	fclose(f);
}

static void spans_release(struct spans *s)
{
	json_decref(s->all);
	json_decref(s->res);
}

static json_t *span_named(const struct spans *s, const char *name)
{
	size_t i;

	for (i = 0; i < json_array_size(s->all); i++) {
		json_t *sp = json_array_get(s->all, i);

		if (!strcmp(json_string_value(json_object_get(sp, "name")), name))
			return sp;
	}
	fail_msg("no span named '%s'", name);
	return NULL;
}

static json_t *attr(json_t *attrs, const char *key)
{
	size_t i;

	for (i = 0; i < json_array_size(attrs); i++) {
		json_t *kv = json_array_get(attrs, i);

		if (!strcmp(json_string_value(json_object_get(kv, "key")), key))
			return json_object_get(kv, "value");
	}
	return NULL;
}

static const char *sattr(json_t *span, const char *key)
{
	json_t *v = attr(json_object_get(span, "attributes"), key);

	return v ? json_string_value(json_object_get(v, "stringValue")) : NULL;
}

static long long iattr(json_t *span, const char *key)
{
	json_t *v = attr(json_object_get(span, "attributes"), key);
	const char *s = v ? json_string_value(json_object_get(v, "intValue")) : NULL;

	if (!s)
		fail_msg("no int attribute %s", key);
	return strtoll(s, NULL, 10);
}

static bool child_of(json_t *child, json_t *parent)
{
	const char *p = json_string_value(json_object_get(child, "parentSpanId"));

	return p && !strcmp(p, json_string_value(json_object_get(parent, "spanId")));
}

static char tmpfile_path[256];

static int setup_tmp(void **state)
{
	(void)state;
	snprintf(tmpfile_path, sizeof(tmpfile_path), "%s/test_otlp.%ld.jsonl",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (long)getpid());
	return 0;
}

static int teardown_tmp(void **state)
{
	(void)state;
	unlink(tmpfile_path);
	return 0;
}

static void test_otlp_file_trace_shape(void **state)
{
	static const char *const env[] = { "OTEL_SERVICE_NAME=perf", NULL };
	struct rn_otlp_context ctx;
	struct rn_otlp_cfg cfg;
	struct spans s;
	struct fx f;
	json_t *root, *api, *run0, *run1, *crun, *srv, *sh, *bad, *openat, *gpu, *v, *orphan,
		*batch;
	char tp[64];
	size_t i;

	(void)state;
	fx_init(&f, false);
	fx_context(&ctx);
	rn_otlp_cfg_init(&cfg);
	rn_otlp_cfg_apply_env(&cfg, env);
	rn_otlp_cfg_set_resource_attr(&cfg, "host.name", "pinned-host");
	assert_int_equal(rn_otlp_write_file(tmpfile_path, &cfg, &ctx, &f.in), 0);
	read_spans(tmpfile_path, &s);
	assert_int_equal(s.lines, 1);
	assert_int_equal(json_array_size(s.all), FX_SPANS_AGGREGATE);

	/* Resource: service.name from OTEL_SERVICE_NAME, detected attributes overridable. */
	assert_string_equal(json_string_value(
				    json_object_get(attr(s.res, "service.name"), "stringValue")),
			    "perf");
	assert_string_equal(json_string_value(
				    json_object_get(attr(s.res, "host.name"), "stringValue")),
			    "pinned-host");
	assert_non_null(attr(s.res, "host.arch"));
	assert_non_null(attr(s.res, "service.version"));
	assert_string_equal(json_string_value(
				    json_object_get(attr(s.res, "os.type"), "stringValue")),
			    "linux");

	/* Every span of one trace. */
	for (i = 0; i < json_array_size(s.all); i++)
		assert_string_equal(str_at(json_array_get(s.all, i), "traceId"),
				    "0102030405060708090a0b0c0d0e0f10");

	root = span_named(&s, "renacer check");
	assert_string_equal(str_at(root, "spanId"), "a1a2a3a4a5a6a7a8");
	assert_string_equal(str_at(root, "parentSpanId"), "b1b2b3b4b5b6b7b8"); /* TRACEPARENT */
	assert_int_equal(json_integer_value(path(root, "flags")), 0x301);
	assert_int_equal(json_integer_value(path(root, "status.code")), 2); /* exit code 1 */
	assert_int_equal(iattr(root, "renacer.check.exit_code"), 1);
	assert_int_equal(iattr(root, "renacer.check.verdicts.fail"), 1);
	assert_int_equal(iattr(root, "renacer.check.verdicts.error"), 1);
	assert_string_equal(str_at(root, "startTimeUnixNano"), "1699999997000000000");
	assert_string_equal(str_at(root, "endTimeUnixNano"), "1700000002000000000");

	api = span_named(&s, "target:api");
	assert_true(child_of(api, root));
	assert_int_equal(iattr(api, "renacer.target.runs"), 2);
	batch = span_named(&s, "target:batch");
	assert_int_equal(json_integer_value(path(batch, "status.code")), 2);
	assert_string_equal(str_at(batch, "status.message"), "killed by SIGSEGV");

	run0 = span_named(&s, "run:0");
	run1 = span_named(&s, "run:1");
	crun = span_named(&s, "counting_run:0");
	assert_true(child_of(run0, api));
	assert_true(child_of(run1, api));
	assert_true(child_of(crun, api));
	assert_int_equal(iattr(api, "renacer.target.counting_runs"), 1);
	assert_string_equal(str_at(run1, "startTimeUnixNano"), "1699999999500000000");
	assert_string_equal(str_at(run1, "endTimeUnixNano"), "1699999999950000000");
	assert_int_equal(iattr(run1, "renacer.run.wall_time_ns"), 450000000);
	assert_string_equal(sattr(run1, "renacer.run.kind"), "timing");
	/* Nothing a timing run did not measure: no syscalls = 0, no alloc_peak. */
	assert_null(attr(json_object_get(run1, "attributes"), "renacer.run.syscalls"));
	assert_null(attr(json_object_get(run1, "attributes"), "renacer.run.alloc_peak_bytes"));
	assert_int_equal(iattr(run1, "renacer.run.peak_rss_bytes"), 1 << 20);
	/* The counting run: counts, no time (taken under the tracer). */
	assert_string_equal(sattr(crun, "renacer.run.kind"), "counting");
	assert_int_equal(iattr(crun, "renacer.run.index"), 2);
	assert_string_equal(str_at(crun, "startTimeUnixNano"), "1700000000000000000");
	assert_string_equal(str_at(crun, "endTimeUnixNano"), "1700000000500000000");
	assert_null(attr(json_object_get(crun, "attributes"), "renacer.run.wall_time_ns"));
	assert_int_equal(iattr(crun, "renacer.run.syscalls"), 10);
	assert_int_equal(iattr(crun, "renacer.run.gpu_dispatches"), 1);
	assert_int_equal(iattr(crun, "renacer.run.gpu_copy_bytes"), 0);
	assert_null(attr(json_object_get(run0, "attributes"), "renacer.run.gpu_busy_ns"));
	/* The run span has the id handed to the run in TRACEPARENT. */
	rn_otlp_traceparent(&ctx, 0, 1, tp, sizeof(tp));
	tp[52] = '\0';
	assert_string_equal(str_at(run1, "spanId"), tp + 36);

	/* Processes of the last run, nested; times converted with the run's offset. */
	srv = span_named(&s, "process:api-server");
	sh = span_named(&s, "process:sh");
	bad = span_named(&s,
			 "process:\xef\xbf\xbd\xef\xbf\xbd"
			 "bad");
	assert_true(child_of(srv, crun));
	assert_true(child_of(sh, srv));
	assert_true(child_of(bad, sh));
	assert_string_equal(str_at(srv, "startTimeUnixNano"), "1700000000000000000");
	assert_string_equal(str_at(sh, "startTimeUnixNano"), "1700000000100000000");
	assert_int_equal(iattr(srv, "process.pid"), 1000);
	assert_int_equal(iattr(srv, "process.exit.code"), 0);
	assert_string_equal(sattr(srv, "process.executable.path"), "/usr/bin/api-server");
	assert_string_equal(sattr(srv, "process.executable.name"), "api-server");
	assert_string_equal(sattr(srv, "renacer.process.build_id"),
			    "0123456789abcdef0123456789abcdef01234567");
	{
		json_t *args =
			path(attr(json_object_get(srv, "attributes"), "process.command_args"),
			     "arrayValue.values");

		assert_int_equal(json_array_size(args), 5);
		assert_string_equal(str_at(args, "2.stringValue"), "[REDACTED]");
		assert_string_equal(str_at(args, "3.stringValue"), "DB_PASSWORD=[REDACTED]");
		assert_string_equal(str_at(args, "4.stringValue"), "--port=80");
	}
	assert_string_equal(str_at(srv, "events.0.name"), "exec");
	assert_string_equal(str_at(srv, "events.0.timeUnixNano"), "1700000000001000000");
	assert_int_equal(json_integer_value(path(sh, "status.code")), 2); /* exit code 2 */
	assert_int_equal(json_integer_value(path(span_named(&s, "process:batch"), "status.code")),
			 2);

	/* Aggregated syscall spans. */
	openat = span_named(&s, "openat");
	assert_true(child_of(openat, srv));
	assert_int_equal(iattr(openat, "renacer.syscall.calls"), 3);
	assert_int_equal(iattr(openat, "renacer.syscall.errors"), 1);
	assert_int_equal(iattr(openat, "renacer.syscall.total_ns"), 140000);
	assert_string_equal(str_at(openat, "endTimeUnixNano"), "1700000000000140000");
	assert_true(child_of(span_named(&s, "write"), sh));

	/* GPU spans. */
	gpu = span_named(&s, "gpu:matmul");
	assert_true(child_of(gpu, srv));
	assert_string_equal(sattr(gpu, "renacer.gpu.kind"), "dispatch");
	assert_string_equal(str_at(attr(json_object_get(gpu, "attributes"), "renacer.gpu.groups"),
				   "arrayValue.values.0.intValue"),
			    "8");
	assert_string_equal(str_at(gpu, "events.0.name"), "submit");
	gpu = span_named(&s, "gpu:upload");
	assert_int_equal(iattr(gpu, "renacer.gpu.bytes"), 4096);
	assert_string_equal(sattr(gpu, "renacer.gpu.direction"), "host_to_device");
	assert_int_equal(iattr(gpu, "renacer.gpu.queue_family"), 1);

	/* Verdicts with the test semantic conventions. */
	v = span_named(&s, "assertion:api_memory");
	assert_true(child_of(v, api));
	assert_string_equal(sattr(v, "test.case.name"), "api_memory");
	assert_string_equal(sattr(v, "test.case.result.status"), "fail");
	assert_string_equal(sattr(v, "test.suite.name"), "api");
	assert_string_equal(sattr(v, "renacer.assertion.verdict"), "FAIL");
	assert_string_equal(sattr(v, "renacer.assertion.unit"), "bytes");
	assert_true(json_real_value(
			    path(attr(json_object_get(v, "attributes"), "renacer.assertion.budget"),
				 "doubleValue")) == 524288.0);
	assert_int_equal(json_integer_value(path(v, "status.code")), 2);
	v = span_named(&s, "assertion:api_latency");
	assert_string_equal(sattr(v, "test.case.result.status"), "pass");
	assert_null(path(v, "status"));
	v = span_named(&s, "assertion:batch_runs");
	assert_true(child_of(v, batch));
	orphan = span_named(&s, "assertion:golden:wall_time");
	assert_true(child_of(orphan, root));
	assert_string_equal(sattr(orphan, "test.case.result.status"), "pass"); /* WARN */
	/* The root and target spans name their failing assertions and verdicts. */
	assert_string_equal(str_at(attr(json_object_get(root, "attributes"),
					"renacer.check.failed_assertions"),
				   "arrayValue.values.0.stringValue"),
			    "api/api_memory");
	assert_string_equal(str_at(attr(json_object_get(root, "attributes"),
					"renacer.check.failed_verdicts"),
				   "arrayValue.values.0.stringValue"),
			    "FAIL");
	assert_string_equal(str_at(attr(json_object_get(root, "attributes"),
					"renacer.check.failed_assertions"),
				   "arrayValue.values.1.stringValue"),
			    "batch/batch_runs");
	assert_string_equal(str_at(attr(json_object_get(root, "attributes"),
					"renacer.check.failed_verdicts"),
				   "arrayValue.values.1.stringValue"),
			    "ERROR");
	assert_null(
		path(attr(json_object_get(root, "attributes"), "renacer.check.failed_assertions"),
		     "arrayValue.values.2"));
	assert_string_equal(str_at(attr(json_object_get(api, "attributes"),
					"renacer.target.failed_assertions"),
				   "arrayValue.values.0.stringValue"),
			    "api_memory");
	assert_string_equal(str_at(attr(json_object_get(api, "attributes"),
					"renacer.target.failed_verdicts"),
				   "arrayValue.values.0.stringValue"),
			    "FAIL");

	spans_release(&s);
	rn_otlp_cfg_release(&cfg);
	fx_release(&f);
}

static void test_otlp_file_syscall_modes(void **state)
{
	struct rn_otlp_context ctx;
	struct rn_otlp_cfg cfg;
	struct spans s;
	struct fx f;
	json_t *sp;
	size_t i, openats = 0;

	(void)state;
	fx_init(&f, true);
	fx_context(&ctx);
	rn_otlp_cfg_init(&cfg);
	cfg.syscall_spans = RN_OTLP_SYSCALLS_ALL;
	assert_true(rn_otlp_cfg_needs_spool(&cfg));
	assert_int_equal(rn_otlp_write_file(tmpfile_path, &cfg, &ctx, &f.in), 0);
	read_spans(tmpfile_path, &s);
	assert_int_equal(json_array_size(s.all), FX_SPANS_ALL);
	for (i = 0; i < json_array_size(s.all); i++) {
		sp = json_array_get(s.all, i);
		if (strcmp(json_string_value(json_object_get(sp, "name")), "openat"))
			continue;
		openats++;
		if (sattr(sp, "error.type")) {
			assert_string_equal(sattr(sp, "error.type"), "ENOENT");
			assert_string_equal(sattr(sp, "file.path"), "/etc/missing");
			assert_int_equal(iattr(sp, "renacer.syscall.ret"), -ENOENT);
		}
	}
	assert_int_equal(openats, 3);
	sp = span_named(&s, "write");
	assert_true(child_of(sp, span_named(&s, "process:sh")));
	assert_int_equal(iattr(sp, "thread.id"), 1001);
	spans_release(&s);

	/* The spool replays again for a second output. */
	cfg.syscall_spans = RN_OTLP_SYSCALLS_THRESHOLD;
	cfg.syscall_threshold_ns = FX_THRESHOLD_NS;
	assert_int_equal(rn_otlp_write_file(tmpfile_path, &cfg, &ctx, &f.in), 0);
	read_spans(tmpfile_path, &s);
	assert_int_equal(json_array_size(s.all), FX_SPANS_THRESHOLD);
	spans_release(&s);
	fx_release(&f);

	/* Without a spool the detail modes fall back to aggregates (with a warning). */
	fx_init(&f, false);
	cfg.syscall_spans = RN_OTLP_SYSCALLS_ALL;
	assert_int_equal(rn_otlp_write_file(tmpfile_path, &cfg, &ctx, &f.in), 0);
	read_spans(tmpfile_path, &s);
	assert_int_equal(json_array_size(s.all), FX_SPANS_AGGREGATE);
	spans_release(&s);
	rn_otlp_cfg_release(&cfg);
	fx_release(&f);
}

static void test_otlp_file_batches(void **state)
{
	struct rn_otlp_context ctx;
	struct rn_otlp_cfg cfg;
	struct spans s;
	struct fx f;

	(void)state;
	fx_init(&f, true);
	fx_context(&ctx);
	rn_otlp_cfg_init(&cfg);
	cfg.syscall_spans = RN_OTLP_SYSCALLS_ALL;
	cfg.max_request_bytes = 4096; /* a few spans per request */
	assert_int_equal(rn_otlp_write_file(tmpfile_path, &cfg, &ctx, &f.in), 0);
	read_spans(tmpfile_path, &s);
	assert_true(s.lines > 3);
	assert_int_equal(json_array_size(s.all), FX_SPANS_ALL);
	spans_release(&s);
	rn_otlp_cfg_release(&cfg);
	fx_release(&f);
}

static void test_otlp_file_write_error(void **state)
{
	struct rn_otlp_context ctx;
	struct rn_otlp_cfg cfg;
	struct fx f;

	(void)state;
	fx_init(&f, false);
	fx_context(&ctx);
	rn_otlp_cfg_init(&cfg);
	assert_int_equal(rn_otlp_write_file("/nonexistent-dir/x.jsonl", &cfg, &ctx, &f.in),
			 -ENOENT);
	rn_otlp_cfg_release(&cfg);
	fx_release(&f);
}

static uint64_t ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* A port on which nothing listens: bind one, read its number, close it. */
static int dead_port(void)
{
	struct sockaddr_in a;
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port;

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	port = ntohs(a.sin_port);
	close(fd);
	return port;
}

static void test_otlp_export_dead_collector(void **state)
{
	struct rn_otlp_context ctx;
	struct rn_otlp_cfg cfg;
	struct fx f;
	char url[64];
	uint64_t t0, took;

	(void)state;
	fx_init(&f, false);
	fx_context(&ctx);
	rn_otlp_cfg_init(&cfg);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d", dead_port());
	assert_int_equal(rn_otlp_cfg_set_endpoint(&cfg, url), 0);
	cfg.timeout_ms = 800;
	assert_int_equal(rn_otlp_cfg_finish(&cfg), 0);
	t0 = ms_now();
	assert_int_equal(rn_otlp_export(&cfg, &ctx, &f.in), -ECONNREFUSED);
	took = ms_now() - t0;
	assert_true(took < 800 + 300); /* retries stop at the deadline */

	/* Disabled: nothing happens. */
	cfg.enabled = false;
	assert_int_equal(rn_otlp_export(&cfg, &ctx, &f.in), 0);
	rn_otlp_cfg_release(&cfg);
	fx_release(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_otlp_defaults),
		cmocka_unit_test(test_otlp_env_endpoints),
		cmocka_unit_test(test_otlp_env_settings),
		cmocka_unit_test(test_otlp_env_grpc_refused),
		cmocka_unit_test(test_otlp_env_kill_switches),
		cmocka_unit_test(test_otlp_env_headers),
		cmocka_unit_test(test_otlp_percent_decode),
		cmocka_unit_test(test_otlp_env_resource),
		cmocka_unit_test(test_otlp_env_resource_pull_request),
		cmocka_unit_test(test_otlp_endpoint_setter),
		cmocka_unit_test(test_otlp_name_parsers),
		cmocka_unit_test(test_otlp_traceparent_validation),
		cmocka_unit_test(test_otlp_context_from_environment),
		cmocka_unit_test(test_otlp_redaction),
		cmocka_unit_test(test_otlp_json_encoding),
		cmocka_unit_test(test_otlp_encode_allocation_failures),
		cmocka_unit_test_setup_teardown(test_otlp_file_trace_shape, setup_tmp,
						teardown_tmp),
		cmocka_unit_test_setup_teardown(test_otlp_file_syscall_modes, setup_tmp,
						teardown_tmp),
		cmocka_unit_test_setup_teardown(test_otlp_file_batches, setup_tmp, teardown_tmp),
		cmocka_unit_test(test_otlp_file_write_error),
		cmocka_unit_test(test_otlp_export_dead_collector),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
