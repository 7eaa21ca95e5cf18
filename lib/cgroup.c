/* SPDX-License-Identifier: MIT */
/*
 * cgroup.c - memory cgroups (v2 and v1) and the machine's reclaim counters.
 *
 * A memory cgroup's figures come from a handful of small files in its
 * directory: v2's memory.current, .peak, .max, .high, .low, .min,
 * .swap.current, .swap.max, .stat, .events and .pressure; v1's
 * memory.usage_in_bytes, .max_usage_in_bytes, .limit_in_bytes, .failcnt,
 * .kmem.usage_in_bytes, .oom_control and .stat (its total_* lines: the
 * subtree's, as v2 counts). Each is opened as a regular file only, never
 * through a symlink, never blocking, and read through a fixed buffer.
 *
 * A cgroup path comes from /proc/PID/cgroup, bytes the cgroup's manager
 * chose (a delegated user can name cgroups): it is opened below the
 * hierarchy's root only, component by component without following a
 * symlink, and "." and ".." are refused.
 *
 * The machine's side: /proc/vmstat's reclaim and fault counters, and
 * /proc/pressure/memory (PSI).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "parse.h"
#include "readers.h"

/* ---- keys ---- */

static const char *const cg_keys[PMAPS_CG_COUNT] = {
	[PMAPS_CG_CURRENT] = "current",
	[PMAPS_CG_PEAK] = "peak",
	[PMAPS_CG_MAX] = "max",
	[PMAPS_CG_HIGH] = "high",
	[PMAPS_CG_LOW] = "low",
	[PMAPS_CG_MIN] = "min",
	[PMAPS_CG_SWAP_CURRENT] = "swap_current",
	[PMAPS_CG_SWAP_MAX] = "swap_max",
	[PMAPS_CG_ANON] = "anon",
	[PMAPS_CG_FILE] = "file",
	[PMAPS_CG_KERNEL] = "kernel",
	[PMAPS_CG_KERNEL_STACK] = "kernel_stack",
	[PMAPS_CG_PAGETABLES] = "pagetables",
	[PMAPS_CG_SLAB] = "slab",
	[PMAPS_CG_SOCK] = "sock",
	[PMAPS_CG_SHMEM] = "shmem",
	[PMAPS_CG_FILE_MAPPED] = "file_mapped",
	[PMAPS_CG_FILE_DIRTY] = "file_dirty",
	[PMAPS_CG_FILE_WRITEBACK] = "file_writeback",
	[PMAPS_CG_ANON_THP] = "anon_thp",
	[PMAPS_CG_INACTIVE_ANON] = "inactive_anon",
	[PMAPS_CG_ACTIVE_ANON] = "active_anon",
	[PMAPS_CG_INACTIVE_FILE] = "inactive_file",
	[PMAPS_CG_ACTIVE_FILE] = "active_file",
	[PMAPS_CG_UNEVICTABLE] = "unevictable",
	[PMAPS_CG_PGFAULT] = "pgfault",
	[PMAPS_CG_PGMAJFAULT] = "pgmajfault",
	[PMAPS_CG_REFAULT_ANON] = "workingset_refault_anon",
	[PMAPS_CG_REFAULT_FILE] = "workingset_refault_file",
	[PMAPS_CG_EVENTS_LOW] = "events_low",
	[PMAPS_CG_EVENTS_HIGH] = "events_high",
	[PMAPS_CG_EVENTS_MAX] = "events_max",
	[PMAPS_CG_EVENTS_OOM] = "events_oom",
	[PMAPS_CG_EVENTS_OOM_KILL] = "events_oom_kill",
	[PMAPS_CG_PSI_SOME_US] = "psi_some_us",
	[PMAPS_CG_PSI_FULL_US] = "psi_full_us",
	[PMAPS_CG_PSI_SOME_AVG10] = "psi_some_avg10",
	[PMAPS_CG_PSI_FULL_AVG10] = "psi_full_avg10",
};

const char *pmaps_cgroup_key(enum pmaps_cgroup_field f)
{
	return (unsigned)f < PMAPS_CG_COUNT ? cg_keys[f] : NULL;
}

static const char *const vm_keys[PMAPS_VMS_COUNT] = {
	[PMAPS_VMS_PGFAULT] = "pgfault",
	[PMAPS_VMS_PGMAJFAULT] = "pgmajfault",
	[PMAPS_VMS_OOM_KILL] = "oom_kill",
	[PMAPS_VMS_REFAULT_ANON] = "workingset_refault_anon",
	[PMAPS_VMS_REFAULT_FILE] = "workingset_refault_file",
	[PMAPS_VMS_ACTIVATE_ANON] = "workingset_activate_anon",
	[PMAPS_VMS_ACTIVATE_FILE] = "workingset_activate_file",
	[PMAPS_VMS_PSWPIN] = "pswpin",
	[PMAPS_VMS_PSWPOUT] = "pswpout",
	[PMAPS_VMS_PGSCAN_DIRECT] = "pgscan_direct",
	[PMAPS_VMS_PGSTEAL_DIRECT] = "pgsteal_direct",
	[PMAPS_VMS_PGSCAN_KSWAPD] = "pgscan_kswapd",
	[PMAPS_VMS_PGSTEAL_KSWAPD] = "pgsteal_kswapd",
	[PMAPS_VMS_PSI_SOME_US] = "psi_some_us",
	[PMAPS_VMS_PSI_FULL_US] = "psi_full_us",
	[PMAPS_VMS_PSI_SOME_AVG10] = "psi_some_avg10",
	[PMAPS_VMS_PSI_FULL_AVG10] = "psi_full_avg10",
};

