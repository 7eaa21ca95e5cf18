/* SPDX-License-Identifier: MIT */
/*
 * util.c - the tool's output writer, number formatting, column names and
 * messages (escaping is escape.c's).
 *
 * The writer formats numbers by hand into a 64 KiB buffer: printf would cost
 * more than parsing the smaps text did, on a 60k-mapping process.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "tool.h"

void out_init(struct out *o, int fd)
{
	o->fd = fd;
	o->err = 0;
	o->len = 0;
}

void out_flush(struct out *o)
{
	size_t off = 0;

	while (off < o->len && !o->err) {
		ssize_t n = write(o->fd, o->buf + off, o->len - off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			o->err = errno;
			break;
		}
		off += (size_t)n;
	}
	o->len = 0;
}

void out_mem(struct out *o, const char *s, size_t n)
{
	while (n > 0) {
		size_t room = sizeof(o->buf) - o->len;
		if (room == 0) {
			out_flush(o);
			room = sizeof(o->buf);
		}
		if (room > n)
			room = n;
		memcpy(o->buf + o->len, s, room);
		o->len += room;
		s += room;
		n -= room;
	}
}

void out_str(struct out *o, const char *s)
{
	out_mem(o, s, strlen(s));
}

void out_ch(struct out *o, char c)
{
	if (o->len == sizeof(o->buf))
		out_flush(o);
	o->buf[o->len++] = c;
}

void out_pad(struct out *o, size_t n)
{
	static const char sp[] = "                                ";

	while (n > 0) {
		size_t k = n < sizeof(sp) - 1 ? n : sizeof(sp) - 1;
		out_mem(o, sp, k);
		n -= k;
	}
}

size_t fmt_u64(char *dst, uint64_t v)
{
	char tmp[24];
	size_t n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (size_t i = 0; i < n; i++)
		dst[i] = tmp[n - 1 - i];
	dst[n] = '\0';
	return n;
}

void out_u64(struct out *o, uint64_t v)
{
	char b[24];
	out_mem(o, b, fmt_u64(b, v));
}

void out_key_u64(struct out *o, const char *key, uint64_t v)
{
	out_str(o, key);
	out_u64(o, v);
}

void out_hex(struct out *o, uint64_t v, int min_digits)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[16];
	int n = 0;

	do {
		tmp[n++] = digits[v & 15];
		v >>= 4;
	} while (v);
	while (n < min_digits && n < 16)
		tmp[n++] = '0';
	while (n > 0)
		out_ch(o, tmp[--n]);
}

/* Room for N more bytes in the buffer (N <= its size), flushing if needed. */
static char *out_reserve(struct out *o, size_t n)
{
	if (sizeof(o->buf) - o->len < n)
		out_flush(o);
	return o->buf + o->len;
}

void out_rjust(struct out *o, const char *s, size_t len, size_t width)
{
	size_t pad = len < width ? width - len : 0;
	char *d;

	if (pad + len > 1024) {
		out_pad(o, pad);
		out_mem(o, s, len);
		return;
	}
	d = out_reserve(o, pad + len);
	memset(d, ' ', pad);
	memcpy(d + pad, s, len);
	o->len += pad + len;
}

void out_ljust(struct out *o, const char *s, size_t len, size_t width)
{
	size_t pad = len < width ? width - len : 0;
	char *d;

	if (pad + len > 1024) {
		out_mem(o, s, len);
		out_pad(o, pad);
		return;
	}
	d = out_reserve(o, pad + len);
	memcpy(d, s, len);
	memset(d + len, ' ', pad);
	o->len += pad + len;
}

size_t fmt_human(char *dst, uint64_t b)
{
	static const char units[] = "KMGTPE";
	unsigned sh = 10, u = 0; /* shifts, not divisions: this runs per cell */
	uint64_t whole;
	size_t n;

	if (b < 1024) {
		n = fmt_u64(dst, b);
		if (b) {
			dst[n++] = 'B';
			dst[n] = '\0';
		}
		return n;
	}
	while (u < 5 && (b >> sh) >= 1024) {
		sh += 10;
		u++;
	}
	whole = b >> sh;
	if ((b & ((1ull << sh) - 1)) == 0 || whole >= 10) {
		/* Whole units, rounded to nearest. */
		n = fmt_u64(dst, whole + ((b >> (sh - 1)) & 1));
	} else {
		/* One decimal, rounded to nearest: 1.5M. */
		uint64_t t = ((b >> (sh - 10)) * 10 + 512) >> 10;
		n = fmt_u64(dst, t / 10);
		if (t < 100) {
			dst[n++] = '.';
			dst[n++] = (char)('0' + t % 10);
		}
	}
	dst[n++] = units[u];
	dst[n] = '\0';
	return n;
}

