/* SPDX-License-Identifier: MIT */
/*
 * phys.h - what pmaps phys's files share (cmd_phys.c, phys_tui.c): each
 * physical page state's words and colours, and the live view.
 */
#ifndef PMAPS_PHYS_H
#define PMAPS_PHYS_H

#include <signal.h>
#include <stdint.h>

#include "pmaps.h"

/* How a state is shown: its words, its SVG colour, its terminal colours. */
struct phys_style {
	const char *what;  /* a few words for the table and the legend */
	const char *svg;   /* "#rrggbb" (svg.h's palette where it has the state) */
	short c256;        /* with 256 colours: an xterm colour seen on dark and light */
	short c8;          /* with fewer than 256 colours: COLOR_*, never black (the
	                      character tells states that share one apart) */
	char ch;           /* without colour: the character a cell shows */
};
extern const struct phys_style phys_styles[PMAPS_PHYS_COUNT];

/*
 * The state a picture's cell of blocks [FIRST, FIRST + N) of R shows: the
 * one most of the cell's frames are in (the blocks' counts per state added
 * up). A tie: the tied states in turn, by the cell's number (FIRST / N), so
 * evenly mixed memory shows both, not always the earlier state.
 */
unsigned phys_cell_state(const struct pmaps_phys_result *r, uint64_t first, uint64_t n);

/*
 * The live view: reads P every INTERVAL_NS and draws the picture, the
 * legend and the counts until q, a signal or a failed read. P is opened
 * with &phys_tui_cancel as its cancel flag. ROOT names the
 * proc root in messages (NULL: /proc); COLOR 0 for NO_COLOR. Returns an
 * exit code.
 */
/*
 * The live view's cancel flag: pmaps_phys_opts.cancel of the handle given to
 * phys_tui_run() (q and its signal handlers set it).
 */
extern volatile sig_atomic_t phys_tui_cancel;

int phys_tui_run(struct pmaps_phys *p, const char *root, uint64_t interval_ns, int color);

#endif
