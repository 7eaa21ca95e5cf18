/* SPDX-License-Identifier: MIT */
/*
 * test_records.c - the record schema: values of mapping and group rows,
 * group kinds, totals (pmaps_group_read, pmaps_total), page summaries, and
 * a maps cursor re-pointed at another process.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "internal.h"
#include "testhooks.h"

#define KB 1024ull
#define BIT(f) (1ull << (f))

/* ---- values ---- */

static void test_value_keys(void **state)
{
	(void)state;
	assert_string_equal(pmaps_value_key(PMAPS_V_SHARED), "shared");
	assert_string_equal(pmaps_value_key(PMAPS_V_USS), "uss");
	assert_string_equal(pmaps_value_key(PMAPS_V_VSIZE), "vsize");
	assert_string_equal(pmaps_value_key(PMAPS_V_MAPPINGS), "mappings");
	assert_string_equal(pmaps_value_key(PMAPS_F_PRIVATE_DIRTY), "private_dirty");
	assert_string_equal(pmaps_value_key(PMAPS_F_SIZE), "size");
	assert_null(pmaps_value_key(-1));
	assert_null(pmaps_value_key(PMAPS_V_COUNT));
	/* Every key looks itself up. */
	for (int k = 0; k < PMAPS_V_COUNT; k++) {
		const char *s = pmaps_value_key(k);
		assert_int_equal(pmaps_value_lookup(s, strlen(s)), k);
	}
	assert_int_equal(pmaps_value_lookup("USS", 3), PMAPS_V_USS);
	assert_int_equal(pmaps_value_lookup("Mappings", 8), PMAPS_V_MAPPINGS);
	assert_int_equal(pmaps_value_lookup("Private_Dirty", 13), PMAPS_F_PRIVATE_DIRTY);
	assert_int_equal(pmaps_value_lookup("sharedx", 6), PMAPS_V_SHARED); /* LEN counts */
	assert_int_equal(pmaps_value_lookup("share", 5), -1);
	assert_int_equal(pmaps_value_lookup("total", 5), -1);
	assert_int_equal(pmaps_value_lookup("", 0), -1);
}

static struct pmaps_mapping mapping(uint64_t start, uint64_t end)
{
	struct pmaps_mapping m;

	memset(&m, 0, sizeof(m));
	m.start = start;
	m.end = end;
	m.kind = PMAPS_KIND_ANON;
	return m;
}

/* Value KEY of M: its return must be WANT_R and its value WANT_V. */
#define ASSERT_MVAL(m, key, want_r, want_v)                                     \
	do {                                                                    \
		uint64_t v_ = 0xdeadbeef;                                       \
		assert_int_equal(pmaps_mapping_value(&(m), (key), &v_), (want_r)); \
		assert_int_equal(v_, (want_v));                                 \
	} while (0)
#define ASSERT_GVAL(g, key, want_r, want_v)                                     \
	do {                                                                    \
		uint64_t v_ = 0xdeadbeef;                                       \
		assert_int_equal(pmaps_group_value(&(g), (key), &v_), (want_r)); \
		assert_int_equal(v_, (want_v));                                 \
	} while (0)

