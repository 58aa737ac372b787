/*
 * timing.c - timestamp queries around the application's GPU work, and their harvest.
 *
 * Recording: a timed primary command buffer gets a timestamp pair (Vulkan 1.3, 17.5
 * Timestamp Queries): TOP_OF_PIPE after vkBeginCommandBuffer, BOTTOM_OF_PIPE before
 * vkEndCommandBuffer. In dispatch mode each dispatch, copy and render pass gets its own
 * BOTTOM_OF_PIPE pair as well: "everything before has completed" to "this has completed",
 * which serializes the GPU around it (spans are flagged RN_VK_SPAN_SERIALIZED).
 *
 * Queries come from layer-owned pools in chunks that a command buffer keeps across
 * recordings. They are reset on the host (vkResetQueryPool, hostQueryReset, Vulkan 1.3,
 * 17.2 Query Operation) when the chunk enters use in a recording and again before a
 * re-submission, or else in-stream with vkCmdResetQueryPool when the chunk enters use. In the
 * in-stream case the queries still hold the previous execution's results between the submit
 * and the moment the GPU runs the reset, so the value of query 0 at submit time is kept and a
 * result equal to it is not taken as new.
 *
 * Harvest: results are read with VK_QUERY_RESULT_WITH_AVAILABILITY_BIT and never with
 * VK_QUERY_RESULT_WAIT_BIT (17.2: vkGetQueryPoolResults), at every submit (oldest first,
 * stopping at the first execution not done), after fence waits, queue and device idle waits
 * (all pending), before a command buffer is reset, re-recorded or freed, and before the
 * device is destroyed. What is never available by then is counted as lost.
 */
#include "state.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../clock.h"

#define POOL_QUERIES 1024u          /* queries per layer-owned pool */
#define MAX_POOLS 256u              /* pools per device: 262144 queries at most */
#define CHUNK_CMDBUF 2u             /* queries per chunk in cmdbuf and submit mode */
#define CHUNK_DISPATCH 64u          /* queries per chunk in dispatch mode */
#define NAMES_MAX (1u << 20)        /* name arena cap per command buffer, bytes */
#define CALIB_PERIOD_NS 1000000000u /* re-calibrate at a harvest once this old, ns */
#define CALIB_SAMPLES 5             /* samples per calibration round; the best is kept */
#define CALIB_ROUNDS 3              /* rounds at most while the best deviation is too large */
#define CALIB_GOOD_NS 20000u        /* deviation good enough to stop retrying, ns */

static void stat_add(uint64_t *counter)
{
	__atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
}

static bool dev_timing(struct layer_device *dev)
{
	return __atomic_load_n(&dev->timing, __ATOMIC_RELAXED);
}

/* ---- Records (device lock held) ------------------------------------------------------- */

static void emit(struct layer_device *dev, const struct rn_vk_record *rec)
{
	/* Nothing can be recorded once the file cannot be written: stop timing quietly. */
	if (writer_append(rec))
		__atomic_store_n(&dev->timing, false, __ATOMIC_RELAXED);
}

static void unpend_at(struct layer_device *dev, size_t i)
{
	memmove(&dev->pending[i], &dev->pending[i + 1],
		(dev->npending - i - 1) * sizeof(dev->pending[0]));
	dev->npending--;
}

static void unpend(struct layer_device *dev, struct layer_cmdbuf *cb)
{
	for (size_t i = dev->npending; i-- > 0;) {
		if (dev->pending[i] == cb) {
			unpend_at(dev, i);
			break;
		}
	}
	cb->pending = false;
}

/* One execution of a batch is settled; the last one writes the batch's SUBMIT span. */
static void batch_release(struct layer_device *dev, struct batch *b, bool lost, uint64_t now,
			  bool waited)
{
	struct rn_vk_record rec;

	if (lost)
		b->lost = true;
	if (waited)
		b->waited = true;
	b->harvest_ns = now;
	if (--b->remaining)
		return;
	if (!b->lost && b->have) {
		memset(&rec, 0, sizeof(rec));
		rec.type = RN_VK_REC_SPAN;
		rec.u.span.device = dev->id;
		rec.u.span.kind = RN_VK_KIND_SUBMIT;
		rec.u.span.flags = b->waited ? RN_VK_SPAN_WAITED : 0;
		rec.u.span.queue_family = b->family;
		rec.u.span.begin_ticks = b->min_begin;
		rec.u.span.end_ticks = b->max_end;
		rec.u.span.submit_ns = b->submit_ns;
		rec.u.span.harvest_ns = b->harvest_ns;
		rec.u.span.submit_seq = b->seq;
		snprintf(rec.u.span.name, sizeof(rec.u.span.name), "submit");
		emit(dev, &rec);
		dev->stats.spans++;
	}
	free(b);
}

/* An execution whose results will never be read. */
static void lose(struct layer_device *dev, struct layer_cmdbuf *cb)
{
	dev->stats.lost++;
	if (cb->batch)
		batch_release(dev, cb->batch, true, layer_now_ns(), false);
	cb->batch = NULL;
	unpend(dev, cb);
}

static void disable(struct layer_device *dev, uint32_t reason, VkResult vr, const char *what)
{
	struct rn_vk_record rec;

	if (!dev->timing)
		return;
	layer_debug("timing disabled on device %u: %s (VkResult %d)", dev->id, what, (int)vr);
	memset(&rec, 0, sizeof(rec));
	rec.type = RN_VK_REC_DISABLED;
	rec.u.disabled.device = dev->id;
	rec.u.disabled.reason = reason;
	rec.u.disabled.vk_result = vr;
	snprintf(rec.u.disabled.message, sizeof(rec.u.disabled.message), "%s", what);
	emit(dev, &rec);
	__atomic_store_n(&dev->timing, false, __ATOMIC_RELAXED);
	while (dev->npending)
		lose(dev, dev->pending[dev->npending - 1]);
	writer_flush();
}

/* Several samples of both clocks; keep the one with the lowest deviation, retrying a bounded
 * number of rounds while it is worse than CALIB_GOOD_NS (VK_EXT_calibrated_timestamps). */
static void calibrate(struct layer_device *dev)
{
	const VkCalibratedTimestampInfoEXT info[2] = {
		{ VK_STRUCTURE_TYPE_CALIBRATED_TIMESTAMP_INFO_EXT, NULL,
		  VK_TIME_DOMAIN_DEVICE_EXT },
		{ VK_STRUCTURE_TYPE_CALIBRATED_TIMESTAMP_INFO_EXT, NULL,
		  VK_TIME_DOMAIN_CLOCK_MONOTONIC_EXT },
	};
	struct rn_vk_clock_sample s[CALIB_SAMPLES], best = { 0, 0, UINT64_MAX };
	struct rn_vk_record rec;
	bool have = false;

	dev->last_calib_ns = layer_now_ns();
	if (!dev->calibrated || !dev->vk.GetCalibratedTimestampsEXT)
		return;
	for (int round = 0; round < CALIB_ROUNDS; round++) {
		size_t n = 0;

		for (int k = 0; k < CALIB_SAMPLES; k++) {
			uint64_t ts[2], dev_ns;

			if (dev->vk.GetCalibratedTimestampsEXT(dev->device, 2, info, ts, &dev_ns) !=
			    VK_SUCCESS)
				break;
			s[n++] = (struct rn_vk_clock_sample){ ts[0], ts[1], dev_ns };
		}
		if (n) {
			size_t b = rn_vk_clock_best(s, n);

			if (!have || s[b].deviation_ns < best.deviation_ns)
				best = s[b];
			have = true;
		}
		if (!n || best.deviation_ns <= CALIB_GOOD_NS)
			break;
	}
	if (!have)
		return;
	memset(&rec, 0, sizeof(rec));
	rec.type = RN_VK_REC_CALIBRATION;
	rec.u.calibration.device = dev->id;
	rec.u.calibration.gpu_ticks = best.gpu_ticks;
	rec.u.calibration.host_ns = best.host_ns;
	rec.u.calibration.deviation_ns = best.deviation_ns;
	emit(dev, &rec);
}

/* ---- Query slots (device lock held) --------------------------------------------------- */

