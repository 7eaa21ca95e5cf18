/* SPDX-License-Identifier: MIT */
/*
 * bench_pages.c - the page cursor against a bare walk making the same calls.
 *
 * Targets: a 64 GiB MAP_NORESERVE region with 2 GiB resident in runs of 64
 * pages spread over it, and 60k VMAs of 4 pages. Every mapping (as maps
 * lists it, read before timing) is walked: the bare PAGEMAP_SCAN walk makes
 * the library's calls (the same categories, max_pages, span and vector) and
 * keeps nothing; the bare pagemap walk reads the same 128 KiB pieces. Figures
 * are medians over interleaved repetitions, every other one in reverse order.
 * With --page-types PATH (bench/page-types.sh prints it) and as root, the
 * whole tool is also timed against the kernel's page-types on the sparse
 * target, in the same interleaved way: `page-types -p PID` against
 * `pmaps pages --summary PID`, `page-types -p PID -l` against `pmaps pages
 * PID`, and `-l -M` (map counts, which pmaps always shows) for reference.
 *
 *   pmaps-bench-pages [--quick] [--reps R] [--page-types PATH]
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "targets.h"


struct vma {
	uint64_t start, end;
};

static struct vma *vmas;
static size_t nvmas;
static int pagemap_fd;
static uint64_t guard_cat = PMAPS__CAT_GUARD;
static struct pmaps__page_region vec[PMAPS__SCAN_VEC];
static uint64_t *pm;
static uint64_t sink;
static char *page_types; /* the kernel's page-types, or NULL */

static void die(const char *what, const char *msg)
{
	fprintf(stderr, "pmaps-bench-pages: %s: %s\n", what, msg);
	exit(1);
}

static void load_vmas(struct pmaps_proc *proc)
{
	struct pmaps_maps *c;
	const struct pmaps_mapping *m;
	size_t cap = 1024;

	if (pmaps_maps_open(&c, proc, PMAPS_SRC_MAPS, 0) < 0)
		die("maps", pmaps_maps_errmsg(c));
	vmas = malloc(cap * sizeof(*vmas));
	if (!vmas)
		die("maps", "out of memory");
	nvmas = 0;
	while (pmaps_maps_next(c, &m) > 0) {
		if (m->start >= 0x800000000000ull)
			continue; /* [vsyscall]: not a VMA, nothing to walk */
		if (nvmas == cap) {
			struct vma *nv = realloc(vmas, (cap *= 2) * sizeof(*vmas));
			if (!nv)
				die("maps", "out of memory");
			vmas = nv;
		}
		vmas[nvmas].start = m->start;
		vmas[nvmas].end = m->end;
		nvmas++;
	}
	pmaps_maps_close(c);
}

static long scan_ioctl(uint64_t start, uint64_t end, uint64_t *we)
{
	struct pmaps__pm_scan_arg a;
	long n;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.start = start;
	a.end = end;
	a.vec = (uint64_t)(uintptr_t)vec;
	a.vec_len = PMAPS__SCAN_VEC;
	a.max_pages = PMAPS__SCAN_MAX_PAGES;
	a.category_anyof_mask = PMAPS__CAT_PRESENT | PMAPS__CAT_SWAPPED | PMAPS__CAT_SOFT_DIRTY |
	                        guard_cat;
	a.return_mask = PMAPS__CAT_WRITTEN | PMAPS__CAT_FILE | PMAPS__CAT_PRESENT |
	                PMAPS__CAT_SWAPPED | PMAPS__CAT_PFNZERO | PMAPS__CAT_HUGE |
	                PMAPS__CAT_SOFT_DIRTY | guard_cat;
	n = ioctl(pagemap_fd, PMAPS_PAGEMAP_SCAN, &a);
	*we = a.walk_end;
	return n;
}

static double bare_scan(void)
{
	double t0 = now_ns();

	for (size_t i = 0; i < nvmas; i++) {
		uint64_t at = vmas[i].start, we;
		while (at < vmas[i].end) {
			uint64_t stop = vmas[i].end - at > PMAPS__SCAN_SPAN ? at + PMAPS__SCAN_SPAN
			                                                     : vmas[i].end;
			long n = scan_ioctl(at, stop, &we);
			if (n < 0 || we <= at)
				die("PAGEMAP_SCAN", strerror(errno));
			sink += (uint64_t)n;
			at = we;
		}
	}
	return now_ns() - t0;
}

static double bare_pagemap(void)
{
	double t0 = now_ns();

	for (size_t i = 0; i < nvmas; i++) {
		uint64_t at = vmas[i].start;
		while (at < vmas[i].end) {
			uint64_t pages = (vmas[i].end - at) >> 12;
			size_t want = pages > PMAPS__PM_ENTRIES ? PMAPS__PM_ENTRIES : (size_t)pages;
			ssize_t n = pread(pagemap_fd, pm, want * 8, (off_t)((at >> 12) * 8));
			if (n <= 0)
				die("pagemap", n < 0 ? strerror(errno) : "short read");
			sink += pm[0];
			at += (uint64_t)(n / 8) << 12;
		}
	}
	return now_ns() - t0;
}

