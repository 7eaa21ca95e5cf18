/* SPDX-License-Identifier: MIT */
/*
 * watch_out.c - what pmaps watch and run write: a table line or a JSON
 * object per sample, the heading, and the summary at the end (table and
 * JSON), from the loop's state (watch_int.h). Figures are the loop's; this
 * file formats them.
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

/*
 * The live lines' columns, and the summary's rows with the same names: each
 * the sum of explain's categories below (the summary lists those under it).
 */
const char *const group_name[G_COUNT] = {"heap", "rtheap", "anon", "stacks", "files", "shmem",
                                         "other"};
const unsigned char cat_group[PMAPS_X_COUNT] = {
	[PMAPS_X_HEAP] = G_HEAP,          [PMAPS_X_ANON] = G_ANON,
	[PMAPS_X_ANON_NAMED] = G_ANON,    [PMAPS_X_RUNTIME_HEAP] = G_RTHEAP,
	[PMAPS_X_THREAD_STACK] = G_STACK, [PMAPS_X_MAIN_STACK] = G_STACK,
	[PMAPS_X_FILE_TEXT] = G_FILE,     [PMAPS_X_FILE_DATA] = G_FILE,
	[PMAPS_X_FILE_RO] = G_FILE,       [PMAPS_X_SHMEM] = G_SHMEM,
	[PMAPS_X_HUGETLB] = G_SHMEM,      [PMAPS_X_OTHER] = G_OTHER,
};
const char *const end_key[] = {"", "count", "duration", "exited", "interrupted",
                                      "failed"};

/* ---- writing ---- */

/* NS as seconds with DIGITS decimals (1 to 9), truncated. */
void watch_out_secs(struct out *o, uint64_t ns, int digits)
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
size_t watch_fmt_size(const struct watch *w, char *d, uint64_t v)
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
	return 1 + watch_fmt_size(w, d + 1, a > b ? a - b : b - a);
}

void watch_cell(struct out *o, const char *s, size_t width)
{
	out_ch(o, ' ');
	out_rjust(o, s, strlen(s), width);
}

static void size_cell(struct watch *w, uint64_t v, int known, size_t width)
{
	char d[32];

	if (!known) {
		watch_cell(&w->out, "-", width);
		return;
	}
	watch_fmt_size(w, d, v);
	watch_cell(&w->out, d, width);
}

/* The table's column widths: sizes in bytes need more room. */
static size_t wide(const struct watch *w, size_t human)
{
	return w->o->human ? human : 12;
}

void watch_table_heading(struct watch *w)
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
	watch_cell(o, "time", 9);
	watch_cell(o, "rss", wide(w, 7));
	watch_cell(o, "change", wide(w, 7));
	if (w->o->wss)
		watch_cell(o, "touched", wide(w, 7));
	for (int g = 0; g < G_COUNT; g++)
		watch_cell(o, group_name[g], wide(w, 6));
	watch_cell(o, "lazyfree", wide(w, 8));
	watch_cell(o, "swap", wide(w, 6));
	if (w->kids)
		watch_cell(o, "children/n", KIDS_WIDTH(w));
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
		watch_cell(&w->out, "", KIDS_WIDTH(w));
		return;
	}
	n = watch_fmt_size(w, d, ks->rss);
	d[n++] = '/';
	n += fmt_u64(d + n, ks->count);
	if (ks->untracked) {
		d[n++] = '+';
		fmt_u64(d + n, ks->untracked);
	}
	watch_cell(&w->out, d, KIDS_WIDTH(w));
}

