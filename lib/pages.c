/* SPDX-License-Identifier: MIT */
/*
 * pages.c - runs of pages of equal state, from PAGEMAP_SCAN or /proc/PID/pagemap.
 *
 * /proc/PID/pagemap (docs/internals/PAGES.md): one u64 per virtual page at
 * offset vaddr / PAGE_SIZE * 8; bit 63 present, 62 swapped (any non-present,
 * non-empty entry), 61 file page or shared anonymous, 58 guard (6.15), 57
 * uffd write-protected (5.13), 56 exclusively mapped (4.2), 55 soft-dirty;
 * bits 0-54 the PFN, zero unless the reader has CAP_SYS_ADMIN. Unmapped
 * addresses read 0; reads past the user address space return 0 bytes.
 *
 * PAGEMAP_SCAN (Linux 6.7; its structs in uapi.h): an ioctl on the same file that walks
 * the page tables and returns regions of pages with equal categories. Here
 * it reports only pages that are present, swapped, guard or soft-dirty
 * pages (so a sparse range costs few regions) and the gaps between them are
 * pages with no flags, as pagemap would read them. Each call is bounded
 * twice: by max_pages (pages reported) and by the length of address space
 * it may walk, so that no call holds the target's mmap_lock for a whole walk.
 * Where the kernel has it, the pagemap strategy also uses it: to read the
 * entries of a large range only where it found pages, and to learn the zero
 * page, which pagemap cannot tell from anonymous memory mapped twice.
 *
 * Either reader feeds "items" (address runs with flags) in address order to
 * a merger that joins equal neighbours into the runs the caller sees; items
 * whose pagemap entries are wanted (the pagemap strategy's flags, the frame
 * numbers of the kpageflags join) are split by them first. Resident means
 * present and not the zero page, as in smaps' Rss (docs/internals/PAGES.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "testhooks.h"


#define CAT_WRITTEN PMAPS__CAT_WRITTEN
#define CAT_FILE PMAPS__CAT_FILE
#define CAT_PRESENT PMAPS__CAT_PRESENT
#define CAT_SWAPPED PMAPS__CAT_SWAPPED
#define CAT_PFNZERO PMAPS__CAT_PFNZERO
#define CAT_HUGE PMAPS__CAT_HUGE
#define CAT_SOFT_DIRTY PMAPS__CAT_SOFT_DIRTY
#define CAT_GUARD PMAPS__CAT_GUARD

#define PM_PRESENT (1ull << 63)
#define PM_SWAPPED (1ull << 62)
#define PM_FILE (1ull << 61)
#define PM_GUARD (1ull << 58)
#define PM_UFFD_WP (1ull << 57)
#define PM_EXCLUSIVE (1ull << 56)
#define PM_SOFT_DIRTY (1ull << 55)
#define PM_ZERO (1ull << 59) /* pmaps' own mark (the kernel leaves 59 zero): the zero page */
#define PM_FLAGS (PM_PRESENT | PM_SWAPPED | PM_FILE | PM_GUARD | PM_UFFD_WP | PM_EXCLUSIVE | \
                  PM_SOFT_DIRTY | PM_ZERO)

#define SCAN_VEC PMAPS__SCAN_VEC
#define SCAN_MAX_PAGES PMAPS__SCAN_MAX_PAGES
#define SCAN_SPAN PMAPS__SCAN_SPAN
#define SCAN_SPAN_MAX PMAPS__SCAN_SPAN_MAX
#define PM_ENTRIES PMAPS__PM_ENTRIES
#define KWIN 2048              /* kpageflags/kpagecount entries read at once, at most */
#define KGAP 64                /* frames skipped inside one read rather than two reads */
#define PFN_MASK ((1ull << 55) - 1)
#define KEY_BITS 14            /* an entry's index in a sort key: PM_ENTRIES <= 1 << 14 */
#define NEAR_PAGES 64          /* empty pages read through rather than a second pread */
#define KPF_SHOWN (PMAPS_KPF_REFERENCED | PMAPS_KPF_DIRTY | PMAPS_KPF_LRU | PMAPS_KPF_ACTIVE | \
                   PMAPS_KPF_ANON | PMAPS_KPF_SWAPCACHE | PMAPS_KPF_SWAPBACKED | PMAPS_KPF_HUGE | \
                   PMAPS_KPF_UNEVICTABLE | PMAPS_KPF_KSM | PMAPS_KPF_THP | \
                   PMAPS_KPF_ZERO_PAGE | PMAPS_KPF_IDLE | PMAPS_KPF_MLOCKED)

static const char *const flag_names[] = {
	"present", "swapped", "file", "exclusive", "huge", "zero", "soft-dirty", "uffd-wp",
	"guard",
};

const char *pmaps_page_flag_name(unsigned flag)
{
	if (flag == 0 || (flag & (flag - 1)))
		return NULL;
	unsigned b = (unsigned)__builtin_ctz(flag);
	return b < sizeof(flag_names) / sizeof(flag_names[0]) ? flag_names[b] : NULL;
}

static const struct {
	uint64_t bit;
	const char *name;
} kpf_names[] = {
	{PMAPS_KPF_REFERENCED, "referenced"}, {PMAPS_KPF_DIRTY, "dirty"},
	{PMAPS_KPF_LRU, "lru"}, {PMAPS_KPF_ACTIVE, "active"}, {PMAPS_KPF_ANON, "anon"},
	{PMAPS_KPF_SWAPCACHE, "swapcache"}, {PMAPS_KPF_SWAPBACKED, "swapbacked"},
	{PMAPS_KPF_HUGE, "hugetlb"}, {PMAPS_KPF_UNEVICTABLE, "unevictable"},
	{PMAPS_KPF_KSM, "ksm"}, {PMAPS_KPF_THP, "thp"}, {PMAPS_KPF_ZERO_PAGE, "zero-page"},
	{PMAPS_KPF_IDLE, "idle"}, {PMAPS_KPF_MLOCKED, "mlocked"},
	{PMAPS_KPF_LAZYFREE, "lazyfree"},
};

const char *pmaps_kpage_flag_name(uint64_t flag)
{
	for (size_t i = 0; i < sizeof(kpf_names) / sizeof(kpf_names[0]); i++)
		if (kpf_names[i].bit == flag)
			return kpf_names[i].name;
	return NULL;
}

