/* SPDX-License-Identifier: MIT */
/*
 * books_malloc.c - glibc malloc's books: malloc_info()'s XML, parsed. A
 * front end asks for it in the process itself (the pmaps tool through the
 * helper `pmaps run` preloads into its command: src/malloc_helper.c).
 *
 * The XML, as glibc 2.36's __malloc_info() writes it (malloc/malloc.c),
 * one element a line, sizes in bytes, counts of chunks:
 *
 *   <malloc version="1">
 *   <heap nr="0">                      one per arena, nr from 0
 *   <sizes>
 *     <size from="A" to="B" total="T" count="C"/>   free chunks by bin
 *     <unsorted from="A" to="B" total="T" count="C"/>
 *   </sizes>
 *   <total type="fast" count="C" size="S"/>     chunks in fastbins
 *   <total type="rest" count="C" size="S"/>     the other bins, and top
 *   <system type="current" size="S"/>           the arena's memory
 *   <system type="max" size="S"/>
 *   <aspace type="total" size="S"/>  <aspace type="mprotect" size="S"/>
 *   [<aspace type="subheaps" size="N"/>]        arenas but the main one
 *   </heap>
 *   <total type="fast" .../> <total type="rest" .../>  sums over the arenas
 *   <total type="mmap" count="C" size="S"/>     chunks of their own mmap()
 *   <system type="current" size="S"/> <system type="max" .../>
 *   <aspace .../> ...
 *   </malloc>
 *
 * glibc counts a binned chunk's size with its PREV_INUSE bit
 * (chunksize_nomask()): the bins' "total" and "rest" are one byte too
 * many for each chunk in them, and their sizes odd. The parser takes that
 * byte back from each entry whose largest size is odd (a fastbin's entry
 * is from its size - 15 to its size, counted right), so that the figures are
 * mallinfo2()'s to the byte (fordblks = fast + rest, uordblks + hblkhd =
 * in_use); a glibc that counts right lists even sizes and keeps its totals.
 *
 * Tcache chunks are free to the program but held by its thread: malloc
 * counts them in use, and so do these books.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "readers.h"

/* ---- the parser ---- */

/* One line of the XML: [P, END), without its '\n'. */
struct line {
	const char *p, *end;
	unsigned no;
};

/* Next line from *POS (before END) into L; 0 at the end. */
static int next_line(const char **pos, const char *end, struct line *l)
{
	const char *p = *pos, *nl;

	if (p >= end)
		return 0;
	nl = memchr(p, '\n', (size_t)(end - p));
	l->p = p;
	l->end = nl ? nl : end;
	l->no++;
	*pos = nl ? nl + 1 : end;
	return 1;
}

/* The line without its leading blanks is exactly S (a literal). */
static int is(const struct line *l, const char *s)
{
	const char *p = l->p;
	size_t n = strlen(s);

	while (p < l->end && *p == ' ')
		p++;
	return (size_t)(l->end - p) == n && memcmp(p, s, n) == 0;
}

/* The line without its leading blanks starts with S. */
static int starts(const struct line *l, const char *s)
{
	const char *p = l->p;
	size_t n = strlen(s);

	while (p < l->end && *p == ' ')
		p++;
	return (size_t)(l->end - p) >= n && memcmp(p, s, n) == 0;
}

/*
 * The value of the attribute NAME="digits" in L, at most PMAPS__BOOK_FIGURE_MAX. Returns
 * 0, -1 when absent or not decimal, -2 past PMAPS__BOOK_FIGURE_MAX.
 */
static int attr(const struct line *l, const char *name, uint64_t *v)
{
	size_t n = strlen(name);
	const char *p = l->p;

	for (; p + n + 3 <= l->end; p++) {
		if (p[0] != ' ' || memcmp(p + 1, name, n) != 0 || p[1 + n] != '=' || p[2 + n] != '"')
			continue;
		p += n + 3;
		if (p >= l->end || *p < '0' || *p > '9')
			return -1;
		*v = 0;
		for (; p < l->end && *p >= '0' && *p <= '9'; p++) {
			uint64_t d = (uint64_t)(*p - '0');
			/* Checked before the step: ten times a figure can wrap 64 bits. */
			if (*v > (PMAPS__BOOK_FIGURE_MAX - d) / 10)
				return -2;
			*v = *v * 10 + d;
		}
		return p < l->end && *p == '"' ? 0 : -1;
	}
	return -1;
}

struct mparse {
	char *why;
	size_t whysz;
};

static int bad(struct mparse *mp, const struct line *l, const char *what)
{
	if (mp->why)
		pmaps__msg(mp->why, mp->whysz, "malloc_info's XML, line %u: %s", l ? l->no : 0u, what);
	return -EBADMSG;
}

/* Attribute NAME of L into *V, or the error. */
static int need(struct mparse *mp, const struct line *l, const char *name, uint64_t *v)
{
	char what[96];
	int r = attr(l, name, v);

	if (r == 0)
		return 0;
	snprintf(what, sizeof(what), r == -2 ? "%s is out of range (past 2^62)" : "no %s=\"N\"",
	         name);
	return bad(mp, l, what);
}

