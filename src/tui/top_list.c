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

static void draw_line(struct tui *u, int y, const struct top_line *l, const int shown[LC_N],
                      const int x[LC_N], int cmd_w, int selected)
{
	const struct pmaps_survey_row *r = l->row;
	static const int figs[] = {LC_RSS, LC_PSS, LC_USS, LC_SWAP};
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
		int lc = figs[i], got;
		uint64_t v = 0;

		if (!shown[lc])
			continue;
		got = w_proc_value(lcols[lc].col, l, &v);
		fig(b, v, got != 0);
		/* A group's sum over only the processes that had the figure: at least this. */
		if (got == 2)
			strcat(b, "+");
		tui_put_right(u, y, x[lc], lcols[lc].width, b);
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
		tui_put_target(u, y, x[LC_CMD], cmd_w, r->comm.ptr, r->comm.len);
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
	if (u->prompting) {
		int x = tui_puts_at(u, y, 0, COLS, "filter (command regex, or user:NAME): ");
		char e[1024];
		size_t n = esc_text(e, sizeof(e), u->input, u->input_len);
		int w = tui_put(u, y, x, COLS - x - 1, e, n);
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
	layout(COLS, shown, x, &cmd_w);
	/* The headings; the sort column's in bold and underlined. */
	attron(tui_bar(u, CP_TITLE));
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
			tui_puts_at(u, y, x[i], i == LC_CMD ? cmd_w : lcols[i].width, title);
		else
			tui_put_right(u, y, x[i], lcols[i].width, title);
		if (sorted)
			attroff(A_BOLD | A_UNDERLINE);
	}
	attroff(tui_bar(u, CP_TITLE));
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
		tui_puts_at(u, y, 0, COLS, u->filter[0] ? "  no process matches the filter"
		                                     : "  no process to show");
	tui_draw_bottom(u, t->o.group == TOP_GROUP_NONE
	                   ? " q quit  Enter explain  / filter  u user  c cgroup  sort NCRPUS < > r  ? help"
	                   : " q quit  Enter its processes  / filter  u user  c cgroup  sort < > r  ? help");
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
	tui_reselect(u);
}

void tui_prompt_key(struct tui *u, int key)
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
	case KEY_UP: case 'k': if (u->sel) u->sel--; break;
	case KEY_DOWN: case 'j': if (u->sel + 1 < t->nlines) u->sel++; break;
	case KEY_PPAGE: u->sel = u->sel > page ? u->sel - page : 0; break;
	case KEY_NPAGE: u->sel = u->sel + page < t->nlines ? u->sel + page : t->nlines ? t->nlines - 1 : 0; break;
	case KEY_HOME: u->sel = 0; break;
	case KEY_END: u->sel = t->nlines ? t->nlines - 1 : 0; break;
	case '\n': case '\r': case KEY_ENTER: tui_drill(u); return 0;
	case '/':
		u->prompting = 1;
		u->input_len = strlen(u->filter) < sizeof(u->input) ? strlen(u->filter) : 0;
		memcpy(u->input, u->filter, u->input_len);
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
	case 'u': group_toggle(u, TOP_GROUP_USER); return 0;
	case 'c': group_toggle(u, TOP_GROUP_CGROUP); return 0;
	case ' ': u->next_refresh = 0; return 0;
	case '?': tui_push(u, V_HELP); return 0;
	default: return 0;
	}
	tui_remember(u);
	return 0;
}
