/*
 * test_cachegrind.c - reading cachegrind's output files, and the driver preference of the
 * eBPF driver (parse, names, resolution).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cachegrind/cachegrind.h"
#include "driver.h"
#include "ebpf/ebpf.h"

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_cachegrind_parses_summary(void **state)
{
	char path[] = "/tmp/rn-test-cg-XXXXXX";
	struct rn_cachegrind_proc p;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	write_file(path,
		   "desc: I1 cache: 32768 B, 64 B, 8-way associative\n"
		   "cmd: /usr/bin/gzip -6 -c big\n"
		   "events: Ir\n"
		   "fl=main.c\nfn=main\n12 40\n"
		   "summary: 1234567890123\n");
	assert_int_equal(rn_cachegrind_parse_file(path, &p), 0);
	assert_string_equal(p.cmd, "/usr/bin/gzip -6 -c big");
	assert_true(p.instructions == 1234567890123ull);
	free(p.cmd);

	/* cut short before the summary (a process killed while writing): no count */
	write_file(path, "cmd: ./a\nevents: Ir\nfl=x.c\nfn=f\n1 2\n");
	assert_int_equal(rn_cachegrind_parse_file(path, &p), -ENODATA);
	assert_null(p.cmd);
	unlink(path);
	assert_int_equal(rn_cachegrind_parse_file(path, &p), -ENOENT);
}

static void test_driver_pref(void **state)
{
	enum rn_driver_pref p = RN_DRIVER_PREF_PTRACE;
	const char *why = "x";

	(void)state;
	assert_int_equal(rn_driver_pref_parse("ebpf", &p), 0);
	assert_int_equal(p, RN_DRIVER_PREF_EBPF);
	assert_int_equal(rn_driver_pref_parse("auto", &p), 0);
	assert_int_equal(p, RN_DRIVER_PREF_AUTO);
	assert_int_equal(rn_driver_pref_parse("bpf", &p), -EINVAL);
	assert_string_equal(rn_driver_pref_name(RN_DRIVER_PREF_AUTO), "auto");
	assert_int_equal(rn_driver_pref_resolve(RN_DRIVER_PREF_PTRACE, NULL, &why),
			 RN_COLLECT_PTRACE);
	assert_null(why);
	/* auto with a need only ptrace meets: ptrace, and the need is the reason */
	assert_int_equal(rn_driver_pref_resolve(RN_DRIVER_PREF_AUTO, "needs spans", &why),
			 RN_COLLECT_PTRACE);
	assert_string_equal(why, "needs spans");
	/* auto without a need: eBPF exactly when it says it can load */
	if (rn_ebpf_unavailable()) {
		assert_int_equal(rn_driver_pref_resolve(RN_DRIVER_PREF_AUTO, NULL, &why),
				 RN_COLLECT_PTRACE);
		assert_string_equal(why, rn_ebpf_unavailable());
	} else {
		assert_int_equal(rn_driver_pref_resolve(RN_DRIVER_PREF_AUTO, NULL, &why),
				 RN_COLLECT_EBPF);
		assert_null(why);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cachegrind_parses_summary),
		cmocka_unit_test(test_driver_pref),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
