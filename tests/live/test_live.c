/* SPDX-License-Identifier: MIT */
/*
 * test_live.c - libpmaps against live processes: exact sizes of a known
 * layout (tests/live/layout.c), agreement between maps, smaps and
 * smaps_rollup, allocations per scan, and processes that are gone, exit or
 * exec while they are read, or that the reader may not read.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <linux/capability.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <dirent.h>

#include "internal.h"
#include "testhooks.h"
#include "../expect.h"
#include "../count_alloc.h"
#include "../zero_page.h"
#include "wait_comm.h"
#include "../../bench/targets.h"

#define PG 4096ull

struct region {
	char name[16];
	uint64_t start, end;
};

struct helper {
	pid_t pid;
	int in, out; /* its stdin (write end), its stdout (read end) */
	char pidstr[16];
	struct region r[16];
	int nr, named;
};

static void wait_state_all(pid_t pid, char want);

/*
 * The page sources' VMA lists: as this kernel has it chosen, the maps text
 * without PROCMAP_QUERY (a kernel before 6.11), PROCMAP_QUERY for every
 * mapping (6.11 to 6.16).
 */
enum { LIST_AUTO, LIST_TEXT, LIST_QUERY };
static const char *const list_names[] = {"", ", maps text without PROCMAP_QUERY",
                                         ", PROCMAP_QUERY list"};

/* pmaps_maps_query() of a page source opened with LIST. */
static int list_query(int list)
{
	return list == LIST_TEXT ? 0 : list == LIST_QUERY ? 1 : !pmaps_maps_text_unlocked();
}

/* The helper of the running test, ended by teardown if an assertion failed. */
static pid_t running_helper;
/* nr_hugepages before a test raised it, given back by teardown; -1: nothing to give back */
static long hugepages_before = -1;
static long set_hugepages(long n);
static char huge_dir[32];
/* The benchmarks' target of the running test, stopped (its files removed) by teardown. */
static struct target *running_target;

static int teardown(void **state)
{
	int st;
	(void)state;
	if (running_helper > 0) {
		kill(running_helper, SIGKILL);
		waitpid(running_helper, &st, 0);
		running_helper = 0;
	}
	if (running_target) {
		target_stop(running_target);
		running_target = NULL;
	}
	if (huge_dir[0]) {
		rmdir(huge_dir);
		huge_dir[0] = '\0';
	}
	if (hugepages_before >= 0) {
		set_hugepages(hugepages_before);
		hugepages_before = -1;
	}
	return 0;
}

static void start_helper(struct helper *h, const char *threads)
{
	int to[2], from[2];
	char line[256];
	FILE *f;

	assert_int_equal(pipe2(to, O_CLOEXEC), 0);
	assert_int_equal(pipe2(from, O_CLOEXEC), 0);
	h->pid = fork();
	expect_sys(h->pid);
	if (h->pid == 0) {
		dup2(to[0], 0);
		dup2(from[1], 1);
		execl(PMAPS_LAYOUT_PATH, "layout", threads, (char *)NULL);
		_exit(127);
	}
	close(to[0]);
	close(from[1]);
	running_helper = h->pid;
	h->in = to[1];
	h->out = from[0];
	snprintf(h->pidstr, sizeof(h->pidstr), "%d", (int)h->pid);
	f = fdopen(dup(h->out), "r");
	h->nr = 0;
	while (fgets(line, sizeof(line), f)) {
		struct region *r = &h->r[h->nr];
		unsigned long s, e;
		if (strcmp(line, "ready\n") == 0)
			break;
		if (sscanf(line, "names %d", &h->named) == 1)
			continue;
		assert_int_equal(sscanf(line, "%15s %lx %lx", r->name, &s, &e), 3);
		r->start = s;
		r->end = e;
		h->nr++;
	}
	fclose(f);
	assert_int_equal(h->nr, 11);
	wait_state_all(h->pid, 'S');
}

/* Until every thread of PID is in state WANT ('S': blocked in read(); 'T': stopped). */
static void wait_state_all(pid_t pid, char want)
{
	char path[320];

	for (int tries = 0; tries < 2000; tries++) {
		int busy = 0;
		DIR *d;
		struct dirent *e;
		snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
		d = opendir(path);
		assert_non_null(d);
		while ((e = readdir(d)) != NULL) {
			char st[512], *rp;
			FILE *f;
			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "/proc/%d/task/%s/stat", (int)pid, e->d_name);
			f = fopen(path, "r");
			if (!f || !fgets(st, sizeof(st), f)) {
				busy = 1;
			} else {
				rp = strrchr(st, ')');
				busy |= !rp || rp[2] != want;
			}
			if (f)
				fclose(f);
		}
		closedir(d);
		if (!busy)
			return;
		usleep(1000);
	}
	fail_msg("the helper's threads never all reached state %c", want);
}

static void stop_helper(struct helper *h)
{
	int st;
	close(h->in);
	close(h->out);
	assert_int_equal(waitpid(h->pid, &st, 0), h->pid);
	running_helper = 0;
	expect_exited(st, 0);
}

static const struct region *region(const struct helper *h, const char *name)
{
	for (int i = 0; i < h->nr; i++)
		if (strcmp(h->r[i].name, name) == 0)
			return &h->r[i];
	fail_msg("no region %s", name);
	return NULL;
}

/* The smaps row of region NAME, copied. */
static void row_of(struct pmaps_maps *c, const struct region *r, struct pmaps_mapping *out,
                   char *path, size_t pathsz)
{
	const struct pmaps_mapping *m;
	int rc, found = 0;

	assert_int_equal(pmaps_maps_rewind(c), 0);
	while ((rc = pmaps_maps_next(c, &m)) > 0) {
		if (m->start == r->start) {
			assert_int_equal(m->end, r->end);
			*out = *m;
			snprintf(path, pathsz, "%.*s", (int)m->path.len, m->path.ptr);
			found = 1;
		}
	}
	assert_int_equal(rc, 0);
	if (!found)
		fail_msg("no mapping starts at %llx (%s)", (unsigned long long)r->start, r->name);
}

static void test_layout_exact(void **state)
{
	struct helper h;
	struct pmaps_proc *p;
	struct pmaps_maps *c;
	struct pmaps_mapping m;
	char path[256];
	(void)state;

	start_helper(&h, "2");
	assert_int_equal(pmaps_proc_open(&p, NULL, h.pidstr), 0);
	assert_int_equal(pmaps_maps_open(&c, p, PMAPS_SRC_SMAPS, 0), 0);

	row_of(c, region(&h, "touched3"), &m, path, sizeof(path));
	assert_int_equal(m.kind, PMAPS_KIND_ANON);
	assert_int_equal(m.v[PMAPS_F_SIZE], 64 * PG);
	assert_int_equal(m.v[PMAPS_F_RSS], 22 * PG);
	assert_int_equal(m.v[PMAPS_F_PSS], 22 * PG);
	assert_int_equal(m.v[PMAPS_F_PRIVATE_DIRTY], 22 * PG);
	assert_int_equal(m.v[PMAPS_F_ANONYMOUS], 22 * PG);
	assert_int_equal(m.v[PMAPS_F_LAZY_FREE], 0);

	row_of(c, region(&h, "lazyfree"), &m, path, sizeof(path));
	assert_int_equal(m.v[PMAPS_F_RSS], 32 * PG);
	assert_int_equal(m.v[PMAPS_F_ANONYMOUS], 32 * PG);
	assert_int_equal(m.v[PMAPS_F_LAZY_FREE], 16 * PG);
	/* MADV_FREE cleans the pages: half dirty, half clean. */
	assert_int_equal(m.v[PMAPS_F_PRIVATE_DIRTY], 16 * PG);
	assert_int_equal(m.v[PMAPS_F_PRIVATE_CLEAN], 16 * PG);

	row_of(c, region(&h, "dontneed"), &m, path, sizeof(path));
	assert_int_equal(m.v[PMAPS_F_RSS], 8 * PG);
	assert_int_equal(m.v[PMAPS_F_PRIVATE_DIRTY], 8 * PG);
	assert_int_equal(m.v[PMAPS_F_LAZY_FREE], 0);

	row_of(c, region(&h, "file"), &m, path, sizeof(path));
	assert_int_equal(m.kind, PMAPS_KIND_FILE_RO);
	assert_int_equal(m.v[PMAPS_F_RSS], 16 * PG);
	assert_int_equal(m.v[PMAPS_F_PRIVATE_CLEAN], 16 * PG);
	assert_int_equal(m.v[PMAPS_F_PRIVATE_DIRTY], 0);
	assert_int_equal(m.v[PMAPS_F_ANONYMOUS], 0);
	expect_set(m.flags, PMAPS_ROW_DELETED);
	expect_contains(path, "/tmp/pmaps-layout.");

	row_of(c, region(&h, "memfd"), &m, path, sizeof(path));
	assert_int_equal(m.kind, PMAPS_KIND_SHMEM);
	assert_string_equal(path, "/memfd:pmaps-test (deleted)");
	assert_int_equal(m.v[PMAPS_F_RSS], 4 * PG);
	assert_int_equal(m.v[PMAPS_F_PRIVATE_DIRTY], 4 * PG);
	assert_int_equal(m.v[PMAPS_F_ANONYMOUS], 0);

	row_of(c, region(&h, "named"), &m, path, sizeof(path));
	if (h.named) {
		assert_int_equal(m.kind, PMAPS_KIND_ANON_NAMED);
		assert_string_equal(path, "[anon:pmaps-test]");
	} else {
		/* This kernel lacks CONFIG_ANON_VMA_NAME. */
		assert_int_equal(m.kind, PMAPS_KIND_ANON);
		assert_string_equal(path, "");
	}
	assert_int_equal(m.v[PMAPS_F_RSS], 2 * PG);

	pmaps_maps_close(c);
	pmaps_proc_close(p);
	stop_helper(&h);
}

/* ---- pages ---- */

#define MAXRUNS 128

struct runs {
	int n;
	struct pmaps_page_range r[MAXRUNS];
};

static void collect(struct pmaps_pages *c, const struct region *rg, unsigned mask, struct runs *out)
{
	const struct pmaps_page_range *r;
	int rc;

	out->n = 0;
	assert_int_equal(pmaps_pages_seek(c, rg->start, rg->end), 0);
	while ((rc = pmaps_pages_next(c, &r)) > 0) {
		struct pmaps_page_range x = *r;
		x.flags &= mask;
		/* Masking can make neighbours equal: merge them again. */
		if (out->n && out->r[out->n - 1].flags == x.flags && out->r[out->n - 1].end == x.start) {
			out->r[out->n - 1].end = x.end;
			continue;
		}
		expect_lt(out->n, MAXRUNS);
		out->r[out->n++] = x;
	}
	assert_int_equal(rc, 0);
}

/* Runs of PG pages from the region's start: {pages, flags}, ... */
static void expect(const struct runs *got, const struct region *rg, const int (*w)[2], int n)
{
	uint64_t at = rg->start;

	if (got->n != n)
		fail_msg("%s: %d runs, want %d", rg->name, got->n, n);
	for (int i = 0; i < n; i++) {
		assert_int_equal(got->r[i].start, at);
		at += (uint64_t)w[i][0] * PG;
		assert_int_equal(got->r[i].end, at);
		if (got->r[i].flags != (unsigned)w[i][1])
			fail_msg("%s run %d: flags %x, want %x", rg->name, i, got->r[i].flags, w[i][1]);
	}
	assert_int_equal(at, rg->end);
}

static void test_pages_exact(void **state)
{
	struct helper h;
	struct pmaps_proc *p;
	struct pmaps_pages *scan, *pm;
	struct runs a, b;
	const unsigned P = PMAPS_PG_PRESENT, F = PMAPS_PG_FILE, E = PMAPS_PG_EXCLUSIVE,
	               Z = PMAPS_PG_ZERO;
	int w[MAXRUNS][2], n, zp;
	(void)state;

	start_helper(&h, "2"); /* idle, blocked in read(): its pages stay put */
	assert_int_equal(pmaps_proc_open(&p, NULL, h.pidstr), 0);
	assert_int_equal(pmaps_pages_open(&scan, p, PMAPS_PAGES_SCAN, 0), 0);
	assert_int_equal(pmaps_pages_open(&pm, p, PMAPS_PAGES_PAGEMAP, 0), 0);

	/* Every 3rd of 64 pages: 22 single present pages with 2 untouched between. */
	n = 0;
	for (int i = 0; i < 64; i += 3) {
		w[n][0] = 1, w[n][1] = (int)(P | E), n++;
		if (i + 3 < 64)
			w[n][0] = 2, w[n][1] = 0, n++;
	}
	collect(pm, region(&h, "touched3"), ~0u, &b);
	expect(&b, region(&h, "touched3"), (const int (*)[2])w, n);
	for (int i = 0; i < n; i++)
		w[i][1] &= (int)~E;
	collect(scan, region(&h, "touched3"), ~0u, &a);
	expect(&a, region(&h, "touched3"), (const int (*)[2])w, n);

	/* MADV_FREE'd pages stay present until the kernel needs memory. */
	static const int lazy_pm[][2] = {{32, PMAPS_PG_PRESENT | PMAPS_PG_EXCLUSIVE}};
	static const int lazy_scan[][2] = {{32, PMAPS_PG_PRESENT}};
	collect(pm, region(&h, "lazyfree"), ~0u, &b);
	expect(&b, region(&h, "lazyfree"), lazy_pm, 1);
	collect(scan, region(&h, "lazyfree"), ~0u, &a);
	expect(&a, region(&h, "lazyfree"), lazy_scan, 1);

	/* MADV_DONTNEED'd pages are gone at once. */
	static const int dn[][2] = {{8, PMAPS_PG_PRESENT}, {8, 0}};
	collect(pm, region(&h, "dontneed"), PMAPS_PG_COMMON, &b);
	expect(&b, region(&h, "dontneed"), dn, 2);
	collect(scan, region(&h, "dontneed"), ~0u, &a);
	expect(&a, region(&h, "dontneed"), dn, 2);

	/* The file, all read: page cache pages. */
	static const int file[][2] = {{16, PMAPS_PG_PRESENT | PMAPS_PG_FILE}};
	collect(pm, region(&h, "file"), PMAPS_PG_COMMON, &b);
	expect(&b, region(&h, "file"), file, 1);
	collect(scan, region(&h, "file"), ~0u, &a);
	expect(&a, region(&h, "file"), file, 1);

	/* The memfd: shmem, half touched. */
	static const int mfd[][2] = {{4, PMAPS_PG_PRESENT | PMAPS_PG_FILE}, {4, 0}};
	collect(pm, region(&h, "memfd"), PMAPS_PG_COMMON, &b);
	expect(&b, region(&h, "memfd"), mfd, 2);
	collect(scan, region(&h, "memfd"), ~0u, &a);
	expect(&a, region(&h, "memfd"), mfd, 2);

	/*
	 * Read, never written: the zero page. pagemap reads it as a present
	 * page, neither file nor exclusive; the pagemap reader learns it is the
	 * zero page from PAGEMAP_SCAN, which found the region. A kernel that
	 * maps no zero page gives private pages, as touched3's.
	 */
	zp = zero_page_mapped();
	const int zero_scan[][2] = {{8, (int)(zp ? P | Z : P)}};
	const int zero_pm[][2] = {{8, (int)(zp ? P | Z : P | E)}};
	collect(scan, region(&h, "zero"), ~0u, &a);
	expect(&a, region(&h, "zero"), zero_scan, 1);
	collect(pm, region(&h, "zero"), ~0u, &b);
	expect(&b, region(&h, "zero"), zero_pm, 1);
	(void)F;

	/* Shared anonymous memory reads as "file"; shared with the child, not exclusive. */
	static const int shared[][2] = {{8, PMAPS_PG_PRESENT | PMAPS_PG_FILE}};
	collect(pm, region(&h, "shared"), ~0u, &b);
	expect(&b, region(&h, "shared"), shared, 1);
	collect(scan, region(&h, "shared"), ~0u, &a);
	expect(&a, region(&h, "shared"), shared, 1);

	/* A file out of the page cache, read at pages 0, 5, 10, 15 with no readahead. */
	static const int part[][2] = {{1, PMAPS_PG_PRESENT | PMAPS_PG_FILE}, {4, 0},
	                              {1, PMAPS_PG_PRESENT | PMAPS_PG_FILE}, {4, 0},
	                              {1, PMAPS_PG_PRESENT | PMAPS_PG_FILE}, {4, 0},
	                              {1, PMAPS_PG_PRESENT | PMAPS_PG_FILE}};
	collect(pm, region(&h, "filepart"), PMAPS_PG_COMMON, &b);
	expect(&b, region(&h, "filepart"), part, 7);
	collect(scan, region(&h, "filepart"), ~0u, &a);
	expect(&a, region(&h, "filepart"), part, 7);

	/* The THP region: PMD-mapped pages are "huge", exactly smaps' AnonHugePages. */
	{
		struct pmaps_maps *sm;
		struct pmaps_mapping row;
		char path[256];
		uint64_t huge = 0, present = 0;
		assert_int_equal(pmaps_maps_open(&sm, p, PMAPS_SRC_SMAPS, 0), 0);
		row_of(sm, region(&h, "thp"), &row, path, sizeof(path));
		pmaps_maps_close(sm);
		assert_int_equal(row.v[PMAPS_F_RSS], 1024 * PG);
		collect(scan, region(&h, "thp"), ~0u, &a);
		for (int i = 0; i < a.n; i++) {
			uint64_t pages = (a.r[i].end - a.r[i].start) / PG;
			expect_set(a.r[i].flags, PMAPS_PG_PRESENT);
			present += pages;
			huge += a.r[i].flags & PMAPS_PG_HUGE ? pages : 0;
		}
		assert_int_equal(present, 1024);
		assert_int_equal(huge * PG, row.v[PMAPS_F_ANON_HUGE_PAGES]);
		if (huge == 0)
			printf("note: the kernel granted no THP here (AnonHugePages 0)\n");
	}

	/* On every region, the two readers agree on the flags both can see. */
	for (int i = 0; i < h.nr; i++) {
		collect(scan, &h.r[i], PMAPS_PG_COMMON, &a);
		collect(pm, &h.r[i], PMAPS_PG_COMMON, &b);
		assert_int_equal(a.n, b.n);
		for (int k = 0; k < a.n; k++) {
			assert_int_equal(a.r[k].start, b.r[k].start);
			assert_int_equal(a.r[k].end, b.r[k].end);
			assert_int_equal(a.r[k].flags, b.r[k].flags);
		}
	}
	pmaps_pages_close(scan);
	pmaps_pages_close(pm);
	pmaps_proc_close(p);
	stop_helper(&h);
}

/* Pages of region RG whose run has all of BITS in kflags (and mapcount MC if not -1). */
static uint64_t count_kpage(struct pmaps_pages *c, const struct region *rg, uint64_t bits,
                            int64_t mc, uint64_t *present)
{
	const struct pmaps_page_range *r;
	uint64_t n = 0;
	int rc;

	*present = 0;
	assert_int_equal(pmaps_pages_seek(c, rg->start, rg->end), 0);
	while ((rc = pmaps_pages_next(c, &r)) > 0) {
		uint64_t pages = (r->end - r->start) / PG;
		if (!(r->flags & PMAPS_PG_PRESENT))
			continue;
		*present += pages;
		assert_int_not_equal(r->pfn, 0);
		if ((r->kflags & bits) == bits && (mc < 0 || r->mapcount == (uint64_t)mc))
			n += pages;
	}
	assert_int_equal(rc, 0);
	return n;
}

/* As root: physical page state from /proc/kpageflags and kpagecount. */
static void test_pages_kpage(void **state)
{
	struct helper h;
	struct pmaps_proc *p;
	struct pmaps_pages *c;
	uint64_t present;
	int zp;
	(void)state;

	if (geteuid() != 0) {
		printf("skipped: /proc/kpageflags needs root\n");
		skip();
	}
	zp = zero_page_mapped();
	start_helper(&h, "2");
	assert_int_equal(pmaps_proc_open(&p, NULL, h.pidstr), 0);
	for (int s = PMAPS_PAGES_SCAN; s <= PMAPS_PAGES_PAGEMAP; s++) {
		assert_int_equal(pmaps_pages_open(&c, p, (enum pmaps_pages_strategy)s,
		                                  PMAPS_PAGES_KPAGE | PMAPS_PAGES_PFN), 0);
		if (pmaps_pages_kpage(c) != 1)
			fail_msg("no kpageflags join as root: %s", pmaps_pages_errmsg(c));
		/* Every 3rd page: anonymous, mapped once. */
		assert_int_equal(count_kpage(c, region(&h, "touched3"), PMAPS_KPF_ANON, 1, &present), 22);
		assert_int_equal(present, 22);
		/* The MADV_FREE'd half is anonymous without SWAPBACKED: lazily freed. */
		assert_int_equal(count_kpage(c, region(&h, "lazyfree"), PMAPS_KPF_LAZYFREE, 1, &present),
		                 16);
		assert_int_equal(present, 32);
		assert_int_equal(count_kpage(c, region(&h, "lazyfree"),
		                             PMAPS_KPF_ANON | PMAPS_KPF_SWAPBACKED, 1, &present), 16);
		/* Read, never written: the zero page, or anonymous pages mapped once. */
		assert_int_equal(count_kpage(c, region(&h, "zero"), PMAPS_KPF_ZERO_PAGE, -1, &present),
		                 zp ? 8 : 0);
		assert_int_equal(present, 8);
		assert_int_equal(count_kpage(c, region(&h, "zero"), PMAPS_KPF_ANON, 1, &present),
		                 zp ? 0 : 8);
		/* The memfd: shmem pages are swap-backed, not anonymous. */
		assert_int_equal(count_kpage(c, region(&h, "memfd"), PMAPS_KPF_SWAPBACKED, 1, &present), 4);
		assert_int_equal(count_kpage(c, region(&h, "memfd"), PMAPS_KPF_ANON, -1, &present), 0);
		/* Shared with the child: two mappings of each shmem page. */
		assert_int_equal(count_kpage(c, region(&h, "shared"), PMAPS_KPF_SWAPBACKED, 2, &present),
		                 8);
		assert_int_equal(present, 8);
		/* mlock()ed: mlocked and unevictable. */
		assert_int_equal(count_kpage(c, region(&h, "mlocked"),
		                             PMAPS_KPF_MLOCKED | PMAPS_KPF_UNEVICTABLE, 1, &present), 4);
		assert_int_equal(present, 4);
		/* The file's page cache pages, mapped by this process only. */
		assert_int_equal(count_kpage(c, region(&h, "file"), PMAPS_KPF_LRU, 1, &present), 16);
		assert_int_equal(count_kpage(c, region(&h, "file"), PMAPS_KPF_ANON, -1, &present), 0);
		pmaps_pages_close(c);
	}
	pmaps_proc_close(p);
	stop_helper(&h);
}

