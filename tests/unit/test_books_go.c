/* SPDX-License-Identifier: MIT */
/*
 * test_books_go.c - the Go runtime's books: the library's MemStats parser
 * (pmaps_books_parse(), PMAPS_BOOK_GO) on a page Go 1.19's net/http/pprof
 * served (tests/data/books/go/heap-debug1.txt, captured from
 * tests/live/gotarget.go), cut at every byte, broken line by line and fed
 * random bytes; the --go-pprof URL rules (src/books_go.c); the listeners
 * pmaps_books_go_listeners() finds in a proc tree this test writes; the
 * environment (pmaps_books_go_env()); and the tool's whole read
 * (book_go_read()) against servers in this process that answer the page,
 * redirect, say 404, send garbage, too much, too long a line, or nothing.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "books/books.h"
#include "testhooks.h"
#include "../expect.h"

#define FIXTURE PMAPS_TEST_DATA "/books/go/heap-debug1.txt"

static char *page;
static size_t page_len;

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	expect_gt(n, 0);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static int setup(void **state)
{
	(void)state;
	page = slurp(FIXTURE, &page_len);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(page);
	return 0;
}

/* B zeroed, its size set (pmaps.h, Conventions): as a caller hands it over. */
static void books_init(struct pmaps_books *b)
{
	memset(b, 0, sizeof(*b));
	b->size = sizeof(*b);
}

/* TEXT parsed as Go's book into B, zeroed first: pmaps_books_parse()'s answer. */
static int go_parse(struct pmaps_books *b, const char *text, size_t len, char *msg, size_t msgsz)
{
	books_init(b);
	return pmaps_books_parse(b, PMAPS_BOOK_GO, text, len, msg, msgsz);
}

/* Figure FIG of BK is present and WANT. */
#define expect_figure(bk, fig, want)                                                          \
	do {                                                                                      \
		if (!pmaps_books_has(bk, fig))                                                        \
			fail_msg("%s (%s): absent, want %llu", #fig, pmaps_book_value_key(fig),           \
			         (unsigned long long)(want));                                             \
		expect_eq((bk)->v[fig], want);                                                        \
	} while (0)

/* The figures of the fixture's block, as Go wrote them; the book read. */
static void expect_fixture(const struct pmaps_books *b)
{
	assert_int_equal(b->head[PMAPS_BOOK_GO].asked, 1);
	assert_int_equal(b->head[PMAPS_BOOK_GO].ok, 1);
	expect_figure(b, PMAPS_BV_GO_HEAP_ALLOC, 40725336);
	expect_figure(b, PMAPS_BV_GO_HEAP_SYS, 125534208);
	expect_figure(b, PMAPS_BV_GO_HEAP_IDLE, 84066304);
	expect_figure(b, PMAPS_BV_GO_HEAP_INUSE, 41467904);
	expect_figure(b, PMAPS_BV_GO_HEAP_RELEASED, 83853312);
	expect_figure(b, PMAPS_BV_GO_HEAP_OBJECTS, 425619);
	expect_figure(b, PMAPS_BV_GO_STACK_INUSE, 294912);
	expect_figure(b, PMAPS_BV_GO_STACK_SYS, 294912);
	expect_figure(b, PMAPS_BV_GO_MSPAN_INUSE, 303552);
	expect_figure(b, PMAPS_BV_GO_MSPAN_SYS, 374256);
	expect_figure(b, PMAPS_BV_GO_MCACHE_INUSE, 2400);
	expect_figure(b, PMAPS_BV_GO_MCACHE_SYS, 15600);
	expect_figure(b, PMAPS_BV_GO_BUCK_HASH_SYS, 1450763);
	expect_figure(b, PMAPS_BV_GO_GC_SYS, 11056320);
	expect_figure(b, PMAPS_BV_GO_OTHER_SYS, 718445);
	expect_figure(b, PMAPS_BV_GO_SYS, 139444504);
	expect_figure(b, PMAPS_BV_GO_TOTAL_ALLOC, 147966256);
	expect_figure(b, PMAPS_BV_GO_NEXT_GC, 9223372036839074367ull);
	expect_figure(b, PMAPS_BV_GO_LAST_GC, 1796133889749342422ull);
	expect_figure(b, PMAPS_BV_GO_NUM_GC, 6);
}

/* A refused text: the book not read, none of its figures kept (never half a book). */
static void expect_no_book(const struct pmaps_books *b)
{
	assert_int_equal(b->head[PMAPS_BOOK_GO].asked, 1);
	assert_int_equal(b->head[PMAPS_BOOK_GO].ok, 0);
	for (int v = 0; v < PMAPS_BV_COUNT; v++)
		if (pmaps_book_value_book((enum pmaps_book_value)v) == PMAPS_BOOK_GO &&
		    pmaps_books_has(b, (enum pmaps_book_value)v))
			fail_msg("%s present (%llu) in a book refused",
			         pmaps_book_value_key((enum pmaps_book_value)v),
			         (unsigned long long)b->v[v]);
}

static void test_parse_real(void **state)
{
	struct pmaps_books b;
	char why[256] = "";
	const char *block = strstr(page, "\n# runtime.MemStats\n");

	(void)state;
	if (go_parse(&b, page, page_len, why, sizeof(why)) != 0)
		fail_msg("the captured page: %s", why);
	expect_fixture(&b);
	assert_string_equal(why, "");
	/* The block alone, as the reader keeps it. */
	assert_non_null(block);
	block++;
	assert_int_equal(go_parse(&b, block, page_len - (size_t)(block - page), why, sizeof(why)), 0);
	expect_fixture(&b);
}

/*
 * Cut after every byte of the block: refused until the last figure it needs
 * (NumGC) ends with its newline, the whole figures from there on; never a
 * figure cut short.
 */
