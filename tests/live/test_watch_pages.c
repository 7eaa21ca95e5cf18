/* SPDX-License-Identifier: MIT */
/*
 * test_watch_pages.c - pmaps watch --pages' page-level diff (src/watch_pages.c)
 * against wpages_target, whose layout (wpages_layout.h) and steps are known
 * page by page: the exact ranges that became present or went away, their
 * mappings, the byte counts; the present total against the kernel's own Rss
 * (the target's smaps_rollup, read here as text); a run across two touching
 * mappings; a mapping replaced at the same address; no allocation per
 * sample once warm, counted at malloc itself; the run cap; the walk's time
 * without the callback's; a target that dies is -ESRCH, one that execs
 * -ESTALE.
 *
 * Allocations: this program is linked with -Wl,--wrap for malloc, calloc,
 * realloc, reallocarray, posix_memalign, aligned_alloc, strdup and strndup
 * (tests/CMakeLists.txt), so every such call made by code linked into it
 * (the diff, the static library, this file) goes through a counter here,
 * under ASan too (the real functions are then ASan's). Calls inside shared
 * libraries (the C library's own, cmocka's) are not counted, and none of
 * them runs in a sample.
 */
#include <errno.h>
#include <fcntl.h>
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
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "../expect.h"
#include "pmaps.h"
#include "watch/watch.h"
#include "wpages_layout.h"

/* Heap calls by code linked into this program (the file's comment). */
static unsigned long heap_calls;

void *__real_malloc(size_t n);
void *__real_calloc(size_t k, size_t n);
void *__real_realloc(void *p, size_t n);
void *__real_reallocarray(void *p, size_t k, size_t n);
int __real_posix_memalign(void **p, size_t align, size_t n);
void *__real_aligned_alloc(size_t align, size_t n);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t k, size_t n);
void *__wrap_realloc(void *p, size_t n);
void *__wrap_reallocarray(void *p, size_t k, size_t n);
int __wrap_posix_memalign(void **p, size_t align, size_t n);
void *__wrap_aligned_alloc(size_t align, size_t n);
char *__wrap_strdup(const char *s);
char *__wrap_strndup(const char *s, size_t n);

void *__wrap_malloc(size_t n)
{
	heap_calls++;
	return __real_malloc(n);
}

void *__wrap_calloc(size_t k, size_t n)
{
	heap_calls++;
	return __real_calloc(k, n);
}

void *__wrap_realloc(void *p, size_t n)
{
	heap_calls++;
	return __real_realloc(p, n);
}

void *__wrap_reallocarray(void *p, size_t k, size_t n)
{
	heap_calls++;
	return __real_reallocarray(p, k, n);
}

int __wrap_posix_memalign(void **p, size_t align, size_t n)
{
	heap_calls++;
	return __real_posix_memalign(p, align, n);
}

void *__wrap_aligned_alloc(size_t align, size_t n)
{
	heap_calls++;
	return __real_aligned_alloc(align, n);
}

char *__wrap_strdup(const char *s)
{
	heap_calls++;
	return __real_strdup(s);
}

char *__wrap_strndup(const char *s, size_t n)
{
	heap_calls++;
	return __real_strndup(s, n);
}

static pid_t target;
static int ready_rd = -1, cmd_wr = -1;
static uint64_t base;
static uint64_t page;
static char dir[64]; /* the target's files */

static void hello(void);

static void start_target(void)
{
	int rp[2], cp[2];

	snprintf(dir, sizeof(dir), "/tmp/test_watch_pages.XXXXXX");
	assert_non_null(mkdtemp(dir));
	assert_int_equal(pipe2(rp, O_CLOEXEC), 0);
	assert_int_equal(pipe2(cp, O_CLOEXEC), 0);
	target = fork();
	assert_true(target >= 0);
	if (target == 0) {
		char a[16], b[16];
		fcntl(rp[1], F_SETFD, 0);
		fcntl(cp[0], F_SETFD, 0);
		snprintf(a, sizeof(a), "%d", rp[1]);
		snprintf(b, sizeof(b), "%d", cp[0]);
		execl(PMAPS_WPAGES_TARGET, "wpages_target", a, b, dir, (char *)NULL);
		_exit(127);
	}
	close(rp[1]);
	close(cp[0]);
	ready_rd = rp[0];
	cmd_wr = cp[1];
	hello();
}

/* Reads the target's "BASE PAGESIZE\n" into base and page. */
static void hello(void)
{
	char line[128];
	ssize_t n;
	size_t len = 0;

	while (len < sizeof(line) - 1 && (n = read(ready_rd, line + len, 1)) == 1 &&
	       line[len] != '\n')
		len++;
	line[len] = '\0';
	{
		unsigned long long b = 0;
		long p = 0;
		if (sscanf(line, "%llx %ld", &b, &p) != 2)
			fail_msg("wpages_target said \"%s\", want \"BASE PAGESIZE\"", line);
		base = b;
		page = (uint64_t)p;
	}
	assert_int_equal(page, (uint64_t)sysconf(_SC_PAGESIZE));
}

