/*
 * vk_layer_check - integration check of the Vulkan collector against tests/targets/vk_compute.
 *
 * Runs a program with VK_LAYER_RENACER_timing injected exactly as the collector's prepare()
 * does (rn_vk_inject_env, a private record directory), then reads the records as finish()
 * does (rn_vk_load) and checks them against the work vk_compute is known to do:
 * exact span counts per kind and mode, the names, flags, workgroup counts and byte counts,
 * every span inside its submit window (after the submit, before the harvest), dispatches and
 * copies nested in their command buffer, one untimed secondary, nothing lost.
 *
 * Usage: vk_layer_check --mode cmdbuf|submit|dispatch [--validation] [--reset stream]
 *                       [--verbose] -- PROGRAM [ARGS...]
 *   --validation  passed on to the program (vk_compute enables VK_LAYER_KHRONOS_validation
 *                 itself and exits 1 on any validation error)
 *   --reset stream  force the layer's in-stream query reset fallback
 * Exit: 0 pass, 1 fail, 77 the program found no Vulkan device (skip).
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "inject.h"
#include "load.h"
#include "xalloc.h"

struct span {
	struct rn_gpu_span s;      /* mapped span, name owned */
	struct rn_vk_rec_span raw; /* as recorded */
};

struct spans {
	struct span *v;
	size_t n, cap;
};

static int failures;

#define EXPECT(cond, ...)                                                                          \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			failures++;                                                                \
			fprintf(stderr, "vk_layer_check: FAIL: " __VA_ARGS__);                     \
			fputc('\n', stderr);                                                       \
		}                                                                                  \
	} while (0)

static int collect(void *ctx, const struct rn_gpu_span *span, const struct rn_vk_rec_span *raw)
{
	struct spans *sp = ctx;

	sp->v = rn_xgrow(sp->v, &sp->cap, sp->n + 1, sizeof(*sp->v));
	sp->v[sp->n].s = *span;
	sp->v[sp->n].s.name = rn_xstrdup(span->name);
	sp->v[sp->n].raw = *raw;
	sp->n++;
	return 0;
}

static size_t count_kind(const struct spans *sp, enum rn_gpu_kind kind)
{
	size_t n = 0;

	for (size_t i = 0; i < sp->n; i++)
		n += sp->v[i].s.kind == kind;
	return n;
}

static size_t count_name(const struct spans *sp, enum rn_gpu_kind kind, const char *name)
{
	size_t n = 0;

	for (size_t i = 0; i < sp->n; i++)
		n += sp->v[i].s.kind == kind && !strcmp(sp->v[i].s.name, name);
	return n;
}

static const struct span *find_name(const struct spans *sp, const char *name)
{
	for (size_t i = 0; i < sp->n; i++)
		if (!strcmp(sp->v[i].s.name, name) && sp->v[i].s.kind != RN_GPU_CMDBUF &&
		    sp->v[i].s.kind != RN_GPU_REGION)
			return &sp->v[i];
	return NULL;
}

static bool is_identity_name(const char *n)
{
	if (strncmp(n, "cs_", 3) || strlen(n) != 11)
		return false;
	for (int i = 3; i < 11; i++)
		if (!strchr("0123456789abcdef", n[i]))
			return false;
	return true;
}

