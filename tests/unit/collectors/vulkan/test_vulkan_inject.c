/*
 * test_vulkan_inject.c - the environment that injects the timing layer
 * (collectors/vulkan/inject.h): values the user already set are kept, never duplicated.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "strvec.h"
#include "vulkan/inject.h"

static const char *find(const struct rn_strvec *e, const char *name)
{
	return rn_strvec_env_get(e, name);
}

static void release(struct rn_strvec *e)
{
	rn_strvec_release(e);
	rn_strvec_init(e);
}

static void test_inject_fresh_environment(void **state)
{
	struct rn_strvec e;

	(void)state;
	rn_strvec_init(&e);
	unsetenv("VK_ADD_LAYER_PATH");
	unsetenv("VK_INSTANCE_LAYERS");
	unsetenv("VK_LOADER_LAYERS_ENABLE");
	rn_vk_inject_env("/opt/layers", "/tmp/rec", RN_GPU_MODE_DISPATCH, NULL, &e);
	assert_int_equal(e.n, 5);
	assert_string_equal(find(&e, "VK_ADD_LAYER_PATH"), "/opt/layers");
	assert_string_equal(find(&e, "VK_INSTANCE_LAYERS"), "VK_LAYER_RENACER_timing");
	assert_string_equal(find(&e, "VK_LOADER_LAYERS_ENABLE"), "VK_LAYER_RENACER_timing");
	assert_string_equal(find(&e, "RENACER_VK_DIR"), "/tmp/rec");
	assert_string_equal(find(&e, "RENACER_VK_MODE"), "dispatch");
	rn_strvec_release(&e);
}

static void test_inject_keeps_user_values(void **state)
{
	struct rn_strvec e;
	char *add[] = { (char *)"VK_INSTANCE_LAYERS=VK_LAYER_from_config", NULL };

	(void)state;
	rn_strvec_init(&e);
	setenv("VK_ADD_LAYER_PATH", "/home/u/layers", 1);
	setenv("VK_INSTANCE_LAYERS", "VK_LAYER_from_env", 1);
	setenv("VK_LOADER_LAYERS_ENABLE", "*validation", 1);
	rn_vk_inject_env("/opt/layers", "/tmp/rec", RN_GPU_MODE_CMDBUF, add, &e);
	assert_string_equal(find(&e, "VK_ADD_LAYER_PATH"), "/opt/layers:/home/u/layers");
	/* The run's own env_add wins over renacer's environment as the previous value. */
	assert_string_equal(find(&e, "VK_INSTANCE_LAYERS"),
			    "VK_LAYER_RENACER_timing:VK_LAYER_from_config");
	assert_string_equal(find(&e, "VK_LOADER_LAYERS_ENABLE"),
			    "VK_LAYER_RENACER_timing,*validation");
	assert_string_equal(find(&e, "RENACER_VK_MODE"), "cmdbuf");
	release(&e);

	/* Already listed: left as it is. */
	setenv("VK_INSTANCE_LAYERS", "A:VK_LAYER_RENACER_timing:B", 1);
	rn_vk_inject_env("/opt/layers", "/tmp/rec", RN_GPU_MODE_SUBMIT, NULL, &e);
	assert_string_equal(find(&e, "VK_INSTANCE_LAYERS"), "A:VK_LAYER_RENACER_timing:B");
	assert_string_equal(find(&e, "RENACER_VK_MODE"), "submit");
	rn_strvec_release(&e);
	unsetenv("VK_ADD_LAYER_PATH");
	unsetenv("VK_INSTANCE_LAYERS");
	unsetenv("VK_LOADER_LAYERS_ENABLE");
}

/* collectors/run.c passes the child's whole environment: entries are replaced in place. */
static void test_inject_replaces_in_full_environment(void **state)
{
	struct rn_strvec e;
	const char *start[] = { "PATH=/bin", "VK_INSTANCE_LAYERS=VK_LAYER_user",
				"RENACER_VK_MODE=stale", "HOME=/root" };

	(void)state;
	rn_strvec_init(&e);
	unsetenv("VK_INSTANCE_LAYERS");
	for (size_t i = 0; i < 4; i++)
		rn_strvec_push(&e, start[i]);
	rn_vk_inject_env("/opt/layers", "/tmp/rec", RN_GPU_MODE_DISPATCH, NULL, &e);
	assert_int_equal(e.n, 7); /* 4 + ADD_LAYER_PATH, LOADER_LAYERS_ENABLE, VK_DIR */
	assert_string_equal(e.v[1], "VK_INSTANCE_LAYERS=VK_LAYER_RENACER_timing:VK_LAYER_user");
	assert_string_equal(e.v[2], "RENACER_VK_MODE=dispatch");
	assert_string_equal(e.v[0], "PATH=/bin");
	assert_null(e.v[e.n]); /* still NULL-terminated for execve */
	rn_strvec_release(&e);
}

static void test_inject_layer_dir_override(void **state)
{
	(void)state;
	setenv("RENACER_VK_LAYER_DIR", "/nonexistent/dir", 1);
	assert_null(rn_vk_layer_dir());
	unsetenv("RENACER_VK_LAYER_DIR");
	assert_string_equal(rn_vk_mode_name(RN_GPU_MODE_DISPATCH), "dispatch");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inject_fresh_environment),
		cmocka_unit_test(test_inject_keeps_user_values),
		cmocka_unit_test(test_inject_replaces_in_full_environment),
		cmocka_unit_test(test_inject_layer_dir_override),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
