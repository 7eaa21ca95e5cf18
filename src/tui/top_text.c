/* SPDX-License-Identifier: MIT */
/*
 * top_text.c - the live top's text screens: a process's explain report and its
 * mappings, the table writer's output in memory shown a screenful at a time.
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
#include "write/writer.h"

/* ---- text views ---- */

static void text_reset(struct textview *tv)
{
	tv->len = 0;
	tv->cut = 0;
	tv->nlines = 0;
	tv->top = tv->left = 0;
}

/* The line starts of TV's text. Returns 0 or -ENOMEM. */
static int text_index(struct textview *tv)
{
	size_t i = 0;

	tv->nlines = 0;
	while (i < tv->len) {
		const char *nl = memchr(tv->buf + i, '\n', tv->len - i);

		if (tv->nlines == tv->linecap) {
			size_t cap = tv->linecap ? tv->linecap * 2 : 1024;
			size_t *p = realloc(tv->line, cap * sizeof(*p));
			if (!p)
				return -ENOMEM;
			tv->line = p;
			tv->linecap = cap;
		}
		tv->line[tv->nlines++] = i;
		i = nl ? (size_t)(nl - tv->buf) + 1 : tv->len;
	}
	return 0;
}

/* A memory sink over TV's buffer (allocated at first use). Returns 0 or -ENOMEM. */
static int text_sink(struct textview *tv, struct out *o)
{
	text_reset(tv);
	if (!tv->buf && !(tv->buf = malloc(TEXT_CAP)))
		return -ENOMEM;
	out_memory(o, tv->buf, TEXT_CAP);
	return 0;
}

static int text_done(struct textview *tv, struct out *o)
{
	tv->len = out_kept(o);
	tv->cut = o->err == ENOBUFS;
	return text_index(tv);
}

/* Sets TV to the text S. */
void tui_text_set(struct textview *tv, const char *s)
{
	struct out o;

	if (text_sink(tv, &o) < 0)
		return;
	out_str(&o, s);
	text_done(tv, &o);
}

/* The privilege a failed read needs, for the message. */
const char *tui_privilege(int err)
{
	if (err == -EACCES || err == -EPERM)
		return geteuid() == 0 ? " (even root may not read it: it holds capabilities this "
		                        "one lacks, or a security module refuses)"
		                      : " (run as root or with CAP_SYS_PTRACE)";
	return "";
}

/* Opens the process drilled into; the message in ERR when it cannot. */
int tui_open_proc(struct tui *u, struct pmaps_proc **proc, char *err, size_t errsz)
{
	char pid[24];
	int e;

	snprintf(pid, sizeof(pid), "%d", u->pid);
	e = pmaps_proc_open(proc, u->t->o.root, pid);
	if (e < 0)
		snprintf(err, errsz, "process %d: %s%s", u->pid,
		         e == -ENOENT || e == -ESRCH ? "gone" : pmaps_strerror(e), tui_privilege(e));
	return e;
}

/*
 * explain for the process drilled into: the report `pmaps explain PID`
 * writes, read the same way (explain_doc.c: the library's source choice,
 * the runtime's books, the run right after them, their join).
 */
void tui_load_explain(struct tui *u)
{
	static struct explain_doc e; /* large (its books): not on the stack */
	struct textview *tv = &u->explain;
	struct pmaps_proc *proc = NULL;
	struct explain_ask ask;
	struct books_opts bo;
	struct failure f;
	struct writer w;
	struct doc d;
	struct out o;
	int err;

	u->explain_err[0] = '\0';
	text_reset(tv);
	if (tui_open_proc(u, &proc, u->explain_err, sizeof(u->explain_err)) < 0)
		return;
	bo = u->t->o.books;
	bo.root = u->t->o.root;
	memset(&ask, 0, sizeof(ask));
	ask.source = PMAPS_SRC_AUTO;
	ask.limit_ns = PMAPS_EXPLAIN_HOLD_NS;
	ask.books = &bo;
	memset(&f, 0, sizeof(f));
	err = explain_doc_read(&e, proc, &ask, &f);
	if (err < 0) {
		snprintf(u->explain_err, sizeof(u->explain_err), "process %d: %.400s%s", u->pid,
		         f.msg[0] ? f.msg : pmaps_strerror(err), tui_privilege(err));
	} else if (text_sink(tv, &o) == 0) {
		memset(&d, 0, sizeof(d));
		explain_doc_fill(&e, &d);
		w_begin(&w, &o, FMT_TABLE, &d);
		w_explain(&w, e.x);
		w_end(&w, NULL);
		if (text_done(tv, &o) < 0)
			snprintf(u->explain_err, sizeof(u->explain_err), "out of memory");
	} else {
		snprintf(u->explain_err, sizeof(u->explain_err), "out of memory");
	}
	explain_doc_close(&e);
	pmaps_proc_close(proc);
}

/*
 * The mappings of the process drilled into, from smaps as `pmaps maps PID`
 * reads them; fewer columns, so that the path shows in 100 columns.
 */
