/* SPDX-License-Identifier: MIT */
/*
 * top_list.c - the live top's process list: its columns, its figures, drawing
 * it, the selection kept across refreshes, and its keys (sort, filter, group).
 */
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#include "books/explain_doc.h"
#include "common/num.h"
#include "common/tool.h"
#include "survey/top.h"
#include "tui/curses_dl.h"
#include "tui/top_tui.h"
#include "tui/tui.h"
#include "write/writer.h"

/* ---- the list: its columns ---- */

enum lcol { LC_PID, LC_USER, LC_RSS, LC_PSS, LC_USS, LC_SWAP, LC_X0, LC_X5 = LC_X0 + 5, LC_SORT,
	LC_SRC, LC_AGE, LC_MARK, LC_CMD, LC_N };

static const struct {
	int col;       /* enum col */
	int width;
	int drop;      /* dropped in this order when the terminal is narrow (0: never) */
} lcols[LC_N] = {
	[LC_PID] = {COL_PID, 7, 0},
	[LC_USER] = {COL_USER, 8, 4},
	[LC_RSS] = {COL_SV0 + PMAPS_SV_RSS, 7, 5},
	[LC_PSS] = {COL_SV0 + PMAPS_SV_PSS, 7, 0},
	[LC_USS] = {COL_SV0 + PMAPS_SV_USS, 7, 0},
	[LC_SWAP] = {COL_SV0 + PMAPS_SV_SWAP, 6, 3},
	/* --fields: up to six figures more (their widths the column table's) */
	[LC_X0] = {-1, 0, 0}, [LC_X0 + 1] = {-1, 0, 0}, [LC_X0 + 2] = {-1, 0, 0},
	[LC_X0 + 3] = {-1, 0, 0}, [LC_X0 + 4] = {-1, 0, 0}, [LC_X5] = {-1, 0, 0},
	/* The figure the list is sorted by, when no other column shows it (vsize, anon, ...). */
	[LC_SORT] = {-1, 7, 0},
	[LC_SRC] = {COL_PSOURCE, 6, 2},
	[LC_AGE] = {COL_AGE, 4, 1},
	[LC_MARK] = {COL_MARK, 1, 0},
	[LC_CMD] = {COL_COMMAND, 0, 0},
};

/* Whether a fixed column of the list shows COL. */
static int fixed_shows(int col)
{
	for (int i = 0; i < LC_N; i++)
		if (lcols[i].col == col)
			return 1;
	return col == COL_COMMAND || col == COL_PID;
}

/* The figure of --fields slot I (0 to 5) that no fixed column shows, or -1. */
static int field_extra(const struct top *t, int i)
{
	int k = 0;

	for (int f = 0; f < t->o.nfields; f++) {
		int c = t->o.fields[f];
		/* Figures only: names, states and marks have their columns already. */
		if (fixed_shows(c) || !((c >= COL_SV0 && c < COL_SV0 + PMAPS_SV_COUNT) || c == COL_PMEM))
			continue;
		if (k++ == i)
			return c;
	}
	return -1;
}

/* A survey figure the list is sorted by that no other column shows, or -1. */
static int sort_extra(const struct top *t)
{
	int c = t->o.sort;

	if ((c < COL_SV0 || c >= COL_SV0 + PMAPS_SV_COUNT) && c != COL_PMEM)
		return -1;
	if (fixed_shows(c))
		return -1;
	for (int i = 0; i <= LC_X5 - LC_X0; i++)
		if (field_extra(t, i) == c)
			return -1;
	return c;
}

/* The column list column LC shows: LC_SORT's is the sort's, LC_X*'s --fields'. */
static int lc_col(const struct top *t, int lc)
{
	if (lc >= LC_X0 && lc <= LC_X5)
		return field_extra(t, lc - LC_X0);
	return lc == LC_SORT ? sort_extra(t) : lcols[lc].col;
}

/* A list column's width: the fixed ones', or the column table's for a figure added. */
static int lc_width(const struct top *t, int lc)
{
	int c = lc_col(t, lc);

	if (lcols[lc].width || c < 0)
		return lcols[lc].width;
	return (int)columns[c].width;
}

/* The heading of a list column: the column table's. */
static const char *lc_title(const struct top *t, int lc)
{
	int c = lc_col(t, lc);

	return c >= 0 && c < COL_COUNT ? columns[c].title.s : "";
}

/*
 * The columns that fit WIDTH (the command gets what is left, at least 12);
 * the added ones (LC_X*, LC_SORT) only where they show something.
 */
