/* SPDX-License-Identifier: MIT */
/*
 * parse.h - bounded number parsers for procfs text.
 *
 * Each parser reads from *P, never past END, advances *P only on success and
 * reports overflow; none calls strtol or sscanf. They are inline because the
 * smaps parser calls them a million times a second.
 */
#ifndef PMAPS_PARSE_H
#define PMAPS_PARSE_H

#include <stdint.h>

static inline int pmaps__hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

extern const unsigned char pmaps__hex_table[256];

/* Hex digits (no 0x). Returns digits read (>0) or -1 when none or overflow. */
static inline int pmaps__parse_hex(const char **p, const char *end, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	int n = 0, d;

	while (s < end && (d = pmaps__hex_table[(unsigned char)*s]) != 0) {
		v = v << 4 | (uint64_t)(d - 1);
		s++;
		if (++n > 16)
			return -1;
	}
	if (n == 0)
		return -1;
	*p = s;
	*out = v;
	return n;
}

/* Decimal digits. Returns digits read (>0) or -1 when none or overflow. */
static inline int pmaps__parse_dec(const char **p, const char *end, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	int n = 0;

	while (s < end && (unsigned)(*s - '0') < 10) {
		unsigned d = (unsigned)(*s - '0');
		if (n >= 19 && (v > (UINT64_MAX - d) / 10))
			return -1;
		v = v * 10 + d;
		s++;
		n++;
	}
	if (n == 0)
		return -1;
	*p = s;
	*out = v;
	return n;
}

#endif