static int new_pool(struct layer_device *dev)
{
	const VkQueryPoolCreateInfo ci = {
		.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
		.queryType = VK_QUERY_TYPE_TIMESTAMP,
		.queryCount = POOL_QUERIES,
	};
	uint32_t nchunks = POOL_QUERIES / dev->chunk_queries;
	VkQueryPool pool, *pools;
	struct slot_chunk *fc;
	VkResult r;

	if (dev->npools >= MAX_POOLS)
		return -1;
	pools = realloc(dev->pools, (dev->npools + 1) * sizeof(*pools));
	if (!pools)
		goto out_nomem;
	dev->pools = pools;
	if (dev->nfree + nchunks > dev->free_cap) {
		fc = realloc(dev->free_chunks, (dev->nfree + nchunks) * sizeof(*fc));
		if (!fc)
			goto out_nomem;
		dev->free_chunks = fc;
		dev->free_cap = dev->nfree + nchunks;
	}
	r = dev->vk.CreateQueryPool(dev->device, &ci, NULL, &pool);
	if (r != VK_SUCCESS) {
		disable(dev, RN_VK_DIS_QUERY_POOL, r, "vkCreateQueryPool failed");
		return -1;
	}
	dev->pools[dev->npools++] = pool;
	/* Newest pool's chunks on top, lowest query first. */
	for (uint32_t i = nchunks; i-- > 0;)
		dev->free_chunks[dev->nfree++] =
			(struct slot_chunk){ pool, i * dev->chunk_queries, false };
	return 0;
out_nomem:
	disable(dev, RN_VK_DIS_NO_MEMORY, VK_ERROR_OUT_OF_HOST_MEMORY, "query pool bookkeeping");
	return -1;
}

static void chunks_release(struct layer_device *dev, struct layer_cmdbuf *cb)
{
	for (uint32_t i = 0; i < cb->nchunks; i++) {
		if (dev->nfree == dev->free_cap) {
			size_t cap = dev->free_cap ? dev->free_cap * 2 : 64;
			struct slot_chunk *fc = realloc(dev->free_chunks, cap * sizeof(*fc));

			if (!fc)
				break; /* the chunk is leaked, nothing worse */
			dev->free_chunks = fc;
			dev->free_cap = cap;
		}
		cb->chunks[i].dirty = true;
		dev->free_chunks[dev->nfree++] = cb->chunks[i];
	}
	cb->nchunks = 0;
}

/* ---- Harvest (device lock held) ------------------------------------------------------- */

static void query_loc(const struct layer_cmdbuf *cb, uint32_t q, VkQueryPool *pool, uint32_t *index)
{
	const struct slot_chunk *c = &cb->chunks[q / cb->dev->chunk_queries];

	*pool = c->pool;
	*index = c->first + q % cb->dev->chunk_queries;
}

/*
 * Read `cb`'s results into dev->scratch as (value, availability) pairs. Returns 1 when all
 * are available and new, 0 when not yet, or a negative VkResult.
 */
static int collect(struct layer_device *dev, struct layer_cmdbuf *cb)
{
	const VkQueryResultFlags fl =
		VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT;
	uint32_t per = dev->chunk_queries, nq = cb->nqueries;

	if (2 * (size_t)nq > dev->scratch_cap) {
		size_t cap = 2 * (size_t)nq + 64;
		uint64_t *s = realloc(dev->scratch, cap * sizeof(*s));

		if (!s)
			return VK_ERROR_OUT_OF_HOST_MEMORY;
		dev->scratch = s;
		dev->scratch_cap = cap;
	}
	for (uint32_t k = 0; k * per < nq; k++) {
		uint32_t n = nq - k * per < per ? nq - k * per : per;
		VkResult r = dev->vk.GetQueryPoolResults(dev->device, cb->chunks[k].pool,
							 cb->chunks[k].first, n,
							 n * 2 * sizeof(uint64_t),
							 dev->scratch + 2 * (size_t)k * per,
							 2 * sizeof(uint64_t), fl);

		if (r != VK_SUCCESS && r != VK_NOT_READY)
			return r;
	}
	for (uint32_t i = 0; i < nq; i++)
		if (!dev->scratch[2 * i + 1])
			return 0;
	if (cb->have_stale && dev->scratch[0] == cb->stale_begin)
		return 0;
	return 1;
}

static const char *kind_default_name(uint8_t kind)
{
	switch (kind) {
	case RN_VK_KIND_DISPATCH:
		return "dispatch";
	case RN_VK_KIND_COPY:
		return "copy";
	case RN_VK_KIND_RENDER_PASS:
		return "render_pass";
	case RN_VK_KIND_SUBMIT:
		return "submit";
	default:
		return "cmdbuf";
	}
}

/* Write the spans of a collected execution (results in dev->scratch). */
static void emit_execution(struct layer_device *dev, struct layer_cmdbuf *cb, uint64_t now)
{
	uint32_t bits = cb->exec_family < dev->nfamilies ? dev->valid_bits[cb->exec_family] : 64;
	const uint64_t *v = dev->scratch;
	struct rn_vk_record rec;

	for (uint32_t i = 0; i < cb->nregions; i++) {
		const struct region *r = &cb->regions[i];
		struct rn_vk_rec_span *s = &rec.u.span;
		uint64_t begin = rn_vk_ticks_mask(v[2 * r->q], bits);
		uint64_t end = rn_vk_ticks_mask(v[2 * (r->q + 1)], bits);
		const char *name;

		if (dev->mode == RN_VK_MODE_SUBMIT) {
			struct batch *b = cb->batch;

			if (!b)
				break;
			if (!b->have || rn_vk_ticks_delta(b->min_begin, begin, bits) < 0)
				b->min_begin = begin;
			if (!b->have || rn_vk_ticks_delta(b->max_end, end, bits) > 0)
				b->max_end = end;
			b->have = true;
			break; /* only the whole command buffer is recorded in this mode */
		}
		if (r->name != NAME_NONE)
			name = cb->names + r->name;
		else if (r->kind == RN_VK_KIND_CMDBUF && cb->obj_name[0])
			name = cb->obj_name;
		else if (r->kind == RN_VK_KIND_CMDBUF && cb->first_label != NAME_NONE)
			name = cb->names + cb->first_label;
		else
			name = kind_default_name(r->kind);
		memset(&rec, 0, sizeof(rec));
		rec.type = RN_VK_REC_SPAN;
		s->device = dev->id;
		s->kind = r->kind;
		s->dir = r->dir;
		s->flags = (uint16_t)(r->flags | (cb->waited ? RN_VK_SPAN_WAITED : 0));
		s->queue_family = cb->exec_family;
		s->begin_ticks = begin;
		s->end_ticks = end;
		s->submit_ns = cb->submit_ns;
		s->harvest_ns = now;
		memcpy(s->groups, r->groups, sizeof(s->groups));
		s->bytes = r->bytes;
		s->submit_seq = cb->submit_seq;
		snprintf(s->name, sizeof(s->name), "%s", name);
		if (r->region != NAME_NONE)
			snprintf(s->region, sizeof(s->region), "%s", cb->names + r->region);
		else if (cb->queue_label[0])
			snprintf(s->region, sizeof(s->region), "%s", cb->queue_label);
		emit(dev, &rec);
		dev->stats.spans++;
	}
	if (cb->batch)
		batch_release(dev, cb->batch, false, now, cb->waited);
	cb->batch = NULL;
	cb->pending = false;
}

/*
 * Read back pending executions without waiting. `full`: look at all of them; else stop at
 * the first that is not done (executions mostly finish in submission order, so a submit
 * costs O(finished) instead of O(in flight)). Flushes the records it wrote.
 */
static void harvest(struct layer_device *dev, bool full, bool waited)
{
	uint64_t now = layer_now_ns();
	bool wrote = false;
	size_t i = 0;

	while (i < dev->npending && dev->timing) {
		struct layer_cmdbuf *cb = dev->pending[i];
		int r = collect(dev, cb);

		if (r < 0) {
			disable(dev, RN_VK_DIS_QUERY_RESULT, (VkResult)r,
				"vkGetQueryPoolResults failed");
			return;
		}
		if (r == 0) {
			if (!full)
				break;
			i++;
			continue;
		}
		cb->waited = waited;
		/* Stamped after the read: a long pending list takes a while to walk, and an
		 * execution that completes meanwhile must not look read before it ended. */
		emit_execution(dev, cb, layer_now_ns());
		unpend_at(dev, i);
		wrote = true;
	}
	if (dev->calibrated && dev->timing && now - dev->last_calib_ns >= CALIB_PERIOD_NS) {
		calibrate(dev);
		wrote = true;
	}
	if (wrote)
		writer_flush();
}

/* `cb` is about to be reset, re-recorded or freed, so it is not pending on the GPU any more
 * (Vulkan 1.3, 6.4 Command Buffer Lifecycle): its results are there or lost. */
static void settle(struct layer_device *dev, struct layer_cmdbuf *cb)
{
	int r;

	if (!cb->pending)
		return;
	r = collect(dev, cb);
	if (r == 1) {
		emit_execution(dev, cb, layer_now_ns());
		unpend(dev, cb);
		writer_flush();
	} else if (r == 0) {
		lose(dev, cb);
	} else {
		disable(dev, RN_VK_DIS_QUERY_RESULT, (VkResult)r, "vkGetQueryPoolResults failed");
	}
}