/* What a <heap> or the totals say. */
struct mtot {
	int have_fast, have_rest, have_mmap, have_sys;
	uint64_t fast_count, fast_bytes, rest_count, rest_bytes, mmap_count, mmap_bytes, system;
	uint64_t odd;   /* the binned chunks counted a byte too many */
};

/* A <total .../> or <system type="current" .../> line into T; 1 taken, 0 not one, <0 error. */
static int total_line(struct mparse *mp, const struct line *l, struct mtot *t, int final)
{
	int r;

	if (starts(l, "<total type=\"fast\" ")) {
		if (t->have_fast++)
			return bad(mp, l, "a second fast total");
		if ((r = need(mp, l, "count", &t->fast_count)) < 0 ||
		    (r = need(mp, l, "size", &t->fast_bytes)) < 0)
			return r;
		return 1;
	}
	if (starts(l, "<total type=\"rest\" ")) {
		if (t->have_rest++)
			return bad(mp, l, "a second rest total");
		if ((r = need(mp, l, "count", &t->rest_count)) < 0 ||
		    (r = need(mp, l, "size", &t->rest_bytes)) < 0)
			return r;
		return 1;
	}
	if (final && starts(l, "<total type=\"mmap\" ")) {
		if (t->have_mmap++)
			return bad(mp, l, "a second mmap total");
		if ((r = need(mp, l, "count", &t->mmap_count)) < 0 ||
		    (r = need(mp, l, "size", &t->mmap_bytes)) < 0)
			return r;
		return 1;
	}
	if (starts(l, "<system type=\"current\" ")) {
		if (t->have_sys++)
			return bad(mp, l, "a second current system size");
		if ((r = need(mp, l, "size", &t->system)) < 0)
			return r;
		return 1;
	}
	return 0;
}

/* A line the parser does not know: an element on a line of its own is passed over. */
static int other_line(struct mparse *mp, const struct line *l)
{
	const char *p = l->p;

	while (p < l->end && *p == ' ')
		p++;
	if (p < l->end && *p == '<' && l->end[-1] == '>')
		return 0;
	return bad(mp, l, "not an XML element of malloc_info()");
}

