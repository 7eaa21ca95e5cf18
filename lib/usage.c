/* SPDX-License-Identifier: MIT */
/*
 * usage.c - which source answers what, what each costs the target, and the
 * choice of the cheapest that answers (docs/internals/SOURCES.md).
 *
 * The cost model is coarse on purpose: a per-mapping and a per-page price
 * for each source, measured on the development machine (bench/stall.c and
 * pmaps-bench), enough to tell a read of a millisecond from one of a
 * second and a source that holds the target's mmap_lock for a whole walk
 * from one that walks in bounded steps.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

#define F(x) (1ull << PMAPS_F_##x)
#define V(x) (1ull << (PMAPS_V_##x - PMAPS_F_MAX))

/* What the text sources give: every field smaps prints, or smaps_rollup's sums. */
#define SMAPS_FIELDS ((1ull << PMAPS_F_COUNT) - 1)
#define ROLLUP_FIELDS (SMAPS_FIELDS & ~(F(SIZE) | F(KERNEL_PAGE_SIZE) | F(MMU_PAGE_SIZE) | \
	F(THP_ELIGIBLE) | F(PROTECTION_KEY)))
#define SMAPS_ONLY_PSS (F(PSS_ANON) | F(PSS_FILE) | F(PSS_SHMEM))

int pmaps_source_keys(struct pmaps_proc *proc, enum pmaps_source source, int total,
                      uint64_t *fields, uint64_t *values)
{
	int err;

	*fields = *values = 0;
	switch (source) {
	case PMAPS_SRC_MAPS:
		*values = V(VSIZE) | V(MAPPINGS);
		return 0;
	case PMAPS_SRC_SMAPS:
		*fields = SMAPS_FIELDS & ~SMAPS_ONLY_PSS;
		*values = V(SHARED) | V(USS) | V(VSIZE) | V(MAPPINGS) | V(FILE_RSS);
		return 0;
	case PMAPS_SRC_ROLLUP:
		if (total) {
			*fields = ROLLUP_FIELDS;
			*values = V(SHARED) | V(USS) | V(FILE_RSS);
		}
		return 0;
	case PMAPS_SRC_FAST:
	case PMAPS_SRC_PAGES:
		break;
	default:
		return -EINVAL;
	}
	/*
	 * What a page source sees depends on the kernel (PAGEMAP_SCAN,
	 * PROCMAP_QUERY) and the privilege (kpageflags): its cursor knows once
	 * opened, before it reads a page.
	 */
	err = pmaps__maps_spare_keys(proc, source, fields, values);
	*values |= V(VSIZE) | V(MAPPINGS);
	return err < 0 ? err : 0;
}

/*
 * Prices measured here (pmaps-bench-fast, pmaps-bench-stall, Linux 6.18,
 * docs/internals/SOURCES.md): per mapping, for the list and for the walk;
 * per page-table entry walked and per present page (every source that
 * walks page tables pays about the same: ~43 ms for the 16M entries and
 * 0.5M present pages of a 64 GiB sparse region, ~25 ms for the 1M present
 * pages of 4 GiB of dense memory beside 20k mappings; smaps, smaps_rollup
 * and PAGEMAP_SCAN alike); per resident page, what only the pages source
 * reads (pagemap's entry, and as root the kpageflags/kpagecount join).
 */
enum {
	NS_STATUS = 15000,       /* one read of status */
	NS_MAPS_VMA = 500,       /* the maps text, per mapping, parsed */
	NS_TEXT_VMA = 300,       /* the maps text, per mapping, as a page source's list (6.17+) */
	NS_QUERY_VMA = 1700,     /* PROCMAP_QUERY with its name, per mapping (6.11-6.16) */
	TEXT_VMAS_READ = 50,     /* mappings a read() of the maps text gives (a page of text) */
	NS_SCAN_VMA = 350,       /* the fast walk, per mapping */
	NS_SMAPS_VMA = 2850,     /* the smaps text, per mapping */
	NS_ROLLUP_VMA = 330,     /* smaps_rollup, per mapping */
	NS_CALL = 1500,          /* one ioctl or pread */
	NS_PTE = 2,              /* one page-table entry walked */
	NS_PRESENT = 14,         /* one present page walked, beside its entry (dense memory) */
	NS_PAGEMAP = 4,          /* one pagemap entry read (the pages source) */
	NS_KPAGE = 180,          /* one present page's kpageflags and kpagecount (root) */
};