/* ---- Recording ------------------------------------------------------------------------ */

static struct layer_cmdbuf *cb_get(VkCommandBuffer h, struct layer_device **dev)
{
	struct layer_cmdbuf *cb = map_get(OBJ_COMMAND_BUFFER, HANDLE(h));

	*dev = cb ? cb->dev : device_of_dispatchable(h);
	return cb;
}

static void cb_clear_recording(struct layer_cmdbuf *cb)
{
	cb->timed = false;
	cb->executed = false; /* host mode: every chunk is reset again as it enters use */
	cb->nqueries = 0;
	cb->nregions = 0;
	cb->names_len = 0;
	cb->label_depth = 0;
	cb->insert_label = NAME_NONE;
	cb->first_label = NAME_NONE;
	cb->compute_pipeline = 0;
	cb->open_pass = -1;
}

static uint32_t cb_name(struct layer_cmdbuf *cb, const char *s)
{
	size_t n = strnlen(s, RN_VK_NAME_MAX - 1);
	uint32_t off;

	if (cb->names_len + n + 1 > cb->names_cap) {
		size_t cap = cb->names_cap ? cb->names_cap * 2 : 256;
		char *p;

		while (cap < cb->names_len + n + 1)
			cap *= 2;
		if (cap > NAMES_MAX)
			return NAME_NONE;
		p = realloc(cb->names, cap);
		if (!p)
			return NAME_NONE;
		cb->names = p;
		cb->names_cap = cap;
	}
	off = (uint32_t)cb->names_len;
	memcpy(cb->names + off, s, n);
	cb->names[off + n] = 0;
	cb->names_len += n + 1;
	return off;
}

/* Reserve the next query pair of `cb`, resetting a chunk as it enters use. -1 if none. */
static int64_t cb_query_pair(struct layer_cmdbuf *cb)
{
	struct layer_device *dev = cb->dev;
	uint32_t per = dev->chunk_queries, k = cb->nqueries / per;
	struct slot_chunk *c;
	int64_t q;

	if (cb->nqueries % per == 0) {
		pthread_mutex_lock(&dev->lock);
		if (!dev->timing)
			goto out_fail;
		if (k == cb->nchunks) {
			if (cb->nchunks == cb->chunks_cap) {
				uint32_t cap = cb->chunks_cap ? cb->chunks_cap * 2 : 1;
				struct slot_chunk *p = realloc(cb->chunks, cap * sizeof(*p));

				if (!p)
					goto out_fail;
				cb->chunks = p;
				cb->chunks_cap = cap;
			}
			if (!dev->nfree && new_pool(dev)) {
				if (dev->timing)
					dev->stats.untimed_no_slots++;
				goto out_fail;
			}
			cb->chunks[cb->nchunks++] = dev->free_chunks[--dev->nfree];
		}
		c = &cb->chunks[k];
		if (dev->host_reset) {
			dev->vk.ResetQueryPool(dev->device, c->pool, c->first, per);
			c->dirty = false;
		}
		pthread_mutex_unlock(&dev->lock);
		if (!dev->host_reset)
			dev->vk.CmdResetQueryPool(cb->cb, c->pool, c->first, per);
	}
	q = cb->nqueries;
	cb->nqueries += 2;
	return q;
out_fail:
	pthread_mutex_unlock(&dev->lock);
	return -1;
}

static void write_ts(struct layer_cmdbuf *cb, uint32_t q, VkPipelineStageFlagBits stage)
{
	VkQueryPool pool;
	uint32_t index;

	query_loc(cb, q, &pool, &index);
	cb->dev->vk.CmdWriteTimestamp(cb->cb, stage, pool, index);
}

/* The innermost open debug-utils label of the recording (name offset), NAME_NONE if none or
 * if it is nested deeper than the labels tracked. */
static uint32_t innermost_label(const struct layer_cmdbuf *cb)
{
	if (!cb->label_depth || cb->label_depth > LABEL_DEPTH)
		return NAME_NONE;
	return cb->labels[cb->label_depth - 1];
}

/* Open a timed region: reserve its pair and write the begin timestamp. Region index or -1. */
static int32_t region_begin(struct layer_cmdbuf *cb, uint8_t kind, uint32_t name,
			    VkPipelineStageFlagBits stage)
{
	struct region *r;
	int64_t q;

	if (!cb->timed)
		return -1;
	if (cb->nregions == cb->regions_cap) {
		uint32_t cap = cb->regions_cap ? cb->regions_cap * 2 : 8;
		struct region *p = realloc(cb->regions, cap * sizeof(*p));

		if (!p)
			return -1;
		cb->regions = p;
		cb->regions_cap = cap;
	}
	q = cb_query_pair(cb);
	if (q < 0)
		return -1;
	r = &cb->regions[cb->nregions];
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	r->q = (uint32_t)q;
	r->name = name;
	r->region = innermost_label(cb);
	r->flags = cb->dev->mode == RN_VK_MODE_DISPATCH ? RN_VK_SPAN_SERIALIZED : 0;
	write_ts(cb, r->q, stage);
	return (int32_t)cb->nregions++;
}

static void region_end(struct layer_cmdbuf *cb, int32_t i)
{
	if (i >= 0 && cb->timed)
		write_ts(cb, cb->regions[i].q + 1, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);
}

/* The label naming the next timed command: an inserted one (once), else the innermost open
 * one; NAME_NONE if none. */
static uint32_t take_label(struct layer_cmdbuf *cb)
{
	uint32_t l = cb->insert_label;

	if (l != NAME_NONE) {
		cb->insert_label = NAME_NONE;
		return l;
	}
	if (cb->label_depth)
		return cb->labels[(cb->label_depth < LABEL_DEPTH ? cb->label_depth : LABEL_DEPTH) -
				  1];
	return NAME_NONE;
}

/* Name of a dispatch: label, pipeline name, module name, entry point other than "main",
 * else the pipeline's stable identity "cs_xxxxxxxx". */
static uint32_t dispatch_name(struct layer_cmdbuf *cb)
{
	uint32_t l = take_label(cb);
	struct layer_pipeline *p;
	char id[16];

	if (l != NAME_NONE)
		return l;
	p = cb->compute_pipeline ? map_get(OBJ_PIPELINE, cb->compute_pipeline) : NULL;
	if (!p)
		return cb_name(cb, "dispatch");
	if (p->name[0])
		return cb_name(cb, p->name);
	if (p->module_name[0])
		return cb_name(cb, p->module_name);
	if (p->entry[0] && strcmp(p->entry, "main"))
		return cb_name(cb, p->entry);
	snprintf(id, sizeof(id), "cs_%08x", p->identity);
	return cb_name(cb, id);
}

/* Timed pair around one command in dispatch mode: region index or -1. */
static int32_t command_begin(struct layer_cmdbuf *cb, uint8_t kind, const char *dflt)
{
	uint32_t name;

	if (!cb || !cb->timed)
		return -1;
	name = kind == RN_VK_KIND_DISPATCH ? dispatch_name(cb) : take_label(cb);
	if (name == NAME_NONE)
		name = cb_name(cb, dflt);
	return region_begin(cb, kind, name, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);
}

/* Host or device side of a buffer's memory: 0 unknown, 1 host, 2 device. */
static int buffer_side(struct layer_device *dev, VkBuffer buffer)
{
	struct layer_buffer *b = map_get(OBJ_BUFFER, HANDLE(buffer));
	struct layer_memory *m;
	VkMemoryPropertyFlags f;

	if (!b || !b->memory)
		return 0;
	m = map_get(OBJ_MEMORY, HANDLE(b->memory));
	if (!m || m->type_index >= dev->mem.memoryTypeCount)
		return 0;
	f = dev->mem.memoryTypes[m->type_index].propertyFlags;
	/* Device-local wins: BAR memory that is also host-visible still lives on the device. */
	if (f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)
		return 2;
	return f & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT ? 1 : 2;
}

static uint8_t direction(int src, int dst)
{
	static const uint8_t dirs[3][3] = {
		{ RN_VK_DIR_NONE, RN_VK_DIR_NONE, RN_VK_DIR_NONE },
		{ RN_VK_DIR_NONE, RN_VK_DIR_HTOH, RN_VK_DIR_HTOD },
		{ RN_VK_DIR_NONE, RN_VK_DIR_DTOH, RN_VK_DIR_DTOD },
	};

	return dirs[src][dst];
}

static void copy_info(struct layer_cmdbuf *cb, int32_t i, uint64_t bytes, uint8_t dir)
{
	if (i < 0)
		return;
	cb->regions[i].bytes = bytes;
	cb->regions[i].dir = dir;
}

