/* SPDX-License-Identifier: MIT */
/*
 * count_alloc.h - an allocator hook for pmaps_set_allocator() that counts
 * the library's allocations, for tests that say when it may allocate.
 */
#ifndef PMAPS_COUNT_ALLOC_H
#define PMAPS_COUNT_ALLOC_H

#include <stdlib.h>

static unsigned long allocs;

static void *count_alloc(size_t size, void *ctx)
{
	(void)ctx;
	allocs++;
	return malloc(size);
}

static void count_free(void *ptr, void *ctx)
{
	(void)ctx;
	free(ptr);
}

#endif