/*
 * A target for the residency tests, built here rather than in layout.c: an
 * anonymous region half read (the zero page) and half written, 4 MiB of
 * MADV_HUGEPAGE memory only read (the huge zero page where THP is on; on a
 * kernel that maps no zero page, both read parts are private pages), a
 * file read whole, a memfd half written, and a 60 TiB PROT_NONE reservation
 * holding one page touched before it was made PROT_NONE. Writes the
 * addresses of the reservation, the touched page, the anonymous region and
 * the MADV_HUGEPAGE one, then "ready", then waits for its standard input to
 * close.
 */
static pid_t resident_target(int *in, uint64_t *resv, uint64_t *touched, uint64_t *zeros)
{
	int to[2], from[2];
	unsigned long long r = 0, t = 0, za = 0, zt = 0;
	char line[128];
	FILE *f;
	pid_t pid;

	assert_int_equal(pipe2(to, O_CLOEXEC), 0);
	assert_int_equal(pipe2(from, O_CLOEXEC), 0);
	pid = fork();
	expect_sys(pid);
	if (pid == 0) {
		size_t huge = 2u << 20, pg = 4096;
		char path[] = "/tmp/pmaps-resident.XXXXXX", buf[4096], c;
		char *a, *raw, *thp, *fm, *mm, *res;
		int fd;

		a = mmap(NULL, 16 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (a == MAP_FAILED || madvise(a, 16 * pg, MADV_NOHUGEPAGE))
			_exit(2);
		for (int i = 0; i < 8; i++)
			(void)*(volatile char *)(a + i * pg);
		memset(a + 8 * pg, 1, 8 * pg);
		raw = mmap(NULL, 3 * huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (raw == MAP_FAILED)
			_exit(2);
		thp = (char *)(((uintptr_t)raw + huge - 1) & ~(uintptr_t)(huge - 1));
		madvise(thp, 2 * huge, MADV_HUGEPAGE);
		for (size_t i = 0; i < 2 * huge; i += pg)
			(void)*(volatile char *)(thp + i);
		fd = mkstemp(path);
		if (fd < 0)
			_exit(2);
		unlink(path);
		memset(buf, 4, sizeof(buf));
		for (int i = 0; i < 8; i++)
			if (write(fd, buf, pg) != (ssize_t)pg)
				_exit(2);
		fm = mmap(NULL, 8 * pg, PROT_READ, MAP_PRIVATE, fd, 0);
		if (fm == MAP_FAILED)
			_exit(2);
		for (int i = 0; i < 8; i++)
			(void)*(volatile char *)(fm + i * pg);
		fd = memfd_create("pmaps-resident", MFD_CLOEXEC);
		if (fd < 0 || ftruncate(fd, 8 * (off_t)pg))
			_exit(2);
		mm = mmap(NULL, 8 * pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (mm == MAP_FAILED)
			_exit(2);
		memset(mm, 5, 4 * pg);
		res = mmap(NULL, 60ull << 40, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		           -1, 0);
		if (res == MAP_FAILED)
			_exit(3);
		/* A page in the middle, written, then PROT_NONE like the rest. */
		if (mprotect(res + (30ull << 40), pg, PROT_READ | PROT_WRITE))
			_exit(2);
		res[30ull << 40] = 1;
		if (mprotect(res + (30ull << 40), pg, PROT_NONE))
			_exit(2);
		/* No exec here: close the parent's ends, or stdin never ends. */
		close(to[1]);
		close(from[0]);
		dup2(to[0], 0);
		dup2(from[1], 1);
		printf("%lx %lx %lx %lx\nready\n", (unsigned long)(uintptr_t)res,
		       (unsigned long)(uintptr_t)(res + (30ull << 40)), (unsigned long)(uintptr_t)a,
		       (unsigned long)(uintptr_t)thp);
		fflush(stdout);
		while (read(0, &c, 1) > 0)
			;
		_exit(0);
	}
	close(to[0]);
	close(from[1]);
	running_helper = pid;
	*in = to[1];
	f = fdopen(from[0], "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	assert_int_equal(sscanf(line, "%llx %llx %llx %llx", &r, &t, &za, &zt), 4);
	assert_non_null(fgets(line, sizeof(line), f));
	assert_string_equal(line, "ready\n");
	fclose(f);
	*resv = r;
	*touched = t;
	zeros[0] = za;
	zeros[1] = za + 8 * PG; /* the 8 pages read */
	zeros[2] = zt;
	zeros[3] = zt + (4u << 20);
	wait_state_all(pid, 'S');
	return pid;
}

static void stop_target_pid(pid_t pid, int in)
{
	int st;
	close(in);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	running_helper = 0;
	expect_exited(st, 0);
}

/* Runs the tool with ARGV; its standard output in OUT (NUL-terminated). */
static int run_tool(char *const argv[], char *out, size_t size)
{
	int p[2], st;
	size_t n = 0;
	ssize_t k;
	pid_t pid;

	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	pid = fork();
	expect_sys(pid);
	if (pid == 0) {
		dup2(p[1], 1);
		execv(PMAPS_TOOL_PATH, argv);
		_exit(127);
	}
	close(p[1]);
	while ((k = read(p[0], out + n, size - 1 - n)) > 0)
		n += (size_t)k;
	close(p[0]);
	out[n] = '\0';
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The value of column NAME in CSV line LINE (header HDR), or -1. */
static int64_t csv_field(const char *hdr, const char *line, const char *name)
{
	size_t len = strlen(name);
	int col = 0;

	for (const char *h = hdr; *h && *h != '\n'; col++) {
		const char *e = h + strcspn(h, ",\n");
		if ((size_t)(e - h) == len && memcmp(h, name, len) == 0) {
			const char *v = line;
			for (int i = 0; i < col; i++)
				v = strchr(v, ',') + 1;
			return strtoll(v, NULL, 0);
		}
		h = *e == ',' ? e + 1 : e;
	}
	return -1;
}

/*
 * Resident pages are what smaps calls Rss, on every mapping, for both
 * readers, with and without the kpageflags join: the zero page and the huge
 * zero page are mapped, not resident. The library's runs and the tool's
 * --summary both. Where the kernel maps no zero page, the pages read are
 * private, resident, and no page is zero.
 */
static void test_pages_resident_is_rss(void **state)
{
	struct pmaps_proc *p;
	struct pmaps_maps *sm;
	const struct pmaps_mapping *m;
	static struct {
		uint64_t start, end, rss;
	} maps[256];
	static char out[1 << 16];
	uint64_t resv, touched, z[4], zeros;
	char pidstr[16];
	int in, nmaps = 0, rc;
	pid_t pid;
	(void)state;

	/* 8 pages read of the small region, 1024 of the MADV_HUGEPAGE one: zero pages, or none. */
	zeros = (zero_page_mapped() ? 8 : 0) + (huge_zero_page_mapped() ? 1024 : 0);
	/* Zero pages are counted in the target's regions only: ASan's shadow has its own. */
	pid = resident_target(&in, &resv, &touched, z);
	snprintf(pidstr, sizeof(pidstr), "%d", (int)pid);
	assert_int_equal(pmaps_proc_open(&p, NULL, pidstr), 0);
	assert_int_equal(pmaps_maps_open(&sm, p, PMAPS_SRC_SMAPS, 0), 0);
	while ((rc = pmaps_maps_next(sm, &m)) > 0) {
		expect_lt(nmaps, 256);
		maps[nmaps].start = m->start;
		maps[nmaps].end = m->end;
		maps[nmaps].rss = m->v[PMAPS_F_RSS];
		nmaps++;
	}
	assert_int_equal(rc, 0);
	pmaps_maps_close(sm);

	for (int s = PMAPS_PAGES_SCAN; s <= PMAPS_PAGES_PAGEMAP; s++) {
		for (int join = 0; join < 2; join++) {
			struct pmaps_pages *c;
			const struct pmaps_page_range *r;
			uint64_t zero_all = 0;
			assert_int_equal(pmaps_pages_open(&c, p, (enum pmaps_pages_strategy)s,
			                                  join ? PMAPS_PAGES_KPAGE : 0), 0);
			expect_set(pmaps_pages_known(c), PMAPS_PG_ZERO);
			for (int i = 0; i < nmaps; i++) {
				uint64_t resident = 0;
				if (maps[i].start >= 0x800000000000ull)
					continue; /* [vsyscall] */
				assert_int_equal(pmaps_pages_seek(c, maps[i].start, maps[i].end), 0);
				while ((rc = pmaps_pages_next(c, &r)) > 0) {
					if ((r->flags & PMAPS_PG_ZERO) && (r->flags & PMAPS_PG_FILE))
						fail_msg("%llx: zero and file", (unsigned long long)r->start);
					if (r->flags & PMAPS_PG_ZERO) {
						for (int k = 0; k < 4; k += 2) {
							uint64_t lo = r->start > z[k] ? r->start : z[k];
							uint64_t hi = r->end < z[k + 1] ? r->end : z[k + 1];
							zero_all += hi > lo ? hi - lo : 0;
						}
					} else if (r->flags & PMAPS_PG_PRESENT)
						resident += r->end - r->start;
				}
				assert_int_equal(rc, 0);
				if (resident != maps[i].rss)
					fail_msg("%s%s, %llx-%llx: resident %llu bytes, smaps Rss %llu",
					         s == PMAPS_PAGES_SCAN ? "scan" : "pagemap", join ? "+kpage" : "",
					         (unsigned long long)maps[i].start, (unsigned long long)maps[i].end,
					         (unsigned long long)resident, (unsigned long long)maps[i].rss);
			}
			if (zero_all != zeros * PG)
				fail_msg("%s%s: %llu zero pages, want %llu",
				         s == PMAPS_PAGES_SCAN ? "scan" : "pagemap", join ? "+kpage" : "",
				         (unsigned long long)(zero_all / PG), (unsigned long long)zeros);
			pmaps_pages_close(c);
		}
	}

	/* The tool's summary, per mapping: Resident * 4 KiB is Rss; zero counted apart. */
	for (int s = 0; s < 2; s++) {
		char *argv[] = {"pmaps", "pages", "--summary", "--csv", "--strategy",
		                s ? "pagemap" : "scan", pidstr, NULL};
		char *line, *hdr = out;
		uint64_t zero = 0;
		int rows = 0;
		assert_int_equal(run_tool(argv, out, sizeof(out)), 0);
		line = strchr(hdr, '\n');
		assert_non_null(line);
		for (line++; *line; line = strchr(line, '\n') + 1, rows++) {
			uint64_t start = strtoull(line, NULL, 16);
			int64_t res = csv_field(hdr, line, "resident");
			int i;
			for (i = 0; i < nmaps && maps[i].start != start; i++)
				;
			if (i == nmaps)
				fail_msg("no smaps mapping at %llx", (unsigned long long)start);
			if ((uint64_t)res * PG != maps[i].rss)
				fail_msg("pages --summary --strategy %s, %llx: resident %lld pages, smaps Rss %llu "
				         "bytes", argv[5], (unsigned long long)start, (long long)res,
				         (unsigned long long)maps[i].rss);
			if ((z[0] >= start && z[0] < maps[i].end) || (z[2] >= start && z[2] < maps[i].end))
				zero += (uint64_t)csv_field(hdr, line, "zero");
			if (geteuid() == 0) {
				/* As root the column is there (-1: it is not), and within resident. */
				int64_t once = csv_field(hdr, line, "mapped_by_1");
				expect_ge(once, 0);
				expect_le(once, res);
			}
		}
		assert_int_equal(rows, nmaps);
		assert_int_equal(zero, zeros);
	}
	pmaps_proc_close(p);
	stop_target_pid(pid, in);
}

/*
 * pagemap on a 60 TiB PROT_NONE reservation: 120 GB of entries if read
 * one by one. Only the page touched before its mprotect() is there, and the
 * answer comes at once (the ctest timeout bounds it).
 */
static void test_pages_reservation(void **state)
{
	static char out[4096];
	uint64_t resv, touched, z[4];
	char pidstr[16], range[64], want[160];
	int in;
	pid_t pid;
	(void)state;

	pid = resident_target(&in, &resv, &touched, z);
	snprintf(pidstr, sizeof(pidstr), "%d", (int)pid);
	snprintf(range, sizeof(range), "%llx+60T", (unsigned long long)resv);
	for (int s = 0; s < 2; s++) {
		char *argv[] = {"pmaps", "pages", "--flags", "--csv", "--strategy",
		                s ? "pagemap" : "scan", pidstr, range, NULL};
		assert_int_equal(run_tool(argv, out, sizeof(out)), 0);
		/* Three runs: nothing, the touched page, nothing. */
		snprintf(want, sizeof(want), "0x%llx,0x%llx,%llu,-,",
		         (unsigned long long)resv, (unsigned long long)touched,
		         (unsigned long long)((touched - resv) / PG));
		if (!strstr(out, want))
			fail_msg("%s: no run %s in:\n%s", argv[5], want, out);
		snprintf(want, sizeof(want), "0x%llx,0x%llx,1,present%s,", (unsigned long long)touched,
		         (unsigned long long)(touched + PG), s ? "|exclusive" : "");
		if (!strstr(out, want))
			fail_msg("%s: no run %s in:\n%s", argv[5], want, out);
	}
	stop_target_pid(pid, in);
}

/*
 * The gentle walk of the same 60 TiB reservation with PAGEMAP_SCAN: empty
 * space quickly walked widens each call's span (256 MiB up to 16 GiB), so
 * the walk takes thousands of calls, each with its pause, not the 245,760
 * of fixed 256 MiB steps (25 s of pauses alone). A slow call narrows the
 * span again; the bound leaves room for many. The touched page is found.
 */
static void test_pages_sparse_gentle(void **state)
{
	const struct pmaps_page_range *r;
	struct pmaps_proc *p;
	struct pmaps_pages *c;
	uint64_t resv, touched, z[4], present = 0, calls;
	char pidstr[16];
	int in, rc;
	pid_t pid;
	(void)state;

	pid = resident_target(&in, &resv, &touched, z);
	snprintf(pidstr, sizeof(pidstr), "%d", (int)pid);
	assert_int_equal(pmaps_proc_open(&p, NULL, pidstr), 0);
	rc = pmaps_pages_open(&c, p, PMAPS_PAGES_SCAN, PMAPS_PAGES_GENTLE);
	if (rc == -ENOTTY || rc == -EINVAL) {
		print_message("skipped: no PAGEMAP_SCAN here (%d)\n", rc);
		pmaps_proc_close(p);
		stop_target_pid(pid, in);
		return;
	}
	assert_int_equal(rc, 0);
	assert_int_equal(pmaps_pages_seek(c, resv, resv + (60ull << 40)), 0);
	while ((rc = pmaps_pages_next(c, &r)) > 0)
		if (r->flags & PMAPS_PG_PRESENT) {
			assert_int_equal(r->start, touched);
			present += r->end - r->start;
		}
	assert_int_equal(rc, 0);
	assert_int_equal(present, PG);
	calls = pmaps_pages_calls(c);
	print_message("gentle walk of 60 TiB reserved: %llu PAGEMAP_SCAN calls\n",
	              (unsigned long long)calls);
	if (calls > 16384)
		fail_msg("%llu calls for 60 TiB with one page: want at most 16384 (fixed 256 MiB steps: "
		         "245760)", (unsigned long long)calls);
	pmaps_pages_close(c);
	pmaps_proc_close(p);
	stop_target_pid(pid, in);
}

/* explain on the layout: parts that add up, stacks found, the lazily freed pages. */
/*
 * Explain from the page sources: the same categories, mapping counts and
 * RSS as from smaps, on the helper at rest; the columns the page source
 * cannot know marked unknown, and no smaps_rollup.
 */
static void test_explain_fast(void **state)
{
	struct helper h;
	struct pmaps_proc *p;
	static struct pmaps_explain a, f, b;
	char msg[256];
	int root = geteuid() == 0;
	const uint32_t both = 1u << PMAPS_XC_RSS | 1u << PMAPS_XC_PRIVATE | 1u << PMAPS_XC_SHARED |
	                      1u << PMAPS_XC_THP | 1u << PMAPS_XC_SWAP;
	(void)state;

	start_helper(&h, "3");
	kill(h.pid, SIGSTOP);
	wait_state_all(h.pid, 'T');
	assert_int_equal(pmaps_proc_open(&p, NULL, h.pidstr), 0);
	a.size = f.size = b.size = sizeof(a);
	for (int gentle = 0; gentle < 2; gentle++) {
		int moved = 0;
		assert_int_equal(pmaps_explain(p, &a, 0, msg, sizeof(msg)), 0);
		if (pmaps_explain(p, &f, PMAPS_EXPLAIN_FAST | (gentle ? PMAPS_EXPLAIN_GENTLE : 0), msg,
		                  sizeof(msg)) != 0)
			fail_msg("explain from pages: %s", msg);
		assert_int_equal(pmaps_explain(p, &b, 0, msg, sizeof(msg)), 0);
		assert_int_equal(a.source, PMAPS_SRC_SMAPS);
		assert_int_equal(a.xc_known, (1u << PMAPS_XC_COUNT) - 1);
		assert_int_equal(f.source, PMAPS_SRC_PAGES);
		assert_int_equal(f.xc_known & both, both);
		assert_int_equal((f.xc_known >> PMAPS_XC_PSS) & 1, root);
		assert_int_equal((f.xc_known >> PMAPS_XC_LAZYFREE) & 1, root);
		assert_int_equal(f.xc_known & (1u << PMAPS_XC_PRIVATE_DIRTY | 1u << PMAPS_XC_LOCKED), 0);
		assert_int_equal(f.have_rollup, 0);
		/* PROCMAP_QUERY does not list [vsyscall] */
		assert_int_equal(f.nmappings + (uint64_t)list_query(LIST_AUTO), a.nmappings);
		assert_int_equal(f.runtime_kind, a.runtime_kind);
		assert_int_equal(f.arenas, a.arenas);
		assert_int_equal(f.stacks_found, a.stacks_found);
		for (int k = 0; k < PMAPS_X_COUNT; k++) {
			if (k != PMAPS_X_OTHER)
				assert_int_equal(f.mappings[k], a.mappings[k]);
			for (int c = 0; c < PMAPS_XC_COUNT; c++) {
				if (!(f.xc_known & (1u << c))) {
					assert_int_equal(f.v[k][c], 0);
					continue;
				}
				/* Shared library pages' map counts move with the machine's processes. */
				if (a.v[k][c] != b.v[k][c]) {
					moved++;
					continue;
				}
				if (c == PMAPS_XC_SWAP && k == PMAPS_X_SHMEM)
					continue; /* shared memory's swap is in its object */
				if (f.v[k][c] != a.v[k][c])
					fail_msg("%s %s: from pages %llu, from smaps %llu",
					         pmaps_xcat_name((enum pmaps_xcat)k),
					         pmaps_xcol_key((enum pmaps_xcol)c),
					         (unsigned long long)f.v[k][c], (unsigned long long)a.v[k][c]);
			}
		}
		assert_int_equal(f.total[PMAPS_XC_RSS], a.total[PMAPS_XC_RSS]);
		assert_int_equal(f.uss, f.total[PMAPS_XC_PRIVATE]);
		if (root)
			assert_int_equal(f.effective_rss, f.total[PMAPS_XC_RSS] - f.total[PMAPS_XC_LAZYFREE]);
		else
			assert_int_equal(f.effective_rss, 0);
		/* The memfd and the shared region: their swap is their objects', unknown here. */
		assert_int_equal(a.swap_unknown, 0);
		expect_set(f.swap_unknown, 1u << PMAPS_X_SHMEM);
		assert_int_equal(pmaps_explain_known(&f, PMAPS_X_SHMEM, PMAPS_XC_SWAP), 0);
		assert_int_equal(pmaps_explain_known(&f, PMAPS_X_ANON, PMAPS_XC_SWAP), 1);
		assert_int_equal(pmaps_explain_known(&f, -1, PMAPS_XC_SWAP), 0);
		assert_int_equal(pmaps_explain_known(&f, -1, PMAPS_XC_RSS), 1);
		assert_int_equal(pmaps_explain_known(&a, -1, PMAPS_XC_SWAP), 1);
		assert_int_equal(pmaps_explain_known(&f, -1, PMAPS_XC_PRIVATE_DIRTY), 0);
		/* The smaps result's PRIVATE is its clean and dirty parts. */
		assert_int_equal(a.total[PMAPS_XC_PRIVATE],
		                 a.total[PMAPS_XC_PRIVATE_DIRTY] + a.total[PMAPS_XC_PRIVATE_CLEAN]);
		/* No note cites a figure the source lacks. */
		for (unsigned i = 0; i < f.nnotes; i++)
			assert_true(f.notes[i].kind != PMAPS_NOTE_ANON_DIRTY &&
			            f.notes[i].kind != PMAPS_NOTE_FILE);
		if (moved)
			printf("note: %d shared-library figure(s) moved between the smaps reads\n", moved);
	}
	assert_int_equal(pmaps_explain(p, &f, PMAPS_EXPLAIN_GENTLE, msg, sizeof(msg)), -EINVAL);
	{
		/* A session says what its last run's read cost. */
		struct pmaps_explain_session *xs;
		const struct pmaps_explain *res;
		struct pmaps_cost k = {.size = sizeof(k)};
		assert_int_equal(pmaps_explain_open(&xs, p, PMAPS_EXPLAIN_FAST | PMAPS_EXPLAIN_GENTLE), 0);
		assert_int_equal(pmaps_explain_run(xs, &res), 0);
		assert_int_equal(pmaps_explain_cost(xs, &k), 0);
		assert_int_equal(k.query, list_query(LIST_AUTO));
		assert_int_equal(k.strategy, PMAPS_PAGES_SCAN);
		expect_ge(k.calls, 2);
		expect_ge(k.pauses, 0);
		pmaps_explain_close(xs);
	}
	pmaps_proc_close(p);
	kill(h.pid, SIGCONT);
	stop_helper(&h);
}

static void test_explain(void **state)
{
	struct helper h;
	struct pmaps_proc *p;
	static struct pmaps_explain x;
	char msg[256];
	uint64_t sum[PMAPS_XC_COUNT] = {0}, maps = 0;
	int zp = zero_page_mapped();
	(void)state;

	start_helper(&h, "3");
	kill(h.pid, SIGSTOP); /* at rest: smaps and smaps_rollup must agree */
	wait_state_all(h.pid, 'T'); /* woken from read() to stop: wait until they have */
	assert_int_equal(pmaps_proc_open(&p, NULL, h.pidstr), 0);
	x.size = sizeof(x);
	assert_int_equal(pmaps_explain(p, &x, PMAPS_EXPLAIN_PAGES, msg, sizeof(msg)), 0);
	assert_int_equal(x.pages, 1);
	for (int k = 0; k < PMAPS_X_COUNT; k++) {
		/*
		 * Two layers, one answer: resident pages are the Rss, category by
		 * category; the zero page, which the page table maps and RSS does
		 * not count, is counted apart.
		 */
		if (x.pg[k][PMAPS_XP_RESIDENT] != x.v[k][PMAPS_XC_RSS])
			fail_msg("%s: %llu bytes resident (%llu zero page apart), Rss %llu",
			         pmaps_xcat_name((enum pmaps_xcat)k),
			         (unsigned long long)x.pg[k][PMAPS_XP_RESIDENT],
			         (unsigned long long)x.pg[k][PMAPS_XP_ZERO],
			         (unsigned long long)x.v[k][PMAPS_XC_RSS]);
	}
	/* The zero page region: 8 pages, seen by PAGEMAP_SCAN (private pages, if no zero page). */
	assert_int_equal(x.pages_strategy, PMAPS_PAGES_SCAN);
	assert_int_equal(x.pg[PMAPS_X_ANON][PMAPS_XP_ZERO], zp ? 8 * PG : 0);
	if (geteuid() == 0) {
		/* kpageflags agrees with smaps on LazyFree; the child shares 8 shmem pages. */
		assert_int_equal(x.pages_kpage, 1);
		assert_int_equal(x.pg[PMAPS_X_ANON][PMAPS_XP_LAZYFREE], x.v[PMAPS_X_ANON][PMAPS_XC_LAZYFREE]);
		assert_int_equal(x.pg[PMAPS_X_ANON][PMAPS_XP_LAZYFREE], 16 * PG);
		assert_int_equal(x.pg[PMAPS_X_SHMEM][PMAPS_XP_SHARED], 8 * PG);
	} else {
		printf("note: not root: the physical page state of explain --pages is not checked\n");
	}
	for (int k = 0; k < PMAPS_X_COUNT; k++) {
		const uint64_t *v = x.v[k];
		/* Private dirty + private clean + shared is the RSS, category by category. */
		assert_int_equal(v[PMAPS_XC_PRIVATE_DIRTY] + v[PMAPS_XC_PRIVATE_CLEAN] + v[PMAPS_XC_SHARED],
		                 v[PMAPS_XC_RSS]);
		for (int c = 0; c < PMAPS_XC_COUNT; c++)
			sum[c] += v[c];
		maps += x.mappings[k];
	}
	assert_memory_equal(sum, x.total, sizeof(sum));
	assert_int_equal(maps, x.nmappings);
	assert_int_equal(x.have_rollup, 1);
	assert_int_equal(x.total[PMAPS_XC_RSS], x.rollup[PMAPS_F_RSS]);
	assert_int_equal(x.total[PMAPS_XC_LAZYFREE], x.rollup[PMAPS_F_LAZY_FREE]);
	expect_ge(x.v[PMAPS_X_ANON][PMAPS_XC_LAZYFREE], 16 * PG);
	/* The helper and its 3 threads, blocked in read(): every stack found. */
	assert_int_equal(x.threads, 4);
	assert_int_equal(x.stacks_found, 3);
	assert_int_equal(x.mappings[PMAPS_X_THREAD_STACK], 3);
	assert_int_equal(x.stacks_guessed, 0);
	assert_int_equal(x.mappings[PMAPS_X_MAIN_STACK], 1);
	/* Each of the 3 threads malloc()ed: 3 glibc arenas, 256 KiB touched in each. */
	assert_int_equal(x.runtime_kind, PMAPS_RUNTIME_GLIBC);
	assert_int_equal(x.arenas, 3);
	assert_int_equal(x.mappings[PMAPS_X_RUNTIME_HEAP], 3);
	expect_ge(x.v[PMAPS_X_RUNTIME_HEAP][PMAPS_XC_RSS], 3 * (256ull << 10));
	/* memfd (4 pages) and the shared region (8): shared memory. */
	assert_int_equal(x.v[PMAPS_X_SHMEM][PMAPS_XC_RSS], 12 * PG);
	assert_int_not_equal(x.status.present, 0);
	assert_int_equal(x.status.v[PMAPS_ST_VM_RSS], x.status.v[PMAPS_ST_RSS_ANON] + x.status.v[PMAPS_ST_RSS_FILE] + x.status.v[PMAPS_ST_RSS_SHMEM]);
	/*
	 * The largest first: the RSS of the PMAPS_EXPLAIN_TOP largest mappings
	 * smaps shows (the helper is stopped), each where it belongs. The layout
	 * has more resident mappings than that, so the list is full.
	 */
	{
		uint64_t want[PMAPS_EXPLAIN_TOP] = {0};
		unsigned nres = 0;
		struct pmaps_maps *sm;
		const struct pmaps_mapping *m;
		int rc;
		assert_int_equal(pmaps_maps_open(&sm, p, PMAPS_SRC_SMAPS, 0), 0);
		while ((rc = pmaps_maps_next(sm, &m)) > 0) {
			uint64_t rss = m->v[PMAPS_F_RSS];
			unsigned i = nres < PMAPS_EXPLAIN_TOP ? nres : PMAPS_EXPLAIN_TOP - 1;
			if (rss == 0)
				continue;
			nres++;
			if (want[i] >= rss)
				continue;
			for (; i > 0 && want[i - 1] < rss; i--)
				want[i] = want[i - 1];
			want[i] = rss;
		}
		assert_int_equal(rc, 0);
		pmaps_maps_close(sm);
		expect_gt(nres, PMAPS_EXPLAIN_TOP);
		assert_int_equal(x.ntop, PMAPS_EXPLAIN_TOP);
		for (unsigned i = 0; i < x.ntop; i++)
			if (x.top[i].rss != want[i])
				fail_msg("top[%u]: rss %llu, want %llu (the #%u largest in smaps)", i,
				         (unsigned long long)x.top[i].rss, (unsigned long long)want[i], i + 1);
	}
	pmaps_proc_close(p);
	kill(h.pid, SIGCONT);
	stop_helper(&h);
}

/*
 * A runtime's target, started with ARGV and ENVP: it prints "ready" once its
 * memory is in place and exits when its stdin closes.  Stopped on return.
 */
struct rt_target {
	pid_t pid;
	int to;
	FILE *from;
};

static void start_target(struct rt_target *t, char *const argv[], char *const envp[])
{
	char line[64];
	int to[2], from[2];

	assert_int_equal(pipe2(to, O_CLOEXEC), 0);
	assert_int_equal(pipe2(from, O_CLOEXEC), 0);
	t->pid = fork();
	if (t->pid == 0) {
		dup2(to[0], 0);
		dup2(from[1], 1);
		execve(argv[0], argv, envp);
		_exit(127);
	}
	running_helper = t->pid;
	close(to[0]);
	close(from[1]);
	t->to = to[1];
	t->from = fdopen(from[0], "r");
	assert_non_null(fgets(line, sizeof(line), t->from));
	assert_string_equal(line, "ready\n");
	kill(t->pid, SIGSTOP);
	wait_state_all(t->pid, 'T');
}

static void explain_target(const struct rt_target *t, struct pmaps_explain *x)
{
	struct pmaps_proc *p;
	char pid[16], msg[256];

	snprintf(pid, sizeof(pid), "%d", (int)t->pid);
	assert_int_equal(pmaps_proc_open(&p, NULL, pid), 0);
	x->size = sizeof(*x);
	assert_int_equal(pmaps_explain(p, x, 0, msg, sizeof(msg)), 0);
	/* The parts add up to the kernel's total, LazyFree included. */
	assert_int_equal(x->total[PMAPS_XC_RSS], x->rollup[PMAPS_F_RSS]);
	assert_int_equal(x->total[PMAPS_XC_LAZYFREE], x->rollup[PMAPS_F_LAZY_FREE]);
	pmaps_proc_close(p);
}

static void stop_target(struct rt_target *t)
{
	int st;

	kill(t->pid, SIGCONT);
	close(t->to);
	fclose(t->from);
	assert_int_equal(waitpid(t->pid, &st, 0), t->pid);
	running_helper = 0;
	expect_exited(st, 0);
}

/* The Go target under GODEBUG=madvdontneed=M: its heap found, the gap named. */
static void explain_go(int madvdontneed)
{
	static struct pmaps_explain x;
	char env[32];
	char *argv[] = {PMAPS_GO_TARGET, NULL}, *envp[] = {env, NULL};
	struct rt_target t;

	snprintf(env, sizeof(env), "GODEBUG=madvdontneed=%d", madvdontneed);
	start_target(&t, argv, envp);
	explain_target(&t, &x);
	assert_int_equal(x.runtime_kind, PMAPS_RUNTIME_GO);
	assert_memory_equal(x.runtime_version, "go1.", 4);
	const uint64_t *g = x.v[PMAPS_X_RUNTIME_HEAP];
	expect_ge(g[PMAPS_XC_RSS], 16ull << 20); /* the 16 MiB kept, at least */
	if (madvdontneed == 0) {
		/* 48 MiB returned with MADV_FREE: still in RSS, as LazyFree. */
		expect_ge(g[PMAPS_XC_LAZYFREE], 40ull << 20);
		expect_ge(g[PMAPS_XC_RSS], 56ull << 20);
	} else {
		/* Returned with MADV_DONTNEED: gone from RSS. */
		assert_int_equal(g[PMAPS_XC_LAZYFREE], 0);
		expect_lt(g[PMAPS_XC_RSS], 40ull << 20);
	}
	stop_target(&t);
}

static void test_explain_go(void **state)
{
	(void)state;
	if (!PMAPS_GO_TARGET[0]) {
		printf("skipped: no Go toolchain (Debian's golang-go) to build the target\n");
		skip();
	}
	explain_go(0);
	explain_go(1);
}

/* One mapping of smaps, of the file DEV INODE (0 0: anonymous), RSS_KB resident and dirty. */
static void smaps_entry_of(FILE *f, uint64_t start, uint64_t end, const char *perms, dev_t dev,
                           ino_t inode, const char *name, unsigned rss_kb)
{
	fprintf(f, "%012llx-%012llx %s 00000000 %02x:%02x %llu %s\n", (unsigned long long)start,
	        (unsigned long long)end, perms, major(dev), minor(dev), (unsigned long long)inode,
	        name);
	fprintf(f,
	        "Size: %llu kB\nKernelPageSize: 4 kB\nMMUPageSize: 4 kB\nRss: %u kB\nPss: %u kB\n"
	        "Pss_Dirty: %u kB\nShared_Clean: 0 kB\nShared_Dirty: 0 kB\nPrivate_Clean: 0 kB\n"
	        "Private_Dirty: %u kB\nReferenced: %u kB\nAnonymous: %u kB\nKSM: 0 kB\n"
	        "LazyFree: 0 kB\nAnonHugePages: 0 kB\nShmemPmdMapped: 0 kB\nFilePmdMapped: 0 kB\n"
	        "Shared_Hugetlb: 0 kB\nPrivate_Hugetlb: 0 kB\nSwap: 0 kB\nSwapPss: 0 kB\n"
	        "Locked: 0 kB\nTHPeligible: 0\nVmFlags: rd wr mr mw me ac \n",
	        (unsigned long long)((end - start) >> 10), rss_kb, rss_kb, rss_kb, rss_kb, rss_kb,
	        rss_kb);
}

static void smaps_entry(FILE *f, uint64_t start, uint64_t end, const char *perms, const char *name,
                        unsigned rss_kb)
{
	smaps_entry_of(f, start, end, perms, 0, 0, name, rss_kb);
}

static void copy_file(const char *from, const char *to)
{
	static char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC), out;
	ssize_t n;

	expect_sys(in);
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	expect_sys(out);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		assert_int_equal(write(out, buf, (size_t)n), n);
	assert_int_equal(n, 0);
	close(in);
	assert_int_equal(close(out), 0);
}

/*
 * Go 1.25's labels, on a process tree made here (this kernel may not name
 * mappings): the Go target's executable, and smaps with "[anon: Go: heap]"
 * outside the arenas, "[anon: Go: heap reservation]" inside and outside them,
 * a metadata label, and the arena run's edges.  Exact sums.
 */
static void test_explain_go_labels(void **state)
{
	static struct pmaps_explain x;
	char root[] = "/tmp/pmaps-golabels-XXXXXX", dir[128], path[160], msg[256];
	struct pmaps_proc *p;
	FILE *f;

	(void)state;
	if (!PMAPS_GO_TARGET[0]) {
		printf("skipped: no Go toolchain (Debian's golang-go) to build the target\n");
		skip();
	}
	assert_non_null(mkdtemp(root));
	snprintf(dir, sizeof(dir), "%s/400", root);
	assert_int_equal(mkdir(dir, 0755), 0);
	/* A copy: in a tree that is not procfs, explain follows no symlink. */
	snprintf(path, sizeof(path), "%s/exe", dir);
	copy_file(PMAPS_GO_TARGET, path);
	snprintf(path, sizeof(path), "%s/smaps", dir);
	assert_non_null(f = fopen(path, "w"));
	smaps_entry(f, 0xc000000000, 0xc000400000, "rw-p", "[anon: Go: heap]", 4096);
	smaps_entry(f, 0xc000400000, 0xc004000000, "---p", "[anon: Go: heap reservation]", 0);
	smaps_entry(f, 0xc004000000, 0xc004200000, "rw-p", "", 64); /* the run goes on */
	smaps_entry(f, 0x7f0000000000, 0x7f0000200000, "rw-p", "[anon: Go: heap]", 1024);
	smaps_entry(f, 0x7f0000200000, 0x7f0000400000, "rw-p", "[anon: Go: heap reservation]", 12);
	smaps_entry(f, 0x7f0000400000, 0x7f0000600000, "rw-p", "[anon: Go: page summary]", 8);
	/* Above the hint 0x7fc000000000, in the mmap area: not in a run from it. */
	smaps_entry(f, 0x7fdb9c1fe000, 0x7fdb9c3fe000, "rw-p", "", 100);
	assert_int_equal(fclose(f), 0);
	snprintf(path, sizeof(path), "%s/smaps_rollup", dir);
	assert_non_null(f = fopen(path, "w"));
	smaps_entry(f, 0xc000000000, 0x7fdb9c3fe000, "---p", "[rollup]",
	            4096 + 64 + 1024 + 12 + 8 + 100);
	assert_int_equal(fclose(f), 0);

	assert_int_equal(pmaps_proc_open(&p, root, "400"), 0);
	x.size = sizeof(x);
	assert_int_equal(pmaps_explain(p, &x, 0, msg, sizeof(msg)), 0);
	pmaps_proc_close(p);
	assert_int_equal(x.runtime_kind, PMAPS_RUNTIME_GO);
	assert_int_equal(x.go_labels, 3);
	expect_contains(x.runtime_evidence, "3 mapping(s) labelled as Go's heap");
	assert_int_equal(x.v[PMAPS_X_RUNTIME_HEAP][PMAPS_XC_RSS], (4096 + 64 + 1024) << 10);
	assert_int_equal(x.mappings[PMAPS_X_RUNTIME_HEAP], 4);
	/* Reserved outside the arenas (metadata) and other labels stay named. */
	assert_int_equal(x.v[PMAPS_X_ANON_NAMED][PMAPS_XC_RSS], (12 + 8) << 10);
	assert_int_equal(x.v[PMAPS_X_ANON][PMAPS_XC_RSS], 100 << 10);
	assert_int_equal(x.total[PMAPS_XC_RSS], x.rollup[PMAPS_F_RSS]);

	const char *files[] = {"exe", "smaps", "smaps_rollup"};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		assert_int_equal(unlink(path), 0);
	}
	assert_int_equal(rmdir(dir), 0);
	assert_int_equal(rmdir(root), 0);
}

/* One hsperfdata entry at B + OFF: NAME, a long (TYPE 'J') or a string ('B'). */
static size_t perf_entry(unsigned char *b, size_t off, const char *name, char type, uint64_t v,
                         const char *str)
{
	size_t nlen = strlen(name) + 1, doff = (20 + nlen + 7) & ~(size_t)7;
	size_t vlen = type == 'B' ? strlen(str) + 1 : 1, dlen = type == 'B' ? vlen : 8;
	uint32_t len = (uint32_t)((doff + dlen + 7) & ~(size_t)7), w;

	memcpy(b + off, &len, 4);
	w = 20;
	memcpy(b + off + 4, &w, 4);
	w = (uint32_t)(type == 'B' ? vlen : 0);
	memcpy(b + off + 8, &w, 4);
	b[off + 12] = (unsigned char)type;
	w = (uint32_t)doff;
	memcpy(b + off + 16, &w, 4);
	memcpy(b + off + 20, name, nlen);
	if (type == 'B')
		memcpy(b + off + doff, str, vlen);
	else
		memcpy(b + off + doff, &v, 8);
	return off + len;
}

/*
 * An hsperfdata file of G1 into B: magic, little-endian, version 2, three
 * entries from byte 32 (the collector's name and the maximum capacities
 * YOUNG and OLD of its two generations). Returns its length.
 */
static size_t perf_g1(unsigned char *b, uint64_t young, uint64_t old)
{
	size_t off;
	uint32_t w;

	memcpy(b, "\xca\xfe\xc0\xc0\x01\x02\x00\x01", 8);
	off = perf_entry(b, 32, "sun.gc.policy.name", 'B', 0, "GarbageFirst");
	off = perf_entry(b, off, "sun.gc.generation.0.maxCapacity", 'J', young, NULL);
	off = perf_entry(b, off, "sun.gc.generation.1.maxCapacity", 'J', old, NULL);
	w = 32;
	memcpy(b + 24, &w, 4);
	w = 3;
	memcpy(b + 28, &w, 4);
	return off;
}

/*
 * The JVM's rule on a process tree made here, with hsperfdata files written
 * by the test: a well-formed one (G1, the heap exact), then malformed ones
 * (the heap stays anon, nothing read out of bounds).
 */
static void jvm_tree(const char *root, const unsigned char *perf, size_t perflen,
                     struct pmaps_explain *x)
{
	char path[256], msg[256];
	struct pmaps_proc *p;
	FILE *f;

	snprintf(path, sizeof(path), "%s/400/root/tmp/hsperfdata_u/400", root);
	assert_non_null(f = fopen(path, "w"));
	assert_int_equal(fwrite(perf, 1, perflen, f), perflen);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(pmaps_proc_open(&p, root, "400"), 0);
	x->size = sizeof(*x);
	assert_int_equal(pmaps_explain(p, x, 0, msg, sizeof(msg)), 0);
	pmaps_proc_close(p);
	assert_int_equal(x->runtime_kind, PMAPS_RUNTIME_JVM);
	assert_int_equal(x->total[PMAPS_XC_RSS], x->rollup[PMAPS_F_RSS]);
}

static void test_explain_jvm_perfdata(void **state)
{
	static struct pmaps_explain x;
	static unsigned char perf[4096];
	char root[] = "/tmp/pmaps-jvm-XXXXXX", path[256];
	struct stat st;
	const char *dirs[] = {"400", "400/root", "400/root/tmp", "400/root/tmp/hsperfdata_u"};
	size_t off;
	uint32_t w;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(root));
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", root, dirs[i]);
		assert_int_equal(mkdir(path, 0755), 0);
	}
	/* The counters' file first: smaps names its device and inode. */
	snprintf(path, sizeof(path), "%s/400/root/tmp/hsperfdata_u/400", root);
	assert_non_null(f = fopen(path, "w"));
	assert_int_equal(fclose(f), 0);
	assert_int_equal(stat(path, &st), 0);
	snprintf(path, sizeof(path), "%s/400/smaps", root);
	assert_non_null(f = fopen(path, "w"));
	smaps_entry(f, 0xf8000000, 0xfc000000, "rw-p", "", 1024);
	smaps_entry(f, 0xfc000000, 0x100000000, "---p", "", 0);
	smaps_entry(f, 0x100100000, 0x100300000, "rw-p", "", 8); /* apart: not the heap */
	smaps_entry(f, 0x7f0000000000, 0x7f0000100000, "r-xp",
	            "/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so", 0);
	smaps_entry_of(f, 0x7f0000200000, 0x7f0000208000, "rw-s", st.st_dev, st.st_ino,
	               "/tmp/hsperfdata_u/400", 0);
	assert_int_equal(fclose(f), 0);
	snprintf(path, sizeof(path), "%s/400/smaps_rollup", root);
	assert_non_null(f = fopen(path, "w"));
	smaps_entry(f, 0xf8000000, 0x7f0000208000, "---p", "[rollup]", 1024 + 8);
	assert_int_equal(fclose(f), 0);

	/* Well-formed: magic, little-endian, version 2, entries from 32. */
	off = perf_g1(perf, (128u << 20) + 24, (128u << 20) + 8);
	jvm_tree(root, perf, off, &x);
	assert_int_equal(x.jvm_heap_start, 0xf8000000);
	assert_int_equal(x.jvm_heap_end, 0x100000000);
	assert_int_equal(x.v[PMAPS_X_RUNTIME_HEAP][PMAPS_XC_RSS], 1024 << 10);
	assert_int_equal(x.mappings[PMAPS_X_RUNTIME_HEAP], 1);
	assert_int_equal(x.v[PMAPS_X_ANON][PMAPS_XC_RSS], 8 << 10);

	/* Another file at the mapped path (the process can swap it): not read. */
	char mapped[256], moved[256];
	snprintf(mapped, sizeof(mapped), "%s/400/root/tmp/hsperfdata_u/400", root);
	snprintf(moved, sizeof(moved), "%s/moved", root);
	assert_int_equal(rename(mapped, moved), 0);
	jvm_tree(root, perf, off, &x); /* a new file, a new inode, the same bytes */
	assert_int_equal(x.jvm_heap_end, 0);
	assert_int_equal(x.v[PMAPS_X_RUNTIME_HEAP][PMAPS_XC_RSS], 0);
	assert_int_equal(rename(moved, mapped), 0); /* the mapped one back */
	jvm_tree(root, perf, off, &x);
	assert_int_equal(x.jvm_heap_end, 0x100000000);

	/* A collector whose layout is not known: not claimed, said so. */
	perf_entry(perf, 32, "sun.gc.policy.name", 'B', 0, "Z");
	jvm_tree(root, perf, off, &x);
	assert_int_equal(x.jvm_heap_end, 0);
	assert_int_equal(x.v[PMAPS_X_RUNTIME_HEAP][PMAPS_XC_RSS], 0);
	expect_contains(x.runtime_evidence, "heap size not known");

	/* Malformed: lengths out of range, a count far past the file, truncation. */
	w = 0x7fffffff;
	memcpy(perf + 28, &w, 4);
	memcpy(perf + 32, &w, 4);
	jvm_tree(root, perf, off, &x);
	assert_int_equal(x.jvm_heap_end, 0);
	w = 3;
	memcpy(perf + 32, &w, 4); /* shorter than an entry's header */
	jvm_tree(root, perf, off, &x);
	assert_int_equal(x.jvm_heap_end, 0);
	jvm_tree(root, perf, 20, &x);
	assert_int_equal(x.jvm_heap_end, 0);
	memcpy(perf, "\xca\xfe\xc0\xc0\x00\x02", 6); /* big-endian: not read */
	jvm_tree(root, perf, off, &x);
	assert_int_equal(x.jvm_heap_end, 0);

	const char *files[] = {"400/root/tmp/hsperfdata_u/400", "400/smaps", "400/smaps_rollup"};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", root, files[i]);
		assert_int_equal(unlink(path), 0);
	}
	for (size_t i = sizeof(dirs) / sizeof(dirs[0]); i-- > 0;) {
		snprintf(path, sizeof(path), "%s/%s", root, dirs[i]);
		assert_int_equal(rmdir(path), 0);
	}
	assert_int_equal(rmdir(root), 0);
}

