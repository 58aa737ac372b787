/*
 * sysent.c - what renacer knows about each syscall beyond its name: the kinds of its
 * arguments (for path decoding and strace-style lines) and the strace classes (%file, %desc,
 * ...) used by -e trace=SET.
 *
 * Names and numbers come from the generated table; this file only attaches knowledge to names,
 * so a name missing on an architecture (open on aarch64) is simply skipped.
 */
#include "ptrace/ptrace.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "log.h"
#include "ptrace/internal.h"
#include "xalloc.h"

/*
 * Argument kinds, one letter per argument:
 *   d  directory fd (AT_FDCWD)     f  fd                p  path (decoded from memory)
 *   o  open flags                   m  mode (octal)      a  access mode (R_OK|W_OK...)
 *   A  AT_* flags                   P  PROT_* bits        M  MAP_* flags
 *   s  signal number                i  int                u  unsigned decimal
 *   v  argv of execve (["a", "b"])   e  envp of execve (its address and a count of its strings)
 *   x  raw hex (pointers, masks; 0 prints NULL)
 */
struct sysent {
	const char *name;
	const char *sig;
};

static const struct sysent sysents[] = {
	{ "read", "fxu" },         { "write", "fxu" },          { "open", "pom" },
	{ "close", "f" },          { "stat", "px" },            { "fstat", "fx" },
	{ "lstat", "px" },         { "poll", "xui" },           { "lseek", "fii" },
	{ "mmap", "xuPMfu" },      { "mprotect", "xuP" },       { "munmap", "xu" },
	{ "brk", "x" },            { "rt_sigaction", "sxxu" },  { "rt_sigprocmask", "ixxu" },
	{ "rt_sigreturn", "" },    { "ioctl", "fxx" },          { "pread64", "fxui" },
	{ "pwrite64", "fxui" },    { "readv", "fxi" },          { "writev", "fxi" },
	{ "access", "pa" },        { "pipe", "x" },             { "select", "ixxxx" },
	{ "sched_yield", "" },     { "mremap", "xuuxx" },       { "msync", "xux" },
	{ "mincore", "xux" },      { "madvise", "xui" },        { "dup", "f" },
	{ "dup2", "ff" },          { "pause", "" },             { "nanosleep", "xx" },
	{ "getitimer", "ix" },     { "alarm", "u" },            { "setitimer", "ixx" },
	{ "getpid", "" },          { "sendfile", "ffxu" },      { "socket", "iii" },
	{ "connect", "fxu" },      { "accept", "fxx" },         { "sendto", "fxuixu" },
	{ "recvfrom", "fxuixx" },  { "sendmsg", "fxx" },        { "recvmsg", "fxx" },
	{ "shutdown", "fi" },      { "bind", "fxu" },           { "listen", "fi" },
	{ "getsockname", "fxx" },  { "getpeername", "fxx" },    { "socketpair", "iiix" },
	{ "setsockopt", "fiixu" }, { "getsockopt", "fiixx" },   { "clone", "xxxxx" },
	{ "fork", "" },            { "vfork", "" },             { "execve", "pve" },
	{ "exit", "i" },           { "wait4", "ixxx" },         { "kill", "is" },
	{ "uname", "x" },          { "fcntl", "fix" },          { "flock", "fi" },
	{ "fsync", "f" },          { "fdatasync", "f" },        { "truncate", "pi" },
	{ "ftruncate", "fi" },     { "getdents", "fxu" },       { "getcwd", "xu" },
	{ "chdir", "p" },          { "fchdir", "f" },           { "rename", "pp" },
	{ "mkdir", "pm" },         { "rmdir", "p" },            { "creat", "pm" },
	{ "link", "pp" },          { "unlink", "p" },           { "symlink", "xp" },
	{ "readlink", "pxu" },     { "chmod", "pm" },           { "fchmod", "fm" },
	{ "chown", "pii" },        { "fchown", "fii" },         { "lchown", "pii" },
	{ "umask", "m" },          { "gettimeofday", "xx" },    { "getrlimit", "ix" },
	{ "getrusage", "ix" },     { "sysinfo", "x" },          { "times", "x" },
	{ "getuid", "" },          { "getgid", "" },            { "setuid", "i" },
	{ "setgid", "i" },         { "geteuid", "" },           { "getegid", "" },
	{ "setpgid", "ii" },       { "getppid", "" },           { "getpgrp", "" },
	{ "setsid", "" },          { "rt_sigpending", "xu" },   { "rt_sigtimedwait", "xxxu" },
	{ "rt_sigsuspend", "xu" }, { "sigaltstack", "xx" },     { "utime", "px" },
	{ "mknod", "pmu" },        { "statfs", "px" },          { "fstatfs", "fx" },
	{ "chroot", "p" },         { "acct", "p" },             { "mount", "ppxux" },
	{ "umount2", "pi" },       { "swapon", "pi" },          { "swapoff", "p" },
	{ "gettid", "" },          { "setxattr", "pxxui" },     { "lsetxattr", "pxxui" },
	{ "getxattr", "pxxu" },    { "lgetxattr", "pxxu" },     { "listxattr", "pxu" },
	{ "llistxattr", "pxu" },   { "removexattr", "px" },     { "lremovexattr", "px" },
	{ "tkill", "is" },         { "time", "x" },             { "futex", "xixxxi" },
	{ "sched_setaffinity", "iux" }, { "sched_getaffinity", "iux" },
	{ "getdents64", "fxu" },   { "set_tid_address", "x" },  { "restart_syscall", "" },
	{ "fadvise64", "fiui" },   { "clock_gettime", "ix" },   { "clock_getres", "ix" },
	{ "clock_nanosleep", "iixx" }, { "exit_group", "i" },   { "epoll_wait", "fxii" },
	{ "epoll_ctl", "fifx" },   { "tgkill", "iis" },         { "utimes", "px" },
	{ "waitid", "iixix" },     { "inotify_add_watch", "fpx" }, { "openat", "dpom" },
	{ "mkdirat", "dpm" },      { "mknodat", "dpmu" },       { "fchownat", "dpiiA" },
	{ "futimesat", "dpx" },    { "newfstatat", "dpxA" },    { "unlinkat", "dpA" },
	{ "renameat", "dpdp" },    { "linkat", "dpdpA" },       { "symlinkat", "xdp" },
	{ "readlinkat", "dpxu" },  { "fchmodat", "dpm" },       { "faccessat", "dpa" },
	{ "pselect6", "ixxxxx" },  { "ppoll", "xuxxu" },        { "set_robust_list", "xu" },
	{ "splice", "fxfxux" },    { "utimensat", "dpxA" },     { "epoll_pwait", "fxiixu" },
	{ "eventfd2", "ui" },      { "epoll_create1", "i" },    { "dup3", "ffo" },
	{ "pipe2", "xo" },         { "accept4", "fxxi" },       { "prlimit64", "iixx" },
	{ "name_to_handle_at", "dpxxA" }, { "syncfs", "f" },    { "getrandom", "xux" },
	{ "memfd_create", "xx" },  { "execveat", "dpveA" },     { "copy_file_range", "fxfxux" },
	{ "statx", "dpAux" },      { "rseq", "xuix" },          { "pidfd_open", "iu" },
	{ "clone3", "xu" },        { "close_range", "uuu" },    { "openat2", "dpxu" },
	{ "faccessat2", "dpaA" },  { "renameat2", "dpdpu" },    { "fchmodat2", "dpmA" },
	{ "arch_prctl", "ix" },    { "prctl", "ixxxx" },        { "umount", "p" },
	{ "sendmmsg", "fxui" },    { "recvmmsg", "fxuix" },     { "fanotify_mark", "fuxdp" },
	{ "pivot_root", "pp" },    { "uselib", "p" },           { "getpgid", "i" },
	{ "getsid", "i" },         { "fstatfs64", "fux" },      { "statfs64", "pux" },
};

