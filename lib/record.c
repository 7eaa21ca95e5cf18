/* SPDX-License-Identifier: MIT */
/*
 * record.c - the values of a mapping or group row by key: the smaps fields,
 * then the figures derived from them (shared, USS, vsize, mappings).
 *
 * A derived value is computed here, once, for every front end. It is
 * present only when every part of it is: a kernel that does not report
 * Shared_Dirty has no "shared" figure, which is not 0. Sums saturate at
 * 2^64 - 1: a row a program builds may hold anything, and a sum that
 * wrapped would look small and right.
 */
#include <string.h>
#include <strings.h>

#include "internal.h"

/* Derived values start at PMAPS_F_MAX: the keys between are no value. */
static const char *const derived_keys[PMAPS_V_COUNT - PMAPS_F_MAX] = {
	[PMAPS_V_SHARED - PMAPS_F_MAX] = "shared",
	[PMAPS_V_USS - PMAPS_F_MAX] = "uss",
	[PMAPS_V_VSIZE - PMAPS_F_MAX] = "vsize",
	[PMAPS_V_MAPPINGS - PMAPS_F_MAX] = "mappings",
	[PMAPS_V_FILE_RSS - PMAPS_F_MAX] = "file_rss",
	[PMAPS_V_ZERO_PAGE - PMAPS_F_MAX] = "zero_page",
};

static const char *const source_names[PMAPS_SRC_COUNT] = {
	[PMAPS_SRC_MAPS] = "maps",     [PMAPS_SRC_SMAPS] = "smaps",
	[PMAPS_SRC_ROLLUP] = "smaps_rollup", [PMAPS_SRC_FAST] = "fast",
	[PMAPS_SRC_PAGES] = "pages",   [PMAPS_SRC_STATUS] = "status",
};

const char *pmaps_source_name(enum pmaps_source s)
{
	if (s == PMAPS_SRC_AUTO)
		return "auto";
	return (unsigned)s < PMAPS_SRC_COUNT ? source_names[s] : NULL;
}

int pmaps_source_lookup(const char *name, size_t len)
{
	if (len == 6 && strncasecmp(name, "rollup", 6) == 0)
		return PMAPS_SRC_ROLLUP;
	if (len == 4 && strncasecmp(name, "auto", 4) == 0)
		return PMAPS_SRC_AUTO;
	for (int k = 0; k < PMAPS_SRC_COUNT; k++)
		if (strlen(source_names[k]) == len && strncasecmp(source_names[k], name, len) == 0)
			return k;
	return -1;
}

const char *pmaps_value_key(int key)
{
	if (key >= 0 && key < PMAPS_F_COUNT)
		return pmaps_field_key((enum pmaps_field)key);
	if (key >= PMAPS_F_MAX && key < PMAPS_V_COUNT)
		return derived_keys[key - PMAPS_F_MAX];
	return NULL;
}

int pmaps_value_lookup(const char *name, size_t len)
{
	int f = pmaps_field_lookup(name, len);

	if (f >= 0)
		return f;
	for (int k = PMAPS_F_MAX; k < PMAPS_V_COUNT; k++) {
		const char *s = derived_keys[k - PMAPS_F_MAX];
		if (strlen(s) == len && strncasecmp(s, name, len) == 0)
			return k;
	}
	return -1;
}

/* *V = A + B from fields FA and FB of PRESENT/VALS, when both are present. */
static int sum2(uint64_t present, const uint64_t *vals, int fa, int fb, uint64_t *v)
{
	uint64_t need = 1ull << fa | 1ull << fb;

	if ((present & need) != need)
		return 0;
	if (__builtin_add_overflow(vals[fa], vals[fb], v))
		*v = UINT64_MAX;
	return 1;
}

/*
 * The values both rows have, from their present mask and values, the
 * values a page source measured (from PMAPS_F_MEASURED) first; 1, 0, or -1
 * (out of range), or 2: KEY is VSIZE or MAPPINGS, the caller's to give.
 */
static int common_value(uint64_t present, const uint64_t *vals, int key, uint64_t *v)
{
	unsigned k;

	*v = 0;
	if (key < 0 || key >= PMAPS_V_COUNT || (key >= PMAPS_F_COUNT && key < PMAPS_F_MAX))
		return -1;
	if (key < PMAPS_F_COUNT) {
		if (!(present & (1ull << key)))
			return 0;
		*v = vals[key];
		return 1;
	}
	k = (unsigned)PMAPS__MEASURED(key); /* a value key: PMAPS_F_MAX <= KEY < PMAPS_V_COUNT */
	if (present & (1ull << k)) {
		*v = vals[k];
		return 1;
	}
	switch (key) {
	case PMAPS_V_FILE_RSS: {
		uint64_t need = 1ull << PMAPS_F_RSS | 1ull << PMAPS_F_ANONYMOUS;
		if ((present & need) != need)
			return 0;
		*v = vals[PMAPS_F_RSS] > vals[PMAPS_F_ANONYMOUS]
		     ? vals[PMAPS_F_RSS] - vals[PMAPS_F_ANONYMOUS] : 0;
		return 1;
	}
	case PMAPS_V_ZERO_PAGE:
		return 0;
	case PMAPS_V_SHARED:
		return sum2(present, vals, PMAPS_F_SHARED_CLEAN, PMAPS_F_SHARED_DIRTY, v);
	case PMAPS_V_USS:
		return sum2(present, vals, PMAPS_F_PRIVATE_CLEAN, PMAPS_F_PRIVATE_DIRTY, v);
	default:
		return 2;
	}
}

int pmaps_mapping_value(const struct pmaps_mapping *m, int key, uint64_t *v)
{
	int r = common_value(m->present, m->v, key, v);

	if (r != 2)
		return r;
	/* smaps_rollup's one row spans the address space, but is no mapping. */
	if (m->kind == PMAPS_KIND_ROLLUP)
		return 0;
	if (key == PMAPS_V_MAPPINGS) {
		*v = 1;
		return 1;
	}
	if (m->end < m->start)
		return 0; /* a row a program built: no length to give */
	*v = m->end - m->start;
	return 1;
}

int pmaps_group_value(const struct pmaps_group_row *g, int key, uint64_t *v)
{
	int r = common_value(g->present, g->v, key, v);

	if (r != 2)
		return r;
	if ((g->flags & (PMAPS_GROUP_ROLLUP | PMAPS_GROUP_STATUS)) && !(g->flags & PMAPS_GROUP_COUNTED))
		return 0;
	*v = key == PMAPS_V_MAPPINGS ? g->mappings : g->vsize;
	return 1;
}
