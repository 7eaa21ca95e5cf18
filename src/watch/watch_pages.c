/* SPDX-License-Identifier: MIT */
/*
 * watch_pages.c - pmaps watch --pages: which ranges of a process became
 * resident, and which went away, between two samples (watch.h).
 *
 * A walk reads the mappings from /proc/PID/maps (the cheapest source: no
 * page-table walk; since 6.17 no mmap_lock) into a list with their names
 * and identities (device, inode, file offset), then the pages through the
 * library's page cursor (PAGEMAP_SCAN where the kernel has it, each call
 * bounded in pages and in address space walked, so no call holds the
 * target's mmap_lock for long), and keeps the present set as sorted,
 * coalesced [start, end) runs, clipped to the mappings listed.
 * Present means what smaps counts in Rss, a resident state of the
 * library's classification (pmaps_page_state_resident()): a present page
 * that is not the zero page; a swapped page is not present. Where the cursor cannot tell the
 * zero page (pmaps_pages_known() without PMAPS_PG_ZERO: pagemap before 6.7
 * and not root) it counts as present, as that reader sees it.
 *
 * Hugetlb mappings are left out (not listed, not walked): smaps counts
 * their pages apart (Private_Hugetlb, Shared_Hugetlb), never in Rss, while
 * both page readers report them present. They are told from what maps
 * shows, as the library's maps-text readers do: MAP_HUGETLB memory
 * ("/anon_hugepage", device 0). A file on a hugetlbfs mount looks like any
 * other file in maps (only smaps' VmFlags "ht" or PROCMAP_QUERY's page size
 * say it), so its pages still count here.
 *
 * Mappings close together (the gap under JOIN_GAP) are walked with one
 * seek: PAGEMAP_SCAN skips the unmapped gap at no cost and a walk of 10,000
 * small mappings takes far fewer calls than one per mapping. The pagemap
 * reader reads an entry for every page of a gap, so there only mappings
 * that touch are joined.
 *
 * The diff goes through the address space piece by piece, a piece being
 * where the mapping of the walk before (if any) and the mapping now (if
 * any) stay the same:
 *  - both walks have a mapping there and they are not the same mapping (a
 *    munmap and mmap at one address, a MAP_FIXED remap): every page the walk
 *    before had there went away (-1, with the old mapping) and every page
 *    there now came (+1, with the new one), present in both walks or not;
 *  - else pages present now and not before are a +1 change, the reverse a
 *    -1 change, with the mapping there now when there is one (MADV_DONTNEED,
 *    reclaim, a mapping grown or split), else the mapping the walk before
 *    saw there (munmap, a mapping moved by mremap).
 * The same mapping: for a file (or shared memory: an inode), the same
 * device and inode, both private or both shared, and the same file offset
 * at the same address (a split
 * by mprotect, a file deleted meanwhile are the same mapping; a file mapped
 * again at the same offset and address is taken for the same). For
 * anonymous memory (no inode), the same name: [heap], [stack] and
 * [anon:NAME] regions are told apart (so a region renamed with
 * PR_SET_VMA_ANON_NAME shows as replaced), but two nameless anonymous mappings
 * are not, since maps shows the same for one split by mprotect and one
 * unmapped and mapped again (malloc's munmap and mmap at one address): there
 * only the pages that changed show, with the mapping there now.
 * Changes are split at mapping boundaries; neighbouring pieces of one sign
 * with the same mapping are joined into one change, unless a change of the
 * other sign had to be passed on between them to keep the order (the
 * callback sees changes in order of their start, -1
 * first at one address; a -1 and a +1 change may overlap where a mapping
 * was replaced).
 *
 * Memory: two sets (runs, mappings, a name pool), swapped each sample. The
 * two sets' arrays grow together (doubling, to the same capacity) only when
 * a walk needs more than any walk before, and every growth is counted
 * (wpages_grows()); a process whose walks need no more than before costs no
 * allocation per sample, in here or in the library. The runs are capped
 * (WPAGES_MAX_RUNS a set, 16 bytes each): a process with more separate
 * present ranges is an error (-E2BIG), not an unbounded allocation.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/num.h"
#include "watch/watch.h"

/* Mappings closer than this are walked with one PAGEMAP_SCAN seek. */
#define JOIN_GAP (64ull << 20)

struct wmap {
	uint64_t start, end;
	uint64_t offset, inode, dev; /* dev: major << 32 | minor */
	int shared;
	size_t name_off, name_len;
};

struct wrun {
	uint64_t start, end;
};

