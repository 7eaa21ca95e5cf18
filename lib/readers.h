/* SPDX-License-Identifier: MIT */
/*
 * readers.h - the small readers explain uses besides the maps and page
 * cursors: the threads' stack pointers (task.c), the files a process names
 * (files.c), Go's build info in its executable (elf.c) and a JVM's
 * hsperfdata file (hsperf.c). Not API. Each is bounded, reads through the
 * library's read hooks, and allocates only where said.
 */
#ifndef PMAPS_READERS_H
#define PMAPS_READERS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "internal.h"

/* ---- files.c ---- */

/*
 * Test knob: take the path for kernels before openat2 (Linux 5.6), which
 * walks a name one component at a time with O_NOFOLLOW.
 */
extern int pmaps__explain_no_openat2;

/* A file a process maps, as its maps line names it. */
struct pmaps__mapped {
	char path[PMAPS_EXPLAIN_PATH]; /* the whole name: any the kernel shows fits */
	uint64_t start, end;           /* the mapping */
	uint64_t inode;
	uint32_t dev_major, dev_minor;
};

/*
 * Opens for reading the file PROC maps as F: through /proc/PID/map_files/
 * START-END where the privilege allows (CAP_SYS_ADMIN, or
 * CAP_CHECKPOINT_RESTORE), which is the mapped file even when unlinked; else
 * by F's path beneath the process's root (PID/root in a fixture tree), no
 * symlink followed. Either way only that regular file (F's device and inode,
 * when its inode is not 0) is opened, O_NONBLOCK. ST gets its status.
 * Returns the descriptor or a negative errno (-EPERM: not that regular file).
 */
int pmaps__open_mapped(const struct pmaps_proc *proc, const struct pmaps__mapped *f,
                       struct stat *st);

/* Opens PROC's executable for reading, the same way: a regular file only. */
int pmaps__open_exe(const struct pmaps_proc *proc, struct stat *st);

/* The little-endian number of N bytes at P. */
uint64_t pmaps__le(const unsigned char *p, int n);

/* 1 when N bytes at OFF, inside a file of SIZE bytes, were read whole; else 0. */
int pmaps__pread_in(int fd, void *buf, size_t n, uint64_t off, uint64_t size);

/* ---- elf.c ---- */

/*
 * Go: 1 when PROC's executable has a .go.buildinfo section, with the Go
 * version in VERSION ("" before Go 1.18); else 0.
 */
int pmaps__go_buildinfo(const struct pmaps_proc *proc, char *version, size_t vsize);

/* ---- hsperf.c ---- */

/* 1 when the name is a JVM's hsperfdata file ("/tmp/hsperfdata_USER/PID"). */
int pmaps__is_hsperfdata(const struct pmaps_view *path);

/*
 * The JVM's heap size from the hsperfdata file F maps, and its collector's
 * name into GC (NUL-terminated, bytes the target chose). 0 when not known.
 */
uint64_t pmaps__jvm_heap_size(const struct pmaps_proc *proc, const struct pmaps__mapped *f,
                              char *gc, size_t gcsize);

/* ---- status.c ---- */

/*
 * pmaps_status_read() of an open status file FD (not closed here), for a
 * caller that tells a file it could not open from one it could not parse.
 */
int pmaps__status_parse(int fd, struct pmaps_status *st, char *msg, size_t msgsz);

/* What a survey reads of status besides the figures: who the process is. */
struct pmaps__status_who {
	char name[64];     /* Name:, its \n and \\ (the kernel's escapes) undone */
	size_t name_len;
	char state;        /* State: R S D Z T t X I; 0 when not read */
	int kthread;       /* Kthread: 1 (6.9+), or 0 */
};
/*
 * Reads FD to its end, line by line through BUF (CAP bytes): LINE(CTX, P,
 * NL) for each line [P, NL), the last one without its newline too; a line
 * longer than BUF is skipped whole. LINE returns 0 to go on, or 1 when no
 * later line matters: nothing more is read. Returns 0, or a negative errno
 * of a read().
 */
int pmaps__read_lines(int fd, char *buf, size_t cap,
                      int (*line)(void *ctx, const char *p, const char *nl), void *ctx);
/* pmaps__status_parse() that also fills WHO. */
int pmaps__status_parse_who(int fd, struct pmaps_status *st, struct pmaps__status_who *who,
                            char *msg, size_t msgsz);

/* ---- meminfo.c ---- */

/* pmaps_meminfo_read() of an open meminfo file FD (not closed here). */
int pmaps__meminfo_parse(int fd, struct pmaps_meminfo *mi, char *msg, size_t msgsz);

/* ---- task.c ---- */

/*
 * The threads' stack pointers, in an array the owner keeps across reads:
 * it grows (doubling) only when a read sees more threads than any before.
 */
struct pmaps__sps {
	uint64_t *sp;        /* sorted; those that could not be read are 0s, first */
	size_t cap;
	unsigned n;          /* tasks listed */
	unsigned unreadable; /* how many of them are 0s */
};

/*
 * Reads every task's stack pointer of PROC from /proc/PID/task/TID/syscall
 * into S. A tree without task/ has no threads (S->n 0). Returns 0 or a
 * negative errno (-ENOMEM, or the directory's read error).
 */
int pmaps__sps_read(const struct pmaps_proc *proc, struct pmaps__sps *s);

/* 1 when a stack pointer read lies in [START, END). */
int pmaps__sps_holds(const struct pmaps__sps *s, uint64_t start, uint64_t end);

/* Frees the array. */
void pmaps__sps_free(struct pmaps__sps *s);

/* ---- books.c, books_go.c, books_jvm.c, books_malloc.c: the runtime's books ---- */

/* A runtime figure past this is out of range: sums of a few of them never wrap. */
#define PMAPS__BOOK_FIGURE_MAX (UINT64_C(1) << 62)

/* Sets figure V of B to X (and its present bit). */
void pmaps__books_put(struct pmaps_books *b, enum pmaps_book_value v, uint64_t x);

/*
 * The parsers behind pmaps_books_parse(): TEXT of LEN bytes (not NULL) into
 * B, whose book's figures the caller cleared. 0, or -EBADMSG with MSG.
 */
int pmaps__books_parse_go(struct pmaps_books *b, const char *text, size_t len, char *msg,
                          size_t msgsz);
int pmaps__books_parse_jvm_heap(struct pmaps_books *b, const char *text, size_t len, char *msg,
                                size_t msgsz);
int pmaps__books_parse_jvm_nmt(struct pmaps_books *b, const char *text, size_t len, char *msg,
                               size_t msgsz);
int pmaps__books_parse_malloc(struct pmaps_books *b, const char *text, size_t len, char *msg,
                              size_t msgsz);

/* Whether PROC maps HotSpot's libjvm.so: 1, 0, or a negative errno (MSG, which may be NULL). */
int pmaps__maps_libjvm(struct pmaps_proc *proc, char *msg, size_t msgsz);

/*
 * Whether PROC's file NAME (cmdline, environ, maps) holds the N bytes at
 * NEEDLE (1 to 64), read to its end through a fixed buffer: 1, 0, or a
 * negative errno.
 */
int pmaps__proc_file_has(const struct pmaps_proc *proc, const char *name, const char *needle,
                         size_t n);

#endif
