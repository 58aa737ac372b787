
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

#include "timing_internal.h"

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

/* ---- Records (device lock held) ------------------------------------------------------- */

static void emit(struct layer_device *dev, const struct rn_vk_record *rec)
{
	/* Nothing can be recorded once the file cannot be written: stop timing quietly. */
	if (writer_append(rec))
		__atomic_store_n(&dev->timing, false, __ATOMIC_RELAXED);
}

void timing_unpend_at(struct layer_device *dev, size_t i)
{
	memmove(&dev->pending[i], &dev->pending[i + 1],
		(dev->npending - i - 1) * sizeof(dev->pending[0]));
	dev->npending--;
}

static void unpend(struct layer_device *dev, struct layer_cmdbuf *cb)
{
	for (size_t i = dev->npending; i-- > 0;) {
		if (dev->pending[i] == cb) {
			timing_unpend_at(dev, i);
			break;
		}
	}
	cb->pending = false;
}

/* One execution of a batch is settled; the last one writes the batch's SUBMIT span. */
void timing_batch_release(struct layer_device *dev, struct batch *b, bool lost, uint64_t now,
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
void timing_lose(struct layer_device *dev, struct layer_cmdbuf *cb)
{
	dev->stats.lost++;
	if (cb->batch)
		timing_batch_release(dev, cb->batch, true, layer_now_ns(), false);
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
		timing_lose(dev, dev->pending[dev->npending - 1]);
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

void timing_chunks_release(struct layer_device *dev, struct layer_cmdbuf *cb)
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
		timing_batch_release(dev, cb->batch, false, now, cb->waited);
	cb->batch = NULL;
	cb->pending = false;
}

/*
 * Read back pending executions without waiting. `full`: look at all of them; else stop at
 * the first that is not done (executions mostly finish in submission order, so a submit
 * costs O(finished) instead of O(in flight)). Flushes the records it wrote.
 */
void timing_harvest(struct layer_device *dev, bool full, bool waited)
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
		timing_unpend_at(dev, i);
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
void timing_settle(struct layer_device *dev, struct layer_cmdbuf *cb)
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
		timing_lose(dev, cb);
	} else {
		disable(dev, RN_VK_DIS_QUERY_RESULT, (VkResult)r, "vkGetQueryPoolResults failed");
	}
}

/* ---- Recording ------------------------------------------------------------------------ */

struct layer_cmdbuf *timing_cb_get(VkCommandBuffer h, struct layer_device **dev)
{
	struct layer_cmdbuf *cb = map_get(OBJ_COMMAND_BUFFER, HANDLE(h));

	*dev = cb ? cb->dev : device_of_dispatchable(h);
	return cb;
}

void timing_cb_clear_recording(struct layer_cmdbuf *cb)
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

uint32_t timing_cb_name(struct layer_cmdbuf *cb, const char *s)
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
int32_t timing_region_begin(struct layer_cmdbuf *cb, uint8_t kind, uint32_t name,
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

void timing_region_end(struct layer_cmdbuf *cb, int32_t i)
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
		return timing_cb_name(cb, "dispatch");
	if (p->name[0])
		return timing_cb_name(cb, p->name);
	if (p->module_name[0])
		return timing_cb_name(cb, p->module_name);
	if (p->entry[0] && strcmp(p->entry, "main"))
		return timing_cb_name(cb, p->entry);
	snprintf(id, sizeof(id), "cs_%08x", p->identity);
	return timing_cb_name(cb, id);
}

/* Timed pair around one command in dispatch mode: region index or -1. */
int32_t timing_command_begin(struct layer_cmdbuf *cb, uint8_t kind, const char *dflt)
{
	uint32_t name;

	if (!cb || !cb->timed)
		return -1;
	name = kind == RN_VK_KIND_DISPATCH ? dispatch_name(cb) : take_label(cb);
	if (name == NAME_NONE)
		name = timing_cb_name(cb, dflt);
	return timing_region_begin(cb, kind, name, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);
}

/* Host or device side of a buffer's memory: 0 unknown, 1 host, 2 device. */
int timing_buffer_side(struct layer_device *dev, VkBuffer buffer)
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

uint8_t timing_direction(int src, int dst)
{
	static const uint8_t dirs[3][3] = {
		{ RN_VK_DIR_NONE, RN_VK_DIR_NONE, RN_VK_DIR_NONE },
		{ RN_VK_DIR_NONE, RN_VK_DIR_HTOH, RN_VK_DIR_HTOD },
		{ RN_VK_DIR_NONE, RN_VK_DIR_DTOH, RN_VK_DIR_DTOD },
	};

	return dirs[src][dst];
}

void timing_copy_info(struct layer_cmdbuf *cb, int32_t i, uint64_t bytes, uint8_t dir)
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

void timing_cb_free(struct layer_cmdbuf *cb)
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
		timing_harvest(dev, true, false);
		while (dev->npending)
			timing_lose(dev, dev->pending[dev->npending - 1]);
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
			timing_cb_free(p->cbs[i]);
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
