/* SPDX-License-Identifier: MIT */
/*
 * test_phys.c - libpmaps' physical memory reader (pmaps_phys_*): exact
 * counts over proc trees this test writes itself, frame by frame, with the
 * state each frame must get written next to it by hand (never computed by
 * the library's rules); compound tails carried across buffer ends; map
 * counts; blocks; holes from iomem and without it; no allocation per
 * reading and no fd left open; the same with reader threads, and many
 * chunks read in threads against the calling thread's reading; faults
 * injected into the reads (EINTR, EIO, a read ending inside an entry); bad
 * options and files; kpagecgroup's rows per cgroup inode, exact per state,
 * with a table lowered through a hook so that later inodes go to "other",
 * missing and short kpagecgroup; and, as root, the
 * real /proc/kpageflags, whose length this test measures itself. Not root:
 * the live case checks the refusal and its message instead.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "pmaps.h"
#include "testhooks.h"
#include "../count_alloc.h"

#define B(n) (1ull << (n))
#define LOCKED B(0)
#define REFERENCED B(2)
#define UPTODATE B(3)
#define DIRTY B(4)
#define LRU B(5)
#define ACTIVE B(6)
#define SLAB B(7)
#define WRITEBACK B(8)
#define BUDDY B(10)
#define MMAP B(11)
#define ANON B(12)
#define SWAPCACHE B(13)
#define SWAPBACKED B(14)
#define HEAD B(15)
#define TAIL B(16)
#define HUGE B(17)
#define UNEVICTABLE B(18)
#define HWPOISON B(19)
#define NOPAGE B(20)
#define KSM B(21)
#define THP B(22)
#define OFFLINE B(23)
#define ZERO B(24)
#define IDLE B(25)
#define PGTABLE B(26)
#define RESERVED B(32)
#define MLOCKED B(33)
#define PRIVATE B(35)

/* One frame of the hand-made tree: its flags, its map count, and the state it must get. */
struct frame {
	uint64_t flags, count;
	int state;      /* with iomem */
	int state_noio; /* without iomem */
};

#define S(x) PMAPS_PHYS_##x
/*
 * iomem below makes frames 1-27 and 32-43 RAM: 0 and 28-31 are outside it,
 * holes where their flags say nothing (31 is in the buddy allocator: free).
 */
static const struct frame frames[] = {
	/* 0 */ {0, 0, S(HOLE), S(KERNEL)},
	/* 1 */ {HWPOISON, 0, S(HWPOISON), S(HWPOISON)},
	/* 2 */ {OFFLINE, 0, S(OFFLINE), S(OFFLINE)},
	/* 3 */ {RESERVED | ZERO, 0, S(ZERO), S(ZERO)},
	/* 4 */ {RESERVED | PRIVATE, 0, S(RESERVED), S(RESERVED)},
	/* 5 */ {BUDDY, 0, S(FREE), S(FREE)},
	/* 6 */ {HEAD | HUGE, 1, S(HUGETLB), S(HUGETLB)},
	/* 7 */ {TAIL | HUGE, 1, S(HUGETLB), S(HUGETLB)},
	/* 8 */ {TAIL, 0, S(HUGETLB), S(HUGETLB)}, /* an older kernel's bare tail */
	/* 9 */ {SLAB | HEAD, 0, S(SLAB), S(SLAB)},
	/* 10 */ {SLAB | ANON | KSM | TAIL, 0, S(SLAB), S(SLAB)}, /* stray ANON, KSM */
	/* 11 */ {PGTABLE, 0, S(PGTABLE), S(PGTABLE)},
	/* 12 */ {ANON | LRU | MMAP | UPTODATE, 1, S(LAZYFREE), S(LAZYFREE)},
	/* 13 */ {ANON | SWAPBACKED | THP | HEAD | LRU | MMAP, 1, S(ANON_THP), S(ANON_THP)},
	/* 14 */ {ANON | SWAPBACKED | THP | TAIL | LRU | MMAP, 1, S(ANON_THP), S(ANON_THP)},
	/* 15 */ {ANON | SWAPBACKED | LRU | MMAP | MLOCKED | UNEVICTABLE, 2, S(ANON), S(ANON)},
	/* 16 */ {ANON | SWAPBACKED | KSM | MMAP, 3, S(ANON), S(ANON)},
	/* 17 */ {SWAPCACHE | SWAPBACKED | LRU, 0, S(SWAPCACHE), S(SWAPCACHE)},
	/* 18 */ {SWAPBACKED | LRU | MMAP | DIRTY, 1, S(SHMEM), S(SHMEM)},
	/* 19 */ {LRU | THP | HEAD | UPTODATE, 0, S(FILE_THP), S(FILE_THP)},
	/* 20 */ {TAIL, 0, S(FILE_THP), S(FILE_THP)},
	/* 21 */ {LRU | MMAP | REFERENCED | ACTIVE, 3, S(FILE_MAPPED), S(FILE_MAPPED)},
	/* 22 */ {LRU | DIRTY | WRITEBACK, 0, S(FILE), S(FILE)},
	/* 23 */ {0, 0, S(KERNEL), S(KERNEL)},
	/* 24 */ {PRIVATE, 0, S(KERNEL), S(KERNEL)},
	/* 25 */ {NOPAGE, 0, S(HOLE), S(HOLE)},
	/* 26 */ {LRU | IDLE, 0, S(FILE), S(FILE)},
	/* 27 */ {TAIL, 0, S(KERNEL), S(KERNEL)}, /* no head before it */
	/* 28 */ {0, 0, S(HOLE), S(KERNEL)},
	/* 29 */ {RESERVED, 0, S(HOLE), S(RESERVED)}, /* outside RAM: a hole first */
	/* 30 */ {0, 0, S(HOLE), S(KERNEL)},
	/* 31 */ {BUDDY, 0, S(FREE), S(FREE)}, /* in use outside iomem's RAM: never a hole */
	/* 32 */ {ANON | SWAPBACKED | LRU | MMAP, 1, S(ANON), S(ANON)},
	/* 33 */ {ANON | SWAPBACKED | LRU | MMAP, 1, S(ANON), S(ANON)},
	/* 34 */ {ANON | SWAPBACKED | LRU | MMAP, 1, S(ANON), S(ANON)},
	/* 35 */ {BUDDY, 0, S(FREE), S(FREE)},
	/* 36 */ {BUDDY, 0, S(FREE), S(FREE)},
	/* 37 */ {BUDDY, 0, S(FREE), S(FREE)},
	/* 38 */ {BUDDY, 0, S(FREE), S(FREE)},
	/* 39 */ {ANON | SWAPBACKED | LRU | MMAP, 1, S(ANON), S(ANON)},
	/* 40 */ {ANON | SWAPBACKED | LRU | MMAP | HEAD, 1, S(ANON), S(ANON)},
	/* 41 */ {TAIL | HWPOISON, 1, S(HWPOISON), S(HWPOISON)}, /* its own poison, not anon */
	/* 42 */ {TAIL, 1, S(ANON), S(ANON)},                   /* the head's state again */
	/* 43 */ {MMAP, 1, S(KERNEL), S(KERNEL)}, /* mapped, not on the LRU: a driver's */
};
#define NFRAMES (sizeof(frames) / sizeof(frames[0]))

/* Blocks of 4 frames, by hand: the state most frames have, a tie the earlier state. */
static const int blocks4[] = {
	S(HOLE),     /* 0-3: hole, hwpoison, offline, zero: a tie */
	S(HUGETLB),  /* 4-7: reserved, free, hugetlb x2 */
	S(SLAB),     /* 8-11: hugetlb, slab x2, pgtable */
	S(ANON_THP), /* 12-15: lazyfree, anon_thp x2, anon */
	S(ANON),     /* 16-19: anon, swapcache, shmem, file_thp: a tie: anon */
	S(FILE_THP), /* 20-23: file_thp, file_mapped, file, kernel: a tie */
	S(KERNEL),   /* 24-27: kernel, hole, file, kernel (a tail without its head) */
	S(HOLE),     /* 28-31: hole x3, free */
	S(ANON),     /* 32-35: anon x3, free */
	S(FREE),     /* 36-39: free x3, anon */
	S(ANON),     /* 40-43: anon x2, hwpoison, kernel */
};

