/* SPDX-License-Identifier: MIT */
/*
 * fast.c - the page sources behind a maps cursor: PMAPS_SRC_FAST and
 * PMAPS_SRC_PAGES (docs/internals/SOURCES.md).
 *
 * A row is a mapping from the VMA list (the PROCMAP_QUERY ioctl on
 * /proc/PID/maps, Linux 6.11+; the maps text before) with its pages counted
 * from the page tables instead of from the smaps text, which costs the
 * kernel ~1.7 us a mapping to format and holds the target's mmap_lock for
 * the whole walk:
 *  - FAST with PAGEMAP_SCAN (6.7+): one walk over the whole address space
 *    in address order, beside the VMA list, in calls that report a bounded
 *    number of pages; the regions it returns can span mappings and are
 *    split at their ends. Unmapped gaps cost nothing: the ioctl skips them.
 *  - PAGES, and FAST without the ioctl: a page cursor (pages.c) sought to
 *    each mapping, which reads pagemap's entries over the present pages
 *    (the exclusive bit: USS) and, as root, joins kpagecount (Pss) and
 *    kpageflags (LazyFree).
 * What a source cannot see is absent from the row's present mask, never 0.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "testhooks.h"


#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

#define VEC 1024                /* regions per PAGEMAP_SCAN call */
#define PSS_SHIFT 12            /* the kernel's fixed point for Pss */

int pmaps__no_procmap_query;
int pmaps__procmap_query_list;
int pmaps__no_pagemap_scan;

/* How much each row gets: bits of what the reader can see. */
enum {
	SEE_RSS = 1u << 0,      /* present pages, and the zero page apart */
	SEE_HUGE = 1u << 1,     /* PMD-mapped THP */
	SEE_EXCL = 1u << 2,     /* pagemap's exclusive bit */
	SEE_KPAGE = 1u << 3,    /* kpagecount and kpageflags */
};

/* What a device-less mount's files are, as far as a page count is concerned. */
enum {
	DEV_SHMEM_MAYBE,  /* listed: tmpfs, devtmpfs, overlay, ...; small pages */
	DEV_NOT_SHMEM,    /* listed, and positively not shared memory (not_shmem_fs()) */
	DEV_HUGETLB,      /* hugetlbfs: its page size is the mount's */
	DEV_UNLISTED = -1 /* not in mountinfo: the kernel's own mounts (memfd, SysV, MAP_HUGETLB) */
};

struct acc {
	uint64_t rss, anon, swap, zero, anon_huge, file_huge, excl, lazy, pss_fp;
};

struct pmaps__fast {
	struct pmaps_proc *proc;
	enum pmaps_source src;
	char *errmsg;                /* the cursor's, PMAPS_ERRMSG_SIZE */
	uint64_t page;
	unsigned shift;
	int err, done;
	/* the VMA list */
	int query;                   /* the list: 1 PROCMAP_QUERY; 0 the maps text; -1 not chosen */
	int qok;                     /* PROCMAP_QUERY can settle a text row: 1, 0 (no ioctl) */
	int qfd;                     /* maps, for the ioctl (opened when a text row first asks) */
	struct pmaps_maps *text;     /* the maps text, when it is the list */
	struct pmaps__guard guard;   /* the ioctl's read: whole, or cut by an exit or exec */
	uint64_t next_addr, prev_end;
	unsigned line;
	/* pages: the merged walk, or a page cursor per mapping */
	int merged;
	int pmfd;
	uint64_t top;                /* the end of the user address space */
	uint64_t guard_cat;
	struct pmaps__page_region *vec;
	size_t nvec, ivec;
	uint64_t walked;
	uint64_t span;      /* the next PAGEMAP_SCAN call's span (uapi.h: SCAN_SPAN_MAX) */
	uint64_t last_ns;   /* the last call's time */
	struct pmaps_pages *pages;
	int win_open, have_run;      /* the page cursor's window, and a run read from it */
	uint64_t win_end;
	struct pmaps_page_range run;
	unsigned see;
	/* the row being read */
	int row_open, row_hugetlb;
	uint64_t row_page_size;      /* the ioctl's page size of the mapping, or 0 */
	uint64_t pos;
	struct acc acc;
	uint64_t pss_total_fp;
	/* the policy, and what the read spent */
	struct pmaps_policy pol;
	uint64_t t_read, t_end, t_slice, last_pause; /* T_END: the read ended (0 while not) */
	uint64_t slice_steps;        /* steps made in this slice of the budget */
	uint64_t calls, longest, pauses;
	uint64_t page_calls, page_longest, page_pauses; /* the page cursor's, mappings before */
	struct pmaps__del_cache del;
	int no_map_files;
	/* the device-less mounts, by kind (read_mounts()) */
#define DEVS_MAX 256
	int mifd;                    /* mountinfo, kept open to poll */
	int mounts_checked;          /* this read looked at the mounts (dev_kind()) */
	uint32_t devs[DEVS_MAX];     /* the mount's minor << 2 | DEV_* (their major is 0) */
	unsigned ndevs;
	uint64_t last_dev;           /* the last lookup's minor + 1, or 0 */
	int last_kind;
	struct pmaps_mapping row;    /* the row PROCMAP_QUERY fills */
	/*
	 * The row being made: ROW, or, from the maps text, the text cursor's
	 * own row, finished in place (no copy: only this source reads it).
	 */
	struct pmaps_mapping *cur;
	char path[PMAPS_PATH_BUF];
	/* mountinfo's lines, apart from PATH: the mounts are read mid-row (dev_kind()) */
	char mounts_buf[PMAPS_PATH_BUF];
};

static int fail(struct pmaps__fast *f, int err, const char *what)
{
	f->err = err;
	if (what)
		pmaps__msg(f->errmsg, PMAPS_ERRMSG_SIZE, "%s: %s", what, pmaps_strerror(err));
	return err;
}

/* The read ended early or with ESRCH: exited, exec'd, or neither. */
static int gone(struct pmaps__fast *f, int err, const char *what)
{
	int r;

	f->guard.gone = err == -ESRCH;
	r = pmaps__guard_check(f->proc, &f->guard, what, f->errmsg, PMAPS_ERRMSG_SIZE);
	if (r < 0)
		return fail(f, r, NULL);
	if (err == -ESRCH) {
		pmaps__msg(f->errmsg, PMAPS_ERRMSG_SIZE, "%s: process %d exited while it was read", what,
		           f->proc->pid);
		return fail(f, -ESRCH, NULL);
	}
	return err ? fail(f, err, what) : 0;
}

