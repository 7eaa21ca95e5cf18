/* SPDX-License-Identifier: MIT */
/*
 * layout.c - a process with a known memory layout, for the live tests.
 *
 * Each region sits between PROT_NONE guard pages so the kernel never merges
 * it with a neighbour. On standard output, one line per region:
 *   NAME START END
 * then "names 0|1" (whether PR_SET_VMA_ANON_NAME worked), then "ready".
 * It then blocks until standard input closes, and exits.
 *
 *   touched3  64 pages, every 3rd touched (pages 0, 3, ..., 63: 22 pages)
 *   lazyfree  32 pages touched, the last 16 freed with MADV_FREE
 *   dontneed  16 pages touched, the last 8 dropped with MADV_DONTNEED
 *   file      a 16-page file (written, synced), mapped private read-only, all read
 *   memfd     8 pages of a memfd mapped shared, the first 4 touched
 *   named     4 pages, named "pmaps-test" where the kernel supports names, 2 touched
 *   zero      8 pages read but never written (the shared zero page; private pages
 *             where the kernel maps none: tests/zero_page.h)
 *   shared    8 pages MAP_SHARED|MAP_ANONYMOUS, all touched, also mapped by a child
 *             (forked before any other region exists, so it shares nothing else)
 *   mlocked   4 pages, touched and mlock()ed
 *   filepart  a 16-page file dropped from the page cache, mapped with MADV_RANDOM,
 *             pages 0, 5, 10 and 15 read: 4 pages in memory
 *   thp       4 MiB at a 2 MiB boundary, MADV_HUGEPAGE, all touched (THP where granted)
 * plus THREADS threads (argument 1, default 2) that each malloc() 4 x 64 KiB
 * (a glibc arena each) and block on standard input.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef PR_SET_VMA
#define PR_SET_VMA 0x53564d41
#define PR_SET_VMA_ANON_NAME 0
#endif

static long page;

static void die(const char *what)
{
	fprintf(stderr, "layout: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* Maps N pages between two guard pages; FD < 0 for anonymous memory. */
