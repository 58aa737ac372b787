/*
 * test_perfmap.c - the perf map reader (collectors/perfmap.h): lookups and their boundaries,
 * malformed and unsorted lines, overlapping regions, the mtime and file-type rules of reading
 * a file, and how the runtimes' names read as frames.
 */
#include <errno.h>
#include <fcntl.h>
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

#include "perfmap.h"
#include "symbolize.h"

static struct rn_perfmap *parse(const char *text)
{
	return rn_perfmap_parse(text, strlen(text));
}

static void test_perfmap_lookup_and_boundaries(void **state)
{
	/* unsorted, with and without 0x, upper and lower case hex, a name with spaces */
	struct rn_perfmap *m = parse("7f0000002000 100 second\n"
				     "0x7f0000001000 0x80 first one\n"
				     "7F0000003000 10 JS:*hotLoop /app/a.js:3:1\n");

	(void)state;
	assert_int_equal(rn_perfmap_count(m), 3);
	assert_null(rn_perfmap_lookup(m, 0x7f0000000fff));
	assert_string_equal(rn_perfmap_lookup(m, 0x7f0000001000), "first one");
	assert_string_equal(rn_perfmap_lookup(m, 0x7f000000107f), "first one");
	/* START + SIZE is one past the region */
	assert_null(rn_perfmap_lookup(m, 0x7f0000001080));
	assert_string_equal(rn_perfmap_lookup(m, 0x7f0000002000), "second");
	assert_string_equal(rn_perfmap_lookup(m, 0x7f00000020ff), "second");
	assert_null(rn_perfmap_lookup(m, 0x7f0000002100));
	assert_string_equal(rn_perfmap_lookup(m, 0x7f000000300f), "JS:*hotLoop /app/a.js:3:1");
	assert_null(rn_perfmap_lookup(m, 0x7f0000003010));
	assert_null(rn_perfmap_lookup(m, 0));
	assert_null(rn_perfmap_lookup(m, UINT64_MAX));
	assert_null(rn_perfmap_lookup(NULL, 0x7f0000001000));
	rn_perfmap_free(m);
}

static void test_perfmap_skips_malformed_lines(void **state)
{
	struct rn_perfmap *m = parse("\n"
				     "garbage\n"
				     "1000\n"           /* no size */
				     "1000 10\n"        /* no name */
				     "1000 10   \r\n"   /* blanks only */
				     "1000 0 empty\n"   /* a size of 0 */
				     "zz00 10 badhex\n" /* not hex */
				     "1000x 10 glued\n" /* junk after the start */
				     "ffffffffffffff00 200 wraps\n"
				     "11223344556677889 10 too_long\n"
				     "4000 20 good\r\n" /* CRLF */
				     "5000\t8\ttabbed\n"
				     "6000 8 last_without_newline");

	(void)state;
	assert_int_equal(rn_perfmap_count(m), 3);
	assert_null(rn_perfmap_lookup(m, 0x1000));
	assert_null(rn_perfmap_lookup(m, 0xffffffffffffff10));
	assert_string_equal(rn_perfmap_lookup(m, 0x4010), "good");
	assert_string_equal(rn_perfmap_lookup(m, 0x5007), "tabbed");
	assert_string_equal(rn_perfmap_lookup(m, 0x6000), "last_without_newline");
	rn_perfmap_free(m);
	/* the length bounds the text: what follows it is never read */
	m = rn_perfmap_parse("7000 8 cut_here", 10);
	assert_int_equal(rn_perfmap_count(m), 1);
	assert_string_equal(rn_perfmap_lookup(m, 0x7000), "cut");
	rn_perfmap_free(m);
	m = parse("");
	assert_int_equal(rn_perfmap_count(m), 0);
	assert_null(rn_perfmap_lookup(m, 0x1000));
	rn_perfmap_free(m);
}

static void test_perfmap_overlapping_regions(void **state)
{
	/* a large region with a small one inside it, and code compiled again at one address:
	 * the innermost region answers, and of equal starts the line written last */
	struct rn_perfmap *m = parse("1000 1000 outer\n"
				     "1800 10 inner\n"
				     "3000 10 old\n"
				     "3000 20 new\n");

	(void)state;
	assert_string_equal(rn_perfmap_lookup(m, 0x1000), "outer");
	assert_string_equal(rn_perfmap_lookup(m, 0x1808), "inner");
	/* past the inner region, still inside the outer one */
	assert_string_equal(rn_perfmap_lookup(m, 0x1810), "outer");
	assert_string_equal(rn_perfmap_lookup(m, 0x1fff), "outer");
	assert_null(rn_perfmap_lookup(m, 0x2000));
	assert_string_equal(rn_perfmap_lookup(m, 0x3008), "new");
	assert_string_equal(rn_perfmap_lookup(m, 0x3018), "new");
	rn_perfmap_free(m);
}

