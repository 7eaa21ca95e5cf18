/* SPDX-License-Identifier: MIT */
/*
 * wss.c - the working set: which of a process's resident bytes it touched
 * in an interval. A session resets the process's referenced bits (the one
 * write pmaps makes to a process, and only when asked for by name), then
 * reads explain's pass over smaps, whose Referenced field counts per
 * mapping the pages touched since; explain puts each mapping in its
 * category and carries Referenced beside RSS (explain.c).
 *
 * Never wrong: a guard spans the interval, from before the reset to the
 * end of the read. A process that exits or execs in between is an error,
 * not a reading (a new program's bits were never reset: all its pages
 * would look touched).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

static const char *const method_names[PMAPS_WSS_METHOD_COUNT] = {
	[PMAPS_WSS_CLEAR_REFS] = "clear_refs",
};

const char *pmaps_wss_method_name(enum pmaps_wss_method m)
{
	return (unsigned)m < PMAPS_WSS_METHOD_COUNT ? method_names[m] : NULL;
}

struct pmaps_wss {
	struct pmaps_proc *proc;
	enum pmaps_wss_method method;
	struct pmaps_explain_session *xs;
	struct pmaps__guard guard;   /* from before the last reset to the end of the read */
	int guarded;                 /* GUARD holds a reset's interval */
	uint64_t reset_mono_ns;
	struct pmaps_wss_result res;
	char msg[PMAPS_ERRMSG_SIZE];
};

/* 1 when PATH (under DIRFD) exists, 0 when it does not, -1 when that cannot be told. */
static int exists_at(int dirfd, const char *path)
{
	struct stat st;

	if (fstatat(dirfd, path, &st, AT_SYMLINK_NOFOLLOW) == 0)
		return 1;
	return errno == ENOENT || errno == ENOTDIR ? 0 : -1;
}

/*
 * Whether an existing DAMON context lists vaddr among the operations this
 * kernel has: 1, 0, or -1 when no context exists to be asked. Reads only.
 */
