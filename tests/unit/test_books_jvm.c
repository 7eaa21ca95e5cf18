/* SPDX-License-Identifier: MIT */
/*
 * test_books_jvm.c - the JVM's books (src/books_jvm.c): GC.heap_info and
 * VM.native_memory summary as openjdk 17 wrote them here (G1, Serial,
 * Parallel, ZGC, Shenandoah; NMT on in bytes and in KB, off), each cut at
 * every length, hand-made edge cases (sizes at and past 2^62, names past
 * the field, too many categories, garbage); then book_jvm_read() against
 * a fake jcmd on PATH (a shell script that answers from fixtures): its
 * arguments, its output parsed, a jcmd that hangs (cut at the timeout,
 * its process group killed), one that writes past the cap, one that
 * cannot attach, none on PATH, a process that maps no libjvm.so, a stopped
 * one, --proc-root, and as root a target of another user (jcmd runs as
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
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "books.h"
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

static struct book_jvm j, full;

static void heap_ok(const char *text, size_t len)
{
	char why[256];
	int rc = book_jvm_parse_heap(&j, text, len, why, sizeof(why));

	if (rc != 0)
		fail_msg("parse_heap: %d, why '%s'", rc, why);
	expect_eq(j.heap_ok, 1);
}

static void heap_bad(const char *text, const char *want)
{
	char why[256];
	int rc = book_jvm_parse_heap(&j, text, strlen(text), why, sizeof(why));

	if (rc != -EBADMSG)
		fail_msg("parse_heap: %d, want -EBADMSG, on '%s'", rc, text);
	expect_eq(j.heap_ok, 0);
	expect_eq(j.heap_committed, 0);
	if (!strstr(why, want))
		fail_msg("why '%s' does not say '%s' (input '%s')", why, want, text);
}

static void nmt_ok(const char *text, size_t len)
{
	char why[256];
	int rc = book_jvm_parse_nmt(&j, text, len, why, sizeof(why));

	if (rc != 0)
		fail_msg("parse_nmt: %d, why '%s'", rc, why);
}

static void nmt_bad(const char *text, const char *want)
{
	char why[256];
	int rc = book_jvm_parse_nmt(&j, text, strlen(text), why, sizeof(why));

	if (rc != -EBADMSG)
		fail_msg("parse_nmt: %d, want -EBADMSG, on '%s'", rc, text);
	expect_eq(j.nmt, 0);
	expect_eq(j.ncat, 0);
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
		int rc = book_jvm_parse_heap(&j, text, n, why, sizeof(why));
		if (rc != 0) {
			expect_eq(rc, -EBADMSG);
			expect_eq(j.heap_ok, 0);
			continue;
		}
		expect_eq(j.heap_committed, full.heap_committed);
		expect_eq(j.heap_used, full.heap_used);
		if (j.meta_ok) {
			expect_eq(j.meta_used, full.meta_used);
			expect_eq(j.meta_committed, full.meta_committed);
			expect_eq(j.meta_reserved, full.meta_reserved);
		}
	}
}

static void nmt_prefixes(const char *text, size_t len)
{
	char why[256];

	nmt_ok(text, len);
	full = j;
	for (size_t n = 0; n < len; n++) {
		int rc = book_jvm_parse_nmt(&j, text, n, why, sizeof(why));
		if (rc != 0) {
			expect_eq(rc, -EBADMSG);
			expect_eq(j.nmt, 0);
			continue;
		}
		if (!full.nmt) {
			expect_eq(j.nmt, 0);
			continue;
		}
		expect_eq(j.nmt, 1);
		expect_eq(j.reserved, full.reserved);
		expect_eq(j.committed, full.committed);
		expect_le(j.ncat, full.ncat);
		for (unsigned i = 0; i < j.ncat; i++) {
			assert_string_equal(j.cat[i].name, full.cat[i].name);
			expect_eq(j.cat[i].reserved, full.cat[i].reserved);
			expect_eq(j.cat[i].committed, full.cat[i].committed);
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
	assert_string_equal(j.gc, "garbage-first heap");
	expect_eq(j.heap_committed, 65536 * K);
	expect_eq(j.heap_used, 43077 * K);
	expect_eq(j.meta_ok, 1);
	expect_eq(j.meta_used, 9150 * K);
	expect_eq(j.meta_committed, 9344 * K);
	expect_eq(j.meta_reserved, 1114112 * K);
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
	assert_string_equal(j.gc, "def new generation, tenured generation");
	expect_eq(j.heap_committed, (0xfd550000ull - 0xfc000000ull) + (0x100000000ull - 0xfd550000ull));
	expect_eq(j.heap_committed, 64ull << 20);
	expect_eq(j.heap_used, (9237 + 28870) * K);
	expect_eq(j.meta_used, 9191 * K);
	heap_prefixes(buf, n);
}

static void test_heap_parallel(void **state)
{
	char buf[65536];
	size_t n = load("heap_parallel.txt", buf, sizeof(buf));

	(void)state;
	heap_ok(buf, n);
	assert_string_equal(j.gc, "PSYoungGen, ParOldGen");
	expect_eq(j.heap_committed, 64ull << 20);
	expect_eq(j.heap_used, (14814 + 26248) * K);
	expect_eq(j.meta_committed, 9344 * K);
	heap_prefixes(buf, n);
}

static void test_heap_z_shenandoah(void **state)
{
	char buf[65536];
	size_t n = load("heap_z.txt", buf, sizeof(buf));

	(void)state;
	heap_ok(buf, n);
	assert_string_equal(j.gc, "ZHeap");
	expect_eq(j.heap_committed, 64ull << 20);
	expect_eq(j.heap_used, 48ull << 20);
	expect_eq(j.meta_used, 9143 * K);
	heap_prefixes(buf, n);
	n = load("heap_shenandoah.txt", buf, sizeof(buf));
	heap_ok(buf, n);
	assert_string_equal(j.gc, "Shenandoah Heap");
	expect_eq(j.heap_committed, 65536 * K);
	expect_eq(j.heap_used, 35818 * K);
	expect_eq(j.meta_reserved, 1114112 * K);
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
	heap_bad(" garbage-first heap   total 65536, used 1K\n", "total NK, used NK");
	heap_bad(" garbage-first heap   total -1K, used 1K\n", "total NK, used NK");
	/* 2^62 bytes is the most a figure may be */
	HEAP_OK_S(" garbage-first heap   total 4503599627370496K, used 0K\n");
	expect_eq(j.heap_committed, 1ull << 62);
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
	expect_eq(j.meta_ok, 0);
	expect_eq(j.heap_committed, 2 * K);
	/* NULL with no length: nothing */
	expect_eq(book_jvm_parse_heap(&j, NULL, 0, NULL, 0), -EBADMSG);
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
	expect_eq(j.nmt, 1);
	assert_string_equal(j.nmt_why, "");
	expect_eq(j.reserved, 1546237835);
	expect_eq(j.committed, 143513483);
	expect_eq(j.ncat, sizeof(names) / sizeof(names[0]));
	for (unsigned i = 0; i < j.ncat; i++)
		assert_string_equal(j.cat[i].name, names[i]);
	expect_eq(j.cat[0].reserved, 64ull << 20);
	expect_eq(j.cat[0].committed, 64ull << 20);
	expect_eq(j.cat[1].reserved, 1073986847);
	expect_eq(j.cat[1].committed, 1490207);
	expect_eq(j.cat[2].committed, 965576);
	expect_eq(j.cat[3].committed, 7922592);
	expect_eq(j.cat[4].committed, 40574027);
	expect_eq(j.cat[20].reserved, 624);
	nmt_prefixes(buf, n);
	n = load("nmt_parallel.txt", buf, sizeof(buf));
	nmt_ok(buf, n);
	expect_eq(j.reserved, 1512771498);
	expect_eq(j.committed, 115232682);
	expect_eq(j.cat[0].committed, 64ull << 20);
	nmt_prefixes(buf, n);
}