static void test_parse_cuts(void **state)
{
	const char *hdr = strstr(page, "\n# runtime.MemStats\n"), *numgc = strstr(page, "\n# NumGC = 6\n");
	size_t from, need;
	char why[256];

	(void)state;
	assert_non_null(hdr);
	assert_non_null(numgc);
	from = (size_t)(hdr - page);
	need = (size_t)(numgc - page) + strlen("\n# NumGC = 6\n");
	for (size_t cut = 0; cut <= page_len; cut += cut < from ? 97 : 1) {
		struct pmaps_books b;
		int rc;

		why[0] = '\0';
		rc = go_parse(&b, page, cut, why, sizeof(why));
		if (cut < need) {
			if (rc != -EBADMSG)
				fail_msg("cut at %zu of %zu (the block needs %zu): %d, want -EBADMSG", cut,
				         page_len, need, rc);
			expect_gt(strlen(why), 0);
			expect_no_book(&b);
		} else {
			if (rc != 0)
				fail_msg("cut at %zu (after NumGC's line, %zu): %s", cut, need, why);
			expect_fixture(&b);
		}
	}
}

/* A valid block of the fixture's figures, with LINE (its key's) replaced by WITH ("" drops it). */
static const char *const block_lines[] = {
	"# runtime.MemStats",
	"# Alloc = 40725336",
	"# TotalAlloc = 147966256",
	"# Sys = 139444504",
	"# HeapAlloc = 40725336",
	"# HeapSys = 125534208",
	"# HeapIdle = 84066304",
	"# HeapInuse = 41467904",
	"# HeapReleased = 83853312",
	"# HeapObjects = 425619",
	"# Stack = 294912 / 294912",
	"# MSpan = 303552 / 374256",
	"# MCache = 2400 / 15600",
	"# BuckHashSys = 1450763",
	"# GCSys = 11056320",
	"# OtherSys = 718445",
	"# NextGC = 9223372036839074367",
	"# LastGC = 1796133889749342422",
	"# PauseNs = [1 2 3]",
	"# NumGC = 6",
	"# GCCPUFraction = 0.0018752266138745892",
	"# DebugGC = false",
};
#define NLINES (sizeof(block_lines) / sizeof(block_lines[0]))

/* The block with the line whose key is KEY ("# KEY =") replaced by WITH ("": dropped). */
static size_t block_with(char *dst, size_t size, const char *key, const char *with)
{
	size_t n = 0, kl = key ? strlen(key) : 0;

	for (size_t i = 0; i < NLINES; i++) {
		const char *l = block_lines[i];
		if (key && strncmp(l + 2, key, kl) == 0 && l[2 + kl] == ' ')
			l = with;
		if (!l[0])
			continue;
		n += (size_t)snprintf(dst + n, size - n, "%s\n", l);
		assert_true(n < size);
	}
	return n;
}

/* Parses the block with KEY's line made WITH: WANT_RC, and WANT in the why when it fails. */
static void check_line(const char *key, const char *with, int want_rc, const char *want)
{
	char text[4096], why[256] = "";
	struct pmaps_books b;
	size_t n = block_with(text, sizeof(text), key, with);
	int rc;

	rc = go_parse(&b, text, n, why, sizeof(why));
	if (rc != want_rc)
		fail_msg("'%s' for %s: %d (%s), want %d", with, key, rc, why, want_rc);
	if (want && !strstr(why, want))
		fail_msg("'%s' for %s: why '%s', want it to say '%s'", with, key, why, want);
	if (rc == 0)
		assert_int_equal(b.head[PMAPS_BOOK_GO].ok, 1);
	else
		expect_no_book(&b);
}

