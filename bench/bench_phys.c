/* SPDX-License-Identifier: MIT */
/*
 * bench_phys.c - one reading of the machine's physical memory
 * (pmaps_phys_read(), what `pmaps phys` does per refresh) against the bare
 * loop it is measured by: pread() of /proc/kpageflags from the start in
 * buffers of the same size until it returns nothing, looking at no entry
 * (and the same of kpagecount, for the reading with map counts); then the
 * reading with 2 reader threads (--threads T) against the bare loop in as
 * many threads.
 *
 * Interleaved repetition by repetition (every other one in reverse order),
 * medians, ratios to the bare loop of the same run; allocations per reading
 * (the allocator hook: 0 is the goal). Needs root.
 *
 *   pmaps-bench-phys [--reps R] [--buf BYTES] [--threads T]
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pmaps.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t allocs;

static void *count_alloc(size_t n, void *ctx)
{
	(void)ctx;
	allocs++;
	return malloc(n);
}

static void count_free(void *p, void *ctx)
{
	(void)ctx;
	free(p);
}

/* The bare loop: every byte of FILE, BUF bytes a pread(). Returns ns, or 0 on error. */
static uint64_t raw_read(const char *file, char *buf, size_t len, uint64_t *bytes)
{
	uint64_t t0 = now_ns();
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	off_t off = 0;
	ssize_t n;

	if (fd < 0)
		return 0;
	while ((n = pread(fd, buf, len, off)) > 0)
		off += n;
	close(fd);
	if (n < 0)
		return 0;
	*bytes = (uint64_t)off;
	return now_ns() - t0;
}

/* The bare loop in T threads: chunk k by thread k % T. */
struct raw_thread {
	pthread_t th;
	int fd;
	unsigned id, n;
	size_t len;
};

static void *raw_thread_main(void *arg)
{
	struct raw_thread *t = arg;
	char *buf = malloc(t->len);

	for (off_t k = t->id; buf; k += t->n)
		if (pread(t->fd, buf, t->len, k * (off_t)t->len) <= 0)
			break;
	free(buf);
	return NULL;
}

static uint64_t raw_read_threads(const char *file, size_t len, unsigned n)
{
	struct raw_thread t[16];
	uint64_t t0 = now_ns();
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	unsigned started = 0;

	if (fd < 0 || n > 16) {
		if (fd >= 0)
			close(fd);
		return 0;
	}

	for (; started < n; started++) {
		t[started] = (struct raw_thread){.fd = fd, .id = started, .n = n, .len = len};
		if (pthread_create(&t[started].th, NULL, raw_thread_main, &t[started]) != 0)
			break;
	}
	/* Only the threads started are joined; a measurement short of threads is none. */
	for (unsigned i = 0; i < started; i++)
		pthread_join(t[i].th, NULL);
	close(fd);
	return started == n ? now_ns() - t0 : 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static double median_ms(uint64_t *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_u64);
	return (n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2) / 1e6;
}

#define MAX_REPS 101

