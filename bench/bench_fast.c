/* SPDX-License-Identifier: MIT */
/*
 * bench_fast.c - the page sources (fast, pages) against the bare kernel
 * calls they are made of, and against smaps, on targets this program
 * builds itself (bench/targets.c: N VMAs of 4 pages, two touched, mixed
 * anonymous and file-backed over four files, or anonymous only; a 64 GiB
 * sparse region).
 *
 * The floor for the fast source is a bare loop that makes the same calls
 * as the library and nothing else: the VMA list it reads (a read() loop
 * over the maps text on 6.17+, PROCMAP_QUERY with names before) and one walk of PAGEMAP_SCAN over
 * the address space with the same vector, page cap and masks. Every figure
 * is a median over interleaved repetitions (every other one in reverse
 * order), printed beside the floor measured in the same run.
 *
 *   pmaps-bench-fast [--quick] [--vmas N[,N...]] [--reps R] [--layout mixed|anon|both]
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "pmaps.h"
#include "testhooks.h"
#include "uapi.h"
#include "targets.h"


static uint64_t sink;
static char rawbuf[64 * 1024];

/* ---- the bare loops ---- */


static int open_or_die(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		perror(path);
		exit(1);
	}
	return fd;
}

static double bare_read(const char *path)
{
	double t0 = now_ns();
	int fd = open_or_die(path);
	ssize_t n;

	while ((n = read(fd, rawbuf, sizeof(rawbuf))) > 0)
		sink += (uint64_t)n;
	close(fd);
	return now_ns() - t0;
}

/* The VMA list through PROCMAP_QUERY, names included, as the library asks. */
static double bare_query(const char *maps, uint64_t *nvmas)
{
	static char name[8192];
	double t0 = now_ns();
	int fd = open_or_die(maps);
	struct pmaps__procmap_query q;
	uint64_t addr = 0, n = 0;

	for (;;) {
		memset(&q, 0, sizeof(q));
		q.size = sizeof(q);
		q.query_flags = PMAPS__QUERY_COVERING_OR_NEXT_VMA;
		q.query_addr = addr;
		q.vma_name_addr = (uint64_t)(uintptr_t)name;
		q.vma_name_size = sizeof(name);
		if (ioctl(fd, PMAPS_PROCMAP_QUERY, &q) < 0)
			break;
		addr = q.vma_end;
		n++;
	}
	close(fd);
	sink += n;
	*nvmas = n;
	return now_ns() - t0;
}

/* One walk of PAGEMAP_SCAN over the address space, with the library's parameters. */
static double bare_scan(const char *pagemap)
{
	double t0 = now_ns();
	int fd = open_or_die(pagemap);
	int64_t pages = bench_scan_walk(fd);

	if (pages < 0) {
		perror("PAGEMAP_SCAN");
		exit(1);
	}
	close(fd);
	sink += (uint64_t)pages;
	return now_ns() - t0;
}

/*
 * The kernel calls one read of the fast source makes, recorded through the
 * library's hooks (testhooks.h): each read() of a text file and each
 * PAGEMAP_SCAN, in order, to be made again bare. The reading source walks
 * the maps text and the page tables in turn, a page of text and a batch of
 * regions at a time, which costs the kernel more than either whole at once:
 * the replay is the floor of that interleaving itself.
 */
#define CALLS_MAX 65536
static struct call {
	char file[16];                   /* "" for PAGEMAP_SCAN */
	size_t len;
	struct pmaps__pm_scan_arg a;
} calls[CALLS_MAX];
static int ncalls, calls_lost;

static ssize_t record_read(int fd, void *buf, size_t len)
{
	char path[64], link[256];
	ssize_t k;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	k = readlink(path, link, sizeof(link) - 1);
	if (ncalls < CALLS_MAX && k > 0) {
		const char *base;
		link[k] = '\0';
		base = strrchr(link, '/');
		snprintf(calls[ncalls].file, sizeof(calls[ncalls].file), "%.15s", base ? base + 1 : link);
		calls[ncalls++].len = len;
	} else {
		calls_lost = 1;
	}
	return read(fd, buf, len);
}

