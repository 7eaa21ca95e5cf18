/* SPDX-License-Identifier: MIT */
/*
 * test_books_join.c - the runtime's books joined to explain's figures
 * (lib/join.c, pmaps_books_join()): each part's terms add up to its kernel
 * bytes and the parts to the RSS, exactly, with the remainder signed and
 * named; figures out of range refused, never wrapped; books read too far
 * from the explain (skew) or while the RSS moved refused; nothing
 * allocated. And their words (src/books_out.c): a target's bytes (a
 * server's reply in a why) escaped in text and JSON, the equation, JSON's
 * terms by the library's keys.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "books/books.h"
#include "internal.h"
#include "common/out.h"
#include "../expect.h"

#define MiB (1024ull * 1024)
/* 2025-12-01T14:03:22Z */
#define AT_NS (1764597802ull * 1000000000ull)

static struct pmaps_explain X;

/* An explain result with RSS per category (every state known), LazyFree in the runtime heap. */
static const struct pmaps_explain *result(const uint64_t rss[PMAPS_X_COUNT], uint64_t heap_lazy)
{
	memset(&X, 0, sizeof(X));
	X.size = sizeof(X);
	X.xc_known = (1u << PMAPS_XC_COUNT) - 1;
	for (int c = 0; c < PMAPS_X_COUNT; c++) {
		X.v[c][PMAPS_XC_RSS] = rss[c];
		X.total[PMAPS_XC_RSS] += rss[c];
		X.mappings[c] = rss[c] != 0;
	}
	X.v[PMAPS_X_RUNTIME_HEAP][PMAPS_XC_LAZYFREE] = heap_lazy;
	X.total[PMAPS_XC_LAZYFREE] = heap_lazy;
	/* Read over 10 ms, its status's VmRSS the total. */
	X.read_start_ns = 5000000000ull;
	X.read_end_ns = 5010000000ull;
	X.read_at_ns = AT_NS;
	X.status.size = sizeof(X.status);
	X.status.present = 1ull << PMAPS_ST_VM_RSS;
	X.status.v[PMAPS_ST_VM_RSS] = X.total[PMAPS_XC_RSS];
	return &X;
}

/* Book K of B read right after the explain above, in 20 ms. */
static void head(struct pmaps_books *b, enum pmaps_book k)
{
	b->head[k].asked = b->head[k].ok = 1;
	b->head[k].at_ns = AT_NS;
	b->head[k].start_ns = 5010000000ull;
	b->head[k].end_ns = 5030000000ull;
}

static void set(struct pmaps_books *b, enum pmaps_book_value v, uint64_t x)
{
	expect_eq(pmaps_books_set(b, v, x), 0);
}

static void init(struct books *b, enum pmaps_runtime rt)
{
	memset(b, 0, sizeof(*b));
	b->b.size = sizeof(b->b);
	b->runtime = rt;
}

static void join(struct pmaps_join *j, const struct books *b, const struct pmaps_explain *x,
                 int want)
{
	memset(j, 0, sizeof(*j));
	j->size = sizeof(*j);
	expect_eq(pmaps_books_join(x, &b->b, 0, j), want);
	expect_eq(j->ok, want);
}

/* The term KEY, or fail. */
static const struct pmaps_join_term *find(const struct pmaps_join *j, enum pmaps_join_key key)
{
	for (unsigned i = 0; i < j->nterms; i++)
		if (j->term[i].key == key)
			return &j->term[i];
	print_error("no term '%s' in the join\n", pmaps_join_key(key));
	fail();
	return NULL;
}

/* The signed sum of the terms, per part and in all, against the kernel's. */
static void adds_up(const struct pmaps_join *j)
{
	int64_t part[PMAPS_JP_COUNT] = {0}, all = 0;
	uint64_t parts = 0;

	for (unsigned i = 0; i < j->nterms; i++) {
		int64_t v = j->term[i].neg ? -(int64_t)j->term[i].bytes : (int64_t)j->term[i].bytes;
		part[j->term[i].part] += v;
		all += v;
	}
	for (int p = 0; p < PMAPS_JP_COUNT; p++) {
		expect_eq(part[p], (int64_t)j->part[p]);
		parts += j->part[p];
	}
	expect_eq(all, (int64_t)j->rss);
	expect_eq(parts, j->rss);
	expect_eq(j->rss, X.total[PMAPS_XC_RSS]);
}

