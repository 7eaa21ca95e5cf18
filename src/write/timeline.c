/* SPDX-License-Identifier: MIT */
/*
 * timeline.c - the SVG timeline of pmaps watch and run --svg (watch.h).
 *
 * The file is checked when the watch starts (outfile.c: an unwritable
 * path fails before the first sample, and a new file is made next to it)
 * and put in place whole when the picture is written; a watch that ends
 * without a picture leaves what was at the path untouched. In between, samples go
 * into an array of TIMELINE_POINTS allocated once: each point stands for
 * STRIDE samples, the one of them with the highest RSS. When the array is
 * full its neighbours are merged in pairs, the higher RSS kept, and the
 * stride doubles; so the peak is always one of the points, exactly, and
 * the picture is never more than TIMELINE_POINTS wide in data.
 *
 * The picture (960 wide, about 480 high plus the legend): the time on the
 * x axis (0 to the last sample, ticks of 1, 2 or 5 times a power of ten in
 * ns, us, ms or s), bytes on the y axis (ticks of 1, 2 or 5 times a power
 * of ten in B, KiB, MiB, GiB, ...), explain's categories as stacked areas
 * (only those ever non-zero, each always in its own colour), RSS as a line
 * (the stack's top when every category is known), LazyFree as a dashed
 * line with gaps where the source could not see it, the peak as a red dot
 * with its value and time, with --wss the bytes touched as a step over
 * each reading's interval (from the reset to the read's end), the title,
 * a legend. Every number is written without printf; the title (a
 * target's bytes) goes through svg_str().
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/num.h"
#include "common/out.h"
#include "common/outfile.h"
#include "write/svg.h"
#include "write/timeline.h"

/* The layout, in user units. */
#define TL_WIDTH 960.0
#define TL_X0 90.0   /* the plot's left edge: room for the y labels */
#define TL_X1 940.0
#define TL_Y0 50.0   /* the plot's top: the title and the peak's label above */
#define TL_Y1 400.0
#define TL_LEGEND_Y 462.0
#define TL_LEGEND_ROW 22.0
#define TL_LEGEND_COLS 4
#define TL_LEGEND_W 212.0
#define TL_EMPTY_HEIGHT 480.0

/* A colour per category, stable across pictures, distinct from the lines' (ink, yellow, red). */
static const char *const cat_colour[PMAPS_X_COUNT] = {
	[PMAPS_X_HEAP] = "#3b6fd4",
	[PMAPS_X_ANON] = "#7fa7ee",
	[PMAPS_X_ANON_NAMED] = "#8e44ad",
	[PMAPS_X_RUNTIME_HEAP] = "#1a3a86",
	[PMAPS_X_THREAD_STACK] = "#e8a87c",
	[PMAPS_X_MAIN_STACK] = "#a0522d",
	[PMAPS_X_FILE_TEXT] = "#2e9e5b",
	[PMAPS_X_FILE_DATA] = "#8fd19e",
	[PMAPS_X_FILE_RO] = "#c5e8b7",
	[PMAPS_X_SHMEM] = "#17a2b8",
	[PMAPS_X_HUGETLB] = "#e67e22",
	[PMAPS_X_OTHER] = "#95a5a6",
};
#define TL_C_RSS SVG_C_INK
#define TL_C_LAZYFREE "#d4a017" /* SVG_C_LAZYFREE darkened: a thin line on white */
#define TL_C_KIDS "#c9a0dc"     /* --children: the descendants, stacked on the process's RSS */
#define TL_C_RT_LIVE "#c0392b"  /* the runtime's books: what it counts as live */
#define TL_C_RT_HELD "#8e44ad"  /* and as held (live and free) */
#define TL_C_TOUCHED "#d81b60"  /* --wss: the bytes touched since the last reset */

struct timeline {
	struct outfile file;
	int open;          /* FILE is open: neither written nor given up yet */
	struct watch_sample *pts;
	size_t n;
	uint64_t stride;   /* samples a point stands for */
	uint64_t fill;     /* samples in the last point so far */
	uint64_t added;    /* samples added in all */
	struct watch_sample last; /* the last sample added: drawn last, whatever halving kept */
	unsigned ever;     /* bit (1 << category): ever non-zero */
	int lazy_ever;     /* LazyFree was known in some sample */
	int kids_ever;     /* the descendants were read in some sample */
	int rt_ever;       /* the runtime's books (WATCH_RT_*) of the last sample that had them */
	int ws_ever;       /* a working set was read in some sample */
	char buf[OUT_FD_BUFSIZE];
};