/*
 * Files a hostile target names.  The target maps DIR/jvm/x/lib/server/libjvm.so
 * (which names the JVM), a heap of HOSTILE_HEAP bytes between two pages of
 * it (one run of anonymous memory, of the size its hsperfdata file gives,
 * so explain claims it), and that file, DIR/hsperfdata_u/123.  The test then
 * unlinks the file and puts something at the name the kernel shows for it:
 * explain must open none of it (inotify sees every open but O_PATH's),
 * never block, and still give the right numbers.
 */
#define HOSTILE_HEAP (64ull << 20)
#define HOSTILE_TOUCHED (1ull << 20)

static pid_t hostile_target(const char *dir, uint64_t *heap)
{
	char path[512];
	int fds[2];
	pid_t pid;

	assert_int_equal(pipe2(fds, O_CLOEXEC), 0);
	pid = fork();
	expect_sys(pid);
	if (pid == 0) {
		char *r;
		int j, p;
		snprintf(path, sizeof(path), "%s/jvm/x/lib/server/libjvm.so", dir);
		j = open(path, O_RDONLY);
		snprintf(path, sizeof(path), "%s/hsperfdata_u/123", dir);
		p = open(path, O_RDONLY);
		r = mmap(NULL, HOSTILE_HEAP + 2 * PG, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (j < 0 || p < 0 || r == MAP_FAILED ||
		    mmap(r, PG, PROT_READ, MAP_PRIVATE | MAP_FIXED, j, 0) == MAP_FAILED ||
		    mmap(r + PG, HOSTILE_HEAP, PROT_READ | PROT_WRITE,
		         MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED ||
		    mmap(r + PG + HOSTILE_HEAP, PG, PROT_READ, MAP_PRIVATE | MAP_FIXED, j, PG) ==
		        MAP_FAILED ||
		    mmap(NULL, PG, PROT_READ, MAP_SHARED, p, 0) == MAP_FAILED)
			_exit(1);
		memset(r + PG, 1, HOSTILE_TOUCHED);
		*heap = (uint64_t)(uintptr_t)(r + PG);
		if (write(fds[1], heap, sizeof(*heap)) != sizeof(*heap))
			_exit(1);
		pause();
		_exit(0);
	}
	running_helper = pid;
	close(fds[1]);
	assert_int_equal(read(fds[0], heap, sizeof(*heap)), sizeof(*heap));
	close(fds[0]);
	wait_state_all(pid, 'S');
	return pid;
}

/* Without CAP_SYS_ADMIN and CAP_CHECKPOINT_RESTORE, /proc/PID/map_files is closed. */
static int drop_map_files_caps(void)
{
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d) != 0)
		return -1;
	d[0].effective &= ~(1u << 21);       /* CAP_SYS_ADMIN */
	d[0].permitted &= ~(1u << 21);
	d[1].effective &= ~(1u << (40 - 32)); /* CAP_CHECKPOINT_RESTORE */
	d[1].permitted &= ~(1u << (40 - 32));
	return (int)syscall(SYS_capset, &h, d);
}

