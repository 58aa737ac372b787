/*
 * internal.h - private declarations of the VK_LAYER_RENACER_timing layer.
 *
 * The layer is loaded by the Vulkan loader into the target (loader-layer interface version 2,
 * "Architecture of the Vulkan Loader Interfaces", LoaderLayerInterface.md). It cannot receive
 * a context from renacer, so its state lives in one mutex-protected map from Vulkan handles to
 * layer objects (map.c), as Mesa's layers do, plus the process-wide configuration read once
 * from the environment and the record writer.
 *
 * Locking: `g.lock` protects the map and is a leaf (nothing else is taken under it).
 * `layer_device.lock` protects the device's query slots, pending list, counters and calls
 * that read query results; `g.writer_lock` (a leaf) protects the record file. Order:
 * device lock -> writer lock, device lock -> map lock. Command-buffer state needs no lock:
 * Vulkan makes command buffers externally synchronized (Vulkan 1.3, 3.6 Threading Behavior);
 * the harvester only reads a command buffer's regions while it is pending, and recording only
 * changes them while it is not (both decided under the device lock).
 */
#ifndef RN_VK_LAYER_INTERNAL_H
#define RN_VK_LAYER_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

#include "../record.h"

#define LAYER_NAME "VK_LAYER_RENACER_timing"

/* ---- Dispatch tables: each list written once ------------------------------------------ */

/* Instance-level functions the layer calls down. */
#define RN_INSTANCE_FUNCS(X)                                                                       \
	X(DestroyInstance)                                                                         \
	X(EnumeratePhysicalDevices)                                                                \
	X(GetPhysicalDeviceProperties)                                                             \
	X(GetPhysicalDeviceQueueFamilyProperties)                                                  \
	X(GetPhysicalDeviceMemoryProperties)                                                       \
	X(EnumerateDeviceExtensionProperties)                                                      \
	X(GetPhysicalDeviceCalibrateableTimeDomainsEXT)

/* Device-level functions the layer calls down (hooked or used for its own work). */
#define RN_DEVICE_FUNCS(X)                                                                         \
	X(DestroyDevice)                                                                           \
	X(GetDeviceQueue)                                                                          \
	X(GetDeviceQueue2)                                                                         \
	X(QueueSubmit)                                                                             \
	X(QueueSubmit2)                                                                            \
	X(QueueWaitIdle)                                                                           \
	X(DeviceWaitIdle)                                                                          \
	X(WaitForFences)                                                                           \
	X(GetFenceStatus)                                                                          \
	X(CreateQueryPool)                                                                         \
	X(DestroyQueryPool)                                                                        \
	X(GetQueryPoolResults)                                                                     \
	X(CmdResetQueryPool)                                                                       \
	X(CmdWriteTimestamp)                                                                       \
	X(CreateCommandPool)                                                                       \
	X(DestroyCommandPool)                                                                      \
	X(ResetCommandPool)                                                                        \
	X(AllocateCommandBuffers)                                                                  \
	X(FreeCommandBuffers)                                                                      \
	X(BeginCommandBuffer)                                                                      \
	X(EndCommandBuffer)                                                                        \
	X(ResetCommandBuffer)                                                                      \
	X(CreateShaderModule)                                                                      \
	X(DestroyShaderModule)                                                                     \
	X(CreateComputePipelines)                                                                  \
	X(DestroyPipeline)                                                                         \
	X(CmdBindPipeline)                                                                         \
	X(CmdDispatch)                                                                             \
	X(CmdDispatchIndirect)                                                                     \
	X(CmdDispatchBase)                                                                         \
	X(CmdCopyBuffer)                                                                           \
	X(CmdCopyBuffer2)                                                                          \
	X(CmdCopyImage)                                                                            \
	X(CmdCopyBufferToImage)                                                                    \
	X(CmdCopyImageToBuffer)                                                                    \
	X(CmdFillBuffer)                                                                           \
	X(CmdUpdateBuffer)                                                                         \
	X(CmdBlitImage)                                                                            \
	X(CmdBeginRenderPass)                                                                      \
	X(CmdEndRenderPass)                                                                        \
	X(CmdBeginRenderPass2)                                                                     \
	X(CmdEndRenderPass2)                                                                       \
	X(CmdBeginRendering)                                                                       \
	X(CmdEndRendering)                                                                         \
	X(AllocateMemory)                                                                          \
	X(FreeMemory)                                                                              \
	X(CreateBuffer)                                                                            \
	X(DestroyBuffer)                                                                           \
	X(BindBufferMemory)                                                                        \
	X(BindBufferMemory2)                                                                       \
	X(SetDebugUtilsObjectNameEXT)                                                              \
	X(CmdBeginDebugUtilsLabelEXT)                                                              \
	X(CmdEndDebugUtilsLabelEXT)                                                                \
	X(CmdInsertDebugUtilsLabelEXT)                                                             \
	X(QueueBeginDebugUtilsLabelEXT)                                                            \
	X(QueueEndDebugUtilsLabelEXT)                                                              \
	X(GetCalibratedTimestampsEXT)