static const char iomem[] =
	"00000000-00000fff : Reserved\n"
	"00001000-0001bfff : System RAM\n"
	"  00002000-00002fff : Kernel code\n"
	"0001c000-0001ffff : PCI Bus 0000:00\n"
	"00020000-0002bfff : System RAM\n";

static char dir[64];

/* lib/phys.c's: the rows of the cgroup table opened next (0: the default). */
extern size_t pmaps__phys_cgroups_hook;

static void write_file(const char *name, const void *data, size_t len)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	close(fd);
}

static void remove_file(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(path);
}

/* The hand-made tree: kpageflags, kpagecount and (IO) iomem. */
static void make_tree(int io)
{
	uint64_t f[NFRAMES], c[NFRAMES];

	for (size_t i = 0; i < NFRAMES; i++) {
		f[i] = frames[i].flags;
		c[i] = frames[i].count;
	}
	write_file("kpageflags", f, sizeof(f));
	write_file("kpagecount", c, sizeof(c));
	if (io)
		write_file("iomem", iomem, sizeof(iomem) - 1);
	else
		remove_file("iomem");
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/pmaps-test-phys.XXXXXX");
	assert_non_null(mkdtemp(dir));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	pmaps__pread_hook = NULL;
	pmaps__phys_cgroups_hook = 0; /* a failed cgroup test leaves no small table behind */
	remove_file("kpageflags");
	remove_file("kpagecount");
	remove_file("kpagecgroup");
	remove_file("iomem");
	remove_file("meminfo");
	remove_file("link");
	rmdir(dir);
	return 0;
}

static unsigned threads; /* of every open_tree() */

static void open_tree(struct pmaps_phys **p, uint32_t flags, uint64_t block_pages,
                      uint64_t buf_bytes)
{
	struct pmaps_phys_opts o = {sizeof(o), flags, block_pages, buf_bytes, threads, NULL,
	                            PMAPS_PHYS_COUNT};
	char msg[256] = "";
	int r = pmaps_phys_open(p, dir, &o, msg, sizeof(msg));

	if (r != 0)
		print_error("pmaps_phys_open: %d %s\n", r, msg);
	assert_int_equal(r, 0);
}

/* Each state's count against the hand-written column (IO: with iomem). */
static void check_states(const struct pmaps_phys_result *r, int io)
{
	uint64_t want[PMAPS_PHYS_COUNT] = {0}, sum = 0;

	for (size_t i = 0; i < NFRAMES; i++)
		want[io ? frames[i].state : frames[i].state_noio]++;
	for (unsigned s = 0; s < PMAPS_PHYS_COUNT; s++) {
		if (r->state[s] != want[s])
			print_error("state %s: %llu pages, want %llu\n", pmaps_phys_state_key(s),
			            (unsigned long long)r->state[s], (unsigned long long)want[s]);
		assert_int_equal(r->state[s], want[s]);
		sum += r->state[s];
	}
	for (unsigned s = PMAPS_PHYS_COUNT; s < PMAPS_PHYS_MAX; s++)
		assert_int_equal(r->state[s], 0);
	assert_int_equal(sum, NFRAMES);
	assert_int_equal(r->pages, NFRAMES);
}

static void test_phys_fixture(void **state)
{
	struct pmaps_phys *p;
	const struct pmaps_phys_result *r;

	(void)state;
	make_tree(1);
	open_tree(&p, PMAPS_PHYS_MAPCOUNT, 4, 0);
	assert_int_equal(pmaps_phys_read(p, &r), 0);
	assert_non_null(r);
	assert_int_equal(r->size, sizeof(*r));
	assert_int_equal(r->holes_known, 1);
	check_states(r, 1);
	/* The flags, counted by hand from the table. */
	assert_int_equal(r->flag[PMAPS_PHYS_F_MLOCKED], 1);      /* 15 */
	assert_int_equal(r->flag[PMAPS_PHYS_F_UNEVICTABLE], 1);  /* 15 */
	assert_int_equal(r->flag[PMAPS_PHYS_F_DIRTY], 2);        /* 18, 22 */
	assert_int_equal(r->flag[PMAPS_PHYS_F_WRITEBACK], 1);    /* 22 */
	assert_int_equal(r->flag[PMAPS_PHYS_F_REFERENCED], 1);   /* 21 */
	assert_int_equal(r->flag[PMAPS_PHYS_F_ACTIVE], 1);       /* 21 */
	assert_int_equal(r->flag[PMAPS_PHYS_F_IDLE], 1);         /* 26 */
	assert_int_equal(r->flag[PMAPS_PHYS_F_KSM], 1);          /* 16, not the slab page 10 */
	assert_int_equal(r->flag[PMAPS_PHYS_F_SWAPCACHE], 1);    /* 17 */
	assert_int_equal(r->flag[PMAPS_PHYS_F_MMAP], 13); /* 12-16, 18, 21, 32-34, 39, 40, 43 */
	/* 6, 7, 12-16, 18, 21, 32-34, 39-43 */
	assert_int_equal(r->flag[PMAPS_PHYS_F_MAPPED], 17);
	assert_int_equal(r->flag[PMAPS_PHYS_F_SHARED], 3);  /* 15, 16, 21 */
	assert_int_equal(r->flags_known, (1ull << PMAPS_PHYS_F_COUNT) - 1);
	assert_int_equal(r->block_pages, 4);
	assert_int_equal(r->blocks, sizeof(blocks4) / sizeof(blocks4[0]));
	for (size_t i = 0; i < r->blocks; i++) {
		if (r->block[i] != blocks4[i])
			print_error("block %zu: %s, want %s\n", i, pmaps_phys_state_key(r->block[i]),
			            pmaps_phys_state_key(blocks4[i]));
		assert_int_equal(r->block[i], blocks4[i]);
	}
	/* Each block's pages per state, by hand for three of them; every row adds up to 4. */
	{
		static const struct { unsigned block, state, pages; } cnt[] = {
			{0, S(HOLE), 1}, {0, S(HWPOISON), 1}, {0, S(OFFLINE), 1}, {0, S(ZERO), 1},
			{7, S(HOLE), 3}, {7, S(FREE), 1}, {10, S(ANON), 2}, {10, S(HWPOISON), 1},
			{10, S(KERNEL), 1},
		};
		for (size_t i = 0; i < r->blocks; i++) {
			uint64_t sum = 0;
			for (unsigned st = 0; st < PMAPS_PHYS_COUNT; st++)
				sum += r->block_state[i * PMAPS_PHYS_COUNT + st];
			assert_int_equal(sum, 4);
		}
		for (size_t i = 0; i < sizeof(cnt) / sizeof(cnt[0]); i++) {
			uint32_t got = r->block_state[cnt[i].block * PMAPS_PHYS_COUNT + cnt[i].state];
			if (got != cnt[i].pages)
				print_error("block %u %s: %u pages, want %u\n", cnt[i].block,
				            pmaps_phys_state_key(cnt[i].state), got, cnt[i].pages);
			assert_int_equal(got, cnt[i].pages);
		}
	}
	assert_int_equal(pmaps_phys_bytes(r, r->pages), NFRAMES * (uint64_t)r->page_size);
	assert_int_equal(pmaps_phys_bytes(r, UINT64_MAX / 2), UINT64_MAX); /* saturates */
	/* A second reading, the same. */
	assert_int_equal(pmaps_phys_read(p, &r), 0);
	check_states(r, 1);
	pmaps_phys_close(p);
}

