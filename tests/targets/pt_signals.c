/*
 * pt_signals.c - signal delivery and restarts: a handled SIGUSR1, a read on a pipe interrupted
 * by SIGALRM with SA_RESTART (restarted: ERESTARTSYS) and without (EINTR), a nanosleep
 * interrupted by a handled SIGALRM (ERESTART_RESTARTBLOCK, then EINTR) and one interrupted,
 * under a tracer, by a SIGWINCH without handler (resumed through restart_syscall), a child
 * that stops itself (group-stop) and is continued, a child that dies by SIGSEGV and one
 * killed with SIGKILL.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t got;

static void handler(int sig)
{
	(void)sig;
	got++;
}

static void on(int sig, int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sa.sa_flags = flags;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

/* Read from a pipe that gets one byte 50 ms after an alarm at 20 ms. */
static void interrupted_read(int flags)
{
	int p[2];
	char c;
	pid_t w;

	on(SIGALRM, flags);
	if (pipe(p))
		exit(1);
	w = fork();
	if (w == 0) {
		struct timespec ts = { 0, 80 * 1000000 };

		nanosleep(&ts, NULL);
		if (write(p[1], "x", 1) != 1)
			_exit(1);
		_exit(0);
	}
	ualarm(20000, 0);
	if (read(p[0], &c, 1) < 0 && flags)
		exit(2);
	if (!flags && read(p[0], &c, 1) != 1)
		exit(3);
	waitpid(w, NULL, 0);
	close(p[0]);
	close(p[1]);
}

int main(void)
{
	struct timespec ts = { 0, 60 * 1000000 };
	sigset_t chld;
	pid_t pid;

	/* SIGCHLD arrives whenever a child changes state: left unblocked it would interrupt
	 * (and restart) a wait4 in some runs and not in others */
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL);

	on(SIGUSR1, 0);
	kill(getpid(), SIGUSR1);

	interrupted_read(SA_RESTART);
	interrupted_read(0);

	/* nanosleep interrupted by a handled signal: EINTR even with SA_RESTART */
	on(SIGALRM, SA_RESTART);
	ualarm(20000, 0);
	nanosleep(&ts, NULL);

	/* SIGWINCH without handler: ignored, but a tracer stops the sleeper to deliver it, and
	 * the kernel then resumes the sleep through restart_syscall */
	{
		struct sigevent sev;
		struct itimerspec its = { { 0, 0 }, { 0, 20 * 1000000 } };
		timer_t tm;

		memset(&sev, 0, sizeof(sev));
		sev.sigev_notify = SIGEV_SIGNAL;
		sev.sigev_signo = SIGWINCH;
		if (timer_create(CLOCK_MONOTONIC, &sev, &tm) || timer_settime(tm, 0, &its, NULL))
			return 1;
		nanosleep(&ts, NULL);
		timer_delete(tm);
	}

	/* group-stop: the child stops itself; the parent continues it */
	pid = fork();
	if (pid == 0) {
		raise(SIGSTOP);
		_exit(7);
	}
	waitpid(pid, NULL, WUNTRACED);
	kill(pid, SIGCONT);
	waitpid(pid, NULL, 0);

	pid = fork();
	if (pid == 0) {
		volatile int *p = NULL;

		signal(SIGSEGV, SIG_DFL);
		return *p;
	}
	waitpid(pid, NULL, 0);

	/* killed once it is certainly in pause(), so every run makes the same calls */
	{
		int p[2];
		char c;

		if (pipe(p))
			return 1;
		pid = fork();
		if (pid == 0) {
			if (write(p[1], "r", 1) != 1)
				_exit(1);
			pause();
			_exit(0);
		}
		if (read(p[0], &c, 1) != 1)
			return 1;
		usleep(20000);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	return got == 4 ? 0 : 10 + got;
}