int main(int argc, char **argv)
{
	struct pmaps_phys_opts o = {sizeof(o), 0, 0, PMAPS_PHYS_BUF_BYTES, 0, NULL, PMAPS_PHYS_COUNT};
	static uint64_t t_raw[MAX_REPS], t_lib[MAX_REPS], t_rawc[MAX_REPS], t_libc[MAX_REPS];
	static uint64_t t_rawt[MAX_REPS], t_libt[MAX_REPS];
	struct pmaps_phys *p = NULL, *pc = NULL, *pt = NULL;
	unsigned threads = 2;
	const struct pmaps_phys_result *r;
	char msg[256];
	uint64_t bytes = 0, cbytes = 0, a0, lib_allocs = 0;
	int reps = 15, err;
	char *buf;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
			reps = atoi(argv[++i]);
		} else if (strcmp(argv[i], "--buf") == 0 && i + 1 < argc) {
			o.buf_bytes = strtoull(argv[++i], NULL, 0);
		} else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
			threads = (unsigned)atoi(argv[++i]);
		} else {
			fprintf(stderr, "usage: pmaps-bench-phys [--reps R] [--buf BYTES] [--threads T]\n");
			return 2;
		}
	}
	if (reps < 1 || reps > MAX_REPS || threads < 2 || threads > 16) {
		fprintf(stderr, "pmaps-bench-phys: --reps from 1 to %d, --threads from 2 to 16\n",
		        MAX_REPS);
		return 2;
	}
	pmaps_set_allocator(count_alloc, count_free, NULL);
	if ((err = pmaps_phys_open(&p, NULL, &o, msg, sizeof(msg))) < 0) {
		fprintf(stderr, "pmaps-bench-phys: %s\n", msg);
		return 1;
	}
	o.flags = PMAPS_PHYS_MAPCOUNT;
	if ((err = pmaps_phys_open(&pc, NULL, &o, msg, sizeof(msg))) < 0) {
		fprintf(stderr, "pmaps-bench-phys: %s\n", msg);
		return 1;
	}
	o.flags = 0;
	o.threads = threads;
	if ((err = pmaps_phys_open(&pt, NULL, &o, msg, sizeof(msg))) < 0) {
		fprintf(stderr, "pmaps-bench-phys: %s\n", msg);
		return 1;
	}
	if (!(buf = malloc(o.buf_bytes)))
		return 1;
	/* Warm both paths once. */
	if (pmaps_phys_read(p, &r) < 0 || !raw_read("/proc/kpageflags", buf, o.buf_bytes, &bytes)) {
		fprintf(stderr, "pmaps-bench-phys: %s\n", pmaps_phys_errmsg(p));
		return 1;
	}
	for (int i = 0; i < reps; i++) {
		uint64_t t0, dummy;
		for (int step = 0; step < 6; step++) {
			int which = i % 2 ? 5 - step : step;
			switch (which) {
			case 0:
				t_raw[i] = raw_read("/proc/kpageflags", buf, o.buf_bytes, &bytes);
				break;
			case 1:
				a0 = allocs;
				t0 = now_ns();
				if (pmaps_phys_read(p, &r) < 0)
					return 1;
				t_lib[i] = now_ns() - t0;
				lib_allocs += allocs - a0;
				break;
			case 2:
				t0 = now_ns();
				t_rawc[i] = raw_read("/proc/kpageflags", buf, o.buf_bytes, &dummy) +
				            raw_read("/proc/kpagecount", buf, o.buf_bytes, &cbytes);
				(void)t0;
				break;
			case 3:
				a0 = allocs;
				t0 = now_ns();
				if (pmaps_phys_read(pc, &r) < 0)
					return 1;
				t_libc[i] = now_ns() - t0;
				lib_allocs += allocs - a0;
				break;
			case 4:
				t_rawt[i] = raw_read_threads("/proc/kpageflags", o.buf_bytes, threads);
				if (!t_rawt[i]) {
					fprintf(stderr, "pmaps-bench-phys: cannot start %u threads or "
					        "open /proc/kpageflags\n", threads);
					return 1;
				}
				break;
			default:
				a0 = allocs;
				t0 = now_ns();
				if (pmaps_phys_read(pt, &r) < 0)
					return 1;
				t_libt[i] = now_ns() - t0;
				lib_allocs += allocs - a0;
				break;
			}
		}
	}
	printf("kpageflags: %llu frames (%.1f GiB of 4 KiB), %llu-byte reads, %d repetitions\n",
	       (unsigned long long)(bytes / 8), (double)bytes / 8 * 4096 / (1ull << 30),
	       (unsigned long long)o.buf_bytes, reps);
	{
		double raw = median_ms(t_raw, reps), lib = median_ms(t_lib, reps);
		double rawc = median_ms(t_rawc, reps), libc = median_ms(t_libc, reps);
		printf("  raw pread loop, kpageflags          %8.1f ms\n", raw);
		printf("  pmaps_phys_read()                   %8.1f ms  %.3fx raw\n", lib, lib / raw);
		printf("  raw pread loops, kpageflags+count   %8.1f ms\n", rawc);
		printf("  pmaps_phys_read(), MAPCOUNT         %8.1f ms  %.3fx raw\n", libc, libc / rawc);
		double rawt = median_ms(t_rawt, reps), libt = median_ms(t_libt, reps);
		printf("  raw pread loop, %u threads           %8.1f ms\n", threads, rawt);
		printf("  pmaps_phys_read(), %u threads        %8.1f ms  %.3fx raw in as many, "
		       "%.3fx raw in one\n", threads, libt, libt / rawt, libt / raw);
		printf("  allocations per reading             %8.2f\n",
		       (double)lib_allocs / (3.0 * reps));
	}
	free(buf);
	pmaps_phys_close(p);
	pmaps_phys_close(pc);
	pmaps_phys_close(pt);
	return 0;
}