static void test_mapping_values(void **state)
{
	struct pmaps_mapping m = mapping(0x1000, 0x9000);

	(void)state;
	m.present = BIT(PMAPS_F_RSS) | BIT(PMAPS_F_SHARED_CLEAN) | BIT(PMAPS_F_SHARED_DIRTY) |
	            BIT(PMAPS_F_PRIVATE_CLEAN) | BIT(PMAPS_F_PRIVATE_DIRTY);
	m.v[PMAPS_F_SHARED_CLEAN] = 4 * KB;
	m.v[PMAPS_F_SHARED_DIRTY] = 8 * KB;
	m.v[PMAPS_F_PRIVATE_CLEAN] = 12 * KB;
	m.v[PMAPS_F_PRIVATE_DIRTY] = 16 * KB;
	m.v[PMAPS_F_RSS] = 40 * KB;
	m.v[PMAPS_F_SWAP] = 99; /* not present: never given */
	ASSERT_MVAL(m, PMAPS_F_RSS, 1, 40 * KB);
	ASSERT_MVAL(m, PMAPS_F_SWAP, 0, 0);
	ASSERT_MVAL(m, PMAPS_V_SHARED, 1, 12 * KB);
	ASSERT_MVAL(m, PMAPS_V_USS, 1, 28 * KB);
	ASSERT_MVAL(m, PMAPS_V_VSIZE, 1, 0x8000);
	ASSERT_MVAL(m, PMAPS_V_MAPPINGS, 1, 1);
	ASSERT_MVAL(m, -1, -1, 0);
	ASSERT_MVAL(m, PMAPS_V_COUNT, -1, 0);
	/* A part missing: the derived value is absent, not the other part. */
	m.present &= ~BIT(PMAPS_F_SHARED_DIRTY);
	ASSERT_MVAL(m, PMAPS_V_SHARED, 0, 0);
	m.present &= ~BIT(PMAPS_F_PRIVATE_CLEAN);
	ASSERT_MVAL(m, PMAPS_V_USS, 0, 0);
	/* maps, no fields: only the layout's values. */
	m.present = 0;
	ASSERT_MVAL(m, PMAPS_F_RSS, 0, 0);
	ASSERT_MVAL(m, PMAPS_V_VSIZE, 1, 0x8000);
	/* Sums saturate. */
	m.present = BIT(PMAPS_F_SHARED_CLEAN) | BIT(PMAPS_F_SHARED_DIRTY) |
	            BIT(PMAPS_F_PRIVATE_CLEAN) | BIT(PMAPS_F_PRIVATE_DIRTY);
	m.v[PMAPS_F_SHARED_CLEAN] = UINT64_MAX - 4;
	m.v[PMAPS_F_SHARED_DIRTY] = 5;
	m.v[PMAPS_F_PRIVATE_CLEAN] = UINT64_MAX;
	m.v[PMAPS_F_PRIVATE_DIRTY] = UINT64_MAX;
	ASSERT_MVAL(m, PMAPS_V_SHARED, 1, UINT64_MAX);
	ASSERT_MVAL(m, PMAPS_V_USS, 1, UINT64_MAX);
	m.v[PMAPS_F_SHARED_DIRTY] = 4;
	ASSERT_MVAL(m, PMAPS_V_SHARED, 1, UINT64_MAX); /* exactly the top: no wrap */
	m.v[PMAPS_F_SHARED_DIRTY] = 3;
	ASSERT_MVAL(m, PMAPS_V_SHARED, 1, UINT64_MAX - 1);
	/* A row built backwards has no length. */
	m = mapping(0x9000, 0x1000);
	ASSERT_MVAL(m, PMAPS_V_VSIZE, 0, 0);
	/* smaps_rollup's row: no vsize, no mapping count. */
	m = mapping(0x1000, 0x7fff0000);
	m.kind = PMAPS_KIND_ROLLUP;
	m.present = BIT(PMAPS_F_RSS);
	m.v[PMAPS_F_RSS] = 8 * KB;
	ASSERT_MVAL(m, PMAPS_V_VSIZE, 0, 0);
	ASSERT_MVAL(m, PMAPS_V_MAPPINGS, 0, 0);
	ASSERT_MVAL(m, PMAPS_F_RSS, 1, 8 * KB);
}

