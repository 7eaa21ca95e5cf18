/* SPDX-License-Identifier: MIT */
/*
 * zero_page.h - what this kernel maps for a read fault on untouched private
 * anonymous memory, asked of the kernel itself, not of libpmaps: the shared
 * zero page (Linux's default: the page table maps it, Rss does not count
 * it), or a private page of the process's own (present, exclusive,
 * anonymous, counted in Rss), as a kernel booted with pvm_no_zero_page=1
 * gives. The live tests expect exactly what the kernel maps, either way.
 *
 * The probe maps fresh memory in the calling process, reads every page and
 * reads that mapping's Rss in /proc/self/smaps: 0 kB, the zero page; the
 * whole region, private pages. Anything between fails the test.
 *
 * zero_page_mapped(): 16 pages with MADV_NOHUGEPAGE, as layout.c's "zero"
 * region (8 pages between guards: never a THP).
 * huge_zero_page_mapped(): 2 MiB at a 2 MiB boundary with MADV_HUGEPAGE,
 * read once per 4 KiB page, as the live tests' targets read theirs: the
 * huge zero page where THP and its use_zero_page are on, the 4 KiB zero
 * page where THP is off, and a THP (or private 4 KiB pages) where the
 * kernel maps no zero page.
 *
 * Each prints one line naming the case, for the reader of a CI log.
 * Include after <cmocka.h>.
 */
#ifndef PMAPS_TESTS_ZERO_PAGE_H
#define PMAPS_TESTS_ZERO_PAGE_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

/* Rss and AnonHugePages (kB) of the mapping of /proc/self/smaps that holds ADDR. */
static inline void zero_page__smaps(uintptr_t addr, unsigned long long *rss,
                                    unsigned long long *ahp)
{
	char line[512];
	int in = 0, got = 0;
	FILE *f = fopen("/proc/self/smaps", "re");

	if (!f) {
		fail_msg("zero page probe: /proc/self/smaps: %s", strerror(errno));
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long s, e;
		if (sscanf(line, "%lx-%lx ", &s, &e) == 2) { /* a mapping's first line */
			in = addr >= s && addr < e;
			continue;
		}
		if (in && sscanf(line, "Rss: %llu kB", rss) == 1)
			got |= 1;
		if (in && sscanf(line, "AnonHugePages: %llu kB", ahp) == 1)
			got |= 2;
	}
	fclose(f);
	if (!(got & 1))
		fail_msg("zero page probe: no Rss for %#lx in /proc/self/smaps", (unsigned long)addr);
	if (!(got & 2))
		*ahp = 0;
}

/*
 * Reads every page of LEN bytes at P, then its Rss: 1 when none is counted
 * (the zero page), 0 when all are (private pages). WHAT names the case.
 */
static inline int zero_page__read(char *p, size_t len, const char *what)
{
	unsigned long long rss = 0, ahp = 0, kb = len >> 10;

	for (size_t i = 0; i < len; i += 4096)
		(void)*(volatile char *)(p + i);
	zero_page__smaps((uintptr_t)p, &rss, &ahp);
	/* Flushed at once: a child forked next must not inherit the line to print. */
	if (rss == 0) {
		printf("%s: a read fault maps the zero page (Rss 0 of %llu kB read)\n", what, kb);
		fflush(stdout);
		return 1;
	}
	if (rss == kb) {
		printf("%s: this kernel maps no zero page: a read fault maps private pages (Rss %llu "
		       "of %llu kB read, AnonHugePages %llu kB)\n", what, rss, kb, ahp);
		fflush(stdout);
		return 0;
	}
	fail_msg("%s: Rss %llu kB of %llu kB read: want 0 (zero page) or %llu (private pages)", what,
	         rss, kb, kb);
	return -1;
}

/* 1: a read of private anonymous memory maps the 4 KiB zero page; 0: a private page. */
static inline int zero_page_mapped(void)
{
	size_t len = 16 * 4096;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int r;

	if (p == MAP_FAILED || madvise(p, len, MADV_NOHUGEPAGE) != 0)
		fail_msg("zero page probe: mmap/madvise: %s", strerror(errno));
	r = zero_page__read(p, len, "zero page");
	munmap(p, len);
	return r;
}

/*
 * 1: a read of 2 MiB-aligned MADV_HUGEPAGE memory maps a zero page (the huge
 * one where THP gives it); 0: private pages (a THP where THP is on).
 */
static inline int huge_zero_page_mapped(void)
{
	size_t huge = 2u << 20, len = 3 * huge;
	char *raw = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *p;
	int r;

	if (raw == MAP_FAILED)
		fail_msg("huge zero page probe: mmap: %s", strerror(errno));
	p = (char *)(((uintptr_t)raw + huge - 1) & ~(uintptr_t)(huge - 1));
	/*
	 * Unchecked, as the targets do (a kernel without THP refuses it). Taken,
	 * it splits the VMA; either way only these 2 MiB of it are read.
	 */
	(void)madvise(p, huge, MADV_HUGEPAGE);
	r = zero_page__read(p, huge, "huge zero page");
	munmap(raw, len);
	return r;
}

#endif
