/*
 * checkout.c - a revision checked out (git worktree) and built beside the working tree
 * (checkout.h).
 */
#include "checkout.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"
#include "log.h"
#include "xalloc.h"

/* Largest stdout of one git command kept, bytes (a rev-list of 100,000 commits is 4 MiB). */
#define GIT_OUT_MAX ((size_t)64 << 20)

/* Wait for `pid`; its exit status, or -1 when it did not exit normally. */
static int wait_exit(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int rn_git(const char *repo, const char *const *args, struct rn_buf *out)
{
	const char **argv;
	struct rn_buf cmd, err;
	FILE *errf;
	size_t n = 0, i;
	int pfd[2], rc = 0, st;
	pid_t pid;

	while (args[n])
		n++;
	argv = rn_xcalloc(n + 4, sizeof(*argv));
	argv[0] = "git";
	argv[1] = "-C";
	argv[2] = repo;
	for (i = 0; i < n; i++)
		argv[3 + i] = args[i];
	rn_buf_init(&cmd, 0);
	rn_buf_init(&err, 1 << 16);
	rn_buf_adds(&cmd, "git");
	for (i = 0; i < n; i++)
		rn_buf_addf(&cmd, " %s", args[i]);
	errf = tmpfile();
	if (!errf || pipe2(pfd, O_CLOEXEC)) {
		rc = -errno;
		rn_error("cannot run '%s': %s", cmd.buf, strerror(-rc));
		goto out_free;
	}
	pid = fork();
	if (pid < 0) {
		rc = -errno;
		rn_error("cannot fork for '%s': %s", cmd.buf, strerror(-rc));
		close(pfd[0]);
		close(pfd[1]);
		goto out_free;
	}
	if (!pid) {
		int null = open("/dev/null", O_RDONLY);

		if (null >= 0)
			dup2(null, 0);
		dup2(pfd[1], 1);
		dup2(fileno(errf), 2);
		execvp("git", (char *const *)argv);
		_exit(127);
	}
	close(pfd[1]);
	if (out) {
		if (rn_buf_read_fd(out, pfd[0]))
			rc = -EIO;
	} else {
		char sink[4096];
		ssize_t got;

		do
			got = read(pfd[0], sink, sizeof(sink));
		while (got > 0 || (got < 0 && errno == EINTR));
	}
	close(pfd[0]);
	st = wait_exit(pid);
	if (st) {
		rewind(errf);
		rn_buf_read_fd(&err, fileno(errf));
		while (err.len && (err.buf[err.len - 1] == '\n'))
			err.buf[--err.len] = '\0';
		rn_error("'%s' in '%s' failed (%s %d)%s%s", cmd.buf, repo,
			 st == 127 ? "not found, exit" : "exit", st, err.len ? ": " : "",
			 err.len ? err.buf : "");
		rc = -EIO;
	} else if (rc) {
		rn_error("'%s': output too large", cmd.buf);
	}
out_free:
	if (errf)
		fclose(errf);
	rn_buf_release(&err);
	rn_buf_release(&cmd);
	free(argv);
	return rc;
}

/* The output of a git command without its trailing newline, malloc'ed, or NULL. */
static char *git_line(const char *repo, const char *const *args)
{
	struct rn_buf b;
	char *s;

	rn_buf_init(&b, GIT_OUT_MAX);
	if (rn_git(repo, args, &b)) {
		rn_buf_release(&b);
		return NULL;
	}
	while (b.len && (b.buf[b.len - 1] == '\n' || b.buf[b.len - 1] == '\r'))
		b.buf[--b.len] = '\0';
	s = rn_buf_detach(&b, NULL);
	return s;
}

char *rn_git_toplevel(const char *dir)
{
	static const char *const args[] = { "rev-parse", "--show-toplevel", NULL };

	return git_line(dir, args);
}

char *rn_git_commit(const char *repo, const char *rev)
{
	char *spec = rn_xstrfmt("%s^{commit}", rev);
	const char *args[] = { "rev-parse", "--verify", "--quiet", "--end-of-options", spec, NULL };
	char *s = git_line(repo, args);

	free(spec);
	if (!s)
		rn_error("'%s' is not a commit of the repository '%s'", rev, repo);
	return s;
}

int rn_checkout_add(struct rn_checkout *co, const char *repo, const char *rev)
{
	const char *tmpdir = getenv("TMPDIR");
	char *templ;

	memset(co, 0, sizeof(*co));
	co->repo = rn_xstrdup(repo);
	co->commit = rn_git_commit(repo, rev);
	if (!co->commit)
		goto out_fail;
	templ = rn_xstrfmt("%s/renacer-checkout-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (!mkdtemp(templ)) {
		rn_error("cannot make a temporary directory '%s' for '%s': %s", templ, rev,
			 strerror(errno));
		free(templ);
		goto out_fail;
	}
	co->tmp = templ;
	co->dir = rn_xstrfmt("%s/tree", co->tmp);
	{
		const char *args[] = { "worktree", "add",      "--quiet", "--detach",
				       co->dir,    co->commit, NULL };

		if (rn_git(repo, args, NULL)) {
			rmdir(co->dir);
			rmdir(co->tmp);
			goto out_fail;
		}
	}
	return 0;
out_fail:
	free(co->repo);
	free(co->commit);
	free(co->tmp);
	free(co->dir);
	memset(co, 0, sizeof(*co));
	return -EIO;
}

/* Remove `dir` and everything below it (files a build left that git does not know). */
static void remove_tree(const char *dir)
{
	pid_t pid = fork();

	if (pid < 0)
		return;
	if (!pid) {
		execl("/bin/rm", "rm", "-rf", "--", dir, (char *)NULL);
		_exit(127);
	}
	(void)wait_exit(pid);
}

void rn_checkout_remove(struct rn_checkout *co)
{
	if (co->dir) {
		const char *args[] = { "worktree", "remove", "--force", "--force", co->dir, NULL };
		const char *prune[] = { "worktree", "prune", NULL };

		/* untracked build output makes the first fail; the tree goes either way */
		if (rn_git(co->repo, args, NULL)) {
			remove_tree(co->dir);
			(void)rn_git(co->repo, prune, NULL);
		}
	}
	if (co->tmp)
		remove_tree(co->tmp);
	free(co->repo);
	free(co->tmp);
	free(co->dir);
	free(co->commit);
	memset(co, 0, sizeof(*co));
}

/* Run `cmd` with /bin/sh -c in `cwd`, stdout onto stderr. Its exit status, or -1. */
static int run_build(const char *cmd, const char *cwd)
{
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		if (cwd && chdir(cwd))
			_exit(126);
		dup2(2, 1);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	return wait_exit(pid);
}

int rn_checkout_build(const struct rn_config *cfg, const struct rn_baseline *reroot,
		      const char *what, bool quiet)
{
	char **done_cmd = rn_xcalloc(cfg->ntargets + 1, sizeof(*done_cmd));
	char **done_cwd = rn_xcalloc(cfg->ntargets + 1, sizeof(*done_cwd));
	size_t i, j, ndone = 0;
	int rc = 0;

	for (i = 0; i < cfg->ntargets && !rc; i++) {
		const struct rn_target_cfg *tc = &cfg->targets[i];
		char *cwd;
		int st;

		if (!tc->build)
			continue;
		cwd = reroot && tc->cwd ? rn_baseline_reroot(reroot, tc->cwd) :
					  rn_xstrdup(tc->cwd ? tc->cwd : cfg->dir);
		for (j = 0; j < ndone; j++)
			if (!strcmp(done_cmd[j], tc->build) && !strcmp(done_cwd[j], cwd))
				break;
		if (j < ndone) {
			free(cwd);
			continue;
		}
		if (!quiet)
			fprintf(stderr, "renacer: building %s for '%s': %s\n", what, tc->name,
				tc->build);
		st = run_build(tc->build, cwd);
		if (st) {
			rn_error("%s: build command of target '%s' failed (exit %d) in '%s': %s",
				 what, tc->name, st, cwd, tc->build);
			rc = -EIO;
		}
		done_cmd[ndone] = tc->build;
		done_cwd[ndone++] = cwd;
	}
	for (j = 0; j < ndone; j++)
		free(done_cwd[j]);
	free(done_cwd);
	free(done_cmd);
	return rc;
}