static void layout(const struct top *t, int width, int shown[LC_N], int x[LC_N], int *cmd_w)
{
	int need = 0;

	for (int i = 0; i < LC_N; i++) {
		shown[i] = lcols[i].col >= 0 || i == LC_CMD || lc_col(t, i) >= 0;
		if (i != LC_CMD && shown[i])
			need += lc_width(t, i) + 1;
	}
	for (int d = 1; d <= 5 && width - need < 12; d++)
		for (int i = 0; i < LC_N; i++)
			if (lcols[i].drop == d && shown[i]) {
				shown[i] = 0;
				need -= lc_width(t, i) + 1;
			}
	for (int i = 0, at = 0; i < LC_N; i++) {
		x[i] = at;
		if (shown[i])
			at += lc_width(t, i) + 1;
	}
	*cmd_w = width - need > 1 ? width - need : 1;
}

/* The sort keys in the order < and > move through them. */
static const int sort_cols[] = {COL_PID, COL_SV0 + PMAPS_SV_RSS, COL_SV0 + PMAPS_SV_PSS,
                                COL_SV0 + PMAPS_SV_USS, COL_SV0 + PMAPS_SV_SWAP, COL_COMMAND};
#define NSORT (sizeof(sort_cols) / sizeof(sort_cols[0]))

/* The sort menu's keys (F6): every figure --sort takes, the names too. */
static const int menu_cols[] = {
	COL_SV0 + PMAPS_SV_PSS,   COL_SV0 + PMAPS_SV_USS,   COL_SV0 + PMAPS_SV_RSS,
	COL_SV0 + PMAPS_SV_SWAP,  COL_SV0 + PMAPS_SV_SWAP_PSS, COL_SV0 + PMAPS_SV_ANON,
	COL_SV0 + PMAPS_SV_FILE,  COL_SV0 + PMAPS_SV_SHMEM, COL_SV0 + PMAPS_SV_LAZYFREE,
	COL_SV0 + PMAPS_SV_VSIZE, COL_PMEM, COL_SV0 + PMAPS_SV_THREADS, COL_SV0 + PMAPS_SV_HWM,
	COL_SV0 + PMAPS_SV_PAGE_TABLES, COL_SV0 + PMAPS_SV_LOCKED, COL_PID, COL_USER, COL_COMMAND,
	/* Last: the faults, in the menu only where they are read (top --fields minflt) */
	COL_SV0 + PMAPS_SV_MINFLT, COL_SV0 + PMAPS_SV_MAJFLT};
#define NMENU_ALL (sizeof(menu_cols) / sizeof(menu_cols[0]))
#define NMENU (u->t->o.faults ? NMENU_ALL : NMENU_ALL - 2)

/* The sort column's heading: any survey column --sort names, shown or not. */
static const char *sort_name(int col)
{
	return columns[col].title.n ? columns[col].title.s : columns[col].key.s;
}

/* ---- the list: figures ---- */

static void fig(char *b, uint64_t v, int present)
{
	if (!present) {
		strcpy(b, "-");
		return;
	}
	fmt_human(b, v);
}

/* An age as the table words it: "1.5s" under 10 s, then "12s", "3m", "2h", "5d". */
static void age_str(char *b, uint64_t ns)
{
	uint64_t s = ns / 1000000000u;
	size_t n;

	if (ns == 0) {
		b[0] = '\0';
	} else if (s < 10) {
		n = w_age(b, ns) - 2; /* "1.234" to "1.2" */
		b[n++] = 's';
		b[n] = '\0';
	} else if (s < 100) {
		snprintf(b, 8, "%llus", (unsigned long long)s);
	} else if (s < 6000) {
		snprintf(b, 8, "%llum", (unsigned long long)(s / 60));
	} else if (s < 360000) {
		snprintf(b, 8, "%lluh", (unsigned long long)(s / 3600));
	} else {
		snprintf(b, 8, "%llud", (unsigned long long)(s / 86400 % 10000));
	}
}

static const char *src_short(enum pmaps_source s)
{
	switch (s) {
	case PMAPS_SRC_ROLLUP: return "rollup";
	case PMAPS_SRC_SMAPS: return "smaps";
	case PMAPS_SRC_PAGES: return "pages";
	case PMAPS_SRC_STATUS: return "status";
	default: return pmaps_source_name(s);
	}
}

/* ---- the list: drawing ---- */

static void draw_meminfo(struct tui *u, int *y)
{
	static const struct {
		int f;
		const char *label;
	} items[] = {
		{PMAPS_MI_MEM_TOTAL, "MemTotal"}, {PMAPS_MI_MEM_AVAILABLE, "MemAvailable"},
		{PMAPS_MI_SHMEM, "Shmem"},        {PMAPS_MI_ANON_PAGES, "AnonPages"},
		{PMAPS_MI_CACHED, "Cached"},      {PMAPS_MI_SWAP_TOTAL, "SwapTotal"},
		{PMAPS_MI_SWAP_FREE, "SwapFree"},
	};
	const struct pmaps_meminfo *mi = u->t->s ? pmaps_survey_meminfo(u->t->s) : NULL;
	int x = 0, lines = 1;

	if (!mi) {
		tui_puts_at(u, (*y)++, 0, COLS, "MemTotal -  (no /proc/meminfo)");
		return;
	}
	for (size_t i = 0; i < sizeof(items) / sizeof(items[0]); i++) {
		char v[24];
		int lw = (int)strlen(items[i].label), w;

		fig(v, mi->v[items[i].f], (mi->present >> items[i].f) & 1);
		w = lw + 1 + (int)strlen(v);
		if (x > 0 && x + 2 + w > COLS) {
			if (lines == 2)
				break;
			lines++;
			(*y)++;
			x = 0;
		} else if (x > 0) {
			x += 2;
		}
		tui_puts_at(u, *y, x, COLS - x, items[i].label);
		tui_ink_on(u, CP_VALUE, A_BOLD);
		tui_puts_at(u, *y, x + lw + 1, COLS - x - lw - 1, v);
		tui_ink_off(u, CP_VALUE, A_BOLD);
		x += w;
	}
	(*y)++;
}