static void command(char c)
{
	char r = 0;

	assert_int_equal(write(cmd_wr, &c, 1), 1);
	assert_int_equal(read(ready_rd, &r, 1), 1);
	if (r != 'k')
		fail_msg("wpages_target command '%c' answered '%c', want 'k'", c, r);
}

static void stop_target(void)
{
	int st;

	if (cmd_wr >= 0)
		close(cmd_wr);
	if (ready_rd >= 0)
		close(ready_rd);
	cmd_wr = ready_rd = -1;
	if (target > 0) {
		kill(target, SIGKILL);
		waitpid(target, &st, 0);
	}
	target = 0;
	if (dir[0]) {
		char cmd[128];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			print_error("could not remove %s\n", dir);
		dir[0] = '\0';
	}
}

static int teardown(void **state)
{
	(void)state;
	stop_target();
	return 0;
}

/* The target's Rss in bytes, from its smaps_rollup, parsed here. */
static uint64_t rollup_rss(void)
{
	char path[64], buf[4096];
	unsigned long long kb = 0;
	ssize_t n;
	int fd;
	char *p;

	snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", (int)target);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	expect_sys(fd);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	expect_sys(n);
	buf[n] = '\0';
	p = strstr(buf, "\nRss:");
	if (!p || sscanf(p + 5, "%llu", &kb) != 1)
		fail_msg("no Rss: line in %s", path);
	return (uint64_t)kb * 1024;
}

/* The name maps gives the mapping starting at START (the empty name when none is given). */
static void maps_name(uint64_t start, char *name, size_t size)
{
	char path[64];
	char line[512];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)target);
	f = fopen(path, "re");
	assert_non_null(f);
	name[0] = '\0';
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s;
		int off = 0;
		if (sscanf(line, "%llx-%*x %*s %*s %*s %*s %n", &s, &off) < 1 || s != start)
			continue;
		snprintf(name, size, "%s", line + off);
		name[strcspn(name, "\n")] = '\0';
		break;
	}
	fclose(f);
}

/* NAME is DIR/FILE. */
static void expect_name(const char *name, const char *file)
{
	char want[128];

	snprintf(want, sizeof(want), "%s/%s", dir, file);
	assert_string_equal(name, want);
}

struct got {
	uint64_t start, end, map_start, map_end;
	int sign;
	char name[64];
	size_t name_len;
};

static struct got got[256];
static size_t ngot, nover;

static void collect(void *ctx, const struct wpages_change *c)
{
	(void)ctx;
	if (ngot == sizeof(got) / sizeof(got[0])) {
		nover++;
		return;
	}
	got[ngot].start = c->start;
	got[ngot].end = c->end;
	got[ngot].sign = c->sign;
	got[ngot].map_start = c->map_start;
	got[ngot].map_end = c->map_end;
	got[ngot].name_len = c->name_len;
	snprintf(got[ngot].name, sizeof(got[ngot].name), "%.*s", (int)c->name_len, c->name);
	ngot++;
}

static void print_got(void)
{
	for (size_t i = 0; i < ngot; i++)
		print_error("  change %zu: %c pages [%+lld, %+lld) of mapping [%+lld, %+lld) \"%s\"\n", i,
		            got[i].sign > 0 ? '+' : '-', (long long)(got[i].start - base) / (long long)page,
		            (long long)(got[i].end - base) / (long long)page,
		            (long long)(got[i].map_start - base) / (long long)page,
		            (long long)(got[i].map_end - base) / (long long)page, got[i].name);
}

/* Change I is SIGN pages [FROM, TO) of the mapping at [MFROM, MTO) named NAME (pages from base). */
static void expect_change(size_t i, int sign, uint64_t from, uint64_t to, uint64_t mfrom,
                          uint64_t mto, const char *name)
{
	if (i >= ngot || got[i].sign != sign || got[i].start != base + from * page ||
	    got[i].end != base + to * page || got[i].map_start != base + mfrom * page ||
	    got[i].map_end != base + mto * page || strcmp(got[i].name, name) != 0 ||
	    got[i].name_len != strlen(name)) {
		print_error("want change %zu: %c pages [%+lld, %+lld) of mapping [%+lld, %+lld) \"%s\"; "
		            "got %zu changes:\n",
		            i, sign > 0 ? '+' : '-', (long long)from, (long long)to, (long long)mfrom,
		            (long long)mto, name, ngot);
		print_got();
		fail();
	}
}

static void sample(struct wpages *wp, struct wpages_stats *st)
{
	char msg[256];
	int err;

	ngot = nover = 0;
	err = wpages_sample(wp, collect, NULL, st, msg, sizeof(msg));
	if (err != 0)
		fail_msg("wpages_sample: %d (%s): %s", err, strerror(-err), msg);
	assert_int_equal(nover, 0);
	assert_int_equal(st->ranges, ngot);
}