/* scale=KB: the same summary in KiB (categories under 1 KB left out). */
static void test_nmt_kb(void **state)
{
	char buf[65536];
	size_t n = load("nmt_g1_kb.txt", buf, sizeof(buf));

	(void)state;
	nmt_ok(buf, n);
	expect_eq(j.nmt, 1);
	expect_eq(j.reserved, 1509999 * K);
	expect_eq(j.committed, 140155 * K);
	assert_string_equal(j.cat[0].name, "Java Heap");
	expect_eq(j.cat[0].committed, 65536 * K);
	nmt_prefixes(buf, n);
}

static void test_nmt_off(void **state)
{
	char buf[65536];
	size_t n = load("nmt_off.txt", buf, sizeof(buf));

	(void)state;
	nmt_ok(buf, n);
	expect_eq(j.nmt, 0);
	expect_eq(j.ncat, 0);
	if (!strstr(j.nmt_why, "-XX:NativeMemoryTracking=summary"))
		fail_msg("nmt_why '%s'", j.nmt_why);
	nmt_prefixes(buf, n);
	NMT_OK_S("1:\nNative memory tracking has been shutdown\n");
	expect_eq(j.nmt, 0);
	if (!strstr(j.nmt_why, "shut down"))
		fail_msg("nmt_why '%s'", j.nmt_why);
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
	expect_eq(j.reserved, 1ull << 62);
	NMT_OK_S("Native Memory Tracking:\nTotal: reserved=4503599627370496KB, committed=3MB\n");
	expect_eq(j.reserved, 1ull << 62);
	expect_eq(j.committed, 3ull << 20);
	/* a name with "(" in it, and fields a later JDK may add */
	n = (size_t)snprintf(big, sizeof(big), NMT_HEAD "-  Foo (bar) (reserved=3, committed=2, "
	                     "peak=9)\n");
	nmt_ok(big, n);
	expect_eq(j.ncat, 1);
	assert_string_equal(j.cat[0].name, "Foo (bar)");
	expect_eq(j.cat[0].reserved, 3);
	expect_eq(j.cat[0].committed, 2);
	/* a name past the field: cut before the UTF-8 sequence the room would split */
	name[0] = '\0';
	for (int i = 0; i < 25; i++)
		strcat(name, "\xc3\xa9"); /* é, 2 bytes */
	n = (size_t)snprintf(big, sizeof(big), NMT_HEAD "- %s (reserved=1, committed=1)\n", name);
	nmt_ok(big, n);
	expect_eq(strlen(j.cat[0].name), 38);
	expect_eq(memcmp(j.cat[0].name, name, 38), 0);
	/* raw bytes stay raw: the writers escape them */
	n = (size_t)snprintf(big, sizeof(big), NMT_HEAD "- \x1b[31mX\t\"\\ (reserved=1, committed=1)\n");
	nmt_ok(big, n);
	assert_string_equal(j.cat[0].name, "\x1b[31mX\t\"\\");
	/* BOOK_JVM_CATS categories are kept; one more is an error, never a silent cut */
	n = (size_t)snprintf(big, sizeof(big), NMT_HEAD);
	for (int i = 0; i < BOOK_JVM_CATS; i++) {
		int l = snprintf(line, sizeof(line), "-  cat%d (reserved=%d, committed=%d)\n", i, i, i);
		memcpy(big + n, line, (size_t)l);
		n += (size_t)l;
	}
	nmt_ok(big, n);
	expect_eq(j.ncat, BOOK_JVM_CATS);
	assert_string_equal(j.cat[BOOK_JVM_CATS - 1].name, "cat31");
	expect_eq(j.cat[BOOK_JVM_CATS - 1].committed, 31);
	memcpy(big + n, "-  one more (reserved=1, committed=1)\n", 39);
	big[n + 39] = '\0';
	nmt_bad(big, "more NMT categories");
	expect_eq(book_jvm_parse_nmt(&j, NULL, 0, NULL, 0), -EBADMSG);
}

