/* SPDX-License-Identifier: MIT */
/*
 * pages_svg.c - `pmaps pages PID [RANGE|MAPPING] --svg FILE`: the address
 * space as a picture, page state by colour, in one self-contained SVG.
 *
 * The layout, in user units (CSS pixels at 100%), which the tests compute
 * positions from (tests/cli/svg.py):
 *
 *   The picture is W (1300) wide. The title is at the top, the legend (each
 *   state's colour and its page count) below it, and from y = TOP (90) one
 *   band per mapping, in address order, PITCH (14) apart and BAND_H (12)
 *   high. A band's label, at x = 8, gives the start address, the size, the
 *   permissions and the name (escaped; the end of a long name, after an ellipsis).
 *   Its pages fill x = X0 (400) to X0 + COLS (800): every mapping is scaled
 *   to that width whatever its size, so a one-page mapping is as visible as
 *   a gigabyte: page p of a mapping of P pages covers
 *   [X0 + p * COLS / P, X0 + (p + 1) * COLS / P). Each of the COLS pixel
 *   columns shows the state most of the pages it covers are in
 *   (pmaps_page_state_dominant(): a tie goes to the state first in the
 *   library's order, so present beats not present), and
 *   equal neighbouring columns are one rectangle, drawn as part of one path
 *   per state and band: at most COLS rectangles a band, however many pages.
 *   A band's tooltip (<title>) gives the whole name, the range, its pages by
 *   state and, with kpagecount, the most mappings one of its pages has.
 *
 *   More than MAX_BANDS (1000) mappings: K = ceil(N / MAX_BANDS) neighbouring
 *   mappings share a band, labelled "in K mappings", each scaled to COLS / K
 *   (mapping j of the band starting at X0 + j * COLS / K). So a picture is
 *   TOP + 1000 * PITCH + 8 (14098) units high at most, with at most COLS
 *   rectangles a band, whatever the process (60k mappings of
 *   tests/cli/svg.py: 1.4 MB, written in 0.2 s).
 *
 *   Gaps between mappings are not drawn: a dashed line over the band that
 *   follows a gap, and the gap's size right of the band. A merged band's
 *   inner gaps are not shown.
 *
 *   Every band is a <g> carrying data-start and data-end (the first
 *   mapping's start and the last one's end, as walked: the RANGE's part of
 *   it), data-mappings, and its box: data-x, data-y, data-w, data-h. Every
 *   legend item is a <g> with data-state and data-pages (absent where the
 *   reader cannot see that state).
 *
 * With --wss (req->wss_ns) the picture is W_WSS (1430) wide: the
 * process's referenced bits are reset (a working-set session), the walk
 * waits wss_ns, then reads smaps instead of maps, and right of each band,
 * at x = WSS_X (1280), WSS_W (100) wide, a bar shows the share of the
 * band's resident bytes (smaps' Rss) touched since the reset (smaps'
 * Referenced), with its percentage after it: per mapping, for the kernel
 * marks no page (a page's referenced flag is not its accessed bit, and
 * idle page tracking is no method pmaps has). The band's <g> carries
 * data-resident and data-touched (bytes, the whole mappings' even where a
 * RANGE cuts them), the legend's item data-wss="touched" and data-bytes.
 * After the walk the session's read says whether the process exited or
 * exec'd since the reset: then there is no picture, as for a failed walk.
 *
 * States: the library's (enum pmaps_page_state, pmaps_page_state_of(), the
 * one classification of pages every picture and table uses): zero,
 * lazyfree (root), huge (PAGEMAP_SCAN), shmem, file, shared (mapped more
 * than once, root), anon, swapped, and absent (never touched, dropped, or
 * a guard region). This file chooses their words, colours and legend order.
 *
 * Nothing is allocated per mapping or per page: the columns are one fixed
 * array, filled from the page cursor's runs and emptied at each band. The
 * mappings are read twice (maps is cheap): once to count them for the band
 * layout, once to walk them; mappings that appear in between only make
 * more bands of K. The height is only known at the end, so the bands
 * go to an anonymous memory file first, and the document is written to the
 * caller's file (outfile.h: outfile_begin() first), or to the caller's file
 * descriptor (pmaps serve), once the walk has ended well: a failed walk
 * writes nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "common/escape.h"
#include "common/num.h"
#include "write/pages_svg.h"
#include "write/svg.h"

#define W 1300
#define W_WSS 1430
#define WSS_X (X0 + COLS + 80)
#define WSS_W 100
#define TOP 90
#define PITCH 14
#define BAND_H 12
#define X0 400
#define COLS 800
#define MAX_BANDS 1000
#define LABEL_X 8
#define FONT 10
#define NAME_COLS 44 /* the most of a name a label shows, in characters */
#define TIP_NAME 1024 /* the most of a name a tooltip shows, in bytes */

