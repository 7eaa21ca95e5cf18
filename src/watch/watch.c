/* SPDX-License-Identifier: MIT */
/*
 * watch.c - the sampling loop of pmaps watch and run: one process sampled
 * on a fixed schedule, a line (or a JSON object) per sample, a summary at
 * the end.
 *
 * Timing: tick K is due at start + K * interval on CLOCK_MONOTONIC, slept
 * to with clock_nanosleep(TIMER_ABSTIME), so that late samples never push
 * the later ones back. A sample that starts more than a tenth of the
 * interval (at least 1 ms) after its tick is late; one that ends after the
 * next tick skips the ticks it overran (counted as missed), never bunching
 * samples up to catch up.
 *
 * Sources: a breakdown is an explain session (opened once, run per
 * sample: it allocates nothing per run) on smaps or on the page tables
 * (PMAPS_EXPLAIN_FAST | PMAPS_EXPLAIN_GENTLE). It may take at most a
 * quarter of the time: after a breakdown that took C, the next is read no
 * sooner than 3 C after it ended, and the samples between read
 * /proc/PID/status alone. A breakdown that takes more than half the
 * interval (and the first, whose cost is unknown) is read by a thread of
 * its own on a handle of its own, so that the ticks keep their time.
 * Nothing is allocated per sample: fixed buffers, one sink, the summary's
 * figures in struct watch.
 *
 * The lines, the JSON objects and the summary are watch_out.c's; what the
 * two share is watch_int.h.
 *
 * --children: after each tick's own read, the descendants (watch_kids.c)
 * are listed and read from their status; the tick's line gets their sum
 * and the summary the largest sum of one sample (the process and its
 * descendants together) and each descendant. A breakdown the thread read
 * has no descendants' figures: they belong to ticks.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>


#include "common/num.h"
#include "common/tool.h"
#include "watch/watch.h"
#include "watch/watch_int.h"
#include "watch/watch_kids.h"
#include "watch/watch_loop.h"
#include "write/writer.h"

static volatile sig_atomic_t stop_sig, child_sig;

static void on_stop(int sig)
{
	stop_sig = sig;
}

static void on_child(int sig)
{
	(void)sig;
	child_sig = 1;
}

/* ---- --pages ---- */

static void page_change(void *ctx, const struct wpages_change *c)
{
	struct watch *w = ctx;
	struct out *o = &w->out;
	char d[32];

	if (w->o->fmt == FMT_JSONL) {
		if (w->pages_shown >= PAGES_SHOW_JSON)
			return;
		if (w->pages_shown)
			out_ch(o, ',');
		KEY(o, "{\"sign\":");
		out_str(o, c->sign > 0 ? "1" : "-1");
		KEY(o, ",\"start\":\"");
		out_0x(o, c->start);
		KEY(o, "\",\"end\":\"");
		out_0x(o, c->end);
		KEY(o, "\",\"bytes\":");
		out_u64(o, c->end - c->start);
		KEY(o, ",\"mapping\":{\"start\":\"");
		out_0x(o, c->map_start);
		KEY(o, "\",\"end\":\"");
		out_0x(o, c->map_end);
		KEY(o, "\",");
		out_json_named(o, "path", 4, c->name ? c->name : "", c->name ? c->name_len : 0);
		KEY(o, "}}");
	} else {
		if (w->pages_shown >= PAGES_SHOW_TABLE)
			return;
		out_str(o, c->sign > 0 ? "           + " : "           - ");
		out_hex(o, c->start, 12);
		out_ch(o, '-');
		out_hex(o, c->end, 12);
		watch_fmt_size(w, d, c->end - c->start);
		watch_cell(o, d, 7);
		out_str(o, "  in ");
		out_hex(o, c->map_start, 12);
		out_ch(o, '-');
		out_hex(o, c->map_end, 12);
		if (c->name && c->name_len) {
			out_ch(o, ' ');
			out_table_str(o, c->name, c->name_len);
		}
		out_ch(o, '\n');
	}
	w->pages_shown++;
}

/*
 * This sample's page changes, written after its line (table) or inside its
 * object (JSON). Returns 0, or a negative errno with the message in W->msg.
 */
static int sample_pages(struct watch *w)
{
	struct wpages_stats ps;
	struct out *o = &w->out;
	char d[32];
	int err;

	w->pages_shown = 0;
	memset(&ps, 0, sizeof(ps));
	if (w->o->fmt == FMT_JSONL)
		KEY(o, ",\"pages\":{\"changes\":[");
	err = wpages_sample(w->wp, page_change, w, &ps, w->msg, sizeof(w->msg));
	if (err == 0) {
		w->pw_n++;
		w->pw_sum = sat_add(w->pw_sum, ps.walk_ns);
		if (ps.walk_ns > w->pw_max)
			w->pw_max = ps.walk_ns;
	}
	if (w->o->fmt == FMT_JSONL) {
		out_ch(o, ']');
		if (err == 0) {
			KEY(o, ",\"ranges\":");
			out_u64(o, ps.ranges);
			KEY(o, ",\"shown\":");
			out_u64(o, w->pages_shown);
			KEY(o, ",\"added\":");
			out_u64(o, ps.added);
			KEY(o, ",\"removed\":");
			out_u64(o, ps.removed);
			KEY(o, ",\"present\":");
			out_u64(o, ps.present);
			KEY(o, ",\"walk_ns\":");
			out_u64(o, ps.walk_ns);
		} else {
			out_ch(o, ',');
			out_json_named(o, "error", 5, w->msg, strlen(w->msg));
		}
		out_ch(o, '}');
		return err;
	}
	if (err == 0 && ps.ranges > w->pages_shown) {
		out_str(o, "           ... ");
		out_u64(o, ps.ranges - w->pages_shown);
		out_str(o, " more ranges");
		out_ch(o, '\n');
	}
	if (err == 0 && (ps.added || ps.removed)) {
		out_str(o, "           pages: +");
		watch_fmt_size(w, d, ps.added);
		out_str(o, d);
		out_str(o, " -");
		watch_fmt_size(w, d, ps.removed);
		out_str(o, d);
		out_str(o, " in ");
		out_u64(o, ps.ranges);
		out_str(o, ps.ranges == 1 ? " range\n" : " ranges\n");
	}
	return err;
}

/* ---- opening what a sample reads ---- */

/*
 * The breakdown's source, as the library chooses it for every front end
 * (pmaps_explain_choose()): --source's, or auto's: smaps unless one read of
 * it would hold the process's mmap_lock longer than AUTO_HOLD_NS (less than
 * explain's limit: a watch reads again and again), as pmaps_cost_estimate()
 * prices it from status (VmRSS, VmPTE). The pages source walks gently.
 */
