/* SPDX-License-Identifier: MIT */
/*
 * test_pages.c - the page cursor on a synthetic pagemap in a fixture tree
 * (swapped, soft-dirty, uffd-wp and guard entries this machine cannot make; the
 * zero pages as pagemap and kpageflags show them),
 * seek rounding, read faults and allocations.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "internal.h"
#include "testhooks.h"
#include "../expect.h"
#include "../count_alloc.h"

struct want {
	uint64_t start, end;
	unsigned flags;
};

static struct pmaps_proc *fixture(void)
{
	struct pmaps_proc *p;
	char root[4096];

	snprintf(root, sizeof(root), "%s/pages/proc", PMAPS_TEST_DATA);
	assert_int_equal(pmaps_proc_open(&p, root, "300"), 0);
	return p;
}

static void expect_runs(struct pmaps_pages *c, uint64_t start, uint64_t end,
                        const struct want *w, size_t n)
{
	const struct pmaps_page_range *r;
	size_t i = 0;
	int rc;

	assert_int_equal(pmaps_pages_seek(c, start, end), 0);
	while ((rc = pmaps_pages_next(c, &r)) > 0) {
		expect_lt(i, n);
		assert_int_equal(r->start, w[i].start);
		assert_int_equal(r->end, w[i].end);
		assert_int_equal(r->flags, w[i].flags);
		i++;
	}
	assert_int_equal(rc, 0);
	assert_int_equal(i, n);
	assert_int_equal(pmaps_pages_next(c, &r), 0);
}

#define P PMAPS_PG_PRESENT
#define S PMAPS_PG_SWAPPED
#define F PMAPS_PG_FILE
#define E PMAPS_PG_EXCLUSIVE
#define D PMAPS_PG_SOFT_DIRTY
#define U PMAPS_PG_UFFD_WP
#define G PMAPS_PG_GUARD

static void test_fixture_runs(void **state)
{
	struct pmaps_proc *p = fixture();
	struct pmaps_pages *c;
	static const struct want prog[] = {
		{0x400000, 0x40a000, P | F},
		{0x40a000, 0x410000, 0},
	};
	static const struct want heap[] = {
		{0x600000, 0x602000, P | E | D},
		{0x602000, 0x604000, S},
		{0x604000, 0x605000, P | E},
		{0x605000, 0x606000, P | E | U},
		{0x606000, 0x608000, 0},
	};
	static const struct want anon[] = {
		{0x1000000, 0x1002000, G},
		{0x1002000, 0x1004000, P | E},
	};
	(void)state;

	/* AUTO on a regular file: PAGEMAP_SCAN is refused, pagemap it is. */
	assert_int_equal(pmaps_pages_open(&c, p, PMAPS_PAGES_AUTO, 0), 0);
	assert_int_equal(pmaps_pages_strategy(c), PMAPS_PAGES_PAGEMAP);
	expect_runs(c, 0x400000, 0x410000, prog, 2);
	expect_runs(c, 0x600000, 0x608000, heap, 5);
	expect_runs(c, 0x1000000, 0x1004000, anon, 2);
	/* Unaligned ends round out to pages; a run is cut at the range's ends. */
	static const struct want cut[] = {{0x601000, 0x602000, P | E | D}, {0x602000, 0x603000, S}};
	expect_runs(c, 0x601fff, 0x602001, cut, 2);
	/* Past the end of the file (the address space): pages with no flags. */
	static const struct want past[] = {{0x7000000, 0x7002000, 0}};
	expect_runs(c, 0x7000000, 0x7002000, past, 1);
	assert_int_equal(pmaps_pages_seek(c, 0x2000, 0x1000), -EINVAL);
	assert_int_equal(pmaps_pages_calls(c), 1);
	pmaps_pages_close(c);

	/* SCAN forced on a file that has no such ioctl: a clear refusal. */
	assert_int_equal(pmaps_pages_open(&c, p, PMAPS_PAGES_SCAN, 0), -ENOTTY);
	expect_contains(pmaps_pages_errmsg(c), "needs Linux 6.7");
	pmaps_pages_close(c);
	pmaps_proc_close(p);
}

