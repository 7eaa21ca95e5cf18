/* SPDX-License-Identifier: MIT */
/*
 * sort.h - what pmaps maps --sort keeps of each row, and the order of rows
 * and groups (sort.c).
 */
#ifndef PMAPS_SORT_H
#define PMAPS_SORT_H

#include <stddef.h>
#include <stdint.h>

#include "pmaps.h"

enum {
	KEEP_END = 1u << 0,
	KEEP_PERMS = 1u << 1,
	KEEP_OFFSET = 1u << 2,
	KEEP_DEV = 1u << 3,
	KEEP_INODE = 1u << 4,
	KEEP_KIND = 1u << 5,
	KEEP_PATH = 1u << 6,
	KEEP_VMFLAGS = 1u << 7,
	KEEP_ALL = 1u << 8, /* JSON: row flags, VmFlags bits, unknown fields too */
};

struct skey {
	uint64_t key; /* the sort value; for path, the path's offset in the arena */
	size_t rec;   /* the row's offset in the record buffer */
};

struct buf {
	unsigned char *p;
	size_t len, cap;
};

struct sorter {
	int col, desc;
	unsigned keep;
	uint64_t fields;   /* bit (1 << f) of the smaps fields kept */
	struct skey *keys;
	size_t n, cap;
	struct buf rec;    /* the packed rows */
	struct buf paths;  /* paths: each a length (varint), then its bytes */
	size_t recent[256]; /* by hash: 1 + the offset of a path stored, or 0 */
};

/*
 * Starts a sorter by column COL that keeps what COLS (NCOLS of them) show,
 * or with KEEP_ALL every part of a row (JSON shows them all).
 */
void sorter_init(struct sorter *s, int col, int keep_all, const int *cols, int ncols);
/* Keeps row M. Returns 0 or -ENOMEM. */
int sorter_add(struct sorter *s, const struct pmaps_mapping *m);
/* Orders the rows kept: by the column, ties by address, then in the order read. */
void sorter_sort(struct sorter *s);
/* Rebuilds into M what row I kept; views point into the sorter. */
void sorter_get(const struct sorter *s, size_t i, struct pmaps_mapping *m);
void sorter_free(struct sorter *s);

/* Orders group rows by column COL (ties by key). */
void sort_groups(const struct pmaps_group_row **rows, size_t n, int col);

#endif
