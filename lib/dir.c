/* SPDX-License-Identifier: MIT */
/*
 * dir.c - a directory reader over getdents64(2) into a buffer the caller owns.
 *
 * opendir() and fdopendir() allocate their DIR with malloc(), past the
 * library's allocator hook, on every open: /proc/PID/task for each read of
 * a process whose main thread exited, /proc for each refresh of a process
 * list. This reader allocates nothing: the caller gives the buffer (on its
 * stack, or allocated once with a cursor) and the fd.
 *
 * getdents64 fills the buffer with records of the kernel's struct
 * linux_dirent64 (getdents64(2)): u64 d_ino, s64 d_off, u16
 * d_reclen, u8 d_type, then the NUL-terminated name, the record padded to
 * 8 bytes. The fields are copied out with memcpy so that a buffer of any
 * alignment works, and each record is checked against the bytes the call
 * returned (a fault-injection hook may hand back anything).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"
#include "testhooks.h"

/* Offsets in struct linux_dirent64. */
#define D_RECLEN 16
#define D_TYPE 18
#define D_NAME 19

pmaps__getdents_fn pmaps__getdents_hook;

static ssize_t getdents(int fd, void *buf, size_t len)
{
	ssize_t n;

	do
		n = pmaps__getdents_hook ? pmaps__getdents_hook(fd, buf, len)
		                         : syscall(SYS_getdents64, fd, buf, len);
	while (n < 0 && errno == EINTR);
	return n;
}

void pmaps__dir_init(struct pmaps__dir *d, int fd, char *buf, size_t cap)
{
	d->fd = fd;
	d->buf = buf;
	d->cap = cap;
	d->pos = d->len = 0;
	d->type = 0;
	d->eof = 0;
}

int pmaps__dir_open(struct pmaps__dir *d, int dirfd, const char *name, char *buf, size_t cap)
{
	int fd;

	pmaps__dir_init(d, -1, buf, cap);
	if (cap < PMAPS__DIR_MIN)
		return -EINVAL;
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	d->fd = fd;
	return 0;
}

int pmaps__dir_next(struct pmaps__dir *d, const char **name)
{
	for (;;) {
		unsigned short reclen;
		const char *rec, *nul;
		ssize_t n;

		if (d->pos >= d->len) {
			if (d->eof)
				return 0;
			n = getdents(d->fd, d->buf, d->cap);
			if (n < 0)
				return errno ? -errno : -EIO;
			if (n == 0) {
				d->eof = 1;
				return 0;
			}
			if ((size_t)n > d->cap)
				return -EIO;
			d->pos = 0;
			d->len = (size_t)n;
		}
		rec = d->buf + d->pos;
		if (d->len - d->pos <= D_NAME)
			return -EIO;
		memcpy(&reclen, rec + D_RECLEN, sizeof(reclen));
		if (reclen <= D_NAME || reclen > d->len - d->pos)
			return -EIO;
		nul = memchr(rec + D_NAME, '\0', reclen - D_NAME);
		if (!nul || nul == rec + D_NAME)
			return -EIO;
		d->pos += reclen;
		if (rec[D_NAME] == '.' && (nul == rec + D_NAME + 1 ||
		                           (rec[D_NAME + 1] == '.' && nul == rec + D_NAME + 2)))
			continue;
		d->type = (unsigned char)rec[D_TYPE];
		memcpy(&d->ino, rec, sizeof(d->ino));
		*name = rec + D_NAME;
		return 1;
	}
}

int pmaps__dir_rewind(struct pmaps__dir *d)
{
	d->pos = d->len = 0;
	d->eof = 0;
	if (lseek(d->fd, 0, SEEK_SET) < 0)
		return -errno;
	return 0;
}

void pmaps__dir_close(struct pmaps__dir *d)
{
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
}