/* ---- Device life cycle ---------------------------------------------------------------- */

void timing_device_start(struct layer_device *dev, const struct rn_vk_rec_device *rec)
{
	struct rn_vk_record r;

	dev->chunk_queries = dev->mode == RN_VK_MODE_DISPATCH ? CHUNK_DISPATCH : CHUNK_CMDBUF;
	memset(&r, 0, sizeof(r));
	r.type = RN_VK_REC_DEVICE;
	r.u.device = *rec;
	pthread_mutex_lock(&dev->lock);
	emit(dev, &r);
	calibrate(dev);
	writer_flush();
	pthread_mutex_unlock(&dev->lock);
}

static void cb_free(struct layer_cmdbuf *cb)
{
	free(cb->chunks);
	free(cb->regions);
	free(cb->names);
	free(cb);
}

void timing_device_stop(struct layer_device *dev)
{
	struct rn_vk_record rec;

	pthread_mutex_lock(&dev->lock);
	if (dev->timing) {
		harvest(dev, true, false);
		while (dev->npending)
			lose(dev, dev->pending[dev->npending - 1]);
		calibrate(dev);
	}
	if (dev->configured) {
		memset(&rec, 0, sizeof(rec));
		rec.type = RN_VK_REC_STATS;
		rec.u.stats = dev->stats;
		rec.u.stats.device = dev->id;
		writer_append(&rec);
		writer_flush();
	}
	for (uint32_t i = 0; i < dev->npools; i++)
		dev->vk.DestroyQueryPool(dev->device, dev->pools[i], NULL);
	while (dev->pools_list) {
		struct layer_pool *p = dev->pools_list;

		dev->pools_list = p->next;
		for (size_t i = 0; i < p->ncbs; i++) {
			map_del(OBJ_COMMAND_BUFFER, HANDLE(p->cbs[i]->cb));
			cb_free(p->cbs[i]);
		}
		map_del(OBJ_COMMAND_POOL, HANDLE(p->pool));
		free(p->cbs);
		free(p);
	}
	while (dev->queues) {
		struct layer_queue *q = dev->queues;

		dev->queues = q->next;
		map_del_state(q);
		free(q);
	}
	free(dev->pools);
	free(dev->free_chunks);
	free(dev->pending);
	free(dev->scratch);
	dev->pools = NULL;
	dev->free_chunks = NULL;
	dev->pending = NULL;
	dev->scratch = NULL;
	pthread_mutex_unlock(&dev->lock);
}

/* ---- Hooks: queues and waits ---------------------------------------------------------- */

static void queue_track(struct layer_device *dev, VkQueue queue, uint32_t family)
{
	struct layer_queue *q;

	if (!queue || map_get(OBJ_QUEUE, HANDLE(queue)))
		return;
	q = calloc(1, sizeof(*q));
	if (!q)
		return;
	q->dev = dev;
	q->family = family;
	if (map_put(OBJ_QUEUE, HANDLE(queue), q)) {
		free(q);
		return;
	}
	pthread_mutex_lock(&dev->lock);
	q->next = dev->queues;
	dev->queues = q;
	pthread_mutex_unlock(&dev->lock);
}

void layer_GetDeviceQueue(VkDevice device, uint32_t family, uint32_t index, VkQueue *pQueue)
{
	struct layer_device *dev = map_get(OBJ_DEVICE, HANDLE(device));

	dev->vk.GetDeviceQueue(device, family, index, pQueue);
	queue_track(dev, *pQueue, family);
}

void layer_GetDeviceQueue2(VkDevice device, const VkDeviceQueueInfo2 *info, VkQueue *pQueue)
{
	struct layer_device *dev = map_get(OBJ_DEVICE, HANDLE(device));

	dev->vk.GetDeviceQueue2(device, info, pQueue);
	queue_track(dev, *pQueue, info->queueFamilyIndex);
}

/* Submit bookkeeping shared by vkQueueSubmit and vkQueueSubmit2. */
struct submit_ctx {
	struct layer_device *dev;
	struct layer_queue *queue;
	uint64_t now;        /* host time of the submit, ns */
	uint64_t first_seq;  /* batch numbers of this call: first_seq .. dev->submit_seq */
	struct batch *batch; /* current batch (submit mode) */
};

static void submit_start(struct submit_ctx *s, struct layer_device *dev, struct layer_queue *q)
{
	s->dev = dev;
	s->queue = q;
	pthread_mutex_lock(&dev->lock);
	harvest(dev, false, false);
	s->now = layer_now_ns();
	s->first_seq = dev->submit_seq + 1;
	s->batch = NULL;
}

static void submit_batch(struct submit_ctx *s)
{
	struct layer_device *dev = s->dev;

	dev->submit_seq++;
	if (dev->mode != RN_VK_MODE_SUBMIT)
		return;
	s->batch = calloc(1, sizeof(*s->batch));
	if (!s->batch)
		return;
	s->batch->family = s->queue->family;
	s->batch->submit_ns = s->now;
	s->batch->seq = dev->submit_seq;
	s->batch->remaining = 1; /* held by the submit until submit_batch_end() */
}

static void submit_cb(struct submit_ctx *s, VkCommandBuffer h)
{
	struct layer_device *dev = s->dev;
	struct layer_cmdbuf *cb = map_get(OBJ_COMMAND_BUFFER, HANDLE(h));

	if (!cb || !cb->timed || !dev->timing)
		return;
	if (cb->pending) {
		/* Submitted again before its last execution could be read (Vulkan 1.3, 6.5:
		 * only legal once that execution completed): read it now or count it lost. */
		settle(dev, cb);
		if (!dev->timing)
			return;
	}
	if (dev->host_reset && cb->executed) {
		uint32_t per = dev->chunk_queries;

		for (uint32_t k = 0; k * per < cb->nqueries; k++) {
			dev->vk.ResetQueryPool(dev->device, cb->chunks[k].pool, cb->chunks[k].first,
					       per);
			cb->chunks[k].dirty = false;
		}
	}
	cb->have_stale = false;
	if (!dev->host_reset && cb->nchunks && cb->chunks[0].dirty) {
		uint64_t v[2] = { 0, 0 };
		VkResult r =
			dev->vk.GetQueryPoolResults(dev->device, cb->chunks[0].pool,
						    cb->chunks[0].first, 1, sizeof(v), v, sizeof(v),
						    VK_QUERY_RESULT_64_BIT |
							    VK_QUERY_RESULT_WITH_AVAILABILITY_BIT);

		if ((r == VK_SUCCESS || r == VK_NOT_READY) && v[1]) {
			cb->have_stale = true;
			cb->stale_begin = v[0];
		}
	}
	cb->executed = true;
	if (cb->nchunks)
		cb->chunks[0].dirty = true;
	if (dev->npending == dev->pending_cap) {
		size_t cap = dev->pending_cap ? dev->pending_cap * 2 : 64;
		struct layer_cmdbuf **p = realloc(dev->pending, cap * sizeof(*p));

		if (!p) {
			dev->stats.lost++;
			return;
		}
		dev->pending = p;
		dev->pending_cap = cap;
	}
	cb->pending = true;
	cb->waited = false;
	cb->exec_family = s->queue->family;
	if (s->queue->label_depth && s->queue->label_depth <= LABEL_DEPTH)
		memcpy(cb->queue_label, s->queue->labels[s->queue->label_depth - 1],
		       sizeof(cb->queue_label));
	else
		cb->queue_label[0] = 0;
	cb->submit_ns = s->now;
	cb->submit_seq = dev->submit_seq;
	cb->batch = s->batch;
	if (s->batch)
		s->batch->remaining++;
	dev->pending[dev->npending++] = cb;
}

static void submit_batch_end(struct submit_ctx *s)
{
	if (s->batch)
		batch_release(s->dev, s->batch, false, s->now, false);
	s->batch = NULL;
}

/* After the real submit: on failure nothing ran, so nothing of this call is pending. */
static void submit_finish(struct submit_ctx *s, VkResult r)
{
	struct layer_device *dev = s->dev;

	if (r != VK_SUCCESS) {
		for (size_t i = dev->npending; i-- > 0;) {
			struct layer_cmdbuf *cb = dev->pending[i];

			if (cb->submit_seq >= s->first_seq) {
				if (cb->batch)
					batch_release(dev, cb->batch, true, s->now, false);
				cb->batch = NULL;
				cb->pending = false;
				unpend_at(dev, i);
			}
		}
	}
	pthread_mutex_unlock(&dev->lock);
}

