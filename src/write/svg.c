/* SPDX-License-Identifier: MIT */
/*
 * svg.c - SVG over a sink (svg.h).
 */
#include "write/svg.h"

#include <stdint.h>

#include "common/escape.h"
#include "common/out.h"

void svg_num(struct out *o, double v)
{
	uint64_t tenths;

	int neg = 0;

	if (!(v == v))
		v = 0;
	if (v < 0) {
		neg = 1;
		v = -v;
	}
	if (v > 1e12)
		v = 1e12;
	tenths = (uint64_t)(v * 10 + 0.5);
	/* What rounds to 0 is "0", never "-0". */
	if (neg && tenths)
		out_ch(o, '-');
	out_u64(o, tenths / 10);
	if (tenths % 10) {
		out_ch(o, '.');
		out_ch(o, (char)('0' + tenths % 10));
	}
}

static void hex_byte(struct out *o, unsigned char c)
{
	static const char hex[] = "0123456789abcdef";
	char *p = out_reserve(o, 4);

	p[0] = '\\';
	p[1] = 'x';
	p[2] = hex[c >> 4];
	p[3] = hex[c & 15];
	out_advance(o, 4);
}

/* Characters the text escape shows as \xHH: bidi controls, line and paragraph separators. */
static int breaks_text(uint32_t cp)
{
	return (cp >= 0x200e && cp <= 0x200f) || (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069) || cp == 0x2028 || cp == 0x2029 ||
	       cp == 0x061c || cp == 0xfffe || cp == 0xffff;
}

void svg_str(struct out *o, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	while (i < n) {
		uint32_t cp;
		size_t len = esc_utf8_seq(p + i, n - i, &cp);

		if (len == 0) {
			hex_byte(o, p[i++]);
			continue;
		}
		if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || breaks_text(cp)) {
			for (size_t k = 0; k < len; k++)
				hex_byte(o, p[i + k]);
		} else if (cp == '&') {
			out_str(o, "&amp;");
		} else if (cp == '<') {
			out_str(o, "&lt;");
		} else if (cp == '>') {
			out_str(o, "&gt;");
		} else if (cp == '"') {
			out_str(o, "&quot;");
		} else if (cp == '\'') {
			out_str(o, "&apos;");
		} else if (cp == '\\') {
			out_str(o, "\\\\");
		} else {
			out_mem(o, s + i, len);
		}
		i += len;
	}
}

