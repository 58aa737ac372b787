/*
 * init_detect.c - the harnesses and suites of a project, from its files (init_detect.h).
 */
#include "init_detect.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "xalloc.h"

/* Folders looked into below the project's: two levels, as a project lays out its benches. */
#define DETECT_DEPTH 2
/* Most bytes of one file read (a CMakeLists.txt, a test file). */
#define DETECT_READ_MAX ((size_t)1 << 20)
/* Most Google Benchmark executables written. */
#define DETECT_MAX_GB 32

/* What the walk found. */
struct found {
	bool ctest;                      /* a CMakeLists.txt enables testing */
	char *gb[DETECT_MAX_GB];         /* executables linking Google Benchmark: "sub/name" */
	size_t ngb;                      /* entries of gb */
	bool pytest_bench;               /* a test file uses the benchmark fixture */
	bool criterion;                  /* a Cargo.toml names criterion */
	bool go_mod, go_bench, go_tests; /* a go.mod; Benchmark and Test functions */
};

static char *read_text(const char *path)
{
	struct rn_buf b;

	rn_buf_init(&b, DETECT_READ_MAX);
	if (rn_buf_read_file(&b, path) || rn_buf_failed(&b)) {
		rn_buf_release(&b);
		return NULL;
	}
	return rn_buf_detach(&b, NULL);
}

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		c == '_' || c == '-' || c == '.';
}

/* The targets of `text` (a CMakeLists.txt in folder `rel` of the project) whose
 * target_link_libraries name benchmark::benchmark (or benchmark_main). */
static void cmake_benchmarks(const char *text, const char *rel, struct found *f)
{
	const char *p = text;

	while ((p = strstr(p, "target_link_libraries("))) {
		const char *name = p + strlen("target_link_libraries("), *end, *close;
		size_t len, i;
		char *args;

		while (*name == ' ' || *name == '\t' || *name == '\n')
			name++;
		for (end = name; name_char(*end); end++)
			;
		len = (size_t)(end - name);
		close = strchr(end, ')');
		p = close ? close : end;
		if (!len || !close || f->ngb == DETECT_MAX_GB)
			continue;
		args = rn_xstrndup(end, (size_t)(close - end));
		if (strstr(args, "benchmark::benchmark") || strstr(args, "benchmark_main")) {
			char *path = *rel ? rn_xstrfmt("%s/%.*s", rel, (int)len, name) :
					    rn_xstrndup(name, len);

			for (i = 0; i < f->ngb && strcmp(f->gb[i], path); i++)
				;
			if (i == f->ngb)
				f->gb[f->ngb++] = path;
			else
				free(path);
		}
		free(args);
	}
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && !strcmp(s + n - t, tail);
}

/* One file of the project, at `path` (`rel`: its folder relative to the project). */
static void look_at(const char *path, const char *base, const char *rel, struct found *f)
{
	bool py = ends_with(base, ".py") &&
		(!strncmp(base, "test_", 5) || ends_with(base, "_test.py"));
	bool go = ends_with(base, "_test.go");
	char *text;

	if (strcmp(base, "CMakeLists.txt") && strcmp(base, "Cargo.toml") && !py && !go)
		return;
	text = read_text(path);
	if (!text)
		return;
	if (!strcmp(base, "CMakeLists.txt")) {
		if (strstr(text, "enable_testing") || strstr(text, "add_test("))
			f->ctest = true;
		cmake_benchmarks(text, rel, f);
	} else if (!strcmp(base, "Cargo.toml")) {
		f->criterion |= strstr(text, "criterion") != NULL;
	} else if (py) {
		f->pytest_bench |= strstr(text, "benchmark(") || strstr(text, "benchmark.pedantic");
	} else {
		f->go_bench |= strstr(text, "func Benchmark") != NULL;
		f->go_tests |= strstr(text, "func Test") != NULL;
	}
	free(text);
}

