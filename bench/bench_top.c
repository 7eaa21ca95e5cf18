/* SPDX-License-Identifier: MIT */
/*
 * bench_top.c - one refresh of every process (pmaps_survey_refresh(), what
 * `pmaps top` does each interval) against the bare C loop it is measured by:
 * list /proc, and for every pid open, read to the end and close its status
 * and its smaps_rollup, parsing nothing.
 *
 * The targets are this program's own children, 200 and then 2,000 of them
 * (herd.h, shared with pmaps-bench-serve): each touches a few hundred KiB of
 * private memory and reads a region it shares with its siblings (MAP_SHARED,
 * made before the forks, so its PSS is below its RSS), then blocks on a pipe:
 * quiescent while measured. They live in one process group of their own with
 * PR_SET_PDEATHSIG, and are killed and reaped at the end, on an error and on
 * SIGINT/SIGTERM too. The rest of the machine's processes are read by both
 * sides alike.
 *
 * Measured, interleaved repetition by repetition (every other one in reverse
 * order), medians, ratios to the bare loop of the same run:
 *   - the first refresh of a fresh survey (open + refresh), default options
 *     and PMAPS_SURVEY_EXACT;
 *   - a steady refresh of a survey that has refreshed before (the targets
 *     quiescent, so it re-reads only what is due), with how many processes
 *     it re-read and kept;
 *   - bare loops reading status alone and statm alone: what a steady
 *     refresh is made of (statm for a process listed before whose counters
 *     stay put, status for the others);
 *   - refreshes at pmaps top's pace, ten times faster (every 200 ms with
 *     max_age 1 s), each one counted: the mean includes the refreshes in
 *     which every row's figures fall due at once;
 *   - allocations per refresh (the library's allocator hook), the survey's
 *     memory (bytes allocated, and peak RSS growth measured in a child);
 *   - agreement: every child's row has the PSS and USS its smaps_rollup says
 *     (a mismatch is a failure exit).
 *
 *   pmaps-bench-top [--quick] [--procs N[,N...]] [--reps R]
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
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

#include "herd.h"
#include "pmaps.h"
#include "targets.h"


static uint64_t sink;

/* ---- the bare loop ---- */

static char rawbuf[16 * 1024];
static char dents[32 * 1024];