struct libstat {
	double ns;
	uint64_t allocs, runs, resident;
};

static struct libstat lib_walk(struct pmaps_pages *c)
{
	struct libstat s = {0};
	const struct pmaps_page_range *r;
	uint64_t a0 = bench_allocs;
	double t0 = now_ns();
	int rc;

	for (size_t i = 0; i < nvmas; i++) {
		pmaps_pages_seek(c, vmas[i].start, vmas[i].end);
		while ((rc = pmaps_pages_next(c, &r)) > 0) {
			s.runs++;
			if (r->flags & PMAPS_PG_PRESENT)
				s.resident += (r->end - r->start) >> 12;
		}
		if (rc < 0)
			die("page cursor", pmaps_pages_errmsg(c));
	}
	s.ns = now_ns() - t0;
	s.allocs = bench_allocs - a0;
	return s;
}

enum { OP_BARE_SCAN, OP_LIB_SCAN, OP_GENTLE_SCAN, OP_KPAGE_SCAN, OP_BARE_PM, OP_LIB_PM,
       OP_KPAGE_PM, OP_N };
static const char *const op_names[OP_N] = {
	"bare PAGEMAP_SCAN walk (floor)", "pmaps pages, PAGEMAP_SCAN", "  ... with --gentle",
	"  ... with the kpageflags join", "bare pagemap pread walk (floor)", "pmaps pages, pagemap",
	"  ... with the kpageflags join",
};

/*
 * The kernel's page-types and pmaps on the same question, whole processes
 * with output to /dev/null, interleaved (every other repetition reversed).
 * Each pmaps row is ratioed against the page-types row above it.
 */
static void versus_page_types(char *pid, int reps)
{
	enum { PT_P, PM_SUMMARY, PT_L, PM_RUNS, PT_LM, PM_RUNS_PAGEMAP, N };
	char *pt_p[] = {page_types, "-p", pid, NULL};
	char *pt_l[] = {page_types, "-p", pid, "-l", NULL};
	char *pt_lm[] = {page_types, "-p", pid, "-l", "-M", NULL};
	char *pm_s[] = {PMAPS_TOOL_PATH, "pages", "--summary", pid, NULL};
	char *pm_r[] = {PMAPS_TOOL_PATH, "pages", pid, NULL};
	char *pm_rp[] = {PMAPS_TOOL_PATH, "pages", "--strategy", "pagemap", pid, NULL};
	char *const *cmd[N] = {pt_p, pm_s, pt_l, pm_r, pt_lm, pm_rp};
	static const char *const name[N] = {
		"page-types -p PID", "pmaps pages --summary PID", "page-types -p PID -l",
		"pmaps pages PID", "page-types -p PID -l -M", "pmaps pages --strategy pagemap PID"};
	static const int base[N] = {PT_P, PT_P, PT_L, PT_L, PT_LM, PT_LM};
	double w[N][64];

	for (int i = 0; i < reps; i++)
		for (int k = 0; k < N; k++) {
			int op = i % 2 ? N - 1 - k : k;
			w[op][i] = run_cmd(cmd[op], NULL);
		}
	printf("  the kernel's page-types (%d repetitions), whole process, output to /dev/null:\n",
	       reps);
	for (int op = 0; op < N; op++) {
		double med = median(w[op], reps);
		printf("  %-34s %8.3f ms %6.3fx%s\n", name[op], med / 1e6,
		       med / median(w[base[op]], reps), op == base[op] ? "" : "  of the row above");
	}
}

