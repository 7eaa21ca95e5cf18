/* SPDX-License-Identifier: MIT */
/*
 * stall.c - how much each way of reading a process stalls that process.
 *
 * The victim, a forked child pinned to CPU 0, holds --vmas small mappings
 * of 4 pages (alternating protections, so that they never merge; one page
 * of each touched) and one anonymous region of --resident-mib MiB, all of
 * it touched. Then it loops: mmap() 64 KiB, write one page of it (a
 * fault), munmap() it, timing each of the three with CLOCK_MONOTONIC into
 * arrays in shared memory. mmap() and munmap() take its mmap_lock for
 * writing, so they wait for any reader holding it; the fault only needs
 * the VMA (per-VMA locks) and shows whether a reader gets in its way
 * anyway. The victim and its figures are the stall harness (stall.h,
 * stall_harness.c), which pmaps-bench-serve shares.
 *
 * The parent, pinned to CPU 1, runs each reader of the table below in a
 * loop for --seconds while the victim records; a baseline phase with no
 * reader comes first and again last. The ratio column is the reader's
 * mmap() p99.9 over the mean of the two baselines' p99.9. A reader that
 * only spins the CPU is the control: what any busy neighbour costs the
 * victim on a machine of two CPUs. The taps are the floor of a reader that
 * takes the mmap_lock at all (tap()). The readers named "cmd: ..." run the
 * pmaps tool, a fresh process each time, as a user would (its output to
 * /dev/null; PID is the victim's).
 *
 *   pmaps-bench-stall [--quick] [--seconds S] [--vmas N] [--resident-mib M]
 *                     [--only 'NAME;NAME'] [--list]
 *
 * Exits 0 when every reader asked for printed a row of figures (one the
 * kernel lacks, ENOTTY, prints "unsupported" and counts as done), 1 when
 * one failed or the victim died, 2 on bad usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <pmaps.h>

#include "stall.h"
#include "uapi.h"


/* PAGEMAP_SCAN's end: EFAULT past TASK_SIZE_MAX, the last page below 2^47 on x86-64. */
#define SCAN_END PMAPS__USER_TOP47
#define MAX_READS (1u << 20)       /* read durations kept per phase, for the median */

struct reader;
typedef int (*read_fn)(struct reader *r, pid_t pid);

/* One row of the table; what follows the first fields is state. */
struct reader {
	const char *name;
	read_fn read_once;
	const char *file;          /* read_text: the file under /proc/PID */
	uint64_t max_pages;        /* read_scan: per PAGEMAP_SCAN call, 0 = no cap */
	long pause_ns;             /* read_scan: between calls; tap: between taps */
	int src;                   /* read_pmaps_maps: enum pmaps_source */
	const struct pmaps_policy *policy; /* read_pmaps_maps: NULL for the default walk */
	unsigned pages_opts;       /* read_pmaps_pages: PMAPS_PAGES_* */
	const char *const *argv;   /* run_tool: pmaps's arguments, "PID" for the victim's */

	int fd;                    /* -1 or open */
	struct pmaps_maps *maps;
	struct pmaps_pages *pages;
	char err[160];
	/* results */
	int run, failed, unsupported;
	uint64_t reads;
	double ms_median;
	struct stall_stats st;
};

static int read_text(struct reader *r, pid_t pid);
static int read_query(struct reader *r, pid_t pid);
static int read_scan(struct reader *r, pid_t pid);
static int read_pmaps_maps(struct reader *r, pid_t pid);
static int read_pmaps_pages(struct reader *r, pid_t pid);
static int spin(struct reader *r, pid_t pid);
static int tap(struct reader *r, pid_t pid);
static int run_tool(struct reader *r, pid_t pid);

#define ARGS(...) .argv = (const char *const[]){__VA_ARGS__, NULL}

/* pmaps --gentle's walk for the page sources. */
static const struct pmaps_policy gentle = PMAPS_POLICY_GENTLE;

