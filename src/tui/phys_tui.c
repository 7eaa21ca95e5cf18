/* SPDX-License-Identifier: MIT */
/*
 * phys_tui.c - pmaps phys's live picture (ncurses): the whole of physical
 * memory, refreshed every --interval, with the legend and the counts.
 *
 * The picture is a grid of half-cells read left to right, top to bottom,
 * each row headed by its physical address where the window is wide enough:
 * each terminal cell shows two of them with U+2580 (upper half block), its
 * foreground the upper half-cell's colour and its background the lower's.
 * A half-cell shows one or more blocks (as many as it takes for every block
 * to fit the window): the state most of their frames are in (the blocks'
 * counts per state added up). Without a UTF-8 locale a cell is one
 * half-cell, a space with its state's colour as the background. With fewer
 * than 256 colours (TERM=xterm, screen, tmux) eight colours cannot tell 18
 * states apart: a cell is one half-cell showing its state's character in its
 * colour, never black. Without colour (NO_COLOR, or a terminal without it)
 * the character alone. The legend says which character is which state.
 *
 * Colour pairs are made on first use, one per (upper, lower) pair of
 * colours, up to what the terminal has; with 256 colours each state has the
 * hand-picked colour of phys_styles (seen on dark and light terminals).
 *
 * The layout gives way on a small terminal (draw()): the legend in as many
 * columns as fit; header lines shortened by whole clauses, the flags line by
 * whole flags; then the flags line, the blank line and the block line go so
 * that the map keeps MAP_MIN_ROWS rows; below that one line says the terminal
 * is too small, until it grows (KEY_RESIZE) or q.
 *
 * A reading runs in a thread of its own while this one watches the keys:
 * q, like SIGINT, SIGTERM and SIGHUP, sets the reading's cancel flag
 * (pmaps_phys_opts.cancel, phys_tui_cancel), so it ends within one chunk
 * of frames instead of after the whole of memory.
 * The screen is redrawn from data each pass (erase, draw, one doupdate):
 * curses sends only what changed. Keys wait with a timeout that ends when
 * the next reading is due. SIGINT, SIGTERM and SIGHUP end the loop, which
 * restores the terminal, as q and a failed reading do.
 */
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wchar.h>

#include "common/num.h"
#include "common/tool.h"
#include "tui/curses_dl.h"
#include "tui/phys_tui.h"
#include "write/phys.h"

static volatile sig_atomic_t stop_sig;
volatile sig_atomic_t phys_tui_cancel;

static void on_stop(int sig)
{
	stop_sig = sig;
	phys_tui_cancel = 1;
}

#define PAIRS_MAX 1024

struct ptui {
	int color, utf8;
	int chars;  /* fewer than 256 colours: a character per state, in its colour */
	int quit;   /* q during a reading */
	short scolor[PMAPS_PHYS_COUNT]; /* the state's terminal colour */
	/* Pairs made so far: (fg, bg) -> pair number (index + 1). */
	short pf[PAIRS_MAX], pb[PAIRS_MAX];
	int npairs, max_pairs;
	uint64_t refreshes;
	uint64_t interval_ns;
};

/* The pair for FG on BG, made on first use; 0 when the terminal has no more. */
static short pair_of(struct ptui *u, short fg, short bg)
{
	for (int i = 0; i < u->npairs; i++)
		if (u->pf[i] == fg && u->pb[i] == bg)
			return (short)(i + 1);
	if (u->npairs >= u->max_pairs)
		return 0;
	u->pf[u->npairs] = fg;
	u->pb[u->npairs] = bg;
	init_pair((short)(u->npairs + 1), fg, bg);
	return (short)(++u->npairs);
}

static void setup_colors(struct ptui *u)
{
	if (!u->color)
		return;
	start_color();
	use_default_colors();
	u->max_pairs = COLOR_PAIRS - 1 < PAIRS_MAX ? COLOR_PAIRS - 1 : PAIRS_MAX;
	u->chars = COLORS < 256;
	for (unsigned s = 0; s < PMAPS_PHYS_COUNT; s++)
		u->scolor[s] = COLORS >= 256 ? phys_styles[s].c256 : phys_styles[s].c8;
}