/* The synthetic kpageflags/kpagecount of the fixture: exact physical state. */
static void test_fixture_kpage(void **state)
{
	struct pmaps_proc *p = fixture();
	struct pmaps_pages *c;
	const struct pmaps_page_range *r;
	static const struct {
		uint64_t start, end, kflags, mapcount, pfn;
		unsigned flags;
	} want[] = {
		{0x600000, 0x601000, PMAPS_KPF_DIRTY | PMAPS_KPF_LRU | PMAPS_KPF_ANON | PMAPS_KPF_SWAPBACKED,
		 1, 0x2000, P | E | D},
		/* Anonymous without SWAPBACKED: freed with MADV_FREE. */
		{0x601000, 0x602000, PMAPS_KPF_LRU | PMAPS_KPF_ANON | PMAPS_KPF_LAZYFREE, 1, 0x2001,
		 P | E | D},
		{0x602000, 0x604000, 0, 0, 0, S},
		{0x604000, 0x605000,
		 PMAPS_KPF_LRU | PMAPS_KPF_ANON | PMAPS_KPF_SWAPBACKED | PMAPS_KPF_KSM, 2, 0x2100, P | E},
		{0x605000, 0x606000,
		 PMAPS_KPF_DIRTY | PMAPS_KPF_ANON | PMAPS_KPF_SWAPBACKED | PMAPS_KPF_UNEVICTABLE |
		     PMAPS_KPF_MLOCKED,
		 1, 0x2101, P | E | U},
		{0x606000, 0x608000, 0, 0, 0, 0},
		/* A THP's head and tail: one run, consecutive frames. */
		{0x1000000, 0x1002000, 0, 0, 0, G},
		{0x1002000, 0x1004000,
		 PMAPS_KPF_DIRTY | PMAPS_KPF_LRU | PMAPS_KPF_ANON | PMAPS_KPF_SWAPBACKED | PMAPS_KPF_THP,
		 1, 0x3000, P | E},
	};
	size_t i = 0;
	int rc;
	(void)state;

	assert_int_equal(pmaps_pages_open(&c, p, PMAPS_PAGES_AUTO, PMAPS_PAGES_KPAGE | PMAPS_PAGES_PFN),
	                 0);
	assert_int_equal(pmaps_pages_kpage(c), 1);
	for (int part = 0; part < 2; part++) {
		assert_int_equal(pmaps_pages_seek(c, part ? 0x1000000 : 0x600000,
		                                  part ? 0x1004000 : 0x608000), 0);
		while ((rc = pmaps_pages_next(c, &r)) > 0) {
			expect_lt(i, sizeof(want) / sizeof(want[0]));
			assert_int_equal(r->start, want[i].start);
			assert_int_equal(r->end, want[i].end);
			assert_int_equal(r->flags, want[i].flags);
			assert_int_equal(r->kflags, want[i].kflags);
			assert_int_equal(r->mapcount, want[i].mapcount);
			assert_int_equal(r->pfn, want[i].pfn);
			i++;
		}
		assert_int_equal(rc, 0);
	}
	assert_int_equal(i, sizeof(want) / sizeof(want[0]));
	/* Without PFN, the program's first five pages (mapcount 3) are one run. */
	pmaps_pages_close(c);
	assert_int_equal(pmaps_pages_open(&c, p, PMAPS_PAGES_PAGEMAP, PMAPS_PAGES_KPAGE), 0);
	assert_int_equal(pmaps_pages_seek(c, 0x400000, 0x410000), 0);
	assert_int_equal(pmaps_pages_next(c, &r), 1);
	assert_int_equal(r->end - r->start, 5 * 4096);
	assert_int_equal(r->mapcount, 3);
	assert_int_equal(r->kflags, PMAPS_KPF_REFERENCED | PMAPS_KPF_LRU | PMAPS_KPF_ACTIVE);
	assert_int_equal(r->pfn, 0);
	assert_int_equal(pmaps_pages_next(c, &r), 1);
	assert_int_equal(r->end - r->start, 5 * 4096);
	assert_int_equal(r->mapcount, 1);
	assert_int_equal(r->kflags, PMAPS_KPF_LRU);
	pmaps_pages_close(c);
	pmaps_proc_close(p);

	/* A tree without kpageflags: no join, a reason, and the runs all the same. */
	char root[4096];
	snprintf(root, sizeof(root), "%s/pages-nokpage/proc", PMAPS_TEST_DATA);
	assert_int_equal(pmaps_proc_open(&p, root, "300"), 0);
	assert_int_equal(pmaps_pages_open(&c, p, PMAPS_PAGES_PAGEMAP, PMAPS_PAGES_KPAGE), 0);
	assert_int_equal(pmaps_pages_kpage(c), -ENOENT);
	assert_string_equal(pmaps_pages_errmsg(c), "kpageflags: not in this proc tree "
	                                           "(CONFIG_PROC_PAGE_MONITOR): showing pagemap "
	                                           "flags only");
	assert_int_equal(pmaps_pages_seek(c, 0x600000, 0x608000), 0);
	assert_int_equal(pmaps_pages_next(c, &r), 1);
	assert_int_equal(r->flags, P | E | D);
	assert_int_equal(r->end - r->start, 2 * 4096);
	assert_int_equal(r->kflags, 0);
	pmaps_pages_close(c);
	pmaps_proc_close(p);
}

