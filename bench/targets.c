/* SPDX-License-Identifier: MIT */
/*
 * targets.c - processes the benchmarks build and measure, and their timing helpers.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <malloc.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "targets.h"
#include "uapi.h"

#define PAGE 4096ul

double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int64_t bench_scan_walk(int fd)
{
	static struct pmaps__page_region vec[1024];
	uint64_t at = 0, pages = 0;

	while (at < PMAPS__USER_TOP47) {
		struct pmaps__pm_scan_arg a;
		long n;
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.start = at;
		a.end = PMAPS__USER_TOP47;
		a.vec = (uint64_t)(uintptr_t)vec;
		a.vec_len = sizeof(vec) / sizeof(vec[0]);
		a.max_pages = PMAPS__SCAN_MAX_PAGES;
		a.category_anyof_mask = PMAPS__CAT_PRESENT | PMAPS__CAT_SWAPPED;
		a.return_mask = PMAPS__CAT_PRESENT | PMAPS__CAT_SWAPPED | PMAPS__CAT_FILE |
		                PMAPS__CAT_PFNZERO | PMAPS__CAT_HUGE | PMAPS__CAT_GUARD;
		n = ioctl(fd, PMAPS_PAGEMAP_SCAN, &a);
		if (n < 0 || a.walk_end <= at)
			return -1;
		for (long i = 0; i < n; i++)
			pages += (vec[i].end - vec[i].start) >> 12;
		at = a.walk_end;
	}
	return (int64_t)pages;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Runs a command with output to /dev/null: wall ns, and its peak RSS in KiB. */
double run_cmd(char *const argv[], long *maxrss_kb)
{
	struct rusage ru;
	double t0 = now_ns();
	int st;
	pid_t p = fork();

	if (p == 0) {
		int fd = open("/dev/null", O_WRONLY);
		/* Notes too: a failure is told by the exit status. */
		dup2(fd, 1);
		dup2(fd, 2);
		execv(argv[0], argv);
		_exit(127);
	}
	if (wait4(p, &st, 0, &ru) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "pmaps-bench: %s failed\n", argv[0]);
		exit(1);
	}
	if (maxrss_kb)
		*maxrss_kb = ru.ru_maxrss;
	return now_ns() - t0;
}



#define NFILES 4

/*
 * N VMAs of 4 pages, two of each touched. Mixed: cycling anonymous
 * read-write, file private read-only, anonymous read-only, file private
 * read-write, the files cycling over NFILES named files of 256 pages in
 * DIR; every 40th MADV_FREE'd (mapping 0, 40, ...: anonymous read-write,
 * two pages each in LazyFree). Anonymous: read-write and read-only in turn,
 * so that no two neighbours merge.
 */
static void vmas_child(long n, enum layout layout, const char *dir, int ready, int hold)
{
	size_t chunk = 4 * PAGE, fsize = 256 * PAGE;
	int fds[NFILES];
	char *base, c;

	cpu_set_t was, one;
	int pinned;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/*
	 * On one CPU while it builds: MADV_FREE leaves its pages in that CPU's
	 * batch until the next drain, and they count in LazyFree only once
	 * drained. Each MADV_FREE drains the batch the one before filled; the
	 * last one's is drained at the end, on the same CPU.
	 */
	CPU_ZERO(&one);
	pinned = sched_getaffinity(0, sizeof(was), &was) == 0 && sched_getcpu() >= 0;
	if (pinned) {
		CPU_SET(sched_getcpu(), &one);
		pinned = sched_setaffinity(0, sizeof(one), &one) == 0;
	}
	for (int k = 0; layout == LAYOUT_MIXED && k < NFILES; k++) {
		char path[PATH_MAX];
		snprintf(path, sizeof(path), "%s/f%d", dir, k);
		fds[k] = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fds[k] < 0 || ftruncate(fds[k], (off_t)fsize) < 0)
			_exit(2);
	}
	base = mmap(NULL, (size_t)n * chunk, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
	            -1, 0);
	if (base == MAP_FAILED)
		_exit(3);
	for (long i = 0; i < n; i++) {
		char *p = base + (size_t)i * chunk;
		off_t off = (off_t)(((size_t)i * chunk) % fsize);
		int fd = layout == LAYOUT_MIXED ? fds[(i / 2) % NFILES] : -1;
		int kind = layout == LAYOUT_MIXED ? (int)(i % 4) : (int)(i % 2) * 2;
		void *r;
		switch (kind) {
		case 0:
			r = mmap(p, chunk, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
			         -1, 0);
			break;
		case 1:
			r = mmap(p, chunk, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, off);
			break;
		case 2:
			r = mmap(p, chunk, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
			break;
		default:
			r = mmap(p, chunk, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd, off);
		}
		if (r == MAP_FAILED)
			_exit(4);
		for (int k = 0; k < 2; k++) {
			if (kind == 0 || kind == 3)
				p[k * PAGE] = 1;
			else
				(void)*(volatile char *)(p + k * PAGE);
		}
		if (i % 40 == 0)
			madvise(p, chunk, MADV_FREE);
	}
	/* Mapping 0's untouched half: nothing to free, but the batch is drained first. */
	madvise(base + 2 * PAGE, 2 * PAGE, MADV_FREE);
	if (pinned)
		sched_setaffinity(0, sizeof(was), &was);
	if (write(ready, "k", 1) != 1)
		_exit(5);
	while (read(hold, &c, 1) < 0 && errno == EINTR)
		;
	_exit(0);
}

