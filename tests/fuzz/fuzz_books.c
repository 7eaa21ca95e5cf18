/* SPDX-License-Identifier: MIT */
/*
 * fuzz_books.c - libFuzzer target for the parsers of the runtime's books
 * (pmaps_books_parse(): lib/books_go.c, books_jvm.c, books_malloc.c) and
 * their join: Go's MemStats page, jcmd's NMT summary and GC.heap_info,
 * malloc_info()'s XML; and the words of a failed jcmd run
 * (pmaps_books_jcmd_failed()). The first byte picks the parser, the rest is
 * what a target wrote. What a parser accepts keeps its own invariants, and joins
 * to an explain result with terms that add up to its RSS exactly; what it
 * refuses says why, and leaves no figure of that book behind.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pmaps.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define V(b, k) ((b)->v[PMAPS_BV_##k])

/* An explain result of 64 MiB of runtime heap and 16 MiB of everything else. */
static const struct pmaps_explain *explain(void)
{
	static struct pmaps_explain x;

	if (!x.size) {
		x.size = sizeof(x);
		x.xc_known = (1u << PMAPS_XC_COUNT) - 1;
		for (int c = 0; c < PMAPS_X_COUNT; c++) {
			x.v[c][PMAPS_XC_RSS] = c == PMAPS_X_RUNTIME_HEAP ? 64u << 20 : 16u << 20;
			x.total[PMAPS_XC_RSS] += x.v[c][PMAPS_XC_RSS];
			x.mappings[c] = 1;
		}
	}
	return &x;
}

/*
 * The join of B: exact, or refused for a figure out of range (or, for an NMT
 * that is off, for having no figure to join).
 */
static void joins(const struct pmaps_books *b)
{
	static struct pmaps_join j;
	int64_t sum = 0;

	memset(&j, 0, sizeof(j));
	j.size = sizeof(j);
	if (pmaps_books_join(explain(), b, 0, &j) < 0)
		abort();
	if (!j.ok) {
		if ((j.refused != PMAPS_JOIN_RANGE && j.refused != PMAPS_JOIN_NONE) || j.nterms ||
		    (j.refused == PMAPS_JOIN_NONE && b->jvm_nmt == PMAPS_NMT_ON))
			abort();
		return;
	}
	for (unsigned i = 0; i < j.nterms; i++) {
		if (j.term[i].bytes > (1ull << 62))
			abort();
		sum += j.term[i].neg ? -(int64_t)j.term[i].bytes : (int64_t)j.term[i].bytes;
	}
	if (sum != (int64_t)j.rss)
		abort();
}

/*
 * A failed jcmd's words from TEXT, split at its first NUL into standard
 * error and output, into rooms of every size up to 64 bytes and a full one:
 * always terminated inside the room, never past it.
 */
static void jcmd_failed(const char *text, size_t n)
{
	static char why[512 + 1];
	const char *nul = memchr(text, '\0', n);
	size_t errlen = nul ? (size_t)(nul - text) : n;
	const char *out = nul ? nul + 1 : NULL;
	size_t outlen = nul ? n - errlen - 1 : 0;

	for (size_t room = 1; room <= 64; room += 7) {
		why[room] = 'Z';
		pmaps_books_jcmd_failed(4242, "GC.heap_info", 1, text, errlen, out, outlen, room & 1,
		                        why, room);
		if (why[room] != 'Z' || memchr(why, '\0', room) == NULL)
			abort();
	}
	why[sizeof(why) - 1] = 'Z';
	pmaps_books_jcmd_failed(4242, "GC.heap_info", 1, text, errlen, out, outlen, 1, why,
	                        sizeof(why) - 1);
	if (why[sizeof(why) - 1] != 'Z' || strncmp(why, "jcmd ", 5) != 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum pmaps_book books[] = {PMAPS_BOOK_GO, PMAPS_BOOK_JVM_NMT,
	                                        PMAPS_BOOK_JVM_HEAP, PMAPS_BOOK_MALLOC};
	static struct pmaps_books b;
	const char *text = (const char *)data + 1;
	enum pmaps_book k;
	char why[256];
	int rc;

	if (size < 1)
		return 0;
	if (data[0] % 5 == 4) {
		jcmd_failed(text, size - 1);
		return 0;
	}
	k = books[data[0] % 5];
	memset(&b, 0, sizeof(b));
	b.size = sizeof(b);
	why[0] = '\0';
	rc = pmaps_books_parse(&b, k, text, size - 1, why, sizeof(why));
	if (rc != 0) {
		/* Refused, said why, and nothing of it kept. */
		if (rc != -EBADMSG || why[0] == '\0' || b.head[k].ok || b.present[0] || b.present[1] ||
		    b.jvm_ncat)
			abort();
		return 0;
	}
	if (!b.head[k].ok)
		abort();
	switch (k) {
	case PMAPS_BOOK_GO:
		if (V(&b, GO_HEAP_IDLE) + V(&b, GO_HEAP_INUSE) != V(&b, GO_HEAP_SYS) ||
		    V(&b, GO_HEAP_RELEASED) > V(&b, GO_HEAP_IDLE) ||
		    V(&b, GO_HEAP_ALLOC) > V(&b, GO_HEAP_INUSE))
			abort();
		break;
	case PMAPS_BOOK_JVM_NMT:
		if (b.jvm_ncat > PMAPS_NMT_MAX || (b.jvm_nmt == PMAPS_NMT_ON) !=
		    pmaps_books_has(&b, PMAPS_BV_JVM_NMT_COMMITTED))
			abort();
		for (unsigned i = 0; i < b.jvm_ncat; i++)
			if (b.jvm_cat[i].committed > b.jvm_cat[i].reserved ||
			    memchr(b.jvm_cat[i].name, '\0', sizeof(b.jvm_cat[i].name)) == NULL)
				abort();
		break;
	case PMAPS_BOOK_JVM_HEAP:
		if (V(&b, JVM_HEAP_USED) > V(&b, JVM_HEAP_COMMITTED) ||
		    memchr(b.jvm_gc, '\0', sizeof(b.jvm_gc)) == NULL)
			abort();
		break;
	default:
		/* What malloc holds is what it uses and what it keeps free: nothing wraps. */
		if (V(&b, MALLOC_IN_USE) + V(&b, MALLOC_FREE_HELD) !=
		        V(&b, MALLOC_SYSTEM) + V(&b, MALLOC_MMAP_BYTES) ||
		    V(&b, MALLOC_FREE_HELD) != V(&b, MALLOC_FAST_BYTES) + V(&b, MALLOC_REST_BYTES))
			abort();
		break;
	}
	joins(&b);
	return 0;
}
