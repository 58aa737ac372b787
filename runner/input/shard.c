/*
 * shard.c - rendezvous hashing of target names over CI shards (see shard.h).
 */
#include "shard.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "config.h"
#include "golden.h"
#include "internal.h"
#include "log.h"
#include "xalloc.h"

int rn_shard_parse(const char *s, struct rn_shard *out)
{
	unsigned long k = 0, n = 0;
	const char *p = s;

	if (!s || *p < '0' || *p > '9')
		return -EINVAL;
	while (*p >= '0' && *p <= '9' && k <= RN_SHARD_MAX)
		k = k * 10 + (unsigned long)(*p++ - '0');
	if (*p++ != '/' || *p < '0' || *p > '9')
		return -EINVAL;
	while (*p >= '0' && *p <= '9' && n <= RN_SHARD_MAX)
		n = n * 10 + (unsigned long)(*p++ - '0');
	if (*p || k < 1 || n < 1 || k > n || n > RN_SHARD_MAX)
		return -EINVAL;
	out->index = (unsigned)k;
	out->count = (unsigned)n;
	return 0;
}

/* MurmurHash3's 64-bit finalizer: every input bit affects every output bit. */
static uint64_t fmix64(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

static uint64_t fnv1a64(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ull;
	}
	return h;
}

/* The rendezvous score of target `name` for shard `k` (1-based), as described above. */
static uint64_t rn_shard_score(const char *name, unsigned k)
{
	return fmix64(fnv1a64(name) ^ ((uint64_t)k * 0x9e3779b97f4a7c15ull));
}

static unsigned best_shard(const char *name, unsigned count)
{
	uint64_t best = 0;
	unsigned k, at = 1;

	for (k = 1; k <= count; k++) {
		uint64_t s = rn_shard_score(name, k);

		if (k == 1 || s > best) {
			best = s;
			at = k;
		}
	}
	return at;
}

/* Order for the balanced placement: heaviest first, then by name. */
struct wt {
	const char *name;
	double weight;
	size_t index;
};

