/* SPDX-License-Identifier: MIT */
/*
 * phys_tui.h - pmaps phys's live picture (phys_tui.c).
 */
#ifndef PMAPS_PHYS_TUI_H
#define PMAPS_PHYS_TUI_H

#include <signal.h>
#include <stdint.h>

#include "pmaps.h"

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