/* Text at (Y, X), cut at the window's edge. Our own bytes only (keys, numbers, words). */
static void put(int y, int x, const char *s)
{
	int room = COLS - x;

	if (y < 0 || y >= LINES || room <= 0)
		return;
	mvaddnstr(y, x, s, room);
}

/* One cell: UPPER over LOWER (-1: nothing below). */
static void cell(struct ptui *u, int y, int x, int upper, int lower)
{
	if (u->color && u->chars) {
		/* The character tells the state, the colour (on the default background) helps. */
		short pr = pair_of(u, u->scolor[upper], -1);
		attron(COLOR_PAIR(pr) | A_BOLD);
		mvaddch(y, x, (chtype)(unsigned char)phys_styles[upper].ch);
		attroff(COLOR_PAIR(pr) | A_BOLD);
	} else if (u->color && !u->utf8) {
		/* No half block (one half-cell a cell): the state as the background of a space. */
		short pr = pair_of(u, u->scolor[upper], u->scolor[upper]);
		attron(COLOR_PAIR(pr));
		mvaddch(y, x, ' ');
		attroff(COLOR_PAIR(pr));
	} else if (u->color) {
		short bg = lower >= 0 ? u->scolor[lower] : -1;
		short pr = pair_of(u, u->scolor[upper], bg);
		cchar_t c;
		wchar_t w[2] = {0x2580, 0};
		if (!pr) /* out of pairs: the upper state alone */
			pr = pair_of(u, u->scolor[upper], u->scolor[upper]);
		attron(COLOR_PAIR(pr));
		setcchar(&c, w, 0, pr, NULL);
		mvadd_wch(y, x, &c);
		attroff(COLOR_PAIR(pr));
	} else {
		mvaddch(y, x, (chtype)(unsigned char)phys_styles[upper].ch);
	}
}

/* A legend swatch for state S. */
static void swatch(struct ptui *u, int y, int x, unsigned s)
{
	if (u->color && u->chars) {
		char b[3] = {phys_styles[s].ch, ' ', 0};
		short pr = pair_of(u, u->scolor[s], -1);
		attron(COLOR_PAIR(pr) | A_BOLD);
		mvaddstr(y, x, b);
		attroff(COLOR_PAIR(pr) | A_BOLD);
	} else if (u->color) {
		short pr = pair_of(u, u->scolor[s], u->scolor[s]);
		attron(COLOR_PAIR(pr));
		mvaddstr(y, x, "  ");
		attroff(COLOR_PAIR(pr));
	} else {
		char b[3] = {phys_styles[s].ch, ' ', 0};
		mvaddstr(y, x, b);
	}
}

/* A legend entry: swatch, " key  size  share" (2 + 26), and the gap after it. */
#define LEGEND_W 28
#define LEGEND_GAP 2
#define MAP_MIN_ROWS 3 /* fewer: the terminal is too small */
#define GUTTER 7       /* a row's address: 6 characters and a space */

/*
 * The first of the N texts in ALTS (longest first) that fits the width at
 * row Y; none: the last, cut at a space. Never a word cut in two.
 */
static void put_fit(int y, const char *const *alts, int n)
{
	const char *s = alts[n - 1];
	int i, cut;

	for (i = 0; i < n; i++)
		if ((int)strlen(alts[i]) <= COLS) {
			put(y, 0, alts[i]);
			return;
		}
	for (cut = COLS; cut > 0 && s[cut] != ' '; cut--)
		;
	if (cut > 0)
		mvaddnstr(y, 0, s, cut);
}

/*
 * Row labels: the row's first address, truncated (never past the row's
 * start) in the coarsest of K, M, G, T with no or one decimal in which rows
 * STEP bytes apart get different labels and the largest, TOP, fits the
 * gutter; where none does, the finest that fits, and a row whose label is
 * its predecessor's shows none.
 */
struct labelfmt {
	int unit; /* 10, 20, 30, 40: the shift */
	int dec;
};

