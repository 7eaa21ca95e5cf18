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

#endif