/* ---- the policy ---- */

static void slice_start(struct pmaps__fast *f)
{
	f->t_slice = f->last_pause = pmaps__now_ns();
	f->slice_steps = 0;
}

/*
 * Before a kernel call of the walk: over the budget (-ETIME), or with PAUSE
 * (the merged walk: the page cursor pauses by itself) time to pause.
 */
static int before_call(struct pmaps__fast *f, int pause)
{
	uint64_t now;

	if (!f->pol.budget_ns && !f->pol.pause_us)
		return 0;
	now = pmaps__now_ns();
	/* Past the budget, once the slice has made progress: the next call resumes. */
	if (f->pol.budget_ns && f->slice_steps && now - f->t_slice >= f->pol.budget_ns) {
		f->t_slice = now;
		f->slice_steps = 0;
		return -ETIME;
	}
	f->slice_steps++;
	/* HOLD_US 0: a pause before every call but the read's first */
	if (pause && f->pol.pause_us && f->calls &&
	    now - f->last_pause >= f->pol.hold_us * 1000ull) {
		pmaps__pause(f->pol.pause_us * 1000ull);
		f->pauses++;
		f->last_pause = pmaps__now_ns();
	}
	return 0;
}

void pmaps__fast_policy(struct pmaps__fast *f, const struct pmaps_policy *p)
{
	memset(&f->pol, 0, sizeof(f->pol));
	if (p)
		memcpy(&f->pol, p, p->size < sizeof(f->pol) ? p->size : sizeof(f->pol));
	f->pol.size = sizeof(f->pol);
	/* A budget counts from here: a walk resumed later gets a slice of its own. */
	slice_start(f);
	if (f->pages)
		pmaps__pages_policy(f->pages, f->pol.step_pages, f->pol.hold_us * 1000ull,
		                    f->pol.pause_us * 1000ull);
}

/* ---- the VMA list ---- */


static int query_call(struct pmaps__fast *f, struct pmaps__procmap_query *q, uint64_t addr,
                      size_t name_size)
{
	int r;

	/* Not timed: the ioctl takes no lock that a target's mmap() waits for (6.16+). */
	memset(q, 0, sizeof(*q));
	q->size = sizeof(*q);
	q->query_flags = PMAPS__QUERY_COVERING_OR_NEXT_VMA;
	q->query_addr = addr;
	/* A name buffer, or none: the kernel refuses an address without a size */
	q->vma_name_addr = name_size ? (uint64_t)(uintptr_t)f->path : 0;
	q->vma_name_size = (uint32_t)name_size;
	do
		r = ioctl(f->qfd, PMAPS_PROCMAP_QUERY, q);
	while (r < 0 && errno == EINTR);
	f->calls++;
	if (r < 0)
		return -errno;
	VALGRIND_MAKE_MEM_DEFINED(q, sizeof(*q));
	if (name_size && q->vma_name_size)
		VALGRIND_MAKE_MEM_DEFINED(f->path, q->vma_name_size < name_size ? q->vma_name_size
		                                                                 : name_size);
	return 0;
}

/* The next mapping from PROCMAP_QUERY into the row. Returns 1, 0 at the end, or -errno. */
static int query_next(struct pmaps__fast *f)
{
	struct pmaps__procmap_query q;
	struct pmaps_mapping *m = f->cur = &f->row;
	size_t len;
	int r;

	r = query_call(f, &q, f->next_addr, sizeof(f->path));
	m->flags = PMAPS__ROW_SRC(f->src);
	if (r == -ENAMETOOLONG) {
		/* No name the kernel makes is that long; keep the row, without it. */
		r = query_call(f, &q, f->next_addr, 0);
		m->flags |= PMAPS_ROW_PATH_TRUNCATED;
		q.vma_name_size = 0;
	}
	if (r == -ENOENT) {
		r = gone(f, 0, "PROCMAP_QUERY");
		return r < 0 ? r : 0;
	}
	if (r < 0)
		return r == -ESRCH ? gone(f, r, "PROCMAP_QUERY") : fail(f, r, "PROCMAP_QUERY");
	if (q.vma_end <= q.vma_start || q.vma_end <= f->next_addr) {
		pmaps__msg(f->errmsg, PMAPS_ERRMSG_SIZE,
		           "PROCMAP_QUERY: no progress at %llx (mapping %llx-%llx)",
		           (unsigned long long)f->next_addr, (unsigned long long)q.vma_start,
		           (unsigned long long)q.vma_end);
		return fail(f, -EIO, NULL);
	}
	len = q.vma_name_size ? q.vma_name_size - 1 : 0;
	if (len >= sizeof(f->path))
		len = sizeof(f->path) - 1;
	f->path[len] = '\0';
	m->start = q.vma_start;
	m->end = q.vma_end;
	m->offset = q.vma_offset;
	m->inode = q.inode;
	m->dev_major = q.dev_major;
	m->dev_minor = q.dev_minor;
	/* The ioctl's r/w/x/shared bits are PMAPS_PERM_*'s. */
	m->perms = (unsigned)(q.vma_flags & 0xf);
	m->path.ptr = f->path;
	m->path.len = len;
	m->line = ++f->line;
	if (m->start < f->prev_end)
		m->flags |= PMAPS_ROW_OVERLAP;
	if (memchr(f->path, '\n', len))
		m->flags |= PMAPS_ROW_PATH_ESCAPED; /* raw from the ioctl: a real newline */
	if (m->inode && len >= 10 && memcmp(f->path + len - 10, " (deleted)", 10) == 0) {
		m->flags |= PMAPS_ROW_DELETED;
		pmaps__check_deleted(f->proc, m, &f->del, &f->no_map_files);
	}
	pmaps__classify(m, f->src);
	f->row_hugetlb = q.vma_page_size > f->page || m->kind == PMAPS_KIND_HUGETLB;
	if (f->row_hugetlb)
		m->kind = PMAPS_KIND_HUGETLB;
	m->present = 1ull << PMAPS_F_SIZE | 1ull << PMAPS_F_KERNEL_PAGE_SIZE;
	f->row_page_size = q.vma_page_size;
	f->next_addr = q.vma_end;
	return 1;
}

static int dev_kind(struct pmaps__fast *f, uint32_t minor);