static void draw_header(struct tui *u, int *y)
{
	struct top *t = u->t;
	struct pmaps_survey_stats st = {.size = sizeof(st)};
	char b[512], tm[16];
	time_t now = time(NULL);
	struct tm lt;
	int n, have_st = t->s && pmaps_survey_stats(t->s, &st) == 0;
	char of[32] = "";

	localtime_r(&now, &lt);
	strftime(tm, sizeof(tm), "%H:%M:%S", &lt);
	if (have_st && st.processes != t->matched)
		snprintf(of, sizeof(of), " of %u", st.processes);
	n = snprintf(b, sizeof(b), "pmaps top  %s  every %gs  %zu%s process%s  sort %s %s", tm,
	             t->o.delay_s, t->matched, of, t->matched == 1 && !of[0] ? "" : "es",
	             sort_name(t->o.sort),
	             col_sort_desc(t->o.sort) != t->o.ascending ? "descending" : "ascending");
	if (t->o.group != TOP_GROUP_NONE && n > 0 && (size_t)n < sizeof(b))
		n += snprintf(b + n, sizeof(b) - (size_t)n, "  by %s",
		              t->o.group == TOP_GROUP_USER ? "user" : "cgroup");
	else if (t->o.tree && n > 0 && (size_t)n < sizeof(b))
		n += snprintf(b + n, sizeof(b) - (size_t)n, "  tree (figures: with descendants)");
	tui_ink_on(u, 0, A_BOLD);
	tui_puts_at(u, *y, 0, COLS, b);
	tui_ink_off(u, 0, A_BOLD);
	if (n > 0 && (size_t)n < sizeof(b)) {
		int x = n + 2 < COLS ? n + 2 : COLS;

		/* The group Enter opened (Esc goes back to the groups), and the filter. */
		if (u->drilled_group && t->o.cgroup) {
			x += tui_puts_at(u, *y, x, COLS - x, "cgroup ");
			x += tui_put_target(u, *y, x, COLS - x, t->o.cgroup, strlen(t->o.cgroup)) + 2;
		} else if (u->drilled_group) {
			const char *name = top_user_name(t, t->o.uid);
			x += tui_puts_at(u, *y, x, COLS - x, "user ");
			x += tui_put_target(u, *y, x, COLS - x, name, strlen(name)) + 2;
		}
		if (u->filter[0] && x < COLS) {
			x += tui_puts_at(u, *y, x, COLS - x, "filter: ");
			tui_put_target(u, *y, x, COLS - x, u->filter, strlen(u->filter));
		}
	}
	(*y)++;
	draw_meminfo(u, y);
	if (have_st) {
		char budget[48] = " ms, no budget";

		/* What this refresh cost the machine: pmaps's own time, and its costly reads. */
		if (st.budget_ns)
			snprintf(budget, sizeof(budget), " of %.0f ms budget", (double)st.budget_ns / 1e6);
		snprintf(b, sizeof(b),
		         "refresh %.1f ms (reading %.1f%s): %u read, %u kept, %u skipped; %u processes",
		         (double)st.wall_ns / 1e6, (double)st.read_ns / 1e6, budget, st.read, st.kept,
		         st.skipped, st.processes);
		tui_puts_at(u, (*y)++, 0, COLS, b);
		if (st.denied) {
			snprintf(b, sizeof(b), "%u process%s DENIED: RSS from status only; %s", st.denied,
			         st.denied == 1 ? "" : "es",
			         geteuid() == 0 ? "even root may not read them (capabilities this one "
			                          "lacks, or a security module)"
			                        : "run as root or with CAP_SYS_PTRACE to see them");
			tui_ink_on(u, CP_DENIED, A_BOLD);
			tui_puts_at(u, (*y)++, 0, COLS, b);
			tui_ink_off(u, CP_DENIED, A_BOLD);
		}
	}
}

/* A group line's key: its user's name, or its cgroup path. */
static struct pmaps_view group_key(const struct top_line *l)
{
	if (l->cgroup.len)
		return l->cgroup;
	return (struct pmaps_view){l->user, strlen(l->user)};
}

