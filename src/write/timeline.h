/* SPDX-License-Identifier: MIT */
/*
 * timeline.h - a watch's samples as records, and the SVG timeline of
 * pmaps watch and run --svg that draws them (timeline.c). It allocates
 * once, never per sample.
 */
#ifndef PMAPS_TIMELINE_H
#define PMAPS_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "pmaps.h"

/* One sample: explain's breakdown at one moment. */
struct watch_sample {
	uint64_t t_ns;                  /* since the watch started (CLOCK_MONOTONIC) */
	uint64_t rss;                   /* the total RSS */
	uint64_t cat[PMAPS_X_COUNT];    /* RSS per category (enum pmaps_xcat) */
	uint64_t lazyfree, swap;
	int lazyfree_known, swap_known; /* 0: the source cannot see it (show it as absent) */
	/* --children: the descendants' summed RSS at the sample, when they were read */
	uint64_t kids_rss;
	int kids_known;
	int status_only; /* 1: a status sample: RSS alone, no categories (drawn as the RSS line) */
	/*
	 * The runtime's own books at a breakdown (RT_KIND a WATCH_RT_*; NONE
	 * without them): what it counts as live (Go HeapAlloc, the Java heap in
	 * use, malloc's live bytes), and as held, live and free together (Go
	 * HeapSys - HeapReleased, the Java heap committed, malloc's system +
	 * mmapped): the "free memory grows after each GC while RSS stays" curve.
	 */
	int rt_kind;
	uint64_t rt_live, rt_held;
	/*
	 * --wss: the bytes the process touched from the last reset of its
	 * referenced bits to the end of this breakdown's read (smaps'
	 * Referenced summed), how long that was (TOUCHED_NS) and when the read
	 * ended (TOUCHED_END_NS, since the watch started, as T_NS; a tick's
	 * T_NS is taken before its read). TOUCHED_KNOWN 0 without a working set.
	 */
	uint64_t touched, touched_ns, touched_end_ns;
	int touched_known;
};
enum { WATCH_RT_NONE, WATCH_RT_GO, WATCH_RT_JVM, WATCH_RT_MALLOC };

/*
 * Samples kept for the picture: at most TIMELINE_POINTS; when full, every
 * two neighbours become the one with the higher RSS (so the peak stays
 * exact) and the rest keeps coming at half the resolution.
 */
#define TIMELINE_POINTS 2048
struct timeline;

/*
 * Checks PATH now and opens what the picture will go to (outfile.h: a new
 * file renamed over PATH when the picture is whole), so that an unwritable
 * path fails before sampling starts and nothing at PATH changes until then.
 * Returns 0, or a negative errno with a message in MSG. Allocates the
 * timeline once.
 */
int timeline_open(struct timeline **out, const char *path, char *msg, size_t msgsz);
/* Adds a sample; allocates nothing. */
void timeline_add(struct timeline *tl, const struct watch_sample *s);
/*
 * Writes the picture (stacked areas per category from the breakdowns, the
 * RSS line from every sample, with --children the descendants' RSS as an
 * area stacked on it, a LazyFree line, with --wss the bytes touched as
 * a step over each reading's interval, the peak (of RSS, or of RSS and the
 * descendants' together when they were read) marked, axes with units, a legend), titled TITLE (a target's
 * bytes allowed), and closes the file. Returns 0, or a negative errno with
 * a message in MSG.
 */
int timeline_write(struct timeline *tl, const char *title, size_t title_len, char *msg,
                   size_t msgsz);
/*
 * After a timeline_write() that returned 0: the line on stderr saying what
 * was written (outfile_said()): the samples and the time they cover.
 */
void timeline_said(const struct timeline *tl);
/* Frees it (closing the file if still open). NULL is allowed. */
void timeline_close(struct timeline *tl);
/*
 * The points kept now, in time order (*PTS, valid until the next add), and
 * how many: what the picture will show. For the tests.
 */
size_t timeline_points(const struct timeline *tl, const struct watch_sample **pts);
/* The picture's size in user units (= CSS pixels), as timeline_write() would lay it out now. */
void timeline_geometry(const struct timeline *tl, double *width, double *height);
/* Where the picture puts time T_NS and BYTES now: (*X, *Y) in user units. For the tests. */
void timeline_where(const struct timeline *tl, uint64_t t_ns, uint64_t bytes, double *x,
                    double *y);

#endif