void svg_begin(struct out *o, double width, double height, const char *title, size_t title_len)
{
	out_str(o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	           "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"");
	svg_num(o, width);
	out_str(o, "\" height=\"");
	svg_num(o, height);
	out_str(o, "\" viewBox=\"0 0 ");
	svg_num(o, width);
	out_ch(o, ' ');
	svg_num(o, height);
	out_str(o, "\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n<title>");
	svg_str(o, title, title_len);
	out_str(o, "</title>\n<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" fill=\"" SVG_C_BACKGROUND
	           "\"/>\n");
	out_record(o);
}

void svg_end(struct out *o)
{
	out_str(o, "</svg>\n");
	out_record(o);
}

void svg_rect(struct out *o, double x, double y, double w, double h, const char *fill,
              const char *tip, size_t tip_len)
{
	out_str(o, "<rect x=\"");
	svg_num(o, x);
	out_str(o, "\" y=\"");
	svg_num(o, y);
	out_str(o, "\" width=\"");
	svg_num(o, w);
	out_str(o, "\" height=\"");
	svg_num(o, h);
	out_str(o, "\" fill=\"");
	out_str(o, fill);
	if (tip) {
		out_str(o, "\"><title>");
		svg_str(o, tip, tip_len);
		out_str(o, "</title></rect>\n");
	} else {
		out_str(o, "\"/>\n");
	}
	out_record(o);
}

void svg_line(struct out *o, double x1, double y1, double x2, double y2, const char *stroke,
              double width, int dashed)
{
	out_str(o, "<line x1=\"");
	svg_num(o, x1);
	out_str(o, "\" y1=\"");
	svg_num(o, y1);
	out_str(o, "\" x2=\"");
	svg_num(o, x2);
	out_str(o, "\" y2=\"");
	svg_num(o, y2);
	out_str(o, "\" stroke=\"");
	out_str(o, stroke);
	out_str(o, "\" stroke-width=\"");
	svg_num(o, width);
	out_str(o, dashed ? "\" stroke-dasharray=\"4 4\"/>\n" : "\"/>\n");
	out_record(o);
}

void svg_text(struct out *o, double x, double y, enum svg_anchor a, double size,
              const char *fill, const char *s, size_t n)
{
	static const char *const anchor[] = {"start", "middle", "end"};

	out_str(o, "<text x=\"");
	svg_num(o, x);
	out_str(o, "\" y=\"");
	svg_num(o, y);
	out_str(o, "\" font-size=\"");
	svg_num(o, size);
	out_str(o, "\" text-anchor=\"");
	out_str(o, anchor[a <= SVG_END ? a : SVG_START]);
	out_str(o, "\" fill=\"");
	out_str(o, fill);
	out_str(o, "\">");
	svg_str(o, s, n);
	out_str(o, "</text>\n");
	out_record(o);
}

void svg_path_begin(struct out *o, const char *fill, const char *stroke, double width)
{
	out_str(o, "<path fill=\"");
	out_str(o, fill);
	out_str(o, "\" stroke=\"");
	out_str(o, stroke);
	out_str(o, "\" stroke-width=\"");
	svg_num(o, width);
	out_str(o, "\" d=\"");
}

void svg_path_to(struct out *o, char cmd, double x, double y)
{
	out_ch(o, cmd);
	svg_num(o, x);
	out_ch(o, ' ');
	svg_num(o, y);
}

void svg_path_end(struct out *o, int close)
{
	out_str(o, close ? "Z\"/>\n" : "\"/>\n");
	out_record(o);
}

void svg_path_begin_dashed(struct out *o, const char *stroke, double width, double dash,
                           double gap)
{
	out_str(o, "<path fill=\"none\" stroke=\"");
	out_str(o, stroke);
	out_str(o, "\" stroke-width=\"");
	svg_num(o, width);
	out_str(o, "\" stroke-dasharray=\"");
	svg_num(o, dash);
	out_ch(o, ' ');
	svg_num(o, gap);
	out_str(o, "\" d=\"");
}

void svg_circle(struct out *o, double cx, double cy, double r, const char *fill)
{
	out_str(o, "<circle cx=\"");
	svg_num(o, cx);
	out_str(o, "\" cy=\"");
	svg_num(o, cy);
	out_str(o, "\" r=\"");
	svg_num(o, r);
	out_str(o, "\" fill=\"");
	out_str(o, fill);
	out_str(o, "\"/>\n");
	out_record(o);
}

void svg_group_open(struct out *o)
{
	out_str(o, "<g");
}

void svg_attr_num(struct out *o, const char *name, double v)
{
	out_ch(o, ' ');
	out_str(o, name);
	out_str(o, "=\"");
	svg_num(o, v);
	out_ch(o, '"');
}

void svg_attr_u64(struct out *o, const char *name, uint64_t v)
{
	out_ch(o, ' ');
	out_str(o, name);
	out_str(o, "=\"");
	out_u64(o, v);
	out_ch(o, '"');
}

void svg_attr_hex(struct out *o, const char *name, uint64_t v)
{
	out_ch(o, ' ');
	out_str(o, name);
	out_str(o, "=\"");
	out_0x(o, v);
	out_ch(o, '"');
}

void svg_attr_str(struct out *o, const char *name, const char *s, size_t n)
{
	out_ch(o, ' ');
	out_str(o, name);
	out_str(o, "=\"");
	svg_str(o, s, n);
	out_ch(o, '"');
}

void svg_group_body(struct out *o)
{
	out_str(o, ">\n");
	out_record(o);
}

void svg_group_end(struct out *o)
{
	out_str(o, "</g>\n");
	out_record(o);
}

void svg_tip(struct out *o, const char *s, size_t n)
{
	out_str(o, "<title>");
	svg_str(o, s, n);
	out_str(o, "</title>\n");
	out_record(o);
}

void svg_path_rect(struct out *o, double x, double y, double w, double h)
{
	out_ch(o, 'M');
	svg_num(o, x);
	out_ch(o, ' ');
	svg_num(o, y);
	out_ch(o, 'h');
	svg_num(o, w);
	out_ch(o, 'v');
	svg_num(o, h);
	out_ch(o, 'h');
	svg_num(o, -w);
	out_ch(o, 'z');
}