void watch_table_line(struct watch *w, const struct watch_sample *s, int full,
                      const char *source, const struct pmaps_wss_result *wr,
                      const struct kids_sum *ks)
{
	struct out *o = &w->out;
	uint64_t g[G_COUNT], pg[G_COUNT];
	char d[48];

	{
		struct out m;
		char t[40];
		out_memory(&m, t, sizeof(t));
		watch_out_secs(&m, s->t_ns, 3);
		out_ch(&m, '\0');
		watch_cell(o, t, 9);
	}
	size_cell(w, s->rss, 1, wide(w, 7));
	if (w->have_prev) {
		fmt_change(w, d, s->rss, w->prev_rss);
		watch_cell(o, d, wide(w, 7));
	} else {
		watch_cell(o, "", wide(w, 7));
	}
	/* --wss: touched since the breakdown before (a status sample cannot say) */
	if (w->o->wss)
		size_cell(w, wr ? wr->x->referenced_total : 0, wr != NULL, wide(w, 7));
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

void watch_json_lead(struct watch *w)
{
	KEY(&w->out, "{\"pid\":");
	out_u64(&w->out, (uint64_t)w->pid);
}

/*
 * A sample's object, without its closing brace (--pages adds its changes):
 * X the breakdown (WR its working set with --wss), or ST the status alone.
 */
void watch_json_sample(struct watch *w, const struct watch_sample *s,
                       const struct pmaps_explain *x, const struct pmaps_wss_result *wr,
                       const struct pmaps_status *st, const struct kids_sum *ks, uint64_t late,
                       uint64_t cost)
{
	struct out *o = &w->out;

	watch_json_lead(w);
	KEY(o, ",\"t\":");
	watch_out_secs(o, s->t_ns, 6);
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
		if (wr) {
			out_ch(o, ',');
			w_wss_json(o, wr, 1);
		}
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
	watch_cell(o, d, wide(w, 8));
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


static void table_kids(struct watch *w);

/* --wss in the table's summary: the working set over the breakdowns (write/wsum.h). */
static void table_wss(struct watch *w)
{
	struct out *o = &w->out;

	if (!w->o->wss || !w->wsum.n)
		return;
	out_str(o, "\n  working set over ");
	out_u64(o, w->wsum.n);
	out_str(o, w->wsum.n == 1 ? " breakdown" : " breakdowns");
	if (w->execs)
		out_str(o, " since the last exec");
	out_str(o, " (");
	out_str(o, pmaps_wss_method_name(w->ws_method));
	out_str(o, "; the longest reset ");
	out_ms(o, w->ws_reset_max);
	out_str(o, "):\n");
	wsum_table(o, &w->wsum, 0, !w->o->human, "  ");
	out_printf(o, "  (touched: since the breakdown before; median%s and peak of the\n"
	           "  breakdowns; resident@pk and idle at peak: in the category's busiest one)\n",
	           w->wsum.n > WSUM_RING ? " of the last 16384" : "");
}

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

void watch_table_summary(struct watch *w, const struct ending *en)
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
	watch_out_secs(o, w->t_end, 3);
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
		watch_fmt_size(w, d, en->maxrss);
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
	watch_fmt_size(w, d, w->peak_rss);
	out_str(o, d);
	out_str(o, " at ");
	watch_out_secs(o, w->peak_t, 3);
	out_str(o, " s (");
	out_str(o, w->peak_src);
	out_ch(o, ')');
	if (w->have_hwm) {
		out_str(o, "; the kernel's VmHWM ");
		watch_fmt_size(w, d, w->hwm);
		out_str(o, d);
	}
	out_ch(o, '\n');
	if (w->kids)
		table_kids(w);
	if (!w->epoch_full)
		return;
	out_str(o, "\n");
	row_label(o, "category");
	watch_cell(o, "first", wide(w, 8));
	watch_cell(o, "at peak", wide(w, 8));
	watch_cell(o, "last", wide(w, 8));
	watch_cell(o, "max", wide(w, 8));
	watch_cell(o, "growth", wide(w, 8));
	out_str(o, "   (breakdowns");
	if (w->execs)
		out_str(o, " since the last exec");
	out_str(o, ": the peak's at ");
	watch_out_secs(o, w->at_peak.t_ns, 3);
	out_str(o, " s)\n");
	for (int g = 0; g < G_COUNT; g++) {
		uint64_t f = 0, p = 0, l = 0;
		int seen = 0, one = -1;
		for (int k = 0; k < PMAPS_X_COUNT; k++) {
			if (cat_group[k] != g || !((w->cats_seen >> k) & 1))
				continue;
			f = sat_add(f, w->first.cat[k]);
			p = sat_add(p, w->at_peak.cat[k]);
			l = sat_add(l, w->last.cat[k]);
			seen++;
			one = k;
		}
		if (!seen)
			continue;
		summary_row(w, group_name[g], f, p, l, w->grp_max[g]);
		/* Its categories under it, but for one of the same name. */
		if (seen == 1 && strcmp(pmaps_xcat_name((enum pmaps_xcat)one), group_name[g]) == 0)
			continue;
		for (int k = 0; k < PMAPS_X_COUNT; k++) {
			char label[32];
			if (cat_group[k] != g || !((w->cats_seen >> k) & 1))
				continue;
			snprintf(label, sizeof(label), "  %s", pmaps_xcat_name((enum pmaps_xcat)k));
			summary_row(w, label, w->first.cat[k], w->at_peak.cat[k], w->last.cat[k],
			            w->cat_max[k]);
		}
	}
	summary_row(w, "rss", w->first.rss, w->at_peak.rss, w->last.rss, w->at_peak.rss);
	if (w->first.lazyfree_known && w->at_peak.lazyfree_known && w->last.lazyfree_known)
		summary_row(w, "lazy_free", w->first.lazyfree, w->at_peak.lazyfree,
		            w->last.lazyfree, w->lazy_max);
	if (w->first.swap_known && w->at_peak.swap_known && w->last.swap_known)
		summary_row(w, "swap", w->first.swap, w->at_peak.swap, w->last.swap, w->swap_max);
	for (int k = 0; k < PMAPS_X_COUNT; k++) {
		if (!watch_kept_growing(w, k))
			continue;
		out_str(o, "  kept growing: ");
		out_str(o, pmaps_xcat_name((enum pmaps_xcat)k));
		out_str(o, ", rose in ");
		out_u64(o, w->rises[k]);
		out_str(o, " of ");
		out_u64(o, w->pairs);
		out_str(o, " intervals, from ");
		watch_out_secs(o, w->rise_first[k], 3);
		out_str(o, " s to ");
		watch_out_secs(o, w->rise_last[k], 3);
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
			watch_fmt_size(w, d, first[i]);
			out_str(o, d);
			out_str(o, " -> ");
			watch_fmt_size(w, d, p->rss);
			out_str(o, d);
			if (p->path_len) {
				out_ch(o, ' ');
				out_table_str(o, p->path, p->path_len);
			}
			out_ch(o, '\n');
		}
	}
	table_wss(w);
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
		watch_fmt_size(w, d, w->peak_total);
		out_str(o, d);
		out_str(o, " at ");
		watch_out_secs(o, w->peak_total_t, 3);
		out_str(o, " s (process ");
		watch_fmt_size(w, d, w->peak_total_proc);
		out_str(o, d);
		out_str(o, ", ");
		out_u64(o, w->peak_total_kids.count);
		out_str(o, w->peak_total_kids.count == 1 ? " descendant " : " descendants ");
		watch_fmt_size(w, d, w->peak_total_kids.rss);
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
	watch_cell(o, "first", 9);
	watch_cell(o, "last", 9);
	watch_cell(o, "peak", wide(w, 7));
	watch_cell(o, "at peak", 9);
	watch_cell(o, "vm_hwm", wide(w, 7));
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
			watch_out_secs(&m, r[i].first_t, 3);
			out_ch(&m, '\0');
			watch_cell(o, t, 9);
			out_memory(&m, t, sizeof(t));
			watch_out_secs(&m, r[i].last_t, 3);
			out_ch(&m, '\0');
			watch_cell(o, t, 9);
			size_cell(w, r[i].peak_rss, 1, wide(w, 7));
			out_memory(&m, t, sizeof(t));
			watch_out_secs(&m, r[i].peak_t, 3);
			out_ch(&m, '\0');
			watch_cell(o, t, 9);
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
		watch_out_secs(o, w->peak_total_t, 6);
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
		watch_out_secs(o, r[i].first_t, 6);
		KEY(o, ",\"last_t\":");
		watch_out_secs(o, r[i].last_t, 6);
		KEY(o, ",\"peak_rss\":");
		out_u64(o, r[i].peak_rss);
		KEY(o, ",\"peak_t\":");
		watch_out_secs(o, r[i].peak_t, 6);
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

void watch_json_summary(struct watch *w, const struct ending *en)
{
	struct out *o = &w->out;
	unsigned order[PMAPS_EXPLAIN_TOP];
	uint64_t first[PMAPS_EXPLAIN_TOP];
	int below[PMAPS_EXPLAIN_TOP];
	unsigned n;

	watch_json_lead(w);
	KEY(o, ",\"summary\":{\"end\":\"");
	out_str(o, end_key[w->end]);
	KEY(o, "\",\"duration\":");
	watch_out_secs(o, w->t_end, 6);
	KEY(o, ",\"interval\":");
	watch_out_secs(o, w->interval, 6);
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
		watch_out_secs(o, w->peak_t, 6);
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
		watch_out_secs(o, w->first.t_ns, 6);
		KEY(o, ",\"peak_t\":");
		watch_out_secs(o, w->at_peak.t_ns, 6);
		KEY(o, ",\"last_t\":");
		watch_out_secs(o, w->last.t_ns, 6);
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
			if (watch_kept_growing(w, k)) {
				KEY(o, ",\"kept_growing\":{\"from\":");
				watch_out_secs(o, w->rise_first[k], 6);
				KEY(o, ",\"to\":");
				watch_out_secs(o, w->rise_last[k], 6);
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
	if (w->o->wss) {
		/* The method is a reading's: none before the first (null). */
		const char *m = w->wsum.n ? pmaps_wss_method_name(w->ws_method) : NULL;
		KEY(o, ",\"working_set\":{\"method\":");
		if (m) {
			out_ch(o, '"');
			out_str(o, m);
			out_ch(o, '"');
		} else {
			KEY(o, "null");
		}
		KEY(o, ",\"since_exec\":");
		out_str(o, w->execs ? "true" : "false");
		KEY(o, ",\"breakdowns\":");
		out_u64(o, w->wsum.n);
		KEY(o, ",\"median_of\":");
		out_u64(o, w->wsum.n < WSUM_RING ? w->wsum.n : WSUM_RING);
		KEY(o, ",\"reset_max_ns\":");
		out_u64(o, w->ws_reset_max);
		out_ch(o, ',');
		wsum_json(o, &w->wsum, 0);
		out_ch(o, '}');
	}
	if (w->bk_have && books_asked(&w->bk_cur)) {
		KEY(o, ",\"runtime_books\":");
		books_write_json(o, &w->bk_cur, &w->bk_join);
	}
	KEY(o, "}}\n");
	/* As every stream that fails part way: its last line says why. */
	if (w->end == END_FAILED) {
		watch_json_lead(w);
		out_ch(o, ',');
		out_json_named(o, "error", 5, w->msg, strlen(w->msg));
		KEY(o, "}\n");
	}
}