/*
 * Whether a row of the maps text is a hugetlb mapping, whose pages smaps
 * never counts in Rss and whose page size the text does not print: 2 when
 * it is (MAP_HUGETLB's name, a file on hugetlbfs), 1 when it may be (a file
 * on a device-less mount the process's mountinfo does not list: the
 * kernel's own mounts, where a memfd or SysV segment may be hugetlb), 0
 * when it is not.
 */
static int may_be_hugetlb(struct pmaps__fast *f, const struct pmaps_mapping *m)
{
	int k;

	if (m->kind == PMAPS_KIND_HUGETLB)
		return 2;
	if (!m->inode || m->dev_major != 0)
		return 0;
	k = dev_kind(f, m->dev_minor);
	return k == DEV_HUGETLB ? 2 : k == DEV_UNLISTED;
}

/*
 * Settles what the maps text leaves open about the row, with one
 * PROCMAP_QUERY for this very mapping: its name unescaped (NAME) and its
 * page size. Returns 1 when answered, 0 when it cannot be (no ioctl here;
 * the mapping changed or went since the text was read), or -errno.
 */
static int ask_row(struct pmaps__fast *f, struct pmaps_mapping *m, int name)
{
	struct pmaps__procmap_query q;
	size_t len;
	int r;

	if (f->qfd < 0) {
		r = pmaps__open_file(f->proc, f->proc->memfd, "maps", NULL, 0);
		if (r < 0)
			return r == -ENOENT ? -ESRCH : r;
		f->qfd = r;
	}
	r = query_call(f, &q, m->start, name ? sizeof(f->path) : 0);
	if (r == -ENAMETOOLONG && name) {
		name = 0;
		r = query_call(f, &q, m->start, 0);
	}
	if (r == -ENOTTY || r == -EINVAL) {
		f->qok = 0; /* a kernel without it (or with a smaller struct) */
		return 0;
	}
	if (r == -ENOENT || r == -ESRCH)
		return 0; /* gone: the read's end finds out how */
	if (r < 0)
		return r;
	if (q.vma_start != m->start || q.vma_end != m->end || q.inode != m->inode)
		return 0; /* another mapping there by now */
	f->row_page_size = q.vma_page_size;
	if (name) {
		len = q.vma_name_size ? q.vma_name_size - 1 : 0;
		if (len >= sizeof(f->path))
			len = sizeof(f->path) - 1;
		f->path[len] = '\0';
		m->path.ptr = f->path;
		m->path.len = len;
		m->flags &= ~PMAPS_ROW_PATH_ESCAPED;
		if (memchr(f->path, '\n', len))
			m->flags |= PMAPS_ROW_PATH_ESCAPED; /* raw from the ioctl: a real newline */
	}
	return 1;
}

/*
 * The next mapping from the maps text. What the text cannot tell is asked
 * of PROCMAP_QUERY for the rows that need it only: a name printed with
 * "\012" (a newline, or those four bytes), and the page size of a mapping
 * that may be hugetlb (may_be_hugetlb()). Every other row's page size is
 * the base page: only hugetlb (and device DAX) mappings have another.
 */
static int text_next(struct pmaps__fast *f)
{
	const struct pmaps_mapping *t;
	struct pmaps_mapping *m;
	int r = pmaps_maps_next(f->text, &t), huge, asked = 0;

	if (r <= 0) {
		if (r < 0) {
			pmaps__msg(f->errmsg, PMAPS_ERRMSG_SIZE, "%s", pmaps_maps_errmsg(f->text));
			return fail(f, r, NULL);
		}
		return 0;
	}
	/*
	 * The text cursor's row, made this source's: its v[] is zeroed once
	 * (finish_row() writes the same entries on every row) and the rest is
	 * set again by the text cursor for each row.
	 */
	m = f->cur = pmaps__maps_row(f->text);
	m->flags = (m->flags & ~PMAPS__ROW_SRC_MASK) | PMAPS__ROW_SRC(f->src);
	m->present = 1ull << PMAPS_F_SIZE;
	f->row_page_size = 0;
	huge = may_be_hugetlb(f, m);
	if (f->qok && (huge || (m->flags & PMAPS_ROW_PATH_ESCAPED))) {
		r = ask_row(f, m, (m->flags & PMAPS_ROW_PATH_ESCAPED) != 0);
		if (r < 0)
			return r == -ESRCH ? gone(f, r, "PROCMAP_QUERY") : fail(f, r, "PROCMAP_QUERY");
		asked = r;
	}
	if (!huge) {
		f->row_page_size = f->page;
		m->present |= 1ull << PMAPS_F_KERNEL_PAGE_SIZE;
	} else if (asked) {
		m->present |= 1ull << PMAPS_F_KERNEL_PAGE_SIZE;
	}
	/* Unasked, by its name or mount only (before 6.11: a hugetlb memfd is not known). */
	f->row_hugetlb = asked ? f->row_page_size > f->page : huge == 2;
	if (f->row_hugetlb)
		m->kind = PMAPS_KIND_HUGETLB;
	return 1;
}

/* ---- pages ---- */

/*
 * N pages of state FL (PMAPS_PG_*; KFLAGS and MAPCOUNT from the kpage
 * join, else 0), the part of a region or run inside the row, into the
 * row's counts: one set of rules for both walks.
 */
static inline __attribute__((always_inline)) void count(struct pmaps__fast *f, unsigned fl,
                                                       uint64_t kflags, uint64_t mapcount,
                                                       uint64_t n)
{
	struct acc *a = &f->acc;
	uint64_t unit = f->page << PSS_SHIFT;

	if (fl & PMAPS_PG_PRESENT) {
		if (fl & PMAPS_PG_ZERO) {
			a->zero += n;
			return;
		}
		a->rss += n;
		if (!(fl & PMAPS_PG_FILE))
			a->anon += n;
		if (fl & PMAPS_PG_HUGE)
			*(fl & PMAPS_PG_FILE ? &a->file_huge : &a->anon_huge) += n;
		if (fl & PMAPS_PG_EXCLUSIVE)
			a->excl += n;
		if (kflags & PMAPS_KPF_LAZYFREE)
			a->lazy += n;
		/* smaps: a page mapped N >= 2 times adds 1/N of it; else all of it */
		a->pss_fp += n * (mapcount >= 2 ? unit / mapcount : unit);
	} else if ((fl & PMAPS_PG_SWAPPED) && !(fl & PMAPS_PG_GUARD)) {
		a->swap += n;
	}
}

