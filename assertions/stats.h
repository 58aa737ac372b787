/*
 * stats.h - small, distribution-free statistics for noisy performance samples.
 *
 * Timing samples of a program are skewed (a long right tail from scheduling, page faults and
 * cache misses) and few (5 to 30 runs), so renacer judges them with rank statistics that assume
 * nothing about the distribution:
 *
 * - the Mann-Whitney U test (Mann & Whitney 1947; Hollander, Wolfe & Chicken, "Nonparametric
 *   Statistical Methods", 3rd ed., section 4.1) says whether one sample is stochastically
 *   greater than the other;
 * - the Hodges-Lehmann estimator (Hodges & Lehmann 1963; ibid. sections 4.2 and 4.3) says by
 *   how much: the median of all pairwise differences, with a confidence bound read off the same
 *   U distribution.
 *
 * All functions take samples as arrays of finite doubles (NaN is not allowed), never modify
 * them, and are pure: no global state, thread safe. They allocate scratch memory with
 * rn_xmalloc() (the runner dies on out-of-memory).
 */
#ifndef RN_STATS_H
#define RN_STATS_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Largest combined sample size N = na + nb for which the exact permutation distribution of U is
 * used; above it, the normal approximation (already within 1e-3 of the exact p there). The
 * exact computation costs about 2 m^2 N^2 additions (m = min(na, nb)) and m N doubles of
 * scratch: under 0.1 s and 4 MiB at N = 100.
 */
#define RN_STATS_EXACT_MAX 100

/* Median of `n` samples (mean of the two middle ones when n is even); NaN when n == 0. */
double rn_stats_median(const double *x, size_t n);

/*
 * Median absolute deviation: median(|x_i - median(x)|), unscaled (multiply by 1.4826 for a
 * consistent estimate of a normal standard deviation). NaN when n == 0.
 */
double rn_stats_mad(const double *x, size_t n);

/* Result of a one-sided Mann-Whitney U test. */
struct rn_mann_whitney {
	double u;   /* U of `b`: pairs (a_i, b_j) with b_j > a_i, plus half the tied pairs;
			 * 0 <= u <= na * nb */
	double p;   /* one-sided p-value P(U >= u) under H0 (identical distributions) for
			 * H1 "b is stochastically greater than a"; 1 when either sample is empty */
	double z;   /* standardized statistic of the normal approximation (continuity
			 * corrected); 0 when exact */
	bool exact; /* true: p from the exact permutation distribution of the rank sum given
			 * the observed ties; false: normal approximation with tie correction */
	bool ties;  /* some value occurs more than once in the pooled sample */
};

/* Hodges-Lehmann shift estimate with distribution-free confidence bounds. */
struct rn_hodges_lehmann {
	double shift; /* median of the na * nb differences b_j - a_i (in the samples' unit) */
	double lower; /* one-sided lower confidence bound at level 1 - alpha: the k-th smallest
		       * difference; -INFINITY when the samples are too small for that level */
	double upper; /* one-sided upper bound at level 1 - alpha: the k-th largest difference;
		       * +INFINITY when the samples are too small */
	size_t k;     /* rank used for the bounds (1-based); 0 when no bound exists */
	double level; /* achieved confidence P(lower <= true shift) >= level >= 1 - alpha
		       * (under continuity and a pure shift); 0 when no bound exists */
};

/*
 * Paired comparisons (same-job baseline, runner/check/baseline.h): d_i = head_i - base_i of runs
 * taken side by side. The Wilcoxon signed-rank test (Wilcoxon 1945; Hollander, Wolfe &
 * Chicken, "Nonparametric Statistical Methods", 3rd ed., section 3.1) says whether the
 * differences tend to be positive; the Hodges-Lehmann estimate of the one-sample location
 * (ibid. sections 3.2 and 3.3: median of the Walsh averages (d_i + d_j) / 2, i <= j) says by
 * how much, with a distribution-free confidence interval read off the same distribution.
 */

/* Largest number of non-zero differences for which the exact distribution of W+ is used
 * (2^n labellings counted by dynamic programming over the doubled midranks: n^3 / 2 steps). */
#define RN_STATS_WILCOXON_EXACT_MAX 60

/* Result of a one-sided Wilcoxon signed-rank test. */
struct rn_wilcoxon {
	double w_plus; /* sum of the (mid-)ranks of |d_i| over the positive d_i (zeros dropped) */
	size_t n;      /* non-zero differences used */
	double p;      /* one-sided p-value P(W+ >= w_plus) under H0 (differences symmetric
			 * about 0) for H1 "the differences tend to be positive"; 1 when n == 0 */
	double z;      /* standardized statistic of the normal approximation; 0 when exact */
	bool exact;    /* p from the exact distribution of W+ given the observed ties */
};

/*
 * One-sided Wilcoxon signed-rank test of H1: the paired differences `d` tend to be positive
 * (head slower than base when d = head - base). Zero differences are dropped (Wilcoxon's
 * convention); tied |d| get midranks. Exact when n <= RN_STATS_WILCOXON_EXACT_MAX: p is the
 * share of the 2^n sign assignments whose W+ is at least the observed one, ties handled
 * exactly. Otherwise the normal approximation z = (W+ - n(n+1)/4 - 1/2) / sigma,
 * sigma^2 = n(n+1)(2n+1)/24 - sum(t^3 - t)/48 over tie groups. Matches
 * scipy.stats.wilcoxon(d, alternative="greater", zero_method="wilcox") on untied data.
 * Never fails.
 */
void rn_stats_wilcoxon(const double *d, size_t n, struct rn_wilcoxon *out);