/*
 * Whether a cursor with STRATEGY on PROC tells the zero page (pagemap before
 * 6.7 and not root cannot). Where it cannot, a zero-page mapping of the
 * target (a libc .bss page read before it was written) reads as present
 * while smaps leaves it out of Rss, so present == Rss does not hold there:
 * the diff's own figures still do.
 */
static int zero_known(struct pmaps_proc *proc, enum pmaps_pages_strategy strategy)
{
	struct pmaps_pages *pg = NULL;
	const struct pmaps_page_range *r;
	unsigned known;
	int err;

	err = pmaps_pages_open(&pg, proc, strategy, 0);
	if (err < 0)
		fail_msg("pmaps_pages_open: %d", err);
	/* Over the layout: known may lose ZERO at the first present page. */
	assert_int_equal(pmaps_pages_seek(pg, base, base + RES_PAGES * page), 0);
	while ((err = pmaps_pages_next(pg, &r)) > 0)
		;
	assert_int_equal(err, 0);
	known = pmaps_pages_known(pg);
	pmaps_pages_close(pg);
	if (!(known & PMAPS_PG_ZERO))
		print_message("note: this reader cannot tell the zero page: present == Rss not checked\n");
	return (known & PMAPS_PG_ZERO) != 0;
}

/* Present equals the target's Rss, where the reader tells the zero page. */
static void expect_rss(int zk, uint64_t present)
{
	uint64_t rss = rollup_rss();

	if (zk && present != rss)
		fail_msg("present %llu bytes, smaps_rollup's Rss %llu", (unsigned long long)present,
		         (unsigned long long)rss);
}

static size_t counted;

/* Counts the changes, each a single page that came: E's on 'e'. */
static void count_pages(void *ctx, const struct wpages_change *c)
{
	(void)ctx;
	if (c->sign > 0 && c->end - c->start == page && c->start >= base + E_OFF * page &&
	    c->end <= base + (E_OFF + E_PAGES) * page)
		counted++;
}

static void step_test(enum pmaps_pages_strategy strategy)
{
	int zk;
	struct pmaps_proc *proc = NULL;
	struct wpages *wp = NULL;
	struct wpages_stats st;
	char pid[16], msg[256], na[64], nb[64], nc[64], nd[64];
	uint64_t rss;

	start_target();
	snprintf(pid, sizeof(pid), "%d", (int)target);
	assert_int_equal(pmaps_proc_open(&proc, NULL, pid), 0);
	if (wpages_open_strategy(&wp, proc, strategy, msg, sizeof(msg)) != 0)
		fail_msg("wpages_open: %s", msg);
	zk = zero_known(proc, strategy);

	/* The first walk records only. */
	sample(wp, &st);
	rss = st.present;
	assert_int_equal(ngot, 0);
	assert_int_equal(st.added, 0);
	assert_int_equal(st.removed, 0);
	expect_rss(zk, st.present);
	maps_name(base + A_OFF * page, na, sizeof(na));
	maps_name(base + B_OFF * page, nb, sizeof(nb));
	maps_name(base + D_OFF * page, nd, sizeof(nd));
	/* The names maps gives are the target's files. */
	expect_name(na, "wp-a");
	expect_name(nb, "wp-b");
	expect_name(nd, "wp-d");

	command('s');
	sample(wp, &st);
	maps_name(base + C_OFF * page, nc, sizeof(nc));
	expect_name(nc, "wp-c");
	/*
	 * Exactly these 5: the target's own pages are locked against reclaim
	 * (wpages_target.c) and the layout's touched pages are anonymous.
	 */
	if (ngot != 5) {
		print_error("want 5 changes, got %zu:\n", ngot);
		print_got();
		fail();
	}
	/* A: 16 pages touched, 4 of them dropped again: two ranges came. */
	expect_change(0, +1, A_OFF + 8, A_OFF + 12, A_OFF, A_OFF + A_PAGES, na);
	expect_change(1, +1, A_OFF + 16, A_OFF + 24, A_OFF, A_OFF + A_PAGES, na);
	/* B unmapped: its pages went, with the mapping the walk before saw there. */
	expect_change(2, -1, B_OFF, B_OFF + B_PAGES, B_OFF, B_OFF + B_PAGES, nb);
	/* C mapped and 5 pages touched. */
	expect_change(3, +1, C_OFF, C_OFF + 5, C_OFF, C_OFF + C_PAGES, nc);
	/* D: 4 pages dropped, the mapping still there. */
	expect_change(4, -1, D_OFF + 2, D_OFF + 6, D_OFF, D_OFF + D_PAGES, nd);
	assert_int_equal(st.added, (4 + 8 + 5) * page);
	assert_int_equal(st.removed, (B_PAGES + 4) * page);
	expect_rss(zk, st.present);
	assert_int_equal(st.present, rss + (4 + 8 + 5) * page - (B_PAGES + 4) * page);
	expect_gt(st.walk_ns, 0);

	/* Nothing moved: nothing to say. */
	sample(wp, &st);
	assert_int_equal(ngot, 0);
	assert_int_equal(st.added, 0);
	assert_int_equal(st.removed, 0);
	expect_rss(zk, st.present);

	wpages_close(wp);
	pmaps_proc_close(proc);
}