void tui_load_maps(struct tui *u)
{
	static const int cols[] = {COL_ADDRESS, COL_PERMS, COL_KIND, PMAPS_F_RSS, PMAPS_F_PSS,
	                           COL_USS, PMAPS_F_SWAP, COL_PATH};
	struct textview *tv = &u->maps;
	struct pmaps_proc *proc = NULL;
	struct pmaps_maps *c = NULL;
	const struct pmaps_mapping *m;
	struct writer w;
	struct doc d;
	struct out o;
	int err;

	u->maps_err[0] = '\0';
	text_reset(tv);
	if (tui_open_proc(u, &proc, u->maps_err, sizeof(u->maps_err)) < 0)
		return;
	err = pmaps_maps_open(&c, proc, PMAPS_SRC_SMAPS, 0);
	if (err == 0 && (err = text_sink(tv, &o)) == 0) {
		memset(&d, 0, sizeof(d));
		d.kind = DOC_MAPPINGS;
		d.by = PMAPS_GROUP_PATH;
		d.pid = u->pid;
		d.source = pmaps_source_name(PMAPS_SRC_SMAPS);
		d.cols = cols;
		d.ncols = (int)(sizeof(cols) / sizeof(cols[0]));
		d.human = 1;
		w_begin(&w, &o, FMT_TABLE, &d);
		while ((err = pmaps_maps_next(c, &m)) > 0)
			w_mapping(&w, m);
		w_end(&w, NULL);
		if (text_done(tv, &o) < 0 && err == 0)
			err = -ENOMEM;
	}
	if (err < 0 && err != -ENODATA) {
		const char *msg = c && pmaps_maps_errmsg(c)[0] ? pmaps_maps_errmsg(c)
		                                               : pmaps_strerror(err);
		snprintf(u->maps_err, sizeof(u->maps_err), "process %d: %s%s", u->pid, msg,
		         tui_privilege(err));
	}
	pmaps_maps_close(c);
	pmaps_proc_close(proc);
}

/* One line of text at Y: the part from column LEFT on, in the screen's width. */
static void text_line(const struct tui *u, int y, const char *s, size_t n, size_t left)
{
	size_t i = 0, col = 0;

	while (i < n && col < left) {
		uint32_t cp;
		size_t k = (unsigned char)s[i] < 0x80 ? 1 : esc_utf8_seq((const unsigned char *)s + i,
		                                                         n - i, &cp);
		i += k ? k : 1;
		col++;
	}
	/* Scrolled sideways: a line with text to the left of the view begins with '<'. */
	if (left && i > 0 && i < n) {
		uint32_t cp;
		size_t k = (unsigned char)s[i] < 0x80 ? 1 : esc_utf8_seq((const unsigned char *)s + i,
		                                                         n - i, &cp);
		i += k ? k : 1; /* the '<' takes its column */
		tui_puts_at(u, y, 0, 1, "<");
		tui_put(u, y, 1, COLS - 1, s + i, n - i);
		return;
	}
	tui_put(u, y, 0, COLS, s + i, n - i);
}

/* The rows a text view shows: all but the title and the bottom line. */
static int text_rows(void)
{
	return LINES - 2 > 0 ? LINES - 2 : 0;
}

/* The top line of a drill-down view: WHAT, and the process (none for the list's help). */
void tui_draw_title(struct tui *u, const char *what)
{
	char b[256];
	int x;

	if (u->depth > 0 && u->stack[u->depth - 1] == V_LIST && u->stack[u->depth] == V_HELP)
		snprintf(b, sizeof(b), "pmaps top: %s", what);
	else
		snprintf(b, sizeof(b), "%s: process %d ", what, u->pid);
	attron(tui_bar(u, CP_TITLE) | A_BOLD);
	move(0, 0);
	hline(' ', COLS);
	x = tui_puts_at(u, 0, 0, COLS, b);
	if (!(u->depth > 0 && u->stack[u->depth - 1] == V_LIST && u->stack[u->depth] == V_HELP))
		tui_put(u, 0, x, COLS - x, u->comm, strlen(u->comm));
	attroff(tui_bar(u, CP_TITLE) | A_BOLD);
}

void tui_draw_text(struct tui *u, struct textview *tv, const char *what, const char *err,
                   const char *keys)
{
	int rows = text_rows();

	tui_draw_title(u, what);
	if (err && err[0]) {
		tui_ink_on(u, CP_DENIED, A_BOLD);
		tui_put_target(u, 2, 0, COLS, err, strlen(err));
		tui_ink_off(u, CP_DENIED, A_BOLD);
	} else {
		size_t total = tv->nlines + (size_t)tv->cut;

		if (total > (size_t)rows && tv->top > total - (size_t)rows)
			tv->top = total - (size_t)rows;
		if (total <= (size_t)rows)
			tv->top = 0;
		for (int i = 0; i < rows && tv->top + (size_t)i < total; i++) {
			size_t k = tv->top + (size_t)i;
			size_t a, b;

			if (k == tv->nlines) {
				tui_puts_at(u, 1 + i, 0, COLS, "... (cut here: the rest is in pmaps maps PID)");
				break;
			}
			a = tv->line[k];
			b = k + 1 < tv->nlines ? tv->line[k + 1] : tv->len;
			if (b > a && tv->buf[b - 1] == '\n')
				b--;
			text_line(u, 1 + i, tv->buf + a, b - a, tv->left);
		}
	}
	tui_draw_bottom(u, keys);
}

/* Scrolling keys of a text view; 1 when KEY was one. */
int tui_text_key(struct textview *tv, int key)
{
	size_t page = (size_t)(text_rows() > 1 ? text_rows() - 1 : 1);
	size_t total = tv->nlines + (size_t)tv->cut;

	switch (key) {
	case KEY_UP: case 'k': if (tv->top) tv->top--; return 1;
	case KEY_DOWN: case 'j': if (tv->top + 1 < total) tv->top++; return 1;
	case KEY_PPAGE: tv->top = tv->top > page ? tv->top - page : 0; return 1;
	case KEY_NPAGE: case ' ': tv->top += page; if (tv->top >= total) tv->top = total ? total - 1 : 0; return 1;
	case KEY_HOME: case 'g': tv->top = 0; tv->left = 0; return 1;
	case KEY_END: case 'G': tv->top = total; return 1;
	case KEY_LEFT: case 'h': tv->left = tv->left > 8 ? tv->left - 8 : 0; return 1;
	case KEY_RIGHT: case 'l': tv->left += 8; return 1;
	default: return 0;
	}
}
