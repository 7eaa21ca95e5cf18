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
 * The screens are files of their own (tui.h): the list (top_list.c), the
 * text screens (top_text.c), the pages picture (top_pages.c); this file
 * sets the terminal up once, keeps the stack of screens and runs the loop.
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
#include "common/num.h"
#include "common/tool.h"
#include "survey/top.h"
#include "tui/curses_dl.h"
#include "tui/top_tui.h"
#include "tui/tui.h"

/* ---- the terminal ---- */

static volatile sig_atomic_t stop_sig;

static void on_stop(int sig)
{
	stop_sig = sig;
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
	"  F6       sort by any figure (vsize, anon, file, shmem, ...): a menu; a\n"
	"           figure no column shows gets a column while the list is sorted by it\n"
	"  < >      sort by the column left or right;  r  reverse the order\n"
	"  F4 /     filter, applied as you type: a regular expression on the command,\n"
	"           or user:NAME (at Enter); Esc puts the filter back as it was;\n"
	"           an empty filter shows everything again\n"
	"  F3       search: the selection goes to the next command holding the text\n"
	"           (F3 again: the one after)\n"
	"  mouse    a heading sorts by it (again: reverses); a line selects it, twice\n"
	"           drills into it; the wheel moves the selection\n"
	"  F9 k     pmaps only reads: it sends no signal (it says so)\n"
	"  t F5     the process tree: each process under its parent, its RSS, PSS,\n"
	"           USS and swap summed with its descendants' (again: the list)\n"
	"  a        the command line instead of the command's name (again: the name);\n"
	"           escaped, as every byte a process chose\n"
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
	"  arrows, PgUp, PgDn, Home, End scroll; Left and Right scroll tables sideways\n"
	"           (a line with text left of the view begins with <, one cut at the\n"
	"           right edge ends with >)\n";

/* ---- drilling down ---- */

void tui_push(struct tui *u, enum view v)
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
		tui_puts_at(u, LINES - 1, 0, COLS, b);
		wnoutrefresh(stdscr);
		doupdate();
	}
	switch (v) {
	case V_EXPLAIN: tui_load_explain(u); break;
	case V_MAPS: tui_load_maps(u); break;
	case V_PAGES: tui_load_pages(u); break;
	case V_HELP: tui_text_set(&u->help, help_text); break;
	case V_LIST: break;
	}
}

static void pop(struct tui *u)
{
	if (u->stack[u->depth] == V_PAGES)
		tui_pic_close(&u->pic);
	if (u->depth > 0)
		u->depth--;
	/* A view that was left for another shows what it showed (the pages picture is read again). */
	if (u->stack[u->depth] == V_PAGES)
		tui_load_pages(u);
}

/* Enter on the selected line: a process's explain, or a group's processes. */
void tui_drill(struct tui *u)
{
	struct top *t = u->t;
	const struct top_line *l;

	if (u->sel >= t->nlines)
		return;
	l = &t->lines[u->sel];
	if (l->row) {
		u->pid = l->row->pid;
		esc_text(u->comm, sizeof(u->comm), l->row->comm.ptr, l->row->comm.len);
		tui_push(u, V_EXPLAIN);
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
	tui_remember(u);
}

/* A key in a drill-down view. Returns 1 to quit. */
static int drill_key(struct tui *u, int key)
{
	enum view v = u->stack[u->depth];

	switch (key) {
	case 'q': case 'Q': return 1;
	case 27: case KEY_BACKSPACE: pop(u); return 0;
	case '?': tui_push(u, V_HELP); return 0;
	default: break;
	}
	if (v == V_HELP)
		return tui_text_key(&u->help, key), 0;
	switch (key) {
	case 'e': tui_push(u, V_EXPLAIN); return 0;
	case 'm': tui_push(u, V_MAPS); return 0;
	case 'p': tui_push(u, V_PAGES); return 0;
	default: break;
	}
	if (v == V_EXPLAIN)
		tui_text_key(&u->explain, key);
	else if (v == V_MAPS)
		tui_text_key(&u->maps, key);
	else if (v == V_PAGES)
		tui_pages_key(u, key);
	return 0;
}

static void draw(struct tui *u)
{
	erase();
	if (LINES < 8 || COLS < 40) {
		tui_puts_at(u, 0, 0, COLS, "pmaps top: the terminal is too small (40x8 at least)");
	} else {
		switch (u->stack[u->depth]) {
		case V_LIST: tui_draw_list(u); break;
		case V_EXPLAIN:
			tui_draw_text(u, &u->explain, "explain", u->explain_err,
			              " Esc back  m mappings  p pages  Up/Down Left/Right scroll  q quit  ? help");
			break;
		case V_MAPS:
			tui_draw_text(u, &u->maps, "mappings", u->maps_err,
			              " Esc back  e explain  p pages  Up/Down Left/Right scroll  q quit  ? help");
			break;
		case V_PAGES: tui_draw_pages(u); break;
		case V_HELP:
			tui_draw_text(u, &u->help, "help", NULL, " Esc back  arrows scroll  q quit");
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
	tui_pic_close(&u->pic);
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
	/* htop's mouse: a heading sorts, a line is selected (twice: drilled into), the wheel moves. */
	mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON1_DOUBLE_CLICKED | BUTTON4_PRESSED |
	          BUTTON5_PRESSED, NULL);
	curs_set(0);
	set_escdelay(25);
	u->color = t->o.color && has_colors();
	colors(u);
	u->next_refresh = now_ns() + delay_ns;
	tui_reselect(u);

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
			tui_reselect(u);
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
			tui_prompt_key(u, key);
		else if (u->stack[u->depth] == V_LIST ? tui_list_key(u, key) : drill_key(u, key))
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
