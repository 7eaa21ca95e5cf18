/* SPDX-License-Identifier: MIT */
/*
 * wsum.h - a working set over many readings (pmaps wss, watch --wss): per
 * category (and in total) the median and the peak of the bytes touched per
 * reading, the resident bytes in the reading of the peak, and the table and
 * JSON that say them. It keeps the touched bytes of the last WSUM_RING
 * readings for the median, so a run of any length holds at most that many;
 * nothing is allocated after wsum_init().
 */
#ifndef PMAPS_WSUM_H
#define PMAPS_WSUM_H

#include <stddef.h>
#include <stdint.h>

#include "common/out.h"
#include "pmaps.h"

/* The categories and, at PMAPS_X_COUNT, the total. */
#define WSUM_NCAT (PMAPS_X_COUNT + 1)
/* The readings the median is taken over, at most: the last ones (1.6 MiB of them). */
#define WSUM_RING 16384

/* One reading: resident, touched and mappings per category and in total. */
struct wsum_tally {
	uint64_t rss[WSUM_NCAT], ref[WSUM_NCAT], maps[WSUM_NCAT];
};

struct wsum {
	size_t n;                     /* readings kept */
	struct wsum_tally cur;        /* the last one */
	uint64_t (*ring)[WSUM_NCAT];  /* touched, of the last WSUM_RING readings (reading I at I % WSUM_RING) */
	uint64_t *scratch;            /* WSUM_RING figures, for the median */
	/* Per category over every reading: the peak touched, and the resident then. */
	uint64_t peak_ref[WSUM_NCAT], peak_rss[WSUM_NCAT];
	uint64_t seen[WSUM_NCAT];     /* readings in which the category held a mapping */
};

/* What the summary says of category K. */
struct wsum_fig {
	uint64_t rss, median, peak, idle;
};

/* Allocates what S keeps. Returns 0 or -ENOMEM (S then needs no wsum_free()). */
int wsum_init(struct wsum *s);
/* Forgets every reading (a new program's readings start over); keeps the memory. */
void wsum_clear(struct wsum *s);
void wsum_free(struct wsum *s);
/* Keeps the reading X (its referenced bytes known). */
void wsum_keep(struct wsum *s, const struct pmaps_explain *x);
/*
 * Category K (PMAPS_X_COUNT: the total) over the readings kept: the median
 * (the lower one, of the last WSUM_RING) and the peak of the bytes touched
 * per reading; CUMULATIVE 0 (a reset before each reading): the resident
 * bytes in the reading of the peak and those of them not touched then;
 * CUMULATIVE 1 (one reset, at the start): the last reading's resident
 * bytes and those never touched since the reset.
 */
void wsum_of(const struct wsum *s, int k, int cumulative, struct wsum_fig *f);
/* The name of category K as the summary says it (PMAPS_X_COUNT: "total"). */
const char *wsum_name(int k);
/*
 * The summary's table: a heading, then a row per category seen and the
 * total, each line after INDENT; sizes with K/M/G, or in bytes when BYTES.
 */
void wsum_table(struct out *o, const struct wsum *s, int cumulative, int bytes,
                const char *indent);
/* The summary's categories as a JSON array (the key and the array). */
void wsum_json(struct out *o, const struct wsum *s, int cumulative);

#endif
