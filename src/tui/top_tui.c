/* SPDX-License-Identifier: MIT */
/*
 * top_tui.c - pmaps top's live terminal view (ncurses): the process list,
 * refreshed every -d seconds, and the drill-down into one process: its
 * explain report, its mappings and a picture of its pages.
 *
 * The screen is redrawn from data on every pass: erase() and draw into
 * stdscr, then one doupdate(), so that curses sends only the cells that
 * changed (no flicker, no clear() per refresh). Keys are read with a
 * timeout that ends when the next refresh is due, so a refresh never waits
 * for a key and a key waits at most for one refresh. SIGWINCH is curses'
 * (KEY_RESIZE); SIGINT, SIGTERM and SIGHUP end the loop, which restores the
 * terminal, as every other way out does. Whatever is written to stderr
 * while the view is up (a failed refresh's message) is held and written
 * once the terminal is restored.
 *
 * The explain and maps views are the table writer's output into a memory
 * sink, shown a screenful at a time; the pages picture walks only the
 * mappings on screen. Every byte a target controls (command names, cgroup
 * paths, mapping names) goes through the text escape before curses sees it.
 *
 * Memory: the list draws from stack buffers; a refresh allocates nothing
 * here. The drill-down views allocate their buffers on first use and keep
 * them for the next.
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
#include "common/tool.h"
#include "write/writer.h"
#include "survey/top.h"
#include "tui/top_tui.h"
#include "common/num.h"
#include "tui/curses_dl.h"

/* ---- the terminal ---- */

/* Colour pairs. */
enum {
	CP_NONE,
	CP_TITLE,   /* the column headings */
	CP_SELECT,  /* the selected line */
	CP_VALUE,   /* header figures */
	CP_WARN,    /* markers: old, skipped, partial */
	CP_DENIED,  /* denied processes, errors */
	CP_ANON, CP_FILE, CP_HUGE, CP_SWAP, CP_ZERO, CP_NONE_PG, /* page states */
	CP_SHMEM, CP_LAZY,
	CP_COUNT
};

static volatile sig_atomic_t stop_sig;

static void on_stop(int sig)
{
	stop_sig = sig;
}

/* ---- text views: a writer's table in memory, a screenful at a time ---- */

#define TEXT_CAP (8u << 20) /* a maps table of about 60k mappings */

struct textview {
	char *buf;
	size_t len;
	int cut;               /* the sink filled: the table goes on */
	size_t *line;          /* offsets of the lines' starts */
	size_t nlines, linecap;
	size_t top, left;      /* the first line shown, columns scrolled right */
};

/* ---- the pages picture ---- */

/*
 * A cell's state: the one most of its pages are in, by the library's one
 * classification of pages (enum pmaps_page_state,
 * pmaps_page_state_dominant()), or CS_ERR when its pages could not be read.
 */
#define CS_ERR PMAPS_PS_COUNT

static const struct {
	char ch;
	int pair;
	const char *name;
} cell_look[PMAPS_PS_COUNT + 1] = {
	[PMAPS_PS_ABSENT] = {'.', CP_NONE_PG, "not present"},
	[PMAPS_PS_ANON] = {'#', CP_ANON, "anon"},
	[PMAPS_PS_SHARED] = {'+', CP_ANON, "anon mapped 2+ times"},
	[PMAPS_PS_FILE] = {'=', CP_FILE, "file"},
	[PMAPS_PS_SHMEM] = {'~', CP_SHMEM, "shmem"},
	[PMAPS_PS_HUGE] = {'H', CP_HUGE, "huge"},
	[PMAPS_PS_LAZYFREE] = {'l', CP_LAZY, "lazily freed"},
	[PMAPS_PS_ZERO] = {'0', CP_ZERO, "zero page"},
	[PMAPS_PS_SWAPPED] = {'s', CP_SWAP, "swapped"},
	[CS_ERR] = {'?', CP_DENIED, "not read"},
};
/* The legend: the states this view's reader sees (no kpageflags: no lazyfree or shared). */
static const enum pmaps_page_state legend_states[] = {
	PMAPS_PS_ANON, PMAPS_PS_FILE, PMAPS_PS_SHMEM, PMAPS_PS_HUGE, PMAPS_PS_SWAPPED,
	PMAPS_PS_ZERO, PMAPS_PS_ABSENT,
};

struct pmapping {
	uint64_t start, end;
	uint32_t name, name_len; /* the escaped name in the picture's NAMES */
	enum pmaps_kind kind;
};

struct picture {
	struct pmapping *m;
	size_t n, cap;
	char *names;
	size_t names_len, names_cap;
	struct pmaps_proc *proc;
	struct pmaps_pages *pg;
	unsigned page_size;
	size_t top;
	/* The cells of the mappings on screen, computed when what is on screen changes. */
	unsigned char *cells;
	size_t cells_cap;
	size_t c_top, c_rows, c_width; /* what CELLS holds; c_width 0: nothing */
	int sampled;                   /* a cell was read in part (pagemap, a large span) */
	char err[256];
};

/*
 * The most pages one cell reads with the pagemap reader (8 bytes a page,
 * every page read): 8 MiB of address space. Without PAGEMAP_SCAN (before
 * Linux 6.7), a 64 GiB sparse region or a sanitizer's terabytes of shadow
 * would otherwise stall the view for seconds; such a cell shows its first
 * pages, and the legend says so. PAGEMAP_SCAN skips what is not populated
 * and reads every page.
 */
#define CELL_SAMPLE_PAGES 2048

/* ---- the view ---- */

enum view { V_LIST, V_EXPLAIN, V_MAPS, V_PAGES, V_HELP };
#define DEPTH_MAX 8

struct tui {
	struct top *t;
	struct top_opts orig;     /* the options as given: what Esc returns to */
	int color, utf8;
	enum view stack[DEPTH_MAX];
	int depth;                /* stack[depth] is on screen */
	/* the list */
	size_t sel, first;
	int sel_pid;              /* the selected process (0: a group, or none) */
	char sel_key[256];        /* the selected group's key */
	size_t sel_key_len;
	uint64_t next_refresh;
	int drilled_group;        /* the list is one group of the grouped list: Esc returns */
	int drilled_from;         /* the grouping it came from */
	char cgroup[4096];        /* the cgroup drilled into (t->o.cgroup points here) */
	char filter[256];         /* the filter as typed */
	/* the prompt (/) */
	int prompting;
	char input[256];
	size_t input_len;
	char msg[256];            /* one line for the user (a bad filter), until the next key */
	int list_h;               /* the lines the list showed */
	/* the process drilled into */
	int pid;
	char comm[80];            /* escaped */
	struct textview explain, maps, help;
	char explain_err[512], maps_err[512];
	struct picture pic;
};

/* ---- drawing text ---- */

