/* SPDX-License-Identifier: MIT */
/*
 * out.c - the sink (a file descriptor or a bounded memory buffer) and the
 * number formatting every writer uses.
 *
 * Numbers are formatted by hand straight into the sink's buffer: printf
 * would cost more than parsing the smaps text did, on a 60k-mapping
 * process. The fast paths are out.h's inline out_reserve() and out_ch();
 * this file holds what runs when a buffer is full.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/out.h"

static const char hexdig[] = "0123456789abcdef";

void out_fd(struct out *o, int fd, char *buf, size_t cap)
{
	memset(o, 0, offsetof(struct out, junk));
	o->fd = fd;
	o->buf = buf;
	o->cap = cap;
}

void out_memory(struct out *o, char *buf, size_t cap)
{
	memset(o, 0, offsetof(struct out, junk));
	o->fd = -1;
	o->buf = o->mem = buf;
	o->cap = cap;
}

void out_flush(struct out *o)
{
	size_t off = 0;

	if (o->fd < 0)
		return;
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
	o->mark = 0;
}

size_t out_kept(const struct out *o)
{
	return o->buf == o->mem ? o->len : o->kept;
}

uint64_t out_dropped(const struct out *o)
{
	return o->buf == o->mem ? 0 : o->dropped + o->len;
}

char *out_reserve_slow(struct out *o, size_t n)
{
	if (o->fd >= 0) {
		out_flush(o);
	} else if (o->buf == o->mem) {
		/* Full: keep the whole records, drop the one being written and the rest. */
		o->kept = o->mark;
		o->dropped = o->len - o->mark;
		o->err = ENOBUFS;
		o->buf = o->junk;
		o->cap = sizeof(o->junk);
		o->len = 0;
	} else {
		o->dropped += o->len;
		o->len = 0;
	}
	(void)n; /* N <= OUT_RESERVE_MAX <= every buffer's size */
	return o->buf + o->len;
}

void out_mem_slow(struct out *o, const char *s, size_t n)
{
	while (n > 0) {
		size_t room = o->cap - o->len;
		if (room == 0) {
			out_reserve_slow(o, 1);
			room = o->cap - o->len;
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

void out_pad(struct out *o, size_t n)
{
	while (n > 0) {
		size_t k = n < OUT_RESERVE_MAX ? n : OUT_RESERVE_MAX;
		memset(out_reserve(o, k), ' ', k);
		out_advance(o, k);
		n -= k;
	}
}

size_t fmt_u64(char *dst, uint64_t v)
{
	/* Two digits a division, written from the end: this runs for every number. */
	static const char pairs[201] =
		"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
		"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
		"8081828384858687888990919293949596979899";
	static const uint64_t pow10[20] = {
		1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
		100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
		10000000000000ull, 100000000000000ull, 1000000000000000ull, 10000000000000000ull,
		100000000000000000ull, 1000000000000000000ull, 10000000000000000000ull};
	/* The digit count from the bit count (log10(2) ~ 1233 / 4096), then one comparison. */
	unsigned t = ((64u - (unsigned)__builtin_clzll(v | 1)) * 1233u) >> 12;
	size_t n = v ? t + 1 - (v < pow10[t]) : 1;
	char *d;

	d = dst + n;
	*d = '\0';
	while (v >= 100) {
		unsigned r = (unsigned)(v % 100);
		v /= 100;
		d -= 2;
		memcpy(d, pairs + 2 * r, 2);
	}
	if (v >= 10) {
		d -= 2;
		memcpy(d, pairs + 2 * v, 2);
	} else {
		*--d = (char)('0' + v);
	}
	return n;
}

size_t fmt_hex(char *dst, uint64_t v, int min)
{
	size_t n = v ? (size_t)(67 - __builtin_clzll(v)) / 4 : 1;

	if (min > 16)
		min = 16;
	if (n < (size_t)min)
		n = (size_t)min;
	dst[n] = '\0';
	for (size_t i = n; i > 0; i--, v >>= 4)
		dst[i - 1] = hexdig[v & 15];
	return n;
}

void out_u64(struct out *o, uint64_t v)
{
	out_advance(o, fmt_u64(out_reserve(o, 24), v));
}

void out_hex(struct out *o, uint64_t v, int min_digits)
{
	out_advance(o, fmt_hex(out_reserve(o, 17), v, min_digits));
}

void out_0x(struct out *o, uint64_t v)
{
	char *d = out_reserve(o, 19);

	d[0] = '0';
	d[1] = 'x';
	out_advance(o, 2 + fmt_hex(d + 2, v, 1));
}

void out_rjust(struct out *o, const char *s, size_t len, size_t width)
{
	size_t pad = len < width ? width - len : 0;
	char *d;

	if (pad + len > OUT_RESERVE_MAX) {
		out_pad(o, pad);
		out_mem(o, s, len);
		return;
	}
	d = out_reserve(o, pad + len);
	memset(d, ' ', pad);
	memcpy(d + pad, s, len);
	out_advance(o, pad + len);
}

void out_ljust(struct out *o, const char *s, size_t len, size_t width)
{
	size_t pad = len < width ? width - len : 0;
	char *d;

	if (pad + len > OUT_RESERVE_MAX) {
		out_mem(o, s, len);
		out_pad(o, pad);
		return;
	}
	d = out_reserve(o, pad + len);
	memcpy(d, s, len);
	memset(d + len, ' ', pad);
	out_advance(o, pad + len);
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

size_t fmt_percent(char *dst, uint64_t part, uint64_t whole)
{
	/* Tenths of a percent, in floating point: PART * 1000 could overflow. */
	uint64_t t = whole ? (uint64_t)((double)part * 1000.0 / (double)whole + 0.5) : 0;
	size_t n = fmt_u64(dst, t / 10);

	dst[n++] = '.';
	dst[n++] = (char)('0' + t % 10);
	dst[n++] = '%';
	dst[n] = '\0';
	return n;
}

size_t out_printf(struct out *o, const char *fmt, ...)
{
	char b[OUT_RESERVE_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(b, sizeof(b), fmt, ap);
	va_end(ap);
	if (n < 0)
		return 0;
	if ((size_t)n >= sizeof(b))
		n = sizeof(b) - 1;
	out_mem(o, b, (size_t)n);
	return (size_t)n;
}
