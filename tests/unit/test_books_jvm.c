/* SPDX-License-Identifier: MIT */
/*
 * test_books_jvm.c - the JVM's books: the library's parsers
 * (pmaps_books_parse(), PMAPS_BOOK_JVM_HEAP and PMAPS_BOOK_JVM_NMT:
 * lib/books_jvm.c) on GC.heap_info and VM.native_memory summary as
 * openjdk 17 wrote them here (G1, Serial, Parallel, ZGC, Shenandoah; NMT
 * on in bytes and in KB, off), each cut at every length, hand-made edge
 * cases (sizes at and past 2^62, names past the field, too many
 * categories, garbage); pmaps_books_jvm_attach() (whether jcmd may ask);
 * then the tool's reader book_jvm_read() (src/books_jvm.c) against a fake
 * jcmd on PATH (a shell script that answers from fixtures): its arguments,
 * its output parsed, a jcmd that hangs (cut at the timeout, its process
 * group killed), one that writes past the cap, one that cannot attach,
 * none on PATH, a process that maps no libjvm.so, a stopped one, one gone,
 * one started with -XX:+DisableAttachMechanism or -Xrs, a proc root that
 * is not the live one, and as root a target of another user (jcmd runs as
 * that user).
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "books/books.h"
#include "../expect.h"

#define DATA PMAPS_TEST_DATA "/books/jvm/"
#define K 1024ull

/* A fixture's bytes (at most 64 KiB) into BUF; returns the length. */
static size_t load(const char *name, char *buf, size_t size)
{
	char path[512];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), DATA "%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fail_msg("open %s: %s", path, strerror(errno));
	n = read(fd, buf, size);
	close(fd);
	expect_ge(n, 1);
	expect_lt(n, (ssize_t)size);
	return (size_t)n;
}

/* B zeroed, its size set: a record as a front end makes one (pmaps.h, Conventions). */
static void books_init(struct pmaps_books *b)
{
	memset(b, 0, sizeof(*b));
	b->size = sizeof(*b);
}

/*
 * The record the parsers fill, kept from one parse to the next (each parse
 * clears its own book first: what an earlier one left must not show).
 */
static struct pmaps_books j, full;

/* Book K's head in B: HEAD(j, JVM_HEAP). */
#define HEAD(b, k) ((b).head[PMAPS_BOOK_##k])
/* Whether B has the JVM figure NAME: HAS(j, HEAP_USED). */
#define HAS(b, name) pmaps_books_has(&(b), PMAPS_BV_JVM_##name)
/* The JVM figure NAME as B holds it, there or not (0 when not). */
#define RAW(b, name) ((b).v[PMAPS_BV_JVM_##name])

/* Figure V of B, which must be there (pmaps_books_has()). */
static uint64_t fig(const struct pmaps_books *b, enum pmaps_book_value v)
{
	if (!pmaps_books_has(b, v))
		fail_msg("no %s in the JVM's books", pmaps_book_value_key(v));
	return b->v[v];
}
/* fig() by the figure's name: J(j, HEAP_COMMITTED). */
#define J(b, name) fig(&(b), PMAPS_BV_JVM_##name)

/* None of GC.heap_info's figures in J, and its head not OK: what a refused parse leaves. */
static void expect_no_heap(void)
{
	expect_eq(HEAD(j, JVM_HEAP).ok, 0);
	for (int v = PMAPS_BV_JVM_HEAP_COMMITTED; v <= PMAPS_BV_JVM_METASPACE_RESERVED; v++) {
		if (pmaps_books_has(&j, (enum pmaps_book_value)v))
			fail_msg("%s kept after a refused parse",
			         pmaps_book_value_key((enum pmaps_book_value)v));
		expect_eq(j.v[v], 0);
	}
	assert_string_equal(j.jvm_gc, "");
}

/* None of NMT's figures in J, no categories, its state not known, its head not OK. */
static void expect_no_nmt(void)
{
	expect_eq(HEAD(j, JVM_NMT).ok, 0);
	expect_eq(j.jvm_nmt, PMAPS_NMT_UNKNOWN);
	expect_eq(j.jvm_ncat, 0);
	expect_eq(HAS(j, NMT_RESERVED), 0);
	expect_eq(HAS(j, NMT_COMMITTED), 0);
	expect_eq(RAW(j, NMT_RESERVED), 0);
	expect_eq(RAW(j, NMT_COMMITTED), 0);
}

static void heap_ok(const char *text, size_t len)
{
	char why[256];
	int rc = pmaps_books_parse(&j, PMAPS_BOOK_JVM_HEAP, text, len, why, sizeof(why));

	if (rc != 0)
		fail_msg("parse JVM_HEAP: %d, why '%s'", rc, why);
	assert_string_equal(why, "");
	expect_eq(HEAD(j, JVM_HEAP).asked, 1);
	expect_eq(HEAD(j, JVM_HEAP).ok, 1);
	expect_eq(HAS(j, HEAP_COMMITTED), 1);
	expect_eq(HAS(j, HEAP_USED), 1);
	/* the Metaspace line's three figures, all or none */
	expect_eq(HAS(j, METASPACE_COMMITTED), HAS(j, METASPACE_USED));
	expect_eq(HAS(j, METASPACE_RESERVED), HAS(j, METASPACE_USED));
}

static void heap_bad(const char *text, const char *want)
{
	char why[256];
	int rc = pmaps_books_parse(&j, PMAPS_BOOK_JVM_HEAP, text, strlen(text), why, sizeof(why));

	if (rc != -EBADMSG)
		fail_msg("parse JVM_HEAP: %d, want -EBADMSG, on '%s'", rc, text);
	expect_no_heap();
	if (!strstr(why, want))
		fail_msg("why '%s' does not say '%s' (input '%s')", why, want, text);
}

static void nmt_ok(const char *text, size_t len)
{
	char why[256];
	int rc = pmaps_books_parse(&j, PMAPS_BOOK_JVM_NMT, text, len, why, sizeof(why));

	if (rc != 0)
		fail_msg("parse JVM_NMT: %d, why '%s'", rc, why);
	assert_string_equal(why, "");
	expect_eq(HEAD(j, JVM_NMT).asked, 1);
	expect_eq(HEAD(j, JVM_NMT).ok, 1);
	if (j.jvm_nmt == PMAPS_NMT_ON) {
		expect_eq(HAS(j, NMT_RESERVED), 1);
		expect_eq(HAS(j, NMT_COMMITTED), 1);
	} else {
		/* off or shut down: it said so, and gave no figures */
		if (j.jvm_nmt != PMAPS_NMT_OFF && j.jvm_nmt != PMAPS_NMT_SHUT_DOWN)
			fail_msg("parsed, NMT's state %d is none of on, off, shut down", j.jvm_nmt);
		expect_eq(HAS(j, NMT_RESERVED), 0);
		expect_eq(HAS(j, NMT_COMMITTED), 0);
		expect_eq(j.jvm_ncat, 0);
	}
}

static void nmt_bad(const char *text, const char *want)
{
	char why[256];
	int rc = pmaps_books_parse(&j, PMAPS_BOOK_JVM_NMT, text, strlen(text), why, sizeof(why));

	if (rc != -EBADMSG)
		fail_msg("parse JVM_NMT: %d, want -EBADMSG, on '%s'", rc, text);
	expect_no_nmt();
	if (!strstr(why, want))
		fail_msg("why '%s' does not say '%s' (input '%s')", why, want, text);
}

/* Every prefix of a fixture: an error, or the full parse's figures exactly (never a cut number). */
static void heap_prefixes(const char *text, size_t len)
{
	char why[256];

	heap_ok(text, len);
	full = j;
	for (size_t n = 0; n < len; n++) {
		int rc = pmaps_books_parse(&j, PMAPS_BOOK_JVM_HEAP, text, n, why, sizeof(why));
		if (rc != 0) {
			expect_eq(rc, -EBADMSG);
			expect_no_heap();
			continue;
		}
		expect_eq(J(j, HEAP_COMMITTED), J(full, HEAP_COMMITTED));
		expect_eq(J(j, HEAP_USED), J(full, HEAP_USED));
		if (HAS(j, METASPACE_USED)) {
			expect_eq(J(j, METASPACE_USED), J(full, METASPACE_USED));
			expect_eq(J(j, METASPACE_COMMITTED), J(full, METASPACE_COMMITTED));
			expect_eq(J(j, METASPACE_RESERVED), J(full, METASPACE_RESERVED));
		}
	}
}