static void test_parse_bad(void **state)
{
	static const char *const needed[] = {
		"HeapAlloc", "HeapSys", "HeapIdle", "HeapInuse", "HeapReleased", "HeapObjects",
		"Stack", "MSpan", "MCache", "BuckHashSys", "GCSys", "OtherSys", "Sys", "TotalAlloc",
		"NextGC", "LastGC", "NumGC",
	};
	char want[64], text[8192], why[256];
	struct pmaps_books b;
	size_t n;

	(void)state;
	check_line(NULL, NULL, 0, NULL);
	for (size_t i = 0; i < sizeof(needed) / sizeof(needed[0]); i++) {
		snprintf(want, sizeof(want), "not a Go MemStats dump: no %s", needed[i]);
		check_line(needed[i], "", -EBADMSG, want);
	}
	/* Lines it does not need may go, or be anything. */
	check_line("Alloc", "", 0, NULL);
	check_line("PauseNs", "# PauseNs = what ever", 0, NULL);
	check_line("DebugGC", "# Whatever", 0, NULL);
	/* LastGC 0: no GC yet, no time to give: that figure absent, the others there. */
	check_line("LastGC", "# LastGC = 0", 0, NULL);
	n = block_with(text, sizeof(text), "LastGC", "# LastGC = 0");
	assert_int_equal(go_parse(&b, text, n, why, sizeof(why)), 0);
	assert_int_equal(pmaps_books_has(&b, PMAPS_BV_GO_LAST_GC), 0);
	expect_figure(&b, PMAPS_BV_GO_NUM_GC, 6);
	expect_figure(&b, PMAPS_BV_GO_HEAP_ALLOC, 40725336);
	check_line("LastGC", "# LastGC = 1", 0, NULL);
	n = block_with(text, sizeof(text), "LastGC", "# LastGC = 1");
	assert_int_equal(go_parse(&b, text, n, why, sizeof(why)), 0);
	expect_figure(&b, PMAPS_BV_GO_LAST_GC, 1);
	/* Values: decimal digits, at most 2^62 (NextGC 2^63 - 1), nothing else. */
	check_line("HeapObjects", "# HeapObjects = 4611686018427387904", 0, NULL);
	check_line("HeapObjects", "# HeapObjects = 4611686018427387905", -EBADMSG, "out of range");
	check_line("HeapObjects", "# HeapObjects = 99999999999999999999999", -EBADMSG, "out of range");
	check_line("NextGC", "# NextGC = 9223372036854775807", 0, NULL);
	check_line("NextGC", "# NextGC = 9223372036854775808", -EBADMSG, "NextGC: not a decimal");
	check_line("NumGC", "# NumGC = 18446744073709551616", -EBADMSG, "out of range");
	check_line("NumGC", "# NumGC = -1", -EBADMSG, "NumGC: not a decimal");
	check_line("NumGC", "# NumGC = +1", -EBADMSG, "NumGC: not a decimal");
	check_line("NumGC", "# NumGC = 0x10", -EBADMSG, "NumGC: more after the number");
	check_line("NumGC", "# NumGC = 1.5", -EBADMSG, "NumGC: more after the number");
	check_line("NumGC", "# NumGC = 1 ", -EBADMSG, "NumGC: more after the number");
	check_line("NumGC", "# NumGC =  1", -EBADMSG, "NumGC: not a decimal");
	check_line("NumGC", "# NumGC = ", -EBADMSG, "NumGC: not a decimal");
	check_line("NumGC", "# NumGC=1", -EBADMSG, "no NumGC");
	check_line("NumGC", "# NumGC 1", -EBADMSG, "NumGC: no ' = '");
	check_line("NumGC", "# NumGC = 1\r", -EBADMSG, "NumGC: more after the number");
	check_line("Stack", "# Stack = 294912", -EBADMSG, "Stack: not 'INUSE / SYS'");
	check_line("Stack", "# Stack = 294912 / ", -EBADMSG, "Stack: not a decimal");
	check_line("Stack", "# Stack = 294912/294912", -EBADMSG, "Stack: not 'INUSE / SYS'");
	check_line("Stack", "# Stack = 1 / 4611686018427387905", -EBADMSG, "out of range");
	/* One snapshot's invariants, which the join subtracts by. */
	check_line("HeapSys", "# HeapSys = 125534207", -EBADMSG,
	           "HeapIdle 84066304 + HeapInuse 41467904 != HeapSys 125534207");
	check_line("HeapAlloc", "# HeapAlloc = 41467905", -EBADMSG, "HeapAlloc 41467905 > HeapInuse");
	check_line("HeapReleased", "# HeapReleased = 84066305", -EBADMSG,
	           "HeapReleased 84066305 > HeapIdle");
	check_line("Stack", "# Stack = 5 / 4", -EBADMSG, "Stack in use 5 > its Sys 4");
	check_line("MCache", "# MCache = 15601 / 15600", -EBADMSG, "MCache in use 15601");
	/* A key it needs, twice: the page says two things. */
	n = block_with(text, sizeof(text), NULL, NULL);
	n += (size_t)snprintf(text + n, sizeof(text) - n, "# HeapAlloc = 1\n");
	assert_int_equal(go_parse(&b, text, n, why, sizeof(why)), -EBADMSG);
	expect_contains(why, "HeapAlloc given twice");
	expect_contains(why, "line 23 ");
	expect_no_book(&b);
	/* The block ends at the first line that is not "# ...": what follows is not in it. */
	n = block_with(text, sizeof(text), "NumGC", "");
	n += (size_t)snprintf(text + n, sizeof(text) - n, "\n# NumGC = 6\n");
	assert_int_equal(go_parse(&b, text, n, why, sizeof(why)), -EBADMSG);
	expect_contains(why, "no NumGC");
	expect_no_book(&b);
	/* Two blocks: the last is the page's. */
	n = block_with(text, sizeof(text), "HeapAlloc", "# HeapAlloc = 1");
	n += block_with(text + n, sizeof(text) - n, NULL, NULL);
	assert_int_equal(go_parse(&b, text, n, why, sizeof(why)), 0);
	expect_figure(&b, PMAPS_BV_GO_HEAP_ALLOC, 40725336);
	n = block_with(text, sizeof(text), NULL, NULL);
	n += block_with(text + n, sizeof(text) - n, "HeapSys", "");
	assert_int_equal(go_parse(&b, text, n, why, sizeof(why)), -EBADMSG);
	expect_contains(why, "no HeapSys");
	expect_no_book(&b);
	/* A NUL in a number. */
	n = block_with(text, sizeof(text), "NumGC", "# NumGC = 6X");
	strstr(text, "6X")[1] = '\0';
	assert_int_equal(go_parse(&b, text, n, why, sizeof(why)), -EBADMSG);
	expect_contains(why, "NumGC: more after the number");
	/* No block at all, nothing at all, and a why too small for the message. */
	assert_int_equal(go_parse(&b, "hello\n", 6, why, sizeof(why)), -EBADMSG);
	assert_string_equal(why, "not a Go MemStats dump (no '# runtime.MemStats' block)");
	expect_no_book(&b);
	assert_int_equal(go_parse(&b, NULL, 0, why, sizeof(why)), -EBADMSG);
	assert_string_equal(why, "not a Go MemStats dump (no '# runtime.MemStats' block)");
	assert_int_equal(go_parse(&b, "", 0, why, 8), -EBADMSG);
	assert_string_equal(why, "not a G");
	/* A refused text takes back the figures an earlier one gave. */
	n = block_with(text, sizeof(text), NULL, NULL);
	assert_int_equal(go_parse(&b, text, n, why, sizeof(why)), 0);
	assert_int_equal(pmaps_books_parse(&b, PMAPS_BOOK_GO, "hello\n", 6, why, sizeof(why)),
	                 -EBADMSG);
	expect_no_book(&b);
}

static uint64_t rnd_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/*
 * Random texts built from pieces of real lines, digits and bytes: every
 * answer is 0 or -EBADMSG, a why that fits, and figures that keep the
 * invariants when it is 0.
 */
