/*
 * test_vulkan_collector.c - the Vulkan collector's ops around a real run of
 * tests/targets/vk_compute: prepare() -> fork/exec with its environment -> finish() into a
 * trace -> destroy(). Exits 77 when no Vulkan device is available.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "collector.h"
#include "trace.h"
#include "vulkan/vulkan.h"

static char target[4096];

/* Run the target with `env` added; its exit status. */
static int run_target(const struct rn_strvec *env, pid_t *pid_out)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		for (size_t i = 0; i < env->n; i++)
			putenv(env->v[i]);
		execl(target, target, (char *)NULL);
		_exit(127);
	}
	if (pid_out)
		*pid_out = pid;
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static size_t count(const struct rn_trace *t, enum rn_gpu_kind kind, const char *name)
{
	size_t n = 0;

	for (size_t i = 0; i < t->ngpu; i++)
		n += t->gpu[i].kind == kind && (!name || !strcmp(t->gpu[i].name, name));
	return n;
}

/* One run in `mode`; returns the collector (destroyed by the caller) and fills `t`. */
static struct rn_collector *run_mode(enum rn_gpu_mode mode, struct rn_trace *t, char *dir,
				     size_t dir_len, pid_t *pid)
{
	const struct rn_collector_ops *ops = &rn_vulkan_collector;
	struct rn_run_spec spec = { .name = "vk_compute", .gpu_mode = mode };
	struct rn_collector *c;
	struct rn_strvec env;
	struct stat st;

	rn_strvec_init(&env);
	assert_null(ops->unavailable());
	assert_int_equal(ops->create(&c, &spec), 0);
	assert_int_equal(ops->prepare(c, &env), 0);
	assert_non_null(rn_strvec_env_get(&env, "VK_INSTANCE_LAYERS"));
	snprintf(dir, dir_len, "%s", rn_strvec_env_get(&env, "RENACER_VK_DIR"));
	assert_int_equal(stat(dir, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(run_target(&env, pid), 0);
	rn_strvec_release(&env);
	rn_trace_init(t);
	assert_int_equal(ops->finish(c, t), 0);
	return c;
}

static void test_vulkan_collector_cmdbuf(void **state)
{
	struct rn_trace t;
	struct rn_collector *c;
	char dir[4096];
	struct stat st;
	pid_t pid;

	(void)state;
	c = run_mode(RN_GPU_MODE_CMDBUF, &t, dir, sizeof(dir), &pid);
	assert_int_equal(t.ngpu, 4);
	assert_int_equal(count(&t, RN_GPU_CMDBUF, "frame_cb"), 3);
	assert_int_equal(count(&t, RN_GPU_CMDBUF, "indirect_pass"), 1);
	for (size_t i = 0; i < t.ngpu; i++) {
		assert_int_equal(t.gpu[i].pid, pid);
		assert_true(t.gpu[i].submit_ns > 0);
		assert_true(t.gpu[i].end_ns >= t.gpu[i].start_ns);
		assert_true(t.gpu[i].start_ns + t.gpu[i].uncertainty_ns >= t.gpu[i].submit_ns);
		assert_true(strncmp(t.gpu[i].name, "gpu:", 4));
	}
	assert_int_equal(t.status, RN_RUN_OK);
	rn_trace_release(&t);
	rn_vulkan_collector.destroy(c);
	assert_int_equal(stat(dir, &st), -1); /* destroy() removed the directory */
}

static void test_vulkan_collector_dispatch(void **state)
{
	struct rn_trace t;
	struct rn_collector *c;
	char dir[4096];
	pid_t pid;

	(void)state;
	c = run_mode(RN_GPU_MODE_DISPATCH, &t, dir, sizeof(dir), &pid);
	assert_int_equal(count(&t, RN_GPU_CMDBUF, NULL), 4);
	assert_int_equal(count(&t, RN_GPU_DISPATCH, NULL), 16);
	assert_int_equal(count(&t, RN_GPU_COPY, NULL), 10);
	assert_int_equal(count(&t, RN_GPU_DISPATCH, "scale_pass"), 6);
	assert_int_equal(count(&t, RN_GPU_DISPATCH, "add_pipeline"), 3);
	assert_int_equal(count(&t, RN_GPU_DISPATCH, "reduce_sum"), 3);
	assert_int_equal(count(&t, RN_GPU_COPY, "upload"), 3);
	assert_true(rn_trace_gpu_busy_ns(&t) > 0);
	rn_trace_release(&t);
	rn_vulkan_collector.destroy(c);
}

/* A hostile record file fails the trace instead of giving partial numbers. */
static void test_vulkan_collector_rejects_bad_records(void **state)
{
	const struct rn_collector_ops *ops = &rn_vulkan_collector;
	struct rn_run_spec spec = { .name = "bad", .gpu_mode = RN_GPU_MODE_CMDBUF };
	struct rn_collector *c;
	struct rn_trace t;
	struct rn_strvec env;
	char path[4200];
	FILE *f;

	(void)state;
	rn_strvec_init(&env);
	assert_int_equal(ops->create(&c, &spec), 0);
	assert_int_equal(ops->prepare(c, &env), 0);
	snprintf(path, sizeof(path), "%s/vk-1.rnvk", rn_strvec_env_get(&env, "RENACER_VK_DIR"));
	f = fopen(path, "w");
	assert_non_null(f);
	{
		/* A valid preamble, then a record of type 0 (never valid). */
		static const unsigned char bad[] = { 'R', 'N', 'V', 'K', 'R', 'E', 'C', 0,  1, 0,
						     0,   0,   16,  0,   0,   0,   0,   0,  0, 0,
						     4,   0,   0,   0,   'j', 'u', 'n', 'k' };

		assert_int_equal(fwrite(bad, 1, sizeof(bad), f), sizeof(bad));
	}
	fclose(f);
	rn_trace_init(&t);
	assert_true(ops->finish(c, &t) < 0);
	assert_int_equal(t.status, RN_RUN_ERROR);
	assert_non_null(t.error);
	rn_trace_release(&t);
	ops->destroy(c);
	rn_strvec_release(&env);
}

int main(void)
{
	const char *bin = getenv("RN_BINARY_DIR");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vulkan_collector_cmdbuf),
		cmocka_unit_test(test_vulkan_collector_dispatch),
		cmocka_unit_test(test_vulkan_collector_rejects_bad_records),
	};
	struct rn_strvec none;
	int st;

#ifdef RN_BINARY_DIR
	if (!bin)
		bin = RN_BINARY_DIR;
#endif
	if (!bin)
		return 77;
	snprintf(target, sizeof(target), "%s/targets/vk_compute", bin);
	if (access(target, X_OK))
		return 77;
	rn_strvec_init(&none);
	st = run_target(&none, NULL); /* without the layer: is there a device at all? */
	rn_strvec_release(&none);
	if (st == 77)
		return 77;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
