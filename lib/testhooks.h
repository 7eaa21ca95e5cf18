/* SPDX-License-Identifier: MIT */
/*
 * testhooks.h - the knobs libpmaps' tests, fuzz targets and benchmarks turn:
 * fault injection into the library's reads, and cursors over text in memory.
 * Not API, and not for the library's own files but those that implement
 * them: a program that links libpmaps never sets any of these.
 */
#ifndef PMAPS_TESTHOOKS_H
#define PMAPS_TESTHOOKS_H

#include <stddef.h>
#include <sys/types.h>

#include "pmaps.h"

/*
 * getdents64(2), or its hook, for every directory the library lists
 * (lib/dir.c): returns what the system call would, with errno set on -1.
 */
typedef ssize_t (*pmaps__getdents_fn)(int fd, void *buf, size_t len);
extern pmaps__getdents_fn pmaps__getdents_hook;

/*
 * read(2), or its hook, for every read the library makes of a text file
 * (pmaps__read()); it returns what read(2) would, with errno set on -1.
 */
typedef ssize_t (*pmaps__read_fn)(int fd, void *buf, size_t len);
extern pmaps__read_fn pmaps__read_hook;
/* pread(2), or its hook: the page reader's reads of pagemap and kpage*. */
typedef ssize_t (*pmaps__pread_fn)(int fd, void *buf, size_t len, off_t off);
extern pmaps__pread_fn pmaps__pread_hook;

/*
 * ioctl(2), or its hook, for every PAGEMAP_SCAN call of a walk
 * (pmaps__scan()); it returns what ioctl(2) would, with errno set on -1.
 */
typedef int (*pmaps__ioctl_fn)(int fd, unsigned long request, void *arg);
extern pmaps__ioctl_fn pmaps__scan_hook;

/*
 * The smallest size the library takes for a struct the caller sizes
 * (pmaps.h, Conventions), or 0: each struct's ABI-0 size. Set, it lets a
 * test play a program built with a shorter struct than the library's, as
 * programs built with ABI 0 will be to a later library.
 */
extern size_t pmaps__size0_hook;

/*
 * Take the page sources' paths for older kernels: the maps text without
 * the PROCMAP_QUERY ioctl (before Linux 6.11), a page cursor reading
 * pagemap per mapping instead of PAGEMAP_SCAN (6.7); or the VMA list of
 * 6.11 to 6.16, PROCMAP_QUERY for every mapping (PROCMAP_QUERY_LIST).
 * Read when a cursor is opened.
 */
extern int pmaps__no_procmap_query;
extern int pmaps__procmap_query_list;
extern int pmaps__no_pagemap_scan;

/*
 * A cursor over text in memory instead of a file (the fuzz targets and the
 * parser tests). DATA must outlive the cursor; rewind starts it over.
 */
int pmaps__maps_open_mem(struct pmaps_maps **out, enum pmaps_source source,
                         const void *data, size_t len, size_t bufsize);

/*
 * pmaps_books_go_listeners() on a proc tree that is no live procfs (a test's
 * fixture): its listeners are listed, where a program would be told -EXDEV
 * (another machine's loopback is not this one's). A tree without ns/net
 * has no namespace to compare.
 */
extern int pmaps__listeners_in_trees;

/* Hand in-memory text over in pieces of at most N bytes (0: all at once). */
void pmaps__maps_set_chunk(struct pmaps_maps *c, size_t n);

#endif