/* Random bytes from the formats' own tokens: never a crash, never a figure out of bounds. */
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
		int rc = book_jvm_parse_heap(&j, buf, n, NULL, 0);
		if (rc == 0) {
			expect_le(j.heap_used, j.heap_committed);
			expect_le(j.heap_committed, 1ull << 62);
		} else {
			expect_eq(rc, -EBADMSG);
		}
		rc = book_jvm_parse_nmt(&j, buf, n, NULL, 0);
		if (rc == 0 && j.nmt) {
			expect_le(j.committed, j.reserved);
			expect_le(j.reserved, 1ull << 62);
			expect_le(j.ncat, BOOK_JVM_CATS);
			for (unsigned i = 0; i < j.ncat; i++)
				expect_le(j.cat[i].committed, j.cat[i].reserved);
		} else if (rc != 0) {
			expect_eq(rc, -EBADMSG);
		}
	}
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

/* The test maps a file named libjvm.so, so that it passes for a JVM to the reader. */
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

static void test_read_ok(void **state)
{
	struct books_opts o = opts(10000);
	char args[4096], want[512];
	struct timespec before;
	int pid = (int)getpid();

	(void)state;
	mode("ok");
	clock_gettime(CLOCK_REALTIME, &before);
	book_jvm_read(&j, &o, pid);
	get("args", args, sizeof(args));
	expect_eq(j.h.asked, 1);
	if (!j.h.ok)
		fail_msg("not ok: why '%s', heap_why '%s', nmt_why '%s'", j.h.why, j.heap_why, j.nmt_why);
	expect_eq(j.heap_ok, 1);
	expect_eq(j.heap_committed, 65536 * K);
	expect_eq(j.heap_used, 43077 * K);
	expect_eq(j.nmt, 1);
	expect_eq(j.committed, 143513483);
	expect_eq(j.ncat, 21);
	/* jcmd ran as this user, GC.heap_info first, NMT in bytes */
	snprintf(want, sizeof(want),
	         "%u -J-XX:-UsePerfData -J-XX:+UseSerialGC -J-XX:TieredStopAtLevel=1 %d GC.heap_info\n"
	         "%u -J-XX:-UsePerfData -J-XX:+UseSerialGC -J-XX:TieredStopAtLevel=1 %d "
	         "VM.native_memory summary scale=b\n",
	         (unsigned)geteuid(), pid, (unsigned)geteuid(), pid);
	assert_string_equal(args, want);
	snprintf(want, sizeof(want), "jcmd %d VM.native_memory summary scale=b; jcmd %d GC.heap_info",
	         pid, pid);
	assert_string_equal(j.h.source, want);
	expect_ge(j.h.at.tv_sec, before.tv_sec);
	expect_gt(j.h.took_ns, 0);

	/* a pmaps started with SIGCHLD ignored: jcmd's status all the same, and SIG_IGN kept */
	{
		struct sigaction ign, now;
		memset(&ign, 0, sizeof(ign));
		ign.sa_handler = SIG_IGN;
		sigaction(SIGCHLD, &ign, NULL);
		book_jvm_read(&j, &o, pid);
		sigaction(SIGCHLD, NULL, &now);
		ign.sa_handler = SIG_DFL;
		sigaction(SIGCHLD, &ign, NULL);
		if (!j.h.ok || !j.nmt)
			fail_msg("SIGCHLD ignored: why '%s', nmt_why '%s'", j.h.why, j.nmt_why);
		expect_eq(j.heap_committed, 65536 * K);
		expect_eq((uintptr_t)now.sa_handler, (uintptr_t)SIG_IGN);
	}
	/* NMT off: the heap all the same */
	put_fixture("nmt", "nmt_off.txt");
	book_jvm_read(&j, &o, pid);
	expect_eq(j.h.ok, 1);
	expect_eq(j.heap_ok, 1);
	expect_eq(j.nmt, 0);
	want_why(j.nmt_why, "-XX:NativeMemoryTracking=summary");
	/* a heap_info that is not one: NMT all the same, the heap's why said */
	put_fixture("heap", "nmt_off.txt");
	put_fixture("nmt", "nmt_g1.txt");
	book_jvm_read(&j, &o, pid);
	expect_eq(j.h.ok, 1);
	expect_eq(j.heap_ok, 0);
	want_why(j.heap_why, "GC.heap_info: no Java heap");
	expect_eq(j.nmt, 1);
	/* neither */
	put_fixture("nmt", "heap_g1.txt");
	book_jvm_read(&j, &o, pid);
	expect_eq(j.h.ok, 0);
	want_why(j.h.why, "GC.heap_info: no Java heap");
	want_why(j.nmt_why, "VM.native_memory summary: not an NMT summary");
	put_fixture("heap", "heap_g1.txt");
	put_fixture("nmt", "nmt_g1.txt");
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
	book_jvm_read(&j, &o, (int)getpid());
	expect_le((uint64_t)time(NULL) - t0, 2);
	expect_eq(j.h.ok, 0);
	want_why(j.h.why, "did not answer within 300 ms");
	expect_ge(j.h.took_ns, 300000000ull);
	expect_lt(j.h.took_ns, 1500000000ull);
	/* only the first command was tried */
	get("args", args, sizeof(args));
	expect_eq(strchr(args, '\n') - args + 1, (ptrdiff_t)strlen(args));
	want_why(j.nmt_why, "did not answer");
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
	book_jvm_read(&j, &o, (int)getpid());
	expect_eq(j.h.ok, 0);
	want_why(j.h.why, "wrote more than 1048576 bytes");
}

