/*
 * timing_internal.h - what the timing layer's files share (collectors/vulkan/layer only):
 *   timing.c         records, query slots, the harvest, recording helpers, device life cycle
 *   timing_submit.c  hooks: queues and waits, command pools and buffers, names and labels
 *   timing_cmds.c    hooks of dispatch mode: pipelines, timed commands, memory and buffers
 * Functions marked "device lock held" are called with dev->lock taken; the others take what
 * they need. Nothing here prints or exits: the layer runs inside the application.
 */
#ifndef RN_VK_TIMING_INTERNAL_H
#define RN_VK_TIMING_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "state.h"

/* Count one event in a STATS counter (relaxed: read only at device destruction). */
static inline void stat_add(uint64_t *counter)
{
	__atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
}

/* Whether the device still times (false once the layer disabled itself on it). */
static inline bool dev_timing(struct layer_device *dev)
{
	return __atomic_load_n(&dev->timing, __ATOMIC_RELAXED);
}

/* ---- Records and the harvest (timing.c, device lock held) ---- */

/* Remove dev->pending[i], keeping the order of the rest. */
void timing_unpend_at(struct layer_device *dev, size_t i);
/* One execution of a batch is settled; the last one writes the batch's SUBMIT span. */
void timing_batch_release(struct layer_device *dev, struct batch *b, bool lost, uint64_t now,
			  bool waited);
/* An execution whose results will never be read: counted as lost. */
void timing_lose(struct layer_device *dev, struct layer_cmdbuf *cb);
/* Give cb's query chunks back to the device's free list (marked dirty: reset before reuse). */
void timing_chunks_release(struct layer_device *dev, struct layer_cmdbuf *cb);
/* Read back pending executions without waiting. `full`: look at all of them; else stop at the
 * first that is not done. `waited`: after a wait of the application. Flushes the records. */
void timing_harvest(struct layer_device *dev, bool full, bool waited);
/* `cb` is about to be reset, re-recorded or freed, so it is not pending on the GPU any more
 * (Vulkan 1.3, 6.4 Command Buffer Lifecycle): its results are there or lost. */
void timing_settle(struct layer_device *dev, struct layer_cmdbuf *cb);

/* ---- Recording (timing.c) ---- */

/* The layer's state of command buffer `h` (NULL if unknown) and its device in *dev (found by
 * the dispatch key when the command buffer is unknown). */
struct layer_cmdbuf *timing_cb_get(VkCommandBuffer h, struct layer_device **dev);
/* Forget the current recording's queries, regions, names and labels (chunks are kept). */
void timing_cb_clear_recording(struct layer_cmdbuf *cb);
/* Copy `s` (cut at RN_VK_NAME_MAX - 1 bytes) into cb's name arena; its offset, or NAME_NONE
 * when the arena cannot grow. */
uint32_t timing_cb_name(struct layer_cmdbuf *cb, const char *s);
/* Open a timed region: reserve its pair and write the begin timestamp at `stage`. Region
 * index, or -1 when not timed. */
int32_t timing_region_begin(struct layer_cmdbuf *cb, uint8_t kind, uint32_t name,
			    VkPipelineStageFlagBits stage);
/* Close region `i` (-1: nothing) with its BOTTOM_OF_PIPE end timestamp. */
void timing_region_end(struct layer_cmdbuf *cb, int32_t i);
/* Timed pair around one command in dispatch mode (`dflt`: its name without a label): region
 * index or -1. */
int32_t timing_command_begin(struct layer_cmdbuf *cb, uint8_t kind, const char *dflt);
/* Host or device side of a buffer's memory: 0 unknown, 1 host, 2 device. */
int timing_buffer_side(struct layer_device *dev, VkBuffer buffer);
/* The copy direction (RN_VK_DIR_*) between two sides of timing_buffer_side. */
uint8_t timing_direction(int src, int dst);
/* Give region `i` (-1: nothing) of a copy its byte count and direction. */
void timing_copy_info(struct layer_cmdbuf *cb, int32_t i, uint64_t bytes, uint8_t dir);
/* Free a command buffer's state (its chunks must have been released). */
void timing_cb_free(struct layer_cmdbuf *cb);

#endif
