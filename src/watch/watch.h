/* SPDX-License-Identifier: MIT */
/*
 * watch.h - what pmaps watch and run share (cmd_watch.c): one sample of a
 * process made from explain's result, and the page-level diff between
 * samples (watch_pages.c). The sample and the SVG timeline that draws them
 * are write/timeline.h's. Neither allocates per sample.
 */
#ifndef PMAPS_WATCH_H
#define PMAPS_WATCH_H

#include <stddef.h>
#include <stdint.h>

#include "pmaps.h"
#include "write/timeline.h"

/*
 * S from explain's result X, taken T_NS after the start: the RSS per
 * category, and LazyFree and swap where X's source can see them (watch.c).
 */
void watch_sample_from(struct watch_sample *s, const struct pmaps_explain *x, uint64_t t_ns);

/* --- the page-level diff (watch_pages.c) ----------------------------------- */

/*
 * A range of pages that became present (+1) or went away (-1) since the last
 * walk. Present: what smaps counts in Rss (hugetlb pages are not).
 */
struct wpages_change {
	uint64_t start, end;
	int sign;
	/*
	 * The mapping it lies in (a change never spans two): its range and name
	 * (raw bytes). +1: the mapping there now. -1: the mapping there now when
	 * it is the same mapping as the one the walk before saw, else that one
	 * (replaced, unmapped). Two nameless anonymous mappings count as the
	 * same (watch_pages.c says why).
	 */
	uint64_t map_start, map_end;
	const char *name;
	size_t name_len;
};
struct wpages_stats {
	uint64_t added, removed;       /* bytes that became present / went away */
	uint64_t ranges;               /* changes found (all are counted, the callback sees them all) */
	uint64_t present;              /* present bytes now */
	uint64_t walk_ns;              /* the walk's time (maps and pages; not the callbacks') */
};
struct wpages;

/*
 * The most separate present ranges a walk keeps (16 bytes each, in each of
 * two sets: 32 MiB at most); a process with more is -E2BIG.
 */
#define WPAGES_MAX_RUNS ((size_t)1 << 20)

/* Opens the diff on PROC (which outlives it). Returns 0 or a negative errno with MSG. */
int wpages_open(struct wpages **out, struct pmaps_proc *proc, char *msg, size_t msgsz);
/* The same with the page reader STRATEGY (wpages_open() takes PMAPS_PAGES_AUTO). */
int wpages_open_strategy(struct wpages **out, struct pmaps_proc *proc,
                         enum pmaps_pages_strategy strategy, char *msg, size_t msgsz);
/*
 * Walks the present pages now (bounded PAGEMAP_SCAN steps) and calls FN for
 * each change since the last walk, in order of their start (-1 first at one
 * address), coalesced into ranges and split at mapping boundaries; where a
 * mapping was replaced a -1 and a +1 change can overlap (watch_pages.c).
 * The first walk only records (no call).
 * Returns 0 and fills ST, or a negative errno with a message in MSG: -ESRCH
 * (the process is gone), -ESTALE (it exec'd: open a new diff), -E2BIG (more
 * than WPAGES_MAX_RUNS separate present ranges), -ENOMEM. After an error the
 * next sample diffs against the last walk that succeeded. Allocates nothing
 * when no walk needs more mappings, name bytes or runs than one before.
 */
int wpages_sample(struct wpages *wp, void (*fn)(void *ctx, const struct wpages_change *c),
                  void *ctx, struct wpages_stats *st, char *msg, size_t msgsz);
void wpages_close(struct wpages *wp);
/*
 * How many times the diff's arrays grew since it was opened (each growth one
 * allocation): what a caller checks to see that a steady process costs no
 * allocation per sample. Added for the tests.
 */
uint64_t wpages_grows(const struct wpages *wp);
/* Lowers the run cap from WPAGES_MAX_RUNS to MAX_RUNS (at least 1). For the tests. */
void wpages_set_max_runs(struct wpages *wp, size_t max_runs);

#endif