static void test_parse_random(void **state)
{
	static const char *const bits[] = {
		"# runtime.MemStats\n", "# HeapAlloc = ", "# HeapSys = ", "# HeapIdle = ",
		"# HeapInuse = ", "# HeapReleased = ", "# Stack = ", " / ", "# NumGC = ", "\n", "# ",
		"0", "1", "9", "18446744073709551615", "4611686018427387904", "\r", "\0", "\xff", " ",
		"# NextGC = ", "# MSpan = ", "# MCache = ",
	};
	char *text = malloc(1 << 16), why[64];
	unsigned oks = 0;

	(void)state;
	assert_non_null(text);
	for (int round = 0; round < 3000; round++) {
		struct pmaps_books bk;
		size_t n = 0, want = rnd() % 4096;
		int rc;

		if (round % 3 == 0) {
			/* The real block with a few bytes changed. */
			n = block_with(text, 1 << 16, NULL, NULL);
			for (int k = (int)(rnd() % 4); k >= 0; k--)
				text[rnd() % n] = (char)rnd();
		} else {
			while (n < want) {
				const char *b = bits[rnd() % (sizeof(bits) / sizeof(bits[0]))];
				size_t bl = b[0] ? strlen(b) : 1;
				if (rnd() % 8 == 0) {
					text[n++] = (char)rnd();
					continue;
				}
				memcpy(text + n, b, bl);
				n += bl;
			}
		}
		memset(why, 'x', sizeof(why));
		rc = go_parse(&bk, text, n, why, sizeof(why));
		if (rc != 0 && rc != -EBADMSG)
			fail_msg("round %d: %d", round, rc);
		if (rc != 0) {
			assert_non_null(memchr(why, '\0', sizeof(why)));
			expect_no_book(&bk);
		}
		if (rc == 0) {
			const uint64_t *v = bk.v;
			oks++;
			assert_int_equal(bk.head[PMAPS_BOOK_GO].ok, 1);
			assert_int_equal(v[PMAPS_BV_GO_HEAP_IDLE] + v[PMAPS_BV_GO_HEAP_INUSE],
			                 v[PMAPS_BV_GO_HEAP_SYS]);
			expect_le(v[PMAPS_BV_GO_HEAP_RELEASED], v[PMAPS_BV_GO_HEAP_IDLE]);
			expect_le(v[PMAPS_BV_GO_HEAP_ALLOC], v[PMAPS_BV_GO_HEAP_INUSE]);
			expect_le(v[PMAPS_BV_GO_STACK_INUSE], v[PMAPS_BV_GO_STACK_SYS]);
			expect_le(v[PMAPS_BV_GO_HEAP_SYS], 1ull << 62);
			expect_le(v[PMAPS_BV_GO_SYS], 1ull << 62);
		}
	}
	free(text);
	/* Some of the changed real blocks still parse (a byte of a figure it skips). */
	expect_gt(oks, 0);
}

static void check_url(const char *in, int remote, int want_rc, const char *want)
{
	char dst[320], why[256] = "";
	int rc = book_go_url(dst, sizeof(dst), in, remote, why, sizeof(why));

	if (rc != want_rc)
		fail_msg("'%s' (remote %d): %d (%s), want %d", in, remote, rc, why, want_rc);
	if (rc == 0 && strcmp(dst, want) != 0)
		fail_msg("'%s': URL '%s', want '%s'", in, dst, want);
	if (rc != 0 && !strstr(why, want))
		fail_msg("'%s': why '%s', want it to say '%s'", in, why, want);
}

static void test_url(void **state)
{
	(void)state;
	/* Bases are completed; a page named is kept; the query is always debug=1. */
	check_url("http://127.0.0.1:6060", 0, 0, "http://127.0.0.1:6060/debug/pprof/heap?debug=1");
	check_url("http://127.0.0.1:6060/", 0, 0, "http://127.0.0.1:6060/debug/pprof/heap?debug=1");
	check_url("http://127.0.0.1:6060/debug/pprof", 0, 0,
	          "http://127.0.0.1:6060/debug/pprof/heap?debug=1");
	check_url("http://127.0.0.1:6060/debug/pprof/", 0, 0,
	          "http://127.0.0.1:6060/debug/pprof/heap?debug=1");
	check_url("http://127.0.0.1:6060/debug/pprof/heap", 0, 0,
	          "http://127.0.0.1:6060/debug/pprof/heap?debug=1");
	check_url("http://127.0.0.1:6060/debug/pprof/heap?gc=1", 0, 0,
	          "http://127.0.0.1:6060/debug/pprof/heap?debug=1");
	check_url("http://127.0.0.1:6060/admin/", 0, 0,
	          "http://127.0.0.1:6060/admin/debug/pprof/heap?debug=1");
	check_url("http://127.0.0.1:6060/admin/heap#x", 0, 0,
	          "http://127.0.0.1:6060/admin/heap?debug=1");
	check_url("https://localhost:6060/", 0, 0, "https://localhost:6060/debug/pprof/heap?debug=1");
	check_url("http://LocalHost:1/", 0, 0, "http://LocalHost:1/debug/pprof/heap?debug=1");
	check_url("http://127.1.2.3:1/", 0, 0, "http://127.1.2.3:1/debug/pprof/heap?debug=1");
	check_url("http://[::1]:1/", 0, 0, "http://[::1]:1/debug/pprof/heap?debug=1");
	check_url("http://[::ffff:127.0.0.1]:1/", 0, 0,
	          "http://[::ffff:127.0.0.1]:1/debug/pprof/heap?debug=1");
	/* Not loopback: refused, unless --allow-remote. */
	check_url("http://192.0.2.1/", 0, -EINVAL, "not loopback");
	check_url("http://192.0.2.1/", 1, 0, "http://192.0.2.1/debug/pprof/heap?debug=1");
	check_url("http://example.com:6060/", 0, -EINVAL, "refused without --allow-remote");
	check_url("http://128.0.0.1/", 0, -EINVAL, "not loopback");
	check_url("http://[::2]/", 0, -EINVAL, "not loopback");
	check_url("http://localhost.example.com/", 0, -EINVAL, "not loopback");
	check_url("http://127.0.0.1.example.com/", 0, -EINVAL, "not loopback");
	/* Schemes, credentials, and what is no URL. */
	check_url("ftp://127.0.0.1/", 0, -EINVAL, "only http:// and https://");
	check_url("file:///etc/passwd", 1, -EINVAL, "only http:// and https://");
	check_url("gopher://127.0.0.1/", 1, -EINVAL, "only http:// and https://");
	check_url("http://user:pw@127.0.0.1/", 0, -EINVAL, "no user or password");
	check_url("http://:pw@127.0.0.1/", 0, -EINVAL, "no user or password");
	check_url("http://user@127.0.0.1/", 0, -EINVAL, "no user or password");
	/* HOST:PORT alone is http://HOST:PORT/; another pprof page is no heap page. */
	check_url("127.0.0.1:6060", 0, 0, "http://127.0.0.1:6060/debug/pprof/heap?debug=1");
	check_url("http://127.0.0.1:6060/debug/pprof/goroutine?debug=1", 0, -EINVAL,
	          "/debug/pprof/goroutine is not the heap page");
	check_url("", 0, -EINVAL, "not a URL");
	check_url("http://", 0, -EINVAL, "not a URL");
}

