/* SPDX-License-Identifier: MIT */
/*
 * bench_maps.c - how close libpmaps' maps reader comes to the kernel writing
 * the text, on targets this program builds itself.
 *
 * Each target is a child process with N VMAs of 4 pages, cycling anonymous
 * read-write / file private read-only / anonymous read-only / file private
 * read-write (so neighbours never merge), the first two pages of each
 * touched, and every 40th VMA MADV_FREE'd. Every figure is a median over
 * interleaved repetitions (every other one in reverse order), printed beside
 * the floor measured in the same run: a bare read() loop over the same file
 * through a buffer of the same size.
 *
 *   pmaps-bench [--quick] [--vmas N[,N...]] [--reps R] [--bufsize KiB]
 *   pmaps-bench --hold N     (start a target, print its pid, keep it until stdin closes)
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pmaps.h"
#include "targets.h"

static size_t BUFSZ = PMAPS_DEFAULT_BUFSIZE;





/* ---- the measured operations ---- */

static char *rawbuf;
static uint64_t sink;

static double bare_read(const char *path)
{
	double t0 = now_ns();
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	uint64_t total = 0;

	if (fd < 0) {
		perror(path);
		exit(1);
	}
	while ((n = read(fd, rawbuf, BUFSZ)) > 0)
		total += (uint64_t)n;
	close(fd);
	sink += total;
	return now_ns() - t0;
}

static uint64_t bytes_of(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	uint64_t total = 0;

	while (fd >= 0 && (n = read(fd, rawbuf, BUFSZ)) > 0)
		total += (uint64_t)n;
	if (fd >= 0)
		close(fd);
	return total;
}

struct opstat {
	double ns;
	uint64_t allocs, bytes, rows;
};

static void die_lib(const char *what, int err, struct pmaps_maps *c)
{
	fprintf(stderr, "pmaps-bench: %s: %s\n", what, c ? pmaps_maps_errmsg(c) : pmaps_strerror(err));
	exit(1);
}

/* A scan through a cursor that is rewound, as a refresh would. */
static struct opstat scan(struct pmaps_maps *c, struct pmaps_group *g)
{
	const struct pmaps_mapping *m;
	struct opstat s = {0};
	uint64_t a0 = bench_allocs, b0 = bench_alloc_bytes, rss = 0;
	double t0 = now_ns();
	int r;

	if ((r = pmaps_maps_rewind(c)) < 0)
		die_lib("rewind", r, c);
	if (g)
		pmaps_group_reset(g);
	while ((r = pmaps_maps_next(c, &m)) > 0) {
		if (g)
			pmaps_group_add(g, m);
		else
			rss += m->v[PMAPS_F_RSS];
		s.rows++;
	}
	s.ns = now_ns() - t0;
	if (r < 0)
		die_lib("scan", r, c);
	s.allocs = bench_allocs - a0;
	s.bytes = bench_alloc_bytes - b0;
	sink += rss;
	return s;
}

/*
 * One run of an explain session opened once, as a live view refreshes:
 * status, the task directory, one smaps pass, smaps_rollup.
 */
static struct opstat explain(struct pmaps_explain_session *x)
{
	const struct pmaps_explain *res;
	struct opstat s = {0};
	uint64_t a0 = bench_allocs, b0 = bench_alloc_bytes;
	double t0 = now_ns();
	int r = pmaps_explain_run(x, &res);

	s.ns = now_ns() - t0;
	if (r < 0) {
		fprintf(stderr, "pmaps-bench: explain: %s\n", pmaps_explain_errmsg(x));
		exit(1);
	}
	s.rows = res->nmappings;
	s.allocs = bench_allocs - a0;
	s.bytes = bench_alloc_bytes - b0;
	sink += res->total[PMAPS_XC_RSS];
	return s;
}

/*
 * A working-set interval's two halves (pmaps wss): the reset, against a bare
 * write of clear_refs, and the read (status, then smaps with Referenced)
 * against the bare smaps read.
 */
static struct opstat wss_reset(struct pmaps_wss *w)
{
	struct opstat s = {0};
	uint64_t a0 = bench_allocs, b0 = bench_alloc_bytes;
	double t0 = now_ns();
	int r = pmaps_wss_reset(w);

	s.ns = now_ns() - t0;
	if (r < 0) {
		fprintf(stderr, "pmaps-bench: wss reset: %s\n", pmaps_wss_errmsg(w));
		exit(1);
	}
	s.allocs = bench_allocs - a0;
	s.bytes = bench_alloc_bytes - b0;
	return s;
}

static struct opstat wss_read(struct pmaps_wss *w)
{
	const struct pmaps_wss_result *res;
	struct opstat s = {0};
	uint64_t a0 = bench_allocs, b0 = bench_alloc_bytes;
	double t0 = now_ns();
	int r = pmaps_wss_read(w, &res);

	s.ns = now_ns() - t0;
	if (r < 0) {
		fprintf(stderr, "pmaps-bench: wss read: %s\n", pmaps_wss_errmsg(w));
		exit(1);
	}
	s.rows = res->x->nmappings;
	s.allocs = bench_allocs - a0;
	s.bytes = bench_alloc_bytes - b0;
	sink += res->x->referenced_total;
	return s;
}

