/*
 * checkout.h - a revision of the repository checked out and built beside the working tree, for
 * the comparisons that need one more tree than the user's CI made: `renacer bisect` (every
 * candidate commit and GOOD) and the release ratchet (a reference given as a git ref).
 *
 * A checkout is a detached `git worktree add` into a private directory made with mkdtemp under
 * $TMPDIR (else /tmp), named renacer-checkout-XXXXXX, the tree in its `tree` subfolder. Removing
 * it runs `git worktree remove --force` and removes the directory, so neither the repository's
 * list of worktrees nor the temporary directory keeps anything.
 *
 * Building runs the `build` key of the config's targets (the command check --build, the
 * pre-commit hook and the action run): /bin/sh -c in each target's cwd, re-rooted into the
 * checkout as a same-job baseline re-roots it (baseline.h). A command that several targets
 * share in one cwd runs once. Its output goes to stderr.
 *
 * Errors: 0 or a negative errno after one rn_error() that names the revision or command.
 */
#ifndef RN_CHECKOUT_H
#define RN_CHECKOUT_H

#include <stdbool.h>

#include "baseline.h"
#include "buf.h"
#include "config.h"

/* One checked-out revision. All strings owned; zeroed when not set up. */
struct rn_checkout {
	char *repo;   /* absolute top of the repository it came from */
	char *tmp;    /* the private temporary directory (mkdtemp) */
	char *dir;    /* the worktree: tmp/tree */
	char *commit; /* the full hash checked out */
};

/*
 * Run `git -C repo ARGS...` (args NULL-terminated, without "git") and append its stdout to
 * `out` (NULL: discard it); its stderr is kept and printed in the error. 0, or -EIO after
 * rn_error() naming the git command when it could not run or exited non-zero.
 */
int rn_git(const char *repo, const char *const *args, struct rn_buf *out);

/* The top of the git work tree holding `dir` (git rev-parse --show-toplevel), malloc'ed, or
 * NULL after rn_error() when `dir` is not in a git repository. */
char *rn_git_toplevel(const char *dir);

/* The full hash of `rev` (a commit), malloc'ed, or NULL after rn_error() naming it. */
char *rn_git_commit(const char *repo, const char *rev);

/*
 * Check commit `rev` of the repository at `repo` out into a new private worktree (top of this
 * file) and fill `co`. 0 or a negative errno; on failure nothing is left (no directory, no
 * worktree) and `co` is zeroed.
 */
int rn_checkout_add(struct rn_checkout *co, const char *repo, const char *rev);

/* Remove the worktree and its temporary directory, free `co` and zero it. No-op on a zeroed
 * one. */
void rn_checkout_remove(struct rn_checkout *co);

/*
 * Run the `build` command of every target of `cfg` (top of this file). `reroot`: the cwd of each
 * target is re-rooted under reroot->dir first (the head config building another tree); NULL:
 * the cwd as the config resolved it. `what` names the tree in progress lines and errors
 * ("reference abc1234"). 0, or -EIO after rn_error() at the first command that fails.
 */
int rn_checkout_build(const struct rn_config *cfg, const struct rn_baseline *reroot,
		      const char *what, bool quiet);

#endif