static void test_phys_no_iomem_no_count(void **state)
{
	struct pmaps_phys *p;
	const struct pmaps_phys_result *r;

	(void)state;
	make_tree(0);
	remove_file("kpagecount");
	open_tree(&p, PMAPS_PHYS_MAPCOUNT, 0, 0);
	assert_int_equal(pmaps_phys_read(p, &r), 0);
	assert_int_equal(r->holes_known, 0);
	check_states(r, 0);
	assert_int_equal(r->flags_known & (1ull << PMAPS_PHYS_F_MAPPED), 0);
	assert_int_equal(r->flags_known & (1ull << PMAPS_PHYS_F_SHARED), 0);
	assert_int_equal(r->flag[PMAPS_PHYS_F_MAPPED], 0);
	assert_int_equal(r->block_pages, PMAPS_PHYS_BLOCK_PAGES);
	assert_int_equal(r->blocks, 1);
	/* Anon 8 (15, 16, 32-34, 39, 40, 42) beats kernel 7 (0, 23, 24, 27, 28, 30, 43) and free 6. */
	assert_int_equal(r->block[0], PMAPS_PHYS_ANON);
	pmaps_phys_close(p);
}

/* Every pread() of the library, from any thread. */
static unsigned long preads;

static ssize_t counting_pread(int fd, void *buf, size_t len, off_t off)
{
	__atomic_add_fetch(&preads, 1, __ATOMIC_RELAXED);
	return pread(fd, buf, len, off);
}

/* A tail carries its head's state across a buffer's end (4096 bytes: 512 frames). */
static void test_phys_carry(void **state)
{
	static uint64_t f[2048];
	struct pmaps_phys *p;
	const struct pmaps_phys_result *r;

	(void)state;
	for (size_t i = 0; i < 2048; i++)
		f[i] = BUDDY;
	f[510] = ANON | SWAPBACKED | THP | HEAD;
	for (size_t i = 511; i < 1024; i++)
		f[i] = TAIL; /* bare tails, across the reads at 512 */
	f[1500] = SLAB | HEAD;
	for (size_t i = 1501; i < 1540; i++)
		f[i] = TAIL | SLAB;
	write_file("kpageflags", f, sizeof(f));
	remove_file("kpagecount");
	remove_file("iomem");
	open_tree(&p, 0, 512, 4096);
	preads = 0;
	pmaps__pread_hook = counting_pread;
	assert_int_equal(pmaps_phys_read(p, &r), 0);
	pmaps__pread_hook = NULL;
	assert_int_equal(r->pages, 2048);
	assert_int_equal(r->state[PMAPS_PHYS_ANON_THP], 514);
	assert_int_equal(r->state[PMAPS_PHYS_SLAB], 40);
	assert_int_equal(r->state[PMAPS_PHYS_FREE], 2048 - 514 - 40);
	/* Four full buffers, then the end; readers may read past it: those count too. */
	if (r->reads != preads)
		print_error("reads %llu, pread() calls %lu\n", (unsigned long long)r->reads, preads);
	assert_int_equal(r->reads, preads);
	if (!threads)
		assert_int_equal(r->reads, 4 + 1);
	else
		assert_in_range(r->reads, 4 + 1, 4 + threads);
	assert_int_equal(r->blocks, 4);
	assert_int_equal(r->block[0], PMAPS_PHYS_FREE);
	assert_int_equal(r->block[1], PMAPS_PHYS_ANON_THP);
	pmaps_phys_close(p);
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n++;
	closedir(d);
	return n;
}

static void test_phys_allocations(void **state)
{
	struct pmaps_phys *p;
	const struct pmaps_phys_result *r;
	unsigned long a0;
	int fds;

	(void)state;
	make_tree(1);
	fds = count_fds();
	pmaps_set_allocator(count_alloc, count_free, NULL);
	open_tree(&p, PMAPS_PHYS_MAPCOUNT, 4, 0);
	a0 = allocs;
	for (int i = 0; i < 10; i++)
		assert_int_equal(pmaps_phys_read(p, &r), 0);
	assert_int_equal(allocs, a0);
	pmaps_phys_close(p);
	pmaps_set_allocator(NULL, NULL, NULL);
	assert_int_equal(count_fds(), fds);
}

/*
 * Fault injection: the first read at offset FAULT_OFF fails how (by offset,
 * not by call: with reader threads the order of calls is not fixed).
 */
static int fault_kind, fault_armed;
static off_t fault_off;

static ssize_t fault_pread(int fd, void *buf, size_t len, off_t off)
{
	ssize_t n;

	if (off == fault_off && __atomic_exchange_n(&fault_armed, 0, __ATOMIC_ACQ_REL)) {
		if (fault_kind == EINTR || fault_kind == EIO) {
			errno = fault_kind;
			return -1;
		}
		/* A read that stops 5 bytes into an entry. */
		n = pread(fd, buf, len < 13 ? len : 13, off);
		return n > 5 ? 13 : n;
	}
	return pread(fd, buf, len, off);
}

static void test_phys_faults(void **state)
{
	struct pmaps_phys *p;
	const struct pmaps_phys_result *r;
	int fds;

	(void)state;
	make_tree(1);
	fds = count_fds();
	open_tree(&p, 0, 4, 0);
	pmaps__pread_hook = fault_pread;

	fault_armed = 1;
	fault_off = 0;
	fault_kind = EINTR; /* retried */
	assert_int_equal(pmaps_phys_read(p, &r), 0);
	check_states(r, 1);

	fault_armed = 1;
	fault_off = 0;
	fault_kind = EIO;
	assert_int_equal(pmaps_phys_read(p, &r), -EIO);
	assert_null(r);
	assert_non_null(strstr(pmaps_phys_errmsg(p), "kpageflags"));

	fault_armed = 1;
	fault_off = 0;
	fault_kind = 0; /* 13 bytes: one entry and 5 bytes of the next */
	assert_int_equal(pmaps_phys_read(p, &r), -EIO);
	assert_null(r);
	assert_non_null(strstr(pmaps_phys_errmsg(p), "into an entry"));

	/* After the faults, a whole reading again. */
	pmaps__pread_hook = NULL;
	assert_int_equal(pmaps_phys_read(p, &r), 0);
	check_states(r, 1);
	pmaps_phys_close(p);
	assert_int_equal(count_fds(), fds);
}