static void test_read_attach(void **state)
{
	struct books_opts o = opts(10000);
	char args[4096];

	(void)state;
	mode("attach");
	book_jvm_read(&j, &o, (int)getpid());
	expect_eq(j.h.ok, 0);
	assert_string_equal(j.h.why,
	                    "jcmd could not attach to the JVM: The VM does not support the attach "
	                    "mechanism");
	assert_string_equal(j.nmt_why, j.h.why);
	get("args", args, sizeof(args));
	expect_eq(strchr(args, '\n') - args + 1, (ptrdiff_t)strlen(args));
	mode("quiet");
	book_jvm_read(&j, &o, (int)getpid());
	expect_eq(j.h.ok, 0);
	want_why(j.h.why, "GC.heap_info failed (status 3) and said nothing");
}

/* What the reader refuses before it runs anything. */
static void test_read_refused(void **state)
{
	struct books_opts o = opts(10000);
	char args[64];
	pid_t kid;
	int st, p[2];

	(void)state;
	mode("ok");
	/* no jcmd on PATH */
	setenv("PATH", "/nonexistent:relative/dir", 1);
	book_jvm_read(&j, &o, (int)getpid());
	setenv("PATH", dir, 1);
	expect_eq(j.h.asked, 1);
	expect_eq(j.h.ok, 0);
	assert_string_equal(j.h.why,
	                    "jcmd not found on PATH: install a JDK (Debian openjdk-17-jdk-headless)");
	/* a proc root that is not the live one */
	o.root = PMAPS_TEST_DATA;
	book_jvm_read(&j, &o, (int)getpid());
	o.root = NULL;
	expect_eq(j.h.ok, 0);
	want_why(j.h.why, "not under --proc-root");
	/* a process that maps no libjvm.so (jcmd would SIGQUIT it): not asked */
	assert_int_equal(pipe(p), 0);
	kid = fork();
	if (kid == 0) {
		munmap(libjvm, 4096);
		close(p[0]);
		close(p[1]);
		pause();
		_exit(0);
	}
	expect_sys(kid);
	close(p[1]);
	(void)!read(p[0], args, 1); /* EOF once it unmapped and closed */
	close(p[0]);
	book_jvm_read(&j, &o, (int)kid);
	want_why(j.h.why, "maps no libjvm.so");
	/* stopped: it could not answer */
	kill(kid, SIGSTOP);
	waitpid(kid, &st, WUNTRACED);
	kill(kid, SIGKILL);
	waitpid(kid, &st, 0);
	kid = fork();
	if (kid == 0) {
		pause();
		_exit(0);
	}
	kill(kid, SIGSTOP);
	waitpid(kid, &st, WUNTRACED);
	book_jvm_read(&j, &o, (int)kid);
	want_why(j.h.why, "the JVM is stopped (state T)");
	kill(kid, SIGKILL);
	waitpid(kid, &st, 0);
	/* gone */
	book_jvm_read(&j, &o, (int)kid);
	want_why(j.h.why, "the process is gone");
	get("args", args, sizeof(args));
	assert_string_equal(args, ""); /* jcmd never ran */
}