/* Write `text` to a fresh file under a temporary directory dir[64]; its path into path[96]. */
static void write_tmp(char *dir, char *path, const char *text)
{
	FILE *f;

	snprintf(dir, 64, "/tmp/rn-test-perfmap.XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(path, 96, "%s/perf-1.map", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_perfmap_read_trusts_only_fresh_regular_files(void **state)
{
	char dir[64], path[96], link[96];
	struct rn_perfmap *m = NULL;
	struct stat st;
	uint64_t mtime_ns;

	(void)state;
	write_tmp(dir, path, "1000 10 fresh\n");
	assert_int_equal(stat(path, &st), 0);
	mtime_ns = (uint64_t)st.st_mtim.tv_sec * 1000000000u + (uint64_t)st.st_mtim.tv_nsec;
	/* modified at the run's start or later: read */
	assert_int_equal(rn_perfmap_read(path, mtime_ns, &m), 0);
	assert_string_equal(rn_perfmap_lookup(m, 0x1000), "fresh");
	rn_perfmap_free(m);
	/* modified before it: an earlier process's with the same pid */
	m = NULL;
	assert_int_equal(rn_perfmap_read(path, mtime_ns + 1, &m), -ESTALE);
	assert_null(m);
	/* a symbolic link is not followed, a directory is not a map */
	snprintf(link, sizeof(link), "%s/link.map", dir);
	assert_int_equal(symlink(path, link), 0);
	assert_int_equal(rn_perfmap_read(link, 0, &m), -ELOOP);
	assert_int_equal(rn_perfmap_read(dir, 0, &m), -EINVAL);
	assert_int_equal(rn_perfmap_read("/nonexistent/perf-1.map", 0, &m), -ENOENT);
	assert_null(m);
	/* the file is read, never changed: still there with the same contents */
	assert_int_equal(rn_perfmap_read(path, 0, &m), 0);
	assert_int_equal(rn_perfmap_count(m), 1);
	rn_perfmap_free(m);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, strlen("1000 10 fresh\n"));
	unlink(link);
	unlink(path);
	rmdir(dir);
}

static void test_perfmap_frame_names(void **state)
{
	char buf[256];

	(void)state;
	/* CPython 3.12's trampolines */
	assert_string_equal(rn_perfmap_frame_name("py::hash_rounds:/app/spin.py", NULL, buf,
						  sizeof(buf)),
			    "hash_rounds (/app/spin.py)");
	assert_string_equal(rn_perfmap_frame_name("py::Cls.method:<string>", NULL, buf,
						  sizeof(buf)),
			    "Cls.method (<string>)");
	/* V8: the tier mark and the file:// scheme go, the location stays */
	assert_string_equal(rn_perfmap_frame_name("JS:*hotLoop file:///app/a.mjs:3:1", NULL, buf,
						  sizeof(buf)),
			    "hotLoop (/app/a.mjs:3:1)");
	assert_string_equal(rn_perfmap_frame_name("JS:~hotLoop /app/a.js:3:17", NULL, buf,
						  sizeof(buf)),
			    "hotLoop (/app/a.js:3:17)");
	assert_string_equal(rn_perfmap_frame_name("LazyCompile:*hotLoop /app/a.js:3", NULL, buf,
						  sizeof(buf)),
			    "hotLoop (/app/a.js:3)");
	assert_string_equal(rn_perfmap_frame_name("JS:~ /app/a.js:1:1", NULL, buf, sizeof(buf)),
			    "<anonymous> (/app/a.js:1:1)");
	assert_string_equal(rn_perfmap_frame_name("Builtin:ArrayPrototypePush", NULL, buf,
						  sizeof(buf)),
			    "Builtin:ArrayPrototypePush");
	/* other runtimes' names as written */
	assert_string_equal(rn_perfmap_frame_name("jit_spin_loop", NULL, buf, sizeof(buf)),
			    "jit_spin_loop");
	assert_string_equal(rn_perfmap_frame_name("Lcom/acme/App;::run", NULL, buf, sizeof(buf)),
			    "Lcom/acme/App;::run");
	/* files under the run's directory read relative to it: a head tree and its base alike */
	assert_string_equal(rn_perfmap_frame_name("JS:*hotLoop file:///w/head/a.js:3:1", "/w/head",
						  buf, sizeof(buf)),
			    "hotLoop (a.js:3:1)");
	assert_string_equal(rn_perfmap_frame_name("py::f:/w/base/lib/m.py", "/w/base/", buf,
						  sizeof(buf)),
			    "f (lib/m.py)");
	assert_string_equal(rn_perfmap_frame_name("JS:~g /w/headless/a.js:1:1", "/w/head", buf,
						  sizeof(buf)),
			    "g (/w/headless/a.js:1:1)");
	/* a frame named from a perf map is the program's own, whatever the name says */
	assert_false(rn_frame_is_system("jit_spin_loop [jit]"));
	assert_false(rn_frame_is_system("PyRun_hot (/app/a.py) [jit]"));
	assert_true(rn_frame_is_system("PyRun_hot"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_perfmap_lookup_and_boundaries),
		cmocka_unit_test(test_perfmap_skips_malformed_lines),
		cmocka_unit_test(test_perfmap_overlapping_regions),
		cmocka_unit_test(test_perfmap_read_trusts_only_fresh_regular_files),
		cmocka_unit_test(test_perfmap_frame_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