/* One walk: its present runs and the mappings they were clipped to. */
struct wset {
	struct wrun *runs;
	size_t nruns, runs_cap;
	struct wmap *maps;
	size_t nmaps, maps_cap;
	char *names;
	size_t names_len, names_cap;
};

struct wpages {
	struct pmaps_proc *proc;
	struct pmaps_maps *maps;
	struct pmaps_pages *pg;
	struct wset set[2];
	int cur;         /* set[cur] is the last complete walk */
	int walked;      /* a walk completed: there is a previous set */
	int reads;       /* the maps cursor has been read (rewind before the next read) */
	size_t max_runs; /* WPAGES_MAX_RUNS, or a test's (wpages_set_max_runs()) */
	uint64_t grows;
};

/*
 * Room for NEED elements of SIZE bytes in both sets' arrays *P0 and *P1
 * (capacities *CAP0, *CAP1), grown to the same capacity: so that the next
 * walk, into the other set, needs no growth for as much. Returns 0 or -ENOMEM.
 */
static int grow(struct wpages *wp, void **p0, size_t *cap0, void **p1, size_t *cap1, size_t need,
                size_t size)
{
	void **p[2] = {p0, p1};
	size_t *cap[2] = {cap0, cap1};
	size_t n;

	if (need <= *cap0 && need <= *cap1)
		return 0;
	n = *cap0 > *cap1 ? *cap0 : *cap1;
	if (n == 0)
		n = 64;
	while (n < need) {
		if (n > SIZE_MAX / 2 / size)
			return -ENOMEM;
		n *= 2;
	}
	for (int i = 0; i < 2; i++) {
		void *q;
		if (*cap[i] >= n)
			continue;
		q = realloc(*p[i], n * size);
		if (!q)
			return -ENOMEM;
		*p[i] = q;
		*cap[i] = n;
		wp->grows++;
	}
	return 0;
}

struct read_ctx {
	struct wpages *wp;
	struct wset *s, *o; /* the set read into and the other one */
};

static void maps_reset(void *ctx)
{
	struct read_ctx *r = ctx;

	r->s->nmaps = 0;
	r->s->names_len = 0;
}

static int maps_row(void *ctx, const struct pmaps_mapping *m)
{
	struct read_ctx *r = ctx;
	struct wset *s = r->s, *o = r->o;
	struct wmap *w;
	uint64_t start = m->start;

	if (m->end <= m->start)
		return 0;
	/* Not in Rss (the file's comment): not listed, so never walked. */
	if (m->kind == PMAPS_KIND_HUGETLB)
		return 0;
	/*
	 * A read with a mapping listed twice is read again (pmaps_maps_read_whole):
	 * should one still reach here, the later row wins and the list stays
	 * sorted and disjoint.
	 */
	while (s->nmaps && s->maps[s->nmaps - 1].start >= start)
		s->nmaps--;
	if (s->nmaps && s->maps[s->nmaps - 1].end > start)
		s->maps[s->nmaps - 1].end = start;
	if (grow(r->wp, (void **)&s->maps, &s->maps_cap, (void **)&o->maps, &o->maps_cap,
	         s->nmaps + 1, sizeof(*s->maps)) < 0 ||
	    grow(r->wp, (void **)&s->names, &s->names_cap, (void **)&o->names, &o->names_cap,
	         s->names_len + m->path.len + 1, 1) < 0)
		return -ENOMEM;
	w = &s->maps[s->nmaps++];
	w->start = start;
	w->end = m->end;
	w->offset = m->offset;
	w->inode = m->inode;
	w->dev = (uint64_t)m->dev_major << 32 | m->dev_minor;
	w->shared = (m->perms & PMAPS_PERM_SHARED) != 0;
	w->name_off = s->names_len;
	w->name_len = m->path.len;
	if (m->path.len)
		memcpy(s->names + s->names_len, m->path.ptr, m->path.len);
	s->names[s->names_len + m->path.len] = '\0';
	s->names_len += m->path.len + 1;
	return 0;
}

/* Appends [START, END) to S's runs, joined to the last one when they touch. */
static int add_run(struct wpages *wp, struct wset *s, struct wset *o, uint64_t start, uint64_t end)
{
	if (s->nruns && s->runs[s->nruns - 1].end == start) {
		s->runs[s->nruns - 1].end = end;
		return 0;
	}
	if (s->nruns >= wp->max_runs)
		return -E2BIG;
	if (grow(wp, (void **)&s->runs, &s->runs_cap, (void **)&o->runs, &o->runs_cap, s->nruns + 1,
	         sizeof(*s->runs)) < 0)
		return -ENOMEM;
	s->runs[s->nruns].start = start;
	s->runs[s->nruns].end = end;
	s->nruns++;
	return 0;
}