#define PS_N PMAPS_PS_COUNT

/* Each state's words and colour (its key is the library's: pmaps_page_state_key()). */
static const struct {
	const char *label, *colour;
} pstates[PS_N] = {
	[PMAPS_PS_ABSENT] = {"not present", SVG_C_ABSENT},
	[PMAPS_PS_ANON] = {"anon", SVG_C_ANON},
	[PMAPS_PS_SHARED] = {"anon mapped 2+ times", SVG_C_SHARED},
	[PMAPS_PS_FILE] = {"file", SVG_C_FILE},
	[PMAPS_PS_SHMEM] = {"shared memory", SVG_C_SHMEM},
	[PMAPS_PS_HUGE] = {"huge page", SVG_C_HUGE},
	[PMAPS_PS_LAZYFREE] = {"lazily freed", SVG_C_LAZYFREE},
	[PMAPS_PS_ZERO] = {"zero page", SVG_C_ZERO},
	[PMAPS_PS_SWAPPED] = {"swapped", SVG_C_SWAP},
};
/* The legend's order: from nothing there to the pages that say most. */
static const enum pmaps_page_state legend_order[PS_N] = {
	PMAPS_PS_ABSENT, PMAPS_PS_ANON, PMAPS_PS_SHARED, PMAPS_PS_FILE, PMAPS_PS_SHMEM,
	PMAPS_PS_HUGE, PMAPS_PS_LAZYFREE, PMAPS_PS_ZERO, PMAPS_PS_SWAPPED,
};

struct band {
	uint64_t start, end, size; /* the first mapping's start, the last one's end, their sum */
	uint64_t gap;              /* the unmapped bytes before it */
	uint64_t mappings;
	unsigned perms;
	int truncated;             /* the label shows the name's end only */
	int full_cut;              /* the tooltip shows the name's start only */
	size_t name_len, full_len;
	char name[NAME_COLS * 4 + 1];
	char full[TIP_NAME];       /* the name for the tooltip (its first TIP_NAME bytes) */
	uint64_t pages[PS_N];      /* its pages by state */
	uint64_t maxcount;         /* the most mappings sharing one of its pages (root) */
	uint64_t rss, touched;     /* --wss: smaps' Rss and Referenced, summed */
};

struct pic {
	double w[COLS][PS_N];      /* how much of each column each state covers (1: all of it) */
	signed char dom[COLS];     /* each column's state (dominant()) */
	int lo, hi;                /* the columns written since the last band */
	uint64_t total[PS_N];      /* pages by state */
	uint64_t k;                /* mappings a band */
	uint64_t bands, mappings;
	int wss;                   /* --wss: the bars drawn */
	uint64_t wss_rss, wss_touched;
	struct band b;
	char body_buf[OUT_FD_BUFSIZE];
	char out_buf[OUT_FD_BUFSIZE];
};

/*
 * Pages [A, B) of the SLOT-th mapping of the band, of P pages, in state S.
 * In units of 1 / (K * P) of a column the mapping spans
 * [SLOT * P * COLS, (SLOT + 1) * P * COLS) and column c [c * K * P, (c + 1) * K * P):
 * integers, so a page's share of a column is exact. The weight added is
 * that share as a fraction of the column: with K > 1 a column can be
 * shared by two mappings of different P, whose units differ (a 1-page
 * mapping covering 2/3 of a column must outweigh the 1000-page mapping
 * covering the other third).
 */
static void add_pages(struct pic *pc, uint64_t slot, uint64_t p, uint64_t a, uint64_t b,
                      enum pmaps_page_state s)
{
	typedef unsigned __int128 u128;
	u128 span = (u128)pc->k * p, ua = ((u128)slot * p + a) * COLS, ub = ((u128)slot * p + b) * COLS;
	u128 c = ua / span, end = (ub + span - 1) / span;

	if (end > COLS)
		end = COLS;
	if (c < (u128)pc->lo)
		pc->lo = (int)c;
	if (end > (u128)pc->hi)
		pc->hi = (int)end;
	for (; c < end; c++) {
		u128 lo = c * span, hi = lo + span;
		if (lo < ua)
			lo = ua;
		if (hi > ub)
			hi = ub;
		if (hi > lo)
			pc->w[c][s] += (double)(hi - lo) / (double)span;
	}
}