/* ---- a proc tree of the test's own ---- */

static char root[64];

static void put(const char *rel, const char *text, size_t n)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	assert_non_null(f = fopen(path, "w"));
	assert_int_equal(fwrite(text, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

static void dir(const char *rel)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	expect_sys(mkdir(path, 0755));
}

static void link_to(const char *rel, const char *target)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	expect_sys(symlink(target, path));
}

static void rm_tree(const char *path)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
	assert_int_equal(system(cmd), 0);
}

static const char tcp_head[] =
	"  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  "
	"timeout inode\n";

static void test_listeners(void **state)
{
	struct pmaps_listener ls[8];
	struct pmaps_proc *proc;
	char why[256], tcp[8192], longline[9000];
	int n, tcp6_len;

	(void)state;
	strcpy(root, "/tmp/pmaps-books-go-XXXXXX");
	assert_non_null(mkdtemp(root));
	dir("500");
	dir("500/net");
	dir("500/fd");
	/*
	 * 101 127.0.0.1:6060 listening, ours; 102 0.0.0.0:8080 listening, ours;
	 * 103 10.0.0.5:9000 listening, ours, not loopback; 104 127.0.0.1:7070
	 * established, ours; 105 127.0.0.1:5050 listening, another process's;
	 * a line past the reader's buffer between them; 106 127.0.0.2:1234
	 * listening, ours.
	 */
	memset(longline, 'z', sizeof(longline) - 1);
	longline[sizeof(longline) - 1] = '\0';
	n = snprintf(tcp, sizeof(tcp), "%s"
	             "   0: 0100007F:17AC 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 101 1 0000000000000000 100 0 0 10 0\n"
	             "   1: 00000000:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 102 1 0000000000000000 100 0 0 10 0\n"
	             "   2: 0500000A:2328 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 103 1 0000000000000000 100 0 0 10 0\n"
	             "   3: 0100007F:1B9E 0100007F:D431 01 00000000:00000000 00:00000000 00000000  1000        0 104 1 0000000000000000 100 0 0 10 0\n"
	             "   4: 0100007F:13BA 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 105 1 0000000000000000 100 0 0 10 0\n",
	             tcp_head);
	{
		char all[20000];
		int m = snprintf(all, sizeof(all), "%s   5: %s\n"
		                 "   6: 0200007F:04D2 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 106 1 0000000000000000 100 0 0 10 0\n",
		                 tcp, longline);
		put("500/net/tcp", all, (size_t)m);
	}
	/*
	 * tcp6: 201 [::1]:6061, 202 [::]:8081, 203 [::ffff:127.0.0.1]:6062,
	 * 204 [fe80::1]:6063 (not loopback), all listening and ours.
	 */
	tcp6_len = snprintf(tcp, sizeof(tcp), "%s"
	                    "   0: 00000000000000000000000001000000:17AD 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 201 1 0000000000000000 100 0 0 10 0\n"
	                    "   1: 00000000000000000000000000000000:1F91 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 202 1 0000000000000000 100 0 0 10 0\n"
	                    "   2: 0000000000000000FFFF00000100007F:17AE 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 203 1 0000000000000000 100 0 0 10 0\n"
	                    "   3: 000080FE000000000000000001000000:17AF 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 204 1 0000000000000000 100 0 0 10 0\n",
	                    tcp_head);
	put("500/net/tcp6", tcp, (size_t)tcp6_len);
	link_to("500/fd/0", "/dev/null");
	link_to("500/fd/1", "pipe:[77]");
	link_to("500/fd/3", "socket:[101]");
	link_to("500/fd/4", "socket:[102]");
	link_to("500/fd/5", "socket:[103]");
	link_to("500/fd/6", "socket:[104]");
	link_to("500/fd/7", "socket:[106]");
	link_to("500/fd/8", "socket:[201]");
	link_to("500/fd/9", "socket:[202]");
	link_to("500/fd/10", "socket:[203]");
	link_to("500/fd/11", "socket:[204]");
	link_to("500/fd/12", "socket:[10x]");
	link_to("500/fd/13", "socket:[101"); /* not a socket link */

	assert_int_equal(pmaps_proc_open(&proc, root, "500"), 0);
	/* A tree that is not the live /proc: its loopback is not ours, so refused... */
	pmaps__listeners_in_trees = 0;
	assert_int_equal(pmaps_books_go_listeners(proc, ls, 8, why, sizeof(why)), -EXDEV);
	assert_string_equal(why, "the proc root is not this machine's /proc: its loopback is not "
	                         "the process's");
	/* ... unless the test hook lists a fixture's listeners. */
	pmaps__listeners_in_trees = 1;
	memset(ls, 0, sizeof(ls));
	n = pmaps_books_go_listeners(proc, ls, 8, why, sizeof(why));
	if (n != 6)
		fail_msg("listeners of 500: %d (%s), want 6", n, why);
	/* In the order readdir gives the fds: compare as a set. */
	{
		static const struct {
			const char *url, *host;
			unsigned port;
			int ipv6;
		} want[] = {
			{"http://127.0.0.1:6060/debug/pprof/heap?debug=1", "127.0.0.1", 6060, 0},
			{"http://127.0.0.1:8080/debug/pprof/heap?debug=1", "127.0.0.1", 8080, 0},
			{"http://127.0.0.2:1234/debug/pprof/heap?debug=1", "127.0.0.2", 1234, 0},
			{"http://[::1]:6061/debug/pprof/heap?debug=1", "[::1]", 6061, 1},
			{"http://[::1]:8081/debug/pprof/heap?debug=1", "[::1]", 8081, 1},
			{"http://127.0.0.1:6062/debug/pprof/heap?debug=1", "127.0.0.1", 6062, 0},
		};
		for (size_t i = 0; i < 6; i++) {
			int found = -1;
			for (int j = 0; j < n; j++)
				if (strcmp(ls[j].url, want[i].url) == 0)
					found = j;
			if (found < 0)
				fail_msg("%s not among the %d found (first %s)", want[i].url, n, ls[0].url);
			assert_string_equal(ls[found].host, want[i].host);
			assert_int_equal(ls[found].port, want[i].port);
			assert_int_equal(ls[found].ipv6, want[i].ipv6);
		}
	}
	/* At most MAX. */
	assert_int_equal(pmaps_books_go_listeners(proc, ls, 2, why, sizeof(why)), 2);
	pmaps_proc_close(proc);

	/* No loopback listener: 0 and why. */
	dir("501");
	dir("501/net");
	dir("501/fd");
	put("501/net/tcp", tcp_head, sizeof(tcp_head) - 1);
	link_to("501/fd/3", "socket:[101]");
	assert_int_equal(pmaps_proc_open(&proc, root, "501"), 0);
	assert_int_equal(pmaps_books_go_listeners(proc, ls, 8, why, sizeof(why)), 0);
	assert_string_equal(why, "no listening socket on loopback");
	/* Listeners (500's tcp6: 201 to 204), none of them its own. */
	put("501/net/tcp6", tcp, (size_t)tcp6_len);
	assert_int_equal(pmaps_books_go_listeners(proc, ls, 8, why, sizeof(why)), 0);
	assert_string_equal(why, "no listening socket on loopback");
	pmaps_proc_close(proc);
	/* No such process: the handle is refused (and *OUT made NULL); no handle, no listeners. */
	assert_int_equal(pmaps_proc_open(&proc, root, "502"), -ESRCH);
	assert_null(proc);
	assert_int_equal(pmaps_books_go_listeners(NULL, ls, 8, why, sizeof(why)), -EINVAL);
	pmaps__listeners_in_trees = 0;
}

