/* SPDX-License-Identifier: MIT */
/*
 * out.h - the sink every writer appends to: a file descriptor behind a
 * buffer, or a bounded memory buffer (an HTTP response, a terminal pad, a
 * test's assertion). curl's dynbuf habit: the writers never know which.
 *
 * A memory sink that fills keeps only whole records: the record being
 * written when it ran out of room is cut off at the end of the record
 * before it (out_record() marks those ends), the sink's error becomes
 * ENOBUFS, and every later byte is dropped and counted (out_dropped()).
 * Nothing is ever written past the caller's capacity. Whole records of a
 * JSON document are not a whole document (its closing "]}" was dropped
 * too): a caller checks the error before it hands the bytes on; JSON Lines
 * and CSV stay valid line by line.
 */
#ifndef PMAPS_OUT_H
#define PMAPS_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The staging buffer a file-descriptor sink is best given: one write(2) per 64 KiB. */
#define OUT_FD_BUFSIZE 65536
/* The most out_reserve() may ask for at once. */
#define OUT_RESERVE_MAX 1024

struct out {
	char *buf;        /* where bytes go now: the caller's buffer, or JUNK once full */
	size_t cap, len;
	int fd;           /* -1 for a memory sink */
	int err;          /* the first error (errno), sticky: ENOBUFS when memory ran out */
	size_t mark;      /* memory: the end of the last whole record */
	size_t kept;      /* memory, once full: the bytes kept */
	uint64_t dropped; /* memory, once full: bytes dropped before the ones now in JUNK */
	char *mem;        /* memory: the caller's buffer */
	char junk[OUT_RESERVE_MAX];
};

/* A sink on FD through the caller's BUF of CAP bytes (at least OUT_RESERVE_MAX). */
void out_fd(struct out *o, int fd, char *buf, size_t cap);
/* A sink into the caller's BUF of CAP bytes. */
void out_memory(struct out *o, char *buf, size_t cap);
/* Writes what is buffered (a file descriptor sink); a memory sink has nothing to do. */
void out_flush(struct out *o);
/* The end of a record: a memory sink that fills later keeps everything before here. */
static inline void out_record(struct out *o)
{
	o->mark = o->len;
}
/* A memory sink's bytes: how many are kept, and how many were dropped. */
size_t out_kept(const struct out *o);
uint64_t out_dropped(const struct out *o);

/* Room for N <= OUT_RESERVE_MAX bytes; write them there, then out_advance(). */
char *out_reserve_slow(struct out *o, size_t n);
static inline char *out_reserve(struct out *o, size_t n)
{
	return n <= o->cap - o->len ? o->buf + o->len : out_reserve_slow(o, n);
}
static inline void out_advance(struct out *o, size_t n)
{
	o->len += n;
}

void out_mem_slow(struct out *o, const char *s, size_t n);
static inline void out_mem(struct out *o, const char *s, size_t n)
{
	if (n <= o->cap - o->len) {
		memcpy(o->buf + o->len, s, n);
		o->len += n;
	} else {
		out_mem_slow(o, s, n);
	}
}
void out_str(struct out *o, const char *s);
static inline void out_ch(struct out *o, char c)
{
	*out_reserve(o, 1) = c;
	o->len++;
}
void out_pad(struct out *o, size_t n);
void out_u64(struct out *o, uint64_t v);
/* V in lower-case hex, at least MIN_DIGITS digits (zero-padded), no "0x". */
void out_hex(struct out *o, uint64_t v, int min_digits);
/* "0x" and V in hex, as JSON and CSV write addresses. */
void out_0x(struct out *o, uint64_t v);
/* S right- or left-aligned in WIDTH columns (never cut). */
void out_rjust(struct out *o, const char *s, size_t len, size_t width);
void out_ljust(struct out *o, const char *s, size_t len, size_t width);

/*
 * Prose (explain's sentences) through vsnprintf: never for a cell or a key,
 * which the functions above write. At most OUT_RESERVE_MAX - 1 bytes.
 */
size_t out_printf(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* V in decimal into DST (24 bytes), NUL-terminated; returns the length. */
size_t fmt_u64(char *dst, uint64_t v);
/* V in hex, at least MIN digits, into DST (17 bytes), NUL-terminated; returns the length. */
size_t fmt_hex(char *dst, uint64_t v, int min);
/* Bytes in binary units: "0", "512B", "4K", "1.5M", "37G". Returns the length. */
size_t fmt_human(char *dst, uint64_t bytes);
/* PART of WHOLE in tenths of a percent, "12.3%", into DST (24 bytes); returns the length. */
size_t fmt_percent(char *dst, uint64_t part, uint64_t whole);

#endif
