/* SPDX-License-Identifier: MIT */
/*
 * wpages_target.c - the process test_watch_pages reads: a reservation of
 * RES_PAGES PROT_NONE pages holding mappings at known offsets, kept apart
 * by the reservation's PROT_NONE pages, so the kernel merges none. Each is a
 * private mapping of a file of its own, DIR/wp-X (so that it has a name on
 * every kernel), written to only: a page touched is a private copy, and no
 * read fault maps neighbouring file pages:
 *
 *   A at A_OFF, A_PAGES pages, untouched;
 *   B at B_OFF, B_PAGES pages, every page touched;
 *   C at C_OFF, not mapped yet (reservation);
 *   D at D_OFF, D_PAGES pages, every page touched;
 *   X at X_OFF and Y at Y_OFF right after it (touching, two files: two
 *   mappings), untouched;
 *   E at E_OFF, E_PAGES pages of private anonymous memory, untouched.
 *
 * It writes "BASE PAGESIZE\n" (hex, decimal) to fd READY when set up, then
 * runs one command per byte read from fd CMD, answering each with a byte
 * on READY:
 *   's' the step: touch A's pages [8, 24), MADV_DONTNEED [12, 16) of them;
 *       munmap B; map C (C_PAGES pages) and touch its first 5; MADV_DONTNEED
 *       D's pages [2, 6).
 *   'c' touch A's pages [40, 48); 'd' MADV_DONTNEED them.
 *   'x' touch X's pages [2, 4) and Y's [0, 2): one run across the boundary.
 *   'r' replace X: munmap it, map private anonymous memory in its place
 *       (X_PAGES pages) and touch its page 3.
 *   'e' touch every other page of E (E_PAGES / 2 runs); 'E' MADV_DONTNEED E.
 *   'X' exec itself with the same arguments (no answer byte: the new
 *       program says "BASE PAGESIZE\n" again when it is set up).
 * It exits when CMD is closed.
 *
 * Before it says it is ready it runs the step once on a scratch copy of the
 * layout (and the other commands), so that every page of code and stack
 * they use is resident already and the test's diff sees only the pages the
 * step is about. Its own pages (code, data, stack, the C library) are
 * locked where they are faulted in (mlockall MCL_ONFAULT, before the
 * layout is mapped: the layout's mappings are new and not locked, so that
 * MADV_DONTNEED works on them), so that reclaim under memory pressure
 * cannot take one of them away during a test and add a change the test
 * does not expect. Where the lock is refused (RLIMIT_MEMLOCK), that risk
 * stays; the touched layout pages are anonymous (private copies), which
 * only swap could take. A
 * program of its own, never sanitized (a sanitizer maps memory of its own),
 * exec'd, so that no page is shared with the test by copy-on-write.
 *
 * Usage: wpages_target READY_FD CMD_FD DIR
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "wpages_layout.h"

static long page;
static const char *dir;
static const char *suffix = ""; /* the scratch copy's files are others */

/* DIR/NAME, PAGES long, mapped private at AT. */
static int map_at(char *at, long pages, const char *name)
{
	char path[4096];
	size_t n = strlen(dir);
	void *m;
	int fd;

	if (n + 1 + strlen(name) + strlen(suffix) >= sizeof(path))
		return -1;
	memcpy(path, dir, n);
	path[n] = '/';
	strcpy(path + n + 1, name);
	strcat(path, suffix);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	if (ftruncate(fd, pages * page) != 0) {
		close(fd);
		return -1;
	}
	m = mmap(at, (size_t)(pages * page), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd, 0);
	close(fd);
	if (m != at)
		return -1;
	/* Small pages only: a (multi-size) THP would make present more than was touched. */
	(void)madvise(at, (size_t)(pages * page), MADV_NOHUGEPAGE);
	return 0;
}

static void touch(char *at, long from, long to)
{
	for (long i = from; i < to; i++)
		((volatile char *)at)[i * page] = 1;
}

/* Private anonymous memory, PAGES long, at AT. */
static int map_anon(char *at, long pages)
{
	void *m = mmap(at, (size_t)(pages * page), PROT_READ | PROT_WRITE,
	               MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);

	if (m != at)
		return -1;
	(void)madvise(at, (size_t)(pages * page), MADV_NOHUGEPAGE);
	return 0;
}