int pmaps_cost_estimate(const struct pmaps_status *st, uint64_t nmaps, enum pmaps_source source,
                        const struct pmaps_policy *policy, struct pmaps_cost *out)
{
	struct pmaps_cost k;
	uint64_t rss = 0, pte = 0, pages, entries, step = 4096, per_call, walk, calls;
	long ps = sysconf(_SC_PAGESIZE);

	if (!st || !out || !pmaps__size_ok(out->size, PMAPS__COST_SIZE0) || ps <= 0)
		return -EINVAL;
	if (st->present & (1ull << PMAPS_ST_VM_RSS))
		rss = st->v[PMAPS_ST_VM_RSS];
	if (st->present & (1ull << PMAPS_ST_VM_PTE))
		pte = st->v[PMAPS_ST_VM_PTE];
	pages = rss / (uint64_t)ps;
	/* Entries walked: those of the page tables (VmPTE, 8 bytes each), or without it the pages. */
	entries = pte ? pte / 8 : pages;
	/* Unknown: a page-table page serves a couple of mappings, every process has a few dozen. */
	if (!nmaps)
		nmaps = pte / 4096 * 2 + 32;
	if (policy && policy->size >= sizeof(*policy) && policy->step_pages)
		step = policy->step_pages;
	/*
	 * One PAGEMAP_SCAN call walks until it has reported STEP pages or
	 * crossed 256 MiB: in sparse memory (few present pages per entry)
	 * that is more entries than pages.
	 */
	per_call = pages && entries > pages ? step * (entries / pages) : step;
	if (per_call > PMAPS__SCAN_SPAN / (uint64_t)ps)
		per_call = PMAPS__SCAN_SPAN / (uint64_t)ps;
	memset(&k, 0, sizeof(k));
	k.query = k.strategy = -1;
	switch (source) {
	case PMAPS_SRC_STATUS:
		k.ns = NS_STATUS;
		k.calls = 1;
		break;
	case PMAPS_SRC_MAPS:
		k.ns = nmaps * NS_MAPS_VMA;
		k.calls = nmaps / 60 + 1;
		break;
	case PMAPS_SRC_SMAPS:
	case PMAPS_SRC_ROLLUP:
		walk = entries * NS_PTE + pages * NS_PRESENT;
		k.ns = nmaps * (source == PMAPS_SRC_SMAPS ? NS_SMAPS_VMA : NS_ROLLUP_VMA) + walk;
		k.calls = source == PMAPS_SRC_SMAPS ? nmaps / 25 + 1 : 1;
		/*
		 * The lock is held through a whole read(): all of smaps_rollup,
		 * and for smaps the walk of every mapping one read prints, up to
		 * the whole of the largest one. Without the sizes of the
		 * mappings, the worst: all of it in one.
		 */
		k.hold_ns = source == PMAPS_SRC_ROLLUP ? k.ns : walk + 25 * NS_SMAPS_VMA;
		k.wait_ns = k.hold_ns;
		break;
	case PMAPS_SRC_FAST:
	case PMAPS_SRC_PAGES: {
		/* A paced walk's calls take few regions each, and each is followed by a pause. */
		int paced = policy && policy->size >= sizeof(*policy) && policy->pause_us;
		uint64_t regions = paced ? (step / 16 < 8 ? 8 : step / 16) : 1024;
		int text = pmaps_maps_text_unlocked();
		calls = entries / per_call + nmaps / regions + 1;
		walk = nmaps * ((text ? NS_TEXT_VMA : NS_QUERY_VMA) + NS_SCAN_VMA) + entries * NS_PTE +
		       pages * NS_PRESENT;
		if (source == PMAPS_SRC_PAGES) {
			int root = geteuid() == 0;
			/*
			 * As root, frames scattered over memory cost kpageflags and
			 * kpagecount reads of their own: about one for three mappings.
			 */
			calls += nmaps / 64 + pages / 16384 + (root ? nmaps / 3 : 0);
			walk += pages * (NS_PAGEMAP + (root ? NS_KPAGE : 0));
		}
		if (paced)
			k.pauses = policy->hold_us ? (walk + calls * NS_CALL) / (policy->hold_us * 1000ull)
			                           : calls;
		k.ns = walk + calls * NS_CALL + (paced ? k.pauses * policy->pause_us * 1000ull : 0);
		/* and the list's: a read() a page of text, or a PROCMAP_QUERY call a mapping */
		k.calls = calls + (text ? nmaps / TEXT_VMAS_READ + 1 : nmaps);
		k.hold_ns = per_call * NS_PTE + (pages < step ? pages : step) * NS_PRESENT + NS_CALL;
		/* Back to back, calls keep a waiting writer out: the whole walk. */
		k.wait_ns = paced ? k.hold_ns : k.ns;
		break;
	}
	default:
		return -EINVAL;
	}
	k.size = out->size;
	pmaps__copy_out(out, out->size, &k, sizeof(k));
	return 0;
}

