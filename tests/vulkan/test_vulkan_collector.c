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
static int run_target(char **env, size_t nenv, pid_t *pid_out)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		for (size_t i = 0; i < nenv; i++)
			putenv(env[i]);
		execl(target, target, (char *)NULL);
		_exit(127);
	}
	if (pid_out)
		*pid_out = pid;
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static const char *env_value(char **env, size_t n, const char *name)
{
	size_t len = strlen(name);

	for (size_t i = 0; i < n; i++)
		if (!strncmp(env[i], name, len) && env[i][len] == '=')
			return env[i] + len + 1;
	return NULL;
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
	char **env = NULL;
	size_t nenv = 0, cap = 0;
	struct stat st;

	assert_null(ops->unavailable());
	assert_int_equal(ops->create(&c, &spec), 0);
	assert_int_equal(ops->prepare(c, &env, &nenv, &cap), 0);
	assert_non_null(env_value(env, nenv, "VK_INSTANCE_LAYERS"));
	snprintf(dir, dir_len, "%s", env_value(env, nenv, "RENACER_VK_DIR"));
	assert_int_equal(stat(dir, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(run_target(env, nenv, pid), 0);
	for (size_t i = 0; i < nenv; i++)
		free(env[i]);
	free(env);
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
	char **env = NULL, path[4200];
	size_t nenv = 0, cap = 0;
	FILE *f;

	(void)state;
	assert_int_equal(ops->create(&c, &spec), 0);
	assert_int_equal(ops->prepare(c, &env, &nenv, &cap), 0);
	snprintf(path, sizeof(path), "%s/vk-1.rnvk", env_value(env, nenv, "RENACER_VK_DIR"));
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
	for (size_t i = 0; i < nenv; i++)
		free(env[i]);
	free(env);
}

int main(void)
{
	const char *bin = getenv("RN_BINARY_DIR");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vulkan_collector_cmdbuf),
		cmocka_unit_test(test_vulkan_collector_dispatch),
		cmocka_unit_test(test_vulkan_collector_rejects_bad_records),
	};
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
	st = run_target(NULL, 0, NULL); /* without the layer: is there a device at all? */
	if (st == 77)
		return 77;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