/* Gentler still: the same steps, longer pauses (a slower walk, a rarer wait for the target). */
static const struct pmaps_policy gentle_1ms = {
	.size = sizeof(struct pmaps_policy), .step_pages = PMAPS_POLICY_GENTLE_STEP, .pause_us = 1000,
};
static const struct pmaps_policy gentle_5ms = {
	.size = sizeof(struct pmaps_policy), .step_pages = PMAPS_POLICY_GENTLE_STEP, .pause_us = 5000,
};
/* Longer steps, the same pauses: fewer pauses for a walk of dense memory. */
static const struct pmaps_policy gentle_2k = {
	.size = sizeof(struct pmaps_policy), .step_pages = 2048, .pause_us = 100,
};
static const struct pmaps_policy gentle_4k = {
	.size = sizeof(struct pmaps_policy), .step_pages = 4096, .pause_us = 100,
};
static const struct pmaps_policy gentle_4k_200 = {
	.size = sizeof(struct pmaps_policy), .step_pages = 4096, .pause_us = 200,
};
/* Pauses after each 200 us of walking, not after every call. */
static const struct pmaps_policy hold_200 = {
	.size = sizeof(struct pmaps_policy), .step_pages = 512, .hold_us = 200, .pause_us = 100,
};
static const struct pmaps_policy hold_100 = {
	.size = sizeof(struct pmaps_policy), .step_pages = 512, .hold_us = 100, .pause_us = 100,
};
/* The paced policy of the one-shot commands (PMAPS_POLICY_PACED) since 2026-12-03. */
static const struct pmaps_policy hold_50 = {
	.size = sizeof(struct pmaps_policy), .step_pages = 512, .hold_us = 50, .pause_us = 100,
};

/* The readers, in the order they run. A new one is one line here. */
#define READER(n, fn) .name = (n), .read_once = (fn)
static struct reader readers[] = {
	{ READER("status", read_text), .file = "status" },
	{ READER("maps", read_text), .file = "maps" },
	{ READER("procmap_query", read_query) },
	{ READER("smaps", read_text), .file = "smaps" },
	{ READER("smaps_rollup", read_text), .file = "smaps_rollup" },
	{ READER("scan_whole", read_scan), .max_pages = 0 },
	{ READER("scan_512", read_scan), .max_pages = 512 },
	{ READER("scan_512_pause", read_scan), .max_pages = 512, .pause_ns = 50000 },
	{ READER("scan_64_pause", read_scan), .max_pages = 64, .pause_ns = 50000 },
	{ READER("pmaps smaps", read_pmaps_maps), .src = PMAPS_SRC_SMAPS },
	{ READER("pmaps rollup", read_pmaps_maps), .src = PMAPS_SRC_ROLLUP },
	{ READER("pmaps pages", read_pmaps_pages) },
	{ READER("pmaps pages --gentle", read_pmaps_pages), .pages_opts = PMAPS_PAGES_GENTLE },
	{ READER("pmaps fast", read_pmaps_maps), .src = PMAPS_SRC_FAST },
	{ READER("pmaps fast gentle", read_pmaps_maps), .src = PMAPS_SRC_FAST, .policy = &gentle },
	{ READER("pmaps fast, 1 ms pauses", read_pmaps_maps), .src = PMAPS_SRC_FAST, .policy = &gentle_1ms },
	{ READER("pmaps fast, 5 ms pauses", read_pmaps_maps), .src = PMAPS_SRC_FAST, .policy = &gentle_5ms },
	{ READER("pmaps fast, 2048-page steps", read_pmaps_maps), .src = PMAPS_SRC_FAST, .policy = &gentle_2k },
	{ READER("pmaps fast, 4096-page steps", read_pmaps_maps), .src = PMAPS_SRC_FAST, .policy = &gentle_4k },
	{ READER("pmaps fast, 4096-page steps, 200 us", read_pmaps_maps), .src = PMAPS_SRC_FAST, .policy = &gentle_4k_200 },
	{ READER("pmaps fast, pause after 200 us", read_pmaps_maps), .src = PMAPS_SRC_FAST, .policy = &hold_200 },
	{ READER("pmaps fast, pause after 100 us", read_pmaps_maps), .src = PMAPS_SRC_FAST, .policy = &hold_100 },
	{ READER("pmaps fast, pause after 50 us", read_pmaps_maps), .src = PMAPS_SRC_FAST, .policy = &hold_50 },
	{ READER("pmaps pages-source, 2048-page steps", read_pmaps_maps), .src = PMAPS_SRC_PAGES, .policy = &gentle_2k },
	{ READER("pmaps pages-source, pause after 200 us", read_pmaps_maps), .src = PMAPS_SRC_PAGES, .policy = &hold_200 },
	{ READER("pmaps pages-source", read_pmaps_maps), .src = PMAPS_SRC_PAGES },
	{ READER("pmaps pages-source gentle", read_pmaps_maps), .src = PMAPS_SRC_PAGES, .policy = &gentle },
	{ READER("spin (control)", spin) },
	{ READER("tap every 1 ms", tap), .pause_ns = 1000000 },
	{ READER("tap every 100 us", tap), .pause_ns = 100000 },
	/* The one-shot commands as a user runs them, their defaults first. */
	{ READER("cmd: maps", run_tool), ARGS("maps", "PID") },
	{ READER("cmd: maps --fields rss,anonymous,swap", run_tool),
	  ARGS("maps", "--fields", "rss,anonymous,swap", "PID") },
	{ READER("cmd: maps --total", run_tool), ARGS("maps", "--total", "PID") },
	{ READER("cmd: maps --total --fields uss,pss", run_tool),
	  ARGS("maps", "--total", "--fields", "uss,pss", "PID") },
	{ READER("cmd: explain", run_tool), ARGS("explain", "PID") },
	{ READER("cmd: pages", run_tool), ARGS("pages", "PID") },
	{ READER("cmd: pages --summary", run_tool), ARGS("pages", "--summary", "PID") },
	{ READER("cmd: maps --gentle --fields rss,anonymous,swap", run_tool),
	  ARGS("maps", "--gentle", "--fields", "rss,anonymous,swap", "PID") },
	{ READER("cmd: top --once --pid PID", run_tool), ARGS("top", "--once", "--pid", "PID") },
	/*
	 * The command that writes: a reset (clear_refs: the mmap_lock held for
	 * writing over a walk of every page table), 1 ms, then smaps. No
	 * default runs it, so no goal: its row says what it costs.
	 */
	{ READER("cmd: wss -i 1ms", run_tool), ARGS("wss", "-i", "1ms", "PID") },
};
#define N_READERS (sizeof(readers) / sizeof(readers[0]))