/* Where data goes in the picture. */
struct lay {
	uint64_t tmax;           /* ns at the right edge */
	double ymax;             /* bytes at the top */
	uint64_t xstep, xunit;   /* ns */
	const char *xunit_name;
	uint64_t ystep, yunit;   /* in units of YUNIT bytes, and YUNIT */
	const char *yunit_name;
	int entries, rows;
	double height;
};

/* The message names no path: the caller's names the option and its file ("--svg 'x': ..."). */
static int fail(char *msg, size_t msgsz, int err, const char *what)
{
	if (msg && msgsz)
		snprintf(msg, msgsz, "%s: %s", what, strerror(err));
	return -err;
}

int timeline_open(struct timeline **out, const char *path, char *msg, size_t msgsz)
{
	struct timeline *tl;
	int err;

	*out = NULL;
	if (msg && msgsz)
		msg[0] = '\0';
	tl = calloc(1, sizeof(*tl));
	if (!tl)
		return fail(msg, msgsz, ENOMEM, "no memory for the timeline");
	tl->stride = 1;
	/* One more than is kept: room for the last sample when the picture is drawn. */
	tl->pts = malloc((TIMELINE_POINTS + 1) * sizeof(*tl->pts));
	if (!tl->pts) {
		timeline_close(tl);
		return fail(msg, msgsz, ENOMEM, "no memory for the timeline");
	}
	err = outfile_open(&tl->file, path, msg, msgsz);
	if (err) {
		timeline_close(tl);
		return err;
	}
	tl->open = 1;
	*out = tl;
	return 0;
}

/* What a point is kept and its peak marked by: RSS, with the descendants' when read. */
static uint64_t key(const struct watch_sample *p)
{
	return p->kids_known ? sat_add(p->rss, p->kids_rss) : p->rss;
}

/* Every two neighbours become the one with the higher key (the earlier on a tie). */
static void halve(struct timeline *tl)
{
	size_t k = 0;

	for (size_t i = 0; i + 1 < tl->n; i += 2)
		tl->pts[k++] = key(&tl->pts[i + 1]) > key(&tl->pts[i]) ? tl->pts[i + 1] : tl->pts[i];
	if (tl->n & 1)
		tl->pts[k++] = tl->pts[tl->n - 1];
	tl->n = k;
	tl->stride *= 2;
}

void timeline_add(struct timeline *tl, const struct watch_sample *s)
{
	tl->added++;
	tl->last = *s;
	for (int c = 0; c < PMAPS_X_COUNT; c++)
		if (s->cat[c])
			tl->ever |= 1u << c;
	if (s->lazyfree_known)
		tl->lazy_ever = 1;
	if (s->kids_known)
		tl->kids_ever = 1;
	if (s->rt_kind)
		tl->rt_ever = s->rt_kind;
	if (s->touched_known)
		tl->ws_ever = 1;
	if (tl->n && tl->fill < tl->stride) {
		struct watch_sample *last = &tl->pts[tl->n - 1];
		if (key(s) > key(last))
			*last = *s;
		tl->fill++;
		return;
	}
	if (tl->n == TIMELINE_POINTS)
		halve(tl);
	tl->pts[tl->n++] = *s;
	tl->fill = 1;
}

size_t timeline_points(const struct timeline *tl, const struct watch_sample **pts)
{
	*pts = tl->pts;
	return tl->n;
}

/* The smallest 1, 2 or 5 times a power of ten that is at least RAW (>= 1). */
static uint64_t nice_step(uint64_t raw)
{
	uint64_t p = 1;

	if (raw <= 1)
		return 1;
	while (p <= UINT64_MAX / 10 && p * 10 < raw)
		p *= 10;
	if (p >= raw)
		return p;
	if (p <= UINT64_MAX / 2 && 2 * p >= raw)
		return 2 * p;
	if (p <= UINT64_MAX / 5 && 5 * p >= raw)
		return 5 * p;
	return p <= UINT64_MAX / 10 ? 10 * p : p;
}