static int fail_msg(char *msg, size_t msgsz, int err, const char *what, const char *detail)
{
	if (msg && msgsz) {
		if (detail && detail[0])
			snprintf(msg, msgsz, "%s", detail);
		else
			snprintf(msg, msgsz, "%s: %s", what, pmaps_strerror(err));
	}
	return err;
}

/*
 * Walks the pages of S's mappings into S's runs: mappings near each other
 * in one seek, each present run clipped to the mappings it meets.
 */
static int walk_pages(struct wpages *wp, struct wset *s, struct wset *o)
{
	int scan = pmaps_pages_strategy(wp->pg) == PMAPS_PAGES_SCAN;
	uint64_t join = scan ? JOIN_GAP : 0;
	size_t i = 0;

	s->nruns = 0;
	while (i < s->nmaps) {
		size_t j = i, mi = i;
		const struct pmaps_page_range *r;
		int err;

		while (j + 1 < s->nmaps && s->maps[j + 1].start - s->maps[j].end <= join)
			j++;
		err = pmaps_pages_seek(wp->pg, s->maps[i].start, s->maps[j].end);
		if (err < 0)
			return err;
		while ((err = pmaps_pages_next(wp->pg, &r)) > 0) {
			/*
			 * Resident, by the library's one classification of pages:
			 * present and not the zero page, what smaps counts in Rss (the
			 * kind only tells file from shmem, both resident).
			 */
			if (!pmaps_page_state_resident(pmaps_page_state_of(r, PMAPS_KIND_ANON)))
				continue;
			while (mi <= j && s->maps[mi].end <= r->start)
				mi++;
			for (size_t k = mi; k <= j && s->maps[k].start < r->end; k++) {
				uint64_t a = r->start > s->maps[k].start ? r->start : s->maps[k].start;
				uint64_t b = r->end < s->maps[k].end ? r->end : s->maps[k].end;
				if (a < b && (err = add_run(wp, s, o, a, b)) < 0)
					return err;
			}
		}
		if (err < 0)
			return err;
		i = j + 1;
	}
	return 0;
}

int wpages_open(struct wpages **out, struct pmaps_proc *proc, char *msg, size_t msgsz)
{
	return wpages_open_strategy(out, proc, PMAPS_PAGES_AUTO, msg, msgsz);
}

int wpages_open_strategy(struct wpages **out, struct pmaps_proc *proc,
                         enum pmaps_pages_strategy strategy, char *msg, size_t msgsz)
{
	struct wpages *wp;
	int err;

	*out = NULL;
	if (msg && msgsz)
		msg[0] = '\0';
	wp = calloc(1, sizeof(*wp));
	if (!wp)
		return fail_msg(msg, msgsz, -ENOMEM, "watch --pages", NULL);
	wp->proc = proc;
	wp->max_runs = WPAGES_MAX_RUNS;
	err = pmaps_pages_open(&wp->pg, proc, strategy, 0);
	if (err < 0) {
		fail_msg(msg, msgsz, err, "pagemap", wp->pg ? pmaps_pages_errmsg(wp->pg) : NULL);
		wpages_close(wp);
		return err;
	}
	err = pmaps_maps_open(&wp->maps, proc, PMAPS_SRC_MAPS, 0);
	if (err < 0) {
		fail_msg(msg, msgsz, err, "maps", wp->maps ? pmaps_maps_errmsg(wp->maps) : NULL);
		wpages_close(wp);
		return err;
	}
	*out = wp;
	return 0;
}

void wpages_set_max_runs(struct wpages *wp, size_t max_runs)
{
	wp->max_runs = max_runs ? max_runs : 1;
}

/* The mapping of LIST (N long) that holds ADDR, from *AT on (moved forward), or NULL. */
static const struct wmap *holder(const struct wmap *list, size_t n, size_t *at, uint64_t addr)
{
	while (*at < n && list[*at].end <= addr)
		(*at)++;
	return *at < n && list[*at].start <= addr ? &list[*at] : NULL;
}

/* The start of the first mapping of LIST at or after *AT, or UINT64_MAX. */
static uint64_t next_start(const struct wmap *list, size_t n, size_t at)
{
	return at < n ? list[at].start : UINT64_MAX;
}

