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

#include "common/tool.h"
#include "write/writer.h"
#include "watch/watch.h"
#include "watch/watch_kids.h"
#include "watch/watch_loop.h"
#include "common/num.h"

#define KEY(o, lit) out_mem(o, lit, sizeof(lit) - 1)

/* A category "kept growing" when it rose in this share of at least this many intervals. */
#define KEPT_MIN_INTERVALS 5
#define KEPT_PERCENT 80
/* Changes --pages shows per sample: in the table, in JSON. The stats count all. */
#define PAGES_SHOW_TABLE 16
#define PAGES_SHOW_JSON 256
/* A breakdown whose smaps read would hold the mmap_lock longer reads the page tables. */
#define AUTO_HOLD_NS 2000000ull
/* The mappings that grew most, listed in the summary. */
#define GREW_SHOWN 5
/* --children's column: "RSS/COUNT+UNTRACKED". */
#define KIDS_WIDTH(w) ((w)->o->human ? 13u : 19u)

/* The table's category columns: explain's categories, some added up. */
enum { G_HEAP, G_RTHEAP, G_ANON, G_STACK, G_FILE, G_SHMEM, G_OTHER, G_COUNT };
static const char *const group_name[G_COUNT] = {"heap", "rtheap", "anon", "stack", "file", "shmem",
                                                "other"};
static const unsigned char cat_group[PMAPS_X_COUNT] = {
	[PMAPS_X_HEAP] = G_HEAP,          [PMAPS_X_ANON] = G_ANON,
	[PMAPS_X_ANON_NAMED] = G_ANON,    [PMAPS_X_RUNTIME_HEAP] = G_RTHEAP,
	[PMAPS_X_THREAD_STACK] = G_STACK, [PMAPS_X_MAIN_STACK] = G_STACK,
	[PMAPS_X_FILE_TEXT] = G_FILE,     [PMAPS_X_FILE_DATA] = G_FILE,
	[PMAPS_X_FILE_RO] = G_FILE,       [PMAPS_X_SHMEM] = G_SHMEM,
	[PMAPS_X_HUGETLB] = G_SHMEM,      [PMAPS_X_OTHER] = G_OTHER,
};

enum end_why { END_NONE, END_COUNT, END_DURATION, END_EXITED, END_SIGNAL, END_FAILED };
static const char *const end_key[] = {"", "count", "duration", "exited", "interrupted",
                                      "failed"};

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

struct watch {
	struct watch_opts *o;
	struct out out;
	char buf[OUT_FD_BUFSIZE];
	struct target t;
	char pidstr[24];
	int pid;
	struct pmaps_proc *proc;
	struct pmaps_explain_session *xs;
	struct wpages *wp;
	int probe; /* /proc/PID/maps, open on the program's address space: it reads 0 once that is gone */
	int pidfd; /* watch: the process's pidfd (readable once it exited), or -1 */
	enum pmaps_source src;
	char why[160];
	unsigned xopts;
	char msg[1024];
	char comm[64]; /* the program's name (comm) as the watch began, for the picture's title */
	size_t comm_len;
	/* timing */
	uint64_t t0, interval, late_limit;
	uint64_t samples, lines, full, late, missed, unread, execs;
	uint64_t late_max, late_sum, cost_max, cost_sum;
	/* what each kind of read took: status samples, breakdowns (the thread's too), page walks */
	uint64_t st_n, st_sum, st_max, bdc_n, bdc_sum, bdc_max, pw_n, pw_sum, pw_max;
	uint64_t next_full; /* when the next breakdown may be read (monotonic ns) */
	uint64_t bd_cost;   /* what the last breakdown took */
	/* the breakdown's thread: its state under MU */
	int bd_thread;      /* it runs */
	int bd_init;        /* MU and CV are initialised */
	pthread_t bd_tid;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int bd_want, bd_busy, bd_done, bd_quit, bd_err;
	const struct pmaps_explain *bd_x;
	uint64_t bd_start, bd_end, bg;
	char bd_msg[512];
	struct pmaps_proc *xproc; /* the session's handle (the thread's) */
	/* the sample before, of any source; the breakdown before */
	int have_prev, have_prev_full;
	uint64_t prev_rss, prev_swap;
	int prev_swap_known;
	struct watch_sample prev_full;
	uint32_t prev_cats; /* categories holding a mapping in the breakdown before */
	/* the summary */
	uint64_t peak_rss, peak_t;
	const char *peak_src;
	int have_hwm;
	uint64_t hwm;
	struct watch_sample first, at_peak, last;
	uint32_t cats_seen;
	uint64_t cat_max[PMAPS_X_COUNT], lazy_max, swap_max;
	uint64_t pairs;     /* consecutive breakdowns */
	uint64_t rises[PMAPS_X_COUNT], rise_first[PMAPS_X_COUNT], rise_last[PMAPS_X_COUNT];
	unsigned first_ntop, peak_ntop;
	uint64_t epoch_full; /* breakdowns of the program now watched (since its exec) */
	struct pmaps_explain_top first_top[PMAPS_EXPLAIN_TOP], peak_top[PMAPS_EXPLAIN_TOP];
	/* --pages: this sample's changes */
	uint64_t pages_shown;
	/* --children: the descendants; the peak of the process's RSS and theirs together */
	struct kids *kids;
	int have_total;
	uint64_t peak_total, peak_total_t, peak_total_proc;
	struct kids_sum peak_total_kids;
	enum end_why end;
	uint64_t t_end;
	/*
	 * The runtime's books: read by the breakdown's thread right before a
	 * breakdown, and joined to that one alone (pmaps_books_join(): within
	 * its skew, the RSS not moved between them), at most once a second and
	 * a tenth of the time (jcmd takes most of a second). Under MU: BD_BOOKS,
	 * the breakdown asked for carries books; BK_THR and BK_THR_JOIN, what
	 * the thread read. BK_CUR and BK_JOIN are the main thread's: the books
	 * of the last breakdown that had them (BK_HAVE), BK_NOW when it is the
	 * sample being written.
	 */
	int bk_on, bk_have, bk_now, bd_books, bd_books_done;
	/*
	 * The program's runtime as its books know it (pmaps_books_runtime()),
	 * found once per program (at the open, at each exec), and whether there
	 * is any book to read of it (BK_WANT): else no breakdown carries books.
	 */
	enum pmaps_runtime bk_rt;
	int bk_want;
	int bk_abort; /* set (atomically) at the end: a read in progress is cut short */
	uint64_t bk_next, bk_cost;
	struct books bk_thr, bk_cur;
	struct pmaps_join bk_thr_join, bk_join;
};

