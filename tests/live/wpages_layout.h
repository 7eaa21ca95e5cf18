/* SPDX-License-Identifier: MIT */
/*
 * wpages_layout.h - the layout wpages_target.c builds and test_watch_pages.c
 * asserts on: offsets and sizes in pages inside one PROT_NONE reservation.
 */
#ifndef PMAPS_WPAGES_LAYOUT_H
#define PMAPS_WPAGES_LAYOUT_H

#define RES_PAGES 4480
#define A_OFF 16
#define A_PAGES 64
#define B_OFF 100
#define B_PAGES 8
#define C_OFF 130
#define C_PAGES 10
#define D_OFF 160
#define D_PAGES 16
/* X and Y touch: two files, so the kernel keeps them two mappings. */
#define X_OFF 200
#define X_PAGES 4
#define Y_OFF (X_OFF + X_PAGES)
#define Y_PAGES 4
/* E: anonymous, every other page touched on 'e': E_PAGES / 2 separate runs. */
#define E_OFF 256
#define E_PAGES 4096

#endif