/* The width a label gives byte sequence [S, S + LEN): what svg_str makes of it. */
static size_t shown_cols(uint32_t cp, size_t len)
{
	if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0))
		return 4 * len;
	return 1;
}

/* Where the last NAME_COLS - 1 characters of S start, or 0 when all of S fits. */
static size_t name_tail(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t total = 0, i = 0, len;
	uint32_t cp;

	for (i = 0; i < n; i += len) {
		len = esc_utf8_seq(p + i, n - i, &cp);
		total += len ? shown_cols(cp, len) : 4;
		if (!len)
			len = 1;
	}
	if (total <= NAME_COLS)
		return 0;
	for (i = 0; i < n && total > NAME_COLS - 1; i += len) {
		len = esc_utf8_seq(p + i, n - i, &cp);
		total -= len ? shown_cols(cp, len) : 4;
		if (!len)
			len = 1;
	}
	return i;
}

/*
 * The band's tooltip: the name (whole up to TIP_NAME bytes) or how many
 * mappings, the range, and its pages by state.
 */
static void band_tip(struct out *o, const struct band *b)
{
	char buf[TIP_NAME + 64 + PS_N * 48];
	size_t n = 0;

	if (b->mappings == 1) {
		memcpy(buf, b->full, b->full_len);
		n = b->full_len;
		if (b->full_cut) {
			memcpy(buf + n, "\xe2\x80\xa6", 3);
			n += 3;
		}
	} else {
		n = fmt_u64(buf, b->mappings);
		memcpy(buf + n, " mappings", 9);
		n += 9;
	}
	if (n)
		buf[n++] = ' ';
	memcpy(buf + n, "0x", 2);
	n += 2;
	n += fmt_hex(buf + n, b->start, 1);
	memcpy(buf + n, "-0x", 3);
	n += 3;
	n += fmt_hex(buf + n, b->end, 1);
	memcpy(buf + n, ", pages:", 8);
	n += 8;
	for (int i = 0; i < PS_N; i++) {
		enum pmaps_page_state s = legend_order[i];
		size_t k = strlen(pstates[s].label);
		if (!b->pages[s])
			continue;
		buf[n++] = ' ';
		n += fmt_u64(buf + n, b->pages[s]);
		buf[n++] = ' ';
		memcpy(buf + n, pstates[s].label, k);
		n += k;
		buf[n++] = ',';
	}
	n--; /* the last ',', or the ':' of a band with no pages */
	if (b->maxcount >= 2) {
		memcpy(buf + n, "; a page mapped ", 16);
		n += 16;
		n += fmt_u64(buf + n, b->maxcount);
		memcpy(buf + n, " times", 6);
		n += 6;
	}
	svg_tip(o, buf, n);
}

static void band_label(struct out *o, const struct pic *pc, double y)
{
	char buf[64 + sizeof(pc->b.name) + 4];
	const struct band *b = &pc->b;
	size_t n = fmt_hex(buf, b->start, 12);

	buf[n++] = ' ';
	n += fmt_human(buf + n, b->size);
	if (b->mappings == 1) {
		buf[n++] = ' ';
		buf[n++] = b->perms & PMAPS_PERM_READ ? 'r' : '-';
		buf[n++] = b->perms & PMAPS_PERM_WRITE ? 'w' : '-';
		buf[n++] = b->perms & PMAPS_PERM_EXEC ? 'x' : '-';
		buf[n++] = b->perms & PMAPS_PERM_SHARED ? 's' : 'p';
		if (b->name_len) {
			buf[n++] = ' ';
			if (b->truncated) {
				memcpy(buf + n, "\xe2\x80\xa6", 3); /* U+2026, the ellipsis */
				n += 3;
			}
			memcpy(buf + n, b->name, b->name_len);
			n += b->name_len;
		}
	} else {
		memcpy(buf + n, " in ", 4);
		n += 4;
		n += fmt_u64(buf + n, b->mappings);
		memcpy(buf + n, " mappings", 9);
		n += 9;
	}
	band_tip(o, b);
	svg_text(o, LABEL_X, y + FONT, SVG_START, FONT, SVG_C_INK, buf, n);
}

/*
 * The state most of column C's pages are in, the library's way
 * (pmaps_page_state_dominant()), or -1 for none. Its weights are parts of a
 * column, in 2^-40ths: equal parts stay equal, a tie stays a tie.
 */
static int dominant(const struct pic *pc, int c)
{
	uint64_t n[PS_N], any = 0;

	for (int s = 0; s < PS_N; s++) {
		n[s] = (uint64_t)(pc->w[c][s] * 1099511627776.0 + 0.5);
		any |= n[s];
	}
	return any ? (int)pmaps_page_state_dominant(n) : -1;
}