static int scan_call(struct pmaps__fast *f, uint64_t start, uint64_t end, uint64_t *walk_end)
{
	struct pmaps__scan_step step = {f->pol.step_pages ? f->pol.step_pages
	                                                  : PMAPS__SCAN_MAX_PAGES,
	                                f->pol.pause_us != 0};
	uint64_t t0 = pmaps__now_ns(), d;
	int n = pmaps__scan(f->pmfd, f->vec, VEC, start, end, &step,
	                    PMAPS__CAT_PRESENT | PMAPS__CAT_SWAPPED,
	                    PMAPS__CAT_PRESENT | PMAPS__CAT_SWAPPED | PMAPS__CAT_FILE |
	                    PMAPS__CAT_PFNZERO | PMAPS__CAT_HUGE | f->guard_cat, walk_end);

	d = pmaps__now_ns() - t0;
	f->last_ns = d;
	f->calls++;
	if (d > f->longest)
		f->longest = d;
	return n;
}

/*
 * Counts the pages of the row from the merged walk: the regions already
 * fetched, then more calls from where the walk stopped, until it has passed
 * the row's end. Returns 0 (the row is counted), -ETIME, or -errno.
 */
static int merged_row(struct pmaps__fast *f)
{
	uint64_t e = f->cur->end;

	for (;;) {
		uint64_t we = 0, from, end;
		int n;

		while (f->ivec < f->nvec) {
			const struct pmaps__page_region *r = &f->vec[f->ivec];
			uint64_t rs, re;
			if (r->start >= e)
				return 0; /* the next rows' */
			rs = r->start > f->pos ? r->start : f->pos;
			re = r->end < e ? r->end : e;
			if (re > rs && !f->row_hugetlb)
				count(f, pmaps__scan_flags(r->categories), 0, 0, (re - rs) >> f->shift);
			if (r->end > e) {
				f->pos = e;
				return 0; /* it goes on into the next row */
			}
			if (re > f->pos)
				f->pos = re;
			f->ivec++;
		}
		if (f->walked >= e)
			return 0;
		n = before_call(f, 1);
		if (n < 0)
			return n;
		from = f->walked > f->pos ? f->walked : f->pos;
		/*
		 * At most SPAN of address space per call, as the page cursor: a
		 * sparse but populated range costs the walk of its page tables, not
		 * only the pages reported; empty space quickly walked widens it.
		 * Past the row's end it takes in the rows that follow closely; the
		 * gaps before far ones are never walked.
		 */
		end = from + f->span;
		if (end < from || end > f->top)
			end = f->top;
		if (end <= from)
			end = e;
		n = scan_call(f, from, end, &we);
		if (n == -EFAULT && e < end)
			n = scan_call(f, from, e, &we);
		if (n == -EFAULT) {
			/* Past the user address space ([vsyscall] is no VMA): no pages. */
			f->walked = e;
			f->nvec = f->ivec = 0;
			continue;
		}
		if (n < 0)
			return n == -ESRCH ? gone(f, n, "PAGEMAP_SCAN") : fail(f, n, "PAGEMAP_SCAN");
		if (we <= from) {
			pmaps__msg(f->errmsg, PMAPS_ERRMSG_SIZE,
			           "PAGEMAP_SCAN: no progress at %llx (walk_end %llx)",
			           (unsigned long long)from, (unsigned long long)we);
			return fail(f, -EIO, NULL);
		}
		f->walked = we;
		f->nvec = (size_t)n;
		f->ivec = 0;
		if (n == 0 && we == end && f->last_ns <= PMAPS__SCAN_QUICK_NS)
			f->span = f->span < PMAPS__SCAN_SPAN_MAX / 2 ? f->span * 2 : PMAPS__SCAN_SPAN_MAX;
		else
			f->span = PMAPS__SCAN_SPAN;
	}
}

/* What the page cursor spent on its window, added to the read's. */
static void window_spent(struct pmaps__fast *f)
{
	uint64_t longest, pauses;

	if (!f->win_open)
		return;
	pmaps__pages_spent(f->pages, &longest, &pauses);
	f->page_calls += pmaps_pages_calls(f->pages);
	f->page_pauses += pauses;
	if (longest > f->page_longest)
		f->page_longest = longest;
	f->win_open = 0;
}

/*
 * Counts the row's pages through the page cursor. With PAGEMAP_SCAN the
 * cursor is sought to a window of WIN from the row's start, which the rows
 * after it share while they start inside it: the mappings of a library or
 * of a heap of many small mappings lie close together, and the ioctl skips
 * the gaps between them, so a window costs a few calls where a seek per
 * mapping costs two or three each. Reading pagemap alone, a gap is 8 bytes
 * a page: the window is the row.
 */
#define WIN PMAPS__SCAN_SPAN
static int cursor_row(struct pmaps__fast *f)
{
	const struct pmaps_page_range *run;
	uint64_t e = f->cur->end;
	int r;

	for (;;) {
		if (f->have_run) {
			uint64_t rs, re;
			run = &f->run;
			if (run->start >= e)
				break; /* the next rows' */
			rs = run->start > f->pos ? run->start : f->pos;
			re = run->end < e ? run->end : e;
			if (re > rs && !f->row_hugetlb)
				count(f, run->flags, run->kflags, run->mapcount, (re - rs) >> f->shift);
			if (run->end > e) {
				f->pos = e;
				break; /* it goes on into the next row */
			}
			f->have_run = 0;
			if (re > f->pos)
				f->pos = re;
		}
		if (f->pos >= e)
			break;
		if (!f->win_open || f->win_end <= f->pos) {
			uint64_t end = e;
			/* Never past the end of user space, where the whole call would fail. */
			uint64_t top = e > PMAPS__USER_TOP47 ? e : PMAPS__USER_TOP47;
			if (pmaps_pages_strategy(f->pages) == PMAPS_PAGES_SCAN && e - f->pos < WIN &&
			    f->pos + WIN > f->pos)
				end = f->pos + WIN < top ? f->pos + WIN : top;
			window_spent(f);
			r = pmaps_pages_seek(f->pages, f->pos, end);
			if (r < 0)
				return fail(f, r, "pagemap");
			f->win_open = 1;
			f->win_end = end;
		}
		r = before_call(f, 0);
		if (r < 0)
			return r;
		r = pmaps_pages_next(f->pages, &run);
		if (r < 0) {
			window_spent(f);
			pmaps__msg(f->errmsg, PMAPS_ERRMSG_SIZE, "%s", pmaps_pages_errmsg(f->pages));
			return fail(f, r, NULL);
		}
		if (r == 0) {
			/* The window is walked: what it did not report has no pages. */
			f->pos = f->win_end < e ? f->win_end : e;
			continue;
		}
		f->run = *run;
		f->have_run = 1;
	}
	/* A cursor that found PFNs read as 0 (no CAP_SYS_ADMIN) stops joining. */
	if ((f->see & SEE_KPAGE) && pmaps_pages_kpage(f->pages) != 1)
		f->see &= ~SEE_KPAGE;
	return 0;
}

