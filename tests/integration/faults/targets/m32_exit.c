/*
 * m32_exit - a 32-bit (i386) program: writes a line and exits 0 through int $0x80.
 * Built by faults_test.sh with gcc -m32 -nostdlib (no 32-bit libc needed).
 */
void _start(void);

void _start(void)
{
	static const char msg[] = "i386\n";

	__asm__ volatile("int $0x80" : : "a"(4), "b"(1), "c"(msg), "d"(sizeof(msg) - 1) : "memory");
	__asm__ volatile("int $0x80" : : "a"(1), "b"(0) : "memory");
	for (;;)
		;
}
