/*
 * golden_judge.c - helpers the golden judges share: number formatting for messages and
 * details, samples on both sides, verdict fields.
 * Shared declarations: internal.h; the API: golden.h.
 */
#include "internal.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "stats.h"
#include "xalloc.h"

/*
 * Number formatting for messages and details. snprintf's %f follows LC_NUMERIC, and reports go
 * to machine readers (JUnit), so the radix character is forced to '.' as rn_buf_add_fixed does.
 */
void rn_golden_fixed(char *out, size_t cap, double v, int prec)
{
	char *p;

	if (!isfinite(v))
		v = 0.0;
	snprintf(out, cap, "%.*f", prec, v);
	for (p = out; *p; p++)
		if (*p == ',')
			*p = '.';
}

/* A count: integral values without decimals, medians of even runs with one. */
void rn_golden_fmt_num(char *out, size_t cap, double v)
{
	rn_golden_fixed(out, cap, v, fabs(v - floor(v + 0.5)) < 1e-9 ? 0 : 1);
}

/* A signed percentage: "+100.0%", "-3.5%". */
void rn_golden_fmt_pct(char *out, size_t cap, double pct)
{
	char num[32];

	rn_golden_fixed(num, sizeof(num), pct, 1);
	snprintf(out, cap, "%s%s%%", pct >= 0.0 && num[0] != '-' ? "+" : "", num);
}

/* A tolerance fraction as "+10%". */
void rn_golden_fmt_tol(char *out, size_t cap, double tol)
{
	char num[32];

	rn_golden_fmt_num(num, sizeof(num), floor(tol * 1000.0 + 0.5) / 10.0);
	snprintf(out, cap, "+%s%%", num);
}

/* A value in a metric's unit, for humans: ns as ms, bytes scaled, counts plain. */
void rn_golden_fmt_value(char *out, size_t cap, const char *unit, double v)
{
	char num[32];

	if (!strcmp(unit, "ms") || !strcmp(unit, "ns")) {
		double ms = v / 1e6;
		double a = fabs(ms);

		rn_golden_fixed(num, sizeof(num), ms, a >= 100.0 ? 1 : a >= 1.0 ? 2 : 3);
		snprintf(out, cap, "%s ms", num);
	} else if (!strcmp(unit, "bytes")) {
		static const char *const units[] = { "KiB", "MiB", "GiB", "TiB" };
		double x = v;
		int i = -1;

		while (fabs(x) >= 1024.0 && i < 3) {
			x /= 1024.0;
			i++;
		}
		if (i < 0) {
			rn_golden_fmt_num(num, sizeof(num), v);
			snprintf(out, cap, "%s bytes", num);
		} else {
			rn_golden_fixed(num, sizeof(num), x, 1);
			snprintf(out, cap, "%s %s", num, units[i]);
		}
	} else {
		rn_golden_fmt_num(out, cap, v);
	}
}

/* A signed difference in a metric's unit: "+30.20 ms". */
void rn_golden_fmt_signed(char *out, size_t cap, const char *unit, double v)
{
	char num[48];

	rn_golden_fmt_value(num, sizeof(num), unit, v);
	snprintf(out, cap, "%s%s", v >= 0.0 && num[0] != '-' ? "+" : "", num);
}

/* A fraction with at most four decimals and no trailing zeros: "0.01". */
void rn_golden_fmt_trim(char *out, size_t cap, double v)
{
	size_t n;

	rn_golden_fixed(out, cap, v, 4);
	n = strlen(out);
	while (n > 1 && strchr(out, '.') && (out[n - 1] == '0' || out[n - 1] == '.')) {
		char c = out[n - 1];

		out[--n] = '\0';
		if (c == '.')
			break;
	}
}

void rn_golden_fmt_p(char *out, size_t cap, double p)
{
	char num[32];

	if (p < 0.0001) {
		snprintf(out, cap, "p<0.0001");
		return;
	}
	rn_golden_fixed(num, sizeof(num), p, 4);
	snprintf(out, cap, "p=%s", num);
}

/* Relative change in percent; relative to 1 when the golden value is 0. */
double rn_golden_delta_pct(double observed, double golden)
{
	return (observed - golden) / (golden > 0.0 ? golden : 1.0) * 100.0;
}

double rn_golden_median_of(const double *x, size_t n)
{
	return n ? rn_stats_median(x, n) : 0.0;
}

/* Observed per-run samples of metric m as doubles (caller frees): the timing runs' for time
 * metrics (r->nruns of them), the counting runs' for counts (see observed_n). */
double *rn_golden_observed(const struct rn_target_result *r, enum rn_metric m)
{
	size_t n;

	return rn_target_result_samples(r, m, &n);
}

/* How many samples observed() gives for metric m. */
size_t rn_golden_observed_n(const struct rn_target_result *r, enum rn_metric m)
{
	size_t n;

	rn_target_result_runs_of(r, m, &n);
	return n;
}

/* How many samples the golden trace has for metric m. */
size_t rn_golden_golden_n(const struct rn_golden *g, enum rn_metric m)
{
	return g->nsamples[m] ? g->nsamples[m] : g->nruns;
}

/* Convert a value in the metric's unit to the verdict's unit (ns -> ms). */
static double in_unit(const struct rn_golden_step *s, double v)
{
	return !strcmp(s->unit, "ms") ? v / 1e6 : v;
}