/* strace's syscall classes, by name (file and desc are derived from the argument kinds). */
static const char *const class_process[] = {
	"clone", "clone3", "fork", "vfork", "execve", "execveat", "exit", "exit_group", "wait4",
	"waitid", "kill", "tkill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "pidfd_open",
	"pidfd_send_signal", "unshare", NULL,
};
static const char *const class_network[] = {
	"socket", "socketpair", "bind", "listen", "accept", "accept4", "connect", "getsockname",
	"getpeername", "sendto", "recvfrom", "sendmsg", "recvmsg", "sendmmsg", "recvmmsg",
	"shutdown", "setsockopt", "getsockopt", NULL,
};
static const char *const class_signal[] = {
	"rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "rt_sigpending", "rt_sigtimedwait",
	"rt_sigsuspend", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "sigaltstack", "kill", "tkill",
	"tgkill", "pause", "signalfd", "signalfd4", "pidfd_send_signal", NULL,
};
static const char *const class_ipc[] = {
	"msgget", "msgsnd", "msgrcv", "msgctl", "semget", "semop", "semctl", "semtimedop",
	"shmget", "shmat", "shmctl", "shmdt", NULL,
};
static const char *const class_memory[] = {
	"mmap", "munmap", "mremap", "mprotect", "brk", "madvise", "mlock", "mlock2", "munlock",
	"mlockall", "munlockall", "mincore", "msync", "remap_file_pages", "mbind",
	"set_mempolicy", "get_mempolicy", "migrate_pages", "move_pages", "pkey_mprotect",
	"process_madvise", "mseal", NULL,
};
static const char *const class_creds[] = {
	"getuid", "geteuid", "getgid", "getegid", "setuid", "setgid", "setreuid", "setregid",
	"setresuid", "setresgid", "getresuid", "getresgid", "setfsuid", "setfsgid", "getgroups",
	"setgroups", "capget", "capset", NULL,
};
static const char *const class_clock[] = {
	"clock_gettime", "clock_settime", "clock_adjtime", "clock_getres", "gettimeofday",
	"settimeofday", "time", "adjtimex", NULL,
};
static const char *const class_stat[] = {
	"stat", "lstat", "newfstatat", "statx", NULL,
};