const char *pmaps_vmstat_key(enum pmaps_vmstat_field f)
{
	return (unsigned)f < PMAPS_VMS_COUNT ? vm_keys[f] : NULL;
}

/* ---- "name value" lines ---- */

/* A name in a "name value" file, the field it fills. */
struct kv {
	const char *name;
	int field;
};

struct kv_ctx {
	const struct kv *names;
	size_t n;
	uint64_t *v;
	uint64_t *present;
	int bad;
};

/* "name N" (a space, decimal digits, nothing after) into the field NAME fills. */
static int kv_line(void *ctx, const char *p, const char *nl)
{
	struct kv_ctx *c = ctx;
	const char *sp = memchr(p, ' ', (size_t)(nl - p));

	if (!sp)
		return 0;
	for (size_t i = 0; i < c->n; i++) {
		size_t kl = strlen(c->names[i].name);
		const char *q = sp + 1;
		uint64_t v;
		if ((size_t)(sp - p) != kl || memcmp(p, c->names[i].name, kl) != 0)
			continue;
		if (pmaps__parse_dec(&q, nl, &v) <= 0 || q != nl) {
			c->bad = 1;
			return 0;
		}
		c->v[c->names[i].field] = v;
		*c->present |= 1ull << c->names[i].field;
		return 0;
	}
	return 0;
}

/*
 * The "name value" file NAME under DIRFD into V/PRESENT by NAMES. Returns
 * 0, -ENOENT (absent), -EBADMSG (a known name with a value that is not a
 * number, or not a regular file), or another negative errno.
 */
static int read_kv(int dirfd, const char *name, const struct kv *names, size_t n, uint64_t *v,
                   uint64_t *present)
{
	char buf[4096];
	struct kv_ctx c = {names, n, v, present, 0};
	int fd = pmaps__open_regular(dirfd, name, 0, NULL, 0);
	int err;

	if (fd < 0)
		return fd;
	err = pmaps__read_lines(fd, buf, sizeof(buf), kv_line, &c);
	close(fd);
	if (err < 0)
		return err;
	return c.bad ? -EBADMSG : 0;
}

/*
 * One value file NAME under DIRFD: a number, or "max" (v2's no limit: *V
 * untouched, 1 returned). Returns 0 with *V, 1 for "max", or a negative
 * errno (-ENOENT: absent).
 */
static int read_one(int dirfd, const char *name, uint64_t *v)
{
	char buf[64];
	const char *p = buf, *end;
	size_t have = 0;
	ssize_t n = 1;
	int fd = pmaps__open_regular(dirfd, name, 0, NULL, 0);

	if (fd < 0)
		return fd;
	/* To its end, whatever pieces the reads return; a value never fills the buffer. */
	while (have < sizeof(buf) && (n = pmaps__read(fd, buf + have, sizeof(buf) - have)) > 0)
		have += (size_t)n;
	close(fd);
	if (n < 0)
		return errno ? -errno : -EIO;
	if (have == sizeof(buf))
		return -EBADMSG;
	end = buf + have;
	while (end > buf && end[-1] == '\n')
		end--;
	if (end - buf == 3 && memcmp(buf, "max", 3) == 0)
		return 1;
	if (pmaps__parse_dec(&p, end, v) <= 0 || p != end)
		return -EBADMSG;
	return 0;
}

/* ---- PSI ---- */

struct psi_ctx {
	uint64_t *v;
	uint64_t *present;
	int some_us, full_us, some_avg, full_avg; /* the fields each fills */
	int bad;
};

/* "avg10=1.25": hundredths of a percent (125). */
static int parse_avg(const char **p, const char *end, uint64_t *out)
{
	uint64_t whole, frac = 0;
	const char *q;

	if (pmaps__parse_dec(p, end, &whole) <= 0 || whole > 100)
		return -1;
	if (*p < end && **p == '.') {
		(*p)++;
		q = *p;
		if (pmaps__parse_dec(p, end, &frac) <= 0 || *p - q != 2)
			return -1;
	}
	*out = whole * 100 + frac;
	return 0;
}