static void test_phys_bad(void **state)
{
	struct pmaps_phys *p = (struct pmaps_phys *)1;
	struct pmaps_phys_opts o = {(uint32_t)offsetof(struct pmaps_phys_opts, states) - 1, 0, 0,
	                            0, 0, NULL, 0};
	char msg[256], path[160];
	uint64_t seven = 7;
	int fds;

	(void)state;
	make_tree(1);
	fds = count_fds();
	assert_int_equal(pmaps_phys_open(&p, dir, &o, msg, sizeof(msg)), -EINVAL);
	assert_null(p);
	assert_non_null(strstr(msg, "size"));
	o.size = sizeof(o);
	o.buf_bytes = 4100; /* not a multiple of 8 */
	assert_int_equal(pmaps_phys_open(&p, dir, &o, msg, sizeof(msg)), -EINVAL);
	o.buf_bytes = 0;
	o.block_pages = (1ull << 32) + 1;
	assert_int_equal(pmaps_phys_open(&p, dir, &o, msg, sizeof(msg)), -EINVAL);
	/* 2^32 frames a block: a block's per-state count would wrap. */
	o.block_pages = 1ull << 32;
	assert_int_equal(pmaps_phys_open(&p, dir, &o, msg, sizeof(msg)), -EINVAL);
	assert_null(p);
	o.block_pages = (1ull << 32) - 1;
	assert_int_equal(pmaps_phys_open(&p, dir, &o, msg, sizeof(msg)), 0);
	pmaps_phys_close(p);
	p = (struct pmaps_phys *)1;
	o.block_pages = 0;
	o.flags = 1u << 5;
	assert_int_equal(pmaps_phys_open(&p, dir, &o, msg, sizeof(msg)), -EINVAL);
	assert_int_equal(pmaps_phys_open(&p, "/nonexistent-pmaps-root", NULL, msg, sizeof(msg)),
	                 -ENOENT);
	/* The directory is missing, not a file the kernel lacks. */
	if (strcmp(msg, "proc root /nonexistent-pmaps-root: no such directory") != 0)
		print_error("message: %s\n", msg);
	assert_string_equal(msg, "proc root /nonexistent-pmaps-root: no such directory");
	/* A length that is not whole entries. */
	write_file("kpageflags", &seven, 7);
	assert_int_equal(pmaps_phys_open(&p, dir, NULL, msg, sizeof(msg)), -EBADMSG);
	assert_non_null(strstr(msg, "7 bytes"));
	/* A symlink in a tree is never followed. */
	remove_file("kpageflags");
	snprintf(path, sizeof(path), "%s/kpageflags", dir);
	assert_int_equal(symlink("/proc/kpageflags", path), 0);
	assert_int_equal(pmaps_phys_open(&p, dir, NULL, msg, sizeof(msg)), -EBADMSG);
	assert_non_null(strstr(msg, "not a regular file"));
	remove_file("kpageflags");
	assert_int_equal(pmaps_phys_open(&p, dir, NULL, msg, sizeof(msg)), -ENOENT);
	assert_non_null(strstr(msg, "kpageflags: no such file"));
	assert_null(p);
	assert_int_equal(count_fds(), fds);
	assert_int_equal(pmaps_phys_read(NULL, NULL), -EINVAL);
	pmaps_phys_close(NULL);
	assert_null(pmaps_phys_state_key(PMAPS_PHYS_COUNT));
	assert_string_equal(pmaps_phys_state_key(PMAPS_PHYS_FILE_MAPPED), "file_mapped");
	assert_string_equal(pmaps_phys_flag_key(PMAPS_PHYS_F_SHARED), "shared");
	assert_null(pmaps_phys_flag_key(PMAPS_PHYS_F_COUNT));
}


/*
 * Driver-managed RAM in iomem: nested and suffixed "System RAM" lines are
 * RAM; a frame in use outside RAM is not a hole; iomem is read again by
 * each reading.
 */
static const char iomem_kinds[] =
	"00000000-00003fff : System RAM\n"
	"00004000-00007fff : Reserved\n"
	"00008000-0000ffff : PCI Bus 0000:00\n"
	"  00008000-0000bfff : virtio0\n"
	"    00008000-0000bfff : System RAM (virtio_mem)\n"
	"00010000-0001ffff : dax0.0\n"
	"  00010000-0001ffff : System RAM (kmem)\n"
	"00020000-0003ffff : Reserved\n"
	"00040000-00040fff : System RAMBLE\n"; /* not RAM: a longer word */

static void test_phys_iomem_kinds(void **state)
{
	static uint64_t f[64];
	struct pmaps_phys *p;
	const struct pmaps_phys_result *r;

	(void)state;
	if (getpagesize() != 4096) {
		print_message("skipped: the iomem here is for 4 KiB pages\n");
		return;
	}
	for (size_t i = 0; i < 64; i++) {
		if (i < 4 || (i >= 8 && i < 12) || (i >= 16 && i < 32))
			f[i] = ANON | SWAPBACKED | LRU | MMAP; /* RAM: 0-3, 8-11, 16-31 */
		else if (i >= 12 && i < 16)
			f[i] = NOPAGE;
		else if (i >= 32 && i < 48)
			f[i] = BUDDY; /* outside RAM, in use: free, not a hole */
		else if (i >= 48 && i < 56)
			f[i] = RESERVED;
		else
			f[i] = 0; /* 4-7, 56-63 */
	}
	/* Flagless and reserved frames in the nested RAM: kernel and reserved, not holes. */
	f[11] = RESERVED; /* virtio_mem */
	f[28] = f[29] = f[30] = f[31] = 0; /* kmem */
	write_file("kpageflags", f, sizeof(f));
	remove_file("kpagecount");
	write_file("iomem", iomem_kinds, sizeof(iomem_kinds) - 1);
	open_tree(&p, 0, 0, 0);
	assert_int_equal(pmaps_phys_read(p, &r), 0);
	assert_int_equal(r->holes_known, 1);
	/* Holes: 4-7, 12-15, 48-55, 56-63. */
	if (r->state[S(ANON)] != 19 || r->state[S(HOLE)] != 24 || r->state[S(FREE)] != 16 ||
	    r->state[S(KERNEL)] != 4 || r->state[S(RESERVED)] != 1)
		print_error("anon %llu hole %llu free %llu kernel %llu reserved %llu, want 19 24 16 "
		            "4 1\n", (unsigned long long)r->state[S(ANON)],
		            (unsigned long long)r->state[S(HOLE)],
		            (unsigned long long)r->state[S(FREE)],
		            (unsigned long long)r->state[S(KERNEL)],
		            (unsigned long long)r->state[S(RESERVED)]);
	assert_int_equal(r->state[S(ANON)], 19);
	assert_int_equal(r->state[S(HOLE)], 24);
	assert_int_equal(r->state[S(FREE)], 16);
	assert_int_equal(r->state[S(KERNEL)], 4);
	assert_int_equal(r->state[S(RESERVED)], 1);
	/* Hotplug: the kmem range gone from iomem (its frames now 0), the next reading sees it. */
	for (size_t i = 16; i < 32; i++)
		f[i] = 0;
	write_file("kpageflags", f, sizeof(f));
	write_file("iomem", iomem_kinds, strstr(iomem_kinds, "00010000") - iomem_kinds);
	assert_int_equal(pmaps_phys_read(p, &r), 0);
	assert_int_equal(r->holes_known, 1);
	assert_int_equal(r->state[S(HOLE)], 24 + 16);
	assert_int_equal(r->state[S(KERNEL)], 0);
	assert_int_equal(r->state[S(ANON)], 7);
	/* iomem of zeros (a container without CAP_SYS_ADMIN): holes unknown, flagless is kernel. */
	write_file("iomem", "00000000-00000000 : System RAM\n", 31);
	assert_int_equal(pmaps_phys_read(p, &r), 0);
	assert_int_equal(r->holes_known, 0);
	assert_int_equal(r->state[S(HOLE)], 4); /* the NOPAGE frames */
	/* 64 less anon 7, reserved 8 + 1, hole 4, free 16. */
	assert_int_equal(r->state[S(KERNEL)], 64 - 7 - 9 - 4 - 16);
	pmaps_phys_close(p);
}

/* kpagecount shorter than kpageflags: an error, never zeros in its place. */
static void test_phys_count_short(void **state)
{
	struct pmaps_phys *p;
	const struct pmaps_phys_result *r;
	uint64_t f[NFRAMES], c[NFRAMES - 3];

	(void)state;
	make_tree(1);
	for (size_t i = 0; i < NFRAMES; i++)
		f[i] = frames[i].flags;
	for (size_t i = 0; i < NFRAMES - 3; i++)
		c[i] = frames[i].count;
	write_file("kpageflags", f, sizeof(f));
	write_file("kpagecount", c, sizeof(c));
	open_tree(&p, PMAPS_PHYS_MAPCOUNT, 4, 0);
	assert_int_equal(pmaps_phys_read(p, &r), -EIO);
	assert_null(r);
	if (!strstr(pmaps_phys_errmsg(p), "kpagecount") || !strstr(pmaps_phys_errmsg(p), "shorter"))
		print_error("message: %s\n", pmaps_phys_errmsg(p));
	assert_non_null(strstr(pmaps_phys_errmsg(p), "kpagecount"));
	assert_non_null(strstr(pmaps_phys_errmsg(p), "shorter"));
	pmaps_phys_close(p);
}

