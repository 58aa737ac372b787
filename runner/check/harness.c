/*
 * harness.c - harness targets and suites expanded into one target per benchmark or test, and
 * the harnesses' result files read into per-iteration times (harness.h).
 */
#include "harness.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "exitcode.h"
#include "internal.h"
#include "log.h"
#include "rn_regex.h"
#include "stats.h"
#include "xalloc.h"

/* The module name of renacer's pytest plugin (pytest_plugin_text). */
#define PYTEST_PLUGIN "renacer_pytest"

/* Seconds a list command may take (it only lists, or builds a Go test binary). */
#define LIST_TIMEOUT_S 600
/* Most bytes of a list command's output or a result file read. */
#define READ_MAX ((size_t)64 << 20)

/* ---- running a list command ---------------------------------------------------------------- */

/* The output `f` holds (a command's stderr), to stderr. */
static void show_file(FILE *f)
{
	char chunk[8192];
	size_t n;

	rewind(f);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		rn_write_stderr(chunk, n);
}

/*
 * Run `argv` in `cwd` with `env` added, its stdout into `out`; its stderr inherited, or with
 * `hush` shown only when it fails (a list command's chatter is no report's). Returns 0 when
 * it exited 0, else -1 after printing why (`what` names the table).
 */
static int capture(char *const *argv, const char *cwd, char *const *env, struct rn_buf *out,
		   const char *what, bool hush)
{
	int fd[2], status;
	pid_t pid;
	char chunk[8192];
	ssize_t n;
	FILE *err = hush ? tmpfile() : NULL;

	if (pipe(fd)) {
		if (err)
			fclose(err);
		return rn_error("%s: cannot create a pipe: %s", what, strerror(errno));
	}
	pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		if (err)
			fclose(err);
		return rn_error("%s: cannot fork: %s", what, strerror(errno));
	}
	if (!pid) {
		size_t i;

		if (err)
			dup2(fileno(err), 2);
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		if (cwd && chdir(cwd))
			_exit(126);
		for (i = 0; env && env[i]; i++)
			putenv(env[i]);
		alarm(LIST_TIMEOUT_S); /* survives the exec: a list that hangs is killed */
		execvp(argv[0], argv);
		_exit(127);
	}
	close(fd[1]);
	for (;;) {
		n = read(fd[0], chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (out->len < READ_MAX)
			rn_buf_add(out, chunk, (size_t)n);
	}
	close(fd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (rn_buf_failed(out))
		rn_die("out of memory");
	if (err && (!WIFEXITED(status) || WEXITSTATUS(status)))
		show_file(err);
	if (err)
		fclose(err);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return rn_error("%s: its list command %s failed (%s %d): is the program built?",
				what, argv[0], WIFEXITED(status) ? "exit" : "signal",
				WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	return 0;
}

/* `argv` followed by the words of `more` (NULL-terminated), a new NULL-terminated list. */
static char **argv_plus(char *const *argv, const char *const *more)
{
	size_t n = 0, m = 0, i;
	char **v;

	while (argv[n])
		n++;
	while (more && more[m])
		m++;
	v = rn_xcalloc(n + m + 1, sizeof(*v));
	for (i = 0; i < n; i++)
		v[i] = rn_xstrdup(argv[i]);
	for (i = 0; i < m; i++)
		v[n + i] = rn_xstrdup(more[i]);
	return v;
}

static void free_list(char **v)
{
	size_t i;

	for (i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* Whether a go harness `argv` runs a compiled test binary (`go test -c`), not the go tool (no
 * word of it is `test`, as in `go test`, or a wrapper's `run-go test`): its flags are then
 * spelled -test.run, -test.bench, ... */
static bool go_binary(char *const *argv)
{
	size_t i;

	for (i = 0; argv && argv[i]; i++)
		if (!strcmp(argv[i], "test"))
			return false;
	return argv && argv[0];
}

/* The flag `name` of a go harness's argv ("-test." added for a test binary). */
static const char *go_flag(char *const *argv, const char *name)
{
	static const char *const tool[] = { "-run", "-count", "-bench", "-list", "-benchtime" };
	static const char *const bin[] = { "-test.run", "-test.count", "-test.bench", "-test.list",
					   "-test.benchtime" };
	size_t i;

	for (i = 0; i < sizeof(tool) / sizeof(tool[0]); i++)
		if (!strcmp(name, tool[i]))
			return go_binary(argv) ? bin[i] : tool[i];
	return name;
}

/* The iteration count that a go test binary's argv pins (`-test.benchtime Nx`, the last one
 * given), or 0 when it pins none (the go tool, or a benchtime in seconds). */
static long go_pinned_n(char *const *argv)
{
	long n = 0;
	size_t i;

	if (!go_binary(argv))
		return 0;
	for (i = 1; argv[i]; i++) {
		const char *v = NULL, *a = argv[i];
		char *end;
		long k;

		if (*a == '-' && a[1] == '-')
			a++;
		if (!strcmp(a, "-test.benchtime") && argv[i + 1])
			v = argv[++i];
		else if (!strncmp(a, "-test.benchtime=", 16))
			v = a + 16;
		if (!v)
			continue;
		k = strtol(v, &end, 10);
		n = end != v && !strcmp(end, "x") && k > 0 ? k : 0;
	}
	return n;
}

bool rn_harness_go_cpu(const struct rn_target_cfg *tc)
{
	return tc->harness == RN_HARNESS_GO_TEST_BENCH && go_pinned_n(tc->argv) > 0;
}

/* pytest's words of `argv`: up to the word that runs pytest ("pytest", "py.test", or the
 * module after -m); what follows are its options and what it collects. */
static size_t pytest_prefix(char *const *argv)
{
	size_t i;

	for (i = 0; argv[i]; i++) {
		const char *base = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];

		if (!strcmp(base, "pytest") || !strcmp(base, "py.test") ||
		    !strncmp(base, "pytest-3", 8))
			return i + 1;
	}
	return i;
}

/* Whether word `w` after pytest's names tests to collect: a test id ("f.py::test_x") or a
 * path that exists (relative to `cwd`). A run leaves those out for its one test id. */
static bool pytest_selects(const char *w, const char *cwd)
{
	char *p;
	bool yes;

	if (w[0] == '-' || strstr(w, "::"))
		return w[0] != '-';
	p = w[0] == '/' ? rn_xstrdup(w) : rn_xstrfmt("%s/%s", cwd ? cwd : ".", w);
	yes = !access(p, F_OK);
	free(p);
	return yes;
}

/* ---- the names ----------------------------------------------------------------------------- */

/* One benchmark or test found, and for a ctest test its own command. */
struct item {
	char *name;    /* as the harness names it, owned */
	char **argv;   /* ctest: the test's command, owned, else NULL */
	char *cwd;     /* ctest: its WORKING_DIRECTORY, owned, or NULL */
	char **env;    /* ctest: its ENVIRONMENT, owned, or NULL */
	bool any_exit; /* ctest: WILL_FAIL */
};

struct items {
	struct item *v;
	size_t n, cap;
};

static struct item *items_add(struct items *it, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < it->n; i++) /* go test ./... lists a name once per package */
		if (strlen(it->v[i].name) == len && !strncmp(it->v[i].name, name, len))
			return NULL;
	it->v = rn_xgrow(it->v, &it->cap, it->n + 1, sizeof(*it->v));
	memset(&it->v[it->n], 0, sizeof(it->v[it->n]));
	it->v[it->n].name = rn_xstrndup(name, len);
	return &it->v[it->n++];
}

static void items_release(struct items *it)
{
	size_t i;

	for (i = 0; i < it->n; i++) {
		free(it->v[i].name);
		free_list(it->v[i].argv);
		free(it->v[i].cwd);
		free_list(it->v[i].env);
	}
	free(it->v);
	memset(it, 0, sizeof(*it));
}

/* The lines of `text` that a harness's list prints as names: `keep` says whether a line
 * (without its newline) is one, and how long the name is. */
static void lines_of(const char *text, struct items *it,
		     size_t (*keep)(const char *line, size_t len))
{
	const char *p = text;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p), k;

		while (len && (p[len - 1] == '\r' || p[len - 1] == ' '))
			len--;
		k = len ? keep(p, len) : 0;
		if (k)
			items_add(it, p, k);
		p += nl ? (size_t)(nl - p) + 1 : strlen(p);
	}
}

/* Google Benchmark --benchmark_list_tests: one name a line. */
static size_t keep_any(const char *line, size_t len)
{
	(void)line;
	return len;
}

/* pytest --collect-only -q: test ids ("file.py::test_x"), then a summary after a blank line. */
static size_t keep_pytest(const char *line, size_t len)
{
	return memmem(line, len, "::", 2) && !memchr(line, ' ', len) ? len : 0;
}

/* go test -list: the functions' names, then "ok  pkg 0.01s" per package. */
static size_t keep_go_bench(const char *line, size_t len)
{
	return len > 9 && !strncmp(line, "Benchmark", 9) && !memchr(line, ' ', len) ? len : 0;
}

static size_t keep_go_test(const char *line, size_t len)
{
	return len > 4 && !strncmp(line, "Test", 4) && !memchr(line, ' ', len) &&
			!memchr(line, '\t', len) ?
		len :
		0;
}

/* cargo bench -- --list (criterion): "<name>: benchmark". */
static size_t keep_criterion(const char *line, size_t len)
{
	static const char tail[] = ": benchmark";
	size_t t = sizeof(tail) - 1;

	return len > t && !memcmp(line + len - t, tail, t) ? len - t : 0;
}

/* ctest --show-only=json-v1: each test's name, command, working directory and environment. */
static int ctest_items(const char *text, struct items *it, const char *what)
{
	json_error_t jerr;
	json_t *root = json_loads(text, 0, &jerr), *tests, *t;
	size_t i;

	if (!root)
		return rn_error("%s: ctest's list is not JSON (line %d: %s)", what, jerr.line,
				jerr.text);
	tests = json_object_get(root, "tests");
	json_array_foreach(tests, i, t)
	{
		const char *name = json_string_value(json_object_get(t, "name"));
		json_t *cmd = json_object_get(t, "command"),
		       *props = json_object_get(t, "properties");
		json_t *p, *w;
		struct item *e;
		size_t k, j;

		if (!name || !json_array_size(cmd))
			continue; /* a test without a command (NOT_AVAILABLE) cannot run */
		e = items_add(it, name, strlen(name));
		if (!e)
			continue;
		e->argv = rn_xcalloc(json_array_size(cmd) + 1, sizeof(*e->argv));
		for (k = 0; k < json_array_size(cmd); k++) {
			const char *a = json_string_value(json_array_get(cmd, k));

			e->argv[k] = rn_xstrdup(a ? a : "");
		}
		json_array_foreach(props, k, p)
		{
			const char *pn = json_string_value(json_object_get(p, "name"));
			json_t *v = json_object_get(p, "value");

			if (!pn)
				continue;
			if (!strcmp(pn, "WORKING_DIRECTORY") && json_string_value(v)) {
				free(e->cwd);
				e->cwd = rn_xstrdup(json_string_value(v));
			} else if (!strcmp(pn, "WILL_FAIL")) {
				e->any_exit = json_is_true(v);
			} else if (!strcmp(pn, "ENVIRONMENT") && json_is_array(v)) {
				e->env = rn_xcalloc(json_array_size(v) + 1, sizeof(*e->env));
				json_array_foreach(v, j, w) e->env[j] = rn_xstrdup(
					json_string_value(w) ? json_string_value(w) : "");
			}
		}
	}
	json_decref(root);
	return 0;
}

/* The names of harness table `tc`: `benchmarks`, else its list command's output. */
static int list_items(const struct rn_target_cfg *tc, struct items *it)
{
	static const char *const gb[] = { "--benchmark_list_tests=true", NULL };
	static const char *const py[] = { "--collect-only", "-q", NULL };
	const char *gob[] = { "-list", "^Benchmark", NULL };
	const char *got[] = { "-list", "^Test", NULL };
	static const char *const crit[] = { "--", "--list", NULL };
	static const char *const ct[] = { "--show-only=json-v1", NULL };
	const char *const *more = NULL;
	size_t (*keep)(const char *, size_t) = keep_any;
	char what[300];
	struct rn_buf out;
	char **argv;
	int rc;

	if (tc->benchmarks) {
		size_t i;

		for (i = 0; tc->benchmarks[i]; i++)
			items_add(it, tc->benchmarks[i], strlen(tc->benchmarks[i]));
		return 0;
	}
	switch ((enum rn_harness)tc->harness) {
	case RN_HARNESS_GOOGLE_BENCHMARK:
		more = gb;
		break;
	case RN_HARNESS_PYTEST_BENCHMARK:
	case RN_HARNESS_PYTEST:
		more = py;
		keep = keep_pytest;
		break;
	case RN_HARNESS_GO_TEST_BENCH:
		gob[0] = go_flag(tc->argv, "-list");
		more = gob;
		keep = keep_go_bench;
		break;
	case RN_HARNESS_GO_TEST:
		got[0] = go_flag(tc->argv, "-list");
		more = got;
		keep = keep_go_test;
		break;
	case RN_HARNESS_CRITERION:
		more = crit;
		keep = keep_criterion;
		break;
	case RN_HARNESS_CTEST:
		more = ct;
		break;
	default:
		return 0;
	}
	snprintf(what, sizeof(what), "%s '%s'", tc->suite ? "[[suite]]" : "[[target]]", tc->name);
	argv = argv_plus(tc->argv, more);
	rn_buf_init(&out, READ_MAX);
	rc = capture(argv, tc->cwd, tc->env, &out, what, true);
	if (!rc && tc->harness == RN_HARNESS_CTEST)
		rc = ctest_items(out.buf, it, what);
	else if (!rc)
		lines_of(out.buf, it, keep);
	rn_buf_release(&out);
	free_list(argv);
	return rc;
}

/* ---- one target per name --------------------------------------------------------------------- */

/* `s` with every regex metacharacter escaped (ECMAScript and RE2 alike). */
static void add_regex_literal(struct rn_buf *b, const char *s)
{
	for (; *s; s++) {
		if (strchr(".^$|()[]{}*+?\\", *s))
			rn_buf_addc(b, '\\');
		rn_buf_addc(b, *s);
	}
}

/* item_argv of a pytest or pytest-benchmark table: `command` without the paths and test ids
 * it collects, renacer's plugin (with `plugin`), -q, the JSON file (pytest-benchmark), then the
 * test id `e`, whose index is *arg. */
static char **pytest_argv(const struct rn_target_cfg *tc, const struct item *e,
			  const char *out_path, bool plugin, size_t *arg)
{
	size_t k = pytest_prefix(tc->argv), i, n = 0;
	char **v;

	while (tc->argv[n])
		n++;
	v = rn_xcalloc(n + 6, sizeof(*v));
	for (i = 0, n = 0; tc->argv[i]; i++)
		if (i < k || !pytest_selects(tc->argv[i], tc->cwd))
			v[n++] = rn_xstrdup(tc->argv[i]);
	k = n;
	if (plugin) {
		v[k++] = rn_xstrdup("-p");
		v[k++] = rn_xstrdup(PYTEST_PLUGIN);
	}
	v[k++] = rn_xstrdup("-q");
	if (tc->harness == RN_HARNESS_PYTEST_BENCHMARK)
		v[k++] = rn_xstrfmt("--benchmark-json=%s", out_path);
	v[k] = rn_xstrdup(e->name);
	*arg = k;
	return v;
}

/* The argv of one benchmark or test of `tc`: the harness filtered to `e` and told to write
 * its results to `out_path`; *arg: the index of the word that names `e` (its filter). With
 * `plugin`, a pytest run loads renacer's plugin (PYTEST_PLUGIN). */
static char **item_argv(const struct rn_target_cfg *tc, const struct item *e, const char *out_path,
			bool plugin, size_t *arg)
{
	struct rn_buf f;
	char **v, *filter;
	size_t n0 = 0;

	while (tc->argv[n0])
		n0++;
	*arg = n0;
	rn_buf_init(&f, 0);
	switch ((enum rn_harness)tc->harness) {
	case RN_HARNESS_GOOGLE_BENCHMARK: {
		const char *more[4];
		char *outa;

		rn_buf_adds(&f, "--benchmark_filter=^");
		add_regex_literal(&f, e->name);
		rn_buf_adds(&f, "$");
		filter = rn_buf_detach(&f, NULL);
		outa = rn_xstrfmt("--benchmark_out=%s", out_path);
		more[0] = filter;
		more[1] = outa;
		more[2] = "--benchmark_out_format=json";
		more[3] = NULL;
		v = argv_plus(tc->argv, more);
		free(filter);
		free(outa);
		return v;
	}
	case RN_HARNESS_PYTEST_BENCHMARK:
	case RN_HARNESS_PYTEST:
		rn_buf_release(&f);
		return pytest_argv(tc, e, out_path, plugin, arg);
	case RN_HARNESS_GO_TEST_BENCH:
	case RN_HARNESS_GO_TEST: {
		bool bench = tc->harness == RN_HARNESS_GO_TEST_BENCH;
		const char *more[7] = { go_flag(tc->argv, "-run"),
					NULL,
					go_flag(tc->argv, "-count"),
					"1",
					NULL,
					NULL,
					NULL };

		rn_buf_adds(&f, "^");
		add_regex_literal(&f, e->name);
		rn_buf_adds(&f, "$");
		filter = rn_buf_detach(&f, NULL);
		more[1] = bench ? "^$" : filter;
		if (bench) {
			more[4] = go_flag(tc->argv, "-bench");
			more[5] = filter;
		}
		*arg = n0 + (bench ? 5 : 1);
		v = argv_plus(tc->argv, more);
		free(filter);
		return v;
	}
	case RN_HARNESS_HYPERFINE: {
		const char *more[5] = { "--export-json", out_path, "--", e->name, NULL };

		*arg = n0 + 3;
		rn_buf_release(&f);
		return argv_plus(tc->argv, more);
	}
	case RN_HARNESS_CRITERION: {
		const char *more[5] = { "--", "--exact", e->name, NULL, NULL };

		*arg = n0 + 2;
		rn_buf_release(&f);
		return argv_plus(tc->argv, more);
	}
	case RN_HARNESS_CTEST:
	default:
		rn_buf_release(&f);
		return argv_plus(e->argv ? e->argv : tc->argv, NULL);
	}
}

/* "NAME=value" lists `a` then `b`, a new NULL-terminated list (NULL when both are empty). */
static char **env_join(char *const *a, char *const *b)
{
	size_t n = 0, m = 0, i;
	char **v;

	while (a && a[n])
		n++;
	while (b && b[m])
		m++;
	if (!n && !m)
		return NULL;
	v = rn_xcalloc(n + m + 1, sizeof(*v));
	for (i = 0; i < n; i++)
		v[i] = rn_xstrdup(a[i]);
	for (i = 0; i < m; i++)
		v[n + i] = rn_xstrdup(b[i]);
	return v;
}

/* The folder of the result files, made on first use. NULL after printing why. */
static const char *bench_dir(struct rn_config *cfg)
{
	const char *tmp = getenv("TMPDIR");
	char *dir;

	if (cfg->bench_dir)
		return cfg->bench_dir;
	dir = rn_xstrfmt("%s/renacer-bench-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		rn_error("cannot create a folder for the benchmarks' results in '%s': %s",
			 tmp && *tmp ? tmp : "/tmp", strerror(errno));
		free(dir);
		return NULL;
	}
	cfg->bench_dir = dir;
	return dir;
}