/* ---- writing ---- */

/* NS as seconds with DIGITS decimals (1 to 9), truncated. */
static void out_secs(struct out *o, uint64_t ns, int digits)
{
	char d[10];
	uint64_t frac = ns % 1000000000u;

	out_u64(o, ns / 1000000000u);
	out_ch(o, '.');
	for (int i = 8; i >= 0; i--) {
		d[i] = (char)('0' + frac % 10);
		frac /= 10;
	}
	out_mem(o, d, (size_t)digits);
}

/* NS as milliseconds with three decimals: "0.153 ms". */
static void out_ms(struct out *o, uint64_t ns)
{
	uint64_t us = ns / 1000u;
	char d[4] = {(char)('0' + us / 100 % 10), (char)('0' + us / 10 % 10), (char)('0' + us % 10),
	             '\0'};

	out_u64(o, us / 1000u);
	out_ch(o, '.');
	out_mem(o, d, 3);
	out_str(o, " ms");
}

/* A - B as a signed decimal, exact for any two 64-bit values. */
static void out_diff(struct out *o, uint64_t a, uint64_t b)
{
	if (a >= b) {
		out_u64(o, a - b);
	} else {
		out_ch(o, '-');
		out_u64(o, b - a);
	}
}

/* A size for the table: K/M/G, or bytes with -b. Returns the length. */
static size_t fmt_size(const struct watch *w, char *d, uint64_t v)
{
	return w->o->human ? fmt_human(d, v) : fmt_u64(d, v);
}

/* A - B for the table: "+16.0M", "-4K", "0". Returns the length. */
static size_t fmt_change(const struct watch *w, char *d, uint64_t a, uint64_t b)
{
	if (a == b) {
		d[0] = '0';
		d[1] = '\0';
		return 1;
	}
	d[0] = a > b ? '+' : '-';
	return 1 + fmt_size(w, d + 1, a > b ? a - b : b - a);
}

static void cell(struct out *o, const char *s, size_t width)
{
	out_ch(o, ' ');
	out_rjust(o, s, strlen(s), width);
}

static void size_cell(struct watch *w, uint64_t v, int known, size_t width)
{
	char d[32];

	if (!known) {
		cell(&w->out, "-", width);
		return;
	}
	fmt_size(w, d, v);
	cell(&w->out, d, width);
}

/* The table's column widths: sizes in bytes need more room. */
static size_t wide(const struct watch *w, size_t human)
{
	return w->o->human ? human : 12;
}

static void table_heading(struct watch *w)
{
	struct out *o = &w->out;
	char iv[32];

	if (w->o->quiet)
		return; /* the summary only */
	if (w->o->run)
		out_str(o, "pmaps run: ");
	else
		out_str(o, "pmaps watch: ");
	out_str(o, "process ");
	out_u64(o, (uint64_t)w->pid);
	if (w->o->run) {
		out_str(o, " (");
		out_table_str(o, w->o->cmd, strlen(w->o->cmd));
		out_ch(o, ')');
	}
	out_str(o, ", every ");
	if (w->interval % 1000000000u == 0)
		snprintf(iv, sizeof(iv), "%llus", (unsigned long long)(w->interval / 1000000000u));
	else
		snprintf(iv, sizeof(iv), "%llums", (unsigned long long)(w->interval / 1000000u));
	out_str(o, iv);
	out_str(o, ", breakdown from ");
	out_str(o, pmaps_source_name(w->src));
	if (w->why[0]) {
		out_str(o, " (");
		out_str(o, w->why);
		out_ch(o, ')');
	}
	out_ch(o, '\n');
	cell(o, "time", 9);
	cell(o, "rss", wide(w, 7));
	cell(o, "change", wide(w, 7));
	for (int g = 0; g < G_COUNT; g++)
		cell(o, group_name[g], wide(w, 6));
	cell(o, "lazyfree", wide(w, 8));
	cell(o, "swap", wide(w, 6));
	if (w->kids)
		cell(o, "children/n", KIDS_WIDTH(w));
	out_str(o, " source  what changed\n");
}

/* The categories of sample S added up into the table's groups. */
static void groups_of(const struct watch_sample *s, uint64_t *g)
{
	memset(g, 0, sizeof(*g) * G_COUNT);
	for (int k = 0; k < PMAPS_X_COUNT; k++)
		g[cat_group[k]] = sat_add(g[cat_group[k]], s->cat[k]);
}

/* The descendants' cell: "RSS/COUNT", "+N" when N more were not read. */
static void kids_cell(struct watch *w, const struct kids_sum *ks)
{
	char d[64];
	size_t n;

	if (!ks) {
		cell(&w->out, "", KIDS_WIDTH(w));
		return;
	}
	n = fmt_size(w, d, ks->rss);
	d[n++] = '/';
	n += fmt_u64(d + n, ks->count);
	if (ks->untracked) {
		d[n++] = '+';
		fmt_u64(d + n, ks->untracked);
	}
	cell(&w->out, d, KIDS_WIDTH(w));
}