static int record_scan(int fd, unsigned long request, void *arg)
{
	if (ncalls < CALLS_MAX) {
		calls[ncalls].file[0] = '\0';
		memcpy(&calls[ncalls++].a, arg, sizeof(calls[0].a));
	} else {
		calls_lost = 1;
	}
	return ioctl(fd, request, arg);
}

/* The recorded calls made again, files opened as the library opens them. */
static double bare_replay(const char *pid)
{
	static struct pmaps__page_region vec[1024];
	char names[4][16], path[64];
	int fds[4], nf = 0, pm;
	double t0 = now_ns();

	snprintf(path, sizeof(path), "/proc/%s/pagemap", pid);
	pm = open_or_die(path);
	for (int i = 0; i < ncalls; i++) {
		struct call *c = &calls[i];
		if (!c->file[0]) {
			struct pmaps__pm_scan_arg a = c->a;
			a.vec = (uint64_t)(uintptr_t)vec;
			if (a.vec_len > sizeof(vec) / sizeof(vec[0]))
				a.vec_len = sizeof(vec) / sizeof(vec[0]);
			sink += (uint64_t)ioctl(pm, PMAPS_PAGEMAP_SCAN, &a);
			continue;
		}
		int k = 0;
		while (k < nf && strcmp(names[k], c->file) != 0)
			k++;
		if (k == nf) {
			if (nf == 4)
				continue;
			snprintf(names[nf], sizeof(names[nf]), "%.15s", c->file);
			snprintf(path, sizeof(path), "/proc/%.15s/%.15s", pid, c->file);
			fds[nf++] = open_or_die(path);
		}
		sink += (uint64_t)read(fds[k], rawbuf, c->len < sizeof(rawbuf) ? c->len : sizeof(rawbuf));
	}
	for (int k = 0; k < nf; k++)
		close(fds[k]);
	close(pm);
	return now_ns() - t0;
}

/* ---- the library ---- */

struct opstat {
	double ns;
	uint64_t allocs, rows;
};

static void die_lib(const char *what, int err, struct pmaps_maps *c)
{
	fprintf(stderr, "pmaps-bench-fast: %s: %s\n", what, c ? pmaps_maps_errmsg(c) : pmaps_strerror(err));
	exit(1);
}

/* A cursor rewound and read whole, the fields a program asks of the fast source read. */
static struct opstat scan(struct pmaps_maps *c)
{
	const struct pmaps_mapping *m;
	struct opstat s = {0};
	uint64_t a0 = bench_allocs, sum = 0;
	double t0 = now_ns();
	int r;

	if ((r = pmaps_maps_rewind(c)) < 0)
		die_lib("rewind", r, c);
	while ((r = pmaps_maps_next(c, &m)) > 0) {
		sum += m->v[PMAPS_F_RSS] + m->v[PMAPS_F_ANONYMOUS] + m->v[PMAPS_F_SWAP] +
		       m->v[PMAPS_F_ANON_HUGE_PAGES];
		s.rows++;
	}
	s.ns = now_ns() - t0;
	if (r < 0)
		die_lib("scan", r, c);
	s.allocs = bench_allocs - a0;
	sink += sum;
	return s;
}

static struct opstat total(struct pmaps_proc *p, enum pmaps_source src)
{
	struct pmaps_group_row row;
	struct opstat s = {0};
	char msg[256];
	double t0 = now_ns();
	int r = pmaps_total_from(p, src, NULL, &row, sizeof(row), NULL, msg, sizeof(msg));

	s.ns = now_ns() - t0;
	if (r < 0) {
		fprintf(stderr, "pmaps-bench-fast: total: %s\n", msg);
		exit(1);
	}
	sink += row.v[PMAPS_F_RSS];
	return s;
}

/*
 * OP_FAST reads with the VMA list the library chose for this kernel (the
 * maps text on 6.17+), OP_FAST_OTHER with the other one forced, each
 * against the floor of the list it reads.
 */