/* "some avg10=0.00 avg60=0.00 avg300=0.00 total=0" */
static int psi_line(void *ctx, const char *p, const char *nl)
{
	struct psi_ctx *c = ctx;
	int avg, us;
	uint64_t a, t;

	if (nl - p > 5 && memcmp(p, "some ", 5) == 0) {
		avg = c->some_avg, us = c->some_us;
		p += 5;
	} else if (nl - p > 5 && memcmp(p, "full ", 5) == 0) {
		avg = c->full_avg, us = c->full_us;
		p += 5;
	} else {
		return 0;
	}
	if (nl - p < 6 || memcmp(p, "avg10=", 6) != 0)
		goto bad;
	p += 6;
	if (parse_avg(&p, nl, &a) < 0)
		goto bad;
	{
		const char *tot = NULL;
		for (const char *q = p; q + 7 <= nl; q++)
			if (memcmp(q, " total=", 7) == 0) {
				tot = q + 7;
				break;
			}
		if (!tot || pmaps__parse_dec(&tot, nl, &t) <= 0 || tot != nl)
			goto bad;
	}
	c->v[avg] = a;
	c->v[us] = t;
	*c->present |= 1ull << avg | 1ull << us;
	return 0;
bad:
	c->bad = 1;
	return 0;
}

/* A pressure file NAME under DIRFD. Returns 0, -ENOENT, -EBADMSG or another negative errno. */
static int read_psi(int dirfd, const char *name, struct psi_ctx *c)
{
	char buf[512];
	int fd = pmaps__open_regular(dirfd, name, 0, NULL, 0);
	int err;

	if (fd < 0)
		return fd;
	/* A kernel booted psi=0 has the file and refuses its read (EOPNOTSUPP): absent. */
	err = pmaps__read_lines(fd, buf, sizeof(buf), psi_line, c);
	close(fd);
	if (err == -EOPNOTSUPP)
		return -ENOENT;
	if (err < 0)
		return err;
	return c->bad ? -EBADMSG : 0;
}

/* ---- the machine ---- */

static const struct kv vmstat_names[] = {
	{"pgfault", PMAPS_VMS_PGFAULT},
	{"pgmajfault", PMAPS_VMS_PGMAJFAULT},
	{"oom_kill", PMAPS_VMS_OOM_KILL},
	{"workingset_refault_anon", PMAPS_VMS_REFAULT_ANON},
	{"workingset_refault_file", PMAPS_VMS_REFAULT_FILE},
	{"workingset_refault", PMAPS_VMS_REFAULT_FILE}, /* before 5.9: the page cache's alone */
	{"workingset_activate_anon", PMAPS_VMS_ACTIVATE_ANON},
	{"workingset_activate_file", PMAPS_VMS_ACTIVATE_FILE},
	{"workingset_activate", PMAPS_VMS_ACTIVATE_FILE},
	{"pswpin", PMAPS_VMS_PSWPIN},
	{"pswpout", PMAPS_VMS_PSWPOUT},
	{"pgscan_direct", PMAPS_VMS_PGSCAN_DIRECT},
	{"pgsteal_direct", PMAPS_VMS_PGSTEAL_DIRECT},
	{"pgscan_kswapd", PMAPS_VMS_PGSCAN_KSWAPD},
	{"pgsteal_kswapd", PMAPS_VMS_PGSTEAL_KSWAPD},
};

int pmaps_vmstat_read(const char *proc_root, struct pmaps_vmstat *vm, char *msg, size_t msgsz)
{
	struct pmaps_vmstat whole;
	const char *root = proc_root ? proc_root : "/proc";
	int dfd, pfd, r;

	if (msg && msgsz)
		msg[0] = '\0';
	if (!vm || !pmaps__size_ok(vm->size, sizeof(struct pmaps_vmstat))) {
		if (msg)
			pmaps__msg(msg, msgsz, "struct pmaps_vmstat: size %u, below %zu: set it to sizeof",
			           vm ? vm->size : 0u, sizeof(struct pmaps_vmstat));
		return -EINVAL;
	}
	memset(&whole, 0, sizeof(whole));
	dfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		r = -errno;
		if (msg)
			pmaps__msg(msg, msgsz, "%s: %s", root, pmaps_strerror(r));
		return r;
	}
	r = read_kv(dfd, "vmstat", vmstat_names, sizeof(vmstat_names) / sizeof(vmstat_names[0]),
	            whole.v, &whole.present);
	if (r < 0) {
		if (msg)
			pmaps__msg(msg, msgsz, "%s/vmstat: %s", root,
			           r == -EBADMSG ? "a counter that is not a number, or not a regular file"
			                         : pmaps_strerror(r));
		close(dfd);
		return r;
	}
	pfd = openat(dfd, "pressure", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	close(dfd);
	if (pfd >= 0) {
		struct psi_ctx c = {whole.v, &whole.present, PMAPS_VMS_PSI_SOME_US, PMAPS_VMS_PSI_FULL_US,
		                    PMAPS_VMS_PSI_SOME_AVG10, PMAPS_VMS_PSI_FULL_AVG10, 0};
		r = read_psi(pfd, "memory", &c);
		close(pfd);
		if (r < 0 && r != -ENOENT) {
			if (msg)
				pmaps__msg(msg, msgsz, "%s/pressure/memory: %s", root,
				           r == -EBADMSG ? "a line no kernel writes" : pmaps_strerror(r));
			return r;
		}
	}
	whole.size = vm->size;
	pmaps__copy_out(vm, vm->size, &whole, sizeof(whole));
	return 0;
}