/* Run argv with the layer's environment; returns the exit status or -1. */
static int run(char **argv, const struct rn_strvec *env)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		for (size_t i = 0; i < env->n; i++)
			putenv(env->v[i]);
		execvp(argv[0], argv);
		fprintf(stderr, "vk_layer_check: cannot run '%s': %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int load_dir(const char *dir, struct spans *sp, struct rn_vk_load_report *rep)
{
	struct rn_buf path, data;
	struct dirent *de;
	DIR *d = opendir(dir);
	int ret = 0;

	if (!d)
		return -1;
	rn_buf_init(&path, 0);
	rn_buf_init(&data, 0);
	while ((de = readdir(d))) {
		if (!strstr(de->d_name, ".rnvk"))
			continue;
		rn_buf_reset(&path);
		rn_buf_reset(&data);
		rn_buf_addf(&path, "%s/%s", dir, de->d_name);
		if (rn_buf_read_file(&data, path.buf) ||
		    rn_vk_load(data.buf, data.len, collect, sp, rep) < 0)
			ret = -1;
	}
	closedir(d);
	rn_buf_release(&path);
	rn_buf_release(&data);
	return ret;
}

/* Every span: start <= end, started after its submit, ended before it was read back. */
static void check_windows(const struct spans *sp)
{
	for (size_t i = 0; i < sp->n; i++) {
		const struct span *x = &sp->v[i];
		uint64_t u = x->s.uncertainty_ns;

		EXPECT(x->s.start_ns <= x->s.end_ns, "span '%s' ends before it starts", x->s.name);
		EXPECT(x->s.submit_ns && x->s.start_ns + u >= x->s.submit_ns,
		       "span '%s' starts %" PRId64 " ns before its submit (uncertainty %" PRIu64
		       ")",
		       x->s.name, (int64_t)(x->s.submit_ns - x->s.start_ns), u);
		EXPECT(x->s.end_ns <= x->raw.harvest_ns + u,
		       "span '%s' ends %" PRId64 " ns after it was read back", x->s.name,
		       (int64_t)(x->s.end_ns - x->raw.harvest_ns));
	}
}

/* Dispatch mode: each command span lies inside a command buffer span of its submit. */
static void check_nesting(const struct spans *sp)
{
	for (size_t i = 0; i < sp->n; i++) {
		const struct span *x = &sp->v[i];
		bool inside = false;

		if (x->s.kind == RN_GPU_CMDBUF)
			continue;
		for (size_t j = 0; j < sp->n && !inside; j++) {
			const struct span *c = &sp->v[j];

			inside = c->s.kind == RN_GPU_CMDBUF &&
				c->raw.submit_seq == x->raw.submit_seq &&
				c->s.start_ns <= x->s.start_ns && x->s.end_ns <= c->s.end_ns;
		}
		EXPECT(inside, "span '%s' (submit %" PRIu64 ") is not inside a command buffer span",
		       x->s.name, x->raw.submit_seq);
	}
}

static void check_cmdbuf(const struct spans *sp)
{
	EXPECT(count_kind(sp, RN_GPU_CMDBUF) == 4, "%zu command buffer spans, want 4",
	       count_kind(sp, RN_GPU_CMDBUF));
	EXPECT(count_name(sp, RN_GPU_CMDBUF, "frame_cb") == 3, "want 3 'frame_cb' spans");
	EXPECT(count_name(sp, RN_GPU_CMDBUF, "indirect_pass") == 1,
	       "want 1 'indirect_pass' command buffer span");
}

static void check_dispatch(const struct spans *sp)
{
	static const struct {
		enum rn_gpu_kind kind;
		const char *name;
		size_t count;
	} want[] = {
		{ RN_GPU_DISPATCH, "scale_pass", 6 }, { RN_GPU_DISPATCH, "add_pipeline", 3 },
		{ RN_GPU_DISPATCH, "reduce_sum", 3 }, { RN_GPU_DISPATCH, "indirect_pass", 1 },
		{ RN_GPU_COPY, "upload", 3 },         { RN_GPU_COPY, "marker_fill", 3 },
		{ RN_GPU_COPY, "copy_buffer", 3 },    { RN_GPU_COPY, "update_buffer", 1 },
	};
	size_t ident = 0;
	const struct span *x;

	check_cmdbuf(sp);
	EXPECT(count_kind(sp, RN_GPU_DISPATCH) == 16, "%zu dispatch spans, want 16",
	       count_kind(sp, RN_GPU_DISPATCH));
	EXPECT(count_kind(sp, RN_GPU_COPY) == 10, "%zu copy spans, want 10",
	       count_kind(sp, RN_GPU_COPY));
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		EXPECT(count_name(sp, want[i].kind, want[i].name) == want[i].count,
		       "%zu spans named '%s', want %zu", count_name(sp, want[i].kind, want[i].name),
		       want[i].name, want[i].count);
	for (size_t i = 0; i < sp->n; i++) {
		const struct rn_gpu_span *s = &sp->v[i].s;

		EXPECT(s->flags & RN_GPU_SERIALIZED, "span '%s' not flagged serialized", s->name);
		if (s->kind == RN_GPU_DISPATCH && is_identity_name(s->name))
			ident++;
		if (s->kind == RN_GPU_DISPATCH && strcmp(s->name, "indirect_pass"))
			EXPECT(s->groups[0] == 64 && s->groups[1] == 1 && s->groups[2] == 1 &&
				       !(s->flags & RN_GPU_INDIRECT),
			       "dispatch '%s' groups %u,%u,%u", s->name, s->groups[0], s->groups[1],
			       s->groups[2]);
	}
	EXPECT(ident == 3, "%zu dispatches named cs_xxxxxxxx, want 3", ident);
	x = find_name(sp, "indirect_pass");
	EXPECT(x && (x->s.flags & RN_GPU_INDIRECT) && !x->s.groups[0],
	       "indirect dispatch not flagged indirect");
	x = find_name(sp, "upload");
	EXPECT(x && x->s.bytes == 4096 * 4 && x->s.dir != RN_GPU_DIR_NONE,
	       "upload copy: bytes or direction wrong");
	x = find_name(sp, "copy_buffer");
	EXPECT(x && x->s.bytes == 4096 * 4 && x->s.dir != RN_GPU_DIR_NONE,
	       "read-back copy: bytes or direction wrong");
	x = find_name(sp, "marker_fill");
	EXPECT(x && x->s.bytes == 4096 * 4, "fill: bytes wrong");
	x = find_name(sp, "update_buffer");
	EXPECT(x && x->s.bytes == 16 &&
		       (x->s.dir == RN_GPU_DIR_HTOD || x->s.dir == RN_GPU_DIR_HTOH),
	       "update: bytes or direction wrong");
	check_nesting(sp);
}

static void check_submit(const struct spans *sp)
{
	EXPECT(count_kind(sp, RN_GPU_SUBMIT) == 3, "%zu submit spans, want 3",
	       count_kind(sp, RN_GPU_SUBMIT));
	EXPECT(sp->n == 3, "%zu spans in submit mode, want 3", sp->n);
	for (size_t i = 0; i < sp->n; i++)
		EXPECT(sp->v[i].raw.submit_seq == i + 1, "submit span %zu has batch %" PRIu64, i,
		       sp->v[i].raw.submit_seq);
}

static void summary(const struct spans *sp, const struct rn_vk_load_report *rep)
{
	static const char *kinds[] = { "dispatch", "copy",   "render_pass",
				       "cmdbuf",   "submit", "region" };
	uint64_t total[6] = { 0 }, n[6] = { 0 }, max_unc = 0, lat = 0, nlat = 0;

	for (size_t i = 0; i < sp->n; i++) {
		const struct rn_gpu_span *s = &sp->v[i].s;

		total[s->kind] += s->end_ns - s->start_ns;
		n[s->kind]++;
		if (s->uncertainty_ns > max_unc)
			max_unc = s->uncertainty_ns;
		if (s->kind == RN_GPU_CMDBUF || s->kind == RN_GPU_SUBMIT) {
			lat += s->start_ns - s->submit_ns;
			nlat++;
		}
	}
	for (int k = 0; k < 6; k++)
		if (n[k])
			printf("  %-8s %3" PRIu64 " spans, mean %.1f us\n", kinds[k], n[k],
			       (double)total[k] / (double)n[k] / 1e3);
	if (nlat)
		printf("  submit-to-start latency: mean %.1f us\n",
		       (double)lat / (double)nlat / 1e3);
	printf("  devices %zu, calibrations %zu (deviation %" PRIu64 "..%" PRIu64
	       " ns), uncalibrated devices %zu, max uncertainty %" PRIu64 " ns\n",
	       rep->devices, rep->calibrations, rep->calibrations ? rep->min_deviation_ns : 0,
	       rep->max_deviation_ns, rep->uncalibrated, max_unc);
	printf("  untimed: secondary %" PRIu64 ", simultaneous %" PRIu64 ", family %" PRIu64
	       ", no slots %" PRIu64 "; lost %" PRIu64 "; unmapped %zu\n",
	       rep->stats.untimed_secondary, rep->stats.untimed_simultaneous,
	       rep->stats.untimed_family, rep->stats.untimed_no_slots, rep->stats.lost,
	       rep->unmapped);
}

int main(int argc, char **argv)
{
	enum rn_gpu_mode mode = RN_GPU_MODE_CMDBUF;
	const char *reset = NULL, *layer_dir;
	bool validation = false, verbose = false;
	char dir[] = "/tmp/vk_layer_check-XXXXXX";
	struct rn_strvec env;
	char **child;
	struct spans sp = { 0 };
	struct rn_vk_load_report rep;
	int i, status, nchild;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "--mode") && i + 1 < argc) {
			i++;
			mode = !strcmp(argv[i], "dispatch") ? RN_GPU_MODE_DISPATCH :
				!strcmp(argv[i], "submit")  ? RN_GPU_MODE_SUBMIT :
							      RN_GPU_MODE_CMDBUF;
		} else if (!strcmp(argv[i], "--reset") && i + 1 < argc) {
			reset = argv[++i];
		} else if (!strcmp(argv[i], "--validation")) {
			validation = true;
		} else if (!strcmp(argv[i], "--verbose")) {
			verbose = true;
		} else {
			fprintf(stderr, "vk_layer_check: unknown option '%s'\n", argv[i]);
			return 2;
		}
	}
	if (i + 1 >= argc) {
		fprintf(stderr,
			"usage: vk_layer_check --mode MODE [--validation] [--reset stream] "
			"-- PROGRAM [ARGS...]\n");
		return 2;
	}
	layer_dir = rn_vk_layer_dir();
	if (!layer_dir) {
		fprintf(stderr, "vk_layer_check: layer manifest not found\n");
		return 1;
	}
	if (!mkdtemp(dir)) {
		perror("vk_layer_check: mkdtemp");
		return 1;
	}
	rn_strvec_init(&env);
	rn_vk_inject_env(layer_dir, dir, mode, NULL, &env);
	if (reset)
		rn_strvec_env_setkv(&env, RN_VK_ENV_RESET, reset);
	/* argv after "--", plus --validation for the program. */
	nchild = argc - i - 1;
	child = rn_xcalloc((size_t)nchild + 2, sizeof(*child));
	for (int k = 0; k < nchild; k++)
		child[k] = argv[i + 1 + k];
	if (validation)
		child[nchild++] = (char *)"--validation";
	if (verbose)
		for (size_t k = 0; k < env.n; k++)
			printf("  env %s\n", env.v[k]);

	status = run(child, &env);
	rn_vk_load_report_init(&rep);
	if (status == 77) {
		printf("vk_layer_check: skipped (no Vulkan device)\n");
		goto out;
	}
	EXPECT(status == 0, "program exited with status %d", status);
	EXPECT(load_dir(dir, &sp, &rep) == 0, "record files unreadable: %s at byte %zu",
	       rn_vk_record_strerror(rep.error), rep.error_offset);
	EXPECT(rep.files == 1, "%zu record files, want 1", rep.files);
	EXPECT(rep.devices == 1, "%zu devices, want 1", rep.devices);
	EXPECT(!rep.disabled, "layer disabled timing: %s", rep.disabled_msg);
	EXPECT(!rep.truncated, "truncated record file");
	EXPECT(!rep.unmapped, "%zu unmapped spans", rep.unmapped);
	EXPECT(rep.stats.lost == 0, "%" PRIu64 " executions lost", rep.stats.lost);
	EXPECT(rep.stats.untimed_secondary == 1, "%" PRIu64 " untimed secondaries, want 1",
	       rep.stats.untimed_secondary);
	EXPECT(rep.stats.spans == sp.n, "STATS says %" PRIu64 " spans, read %zu", rep.stats.spans,
	       sp.n);
	if (verbose)
		for (size_t k = 0; k < sp.n; k++)
			printf("  %-8s %-14s fam %u seq %" PRIu64 " start %" PRIu64 " dur %" PRIu64
			       " ns lat %" PRId64 " ns unc %" PRIu64 "\n",
			       rn_vk_mode_name(mode), sp.v[k].s.name, sp.v[k].s.queue_family,
			       sp.v[k].raw.submit_seq, sp.v[k].s.start_ns,
			       sp.v[k].s.end_ns - sp.v[k].s.start_ns,
			       (int64_t)(sp.v[k].s.start_ns - sp.v[k].s.submit_ns),
			       sp.v[k].s.uncertainty_ns);
	check_windows(&sp);
	if (mode == RN_GPU_MODE_CMDBUF) {
		check_cmdbuf(&sp);
		EXPECT(sp.n == 4, "%zu spans in cmdbuf mode, want 4", sp.n);
	} else if (mode == RN_GPU_MODE_DISPATCH) {
		check_dispatch(&sp);
	} else {
		check_submit(&sp);
	}
	printf("vk_layer_check: mode %s%s%s: %zu spans, %s\n", rn_vk_mode_name(mode),
	       validation ? " +validation" : "", reset ? " +stream reset" : "", sp.n,
	       failures ? "FAIL" : "ok");
	summary(&sp, &rep);
out : {
	struct rn_buf cmd;

	rn_buf_init(&cmd, 0);
	rn_buf_addf(&cmd, "rm -rf '%s'", dir);
	if (system(cmd.buf) != 0)
		fprintf(stderr, "vk_layer_check: cannot remove '%s'\n", dir);
	rn_buf_release(&cmd);
}
	for (size_t k = 0; k < sp.n; k++)
		free(sp.v[k].s.name);
	free(sp.v);
	rn_strvec_release(&env);
	free(child);
	if (status == 77)
		return 77;
	return failures ? 1 : 0;
}