static void read_whole(int procfd, const char *rel)
{
	int fd = openat(procfd, rel, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return; /* exited since the listing */
	while ((n = read(fd, rawbuf, sizeof(rawbuf))) > 0)
		sink += (uint64_t)n;
	close(fd);
}

enum bare { BARE_ROLLUP, BARE_STATUS, BARE_STATM };

/*
 * Every pid under /proc: status and (BARE_ROLLUP) smaps_rollup opened,
 * read until read() returns 0, closed; or statm alone (BARE_STATM: what a
 * steady refresh reads of a process it listed before). Returns the time;
 * *NPROCS the pids.
 */
static double bare_loop(enum bare how, unsigned *nprocs)
{
	double t0 = now_ns();
	int procfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	unsigned count = 0;
	ssize_t n;

	if (procfd < 0) {
		perror("/proc");
		exit(1);
	}
	while ((n = getdents64(procfd, dents, sizeof(dents))) > 0) {
		for (ssize_t off = 0; off < n;) {
			struct dirent64 *d = (struct dirent64 *)(void *)(dents + off);
			char path[64];
			size_t len = strlen(d->d_name);
			off += d->d_reclen;
			if (d->d_name[0] < '1' || d->d_name[0] > '9' || len > 20)
				continue;
			count++;
			memcpy(path, d->d_name, len);
			if (how == BARE_STATM) {
				memcpy(path + len, "/statm", sizeof("/statm"));
				read_whole(procfd, path);
				continue;
			}
			memcpy(path + len, "/status", sizeof("/status"));
			read_whole(procfd, path);
			if (how == BARE_ROLLUP) {
				memcpy(path + len, "/smaps_rollup", sizeof("/smaps_rollup"));
				read_whole(procfd, path);
			}
		}
	}
	close(procfd);
	if (nprocs)
		*nprocs = count;
	return now_ns() - t0;
}

/* ---- the survey ---- */

static void die_survey(const char *what, int err, struct pmaps_survey *s)
{
	fprintf(stderr, "pmaps-bench-top: %s: %s\n", what, s ? pmaps_survey_errmsg(s) : pmaps_strerror(err));
	herd_kill();
	exit(1);
}

static struct pmaps_survey *survey_open(uint32_t flags)
{
	struct pmaps_survey_opts o = {.size = sizeof(o), .flags = flags};
	struct pmaps_survey *s;
	int r = pmaps_survey_open(&s, NULL, &o);

	if (r < 0)
		die_survey("open", r, NULL);
	return s;
}

struct refresh {
	double ns;
	uint64_t allocs;
	struct pmaps_survey_stats st;
};

static void survey_refresh(struct pmaps_survey *s, struct refresh *out, double t0, uint64_t a0)
{
	int r = pmaps_survey_refresh(s);

	out->ns = now_ns() - t0;
	out->allocs = bench_allocs - a0;
	if (r < 0)
		die_survey("refresh", r, s);
	out->st.size = sizeof(out->st);
	pmaps_survey_stats(s, &out->st);
}

/* A fresh survey's first refresh: open + refresh, timed together. */
static struct refresh first_refresh(uint32_t flags)
{
	struct refresh out = {0};
	uint64_t a0 = bench_allocs;
	double t0 = now_ns();
	struct pmaps_survey *s = survey_open(flags);

	survey_refresh(s, &out, t0, a0);
	pmaps_survey_close(s);
	return out;
}

static struct refresh steady_refresh(struct pmaps_survey *s)
{
	struct refresh out = {0};
	uint64_t a0 = bench_allocs;

	survey_refresh(s, &out, now_ns(), a0);
	return out;
}

/*
 * pmaps top's pace, ten times faster: a refresh every INTERVAL_MS with
 * max_age 5 * INTERVAL_MS (top: every 2 s, max_age 10 s), so each row's
 * costly figures fall due every fifth refresh. Every refresh counts here,
 * the ones that re-read everything too: their mean is what top costs.
 */
#define PACE_MS 200
#define PACE_REFRESHES 20

struct paced {
	double mean_ns, max_ns;
	double mean_read;
	uint32_t max_read;
	uint64_t allocs;
};

static struct paced paced_refreshes(void)
{
	struct pmaps_survey_opts o = {.size = sizeof(o), .max_age_ns = 5ull * PACE_MS * 1000000ull};
	struct paced p = {0};
	struct pmaps_survey *s;
	struct refresh rf;
	double next;
	int r = pmaps_survey_open(&s, NULL, &o);

	if (r < 0)
		die_survey("open", r, NULL);
	survey_refresh(s, &rf, now_ns(), bench_allocs);
	next = now_ns();
	for (int i = 0; i < PACE_REFRESHES; i++) {
		struct timespec ts;
		double wait;
		next += PACE_MS * 1e6;
		wait = next - now_ns();
		if (wait > 0) {
			ts.tv_sec = (time_t)(wait / 1e9);
			ts.tv_nsec = (long)(wait - (double)ts.tv_sec * 1e9);
			nanosleep(&ts, NULL);
		}
		survey_refresh(s, &rf, now_ns(), bench_allocs);
		p.mean_ns += rf.ns / PACE_REFRESHES;
		p.max_ns = rf.ns > p.max_ns ? rf.ns : p.max_ns;
		p.mean_read += (double)rf.st.read / PACE_REFRESHES;
		p.max_read = rf.st.read > p.max_read ? rf.st.read : p.max_read;
		p.allocs += rf.allocs;
	}
	pmaps_survey_close(s);
	return p;
}

/* ---- agreement ---- */

struct rollup {
	uint64_t rss, pss, uss; /* bytes */
};

/* The value of KEY ("Pss:") in smaps_rollup's text, in bytes; 0 when absent. */
static uint64_t rollup_value(const char *text, const char *key)
{
	size_t klen = strlen(key);
	uint64_t v = 0;

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, key, klen) != 0)
			continue;
		p += klen;
		while (*p == ' ')
			p++;
		while (*p >= '0' && *p <= '9')
			v = v * 10 + (uint64_t)(*p++ - '0');
		return v << 10;
	}
	return 0;
}