/* The top of the stack of categories of point P. */
static uint64_t stack_top(const struct watch_sample *p)
{
	uint64_t v = 0;

	for (int c = 0; c < PMAPS_X_COUNT; c++)
		v = sat_add(v, p->cat[c]);
	return v;
}

static size_t peak_index(const struct timeline *tl)
{
	size_t k = 0;

	for (size_t i = 1; i < tl->n; i++)
		if (key(&tl->pts[i]) > key(&tl->pts[k]))
			k = i;
	return k;
}

static void layout(const struct timeline *tl, struct lay *L)
{
	static const char *const bunits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
	uint64_t maxv = 0, range;
	int u = 0;

	memset(L, 0, sizeof(*L));
	L->tmax = tl->n ? tl->pts[tl->n - 1].t_ns : 0;
	if (L->tmax == 0)
		L->tmax = 1;
	L->xstep = nice_step(L->tmax / 6 + (L->tmax % 6 != 0));
	if (L->xstep >= 1000000000ull) {
		L->xunit = 1000000000ull;
		L->xunit_name = "s";
	} else if (L->xstep >= 1000000ull) {
		L->xunit = 1000000ull;
		L->xunit_name = "ms";
	} else if (L->xstep >= 1000ull) {
		L->xunit = 1000ull;
		L->xunit_name = "\xc2\xb5s";
	} else {
		L->xunit = 1;
		L->xunit_name = "ns";
	}
	for (size_t i = 0; i < tl->n; i++) {
		const struct watch_sample *p = &tl->pts[i];
		uint64_t top = stack_top(p);
		if (top > maxv)
			maxv = top;
		if (key(p) > maxv)
			maxv = key(p);
		if (p->lazyfree_known && p->lazyfree > maxv)
			maxv = p->lazyfree;
		/* The runtime's figures are its word, not resident bytes: they may pass the RSS. */
		if (p->rt_kind && p->rt_held > maxv)
			maxv = p->rt_held;
		if (p->rt_kind && p->rt_live > maxv)
			maxv = p->rt_live;
		if (p->touched_known && p->touched > maxv)
			maxv = p->touched;
	}
	/* A unit with at least 4 of it below the top: whole numbers on every tick. */
	L->yunit = 1;
	while (u < 6 && maxv / L->yunit >= 4096) {
		L->yunit <<= 10;
		u++;
	}
	L->yunit_name = bunits[u];
	range = maxv / L->yunit + (maxv % L->yunit != 0);
	if (range == 0)
		range = 1;
	L->ystep = nice_step((range + 4) / 5);
	L->ymax = (double)((range + L->ystep - 1) / L->ystep) * (double)L->ystep * (double)L->yunit;
	L->entries = __builtin_popcount(tl->ever) + 2 + tl->lazy_ever + tl->kids_ever +
	             2 * (tl->rt_ever != 0) + tl->ws_ever; /* + RSS, peak */
	L->rows = (L->entries + TL_LEGEND_COLS - 1) / TL_LEGEND_COLS;
	L->height = tl->n < 2 ? TL_EMPTY_HEIGHT : TL_LEGEND_Y + L->rows * TL_LEGEND_ROW;
}

static double X(const struct lay *L, uint64_t t)
{
	return TL_X0 + (TL_X1 - TL_X0) * ((double)t / (double)L->tmax);
}

static double Y(const struct lay *L, uint64_t b)
{
	return TL_Y1 - (TL_Y1 - TL_Y0) * ((double)b / L->ymax);
}

void timeline_geometry(const struct timeline *tl, double *width, double *height)
{
	struct lay L;

	layout(tl, &L);
	*width = TL_WIDTH;
	*height = L.height;
}

void timeline_where(const struct timeline *tl, uint64_t t_ns, uint64_t bytes, double *x,
                    double *y)
{
	struct lay L;

	layout(tl, &L);
	*x = X(&L, t_ns);
	*y = Y(&L, bytes);
}

/* "12.345 s" into DST (40 bytes). */
static size_t fmt_secs(char *dst, uint64_t ns)
{
	uint64_t ms = ns / 1000000ull;
	size_t n = fmt_u64(dst, ms / 1000);

	dst[n++] = '.';
	dst[n++] = (char)('0' + ms % 1000 / 100);
	dst[n++] = (char)('0' + ms % 100 / 10);
	dst[n++] = (char)('0' + ms % 10);
	memcpy(dst + n, " s", 3);
	return n + 2;
}