struct pmaps_pages {
	struct pmaps_proc *proc;
	int fd;
	enum pmaps_pages_strategy strategy;
	unsigned options;
	uint64_t page;
	unsigned shift;
	uint64_t guard_cat;          /* CAT_GUARD where the kernel knows it, else 0 */
	uint64_t start, end;         /* the sought range */
	uint64_t walked;             /* the reader has looked at [start, walked) */
	uint64_t emitted;            /* items cover [start, emitted) */
	uint64_t calls;
	uint64_t last_pause;         /* when the last pause ended */
	/* The walk's policy (GENTLE, or pmaps__pages_policy()) and what it spent. */
	uint32_t step_pages;         /* PAGEMAP_SCAN's max_pages */
	uint64_t hold_ns, pause_ns;  /* pause PAUSE_NS after HOLD_NS of walking (0: never) */
	uint64_t longest_ns;         /* the longest kernel call since the last seek */
	uint64_t last_ns;            /* the last kernel call's */
	uint64_t span;               /* PAGEMAP_SCAN's next span (SCAN_SPAN to SCAN_SPAN_MAX) */
	uint64_t pauses;
	int done, err, have;
	struct pmaps_page_range cur, out;
	struct pmaps__guard guard;   /* tells the end of the space from an exit or exec */
	/* PAGEMAP_SCAN: where the range holds anything */
	int scan;                    /* the ioctl works here */
	int use_scan;                /* items come from it (this seek) */
	struct pmaps__page_region *vec;
	size_t nvec, ivec;
	/*
	 * pagemap entries: the whole range in order where there is no
	 * PAGEMAP_SCAN; with it, only the regions it found, and only when
	 * entries are wanted (the pagemap strategy's flags, or the frame
	 * numbers of the join).
	 */
	uint64_t *pm;
	size_t npm, ipm;
	uint64_t pm_addr;            /* the address of pm[0] */
	int refining;                /* splitting REF by its entries */
	struct pmaps_page_range ref;
	uint64_t ref_pos;
	/* the kpageflags join */
	int kpage;                   /* 1 joined, 0 not asked for, -errno why not */
	int kpf_fd, kpc_fd;
	/*
	 * The physical state of the page each entry of PM names (0 for none),
	 * fetched once per buffer: where the frames follow each other (the
	 * common case: the kernel hands out memory in runs), one read of each
	 * file per run straight into these arrays; where they are scattered,
	 * sorted (KEYS) and read in clusters of nearby frames.
	 */
	uint64_t *ekf, *emc;         /* shown kpageflags and kpagecount; PM_ENTRIES each */
	uint64_t *keys;              /* frame << KEY_BITS | entry index; PM_ENTRIES */
	uint64_t kwin_f[KWIN], kwin_c[KWIN];
	char errmsg[PMAPS_ERRMSG_SIZE];
};

static int fail(struct pmaps_pages *c, int err, const char *what)
{
	c->err = err;
	if (what)
		pmaps__msg(c->errmsg, sizeof(c->errmsg), "%s: %s", what, pmaps_strerror(err));
	return err;
}

uint64_t pmaps__now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t pmaps__real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * Before a call: with a policy, once HOLD_NS of walking has passed
 * since the last pause (across mappings too: a walk of many small mappings
 * is back-to-back calls all the same), pause PAUSE_NS so that a waiting
 * mmap()/munmap() gets the lock.
 */
void pmaps__pause(uint64_t ns)
{
	if (ns < PMAPS__SPIN_NS) {
		/* Shorter than a sleep is kept (timer slack): wait on the clock. */
		uint64_t until = pmaps__now_ns() + ns;
		while (pmaps__now_ns() < until) {
#if defined(__x86_64__) || defined(__i386__)
			__builtin_ia32_pause();
#elif defined(__aarch64__)
			__asm__ volatile("yield");
#endif
		}
	} else {
		struct timespec ts = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
		nanosleep(&ts, NULL);
	}
}

static void gentle(struct pmaps_pages *c)
{
	uint64_t now;

	if (!c->pause_ns)
		return;
	now = pmaps__now_ns();
	/* HOLD_NS 0: after every call (the first of a walk excepted) */
	if (c->calls && now - c->last_pause >= c->hold_ns) {
		pmaps__pause(c->pause_ns);
		c->pauses++;
		c->last_pause = pmaps__now_ns();
	}
}

void pmaps__pages_policy(struct pmaps_pages *c, uint32_t step_pages, uint64_t hold_ns,
                         uint64_t pause_ns)
{
	c->step_pages = step_pages ? step_pages : SCAN_MAX_PAGES;
	c->hold_ns = hold_ns;
	c->pause_ns = pause_ns;
}

void pmaps__pages_spent(const struct pmaps_pages *c, uint64_t *longest_ns, uint64_t *pauses)
{
	*longest_ns = c->longest_ns;
	*pauses = c->pauses;
}

/* A timed kernel call's end: the longest so far is kept. */
static void timed(struct pmaps_pages *c, uint64_t t0)
{
	uint64_t d = pmaps__now_ns() - t0;

	c->calls++;
	c->last_ns = d;
	if (d > c->longest_ns)
		c->longest_ns = d;
}

/* The reader ended early or failed with ESRCH: exited, exec'd, or neither. */
static int gone(struct pmaps_pages *c, int err)
{
	int r = pmaps__guard_check(c->proc, &c->guard, "pagemap", c->errmsg, sizeof(c->errmsg));

	if (r < 0)
		return fail(c, r, NULL);
	return err ? fail(c, err, "pagemap") : 0;
}

pmaps__ioctl_fn pmaps__scan_hook;

int pmaps__scan(int fd, struct pmaps__page_region *vec, size_t cap, uint64_t start, uint64_t end,
                const struct pmaps__scan_step *step, uint64_t anyof, uint64_t ret,
                uint64_t *walk_end)
{
	struct pmaps__pm_scan_arg a;
	long n;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.start = start;
	a.end = end;
	a.vec = (uint64_t)(uintptr_t)vec;
	a.max_pages = step->pages;
	/*
	 * With pauses, few regions a call too: a region has a page at least,
	 * but a call that visits many small mappings holds the lock longest.
	 */
	a.vec_len = !step->paced ? cap : step->pages / 16 < 8 ? 8 : step->pages / 16;
	if (a.vec_len > cap)
		a.vec_len = cap;
	a.category_anyof_mask = anyof;
	a.return_mask = ret;
	do
		n = pmaps__scan_hook ? pmaps__scan_hook(fd, PMAPS_PAGEMAP_SCAN, &a)
		                     : ioctl(fd, PMAPS_PAGEMAP_SCAN, &a);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	VALGRIND_MAKE_MEM_DEFINED(&a, sizeof(a));
	VALGRIND_MAKE_MEM_DEFINED(vec, (size_t)n * sizeof(vec[0]));
	*walk_end = a.walk_end;
	return (int)n;
}

static int scan_call(struct pmaps_pages *c, uint64_t start, uint64_t end, uint64_t *walk_end,
                     uint64_t anyof)
{
	struct pmaps__scan_step step = {c->step_pages, c->pause_ns != 0};
	uint64_t t0 = pmaps__now_ns();
	int n = pmaps__scan(c->fd, c->vec, SCAN_VEC, start, end, &step, anyof,
	                    CAT_WRITTEN | CAT_FILE | CAT_PRESENT | CAT_SWAPPED | CAT_PFNZERO |
	                    CAT_HUGE | CAT_SOFT_DIRTY | c->guard_cat, walk_end);

	timed(c, t0);
	return n;
}

/* Does this kernel take PAGEMAP_SCAN, and the GUARD category? */
static int probe_scan(struct pmaps_pages *c)
{
	uint64_t we;
	int r;

	c->guard_cat = CAT_GUARD;
	r = scan_call(c, 0, 0, &we, CAT_PRESENT | CAT_GUARD);
	if (r == -EINVAL) {
		c->guard_cat = 0;
		r = scan_call(c, 0, 0, &we, CAT_PRESENT);
	}
	c->calls = 0;
	return r < 0 ? r : 0;
}