static void test_step(void **state)
{
	(void)state;
	step_test(PMAPS_PAGES_AUTO);
}

/* The same through pagemap's entries, the reader of kernels before 6.7: no mappings joined. */
static void test_step_pagemap(void **state)
{
	(void)state;
	step_test(PMAPS_PAGES_PAGEMAP);
}

/* Opens the diff on the target. */
static struct wpages *open_wp(struct pmaps_proc **proc, enum pmaps_pages_strategy strategy)
{
	struct wpages *wp = NULL;
	char pid[16], msg[256];

	snprintf(pid, sizeof(pid), "%d", (int)target);
	assert_int_equal(pmaps_proc_open(proc, NULL, pid), 0);
	if (wpages_open_strategy(&wp, *proc, strategy, msg, sizeof(msg)) != 0)
		fail_msg("wpages_open: %s", msg);
	return wp;
}

/*
 * Once warm, a sample allocates nothing: no call to malloc and its kin from
 * the diff or the library (counted at the calls themselves), and no growth.
 */
static void test_no_alloc(void **state)
{
	struct pmaps_proc *proc = NULL;
	struct wpages *wp;
	struct wpages_stats st;
	unsigned long calls0;
	uint64_t grows0;

	(void)state;
	start_target();
	wp = open_wp(&proc, PMAPS_PAGES_AUTO);
	sample(wp, &st);
	command('c');
	sample(wp, &st);
	command('d');
	sample(wp, &st);
	calls0 = heap_calls;
	grows0 = wpages_grows(wp);
	expect_gt(grows0, 0); /* the first walk's arrays, counted */
	expect_gt(calls0, 0); /* the counter sees the opening's allocations */
	for (int round = 0; round < 50; round++) {
		command('c');
		sample(wp, &st);
		if (ngot != 1)
			print_got();
		assert_int_equal(ngot, 1);
		expect_change(0, +1, A_OFF + 40, A_OFF + 48, A_OFF, A_OFF + A_PAGES, got[0].name);
		command('d');
		sample(wp, &st);
		assert_int_equal(ngot, 1);
		expect_change(0, -1, A_OFF + 40, A_OFF + 48, A_OFF, A_OFF + A_PAGES, got[0].name);
		assert_int_equal(st.removed, 8 * page);
		if (heap_calls != calls0 || wpages_grows(wp) != grows0)
			fail_msg("round %d: %lu heap calls and %llu growths since warm, want 0", round,
			         heap_calls - calls0, (unsigned long long)(wpages_grows(wp) - grows0));
	}
	wpages_close(wp);
	pmaps_proc_close(proc);
}

/*
 * The two sets grow together: after the walk that first needed E_PAGES / 2
 * more runs, a walk with as many (into the other set) grows nothing.
 */
static void test_grow_together(void **state)
{
	struct pmaps_proc *proc = NULL;
	struct wpages *wp;
	struct wpages_stats st;
	unsigned long calls0;
	uint64_t g;

	(void)state;
	start_target();
	wp = open_wp(&proc, PMAPS_PAGES_AUTO);
	sample(wp, &st);
	command('e');
	g = wpages_grows(wp);
	counted = 0;
	assert_int_equal(wpages_sample(wp, count_pages, NULL, &st, NULL, 0), 0);
	if (wpages_grows(wp) == g)
		fail_msg("%d more runs grew nothing: the test shows nothing", E_PAGES / 2);
	assert_int_equal(counted, E_PAGES / 2);
	assert_int_equal(st.ranges, E_PAGES / 2);
	assert_int_equal(st.added, (uint64_t)E_PAGES / 2 * page);
	g = wpages_grows(wp);
	calls0 = heap_calls;
	for (int round = 0; round < 3; round++) {
		sample(wp, &st);
		assert_int_equal(ngot, 0);
		if (wpages_grows(wp) != g || heap_calls != calls0)
			fail_msg("sample %d with the same %d runs: %llu growths, %lu heap calls, want 0",
			         round + 3, E_PAGES / 2, (unsigned long long)(wpages_grows(wp) - g),
			         heap_calls - calls0);
	}
	wpages_close(wp);
	pmaps_proc_close(proc);
}

/*
 * More separate present ranges than the cap is -E2BIG with a message, and
 * the diff goes on from the last walk that succeeded.
 */