/*
 * --wss: the bar right of band B at Y, the share of its resident bytes
 * touched since the reset, and the percentage after it.
 */
static void wss_bar(struct out *o, const struct band *b, double y)
{
	char tip[96], pct[8];
	size_t n, pn;
	uint64_t t = b->touched < b->rss ? b->touched : b->rss;
	double share;
	unsigned p;

	if (b->rss == 0) {
		svg_text(o, WSS_X, y + FONT, SVG_START, FONT, SVG_C_INK, "none resident", 13);
		return;
	}
	share = (double)t / (double)b->rss;
	/* Whole percents; 0 and 100 only when exact. */
	p = (unsigned)(share * 100.0 + 0.5);
	if (p == 0 && t > 0)
		p = 1;
	else if (p == 100 && t < b->rss)
		p = 99;
	n = fmt_human(tip, b->touched);
	memcpy(tip + n, " touched of ", 12);
	n += 12;
	n += fmt_human(tip + n, b->rss);
	memcpy(tip + n, " resident", 9);
	n += 9;
	svg_rect(o, WSS_X, y, WSS_W, BAND_H, SVG_C_GRID, tip, n);
	if (t)
		svg_rect(o, WSS_X, y, WSS_W * share < 1 ? 1 : WSS_W * share, BAND_H, SVG_C_TOUCHED,
		         tip, n);
	pn = (size_t)snprintf(pct, sizeof(pct), "%u%%", p);
	svg_text(o, WSS_X + WSS_W + 4, y + FONT, SVG_START, FONT, SVG_C_INK, pct, pn);
}

/* Writes the band being built, if any, and empties the columns. */
static void band_flush(struct out *o, struct pic *pc)
{
	double y = TOP + (double)pc->bands * PITCH;

	if (pc->b.mappings == 0)
		return;
	svg_group_open(o);
	svg_attr_hex(o, "data-start", pc->b.start);
	svg_attr_hex(o, "data-end", pc->b.end);
	svg_attr_u64(o, "data-mappings", pc->b.mappings);
	svg_attr_num(o, "data-x", X0);
	svg_attr_num(o, "data-y", y);
	svg_attr_num(o, "data-w", COLS);
	svg_attr_num(o, "data-h", BAND_H);
	if (pc->wss) {
		svg_attr_u64(o, "data-resident", pc->b.rss);
		svg_attr_u64(o, "data-touched", pc->b.touched);
	}
	svg_group_body(o);
	band_label(o, pc, y);
	if (pc->wss)
		wss_bar(o, &pc->b, y);
	if (pc->b.gap && pc->bands > 0) {
		char g[32];
		size_t n;
		memcpy(g, "gap ", 4);
		n = 4 + fmt_human(g + 4, pc->b.gap);
		svg_line(o, X0, y - 1, X0 + COLS, y - 1, SVG_C_INK, 0.5, 1);
		svg_text(o, X0 + COLS + 6, y + FONT, SVG_START, FONT, SVG_C_INK, g, n);
	}
	/* One path per state, a rectangle per run of columns in it. */
	for (int c = pc->lo; c < pc->hi; c++)
		pc->dom[c] = (signed char)dominant(pc, c);
	for (int s = 0; s < PS_N; s++) {
		int open = 0;
		for (int c = pc->lo; c < pc->hi;) {
			int c2 = c + 1;
			if (pc->dom[c] != s) {
				c++;
				continue;
			}
			while (c2 < pc->hi && pc->dom[c2] == s)
				c2++;
			if (!open)
				svg_path_begin(o, pstates[s].colour, "none", 0);
			open = 1;
			svg_path_rect(o, X0 + c, y, c2 - c, BAND_H);
			c = c2;
		}
		if (open)
			svg_path_end(o, 0);
	}
	svg_group_end(o);
	if (pc->hi > pc->lo)
		memset(pc->w[pc->lo], 0, sizeof(pc->w[0]) * (size_t)(pc->hi - pc->lo));
	pc->lo = COLS;
	pc->hi = 0;
	pc->bands++;
	pc->b.mappings = 0;
}

