/*
 * inject.h - how the runner injects VK_LAYER_RENACER_timing into an unmodified target.
 *
 * The target's environment gets (all names written once here):
 *
 *     VK_ADD_LAYER_PATH=<manifest dir>[:<previous value>]          where the loader looks
 *     VK_INSTANCE_LAYERS=VK_LAYER_RENACER_timing[:<previous>]      enable (all loaders)
 *     VK_LOADER_LAYERS_ENABLE=VK_LAYER_RENACER_timing[,<previous>] enable (loader >= 1.3.234)
 *     RENACER_VK_DIR=<record dir>                                  where records go
 *     RENACER_VK_MODE=cmdbuf|submit|dispatch                       timing mode
 *
 * "Previous" is the value the target would have seen otherwise: the entry already in the
 * array being built (collectors/run.c hands prepare() the child's whole environment), else
 * the run's own env_add entry, else renacer's environment. Entries are replaced in place, never
 * duplicated (with duplicate keys getenv() would see the first, older one). Layers the application enables itself
 * (validation, for instance) come after ours in the stack (Vulkan loader, "Layer Ordering"):
 * they see and check the layer's own queries too.
 */
#ifndef RN_VK_INJECT_H
#define RN_VK_INJECT_H

#include <stddef.h>

#include "collector.h"

#define RN_VK_LAYER_NAME "VK_LAYER_RENACER_timing"
#define RN_VK_MANIFEST_FILE "VkLayer_renacer_timing.json"
#define RN_VK_ENV_DIR "RENACER_VK_DIR"             /* record directory (layer input) */
#define RN_VK_ENV_MODE "RENACER_VK_MODE"           /* timing mode (layer input) */
#define RN_VK_ENV_RESET "RENACER_VK_RESET"         /* "stream" forces in-stream resets (tests) */
#define RN_VK_ENV_DEBUG "RENACER_LAYER_DEBUG"      /* non-empty: the layer prints to stderr */
#define RN_VK_ENV_LAYER_DIR "RENACER_VK_LAYER_DIR" /* overrides the manifest directory */

/* The mode's name in RENACER_VK_MODE ("cmdbuf", "submit", "dispatch"). */
const char *rn_vk_mode_name(enum rn_gpu_mode mode);

/*
 * The directory holding the layer manifest: $RENACER_VK_LAYER_DIR if set; else the build
 * tree's when renacer runs from its build tree; else the installed one; else the build tree's
 * if it exists. Returns a static string, or NULL when no manifest is found.
 */
const char *rn_vk_layer_dir(void);

/*
 * Set the variables above in `env` (the child's environment being built): an existing entry
 * of the same name is replaced (rn_strvec_env_set), else one is appended.
 * `env_add` is the run's own NULL-terminated additions (may be NULL), consulted for previous
 * values after `env` and before getenv(). Dies on out-of-memory; cannot fail otherwise.
 */
void rn_vk_inject_env(const char *layer_dir, const char *record_dir, enum rn_gpu_mode mode,
		      char *const *env_add, struct rn_strvec *env);

#endif