/*
 * renacer's pytest plugin, loaded into every pytest run of a harness or suite (`-p`, from
 * RN_HARNESS_PYTEST_DIR of the results folder on PYTHONPATH): it fixes pytest-benchmark's
 * bookkeeping, so that a run's syscall counts are pytest's and the code's under test.
 * pytest-benchmark gathers its commit information at every start (the --benchmark-autosave
 * help text: six git processes, `git describe --dirty` among them) and, writing JSON, its
 * machine information (py-cpuinfo: a Python process, lscpu, dmesg, file). Their calls follow
 * the repository's index and the kernel log, not the code: an unchanged pytest-benchmark
 * suite failed golden:syscall_counts on munmap, 121 against the golden's 107. Without
 * pytest-benchmark the plugin does nothing.
 */
static const char pytest_plugin_text[] =
	"# renacer's pytest plugin (docs/harness.md, \"pytest's bookkeeping\"), written into its\n"
	"# results folder for the check and removed with it.\n"
	"import platform\n"
	"\n"
	"import pytest\n"
	"\n"
	"try:\n"
	"    import pytest_benchmark.utils as _utils\n"
	"except ImportError:\n"
	"    _utils = None\n"
	"\n"
	"\n"
	"def _commit_info(project_name=None):\n"
	"    return {\"id\": \"unversioned\", \"time\": None, \"author_time\": None,\n"
	"            \"dirty\": False, \"project\": project_name or \"\", \"branch\": \"(unknown)\"}\n"
	"\n"
	"\n"
	"if _utils is not None:\n"
	"    _utils.get_commit_info = _commit_info  # get_tag() at every start\n"
	"\n"
	"    @pytest.hookimpl(tryfirst=True)\n"
	"    def pytest_benchmark_generate_commit_info(config):\n"
	"        return _commit_info()\n"
	"\n"
	"    @pytest.hookimpl(tryfirst=True)\n"
	"    def pytest_benchmark_generate_machine_info(config):\n"
	"        return {\"machine\": platform.machine(), \"system\": platform.system(),\n"
	"                \"python_implementation\": platform.python_implementation(),\n"
	"                \"python_version\": platform.python_version(), \"cpu\": {}}\n";