static const char **sig_by_nr;

static void sysent_init(void)
{
	int n = rn_syscall_table_size();
	size_t i;

	if (sig_by_nr)
		return;
	sig_by_nr = rn_xcalloc((size_t)n, sizeof(*sig_by_nr));
	for (i = 0; i < sizeof(sysents) / sizeof(sysents[0]); i++) {
		int nr = rn_syscall_lookup(sysents[i].name);

		if (nr >= 0)
			sig_by_nr[nr] = sysents[i].sig;
	}
}

const char *rn_sysent_signature(int nr)
{
	sysent_init();
	if (nr < 0 || nr >= rn_syscall_table_size())
		return NULL;
	return sig_by_nr[nr];
}

int rn_syscall_path_arg(int nr, int which)
{
	const char *sig = rn_sysent_signature(nr);
	int i;

	if (!sig)
		return -1;
	for (i = 0; sig[i]; i++)
		if (sig[i] == 'p' && which-- == 0)
			return i;
	return -1;
}

const struct rn_sysnrs *rn_sysnrs(void)
{
	static struct rn_sysnrs n;
	static bool done;

	if (done)
		return &n;
	n.execve = rn_syscall_lookup("execve");
	n.execveat = rn_syscall_lookup("execveat");
	n.wait4 = rn_syscall_lookup("wait4");
	n.waitid = rn_syscall_lookup("waitid");
	n.clone = rn_syscall_lookup("clone");
	n.clone3 = rn_syscall_lookup("clone3");
	n.fork = rn_syscall_lookup("fork");
	n.vfork = rn_syscall_lookup("vfork");
	n.exit = rn_syscall_lookup("exit");
	n.exit_group = rn_syscall_lookup("exit_group");
	n.sched_getaffinity = rn_syscall_lookup("sched_getaffinity");
	n.mmap = rn_syscall_lookup("mmap");
	n.munmap = rn_syscall_lookup("munmap");
	n.mremap = rn_syscall_lookup("mremap");
	n.brk = rn_syscall_lookup("brk");
	n.restart_syscall = rn_syscall_lookup("restart_syscall");
	done = true;
	return &n;
}

