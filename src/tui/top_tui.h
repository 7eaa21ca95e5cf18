/* SPDX-License-Identifier: MIT */
/*
 * top_tui.h - pmaps top's live terminal view (top_tui.c).
 */
#ifndef PMAPS_TOP_TUI_H
#define PMAPS_TOP_TUI_H

#include "survey/top.h"

/*
 * Runs the view over T until the user quits; returns an exit code (1 with
 * one line when ncursesw cannot be loaded).
 */
int top_tui_run(struct top *t);

#endif