VkResult layer_QueueSubmit(VkQueue queue, uint32_t n, const VkSubmitInfo *submits, VkFence fence)
{
	struct layer_queue *q = map_get(OBJ_QUEUE, HANDLE(queue));
	struct layer_device *dev = q ? q->dev : device_of_dispatchable(queue);
	struct submit_ctx s;
	VkResult r;

	if (!q || !dev_timing(dev))
		return dev->vk.QueueSubmit(queue, n, submits, fence);
	submit_start(&s, dev, q);
	for (uint32_t i = 0; i < n; i++) {
		submit_batch(&s);
		for (uint32_t j = 0; j < submits[i].commandBufferCount; j++)
			submit_cb(&s, submits[i].pCommandBuffers[j]);
		submit_batch_end(&s);
	}
	/* The real submit runs under the device lock so that a harvest on another thread cannot
	 * read queries between their host reset above and this submission. */
	r = dev->vk.QueueSubmit(queue, n, submits, fence);
	submit_finish(&s, r);
	return r;
}

VkResult layer_QueueSubmit2(VkQueue queue, uint32_t n, const VkSubmitInfo2 *submits, VkFence fence)
{
	struct layer_queue *q = map_get(OBJ_QUEUE, HANDLE(queue));
	struct layer_device *dev = q ? q->dev : device_of_dispatchable(queue);
	struct submit_ctx s;
	VkResult r;

	if (!q || !dev_timing(dev))
		return dev->vk.QueueSubmit2(queue, n, submits, fence);
	submit_start(&s, dev, q);
	for (uint32_t i = 0; i < n; i++) {
		submit_batch(&s);
		for (uint32_t j = 0; j < submits[i].commandBufferInfoCount; j++)
			submit_cb(&s, submits[i].pCommandBufferInfos[j].commandBuffer);
		submit_batch_end(&s);
	}
	r = dev->vk.QueueSubmit2(queue, n, submits, fence);
	submit_finish(&s, r);
	return r;
}

static void harvest_after_wait(struct layer_device *dev, VkResult r, bool full)
{
	if (r != VK_SUCCESS || !dev_timing(dev))
		return;
	pthread_mutex_lock(&dev->lock);
	harvest(dev, full, full);
	pthread_mutex_unlock(&dev->lock);
}

VkResult layer_QueueWaitIdle(VkQueue queue)
{
	struct layer_queue *q = map_get(OBJ_QUEUE, HANDLE(queue));
	struct layer_device *dev = q ? q->dev : device_of_dispatchable(queue);
	VkResult r = dev->vk.QueueWaitIdle(queue);

	harvest_after_wait(dev, r, true);
	return r;
}

VkResult layer_DeviceWaitIdle(VkDevice device)
{
	struct layer_device *dev = map_get(OBJ_DEVICE, HANDLE(device));
	VkResult r = dev->vk.DeviceWaitIdle(device);

	harvest_after_wait(dev, r, true);
	return r;
}

VkResult layer_WaitForFences(VkDevice device, uint32_t n, const VkFence *fences, VkBool32 all,
			     uint64_t timeout)
{
	struct layer_device *dev = map_get(OBJ_DEVICE, HANDLE(device));
	VkResult r = dev->vk.WaitForFences(device, n, fences, all, timeout);

	harvest_after_wait(dev, r, true);
	return r;
}

VkResult layer_GetFenceStatus(VkDevice device, VkFence fence)
{
	struct layer_device *dev = map_get(OBJ_DEVICE, HANDLE(device));
	VkResult r = dev->vk.GetFenceStatus(device, fence);

	harvest_after_wait(dev, r, false);
	return r;
}

/* ---- Hooks: command pools and buffers ------------------------------------------------- */

VkResult layer_CreateCommandPool(VkDevice device, const VkCommandPoolCreateInfo *info,
				 const VkAllocationCallbacks *alloc, VkCommandPool *pPool)
{
	struct layer_device *dev = map_get(OBJ_DEVICE, HANDLE(device));
	VkResult r = dev->vk.CreateCommandPool(device, info, alloc, pPool);
	struct layer_pool *p;

	if (r != VK_SUCCESS)
		return r;
	p = calloc(1, sizeof(*p));
	if (!p)
		return r;
	p->pool = *pPool;
	p->dev = dev;
	p->family = info->queueFamilyIndex;
	if (map_put(OBJ_COMMAND_POOL, HANDLE(*pPool), p)) {
		free(p);
		return r;
	}
	pthread_mutex_lock(&dev->lock);
	p->next = dev->pools_list;
	dev->pools_list = p;
	pthread_mutex_unlock(&dev->lock);
	return r;
}

static void pool_remove_cb(struct layer_pool *p, struct layer_cmdbuf *cb)
{
	for (size_t i = 0; i < p->ncbs; i++) {
		if (p->cbs[i] == cb) {
			p->cbs[i] = p->cbs[--p->ncbs];
			return;
		}
	}
}

void layer_DestroyCommandPool(VkDevice device, VkCommandPool pool,
			      const VkAllocationCallbacks *alloc)
{
	struct layer_device *dev = map_get(OBJ_DEVICE, HANDLE(device));
	struct layer_pool *p = pool ? map_del(OBJ_COMMAND_POOL, HANDLE(pool)) : NULL;

	if (p) {
		pthread_mutex_lock(&dev->lock);
		for (struct layer_pool **pp = &dev->pools_list; *pp; pp = &(*pp)->next) {
			if (*pp == p) {
				*pp = p->next;
				break;
			}
		}
		for (size_t i = 0; i < p->ncbs; i++) {
			struct layer_cmdbuf *cb = p->cbs[i];

			settle(dev, cb);
			chunks_release(dev, cb);
			map_del(OBJ_COMMAND_BUFFER, HANDLE(cb->cb));
			cb_free(cb);
		}
		pthread_mutex_unlock(&dev->lock);
		free(p->cbs);
		free(p);
	}
	dev->vk.DestroyCommandPool(device, pool, alloc);
}

VkResult layer_ResetCommandPool(VkDevice device, VkCommandPool pool, VkCommandPoolResetFlags flags)
{
	struct layer_device *dev = map_get(OBJ_DEVICE, HANDLE(device));
	struct layer_pool *p = map_get(OBJ_COMMAND_POOL, HANDLE(pool));

	if (p) {
		pthread_mutex_lock(&dev->lock);
		for (size_t i = 0; i < p->ncbs; i++) {
			settle(dev, p->cbs[i]);
			cb_clear_recording(p->cbs[i]);
		}
		pthread_mutex_unlock(&dev->lock);
	}
	return dev->vk.ResetCommandPool(device, pool, flags);
}

VkResult layer_AllocateCommandBuffers(VkDevice device, const VkCommandBufferAllocateInfo *info,
				      VkCommandBuffer *cbs)
{
	struct layer_device *dev = map_get(OBJ_DEVICE, HANDLE(device));
	VkResult r = dev->vk.AllocateCommandBuffers(device, info, cbs);
	struct layer_pool *p;

	if (r != VK_SUCCESS)
		return r;
	p = map_get(OBJ_COMMAND_POOL, HANDLE(info->commandPool));
	if (!p)
		return r;
	pthread_mutex_lock(&dev->lock);
	for (uint32_t i = 0; i < info->commandBufferCount; i++) {
		struct layer_cmdbuf *cb;

		if (p->ncbs == p->cbs_cap) {
			size_t cap = p->cbs_cap ? p->cbs_cap * 2 : 16;
			struct layer_cmdbuf **a = realloc(p->cbs, cap * sizeof(*a));

			if (!a)
				break;
			p->cbs = a;
			p->cbs_cap = cap;
		}
		cb = calloc(1, sizeof(*cb));
		if (!cb)
			break; /* untracked: its commands pass straight through */
		cb->cb = cbs[i];
		cb->dev = dev;
		cb->pool = p;
		cb->primary = info->level == VK_COMMAND_BUFFER_LEVEL_PRIMARY;
		cb_clear_recording(cb);
		if (map_put(OBJ_COMMAND_BUFFER, HANDLE(cbs[i]), cb)) {
			free(cb);
			break;
		}
		p->cbs[p->ncbs++] = cb;
	}
	pthread_mutex_unlock(&dev->lock);
	return r;
}

void layer_FreeCommandBuffers(VkDevice device, VkCommandPool pool, uint32_t n,
			      const VkCommandBuffer *cbs)
{
	struct layer_device *dev = map_get(OBJ_DEVICE, HANDLE(device));

	pthread_mutex_lock(&dev->lock);
	for (uint32_t i = 0; i < n; i++) {
		struct layer_cmdbuf *cb =
			cbs[i] ? map_del(OBJ_COMMAND_BUFFER, HANDLE(cbs[i])) : NULL;

		if (!cb)
			continue;
		settle(dev, cb);
		chunks_release(dev, cb);
		pool_remove_cb(cb->pool, cb);
		cb_free(cb);
	}
	pthread_mutex_unlock(&dev->lock);
	dev->vk.FreeCommandBuffers(device, pool, n, cbs);
}