static int damon_vaddr(void)
{
	char path[160], buf[256];
	ssize_t n;
	int fd;

	for (unsigned k = 0; k < 64; k++) {
		snprintf(path, sizeof(path),
		         "/sys/kernel/mm/damon/admin/kdamonds/%u/contexts/0/avail_operations", k);
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
		if (fd < 0) {
			if (errno == ENOENT)
				return -1; /* kdamonds are numbered from 0: no more */
			continue;
		}
		n = pmaps__read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		/* One operation set per line: "vaddr", "fvaddr", "paddr". */
		for (char *line = buf; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
			if (strncmp(line, "vaddr", 5) == 0 && (line[5] == '\n' || line[5] == '\0'))
				return 1;
		return 0;
	}
	return -1;
}

int pmaps_wss_kernel(const char *proc_root, struct pmaps_wss_kernel *out)
{
	struct pmaps_wss_kernel k;
	char path[4200];

	if (!out || out->size < sizeof(uint32_t))
		return -EINVAL;
	memset(&k, 0, sizeof(k));
	k.size = sizeof(k);
	snprintf(path, sizeof(path), "%s/self/clear_refs", proc_root ? proc_root : "/proc");
	k.clear_refs = exists_at(AT_FDCWD, path);
	k.page_idle = exists_at(AT_FDCWD, "/sys/kernel/mm/page_idle/bitmap");
	k.damon = exists_at(AT_FDCWD, "/sys/kernel/mm/damon/admin");
	k.damon_vaddr = k.damon == 1 ? damon_vaddr() : 0;
	memcpy(out, &k, out->size < sizeof(k) ? out->size : sizeof(k));
	out->size = out->size < sizeof(k) ? out->size : (uint32_t)sizeof(k);
	return 0;
}

int pmaps_wss_open(struct pmaps_wss **out, struct pmaps_proc *proc, enum pmaps_wss_method method,
                   unsigned flags)
{
	struct pmaps_wss *w;
	int r;

	*out = NULL;
	if (!proc || (unsigned)method >= PMAPS_WSS_METHOD_COUNT || (flags & ~PMAPS_WSS_ROLLUP))
		return -EINVAL;
	w = pmaps__alloc(sizeof(*w));
	if (!w)
		return -ENOMEM;
	memset(w, 0, sizeof(*w));
	w->proc = proc;
	w->guard.probe = -1;
	*out = w;
	/* The only method built: clear_refs, which every kernel since 2.6.22 has. */
	w->method = PMAPS_WSS_CLEAR_REFS;
	if (!proc->live) {
		/* A fixture's figures measured after no reset would pass for a reading. */
		pmaps__msg(w->msg, sizeof(w->msg), "clear_refs: the proc root is no procfs: a working "
		           "set is measured on a live process only");
		return -EOPNOTSUPP;
	}
	if (exists_at(proc->dirfd, "clear_refs") == 0) {
		pmaps__msg(w->msg, sizeof(w->msg), "clear_refs: /proc/%s/clear_refs does not exist: this "
		           "kernel cannot reset referenced bits (CONFIG_PROC_PAGE_MONITOR)",
		           proc->pidname);
		return -EOPNOTSUPP;
	}
	r = pmaps_explain_open(&w->xs, proc, 0);
	if (r < 0) {
		pmaps__msg(w->msg, sizeof(w->msg), "%s",
		           w->xs ? pmaps_explain_errmsg(w->xs) : pmaps_strerror(r));
		return r;
	}
	/* The interval's reading needs smaps' Referenced only: smaps_rollup if asked. */
	pmaps__explain_rollup(w->xs, (flags & PMAPS_WSS_ROLLUP) != 0);
	pmaps__explain_reopen(w->xs);
	w->res.size = sizeof(w->res);
	w->res.method = w->method;
	return 0;
}

static void end_interval(struct pmaps_wss *w)
{
	if (w->guarded)
		pmaps__guard_end(&w->guard);
	w->guarded = 0;
}

/* Opens NAME of the process's memory files for OFLAGS; -errno with the message on failure. */
static int open_mem(struct pmaps_wss *w, const char *name, int oflags)
{
	int fd = openat(w->proc->memfd, name, oflags | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK), r;

	if (fd >= 0)
		return fd;
	r = -errno;
	if (r == -ENOENT || r == -ESRCH) {
		pmaps__msg(w->msg, sizeof(w->msg), "%s: process %d exited", name, w->proc->pid);
		return -ESRCH;
	}
	/*
	 * Each file's own rule: clear_refs is its owner's to write (mode 0200,
	 * the process's user; root's when it is not dumpable), a permission
	 * CAP_SYS_PTRACE does not give; smaps takes ptrace access.
	 */
	if (r == -EACCES || r == -EPERM)
		pmaps__msg(w->msg, sizeof(w->msg), "%s: permission denied: %s", name,
		           oflags & O_WRONLY ? "writing it takes root, or the process's user "
		                               "while it is dumpable (CAP_SYS_PTRACE is not "
		                               "enough)"
		                             : "reading it takes the process's user, or root or "
		                               "CAP_SYS_PTRACE");
	else
		pmaps__msg(w->msg, sizeof(w->msg), "%s: %s", name, pmaps_strerror(r));
	return r;
}

int pmaps_wss_reset(struct pmaps_wss *w)
{
	struct pmaps_proc *p;
	uint64_t t0;
	ssize_t n;
	int fd, r;

	if (!w)
		return -EINVAL;
	p = w->proc;
	w->msg[0] = '\0';
	end_interval(w);
	/* The probe first: an exec after it, before or after the write, ends its mm. */
	r = pmaps__guard_begin(p, &w->guard, 1, "clear_refs", w->msg, sizeof(w->msg));
	if (r < 0)
		return r;
	w->guarded = 1;
	/*
	 * Nothing is reset that cannot be read: clear_refs asks for its file's
	 * mode only, smaps for ptrace access. Both are opened where the guard
	 * chose (the main thread, or a live thread once it has exited): the
	 * reset acts on that thread's mm, the process's, and a main thread
	 * gone has none, so a write there would clear nothing.
	 */
	fd = open_mem(w, "smaps", O_RDONLY);
	if (fd < 0) {
		end_interval(w);
		return fd;
	}
	close(fd);
	if (w->guard.probe < 0) {
		end_interval(w);
		pmaps__msg(w->msg, sizeof(w->msg), "maps: cannot be opened to guard the interval");
		return -EACCES;
	}
	fd = open_mem(w, "clear_refs", O_WRONLY);
	if (fd < 0) {
		end_interval(w);
		return fd;
	}
	/* The kernel takes the mmap_lock for writing and walks every page table of the process. */
	t0 = pmaps__now_ns();
	do
		n = write(fd, "1", 1);
	while (n < 0 && errno == EINTR);
	r = n == 1 ? 0 : n < 0 ? -errno : -EIO;
	close(fd);
	w->reset_mono_ns = pmaps__now_ns();
	w->res.reset_took_ns = w->reset_mono_ns - t0;
	w->res.reset_at_ns = pmaps__real_ns();
	if (r < 0) {
		end_interval(w);
		if (r == -ESRCH) {
			pmaps__msg(w->msg, sizeof(w->msg), "clear_refs: process %d exited", p->pid);
			return -ESRCH;
		}
		pmaps__msg(w->msg, sizeof(w->msg), "clear_refs: %s", pmaps_strerror(r));
		return r;
	}
	w->res.resets++;
	return 0;
}

int pmaps_wss_read(struct pmaps_wss *w, const struct pmaps_wss_result **out)
{
	const struct pmaps_explain *x;
	int r;

	if (out)
		*out = NULL;
	if (!w || !out)
		return -EINVAL;
	w->msg[0] = '\0';
	if (!w->guarded) {
		pmaps__msg(w->msg, sizeof(w->msg), "no interval: reset the referenced bits first "
		           "(pmaps_wss_reset())");
		return -EINVAL;
	}
	r = pmaps_explain_run(w->xs, &x);
	if (r == -ESTALE) {
		pmaps__msg(w->msg, sizeof(w->msg), "process %d exec'd during the interval: the new "
		           "program's referenced bits were never reset", w->proc->pid);
		return r;
	}
	if (r < 0) {
		pmaps__msg(w->msg, sizeof(w->msg), "%s", pmaps_explain_errmsg(w->xs));
		return r;
	}
	/* The whole interval on one program: the reset's mm lived to the read's end. */
	r = pmaps__guard_check(w->proc, &w->guard, "clear_refs", w->msg, sizeof(w->msg));
	if (r == -ESTALE) {
		pmaps__msg(w->msg, sizeof(w->msg), "process %d exec'd during the interval: the new "
		           "program's referenced bits were never reset", w->proc->pid);
		return r;
	}
	if (r < 0) {
		if (r == -ESRCH)
			pmaps__msg(w->msg, sizeof(w->msg), "process %d exited during the interval",
			           w->proc->pid);
		return r;
	}
	if (!x->referenced_known) {
		pmaps__msg(w->msg, sizeof(w->msg), "smaps: no Referenced field in a mapping: this "
		           "kernel's smaps cannot tell touched pages");
		return -EOPNOTSUPP;
	}
	w->res.since_start_ns = x->read_start_ns - w->reset_mono_ns;
	w->res.since_end_ns = x->read_end_ns - w->reset_mono_ns;
	w->res.x = x;
	*out = &w->res;
	return 0;
}

const char *pmaps_wss_errmsg(const struct pmaps_wss *w)
{
	return w ? w->msg : "";
}

int pmaps_wss_cost(const struct pmaps_wss *w, struct pmaps_cost *out)
{
	return w && w->xs ? pmaps_explain_cost(w->xs, out) : -EINVAL;
}

void pmaps_wss_close(struct pmaps_wss *w)
{
	if (!w)
		return;
	end_interval(w);
	pmaps_explain_close(w->xs);
	pmaps__free(w);
}
