/* SPDX-License-Identifier: MIT */
/*
 * svg.h - self-contained SVG pictures over a sink (out.h): the timeline of
 * pmaps watch and run, the address space of pmaps pages --svg, the physical
 * memory of pmaps phys. Numbers are written without printf (no locale can
 * turn a decimal point into a comma); every byte a target controls goes
 * through svg_str(), which keeps the document well-formed XML and valid UTF-8.
 */
#ifndef PMAPS_SVG_H
#define PMAPS_SVG_H

#include <stddef.h>
#include <stdint.h>

struct out;

/* One palette for every picture, so that a colour means one state everywhere. */
#define SVG_C_BACKGROUND "#ffffff"
#define SVG_C_INK        "#222222" /* text, axes */
#define SVG_C_GRID       "#dddddd"
#define SVG_C_ABSENT     "#eeeeee" /* mapped, not present */
#define SVG_C_ANON       "#3b6fd4" /* present anonymous / private */
#define SVG_C_FILE       "#2e9e5b" /* present file-backed (page cache) */
#define SVG_C_SHMEM      "#17a2b8" /* shared memory */
#define SVG_C_SHARED     "#8fd19e" /* mapped by more than one process (root) */
#define SVG_C_SWAP       "#8e44ad" /* swapped out */
#define SVG_C_ZERO       "#c8ccd0" /* the (huge) zero page */
#define SVG_C_HUGE       "#e67e22" /* a transparent or hugetlb huge page */
#define SVG_C_LAZYFREE   "#f1c40f" /* MADV_FREE: counted in RSS, reclaimable */
#define SVG_C_STACK      "#c0392b"
#define SVG_C_SLAB       "#7f8c8d"
#define SVG_C_FREE       "#f7f7f7" /* physical: free (buddy) */
#define SVG_C_KERNEL     "#555555" /* physical: in use, no user state */
#define SVG_C_RESERVED   "#000000"
#define SVG_C_PEAK       "#d62728"
#define SVG_C_TOUCHED    "#c2185b" /* pages --svg --wss: touched since the reset */

enum svg_anchor { SVG_START, SVG_MIDDLE, SVG_END };

/* The prolog and the root element, WIDTH x HEIGHT user units; the title (a
   target's bytes allowed) as <title>. */
void svg_begin(struct out *o, double width, double height, const char *title, size_t title_len);
/* Closes the root element. */
void svg_end(struct out *o);

/* A decimal number with at most one decimal, clamped to [-1e12, 1e12]. */
void svg_num(struct out *o, double v);
/*
 * Text content or an attribute value from anywhere: well-formed UTF-8 stays,
 * & < > " ' become entities, a backslash \\, and every byte that is a control
 * character, a bidi or line-breaking character, or not well-formed UTF-8
 * becomes the text escape's \xHH: what a terminal would show.
 */
void svg_str(struct out *o, const char *s, size_t n);

/* A filled rectangle; TIP (NULL for none) as a tooltip <title>. */
void svg_rect(struct out *o, double x, double y, double w, double h, const char *fill,
              const char *tip, size_t tip_len);
/* A straight line; DASHED a 4-4 dash. */
void svg_line(struct out *o, double x1, double y1, double x2, double y2, const char *stroke,
              double width, int dashed);
/* Text at (X, Y), the baseline, SIZE user units high. */
void svg_text(struct out *o, double x, double y, enum svg_anchor a, double size,
              const char *fill, const char *s, size_t n);
/*
 * A path: svg_path_begin(), then svg_path_to() for each point ('M' move,
 * 'L' line), then svg_path_end() ('Z' closes it). FILL or STROKE "none".
 */
void svg_path_begin(struct out *o, const char *fill, const char *stroke, double width);
void svg_path_to(struct out *o, char cmd, double x, double y);
void svg_path_end(struct out *o, int close);
/*
 * A rectangle as part of a path (between svg_path_begin() and
 * svg_path_end(o, 0)): a third of a <rect>'s bytes, for pictures made of
 * many rectangles of few colours, one path per colour.
 */
void svg_path_rect(struct out *o, double x, double y, double w, double h);
/* A path drawn as a DASH-GAP dashed stroke (no fill): then svg_path_to() and svg_path_end(). */
void svg_path_begin_dashed(struct out *o, const char *stroke, double width, double dash,
                           double gap);
/* A filled circle of radius R at (CX, CY). */
void svg_circle(struct out *o, double cx, double cy, double r, const char *fill);

/*
 * A group: svg_group_open() writes "<g", then any svg_attr_*() adds an
 * attribute (NAME a constant of the caller's: data-start, class, ...),
 * svg_group_body() ends the start tag; the group's elements follow, and
 * svg_group_end() closes it. A picture's data-* attributes tell programs
 * (and tests) where the picture put what.
 */
void svg_group_open(struct out *o);
void svg_attr_num(struct out *o, const char *name, double v);
void svg_attr_u64(struct out *o, const char *name, uint64_t v);
void svg_attr_hex(struct out *o, const char *name, uint64_t v); /* "0x1f000" */
void svg_attr_str(struct out *o, const char *name, const char *s, size_t n); /* escaped */
void svg_group_body(struct out *o);
void svg_group_end(struct out *o);
/* A tooltip for the element it is in (a target's bytes allowed): <title>, escaped. */
void svg_tip(struct out *o, const char *s, size_t n);

#endif
