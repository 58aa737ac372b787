/*
 * verdict.c - the verdict container of one target (see verdict.h).
 */
#include "verdict.h"

#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "xalloc.h"

struct rn_verdict_result *rn_target_report_push(struct rn_target_report *t)
{
	t->verdicts = rn_xgrow(t->verdicts, &t->cap, t->nverdicts + 1, sizeof(*t->verdicts));
	memset(&t->verdicts[t->nverdicts], 0, sizeof(t->verdicts[0]));
	return &t->verdicts[t->nverdicts++];
}

struct rn_verdict_result *rn_target_report_push_row(struct rn_target_report *t, const char *type,
						    const char *target, const char *what,
						    enum rn_verdict v)
{
	struct rn_verdict_result *r = rn_target_report_push(t);
	struct rn_buf b;

	rn_buf_init(&b, 0);
	rn_buf_addf(&b, "%s:%s", type, what);
	r->assertion = rn_buf_detach(&b, NULL);
	r->type = rn_xstrdup(type);
	r->target = rn_xstrdup(target);
	r->verdict = v;
	return r;
}

void rn_target_report_release(struct rn_target_report *t)
{
	size_t i;

	for (i = 0; i < t->nverdicts; i++)
		rn_verdict_result_release(&t->verdicts[i]);
	free(t->verdicts);
	free(t->golden_file);
	if (t->explain) {
		free(t->explain->assertion);
		free(t->explain->text);
		free(t->explain->svg);
		free(t->explain->base_folded);
		free(t->explain->head_folded);
		free(t->explain);
	}
	t->verdicts = NULL;
	t->nverdicts = t->cap = 0;
	t->golden_file = NULL;
	t->explain = NULL;
}