/* Whether line L is what the selection remembers. */
static int is_selected(const struct tui *u, const struct top_line *l)
{
	struct pmaps_view k;

	if (l->row)
		return u->sel_pid && l->row->pid == u->sel_pid;
	k = group_key(l);
	return !u->sel_pid && k.len == u->sel_key_len && memcmp(k.ptr, u->sel_key, k.len) == 0;
}

void tui_remember(struct tui *u)
{
	const struct top_line *l;

	if (u->sel >= u->t->nlines)
		return;
	l = &u->t->lines[u->sel];
	u->sel_pid = l->row ? l->row->pid : 0;
	u->sel_key_len = 0;
	if (!l->row) {
		struct pmaps_view k = group_key(l);
		u->sel_key_len = k.len < sizeof(u->sel_key) ? k.len : sizeof(u->sel_key);
		memcpy(u->sel_key, k.ptr, u->sel_key_len);
	}
}

/*
 * After a refresh or a new selection: the line the selection remembers, or,
 * when it is gone (the process exited), its neighbour at the same place.
 */
void tui_reselect(struct tui *u)
{
	struct top *t = u->t;

	for (size_t i = 0; i < t->nlines; i++)
		if (is_selected(u, &t->lines[i])) {
			u->sel = i;
			return;
		}
	if (t->nlines == 0) {
		u->sel = 0;
		return;
	}
	if (u->sel >= t->nlines)
		u->sel = t->nlines - 1;
	tui_remember(u);
}

/*
 * The command a line shows at Y, X in W columns: the process's name, or
 * with the command line on (a) its arguments, spaces between them, read at
 * each drawing of the few lines on screen; the name where it has none (a
 * zombie, or one gone since the refresh).
 */
static void put_command(struct tui *u, int y, int x, int w, const struct pmaps_survey_row *r)
{
	char b[4096];
	size_t n = 0;

	if (u->cmdline && pmaps_cmdline_read(u->t->o.root, r->pid, b, sizeof(b), &n) >= 0 && n) {
		while (n && b[n - 1] == '\0')
			n--;
		for (size_t i = 0; i < n; i++)
			if (b[i] == '\0')
				b[i] = ' ';
		tui_put_target(u, y, x, w, b, n);
		return;
	}
	tui_put_target(u, y, x, w, r->comm.ptr, r->comm.len);
}

static void draw_line(struct tui *u, int y, const struct top_line *l, const int shown[LC_N],
                      const int x[LC_N], int cmd_w, int selected)
{
	const struct pmaps_survey_row *r = l->row;
	static const int figs[] = {LC_RSS, LC_PSS, LC_USS, LC_SWAP, LC_X0, LC_X0 + 1, LC_X0 + 2,
	                           LC_X0 + 3, LC_X0 + 4, LC_X5, LC_SORT};
	char b[64];
	int mark_pair = 0;

	if (selected) {
		attron(tui_bar(u, CP_SELECT));
		move(y, 0);
		hline(' ', COLS);
	}
	if (r)
		snprintf(b, sizeof(b), "%d", r->pid);
	else
		snprintf(b, sizeof(b), "%u", l->sum->processes);
	tui_put_right(u, y, x[LC_PID], lcols[LC_PID].width, b);
	if (shown[LC_USER])
		tui_put_target(u, y, x[LC_USER], lcols[LC_USER].width, l->user, strlen(l->user));
	for (size_t i = 0; i < sizeof(figs) / sizeof(figs[0]); i++) {
		int lc = figs[i], got, col;
		uint64_t v = 0;

		if (!shown[lc])
			continue;
		col = lc_col(u->t, lc);
		if (col == COL_PMEM) {
			const struct pmaps_meminfo *mi = u->t->s ? pmaps_survey_meminfo(u->t->s) : NULL;
			got = w_proc_value(COL_SV0 + PMAPS_SV_RSS, l, &v);
			if (got && mi && (mi->present >> PMAPS_MI_MEM_TOTAL & 1) && mi->v[PMAPS_MI_MEM_TOTAL])
				b[fmt_percent(b, v, mi->v[PMAPS_MI_MEM_TOTAL]) - 1] = '\0';
			else
				strcpy(b, "-");
			tui_put_right(u, y, x[lc], lc_width(u->t, lc), b);
			continue;
		}
		got = w_proc_value(col, l, &v);
		if (got && columns[col].unit == UNIT_COUNT)
			snprintf(b, sizeof(b), "%llu", (unsigned long long)v);
		else
			fig(b, v, got != 0);
		/* A group's sum over only the processes that had the figure: at least this. */
		if (got == 2)
			strcat(b, "+");
		tui_put_right(u, y, x[lc], lc_width(u->t, lc), b);
	}
	if (r) {
		char m[2] = {w_survey_mark(r->flags), '\0'};

		if (shown[LC_SRC])
			tui_puts_at(u, y, x[LC_SRC], lcols[LC_SRC].width, src_short(r->source));
		if (shown[LC_AGE]) {
			/* Only costly figures older than this refresh have an age. */
			age_str(b, r->source == PMAPS_SRC_STATUS ? 0 : r->age_ns);
			tui_put_right(u, y, x[LC_AGE], lcols[LC_AGE].width, b);
		}
		mark_pair = m[0] == 'D' ? CP_DENIED : CP_WARN;
		if (!selected)
			tui_ink_on(u, mark_pair, A_BOLD);
		tui_puts_at(u, y, x[LC_MARK], 1, m);
		if (!selected)
			tui_ink_off(u, mark_pair, A_BOLD);
		if (l->tree && l->depth > 0) {
			/* Under its parent: two columns a level (at most half the width), then "`- ". */
			int in = 2 * (l->depth - 1), cx = x[LC_CMD];
			if (in > cmd_w / 2)
				in = cmd_w / 2;
			cx += in;
			cx += tui_puts_at(u, y, cx, cmd_w - in, "`- ");
			put_command(u, y, cx, cmd_w - (cx - x[LC_CMD]), r);
		} else {
			put_command(u, y, x[LC_CMD], cmd_w, r);
		}
	} else if (l->cgroup.len) {
		tui_put_target(u, y, x[LC_CMD], cmd_w, l->cgroup.ptr, l->cgroup.len);
	} else {
		snprintf(b, sizeof(b), "(%u process%s)", l->sum->processes,
		         l->sum->processes == 1 ? "" : "es");
		tui_puts_at(u, y, x[LC_CMD], cmd_w, b);
	}
	if (selected)
		attroff(tui_bar(u, CP_SELECT));
}