/*
 * The zero page and the huge zero page through pagemap (pages-zero fixture):
 * pagemap reads them as present, and the huge one as file; kpageflags names
 * them. They are "zero", neither file nor exclusive, with map count 0 like
 * the one page of a large folio that is resident with a count of 0.
 */
static void test_fixture_zero(void **state)
{
	struct pmaps_proc *p;
	struct pmaps_pages *c;
	const struct pmaps_page_range *r;
	char root[4096];
	static const struct {
		uint64_t start, end, kflags, mapcount;
		unsigned flags;
	} want[] = {
		{0x200000, 0x208000, PMAPS_KPF_ZERO_PAGE, 0, P | PMAPS_PG_ZERO},
		{0x208000, 0x20a000, PMAPS_KPF_LRU | PMAPS_KPF_ANON | PMAPS_KPF_SWAPBACKED, 1, P | E},
		{0x20a000, 0x210000, 0, 0, 0},
		{0x400000, 0x600000, PMAPS_KPF_ZERO_PAGE | PMAPS_KPF_THP, 0, P | PMAPS_PG_ZERO},
		{0x800000, 0x801000,
		 PMAPS_KPF_LRU | PMAPS_KPF_ANON | PMAPS_KPF_SWAPBACKED | PMAPS_KPF_THP, 0, P | E},
		{0x801000, 0x802000, 0, 0, 0},
	};
	static const struct want bare[] = {
		{0x200000, 0x208000, P}, {0x208000, 0x20a000, P | E}, {0x20a000, 0x210000, 0},
	};
	size_t i = 0;
	int rc;
	(void)state;

	snprintf(root, sizeof(root), "%s/pages-zero/proc", PMAPS_TEST_DATA);
	assert_int_equal(pmaps_proc_open(&p, root, "300"), 0);
	assert_int_equal(pmaps_pages_open(&c, p, PMAPS_PAGES_AUTO, PMAPS_PAGES_KPAGE), 0);
	assert_int_equal(pmaps_pages_strategy(c), PMAPS_PAGES_PAGEMAP);
	assert_int_equal(pmaps_pages_kpage(c), 1);
	assert_int_equal(pmaps_pages_known(c), PMAPS_PG_COMMON | E | PMAPS_PG_ZERO);
	for (int part = 0; part < 3; part++) {
		static const uint64_t at[][2] = {{0x200000, 0x210000}, {0x400000, 0x600000},
		                                 {0x800000, 0x802000}};
		assert_int_equal(pmaps_pages_seek(c, at[part][0], at[part][1]), 0);
		while ((rc = pmaps_pages_next(c, &r)) > 0) {
			expect_lt(i, sizeof(want) / sizeof(want[0]));
			if (r->start != want[i].start || r->end != want[i].end ||
			    r->flags != want[i].flags || r->kflags != want[i].kflags ||
			    r->mapcount != want[i].mapcount)
				fail_msg("run %zu: %llx-%llx flags %x kflags %llx count %llu; want %llx-%llx "
				         "flags %x kflags %llx count %llu", i, (unsigned long long)r->start,
				         (unsigned long long)r->end, r->flags, (unsigned long long)r->kflags,
				         (unsigned long long)r->mapcount, (unsigned long long)want[i].start,
				         (unsigned long long)want[i].end, want[i].flags,
				         (unsigned long long)want[i].kflags,
				         (unsigned long long)want[i].mapcount);
			i++;
		}
		assert_int_equal(rc, 0);
	}
	assert_int_equal(i, sizeof(want) / sizeof(want[0]));
	pmaps_pages_close(c);

	/* Without the join (and without PAGEMAP_SCAN) pagemap cannot tell: no ZERO at all. */
	assert_int_equal(pmaps_pages_open(&c, p, PMAPS_PAGES_PAGEMAP, 0), 0);
	assert_int_equal(pmaps_pages_known(c), PMAPS_PG_COMMON | E);
	expect_runs(c, 0x200000, 0x210000, bare, 3);
	pmaps_pages_close(c);
	pmaps_proc_close(p);
}

static int fault, calls;

static ssize_t faulty_pread(int fd, void *buf, size_t len, off_t off)
{
	calls++;
	switch (fault) {
	case 1: /* EINTR first: retried */
		if (calls == 1) {
			errno = EINTR;
			return -1;
		}
		break;
	case 2:
		errno = EIO;
		return -1;
	case 3: /* not whole entries */
		return pread(fd, buf, len > 12 ? 12 : len, off);
	}
	return pread(fd, buf, len, off);
}