/*
 * Writes S (N bytes, already escaped: printable UTF-8) at Y, X in at most
 * MAXW columns; returns the columns used. Without a UTF-8 locale, each byte
 * above ASCII shows as the text escape writes a control byte, \xHH (the
 * escape wrote a backslash as \\, so this reads back the same way).
 */
static int put(const struct tui *u, int y, int x, int maxw, const char *s, size_t n)
{
	int w = 0;
	size_t i = 0;

	if (maxw <= 0)
		return 0;
	move(y, x);
	while (i < n && w < maxw) {
		uint32_t cp;
		size_t k = (unsigned char)s[i] < 0x80 ? 1 : esc_utf8_seq((const unsigned char *)s + i,
		                                                         n - i, &cp);
		int cw = 1;

		if (k == 0 || (k > 1 && !u->utf8)) {
			char hex[8];

			if (w + 4 > maxw)
				break;
			snprintf(hex, sizeof(hex), "\\x%02x", (unsigned char)s[i]);
			addnstr(hex, 4);
			i++;
			w += 4;
			continue;
		}
		if (k > 1) {
			cw = wcwidth((wchar_t)cp);
			if (cw < 0)
				cw = 1;
			if (w + cw > maxw)
				break;
		}
		addnstr(s + i, (int)k);
		i += k;
		w += cw;
	}
	return w;
}

/*
 * S (escaped, as put()) at Y, X in at most MAXW columns: its end when it is
 * longer, after "..", since a path's end names the file.
 */
static int put_tail(const struct tui *u, int y, int x, int maxw, const char *s, size_t n)
{
	size_t cols = 0, i = n;

	for (size_t k = 0; k < n; k++)
		cols += ((unsigned char)s[k] & 0xc0) != 0x80;
	if (cols <= (size_t)maxw || maxw < 4)
		return put(u, y, x, maxw, s, n);
	/* Back from the end by MAXW - 2 characters (wide ones may cut it further). */
	for (cols = 0; i > 0 && cols < (size_t)maxw - 2; cols++)
		while (--i > 0 && ((unsigned char)s[i] & 0xc0) == 0x80)
			;
	put(u, y, x, 2, "..", 2);
	return 2 + put(u, y, x + 2, maxw - 2, s + i, n - i);
}

/* Our own ASCII text at Y, X, in at most MAXW columns. */
static int puts_at(const struct tui *u, int y, int x, int maxw, const char *s)
{
	return put(u, y, x, maxw, s, strlen(s));
}

/* Bytes from a target, escaped, at Y, X in at most MAXW columns. */
static int put_target(const struct tui *u, int y, int x, int maxw, const char *s, size_t n)
{
	char e[1024];
	size_t len = esc_text(e, sizeof(e), s, n);

	return put(u, y, x, maxw, e, len);
}

/* S right-aligned in WIDTH columns at Y, X (ASCII). */
static void put_right(const struct tui *u, int y, int x, int width, const char *s)
{
	int n = (int)strlen(s);

	if (n > width)
		n = width;
	put(u, y, x + width - n, n, s, (size_t)n);
}

static void ink_on(const struct tui *u, int pair, attr_t a)
{
	attron(a | (u->color && pair ? COLOR_PAIR(pair) : 0));
}

static void ink_off(const struct tui *u, int pair, attr_t a)
{
	attroff(a | (u->color && pair ? COLOR_PAIR(pair) : 0));
}

/* A bar (headings, the selection): its colours, or reverse video without colours. */
static attr_t bar(const struct tui *u, int pair)
{
	return u->color ? COLOR_PAIR(pair) : A_REVERSE;
}

/* ---- the list: its columns ---- */

enum lcol { LC_PID, LC_USER, LC_RSS, LC_PSS, LC_USS, LC_SWAP, LC_SRC, LC_AGE, LC_MARK, LC_CMD,
	LC_N };

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
	[LC_SRC] = {COL_PSOURCE, 6, 2},
	[LC_AGE] = {COL_AGE, 4, 1},
	[LC_MARK] = {COL_MARK, 1, 0},
	[LC_CMD] = {COL_COMMAND, 0, 0},
};

/* The heading of a list column: the column table's. */
static const char *lc_title(int lc)
{
	return columns[lcols[lc].col].title.s;
}

/* The columns that fit WIDTH (the command gets what is left, at least 12). */
static void layout(int width, int shown[LC_N], int x[LC_N], int *cmd_w)
{
	int need = 0;

	for (int i = 0; i < LC_N; i++) {
		shown[i] = 1;
		if (i != LC_CMD)
			need += lcols[i].width + 1;
	}
	for (int d = 1; d <= 5 && width - need < 12; d++)
		for (int i = 0; i < LC_N; i++)
			if (lcols[i].drop == d && shown[i]) {
				shown[i] = 0;
				need -= lcols[i].width + 1;
			}
	for (int i = 0, at = 0; i < LC_N; i++) {
		x[i] = at;
		if (shown[i])
			at += lcols[i].width + 1;
	}
	*cmd_w = width - need > 1 ? width - need : 1;
}

/* The sort keys in the order < and > move through them. */
static const int sort_cols[] = {COL_PID, COL_SV0 + PMAPS_SV_RSS, COL_SV0 + PMAPS_SV_PSS,
                                COL_SV0 + PMAPS_SV_USS, COL_SV0 + PMAPS_SV_SWAP, COL_COMMAND};
