/*
 * fuzz_history_import.c - `renacer history import` (rn_history_import_file,
 * runner/history/history_doc.c) on arbitrary file contents, into an in-memory SQLite store.
 * Properties: a file is either refused (-EINVAL, the store untouched) or recorded, never a store
 * error; what is recorded has a target name that passes check's rule, and every stored name
 * (commit, branch, machine and its description, the CPU model and kernel a file brings) is
 * valid UTF-8 of at most 255 bytes. Seeds: the golden traces of golden_traces/ and
 * tests/unit/assertions/golden/.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_history.h"
#include "config.h"
#include "fuzz.h"
#include "history.h"
#include "runner/history/internal.h"
#include "utf8.h"

static struct rn_history store;
static bool opened;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* identify the run without running git for every input */
	setenv("RENACER_COMMIT", "0123456789abcdef", 1);
	setenv("RENACER_BRANCH", "fuzz", 1);
	setenv("RENACER_MACHINE", "fuzz", 1);
	return 0;
}

static int check_names(void *ctx, size_t ncols, const char *const *v)
{
	size_t i;

	(void)ctx;
	for (i = 0; i < ncols; i++) {
		FUZZ_CHECK(v[i], "stored names are not NULL");
		FUZZ_CHECK(rn_utf8_valid(v[i]), "stored names are UTF-8");
		FUZZ_CHECK(strlen(v[i]) <= 255, "stored names are at most 255 bytes");
	}
	return 0;
}

static int check_target(void *ctx, size_t ncols, const char *const *v)
{
	(void)ctx;
	FUZZ_CHECK(ncols == 1 && v[0] && rn_config_name_valid(v[0]),
		   "a recorded target name passes check's rule");
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_tmpfile_write(data, size);
	const struct rn_history_import_opts io = { NULL, NULL, NULL, NULL };
	struct rn_history_imported im;
	char id[24];
	const char *params[] = { id };
	int64_t rc;

	if (!opened) {
		if (!getenv("RENACER_COMMIT"))
			LLVMFuzzerInitialize(NULL, NULL);
		FUZZ_CHECK(!rn_history_open(&store, ":memory:", true, 1000),
			   "an in-memory store opens");
		opened = true;
	}
	rc = rn_history_import_file(&store, path, &io, NULL, &im);
	if (rc < 0) {
		FUZZ_CHECK(rc == -EINVAL, "a file is refused, never a store error");
		return 0;
	}
	FUZZ_CHECK(rc == im.id && rc > 0, "the new run has an id");
	FUZZ_CHECK(rn_config_name_valid(im.target), "the target name passes check's rule");
	snprintf(id, sizeof(id), "%lld", (long long)rc);
	FUZZ_CHECK(!rn_history_query(&store,
				     "SELECT commit_sha, branch, machine, machine_desc FROM runs "
				     "WHERE id = ?",
				     params, 1, check_names, NULL),
		   "the run reads back");
	FUZZ_CHECK(!rn_history_query(&store, "SELECT DISTINCT target FROM results WHERE run_id = ?",
				     params, 1, check_target, NULL),
		   "the results read back");
	/* keep the store small: one run at a time */
	FUZZ_CHECK(!rn_history_query(&store, "DELETE FROM results", NULL, 0, NULL, NULL) &&
			   !rn_history_query(&store, "DELETE FROM verdicts", NULL, 0, NULL, NULL) &&
			   !rn_history_query(&store, "DELETE FROM critical_path", NULL, 0, NULL,
					     NULL) &&
			   !rn_history_query(&store, "DELETE FROM runs", NULL, 0, NULL, NULL),
		   "the store empties");
	return 0;
}
