/* SPDX-License-Identifier: MIT */
/*
 * bench_lean.c - pmaps-bench-lean: what a user runs, as a whole process
 * (fresh exec, start-up and exit included), against the raw way to get the
 * same bytes, side by side in one run:
 *
 *   pmaps --version              /bin/true
 *   pmaps maps --total PID       cat smaps_rollup maps          (1k, 60k VMAs:
 *                                its Maps and VSize are the maps text's)
 *   pmaps maps --total -f pss,shared_clean,swap PID
 *                                cat /proc/PID/smaps_rollup     (the same, no count)
 *   pmaps maps PID               cat /proc/PID/smaps            (10k, 60k VMAs)
 *   pmaps pages --exact PID      this program's bare PAGEMAP_SCAN walk of PID
 *                                (--bare-scan; a 64 GiB sparse region, 2 GiB
 *                                resident): run unprivileged, both, since
 *                                as root pmaps joins kpageflags and kpagecount
 *   pmaps phys --summary         dd if=/proc/kpageflags of=/dev/null bs=1M
 *                                (as root)
 *   pmaps top --once             this program's bare loop: every process's
 *                                status and smaps_rollup read, nothing
 *                                parsed (a fresh exec of itself, --bare-top);
 *                                on the machine at rest, then with 200
 *                                processes more (bench/herd.h)
 *
 * and the peak RSS of each (wait4's ru_maxrss, the median of 5 runs, each
 * started from a small fresh process: rss_of()). The targets are bench/
 * targets.c's mixed layout: anonymous and file-backed private mappings
 * cycling, so neighbours never merge. Every round runs each pair in turn,
 * the order reversed every other round; figures are medians of --reps
 * rounds (default 15); ratio = pmaps median / raw median; --tool PATH
 * measures another build of pmaps (an older one, for a before and after). The goals
 * (docs/internals/LIBRARIES.md, bench/README.md) are printed beside them:
 * this program reports, it does not fail on a slow machine.
 */
#include <dirent.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "herd.h"
#include "targets.h"

static char rawbuf[1 << 16];
static char *pmaps_path = PMAPS_TOOL_PATH; /* --tool: another build of pmaps to measure */

/* One pass as pmaps top --once reads: status, then smaps_rollup, of every process. */
static int bare_top(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	unsigned long long bytes = 0;
	char path[sizeof("/proc//smaps_rollup") + sizeof(e->d_name)];

	if (!d)
		return 1;
	while ((e = readdir(d))) {
		static const char *files[] = {"status", "smaps_rollup"};
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		for (int f = 0; f < 2; f++) {
			ssize_t n;
			int fd;
			snprintf(path, sizeof(path), "/proc/%s/%s", e->d_name, files[f]);
			fd = open(path, O_RDONLY | O_CLOEXEC);
			if (fd < 0)
				continue;
			while ((n = read(fd, rawbuf, sizeof(rawbuf))) > 0)
				bytes += (unsigned long long)n;
			close(fd);
		}
	}
	closedir(d);
	printf("%llu\n", bytes);
	return 0;
}

