/* SPDX-License-Identifier: MIT */
/*
 * test_books_malloc.c - glibc malloc's books: the library's parser
 * (pmaps_books_parse(), PMAPS_BOOK_MALLOC: lib/books_malloc.c) on
 * malloc_info()'s XML captured from glibc 2.36 here, against
 * mallinfo2() taken at the same moment; every cut of it, garbage, figures
 * out of range, totals that do not add up; then the tool's reader
 * (src/books_malloc.c) over a socketpair against a fake helper thread:
 * the answer, the hello that never comes (a static command), end of
 * file, a late answer dropped, answers past the cap, cut off, or not the
 * protocol.
 *
 * The fixtures (tests/data/malloc-info/):
 *  one-arena.xml    tests/live/malloc_target under the helper: 128 free
 *                   chunks of 64 KiB, 4 of 1 MiB mmap()ed. Its mallinfo2():
 *                   arena 16785408 uordblks 8391888 fordblks 8393520
 *                   fsmblks 0 hblks 4 hblkhd 4210688 keepcost 2864
 *  five-arenas.xml  a program whose 4 threads malloc at once (5 arenas,
 *                   fastbins, a 1 MiB mmap()ed chunk). Its mallinfo2():
 *                   arena 2453504 ordblks 219 smblks 8 fsmblks 576
 *                   uordblks 1394080 fordblks 1059424 hblks 1
 *                   hblkhd 1052672 keepcost 109776
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "books/books.h"
#include "common/num.h"
#include "../expect.h"

#define MIB (1u << 20)

/* The file tests/data/malloc-info/NAME, whole, NUL-terminated; *LEN its length. */
static char *fixture(const char *name, size_t *len)
{
	char path[512];
	FILE *f;
	char *buf;
	long n;

	snprintf(path, sizeof(path), "%s/malloc-info/%s", PMAPS_TEST_DATA, name);
	f = fopen(path, "rb");
	if (!f) {
		fail_msg("%s: %s", path, strerror(errno));
		return NULL;
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	expect_ge(n, 0);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	buf[n] = '\0';
	*len = (size_t)n;
	return buf;
}

/* B zeroed, its size set: a record as a front end makes one (pmaps.h, Conventions). */
static void books_init(struct pmaps_books *b)
{
	memset(b, 0, sizeof(*b));
	b->size = sizeof(*b);
}

/* The malloc book's head in B. */
#define HEAD(b) (&(b)->head[PMAPS_BOOK_MALLOC])

/* Figure V of B, which must be there (pmaps_books_has()). */
static uint64_t fig(const struct pmaps_books *b, enum pmaps_book_value v)
{
	if (!pmaps_books_has(b, v))
		fail_msg("no %s in the malloc book", pmaps_book_value_key(v));
	return b->v[v];
}
/* fig() by the figure's name: M(&b, IN_USE). */
#define M(b, name) fig(b, PMAPS_BV_MALLOC_##name)

/* No figure of the malloc book in B, and its head not OK: what a refused parse leaves. */
static void expect_no_figures(const struct pmaps_books *b)
{
	assert_int_equal(HEAD(b)->ok, 0);
	for (int i = PMAPS_BV_MALLOC_ARENAS; i <= PMAPS_BV_MALLOC_TOP; i++) {
		enum pmaps_book_value v = (enum pmaps_book_value)i;
		if (pmaps_books_has(b, v))
			fail_msg("%s kept after a refused parse", pmaps_book_value_key(v));
	}
}

/* Parses TEXT into B (zeroed first); fails the test, with the why, unless it parses. */
static void parse_ok(struct pmaps_books *b, const char *text, size_t len)
{
	char why[256] = "";
	int r;

	books_init(b);
	r = pmaps_books_parse(b, PMAPS_BOOK_MALLOC, text, len, why, sizeof(why));
	if (r != 0)
		fail_msg("parse: %d: %s", r, why);
	assert_int_equal(HEAD(b)->asked, 1);
	assert_int_equal(HEAD(b)->ok, 1);
	/* Every figure of the XML; keepcost is not in it (the reader sets it). */
	for (int v = PMAPS_BV_MALLOC_ARENAS; v < PMAPS_BV_MALLOC_TOP; v++)
		(void)fig(b, (enum pmaps_book_value)v);
	assert_int_equal(pmaps_books_has(b, PMAPS_BV_MALLOC_TOP), 0);
}

/*
 * Parses TEXT, which must be refused with a why containing WANT, into a
 * record that held a malloc book: none of its figures left.
 */
static void parse_bad(const char *text, size_t len, const char *want)
{
	struct pmaps_books b;
	char why[256] = "";
	int r;

	books_init(&b);
	assert_int_equal(pmaps_books_set(&b, PMAPS_BV_MALLOC_TOP, 2864), 0);
	assert_int_equal(pmaps_books_set(&b, PMAPS_BV_MALLOC_IN_USE, 1), 0);
	r = pmaps_books_parse(&b, PMAPS_BOOK_MALLOC, text, len, why, sizeof(why));
	if (r != -EBADMSG)
		fail_msg("parse of %.60s...: %d, want -EBADMSG (%s)", text, r, why);
	expect_contains(why, want);
	expect_no_figures(&b);
}

static void test_one_arena(void **state)
{
	struct pmaps_books b;
	size_t len;
	char *x = fixture("one-arena.xml", &len);

	(void)state;
	parse_ok(&b, x, len);
	assert_int_equal(M(&b, ARENAS), 1);
	assert_int_equal(M(&b, SYSTEM), 16785408);         /* arena */
	assert_int_equal(M(&b, FAST_COUNT), 0);
	assert_int_equal(M(&b, FAST_BYTES), 0);            /* fsmblks */
	assert_int_equal(M(&b, REST_COUNT), 129);          /* 128 holes and the top */
	assert_int_equal(M(&b, REST_BYTES), 8393520);      /* fordblks - fsmblks */
	assert_int_equal(M(&b, MMAP_COUNT), 4);            /* hblks */
	assert_int_equal(M(&b, MMAP_BYTES), 4210688);      /* hblkhd */
	assert_int_equal(M(&b, FREE_HELD), 8393520);       /* fordblks */
	assert_int_equal(M(&b, IN_USE), 8391888 + 4210688); /* uordblks + hblkhd */
	/* The pattern: 128 free chunks of 64 KiB (and their headers) held. */
	expect_ge(M(&b, FREE_HELD), 128 * (64u << 10));
	expect_ge(M(&b, IN_USE), 128 * (64u << 10) + 4 * MIB);
	free(x);
}

static void test_five_arenas(void **state)
{
	struct pmaps_books b;
	size_t len;
	char *x = fixture("five-arenas.xml", &len);

	(void)state;
	parse_ok(&b, x, len);
	assert_int_equal(M(&b, ARENAS), 5);
	assert_int_equal(M(&b, SYSTEM), 2453504);
	assert_int_equal(M(&b, FAST_COUNT), 8);            /* smblks */
	assert_int_equal(M(&b, FAST_BYTES), 576);          /* fsmblks */
	assert_int_equal(M(&b, REST_COUNT), 219);          /* ordblks */
	assert_int_equal(M(&b, REST_BYTES), 1059424 - 576);
	assert_int_equal(M(&b, MMAP_COUNT), 1);
	assert_int_equal(M(&b, MMAP_BYTES), 1052672);
	assert_int_equal(M(&b, FREE_HELD), 1059424);
	assert_int_equal(M(&b, IN_USE), 1394080 + 1052672);
	free(x);
}

/* Every cut of a fixture short of its last line's end is refused, none read past. */
static void test_cut(void **state)
{
	static const char *const names[] = {"one-arena.xml", "five-arenas.xml"};

	(void)state;
	for (size_t f = 0; f < 2; f++) {
		size_t len;
		char *x = fixture(names[f], &len);
		for (size_t n = 0; n + 1 < len; n++) {
			/* Exactly N bytes on the heap: ASan sees a read past them. */
			char *cut = malloc(n ? n : 1);
			struct pmaps_books b;
			char why[256] = "";
			int r;
			assert_non_null(cut);
			memcpy(cut, x, n);
			books_init(&b);
			r = pmaps_books_parse(&b, PMAPS_BOOK_MALLOC, cut, n, why, sizeof(why));
			if (r != -EBADMSG)
				fail_msg("%s cut at %zu of %zu: %d, want -EBADMSG", names[f], n, len, r);
			expect_no_figures(&b);
			free(cut);
		}
		free(x);
	}
}

/*
 * The fixtures with bytes changed at random (a fixed seed: the same every
 * run): never a read outside the text (ASan), and whatever is accepted adds
 * up: in_use + free_held = system + mmap_bytes, free_held = fast + rest,
 * every figure a figure (at most 2^62, their sum at most 2^63); whatever
 * is refused leaves no figure behind (one record for all: each parse
 * clears the book first).
 */
static void test_mutations(void **state)
{
	static const char *const names[] = {"one-arena.xml", "five-arenas.xml"};
	static const char bytes[] = "0123456789\"<>/= \n\0x9";
	uint64_t seed = 0x9e3779b97f4a7c15u;
	unsigned accepted = 0, refused = 0;

	struct pmaps_books b;

	(void)state;
	books_init(&b);
	for (size_t f = 0; f < 2; f++) {
		size_t len;
		char *x = fixture(names[f], &len);
		char *y = malloc(len);
		assert_non_null(y);
		for (int round = 0; round < 4000; round++) {
			char why[256];
			memcpy(y, x, len);
			for (int k = 0; k < 1 + round % 4; k++) {
				seed ^= seed << 13;
				seed ^= seed >> 7;
				seed ^= seed << 17;
				y[seed % len] = bytes[(seed >> 32) % (sizeof(bytes) - 1)];
			}
			if (pmaps_books_parse(&b, PMAPS_BOOK_MALLOC, y, len, why, sizeof(why)) != 0) {
				refused++;
				expect_no_figures(&b);
				continue;
			}
			accepted++;
			assert_int_equal(HEAD(&b)->ok, 1);
			expect_le(M(&b, SYSTEM), 1ull << 62);
			expect_le(M(&b, MMAP_BYTES), 1ull << 62);
			assert_int_equal(M(&b, FREE_HELD), M(&b, FAST_BYTES) + M(&b, REST_BYTES));
			assert_int_equal(M(&b, IN_USE) + M(&b, FREE_HELD), M(&b, SYSTEM) + M(&b, MMAP_BYTES));
		}
		free(y);
		free(x);
	}
	/* Both ways taken: a digit changed in a <size> may still be a valid XML. */
	expect_gt(accepted, 0);
	expect_gt(refused, 0);
}

/* The one-arena fixture with FROM replaced by TO: the first (ALL 0) or every one. */
static char *replace(const char *from, const char *to, size_t *len, int all)
{
	size_t n, fl = strlen(from), tl = strlen(to), k = 0;
	char *x = fixture("one-arena.xml", &n), *y = malloc(2 * n + 1024), *p = x, *q;

	assert_non_null(y);
	if (!strstr(x, from))
		fail_msg("'%s' not in the fixture", from);
	while ((q = strstr(p, from)) != NULL) {
		memcpy(y + k, p, (size_t)(q - p));
		k += (size_t)(q - p);
		memcpy(y + k, to, tl);
		k += tl;
		p = q + fl;
		if (!all)
			break;
	}
	strcpy(y + k, p);
	free(x);
	*len = strlen(y);
	return y;
}

static char *edited(const char *from, const char *to, size_t *len)
{
	return replace(from, to, len, 0);
}

static char *edited_all(const char *from, const char *to, size_t *len)
{
	return replace(from, to, len, 1);
}

static void test_bad(void **state)
{
	static const char nul[] = "<malloc version=\"1\">\n\0</malloc>\n";
	size_t len;
	char *y;

	(void)state;
	parse_bad("", 0, "not <malloc version=\"1\">");
	parse_bad("HTTP/1.1 200 OK\r\n\r\n", 19, "not <malloc version=\"1\">");
	parse_bad("<malloc version=\"2\">\n</malloc>\n", 31, "not <malloc version=\"1\">");
	parse_bad(nul, sizeof(nul) - 1, "a NUL byte");
	parse_bad("<malloc version=\"1\">\n</malloc>\n", 31, "no <heap>");
	/* Figures: not digits, signs, past 2^62. */
	y = edited("<system type=\"current\" size=\"16785408\"/>",
	           "<system type=\"current\" size=\"-16785408\"/>", &len);
	parse_bad(y, len, "no size=\"N\"");
	free(y);
	y = edited("<total type=\"mmap\" count=\"4\" size=\"4210688\"/>",
	           "<total type=\"mmap\" count=\"4\" size=\"4611686018427387905\"/>", &len);
	parse_bad(y, len, "size is out of range (past 2^62)");
	free(y);
	y = edited("<total type=\"mmap\" count=\"4\" size=\"4210688\"/>",
	           "<total type=\"mmap\" count=\"4\" size=\"99999999999999999999999\"/>", &len);
	parse_bad(y, len, "out of range");
	free(y);
	/* A number whose tenfold step wraps 64 bits (1.9e19 = 2^64 + 5.5e17): not a figure. */
	y = edited("<total type=\"mmap\" count=\"4\" size=\"4210688\"/>",
	           "<total type=\"mmap\" count=\"19000000000000000000\" size=\"4210688\"/>",
	           &len);
	parse_bad(y, len, "count is out of range (past 2^62)");
	free(y);
	/* Four arenas of 2^62 bytes each: their sum wraps to 0, which the totals claim. */
	{
		static const char arena[] =
			"<heap nr=\"%d\">\n<sizes>\n</sizes>\n<total type=\"fast\" count=\"0\" size=\"0\"/>\n"
			"<total type=\"rest\" count=\"0\" size=\"0\"/>\n"
			"<system type=\"current\" size=\"4611686018427387904\"/>\n</heap>\n";
		char xml[2048];
		int n = snprintf(xml, sizeof(xml), "<malloc version=\"1\">\n");
		for (int a = 0; a < 4; a++)
			n += snprintf(xml + n, sizeof(xml) - (size_t)n, arena, a);
		n += snprintf(xml + n, sizeof(xml) - (size_t)n,
		              "<total type=\"fast\" count=\"0\" size=\"0\"/>\n"
		              "<total type=\"rest\" count=\"0\" size=\"0\"/>\n"
		              "<total type=\"mmap\" count=\"0\" size=\"0\"/>\n"
		              "<system type=\"current\" size=\"0\"/>\n</malloc>\n");
		parse_bad(xml, (size_t)n, "the <heap>s' sums are out of range (past 2^62)");
	}
	/* 2^62 is a figure: the sum past it is not. */
	y = edited("<total type=\"mmap\" count=\"4\" size=\"4210688\"/>",
	           "<total type=\"mmap\" count=\"4\" size=\"4611686018427387904\"/>", &len);
	{
		struct pmaps_books b;
		parse_ok(&b, y, len);
		assert_int_equal(M(&b, MMAP_BYTES), 1ull << 62);
		assert_int_equal(M(&b, IN_USE), (1ull << 62) + 16785408 - 8393520);
	}
	free(y);
	/* Totals that are not the heaps' sums. */
	y = edited("<total type=\"rest\" count=\"129\" size=\"8393648\"/>\n<total type=\"mmap\"",
	           "<total type=\"rest\" count=\"129\" size=\"8393647\"/>\n<total type=\"mmap\"", &len);
	parse_bad(y, len, "not the sums of the <heap>s");
	free(y);
	/* More free than the arena's memory: the heap's and the total's current size. */
	y = edited_all("<system type=\"current\" size=\"16785408\"/>",
	               "<system type=\"current\" size=\"4096\"/>", &len);
	parse_bad(y, len, "more free than the arenas' memory");
	free(y);
	/* Heaps out of order, a heap after the totals, a stray line, text after the end. */
	y = edited("<heap nr=\"0\">", "<heap nr=\"1\">", &len);
	parse_bad(y, len, "out of order");
	free(y);
	y = edited("</malloc>", "<heap nr=\"1\">\n</heap>\n</malloc>", &len);
	parse_bad(y, len, "after the totals");
	free(y);
	y = edited("<sizes>", "<sizes>\nfree 12 bytes", &len);
	parse_bad(y, len, "not a <size> in <sizes>");
	free(y);
	y = edited("</malloc>", "</malloc>\n<malloc version=\"1\">", &len);
	parse_bad(y, len, "more after </malloc>");
	free(y);
	y = edited("<total type=\"fast\" count=\"0\" size=\"0\"/>\n<total type=\"rest\" count=\"129\" "
	           "size=\"8393648\"/>\n<system",
	           "<total type=\"rest\" count=\"129\" size=\"8393648\"/>\n<system", &len);
	parse_bad(y, len, "without its fast, rest or system totals");
	free(y);
	/* A <size> whose total cannot be COUNT chunks between FROM and TO. */
	y = edited("<sizes>", "<sizes>\n  <size from=\"65553\" to=\"65553\" total=\"9\" count=\"1\"/>",
	           &len);
	parse_bad(y, len, "whose total is not COUNT chunks");
	free(y);
	y = edited("<sizes>",
	           "<sizes>\n  <size from=\"4611686018427387903\" to=\"4611686018427387903\" "
	           "total=\"4611686018427387903\" count=\"4611686018427387903\"/>",
	           &len);
	parse_bad(y, len, "whose total is not COUNT chunks");
	free(y);
	/* An element pmaps does not know, on a line of its own, is passed over. */
	y = edited("</sizes>", "</sizes>\n<future type=\"x\" size=\"1\"/>", &len);
	{
		struct pmaps_books b;
		parse_ok(&b, y, len);
		assert_int_equal(M(&b, FREE_HELD), 8393520);
	}
	free(y);
}

/* A glibc that counts a binned chunk's size right (even sizes): nothing taken back. */
static void test_even_sizes(void **state)
{
	static const char x[] =
		"<malloc version=\"1\">\n<heap nr=\"0\">\n<sizes>\n"
		"  <size from=\"48\" to=\"48\" total=\"96\" count=\"2\"/>\n"
		"  <size from=\"1024\" to=\"1040\" total=\"2064\" count=\"2\"/>\n"
		"</sizes>\n"
		"<total type=\"fast\" count=\"2\" size=\"96\"/>\n"
		"<total type=\"rest\" count=\"3\" size=\"6160\"/>\n"
		"<system type=\"current\" size=\"135168\"/>\n<system type=\"max\" size=\"135168\"/>\n"
		"<aspace type=\"total\" size=\"135168\"/>\n<aspace type=\"mprotect\" size=\"135168\"/>\n"
		"</heap>\n"
		"<total type=\"fast\" count=\"2\" size=\"96\"/>\n"
		"<total type=\"rest\" count=\"3\" size=\"6160\"/>\n"
		"<total type=\"mmap\" count=\"0\" size=\"0\"/>\n"
		"<system type=\"current\" size=\"135168\"/>\n<system type=\"max\" size=\"135168\"/>\n"
		"<aspace type=\"total\" size=\"135168\"/>\n<aspace type=\"mprotect\" size=\"135168\"/>\n"
		"</malloc>\n";
	struct pmaps_books b;

	(void)state;
	parse_ok(&b, x, sizeof(x) - 1);
	assert_int_equal(M(&b, REST_BYTES), 6160);
	assert_int_equal(M(&b, FREE_HELD), 6256);
	assert_int_equal(M(&b, IN_USE), 135168 - 6256);
}

/* ---- the reader against a fake helper ---- */

/* What the fake helper does: a script of steps, run by its thread. */
enum step_kind {
	S_SEND,      /* write TEXT (LEN bytes; LEN 0: strlen) */
	S_REQUEST,   /* read one byte, which must be 'i' */
	S_SLEEP,     /* MS milliseconds */
	S_CLOSE,     /* close the socket */
	S_END,
};
struct step {
	enum step_kind kind;
	const char *text;
	size_t len;
	unsigned ms;
};
struct fake {
	int fd;
	const struct step *steps;
	int bad_request; /* a request byte was not 'i' */
	int requests;
	pthread_t t;
};

static void *fake_main(void *arg)
{
	struct fake *f = arg;

	for (const struct step *s = f->steps; s->kind != S_END; s++) {
		switch (s->kind) {
		case S_SEND: {
			size_t n = s->len ? s->len : strlen(s->text);
			const char *p = s->text;
			while (n) {
				ssize_t w = send(f->fd, p, n, MSG_NOSIGNAL);
				if (w <= 0)
					return NULL;
				p += w;
				n -= (size_t)w;
			}
			break;
		}
		case S_REQUEST: {
			char c;
			if (read(f->fd, &c, 1) != 1)
				return NULL;
			f->requests++;
			if (c != 'i')
				f->bad_request = 1;
			break;
		}
		case S_SLEEP: {
			struct timespec ts = {s->ms / 1000, (long)(s->ms % 1000) * 1000000};
			nanosleep(&ts, NULL);
			break;
		}
		case S_CLOSE:
			close(f->fd);
			f->fd = -1;
			return NULL;
		case S_END:
			break;
		}
	}
	return NULL;
}

/* Starts the fake on one end of a socketpair; O gets the other, with TIMEOUT_MS. */
static void fake_start(struct fake *f, const struct step *steps, struct books_opts *o,
                       unsigned timeout_ms)
{
	int sv[2];

	expect_sys(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
	memset(o, 0, sizeof(*o));
	o->timeout_ms = timeout_ms;
	o->malloc_fd = sv[0];
	memset(f, 0, sizeof(*f));
	f->fd = sv[1];
	f->steps = steps;
	assert_int_equal(pthread_create(&f->t, NULL, fake_main, f), 0);
}

static void fake_end(struct fake *f, struct books_opts *o)
{
	close(o->malloc_fd);
	pthread_join(f->t, NULL);
	if (f->fd >= 0)
		close(f->fd);
	assert_int_equal(f->bad_request, 0);
}

#define HELLO "pmaps-malloc 1 n=0 keepcost=0 len=0 full=0\n"

/* The frame answering request N with the one-arena fixture (static storage, one at a time). */
static const char *answer(unsigned n, size_t *len)
{
	static char buf[8192];
	size_t xl;
	char *x = fixture("one-arena.xml", &xl);
	int h = snprintf(buf, sizeof(buf), "pmaps-malloc 1 n=%u keepcost=2864 len=%zu full=0\n", n, xl);

	assert_true((size_t)h + xl < sizeof(buf));
	memcpy(buf + h, x, xl);
	free(x);
	*len = (size_t)h + xl;
	return buf;
}

/* Reads malloc's book into B, zeroed first, as books_read() does. */
static void read_book(struct pmaps_books *b, const struct books_opts *o)
{
	books_init(b);
	book_malloc_read(b, o);
}

static void expect_fixture(const struct pmaps_books *b)
{
	const struct pmaps_book_head *h = HEAD(b);

	if (!h->ok)
		fail_msg("not read: %s", h->why);
	assert_int_equal(h->asked, 1);
	assert_string_equal(h->why, "");
	assert_int_equal(M(b, IN_USE), 8391888 + 4210688);
	assert_int_equal(M(b, FREE_HELD), 8393520);
	assert_int_equal(M(b, MMAP_COUNT), 4);
	assert_int_equal(M(b, TOP), 2864);
	expect_contains(h->source, "malloc_info()");
	expect_gt(h->at_ns, 0);
	expect_gt(h->start_ns, 0);
	expect_le(h->start_ns, h->end_ns);
}

static void test_read_answer(void **state)
{
	struct pmaps_books b;
	struct books_opts o;
	struct fake f;
	size_t len;
	char a[8192], a2[8192];
	size_t len2;
	struct step steps[] = {
		{S_SEND, HELLO, 0, 0}, {S_REQUEST, NULL, 0, 0}, {S_SEND, a, 0, 0},
		{S_REQUEST, NULL, 0, 0}, {S_SEND, a2, 0, 0}, {S_END, NULL, 0, 0},
	};

	(void)state;
	{ const char *p_ = answer(1, &len); memcpy(a, p_, len); }
	steps[2].len = len;
	{ const char *p_ = answer(2, &len2); memcpy(a2, p_, len2); }
	steps[4].len = len2;
	fake_start(&f, steps, &o, 2000);
	read_book(&b, &o);
	expect_fixture(&b);
	read_book(&b, &o);
	expect_fixture(&b);
	fake_end(&f, &o);
	assert_int_equal(f.requests, 2);
}

static void test_read_not_asked(void **state)
{
	struct pmaps_books b;
	const struct pmaps_book_head *h = HEAD(&b);
	struct books_opts o;

	(void)state;
	memset(&o, 0, sizeof(o));
	o.malloc_fd = -1;
	o.timeout_ms = 100;
	read_book(&b, &o);
	assert_int_equal(h->asked, 0);
	o.malloc_why = "no libpmaps-malloc.so next to pmaps";
	read_book(&b, &o);
	assert_int_equal(h->asked, 1);
	assert_int_equal(h->ok, 0);
	assert_string_equal(h->why, "no libpmaps-malloc.so next to pmaps");
	expect_gt(h->at_ns, 0);
	expect_no_figures(&b);
}

/* No hello (a static command): waited for once, then said at once. */
static void test_read_no_hello(void **state)
{
	struct pmaps_books b;
	const struct pmaps_book_head *h = HEAD(&b);
	struct books_opts o;
	struct fake f;
	struct step steps[] = {{S_SLEEP, NULL, 0, 1500}, {S_END, NULL, 0, 0}};
	uint64_t t0;

	(void)state;
	fake_start(&f, steps, &o, 200);
	t0 = now_ns();
	read_book(&b, &o);
	expect_ge(now_ns() - t0, 200 * 1000000ull);
	expect_lt(now_ns() - t0, 1000 * 1000000ull);
	assert_int_equal(h->asked, 1);
	assert_int_equal(h->ok, 0);
	expect_contains(h->why, "did not answer: the command is not dynamically linked with glibc");
	t0 = now_ns();
	read_book(&b, &o);
	expect_lt(now_ns() - t0, 100 * 1000000ull);
	expect_contains(h->why, "did not answer: the command is not dynamically linked with glibc");
	assert_int_equal(f.requests, 0);
	fake_end(&f, &o);
}

/* End of file: before the hello, and after it. */
static void test_read_eof(void **state)
{
	struct pmaps_books b;
	const struct pmaps_book_head *h = HEAD(&b);
	struct books_opts o;
	struct fake f;
	struct step before[] = {{S_CLOSE, NULL, 0, 0}, {S_END, NULL, 0, 0}};
	struct step after[] = {{S_SEND, HELLO, 0, 0}, {S_REQUEST, NULL, 0, 0}, {S_CLOSE, NULL, 0, 0},
	                       {S_END, NULL, 0, 0}};

	(void)state;
	fake_start(&f, before, &o, 2000);
	read_book(&b, &o);
	expect_contains(h->why, "the helper did not answer");
	fake_end(&f, &o);

	fake_start(&f, after, &o, 2000);
	read_book(&b, &o);
	assert_int_equal(h->ok, 0);
	assert_string_equal(h->why, "the helper is gone (the command exec'd or closed it)");
	/* And so on, without asking again. */
	read_book(&b, &o);
	assert_string_equal(h->why, "the helper is gone (the command exec'd or closed it)");
	fake_end(&f, &o);
	assert_int_equal(f.requests, 1);
}

/* An answer later than the timeout: this request fails, the next drops it and reads its own. */
static void test_read_late(void **state)
{
	struct pmaps_books b;
	const struct pmaps_book_head *h = HEAD(&b);
	struct books_opts o;
	struct fake f;
	size_t len, len2;
	char a1[8192], a2[8192];
	struct step steps[] = {
		{S_SEND, HELLO, 0, 0},  {S_REQUEST, NULL, 0, 0}, {S_SLEEP, NULL, 0, 400},
		{S_SEND, a1, 0, 0},     {S_REQUEST, NULL, 0, 0}, {S_SEND, a2, 0, 0},
		{S_END, NULL, 0, 0},
	};

	(void)state;
	{ const char *p_ = answer(1, &len); memcpy(a1, p_, len); }
	/* The late answer says otherwise than the one read: taken, it would show. */
	memcpy(strstr(a1, "keepcost=2864"), "keepcost=1111", 13);
	steps[3].len = len;
	{ const char *p_ = answer(2, &len2); memcpy(a2, p_, len2); }
	steps[5].len = len2;
	fake_start(&f, steps, &o, 150);
	read_book(&b, &o);
	assert_int_equal(h->ok, 0);
	expect_contains(h->why, "did not answer within 150 ms");
	struct timespec ts = {0, 500000000};
	nanosleep(&ts, NULL);
	read_book(&b, &o);
	expect_fixture(&b);
	fake_end(&f, &o);
}

/* A frame cut by the timeout, finished by the next request's wait. */
static void test_read_split(void **state)
{
	struct pmaps_books b;
	const struct pmaps_book_head *h = HEAD(&b);
	struct books_opts o;
	struct fake f;
	size_t len, len2;
	char a1[8192], a2[8192];
	struct step steps[] = {
		{S_SEND, HELLO, 0, 0}, {S_REQUEST, NULL, 0, 0}, {S_SEND, a1, 30, 0},
		{S_SLEEP, NULL, 0, 500}, {S_SEND, NULL, 0, 0}, {S_REQUEST, NULL, 0, 0},
		{S_SEND, a2, 0, 0}, {S_END, NULL, 0, 0},
	};

	(void)state;
	{ const char *p_ = answer(1, &len); memcpy(a1, p_, len); }
	steps[4].text = a1 + 30;
	steps[4].len = len - 30;
	{ const char *p_ = answer(2, &len2); memcpy(a2, p_, len2); }
	steps[6].len = len2;
	/* Cut at 30 bytes for 500 ms: the first wait (300 ms) ends inside it, the second does not. */
	fake_start(&f, steps, &o, 300);
	read_book(&b, &o);
	expect_contains(h->why, "did not answer within 300 ms");
	read_book(&b, &o);
	expect_fixture(&b);
	fake_end(&f, &o);
}

/* Answers that are refused: past the cap, cut by the helper, not the protocol, not XML. */
static void test_read_refused(void **state)
{
	static const struct {
		const char *answer, *why;
	} cases[] = {
		{"pmaps-malloc 1 n=1 keepcost=0 len=4194305 full=0\n", "past pmaps's cap of 4194304"},
		{"pmaps-malloc 1 n=1 keepcost=0 len=0 full=1\n", "larger than the helper's buffer"},
		{"pmaps-malloc 1 n=1 keepcost=0 len=3\n", "no header line"},
		{"pmaps-malloc 1 n=1 keepcost=99999999999999999999 len=0 full=0\n", "no header line"},
		{"HTTP/1.0 200 OK\n", "no header line"},
		{"pmaps-malloc 1 n=7 keepcost=0 len=0 full=0\n", "a request pmaps did not make"},
		{"pmaps-malloc 1 n=1 keepcost=0 len=5 full=0\nhello", "not <malloc version=\"1\">"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pmaps_books b;
		const struct pmaps_book_head *h = HEAD(&b);
		struct books_opts o;
		struct fake f;
		struct step steps[] = {{S_SEND, HELLO, 0, 0}, {S_REQUEST, NULL, 0, 0},
		                       {S_SEND, cases[i].answer, 0, 0}, {S_END, NULL, 0, 0}};
		fake_start(&f, steps, &o, 1000);
		read_book(&b, &o);
		if (h->ok || !strstr(h->why, cases[i].why))
			fail_msg("answer %zu (%s): ok %d, why '%s', want '%s'", i, cases[i].answer,
			         h->ok, h->why, cases[i].why);
		expect_no_figures(&b);
		fake_end(&f, &o);
	}
	/* A header line that never ends. */
	{
		static char endless[300];
		struct pmaps_books b;
		const struct pmaps_book_head *h = HEAD(&b);
		struct books_opts o;
		struct fake f;
		struct step steps[] = {{S_SEND, endless, sizeof(endless), 0}, {S_END, NULL, 0, 0}};
		memset(endless, 'x', sizeof(endless));
		fake_start(&f, steps, &o, 1000);
		read_book(&b, &o);
		expect_contains(h->why, "no header line");
		fake_end(&f, &o);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_arena),    cmocka_unit_test(test_five_arenas),
		cmocka_unit_test(test_cut),          cmocka_unit_test(test_mutations),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_even_sizes),   cmocka_unit_test(test_read_answer),
		cmocka_unit_test(test_read_not_asked), cmocka_unit_test(test_read_no_hello),
		cmocka_unit_test(test_read_eof),     cmocka_unit_test(test_read_late),
		cmocka_unit_test(test_read_split),   cmocka_unit_test(test_read_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