/* "1150.000 ms": NS in UNIT (the time axis's), three decimals, into DST (48 bytes). */
static size_t fmt_in_unit(char *dst, uint64_t ns, uint64_t unit, const char *name)
{
	uint64_t frac = (ns % unit) * 1000 / unit;
	size_t n = fmt_u64(dst, ns / unit), k = strlen(name);

	if (unit > 1) {
		dst[n++] = '.';
		dst[n++] = (char)('0' + frac / 100);
		dst[n++] = (char)('0' + frac / 10 % 10);
		dst[n++] = (char)('0' + frac % 10);
	}
	dst[n++] = ' ';
	memcpy(dst + n, name, k + 1);
	return n + k;
}

static void text(struct out *o, double x, double y, enum svg_anchor a, double size,
                 const char *fill, const char *s)
{
	svg_text(o, x, y, a, size, fill, s, strlen(s));
}

static void axes(struct out *o, const struct lay *L)
{
	char lab[64];
	size_t n;

	/* Horizontal grid and the byte labels. */
	for (uint64_t k = 0;; k++) {
		double b = (double)k * (double)L->ystep * (double)L->yunit;
		double y;
		if (b > L->ymax * 1.0000001)
			break;
		y = TL_Y1 - (TL_Y1 - TL_Y0) * (b / L->ymax);
		if (k)
			svg_line(o, TL_X0, y, TL_X1, y, SVG_C_GRID, 1, 0);
		n = fmt_u64(lab, k * L->ystep);
		if (k) {
			lab[n++] = ' ';
			strcpy(lab + n, L->yunit_name);
		}
		text(o, TL_X0 - 6, y + 4, SVG_END, 11, SVG_C_INK, lab);
	}
	/* Vertical grid and the time labels. */
	for (uint64_t t = 0; t <= L->tmax; t += L->xstep) {
		double x = X(L, t);
		if (t)
			svg_line(o, x, TL_Y0, x, TL_Y1, SVG_C_GRID, 1, 0);
		fmt_u64(lab, t / L->xunit);
		text(o, x, TL_Y1 + 16, SVG_MIDDLE, 11, SVG_C_INK, lab);
		if (t > UINT64_MAX - L->xstep)
			break;
	}
	n = (size_t)snprintf(lab, sizeof(lab), "time (%s)", L->xunit_name);
	svg_text(o, (TL_X0 + TL_X1) / 2, TL_Y1 + 36, SVG_MIDDLE, 12, SVG_C_INK, lab, n);
}

/* The frame drawn over the areas: the axes' lines. */
static void frame(struct out *o)
{
	svg_line(o, TL_X0, TL_Y1, TL_X1, TL_Y1, SVG_C_INK, 1, 0);
	svg_line(o, TL_X0, TL_Y0, TL_X0, TL_Y1, SVG_C_INK, 1, 0);
}

static void areas(struct out *o, const struct timeline *tl, const struct lay *L)
{
	for (int c = 0; c < PMAPS_X_COUNT; c++) {
		if (!(tl->ever & (1u << c)))
			continue;
		svg_path_begin(o, cat_colour[c], "none", 0);
		/*
		 * The top edge left to right, then the bottom edge back, over the
		 * breakdowns (a status sample knows no category: the RSS line has it).
		 */
		for (size_t i = 0, pen = 0; i < tl->n; i++) {
			uint64_t base = 0;
			if (tl->pts[i].status_only)
				continue;
			for (int d = 0; d < c; d++)
				base = sat_add(base, tl->pts[i].cat[d]);
			svg_path_to(o, pen ? 'L' : 'M', X(L, tl->pts[i].t_ns),
			            Y(L, sat_add(base, tl->pts[i].cat[c])));
			pen = 1;
		}
		for (size_t i = tl->n; i-- > 0;) {
			uint64_t base = 0;
			if (tl->pts[i].status_only)
				continue;
			for (int d = 0; d < c; d++)
				base = sat_add(base, tl->pts[i].cat[d]);
			svg_path_to(o, 'L', X(L, tl->pts[i].t_ns), Y(L, base));
		}
		svg_path_end(o, 1);
	}
	if (!tl->kids_ever)
		return;
	/* The descendants: from the process's RSS up, where they were read. */
	svg_path_begin(o, TL_C_KIDS, "none", 0);
	for (size_t i = 0, pen = 0; i < tl->n; i++) {
		if (!tl->pts[i].kids_known)
			continue;
		svg_path_to(o, pen ? 'L' : 'M', X(L, tl->pts[i].t_ns), Y(L, key(&tl->pts[i])));
		pen = 1;
	}
	for (size_t i = tl->n; i-- > 0;)
		if (tl->pts[i].kids_known)
			svg_path_to(o, 'L', X(L, tl->pts[i].t_ns), Y(L, tl->pts[i].rss));
	svg_path_end(o, 1);
}

