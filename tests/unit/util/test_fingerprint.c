/*
 * test_fingerprint.c - the environment fingerprint (util/fingerprint.h): each field read
 * from a planted /proc and /sys tree of the test's own, the container and hypervisor checks,
 * field cleaning, and the comparison (a field unknown on one side explains nothing).
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
#include <unistd.h>

#include <cmocka.h>

#include "fingerprint.h"

#define ROOT RN_BINARY_DIR "/test_fingerprint_root"

/* Write `text` to ROOT/path, making its folders. */
static void plant(const char *path, const char *text)
{
	char full[1024], *slash;
	FILE *f;

	snprintf(full, sizeof(full), "%s%s", ROOT, path);
	for (slash = strchr(full + strlen(ROOT) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (mkdir(full, 0755) && errno != EEXIST)
			fail_msg("mkdir %s: %s", full, strerror(errno));
		*slash = '/';
	}
	f = fopen(full, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int fresh_root(void **state)
{
	(void)state;
	return system("rm -rf '" ROOT "' && mkdir -p '" ROOT "'") ? -1 : 0;
}

static const char cpuinfo[] = "processor\t: 0\n"
			      "vendor_id\t: GenuineIntel\n"
			      "model name\t: Intel(R) Xeon(R) Platinum 8370C CPU @ 2.80GHz\n"
			      "microcode\t: 0xd0003a5\n"
			      "flags\t\t: fpu vme hypervisor lahf_lm\n"
			      "\n"
			      "processor\t: 1\n"
			      "model name\t: Other\n";

/* Every field from its file: a Docker container in a KVM guest with a governor and boost. */
static void test_fingerprint_host_fields(void **state)
{
	struct rn_fingerprint fp;

	(void)state;
	plant("/proc/cpuinfo", cpuinfo);
	plant("/proc/sys/kernel/osrelease", "6.8.0-1017-azure\n");
	plant("/sys/devices/system/cpu/cpufreq/policy0/scaling_governor", "powersave\n");
	plant("/sys/devices/system/cpu/cpufreq/boost", "1\n");
	plant("/sys/devices/system/cpu/smt/active", "0\n");
	plant("/sys/class/dmi/id/product_name", "KVM\n");
	plant("/.dockerenv", "");
	setenv("ImageOS", "ubuntu24", 1);
	setenv("ImageVersion", "20241201.1.0", 1);
	rn_fingerprint_host(&fp, ROOT);
	unsetenv("ImageOS");
	unsetenv("ImageVersion");
	assert_string_equal(fp.field[RN_FP_CPU_MODEL],
			    "Intel(R) Xeon(R) Platinum 8370C CPU @ 2.80GHz");
	assert_string_equal(fp.field[RN_FP_MICROCODE], "0xd0003a5");
	assert_string_equal(fp.field[RN_FP_KERNEL], "6.8.0-1017-azure");
	assert_string_equal(fp.field[RN_FP_GOVERNOR], "powersave");
	assert_string_equal(fp.field[RN_FP_BOOST], "on");
	assert_string_equal(fp.field[RN_FP_SMT], "off");
	assert_string_equal(fp.field[RN_FP_VIRT], "docker in kvm");
	assert_string_equal(fp.field[RN_FP_IMAGE], "ubuntu24/20241201.1.0");
	assert_string_equal(fp.field[RN_FP_COMPILER], "");
	assert_string_equal(fp.field[RN_FP_RENACER], RN_VERSION);
}

/* Nothing planted: unknown fields are "", the machine is not virtual as far as it shows. */
static void test_fingerprint_host_empty_tree(void **state)
{
	struct rn_fingerprint fp;

	(void)state;
	rn_fingerprint_host(&fp, ROOT);
	assert_string_equal(fp.field[RN_FP_CPU_MODEL], "");
	assert_string_equal(fp.field[RN_FP_GOVERNOR], "");
	assert_string_equal(fp.field[RN_FP_BOOST], "");
	assert_string_equal(fp.field[RN_FP_SMT], "");
	assert_string_equal(fp.field[RN_FP_VIRT], "none");
	assert_true(rn_fingerprint_known(&fp)); /* renacer's version */
}

/* intel_pstate says no_turbo = 1: boost off; cgroup v1 names the runtime; the CPUID flag
 * alone says "vm"; cpu0's governor when there is no policy folder. */
static void test_fingerprint_host_fallbacks(void **state)
{
	struct rn_fingerprint fp;

	(void)state;
	plant("/proc/cpuinfo", cpuinfo);
	plant("/proc/1/cgroup", "12:pids:/kubepods/besteffort/pod1\n0::/\n");
	plant("/sys/devices/system/cpu/intel_pstate/no_turbo", "1\n");
	plant("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "performance\n");
	rn_fingerprint_host(&fp, ROOT);
	assert_string_equal(fp.field[RN_FP_BOOST], "off");
	assert_string_equal(fp.field[RN_FP_VIRT], "kubernetes in vm");
	assert_string_equal(fp.field[RN_FP_GOVERNOR], "performance");
}

/* Outer blanks trimmed, control characters replaced, long texts cut below the field size. */
static void test_fingerprint_set_cleans(void **state)
{
	struct rn_fingerprint fp;
	char longer[400];

	(void)state;
	memset(&fp, 0, sizeof(fp));
	rn_fingerprint_set(&fp, RN_FP_COMPILER, "  gcc\t12\x01x \n");
	assert_string_equal(fp.field[RN_FP_COMPILER], "gcc 12 x");
	memset(longer, 'a', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	rn_fingerprint_set(&fp, RN_FP_COMPILER, longer);
	assert_int_equal(strlen(fp.field[RN_FP_COMPILER]), RN_FINGERPRINT_FIELD_MAX - 1);
	rn_fingerprint_set(&fp, RN_FP_COMPILER, NULL);
	assert_string_equal(fp.field[RN_FP_COMPILER], "");
}

/* Only fields both sides know can differ; the text names each, in table order. */
static void test_fingerprint_diff(void **state)
{
	struct rn_fingerprint a, b;
	struct rn_buf t;
	unsigned mask;

	(void)state;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	rn_fingerprint_set(&a, RN_FP_KERNEL, "6.1.0");
	rn_fingerprint_set(&b, RN_FP_KERNEL, "6.8.0");
	rn_fingerprint_set(&a, RN_FP_GOVERNOR, "powersave");
	rn_fingerprint_set(&b, RN_FP_GOVERNOR, "performance");
	rn_fingerprint_set(&a, RN_FP_SMT, "on"); /* unknown on b: explains nothing */
	rn_fingerprint_set(&a, RN_FP_VIRT, "none");
	rn_fingerprint_set(&b, RN_FP_VIRT, "none");
	mask = rn_fingerprint_diff(&a, &b);
	assert_int_equal(mask, (1u << RN_FP_KERNEL) | (1u << RN_FP_GOVERNOR));
	rn_buf_init(&t, 0);
	rn_fingerprint_describe_diff(&t, &a, &b, mask, "here");
	assert_string_equal(t.buf,
			    "kernel '6.1.0', here '6.8.0'; governor 'powersave', here "
			    "'performance'");
	rn_buf_reset(&t);
	rn_fingerprint_add_names(&t, mask);
	assert_string_equal(t.buf, "kernel, governor");
	rn_buf_reset(&t);
	rn_fingerprint_add_text(&t, &b);
	assert_string_equal(t.buf, "kernel=6.8.0; governor=performance; virt=none");
	rn_buf_release(&t);
	assert_int_equal(rn_fingerprint_diff(&a, &a), 0);
	assert_int_equal(rn_fingerprint_field_lookup("governor"), RN_FP_GOVERNOR);
	assert_int_equal(rn_fingerprint_field_lookup("nope"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_fingerprint_host_fields, fresh_root),
		cmocka_unit_test_setup(test_fingerprint_host_empty_tree, fresh_root),
		cmocka_unit_test_setup(test_fingerprint_host_fallbacks, fresh_root),
		cmocka_unit_test(test_fingerprint_set_cleans),
		cmocka_unit_test(test_fingerprint_diff),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