#define NSORT (sizeof(sort_cols) / sizeof(sort_cols[0]))

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
		puts_at(u, (*y)++, 0, COLS, "MemTotal -  (no /proc/meminfo)");
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
		puts_at(u, *y, x, COLS - x, items[i].label);
		ink_on(u, CP_VALUE, A_BOLD);
		puts_at(u, *y, x + lw + 1, COLS - x - lw - 1, v);
		ink_off(u, CP_VALUE, A_BOLD);
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
	ink_on(u, 0, A_BOLD);
	puts_at(u, *y, 0, COLS, b);
	ink_off(u, 0, A_BOLD);
	if (n > 0 && (size_t)n < sizeof(b)) {
		int x = n + 2 < COLS ? n + 2 : COLS;

		/* The group Enter opened (Esc goes back to the groups), and the filter. */
		if (u->drilled_group && t->o.cgroup) {
			x += puts_at(u, *y, x, COLS - x, "cgroup ");
			x += put_target(u, *y, x, COLS - x, t->o.cgroup, strlen(t->o.cgroup)) + 2;
		} else if (u->drilled_group) {
			const char *name = top_user_name(t, t->o.uid);
			x += puts_at(u, *y, x, COLS - x, "user ");
			x += put_target(u, *y, x, COLS - x, name, strlen(name)) + 2;
		}
		if (u->filter[0] && x < COLS) {
			x += puts_at(u, *y, x, COLS - x, "filter: ");
			put_target(u, *y, x, COLS - x, u->filter, strlen(u->filter));
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
		puts_at(u, (*y)++, 0, COLS, b);
		if (st.denied) {
			snprintf(b, sizeof(b), "%u process%s DENIED: RSS from status only; %s", st.denied,
			         st.denied == 1 ? "" : "es",
			         geteuid() == 0 ? "even root may not read them (capabilities this one "
			                          "lacks, or a security module)"
			                        : "run as root or with CAP_SYS_PTRACE to see them");
			ink_on(u, CP_DENIED, A_BOLD);
			puts_at(u, (*y)++, 0, COLS, b);
			ink_off(u, CP_DENIED, A_BOLD);
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

static void remember(struct tui *u)
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
static void reselect(struct tui *u)
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
	remember(u);
}

static void draw_line(struct tui *u, int y, const struct top_line *l, const int shown[LC_N],
                      const int x[LC_N], int cmd_w, int selected)
{
	const struct pmaps_survey_row *r = l->row;
	static const int figs[] = {LC_RSS, LC_PSS, LC_USS, LC_SWAP};
	char b[64];
	int mark_pair = 0;

	if (selected) {
		attron(bar(u, CP_SELECT));
		move(y, 0);
		hline(' ', COLS);
	}
	if (r)
		snprintf(b, sizeof(b), "%d", r->pid);
	else
		snprintf(b, sizeof(b), "%u", l->sum->processes);
	put_right(u, y, x[LC_PID], lcols[LC_PID].width, b);
	if (shown[LC_USER])
		put_target(u, y, x[LC_USER], lcols[LC_USER].width, l->user, strlen(l->user));
	for (size_t i = 0; i < sizeof(figs) / sizeof(figs[0]); i++) {
		int lc = figs[i], got;
		uint64_t v = 0;

		if (!shown[lc])
			continue;
		got = w_proc_value(lcols[lc].col, l, &v);
		fig(b, v, got != 0);
		/* A group's sum over only the processes that had the figure: at least this. */
		if (got == 2)
			strcat(b, "+");
		put_right(u, y, x[lc], lcols[lc].width, b);
	}
	if (r) {
		char m[2] = {w_survey_mark(r->flags), '\0'};

		if (shown[LC_SRC])
			puts_at(u, y, x[LC_SRC], lcols[LC_SRC].width, src_short(r->source));
		if (shown[LC_AGE]) {
			/* Only costly figures older than this refresh have an age. */
			age_str(b, r->source == PMAPS_SRC_STATUS ? 0 : r->age_ns);
			put_right(u, y, x[LC_AGE], lcols[LC_AGE].width, b);
		}
		mark_pair = m[0] == 'D' ? CP_DENIED : CP_WARN;
		if (!selected)
			ink_on(u, mark_pair, A_BOLD);
		puts_at(u, y, x[LC_MARK], 1, m);
		if (!selected)
			ink_off(u, mark_pair, A_BOLD);
		put_target(u, y, x[LC_CMD], cmd_w, r->comm.ptr, r->comm.len);
	} else if (l->cgroup.len) {
		put_target(u, y, x[LC_CMD], cmd_w, l->cgroup.ptr, l->cgroup.len);
	} else {
		snprintf(b, sizeof(b), "(%u process%s)", l->sum->processes,
		         l->sum->processes == 1 ? "" : "es");
		puts_at(u, y, x[LC_CMD], cmd_w, b);
	}
	if (selected)
		attroff(bar(u, CP_SELECT));
}

/* The bottom line: the prompt, a message, or the keys. */
static void draw_bottom(struct tui *u, const char *keys)
{
	int y = LINES - 1;

	move(y, 0);
	clrtoeol();
	if (u->prompting) {
		int x = puts_at(u, y, 0, COLS, "filter (command regex, or user:NAME): ");
		char e[1024];
		size_t n = esc_text(e, sizeof(e), u->input, u->input_len);
		int w = put(u, y, x, COLS - x - 1, e, n);
		move(y, x + w);
		curs_set(1);
		return;
	}
	curs_set(0);
	if (u->msg[0]) {
		ink_on(u, CP_DENIED, A_BOLD);
		put_target(u, y, 0, COLS, u->msg, strlen(u->msg));
		ink_off(u, CP_DENIED, A_BOLD);
		return;
	}
	attron(bar(u, CP_TITLE));
	hline(' ', COLS);
	puts_at(u, y, 0, COLS, keys);
	attroff(bar(u, CP_TITLE));
}

/* How many lines the list shows under the header. */
static int list_rows(int top_y)
{
	int n = LINES - 1 - top_y - 1; /* the headings, the bottom line */

	return n > 0 ? n : 0;
}

static void draw_list(struct tui *u)
{
	struct top *t = u->t;
	int shown[LC_N], x[LC_N], cmd_w, y = 0, rows;

	draw_header(u, &y);
	layout(COLS, shown, x, &cmd_w);
	/* The headings; the sort column's in bold and underlined. */
	attron(bar(u, CP_TITLE));
	move(y, 0);
	hline(' ', COLS);
	for (int i = 0; i < LC_N; i++) {
		const char *title = lc_title(i);
		int sorted = lcols[i].col == t->o.sort;

		if (!shown[i])
			continue;
		if (i == LC_PID && t->o.group != TOP_GROUP_NONE)
			title = columns[COL_PROCS].title.s;
		if (i == LC_CMD && t->o.group == TOP_GROUP_CGROUP)
			title = columns[COL_CGROUP].title.s;
		if (sorted)
			attron(A_BOLD | A_UNDERLINE);
		if (i == LC_CMD || i == LC_USER || i == LC_SRC || i == LC_MARK)
			puts_at(u, y, x[i], i == LC_CMD ? cmd_w : lcols[i].width, title);
		else
			put_right(u, y, x[i], lcols[i].width, title);
		if (sorted)
			attroff(A_BOLD | A_UNDERLINE);
	}
	attroff(bar(u, CP_TITLE));
	y++;
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
		puts_at(u, y, 0, COLS, u->filter[0] ? "  no process matches the filter"
		                                     : "  no process to show");
	draw_bottom(u, t->o.group == TOP_GROUP_NONE
	                   ? " q quit  Enter explain  / filter  u user  c cgroup  sort NCRPUS < > r  ? help"
	                   : " q quit  Enter its processes  / filter  u user  c cgroup  sort < > r  ? help");
}

/* ---- text views ---- */

static void text_reset(struct textview *tv)
{
	tv->len = 0;
	tv->cut = 0;
	tv->nlines = 0;
	tv->top = tv->left = 0;
}

/* The line starts of TV's text. Returns 0 or -ENOMEM. */
static int text_index(struct textview *tv)
{
	size_t i = 0;

	tv->nlines = 0;
	while (i < tv->len) {
		const char *nl = memchr(tv->buf + i, '\n', tv->len - i);

		if (tv->nlines == tv->linecap) {
			size_t cap = tv->linecap ? tv->linecap * 2 : 1024;
			size_t *p = realloc(tv->line, cap * sizeof(*p));
			if (!p)
				return -ENOMEM;
			tv->line = p;
			tv->linecap = cap;
		}
		tv->line[tv->nlines++] = i;
		i = nl ? (size_t)(nl - tv->buf) + 1 : tv->len;
	}
	return 0;
}

/* A memory sink over TV's buffer (allocated at first use). Returns 0 or -ENOMEM. */
static int text_sink(struct textview *tv, struct out *o)
{
	text_reset(tv);
	if (!tv->buf && !(tv->buf = malloc(TEXT_CAP)))
		return -ENOMEM;
	out_memory(o, tv->buf, TEXT_CAP);
	return 0;
}

static int text_done(struct textview *tv, struct out *o)
{
	tv->len = out_kept(o);
	tv->cut = o->err == ENOBUFS;
	return text_index(tv);
}

/* Sets TV to the text S. */
static void text_set(struct textview *tv, const char *s)
{
	struct out o;

	if (text_sink(tv, &o) < 0)
		return;
	out_str(&o, s);
	text_done(tv, &o);
}

/* The privilege a failed read needs, for the message. */
static const char *privilege(int err)
{
	if (err == -EACCES || err == -EPERM)
		return geteuid() == 0 ? " (even root may not read it: it holds capabilities this "
		                        "one lacks, or a security module refuses)"
		                      : " (run as root or with CAP_SYS_PTRACE)";
	return "";
}

/* Opens the process drilled into; the message in ERR when it cannot. */
static int open_proc(struct tui *u, struct pmaps_proc **proc, char *err, size_t errsz)
{
	char pid[24];
	int e;

	snprintf(pid, sizeof(pid), "%d", u->pid);
	e = pmaps_proc_open(proc, u->t->o.root, pid);
	if (e < 0)
		snprintf(err, errsz, "process %d: %s%s", u->pid,
		         e == -ENOENT || e == -ESRCH ? "gone" : pmaps_strerror(e), privilege(e));
	return e;
}

/*
 * explain for the process drilled into: the report `pmaps explain PID`
 * writes, read the same way (explain_doc.c: the library's source choice,
 * the runtime's books, the run right after them, their join).
 */
static void load_explain(struct tui *u)
{
	static struct explain_doc e; /* large (its books): not on the stack */
	struct textview *tv = &u->explain;
	struct pmaps_proc *proc = NULL;
	struct explain_ask ask;
	struct books_opts bo;
	struct failure f;
	struct writer w;
	struct doc d;
	struct out o;
	int err;

	u->explain_err[0] = '\0';
	text_reset(tv);
	if (open_proc(u, &proc, u->explain_err, sizeof(u->explain_err)) < 0)
		return;
	bo = u->t->o.books;
	bo.root = u->t->o.root;
	memset(&ask, 0, sizeof(ask));
	ask.source = PMAPS_SRC_AUTO;
	ask.limit_ns = PMAPS_EXPLAIN_HOLD_NS;
	ask.books = &bo;
	memset(&f, 0, sizeof(f));
	err = explain_doc_read(&e, proc, &ask, &f);
	if (err < 0) {
		snprintf(u->explain_err, sizeof(u->explain_err), "process %d: %.400s%s", u->pid,
		         f.msg[0] ? f.msg : pmaps_strerror(err), privilege(err));
	} else if (text_sink(tv, &o) == 0) {
		memset(&d, 0, sizeof(d));
		explain_doc_fill(&e, &d);
		w_begin(&w, &o, FMT_TABLE, &d);
		w_explain(&w, e.x);
		w_end(&w, NULL);
		if (text_done(tv, &o) < 0)
			snprintf(u->explain_err, sizeof(u->explain_err), "out of memory");
	} else {
		snprintf(u->explain_err, sizeof(u->explain_err), "out of memory");
	}
	explain_doc_close(&e);
	pmaps_proc_close(proc);
}

/*
 * The mappings of the process drilled into, from smaps as `pmaps maps PID`
 * reads them; fewer columns, so that the path shows in 100 columns.
 */
static void load_maps(struct tui *u)
{
	static const int cols[] = {COL_ADDRESS, COL_PERMS, COL_KIND, PMAPS_F_RSS, PMAPS_F_PSS,
	                           COL_USS, PMAPS_F_SWAP, COL_PATH};
	struct textview *tv = &u->maps;
	struct pmaps_proc *proc = NULL;
	struct pmaps_maps *c = NULL;
	const struct pmaps_mapping *m;
	struct writer w;
	struct doc d;
	struct out o;
	int err;

	u->maps_err[0] = '\0';
	text_reset(tv);
	if (open_proc(u, &proc, u->maps_err, sizeof(u->maps_err)) < 0)
		return;
	err = pmaps_maps_open(&c, proc, PMAPS_SRC_SMAPS, 0);
	if (err == 0 && (err = text_sink(tv, &o)) == 0) {
		memset(&d, 0, sizeof(d));
		d.kind = DOC_MAPPINGS;
		d.by = PMAPS_GROUP_PATH;
		d.pid = u->pid;
		d.source = pmaps_source_name(PMAPS_SRC_SMAPS);
		d.cols = cols;
		d.ncols = (int)(sizeof(cols) / sizeof(cols[0]));
		d.human = 1;
		w_begin(&w, &o, FMT_TABLE, &d);
		while ((err = pmaps_maps_next(c, &m)) > 0)
			w_mapping(&w, m);
		w_end(&w, NULL);
		if (text_done(tv, &o) < 0 && err == 0)
			err = -ENOMEM;
	}
	if (err < 0 && err != -ENODATA) {
		const char *msg = c && pmaps_maps_errmsg(c)[0] ? pmaps_maps_errmsg(c)
		                                               : pmaps_strerror(err);
		snprintf(u->maps_err, sizeof(u->maps_err), "process %d: %s%s", u->pid, msg,
		         privilege(err));
	}
	pmaps_maps_close(c);
	pmaps_proc_close(proc);
}

/* One line of text at Y: the part from column LEFT on, in the screen's width. */
static void text_line(const struct tui *u, int y, const char *s, size_t n, size_t left)
{
	size_t i = 0, col = 0;

	while (i < n && col < left) {
		uint32_t cp;
		size_t k = (unsigned char)s[i] < 0x80 ? 1 : esc_utf8_seq((const unsigned char *)s + i,
		                                                         n - i, &cp);
		i += k ? k : 1;
		col++;
	}
	put(u, y, 0, COLS, s + i, n - i);
}

/* The rows a text view shows: all but the title and the bottom line. */
static int text_rows(void)
{
	return LINES - 2 > 0 ? LINES - 2 : 0;
}

/* The top line of a drill-down view: WHAT, and the process (none for the list's help). */
static void draw_title(struct tui *u, const char *what)
{
	char b[256];
	int x;

	if (u->depth > 0 && u->stack[u->depth - 1] == V_LIST && u->stack[u->depth] == V_HELP)
		snprintf(b, sizeof(b), "pmaps top: %s", what);
	else
		snprintf(b, sizeof(b), "%s: process %d ", what, u->pid);
	attron(bar(u, CP_TITLE) | A_BOLD);
	move(0, 0);
	hline(' ', COLS);
	x = puts_at(u, 0, 0, COLS, b);
	if (!(u->depth > 0 && u->stack[u->depth - 1] == V_LIST && u->stack[u->depth] == V_HELP))
		put(u, 0, x, COLS - x, u->comm, strlen(u->comm));
	attroff(bar(u, CP_TITLE) | A_BOLD);
}

static void draw_text(struct tui *u, struct textview *tv, const char *what, const char *err,
                      const char *keys)
{
	int rows = text_rows();

	draw_title(u, what);
	if (err && err[0]) {
		ink_on(u, CP_DENIED, A_BOLD);
		put_target(u, 2, 0, COLS, err, strlen(err));
		ink_off(u, CP_DENIED, A_BOLD);
	} else {
		size_t total = tv->nlines + (size_t)tv->cut;

		if (total > (size_t)rows && tv->top > total - (size_t)rows)
			tv->top = total - (size_t)rows;
		if (total <= (size_t)rows)
			tv->top = 0;
		for (int i = 0; i < rows && tv->top + (size_t)i < total; i++) {
			size_t k = tv->top + (size_t)i;
			size_t a, b;

			if (k == tv->nlines) {
				puts_at(u, 1 + i, 0, COLS, "... (cut here: the rest is in pmaps maps PID)");
				break;
			}
			a = tv->line[k];
			b = k + 1 < tv->nlines ? tv->line[k + 1] : tv->len;
			if (b > a && tv->buf[b - 1] == '\n')
				b--;
			text_line(u, 1 + i, tv->buf + a, b - a, tv->left);
		}
	}
	draw_bottom(u, keys);
}

/* Scrolling keys of a text view; 1 when KEY was one. */
static int text_key(struct textview *tv, int key)
{
	size_t page = (size_t)(text_rows() > 1 ? text_rows() - 1 : 1);
	size_t total = tv->nlines + (size_t)tv->cut;

	switch (key) {
	case KEY_UP: case 'k': if (tv->top) tv->top--; return 1;
	case KEY_DOWN: case 'j': if (tv->top + 1 < total) tv->top++; return 1;
	case KEY_PPAGE: tv->top = tv->top > page ? tv->top - page : 0; return 1;
	case KEY_NPAGE: case ' ': tv->top += page; if (tv->top >= total) tv->top = total ? total - 1 : 0; return 1;
	case KEY_HOME: case 'g': tv->top = 0; tv->left = 0; return 1;
	case KEY_END: case 'G': tv->top = total; return 1;
	case KEY_LEFT: case 'h': tv->left = tv->left > 8 ? tv->left - 8 : 0; return 1;
	case KEY_RIGHT: case 'l': tv->left += 8; return 1;
	default: return 0;
	}
}

/* ---- the pages picture ---- */

static void pic_close(struct picture *p)
{
	pmaps_pages_close(p->pg);
	pmaps_proc_close(p->proc);
	p->pg = NULL;
	p->proc = NULL;
	p->n = 0;
	p->names_len = 0;
	p->c_width = 0;
	p->top = 0;
}

/* Keeps mapping M (its name escaped). Returns 0 or -ENOMEM. */
static int pic_add(struct picture *p, const struct pmaps_mapping *m)
{
	char e[160];
	size_t n;

	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 256;
		struct pmapping *a = realloc(p->m, cap * sizeof(*a));
		if (!a)
			return -ENOMEM;
		p->m = a;
		p->cap = cap;
	}
	if (m->path.len)
		n = esc_text(e, sizeof(e), m->path.ptr, m->path.len);
	else
		n = (size_t)snprintf(e, sizeof(e), "[%s]", pmaps_kind_name(m->kind));
	if (p->names_len + n > p->names_cap) {
		size_t cap = p->names_cap ? p->names_cap * 2 : 16384;
		char *a;
		while (cap < p->names_len + n)
			cap *= 2;
		if (!(a = realloc(p->names, cap)))
			return -ENOMEM;
		p->names = a;
		p->names_cap = cap;
	}
	memcpy(p->names + p->names_len, e, n);
	p->m[p->n] = (struct pmapping){m->start, m->end, (uint32_t)p->names_len, (uint32_t)n,
	                               m->kind};
	p->names_len += n;
	p->n++;
	return 0;
}

/* The process's mappings (the maps text: no page walk), and a page cursor. */
static void load_pages(struct tui *u)
{
	struct picture *p = &u->pic;
	struct pmaps_maps *c = NULL;
	const struct pmaps_mapping *m;
	int err;

	pic_close(p);
	p->err[0] = '\0';
	p->sampled = 0;
	p->page_size = (unsigned)sysconf(_SC_PAGESIZE);
	if (open_proc(u, &p->proc, p->err, sizeof(p->err)) < 0)
		return;
	err = pmaps_pages_open(&p->pg, p->proc, PMAPS_PAGES_AUTO, 0);
	if (err < 0) {
		snprintf(p->err, sizeof(p->err), "process %d: %s%s", u->pid,
		         p->pg && pmaps_pages_errmsg(p->pg)[0] ? pmaps_pages_errmsg(p->pg)
		                                               : pmaps_strerror(err),
		         privilege(err));
		return;
	}
	err = pmaps_maps_open(&c, p->proc, PMAPS_SRC_MAPS, 0);
	while (err == 0 && (err = pmaps_maps_next(c, &m)) > 0)
		if ((err = pic_add(p, m)) == 0)
			err = 0;
	if (err < 0 && err != -ENODATA)
		snprintf(p->err, sizeof(p->err), "process %d: %s%s", u->pid,
		         c && pmaps_maps_errmsg(c)[0] ? pmaps_maps_errmsg(c) : pmaps_strerror(err),
		         privilege(err));
	pmaps_maps_close(c);
}

/* Cells of mapping M in WIDTH: one per page when it has fewer. */
static size_t pic_ncells(const struct picture *p, const struct pmapping *m, size_t width)
{
	uint64_t pages = (m->end - m->start) / p->page_size;

	return pages < width ? (size_t)pages : width;
}

/* Walks the mappings on screen into cells: ROWS from P->top, WIDTH cells each. */
static void pic_compute(struct picture *p, size_t rows, size_t width)
{
	uint64_t n_state[PMAPS_PS_COUNT];

	if (p->c_width == width && p->c_top == p->top && p->c_rows == rows)
		return;
	if (rows * width > p->cells_cap) {
		unsigned char *a = realloc(p->cells, rows * width);
		if (!a) {
			p->c_width = 0;
			return;
		}
		p->cells = a;
		p->cells_cap = rows * width;
	}
	for (size_t r = 0; r < rows && p->top + r < p->n; r++) {
		const struct pmapping *m = &p->m[p->top + r];
		uint64_t pages = (m->end - m->start) / p->page_size;
		size_t n = pic_ncells(p, m, width);

		for (size_t i = 0; i < n; i++) {
			uint64_t a = m->start + pages * i / n * p->page_size;
			uint64_t b = m->start + pages * (i + 1) / n * p->page_size;
			unsigned char *cell = &p->cells[r * width + i];

			if (p->pg && pmaps_pages_strategy(p->pg) == PMAPS_PAGES_PAGEMAP &&
			    (b - a) / p->page_size > CELL_SAMPLE_PAGES) {
				b = a + (uint64_t)CELL_SAMPLE_PAGES * p->page_size;
				p->sampled = 1;
			}
			if (!p->pg || pmaps_pages_states(p->pg, a, b, m->kind, n_state) < 0)
				*cell = CS_ERR;
			else
				*cell = (unsigned char)pmaps_page_state_dominant(n_state);
		}
	}
	p->c_width = width;
	p->c_top = p->top;
	p->c_rows = rows;
}

static void draw_pages(struct tui *u)
{
	struct picture *p = &u->pic;
	int rows = LINES - 4, name_w = COLS >= 100 ? 24 : 16, addr = COLS >= 100;
	int bar_x = name_w + 1 + 6 + 1 + (addr ? 13 : 0), width = COLS - bar_x;
	char b[128];

	draw_title(u, "pages");
	if (p->err[0]) {
		ink_on(u, CP_DENIED, A_BOLD);
		put_target(u, 2, 0, COLS, p->err, strlen(p->err));
		ink_off(u, CP_DENIED, A_BOLD);
	}
	if (rows > 0 && width > 0 && !p->err[0]) {
		if (p->n > (size_t)rows && p->top > p->n - (size_t)rows)
			p->top = p->n - (size_t)rows;
		if (p->n <= (size_t)rows)
			p->top = 0;
		pic_compute(p, (size_t)rows, (size_t)width);
		for (int r = 0; r < rows && p->top + (size_t)r < p->n; r++) {
			const struct pmapping *m = &p->m[p->top + (size_t)r];
			size_t n = pic_ncells(p, m, (size_t)width);
			int x = 0;

			if (addr) {
				snprintf(b, sizeof(b), "%012llx", (unsigned long long)m->start);
				puts_at(u, 1 + r, 0, 12, b);
				x = 13;
			}
			put_tail(u, 1 + r, x, name_w, p->names + m->name, m->name_len);
			fmt_human(b, m->end - m->start);
			put_right(u, 1 + r, x + name_w + 1, 6, b);
			for (size_t i = 0; i < n && p->c_width; i++) {
				unsigned c = p->cells[(size_t)r * (size_t)width + i];

				ink_on(u, cell_look[c].pair, 0);
				mvaddch(1 + r, bar_x + (int)i, (chtype)cell_look[c].ch);
				ink_off(u, cell_look[c].pair, 0);
			}
		}
	}
	/* The legend. */
	{
		int x = 0, y = LINES - 2;

		move(y, 0);
		for (size_t i = 0; i < sizeof(legend_states) / sizeof(legend_states[0]) && x < COLS;
		     i++) {
			enum pmaps_page_state k = legend_states[i];
			char ch[2] = {cell_look[k].ch, '\0'};

			ink_on(u, cell_look[k].pair, 0);
			x += puts_at(u, y, x, COLS - x, ch);
			ink_off(u, cell_look[k].pair, 0);
			x += puts_at(u, y, x, COLS - x, " ");
			x += puts_at(u, y, x, COLS - x, cell_look[k].name);
			x += puts_at(u, y, x, COLS - x, "  ");
		}
		puts_at(u, y, x, COLS - x, p->sampled ? "(a cell: most of its first 8M)"
		                                      : "(a cell: most of its pages)");
	}
	draw_bottom(u, " Esc back  e explain  m mappings  arrows scroll  q quit");
}

static int pages_key(struct tui *u, int key)
{
	struct picture *p = &u->pic;
	size_t page = LINES > 6 ? (size_t)LINES - 5 : 1;

	switch (key) {
	case KEY_UP: case 'k': if (p->top) p->top--; return 1;
	case KEY_DOWN: case 'j': if (p->top + 1 < p->n) p->top++; return 1;
	case KEY_PPAGE: p->top = p->top > page ? p->top - page : 0; return 1;
	case KEY_NPAGE: case ' ': p->top += page; if (p->top >= p->n) p->top = p->n ? p->n - 1 : 0; return 1;
	case KEY_HOME: case 'g': p->top = 0; return 1;
	case KEY_END: case 'G': p->top = p->n; return 1;
	default: return 0;
	}
}

/* ---- help ---- */

static const char help_text[] =
	"pmaps top: every process ranked by what its memory really costs\n"
	"\n"
	"Columns\n"
	"  RSS     resident pages (status VmRSS): shared pages count in every process\n"
	"  PSS     proportional set size: each shared page divided among its sharers\n"
	"  USS     pages no other process maps: what its exit would free\n"
	"  Swap    swapped out (status VmSwap)\n"
	"  Source  where PSS and USS came from: rollup (smaps_rollup), pages (the\n"
	"          gentle page walk, for large processes), status (none: RSS only)\n"
	"  Age     how old PSS and USS are, when not read in this refresh (they are\n"
	"          read again when status moves, or after --max-age)\n"
	"  M       D denied (another user's process: RSS from status only),\n"
	"          F failed (smaps_rollup or the walk unreadable: older figures or none),\n"
	"          S skipped (the refresh's budget ran out: older figures or none),\n"
	"          L large (walked gently), P partial (no PSS without CAP_SYS_ADMIN)\n"
	"  Procs   a group's processes;  Cgroup  its cgroup v2 path; a figure with\n"
	"          + is the sum over the processes that had it: at least this much\n"
	"\n"
	"The list\n"
	"  Up Down PgUp PgDn Home End   move the selection\n"
	"  Enter    drill into the process (a group: show its processes)\n"
	"  N C R P U S   sort by PID, command, RSS, PSS, USS, swap\n"
	"  < >      sort by the column left or right;  r  reverse the order\n"
	"  /        filter: a regular expression on the command, or user:NAME;\n"
	"           an empty filter shows everything again\n"
	"  u        group by user (again: ungroup);  c  group by cgroup\n"
	"  Esc      leave a group drilled into, or drop the filter\n"
	"  Space    refresh now;  q  quit;  ?  this help\n"
	"\n"
	"A process\n"
	"  Enter    its explain report: where the RSS is, by category\n"
	"  m        its mappings (smaps);  p  its pages as a picture: one line per\n"
	"           mapping, each cell a span of its pages in the state most of them are\n"
	"           in (# anon, = file, H huge, s swapped, 0 zero page, . not present)\n"
	"  e        back to explain;  Esc  back one level;  q  quit\n"
	"  arrows, PgUp, PgDn, Home, End scroll; Left and Right scroll tables sideways\n";

/* ---- drilling down ---- */

static void push(struct tui *u, enum view v)
{
	if (u->stack[u->depth] == v)
		return;
	if (u->depth + 1 < DEPTH_MAX)
		u->depth++;
	u->stack[u->depth] = v;
	if (v != V_HELP) {
		/* A large process's smaps takes a while: say what the wait is for. */
		char b[80];

		snprintf(b, sizeof(b), v == V_EXPLAIN ? " reading process %d (and its runtime's books) ..."
		                                      : " reading process %d ...", u->pid);
		move(LINES - 1, 0);
		clrtoeol();
		puts_at(u, LINES - 1, 0, COLS, b);
		wnoutrefresh(stdscr);
		doupdate();
	}
	switch (v) {
	case V_EXPLAIN: load_explain(u); break;
	case V_MAPS: load_maps(u); break;
	case V_PAGES: load_pages(u); break;
	case V_HELP: text_set(&u->help, help_text); break;
	case V_LIST: break;
	}
}

static void pop(struct tui *u)
{
	if (u->stack[u->depth] == V_PAGES)
		pic_close(&u->pic);
	if (u->depth > 0)
		u->depth--;
	/* A view that was left for another shows what it showed (the pages picture is read again). */
	if (u->stack[u->depth] == V_PAGES)
		load_pages(u);
}

/* Enter on the selected line: a process's explain, or a group's processes. */
static void drill(struct tui *u)
{
	struct top *t = u->t;
	const struct top_line *l;

	if (u->sel >= t->nlines)
		return;
	l = &t->lines[u->sel];
	if (l->row) {
		u->pid = l->row->pid;
		esc_text(u->comm, sizeof(u->comm), l->row->comm.ptr, l->row->comm.len);
		push(u, V_EXPLAIN);
		return;
	}
	u->drilled_from = t->o.group;
	if (t->o.group == TOP_GROUP_USER) {
		t->o.have_uid = 1;
		t->o.uid = l->uid;
	} else {
		size_t n = l->cgroup.len < sizeof(u->cgroup) - 1 ? l->cgroup.len : sizeof(u->cgroup) - 1;
		memcpy(u->cgroup, l->cgroup.ptr, n);
		u->cgroup[n] = '\0';
		t->o.cgroup = u->cgroup;
	}
	t->o.group = TOP_GROUP_NONE;
	u->drilled_group = 1;
	u->sel = u->first = 0;
	u->sel_pid = 0;
	u->sel_key_len = 0;
	top_select(t);
	remember(u);
}

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
	reselect(u);
}