static void go_books(struct books *b)
{
	init(b, PMAPS_RUNTIME_GO);
	head(&b->b, PMAPS_BOOK_GO);
	set(&b->b, PMAPS_BV_GO_HEAP_ALLOC, 20 * MiB);
	set(&b->b, PMAPS_BV_GO_HEAP_INUSE, 22 * MiB);
	set(&b->b, PMAPS_BV_GO_HEAP_IDLE, 80 * MiB);
	set(&b->b, PMAPS_BV_GO_HEAP_RELEASED, 70 * MiB);
	set(&b->b, PMAPS_BV_GO_HEAP_SYS, 102 * MiB);
	set(&b->b, PMAPS_BV_GO_STACK_INUSE, 1 * MiB);
	set(&b->b, PMAPS_BV_GO_STACK_SYS, 2 * MiB);
	set(&b->b, PMAPS_BV_GO_MSPAN_INUSE, 1 * MiB);
	set(&b->b, PMAPS_BV_GO_MCACHE_INUSE, 16384);
	set(&b->b, PMAPS_BV_GO_GC_SYS, 3 * MiB);
	set(&b->b, PMAPS_BV_GO_BUCK_HASH_SYS, 1 * MiB);
	set(&b->b, PMAPS_BV_GO_OTHER_SYS, 1 * MiB);
}

static void test_go(void **state)
{
	uint64_t rss[PMAPS_X_COUNT] = {[PMAPS_X_RUNTIME_HEAP] = 100 * MiB, [PMAPS_X_ANON] = 10 * MiB,
	                               [PMAPS_X_THREAD_STACK] = 1 * MiB, [PMAPS_X_FILE_TEXT] = 5 * MiB};
	const struct pmaps_explain *x = result(rss, 60 * MiB);
	static struct books b;
	struct pmaps_join j;
	const struct pmaps_join_term *t;
	uint64_t allocs;

	(void)state;
	go_books(&b);
	allocs = pmaps__alloc_count();
	join(&j, &b, x, 1);
	/* The join allocates nothing: a session that joins every run stays allocation-free. */
	expect_eq(pmaps__alloc_count(), allocs);
	adds_up(&j);
	expect_eq(j.refused, PMAPS_JOIN_JOINED);
	expect_eq(j.as_of_ns, AT_NS);
	/* From the explain's start (5.000 s) to the book's end (5.030 s). */
	expect_eq(j.skew_ns, 30000000u);
	expect_eq(j.max_skew_ns, PMAPS_JOIN_SKEW_NS);
	expect_eq(find(&j, PMAPS_JK_GO_LIVE_OBJECTS)->bytes, 20 * MiB);
	expect_eq(find(&j, PMAPS_JK_GO_SPAN_SLACK)->bytes, 2 * MiB);
	expect_eq(find(&j, PMAPS_JK_GO_HELD_FREE)->bytes, 10 * MiB);
	expect_eq(find(&j, PMAPS_JK_GO_STACKS)->bytes, 1 * MiB);
	t = find(&j, PMAPS_JK_GO_RETURNED_RESIDENT);
	expect_eq(t->bytes, 60 * MiB);
	expect_eq(t->src, PMAPS_JS_KERNEL);
	assert_string_equal(pmaps_join_term_how(t), "LazyFree of the Go heap");
	/* 100 - (20 + 2 + 10 + 1 + 60) */
	t = find(&j, PMAPS_JK_HEAP_UNEXPLAINED);
	expect_eq(t->bytes, 7 * MiB);
	expect_eq(t->neg, 0);
	expect_eq(t->src, PMAPS_JS_REMAINDER);
	assert_string_equal(pmaps_join_term_how(t), "the kernel's figure less the runtime's");
	/* metadata 1M + 16K + 3M + 1M + 1M + (2M - 1M) */
	expect_eq(find(&j, PMAPS_JK_GO_RUNTIME_METADATA)->bytes, 7 * MiB + 16384);
	t = find(&j, PMAPS_JK_ANON_UNEXPLAINED);
	expect_eq(t->bytes, 3 * MiB - 16384);
	expect_eq(t->neg, 0);
	expect_eq(find(&j, PMAPS_JK_STACKS)->bytes, 1 * MiB);
	expect_eq(find(&j, PMAPS_JK_FILES)->bytes, 5 * MiB);
}