static void test_run_cap(void **state)
{
	struct pmaps_proc *proc = NULL;
	struct wpages *wp;
	struct wpages_stats st;
	char msg[256], want[64];
	int err;

	(void)state;
	start_target();
	wp = open_wp(&proc, PMAPS_PAGES_AUTO);
	wpages_set_max_runs(wp, 1000);
	sample(wp, &st); /* the target's own runs: fewer than 1000 */
	command('e');
	msg[0] = '\0';
	ngot = 0;
	err = wpages_sample(wp, collect, NULL, &st, msg, sizeof(msg));
	if (err != -E2BIG)
		fail_msg("%d runs over a cap of 1000: wpages_sample %d (%s), want -E2BIG: %s",
		         E_PAGES / 2, err, strerror(-err), msg);
	snprintf(want, sizeof(want), "more than %d separate present ranges", 1000);
	if (!strstr(msg, want))
		fail_msg("message \"%s\" does not say \"%s\"", msg, want);
	assert_int_equal(ngot, 0);
	command('E');
	sample(wp, &st);
	if (ngot != 0)
		print_got();
	assert_int_equal(ngot, 0);
	/* Under the cap again, with a change: seen against the last good walk. */
	command('c');
	sample(wp, &st);
	assert_int_equal(ngot, 1);
	expect_change(0, +1, A_OFF + 40, A_OFF + 48, A_OFF, A_OFF + A_PAGES, got[0].name);
	wpages_close(wp);
	pmaps_proc_close(proc);
}