/* Applies the filter typed at the prompt. */
static void apply_filter(struct tui *u)
{
	struct top *t = u->t;
	char err[200];
	const char *s = u->input;

	u->input[u->input_len] = '\0';
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
	reselect(u);
}

static void prompt_key(struct tui *u, int key)
{
	switch (key) {
	case 27: /* Esc: the filter as it was */
		u->prompting = 0;
		return;
	case '\n': case '\r': case KEY_ENTER:
		u->prompting = 0;
		apply_filter(u);
		return;
	case KEY_BACKSPACE: case 127: case 8:
		/* One character, not one byte. */
		while (u->input_len > 0 && ((unsigned char)u->input[--u->input_len] & 0xc0) == 0x80)
			;
		return;
	default:
		if (key >= 32 && key < 256 && key != 127 && u->input_len + 1 < sizeof(u->input))
			u->input[u->input_len++] = (char)key;
	}
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
	reselect(u);
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
	remember(u);
}

/* A key in the list. Returns 1 to quit. */
static int list_key(struct tui *u, int key)
{
	struct top *t = u->t;
	size_t page = (size_t)(u->list_h > 1 ? u->list_h - 1 : 1);
	switch (key) {
	case 'q': case 'Q': return 1;
	case KEY_UP: case 'k': if (u->sel) u->sel--; break;
	case KEY_DOWN: case 'j': if (u->sel + 1 < t->nlines) u->sel++; break;
	case KEY_PPAGE: u->sel = u->sel > page ? u->sel - page : 0; break;
	case KEY_NPAGE: u->sel = u->sel + page < t->nlines ? u->sel + page : t->nlines ? t->nlines - 1 : 0; break;
	case KEY_HOME: u->sel = 0; break;
	case KEY_END: u->sel = t->nlines ? t->nlines - 1 : 0; break;
	case '\n': case '\r': case KEY_ENTER: drill(u); return 0;
	case '/':
		u->prompting = 1;
		u->input_len = strlen(u->filter) < sizeof(u->input) ? strlen(u->filter) : 0;
		memcpy(u->input, u->filter, u->input_len);
		return 0;
	case 27: list_back(u); return 0;
	case '<': sort_step(u, -1); return 0;
	case '>': sort_step(u, 1); return 0;
	case 'r': t->o.ascending = !t->o.ascending; top_select(t); reselect(u); return 0;
	case 'N': sort_by(u, COL_PID); return 0;
	case 'C': sort_by(u, COL_COMMAND); return 0;
	case 'R': sort_by(u, COL_SV0 + PMAPS_SV_RSS); return 0;
	case 'P': sort_by(u, COL_SV0 + PMAPS_SV_PSS); return 0;
	case 'U': sort_by(u, COL_SV0 + PMAPS_SV_USS); return 0;
	case 'S': sort_by(u, COL_SV0 + PMAPS_SV_SWAP); return 0;
	case 'u': group_toggle(u, TOP_GROUP_USER); return 0;
	case 'c': group_toggle(u, TOP_GROUP_CGROUP); return 0;
	case ' ': u->next_refresh = 0; return 0;
	case '?': push(u, V_HELP); return 0;
	default: return 0;
	}
	remember(u);
	return 0;
}