static void nmt_prefixes(const char *text, size_t len)
{
	char why[256];

	nmt_ok(text, len);
	full = j;
	for (size_t n = 0; n < len; n++) {
		int rc = pmaps_books_parse(&j, PMAPS_BOOK_JVM_NMT, text, n, why, sizeof(why));
		if (rc != 0) {
			expect_eq(rc, -EBADMSG);
			expect_no_nmt();
			continue;
		}
		if (full.jvm_nmt != PMAPS_NMT_ON) {
			expect_eq(j.jvm_nmt, full.jvm_nmt);
			expect_eq(HAS(j, NMT_RESERVED), 0);
			continue;
		}
		expect_eq(j.jvm_nmt, PMAPS_NMT_ON);
		expect_eq(J(j, NMT_RESERVED), J(full, NMT_RESERVED));
		expect_eq(J(j, NMT_COMMITTED), J(full, NMT_COMMITTED));
		expect_le(j.jvm_ncat, full.jvm_ncat);
		for (unsigned i = 0; i < j.jvm_ncat; i++) {
			assert_string_equal(j.jvm_cat[i].name, full.jvm_cat[i].name);
			expect_eq(j.jvm_cat[i].reserved, full.jvm_cat[i].reserved);
			expect_eq(j.jvm_cat[i].committed, full.jvm_cat[i].committed);
		}
	}
}

#define HEAP_OK_S(s) heap_ok(s, strlen(s))
#define NMT_OK_S(s) nmt_ok(s, strlen(s))

static void test_heap_g1(void **state)
{
	char buf[65536];
	size_t n = load("heap_g1.txt", buf, sizeof(buf));

	(void)state;
	heap_ok(buf, n);
	assert_string_equal(j.jvm_gc, "garbage-first heap");
	expect_eq(J(j, HEAP_COMMITTED), 65536 * K);
	expect_eq(J(j, HEAP_USED), 43077 * K);
	expect_eq(HAS(j, METASPACE_USED), 1);
	expect_eq(J(j, METASPACE_USED), 9150 * K);
	expect_eq(J(j, METASPACE_COMMITTED), 9344 * K);
	expect_eq(J(j, METASPACE_RESERVED), 1114112 * K);
	heap_prefixes(buf, n);
}

/*
 * Serial and Parallel: the committed bytes are each generation's
 * [start, committed end), which hold the empty survivor space its "total"
 * leaves out: 64 MiB in all, as -Xms64m -Xmx64m committed.
 */
static void test_heap_serial(void **state)
{
	char buf[65536];
	size_t n = load("heap_serial.txt", buf, sizeof(buf));

	(void)state;
	heap_ok(buf, n);
	assert_string_equal(j.jvm_gc, "def new generation, tenured generation");
	expect_eq(J(j, HEAP_COMMITTED),
	          (0xfd550000ull - 0xfc000000ull) + (0x100000000ull - 0xfd550000ull));
	expect_eq(J(j, HEAP_COMMITTED), 64ull << 20);
	expect_eq(J(j, HEAP_USED), (9237 + 28870) * K);
	expect_eq(J(j, METASPACE_USED), 9191 * K);
	heap_prefixes(buf, n);
}

static void test_heap_parallel(void **state)
{
	char buf[65536];
	size_t n = load("heap_parallel.txt", buf, sizeof(buf));

	(void)state;
	heap_ok(buf, n);
	assert_string_equal(j.jvm_gc, "PSYoungGen, ParOldGen");
	expect_eq(J(j, HEAP_COMMITTED), 64ull << 20);
	expect_eq(J(j, HEAP_USED), (14814 + 26248) * K);
	expect_eq(J(j, METASPACE_COMMITTED), 9344 * K);
	heap_prefixes(buf, n);
}

static void test_heap_z_shenandoah(void **state)
{
	char buf[65536];
	size_t n = load("heap_z.txt", buf, sizeof(buf));

	(void)state;
	heap_ok(buf, n);
	assert_string_equal(j.jvm_gc, "ZHeap");
	expect_eq(J(j, HEAP_COMMITTED), 64ull << 20);
	expect_eq(J(j, HEAP_USED), 48ull << 20);
	expect_eq(J(j, METASPACE_USED), 9143 * K);
	heap_prefixes(buf, n);
	n = load("heap_shenandoah.txt", buf, sizeof(buf));
	heap_ok(buf, n);
	assert_string_equal(j.jvm_gc, "Shenandoah Heap");
	expect_eq(J(j, HEAP_COMMITTED), 65536 * K);
	expect_eq(J(j, HEAP_USED), 35818 * K);
	expect_eq(J(j, METASPACE_RESERVED), 1114112 * K);
	heap_prefixes(buf, n);
}

static void test_heap_bad(void **state)
{
	(void)state;
	heap_bad("", "no Java heap");
	heap_bad("1234:\n", "no Java heap");
	heap_bad("1234:\nNative memory tracking is not enabled\n", "no Java heap");
	heap_bad(" garbage-first heap   total 65536K, us\n", "total NK, used NK");
	heap_bad(" garbage-first heap   total 65536K, used 43077K [0x00000000fc000000\n",
	         "total NK, used NK");
	heap_bad(" garbage-first heap   total 65536K, used 43077K\n"
	         " garbage-first heap   total 65536K, used 43077K\n", "named twice");
	heap_bad(" garbage-first heap   total 65536K, used 65537K\n", "passes its total");
	heap_bad(" ZHeap           used 128M, capacity 64M, max capacity 64M\n",
	         "ZHeap's used passes its capacity");
	heap_bad(" garbage-first heap   total 65536, used 1K\n", "total NK, used NK");
	heap_bad(" garbage-first heap   total -1K, used 1K\n", "total NK, used NK");
	/* 2^62 bytes is the most a figure may be */
	HEAP_OK_S(" garbage-first heap   total 4503599627370496K, used 0K\n");
	expect_eq(J(j, HEAP_COMMITTED), 1ull << 62);
	heap_bad(" garbage-first heap   total 4503599627370497K, used 0K\n", "total NK, used NK");
	heap_bad(" garbage-first heap   total 18446744073709551617K, used 0K\n", "total NK, used NK");
	heap_bad(" garbage-first heap   total 99999999999999999999999999K, used 0K\n",
	         "total NK, used NK");
	/* a line cut short: its number could be a cut one */
	heap_bad(" garbage-first heap   total 65536K, used 43077K", "cut short");
	/* Serial and Parallel need both generations, with their addresses */
	heap_bad(" def new generation   total 19648K, used 9237K [0x00000000fc000000, "
	         "0x00000000fd550000, 0x00000000fd550000)\n", "old generation is missing");
	heap_bad(" tenured generation   total 43712K, used 28870K [0xfd550000, 0x100000000, "
	         "0x100000000)\n", "young generation is missing");
	heap_bad(" def new generation   total 19648K, used 9237K\n"
	         " tenured generation   total 43712K, used 28870K [0xfd550000, 0x100000000, "
	         "0x100000000)\n", "addresses");
	/* the addresses hold less than the total */
	heap_bad(" def new generation   total 19648K, used 9237K [0xfc000000, 0xfc001000, "
	         "0xfd550000)\n tenured generation   total 43712K, used 28870K [0xfd550000, "
	         "0x100000000, 0x100000000)\n", "addresses");
	/* out of order */
	heap_bad(" def new generation   total 1K, used 1K [0xfd550000, 0xfc000000, "
	         "0xfd550000)\n tenured generation   total 43712K, used 28870K [0xfd550000, "
	         "0x100000000, 0x100000000)\n", "addresses");
	heap_bad(" def new generation   total 1K, used 1K [0x0, 0x400, 0x400, 0x400)\n", "total NK");
	heap_bad(" def new generation   total 1K, used 1K [0x0, 0x10000000000000000, 0x400)\n",
	         "total NK");
	heap_bad(" def new generation   total 1K, used 1K [0x0, 0x400, 0x400)\n"
	         " ParOldGen       total 1K, used 1K [0x400, 0x800, 0x800)\n", "two collectors");
	heap_bad(" ZHeap           used 48M, capacity 64M\n", "ZHeap line");
	heap_bad(" ZHeap           used 48M, capacity 0M, max capacity 64M\n", "no capacity");
	heap_bad("Shenandoah Heap\n 65536K max, 65536K soft max, 65536K committed, 65537K used\n",
	         "passes its committed");
	heap_bad("Shenandoah Heap\n 65536K max, 65536K soft max\n", "Shenandoah's sizes");
	heap_bad("Shenandoah Heap\n", "sizes are missing");
	heap_bad(" garbage-first heap   total 1K, used 1K\n Metaspace       used 9K, committed 8K, "
	         "reserved 10K\n", "out of order");
	heap_bad(" garbage-first heap   total 1K, used 1K\n Metaspace       used 9K\n",
	         "Metaspace line");
	/* a heap without its Metaspace line is still the heap */
	HEAP_OK_S(" garbage-first heap   total 2K, used 1K\n");
	expect_eq(HAS(j, METASPACE_USED), 0);
	expect_eq(J(j, HEAP_COMMITTED), 2 * K);
	/* NULL with no length: nothing */
	expect_eq(pmaps_books_parse(&j, PMAPS_BOOK_JVM_HEAP, NULL, 0, NULL, 0), -EBADMSG);
}