/* Cancelling: a flag set before, by a signal handler mid-read, and by another thread. */
static volatile sig_atomic_t cancel_flag;
static unsigned long cancel_at; /* the pread() call that raises SIGUSR1 */

static void on_usr1(int sig)
{
	(void)sig;
	cancel_flag = 1;
}

static ssize_t raising_pread(int fd, void *buf, size_t len, off_t off)
{
	if (__atomic_add_fetch(&preads, 1, __ATOMIC_RELAXED) == cancel_at)
		raise(SIGUSR1);
	return pread(fd, buf, len, off);
}

static void *cancel_later(void *arg)
{
	(void)arg;
	/* Once the reading is under way (its 10th read), cancel it from here. */
	while (__atomic_load_n(&preads, __ATOMIC_RELAXED) < 10)
		usleep(100);
	cancel_flag = 1;
	return NULL;
}

static ssize_t slow_pread(int fd, void *buf, size_t len, off_t off)
{
	__atomic_add_fetch(&preads, 1, __ATOMIC_RELAXED);
	usleep(2000); /* 128 chunks: a quarter of a second, long enough to be cut short */
	return pread(fd, buf, len, off);
}

static void test_phys_cancel(void **state)
{
	static uint64_t f[65536];
	struct pmaps_phys_opts o = {sizeof(o), 0, 1, 4096, 0, &cancel_flag, PMAPS_PHYS_COUNT};
	struct sigaction sa, old;
	struct pmaps_phys *p;
	const struct pmaps_phys_result *r;
	char msg[256];
	pthread_t th;

	(void)state;
	for (size_t i = 0; i < 65536; i++)
		f[i] = i % 2 ? BUDDY : ANON | SWAPBACKED | LRU;
	write_file("kpageflags", f, sizeof(f)); /* 128 chunks of 4096 bytes */
	remove_file("kpagecount");
	remove_file("iomem");
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGUSR1, &sa, &old), 0);
	for (unsigned t = 0; t <= 3; t += 3) {
		o.threads = t;
		assert_int_equal(pmaps_phys_open(&p, dir, &o, msg, sizeof(msg)), 0);
		/* Set before: not a frame read. */
		cancel_flag = 1;
		preads = 0;
		pmaps__pread_hook = counting_pread;
		assert_int_equal(pmaps_phys_read(p, &r), -EINTR);
		assert_null(r);
		assert_non_null(strstr(pmaps_phys_errmsg(p), "cancelled"));
		assert_in_range(preads, 0, 2 * t); /* readers may have started one chunk each */
		/* By a signal handler during the 3rd read: within one chunk. */
		cancel_flag = 0;
		preads = 0;
		cancel_at = 3;
		pmaps__pread_hook = raising_pread;
		assert_int_equal(pmaps_phys_read(p, &r), -EINTR);
		if (preads > 3 + 2 * t)
			print_error("%lu reads after a cancel at the 3rd (threads %u)\n", preads, t);
		assert_in_range(preads, 3, 3 + 2 * t);
		assert_int_equal(cancel_flag, 1); /* the reader never resets it */
		/* From another thread, while slow reads go on. */
		cancel_flag = 0;
		preads = 0;
		pmaps__pread_hook = slow_pread;
		assert_int_equal(pthread_create(&th, NULL, cancel_later, NULL), 0);
		assert_int_equal(pmaps_phys_read(p, &r), -EINTR);
		assert_int_equal(pthread_join(th, NULL), 0);
		if (preads >= 128)
			print_error("%lu reads: the whole file, not cancelled\n", preads);
		assert_true(preads < 40);
		/* Cleared: a whole reading again. */
		cancel_flag = 0;
		pmaps__pread_hook = NULL;
		assert_int_equal(pmaps_phys_read(p, &r), 0);
		assert_int_equal(r->pages, 65536);
		assert_int_equal(r->state[S(FREE)], 32768);
		assert_int_equal(r->state[S(ANON)], 32768);
		pmaps_phys_close(p);
	}
	sigaction(SIGUSR1, &old, NULL);
}

/*
 * A cell of a picture is its frames' state, not its blocks' winners: block
 * 0 all anon, block 1 three free and one anon. Added up: anon 5, free 3.
 */
static void test_phys_cells(void **state)
{
	static const uint64_t f[8] = {
		ANON | SWAPBACKED | LRU, ANON | SWAPBACKED | LRU, ANON | SWAPBACKED | LRU,
		ANON | SWAPBACKED | LRU, BUDDY, BUDDY, ANON | SWAPBACKED | LRU, BUDDY,
	};
	struct pmaps_phys *p;
	const struct pmaps_phys_result *r;

	(void)state;
	write_file("kpageflags", f, sizeof(f));
	remove_file("kpagecount");
	remove_file("iomem");
	open_tree(&p, 0, 4, 0);
	assert_int_equal(pmaps_phys_read(p, &r), 0);
	assert_int_equal(r->blocks, 2);
	assert_int_equal(r->block[0], S(ANON));
	assert_int_equal(r->block[1], S(FREE));
	assert_int_equal(r->block_state[0 * PMAPS_PHYS_COUNT + S(ANON)], 4);
	assert_int_equal(r->block_state[1 * PMAPS_PHYS_COUNT + S(ANON)], 1);
	assert_int_equal(r->block_state[1 * PMAPS_PHYS_COUNT + S(FREE)], 3);
	assert_int_equal(r->block_state[0 * PMAPS_PHYS_COUNT + S(FREE)] +
	                 r->block_state[1 * PMAPS_PHYS_COUNT + S(FREE)], 3);
	pmaps_phys_close(p);
}

/* The frames of the real /proc/kpageflags, counted with plain reads. */
static uint64_t live_frames(void)
{
	static char buf[1 << 20];
	uint64_t bytes = 0;
	ssize_t n;
	int fd = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		bytes += (uint64_t)n;
	assert_int_equal(n, 0);
	close(fd);
	assert_int_equal(bytes % 8, 0);
	return bytes / 8;
}