/* A key in a drill-down view. Returns 1 to quit. */
static int drill_key(struct tui *u, int key)
{
	enum view v = u->stack[u->depth];

	switch (key) {
	case 'q': case 'Q': return 1;
	case 27: case KEY_BACKSPACE: pop(u); return 0;
	case '?': push(u, V_HELP); return 0;
	default: break;
	}
	if (v == V_HELP)
		return text_key(&u->help, key), 0;
	switch (key) {
	case 'e': push(u, V_EXPLAIN); return 0;
	case 'm': push(u, V_MAPS); return 0;
	case 'p': push(u, V_PAGES); return 0;
	default: break;
	}
	if (v == V_EXPLAIN)
		text_key(&u->explain, key);
	else if (v == V_MAPS)
		text_key(&u->maps, key);
	else if (v == V_PAGES)
		pages_key(u, key);
	return 0;
}

static void draw(struct tui *u)
{
	erase();
	if (LINES < 8 || COLS < 40) {
		puts_at(u, 0, 0, COLS, "pmaps top: the terminal is too small (40x8 at least)");
	} else {
		switch (u->stack[u->depth]) {
		case V_LIST: draw_list(u); break;
		case V_EXPLAIN:
			draw_text(u, &u->explain, "explain", u->explain_err,
			          " Esc back  m mappings  p pages  arrows scroll  q quit  ? help");
			break;
		case V_MAPS:
			draw_text(u, &u->maps, "mappings", u->maps_err,
			          " Esc back  e explain  p pages  arrows scroll  q quit  ? help");
			break;
		case V_PAGES: draw_pages(u); break;
		case V_HELP:
			draw_text(u, &u->help, "help", NULL, " Esc back  arrows scroll  q quit");
			break;
		}
	}
	wnoutrefresh(stdscr);
	doupdate();
}