static double bare_clear_refs(int fd)
{
	double t0 = now_ns();

	if (pwrite(fd, "1", 1, 0) != 1) {
		perror("pmaps-bench: clear_refs");
		exit(1);
	}
	return now_ns() - t0;
}

enum { OP_BARE, OP_MAP, OP_GROUP, OP_EXPLAIN, OP_WSS_READ, OP_BARE_ROLLUP, OP_TOTAL,
       OP_BARE_RESET, OP_WSS_RESET, OP_N };

static void bench_target(long n, int reps, int whole)
{
	struct target t;
	struct pmaps_proc *proc;
	struct pmaps_maps *cs, *cr;
	struct pmaps_group *g;
	struct pmaps_explain_session *xs;
	struct pmaps_wss *ws;
	char smaps[64], rollup[64], clear[64];
	int cfd;
	double v[OP_N][64];
	struct opstat last[OP_N] = {{0}};
	uint64_t opebench_allocs;
	int r;

	if (target_start(&t, n) < 0)
		exit(1);
	snprintf(smaps, sizeof(smaps), "/proc/%s/smaps", t.pidstr);
	snprintf(rollup, sizeof(rollup), "/proc/%s/smaps_rollup", t.pidstr);
	snprintf(clear, sizeof(clear), "/proc/%s/clear_refs", t.pidstr);
	if ((cfd = open(clear, O_WRONLY | O_CLOEXEC)) < 0) {
		perror(clear);
		exit(1);
	}
	bench_allocs = 0;
	if ((r = pmaps_proc_open(&proc, NULL, t.pidstr)) < 0)
		die_lib("open", r, NULL);
	if ((r = pmaps_maps_open(&cs, proc, PMAPS_SRC_SMAPS, BUFSZ)) < 0)
		die_lib("open smaps", r, cs);
	if ((r = pmaps_maps_open(&cr, proc, PMAPS_SRC_ROLLUP, BUFSZ)) < 0)
		die_lib("open rollup", r, cr);
	if ((r = pmaps_group_open(&g, PMAPS_GROUP_PATH)) < 0)
		die_lib("group", r, NULL);
	if ((r = pmaps_explain_open(&xs, proc, 0)) < 0)
		die_lib("explain session", r, NULL);
	if ((r = pmaps_wss_open(&ws, proc, PMAPS_WSS_AUTO, 0)) < 0)
		die_lib("wss session", r, NULL);
	opebench_allocs = bench_allocs;
	/* Warm up: page the text in, let the group table reach its size. */
	bare_read(smaps);
	scan(cs, NULL);
	scan(cs, g);
	explain(xs);
	wss_reset(ws);
	wss_read(ws);
	for (int i = 0; i < reps; i++) {
		/* Odd repetitions run in reverse order, so no operation always goes first. */
		for (int k = 0; k < OP_N; k++) {
			int op = i % 2 ? OP_N - 1 - k : k;
			switch (op) {
			case OP_BARE: v[op][i] = bare_read(smaps); break;
			case OP_MAP: last[op] = scan(cs, NULL); v[op][i] = last[op].ns; break;
			case OP_GROUP: last[op] = scan(cs, g); v[op][i] = last[op].ns; break;
			case OP_EXPLAIN: last[op] = explain(xs); v[op][i] = last[op].ns; break;
			case OP_BARE_ROLLUP: v[op][i] = bare_read(rollup); break;
			case OP_TOTAL: last[op] = scan(cr, NULL); v[op][i] = last[op].ns; break;
			case OP_WSS_READ: last[op] = wss_read(ws); v[op][i] = last[op].ns; break;
			case OP_BARE_RESET: v[op][i] = bare_clear_refs(cfd); break;
			case OP_WSS_RESET: last[op] = wss_reset(ws); v[op][i] = last[op].ns; break;
			}
		}
	}
	double bare = median(v[OP_BARE], reps), bare_r = median(v[OP_BARE_ROLLUP], reps);
	double bare_c = median(v[OP_BARE_RESET], reps);
	static const char *names[OP_N] = {"bare read() of smaps (floor)", "pmaps per mapping",
	                                  "pmaps grouped by path", "explain session, one run",
	                                  "wss read (status, smaps)",
	                                  "bare read() of smaps_rollup",
	                                  "pmaps total (smaps_rollup)",
	                                  "bare write() of clear_refs", "wss reset (clear_refs)"};
	printf("\n%ld VMAs, smaps %.1f MB, %d repetitions (%llu rows per scan; %llu allocations "
	       "to open handle, 2 cursors, a group and an explain session)\n",
	       n, (double)bytes_of(smaps) / 1e6, reps, (unsigned long long)last[OP_MAP].rows,
	       (unsigned long long)opebench_allocs);
	printf("  %-30s %12s %7s %10s %9s %11s\n", "operation", "median", "ratio", "allocs/op",
	       "B/op", "ns/mapping");
	for (int op = 0; op < OP_N; op++) {
		double med = median(v[op], reps);
		double floor = op >= OP_BARE_RESET ? bare_c : op >= OP_BARE_ROLLUP ? bare_r : bare;
		printf("  %-30s %9.3f ms %6.3fx", names[op], med / 1e6, med / floor);
		if (op == OP_BARE || op == OP_BARE_ROLLUP || op == OP_BARE_RESET)
			printf(" %10s %9s", "-", "-");
		else
			printf(" %10llu %9llu", (unsigned long long)last[op].allocs,
			       (unsigned long long)last[op].bytes);
		if (op != OP_BARE_ROLLUP && op != OP_TOTAL)
			printf(" %11.1f", med / (double)n);
		if (op == OP_BARE_RESET)
			printf("   (the reset's floor: each reset below against it)");
		printf("\n");
	}
	if (whole) {
		char *tool[] = {PMAPS_TOOL_PATH, "maps", t.pidstr, NULL};
		char *json[] = {PMAPS_TOOL_PATH, "maps", "--json", t.pidstr, NULL};
		char *expl[] = {PMAPS_TOOL_PATH, "explain", t.pidstr, NULL};
		char *cat[] = {"/bin/cat", smaps, NULL};
		double w[4][64];
		long rss_tool = 0, rss_json = 0, rss_cat = 0, rss_expl = 0;
		for (int i = 0; i < reps; i++) {
			int rev = i % 2;
			w[rev ? 2 : 0][i] = run_cmd(rev ? json : cat, rev ? &rss_json : &rss_cat);
			w[1][i] = run_cmd(tool, &rss_tool);
			w[3][i] = run_cmd(expl, &rss_expl);
			w[rev ? 0 : 2][i] = run_cmd(rev ? cat : json, rev ? &rss_cat : &rss_json);
		}
		double c0 = median(w[0], reps), c1 = median(w[1], reps), c2 = median(w[2], reps);
		double c3 = median(w[3], reps);
		printf("  whole process, output to /dev/null:\n");
		printf("  %-30s %9.3f ms %6.3fx   peak RSS %6ld KiB\n", "cat /proc/PID/smaps", c0 / 1e6,
		       1.0, rss_cat);
		printf("  %-30s %9.3f ms %6.3fx   peak RSS %6ld KiB\n", "pmaps maps PID", c1 / 1e6,
		       c1 / c0, rss_tool);
		printf("  %-30s %9.3f ms %6.3fx   peak RSS %6ld KiB\n", "pmaps maps --json PID",
		       c2 / 1e6, c2 / c0, rss_json);
		printf("  %-30s %9.3f ms %6.3fx   peak RSS %6ld KiB\n", "pmaps explain PID", c3 / 1e6,
		       c3 / c0, rss_expl);
	}
	pmaps_wss_close(ws);
	close(cfd);
	pmaps_explain_close(xs);
	pmaps_group_close(g);
	pmaps_maps_close(cr);
	pmaps_maps_close(cs);
	pmaps_proc_close(proc);
	target_stop(&t);
}

