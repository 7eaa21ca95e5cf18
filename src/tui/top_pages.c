/* SPDX-License-Identifier: MIT */
/*
 * top_pages.c - the live top's picture of a process's pages: one line per
 * mapping, each cell the state most of its pages are in.
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

/* ---- the pages picture ---- */

static const struct {
	char ch;
	int pair;
	const char *name;
} cell_look[PMAPS_PS_COUNT + 1] = {
	[PMAPS_PS_ABSENT] = {'.', CP_NONE_PG, "not present"},
	[PMAPS_PS_ANON] = {'#', CP_ANON, "anon"},
	[PMAPS_PS_SHARED] = {'+', CP_ANON, "anon mapped 2+ times"},
	[PMAPS_PS_FILE] = {'=', CP_FILE, "file"},
	[PMAPS_PS_SHMEM] = {'~', CP_SHMEM, "shmem"},
	[PMAPS_PS_HUGE] = {'H', CP_HUGE, "huge"},
	[PMAPS_PS_LAZYFREE] = {'l', CP_LAZY, "lazily freed"},
	[PMAPS_PS_ZERO] = {'0', CP_ZERO, "zero page"},
	[PMAPS_PS_SWAPPED] = {'s', CP_SWAP, "swapped"},
	[CS_ERR] = {'?', CP_DENIED, "not read"},
};
/* The legend: the states this view's reader sees (no kpageflags: no lazyfree or shared). */
static const enum pmaps_page_state legend_states[] = {
	PMAPS_PS_ANON, PMAPS_PS_FILE, PMAPS_PS_SHMEM, PMAPS_PS_HUGE, PMAPS_PS_SWAPPED,
	PMAPS_PS_ZERO, PMAPS_PS_ABSENT,
};

void tui_pic_close(struct picture *p)
{
	pmaps_pages_close(p->pg);
	pmaps_proc_close(p->proc);
	p->pg = NULL;
	p->proc = NULL;
	p->n = 0;
	p->names_len = 0;
	p->c_width = 0;
	p->top = 0;
}

/* Keeps mapping M (its name escaped). Returns 0 or -ENOMEM. */
static int pic_add(struct picture *p, const struct pmaps_mapping *m)
{
	char e[160];
	size_t n;

	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 256;
		struct pmapping *a = realloc(p->m, cap * sizeof(*a));
		if (!a)
			return -ENOMEM;
		p->m = a;
		p->cap = cap;
	}
	if (m->path.len)
		n = esc_text(e, sizeof(e), m->path.ptr, m->path.len);
	else
		n = (size_t)snprintf(e, sizeof(e), "[%s]", pmaps_kind_name(m->kind));
	if (p->names_len + n > p->names_cap) {
		size_t cap = p->names_cap ? p->names_cap * 2 : 16384;
		char *a;
		while (cap < p->names_len + n)
			cap *= 2;
		if (!(a = realloc(p->names, cap)))
			return -ENOMEM;
		p->names = a;
		p->names_cap = cap;
	}
	memcpy(p->names + p->names_len, e, n);
	p->m[p->n] = (struct pmapping){m->start, m->end, (uint32_t)p->names_len, (uint32_t)n,
	                               m->kind};
	p->names_len += n;
	p->n++;
	return 0;
}

/* The process's mappings (the maps text: no page walk), and a page cursor. */
void tui_load_pages(struct tui *u)
{
	struct picture *p = &u->pic;
	struct pmaps_maps *c = NULL;
	const struct pmaps_mapping *m;
	int err;

	tui_pic_close(p);
	p->err[0] = '\0';
	p->sampled = 0;
	p->page_size = (unsigned)sysconf(_SC_PAGESIZE);
	if (tui_open_proc(u, &p->proc, p->err, sizeof(p->err)) < 0)
		return;
	err = pmaps_pages_open(&p->pg, p->proc, PMAPS_PAGES_AUTO, 0);
	if (err < 0) {
		snprintf(p->err, sizeof(p->err), "process %d: %s%s", u->pid,
		         p->pg && pmaps_pages_errmsg(p->pg)[0] ? pmaps_pages_errmsg(p->pg)
		                                               : pmaps_strerror(err),
		         tui_privilege(err));
		return;
	}
	err = pmaps_maps_open(&c, p->proc, PMAPS_SRC_MAPS, 0);
	while (err == 0 && (err = pmaps_maps_next(c, &m)) > 0)
		if ((err = pic_add(p, m)) == 0)
			err = 0;
	if (err < 0 && err != -ENODATA)
		snprintf(p->err, sizeof(p->err), "process %d: %s%s", u->pid,
		         c && pmaps_maps_errmsg(c)[0] ? pmaps_maps_errmsg(c) : pmaps_strerror(err),
		         tui_privilege(err));
	pmaps_maps_close(c);
}

/* Cells of mapping M in WIDTH: one per page when it has fewer. */
static size_t pic_ncells(const struct picture *p, const struct pmapping *m, size_t width)
{
	uint64_t pages = (m->end - m->start) / p->page_size;

	return pages < width ? (size_t)pages : width;
}