/* A new mapping [START, END) of M, the IDX-th: into its band, starting one if need be. */
static void band_add(struct out *o, struct pic *pc, const struct pmaps_mapping *m, uint64_t idx,
                     uint64_t start, uint64_t end, uint64_t prev_end)
{
	struct band *b = &pc->b;

	if (b->mappings && (idx % pc->k == 0))
		band_flush(o, pc);
	if (b->mappings == 0) {
		size_t off = name_tail(m->path.ptr, m->path.len);
		b->start = start;
		b->size = 0;
		b->gap = prev_end && start > prev_end ? start - prev_end : 0;
		b->perms = m->perms;
		b->truncated = off > 0;
		b->name_len = m->path.len - off;
		if (b->name_len > sizeof(b->name) - 1)
			b->name_len = sizeof(b->name) - 1; /* cannot be: NAME_COLS characters of 4 bytes */
		memcpy(b->name, m->path.ptr + off, b->name_len);
		b->full_cut = m->path.len > sizeof(b->full);
		b->full_len = b->full_cut ? sizeof(b->full) : m->path.len;
		/* Cut before a character, not inside one. */
		while (b->full_cut && b->full_len > 0 &&
		       ((unsigned char)m->path.ptr[b->full_len] & 0xc0) == 0x80)
			b->full_len--;
		memcpy(b->full, m->path.ptr, b->full_len);
		memset(b->pages, 0, sizeof(b->pages));
		b->maxcount = 0;
		b->rss = b->touched = 0;
	}
	b->end = end;
	b->size = sat_add(b->size, end - start);
	b->mappings++;
}

static size_t read_comm(struct pmaps_proc *proc, char *buf, size_t size)
{
	int fd = openat(pmaps_proc_dirfd(proc), "comm", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, buf, size);
	close(fd);
	if (n <= 0)
		return 0;
	if (buf[n - 1] == '\n')
		n--;
	return (size_t)n;
}

static void legend(struct out *o, const struct pic *pc, int kpage, unsigned known)
{
	for (int i = 0; i < PS_N; i++) {
		enum pmaps_page_state s = legend_order[i];
		double x = LABEL_X + (i % 5) * 250.0, y = 52 + (i / 5) * 18.0;
		const char *key = pmaps_page_state_key(s);
		char buf[128];
		size_t n = strlen(pstates[s].label);
		const char *why = NULL;

		if ((s == PMAPS_PS_SHARED || s == PMAPS_PS_LAZYFREE) && kpage != 1)
			why = ": as root";
		else if (s == PMAPS_PS_HUGE && !(known & PMAPS_PG_HUGE))
			why = ": PAGEMAP_SCAN only";
		else if (s == PMAPS_PS_ZERO && !(known & PMAPS_PG_ZERO))
			why = ": not seen here";
		memcpy(buf, pstates[s].label, n);
		if (why) {
			memcpy(buf + n, why, strlen(why));
			n += strlen(why);
		} else {
			buf[n++] = ':';
			buf[n++] = ' ';
			n += fmt_u64(buf + n, pc->total[s]);
			memcpy(buf + n, pc->total[s] == 1 ? " page (" : " pages (", 8);
			n += pc->total[s] == 1 ? 7 : 8;
			/* Bytes saturate too: a count near 2^64 pages is no size. */
			n += fmt_human(buf + n, pc->total[s] > UINT64_MAX / 65536 ? UINT64_MAX
			                                                          : pc->total[s] *
			                                                            (uint64_t)sysconf(_SC_PAGESIZE));
			buf[n++] = ')';
		}
		svg_group_open(o);
		svg_attr_str(o, "data-state", key, strlen(key));
		if (!why)
			svg_attr_u64(o, "data-pages", pc->total[s]);
		svg_group_body(o);
		svg_rect(o, x, y - 10, 12, 12, pstates[s].colour, NULL, 0);
		svg_text(o, x + 16, y, SVG_START, FONT, SVG_C_INK, buf, n);
		svg_group_end(o);
	}
	if (pc->wss) {
		/* The tenth place: the second row's last. */
		double x = LABEL_X + 4 * 250.0, y = 52 + 18.0;
		char buf[96];
		size_t n;

		memcpy(buf, "touched: ", 9);
		n = 9 + fmt_human(buf + 9, pc->wss_touched);
		memcpy(buf + n, " of ", 4);
		n += 4;
		n += fmt_human(buf + n, pc->wss_rss);
		memcpy(buf + n, " resident", 9);
		n += 9;
		svg_group_open(o);
		svg_attr_str(o, "data-wss", "touched", 7);
		svg_attr_u64(o, "data-bytes", pc->wss_touched);
		svg_group_body(o);
		svg_rect(o, x, y - 10, 12, 12, SVG_C_TOUCHED, NULL, 0);
		svg_text(o, x + 16, y, SVG_START, FONT, SVG_C_INK, buf, n);
		svg_group_end(o);
	}
}