/* The bottom line: the prompt, a message, or the keys. */
void tui_draw_bottom(struct tui *u, const char *keys)
{
	int y = LINES - 1;

	move(y, 0);
	clrtoeol();
	if (u->prompting == PROMPT_SORT) {
		int x = tui_puts_at(u, y, 0, COLS, "sort by (Left/Right, Enter; Esc): "), w = 0;
		size_t from = 0;
		/* From the key that keeps the choice on the line. */
		for (size_t i = 0; i <= (size_t)u->menu; i++)
			w += (int)columns[menu_cols[i]].key.n + 1;
		while (from < (size_t)u->menu && x + w > COLS) {
			w -= (int)columns[menu_cols[from]].key.n + 1;
			from++;
		}
		for (size_t i = from; i < NMENU && x < COLS; i++) {
			const char *k = columns[menu_cols[i]].key.s;
			if ((int)i == u->menu)
				attron(tui_bar(u, CP_SELECT));
			x += tui_puts_at(u, y, x, COLS - x, k);
			if ((int)i == u->menu)
				attroff(tui_bar(u, CP_SELECT));
			x += x < COLS ? tui_puts_at(u, y, x, COLS - x, " ") : 0;
		}
		curs_set(0);
		return;
	}
	if (u->prompting) {
		int x = tui_puts_at(u, y, 0, COLS, u->prompting == PROMPT_SEARCH
		                                       ? "search (F3 next, Enter, Esc): "
		                                       : "filter (command regex, or user:NAME): ");
		char e[1024];
		size_t n = esc_text(e, sizeof(e), u->input, u->input_len);
		int w = tui_put(u, y, x, COLS - x - 1, e, n);
		if (u->input_bad && x + w + 12 < COLS)
			tui_puts_at(u, y, x + w + 1, COLS - x - w - 1,
			            u->prompting == PROMPT_SEARCH ? "(no match)" : "(incomplete)");
		move(y, x + w);
		curs_set(1);
		return;
	}
	curs_set(0);
	if (u->msg[0]) {
		tui_ink_on(u, CP_DENIED, A_BOLD);
		tui_put_target(u, y, 0, COLS, u->msg, strlen(u->msg));
		tui_ink_off(u, CP_DENIED, A_BOLD);
		return;
	}
	attron(tui_bar(u, CP_TITLE));
	hline(' ', COLS);
	tui_puts_at(u, y, 0, COLS, keys);
	attroff(tui_bar(u, CP_TITLE));
}

/* How many lines the list shows under the header. */
static int list_rows(int top_y)
{
	int n = LINES - 1 - top_y - 1; /* the headings, the bottom line */

	return n > 0 ? n : 0;
}