/* Before a reset or a new recording: read or lose the last execution, forget the recording. */
static void cb_retire(struct layer_cmdbuf *cb)
{
	struct layer_device *dev = cb->dev;

	if (cb->pending) {
		pthread_mutex_lock(&dev->lock);
		settle(dev, cb);
		pthread_mutex_unlock(&dev->lock);
	}
	cb_clear_recording(cb);
}

VkResult layer_ResetCommandBuffer(VkCommandBuffer h, VkCommandBufferResetFlags flags)
{
	struct layer_device *dev;
	struct layer_cmdbuf *cb = cb_get(h, &dev);

	if (cb)
		cb_retire(cb);
	return dev->vk.ResetCommandBuffer(h, flags);
}

VkResult layer_BeginCommandBuffer(VkCommandBuffer h, const VkCommandBufferBeginInfo *info)
{
	struct layer_device *dev;
	struct layer_cmdbuf *cb = cb_get(h, &dev);
	uint32_t family;
	VkResult r;

	if (cb)
		cb_retire(cb);
	r = dev->vk.BeginCommandBuffer(h, info);
	if (r != VK_SUCCESS || !cb || !dev_timing(dev))
		return r;
	family = cb->pool->family;
	if (!cb->primary) {
		stat_add(&dev->stats.untimed_secondary);
	} else if (info->flags & VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT) {
		/* May be pending several times at once: one set of queries cannot serve it. */
		stat_add(&dev->stats.untimed_simultaneous);
	} else if (family >= dev->nfamilies || !dev->valid_bits[family]) {
		stat_add(&dev->stats.untimed_family);
	} else {
		cb->timed = true;
		if (region_begin(cb, RN_VK_KIND_CMDBUF, NAME_NONE,
				 VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT) != 0)
			cb->timed = false;
	}
	return r;
}

static void close_label_regions(struct layer_cmdbuf *cb);

VkResult layer_EndCommandBuffer(VkCommandBuffer h)
{
	struct layer_device *dev;
	struct layer_cmdbuf *cb = cb_get(h, &dev);

	if (cb && cb->timed) {
		close_label_regions(cb);
		region_end(cb, 0);
	}
	return dev->vk.EndCommandBuffer(h);
}

/* ---- Hooks: names --------------------------------------------------------------------- */

VkResult layer_SetDebugUtilsObjectNameEXT(VkDevice device,
					  const VkDebugUtilsObjectNameInfoEXT *info)
{
	struct layer_device *dev = map_get(OBJ_DEVICE, HANDLE(device));
	VkResult r = dev->vk.SetDebugUtilsObjectNameEXT(device, info);
	const char *name = info->pObjectName ? info->pObjectName : "";
	char *dst = NULL;

	if (r != VK_SUCCESS)
		return r;
	if (info->objectType == VK_OBJECT_TYPE_PIPELINE) {
		struct layer_pipeline *p = map_get(OBJ_PIPELINE, info->objectHandle);

		dst = p ? p->name : NULL;
	} else if (info->objectType == VK_OBJECT_TYPE_SHADER_MODULE) {
		struct layer_module *m = map_get(OBJ_SHADER_MODULE, info->objectHandle);

		dst = m ? m->name : NULL;
	} else if (info->objectType == VK_OBJECT_TYPE_COMMAND_BUFFER) {
		struct layer_cmdbuf *cb = map_get(OBJ_COMMAND_BUFFER, info->objectHandle);

		dst = cb ? cb->obj_name : NULL;
	}
	if (dst)
		snprintf(dst, RN_VK_NAME_MAX, "%s", name);
	return r;
}

void layer_CmdBeginDebugUtilsLabelEXT(VkCommandBuffer h, const VkDebugUtilsLabelEXT *label)
{
	struct layer_device *dev;
	struct layer_cmdbuf *cb = cb_get(h, &dev);

	dev->vk.CmdBeginDebugUtilsLabelEXT(h, label);
	if (!cb)
		return;
	{
		uint32_t off = cb_name(cb, label->pLabelName ? label->pLabelName : "");
		int32_t timed = -1;

		/* In dispatch mode a label is a timed region too (its work is serialized
		 * already); begun before it is pushed, so its own region is its parent. */
		if (dev->mode == RN_VK_MODE_DISPATCH && cb->label_depth < LABEL_DEPTH)
			timed = region_begin(cb, RN_VK_KIND_REGION, off,
					     VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);
		if (cb->label_depth < LABEL_DEPTH) {
			cb->labels[cb->label_depth] = off;
			cb->label_regions[cb->label_depth] = timed;
		}
		cb->label_depth++;
		if (cb->first_label == NAME_NONE)
			cb->first_label = off;
	}
}

/* Close the timed regions of labels still open (a label may end in a later command buffer,
 * Vulkan 1.3, 4.2: the region is then cut at the end of this one). */
static void close_label_regions(struct layer_cmdbuf *cb)
{
	uint32_t n = cb->label_depth < LABEL_DEPTH ? cb->label_depth : LABEL_DEPTH;

	for (uint32_t i = n; i-- > 0;) {
		region_end(cb, cb->label_regions[i]);
		cb->label_regions[i] = -1;
	}
}

void layer_CmdEndDebugUtilsLabelEXT(VkCommandBuffer h)
{
	struct layer_device *dev;
	struct layer_cmdbuf *cb = cb_get(h, &dev);

	dev->vk.CmdEndDebugUtilsLabelEXT(h);
	if (cb && cb->label_depth) {
		cb->label_depth--;
		if (cb->label_depth < LABEL_DEPTH) {
			region_end(cb, cb->label_regions[cb->label_depth]);
			cb->label_regions[cb->label_depth] = -1;
		}
	}
}

void layer_CmdInsertDebugUtilsLabelEXT(VkCommandBuffer h, const VkDebugUtilsLabelEXT *label)
{
	struct layer_device *dev;
	struct layer_cmdbuf *cb = cb_get(h, &dev);

	dev->vk.CmdInsertDebugUtilsLabelEXT(h, label);
	if (cb && dev->mode == RN_VK_MODE_DISPATCH)
		cb->insert_label = cb_name(cb, label->pLabelName ? label->pLabelName : "");
}

/* Queue labels: command buffers submitted while one is open belong to it, below their own
 * labels. Not timed (a queue label brackets submits, not GPU work of its own). */
void layer_QueueBeginDebugUtilsLabelEXT(VkQueue queue, const VkDebugUtilsLabelEXT *label)
{
	struct layer_queue *q = map_get(OBJ_QUEUE, HANDLE(queue));
	struct layer_device *dev = q ? q->dev : NULL;

	if (!dev)
		return;
	if (dev->vk.QueueBeginDebugUtilsLabelEXT)
		dev->vk.QueueBeginDebugUtilsLabelEXT(queue, label);
	if (q->label_depth < LABEL_DEPTH)
		snprintf(q->labels[q->label_depth], sizeof(q->labels[0]), "%s",
			 label && label->pLabelName ? label->pLabelName : "");
	q->label_depth++;
}

void layer_QueueEndDebugUtilsLabelEXT(VkQueue queue)
{
	struct layer_queue *q = map_get(OBJ_QUEUE, HANDLE(queue));
	struct layer_device *dev = q ? q->dev : NULL;

	if (!dev)
		return;
	if (dev->vk.QueueEndDebugUtilsLabelEXT)
		dev->vk.QueueEndDebugUtilsLabelEXT(queue);
	if (q->label_depth)
		q->label_depth--;
}

/* ---- Hooks: pipelines and their identity (dispatch mode) ------------------------------ */