void rn_golden_set_values(struct rn_verdict_result *v, const struct rn_golden_step *s, double obs,
			  double gold, double budget)
{
	v->has_observed = true;
	v->observed = in_unit(s, obs);
	v->has_golden = true;
	v->golden = in_unit(s, gold);
	v->has_budget = true;
	v->budget = in_unit(s, budget);
	v->delta_pct = rn_golden_delta_pct(obs, gold);
}
/* Finish a message buffer into v->message, adding the hint to failures. */
void rn_golden_set_message(struct rn_verdict_result *v, struct rn_buf *b)
{
	if (v->verdict == RN_VERDICT_FAIL)
		rn_buf_adds(b,
			    v->unit && !strcmp(v->unit, "ms") ? "; " RN_GOLDEN_TIMING_HINT :
								"; " RN_GOLDEN_HINT);
	v->message = rn_buf_detach(b, NULL);
	if (!v->message)
		rn_die("out of memory");
}

/* The tolerance of step `s`: [golden.tolerances] when given, else `dflt`. */
double rn_golden_tol_of(const struct rn_golden_cmp *c, const struct rn_golden_step *s, double dflt)
{
	double t = c->cfg->tolerance[s->check];

	return t >= 0.0 ? t : dflt;
}

void rn_golden_set_reason(struct rn_verdict_result *v, const char *fmt, ...) RN_PRINTF(2, 3);
void rn_golden_set_reason(struct rn_verdict_result *v, const char *fmt, ...)
{
	char text[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	free(v->reason);
	v->reason = rn_xstrdup(text);
}

void rn_golden_add_golden_line(const struct rn_golden_cmp *c, struct rn_buf *b)
{
	const struct rn_golden *g = c->g;

	rn_buf_addf(b, "golden trace: %s", c->path ? c->path : "(unnamed)");
	if (g->counts_only)
		rn_buf_addf(b, " (renacer-json-v1 baseline%s%s, counts only)",
			    g->renacer_version ? " of renacer " : "",
			    g->renacer_version ? g->renacer_version : "");
	else
		rn_buf_addf(b, " (recorded %s by renacer %s on %s, %s, kernel %s)",
			    g->created ? g->created : "?",
			    g->renacer_version ? g->renacer_version : "?",
			    g->cpu_model ? g->cpu_model : "?", g->machine ? g->machine : "?",
			    g->kernel ? g->kernel : "?");
	rn_buf_addc(b, '\n');
}

/* The detail table comparing two sample sets: runs, median, MAD, min, max. */
void rn_golden_add_sample_table(struct rn_buf *b, const char *unit, const double *a, size_t na,
				const double *bb, size_t nb)
{
	char x[64], y[64];
	double amin = 0, amax = 0, bmin = 0, bmax = 0;
	size_t i;

	for (i = 0; i < na; i++) {
		amin = i ? fmin(amin, a[i]) : a[i];
		amax = i ? fmax(amax, a[i]) : a[i];
	}
	for (i = 0; i < nb; i++) {
		bmin = i ? fmin(bmin, bb[i]) : bb[i];
		bmax = i ? fmax(bmax, bb[i]) : bb[i];
	}
	rn_buf_addf(b, "%-28s %14s %14s\n", "", "golden", "observed");
	rn_buf_addf(b, "%-28s %14zu %14zu\n", "runs", na, nb);
	rn_golden_fmt_value(x, sizeof(x), unit, rn_golden_median_of(a, na));
	rn_golden_fmt_value(y, sizeof(y), unit, rn_golden_median_of(bb, nb));
	rn_buf_addf(b, "%-28s %14s %14s\n", "median", x, y);
	rn_golden_fmt_value(x, sizeof(x), unit, na ? rn_stats_mad(a, na) : 0.0);
	rn_golden_fmt_value(y, sizeof(y), unit, nb ? rn_stats_mad(bb, nb) : 0.0);
	rn_buf_addf(b, "%-28s %14s %14s\n", "MAD", x, y);
	rn_golden_fmt_value(x, sizeof(x), unit, amin);
	rn_golden_fmt_value(y, sizeof(y), unit, bmin);
	rn_buf_addf(b, "%-28s %14s %14s\n", "min", x, y);
	rn_golden_fmt_value(x, sizeof(x), unit, amax);
	rn_golden_fmt_value(y, sizeof(y), unit, bmax);
	rn_buf_addf(b, "%-28s %14s %14s\n", "max", x, y);
}

/* Downgrade a FAIL of a machine-dependent metric to WARN when the golden trace is foreign. */
void rn_golden_maybe_downgrade(struct rn_golden_cmp *c, struct rn_verdict_result *v,
			       struct rn_buf *msg)
{
	if (v->verdict != RN_VERDICT_FAIL || c->same_machine)
		return;
	v->verdict = RN_VERDICT_WARN;
	rn_buf_addf(msg, "; not gated: golden trace recorded on another machine (%s)",
		    c->elsewhere);
}

bool rn_golden_loaded(const struct rn_golden_cmp *c)
{
	return c->r->has_cpu_pressure && c->r->cpu_pressure >= RN_LOAD_PRESSURE_BUSY;
}

bool rn_golden_io_bound(const struct rn_golden_cmp *c)
{
	return c->r->has_io_pressure && c->r->io_pressure >= RN_LOAD_PRESSURE_BUSY;
}
