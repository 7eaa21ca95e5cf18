/* SPDX-License-Identifier: MIT */
/*
 * outfile.c - the file a picture goes to (outfile.h).
 *
 * Why a new file renamed over the old one: a picture is written only after
 * a walk or a watch that may fail, and the user's file must not pay for
 * that. rename(2) replaces a regular file in one step, so PATH always holds
 * either the old file or the whole new one. It is only used where PATH is
 * known to be no link: rename(2) never follows a link at its destination,
 * it replaces the link itself, which is not what the user asked for. A
 * link, a FIFO or a device is opened as it is and written to at the end.
 *
 * The new file is made nameless where the file system can (O_TMPFILE,
 * Linux >= 3.11 on ext4, xfs, btrfs, tmpfs): a pmaps killed before the
 * commit leaves nothing behind. At the commit it gets a hidden name next to
 * PATH (".NAME.XXXXXX", linkat) and is renamed over PATH. Elsewhere it is
 * made with that name at once (mkostemp), and removed on failure.
 *
 * An existing regular file in a directory where no new file can be made
 * (a read-only directory, a file the user may write in someone else's
 * directory) is written in place as a link's target is: opened now,
 * truncated only at outfile_begin().
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/outfile.h"
#include "common/tool.h"

enum {
	OF_NONE,    /* nothing open: committed, aborted or never opened */
	OF_STDOUT,  /* "-" */
	OF_NEW,     /* F->tmp, renamed over PATH at the commit */
	OF_ANON,    /* a nameless new file (O_TMPFILE): named F->tmp at the commit, then as OF_NEW */
	OF_LINKED,  /* a regular file reached through a link: truncated at the begin */
	OF_STREAM,  /* a FIFO, a terminal, a device: written as it is */
};

/* The message names no path: the caller names the option and its file. */
static int fail(char *msg, size_t msgsz, int err, const char *what)
{
	if (msg && msgsz)
		snprintf(msg, msgsz, "%s: %s", what, strerror(err));
	return -err;
}

/*
 * The new file's mode: 0666 less the umask, as open(O_CREAT) gives, or
 * the permission bits of the file it replaces (what a truncating open
 * would have kept). umask() is set back at once; pmaps runs no other
 * thread that creates files at this point.
 */
static mode_t new_mode(const struct stat *old)
{
	mode_t m;

	if (old)
		return old->st_mode & 0777;
	m = umask(0);
	umask(m);
	return 0666 & ~m;
}

/*
 * F->tmp = ".NAME.XXXXXX" next to PATH, the name cut so that it stays
 * within NAME_MAX. With DIR_ONLY: PATH's directory ("." for none).
 */
static int tmp_name(struct outfile *f, int dir_only, char *msg, size_t msgsz)
{
	const char *slash = strrchr(f->path, '/'), *base = slash ? slash + 1 : f->path;
	size_t dirlen = slash ? (size_t)(slash - f->path) + 1 : 0, blen = strlen(base);
	int n;

	if (blen == 0)
		return fail(msg, msgsz, EISDIR, "names a directory");
	if (blen > 200)
		blen = 200;
	if (dir_only)
		n = dirlen ? snprintf(f->tmp, sizeof(f->tmp), "%.*s", (int)dirlen, f->path)
		           : snprintf(f->tmp, sizeof(f->tmp), ".");
	else
		n = snprintf(f->tmp, sizeof(f->tmp), "%.*s.%.*s.XXXXXX", (int)dirlen, f->path,
		             (int)blen, base);
	if (n < 0 || (size_t)n >= sizeof(f->tmp)) {
		f->tmp[0] = '\0';
		return fail(msg, msgsz, ENAMETOOLONG, "the name is too long");
	}
	return 0;
}

static int open_as_is(struct outfile *f, char *msg, size_t msgsz);

/* An error that says no new file may be made in the directory, though a file there may be written. */
static int cannot_create(int err)
{
	return err == EACCES || err == EPERM || err == EROFS;
}