/* A port on loopback nothing listens on (bound, then closed). */
static unsigned closed_port(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof(a);
	int s = socket(AF_INET, SOCK_STREAM, 0);

	expect_sys(s);
	expect_sys(bind(s, (struct sockaddr *)&a, sizeof(a)));
	expect_sys(getsockname(s, (struct sockaddr *)&a, &al));
	close(s);
	return ntohs(a.sin_port);
}

/* The environment, and a refused connection: the book says why, the environment is read. */
static void test_read_env(void **state)
{
	struct books_opts o;
	struct pmaps_books b;
	const struct pmaps_book_head *h = &b.head[PMAPS_BOOK_GO];
	struct pmaps_proc *proc;
	char url[128], *env;
	size_t n = 0;

	(void)state;
	memset(&o, 0, sizeof(o));
	o.root = root;
	o.timeout_ms = 1000;
	o.malloc_fd = -1;
	dir("600");
	env = malloc(300 << 10);
	assert_non_null(env);
	/* The first GOGC counts, as for getenv(); a GODEBUG too long is cut and marked. */
	n += (size_t)sprintf(env + n, "PATH=/bin") + 1;
	n += (size_t)sprintf(env + n, "GOGC=off") + 1;
	n += (size_t)sprintf(env + n, "GOGC=100") + 1;
	n += (size_t)sprintf(env + n, "XGOMEMLIMIT=1") + 1;
	n += (size_t)sprintf(env + n, "GODEBUG=") + 1;
	n--;
	memset(env + n, 'd', 300);
	n += 300;
	env[n++] = '\0';
	put("600/environ", env, n);
	snprintf(url, sizeof(url), "http://127.0.0.1:%u/", closed_port());
	o.go_url = url;
	assert_int_equal(pmaps_proc_open(&proc, root, "600"), 0);
	books_init(&b);
	book_go_read(&b, &o, proc);
	assert_int_equal(h->asked, 1);
	assert_int_equal(h->ok, 0);
	expect_contains(h->why, ": connection refused");
	expect_contains(h->source, "/debug/pprof/heap?debug=1");
	assert_int_equal(b.go_env, 1);
	assert_string_equal(b.go_gogc, "off");
	assert_string_equal(b.go_gomemlimit, "");
	assert_int_equal(strlen(b.go_godebug), sizeof(b.go_godebug) - 1);
	assert_string_equal(b.go_godebug + sizeof(b.go_godebug) - 4, "...");
	expect_gt(h->at_ns, 0);
	expect_ge(h->end_ns, h->start_ns);
	expect_gt(h->start_ns, 0);
	/* The environment alone, as the library reads it. */
	books_init(&b);
	assert_int_equal(pmaps_books_go_env(&b, proc), 0);
	assert_int_equal(b.go_env, 1);
	assert_string_equal(b.go_gogc, "off");
	assert_string_equal(b.go_gomemlimit, "");
	assert_int_equal(strlen(b.go_godebug), sizeof(b.go_godebug) - 1);
	assert_string_equal(b.go_godebug + sizeof(b.go_godebug) - 4, "...");

	/* Past 256 KiB of environ nothing is read; an entry cut there is ignored. */
	n = 0;
	memset(env, 'a', 300 << 10);
	n = (256 << 10) - 10;
	env[n - 1] = '\0';
	memcpy(env, "A=", 2);
	n += (size_t)sprintf(env + n, "GOGC=12345678") + 1; /* cut at 256 KiB */
	n += (size_t)sprintf(env + n, "GOMEMLIMIT=1GiB") + 1;
	put("600/environ", env, n);
	books_init(&b);
	book_go_read(&b, &o, proc);
	assert_int_equal(b.go_env, 1);
	assert_string_equal(b.go_gogc, "");
	assert_string_equal(b.go_gomemlimit, "");
	pmaps_proc_close(proc);

	/*
	 * No environ: env_ok 0; no URL under a proc root that is not /proc: its
	 * listeners are not asked (pmaps_books_go_listeners() is tested on its own).
	 */
	o.go_url = NULL;
	dir("601");
	dir("601/fd");
	dir("601/net");
	put("601/net/tcp", tcp_head, sizeof(tcp_head) - 1);
	assert_int_equal(pmaps_proc_open(&proc, root, "601"), 0);
	books_init(&b);
	book_go_read(&b, &o, proc);
	assert_int_equal(h->asked, 1);
	assert_int_equal(h->ok, 0);
	assert_int_equal(b.go_env, 0);
	assert_string_equal(h->why, "under --proc-root a Go program's listeners are not asked: "
	                            "name its server with --go-pprof");
	/* A URL refused: why, and nothing fetched. */
	o.go_url = "http://192.0.2.1:6060/";
	books_init(&b);
	book_go_read(&b, &o, proc);
	assert_int_equal(h->ok, 0);
	expect_contains(h->why, "not loopback");
	pmaps_proc_close(proc);
	free(env);
}