/* Opens /proc/kpageflags and kpagecount; where it cannot, says why and carries on. */
/*
 * Whether a pagemap this process opens shows frame numbers: the kernel
 * checks CAP_SYS_ADMIN in the initial user namespace at open (root in a
 * container, or without that capability, reads PFNs as 0). Asked of this
 * process's own pagemap, at the address of a byte on its stack.
 */
static int pfns_visible(void)
{
	volatile char here = 1;
	long ps = sysconf(_SC_PAGESIZE);
	uint64_t e = 0;
	ssize_t n;
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);

	if (fd < 0 || ps <= 0)
		return fd < 0 ? 0 : (close(fd), 0);
	n = pread(fd, &e, sizeof(e), (off_t)((uintptr_t)&here / (uintptr_t)ps * sizeof(e)));
	close(fd);
	return here && n == (ssize_t)sizeof(e) && (e & PM_PRESENT) && (e & PFN_MASK);
}

static int open_kpage(struct pmaps_pages *c)
{
	int e = 0;

	/* Regular files only, no symlinks, never blocking: a fixture tree's too. */
	c->kpf_fd = pmaps__open_file(c->proc, c->proc->rootfd, "kpageflags", NULL, 0);
	if (c->kpf_fd >= 0)
		c->kpc_fd = pmaps__open_file(c->proc, c->proc->rootfd, "kpagecount", NULL, 0);
	if (c->kpf_fd < 0 || c->kpc_fd < 0) {
		const char *which = c->kpf_fd < 0 ? "kpageflags" : "kpagecount";
		e = -(c->kpf_fd < 0 ? c->kpf_fd : c->kpc_fd);
		if (c->kpf_fd >= 0)
			close(c->kpf_fd);
		c->kpf_fd = c->kpc_fd = -1;
		c->kpage = e == EACCES || e == EPERM ? -EPERM : -e;
		pmaps__msg(c->errmsg, sizeof(c->errmsg), "%s: %s: showing pagemap flags only", which,
		           c->kpage == -EPERM ? "needs root (CAP_SYS_ADMIN)"
		           : e == ENOENT      ? "not in this proc tree (CONFIG_PROC_PAGE_MONITOR)"
		           : e == EBADMSG     ? "not a regular file"
		                              : strerror(e));
		return 0;
	}
	if (c->proc->live && !pfns_visible()) {
		/* The files open, but pagemap would hide the frames to look up in them. */
		close(c->kpf_fd);
		close(c->kpc_fd);
		c->kpf_fd = c->kpc_fd = -1;
		c->kpage = -EPERM;
		pmaps__msg(c->errmsg, sizeof(c->errmsg),
		           "pagemap: PFNs read as 0: needs root (CAP_SYS_ADMIN): showing pagemap "
		           "flags only");
		return 0;
	}
	if (!c->pm)
		c->pm = pmaps__alloc(PM_ENTRIES * sizeof(*c->pm));
	c->ekf = pmaps__alloc(3 * PM_ENTRIES * sizeof(uint64_t));
	if (!c->pm || !c->ekf)
		return fail(c, -ENOMEM, NULL);
	c->emc = c->ekf + PM_ENTRIES;
	c->keys = c->emc + PM_ENTRIES;
	c->kpage = 1;
	return 0;
}

int pmaps_pages_kpage(const struct pmaps_pages *c)
{
	return c->kpage;
}

/* Opens pagemap inside a guard that tells the end of the space from an exit or exec. */
static int open_pagemap(struct pmaps_pages *c)
{
	struct pmaps_proc *proc = c->proc;
	int fd, r;

	pmaps__guard_end(&c->guard);
	r = pmaps__guard_begin(proc, &c->guard, 1, "pagemap", c->errmsg, sizeof(c->errmsg));
	if (r < 0)
		return fail(c, r, NULL);
	fd = pmaps__open_file(proc, proc->memfd, "pagemap", c->errmsg, sizeof(c->errmsg));
	if (fd < 0) {
		if (fd == -EACCES || fd == -EPERM)
			pmaps__msg(c->errmsg, sizeof(c->errmsg),
			           "pagemap: permission denied: needs ptrace-read access to the process "
			           "(its own user, or root with CAP_SYS_PTRACE)");
		else if (fd == -ESRCH && pmaps_proc_is_kernel_thread(proc) == 1) {
			pmaps__msg(c->errmsg, sizeof(c->errmsg),
			           "pagemap: a kernel thread has no user-space memory");
			fd = -ENODATA;
		}
		return fail(c, fd, c->errmsg[0] ? NULL : "pagemap");
	}
	c->fd = fd;
	return 0;
}

int pmaps__pages_reopen(struct pmaps_pages *c, struct pmaps_proc *proc)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	c->proc = proc;
	c->done = 1;
	c->err = 0;
	if (c->kpage >= 0)
		c->errmsg[0] = '\0';
	return open_pagemap(c);
}

int pmaps_pages_open(struct pmaps_pages **out, struct pmaps_proc *proc,
                     enum pmaps_pages_strategy strategy, unsigned options)
{
	struct pmaps_pages *c;
	long ps = sysconf(_SC_PAGESIZE);
	int r;

	*out = NULL;
	if (!proc || (unsigned)strategy > PMAPS_PAGES_PAGEMAP || ps <= 0 || (ps & (ps - 1)))
		return -EINVAL;
	c = pmaps__alloc(sizeof(*c));
	if (!c)
		return -ENOMEM;
	memset(c, 0, sizeof(*c));
	c->proc = proc;
	c->options = options;
	c->page = (uint64_t)ps;
	c->shift = (unsigned)__builtin_ctzl((unsigned long)ps);
	c->fd = c->kpf_fd = c->kpc_fd = -1;
	c->guard.probe = -1;
	c->done = 1;
	if (options & PMAPS_PAGES_GENTLE)
		pmaps__pages_policy(c, PMAPS_POLICY_GENTLE_STEP, PMAPS_POLICY_GENTLE_HOLD_US * 1000ull,
		                    PMAPS_POLICY_GENTLE_PAUSE_US * 1000ull);
	else if (options & PMAPS_PAGES_PACED)
		pmaps__pages_policy(c, PMAPS_POLICY_GENTLE_STEP, PMAPS_POLICY_PACED_HOLD_US * 1000ull,
		                    PMAPS_POLICY_GENTLE_PAUSE_US * 1000ull);
	else
		pmaps__pages_policy(c, 0, 0, 0);
	*out = c;
	r = open_pagemap(c);
	if (r < 0)
		return r;
	c->strategy = strategy == PMAPS_PAGES_PAGEMAP ? PMAPS_PAGES_PAGEMAP : PMAPS_PAGES_SCAN;
	/*
	 * The pagemap strategy takes its flags from pagemap entries, but where
	 * the kernel has PAGEMAP_SCAN it reads only the entries of the regions
	 * the ioctl finds: pages it does not report provably read as 0 (or as
	 * soft-dirty alone, which it reports too), and a reservation of
	 * terabytes is not read 8 bytes a page. Without the ioctl it reads
	 * every entry, as it must.
	 */
	c->vec = pmaps__alloc(SCAN_VEC * sizeof(*c->vec));
	if (!c->vec)
		return fail(c, -ENOMEM, NULL);
	r = probe_scan(c);
	if (r == 0) {
		c->scan = 1;
	} else if (strategy == PMAPS_PAGES_SCAN ||
	           (strategy == PMAPS_PAGES_AUTO && r != -ENOTTY && r != -EINVAL)) {
		if (r == -ENOTTY)
			pmaps__msg(c->errmsg, sizeof(c->errmsg),
			           "PAGEMAP_SCAN: not provided by this kernel (needs Linux 6.7)");
		return fail(c, r, c->errmsg[0] ? NULL : "PAGEMAP_SCAN");
	} else {
		c->strategy = PMAPS_PAGES_PAGEMAP;
	}
	if (c->strategy == PMAPS_PAGES_PAGEMAP || (options & PMAPS_PAGES_EXCLUSIVE)) {
		c->pm = pmaps__alloc(PM_ENTRIES * sizeof(*c->pm));
		if (!c->pm)
			return fail(c, -ENOMEM, NULL);
	}
	if (options & PMAPS_PAGES_KPAGE)
		return open_kpage(c);
	return 0;
}