/* lib/explain.c's test knob: the path for kernels before openat2 (5.6). */
extern int pmaps__explain_no_openat2;

/*
 * pmaps_explain of PID in a child (without map_files' privilege when
 * DROP; DROP 2: and walking names as before openat2), into X (shared
 * memory); the child is killed after 20 s, so a blocking open fails the
 * test instead of hanging it. Returns the child's exit status: 0 when
 * explain succeeded.
 */
static int explain_in_child(pid_t pid, int drop, struct pmaps_explain *x)
{
	pid_t kid = fork();
	int st;

	expect_sys(kid);
	if (kid == 0) {
		struct pmaps_proc *p;
		char name[16], msg[256];
		alarm(20);
		if (drop && drop_map_files_caps() != 0)
			_exit(3);
		pmaps__explain_no_openat2 = drop == 2;
		snprintf(name, sizeof(name), "%d", (int)pid);
		if (pmaps_proc_open(&p, NULL, name) != 0)
			_exit(4);
		x->size = sizeof(*x);
		if (pmaps_explain(p, x, 0, msg, sizeof(msg)) != 0)
			_exit(5);
		pmaps_proc_close(p);
		_exit(0);
	}
	assert_int_equal(waitpid(kid, &st, 0), kid);
	if (WIFSIGNALED(st))
		fail_msg("explain was killed by signal %d (SIGALRM: it blocked)", WTERMSIG(st));
	return WEXITSTATUS(st);
}

/* No open(2) of a watched file since the last call: the events inotify has, printed. */
static void assert_not_opened(int in, const char *what)
{
	char buf[4096];
	ssize_t n = read(in, buf, sizeof(buf));
	int err = errno;

	/* IN_IGNORED comes when a watched file goes: only IN_OPEN counts. */
	for (ssize_t i = 0; i < n;) {
		const struct inotify_event *e = (const void *)(buf + i);
		if (e->mask & IN_OPEN)
			fail_msg("%s: explain opened a file the target put there (inotify wd %d)", what,
			         e->wd);
		i += (ssize_t)(sizeof(*e) + e->len);
	}
	/* Nothing at all to read is the usual answer. */
	if (n < 0)
		assert_int_equal(err, EAGAIN);
	else
		expect_gt(n, 0);
}

static void test_explain_hostile_files(void **state)
{
	static unsigned char perf[4096];
	char dir[] = "/tmp/pmaps-hostile-XXXXXX", path[512], deleted[600], secret[512], fifo[512];
	struct pmaps_explain *x;
	uint64_t heap;
	pid_t pid;
	int in, fd, st;
	(void)state;

	if (geteuid() != 0) {
		printf("skipped: not root: the hostile-file tests need map_files and mknod\n");
		skip();
	}
	x = mmap(NULL, sizeof(*x), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_ptr_not_equal(x, MAP_FAILED);
	assert_non_null(mkdtemp(dir));
	const char *dirs[] = {"jvm", "jvm/x", "jvm/x/lib", "jvm/x/lib/server", "hsperfdata_u", "evil"};
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, dirs[i]);
		assert_int_equal(mkdir(path, 0755), 0);
	}
	snprintf(path, sizeof(path), "%s/jvm/x/lib/server/libjvm.so", dir);
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	expect_sys(fd);
	assert_int_equal(ftruncate(fd, 2 * PG), 0);
	close(fd);
	/* G1 with a heap of HOSTILE_HEAP bytes. */
	perf_g1(perf, HOSTILE_HEAP + 24, HOSTILE_HEAP);
	snprintf(path, sizeof(path), "%s/hsperfdata_u/123", dir);
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	expect_sys(fd);
	assert_int_equal(write(fd, perf, sizeof(perf)), sizeof(perf));
	close(fd);

	pid = hostile_target(dir, &heap);
	/* The file as mapped: its counters give the heap. */
	assert_int_equal(explain_in_child(pid, 0, x), 0);
	assert_int_equal(x->runtime_kind, PMAPS_RUNTIME_JVM);
	assert_int_equal(x->jvm_heap_start, heap);
	assert_int_equal(x->jvm_heap_end, heap + HOSTILE_HEAP);
	assert_int_equal(x->v[PMAPS_X_RUNTIME_HEAP][PMAPS_XC_RSS], HOSTILE_TOUCHED);
	/* By its name (openat2, then the walk for older kernels): the same file, the same heap. */
	for (int drop = 1; drop <= 2; drop++) {
		st = explain_in_child(pid, drop, x);
		if (st == 3) {
			printf("note: capabilities cannot be dropped: the by-name open is not tested\n");
			break;
		}
		assert_int_equal(st, 0);
		if (x->jvm_heap_end != heap + HOSTILE_HEAP)
			fail_msg("by name (%d): heap end 0x%llx, want 0x%llx (%s)", drop,
			         (unsigned long long)x->jvm_heap_end,
			         (unsigned long long)(heap + HOSTILE_HEAP), x->runtime_evidence);
		assert_int_equal(x->v[PMAPS_X_RUNTIME_HEAP][PMAPS_XC_RSS], HOSTILE_TOUCHED);
	}

	/* Unlinked: the kernel shows the name with " (deleted)", which is anyone's to create. */
	assert_int_equal(unlink(path), 0);
	snprintf(deleted, sizeof(deleted), "%s (deleted)", path);
	snprintf(secret, sizeof(secret), "%s/secret", dir);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	fd = open(secret, O_WRONLY | O_CREAT, 0600);
	expect_sys(fd);
	assert_int_equal(write(fd, perf, sizeof(perf)), sizeof(perf)); /* even well-formed */
	close(fd);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	expect_sys(in);
	expect_sys(inotify_add_watch(in, secret, IN_OPEN));
	expect_sys(inotify_add_watch(in, fifo, IN_OPEN));

	for (int kind = 0; kind < 5; kind++) {
		static const char *const what[] = {"symlink to a file", "symlink to a FIFO",
		                                   "a FIFO", "a device node",
		                                   "a symlinked directory"};
		char evil[512], hsp[512], real[512];
		snprintf(hsp, sizeof(hsp), "%s/hsperfdata_u", dir);
		snprintf(real, sizeof(real), "%s/hsperfdata_real", dir);
		snprintf(evil, sizeof(evil), "%s/evil/123 (deleted)", dir);
		switch (kind) {
		case 0: assert_int_equal(symlink(secret, deleted), 0); break;
		case 1: assert_int_equal(symlink(fifo, deleted), 0); break;
		case 2: assert_int_equal(mkfifo(deleted, 0600), 0); break;
		case 3:
			/* /dev/null's numbers: harmless to open, but opening is what is watched. */
			assert_int_equal(mknod(deleted, S_IFCHR | 0600, makedev(1, 3)), 0);
			break;
		case 4:
			/* The last component is a FIFO; a directory on the way is a symlink. */
			assert_int_equal(mkfifo(evil, 0600), 0);
			assert_int_equal(rename(hsp, real), 0);
			snprintf(path, sizeof(path), "%s/evil", dir);
			assert_int_equal(symlink(path, hsp), 0);
			break;
		}
		if (kind >= 2)
			expect_sys(inotify_add_watch(in, kind == 4 ? evil : deleted, IN_OPEN));
		/* As root: through map_files, the very file, unlinked or not. */
		assert_int_equal(explain_in_child(pid, 0, x), 0);
		assert_not_opened(in, what[kind]);
		if (x->jvm_heap_end != heap + HOSTILE_HEAP)
			fail_msg("%s: heap end 0x%llx, want 0x%llx (%s)", what[kind],
			         (unsigned long long)x->jvm_heap_end,
			         (unsigned long long)(heap + HOSTILE_HEAP), x->runtime_evidence);
		assert_int_equal(x->v[PMAPS_X_RUNTIME_HEAP][PMAPS_XC_RSS], HOSTILE_TOUCHED);
		assert_int_equal(x->total[PMAPS_XC_RSS], x->rollup[PMAPS_F_RSS]);
		/* Without map_files: by the name, which leads nowhere it may go. */
		for (int drop = 1; drop <= 2; drop++) {
			st = explain_in_child(pid, drop, x);
			if (st == 3) {
				printf("note: capabilities cannot be dropped: the by-name open is not tested\n");
				break;
			}
			assert_int_equal(st, 0);
			assert_not_opened(in, what[kind]);
			assert_int_equal(x->jvm_heap_end, 0);
			assert_int_equal(x->v[PMAPS_X_RUNTIME_HEAP][PMAPS_XC_RSS], 0);
			expect_ge(x->v[PMAPS_X_ANON][PMAPS_XC_RSS], HOSTILE_TOUCHED);
			assert_int_equal(x->total[PMAPS_XC_RSS], x->rollup[PMAPS_F_RSS]);
			expect_contains(x->runtime_evidence, "heap size not known");
		}
		if (kind == 4) {
			assert_int_equal(unlink(hsp), 0);
			assert_int_equal(rename(real, hsp), 0);
			assert_int_equal(unlink(evil), 0);
		} else {
			assert_int_equal(unlink(deleted), 0);
		}
	}
	close(in);
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	running_helper = 0;
	assert_int_equal(unlink(secret), 0);
	assert_int_equal(unlink(fifo), 0);
	snprintf(path, sizeof(path), "%s/jvm/x/lib/server/libjvm.so", dir);
	assert_int_equal(unlink(path), 0);
	for (size_t i = sizeof(dirs) / sizeof(dirs[0]); i-- > 0;) {
		snprintf(path, sizeof(path), "%s/%s", dir, dirs[i]);
		assert_int_equal(rmdir(path), 0);
	}
	assert_int_equal(rmdir(dir), 0);
	munmap(x, sizeof(*x));
}

/* "Key:  123 kB" of a status text, in bytes; UINT64_MAX when absent. */
static uint64_t status_kb(const char *text, const char *key)
{
	const char *p = strstr(text, key);
	unsigned long long v;

	if (!p || sscanf(p + strlen(key), " %llu kB", &v) != 1)
		return UINT64_MAX;
	return (uint64_t)v << 10;
}

/*
 * A process in 2,000 supplementary groups: its status has a 14 KiB Groups
 * line before the Vm lines. explain reads them all the same.
 */
