/* SPDX-License-Identifier: MIT */
/*
 * procs.c - the processes under a proc root, for a front end that lists
 * them again and again (top, serve).
 *
 * What it reads of each: the directory PROC_ROOT/PID (all digits; "self",
 * "sys" and the like are not processes, and threads are not listed there)
 * and its stat,
 *
 *   PID (COMM) S PPID PGRP SESSION TTY TPGID FLAGS ...
 *
 * where COMM is up to 63 bytes the process chose (prctl PR_SET_NAME, its
 * executable's name): spaces, parentheses and newlines included, so it
 * ends at the last ')'. FLAGS has PF_KTHREAD for kernel threads. The owner
 * of the directory is the process's effective uid (root when it is not
 * dumpable). A process that exits between its directory entry and its stat
 * is skipped: the list is of a moment that has passed anyway.
 *
 * Everything is allocated at open, in one block with the directory buffer;
 * listing and rewinding allocate nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

#define DIR_BUF (32u * 1024u) /* ~1300 pid entries per getdents64 call */

struct pmaps_procs {
	int rootfd;
	int live;              /* the root is a real procfs */
	struct pmaps__dir dir;
	struct pmaps_proc_info info;
	char stat[2048];       /* room for every field a kernel prints, comm at its longest */
	char buf[DIR_BUF];
};

int pmaps_procs_open(struct pmaps_procs **out, const char *proc_root)
{
	struct pmaps_procs *it;
	int fd, err;

	*out = NULL;
	if (!proc_root)
		proc_root = "/proc";
	fd = open(proc_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	it = pmaps__alloc(sizeof(*it));
	if (!it) {
		close(fd);
		return -ENOMEM;
	}
	it->rootfd = fd;
	it->live = pmaps__is_procfs(fd);
	/* The listing reads its own fd: ROOTFD stays for the openat()s. */
	err = pmaps__dir_open(&it->dir, fd, ".", it->buf, sizeof(it->buf));
	if (err < 0) {
		close(fd);
		pmaps__free(it);
		return err;
	}
	*out = it;
	return 0;
}

/* Gone, or never a process: skipped. */
static int vanished(int err)
{
	return err == -ENOENT || err == -ESRCH || err == -ENOTDIR || err == -ELOOP ||
	       err == -EACCES || err == -EPERM;
}

/*
 * Reads the process NAME (PID) into it->info. Returns 1, 0 to skip it, or
 * a negative errno.
 */
static int read_proc(struct pmaps_procs *it, const char *name, int pid)
{
	struct pmaps_proc_info *info = &it->info;
	struct pmaps__ident id;
	struct pmaps_view comm;
	struct stat st;
	ssize_t n;
	int dfd, fd, err;

	dfd = openat(it->rootfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (dfd < 0)
		return vanished(-errno) ? 0 : -errno;
	if (fstat(dfd, &st) < 0) {
		err = -errno;
		close(dfd);
		return vanished(err) ? 0 : err;
	}
	fd = pmaps__open_regular(dfd, "stat", it->live, NULL, 0);
	close(dfd);
	if (fd < 0)
		return vanished(fd) ? 0 : fd;
	n = pmaps__read(fd, it->stat, sizeof(it->stat));
	err = n < 0 ? -errno : 0;
	close(fd);
	if (n < 0)
		return vanished(err) ? 0 : err;
	if (n == 0)
		return 0; /* a live stat is never empty but once its process is gone */
	if (pmaps__parse_stat(it->stat, (size_t)n, &id, &comm) < 0)
		return -EBADMSG;
	info->pid = pid;
	info->uid = (uint32_t)st.st_uid;
	info->kernel_thread = id.kthread;
	info->state = id.state;
	info->ppid = id.ppid;
	info->comm_len = comm.len < sizeof(info->comm) ? comm.len : sizeof(info->comm) - 1;
	memcpy(info->comm, comm.ptr, info->comm_len);
	info->comm[info->comm_len] = '\0';
	return 1;
}

int pmaps_procs_next(struct pmaps_procs *it, const struct pmaps_proc_info **info)
{
	const char *name;
	int r, pid;

	for (;;) {
		r = pmaps__dir_next(&it->dir, &name);
		if (r <= 0)
			return r;
		pid = pmaps__parse_pid(name);
		if (pid <= 0)
			continue;
		r = read_proc(it, name, pid);
		if (r == 0)
			continue;
		if (r == 1)
			*info = &it->info;
		return r;
	}
}

int pmaps_procs_rewind(struct pmaps_procs *it)
{
	return pmaps__dir_rewind(&it->dir);
}

void pmaps_procs_close(struct pmaps_procs *it)
{
	if (!it)
		return;
	pmaps__dir_close(&it->dir);
	close(it->rootfd);
	pmaps__free(it);
}