static void choose_source(struct watch *w)
{
	struct pmaps_explain_choice c = {.size = sizeof(c)};
	int asked = w->o->source == PMAPS_SRC_AUTO ? PMAPS_SRC_AUTO
	            : w->o->source == PMAPS_SRC_PAGES ? PMAPS_SRC_PAGES : PMAPS_SRC_SMAPS;

	w->why[0] = '\0';
	if (w->o->wss) {
		/* Touched bytes are smaps' Referenced: no other source has them. */
		w->bd_cost = UINT64_MAX / 4;
		w->src = PMAPS_SRC_SMAPS;
		snprintf(w->why, sizeof(w->why), "--wss: smaps' Referenced, the process's referenced "
		         "bits reset after each breakdown");
		return;
	}
	/*
	 * What a breakdown takes is not known until one has been read (the
	 * estimate, from status alone, can be off by tenfold for many small
	 * mappings): the first is read by the thread, and the tick goes on.
	 */
	w->bd_cost = UINT64_MAX / 4;
	if (pmaps_explain_choose(w->proc, (enum pmaps_source)asked, AUTO_HOLD_NS, &c, NULL, 0) < 0) {
		w->src = asked == PMAPS_SRC_PAGES ? PMAPS_SRC_PAGES : PMAPS_SRC_SMAPS;
		return;
	}
	w->src = c.source;
	if (c.reason == PMAPS_CHOICE_OVER)
		snprintf(w->why, sizeof(w->why), "auto: smaps would hold its mmap_lock ~%llu ms a read",
		         (unsigned long long)(c.hold_ns / 1000000u));
	else if (c.reason == PMAPS_CHOICE_FITS)
		snprintf(w->why, sizeof(w->why), "auto: a read holds its mmap_lock ~%llu us",
		         (unsigned long long)(c.hold_ns / 1000u));
}

static void close_reading(struct watch *w)
{
	if (w->probe >= 0)
		close(w->probe);
	w->probe = -1;
	wpages_close(w->wp);
	w->wp = NULL;
	pmaps_explain_close(w->xs);
	w->xs = NULL;
	pmaps_wss_close(w->ws);
	w->ws = NULL;
	pmaps_proc_close(w->xproc);
	w->xproc = NULL;
	pmaps_proc_close(w->proc);
	w->proc = NULL;
}

/*
 * 1 when the handles' directories are one process's: /proc/PID's inode
 * while a handle holds it open stays that process's; a pid reused since
 * gets a directory of its own (as survey tells them).
 */
