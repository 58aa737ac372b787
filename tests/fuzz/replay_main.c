/*
 * replay_main.c - run a harness without libFuzzer: every file named on the command line (and
 * every regular file below a named directory, recursively, in sorted order) is read and
 * passed to LLVMFuzzerTestOneInput() once. This is how ctest replays the regression inputs of
 * tests/fuzz/regressions/ and the seed data with an ordinary (gcc, optionally sanitized)
 * build. Exit 0 when every input ran; a harness that finds a violated property aborts.
 *
 *     replay_<name> [-q] PATH...
 */
#include "fuzz.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "buf.h"

/* libFuzzer makes LLVMFuzzerInitialize optional; so does the replay driver. */
extern int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static bool quiet;
static unsigned long ninputs;

static int replay_file(const char *path)
{
	struct rn_buf b;
	int rc;
	uint8_t *copy;
	size_t len;

	rn_buf_init(&b, 0);
	rc = rn_buf_read_file(&b, path);
	if (rc) {
		fprintf(stderr, "replay: cannot read '%s': %s\n", path, strerror(-rc));
		rn_buf_release(&b);
		return -1;
	}
	if (!quiet)
		fprintf(stderr, "replay: %s (%zu bytes)\n", path, b.len);
	/* An exact-size copy, so ASan sees a read past the input as libFuzzer would. */
	len = b.len;
	copy = malloc(len ? len : 1);
	if (!copy) {
		rn_buf_release(&b);
		return -1;
	}
	memcpy(copy, b.buf, len);
	rn_buf_release(&b);
	LLVMFuzzerTestOneInput(copy, len);
	free(copy);
	ninputs++;
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_path(const char *path)
{
	struct stat st;
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0, i;
	DIR *d;
	int rc = 0;

	if (stat(path, &st)) {
		fprintf(stderr, "replay: '%s': %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return S_ISREG(st.st_mode) ? replay_file(path) : 0;
	d = opendir(path);
	if (!d) {
		fprintf(stderr, "replay: cannot open '%s': %s\n", path, strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		struct rn_buf child;

		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			char **grown;

			cap = cap ? cap * 2 : 64;
			grown = realloc(names, cap * sizeof(*names));
			if (!grown) {
				rc = -1;
				break;
			}
			names = grown;
		}
		rn_buf_init(&child, 0);
		rn_buf_addf(&child, "%s/%s", path, de->d_name);
		names[n] = rn_buf_detach(&child, NULL);
		if (!names[n]) {
			rc = -1;
			break;
		}
		n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_names);
	for (i = 0; i < n; i++) {
		if (!rc && replay_path(names[i]))
			rc = -1;
		free(names[i]);
	}
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	int i, first = 1, rc = 0;

	if (argc > 1 && !strcmp(argv[1], "-q")) {
		quiet = true;
		first = 2;
	}
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	for (i = first; i < argc; i++)
		if (replay_path(argv[i]))
			rc = 1;
	fprintf(stderr, "replay: %lu input%s replayed%s\n", ninputs, ninputs == 1 ? "" : "s",
		rc ? ", some could not be read" : "");
	return rc;
}