enum pmaps_pages_strategy pmaps_pages_strategy(const struct pmaps_pages *c)
{
	return c->strategy;
}

unsigned pmaps_pages_known(const struct pmaps_pages *c)
{
	unsigned f = PMAPS_PG_COMMON;

	if (c->strategy == PMAPS_PAGES_SCAN)
		f |= PMAPS_PG_HUGE | PMAPS_PG_ZERO |
		     (c->options & PMAPS_PAGES_EXCLUSIVE ? PMAPS_PG_EXCLUSIVE : 0);
	else
		f |= PMAPS_PG_EXCLUSIVE | (c->scan || c->kpage == 1 ? PMAPS_PG_ZERO : 0);
	return f;
}

int pmaps_pages_seek(struct pmaps_pages *c, uint64_t start, uint64_t end)
{
	uint64_t mask = c->page - 1;

	if (c->fd < 0)
		return c->err ? c->err : -EBADF;
	if (end < start)
		return -EINVAL;
	start &= ~mask;
	end = end > UINT64_MAX - mask ? UINT64_MAX & ~mask : (end + mask) & ~mask;
	c->start = c->walked = c->emitted = start;
	c->span = SCAN_SPAN;
	c->end = end;
	c->done = c->err = c->have = 0;
	c->nvec = c->ivec = c->npm = c->ipm = 0;
	c->pm_addr = 0;
	/*
	 * The pagemap strategy reads a range of one buffer or less whole (one
	 * pread: cheaper than an ioctl and a pread, as on 60k small mappings)
	 * and asks PAGEMAP_SCAN only where the zero page may be; a larger one
	 * only where PAGEMAP_SCAN finds anything.
	 */
	c->use_scan = c->scan && (c->strategy == PMAPS_PAGES_SCAN ||
	                          (end - start) >> c->shift > PM_ENTRIES);
	c->refining = 0;
	c->calls = c->longest_ns = c->pauses = 0;
	if (c->kpage >= 0)
		c->errmsg[0] = '\0'; /* a kpage refusal stays readable */
	return 0;
}

uint64_t pmaps_pages_calls(const struct pmaps_pages *c)
{
	return c->calls;
}

static unsigned from_entry(uint64_t e)
{
	unsigned f = 0;

	f |= e & PM_PRESENT ? PMAPS_PG_PRESENT : 0;
	f |= e & PM_SWAPPED ? PMAPS_PG_SWAPPED : 0;
	f |= e & PM_FILE ? PMAPS_PG_FILE : 0;
	f |= e & PM_EXCLUSIVE ? PMAPS_PG_EXCLUSIVE : 0;
	f |= e & PM_SOFT_DIRTY ? PMAPS_PG_SOFT_DIRTY : 0;
	f |= e & PM_UFFD_WP ? PMAPS_PG_UFFD_WP : 0;
	f |= e & PM_GUARD ? PMAPS_PG_GUARD : 0;
	f |= e & PM_ZERO ? PMAPS_PG_ZERO : 0;
	if (f & PMAPS_PG_GUARD)
		f &= ~PMAPS_PG_SWAPPED; /* a guard marker also reads as swapped */
	if (f & PMAPS_PG_ZERO) /* pagemap marks the huge zero page file */
		f &= ~(PMAPS_PG_FILE | PMAPS_PG_EXCLUSIVE);
	return f;
}

/*
 * The next item from PAGEMAP_SCAN: a reported region, or the gap before it
 * (pages with no flags). Returns 1, 0 at the end of the range, or -errno.
 */
static int scan_item(struct pmaps_pages *c, struct pmaps_page_range *it)
{
	for (;;) {
		if (c->ivec < c->nvec) {
			const struct pmaps__page_region *r = &c->vec[c->ivec];
			uint64_t rs = r->start < c->start ? c->start : r->start;
			uint64_t re = r->end > c->end ? c->end : r->end;
			if (c->emitted < rs) {
				it->start = c->emitted;
				it->end = rs;
				it->flags = 0;
				c->emitted = rs;
				return 1;
			}
			c->ivec++;
			if (re <= rs)
				continue;
			it->start = rs;
			it->end = re;
			it->flags = pmaps__scan_flags(r->categories);
			c->emitted = re;
			return 1;
		}
		if (c->walked < c->end) {
			uint64_t stop = c->end - c->walked > c->span ? c->walked + c->span : c->end;
			uint64_t we = 0;
			int n;
			gentle(c);
			/*
			 * SOFT_DIRTY too: pagemap marks every entry of a VM_SOFTDIRTY
			 * mapping soft-dirty, untouched ones included, and so must
			 * both readers.
			 */
			n = scan_call(c, c->walked, stop, &we,
			              CAT_PRESENT | CAT_SWAPPED | CAT_SOFT_DIRTY | c->guard_cat);
			if (n == -EFAULT && c->walked < PMAPS__USER_TOP47 && stop > PMAPS__USER_TOP47) {
				/* A range that crosses the end of user space: the part below it. */
				stop = PMAPS__USER_TOP47;
				n = scan_call(c, c->walked, stop, &we,
				              CAT_PRESENT | CAT_SWAPPED | CAT_SOFT_DIRTY | c->guard_cat);
			}
			if (n == -EFAULT) {
				/*
				 * Past the user address space ([vsyscall] is no VMA): no
				 * page there has a state, as pagemap reads it.
				 */
				c->walked = c->end;
				c->nvec = c->ivec = 0;
				continue;
			}
			if (n < 0) {
				if (n == -ESRCH)
					return gone(c, -ESRCH);
				return fail(c, n, "PAGEMAP_SCAN");
			}
			if (we <= c->walked || we > stop) {
				pmaps__msg(c->errmsg, sizeof(c->errmsg),
				           "PAGEMAP_SCAN: no progress at %llx (walk_end %llx)",
				           (unsigned long long)c->walked, (unsigned long long)we);
				return fail(c, -EIO, NULL);
			}
			c->walked = we;
			c->nvec = (size_t)n;
			c->ivec = 0;
			if (n == 0 && we == stop && c->last_ns <= PMAPS__SCAN_QUICK_NS)
				c->span = c->span < SCAN_SPAN_MAX / 2 ? c->span * 2 : SCAN_SPAN_MAX;
			else
				c->span = SCAN_SPAN;
			continue;
		}
		if (c->emitted < c->end) {
			it->start = c->emitted;
			it->end = c->end;
			it->flags = 0;
			c->emitted = c->end;
			return 1;
		}
		return 0;
	}
}

