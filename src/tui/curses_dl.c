/* SPDX-License-Identifier: MIT */
/*
 * curses_dl.c - ncursesw opened for the live views (curses_dl.h).
 */
#define CURSES_DL_TABLE 1
#include "common/dl.h"
#include "tui/curses_dl.h"

DL_NOTE(curses_dl_note, "[{\"feature\":\"tui\",\"description\":\"the live views of top and "
                        "phys\",\"priority\":\"recommended\",\"soname\":[\"libncursesw.so.6\"]}]");

struct curses_dl curses_dl;

static struct dl_lib curses_dl_lib = {
	.soname = "libncursesw.so.6", .package = "libncursesw6",
};

static const struct dl_sym curses_dl_syms[] = {
#define CURSES_DL_SYM(f) DL_SYM(curses_dl, f),
	CURSES_DL_FUNCS(CURSES_DL_SYM)
	CURSES_DL_VARS(CURSES_DL_SYM)
#undef CURSES_DL_SYM
};

int curses_dl_load(const char *who)
{
	if (dl_load(&curses_dl_lib, curses_dl_syms,
	            sizeof(curses_dl_syms) / sizeof(curses_dl_syms[0])) < 0) {
		dl_missing(who, &curses_dl_lib);
		return -1;
	}
	return 0;
}