static int rollup_read(pid_t pid, struct rollup *r)
{
	char path[64];
	size_t have = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	while (have < sizeof(rawbuf) - 1 && (n = read(fd, rawbuf + have, sizeof(rawbuf) - 1 - have)) > 0)
		have += (size_t)n;
	close(fd);
	rawbuf[have] = 0;
	r->rss = rollup_value(rawbuf, "Rss:");
	r->pss = rollup_value(rawbuf, "Pss:");
	r->uss = rollup_value(rawbuf, "Private_Clean:") + rollup_value(rawbuf, "Private_Dirty:");
	return 0;
}

struct agree {
	int checked, mismatches, unread, moved, transient;
	struct rollup typical; /* the first child's, to show the targets */
};

#define AGREE_ATTEMPTS 4

static void print_mismatch(const char *what, pid_t pid, const struct rollup *r,
                           const struct pmaps_survey_row *row)
{
	fprintf(stderr,
	        "  %s, pid %d: smaps_rollup Pss %llu USS %llu, row%s Pss %llu USS %llu (present "
	        "%#llx, flags %#x, source %s)\n",
	        what, (int)pid, (unsigned long long)r->pss, (unsigned long long)r->uss,
	        row ? "" : " (none)", row ? (unsigned long long)row->v[PMAPS_SV_PSS] : 0ull,
	        row ? (unsigned long long)row->v[PMAPS_SV_USS] : 0ull,
	        row ? (unsigned long long)row->present : 0ull, row ? row->flags : 0u,
	        row ? pmaps_source_name(row->source) : "-");
}

/*
 * Each child's smaps_rollup read before and after a fresh survey's first
 * refresh: where both reads agree, the row's PSS and USS must equal them.
 * A row without them is a mismatch with EXACT; with the defaults it is
 * counted as unread (left by the budget, and marked).
 *
 * A child's PSS moves whenever a page it shares gains or loses a sharer:
 * this process breaking a copy-on-write page, or any process on the
 * machine starting or ending with the same libc pages mapped. So a child
 * whose two reads differ, or whose row differs from reads that agree, is
 * read again with a fresh survey, AGREE_ATTEMPTS times in all; only a
 * difference on the last attempt is a mismatch (a wrong figure repeats;
 * a sharer coming and going does not).
 */
static struct agree agreement(const struct herd *h, uint32_t flags, struct rollup *before,
                              struct rollup *after)
{
	struct agree a = {0};
	/* 0: done; 1: to read; 2: to read again after its row differed */
	int *todo = calloc((size_t)h->n, sizeof(int)), left = h->n;