static void test_group_values(void **state)
{
	struct pmaps_group *g;
	struct pmaps_group_row row;
	struct pmaps_mapping a = mapping(0x1000, 0x3000), b = mapping(0x5000, 0x6000);

	(void)state;
	a.present = b.present = BIT(PMAPS_F_PRIVATE_CLEAN) | BIT(PMAPS_F_PRIVATE_DIRTY) |
	                        BIT(PMAPS_F_SHARED_CLEAN);
	a.v[PMAPS_F_PRIVATE_CLEAN] = 4 * KB;
	a.v[PMAPS_F_PRIVATE_DIRTY] = 4 * KB;
	b.v[PMAPS_F_PRIVATE_DIRTY] = 4 * KB;
	b.v[PMAPS_F_SHARED_CLEAN] = 4 * KB;
	assert_int_equal(pmaps_group_open(&g, PMAPS_GROUP_TOTAL), 0);
	assert_int_equal(pmaps_group_add(g, &a), 0);
	assert_int_equal(pmaps_group_add(g, &b), 0);
	row = *pmaps_group_get(g, 0);
	ASSERT_GVAL(row, PMAPS_V_USS, 1, 12 * KB);
	ASSERT_GVAL(row, PMAPS_V_SHARED, 0, 0); /* no Shared_Dirty in any member */
	ASSERT_GVAL(row, PMAPS_F_SHARED_CLEAN, 1, 4 * KB);
	ASSERT_GVAL(row, PMAPS_F_RSS, 0, 0);
	ASSERT_GVAL(row, PMAPS_V_VSIZE, 1, 0x3000);
	ASSERT_GVAL(row, PMAPS_V_MAPPINGS, 1, 2);
	ASSERT_GVAL(row, PMAPS_V_COUNT, -1, 0);
	/* The kernel's own sum: fields, no vsize or mapping count. */
	row.flags |= PMAPS_GROUP_ROLLUP;
	ASSERT_GVAL(row, PMAPS_V_VSIZE, 0, 0);
	ASSERT_GVAL(row, PMAPS_V_MAPPINGS, 0, 0);
	ASSERT_GVAL(row, PMAPS_V_USS, 1, 12 * KB);
	/* Saturated sums stay at the top, and the row says so. */
	a.v[PMAPS_F_PRIVATE_DIRTY] = UINT64_MAX - 4 * KB;
	pmaps_group_reset(g);
	assert_int_equal(pmaps_group_add(g, &a), 0);
	assert_int_equal(pmaps_group_add(g, &b), 0);
	row = *pmaps_group_get(g, 0);
	assert_int_equal(row.flags & PMAPS_GROUP_SATURATED, 0);
	ASSERT_GVAL(row, PMAPS_F_PRIVATE_DIRTY, 1, UINT64_MAX);
	ASSERT_GVAL(row, PMAPS_V_USS, 1, UINT64_MAX);
	assert_int_equal(pmaps_group_add(g, &b), 0);
	row = *pmaps_group_get(g, 0);
	assert_int_equal(row.flags & PMAPS_GROUP_SATURATED, PMAPS_GROUP_SATURATED);
	ASSERT_GVAL(row, PMAPS_F_PRIVATE_DIRTY, 1, UINT64_MAX);
	pmaps_group_close(g);
}

static void test_group_kind_name(void **state)
{
	struct pmaps_group_row g;

	(void)state;
	memset(&g, 0, sizeof(g));
	g.kind = PMAPS_KIND_HEAP;
	assert_string_equal(pmaps_group_kind_name(&g), "heap"); /* no members yet */
	g.kinds = 1u << PMAPS_KIND_HEAP;
	assert_string_equal(pmaps_group_kind_name(&g), "heap");
	g.kind = PMAPS_KIND_FILE_TEXT;
	g.kinds = 1u << PMAPS_KIND_FILE_TEXT | 1u << PMAPS_KIND_FILE_RO |
	          1u << PMAPS_KIND_FILE_DATA | 1u << PMAPS_KIND_GUARD;
	assert_string_equal(pmaps_group_kind_name(&g), "file");
	g.kinds = 1u << PMAPS_KIND_FILE_TEXT | 1u << PMAPS_KIND_GUARD;
	assert_string_equal(pmaps_group_kind_name(&g), "file");
	g.kinds |= 1u << PMAPS_KIND_ANON;
	assert_string_equal(pmaps_group_kind_name(&g), "mixed");
	g.kind = PMAPS_KIND_GUARD;
	g.kinds = 1u << PMAPS_KIND_GUARD;
	assert_string_equal(pmaps_group_kind_name(&g), "guard");
	g.kind = PMAPS_KIND_ROLLUP;
	g.kinds = 1u << PMAPS_KIND_ROLLUP;
	assert_string_equal(pmaps_group_kind_name(&g), "rollup");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_value_keys),
		cmocka_unit_test(test_mapping_values),
		cmocka_unit_test(test_group_values),
		cmocka_unit_test(test_group_kind_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