static void test_explain_long_status(void **state)
{
	static struct pmaps_explain x;
	static char text[65536];
	struct pmaps_proc *p;
	char name[64], msg[256];
	int fds[2], fd, st;
	ssize_t n;
	pid_t pid;
	(void)state;

	assert_int_equal(pipe2(fds, O_CLOEXEC), 0);
	pid = fork();
	expect_sys(pid);
	if (pid == 0) {
		static gid_t g[2000];
		for (int i = 0; i < 2000; i++)
			g[i] = (gid_t)(100000 + i);
		char ok = setgroups(2000, g) == 0 ? 'y' : 'n';
		if (write(fds[1], &ok, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	running_helper = pid;
	close(fds[1]);
	char ok = 0;
	assert_int_equal(read(fds[0], &ok, 1), 1);
	close(fds[0]);
	if (ok != 'y') {
		printf("skipped: setgroups() refused (not root): the long status is not tested\n");
		skip(); /* the teardown ends the child */
	} else {
		wait_state_all(pid, 'S');
		snprintf(name, sizeof(name), "/proc/%d/status", (int)pid);
		fd = open(name, O_RDONLY);
		expect_sys(fd);
		n = 0;
		for (ssize_t k; (k = read(fd, text + n, sizeof(text) - 1 - (size_t)n)) > 0;)
			n += k;
		close(fd);
		text[n] = '\0';
		expect_gt(n, 8192);
		snprintf(name, sizeof(name), "%d", (int)pid);
		assert_int_equal(pmaps_proc_open(&p, NULL, name), 0);
		x.size = sizeof(x);
		assert_int_equal(pmaps_explain(p, &x, 0, msg, sizeof(msg)), 0);
		pmaps_proc_close(p);
		assert_int_not_equal(x.status.present, 0);
		assert_int_equal(x.status.v[PMAPS_ST_VM_RSS], status_kb(text, "VmRSS:"));
		assert_int_equal(x.status.v[PMAPS_ST_RSS_ANON], status_kb(text, "RssAnon:"));
		assert_int_equal(x.status.v[PMAPS_ST_RSS_FILE], status_kb(text, "RssFile:"));
		assert_int_equal(x.status.v[PMAPS_ST_RSS_SHMEM], status_kb(text, "RssShmem:"));
		assert_int_equal(x.status.v[PMAPS_ST_VM_HWM], status_kb(text, "VmHWM:"));
		assert_int_equal(x.status.v[PMAPS_ST_VM_PTE], status_kb(text, "VmPTE:"));
		assert_int_equal(x.status.v[PMAPS_ST_VM_SWAP], status_kb(text, "VmSwap:"));
	}
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	running_helper = 0;
}

/* ROOT/400/root, then DEPTH of SEG/SEG/SEG/hsperfdata_u. */
static void long_dir(char *dst, size_t size, const char *root, const char *seg, size_t depth)
{
	size_t n = (size_t)snprintf(dst, size, "%s/400/root", root);

	for (size_t k = 0; k < depth && k < 3; k++)
		n += (size_t)snprintf(dst + n, size - n, "/%s", seg);
	if (depth == 4)
		snprintf(dst + n, size - n, "/hsperfdata_u");
}

/*
 * An hsperfdata file whose name is longer than 255 bytes (deep directories)
 * is read all the same, and the evidence does not quote a name cut short.
 */
static void test_explain_jvm_long_perfdata_name(void **state)
{
	static struct pmaps_explain x;
	static unsigned char perf[4096];
	static char path[1024], name[512];
	char root[] = "/tmp/pmaps-jvmlong-XXXXXX", seg[101], msg[256];
	struct pmaps_proc *p;
	struct stat st;
	size_t off;
	FILE *f;
	(void)state;

	memset(seg, 'a', 100);
	seg[100] = '\0';
	snprintf(name, sizeof(name), "/%s/%s/%s/hsperfdata_u/400", seg, seg, seg);
	assert_non_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/400", root);
	assert_int_equal(mkdir(path, 0755), 0);
	for (size_t depth = 0; depth <= 4; depth++) {
		long_dir(path, sizeof(path), root, seg, depth);
		assert_int_equal(mkdir(path, 0755), 0);
	}
	off = perf_g1(perf, (128u << 20) + 24, (128u << 20) + 8);
	snprintf(path, sizeof(path), "%s/400/root%s", root, name);
	assert_non_null(f = fopen(path, "w"));
	assert_int_equal(fwrite(perf, 1, off, f), off);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(stat(path, &st), 0);
	snprintf(path, sizeof(path), "%s/400/smaps", root);
	assert_non_null(f = fopen(path, "w"));
	smaps_entry(f, 0xf8000000, 0xfc000000, "rw-p", "", 1024);
	smaps_entry(f, 0xfc000000, 0x100000000, "---p", "", 0);
	smaps_entry(f, 0x7f0000000000, 0x7f0000100000, "r-xp",
	            "/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so", 0);
	smaps_entry_of(f, 0x7f0000200000, 0x7f0000208000, "rw-s", st.st_dev, st.st_ino, name, 0);
	assert_int_equal(fclose(f), 0);
	snprintf(path, sizeof(path), "%s/400/smaps_rollup", root);
	assert_non_null(f = fopen(path, "w"));
	smaps_entry(f, 0xf8000000, 0x7f0000208000, "---p", "[rollup]", 1024);
	assert_int_equal(fclose(f), 0);

	expect_gt(strlen(name), 255);
	assert_int_equal(pmaps_proc_open(&p, root, "400"), 0);
	x.size = sizeof(x);
	assert_int_equal(pmaps_explain(p, &x, 0, msg, sizeof(msg)), 0);
	pmaps_proc_close(p);
	assert_int_equal(x.runtime_kind, PMAPS_RUNTIME_JVM);
	if (x.jvm_heap_end != 0x100000000)
		fail_msg("heap end 0x%llx, want 0x100000000 (%s)", (unsigned long long)x.jvm_heap_end,
		         x.runtime_evidence);
	assert_int_equal(x.v[PMAPS_X_RUNTIME_HEAP][PMAPS_XC_RSS], 1024 << 10);

	/* Unreadable (a symlink there, not the file): the name's length is said, not a cut name. */
	snprintf(path, sizeof(path), "%s/400/root%s", root, name);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(symlink("/etc/passwd", path), 0);
	assert_int_equal(pmaps_proc_open(&p, root, "400"), 0);
	x.size = sizeof(x);
	assert_int_equal(pmaps_explain(p, &x, 0, msg, sizeof(msg)), 0);
	pmaps_proc_close(p);
	assert_int_equal(x.jvm_heap_end, 0);
	snprintf(msg, sizeof(msg), "its hsperfdata file (a name of %zu bytes)", strlen(name));
	if (!strstr(x.runtime_evidence, msg))
		fail_msg("evidence '%s' lacks '%s'", x.runtime_evidence, msg);

	assert_int_equal(unlink(path), 0);
	const char *files[] = {"400/smaps", "400/smaps_rollup"};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", root, files[i]);
		assert_int_equal(unlink(path), 0);
	}
	for (size_t depth = 5; depth-- > 0;) {
		long_dir(path, sizeof(path), root, seg, depth);
		assert_int_equal(rmdir(path), 0);
	}
	snprintf(path, sizeof(path), "%s/400", root);
	assert_int_equal(rmdir(path), 0);
	assert_int_equal(rmdir(root), 0);
}

/* Named, not claimed: CPython's arenas stay anonymous. */
static void assert_runtime_unclaimed(const struct pmaps_explain *x)
{
	assert_int_equal(x->v[PMAPS_X_RUNTIME_HEAP][PMAPS_XC_RSS], 0);
	assert_int_equal(x->arenas, 0);
	/* The 32 MiB live, from mmap or brk. */
	expect_ge(x->v[PMAPS_X_ANON][PMAPS_XC_RSS] + x->v[PMAPS_X_HEAP][PMAPS_XC_RSS], 32ull << 20);
}

static void test_explain_cpython(void **state)
{
	static struct pmaps_explain x;
	char *argv[] = {PMAPS_PYTHON3, "-c",
	                "import sys\n"
	                "live = bytearray(b'x' * (32 << 20))\n"
	                "print('ready', flush=True)\n"
	                "sys.stdin.read()\n",
	                NULL};
	char *envp[] = {"PATH=/usr/bin:/bin", NULL};
	struct rt_target t;

	(void)state;
	if (!PMAPS_PYTHON3[0]) {
		printf("skipped: no python3 to run\n");
		skip();
	}
	start_target(&t, argv, envp);
	explain_target(&t, &x);
	assert_int_equal(x.runtime_kind, PMAPS_RUNTIME_CPYTHON);
	assert_memory_equal(x.runtime_version, "3.", 2);
	assert_runtime_unclaimed(&x);
	stop_target(&t);
}

/* The JVM with collector GC and -Xmx MAX: its heap found by the size hsperfdata gives. */
static void explain_jvm(char *gc, char *max, uint64_t size, const char *policy)
{
	static struct pmaps_explain x;
	char *argv[] = {PMAPS_JAVA, max, gc, PMAPS_JVM_TARGET, NULL};
	char *envp[] = {"PATH=/usr/bin:/bin", NULL};
	struct rt_target t;

	start_target(&t, argv, envp);
	explain_target(&t, &x);
	assert_int_equal(x.runtime_kind, PMAPS_RUNTIME_JVM);
	assert_int_equal(x.arenas, 0);
	assert_int_equal(x.jvm_heap_end - x.jvm_heap_start, size);
	expect_contains(x.runtime_evidence, policy);
	/* The 32 MiB of live arrays are in the heap. */
	expect_ge(x.v[PMAPS_X_RUNTIME_HEAP][PMAPS_XC_RSS], 32ull << 20);
	expect_ge(x.mappings[PMAPS_X_RUNTIME_HEAP], 1);
	stop_target(&t);
}

static void test_explain_jvm(void **state)
{
	(void)state;
	if (!PMAPS_JAVA[0]) {
		printf("skipped: no java (Debian's default-jdk-headless) to run\n");
		skip();
	}
	explain_jvm("-XX:+UseG1GC", "-Xmx128m", 128ull << 20, "GarbageFirst");
	explain_jvm("-XX:+UseSerialGC", "-Xmx200m", 200ull << 20, "Copy:MSC");
	explain_jvm("-XX:+UseParallelGC", "-Xmx96m", 96ull << 20, "ParScav:MSC");
}

/* A naive count of /proc/PID/maps lines, for cross-checking. */
static int count_lines(const char *pid, const char *file)
{
	char path[64], buf[65536];
	ssize_t n;
	int fd, lines = 0;

	snprintf(path, sizeof(path), "/proc/%s/%s", pid, file);
	fd = open(path, O_RDONLY);
	expect_sys(fd);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < n; i++)
			lines += buf[i] == '\n';
	close(fd);
	return lines;
}

/* The sum of Pss over a fresh walk of smaps cursor C. */
static uint64_t smaps_pss(struct pmaps_maps *c)
{
	const struct pmaps_mapping *m;
	uint64_t pss = 0;
	int rc;

	assert_int_equal(pmaps_maps_rewind(c), 0);
	while ((rc = pmaps_maps_next(c, &m)) > 0)
		pss += m->v[PMAPS_F_PSS];
	assert_int_equal(rc, 0);
	return pss;
}

static void test_sources_agree(void **state)
{
	struct helper h;
	struct pmaps_proc *p;
	struct pmaps_maps *cs, *cm, *cr;
	const struct pmaps_mapping *m;
	uint64_t rss = 0, anon = 0, lazy = 0, starts[512];
	int n = 0, rc;
	(void)state;

	start_helper(&h, "3");
	/* Stopped, so nothing of its own changes between the reads. */
	kill(h.pid, SIGSTOP);
	wait_state_all(h.pid, 'T');
	assert_int_equal(pmaps_proc_open(&p, NULL, h.pidstr), 0);
	assert_int_equal(pmaps_maps_open(&cs, p, PMAPS_SRC_SMAPS, 0), 0);
	assert_int_equal(pmaps_maps_open(&cm, p, PMAPS_SRC_MAPS, 0), 0);
	assert_int_equal(pmaps_maps_open(&cr, p, PMAPS_SRC_ROLLUP, 0), 0);
	while ((rc = pmaps_maps_next(cs, &m)) > 0) {
		expect_lt(n, 512);
		starts[n++] = m->start;
		rss += m->v[PMAPS_F_RSS];
		anon += m->v[PMAPS_F_ANONYMOUS];
		lazy += m->v[PMAPS_F_LAZY_FREE];
	}
	assert_int_equal(rc, 0);
	/* Every mapping the kernel lists, in maps and smaps alike. */
	assert_int_equal(n, count_lines(h.pidstr, "maps"));
	for (int i = 0; i < n; i++) {
		assert_int_equal(pmaps_maps_next(cm, &m), 1);
		assert_int_equal(m->start, starts[i]);
	}
	assert_int_equal(pmaps_maps_next(cm, &m), 0);
	/* The rollup is the kernel's own sum of the same walk. */
	assert_int_equal(pmaps_maps_next(cr, &m), 1);
	assert_int_equal(m->v[PMAPS_F_RSS], rss);
	assert_int_equal(m->v[PMAPS_F_ANONYMOUS], anon);
	assert_int_equal(m->v[PMAPS_F_LAZY_FREE], lazy);
	expect_ge(lazy, 16 * PG);
	assert_int_equal(pmaps_maps_next(cr, &m), 0);
	/*
	 * Pss is summed from truncated per-VMA figures: rollup >= sum, within
	 * 1 KiB a VMA. But Pss also moves when any other process maps or unmaps
	 * a file page the helper shares (libc's): a rollup counts only between
	 * two walks of smaps that agree on the sum.
	 */
	for (int tries = 0;; tries++) {
		uint64_t before = smaps_pss(cs), rollup, after;
		assert_int_equal(pmaps_maps_rewind(cr), 0);
		assert_int_equal(pmaps_maps_next(cr, &m), 1);
		rollup = m->v[PMAPS_F_PSS];
		after = smaps_pss(cs);
		if (before == after) {
			expect_ge(rollup, before);
			expect_lt(rollup - before, 1024ull * (uint64_t)n);
			break;
		}
		if (tries == 100)
			fail_msg("the helper's Pss never held still: %llu, then %llu",
			         (unsigned long long)before, (unsigned long long)after);
		usleep(10000);
	}
	pmaps_maps_close(cs);
	pmaps_maps_close(cm);
	pmaps_maps_close(cr);
	pmaps_proc_close(p);
	kill(h.pid, SIGCONT);
	stop_helper(&h);
}

/* ---- allocations: at open only ---- */

static void test_allocations(void **state)
{
	struct helper h;
	struct pmaps_proc *p;
	struct pmaps_maps *c;
	struct pmaps_group *g;
	const struct pmaps_mapping *m;
	uint64_t rows = 0;
	(void)state;

	start_helper(&h, "2");
	pmaps_set_allocator(count_alloc, count_free, NULL);
	allocs = 0;
	assert_int_equal(pmaps_proc_open(&p, NULL, h.pidstr), 0);
	assert_int_equal(allocs, 1);
	assert_int_equal(pmaps_maps_open(&c, p, PMAPS_SRC_SMAPS, 0), 0);
	assert_int_equal(allocs, 3); /* the cursor and its buffer */
	assert_int_equal(pmaps_group_open(&g, PMAPS_GROUP_KIND), 0);
	assert_int_equal(allocs, 5);
	for (int pass = 0; pass < 3; pass++) {
		assert_int_equal(pmaps_maps_rewind(c), 0);
		pmaps_group_reset(g);
		while (pmaps_maps_next(c, &m) > 0) {
			assert_int_equal(pmaps_group_add(g, m), 0);
			rows++;
		}
	}
	/* Every mapping, on every pass (the helper is idle: its maps stay put). */
	assert_int_equal(rows, 3 * (uint64_t)count_lines(h.pidstr, "maps"));
	assert_int_equal(allocs, 5); /* none per mapping, none per refresh */
	pmaps_group_close(g);
	pmaps_maps_close(c);
	pmaps_proc_close(p);
	pmaps_set_allocator(NULL, NULL, NULL);
	stop_helper(&h);
}

/* ---- processes that are gone ---- */

static pid_t spawn_exiting(void)
{
	pid_t pid = fork();
	if (pid == 0)
		_exit(0);
	return pid;
}

static void wait_state(pid_t pid, char want)
{
	char path[64], buf[512];
	for (int i = 0; i < 2000; i++) {
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
		int fd = open(path, O_RDONLY);
		if (fd >= 0) {
			ssize_t n = read(fd, buf, sizeof(buf) - 1);
			close(fd);
			char *s = n > 0 ? memrchr(buf, ')', (size_t)n) : NULL;
			if (s && s[2] == want)
				return;
		}
		usleep(1000);
	}
	fail_msg("process %d never reached state %c", (int)pid, want);
}

static void test_gone(void **state)
{
	struct pmaps_proc *p;
	struct pmaps_maps *c;
	char pid[16];
	int st;
	(void)state;

	/*
	 * A zombie: its smaps reads as empty, which is no empty process. Every
	 * cursor says so at open, and says it is a zombie, not that it exited
	 * while it was read.
	 */
	pid_t z = spawn_exiting();
	wait_state(z, 'Z');
	snprintf(pid, sizeof(pid), "%d", (int)z);
	assert_int_equal(pmaps_proc_open(&p, NULL, pid), 0);
	for (int src = PMAPS_SRC_MAPS; src <= PMAPS_SRC_ROLLUP; src++) {
		assert_int_equal(pmaps_maps_open(&c, p, (enum pmaps_source)src, 0), -ESRCH);
		expect_contains(pmaps_maps_errmsg(c), "is a zombie");
		pmaps_maps_close(c);
	}
	{
		struct pmaps_pages *pg;
		assert_int_equal(pmaps_pages_open(&pg, p, PMAPS_PAGES_AUTO, 0), -ESRCH);
		expect_contains(pmaps_pages_errmsg(pg), "is a zombie");
		pmaps_pages_close(pg);
	}
	/* Reaped: the handle's lookups fail. */
	assert_int_equal(waitpid(z, &st, 0), z);
	assert_int_equal(pmaps_maps_open(&c, p, PMAPS_SRC_SMAPS, 0), -ESRCH);
	pmaps_maps_close(c);
	pmaps_proc_close(p);
	/* And no handle at all for a pid that is gone. */
	assert_int_equal(pmaps_proc_open(&p, NULL, pid), -ESRCH);
}

/* Reaps the helper between two reads, through the read hook. */
static struct helper *victim;
static int hook_reads;

static ssize_t kill_after_first(int fd, void *buf, size_t len)
{
	if (++hook_reads == 2) {
		int st;
		kill(victim->pid, SIGKILL);
		waitpid(victim->pid, &st, 0);
	}
	return read(fd, buf, len);
}

static void test_exit_mid_read(void **state)
{
	struct helper h;
	struct pmaps_proc *p;
	struct pmaps_maps *c;
	const struct pmaps_mapping *m;
	int rc, rows = 0;
	(void)state;

	start_helper(&h, "2");
	assert_int_equal(pmaps_proc_open(&p, NULL, h.pidstr), 0);
	assert_int_equal(pmaps_maps_open(&c, p, PMAPS_SRC_SMAPS, 4096), 0);
	victim = &h;
	hook_reads = 0;
	pmaps__read_hook = kill_after_first;
	while ((rc = pmaps_maps_next(c, &m)) > 0)
		rows++;
	pmaps__read_hook = NULL;
	running_helper = 0; /* reaped by the hook */
	assert_int_equal(rc, -ESRCH);
	expect_ge(rows, 1);
	expect_contains(pmaps_maps_errmsg(c), "exited while it was read");
	pmaps_maps_close(c);
	pmaps_proc_close(p);
	close(h.in);
	close(h.out);
}

/* The page walk of a process killed between two reads. */
static ssize_t kill_before_second_pread(int fd, void *buf, size_t len, off_t off)
{
	if (++hook_reads == 2) {
		int st;
		kill(victim->pid, SIGKILL);
		waitpid(victim->pid, &st, 0);
	}
	return pread(fd, buf, len, off);
}

static void test_pages_exit_mid_walk(void **state)
{
	struct helper h;
	struct pmaps_proc *p;
	struct pmaps_pages *c;
	const struct pmaps_page_range *r;
	const struct region *rg;
	int rc = 0;
	(void)state;

	start_helper(&h, "2");
	rg = region(&h, "thp"); /* 1024 pages: several preads of 8 KiB entries apart */
	assert_int_equal(pmaps_proc_open(&p, NULL, h.pidstr), 0);
	assert_int_equal(pmaps_pages_open(&c, p, PMAPS_PAGES_PAGEMAP, 0), 0);
	victim = &h;
	hook_reads = 0;
	pmaps__pread_hook = kill_before_second_pread;
	/* Walk the region twice over: the second read finds the process gone. */
	for (int pass = 0; pass < 2 && rc >= 0; pass++) {
		assert_int_equal(pmaps_pages_seek(c, rg->start, rg->end), 0);
		while ((rc = pmaps_pages_next(c, &r)) > 0)
			;
	}
	pmaps__pread_hook = NULL;
	running_helper = 0; /* reaped by the hook */
	assert_int_equal(rc, -ESRCH);
	expect_contains(pmaps_pages_errmsg(c), "exited while it was read");
	pmaps_pages_close(c);
	pmaps_proc_close(p);
	close(h.in);
	close(h.out);
}

static void test_exec_mid_read(void **state)
{
	struct pmaps_proc *p;
	struct pmaps_maps *c;
	const struct pmaps_mapping *m;
	int go[2], rc, rows = 0, st;
	char pid[16], b;
	pid_t kid;
	(void)state;

	assert_int_equal(pipe(go), 0);
	kid = fork();
	if (kid == 0) {
		close(go[1]);
		if (read(go[0], &b, 1) != 1)
			_exit(2);
		execl("/bin/sleep", "sleep", "30", (char *)NULL);
		_exit(127);
	}
	close(go[0]);
	snprintf(pid, sizeof(pid), "%d", (int)kid);
	assert_int_equal(pmaps_proc_open(&p, NULL, pid), 0);
	/* A small buffer: the first read holds only part of the text. */
	assert_int_equal(pmaps_maps_open(&c, p, PMAPS_SRC_SMAPS, 4096), 0);
	assert_int_equal(pmaps_maps_next(c, &m), 1);
	assert_int_equal(write(go[1], "x", 1), 1);
	/* Wait until the new program runs. */
	if (!wait_comm(kid, "sleep"))
		fail_msg("the child never ran sleep");
	while ((rc = pmaps_maps_next(c, &m)) > 0)
		rows++;
	assert_int_equal(rc, -ESTALE);
	expect_contains(pmaps_maps_errmsg(c), "exec'd while it was read");
	/* A rewind reads the new program. */
	assert_int_equal(pmaps_maps_rewind(c), 0);
	rows = 0;
	while ((rc = pmaps_maps_next(c, &m)) > 0)
		rows++;
	assert_int_equal(rc, 0);
	expect_gt(rows, 5);
	pmaps_maps_close(c);
	pmaps_proc_close(p);
	kill(kid, SIGKILL);
	waitpid(kid, &st, 0);
	close(go[1]);
}

/* A kernel thread: no mappings, no rollup, and the library says why. */
static void test_kernel_thread(void **state)
{
	struct pmaps_proc *p = NULL;
	struct pmaps_maps *c;
	char pid[16];
	int found = 0;
	(void)state;

	/* kthreadd is pid 2 outside a pid namespace; look a little further too. */
	for (int i = 2; i < 200 && !found; i++) {
		snprintf(pid, sizeof(pid), "%d", i);
		if (pmaps_proc_open(&p, NULL, pid) < 0)
			continue;
		found = pmaps_proc_is_kernel_thread(p) == 1;
		if (!found)
			pmaps_proc_close(p);
	}
	if (!found) {
		printf("skipped: no kernel thread visible (a pid namespace?)\n");
		skip();
	}
	/* One rule for every source: no user-space memory, said at open. */
	assert_int_equal(pmaps_maps_open(&c, p, PMAPS_SRC_MAPS, 0), -ENODATA);
	assert_string_equal(pmaps_maps_errmsg(c), "maps: a kernel thread has no user-space memory");
	pmaps_maps_close(c);
	assert_int_equal(pmaps_maps_open(&c, p, PMAPS_SRC_SMAPS, 0), -ENODATA);
	assert_string_equal(pmaps_maps_errmsg(c), "smaps: a kernel thread has no user-space memory");
	pmaps_maps_close(c);
	assert_int_equal(pmaps_maps_open(&c, p, PMAPS_SRC_ROLLUP, 0), -ENODATA);
	assert_string_equal(pmaps_maps_errmsg(c), "smaps_rollup: a kernel thread has no user-space memory");
	pmaps_maps_close(c);
	{
		struct pmaps_pages *pg;
		assert_int_equal(pmaps_pages_open(&pg, p, PMAPS_PAGES_AUTO, 0), -ENODATA);
		assert_string_equal(pmaps_pages_errmsg(pg), "pagemap: a kernel thread has no user-space memory");
		pmaps_pages_close(pg);
	}
	/* The page sources too; what such a cursor spent is nothing, and how it read unknown. */
	for (int src = PMAPS_SRC_FAST; src <= PMAPS_SRC_PAGES; src++) {
		struct pmaps_cost k = {.size = sizeof(k)};
		assert_int_equal(pmaps_maps_open(&c, p, (enum pmaps_source)src, 0), -ENODATA);
		expect_contains(pmaps_maps_errmsg(c), "a kernel thread has no user-space memory");
		assert_int_equal(pmaps_maps_cost(c, &k), 0);
		assert_int_equal(k.query, -1);
		assert_int_equal(k.strategy, -1);
		assert_int_equal(k.calls, 0);
		pmaps_maps_close(c);
	}
	pmaps_proc_close(p);
	/* This process is not one. */
	assert_int_equal(pmaps_proc_open(&p, NULL, "self"), 0);
	assert_int_equal(pmaps_proc_is_kernel_thread(p), 0);
	pmaps_proc_close(p);
}

/*
 * Names the maps text cannot tell apart: a file whose name holds the four
 * bytes \012 prints like one holding a newline, and one whose name ends in
 * " (deleted)" like an unlinked one. As root, the reader asks map_files.
 * The two " (deleted)" files are mapped twice each, one after the other and
 * in turn: the reader remembers the last file's answer, which must be that
 * file's.
 */
static void test_ambiguous_names(void **state)
{
	char dir[] = "/tmp/pmaps-names-XXXXXX", lit[128], nl[128], trail[128], gone[128];
	const char *paths[6] = {lit, nl, trail, gone, trail, gone};
	void *at[6];
	struct pmaps_proc *p;
	struct pmaps_maps *c;
	const struct pmaps_mapping *m;
	int seen = 0;
	(void)state;

	if (geteuid() != 0) {
		printf("skipped: /proc/PID/map_files needs root\n");
		skip();
	}
	assert_non_null(mkdtemp(dir));
	snprintf(lit, sizeof(lit), "%s/lit\\012x", dir); /* backslash, 0, 1, 2 */
	snprintf(nl, sizeof(nl), "%s/lit\nx", dir);
	snprintf(trail, sizeof(trail), "%s/trail (deleted)", dir);
	snprintf(gone, sizeof(gone), "%s/gone", dir);
	for (int i = 0; i < 6; i++) {
		int fd = open(paths[i], i < 4 ? O_RDWR | O_CREAT | O_EXCL : O_RDWR, 0600);
		expect_sys(fd);
		assert_int_equal(ftruncate(fd, 4096), 0);
		at[i] = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
		assert_ptr_not_equal(at[i], MAP_FAILED);
		close(fd);
	}
	assert_int_equal(unlink(gone), 0);
	assert_int_equal(pmaps_proc_open(&p, NULL, "self"), 0);
	/* The maps text; the page sources' VMA lists, each way. */
	for (int k = 0; k < 4; k++) {
		static const char *const what[] = {"maps", "fast", "fast, PROCMAP_QUERY list",
		                                   "fast, maps text without PROCMAP_QUERY"};
		seen = 0;
		pmaps__procmap_query_list = k == 2;
		pmaps__no_procmap_query = k == 3;
		assert_int_equal(pmaps_maps_open(&c, p, k ? PMAPS_SRC_FAST : PMAPS_SRC_MAPS, 0), 0);
		pmaps__procmap_query_list = pmaps__no_procmap_query = 0;
		while (pmaps_maps_next(c, &m) > 0) {
			for (int i = 0; i < 6; i++) {
				char want[160];
				if (m->start != (uint64_t)(uintptr_t)at[i])
					continue;
				seen |= 1 << i;
				snprintf(want, sizeof(want), "%s%s", paths[i],
				         paths[i] == gone ? " (deleted)" : "");
				if (m->path.len != strlen(want) || memcmp(m->path.ptr, want, m->path.len) != 0)
					fail_msg("%s: mapping %d: path '%.*s', want '%s'", what[k], i,
					         (int)m->path.len, m->path.ptr, want);
				assert_int_equal(!!(m->flags & PMAPS_ROW_DELETED), paths[i] == gone);
				assert_int_equal(!!(m->flags & PMAPS_ROW_PATH_ESCAPED), i == 1);
			}
		}
		assert_int_equal(seen, 63);
		pmaps_maps_close(c);
	}
	pmaps_proc_close(p);
	{
		/*
		 * Without map_files (another user), the page sources still tell
		 * the two apart: PROCMAP_QUERY gives the name unescaped, for the
		 * rows of the maps text that print "\012" only.
		 */
		pid_t kid = fork();
		int st;
		if (kid == 0) {
			int bad = 0;
			/* Dumpable again after the change of user: its /proc files are its own. */
			if (setgid(65534) || setuid(65534) || prctl(PR_SET_DUMPABLE, 1) != 0)
				_exit(10);
			for (int k = 1; k < 3 && !bad; k++) {
				int got = 0;
				pmaps__procmap_query_list = k == 2;
				if (pmaps_proc_open(&p, NULL, "self") != 0 ||
				    pmaps_maps_open(&c, p, PMAPS_SRC_FAST, 0) != 0)
					_exit(11);
				while (pmaps_maps_next(c, &m) > 0) {
					for (int i = 0; i < 2; i++) {
						if (m->start != (uint64_t)(uintptr_t)at[i])
							continue;
						got |= 1 << i;
						if (m->path.len != strlen(paths[i]) ||
						    memcmp(m->path.ptr, paths[i], m->path.len) != 0 ||
						    !!(m->flags & PMAPS_ROW_PATH_ESCAPED) != (i == 1)) {
							printf("unprivileged, list %d: mapping %d: path '%.*s' flags %x, "
							       "want '%s'\n", k, i, (int)m->path.len, m->path.ptr,
							       m->flags, paths[i]);
							bad = 1;
						}
					}
				}
				pmaps_maps_close(c);
				pmaps_proc_close(p);
				if (got != 3)
					_exit(12);
			}
			fflush(stdout);
			_exit(bad ? 13 : 0);
		}
		assert_int_equal(waitpid(kid, &st, 0), kid);
		expect_exited(st, 0);
	}
	for (int i = 0; i < 6; i++)
		munmap(at[i], 4096);
	for (int i = 0; i < 3; i++)
		unlink(paths[i]); /* gone is */
	assert_int_equal(rmdir(dir), 0);
}

static void test_permission_denied(void **state)
{
	pid_t kid;
	int st;
	char me[16];
	(void)state;

	if (geteuid() != 0) {
		printf("skipped: needs root to drop to another user and read a root process\n");
		skip();
	}
	snprintf(me, sizeof(me), "%d", (int)getpid());
	kid = fork();
	if (kid == 0) {
		struct pmaps_proc *p;
		struct pmaps_maps *c;
		if (setgid(65534) || setuid(65534))
			_exit(10);
		if (pmaps_proc_open(&p, NULL, me) != 0)
			_exit(11);
		int r = pmaps_maps_open(&c, p, PMAPS_SRC_SMAPS, 0);
		if (r != -EACCES)
			_exit(12);
		if (!strstr(pmaps_maps_errmsg(c), "CAP_SYS_PTRACE"))
			_exit(13);
		pmaps_maps_close(c);
		/* maps is readable to others only with ptrace access too. */
		r = pmaps_maps_open(&c, p, PMAPS_SRC_ROLLUP, 0);
		pmaps_maps_close(c);
		pmaps_proc_close(p);
		_exit(r == -EACCES ? 0 : 14);
	}
	assert_int_equal(waitpid(kid, &st, 0), kid);
	expect_exited(st, 0);
}

/* ---- the page sources (fast, pages) against smaps ---- */

/* Rows of one read of a cursor, in address order (the bench layouts' 2000 and more). */
#define MAXROWS 4096
struct rowset {
	int n;
	struct pmaps_mapping m[MAXROWS];
	char path[MAXROWS][96];
};

static void read_rows(struct pmaps_maps *c, struct rowset *s)
{
	const struct pmaps_mapping *m;
	int rc;

	s->n = 0;
	assert_int_equal(pmaps_maps_rewind(c), 0);
	while ((rc = pmaps_maps_next(c, &m)) > 0) {
		expect_lt(s->n, MAXROWS);
		if (s->n)
			expect_lt(s->m[s->n - 1].start, m->start); /* find_row() bisects */
		s->m[s->n] = *m;
		snprintf(s->path[s->n], sizeof(s->path[0]), "%.*s", (int)m->path.len, m->path.ptr);
		s->m[s->n].path.ptr = s->path[s->n];
		s->n++;
	}
	if (rc != 0)
		fail_msg("read: %d (%s)", rc, pmaps_maps_errmsg(c));
}

static const struct pmaps_mapping *find_row(const struct rowset *s, uint64_t start)
{
	int lo = 0, hi = s->n;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (s->m[mid].start < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->n && s->m[lo].start == start ? &s->m[lo] : NULL;
}

/*
 * Value KEY of row X (a page source) against smaps' rows A and B, read
 * before and after it: where A and B agree the page source must give
 * exactly that; where they differ the value moved between the reads (the
 * map counts of a library's pages change as other processes start and
 * exit) and only the count of such moves is kept. A process that starts
 * and exits between A and B moves X alone: a difference is kept in
 * DIFFER (its first in DIFFER_MSG) and the caller reads all three again.
 */
static char differ_msg[512];

static void same_value(const char *what, const struct pmaps_mapping *x,
                       const struct pmaps_mapping *a, const struct pmaps_mapping *b, int key,
                       int *moving, int *differ)
{
	uint64_t vx, va, vb;

	if (pmaps_mapping_value(x, key, &vx) != 1)
		return;
	if (pmaps_mapping_value(a, key, &va) != 1 || pmaps_mapping_value(b, key, &vb) != 1) {
		fail_msg("%s: %s at %llx: the page source has it, smaps does not", what,
		         pmaps_value_key(key), (unsigned long long)x->start);
		return; /* cmocka's fail() does not say it never returns */
	}
	if (va != vb) {
		(*moving)++;
		return;
	}
	if (vx != va && !(*differ)++)
		snprintf(differ_msg, sizeof(differ_msg), "%s: %s at %llx (%s): page source %llu, smaps %llu",
		         what, pmaps_value_key(key), (unsigned long long)x->start, x->path.ptr,
		         (unsigned long long)vx, (unsigned long long)va);
}

/*
 * Page source cursor C (of SRC, listing with PROCMAP_QUERY if QUERY) against
 * smaps cursor SM, field for field: the same mappings, each value C has
 * equal to smaps' where two smaps reads around it agree. X keeps C's rows
 * of the round that agreed. Returns how many rows were compared.
 */
static int rows_agree(struct pmaps_maps *sm, struct pmaps_maps *c, enum pmaps_source src,
                      int query, const char *what, struct rowset *x)
{
	static struct rowset a, b;
	int moving = 0, compared = 0, differ = 0, round = 0;
	uint64_t v;

again:
	read_rows(sm, &a);
	read_rows(c, x);
	read_rows(sm, &b);
	moving = compared = differ = 0;
	/* The same mappings; PROCMAP_QUERY does not list [vsyscall], which is no VMA. */
	for (int i = 0; i < a.n; i++) {
		const struct pmaps_mapping *m = find_row(x, a.m[i].start);
		if (!m && strcmp(a.path[i], "[vsyscall]") == 0 && query)
			continue;
		if (!m) {
			fail_msg("%s: no row for %llx %s", what, (unsigned long long)a.m[i].start, a.path[i]);
			return 0;
		}
		assert_int_equal(m->end, a.m[i].end);
		assert_int_equal(m->perms, a.m[i].perms);
		assert_int_equal(m->inode, a.m[i].inode);
		assert_int_equal(m->offset, a.m[i].offset);
		assert_int_equal(m->kind, a.m[i].kind);
		assert_string_equal(x->path[m - x->m], a.path[i]);
	}
	for (int i = 0; i < x->n; i++) {
		const struct pmaps_mapping *ma = find_row(&a, x->m[i].start);
		const struct pmaps_mapping *mb = find_row(&b, x->m[i].start);
		assert_non_null(ma);
		assert_non_null(mb);
		assert_int_equal(PMAPS_ROW_SOURCE(x->m[i].flags), src);
		/* Seen by every page source on this kernel, root or not. */
		assert_int_equal(pmaps_mapping_value(&x->m[i], PMAPS_F_RSS, &v), 1);
		assert_int_equal(pmaps_mapping_value(&x->m[i], PMAPS_F_ANONYMOUS, &v), 1);
		/* Never seen: the smaps text's own. */
		assert_int_equal(pmaps_mapping_value(&x->m[i], PMAPS_F_PRIVATE_DIRTY, &v), 0);
		assert_int_equal(pmaps_mapping_value(&x->m[i], PMAPS_F_REFERENCED, &v), 0);
		for (int f = 0; f < PMAPS_F_COUNT; f++)
			same_value(what, &x->m[i], ma, mb, f, &moving, &differ);
		same_value(what, &x->m[i], ma, mb, PMAPS_V_USS, &moving, &differ);
		same_value(what, &x->m[i], ma, mb, PMAPS_V_SHARED, &moving, &differ);
		same_value(what, &x->m[i], ma, mb, PMAPS_V_FILE_RSS, &moving, &differ);
		compared++;
	}
	/* A wrong value differs every time; one moved by a passing process, once. */
	if (differ) {
		printf("note: %s: round %d: %s\n", what, round + 1, differ_msg);
		if (++round == 5)
			fail_msg("%s, in 5 rounds of reads", differ_msg);
		goto again;
	}
	if (moving)
		printf("note: %s: %d value(s) moved between the two smaps reads (pages shared with a "
		       "process that touched them), not compared\n", what, moving);
	return compared;
}

/*
 * One page source, with the kernel interfaces it may use, against smaps on
 * the layout helper; ZP: whether the kernel maps the zero page for a read.
 */
static void fast_agrees(const struct helper *h, struct pmaps_proc *p, enum pmaps_source src,
                        int list, int no_scan, int zp, const char *what)
{
	static struct rowset x;
	struct pmaps_maps *sm, *c;
	const struct pmaps_mapping *r;
	int root = geteuid() == 0;
	uint64_t v;

	int query = list_query(list);

	pmaps__no_procmap_query = list == LIST_TEXT;
	pmaps__procmap_query_list = list == LIST_QUERY;
	pmaps__no_pagemap_scan = no_scan;
	assert_int_equal(pmaps_maps_open(&sm, p, PMAPS_SRC_SMAPS, 0), 0);
	assert_int_equal(pmaps_maps_open(&c, p, src, 0), 0);
	pmaps__no_procmap_query = pmaps__procmap_query_list = pmaps__no_pagemap_scan = 0;
	assert_int_equal(pmaps_maps_query(c), query);
	expect_ge(rows_agree(sm, c, src, query, what, &x), 20);
	/* What each source sees, where the layout knows the answer. */
	r = find_row(&x, region(h, "zero")->start);
	/* The zero page is not in Rss; the private pages of a kernel without one are. */
	assert_int_equal(r->v[PMAPS_F_RSS], zp ? 0 : 8 * PG);
	if (pmaps_mapping_value(r, PMAPS_V_ZERO_PAGE, &v) == 1)
		assert_int_equal(v, zp ? 8 * PG : 0);
	else
		assert_true(no_scan && !root); /* pagemap alone cannot tell the zero page */
	r = find_row(&x, region(h, "touched3")->start);
	assert_int_equal(r->v[PMAPS_F_RSS], 22 * PG);
	r = find_row(&x, region(h, "shared")->start);
	assert_int_equal(r->v[PMAPS_F_RSS], 8 * PG);
	if (src == PMAPS_SRC_PAGES) {
		/* Mapped by the helper and its child: shared, no USS, half of it Pss. */
		assert_int_equal(pmaps_mapping_value(r, PMAPS_V_USS, &v), 1);
		assert_int_equal(v, 0);
		assert_int_equal(pmaps_mapping_value(r, PMAPS_V_SHARED, &v), 1);
		assert_int_equal(v, 8 * PG);
		assert_int_equal(pmaps_mapping_value(r, PMAPS_F_PSS, &v), root);
		if (root)
			assert_int_equal(v, 4 * PG);
		r = find_row(&x, region(h, "lazyfree")->start);
		assert_int_equal(pmaps_mapping_value(r, PMAPS_F_LAZY_FREE, &v), root);
		if (root)
			assert_int_equal(v, 16 * PG);
		r = find_row(&x, region(h, "touched3")->start);
		assert_int_equal(pmaps_mapping_value(r, PMAPS_V_USS, &v), 1);
		assert_int_equal(v, 22 * PG);
	} else {
		/* Without PAGEMAP_SCAN fast reads pagemap's entries, which have the exclusive bit. */
		assert_int_equal(pmaps_mapping_value(r, PMAPS_V_USS, &v), no_scan);
		if (no_scan)
			assert_int_equal(v, 0);
		assert_int_equal(pmaps_mapping_value(r, PMAPS_F_PSS, &v), 0);
	}
	r = find_row(&x, region(h, "memfd")->start);
	/* Shared memory's swap is in its object: not from page tables. */
	assert_int_equal(pmaps_mapping_value(r, PMAPS_F_SWAP, &v), 0);
	r = find_row(&x, region(h, "touched3")->start);
	assert_int_equal(pmaps_mapping_value(r, PMAPS_F_SWAP, &v), 1);
	{
		/* The cost says how it read. */
		struct pmaps_cost k = {.size = sizeof(k)};
		assert_int_equal(pmaps_maps_cost(c, &k), 0);
		assert_int_equal(k.query, query);
		assert_int_equal(k.strategy, no_scan ? PMAPS_PAGES_PAGEMAP : PMAPS_PAGES_SCAN);
		expect_ge(k.calls, 2);
		assert_int_equal(pmaps_maps_cost(sm, &k), 0);
		assert_int_equal(k.query, -1);
		assert_int_equal(k.strategy, -1);
	}
	pmaps_maps_close(c);
	pmaps_maps_close(sm);
}

/* Writes N to /proc/sys/vm/nr_hugepages; returns the count before, or -1. */
static long set_hugepages(long n)
{
	char buf[32];
	long old = -1;
	FILE *f = fopen("/proc/sys/vm/nr_hugepages", "r+");

	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f))
		old = strtol(buf, NULL, 10);
	if (old >= 0 && n >= 0) {
		rewind(f);
		if (fprintf(f, "%ld\n", n) < 0)
			old = -1;
	}
	if (fclose(f) != 0)
		old = -1;
	return old;
}