static void test_nmt_g1(void **state)
{
	char buf[65536];
	size_t n = load("nmt_g1.txt", buf, sizeof(buf));
	static const char *const names[] = {
		"Java Heap", "Class", "Thread", "Code", "GC", "Compiler", "Internal", "Other",
		"Symbol", "Native Memory Tracking", "Shared class space", "Arena Chunk", "Tracing",
		"Arguments", "Module", "Safepoint", "Synchronization", "Serviceability", "Metaspace",
		"String Deduplication", "Object Monitors"};

	(void)state;
	nmt_ok(buf, n);
	expect_eq(j.jvm_nmt, PMAPS_NMT_ON);
	assert_string_equal(pmaps_nmt_state_key(j.jvm_nmt), "on");
	expect_eq(J(j, NMT_RESERVED), 1546237835);
	expect_eq(J(j, NMT_COMMITTED), 143513483);
	expect_eq(j.jvm_ncat, sizeof(names) / sizeof(names[0]));
	for (unsigned i = 0; i < j.jvm_ncat; i++)
		assert_string_equal(j.jvm_cat[i].name, names[i]);
	expect_eq(j.jvm_cat[0].reserved, 64ull << 20);
	expect_eq(j.jvm_cat[0].committed, 64ull << 20);
	expect_eq(j.jvm_cat[1].reserved, 1073986847);
	expect_eq(j.jvm_cat[1].committed, 1490207);
	expect_eq(j.jvm_cat[2].committed, 965576);
	expect_eq(j.jvm_cat[3].committed, 7922592);
	expect_eq(j.jvm_cat[4].committed, 40574027);
	expect_eq(j.jvm_cat[20].reserved, 624);
	nmt_prefixes(buf, n);
	n = load("nmt_parallel.txt", buf, sizeof(buf));
	nmt_ok(buf, n);
	expect_eq(J(j, NMT_RESERVED), 1512771498);
	expect_eq(J(j, NMT_COMMITTED), 115232682);
	expect_eq(j.jvm_cat[0].committed, 64ull << 20);
	nmt_prefixes(buf, n);
}

/* scale=KB: the same summary in KiB (categories under 1 KB left out). */
static void test_nmt_kb(void **state)
{
	char buf[65536];
	size_t n = load("nmt_g1_kb.txt", buf, sizeof(buf));

	(void)state;
	nmt_ok(buf, n);
	expect_eq(j.jvm_nmt, PMAPS_NMT_ON);
	expect_eq(J(j, NMT_RESERVED), 1509999 * K);
	expect_eq(J(j, NMT_COMMITTED), 140155 * K);
	assert_string_equal(j.jvm_cat[0].name, "Java Heap");
	expect_eq(j.jvm_cat[0].committed, 65536 * K);
	nmt_prefixes(buf, n);
}

/*
 * NMT off, and shut down: each parses, with no figures, its state said
 * (the tool words it, with how to turn NMT on: src/books_out.c).
 */
static void test_nmt_off(void **state)
{
	char buf[65536];
	size_t n = load("nmt_off.txt", buf, sizeof(buf));

	(void)state;
	nmt_ok(buf, n);
	expect_eq(j.jvm_nmt, PMAPS_NMT_OFF);
	assert_string_equal(pmaps_nmt_state_key(j.jvm_nmt), "off");
	expect_eq(j.jvm_ncat, 0);
	nmt_prefixes(buf, n);
	NMT_OK_S("1:\nNative memory tracking has been shutdown\n");
	expect_eq(j.jvm_nmt, PMAPS_NMT_SHUT_DOWN);
	assert_string_equal(pmaps_nmt_state_key(j.jvm_nmt), "shut_down");
	expect_eq(j.jvm_ncat, 0);
}

#define NMT_HEAD "1:\n\nNative Memory Tracking:\n\nTotal: reserved=100, committed=50\n"

static void test_nmt_bad(void **state)
{
	char big[8192], name[128], line[256];
	size_t n;

	(void)state;
	nmt_bad("", "not an NMT summary");
	nmt_bad("1:\nIncorrect scale value: xx\n", "not an NMT summary");
	nmt_bad("1:\n\nNative Memory Tracking:\n\n", "no Total line");
	nmt_bad("Total: reserved=100, committed=50\n", "before");
	nmt_bad("Native Memory Tracking:\n-  Java Heap (reserved=1, committed=1)\n", "before the Total");
	nmt_bad(NMT_HEAD "Total: reserved=100, committed=50\n", "second Total");
	nmt_bad("Native Memory Tracking:\nTotal: reserved=10, committed=50\n", "passes its reserved");
	nmt_bad("Native Memory Tracking:\nTotal: reserved=10\n", "Total line is not");
	nmt_bad("Native Memory Tracking:\nTotal: reserved=4611686018427387905, committed=0\n",
	        "past 2^62");
	nmt_bad("Native Memory Tracking:\nTotal: reserved=99999999999999999999999, committed=0\n",
	        "past 2^62");
	nmt_bad("Native Memory Tracking:\nTotal: reserved=4503599627370497KB, committed=0\n",
	        "past 2^62");
	nmt_bad(NMT_HEAD "-  Java Heap (reserved=1, committed=2)\n", "passes its reserved");
	nmt_bad(NMT_HEAD "-  Java Heap (reserved=1, committed=1\n", "does not end");
	nmt_bad(NMT_HEAD "-  Java Heap (reserved=1)\n", "sizes are not");
	nmt_bad(NMT_HEAD "-  Java Heap\n", "without (reserved");
	nmt_bad(NMT_HEAD "-   (reserved=1, committed=1)\n", "without a name");
	nmt_bad(NMT_HEAD "-  Java Heap (reserved=1, committed=1)", "cut short");
	nmt_bad(NMT_HEAD "-  Java Heap (reserved=1, committed=1) x\n", "does not end");
	nmt_bad(NMT_HEAD "Native Memory Tracking:\n", "second NMT summary");
	/* 2^62 itself is fine, in bytes and in KB */
	NMT_OK_S("Native Memory Tracking:\nTotal: reserved=4611686018427387904, committed=0\n");
	expect_eq(J(j, NMT_RESERVED), 1ull << 62);
	NMT_OK_S("Native Memory Tracking:\nTotal: reserved=4503599627370496KB, committed=3MB\n");
	expect_eq(J(j, NMT_RESERVED), 1ull << 62);
	expect_eq(J(j, NMT_COMMITTED), 3ull << 20);
	/* a name with "(" in it, and fields a later JDK may add */
	n = (size_t)snprintf(big, sizeof(big), NMT_HEAD "-  Foo (bar) (reserved=3, committed=2, "
	                     "peak=9)\n");
	nmt_ok(big, n);
	expect_eq(j.jvm_ncat, 1);
	assert_string_equal(j.jvm_cat[0].name, "Foo (bar)");
	expect_eq(j.jvm_cat[0].reserved, 3);
	expect_eq(j.jvm_cat[0].committed, 2);
	/* a name past the field: cut before the UTF-8 sequence the room would split */
	name[0] = '\0';
	for (int i = 0; i < 25; i++)
		strcat(name, "\xc3\xa9"); /* é, 2 bytes */
	n = (size_t)snprintf(big, sizeof(big), NMT_HEAD "- %s (reserved=1, committed=1)\n", name);
	nmt_ok(big, n);
	expect_eq(strlen(j.jvm_cat[0].name), 38);
	expect_eq(memcmp(j.jvm_cat[0].name, name, 38), 0);
	/* raw bytes stay raw: the writers escape them */
	n = (size_t)snprintf(big, sizeof(big), NMT_HEAD "- \x1b[31mX\t\"\\ (reserved=1, committed=1)\n");
	nmt_ok(big, n);
	assert_string_equal(j.jvm_cat[0].name, "\x1b[31mX\t\"\\");
	/* PMAPS_NMT_MAX categories are kept; one more is an error, never a silent cut */
	n = (size_t)snprintf(big, sizeof(big), NMT_HEAD);
	for (int i = 0; i < PMAPS_NMT_MAX; i++) {
		int l = snprintf(line, sizeof(line), "-  cat%d (reserved=%d, committed=%d)\n", i, i, i);
		memcpy(big + n, line, (size_t)l);
		n += (size_t)l;
	}
	nmt_ok(big, n);
	expect_eq(j.jvm_ncat, PMAPS_NMT_MAX);
	assert_string_equal(j.jvm_cat[PMAPS_NMT_MAX - 1].name, "cat31");
	expect_eq(j.jvm_cat[PMAPS_NMT_MAX - 1].committed, 31);
	memcpy(big + n, "-  one more (reserved=1, committed=1)\n", 39);
	big[n + 39] = '\0';
	nmt_bad(big, "more NMT categories");
	expect_eq(pmaps_books_parse(&j, PMAPS_BOOK_JVM_NMT, NULL, 0, NULL, 0), -EBADMSG);
}