/* ---- servers in this process ---- */

enum mode { PAGE, REDIRECT, NOTFOUND, GARBAGE, SHORT, HANG, BIG, BIG_DECLARED, LONG_LINE,
	BIG_BLOCK, NO_NEWLINE };

struct server {
	int ls;                 /* listening */
	unsigned port;
	enum mode mode;
	pthread_t th;
	int accepted;
	char request[512];      /* the request line */
	int stop[2];            /* written to end HANG */
};

static void send_all(int fd, const char *s, size_t n, size_t chunk)
{
	while (n > 0) {
		ssize_t w = send(fd, s, n < chunk ? n : chunk, MSG_NOSIGNAL);
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

static void reply(int fd, const char *status, const char *extra, const char *body, size_t n,
                  size_t chunk)
{
	char head[512];
	int hl = snprintf(head, sizeof(head),
	                  "HTTP/1.1 %s\r\nContent-Type: text/plain\r\nContent-Length: %zu\r\n%s"
	                  "Connection: close\r\n\r\n", status, n, extra);
	send_all(fd, head, (size_t)hl, (size_t)hl);
	send_all(fd, body, n, chunk);
}

static void *serve(void *arg)
{
	struct server *s = arg;
	char req[4096], buf[8192];
	size_t have = 0;
	int c = accept(s->ls, NULL, NULL), one = 1;

	if (c < 0)
		return NULL;
	s->accepted++;
	setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	while (have < sizeof(req) - 1) {
		ssize_t r = recv(c, req + have, sizeof(req) - 1 - have, 0);
		if (r <= 0)
			break;
		have += (size_t)r;
		req[have] = '\0';
		if (strstr(req, "\r\n\r\n"))
			break;
	}
	req[have] = '\0';
	snprintf(s->request, sizeof(s->request), "%.*s", (int)strcspn(req, "\r\n"), req);
	switch (s->mode) {
	case PAGE:
		reply(c, "200 OK", "", page, page_len, 7);
		break;
	case REDIRECT:
		reply(c, "302 Found", "Location: http://192.0.2.1/debug/pprof/heap?debug=1\r\n", "", 0, 1);
		break;
	case NOTFOUND:
		reply(c, "404 Not Found", "", "404 page not found\n", 19, 19);
		break;
	case GARBAGE:
		reply(c, "200 OK", "", "<html>hello</html>\n", 19, 19);
		break;
	case SHORT: {
		/* Content-Length says the page, then half of it, then the end. */
		char head[256];
		int hl = snprintf(head, sizeof(head),
		                  "HTTP/1.1 200 OK\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n",
		                  page_len);
		send_all(c, head, (size_t)hl, (size_t)hl);
		send_all(c, page, page_len - 40, 4096);
		break;
	}
	case HANG: {
		struct pollfd p[2] = {{.fd = c, .events = POLLIN}, {.fd = s->stop[0], .events = POLLIN}};
		/* Until the client goes away (or the test says so): never a byte. */
		while (poll(p, 2, 10000) > 0 && !(p[1].revents & POLLIN)) {
			if (recv(c, buf, sizeof(buf), 0) <= 0)
				break;
		}
		break;
	}
	case BIG: {
		static const char head[] = "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n";
		send_all(c, head, sizeof(head) - 1, sizeof(head));
		memset(buf, 'x', sizeof(buf));
		buf[sizeof(buf) - 1] = '\n';
		for (size_t sent = 0; sent < (70u << 20); sent += sizeof(buf))
			if (send(c, buf, sizeof(buf), MSG_NOSIGNAL) <= 0)
				break;
		break;
	}
	case BIG_DECLARED: {
		static const char head[] =
			"HTTP/1.1 200 OK\r\nContent-Length: 73400320\r\nConnection: close\r\n\r\n";
		send_all(c, head, sizeof(head) - 1, sizeof(head));
		break;
	}
	case LONG_LINE: {
		/* The fixture with HeapAlloc's figure behind 300 zeros. */
		char *t = malloc(page_len + 400), *h = strstr(page, "# HeapAlloc = ");
		size_t at = (size_t)(h - page) + strlen("# HeapAlloc = ");
		memcpy(t, page, at);
		memset(t + at, '0', 300);
		memcpy(t + at + 300, page + at, page_len - at);
		reply(c, "200 OK", "", t, page_len + 300, 4096);
		free(t);
		break;
	}
	case BIG_BLOCK: {
		/* A block of 20000 bytes of short lines: past the reader's 16 KiB. */
		char *t = malloc(20100);
		size_t n = (size_t)snprintf(t, 20100, "# runtime.MemStats\n");
		while (n < 20000)
			n += (size_t)snprintf(t + n, 20100 - n, "# Foo = 1\n");
		reply(c, "200 OK", "", t, n, 4096);
		free(t);
		break;
	}
	case NO_NEWLINE:
		/* The page cut after "# NumGC = 6": its figure may be cut short. */
		reply(c, "200 OK", "", page,
		      (size_t)(strstr(page, "# NumGC = 6\n") - page) + strlen("# NumGC = 6"), 4096);
		break;
	}
	close(c);
	return NULL;
}

static void server_start(struct server *s, enum mode mode)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof(a);

	memset(s, 0, sizeof(*s));
	s->mode = mode;
	expect_sys(s->ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
	expect_sys(bind(s->ls, (struct sockaddr *)&a, sizeof(a)));
	expect_sys(listen(s->ls, 4));
	expect_sys(getsockname(s->ls, (struct sockaddr *)&a, &al));
	s->port = ntohs(a.sin_port);
	expect_sys(pipe2(s->stop, O_CLOEXEC));
	assert_int_equal(pthread_create(&s->th, NULL, serve, s), 0);
}

static void server_stop(struct server *s)
{
	assert_int_equal(write(s->stop[1], "x", 1), 1);
	/* A server never reached still waits in accept(): reach it. */
	if (!s->accepted) {
		struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)s->port),
		                        .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
		int c = socket(AF_INET, SOCK_STREAM, 0);
		if (c >= 0) {
			(void)!connect(c, (struct sockaddr *)&a, sizeof(a));
			close(c);
		}
	}
	pthread_join(s->th, NULL);
	close(s->ls);
	close(s->stop[0]);
	close(s->stop[1]);
}