/* The runtime's figure of point P: its live bytes, or (HELD) live and free. */
static uint64_t rt_fig(const struct watch_sample *p, int held)
{
	return held ? p->rt_held : p->rt_live;
}

/* A line of the runtime's books: unknown is a gap, a lone value a mark. */
static void rt_line(struct out *o, const struct timeline *tl, const struct lay *L, int held)
{
	const char *colour = held ? TL_C_RT_HELD : TL_C_RT_LIVE;

	if (held)
		svg_path_begin_dashed(o, colour, 2, 3, 3);
	else
		svg_path_begin(o, "none", colour, 2);
	for (size_t i = 0, pen = 0; i < tl->n; i++) {
		if (!tl->pts[i].rt_kind) {
			pen = 0;
			continue;
		}
		svg_path_to(o, pen ? 'L' : 'M', X(L, tl->pts[i].t_ns), Y(L, rt_fig(&tl->pts[i], held)));
		pen = 1;
	}
	svg_path_end(o, 0);
	for (size_t i = 0; i < tl->n; i++)
		if (tl->pts[i].rt_kind && (i == 0 || !tl->pts[i - 1].rt_kind) &&
		    (i + 1 == tl->n || !tl->pts[i + 1].rt_kind))
			svg_circle(o, X(L, tl->pts[i].t_ns), Y(L, rt_fig(&tl->pts[i], held)), 2.5, colour);
}

/*
 * --wss: each reading's touched bytes as a level from its reset to the end
 * of its read, one step line over readings that follow each other (the
 * next reset comes right after a read). A gap, where no reading was kept
 * (a breakdown without one, an exec, points merged away by halving),
 * breaks it: a line is never drawn across what was not measured. A level
 * begun before the watch (the first reset) starts at 0; the last read's
 * end may pass the last sample, the right edge.
 */
static void touched_line(struct out *o, const struct timeline *tl, const struct lay *L)
{
	uint64_t prev_end = 0;
	int pen = 0;

	svg_path_begin(o, "none", TL_C_TOUCHED, 2);
	for (size_t i = 0; i < tl->n; i++) {
		const struct watch_sample *p = &tl->pts[i];
		uint64_t from, to = p->touched_end_ns < L->tmax ? p->touched_end_ns : L->tmax;
		if (p->status_only)
			continue;
		if (!p->touched_known) {
			pen = 0;
			continue;
		}
		from = to > p->touched_ns ? to - p->touched_ns : 0;
		/* Contiguous: begun within an eighth of its length of the last one's end. */
		if (pen && from > prev_end && from - prev_end > p->touched_ns / 8)
			pen = 0;
		svg_path_to(o, pen ? 'L' : 'M', X(L, from), Y(L, p->touched));
		svg_path_to(o, 'L', X(L, to), Y(L, p->touched));
		prev_end = to;
		pen = 1;
	}
	svg_path_end(o, 0);
}

