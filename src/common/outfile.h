/* SPDX-License-Identifier: MIT */
/*
 * outfile.h - a file the user names for a whole document (an SVG picture):
 * checked before any reading starts, written only when the document is
 * whole, and never left empty, cut short or destroyed when pmaps fails.
 *
 *  - "-": standard output, written at the end.
 *  - A path that does not exist, or names a regular file: the document goes
 *    to a new file in the same directory (created at outfile_open(), so an
 *    unwritable directory fails first; nameless where the file system
 *    allows, O_TMPFILE, so that even a killed pmaps leaves nothing), renamed
 *    over PATH by outfile_commit(); on failure only that new file is
 *    removed. A file that was at PATH stays untouched until the commit
 *    replaces it, and the new one gets its permission bits (else 0666 less
 *    the umask). An existing file in a directory where no file can be
 *    made, but which the user may write, is written in place as below.
 *  - A symbolic link, or anything else that is not a regular file (a FIFO,
 *    a terminal, /dev/stdout): opened at outfile_open() without O_TRUNC
 *    (a FIFO's reader is not waited for: O_NONBLOCK, then cleared), and
 *    written at the end; a regular file behind a link is truncated at
 *    outfile_begin(), never before. The link itself is never replaced or
 *    removed.
 */
#ifndef PMAPS_OUTFILE_H
#define PMAPS_OUTFILE_H

#include <limits.h>
#include <stddef.h>

struct outfile {
	int fd;            /* where the document goes, once outfile_begin() returned 0 */
	int kind;          /* how (outfile.c) */
	const char *path;  /* as the user gave it */
	char tmp[PATH_MAX]; /* the new file, renamed over PATH at the commit */
	long long bytes;   /* after the commit: the file's size, -1 where it has none */
	int to_stdout;     /* "-": the document went to standard output */
};

/*
 * Checks PATH and opens what the document will be written to. Returns 0,
 * or a negative errno with a message (without PATH, which the caller
 * names) in MSG.
 */
int outfile_open(struct outfile *f, const char *path, char *msg, size_t msgsz);
/*
 * Right before the document is written: truncates a regular file reached
 * through a link. Returns 0 or a negative errno with MSG.
 */
int outfile_begin(struct outfile *f, char *msg, size_t msgsz);
/*
 * The document is whole in F->fd: makes it PATH (rename), or closes the
 * descriptor. Returns 0, or a negative errno with MSG (the document was not
 * stored; nothing is left behind but what was at PATH before).
 */
int outfile_commit(struct outfile *f, char *msg, size_t msgsz);
/*
 * After a commit: one line on stderr saying what was written, as
 * "pmaps: wrote PATH (SIZE): WHAT" (escaped), for a user who asked for a
 * file; nothing when the document went to standard output.
 */
void outfile_said(const struct outfile *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Gives up: removes the new file, closes the descriptor. Safe after a commit, and twice. */
void outfile_abort(struct outfile *f);

#endif