/* Sleeps SLEEP_NS in each callback: time that is not the walk's. */
#define SLEEP_NS 20000000ull

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void slow(void *ctx, const struct wpages_change *c)
{
	struct timespec ts = {0, (long)SLEEP_NS};

	collect(ctx, c);
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* walk_ns is the walk's: the callbacks' time is not in it. */
static void test_walk_ns(void **state)
{
	struct pmaps_proc *proc = NULL;
	struct wpages *wp;
	struct wpages_stats st;
	char msg[256];
	uint64_t t0, total;
	int err;

	(void)state;
	start_target();
	wp = open_wp(&proc, PMAPS_PAGES_AUTO);
	sample(wp, &st);
	command('c');
	ngot = 0;
	t0 = mono_ns();
	err = wpages_sample(wp, slow, NULL, &st, msg, sizeof(msg));
	total = mono_ns() - t0;
	if (err != 0)
		fail_msg("wpages_sample: %d: %s", err, msg);
	assert_int_equal(ngot, 1);
	expect_gt(st.walk_ns, 0);
	if (st.walk_ns > total - SLEEP_NS)
		fail_msg("walk_ns %llu, the call took %llu with %llu in the callback: the walk's time "
		         "counts the callback's",
		         (unsigned long long)st.walk_ns, (unsigned long long)total, SLEEP_NS);
	wpages_close(wp);
	pmaps_proc_close(proc);
}

/*
 * A run of present pages across two touching mappings is two changes, one
 * in each; then the first mapping is replaced by anonymous memory at the
 * same address: its pages went with it (-1, the old file mapping), the new
 * mapping's page came (+1), though page 3 was present in both walks.
 */
static void adjacent_test(enum pmaps_pages_strategy strategy)
{
	struct pmaps_proc *proc = NULL;
	struct wpages *wp;
	struct wpages_stats st;
	char nx[64], ny[64];

	start_target();
	wp = open_wp(&proc, strategy);
	sample(wp, &st);
	maps_name(base + X_OFF * page, nx, sizeof(nx));
	maps_name(base + Y_OFF * page, ny, sizeof(ny));
	expect_name(nx, "wp-x");
	expect_name(ny, "wp-y");

	command('x');
	sample(wp, &st);
	if (ngot != 2) {
		print_error("touching X[2, 4) and Y[0, 2): want 2 changes, got %zu:\n", ngot);
		print_got();
		fail();
	}
	expect_change(0, +1, X_OFF + 2, X_OFF + 4, X_OFF, X_OFF + X_PAGES, nx);
	expect_change(1, +1, Y_OFF, Y_OFF + 2, Y_OFF, Y_OFF + Y_PAGES, ny);
	assert_int_equal(st.added, 4 * page);

	command('r');
	sample(wp, &st);
	if (ngot != 2) {
		print_error("X replaced, its page 3 touched: want 2 changes, got %zu:\n", ngot);
		print_got();
		fail();
	}
	expect_change(0, -1, X_OFF + 2, X_OFF + 4, X_OFF, X_OFF + X_PAGES, nx);
	expect_change(1, +1, X_OFF + 3, X_OFF + 4, X_OFF, X_OFF + X_PAGES, "");
	assert_int_equal(st.added, 1 * page);
	assert_int_equal(st.removed, 2 * page);

	sample(wp, &st);
	assert_int_equal(ngot, 0);
	wpages_close(wp);
	pmaps_proc_close(proc);
}

static void test_adjacent(void **state)
{
	(void)state;
	adjacent_test(PMAPS_PAGES_AUTO);
}

static void test_adjacent_pagemap(void **state)
{
	(void)state;
	adjacent_test(PMAPS_PAGES_PAGEMAP);
}

/* Writes LEN bytes of BUF to DIR/NAME. */
static void put_file(const char *d, const char *name, const void *buf, size_t len)
{
	char path[160];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", d, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	expect_sys(fd);
	if (write(fd, buf, len) != (ssize_t)len)
		fail_msg("write %s failed", path);
	close(fd);
}

/* Pagemap entries for pages [FROM, TO) of 4 KiB: present (bit 63), made-up frames. */
static void pagemap_present(uint64_t *pm, uint64_t from, uint64_t to)
{
	for (uint64_t i = from; i < to; i++)
		pm[i] = 1ull << 63 | (0x3ff0000000ull + i);
}

/*
 * Hugetlb pages are not in Rss, so not in the present set, though pagemap
 * shows them present. A proc tree made here (no hugetlb page can be had on
 * a test machine: nr_hugepages is 0 and stays so): a 2-page anonymous
 * mapping and a 2 MiB MAP_HUGETLB one ("/anon_hugepage (deleted)", device
 * 0), every page present in pagemap. Pages of 4 KiB (the tree's
 * addresses): skipped where the system's differ.
 */
static void test_hugetlb(void **state)
{
	static uint64_t pm[0x800]; /* pages 0 to 0x7ff: up to 0x800000 */
	static const char maps[] =
		"00400000-00402000 rw-p 00000000 00:00 0 \n"
		"00600000-00800000 rw-p 00000000 00:0f 4242                       "
		"/anon_hugepage (deleted)\n";
	struct pmaps_proc *proc = NULL;
	struct wpages *wp = NULL;
	struct wpages_stats st;
	char root[96], pd[128], msg[256];

	(void)state;
	if (sysconf(_SC_PAGESIZE) != 4096)
		skip();
	snprintf(dir, sizeof(dir), "/tmp/test_watch_pages.XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(root, sizeof(root), "%s/proc", dir);
	snprintf(pd, sizeof(pd), "%s/400", root);
	expect_sys(mkdir(root, 0700));
	expect_sys(mkdir(pd, 0700));
	put_file(pd, "maps", maps, sizeof(maps) - 1);
	memset(pm, 0, sizeof(pm));
	pagemap_present(pm, 0x400, 0x402);
	pagemap_present(pm, 0x600, 0x800);
	put_file(pd, "pagemap", pm, sizeof(pm));
	page = 4096;
	base = 0;

	assert_int_equal(pmaps_proc_open(&proc, root, "400"), 0);
	if (wpages_open_strategy(&wp, proc, PMAPS_PAGES_PAGEMAP, msg, sizeof(msg)) != 0)
		fail_msg("wpages_open: %s", msg);
	sample(wp, &st);
	if (st.present != 2 * 4096)
		fail_msg("present %llu bytes, want %d: the anonymous mapping's 2 pages, not the "
		         "hugetlb mapping's",
		         (unsigned long long)st.present, 2 * 4096);
	/* The hugetlb pages go away, an anonymous page too: only the latter is a change. */
	pm[0x401] = 0;
	memset(pm + 0x600, 0, 0x200 * sizeof(pm[0]));
	put_file(pd, "pagemap", pm, sizeof(pm));
	sample(wp, &st);
	if (ngot != 1)
		print_got();
	assert_int_equal(ngot, 1);
	expect_change(0, -1, 0x401, 0x402, 0x400, 0x402, "");
	assert_int_equal(st.present, 4096);
	wpages_close(wp);
	pmaps_proc_close(proc);
}

/*
 * The diff against a page-by-page model, over random layouts in a proc tree
 * made here (pages of 4 KiB): MODEL_PAGES pages from page MODEL_BASE,
 * mappings of 1 to 8 pages with gaps or touching, each nameless anonymous,
 * [heap], or one of two files at one of two offsets, private or shared;
 * every page of a mapping present or not at random. Each layout is a sample
 * diffed against the one before. The model, page by page: where both walks
 * have a mapping and it is not the same one (another file, inode or offset
 * at that address, another name for anonymous memory, private vs shared),
 * each page present before went (-1, the old mapping) and each page present
 * now came (+1, the new one); else a page present now and not before came
 * (+1, the mapping now), the reverse went (-1, the mapping now, else the
 * one before).
 */
#define MODEL_BASE 0x100
#define MODEL_PAGES 48
#define MODEL_ROUNDS 3000

struct mmap_model {
	int kind; /* 0 nameless anonymous, 1 [heap], 2 a file */
	uint64_t start, end, offset, inode;
	int shared;
};

struct layout_model {
	struct mmap_model maps[MODEL_PAGES];
	int nmaps;
	int at[MODEL_PAGES]; /* the mapping of each page, or -1 */
	int present[MODEL_PAGES];
};

static unsigned model_rand(unsigned *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return (*seed >> 16) & 0x7fff;
}

static void model_gen(struct layout_model *l, unsigned *seed)
{
	int p = (int)(model_rand(seed) % 4);

	l->nmaps = 0;
	for (int q = 0; q < MODEL_PAGES; q++)
		l->at[q] = -1, l->present[q] = 0;
	while (p < MODEL_PAGES) {
		struct mmap_model *m = &l->maps[l->nmaps];
		int len = 1 + (int)(model_rand(seed) % 8);
		if (p + len > MODEL_PAGES)
			len = MODEL_PAGES - p;
		memset(m, 0, sizeof(*m));
		m->kind = (int)(model_rand(seed) % 3);
		m->start = (uint64_t)(MODEL_BASE + p) * 4096;
		m->end = (uint64_t)(MODEL_BASE + p + len) * 4096;
		if (m->kind == 2) {
			m->inode = 1 + model_rand(seed) % 2;
			/* file page p or p + 1 at page p: the same file page as a neighbour's, or not */
			m->offset = (uint64_t)(p + (int)(model_rand(seed) % 2)) * 4096;
			m->shared = model_rand(seed) % 4 == 0;
		}
		for (int q = p; q < p + len; q++) {
			l->at[q] = l->nmaps;
			l->present[q] = model_rand(seed) % 2;
		}
		l->nmaps++;
		p += len + (model_rand(seed) % 3 == 0 ? 0 : (int)(model_rand(seed) % 3));
	}
}

static void model_write(const struct layout_model *l, const char *pd)
{
	static uint64_t pm[MODEL_BASE + MODEL_PAGES];
	char text[MODEL_PAGES * 128];
	size_t len = 0;

	for (int i = 0; i < l->nmaps; i++) {
		const struct mmap_model *m = &l->maps[i];
		len += (size_t)snprintf(text + len, sizeof(text) - len,
		                        "%08llx-%08llx rw-%c %08llx %s %llu %s\n",
		                        (unsigned long long)m->start, (unsigned long long)m->end,
		                        m->shared ? 's' : 'p', (unsigned long long)m->offset,
		                        m->kind == 2 ? "08:01" : "00:00", (unsigned long long)m->inode,
		                        m->kind == 0 ? "" : m->kind == 1 ? "[heap]" : m->inode == 1 ? "/f1" : "/f2");
	}
	put_file(pd, "maps", text, len);
	memset(pm, 0, sizeof(pm));
	for (int q = 0; q < MODEL_PAGES; q++)
		if (l->present[q])
			pagemap_present(pm, MODEL_BASE + (uint64_t)q, MODEL_BASE + (uint64_t)q + 1);
	put_file(pd, "pagemap", pm, sizeof(pm));
}

static int model_same(const struct mmap_model *a, const struct mmap_model *b)
{
	if (a->kind != b->kind)
		return 0;
	if (a->kind != 2)
		return 1; /* anonymous: nameless with nameless, [heap] with [heap] */
	return a->inode == b->inode && a->shared == b->shared &&
	       a->offset - a->start == b->offset - b->start;
}

static const char *model_name(const struct mmap_model *m)
{
	return m->kind == 0 ? "" : m->kind == 1 ? "[heap]" : m->inode == 1 ? "/f1" : "/f2";
}

static void model_fail(int round, const char *what, int q)
{
	print_error("round %d: %s at page %d; got %zu changes:\n", round, what, q, ngot);
	print_got();
	fail();
}

/* Page Q of the model has change SIGN with mapping M: one of the changes says so. */
static void model_expect(int round, int q, int sign, const struct mmap_model *m)
{
	uint64_t a = (uint64_t)(MODEL_BASE + q) * 4096;

	for (size_t i = 0; i < ngot; i++) {
		if (got[i].sign != sign || got[i].start > a || got[i].end <= a)
			continue;
		if (got[i].map_start != m->start || got[i].map_end != m->end ||
		    strcmp(got[i].name, model_name(m)) != 0) {
			print_error("want mapping [%#llx, %#llx) \"%s\"\n", (unsigned long long)m->start,
			            (unsigned long long)m->end, model_name(m));
			model_fail(round, "the change has another mapping", q);
		}
		return;
	}
	model_fail(round, sign > 0 ? "no +1 change" : "no -1 change", q);
}

static void test_model(void **state)
{
	static struct layout_model lm[2];
	struct pmaps_proc *proc = NULL;
	struct wpages *wp = NULL;
	struct wpages_stats st;
	char root[96], pd[128], msg[256];
	unsigned seed = 12345;

	(void)state;
	if (sysconf(_SC_PAGESIZE) != 4096)
		skip();
	snprintf(dir, sizeof(dir), "/tmp/test_watch_pages.XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(root, sizeof(root), "%s/proc", dir);
	snprintf(pd, sizeof(pd), "%s/400", root);
	expect_sys(mkdir(root, 0700));
	expect_sys(mkdir(pd, 0700));
	page = 4096;
	base = 0;
	model_gen(&lm[0], &seed);
	model_write(&lm[0], pd);
	assert_int_equal(pmaps_proc_open(&proc, root, "400"), 0);
	if (wpages_open_strategy(&wp, proc, PMAPS_PAGES_PAGEMAP, msg, sizeof(msg)) != 0)
		fail_msg("wpages_open: %s", msg);
	sample(wp, &st);
	for (int round = 1; round <= MODEL_ROUNDS; round++) {
		const struct layout_model *b = &lm[(round - 1) & 1];
		struct layout_model *n = &lm[round & 1];
		uint64_t added = 0, removed = 0, present = 0;

		model_gen(n, &seed);
		model_write(n, pd);
		sample(wp, &st);
		for (int q = 0; q < MODEL_PAGES; q++) {
			const struct mmap_model *pm = b->at[q] >= 0 ? &b->maps[b->at[q]] : NULL;
			const struct mmap_model *cm = n->at[q] >= 0 ? &n->maps[n->at[q]] : NULL;
			int want_minus = 0, want_plus = 0;
			if (pm && cm && !model_same(pm, cm)) {
				want_minus = b->present[q];
				want_plus = n->present[q];
				if (want_minus)
					model_expect(round, q, -1, pm);
				if (want_plus)
					model_expect(round, q, +1, cm);
			} else if (b->present[q] && !n->present[q]) {
				want_minus = 1;
				model_expect(round, q, -1, cm ? cm : pm);
			} else if (!b->present[q] && n->present[q]) {
				want_plus = 1;
				model_expect(round, q, +1, cm);
			}
			added += (uint64_t)want_plus * 4096;
			removed += (uint64_t)want_minus * 4096;
			present += (uint64_t)n->present[q] * 4096;
		}
		/* No change beyond the model's: the bytes add up, the order holds. */
		for (size_t i = 0; i < ngot; i++) {
			if (got[i].start >= got[i].end || (i && got[i].start < got[i - 1].start))
				model_fail(round, "a change empty or out of order", (int)i);
		}
		if (st.added != added || st.removed != removed || st.present != present)
			fail_msg("round %d: added %llu removed %llu present %llu, the model %llu %llu %llu",
			         round, (unsigned long long)st.added, (unsigned long long)st.removed,
			         (unsigned long long)st.present, (unsigned long long)added,
			         (unsigned long long)removed, (unsigned long long)present);
	}
	wpages_close(wp);
	pmaps_proc_close(proc);
}

/* A target that execs: the diff's maps and pages are the old program's, -ESTALE. */
static void test_exec(void **state)
{
	struct pmaps_proc *proc = NULL;
	struct wpages *wp;
	struct wpages_stats st;
	char msg[256];
	int err;

	(void)state;
	start_target();
	wp = open_wp(&proc, PMAPS_PAGES_AUTO);
	sample(wp, &st);
	assert_int_equal(write(cmd_wr, "X", 1), 1);
	hello(); /* the new program is set up */
	msg[0] = '\0';
	err = wpages_sample(wp, collect, NULL, &st, msg, sizeof(msg));
	if (err != -ESTALE)
		fail_msg("exec'd: wpages_sample %d (%s), want -ESTALE: %s", err, strerror(-err), msg);
	expect_gt(strlen(msg), 0);
	wpages_close(wp);
	pmaps_proc_close(proc);
}

/* A target that dies: its zombie, then nothing, is -ESRCH with a message. */
static void test_gone(void **state)
{
	struct pmaps_proc *proc = NULL;
	struct wpages *wp = NULL;
	struct wpages_stats st;
	siginfo_t si;
	char pid[16], msg[256];
	int err;

	(void)state;
	start_target();
	snprintf(pid, sizeof(pid), "%d", (int)target);
	assert_int_equal(pmaps_proc_open(&proc, NULL, pid), 0);
	if (wpages_open(&wp, proc, msg, sizeof(msg)) != 0)
		fail_msg("wpages_open: %s", msg);
	sample(wp, &st);
	assert_int_equal(kill(target, SIGKILL), 0);
	assert_int_equal(waitid(P_PID, (id_t)target, &si, WEXITED | WNOWAIT), 0);
	msg[0] = '\0';
	err = wpages_sample(wp, collect, NULL, &st, msg, sizeof(msg));
	if (err != -ESRCH)
		fail_msg("zombie: wpages_sample %d (%s), want -ESRCH: %s", err, strerror(-err), msg);
	expect_gt(strlen(msg), 0);
	waitpid(target, NULL, 0);
	target = 0;
	msg[0] = '\0';
	err = wpages_sample(wp, collect, NULL, &st, msg, sizeof(msg));
	if (err != -ESRCH)
		fail_msg("reaped: wpages_sample %d (%s), want -ESRCH: %s", err, strerror(-err), msg);
	expect_gt(strlen(msg), 0);
	wpages_close(wp);
	pmaps_proc_close(proc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_step, teardown),
		cmocka_unit_test_teardown(test_step_pagemap, teardown),
		cmocka_unit_test_teardown(test_no_alloc, teardown),
		cmocka_unit_test_teardown(test_grow_together, teardown),
		cmocka_unit_test_teardown(test_run_cap, teardown),
		cmocka_unit_test_teardown(test_walk_ns, teardown),
		cmocka_unit_test_teardown(test_adjacent, teardown),
		cmocka_unit_test_teardown(test_adjacent_pagemap, teardown),
		cmocka_unit_test_teardown(test_exec, teardown),
		cmocka_unit_test_teardown(test_hugetlb, teardown),
		cmocka_unit_test_teardown(test_model, teardown),
		cmocka_unit_test_teardown(test_gone, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
