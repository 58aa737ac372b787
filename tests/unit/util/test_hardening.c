/*
 * test_hardening.c - the primitives behind tests/integration/security: safe temporaries
 * (safefile.h), bounded reads of regular files, the name map (strmap.h), control-character escaping
 * (escape.h) and redaction inside shell strings.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "escape.h"
#include "otlp.h"
#include "safefile.h"
#include "strmap.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/rn-hardening-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void safefile_refuses_symlink(void **state)
{
	char path[128], victim[128];
	struct rn_buf b;

	(void)state;
	snprintf(path, sizeof(path), "%s/out", dir);
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	assert_int_equal(rn_write_file_atomic(victim, "keep", 4), 0);
	assert_int_equal(symlink(victim, path), 0);
	assert_int_equal(rn_write_file_atomic(path, "evil", 4), -ELOOP);
	rn_buf_init(&b, 0);
	assert_int_equal(rn_buf_read_file(&b, victim), 0);
	assert_string_equal(b.buf, "keep");
	rn_buf_release(&b);
	assert_non_null(strstr(rn_safefile_strerror(-ELOOP), "symbolic link"));
	unlink(path);
}

static void safefile_mode_and_stale(void **state)
{
	char path[128], stale[192];
	struct stat st;
	mode_t old;

	(void)state;
	snprintf(path, sizeof(path), "%s/golden.json", dir);
	/* pid 0x7ffffff0 does not exist */
	snprintf(stale, sizeof(stale), "%s/.golden.json.rn-tmp.%d.00", dir, 0x3ffffff0);
	assert_int_equal(rn_write_file_atomic(stale, "x", 1), 0);
	old = umask(077);
	assert_int_equal(rn_write_file_atomic(path, "{}\n", 3), 0);
	umask(old);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(access(stale, F_OK), -1);
}

static void read_regular_only(void **state)
{
	char path[128];
	struct rn_buf b;

	(void)state;
	rn_buf_init(&b, 0);
	assert_int_equal(rn_read_regular_file(&b, "/dev/zero", 1 << 20), -EINVAL);
	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(rn_read_regular_file(&b, path, 1 << 20), -EINVAL);
	snprintf(path, sizeof(path), "%s/big", dir);
	assert_int_equal(rn_write_file_atomic(path, "0123456789", 10), 0);
	assert_int_equal(rn_read_regular_file(&b, path, 9), -EFBIG);
	assert_int_equal(rn_read_regular_file(&b, path, 10), 0);
	assert_int_equal(b.len, 10);
	rn_buf_release(&b);
}

static void strmap_finds_duplicates(void **state)
{
	struct rn_strmap m;
	char names[1000][8];
	size_t i, old = 0, v = 0;

	(void)state;
	rn_strmap_init(&m);
	for (i = 0; i < 1000; i++) {
		snprintf(names[i], sizeof(names[i]), "a%zu", i);
		assert_true(rn_strmap_put(&m, names[i], i, NULL));
	}
	assert_false(rn_strmap_put(&m, "a517", 9999, &old));
	assert_int_equal(old, 517);
	assert_true(rn_strmap_get(&m, "a999", &v));
	assert_int_equal(v, 999);
	assert_false(rn_strmap_get(&m, "b1", NULL));
	assert_int_equal(m.n, 1000);
	rn_strmap_release(&m);
}

static void escape_control(void **state)
{
	char out[32], *s;

	(void)state;
	s = rn_escaped_dup("x\n::error::y\033[2J\x01");
	assert_string_equal(s, "x\\n::error::y\\e[2J\\x01");
	free(s);
	assert_int_equal(rn_escape_ctl(out, 6, "ab\ncd"), 5);
	assert_string_equal(out, "ab\\nc");
	assert_int_equal(rn_escape_ctl(out, 4, "ab\ncd"), 2); /* the escape does not fit whole */
	assert_false(rn_has_ctl("plain \xc3\xa9"));
}

/* Text to show: invalid UTF-8 repaired, C0 escaped, and the C1 and bidirectional controls
 * (which drive terminals and reorder the rest of a line) written as \uXXXX. */
static void display_controls(void **state)
{
	char *s;

	(void)state;
	s = rn_display_dup(
		"a\xe2\x80\xae"
		"b\xc2\x9b"
		"c\xe2\x81\xa6\xd8\x9c\xe2\x80\x8f\xc2\x80\xc2\x9f\xe2\x80\xaa\xe2\x81\xa9\xe2\x80\xa8"
		"\xff\x1b");
	assert_string_equal(s,
			    "a\\u202eb\\u009bc\\u2066\\u061c\\u200f\\u0080\\u009f\\u202a\\u2069"
			    "\\u2028\xef\xbf\xbd\\e");
	free(s);
	/* neighbours that are not controls stay: U+00A0, U+200D, U+2027, U+2070, U+202F */
	s = rn_display_dup("\xc2\xa0\xe2\x80\x8d\xe2\x80\xa7\xe2\x81\xb0\xe2\x80\xaf\xc3\xa9");
	assert_string_equal(s, "\xc2\xa0\xe2\x80\x8d\xe2\x80\xa7\xe2\x81\xb0\xe2\x80\xaf\xc3\xa9");
	free(s);
	s = rn_display_dup(NULL);
	assert_string_equal(s, "");
	free(s);
}

static void redact_shell_strings(void **state)
{
	const char *argv[] = { "/bin/sh", "-c",
			       "run --password=hunter2 TOKEN=tok3n --token 's3cr3t' -v; echo ok",
			       "plain", NULL };
	char **out;

	(void)state;
	out = rn_redact_argv(argv, NULL);
	assert_string_equal(out[2],
			    "run --password=[REDACTED] TOKEN=[REDACTED] --token "
			    "'[REDACTED]' -v; echo ok");
	assert_string_equal(out[3], "plain");
	rn_otlp_argv_free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(safefile_refuses_symlink),
		cmocka_unit_test(safefile_mode_and_stale),
		cmocka_unit_test(read_regular_only),
		cmocka_unit_test(strmap_finds_duplicates),
		cmocka_unit_test(escape_control),
		cmocka_unit_test(display_controls),
		cmocka_unit_test(redact_shell_strings),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