/* The document: the head, the bands from BODY_FD (LEN bytes), the legend. */
static int write_doc(const struct pages_svg_req *req, struct pic *pc, int body_fd, uint64_t len,
                     const char *note, int kpage, unsigned known, struct failure *f)
{
	char title[160], sub[400], comm[64], msg[sizeof(f->msg)];
	int err;
	size_t tn, cn = read_comm(req->proc, comm, sizeof(comm));
	double height = TOP + (double)pc->bands * PITCH + 8;
	struct out o;
	uint64_t off = 0;

	tn = (size_t)snprintf(title, sizeof(title), "pmaps pages %d", pmaps_proc_pid(req->proc));
	if (cn && tn + cn + 3 < sizeof(title)) {
		title[tn++] = ' ';
		title[tn++] = '(';
		memcpy(title + tn, comm, cn);
		tn += cn;
		title[tn++] = ')';
	}
	if (req->out) {
		err = outfile_begin(req->out, msg, sizeof(msg));
		if (err < 0) {
			failed(f, NULL, err, msg);
			return err;
		}
	}
	out_fd(&o, req->out ? req->out->fd : req->fd, pc->out_buf, sizeof(pc->out_buf));
	svg_begin(&o, pc->wss ? W_WSS : W, height, title, tn);
	svg_text(&o, LABEL_X, 20, SVG_START, 14, SVG_C_INK, title, tn);
	if (pc->k > 1)
		snprintf(sub, sizeof(sub), "%llu mappings, %llu to a band; %s",
		         (unsigned long long)pc->mappings, (unsigned long long)pc->k, note);
	else
		snprintf(sub, sizeof(sub), "%llu mappings; %s", (unsigned long long)pc->mappings, note);
	svg_text(&o, LABEL_X, 36, SVG_START, FONT, SVG_C_INK, sub, strlen(sub));
	if (pc->wss)
		svg_text(&o, WSS_X, TOP - 4, SVG_START, FONT, SVG_C_INK, "touched", 7);
	out_flush(&o);
	while (off < len && o.err == 0) {
		ssize_t n = pread(body_fd, pc->body_buf, sizeof(pc->body_buf), (off_t)off);
		if (n <= 0) {
			o.err = n < 0 ? errno : EIO;
			break;
		}
		out_mem(&o, pc->body_buf, (size_t)n);
		off += (uint64_t)n;
	}
	legend(&o, pc, kpage, known);
	svg_end(&o);
	out_flush(&o);
	if (o.err) {
		/* The file's error, not the process's: the reason said. */
		snprintf(msg, sizeof(msg), "writing the picture: %s", strerror(o.err));
		failed(f, NULL, -o.err, msg);
	}
	return -o.err;
}

/*
 * Opens *MAPS and counts in *N the mappings REQ's range meets, for the
 * layout. Returns 0, or a negative errno with the failure in F: a range
 * that meets no mapping is -ENOENT.
 */
static int count_pass(const struct pages_svg_req *req, struct pmaps_maps **maps, uint64_t *n,
                      struct failure *f)
{
	const struct pmaps_mapping *m;
	int err = pmaps_maps_open(maps, req->proc, PMAPS_SRC_MAPS, 0);

	if (err < 0)
		return failed(f, "maps", err, *maps ? pmaps_maps_errmsg(*maps) : NULL);
	while ((err = pmaps_maps_next(*maps, &m)) > 0) {
		uint64_t s, e;
		*n += pages_in_range(req->range, m, &s, &e);
	}
	if (err < 0)
		return failed(f, "maps", err, pmaps_maps_errmsg(*maps));
	if (req->range && *n == 0) {
		char what[sizeof(f->msg)];
		if (req->range->name)
			snprintf(what, sizeof(what), "no mapping named '%s'", req->range->name);
		else
			snprintf(what, sizeof(what), "no mapping meets 0x%llx-0x%llx",
			         (unsigned long long)req->range->start, (unsigned long long)req->range->end);
		return failed(f, NULL, -ENOENT, what);
	}
	return 0;
}

/*
 * --wss: opens the working-set session on REQ's process, resets its
 * referenced bits, waits REQ->wss_ns, and opens the smaps cursor the walk
 * reads; *RESET_NS: CLOCK_MONOTONIC once the reset returned. Returns 0
 * (*WS NULL for a kernel thread, which has no pages), or a negative errno
 * with the failure in F.
 */
static int wss_begin(const struct pages_svg_req *req, struct pmaps_wss **ws,
                     struct pmaps_maps **smaps, uint64_t *reset_ns, struct failure *f)
{
	struct timespec ts = {(time_t)(req->wss_ns / 1000000000u),
	                      (long)(req->wss_ns % 1000000000u)};
	int err = pmaps_wss_open(ws, req->proc, PMAPS_WSS_AUTO, 0);