static pid_t victim = -1;
static struct pmaps_proc *proc; /* the victim, for the pmaps readers */
static char buf[64 << 10];
static char name_buf[4096];
static struct pmaps__page_region vec[4096];
static uint64_t *read_ns;

static void warn(const char *what, const char *msg)
{
	fprintf(stderr, "pmaps-bench-stall: %s: %s\n", what, msg);
}

static int set_err(struct reader *r, const char *what, int err)
{
	snprintf(r->err, sizeof(r->err), "%s: %s", what, strerror(err));
	return -err;
}

/* ------------------------------------------------------------------ */
/* Readers: each reads the victim once, whole; 0 or a negative errno.  */

static int open_proc_file(struct reader *r, pid_t pid, const char *file)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return set_err(r, path, errno);
	return fd;
}

/* A text file, opened and read to its end through 64 KiB, as a tool would. */
static int read_text(struct reader *r, pid_t pid)
{
	int fd = open_proc_file(r, pid, r->file), err = 0;
	ssize_t n;

	if (fd < 0)
		return fd;
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno != EINTR) {
			err = set_err(r, r->file, errno);
			break;
		}
	}
	if (close(fd) < 0 && !err)
		err = set_err(r, "close", errno);
	return err;
}

/* Every VMA, its name included, one PROCMAP_QUERY ioctl each. */
static int read_query(struct reader *r, pid_t pid)
{
	struct pmaps__procmap_query q;
	uint64_t addr = 0;

	if (r->fd < 0) {
		r->fd = open_proc_file(r, pid, "maps");
		if (r->fd < 0)
			return r->fd;
	}
	for (;;) {
		memset(&q, 0, sizeof(q));
		q.size = sizeof(q);
		q.query_flags = PMAPS__QUERY_COVERING_OR_NEXT_VMA;
		q.query_addr = addr;
		q.vma_name_addr = (uint64_t)(uintptr_t)name_buf;
		q.vma_name_size = sizeof(name_buf);
		if (ioctl(r->fd, PMAPS_PROCMAP_QUERY, &q) < 0) {
			if (errno == ENOENT)
				return 0;
			if (errno == EINTR)
				continue;
			return set_err(r, "PROCMAP_QUERY", errno);
		}
		if (q.vma_end <= addr)
			return set_err(r, "PROCMAP_QUERY went backwards", EIO);
		addr = q.vma_end;
	}
}

