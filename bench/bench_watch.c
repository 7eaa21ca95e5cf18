/* SPDX-License-Identifier: MIT */
/*
 * bench_watch.c - pmaps watch at its shortest interval on a large process:
 * does it keep time, and what does a sample cost against the bare reads it
 * is made of?
 *
 * The target is bench/targets.c's: N VMAs (default 10,000) of 4 pages. The
 * tool runs as a user runs it, `pmaps watch --interval 10ms --count 500
 * --jsonl PID`, and its lines are read back here: the summary's timing
 * (samples, late, missed ticks, lateness) and each sample's cost, split by
 * source (a breakdown from smaps or pages; status between breakdowns). In the
 * same run, interleaved with the watch's repetitions, the raw baselines: a
 * bare open/read/close of /proc/PID/status, and of smaps followed by
 * smaps_rollup (what a breakdown from smaps reads), medians.
 *
 *   pmaps-bench-watch [--quick] [--vmas N] [--count N] [--interval T] [--reps R]
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "targets.h"

static char rbuf[1 << 20];

/* Reads PATH whole through a fixed buffer: ns, or -1. */
static double bare_read(const char *path)
{
	double t0 = now_ns();
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	while ((n = read(fd, rbuf, sizeof(rbuf))) > 0)
		;
	close(fd);
	return n < 0 ? -1 : now_ns() - t0;
}

/* The number after KEY in S ("\"late\":" -> 3), or 0. */
static uint64_t num_after(const char *s, const char *key)
{
	const char *p = strstr(s, key);
	uint64_t v = 0;

	if (!p)
		return 0;
	for (p += strlen(key); *p >= '0' && *p <= '9'; p++)
		v = v * 10 + (uint64_t)(*p - '0');
	return v;
}

struct run {
	uint64_t samples, breakdowns, late, missed, late_max, late_mean, unread;
	uint64_t cost_full, n_full, cost_status, n_status, cost_full_max;
	char source[16];
	int ok;
};