static void lines(struct out *o, const struct timeline *tl, const struct lay *L)
{
	if (tl->ws_ever)
		touched_line(o, tl, L);
	if (tl->rt_ever) {
		rt_line(o, tl, L, 1);
		rt_line(o, tl, L, 0);
	}
	svg_path_begin(o, "none", TL_C_RSS, 1.5);
	for (size_t i = 0; i < tl->n; i++)
		svg_path_to(o, i ? 'L' : 'M', X(L, tl->pts[i].t_ns), Y(L, tl->pts[i].rss));
	svg_path_end(o, 0);
	if (!tl->lazy_ever)
		return;
	/* Unknown is a gap: a move, never a line to zero. */
	svg_path_begin_dashed(o, TL_C_LAZYFREE, 2, 6, 4);
	for (size_t i = 0, pen = 0; i < tl->n; i++) {
		if (!tl->pts[i].lazyfree_known) {
			pen = 0;
			continue;
		}
		svg_path_to(o, pen ? 'L' : 'M', X(L, tl->pts[i].t_ns), Y(L, tl->pts[i].lazyfree));
		pen = 1;
	}
	svg_path_end(o, 0);
	/* A known value between two unknown ones is no line: a mark, so that it shows. */
	for (size_t i = 0; i < tl->n; i++)
		if (tl->pts[i].lazyfree_known && (i == 0 || !tl->pts[i - 1].lazyfree_known) &&
		    (i + 1 == tl->n || !tl->pts[i + 1].lazyfree_known))
			svg_circle(o, X(L, tl->pts[i].t_ns), Y(L, tl->pts[i].lazyfree), 2.5,
			           TL_C_LAZYFREE);
}

static void peak(struct out *o, const struct timeline *tl, const struct lay *L)
{
	const struct watch_sample *p = &tl->pts[peak_index(tl)];
	double x = X(L, p->t_ns), y = Y(L, key(p));
	char lab[96];
	size_t n = 0;

	svg_line(o, x, y, x, TL_Y1, SVG_C_PEAK, 1, 1);
	svg_circle(o, x, y, 4.5, SVG_C_PEAK);
	memcpy(lab, "peak ", 5);
	n = 5;
	n += fmt_human(lab + n, key(p));
	memcpy(lab + n, " at ", 4);
	n += 4;
	n += fmt_in_unit(lab + n, p->t_ns, L->xunit, L->xunit_name);
	/* Beside the dot, on the side with room. */
	svg_text(o, x > (TL_X0 + TL_X1) / 2 ? x - 8 : x + 8, y - 8 < TL_Y0 - 4 ? TL_Y0 - 4 : y - 8,
	         x > (TL_X0 + TL_X1) / 2 ? SVG_END : SVG_START, 12, SVG_C_PEAK, lab, n);
}

static void legend(struct out *o, const struct timeline *tl, const struct lay *L)
{
	int k = 0;

	(void)L;
	static const char *const rt_names[][2] = {
		/* A legend column is 212 units: names of 28 characters at most (12px). */
		[WATCH_RT_GO] = {"Go live objects (HeapAlloc)", "Go heap held, not released"},
		[WATCH_RT_JVM] = {"Java heap in use", "Java heap committed"},
		[WATCH_RT_MALLOC] = {"malloc: live bytes", "malloc: live + free held"},
	};

	for (int c = 0; c <= PMAPS_X_COUNT + 6; c++) {
		double x = TL_X0 + (k % TL_LEGEND_COLS) * TL_LEGEND_W;
		double y = TL_LEGEND_Y + (k / TL_LEGEND_COLS) * TL_LEGEND_ROW;
		const char *name;
		if (c < PMAPS_X_COUNT) {
			if (!(tl->ever & (1u << c)))
				continue;
			svg_rect(o, x, y - 10, 18, 12, cat_colour[c], NULL, 0);
			name = pmaps_xcat_name((enum pmaps_xcat)c);
		} else if (c == PMAPS_X_COUNT) {
			svg_line(o, x, y - 4, x + 18, y - 4, TL_C_RSS, 1.5, 0);
			name = "RSS";
		} else if (c == PMAPS_X_COUNT + 1) {
			if (!tl->lazy_ever)
				continue;
			svg_line(o, x, y - 4, x + 18, y - 4, TL_C_LAZYFREE, 2, 1);
			name = "LazyFree (MADV_FREE)";
		} else if (c == PMAPS_X_COUNT + 2) {
			if (!tl->kids_ever)
				continue;
			svg_rect(o, x, y - 10, 18, 12, TL_C_KIDS, NULL, 0);
			name = "descendants' RSS";
		} else if (c == PMAPS_X_COUNT + 3 || c == PMAPS_X_COUNT + 4) {
			int held = c == PMAPS_X_COUNT + 4;
			if (!tl->rt_ever)
				continue;
			svg_line(o, x, y - 4, x + 18, y - 4, held ? TL_C_RT_HELD : TL_C_RT_LIVE, 2, held);
			name = rt_names[tl->rt_ever][held];
		} else if (c == PMAPS_X_COUNT + 5) {
			if (!tl->ws_ever)
				continue;
			svg_line(o, x, y - 4, x + 18, y - 4, TL_C_TOUCHED, 2, 0);
			name = "touched since each reset";
		} else {
			svg_circle(o, x + 9, y - 4, 4.5, SVG_C_PEAK);
			name = tl->kids_ever ? "peak of process + descendants" : "peak RSS";
		}
		text(o, x + 24, y, SVG_START, 12, SVG_C_INK, name ? name : "?");
		k++;
	}
}