/* PAGEMAP_SCAN over all of user space, R->max_pages at a time. */
static int read_scan(struct reader *r, pid_t pid)
{
	struct pmaps__pm_scan_arg a;
	uint64_t at = 0;

	if (r->fd < 0) {
		r->fd = open_proc_file(r, pid, "pagemap");
		if (r->fd < 0)
			return r->fd;
	}
	while (at < SCAN_END) {
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.start = at;
		a.end = SCAN_END;
		a.vec = (uint64_t)(uintptr_t)vec;
		a.vec_len = sizeof(vec) / sizeof(vec[0]);
		a.max_pages = r->max_pages;
		a.category_anyof_mask = PMAPS__CAT_PRESENT | PMAPS__CAT_SWAPPED;
		a.return_mask = PMAPS__CAT_PRESENT | PMAPS__CAT_SWAPPED | PMAPS__CAT_FILE |
		                PMAPS__CAT_HUGE | PMAPS__CAT_PFNZERO;
		if (ioctl(r->fd, PMAPS_PAGEMAP_SCAN, &a) < 0) {
			if (errno == EINTR && a.walk_end > at) {
				at = a.walk_end;
				continue;
			}
			return set_err(r, "PAGEMAP_SCAN", errno);
		}
		if (a.walk_end <= at)
			return set_err(r, "PAGEMAP_SCAN made no progress", EIO);
		at = a.walk_end;
		if (r->pause_ns && at < SCAN_END)
			stall_sleep_ns(r->pause_ns);
	}
	return 0;
}

static int pmaps_fail(struct reader *r, const char *what, int err, const char *msg)
{
	snprintf(r->err, sizeof(r->err), "%s: %s%s%s", what, pmaps_strerror(err),
	         msg && *msg ? ": " : "", msg ? msg : "");
	return err;
}

/* Opens R's maps cursor on SRC (with R's policy) the first time, rewinds it after. */
static int maps_start(struct reader *r, int src)
{
	int err;

	if (!r->maps) {
		err = pmaps_maps_open(&r->maps, proc, (enum pmaps_source)src, 0);
		if (err < 0) {
			pmaps_fail(r, "pmaps_maps_open", err, r->maps ? pmaps_maps_errmsg(r->maps) : NULL);
			pmaps_maps_close(r->maps);
			r->maps = NULL;
			return err;
		}
		if (r->policy && (err = pmaps_maps_set_policy(r->maps, r->policy)) < 0)
			return pmaps_fail(r, "pmaps_maps_set_policy", err, pmaps_maps_errmsg(r->maps));
		return 0;
	}
	err = pmaps_maps_rewind(r->maps);
	if (err < 0)
		return pmaps_fail(r, "pmaps_maps_rewind", err, pmaps_maps_errmsg(r->maps));
	return 0;
}

/* A maps cursor on R->src read to its end. */
static int read_pmaps_maps(struct reader *r, pid_t pid)
{
	const struct pmaps_mapping *m;
	int err;

	(void)pid;
	err = maps_start(r, r->src);
	if (err < 0)
		return err;
	while ((err = pmaps_maps_next(r->maps, &m)) > 0)
		;
	if (err < 0)
		return pmaps_fail(r, "pmaps_maps_next", err, pmaps_maps_errmsg(r->maps));
	return 0;
}

/* What `pmaps pages` does: the mappings from maps, each one's pages summed. */
static int read_pmaps_pages(struct reader *r, pid_t pid)
{
	const struct pmaps_mapping *m;
	struct pmaps_page_summary sum;
	int err;

	(void)pid;
	if (!r->pages) {
		err = pmaps_pages_open(&r->pages, proc, PMAPS_PAGES_AUTO, r->pages_opts);
		if (err < 0) {
			pmaps_fail(r, "pmaps_pages_open", err,
			           r->pages ? pmaps_pages_errmsg(r->pages) : NULL);
			pmaps_pages_close(r->pages);
			r->pages = NULL;
			return err;
		}
	}
	err = maps_start(r, PMAPS_SRC_MAPS);
	if (err < 0)
		return err;
	while ((err = pmaps_maps_next(r->maps, &m)) > 0) {
		if (m->start >= SCAN_END)
			continue; /* [vsyscall]: no page tables to walk */
		memset(&sum, 0, sizeof(sum));
		sum.size = sizeof(sum);
		err = pmaps_pages_summarize(r->pages, m->start, m->end, &sum);
		if (err < 0)
			return pmaps_fail(r, "pmaps_pages_summarize", err,
			                  pmaps_pages_errmsg(r->pages));
	}
	if (err < 0)
		return pmaps_fail(r, "pmaps_maps_next", err, pmaps_maps_errmsg(r->maps));
	return 0;
}