/* One walk of PAGEMAP_SCAN over PID's user address space, nothing parsed (targets.h). */
static int bare_scan(const char *pid)
{
	char path[64];
	int64_t pages;
	int fd;

	snprintf(path, sizeof(path), "/proc/%s/pagemap", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 1;
	pages = bench_scan_walk(fd);
	close(fd);
	if (pages < 0)
		return 1;
	printf("%lld\n", (long long)pages);
	return 0;
}

static char self[4096];

/*
 * Run as `pmaps-bench-lean --rss-of CMD...`: starts CMD (its output to
 * /dev/null), waits, prints its ru_maxrss in KiB. A child's ru_maxrss is
 * at least what its parent had when it forked (the kernel carries the
 * copy's high-water mark over the exec), so a peak is measured from this
 * small fresh process, not from the benchmark that has grown.
 */
static int rss_of(char **argv)
{
	long kb = 0;

	run_cmd(argv, &kb); /* exits 1 when CMD fails */
	printf("%ld\n", kb);
	return 0;
}

/* The median of 5 peaks of ARGV, each from a fresh --rss-of; -1 when one failed. */
static long peak_rss(char **argv)
{
	long v[5];

	for (int i = 0; i < 5; i++) {
		char *args[16] = {self, "--rss-of"};
		char out[64] = "";
		int pfd[2], k = 2;
		for (char **a = argv; *a && k < 15; a++)
			args[k++] = *a;
		args[k] = NULL;
		if (pipe(pfd) < 0)
			return -1;
		pid_t p = fork();
		if (p == 0) {
			dup2(pfd[1], 1);
			close(pfd[0]);
			execv(self, args);
			_exit(127);
		}
		close(pfd[1]);
		ssize_t n = read(pfd[0], out, sizeof(out) - 1);
		close(pfd[0]);
		int st;
		if (p < 0 || waitpid(p, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0 || n <= 0)
			return -1;
		out[n] = '\0';
		v[i] = strtol(out, NULL, 10);
	}
	for (int i = 1; i < 5; i++)
		for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
			long t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return v[2];
}

struct pair {
	const char *what, *raw_what;
	char **tool, **raw;
	double goal;   /* the ratio to stay under; 0: none */
	long rss_goal; /* KiB the tool's peak RSS stays under; 0: none */
};

static void measure(const struct pair *p, int reps)
{
	double t[64], r[64];
	long rss_t = 0, rss_r = 0, m;

	/* Warm up: the files and the binaries in the page cache. */
	run_cmd(p->tool, &m);
	run_cmd(p->raw, &m);
	for (int i = 0; i < reps; i++) {
		if (i % 2) {
			r[i] = run_cmd(p->raw, &m);
			rss_r = m > rss_r ? m : rss_r;
			t[i] = run_cmd(p->tool, &m);
			rss_t = m > rss_t ? m : rss_t;
		} else {
			t[i] = run_cmd(p->tool, &m);
			rss_t = m > rss_t ? m : rss_t;
			r[i] = run_cmd(p->raw, &m);
			rss_r = m > rss_r ? m : rss_r;
		}
	}
	double mt = median(t, reps), mr = median(r, reps);
	(void)rss_t, (void)rss_r;
	rss_t = peak_rss(p->tool);
	rss_r = peak_rss(p->raw);
	char goal[64] = "";
	if (p->goal > 0)
		snprintf(goal, sizeof(goal), "<= %.1fx %s", p->goal, mt / mr <= p->goal ? "yes" : "NO");
	printf("  %-34s %8.3f ms %6ld KiB | %-30s %8.3f ms %6ld KiB | %6.2fx  %s\n", p->what,
	       mt / 1e6, rss_t, p->raw_what, mr / 1e6, rss_r, mt / mr, goal);
	if (p->rss_goal)
		printf("  %-34s peak RSS %ld KiB: goal < %ld KiB %s\n", "", rss_t, p->rss_goal,
		       rss_t < p->rss_goal ? "yes" : "NO");
}

static void header(const char *title)
{
	printf("\n%s\n  %-34s %11s %10s | %-30s %11s %10s | %7s\n", title, "pmaps", "median",
	       "peak RSS", "raw", "median", "peak RSS", "ratio");
}

int main(int argc, char **argv)
{
	long maps_total[] = {1000, 60000}, maps_full[] = {10000, 60000};
	int reps = 15, quick = 0;
	ssize_t n;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--bare-top") == 0)
			return bare_top();
		if (strcmp(argv[i], "--bare-scan") == 0 && i + 1 < argc)
			return bare_scan(argv[i + 1]);
		if (strcmp(argv[i], "--rss-of") == 0 && i + 1 < argc)
			return rss_of(argv + i + 1);
		if (strcmp(argv[i], "--quick") == 0) {
			quick = 1;
			reps = 3;
		} else if (strcmp(argv[i], "--tool") == 0 && i + 1 < argc) {
			pmaps_path = argv[++i];
		} else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
			reps = atoi(argv[++i]);
			if (reps < 1 || reps > 64)
				reps = 15;
		} else {
			fprintf(stderr, "usage: pmaps-bench-lean [--quick] [--reps R] [--tool PMAPS]\n");
			return 2;
		}
	}
	herd_guard(NULL);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return 1;
	self[n] = '\0';
	printf("pmaps-bench-lean: whole processes (fresh exec, output to /dev/null), pmaps against\n"
	       "the raw read of the same bytes; medians of %d interleaved rounds\n(pmaps: %s)\n",
	       reps, pmaps_path);

	header("start-up");
	{
		char *tool[] = {pmaps_path, "--version", NULL};
		char *raw[] = {"/bin/true", NULL};
		struct pair p = {"pmaps --version", "/bin/true", tool, raw, 1.3, 0};
		measure(&p, reps);
	}
	for (int k = 0; k < 2; k++) {
		struct target t;
		char path[64], what[64], title[96];
		long nv = quick ? maps_total[k] / 10 : maps_total[k];
		if (target_start(&t, nv) < 0)
			return 1;
		char maps[64];
		snprintf(path, sizeof(path), "/proc/%s/smaps_rollup", t.pidstr);
		snprintf(maps, sizeof(maps), "/proc/%s/maps", t.pidstr);
		/* The default columns: the rollup, then the maps text for Maps and VSize. */
		char *tool[] = {pmaps_path, "maps", "--total", t.pidstr, NULL};
		char *raw[] = {"/bin/cat", path, maps, NULL};
		snprintf(title, sizeof(title), "%ld VMAs (mixed anon and file), the totals", nv);
		snprintf(what, sizeof(what), "pmaps maps --total PID");
		header(title);
		struct pair p = {what, "cat smaps_rollup maps", tool, raw, k == 0 ? 1.3 : 1.1, 0};
		measure(&p, reps);
		/* Columns smaps_rollup has (no page source gives them): the rollup alone. */
		char *tool2[] = {pmaps_path, "maps", "--total", "-f", "pss,shared_clean,swap",
		                 t.pidstr, NULL};
		char *raw2[] = {"/bin/cat", path, NULL};
		struct pair p2 = {"pmaps maps --total -f pss,... PID", "cat /proc/PID/smaps_rollup",
		                  tool2, raw2, k == 0 ? 1.3 : 1.1, 0};
		measure(&p2, reps);
		target_stop(&t);
	}
	for (int k = 0; k < 2; k++) {
		struct target t;
		char path[64], title[96];
		long nv = quick ? maps_full[k] / 10 : maps_full[k];
		if (target_start(&t, nv) < 0)
			return 1;
		snprintf(path, sizeof(path), "/proc/%s/smaps", t.pidstr);
		char *tool[] = {pmaps_path, "maps", t.pidstr, NULL};
		char *raw[] = {"/bin/cat", path, NULL};
		snprintf(title, sizeof(title), "%ld VMAs (mixed anon and file), every mapping", nv);
		header(title);
		struct pair p = {"pmaps maps PID", "cat /proc/PID/smaps", tool, raw, 1.3,
		                 k == 1 && !quick ? 2048 : 0};
		measure(&p, reps);
		target_stop(&t);
	}
	{
		/*
		 * Pages: both unprivileged (nobody), the target too, so that neither
		 * joins kpageflags; --exact, since the default paces a walk this long.
		 */
		struct target t;
		long resident = quick ? 64l << 20 : 2l << 30;
		char title[96];
		if (geteuid() == 0) {
			pid_t kid;
			int st;
			fflush(stdout); /* what is written so far, once */
			kid = fork();
			if (kid == 0) {
				if (setgid(65534) || setuid(65534))
					_exit(1);
				prctl(PR_SET_DUMPABLE, 1);
				if (target_start(&t, -resident) < 0)
					_exit(1);
				char *tool[] = {pmaps_path, "pages", "--exact", t.pidstr, NULL};
				char *raw[] = {self, "--bare-scan", t.pidstr, NULL};
				snprintf(title, sizeof(title), "a 64 GiB sparse region, %ld MiB resident, "
				         "unprivileged", resident >> 20);
				header(title);
				struct pair p = {"pmaps pages --exact PID", "bare PAGEMAP_SCAN walk", tool, raw,
				                 1.3, 0};
				measure(&p, reps);
				fflush(stdout);
				target_stop(&t);
				_exit(0);
			}
			if (kid < 0 || waitpid(kid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
				return 1;
			char *tool[] = {pmaps_path, "phys", "--summary", NULL};
			char *raw[] = {"/bin/dd", "if=/proc/kpageflags", "of=/dev/null", "bs=1M",
			               "status=none", NULL};
			header("the machine's physical memory (as root)");
			struct pair q = {"pmaps phys --summary", "dd of /proc/kpageflags", tool, raw, 1.5, 0};
			measure(&q, reps);
		} else {
			header("pages and phys: not measured (needs root: an unprivileged target, "
			       "kpageflags)");
		}
	}
	{
		char *tool[] = {pmaps_path, "top", "--once", NULL};
		char *raw[] = {self, "--bare-top", NULL};
		struct herd h;
		int nherd = quick ? 20 : 200;
		char title[96];
		header("every process on this machine (at rest: mostly kernel threads)");
		struct pair p = {"pmaps top --once", "status+smaps_rollup loop", tool, raw, 1.2, 0};
		measure(&p, reps);
		/* The same with N processes of a few hundred KiB each (bench/herd.h). */
		int r = herd_start_or_skip(&h, nherd, NULL);
		if (r <= 0)
			return r < 0;
		snprintf(title, sizeof(title), "every process, with %d more (each ~300 KiB, sharing 128 KiB)",
		         nherd);
		header(title);
		measure(&p, reps);
		herd_stop(&h);
	}
	return 0;
}