static void set_names(bool *set, const char *const *names)
{
	for (; *names; names++) {
		int nr = rn_syscall_lookup(*names);

		if (nr >= 0)
			set[nr] = true;
	}
}

/* Add class `cls` (without the '%') to `set`; false when the class is unknown. */
static bool set_class(bool *set, const char *cls)
{
	int nr, n = rn_syscall_table_size();

	if (!strcmp(cls, "file")) {
		for (nr = 0; nr < n; nr++)
			if (rn_syscall_path_arg(nr, 0) >= 0)
				set[nr] = true;
	} else if (!strcmp(cls, "desc")) {
		for (nr = 0; nr < n; nr++) {
			const char *sig = rn_sysent_signature(nr);

			if (sig && (strchr(sig, 'f') || strchr(sig, 'd')))
				set[nr] = true;
		}
	} else if (!strcmp(cls, "process")) {
		set_names(set, class_process);
	} else if (!strcmp(cls, "network") || !strcmp(cls, "net")) {
		set_names(set, class_network);
	} else if (!strcmp(cls, "signal")) {
		set_names(set, class_signal);
	} else if (!strcmp(cls, "ipc")) {
		set_names(set, class_ipc);
	} else if (!strcmp(cls, "memory")) {
		set_names(set, class_memory);
	} else if (!strcmp(cls, "creds")) {
		set_names(set, class_creds);
	} else if (!strcmp(cls, "clock")) {
		set_names(set, class_clock);
	} else if (!strcmp(cls, "stat")) {
		set_names(set, class_stat);
	} else {
		return false;
	}
	return true;
}

/* Did-you-mean over the syscall names of the table. */
static const char *suggest_syscall(const char *word)
{
	int i, n = rn_syscall_table_size(), k = 0;
	const char **names = rn_xcalloc((size_t)n + 1, sizeof(*names));
	const char *hint;

	for (i = 0; i < n; i++)
		if (rn_syscall_has_name(i))
			names[k++] = rn_syscall_name(i);
	names[k] = NULL;
	hint = rn_suggest(word, names);
	free(names);
	return hint;
}

int rn_syscall_set_parse(const char *expr, bool *set)
{
	int n = rn_syscall_table_size(), i, rc = 0;
	bool negate = false;
	char *copy, *p, *next;

	memset(set, 0, (size_t)n * sizeof(*set));
	if (*expr == '!') {
		negate = true;
		expr++;
	}
	copy = rn_xstrdup(expr);
	for (p = copy; p; p = next) {
		size_t len;

		next = strchr(p, ',');
		if (next)
			*next++ = '\0';
		len = strlen(p);
		if (len && p[len - 1] == '?') {
			p[--len] = '\0';
			if (rn_syscall_lookup(p) < 0 && *p != '%')
				continue; /* '?': no error for names unknown here */
		}
		if (!*p) {
			rc = rn_error("renacer trace: empty syscall name in -e trace='%s'", expr);
			break;
		}
		if (!strcmp(p, "all")) {
			for (i = 0; i < n; i++)
				set[i] = true;
		} else if (!strcmp(p, "none")) {
			continue;
		} else if (*p == '%') {
			if (!set_class(set, p + 1)) {
				rc = rn_error("renacer trace: unknown syscall class '%s' in -e trace= "
					      "(known: %%file %%desc %%process %%network %%signal "
					      "%%ipc %%memory %%creds %%clock %%stat)",
					      p);
				break;
			}
		} else {
			int nr = rn_syscall_lookup(p);
			const char *hint;

			if (nr < 0) {
				hint = suggest_syscall(p);
				if (hint)
					rc = rn_error("renacer trace: unknown syscall '%s' in -e trace= "
						      "(did you mean '%s'?)",
						      p, hint);
				else
					rc = rn_error("renacer trace: unknown syscall '%s' in -e trace=",
						      p);
				break;
			}
			set[nr] = true;
		}
	}
	free(copy);
	if (rc)
		return -1;
	if (negate)
		for (i = 0; i < n; i++)
			set[i] = !set[i];
	return 0;
}