int pmaps__books_parse_malloc(struct pmaps_books *m, const char *xml, size_t len, char *why,
                              size_t whysz)
{
	struct mparse mp = {why, whysz};
	const char *pos = xml, *end = xml + len;
	struct line l = {0};
	struct mtot heap, fin, sum;
	uint64_t odd = 0;
	unsigned narenas = 0;
	int r, in_heap = 0, in_sizes = 0, done = 0;

	memset(&fin, 0, sizeof(fin));
	memset(&sum, 0, sizeof(sum));
	memset(&heap, 0, sizeof(heap));
	if (memchr(xml, '\0', len))
		return bad(&mp, NULL, "a NUL byte in it");
	if (!next_line(&pos, end, &l) || !is(&l, "<malloc version=\"1\">"))
		return bad(&mp, &l, "not <malloc version=\"1\"> (not malloc_info()'s XML, or a version "
		                    "pmaps does not know)");
	while (next_line(&pos, end, &l)) {
		if (done) {
			if (l.p == l.end && pos == end)
				break;
			return bad(&mp, &l, "more after </malloc>");
		}
		if (in_sizes) {
			uint64_t from, to, total, count;
			if (is(&l, "</sizes>")) {
				in_sizes = 0;
				continue;
			}
			if (!starts(&l, "<size ") && !starts(&l, "<unsorted "))
				return bad(&mp, &l, "not a <size> in <sizes>");
			if ((r = need(&mp, &l, "from", &from)) < 0 || (r = need(&mp, &l, "to", &to)) < 0 ||
			    (r = need(&mp, &l, "total", &total)) < 0 ||
			    (r = need(&mp, &l, "count", &count)) < 0)
				return r;
			uint64_t lo, hi;
			if (count == 0 || from > to || __builtin_mul_overflow(count, from, &lo) ||
			    __builtin_mul_overflow(count, to, &hi) || total < lo || total > hi)
				return bad(&mp, &l, "a <size> whose total is not COUNT chunks from FROM to TO");
			/*
			 * An odd TO: glibc's extra byte a chunk (chunk sizes are even). A
			 * fastbin's entry is FROM = TO - 15 with TO its chunks' size, right.
			 */
			if (to & 1) {
				heap.odd += count; /* both at most 2^62: no wrap */
				if (heap.odd > PMAPS__BOOK_FIGURE_MAX)
					return bad(&mp, &l, "more chunks than a figure holds (past 2^62)");
			}
			continue;
		}
		if (in_heap) {
			if (is(&l, "<sizes>")) {
				in_sizes = 1;
				continue;
			}
			if (is(&l, "</heap>")) {
				if (!heap.have_fast || !heap.have_rest || !heap.have_sys)
					return bad(&mp, &l, "a <heap> without its fast, rest or system totals");
				/* The top chunk is one of REST's chunks, and counted right. */
				if (heap.odd >= heap.rest_count && heap.odd)
					return bad(&mp, &l, "more binned chunks than the rest total counts");
				if (heap.odd > heap.rest_bytes)
					return bad(&mp, &l, "the rest total is below its chunks' count");
				/*
				 * Each term and each sum so far at most 2^62: an addition
				 * cannot wrap, and a sum past 2^62 is refused at once.
				 */
				sum.fast_count += heap.fast_count;
				sum.fast_bytes += heap.fast_bytes;
				sum.rest_count += heap.rest_count;
				sum.rest_bytes += heap.rest_bytes;
				sum.system += heap.system;
				odd += heap.odd;
				if (sum.fast_count > PMAPS__BOOK_FIGURE_MAX ||
				    sum.fast_bytes > PMAPS__BOOK_FIGURE_MAX ||
				    sum.rest_count > PMAPS__BOOK_FIGURE_MAX ||
				    sum.rest_bytes > PMAPS__BOOK_FIGURE_MAX ||
				    sum.system > PMAPS__BOOK_FIGURE_MAX || odd > PMAPS__BOOK_FIGURE_MAX)
					return bad(&mp, &l, "the <heap>s' sums are out of range (past 2^62)");
				in_heap = 0;
				narenas++;
				continue;
			}
			if ((r = total_line(&mp, &l, &heap, 0)) < 0)
				return r;
			if (r == 0 && (r = other_line(&mp, &l)) < 0)
				return r;
			continue;
		}
		if (starts(&l, "<heap ")) {
			uint64_t nr;
			if (fin.have_fast || fin.have_rest || fin.have_mmap || fin.have_sys)
				return bad(&mp, &l, "a <heap> after the totals");
			if ((r = need(&mp, &l, "nr", &nr)) < 0)
				return r;
			if (nr != narenas)
				return bad(&mp, &l, "<heap> numbers out of order");
			if (narenas >= 1u << 16)
				return bad(&mp, &l, "more than 65536 arenas");
			memset(&heap, 0, sizeof(heap));
			in_heap = 1;
			continue;
		}
		if (is(&l, "</malloc>")) {
			done = 1;
			continue;
		}
		if ((r = total_line(&mp, &l, &fin, 1)) < 0)
			return r;
		if (r == 0 && (r = other_line(&mp, &l)) < 0)
			return r;
	}
	if (!done)
		return bad(&mp, &l, in_heap ? "it ends inside a <heap> (cut short?)"
		                            : "it ends before </malloc> (cut short?)");
	if (narenas == 0)
		return bad(&mp, &l, "no <heap>");
	if (!fin.have_fast || !fin.have_rest || !fin.have_mmap || !fin.have_sys)
		return bad(&mp, &l, "the fast, rest, mmap or current system totals are missing");
	/* The sums, each at most 2^62 (above): the totals must be them. */
	if (sum.fast_count != fin.fast_count || sum.fast_bytes != fin.fast_bytes ||
	    sum.rest_count != fin.rest_count || sum.rest_bytes != fin.rest_bytes ||
	    sum.system != fin.system)
		return bad(&mp, &l, "the totals are not the sums of the <heap>s");
	fin.rest_bytes -= odd;
	if (fin.fast_bytes > fin.system || fin.rest_bytes > fin.system - fin.fast_bytes)
		return bad(&mp, &l, "more free than the arenas' memory (fast + rest > system)");
	pmaps__books_put(m, PMAPS_BV_MALLOC_ARENAS, narenas);
	pmaps__books_put(m, PMAPS_BV_MALLOC_SYSTEM, fin.system);
	pmaps__books_put(m, PMAPS_BV_MALLOC_FAST_COUNT, fin.fast_count);
	pmaps__books_put(m, PMAPS_BV_MALLOC_FAST_BYTES, fin.fast_bytes);
	pmaps__books_put(m, PMAPS_BV_MALLOC_REST_COUNT, fin.rest_count);
	pmaps__books_put(m, PMAPS_BV_MALLOC_REST_BYTES, fin.rest_bytes);
	pmaps__books_put(m, PMAPS_BV_MALLOC_MMAP_COUNT, fin.mmap_count);
	pmaps__books_put(m, PMAPS_BV_MALLOC_MMAP_BYTES, fin.mmap_bytes);
	/* FAST + REST <= SYSTEM (checked above), and SYSTEM - free + MMAP < 2^63: no wrap. */
	pmaps__books_put(m, PMAPS_BV_MALLOC_FREE_HELD, fin.fast_bytes + fin.rest_bytes);
	pmaps__books_put(m, PMAPS_BV_MALLOC_IN_USE,
	                 fin.system - (fin.fast_bytes + fin.rest_bytes) + fin.mmap_bytes);
	return 0;
}