static void table_line(struct watch *w, const struct watch_sample *s, int full,
                       const char *source, const struct kids_sum *ks)
{
	struct out *o = &w->out;
	uint64_t g[G_COUNT], pg[G_COUNT];
	char d[48];

	{
		struct out m;
		char t[40];
		out_memory(&m, t, sizeof(t));
		out_secs(&m, s->t_ns, 3);
		out_ch(&m, '\0');
		cell(o, t, 9);
	}
	size_cell(w, s->rss, 1, wide(w, 7));
	if (w->have_prev) {
		fmt_change(w, d, s->rss, w->prev_rss);
		cell(o, d, wide(w, 7));
	} else {
		cell(o, "", wide(w, 7));
	}
	groups_of(s, g);
	for (int k = 0; k < G_COUNT; k++)
		size_cell(w, g[k], full, wide(w, 6));
	size_cell(w, s->lazyfree, s->lazyfree_known, wide(w, 8));
	size_cell(w, s->swap, s->swap_known, wide(w, 6));
	if (w->kids)
		kids_cell(w, ks);
	out_ch(o, ' ');
	out_ljust(o, source, strlen(source), 7);
	/* What changed since the breakdown before, group by group. */
	if (full && w->have_prev_full) {
		groups_of(&w->prev_full, pg);
		for (int k = 0; k < G_COUNT; k++) {
			if (g[k] == pg[k])
				continue;
			out_ch(o, ' ');
			out_str(o, group_name[k]);
			fmt_change(w, d, g[k], pg[k]);
			out_str(o, d);
		}
		if (s->lazyfree_known && w->prev_full.lazyfree_known &&
		    s->lazyfree != w->prev_full.lazyfree) {
			out_str(o, " lazyfree");
			fmt_change(w, d, s->lazyfree, w->prev_full.lazyfree);
			out_str(o, d);
		}
	}
	if (s->swap_known && w->have_prev && w->prev_swap_known && s->swap != w->prev_swap) {
		out_str(o, " swap");
		fmt_change(w, d, s->swap, w->prev_swap);
		out_str(o, d);
	}
	/* trailing spaces of a short line: none (the source column is last but these) */
	while (o->len && o->buf[o->len - 1] == ' ')
		o->len--;
	out_ch(o, '\n');
}

/* ,"categories":[...] as explain's JSON writes them. */
static void json_categories(struct out *o, const struct pmaps_explain *x)
{
	int first = 1;

	KEY(o, ",\"categories\":[");
	for (int k = 0; k < PMAPS_X_COUNT; k++) {
		if (!x->mappings[k])
			continue;
		if (!first)
			out_ch(o, ',');
		first = 0;
		KEY(o, "{\"category\":\"");
		out_str(o, pmaps_xcat_name((enum pmaps_xcat)k));
		KEY(o, "\",\"mappings\":");
		out_u64(o, x->mappings[k]);
		for (int c = 0; c < PMAPS_XC_COUNT; c++) {
			if (!pmaps_explain_known(x, k, (enum pmaps_xcol)c))
				continue;
			KEY(o, ",\"");
			out_str(o, pmaps_xcol_key((enum pmaps_xcol)c));
			KEY(o, "\":");
			out_u64(o, x->v[k][c]);
		}
		out_ch(o, '}');
	}
	out_ch(o, ']');
}

static void json_lead(struct watch *w)
{
	KEY(&w->out, "{\"pid\":");
	out_u64(&w->out, (uint64_t)w->pid);
}

/*
 * A sample's object, without its closing brace (--pages adds its changes):
 * X the breakdown, or ST the status alone.
 */