static void test_read_faults(void **state)
{
	struct pmaps_proc *p = fixture();
	struct pmaps_pages *c;
	const struct pmaps_page_range *r;
	static const struct want heap[] = {
		{0x600000, 0x602000, P | E | D},
		{0x602000, 0x604000, S},
		{0x604000, 0x605000, P | E},
		{0x605000, 0x606000, P | E | U},
		{0x606000, 0x608000, 0},
	};
	(void)state;

	assert_int_equal(pmaps_pages_open(&c, p, PMAPS_PAGES_PAGEMAP, PMAPS_PAGES_GENTLE), 0);
	pmaps__pread_hook = faulty_pread;
	fault = 1;
	calls = 0;
	expect_runs(c, 0x600000, 0x608000, heap, 5);
	assert_int_equal(calls, 2);
	fault = 2;
	assert_int_equal(pmaps_pages_seek(c, 0x600000, 0x608000), 0);
	assert_int_equal(pmaps_pages_next(c, &r), -EIO);
	assert_string_equal(pmaps_pages_errmsg(c), "pagemap: Input/output error");
	assert_int_equal(pmaps_pages_next(c, &r), -EIO);
	fault = 3;
	assert_int_equal(pmaps_pages_seek(c, 0x600000, 0x608000), 0);
	assert_int_equal(pmaps_pages_next(c, &r), -EIO);
	expect_contains(pmaps_pages_errmsg(c), "not whole entries");
	pmaps__pread_hook = NULL;
	expect_runs(c, 0x600000, 0x608000, heap, 5);
	pmaps_pages_close(c);
	pmaps_proc_close(p);
}

static void test_no_allocation_per_run(void **state)
{
	struct pmaps_proc *p = fixture();
	struct pmaps_pages *c;
	const struct pmaps_page_range *r;
	int runs = 0;
	(void)state;

	pmaps_set_allocator(count_alloc, count_free, NULL);
	allocs = 0;
	assert_int_equal(pmaps_pages_open(&c, p, PMAPS_PAGES_PAGEMAP, 0), 0);
	uint64_t opened = allocs;
	for (int i = 0; i < 50; i++) {
		assert_int_equal(pmaps_pages_seek(c, 0x400000, 0x1004000), 0);
		while (pmaps_pages_next(c, &r) > 0)
			runs++;
	}
	/* Across mappings the gaps read as pages with no flags and merge: 9 runs. */
	assert_int_equal(runs, 50 * 9);
	assert_int_equal(allocs, opened);
	pmaps_pages_close(c);
	pmaps_set_allocator(NULL, NULL, NULL);
	pmaps_proc_close(p);
}

static void test_flag_names(void **state)
{
	(void)state;
	assert_string_equal(pmaps_page_flag_name(PMAPS_PG_PRESENT), "present");
	assert_string_equal(pmaps_page_flag_name(PMAPS_PG_SOFT_DIRTY), "soft-dirty");
	assert_string_equal(pmaps_page_flag_name(PMAPS_PG_GUARD), "guard");
	assert_null(pmaps_page_flag_name(0));
	assert_null(pmaps_page_flag_name(PMAPS_PG_PRESENT | PMAPS_PG_FILE));
	assert_null(pmaps_page_flag_name(1u << 20));
}

/*
 * The page sources read the maps text from 6.17 on, where a read of it
 * holds the target's mmap_lock no longer than a mapping: releases as uname
 * prints them, distributions' suffixes included.
 */
static void test_release_rule(void **state)
{
	static const struct {
		const char *release;
		int at_least_6_17;
	} cases[] = {
		{"6.17.0", 1}, {"6.17", 1}, {"6.18.0-rc7+", 1}, {"6.16.12-amd64", 0},
		{"6.1.0-28-amd64", 0}, {"6.170", 1}, {"7.0.1", 1}, {"5.19.17", 0},
		{"10.2", 1}, {"6", 0}, {"", 0}, {"6.", 0}, {"x6.17", 0}, {"6.x17", 0},
		{"99999999999999999999.1", 1}, {"6.99999999999999999999", 1},
	};
	(void)state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int got = pmaps__release_at_least(cases[i].release, 6, 17);
		if (got != cases[i].at_least_6_17)
			fail_msg("release '%s': %d, want %d", cases[i].release, got,
			         cases[i].at_least_6_17);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture_runs),
		cmocka_unit_test(test_fixture_kpage),
		cmocka_unit_test(test_fixture_zero),
		cmocka_unit_test(test_read_faults),
		cmocka_unit_test(test_no_allocation_per_run),
		cmocka_unit_test(test_flag_names),
		cmocka_unit_test(test_release_rule),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