enum {
	OP_SMAPS, OP_MAPS, OP_QUERY, OP_SCAN, OP_FLOOR, OP_FLOOR_TEXT, OP_REPLAY, OP_FAST,
	OP_FAST_OTHER, OP_PAGES, OP_ROLLUP, OP_TOTAL_FAST, OP_N
};
static const char *names[OP_N] = {
	"bare read() of smaps", "bare read() of maps", "bare PROCMAP_QUERY loop",
	"bare PAGEMAP_SCAN walk", "floor: QUERY loop + SCAN walk", "floor: maps read + SCAN walk",
	"floor: fast's calls replayed", "pmaps fast per mapping", "pmaps fast, other list", "pmaps pages per mapping",
	"bare read() of smaps_rollup", "pmaps total from fast",
};

static void bench_target(long n, enum layout layout, int reps, int whole)
{
	struct target t;
	struct pmaps_proc *proc;
	struct pmaps_maps *fast, *fast_other, *pages;
	int text;
	char smaps[64], maps[64], pagemap[64], rollup[64];
	double v[OP_N][64];
	struct opstat last[OP_N] = {{0}};
	uint64_t nvmas = 0;
	int r;

	if (target_start_layout(&t, n, layout) < 0)
		exit(1);
	snprintf(smaps, sizeof(smaps), "/proc/%s/smaps", t.pidstr);
	snprintf(maps, sizeof(maps), "/proc/%s/maps", t.pidstr);
	snprintf(pagemap, sizeof(pagemap), "/proc/%s/pagemap", t.pidstr);
	snprintf(rollup, sizeof(rollup), "/proc/%s/smaps_rollup", t.pidstr);
	if ((r = pmaps_proc_open(&proc, NULL, t.pidstr)) < 0)
		die_lib("open", r, NULL);
	if ((r = pmaps_maps_open(&fast, proc, PMAPS_SRC_FAST, 0)) < 0)
		die_lib("open fast", r, fast);
	text = pmaps_maps_query(fast) == 0;
	/* The other list: PROCMAP_QUERY for every mapping, or the text without it. */
	pmaps__procmap_query_list = text;
	pmaps__no_procmap_query = !text;
	if ((r = pmaps_maps_open(&fast_other, proc, PMAPS_SRC_FAST, 0)) < 0)
		die_lib("open fast (the other list)", r, fast_other);
	pmaps__procmap_query_list = pmaps__no_procmap_query = 0;
	if ((r = pmaps_maps_open(&pages, proc, PMAPS_SRC_PAGES, 0)) < 0)
		die_lib("open pages", r, pages);
	names[OP_FAST] = text ? "pmaps fast (maps text list)" : "pmaps fast (PROCMAP_QUERY list)";
	names[OP_FAST_OTHER] = text ? "pmaps fast, PROCMAP_QUERY forced" : "pmaps fast, maps text forced";
	names[OP_PAGES] = text ? "pmaps pages (maps text list)" : "pmaps pages (PROCMAP_QUERY list)";
	/* Warm up, and record the calls of one read of the chosen list. */
	bare_read(smaps);
	scan(fast);
	ncalls = calls_lost = 0;
	pmaps__read_hook = record_read;
	pmaps__scan_hook = record_scan;
	scan(fast);
	pmaps__read_hook = NULL;
	pmaps__scan_hook = NULL;
	scan(fast_other);
	scan(pages);
	for (int i = 0; i < reps; i++) {
		for (int k = 0; k < OP_N; k++) {
			int op = i % 2 ? OP_N - 1 - k : k;
			switch (op) {
			case OP_SMAPS: v[op][i] = bare_read(smaps); break;
			case OP_MAPS: v[op][i] = bare_read(maps); break;
			case OP_QUERY: v[op][i] = bare_query(maps, &nvmas); break;
			case OP_SCAN: v[op][i] = bare_scan(pagemap); break;
			case OP_FLOOR: v[op][i] = bare_query(maps, &nvmas) + bare_scan(pagemap); break;
			case OP_FLOOR_TEXT: v[op][i] = bare_read(maps) + bare_scan(pagemap); break;
			case OP_REPLAY: v[op][i] = bare_replay(t.pidstr); break;
			case OP_FAST: last[op] = scan(fast); v[op][i] = last[op].ns; break;
			case OP_FAST_OTHER: last[op] = scan(fast_other); v[op][i] = last[op].ns; break;
			case OP_PAGES: last[op] = scan(pages); v[op][i] = last[op].ns; break;
			case OP_ROLLUP: v[op][i] = bare_read(rollup); break;
			case OP_TOTAL_FAST: last[op] = total(proc, PMAPS_SRC_FAST); v[op][i] = last[op].ns; break;
			}
		}
	}
	/* Paired, before median() sorts them: the read and its replay, repetition by repetition. */
	double pair[64];
	int nreads = 0;
	for (int i = 0; i < reps; i++)
		pair[i] = v[OP_FAST][i] / v[OP_REPLAY][i];
	for (int i = 0; i < ncalls; i++)
		nreads += calls[i].file[0] != '\0';
	double sm = median(v[OP_SMAPS], reps), fl = median(v[OP_FLOOR], reps);
	double flt = median(v[OP_FLOOR_TEXT], reps);
	if (n > 0)
		printf("\n%ld VMAs, %s layout (%llu listed by PROCMAP_QUERY), %d repetitions, %s\n", n,
		       layout_name(layout), (unsigned long long)nvmas, reps,
		       geteuid() == 0 ? "as root" : "unprivileged");
	else
		printf("\n64 GiB sparse region, %ld MiB resident in runs of 64 pages (%llu mappings), "
		       "%d repetitions, %s\n", -n >> 20, (unsigned long long)nvmas, reps,
		       geteuid() == 0 ? "as root" : "unprivileged");
	printf("  %-32s %10s %9s %9s %8s %11s\n", "operation", "median", "vs floor", "vs smaps",
	       "allocs", "ns/mapping");
	for (int op = 0; op < OP_N; op++) {
		double med = median(v[op], reps);
		/* Each read against the floor of the VMA list it reads. */
		int on_text = op == OP_FLOOR_TEXT ||
		              ((op == OP_FAST || op == OP_PAGES || op == OP_REPLAY) && text) ||
		              (op == OP_FAST_OTHER && !text);
		double floor = on_text ? flt : fl;
		printf("  %-32s %7.3f ms", names[op], med / 1e6);
		if (op >= OP_FLOOR && op != OP_ROLLUP && op != OP_TOTAL_FAST)
			printf(" %8.3fx", med / floor);
		else
			printf(" %9s", "");
		printf(" %8.3fx", med / sm);
		if (op >= OP_FAST && op != OP_ROLLUP && op != OP_TOTAL_FAST)
			printf(" %8llu", (unsigned long long)last[op].allocs);
		else
			printf(" %8s", "");
		printf(" %11.1f\n", med / (double)(nvmas ? nvmas : 1));
	}
	printf("  (each pmaps read against the floor of the VMA list it reads; pmaps total from "
	       "fast %.3fx the bare smaps_rollup read)\n",
	       median(v[OP_TOTAL_FAST], reps) / median(v[OP_ROLLUP], reps));
	printf("  pmaps fast against its own kernel calls replayed bare (%d reads, %d PAGEMAP_SCAN%s): "
	       "%.3fx, the median of the repetitions' ratios\n", nreads, ncalls - nreads,
	       calls_lost ? ", some not recorded" : "", median(pair, reps));
	{
		/* What pmaps_cost_estimate() says beforehand, against what was measured. */
		struct pmaps_status st = {.size = sizeof(st)};
		static const struct { enum pmaps_source s; int op; } est[] = {
			{PMAPS_SRC_SMAPS, OP_SMAPS}, {PMAPS_SRC_ROLLUP, OP_ROLLUP},
			{PMAPS_SRC_FAST, OP_FAST}, {PMAPS_SRC_PAGES, OP_PAGES}};
		char msg[256];
		if (pmaps_status_read(proc, &st, msg, sizeof(msg)) == 0) {
			printf("  estimate before reading (pmaps_cost_estimate, from status and the "
			       "mapping count) / measured:");
			for (size_t i = 0; i < sizeof(est) / sizeof(est[0]); i++) {
				struct pmaps_cost k = {.size = sizeof(k)};
				pmaps_cost_estimate(&st, nvmas, est[i].s, NULL, &k);
				printf(" %s %.2f", pmaps_source_name(est[i].s),
				       (double)k.ns / median(v[est[i].op], reps));
			}
			printf("\n");
		}
	}
	if (whole) {
		char *fields[] = {PMAPS_TOOL_PATH, "maps", "--fields", "rss,anonymous,swap",
		                  t.pidstr, NULL};
		char *cat[] = {"/bin/cat", smaps, NULL};
		double w[2][64];
		long rss_tool = 0, rss_cat = 0;
		for (int i = 0; i < reps; i++) {
			int rev = i % 2;
			w[rev][i] = run_cmd(rev ? fields : cat, rev ? &rss_tool : &rss_cat);
			w[!rev][i] = run_cmd(rev ? cat : fields, rev ? &rss_cat : &rss_tool);
		}
		double c0 = median(w[0], reps), c1 = median(w[1], reps);
		printf("  whole process, output to /dev/null:\n");
		printf("  %-44s %9.3f ms %6.3fx   peak RSS %6ld KiB\n", "cat /proc/PID/smaps",
		       c0 / 1e6, 1.0, rss_cat);
		printf("  %-44s %9.3f ms %6.3fx   peak RSS %6ld KiB\n",
		       "pmaps maps --fields rss,anonymous,swap PID", c1 / 1e6, c1 / c0, rss_tool);
	}
	pmaps_maps_close(pages);
	pmaps_maps_close(fast_other);
	pmaps_maps_close(fast);
	pmaps_proc_close(proc);
	target_stop(&t);
}