/* The layout at BASE (a reservation), before the step. */
static int setup(char *base)
{
	if (map_at(base + A_OFF * page, A_PAGES, "wp-a") < 0 ||
	    map_at(base + B_OFF * page, B_PAGES, "wp-b") < 0 ||
	    map_at(base + D_OFF * page, D_PAGES, "wp-d") < 0 ||
	    map_at(base + X_OFF * page, X_PAGES, "wp-x") < 0 ||
	    map_at(base + Y_OFF * page, Y_PAGES, "wp-y") < 0 ||
	    map_anon(base + E_OFF * page, E_PAGES) < 0)
		return -1;
	touch(base + B_OFF * page, 0, B_PAGES);
	touch(base + D_OFF * page, 0, D_PAGES);
	return 0;
}

static int step(char *base)
{
	char *a = base + A_OFF * page, *d = base + D_OFF * page;

	touch(a, 8, 24);
	if (madvise(a + 12 * page, (size_t)(4 * page), MADV_DONTNEED) != 0)
		return -1;
	if (munmap(base + B_OFF * page, (size_t)(B_PAGES * page)) != 0)
		return -1;
	if (map_at(base + C_OFF * page, C_PAGES, "wp-c") < 0)
		return -1;
	touch(base + C_OFF * page, 0, 5);
	return madvise(d + 2 * page, (size_t)(4 * page), MADV_DONTNEED);
}

/* One command other than 's' and 'X' on the layout at BASE. Returns 0 or -1. */
static int run(char *base, char c)
{
	char *a = base + A_OFF * page, *e = base + E_OFF * page;

	switch (c) {
	case 'c':
		touch(a, 40, 48);
		return 0;
	case 'd':
		return madvise(a + 40 * page, (size_t)(8 * page), MADV_DONTNEED);
	case 'x':
		touch(base + X_OFF * page, 2, 4);
		touch(base + Y_OFF * page, 0, 2);
		return 0;
	case 'r':
		if (munmap(base + X_OFF * page, (size_t)(X_PAGES * page)) != 0 ||
		    map_anon(base + X_OFF * page, X_PAGES) < 0)
			return -1;
		touch(base + X_OFF * page, 3, 4);
		return 0;
	case 'e':
		for (long i = 0; i < E_PAGES; i += 2)
			touch(e, i, i + 1);
		return 0;
	case 'E':
		return madvise(e, (size_t)(E_PAGES * page), MADV_DONTNEED);
	}
	return -1;
}

static char *reserve(void)
{
	char *r = mmap(NULL, (size_t)(RES_PAGES * page), PROT_NONE,
	               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	return r == MAP_FAILED ? NULL : r;
}

/* "BASE PAGESIZE\n" without stdio. */
static int say(int fd, uintptr_t base)
{
	char buf[64];
	int n = 0, k;
	char tmp[24];

	k = 0;
	do
		tmp[k++] = "0123456789abcdef"[base & 15];
	while (base >>= 4);
	while (k)
		buf[n++] = tmp[--k];
	buf[n++] = ' ';
	k = 0;
	for (unsigned long p = (unsigned long)page; p; p /= 10)
		tmp[k++] = (char)('0' + p % 10);
	while (k)
		buf[n++] = tmp[--k];
	buf[n++] = '\n';
	return write(fd, buf, (size_t)n) == n ? 0 : -1;
}

int main(int argc, char **argv)
{
	int ready, cmd;
	char *scratch, *base, c;

	if (argc != 4)
		return 64;
	dir = argv[3];
	ready = atoi(argv[1]);
	cmd = atoi(argv[2]);
	page = sysconf(_SC_PAGESIZE);
	(void)mlockall(MCL_CURRENT | MCL_ONFAULT);
	scratch = reserve();
	base = reserve();
	if (!scratch || !base)
		return 1;
	/* The step once on the scratch copy: its code and stack pages resident now. */
	suffix = "-scratch";
	if (setup(scratch) < 0 || step(scratch) < 0)
		return 2;
	for (const char *p = "cdxreE"; *p; p++)
		if (run(scratch, *p) < 0)
			return 2;
	suffix = "";
	if (setup(base) < 0)
		return 3;
	if (say(ready, (uintptr_t)base) < 0)
		return 4;
	while (read(cmd, &c, 1) == 1) {
		int r;
		if (c == 'X') {
			execv("/proc/self/exe", argv);
			return 6;
		}
		r = c == 's' ? step(base) : run(base, c);
		if (write(ready, r == 0 ? "k" : "e", 1) != 1)
			return 5;
	}
	return 0;
}