/* The folder of renacer's pytest plugin in results folder `dir`, the plugin written into it
 * on first use; owned, or NULL after printing why (the runs then go without it). */
static char *pytest_plugin_dir(const char *dir)
{
	char *pd = rn_xstrfmt("%s/" RN_HARNESS_PYTEST_DIR, dir);
	char *file = rn_xstrfmt("%s/" PYTEST_PLUGIN ".py", pd);
	FILE *f;
	bool ok;

	if (!access(file, R_OK)) {
		free(file);
		return pd;
	}
	f = (mkdir(pd, 0700) && errno != EEXIST) ? NULL : fopen(file, "w");
	ok = f && fputs(pytest_plugin_text, f) >= 0;
	if (f && fclose(f))
		ok = false;
	if (!ok) {
		rn_warn("cannot write renacer's pytest plugin '%s': %s; pytest-benchmark's "
			"bookkeeping stays in the runs' syscall counts",
			file, strerror(errno));
		unlink(file);
		free(pd);
		pd = NULL;
	}
	free(file);
	return pd;
}

/* Put folder `pd` first on the PYTHONPATH of environment list `*env` (the list's own
 * PYTHONPATH, else the inherited one). */
static void env_prepend_pythonpath(char ***env, const char *pd)
{
	const char *old = getenv("PYTHONPATH");
	size_t n = 0;

	for (; *env && (*env)[n]; n++)
		if (!strncmp((*env)[n], "PYTHONPATH=", 11))
			old = (*env)[n] + 11;
	*env = rn_xrealloc(*env, (n + 2) * sizeof(**env));
	(*env)[n] = old && *old ? rn_xstrfmt("PYTHONPATH=%s:%s", pd, old) :
				  rn_xstrfmt("PYTHONPATH=%s", pd);
	(*env)[n + 1] = NULL;
}