/* ---- what the device-less mounts are ---- */

/*
 * Device-less filesystems whose files are not shared memory: a private
 * copy of their pages is swapped through the page tables. Shared memory
 * (tmpfs, devtmpfs, the kernel's own shm mount, an overlay over tmpfs)
 * keeps its swapped pages in its object, which smaps asks and the page
 * tables do not show.
 */
static int not_shmem_fs(const char *t)
{
	static const char *const names[] = {"btrfs ", "zfs ", "bcachefs ", "nfs ", "nfs4 ",
	                                    "cifs ", "smb3 ", "ceph ", "9p ", "virtiofs ",
	                                    "ramfs ", "fuse ", "fuseblk ", "fuse.", "squashfs ",
	                                    "erofs "};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strncmp(t, names[i], strlen(names[i])) == 0)
			return 1;
	return 0;
}

/* The third field of a mountinfo line, MAJOR:MINOR (the first two are numbers). */
static int dev_field(const char *p, unsigned *maj, unsigned *min)
{
	unsigned v[2] = {0, 0};

	for (int skip = 0; skip < 2; skip++) {
		while (*p >= '0' && *p <= '9')
			p++;
		if (*p++ != ' ')
			return 0;
	}
	for (int k = 0; k < 2; k++) {
		const char *d = p;
		while (*p >= '0' && *p <= '9' && v[k] < 1u << 24)
			v[k] = v[k] * 10 + (unsigned)(*p++ - '0');
		if (p == d || *p++ != (k ? ' ' : ':'))
			return 0;
	}
	*maj = v[0];
	*min = v[1];
	return 1;
}

/*
 * The device-less mounts of the process's mount namespace, from
 * /proc/PID/mountinfo, each with its kind:
 *  - Swap: only a file on a mount known not to be shared memory (or on a
 *    block device) has its Swap counted from the page tables;
 *  - hugetlb: a maps-text row of a file on hugetlbfs, or on a mount not
 *    listed, has its page size asked of PROCMAP_QUERY.
 * A mount the list misses (a line longer than the buffer, more than
 * DEVS_MAX mounts, a mount made elsewhere) is unlisted: its Swap absent and
 * its page size asked, never a wrong answer. The file stays open, and a
 * read reads it again when poll() says the mounts changed (a device number
 * freed by an unmount is given to the next mount, tmpfs or not).
 */
static void read_mounts(struct pmaps__fast *f)
{
	char *buf = f->mounts_buf;
	size_t cap = sizeof(f->mounts_buf) - 1, have = 0;
	int skip = 0; /* in a line longer than the buffer */

	f->ndevs = 0;
	f->last_dev = 0;
	if (!f->proc->live)
		return;
	if (f->mifd < 0)
		f->mifd = pmaps__openat(f->proc, "mountinfo");
	else if (lseek(f->mifd, 0, SEEK_SET) != 0) {
		close(f->mifd);
		f->mifd = -1;
	}
	if (f->mifd < 0)
		return;
	for (;;) {
		ssize_t n = pmaps__read(f->mifd, buf + have, cap - have);
		char *line = buf, *nl;
		if (n <= 0)
			break;
		have += (size_t)n;
		buf[have] = '\0';
		while ((nl = memchr(line, '\n', have - (size_t)(line - buf))) != NULL) {
			/* ID PARENT MAJOR:MINOR ROOT POINT OPTIONS [TAGS...] - FSTYPE SOURCE ... */
			unsigned maj, min;
			char *sep;
			*nl = '\0';
			sep = skip ? NULL : strstr(line, " - ");
			skip = 0;
			if (sep && f->ndevs < DEVS_MAX && dev_field(line, &maj, &min) && maj == 0) {
				int kind = strncmp(sep + 3, "hugetlbfs ", 10) == 0 ? DEV_HUGETLB
				           : not_shmem_fs(sep + 3)                 ? DEV_NOT_SHMEM
				                                                    : DEV_SHMEM_MAYBE;
				f->devs[f->ndevs++] = min << 2 | (unsigned)kind;
			}
			line = nl + 1;
		}
		have -= (size_t)(line - buf);
		memmove(buf, line, have);
		if (have == cap) {
			have = 0; /* a line longer than the buffer: its mount is left out */
			skip = 1;
		}
	}
}

/* Whether the mounts changed since they were read (poll() on mountinfo). */
static int mounts_changed(struct pmaps__fast *f)
{
	struct pollfd p = {.fd = f->mifd, .events = POLLPRI};

	return f->mifd < 0 || poll(&p, 1, 0) != 0;
}

/* The kind of device-less mount MINOR (DEV_*); rows of one file come together. */
static int dev_kind(struct pmaps__fast *f, uint32_t minor)
{
	/*
	 * Once a read, at its first file on a device-less mount: a process
	 * without one (anonymous memory and files on disks) never has its
	 * mountinfo generated.
	 */
	if (unlikely(!f->mounts_checked)) {
		if (mounts_changed(f))
			read_mounts(f);
		f->mounts_checked = 1;
	}
	if (f->last_dev == (uint64_t)minor + 1)
		return f->last_kind;
	f->last_dev = (uint64_t)minor + 1;
	f->last_kind = DEV_UNLISTED;
	for (unsigned i = 0; i < f->ndevs; i++)
		if (f->devs[i] >> 2 == minor) {
			f->last_kind = (int)(f->devs[i] & 3);
			break;
		}
	return f->last_kind;
}

/*
 * What the row's backing lets a page count mean. Shared memory's swapped
 * pages are in its object, not in the page tables (smaps asks the object):
 * Swap is known for private anonymous memory and for files that are
 * positively not shared memory, on a block device or on a device-less
 * filesystem of read_mounts()'s list (their private copies' swap entries
 * are in the page tables). A huge page of such a file is FilePmdMapped; of
 * the shmem kinds, ShmemPmdMapped; of other files, either: both absent.
 */