static size_t label(char *b, uint64_t bytes, struct labelfmt f)
{
	uint64_t whole = bytes >> f.unit, rest = bytes & ((1ull << f.unit) - 1);
	char u = "KMGT"[f.unit / 10 - 1];
	int n;

	if (!bytes)
		n = snprintf(b, 32, "0");
	else if (f.dec)
		n = snprintf(b, 32, "%llu.%llu%c", (unsigned long long)whole,
		             (unsigned long long)(rest * 10 >> f.unit), u);
	else
		n = snprintf(b, 32, "%llu%c", (unsigned long long)whole, u);
	return n > 0 ? (size_t)n : 0;
}

static struct labelfmt label_fmt(uint64_t step, uint64_t top)
{
	struct labelfmt f = {10, 1}, best = {10, 1};
	char b[32];

	for (int unit = 40; unit >= 10; unit -= 10) {
		for (int dec = 0; dec <= 1; dec++) {
			f.unit = unit;
			f.dec = dec;
			if (label(b, top, f) > GUTTER - 1)
				continue;
			best = f; /* the finest that fits, so far */
			/* Truncated: rows a unit (a tenth) apart differ in it. */
			if (dec ? step * 10 >= (1ull << unit) : step >= (1ull << unit))
				return f;
		}
	}
	return best;
}