/* When a device hook is handed out by vkGetDeviceProcAddr (enum hook_when). */
enum hook_when {
	HOOK_ALWAYS,   /* whenever timing is configured */
	HOOK_DISPATCH, /* only in dispatch mode (per-command timing and naming) */
};

/* Device functions the layer hooks: a subset of RN_DEVICE_FUNCS, each with layer_<name>. */
#define RN_DEVICE_HOOKS(X)                                                                         \
	X(DestroyDevice, HOOK_ALWAYS)                                                              \
	X(GetDeviceQueue, HOOK_ALWAYS)                                                             \
	X(GetDeviceQueue2, HOOK_ALWAYS)                                                            \
	X(QueueSubmit, HOOK_ALWAYS)                                                                \
	X(QueueSubmit2, HOOK_ALWAYS)                                                               \
	X(QueueWaitIdle, HOOK_ALWAYS)                                                              \
	X(DeviceWaitIdle, HOOK_ALWAYS)                                                             \
	X(WaitForFences, HOOK_ALWAYS)                                                              \
	X(GetFenceStatus, HOOK_ALWAYS)                                                             \
	X(CreateCommandPool, HOOK_ALWAYS)                                                          \
	X(DestroyCommandPool, HOOK_ALWAYS)                                                         \
	X(ResetCommandPool, HOOK_ALWAYS)                                                           \
	X(AllocateCommandBuffers, HOOK_ALWAYS)                                                     \
	X(FreeCommandBuffers, HOOK_ALWAYS)                                                         \
	X(BeginCommandBuffer, HOOK_ALWAYS)                                                         \
	X(EndCommandBuffer, HOOK_ALWAYS)                                                           \
	X(ResetCommandBuffer, HOOK_ALWAYS)                                                         \
	X(SetDebugUtilsObjectNameEXT, HOOK_ALWAYS)                                                 \
	X(CmdBeginDebugUtilsLabelEXT, HOOK_ALWAYS)                                                 \
	X(CmdEndDebugUtilsLabelEXT, HOOK_ALWAYS)                                                   \
	X(CmdInsertDebugUtilsLabelEXT, HOOK_ALWAYS)                                                \
	X(QueueBeginDebugUtilsLabelEXT, HOOK_ALWAYS)                                               \
	X(QueueEndDebugUtilsLabelEXT, HOOK_ALWAYS)                                                 \
	X(CreateShaderModule, HOOK_DISPATCH)                                                       \
	X(DestroyShaderModule, HOOK_DISPATCH)                                                      \
	X(CreateComputePipelines, HOOK_DISPATCH)                                                   \
	X(DestroyPipeline, HOOK_DISPATCH)                                                          \
	X(CmdBindPipeline, HOOK_DISPATCH)                                                          \
	X(CmdDispatch, HOOK_DISPATCH)                                                              \
	X(CmdDispatchIndirect, HOOK_DISPATCH)                                                      \
	X(CmdDispatchBase, HOOK_DISPATCH)                                                          \
	X(CmdCopyBuffer, HOOK_DISPATCH)                                                            \
	X(CmdCopyBuffer2, HOOK_DISPATCH)                                                           \
	X(CmdCopyImage, HOOK_DISPATCH)                                                             \
	X(CmdCopyBufferToImage, HOOK_DISPATCH)                                                     \
	X(CmdCopyImageToBuffer, HOOK_DISPATCH)                                                     \
	X(CmdFillBuffer, HOOK_DISPATCH)                                                            \
	X(CmdUpdateBuffer, HOOK_DISPATCH)                                                          \
	X(CmdBlitImage, HOOK_DISPATCH)                                                             \
	X(CmdBeginRenderPass, HOOK_DISPATCH)                                                       \
	X(CmdEndRenderPass, HOOK_DISPATCH)                                                         \
	X(CmdBeginRenderPass2, HOOK_DISPATCH)                                                      \
	X(CmdEndRenderPass2, HOOK_DISPATCH)                                                        \
	X(CmdBeginRendering, HOOK_DISPATCH)                                                        \
	X(CmdEndRendering, HOOK_DISPATCH)                                                          \
	X(AllocateMemory, HOOK_DISPATCH)                                                           \
	X(FreeMemory, HOOK_DISPATCH)                                                               \
	X(CreateBuffer, HOOK_DISPATCH)                                                             \
	X(DestroyBuffer, HOOK_DISPATCH)                                                            \
	X(BindBufferMemory, HOOK_DISPATCH)                                                         \
	X(BindBufferMemory2, HOOK_DISPATCH)