static void finish_row(struct pmaps__fast *f)
{
	struct pmaps_mapping *m = f->cur;
	const struct acc *a = &f->acc;
	unsigned sh = f->shift;
	int shmem = m->kind == PMAPS_KIND_SHMEM;
	int anon = m->inode == 0 && !(m->perms & PMAPS_PERM_SHARED);
	int devfile = m->inode != 0 && !shmem &&
	              (m->dev_major != 0 || dev_kind(f, m->dev_minor) == DEV_NOT_SHMEM);
	uint64_t pres = m->present;

	/*
	 * The row is zeroed once, at open; of v[] and xv[] only the entries
	 * below are ever written, each on every row.
	 */
	m->v[PMAPS_F_SIZE] = m->end - m->start;
	m->v[PMAPS_F_KERNEL_PAGE_SIZE] = f->row_page_size;
	m->v[PMAPS_F_RSS] = m->v[PMAPS_F_ANONYMOUS] = m->v[PMAPS_F_SWAP] = 0;
	m->v[PMAPS_F_ANON_HUGE_PAGES] = m->v[PMAPS_F_FILE_PMD_MAPPED] = 0;
	m->v[PMAPS_F_SHMEM_PMD_MAPPED] = m->v[PMAPS_F_PSS] = m->v[PMAPS_F_LAZY_FREE] = 0;
	m->v[PMAPS__MEASURED(PMAPS_V_ZERO_PAGE)] = m->v[PMAPS__MEASURED(PMAPS_V_USS)] = 0;
	m->v[PMAPS__MEASURED(PMAPS_V_SHARED)] = 0;
	if (f->row_hugetlb) {
		/* smaps counts hugetlb pages apart (Private/Shared_Hugetlb), never in Rss */
		pres |= 1ull << PMAPS_F_RSS | 1ull << PMAPS_F_ANONYMOUS |
		        1ull << PMAPS_F_ANON_HUGE_PAGES | 1ull << PMAPS_F_SWAP; /* never swapped */
		m->present = pres;
		return;
	}
	if (f->see & SEE_RSS) {
		pres |= 1ull << PMAPS_F_RSS | 1ull << PMAPS_F_ANONYMOUS;
		m->v[PMAPS_F_RSS] = a->rss << sh;
		m->v[PMAPS_F_ANONYMOUS] = a->anon << sh;
		pres |= 1ull << PMAPS__MEASURED(PMAPS_V_ZERO_PAGE);
		m->v[PMAPS__MEASURED(PMAPS_V_ZERO_PAGE)] = a->zero << sh;
	}
	if (!shmem && (m->inode == 0 || devfile)) {
		pres |= 1ull << PMAPS_F_SWAP;
		m->v[PMAPS_F_SWAP] = a->swap << sh;
	}
	if (f->see & SEE_HUGE) {
		pres |= 1ull << PMAPS_F_ANON_HUGE_PAGES;
		m->v[PMAPS_F_ANON_HUGE_PAGES] = a->anon_huge << sh;
		if (anon || shmem || devfile) {
			pres |= 1ull << PMAPS_F_FILE_PMD_MAPPED | 1ull << PMAPS_F_SHMEM_PMD_MAPPED;
			m->v[shmem ? PMAPS_F_SHMEM_PMD_MAPPED : PMAPS_F_FILE_PMD_MAPPED] = a->file_huge << sh;
		}
	}
	if ((f->see & (SEE_RSS | SEE_EXCL)) == (SEE_RSS | SEE_EXCL)) {
		pres |= 1ull << PMAPS__MEASURED(PMAPS_V_USS) | 1ull << PMAPS__MEASURED(PMAPS_V_SHARED);
		m->v[PMAPS__MEASURED(PMAPS_V_USS)] = a->excl << sh;
		m->v[PMAPS__MEASURED(PMAPS_V_SHARED)] = (a->rss - a->excl) << sh;
	}
	if ((f->see & (SEE_RSS | SEE_KPAGE)) == (SEE_RSS | SEE_KPAGE)) {
		pres |= 1ull << PMAPS_F_PSS | 1ull << PMAPS_F_LAZY_FREE;
		/* as smaps prints it: in whole kB */
		m->v[PMAPS_F_PSS] = (a->pss_fp >> (PSS_SHIFT + 10)) << 10;
		m->v[PMAPS_F_LAZY_FREE] = a->lazy << sh;
		f->pss_total_fp += a->pss_fp;
	}
	m->present = pres;
}

int pmaps__fast_next(struct pmaps__fast *f, const struct pmaps_mapping **row)
{
	int r;

	if (f->err)
		return f->err;
	if (f->done)
		return 0;
	if (!f->row_open) {
		r = f->query ? query_next(f) : text_next(f);
		if (r <= 0) {
			if (r == 0)
				f->done = 1;
			f->t_end = pmaps__now_ns();
			return r;
		}
		memset(&f->acc, 0, sizeof(f->acc));
		f->pos = f->cur->start;
		f->row_open = 1;
	}
	r = f->merged ? merged_row(f) : cursor_row(f);
	if (r < 0) {
		if (r != -ETIME)
			f->t_end = pmaps__now_ns();
		return r; /* -ETIME: the row stays open, to go on with */
	}
	f->row_open = 0;
	f->prev_end = f->cur->end;
	finish_row(f);
	*row = f->cur;
	return 1;
}

/* ---- opening ---- */

/* Does this kernel take PAGEMAP_SCAN (and its GUARD category), and where does user space end? */
static int probe_scan(struct pmaps__fast *f)
{
	static const uint64_t tops[] = {(1ull << 56) - 4096, (1ull << 47) - 4096};
	uint64_t we;
	int r = -EFAULT;

	f->guard_cat = PMAPS__CAT_GUARD;
	for (size_t i = 0; i < sizeof(tops) / sizeof(tops[0]) && r == -EFAULT; i++) {
		f->top = tops[i];
		r = scan_call(f, tops[i] - f->page, tops[i], &we);
		if (r == -EINVAL && f->guard_cat) {
			f->guard_cat = 0;
			r = scan_call(f, tops[i] - f->page, tops[i], &we);
		}
	}
	f->calls = f->longest = 0;
	return r < 0 ? r : 0;
}