static void colors(struct tui *u)
{
	if (!u->color)
		return;
	start_color();
	use_default_colors();
	init_pair(CP_TITLE, COLOR_BLACK, COLOR_CYAN);
	init_pair(CP_SELECT, COLOR_BLACK, COLOR_GREEN);
	init_pair(CP_VALUE, COLOR_CYAN, -1);
	init_pair(CP_WARN, COLOR_YELLOW, -1);
	init_pair(CP_DENIED, COLOR_RED, -1);
	init_pair(CP_ANON, COLOR_BLACK, COLOR_RED);
	init_pair(CP_FILE, COLOR_BLACK, COLOR_BLUE);
	init_pair(CP_HUGE, COLOR_BLACK, COLOR_MAGENTA);
	init_pair(CP_SWAP, COLOR_BLACK, COLOR_YELLOW);
	init_pair(CP_ZERO, COLOR_BLACK, COLOR_CYAN);
	init_pair(CP_NONE_PG, -1, -1);
	init_pair(CP_SHMEM, COLOR_BLACK, COLOR_GREEN);
	init_pair(CP_LAZY, COLOR_BLACK, COLOR_WHITE);
}

static void tui_free(struct tui *u)
{
	struct textview *tv[] = {&u->explain, &u->maps, &u->help};

	for (size_t i = 0; i < sizeof(tv) / sizeof(tv[0]); i++) {
		free(tv[i]->buf);
		free(tv[i]->line);
	}
	pic_close(&u->pic);
	free(u->pic.m);
	free(u->pic.names);
	free(u->pic.cells);
}