static char *region(size_t n, int prot, int flags, int fd)
{
	char *g = mmap(NULL, (n + 2) * (size_t)page, PROT_NONE,
	               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	char *r;

	if (g == MAP_FAILED)
		die("mmap guard");
	r = mmap(g + page, n * (size_t)page, prot, flags | MAP_FIXED, fd, 0);
	if (r == MAP_FAILED)
		die("mmap region");
	return r;
}

static void show(const char *name, const char *p, size_t n)
{
	printf("%s %lx %lx\n", name, (unsigned long)(uintptr_t)p,
	       (unsigned long)(uintptr_t)(p + n * (size_t)page));
}

static void *blocked(void *arg)
{
	char c;
	(void)arg;
	while (read(0, &c, 1) > 0)
		;
	return NULL;
}

/* A thread's first malloc() gives it a glibc arena of its own; the memory is kept. */
static void *mallocing(void *arg)
{
	char *p[4];
	for (int i = 0; i < 4; i++) {
		p[i] = malloc(64 << 10);
		if (!p[i])
			die("malloc");
		memset(p[i], 1, 64 << 10);
	}
	blocked(arg);
	for (int i = 0; i < 4; i++)
		free(p[i]);
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 2;
	char path[] = "/tmp/pmaps-layout.XXXXXX";
	char *a, *b, *c, *f, *m, *n, *z, *sh, *ml, *fp, *thp, buf[4096];
	pid_t kid;
	int sync[2];
	pthread_t t;
	int fd, named;

	page = sysconf(_SC_PAGESIZE);
	/* First, and shared with a child that holds it and nothing else. */
	sh = region(8, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1);
	memset(sh, 7, 8 * (size_t)page);
	if (pipe(sync))
		die("pipe");
	kid = fork();
	if (kid < 0)
		die("fork");
	if (kid == 0) {
		/* fork() copies no page tables of a shared mapping: fault them in. */
		for (int i = 0; i < 8; i++)
			(void)*(volatile char *)(sh + i * page);
		if (write(sync[1], "k", 1) != 1)
			_exit(1);
		blocked(NULL); /* until standard input closes, like the parent */
		_exit(0);
	}
	close(sync[1]);
	if (read(sync[0], buf, 1) != 1) /* the child holds the pages now */
		die("child");
	close(sync[0]);
	a = region(64, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1);
	for (int i = 0; i < 64; i += 3)
		a[i * page] = 1;
	b = region(32, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1);
	memset(b, 2, 32 * (size_t)page);
	if (madvise(b + 16 * page, 16 * (size_t)page, MADV_FREE))
		die("MADV_FREE");
	c = region(16, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1);
	memset(c, 3, 16 * (size_t)page);
	if (madvise(c + 8 * page, 8 * (size_t)page, MADV_DONTNEED))
		die("MADV_DONTNEED");

	fd = mkstemp(path);
	if (fd < 0)
		die("mkstemp");
	unlink(path);
	memset(buf, 4, sizeof(buf));
	for (int i = 0; i < 16; i++)
		if (write(fd, buf, (size_t)page) != page)
			die("write");
	if (fsync(fd))
		die("fsync"); /* clean page cache pages: Private_Clean, not Dirty */
	f = region(16, PROT_READ, MAP_PRIVATE, fd);
	for (int i = 0; i < 16; i++)
		(void)*(volatile char *)(f + i * page);
	close(fd);

	fd = memfd_create("pmaps-test", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, 8 * page))
		die("memfd");
	m = region(8, PROT_READ | PROT_WRITE, MAP_SHARED, fd);
	memset(m, 5, 4 * (size_t)page);
	close(fd);

	n = region(4, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1);
	named = prctl(PR_SET_VMA, PR_SET_VMA_ANON_NAME, (unsigned long)n, 4 * page,
	              (unsigned long)"pmaps-test") == 0;
	memset(n, 6, 2 * (size_t)page);

	z = region(8, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1);
	for (int i = 0; i < 8; i++)
		(void)*(volatile char *)(z + i * page);

	ml = region(4, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1);
	memset(ml, 8, 4 * (size_t)page);
	/* The system call itself: ASan's mlock() does nothing, by design. */
	if (syscall(SYS_mlock, ml, 4 * (size_t)page))
		die("mlock");

	{
		char fpath[] = "/tmp/pmaps-layout.XXXXXX";
		fd = mkstemp(fpath);
		if (fd < 0)
			die("mkstemp");
		unlink(fpath);
		for (int i = 0; i < 16; i++)
			if (write(fd, buf, (size_t)page) != page)
				die("write");
		if (fsync(fd) || posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED))
			die("fsync/fadvise"); /* clean, then out of the page cache */
		fp = region(16, PROT_READ, MAP_PRIVATE, fd);
		if (madvise(fp, 16 * (size_t)page, MADV_RANDOM))
			die("MADV_RANDOM"); /* no readahead: a fault reads its page only */
		for (int i = 0; i < 16; i += 5)
			(void)*(volatile char *)(fp + i * page);
		close(fd);
	}

	{
		size_t huge = 2u << 20;
		char *raw = mmap(NULL, 3 * huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		                 -1, 0);
		if (raw == MAP_FAILED)
			die("mmap thp");
		thp = (char *)(((uintptr_t)raw + huge - 1) & ~(uintptr_t)(huge - 1));
		/* Guards around it, so it stays its own VMA. */
		mprotect(raw, (size_t)(thp - raw) ? (size_t)(thp - raw) : 0, PROT_NONE);
		if (thp + 2 * huge < raw + 3 * huge)
			mprotect(thp + 2 * huge, (size_t)(raw + 3 * huge - (thp + 2 * huge)), PROT_NONE);
		madvise(thp, 2 * huge, MADV_HUGEPAGE);
		memset(thp, 9, 2 * huge);
	}

	for (int i = 0; i < threads; i++)
		if (pthread_create(&t, NULL, mallocing, NULL))
			die("pthread_create");

	show("touched3", a, 64);
	show("lazyfree", b, 32);
	show("dontneed", c, 16);
	show("file", f, 16);
	show("memfd", m, 8);
	show("named", n, 4);
	show("zero", z, 8);
	show("shared", sh, 8);
	show("mlocked", ml, 4);
	show("filepart", fp, 16);
	show("thp", thp, 1024);
	printf("names %d\nready\n", named);
	fflush(stdout);
	blocked(NULL);
	waitpid(kid, NULL, 0);
	return 0;
}
