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
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "internal.h"
#include "testhooks.h"
#include "../count_alloc.h"

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
	/* Every key looks itself up; the keys between the fields and the derived values are none. */
	for (int k = 0; k < PMAPS_V_COUNT; k++) {
		const char *s = pmaps_value_key(k);
		if (k >= PMAPS_F_COUNT && k < PMAPS_F_MAX) {
			if (s)
				fail_msg("key %d, between the fields and the derived values: \"%s\"", k, s);
			continue;
		}
		assert_non_null(s);
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
	ASSERT_MVAL(m, PMAPS_F_COUNT, -1, 0); /* between the fields and the derived values */
	ASSERT_MVAL(m, PMAPS_F_MAX - 1, -1, 0);
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
	ASSERT_GVAL(row, PMAPS_F_COUNT, -1, 0);
	/* The kernel's own sum: fields, no vsize or mapping count. */
	row.flags |= PMAPS_GROUP_ROLLUP;
	ASSERT_GVAL(row, PMAPS_V_VSIZE, 0, 0);
	ASSERT_GVAL(row, PMAPS_V_MAPPINGS, 0, 0);
	ASSERT_GVAL(row, PMAPS_V_USS, 1, 12 * KB);
	/* ... unless counted from the maps text (pmaps_total()). */
	row.flags |= PMAPS_GROUP_COUNTED;
	ASSERT_GVAL(row, PMAPS_V_VSIZE, 1, 0x3000);
	ASSERT_GVAL(row, PMAPS_V_MAPPINGS, 1, 2);
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

/* ---- totals ---- */

static struct pmaps_proc *open_fixture(const char *tree, const char *pid)
{
	char root[4096];
	struct pmaps_proc *proc;

	snprintf(root, sizeof(root), "%s/%s/proc", PMAPS_TEST_DATA, tree);
	assert_int_equal(pmaps_proc_open(&proc, root, pid), 0);
	return proc;
}

static void test_total_rollup(void **state)
{
	struct pmaps_proc *proc = open_fixture("kernel-6.1", "4242");
	struct pmaps_group_row row;
	enum pmaps_source src = PMAPS_SRC_MAPS;
	char msg[256] = "unchanged";

	(void)state;
	assert_int_equal(pmaps_total(proc, &row, sizeof(row), &src, msg, sizeof(msg)), 0);
	assert_int_equal(src, PMAPS_SRC_ROLLUP);
	assert_string_equal(msg, "");
	assert_int_equal(row.key.len, 12);
	assert_memory_equal(row.key.ptr, "smaps_rollup", 12);
	assert_int_equal(row.flags, PMAPS_GROUP_ROLLUP | PMAPS_GROUP_COUNTED |
	                            PMAPS__ROW_SRC(PMAPS_SRC_ROLLUP));
	assert_int_equal(row.kind, PMAPS_KIND_ROLLUP);
	assert_string_equal(pmaps_group_kind_name(&row), "rollup");
	/* The tree's maps: 37 lines, their sizes summed. */
	ASSERT_GVAL(row, PMAPS_V_MAPPINGS, 1, 37);
	ASSERT_GVAL(row, PMAPS_V_VSIZE, 1, 2994176);
	/* What pmaps maps --total --json prints for this tree. */
	ASSERT_GVAL(row, PMAPS_F_RSS, 1, 1884160);
	ASSERT_GVAL(row, PMAPS_F_PSS, 1, 500736);
	ASSERT_GVAL(row, PMAPS_F_PSS_DIRTY, 1, 110592);
	ASSERT_GVAL(row, PMAPS_F_PSS_FILE, 1, 390144);
	ASSERT_GVAL(row, PMAPS_F_SHARED_CLEAN, 1, 1748992);
	ASSERT_GVAL(row, PMAPS_F_PRIVATE_CLEAN, 1, 24576);
	ASSERT_GVAL(row, PMAPS_F_PRIVATE_DIRTY, 1, 110592);
	ASSERT_GVAL(row, PMAPS_F_KSM, 0, 0); /* 6.1 has none */
	ASSERT_GVAL(row, PMAPS_F_SIZE, 0, 0);
	ASSERT_GVAL(row, PMAPS_V_USS, 1, 135168);
	ASSERT_GVAL(row, PMAPS_V_SHARED, 1, 1748992);
	pmaps_proc_close(proc);
}

/* pmaps_total_from() reads smaps_rollup alone; pmaps_total_count() adds what pmaps_total() counts. */
static void test_total_count_apart(void **state)
{
	struct pmaps_proc *proc = open_fixture("kernel-6.1", "4242");
	struct pmaps_group_row row, summed;
	struct pmaps_cost k = {.size = sizeof(k)};
	enum pmaps_source src;
	char msg[256] = "unchanged";

	(void)state;
	assert_int_equal(pmaps_total_from(proc, PMAPS_SRC_ROLLUP, NULL, &row, sizeof(row), &k, msg,
	                                  sizeof(msg)), 0);
	assert_int_equal(row.flags, PMAPS_GROUP_ROLLUP | PMAPS__ROW_SRC(PMAPS_SRC_ROLLUP));
	ASSERT_GVAL(row, PMAPS_V_MAPPINGS, 0, 0);
	ASSERT_GVAL(row, PMAPS_V_VSIZE, 0, 0);
	ASSERT_GVAL(row, PMAPS_F_RSS, 1, 1884160);
	assert_int_equal(k.calls, 2); /* the rollup's read and the one that finds its end */
	memset(&k, 0, sizeof(k));
	k.size = sizeof(k);
	assert_int_equal(pmaps_total_count(proc, &row, sizeof(row), &k, msg, sizeof(msg)), 0);
	assert_int_equal(row.flags, PMAPS_GROUP_ROLLUP | PMAPS_GROUP_COUNTED |
	                            PMAPS__ROW_SRC(PMAPS_SRC_ROLLUP));
	ASSERT_GVAL(row, PMAPS_V_MAPPINGS, 1, 37);
	ASSERT_GVAL(row, PMAPS_V_VSIZE, 1, 2994176);
	assert_true(k.calls >= 2);
	/* Equal to pmaps_total()'s row, field for field. */
	assert_int_equal(pmaps_total(proc, &summed, sizeof(summed), &src, msg, sizeof(msg)), 0);
	for (int key = 0; key < PMAPS_V_COUNT; key++) {
		uint64_t a = 0, b = 0;
		int ha = pmaps_group_value(&row, key, &a), hb = pmaps_group_value(&summed, key, &b);
		if (ha != hb || a != b)
			fail_msg("%s: apart %d %llu, pmaps_total() %d %llu", pmaps_value_key(key), ha,
			         (unsigned long long)a, hb, (unsigned long long)b);
	}
	/* A row that is not smaps_rollup's has its count: asking again is a mistake. */
	assert_int_equal(pmaps_total_from(proc, PMAPS_SRC_SMAPS, NULL, &summed, sizeof(summed), NULL,
	                                  msg, sizeof(msg)), 0);
	assert_int_equal(pmaps_total_count(proc, &summed, sizeof(summed), NULL, msg, sizeof(msg)),
	                 -EINVAL);
	assert_string_equal(msg, "not smaps_rollup's row: its mappings are counted already");
	assert_int_equal(pmaps_total_count(proc, &row, 8, NULL, NULL, 0), -EINVAL);
	pmaps_proc_close(proc);
}

static void test_total_no_rollup(void **state)
{
	struct pmaps_proc *proc = open_fixture("no-rollup", "4242");
	struct pmaps_group_row row;
	enum pmaps_source src = PMAPS_SRC_MAPS;

	(void)state;
	assert_int_equal(pmaps_total(proc, &row, sizeof(row), &src, NULL, 0), 0);
	assert_int_equal(src, PMAPS_SRC_SMAPS);
	assert_int_equal(row.key.len, 5);
	assert_memory_equal(row.key.ptr, "smaps", 5);
	assert_int_equal(row.flags, PMAPS__ROW_SRC(PMAPS_SRC_SMAPS));
	ASSERT_GVAL(row, PMAPS_V_MAPPINGS, 1, 37);
	ASSERT_GVAL(row, PMAPS_V_VSIZE, 1, 2994176);
	ASSERT_GVAL(row, PMAPS_F_SIZE, 1, 2994176);
	ASSERT_GVAL(row, PMAPS_F_RSS, 1, 1884160);
	ASSERT_GVAL(row, PMAPS_F_PSS, 1, 546816);
	ASSERT_GVAL(row, PMAPS_F_PRIVATE_CLEAN, 1, 118784);
	ASSERT_GVAL(row, PMAPS_F_PRIVATE_DIRTY, 1, 110592);
	ASSERT_GVAL(row, PMAPS_F_KERNEL_PAGE_SIZE, 1, 4096); /* the largest, not a sum */
	ASSERT_GVAL(row, PMAPS_F_PSS_DIRTY, 0, 0);
	pmaps_proc_close(proc);
}

static void expect_total_error(const char *tree, const char *pid, int err, enum pmaps_source want,
                               const char *msg_start)
{
	struct pmaps_proc *proc = open_fixture(tree, pid);
	struct pmaps_group_row row;
	enum pmaps_source src = PMAPS_SRC_MAPS;
	char msg[256] = "";

	assert_int_equal(pmaps_total(proc, &row, sizeof(row), &src, msg, sizeof(msg)), err);
	assert_int_equal(src, want);
	if (strncmp(msg, msg_start, strlen(msg_start)) != 0)
		fail_msg("message '%s' does not start with '%s'", msg, msg_start);
	pmaps_proc_close(proc);
}

static void test_total_errors(void **state)
{
	(void)state;
	/* An empty smaps and a stat that says kernel thread. */
	expect_total_error("procs-basic", "2", -ENODATA, PMAPS_SRC_SMAPS,
	                   "smaps: a kernel thread has no user-space memory");
	/* Swap sums that pass 2^64. */
	expect_total_error("impossible", "101", -EOVERFLOW, PMAPS_SRC_SMAPS,
	                   "smaps: a sum passes 2^64 bytes");
	expect_total_error("impossible", "100", -EBADMSG, PMAPS_SRC_ROLLUP,
	                   "smaps_rollup: mapping at line 1 (400000-403000): Rss");
	expect_total_error("malformed", "4242", -EBADMSG, PMAPS_SRC_SMAPS,
	                   "smaps: line 61, byte offset 1845: expected a value in kB");
}

/* ---- reading again ---- */

static const char row_a[] =
	"00400000-00402000 rw-p 00000000 00:00 0 \n"
	"Size:                  8 kB\n"
	"Rss:                   8 kB\n"
	"Private_Dirty:         8 kB\n";
/* A grew to 00403000 between two of the kernel's reads: listed again. */
static const char row_a_grown[] =
	"00400000-00403000 rw-p 00000000 00:00 0 \n"
	"Size:                 12 kB\n"
	"Rss:                  12 kB\n"
	"Private_Dirty:        12 kB\n";
static const char row_b[] =
	"00500000-00501000 r--p 00000000 00:00 0 \n"
	"Size:                  4 kB\n"
	"Rss:                   4 kB\n"
	"Private_Dirty:         4 kB\n";

static char overlap_root[1024], smaps_path[1200];
static int eofs, fix_after;

static void write_smaps(int overlap)
{
	FILE *f = fopen(smaps_path, "w");

	assert_non_null(f);
	fputs(overlap ? row_a : row_a_grown, f);
	if (overlap)
		fputs(row_a_grown, f);
	fputs(row_b, f);
	assert_int_equal(fclose(f), 0);
}

/* Counts the reads of smaps to their end; after FIX_AFTER of them, it stops changing. */
static ssize_t counting_read(int fd, void *buf, size_t len)
{
	ssize_t n = read(fd, buf, len);

	if (n == 0 && ++eofs == fix_after)
		write_smaps(0);
	return n;
}

static struct pmaps_proc *overlap_tree(int fix)
{
	char dir[1100];
	struct pmaps_proc *proc;

	snprintf(overlap_root, sizeof(overlap_root), "%s/pmaps-overlap-XXXXXX",
	         getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(overlap_root));
	snprintf(dir, sizeof(dir), "%s/7", overlap_root);
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(smaps_path, sizeof(smaps_path), "%s/smaps", dir);
	write_smaps(1);
	eofs = 0;
	fix_after = fix;
	pmaps__read_hook = counting_read;
	assert_int_equal(pmaps_proc_open(&proc, overlap_root, "7"), 0);
	return proc;
}

static void overlap_tree_done(struct pmaps_proc *proc)
{
	char dir[1100];

	pmaps__read_hook = NULL;
	pmaps_proc_close(proc);
	unlink(smaps_path);
	snprintf(dir, sizeof(dir), "%s/7", overlap_root);
	rmdir(dir);
	rmdir(overlap_root);
}

static void test_group_read_again(void **state)
{
	struct pmaps_proc *proc = overlap_tree(1);
	struct pmaps_maps *c;
	struct pmaps_group *g;
	const struct pmaps_group_row *row;

	(void)state;
	assert_int_equal(pmaps_maps_open(&c, proc, PMAPS_SRC_SMAPS, 0), 0);
	assert_int_equal(pmaps_group_open(&g, PMAPS_GROUP_TOTAL), 0);
	assert_int_equal(pmaps_group_read(g, c), 0);
	assert_int_equal(eofs, 2);
	assert_string_equal(pmaps_maps_errmsg(c), "");
	assert_int_equal(pmaps_group_count(g), 1);
	row = pmaps_group_get(g, 0);
	assert_int_equal(row->flags, PMAPS__ROW_SRC(PMAPS_SRC_SMAPS));
	assert_int_equal(row->mappings, 2);
	assert_int_equal(row->vsize, 16 * KB);
	assert_int_equal(row->v[PMAPS_F_RSS], 16 * KB);
	pmaps_group_close(g);
	pmaps_maps_close(c);
	overlap_tree_done(proc);
}

static void test_group_read_kept_changing(void **state)
{
	struct pmaps_proc *proc = overlap_tree(0);
	struct pmaps_maps *c;
	struct pmaps_group *g;
	const char *want = "smaps: its mappings kept changing while they were read";

	(void)state;
	assert_int_equal(pmaps_maps_open(&c, proc, PMAPS_SRC_SMAPS, 0), 0);
	assert_int_equal(pmaps_group_open(&g, PMAPS_GROUP_PATH), 0);
	assert_int_equal(pmaps_group_read(g, c), -EAGAIN);
	assert_int_equal(eofs, PMAPS_MAX_READS);
	if (strncmp(pmaps_maps_errmsg(c), want, strlen(want)) != 0)
		fail_msg("message '%s' does not start with '%s'", pmaps_maps_errmsg(c), want);
	/* The last read's groups stay, marked: the caller may show them as such. */
	assert_int_equal(pmaps_group_count(g), 1);
	assert_int_equal(pmaps_group_get(g, 0)->flags, PMAPS_GROUP_OVERLAP | PMAPS__ROW_SRC(PMAPS_SRC_SMAPS));
	assert_int_equal(pmaps_group_get(g, 0)->mappings, 3);
	pmaps_group_close(g);
	pmaps_maps_close(c);
	overlap_tree_done(proc);
}

/* ---- page summaries ---- */

/* "START-END key=value ..." of the counts S knows, in key order. */
static void summary_str(char *b, size_t size, const struct pmaps_page_summary *s)
{
	size_t n = (size_t)snprintf(b, size, "0x%llx-0x%llx", (unsigned long long)s->start,
	                            (unsigned long long)s->end);

	for (int k = 0; k < PMAPS_PC_COUNT && n < size; k++)
		if (s->known & (1ull << k))
			n += (size_t)snprintf(b + n, size - n, " %s=%llu",
			                      pmaps_page_count_key((enum pmaps_page_count)k),
			                      (unsigned long long)s->n[k]);
}

/*
 * Summarizes every mapping of TREE's process 300 (or [START, END) of it
 * when END) and compares with WANT: what pmaps pages --summary --json
 * printed on the tree before the count moved into the library.
 */
static void check_summaries(const char *tree, uint64_t start, uint64_t end,
                            const char *const *want, size_t nwant)
{
	struct pmaps_proc *proc = open_fixture(tree, "300");
	struct pmaps_pages *pg;
	struct pmaps_maps *maps;
	const struct pmaps_mapping *m;
	struct pmaps_page_summary sum = {.size = sizeof(struct pmaps_page_summary)};
	char got[1024];
	size_t i = 0;
	int err;

	assert_int_equal(pmaps_pages_open(&pg, proc, PMAPS_PAGES_AUTO, PMAPS_PAGES_KPAGE), 0);
	assert_int_equal(pmaps_maps_open(&maps, proc, PMAPS_SRC_MAPS, 0), 0);
	while ((err = pmaps_maps_next(maps, &m)) > 0) {
		if (end && (m->end <= start || m->start >= end))
			continue;
		assert_int_equal(pmaps_pages_summarize(pg, end ? start : m->start,
		                                       end ? end : m->end, &sum), 0);
		assert_int_equal(sum.page_size, sysconf(_SC_PAGESIZE));
		summary_str(got, sizeof(got), &sum);
		if (i >= nwant)
			fail_msg("%s: mapping %zu, %s, beyond the %zu expected", tree, i + 1, got, nwant);
		assert_string_equal(got, want[i]);
		/* What the model promises, whatever the tree. */
		assert_int_equal(sum.n[PMAPS_PC_EXCLUSIVE] + sum.n[PMAPS_PC_SHARED],
		                 sum.n[PMAPS_PC_RESIDENT]);
		i++;
	}
	assert_int_equal(err, 0);
	assert_int_equal(i, nwant);
	pmaps_maps_close(maps);
	pmaps_pages_close(pg);
	pmaps_proc_close(proc);
}

static void test_pages_summarize(void **state)
{
	static const char *const pages[] = {
		"0x400000-0x410000 pages=16 resident=10 swapped=0 file=10 zero=0 exclusive=0 shared=10 kpf_dirty=0 kpf_active=5 kpf_referenced=5 kpf_idle=0 lazyfree=0 kpf_thp=0 kpf_mlocked=0 mapped_by_2_or_more=5 mapped_by_0=0 mapped_by_1=5 mapped_by_2=0 mapped_by_3_4=5 mapped_by_5_8=0 mapped_by_9_or_more=0",
		"0x600000-0x608000 pages=8 resident=4 swapped=2 file=0 zero=0 exclusive=4 shared=0 kpf_dirty=2 kpf_active=0 kpf_referenced=0 kpf_idle=0 lazyfree=1 kpf_thp=0 kpf_mlocked=1 mapped_by_2_or_more=1 mapped_by_0=0 mapped_by_1=3 mapped_by_2=1 mapped_by_3_4=0 mapped_by_5_8=0 mapped_by_9_or_more=0",
		"0x1000000-0x1004000 pages=4 resident=2 swapped=0 file=0 zero=0 exclusive=2 shared=0 kpf_dirty=2 kpf_active=0 kpf_referenced=0 kpf_idle=0 lazyfree=0 kpf_thp=2 kpf_mlocked=0 mapped_by_2_or_more=0 mapped_by_0=0 mapped_by_1=2 mapped_by_2=0 mapped_by_3_4=0 mapped_by_5_8=0 mapped_by_9_or_more=0",
	};
	static const char *const nokpage[] = {
		"0x400000-0x410000 pages=16 resident=10 swapped=0 file=10 exclusive=0 shared=10",
		"0x600000-0x608000 pages=8 resident=4 swapped=2 file=0 exclusive=4 shared=0",
		"0x1000000-0x1004000 pages=4 resident=2 swapped=0 file=0 exclusive=2 shared=0",
	};
	static const char *const zero[] = {
		"0x200000-0x210000 pages=16 resident=2 swapped=0 file=0 zero=8 exclusive=2 shared=0 kpf_dirty=0 kpf_active=0 kpf_referenced=0 kpf_idle=0 lazyfree=0 kpf_thp=0 kpf_mlocked=0 mapped_by_2_or_more=0 mapped_by_0=0 mapped_by_1=2 mapped_by_2=0 mapped_by_3_4=0 mapped_by_5_8=0 mapped_by_9_or_more=0",
		"0x400000-0x600000 pages=512 resident=0 swapped=0 file=0 zero=512 exclusive=0 shared=0 kpf_dirty=0 kpf_active=0 kpf_referenced=0 kpf_idle=0 lazyfree=0 kpf_thp=0 kpf_mlocked=0 mapped_by_2_or_more=0 mapped_by_0=0 mapped_by_1=0 mapped_by_2=0 mapped_by_3_4=0 mapped_by_5_8=0 mapped_by_9_or_more=0",
		"0x800000-0x802000 pages=2 resident=1 swapped=0 file=0 zero=0 exclusive=1 shared=0 kpf_dirty=0 kpf_active=0 kpf_referenced=0 kpf_idle=0 lazyfree=0 kpf_thp=1 kpf_mlocked=0 mapped_by_2_or_more=0 mapped_by_0=1 mapped_by_1=0 mapped_by_2=0 mapped_by_3_4=0 mapped_by_5_8=0 mapped_by_9_or_more=0",
	};
	/* pmaps pages 300 0x601800-0x604001: the range rounded out to pages. */
	static const char *const part[] = {
		"0x601000-0x605000 pages=4 resident=2 swapped=2 file=0 zero=0 exclusive=2 shared=0 kpf_dirty=0 kpf_active=0 kpf_referenced=0 kpf_idle=0 lazyfree=1 kpf_thp=0 kpf_mlocked=0 mapped_by_2_or_more=1 mapped_by_0=0 mapped_by_1=1 mapped_by_2=1 mapped_by_3_4=0 mapped_by_5_8=0 mapped_by_9_or_more=0",
	};
	static const char *const part_nokpage[] = {
		"0x601000-0x605000 pages=4 resident=2 swapped=2 file=0 exclusive=2 shared=0",
	};

	(void)state;
	check_summaries("pages", 0, 0, pages, 3);
	check_summaries("pages-nokpage", 0, 0, nokpage, 3);
	check_summaries("pages-zero", 0, 0, zero, 3);
	check_summaries("pages", 0x601800, 0x604001, part, 1);
	check_summaries("pages-nokpage", 0x601800, 0x604001, part_nokpage, 1);
}

static void test_page_count_keys(void **state)
{
	(void)state;
	assert_string_equal(pmaps_page_count_key(PMAPS_PC_PAGES), "pages");
	assert_string_equal(pmaps_page_count_key(PMAPS_PC_LAZYFREE), "lazyfree");
	assert_string_equal(pmaps_page_count_key(PMAPS_PC_MAPPED_2), "mapped_by_2_or_more");
	assert_string_equal(pmaps_page_count_key(PMAPS_PC_MAPPED_BY_9), "mapped_by_9_or_more");
	assert_null(pmaps_page_count_key(PMAPS_PC_COUNT));
	assert_null(pmaps_page_count_key((enum pmaps_page_count)-1));
}

static void test_page_range_pages(void **state)
{
	uint64_t ps = (uint64_t)sysconf(_SC_PAGESIZE);
	struct pmaps_page_range r = {.start = 0x7f0000000000ull, .end = 0x7f0000000000ull + 3 * ps};
	(void)state;
	assert_int_equal(pmaps_page_range_pages(&r), 3);
	r.end = r.start + ps;
	assert_int_equal(pmaps_page_range_pages(&r), 1);
	r.start = 0;
	r.end = 0xfffffffffffff000ull;
	assert_int_equal(pmaps_page_range_pages(&r), 0xfffffffffffff000ull / ps);
}

/* ---- one cursor, many processes ---- */

static int open_fds(void)
{
	int n = 0;

	for (int fd = 0; fd < 4096; fd++)
		n += fcntl(fd, F_GETFD) >= 0;
	return n;
}

/* Rows of C to its end: how many, and whether [START, END) was one of them. */
static int read_rows(struct pmaps_maps *c, uint64_t start, uint64_t end, int *found)
{
	const struct pmaps_mapping *m;
	int n = 0, r;

	*found = 0;
	while ((r = pmaps_maps_next(c, &m)) > 0) {
		n++;
		*found |= m->start == start && m->end == end && m->v[PMAPS_F_RSS] == end - start;
	}
	assert_int_equal(r, 0);
	return n;
}

/* A child that maps 13 pages of its own, touches them, says where, and waits. */
static pid_t spawn_child(uint64_t *addr)
{
	int p[2];
	pid_t pid;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_int_not_equal(pid, -1);
	if (pid == 0) {
		char *a = mmap(NULL, 13 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		               -1, 0);
		uint64_t v = (uint64_t)(uintptr_t)a;
		if (a == MAP_FAILED)
			_exit(1);
		memset(a, 1, 13 * 4096);
		if (write(p[1], &v, sizeof(v)) != sizeof(v))
			_exit(1);
		pause();
		_exit(0);
	}
	close(p[1]);
	assert_int_equal(read(p[0], addr, sizeof(*addr)), sizeof(*addr));
	close(p[0]);
	return pid;
}

static void test_maps_retarget(void **state)
{
	struct pmaps_proc *self, *child, *dead;
	struct pmaps_maps *c;
	char pidname[24];
	uint64_t addr, end;
	pid_t pid, gone;
	unsigned long opened;
	int fds, rows, found;

	(void)state;
	fds = open_fds();
	pid = spawn_child(&addr);
	end = addr + 13 * 4096;
	gone = fork();
	if (gone == 0)
		_exit(0);
	pmaps_set_allocator(count_alloc, count_free, NULL);
	assert_int_equal(pmaps_proc_open(&self, NULL, "self"), 0);
	snprintf(pidname, sizeof(pidname), "%d", (int)pid);
	assert_int_equal(pmaps_proc_open(&child, NULL, pidname), 0);
	snprintf(pidname, sizeof(pidname), "%d", (int)gone);
	assert_int_equal(pmaps_proc_open(&dead, NULL, pidname), 0);
	assert_int_equal(waitpid(gone, NULL, 0), gone); /* reaped: its handle names no process */
	assert_int_equal(pmaps_maps_open(&c, self, PMAPS_SRC_SMAPS, 0), 0);
	opened = allocs;

	rows = read_rows(c, addr, end, &found);
	assert_int_equal(found, 0); /* the child's mapping is not ours */
	if (rows < 1)
		fail_msg("this process read as %d mappings", rows);
	assert_int_equal(pmaps_maps_retarget(c, child), 0);
	read_rows(c, addr, end, &found);
	assert_int_equal(found, 1);
	/* A process gone: an error, and the cursor serves the next retarget. */
	assert_int_equal(pmaps_maps_retarget(c, dead), -ESRCH);
	assert_int_not_equal(pmaps_maps_errmsg(c)[0], '\0');
	assert_int_equal(pmaps_maps_retarget(c, self), 0);
	assert_string_equal(pmaps_maps_errmsg(c), "");
	read_rows(c, addr, end, &found);
	assert_int_equal(found, 0);
	assert_int_equal(pmaps_maps_retarget(c, child), 0);
	read_rows(c, addr, end, &found);
	assert_int_equal(found, 1);
	assert_int_equal(pmaps_maps_rewind(c), 0);
	read_rows(c, addr, end, &found);
	assert_int_equal(found, 1);
	/* Not one allocation from the first read on. */
	assert_int_equal(allocs, opened);

	pmaps_maps_close(c);
	pmaps_proc_close(dead);
	pmaps_proc_close(child);
	pmaps_proc_close(self);
	pmaps_set_allocator(NULL, NULL, NULL);
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	assert_int_equal(open_fds(), fds); /* every fd it opened, closed */
}

static void test_maps_retarget_mem(void **state)
{
	static const char text[] = "00400000-00401000 r--p 00000000 00:00 0 \n";
	struct pmaps_maps *c;
	struct pmaps_proc *self;

	(void)state;
	assert_int_equal(pmaps_proc_open(&self, NULL, "self"), 0);
	assert_int_equal(pmaps__maps_open_mem(&c, PMAPS_SRC_MAPS, text, sizeof(text) - 1, 0), 0);
	assert_int_equal(pmaps_maps_retarget(c, self), -EINVAL); /* text has no process */
	pmaps_maps_close(c);
	pmaps_proc_close(self);
}

/* What pmaps_maps_read_whole() handed a caller: rows and starts. */
struct whole {
	unsigned rows, resets, stop_at;
	uint64_t last_start;
};

static int whole_row(void *ctx, const struct pmaps_mapping *m)
{
	struct whole *w = ctx;

	w->rows++;
	w->last_start = m->start;
	return w->stop_at && w->rows == w->stop_at ? -ENOMEM : 0;
}

static void whole_reset(void *ctx)
{
	struct whole *w = ctx;

	w->rows = 0;
	w->resets++;
}

/* A cursor read whole: once when the text is whole, PMAPS_MAX_READS times when it overlaps. */
static void test_maps_read_whole(void **state)
{
	static const char whole_text[] = "00400000-00401000 r--p 00000000 00:00 0 \n"
	                                 "00401000-00403000 rw-p 00000000 00:00 0 \n";
	static const char overlap_text[] = "00400000-00402000 rw-p 00000000 00:00 0 \n"
	                                   "00400000-00404000 rw-p 00000000 00:00 0 \n";
	const char *want = "maps: its mappings kept changing while they were read";
	struct pmaps_maps *c;
	struct whole w = {0};

	(void)state;
	assert_int_equal(pmaps__maps_open_mem(&c, PMAPS_SRC_MAPS, whole_text, sizeof(whole_text) - 1,
	                                      0), 0);
	assert_int_equal(pmaps_maps_read_whole(c, whole_row, whole_reset, &w), 0);
	assert_int_equal(w.resets, 1);
	assert_int_equal(w.rows, 2);
	assert_int_equal(w.last_start, 0x401000);
	pmaps_maps_close(c);

	memset(&w, 0, sizeof(w));
	assert_int_equal(pmaps__maps_open_mem(&c, PMAPS_SRC_MAPS, overlap_text,
	                                      sizeof(overlap_text) - 1, 0), 0);
	assert_int_equal(pmaps_maps_read_whole(c, whole_row, whole_reset, &w), -EAGAIN);
	assert_int_equal(w.resets, PMAPS_MAX_READS);
	assert_int_equal(w.rows, 2);
	if (strncmp(pmaps_maps_errmsg(c), want, strlen(want)) != 0)
		fail_msg("message '%s' does not start with '%s'", pmaps_maps_errmsg(c), want);
	pmaps_maps_close(c);

	/* The caller's error stops the read at once, and is the answer. */
	memset(&w, 0, sizeof(w));
	w.stop_at = 1;
	assert_int_equal(pmaps__maps_open_mem(&c, PMAPS_SRC_MAPS, whole_text, sizeof(whole_text) - 1,
	                                      0), 0);
	assert_int_equal(pmaps_maps_read_whole(c, whole_row, whole_reset, &w), -ENOMEM);
	assert_int_equal(w.resets, 1);
	assert_int_equal(w.rows, 1);
	pmaps_maps_close(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_value_keys),
		cmocka_unit_test(test_mapping_values),
		cmocka_unit_test(test_group_values),
		cmocka_unit_test(test_group_kind_name),
		cmocka_unit_test(test_total_rollup),
		cmocka_unit_test(test_total_count_apart),
		cmocka_unit_test(test_total_no_rollup),
		cmocka_unit_test(test_total_errors),
		cmocka_unit_test(test_group_read_again),
		cmocka_unit_test(test_group_read_kept_changing),
		cmocka_unit_test(test_pages_summarize),
		cmocka_unit_test(test_page_count_keys),
		cmocka_unit_test(test_page_range_pages),
		cmocka_unit_test(test_maps_retarget),
		cmocka_unit_test(test_maps_retarget_mem),
		cmocka_unit_test(test_maps_read_whole),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
