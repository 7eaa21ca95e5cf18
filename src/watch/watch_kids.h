/* SPDX-License-Identifier: MIT */
/*
 * watch_kids.h - pmaps watch and run --children: the descendants of the
 * watched process, found at each sample by following the parent links of
 * the process list (pmaps_procs_*), each read from its status through a
 * handle kept open while it lives (watch_kids.c).
 */
#ifndef PMAPS_WATCH_KIDS_H
#define PMAPS_WATCH_KIDS_H

#include <stddef.h>
#include <stdint.h>

#include "pmaps.h"

/* Descendants read at once; more are counted (untracked), never read. */
#define KIDS_MAX 256
/* Descendants the summary lists, by peak RSS; the rest are counted. */
#define KIDS_SHOWN 20

/* How a descendant's watch ended. */
enum kid_end { KID_RUNNING, KID_EXITED, KID_LEFT };

/* One descendant as the summary tells it (raw comm bytes: escape them). */
struct kid_record {
	int pid;
	int ppid;              /* its parent when first seen */
	enum kid_end end;      /* RUNNING: still alive when the watch ended */
	size_t comm_len;
	char comm[64];         /* the last comm seen (an exec changes it) */
	uint64_t first_t, last_t; /* the samples that first and last read it */
	uint64_t peak_rss, peak_t;
	uint64_t rss;          /* at the last sample that read it */
	uint64_t hwm;          /* its VmHWM at that sample: the kernel's own peak */
	int hwm_known;
};

/* The sum over the descendants read at one sample (saturating). */
struct kids_sum {
	uint64_t count;        /* read now */
	uint64_t untracked;    /* descendants beyond KIDS_MAX: counted, not read */
	uint64_t rss, anon, file, shmem, swap;
};

struct kids;

/*
 * Opens the follower of PID's descendants under PROC_ROOT (NULL: /proc):
 * the process list, the table of KIDS_MAX descendants and the list of
 * processes (grown only when the machine has more processes than ever
 * before). Returns 0, or a negative errno with MSG.
 */
int kids_open(struct kids **out, const char *proc_root, int pid, char *msg, size_t msgsz);

/*
 * Lists the processes, follows the parent links from the watched process,
 * opens a handle on each new descendant (one allocation per descendant:
 * its handle), reads every tracked descendant's status and sums them into
 * SUM; the descendants gone (or no longer below the watched process) are
 * closed and kept for the summary. T_NS: the sample's time. Returns 0, or
 * a negative errno with MSG (a process list or a status that cannot be
 * read; a descendant that exits meanwhile is none).
 */
int kids_sample(struct kids *k, uint64_t t_ns, struct kids_sum *sum, char *msg, size_t msgsz);

/*
 * At the watch's end: the tracked descendants that have exited since the
 * last sample are ended as exited (their figures stay the last sample's);
 * those alive are listed as running.
 */
void kids_end(struct kids *k);

/*
 * The descendants for the summary, largest peak first: at most KIDS_SHOWN
 * into OUT (those still tracked marked RUNNING). *SEEN: how many there
 * were over the watch; *UNTRACKED_MAX: the most counted but not read at
 * one sample. Returns how many are in OUT.
 */
size_t kids_summary(struct kids *k, struct kid_record *out, uint64_t *seen,
                    uint64_t *untracked_max);

/* Closes every handle and frees it. NULL is allowed. */
void kids_close(struct kids *k);

/* How many times the process list grew (one allocation each): for the tests. */
uint64_t kids_grows(const struct kids *k);

#endif