static int same_process(const struct pmaps_proc *a, const struct pmaps_proc *b)
{
	struct stat sa, sb;

	if (fstat(pmaps_proc_dirfd(a), &sa) < 0 || fstat(pmaps_proc_dirfd(b), &sb) < 0)
		return 0;
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/*
 * --wss: the working-set session on the thread's handle, and its first
 * reset: the first breakdown is due an interval after it (one read at once
 * would say what a moment touched). Returns 0, or a negative errno with
 * the message in W->msg.
 */
static int open_wss(struct watch *w)
{
	int err = pmaps_wss_open(&w->ws, w->xproc, PMAPS_WSS_AUTO, 0);

	if (err == 0)
		err = pmaps_wss_reset(w->ws);
	if (err < 0) {
		snprintf(w->msg, sizeof(w->msg), "%s",
		         w->ws && pmaps_wss_errmsg(w->ws)[0] ? pmaps_wss_errmsg(w->ws)
		                                             : pmaps_strerror(err));
		return err;
	}
	/*
	 * Due at the first tick at least half an interval on: the ticks keep
	 * their own time, so one a whole interval after the reset would be
	 * the tick after (the reading would span two intervals).
	 */
	w->next_full = now_ns() + w->interval / 2;
	w->ws_err = 0;
	return 0;
}

/*
 * Opens the explain session (--wss: the working-set session) on a handle
 * of its own (the thread's), and --pages' diff on W->proc. Returns 0, or a
 * negative errno with the message in W->msg.
 */
static int open_reading(struct watch *w)
{
	int err;

	choose_source(w);
	snprintf(w->pidstr, sizeof(w->pidstr), "%d", pmaps_proc_pid(w->proc));
	err = pmaps_proc_open(&w->xproc, w->t.root, w->pidstr);
	if (err < 0) {
		snprintf(w->msg, sizeof(w->msg), "%s", pmaps_strerror(err));
		return err;
	}
	/* Opened by pid: one reused since W->proc was opened is another process. */
	if (!same_process(w->proc, w->xproc)) {
		snprintf(w->msg, sizeof(w->msg), "%s", pmaps_strerror(-ESRCH));
		return -ESRCH;
	}
	/*
	 * An exec between two samples: the library tells one during a read
	 * (-ESTALE), not between two. A maps file stays bound to the address
	 * space it was opened on and reads nothing once that is gone.
	 */
	w->probe = openat(pmaps_proc_dirfd(w->proc), "maps",
	                  O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	w->bk_rt = PMAPS_RUNTIME_NONE;
	if (w->bk_on) {
		int rt = pmaps_books_runtime(w->xproc);
		if (rt > 0)
			w->bk_rt = (enum pmaps_runtime)rt;
	}
	w->bk_want = books_wanted(&w->o->books, w->bk_rt);
	w->xopts = w->src == PMAPS_SRC_PAGES ? PMAPS_EXPLAIN_FAST | PMAPS_EXPLAIN_GENTLE : 0;
	if (w->o->wss) {
		err = open_wss(w);
		if (err < 0)
			return err;
	} else if ((err = pmaps_explain_open(&w->xs, w->xproc, w->xopts)) < 0) {
		snprintf(w->msg, sizeof(w->msg), "%s",
		         w->xs && pmaps_explain_errmsg(w->xs)[0] ? pmaps_explain_errmsg(w->xs)
		                                                 : pmaps_strerror(err));
		return err;
	}
	if (w->o->pages) {
		w->msg[0] = '\0';
		err = wpages_open(&w->wp, w->proc, w->msg, sizeof(w->msg));
		if (err < 0) {
			if (!w->msg[0])
				snprintf(w->msg, sizeof(w->msg), "%s", pmaps_strerror(err));
			return err;
		}
	}
	return 0;
}

/* The process exec'd: the same pid, a new program. Returns 0, or a negative errno. */
static int reopen(struct watch *w)
{
	struct pmaps_proc *np;
	int err;

	/* Opened while the old handle holds the directory: the same process, or it is gone. */
	err = pmaps_proc_open(&np, w->t.root, w->pidstr);
	if (err == 0 && !same_process(w->proc, np)) {
		pmaps_proc_close(np);
		err = -ESRCH;
	}
	close_reading(w);
	if (err < 0)
		return err;
	w->proc = np;
	w->execs++;
	/*
	 * What changed is a new program's, not growth: the next breakdown
	 * starts over, and so do the summary's breakdown figures (first, at
	 * the peak, last, growth, grew most, kept growing: the summary says
	 * they are since the exec). The peak RSS of every sample stays.
	 */
	w->have_prev_full = 0;
	w->epoch_full = 0;
	w->pairs = 0;
	w->cats_seen = 0;
	w->lazy_max = w->swap_max = 0;
	memset(w->cat_max, 0, sizeof(w->cat_max));
	memset(w->grp_max, 0, sizeof(w->grp_max));
	memset(w->rises, 0, sizeof(w->rises));
	if (w->o->wss) {
		wsum_clear(&w->wsum);
		w->ws_reset_max = 0; /* the summary's "longest reset" is since the exec too */
	}
	w->next_full = 0;
	/*
	 * The books too: the old program's are not the new one's, and a read
	 * of them dropped with its breakdown (bd_idle()) is due again at once.
	 */
	w->bk_have = 0;
	w->bk_now = 0;
	w->bk_next = 0;
	return open_reading(w);
}

/* ---- the summary's figures ---- */

static void top_copy(struct pmaps_explain_top *dst, unsigned *n, const struct pmaps_explain *x)
{
	*n = x->ntop;
	for (unsigned i = 0; i < x->ntop; i++) {
		/* The path's bytes only: the rest of the 4 KiB buffer is never read. */
		dst[i].start = x->top[i].start;
		dst[i].end = x->top[i].end;
		dst[i].rss = x->top[i].rss;
		dst[i].cat = x->top[i].cat;
		dst[i].path_truncated = x->top[i].path_truncated;
		dst[i].path_len = x->top[i].path_len;
		memcpy(dst[i].path, x->top[i].path, x->top[i].path_len + 1);
	}
}

static void account_full(struct watch *w, const struct watch_sample *s,
                         const struct pmaps_explain *x)
{
	if (!w->epoch_full) {
		w->first = *s;
		top_copy(w->first_top, &w->first_ntop, x);
	}
	if (!w->epoch_full || s->rss > w->at_peak.rss) {
		w->at_peak = *s;
		top_copy(w->peak_top, &w->peak_ntop, x);
	}
	if (w->have_prev_full) {
		w->pairs++;
		for (int k = 0; k < PMAPS_X_COUNT; k++) {
			if (s->cat[k] <= w->prev_full.cat[k])
				continue;
			if (!w->rises[k])
				w->rise_first[k] = w->prev_full.t_ns;
			w->rises[k]++;
			w->rise_last[k] = s->t_ns;
		}
	}
	{
		uint64_t grp[G_COUNT] = {0};
		for (int k = 0; k < PMAPS_X_COUNT; k++) {
			if (x->mappings[k])
				w->cats_seen |= 1u << k;
			if (s->cat[k] > w->cat_max[k])
				w->cat_max[k] = s->cat[k];
			grp[cat_group[k]] = sat_add(grp[cat_group[k]], s->cat[k]);
		}
		for (int g = 0; g < G_COUNT; g++)
			if (grp[g] > w->grp_max[g])
				w->grp_max[g] = grp[g];
	}
	if (s->lazyfree_known && s->lazyfree > w->lazy_max)
		w->lazy_max = s->lazyfree;
	if (s->swap_known && s->swap > w->swap_max)
		w->swap_max = s->swap;
	w->last = *s;
	w->full++;
	w->epoch_full++;
}

/* Whether category K kept growing (KEPT_*: the man page's definition). */
int watch_kept_growing(const struct watch *w, int k)
{
	return w->pairs >= KEPT_MIN_INTERVALS &&
	       w->rises[k] * 100 >= w->pairs * KEPT_PERCENT && w->last.cat[k] > w->first.cat[k];
}

/* ---- one sample ---- */

/* ---- the runtime's books ---- */

/*
 * The books the breakdown X was read with (WITH: this sample carries them),
 * into S's runtime figures when the join took them: a figure is drawn only
 * against the breakdown it was joined to.
 */
static void bk_sample(struct watch *w, struct watch_sample *s, int with)
{
	const struct books *b = &w->bk_cur;

	w->bk_now = with;
	s->rt_kind = WATCH_RT_NONE;
	if (!with || !w->bk_join.ok)
		return;
	if (b->b.head[PMAPS_BOOK_GO].ok) {
		s->rt_kind = WATCH_RT_GO;
		s->rt_live = b->b.v[PMAPS_BV_GO_HEAP_ALLOC];
		s->rt_held = b->b.v[PMAPS_BV_GO_HEAP_SYS] > b->b.v[PMAPS_BV_GO_HEAP_RELEASED]
		                 ? b->b.v[PMAPS_BV_GO_HEAP_SYS] - b->b.v[PMAPS_BV_GO_HEAP_RELEASED]
		                 : 0;
	} else if (b->b.head[PMAPS_BOOK_JVM_HEAP].ok) {
		s->rt_kind = WATCH_RT_JVM;
		s->rt_live = b->b.v[PMAPS_BV_JVM_HEAP_USED];
		s->rt_held = b->b.v[PMAPS_BV_JVM_HEAP_COMMITTED];
	} else if (b->b.head[PMAPS_BOOK_MALLOC].ok) {
		s->rt_kind = WATCH_RT_MALLOC;
		s->rt_live = b->b.v[PMAPS_BV_MALLOC_IN_USE];
		s->rt_held = sat_add(b->b.v[PMAPS_BV_MALLOC_IN_USE], b->b.v[PMAPS_BV_MALLOC_FREE_HELD]);
	}
}

/*
 * Whether the next breakdown is to be read with the books: they are on and
 * due (a second after the last read at the soonest, and their reads a
 * tenth of the time at most).
 */
static int bk_due(const struct watch *w, uint64_t now)
{
	/*
	 * --wss: the books' breakdown is a reading too, due no sooner than any
	 * (at the start it came at once: 16 ms after the first reset).
	 */
	return w->bk_on && w->bk_want && now >= w->bk_next && (!w->ws || now >= w->next_full);
}

/*
 * When the breakdown after one that ended at END is due: at most a quarter
 * of the time on breakdowns; with --wss, each a reading of the interval
 * since the reset after the last, not before half an interval (the tick
 * after a breakdown the books came with read at once the rest of its own).
 */
static uint64_t full_due(const struct watch *w, uint64_t end)
{
	uint64_t due = end + 3 * w->bd_cost;

	if (w->ws && due < end + w->interval / 2)
		due = end + w->interval / 2;
	return due;
}

/* After the thread read books in COST: when the next read may start, from END. */
static void bk_schedule(struct watch *w, uint64_t end, uint64_t cost)
{
	uint64_t gap = 9 * cost;

	if (gap < 1000000000u)
		gap = 1000000000u;
	if (gap < w->interval)
		gap = w->interval;
	w->bk_next = end + gap;
}

/* A breakdown's figures into S (its time kept), and VmHWM as status gave it. */
static void from_explain(struct watch *w, struct watch_sample *s, const struct pmaps_explain *x)
{
	watch_sample_from(s, x, s->t_ns);
	if ((x->status.present >> PMAPS_ST_VM_HWM) & 1) {
		w->have_hwm = 1;
		w->hwm = x->status.v[PMAPS_ST_VM_HWM];
	}
}

/*
 * Writes sample S (X its breakdown, WR its working set with --wss, or ST
 * its status) and keeps its figures. TICK: the sample of a tick, LATE
 * after it (its timing counts, and --pages' diff follows it); else a
 * breakdown the thread read. Returns END_NONE, or how --pages' walk ended
 * the watch.
 */
static enum end_why read_error(struct watch *w, int err, uint64_t t_ns);

static enum end_why emit(struct watch *w, const struct watch_sample *s,
                         const struct pmaps_explain *x, const struct pmaps_wss_result *wr,
                         const struct pmaps_status *st, const struct kids_sum *ks, int tick,
                         uint64_t late, uint64_t cost, int books)
{
	struct watch_sample sb;
	int err;

	sb = *s;
	/* The runtime's books go with the breakdown they were read with, and only with it. */
	bk_sample(w, &sb, x && books);
	s = &sb;
	if (tick) {
		if (late > w->late_limit)
			w->late++;
		if (late > w->late_max)
			w->late_max = late;
		w->late_sum = sat_add(w->late_sum, late);
		if (cost > w->cost_max)
			w->cost_max = cost;
		w->cost_sum = sat_add(w->cost_sum, cost);
	}
	if (x) {
		w->bdc_n++;
		w->bdc_sum = sat_add(w->bdc_sum, cost);
		if (cost > w->bdc_max)
			w->bdc_max = cost;
	} else {
		w->st_n++;
		w->st_sum = sat_add(w->st_sum, cost);
		if (cost > w->st_max)
			w->st_max = cost;
	}
	if (!w->lines || s->rss > w->peak_rss) {
		w->peak_rss = s->rss;
		w->peak_t = s->t_ns;
		w->peak_src = x ? pmaps_source_name(x->source) : "status";
	}
	if (ks) {
		uint64_t total = sat_add(s->rss, ks->rss);
		if (!w->have_total || total > w->peak_total) {
			w->have_total = 1;
			w->peak_total = total;
			w->peak_total_t = s->t_ns;
			w->peak_total_proc = s->rss;
			w->peak_total_kids = *ks;
		}
	}
	if (w->o->quiet)
		; /* the summary only */
	else if (w->o->fmt == FMT_JSONL)
		watch_json_sample(w, s, x, wr, st, ks, tick ? late : 0, cost);
	else
		watch_table_line(w, s, x != NULL, x ? pmaps_source_name(x->source) : "status", wr, ks);
	if (w->o->tl) {
		/* Every sample: a status one's RSS is drawn too, its categories not. */
		struct watch_sample d = *s;
		d.status_only = x == NULL;
		d.kids_known = ks != NULL;
		d.kids_rss = ks ? ks->rss : 0;
		d.touched_known = wr && wr->x->referenced_known;
		d.touched = d.touched_known ? wr->x->referenced_total : 0;
		d.touched_ns = d.touched_known ? wr->since_end_ns : 0;
		d.touched_end_ns = d.touched_known && wr->x->read_end_ns > w->t0
		                           ? wr->x->read_end_ns - w->t0
		                           : 0;
		timeline_add(w->o->tl, &d);
	}
	if (x)
		account_full(w, s, x);
	if (wr) {
		wsum_keep(&w->wsum, wr->x);
		if (wr->reset_took_ns > w->ws_reset_max)
			w->ws_reset_max = wr->reset_took_ns;
		w->ws_method = wr->method;
	}
	w->lines++;
	if (tick)
		w->samples++;
	w->have_prev = 1;
	w->prev_rss = s->rss;
	w->prev_swap = s->swap;
	w->prev_swap_known = s->swap_known;
	if (x) {
		w->have_prev_full = 1;
		w->prev_full = *s;
		w->prev_cats = 0;
		for (int k = 0; k < PMAPS_X_COUNT; k++)
			if (x->mappings[k])
				w->prev_cats |= 1u << k;
	}
	err = 0;
	if (tick && w->wp && !w->o->quiet)
		err = sample_pages(w);
	if (w->o->fmt == FMT_JSONL && !w->o->quiet)
		KEY(&w->out, "}\n");
	out_flush(&w->out);
	/* Gone, or exec'd between the sample and the page walk: as any read that finds it so. */
	if (err == -ESRCH || err == -ENOENT || err == -ESTALE)
		return read_error(w, err, s->t_ns);
	return err < 0 ? END_FAILED : END_NONE;
}

/*
 * Reads a breakdown into *X: the explain session's, or with --wss the
 * working-set session's reading (what the process touched since the reset
 * after the breakdown before), copied into *WR, then the next reset (its
 * cost is the breakdown's). Returns 0, or a negative errno with the message
 * in MSG.
 */
static int bd_read(struct watch *w, const struct pmaps_explain **x, struct pmaps_wss_result *wr,
                   char *msg, size_t msgsz)
{
	const struct pmaps_wss_result *r;
	int err;

	if (!w->ws) {
		err = pmaps_explain_run(w->xs, x);
		if (err < 0)
			snprintf(msg, msgsz, "%s", pmaps_explain_errmsg(w->xs));
		return err;
	}
	if (w->ws_err < 0) {
		/* The reset after the reading before failed: no interval to read. */
		snprintf(msg, msgsz, "%s", w->ws_msg);
		return w->ws_err;
	}
	err = pmaps_wss_read(w->ws, &r);
	if (err < 0) {
		snprintf(msg, msgsz, "%s", pmaps_wss_errmsg(w->ws));
		return err;
	}
	/* The reset rewrites the session's reading; its X stays until the next read. */
	*wr = *r;
	*x = r->x;
	/*
	 * The reading is good whatever the reset does: a reset that fails (the
	 * process exited or exec'd after the read) is the next breakdown's
	 * error; a tick's probe most often finds it first.
	 */
	err = pmaps_wss_reset(w->ws);
	if (err < 0) {
		w->ws_err = err;
		snprintf(w->ws_msg, sizeof(w->ws_msg), "%s", pmaps_wss_errmsg(w->ws));
	}
	return 0;
}

/* ---- the breakdown's thread ---- */

/*
 * A breakdown that takes more than half the interval is read by a thread
 * of its own, on a handle of its own (a library handle is one thread's at a
 * time), so that the ticks keep time with status samples meanwhile. Its
 * line comes at the first tick after it ended, before that tick's, with t
 * when it ended (its figures are the process's during the read, which began
 * cost_ns before). The main thread touches the session only while the
 * thread is idle.
 */
static void *bd_main(void *arg)
{
	struct watch *w = arg;

	pthread_mutex_lock(&w->mu);
	for (;;) {
		const struct pmaps_explain *x = NULL;
		struct pmaps_wss_result wr;
		char msg[sizeof(w->bd_msg)];
		uint64_t t, e, bk = 0;
		int err, books;
		while (!w->bd_want && !w->bd_quit)
			pthread_cond_wait(&w->cv, &w->mu);
		if (w->bd_quit)
			break;
		w->bd_want = 0;
		books = w->bd_books;
		pthread_mutex_unlock(&w->mu);
		if (books) {
			/*
			 * The books right before the breakdown, joined to it alone: a
			 * runtime figure is never set against another moment's.
			 */
			t = now_ns();
			books_read(&w->bk_thr, &w->o->books, w->xproc, w->bk_rt);
			bk = now_ns() - t;
		}
		t = now_ns();
		err = bd_read(w, &x, &wr, msg, sizeof(msg));
		if (err == 0 && books) {
			w->bk_thr.runtime = x->runtime_kind;
			pmaps_books_join(x, &w->bk_thr.b, 0, &w->bk_thr_join);
		}
		pthread_mutex_lock(&w->mu);
		w->bd_x = x;
		if (err == 0 && w->ws)
			w->bd_wr = wr;
		w->bd_err = err;
		w->bd_start = t;
		/*
		 * Its end as the main thread can see it: read under the lock that
		 * publishes it, so that a tick's time read before a look that finds
		 * it not done is before its end (its line never goes back).
		 */
		e = now_ns();
		w->bd_end = e;
		w->bd_books_done = err == 0 && books;
		w->bk_cost = bk;
		if (err < 0)
			memcpy(w->bd_msg, msg, sizeof(msg));
		w->bd_busy = 0;
		w->bd_done = 1;
		pthread_cond_broadcast(&w->cv);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

/* Waits until the thread is idle, and drops a breakdown it finished. */
static void bd_idle(struct watch *w)
{
	if (!w->bd_thread)
		return;
	pthread_mutex_lock(&w->mu);
	while (w->bd_busy)
		pthread_cond_wait(&w->cv, &w->mu);
	w->bd_done = 0;
	pthread_mutex_unlock(&w->mu);
}

/*
 * The error of a read (a breakdown's, status's, the probe's) as the watch
 * takes it: END_NONE to go on (an exec followed, a read that met mappings
 * changing), or how it ends.
 */
static enum end_why read_error(struct watch *w, int err, uint64_t t_ns)
{
	if (err == -ESRCH || err == -ENOENT)
		return END_EXITED;
	if (err == -ESTALE) {
		bd_idle(w);
		err = reopen(w);
		if (err == -ESRCH || err == -ENOENT)
			return END_EXITED;
		if (err < 0)
			return END_FAILED;
		if (w->o->quiet) {
			/* run -q: the summary alone (its execs count says it) */
		} else if (w->o->fmt == FMT_JSONL) {
			watch_json_lead(w);
			KEY(&w->out, ",\"t\":");
			watch_out_secs(&w->out, t_ns, 6);
			KEY(&w->out, ",\"event\":\"exec\"}\n");
		} else if (!w->o->quiet) {
			out_str(&w->out, "           the process exec'd: watching its new program\n");
		}
		return END_NONE;
	}
	if (err == -EAGAIN) {
		/* The mappings kept changing through every read: no figure from this one. */
		w->unread++;
		return END_NONE;
	}
	if (!w->msg[0])
		snprintf(w->msg, sizeof(w->msg), "%s", pmaps_strerror(err));
	return END_FAILED;
}

/*
 * The breakdown the thread finished, if any, as a line: one that ended at
 * UNTIL or before (CLOCK_MONOTONIC; UINT64_MAX: whenever it ended).
 */
static enum end_why bd_collect(struct watch *w, uint64_t until)
{
	const struct pmaps_explain *x;
	struct pmaps_wss_result wr;
	struct watch_sample s;
	uint64_t start, end;
	int err, done, books;

	if (!w->bd_thread)
		return END_NONE;
	pthread_mutex_lock(&w->mu);
	done = w->bd_done && w->bd_end <= until;
	if (done)
		w->bd_done = 0;
	x = w->bd_x;
	wr = w->bd_wr;
	err = w->bd_err;
	start = w->bd_start;
	end = w->bd_end;
	books = done && w->bd_books_done;
	if (done && err < 0)
		snprintf(w->msg, sizeof(w->msg), "%s", w->bd_msg);
	if (books) {
		/* The thread is idle: its books are the main thread's to take. */
		w->bk_cur = w->bk_thr;
		w->bk_join = w->bk_thr_join;
		w->bk_have = 1;
	}
	/* A read of the books ended, whether its breakdown did or not: the next is due then. */
	if (done && w->bd_books)
		bk_schedule(w, end, w->bk_cost);
	pthread_mutex_unlock(&w->mu);
	if (!done)
		return END_NONE;
	w->bd_cost = end - start;
	w->next_full = full_due(w, end);
	if (err < 0)
		return read_error(w, err, end - w->t0);
	memset(&s, 0, sizeof(s));
	s.t_ns = end - w->t0;
	from_explain(w, &s, x);
	w->bg++;
	return emit(w, &s, x, w->ws ? &wr : NULL, NULL, NULL, 0, 0, end - start, books);
}

/*
 * Takes the sample of the tick at NOW, LATE after it, and writes it (the
 * line of a breakdown the thread finished since the tick before was
 * written before NOW was read). Returns END_NONE, or why the watch ends
 * (W->msg says more).
 */
static enum end_why take(struct watch *w, uint64_t now, uint64_t late)
{
	const struct pmaps_explain *x = NULL;
	struct pmaps_wss_result wr;
	struct pmaps_status st;
	struct watch_sample s;
	struct kids_sum ks;
	uint64_t done;
	int err = 0, full = 0, busy = 0;

	memset(&s, 0, sizeof(s));
	s.t_ns = now - w->t0;
	w->msg[0] = '\0';
	if (w->probe >= 0) {
		char c;
		ssize_t r = pread(w->probe, &c, 1, 0);
		/* 0: the address space is gone: the process exited, or exec'd */
		if (r == 0) {
			memset(&st, 0, sizeof(st));
			st.size = sizeof(st);
			err = pmaps_status_read(w->proc, &st, NULL, 0) < 0 ||
			              !((st.present >> PMAPS_ST_VM_RSS) & 1)
			          ? -ESRCH /* no memory left: it exited */
			          : -ESTALE;
		} else if (r < 0 && (errno == ESRCH || errno == ENOENT)) {
			err = -ESRCH;
		}
		if (err)
			return read_error(w, err, s.t_ns);
	}
	if (w->bd_thread) {
		/*
		 * Finished since bd_collect() looked is busy too: its result lives
		 * in the session a read at the tick, or the next job, would reuse.
		 */
		pthread_mutex_lock(&w->mu);
		busy = w->bd_busy || w->bd_done;
		pthread_mutex_unlock(&w->mu);
	}
	if (!busy && w->bd_thread && bk_due(w, now)) {
		/*
		 * The books are due: the thread reads them and a breakdown right
		 * after them (jcmd takes most of a second: never at the tick).
		 */
		pthread_mutex_lock(&w->mu);
		w->bd_busy = 1;
		w->bd_want = 1;
		w->bd_books = 1;
		pthread_cond_broadcast(&w->cv);
		pthread_mutex_unlock(&w->mu);
		/* Not asked again until this one is collected and the next is due. */
		w->bk_next = UINT64_MAX;
	} else if (!busy && now >= w->next_full) {
		if (!w->bd_thread || w->bd_cost * 2 <= w->interval) {
			full = 1; /* cheap enough to read at the tick */
		} else {
			pthread_mutex_lock(&w->mu);
			w->bd_busy = 1;
			w->bd_want = 1;
			w->bd_books = 0;
			pthread_cond_broadcast(&w->cv);
			pthread_mutex_unlock(&w->mu);
		}
	}
	if (full) {
		err = bd_read(w, &x, &wr, w->msg, sizeof(w->msg));
	} else {
		memset(&st, 0, sizeof(st));
		st.size = sizeof(st);
		err = pmaps_status_read(w->proc, &st, w->msg, sizeof(w->msg));
		/* A zombie's status has no Vm lines: it has no memory left to watch. */
		if (err == 0 && !((st.present >> PMAPS_ST_VM_RSS) & 1))
			err = -ESRCH;
	}
	done = now_ns();
	if (full) {
		w->bd_cost = done - now;
		w->next_full = full_due(w, done);
	}
	if (err < 0)
		return read_error(w, err, s.t_ns);
	if (full) {
		from_explain(w, &s, x);
	} else {
		s.rss = st.v[PMAPS_ST_VM_RSS];
		s.swap_known = (st.present >> PMAPS_ST_VM_SWAP) & 1;
		s.swap = st.v[PMAPS_ST_VM_SWAP];
		if ((st.present >> PMAPS_ST_VM_HWM) & 1) {
			w->have_hwm = 1;
			w->hwm = st.v[PMAPS_ST_VM_HWM];
		}
	}
	if (w->kids) {
		/* The descendants after the process, at the same tick (their cost is the sample's). */
		err = kids_sample(w->kids, s.t_ns, &ks, w->msg, sizeof(w->msg));
		if (err < 0)
			return END_FAILED;
		done = now_ns();
	}
	return emit(w, &s, x, full && w->ws ? &wr : NULL, full ? NULL : &st, w->kids ? &ks : NULL, 1,
	            late, done - now, 0);
}

/* ---- the loop ---- */

/*
 * Sleeps until DEADLINE (monotonic). Returns 0 then, 1 when a stop signal
 * came, 2 when run's child ended.
 */
static int sleep_until(const struct watch *w, uint64_t deadline)
{
	struct timespec ts = {(time_t)(deadline / 1000000000u), (long)(deadline % 1000000000u)};

	for (;;) {
		int r;
		if (w->pidfd >= 0 && !stop_sig) {
			/* watch: the sleep ends when the process exits, so that its end is seen then */
			uint64_t now = now_ns();
			struct pollfd pfd = {w->pidfd, POLLIN, 0};
			struct timespec left = {0, 0};
			if (now < deadline) {
				left.tv_sec = (time_t)((deadline - now) / 1000000000u);
				left.tv_nsec = (long)((deadline - now) % 1000000000u);
			}
			r = ppoll(&pfd, 1, &left, NULL);
			if (r > 0 && (pfd.revents & POLLIN))
				return 2;
			if (r == 0 || (r < 0 && errno != EINTR))
				return 0; /* the tick (an odd failure: as the sleep, no worse) */
			continue;
		}
		if (stop_sig)
			return 1;
		if (child_sig && w->o->run) {
			siginfo_t si;
			memset(&si, 0, sizeof(si));
			child_sig = 0;
			/* WNOWAIT: reaped after the summary, by watch_pid(). */
			if (waitid(P_PID, (id_t)w->o->child, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
			    si.si_pid == w->o->child)
				return 2;
		}
		r = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		if (r == 0)
			return 0;
		if (r != EINTR)
			return 0;
	}
}

static void watch_loop(struct watch *w)
{
	uint64_t tick = 0;

	w->t0 = now_ns();
	for (;;) {
		uint64_t deadline = w->t0 + tick * w->interval, now, next;
		enum end_why e;
		int r;

		if (w->o->count && w->samples >= w->o->count) {
			w->end = END_COUNT;
			break;
		}
		if (w->o->duration_ns && tick * w->interval > w->o->duration_ns) {
			w->end = END_DURATION;
			break;
		}
		r = sleep_until(w, deadline);
		if (r) {
			w->end = r == 1 ? END_SIGNAL : END_EXITED;
			break;
		}
		/*
		 * A breakdown the thread finished since the tick before: its line
		 * first, then the tick's time read (its t never before the line
		 * before; writing that line is no part of the tick's cost).
		 */
		e = bd_collect(w, UINT64_MAX);
		if (e != END_NONE) {
			w->end = e;
			break;
		}
		now = now_ns();
		/*
		 * One that ended between that look and NOW: its line too, before the
		 * tick's (later, its t would go back; one that ends after NOW waits).
		 */
		e = bd_collect(w, now);
		if (e != END_NONE) {
			w->end = e;
			break;
		}
		e = take(w, now, now - deadline);
		if (e != END_NONE) {
			w->end = e;
			break;
		}
		/* The next tick not yet passed: the ones this sample overran are missed. */
		next = (now_ns() - w->t0) / w->interval + 1;
		if (next < tick + 1)
			next = tick + 1;
		/* Missed only up to the last tick within --duration (LAST + 1 ends the loop). */
		if (w->o->duration_ns && next > w->o->duration_ns / w->interval + 1)
			w->missed += w->o->duration_ns / w->interval + 1 > tick + 1
			                 ? w->o->duration_ns / w->interval - tick
			                 : 0;
		else
			w->missed += next - tick - 1;
		tick = next;
	}
	/*
	 * A breakdown the thread finished is the watch's, whatever ended it:
	 * its line comes before the summary (a process that exits before its
	 * second tick has only it). One it is still reading is waited for,
	 * save on a signal (the summary comes at once; it is dropped, the
	 * thread joined after): when a limit ended the watch its figures (or
	 * its failure, such as a permission the status samples did not need)
	 * are the watch's last; when the process ended, it ends as the read
	 * does (gone: no line).
	 */
	w->t_end = now_ns() - w->t0; /* when the end was seen */
	if (w->bd_thread) {
		enum end_why e;
		/* A read of the books in progress is cut short: the watch has ended. */
		__atomic_store_n(&w->bk_abort, 1, __ATOMIC_RELAXED);
		if (w->end != END_SIGNAL) {
			pthread_mutex_lock(&w->mu);
			while (w->bd_busy)
				pthread_cond_wait(&w->cv, &w->mu);
			pthread_mutex_unlock(&w->mu);
		}
		e = bd_collect(w, UINT64_MAX);
		if (e == END_FAILED || (e == END_EXITED && w->end != END_SIGNAL))
			w->end = e;
	}
	if (w->end != END_EXITED)
		w->t_end = now_ns() - w->t0;
}

/* ---- the commands ---- */

int watch_prepare(struct watch_opts *o)
{
	char msg[512];
	int err;

	o->tl = NULL;
	if (!o->svg)
		return 0;
	msg[0] = '\0';
	err = timeline_open(&o->tl, o->svg, msg, sizeof(msg));
	if (err < 0) {
		o->tl = NULL;
		die_msg("--svg '%s': %s", o->svg, msg[0] ? msg : pmaps_strerror(err));
		return EXIT_FAIL;
	}
	return 0;
}

void watch_unprepare(struct watch_opts *o)
{
	timeline_close(o->tl);
	o->tl = NULL;
}

/*
 * Reaps run's child into EN (blocking: a watch that ended early waits for
 * it). A status that cannot be had (ECHILD: something else reaped it) is
 * said here, and EN->have stays 0.
 */
static void reap(pid_t pid, struct ending *en)
{
	struct rusage ru;
	int status = 0, err;

	memset(en, 0, sizeof(*en));
	memset(&ru, 0, sizeof(ru));
	err = run_reap(pid, &status, &ru);
	if (err < 0) {
		die_msg("run: process %d: its exit status is lost: %s", (int)pid, strerror(-err));
		return;
	}
	en->have = 1;
	if (WIFSIGNALED(status)) {
		en->sig = WTERMSIG(status);
		en->core = WCOREDUMP(status) != 0;
	} else {
		en->code = WEXITSTATUS(status);
	}
	en->maxrss = (uint64_t)ru.ru_maxrss * 1024u;
}

/* Ends the breakdown's thread (a breakdown it is reading is finished and dropped). */
static void bd_stop(struct watch *w)
{
	if (w->bd_thread) {
		__atomic_store_n(&w->bk_abort, 1, __ATOMIC_RELAXED);
		pthread_mutex_lock(&w->mu);
		w->bd_quit = 1;
		pthread_cond_broadcast(&w->cv);
		pthread_mutex_unlock(&w->mu);
		pthread_join(w->bd_tid, NULL);
		w->bd_thread = 0;
	}
	if (w->bd_init) {
		pthread_cond_destroy(&w->cv);
		pthread_mutex_destroy(&w->mu);
		w->bd_init = 0;
	}
}

int watch_pid(struct watch_opts *o)
{
	struct sigaction sa, old[4];
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGCHLD};
	struct ending en;
	struct failure f;
	struct watch *w;
	int rc = EXIT_OK, err;

	memset(&en, 0, sizeof(en));
	w = calloc(1, sizeof(*w));
	/* --wss: the summary's readings, allocated once */
	if (w && o->wss && wsum_init(&w->wsum) < 0) {
		free(w);
		w = NULL;
	}
	if (w)
		w->probe = w->pidfd = -1;
	if (!w) {
		die_msg("out of memory");
		if (o->run)
			reap(o->child, &en);
		watch_unprepare(o);
		if (o->run && o->out_fd != STDERR_FILENO)
			close(o->out_fd);
		/* run: CMD's status all the same */
		return !en.have ? EXIT_FAIL : en.sig ? 128 + en.sig : en.code;
	}
	w->o = o;
	w->bk_on = !o->books.off;
	w->bk_thr_join.size = sizeof(w->bk_thr_join);
	w->bk_join.size = sizeof(w->bk_join);
	o->books.quit = &w->bk_abort;
	w->interval = o->interval_ns;
	w->late_limit = o->interval_ns / 10 > 1000000u ? o->interval_ns / 10 : 1000000u;
	w->t.root = o->t.root;
	w->src = o->source == PMAPS_SRC_PAGES ? PMAPS_SRC_PAGES : PMAPS_SRC_SMAPS;
	if (o->run) {
		snprintf(w->pidstr, sizeof(w->pidstr), "%d", (int)o->child);
		w->pid = (int)o->child; /* the summary's, should it end before the first sample */
		w->t.pid = w->pidstr;
		w->t.root = NULL;
		out_fd(&w->out, o->out_fd, w->buf, sizeof(w->buf));
	} else {
		w->t.pid = o->t.pid;
		out_fd(&w->out, STDOUT_FILENO, w->buf, sizeof(w->buf));
	}
	/* Signals: watch stops on INT, TERM, HUP; run notices its child's end. */
	stop_sig = 0;
	child_sig = 0;
	memset(&sa, 0, sizeof(sa));
	for (int i = 0; i < 4; i++)
		sigaction(sigs[i], NULL, &old[i]);
	if (o->run) {
		sa.sa_handler = on_child;
		sigaction(SIGCHLD, &sa, NULL);
		child_sig = 1; /* CMD may have ended before the handler: the first sleep asks */
	} else {
		sa.sa_handler = on_stop;
		for (int i = 0; i < 3; i++)
			sigaction(sigs[i], &sa, NULL);
	}
	if (o->run) {
		err = pmaps_proc_open(&w->proc, NULL, w->t.pid);
		if (err == -ESRCH) {
			w->end = END_EXITED; /* gone before the first sample */
			goto ended;
		}
		if (err < 0) {
			die_msg("run: process %d: %s", (int)o->child, pmaps_strerror(err));
			rc = EXIT_FAIL;
			goto ended;
		}
	} else {
		rc = tool_proc_open(&w->proc, &w->t);
		if (rc != 0)
			goto out;
		rc = watch_prepare(o);
		if (rc != 0)
			goto out;
	}
	w->pid = pmaps_proc_pid(w->proc);
	if (pmaps_proc_is_kernel_thread(w->proc) == 1) {
		/* As explain: nothing to watch, and that is no error. */
		kernel_thread_note(w->pid);
		goto ended;
	}
	err = open_reading(w);
	if (err == -ESRCH && o->run) {
		w->end = END_EXITED;
		goto ended;
	}
	if (err < 0) {
		if (o->pages && (w->xs || w->ws) && !w->wp)
			die_msg("--pages: %s", w->msg);
		else
			tool_fail(&w->t, (failed(&f, NULL, err, w->msg), &f));
		rc = EXIT_FAIL;
		goto ended;
	}
	if (!o->run && w->probe >= 0) {
		char c;
		/*
		 * Nothing sampled yet and no address space left (a zombie, one
		 * exiting): the error pages and explain give, not a watch of
		 * nothing. A breakdown's read says which, cheaply: it has no
		 * mappings. One that turns zombie later ends the watch as an exit.
		 * (--wss: the reset at the open has said so.)
		 */
		if (w->xs && pread(w->probe, &c, 1, 0) == 0) {
			const struct pmaps_explain *x = NULL;
			err = pmaps_explain_run(w->xs, &x);
			if (err < 0 && err != -ESTALE && err != -EAGAIN) {
				tool_fail(&w->t, (failed(&f, NULL, err, pmaps_explain_errmsg(w->xs)), &f));
				rc = EXIT_FAIL;
				goto ended;
			}
		}
	}
	{
		/* The comm, read now: at the end the process may be gone. */
		int fd = openat(pmaps_proc_dirfd(w->proc), "comm", O_RDONLY | O_CLOEXEC);
		ssize_t r = fd >= 0 ? read(fd, w->comm, sizeof(w->comm)) : -1;
		w->comm_len = r > 0 ? (size_t)r : 0;
		if (w->comm_len && w->comm[w->comm_len - 1] == '\n')
			w->comm_len--;
		if (fd >= 0)
			close(fd);
	}
#ifdef SYS_pidfd_open
	if (!o->run && !w->t.root) {
		/*
		 * Its pidfd, so that a sleep ends when it exits. Opened by pid: it is
		 * this process's when /proc/PID, opened after it, still is (a pid is
		 * not reused while its process is alive or a zombie). None where the
		 * kernel has none (before 5.3): the exit is seen at the next tick.
		 */
		struct pmaps_proc *np = NULL;
		w->pidfd = (int)syscall(SYS_pidfd_open, (pid_t)w->pid, 0u);
		if (w->pidfd >= 0 && (pmaps_proc_open(&np, NULL, w->pidstr) < 0 ||
		                      !same_process(w->proc, np))) {
			close(w->pidfd);
			w->pidfd = -1;
		}
		pmaps_proc_close(np);
	}
#endif
	if (o->children) {
		err = kids_open(&w->kids, w->t.root, w->pid, w->msg, sizeof(w->msg));
		if (err < 0) {
			die_msg("--children: %s", w->msg);
			rc = EXIT_FAIL;
			goto ended;
		}
	}
	if (o->fmt == FMT_TABLE)
		watch_table_heading(w);
	out_flush(&w->out);
	/* Without the thread (it could not start), every breakdown is read at its tick. */
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	w->bd_init = 1;
	/* The thread takes no signal: they are the main thread's (its sleeps end on them). */
	{
		sigset_t all, was;
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &was);
		w->bd_thread = pthread_create(&w->bd_tid, NULL, bd_main, w) == 0;
		pthread_sigmask(SIG_SETMASK, &was, NULL);
	}
	watch_loop(w);
ended:
	if (o->run)
		reap(o->child, &en);
	if (w->end == END_FAILED) {
		/* The figures so far, then the failure: never as an answer. */
		out_flush(&w->out);
		tool_fail(&w->t, (failed(&f, NULL, -EIO, w->msg), &f));
		rc = EXIT_FAIL;
	}
	if (w->kids)
		kids_end(w->kids);
	if (w->end != END_NONE) {
		if (o->fmt == FMT_JSONL)
			watch_json_summary(w, &en);
		else
			watch_table_summary(w, &en);
	}
	if (o->tl && w->end != END_NONE && w->end != END_FAILED) {
		char title[256], msg[512];
		int n = o->run ? snprintf(title, sizeof(title), "pmaps run: %s (process %d)", o->cmd,
		                          w->pid)
		               : snprintf(title, sizeof(title), "pmaps watch: %.*s (process %d)",
		                          (int)w->comm_len, w->comm, w->pid);
		if (n < 0)
			n = 0;
		msg[0] = '\0';
		err = timeline_write(o->tl, title, (size_t)n < sizeof(title) ? (size_t)n
		                                                             : sizeof(title) - 1,
		                     msg, sizeof(msg));
		if (err < 0) {
			out_flush(&w->out);
			die_msg("--svg '%s': %s", o->svg, msg[0] ? msg : pmaps_strerror(err));
			rc = EXIT_FAIL;
		} else if (!o->quiet) {
			out_flush(&w->out);
			timeline_said(o->tl);
		}
	}
	rc = finish_output(&w->out, rc);
	bd_stop(w);
	if (o->run) {
		/*
		 * Once CMD has run, its status is run's: pmaps's own failures
		 * after it started (a read, the output, the SVG) were told on
		 * standard error. 1 only when the status itself is lost.
		 */
		rc = EXIT_FAIL;
		if (en.have && en.sig) {
			die_msg("run: %s killed by signal %d (%s)%s", o->cmd, en.sig, strsignal(en.sig),
			        en.core ? ", core dumped" : "");
			rc = 128 + en.sig;
		} else if (en.have) {
			rc = en.code;
		}
	}
out:
	bd_stop(w);
	for (int i = 0; i < 4; i++)
		sigaction(sigs[i], &old[i], NULL);
	close_reading(w);
	if (w->pidfd >= 0)
		close(w->pidfd);
	kids_close(w->kids);
	wsum_free(&w->wsum);
	watch_unprepare(o);
	if (o->run && o->out_fd != STDERR_FILENO)
		close(o->out_fd);
	free(w);
	return rc;
}

void watch_sample_from(struct watch_sample *s, const struct pmaps_explain *x, uint64_t t_ns)
{
	memset(s, 0, sizeof(*s));
	s->t_ns = t_ns;
	s->rss = x->total[PMAPS_XC_RSS];
	for (int k = 0; k < PMAPS_X_COUNT; k++)
		s->cat[k] = x->v[k][PMAPS_XC_RSS];
	s->lazyfree_known = pmaps_explain_known(x, -1, PMAPS_XC_LAZYFREE);
	s->lazyfree = s->lazyfree_known ? x->total[PMAPS_XC_LAZYFREE] : 0;
	s->swap_known = pmaps_explain_known(x, -1, PMAPS_XC_SWAP);
	s->swap = s->swap_known ? x->total[PMAPS_XC_SWAP] : 0;
}
