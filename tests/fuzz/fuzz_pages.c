/* SPDX-License-Identifier: MIT */
/*
 * fuzz_pages.c - libFuzzer target for the page cursor's run coalescer: the
 * input is a pagemap (u64 entries) served through the pread hook, read in
 * pieces the input chooses, over a range it chooses. Runs must tile the
 * range exactly, in order, with neighbours that differ. A second seek to the
 * same range must give the same runs and the same end; a third, read in
 * pieces of another size, the same end, and the same runs when it is 0 (the
 * runs before a short read depend on where the pieces fall).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "testhooks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint8_t *pm_data;
static size_t pm_size, pm_piece;

static ssize_t mem_pread(int fd, void *buf, size_t len, off_t off)
{
	(void)fd;
	if ((size_t)off >= pm_size)
		return 0;
	if (len > pm_size - (size_t)off)
		len = pm_size - (size_t)off;
	if (pm_piece && len > pm_piece)
		len = pm_piece;
	memcpy(buf, pm_data + off, len);
	return (ssize_t)len;
}

/* One walk of the range: each run folded into a hash, the count and the end. */
struct walk {
	uint64_t hash, runs;
	int rc;
};

static uint64_t fold(uint64_t h, uint64_t v)
{
	for (int i = 0; i < 8; i++, v >>= 8)
		h = (h ^ (v & 0xff)) * 0x100000001b3ull;
	return h;
}

static void walk_add(struct walk *w, const struct pmaps_page_range *r)
{
	w->hash = fold(fold(fold(w->hash, r->start), r->end), r->flags);
	w->runs++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct pmaps_proc *proc;
	struct pmaps_pages *c;
	const struct pmaps_page_range *r;
	uint64_t start, end, at;
	unsigned prev = ~0u;
	struct walk first = {0xcbf29ce484222325ull, 0, 0}, again[2] = {first, first};
	int rc;

	if (size < 4)
		return 0;
	if (!proc && pmaps_proc_open(&proc, PMAPS_FUZZ_ROOT, "300") < 0)
		abort();
	/* Byte 0: piece size in entries (0: whole); 1-2: start page; 3: pages. */
	pm_piece = (size_t)data[0] * 8;
	start = ((uint64_t)data[1] | (uint64_t)data[2] << 8) << 12;
	end = start + ((uint64_t)data[3] << 12) + 1;
	pm_data = data + 4;
	pm_size = size - 4;
	pmaps__pread_hook = mem_pread;
	if (pmaps_pages_open(&c, proc, PMAPS_PAGES_PAGEMAP, 0) < 0)
		abort();
	if (pmaps_pages_seek(c, start, end) < 0)
		abort();
	at = start & ~0xfffull;
	while ((rc = pmaps_pages_next(c, &r)) > 0) {
		if (r->start != at || r->end <= r->start || (r->start & 0xfff) || (r->end & 0xfff))
			abort();
		if (r->flags == prev)
			abort();
		prev = r->flags;
		at = r->end;
		walk_add(&first, r);
	}
	if (rc == 0 && at != ((end + 0xfff) & ~0xfffull))
		abort();
	if (rc < 0 && rc != -EIO)
		abort();
	first.rc = rc;
	/* The same range again, in the same pieces, then in others (0 and 1 entry swap). */
	for (int k = 0; k < 2; k++) {
		struct walk *w = &again[k];
		int piece = k ? data[0] ^ 1 : data[0];
		pm_piece = (size_t)piece * 8;
		if (pmaps_pages_seek(c, start, end) < 0)
			abort();
		while ((rc = pmaps_pages_next(c, &r)) > 0)
			walk_add(w, r);
		w->rc = rc;
		if (w->rc != first.rc ||
		    ((k == 0 || rc == 0) && (w->hash != first.hash || w->runs != first.runs))) {
			fprintf(stderr, "seek again: %llu runs, end %d, in pieces of %d entries; the first "
			        "walk: %llu runs, end %d, in pieces of %d%s\n",
			        (unsigned long long)w->runs, w->rc, piece, (unsigned long long)first.runs,
			        first.rc, data[0], w->runs == first.runs ? " (the runs differ)" : "");
			abort();
		}
	}
	pmaps_pages_close(c);
	pmaps__pread_hook = NULL;
	return 0;
}