void tui_draw_list(struct tui *u)
{
	struct top *t = u->t;
	int shown[LC_N], x[LC_N], cmd_w, y = 0, rows;

	draw_header(u, &y);
	layout(t, COLS, shown, x, &cmd_w);
	/* The headings; the sort column's in bold and underlined. */
	u->head_y = y;
	u->hit_n = 0;
	attron(tui_bar(u, CP_TITLE));
	move(y, 0);
	hline(' ', COLS);
	for (int i = 0; i < LC_N; i++) {
		int sorted, col;
		const char *title;

		if (!shown[i])
			continue;
		col = lc_col(t, i);
		title = lc_title(t, i);
		sorted = col == t->o.sort;
		if (i == LC_PID && t->o.group != TOP_GROUP_NONE)
			title = columns[COL_PROCS].title.s;
		if (i == LC_CMD && t->o.group == TOP_GROUP_CGROUP)
			title = columns[COL_CGROUP].title.s;
		else if (i == LC_CMD && u->cmdline && t->o.group == TOP_GROUP_NONE)
			title = "Command line";
		if (u->hit_n < (int)(sizeof(u->hit_col) / sizeof(u->hit_col[0]))) {
			u->hit_col[u->hit_n] = i == LC_CMD ? COL_COMMAND : col;
			u->hit_x[u->hit_n] = x[i];
			u->hit_w[u->hit_n] = i == LC_CMD ? cmd_w : lc_width(t, i);
			u->hit_n++;
		}
		if (sorted)
			attron(A_BOLD | A_UNDERLINE);
		if (i == LC_CMD || i == LC_USER || i == LC_SRC || i == LC_MARK)
			tui_puts_at(u, y, x[i], i == LC_CMD ? cmd_w : lc_width(t, i), title);
		else
			tui_put_right(u, y, x[i], lc_width(t, i), title);
		if (sorted)
			attroff(A_BOLD | A_UNDERLINE);
	}
	attroff(tui_bar(u, CP_TITLE));
	y++;
	u->list_y = y;
	rows = list_rows(y - 1);
	u->list_h = rows;
	if (rows > 0) {
		if (u->sel < u->first)
			u->first = u->sel;
		if (u->sel >= u->first + (size_t)rows)
			u->first = u->sel - (size_t)rows + 1;
		if (u->first + (size_t)rows > t->nlines)
			u->first = t->nlines > (size_t)rows ? t->nlines - (size_t)rows : 0;
	}
	for (int i = 0; i < rows && u->first + (size_t)i < t->nlines; i++) {
		size_t k = u->first + (size_t)i;

		draw_line(u, y + i, &t->lines[k], shown, x, cmd_w, k == u->sel);
	}
	if (t->nlines == 0)
		tui_puts_at(u, y, 0, COLS, u->filter[0] ? "  no process matches the filter"
		                                     : "  no process to show");
	tui_draw_bottom(u, t->o.group == TOP_GROUP_NONE
	                   ? " q quit  Enter explain  F3 search  F4 filter  F6 sort  u user  c cgroup  ? help"
	                   : " q quit  Enter its processes  F4 filter  F6 sort  u user  c cgroup  ? help");
}


/* ---- the list: keys ---- */

/* Esc in the list: out of a group drilled into, else the filter dropped. */
static void list_back(struct tui *u)
{
	struct top *t = u->t;

	if (u->drilled_group) {
		t->o.have_uid = u->orig.have_uid;
		t->o.uid = u->orig.uid;
		t->o.cgroup = u->orig.cgroup;
		t->o.group = u->drilled_from;
		u->drilled_group = 0;
	} else if (u->filter[0]) {
		top_set_name(t, NULL, NULL, 0);
		t->o.have_uid = u->orig.have_uid;
		t->o.uid = u->orig.uid;
		u->filter[0] = '\0';
	} else {
		return;
	}
	top_select(t);
	tui_reselect(u);
}

/*
 * Applies the filter typed at the prompt. LIVE: while it is typed, a
 * regular expression not finished yet leaves the list as it was, and says
 * nothing but "(incomplete)".
 */
static void apply_filter(struct tui *u, int live)
{
	struct top *t = u->t;
	char err[200];
	const char *s = u->input;

	u->input[u->input_len] = '\0';
	u->input_bad = 0;
	if (live && strncmp(s, "user:", 5) == 0)
		return; /* a user's name is looked up when it is whole: at Enter */
	if (strncmp(s, "user:", 5) == 0) {
		const char *name = s + 5;
		struct passwd *pw = getpwnam(name);
		char *end;
		unsigned long uid = strtoul(name, &end, 10);

		if (!pw && (end == name || *end)) {
			snprintf(u->msg, sizeof(u->msg), "no user named '%s'", name);
			return;
		}
		top_set_name(t, NULL, NULL, 0);
		t->o.have_uid = 1;
		t->o.uid = pw ? pw->pw_uid : (uint32_t)uid;
	} else {
		if (top_set_name(t, s[0] ? s : NULL, err, sizeof(err)) < 0) {
			if (live)
				u->input_bad = 1;
			else
				snprintf(u->msg, sizeof(u->msg), "filter: %s", err);
			return;
		}
		/* A user a filter chose before goes; one Enter opened stays (Esc leaves it). */
		if (!(u->drilled_group && u->drilled_from == TOP_GROUP_USER)) {
			t->o.have_uid = u->orig.have_uid;
			t->o.uid = u->orig.uid;
		}
	}
	snprintf(u->filter, sizeof(u->filter), "%s", s);
	top_select(t);
	tui_reselect(u);
}

