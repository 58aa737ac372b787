/*
 * internal.h - private to the check engine (check.c, check_run.c): the run stage's
 * entry points that check.c's plan calls.
 */
#ifndef RN_CHECK_INTERNAL_H
#define RN_CHECK_INTERNAL_H

#include <stdint.h>

#include "baseline.h"
#include "check.h"

/* Run target `tc` in both trees side by side (`base_tc` is its base side, `bl` the base tree)
 * into `head` and `base`, and append its baseline:* verdicts to `tv`. Returns 0 or
 * -ECANCELED. */
int rn_check_run_baseline(const struct rn_config *cfg, const struct rn_target_cfg *tc,
			  const struct rn_target_cfg *base_tc, const struct rn_check_opts *o,
			  const struct rn_baseline *bl, size_t index, size_t count,
			  const struct rn_otlp_context *otlp_ctx, struct rn_target_result *head,
			  struct rn_target_result *base, struct rn_target_report *tv);

/* Calibrate one target (calibrate.h): A/A pairs, then a planted slowdown; its calibrate:*
 * verdicts into `tv`. Returns 0 or -ECANCELED. */
int rn_check_run_calibrate(const struct rn_config *cfg, const struct rn_target_cfg *tc,
			   const struct rn_check_opts *o, size_t index, size_t count,
			   const struct rn_otlp_context *otlp_ctx, struct rn_target_result *r,
			   struct rn_target_report *tv);

#endif