static int kpage_fetch(struct pmaps_pages *c, const uint64_t *ents, size_t n);

/* Clears the bit pmaps marks with, should a later kernel ever set it. */
static void unmark(uint64_t *pm, size_t n)
{
	for (size_t i = 0; i < n; i++)
		pm[i] &= ~PM_ZERO;
}

/*
 * Whether entry I of the buffer may map the zero page: present and not
 * exclusive, and either not file (the zero page, or anonymous memory mapped
 * twice) or file in a 2 MiB block that could be the huge zero page (only
 * ever mapped whole by one PMD: every entry of the block alike, or the
 * block not all in the buffer). Else the index of the block's last entry
 * in *SKIP, which may be passed over.
 */
static int zero_candidate(const struct pmaps_pages *c, size_t i, size_t *skip)
{
	uint64_t e = c->pm[i], a = c->pm_addr + ((uint64_t)i << c->shift);
	size_t per = (size_t)((2u << 20) >> c->shift), first, k;

	*skip = i;
	if ((e & (PM_PRESENT | PM_EXCLUSIVE)) != PM_PRESENT)
		return 0;
	if (!(e & PM_FILE))
		return 1;
	a &= ~(uint64_t)((2u << 20) - 1);
	if (a < c->pm_addr || ((a - c->pm_addr) >> c->shift) + per > c->npm)
		return 1;
	first = (size_t)((a - c->pm_addr) >> c->shift);
	for (k = first; k < first + per; k++)
		if ((c->pm[k] & PM_FLAGS) != (e & PM_FLAGS))
			break;
	*skip = first + per - 1;
	return k == first + per;
}

/*
 * Marks PM_ZERO on the entries of the buffer that map the zero page, as
 * PAGEMAP_SCAN reports it: pagemap reads the zero page as a present page
 * neither exclusive nor file (the huge one as file), just as it reads an
 * anonymous page mapped twice. Asked only where such entries are.
 */
static int mark_zero(struct pmaps_pages *c)
{
	uint64_t end = c->pm_addr + ((uint64_t)c->npm << c->shift), at, we;
	size_t i, skip;

	for (i = 0; i < c->npm && !zero_candidate(c, i, &skip); i = skip + 1)
		;
	for (at = c->pm_addr + ((uint64_t)i << c->shift); at < end; at = we) {
		int n = scan_call(c, at, end, &we, CAT_PFNZERO);
		if (n < 0)
			return n == -ESRCH ? gone(c, -ESRCH) : fail(c, n, "PAGEMAP_SCAN");
		if (we <= at || we > end) {
			pmaps__msg(c->errmsg, sizeof(c->errmsg),
			           "PAGEMAP_SCAN: no progress at %llx (walk_end %llx)",
			           (unsigned long long)at, (unsigned long long)we);
			return fail(c, -EIO, NULL);
		}
		for (int k = 0; k < n; k++) {
			uint64_t s = c->vec[k].start < at ? at : c->vec[k].start;
			uint64_t e = c->vec[k].end > end ? end : c->vec[k].end;
			for (; s < e; s += c->page) {
				uint64_t *x = &c->pm[(s - c->pm_addr) >> c->shift];
				*x |= *x & PM_PRESENT ? PM_ZERO : 0;
			}
		}
	}
	return 0;
}

