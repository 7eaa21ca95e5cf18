/* SPDX-License-Identifier: MIT */
/*
 * exit3.c - a command that exits with status 3 as soon as it starts
 * (tests/cli/watch_test.py): on x86-64 a static program with no C library,
 * whose whole life is one system call, so that it can end before pmaps run
 * has done anything after its fork. Elsewhere an ordinary main().
 */
#if defined(__x86_64__)
void _start(void);

void _start(void)
{
	__asm__ volatile("mov $60, %eax\n\tmov $3, %edi\n\tsyscall");
}
#else
int main(void)
{
	return 3;
}
#endif
