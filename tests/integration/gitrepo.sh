# gitrepo.sh - the git repositories of the bisect and ratchet tests (sourced, POSIX sh).
#
#     . "$(dirname "$0")/../gitrepo.sh"
#
# gitrepo_env TMP          a git identity and no system or user config (HOME=TMP), and the
#                          checkouts renacer makes under TMP/t (TMPDIR), so a test can see that
#                          none is left
# gitrepo_init REPO        an empty repository with branch main
# gitrepo_commit REPO MSG  commit everything in REPO's work tree with message MSG
# gitrepo_hash REPO N      the hash of the commit whose subject ends "commit N"
# getppid_app FILE N       C source of a program making N getppid calls (a count plant)
# spin_app FILE N          C source of a program computing N rounds (an instruction plant:
#                          Valgrind counts 6 instructions a round at -O1, the same every run)
#
# Each function returns git's status; the caller says what failed.

gitrepo_env() {
	export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t \
		GIT_COMMITTER_EMAIL=t@example.com GIT_CONFIG_NOSYSTEM=1 HOME="$1"
	mkdir -p "$1/t"
	export TMPDIR="$1/t"
}

gitrepo_init() {
	mkdir -p "$1" && git -C "$1" init -q -b main
}

gitrepo_commit() {
	git -C "$1" add -A && git -C "$1" commit -q -m "$2"
}

gitrepo_hash() {
	git -C "$1" log --format='%H %s' | awk -v s="commit $2" '$0 ~ s"$" {print $1}'
}

getppid_app() {
	cat >"$1" <<C
#include <unistd.h>
int main(void)
{
	int i;

	for (i = 0; i < $2; i++)
		getppid();
	return 0;
}
C
}

spin_app() {
	cat >"$1" <<C
int main(void)
{
	volatile unsigned long x = 0;
	unsigned long i;

	for (i = 0; i < $2UL; i++)
		x += i * 7;
	return 0;
}
C
}