/* A of walk SA and B of walk SB are the same mapping (the file's comment). */
static int same_mapping(const struct wset *sa, const struct wmap *a, const struct wset *sb,
                        const struct wmap *b)
{
	if (a->inode != b->inode || a->dev != b->dev || a->shared != b->shared)
		return 0;
	if (a->inode)
		/* The same file page at every address both cover (mod 2^64 on purpose). */
		return a->offset - a->start == b->offset - b->start;
	return a->name_len == b->name_len &&
	       memcmp(sa->names + a->name_off, sb->names + b->name_off, a->name_len) == 0;
}

struct emit {
	void (*fn)(void *ctx, const struct wpages_change *c);
	void *ctx;
	const struct wset *cur, *prev;
	struct wpages_stats *st;
	/*
	 * The changes being built, one per sign ([0] -1, [1] +1), each passed on
	 * when a piece of its sign does not continue it: a replaced mapping's
	 * pieces of both signs interleave with a neighbour's.
	 */
	struct wpages_change pend[2];
	const struct wmap *pend_map[2];
	int have[2];
};

static void flush_one(struct emit *e, int k)
{
	const struct wpages_change *c = &e->pend[k];

	if (!e->have[k])
		return;
	e->have[k] = 0;
	e->st->ranges = sat_add(e->st->ranges, 1);
	if (c->sign > 0)
		e->st->added = sat_add(e->st->added, c->end - c->start);
	else
		e->st->removed = sat_add(e->st->removed, c->end - c->start);
	if (e->fn)
		e->fn(e->ctx, c);
}

/*
 * Passes on change K, and before it the other one when that starts first
 * (address order; at one address -1 first).
 */
static void flush(struct emit *e, int k)
{
	if (e->have[!k] && (e->pend[!k].start < e->pend[k].start ||
	                    (e->pend[!k].start == e->pend[k].start && k == 1)))
		flush_one(e, !k);
	flush_one(e, k);
}

/* [START, END) came (SIGN +1) or went (-1), in mapping M of walk S. */
static void emit_piece(struct emit *e, uint64_t start, uint64_t end, int sign,
                       const struct wset *s, const struct wmap *m)
{
	int k = sign > 0;
	struct wpages_change *c = &e->pend[k];

	if (start >= end)
		return;
	if (e->have[k] && c->end == start && e->pend_map[k] == m) {
		c->end = end;
		return;
	}
	flush(e, k);
	c->start = start;
	c->end = end;
	c->sign = sign;
	if (m) {
		c->map_start = m->start;
		c->map_end = m->end;
		c->name = s->names + m->name_off;
		c->name_len = m->name_len;
	} else {
		c->map_start = c->map_end = 0;
		c->name = "";
		c->name_len = 0;
	}
	e->pend_map[k] = m;
	e->have[k] = 1;
}

static uint64_t min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static uint64_t max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/*
 * The changes in [A, B), where the walk before saw mapping PM and this one
 * sees CM (either may be NULL), both the same throughout. *I and *J index
 * the first runs of the walk before and of this one that end after A.
 */
static void diff_piece(struct emit *e, uint64_t a, uint64_t b, const struct wmap *pm,
                       const struct wmap *cm, size_t i, size_t j)
{
	const struct wrun *p = e->prev->runs, *c = e->cur->runs;
	size_t np = e->prev->nruns, nc = e->cur->nruns;
	uint64_t x = a; /* everything below X is done */

	if (pm && cm && !same_mapping(e->prev, pm, e->cur, cm)) {
		/* Replaced: all of the old mapping's pages went, all of the new one's came. */
		for (;;) {
			uint64_t ps = i < np && p[i].start < b ? max64(p[i].start, a) : UINT64_MAX;
			uint64_t cs = j < nc && c[j].start < b ? max64(c[j].start, a) : UINT64_MAX;
			if (ps == UINT64_MAX && cs == UINT64_MAX)
				break;
			if (ps <= cs) {
				emit_piece(e, ps, min64(p[i].end, b), -1, e->prev, pm);
				i++;
			} else {
				emit_piece(e, cs, min64(c[j].end, b), +1, e->cur, cm);
				j++;
			}
		}
		return;
	}
	for (;;) {
		uint64_t ps, cs;

		while (i < np && p[i].end <= x)
			i++;
		while (j < nc && c[j].end <= x)
			j++;
		ps = i < np && p[i].start < b ? max64(p[i].start, x) : UINT64_MAX;
		cs = j < nc && c[j].start < b ? max64(c[j].start, x) : UINT64_MAX;
		if (ps == UINT64_MAX && cs == UINT64_MAX)
			break;
		if (ps < cs) {
			uint64_t stop = min64(min64(p[i].end, cs), b);
			/* Gone: with the mapping there now, else the one there before. */
			emit_piece(e, ps, stop, -1, cm ? e->cur : e->prev, cm ? cm : pm);
			x = stop;
		} else if (cs < ps) {
			uint64_t stop = min64(min64(c[j].end, ps), b);
			emit_piece(e, cs, stop, +1, e->cur, cm);
			x = stop;
		} else {
			x = min64(min64(p[i].end, c[j].end), b); /* in both */
		}
		if (x >= b)
			break;
	}
}

