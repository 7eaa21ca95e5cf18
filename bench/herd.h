/* SPDX-License-Identifier: MIT */
/*
 * herd.h - many small processes for the benchmarks that read every process
 * (pmaps-bench-top, pmaps-bench-serve): this program's own children. Each
 * touches a few hundred KiB of private memory (HERD_PRIVATE_LEN plus 32 KiB
 * times its index modulo 5) and reads a region it shares with its siblings
 * (MAP_SHARED, made before the forks, so its PSS is below its RSS), then
 * blocks on a pipe: quiescent while measured. They live in one process
 * group of their own with PR_SET_PDEATHSIG, and are killed and reaped at the
 * end, on an error and on SIGINT/SIGTERM/SIGHUP too (herd_on_signal,
 * herd_kill at exit).
 */
#ifndef PMAPS_BENCH_HERD_H
#define PMAPS_BENCH_HERD_H

#include <stddef.h>
#include <sys/types.h>

#define HERD_PRIVATE_LEN (256ul << 10) /* each child's own memory, plus 32 KiB * (i % 5) */
#define HERD_SHARED_LEN (128ul << 10)  /* read by every child */

struct herd {
	pid_t pgid;  /* the first child's pid: every child's process group */
	pid_t *pids;
	int n;
	int hold;    /* write end: closing it ends the children */
	char *shared;
};

/* What the exit paths end: the herd alive, if any (0 in a child that must not end it). */
extern volatile pid_t herd_pgid;

/*
 * Room for N more processes: pid_max and threads-max against the threads
 * alive (/proc/loadavg), RLIMIT_NPROC raised to its hard limit when short,
 * and memory (about 1 MiB a child, page tables and kernel stack included).
 * Returns 0, or -1 with the reason in WHY.
 */
int herd_room_for(int n, char *why, size_t whysz);
/*
 * Starts N children, named COMM (prctl PR_SET_NAME) when not NULL, and
 * waits until each has its memory in place. Returns 0, or -1 (said why; the
 * ones started are H's: herd_stop() them).
 */
int herd_start(struct herd *h, int n, const char *comm);
/* Ends and reaps the children, frees H's tables. */
void herd_stop(struct herd *h);
/* Kills and reaps the herd alive (atexit, error paths). */
void herd_kill(void);
/* A handler for SIGINT, SIGTERM, SIGHUP: the herd killed, then the signal's default. */
void herd_on_signal(int sig);
/*
 * SIGINT, SIGTERM and SIGHUP to ON_SIGNAL (NULL: herd_on_signal), and
 * herd_kill() at exit: the children end with the benchmark, whatever ends it.
 */
void herd_guard(void (*on_signal)(int));
/*
 * Starts H's N children (COMM their name, or NULL) where there is room:
 * 1, or 0 when there is none (said in a line: the caller goes on without
 * them), or -1 when they could not be started.
 */
int herd_start_or_skip(struct herd *h, int n, const char *comm);

#endif
