/* SPDX-License-Identifier: MIT */
/*
 * range.c - the tool's argument parsers: sizes (every option and argument
 * that takes one: demo --size, a range's LEN) and the address-range argument
 * of pmaps pages.
 *
 *   ADDR          one page                    7f3a2c000000, 0x7f3a2c000000
 *   START-END     [START, END)                7f3a2c000000-7f3a2c200000
 *   START+LEN     [START, START+LEN)          7f3a2c000000+2M, 0x400000+0x1000
 *   NAME          every mapping of that name  [heap], [stack], /usr/lib/libc.so.6
 *
 * Addresses are hex, as maps prints them (0x optional). LEN is a size as
 * every option takes one (parse_size(): decimal, or hex after 0x, with an
 * optional K, M, G or T, powers of 1024). A name is anything starting with
 * '[' or '/'.
 */
#include <stdio.h>
#include <string.h>

#include "common/tool.h"

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Hex digits (at least one, no more than fit). Advances *S on success. */
static int hex_digits(const char **s, uint64_t *out)
{
	const char *p = *s;
	uint64_t v = 0;
	int n = 0, d;

	for (; (d = hexval(*p)) >= 0; p++, n++) {
		if (v >> 60)
			return -1;
		v = v << 4 | (uint64_t)d;
	}
	if (n == 0)
		return -1;
	*s = p;
	*out = v;
	return 0;
}

/* An address: hex digits, 0x optional. Advances *S on success. */
static int parse_addr(const char **s, uint64_t *out)
{
	if ((*s)[0] == '0' && ((*s)[1] == 'x' || (*s)[1] == 'X'))
		*s += 2;
	return hex_digits(s, out);
}

int parse_size(const char *p, uint64_t *out)
{
	static const char units[] = "kmgt";
	const char *u;
	uint64_t v = 0;
	unsigned shift = 0;
	int n = 0;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		p += 2;
		if (hex_digits(&p, &v) < 0)
			return -1;
	} else {
		for (; *p >= '0' && *p <= '9'; p++, n++) {
			uint64_t d = (uint64_t)(*p - '0');
			if (v > (UINT64_MAX - d) / 10)
				return -1;
			v = v * 10 + d;
		}
		if (n == 0)
			return -1;
	}
	/* K, KB, KiB (any case) alike: powers of 1024. */
	if (*p && (u = strchr(units, *p | 0x20)) != NULL) {
		shift = 10 * (unsigned)(u - units + 1);
		p++;
		if ((*p | 0x20) == 'i' && (p[1] | 0x20) == 'b')
			p += 2;
		else if ((*p | 0x20) == 'b')
			p++;
	}
	if (*p || (shift && v > UINT64_MAX >> shift))
		return -1;
	*out = v << shift;
	return 0;
}

int parse_range(const char *s, struct range_arg *r, char *err, size_t errsz)
{
	const char *p = s;
	uint64_t a, b;

	memset(r, 0, sizeof(*r));
	if (s[0] == '[' || s[0] == '/') {
		r->name = s;
		r->name_len = strlen(s);
		return 0;
	}
	if (parse_addr(&p, &a) < 0)
		goto bad;
	if (*p == '\0') {
		r->start = a;
		r->end = a + 1 > a ? a + 1 : a;
		return 0;
	}
	if (*p == '-') {
		p++;
		if (parse_addr(&p, &b) < 0 || *p)
			goto bad;
		if (b <= a) {
			snprintf(err, errsz, b == a ? "range '%s' is empty (END is exclusive)"
			                            : "range '%s' ends before it starts", s);
			return -1;
		}
		r->start = a;
		r->end = b;
		return 0;
	}
	if (*p == '+') {
		if (parse_size(p + 1, &b) < 0)
			goto bad;
		if (b == 0) {
			snprintf(err, errsz, "range '%s' is empty", s);
			return -1;
		}
		if (b > UINT64_MAX - a) {
			snprintf(err, errsz, "range '%s' runs past the end of the address space", s);
			return -1;
		}
		r->start = a;
		r->end = a + b;
		return 0;
	}
bad:
	snprintf(err, errsz,
	         "'%s' is not a range: ADDR, START-END or START+LEN (addresses in hex, LEN "
	         "with K/M/G), or a mapping name such as [heap] or a path",
	         s);
	return -1;
}

int pages_in_range(const struct range_arg *range, const struct pmaps_mapping *m, uint64_t *start,
                   uint64_t *end)
{
	*start = m->start;
	*end = m->end;
	if (!range)
		return 1;
	if (range->name)
		return m->path.len == range->name_len &&
		       memcmp(m->path.ptr, range->name, m->path.len) == 0;
	if (m->end <= range->start || m->start >= range->end)
		return 0;
	*start = m->start < range->start ? range->start : m->start;
	*end = m->end > range->end ? range->end : m->end;
	return 1;
}