static void bench(long spec, const char *label, int reps)
{
	struct target t;
	struct pmaps_proc *proc;
	struct pmaps_pages *cs, *cg, *cp, *cks, *ckp;
	struct libstat last[OP_N] = {{0}};
	double v[OP_N][64];
	char path[64];

	if (target_start(&t, spec) < 0)
		exit(1);
	if (pmaps_proc_open(&proc, NULL, t.pidstr) < 0)
		die("open", "no process");
	load_vmas(proc);
	snprintf(path, sizeof(path), "/proc/%s/pagemap", t.pidstr);
	pagemap_fd = open(path, O_RDONLY);
	if (pagemap_fd < 0)
		die(path, strerror(errno));
	if (pmaps_pages_open(&cs, proc, PMAPS_PAGES_SCAN, 0) < 0 ||
	    pmaps_pages_open(&cg, proc, PMAPS_PAGES_SCAN, PMAPS_PAGES_GENTLE) < 0 ||
	    pmaps_pages_open(&cp, proc, PMAPS_PAGES_PAGEMAP, 0) < 0 ||
	    pmaps_pages_open(&cks, proc, PMAPS_PAGES_SCAN, PMAPS_PAGES_KPAGE) < 0 ||
	    pmaps_pages_open(&ckp, proc, PMAPS_PAGES_PAGEMAP, PMAPS_PAGES_KPAGE) < 0)
		die("page cursor", "cannot open (needs Linux 6.7 for PAGEMAP_SCAN)");
	if (pmaps_pages_kpage(cks) != 1)
		printf("(no kpageflags join: %s)\n", pmaps_pages_errmsg(cks));
	{
		uint64_t we;
		if (scan_ioctl(0, 0, &we) < 0)
			guard_cat = 0; /* a kernel before guard regions: as the library does */
	}
	/* Warm up the page tables' cache lines and the code. */
	bare_scan();
	lib_walk(cs);
	for (int i = 0; i < reps; i++) {
		for (int k = 0; k < OP_N; k++) {
			int op = i % 2 ? OP_N - 1 - k : k;
			switch (op) {
			case OP_BARE_SCAN: v[op][i] = bare_scan(); break;
			case OP_BARE_PM: v[op][i] = bare_pagemap(); break;
			case OP_LIB_SCAN: last[op] = lib_walk(cs); v[op][i] = last[op].ns; break;
			case OP_GENTLE_SCAN: last[op] = lib_walk(cg); v[op][i] = last[op].ns; break;
			case OP_LIB_PM: last[op] = lib_walk(cp); v[op][i] = last[op].ns; break;
			case OP_KPAGE_SCAN: last[op] = lib_walk(cks); v[op][i] = last[op].ns; break;
			case OP_KPAGE_PM: last[op] = lib_walk(ckp); v[op][i] = last[op].ns; break;
			}
		}
	}
	uint64_t resident = last[OP_LIB_SCAN].resident;
	printf("\n%s: %zu mappings, %llu resident pages, %d repetitions\n", label, nvmas,
	       (unsigned long long)resident, reps);
	printf("  %-34s %11s %7s %9s %10s %9s\n", "operation", "median", "ratio", "allocs", "runs",
	       "ns/page");
	double floor_scan = median(v[OP_BARE_SCAN], reps), floor_pm = median(v[OP_BARE_PM], reps);
	for (int op = 0; op < OP_N; op++) {
		double med = median(v[op], reps);
		double floor = op <= OP_KPAGE_SCAN ? floor_scan : floor_pm;
		printf("  %-34s %8.3f ms %6.3fx", op_names[op], med / 1e6, med / floor);
		if (op == OP_BARE_SCAN || op == OP_BARE_PM)
			printf(" %9s %10s", "-", "-");
		else
			printf(" %9llu %10llu", (unsigned long long)last[op].allocs,
			       (unsigned long long)last[op].runs);
		printf(" %9.2f\n", resident ? med / (double)resident : 0.0);
	}
	{
		char *scan[] = {PMAPS_TOOL_PATH, "pages", t.pidstr, NULL};
		char *pmap[] = {PMAPS_TOOL_PATH, "pages", "--strategy", "pagemap", t.pidstr, NULL};
		double w[2][64];
		long rss[2] = {0, 0};
		for (int i = 0; i < reps; i++) {
			int rev = i % 2;
			w[rev][i] = run_cmd(rev ? pmap : scan, &rss[rev]);
			w[!rev][i] = run_cmd(rev ? scan : pmap, &rss[!rev]);
		}
		printf("  whole process, output to /dev/null:\n");
		printf("  %-34s %8.3f ms   peak RSS %6ld KiB\n", "pmaps pages PID",
		       median(w[0], reps) / 1e6, rss[0]);
		printf("  %-34s %8.3f ms   peak RSS %6ld KiB\n", "pmaps pages --strategy pagemap PID",
		       median(w[1], reps) / 1e6, rss[1]);
	}
	if (page_types && spec < 0 && geteuid() == 0)
		versus_page_types(t.pidstr, reps);
	pmaps_pages_close(cs);
	pmaps_pages_close(cg);
	pmaps_pages_close(cp);
	pmaps_pages_close(cks);
	pmaps_pages_close(ckp);
	pmaps_proc_close(proc);
	close(pagemap_fd);
	free(vmas);
	target_stop(&t);
}

int main(int argc, char **argv)
{
	int reps = 15, quick = 0;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--quick") == 0) {
			quick = 1;
			reps = 3;
		} else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
			reps = atoi(argv[++i]);
			if (reps < 1 || reps > 64)
				reps = 15;
		} else if (strcmp(argv[i], "--page-types") == 0 && i + 1 < argc) {
			page_types = argv[++i];
			if (access(page_types, X_OK) != 0)
				die(page_types, strerror(errno));
		} else {
			fprintf(stderr, "usage: pmaps-bench-pages [--quick] [--reps R] [--page-types PATH]\n");
			return 2;
		}
	}
	pmaps_set_allocator(bench_alloc, bench_free, NULL);
	pm = malloc(PMAPS__PM_ENTRIES * 8);
	if (!pm)
		return 1;
	printf("pmaps-bench-pages: the page cursor against bare walks making the same calls\n"
	       "(medians; ratio = median / the bare walk of the same reader)\n");
	bench(quick ? -(64l << 20) : -(2l << 30),
	      quick ? "64 GiB sparse region, 64 MiB resident" : "64 GiB sparse region, 2 GiB resident",
	      reps);
	bench(quick ? 1000 : 60000, quick ? "1k VMAs" : "60k VMAs", reps);
	free(pm);
	return sink == 42 ? 3 : 0;
}