/* Random bytes from the formats' own tokens: never a crash, never a figure out of bounds. */
/* pmaps_books_jcmd_failed(): the words a failed jcmd run is told by. */
static void failed_is(const char *err, const char *out, int other, const char *want)
{
	char why[256];

	memset(why, 'x', sizeof(why));
	pmaps_books_jcmd_failed(4242, "GC.heap_info", 1, err, err ? strlen(err) : 0, out,
	                        out ? strlen(out) : 0, other, why, sizeof(why));
	if (strcmp(why, want) != 0)
		fail_msg("jcmd failed with err '%s', out '%s': got '%s', want '%s'", err ? err : "(null)",
		         out ? out : "(null)", why, want);
}

static void test_jcmd_failed(void **state)
{
	static const char attach[] = "com.sun.tools.attach.AttachNotSupportedException: The VM "
	                             "does not support the attach mechanism\n\tat jdk.attach/x\n";
	char small[24], err[256], want[256];
	(void)state;
	failed_is(attach, NULL, 0,
	          "jcmd could not attach to the JVM: The VM does not support the attach mechanism");
	failed_is(attach, NULL, 1,
	          "jcmd could not attach to the JVM: The VM does not support the attach mechanism "
	          "(it runs in another mount namespace, a container: not reached)");
	/* another exception; the header and a blank line before it, a CR after */
	failed_is("4242:\n\njava.lang.IllegalArgumentException: Unknown diagnostic command\r\n",
	          NULL, 0, "jcmd 4242 GC.heap_info failed (status 1): Unknown diagnostic command");
	/* no exception: the first line that says something, the output's when stderr is empty */
	failed_is("", "4242:\nCould not find the thing\nsecond\n", 0,
	          "jcmd 4242 GC.heap_info failed (status 1): Could not find the thing");
	failed_is("\n \t\n", "4242:\n", 0, "jcmd 4242 GC.heap_info failed (status 1) and said nothing");
	failed_is(NULL, NULL, 0, "jcmd 4242 GC.heap_info failed (status 1) and said nothing");
	/* words past 199 bytes cut before the UTF-8 sequence the cut would split */
	memset(err, 'a', 198);
	strcpy(err + 198, "\xc3\xa9 and more\n");
	snprintf(want, sizeof(want), "jcmd 4242 GC.heap_info failed (status 1): %.198s", err);
	failed_is(err, NULL, 0, want);
	/* a WHY too small: cut, and terminated */
	memset(small, 'x', sizeof(small));
	pmaps_books_jcmd_failed(1, "c", 2, NULL, 0, NULL, 0, 0, small, sizeof(small));
	assert_string_equal(small, "jcmd 1 c failed (status");
	pmaps_books_jcmd_failed(1, "c", 2, NULL, 0, NULL, 0, 0, NULL, 0); /* no room: nothing */
}

static void test_garbage(void **state)
{
	static const char *const tok[] = {
		"1:\n", "\n", " ", "garbage-first heap", " total ", "K", ", used ", "[", "0x",
		"fc000000", ", ", ")", "def new generation", "tenured generation", "PSYoungGen",
		"ParOldGen", "ZHeap", "Shenandoah Heap\n", " max, ", " soft max, ", " committed, ",
		" used", "Metaspace", "used ", ", committed ", ", reserved ", "Native Memory Tracking:",
		"Total: ", "reserved=", "-", "(reserved=", "KB", "MB", "G", "M", "4611686018427387904",
		"18446744073709551615", "65536", "0", "9", "\xc3", "\xa9", "\r", "\t", "capacity ",
		"Native memory tracking is not enabled"};
	char buf[512];
	unsigned seed = 14;

	(void)state;
	for (int round = 0; round < 20000; round++) {
		size_t n = 0;
		int parts = (int)(rand_r(&seed) % 24);
		for (int i = 0; i < parts; i++) {
			const char *t = tok[rand_r(&seed) % (sizeof(tok) / sizeof(tok[0]))];
			size_t l = strlen(t);
			if (n + l > sizeof(buf))
				break;
			memcpy(buf + n, t, l);
			n += l;
		}
		int rc = pmaps_books_parse(&j, PMAPS_BOOK_JVM_HEAP, buf, n, NULL, 0);
		if (rc == 0) {
			expect_le(J(j, HEAP_USED), J(j, HEAP_COMMITTED));
			expect_le(J(j, HEAP_COMMITTED), 1ull << 62);
		} else {
			expect_eq(rc, -EBADMSG);
			expect_no_heap();
		}
		rc = pmaps_books_parse(&j, PMAPS_BOOK_JVM_NMT, buf, n, NULL, 0);
		if (rc == 0 && j.jvm_nmt == PMAPS_NMT_ON) {
			expect_le(J(j, NMT_COMMITTED), J(j, NMT_RESERVED));
			expect_le(J(j, NMT_RESERVED), 1ull << 62);
			expect_le(j.jvm_ncat, PMAPS_NMT_MAX);
			for (unsigned i = 0; i < j.jvm_ncat; i++)
				expect_le(j.jvm_cat[i].committed, j.jvm_cat[i].reserved);
		} else if (rc != 0) {
			expect_eq(rc, -EBADMSG);
			expect_no_nmt();
		}
	}
}

/* ---- pmaps_books_jvm_attach(): whether jcmd may ask ---- */

/* A handle on process PID under ROOT (NULL: the live /proc). */
static struct pmaps_proc *open_pid(const char *root, int pid)
{
	struct pmaps_proc *p = NULL;
	char s[16];
	int rc;

	snprintf(s, sizeof(s), "%d", pid);
	rc = pmaps_proc_open(&p, root, s);
	if (rc < 0)
		fail_msg("pmaps_proc_open(%s, %s): %d (%s)", root ? root : "/proc", s, rc,
		         pmaps_strerror(rc));
	return p;
}