static int open_new(struct outfile *f, const struct stat *old, char *msg, size_t msgsz)
{
	int err = tmp_name(f, 1, msg, msgsz);

	if (err)
		return err;
	f->fd = open(f->tmp, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	f->tmp[0] = '\0';
	if (f->fd >= 0) {
		f->kind = OF_ANON;
	} else if (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL) {
		/* No O_TMPFILE here: a named file at once. */
		if ((err = tmp_name(f, 0, msg, msgsz)))
			return err;
		f->fd = mkostemp(f->tmp, O_CLOEXEC);
		if (f->fd < 0)
			f->tmp[0] = '\0';
		else
			f->kind = OF_NEW;
	}
	if (f->fd < 0) {
		err = errno;
		if (old && cannot_create(err) && access(f->path, W_OK) == 0)
			return open_as_is(f, msg, msgsz);
		return fail(msg, msgsz, err, "cannot create a file in its directory");
	}
	if (fchmod(f->fd, new_mode(old)) < 0) {
		err = errno;
		outfile_abort(f);
		return fail(msg, msgsz, err, "cannot set the new file's mode");
	}
	return 0;
}

/* Gives the nameless file F->fd a hidden name next to PATH, in F->tmp. */
static int name_anon(struct outfile *f, char *msg, size_t msgsz)
{
	static const char abc[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	char proc[64];
	int err = 0;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", f->fd);
	for (int tries = 0; tries < 100; tries++) {
		unsigned char r[6];
		size_t n;
		if ((err = tmp_name(f, 0, msg, msgsz)))
			return err;
		if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
			for (size_t i = 0; i < sizeof(r); i++)
				r[i] = (unsigned char)(getpid() + tries * 7 + (int)i * 13);
		n = strlen(f->tmp);
		for (size_t i = 0; i < 6; i++)
			f->tmp[n - 6 + i] = abc[r[i] % (sizeof(abc) - 1)];
		/* Through /proc: linkat(AT_EMPTY_PATH) would need CAP_DAC_READ_SEARCH. */
		if (linkat(AT_FDCWD, proc, AT_FDCWD, f->tmp, AT_SYMLINK_FOLLOW) == 0 ||
		    (errno == ENOENT && linkat(f->fd, "", AT_FDCWD, f->tmp, AT_EMPTY_PATH) == 0)) {
			f->kind = OF_NEW;
			return 0;
		}
		err = errno;
		if (err != EEXIST)
			break;
	}
	f->tmp[0] = '\0';
	return fail(msg, msgsz, err, "cannot name the new file");
}

/* A link or a special file: opened as it is, never created, never truncated here. */
static int open_as_is(struct outfile *f, char *msg, size_t msgsz)
{
	struct stat st;
	int err, fl;

	/* O_NONBLOCK: a FIFO nobody reads fails with ENXIO instead of hanging. */
	f->fd = open(f->path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (f->fd < 0) {
		err = errno;
		if (err == ENXIO)
			return fail(msg, msgsz, err, "nothing reads from it");
		if (err == ENOENT)
			return fail(msg, msgsz, err, "a link to nothing");
		return fail(msg, msgsz, err, "cannot open it");
	}
	f->kind = OF_STREAM;
	fl = fcntl(f->fd, F_GETFL);
	if (fl < 0 || fcntl(f->fd, F_SETFL, fl & ~O_NONBLOCK) < 0 || fstat(f->fd, &st) < 0) {
		err = errno;
		outfile_abort(f);
		return fail(msg, msgsz, err, "cannot open it");
	}
	if (S_ISDIR(st.st_mode)) {
		outfile_abort(f);
		return fail(msg, msgsz, EISDIR, "names a directory");
	}
	if (S_ISREG(st.st_mode))
		f->kind = OF_LINKED;
	return 0;
}

int outfile_open(struct outfile *f, const char *path, char *msg, size_t msgsz)
{
	struct stat st;

	f->fd = -1;
	f->kind = OF_NONE;
	f->path = path;
	f->tmp[0] = '\0';
	if (msg && msgsz)
		msg[0] = '\0';
	if (strcmp(path, "-") == 0) {
		if (fcntl(STDOUT_FILENO, F_GETFL) < 0)
			return fail(msg, msgsz, EBADF, "standard output is closed");
		f->fd = STDOUT_FILENO;
		f->kind = OF_STDOUT;
		return 0;
	}
	if (path[0] == '\0')
		return fail(msg, msgsz, ENOENT, "an empty file name");
	if (lstat(path, &st) < 0) {
		if (errno != ENOENT)
			return fail(msg, msgsz, errno, "cannot look at it");
		return open_new(f, NULL, msg, msgsz);
	}
	if (S_ISDIR(st.st_mode))
		return fail(msg, msgsz, EISDIR, "names a directory");
	if (S_ISREG(st.st_mode))
		return open_new(f, &st, msg, msgsz);
	return open_as_is(f, msg, msgsz);
}

int outfile_begin(struct outfile *f, char *msg, size_t msgsz)
{
	if (msg && msgsz)
		msg[0] = '\0';
	if (f->kind == OF_NONE)
		return fail(msg, msgsz, EBADF, "the file is not open");
	if (f->kind != OF_LINKED)
		return 0;
	/* The seek matters to a descriptor without O_APPEND; with it, it does no harm. */
	if (ftruncate(f->fd, 0) < 0 || lseek(f->fd, 0, SEEK_SET) < 0)
		return fail(msg, msgsz, errno, "cannot empty the file");
	return 0;
}

int outfile_commit(struct outfile *f, char *msg, size_t msgsz)
{
	struct stat st;
	int err, fd = f->fd;

	if (msg && msgsz)
		msg[0] = '\0';
	f->bytes = f->kind != OF_STDOUT && fstat(fd, &st) == 0 && S_ISREG(st.st_mode)
	                   ? (long long)st.st_size
	                   : -1;
	f->to_stdout = f->kind == OF_STDOUT;
	switch (f->kind) {
	case OF_STDOUT:
		f->kind = OF_NONE;
		f->fd = -1;
		return 0;
	case OF_LINKED:
	case OF_STREAM:
		f->kind = OF_NONE;
		f->fd = -1;
		/* A file system may say no only now (NFS, a full disk): never a silently cut file. */
		if (close(fd) < 0)
			return fail(msg, msgsz, errno, "writing the file");
		return 0;
	case OF_ANON:
		if ((err = name_anon(f, msg, msgsz)) < 0) {
			outfile_abort(f);
			return err;
		}
		break;
	case OF_NEW:
		break;
	default:
		return fail(msg, msgsz, EBADF, "the file is not open");
	}
	f->fd = -1;
	if (close(fd) < 0) {
		err = errno;
		outfile_abort(f);
		return fail(msg, msgsz, err, "writing the file");
	}
	/*
	 * PATH was no link at the open; if a link or anything but a file came
	 * there since, rename(2) would replace it: refuse instead.
	 */
	if (lstat(f->path, &st) == 0 && !S_ISREG(st.st_mode)) {
		outfile_abort(f);
		return fail(msg, msgsz, EEXIST, "something other than a file appeared there");
	}
	if (rename(f->tmp, f->path) < 0) {
		err = errno;
		outfile_abort(f);
		return fail(msg, msgsz, err, "cannot put the file in place");
	}
	f->tmp[0] = '\0';
	f->kind = OF_NONE;
	return 0;
}

void outfile_said(const struct outfile *f, const char *fmt, ...)
{
	char what[512], size[32] = "";
	va_list ap;

	if (f->to_stdout)
		return;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (f->bytes >= 0) {
		size[0] = ' ';
		size[1] = '(';
		size_t n = 2 + fmt_human(size + 2, (uint64_t)f->bytes);
		snprintf(size + n, sizeof(size) - n, ")");
	}
	die_msg("wrote %s%s: %s", f->path, size, what);
}

void outfile_abort(struct outfile *f)
{
	if (f->kind == OF_NEW && f->tmp[0])
		unlink(f->tmp);
	f->tmp[0] = '\0';
	/* By the kind, not the fd: a zeroed struct outfile has fd 0. */
	if (f->kind != OF_NONE && f->kind != OF_STDOUT && f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	f->kind = OF_NONE;
}
