/*
 * timing_gate.c - the timing gate statement of a check (timing_gate.h).
 */
#include "timing_gate.h"

#include <stdio.h>
#include <string.h>

#include "internal.h"

static bool is_time_comparison(const struct rn_verdict_result *v)
{
	return v->unit && !strcmp(v->unit, "ms") && v->type &&
		(!strcmp(v->type, "regression") || !strcmp(v->type, "baseline"));
}

/* The metric a timing row compares: "wall_time" of "baseline:wall_time". */
static const char *metric_of(const struct rn_verdict_result *v)
{
	const char *colon = v->assertion ? strchr(v->assertion, ':') : NULL;

	return colon ? colon + 1 : v->assertion ? v->assertion : "?";
}

/* Whether a row of target `t` compares the same metric as `v` (a golden row and a baseline
 * row of one metric: "golden:critical_path", "baseline:critical_path") and was decided. */
static bool metric_decided(const struct rn_target_report *t, const struct rn_verdict_result *v)
{
	size_t k;

	for (k = 0; k < t->nverdicts; k++) {
		const struct rn_verdict_result *o = &t->verdicts[k];

		if (is_time_comparison(o) &&
		    (o->verdict == RN_VERDICT_PASS || o->verdict == RN_VERDICT_FAIL) &&
		    !strcmp(metric_of(o), metric_of(v)))
			return true;
	}
	return false;
}

void rn_timing_gate(const struct rn_target_report *t, size_t n, struct rn_timing_gate *g)
{
	size_t i, k;

	memset(g, 0, sizeof(*g));
	for (i = 0; i < n; i++) {
		double best = 0.0, noise = 0.0, open = -1.0;
		const char *open_metric = NULL;
		bool any = false;

		for (k = 0; k < t[i].nverdicts; k++) {
			const struct rn_verdict_result *v = &t[i].verdicts[k];

			if (!is_time_comparison(v))
				continue;
			any = true;
			if (v->mde_pct > 0.0 &&
			    (v->verdict == RN_VERDICT_PASS || v->verdict == RN_VERDICT_FAIL) &&
			    (best == 0.0 || v->mde_pct < best))
				best = v->mde_pct;
			if (v->mde_pct > noise)
				noise = v->mde_pct;
			/* open: a metric no row decided (a golden row left advisory beside the
			 * baseline row that decided it is not) */
			if (v->verdict != RN_VERDICT_PASS && v->verdict != RN_VERDICT_FAIL &&
			    v->mde_pct > open && !metric_decided(&t[i], v)) {
				open = v->mde_pct;
				open_metric = metric_of(v);
			}
		}
		if (!any)
			continue;
		g->targets++;
		if (best > 0.0) {
			g->gated++;
			if (best > g->worst_pct) {
				g->worst_pct = best;
				g->worst = t[i].result ? t[i].result->name : NULL;
			}
			if (open_metric && (!g->open_metric || open > g->open_pct)) {
				g->open_metric = open_metric;
				g->open_pct = open > 0.0 ? open : 0.0;
				g->open_target = t[i].result ? t[i].result->name : NULL;
			}
		} else {
			if (!g->ungated)
				g->ungated = t[i].result ? t[i].result->name : NULL;
			if (t[i].result && g->nungated_names < RN_TIMING_GATE_NAMES)
				g->ungated_names[g->nungated_names++] = t[i].result->name;
			if (noise > g->noise_pct)
				g->noise_pct = noise;
		}
	}
}

/* "'a', 'b' and 3 more" into `out` (at most `cap` bytes, names cut to 64 bytes each), leaving
 * room for `keep` more bytes of the statement around it. */
static void ungated_list(const struct rn_timing_gate *g, char *out, size_t cap, size_t keep)
{
	size_t ungated = g->targets - g->gated, i, len = 0, room;

	out[0] = '\0';
	room = cap > keep + 16 ? cap - keep - 16 : 0; /* 16: " and NNN more" */
	for (i = 0; i < g->nungated_names; i++) {
		char one[80];

		snprintf(one, sizeof(one), "%s'%.64s'", i ? ", " : "", g->ungated_names[i]);
		if (len + strlen(one) >= room)
			break;
		memcpy(out + len, one, strlen(one) + 1);
		len += strlen(one);
	}
	if (!i) {
		snprintf(out, cap, "'%.64s'", g->ungated ? g->ungated : "?");
		i = 1;
		len = strlen(out);
	}
	if (i < ungated && len < cap)
		snprintf(out + len, cap - len, " and %zu more", ungated - i);
}

size_t rn_timing_gate_format(const struct rn_timing_gate *g, char *out, size_t cap)
{
	char names[512];
	int len;

	if (!cap)
		return 0;
	ungated_list(g, names, sizeof(names) < cap ? sizeof(names) : cap, 64);
	if (!g->targets)
		len = snprintf(out, cap, "%s", "");
	else if (g->gated == g->targets && g->open_metric && g->open_pct > 0.0)
		len = snprintf(out, cap,
			       "timing gated at >= +%.1f%% (worst: target '%.64s'); %.32s not "
			       "gated: detects >= +%.1f%% ('%.64s')",
			       g->worst_pct, g->worst ? g->worst : "?", g->open_metric, g->open_pct,
			       g->open_target ? g->open_target : "?");
	else if (g->gated == g->targets && g->open_metric)
		len = snprintf(out, cap,
			       "timing gated at >= +%.1f%% (worst: target '%.64s'); %.32s not "
			       "gated ('%.64s')",
			       g->worst_pct, g->worst ? g->worst : "?", g->open_metric,
			       g->open_target ? g->open_target : "?");
	else if (g->gated == g->targets)
		len = snprintf(out, cap, "timing gated at >= +%.1f%% (worst: target '%.64s')",
			       g->worst_pct, g->worst ? g->worst : "?");
	else if (g->noise_pct > 0.0)
		len = snprintf(out, cap,
			       "timing not gated for %zu of %zu target%s (%s: undecided, "
			       "detects >= +%.1f%%)",
			       g->targets - g->gated, g->targets, g->targets == 1 ? "" : "s", names,
			       g->noise_pct);
	else
		len = snprintf(out, cap,
			       "timing not gated for %zu of %zu target%s (%s: not judged)",
			       g->targets - g->gated, g->targets, g->targets == 1 ? "" : "s",
			       names);
	if (len < 0)
		len = 0;
	return (size_t)len < cap ? (size_t)len : cap - 1;
}
