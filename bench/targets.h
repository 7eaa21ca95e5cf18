/* SPDX-License-Identifier: MIT */
/*
 * targets.h - processes the benchmarks build and measure, and their timing helpers.
 */
#ifndef PMAPS_BENCH_TARGETS_H
#define PMAPS_BENCH_TARGETS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct target {
	pid_t pid;
	int hold; /* write end: closing it ends the child */
	char pidstr[16];
	long vmas;
	char dir[32]; /* the mixed layout's files, removed by target_stop() */
};

/* How N VMAs are laid out. */
enum layout {
	/*
	 * Cycling anonymous read-write / file private read-only / anonymous
	 * read-only / file private read-write, the files cycling over four
	 * named files: neighbours never merge (the peers' harness's layout).
	 */
	LAYOUT_MIXED,
	/* Anonymous read-write and read-only in turn. */
	LAYOUT_ANON,
};
const char *layout_name(enum layout layout);

/*
 * N > 0: N VMAs of 4 pages laid out as LAYOUT says, two pages of each
 * touched, every 40th MADV_FREE'd. N < 0: a 64 GiB sparse region with -N
 * bytes resident in runs of 64 pages. Returns 0 once the target is ready.
 * target_start(): the mixed layout.
 */
int target_start(struct target *t, long n);
int target_start_layout(struct target *t, long n, enum layout layout);
void target_stop(struct target *t);

double now_ns(void);

/*
 * One walk of PAGEMAP_SCAN over the user address space of pagemap FD, with
 * the calls the library makes (its vector, page cap and masks), nothing
 * parsed: the floor of a page walk. Returns the pages it reported, or -1.
 */
int64_t bench_scan_walk(int fd);

/*
 * The library's allocations, counted: pmaps_set_allocator(bench_alloc,
 * bench_free, NULL) and read bench_allocs and bench_alloc_bytes (asked
 * for, ever), and bench_alloc_held (held now, as malloc_usable_size()
 * counts it).
 */
extern uint64_t bench_allocs, bench_alloc_bytes, bench_alloc_held;
void *bench_alloc(size_t n, void *ctx);
void bench_free(void *p, void *ctx);

/* "N[,N...]" (--vmas) into SIZES, MAX at most. Returns how many. */
int bench_sizes(const char *s, long *sizes, int max);
double median(double *v, int n);
/* Runs ARGV with output to /dev/null: wall ns; *MAXRSS_KB its peak RSS. */
double run_cmd(char *const argv[], long *maxrss_kb);

#endif