static void draw(struct ptui *u, const struct pmaps_phys_result *r)
{
	unsigned shown[PMAPS_PHYS_COUNT] = {0}, nshown = 0;
	int gutter, width, rows_used, lcols, lrows, pic_top, pic_rows, halves, flags_line, gap, head2;
	uint64_t pixels, per, used, step_bytes;
	struct labelfmt lf;
	char line[512], b1[32], b2[32], last[32] = "";
	char h[3][256], cellw[128];
	const char *alts[4];

	erase();
	for (unsigned s = 0; s < PMAPS_PHYS_COUNT; s++)
		if (r->state[s])
			shown[nshown++] = s;
	/* The legend in as many columns as fit (the last needs no gap after it). */
	lcols = (COLS + LEGEND_GAP) / (LEGEND_W + LEGEND_GAP);
	if (lcols > (int)nshown)
		lcols = nshown ? (int)nshown : 1;
	if (lcols < 1)
		lcols = 1;
	lrows = (int)(nshown + (unsigned)lcols - 1) / lcols;
	/*
	 * Lines: header, the block line, the map, a gap, the legend, the flags.
	 * Short of lines, the flags go first, then the gap, then the block
	 * line; short even then, or narrower than a legend entry, one line says so.
	 */
	flags_line = LINES >= 2 + MAP_MIN_ROWS + 1 + lrows + 1;
	gap = LINES >= 2 + MAP_MIN_ROWS + 1 + lrows;
	head2 = LINES >= 2 + MAP_MIN_ROWS + lrows;
	pic_top = 1 + head2;
	pic_rows = LINES - pic_top - gap - lrows - flags_line;
	if (pic_rows < MAP_MIN_ROWS || COLS < LEGEND_W) {
		snprintf(line, sizeof(line), "pmaps phys: %dx%d is too small for the map and the "
		         "legend; q quits", COLS, LINES);
		snprintf(h[0], sizeof(h[0]), "pmaps phys: %dx%d is too small; q quits", COLS, LINES);
		alts[0] = line;
		alts[1] = h[0];
		put_fit(0, alts, 2);
		wnoutrefresh(stdscr);
		doupdate();
		return;
	}

	fmt_human(b1, pmaps_phys_bytes(r, r->pages));
	snprintf(h[0], sizeof(h[0]), "pmaps phys: %s in %llu frames, read in %llu ms, reading %llu, "
	         "every %.2gs; q quits", b1, (unsigned long long)r->pages,
	         (unsigned long long)(r->read_ns / 1000000u), (unsigned long long)u->refreshes,
	         (double)u->interval_ns / 1e9);
	snprintf(h[1], sizeof(h[1]), "pmaps phys: %s, read in %llu ms, reading %llu; q quits", b1,
	         (unsigned long long)(r->read_ns / 1000000u), (unsigned long long)u->refreshes);
	snprintf(h[2], sizeof(h[2]), "%s, reading %llu; q quits", b1,
	         (unsigned long long)u->refreshes);
	alts[0] = h[0];
	alts[1] = h[1];
	alts[2] = h[2];
	attron(A_BOLD);
	put_fit(0, alts, 3);
	attroff(A_BOLD);

	/* A gutter with each row's physical address where there is room. */
	gutter = COLS >= 40 ? GUTTER : 0;
	width = COLS - gutter;
	halves = u->utf8 && u->color && !u->chars ? 2 : 1;
	pixels = (uint64_t)pic_rows * (uint64_t)halves * (uint64_t)width;
	per = r->blocks / pixels + (r->blocks % pixels != 0);
	if (per == 0)
		per = 1;
	used = r->blocks / per + (r->blocks % per != 0);
	if (head2) {
		const char *what = halves == 2 ? "A half cell:" : "A cell:";
		fmt_human(b2, pmaps_phys_bytes(r, r->block_pages * per));
		snprintf(cellw, sizeof(cellw), "%s %s (%llu block%s of %llu frames)", what, b2,
		         (unsigned long long)per, per == 1 ? "" : "s",
		         (unsigned long long)r->block_pages);
		snprintf(h[0], sizeof(h[0]), "%s, row by row from address 0, in the colour of the "
		         "state most of its frames are in", cellw);
		snprintf(h[1], sizeof(h[1]), "%s, row by row from address 0", cellw);
		snprintf(h[2], sizeof(h[2]), "%s %s", what, b2);
		alts[0] = h[0];
		alts[1] = h[1];
		alts[2] = cellw;
		alts[3] = h[2];
		put_fit(1, alts, 4);
	}
	/* The legend right below the rows the map takes, not the rows it may take. */
	rows_used = (int)((used + (uint64_t)halves * (uint64_t)width - 1) /
	                  ((uint64_t)halves * (uint64_t)width));
	if (rows_used > pic_rows)
		rows_used = pic_rows;
	step_bytes = pmaps_phys_bytes(r, (uint64_t)halves * (uint64_t)width * per * r->block_pages);
	lf = label_fmt(step_bytes, pmaps_phys_bytes(r, r->pages));
	/* Terminal row ROW shows pixel rows ROW * HALVES (upper) and the next (lower). */
	for (int row = 0; row < pic_rows; row++) {
		uint64_t first = (uint64_t)row * (uint64_t)halves * (uint64_t)width;
		if (first >= used)
			break;
		if (gutter) {
			char a[32];
			size_t n = label(a, pmaps_phys_bytes(r, first * per * r->block_pages), lf);
			if (n < (size_t)gutter && strcmp(a, last) != 0)
				put(pic_top + row, gutter - 1 - (int)n, a);
			memcpy(last, a, n + 1);
		}
		for (int col = 0; col < width; col++) {
			uint64_t top_px = first + (uint64_t)col, low_px = top_px + (uint64_t)width;
			int lo = -1;
			if (top_px >= used)
				break;
			if (halves == 2 && low_px < used)
				lo = (int)phys_cell_state(r, low_px * per, per);
			cell(u, pic_top + row, gutter + col, (int)phys_cell_state(r, top_px * per, per),
			     lo);
		}
	}

	for (unsigned i = 0; i < nshown; i++) {
		unsigned s = shown[i];
		int x = (int)(i % (unsigned)lcols) * (LEGEND_W + LEGEND_GAP);
		int yy = pic_top + rows_used + gap + (int)(i / (unsigned)lcols);
		char pct[24];
		fmt_human(b1, pmaps_phys_bytes(r, r->state[s]));
		fmt_percent(pct, r->state[s], r->pages);
		swatch(u, yy, x, s);
		snprintf(line, sizeof(line), " %-11s %6s %6s", pmaps_phys_state_key(s), b1, pct);
		put(yy, x + 2, line);
	}
	if (flags_line) {
		/* Whole flags only, as many as fit. */
		size_t n = 0;
		for (unsigned f = 0; f < PMAPS_PHYS_F_COUNT && n < sizeof(line) - 64; f++) {
			int k;
			if (!(r->flags_known & (1ull << f)))
				continue;
			fmt_human(b1, pmaps_phys_bytes(r, r->flag[f]));
			k = snprintf(line + n, sizeof(line) - n, "%s%s %s", n ? "  " : "",
			             pmaps_phys_flag_key(f), b1);
			if (k < 0 || n + (size_t)k > (size_t)COLS) {
				line[n] = '\0';
				break;
			}
			n += (size_t)k;
		}
		put(LINES - 1, 0, line);
	}
	wnoutrefresh(stdscr);
	doupdate();
}

