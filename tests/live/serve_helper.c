/* SPDX-License-Identifier: MIT */
/*
 * serve_helper.c - the process tests/cli/serve_prom.py finds in pmaps
 * serve's /metrics and in a real Prometheus. It maps regions of known
 * sizes, touches them, says so and then holds still until its standard
 * input is closed:
 *
 *   A  ANON_PAGES pages of private anonymous memory, every page written;
 *   B  SPARSE_PAGES pages of private anonymous memory, every 4th written;
 *   C  SHMEM_PAGES pages of shared anonymous memory (shmem), every page written;
 *   D  NAMED_PAGES pages of private anonymous memory named [anon:serve-helper]
 *      (PR_SET_VMA_ANON_NAME, Linux >= 5.17 with CONFIG_ANON_VMA_NAME), every
 *      page written; where naming is refused it stays a plain anonymous mapping.
 *
 * With an argument, it names itself that (prctl PR_SET_NAME: the command
 * name, bytes of the test's choosing, as a hostile process would). It writes
 * one line, "PID PAGESIZE NAMED" (NAMED 1 when D has its name), and blocks
 * reading fd 0; at end of file it exits 0.
 *
 * Built -static (CMake), so that no shared library's page cache is mapped:
 * its pages are its own, mapped once, and its PSS, USS and mapping count stay
 * exactly still while other processes start and end. Transparent huge pages
 * are refused on every region (khugepaged would otherwise collapse B into a
 * huge page and change its RSS under the test), and its pages are locked
 * where it is allowed to (so that reclaim takes none away during a test).
 * A program of its own, never sanitized: a sanitizer maps memory of its own.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#define ANON_PAGES 1024  /* 4 MiB with 4 KiB pages */
#define SPARSE_PAGES 256 /* 64 of them touched */
#define SHMEM_PAGES 128
#define NAMED_PAGES 64

#ifndef PR_SET_VMA
#define PR_SET_VMA 0x53564d41
#define PR_SET_VMA_ANON_NAME 0
#endif

static char *region(size_t len, int flags)
{
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, flags | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		fprintf(stderr, "serve_helper: mmap: %s\n", strerror(errno));
		_exit(1);
	}
	/* Refused on shared memory by older kernels: only a hint there. */
	madvise(p, len, MADV_NOHUGEPAGE);
	return p;
}

static void touch(char *p, size_t len, size_t step)
{
	for (size_t i = 0; i < len; i += step)
		((volatile char *)p)[i] = 1;
}

int main(int argc, char **argv)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char *a, *b, *c, *d, buf[64];
	int named;
	ssize_t n;

	/* Ends with the test, however the test ends. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (argc > 1 && prctl(PR_SET_NAME, argv[1]) < 0)
		return 1;
	/* Locked where faulted in (refused under RLIMIT_MEMLOCK: then only less sure). */
	mlockall(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT);
	a = region(ANON_PAGES * page, MAP_PRIVATE);
	b = region(SPARSE_PAGES * page, MAP_PRIVATE);
	c = region(SHMEM_PAGES * page, MAP_SHARED);
	d = region(NAMED_PAGES * page, MAP_PRIVATE);
	named = prctl(PR_SET_VMA, PR_SET_VMA_ANON_NAME, (unsigned long)d, NAMED_PAGES * page,
	              (unsigned long)"serve-helper") == 0;
	touch(a, ANON_PAGES * page, page);
	touch(b, SPARSE_PAGES * page, 4 * page);
	touch(c, SHMEM_PAGES * page, page);
	touch(d, NAMED_PAGES * page, page);

	n = snprintf(buf, sizeof(buf), "%d %zu %d\n", (int)getpid(), page, named);
	if (write(1, buf, (size_t)n) != n)
		return 1;
	while ((n = read(0, buf, sizeof(buf))) != 0)
		if (n < 0 && errno != EINTR)
			return 1;
	return 0;
}