	if (!todo) {
		perror("pmaps-bench-top");
		herd_kill();
		exit(1);
	}
	for (int i = 0; i < h->n; i++)
		todo[i] = 1;
	for (int attempt = 0; attempt < AGREE_ATTEMPTS && left > 0; attempt++) {
		int last = attempt == AGREE_ATTEMPTS - 1;
		struct pmaps_survey *s = survey_open(flags);
		struct refresh rf;
		for (int i = 0; i < h->n; i++)
			if (todo[i] && rollup_read(h->pids[i], &before[i]) < 0)
				before[i].pss = UINT64_MAX;
		survey_refresh(s, &rf, now_ns(), bench_allocs);
		for (int i = 0; i < h->n; i++)
			if (todo[i] && rollup_read(h->pids[i], &after[i]) < 0)
				after[i].pss = UINT64_MAX - 1;
		left = 0;
		for (int i = 0; i < h->n; i++) {
			const struct pmaps_survey_row *row;
			const uint64_t want = 1ull << PMAPS_SV_PSS | 1ull << PMAPS_SV_USS;
			if (!todo[i])
				continue;
			if (before[i].pss != after[i].pss || before[i].uss != after[i].uss) {
				left++;
				continue;
			}
			row = pmaps_survey_find(s, h->pids[i]);
			if (row && (row->present & want) != want && !(flags & PMAPS_SURVEY_EXACT) &&
			    (row->flags & PMAPS_SURVEY_SKIPPED)) {
				todo[i] = 0;
				a.checked++;
				a.unread++;
				continue;
			}
			if (!row || (row->present & want) != want || row->v[PMAPS_SV_PSS] != after[i].pss ||
			    row->v[PMAPS_SV_USS] != after[i].uss) {
				if (!last) {
					if (a.transient + a.mismatches < 10)
						print_mismatch("differed, reading again", h->pids[i], &after[i], row);
					todo[i] = 2;
					left++;
					continue;
				}
				if (a.mismatches < 10)
					print_mismatch("MISMATCH", h->pids[i], &after[i], row);
				a.mismatches++;
			} else if (todo[i] == 2) {
				a.transient++;
			}
			todo[i] = 0;
			a.checked++;
		}
		pmaps_survey_close(s);
	}
	a.moved = left;
	a.typical = after[0];
	free(todo);
	return a;
}

/* ---- memory ---- */

static long status_kb(const char *key)
{
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, rawbuf, sizeof(rawbuf) - 1);
	const char *p;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return -1;
	rawbuf[n] = 0;
	p = strstr(rawbuf, key);
	return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

struct memory {
	long hwm_growth_kb; /* VmHWM after - VmRSS before, in a child */
	uint64_t allocs, bytes; /* at open and the first refresh: how many, bytes asked for */
	uint64_t held;          /* bytes the survey holds after the refreshes */
};

/*
 * In a child of its own (so nothing this program did before counts): the
 * peak RSS reset (clear_refs 5, Linux >= 4.0), a survey opened, refreshed
 * once and 5 times more, and VmHWM read.
 */
static struct memory survey_memory(void)
{
	struct memory m = {-1, 0, 0, 0};
	int fds[2], st;
	pid_t p;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return m;
	if ((p = fork()) == 0) {
		int fd = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
		long before;
		uint64_t a0, b0, h0 = bench_alloc_held;
		struct pmaps_survey *s;
		struct refresh rf;
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		herd_pgid = 0; /* the herd is the parent's to end */
		if (fd < 0 || write(fd, "5", 1) != 1)
			_exit(1);
		close(fd);
		before = status_kb("VmRSS:");
		a0 = bench_allocs;
		b0 = bench_alloc_bytes;
		s = survey_open(0);
		survey_refresh(s, &rf, now_ns(), a0);
		m.allocs = bench_allocs - a0;
		m.bytes = bench_alloc_bytes - b0;
		for (int i = 0; i < 5; i++)
			survey_refresh(s, &rf, now_ns(), bench_allocs);
		m.hwm_growth_kb = status_kb("VmHWM:") - before;
		m.held = bench_alloc_held - h0;
		pmaps_survey_close(s);
		if (write(fds[1], &m, sizeof(m)) != sizeof(m))
			_exit(1);
		_exit(0);
	}
	close(fds[1]);
	if (p > 0) {
		if (read(fds[0], &m, sizeof(m)) != sizeof(m))
			m.hwm_growth_kb = -1;
		waitpid(p, &st, 0);
	}
	close(fds[0]);
	return m;
}

/* ---- one size ---- */

enum {
	OP_BARE, OP_BARE_STATUS, OP_BARE_STATM, OP_FIRST, OP_FIRST_EXACT, OP_STEADY,
	OP_STEADY_EXACT, OP_N
};
static const char *const names[OP_N] = {
	"bare loop: status + smaps_rollup", "bare loop: status only",
	"bare loop: statm only", "first refresh (open + refresh)", "first refresh, EXACT",
	"steady refresh", "steady refresh, EXACT",
};
/* The goals (docs/DESIGN.md), as ratios to the bare loop; 0: none. */
static const double goals[OP_N] = {0, 0, 0, 1.2, 1.2, 0.3, 0};