/* The runtime counts more than is resident: the remainder is below zero, and says so. */
static void test_negative(void **state)
{
	uint64_t rss[PMAPS_X_COUNT] = {[PMAPS_X_RUNTIME_HEAP] = 10 * MiB, [PMAPS_X_ANON] = 1 * MiB};
	const struct pmaps_explain *x = result(rss, 0);
	static struct books b;
	struct pmaps_join j;
	const struct pmaps_join_term *t;

	(void)state;
	go_books(&b);
	set(&b.b, PMAPS_BV_GO_HEAP_ALLOC, 50 * MiB);
	set(&b.b, PMAPS_BV_GO_HEAP_INUSE, 50 * MiB);
	join(&j, &b, x, 1);
	adds_up(&j);
	t = find(&j, PMAPS_JK_HEAP_UNEXPLAINED);
	expect_eq(t->neg, 1);
	/* 50 + 0 + 10 + 1 + 0 - 10 */
	expect_eq(t->bytes, 51 * MiB);
	assert_string_equal(pmaps_join_term_how(t), "the runtime's figures less the kernel's");
	t = find(&j, PMAPS_JK_ANON_UNEXPLAINED);
	expect_eq(t->neg, 1);
	expect_eq(t->bytes, 7 * MiB + 16384 - 1 * MiB);
}

/* No heap found by explain: the Go terms split the anonymous memory instead. */
static void test_go_heap_not_found(void **state)
{
	uint64_t rss[PMAPS_X_COUNT] = {[PMAPS_X_ANON] = 200 * MiB, [PMAPS_X_FILE_RO] = 3 * MiB};
	const struct pmaps_explain *x = result(rss, 0);
	static struct books b;
	struct pmaps_join j;

	(void)state;
	go_books(&b);
	join(&j, &b, x, 1);
	adds_up(&j);
	expect_eq(find(&j, PMAPS_JK_GO_LIVE_OBJECTS)->part, PMAPS_JP_ANON);
	assert_string_equal(pmaps_join_term_how(find(&j, PMAPS_JK_GO_RETURNED_RESIDENT)),
	           "LazyFree of the anonymous memory");
	expect_eq(find(&j, PMAPS_JK_ANON_UNEXPLAINED)->bytes,
	          200 * MiB - (20 + 2 + 10 + 1) * MiB - (7 * MiB + 16384));
}

/* Figures past an address space: no join (and no wrapped sum). */
static void test_out_of_range(void **state)
{
	uint64_t rss[PMAPS_X_COUNT] = {[PMAPS_X_RUNTIME_HEAP] = 10 * MiB};
	const struct pmaps_explain *x = result(rss, 0);
	static struct books b;
	struct pmaps_join j;
	const uint64_t max = 1ull << 57;

	(void)state;
	go_books(&b);
	set(&b.b, PMAPS_BV_GO_HEAP_ALLOC, max + 1);
	join(&j, &b, x, 0);
	expect_eq(j.refused, PMAPS_JOIN_RANGE);
	expect_eq(j.nterms, 0);
	/* The parts stay the kernel's. */
	expect_eq(j.part[PMAPS_JP_RUNTIME_HEAP], 10 * MiB);
	/* At the bound itself: joined, exact. */
	set(&b.b, PMAPS_BV_GO_HEAP_ALLOC, max);
	set(&b.b, PMAPS_BV_GO_HEAP_INUSE, max);
	set(&b.b, PMAPS_BV_GO_HEAP_IDLE, max);
	set(&b.b, PMAPS_BV_GO_STACK_INUSE, max);
	join(&j, &b, x, 1);
	adds_up(&j);
	/* And no figure past 2^62 gets in at all. */
	expect_eq(pmaps_books_set(&b.b, PMAPS_BV_GO_HEAP_ALLOC, (1ull << 62) + 1), -ERANGE);
}

