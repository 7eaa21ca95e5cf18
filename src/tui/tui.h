/* SPDX-License-Identifier: MIT */
/*
 * tui.h - what the files of pmaps top's live view share (the htop habit:
 * one file per screen): the view's state, the text and picture screens'
 * buffers, and the calls between the screens. top_tui.c sets the terminal
 * up once and runs the loop; top_list.c, top_text.c and top_pages.c are
 * the screens; tui_draw.c the drawing they share. Include after
 * tui/curses_dl.h.
 */
#ifndef PMAPS_TUI_H
#define PMAPS_TUI_H

#include <stddef.h>
#include <stdint.h>

#include "pmaps.h"
#include "survey/top.h"
#include "tui/curses_dl.h"

/* ---- the terminal ---- */

/* Colour pairs. */
enum {
	CP_NONE,
	CP_TITLE,   /* the column headings */
	CP_SELECT,  /* the selected line */
	CP_VALUE,   /* header figures */
	CP_WARN,    /* markers: old, skipped, partial */
	CP_DENIED,  /* denied processes, errors */
	CP_ANON, CP_FILE, CP_HUGE, CP_SWAP, CP_ZERO, CP_NONE_PG, /* page states */
	CP_SHMEM, CP_LAZY,
	CP_COUNT
};

/* ---- text views: a writer's table in memory, a screenful at a time ---- */

#define TEXT_CAP (8u << 20) /* a maps table of about 60k mappings */

struct textview {
	char *buf;
	size_t len;
	int cut;               /* the sink filled: the table goes on */
	size_t *line;          /* offsets of the lines' starts */
	size_t nlines, linecap;
	size_t top, left;      /* the first line shown, columns scrolled right */
};

/* ---- the pages picture ---- */

/*
 * A cell's state: the one most of its pages are in, by the library's one
 * classification of pages (enum pmaps_page_state,
 * pmaps_page_state_dominant()), or CS_ERR when its pages could not be read.
 */
#define CS_ERR PMAPS_PS_COUNT

struct pmapping {
	uint64_t start, end;
	uint32_t name, name_len; /* the escaped name in the picture's NAMES */
	enum pmaps_kind kind;
};

struct picture {
	struct pmapping *m;
	size_t n, cap;
	char *names;
	size_t names_len, names_cap;
	struct pmaps_proc *proc;
	struct pmaps_pages *pg;
	unsigned page_size;
	size_t top;
	/* The cells of the mappings on screen, computed when what is on screen changes. */
	unsigned char *cells;
	size_t cells_cap;
	size_t c_top, c_rows, c_width; /* what CELLS holds; c_width 0: nothing */
	int sampled;                   /* a cell was read in part (pagemap, a large span) */
	char err[256];
};

/*
 * The most pages one cell reads with the pagemap reader (8 bytes a page,
 * every page read): 8 MiB of address space. Without PAGEMAP_SCAN (before
 * Linux 6.7), a 64 GiB sparse region or a sanitizer's terabytes of shadow
 * would otherwise stall the view for seconds; such a cell shows its first
 * pages, and the legend says so. PAGEMAP_SCAN skips what is not populated
 * and reads every page.
 */
#define CELL_SAMPLE_PAGES 2048

/* ---- the view ---- */

enum view { V_LIST, V_EXPLAIN, V_MAPS, V_PAGES, V_HELP };
#define DEPTH_MAX 8

/* What the bottom line asks for. */
enum prompt { PROMPT_NONE, PROMPT_FILTER, PROMPT_SEARCH, PROMPT_SORT };

struct tui {
	struct top *t;
	struct top_opts orig;     /* the options as given: what Esc returns to */
	int color, utf8;
	enum view stack[DEPTH_MAX];
	int depth;                /* stack[depth] is on screen */
	/* the list */
	size_t sel, first;
	int sel_pid;              /* the selected process (0: a group, or none) */
	char sel_key[256];        /* the selected group's key */
	size_t sel_key_len;
	uint64_t next_refresh;
	int drilled_group;        /* the list is one group of the grouped list: Esc returns */
	int drilled_from;         /* the grouping it came from */
	char cgroup[4096];        /* the cgroup drilled into (t->o.cgroup points here) */
	char filter[256];         /* the filter as typed */
	/* the prompt: a filter (/ or F4, applied as typed), a search (F3), the sort menu (F6) */
	int prompting;            /* enum prompt */
	char input[256];
	size_t input_len;
	char filter_was[256];     /* the filter when the prompt opened: what Esc puts back */
	int input_bad;            /* the filter typed so far is no regular expression yet */
	int menu;                 /* the sort menu's choice: an index into the sort keys */
	/* where the list was drawn, for the mouse: the headings' row, the first line's */
	int head_y, list_y;
	int cmdline;              /* the command column shows the command line (a), not the name */
	int hit_n;                /* the headings: columns HIT_COL[i] from HIT_X[i], HIT_W[i] wide */
	int hit_col[24], hit_x[24], hit_w[24];
	char msg[256];            /* one line for the user (a bad filter), until the next key */
	int list_h;               /* the lines the list showed */
	/* the process drilled into */
	int pid;
	char comm[80];            /* escaped */
	struct textview explain, maps, help;
	char explain_err[512], maps_err[512];
	struct picture pic;
};

/* ---- tui_draw.c ---- */
attr_t tui_bar(const struct tui *u, int pair);
void tui_ink_off(const struct tui *u, int pair, attr_t a);
void tui_ink_on(const struct tui *u, int pair, attr_t a);
int tui_put(const struct tui *u, int y, int x, int maxw, const char *s, size_t n);
void tui_put_right(const struct tui *u, int y, int x, int width, const char *s);
int tui_put_tail(const struct tui *u, int y, int x, int maxw, const char *s, size_t n);
int tui_put_target(const struct tui *u, int y, int x, int maxw, const char *s, size_t n);
int tui_puts_at(const struct tui *u, int y, int x, int maxw, const char *s);

/* ---- top_list.c ---- */
void tui_draw_bottom(struct tui *u, const char *keys);
void tui_draw_list(struct tui *u);
int tui_list_key(struct tui *u, int key);
void tui_prompt_key(struct tui *u, int key);
void tui_remember(struct tui *u);
void tui_reselect(struct tui *u);

/* ---- top_text.c ---- */
void tui_draw_text(struct tui *u, struct textview *tv, const char *what, const char *err,
                   const char *keys);
void tui_draw_title(struct tui *u, const char *what);
void tui_load_explain(struct tui *u);
void tui_load_maps(struct tui *u);
int tui_open_proc(struct tui *u, struct pmaps_proc **proc, char *err, size_t errsz);
const char *tui_privilege(int err);
int tui_text_key(struct textview *tv, int key);
void tui_text_set(struct textview *tv, const char *s);

/* ---- top_pages.c ---- */
void tui_draw_pages(struct tui *u);
void tui_load_pages(struct tui *u);
int tui_pages_key(struct tui *u, int key);
void tui_pic_close(struct picture *p);

/* ---- top_tui.c ---- */
void tui_drill(struct tui *u);
void tui_push(struct tui *u, enum view v);

#endif