#define MAXREPS 64

static double median_u(const uint32_t *v, int n)
{
	double d[MAXREPS];

	for (int i = 0; i < n; i++)
		d[i] = v[i];
	return median(d, n);
}

static int bench_size(int n, int reps)
{
	struct herd h;
	struct pmaps_survey *steady, *steady_exact;
	struct refresh rf[OP_N][MAXREPS];
	double v[OP_N][MAXREPS];
	uint32_t rd[OP_N][MAXREPS], kp[OP_N][MAXREPS];
	struct rollup *before, *after;
	unsigned nprocs = 0;
	uint64_t max_allocs[OP_N] = {0};
	int r;
	int fails = 0;

	if ((r = herd_start_or_skip(&h, n, NULL)) <= 0)
		return r < 0;
	before = calloc((size_t)n, sizeof(*before));
	after = calloc((size_t)n, sizeof(*after));
	if (!before || !after) {
		herd_stop(&h);
		return 1;
	}
	struct memory mem = survey_memory();

	/* Warm up: the caches, and this process's copy-on-write breaks. */
	bare_loop(BARE_ROLLUP, &nprocs);
	first_refresh(0);
	first_refresh(PMAPS_SURVEY_EXACT);
	steady = survey_open(0);
	steady_exact = survey_open(PMAPS_SURVEY_EXACT);
	steady_refresh(steady);
	steady_refresh(steady_exact);

	memset(rf, 0, sizeof(rf));
	for (int i = 0; i < reps; i++) {
		for (int k = 0; k < OP_N; k++) {
			int op = i % 2 ? OP_N - 1 - k : k;
			switch (op) {
			case OP_BARE: v[op][i] = bare_loop(BARE_ROLLUP, &nprocs); break;
			case OP_BARE_STATUS: v[op][i] = bare_loop(BARE_STATUS, NULL); break;
			case OP_BARE_STATM: v[op][i] = bare_loop(BARE_STATM, NULL); break;
			case OP_FIRST: rf[op][i] = first_refresh(0); break;
			case OP_FIRST_EXACT: rf[op][i] = first_refresh(PMAPS_SURVEY_EXACT); break;
			case OP_STEADY: rf[op][i] = steady_refresh(steady); break;
			case OP_STEADY_EXACT: rf[op][i] = steady_refresh(steady_exact); break;
			}
			if (op >= OP_FIRST) {
				v[op][i] = rf[op][i].ns;
				rd[op][i] = rf[op][i].st.read;
				kp[op][i] = rf[op][i].st.kept;
				if (rf[op][i].allocs > max_allocs[op])
					max_allocs[op] = rf[op][i].allocs;
			}
		}
	}
	pmaps_survey_close(steady_exact);
	pmaps_survey_close(steady);

	printf("\n%d children (%u processes under /proc), %d repetitions, %s\n", n, nprocs, reps,
	       geteuid() == 0 ? "as root" : "unprivileged");
	printf("  %-34s %10s %7s %-14s %5s %5s %5s %7s %6s\n", "operation", "median", "ratio",
	       "goal", "rows", "read", "kept", "skipped", "allocs");
	double floor = median(v[OP_BARE], reps);
	for (int op = 0; op < OP_N; op++) {
		double med = median(v[op], reps);
		char goal[32] = "";
		if (goals[op] > 0)
			snprintf(goal, sizeof(goal), "<= %.1fx %s", goals[op],
			         med / floor <= goals[op] ? "ok" : "MISSED");
		printf("  %-34s %7.2f ms %6.3fx %-14s", names[op], med / 1e6, med / floor, goal);
		if (op >= OP_FIRST) {
			const struct refresh *last = &rf[op][reps - 1];
			printf(" %5u %5.0f %5.0f %7u %6llu", last->st.processes, median_u(rd[op], reps),
			       median_u(kp[op], reps), last->st.skipped,
			       (unsigned long long)max_allocs[op]);
		}
		printf("\n");
	}
	{
		uint32_t most = 0;
		for (int i = 0; i < reps; i++)
			most = rd[OP_STEADY][i] > most ? rd[OP_STEADY][i] : most;
		printf("  (rows, skipped: the last refresh's; read, kept: medians; steady re-read at most "
		       "%u processes;\n   allocs: the most in one refresh, the first's including the "
		       "open)\n", most);
	}
	{
		struct paced p = paced_refreshes();
		printf("  at top's pace, 10x faster (every %d ms, max_age %d ms; %d refreshes): mean "
		       "%.2f ms %.3fx, slowest %.2f ms %.3fx;\n   re-read %.0f processes a refresh on "
		       "average, %u at most; %llu allocations\n",
		       PACE_MS, 5 * PACE_MS, PACE_REFRESHES, p.mean_ns / 1e6, p.mean_ns / floor,
		       p.max_ns / 1e6, p.max_ns / floor, p.mean_read, p.max_read,
		       (unsigned long long)p.allocs);
		if (p.allocs) {
			printf("  FAILED: paced refreshes allocated\n");
			fails++;
		}
	}
	if (mem.hwm_growth_kb >= 0)
		printf("  survey memory: %llu allocations at open + first refresh (%llu KiB asked for, "
		       "as the tables grew),\n   %llu KiB held; peak RSS +%ld KiB over 6 refreshes "
		       "(VmHWM, in a child)\n",
		       (unsigned long long)mem.allocs, (unsigned long long)(mem.bytes >> 10),
		       (unsigned long long)(mem.held >> 10), mem.hwm_growth_kb);

	static const uint32_t agree_flags[2] = {0, PMAPS_SURVEY_EXACT};
	for (int f = 0; f < 2; f++) {
		struct agree a = agreement(&h, agree_flags[f], before, after);
		printf("  agreement with smaps_rollup%s: %d of %d children checked, %d PSS or USS "
		       "mismatches", f ? ", EXACT" : "", a.checked, h.n, a.mismatches);
		if (a.unread)
			printf(", %d left by the budget", a.unread);
		if (a.transient)
			printf(", %d equal when read again", a.transient);
		if (a.moved)
			printf(", %d moved between reads every time", a.moved);
		printf(" (a child: RSS %llu KiB, PSS %llu KiB, USS %llu KiB)\n",
		       (unsigned long long)(a.typical.rss >> 10), (unsigned long long)(a.typical.pss >> 10),
		       (unsigned long long)(a.typical.uss >> 10));
		fails += a.mismatches > 0;
	}
	for (int op = OP_STEADY; op < OP_N; op++)
		if (max_allocs[op]) {
			printf("  FAILED: %s allocated %llu times in one refresh\n", names[op],
			       (unsigned long long)max_allocs[op]);
			fails++;
		}
	free(before);
	free(after);
	herd_stop(&h);
	return fails;
}

int main(int argc, char **argv)
{
	long sizes[8] = {200, 2000};
	int nsizes = 2, reps = 15, fails = 0;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--quick") == 0) {
			reps = 3;
			sizes[0] = 20;
			nsizes = 1;
		} else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
			reps = atoi(argv[++i]);
			if (reps < 1 || reps > MAXREPS)
				reps = 15;
		} else if (strcmp(argv[i], "--procs") == 0 && i + 1 < argc) {
			nsizes = bench_sizes(argv[++i], sizes, 8);
		} else {
			fprintf(stderr, "usage: pmaps-bench-top [--quick] [--procs N[,N...]] [--reps R]\n");
			return 2;
		}
	}
	herd_guard(NULL);
	pmaps_set_allocator(bench_alloc, bench_free, NULL);
	printf("pmaps-bench-top: one refresh of every process (pmaps top's) against a bare loop\n"
	       "reading every /proc/PID/status and smaps_rollup (medians; ratio: to that loop in the "
	       "same run)\n");
	for (int i = 0; i < nsizes; i++)
		if (sizes[i] > 0)
			fails += bench_size((int)sizes[i], reps);
	if (fails)
		printf("FAILED\n");
	return fails ? 1 : sink == 42 ? 3 : 0;
}
