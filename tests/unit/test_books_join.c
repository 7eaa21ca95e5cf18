/* SPDX-License-Identifier: MIT */
/*
 * test_books_join.c - the runtime's books joined to explain's figures
 * (src/books_join.c): each part's terms add up to its kernel bytes and the
 * parts to the RSS, exactly, with the remainder signed and named; figures
 * out of range refused, never wrapped; and the words a target's bytes go
 * through (a server's reply in a why) escaped in text and JSON.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "books.h"
#include "out.h"
#include "../expect.h"

#define MiB (1024ull * 1024)

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
	return &X;
}

/* The term KEY, or fail. */
static const struct join_term *find(const struct books_join *j, const char *key)
{
	for (unsigned i = 0; i < j->n; i++)
		if (strcmp(j->t[i].key, key) == 0)
			return &j->t[i];
	print_error("no term '%s' in the join\n", key);
	fail();
	return NULL;
}

/* The signed sum of the terms, per part and in all, against the kernel's. */
static void adds_up(const struct books_join *j)
{
	int64_t part[JP_COUNT] = {0}, all = 0;

	for (unsigned i = 0; i < j->n; i++) {
		int64_t v = j->t[i].neg ? -(int64_t)j->t[i].bytes : (int64_t)j->t[i].bytes;
		part[j->t[i].part] += v;
		all += v;
	}
	for (int p = 0; p < JP_COUNT; p++)
		expect_eq(part[p], (int64_t)j->part[p]);
	expect_eq(all, (int64_t)j->rss);
	expect_eq(j->rss, X.total[PMAPS_XC_RSS]);
}

static void go_books(struct books *b)
{
	memset(b, 0, sizeof(*b));
	b->runtime = PMAPS_RUNTIME_GO;
	b->go.h.asked = b->go.h.ok = 1;
	b->go.h.at.tv_sec = 1764597802; /* 2025-12-01T14:03:22Z */
	b->go.heap_alloc = 20 * MiB;
	b->go.heap_inuse = 22 * MiB;
	b->go.heap_idle = 80 * MiB;
	b->go.heap_released = 70 * MiB;
	b->go.heap_sys = 102 * MiB;
	b->go.stack_inuse = 1 * MiB;
	b->go.stack_sys = 2 * MiB;
	b->go.mspan_inuse = 1 * MiB;
	b->go.mcache_inuse = 16384;
	b->go.gc_sys = 3 * MiB;
	b->go.buck_hash_sys = 1 * MiB;
	b->go.other_sys = 1 * MiB;
}

static void test_go(void **state)
{
	uint64_t rss[PMAPS_X_COUNT] = {[PMAPS_X_RUNTIME_HEAP] = 100 * MiB, [PMAPS_X_ANON] = 10 * MiB,
	                               [PMAPS_X_THREAD_STACK] = 1 * MiB, [PMAPS_X_FILE_TEXT] = 5 * MiB};
	const struct pmaps_explain *x = result(rss, 60 * MiB);
	struct books b;
	struct books_join j;
	const struct join_term *t;

	(void)state;
	go_books(&b);
	books_join(&j, &b, x);
	expect_eq(j.ok, 1);
	adds_up(&j);
	expect_eq(find(&j, "go_live_objects")->bytes, 20 * MiB);
	expect_eq(find(&j, "go_span_slack")->bytes, 2 * MiB);
	expect_eq(find(&j, "go_held_free")->bytes, 10 * MiB);
	expect_eq(find(&j, "go_stacks")->bytes, 1 * MiB);
	t = find(&j, "go_returned_resident");
	expect_eq(t->bytes, 60 * MiB);
	expect_eq(t->src, JOIN_KERNEL);
	/* 100 - (20 + 2 + 10 + 1 + 60) */
	t = find(&j, "heap_unexplained");
	expect_eq(t->bytes, 7 * MiB);
	expect_eq(t->neg, 0);
	expect_eq(t->src, JOIN_REMAINDER);
	/* metadata 1M + 16K + 3M + 1M + 1M + (2M - 1M) */
	expect_eq(find(&j, "go_runtime_metadata")->bytes, 7 * MiB + 16384);
	t = find(&j, "anon_unexplained");
	expect_eq(t->bytes, 3 * MiB - 16384);
	expect_eq(t->neg, 0);
	expect_eq(find(&j, "stacks")->bytes, 1 * MiB);
	expect_eq(find(&j, "files")->bytes, 5 * MiB);
}

