/* SPDX-License-Identifier: MIT */
/*
 * session_target.c - the process test_session reads: 10,000 one-page
 * mappings of alternating protection (read, read-write), which the kernel
 * cannot merge, the writable ones touched; then it says so on fd READY and
 * waits until fd RELEASE is closed. A program of its own, never sanitized
 * (a sanitizer's runtime maps memory of its own at times of its choosing),
 * and exec'd, so that no page is shared with the test by copy-on-write.
 *
 * Usage: session_target READY_FD RELEASE_FD
 */
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define NMAPS 10000

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE);
	int ready, release;
	char *base, b;

	if (argc != 3)
		return 64;
	ready = atoi(argv[1]);
	release = atoi(argv[2]);
	base = mmap(NULL, (size_t)page * NMAPS, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED)
		return 1;
	for (long i = 1; i < NMAPS; i += 2)
		if (mprotect(base + i * page, (size_t)page, PROT_READ | PROT_WRITE) != 0)
			return 2;
	for (long i = 1; i < NMAPS; i += 2)
		base[i * page] = 1; /* resident, so that the totals say something */
	if (write(ready, "r", 1) != 1)
		return 3;
	while (read(release, &b, 1) > 0)
		;
	return 0;
}