/* Books of another moment: refused past the skew, or when the RSS moved between the reads. */
static void test_one_instant(void **state)
{
	uint64_t rss[PMAPS_X_COUNT] = {[PMAPS_X_RUNTIME_HEAP] = 100 * MiB, [PMAPS_X_ANON] = 28 * MiB};
	const struct pmaps_explain *x = result(rss, 0);
	static struct books b;
	struct pmaps_join j;

	(void)state;
	go_books(&b);
	/* Read 2.5 s after the explain began: past the 2 s allowed. */
	b.b.head[PMAPS_BOOK_GO].start_ns = 7400000000ull;
	b.b.head[PMAPS_BOOK_GO].end_ns = 7500000000ull;
	join(&j, &b, x, 0);
	expect_eq(j.refused, PMAPS_JOIN_SKEW);
	expect_eq(j.skew_ns, 2500000000ull);
	expect_eq(j.nterms, 0);
	/* A caller's own bound. */
	memset(&j, 0, sizeof(j));
	j.size = sizeof(j);
	expect_eq(pmaps_books_join(x, &b.b, 3000000000ull, &j), 1);
	expect_eq(j.max_skew_ns, 3000000000ull);
	/* Books read before the explain: the span is from their start. */
	b.b.head[PMAPS_BOOK_GO].start_ns = 4000000000ull;
	b.b.head[PMAPS_BOOK_GO].end_ns = 4100000000ull;
	join(&j, &b, x, 1);
	expect_eq(j.skew_ns, 1010000000ull);
	/* The RSS moved after the explain's status: 2 MiB of 128 MiB (a 64th) is allowed... */
	head(&b.b, PMAPS_BOOK_GO);
	b.b.after_ok = 1;
	b.b.after_rss = 128 * MiB + 2 * MiB;
	join(&j, &b, x, 1);
	expect_eq(j.moved, 2 * MiB);
	expect_eq(j.max_moved, 2 * MiB);
	/* ...a byte more is not, either way. */
	b.b.after_rss = 128 * MiB + 2 * MiB + 1;
	join(&j, &b, x, 0);
	expect_eq(j.refused, PMAPS_JOIN_MOVED);
	b.b.after_rss = 128 * MiB - 2 * MiB - 1;
	join(&j, &b, x, 0);
	expect_eq(j.refused, PMAPS_JOIN_MOVED);
	expect_eq(j.moved, 2 * MiB + 1);
	/* A small process: at least 1 MiB. */
	rss[PMAPS_X_RUNTIME_HEAP] = 4 * MiB;
	rss[PMAPS_X_ANON] = 0;
	x = result(rss, 0);
	b.b.after_rss = 5 * MiB;
	join(&j, &b, x, 1);
	expect_eq(j.max_moved, 1 * MiB);
	b.b.after_rss = 5 * MiB + 1;
	join(&j, &b, x, 0);
	expect_eq(j.refused, PMAPS_JOIN_MOVED);
}