/*
 * The VMA list, for the kernel it runs on. Where a read of the maps text
 * holds the target's mmap_lock no longer than a mapping at a time (6.17+,
 * per-VMA locks: pmaps_maps_text_unlocked()), the text, which costs the
 * kernel a fifth of one PROCMAP_QUERY per mapping on a layout of files and
 * anonymous memory mixed (docs/internals/SOURCES.md); PROCMAP_QUERY settles
 * the few rows the text leaves open. Before, PROCMAP_QUERY (6.11+), which
 * holds it for one mapping, where the text holds it for a read() of rows;
 * before that the text. F->QUERY -1 here: probed at the open.
 */
static void choose_list(struct pmaps__fast *f)
{
	if (pmaps__no_procmap_query) {
		f->query = f->qok = 0;
	} else if (!pmaps__procmap_query_list && pmaps_maps_text_unlocked()) {
		f->query = 0;
		f->qok = 1; /* 6.17 has it */
	}
}

/* Opens the read's files (again, for a rewind): the VMA list's and the pages'. */
static int open_read(struct pmaps__fast *f)
{
	struct pmaps__procmap_query q;
	int r, fd;

	f->err = f->done = 0;
	f->row_open = 0;
	f->next_addr = f->prev_end = f->walked = 0;
	f->span = PMAPS__SCAN_SPAN;
	f->nvec = f->ivec = 0;
	f->win_open = f->have_run = 0;
	f->line = 0;
	f->pss_total_fp = 0;
	f->del.linked = -1;
	f->calls = f->longest = f->pauses = 0;
	f->page_calls = f->page_longest = f->page_pauses = 0;
	f->errmsg[0] = '\0';
	f->t_read = pmaps__now_ns();
	f->t_end = 0;
	slice_start(f);
	if (f->qfd >= 0)
		close(f->qfd);
	if (f->pmfd >= 0)
		close(f->pmfd);
	f->qfd = f->pmfd = -1;
	pmaps__guard_end(&f->guard);
	r = pmaps__guard_begin(f->proc, &f->guard, 1, pmaps_source_name(f->src), f->errmsg,
	                       PMAPS_ERRMSG_SIZE);
	if (r < 0)
		return fail(f, r, NULL);
	f->mounts_checked = 0; /* dev_kind() looks at the mounts when a row needs them */
	if (f->query < 0)
		choose_list(f);
	/* The VMA list (choose_list()). */
	if (f->query != 0) {
		fd = pmaps__open_file(f->proc, f->proc->memfd, "maps", f->errmsg, PMAPS_ERRMSG_SIZE);
		if (fd < 0)
			return fail(f, fd == -ENOENT ? -ESRCH : fd, f->errmsg[0] ? NULL : "maps");
		f->qfd = fd;
		if (f->query < 0) {
			/* First read: does the kernel have the ioctl? */
			r = pmaps__no_procmap_query ? -ENOTTY : query_call(f, &q, 0, 0);
			f->query = f->qok = r != -ENOTTY;
			f->calls = 0;
			if (!f->query) {
				close(f->qfd);
				f->qfd = -1;
			}
		}
	}
	if (!f->query) {
		r = f->text ? pmaps_maps_retarget(f->text, f->proc)
		            : pmaps_maps_open(&f->text, f->proc, PMAPS_SRC_MAPS, 0);
		if (r < 0) {
			if (f->text)
				pmaps__msg(f->errmsg, PMAPS_ERRMSG_SIZE, "%s", pmaps_maps_errmsg(f->text));
			return fail(f, r, f->text ? NULL : "maps");
		}
	}
	/* The pages. */
	if (f->merged != 0) {
		fd = pmaps__open_file(f->proc, f->proc->memfd, "pagemap", f->errmsg, PMAPS_ERRMSG_SIZE);
		if (fd < 0) {
			if (fd == -EACCES || fd == -EPERM)
				pmaps__msg(f->errmsg, PMAPS_ERRMSG_SIZE,
				           "pagemap: permission denied: needs ptrace-read access to the "
				           "process (its own user, or root with CAP_SYS_PTRACE)");
			return fail(f, fd, f->errmsg[0] ? NULL : "pagemap");
		}
		f->pmfd = fd;
		if (f->merged < 0) {
			r = pmaps__no_pagemap_scan ? -ENOTTY : probe_scan(f);
			if (r < 0 && r != -ENOTTY && r != -EINVAL)
				return fail(f, r, "PAGEMAP_SCAN");
			f->merged = r == 0;
			if (!f->merged) {
				close(f->pmfd);
				f->pmfd = -1;
			}
		}
	}
	if (!f->merged) {
		unsigned opt = f->src == PMAPS_SRC_PAGES ? PMAPS_PAGES_EXCLUSIVE : 0;
		enum pmaps_pages_strategy st = pmaps__no_pagemap_scan ? PMAPS_PAGES_PAGEMAP
		                                                       : PMAPS_PAGES_AUTO;
		/* The join where this process's privilege allows it (the cursor finds out). */
		if (f->src == PMAPS_SRC_PAGES)
			opt |= PMAPS_PAGES_KPAGE;
		/* Reopened (a rewind): its fd is on the address space of the last read. */
		r = f->pages ? pmaps__pages_reopen(f->pages, f->proc)
		             : pmaps_pages_open(&f->pages, f->proc, st, opt);
		if (r < 0) {
			if (f->pages)
				pmaps__msg(f->errmsg, PMAPS_ERRMSG_SIZE, "%s", pmaps_pages_errmsg(f->pages));
			return fail(f, r, f->pages ? NULL : "pagemap");
		}
		pmaps__pages_policy(f->pages, f->pol.step_pages, f->pol.hold_us * 1000ull,
		                    f->pol.pause_us * 1000ull);
	}
	/* What the rows can tell. */
	f->see = 0;
	if (f->merged) {
		f->see = SEE_RSS | SEE_HUGE;
	} else {
		unsigned known = pmaps_pages_known(f->pages);
		f->see |= known & PMAPS_PG_ZERO ? SEE_RSS : 0;
		f->see |= known & PMAPS_PG_HUGE ? SEE_HUGE : 0;
		f->see |= known & PMAPS_PG_EXCLUSIVE ? SEE_EXCL : 0;
		f->see |= pmaps_pages_kpage(f->pages) == 1 ? SEE_KPAGE : 0;
	}
	return 0;
}

