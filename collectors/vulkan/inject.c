/*
 * inject.c - environment for injecting the timing layer (see inject.h).
 */
#include "inject.h"

#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "recdir.h"
#include "xalloc.h"

#ifndef RN_VK_LAYER_BUILD_DIR
#define RN_VK_LAYER_BUILD_DIR ""
#endif
#ifndef RN_VK_LAYER_INSTALL_DIR
#define RN_VK_LAYER_INSTALL_DIR ""
#endif
#ifndef RN_VK_BINARY_DIR
#define RN_VK_BINARY_DIR ""
#endif

const char *rn_vk_mode_name(enum rn_gpu_mode mode)
{
	switch (mode) {
	case RN_GPU_MODE_SUBMIT:
		return "submit";
	case RN_GPU_MODE_DISPATCH:
		return "dispatch";
	default:
		return "cmdbuf";
	}
}

static bool has_manifest(const char *dir)
{
	struct rn_buf path;
	bool ok;

	if (!dir || !*dir)
		return false;
	rn_buf_init(&path, PATH_MAX);
	rn_buf_addf(&path, "%s/%s", dir, RN_VK_MANIFEST_FILE);
	ok = !rn_buf_failed(&path) && access(path.buf, R_OK) == 0;
	rn_buf_release(&path);
	return ok;
}

const char *rn_vk_layer_dir(void)
{
	return rn_inject_locate(RN_VK_ENV_LAYER_DIR, RN_VK_LAYER_BUILD_DIR, RN_VK_LAYER_INSTALL_DIR,
				RN_VK_BINARY_DIR, has_manifest);
}

/* The value `name` would have in the target without us: the environment being built, the
 * run's own additions, renacer's environment, in that order. */
static const char *previous(const struct rn_strvec *env, char *const *env_add, const char *name)
{
	const char *v = rn_strvec_env_get(env, name);
	size_t n = strlen(name);

	if (v)
		return v;
	for (char *const *e = env_add; e && *e; e++)
		if (!strncmp(*e, name, n) && (*e)[n] == '=')
			return *e + n + 1;
	return getenv(name);
}

/* Whether `list` (separated by `sep`) already names `item`. */
static bool list_has(const char *list, char sep, const char *item)
{
	size_t n = strlen(item);

	for (const char *p = list; p && *p;) {
		const char *end = strchr(p, sep);
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len == n && !strncmp(p, item, n))
			return true;
		if (!end)
			break;
		p = end + 1;
	}
	return false;
}

/* Set "KEY=VALUE" from `b` (replacing KEY's entry: `env` is the child's whole environment). */
static void set(struct rn_strvec *env, struct rn_buf *b)
{
	if (rn_buf_failed(b))
		rn_die("out of memory building the vulkan layer environment");
	rn_strvec_env_set(env, b->buf);
	rn_buf_reset(b);
}

/* NAME=<item><sep><previous>, or NAME=<previous> when it already lists the item. */
static void prepend(struct rn_buf *b, const struct rn_strvec *env, char *const *env_add,
		    const char *name, const char *item, char sep)
{
	const char *old = previous(env, env_add, name);

	if (old && list_has(old, sep, item))
		rn_buf_addf(b, "%s=%s", name, old);
	else if (old && *old)
		rn_buf_addf(b, "%s=%s%c%s", name, item, sep, old);
	else
		rn_buf_addf(b, "%s=%s", name, item);
}

void rn_vk_inject_env(const char *layer_dir, const char *record_dir, enum rn_gpu_mode mode,
		      char *const *env_add, struct rn_strvec *env)
{
	struct rn_buf b;

	rn_buf_init(&b, 0);
	prepend(&b, env, env_add, "VK_ADD_LAYER_PATH", layer_dir, ':');
	set(env, &b);
	prepend(&b, env, env_add, "VK_INSTANCE_LAYERS", RN_VK_LAYER_NAME, ':');
	set(env, &b);
	prepend(&b, env, env_add, "VK_LOADER_LAYERS_ENABLE", RN_VK_LAYER_NAME, ',');
	set(env, &b);
	rn_buf_addf(&b, "%s=%s", RN_VK_ENV_DIR, record_dir);
	set(env, &b);
	rn_buf_addf(&b, "%s=%s", RN_VK_ENV_MODE, rn_vk_mode_name(mode));
	set(env, &b);
	rn_buf_release(&b);
}