static void test_phys_live(void **state)
{
	struct pmaps_phys *p;
	const struct pmaps_phys_result *r;
	char msg[256];
	uint64_t sum = 0, frames_now;
	pid_t pid;
	int status;

	(void)state;
	if (geteuid() == 0) {
		struct pmaps_phys_opts o = {sizeof(o), PMAPS_PHYS_MAPCOUNT, 0, 0, 0, NULL, PMAPS_PHYS_COUNT};
		assert_int_equal(pmaps_phys_open(&p, NULL, &o, msg, sizeof(msg)), 0);
		assert_int_equal(pmaps_phys_read(p, &r), 0);
		frames_now = live_frames();
		if (r->pages != frames_now)
			print_error("pages %llu, kpageflags %llu frames\n", (unsigned long long)r->pages,
			            (unsigned long long)frames_now);
		assert_int_equal(r->pages, frames_now);
		for (unsigned s = 0; s < PMAPS_PHYS_COUNT; s++)
			sum += r->state[s];
		assert_int_equal(sum, r->pages);
		assert_int_equal(r->flags_known, (1ull << PMAPS_PHYS_F_COUNT) - 1);
		assert_true(r->state[PMAPS_PHYS_FREE] > 0);
		assert_int_equal(r->blocks, r->pages / 512 + (r->pages % 512 != 0));
		pmaps_phys_close(p);
		/* kpagecgroup where the kernel has it: the rows and other add up to the frames. */
		o.flags = PMAPS_PHYS_CGROUP;
		assert_int_equal(pmaps_phys_open(&p, NULL, &o, msg, sizeof(msg)), 0);
		assert_int_equal(pmaps_phys_read(p, &r), 0);
		if (access("/proc/kpagecgroup", F_OK) == 0) {
			uint64_t rows = r->cgroups_other;
			assert_int_equal(r->cgroups_known, 1);
			assert_true(r->ncgroups >= 1 && r->ncgroups <= PMAPS_PHYS_MAX_CGROUPS);
			for (size_t i = 0; i < r->ncgroups; i++)
				rows += r->cgroups[i].pages;
			assert_int_equal(rows, r->pages);
		} else {
			assert_int_equal(r->cgroups_known, 0);
		}
		pmaps_phys_close(p);
	}
	/* Not root: refused, with the fix in the message (as nobody when we are root). */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int rc;
		if (geteuid() == 0 && (setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) < 0 ||
		                       setresuid(65534, 65534, 65534) < 0))
			_exit(10);
		rc = pmaps_phys_open(&p, NULL, NULL, msg, sizeof(msg));
		if (rc != -EACCES && rc != -EPERM) {
			fprintf(stderr, "open as nobody: %d %s\n", rc, msg);
			_exit(11);
		}
		if (!strstr(msg, "run as root") || !strstr(msg, "kpageflags")) {
			fprintf(stderr, "message: %s\n", msg);
			_exit(12);
		}
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* The same readings with reader threads: the chunks come back in order. */
static void test_phys_threads(void **state)
{
	for (threads = 2; threads <= 5; threads += 3) {
		test_phys_fixture(state);
		test_phys_no_iomem_no_count(state);
		test_phys_carry(state);
		test_phys_allocations(state);
		test_phys_faults(state);
		test_phys_iomem_kinds(state);
		test_phys_count_short(state);
	}
	threads = 0;
}

/* Many chunks (4 KiB reads of 64k frames) in 3 threads against the calling thread's reading. */
static void test_phys_threads_many(void **state)
{
	static uint64_t f[65536], c[65536];
	struct pmaps_phys *p0, *p3;
	const struct pmaps_phys_result *r0, *r3;
	uint64_t x = 88172645463325252ull;
	static const uint64_t kinds[] = {
		BUDDY, ANON | SWAPBACKED | LRU | MMAP, LRU, LRU | MMAP, SLAB, 0, RESERVED,
		SWAPBACKED | LRU, ANON | LRU, PGTABLE,
	};

	(void)state;
	/* Runs of random states and lengths, compound pages across chunk ends among them. */
	for (size_t i = 0; i < 65536;) {
		size_t len;
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		len = 1 + (size_t)(x % 700);
		for (size_t j = 0; j < len && i < 65536; j++, i++) {
			f[i] = kinds[(x >> 20) % 10];
			if ((x >> 30) % 3 == 0)
				f[i] |= j ? TAIL : HEAD | THP;
			c[i] = (x >> 40) % 3;
		}
	}
	write_file("kpageflags", f, sizeof(f));
	write_file("kpagecount", c, sizeof(c));
	write_file("iomem", iomem, sizeof(iomem) - 1);
	threads = 0;
	open_tree(&p0, PMAPS_PHYS_MAPCOUNT, 100, 4096);
	threads = 3;
	open_tree(&p3, PMAPS_PHYS_MAPCOUNT, 100, 4096);
	threads = 0;
	assert_int_equal(pmaps_phys_read(p0, &r0), 0);
	preads = 0;
	pmaps__pread_hook = counting_pread;
	assert_int_equal(pmaps_phys_read(p3, &r3), 0);
	pmaps__pread_hook = NULL;
	assert_int_equal(r3->reads, preads);
	assert_int_equal(r0->pages, 65536);
	assert_int_equal(r3->pages, 65536);
	assert_memory_equal(r0->state, r3->state, sizeof(r0->state));
	assert_memory_equal(r0->flag, r3->flag, sizeof(r0->flag));
	assert_int_equal(r0->blocks, 656);
	assert_int_equal(r3->blocks, 656);
	assert_memory_equal(r0->block, r3->block, 656);
	assert_memory_equal(r0->block_state, r3->block_state, 656 * PMAPS_PHYS_COUNT * 4);
	/* 16 chunks and the end, of both files; the readers' past the end on top. */
	/* 128 chunks of both files and the end; the other readers' past the end on top. */
	assert_int_equal(r0->reads, 2 * 128 + 1);
	assert_in_range(r3->reads, r0->reads, r0->reads + 2);
	pmaps_phys_close(p0);
	pmaps_phys_close(p3);
}

/* A kpageflags of N zero entries, sparse (nothing is read by an open). */
static void sparse_tree(uint64_t n)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/kpageflags", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)(n * 8)), 0);
	close(fd);
}

/*
 * The default block is 2 MiB up to 2^16 of them, then as many frames as make
 * 2^16 blocks; a block size asked for that makes more than
 * PMAPS_PHYS_MAX_BLOCKS blocks is -E2BIG, with the smallest that fits.
 */
static void test_phys_block_bounds(void **state)
{
	const uint64_t big = 65536ull * 512 + 1; /* 128 GiB and one frame */
	struct pmaps_phys_opts o = {sizeof(o), 0, 0, 0, 0, NULL, PMAPS_PHYS_COUNT};
	const struct pmaps_phys_result *res;
	struct pmaps_phys *p = NULL;
	char msg[256] = "";
	int r;

	(void)state;
	sparse_tree(65536ull * 512);
	open_tree(&p, 0, 0, 0);
	assert_int_equal(pmaps_phys_read(p, &res), 0);
	assert_int_equal(res->block_pages, 512);
	assert_int_equal(res->blocks, 65536);
	pmaps_phys_close(p);
	sparse_tree(big);
	open_tree(&p, 0, 0, 0);
	assert_int_equal(pmaps_phys_read(p, &res), 0);
	assert_int_equal(res->block_pages, 513); /* ceil(big / 65536) */
	assert_int_equal(res->blocks, 65409);    /* ceil(big / 513) */
	pmaps_phys_close(p);
	/* Asked for: kept, when the blocks fit. */
	open_tree(&p, 0, 64, 0);
	assert_int_equal(pmaps_phys_read(p, &res), 0);
	assert_int_equal(res->block_pages, 64);
	pmaps_phys_close(p);
	sparse_tree(PMAPS_PHYS_MAX_BLOCKS + 1ull);
	o.block_pages = 1;
	r = pmaps_phys_open(&p, dir, &o, msg, sizeof(msg));
	assert_int_equal(r, -E2BIG);
	assert_null(p);
	if (strcmp(msg, "blocks of 1 frames (4096 bytes) make 1048577 blocks, more than 1048576: "
	                "a block needs at least 2 frames (8192 bytes) here") != 0)
		fail_msg("message: %s", msg);
	o.block_pages = 2;
	assert_int_equal(pmaps_phys_open(&p, dir, &o, msg, sizeof(msg)), 0);
	pmaps_phys_close(p);
}

/*
 * kpagecgroup (PMAPS_PHYS_CGROUP): CG_FRAMES frames of four kinds, each with
 * its state by hand, charged to inodes by a pattern; the test tallies rows
 * itself. The first CG_EARLY frames use inodes 0, 100, 200 and 300 only, the
 * rest 400 and 500 too: with the table lowered to 4 rows (the hook), 400's
 * and 500's frames are "other".
 */
#define CG_FRAMES 3001
#define CG_EARLY 1024
static const struct {
	uint64_t flags;
	unsigned state;
} cg_kinds[4] = {
	{BUDDY, S(FREE)},
	{ANON | SWAPBACKED | MMAP | LRU, S(ANON)},
	{LRU, S(FILE)},
	{SLAB, S(SLAB)},
};

