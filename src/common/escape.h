/* SPDX-License-Identifier: MIT */
/*
 * escape.h - writing bytes that come from a target (paths, names, versions,
 * anything read from its files) so that a terminal, a JSON parser or a CSV
 * reader sees them as data, never as commands. The rules are in escape.c and
 * docs/pmaps.1 (ESCAPING).
 */
#ifndef PMAPS_ESCAPE_H
#define PMAPS_ESCAPE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct out;

/*
 * The length (1 to 4) of the well-formed UTF-8 sequence at S (N bytes
 * available), with its code point in CP; 0 when S does not start one
 * (a stray or cut sequence, an overlong form, a surrogate, above U+10FFFF).
 */
size_t esc_utf8_seq(const unsigned char *s, size_t n, uint32_t *cp);
/* Whether the N bytes at S are well-formed UTF-8 throughout. */
int esc_utf8_valid(const char *s, size_t n);

/*
 * Text for a terminal or a CSV cell: printable UTF-8 as is; a backslash as
 * \\, newline and tab as \n and \t, every other byte that is a control
 * character (C0, DEL, C1), part of a character that reorders or breaks lines
 * (bidi controls, U+2028/9) or not valid UTF-8 as \xHH. Reversible with
 * esc_text_unescape().
 */
void out_table_str(struct out *o, const char *s, size_t n);
/*
 * The same into DST (SIZE >= 4), NUL-terminated; returns the length. What
 * does not fit is cut between two escapes or characters and marked "...".
 */
size_t esc_text(char *dst, size_t size, const char *s, size_t n);
/* Undoes the text escape: returns the length written to DST, or -1 when S is no such text. */
ssize_t esc_text_unescape(char *dst, size_t size, const char *s, size_t n);

/* A CSV cell: the text escape, quoted (quotes doubled) when it holds ',' or '"'. */
void out_csv_str(struct out *o, const char *s, size_t n);

/*
 * A JSON string, quotes included: always valid UTF-8. Well-formed UTF-8
 * stays exact (controls and the characters the text escape escapes as
 * \uXXXX); each byte that is not part of well-formed UTF-8 becomes U+FFFD.
 * Returns 1 when S was well-formed UTF-8 throughout, 0 when a byte was replaced.
 */
int out_json_str(struct out *o, const char *s, size_t n);
/*
 * "KEY":STRING as out_json_str(); when S is not well-formed UTF-8, then
 * also ,"KEY_hex":"..." with its exact bytes in hex, so nothing is lost.
 */
void out_json_named(struct out *o, const char *key, size_t key_len, const char *s, size_t n);

#endif