/* Hodges-Lehmann one-sample estimate with its Walsh-average confidence interval. */
struct rn_walsh_ci {
	double estimate; /* median of the n(n+1)/2 Walsh averages (unit of d); NaN when n == 0 */
	double lower;    /* lower bound: the k-th smallest Walsh average; -INFINITY when no k */
	double upper;    /* upper bound: the k-th largest Walsh average; +INFINITY when no k */
	size_t k;        /* rank used (1-based); 0 when n is too small for the level */
	double level;    /* achieved one-sided confidence of each bound, >= 1 - alpha; 0 if none */
};

/*
 * Hodges-Lehmann estimate of the centre of the paired differences `d` (all n, zeros kept)
 * and its one-sided confidence bounds at level 1 - alpha each (so [lower, upper] is a
 * two-sided interval of level 1 - 2 alpha). k is the largest rank with
 * P(W+ <= k - 1) <= alpha under the null distribution of W+ without ties (Hollander, Wolfe &
 * Chicken, section 3.3), exact for n <= RN_STATS_WILCOXON_EXACT_MAX, else
 * k = floor(n(n+1)/4 - z_(1-alpha) sqrt(n(n+1)(2n+1)/24) + 1/2). 0 < alpha < 0.5.
 * Never fails.
 */
void rn_stats_walsh_ci(const double *d, size_t n, double alpha, struct rn_walsh_ci *out);

/*
 * Two-mode samples: Silverman's bandwidth test of unimodality (B. W. Silverman, "Using kernel
 * density estimates to investigate multimodality", JRSS B 43 (1981) 97-99), as Mozilla's
 * PerfCompare applies it to timing samples. The critical bandwidth h_crit is the smallest
 * Gaussian kernel bandwidth at which the density estimate has one mode (modes are counted on
 * a grid of RN_STATS_MODES_GRID points); its p-value is the share of RN_STATS_MODES_BOOT
 * smoothed bootstrap samples (y = mean + (x_I - mean + h_crit e) / sqrt(1 + h_crit^2 / s^2),
 * e standard normal, from a fixed seed: the same samples give the same answer) whose estimate
 * at RN_STATS_MODES_LAMBDA * h_crit has more than one mode: Silverman's test is conservative
 * (its level at a nominal 0.05 is about 0.01 to 0.03), and P. Hall and M. York, "On the
 * calibration of Silverman's test for multimodality", Statistica Sinica 11 (2001) 515-536,
 * bring it to the nominal level by comparing h_crit* with lambda_alpha h_crit, lambda_0.05 =
 * 1.13.
 *
 * Values beyond Tukey's far-out fences (3 IQR beyond the quartiles) are left out first: one
 * outlier would otherwise set the critical bandwidth alone and hide two real modes. A timing
 * sample set has two modes when p < RN_STATS_MODES_ALPHA and each side of the
 * antimode (the density's lowest point between its two highest modes just below h_crit)
 * holds at least RN_STATS_MODES_MIN_SHARE of the samples and 2 of them: an outlier is not a
 * mode. The two groups' medians must also lie RN_STATS_MODES_MIN_GAP apart (the higher over
 * the lower, less 1): clusters nearer than that lie within one match window
 * (RN_STATS_MODES_MATCH) of each other, so a median of the other side "at" one of them is as
 * near the other, and a mix of them cannot be told from a shift. Such splits are common under
 * load: two clusters 2.4% apart in a pytest-benchmark check held a +16% regression
 * INCONCLUSIVE "two modes".
 */
#define RN_STATS_MODES_GRID 256
#define RN_STATS_MODES_BOOT 200
#define RN_STATS_MODES_ALPHA 0.05
#define RN_STATS_MODES_MIN_SHARE 0.2
#define RN_STATS_MODES_LAMBDA 1.13
/* How near a median must sit to a mode for a mix of modes to explain a shift, fraction
 * (rn_stats_modes_explain): under load one program's modes move by a few percent between runs,
 * more than a time tolerance. */
#define RN_STATS_MODES_MATCH 0.15
/* The least separation of two modes, fraction (high / low - 1): one match window. */
#define RN_STATS_MODES_MIN_GAP RN_STATS_MODES_MATCH

/* What rn_stats_modality found. */
struct rn_modality {
	double h_crit;    /* critical bandwidth, unit of x; 0 when all values are equal */
	double p;         /* bootstrap p-value of "one mode", calibrated (1 when n < 4 or all
			   * equal) */
	bool two_modes;   /* p < RN_STATS_MODES_ALPHA, both groups large enough and their
			   * medians RN_STATS_MODES_MIN_GAP apart */
	double antimode;  /* the split between the two modes, unit of x; NaN when one mode */
	size_t below;     /* samples below the antimode (0 when one mode; outliers left out) */
	size_t above;     /* samples at or above it (outliers left out) */
	double low_mode;  /* median of the samples below the antimode; NaN when one mode */
	double high_mode; /* median of those at or above it; NaN when one mode */
};

/* Test the n values of `x` (any order; n < 4 is one mode) for two modes. Never fails (dies on
 * out-of-memory). */
void rn_stats_modality(const double *x, size_t n, struct rn_modality *out);

/*
 * Whether a different mix of two modes explains the shift between samples a and b (their
 * modalities ma, mb and medians amed, bmed): one has two modes and the other's median lies
 * within `match` (a fraction) of one of them while its own median does not (both medians at
 * one mode: a shift within the mode, a change), or both have the same two modes, each within
 * `match`. Modes that moved are a change: false.
 */
/* Whether `v` lies within `match` (a fraction) of one of m's two modes; false when m has one. */
bool rn_stats_near_a_mode(const struct rn_modality *m, double v, double match);

bool rn_stats_modes_explain(const struct rn_modality *ma, double amed, const struct rn_modality *mb,
			    double bmed, double match);

#endif
