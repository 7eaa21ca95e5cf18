/* SPDX-License-Identifier: MIT */
/*
 * test_abi.c - what libpmaps.so.0 promises a program built against an
 * older or newer pmaps.h: the structs a caller sizes (status, page summary,
 * pmaps_total()'s row, explain) are filled up to the caller's size and not
 * a byte further, a size below the ABI-0 one is -EINVAL, and no member of
 * a public struct ever moves.
 *
 * Its first part is the previous header layout: ABI 0's structs, copied
 * below with the array bounds spelt out, against pmaps.h's, member by
 * member, and the numbers of its enum constants, at compile time. A change
 * that moves or resizes a member, shrinks a struct or renumbers a constant
 * fails to compile here. A new member goes at the end of its struct and is
 * not added to the copies.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "internal.h"
#include "testhooks.h"
#include "../expect.h"

/* ------------------------------------------------------------------ */
/* The previous header layout: ABI 0 (pmaps 0.1.0)                     */

struct abi0_view {
	const char *ptr;
	size_t len;
};

struct abi0_unknown {
	struct abi0_view name;
	uint64_t value;
	int is_kb;
	int is_number;
	struct abi0_view text;
};

struct abi0_mapping {
	uint64_t start, end;
	uint64_t offset;
	uint64_t inode;
	uint32_t dev_major, dev_minor;
	unsigned perms;
	unsigned flags;
	int kind;
	struct abi0_view path;
	uint64_t present;
	uint64_t v[64];
	uint64_t vm_flags;
	struct abi0_view vm_flags_text;
	unsigned n_unknown;
	struct abi0_unknown unknown[16];
	unsigned line;
};

struct abi0_status {
	uint32_t size;
	uint64_t present;
	uint64_t v[64];
};

struct abi0_page_range {
	uint64_t start, end;
	unsigned flags;
	uint64_t kflags;
	uint64_t mapcount;
	uint64_t pfn;
};

struct abi0_page_summary {
	uint32_t size;
	uint64_t start, end;
	uint64_t n[64];
	uint64_t known;
	unsigned page_size;
};

struct abi0_note {
	int kind;
	uint64_t n[2];
};

struct abi0_explain_top {
	uint64_t start, end, rss;
	int cat;
	int path_truncated;
	size_t path_len;
	char path[4352];
};

struct abi0_explain {
	uint32_t size;
	uint64_t v[32][16];
	uint64_t mappings[32];
	uint64_t total[16];
	uint64_t nmappings;
	uint64_t uss;
	uint64_t effective_rss;
	int have_rollup;
	uint64_t rollup[64];
	uint64_t rollup_apart;
	struct abi0_status status;
	uint64_t status_apart;
	int status_parts_agree;
	unsigned threads;
	unsigned stacks_found;
	unsigned stacks_guessed;
	unsigned ntop;
	struct abi0_explain_top top[10];
	int runtime_kind;
	char runtime_version[32];
	char runtime_evidence[512];
	unsigned arenas;
	unsigned go_labels;
	uint64_t jvm_heap_start, jvm_heap_end;
	unsigned nnotes;
	struct abi0_note notes[32];
	int pages;
	int pages_kpage;
	int pages_strategy;
	unsigned pages_known;
	char pages_note[256];
	uint64_t pg[32][16];
};

struct abi0_group_row {
	struct abi0_view key;
	int kind;
	uint32_t kinds;
	uint64_t mappings;
	uint64_t vsize;
	uint64_t present;
	uint64_t v[64];
	unsigned flags;
};

struct abi0_proc_info {
	int pid;
	uint32_t uid;
	int kernel_thread;
	char state;
	size_t comm_len;
	char comm[64];
};

