/* SPDX-License-Identifier: MIT */
/*
 * pagestate.c - the one classification of a process's pages into states
 * (enum pmaps_page_state, pmaps.h has the precedence), for every table and
 * picture of pages: a run's state, a range's pages per state, and the
 * state most of them are in.
 */
#include <errno.h>

#include "internal.h"

static const char *const keys[PMAPS_PS_COUNT] = {
	[PMAPS_PS_SWAPPED] = "swapped", [PMAPS_PS_ZERO] = "zero",   [PMAPS_PS_LAZYFREE] = "lazyfree",
	[PMAPS_PS_HUGE] = "huge",       [PMAPS_PS_SHMEM] = "shmem", [PMAPS_PS_FILE] = "file",
	[PMAPS_PS_SHARED] = "shared",   [PMAPS_PS_ANON] = "anon",   [PMAPS_PS_ABSENT] = "absent",
};

const char *pmaps_page_state_key(enum pmaps_page_state s)
{
	return (unsigned)s < PMAPS_PS_COUNT ? keys[s] : NULL;
}

int pmaps_page_state_resident(enum pmaps_page_state s)
{
	return s >= PMAPS_PS_LAZYFREE && s <= PMAPS_PS_ANON;
}

enum pmaps_page_state pmaps_page_state_of(const struct pmaps_page_range *r, enum pmaps_kind kind)
{
	unsigned f = r->flags;

	if (f & PMAPS_PG_PRESENT) {
		if (f & PMAPS_PG_ZERO)
			return PMAPS_PS_ZERO;
		if (r->kflags & PMAPS_KPF_LAZYFREE)
			return PMAPS_PS_LAZYFREE;
		if (f & PMAPS_PG_HUGE)
			return PMAPS_PS_HUGE;
		if (f & PMAPS_PG_FILE)
			return kind == PMAPS_KIND_SHMEM ? PMAPS_PS_SHMEM : PMAPS_PS_FILE;
		return r->mapcount >= 2 ? PMAPS_PS_SHARED : PMAPS_PS_ANON;
	}
	/* A guard region's entries read as swapped too: it holds no memory. */
	if ((f & PMAPS_PG_SWAPPED) && !(f & PMAPS_PG_GUARD))
		return PMAPS_PS_SWAPPED;
	return PMAPS_PS_ABSENT;
}

enum pmaps_page_state pmaps_page_state_dominant(const uint64_t *n)
{
	enum pmaps_page_state best = PMAPS_PS_ABSENT;
	uint64_t most = 0;

	/* Strictly more wins: a tie stays with the state first in the order. */
	for (int s = 0; s < PMAPS_PS_COUNT; s++) {
		if (n[s] > most) {
			most = n[s];
			best = (enum pmaps_page_state)s;
		}
	}
	return best;
}

int pmaps_pages_states(struct pmaps_pages *c, uint64_t start, uint64_t end, enum pmaps_kind kind,
                       uint64_t *n)
{
	const struct pmaps_page_range *r;
	int err;

	if (!c || !n)
		return -EINVAL;
	for (int s = 0; s < PMAPS_PS_COUNT; s++)
		n[s] = 0;
	err = pmaps_pages_seek(c, start, end);
	if (err < 0)
		return err;
	while ((err = pmaps_pages_next(c, &r)) > 0)
		n[pmaps_page_state_of(r, kind)] += pmaps_page_range_pages(r); /* pages of a range: no wrap */
	return err;
}