/* As root, against a process of another user: jcmd runs as that user. */
static void test_read_drop(void **state)
{
	struct books_opts o = opts(10000);
	char args[4096], want[64];
	int p[2], st;
	pid_t kid;

	(void)state;
	if (geteuid() != 0) {
		printf("skipped: needs root to run a target as another user\n");
		skip();
	}
	mode("ok");
	assert_int_equal(pipe(p), 0);
	kid = fork();
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
	book_jvm_read(&j, &o, (int)kid);
	kill(kid, SIGKILL);
	waitpid(kid, &st, 0);
	if (!j.h.ok)
		fail_msg("not ok: %s", j.h.why);
	get("args", args, sizeof(args));
	snprintf(want, sizeof(want), "65534 -J");
	if (strncmp(args, want, strlen(want)) != 0)
		fail_msg("jcmd ran as '%s', want uid 65534", args);
}

int main(void)
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
	};
	const struct CMUnitTest reader[] = {
		cmocka_unit_test(test_read_ok),
		cmocka_unit_test(test_read_hang),
		cmocka_unit_test(test_read_big),
		cmocka_unit_test(test_read_attach),
		cmocka_unit_test(test_read_refused),
		cmocka_unit_test(test_read_drop),
	};
	int rc = cmocka_run_group_tests_name("parsers", parsers, NULL, NULL);

	return rc | cmocka_run_group_tests_name("reader", reader, setup, teardown);
}
