/* SPDX-License-Identifier: MIT */
/*
 * phys.h - how pmaps phys shows each physical page state (phys_style.c):
 * its words and colours, in the table, the SVG and the live view.
 */
#ifndef PMAPS_PHYS_H
#define PMAPS_PHYS_H

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

#endif