/* Member M of struct pmaps_T is where ABI 0 had it, as large. */
#define SAME(T, m)                                                                            \
	_Static_assert(offsetof(struct pmaps_##T, m) == offsetof(struct abi0_##T, m) &&           \
	                   sizeof(((struct pmaps_##T *)0)->m) == sizeof(((struct abi0_##T *)0)->m), \
	               "struct pmaps_" #T ": member " #m " moved since ABI 0")
/* Struct pmaps_T holds all of ABI 0's: it only grows, at its end. */
#define NOT_SHORTER(T)                                                                        \
	_Static_assert(sizeof(struct pmaps_##T) >= sizeof(struct abi0_##T),                      \
	               "struct pmaps_" #T " is shorter than in ABI 0")

SAME(view, ptr); SAME(view, len); NOT_SHORTER(view);

SAME(unknown, name); SAME(unknown, value); SAME(unknown, is_kb); SAME(unknown, is_number);
SAME(unknown, text); NOT_SHORTER(unknown);

SAME(mapping, start); SAME(mapping, end); SAME(mapping, offset); SAME(mapping, inode);
SAME(mapping, dev_major); SAME(mapping, dev_minor); SAME(mapping, perms); SAME(mapping, flags);
SAME(mapping, kind); SAME(mapping, path); SAME(mapping, present); SAME(mapping, v);
SAME(mapping, vm_flags); SAME(mapping, vm_flags_text); SAME(mapping, n_unknown);
SAME(mapping, unknown); SAME(mapping, line); NOT_SHORTER(mapping);

SAME(status, size); SAME(status, present); SAME(status, v); NOT_SHORTER(status);

SAME(page_range, start); SAME(page_range, end); SAME(page_range, flags);
SAME(page_range, kflags); SAME(page_range, mapcount); SAME(page_range, pfn);
NOT_SHORTER(page_range);

SAME(page_summary, size); SAME(page_summary, start); SAME(page_summary, end);
SAME(page_summary, n); SAME(page_summary, known); SAME(page_summary, page_size);
NOT_SHORTER(page_summary);

SAME(note, kind); SAME(note, n); NOT_SHORTER(note);

SAME(explain_top, start); SAME(explain_top, end); SAME(explain_top, rss);
SAME(explain_top, cat); SAME(explain_top, path_truncated); SAME(explain_top, path_len);
SAME(explain_top, path); NOT_SHORTER(explain_top);

SAME(explain, size); SAME(explain, v); SAME(explain, mappings); SAME(explain, total);
SAME(explain, nmappings); SAME(explain, uss); SAME(explain, effective_rss);
SAME(explain, have_rollup); SAME(explain, rollup); SAME(explain, rollup_apart);
SAME(explain, status); SAME(explain, status_apart); SAME(explain, status_parts_agree);
SAME(explain, threads); SAME(explain, stacks_found); SAME(explain, stacks_guessed);
SAME(explain, ntop); SAME(explain, top); SAME(explain, runtime_kind);
SAME(explain, runtime_version); SAME(explain, runtime_evidence); SAME(explain, arenas);
SAME(explain, go_labels); SAME(explain, jvm_heap_start); SAME(explain, jvm_heap_end);
SAME(explain, nnotes); SAME(explain, notes); SAME(explain, pages); SAME(explain, pages_kpage);
SAME(explain, pages_strategy); SAME(explain, pages_known); SAME(explain, pages_note);
SAME(explain, pg); NOT_SHORTER(explain);

SAME(group_row, key); SAME(group_row, kind); SAME(group_row, kinds); SAME(group_row, mappings);
SAME(group_row, vsize); SAME(group_row, present); SAME(group_row, v); SAME(group_row, flags);
NOT_SHORTER(group_row);

SAME(proc_info, pid); SAME(proc_info, uid); SAME(proc_info, kernel_thread);
SAME(proc_info, state); SAME(proc_info, comm_len); SAME(proc_info, comm);
NOT_SHORTER(proc_info);

/*
 * The library takes a program built with ABI 0 (its size is not below the
 * minimum) and fills every member ABI 0 had (the minimum covers them).
 */
#define SIZE0_FITS(T, SIZE0, last)                                                            \
	_Static_assert(SIZE0 <= sizeof(struct abi0_##T) &&                                       \
	                   SIZE0 >= offsetof(struct abi0_##T, last) +                               \
	                                sizeof(((struct abi0_##T *)0)->last),                       \
	               "the ABI-0 size of struct pmaps_" #T " is not ABI 0's")
SIZE0_FITS(status, PMAPS__STATUS_SIZE0, v);
SIZE0_FITS(page_summary, PMAPS__SUMMARY_SIZE0, page_size);
SIZE0_FITS(group_row, PMAPS__GROUP_ROW_SIZE0, flags);
SIZE0_FITS(explain, PMAPS__EXPLAIN_SIZE0, pg);

/* The frozen capacities and bounds of ABI 0. */
_Static_assert(PMAPS_F_MAX == 64 && PMAPS_ST_MAX == 64 && PMAPS_PC_MAX == 64 &&
               PMAPS_X_MAX == 32 && PMAPS_XC_MAX == 16 && PMAPS_XP_MAX == 16 &&
               PMAPS_NOTE_MAX == 32 && PMAPS_MAX_UNKNOWN == 16 && PMAPS_EXPLAIN_TOP == 10 &&
               PMAPS_EXPLAIN_PATH == 4352 && PMAPS_ERRMSG_SIZE_PUBLIC == 256,
               "a frozen capacity changed");

/*
 * Enum numbers: the last constant each enum had in ABI 0 keeps its number,
 * so none was inserted before it (new ones go just before *_COUNT).
 */
#define LAST(c, n) _Static_assert((c) == (n), #c " renumbered since ABI 0")
LAST(PMAPS_F_PROTECTION_KEY, 26);
LAST(PMAPS_KIND_ROLLUP, 12);
LAST(PMAPS_VM_UI, 37);
LAST(PMAPS_VM_UNKNOWN, 63);
LAST(PMAPS_V_SHARED, 64);
LAST(PMAPS_V_MAPPINGS, 67);
LAST(PMAPS_ST_EUID, 10);
LAST(PMAPS_SRC_ROLLUP, 2);
LAST(PMAPS_PAGES_PAGEMAP, 2);
LAST(PMAPS_PC_MAPPED_BY_9, 21);
LAST(PMAPS_X_OTHER, 11);
LAST(PMAPS_XC_SHARED_CLEAN, 10);
LAST(PMAPS_RUNTIME_CPYTHON, 4);
LAST(PMAPS_XP_ZERO, 5);
LAST(PMAPS_NOTE_SWAP, 12);
LAST(PMAPS_GROUP_TOTAL, 2);
/* Flag bits keep theirs. */
LAST(PMAPS_PERM_SHARED, 1 << 3);
LAST(PMAPS_ROW_OVERLAP, 1 << 6);
LAST(PMAPS_PG_GUARD, 1 << 8);
LAST(PMAPS_PAGES_PFN, 1 << 2);
LAST(PMAPS_EXPLAIN_PAGES, 1 << 0);
LAST(PMAPS_GROUP_ROLLUP, 1 << 3);

/* ------------------------------------------------------------------ */
/* Sizes                                                               */

#define CANARY 0xa5
/* Room past the largest struct, to see that nothing is written there. */
#define SLACK 256

/* The caller's memory: a struct of any size at its start, canary bytes after. */
static union {
	max_align_t align;
	unsigned char b[sizeof(struct pmaps_explain) + SLACK];
} buf;
/* The whole result, from a call with the struct's own sizeof. */
static union {
	max_align_t align;
	unsigned char b[sizeof(struct pmaps_explain)];
} whole, want;

enum which { STATUS, SUMMARY, TOTAL, EXPLAIN };

static const char *const names[] = {"struct pmaps_status", "struct pmaps_page_summary",
                                    "struct pmaps_group_row", "struct pmaps_explain"};

static size_t struct_size(enum which w)
{
	static const size_t sizes[] = {sizeof(struct pmaps_status), sizeof(struct pmaps_page_summary),
	                               sizeof(struct pmaps_group_row), sizeof(struct pmaps_explain)};
	return sizes[w];
}

static struct pmaps_proc *open_tree(const char *tree, const char *pid)
{
	char root[4096];
	struct pmaps_proc *p;

	snprintf(root, sizeof(root), "%s/%s/proc", PMAPS_TEST_DATA, tree);
	assert_int_equal(pmaps_proc_open(&p, root, pid), 0);
	return p;
}

/*
 * Calls W's function on a struct of SIZE bytes at the start of BUF (or into
 * OUT), everything else canary; its message into MSG.
 */
static int call(enum which w, size_t size, unsigned char *out, char *msg, size_t msgsz)
{
	struct pmaps_proc *p;
	struct pmaps_pages *pg;
	enum pmaps_source src = PMAPS_SRC_MAPS;
	uint32_t size32 = (uint32_t)size;
	int r;

	memset(out, CANARY, out == buf.b ? sizeof(buf.b) : sizeof(whole.b));
	if (w != TOTAL)
		memcpy(out, &size32, sizeof(size32)); /* each one's first member */
	snprintf(msg, msgsz, "unset");
	switch (w) {
	case STATUS:
		p = open_tree("explain-glibc", "100");
		r = pmaps_status_read(p, (struct pmaps_status *)out, msg, msgsz);
		break;
	case SUMMARY:
		p = open_tree("pages", "300");
		assert_int_equal(pmaps_pages_open(&pg, p, PMAPS_PAGES_AUTO, PMAPS_PAGES_KPAGE), 0);
		r = pmaps_pages_summarize(pg, 0x400000, 0x410000, (struct pmaps_page_summary *)out);
		snprintf(msg, msgsz, "%s", pmaps_pages_errmsg(pg));
		pmaps_pages_close(pg);
		break;
	case TOTAL:
		p = open_tree("kernel-6.1", "4242");
		r = pmaps_total(p, (struct pmaps_group_row *)out, size, &src, msg, msgsz);
		break;
	default:
		p = open_tree("explain-glibc", "100");
		r = pmaps_explain(p, (struct pmaps_explain *)out, 0, msg, msgsz);
		break;
	}
	pmaps_proc_close(p);
	return r;
}

/* Byte I of BUF past SIZE that is no longer canary, or SIZEOF(buf) if none. */
static size_t first_written(size_t from)
{
	size_t i = from;

	while (i < sizeof(buf.b) && buf.b[i] == CANARY)
		i++;
	return i;
}

/*
 * A call with SIZE (smaller or larger than the struct) writes the full
 * call's first min(SIZE, sizeof) bytes, keeps SIZE, and writes nothing past.
 */
static void expect_prefix(enum which w, size_t size)
{
	size_t n = struct_size(w), fill = size < n ? size : n, skip = w == TOTAL ? 0 : 4, i;
	char msg[256];
	uint32_t got_size;
	int r;

	r = call(w, size, buf.b, msg, sizeof(msg));
	if (r != 0)
		fail_msg("%s of size %zu: %d (%s), expected 0", names[w], size, r, msg);
	i = first_written(fill);
	if (i != sizeof(buf.b))
		fail_msg("%s of size %zu: byte %zu past it written: %#x, expected %#x", names[w], size,
		         i, buf.b[i], CANARY);
	memcpy(want.b, whole.b, sizeof(want.b));
	for (i = skip; i < fill && buf.b[i] == want.b[i]; i++)
		;
	if (i != fill)
		fail_msg("%s of size %zu: byte %zu is %#x, the full call's %#x", names[w], size, i,
		         buf.b[i], want.b[i]);
	if (w != TOTAL) {
		memcpy(&got_size, buf.b, sizeof(got_size));
		assert_int_equal(got_size, size);
	}
}

/* Too small: -EINVAL, the message names the struct, and nothing is written but SIZE. */
static void expect_refused(enum which w, size_t size)
{
	char msg[256];
	size_t i;
	int r = call(w, size, buf.b, msg, sizeof(msg));

	if (r != -EINVAL)
		fail_msg("%s of size %zu: %d (%s), expected -EINVAL", names[w], size, r, msg);
	expect_contains(msg, names[w]);
	i = first_written(w == TOTAL ? 0 : 4);
	if (i != sizeof(buf.b))
		fail_msg("%s of size %zu, refused: byte %zu written: %#x", names[w], size, i, buf.b[i]);
}

/* The ABI-0 size of each struct: the struct as libpmaps 0.1.0 declared it. */
static const size_t size0[] = {PMAPS__STATUS_SIZE0, PMAPS__SUMMARY_SIZE0, PMAPS__GROUP_ROW_SIZE0,
                               PMAPS__EXPLAIN_SIZE0};

static void check(enum which w, size_t late)
{
	char msg[256];
	size_t n = struct_size(w);
	int r = call(w, n, whole.b, msg, sizeof(msg));

	if (r != 0)
		fail_msg("%s, full size: %d (%s)", names[w], r, msg);
	/* A program built with a shorter struct than this library's, here a prefix. */
	pmaps__size0_hook = late;
	expect_prefix(w, late);
	expect_prefix(w, late + 3);
	expect_refused(w, late - 1);
	pmaps__size0_hook = 0;
	/* A program built with a longer struct: this library's part, no more. */
	expect_prefix(w, n);
	expect_prefix(w, n + 64);
	/* Below the ABI-0 size; a program built with ABI 0 gets what ABI 0 had. */
	expect_refused(w, 0);
	expect_refused(w, size0[w] - 1);
	if (size0[w] < n)
		expect_prefix(w, size0[w]);
}

static void test_status_size(void **state)
{
	(void)state;
	check(STATUS, offsetof(struct pmaps_status, v[PMAPS_ST_VM_HWM]));
	/* What the prefix holds is the status, not canary. */
	assert_int_equal(((struct pmaps_status *)whole.b)->v[PMAPS_ST_VM_RSS], 3016 * 1024);
}

static void test_summary_size(void **state)
{
	(void)state;
	check(SUMMARY, offsetof(struct pmaps_page_summary, n[PMAPS_PC_MAPPED_BY_1]));
	assert_int_equal(((struct pmaps_page_summary *)whole.b)->n[PMAPS_PC_RESIDENT], 10);
}

static void test_total_size(void **state)
{
	(void)state;
	check(TOTAL, offsetof(struct pmaps_group_row, v[PMAPS_F_SWAP]));
	expect_set(((struct pmaps_group_row *)whole.b)->flags, PMAPS_GROUP_ROLLUP);
}

static void test_explain_size(void **state)
{
	(void)state;
	check(EXPLAIN, offsetof(struct pmaps_explain, notes));
	assert_int_equal(((struct pmaps_explain *)whole.b)->total[PMAPS_XC_RSS], 3004 * 1024);
}

/* No struct at all is -EINVAL too. */
static void test_null(void **state)
{
	struct pmaps_proc *p = open_tree("explain-glibc", "100");
	struct pmaps_pages *pg;
	enum pmaps_source src;
	char msg[256];

	(void)state;
	assert_int_equal(pmaps_status_read(p, NULL, msg, sizeof(msg)), -EINVAL);
	assert_int_equal(pmaps_total(p, NULL, sizeof(struct pmaps_group_row), &src, NULL, 0), -EINVAL);
	assert_int_equal(pmaps_explain(p, NULL, 0, NULL, 0), -EINVAL);
	pmaps_proc_close(p);
	p = open_tree("pages", "300");
	assert_int_equal(pmaps_pages_open(&pg, p, PMAPS_PAGES_PAGEMAP, 0), 0);
	assert_int_equal(pmaps_pages_summarize(pg, 0x400000, 0x410000, NULL), -EINVAL);
	expect_contains(pmaps_pages_errmsg(pg), "struct pmaps_page_summary");
	pmaps_pages_close(pg);
	pmaps_proc_close(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status_size),
		cmocka_unit_test(test_summary_size),
		cmocka_unit_test(test_total_size),
		cmocka_unit_test(test_explain_size),
		cmocka_unit_test(test_null),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