int pmaps__fast_open(struct pmaps__fast **out, struct pmaps_proc *proc, enum pmaps_source source,
                     size_t bufsize, char *errmsg)
{
	struct pmaps__fast *f;
	long ps = sysconf(_SC_PAGESIZE);

	(void)bufsize;
	*out = NULL;
	if (ps <= 0 || (ps & (ps - 1)))
		return -EINVAL;
	f = pmaps__alloc(sizeof(*f));
	if (!f)
		return -ENOMEM;
	memset(f, 0, offsetof(struct pmaps__fast, row));
	memset(&f->row, 0, sizeof(f->row));
	f->proc = proc;
	f->src = source;
	f->errmsg = errmsg;
	f->page = (uint64_t)ps;
	f->shift = (unsigned)__builtin_ctzl((unsigned long)ps);
	f->qfd = f->pmfd = f->mifd = -1;
	f->guard.probe = -1;
	f->query = f->proc->live ? -1 : 0;    /* -1: not probed yet */
	f->merged = source == PMAPS_SRC_FAST ? -1 : 0;
	pmaps__fast_policy(f, NULL);
	*out = f;
	if (f->merged) {
		f->vec = pmaps__alloc(VEC * sizeof(*f->vec));
		if (!f->vec)
			return fail(f, -ENOMEM, NULL);
	}
	return open_read(f);
}

void pmaps__fast_restart_clock(struct pmaps__fast *f)
{
	f->t_read = pmaps__now_ns();
	slice_start(f);
}

int pmaps__fast_rewind(struct pmaps__fast *f, struct pmaps_proc *proc)
{
	/*
	 * Another process (a caller may re-point the same handle at another
	 * pid): its mounts are its own.
	 */
	if (proc) {
		f->proc = proc;
		f->no_map_files = 0;
		f->query = proc->live ? -1 : 0; /* chosen again: the last may have been no live one */
		f->qok = 0;
		if (f->mifd >= 0)
			close(f->mifd);
		f->mifd = -1;
	}
	return open_read(f);
}

void pmaps__fast_cost(const struct pmaps__fast *f, struct pmaps_cost *out)
{
	out->ns = pmaps__now_ns() - f->t_read;
	out->calls = f->calls + f->page_calls + (f->win_open ? pmaps_pages_calls(f->pages) : 0);
	out->hold_ns = f->longest > f->page_longest ? f->longest : f->page_longest;
	out->pauses = f->pauses + f->page_pauses;
	if (f->text)
		out->calls += pmaps__maps_reads(f->text);
	/* Not yet probed (an open that failed before): -1 */
	out->query = f->query < 0 ? -1 : f->query;
	out->strategy = f->merged > 0 ? PMAPS_PAGES_SCAN
	                : f->merged == 0 && f->pages ? (int)pmaps_pages_strategy(f->pages) : -1;
	if (f->t_end)
		out->ns = f->t_end - f->t_read;
}

void pmaps__fast_keys(const struct pmaps__fast *f, uint64_t *fields, uint64_t *values)
{
	uint64_t kf = 1ull << PMAPS_F_SIZE, kv = 0;

	/* Every row's where PROCMAP_QUERY lists them or settles the maps text's */
	if (f->query == 1 || f->qok == 1)
		kf |= 1ull << PMAPS_F_KERNEL_PAGE_SIZE;
	/* Swap: of private memory (shared memory's is in its object, as status's VmSwap) */
	kf |= 1ull << PMAPS_F_SWAP;
	if (f->see & SEE_RSS) {
		kf |= 1ull << PMAPS_F_RSS | 1ull << PMAPS_F_ANONYMOUS;
		kv |= 1ull << (PMAPS_V_FILE_RSS - PMAPS_F_MAX) | 1ull << (PMAPS_V_ZERO_PAGE - PMAPS_F_MAX);
	}
	if (f->see & SEE_HUGE)
		kf |= 1ull << PMAPS_F_ANON_HUGE_PAGES | 1ull << PMAPS_F_FILE_PMD_MAPPED |
		      1ull << PMAPS_F_SHMEM_PMD_MAPPED;
	if ((f->see & (SEE_RSS | SEE_EXCL)) == (SEE_RSS | SEE_EXCL))
		kv |= 1ull << (PMAPS_V_USS - PMAPS_F_MAX) | 1ull << (PMAPS_V_SHARED - PMAPS_F_MAX);
	if ((f->see & (SEE_RSS | SEE_KPAGE)) == (SEE_RSS | SEE_KPAGE))
		kf |= 1ull << PMAPS_F_PSS | 1ull << PMAPS_F_LAZY_FREE;
	*fields = kf;
	*values = kv;
}

int pmaps__release_at_least(const char *release, unsigned major, unsigned minor)
{
	unsigned v[2] = {0, 0};
	const char *p = release;

	for (int k = 0; k < 2; k++) {
		const char *d = p;
		for (; *p >= '0' && *p <= '9'; p++)
			v[k] = v[k] < 100000 ? v[k] * 10 + (unsigned)(*p - '0') : v[k]; /* saturates */
		if (p == d || (k == 0 && *p++ != '.'))
			return 0;
	}
	return v[0] > major || (v[0] == major && v[1] >= minor);
}

int pmaps_maps_text_unlocked(void)
{
	/* The kernel does not change under a process: asked once (-1: not yet). */
	static int known = -1;
	int v = __atomic_load_n(&known, __ATOMIC_RELAXED);
	struct utsname u;

	if (v < 0) {
		v = uname(&u) == 0 && pmaps__release_at_least(u.release, 6, 17);
		__atomic_store_n(&known, v, __ATOMIC_RELAXED);
	}
	return v;
}

int pmaps__fast_query(const struct pmaps__fast *f)
{
	return f->query == 1;
}

int pmaps__fast_pss_total(const struct pmaps__fast *f, uint64_t *pss)
{
	*pss = (f->pss_total_fp >> (PSS_SHIFT + 10)) << 10;
	return (f->see & (SEE_RSS | SEE_KPAGE)) == (SEE_RSS | SEE_KPAGE);
}

void pmaps__fast_close(struct pmaps__fast *f)
{
	if (!f)
		return;
	if (f->qfd >= 0)
		close(f->qfd);
	if (f->pmfd >= 0)
		close(f->pmfd);
	if (f->mifd >= 0)
		close(f->mifd);
	pmaps__guard_end(&f->guard);
	pmaps_maps_close(f->text);
	pmaps_pages_close(f->pages);
	pmaps__free(f->vec);
	pmaps__free(f);
}
