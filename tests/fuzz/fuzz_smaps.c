/* SPDX-License-Identifier: MIT */
/*
 * fuzz_smaps.c - libFuzzer target for the maps/smaps/smaps_rollup parser.
 *
 * Input: byte 0 picks the source (bits 0-1) and a 4096-byte buffer (bit 7),
 * byte 1 the size of each piece the text arrives in (0: all at once); the
 * rest is the text. Every row is checked for the parser's invariants and fed
 * to the three groupings. The ordinary test run replays the committed corpus.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "testhooks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok)
{
	if (!ok)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pmaps_maps *c;
	struct pmaps_group *g[3];
	const struct pmaps_mapping *m;
	enum pmaps_source src;
	uint64_t sum = 0;
	int r;

	if (size < 2)
		return 0;
	src = (enum pmaps_source)((data[0] & 3) % 3);
	if (pmaps__maps_open_mem(&c, src, data + 2, size - 2, (data[0] & 0x80) ? 4096 : 0) < 0)
		return 0;
	pmaps__maps_set_chunk(c, data[1]);
	for (int i = 0; i < 3; i++)
		check(pmaps_group_open(&g[i], (enum pmaps_group_by)i) == 0);
	while ((r = pmaps_maps_next(c, &m)) > 0) {
		check(m->start <= m->end);
		check(m->path.len < PMAPS_PATH_BUF && m->path.ptr[m->path.len] == '\0');
		check(m->n_unknown <= PMAPS_MAX_UNKNOWN);
		check((unsigned)m->kind < PMAPS_KIND_COUNT);
		check(m->vm_flags_text.len < PMAPS_VMFLAGS_BUF);
		check((m->present >> PMAPS_F_COUNT) == 0);
		for (int f = 0; f < PMAPS_F_COUNT; f++)
			check((m->present & (1ull << f)) || m->v[f] == 0);
		for (unsigned i = 0; i < m->n_unknown; i++)
			sum += m->unknown[i].name.len + m->unknown[i].text.len;
		for (int i = 0; i < 3; i++)
			check(pmaps_group_add(g[i], m) == 0);
		sum += m->v[PMAPS_F_RSS];
	}
	check(r == 0 || r == -EBADMSG);
	check(r == 0 || strstr(pmaps_maps_errmsg(c), "line ") != NULL);
	for (int i = 0; i < 3; i++) {
		for (size_t k = 0; k < pmaps_group_count(g[i]); k++)
			sum += pmaps_group_get(g[i], k)->mappings;
		pmaps_group_close(g[i]);
	}
	/* A rewind gives the same end. */
	check(pmaps_maps_rewind(c) == 0);
	while (pmaps_maps_next(c, &m) > 0)
		;
	pmaps_maps_close(c);
	return sum == 42 ? 0 : 0;
}
