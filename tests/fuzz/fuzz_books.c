/* SPDX-License-Identifier: MIT */
/*
 * fuzz_books.c - libFuzzer target for the parsers of the runtime's books:
 * Go's MemStats page (books_go.c), jcmd's NMT summary and GC.heap_info
 * (books_jvm.c), malloc_info()'s XML with the helper's header
 * (books_malloc.c). The first byte picks the parser, the rest is what a
 * target wrote. What a parser accepts keeps its own invariants; what it
 * refuses says why.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "books.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct book_go g;
	static struct book_jvm j;
	static struct book_malloc m;
	const char *text = (const char *)data + 1;
	char why[256];
	size_t len;
	int rc;

	if (size < 1)
		return 0;
	len = size - 1;
	why[0] = '\0';
	switch (data[0] % 4) {
	case 0:
		memset(&g, 0, sizeof(g));
		rc = book_go_parse(&g, text, len, why, sizeof(why));
		if (rc == 0 && (g.heap_idle + g.heap_inuse != g.heap_sys ||
		                g.heap_released > g.heap_idle || g.heap_alloc > g.heap_inuse))
			abort();
		break;
	case 1:
		memset(&j, 0, sizeof(j));
		rc = book_jvm_parse_nmt(&j, text, len, why, sizeof(why));
		if (rc == 0 && j.ncat > BOOK_JVM_CATS)
			abort();
		for (unsigned i = 0; rc == 0 && i < j.ncat; i++)
			if (j.cat[i].committed > j.cat[i].reserved ||
			    memchr(j.cat[i].name, '\0', sizeof(j.cat[i].name)) == NULL)
				abort();
		break;
	case 2:
		memset(&j, 0, sizeof(j));
		rc = book_jvm_parse_heap(&j, text, len, why, sizeof(why));
		if (rc == 0 && j.heap_ok && j.heap_used > j.heap_committed)
			abort();
		break;
	default:
		memset(&m, 0, sizeof(m));
		rc = book_malloc_parse(&m, text, len, why, sizeof(why));
		/* What malloc holds is what it uses and what it keeps free: nothing wraps. */
		if (rc == 0 && (m.in_use + m.free_held != m.system + m.mmap_bytes ||
		                m.free_held != m.fast_bytes + m.rest_bytes))
			abort();
		break;
	}
	if (rc != 0 && (rc != -EBADMSG || why[0] == '\0'))
		abort();
	return 0;
}
