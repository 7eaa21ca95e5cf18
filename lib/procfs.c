/* SPDX-License-Identifier: MIT */
/*
 * procfs.c - the process handle, the allocator hook and the reads libpmaps makes.
 *
 * A handle holds a directory fd on ROOT/PID; every file is opened from it
 * with openat(), so a pid reused after the process died is never read by
 * mistake (lookups under a dead process's directory fail with ENOENT/ESRCH).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "parse.h"
#include "testhooks.h"

/* Hex digit value plus one; 0 for anything else (so the rest needs no initialiser). */
const unsigned char pmaps__hex_table[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7,
	['7'] = 8, ['8'] = 9, ['9'] = 10,
	['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
	['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

static void *(*alloc_hook)(size_t, void *);
static void (*free_hook)(void *, void *);
static void *hook_ctx;

void pmaps_set_allocator(void *(*alloc_fn)(size_t, void *), void (*free_fn)(void *, void *),
                         void *ctx)
{
	alloc_hook = alloc_fn;
	free_hook = free_fn;
	hook_ctx = ctx;
}

static uint64_t alloc_count;

void *pmaps__alloc(size_t size)
{
	__atomic_add_fetch(&alloc_count, 1, __ATOMIC_RELAXED);
	return alloc_hook ? alloc_hook(size, hook_ctx) : malloc(size);
}

uint64_t pmaps__alloc_count(void)
{
	return __atomic_load_n(&alloc_count, __ATOMIC_RELAXED);
}

void pmaps__free(void *ptr)
{
	if (!ptr)
		return;
	if (free_hook)
		free_hook(ptr, hook_ctx);
	else
		free(ptr);
}

/* The message buffers are fixed; vsnprintf is fine here, off the hot path. */
void pmaps__msg(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
}

pmaps__read_fn pmaps__read_hook;

ssize_t pmaps__read(int fd, void *buf, size_t len)
{
	ssize_t n;

	do
		n = pmaps__read_hook ? pmaps__read_hook(fd, buf, len) : read(fd, buf, len);
	while (n < 0 && errno == EINTR);
	return n;
}

ssize_t pmaps__pread(int fd, void *buf, size_t len, off_t off)
{
	return pmaps__pread_hook ? pmaps__pread_hook(fd, buf, len, off) : pread(fd, buf, len, off);
}

pmaps__pread_fn pmaps__pread_hook;

size_t pmaps__size0_hook;

int pmaps__size_ok(size_t size, size_t abi0)
{
	return size >= (pmaps__size0_hook ? pmaps__size0_hook : abi0);
}

unsigned pmaps_version(void)
{
	return PMAPS_VERSION_NUMBER;
}

const char *pmaps_strerror(int err)
{
	switch (err) {
	case 0:
		return "success";
	case -ESRCH:
		return "no such process, or it exited while it was read";
	case -ESTALE:
		return "the process exec'd while it was read";
	case -EBADMSG:
		return "malformed text in a /proc file";
	case -EACCES:
	case -EPERM:
		return "permission denied: reading another user's process needs root or CAP_SYS_PTRACE";
	case -ENOENT:
		return "no such file (this kernel does not provide it, or it is not in this proc tree)";
	case -ENODATA:
		return "no user-space memory (a kernel thread)";
	case -EOVERFLOW:
		return "a sum passes 2^64 bytes: the values are no kernel's";
	default:
		return err < 0 ? strerror(-err) : "unknown error";
	}
}

int pmaps__parse_pid(const char *s)
{
	const char *p = s;
	uint64_t v;

	if (s[0] == '0' || pmaps__parse_dec(&p, p + strlen(p), &v) < 0 || *p || v > 0x7fffffff)
		return -1;
	return (int)v;
}

int pmaps__is_procfs(int fd)
{
	struct statfs sfs;

	return fstatfs(fd, &sfs) == 0 && sfs.f_type == PROC_SUPER_MAGIC;
}

int pmaps_proc_open(struct pmaps_proc **out, const char *proc_root, const char *pid)
{
	struct pmaps_proc *p;
	char self[24];
	const char *name = pid;
	int err;

	*out = NULL;
	if (!pid)
		return -EINVAL;
	if (!proc_root)
		proc_root = "/proc";
	p = pmaps__alloc(sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->dirfd = -1;
	p->tid = 0;
	p->spare = NULL;
	p->rootfd = open(proc_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (p->rootfd < 0) {
		err = -errno;
		goto fail;
	}
	if (strcmp(pid, "self") == 0) {
		/* Resolve now so the handle names this process, not its reader. */
		ssize_t n = readlinkat(p->rootfd, "self", self, sizeof(self) - 1);
		if (n > 0) {
			self[n] = '\0';
			if (pmaps__parse_pid(self) > 0)
				name = self;
		}
		if (name == pid && strcmp(proc_root, "/proc") == 0) {
			snprintf(self, sizeof(self), "%d", (int)getpid());
			name = self;
		}
	} else if (pmaps__parse_pid(pid) <= 0) {
		err = -EINVAL;
		goto fail;
	}
	p->dirfd = openat(p->rootfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (p->dirfd < 0) {
		err = errno == ENOENT || errno == ENOTDIR || errno == ELOOP ? -ESRCH : -errno;
		goto fail;
	}
	p->memfd = p->dirfd;
	p->statfd = -1;
	snprintf(p->pidname, sizeof(p->pidname), "%s", name);
	p->live = pmaps__is_procfs(p->dirfd);
	/*
	 * The process's own stat, through one fd kept for the handle's life:
	 * the guard reads it twice per read, every pread from 0 is a fresh
	 * reading, and once the process is gone it fails with ESRCH.
	 */
	if (p->live)
		p->statfd = openat(p->dirfd, "stat", O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	p->pid = pmaps__parse_pid(name);
	if (p->pid < 0)
		p->pid = 0; /* "self" in a tree that has no link for it */
	*out = p;
	return 0;
fail:
	if (p->rootfd >= 0)
		close(p->rootfd);
	pmaps__free(p);
	return err;
}

void pmaps_proc_close(struct pmaps_proc *proc)
{
	if (!proc)
		return;
	pmaps_maps_close(proc->spare);
	if (proc->memfd != proc->dirfd)
		close(proc->memfd);
	if (proc->statfd >= 0)
		close(proc->statfd);
	close(proc->dirfd);
	close(proc->rootfd);
	pmaps__free(proc);
}

int pmaps_proc_pid(const struct pmaps_proc *proc)
{
	return proc->pid;
}

int pmaps_proc_is_kernel_thread(const struct pmaps_proc *proc)
{
	struct pmaps__ident id;
	int r;

	if (!proc->live)
		return 0;
	r = pmaps__proc_ident(proc, &id);
	if (r < 0)
		return r;
	return id.kthread;
}

int pmaps_proc_dirfd(const struct pmaps_proc *proc)
{
	return proc->dirfd;
}

int pmaps_cmdline_read(const char *proc_root, int pid, char *buf, size_t size, size_t *len)
{
	char name[32];
	size_t have = 0;
	int rootfd, fd, live, err = 0;

	if (len)
		*len = 0;
	if (!buf || size == 0 || pid <= 0)
		return -EINVAL;
	buf[0] = '\0';
	rootfd = open(proc_root ? proc_root : "/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return -errno;
	live = pmaps__is_procfs(rootfd);
	snprintf(name, sizeof(name), "%d/cmdline", pid);
	fd = pmaps__open_regular(rootfd, name, live, NULL, 0);
	close(rootfd);
	if (fd < 0)
		return fd == -ENOENT || fd == -ENOTDIR ? -ESRCH : fd;
	/* Bounded: the arguments can be megabytes; what passes SIZE - 1 is left unread. */
	while (have < size - 1) {
		ssize_t n = pmaps__read(fd, buf + have, size - 1 - have);
		if (n < 0) {
			err = errno ? -errno : -EIO;
			break;
		}
		if (n == 0)
			break;
		have += (size_t)n;
	}
	if (!err && have == size - 1) {
		char c;
		/* Cut, or the whole of it to the byte: one more read tells. */
		ssize_t n = pmaps__read(fd, &c, 1);
		err = n > 0 ? 1 : 0;
	}
	close(fd);
	if (err < 0) {
		buf[0] = '\0';
		return err == -ENOENT ? -ESRCH : err;
	}
	buf[have] = '\0';
	if (len)
		*len = have;
	return err;
}

/*
 * Opens NAME under DIRFD for reading: never through a symlink (a fixture tree
 * or a target could put one there), never blocking (a FIFO in place of a proc
 * file would hang the reader), and only a regular file (every proc file that
 * pmaps reads is one; a device node's open alone can have side effects, which
 * O_NONBLOCK cannot undo, so fixture trees are checked before the open too).
 */
int pmaps__open_regular(int dirfd, const char *name, int live, char *msg, size_t size)
{
	struct stat st;
	int fd;

	if (!live) {
		if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return -errno;
		if (!S_ISREG(st.st_mode))
			goto not_regular;
	}
	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		if (errno == ELOOP)
			goto not_regular;
		return -errno;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		goto not_regular;
	}
	return fd;
not_regular:
	if (msg)
		pmaps__msg(msg, size, "%s: not a regular file (a symlink, FIFO or device in the proc "
		           "tree is never opened)", name);
	return -EBADMSG;
}

int pmaps__open_file(const struct pmaps_proc *proc, int dirfd, const char *name, char *msg,
                     size_t size)
{
	int fd = pmaps__open_regular(dirfd, name, proc->live, msg, size);

	if (fd == -ENOENT && proc->live) {
		if (proc->tid && dirfd == proc->memfd)
			return -ESRCH; /* the thread read through is gone */
		/*
		 * Under a dead process's directory every lookup fails with
		 * ENOENT (or ESRCH from the file's own open); on a live procfs
		 * every process has a stat, so its absence tells a gone process
		 * from a file this kernel does not have.
		 */
		if (faccessat(proc->dirfd, "stat", F_OK, AT_SYMLINK_NOFOLLOW) < 0)
			return -ESRCH;
	}
	if (fd == -ENOENT && msg)
		pmaps__msg(msg, size, proc->live ? "%s: not provided by this kernel"
		                                 : "%s: no such file in this proc tree", name);
	return fd;
}

int pmaps__openat(const struct pmaps_proc *proc, const char *name)
{
	return pmaps__open_file(proc, proc->memfd, name, NULL, 0);
}

static int skip_fields(const char **p, const char *end, int n)
{
	const char *s = *p;

	while (n-- > 0) {
		while (s < end && *s != ' ')
			s++;
		if (s >= end)
			return -1;
		s++;
	}
	*p = s;
	return 0;
}

int pmaps__parse_stat(const char *buf, size_t n, struct pmaps__ident *id,
                      struct pmaps_view *comm)
{
	const char *s, *open, *end = buf + n;
	uint64_t v[4], flags;

	memset(id, 0, sizeof(*id));
	/* comm may hold spaces, parentheses and newlines: the state follows the last ')'. */
	s = memrchr(buf, ')', n);
	open = memchr(buf, '(', n);
	if (!s || !open || open > s || end - s < 3 || s[1] != ' ')
		return -EBADMSG;
	if (comm) {
		comm->ptr = open + 1;
		comm->len = (size_t)(s - open - 1);
	}
	s += 2;
	id->state = *s;
	id->ok = 1;
	/* Field 4, the parent's pid: a number up to INT_MAX, or unknown (-1). */
	{
		const char *p = s;
		uint64_t pp;
		id->ppid = -1;
		if (!skip_fields(&p, end, 4 - 3) && pmaps__parse_dec(&p, end, &pp) > 0 &&
		    pp <= INT_MAX)
			id->ppid = (int)pp;
	}
	/* Fields 9 (flags), 26, 27, 28 and 48 (1-based); the state is field 3. */
	if (skip_fields(&s, end, 9 - 3) || pmaps__parse_dec(&s, end, &flags) < 0)
		return 0; /* old kernels and fixtures print fewer: the state alone still helps */
	id->kthread = (flags & PMAPS__PF_KTHREAD) != 0;
	id->exiting = (flags & PMAPS__PF_EXITING) != 0;
	/* Fields 10 and 12: the faults without and with I/O. */
	{
		const char *p = s;
		uint64_t mn, mj;
		if (!skip_fields(&p, end, 10 - 9) && pmaps__parse_dec(&p, end, &mn) > 0 &&
		    !skip_fields(&p, end, 12 - 10) && pmaps__parse_dec(&p, end, &mj) > 0) {
			id->minflt = mn;
			id->majflt = mj;
			id->have_faults = 1;
		}
	}
	/* Field 22: the start time, in clock ticks after boot. */
	{
		const char *p = s;
		uint64_t st;
		if (!skip_fields(&p, end, 22 - 9) && pmaps__parse_dec(&p, end, &st) > 0) {
			id->starttime = st;
			id->have_start = 1;
		}
	}
	if (skip_fields(&s, end, 26 - 9) || pmaps__parse_dec(&s, end, &v[0]) < 0 ||
	    skip_fields(&s, end, 1) || pmaps__parse_dec(&s, end, &v[1]) < 0 ||
	    skip_fields(&s, end, 1) || pmaps__parse_dec(&s, end, &v[2]) < 0 ||
	    skip_fields(&s, end, 48 - 28) || pmaps__parse_dec(&s, end, &v[3]) < 0)
		return 0;
	id->code_start = v[0];
	id->code_end = v[1];
	id->stack_start = v[2];
	id->arg_start = v[3];
	return 0;
}

/* Reads the stat file under DIRFD into ID. Returns 0, or a negative errno. */
static int ident_at(const struct pmaps_proc *proc, int dirfd, struct pmaps__ident *id)
{
	char buf[1024];
	ssize_t n;
	int fd;

	memset(id, 0, sizeof(*id));
	if (dirfd == proc->dirfd && proc->statfd >= 0) {
		/* Not through the read hooks: they inject faults into data files. */
		do
			n = pread(proc->statfd, buf, sizeof(buf), 0);
		while (n < 0 && errno == EINTR);
	} else {
		fd = pmaps__open_file(proc, dirfd, "stat", NULL, 0);
		if (fd < 0)
			return fd == -ENOENT ? -ESRCH : fd;
		n = pmaps__read(fd, buf, sizeof(buf));
		close(fd);
	}
	if (n < 0)
		return errno == ESRCH || errno == ENOENT ? -ESRCH : -errno;
	if (n == 0)
		return -ESRCH;
	return pmaps__parse_stat(buf, (size_t)n, id, NULL);
}

int pmaps__proc_ident(const struct pmaps_proc *proc, struct pmaps__ident *id)
{
	return ident_at(proc, proc->dirfd, id);
}

static int is_dead(const struct pmaps__ident *id)
{
	return id->state == 'Z' || id->state == 'X' || id->exiting;
}

/* Back to reading the process's own files. */
static void use_leader(struct pmaps_proc *proc)
{
	if (proc->memfd != proc->dirfd)
		close(proc->memfd);
	proc->memfd = proc->dirfd;
	proc->tid = 0;
}

/*
 * The main thread is a zombie (or exiting): is there a thread that still
 * runs? Returns its tid with *FD a directory fd on it and *ID its stat, or 0.
 */
static int find_live_thread(const struct pmaps_proc *proc, int *fd, struct pmaps__ident *id)
{
	char buf[4096];
	struct pmaps__dir d;
	const char *name;
	int found = 0;

	if (pmaps__dir_open(&d, proc->dirfd, "task", buf, sizeof(buf)) < 0)
		return 0;
	while (!found && pmaps__dir_next(&d, &name) == 1) {
		int tid = pmaps__parse_pid(name);

		if (tid <= 0 || tid == proc->pid)
			continue;
		*fd = openat(d.fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
		if (*fd < 0)
			continue;
		if (ident_at(proc, *fd, id) == 0 && !is_dead(id) && id->code_start)
			found = tid;
		else
			close(*fd);
	}
	pmaps__dir_close(&d);
	return found;
}

int pmaps__live_thread(const struct pmaps_proc *proc, int *fd)
{
	struct pmaps__ident id;

	return find_live_thread(proc, fd, &id);
}

/* Reads PROC's memory through a live thread, when there is one: 1, else 0. */
static int use_live_thread(struct pmaps_proc *proc, struct pmaps__ident *id)
{
	int fd, tid = find_live_thread(proc, &fd, id);

	if (!tid)
		return 0;
	use_leader(proc);
	proc->memfd = fd;
	proc->tid = tid;
	return 1;
}

/* Opens the probe: maps, from where the data file will be opened. */
static int open_probe(const struct pmaps_proc *proc)
{
	return openat(proc->memfd, "maps", O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
}

/*
 * Does the probe's address space still exist? A maps fd whose mm has gone
 * (the process exited, or exec'd into a new mm) reads nothing, from any
 * offset; while it lives it reads at least one mapping. Returns 1 (alive),
 * 0 (gone), or a negative errno: -ESRCH when the thread whose directory it
 * was opened from has been reaped, the mm perhaps still alive.
 */
static int probe_state(int probe)
{
	char buf[256];
	ssize_t n;

	if (lseek(probe, 0, SEEK_SET) != 0)
		return -errno;
	n = pmaps__read(probe, buf, sizeof(buf));
	if (n < 0)
		return errno == ESRCH ? -ESRCH : -errno;
	return n > 0;
}

/*
 * R is what reading stat gave: -ESRCH (gone), or 0 with its code addresses
 * at 0, no program yet: an execve() between its new, empty mm and its first
 * segment, which takes microseconds to milliseconds. Waits 1 ms and returns
 * 0, or -ESRCH or -EAGAIN (50 tries: still no program), with MSG.
 */
static int wait_program(const struct pmaps_proc *proc, int r, int tries, const char *what,
                        char *msg, size_t size)
{
	struct timespec ts = {0, 1000000};

	if (r == -ESRCH) {
		pmaps__msg(msg, size, "%s: process %d exited", what, proc->pid);
		return -ESRCH;
	}
	if (tries >= 50) {
		pmaps__msg(msg, size, "%s: process %d is starting a program (execve() has no "
		           "program mapped yet after 50 ms): try again", what, proc->pid);
		return -EAGAIN;
	}
	nanosleep(&ts, NULL);
	return 0;
}

int pmaps__guard_begin(struct pmaps_proc *proc, struct pmaps__guard *g, int probe,
                       const char *what, char *msg, size_t size)
{
	struct pmaps__ident *id = &g->id0;
	int r;

	g->probe = -1;
	g->gone = 0;
	memset(id, 0, sizeof(*id));
	if (!proc->live)
		return 0;
	for (int tries = 0;; tries++) {
		r = ident_at(proc, proc->dirfd, id);
		if (r == -ESRCH) {
			pmaps__msg(msg, size, "%s: process %d exited", what, proc->pid);
			return -ESRCH;
		}
		if (r < 0)
			return 0; /* stat unreadable or odd: the data file's open will tell */
		if (id->kthread) {
			pmaps__msg(msg, size, "%s: a kernel thread has no user-space memory", what);
			return -ENODATA;
		}
		if (is_dead(id)) {
			/*
			 * The main thread gone: a thread that still runs, if any. A
			 * pool that retires a worker right after starting the next
			 * can hide both from one listing of task/: look again.
			 */
			int found = 0;
			for (int look = 0; look < 5 && !(found = use_live_thread(proc, id)); look++) {
				struct timespec ts = {0, 200000};
				nanosleep(&ts, NULL);
			}
			if (!found) {
				use_leader(proc);
				if (ident_at(proc, proc->dirfd, id) == -ESRCH) {
					pmaps__msg(msg, size, "%s: process %d exited", what, proc->pid);
					return -ESRCH;
				}
				if (id->state == 'Z')
					pmaps__msg(msg, size, "%s: process %d is a zombie: it has exited and has "
					           "no memory left, but its parent has not reaped it yet",
					           what, proc->pid);
				else
					pmaps__msg(msg, size, "%s: process %d is exiting: its memory is being "
					           "freed", what, proc->pid);
				return -ESRCH;
			}
		} else {
			use_leader(proc);
		}
		if (!probe)
			return 0;
		/*
		 * The probe first, then the program: a probe opened before stat
		 * showed a program is tied to that program's mm or to an older one,
		 * which the check then finds gone. So a read never starts on an
		 * execve() caught between its new, empty mm and its first segment
		 * (it would look like a process with a stack and nothing else).
		 * Code addresses read 0 only without an mm or in that window (1
		 * without ptrace-read access): wait it out, briefly.
		 */
		g->probe = open_probe(proc);
		if (g->probe < 0) {
			if (errno == ESRCH || errno == ENOENT) {
				pmaps__msg(msg, size, "%s: process %d exited", what, proc->pid);
				return -ESRCH;
			}
			return 0; /* EACCES and the like: the data file's own open says it better */
		}
		r = proc->tid ? 0 : ident_at(proc, proc->dirfd, id);
		if (r == 0 && (id->code_start || proc->tid))
			return 0;
		pmaps__guard_end(g);
		r = wait_program(proc, r, tries, what, msg, size);
		if (r < 0)
			return r;
	}
}

int pmaps__guard_program(const struct pmaps_proc *proc, struct pmaps__guard *g, const char *what,
                         char *msg, size_t size)
{
	struct pmaps__ident *id = &g->id0;

	if (!proc->live || proc->tid)
		return 0;
	for (int tries = 0;; tries++) {
		int r = ident_at(proc, proc->dirfd, id);
		if (r != -ESRCH && (r < 0 || id->code_start))
			return 0;
		r = wait_program(proc, r, tries, what, msg, size);
		if (r < 0)
			return r;
	}
}

int pmaps__guard_check(const struct pmaps_proc *proc, struct pmaps__guard *g, const char *what,
                       char *msg, size_t size)
{
	struct pmaps__ident now, t;
	int r, alive, fd;

	if (!proc->live)
		return 0;
	alive = g->probe >= 0 ? probe_state(g->probe) : !g->gone;
	r = ident_at(proc, proc->dirfd, &now);
	if (r == -ESRCH)
		goto exited;
	if (alive == 1) {
		/*
		 * The mm the read began on lived to its end: the read was whole,
		 * unless the process is dying by now (checked on the main thread;
		 * its pthread_exit() during the read leaves the process alive).
		 * Code addresses are not compared: prctl(PR_SET_MM) moves them
		 * without an exec, and an exec always ends the probe's mm.
		 */
		if (r < 0 || proc->tid || !is_dead(&now))
			return 0;
		if (!find_live_thread(proc, &fd, &t))
			goto exited;
		close(fd);
		return 0;
	}
	if (proc->tid) {
		/*
		 * Read through a thread, the main thread gone: the thread itself
		 * may have ended (its files fail with ESRCH), or one of its
		 * siblings exec'd (it becomes the main thread, alive again).
		 */
		if (r == 0 && !is_dead(&now))
			goto execd;
		if (find_live_thread(proc, &fd, &t)) {
			close(fd);
			pmaps__msg(msg, size, "%s: the thread of process %d it was read through exited "
			           "(its main thread had exited before): try again", what, proc->pid);
			return -EAGAIN;
		}
		goto exited;
	}
	/*
	 * Its mm ended under the read: a new program, or none. A killed
	 * process sets PF_EXITING before it lets go of its mm; an exec'ing one
	 * drops the old mm with no program in the new one yet (its code
	 * addresses read 0 until its first segment is mapped).
	 */
	if (r < 0 || is_dead(&now))
		goto exited;
	goto execd;
exited:
	pmaps__msg(msg, size, "%s: process %d exited while it was read", what, proc->pid);
	return -ESRCH;
execd:
	pmaps__msg(msg, size,
	           "%s: process %d exec'd while it was read; what was read so far described "
	           "the old program",
	           what, proc->pid);
	return -ESTALE;
}

void pmaps__guard_end(struct pmaps__guard *g)
{
	if (g->probe >= 0)
		close(g->probe);
	g->probe = -1;
}