static void jvm_books(struct books *b)
{
	static const struct pmaps_nmt_category cats[] = {
		{"Java Heap", 64 * MiB, 64 * MiB}, {"Class", 1024 * MiB, 9 * MiB},
		{"Thread", 20 * MiB, 3 * MiB},     {"Code", 240 * MiB, 7 * MiB},
		{"GC", 60 * MiB, 25 * MiB},        {"Internal", 1 * MiB, 1 * MiB},
		{"Symbol", 2 * MiB, 2 * MiB},      {"Shared class space", 12 * MiB, 12 * MiB},
	};

	init(b, PMAPS_RUNTIME_JVM);
	head(&b->b, PMAPS_BOOK_JVM_NMT);
	head(&b->b, PMAPS_BOOK_JVM_HEAP);
	b->b.jvm_nmt = PMAPS_NMT_ON;
	b->b.jvm_ncat = sizeof(cats) / sizeof(cats[0]);
	memcpy(b->b.jvm_cat, cats, sizeof(cats));
	set(&b->b, PMAPS_BV_JVM_HEAP_COMMITTED, 64 * MiB);
	set(&b->b, PMAPS_BV_JVM_HEAP_USED, 30 * MiB);
}

static void test_jvm(void **state)
{
	uint64_t rss[PMAPS_X_COUNT] = {[PMAPS_X_RUNTIME_HEAP] = 40 * MiB, [PMAPS_X_ANON] = 30 * MiB,
	                               [PMAPS_X_THREAD_STACK] = 2 * MiB, [PMAPS_X_FILE_RO] = 12 * MiB,
	                               [PMAPS_X_FILE_TEXT] = 20 * MiB};
	const struct pmaps_explain *x = result(rss, 0);
	static struct books b;
	struct pmaps_join j;

	(void)state;
	jvm_books(&b);
	join(&j, &b, x, 1);
	adds_up(&j);
	expect_eq(find(&j, PMAPS_JK_JAVA_HEAP_USED)->bytes, 30 * MiB);
	expect_eq(find(&j, PMAPS_JK_JAVA_HEAP_FREE)->bytes, 34 * MiB);
	expect_eq(find(&j, PMAPS_JK_HEAP_UNEXPLAINED)->neg, 1);
	expect_eq(find(&j, PMAPS_JK_HEAP_UNEXPLAINED)->bytes, 24 * MiB);
	expect_eq(find(&j, PMAPS_JK_JVM_CLASS)->bytes, 9 * MiB);
	expect_eq(find(&j, PMAPS_JK_JVM_CODE)->bytes, 7 * MiB);
	expect_eq(find(&j, PMAPS_JK_JVM_GC)->bytes, 25 * MiB);
	expect_eq(find(&j, PMAPS_JK_JVM_INTERNAL)->bytes, 1 * MiB);
	expect_eq(find(&j, PMAPS_JK_JVM_OTHER)->bytes, 2 * MiB); /* Symbol */
	expect_eq(find(&j, PMAPS_JK_JVM_THREADS)->bytes, 3 * MiB);
	expect_eq(find(&j, PMAPS_JK_JVM_SHARED_CLASSES)->bytes, 12 * MiB);
	/* files: 32M, of which the archive 12M */
	expect_eq(find(&j, PMAPS_JK_FILES_UNEXPLAINED)->bytes, 20 * MiB);

	/* No heap found by explain and NMT off: GC.heap_info's heap in the anonymous memory. */
	rss[PMAPS_X_ANON] += rss[PMAPS_X_RUNTIME_HEAP];
	rss[PMAPS_X_RUNTIME_HEAP] = 0;
	x = result(rss, 0);
	b.b.jvm_nmt = PMAPS_NMT_OFF;
	join(&j, &b, x, 1);
	adds_up(&j);
	expect_eq(find(&j, PMAPS_JK_JAVA_HEAP_USED)->part, PMAPS_JP_ANON);
	expect_eq(find(&j, PMAPS_JK_JAVA_HEAP_FREE)->bytes, 34 * MiB);
	/* 70M of anon, 64M of them the heap's committed */
	expect_eq(find(&j, PMAPS_JK_ANON_UNEXPLAINED)->bytes, 6 * MiB);
	expect_eq(find(&j, PMAPS_JK_ANON_UNEXPLAINED)->neg, 0);
	expect_eq(find(&j, PMAPS_JK_STACKS)->bytes, 2 * MiB);
	expect_eq(find(&j, PMAPS_JK_FILES)->bytes, 32 * MiB);

	/* GC.heap_info not read, NMT on: NMT's Java Heap is the heap. */
	jvm_books(&b);
	b.b.head[PMAPS_BOOK_JVM_HEAP].ok = 0;
	join(&j, &b, x, 1);
	adds_up(&j);
	expect_eq(find(&j, PMAPS_JK_JAVA_HEAP)->bytes, 64 * MiB);
}