/* A reading in a thread of its own, while the keys are watched. */
struct job {
	struct pmaps_phys *p;
	const struct pmaps_phys_result *r;
	int err;
	int done; /* __atomic */
};

static void *job_main(void *arg)
{
	struct job *j = arg;

	j->err = pmaps_phys_read(j->p, &j->r);
	__atomic_store_n(&j->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * A reading while the screen is up: q (and a signal, through its handler)
 * cancels it within one chunk. Without a thread to be had, read here.
 */
static int read_watching(struct ptui *u, struct pmaps_phys *p, const struct pmaps_phys_result **r)
{
	struct job j = {p, NULL, 0, 0};
	pthread_t th;

	if (pthread_create(&th, NULL, job_main, &j) != 0)
		return pmaps_phys_read(p, r);
	timeout(20);
	while (!__atomic_load_n(&j.done, __ATOMIC_ACQUIRE)) {
		int key = getch();
		if (key == 'q' || key == 'Q') {
			u->quit = 1;
			phys_tui_cancel = 1;
		}
	}
	pthread_join(th, NULL);
	*r = j.r;
	return j.err;
}

int phys_tui_run(struct pmaps_phys *p, const char *root, uint64_t interval_ns, int color)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	struct sigaction sa, old[3];
	struct ptui u;
	const struct pmaps_phys_result *r = NULL;
	SCREEN *scr;
	int rc = EXIT_OK, err = 0;
	uint64_t next;

	if (curses_dl_load("phys's live view") < 0)
		return EXIT_FAIL;
	memset(&u, 0, sizeof(u));
	u.interval_ns = interval_ns;
	/* The handlers first: a signal cancels the first reading too. */
	stop_sig = 0;
	phys_tui_cancel = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < 3; i++) {
		sigaction(sigs[i], NULL, &old[i]);
		if (old[i].sa_handler != SIG_IGN)
			sigaction(sigs[i], &sa, NULL);
	}
	if ((err = pmaps_phys_read(p, &r)) < 0) {
		if (err == -EINTR && stop_sig) {
			rc = 128 + stop_sig;
			goto out;
		}
		goto failed_restored;
	}
	u.refreshes = 1;
	setlocale(LC_CTYPE, "");
	u.utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	/* newterm(), not initscr(): initscr() exits on a terminal it does not know. */
	if (!(scr = newterm(NULL, stdout, stdin))) {
		die_msg("phys: cannot start the terminal view on TERM=%s (try --summary)",
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
	u.color = color && has_colors();
	setup_colors(&u);
	next = now_ns() + interval_ns;

	while (!stop_sig) {
		uint64_t now = now_ns();
		int key, wait_ms;

		if (now >= next) {
			if ((err = read_watching(&u, p, &r)) < 0)
				break;
			u.refreshes++;
			now = now_ns();
			next = now + interval_ns;
		}
		if (u.quit)
			break;
		draw(&u, r);
		/* NEXT - NOW <= --interval <= 1 day: fits an int of milliseconds. */
		wait_ms = next > now ? (int)((next - now) / 1000000u) + 1 : 0;
		timeout(wait_ms);
		key = getch();
		if (stop_sig)
			break;
		if (key == 'q' || key == 'Q')
			break;
		if (key == 12 || key == KEY_RESIZE) /* ^L, a new size: everything again */
			clearok(curscr, TRUE);
	}
	endwin();
	delscreen(scr);
	if (err == -EINTR && (stop_sig || u.quit))
		err = 0; /* cancelled by q or a signal: no failure */
	if (err < 0)
		goto failed_restored;
	if (stop_sig)
		rc = 128 + stop_sig;
out:
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &old[i], NULL);
	return rc;
failed_restored:
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &old[i], NULL);
	if (root)
		die_msg("phys: %s (proc root %s)", pmaps_phys_errmsg(p), root);
	else
		die_msg("phys: %s", pmaps_phys_errmsg(p));
	return EXIT_FAIL;
}
