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
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "internal.h"
#include "parse.h"

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

void *pmaps__alloc(size_t size)
{
	return alloc_hook ? alloc_hook(size, hook_ctx) : malloc(size);
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
		return "no such file: the kernel does not provide it";
	case -ENODATA:
		return "no user-space memory (a kernel thread)";
	default:
		return err < 0 ? strerror(-err) : "unknown error";
	}
}

static int is_pid(const char *s)
{
	size_t n = 0;

	for (; s[n]; n++)
		if ((unsigned)(s[n] - '0') >= 10 || n >= 10)
			return 0;
	return n > 0 && !(n > 1 && s[0] == '0');
}

int pmaps_proc_open(struct pmaps_proc **out, const char *proc_root, const char *pid)
{
	struct pmaps_proc *p;
	char self[24];
	struct statfs sfs;
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
			if (is_pid(self))
				name = self;
		}
		if (name == pid && strcmp(proc_root, "/proc") == 0) {
			snprintf(self, sizeof(self), "%d", (int)getpid());
			name = self;
		}
	} else if (!is_pid(pid)) {
		err = -EINVAL;
		goto fail;
	}
	p->dirfd = openat(p->rootfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (p->dirfd < 0) {
		err = errno == ENOENT || errno == ENOTDIR ? -ESRCH : -errno;
		goto fail;
	}
	snprintf(p->pidname, sizeof(p->pidname), "%s", name);
	p->live = fstatfs(p->dirfd, &sfs) == 0 && sfs.f_type == PROC_SUPER_MAGIC;
	p->pid = 0;
	if (is_pid(name)) {
		uint64_t v;
		const char *s = name;
		if (pmaps__parse_dec(&s, name + strlen(name), &v) > 0 && v <= 0x7fffffff)
			p->pid = (int)v;
	}
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

int pmaps__openat(const struct pmaps_proc *proc, const char *name)
{
	int fd = openat(proc->dirfd, name, O_RDONLY | O_CLOEXEC);

	if (fd >= 0)
		return fd;
	/*
	 * Under a dead process's directory every lookup fails with ENOENT (or
	 * ESRCH from the file's own open); on a live procfs every process has a
	 * stat, so its absence tells a gone process from a file this kernel
	 * does not have. Fixture trees are never "gone".
	 */
	if (errno == ENOENT && proc->live) {
		int t = openat(proc->dirfd, "stat", O_RDONLY | O_CLOEXEC);
		if (t < 0)
			return -ESRCH;
		close(t);
		return -ENOENT;
	}
	return errno == ESRCH ? -ESRCH : -errno;
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

int pmaps__proc_ident(const struct pmaps_proc *proc, struct pmaps__ident *id)
{
	char buf[1024];
	const char *s, *end;
	uint64_t v[4], flags;
	ssize_t n;
	int fd;

	memset(id, 0, sizeof(*id));
	fd = pmaps__openat(proc, "stat");
	if (fd < 0)
		return fd;
	n = pmaps__read(fd, buf, sizeof(buf));
	close(fd);
	if (n < 0)
		return errno == ESRCH ? -ESRCH : -errno;
	if (n == 0)
		return -ESRCH;
	end = buf + n;
	/* comm may hold spaces and parentheses: the state follows the last ')'. */
	s = memrchr(buf, ')', (size_t)n);
	if (!s || end - s < 3)
		return -EBADMSG;
	s += 2;
	id->state = *s;
	/* Fields 9 (flags), 26, 27, 28 and 48 (1-based); the state is field 3. */
	if (skip_fields(&s, end, 9 - 3) || pmaps__parse_dec(&s, end, &flags) < 0) {
		id->ok = 1;
		return 0;
	}
	id->kthread = (flags & 0x00200000) != 0; /* PF_KTHREAD */
	if (skip_fields(&s, end, 26 - 9) || pmaps__parse_dec(&s, end, &v[0]) < 0 ||
	    skip_fields(&s, end, 1) || pmaps__parse_dec(&s, end, &v[1]) < 0 ||
	    skip_fields(&s, end, 1) || pmaps__parse_dec(&s, end, &v[2]) < 0 ||
	    skip_fields(&s, end, 48 - 28) || pmaps__parse_dec(&s, end, &v[3]) < 0) {
		/* Old kernels print fewer fields: the state alone still helps. */
		id->ok = 1;
		return 0;
	}
	id->code_start = v[0];
	id->code_end = v[1];
	id->stack_start = v[2];
	id->arg_start = v[3];
	id->ok = 1;
	return 0;
}

int pmaps__check_target(const struct pmaps_proc *proc, const struct pmaps__ident *before,
                        const char *what, char *msg, size_t size)
{
	struct pmaps__ident id;
	int r;

	if (!proc->live)
		return 0;
	r = pmaps__proc_ident(proc, &id);
	if (r == -ESRCH || (r == 0 && (id.state == 'Z' || id.state == 'X'))) {
		pmaps__msg(msg, size, "%s: process %d exited while it was read", what, proc->pid);
		return -ESRCH;
	}
	if (r == 0 && before->ok && before->code_start &&
	    (id.code_start != before->code_start || id.code_end != before->code_end ||
	     id.stack_start != before->stack_start || id.arg_start != before->arg_start)) {
		pmaps__msg(msg, size,
		           "%s: process %d exec'd while it was read; what was read so far described "
		           "the old program",
		           what, proc->pid);
		return -ESTALE;
	}
	return 0;
}
