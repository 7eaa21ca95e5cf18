/* SPDX-License-Identifier: MIT */
/*
 * escape.c - every byte that comes from a target, made safe for where it goes.
 *
 * pmaps often runs as root against processes it does not trust, and prints
 * what they chose: file and mapping names, runtime versions, strings from
 * their files. One set of rules, used by every writer of every command:
 *
 *   text (tables, messages, CSV cells): a character passes when it is
 *   well-formed UTF-8 and a terminal only shows it. Anything else is escaped
 *   byte by byte, so the escape can be undone exactly:
 *       \\       a backslash
 *       \n \t    newline, tab
 *       \xHH     any other byte of: a C0 control or DEL; a C1 control
 *                (U+0080-U+009F: 0xC2 0x80-0x9F in UTF-8, which terminals
 *                may obey as ESC-sequences); a character that reorders or
 *                breaks the line it is on (U+061C, U+200E, U+200F, U+2028,
 *                U+2029, U+202A-U+202E, U+2066-U+2069); or a byte that is
 *                not part of well-formed UTF-8 (stray and cut sequences,
 *                overlong forms, surrogates, code points above U+10FFFF).
 *   JSON: well-formed UTF-8 stays exact, the characters above as \uXXXX;
 *   each byte that is not part of well-formed UTF-8 becomes U+FFFD, and the
 *   named writer adds KEY_hex with the exact bytes.
 *   CSV: the text escape, then RFC 4180 quoting.
 *
 * The table writers call these per row: runs of plain ASCII are copied in
 * one piece, and only other bytes go through the decoder.
 */
#include <string.h>

#include "common/escape.h"
#include "common/tool.h"

static const char hexd[] = "0123456789abcdef";

size_t esc_utf8_seq(const unsigned char *s, size_t n, uint32_t *cp)
{
	unsigned char c = s[0];
	uint32_t v, min;
	size_t len;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2, v = c & 0x1fu, min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3, v = c & 0x0fu, min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4, v = c & 0x07u, min = 0x10000;
	} else {
		return 0; /* a continuation byte, 0xc0/0xc1 (always overlong) or 0xf5-0xff */
	}
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (s[i] & 0x3fu);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return len;
}

int esc_utf8_valid(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	uint32_t cp;

	for (size_t i = 0; i < n;) {
		size_t k;
		if (p[i] < 0x80) {
			i++;
			continue;
		}
		if ((k = esc_utf8_seq(p + i, n - i, &cp)) == 0)
			return 0;
		i += k;
	}
	return 1;
}

/* Characters a terminal may act on instead of showing, or that reorder or break its line. */
static int unsafe_cp(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0x061c || cp == 0x200e ||
	       cp == 0x200f || (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

/* Plain ASCII that every writer copies as it is (JSON and CSV still look at '"'). */
static inline int plain(unsigned char c)
{
	return c >= 0x20 && c < 0x7f && c != '\\';
}

/*
 * The text escape of the character or byte at S: its bytes, raw or escaped,
 * into D (at least 16 bytes). Returns how many bytes of S it covers; *DN
 * gets the length written.
 */
static size_t text_step(const unsigned char *s, size_t n, char *d, size_t *dn)
{
	uint32_t cp;
	size_t k = esc_utf8_seq(s, n, &cp), w = 0;

	if (k && cp != '\\' && !unsafe_cp(cp)) {
		memcpy(d, s, k);
		*dn = k;
		return k;
	}
	if (!k)
		k = 1;
	for (size_t i = 0; i < k; i++) {
		d[w++] = '\\';
		if (s[i] == '\\') {
			d[w++] = '\\';
		} else if (s[i] == '\n') {
			d[w++] = 'n';
		} else if (s[i] == '\t') {
			d[w++] = 't';
		} else {
			d[w++] = 'x';
			d[w++] = hexd[s[i] >> 4];
			d[w++] = hexd[s[i] & 15];
		}
	}
	*dn = w;
	return k;
}

/* The text escape to O; with CSV, quotes doubled too. */
static void text_out(struct out *o, const char *s, size_t n, int csv)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, run = 0;
	char d[16];

	while (i < n) {
		size_t dn, k;
		if (plain(p[i]) && !(csv && p[i] == '"')) {
			i++;
			continue;
		}
		out_mem(o, s + run, i - run);
		if (p[i] == '"') {
			out_mem(o, "\"\"", 2);
			k = 1;
		} else {
			k = text_step(p + i, n - i, d, &dn);
			out_mem(o, d, dn);
		}
		i += k;
		run = i;
	}
	out_mem(o, s + run, n - run);
}

void out_table_str(struct out *o, const char *s, size_t n)
{
	text_out(o, s, n, 0);
}

size_t esc_text(char *dst, size_t size, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = 0;
	char d[16];
	int cut;

	if (size < 4) {
		if (size)
			dst[0] = '\0';
		return 0;
	}
	/* Whether all of it fits; if not, room is kept for the "...". */
	for (size_t i = 0, dn; i < n && len < size; len += dn)
		i += text_step(p + i, n - i, d, &dn);
	cut = len >= size;
	len = 0;
	for (size_t i = 0; i < n;) {
		size_t dn, k = text_step(p + i, n - i, d, &dn);
		if (len + dn + (cut ? 3 : 0) >= size) {
			memcpy(dst + len, "...", 3);
			len += 3;
			break;
		}
		memcpy(dst + len, d, dn);
		len += dn;
		i += k;
	}
	dst[len] = '\0';
	return len;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

ssize_t esc_text_unescape(char *dst, size_t size, const char *s, size_t n)
{
	size_t len = 0;

	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '\\') {
			if (++i == n)
				return -1;
			switch (s[i]) {
			case '\\': c = '\\'; break;
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'x': {
				int hi = i + 2 < n ? hexval(s[i + 1]) : -1;
				int lo = hi >= 0 ? hexval(s[i + 2]) : -1;
				if (lo < 0)
					return -1;
				c = (char)(hi << 4 | lo);
				i += 2;
				break;
			}
			default: return -1;
			}
		}
		if (len == size)
			return -1;
		dst[len++] = c;
	}
	return (ssize_t)len;
}

