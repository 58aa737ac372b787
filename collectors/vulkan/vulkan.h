/*
 * vulkan.h - the Vulkan collector: GPU spans from the injected VK_LAYER_RENACER_timing layer.
 *
 * Life of one run (collector.h):
 *
 *     create   -> remember the timing mode (rn_run_spec.gpu_mode) and the run's env_add
 *     prepare  -> make a private record directory (mkdtemp under $TMPDIR or /tmp) and add the
 *                 layer's environment (inject.h): VK_ADD_LAYER_PATH, VK_INSTANCE_LAYERS,
 *                 VK_LOADER_LAYERS_ENABLE, RENACER_VK_DIR, RENACER_VK_MODE
 *     on_spawn, on_event -> nothing (the layer works inside the target)
 *     finish   -> read every "vk-<pid>.rnvk" of the directory (load.h) and add each span with
 *                 rn_trace_add_gpu(); names carry no "gpu:" prefix
 *     destroy  -> remove the directory and its files
 *
 * finish() fails the trace (rn_trace_fail, RN_RUN_ERROR) and returns a negative code when a
 * record file is malformed or the layer had to stop timing a device: GPU assertions would
 * otherwise judge partial data. A file cut short by a crash keeps its spans and warns.
 *
 * When renacer is built with RN_WITH_VULKAN=OFF the same symbol is a stub whose unavailable()
 * says "not built (RN_WITH_VULKAN=OFF)", so the registry needs no #ifdef.
 */
#ifndef RN_VULKAN_H
#define RN_VULKAN_H

#include "collector.h"

/* The Vulkan collector's operations (listed in the registry). */
extern const struct rn_collector_ops rn_vulkan_collector;

#endif