static void test_malloc_join(void **state)
{
	uint64_t rss[PMAPS_X_COUNT] = {[PMAPS_X_HEAP] = 9 * MiB, [PMAPS_X_ANON] = 5 * MiB,
	                               [PMAPS_X_FILE_TEXT] = 2 * MiB};
	const struct pmaps_explain *x = result(rss, 0);
	static struct books b;
	struct pmaps_join j;

	(void)state;
	init(&b, PMAPS_RUNTIME_GLIBC);
	head(&b.b, PMAPS_BOOK_MALLOC);
	set(&b.b, PMAPS_BV_MALLOC_IN_USE, 8 * MiB);
	set(&b.b, PMAPS_BV_MALLOC_FREE_HELD, 8 * MiB);
	join(&j, &b, x, 1);
	adds_up(&j);
	expect_eq(find(&j, PMAPS_JK_MALLOC_IN_USE)->bytes, 8 * MiB);
	expect_eq(find(&j, PMAPS_JK_MALLOC_FREE_HELD)->bytes, 8 * MiB);
	expect_eq(find(&j, PMAPS_JK_ANON_UNEXPLAINED)->neg, 1);
	expect_eq(find(&j, PMAPS_JK_ANON_UNEXPLAINED)->bytes, 2 * MiB);
	expect_eq(find(&j, PMAPS_JK_FILES)->bytes, 2 * MiB);

	/* glibc's thread arenas (explain's runtime heap) are malloc's too: one part with [heap]. */
	rss[PMAPS_X_RUNTIME_HEAP] = 57 * MiB;
	x = result(rss, 0);
	X.runtime_kind = PMAPS_RUNTIME_GLIBC;
	set(&b.b, PMAPS_BV_MALLOC_IN_USE, 60 * MiB);
	join(&j, &b, x, 1);
	expect_eq(j.part[PMAPS_JP_RUNTIME_HEAP], 0);
	expect_eq(j.part[PMAPS_JP_ANON], 71 * MiB);
	adds_up(&j);
	/* 9 + 5 + 57 - (60 + 8) */
	expect_eq(find(&j, PMAPS_JK_ANON_UNEXPLAINED)->bytes, 3 * MiB);
	expect_eq(find(&j, PMAPS_JK_ANON_UNEXPLAINED)->neg, 0);

	/* A JVM's NMT counts its mallocs: malloc's books are not joined beside it. */
	head(&b.b, PMAPS_BOOK_JVM_NMT);
	b.b.jvm_nmt = PMAPS_NMT_ON;
	join(&j, &b, x, 1);
	for (unsigned i = 0; i < j.nterms; i++)
		expect_ne(j.term[i].key, PMAPS_JK_MALLOC_IN_USE);
}

/* Nothing read: no join, and the writers say only why each book is missing. */
static void test_nothing(void **state)
{
	uint64_t rss[PMAPS_X_COUNT] = {[PMAPS_X_ANON] = 5 * MiB};
	const struct pmaps_explain *x = result(rss, 0);
	static struct books b;
	struct pmaps_join j;
	char buf[8192];
	struct out o;

	(void)state;
	init(&b, PMAPS_RUNTIME_GO);
	b.b.head[PMAPS_BOOK_GO].asked = 1;
	/* A server's reply in the why: an escape sequence and a byte that is no UTF-8. */
	snprintf(b.b.head[PMAPS_BOOK_GO].why, sizeof(b.b.head[PMAPS_BOOK_GO].why),
	         "HTTP 500: \x1b[31mred\xff");
	join(&j, &b, x, 0);
	expect_eq(j.refused, PMAPS_JOIN_NONE);
	/* The parts are the kernel's all the same. */
	expect_eq(j.part[PMAPS_JP_ANON], 5 * MiB);
	out_memory(&o, buf, sizeof(buf));
	books_write_json(&o, &b, &j);
	buf[out_kept(&o)] = '\0';
	expect_contains(buf, "{\"go\":{\"ok\":false,\"why\":\"HTTP 500: \\u001b[31mred\\ufffd\"");
	expect_contains(buf, "\"why_hex\":\"");
	expect_contains(buf, "\"join\":{\"ok\":false,\"refused\":\"none\"}}");
	assert_null(strchr(buf, 0x1b));
	out_memory(&o, buf, sizeof(buf));
	books_write_text(&o, &b, &j);
	buf[out_kept(&o)] = '\0';
	expect_contains(buf, "not read: HTTP 500: \\x1b[31mred\\xff");
	assert_null(strchr(buf, 0x1b));
	assert_null(strstr(buf, "Joined"));
}