static void json_sample(struct watch *w, const struct watch_sample *s,
                        const struct pmaps_explain *x, const struct pmaps_status *st,
                        const struct kids_sum *ks, uint64_t late, uint64_t cost)
{
	struct out *o = &w->out;

	json_lead(w);
	KEY(o, ",\"t\":");
	out_secs(o, s->t_ns, 6);
	KEY(o, ",\"sample\":");
	out_u64(o, w->lines);
	KEY(o, ",\"source\":\"");
	out_str(o, x ? pmaps_source_name(x->source) : "status");
	KEY(o, "\",\"rss\":");
	out_u64(o, s->rss);
	if (x) {
		if (s->lazyfree_known) {
			KEY(o, ",\"effective_rss\":");
			out_u64(o, x->effective_rss);
		}
		if (pmaps_explain_known(x, -1, PMAPS_XC_PSS)) {
			KEY(o, ",\"pss\":");
			out_u64(o, x->total[PMAPS_XC_PSS]);
		}
		if (pmaps_explain_known(x, -1, PMAPS_XC_PRIVATE)) {
			KEY(o, ",\"uss\":");
			out_u64(o, x->uss);
		}
	} else {
		static const struct {
			enum pmaps_status_field f;
			const char *key;
		} parts[] = {{PMAPS_ST_RSS_ANON, ",\"rss_anon\":"},
		             {PMAPS_ST_RSS_FILE, ",\"rss_file\":"},
		             {PMAPS_ST_RSS_SHMEM, ",\"rss_shmem\":"}};
		for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
			if (!((st->present >> parts[i].f) & 1))
				continue;
			out_str(o, parts[i].key);
			out_u64(o, st->v[parts[i].f]);
		}
	}
	if (s->lazyfree_known) {
		KEY(o, ",\"lazy_free\":");
		out_u64(o, s->lazyfree);
	}
	if (s->swap_known) {
		KEY(o, ",\"swap\":");
		out_u64(o, s->swap);
	}
	if (w->have_hwm) {
		KEY(o, ",\"vm_hwm\":");
		out_u64(o, w->hwm);
	}
	if (ks) {
		KEY(o, ",\"children\":{\"count\":");
		out_u64(o, ks->count);
		KEY(o, ",\"untracked\":");
		out_u64(o, ks->untracked);
		KEY(o, ",\"rss\":");
		out_u64(o, ks->rss);
		KEY(o, ",\"anon\":");
		out_u64(o, ks->anon);
		KEY(o, ",\"file\":");
		out_u64(o, ks->file);
		KEY(o, ",\"shmem\":");
		out_u64(o, ks->shmem);
		KEY(o, ",\"swap\":");
		out_u64(o, ks->swap);
		KEY(o, "},\"total_rss\":");
		out_u64(o, sat_add(s->rss, ks->rss));
	}
	if (x) {
		KEY(o, ",\"mappings\":");
		out_u64(o, x->nmappings);
		json_categories(o, x);
		if (w->bk_now && books_asked(&w->bk_cur)) {
			KEY(o, ",\"runtime_books\":");
			books_write_json(o, &w->bk_cur, &w->bk_join);
		}
	}
	if (w->have_prev) {
		KEY(o, ",\"delta\":{\"rss\":");
		out_diff(o, s->rss, w->prev_rss);
		if (s->swap_known && w->prev_swap_known) {
			KEY(o, ",\"swap\":");
			out_diff(o, s->swap, w->prev_swap);
		}
		if (x && w->have_prev_full) {
			uint32_t cats = w->prev_cats;
			int first = 1;
			if (s->lazyfree_known && w->prev_full.lazyfree_known) {
				KEY(o, ",\"lazy_free\":");
				out_diff(o, s->lazyfree, w->prev_full.lazyfree);
			}
			/* Since the breakdown before: every category either holds a mapping in. */
			for (int k = 0; k < PMAPS_X_COUNT; k++)
				if (x->mappings[k])
					cats |= 1u << k;
			KEY(o, ",\"categories\":{");
			for (int k = 0; k < PMAPS_X_COUNT; k++) {
				if (!((cats >> k) & 1))
					continue;
				if (!first)
					out_ch(o, ',');
				first = 0;
				out_ch(o, '"');
				out_str(o, pmaps_xcat_name((enum pmaps_xcat)k));
				KEY(o, "\":");
				out_diff(o, s->cat[k], w->prev_full.cat[k]);
			}
			out_ch(o, '}');
		}
		out_ch(o, '}');
	}
	KEY(o, ",\"late_ns\":");
	out_u64(o, late);
	KEY(o, ",\"cost_ns\":");
	out_u64(o, cost);
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
		fmt_size(w, d, c->end - c->start);
		cell(o, d, 7);
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
		fmt_size(w, d, ps.added);
		out_str(o, d);
		out_str(o, " -");
		fmt_size(w, d, ps.removed);
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
 * Opens the explain session on a handle of its own (the thread's), and
 * --pages' diff on W->proc. Returns 0, or a negative errno with the
 * message in W->msg.
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
	err = pmaps_explain_open(&w->xs, w->xproc, w->xopts);
	if (err < 0) {
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
	memset(w->rises, 0, sizeof(w->rises));
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
	for (int k = 0; k < PMAPS_X_COUNT; k++) {
		if (x->mappings[k])
			w->cats_seen |= 1u << k;
		if (s->cat[k] > w->cat_max[k])
			w->cat_max[k] = s->cat[k];
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
static int kept_growing(const struct watch *w, int k)
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
	return w->bk_on && w->bk_want && now >= w->bk_next;
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
 * Writes sample S (X its breakdown, or ST its status) and keeps its
 * figures. TICK: the sample of a tick, LATE after it (its timing counts, and
 * --pages' diff follows it); else a breakdown the thread read. Returns
 * END_NONE, or how --pages' walk ended the watch.
 */
static enum end_why read_error(struct watch *w, int err, uint64_t t_ns);

static enum end_why emit(struct watch *w, const struct watch_sample *s,
                         const struct pmaps_explain *x, const struct pmaps_status *st,
                         const struct kids_sum *ks, int tick, uint64_t late, uint64_t cost,
                         int books)
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
		json_sample(w, s, x, st, ks, tick ? late : 0, cost);
	else
		table_line(w, s, x != NULL, x ? pmaps_source_name(x->source) : "status", ks);
	if (w->o->tl) {
		/* Every sample: a status one's RSS is drawn too, its categories not. */
		struct watch_sample d = *s;
		d.status_only = x == NULL;
		d.kids_known = ks != NULL;
		d.kids_rss = ks ? ks->rss : 0;
		timeline_add(w->o->tl, &d);
	}
	if (x)
		account_full(w, s, x);
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
		err = pmaps_explain_run(w->xs, &x);
		e = now_ns();
		if (err == 0 && books) {
			w->bk_thr.runtime = x->runtime_kind;
			pmaps_books_join(x, &w->bk_thr.b, 0, &w->bk_thr_join);
		}
		pthread_mutex_lock(&w->mu);
		w->bd_x = x;
		w->bd_err = err;
		w->bd_start = t;
		w->bd_end = e;
		w->bd_books_done = err == 0 && books;
		w->bk_cost = bk;
		if (err < 0)
			snprintf(w->bd_msg, sizeof(w->bd_msg), "%s", pmaps_explain_errmsg(w->xs));
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
			json_lead(w);
			KEY(&w->out, ",\"t\":");
			out_secs(&w->out, t_ns, 6);
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

/* The breakdown the thread finished, if any, as a line. */
static enum end_why bd_collect(struct watch *w)
{
	const struct pmaps_explain *x;
	struct watch_sample s;
	uint64_t start, end;
	int err, done, books;

	if (!w->bd_thread)
		return END_NONE;
	pthread_mutex_lock(&w->mu);
	done = w->bd_done;
	w->bd_done = 0;
	x = w->bd_x;
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
	w->next_full = end + 3 * w->bd_cost;
	if (err < 0)
		return read_error(w, err, end - w->t0);
	memset(&s, 0, sizeof(s));
	s.t_ns = end - w->t0;
	from_explain(w, &s, x);
	w->bg++;
	return emit(w, &s, x, NULL, NULL, 0, 0, end - start, books);
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
		err = pmaps_explain_run(w->xs, &x);
		if (err < 0)
			snprintf(w->msg, sizeof(w->msg), "%s", pmaps_explain_errmsg(w->xs));
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
		/* At most a quarter of the time on breakdowns. */
		w->bd_cost = done - now;
		w->next_full = done + 3 * w->bd_cost;
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
	return emit(w, &s, x, full ? NULL : &st, w->kids ? &ks : NULL, 1, late, done - now, 0);
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
		e = bd_collect(w);
		if (e != END_NONE) {
			w->end = e;
			break;
		}
		now = now_ns();
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
		e = bd_collect(w);
		if (e == END_FAILED || (e == END_EXITED && w->end != END_SIGNAL))
			w->end = e;
	}
	if (w->end != END_EXITED)
		w->t_end = now_ns() - w->t0;
}

/* ---- the summary ---- */

static void row_label(struct out *o, const char *s)
{
	out_str(o, "  ");
	out_ljust(o, s, strlen(s), 14);
}

/* One row: first, at the peak, last, max, growth (first to peak). */
static void summary_row(struct watch *w, const char *name, uint64_t first, uint64_t peak,
                        uint64_t last, uint64_t max)
{
	struct out *o = &w->out;
	char d[32];

	row_label(o, name);
	size_cell(w, first, 1, wide(w, 8));
	size_cell(w, peak, 1, wide(w, 8));
	size_cell(w, last, 1, wide(w, 8));
	size_cell(w, max, 1, wide(w, 8));
	fmt_change(w, d, peak, first);
	cell(o, d, wide(w, 8));
	out_ch(o, '\n');
}

/* The mapping at the peak the first breakdown had (same start and name), or -1. */
static int first_match(const struct watch *w, const struct pmaps_explain_top *p)
{
	for (unsigned i = 0; i < w->first_ntop; i++)
		if (w->first_top[i].start == p->start && w->first_top[i].path_len == p->path_len &&
		    memcmp(w->first_top[i].path, p->path, p->path_len) == 0)
			return (int)i;
	return -1;
}

/*
 * The largest mappings at the peak in the order of their growth since the
 * first breakdown: into ORDER (indexes into peak_top), with FIRST their
 * RSS then (or, BELOW set, a bound: the first breakdown listed ten larger
 * mappings, so this one's RSS then was at most that). Returns how many.
 */
static unsigned grew_most(const struct watch *w, unsigned *order, uint64_t *first, int *below)
{
	uint64_t growth[PMAPS_EXPLAIN_TOP];
	unsigned n = 0;

	for (unsigned i = 0; i < w->peak_ntop; i++) {
		const struct pmaps_explain_top *p = &w->peak_top[i];
		int m = first_match(w, p);
		uint64_t f;
		int b = 0;
		if (m >= 0) {
			f = w->first_top[m].rss;
		} else if (w->first_ntop == PMAPS_EXPLAIN_TOP) {
			/* Not among the ten largest then: at most the tenth's RSS. */
			f = w->first_top[PMAPS_EXPLAIN_TOP - 1].rss;
			b = 1;
		} else {
			f = 0; /* every mapping with RSS was listed: it had none */
		}
		if (p->rss <= f && !b)
			continue;
		if (b && p->rss <= f)
			continue;
		/* Insertion by growth, largest first. */
		{
			unsigned j = n;
			uint64_t g = p->rss - f;
			while (j > 0 && growth[j - 1] < g) {
				growth[j] = growth[j - 1];
				order[j] = order[j - 1];
				first[j] = first[j - 1];
				below[j] = below[j - 1];
				j--;
			}
			growth[j] = g;
			order[j] = i;
			first[j] = f;
			below[j] = b;
			n++;
		}
	}
	return n < GREW_SHOWN ? n : GREW_SHOWN;
}

/* How run's child ended, for the summary. */
struct ending {
	int have;       /* run: the child was reaped */
	int code, sig;  /* exit code, or the signal that killed it (0: none) */
	int core;
	uint64_t maxrss; /* ru_maxrss in bytes */
};

static void table_kids(struct watch *w);

static void cost_pair(struct out *o, const char *what, uint64_t n, uint64_t sum, uint64_t max)
{
	out_str(o, what);
	out_u64(o, n);
	out_str(o, ", ");
	out_ms(o, n ? sum / n : 0);
	out_str(o, " (mean), ");
	out_ms(o, max);
	out_str(o, " (max)");
}

/* What each kind of read took, the background breakdowns and the page walks included. */
static void table_costs(struct watch *w)
{
	struct out *o = &w->out;

	cost_pair(o, "  reads: status ", w->st_n, w->st_sum, w->st_max);
	cost_pair(o, "; breakdowns ", w->bdc_n, w->bdc_sum, w->bdc_max);
	if (w->o->pages)
		cost_pair(o, "; page walks ", w->pw_n, w->pw_sum, w->pw_max);
	out_ch(o, '\n');
}

static void json_cost(struct out *o, const char *key, uint64_t n, uint64_t sum, uint64_t max)
{
	KEY(o, ",\"");
	out_str(o, key);
	KEY(o, "\":{\"n\":");
	out_u64(o, n);
	KEY(o, ",\"mean_ns\":");
	out_u64(o, n ? sum / n : 0);
	KEY(o, ",\"max_ns\":");
	out_u64(o, max);
	out_ch(o, '}');
}

static void table_summary(struct watch *w, const struct ending *en)
{
	struct out *o = &w->out;
	unsigned order[PMAPS_EXPLAIN_TOP];
	uint64_t first[PMAPS_EXPLAIN_TOP];
	int below[PMAPS_EXPLAIN_TOP];
	unsigned n;
	char d[64];
	uint64_t lmean = w->samples ? w->late_sum / w->samples : 0;
	uint64_t cmean = w->samples ? w->cost_sum / w->samples : 0;

	out_str(o, "\nsummary: ");
	if (w->o->run) {
		out_table_str(o, w->o->cmd, strlen(w->o->cmd));
		out_str(o, " (process ");
		out_u64(o, (uint64_t)w->pid);
		out_ch(o, ')');
	} else {
		out_str(o, "process ");
		out_u64(o, (uint64_t)w->pid);
	}
	switch (w->end) {
	case END_EXITED: out_str(o, " exited"); break;
	case END_COUNT: out_str(o, ": --count samples taken"); break;
	case END_DURATION: out_str(o, ": --duration over"); break;
	case END_SIGNAL: out_str(o, ": interrupted"); break;
	case END_FAILED: out_str(o, ": a read failed (above)"); break;
	default: break;
	}
	out_str(o, " after ");
	out_secs(o, w->t_end, 3);
	out_str(o, " s\n");
	if (en->have) {
		if (en->sig) {
			out_str(o, "  killed by signal ");
			out_u64(o, (uint64_t)en->sig);
			out_str(o, " (");
			out_str(o, strsignal(en->sig));
			out_str(o, en->core ? ", core dumped)" : ")");
		} else {
			out_str(o, "  exit status ");
			out_u64(o, (uint64_t)en->code);
		}
		out_str(o, "; the kernel's peak RSS (ru_maxrss): ");
		fmt_size(w, d, en->maxrss);
		out_str(o, d);
		out_ch(o, '\n');
	}
	out_str(o, "  samples: ");
	out_u64(o, w->samples);
	out_str(o, " (");
	out_u64(o, w->full);
	out_str(o, " breakdowns from ");
	out_str(o, pmaps_source_name(w->src));
	if (w->bg) {
		out_str(o, ", ");
		out_u64(o, w->bg);
		out_str(o, " of them read in the background");
	}
	out_str(o, "), ");
	out_u64(o, w->late);
	out_str(o, " late, ");
	out_u64(o, w->missed);
	out_str(o, " missed ticks");
	if (w->unread) {
		out_str(o, ", ");
		out_u64(o, w->unread);
		out_str(o, " unread (the mappings kept changing)");
	}
	if (w->execs) {
		out_str(o, ", ");
		out_u64(o, w->execs);
		out_str(o, " exec");
	}
	if (!w->samples) {
		out_str(o, "\n  no samples: it ended before the first\n");
		return;
	}
	out_str(o, "\n  lateness: max ");
	out_ms(o, w->late_max);
	out_str(o, ", mean ");
	out_ms(o, lmean);
	out_str(o, "; a tick's sample took ");
	out_ms(o, cmean);
	out_str(o, " (mean), ");
	out_ms(o, w->cost_max);
	out_str(o, " (max)\n");
	table_costs(w);
	if (!w->samples)
		return;
	out_str(o, "  peak RSS: ");
	fmt_size(w, d, w->peak_rss);
	out_str(o, d);
	out_str(o, " at ");
	out_secs(o, w->peak_t, 3);
	out_str(o, " s (");
	out_str(o, w->peak_src);
	out_ch(o, ')');
	if (w->have_hwm) {
		out_str(o, "; the kernel's VmHWM ");
		fmt_size(w, d, w->hwm);
		out_str(o, d);
	}
	out_ch(o, '\n');
	if (w->kids)
		table_kids(w);
	if (!w->epoch_full)
		return;
	out_str(o, "\n");
	row_label(o, "category");
	cell(o, "first", wide(w, 8));
	cell(o, "at peak", wide(w, 8));
	cell(o, "last", wide(w, 8));
	cell(o, "max", wide(w, 8));
	cell(o, "growth", wide(w, 8));
	out_str(o, "   (breakdowns");
	if (w->execs)
		out_str(o, " since the last exec");
	out_str(o, ": the peak's at ");
	out_secs(o, w->at_peak.t_ns, 3);
	out_str(o, " s)\n");
	for (int k = 0; k < PMAPS_X_COUNT; k++)
		if ((w->cats_seen >> k) & 1)
			summary_row(w, pmaps_xcat_name((enum pmaps_xcat)k), w->first.cat[k],
			            w->at_peak.cat[k], w->last.cat[k], w->cat_max[k]);
	summary_row(w, "rss", w->first.rss, w->at_peak.rss, w->last.rss, w->at_peak.rss);
	if (w->first.lazyfree_known && w->at_peak.lazyfree_known && w->last.lazyfree_known)
		summary_row(w, "lazy_free", w->first.lazyfree, w->at_peak.lazyfree,
		            w->last.lazyfree, w->lazy_max);
	if (w->first.swap_known && w->at_peak.swap_known && w->last.swap_known)
		summary_row(w, "swap", w->first.swap, w->at_peak.swap, w->last.swap, w->swap_max);
	for (int k = 0; k < PMAPS_X_COUNT; k++) {
		if (!kept_growing(w, k))
			continue;
		out_str(o, "  kept growing: ");
		out_str(o, pmaps_xcat_name((enum pmaps_xcat)k));
		out_str(o, ", rose in ");
		out_u64(o, w->rises[k]);
		out_str(o, " of ");
		out_u64(o, w->pairs);
		out_str(o, " intervals, from ");
		out_secs(o, w->rise_first[k], 3);
		out_str(o, " s to ");
		out_secs(o, w->rise_last[k], 3);
		out_str(o, " s\n");
	}
	n = grew_most(w, order, first, below);
	if (n) {
		out_str(o, "\n  grew most (first breakdown -> the peak's):\n");
		for (unsigned i = 0; i < n; i++) {
			const struct pmaps_explain_top *p = &w->peak_top[order[i]];
			out_str(o, "  ");
			fmt_change(w, d, p->rss, first[i]);
			if (below[i]) {
				memmove(d + 3, d, strlen(d) + 1);
				memcpy(d, ">= ", 3);
			}
			out_rjust(o, d, strlen(d), 11);
			out_ch(o, ' ');
			out_hex(o, p->start, 12);
			out_ch(o, '-');
			out_hex(o, p->end, 12);
			out_ch(o, ' ');
			out_ljust(o, pmaps_xcat_name(p->cat), strlen(pmaps_xcat_name(p->cat)), 13);
			out_ch(o, ' ');
			if (below[i])
				out_str(o, "<=");
			fmt_size(w, d, first[i]);
			out_str(o, d);
			out_str(o, " -> ");
			fmt_size(w, d, p->rss);
			out_str(o, d);
			if (p->path_len) {
				out_ch(o, ' ');
				out_table_str(o, p->path, p->path_len);
			}
			out_ch(o, '\n');
		}
	}
	/* The runtime's books at the last breakdown that had them, and the equation. */
	if (w->bk_have)
		books_write_text(o, &w->bk_cur, &w->bk_join);
}

static const char *const kid_end_name[] = {"running", "exited", "left"};

/*
 * --children in the table's summary: the peak of the sampled sum (the
 * process and its descendants at one sample), then each descendant.
 */
static void table_kids(struct watch *w)
{
	struct out *o = &w->out;
	struct kid_record r[KIDS_SHOWN];
	uint64_t seen, untracked;
	size_t n = kids_summary(w->kids, r, &seen, &untracked);
	char d[64];

	if (w->have_total) {
		out_str(o, "  peak of process + descendants: ");
		fmt_size(w, d, w->peak_total);
		out_str(o, d);
		out_str(o, " at ");
		out_secs(o, w->peak_total_t, 3);
		out_str(o, " s (process ");
		fmt_size(w, d, w->peak_total_proc);
		out_str(o, d);
		out_str(o, ", ");
		out_u64(o, w->peak_total_kids.count);
		out_str(o, w->peak_total_kids.count == 1 ? " descendant " : " descendants ");
		fmt_size(w, d, w->peak_total_kids.rss);
		out_str(o, d);
		if (w->peak_total_kids.untracked) {
			out_str(o, ", ");
			out_u64(o, w->peak_total_kids.untracked);
			out_str(o, " more not read");
		}
		out_str(o, "): the largest sum of one sample, not a sum of VmHWMs\n");
	}
	out_str(o, "  descendants: ");
	out_u64(o, seen);
	out_str(o, " seen");
	if (untracked) {
		out_str(o, ", up to ");
		out_u64(o, untracked);
		out_str(o, " at once beyond the ");
		out_u64(o, KIDS_MAX);
		out_str(o, " read (not in the sums)");
	}
	if (!n) {
		out_ch(o, '\n');
		return;
	}
	out_str(o, ", largest peak first (peak: of the samples; vm_hwm: the kernel's)\n");
	out_str(o, "  ");
	out_rjust(o, "pid", 3, 10);
	out_str(o, " comm             ");
	cell(o, "first", 9);
	cell(o, "last", 9);
	cell(o, "peak", wide(w, 7));
	cell(o, "at peak", 9);
	cell(o, "vm_hwm", wide(w, 7));
	out_str(o, " end\n");
	for (size_t i = 0; i < n; i++) {
		char c[4 * sizeof(r[i].comm) + 8]; /* every byte escaped as \xHH fits */
		size_t cl = esc_text(c, sizeof(c), r[i].comm, r[i].comm_len);
		out_str(o, "  ");
		fmt_u64(d, (uint64_t)r[i].pid);
		out_rjust(o, d, strlen(d), 10);
		out_ch(o, ' ');
		out_ljust(o, c, cl, 16);
		out_ch(o, ' ');
		{
			struct out m;
			char t[40];
			out_memory(&m, t, sizeof(t));
			out_secs(&m, r[i].first_t, 3);
			out_ch(&m, '\0');
			cell(o, t, 9);
			out_memory(&m, t, sizeof(t));
			out_secs(&m, r[i].last_t, 3);
			out_ch(&m, '\0');
			cell(o, t, 9);
			size_cell(w, r[i].peak_rss, 1, wide(w, 7));
			out_memory(&m, t, sizeof(t));
			out_secs(&m, r[i].peak_t, 3);
			out_ch(&m, '\0');
			cell(o, t, 9);
		}
		size_cell(w, r[i].hwm, r[i].hwm_known, wide(w, 7));
		out_ch(o, ' ');
		out_str(o, kid_end_name[r[i].end]);
		out_ch(o, '\n');
	}
	if (seen > n) {
		out_str(o, "  ... and ");
		out_u64(o, seen - n);
		out_str(o, " more with smaller peaks\n");
	}
}

/* --children in the JSON summary. */
static void json_kids(struct watch *w)
{
	struct out *o = &w->out;
	struct kid_record r[KIDS_SHOWN];
	uint64_t seen, untracked;
	size_t n = kids_summary(w->kids, r, &seen, &untracked);

	KEY(o, ",\"children\":{\"seen\":");
	out_u64(o, seen);
	KEY(o, ",\"untracked_max\":");
	out_u64(o, untracked);
	if (w->have_total) {
		KEY(o, ",\"peak_total\":{\"rss\":");
		out_u64(o, w->peak_total);
		KEY(o, ",\"t\":");
		out_secs(o, w->peak_total_t, 6);
		KEY(o, ",\"process_rss\":");
		out_u64(o, w->peak_total_proc);
		KEY(o, ",\"children_rss\":");
		out_u64(o, w->peak_total_kids.rss);
		KEY(o, ",\"count\":");
		out_u64(o, w->peak_total_kids.count);
		KEY(o, ",\"untracked\":");
		out_u64(o, w->peak_total_kids.untracked);
		out_ch(o, '}');
	}
	KEY(o, ",\"listed\":[");
	for (size_t i = 0; i < n; i++) {
		if (i)
			out_ch(o, ',');
		KEY(o, "{\"pid\":");
		out_u64(o, (uint64_t)r[i].pid);
		KEY(o, ",\"ppid\":");
		out_u64(o, (uint64_t)r[i].ppid);
		out_ch(o, ',');
		out_json_named(o, "comm", 4, r[i].comm, r[i].comm_len);
		KEY(o, ",\"first_t\":");
		out_secs(o, r[i].first_t, 6);
		KEY(o, ",\"last_t\":");
		out_secs(o, r[i].last_t, 6);
		KEY(o, ",\"peak_rss\":");
		out_u64(o, r[i].peak_rss);
		KEY(o, ",\"peak_t\":");
		out_secs(o, r[i].peak_t, 6);
		KEY(o, ",\"last_rss\":");
		out_u64(o, r[i].rss);
		if (r[i].hwm_known) {
			KEY(o, ",\"vm_hwm\":");
			out_u64(o, r[i].hwm);
		}
		KEY(o, ",\"end\":\"");
		out_str(o, kid_end_name[r[i].end]);
		KEY(o, "\"}");
	}
	KEY(o, "],\"more\":");
	out_u64(o, seen - n);
	out_ch(o, '}');
}

/* "key":{"first":..,"at_peak":..,"last":..,"max":..,"growth":..} */
static void json_fig(struct out *o, uint64_t first, uint64_t peak, uint64_t last, uint64_t max)
{
	KEY(o, "\"first\":");
	out_u64(o, first);
	KEY(o, ",\"at_peak\":");
	out_u64(o, peak);
	KEY(o, ",\"last\":");
	out_u64(o, last);
	KEY(o, ",\"max\":");
	out_u64(o, max);
	KEY(o, ",\"growth\":");
	out_diff(o, peak, first);
}

static void json_summary(struct watch *w, const struct ending *en)
{
	struct out *o = &w->out;
	unsigned order[PMAPS_EXPLAIN_TOP];
	uint64_t first[PMAPS_EXPLAIN_TOP];
	int below[PMAPS_EXPLAIN_TOP];
	unsigned n;

	json_lead(w);
	KEY(o, ",\"summary\":{\"end\":\"");
	out_str(o, end_key[w->end]);
	KEY(o, "\",\"duration\":");
	out_secs(o, w->t_end, 6);
	KEY(o, ",\"interval\":");
	out_secs(o, w->interval, 6);
	KEY(o, ",\"source\":\"");
	out_str(o, pmaps_source_name(w->src));
	KEY(o, "\",\"samples\":");
	out_u64(o, w->samples);
	KEY(o, ",\"breakdowns\":");
	out_u64(o, w->full);
	KEY(o, ",\"background\":");
	out_u64(o, w->bg);
	KEY(o, ",\"late\":");
	out_u64(o, w->late);
	KEY(o, ",\"missed\":");
	out_u64(o, w->missed);
	KEY(o, ",\"unread\":");
	out_u64(o, w->unread);
	KEY(o, ",\"execs\":");
	out_u64(o, w->execs);
	KEY(o, ",\"late_max_ns\":");
	out_u64(o, w->late_max);
	KEY(o, ",\"late_mean_ns\":");
	out_u64(o, w->samples ? w->late_sum / w->samples : 0);
	KEY(o, ",\"cost_max_ns\":");
	out_u64(o, w->cost_max);
	KEY(o, ",\"cost_mean_ns\":");
	out_u64(o, w->samples ? w->cost_sum / w->samples : 0);
	json_cost(o, "status_cost", w->st_n, w->st_sum, w->st_max);
	json_cost(o, "breakdown_cost", w->bdc_n, w->bdc_sum, w->bdc_max);
	if (w->o->pages)
		json_cost(o, "pages_walk", w->pw_n, w->pw_sum, w->pw_max);
	if (en->have) {
		if (en->sig) {
			KEY(o, ",\"exit\":{\"signal\":");
			out_u64(o, (uint64_t)en->sig);
			KEY(o, ",\"name\":");
			out_json_str(o, strsignal(en->sig), strlen(strsignal(en->sig)));
			out_str(o, en->core ? ",\"core\":true}" : ",\"core\":false}");
		} else {
			KEY(o, ",\"exit\":{\"code\":");
			out_u64(o, (uint64_t)en->code);
			out_ch(o, '}');
		}
		KEY(o, ",\"ru_maxrss\":");
		out_u64(o, en->maxrss);
	}
	if (w->have_hwm) {
		KEY(o, ",\"vm_hwm\":");
		out_u64(o, w->hwm);
	}
	if (w->samples) {
		KEY(o, ",\"peak\":{\"rss\":");
		out_u64(o, w->peak_rss);
		KEY(o, ",\"t\":");
		out_secs(o, w->peak_t, 6);
		KEY(o, ",\"source\":\"");
		out_str(o, w->peak_src);
		KEY(o, "\"}");
	}
	if (w->kids)
		json_kids(w);
	if (w->epoch_full) {
		KEY(o, ",\"breakdown\":{\"since_exec\":");
		out_str(o, w->execs ? "true" : "false");
		KEY(o, ",\"first_t\":");
		out_secs(o, w->first.t_ns, 6);
		KEY(o, ",\"peak_t\":");
		out_secs(o, w->at_peak.t_ns, 6);
		KEY(o, ",\"last_t\":");
		out_secs(o, w->last.t_ns, 6);
		KEY(o, ",\"intervals\":");
		out_u64(o, w->pairs);
		KEY(o, ",\"rss\":{");
		json_fig(o, w->first.rss, w->at_peak.rss, w->last.rss, w->at_peak.rss);
		out_ch(o, '}');
		if (w->first.lazyfree_known && w->at_peak.lazyfree_known && w->last.lazyfree_known) {
			KEY(o, ",\"lazy_free\":{");
			json_fig(o, w->first.lazyfree, w->at_peak.lazyfree, w->last.lazyfree,
			         w->lazy_max);
			out_ch(o, '}');
		}
		if (w->first.swap_known && w->at_peak.swap_known && w->last.swap_known) {
			KEY(o, ",\"swap\":{");
			json_fig(o, w->first.swap, w->at_peak.swap, w->last.swap, w->swap_max);
			out_ch(o, '}');
		}
		KEY(o, ",\"categories\":[");
		for (int k = 0, c = 0; k < PMAPS_X_COUNT; k++) {
			if (!((w->cats_seen >> k) & 1))
				continue;
			if (c++)
				out_ch(o, ',');
			KEY(o, "{\"category\":\"");
			out_str(o, pmaps_xcat_name((enum pmaps_xcat)k));
			KEY(o, "\",");
			json_fig(o, w->first.cat[k], w->at_peak.cat[k], w->last.cat[k], w->cat_max[k]);
			KEY(o, ",\"rises\":");
			out_u64(o, w->rises[k]);
			if (kept_growing(w, k)) {
				KEY(o, ",\"kept_growing\":{\"from\":");
				out_secs(o, w->rise_first[k], 6);
				KEY(o, ",\"to\":");
				out_secs(o, w->rise_last[k], 6);
				out_ch(o, '}');
			}
			out_ch(o, '}');
		}
		KEY(o, "],\"grew_most\":[");
		n = grew_most(w, order, first, below);
		for (unsigned i = 0; i < n; i++) {
			const struct pmaps_explain_top *p = &w->peak_top[order[i]];
			if (i)
				out_ch(o, ',');
			KEY(o, "{\"start\":\"");
			out_0x(o, p->start);
			KEY(o, "\",\"end\":\"");
			out_0x(o, p->end);
			KEY(o, "\",\"category\":\"");
			out_str(o, pmaps_xcat_name(p->cat));
			KEY(o, "\",");
			out_json_named(o, "path", 4, p->path, p->path_len);
			if (p->path_truncated)
				KEY(o, ",\"path_truncated\":true");
			out_str(o, below[i] ? ",\"first_rss_at_most\":" : ",\"first_rss\":");
			out_u64(o, first[i]);
			KEY(o, ",\"peak_rss\":");
			out_u64(o, p->rss);
			out_ch(o, '}');
		}
		out_ch(o, ']');
		out_ch(o, '}');
	}
	if (w->bk_have && books_asked(&w->bk_cur)) {
		KEY(o, ",\"runtime_books\":");
		books_write_json(o, &w->bk_cur, &w->bk_join);
	}
	KEY(o, "}}\n");
	/* As every stream that fails part way: its last line says why. */
	if (w->end == END_FAILED) {
		json_lead(w);
		out_ch(o, ',');
		out_json_named(o, "error", 5, w->msg, strlen(w->msg));
		KEY(o, "}\n");
	}
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
		if (o->pages && w->xs && !w->wp)
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
		 */
		if (pread(w->probe, &c, 1, 0) == 0) {
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
		table_heading(w);
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
			json_summary(w, &en);
		else
			table_summary(w, &en);
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