/* Next-in-chain instance functions. */
struct inst_table {
	PFN_vkGetInstanceProcAddr GetInstanceProcAddr; /* next layer's or the loader's */
	PFN_vkGetPhysicalDeviceProperties2 GetPhysicalDeviceProperties2; /* core or KHR, or NULL
									  * when not enabled */
	PFN_vkGetPhysicalDeviceFeatures2 GetPhysicalDeviceFeatures2;     /* likewise */
#define X(n) PFN_vk##n n;
	RN_INSTANCE_FUNCS(X)
#undef X
};

/* Next-in-chain device functions; a NULL entry is not available below the layer. */
struct dev_table {
	PFN_vkGetDeviceProcAddr GetDeviceProcAddr; /* next layer's or the driver's */
	PFN_vkResetQueryPool ResetQueryPool;       /* core 1.2 or the EXT alias, or NULL */
#define X(n) PFN_vk##n n;
	RN_DEVICE_FUNCS(X)
#undef X
};

/* ---- The handle-to-state map (map.c) -------------------------------------------------- */

/* What a map entry describes (enum obj_type): part of the key, since non-dispatchable
 * handles of different types may share values. */
enum obj_type {
	OBJ_INSTANCE = 1,
	OBJ_PHYSICAL_DEVICE,
	OBJ_DEVICE,
	OBJ_QUEUE,
	OBJ_COMMAND_POOL,
	OBJ_COMMAND_BUFFER,
	OBJ_SHADER_MODULE,
	OBJ_PIPELINE,
	OBJ_MEMORY,
	OBJ_BUFFER,
};

/* Insert or replace the state of (type, handle). 0 or -ENOMEM. Takes g.lock. */
int map_put(enum obj_type type, uint64_t handle, void *state);
/* The state of (type, handle), or NULL. Takes g.lock. */
void *map_get(enum obj_type type, uint64_t handle);
/* Remove (type, handle) and return its state (the caller frees it), or NULL. */
void *map_del(enum obj_type type, uint64_t handle);
/* Remove every entry whose state is `state` (a physical device mapped to a dead instance). */
void map_del_state(void *state);

/* Handle value of a dispatchable or non-dispatchable Vulkan handle. */
#define HANDLE(h) ((uint64_t)(uintptr_t)(h))

/* ---- Process-wide configuration and the record writer (writer.c) ---------------------- */

/* How queries are reset (enum reset_policy), RENACER_VK_RESET. */
enum reset_policy {
	RESET_AUTO,   /* host reset when the device offers it, else in-stream */
	RESET_STREAM, /* always vkCmdResetQueryPool (exercises the fallback path) */
};

/* Configuration read once from the environment. */
struct layer_config {
	bool enabled;            /* RENACER_VK_DIR is set: time devices */
	bool debug;              /* RENACER_LAYER_DEBUG is set: print to stderr */
	enum rn_vk_mode mode;    /* RENACER_VK_MODE: cmdbuf (default), submit, dispatch */
	enum reset_policy reset; /* RENACER_VK_RESET: auto (default) or stream */
	char dir[4096];          /* RENACER_VK_DIR */
};

/* The configuration (read on first use, then immutable). */
const struct layer_config *layer_config(void);

/* Print "renacer-layer: ..." to stderr when RENACER_LAYER_DEBUG is set, else nothing. */
void layer_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* CLOCK_MONOTONIC now, ns. */
uint64_t layer_now_ns(void);

/* Append one record to this process's file buffer (opening the file on first use).
 * 0, or -1 when the writer has failed (the record is dropped). */
int writer_append(const struct rn_vk_record *rec);
/* Write buffered records to the file. 0 or -1. */
int writer_flush(void);
/* A fresh device id for DEVICE records (1, 2, ...). */
uint32_t writer_next_device_id(void);

/* ---- Layer objects -------------------------------------------------------------------- */

struct layer_instance {
	VkInstance instance;  /* the handle the application sees */
	struct inst_table vk; /* next functions */
	uint32_t api_version; /* VkApplicationInfo::apiVersion, 1.0 if absent */
	bool props2;          /* GetPhysicalDeviceProperties2/Features2 may be called */
};

#endif