/* Every change, in address order, piece by piece of the two mapping lists. */
static void diff(struct emit *e)
{
	const struct wset *cur = e->cur, *prev = e->prev;
	const struct wrun *p = prev->runs, *c = cur->runs;
	size_t at_p = 0, at_c = 0, i = 0, j = 0;
	uint64_t x = 0;

	for (;;) {
		const struct wmap *pm = holder(prev->maps, prev->nmaps, &at_p, x);
		const struct wmap *cm = holder(cur->maps, cur->nmaps, &at_c, x);
		uint64_t stop;

		if (!pm && !cm) {
			/* No mapping here in either walk, so no run: on to the next mapping. */
			x = min64(next_start(prev->maps, prev->nmaps, at_p),
			          next_start(cur->maps, cur->nmaps, at_c));
			if (x == UINT64_MAX)
				break;
			continue;
		}
		stop = min64(pm ? pm->end : next_start(prev->maps, prev->nmaps, at_p),
		             cm ? cm->end : next_start(cur->maps, cur->nmaps, at_c));
		while (i < prev->nruns && p[i].end <= x)
			i++;
		while (j < cur->nruns && c[j].end <= x)
			j++;
		diff_piece(e, x, stop, pm, cm, i, j);
		x = stop;
	}
	flush(e, 1);
	flush(e, 0);
}

int wpages_sample(struct wpages *wp, void (*fn)(void *ctx, const struct wpages_change *c),
                  void *ctx, struct wpages_stats *st, char *msg, size_t msgsz)
{
	struct wset *s = &wp->set[wp->cur ^ 1], *o = &wp->set[wp->cur];
	struct read_ctx rc = {wp, s, o};
	struct wpages_stats local;
	uint64_t t0 = now_ns(), present = 0;
	int err;

	if (!st)
		st = &local;
	memset(st, 0, sizeof(*st));
	if (msg && msgsz)
		msg[0] = '\0';
	if (wp->reads && (err = pmaps_maps_rewind(wp->maps)) < 0)
		return fail_msg(msg, msgsz, err, "maps", pmaps_maps_errmsg(wp->maps));
	wp->reads = 1;
	err = pmaps_maps_read_whole(wp->maps, maps_row, maps_reset, &rc);
	if (err < 0) {
		if (err == -ENOMEM)
			return fail_msg(msg, msgsz, err, "watch --pages: the mapping list", NULL);
		return fail_msg(msg, msgsz, err, "maps", pmaps_maps_errmsg(wp->maps));
	}
	err = walk_pages(wp, s, o);
	if (err < 0) {
		if (err == -E2BIG) {
			if (msg && msgsz)
				snprintf(msg, msgsz,
				         "watch --pages: the process has more than %zu separate present "
				         "ranges, more than the page diff keeps; watch it without --pages",
				         wp->max_runs);
			return err;
		}
		if (err == -ENOMEM)
			return fail_msg(msg, msgsz, err, "watch --pages: the present set", NULL);
		return fail_msg(msg, msgsz, err, "pagemap", pmaps_pages_errmsg(wp->pg));
	}
	/* The walk's time: the caller's callback below is not the walk's. */
	st->walk_ns = now_ns() - t0;
	for (size_t i = 0; i < s->nruns; i++)
		present = sat_add(present, s->runs[i].end - s->runs[i].start);
	if (wp->walked) {
		struct emit e;
		memset(&e, 0, sizeof(e));
		e.fn = fn;
		e.ctx = ctx;
		e.cur = s;
		e.prev = o;
		e.st = st;
		diff(&e);
	}
	st->present = present;
	wp->cur ^= 1;
	wp->walked = 1;
	return 0;
}

uint64_t wpages_grows(const struct wpages *wp)
{
	return wp ? wp->grows : 0;
}

void wpages_close(struct wpages *wp)
{
	if (!wp)
		return;
	pmaps_maps_close(wp->maps);
	pmaps_pages_close(wp->pg);
	for (int i = 0; i < 2; i++) {
		free(wp->set[i].runs);
		free(wp->set[i].maps);
		free(wp->set[i].names);
	}
	free(wp);
}