/* The runtime counts more than is resident: the remainder is below zero, and says so. */
static void test_negative(void **state)
{
	uint64_t rss[PMAPS_X_COUNT] = {[PMAPS_X_RUNTIME_HEAP] = 10 * MiB, [PMAPS_X_ANON] = 1 * MiB};
	const struct pmaps_explain *x = result(rss, 0);
	struct books b;
	struct books_join j;
	const struct join_term *t;

	(void)state;
	go_books(&b);
	b.go.heap_alloc = 50 * MiB;
	b.go.heap_inuse = 50 * MiB;
	books_join(&j, &b, x);
	adds_up(&j);
	t = find(&j, "heap_unexplained");
	expect_eq(t->neg, 1);
	/* 50 + 0 + 10 + 1 + 0 - 10 */
	expect_eq(t->bytes, 51 * MiB);
	expect_eq(strcmp(t->words, "heap counted, not resident"), 0);
	t = find(&j, "anon_unexplained");
	expect_eq(t->neg, 1);
	expect_eq(t->bytes, 7 * MiB + 16384 - 1 * MiB);
}

/* No heap found by explain: the Go terms split the anonymous memory instead. */
static void test_go_heap_not_found(void **state)
{
	uint64_t rss[PMAPS_X_COUNT] = {[PMAPS_X_ANON] = 200 * MiB, [PMAPS_X_FILE_RO] = 3 * MiB};
	const struct pmaps_explain *x = result(rss, 0);
	struct books b;
	struct books_join j;

	(void)state;
	go_books(&b);
	books_join(&j, &b, x);
	adds_up(&j);
	expect_eq(find(&j, "go_live_objects")->part, JP_ANON);
	expect_eq(find(&j, "anon_unexplained")->bytes,
	          200 * MiB - (20 + 2 + 10 + 1) * MiB - (7 * MiB + 16384));
}

/* Figures past an address space: no join (and no wrapped sum). */
static void test_out_of_range(void **state)
{
	uint64_t rss[PMAPS_X_COUNT] = {[PMAPS_X_RUNTIME_HEAP] = 10 * MiB};
	const struct pmaps_explain *x = result(rss, 0);
	struct books b;
	struct books_join j;

	(void)state;
	go_books(&b);
	b.go.heap_alloc = JOIN_FIGURE_MAX + 1;
	books_join(&j, &b, x);
	expect_eq(j.ok, 0);
	expect_eq(j.n, 0);
	assert_non_null(j.why);
	/* At the bound itself: joined, exact. */
	b.go.heap_alloc = JOIN_FIGURE_MAX;
	b.go.heap_inuse = JOIN_FIGURE_MAX;
	b.go.heap_idle = JOIN_FIGURE_MAX;
	b.go.stack_inuse = JOIN_FIGURE_MAX;
	books_join(&j, &b, x);
	expect_eq(j.ok, 1);
	adds_up(&j);
}

