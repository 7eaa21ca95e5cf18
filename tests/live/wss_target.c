/* SPDX-License-Identifier: MIT */
/*
 * wss_target.c - a process whose working set is known: three anonymous
 * mappings in base pages (no THP), apart from each other and from
 * everything else by an inaccessible page on each side:
 *   W  WPAGES pages, each written at every touch;
 *   R  RPAGES pages, written once at the start, then each read at every
 *      touch (the mapping read-only by then);
 *   I  IPAGES pages, written once at the start and never touched again.
 * A touch first drops the CPU's cached translations of W and R (an
 * mprotect() there and back: the kernel flushes them), as a program at
 * work has them dropped by its other memory traffic. The kernel does not
 * flush them when the referenced bits are reset (clear_refs), and a touch
 * through a cached translation sets no accessed bit: a program that touches
 * W right after a reset, with W's translations still cached from before,
 * shows W untouched (pmaps(1), wss: what a reset cannot see). Seen here: a
 * touch right after the reset without the flush showed 0 of W's 4 MiB in
 * three rounds of four.
 * It prints "W START END", "R START END", "I START END" (hex) and "ready",
 * then obeys lines on standard input:
 *   t          touch W and R once, then answer "t"
 *   loop MS    touch them every MS milliseconds from now on (no answer)
 *   exec PATH  exec PATH (no arguments)
 *   thread     go on in a new thread, the one that read it ending
 *              (pthread_exit(): from the main thread, the process lives
 *              on with its main thread gone); answers "thread" from the new
 *   q          exit 0
 * A program of its own, never sanitized (a sanitizer's runtime touches
 * memory of its own), and exec'd, so that nothing is shared with the test.
 *
 * Usage: wss_target
 */
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define WPAGES 1024
#define RPAGES 512
#define IPAGES 768

static long page;
static char *w, *r, *idle;

/* N pages between two inaccessible ones, in base pages. */
static char *region(long n)
{
	char *p = mmap(NULL, (size_t)(n + 2) * (size_t)page, PROT_NONE,
	               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		exit(1);
	p += page;
	if (mprotect(p, (size_t)n * (size_t)page, PROT_READ | PROT_WRITE) != 0)
		exit(2);
	(void)madvise(p, (size_t)n * (size_t)page, MADV_NOHUGEPAGE);
	for (long i = 0; i < n; i++)
		p[i * page] = 1;
	return p;
}

static volatile char sink;

/* Drops the cached translations of N pages at P, whose protection is PROT. */
static void drop_tlb(char *p, long n, int prot)
{
	if (mprotect(p, (size_t)n * (size_t)page, PROT_NONE) != 0 ||
	    mprotect(p, (size_t)n * (size_t)page, prot) != 0)
		exit(6);
}

static void touch(void)
{
	drop_tlb(w, WPAGES, PROT_READ | PROT_WRITE);
	drop_tlb(r, RPAGES, PROT_READ);
	for (long i = 0; i < WPAGES; i++)
		w[i * page]++;
	for (long i = 0; i < RPAGES; i++)
		sink = (char)(sink + r[i * page]);
}

static void *commands(void *arg);

static long ms = -1;

int main(void)
{
	page = sysconf(_SC_PAGESIZE);
	w = region(WPAGES);
	r = region(RPAGES);
	idle = region(IPAGES);
	if (mprotect(r, (size_t)RPAGES * (size_t)page, PROT_READ) != 0)
		return 3;
	printf("W %lx %lx\nR %lx %lx\nI %lx %lx\nready\n", (unsigned long)w,
	       (unsigned long)(w + WPAGES * page), (unsigned long)r,
	       (unsigned long)(r + RPAGES * page), (unsigned long)idle,
	       (unsigned long)(idle + IPAGES * page));
	fflush(stdout);
	commands(NULL);
	return 0;
}

static void *commands(void *arg)
{
	char line[4200];

	if (arg) {
		printf("thread\n");
		fflush(stdout);
	}
	for (;;) {
		struct pollfd pfd = {0, POLLIN, 0};
		int n = poll(&pfd, 1, ms < 0 ? -1 : (int)ms);

		if (n == 0) {
			touch();
			continue;
		}
		if (!fgets(line, sizeof(line), stdin))
			exit(0);
		line[strcspn(line, "\n")] = '\0';
		if (strcmp(line, "t") == 0) {
			touch();
			printf("t\n");
			fflush(stdout);
		} else if (strncmp(line, "loop ", 5) == 0) {
			ms = atol(line + 5);
			touch();
		} else if (strncmp(line, "exec ", 5) == 0) {
			execl(line + 5, line + 5, (char *)NULL);
			exit(4);
		} else if (strcmp(line, "thread") == 0) {
			pthread_t t;
			if (pthread_create(&t, NULL, commands, &ms) != 0)
				exit(7);
			pthread_exit(NULL);
		} else if (strcmp(line, "q") == 0) {
			exit(0);
		}
	}
}