/* This test itself (which maps a libjvm.so: setup()), and a fixture JVM under another proc root. */
static void test_attach(void **state)
{
	struct pmaps_jvm_attach a;
	struct pmaps_proc *p;
	char msg[256];
	int rc;

	(void)state;
	p = open_pid(NULL, (int)getpid());
	memset(&a, 0xa5, sizeof(a));
	a.size = sizeof(a);
	rc = pmaps_books_jvm_attach(p, &a, msg, sizeof(msg));
	if (rc != 1)
		fail_msg("pmaps_books_jvm_attach(self): %d, msg '%s'", rc, msg);
	expect_eq(a.size, sizeof(a));
	expect_eq(a.uid, geteuid());
	expect_eq(a.gid, getegid());
	expect_eq(a.nspid, getpid());
	expect_eq(a.other_mntns, 0);
	/* a size below the first one's: refused, nothing written past it */
	memset(&a, 0, sizeof(a));
	expect_eq(pmaps_books_jvm_attach(p, &a, msg, sizeof(msg)), -EINVAL);
	expect_eq(pmaps_books_jvm_attach(p, NULL, msg, sizeof(msg)), -EINVAL);
	pmaps_proc_close(p);
	/* a JVM (its smaps maps libjvm.so) in a fixture tree: not a live process, never asked */
	p = open_pid(PMAPS_TEST_DATA "/explain-jvm/proc", 200);
	a.size = sizeof(a);
	rc = pmaps_books_jvm_attach(p, &a, msg, sizeof(msg));
	expect_eq(rc, 0);
	expect_contains(msg, "asked of a live process: not under another proc root");
	pmaps_proc_close(p);
}

/* ---- book_jvm_read() against a fake jcmd ---- */

static char dir[64], oldpath[4096];

/* The fake: writes its uid and arguments to DIR/args, answers each command from DIR/<mode>. */
static const char fake[] =
	"#!/bin/sh\n"
	"d=$(dirname \"$0\")\n"
	"echo \"$(id -u) $*\" >> \"$d/args\"\n"
	"mode=$(cat \"$d/mode\")\n"
	"case \"$mode\" in\n"
	"ok) echo \"$4:\"; case \"$5\" in GC.heap_info) cat \"$d/heap\";; *) cat \"$d/nmt\";; esac;;\n"
	"hang) sleep 30 & echo $! > \"$d/sleeper\"; wait;;\n"
	"big) head -c 2000000 /dev/zero;;\n"
	"attach) echo \"$4:\"; cat \"$d/attach.err\" >&2; exit 1;;\n"
	"quiet) exit 3;;\n"
	"esac\n"
	"exit 0\n";

static void put(const char *name, const char *text, size_t n)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	expect_sys(fd);
	assert_int_equal(write(fd, text, n), (ssize_t)n);
	close(fd);
}

static void put_fixture(const char *name, const char *fixture)
{
	char buf[65536];
	size_t n = load(fixture, buf, sizeof(buf));
	/* the fixtures' first line is jcmd's "PID:", which the fake writes itself */
	char *nl = memchr(buf, '\n', n);

	assert_non_null(nl);
	put(name, nl + 1, n - (size_t)(nl + 1 - buf));
}

static size_t get(const char *name, char *buf, size_t size)
{
	char path[128];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		buf[0] = '\0';
		return 0;
	}
	n = read(fd, buf, size - 1);
	close(fd);
	expect_ge(n, 0);
	buf[n] = '\0';
	return (size_t)n;
}

static void mode(const char *m)
{
	char path[128];

	put("mode", m, strlen(m));
	snprintf(path, sizeof(path), "%s/args", dir);
	unlink(path);
}

/*
 * The test maps a file named libjvm.so, so that it (and a child it forks)
 * passes for a JVM to pmaps_books_jvm_attach().
 */
static void *libjvm;

static int setup(void **state)
{
	char path[128];
	int fd;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/pmaps-jvmbook-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	chmod(dir, 0777); /* the fake runs as another user in test_read_drop */
	put("jcmd", fake, sizeof(fake) - 1);
	put_fixture("heap", "heap_g1.txt");
	put_fixture("nmt", "nmt_g1.txt");
	{
		char buf[4096];
		size_t n = load("attach_disabled.err", buf, sizeof(buf));
		put("attach.err", buf, n);
	}
	snprintf(path, sizeof(path), "%s/libjvm.so", dir);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || ftruncate(fd, 4096) < 0)
		return -1;
	libjvm = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	snprintf(oldpath, sizeof(oldpath), "%s", getenv("PATH") ? getenv("PATH") : "");
	setenv("PATH", dir, 1);
	return libjvm == MAP_FAILED ? -1 : 0;
}

