#include "otlp.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "log.h"
#include "otlp_http.h"
#include "safefile.h"
#include "xalloc.h"

/* ---- Export over HTTP ---------------------------------------------------------------------- */

int rn_otlp_export(const struct rn_otlp_cfg *cfg, const struct rn_otlp_context *ctx,
		   const struct rn_outcome *oc)
{
	struct sigaction ign, old;
	struct rn_otlp_res res;
	struct rn_otlp_batch b;
	struct rn_otlp_http h;
	int rc;

	if (!cfg->enabled || cfg->disabled_by_env)
		return 0;
	if (cfg->protocol == RN_OTLP_GRPC) {
		rn_warn("otlp export skipped: protocol 'grpc' is not supported (use http/protobuf "
			"or http/json)");
		return -EINVAL;
	}
	if (!cfg->endpoint) {
		struct rn_otlp_cfg *c = (struct rn_otlp_cfg *)cfg;

		/* Only reached when rn_otlp_cfg_finish() was not called: the spec's default. */
		c->endpoint = rn_xstrdup(RN_OTLP_DEFAULT_ENDPOINT);
	}
	/* A collector closing the connection mid-request must not kill renacer. */
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &ign, &old);
	rn_otlp_res_build(&res, cfg);
	rc = rn_otlp_http_init(&h, cfg);
	if (!rc)
		rc = rn_otlp_batch_init(&b, cfg->protocol, &res.res, cfg->max_request_bytes,
					rn_otlp_http_post, &h);
	if (!rc) {
		rc = rn_otlp_walk(cfg, ctx, oc, &b);
		rn_otlp_batch_release(&b);
	}
	if (rc < 0 && !h.warned)
		rn_warn("otlp export to '%s' failed: %s", h.where, strerror(-rc));
	rn_otlp_http_release(&h);
	rn_otlp_res_release(&res);
	sigaction(SIGPIPE, &old, NULL);
	return rc < 0 ? rc : 0;
}

/* ---- OTLP JSON Lines file ------------------------------------------------------------------ */

static int write_line(void *ctx, const char *body, size_t len, size_t nspans)
{
	FILE *f = ctx;

	(void)nspans;
	if (fwrite(body, 1, len, f) != len || fputc('\n', f) == EOF)
		return errno ? -errno : -EIO;
	return 0;
}

int rn_otlp_write_file(const char *path, const struct rn_otlp_cfg *cfg,
		       const struct rn_otlp_context *ctx, const struct rn_outcome *oc)
{
	struct rn_otlp_res res;
	struct rn_safefile sf;
	struct rn_otlp_batch b;
	FILE *f = NULL;
	int rc;

	rc = rn_safefile_open(&sf, path);
	if (rc || !(f = rn_safefile_stream(&sf))) {
		if (!rc) {
			rc = -errno;
			rn_safefile_abort(&sf);
		}
		goto out_error;
	}
	rn_otlp_res_build(&res, cfg);
	rc = rn_otlp_batch_init(&b, RN_OTLP_HTTP_JSON, &res.res, cfg->max_request_bytes, write_line,
				f);
	if (!rc)
		rc = rn_otlp_walk(cfg, ctx, oc, &b);
	rn_otlp_batch_release(&b);
	rn_otlp_res_release(&res);
	if (rc)
		rn_safefile_abort(&sf);
	else
		rc = rn_safefile_commit(&sf);
	if (!rc)
		return 0;
out_error:
	rn_error("cannot write OTLP file '%s': %s", path, rn_safefile_strerror(rc));
	return rc;
}
