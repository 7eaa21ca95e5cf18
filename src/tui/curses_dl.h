/* SPDX-License-Identifier: MIT */
/*
 * curses_dl.h - ncursesw for the live views, opened when one starts
 * (common/dl.h): include it after <curses.h>. Each ncurses function and
 * variable the views use is named below once; the #defines that follow
 * turn the views' calls (and the ones curses.h's macros expand to: move()
 * is wmove(stdscr, ...)) into calls through the table curses_dl.c fills.
 * A function the views start to use and this list lacks fails the link:
 * the tool is not linked with ncurses.
 */
#ifndef PMAPS_CURSES_DL_H
#define PMAPS_CURSES_DL_H

#include <curses.h>

#define CURSES_DL_FUNCS(F)                                                                   \
	F(cbreak) F(clearok) F(curs_set) F(delscreen) F(doupdate) F(endwin) F(has_colors)         \
	F(getmouse) F(init_pair) F(keypad) F(mousemask) F(newterm) F(noecho) F(nonl)             \
	F(set_escdelay) F(setcchar)                                                               \
	F(start_color) F(use_default_colors) F(wadd_wch) F(waddch) F(waddnstr) F(wattr_off)       \
	F(wattr_on) F(werase) F(wgetch) F(wmove) F(wnoutrefresh) F(wtimeout) F(wclrtoeol)         \
	F(whline)
#define CURSES_DL_VARS(V) V(COLORS) V(COLOR_PAIRS) V(COLS) V(LINES) V(curscr) V(stdscr)

struct curses_dl {
#define CURSES_DL_MEMBER(f) __typeof__(&f) f;
	CURSES_DL_FUNCS(CURSES_DL_MEMBER)
	CURSES_DL_VARS(CURSES_DL_MEMBER)
#undef CURSES_DL_MEMBER
};
extern struct curses_dl curses_dl;

/*
 * Opens ncursesw (once) and fills the table. Returns 0, or -1 once it said
 * in one line that WHO needs the library and which Debian package has it.
 */
int curses_dl_load(const char *who);

/* curses_dl.c itself names the library's own symbols. */
#ifndef CURSES_DL_TABLE
#define cbreak (*curses_dl.cbreak)
#define clearok (*curses_dl.clearok)
#define curs_set (*curses_dl.curs_set)
#define delscreen (*curses_dl.delscreen)
#define doupdate (*curses_dl.doupdate)
#define endwin (*curses_dl.endwin)
#define has_colors (*curses_dl.has_colors)
#define getmouse (*curses_dl.getmouse)
#define init_pair (*curses_dl.init_pair)
#define keypad (*curses_dl.keypad)
#define mousemask (*curses_dl.mousemask)
#define newterm (*curses_dl.newterm)
#define noecho (*curses_dl.noecho)
#define nonl (*curses_dl.nonl)
#define set_escdelay (*curses_dl.set_escdelay)
#define setcchar (*curses_dl.setcchar)
#define start_color (*curses_dl.start_color)
#define use_default_colors (*curses_dl.use_default_colors)
#define wadd_wch (*curses_dl.wadd_wch)
#define waddch (*curses_dl.waddch)
#define waddnstr (*curses_dl.waddnstr)
#define wattr_off (*curses_dl.wattr_off)
#define wattr_on (*curses_dl.wattr_on)
#define werase (*curses_dl.werase)
#define wgetch (*curses_dl.wgetch)
#define wmove (*curses_dl.wmove)
#define wnoutrefresh (*curses_dl.wnoutrefresh)
#define wtimeout (*curses_dl.wtimeout)
#define wclrtoeol (*curses_dl.wclrtoeol)
#define whline (*curses_dl.whline)
#undef COLORS
#undef COLOR_PAIRS
#undef COLS
#undef LINES
#undef curscr
#undef stdscr
#define COLORS (*curses_dl.COLORS)
#define COLOR_PAIRS (*curses_dl.COLOR_PAIRS)
#define COLS (*curses_dl.COLS)
#define LINES (*curses_dl.LINES)
#define curscr (*curses_dl.curscr)
#define stdscr (*curses_dl.stdscr)
#endif

#endif