static int by_weight(const void *a, const void *b)
{
	const struct wt *x = a, *y = b;

	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Shards 1..count in descending rendezvous score of `name` into `order` (selection sort:
 * count is small and this runs once per target). */
static void rank_shards(const char *name, unsigned count, unsigned *order, uint64_t *score)
{
	unsigned i, j;

	for (i = 0; i < count; i++) {
		order[i] = i + 1;
		score[i] = rn_shard_score(name, i + 1);
	}
	for (i = 0; i < count; i++) {
		unsigned best = i;

		for (j = i + 1; j < count; j++)
			if (score[j] > score[best])
				best = j;
		if (best != i) {
			unsigned o = order[i];
			uint64_t s = score[i];

			order[i] = order[best];
			score[i] = score[best];
			order[best] = o;
			score[best] = s;
		}
	}
}

int rn_shard_assign(const char *const *names, const double *weights, bool weighted, size_t n,
		    unsigned count, unsigned *shard_of)
{
	struct wt *ts;
	double *load, total = 0, cap;
	unsigned *order;
	uint64_t *score;
	size_t i;
	unsigned k;

	if (!weighted || !weights) {
		for (i = 0; i < n; i++)
			shard_of[i] = best_shard(names[i], count);
		return 0;
	}
	ts = calloc(n ? n : 1, sizeof(*ts));
	load = calloc(count, sizeof(*load));
	order = calloc(count, sizeof(*order));
	score = calloc(count, sizeof(*score));
	if (!ts || !load || !order || !score) {
		free(ts);
		free(load);
		free(order);
		free(score);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		ts[i].name = names[i];
		ts[i].weight = weights[i] > 0 ? weights[i] : 1.0;
		ts[i].index = i;
		total += ts[i].weight;
	}
	qsort(ts, n, sizeof(*ts), by_weight);
	/* Bounded loads (Mirrokni, Thorup, Zadimoghaddam 2018) with c = 1.25; no shard needs to
	 * take more than the heaviest target alone. */
	cap = 1.25 * total / count;
	if (n && ts[0].weight > cap)
		cap = ts[0].weight;
	for (i = 0; i < n; i++) {
		unsigned at = 0;

		rank_shards(ts[i].name, count, order, score);
		for (k = 0; k < count && !at; k++)
			if (load[order[k] - 1] + ts[i].weight <= cap)
				at = order[k];
		if (!at) {
			at = 1;
			for (k = 2; k <= count; k++)
				if (load[k - 1] < load[at - 1])
					at = k;
		}
		load[at - 1] += ts[i].weight;
		shard_of[ts[i].index] = at;
	}
	free(ts);
	free(load);
	free(order);
	free(score);
	return 0;
}

bool rn_shard_list_has(const char *const *names, const char *name)
{
	for (; names && *names; names++)
		if (!strcmp(*names, name))
			return true;
	return false;
}

const char **rn_shard_suite(const struct rn_config *cfg, const char *const *only, size_t *n_out)
{
	const char **names = rn_xcalloc(cfg->ntargets + 1, sizeof(*names));
	size_t i, n = 0;

	for (i = 0; i < cfg->ntargets; i++)
		if (!only || !*only || rn_shard_list_has(only, cfg->targets[i].name))
			names[n++] = cfg->targets[i].name;
	*n_out = n;
	return names;
}

int rn_shard_balance_parse(const char *s, enum rn_shard_balance *out)
{
	if (!strcmp(s, "name"))
		*out = RN_SHARD_BY_NAME;
	else if (!strcmp(s, "golden"))
		*out = RN_SHARD_BY_GOLDEN;
	else
		return -EINVAL;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Seconds one check spends on target `tc` by its golden trace, or 0 when it has none. */
static double golden_seconds(const struct rn_config *cfg, const struct rn_target_cfg *tc)
{
	struct rn_golden g;
	struct rn_diag d;
	struct rn_buf path;
	double secs = 0;

	rn_buf_init(&path, 0);
	rn_buf_addf(&path, "%s/%s.json", cfg->golden_dir, tc->name);
	if (!rn_buf_failed(&path) && !access(path.buf, F_OK) && !rn_golden_read(path.buf, &g, &d)) {
		if (g.nruns && g.samples[RN_METRIC_WALL]) {
			double *w = rn_xcalloc(g.nruns, sizeof(*w));

			memcpy(w, g.samples[RN_METRIC_WALL], g.nruns * sizeof(*w));
			qsort(w, g.nruns, sizeof(*w), cmp_double);
			secs = w[g.nruns / 2] / 1e9 * (double)(tc->warmup + tc->runs);
			free(w);
		}
		rn_golden_release(&g);
	}
	rn_buf_release(&path);
	return secs > 0 ? secs : 0;
}

const char **rn_shard_targets(const struct rn_config *cfg, const char *const *only,
			      const struct rn_shard *s, enum rn_shard_balance balance)
{
	size_t n, i, k, out = 0;
	const char **suite = rn_shard_suite(cfg, only, &n);
	double *weights = rn_xcalloc(n + 1, sizeof(*weights));
	unsigned *shard_of = rn_xcalloc(n + 1, sizeof(*shard_of));
	const char **mine = rn_xcalloc(n + 1, sizeof(*mine));
	bool weighted = false;

	for (i = 0; i < n; i++) {
		for (k = 0; k < cfg->ntargets; k++) {
			if (!strcmp(cfg->targets[k].name, suite[i])) {
				weights[i] = cfg->targets[k].shard_weight;
				if (!weights[i] && balance == RN_SHARD_BY_GOLDEN)
					weights[i] = golden_seconds(cfg, &cfg->targets[k]);
				weighted |= weights[i] > 0;
				break;
			}
		}
	}
	if (weighted) {
		/* Targets without a weight count as an average one. */
		double sum = 0;
		size_t known = 0;

		for (i = 0; i < n; i++)
			if (weights[i] > 0) {
				sum += weights[i];
				known++;
			}
		for (i = 0; i < n; i++)
			if (!(weights[i] > 0))
				weights[i] = sum / (double)known;
	}
	if (rn_shard_assign(suite, weights, weighted, n, s->count, shard_of))
		rn_die("out of memory");
	for (i = 0; i < n; i++)
		if (shard_of[i] == s->index)
			mine[out++] = suite[i];
	free(suite);
	free(weights);
	free(shard_of);
	return mine;
}