/*
 * A 64 GiB MAP_NORESERVE region with RESIDENT bytes touched in runs of 64
 * pages spread evenly over it: a page-table walk's worst sparse case.
 */
static void sparse_child(uint64_t resident, int ready, int hold)
{
	const uint64_t span = 64ull << 30, run = 64 * PAGE;
	uint64_t runs = resident / run, stride = runs ? span / runs : span;
	char *base, c;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	base = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
	            -1, 0);
	if (base == MAP_FAILED)
		_exit(3);
	madvise(base, span, MADV_NOHUGEPAGE); /* 4 KiB pages, as counted */
	for (uint64_t i = 0; i < runs; i++)
		for (uint64_t k = 0; k < run; k += PAGE)
			base[i * stride + k] = 1;
	if (write(ready, "k", 1) != 1)
		_exit(5);
	while (read(hold, &c, 1) < 0 && errno == EINTR)
		;
	_exit(0);
}

int target_start(struct target *t, long n)
{
	return target_start_layout(t, n, LAYOUT_MIXED);
}

const char *layout_name(enum layout layout)
{
	return layout == LAYOUT_MIXED ? "mixed" : "anonymous";
}

int target_start_layout(struct target *t, long n, enum layout layout)
{
	int ready[2], hold[2];
	char c;

	t->dir[0] = '\0';
	if (n > 0 && layout == LAYOUT_MIXED) {
		snprintf(t->dir, sizeof(t->dir), "/tmp/pmaps-bench.XXXXXX");
		if (!mkdtemp(t->dir))
			return -1;
	}
	if (pipe2(ready, O_CLOEXEC) || pipe2(hold, O_CLOEXEC))
		return -1;
	t->pid = fork();
	if (t->pid < 0)
		return -1;
	if (t->pid == 0) {
		close(ready[0]);
		close(hold[1]);
		if (n > 0)
			vmas_child(n, layout, t->dir, ready[1], hold[0]);
		else
			sparse_child((uint64_t)-n, ready[1], hold[0]);
	}
	close(ready[1]);
	close(hold[0]);
	t->hold = hold[1];
	t->vmas = n;
	snprintf(t->pidstr, sizeof(t->pidstr), "%d", (int)t->pid);
	if (read(ready[0], &c, 1) != 1) {
		close(ready[0]);
		target_stop(t);
		fprintf(stderr, "pmaps-bench: target %ld failed to start (vm.max_map_count is "
		                "65530 by default; a sparse target needs its resident memory)\n", n);
		return -1;
	}
	close(ready[0]);
	return 0;
}

void target_stop(struct target *t)
{
	int st;
	close(t->hold);
	waitpid(t->pid, &st, 0);
	if (t->dir[0]) {
		for (int k = 0; k < NFILES; k++) {
			char path[PATH_MAX];
			snprintf(path, sizeof(path), "%s/f%d", t->dir, k);
			unlink(path);
		}
		rmdir(t->dir);
		t->dir[0] = '\0';
	}
}


uint64_t bench_allocs, bench_alloc_bytes, bench_alloc_held;

void *bench_alloc(size_t n, void *ctx)
{
	void *p = malloc(n);

	(void)ctx;
	bench_allocs++;
	bench_alloc_bytes += n;
	if (p)
		bench_alloc_held += malloc_usable_size(p);
	return p;
}

void bench_free(void *p, void *ctx)
{
	(void)ctx;
	if (p)
		bench_alloc_held -= malloc_usable_size(p);
	free(p);
}

int bench_sizes(const char *s, long *sizes, int max)
{
	int n = 0;

	while (*s && n < max) {
		char *end;
		sizes[n++] = strtol(s, &end, 10);
		s = *end == ',' ? end + 1 : end;
		if (end == s && *s)
			break;
	}
	return n;
}
