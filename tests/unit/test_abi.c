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

/*
 * The structs 0.4.0 added (the runtime's books, their join, the source
 * choice), as it declared them: still ABI 0, frozen from here on.
 */
struct abi0_explain_choice {
	uint32_t size;
	int source;
	unsigned options;
	int reason;
	uint64_t hold_ns, limit_ns;
	uint32_t xc_known;
};

struct abi0_book_head {
	int asked, ok;
	uint64_t at_ns, start_ns, end_ns;
	char source[320];
	char why[256];
};

struct abi0_nmt_category {
	char name[40];
	uint64_t reserved, committed;
};

struct abi0_books {
	uint32_t size;
	uint64_t present[2];
	uint64_t v[128];
	struct abi0_book_head head[8];
	int go_env;
	char go_gogc[64], go_gomemlimit[64], go_godebug[256];
	char jvm_gc[48];
	int jvm_nmt;
	unsigned jvm_ncat;
	struct abi0_nmt_category jvm_cat[32];
	int after_ok;
	uint64_t after_rss;
};

struct abi0_listener {
	unsigned port;
	int ipv6;
	char host[48];
	char url[80];
};

struct abi0_jvm_attach {
	uint32_t size, uid, gid;
	int nspid, other_mntns;
};

struct abi0_join_term {
	int key, src, part, neg;
	uint64_t bytes;
};