	if (err == 0)
		err = pmaps_wss_reset(*ws);
	if (err == -ENODATA) {
		/* A kernel thread: no pages to reset, and the picture says so. */
		pmaps_wss_close(*ws);
		*ws = NULL;
		return 0;
	}
	if (err < 0)
		return failed(f, NULL, err, *ws && pmaps_wss_errmsg(*ws)[0] ? pmaps_wss_errmsg(*ws)
		                                                            : NULL);
	*reset_ns = now_ns();
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	err = pmaps_maps_open(smaps, req->proc, PMAPS_SRC_SMAPS, 0);
	if (err < 0)
		return failed(f, "smaps", err, *smaps ? pmaps_maps_errmsg(*smaps) : NULL);
	return 0;
}

int pages_svg_write(const struct pages_svg_req *req, struct failure *f)
{
	struct pmaps_maps *maps = NULL, *smaps = NULL, *walk;
	struct pmaps_wss *ws = NULL;
	const struct pmaps_wss_result *wr = NULL;
	struct pmaps_pages *pg = NULL;
	const struct pmaps_mapping *m;
	const struct pmaps_page_range *r;
	struct pic *pc = calloc(1, sizeof(*pc));
	uint64_t psize = (uint64_t)sysconf(_SC_PAGESIZE), n = 0, idx = 0, prev_end = 0, calls = 0;
	uint64_t reset_ns = 0, since_ns = 0;
	int err, body_fd = -1, kpage = 0, walking = 0;
	unsigned known = 0;
	char note[320];
	struct out body;

	/* Whatever fails below, the caller's account is zero, not stale. */
	if (req->drawn)
		memset(req->drawn, 0, sizeof(*req->drawn));
	if (!pc)
		return failed(f, NULL, -ENOMEM, "out of memory");
	pc->lo = COLS;
	pc->k = 1;
	/*
	 * --wss: the range checked first, then the reset and the wait; the
	 * readers open after it, on the program that is there then (one
	 * exec'd in the wait is found by the session's read at the end).
	 */
	if (req->wss_ns) {
		err = count_pass(req, &maps, &n, f);
		if (err == 0)
			err = wss_begin(req, &ws, &smaps, &reset_ns, f);
		if (err < 0 && err != -ENODATA) /* a kernel thread's picture follows */
			goto done;
		pc->wss = ws != NULL;
	}
	err = pmaps_pages_open(&pg, req->proc, req->strategy,
	                       PMAPS_PAGES_KPAGE | req->pace);
	if (err == -ENODATA) {
		if (!req->quiet)
			kernel_thread_note(pmaps_proc_pid(req->proc));
		/* No pages: none of any state, whatever a reader could see. */
		pc->wss = 0;
		err = write_doc(req, pc, -1, 0, "a kernel thread: no user address space", 1,
		                PMAPS_PG_HUGE | PMAPS_PG_ZERO, f);
		goto done;
	}
	if (err < 0) {
		failed(f, "pagemap", err, pg ? pmaps_pages_errmsg(pg) : NULL);
		goto done;
	}
	kpage = pmaps_pages_kpage(pg);
	if (kpage != 1 && !req->quiet)
		note_msg("%s", pmaps_pages_errmsg(pg));
	/* First the count, for the layout; then the walk, of smaps with --wss. */
	walk = smaps;
	if (!pc->wss) {
		pmaps_maps_close(maps);
		maps = NULL;
		n = 0;
		if ((err = count_pass(req, &maps, &n, f)) < 0)
			goto done;
		walk = maps;
		if ((err = pmaps_maps_rewind(maps)) < 0) {
			failed(f, "maps", err, pmaps_maps_errmsg(maps));
			goto done;
		}
	}
	pc->k = n <= MAX_BANDS ? 1 : (n + MAX_BANDS - 1) / MAX_BANDS;
	body_fd = memfd_create("pmaps-svg", MFD_CLOEXEC);
	if (body_fd < 0) {
		err = failed(f, NULL, -errno, "cannot make a memory file for the picture");
		goto done;
	}
	out_fd(&body, body_fd, pc->body_buf, sizeof(pc->body_buf));
	/* Then the walk. */
	while ((err = pmaps_maps_next(walk, &m)) > 0) {
		uint64_t start, end, p, slot;

		if (!pages_in_range(req->range, m, &start, &end))
			continue;
		start &= ~(psize - 1);
		end = end > UINT64_MAX - psize ? end & ~(psize - 1) : (end + psize - 1) & ~(psize - 1);
		p = (end - start) / psize;
		if (p == 0)
			continue;
		band_add(&body, pc, m, idx, start, end, prev_end);
		if (pc->wss) {
			pc->b.rss = sat_add(pc->b.rss, m->v[PMAPS_F_RSS]);
			pc->b.touched = sat_add(pc->b.touched, m->v[PMAPS_F_REFERENCED]);
			pc->wss_rss = sat_add(pc->wss_rss, m->v[PMAPS_F_RSS]);
			pc->wss_touched = sat_add(pc->wss_touched, m->v[PMAPS_F_REFERENCED]);
		}
		slot = idx % pc->k;
		prev_end = end;
		idx++;
		walking = 1;
		if ((err = pmaps_pages_seek(pg, start, end)) == 0) {
			while ((err = pmaps_pages_next(pg, &r)) > 0) {
				enum pmaps_page_state s = pmaps_page_state_of(r, m->kind);
				uint64_t a = (r->start - start) / psize, b = (r->end - start) / psize;
				pc->total[s] = sat_add(pc->total[s], b - a);
				pc->b.pages[s] = sat_add(pc->b.pages[s], b - a);
				if (r->mapcount > pc->b.maxcount)
					pc->b.maxcount = r->mapcount;
				add_pages(pc, slot, p, a, b > p ? p : b, s);
			}
		}
		calls += pmaps_pages_calls(pg);
		if (err < 0)
			break;
		walking = 0;
	}
	if (err < 0) {
		if (walking)
			failed(f, "pagemap", err, pmaps_pages_errmsg(pg));
		else
			failed(f, walk == smaps ? "smaps" : "maps", err, pmaps_maps_errmsg(walk));
		goto done;
	}
	/*
	 * --wss: what the walk read was touched from the reset to the walk's
	 * end; the session's read after it says whether the process exited or
	 * exec'd since the reset (a new program's bits were never reset): no
	 * picture.
	 */
	since_ns = now_ns() - reset_ns;
	if (ws && (err = pmaps_wss_read(ws, &wr)) < 0) {
		failed(f, NULL, err, pmaps_wss_errmsg(ws));
		goto done;
	}
	band_flush(&body, pc);
	pc->mappings = idx;
	out_flush(&body);
	if (body.err) {
		snprintf(note, sizeof(note), "writing the picture to a memory file: %s",
		         strerror(body.err));
		err = failed(f, NULL, -body.err, note);
		goto done;
	}
	known = pmaps_pages_known(pg);
	{
		char t[32];
		snprintf(note, sizeof(note), "read with %s%s%s%s%s",
		         pmaps_pages_strategy(pg) == PMAPS_PAGES_SCAN ? "PAGEMAP_SCAN" : "pagemap",
		         kpage == 1 ? " and kpageflags" : "; no physical page state (needs root)",
		         wr ? "; touched: smaps' Referenced per mapping, " : "",
		         wr ? fmt_duration(t, sizeof(t), since_ns) : "",
		         wr ? " after a reset of the referenced bits (clear_refs)" : "");
	}
	err = write_doc(req, pc, body_fd, (uint64_t)lseek(body_fd, 0, SEEK_END), note, kpage, known,
	                f);
	if (err < 0)
		goto done;
	if (req->drawn) {
		struct pages_svg_drawn *d = req->drawn;
		memset(d, 0, sizeof(*d));
		d->mappings = idx;
		for (int st = 0; st < PMAPS_PS_COUNT; st++) {
			d->pages = sat_add(d->pages, pc->total[st]);
			if (pmaps_page_state_resident((enum pmaps_page_state)st))
				d->resident = sat_add(d->resident, pc->total[st]);
		}
		d->kpage = kpage == 1;
		d->scan = pmaps_pages_strategy(pg) == PMAPS_PAGES_SCAN;
		if (wr) {
			d->wss = 1;
			d->wss_resident = pc->wss_rss;
			d->wss_touched = pc->wss_touched;
			d->wss_since_ns = since_ns;
		}
	}
	if (req->verbose && !req->quiet)
		note_msg("read with %s: %llu kernel calls over %llu mapping(s); %llu bands",
		         pmaps_pages_strategy(pg) == PMAPS_PAGES_SCAN ? "PAGEMAP_SCAN" : "pagemap",
		         (unsigned long long)calls, (unsigned long long)idx,
		         (unsigned long long)pc->bands);
done:
	if (body_fd >= 0)
		close(body_fd);
	pmaps_maps_close(maps);
	pmaps_maps_close(smaps);
	pmaps_wss_close(ws);
	pmaps_pages_close(pg);
	free(pc);
	return err < 0 ? err : 0;
}
