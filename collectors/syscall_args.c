#include "syscall_args.h"

#include <stddef.h>

#include "syscall_names.h"
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

/* clang-format off: a table of syscall names and argument kinds, three to a row */
static const struct sysent sysents[] = {
	{ "read", "fxu" },
	{ "write", "fxu" },
	{ "open", "pom" },
	{ "close", "f" },
	{ "stat", "px" },
	{ "fstat", "fx" },
	{ "lstat", "px" },
	{ "poll", "xui" },
	{ "lseek", "fii" },
	{ "mmap", "xuPMfu" },
	{ "mprotect", "xuP" },
	{ "munmap", "xu" },
	{ "brk", "x" },
	{ "rt_sigaction", "sxxu" },
	{ "rt_sigprocmask", "ixxu" },
	{ "rt_sigreturn", "" },
	{ "ioctl", "fxx" },
	{ "pread64", "fxui" },
	{ "pwrite64", "fxui" },
	{ "readv", "fxi" },
	{ "writev", "fxi" },
	{ "access", "pa" },
	{ "pipe", "x" },
	{ "select", "ixxxx" },
	{ "sched_yield", "" },
	{ "mremap", "xuuxx" },
	{ "msync", "xux" },
	{ "mincore", "xux" },
	{ "madvise", "xui" },
	{ "dup", "f" },
	{ "dup2", "ff" },
	{ "pause", "" },
	{ "nanosleep", "xx" },
	{ "getitimer", "ix" },
	{ "alarm", "u" },
	{ "setitimer", "ixx" },
	{ "getpid", "" },
	{ "sendfile", "ffxu" },
	{ "socket", "iii" },
	{ "connect", "fxu" },
	{ "accept", "fxx" },
	{ "sendto", "fxuixu" },
	{ "recvfrom", "fxuixx" },
	{ "sendmsg", "fxx" },
	{ "recvmsg", "fxx" },
	{ "shutdown", "fi" },
	{ "bind", "fxu" },
	{ "listen", "fi" },
	{ "getsockname", "fxx" },
	{ "getpeername", "fxx" },
	{ "socketpair", "iiix" },
	{ "setsockopt", "fiixu" },
	{ "getsockopt", "fiixx" },
	{ "clone", "xxxxx" },
	{ "fork", "" },
	{ "vfork", "" },
	{ "execve", "pve" },
	{ "exit", "i" },
	{ "wait4", "ixxx" },
	{ "kill", "is" },
	{ "uname", "x" },
	{ "fcntl", "fix" },
	{ "flock", "fi" },
	{ "fsync", "f" },
	{ "fdatasync", "f" },
	{ "truncate", "pi" },
	{ "ftruncate", "fi" },
	{ "getdents", "fxu" },
	{ "getcwd", "xu" },
	{ "chdir", "p" },
	{ "fchdir", "f" },
	{ "rename", "pp" },
	{ "mkdir", "pm" },
	{ "rmdir", "p" },
	{ "creat", "pm" },
	{ "link", "pp" },
	{ "unlink", "p" },
	{ "symlink", "xp" },
	{ "readlink", "pxu" },
	{ "chmod", "pm" },
	{ "fchmod", "fm" },
	{ "chown", "pii" },
	{ "fchown", "fii" },
	{ "lchown", "pii" },
	{ "umask", "m" },
	{ "gettimeofday", "xx" },
	{ "getrlimit", "ix" },
	{ "getrusage", "ix" },
	{ "sysinfo", "x" },
	{ "times", "x" },
	{ "getuid", "" },
	{ "getgid", "" },
	{ "setuid", "i" },
	{ "setgid", "i" },
	{ "geteuid", "" },
	{ "getegid", "" },
	{ "setpgid", "ii" },
	{ "getppid", "" },
	{ "getpgrp", "" },
	{ "setsid", "" },
	{ "rt_sigpending", "xu" },
	{ "rt_sigtimedwait", "xxxu" },
	{ "rt_sigsuspend", "xu" },
	{ "sigaltstack", "xx" },
	{ "utime", "px" },
	{ "mknod", "pmu" },
	{ "statfs", "px" },
	{ "fstatfs", "fx" },
	{ "chroot", "p" },
	{ "acct", "p" },
	{ "mount", "ppxux" },
	{ "umount2", "pi" },
	{ "swapon", "pi" },
	{ "swapoff", "p" },
	{ "gettid", "" },
	{ "setxattr", "pxxui" },
	{ "lsetxattr", "pxxui" },
	{ "getxattr", "pxxu" },
	{ "lgetxattr", "pxxu" },
	{ "listxattr", "pxu" },
	{ "llistxattr", "pxu" },
	{ "removexattr", "px" },
	{ "lremovexattr", "px" },
	{ "tkill", "is" },
	{ "time", "x" },
	{ "futex", "xixxxi" },
	{ "sched_setaffinity", "iux" },
	{ "sched_getaffinity", "iux" },
	{ "getdents64", "fxu" },
	{ "set_tid_address", "x" },
	{ "restart_syscall", "" },
	{ "fadvise64", "fiui" },
	{ "clock_gettime", "ix" },
	{ "clock_getres", "ix" },
	{ "clock_nanosleep", "iixx" },
	{ "exit_group", "i" },
	{ "epoll_wait", "fxii" },
	{ "epoll_ctl", "fifx" },
	{ "tgkill", "iis" },
	{ "utimes", "px" },
	{ "waitid", "iixix" },
	{ "inotify_add_watch", "fpx" },
	{ "openat", "dpom" },
	{ "mkdirat", "dpm" },
	{ "mknodat", "dpmu" },
	{ "fchownat", "dpiiA" },
	{ "futimesat", "dpx" },
	{ "newfstatat", "dpxA" },
	{ "unlinkat", "dpA" },
	{ "renameat", "dpdp" },
	{ "linkat", "dpdpA" },
	{ "symlinkat", "xdp" },
	{ "readlinkat", "dpxu" },
	{ "fchmodat", "dpm" },
	{ "faccessat", "dpa" },
	{ "pselect6", "ixxxxx" },
	{ "ppoll", "xuxxu" },
	{ "set_robust_list", "xu" },
	{ "splice", "fxfxux" },
	{ "utimensat", "dpxA" },
	{ "epoll_pwait", "fxiixu" },
	{ "eventfd2", "ui" },
	{ "epoll_create1", "i" },
	{ "dup3", "ffo" },
	{ "pipe2", "xo" },
	{ "accept4", "fxxi" },
	{ "prlimit64", "iixx" },
	{ "name_to_handle_at", "dpxxA" },
	{ "syncfs", "f" },
	{ "getrandom", "xux" },
	{ "memfd_create", "xx" },
	{ "execveat", "dpveA" },
	{ "copy_file_range", "fxfxux" },
	{ "statx", "dpAux" },
	{ "rseq", "xuix" },
	{ "pidfd_open", "iu" },
	{ "clone3", "xu" },
	{ "close_range", "uuu" },
	{ "openat2", "dpxu" },
	{ "faccessat2", "dpaA" },
	{ "renameat2", "dpdpu" },
	{ "fchmodat2", "dpmA" },
	{ "arch_prctl", "ix" },
	{ "prctl", "ixxxx" },
	{ "umount", "p" },
	{ "sendmmsg", "fxui" },
	{ "recvmmsg", "fxuix" },
	{ "fanotify_mark", "fuxdp" },
	{ "pivot_root", "pp" },
	{ "uselib", "p" },
	{ "getpgid", "i" },
	{ "getsid", "i" },
	{ "fstatfs64", "fux" },
	{ "statfs64", "pux" },
};
/* clang-format on */

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

const char *rn_syscall_signature(int nr)
{
	sysent_init();
	if (nr < 0 || nr >= rn_syscall_table_size())
		return NULL;
	return sig_by_nr[nr];
}