static void test_jvm(void **state)
{
	uint64_t rss[PMAPS_X_COUNT] = {[PMAPS_X_RUNTIME_HEAP] = 40 * MiB, [PMAPS_X_ANON] = 30 * MiB,
	                               [PMAPS_X_THREAD_STACK] = 2 * MiB, [PMAPS_X_FILE_RO] = 12 * MiB,
	                               [PMAPS_X_FILE_TEXT] = 20 * MiB};
	const struct pmaps_explain *x = result(rss, 0);
	static const struct book_jvm_cat cats[] = {
		{"Java Heap", 64 * MiB, 64 * MiB}, {"Class", 1024 * MiB, 9 * MiB},
		{"Thread", 20 * MiB, 3 * MiB},     {"Code", 240 * MiB, 7 * MiB},
		{"GC", 60 * MiB, 25 * MiB},        {"Internal", 1 * MiB, 1 * MiB},
		{"Symbol", 2 * MiB, 2 * MiB},      {"Shared class space", 12 * MiB, 12 * MiB},
	};
	struct books b;
	struct books_join j;

	(void)state;
	memset(&b, 0, sizeof(b));
	b.runtime = PMAPS_RUNTIME_JVM;
	b.jvm.h.asked = b.jvm.h.ok = 1;
	b.jvm.nmt = 1;
	b.jvm.ncat = sizeof(cats) / sizeof(cats[0]);
	memcpy(b.jvm.cat, cats, sizeof(cats));
	b.jvm.heap_ok = 1;
	b.jvm.heap_committed = 64 * MiB;
	b.jvm.heap_used = 30 * MiB;
	books_join(&j, &b, x);
	adds_up(&j);
	expect_eq(find(&j, "java_heap_used")->bytes, 30 * MiB);
	expect_eq(find(&j, "java_heap_free")->bytes, 34 * MiB);
	expect_eq(find(&j, "heap_unexplained")->neg, 1);
	expect_eq(find(&j, "heap_unexplained")->bytes, 24 * MiB);
	expect_eq(find(&j, "jvm_class")->bytes, 9 * MiB);
	expect_eq(find(&j, "jvm_code")->bytes, 7 * MiB);
	expect_eq(find(&j, "jvm_gc")->bytes, 25 * MiB);
	expect_eq(find(&j, "jvm_internal")->bytes, 1 * MiB);
	expect_eq(find(&j, "jvm_other")->bytes, 2 * MiB); /* Symbol */
	expect_eq(find(&j, "jvm_threads")->bytes, 3 * MiB);
	expect_eq(find(&j, "jvm_shared_classes")->bytes, 12 * MiB);
	/* files: 32M, of which the archive 12M */
	expect_eq(find(&j, "files_unexplained")->bytes, 20 * MiB);

	/* No heap found by explain and NMT off: GC.heap_info's heap in the anonymous memory. */
	rss[PMAPS_X_ANON] += rss[PMAPS_X_RUNTIME_HEAP];
	rss[PMAPS_X_RUNTIME_HEAP] = 0;
	x = result(rss, 0);
	b.jvm.nmt = 0;
	books_join(&j, &b, x);
	adds_up(&j);
	expect_eq(find(&j, "java_heap_used")->part, JP_ANON);
	expect_eq(find(&j, "java_heap_free")->bytes, 34 * MiB);
	/* 70M of anon, 64M of them the heap's committed */
	expect_eq(find(&j, "anon_unexplained")->bytes, 6 * MiB);
	expect_eq(find(&j, "anon_unexplained")->neg, 0);
	expect_eq(find(&j, "stacks")->bytes, 2 * MiB);
	expect_eq(find(&j, "files")->bytes, 32 * MiB);
}

static void test_malloc_join(void **state)
{
	uint64_t rss[PMAPS_X_COUNT] = {[PMAPS_X_HEAP] = 9 * MiB, [PMAPS_X_ANON] = 5 * MiB,
	                               [PMAPS_X_FILE_TEXT] = 2 * MiB};
	const struct pmaps_explain *x = result(rss, 0);
	struct books b;
	struct books_join j;

	(void)state;
	memset(&b, 0, sizeof(b));
	b.runtime = PMAPS_RUNTIME_GLIBC;
	b.mal.h.asked = b.mal.h.ok = 1;
	b.mal.in_use = 8 * MiB;
	b.mal.free_held = 8 * MiB;
	books_join(&j, &b, x);
	adds_up(&j);
	expect_eq(find(&j, "malloc_in_use")->bytes, 8 * MiB);
	expect_eq(find(&j, "malloc_free_held")->bytes, 8 * MiB);
	expect_eq(find(&j, "anon_unexplained")->neg, 1);
	expect_eq(find(&j, "anon_unexplained")->bytes, 2 * MiB);
	expect_eq(find(&j, "files")->bytes, 2 * MiB);

	/* glibc's thread arenas (explain's runtime heap) are malloc's too: one part with [heap]. */
	rss[PMAPS_X_RUNTIME_HEAP] = 57 * MiB;
	x = result(rss, 0);
	X.runtime_kind = PMAPS_RUNTIME_GLIBC;
	b.mal.in_use = 60 * MiB;
	books_join(&j, &b, x);
	expect_eq(j.part[JP_RUNTIME_HEAP], 0);
	expect_eq(j.part[JP_ANON], 71 * MiB);
	adds_up(&j);
	/* 9 + 5 + 57 - (60 + 8) */
	expect_eq(find(&j, "anon_unexplained")->bytes, 3 * MiB);
	expect_eq(find(&j, "anon_unexplained")->neg, 0);
}