/* The control: a CPU kept busy for a millisecond, reading nothing. */
static int spin(struct reader *r, pid_t pid)
{
	uint64_t end = stall_now_ns() + 1000000;

	(void)r;
	(void)pid;
	while (stall_now_ns() < end)
		;
	return 0;
}

/*
 * The floor of any reader that takes the mmap_lock: a PAGEMAP_SCAN of the
 * first page, where nothing is ever mapped (mmap_min_addr), takes the lock
 * for reading and gives it back at once, every R->pause_ns, 100 times a
 * read. What the victim's mmap() loses to it is the price of one
 * acquisition that meets its own, whatever the hold: a walk that pauses as
 * long between its calls can do no better.
 */
static int tap(struct reader *r, pid_t pid)
{
	struct pmaps__pm_scan_arg a;

	if (r->fd < 0) {
		r->fd = open_proc_file(r, pid, "pagemap");
		if (r->fd < 0)
			return r->fd;
	}
	for (int i = 0; i < 100; i++) {
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.start = 0;
		a.end = 4096;
		a.vec = (uint64_t)(uintptr_t)vec;
		a.vec_len = 1;
		a.category_anyof_mask = PMAPS__CAT_PRESENT;
		a.return_mask = PMAPS__CAT_PRESENT;
		if (ioctl(r->fd, PMAPS_PAGEMAP_SCAN, &a) < 0 && errno != EINTR)
			return set_err(r, "PAGEMAP_SCAN", errno);
		stall_sleep_ns(r->pause_ns);
	}
	return 0;
}