/* The text a line is searched by: its command, user or cgroup. */
static struct pmaps_view line_text(const struct top_line *l)
{
	if (l->row)
		return l->row->comm;
	return group_key(l);
}

/* Whether NEEDLE (N bytes) is in HAY, ASCII letters in either case. */
static int has_text(struct pmaps_view hay, const char *needle, size_t n)
{
	if (n == 0)
		return 1;
	for (size_t i = 0; i + n <= hay.len; i++)
		if (strncasecmp(hay.ptr + i, needle, n) == 0)
			return 1;
	return 0;
}

/* F3: the selection to the first line from FROM on (wrapping) whose text holds the search. */
static void search_from(struct tui *u, size_t from)
{
	struct top *t = u->t;

	for (size_t k = 0; k < t->nlines; k++) {
		size_t i = (from + k) % t->nlines;
		if (has_text(line_text(&t->lines[i]), u->input, u->input_len)) {
			u->sel = i;
			tui_remember(u);
			u->input_bad = 0;
			return;
		}
	}
	u->input_bad = t->nlines > 0 && u->input_len > 0;
}

static void sort_by(struct tui *u, int col);

static void menu_key(struct tui *u, int key)
{
	switch (key) {
	case 27: u->prompting = PROMPT_NONE; return;
	case KEY_LEFT: case KEY_UP: u->menu = (u->menu + (int)NMENU - 1) % (int)NMENU; return;
	case KEY_RIGHT: case KEY_DOWN: case '\t': u->menu = (u->menu + 1) % (int)NMENU; return;
	case '\n': case '\r': case KEY_ENTER:
		u->prompting = PROMPT_NONE;
		if (u->t->o.sort != menu_cols[u->menu])
			sort_by(u, menu_cols[u->menu]);
		return;
	default: return;
	}
}

void tui_prompt_key(struct tui *u, int key)
{
	int search = u->prompting == PROMPT_SEARCH;

	if (u->prompting == PROMPT_SORT) {
		menu_key(u, key);
		return;
	}
	switch (key) {
	case 27: /* Esc: a search ends; a filter goes back to what it was */
		u->prompting = PROMPT_NONE;
		u->input_bad = 0;
		if (!search) {
			u->input_len = strlen(u->filter_was);
			memcpy(u->input, u->filter_was, u->input_len);
			apply_filter(u, 0);
		}
		return;
	case '\n': case '\r': case KEY_ENTER:
		u->prompting = PROMPT_NONE;
		u->input_bad = 0;
		if (!search)
			apply_filter(u, 0);
		return;
	case KEY_F(3):
		if (search)
			search_from(u, u->sel + 1);
		return;
	case KEY_BACKSPACE: case 127: case 8:
		/* One character, not one byte. */
		while (u->input_len > 0 && ((unsigned char)u->input[--u->input_len] & 0xc0) == 0x80)
			;
		break;
	default:
		if (key >= 32 && key < 256 && key != 127 && u->input_len + 1 < sizeof(u->input))
			u->input[u->input_len++] = (char)key;
		else
			return;
	}
	if (search)
		search_from(u, u->sel);
	else
		apply_filter(u, 1);
}

/* The mouse in the list: a heading sorts (again: reverses), a line is selected, the wheel moves. */
static void list_mouse(struct tui *u)
{
	MEVENT ev;
	struct top *t = u->t;

	if (getmouse(&ev) != OK)
		return;
	if (ev.bstate & BUTTON4_PRESSED) {
		u->sel = u->sel > 3 ? u->sel - 3 : 0;
	} else if (ev.bstate & BUTTON5_PRESSED) {
		u->sel = u->sel + 3 < t->nlines ? u->sel + 3 : t->nlines ? t->nlines - 1 : 0;
	} else if (!(ev.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON1_DOUBLE_CLICKED))) {
		return;
	} else if (ev.y == u->head_y) {
		for (int i = 0; i < u->hit_n; i++)
			if (ev.x >= u->hit_x[i] && ev.x < u->hit_x[i] + u->hit_w[i] + 1 &&
			    u->hit_col[i] >= 0 && u->hit_col[i] != COL_PSOURCE &&
			    u->hit_col[i] != COL_AGE && u->hit_col[i] != COL_MARK) {
				sort_by(u, u->hit_col[i]);
				return;
			}
		return;
	} else if (ev.y >= u->list_y && ev.y < u->list_y + u->list_h &&
	           u->first + (size_t)(ev.y - u->list_y) < t->nlines) {
		u->sel = u->first + (size_t)(ev.y - u->list_y);
		if (ev.bstate & BUTTON1_DOUBLE_CLICKED) {
			tui_remember(u);
			tui_drill(u);
			return;
		}
	} else {
		return;
	}
	tui_remember(u);
}

