/* SPDX-License-Identifier: MIT */
/*
 * stall.h - the stall harness (stall_harness.c): a victim process whose
 * mmap(), first write and munmap() of 64 KiB are timed in a loop, phase by
 * phase, while the caller reads it (or does nothing: a baseline). Used by
 * pmaps-bench-stall (each reader of the library in a loop) and
 * pmaps-bench-serve (pmaps serve scraping the victim every second).
 *
 * The victim, a forked child pinned to CPU 0, holds VMAS small mappings of
 * 4 pages (alternating protections, so that they never merge; one page of
 * each touched) and one anonymous region of RESIDENT_MIB MiB, all of it
 * touched. mmap() and munmap() take its mmap_lock for writing, so they wait
 * for any reader holding it; the fault only needs the VMA (per-VMA locks)
 * and shows whether a reader gets in its way anyway. The caller is pinned
 * to CPU 1. The victim dies with the caller (PR_SET_PDEATHSIG).
 */
#ifndef PMAPS_BENCH_STALL_H
#define PMAPS_BENCH_STALL_H

#include <stdint.h>
#include <sys/types.h>

/* One phase's figures, latencies in ns. */
struct stall_stats {
	uint64_t n, loops; /* samples kept, loops done (more than N when the arrays filled) */
	double secs;
	uint32_t mmap_p50, mmap_p99, mmap_p999, munmap_p999, fault_p999, max;
};

/*
 * Forks the victim (room for SECS of samples a phase) and waits until its
 * memory is in place. Returns its pid, or -1 (said why on stderr).
 */
pid_t stall_start(long vmas, long resident_mib, double secs);
/* The victim starts recording a new phase. 0, or -1 when it is gone (said). */
int stall_record(void);
/* It stops: the phase's figures into ST (SECS: how long it lasted). 0, or -1 when gone. */
int stall_stop(struct stall_stats *st, double secs);
/* Kills and reaps the victim (if any), frees the arrays. */
void stall_end(void);

/* The table: its two header lines, and a row (READS and MS already formatted, "-" for none). */
void stall_print_header(void);
void stall_print_row(const char *name, const char *reads, const char *ms,
                     const struct stall_stats *st, double base_p999_us);
/* What the table's "x base" divides by: the mean of two baselines' mmap() p99.9, in us. */
double stall_base_p999_us(const struct stall_stats *a, const struct stall_stats *b);

/* CLOCK_MONOTONIC in ns; a sleep that resumes after signals; pinning to CPU (0 or -errno). */
uint64_t stall_now_ns(void);
void stall_sleep_ns(long ns);
int stall_pin(int cpu);

#endif
