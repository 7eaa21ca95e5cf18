/* SPDX-License-Identifier: MIT */
/*
 * phys_style.c - how pmaps phys shows each physical page state, in the
 * table, the SVG and the live view (phys.h): words, colours, characters,
 * and the state a picture's cell shows.
 */
#include <stdint.h>

#include "write/phys.h"
#include "write/svg.h"

/*
 * The states' words and colours (svg.h's palette where it has the state).
 * The words follow the state's name ("reserved 470M (1.8%): firmware, ..."):
 * they never say the name again. The 256-colour terminal colours are chosen
 * by hand, not the xterm colours nearest the SVG's: the SVG's black
 * (reserved) and near-white (free) vanish on a dark or a light terminal, and
 * its greys for hole and zero come out as one. Each is a mid tone, none 0,
 * 7, 15, 16 or 231, no two the same, neighbours apart.
 */
const struct phys_style phys_styles[PMAPS_PHYS_COUNT] = {
	[PMAPS_PHYS_HOLE] = {"no RAM here", "#d9d2e9", 146, 7, ' '},
	[PMAPS_PHYS_HWPOISON] = {"memory errors: out of use", "#ff00ff", 201, 5, '!'},
	[PMAPS_PHYS_OFFLINE] = {"given back: a balloon driver, unplugged", "#b39ddb", 135, 5, 'o'},
	[PMAPS_PHYS_RESERVED] = {"firmware, kernel image, early allocations", SVG_C_RESERVED, 95, 7,
	                         '#'},
	[PMAPS_PHYS_FREE] = {"unused (the buddy allocator's)", SVG_C_FREE, 250, 7, '.'},
	[PMAPS_PHYS_HUGETLB] = {"the pool of huge pages (nr_hugepages)", "#a04000", 130, 1, 'H'},
	[PMAPS_PHYS_SLAB] = {"kernel objects (kmalloc caches)", SVG_C_SLAB, 109, 6, 's'},
	[PMAPS_PHYS_PGTABLE] = {"page tables", "#34495e", 60, 6, 'p'},
	[PMAPS_PHYS_ZERO] = {"the shared read-only pages of zeros", SVG_C_ZERO, 246, 7, '0'},
	[PMAPS_PHYS_LAZYFREE] = {"anon freed with MADV_FREE", SVG_C_LAZYFREE, 220, 3, 'z'},
	[PMAPS_PHYS_ANON_THP] = {"anonymous, in large folios (THP)", SVG_C_HUGE, 208, 3, 'A'},
	[PMAPS_PHYS_ANON] = {"process memory: heaps, stacks, private", SVG_C_ANON, 68, 4, 'a'},
	[PMAPS_PHYS_SWAPCACHE] = {"on its way to or from swap", SVG_C_SWAP, 97, 5, 'w'},
	[PMAPS_PHYS_SHMEM] = {"tmpfs, shared anonymous, SysV", SVG_C_SHMEM, 37, 6, 'm'},
	[PMAPS_PHYS_FILE_THP] = {"page cache in large folios", "#145a32", 28, 2, 'F'},
	[PMAPS_PHYS_FILE_MAPPED] = {"page cache, mapped", SVG_C_FILE, 35, 2, 'f'},
	[PMAPS_PHYS_FILE] = {"page cache, not mapped", SVG_C_SHARED, 114, 2, 'c'},
	[PMAPS_PHYS_KERNEL] = {"none of the above: vmalloc, drivers", SVG_C_KERNEL, 240, 1, 'k'},
	[PMAPS_PHYS_UNINIT] = {"not yet initialised (deferred): mostly free",
	                       "#e3d7b8", 180, 3, 'u'},
};

unsigned phys_cell_state(const struct pmaps_phys_result *r, uint64_t first, uint64_t n)
{
	uint64_t count[PMAPS_PHYS_COUNT] = {0}, most = 0;
	unsigned tied[PMAPS_PHYS_COUNT], ntied = 0;

	/* Frames, not blocks' winners: a block has < 2^32 frames, no sum wraps. */
	for (uint64_t i = first; i < first + n && i < r->blocks; i++)
		for (unsigned s = 0; s < PMAPS_PHYS_COUNT; s++)
			count[s] += r->block_state[i * r->states + s];
	for (unsigned s = 0; s < PMAPS_PHYS_COUNT; s++)
		if (count[s] > most)
			most = count[s];
	if (!most)
		return PMAPS_PHYS_HOLE; /* no frame: past the end */
	for (unsigned s = 0; s < PMAPS_PHYS_COUNT; s++)
		if (count[s] == most)
			tied[ntied++] = s;
	/*
	 * A tie: the tied states take turns from cell to cell (by the cell's
	 * number), so evenly mixed memory shows as mixed, not as the state
	 * that comes first.
	 */
	return tied[(n ? first / n : 0) % ntied];
}