/*
 * Stderr into a memory file while curses owns the terminal: a message
 * written there (a failed refresh says why) would land in the middle of the
 * screen and vanish with it. Returns the saved stderr, or -1 (then stderr
 * is left alone).
 */
static int hold_stderr(int *mem)
{
	int saved;

	*mem = memfd_create("pmaps-top-stderr", MFD_CLOEXEC);
	if (*mem < 0)
		return -1;
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	if (saved < 0 || dup2(*mem, STDERR_FILENO) < 0) {
		if (saved >= 0)
			close(saved);
		close(*mem);
		*mem = -1;
		return -1;
	}
	return saved;
}

/* Stderr back, and what was held written to it. */
static void release_stderr(int saved, int mem)
{
	char b[4096];
	off_t at = 0;
	ssize_t n;

	if (saved < 0)
		return;
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	while ((n = pread(mem, b, sizeof(b), at)) > 0) {
		if (write(STDERR_FILENO, b, (size_t)n) < 0)
			break;
		at += n;
	}
	close(mem);
}

int top_tui_run(struct top *t)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	struct sigaction sa, old[3];
	struct tui *u;
	SCREEN *scr;
	int rc = EXIT_OK, saved, mem = -1;
	const uint64_t delay_ns = (uint64_t)(t->o.delay_s * 1e9);

	if (curses_dl_load("top's live view") < 0)
		return EXIT_FAIL;
	if ((rc = top_refresh(t)) != 0)
		return rc;
	if (!(u = calloc(1, sizeof(*u)))) {
		die_msg("out of memory");
		return EXIT_FAIL;
	}
	u->t = t;
	u->orig = t->o;
	u->stack[0] = V_LIST;
	setlocale(LC_CTYPE, "");
	u->utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;

	/*
	 * Ours before curses starts, so that it installs none for them (its
	 * own would exit from the handler); a signal the caller ignores (nohup)
	 * stays ignored.
	 */
	stop_sig = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < 3; i++) {
		sigaction(sigs[i], NULL, &old[i]);
		if (old[i].sa_handler != SIG_IGN)
			sigaction(sigs[i], &sa, NULL);
	}
	saved = hold_stderr(&mem);

	/* newterm(), not initscr(): initscr() exits on a terminal it does not know. */
	if (!(scr = newterm(NULL, stdout, stdin))) {
		release_stderr(saved, mem);
		die_msg("top: cannot start the terminal view on TERM=%s (try --once)",
		        getenv("TERM") ? getenv("TERM") : "");
		rc = EXIT_FAIL;
		goto out;
	}
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	u->color = t->o.color && has_colors();
	colors(u);
	u->next_refresh = now_ns() + delay_ns;
	reselect(u);

	while (!stop_sig) {
		uint64_t now = now_ns();
		int key, wait_ms;

		/*
		 * Only the list refreshes (a drill-down view is one reading), and
		 * whenever it is due, keys or not: a held key never starves it.
		 */
		if (u->stack[u->depth] == V_LIST && now >= u->next_refresh) {
			if ((rc = top_refresh(t)) != 0)
				break;
			reselect(u);
			now = now_ns();
			u->next_refresh = now + delay_ns;
		}
		draw(u);
		wait_ms = u->next_refresh > now ? (int)((u->next_refresh - now) / 1000000u) + 1 : 0;
		timeout(u->stack[u->depth] == V_LIST ? wait_ms : -1);
		key = getch();
		if (stop_sig)
			break;
		if (key == ERR)
			continue;
		if (key == KEY_RESIZE) {
			u->pic.c_width = 0;
			continue;
		}
		if (key == 12) { /* ^L: everything again */
			clearok(curscr, TRUE);
			continue;
		}
		u->msg[0] = '\0';
		if (u->prompting)
			prompt_key(u, key);
		else if (u->stack[u->depth] == V_LIST ? list_key(u, key) : drill_key(u, key))
			break;
	}
	endwin();
	delscreen(scr);
	release_stderr(saved, mem);
	if (stop_sig && rc == EXIT_OK)
		rc = 128 + stop_sig;
out:
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &old[i], NULL);
	tui_free(u);
	free(u);
	return rc;
}