void out_csv_str(struct out *o, const char *s, size_t n)
{
	int quote = memchr(s, ',', n) != NULL || memchr(s, '"', n) != NULL;

	if (quote)
		out_ch(o, '"');
	text_out(o, s, n, quote);
	if (quote)
		out_ch(o, '"');
}

int out_json_str(struct out *o, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, run = 0;
	int valid = 1;

	/* Most names are plain ASCII: those go out in one piece. */
	while (i < n && plain(p[i]) && p[i] != '"')
		i++;
	if (i == n && n + 2 <= OUT_RESERVE_MAX) {
		char *d = out_reserve(o, n + 2);
		d[0] = '"';
		memcpy(d + 1, s, n);
		d[n + 1] = '"';
		out_advance(o, n + 2);
		return 1;
	}
	out_ch(o, '"');
	while (i < n) {
		uint32_t cp;
		size_t k;
		if (plain(p[i]) && p[i] != '"') {
			i++;
			continue;
		}
		k = esc_utf8_seq(p + i, n - i, &cp);
		if (k > 1 && !unsafe_cp(cp)) {
			i += k;
			continue;
		}
		out_mem(o, s + run, i - run);
		if (!k) {
			out_mem(o, "\\ufffd", 6);
			k = 1;
			valid = 0;
		} else if (cp == '"' || cp == '\\') {
			out_ch(o, '\\');
			out_ch(o, (char)cp);
		} else if (cp == '\n') {
			out_mem(o, "\\n", 2);
		} else if (cp == '\t') {
			out_mem(o, "\\t", 2);
		} else if (cp == '\r') {
			out_mem(o, "\\r", 2);
		} else {
			/* Every unsafe character is in the Basic Multilingual Plane. */
			char u[6] = {'\\', 'u', hexd[cp >> 12 & 15], hexd[cp >> 8 & 15],
			             hexd[cp >> 4 & 15], hexd[cp & 15]};
			out_mem(o, u, 6);
		}
		i += k;
		run = i;
	}
	out_mem(o, s + run, n - run);
	out_ch(o, '"');
	return valid;
}

void out_json_named(struct out *o, const char *key, size_t key_len, const char *s, size_t n)
{
	out_ch(o, '"');
	out_mem(o, key, key_len);
	out_mem(o, "\":", 2);
	if (out_json_str(o, s, n))
		return;
	out_mem(o, ",\"", 2);
	out_mem(o, key, key_len);
	out_mem(o, "_hex\":\"", 7);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		char h[2] = {hexd[c >> 4], hexd[c & 15]};
		out_mem(o, h, 2);
	}
	out_ch(o, '"');
}