static uint64_t cg_inode(size_t i)
{
	static const uint64_t early[] = {0, 100, 200, 300, 100, 100, 200};
	static const uint64_t late[] = {0, 100, 200, 300, 400, 500, 500, 300};

	if (i < CG_EARLY)
		return early[i % 7];
	return late[i % 8];
}

static void cg_tree(size_t gframes)
{
	static uint64_t f[CG_FRAMES], g[CG_FRAMES];

	for (size_t i = 0; i < CG_FRAMES; i++) {
		f[i] = cg_kinds[(i / 3) % 4].flags;
		g[i] = cg_inode(i);
	}
	write_file("kpageflags", f, sizeof(f));
	remove_file("kpagecount");
	remove_file("iomem");
	if (gframes)
		write_file("kpagecgroup", g, gframes * 8);
	else
		remove_file("kpagecgroup");
}

/* R's rows against the test's own tally; MAXROWS: the table's size. */
static void cg_check(const struct pmaps_phys_result *r, size_t maxrows)
{
	static const uint64_t inodes[] = {0, 100, 200, 300, 400, 500};
	uint64_t want[6][PMAPS_PHYS_COUNT], tot[6], other = 0, sum = 0;
	size_t rows = 0;

	memset(want, 0, sizeof(want));
	memset(tot, 0, sizeof(tot));
	for (size_t i = 0; i < CG_FRAMES; i++) {
		uint64_t ino = cg_inode(i);
		size_t k = (size_t)(ino / 100);
		if (k >= maxrows) { /* 400 and 500 are first seen after 0-300 */
			other++;
			continue;
		}
		want[k][cg_kinds[(i / 3) % 4].state]++;
		tot[k]++;
	}
	assert_int_equal(r->cgroups_known, 1);
	for (size_t k = 0; k < 6; k++)
		rows += tot[k] != 0;
	if (r->ncgroups != rows)
		print_error("%zu cgroup rows, want %zu\n", r->ncgroups, rows);
	assert_int_equal(r->ncgroups, rows);
	if (r->cgroups_other != other)
		print_error("other: %llu, want %llu\n", (unsigned long long)r->cgroups_other,
		            (unsigned long long)other);
	assert_int_equal(r->cgroups_other, other);
	for (size_t j = 0; j < r->ncgroups; j++) {
		const struct pmaps_phys_cgroup *c = &r->cgroups[j];
		size_t k = (size_t)(c->inode / 100);
		uint64_t ssum = 0;
		assert_true(c->inode % 100 == 0 && k < 6);
		assert_int_equal(c->inode, inodes[k]);
		if (c->pages != tot[k])
			print_error("inode %llu: %llu pages, want %llu\n", (unsigned long long)c->inode,
			            (unsigned long long)c->pages, (unsigned long long)tot[k]);
		assert_int_equal(c->pages, tot[k]);
		for (unsigned st = 0; st < PMAPS_PHYS_MAX; st++) {
			uint64_t w = st < PMAPS_PHYS_COUNT ? want[k][st] : 0;
			if (c->state[st] != w)
				print_error("inode %llu state %u: %llu, want %llu\n",
				            (unsigned long long)c->inode, st,
				            (unsigned long long)c->state[st], (unsigned long long)w);
			assert_int_equal(c->state[st], w);
			ssum += c->state[st];
		}
		assert_int_equal(ssum, c->pages);
		/* Largest first, ties by the smaller inode. */
		if (j)
			assert_true(r->cgroups[j - 1].pages > c->pages ||
			            (r->cgroups[j - 1].pages == c->pages &&
			             r->cgroups[j - 1].inode < c->inode));
		sum += c->pages;
	}
	assert_int_equal(sum + r->cgroups_other, CG_FRAMES);
	assert_int_equal(r->pages, CG_FRAMES);
}

static void test_phys_cgroups(void **state)
{
	struct pmaps_phys *p;
	const struct pmaps_phys_result *r;
	static const unsigned thr[] = {0, 3};
	unsigned long a0;
	int fds;

	(void)state;
	cg_tree(CG_FRAMES);
	fds = count_fds();
	for (size_t t = 0; t < 2; t++) {
		threads = thr[t];
		/* The default table: every inode has its row. */
		pmaps__phys_cgroups_hook = 0;
		open_tree(&p, PMAPS_PHYS_CGROUP, 0, 4096); /* 6 chunks of 512 frames */
		assert_int_equal(pmaps_phys_read(p, &r), 0);
		cg_check(r, 6);
		assert_int_equal(r->ncgroups, 6);
		/* Sorted: 100 has the most, then 300 (its late share), by the tally. */
		assert_int_equal(r->cgroups[0].inode, 100);
		pmaps_phys_close(p);
		/* A table of 4 rows: 400 and 500 go to "other", again on a second reading. */
		pmaps__phys_cgroups_hook = 4;
		pmaps_set_allocator(count_alloc, count_free, NULL);
		open_tree(&p, PMAPS_PHYS_CGROUP | PMAPS_PHYS_MAPCOUNT, 0, 4096);
		a0 = allocs;
		for (int i = 0; i < 3; i++) {
			assert_int_equal(pmaps_phys_read(p, &r), 0);
			cg_check(r, 4);
			assert_int_equal(r->ncgroups, 4);
		}
		assert_int_equal(allocs, a0); /* no allocation per reading */
		pmaps_phys_close(p);
		pmaps_set_allocator(NULL, NULL, NULL);
		pmaps__phys_cgroups_hook = 0;
		assert_int_equal(count_fds(), fds);
	}
	threads = 0;
}

/*
 * A boot that defers struct page initialisation (deferred_init=lazy: "5361468
 * pages left to deferred_grow_zone()"), by hand, in 4 KiB frames and 128 MiB
 * sections of SEC = 32768 frames. RAM [0, 3 SEC) and [3 SEC + 512, 6 SEC),
 * a hole between:
 *   [0, 1000)              free (buddy)
 *   [1000, 1100)           anonymous, mapped once
 *   [1100, SEC - 200)      free
 *   [SEC - 200, SEC)       flagless: before a section boundary, KERNEL
 *   [SEC, 3 SEC)           flagless to the end of the RAM range: UNINIT
 *   [3 SEC, 3 SEC + 512)   the hole
 *   [3 SEC + 512, 4 SEC)   free
 *   [4 SEC, 5 SEC + 7)     flagless, but frame 5 SEC + 7 is charged to
 *                          cgroup inode 5: KERNEL up to and with it
 *   (5 SEC + 7, 6 SEC)     flagless from no boundary: KERNEL
 * meminfo's MemFree: the free frames plus 31/32 of the UNINIT ones (the
 * early allocations inside the range are not free).
 */
#define SEC 32768u
#define UFRAMES (6u * SEC)

static void uninit_tree(uint64_t memfree_pages)
{
	static uint64_t f[UFRAMES], c[UFRAMES], g[UFRAMES];
	char mi[128];
	int n;

	memset(f, 0, sizeof(f));
	memset(c, 0, sizeof(c));
	memset(g, 0, sizeof(g));
	for (uint64_t i = 0; i < SEC - 200; i++)
		f[i] = BUDDY;
	for (uint64_t i = 1000; i < 1100; i++) {
		f[i] = ANON | SWAPBACKED | LRU | MMAP;
		c[i] = 1;
	}
	for (uint64_t i = 3 * SEC + 512; i < 4 * SEC; i++)
		f[i] = BUDDY;
	g[5 * SEC + 7] = 5;
	write_file("kpageflags", f, sizeof(f));
	write_file("kpagecount", c, sizeof(c));
	write_file("kpagecgroup", g, sizeof(g));
	static const char io[] = "00000000-17ffffff : System RAM\n"
	                         "18000000-181fffff : PCI Bus 0000:00\n"
	                         "18200000-2fffffff : System RAM\n";
	write_file("iomem", io, sizeof(io) - 1);
	if (memfree_pages == UINT64_MAX) {
		remove_file("meminfo");
		return;
	}
	n = snprintf(mi, sizeof(mi), "MemTotal:       %llu kB\nMemFree:        %llu kB\n",
	             (unsigned long long)UFRAMES * 4, (unsigned long long)memfree_pages * 4);
	write_file("meminfo", mi, (size_t)n);
}