/*
 * Messages quote what users typed and what targets named (paths, runtime
 * versions, the library's messages about them): all of it goes through the
 * text escape on its way to the terminal.
 */
__attribute__((format(printf, 2, 0)))
static void msg_out(const char *prefix, const char *fmt, va_list ap)
{
	char m[1024], e[4 * sizeof(m) + 4];
	int n = vsnprintf(m, sizeof(m), fmt, ap);

	if (n < 0)
		n = 0;
	esc_text(e, sizeof(e), m, (size_t)n < sizeof(m) ? (size_t)n : sizeof(m) - 1);
	fputs(prefix, stderr);
	fputs(e, stderr);
	fputc('\n', stderr);
}

void die_msg(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	va_start(ap, fmt);
	msg_out("pmaps: ", fmt, ap);
	va_end(ap);
}

void note_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	msg_out("pmaps: note: ", fmt, ap);
	va_end(ap);
}

static const char *const col_names[COL_COUNT - PMAPS_F_COUNT] = {
	"address", "start", "end", "perms", "offset", "dev", "inode", "kind",
	"shared", "mappings", "vsize", "vm_flags", "path",
};

const char *col_name(int col)
{
	if (col >= 0 && col < PMAPS_F_COUNT)
		return pmaps_field_key((enum pmaps_field)col);
	if (col >= PMAPS_F_COUNT && col < COL_COUNT)
		return col_names[col - PMAPS_F_COUNT];
	return NULL;
}

int col_lookup(const char *s, size_t n)
{
	int f = pmaps_field_lookup(s, n);

	if (f >= 0)
		return f;
	for (int c = PMAPS_F_COUNT; c < COL_COUNT; c++)
		if (strlen(col_names[c - PMAPS_F_COUNT]) == n &&
		    strncasecmp(col_names[c - PMAPS_F_COUNT], s, n) == 0)
			return c;
	if (n == 7 && strncasecmp(s, "vmflags", 7) == 0)
		return COL_VMFLAGS;
	return -1;
}

int parse_columns(const char *spec, int *cols, int max, int grouped)
{
	int n = 0;

	if (strcmp(spec, "all") == 0) {
		static const int lead[] = {COL_ADDRESS, COL_PERMS, COL_OFFSET, COL_DEV, COL_INODE, COL_KIND};
		if (grouped) {
			cols[n++] = COL_KIND;
			cols[n++] = COL_MAPPINGS;
			cols[n++] = COL_VSIZE;
		} else {
			for (size_t i = 0; i < sizeof(lead) / sizeof(lead[0]); i++)
				cols[n++] = lead[i];
		}
		for (int f = 0; f < PMAPS_F_COUNT; f++)
			cols[n++] = f;
		if (!grouped)
			cols[n++] = COL_VMFLAGS;
		cols[n++] = COL_PATH;
		return n;
	}
	while (*spec) {
		const char *e = strchr(spec, ',');
		size_t len = e ? (size_t)(e - spec) : strlen(spec);
		int c = col_lookup(spec, len);
		if (c < 0) {
			die_msg("--fields: unknown field '%.*s' (see pmaps maps --help)", (int)len, spec);
			return -1;
		}
		if (grouped && (c == COL_ADDRESS || c == COL_START || c == COL_END || c == COL_PERMS ||
		                c == COL_OFFSET || c == COL_DEV || c == COL_INODE || c == COL_VMFLAGS)) {
			die_msg("--fields: '%.*s' is per mapping and cannot be shown with --group or --total",
			        (int)len, spec);
			return -1;
		}
		if (n >= max) {
			die_msg("--fields: too many fields");
			return -1;
		}
		cols[n++] = c;
		spec += len;
		if (*spec == ',')
			spec++;
	}
	if (n == 0) {
		die_msg("--fields: no field named");
		return -1;
	}
	return n;
}
