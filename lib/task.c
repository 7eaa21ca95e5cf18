/* SPDX-License-Identifier: MIT */
/*
 * task.c - the stack pointer of each of a process's threads.
 *
 * /proc/PID/task lists the threads by tid; /proc/PID/task/TID/syscall
 * (ptrace-read access, CONFIG_HAVE_ARCH_TRACEHOOK) holds one line:
 *   "NR arg1 arg2 arg3 arg4 arg5 arg6 SP PC"   NR decimal, the rest 0x hex
 * for a thread blocked in a system call, "-1 SP PC" for one blocked
 * elsewhere, and "running" for one on a CPU, whose pointer is not known.
 * The stack pointer is the second-to-last field. The directory is read
 * through the library's getdents64 reader into a buffer on the stack, so
 * that nothing but the pointer array is allocated, and that only when a
 * read sees more threads than any before.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "parse.h"
#include "readers.h"

/* The stack pointer of task NAME, from its syscall file; 0 when unreadable or running. */
static uint64_t task_sp(const struct pmaps_proc *proc, int taskfd, const char *name)
{
	char buf[512];
	const char *p, *last = NULL, *prev = NULL;
	uint64_t sp;
	ssize_t n;
	int fd, tfd;

	/* Neither the task's directory nor its file through a symlink; a regular file only. */
	tfd = openat(taskfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (tfd < 0)
		return 0;
	fd = pmaps__open_file(proc, tfd, "syscall", NULL, 0);
	close(tfd);
	if (fd < 0)
		return 0;
	n = pmaps__read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	for (p = buf; *p;) {
		while (*p == ' ' || *p == '\n')
			p++;
		if (!*p)
			break;
		prev = last;
		last = p;
		while (*p && *p != ' ' && *p != '\n')
			p++;
	}
	if (!prev || prev[0] != '0' || prev[1] != 'x')
		return 0;
	p = prev + 2;
	if (pmaps__parse_hex(&p, buf + n, &sp) < 0)
		return 0;
	return sp;
}

/* Room for one more pointer: the array doubles, its contents kept. */
static int grow(struct pmaps__sps *s)
{
	size_t nc = s->cap ? s->cap * 2 : 64;
	uint64_t *ns;

	if (s->n < s->cap)
		return 0;
	ns = pmaps__alloc(nc * sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	if (s->n)
		memcpy(ns, s->sp, s->n * sizeof(*ns));
	pmaps__free(s->sp);
	s->sp = ns;
	s->cap = nc;
	return 0;
}

static void sift_down(uint64_t *a, size_t i, size_t n)
{
	for (;;) {
		size_t c = 2 * i + 1;
		uint64_t t;
		if (c >= n)
			return;
		if (c + 1 < n && a[c + 1] > a[c])
			c++;
		if (a[i] >= a[c])
			return;
		t = a[i];
		a[i] = a[c];
		a[c] = t;
		i = c;
	}
}

/* Heapsort: in place, so no allocation (glibc's qsort may malloc past the hook). */
static void sort_u64(uint64_t *a, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		sift_down(a, i, n);
	for (size_t end = n; end-- > 1;) {
		uint64_t t = a[0];
		a[0] = a[end];
		a[end] = t;
		sift_down(a, 0, end);
	}
}

int pmaps__sps_read(const struct pmaps_proc *proc, struct pmaps__sps *s)
{
	char buf[4096];
	struct pmaps__dir d;
	const char *name;
	int r;

	s->n = s->unreadable = 0;
	if (pmaps__dir_open(&d, proc->dirfd, "task", buf, sizeof(buf)) < 0)
		return 0; /* a fixture tree without tasks, or a process gone: no threads to find */
	while ((r = pmaps__dir_next(&d, &name)) > 0) {
		if (name[0] < '0' || name[0] > '9')
			continue;
		if ((r = grow(s)) < 0)
			break;
		s->sp[s->n++] = task_sp(proc, d.fd, name);
	}
	pmaps__dir_close(&d);
	/* A process that ends while it is listed: the maps read that follows says so. */
	if (r < 0 && r != -ENOENT && r != -ESRCH)
		return r;
	sort_u64(s->sp, s->n);
	while (s->unreadable < s->n && s->sp[s->unreadable] == 0)
		s->unreadable++;
	return 0;
}

int pmaps__sps_holds(const struct pmaps__sps *s, uint64_t start, uint64_t end)
{
	unsigned lo = s->unreadable, hi = s->n;

	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;
		if (s->sp[mid] < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->n && s->sp[lo] < end;
}

void pmaps__sps_free(struct pmaps__sps *s)
{
	pmaps__free(s->sp);
	s->sp = NULL;
	s->cap = 0;
	s->n = s->unreadable = 0;
}