/* Runs the watch on PID, reading its JSON Lines back into R. */
static void watch_once(char *pid, char *count, char *interval, struct run *r)
{
	static char line[1 << 16];
	static char tool[] = PMAPS_TOOL_PATH, cmd[] = "watch", jsonl[] = "--jsonl",
	            iv[] = "--interval", cnt[] = "--count";
	char *argv[] = {tool, cmd, jsonl, iv, interval, cnt, count, pid, NULL};
	int p[2], st;
	pid_t c;
	FILE *f;

	memset(r, 0, sizeof(*r));
	if (pipe(p) < 0)
		return;
	c = fork();
	if (c == 0) {
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	f = fdopen(p[0], "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (strstr(line, "\"summary\":")) {
			const char *s = strstr(line, "\"source\":\"");
			r->samples = num_after(line, "\"samples\":");
			r->breakdowns = num_after(line, "\"breakdowns\":");
			r->late = num_after(line, "\"late\":");
			r->missed = num_after(line, "\"missed\":");
			r->unread = num_after(line, "\"unread\":");
			r->late_max = num_after(line, "\"late_max_ns\":");
			r->late_mean = num_after(line, "\"late_mean_ns\":");
			if (s)
				snprintf(r->source, sizeof(r->source), "%.*s",
				         (int)strcspn(s + 10, "\""), s + 10);
			r->ok = 1;
			continue;
		}
		if (strstr(line, "\"source\":\"status\"")) {
			r->cost_status += num_after(line, "\"cost_ns\":");
			r->n_status++;
		} else if (strstr(line, "\"cost_ns\":")) {
			uint64_t k = num_after(line, "\"cost_ns\":");
			r->cost_full += k;
			if (k > r->cost_full_max)
				r->cost_full_max = k;
			r->n_full++;
		}
	}
	if (f)
		fclose(f);
	if (waitpid(c, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		r->ok = 0;
}

int main(int argc, char **argv)
{
	static char count_def[] = "500", interval_def[] = "10ms", count_quick[] = "50";
	char *count = count_def, *interval = interval_def;
	long vmas = 10000;
	int reps = 3, quick = 0;
	struct target t;
	char path[3][64];
	double st_ns[64], sm_ns[64];
	struct run runs[16];
	int nbase = 0;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--quick") == 0)
			quick = 1;
		else if (strcmp(argv[i], "--vmas") == 0 && i + 1 < argc)
			vmas = atol(argv[++i]);
		else if (strcmp(argv[i], "--count") == 0 && i + 1 < argc)
			count = argv[++i];
		else if (strcmp(argv[i], "--interval") == 0 && i + 1 < argc)
			interval = argv[++i];
		else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
			reps = atoi(argv[++i]);
		else {
			fprintf(stderr, "usage: pmaps-bench-watch [--quick] [--vmas N] [--count N] "
			        "[--interval T] [--reps R]\n");
			return 2;
		}
	}
	if (quick) {
		vmas = 1000;
		count = count_quick;
		reps = 1;
	}
	if (reps < 1 || reps > 16 || vmas < 1) {
		fprintf(stderr, "pmaps-bench-watch: --reps 1 to 16, --vmas from 1\n");
		return 2;
	}
	if (target_start(&t, vmas) < 0) {
		fprintf(stderr, "pmaps-bench-watch: the target did not start\n");
		return 1;
	}
	snprintf(path[0], sizeof(path[0]), "/proc/%s/status", t.pidstr);
	snprintf(path[1], sizeof(path[1]), "/proc/%s/smaps", t.pidstr);
	snprintf(path[2], sizeof(path[2]), "/proc/%s/smaps_rollup", t.pidstr);
	/* Interleaved: baselines, a watch, baselines, a watch, ... */
	for (int r = 0; r < reps; r++) {
		for (int k = 0; k < 4 && nbase < 64; k++, nbase++) {
			double a = bare_read(path[0]), b = bare_read(path[1]), c = bare_read(path[2]);
			if (a < 0 || b < 0 || c < 0) {
				fprintf(stderr, "pmaps-bench-watch: a bare read failed: %s\n", strerror(errno));
				target_stop(&t);
				return 1;
			}
			st_ns[nbase] = a;
			sm_ns[nbase] = b + c;
		}
		watch_once(t.pidstr, count, interval, &runs[r]);
		if (!runs[r].ok) {
			fprintf(stderr, "pmaps-bench-watch: pmaps watch failed\n");
			target_stop(&t);
			return 1;
		}
	}
	printf("pmaps watch --interval %s --count %s --jsonl on a target with %ld VMAs (%ld in its "
	       "maps), %d run%s\n\n", interval, count, vmas, t.vmas, reps, reps == 1 ? "" : "s");
	printf("  run  source  samples  on time  late  missed  unread  breakdowns  max late  "
	       "mean late  breakdown mean/max      status sample mean\n");
	for (int r = 0; r < reps; r++) {
		const struct run *x = &runs[r];
		printf("  %3d  %-6s  %7llu  %7llu  %4llu  %6llu  %6llu  %10llu  %5.2f ms  %6.3f ms  "
		       "%6.2f / %6.2f ms   %8.1f us\n",
		       r + 1, x->source, (unsigned long long)x->samples,
		       (unsigned long long)(x->samples - x->late), (unsigned long long)x->late,
		       (unsigned long long)x->missed, (unsigned long long)x->unread,
		       (unsigned long long)x->breakdowns, (double)x->late_max / 1e6,
		       (double)x->late_mean / 1e6,
		       x->n_full ? (double)x->cost_full / (double)x->n_full / 1e6 : 0.0,
		       (double)x->cost_full_max / 1e6,
		       x->n_status ? (double)x->cost_status / (double)x->n_status / 1e3 : 0.0);
	}
	{
		double bst = median(st_ns, nbase), bsm = median(sm_ns, nbase);
		double full = 0, stat = 0;
		uint64_t nf = 0, ns = 0;
		for (int r = 0; r < reps; r++) {
			full += (double)runs[r].cost_full;
			nf += runs[r].n_full;
			stat += (double)runs[r].cost_status;
			ns += runs[r].n_status;
		}
		printf("\n  raw baseline (same run, median of %d bare reads):\n", nbase);
		printf("    status                 %8.1f us   a status sample: %8.1f us (%.2fx)\n",
		       bst / 1e3, ns ? stat / (double)ns / 1e3 : 0.0,
		       ns ? stat / (double)ns / bst : 0.0);
		printf("    smaps + smaps_rollup   %8.2f ms   a breakdown:     %8.2f ms (%.2fx)\n",
		       bsm / 1e6, nf ? full / (double)nf / 1e6 : 0.0,
		       nf ? full / (double)nf / bsm : 0.0);
	}
	target_stop(&t);
	return 0;
}