/* Walks the mappings on screen into cells: ROWS from P->top, WIDTH cells each. */
static void pic_compute(struct picture *p, size_t rows, size_t width)
{
	uint64_t n_state[PMAPS_PS_COUNT];

	if (p->c_width == width && p->c_top == p->top && p->c_rows == rows)
		return;
	if (rows * width > p->cells_cap) {
		unsigned char *a = realloc(p->cells, rows * width);
		if (!a) {
			p->c_width = 0;
			return;
		}
		p->cells = a;
		p->cells_cap = rows * width;
	}
	for (size_t r = 0; r < rows && p->top + r < p->n; r++) {
		const struct pmapping *m = &p->m[p->top + r];
		uint64_t pages = (m->end - m->start) / p->page_size;
		size_t n = pic_ncells(p, m, width);

		for (size_t i = 0; i < n; i++) {
			uint64_t a = m->start + pages * i / n * p->page_size;
			uint64_t b = m->start + pages * (i + 1) / n * p->page_size;
			unsigned char *cell = &p->cells[r * width + i];

			if (p->pg && pmaps_pages_strategy(p->pg) == PMAPS_PAGES_PAGEMAP &&
			    (b - a) / p->page_size > CELL_SAMPLE_PAGES) {
				b = a + (uint64_t)CELL_SAMPLE_PAGES * p->page_size;
				p->sampled = 1;
			}
			if (!p->pg || pmaps_pages_states(p->pg, a, b, m->kind, n_state) < 0)
				*cell = CS_ERR;
			else
				*cell = (unsigned char)pmaps_page_state_dominant(n_state);
		}
	}
	p->c_width = width;
	p->c_top = p->top;
	p->c_rows = rows;
}

void tui_draw_pages(struct tui *u)
{
	struct picture *p = &u->pic;
	int rows = LINES - 4, name_w = COLS >= 100 ? 24 : 16, addr = COLS >= 100;
	int bar_x = name_w + 1 + 6 + 1 + (addr ? 13 : 0), width = COLS - bar_x;
	char b[128];

	tui_draw_title(u, "pages");
	if (p->err[0]) {
		tui_ink_on(u, CP_DENIED, A_BOLD);
		tui_put_target(u, 2, 0, COLS, p->err, strlen(p->err));
		tui_ink_off(u, CP_DENIED, A_BOLD);
	}
	if (rows > 0 && width > 0 && !p->err[0]) {
		if (p->n > (size_t)rows && p->top > p->n - (size_t)rows)
			p->top = p->n - (size_t)rows;
		if (p->n <= (size_t)rows)
			p->top = 0;
		pic_compute(p, (size_t)rows, (size_t)width);
		for (int r = 0; r < rows && p->top + (size_t)r < p->n; r++) {
			const struct pmapping *m = &p->m[p->top + (size_t)r];
			size_t n = pic_ncells(p, m, (size_t)width);
			int x = 0;

			if (addr) {
				snprintf(b, sizeof(b), "%012llx", (unsigned long long)m->start);
				tui_puts_at(u, 1 + r, 0, 12, b);
				x = 13;
			}
			tui_put_tail(u, 1 + r, x, name_w, p->names + m->name, m->name_len);
			fmt_human(b, m->end - m->start);
			tui_put_right(u, 1 + r, x + name_w + 1, 6, b);
			for (size_t i = 0; i < n && p->c_width; i++) {
				unsigned c = p->cells[(size_t)r * (size_t)width + i];

				tui_ink_on(u, cell_look[c].pair, 0);
				mvaddch(1 + r, bar_x + (int)i, (chtype)cell_look[c].ch);
				tui_ink_off(u, cell_look[c].pair, 0);
			}
		}
	}
	/* The legend. */
	{
		int x = 0, y = LINES - 2;

		move(y, 0);
		for (size_t i = 0; i < sizeof(legend_states) / sizeof(legend_states[0]) && x < COLS;
		     i++) {
			enum pmaps_page_state k = legend_states[i];
			char ch[2] = {cell_look[k].ch, '\0'};

			tui_ink_on(u, cell_look[k].pair, 0);
			x += tui_puts_at(u, y, x, COLS - x, ch);
			tui_ink_off(u, cell_look[k].pair, 0);
			x += tui_puts_at(u, y, x, COLS - x, " ");
			x += tui_puts_at(u, y, x, COLS - x, cell_look[k].name);
			x += tui_puts_at(u, y, x, COLS - x, "  ");
		}
		tui_puts_at(u, y, x, COLS - x, p->sampled ? "(a cell: most of its first 8M)"
		                                      : "(a cell: most of its pages)");
	}
	tui_draw_bottom(u, " Esc back  e explain  m mappings  arrows scroll  q quit");
}

int tui_pages_key(struct tui *u, int key)
{
	struct picture *p = &u->pic;
	size_t page = LINES > 6 ? (size_t)LINES - 5 : 1;

	switch (key) {
	case KEY_UP: case 'k': if (p->top) p->top--; return 1;
	case KEY_DOWN: case 'j': if (p->top + 1 < p->n) p->top++; return 1;
	case KEY_PPAGE: p->top = p->top > page ? p->top - page : 0; return 1;
	case KEY_NPAGE: case ' ': p->top += page; if (p->top >= p->n) p->top = p->n ? p->n - 1 : 0; return 1;
	case KEY_HOME: case 'g': p->top = 0; return 1;
	case KEY_END: case 'G': p->top = p->n; return 1;
	default: return 0;
	}
}