/* The equation: the terms in order, signs, the time; JSON's terms by the library's keys. */
static void test_words(void **state)
{
	uint64_t rss[PMAPS_X_COUNT] = {[PMAPS_X_RUNTIME_HEAP] = 100 * MiB, [PMAPS_X_ANON] = 10 * MiB,
	                               [PMAPS_X_THREAD_STACK] = 1 * MiB, [PMAPS_X_FILE_TEXT] = 5 * MiB};
	const struct pmaps_explain *x = result(rss, 60 * MiB);
	static struct books b;
	struct pmaps_join j;
	char buf[16384];
	struct out o;

	(void)state;
	go_books(&b);
	join(&j, &b, x, 1);
	out_memory(&o, buf, sizeof(buf));
	books_write_equation(&o, &j);
	buf[out_kept(&o)] = '\0';
	/* Whole units where exact (fmt_human): 7.0M is 7M + 16K, 3.0M is 3M - 16K. */
	expect_contains(buf, "RSS 116M = Go live objects 20M + span slack 2M + held free 10M + "
	                     "goroutine stacks 1M + returned but resident (LazyFree) 60M + heap "
	                     "neither explains 7M + runtime metadata 7.0M + other anon 3.0M + "
	                     "thread stacks 1M + files 5M (all sums exact to the kernel; the "
	                     "runtime's figures as of ");
	out_memory(&o, buf, sizeof(buf));
	books_write_json(&o, &b, &j);
	buf[out_kept(&o)] = '\0';
	expect_contains(buf, "\"join\":{\"ok\":true,\"as_of\":\"2025-12-01T14:03:22.000Z\","
	                     "\"skew_ms\":30.000,\"max_skew_ms\":2000.000,\"moved\":0,"
	                     "\"max_moved\":1900544,\"rss\":121634816,\"parts\":{");
	expect_contains(buf, "{\"key\":\"heap_unexplained\",\"how\":\"the kernel's figure less the "
	                     "runtime's\",\"source\":\"remainder\",\"part\":\"runtime-heap\","
	                     "\"bytes\":7340032}");
	expect_contains(buf, "\"at\":\"2025-12-01T14:03:22.000Z\",\"took_ms\":20.000,"
	                     "\"heap_alloc\":20971520,");
	/* A refused join says why, in text. */
	b.b.head[PMAPS_BOOK_GO].end_ns = 9000000000ull;
	join(&j, &b, x, 0);
	out_memory(&o, buf, sizeof(buf));
	books_write_text(&o, &b, &j);
	buf[out_kept(&o)] = '\0';
	expect_contains(buf, "Not joined to the kernel's figures: the books and the kernel's figures "
	                     "were read 4000 ms apart, more than the 2000 ms a join allows.");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_go),
		cmocka_unit_test(test_negative),
		cmocka_unit_test(test_go_heap_not_found),
		cmocka_unit_test(test_out_of_range),
		cmocka_unit_test(test_one_instant),
		cmocka_unit_test(test_jvm),
		cmocka_unit_test(test_malloc_join),
		cmocka_unit_test(test_nothing),
		cmocka_unit_test(test_words),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