/* Sort by COL; the same column again reverses. */
static void sort_by(struct tui *u, int col)
{
	struct top *t = u->t;

	/* ASCENDING turns the column's own order: sizes largest first, names and pids ascending. */
	if (t->o.sort == col)
		t->o.ascending = !t->o.ascending;
	else {
		t->o.sort = col;
		t->o.ascending = 0;
	}
	top_select(t);
	tui_reselect(u);
}

static void sort_step(struct tui *u, int dir)
{
	size_t i = 0;

	while (i < NSORT && sort_cols[i] != u->t->o.sort)
		i++;
	i = i == NSORT ? 0 : (i + NSORT + (size_t)(dir > 0 ? 1 : NSORT - 1)) % NSORT;
	sort_by(u, sort_cols[i]);
}

static void group_toggle(struct tui *u, int g)
{
	struct top *t = u->t;

	if (u->drilled_group)
		list_back(u);
	t->o.group = t->o.group == g ? TOP_GROUP_NONE : g;
	u->sel = u->first = 0;
	top_select(t);
	tui_remember(u);
}

/* A key in the list. Returns 1 to quit. */
int tui_list_key(struct tui *u, int key)
{
	struct top *t = u->t;
	size_t page = (size_t)(u->list_h > 1 ? u->list_h - 1 : 1);
	switch (key) {
	case 'q': case 'Q': return 1;
	case KEY_UP: if (u->sel) u->sel--; break;
	case KEY_DOWN: if (u->sel + 1 < t->nlines) u->sel++; break;
	case KEY_MOUSE: list_mouse(u); return 0;
	case KEY_F(9): case 'k':
		if (u->sel < t->nlines && t->lines[u->sel].row)
			snprintf(u->msg, sizeof(u->msg), "pmaps only reads memory: it sends no signal "
			         "(from a shell: kill %d)", t->lines[u->sel].row->pid);
		else
			snprintf(u->msg, sizeof(u->msg), "pmaps only reads memory: it sends no signal");
		return 0;
	case KEY_F(3):
		u->prompting = PROMPT_SEARCH;
		u->input_len = 0;
		u->input_bad = 0;
		return 0;
	case KEY_F(6):
		u->prompting = PROMPT_SORT;
		u->menu = 0;
		for (size_t i = 0; i < NMENU; i++)
			if (menu_cols[i] == t->o.sort)
				u->menu = (int)i;
		return 0;
	case KEY_PPAGE: u->sel = u->sel > page ? u->sel - page : 0; break;
	case KEY_NPAGE: u->sel = u->sel + page < t->nlines ? u->sel + page : t->nlines ? t->nlines - 1 : 0; break;
	case KEY_HOME: u->sel = 0; break;
	case KEY_END: u->sel = t->nlines ? t->nlines - 1 : 0; break;
	case '\n': case '\r': case KEY_ENTER: tui_drill(u); return 0;
	case '/': case KEY_F(4):
		u->prompting = PROMPT_FILTER;
		u->input_bad = 0;
		u->input_len = strlen(u->filter) < sizeof(u->input) ? strlen(u->filter) : 0;
		memcpy(u->input, u->filter, u->input_len);
		memcpy(u->filter_was, u->filter, sizeof(u->filter_was));
		return 0;
	case 27: list_back(u); return 0;
	case '<': sort_step(u, -1); return 0;
	case '>': sort_step(u, 1); return 0;
	case 'r': t->o.ascending = !t->o.ascending; top_select(t); tui_reselect(u); return 0;
	case 'N': sort_by(u, COL_PID); return 0;
	case 'C': sort_by(u, COL_COMMAND); return 0;
	case 'R': sort_by(u, COL_SV0 + PMAPS_SV_RSS); return 0;
	case 'P': sort_by(u, COL_SV0 + PMAPS_SV_PSS); return 0;
	case 'U': sort_by(u, COL_SV0 + PMAPS_SV_USS); return 0;
	case 'S': sort_by(u, COL_SV0 + PMAPS_SV_SWAP); return 0;
	case 't': case KEY_F(5):
		if (t->o.group != TOP_GROUP_NONE) {
			snprintf(u->msg, sizeof(u->msg), "the tree is of processes: ungroup first (u or c)");
			return 0;
		}
		t->o.tree = !t->o.tree;
		top_select(t);
		tui_reselect(u);
		return 0;
	case 'a': u->cmdline = !u->cmdline; return 0;
	case 'u': group_toggle(u, TOP_GROUP_USER); return 0;
	case 'c': group_toggle(u, TOP_GROUP_CGROUP); return 0;
	case ' ': u->next_refresh = 0; return 0;
	case '?': tui_push(u, V_HELP); return 0;
	default: return 0;
	}
	tui_remember(u);
	return 0;
}