static void test_phys_uninit(void **state)
{
	const uint64_t free_frames = (SEC - 200 - 100) + (SEC - 512);
	const uint64_t uninit = 2 * SEC;
	const uint64_t kernel = 200 + (2 * SEC); /* [SEC-200, SEC) and [4 SEC, 6 SEC) */
	/* What MemFree is in each case, and what the frames must then be. */
	static const struct {
		const char *what;
		uint64_t memfree; /* UINT64_MAX: no meminfo */
		uint32_t states;
		int confirmed;
	} cases[] = {
		{"deferred boot", 0, PMAPS_PHYS_COUNT, 1},
		{"initialised kernel (per-CPU lists only)", 1, PMAPS_PHYS_COUNT, 0},
		{"no meminfo", UINT64_MAX, PMAPS_PHYS_COUNT, 0},
		{"a caller from before 0.4.0", 0, 0, 0},
		{"opts from before 0.4.0 (shorter)", 0, PMAPS_PHYS_COUNT, 0},
	};
	const int pg = 4096;

	(void)state;
	if (sysconf(_SC_PAGESIZE) != pg)
		skip(); /* the iomem above is in 4 KiB frames */
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct pmaps_phys_opts o = {sizeof(o), PMAPS_PHYS_MAPCOUNT | PMAPS_PHYS_CGROUP, 0, 0, 0,
		                            NULL, cases[k].states};
		int short_opts = k == 4;
		struct pmaps_phys *p;
		const struct pmaps_phys_result *r;
		uint64_t mf = cases[k].memfree == 0   ? free_frames + uninit / 32 * 31
		              : cases[k].memfree == 1 ? free_frames + 700
		                                      : UINT64_MAX;
		uint64_t want_u = cases[k].confirmed ? uninit : 0;
		uint64_t want_k = kernel + uninit - want_u;
		unsigned ns = cases[k].states && !short_opts ? PMAPS_PHYS_COUNT : PMAPS_PHYS_COUNT_0_3;
		const struct pmaps_phys_cgroup *none = NULL;
		char msg[256] = "";

		uninit_tree(mf);
		if (short_opts) /* the size of 0.3.0's opts: STATES is not read */
			o.size = (uint32_t)offsetof(struct pmaps_phys_opts, states);
		if (pmaps_phys_open(&p, dir, &o, msg, sizeof(msg)) != 0)
			fail_msg("%s: open: %s", cases[k].what, msg);
		assert_int_equal(pmaps_phys_read(p, &r), 0);
		if (r->state[S(UNINIT)] != want_u || r->state[S(KERNEL)] != want_k)
			fail_msg("%s: uninit %llu, kernel %llu; want %llu, %llu", cases[k].what,
			         (unsigned long long)r->state[S(UNINIT)],
			         (unsigned long long)r->state[S(KERNEL)], (unsigned long long)want_u,
			         (unsigned long long)want_k);
		assert_int_equal(r->state[S(FREE)], free_frames);
		assert_int_equal(r->state[S(ANON)], 100);
		assert_int_equal(r->state[S(HOLE)], 512);
		assert_int_equal(r->states, ns);
		assert_int_equal(r->meminfo_known, mf != UINT64_MAX);
		if (mf != UINT64_MAX)
			assert_int_equal(r->meminfo_free, mf);
		/* Blocks of 512 frames: [SEC, 3 SEC) is 128 blocks of UNINIT (or KERNEL). */
		for (uint64_t b = 0; b < r->blocks; b++) {
			uint64_t sum = 0, lo = b * 512;
			/* The block before SEC: 312 free against 200 flagless. */
			unsigned want = lo < SEC             ? S(FREE)
			                : lo < 3 * SEC       ? (want_u ? S(UNINIT) : S(KERNEL))
			                : lo < 3 * SEC + 512 ? S(HOLE)
			                : lo < 4 * SEC       ? S(FREE)
			                                     : S(KERNEL);
			for (unsigned st = 0; st < ns; st++)
				sum += r->block_state[b * ns + st];
			if (sum != 512 || r->block[b] != want)
				fail_msg("%s: block %llu: %s with %llu frames; want %s with 512",
				         cases[k].what, (unsigned long long)b,
				         pmaps_phys_state_key(r->block[b]), (unsigned long long)sum,
				         pmaps_phys_state_key(want));
		}
		/* The frames of no cgroup: all but the one charged to inode 5. */
		for (size_t i = 0; i < r->ncgroups; i++)
			if (r->cgroups[i].inode == 0)
				none = &r->cgroups[i];
		assert_non_null(none);
		assert_int_equal(none->pages, UFRAMES - 1);
		assert_int_equal(none->state[S(UNINIT)], want_u);
		assert_int_equal(none->state[S(KERNEL)], want_k - 1);
		pmaps_phys_close(p);
	}
}

/* Without kpagecgroup: cgroups unknown, not an error; a short one: -EIO. */
static void test_phys_cgroups_missing(void **state)
{
	struct pmaps_phys *p;
	const struct pmaps_phys_result *r;

	(void)state;
	cg_tree(0);
	open_tree(&p, PMAPS_PHYS_CGROUP, 0, 4096);
	assert_int_equal(pmaps_phys_read(p, &r), 0);
	assert_int_equal(r->cgroups_known, 0);
	assert_int_equal(r->ncgroups, 0);
	assert_null(r->cgroups);
	assert_int_equal(r->pages, CG_FRAMES);
	pmaps_phys_close(p);
	/* Not asked for: unknown too, with the file there. */
	cg_tree(CG_FRAMES);
	open_tree(&p, 0, 0, 4096);
	assert_int_equal(pmaps_phys_read(p, &r), 0);
	assert_int_equal(r->cgroups_known, 0);
	pmaps_phys_close(p);
	for (unsigned t = 0; t < 2; t++) {
		threads = t ? 3 : 0;
		cg_tree(1000); /* kpagecgroup ends inside the second chunk */
		open_tree(&p, PMAPS_PHYS_CGROUP, 0, 4096);
		assert_int_equal(pmaps_phys_read(p, &r), -EIO);
		assert_null(r);
		if (strstr(pmaps_phys_errmsg(p), "kpagecgroup: 3904 bytes at byte 4096") == NULL)
			fail_msg("message: %s", pmaps_phys_errmsg(p));
		pmaps_phys_close(p);
	}
	threads = 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_phys_fixture, setup, teardown),
		cmocka_unit_test_setup_teardown(test_phys_no_iomem_no_count, setup, teardown),
		cmocka_unit_test_setup_teardown(test_phys_carry, setup, teardown),
		cmocka_unit_test_setup_teardown(test_phys_allocations, setup, teardown),
		cmocka_unit_test_setup_teardown(test_phys_faults, setup, teardown),
		cmocka_unit_test_setup_teardown(test_phys_bad, setup, teardown),
		cmocka_unit_test_setup_teardown(test_phys_threads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_phys_threads_many, setup, teardown),
		cmocka_unit_test_setup_teardown(test_phys_iomem_kinds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_phys_count_short, setup, teardown),
		cmocka_unit_test_setup_teardown(test_phys_cancel, setup, teardown),
		cmocka_unit_test_setup_teardown(test_phys_cells, setup, teardown),
		cmocka_unit_test_setup_teardown(test_phys_block_bounds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_phys_cgroups, setup, teardown),
		cmocka_unit_test_setup_teardown(test_phys_cgroups_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_phys_uninit, setup, teardown),
		cmocka_unit_test(test_phys_live),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