/* The most a page source can give anywhere: a value beyond it rules the source out unopened. */
#define PAGE_FIELDS (F(SIZE) | F(KERNEL_PAGE_SIZE) | F(RSS) | F(ANONYMOUS) | F(SWAP) | \
	F(ANON_HUGE_PAGES) | F(FILE_PMD_MAPPED) | F(SHMEM_PMD_MAPPED) | F(PSS) | F(LAZY_FREE))
#define PAGE_VALUES (V(SHARED) | V(USS) | V(VSIZE) | V(MAPPINGS) | V(FILE_RSS) | V(ZERO_PAGE))

/*
 * How many mappings PROC has, for an estimate: the lines of its maps text,
 * read through a fixed buffer (a read that takes no lock its writers wait
 * for, on 6.17+). 0 when it cannot be read (the estimate guesses then).
 */
static uint64_t count_mappings(struct pmaps_proc *proc)
{
	char buf[16384];
	uint64_t n = 0;
	ssize_t got;
	int fd = pmaps__openat(proc, "maps");

	if (fd < 0)
		return 0;
	while ((got = pmaps__read(fd, buf, sizeof(buf))) > 0)
		for (const char *p = buf; (p = memchr(p, '\n', (size_t)(buf + got - p))) != NULL; p++)
			n++;
	close(fd);
	return got < 0 ? 0 : n;
}

int pmaps_source_choose(struct pmaps_proc *proc, uint64_t fields, uint64_t values, int total,
                        const struct pmaps_policy *policy, enum pmaps_source *out, char *msg,
                        size_t msgsz)
{
	static const enum pmaps_source per_mapping[] = {PMAPS_SRC_MAPS, PMAPS_SRC_FAST,
	                                                PMAPS_SRC_PAGES, PMAPS_SRC_SMAPS};
	static const enum pmaps_source in_total[] = {PMAPS_SRC_FAST, PMAPS_SRC_PAGES,
	                                             PMAPS_SRC_ROLLUP, PMAPS_SRC_SMAPS};
	const enum pmaps_source *order = total ? in_total : per_mapping;
	struct pmaps_status st = {.size = sizeof(st)};
	int have_st = 0, best = -1, best_missing = 65, counted = 0;
	uint64_t nmaps = 0;
	uint64_t budget = 0, hold = 0;

	if (msg && msgsz)
		msg[0] = '\0';
	if (policy) {
		if (!pmaps__size_ok(policy->size, PMAPS__POLICY_SIZE0))
			return -EINVAL;
		budget = policy->budget_ns;
		hold = policy->hold_us * 1000ull;
	}
	for (int i = 0; i < 4; i++) {
		enum pmaps_source s = order[i];
		uint64_t kf, kv;
		int err, missing;

		/*
		 * A page source that cannot answer is not worth opening, unless a
		 * budget may leave nothing better than a part of the answer.
		 */
		if ((s == PMAPS_SRC_FAST || s == PMAPS_SRC_PAGES) && !budget && !hold &&
		    ((fields & ~PAGE_FIELDS) || (values & ~PAGE_VALUES)))
			continue;
		err = pmaps_source_keys(proc, s, total, &kf, &kv);
		if (err < 0) {
			if (err == -ESRCH || err == -EACCES || err == -ENODATA) {
				if (msg)
					pmaps__msg(msg, msgsz, "%s: %s", pmaps_source_name(s), pmaps_strerror(err));
				return err;
			}
			continue; /* this source cannot read here (an old kernel) */
		}
		if (budget || hold) {
			struct pmaps_cost k = {.size = sizeof(k)};
			if (!have_st) {
				err = pmaps_status_read(proc, &st, msg, msgsz);
				if (err < 0)
					return err;
				have_st = 1;
			}
			if (!counted) {
				nmaps = count_mappings(proc);
				counted = 1;
			}
			pmaps_cost_estimate(&st, nmaps, s, policy, &k);
			if ((budget && k.ns > budget) || (hold && k.hold_ns > hold))
				continue;
		}
		missing = __builtin_popcountll(fields & ~kf) + __builtin_popcountll(values & ~kv);
		if (missing == 0) {
			*out = s;
			pmaps__maps_spare_keep(proc, s);
			return 1;
		}
		if (missing < best_missing) {
			best_missing = missing;
			best = s;
		}
	}
	*out = best >= 0 ? (enum pmaps_source)best : PMAPS_SRC_STATUS;
	pmaps__maps_spare_keep(proc, *out);
	if (msg)
		pmaps__msg(msg, msgsz, "no source gives every value asked%s%s",
		           budget || hold ? " within the budget" : "",
		           best >= 0 ? "" : " (status alone fits)");
	return 0;
}