static int teardown(void **state)
{
	char cmd[256];

	(void)state;
	munmap(libjvm, 4096);
	setenv("PATH", oldpath, 1);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static struct books_opts opts(unsigned timeout_ms)
{
	struct books_opts o;

	memset(&o, 0, sizeof(o));
	o.timeout_ms = timeout_ms;
	o.malloc_fd = -1;
	return o;
}

static void want_why(const char *why, const char *want)
{
	if (!strstr(why, want))
		fail_msg("why '%s' does not say '%s'", why, want);
}

/*
 * The targets a test forks, ended by the test (end_kid()) or, when it fails
 * first, by its teardown: none left to hold the test's output open.
 */
static pid_t kids[8];

static pid_t add_kid(pid_t kid)
{
	expect_sys(kid);
	for (unsigned i = 0; kid > 0 && i < sizeof(kids) / sizeof(kids[0]); i++)
		if (!kids[i]) {
			kids[i] = kid;
			break;
		}
	return kid;
}

static void end_kid(pid_t kid)
{
	int st;

	for (unsigned i = 0; i < sizeof(kids) / sizeof(kids[0]); i++)
		if (kids[i] == kid)
			kids[i] = 0;
	kill(kid, SIGKILL);
	while (waitpid(kid, &st, 0) < 0 && errno == EINTR)
		;
}

static int end_kids(void **state)
{
	(void)state;
	for (unsigned i = 0; i < sizeof(kids) / sizeof(kids[0]); i++)
		if (kids[i])
			end_kid(kids[i]);
	return 0;
}

/*
 * book_jvm_read() on PROC into J, zeroed first as books_read() zeroes its
 * record; both JVM books are always asked.
 */
static void jread(const struct books_opts *o, struct pmaps_proc *proc)
{
	books_init(&j);
	book_jvm_read(&j, o, proc);
	expect_eq(HEAD(j, JVM_HEAP).asked, 1);
	expect_eq(HEAD(j, JVM_NMT).asked, 1);
}

/* jread() on process PID of the live /proc. */
static void jread_pid(const struct books_opts *o, int pid)
{
	struct pmaps_proc *p = open_pid(NULL, pid);

	jread(o, p);
	pmaps_proc_close(p);
}

/* A head's read, from its request to its answer (ns). */
static uint64_t took(const struct pmaps_book_head *h)
{
	expect_gt(h->start_ns, 0);
	expect_ge(h->end_ns, h->start_ns);
	return h->end_ns - h->start_ns;
}

/* Neither book read, each saying WANT. */
static void refused(const char *want)
{
	expect_eq(HEAD(j, JVM_HEAP).ok, 0);
	expect_eq(HEAD(j, JVM_NMT).ok, 0);
	want_why(HEAD(j, JVM_HEAP).why, want);
	assert_string_equal(HEAD(j, JVM_NMT).why, HEAD(j, JVM_HEAP).why);
	expect_no_heap();
	expect_no_nmt();
}

static void test_read_ok(void **state)
{
	struct books_opts o = opts(10000);
	char args[4096], want[512];
	struct timespec before;
	uint64_t before_ns;
	int pid = (int)getpid();

	(void)state;
	mode("ok");
	clock_gettime(CLOCK_REALTIME, &before);
	before_ns = (uint64_t)before.tv_sec * 1000000000u + (uint64_t)before.tv_nsec;
	jread_pid(&o, pid);
	get("args", args, sizeof(args));
	if (!HEAD(j, JVM_HEAP).ok || !HEAD(j, JVM_NMT).ok)
		fail_msg("not ok: heap why '%s', nmt why '%s'", HEAD(j, JVM_HEAP).why,
		         HEAD(j, JVM_NMT).why);
	assert_string_equal(HEAD(j, JVM_HEAP).why, "");
	assert_string_equal(HEAD(j, JVM_NMT).why, "");
	expect_eq(J(j, HEAP_COMMITTED), 65536 * K);
	expect_eq(J(j, HEAP_USED), 43077 * K);
	expect_eq(j.jvm_nmt, PMAPS_NMT_ON);
	expect_eq(J(j, NMT_COMMITTED), 143513483);
	expect_eq(j.jvm_ncat, 21);
	/* jcmd ran as this user, GC.heap_info first, NMT in bytes */
	snprintf(want, sizeof(want),
	         "%u -J-XX:-UsePerfData -J-XX:+UseSerialGC -J-XX:TieredStopAtLevel=1 %d GC.heap_info\n"
	         "%u -J-XX:-UsePerfData -J-XX:+UseSerialGC -J-XX:TieredStopAtLevel=1 %d "
	         "VM.native_memory summary scale=b\n",
	         (unsigned)geteuid(), pid, (unsigned)geteuid(), pid);
	assert_string_equal(args, want);
	for (int k = PMAPS_BOOK_JVM_HEAP; k <= PMAPS_BOOK_JVM_NMT; k++) {
		expect_ge(j.head[k].at_ns, before_ns);
		expect_gt(took(&j.head[k]), 0);
	}
	/* the heap asked first, NMT after */
	expect_ge(HEAD(j, JVM_NMT).start_ns, HEAD(j, JVM_HEAP).end_ns);

	/* a pmaps started with SIGCHLD ignored: jcmd's status all the same, and SIG_IGN kept */
	{
		struct sigaction ign, now;
		memset(&ign, 0, sizeof(ign));
		ign.sa_handler = SIG_IGN;
		sigaction(SIGCHLD, &ign, NULL);
		jread_pid(&o, pid);
		sigaction(SIGCHLD, NULL, &now);
		ign.sa_handler = SIG_DFL;
		sigaction(SIGCHLD, &ign, NULL);
		if (!HEAD(j, JVM_HEAP).ok || !HEAD(j, JVM_NMT).ok || j.jvm_nmt != PMAPS_NMT_ON)
			fail_msg("SIGCHLD ignored: heap why '%s', nmt why '%s'", HEAD(j, JVM_HEAP).why,
			         HEAD(j, JVM_NMT).why);
		expect_eq(J(j, HEAP_COMMITTED), 65536 * K);
		expect_eq((uintptr_t)now.sa_handler, (uintptr_t)SIG_IGN);
	}
	/* NMT off: the heap all the same; NMT's answer read, and it says off */
	put_fixture("nmt", "nmt_off.txt");
	jread_pid(&o, pid);
	expect_eq(HEAD(j, JVM_HEAP).ok, 1);
	expect_eq(J(j, HEAP_COMMITTED), 65536 * K);
	expect_eq(HEAD(j, JVM_NMT).ok, 1);
	expect_eq(j.jvm_nmt, PMAPS_NMT_OFF);
	expect_eq(HAS(j, NMT_RESERVED), 0);
	expect_eq(j.jvm_ncat, 0);
	/* a heap_info that is not one: NMT all the same, the heap's why said */
	put_fixture("heap", "nmt_off.txt");
	put_fixture("nmt", "nmt_g1.txt");
	jread_pid(&o, pid);
	expect_eq(HEAD(j, JVM_HEAP).ok, 0);
	expect_no_heap();
	want_why(HEAD(j, JVM_HEAP).why, "GC.heap_info: no Java heap");
	expect_eq(HEAD(j, JVM_NMT).ok, 1);
	expect_eq(j.jvm_nmt, PMAPS_NMT_ON);
	/* neither */
	put_fixture("nmt", "heap_g1.txt");
	jread_pid(&o, pid);
	expect_eq(HEAD(j, JVM_HEAP).ok, 0);
	expect_eq(HEAD(j, JVM_NMT).ok, 0);
	want_why(HEAD(j, JVM_HEAP).why, "GC.heap_info: no Java heap");
	want_why(HEAD(j, JVM_NMT).why, "VM.native_memory summary scale=b: not an NMT summary");
	expect_no_heap();
	expect_no_nmt();
	put_fixture("heap", "heap_g1.txt");
	put_fixture("nmt", "nmt_g1.txt");
}

/*
 * Each head names the command that was run for it (pmaps.h): after a read,
 * and after a refusal (what would have been run).
 */
static void want_sources(int pid)
{
	char want[128];

	snprintf(want, sizeof(want), "jcmd %d GC.heap_info", pid);
	assert_string_equal(HEAD(j, JVM_HEAP).source, want);
	snprintf(want, sizeof(want), "jcmd %d VM.native_memory summary scale=b", pid);
	assert_string_equal(HEAD(j, JVM_NMT).source, want);
}

static void test_read_sources(void **state)
{
	struct books_opts o = opts(10000);
	int pid = (int)getpid();

	(void)state;
	mode("ok");
	/* refused: no jcmd on PATH */
	setenv("PATH", "/nonexistent", 1);
	jread_pid(&o, pid);
	setenv("PATH", dir, 1);
	expect_eq(HEAD(j, JVM_NMT).ok, 0);
	want_sources(pid);
	/* read */
	jread_pid(&o, pid);
	if (!HEAD(j, JVM_HEAP).ok || !HEAD(j, JVM_NMT).ok)
		fail_msg("not ok: heap why '%s', nmt why '%s'", HEAD(j, JVM_HEAP).why,
		         HEAD(j, JVM_NMT).why);
	want_sources(pid);
}

/* A jcmd that hangs is killed at the timeout, with what it started. */
static void test_read_hang(void **state)
{
	struct books_opts o = opts(300);
	char args[4096], sl[32], path[64], st[512];
	uint64_t t0;
	int sleeper = 0;

	(void)state;
	mode("hang");
	t0 = (uint64_t)time(NULL);
	jread_pid(&o, (int)getpid());
	expect_le((uint64_t)time(NULL) - t0, 2);
	expect_eq(HEAD(j, JVM_HEAP).ok, 0);
	expect_eq(HEAD(j, JVM_NMT).ok, 0);
	want_why(HEAD(j, JVM_HEAP).why, "did not answer within 300 ms");
	expect_ge(took(&HEAD(j, JVM_HEAP)), 300000000ull);
	expect_lt(took(&HEAD(j, JVM_HEAP)), 1500000000ull);
	/* only the first command was tried */
	get("args", args, sizeof(args));
	expect_eq(strchr(args, '\n') - args + 1, (ptrdiff_t)strlen(args));
	want_why(HEAD(j, JVM_NMT).why, "did not answer");
	/* its child, in its process group, killed too: gone, or a zombie for init to reap */
	get("sleeper", sl, sizeof(sl));
	for (char *p = sl; *p >= '0' && *p <= '9'; p++)
		sleeper = sleeper * 10 + (*p - '0');
	expect_gt(sleeper, 0);
	for (int i = 0; i < 100; i++) {
		snprintf(path, sizeof(path), "/proc/%d/stat", sleeper);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			break;
		ssize_t n = read(fd, st, sizeof(st) - 1);
		close(fd);
		st[n > 0 ? n : 0] = '\0';
		char *rp = strrchr(st, ')');
		if (rp && rp[1] == ' ' && rp[2] == 'Z')
			break;
		if (i == 99)
			fail_msg("the fake's child %d still runs: %s", sleeper, st);
		usleep(10000);
	}
}

static void test_read_big(void **state)
{
	struct books_opts o = opts(10000);

	(void)state;
	mode("big");
	jread_pid(&o, (int)getpid());
	expect_eq(HEAD(j, JVM_HEAP).ok, 0);
	expect_eq(HEAD(j, JVM_NMT).ok, 0);
	want_why(HEAD(j, JVM_HEAP).why, "wrote more than 1048576 bytes");
}

static void test_read_attach(void **state)
{
	struct books_opts o = opts(10000);
	char args[4096];

	(void)state;
	mode("attach");
	jread_pid(&o, (int)getpid());
	expect_eq(HEAD(j, JVM_HEAP).ok, 0);
	expect_eq(HEAD(j, JVM_NMT).ok, 0);
	assert_string_equal(HEAD(j, JVM_HEAP).why,
	                    "jcmd could not attach to the JVM: The VM does not support the attach "
	                    "mechanism");
	assert_string_equal(HEAD(j, JVM_NMT).why, HEAD(j, JVM_HEAP).why);
	get("args", args, sizeof(args));
	expect_eq(strchr(args, '\n') - args + 1, (ptrdiff_t)strlen(args));
	mode("quiet");
	jread_pid(&o, (int)getpid());
	expect_eq(HEAD(j, JVM_HEAP).ok, 0);
	expect_eq(HEAD(j, JVM_NMT).ok, 0);
	want_why(HEAD(j, JVM_HEAP).why, "GC.heap_info failed (status 3) and said nothing");
}

/* What the reader refuses before it runs anything. */
static void test_read_refused(void **state)
{
	struct books_opts o = opts(10000);
	struct pmaps_proc *p;
	char args[64];
	pid_t kid;
	int st;

	(void)state;
	mode("ok");
	/* no jcmd on PATH */
	setenv("PATH", "/nonexistent:relative/dir", 1);
	jread_pid(&o, (int)getpid());
	setenv("PATH", dir, 1);
	refused("");
	assert_string_equal(HEAD(j, JVM_HEAP).why,
	                    "jcmd not found on PATH: install a JDK (Debian openjdk-17-jdk-headless)");
	expect_gt(HEAD(j, JVM_HEAP).at_ns, 0);
	expect_gt(HEAD(j, JVM_NMT).at_ns, 0);
	/* a proc root that is not the live one (a JVM in a fixture tree, --proc-root) */
	o.root = PMAPS_TEST_DATA "/explain-jvm/proc";
	p = open_pid(o.root, 200);
	jread(&o, p);
	pmaps_proc_close(p);
	o.root = NULL;
	refused("the JVM's books are asked of a live process: not under another proc root");
	/* stopped: it could not answer */
	kid = add_kid(fork());
	if (kid == 0) {
		pause();
		_exit(0);
	}
	kill(kid, SIGSTOP);
	waitpid(kid, &st, WUNTRACED);
	p = open_pid(NULL, (int)kid);
	jread(&o, p);
	end_kid(kid);
	refused("the JVM is stopped (state T): it cannot answer jcmd until it runs again");
	/* gone: the handle outlived it */
	jread(&o, p);
	pmaps_proc_close(p);
	refused(pmaps_strerror(-ESRCH));
	get("args", args, sizeof(args));
	assert_string_equal(args, ""); /* jcmd never ran */
}

/* A process that maps no libjvm.so (jcmd would SIGQUIT it, and end it): not asked. */
/* A child of this test that unmapped its libjvm.so: to the reader, no JVM. */
static pid_t kid_without_libjvm(void)
{
	pid_t kid;
	int pp[2];
	char c;

	assert_int_equal(pipe(pp), 0);
	kid = add_kid(fork());
	if (kid == 0) {
		munmap(libjvm, 4096);
		close(pp[0]);
		close(pp[1]);
		pause();
		_exit(0);
	}
	close(pp[1]);
	(void)!read(pp[0], &c, 1); /* EOF once it unmapped and closed */
	close(pp[0]);
	return kid;
}

static void test_read_no_libjvm(void **state)
{
	struct books_opts o = opts(10000);
	struct pmaps_jvm_attach a = {.size = sizeof(a)};
	struct pmaps_proc *p;
	char args[64], msg[256];
	pid_t kid;
	int rc;

	(void)state;
	mode("ok");
	kid = kid_without_libjvm();
	p = open_pid(NULL, (int)kid);
	rc = pmaps_books_jvm_attach(p, &a, msg, sizeof(msg));
	jread(&o, p);
	pmaps_proc_close(p);
	end_kid(kid);
	if (rc != 0)
		fail_msg("pmaps_books_jvm_attach() on a process without libjvm.so: %d, msg '%s'", rc,
		         msg);
	expect_contains(msg, "the process maps no libjvm.so");
	refused("the process maps no libjvm.so: jcmd is only run against a HotSpot JVM");
	get("args", args, sizeof(args));
	assert_string_equal(args, ""); /* jcmd never ran */
}

/*
 * A maps text of FILL bytes of lines, then LINE, under a proc root of its
 * own: pmaps_books_runtime()'s answer for it (fixture: no exe, so not Go).
 */
static int runtime_of_maps(size_t fill, const char *line)
{
	char root[] = "/tmp/pmaps-maps-XXXXXX", path[96];
	static char text[40000];
	struct pmaps_proc *p;
	size_t n = 0;
	int fd, rc;

	assert_non_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/9", root);
	assert_int_equal(mkdir(path, 0755), 0);
	while (n < fill) {
		/* lines of 64 bytes, the last cut to fit: "7f..-7f.. rw-p ... \n" */
		size_t l = fill - n < 64 ? fill - n : 64;
		memset(text + n, 'a', l - 1);
		text[n + l - 1] = '\n';
		n += l;
	}
	memcpy(text + n, line, strlen(line));
	n += strlen(line);
	snprintf(path, sizeof(path), "%s/9/maps", root);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	expect_sys(fd);
	assert_int_equal(write(fd, text, n), (ssize_t)n);
	close(fd);
	p = open_pid(root, 9);
	rc = pmaps_books_runtime(p);
	pmaps_proc_close(p);
	unlink(path);
	snprintf(path, sizeof(path), "%s/9", root);
	rmdir(path);
	rmdir(root);
	return rc;
}

/*
 * The maps text is read through a 20 KiB buffer: a libjvm.so line is found
 * wherever it falls across the reads, and only a path that ends so.
 */
static void test_runtime_maps_text(void **state)
{
	static const char *const yes[] = {
		"7f00-7f01 r-xp 00000000 08:01 42 /opt/jdk/lib/server/libjvm.so\n",
		"7f00-7f01 r-xp 00000000 08:01 42 /opt/jdk/lib/server/libjvm.so (deleted)\n",
	};
	static const char *const no[] = {
		"7f00-7f01 r-xp 00000000 08:01 42 /opt/jdk/lib/server/libjvm.so.bak\n",
		"7f00-7f01 r-xp 00000000 08:01 42 /opt/jdk/lib/server/libjvm.so (deleted)x\n",
		"7f00-7f01 r-xp 00000000 08:01 42 /opt/jdk/lib/server/xlibjvm.sox\n",
		"7f00-7f01 r-xp 00000000 08:01 42 /libjvm.so\\012x\n",
	};
	(void)state;
	/* the line's "/libjvm.so" from 28 bytes before the first read's end to 21 after */
	for (size_t off = 20480 - 80; off < 20480 - 30; off++) {
		for (size_t i = 0; i < 2; i++) {
			int rc = runtime_of_maps(off, yes[i]);
			if (rc != PMAPS_RUNTIME_JVM)
				fail_msg("'%.*s' after %zu bytes: %d, want the JVM (%d)",
				         (int)strlen(yes[i]) - 1, yes[i], off, rc, PMAPS_RUNTIME_JVM);
		}
		for (size_t i = 0; i < 4; i++) {
			int rc = runtime_of_maps(off, no[i]);
			if (rc != PMAPS_RUNTIME_NONE)
				fail_msg("'%.*s' after %zu bytes: %d, want none (%d)",
				         (int)strlen(no[i]) - 1, no[i], off, rc, PMAPS_RUNTIME_NONE);
		}
	}
	expect_eq(runtime_of_maps(0, ""), PMAPS_RUNTIME_NONE); /* a kernel thread's: empty */
	{
		/*
		 * The longest line: a path of PATH_MAX - 1 bytes, 4,085 newlines
		 * (\012 each) and "/libjvm.so", 16,405 bytes; a line follows.
		 */
		static char longest[17000];
		size_t n = (size_t)snprintf(longest, sizeof(longest),
		                            "7ffff7a00000-7ffff7c00000 r-xp 00000000 fd:01 1234567 ");
		for (int i = 0; i < 4085; i++, n += 4)
			memcpy(longest + n, "\\012", 4);
		memcpy(longest + n, "/libjvm.so\n7f01-7f02 rw-p 00000000 00:00 0\n", 44);
		expect_eq(runtime_of_maps(100, longest), PMAPS_RUNTIME_JVM);
	}
}

/*
 * pmaps_books_runtime(): this test maps a libjvm.so (a JVM to the reader), a
 * child that unmapped it none, the Go fixture's executable Go, and a tree
 * without the files an error of its own.
 */
static void test_runtime(void **state)
{
	struct pmaps_proc *p;
	pid_t kid;
	int rc;

	(void)state;
	p = open_pid(NULL, (int)getpid());
	expect_eq(pmaps_books_runtime(p), PMAPS_RUNTIME_JVM);
	pmaps_proc_close(p);
	kid = kid_without_libjvm();
	p = open_pid(NULL, (int)kid);
	rc = pmaps_books_runtime(p);
	pmaps_proc_close(p);
	end_kid(kid);
	expect_eq(rc, PMAPS_RUNTIME_NONE);
	p = open_pid(PMAPS_TEST_DATA "/explain-go/proc", 400);
	expect_eq(pmaps_books_runtime(p), PMAPS_RUNTIME_GO);
	pmaps_proc_close(p);
	/* no exe, no maps: not Go, and the maps text's error */
	p = open_pid(PMAPS_TEST_DATA "/explain-jvm/proc", 200);
	expect_eq(pmaps_books_runtime(p), -ENOENT);
	pmaps_proc_close(p);
	expect_eq(pmaps_books_runtime(NULL), -EINVAL);
}

/*
 * Where main() found room for an option in this process's command line and
 * environment (argv[0], a variable of the environ it started with): bytes
 * /proc/PID/cmdline and environ read, which a forked child may write over.
 */
static char *cmdline_room, *environ_room;

/*
 * A child of this test (its libjvm.so mapping kept: a JVM to the reader)
 * with OPT written over ROOM, or 0 when there is none long enough.
 */
static pid_t jvm_with(char *room, const char *opt)
{
	size_t l = strlen(opt);
	pid_t kid;
	int pp[2];
	char c;

	if (!room || strlen(room) < l) {
		printf("skipped: no room for %s\n", opt);
		return 0;
	}
	assert_int_equal(pipe(pp), 0);
	kid = add_kid(fork());
	if (kid == 0) {
		memcpy(room, opt, l);
		close(pp[0]);
		close(pp[1]);
		pause();
		_exit(0);
	}
	close(pp[1]);
	(void)!read(pp[0], &c, 1); /* EOF once it wrote and closed */
	close(pp[0]);
	return kid;
}

/* Options on which jcmd's signal would harm the JVM: never asked (jcmd never runs). */
static void test_read_options(void **state)
{
	struct books_opts o = opts(10000);
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	char args[4096];
	pid_t kid;
	int s;

	(void)state;
	mode("ok");
	/* -XX:+DisableAttachMechanism on its command line, and in its environment */
	if ((kid = jvm_with(cmdline_room, "-XX:+DisableAttachMechanism"))) {
		jread_pid(&o, (int)kid);
		end_kid(kid);
		refused("the JVM was started with -XX:+DisableAttachMechanism: jcmd cannot attach");
	}
	if ((kid = jvm_with(environ_room, "JAVA_TOOL_OPTIONS=-XX:+DisableAttachMechanism"))) {
		jread_pid(&o, (int)kid);
		end_kid(kid);
		refused("the JVM was started with -XX:+DisableAttachMechanism: jcmd cannot attach");
	}
	get("args", args, sizeof(args));
	assert_string_equal(args, "");
	/* -Xrs (no SIGQUIT handler) with its attach socket gone: jcmd's signal would end it */
	kid = jvm_with(cmdline_room, "-Xrs");
	if (!kid)
		return;
	jread_pid(&o, (int)kid);
	refused("the JVM runs with -Xrs and its attach socket is gone");
	get("args", args, sizeof(args));
	assert_string_equal(args, "");
	/* with its socket, /tmp/.java_pidNSPID in its root: asked */
	snprintf(sun.sun_path, sizeof(sun.sun_path), "/tmp/.java_pid%d", (int)kid);
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	expect_sys(s);
	unlink(sun.sun_path);
	expect_sys(bind(s, (struct sockaddr *)&sun, sizeof(sun)));
	jread_pid(&o, (int)kid);
	unlink(sun.sun_path);
	close(s);
	end_kid(kid);
	if (!HEAD(j, JVM_HEAP).ok || !HEAD(j, JVM_NMT).ok)
		fail_msg("-Xrs with its socket: heap why '%s', nmt why '%s'", HEAD(j, JVM_HEAP).why,
		         HEAD(j, JVM_NMT).why);
	expect_eq(J(j, HEAP_COMMITTED), 65536 * K);
	get("args", args, sizeof(args));
	expect_contains(args, " GC.heap_info\n");
}

/* As root, against a process of another user: jcmd runs as that user. */
static void test_read_drop(void **state)
{
	struct books_opts o = opts(10000);
	char args[4096], want[64];
	int p[2];
	pid_t kid;

	(void)state;
	if (geteuid() != 0) {
		printf("skipped: needs root to run a target as another user\n");
		skip();
	}
	mode("ok");
	assert_int_equal(pipe(p), 0);
	kid = add_kid(fork());
	if (kid == 0) {
		if (setgid(65534) < 0 || setuid(65534) < 0)
			_exit(1);
		close(p[0]);
		close(p[1]);
		pause();
		_exit(0);
	}
	close(p[1]);
	(void)!read(p[0], want, 1); /* EOF once it dropped and closed */
	close(p[0]);
	jread_pid(&o, (int)kid);
	end_kid(kid);
	if (!HEAD(j, JVM_HEAP).ok || !HEAD(j, JVM_NMT).ok)
		fail_msg("not ok: heap why '%s', nmt why '%s'", HEAD(j, JVM_HEAP).why,
		         HEAD(j, JVM_NMT).why);
	get("args", args, sizeof(args));
	snprintf(want, sizeof(want), "65534 -J");
	if (strncmp(args, want, strlen(want)) != 0)
		fail_msg("jcmd ran as '%s', want uid 65534", args);
}

int main(int argc, char **argv, char **envp)
{
	const struct CMUnitTest parsers[] = {
		cmocka_unit_test(test_heap_g1),
		cmocka_unit_test(test_heap_serial),
		cmocka_unit_test(test_heap_parallel),
		cmocka_unit_test(test_heap_z_shenandoah),
		cmocka_unit_test(test_heap_bad),
		cmocka_unit_test(test_nmt_g1),
		cmocka_unit_test(test_nmt_kb),
		cmocka_unit_test(test_nmt_off),
		cmocka_unit_test(test_nmt_bad),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_jcmd_failed),
		cmocka_unit_test(test_runtime_maps_text),
	};
	const struct CMUnitTest reader[] = {
		cmocka_unit_test(test_attach),
		cmocka_unit_test(test_read_ok),
		cmocka_unit_test(test_read_sources),
		cmocka_unit_test(test_read_hang),
		cmocka_unit_test(test_read_big),
		cmocka_unit_test(test_read_attach),
		cmocka_unit_test_teardown(test_read_refused, end_kids),
		cmocka_unit_test_teardown(test_read_no_libjvm, end_kids),
		cmocka_unit_test_teardown(test_runtime, end_kids),
		cmocka_unit_test_teardown(test_read_options, end_kids),
		cmocka_unit_test_teardown(test_read_drop, end_kids),
	};
	int rc;

	/* before setup()'s setenv(), which may put a variable's string elsewhere */
	if (argc > 0)
		cmdline_room = argv[0];
	for (char **e = envp; *e && !environ_room; e++)
		if (strlen(*e) >= sizeof("JAVA_TOOL_OPTIONS=-XX:+DisableAttachMechanism") - 1)
			environ_room = *e;
	books_init(&j);
	rc = cmocka_run_group_tests_name("parsers", parsers, NULL, NULL);
	return rc | cmocka_run_group_tests_name("reader", reader, setup, teardown);
}