/* Nothing read: no join, and the writers say only why each book is missing. */
static void test_nothing(void **state)
{
	uint64_t rss[PMAPS_X_COUNT] = {[PMAPS_X_ANON] = 5 * MiB};
	const struct pmaps_explain *x = result(rss, 0);
	struct books b;
	struct books_join j;
	char buf[8192];
	struct out o;

	(void)state;
	memset(&b, 0, sizeof(b));
	b.go.h.asked = 1;
	/* A server's reply in the why: an escape sequence and a byte that is no UTF-8. */
	snprintf(b.go.h.why, sizeof(b.go.h.why), "HTTP 500: \x1b[31mred\xff");
	books_join(&j, &b, x);
	expect_eq(j.ok, 0);
	out_memory(&o, buf, sizeof(buf));
	books_write_json(&o, &b, &j);
	buf[out_kept(&o)] = '\0';
	expect_contains(buf, "{\"go\":{\"ok\":false,\"why\":\"HTTP 500: \\u001b[31mred\\ufffd\"");
	expect_contains(buf, "\"why_hex\":\"");
	assert_null(strchr(buf, 0x1b));
	out_memory(&o, buf, sizeof(buf));
	books_write_text(&o, &b, &j);
	buf[out_kept(&o)] = '\0';
	expect_contains(buf, "not read: HTTP 500: \\x1b[31mred\\xff");
	assert_null(strchr(buf, 0x1b));
	assert_null(strstr(buf, "Joined"));
}

/* The equation: the terms in order, signs, the time; JSON's terms as the join's. */
static void test_words(void **state)
{
	uint64_t rss[PMAPS_X_COUNT] = {[PMAPS_X_RUNTIME_HEAP] = 100 * MiB, [PMAPS_X_ANON] = 10 * MiB,
	                               [PMAPS_X_THREAD_STACK] = 1 * MiB, [PMAPS_X_FILE_TEXT] = 5 * MiB};
	const struct pmaps_explain *x = result(rss, 60 * MiB);
	struct books b;
	struct books_join j;
	char buf[16384];
	struct out o;

	(void)state;
	go_books(&b);
	books_join(&j, &b, x);
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
	expect_contains(buf, "\"join\":{\"ok\":true,\"rss\":121634816,\"as_of\":\"2025-12-01T14:03:22.000Z\"");
	expect_contains(buf, "{\"key\":\"heap_unexplained\",\"words\":\"heap neither explains\","
	                     "\"how\":\"the kernel's figure less the runtime's\",\"source\":\"remainder\","
	                     "\"part\":\"runtime-heap\",\"bytes\":7340032}");
	expect_contains(buf, "\"at\":\"2025-12-01T14:03:22.000Z\"");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_go),
		cmocka_unit_test(test_negative),
		cmocka_unit_test(test_go_heap_not_found),
		cmocka_unit_test(test_out_of_range),
		cmocka_unit_test(test_jvm),
		cmocka_unit_test(test_malloc_join),
		cmocka_unit_test(test_nothing),
		cmocka_unit_test(test_words),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