/* Target `t` for item `e` of harness table `tc` (numbered `k` for its result file). */
static int item_target(struct rn_config *cfg, const struct rn_target_cfg *tc, const struct item *e,
		       size_t k, struct rn_target_cfg *t)
{
	struct rn_buf name;
	const char *s, *dir = NULL;
	char *out = NULL, *plugin = NULL;
	bool pytest =
		tc->harness == RN_HARNESS_PYTEST_BENCHMARK || tc->harness == RN_HARNESS_PYTEST;

	*t = *tc; /* the shared settings; what it owns is made below */
	rn_buf_init(&name, 0);
	rn_buf_addf(&name, "%s.", tc->name);
	for (s = e->name; *s; s++)
		rn_buf_addc(&name,
			    strchr("_.-", *s) || (*s >= '0' && *s <= '9') ||
					    (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ?
				    *s :
				    '_');
	t->name = rn_buf_detach(&name, NULL);
	if (!rn_harness_is_suite((enum rn_harness)tc->harness) &&
	    tc->harness != RN_HARNESS_GO_TEST_BENCH) {
		dir = bench_dir(cfg);
		if (!dir)
			return -1;
		out = tc->harness == RN_HARNESS_CRITERION ?
			rn_xstrfmt("%s/target/criterion/%s/new/sample.json", tc->cwd, e->name) :
			rn_xstrfmt("%s/%zu.json", dir, k);
	}
	if (pytest && (dir || (dir = bench_dir(cfg))))
		plugin = pytest_plugin_dir(dir);
	t->argv = item_argv(tc, e, out ? out : "", plugin != NULL, &t->bench_arg);
	t->cwd = rn_xstrdup(e->cwd ? e->cwd : tc->cwd);
	t->env = env_join(tc->env, e->env);
	if (plugin)
		env_prepend_pythonpath(&t->env, plugin);
	free(plugin);
	t->build = NULL;
	t->inject = NULL;
	t->ninject = 0;
	t->benchmarks = NULL;
	t->pattern = NULL;
	t->pattern_re = NULL;
	t->bench = rn_xstrdup(e->name);
	t->bench_out = out;
	t->parent = rn_xstrdup(tc->name);
	if (e->any_exit)
		t->expect_exit = -1;
	if (tc->harness == RN_HARNESS_GO_TEST_BENCH)
		t->out = RN_STDIO_CAPTURE; /* go test prints its results */
	/* the harness's own words ("Wrote benchmark data ...") are no report's: shown when its
	 * run fails (check_run.c) */
	if (!rn_harness_is_suite((enum rn_harness)tc->harness) && t->err == RN_STDIO_INHERIT)
		t->err = RN_STDIO_CAPTURE;
	t->group = NULL;
	t->group_member = 0;
	t->harness =
		rn_harness_is_suite((enum rn_harness)tc->harness) ? RN_HARNESS_NONE : tc->harness;
	return 0;
}

/* `build` of harness table `tc`, /bin/sh -c in its cwd, its output on stderr. */
static int run_build(const struct rn_target_cfg *tc, bool quiet)
{
	char sh[] = "/bin/sh", dash_c[] = "-c";
	char *argv[] = { sh, dash_c, tc->build, NULL };
	struct rn_buf out;
	int rc;

	if (!quiet)
		fprintf(stderr, "renacer check: building '%s': %s\n", tc->name, tc->build);
	rn_buf_init(&out, READ_MAX);
	rc = capture(argv, tc->cwd, tc->env, &out, tc->name, false);
	if (out.len)
		fputs(out.buf, stderr);
	rn_buf_release(&out);
	return rc;
}

/* Every assertion naming `parent` in `targets` names `names[n]` too (the parent is gone). */
static void assertions_follow(struct rn_config *cfg, const char *parent, char *const *names,
			      size_t n)
{
	size_t i, k, m, j;

	for (i = 0; i < cfg->nassertions; i++) {
		char **t = cfg->assertions[i].targets, **v;

		if (!t)
			continue;
		for (m = 0; t[m]; m++)
			;
		for (k = 0; k < m && strcmp(t[k], parent); k++)
			;
		if (k == m)
			continue;
		v = rn_xcalloc(m + n + 1, sizeof(*v));
		for (j = 0; j < m; j++)
			v[j] = t[j];
		for (j = 0; j < n; j++)
			v[m + j] = rn_xstrdup(names[j]);
		cfg->assertions[i].targets = v;
		free(t);
	}
}

/* The `n` benchmarks `t` of table `idx` share their timing runs: one group, owned by t[0]. */
static void group_of(struct rn_config *cfg, size_t idx, struct rn_target_cfg *t, size_t n)
{
	const char *dir = bench_dir(cfg);
	struct rn_harness_group *g;
	size_t i;

	if (!dir)
		return; /* each benchmark runs alone */
	g = rn_xcalloc(1, sizeof(*g));
	g->id = idx;
	g->n = n;
	g->names = rn_xcalloc(n, sizeof(*g->names));
	g->done = rn_xcalloc(n, sizeof(*g->done));
	g->dir = rn_xstrdup(dir);
	for (i = 0; i < n; i++) {
		g->names[i] = rn_xstrdup(t[i].bench);
		t[i].group = g;
		t[i].group_member = i;
	}
}

/* Expand table `idx` of cfg->targets into `out` (appended). Returns 0 or an exit code. */
static int expand_one(struct rn_config *cfg, size_t idx, struct rn_target_cfg **out, size_t *nout,
		      size_t *cap, bool build, bool quiet)
{
	const struct rn_target_cfg *tc = &cfg->targets[idx];
	struct items it = { 0 };
	char **names;
	size_t i, first = *nout, kept = 0;
	int rc = 0;

	if (build && tc->build && run_build(tc, quiet))
		return RN_EXIT_TARGET;
	if (list_items(tc, &it)) {
		items_release(&it);
		return RN_EXIT_TARGET;
	}
	for (i = 0; i < it.n && !rc; i++) {
		struct rn_target_cfg *t;
		size_t j;

		if (tc->pattern_re && !rn_regex_match(tc->pattern_re, it.v[i].name))
			continue;
		*out = rn_xgrow(*out, cap, *nout + 1, sizeof(**out));
		t = &(*out)[*nout];
		if (item_target(cfg, tc, &it.v[i], idx * 100000 + i, t)) {
			rc = RN_EXIT_OUTPUT;
			break;
		}
		(*nout)++;
		kept++;
		for (j = 0; j < *nout - 1 && !rc; j++)
			if (!strcmp((*out)[j].name, t->name)) {
				rn_error("%s '%s': \"%s\" and another name both make target name "
					 "'%s' (characters outside [A-Za-z0-9_.-] become '_'): "
					 "select one with 'pattern'",
					 tc->suite ? "[[suite]]" : "[[target]]", tc->name,
					 it.v[i].name, t->name);
				rc = RN_EXIT_CONFIG;
			}
	}
	if (!rc && !kept) {
		rn_error("%s '%s': no %s%s", tc->suite ? "[[suite]]" : "[[target]]", tc->name,
			 tc->suite ? "test" : "benchmark",
			 tc->pattern ? " matches its 'pattern'" : " in its harness's list");
		rc = RN_EXIT_CONFIG;
	}
	/* a go test binary with a pinned iteration count runs one benchmark a run: the run's
	 * CPU time is then that benchmark's (rn_harness_read) */
	if (!rc && !rn_harness_is_suite((enum rn_harness)tc->harness) && kept > 1 &&
	    !rn_harness_go_cpu(tc))
		group_of(cfg, idx, *out + first, kept);
	if (!rc) {
		names = rn_xcalloc(kept + 1, sizeof(*names));
		for (i = 0; i < kept; i++)
			names[i] = (*out)[first + i].name;
		assertions_follow(cfg, tc->name, names, kept);
		free(names);
		if (!quiet)
			rn_note("%s '%s': %zu %s%s", tc->suite ? "[[suite]]" : "[[target]]",
				tc->name, kept, tc->suite ? "test" : "benchmark",
				kept == 1 ? "" : "s");
	}
	items_release(&it);
	return rc;
}

/* Free what an expanded target owns (item_target made it; the rest is its table's). */
static void item_release(struct rn_target_cfg *t)
{
	free_list(t->argv);
	free(t->cwd);
	free_list(t->env);
	free(t->name);
	free(t->bench);
	free(t->bench_out);
	free(t->parent);
	if (t->group && !t->group_member)
		rn_harness_group_free(t->group);
}

int rn_harness_expand(struct rn_config *cfg, bool build, bool quiet)
{
	struct rn_target_cfg *out = NULL;
	size_t nout = 0, cap = 0, i;
	bool any = false;
	int rc = 0;

	for (i = 0; i < cfg->ntargets; i++)
		any |= cfg->targets[i].harness != RN_HARNESS_NONE && !cfg->targets[i].bench;
	if (!any)
		return 0;
	/* plain targets (and targets expanded before) are copied, moved on success; harness
	 * tables are expanded */
	for (i = 0; i < cfg->ntargets && !rc; i++) {
		const struct rn_target_cfg *tc = &cfg->targets[i];

		if (tc->harness == RN_HARNESS_NONE || tc->bench) {
			out = rn_xgrow(out, &cap, nout + 1, sizeof(*out));
			out[nout++] = *tc;
			continue;
		}
		rc = expand_one(cfg, i, &out, &nout, &cap, build, quiet);
	}
	if (rc) {
		for (i = 0; i < nout; i++) {
			size_t j;

			for (j = 0; j < cfg->ntargets && cfg->targets[j].name != out[i].name; j++)
				;
			if (j == cfg->ntargets) /* made by expand_one */
				item_release(&out[i]);
		}
		free(out);
		return rc;
	}
	for (i = 0; i < cfg->ntargets; i++)
		if (cfg->targets[i].harness != RN_HARNESS_NONE && !cfg->targets[i].bench)
			rn_config_target_release(&cfg->targets[i]);
	free(cfg->targets);
	cfg->targets = out;
	cfg->ntargets = nout;
	return 0;
}

/* ---- reading a run's results ------------------------------------------------------------- */

void rn_harness_run_begin(const struct rn_target_cfg *tc)
{
	if (tc->bench_out)
		(void)unlink(tc->bench_out);
}

/* ns in one `unit` of Google Benchmark's time_unit. */
static double unit_ns(const char *unit)
{
	if (!unit || !strcmp(unit, "ns"))
		return 1.0;
	if (!strcmp(unit, "us"))
		return 1e3;
	if (!strcmp(unit, "ms"))
		return 1e6;
	if (!strcmp(unit, "s"))
		return 1e9;
	return 0.0;
}

/* Samples being gathered: real and CPU time per iteration, ns. */
struct samples {
	double *real, *cpu;  /* [n] */
	size_t n, cap, ccap; /* used, allocated of real and of cpu */
	double iters;        /* go: the iteration count of the last line read */
};

static void samples_add(struct samples *s, double real, double cpu)
{
	s->real = rn_xgrow(s->real, &s->cap, s->n + 1, sizeof(*s->real));
	s->cpu = rn_xgrow(s->cpu, &s->ccap, s->n + 1, sizeof(*s->cpu));
	s->real[s->n] = real;
	s->cpu[s->n++] = cpu;
}

/* Google Benchmark's JSON: the benchmarks[] entries of the one benchmark that are iterations
 * (repetitions; not the aggregates it adds for them). */
static void read_google(json_t *root, const char *bench, struct samples *s)
{
	json_t *b;
	size_t i;

	json_array_foreach(json_object_get(root, "benchmarks"), i, b)
	{
		const char *name = json_string_value(json_object_get(b, "run_name"));
		const char *type = json_string_value(json_object_get(b, "run_type"));
		double u = unit_ns(json_string_value(json_object_get(b, "time_unit")));

		if (!name)
			name = json_string_value(json_object_get(b, "name"));
		if (!name || strcmp(name, bench) || (type && strcmp(type, "iteration")) || !u ||
		    json_object_get(b, "error_occurred"))
			continue;
		samples_add(s, json_number_value(json_object_get(b, "real_time")) * u,
			    json_number_value(json_object_get(b, "cpu_time")) * u);
	}
}

/* Whether pytest-benchmark's timer (options.timer: "perf_counter", or what
 * --benchmark-timer named, "process_time" for time.process_time) counts CPU time. */
static bool pytest_cpu_timer(json_t *options)
{
	const char *timer = json_string_value(json_object_get(options, "timer"));

	return timer && (strstr(timer, "process_time") || strstr(timer, "thread_time"));
}

/* pytest-benchmark's JSON: the benchmark whose fullname is the test id; stats.data holds the
 * time per iteration of each round, seconds (stats.median when the data were left out): wall
 * time, or CPU time when its timer counts CPU time (pytest_cpu_timer; its wall time is then
 * not reported, 0). */
static void read_pytest(json_t *root, const char *bench, struct samples *s)
{
	json_t *b, *d;
	size_t i, k;

	json_array_foreach(json_object_get(root, "benchmarks"), i, b)
	{
		const char *full = json_string_value(json_object_get(b, "fullname"));
		json_t *stats = json_object_get(b, "stats");
		bool cpu = pytest_cpu_timer(json_object_get(b, "options"));
		double v;

		if (!full || strcmp(full, bench))
			continue;
		json_array_foreach(json_object_get(stats, "data"), k, d)
		{
			v = json_number_value(d) * 1e9;
			samples_add(s, cpu ? 0.0 : v, cpu ? v : 0.0);
		}
		if (!s->n && json_is_number(json_object_get(stats, "median"))) {
			v = json_number_value(json_object_get(stats, "median")) * 1e9;
			samples_add(s, cpu ? 0.0 : v, cpu ? v : 0.0);
		}
	}
}

/* hyperfine's JSON: the times (seconds a run) of the result whose command is `bench`, or of
 * the one result. */
static void read_hyperfine(json_t *root, const char *bench, struct samples *s)
{
	json_t *res = json_object_get(root, "results"), *r, *t, *one = NULL;
	size_t i;

	json_array_foreach(res, i, r)
	{
		const char *cmd = json_string_value(json_object_get(r, "command"));

		if (cmd && !strcmp(cmd, bench))
			one = r;
	}
	if (!one && json_array_size(res) == 1)
		one = json_array_get(res, 0);
	json_array_foreach(json_object_get(one, "times"), i, t)
		samples_add(s, json_number_value(t) * 1e9, 0.0);
}

/* criterion's sample.json: iters[] and times[] (ns for that many iterations) of each sample. */
static void read_criterion(json_t *root, struct samples *s)
{
	json_t *it = json_object_get(root, "iters"), *tm = json_object_get(root, "times");
	size_t i;

	for (i = 0; i < json_array_size(it) && i < json_array_size(tm); i++) {
		double n = json_number_value(json_array_get(it, i));

		if (n > 0)
			samples_add(s, json_number_value(json_array_get(tm, i)) / n, 0.0);
	}
}

/* go test -bench output: "BenchmarkName-4   	 1000	     1234 ns/op ..." lines of the one
 * benchmark (-count lines; the -N suffix is GOMAXPROCS). */
static void read_go(const char *text, const char *bench, struct samples *s)
{
	size_t bl = strlen(bench);
	const char *p = text;

	while (p && *p) {
		const char *nl = strchr(p, '\n'), *q = p + bl, *ns;
		char *end;
		double v;

		if (strncmp(p, bench, bl) || (*q != '-' && *q != ' ' && *q != '\t'))
			goto next;
		if (*q == '-')
			while (*++q >= '0' && *q <= '9')
				;
		ns = strstr(q, " ns/op");
		if (!ns || (nl && ns > nl))
			goto next;
		while (ns > q && ns[-1] != ' ' && ns[-1] != '\t')
			ns--;
		v = strtod(ns, &end);
		if (end != ns && v >= 0) {
			samples_add(s, v, 0.0);
			s->iters = strtod(q, NULL); /* "\t 1000\t" after the name */
		}
	next:
		p = nl ? nl + 1 : NULL;
	}
}

/* The samples of benchmark `bench` in a run of tc's harness: its result file's `root`, or the
 * captured stdout `out` (go test). */
static void read_samples(const struct rn_target_cfg *tc, json_t *root, const char *out,
			 const char *bench, struct samples *s)
{
	switch ((enum rn_harness)tc->harness) {
	case RN_HARNESS_GO_TEST_BENCH:
		read_go(out ? out : "", bench, s);
		break;
	case RN_HARNESS_GOOGLE_BENCHMARK:
		read_google(root, bench, s);
		break;
	case RN_HARNESS_PYTEST_BENCHMARK:
		read_pytest(root, bench, s);
		break;
	case RN_HARNESS_HYPERFINE:
		read_hyperfine(root, bench, s);
		break;
	case RN_HARNESS_CRITERION:
		read_criterion(root, s);
		break;
	default:
		break;
	}
}

/* ---- one run for the benchmarks of a table ----------------------------------------------- */

/* Whether `tc` is the base side's copy of a benchmark (rn_baseline_target names it so). */
static bool base_side(const struct rn_target_cfg *tc)
{
	size_t n = strlen(tc->name);

	return n > 7 && !strcmp(tc->name + n - 7, " (base)");
}

/* The members a timing run of `tc` measures, in group order: itself and every member not
 * done. Their indices go to idx[group->n]; returns how many. */
static size_t run_members(const struct rn_target_cfg *tc, size_t *idx)
{
	const struct rn_harness_group *g = tc->group;
	size_t i, m = 0;

	for (i = 0; i < g->n; i++)
		if (i == tc->group_member || !g->done[i])
			idx[m++] = i;
	return m;
}

/* The file of the sample that run `k` of tc's side leaves for member `m`. */
static char *left_path(const struct rn_target_cfg *tc, size_t m, size_t k)
{
	return rn_xstrfmt("%s/s.%zu.%c.%zu.%zu", tc->group->dir, tc->group->id,
			  base_side(tc) ? 'b' : 'h', m, k);
}

void rn_harness_select(struct rn_config *cfg, const size_t *sel, size_t nsel, bool share)
{
	size_t i;

	for (i = 0; i < cfg->ntargets; i++)
		if (cfg->targets[i].group)
			cfg->targets[i].group->done[cfg->targets[i].group_member] = true;
	for (i = 0; share && i < nsel; i++)
		if (cfg->targets[sel[i]].group)
			cfg->targets[sel[i]].group->done[cfg->targets[sel[i]].group_member] = false;
}

void rn_harness_done(const struct rn_target_cfg *tc)
{
	if (tc->group)
		tc->group->done[tc->group_member] = true;
}

char **rn_harness_run_argv(const struct rn_target_cfg *tc)
{
	const struct rn_harness_group *g = tc->group;
	size_t *idx, m, n = 0, i, a = tc->bench_arg, k = 0;
	struct rn_buf f;
	char **v;

	if (!g)
		return NULL;
	idx = rn_xcalloc(g->n, sizeof(*idx));
	m = run_members(tc, idx);
	while (tc->argv[n])
		n++;
	if (m < 2 || a >= n) {
		free(idx);
		return NULL;
	}
	v = rn_xcalloc(n + m + 1, sizeof(*v));
	for (i = 0; i < a; i++)
		if (tc->harness != RN_HARNESS_CRITERION || i + 1 != a) /* --exact */
			v[k++] = rn_xstrdup(tc->argv[i]);
	if (tc->harness == RN_HARNESS_PYTEST_BENCHMARK || tc->harness == RN_HARNESS_HYPERFINE) {
		for (i = 0; i < m; i++) /* a test id, or a command, a word each */
			v[k++] = rn_xstrdup(g->names[idx[i]]);
	} else {
		/* one regex: --benchmark_filter=^(A|B)$, -bench ^(A|B)$, criterion's filter */
		rn_buf_init(&f, 0);
		if (tc->harness == RN_HARNESS_GOOGLE_BENCHMARK)
			rn_buf_adds(&f, "--benchmark_filter=");
		rn_buf_adds(&f, "^(");
		for (i = 0; i < m; i++) {
			if (i)
				rn_buf_addc(&f, '|');
			add_regex_literal(&f, g->names[idx[i]]);
		}
		rn_buf_adds(&f, ")$");
		v[k++] = rn_buf_detach(&f, NULL);
	}
	for (i = a + 1; i < n; i++)
		v[k++] = rn_xstrdup(tc->argv[i]);
	free(idx);
	return v;
}

bool rn_harness_take(const struct rn_target_cfg *tc, size_t k, struct rn_metrics *run)
{
	char *p;
	FILE *f;
	bool ok = false;

	if (!tc->group)
		return false;
	p = left_path(tc, tc->group_member, k);
	f = fopen(p, "r");
	if (f) {
		ok = fread(run, sizeof(*run), 1, f) == 1;
		fclose(f);
		(void)unlink(p);
	}
	free(p);
	return ok;
}

void rn_harness_leave(const struct rn_target_cfg *tc, const char *out, size_t k,
		      const struct rn_metrics *run)
{
	const struct rn_harness_group *g = tc->group;
	size_t *idx, m, i;
	json_t *root = NULL;

	if (!g)
		return;
	if (tc->harness != RN_HARNESS_GO_TEST_BENCH && tc->harness != RN_HARNESS_CRITERION) {
		root = json_load_file(tc->bench_out, 0, NULL);
		(void)unlink(tc->bench_out);
		if (!root)
			return;
	}
	idx = rn_xcalloc(g->n, sizeof(*idx));
	m = run_members(tc, idx);
	for (i = 0; i < m; i++) {
		struct samples s = { 0 };
		struct rn_metrics left = *run;
		char *p;
		FILE *f;

		if (idx[i] == tc->group_member)
			continue;
		if (tc->harness == RN_HARNESS_CRITERION) { /* a file per benchmark */
			char *cp = rn_xstrfmt("%s/target/criterion/%s/new/sample.json", tc->cwd,
					      g->names[idx[i]]);
			json_t *one = json_load_file(cp, 0, NULL);

			read_criterion(one, &s);
			json_decref(one);
			free(cp);
		} else {
			read_samples(tc, root, out, g->names[idx[i]], &s);
		}
		p = left_path(tc, idx[i], k);
		f = s.n ? fopen(p, "w") : NULL;
		if (f) {
			/* the run's other metrics (processes, peak RSS) are the shared run's */
			left.v[RN_METRIC_WALL] = (uint64_t)llround(rn_stats_median(s.real, s.n));
			left.v[RN_METRIC_CPU_TIME] = (uint64_t)llround(rn_stats_median(s.cpu, s.n));
			if (fwrite(&left, sizeof(left), 1, f) != 1 || fclose(f))
				(void)unlink(p); /* not left whole: the member runs itself */
		}
		free(p);
		free(s.real);
		free(s.cpu);
	}
	free(idx);
	json_decref(root);
}

int rn_harness_read(const struct rn_target_cfg *tc, const char *out, bool keep, double proc_cpu_ns,
		    double *real_ns, double *cpu_ns, char *why, size_t cap)
{
	struct samples s = { 0 };
	json_t *root = NULL;
	json_error_t jerr;
	int rc = 0;

	*real_ns = *cpu_ns = 0.0;
	if (tc->harness != RN_HARNESS_GO_TEST_BENCH) {
		root = json_load_file(tc->bench_out, 0, &jerr);
		if (!root) {
			snprintf(why, cap, "%s wrote no readable results to %s (%s)",
				 rn_harness_names[tc->harness], tc->bench_out, jerr.text);
			return -EINVAL;
		}
	}
	read_samples(tc, root, out, tc->bench, &s);
	if (root) {
		json_decref(root);
		if (tc->harness != RN_HARNESS_CRITERION && !keep)
			(void)unlink(tc->bench_out);
	}
	if (!s.n) {
		snprintf(why, cap, "%s reported no time for '%s'", rn_harness_names[tc->harness],
			 tc->bench);
		rc = -EINVAL;
	} else {
		*real_ns = rn_stats_median(s.real, s.n);
		*cpu_ns = rn_stats_median(s.cpu, s.n);
		/* a go test binary's run of this one benchmark at a pinned count N: its process's
		 * CPU time over the N + 1 iterations it ran (a first one, then N) */
		if (rn_harness_go_cpu(tc) && !keep && s.n == 1 && s.iters > 0 &&
		    (long)s.iters == go_pinned_n(tc->argv) && proc_cpu_ns > 0.0)
			*cpu_ns = proc_cpu_ns / (s.iters > 1 ? s.iters + 1 : 1);
	}
	free(s.real);
	free(s.cpu);
	return rc;
}