/*
 * hugetlb mappings in the page sources, which must not count their pages
 * in Rss (smaps never does) and give their page size: MAP_HUGETLB (known by
 * its name), a file on a hugetlbfs mount of the process's own mount
 * namespace (known by mountinfo), and a hugetlb memfd (on a mount the
 * kernel keeps to itself: only PROCMAP_QUERY tells). The maps text's rows
 * are settled by asking PROCMAP_QUERY for those rows alone.
 */
static void test_fast_hugetlb(void **state)
{
	enum { ANON, FILE_, MEMFD, PLAIN, N };
	static const char *const names[N] = {"MAP_HUGETLB", "hugetlbfs file", "hugetlb memfd",
	                                     "small pages"};
	const uint64_t huge = 2ull << 20;
	char *dir = huge_dir;
	uint64_t at[N];
	long old, got;
	int up[2], down[2], st;
	pid_t kid;
	(void)state;

	if (geteuid() != 0) {
		printf("skipped: reserving huge pages and mounting hugetlbfs need root\n");
		skip();
	}
	old = set_hugepages(-1);
	if (old < 0 || set_hugepages(old + 3) < 0) {
		printf("skipped: /proc/sys/vm/nr_hugepages cannot be written\n");
		skip();
	}
	got = set_hugepages(-1);
	if (got < old + 3) {
		set_hugepages(old);
		printf("skipped: the kernel gave %ld of 3 huge pages asked\n", got - old);
		skip();
	}
	hugepages_before = old;
	snprintf(huge_dir, sizeof(huge_dir), "/tmp/pmaps-huge-XXXXXX");
	assert_non_null(mkdtemp(dir));
	assert_int_equal(pipe(up), 0);
	assert_int_equal(pipe(down), 0);
	kid = fork();
	running_helper = kid;
	if (kid == 0) {
		char path[64], c;
		char *p[N];
		int fd;
		close(up[0]);
		close(down[1]);
		/* A mount of its own, gone with it. */
		if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
		    mount("none", dir, "hugetlbfs", 0, NULL) != 0)
			_exit(10);
		p[ANON] = mmap(NULL, huge, PROT_READ | PROT_WRITE,
		               MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
		snprintf(path, sizeof(path), "%s/f", dir);
		fd = open(path, O_RDWR | O_CREAT, 0600);
		if (fd < 0)
			_exit(11);
		p[FILE_] = mmap(NULL, huge, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		fd = memfd_create("pmaps-huge", MFD_HUGETLB);
		if (fd < 0 || ftruncate(fd, (off_t)huge) != 0)
			_exit(12);
		p[MEMFD] = mmap(NULL, huge, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		p[PLAIN] = mmap(NULL, 4 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		for (int i = 0; i < N; i++) {
			uint64_t a = (uint64_t)(uintptr_t)p[i];
			if (p[i] == MAP_FAILED)
				_exit(13 + i);
			p[i][0] = 1;
			if (write(up[1], &a, sizeof(a)) != sizeof(a))
				_exit(20);
		}
		while (read(down[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	close(up[1]);
	close(down[0]);
	for (int i = 0; i < N; i++)
		if (read(up[0], &at[i], sizeof(at[i])) != sizeof(at[i])) {
			waitpid(kid, &st, 0);
			fail_msg("the target could not map its huge pages (%d)", WEXITSTATUS(st));
		}
	{
		static struct rowset a, x;
		struct pmaps_proc *p;
		struct pmaps_maps *sm, *c;
		char pid[16];
		snprintf(pid, sizeof(pid), "%d", (int)kid);
		assert_int_equal(pmaps_proc_open(&p, NULL, pid), 0);
		assert_int_equal(pmaps_maps_open(&sm, p, PMAPS_SRC_SMAPS, 0), 0);
		read_rows(sm, &a);
		for (int list = LIST_AUTO; list <= LIST_QUERY; list++) {
			pmaps__no_procmap_query = list == LIST_TEXT;
			pmaps__procmap_query_list = list == LIST_QUERY;
			assert_int_equal(pmaps_maps_open(&c, p, PMAPS_SRC_FAST, 0), 0);
			pmaps__no_procmap_query = pmaps__procmap_query_list = 0;
			read_rows(c, &x);
			for (int i = 0; i < N; i++) {
				const struct pmaps_mapping *s = find_row(&a, at[i]), *m = find_row(&x, at[i]);
				uint64_t v;
				assert_non_null(s);
				assert_non_null(m);
				/* Without the ioctl a hugetlb memfd looks like any memfd. */
				if (list == LIST_TEXT && i == MEMFD)
					continue;
				if (m->kind != s->kind || m->v[PMAPS_F_RSS] != s->v[PMAPS_F_RSS])
					fail_msg("%s%s: kind %s rss %llu, smaps: kind %s rss %llu", names[i],
					         list_names[list], pmaps_kind_name(m->kind),
					         (unsigned long long)m->v[PMAPS_F_RSS], pmaps_kind_name(s->kind),
					         (unsigned long long)s->v[PMAPS_F_RSS]);
				assert_int_equal(s->kind == PMAPS_KIND_HUGETLB, i != PLAIN);
				/* The page size: wherever PROCMAP_QUERY is, or the row is no hugetlb. */
				if (pmaps_mapping_value(m, PMAPS_F_KERNEL_PAGE_SIZE, &v) == 1) {
					if (v != s->v[PMAPS_F_KERNEL_PAGE_SIZE])
						fail_msg("%s%s: page size %llu, smaps %llu", names[i], list_names[list],
						         (unsigned long long)v,
						         (unsigned long long)s->v[PMAPS_F_KERNEL_PAGE_SIZE]);
				} else {
					assert_true(list == LIST_TEXT && i != PLAIN);
				}
			}
			pmaps_maps_close(c);
		}
		pmaps_maps_close(sm);
		pmaps_proc_close(p);
	}
	close(down[1]);
	assert_int_equal(waitpid(kid, &st, 0), kid);
	running_helper = 0;
	close(up[0]);
	/* Its mount went with its namespace. */
	assert_int_equal(rmdir(dir), 0);
	huge_dir[0] = '\0';
	hugepages_before = -1;
	assert_int_equal(set_hugepages(old), old + 3);
	expect_exited(st, 0);
}

static void test_fast_agrees(void **state)
{
	struct helper h;
	struct pmaps_proc *p;
	int zp = zero_page_mapped();
	(void)state;

	start_helper(&h, "2");
	assert_int_equal(pmaps_proc_open(&p, NULL, h.pidstr), 0);
	fast_agrees(&h, p, PMAPS_SRC_FAST, LIST_AUTO, 0, zp, "fast");
	fast_agrees(&h, p, PMAPS_SRC_FAST, LIST_QUERY, 0, zp, "fast, PROCMAP_QUERY");
	fast_agrees(&h, p, PMAPS_SRC_FAST, LIST_TEXT, 0, zp, "fast, maps text without PROCMAP_QUERY");
	fast_agrees(&h, p, PMAPS_SRC_FAST, LIST_TEXT, 1, zp, "fast, maps text and pagemap");
	fast_agrees(&h, p, PMAPS_SRC_FAST, LIST_AUTO, 1, zp, "fast, pagemap");
	fast_agrees(&h, p, PMAPS_SRC_PAGES, LIST_AUTO, 0, zp, "pages");
	fast_agrees(&h, p, PMAPS_SRC_PAGES, LIST_QUERY, 0, zp, "pages, PROCMAP_QUERY");
	fast_agrees(&h, p, PMAPS_SRC_PAGES, LIST_TEXT, 1, zp, "pages, maps text and pagemap");
	pmaps_proc_close(p);
	stop_helper(&h);
}

/*
 * The benchmarks' layouts (bench/targets.c), where the fast source's goals
 * are measured: 2000 mappings of 4 pages, mixed (anonymous and private file
 * mappings of four files, neighbours that never merge) and anonymous. Every
 * page source with every VMA list it may use gives smaps' values, row for
 * row; the text is read in many buffers and PAGEMAP_SCAN in several
 * batches. The layout fixes LazyFree: every 40th mapping is read-write
 * anonymous, two pages written and MADV_FREE'd.
 */
static void test_fast_agrees_layouts(void **state)
{
	enum { N = 2000 };
	static const struct {
		enum pmaps_source src;
		int list, no_scan;
		const char *what;
	} ways[] = {
		{PMAPS_SRC_FAST, LIST_AUTO, 0, "fast"},
		{PMAPS_SRC_FAST, LIST_QUERY, 0, "fast, PROCMAP_QUERY"},
		{PMAPS_SRC_FAST, LIST_TEXT, 0, "fast, maps text without PROCMAP_QUERY"},
		{PMAPS_SRC_FAST, LIST_AUTO, 1, "fast, pagemap"},
		{PMAPS_SRC_PAGES, LIST_AUTO, 0, "pages"},
		{PMAPS_SRC_PAGES, LIST_QUERY, 0, "pages, PROCMAP_QUERY"},
	};
	static struct rowset x;
	const uint64_t lazy = (N + 39) / 40 * 2 * PG;
	int root = geteuid() == 0;
	(void)state;

	for (int layout = LAYOUT_MIXED; layout <= LAYOUT_ANON; layout++) {
		struct target t;
		struct pmaps_proc *p;
		struct pmaps_maps *sm, *c;
		uint64_t sum, v;
		int files;

		assert_int_equal(target_start_layout(&t, N, (enum layout)layout), 0);
		running_target = &t;
		assert_int_equal(pmaps_proc_open(&p, NULL, t.pidstr), 0);
		assert_int_equal(pmaps_maps_open(&sm, p, PMAPS_SRC_SMAPS, 0), 0);
		for (size_t w = 0; w < sizeof(ways) / sizeof(ways[0]); w++) {
			char what[96];
			int query = list_query(ways[w].list);
			snprintf(what, sizeof(what), "%s layout: %s", layout_name((enum layout)layout),
			         ways[w].what);
			pmaps__no_procmap_query = ways[w].list == LIST_TEXT;
			pmaps__procmap_query_list = ways[w].list == LIST_QUERY;
			pmaps__no_pagemap_scan = ways[w].no_scan;
			assert_int_equal(pmaps_maps_open(&c, p, ways[w].src, 0), 0);
			pmaps__no_procmap_query = pmaps__procmap_query_list = pmaps__no_pagemap_scan = 0;
			assert_int_equal(pmaps_maps_query(c), query);
			expect_ge(rows_agree(sm, c, ways[w].src, query, what, &x), N);
			/* LazyFree where the source knows it: the pages source as root. */
			sum = 0;
			files = 0;
			for (int i = 0; i < x.n; i++) {
				if (pmaps_mapping_value(&x.m[i], PMAPS_F_LAZY_FREE, &v) == 1)
					sum += v;
				files += t.dir[0] && strncmp(x.path[i], t.dir, strlen(t.dir)) == 0;
			}
			if (ways[w].src == PMAPS_SRC_PAGES && root)
				expect_eq(sum, lazy);
			else
				expect_eq(sum, 0);
			expect_eq(files, layout == LAYOUT_MIXED ? N / 2 : 0);
			pmaps_maps_close(c);
		}
		/* And smaps itself, against the layout. */
		read_rows(sm, &x);
		sum = 0;
		for (int i = 0; i < x.n; i++)
			sum += x.m[i].v[PMAPS_F_LAZY_FREE];
		expect_eq(sum, lazy);
		pmaps_maps_close(sm);
		pmaps_proc_close(p);
		running_target = NULL;
		target_stop(&t);
	}
}

/* Totals from the page sources against smaps_rollup, read before and after. */
static void test_fast_totals(void **state)
{
	struct helper h;
	struct pmaps_proc *p;
	struct pmaps_group_row a, x, b;
	struct pmaps_cost k = {.size = sizeof(k)};
	enum pmaps_source used;
	static const int keys[] = {PMAPS_F_RSS, PMAPS_F_ANONYMOUS, PMAPS_F_ANON_HUGE_PAGES,
	                           PMAPS_F_SWAP, PMAPS_F_PSS, PMAPS_F_LAZY_FREE, PMAPS_V_USS,
	                           PMAPS_V_SHARED};
	char msg[256];
	int root = geteuid() == 0;
	(void)state;

	start_helper(&h, "2");
	assert_int_equal(pmaps_proc_open(&p, NULL, h.pidstr), 0);
	for (int src = PMAPS_SRC_FAST; src <= PMAPS_SRC_PAGES; src++) {
		int moved = 0;
		for (int attempt = 0; attempt < 10; attempt++) {
			moved = 0;
			assert_int_equal(pmaps_total(p, &a, sizeof(a), &used, msg, sizeof(msg)), 0);
			if (pmaps_total_from(p, (enum pmaps_source)src, NULL, &x, sizeof(x), &k, msg,
			                     sizeof(msg)) != 0)
				fail_msg("total from %s: %s", pmaps_source_name((enum pmaps_source)src), msg);
			assert_int_equal(pmaps_total(p, &b, sizeof(b), &used, msg, sizeof(msg)), 0);
			assert_int_equal(PMAPS_ROW_SOURCE(x.flags), src);
			assert_string_equal(x.key.ptr, pmaps_source_name((enum pmaps_source)src));
			for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
				uint64_t va, vb, vx;
				int has = pmaps_group_value(&x, keys[i], &vx);
				if (!has)
					continue;
				assert_int_equal(pmaps_group_value(&a, keys[i], &va), 1);
				assert_int_equal(pmaps_group_value(&b, keys[i], &vb), 1);
				if (va != vb || va != vx) {
					moved |= va != vb;
					if (va == vb)
						fail_msg("total %s from %s: %llu, smaps_rollup %llu",
						         pmaps_value_key(keys[i]),
						         pmaps_source_name((enum pmaps_source)src),
						         (unsigned long long)vx, (unsigned long long)va);
				}
			}
			if (!moved)
				break;
		}
		if (moved)
			fail_msg("the helper's totals kept moving between reads of smaps_rollup");
		/* What each source gives in total. */
		uint64_t v;
		assert_int_equal(pmaps_group_value(&x, PMAPS_V_USS, &v), src == PMAPS_SRC_PAGES);
		assert_int_equal(pmaps_group_value(&x, PMAPS_F_PSS, &v), src == PMAPS_SRC_PAGES && root);
		assert_int_equal(pmaps_group_value(&x, PMAPS_V_MAPPINGS, &v), 1);
		expect_ge(k.calls, 2);
		expect_ge(k.ns, 1);
	}
	pmaps_proc_close(p);
	stop_helper(&h);
}

/* A budget stops a walk with -ETIME; the next call goes on, and the rows are the same. */
static void test_fast_budget(void **state)
{
	struct helper h;
	struct pmaps_proc *p;
	struct pmaps_maps *c;
	const struct pmaps_mapping *m;
	struct pmaps_policy pol = {.size = sizeof(pol), .step_pages = 64, .budget_ns = 1};
	struct pmaps_policy gentle = {.size = sizeof(gentle), .step_pages = 64, .hold_us = 1,
	                              .pause_us = 1};
	struct pmaps_cost k = {.size = sizeof(k)};
	static struct rowset whole, sliced;
	int rc, etimes = 0;
	(void)state;

	start_helper(&h, "2");
	assert_int_equal(pmaps_proc_open(&p, NULL, h.pidstr), 0);
	for (int src = PMAPS_SRC_FAST; src <= PMAPS_SRC_PAGES; src++) {
		assert_int_equal(pmaps_maps_open(&c, p, (enum pmaps_source)src, 0), 0);
		/*
		 * The pages source's Pss (as root) divides a shared library's pages
		 * by their map counts, which move as other processes start and
		 * exit: a value that differs once is read again; a wrong one
		 * differs every time.
		 */
		for (int attempt = 0;; attempt++) {
			int moved = -1;
			assert_int_equal(pmaps_maps_set_policy(c, NULL), 0);
			read_rows(c, &whole);
			assert_int_equal(pmaps_maps_set_policy(c, &pol), 0);
			assert_int_equal(pmaps_maps_rewind(c), 0);
			sliced.n = 0;
			etimes = 0;
			for (;;) {
				rc = pmaps_maps_next(c, &m);
				if (rc == -ETIME) {
					etimes++;
					continue;
				}
				if (rc <= 0)
					break;
				sliced.m[sliced.n++] = *m;
			}
			assert_int_equal(rc, 0);
			expect_ge(etimes, 3);
			assert_int_equal(sliced.n, whole.n);
			for (int i = 0; i < whole.n; i++) {
				assert_int_equal(sliced.m[i].start, whole.m[i].start);
				assert_int_equal(sliced.m[i].present, whole.m[i].present);
				if (moved < 0 && memcmp(sliced.m[i].v, whole.m[i].v, sizeof(whole.m[i].v)))
					moved = i;
			}
			if (moved < 0)
				break;
			for (int f = 0; f < PMAPS_F_COUNT; f++)
				if (sliced.m[moved].v[f] != whole.m[moved].v[f])
					printf("note: %s, attempt %d: %s of %llx %s: %llu, then %llu sliced\n",
					       pmaps_source_name((enum pmaps_source)src), attempt + 1,
					       pmaps_value_key(f), (unsigned long long)whole.m[moved].start,
					       whole.path[moved], (unsigned long long)whole.m[moved].v[f],
					       (unsigned long long)sliced.m[moved].v[f]);
			if (attempt == 4)
				fail_msg("%s: the sliced read's values differ from the whole read's in 5 "
				         "attempts", pmaps_source_name((enum pmaps_source)src));
		}
		/* Gentle: it pauses, and says so. */
		assert_int_equal(pmaps_maps_set_policy(c, &gentle), 0);
		read_rows(c, &sliced);
		assert_int_equal(pmaps_maps_cost(c, &k), 0);
		expect_ge(k.pauses, 1);
		expect_ge(k.calls, 2);
		pmaps_maps_close(c);
	}
	/* A policy smaller than ABI 0's is refused. */
	pol.size = 8;
	assert_int_equal(pmaps_maps_open(&c, p, PMAPS_SRC_FAST, 0), 0);
	assert_int_equal(pmaps_maps_set_policy(c, &pol), -EINVAL);
	pmaps_maps_close(c);
	pmaps_proc_close(p);
	stop_helper(&h);
}

/*
 * A mapping close below the end of user space: a walk that reads on past a
 * row must stop at that end, where PAGEMAP_SCAN refuses the whole call.
 */
static void test_fast_top_of_space(void **state)
{
	char *r = MAP_FAILED;
	struct pmaps_proc *p;
	(void)state;

	for (uint64_t at = PMAPS__USER_TOP47 - 16 * PG; at > PMAPS__USER_TOP47 - (250ull << 20);
	     at -= 1ull << 20) {
		r = mmap((void *)(uintptr_t)at, 4 * PG, PROT_READ | PROT_WRITE,
		         MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (r != MAP_FAILED && (uint64_t)(uintptr_t)r == at)
			break;
		if (r != MAP_FAILED)
			munmap(r, 4 * PG);
		r = MAP_FAILED;
	}
	if (r == MAP_FAILED) {
		printf("skipped: no room within 250 MiB of the end of user space\n");
		skip();
	}
	r[0] = 1;
	r[2 * PG] = 1;
	assert_int_equal(pmaps_proc_open(&p, NULL, "self"), 0);
	for (int src = PMAPS_SRC_FAST; src <= PMAPS_SRC_PAGES; src++) {
		struct pmaps_maps *c;
		const struct pmaps_mapping *m;
		int rc, found = 0;
		assert_int_equal(pmaps_maps_open(&c, p, (enum pmaps_source)src, 0), 0);
		while ((rc = pmaps_maps_next(c, &m)) > 0) {
			if (m->start != (uint64_t)(uintptr_t)r)
				continue;
			found = 1;
			if (m->v[PMAPS_F_RSS] != 2 * PG)
				fail_msg("%s: the mapping at %p has Rss %llu, want %llu",
				         pmaps_source_name((enum pmaps_source)src), (void *)r,
				         (unsigned long long)m->v[PMAPS_F_RSS], 2 * PG);
		}
		assert_int_equal(rc, 0);
		assert_int_equal(found, 1);
		pmaps_maps_close(c);
	}
	pmaps_proc_close(p);
	munmap(r, 4 * PG);
}

/*
 * Root without CAP_SYS_ADMIN (a container, a dropped capability) can open
 * kpageflags, but its pagemap hides the frames: the pages source says at
 * open that it has no Pss or LazyFree, never shows them as 0.
 */
static void test_kpage_without_sys_admin(void **state)
{
	pid_t kid;
	int st;
	(void)state;

	if (geteuid() != 0) {
		printf("skipped: needs root (to drop CAP_SYS_ADMIN from)\n");
		skip();
	}
	kid = fork();
	expect_sys(kid);
	if (kid == 0) {
		struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
		struct __user_cap_data_struct d[2];
		struct pmaps_proc *p;
		struct pmaps_pages *pg;
		uint64_t kf, kv;
		if (syscall(SYS_capget, &h, d) != 0)
			_exit(10);
		d[CAP_SYS_ADMIN / 32].effective &= ~(1u << (CAP_SYS_ADMIN % 32));
		d[CAP_SYS_ADMIN / 32].permitted &= ~(1u << (CAP_SYS_ADMIN % 32));
		if (syscall(SYS_capset, &h, d) != 0)
			_exit(11);
		if (pmaps_proc_open(&p, NULL, "self") != 0)
			_exit(12);
		if (pmaps_source_keys(p, PMAPS_SRC_PAGES, 0, &kf, &kv) != 0)
			_exit(13);
		if (kf & (1ull << PMAPS_F_PSS | 1ull << PMAPS_F_LAZY_FREE))
			_exit(20); /* it promised what it cannot give */
		if (!(kv & (1ull << (PMAPS_V_USS - PMAPS_F_MAX))))
			_exit(21); /* USS needs no privilege */
		if (pmaps_pages_open(&pg, p, PMAPS_PAGES_AUTO, PMAPS_PAGES_KPAGE) != 0)
			_exit(14);
		if (pmaps_pages_kpage(pg) != -EPERM || !strstr(pmaps_pages_errmsg(pg), "CAP_SYS_ADMIN"))
			_exit(22);
		pmaps_pages_close(pg);
		pmaps_proc_close(p);
		_exit(0);
	}
	assert_int_equal(waitpid(kid, &st, 0), kid);
	expect_exited(st, 0);
}

/*
 * Swap from the page tables, where they hold it: a private copy of a file
 * page is swapped through the page tables, a page of shared memory (a tmpfs
 * file) through its object. The fast source tells them apart by the
 * process's tmpfs mounts: a file on ramfs (device-less too, but no shared
 * memory) has Swap, one on tmpfs has not.
 */
static char swap_dirs[2][32];

/* The mounts of test_fast_swap_known(), gone however it ended. */
static int unmount_dirs(void **state)
{
	(void)state;
	for (int i = 0; i < 2; i++) {
		if (!swap_dirs[i][0])
			continue;
		umount2(swap_dirs[i], MNT_DETACH);
		rmdir(swap_dirs[i]);
		swap_dirs[i][0] = '\0';
	}
	return 0;
}

static void test_fast_swap_known(void **state)
{
	static const char *const fs[2] = {"ramfs", "tmpfs"};
	char (*dirs)[32] = swap_dirs;
	char path[96];
	char *maps[3];
	struct pmaps_proc *p;
	struct pmaps_maps *c;
	const struct pmaps_mapping *m;
	int rc, seen = 0, mfd;
	(void)state;

	/* Opened and read before the mounts exist: a rewind must see them. */
	assert_int_equal(pmaps_proc_open(&p, NULL, "self"), 0);
	assert_int_equal(pmaps_maps_open(&c, p, PMAPS_SRC_FAST, 0), 0);
	while ((rc = pmaps_maps_next(c, &m)) > 0)
		;
	assert_int_equal(rc, 0);
	for (int i = 0; i < 2; i++) {
		int fd;
		snprintf(dirs[i], sizeof(dirs[i]), "/tmp/pmaps-%s-XXXXXX", fs[i]);
		assert_non_null(mkdtemp(dirs[i]));
		if (mount(fs[i], dirs[i], fs[i], 0, NULL) != 0) {
			int e = errno;
			rmdir(dirs[i]);
			dirs[i][0] = '\0';
			pmaps_maps_close(c);
			pmaps_proc_close(p);
			printf("skipped: mounting %s: %s (needs CAP_SYS_ADMIN)\n", fs[i], strerror(e));
			skip();
		}
		snprintf(path, sizeof(path), "%s/f", dirs[i]);
		fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
		expect_sys(fd);
		assert_int_equal(ftruncate(fd, 4 * PG), 0);
		maps[i] = mmap(NULL, 4 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
		assert_true(maps[i] != MAP_FAILED);
		maps[i][0] = 1;
		close(fd);
	}
	/* Shared memory that no name or kind gives away: a memfd mapped PROT_NONE. */
	mfd = memfd_create("pmaps-test", MFD_CLOEXEC);
	expect_sys(mfd);
	assert_int_equal(ftruncate(mfd, 4 * PG), 0);
	maps[2] = mmap(NULL, 4 * PG, PROT_NONE, MAP_SHARED, mfd, 0);
	assert_true(maps[2] != MAP_FAILED);
	close(mfd);
	assert_int_equal(pmaps_maps_rewind(c), 0);
	while ((rc = pmaps_maps_next(c, &m)) > 0) {
		uint64_t v;
		int has = pmaps_mapping_value(m, PMAPS_F_SWAP, &v);
		for (int i = 0; i < 3; i++) {
			if (m->start != (uintptr_t)maps[i])
				continue;
			seen++;
			if (has != (i == 0))
				fail_msg("a %s mapping: Swap %s, want %s",
				         i == 2 ? "PROT_NONE memfd" : fs[i], has ? "given" : "absent",
				         i == 0 ? "given" : "absent");
		}
	}
	assert_int_equal(rc, 0);
	assert_int_equal(seen, 3);
	pmaps_maps_close(c);
	pmaps_proc_close(p);
	for (int i = 0; i < 3; i++)
		munmap(maps[i], 4 * PG);
}

/* Opening allocates; reading and reading again allocate nothing. */
static void test_fast_allocations(void **state)
{
	struct helper h;
	struct pmaps_proc *p;
	struct pmaps_maps *c;
	const struct pmaps_mapping *m;
	(void)state;

	start_helper(&h, "2");
	assert_int_equal(pmaps_proc_open(&p, NULL, h.pidstr), 0);
	for (int src = PMAPS_SRC_FAST; src <= PMAPS_SRC_PAGES; src++) {
		unsigned long opened;
		uint64_t rows = 0;
		pmaps_set_allocator(count_alloc, count_free, NULL);
		allocs = 0;
		assert_int_equal(pmaps_maps_open(&c, p, (enum pmaps_source)src, 0), 0);
		opened = allocs;
		for (int pass = 0; pass < 3; pass++) {
			assert_int_equal(pmaps_maps_rewind(c), 0);
			while (pmaps_maps_next(c, &m) > 0)
				rows++;
		}
		if (allocs != opened)
			fail_msg("%s: %lu allocations to open, %lu after 3 reads",
			         pmaps_source_name((enum pmaps_source)src), opened, allocs);
		expect_ge(rows, 60);
		pmaps_maps_close(c);
		pmaps_set_allocator(NULL, NULL, NULL);
	}
	pmaps_proc_close(p);
	stop_helper(&h);
}

/* A process killed in the middle of a read: -ESRCH, never a shorter list. */
static void test_fast_exit_mid_read(void **state)
{
	for (int src = PMAPS_SRC_FAST; src <= PMAPS_SRC_PAGES; src++) {
		for (int list = LIST_AUTO; list <= LIST_QUERY; list++) {
			struct helper h;
			struct pmaps_proc *p;
			struct pmaps_maps *c;
			const struct pmaps_mapping *m;
			int rc, rows = 0, st;
			(void)state;

			start_helper(&h, "2");
			assert_int_equal(pmaps_proc_open(&p, NULL, h.pidstr), 0);
			pmaps__no_procmap_query = list == LIST_TEXT;
			pmaps__procmap_query_list = list == LIST_QUERY;
			/* A small buffer: the maps text comes in several reads. */
			assert_int_equal(pmaps_maps_open(&c, p, (enum pmaps_source)src, 4096), 0);
			pmaps__no_procmap_query = pmaps__procmap_query_list = 0;
			while ((rc = pmaps_maps_next(c, &m)) > 0) {
				if (++rows == 3) {
					kill(h.pid, SIGKILL);
					waitpid(h.pid, &st, 0);
					running_helper = 0;
				}
			}
			if (rc != -ESRCH)
				fail_msg("%s%s: %d after %d rows (%s), expected -ESRCH",
				         pmaps_source_name((enum pmaps_source)src),
				         list_names[list], rc, rows, pmaps_maps_errmsg(c));
			expect_contains(pmaps_maps_errmsg(c), "exited");
			pmaps_maps_close(c);
			pmaps_proc_close(p);
			close(h.in);
			close(h.out);
		}
	}
}

/* Our open descriptors; with WHAT, those whose link ends in WHAT. */
static int count_fds(const char *what)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		char path[300], link[512];
		ssize_t k;
		size_t wl = what ? strlen(what) : 0;
		if (e->d_name[0] == '.' || atoi(e->d_name) == dirfd(d))
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		k = readlink(path, link, sizeof(link) - 1);
		if (k < 0)
			continue;
		link[k] = '\0';
		n += !what || ((size_t)k >= wl && strcmp(link + k - wl, what) == 0);
	}
	closedir(d);
	return n;
}

/*
 * pmaps_source_keys() keeps the page source's cursor it opened on the
 * handle, and pmaps_maps_open() of that source takes it over: the files
 * are opened once for a choice and the read that follows, the read's clock
 * starts at the take-over, and every descriptor is closed in the end.
 */
static void test_source_keys_cursor_kept(void **state)
{
	struct helper h;
	struct pmaps_proc *p, *q;
	struct pmaps_maps *c, *fresh;
	const struct pmaps_mapping *m;
	struct pmaps_cost cost = {.size = sizeof(cost)};
	uint64_t kf, kv, kf2, kv2;
	int base, opened, kept, rows = 0, rows_fresh = 0, r;
	struct timespec nap = {0, 200 * 1000 * 1000};
	(void)state;

	start_helper(&h, "2");
	base = count_fds(NULL);
	assert_int_equal(pmaps_proc_open(&p, NULL, h.pidstr), 0);
	opened = count_fds(NULL);
	assert_int_equal(pmaps_source_keys(p, PMAPS_SRC_FAST, 0, &kf, &kv), 0);
	kept = count_fds(NULL);
	if (kept <= opened)
		fail_msg("the keys' cursor holds no file: %d descriptors before, %d after", opened, kept);
	/* Asked again: the same cursor answers, nothing more is opened. */
	assert_int_equal(pmaps_source_keys(p, PMAPS_SRC_FAST, 0, &kf2, &kv2), 0);
	assert_int_equal(count_fds(NULL), kept);
	assert_int_equal(kf2, kf);
	assert_int_equal(kv2, kv);
	nanosleep(&nap, NULL);
	assert_int_equal(pmaps_maps_open(&c, p, PMAPS_SRC_FAST, 0), 0);
	if (count_fds(NULL) != kept)
		fail_msg("the read opened files again: %d descriptors with the kept cursor, %d now",
		         kept, count_fds(NULL));
	while ((r = pmaps_maps_next(c, &m)) == 1)
		rows++;
	assert_int_equal(r, 0);
	/* Its time is the read's, not the 200 ms since the keys were asked. */
	assert_int_equal(pmaps_maps_cost(c, &cost), 0);
	if (cost.ns >= 200 * 1000 * 1000ull)
		fail_msg("the read's time counts from the keys: %llu ns", (unsigned long long)cost.ns);
	/* The rows a cursor of its own reads. */
	assert_int_equal(pmaps_proc_open(&q, NULL, h.pidstr), 0);
	assert_int_equal(pmaps_maps_open(&fresh, q, PMAPS_SRC_FAST, 0), 0);
	while ((r = pmaps_maps_next(fresh, &m)) == 1)
		rows_fresh++;
	assert_int_equal(r, 0);
	assert_int_equal(rows, rows_fresh);
	pmaps_maps_close(fresh);
	pmaps_proc_close(q);
	pmaps_maps_close(c);
	assert_int_equal(count_fds(NULL), opened);
	/* A choice of another source closes it: smaps reads, nothing else will. */
	assert_int_equal(pmaps_source_keys(p, PMAPS_SRC_FAST, 0, &kf, &kv), 0);
	{
		enum pmaps_source s;
		assert_int_equal(pmaps_source_choose(p, 1ull << PMAPS_F_PRIVATE_DIRTY, 0, 0, NULL, &s,
		                                     NULL, 0), 1);
		assert_int_equal(s, PMAPS_SRC_SMAPS);
		if (count_fds(NULL) != opened)
			fail_msg("smaps chosen, the fast source's cursor still holds %d descriptors",
			         count_fds(NULL) - opened);
	}
	/* Another source's keys close the kept cursor; closing the handle closes the last. */
	assert_int_equal(pmaps_source_keys(p, PMAPS_SRC_FAST, 0, &kf, &kv), 0);
	kept = count_fds(NULL);
	assert_int_equal(pmaps_source_keys(p, PMAPS_SRC_PAGES, 0, &kf, &kv), 0);
	assert_true(count_fds(NULL) > opened);
	pmaps_proc_close(p);
	if (count_fds(NULL) != base)
		fail_msg("descriptors left open: %d before the handle, %d after closing it", base,
		         count_fds(NULL));
	stop_helper(&h);
}

/* Whether PID maps a file on a device-less mount (major 0: tmpfs, a memfd, shmem, ...). */
static int maps_devless_file(pid_t pid)
{
	char path[64], line[4096];
	FILE *f;
	int found = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "r");
	assert_non_null(f);
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned maj, min;
		unsigned long long ino;
		if (sscanf(line, "%*x-%*x %*4s %*x %x:%x %llu", &maj, &min, &ino) == 3)
			found = maj == 0 && ino != 0;
	}
	fclose(f);
	return found;
}

/* One fast read of PID; returns whether the cursor read its mountinfo. */
static int fast_reads_mountinfo(pid_t pid)
{
	struct pmaps_proc *p;
	struct pmaps_maps *c;
	const struct pmaps_mapping *m;
	char pidstr[16];
	int r, mi;

	snprintf(pidstr, sizeof(pidstr), "%d", (int)pid);
	assert_int_equal(pmaps_proc_open(&p, NULL, pidstr), 0);
	assert_int_equal(pmaps_maps_open(&c, p, PMAPS_SRC_FAST, 0), 0);
	while ((r = pmaps_maps_next(c, &m)) == 1)
		;
	assert_int_equal(r, 0);
	mi = count_fds("/mountinfo"); /* the cursor keeps it open, to poll */
	pmaps_maps_close(c);
	pmaps_proc_close(p);
	return mi > 0;
}

/*
 * The fast source reads the process's mountinfo (the kernel generates it
 * for every open) only when a mapping needs it: a file on a device-less
 * mount, whose kind it tells. The helper maps a memfd and shared anonymous
 * memory; a process mapping only anonymous memory and disk files is never
 * asked.
 */
static void test_fast_mounts_when_needed(void **state)
{
	struct helper h;
	int want, got;
	(void)state;

	start_helper(&h, "2");
	assert_true(maps_devless_file(h.pid));
	got = fast_reads_mountinfo(h.pid);
	if (!got)
		fail_msg("the helper maps a memfd, and its mountinfo was not read");
	stop_helper(&h);
	want = maps_devless_file(getpid());
	got = fast_reads_mountinfo(getpid());
	if (got != want)
		fail_msg("this process maps %s file on a device-less mount; its mountinfo was %sread",
		         want ? "a" : "no", got ? "" : "not ");
	if (want)
		printf("note: this test's own binary or libraries are on a device-less mount: only "
		       "the reading case was tried\n");
}

/* The cheapest source that answers, and what each one gives. */
static void test_source_choose(void **state)
{
	struct helper h;
	struct pmaps_proc *p;
	enum pmaps_source s;
	uint64_t kf, kv;
	char msg[256];
	const uint64_t F_RSS = 1ull << PMAPS_F_RSS, F_ANON = 1ull << PMAPS_F_ANONYMOUS,
	               F_SWAP = 1ull << PMAPS_F_SWAP, F_PSS = 1ull << PMAPS_F_PSS,
	               F_PD = 1ull << PMAPS_F_PRIVATE_DIRTY,
	               V_USS = 1ull << (PMAPS_V_USS - PMAPS_F_MAX);
	int root = geteuid() == 0;
	(void)state;

	start_helper(&h, "2");
	assert_int_equal(pmaps_proc_open(&p, NULL, h.pidstr), 0);
	assert_int_equal(pmaps_source_keys(p, PMAPS_SRC_FAST, 0, &kf, &kv), 0);
	assert_int_equal(kf & (F_RSS | F_ANON | F_SWAP), F_RSS | F_ANON | F_SWAP);
	assert_int_equal(kf & (F_PSS | F_PD), 0);
	assert_int_equal(pmaps_source_keys(p, PMAPS_SRC_PAGES, 0, &kf, &kv), 0);
	assert_int_equal(kv & V_USS, V_USS);
	assert_int_equal((kf & F_PSS) != 0, root);
	/* Per mapping: rss, anonymous and swap need no smaps. */
	assert_int_equal(pmaps_source_choose(p, F_RSS | F_ANON | F_SWAP, 0, 0, NULL, &s, msg,
	                                     sizeof(msg)), 1);
	assert_int_equal(s, PMAPS_SRC_FAST);
	assert_int_equal(pmaps_source_choose(p, F_RSS, V_USS, 0, NULL, &s, msg, sizeof(msg)), 1);
	assert_int_equal(s, PMAPS_SRC_PAGES);
	assert_int_equal(pmaps_source_choose(p, F_PD, 0, 0, NULL, &s, msg, sizeof(msg)), 1);
	assert_int_equal(s, PMAPS_SRC_SMAPS);
	/* In total: uss, pss and swap from pages as root, else from smaps_rollup. */
	assert_int_equal(pmaps_source_choose(p, F_PSS | F_SWAP, V_USS, 1, NULL, &s, msg,
	                                     sizeof(msg)), 1);
	assert_int_equal(s, root ? PMAPS_SRC_PAGES : PMAPS_SRC_ROLLUP);
	/* Nothing but the maps text for addresses alone. */
	assert_int_equal(pmaps_source_choose(p, 0, 0, 0, NULL, &s, msg, sizeof(msg)), 1);
	assert_int_equal(s, PMAPS_SRC_MAPS);
	/* A budget no source fits. */
	{
		struct pmaps_policy pol = {.size = sizeof(pol), .budget_ns = 1};
		assert_int_equal(pmaps_source_choose(p, F_RSS, 0, 1, &pol, &s, msg, sizeof(msg)), 0);
		assert_int_equal(s, PMAPS_SRC_STATUS);
		expect_contains(msg, "budget");
	}
	pmaps_proc_close(p);
	stop_helper(&h);
}

/* The best totals within a budget: a page source when it fits, status when nothing does. */
static void test_total_best(void **state)
{
	struct helper h;
	struct pmaps_proc *p;
	struct pmaps_group_row row, roll;
	struct pmaps_cost k = {.size = sizeof(k)};
	struct pmaps_policy none = {.size = sizeof(none), .budget_ns = 1};
	enum pmaps_source used;
	char msg[256];
	uint64_t v;
	const uint64_t F_RSS = 1ull << PMAPS_F_RSS, F_SWAP = 1ull << PMAPS_F_SWAP,
	               V_USS = 1ull << (PMAPS_V_USS - PMAPS_F_MAX);
	(void)state;

	start_helper(&h, "2");
	assert_int_equal(pmaps_proc_open(&p, NULL, h.pidstr), 0);
	assert_int_equal(pmaps_total(p, &roll, sizeof(roll), &used, msg, sizeof(msg)), 0);
	/* smaps_rollup's row, its mapping count and vsize from the maps text: smaps' sums. */
	assert_int_equal(used, PMAPS_SRC_ROLLUP);
	expect_set(roll.flags, PMAPS_GROUP_ROLLUP | PMAPS_GROUP_COUNTED);
	assert_int_equal(pmaps_total_from(p, PMAPS_SRC_SMAPS, NULL, &row, sizeof(row), NULL, msg,
	                                  sizeof(msg)), 0);
	assert_int_equal(pmaps_group_value(&roll, PMAPS_V_MAPPINGS, &v), 1);
	assert_int_equal(v, row.mappings);
	assert_int_equal(pmaps_group_value(&roll, PMAPS_V_VSIZE, &v), 1);
	assert_int_equal(v, row.vsize);
	assert_int_equal(pmaps_total_best(p, F_RSS | F_SWAP, V_USS, NULL, &row, sizeof(row), &k, msg,
	                                  sizeof(msg)), 1);
	assert_int_equal(PMAPS_ROW_SOURCE(row.flags), PMAPS_SRC_PAGES);
	assert_int_equal(row.v[PMAPS_F_RSS], roll.v[PMAPS_F_RSS]);
	assert_int_equal(pmaps_group_value(&row, PMAPS_V_USS, &v), 1);
	expect_ge(k.calls, 2);
	/* A budget it fits (the walk is sliced by it, and goes on), with pauses. */
	{
		struct pmaps_policy fits = {.size = sizeof(fits), .step_pages = 64, .pause_us = 10,
		                            .budget_ns = 5000000000ull};
		assert_int_equal(pmaps_total_best(p, F_RSS | F_SWAP, V_USS, &fits, &row, sizeof(row),
		                                  &k, msg, sizeof(msg)), 1);
		assert_int_equal(PMAPS_ROW_SOURCE(row.flags), PMAPS_SRC_PAGES);
		assert_int_equal(row.v[PMAPS_F_RSS], roll.v[PMAPS_F_RSS]);
		expect_ge(k.pauses, 1);
	}
	/* No source fits 1 ns: status's Rss, no USS, no mapping count. */
	assert_int_equal(pmaps_total_best(p, F_RSS, V_USS, &none, &row, sizeof(row), &k, msg,
	                                  sizeof(msg)), 0);
	assert_int_equal(PMAPS_ROW_SOURCE(row.flags), PMAPS_SRC_STATUS);
	assert_string_equal(row.key.ptr, "status");
	expect_contains(msg, "budget");
	assert_int_equal(pmaps_group_value(&row, PMAPS_F_RSS, &v), 1);
	expect_gt(v, 0);
	assert_int_equal(pmaps_group_value(&row, PMAPS_V_USS, &v), 0);
	assert_int_equal(pmaps_group_value(&row, PMAPS_V_MAPPINGS, &v), 0);
	assert_int_equal(k.calls, 1);
	pmaps_proc_close(p);
	stop_helper(&h);
}

/* The estimate grows with what there is to walk, and says which sources hold the lock. */
static void test_cost_estimate(void **state)
{
	struct pmaps_status st = {.size = sizeof(st)};
	struct pmaps_cost small = {.size = sizeof(small)}, big = {.size = sizeof(big)},
	                  rollup = {.size = sizeof(rollup)}, gentle = {.size = sizeof(gentle)};
	struct pmaps_policy pol = {.size = sizeof(pol), .step_pages = 512};
	(void)state;

	st.present = 1ull << PMAPS_ST_VM_RSS | 1ull << PMAPS_ST_VM_PTE;
	st.v[PMAPS_ST_VM_RSS] = 64ull << 20;
	st.v[PMAPS_ST_VM_PTE] = 256ull << 10;
	assert_int_equal(pmaps_cost_estimate(&st, 1000, PMAPS_SRC_FAST, NULL, &small), 0);
	st.v[PMAPS_ST_VM_RSS] = 64ull << 30;
	st.v[PMAPS_ST_VM_PTE] = 128ull << 20;
	assert_int_equal(pmaps_cost_estimate(&st, 1000, PMAPS_SRC_FAST, NULL, &big), 0);
	expect_gt(big.ns, small.ns);
	assert_int_equal(pmaps_cost_estimate(&st, 1000, PMAPS_SRC_ROLLUP, NULL, &rollup), 0);
	/* smaps_rollup holds the lock for its whole read; a page walk for one step. */
	assert_int_equal(rollup.hold_ns, rollup.ns);
	expect_lt(big.hold_ns, rollup.hold_ns / 100);
	assert_int_equal(pmaps_cost_estimate(&st, 1000, PMAPS_SRC_FAST, &pol, &gentle), 0);
	expect_lt(gentle.hold_ns, big.hold_ns);
	assert_int_equal(pmaps_cost_estimate(&st, 1000, PMAPS_SRC_COUNT, NULL, &big), -EINVAL);
	big.size = 4;
	assert_int_equal(pmaps_cost_estimate(&st, 1000, PMAPS_SRC_FAST, NULL, &big), -EINVAL);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_layout_exact, teardown),
		cmocka_unit_test_teardown(test_sources_agree, teardown),
		cmocka_unit_test_teardown(test_allocations, teardown),
		cmocka_unit_test_teardown(test_pages_exact, teardown),
		cmocka_unit_test_teardown(test_fast_agrees, teardown),
		cmocka_unit_test_teardown(test_fast_agrees_layouts, teardown),
		cmocka_unit_test_teardown(test_fast_hugetlb, teardown),
		cmocka_unit_test_teardown(test_fast_totals, teardown),
		cmocka_unit_test_teardown(test_fast_budget, teardown),
		cmocka_unit_test_teardown(test_fast_allocations, teardown),
		cmocka_unit_test(test_fast_top_of_space),
		cmocka_unit_test(test_kpage_without_sys_admin),
		cmocka_unit_test_teardown(test_fast_swap_known, unmount_dirs),
		cmocka_unit_test_teardown(test_fast_exit_mid_read, teardown),
		cmocka_unit_test_teardown(test_source_choose, teardown),
		cmocka_unit_test_teardown(test_source_keys_cursor_kept, teardown),
		cmocka_unit_test_teardown(test_fast_mounts_when_needed, teardown),
		cmocka_unit_test_teardown(test_total_best, teardown),
		cmocka_unit_test(test_cost_estimate),
		cmocka_unit_test_teardown(test_pages_kpage, teardown),
		cmocka_unit_test_teardown(test_pages_resident_is_rss, teardown),
		cmocka_unit_test_teardown(test_pages_reservation, teardown),
		cmocka_unit_test_teardown(test_pages_sparse_gentle, teardown),
		cmocka_unit_test_teardown(test_explain, teardown),
		cmocka_unit_test_teardown(test_explain_fast, teardown),
		cmocka_unit_test_teardown(test_explain_go, teardown),
		cmocka_unit_test_teardown(test_explain_go_labels, teardown),
		cmocka_unit_test_teardown(test_explain_cpython, teardown),
		cmocka_unit_test_teardown(test_explain_jvm_perfdata, teardown),
		cmocka_unit_test_teardown(test_explain_jvm_long_perfdata_name, teardown),
		cmocka_unit_test_teardown(test_explain_jvm, teardown),
		cmocka_unit_test_teardown(test_explain_hostile_files, teardown),
		cmocka_unit_test_teardown(test_explain_long_status, teardown),
		cmocka_unit_test_teardown(test_gone, teardown),
		cmocka_unit_test_teardown(test_exit_mid_read, teardown),
		cmocka_unit_test_teardown(test_pages_exit_mid_walk, teardown),
		cmocka_unit_test_teardown(test_exec_mid_read, teardown),
		cmocka_unit_test_teardown(test_kernel_thread, teardown),
		cmocka_unit_test(test_ambiguous_names),
		cmocka_unit_test_teardown(test_permission_denied, teardown),
	};
	/* A test name (a pattern) runs that test alone, under a ctest timeout of its own. */
	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