/* The pmaps tool with R->argv, run once to its exit (status 0, or the reader failed). */
static int run_tool(struct reader *r, pid_t pid)
{
	static char tool[] = PMAPS_TOOL_PATH, args[14][64];
	char *argv[16];
	size_t n = 0;
	pid_t kid;
	int st;

	argv[n++] = tool;
	for (const char *const *a = r->argv; *a && n < 15; a++, n++) {
		if (strcmp(*a, "PID") == 0)
			snprintf(args[n - 1], sizeof(args[0]), "%d", (int)pid);
		else
			snprintf(args[n - 1], sizeof(args[0]), "%s", *a);
		argv[n] = args[n - 1];
	}
	argv[n] = NULL;
	kid = fork();
	if (kid < 0)
		return set_err(r, "fork", errno);
	if (kid == 0) {
		int fd = open("/dev/null", O_WRONLY);
		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	while (waitpid(kid, &st, 0) < 0)
		if (errno != EINTR)
			return set_err(r, "waitpid", errno);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		snprintf(r->err, sizeof(r->err), "%s %s ...: exit status %d", PMAPS_TOOL_PATH,
		         r->argv[0], WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
		return -EIO;
	}
	return 0;
}

static void reader_close(struct reader *r)
{
	if (r->fd >= 0 && close(r->fd) < 0)
		warn(r->name, strerror(errno));
	r->fd = -1;
	pmaps_pages_close(r->pages);
	r->pages = NULL;
	pmaps_maps_close(r->maps);
	r->maps = NULL;
}

/* ------------------------------------------------------------------ */
/* The phases                                                          */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * One phase: the victim records while R (NULL: nobody, the baseline) reads
 * it over and over for SECS. Returns -1 when the victim is gone; a failing
 * reader is R->failed and ends its phase early.
 */
static int phase(struct reader *r, double secs, struct stall_stats *st)
{
	uint64_t t0, end, nr = 0;

	if (stall_record() < 0)
		return -1;
	t0 = stall_now_ns();
	end = t0 + (uint64_t)(secs * 1e9);
	for (uint64_t t = t0; t < end; t = stall_now_ns()) {
		uint64_t a;
		int err;

		if (!r) {
			stall_sleep_ns(end - t > 10000000 ? 10000000 : (long)(end - t));
			continue;
		}
		a = stall_now_ns();
		err = r->read_once(r, victim);
		if (err < 0) {
			if (err == -ENOTTY)
				r->unsupported = 1;
			else
				r->failed = 1;
			fprintf(stderr, "pmaps-bench-stall: %s: %s\n", r->name, r->err);
			break;
		}
		if (nr < MAX_READS)
			read_ns[nr] = stall_now_ns() - a;
		r->reads++;
		nr++;
	}
	secs = (double)(stall_now_ns() - t0) / 1e9;
	if (stall_stop(st, secs) < 0)
		return -1;
	if (r) {
		reader_close(r);
		if (nr > MAX_READS)
			nr = MAX_READS;
		qsort(read_ns, nr, sizeof(uint64_t), cmp_u64);
		r->ms_median = nr ? (double)read_ns[(nr - 1) / 2] / 1e6 : 0;
		r->run = 1;
	}
	return 0;
}

static void print_row(const char *name, const struct reader *r, const struct stall_stats *st,
                      double base_p999)
{
	char reads[24] = "-", ms[24] = "-";

	if (r && (r->failed || r->unsupported)) {
		printf("%-44s %s\n", name, r->failed ? "failed" : "unsupported");
		return;
	}
	if (r) {
		snprintf(reads, sizeof(reads), "%llu", (unsigned long long)r->reads);
		snprintf(ms, sizeof(ms), "%.3f", r->ms_median);
	}
	stall_print_row(name, reads, ms, st, base_p999);
}

static int selected(const char *only, const char *name)
{
	size_t len = strlen(name);

	for (const char *s = only; s && *s;) {
		const char *e = strchr(s, ';');
		size_t l = e ? (size_t)(e - s) : strlen(s);

		if (l == len && memcmp(s, name, len) == 0)
			return 1;
		s = e ? e + 1 : NULL;
	}
	return !only;
}

static int parse_num(const char *s, double lo, double hi, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: pmaps-bench-stall [--quick] [--seconds S] [--vmas N] "
	                "[--resident-mib M] [--only 'NAME;NAME'] [--list]\n");
}