struct abi0_join {
	uint32_t size;
	int ok;
	int refused;
	uint64_t rss;
	uint64_t part[16];
	uint64_t as_of_ns, skew_ns, max_skew_ns, moved, max_moved;
	unsigned nterms;
	struct abi0_join_term term[32];
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

SAME(explain_choice, size); SAME(explain_choice, source); SAME(explain_choice, options);
SAME(explain_choice, reason); SAME(explain_choice, hold_ns); SAME(explain_choice, limit_ns);
SAME(explain_choice, xc_known); NOT_SHORTER(explain_choice);

SAME(book_head, asked); SAME(book_head, ok); SAME(book_head, at_ns); SAME(book_head, start_ns);
SAME(book_head, end_ns); SAME(book_head, source); SAME(book_head, why); NOT_SHORTER(book_head);

SAME(nmt_category, name); SAME(nmt_category, reserved); SAME(nmt_category, committed);
NOT_SHORTER(nmt_category);

SAME(books, size); SAME(books, present); SAME(books, v); SAME(books, head); SAME(books, go_env);
SAME(books, go_gogc); SAME(books, go_gomemlimit); SAME(books, go_godebug); SAME(books, jvm_gc);
SAME(books, jvm_nmt); SAME(books, jvm_ncat); SAME(books, jvm_cat); SAME(books, after_ok);
SAME(books, after_rss); NOT_SHORTER(books);

SAME(listener, port); SAME(listener, ipv6); SAME(listener, host); SAME(listener, url);
NOT_SHORTER(listener);

SAME(jvm_attach, size); SAME(jvm_attach, uid); SAME(jvm_attach, gid); SAME(jvm_attach, nspid);
SAME(jvm_attach, other_mntns); NOT_SHORTER(jvm_attach);

SAME(join_term, key); SAME(join_term, src); SAME(join_term, part); SAME(join_term, neg);
SAME(join_term, bytes); NOT_SHORTER(join_term);

SAME(join, size); SAME(join, ok); SAME(join, refused); SAME(join, rss); SAME(join, part);
SAME(join, as_of_ns); SAME(join, skew_ns); SAME(join, max_skew_ns); SAME(join, moved);
SAME(join, max_moved); SAME(join, nterms); SAME(join, term); NOT_SHORTER(join);

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
SIZE0_FITS(explain_choice, PMAPS__CHOICE_SIZE0, xc_known);
SIZE0_FITS(books, PMAPS__BOOKS_SIZE0, after_rss);
SIZE0_FITS(jvm_attach, PMAPS__JVM_ATTACH_SIZE0, other_mntns);
SIZE0_FITS(join, PMAPS__JOIN_SIZE0, term);

/* The frozen capacities and bounds of ABI 0. */
_Static_assert(PMAPS_F_MAX == 64 && PMAPS_ST_MAX == 64 && PMAPS_PC_MAX == 64 &&
               PMAPS_X_MAX == 32 && PMAPS_XC_MAX == 16 && PMAPS_XP_MAX == 16 &&
               PMAPS_NOTE_MAX == 32 && PMAPS_MAX_UNKNOWN == 16 && PMAPS_EXPLAIN_TOP == 10 &&
               PMAPS_EXPLAIN_PATH == 4352 && PMAPS_ERRMSG_SIZE_PUBLIC == 256,
               "a frozen capacity changed");
/* Those 0.4.0 froze. */
_Static_assert(PMAPS_BOOK_MAX == 8 && PMAPS_BV_MAX == 128 && PMAPS_NMT_MAX == 32 &&
               PMAPS_JP_MAX == 16 && PMAPS_JOIN_TERMS == 32 && PMAPS_PS_MAX == 16 &&
               PMAPS_BOOK_SOURCE == 320 && PMAPS_BOOK_WHY == 256 && PMAPS_LISTENER_URL == 80,
               "a frozen capacity of 0.4.0 changed");

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
/* And those 0.4.0 added, from here on. */
LAST(PMAPS_ST_NSPID, 14);
LAST(PMAPS_CHOICE_NO_PAGES, 4);
LAST(PMAPS_BOOK_MALLOC, 3);
LAST(PMAPS_BV_MALLOC_TOP, 37);
LAST(PMAPS_NMT_SHUT_DOWN, 3);
LAST(PMAPS_JP_OTHER, 5);
LAST(PMAPS_JS_REMAINDER, 2);
LAST(PMAPS_JK_OTHER, 27);
LAST(PMAPS_JOIN_MOVED, 4);
LAST(PMAPS_PS_ABSENT, 8);
/* phys came in 0.2.0: its last state of 0.3.0 keeps its number, UNINIT follows. */
LAST(PMAPS_PHYS_KERNEL, 17);
LAST(PMAPS_PHYS_COUNT_0_3, 18);
LAST(PMAPS_PHYS_UNINIT, 18);
_Static_assert(offsetof(struct pmaps_phys_opts, states) >=
                   offsetof(struct pmaps_phys_opts, cancel) + sizeof(void *) &&
               offsetof(struct pmaps_phys_result, states) >
                   offsetof(struct pmaps_phys_result, cgroups),
               "struct pmaps_phys_opts and _result: 0.4.0's members go at their ends");
/* Flag bits keep theirs. */
LAST(PMAPS_PERM_SHARED, 1 << 3);
LAST(PMAPS_ROW_OVERLAP, 1 << 6);
LAST(PMAPS_PG_GUARD, 1 << 8);
LAST(PMAPS_PAGES_PFN, 1 << 2);
LAST(PMAPS_EXPLAIN_PAGES, 1 << 0);
LAST(PMAPS_GROUP_ROLLUP, 1 << 3);
LAST(PMAPS_GROUP_COUNTED, 1 << 5);

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

enum which { STATUS, SUMMARY, TOTAL, EXPLAIN, CHOICE, JOIN, JVM_ATTACH };

static const char *const names[] = {"struct pmaps_status", "struct pmaps_page_summary",
                                    "struct pmaps_group_row", "struct pmaps_explain",
                                    "struct pmaps_explain_choice", "struct pmaps_join",
                                    "struct pmaps_jvm_attach"};

static size_t struct_size(enum which w)
{
	static const size_t sizes[] = {sizeof(struct pmaps_status), sizeof(struct pmaps_page_summary),
	                               sizeof(struct pmaps_group_row), sizeof(struct pmaps_explain),
	                               sizeof(struct pmaps_explain_choice), sizeof(struct pmaps_join),
	                               sizeof(struct pmaps_jvm_attach)};
	return sizes[w];
}

/* The Go books the join test joins: read right after the explain, as a front end does. */
static const struct pmaps_books *go_books(void)
{
	static struct pmaps_books b;

	memset(&b, 0, sizeof(b));
	b.size = sizeof(b);
	b.head[PMAPS_BOOK_GO].asked = b.head[PMAPS_BOOK_GO].ok = 1;
	b.head[PMAPS_BOOK_GO].at_ns = 1764597802ull * 1000000000ull;
	pmaps_books_set(&b, PMAPS_BV_GO_HEAP_ALLOC, 1u << 20);
	pmaps_books_set(&b, PMAPS_BV_GO_HEAP_INUSE, 2u << 20);
	return &b;
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
	case CHOICE:
		p = open_tree("explain-glibc", "100");
		r = pmaps_explain_choose(p, PMAPS_SRC_AUTO, PMAPS_EXPLAIN_HOLD_NS,
		                         (struct pmaps_explain_choice *)out, msg, msgsz);
		break;
	case JOIN: {
		/* The fixture's explain, its clock fields fixed: the join's span is theirs. */
		static struct pmaps_explain x;
		p = open_tree("explain-glibc", "100");
		x.size = sizeof(x);
		assert_int_equal(pmaps_explain(p, &x, 0, NULL, 0), 0);
		x.read_start_ns = 1000, x.read_end_ns = 2000;
		r = pmaps_books_join(&x, go_books(), 0, (struct pmaps_join *)out);
		/* It has no message: the refusal's is the errno alone. */
		snprintf(msg, msgsz, "%s", r == -EINVAL ? names[w] : "");
		r = r < 0 ? r : 0;
		break;
	}
	case JVM_ATTACH:
		/* A fixture tree is no live process: "must not", its struct filled all the same. */
		p = open_tree("explain-jvm", "200");
		r = pmaps_books_jvm_attach(p, (struct pmaps_jvm_attach *)out, msg, msgsz);
		if (r == 0 && strstr(msg, "live"))
			snprintf(msg, msgsz, "%s", names[w]);
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
	if (w == EXPLAIN) {
		/* When it was read is each call's own: the rest is the same. */
		size_t a = offsetof(struct pmaps_explain, read_start_ns);
		size_t e = offsetof(struct pmaps_explain, read_at_ns) + sizeof(uint64_t);
		for (i = a; i < e && i < fill; i++)
			want.b[i] = buf.b[i];
	}
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

/* The ABI-0 size of each struct: the struct as the libpmaps that added it declared it. */
static const size_t size0[] = {PMAPS__STATUS_SIZE0, PMAPS__SUMMARY_SIZE0, PMAPS__GROUP_ROW_SIZE0,
                               PMAPS__EXPLAIN_SIZE0, PMAPS__CHOICE_SIZE0, PMAPS__JOIN_SIZE0,
                               PMAPS__JVM_ATTACH_SIZE0};

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

static void test_choice_size(void **state)
{
	(void)state;
	check(CHOICE, offsetof(struct pmaps_explain_choice, hold_ns));
	assert_int_equal(((struct pmaps_explain_choice *)whole.b)->reason, PMAPS_CHOICE_FITS);
}

static void test_join_size(void **state)
{
	(void)state;
	check(JOIN, offsetof(struct pmaps_join, term[3]));
	assert_int_equal(((struct pmaps_join *)whole.b)->ok, 1);
}

static void test_jvm_attach_size(void **state)
{
	(void)state;
	check(JVM_ATTACH, offsetof(struct pmaps_jvm_attach, gid));
}

/* The books a front end fills: refused below their size, never written past it. */
static void test_books_size(void **state)
{
	static union {
		max_align_t align;
		unsigned char b[sizeof(struct pmaps_books) + SLACK];
	} bk;
	struct pmaps_books *b = (struct pmaps_books *)bk.b;
	char msg[64];

	(void)state;
	memset(bk.b, CANARY, sizeof(bk.b));
	memset(b, 0, sizeof(*b));
	b->size = sizeof(*b) - 1;
	assert_int_equal(pmaps_books_parse(b, PMAPS_BOOK_MALLOC, "", 0, msg, sizeof(msg)), -EINVAL);
	assert_int_equal(pmaps_books_set(b, PMAPS_BV_MALLOC_TOP, 1), -EINVAL);
	assert_int_equal(pmaps_books_has(b, PMAPS_BV_MALLOC_TOP), 0);
	b->size = sizeof(*b);
	assert_int_equal(pmaps_books_set(b, PMAPS_BV_MALLOC_TOP, 1), 0);
	assert_int_equal(pmaps_books_has(b, PMAPS_BV_MALLOC_TOP), 1);
	assert_int_equal(pmaps_books_parse(b, PMAPS_BOOK_GO, "x", 1, msg, sizeof(msg)), -EBADMSG);
	for (size_t i = sizeof(*b); i < sizeof(bk.b); i++)
		if (bk.b[i] != CANARY)
			fail_msg("struct pmaps_books: byte %zu past it written", i);
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
		cmocka_unit_test(test_choice_size),
		cmocka_unit_test(test_join_size),
		cmocka_unit_test(test_jvm_attach_size),
		cmocka_unit_test(test_books_size),
		cmocka_unit_test(test_null),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