int main(int argc, char **argv)
{
	long sizes[8] = {100, 1000, 10000, 60000, -(4l << 30)};
	int nsizes = 5, reps = 15, quick = 0, layouts = 3; /* bits: 1 << LAYOUT_* */

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--quick") == 0) {
			quick = 1;
			reps = 3;
			nsizes = 2;
		} else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
			reps = atoi(argv[++i]);
			if (reps < 1 || reps > 64)
				reps = 15;
		} else if (strcmp(argv[i], "--vmas") == 0 && i + 1 < argc) {
			nsizes = bench_sizes(argv[++i], sizes, 8);
		} else if (strcmp(argv[i], "--layout") == 0 && i + 1 < argc) {
			const char *l = argv[++i];
			layouts = strcmp(l, "mixed") == 0  ? 1 << LAYOUT_MIXED
			          : strcmp(l, "anon") == 0 ? 1 << LAYOUT_ANON
			          : strcmp(l, "both") == 0 ? 3
			                                   : 0;
			if (!layouts) {
				fprintf(stderr, "pmaps-bench-fast: --layout: mixed, anon or both, not '%s'\n", l);
				return 2;
			}
		} else {
			fprintf(stderr, "usage: pmaps-bench-fast [--quick] [--vmas N[,N...]] [--reps R] "
			                "[--layout mixed|anon|both]\n"
			                "  (a negative N: a 64 GiB sparse region with -N bytes resident)\n");
			return 2;
		}
	}
	pmaps_set_allocator(bench_alloc, bench_free, NULL);
	printf("pmaps-bench-fast: the fast and pages sources against the bare calls they make\n"
	       "(medians; floor = a bare loop making the same kernel calls, nothing else)\n");
	for (int l = LAYOUT_MIXED, first = 1; l <= LAYOUT_ANON; l++) {
		if (!(layouts & 1 << l))
			continue;
		for (int i = 0; i < nsizes; i++)
			if (sizes[i] > 0 || first) /* a sparse region has no layout: once */
				bench_target(sizes[i], (enum layout)l, reps, !quick && sizes[i] >= 10000);
		first = 0;
	}
	return sink == 42 ? 3 : 0;
}
