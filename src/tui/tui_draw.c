/* SPDX-License-Identifier: MIT */
/*
 * tui_draw.c - the drawing every screen of the live top uses: escaped text in
 * a width, right-aligned figures, colours on and off, bars.
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

/* ---- drawing text ---- */

/*
 * S (N bytes, already escaped) in at most MAXW columns from the cursor,
 * drawn when DRAW: returns the columns used, *USED the bytes taken.
 * Without a UTF-8 locale, each byte above ASCII shows as the text escape
 * writes a control byte, \xHH (the escape wrote a backslash as \\, so this
 * reads back the same way).
 */
static int put_n(const struct tui *u, int maxw, const char *s, size_t n, int draw, size_t *used)
{
	int w = 0;
	size_t i = 0;

	while (i < n && w < maxw) {
		uint32_t cp;
		size_t k = (unsigned char)s[i] < 0x80 ? 1 : esc_utf8_seq((const unsigned char *)s + i,
		                                                         n - i, &cp);
		int cw = 1;

		if (k == 0 || (k > 1 && !u->utf8)) {
			char hex[8];

			if (w + 4 > maxw)
				break;
			snprintf(hex, sizeof(hex), "\\x%02x", (unsigned char)s[i]);
			if (draw)
				addnstr(hex, 4);
			i++;
			w += 4;
			continue;
		}
		if (k > 1) {
			cw = wcwidth((wchar_t)cp);
			if (cw < 0)
				cw = 1;
			if (w + cw > maxw)
				break;
		}
		if (draw)
			addnstr(s + i, (int)k);
		i += k;
		w += cw;
	}
	*used = i;
	return w;
}

/*
 * Writes S (N bytes, already escaped: printable UTF-8) at Y, X in at most
 * MAXW columns; returns the columns used. Text that does not fit is cut,
 * and the cut is marked: its last column shows '>' (never a silent end).
 */
int tui_put(const struct tui *u, int y, int x, int maxw, const char *s, size_t n)
{
	size_t used;
	int w;

	if (maxw <= 0)
		return 0;
	move(y, x);
	w = put_n(u, maxw, s, n, 0, &used);
	if (used == n)
		return put_n(u, maxw, s, n, 1, &used);
	if (maxw == 1) {
		addch('>');
		return 1;
	}
	w = put_n(u, maxw - 1, s, n, 1, &used);
	addch('>');
	return w + 1;
}

/*
 * S (escaped, as tui_put()) at Y, X in at most MAXW columns: its end when it is
 * longer, after "..", since a path's end names the file.
 */
int tui_put_tail(const struct tui *u, int y, int x, int maxw, const char *s, size_t n)
{
	size_t cols = 0, i = n;

	for (size_t k = 0; k < n; k++)
		cols += ((unsigned char)s[k] & 0xc0) != 0x80;
	if (cols <= (size_t)maxw || maxw < 4)
		return tui_put(u, y, x, maxw, s, n);
	/* Back from the end by MAXW - 2 characters (wide ones may cut it further). */
	for (cols = 0; i > 0 && cols < (size_t)maxw - 2; cols++)
		while (--i > 0 && ((unsigned char)s[i] & 0xc0) == 0x80)
			;
	tui_put(u, y, x, 2, "..", 2);
	return 2 + tui_put(u, y, x + 2, maxw - 2, s + i, n - i);
}

/* Our own ASCII text at Y, X, in at most MAXW columns. */
int tui_puts_at(const struct tui *u, int y, int x, int maxw, const char *s)
{
	return tui_put(u, y, x, maxw, s, strlen(s));
}

/* Bytes from a target, escaped, at Y, X in at most MAXW columns. */
int tui_put_target(const struct tui *u, int y, int x, int maxw, const char *s, size_t n)
{
	char e[1024];
	size_t len = esc_text(e, sizeof(e), s, n);

	return tui_put(u, y, x, maxw, e, len);
}

/* S right-aligned in WIDTH columns at Y, X (ASCII). */
void tui_put_right(const struct tui *u, int y, int x, int width, const char *s)
{
	int n = (int)strlen(s);

	if (n > width)
		n = width;
	tui_put(u, y, x + width - n, n, s, (size_t)n);
}

void tui_ink_on(const struct tui *u, int pair, attr_t a)
{
	attron(a | (u->color && pair ? COLOR_PAIR(pair) : 0));
}

void tui_ink_off(const struct tui *u, int pair, attr_t a)
{
	attroff(a | (u->color && pair ? COLOR_PAIR(pair) : 0));
}

/* A tui_bar (headings, the selection): its colours, or reverse video without colours. */
attr_t tui_bar(const struct tui *u, int pair)
{
	return u->color ? COLOR_PAIR(pair) : A_REVERSE;
}