/* The next item from pagemap: a run of entries with equal flag bits. */
static int pagemap_item(struct pmaps_pages *c, struct pmaps_page_range *it)
{
	for (;;) {
		if (c->ipm < c->npm) {
			size_t i = c->ipm;
			uint64_t f = c->pm[i] & PM_FLAGS;
			if (f == 0) {
				/* Untouched pages, the bulk of a sparse range: four at a time. */
				i++;
				while (i + 4 <= c->npm &&
				       ((c->pm[i] | c->pm[i + 1] | c->pm[i + 2] | c->pm[i + 3]) & PM_FLAGS) == 0)
					i += 4;
				i--;
			}
			while (++i < c->npm && (c->pm[i] & PM_FLAGS) == f)
				;
			it->start = c->pm_addr + ((uint64_t)c->ipm << c->shift);
			it->end = c->pm_addr + ((uint64_t)i << c->shift);
			it->flags = from_entry(f);
			c->ipm = i;
			return 1;
		}
		if (c->walked < c->end) {
			uint64_t pages = (c->end - c->walked) >> c->shift;
			size_t want = pages > PM_ENTRIES ? PM_ENTRIES : (size_t)pages;
			off_t off = (off_t)((c->walked >> c->shift) * 8);
			ssize_t n;
			uint64_t t0;
			gentle(c);
			t0 = pmaps__now_ns();
			do
				n = pmaps__pread(c->fd, c->pm, want * 8, off);
			while (n < 0 && errno == EINTR);
			timed(c, t0);
			if (n < 0) {
				int e = errno;
				if (e == ESRCH)
					return gone(c, -ESRCH);
				return fail(c, -e, "pagemap");
			}
			if (n == 0) {
				/* Past the user address space, or the process is gone. */
				int r = gone(c, 0);
				if (r < 0)
					return r;
				it->start = c->walked;
				it->end = c->end;
				it->flags = 0;
				c->walked = c->end;
				return 1;
			}
			if (n % 8) {
				pmaps__msg(c->errmsg, sizeof(c->errmsg),
				           "pagemap: a read of %zd bytes is not whole entries", n);
				return fail(c, -EIO, NULL);
			}
			c->pm_addr = c->walked;
			c->npm = (size_t)n / 8;
			c->ipm = 0;
			unmark(c->pm, c->npm);
			c->walked += (uint64_t)c->npm << c->shift;
			/* With kpageflags, ZERO_PAGE says it: no PAGEMAP_SCAN call for it. */
			if (c->scan && c->kpage != 1 && mark_zero(c) < 0)
				return c->err;
			if (c->kpage == 1 && kpage_fetch(c, c->pm, c->npm) < 0)
				return c->err;
			continue;
		}
		return 0;
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static uint64_t shown(uint64_t raw)
{
	uint64_t kf = raw & KPF_SHOWN;

	if (pmaps__kpf_lazyfree(raw))
		kf |= PMAPS_KPF_LAZYFREE;
	return kf;
}

/*
 * Reads the shown kpageflags of N frames from FIRST into KF (N <= PM_ENTRIES);
 * frames past the last one read as 0. Returns 0 or -errno.
 */
static int read_flags(struct pmaps_pages *c, uint64_t first, size_t n, uint64_t *kf)
{
	ssize_t got;
	size_t i;

	do
		got = pmaps__pread(c->kpf_fd, kf, n * 8, (off_t)(first * 8));
	while (got < 0 && errno == EINTR);
	c->calls++;
	if (got < 0)
		return fail(c, -errno, "kpageflags");
	for (i = 0; i < (size_t)got / 8; i++)
		kf[i] = shown(kf[i]);
	for (; i < n; i++)
		kf[i] = 0;
	return 0;
}

/* The same for kpagecount into MC. */
static int read_counts(struct pmaps_pages *c, uint64_t first, size_t n, uint64_t *mc)
{
	ssize_t got;

	do
		got = pmaps__pread(c->kpc_fd, mc, n * 8, (off_t)(first * 8));
	while (got < 0 && errno == EINTR);
	c->calls++;
	if (got < 0)
		return fail(c, -errno, "kpagecount");
	memset(mc + got / 8, 0, (n - (size_t)got / 8) * 8);
	return 0;
}

/*
 * Whether the map count of a page must be read: pagemap's exclusive bit
 * (4.2) is the kernel's "mapped exactly once" for a page that is not part
 * of a large folio (kpagecount counts the same mappings), so a private
 * page's count needs no second read. A large folio's kpagecount may be an
 * average (CONFIG_NO_PAGE_MAPCOUNT), and KSM pages are read as well.
 */
static int count_unknown(uint64_t ent, uint64_t kf)
{
	return !(ent & PM_EXCLUSIVE) || (kf & (PMAPS_KPF_THP | PMAPS_KPF_HUGE | PMAPS_KPF_KSM));
}

/* Frames scattered: sorted with their entries' indexes, read in clusters. */
static int fetch_sorted(struct pmaps_pages *c, const uint64_t *ents, size_t n)
{
	size_t k = 0, i;

	for (i = 0; i < n; i++) {
		uint64_t pfn = ents[i] & PFN_MASK;
		c->ekf[i] = c->emc[i] = 0;
		/* No machine has 2^50 frames of 4 KiB; such an entry is not joined. */
		if ((ents[i] & PM_PRESENT) && pfn && pfn < (1ull << (64 - KEY_BITS)))
			c->keys[k++] = pfn << KEY_BITS | i;
	}
	qsort(c->keys, k, sizeof(*c->keys), cmp_u64);
	for (i = 0; i < k;) {
		uint64_t first = c->keys[i] >> KEY_BITS, last = first;
		size_t j = i + 1;
		/* A cluster: frames no more than KGAP apart, within one read. */
		while (j < k && (c->keys[j] >> KEY_BITS) - last <= KGAP &&
		       (c->keys[j] >> KEY_BITS) - first < KWIN)
			last = c->keys[j++] >> KEY_BITS;
		size_t width = (size_t)(last - first + 1);
		int counts = 0;
		if (read_flags(c, first, width, c->kwin_f) < 0)
			return c->err;
		for (size_t x = i; x < j && !counts; x++)
			counts = count_unknown(ents[c->keys[x] & ((1u << KEY_BITS) - 1)],
			                       c->kwin_f[(c->keys[x] >> KEY_BITS) - first]);
		if (counts && read_counts(c, first, width, c->kwin_c) < 0)
			return c->err;
		for (; i < j; i++) {
			size_t at = (size_t)((c->keys[i] >> KEY_BITS) - first);
			size_t e = (size_t)(c->keys[i] & ((1u << KEY_BITS) - 1));
			c->ekf[e] = c->kwin_f[at];
			c->emc[e] = counts ? c->kwin_c[at] : 1;
		}
	}
	return 0;
}

/*
 * Fetches kpageflags and kpagecount for every frame the N entries name, into
 * EKF and EMC at the entries' indexes. Frames that follow each other in
 * entry order (a run) are read with one pread of each file, straight into
 * place: no sort, no lookup. A page mapped again at once (the zero page)
 * copies its neighbour. Scattered frames (runs shorter than 4 on average)
 * would cost two preads a page: those are sorted and read in clusters.
 */
static int kpage_fetch(struct pmaps_pages *c, const uint64_t *ents, size_t n)
{
	size_t i, j, k, present = 0, runs = 0;
	uint64_t prev = 0;

	_Static_assert(PM_ENTRIES <= 1u << KEY_BITS, "sort keys hold an entry index");
	for (i = 0; i < n; i++) {
		uint64_t pfn = ents[i] & PFN_MASK;
		if (!(ents[i] & PM_PRESENT) || !pfn) {
			prev = 0;
			continue;
		}
		present++;
		runs += !prev || (pfn != prev + 1 && pfn != prev);
		prev = pfn;
	}
	if (runs * 4 > present)
		return fetch_sorted(c, ents, n);
	for (i = 0; i < n; i = j) {
		uint64_t pfn = ents[i] & PFN_MASK;
		j = i + 1;
		if (!(ents[i] & PM_PRESENT) || !pfn) {
			c->ekf[i] = c->emc[i] = 0;
			continue;
		}
		if (i && (ents[i - 1] & PM_PRESENT) && (ents[i - 1] & PFN_MASK) == pfn) {
			c->ekf[i] = c->ekf[i - 1];
			c->emc[i] = c->emc[i - 1];
			continue;
		}
		while (j < n && (ents[j] & PM_PRESENT) && (ents[j] & PFN_MASK) == pfn + (j - i))
			j++;
		if (read_flags(c, pfn, j - i, c->ekf + i) < 0)
			return c->err;
		for (k = i; k < j && !count_unknown(ents[k], c->ekf[k]); k++)
			c->emc[k] = 1;
		if (k < j && read_counts(c, pfn, j - i, c->emc + i) < 0)
			return c->err;
	}
	return 0;
}

/*
 * With PAGEMAP_SCAN, whether item IT is read again from pagemap: every
 * region that holds pages for the pagemap strategy (regions of soft-dirty
 * untouched pages read as exactly that: no need), present regions for the
 * join; never the gaps, which pagemap reads as 0.
 */
static int wants_entries(const struct pmaps_pages *c, const struct pmaps_page_range *it)
{
	if (c->use_scan && c->strategy == PMAPS_PAGES_PAGEMAP)
		return (it->flags & (PMAPS_PG_PRESENT | PMAPS_PG_SWAPPED | PMAPS_PG_GUARD)) != 0;
	return (c->kpage == 1 || (c->options & PMAPS_PAGES_EXCLUSIVE)) &&
	       (it->flags & PMAPS_PG_PRESENT);
}

/*
 * With PAGEMAP_SCAN: reads the pagemap entries from REF_POS to the end of
 * REF, and on through the next regions the last call found where they are
 * near, in one pread of at most PM_ENTRIES. Returns 1, 0 when the space
 * ended there (nothing more to learn), or -errno.
 */
static int load_entries(struct pmaps_pages *c)
{
	uint64_t from = c->ref_pos, to = c->ref.end;
	uint64_t limit = from + ((uint64_t)PM_ENTRIES << c->shift);
	uint64_t near = (uint64_t)NEAR_PAGES << c->shift;
	uint64_t t0;
	ssize_t got;

	for (size_t k = c->ivec; k < c->nvec && c->vec[k].start - to <= near && c->vec[k].end <= limit;
	     k++)
		to = c->vec[k].end;
	to = to > limit ? limit : to;
	to = to > c->end ? c->end : to;
	gentle(c);
	t0 = pmaps__now_ns();
	do
		got = pmaps__pread(c->fd, c->pm, (size_t)((to - from) >> c->shift) * 8,
		                   (off_t)((from >> c->shift) * 8));
	while (got < 0 && errno == EINTR);
	timed(c, t0);
	if (got < 0)
		return errno == ESRCH ? gone(c, -ESRCH) : fail(c, -errno, "pagemap");
	if (got < 8) {
		int r = gone(c, 0);
		return r < 0 ? r : 0;
	}
	if (got % 8) {
		pmaps__msg(c->errmsg, sizeof(c->errmsg), "pagemap: a read of %zd bytes is not whole entries",
		           got);
		return fail(c, -EIO, NULL);
	}
	c->pm_addr = from;
	c->npm = (size_t)got / 8;
	unmark(c->pm, c->npm);
	if (c->kpage == 1 && kpage_fetch(c, c->pm, c->npm) < 0)
		return c->err;
	return 1;
}

/*
 * Splits REF by its pagemap entries: the next part of it whose pages share
 * the entry's flags (the pagemap strategy), kflags and map count (the
 * join) and, with PFN, follow each other in physical memory. A page that
 * kpageflags calls the zero page is "zero", neither file nor exclusive
 * (pagemap marks the huge zero page file: it has no anonymous mapping).
 * Returns 1, 0 when REF is done, or -errno.
 */
static int refine_item(struct pmaps_pages *c, struct pmaps_page_range *it)
{
	const uint64_t *e;
	uint64_t avail, f0, pfn0, kf0 = 0, mc0 = 0;
	size_t n, at;
	int join, bypm = c->strategy == PMAPS_PAGES_PAGEMAP;
	int excl = !bypm && (c->options & PMAPS_PAGES_EXCLUSIVE);

	if (c->ref_pos >= c->ref.end)
		return 0;
	if (c->ref_pos < c->pm_addr || c->ref_pos >= c->pm_addr + ((uint64_t)c->npm << c->shift)) {
		/* Only with PAGEMAP_SCAN: the pagemap reader's runs lie in its buffer. */
		int r = load_entries(c);
		if (r <= 0) {
			if (r < 0)
				return r;
			*it = c->ref; /* nothing more to learn: the rest as it is */
			it->start = c->ref_pos;
			c->ref_pos = c->ref.end;
			return 1;
		}
	}
	at = (size_t)((c->ref_pos - c->pm_addr) >> c->shift);
	e = c->pm + at;
	avail = c->npm - at;
	if (avail > (c->ref.end - c->ref_pos) >> c->shift)
		avail = (c->ref.end - c->ref_pos) >> c->shift;
	*it = c->ref;
	it->start = c->ref_pos;
	f0 = e[0] & PM_FLAGS;
	pfn0 = e[0] & PFN_MASK;
	if (bypm) /* PAGEMAP_SCAN's zero page, where it found the region (and still is) */
		it->flags = from_entry(f0) | (f0 & PM_PRESENT ? c->ref.flags & PMAPS_PG_ZERO : 0);
	join = c->kpage == 1 && (e[0] & PM_PRESENT);
	if (join && pfn0 == 0) {
		/* PFNs read as 0: the pagemap was opened without CAP_SYS_ADMIN. */
		c->kpage = -EPERM;
		pmaps__msg(c->errmsg, sizeof(c->errmsg),
		           "pagemap: PFNs read as 0: needs root (CAP_SYS_ADMIN): showing "
		           "pagemap flags only");
		join = 0;
	}
	if (excl && (f0 & PM_PRESENT) && (f0 & PM_EXCLUSIVE))
		it->flags |= PMAPS_PG_EXCLUSIVE;
	if (!join && !bypm && !excl) {
		/* PAGEMAP_SCAN's flags, nothing to split them by */
		it->end = c->ref.end;
		c->ref_pos = c->ref.end;
		return 1;
	}
	if (join) {
		kf0 = c->ekf[at];
		mc0 = c->emc[at];
	}
	for (n = 1; n < avail; n++) {
		uint64_t x = e[n];
		if (bypm ? (x & PM_FLAGS) != f0 : !(x & PM_PRESENT))
			break;
		if (excl && ((x ^ f0) & PM_EXCLUSIVE))
			break;
		if (!join)
			continue;
		if (((c->options & PMAPS_PAGES_PFN) && (x & PFN_MASK) != pfn0 + n) ||
		    c->ekf[at + n] != kf0 || c->emc[at + n] != mc0)
			break;
	}
	if (join) {
		it->kflags = kf0;
		it->mapcount = mc0;
		it->pfn = c->options & PMAPS_PAGES_PFN ? pfn0 : 0;
		if (kf0 & PMAPS_KPF_ZERO_PAGE)
			it->flags |= PMAPS_PG_ZERO;
	}
	if (it->flags & PMAPS_PG_ZERO)
		it->flags &= ~(unsigned)(PMAPS_PG_FILE | PMAPS_PG_EXCLUSIVE);
	it->end = c->ref_pos + ((uint64_t)n << c->shift);
	c->ref_pos = it->end;
	return 1;
}

static int same_run(const struct pmaps_pages *c, const struct pmaps_page_range *a,
                    const struct pmaps_page_range *b)
{
	if (a->end != b->start || a->flags != b->flags || a->kflags != b->kflags ||
	    a->mapcount != b->mapcount)
		return 0;
	return !(c->options & PMAPS_PAGES_PFN) || !a->pfn ||
	       a->pfn + ((a->end - a->start) >> c->shift) == b->pfn;
}

int pmaps_pages_next(struct pmaps_pages *c, const struct pmaps_page_range **range)
{
	struct pmaps_page_range it;
	int r;

	if (c->err)
		return c->err;
	if (c->done)
		return 0;
	for (;;) {
		if (c->refining) {
			r = refine_item(c, &it);
			if (r < 0)
				return r;
			if (r == 0) {
				c->refining = 0;
				continue;
			}
		} else {
			r = c->use_scan ? scan_item(c, &it) : pagemap_item(c, &it);
			if (r < 0)
				return r;
			it.kflags = it.mapcount = it.pfn = 0;
			if (r > 0 && wants_entries(c, &it)) {
				c->ref = it;
				c->ref_pos = it.start;
				c->refining = 1;
				continue;
			}
		}
		if (r == 0) {
			c->done = 1;
			if (!c->have)
				return 0;
			c->have = 0;
			c->out = c->cur;
			*range = &c->out;
			return 1;
		}
		if (c->have && same_run(c, &c->cur, &it)) {
			c->cur.end = it.end;
			continue;
		}
		if (c->have) {
			c->out = c->cur;
			c->cur = it;
			*range = &c->out;
			return 1;
		}
		c->cur = it;
		c->have = 1;
	}
}

const char *pmaps_pages_errmsg(const struct pmaps_pages *c)
{
	return c->errmsg;
}

void pmaps_pages_close(struct pmaps_pages *c)
{
	if (!c)
		return;
	if (c->fd >= 0)
		close(c->fd);
	pmaps__guard_end(&c->guard);
	if (c->kpf_fd >= 0)
		close(c->kpf_fd);
	if (c->kpc_fd >= 0)
		close(c->kpc_fd);
	pmaps__free(c->ekf);
	pmaps__free(c->vec);
	pmaps__free(c->pm);
	pmaps__free(c);
}

static const char *const count_keys[PMAPS_PC_COUNT] = {
	"pages", "resident", "swapped", "file", "zero", "huge", "exclusive", "shared",
	/* kpageflags' bits: named so, never taken for smaps' Dirty or Referenced */
	"kpf_dirty", "kpf_active", "kpf_referenced", "kpf_idle", "lazyfree", "kpf_thp",
	"kpf_mlocked",
	"mapped_by_2_or_more", "mapped_by_0", "mapped_by_1", "mapped_by_2", "mapped_by_3_4",
	"mapped_by_5_8", "mapped_by_9_or_more",
};

const char *pmaps_page_count_key(enum pmaps_page_count k)
{
	return (unsigned)k < PMAPS_PC_COUNT ? count_keys[k] : NULL;
}

/*
 * Adds a run to the counts. Resident is what smaps calls Rss: present
 * pages other than the shared zero page (or the huge zero page), which
 * count as zero and nowhere else; EXCLUSIVE + SHARED = RESIDENT, and every
 * physical count (THP among them) is of resident pages only.
 */
static void count_run(uint64_t *n, const struct pmaps_page_range *r, unsigned shift)
{
	uint64_t p = (r->end - r->start) >> shift, mc = r->mapcount;
	unsigned f = r->flags;

	n[PMAPS_PC_PAGES] += p;
	n[PMAPS_PC_SWAPPED] += f & PMAPS_PG_SWAPPED ? p : 0;
	if ((f & PMAPS_PG_PRESENT) && (f & PMAPS_PG_ZERO)) {
		n[PMAPS_PC_ZERO] += p;
		return;
	}
	n[PMAPS_PC_FILE] += f & PMAPS_PG_FILE ? p : 0;
	if (!(f & PMAPS_PG_PRESENT))
		return;
	n[PMAPS_PC_RESIDENT] += p;
	n[f & PMAPS_PG_EXCLUSIVE ? PMAPS_PC_EXCLUSIVE : PMAPS_PC_SHARED] += p;
	n[PMAPS_PC_HUGE] += f & PMAPS_PG_HUGE ? p : 0;
	n[PMAPS_PC_DIRTY] += r->kflags & PMAPS_KPF_DIRTY ? p : 0;
	n[PMAPS_PC_ACTIVE] += r->kflags & PMAPS_KPF_ACTIVE ? p : 0;
	n[PMAPS_PC_REFERENCED] += r->kflags & PMAPS_KPF_REFERENCED ? p : 0;
	n[PMAPS_PC_LAZYFREE] += r->kflags & PMAPS_KPF_LAZYFREE ? p : 0;
	n[PMAPS_PC_THP] += r->kflags & PMAPS_KPF_THP ? p : 0;
	n[PMAPS_PC_MLOCKED] += r->kflags & PMAPS_KPF_MLOCKED ? p : 0;
	n[PMAPS_PC_IDLE] += r->kflags & PMAPS_KPF_IDLE ? p : 0;
	n[PMAPS_PC_MAPPED_2] += mc >= 2 ? p : 0;
	/*
	 * Map count 0 on a resident page is no "mapped once": kpagecount
	 * averages over a large folio (a partly mapped one rounds to 0) and
	 * reads 0 for a page unmapped since pagemap was read.
	 */
	n[mc == 0 ? PMAPS_PC_MAPPED_BY_0 : mc == 1 ? PMAPS_PC_MAPPED_BY_1
	  : mc == 2 ? PMAPS_PC_MAPPED_BY_2 : mc <= 4 ? PMAPS_PC_MAPPED_BY_3_4
	  : mc <= 8 ? PMAPS_PC_MAPPED_BY_5_8 : PMAPS_PC_MAPPED_BY_9] += p;
}

/* The counts a cursor that can see FLAGS (pmaps_pages_known()) can tell. */
static uint64_t known_counts(unsigned flags, int joined)
{
	uint64_t k = 1ull << PMAPS_PC_PAGES | 1ull << PMAPS_PC_RESIDENT |
	             1ull << PMAPS_PC_SWAPPED | 1ull << PMAPS_PC_FILE;

	if (flags & PMAPS_PG_ZERO)
		k |= 1ull << PMAPS_PC_ZERO;
	if (flags & PMAPS_PG_HUGE)
		k |= 1ull << PMAPS_PC_HUGE;
	if (flags & PMAPS_PG_EXCLUSIVE)
		k |= 1ull << PMAPS_PC_EXCLUSIVE | 1ull << PMAPS_PC_SHARED;
	if (joined)
		for (int i = PMAPS_PC_DIRTY; i < PMAPS_PC_COUNT; i++)
			k |= 1ull << i;
	return k;
}

uint64_t pmaps_page_range_pages(const struct pmaps_page_range *r)
{
	return (r->end - r->start) / (uint64_t)sysconf(_SC_PAGESIZE);
}

/* The whole summary of [START, END) into S, the library's own struct. */
static int summarize(struct pmaps_pages *c, uint64_t start, uint64_t end,
                     struct pmaps_page_summary *s)
{
	const struct pmaps_page_range *r;
	long ps = sysconf(_SC_PAGESIZE);
	unsigned shift;
	int err;

	if (ps <= 0 || (ps & (ps - 1)))
		return -EINVAL;
	shift = (unsigned)__builtin_ctzl((unsigned long)ps);
	err = pmaps_pages_seek(c, start, end);
	if (err < 0)
		return err;
	s->page_size = (unsigned)ps;
	s->start = c->start;
	s->end = c->end;
	while ((err = pmaps_pages_next(c, &r)) > 0)
		count_run(s->n, r, shift);
	if (err < 0)
		return err;
	/* After the walk: a cursor can lose ZERO at its first present page. */
	s->known = known_counts(pmaps_pages_known(c), pmaps_pages_kpage(c) == 1);
	return 0;
}

int pmaps_pages_summarize(struct pmaps_pages *c, uint64_t start, uint64_t end,
                          struct pmaps_page_summary *out)
{
	struct pmaps_page_summary whole;
	int err;

	if (!out || !pmaps__size_ok(out->size, PMAPS__SUMMARY_SIZE0)) {
		pmaps__msg(c->errmsg, sizeof(c->errmsg),
		           "struct pmaps_page_summary: size %u, below %zu: set it to sizeof",
		           out ? out->size : 0u, PMAPS__SUMMARY_SIZE0);
		return -EINVAL;
	}
	memset(&whole, 0, sizeof(whole));
	err = summarize(c, start, end, &whole);
	whole.size = out->size;
	pmaps__copy_out(out, out->size, &whole, sizeof(whole));
	return err;
}