/* ---- the hierarchy ---- */

/* Whether DIRFD's cgroup.controllers lists "memory". */
static int lists_memory(int dirfd)
{
	char buf[512];
	ssize_t n;
	int fd = pmaps__open_regular(dirfd, "cgroup.controllers", 0, NULL, 0);

	if (fd < 0)
		return 0;
	n = pmaps__read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	for (char *p = buf; (p = strstr(p, "memory")) != NULL; p += 6)
		if ((p == buf || p[-1] == ' ') && (p[6] == ' ' || p[6] == '\n' || p[6] == '\0'))
			return 1;
	return 0;
}

int pmaps_cgroup_root_open(const char *cgroup_root, int *version, char *msg, size_t msgsz)
{
	const char *root = cgroup_root ? cgroup_root : "/sys/fs/cgroup";
	int fd, mfd, err;

	if (msg && msgsz)
		msg[0] = '\0';
	fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		if (msg)
			pmaps__msg(msg, msgsz, "%s: %s", root,
			           err == -ENOENT ? "no such directory"
			           : err == -ENOTDIR ? "not a directory" : pmaps_strerror(err));
		return err == -ENOTDIR ? -ENOENT : err;
	}
	if (lists_memory(fd)) {
		if (version)
			*version = 2;
		return fd;
	}
	mfd = openat(fd, "memory", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	err = mfd < 0 ? -errno : 0;
	close(fd);
	if (mfd >= 0 && faccessat(mfd, "memory.usage_in_bytes", F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
		if (version)
			*version = 1;
		return mfd;
	}
	if (mfd >= 0) {
		close(mfd);
		err = -ENOENT;
	}
	if (err == -ENOTDIR || err == -ELOOP)
		err = -ENOENT;
	if (msg && err == -ENOENT)
		pmaps__msg(msg, msgsz, "%s: no memory controller (neither a cgroup2 that lists it in "
		           "cgroup.controllers nor a v1 hierarchy at memory/)", root);
	else if (msg)
		pmaps__msg(msg, msgsz, "%s/memory: %s", root, pmaps_strerror(err));
	return err;
}

int pmaps_cgroup_dir_open(int rootfd, const char *path, size_t len)
{
	char name[256];
	const char *p = path, *end = path + len;
	int fd = fcntl(rootfd, F_DUPFD_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	if (memchr(path, '\0', len)) {
		close(fd);
		return -EINVAL;
	}
	while (p < end && *p == '/')
		p++;
	while (p < end) {
		const char *slash = memchr(p, '/', (size_t)(end - p));
		size_t n = (size_t)((slash ? slash : end) - p);
		int next;
		if (n == 0 || n >= sizeof(name) || (n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.')) {
			close(fd);
			return -EINVAL;
		}
		memcpy(name, p, n);
		name[n] = '\0';
		next = openat(fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0) {
			int err = errno == ELOOP || errno == ENOTDIR ? -ENOENT : -errno;
			close(fd);
			return err;
		}
		close(fd);
		fd = next;
		p += n;
		if (p < end)
			p++; /* the slash; a trailing one ends the path */
	}
	return fd;
}

/* ---- a cgroup's figures ---- */

static const struct kv stat2[] = {
	{"anon", PMAPS_CG_ANON},
	{"file", PMAPS_CG_FILE},
	{"kernel", PMAPS_CG_KERNEL},
	{"kernel_stack", PMAPS_CG_KERNEL_STACK},
	{"pagetables", PMAPS_CG_PAGETABLES},
	{"slab", PMAPS_CG_SLAB},
	{"sock", PMAPS_CG_SOCK},
	{"shmem", PMAPS_CG_SHMEM},
	{"file_mapped", PMAPS_CG_FILE_MAPPED},
	{"file_dirty", PMAPS_CG_FILE_DIRTY},
	{"file_writeback", PMAPS_CG_FILE_WRITEBACK},
	{"anon_thp", PMAPS_CG_ANON_THP},
	{"inactive_anon", PMAPS_CG_INACTIVE_ANON},
	{"active_anon", PMAPS_CG_ACTIVE_ANON},
	{"inactive_file", PMAPS_CG_INACTIVE_FILE},
	{"active_file", PMAPS_CG_ACTIVE_FILE},
	{"unevictable", PMAPS_CG_UNEVICTABLE},
	{"pgfault", PMAPS_CG_PGFAULT},
	{"pgmajfault", PMAPS_CG_PGMAJFAULT},
	{"workingset_refault_anon", PMAPS_CG_REFAULT_ANON},
	{"workingset_refault_file", PMAPS_CG_REFAULT_FILE},
	{"workingset_refault", PMAPS_CG_REFAULT_FILE}, /* before 5.9 */
};

static const struct kv stat1[] = {
	{"total_rss", PMAPS_CG_ANON},
	{"total_cache", PMAPS_CG_FILE},
	{"total_shmem", PMAPS_CG_SHMEM},
	{"total_mapped_file", PMAPS_CG_FILE_MAPPED},
	{"total_dirty", PMAPS_CG_FILE_DIRTY},
	{"total_writeback", PMAPS_CG_FILE_WRITEBACK},
	{"total_rss_huge", PMAPS_CG_ANON_THP},
	{"total_swap", PMAPS_CG_SWAP_CURRENT},
	{"total_inactive_anon", PMAPS_CG_INACTIVE_ANON},
	{"total_active_anon", PMAPS_CG_ACTIVE_ANON},
	{"total_inactive_file", PMAPS_CG_INACTIVE_FILE},
	{"total_active_file", PMAPS_CG_ACTIVE_FILE},
	{"total_unevictable", PMAPS_CG_UNEVICTABLE},
	{"total_pgfault", PMAPS_CG_PGFAULT},
	{"total_pgmajfault", PMAPS_CG_PGMAJFAULT},
	{"total_workingset_refault_anon", PMAPS_CG_REFAULT_ANON},
	{"total_workingset_refault_file", PMAPS_CG_REFAULT_FILE},
};

static const struct kv events2[] = {
	{"low", PMAPS_CG_EVENTS_LOW},
	{"high", PMAPS_CG_EVENTS_HIGH},
	{"max", PMAPS_CG_EVENTS_MAX},
	{"oom", PMAPS_CG_EVENTS_OOM},
	{"oom_kill", PMAPS_CG_EVENTS_OOM_KILL},
};

static const struct kv oom_control1[] = {
	{"oom_kill", PMAPS_CG_EVENTS_OOM_KILL},
};

/* v1's "no limit": PAGE_COUNTER_MAX pages, LONG_MAX rounded down to a page (any page size). */
#define V1_UNLIMITED (UINT64_C(1) << 62)

/* A single-value file into field F; "max" (or v1's no limit) leaves it absent. */
static int one_into(int dirfd, const char *name, struct pmaps_cgroup_mem *m, int f)
{
	uint64_t v;
	int r = read_one(dirfd, name, &v);

	if (r == 0 && !(m->version == 1 && v >= V1_UNLIMITED &&
	                (f == PMAPS_CG_MAX || f == PMAPS_CG_HIGH || f == PMAPS_CG_SWAP_MAX))) {
		m->v[f] = v;
		m->present |= 1ull << f;
	}
	return r == 1 || r == -ENOENT ? 0 : r;
}

int pmaps_cgroup_mem_read(int dirfd, int version, struct pmaps_cgroup_mem *m, char *msg,
                          size_t msgsz)
{
	struct pmaps_cgroup_mem w;
	int r = 0, stat_r;
	const char *file = NULL;

	if (msg && msgsz)
		msg[0] = '\0';
	if (!m || !pmaps__size_ok(m->size, sizeof(struct pmaps_cgroup_mem)) ||
	    (version != 1 && version != 2)) {
		if (msg)
			pmaps__msg(msg, msgsz, m && (version == 1 || version == 2)
			                           ? "struct pmaps_cgroup_mem: size below its first "
			                             "version's: set it to sizeof"
			                           : "cgroup version %d: 1 or 2", version);
		return -EINVAL;
	}
	memset(&w, 0, sizeof(w));
	w.version = version;
	if (version == 2) {
		static const struct {
			const char *name;
			int f;
		} ones[] = {
			{"memory.current", PMAPS_CG_CURRENT},
			{"memory.peak", PMAPS_CG_PEAK},
			{"memory.max", PMAPS_CG_MAX},
			{"memory.high", PMAPS_CG_HIGH},
			{"memory.low", PMAPS_CG_LOW},
			{"memory.min", PMAPS_CG_MIN},
			{"memory.swap.current", PMAPS_CG_SWAP_CURRENT},
			{"memory.swap.max", PMAPS_CG_SWAP_MAX},
		};
		for (size_t i = 0; i < sizeof(ones) / sizeof(ones[0]) && r == 0; i++)
			if ((r = one_into(dirfd, ones[i].name, &w, ones[i].f)) < 0)
				file = ones[i].name;
		if (r == 0) {
			stat_r = read_kv(dirfd, "memory.stat", stat2, sizeof(stat2) / sizeof(stat2[0]),
			                 w.v, &w.present);
			if (stat_r < 0 && stat_r != -ENOENT)
				r = stat_r, file = "memory.stat";
			else if (stat_r == -ENOENT && !(w.present & 1ull << PMAPS_CG_CURRENT))
				r = -ENOENT, file = "memory.current";
		}
		if (r == 0 && (r = read_kv(dirfd, "memory.events", events2,
		                           sizeof(events2) / sizeof(events2[0]), w.v,
		                           &w.present)) == -ENOENT)
			r = 0;
		else if (r < 0 && !file)
			file = "memory.events";
		if (r == 0) {
			struct psi_ctx c = {w.v, &w.present, PMAPS_CG_PSI_SOME_US, PMAPS_CG_PSI_FULL_US,
			                    PMAPS_CG_PSI_SOME_AVG10, PMAPS_CG_PSI_FULL_AVG10, 0};
			r = read_psi(dirfd, "memory.pressure", &c);
			if (r == -ENOENT)
				r = 0;
			else if (r < 0)
				file = "memory.pressure";
		}
	} else {
		static const struct {
			const char *name;
			int f;
		} ones[] = {
			{"memory.usage_in_bytes", PMAPS_CG_CURRENT},
			{"memory.max_usage_in_bytes", PMAPS_CG_PEAK},
			{"memory.limit_in_bytes", PMAPS_CG_MAX},
			{"memory.failcnt", PMAPS_CG_EVENTS_MAX},
			{"memory.kmem.usage_in_bytes", PMAPS_CG_KERNEL},
		};
		for (size_t i = 0; i < sizeof(ones) / sizeof(ones[0]) && r == 0; i++)
			if ((r = one_into(dirfd, ones[i].name, &w, ones[i].f)) < 0)
				file = ones[i].name;
		if (r == 0 && !(w.present & 1ull << PMAPS_CG_CURRENT))
			r = -ENOENT, file = "memory.usage_in_bytes";
		if (r == 0 && (r = read_kv(dirfd, "memory.stat", stat1, sizeof(stat1) / sizeof(stat1[0]),
		                           w.v, &w.present)) < 0)
			file = "memory.stat";
		if (r == 0 && (r = read_kv(dirfd, "memory.oom_control", oom_control1, 1, w.v,
		                           &w.present)) == -ENOENT)
			r = 0;
		else if (r < 0 && !file)
			file = "memory.oom_control";
	}
	if (r < 0) {
		if (msg)
			pmaps__msg(msg, msgsz, "%s: %s", file ? file : "memory cgroup",
			           r == -EBADMSG ? "a value that is not a number, or not a regular file"
			                         : pmaps_strerror(r));
		return r;
	}
	w.size = m->size;
	pmaps__copy_out(m, m->size, &w, sizeof(w));
	return 0;
}

/* ---- what a path says ---- */

static int is_hex(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f')))
			return 0;
	return 1;
}

static int has_prefix(const char *p, size_t n, const char *pre)
{
	size_t k = strlen(pre);

	return n >= k && memcmp(p, pre, k) == 0;
}

static int has_suffix(const char *p, size_t n, const char *suf)
{
	size_t k = strlen(suf);

	return n >= k && memcmp(p + n - k, suf, k) == 0;
}

/* A container's scope or directory: its 64-hex ID and runtime into ID. */
static void container_of(const char *c, size_t n, int below_docker, int below_kubepods,
                         struct pmaps_cgroup_ident *id)
{
	static const struct {
		const char *prefix;
		const char *runtime;
	} scopes[] = {
		{"docker-", "docker"},
		{"cri-containerd-", "containerd"},
		{"crio-", "crio"},
		{"libpod-", "podman"},
	};
	const char *hex = NULL;
	const char *runtime = "";

	if (n == 64 && is_hex(c, 64) && (below_docker || below_kubepods)) {
		hex = c;
		runtime = below_docker ? "docker" : "";
	} else if (has_suffix(c, n, ".scope")) {
		for (size_t i = 0; i < sizeof(scopes) / sizeof(scopes[0]); i++) {
			size_t k = strlen(scopes[i].prefix);
			if (n == k + 64 + 6 && has_prefix(c, n, scopes[i].prefix) && is_hex(c + k, 64)) {
				hex = c + k;
				runtime = scopes[i].runtime;
			}
		}
	}
	if (!hex)
		return;
	memcpy(id->container_id, hex, 64);
	id->container_id[64] = '\0';
	snprintf(id->runtime, sizeof(id->runtime), "%s", runtime);
}

/* "pod" + a UID (dashes, or underscores under the systemd driver) at C into ID. */
static int pod_of(const char *c, size_t n, struct pmaps_cgroup_ident *id)
{
	if (n != 3 + 36 || !has_prefix(c, n, "pod"))
		return 0;
	/* Checked whole before any of it is kept: a near miss leaves no part behind. */
	for (size_t i = 0; i < 36; i++) {
		char ch = c[3 + i];
		int dash = i == 8 || i == 13 || i == 18 || i == 23;
		if (dash ? (ch != '-' && ch != '_') : !is_hex(&ch, 1))
			return 0;
	}
	for (size_t i = 0; i < 36; i++)
		id->pod_uid[i] = c[3 + i] == '_' ? '-' : c[3 + i];
	id->pod_uid[36] = '\0';
	return 1;
}

void pmaps_cgroup_ident(const char *path, size_t len, struct pmaps_cgroup_ident *id)
{
	const char *p = path, *end = path + len;
	int below_docker = 0, below_kubepods = 0;

	memset(id, 0, sizeof(*id));
	while (p < end) {
		const char *slash = memchr(p, '/', (size_t)(end - p));
		size_t n = (size_t)((slash ? slash : end) - p);
		if (n > 0) {
			container_of(p, n, below_docker, below_kubepods, id);
			if (n == 6 && memcmp(p, "docker", 6) == 0)
				below_docker = 1;
			if ((n == 8 && memcmp(p, "kubepods", 8) == 0) ||
			    (n == 14 && memcmp(p, "kubepods.slice", 14) == 0))
				below_kubepods = 1;
			if (below_kubepods) {
				/* cgroupfs: /kubepods/QOS/podUID; systemd: kubepods-QOS-podUID.slice */
				if ((n == 9 && memcmp(p, "burstable", 9) == 0) ||
				    (n == 10 && memcmp(p, "besteffort", 10) == 0))
					snprintf(id->qos, sizeof(id->qos), "%.*s", (int)n, p);
				if (has_prefix(p, n, "kubepods-") && has_suffix(p, n, ".slice")) {
					const char *q = p + 9, *qe = p + n - 6;
					if (has_prefix(q, (size_t)(qe - q), "burstable"))
						snprintf(id->qos, sizeof(id->qos), "burstable"), q += 10;
					else if (has_prefix(q, (size_t)(qe - q), "besteffort"))
						snprintf(id->qos, sizeof(id->qos), "besteffort"), q += 11;
					if (q < qe && pod_of(q, (size_t)(qe - q), id) && !id->qos[0])
						snprintf(id->qos, sizeof(id->qos), "guaranteed");
				} else if (pod_of(p, n, id) && !id->qos[0]) {
					snprintf(id->qos, sizeof(id->qos), "guaranteed");
				}
			}
			if (has_suffix(p, n, ".service") || has_suffix(p, n, ".scope")) {
				id->unit.ptr = p;
				id->unit.len = n;
			}
		}
		p += n + 1;
	}
}

/* ---- a reader in a cgroup namespace of its own ---- */

int pmaps_cgroup_path_join(const char *root, size_t rlen, const char *path, size_t plen,
                           char *out, size_t room)
{
	const char *p = path, *end = path + plen;
	size_t len = 0;

	if (plen == 0 || path[0] != '/' || rlen == 0 || root[0] != '/')
		return -EINVAL;
	if (room < 2)
		return -ENAMETOOLONG;
	/* ROOT without its trailing slashes ("/" is the empty prefix). */
	while (rlen > 0 && root[rlen - 1] == '/')
		rlen--;
	if (rlen >= room)
		return -ENAMETOOLONG;
	memcpy(out, root, rlen);
	len = rlen;
	while (p < end) {
		const char *slash;
		size_t n;
		while (p < end && *p == '/')
			p++;
		if (p == end)
			break;
		slash = memchr(p, '/', (size_t)(end - p));
		n = (size_t)((slash ? slash : end) - p);
		if (n == 1 && p[0] == '.') {
			/* nothing */
		} else if (n == 2 && p[0] == '.' && p[1] == '.') {
			if (len == 0)
				return -EINVAL; /* above the tree's root */
			while (len > 0 && out[len - 1] != '/')
				len--;
			len--; /* the slash */
		} else {
			if (len + 1 + n >= room)
				return -ENAMETOOLONG;
			out[len++] = '/';
			memcpy(out + len, p, n);
			len += n;
		}
		p += n;
	}
	if (len == 0)
		out[len++] = '/';
	out[len] = '\0';
	return (int)len;
}

/* Whether the cgroup.procs of DIRFD lists PID: 1, 0, or a negative errno. */
static int procs_list(int dirfd, int pid)
{
	char buf[4096];
	uint64_t v = 0;
	int digits = 0, found = 0, r;
	ssize_t n;
	int fd = pmaps__open_regular(dirfd, "cgroup.procs", 0, NULL, 0);

	if (fd < 0)
		return fd;
	/* Numbers a line each, across the reads' pieces; a long list is read to its end. */
	while (!found && (n = pmaps__read(fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n; i++) {
			char c = buf[i];
			if (c >= '0' && c <= '9') {
				if (v < 100000000u)
					v = v * 10 + (uint64_t)(c - '0');
				digits = 1;
			} else {
				if (digits && v == (uint64_t)pid)
					found = 1;
				v = 0;
				digits = 0;
			}
		}
	}
	if (!found && digits && v == (uint64_t)pid)
		found = 1;
	r = n < 0 && errno ? -errno : -EIO;
	close(fd);
	return found || n == 0 ? found : r;
}

/*
 * Depth first below DIRFD (PATH[0, LEN) its path) for the cgroup listing
 * PID; *LEFT directories may still be opened. Its path's length, or -errno.
 */
static int find_pid(int dirfd, int pid, char *path, size_t len, size_t room, int depth,
                    unsigned *left)
{
	char buf[PMAPS__DIR_MIN];
	struct pmaps__dir d;
	const char *name;
	int r;

	r = procs_list(dirfd, pid);
	if (r == 1)
		return (int)len;
	if (depth >= 64 || pmaps__dir_open(&d, dirfd, ".", buf, sizeof(buf)) < 0)
		return -ENOENT;
	r = -ENOENT;
	while (r == -ENOENT && pmaps__dir_next(&d, &name) == 1) {
		size_t n = strlen(name);
		int fd;
		if (d.type != DT_DIR && d.type != DT_UNKNOWN)
			continue;
		if (*left == 0)
			break;
		(*left)--;
		if (len + 1 + n >= room) {
			r = -ENAMETOOLONG;
			break;
		}
		fd = openat(dirfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue; /* removed meanwhile, or a file */
		path[len] = '/';
		memcpy(path + len + 1, name, n + 1);
		r = find_pid(fd, pid, path, len + 1 + n, room, depth + 1, left);
		close(fd);
	}
	pmaps__dir_close(&d);
	return r;
}

/* Whether the v1 line's controllers [P, END) ("cpu,memory") name memory. */
static int names_memory(const char *p, const char *end)
{
	while (p < end) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		const char *e = comma ? comma : end;
		if (e - p == 6 && memcmp(p, "memory", 6) == 0)
			return 1;
		p = e + 1;
	}
	return 0;
}

void pmaps__cgroup_file_paths(const char *buf, size_t n, struct pmaps_view *v2,
                              struct pmaps_view *mem)
{
	const char *p, *end = buf + n, *nl;

	*v2 = *mem = (struct pmaps_view){NULL, 0};
	for (p = buf; p < end; p = nl + 1) {
		const char *c1, *c2;
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		if (nl - p >= 3 && memcmp(p, "0::", 3) == 0) {
			*v2 = (struct pmaps_view){p + 3, (size_t)(nl - p - 3)};
			continue;
		}
		/* "N:controllers:/path" */
		c1 = memchr(p, ':', (size_t)(nl - p));
		c2 = c1 ? memchr(c1 + 1, ':', (size_t)(nl - c1 - 1)) : NULL;
		if (c2 && names_memory(c1 + 1, c2))
			*mem = (struct pmaps_view){c2 + 1, (size_t)(nl - c2 - 1)};
	}
}

/* This process's path in the hierarchy of VERSION, from /proc/self/cgroup, into OUT. */
static int own_path(int version, char *out, size_t room)
{
	char buf[4096];
	struct pmaps_view v2, mem, *path;
	ssize_t n;
	int err, fd = pmaps__open_regular(AT_FDCWD, "/proc/self/cgroup", 0, NULL, 0);

	if (fd < 0)
		return fd;
	n = pmaps__read(fd, buf, sizeof(buf));
	err = n < 0 && errno ? -errno : -ENOENT;
	close(fd);
	if (n <= 0)
		return err;
	/* Its last line cut by the buffer's end would be a path cut short. */
	if ((size_t)n == sizeof(buf) && buf[n - 1] != '\n')
		return -ENAMETOOLONG;
	pmaps__cgroup_file_paths(buf, (size_t)n, &v2, &mem);
	path = version == 2 ? &v2 : &mem;
	if (!path->ptr)
		return -ENOENT;
	if (path->len >= room)
		return -ENAMETOOLONG;
	memcpy(out, path->ptr, path->len);
	out[path->len] = '\0';
	return (int)path->len;
}

int pmaps_cgroup_ns_root(int rootfd, int version, char *out, size_t room)
{
	char self[1024];
	unsigned left = PMAPS_CGROUP_SEARCH_DIRS;
	int slen, len;

	if (room < 2)
		return -ENAMETOOLONG;
	slen = own_path(version, self, sizeof(self));
	if (slen < 0)
		return slen;
	len = find_pid(rootfd, (int)getpid(), out, 0, room, 0, &left);
	if (len < 0)
		return len;
	/* The namespace's root: the found path less SELF's ("/" names no component). */
	while (slen > 0 && self[slen - 1] == '/')
		slen--;
	if (slen > len || (slen > 0 && self[0] != '/') ||
	    memcmp(out + len - slen, self, (size_t)slen) != 0)
		return -EBADMSG;
	len -= slen;
	if (len == 0)
		out[len++] = '/';
	out[len] = '\0';
	return len;
}