int main(int argc, char **argv)
{
	long sizes[8] = {100, 1000, 10000, 60000};
	int nsizes = 4, reps = 15, quick = 0;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--quick") == 0) {
			quick = 1;
			reps = 3;
			sizes[0] = 100;
			sizes[1] = 1000;
			nsizes = 2;
		} else if (strcmp(argv[i], "--hold") == 0 && i + 1 < argc) {
			/* For bench/peers.sh: a target with N VMAs until stdin closes. */
			struct target t;
			char c;
			if (target_start(&t, strtol(argv[++i], NULL, 10)) < 0)
				return 1;
			printf("%s\n", t.pidstr);
			fflush(stdout);
			while (read(0, &c, 1) > 0)
				;
			target_stop(&t);
			return 0;
		} else if (strcmp(argv[i], "--bufsize") == 0 && i + 1 < argc) {
			BUFSZ = (size_t)strtoul(argv[++i], NULL, 10) * 1024;
			if (BUFSZ < 4096)
				BUFSZ = 4096;
		} else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
			reps = atoi(argv[++i]);
			if (reps < 1 || reps > 64)
				reps = 15;
		} else if (strcmp(argv[i], "--vmas") == 0 && i + 1 < argc) {
			nsizes = bench_sizes(argv[++i], sizes, 8);
		} else {
			fprintf(stderr, "usage: pmaps-bench [--quick] [--vmas N[,N...]] [--reps R] [--bufsize KiB] | --hold N\n");
			return 2;
		}
	}
	pmaps_set_allocator(bench_alloc, bench_free, NULL);
	rawbuf = malloc(BUFSZ);
	if (!rawbuf)
		return 1;
	printf("pmaps-bench: libpmaps maps reader against a bare read() of the same file\n"
	       "(buffer %zu KiB for both; medians; ratio = median / floor median)\n",
	       BUFSZ / 1024);
	for (int i = 0; i < nsizes; i++)
		bench_target(sizes[i], reps, !quick && (i == nsizes - 1 || sizes[i] >= 10000));
	free(rawbuf);
	return sink == 42 ? 3 : 0;
}
