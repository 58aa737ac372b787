/*
 * pt_int80.c - a 64-bit program that makes one i386 system call through int $0x80 (getpid,
 * number 20 in the i386 table): the tracer sees AUDIT_ARCH_I386 and must report it as
 * unsupported rather than count it under the x86_64 name of number 20 (writev).
 */
#include <unistd.h>

int main(void)
{
#if defined(__x86_64__)
	long ret;

	getppid();
	__asm__ volatile("int $0x80" : "=a"(ret) : "a"(20L) : "memory");
	return ret > 0 ? 0 : 1;
#else
	return 77;
#endif
}