static uint32_t fnv1a(uint32_t h, const void *data, size_t n)
{
	const uint8_t *p = data;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

#define FNV_INIT 2166136261u

VkResult layer_CreateShaderModule(VkDevice device, const VkShaderModuleCreateInfo *info,
				  const VkAllocationCallbacks *alloc, VkShaderModule *pModule)
{
	struct layer_device *dev = map_get(OBJ_DEVICE, HANDLE(device));
	VkResult r = dev->vk.CreateShaderModule(device, info, alloc, pModule);
	struct layer_module *m;

	if (r != VK_SUCCESS)
		return r;
	m = calloc(1, sizeof(*m));
	if (!m)
		return r;
	m->hash = fnv1a(FNV_INIT, info->pCode, info->codeSize);
	if (map_put(OBJ_SHADER_MODULE, HANDLE(*pModule), m))
		free(m);
	return r;
}

void layer_DestroyShaderModule(VkDevice device, VkShaderModule module,
			       const VkAllocationCallbacks *alloc)
{
	struct layer_device *dev = map_get(OBJ_DEVICE, HANDLE(device));

	if (module)
		free(map_del(OBJ_SHADER_MODULE, HANDLE(module)));
	dev->vk.DestroyShaderModule(device, module, alloc);
}

/* Identity of a compute stage: SPIR-V hash, entry point, specialization constants. */
static void pipeline_describe(struct layer_pipeline *p, const VkPipelineShaderStageCreateInfo *st)
{
	struct layer_module *m = st->module ? map_get(OBJ_SHADER_MODULE, HANDLE(st->module)) : NULL;
	uint32_t h = FNV_INIT;
	const VkSpecializationInfo *spec = st->pSpecializationInfo;

	if (m) {
		h = fnv1a(h, &m->hash, sizeof(m->hash));
		snprintf(p->module_name, sizeof(p->module_name), "%s", m->name);
	} else {
		/* VK_KHR_maintenance5 style: the module's create info chained to the stage. */
		for (const VkBaseInStructure *s = st->pNext; s; s = s->pNext) {
			if (s->sType == VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO) {
				const VkShaderModuleCreateInfo *ci = (const void *)s;
				uint32_t mh = fnv1a(FNV_INIT, ci->pCode, ci->codeSize);

				h = fnv1a(h, &mh, sizeof(mh));
				break;
			}
		}
	}
	if (st->pName) {
		snprintf(p->entry, sizeof(p->entry), "%s", st->pName);
		h = fnv1a(h, st->pName, strlen(st->pName));
	}
	if (spec) {
		if (spec->mapEntryCount && spec->pMapEntries)
			h = fnv1a(h, spec->pMapEntries,
				  spec->mapEntryCount * sizeof(*spec->pMapEntries));
		if (spec->dataSize && spec->pData)
			h = fnv1a(h, spec->pData, spec->dataSize);
	}
	p->identity = h;
}

VkResult layer_CreateComputePipelines(VkDevice device, VkPipelineCache cache, uint32_t n,
				      const VkComputePipelineCreateInfo *infos,
				      const VkAllocationCallbacks *alloc, VkPipeline *pipelines)
{
	struct layer_device *dev = map_get(OBJ_DEVICE, HANDLE(device));
	VkResult r = dev->vk.CreateComputePipelines(device, cache, n, infos, alloc, pipelines);

	for (uint32_t i = 0; i < n; i++) {
		struct layer_pipeline *p;

		if (!pipelines[i])
			continue;
		p = calloc(1, sizeof(*p));
		if (!p)
			continue;
		pipeline_describe(p, &infos[i].stage);
		if (map_put(OBJ_PIPELINE, HANDLE(pipelines[i]), p))
			free(p);
	}
	return r;
}

void layer_DestroyPipeline(VkDevice device, VkPipeline pipeline, const VkAllocationCallbacks *alloc)
{
	struct layer_device *dev = map_get(OBJ_DEVICE, HANDLE(device));

	if (pipeline)
		free(map_del(OBJ_PIPELINE, HANDLE(pipeline)));
	dev->vk.DestroyPipeline(device, pipeline, alloc);
}

void layer_CmdBindPipeline(VkCommandBuffer h, VkPipelineBindPoint bp, VkPipeline pipeline)
{
	struct layer_device *dev;
	struct layer_cmdbuf *cb = cb_get(h, &dev);

	if (cb && bp == VK_PIPELINE_BIND_POINT_COMPUTE)
		cb->compute_pipeline = HANDLE(pipeline);
	dev->vk.CmdBindPipeline(h, bp, pipeline);
}

/* ---- Hooks: timed commands (dispatch mode) -------------------------------------------- */

static void set_groups(struct layer_cmdbuf *cb, int32_t i, uint32_t x, uint32_t y, uint32_t z)
{
	if (i < 0)
		return;
	cb->regions[i].groups[0] = x;
	cb->regions[i].groups[1] = y;
	cb->regions[i].groups[2] = z;
}

void layer_CmdDispatch(VkCommandBuffer h, uint32_t x, uint32_t y, uint32_t z)
{
	struct layer_device *dev;
	struct layer_cmdbuf *cb = cb_get(h, &dev);
	int32_t i = command_begin(cb, RN_VK_KIND_DISPATCH, "dispatch");

	set_groups(cb, i, x, y, z);
	dev->vk.CmdDispatch(h, x, y, z);
	if (i >= 0)
		region_end(cb, i);
}

void layer_CmdDispatchBase(VkCommandBuffer h, uint32_t bx, uint32_t by, uint32_t bz, uint32_t x,
			   uint32_t y, uint32_t z)
{
	struct layer_device *dev;
	struct layer_cmdbuf *cb = cb_get(h, &dev);
	int32_t i = command_begin(cb, RN_VK_KIND_DISPATCH, "dispatch");

	set_groups(cb, i, x, y, z);
	dev->vk.CmdDispatchBase(h, bx, by, bz, x, y, z);
	if (i >= 0)
		region_end(cb, i);
}

void layer_CmdDispatchIndirect(VkCommandBuffer h, VkBuffer buffer, VkDeviceSize offset)
{
	struct layer_device *dev;
	struct layer_cmdbuf *cb = cb_get(h, &dev);
	int32_t i = command_begin(cb, RN_VK_KIND_DISPATCH, "dispatch");

	if (i >= 0)
		cb->regions[i].flags |= RN_VK_SPAN_INDIRECT;
	dev->vk.CmdDispatchIndirect(h, buffer, offset);
	if (i >= 0)
		region_end(cb, i);
}

void layer_CmdCopyBuffer(VkCommandBuffer h, VkBuffer src, VkBuffer dst, uint32_t n,
			 const VkBufferCopy *regions)
{
	struct layer_device *dev;
	struct layer_cmdbuf *cb = cb_get(h, &dev);
	int32_t i = command_begin(cb, RN_VK_KIND_COPY, "copy_buffer");

	if (i >= 0) {
		uint64_t bytes = 0;

		for (uint32_t k = 0; k < n; k++)
			bytes += regions[k].size;
		copy_info(cb, i, bytes, direction(buffer_side(dev, src), buffer_side(dev, dst)));
	}
	dev->vk.CmdCopyBuffer(h, src, dst, n, regions);
	if (i >= 0)
		region_end(cb, i);
}

void layer_CmdCopyBuffer2(VkCommandBuffer h, const VkCopyBufferInfo2 *info)
{
	struct layer_device *dev;
	struct layer_cmdbuf *cb = cb_get(h, &dev);
	int32_t i = command_begin(cb, RN_VK_KIND_COPY, "copy_buffer");

	if (i >= 0) {
		uint64_t bytes = 0;

		for (uint32_t k = 0; k < info->regionCount; k++)
			bytes += info->pRegions[k].size;
		copy_info(cb, i, bytes,
			  direction(buffer_side(dev, info->srcBuffer),
				    buffer_side(dev, info->dstBuffer)));
	}
	dev->vk.CmdCopyBuffer2(h, info);
	if (i >= 0)
		region_end(cb, i);
}

/* Image copies: images are taken as device-local; their byte counts are not computed. */
void layer_CmdCopyImage(VkCommandBuffer h, VkImage src, VkImageLayout sl, VkImage dst,
			VkImageLayout dl, uint32_t n, const VkImageCopy *regions)
{
	struct layer_device *dev;
	struct layer_cmdbuf *cb = cb_get(h, &dev);
	int32_t i = command_begin(cb, RN_VK_KIND_COPY, "copy_image");

	copy_info(cb, i, 0, RN_VK_DIR_DTOD);
	dev->vk.CmdCopyImage(h, src, sl, dst, dl, n, regions);
	if (i >= 0)
		region_end(cb, i);
}

void layer_CmdCopyBufferToImage(VkCommandBuffer h, VkBuffer src, VkImage dst, VkImageLayout dl,
				uint32_t n, const VkBufferImageCopy *regions)
{
	struct layer_device *dev;
	struct layer_cmdbuf *cb = cb_get(h, &dev);
	int32_t i = command_begin(cb, RN_VK_KIND_COPY, "copy_buffer_to_image");

	if (i >= 0)
		copy_info(cb, i, 0, direction(buffer_side(dev, src), 2));
	dev->vk.CmdCopyBufferToImage(h, src, dst, dl, n, regions);
	if (i >= 0)
		region_end(cb, i);
}

void layer_CmdCopyImageToBuffer(VkCommandBuffer h, VkImage src, VkImageLayout sl, VkBuffer dst,
				uint32_t n, const VkBufferImageCopy *regions)
{
	struct layer_device *dev;
	struct layer_cmdbuf *cb = cb_get(h, &dev);
	int32_t i = command_begin(cb, RN_VK_KIND_COPY, "copy_image_to_buffer");

	if (i >= 0)
		copy_info(cb, i, 0, direction(2, buffer_side(dev, dst)));
	dev->vk.CmdCopyImageToBuffer(h, src, sl, dst, n, regions);
	if (i >= 0)
		region_end(cb, i);
}

void layer_CmdFillBuffer(VkCommandBuffer h, VkBuffer dst, VkDeviceSize offset, VkDeviceSize size,
			 uint32_t data)
{
	struct layer_device *dev;
	struct layer_cmdbuf *cb = cb_get(h, &dev);
	int32_t i = command_begin(cb, RN_VK_KIND_COPY, "fill_buffer");

	if (i >= 0) {
		uint64_t bytes = size;

		if (size == VK_WHOLE_SIZE) {
			struct layer_buffer *b = map_get(OBJ_BUFFER, HANDLE(dst));

			/* VK_WHOLE_SIZE fills to the end, rounded down to 4 bytes (18.4). */
			bytes = b && b->size > offset ? (b->size - offset) & ~(uint64_t)3 : 0;
		}
		copy_info(cb, i, bytes, RN_VK_DIR_NONE);
	}
	dev->vk.CmdFillBuffer(h, dst, offset, size, data);
	if (i >= 0)
		region_end(cb, i);
}

void layer_CmdUpdateBuffer(VkCommandBuffer h, VkBuffer dst, VkDeviceSize offset, VkDeviceSize size,
			   const void *data)
{
	struct layer_device *dev;
	struct layer_cmdbuf *cb = cb_get(h, &dev);
	int32_t i = command_begin(cb, RN_VK_KIND_COPY, "update_buffer");

	if (i >= 0)
		copy_info(cb, i, size, direction(1, buffer_side(dev, dst)));
	dev->vk.CmdUpdateBuffer(h, dst, offset, size, data);
	if (i >= 0)
		region_end(cb, i);
}

void layer_CmdBlitImage(VkCommandBuffer h, VkImage src, VkImageLayout sl, VkImage dst,
			VkImageLayout dl, uint32_t n, const VkImageBlit *regions, VkFilter filter)
{
	struct layer_device *dev;
	struct layer_cmdbuf *cb = cb_get(h, &dev);
	int32_t i = command_begin(cb, RN_VK_KIND_COPY, "blit_image");

	copy_info(cb, i, 0, RN_VK_DIR_DTOD);
	dev->vk.CmdBlitImage(h, src, sl, dst, dl, n, regions, filter);
	if (i >= 0)
		region_end(cb, i);
}

/* Render passes: the pair goes outside the instance (timestamps inside a render pass would
 * need a query per view with multiview, Vulkan 1.3, 17.5). */
static void pass_begin(struct layer_cmdbuf *cb)
{
	if (cb && cb->open_pass < 0)
		cb->open_pass = command_begin(cb, RN_VK_KIND_RENDER_PASS, "render_pass");
}

static void pass_end(struct layer_cmdbuf *cb)
{
	if (cb && cb->open_pass >= 0) {
		region_end(cb, cb->open_pass);
		cb->open_pass = -1;
	}
}

void layer_CmdBeginRenderPass(VkCommandBuffer h, const VkRenderPassBeginInfo *info,
			      VkSubpassContents contents)
{
	struct layer_device *dev;
	struct layer_cmdbuf *cb = cb_get(h, &dev);

	pass_begin(cb);
	dev->vk.CmdBeginRenderPass(h, info, contents);
}

void layer_CmdEndRenderPass(VkCommandBuffer h)
{
	struct layer_device *dev;
	struct layer_cmdbuf *cb = cb_get(h, &dev);

	dev->vk.CmdEndRenderPass(h);
	pass_end(cb);
}

void layer_CmdBeginRenderPass2(VkCommandBuffer h, const VkRenderPassBeginInfo *info,
			       const VkSubpassBeginInfo *sub)
{
	struct layer_device *dev;
	struct layer_cmdbuf *cb = cb_get(h, &dev);

	pass_begin(cb);
	dev->vk.CmdBeginRenderPass2(h, info, sub);
}

void layer_CmdEndRenderPass2(VkCommandBuffer h, const VkSubpassEndInfo *info)
{
	struct layer_device *dev;
	struct layer_cmdbuf *cb = cb_get(h, &dev);

	dev->vk.CmdEndRenderPass2(h, info);
	pass_end(cb);
}

void layer_CmdBeginRendering(VkCommandBuffer h, const VkRenderingInfo *info)
{
	struct layer_device *dev;
	struct layer_cmdbuf *cb = cb_get(h, &dev);

	/* Suspended/resumed instances forbid commands between them (Vulkan 1.3, 8.8): untimed. */
	if (!(info->flags & (VK_RENDERING_SUSPENDING_BIT | VK_RENDERING_RESUMING_BIT)))
		pass_begin(cb);
	dev->vk.CmdBeginRendering(h, info);
}

void layer_CmdEndRendering(VkCommandBuffer h)
{
	struct layer_device *dev;
	struct layer_cmdbuf *cb = cb_get(h, &dev);

	dev->vk.CmdEndRendering(h);
	pass_end(cb);
}

/* ---- Hooks: memory and buffers, for copy directions (dispatch mode) ------------------- */

VkResult layer_AllocateMemory(VkDevice device, const VkMemoryAllocateInfo *info,
			      const VkAllocationCallbacks *alloc, VkDeviceMemory *pMemory)
{
	struct layer_device *dev = map_get(OBJ_DEVICE, HANDLE(device));
	VkResult r = dev->vk.AllocateMemory(device, info, alloc, pMemory);
	struct layer_memory *m;

	if (r != VK_SUCCESS)
		return r;
	m = calloc(1, sizeof(*m));
	if (!m)
		return r;
	m->type_index = info->memoryTypeIndex;
	if (map_put(OBJ_MEMORY, HANDLE(*pMemory), m))
		free(m);
	return r;
}

void layer_FreeMemory(VkDevice device, VkDeviceMemory memory, const VkAllocationCallbacks *alloc)
{
	struct layer_device *dev = map_get(OBJ_DEVICE, HANDLE(device));

	if (memory)
		free(map_del(OBJ_MEMORY, HANDLE(memory)));
	dev->vk.FreeMemory(device, memory, alloc);
}

VkResult layer_CreateBuffer(VkDevice device, const VkBufferCreateInfo *info,
			    const VkAllocationCallbacks *alloc, VkBuffer *pBuffer)
{
	struct layer_device *dev = map_get(OBJ_DEVICE, HANDLE(device));
	VkResult r = dev->vk.CreateBuffer(device, info, alloc, pBuffer);
	struct layer_buffer *b;

	if (r != VK_SUCCESS)
		return r;
	b = calloc(1, sizeof(*b));
	if (!b)
		return r;
	b->size = info->size;
	if (map_put(OBJ_BUFFER, HANDLE(*pBuffer), b))
		free(b);
	return r;
}

void layer_DestroyBuffer(VkDevice device, VkBuffer buffer, const VkAllocationCallbacks *alloc)
{
	struct layer_device *dev = map_get(OBJ_DEVICE, HANDLE(device));

	if (buffer)
		free(map_del(OBJ_BUFFER, HANDLE(buffer)));
	dev->vk.DestroyBuffer(device, buffer, alloc);
}

static void buffer_bound(VkBuffer buffer, VkDeviceMemory memory)
{
	struct layer_buffer *b = map_get(OBJ_BUFFER, HANDLE(buffer));

	if (b)
		b->memory = memory;
}

VkResult layer_BindBufferMemory(VkDevice device, VkBuffer buffer, VkDeviceMemory memory,
				VkDeviceSize offset)
{
	struct layer_device *dev = map_get(OBJ_DEVICE, HANDLE(device));
	VkResult r = dev->vk.BindBufferMemory(device, buffer, memory, offset);

	if (r == VK_SUCCESS)
		buffer_bound(buffer, memory);
	return r;
}

VkResult layer_BindBufferMemory2(VkDevice device, uint32_t n, const VkBindBufferMemoryInfo *infos)
{
	struct layer_device *dev = map_get(OBJ_DEVICE, HANDLE(device));
	VkResult r = dev->vk.BindBufferMemory2(device, n, infos);

	if (r == VK_SUCCESS)
		for (uint32_t i = 0; i < n; i++)
			buffer_bound(infos[i].buffer, infos[i].memory);
	return r;
}