/* ---- explain's source ---- */

static const char *const choice_keys[PMAPS_CHOICE_COUNT] = {
	[PMAPS_CHOICE_ASKED] = "asked", [PMAPS_CHOICE_FITS] = "fits", [PMAPS_CHOICE_OVER] = "over",
	[PMAPS_CHOICE_NO_STATUS] = "no_status", [PMAPS_CHOICE_NO_PAGES] = "no_pages",
};

const char *pmaps_choice_reason_key(enum pmaps_choice_reason r)
{
	return (unsigned)r < PMAPS_CHOICE_COUNT ? choice_keys[r] : NULL;
}

/* The pages source for C (gentle when GENTLE), and what it gives PROC. Returns 0, or its errno. */
static int choose_pages(struct pmaps_proc *proc, struct pmaps_explain_choice *c, int gentle)
{
	uint64_t kf, kv;
	int err = pmaps_source_keys(proc, PMAPS_SRC_PAGES, 0, &kf, &kv);

	if (err < 0)
		return err;
	c->source = PMAPS_SRC_PAGES;
	c->options = PMAPS_EXPLAIN_FAST | (gentle ? PMAPS_EXPLAIN_GENTLE : 0);
	c->xc_known = pmaps__explain_fast_known(kf, kv);
	return 0;
}

int pmaps_explain_choose(struct pmaps_proc *proc, enum pmaps_source asked, uint64_t limit_ns,
                         struct pmaps_explain_choice *out, char *msg, size_t msgsz)
{
	struct pmaps_explain_choice c;
	struct pmaps_status st = {.size = sizeof(st)};
	struct pmaps_cost k = {.size = sizeof(k)};
	uint32_t size;
	int err;

	if (msg && msgsz)
		msg[0] = '\0';
	if (out && !pmaps__size_ok(out->size, PMAPS__CHOICE_SIZE0)) {
		if (msg)
			pmaps__msg(msg, msgsz, "struct pmaps_explain_choice: size %u, below %zu: set it "
			           "to sizeof", out->size, PMAPS__CHOICE_SIZE0);
		return -EINVAL;
	}
	if (!proc || !out ||
	    (asked != PMAPS_SRC_SMAPS && asked != PMAPS_SRC_PAGES && asked != PMAPS_SRC_AUTO))
		return -EINVAL;
	size = out->size;
	memset(&c, 0, sizeof(c));
	c.size = size;
	c.source = PMAPS_SRC_SMAPS;
	c.xc_known = (1u << PMAPS_XC_COUNT) - 1;
	c.limit_ns = limit_ns;
	c.reason = PMAPS_CHOICE_ASKED;
	/*
	 * smaps, then smaps_rollup to reconcile with: the longer of the two
	 * holds, the rollup's whole walk.
	 */
	if (pmaps_status_read(proc, &st, NULL, 0) == 0 &&
	    pmaps_cost_estimate(&st, 0, PMAPS_SRC_SMAPS, NULL, &k) == 0) {
		c.hold_ns = k.wait_ns;
		if (pmaps_cost_estimate(&st, 0, PMAPS_SRC_ROLLUP, NULL, &k) == 0 && k.wait_ns > c.hold_ns)
			c.hold_ns = k.wait_ns;
	} else if (asked == PMAPS_SRC_AUTO)
		c.reason = PMAPS_CHOICE_NO_STATUS;
	if (asked == PMAPS_SRC_PAGES || (asked == PMAPS_SRC_AUTO && c.reason == PMAPS_CHOICE_ASKED &&
	                                 limit_ns && c.hold_ns > limit_ns)) {
		err = choose_pages(proc, &c, asked == PMAPS_SRC_AUTO);
		if (err == 0 && asked == PMAPS_SRC_AUTO)
			c.reason = PMAPS_CHOICE_OVER;
		else if (err < 0 && asked == PMAPS_SRC_AUTO)
			c.reason = PMAPS_CHOICE_NO_PAGES;
		/* Asked for, the source's own error is the run's to report: it is opened there. */
		if (err < 0 && asked == PMAPS_SRC_PAGES) {
			c.source = PMAPS_SRC_PAGES;
			c.options = PMAPS_EXPLAIN_FAST;
			c.xc_known = 0;
		}
		if (err < 0 && msg)
			pmaps__msg(msg, msgsz, "pages: %s", pmaps_strerror(err));
	} else if (asked == PMAPS_SRC_AUTO && c.reason == PMAPS_CHOICE_ASKED) {
		c.reason = PMAPS_CHOICE_FITS;
	}
	pmaps__copy_out(out, size, &c, sizeof(c));
	out->size = size;
	return 0;
}
