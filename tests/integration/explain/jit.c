/*
 * jit.c - the explain tests' JIT target (tests/integration/explain/explain_test.sh jit): it
 * compiles a spin loop at run time, as a JIT does. The machine code is copied into an
 * anonymous read-write page, which is then made read-execute; /tmp/perf-PID.map names the
 * region jit_spin_loop (Linux perf's tools/perf/Documentation/jit-interface.txt), and
 * main() spins ROUNDS rounds of 1e6 iterations in it. The pid is appended to perfmap.pids in
 * the working directory, so the test can remove the map files its runs wrote.
 *
 * Built with -DPY_TRAMPOLINE, it has the shape of CPython 3.12's perf trampolines instead: the
 * region, named "py::hot_loop:/app/spin.py", is a trampoline that calls the C function
 * _PyEval_EvalFrameDefault, which spins (an interpreter internal by its name).
 *
 * x86-64 only: elsewhere it exits 77.
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__x86_64__)
#ifdef PY_TRAMPOLINE
/* long tramp(long n, long (*eval)(long)): calls eval(n) in a frame of its own */
static const unsigned char jit_code[] = {
	0x55,             /* push %rbp */
	0x48, 0x89, 0xe5, /* mov %rsp,%rbp */
	0xff, 0xd6,       /* call *%rsi */
	0x5d,             /* pop %rbp */
	0xc3,             /* ret */
};
#define JIT_NAME "py::hot_loop:/app/spin.py"

/* The interpreter's frame evaluation, by name (rn_frame_is_system: a "_Py" function). Its
 * counter lives on the stack, so GCC gives it a frame (the walk then keeps the trampoline). */
__attribute__((noinline)) long _PyEval_EvalFrameDefault(long n);
__attribute__((noinline)) long _PyEval_EvalFrameDefault(long n)
{
	volatile long acc = 0;

	for (long i = 0; i < n; i++)
		acc += i;
	return acc;
}
#else
/* long spin(long n): counts n down to 0 in a frame of its own (rbp kept, as V8's frames), so
 * the kernel's frame-pointer walk goes on to main(). n must be > 0. */
static const unsigned char jit_code[] = {
	0x55,             /* push %rbp */
	0x48, 0x89, 0xe5, /* mov %rsp,%rbp */
	0x48, 0x89, 0xf8, /* mov %rdi,%rax */
	0x48, 0xff, 0xc8, /* 1: dec %rax */
	0x75, 0xfb,       /* jnz 1b */
	0x5d,             /* pop %rbp */
	0xc3,             /* ret */
};
#define JIT_NAME "jit_spin_loop"
#endif

static long (*spin)(long, long (*)(long));

__attribute__((noinline)) static void write_map(void *code, size_t size)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	f = fopen(path, "w");
	if (!f)
		return;
	/* START and SIZE in hex without 0x, as perf's jit-interface.txt shows them */
	fprintf(f, "%lx %zx " JIT_NAME "\n", (unsigned long)code, size);
	fclose(f);
	f = fopen("perfmap.pids", "a");
	if (f) {
		fprintf(f, "%d\n", (int)getpid());
		fclose(f);
	}
}

int main(void)
{
	long page = sysconf(_SC_PAGESIZE);
	void *code = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);

	if (code == MAP_FAILED)
		return 1;
	memcpy(code, jit_code, sizeof(jit_code));
	if (mprotect(code, (size_t)page, PROT_READ | PROT_EXEC))
		return 1;
	write_map(code, sizeof(jit_code));
	spin = (long (*)(long, long (*)(long)))code;
	for (long r = 0; r < ROUNDS; r++)
#ifdef PY_TRAMPOLINE
		spin(1000000, _PyEval_EvalFrameDefault);
#else
		spin(1000000, NULL);
#endif
	return 0;
}
#else
int main(void)
{
	return 77;
}
#endif