/* Walk folder `dir` (`rel` below the project), `depth` levels more. */
static void walk(const char *dir, const char *rel, int depth, struct found *f)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char *path, *sub;
		struct stat st;

		/* hidden folders, build outputs and vendored trees are not the project's */
		if (e->d_name[0] == '.' || !strcmp(e->d_name, "build") ||
		    !strcmp(e->d_name, "target") || !strcmp(e->d_name, "node_modules") ||
		    !strcmp(e->d_name, "vendor") || !strcmp(e->d_name, "third_party"))
			continue;
		path = rn_xstrfmt("%s/%s", dir, e->d_name);
		if (stat(path, &st)) {
			free(path);
			continue;
		}
		if (S_ISDIR(st.st_mode) && depth > 0) {
			sub = *rel ? rn_xstrfmt("%s/%s", rel, e->d_name) : rn_xstrdup(e->d_name);
			walk(path, sub, depth - 1, f);
			free(sub);
		} else if (S_ISREG(st.st_mode)) {
			if (!strcmp(e->d_name, "go.mod"))
				f->go_mod = true;
			look_at(path, e->d_name, rel, f);
		}
		free(path);
	}
	closedir(d);
}

/* A target name from the executable's file name: anything outside [A-Za-z0-9_.-] as '_'. */
static void add_name(struct rn_buf *b, const char *path)
{
	const char *s = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;

	for (; *s; s++)
		rn_buf_addc(b, name_char(*s) ? *s : '_');
}

size_t rn_init_detect(const char *dir, struct rn_buf *b)
{
	struct found f;
	size_t n = 0, i;

	memset(&f, 0, sizeof(f));
	walk(dir, "", DETECT_DEPTH, &f);
	for (i = 0; i < f.ngb; i++, n++) {
		const char *base = strrchr(f.gb[i], '/') ? strrchr(f.gb[i], '/') + 1 : f.gb[i];

		rn_buf_adds(b,
			    "# A Google Benchmark program of the CMake project (build/ is its build "
			    "folder):\n# each benchmark is a target, timed per iteration\n"
			    "[[target]]\nname = \"");
		add_name(b, f.gb[i]);
		rn_buf_addf(b,
			    "\"\nharness = \"google-benchmark\"\ncommand = [\"build/%s\", "
			    "\"--benchmark_min_time=0.05\"]\nbuild = \"cmake --build build --target "
			    "%s\"\nruns = 10\n\n",
			    f.gb[i], base);
	}
	if (f.ctest) {
		rn_buf_adds(b,
			    "# The CMake project's tests: each is a target, its syscalls, memory "
			    "and time\n[[suite]]\nname = \"ctest\"\nharness = \"ctest\"\n"
			    "command = [\"ctest\", \"--test-dir\", \"build\"]\n\n");
		n++;
	}
	if (f.pytest_bench) {
		rn_buf_adds(b,
			    "# The pytest-benchmark benchmarks: each is a target, timed per "
			    "iteration in CPU time\n# (--benchmark-timer=time.process_time: a "
			    "loaded runner moves wall time; drop it for\n# benchmarks that wait "
			    "on I/O, docs/harness.md)\n[[target]]\nname = \"pytest_bench\"\n"
			    "harness = \"pytest-benchmark\"\ncommand = [\"python3\", \"-m\", "
			    "\"pytest\", \"--benchmark-max-time=0.1\", "
			    "\"--benchmark-timer=time.process_time\"]\nruns = 10\n"
			    "# a run takes seconds, and on a loaded runner a whole run can land at "
			    "another speed:\n# deciding a 15% change takes more pairs than "
			    "[regression]'s 45 s give (docs/harness.md)\n"
			    "time_budget_s = 120\n\n");
		n++;
	}
	if (f.criterion) {
		rn_buf_adds(b,
			    "# The Cargo project's criterion benches: each is a target, timed per "
			    "iteration\n[[target]]\nname = \"criterion\"\nharness = \"criterion\"\n"
			    "command = [\"cargo\", \"bench\"]\nruns = 10\ntimeout_s = 1200\n\n");
		n++;
	}
	if (f.go_mod && f.go_bench) {
		rn_buf_adds(b,
			    "# The Go module's benchmarks: each is a target, timed per iteration\n"
			    "[[target]]\nname = \"go_bench\"\nharness = \"go-test-bench\"\n"
			    "command = [\"go\", \"test\", \"./...\"]\nruns = 10\n\n");
		n++;
	}
	if (f.go_mod && f.go_tests) {
		rn_buf_adds(b,
			    "# The Go module's tests: each is a target\n[[suite]]\n"
			    "name = \"go_test\"\nharness = \"go-test\"\n"
			    "command = [\"go\", \"test\", \"./...\"]\n\n");
		n++;
	}
	for (i = 0; i < f.ngb; i++)
		free(f.gb[i]);
	return n;
}