int main(int argc, char **argv)
{
	double secs = 3, vmas = 20000, mib = 4096;
	const char *only = NULL;
	struct stall_stats base[2];
	struct utsname un;
	int rc = 1, err;
	char pid[16];

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(a, "--quick") == 0) {
			secs = 0.3;
			vmas = 1000;
			mib = 64;
		} else if (strcmp(a, "--list") == 0) {
			for (size_t k = 0; k < N_READERS; k++)
				printf("%s\n", readers[k].name);
			return 0;
		} else if (v && strcmp(a, "--seconds") == 0 && parse_num(v, 0.01, 3600, &secs) == 0) {
			i++;
		} else if (v && strcmp(a, "--vmas") == 0 && parse_num(v, 2, 60000, &vmas) == 0) {
			i++;
		} else if (v && strcmp(a, "--resident-mib") == 0 &&
		           parse_num(v, 1, 1 << 20, &mib) == 0) {
			i++;
		} else if (v && strcmp(a, "--only") == 0) {
			only = v;
			i++;
		} else {
			usage();
			return 2;
		}
	}
	if (only) {
		/* Every name given must be a reader's: a typo is not an empty run. */
		for (const char *s = only; *s;) {
			const char *e = strchr(s, ';');
			size_t l = e ? (size_t)(e - s) : strlen(s), k;

			for (k = 0; k < N_READERS; k++)
				if (strlen(readers[k].name) == l && memcmp(readers[k].name, s, l) == 0)
					break;
			if (k == N_READERS) {
				fprintf(stderr, "pmaps-bench-stall: no reader %.*s (--list names them)\n",
				        (int)l, s);
				return 2;
			}
			if (!e)
				break;
			s = e + 1;
		}
	}
	for (size_t k = 0; k < N_READERS; k++)
		readers[k].fd = -1;

	read_ns = malloc(MAX_READS * sizeof(*read_ns));
	if (!read_ns) {
		warn("malloc", strerror(errno));
		return 1;
	}
	victim = stall_start((long)vmas, (long)mib, secs);
	if (victim < 0)
		goto out;
	snprintf(pid, sizeof(pid), "%d", (int)victim);
	err = pmaps_proc_open(&proc, NULL, pid);
	if (err < 0) {
		warn("pmaps_proc_open", pmaps_strerror(err));
		goto out;
	}

	if (phase(NULL, secs, &base[0]) < 0)
		goto out;
	for (size_t k = 0; k < N_READERS; k++)
		if (selected(only, readers[k].name) && phase(&readers[k], secs, &readers[k].st) < 0)
			goto out;
	if (phase(NULL, secs, &base[1]) < 0)
		goto out;

	double base_p999 = stall_base_p999_us(&base[0], &base[1]);
	if (uname(&un) < 0)
		snprintf(un.release, sizeof(un.release), "?");
	printf("pmaps-bench-stall: the victim's mmap()/fault/munmap() of 64 KiB while each reader "
	       "loops\nvictim: %ld VMAs of 4 pages + %ld MiB resident; %.1f s a reader; "
	       "Linux %s, %ld CPUs\n"
	       "latencies in us; max = the worst single mmap(), fault or munmap(); "
	       "x base = mmap p99.9 / the mean of both baselines'\n\n",
	       (long)vmas, (long)mib, secs, un.release, sysconf(_SC_NPROCESSORS_ONLN));
	stall_print_header();
	print_row("baseline", NULL, &base[0], base_p999);
	rc = 0;
	for (size_t k = 0; k < N_READERS; k++) {
		struct reader *r = &readers[k];

		if (!r->run)
			continue;
		print_row(r->name, r, &r->st, base_p999);
		if (r->failed)
			rc = 1;
	}
	print_row("baseline (end)", NULL, &base[1], base_p999);
	{
		/*
		 * The commands against the control: a default one-shot read within
		 * 3x its mmap() p99.9, --gentle and top within 2x (DESIGN.md).
		 * Beside it, against the tap every 100 us when it ran: the floor of
		 * a walk that pauses 100 us between its calls.
		 */
		const struct reader *ctl = NULL, *tp = NULL;
		int head = 0;
		for (size_t k = 0; k < N_READERS; k++) {
			const struct reader *q = &readers[k];
			if (!q->run || q->failed)
				continue;
			if (q->read_once == spin)
				ctl = q;
			if (q->read_once == tap && q->pause_ns == 100000 && q->st.mmap_p999)
				tp = q;
		}
		for (size_t k = 0; ctl && k < N_READERS; k++) {
			const struct reader *r = &readers[k];
			double x, goal;
			if (r->read_once != run_tool || !r->run || r->failed)
				continue;
			if (!head++)
				printf("\n%-44s %9s %10s %9s %6s %9s\n", "command (whole process, a fresh one each "
				       "time)", "ms/read", "mmap p99.9", "x control", "goal", "x tap");
			x = ctl->st.mmap_p999 ? (double)r->st.mmap_p999 / ctl->st.mmap_p999 : 0;
			goal = strstr(r->name, "--gentle") || strstr(r->name, "top ") ? 2 : 3;
			printf("%-44s %9.3f %7.1f us %8.1fx ", r->name, r->ms_median, r->st.mmap_p999 / 1e3,
			       x);
			if (strstr(r->name, "wss"))
				printf("%6s %4s", "-", "");
			else
				printf("%5.0fx %-4s", goal, x <= goal ? "ok" : "OVER");
			if (tp)
				printf(" %7.1fx", (double)r->st.mmap_p999 / tp->st.mmap_p999);
			printf("%s\n", strstr(r->name, "wss") ? " (writes: no goal)" : "");
		}
		if (ctl)
			printf("%-44s %9s %7.1f us %8.1fx\n", "spin (control)", "-", ctl->st.mmap_p999 / 1e3,
			       1.0);
		if (ctl && tp)
			printf("%-44s %9s %7.1f us %8.1fx %11s %7.1fx\n", "tap every 100 us (floor)", "-",
			       tp->st.mmap_p999 / 1e3, (double)tp->st.mmap_p999 / ctl->st.mmap_p999, "",
			       1.0);
	}
out:
	for (size_t k = 0; k < N_READERS; k++)
		reader_close(&readers[k]);
	pmaps_proc_close(proc);
	stall_end();
	free(read_ns);
	return rc;
}
