/* SPDX-License-Identifier: MIT */
/*
 * files.c - opening the files a target names, and reading them within bounds.
 *
 * Two readers read files a process names rather than files of /proc: its
 * executable (elf.c: Go's build info) and a JVM's hsperfdata file
 * (hsperf.c). The target controls their names and what is at them (a
 * symlink to /etc/shadow, a FIFO, a device node put where an unlinked file
 * was), and pmaps often runs as root: such a file is opened first with
 * O_PATH, which runs no driver or FIFO open, reached through the kernel's
 * own reference (/proc/PID/exe, /proc/PID/map_files/START-END) or by its
 * name with no symlink followed (openat2 RESOLVE_NO_SYMLINKS beneath
 * /proc/PID/root); only a regular file, the very one mapped where that is
 * known, is then opened for reading (non-blocking), and read within bounds.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "internal.h"
#include "readers.h"

#ifndef SYS_openat2
#define SYS_openat2 437 /* Linux 5.6, the same number on every architecture */
#endif

/* How files of the target are opened for reading: never blocking, never a terminal. */
#define READ_FLAGS (O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)

int pmaps__explain_no_openat2;

/*
 * An O_PATH descriptor on REL (relative, no "." or ".." components) under
 * DIRFD, no symlink followed on the way or at the end. Returns it, or a
 * negative errno (-ELOOP for a symlink).
 */
static int opath_nofollow(int dirfd, const char *rel)
{
	struct open_how how = {
		.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	char comp[256];
	int cur = dirfd;

	if (!pmaps__explain_no_openat2) {
		long fd = syscall(SYS_openat2, dirfd, rel, &how, sizeof(how));
		if (fd >= 0)
			return (int)fd;
		if (errno != ENOSYS)
			return -errno;
	}
	/* Before Linux 5.6: each directory by O_PATH|O_NOFOLLOW, so a symlink is no directory. */
	for (const char *p = rel;;) {
		const char *e;
		size_t n;
		int last, fd;
		while (*p == '/')
			p++;
		e = strchr(p, '/');
		n = e ? (size_t)(e - p) : strlen(p);
		while (e && e[1] == '/')
			e++;
		last = !e || e[1] == '\0';
		if (n == 0 || n >= sizeof(comp) || (n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.')) {
			if (cur != dirfd)
				close(cur);
			return n >= sizeof(comp) ? -ENAMETOOLONG : -EXDEV;
		}
		memcpy(comp, p, n);
		comp[n] = '\0';
		fd = openat(cur, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC | (last ? 0 : O_DIRECTORY));
		if (fd < 0)
			fd = -errno;
		if (cur != dirfd)
			close(cur);
		if (fd < 0 || last)
			return fd;
		cur = fd;
		p = e + 1;
	}
}

/*
 * Opens for reading the file the O_PATH descriptor P refers to (closed
 * here), when it is a regular file and, with INODE non-zero, that very file:
 * reopened through /proc/self/fd, the kernel's reference to it, so no name
 * is looked up again and nothing else can have been put there meanwhile.
 * ST gets its status. Returns the descriptor or a negative errno.
 */
static int open_regular(int p, uint64_t inode, unsigned dev_major, unsigned dev_minor,
                        struct stat *st)
{
	char self[48];
	struct stat st2;
	int fd = -EINVAL;

	if (p < 0)
		return p;
	if (fstat(p, st) != 0)
		fd = -errno;
	else if (!S_ISREG(st->st_mode) ||
	         (inode && (st->st_ino != inode || major(st->st_dev) != dev_major ||
	                    minor(st->st_dev) != dev_minor)))
		fd = -EPERM;
	else {
		snprintf(self, sizeof(self), "/proc/self/fd/%d", p);
		fd = open(self, READ_FLAGS);
		if (fd < 0) {
			fd = -errno;
		} else if (fstat(fd, &st2) != 0 || st2.st_ino != st->st_ino ||
		           st2.st_dev != st->st_dev) {
			close(fd);
			fd = -EPERM;
		}
	}
	close(p);
	return fd;
}

int pmaps__open_mapped(const struct pmaps_proc *proc, const struct pmaps__mapped *f,
                       struct stat *st)
{
	char name[64];
	int p = -1, root;

	if (proc->live) {
		snprintf(name, sizeof(name), "map_files/%llx-%llx", (unsigned long long)f->start,
		         (unsigned long long)f->end);
		p = openat(proc->dirfd, name, O_PATH | O_CLOEXEC);
		if (p >= 0)
			return open_regular(p, f->inode, f->dev_major, f->dev_minor, st);
	}
	if (f->path[0] != '/')
		return -ENOENT;
	/* ROOT is a magic link on procfs (followed: it is the kernel's); in a fixture, nothing is. */
	root = openat(proc->dirfd, "root", O_PATH | O_DIRECTORY | O_CLOEXEC |
	                                   (proc->live ? 0 : O_NOFOLLOW));
	if (root < 0)
		return -errno;
	p = opath_nofollow(root, f->path + 1);
	close(root);
	return open_regular(p, f->inode, f->dev_major, f->dev_minor, st);
}

int pmaps__open_exe(const struct pmaps_proc *proc, struct stat *st)
{
	/* /proc/PID/exe is the kernel's reference on procfs; a fixture's may be no symlink. */
	int p = openat(proc->dirfd, "exe", O_PATH | O_CLOEXEC | (proc->live ? 0 : O_NOFOLLOW));

	return open_regular(p < 0 ? -errno : p, 0, 0, 0, st);
}

uint64_t pmaps__le(const unsigned char *p, int n)
{
	uint64_t v = 0;

	while (n-- > 0)
		v = v << 8 | p[n];
	return v;
}

int pmaps__pread_in(int fd, void *buf, size_t n, uint64_t off, uint64_t size)
{
	if (off > size || n > size - off)
		return 0;
	return pmaps__pread(fd, buf, n, (off_t)off) == (ssize_t)n;
}