/* Reads the books from a server in MODE at URL_PATH into B; returns the milliseconds it took. */
static double read_from(struct server *s, enum mode mode, const char *path, unsigned timeout_ms,
                        struct pmaps_books *b)
{
	struct books_opts o;
	struct pmaps_proc *proc;
	struct timespec t0, t1;
	char url[128];

	server_start(s, mode);
	memset(&o, 0, sizeof(o));
	o.timeout_ms = timeout_ms;
	o.malloc_fd = -1;
	o.root = root; /* pid 601: no environ there */
	snprintf(url, sizeof(url), "http://127.0.0.1:%u%s", s->port, path);
	o.go_url = url;
	assert_int_equal(pmaps_proc_open(&proc, root, "601"), 0);
	books_init(b);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	book_go_read(b, &o, proc);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	pmaps_proc_close(proc);
	server_stop(s);
	return (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
}

static void test_http(void **state)
{
	struct server s;
	struct pmaps_books b;
	const struct pmaps_book_head *h = &b.head[PMAPS_BOOK_GO];
	char want[160];
	double ms;

	(void)state;
	/* The page, seven bytes at a time: the figures exact. */
	read_from(&s, PAGE, "/", 2000, &b);
	if (!h->ok)
		fail_msg("the page: %s", h->why);
	expect_fixture(&b);
	assert_string_equal(h->why, "");
	assert_string_equal(s.request, "GET /debug/pprof/heap?debug=1 HTTP/1.1");
	snprintf(want, sizeof(want), "http://127.0.0.1:%u/debug/pprof/heap?debug=1", s.port);
	assert_string_equal(h->source, want);
	expect_gt(h->end_ns, h->start_ns); /* what reading them took */
	expect_gt(h->at_ns, 0);
	read_from(&s, PAGE, "/debug/pprof/heap?gc=1", 2000, &b);
	assert_int_equal(h->ok, 1);
	assert_string_equal(s.request, "GET /debug/pprof/heap?debug=1 HTTP/1.1");

	/* A redirect: said, not followed (one request). */
	read_from(&s, REDIRECT, "/", 2000, &b);
	assert_int_equal(h->ok, 0);
	assert_int_equal(s.accepted, 1);
	expect_contains(h->why,
	                "HTTP 302, redirected to http://192.0.2.1/debug/pprof/heap?debug=1: not followed");
	read_from(&s, NOTFOUND, "/", 2000, &b);
	assert_int_equal(h->ok, 0);
	snprintf(want, sizeof(want), "http://127.0.0.1:%u/debug/pprof/heap?debug=1: HTTP 404", s.port);
	assert_string_equal(h->why, want);
	read_from(&s, GARBAGE, "/", 2000, &b);
	assert_int_equal(h->ok, 0);
	expect_contains(h->why, ": not a Go MemStats dump (no '# runtime.MemStats' block)");
	expect_no_book(&b);
	/* A reply shorter than it said: curl's error, never the figures of a part. */
	read_from(&s, SHORT, "/", 2000, &b);
	assert_int_equal(h->ok, 0);
	expect_contains(h->why, ": transfer closed with 40 bytes remaining to read");
	expect_no_book(&b);
	/* Silence: cut at the timeout. */
	ms = read_from(&s, HANG, "/", 300, &b);
	assert_int_equal(h->ok, 0);
	expect_contains(h->why, ": timed out after 300 ms");
	expect_ge(ms, 290);
	expect_le(ms, 1500);
	/* Too much: read up to 64 MiB, then refused. */
	read_from(&s, BIG, "/", 10000, &b);
	assert_int_equal(h->ok, 0);
	expect_contains(h->why, ": the reply passed 64 MiB: not read");
	read_from(&s, BIG_DECLARED, "/", 2000, &b);
	assert_int_equal(h->ok, 0);
	expect_contains(h->why, ": the reply passed 64 MiB: not read");
	read_from(&s, BIG_BLOCK, "/", 2000, &b);
	assert_int_equal(h->ok, 0);
	expect_contains(h->why, ": the MemStats block passed 16384 bytes");
	expect_no_book(&b);
	read_from(&s, NO_NEWLINE, "/", 2000, &b);
	assert_int_equal(h->ok, 0);
	expect_contains(h->why, "NumGC: cut short (no newline)");
	expect_no_book(&b);
	/*
	 * A figure's line past the line buffer (256 bytes, the reader keeps its
	 * start): refused by the parser, never read as the figure its first 256
	 * bytes would make (HeapAlloc 0), nor skipped.
	 */
	read_from(&s, LONG_LINE, "/", 2000, &b);
	assert_int_equal(h->ok, 0);
	expect_contains(h->why, ": line 8 (byte ");
	expect_contains(h->why, " of the MemStats block: HeapAlloc");
	expect_no_book(&b);
}

static void test_cleanup(void **state)
{
	(void)state;
	rm_tree(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_real),
		cmocka_unit_test(test_parse_cuts),
		cmocka_unit_test(test_parse_bad),
		cmocka_unit_test(test_parse_random),
		cmocka_unit_test(test_url),
		cmocka_unit_test(test_listeners),
		cmocka_unit_test(test_read_env),
		cmocka_unit_test(test_http),
		cmocka_unit_test(test_cleanup),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