/* A picture with fewer than two samples: no axes to speak of, and it says why. */
static void too_few(struct out *o, const struct timeline *tl)
{
	char lab[128];
	size_t n;

	if (tl->n == 0) {
		text(o, TL_WIDTH / 2, TL_EMPTY_HEIGHT / 2, SVG_MIDDLE, 16, SVG_C_INK,
		     "no samples: the process was not sampled");
		return;
	}
	memcpy(lab, "one sample only: RSS ", 21);
	n = 21;
	n += fmt_human(lab + n, tl->pts[0].rss);
	memcpy(lab + n, " at ", 4);
	n += 4;
	n += fmt_secs(lab + n, tl->pts[0].t_ns);
	svg_text(o, TL_WIDTH / 2, TL_EMPTY_HEIGHT / 2, SVG_MIDDLE, 16, SVG_C_INK, lab, n);
}

static void draw(struct out *o, const struct timeline *tl, const char *title, size_t title_len)
{
	struct lay L;

	layout(tl, &L);
	svg_begin(o, TL_WIDTH, L.height, title, title_len);
	svg_text(o, TL_WIDTH / 2, 24, SVG_MIDDLE, 16, SVG_C_INK, title, title_len);
	if (tl->n < 2) {
		too_few(o, tl);
	} else {
		axes(o, &L);
		areas(o, tl, &L);
		lines(o, tl, &L);
		frame(o);
		peak(o, tl, &L);
		legend(o, tl, &L);
	}
	svg_end(o);
}

int timeline_write(struct timeline *tl, const char *title, size_t title_len, char *msg,
                   size_t msgsz)
{
	struct out o;
	int err;

	if (msg && msgsz)
		msg[0] = '\0';
	if (!tl->open)
		return fail(msg, msgsz, EBADF, "the timeline was written already");
	tl->open = 0;
	/* A point stands for the highest of its samples: the run's end is drawn as it was. */
	if (tl->n && tl->last.t_ns != tl->pts[tl->n - 1].t_ns)
		tl->pts[tl->n++] = tl->last;
	err = outfile_begin(&tl->file, msg, msgsz);
	if (err) {
		outfile_abort(&tl->file);
		return err;
	}
	out_fd(&o, tl->file.fd, tl->buf, sizeof(tl->buf));
	draw(&o, tl, title ? title : "", title ? title_len : 0);
	out_flush(&o);
	if (o.err) {
		outfile_abort(&tl->file); /* the new file goes; what was at the path stays */
		return fail(msg, msgsz, o.err, "writing the file");
	}
	/* The commit closes it: a file system may say no only then (NFS, a full disk). */
	return outfile_commit(&tl->file, msg, msgsz);
}

void timeline_said(const struct timeline *tl)
{
	char peak[32];
	uint64_t top = 0, span = tl->n ? tl->last.t_ns : 0;

	for (size_t i = 0; i < tl->n; i++)
		if (tl->pts[i].rss > top)
			top = tl->pts[i].rss;
	fmt_human(peak, top);
	outfile_said(&tl->file, "the memory timeline: %llu sample%s over %.1f s, RSS at most %s",
	             (unsigned long long)tl->added, tl->added == 1 ? "" : "s", (double)span / 1e9,
	             peak);
}

void timeline_close(struct timeline *tl)
{
	if (!tl)
		return;
	if (tl->open)
		outfile_abort(&tl->file); /* never written: nothing left behind */
	free(tl->pts);
	free(tl);
}
