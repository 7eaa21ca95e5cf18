/* SPDX-License-Identifier: MIT */
/*
 * maps.c - the streaming reader of /proc/PID/maps, smaps and smaps_rollup.
 *
 * Format (the kernel's proc(5) maps and smaps; docs/internals/MAPS.md):
 *
 *   START-END PERMS OFFSET MAJ:MIN INODE [spaces NAME]\n      header, one per VMA
 *   Name:           value kB\n                                  smaps field lines
 *   THPeligible:    0\n                                         bare integers
 *   VmFlags: rd wr mr mw me ac \n                               two-letter codes
 *
 * Addresses, offset and device are hex without 0x; the inode is decimal; the
 * name is the rest of the line with newlines escaped as "\012". Values are KiB.
 * maps has header lines only. smaps_rollup has one header ("[rollup]") and
 * the summed fields. Kernels add and drop field lines over the years (by
 * name, never by position), so field lines are matched by name, unknown ones
 * are passed through, and absent ones are told apart with a bitmask.
 *
 * How it stays near the cost of the kernel writing the text (the details
 * and their cost: docs/internals/MAPS.md): one read() fills a large buffer;
 * LIM marks the end of its last complete line, so every line before LIM is
 * parsed in place without searching for its end; the partial line after LIM
 * is moved to the front before the next read(). Field lines come in the same
 * order for every VMA and, for values below 10^8 KiB, in a fixed width, so
 * the parser walks a learnt schedule of keys comparing whole words; anything
 * unexpected takes a general path that looks keys up by name. Fast paths may
 * read up to SLACK bytes past LIM (never past the allocation) but every
 * match they accept ends at a '\n' before LIM. A line longer than the whole
 * buffer is cut at the buffer's end, marked truncated in its row, and the
 * rest of it skipped.
 */
#include <errno.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "internal.h"
#include "parse.h"
#include "testhooks.h"

#define F_VMFLAGS PMAPS_F_COUNT /* VmFlags shares the key table, not the values */
#define N_KEYS (PMAPS_F_COUNT + 1)
#define SLACK 128               /* bytes after the buffer that fast paths may read */

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

static const struct key {
	const char *name;
	const char *json;
	unsigned char len;
	unsigned char is_size;
} keys[N_KEYS] = {
	[PMAPS_F_SIZE] = {"Size", "size", 4, 1},
	[PMAPS_F_KERNEL_PAGE_SIZE] = {"KernelPageSize", "kernel_page_size", 14, 1},
	[PMAPS_F_MMU_PAGE_SIZE] = {"MMUPageSize", "mmu_page_size", 11, 1},
	[PMAPS_F_RSS] = {"Rss", "rss", 3, 1},
	[PMAPS_F_PSS] = {"Pss", "pss", 3, 1},
	[PMAPS_F_PSS_DIRTY] = {"Pss_Dirty", "pss_dirty", 9, 1},
	[PMAPS_F_PSS_ANON] = {"Pss_Anon", "pss_anon", 8, 1},
	[PMAPS_F_PSS_FILE] = {"Pss_File", "pss_file", 8, 1},
	[PMAPS_F_PSS_SHMEM] = {"Pss_Shmem", "pss_shmem", 9, 1},
	[PMAPS_F_SHARED_CLEAN] = {"Shared_Clean", "shared_clean", 12, 1},
	[PMAPS_F_SHARED_DIRTY] = {"Shared_Dirty", "shared_dirty", 12, 1},
	[PMAPS_F_PRIVATE_CLEAN] = {"Private_Clean", "private_clean", 13, 1},
	[PMAPS_F_PRIVATE_DIRTY] = {"Private_Dirty", "private_dirty", 13, 1},
	[PMAPS_F_REFERENCED] = {"Referenced", "referenced", 10, 1},
	[PMAPS_F_ANONYMOUS] = {"Anonymous", "anonymous", 9, 1},
	[PMAPS_F_KSM] = {"KSM", "ksm", 3, 1},
	[PMAPS_F_LAZY_FREE] = {"LazyFree", "lazy_free", 8, 1},
	[PMAPS_F_ANON_HUGE_PAGES] = {"AnonHugePages", "anon_huge_pages", 13, 1},
	[PMAPS_F_SHMEM_PMD_MAPPED] = {"ShmemPmdMapped", "shmem_pmd_mapped", 14, 1},
	[PMAPS_F_FILE_PMD_MAPPED] = {"FilePmdMapped", "file_pmd_mapped", 13, 1},
	[PMAPS_F_SHARED_HUGETLB] = {"Shared_Hugetlb", "shared_hugetlb", 14, 1},
	[PMAPS_F_PRIVATE_HUGETLB] = {"Private_Hugetlb", "private_hugetlb", 15, 1},
	[PMAPS_F_SWAP] = {"Swap", "swap", 4, 1},
	[PMAPS_F_SWAP_PSS] = {"SwapPss", "swap_pss", 7, 1},
	[PMAPS_F_LOCKED] = {"Locked", "locked", 6, 1},
	[PMAPS_F_THP_ELIGIBLE] = {"THPeligible", "thp_eligible", 11, 0},
	[PMAPS_F_PROTECTION_KEY] = {"ProtectionKey", "protection_key", 13, 0},
	[F_VMFLAGS] = {"VmFlags", "vm_flags", 7, 0},
};

const char *pmaps_field_name(enum pmaps_field f)
{
	return (unsigned)f < PMAPS_F_COUNT ? keys[f].name : NULL;
}

const char *pmaps_field_key(enum pmaps_field f)
{
	return (unsigned)f < PMAPS_F_COUNT ? keys[f].json : NULL;
}

int pmaps_field_is_size(enum pmaps_field f)
{
	return (unsigned)f < PMAPS_F_COUNT && keys[f].is_size;
}

int pmaps_field_lookup(const char *name, size_t len)
{
	for (int f = 0; f < PMAPS_F_COUNT; f++) {
		if ((len == keys[f].len && strncasecmp(name, keys[f].name, len) == 0) ||
		    (len == strlen(keys[f].json) && strncasecmp(name, keys[f].json, len) == 0))
			return f;
	}
	return -1;
}

/* Exact, case-sensitive match as the kernel prints keys; N_KEYS when unknown. */
static unsigned key_lookup(const char *name, size_t len)
{
	for (unsigned f = 0; f < N_KEYS; f++)
		if (len == keys[f].len && memcmp(name, keys[f].name, len) == 0)
			return f;
	return N_KEYS;
}

/*
 * The kernel prints "Name:" padded with spaces to 16 columns, then the value
 * right-aligned in 8 columns, then " kB\n" (or "\n" for bare numbers): a
 * 28-byte line for any value below 10^8 KiB. (Private_Hugetlb is "Name: "
 * in 17 columns and the value in 7: the same bytes.) The fast paths compare
 * the first 16 bytes as two words and convert the value's 8 bytes at once
 * (SWAR); anything else takes the general path.
 */
struct pat {
	uint64_t w0, w1;     /* the padded "Name:" as two little-endian words */
	int ok;              /* the name fits in 16 columns */
};

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the word-at-a-time parsing here reads little-endian words"
#endif
#define HI 0x8080808080808080ull
#define LO7 0x7f7f7f7f7f7f7f7full

/*
 * 8 bytes "   12345" (spaces, then at least one digit, nothing else) to
 * 12345. Byte 0 is the first character and the most significant digit.
 */
static inline int swar8(uint64_t x, uint64_t *out)
{
	uint64_t ns = x ^ 0x2020202020202020ull; /* zero bytes: the leading spaces */
	uint64_t z;

	if ((uint32_t)ns == 0 && ns != 0) {
		/* At most 4 digits (below 10 MiB): half the work. */
		uint32_t y = (uint32_t)(x >> 32) ^ 0x30303030u;
		y &= ~0u << (__builtin_ctzll(ns >> 32) & ~7);
		if ((((y & 0x7f7f7f7fu) + 0x76767676u) | y) & 0x80808080u)
			return 0;
		y = (y * 10 + (y >> 8)) & 0x00ff00ffu;
		*out = (y * 100 + (y >> 16)) & 0xffffu;
		return 1;
	}
	if (ns == 0)
		return 0;
	/* Digit values; the leading spaces (bytes below the first non-space) to 0. */
	z = (x ^ 0x3030303030303030ull) & (~0ull << (__builtin_ctzll(ns) & ~7));
	if ((((z & LO7) + 0x7676767676767676ull) | z) & HI)
		return 0; /* a byte that is not a digit after the first non-space */
	z = (z * 10 + (z >> 8)) & 0x00ff00ff00ff00ffull;
	z = (z * 100 + (z >> 16)) & 0x0000ffff0000ffffull;
	*out = (z * 10000 + (z >> 32)) & 0xffffffffull;
	return 1;
}

/* HI bits of the bytes of W that are '0'..'9' or 'a'..'f'. */
static inline uint64_t hex_bytes(uint64_t w)
{
	uint64_t u = w ^ 0x3030303030303030ull, t = w ^ 0x6060606060606060ull;
	uint64_t dg = ~(((u & LO7) + 0x7676767676767676ull) | u);
	uint64_t ge1 = (t & LO7) + LO7, ge7 = (t & LO7) + 0x7979797979797979ull;
	return (dg | (ge1 & ~ge7 & ~t)) & HI;
}

/* 8 nibble bytes, the first most significant, to their value. */
static inline uint64_t pack_nibbles(uint64_t x)
{
	x = ((x << 4) | (x >> 8)) & 0x00ff00ff00ff00ffull;
	x = ((x << 8) | (x >> 16)) & 0x0000ffff0000ffffull;
	return ((x << 16) | (x >> 32)) & 0xffffffffull;
}

#ifndef __SSE2__
/* Exactly 8 lower-case hex digits at P. */
static inline __attribute__((always_inline)) int hex8(const char *p, uint64_t *out)
{
	uint64_t w;

	memcpy(&w, p, 8);
	if (hex_bytes(w) != HI)
		return 0;
	*out = pack_nibbles((w & 0x0f0f0f0f0f0f0f0full) + 9 * ((w >> 6) & 0x0101010101010101ull));
	return 1;
}

/* Exactly 12 lower-case hex digits at P: a user-space address as x86-64 prints it. */
static inline __attribute__((always_inline)) int hex12(const char *p, uint64_t *out)
{
	uint64_t w0, w1;

	memcpy(&w0, p, 8);
	memcpy(&w1, p + 8, 8);
	w1 = (w1 << 32) | 0x30303030u; /* the last 4 digits, after 4 zeros */
	if ((hex_bytes(w0) & hex_bytes(w1)) != HI)
		return 0;
	w0 = (w0 & 0x0f0f0f0f0f0f0f0full) + 9 * ((w0 >> 6) & 0x0101010101010101ull);
	w1 = (w1 & 0x0f0f0f0f0f0f0f0full) + 9 * ((w1 >> 6) & 0x0101010101010101ull);
	*out = pack_nibbles(w0) << 16 | pack_nibbles(w1);
	return 1;
}

#endif

#ifdef __SSE2__
/*
 * The leading lower-case hex digits of the 16 bytes at P, sixteen at once
 * (SSE2, every x86-64): returns the lanes that are digits as a bit mask
 * (bit I: byte I) and in *OUT the value of all 16 lanes read as nibbles,
 * the lanes that are no digit counted as 0. A number of N digits at P is
 * *OUT >> (64 - 4 * N) when the mask's low N bits are set.
 */
static inline __attribute__((always_inline)) unsigned hex16(const char *p, uint64_t *out)
{
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
	__m128i d = _mm_sub_epi8(v, _mm_set1_epi8('0'));
	__m128i l = _mm_sub_epi8(v, _mm_set1_epi8('a'));
	/* unsigned D <= 9, L <= 5: min(x, k) == x */
	__m128i isd = _mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(9)), d);
	__m128i isl = _mm_cmpeq_epi8(_mm_min_epu8(l, _mm_set1_epi8(5)), l);
	__m128i nib = _mm_or_si128(_mm_and_si128(isd, d),
	                           _mm_and_si128(isl, _mm_add_epi8(l, _mm_set1_epi8(10))));
	/* Pairs of nibbles into bytes, the first of each pair high, then packed. */
	__m128i pr = _mm_and_si128(_mm_or_si128(_mm_slli_epi16(nib, 4), _mm_srli_epi16(nib, 8)),
	                           _mm_set1_epi16(0xff));
	uint64_t x = (uint64_t)_mm_cvtsi128_si64(_mm_packus_epi16(pr, pr));

	*out = __builtin_bswap64(x); /* the first byte is the most significant */
	return (unsigned)_mm_movemask_epi8(_mm_or_si128(isd, isl));
}
#endif

/*
 * A lower-case hex number of 8 to 15 digits at *P (16 bytes readable), the
 * kernel's %08lx, eight digits at a time. Returns its length, or 0 to leave
 * it to hex_line() (fewer than 8 or more than 15 digits, upper case).
 */
static inline __attribute__((always_inline)) unsigned hex_fast(const char **p, uint64_t *out)
{
	uint64_t w0, w1, m1, v0, v1;
	unsigned len;

	memcpy(&w0, *p, 8);
	memcpy(&w1, *p + 8, 8);
	if (hex_bytes(w0) != HI)
		return 0;
	m1 = ~hex_bytes(w1) & HI;
	if (!m1)
		return 0;
	len = 8 + (unsigned)__builtin_ctzll(m1) / 8;
	v0 = (w0 & 0x0f0f0f0f0f0f0f0full) + 9 * ((w0 >> 6) & 0x0101010101010101ull);
	v1 = (w1 & 0x0f0f0f0f0f0f0f0full) + 9 * ((w1 >> 6) & 0x0101010101010101ull);
	/* len == 8 shifts v1 out entirely: 64-bit shifts are undefined, so split. */
	*out = pack_nibbles(v0) << (4 * (len - 8)) |
	       (len > 8 ? pack_nibbles(v1 << (8 * (16 - len))) : 0);
	*p += len;
	return len;
}

/*
 * Hex digits up to the first other byte, with no end pointer: every line
 * ends in '\n', which is not a digit. Returns the count (0: none; over 16:
 * too many for 64 bits).
 */
static inline unsigned hex_line(const char **p, uint64_t *out)
{
	const unsigned char *s = (const unsigned char *)*p;
	uint64_t v = 0;
	unsigned d, n = 0;

	while ((d = pmaps__hex_table[s[n]]) != 0) {
		v = v << 4 | (d - 1);
		n++;
	}
	*p += n;
	*out = v;
	return n;
}

/*
 * Decimal digits up to the first other byte (the line's '\n' at the latest),
 * up to 8 at once. Returns the count, or -1 for none or more than 64 bits.
 */
static inline int dec_line(const char **p, uint64_t *out)
{
	uint64_t w, z, nd;
	unsigned n;

	memcpy(&w, *p, 8);
	z = w ^ 0x3030303030303030ull;
	nd = (((z & LO7) + 0x7676767676767676ull) | z) & HI; /* bytes that are no digit */
	n = nd ? (unsigned)__builtin_ctzll(nd) / 8 : 8;
	if (n == 0)
		return -1;
	if (n == 8) /* eight digits or more: the checked byte loop */
		return pmaps__parse_dec(p, *p + 21, out);
	/* Right-align the N digits behind leading zeros, then convert all 8. */
	z <<= 8 * (8 - n);
	z = (z * 10 + (z >> 8)) & 0x00ff00ff00ff00ffull;
	z = (z * 100 + (z >> 16)) & 0x0000ffff0000ffffull;
	*out = (z * 10000 + (z >> 32)) & 0xffffffffull;
	*p += n;
	return (int)n;
}

static void init_pats(struct pat *pat)
{
	for (unsigned k = 0; k < N_KEYS; k++) {
		char pad[16];
		size_t n = keys[k].len;
		struct pat *p = &pat[k];

		memset(p, 0, sizeof(*p));
		if (n + 1 > sizeof(pad) || k == F_VMFLAGS)
			continue;
		memset(pad, ' ', sizeof(pad));
		memcpy(pad, keys[k].name, n);
		pad[n] = ':';
		memcpy(&p->w0, pad, 8);
		memcpy(&p->w1, pad + 8, 8);
		p->ok = 1;
	}
}

struct pmaps_maps {
	struct pmaps_proc *proc;
	enum pmaps_source src;
	int fd;
	const char *mem;             /* in-memory source instead of FD */
	size_t mem_len, mem_off, mem_chunk;
	char *buf;                   /* CAP bytes + SLACK */
	size_t cap;
	size_t init;                 /* buf[0, INIT) holds defined bytes: data, or clear_slack()'s zeros */
	size_t pos, lim, end;        /* parse at POS; complete lines end at LIM; data at END */
	uint64_t base;               /* file offset of buf[0] */
	uint64_t lines;
	int eof, done, err, in_record;
	int trunc_line;              /* the line at POS was cut at the buffer's end */
	int discard;                 /* skipping the rest of a cut line */
	unsigned expect;             /* predicted key of the next field line */
	unsigned prev;               /* key of the previous line (N_KEYS: the header) */
	unsigned char next_key[N_KEYS + 1]; /* learnt: key that followed key K; [N_KEYS]: first */
	struct pat pat[N_KEYS];      /* the fixed-width form of each key's line */
	/*
	 * The expected sequence of keys after a header, rebuilt from next_key
	 * when learning changes it: with the order in an array, the fast loop's
	 * loads do not wait on each other.
	 */
	unsigned char sched[N_KEYS], sched_pos[N_KEYS + 1];
	struct { uint64_t w0, w1; } sched_key[N_KEYS]; /* pat[sched[i]].w0/w1 */
	uint64_t sched_mask[N_KEYS + 1]; /* [i]: keys of sched[0..i) */
	unsigned sched_n;
	int sched_dirty;
	struct pmaps__guard guard;   /* tells a whole read from one the process cut short */
	uint64_t prev_end;           /* end of the last mapping: the next starts there or later */
	int vmflags_seen;            /* the row had its VmFlags line */
	int bad_row;                 /* finish_row found an impossible value: the error to return */
	int v_zero;                  /* maps: ROW.v[] is all zero (nothing but finish_row writes it) */
	uint64_t rows;               /* rows handed out since the read began */
	uint64_t reads, longest_ns, t_read; /* read()s, the longest one, and when the read began */
	uint64_t t_end;              /* when it ended (0 while it goes on) */
	struct pmaps_mapping row;
	char path[PMAPS_PATH_BUF];
	char raw[PMAPS_PATH_BUF];    /* a name as /proc/PID/map_files gives it */
	int no_map_files;            /* map_files refused this reader: not asked again */
	/*
	 * The last file resolve_name() asked about for " (deleted)": whether a
	 * name is left is its inode's, the same for every mapping of it (a
	 * program that maps one unlinked file 30,000 times pays one stat).
	 */
	struct pmaps__del_cache del;
	struct pmaps__fast *fast;    /* PMAPS_SRC_FAST and PAGES: the page sources */
	char vmf[PMAPS_VMFLAGS_BUF];
	char unk_name[PMAPS_MAX_UNKNOWN][PMAPS_UNKNOWN_NAME];
	char unk_text[PMAPS_MAX_UNKNOWN][PMAPS_UNKNOWN_TEXT];
	char errmsg[PMAPS_ERRMSG_SIZE];
};

static void build_schedule(struct pmaps_maps *c);

static const char *src_file(enum pmaps_source s)
{
	return pmaps_source_name(s);
}

static int fail(struct pmaps_maps *c, int err)
{
	c->err = err;
	c->t_end = pmaps__now_ns();
	if (!c->errmsg[0])
		pmaps__msg(c->errmsg, sizeof(c->errmsg), "%s: %s", src_file(c->src),
		           pmaps_strerror(err));
	return err;
}

static int bad(struct pmaps_maps *c, const char *what)
{
	pmaps__msg(c->errmsg, sizeof(c->errmsg), "%s: line %llu, byte offset %llu: %s",
	           src_file(c->src), (unsigned long long)c->lines + 1,
	           (unsigned long long)(c->base + c->pos), what);
	return fail(c, -EBADMSG);
}

static ssize_t src_read(struct pmaps_maps *c, char *dst, size_t len)
{
	uint64_t t0;
	ssize_t n;

	if (c->mem) {
		size_t k = c->mem_len - c->mem_off;
		if (k > len)
			k = len;
		if (c->mem_chunk && k > c->mem_chunk)
			k = c->mem_chunk;
		memcpy(dst, c->mem + c->mem_off, k);
		c->mem_off += k;
		return (ssize_t)k;
	}
	t0 = pmaps__now_ns();
	n = pmaps__read(c->fd, dst, len);
	t0 = pmaps__now_ns() - t0;
	c->reads++;
	if (t0 > c->longest_ns)
		c->longest_ns = t0;
	return (ssize_t)n;
}

/*
 * Gives the SLACK bytes past the data defined values (zeros), as far as no
 * read has reached yet: the fast paths' reads past the data never see
 * uninitialised memory, and a buffer whose reads stay in its first pages
 * (the maps text comes a page at a time) never has the rest touched.
 */
static void clear_slack(struct pmaps_maps *c)
{
	size_t want = c->end + SLACK, from = c->init > c->end ? c->init : c->end;

	if (want > c->cap + SLACK)
		want = c->cap + SLACK;
	if (want > from)
		memset(c->buf + from, 0, want - from);
	if (want > c->init)
		c->init = want;
}

static int fill_lines(struct pmaps_maps *c);

/*
 * Makes [pos, lim) hold at least one complete line. Returns 1, 0 at the end
 * of the input, or a negative errno.
 */
static int fill(struct pmaps_maps *c)
{
	int r;

	if (c->pos < c->lim)
		return 1;
	r = fill_lines(c);
	if (c->end + SLACK > c->init)
		clear_slack(c);
	return r;
}

static int fill_lines(struct pmaps_maps *c)
{
	for (;;) {
		size_t keep, old;
		ssize_t n;
		char *nl;

		if (c->pos < c->lim)
			return 1;
		if (c->eof)
			return 0;
		keep = c->end - c->pos;
		if (keep && c->pos)
			memmove(c->buf, c->buf + c->pos, keep);
		c->base += c->pos;
		c->pos = c->lim = 0;
		c->end = keep;
		if (c->end == c->cap) {
			/* A line longer than the buffer: cut it here, skip its rest. */
			c->buf[c->end++] = '\n';
			c->lim = c->end;
			c->trunc_line = 1;
			c->discard = 1;
			return 1;
		}
		old = c->end;
		n = src_read(c, c->buf + old, c->cap - old);
		if (n < 0) {
			int e = errno;
			if (e == ESRCH || e == ENOENT)
				return -ESRCH;
			return -(e ? e : EIO);
		}
		if (n == 0) {
			c->eof = 1;
			if (c->end == 0)
				return 0;
			/* The last line had no newline: give it one. */
			c->buf[c->end++] = '\n';
			c->lim = c->end;
			return 1;
		}
		c->end += (size_t)n;
		if (c->discard) {
			nl = memchr(c->buf + old, '\n', (size_t)n);
			if (!nl) {
				/* Still inside the cut line: drop all of it. */
				c->base += c->end;
				c->end = 0;
				continue;
			}
			c->discard = 0;
			c->pos = (size_t)(nl + 1 - c->buf);
			c->lim = c->pos;
			old = c->pos;
			if (old == c->end)
				continue;
		}
		nl = memrchr(c->buf + old, '\n', c->end - old);
		if (nl)
			c->lim = (size_t)(nl + 1 - c->buf);
	}
}

static void reset_row(struct pmaps_maps *c)
{
	struct pmaps_mapping *m = &c->row;

	/* v[] is zeroed where absent when the row is finished, not here. */
	m->flags = PMAPS__ROW_SRC(c->src);
	m->present = 0;
	m->vm_flags = 0;
	m->vm_flags_text.ptr = c->vmf;
	m->vm_flags_text.len = 0;
	c->vmf[0] = '\0';
	m->n_unknown = 0;
	c->vmflags_seen = 0;
}

static int is_header_start(unsigned char ch)
{
	return (unsigned)(ch - '0') < 10 || (unsigned)(ch - 'a') < 6;
}

/* Bytes of W equal to C's byte (with false positives above a true one only). */
static inline uint64_t has_byte(uint64_t w, uint64_t c)
{
	w ^= c;
	return (w - 0x0101010101010101ull) & ~w & HI;
}

#define DELETED_W 0x6574656c65642820ull /* " (delete" */
#define DELETED_T 0x2964u               /* "d)" */

/*
 * Copies the name, from S to the end of the line, into the cursor, decoding
 * "\012" into '\n' (the only escape the kernel uses); returns the '\n'. One
 * pass: eight bytes at a time until a word holds '\n' or '\\' (reading at
 * most 7 bytes past the '\n', inside the buffer's slack), then byte by byte.
 */
static const char *take_name(struct pmaps_maps *c, const char *s, const char *e)
{
	struct pmaps_mapping *m = &c->row;
	size_t n = 0, room = sizeof(c->path) - 1;

	for (;;) {
		uint64_t w;
		memcpy(&w, s, 8);
		if (has_byte(w, 0x0a0a0a0a0a0a0a0aull) | has_byte(w, 0x5c5c5c5c5c5c5c5cull) ||
		    n + 8 > room)
			break;
		memcpy(c->path + n, &w, 8);
		n += 8;
		s += 8;
	}
	while (*s != '\n') {
		if (n >= room) {
			m->flags |= PMAPS_ROW_PATH_TRUNCATED;
			s = memchr(s, '\n', (size_t)(e - s)); /* every line before LIM has one */
			break;
		}
		if (*s == '\\' && s[1] == '0' && s[2] == '1' && s[3] == '2') {
			c->path[n++] = '\n';
			s += 4;
			m->flags |= PMAPS_ROW_PATH_ESCAPED;
		} else {
			c->path[n++] = *s++;
		}
	}
	c->path[n] = '\0';
	m->path.ptr = c->path;
	m->path.len = n;
	if (n >= 10) {
		/* " (deleted)", in two loads rather than a call per row */
		uint64_t w;
		uint16_t t;
		memcpy(&w, c->path + n - 10, 8);
		memcpy(&t, c->path + n - 2, 2);
		if (w == DELETED_W && t == DELETED_T)
			m->flags |= PMAPS_ROW_DELETED;
	}
	return s;
}

static int parse_header(struct pmaps_maps *c)
{
	struct pmaps_mapping *m = &c->row;
	const char *p = c->buf + c->pos, *e = c->buf + c->lim, *nl;
	uint64_t maj, min;
	unsigned perms = 0, n, n2, d0, d1, d2, d3;
	int fast = 0;

	/*
	 * No search for the line's end first: every check below stops at the
	 * '\n' that ends each line before LIM (it is no digit, letter or space).
	 */
	reset_row(c);
	m->line = (unsigned)(c->lines + 1);
	/*
	 * The usual line: 12-digit addresses and an 8-digit offset, converted
	 * independently of each other. Anything else: a digit count at a time.
	 */
#ifdef __SSE2__
	if (p[12] == '-' && p[25] == ' ' && p[30] == ' ' && p[39] == ' ') {
		uint64_t a, b, o;
		unsigned ma = hex16(p, &a), mb = hex16(p + 13, &b), mo = hex16(p + 31, &o);
		if ((ma & mb & 0xfff) == 0xfff && (mo & 0xff) == 0xff) {
			m->start = a >> 16;
			m->end = b >> 16;
			m->offset = o >> 32;
			fast = 1;
			p += 26;
			goto perms;
		}
	}
#else
	if (p[12] == '-' && p[25] == ' ' && p[30] == ' ' && p[39] == ' ' && hex12(p, &m->start) &&
	    hex12(p + 13, &m->end) && hex8(p + 31, &m->offset)) {
		fast = 1;
		p += 26;
		goto perms;
	}
#endif
	if (!hex_fast(&p, &m->start) && ((n = hex_line(&p, &m->start)) == 0 || n > 16))
		return bad(c, "expected START-END in hex");
	if (*p++ != '-')
		return bad(c, "expected START-END in hex");
	if (!hex_fast(&p, &m->end) && ((n = hex_line(&p, &m->end)) == 0 || n > 16))
		return bad(c, "expected START-END in hex");
	if (*p++ != ' ')
		return bad(c, "expected START-END in hex");
perms:
	if (m->end < m->start)
		return bad(c, "mapping ends before it starts");
	/*
	 * The kernel lists mappings in address order. Across two read()s it
	 * resumes after the end of the last mapping it printed, so one that
	 * grew in between (merged with its neighbour, or remapped across) is
	 * printed again from its start: ends always rise, starts need not.
	 */
	if (m->end <= c->prev_end && c->prev_end)
		return bad(c, "mapping ends at or before the end of the one before it");
	if (m->start < c->prev_end)
		m->flags |= PMAPS_ROW_OVERLAP;
	{
		/*
		 * Four bytes at once: each is its letter of "rwxs" or of "---p"
		 * (the bytes equal to "rwxs" are the permissions, in
		 * PMAPS_PERM_*'s order), and a space after them.
		 */
		uint32_t x, on, off;
		memcpy(&x, p, 4);
		on = x ^ 0x73787772u;  /* "rwxs": 0 where the byte is its letter */
		off = x ^ 0x702d2d2du; /* "---p" */
		on = ~((((on & 0x7f7f7f7fu) + 0x7f7f7f7fu) | on)) & 0x80808080u;
		off = ~((((off & 0x7f7f7f7fu) + 0x7f7f7f7fu) | off)) & 0x80808080u;
		if ((on | off) != 0x80808080u || p[4] != ' ')
			return bad(c, "expected permissions like rw-p");
		perms = ((on >> 7) & 1) | ((on >> 14) & 2) | ((on >> 21) & 4) | ((on >> 28) & 8);
	}
	m->perms = perms;
	p += 5;
	if (fast) {
		p += 9;
	} else {
		if (!hex_fast(&p, &m->offset) && ((n = hex_line(&p, &m->offset)) == 0 || n > 16))
			return bad(c, "expected the offset in hex");
		if (*p++ != ' ')
			return bad(c, "expected the offset in hex");
	}
	if (memcmp(p, "00:00 0 ", 8) == 0) {
		/* Anonymous memory's device and inode, in one compare. */
		m->dev_major = m->dev_minor = 0;
		m->inode = 0;
		p += 7;
		goto name;
	}
	if (p[2] == ':' && p[5] == ' ' && (d0 = pmaps__hex_table[(unsigned char)p[0]]) &&
	    (d1 = pmaps__hex_table[(unsigned char)p[1]]) &&
	    (d2 = pmaps__hex_table[(unsigned char)p[3]]) &&
	    (d3 = pmaps__hex_table[(unsigned char)p[4]])) {
		/* The usual "fe:00 ". */
		m->dev_major = (d0 - 1) << 4 | (d1 - 1);
		m->dev_minor = (d2 - 1) << 4 | (d3 - 1);
		p += 6;
	} else {
		n = hex_line(&p, &maj);
		if (n == 0 || n > 8 || *p++ != ':' || (n2 = hex_line(&p, &min)) == 0 || n2 > 8 ||
		    *p++ != ' ')
			return bad(c, "expected the device as MAJ:MIN in hex");
		m->dev_major = (uint32_t)maj;
		m->dev_minor = (uint32_t)min;
	}
	if (dec_line(&p, &m->inode) < 0 || (*p != ' ' && *p != '\n'))
		return bad(c, "expected the inode in decimal");
name:
	/* The name is padded to column 73: skip spaces a word at a time. */
	for (;;) {
		uint64_t w;
		memcpy(&w, p, 8);
		if (w != 0x2020202020202020ull)
			break;
		p += 8;
	}
	while (*p == ' ')
		p++;
	nl = take_name(c, p, e);
	if (c->trunc_line) {
		m->flags |= PMAPS_ROW_PATH_TRUNCATED;
		c->trunc_line = 0;
	}
	c->pos = (size_t)(nl + 1 - c->buf);
	c->lines++;
	c->prev = N_KEYS;
	c->expect = c->next_key[N_KEYS];
	if (unlikely(c->sched_dirty))
		build_schedule(c);
	return 0;
}

static void parse_vmflags(struct pmaps_maps *c, const char *p, const char *nl)
{
	struct pmaps_mapping *m = &c->row;
	size_t n = 0;

	while (p < nl && (*p == ' ' || *p == '\t'))
		p++;
	while (nl > p && (nl[-1] == ' ' || nl[-1] == '\t'))
		nl--;
	if ((size_t)(nl - p) >= sizeof(c->vmf)) {
		m->flags |= PMAPS_ROW_VMFLAGS_TRUNCATED;
		n = sizeof(c->vmf) - 1;
	} else {
		n = (size_t)(nl - p);
	}
	memcpy(c->vmf, p, n);
	c->vmf[n] = '\0';
	m->vm_flags_text.len = n;
	while (p < nl) {
		const char *t = p;
		int b;
		/* Codes are two letters and a space: take them three bytes at a time. */
		if (nl - p >= 2 && (nl - p == 2 || p[2] == ' ')) {
			b = pmaps__vmflag_lookup(p[0], p[1]);
			m->vm_flags |= 1ull << (b >= 0 ? b : PMAPS_VM_UNKNOWN);
			p += nl - p == 2 ? 2 : 3;
			continue;
		}
		while (p < nl && *p != ' ')
			p++;
		m->vm_flags |= 1ull << PMAPS_VM_UNKNOWN; /* not a two-letter code */
		(void)t;
		while (p < nl && *p == ' ')
			p++;
	}
}

/* Copies N bytes of SRC into DST (CAP bytes, NUL-terminated) as V; 1 if cut. */
static int copy_view(char *dst, size_t cap, const char *src, size_t n, struct pmaps_view *v)
{
	int cut = n >= cap;

	if (cut)
		n = cap - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
	v->ptr = dst;
	v->len = n;
	return cut;
}

static void add_unknown(struct pmaps_maps *c, const char *name, size_t nlen, const char *v,
                        const char *ve)
{
	struct pmaps_mapping *m = &c->row;
	struct pmaps_unknown *u;
	unsigned i = m->n_unknown;
	const char *q = v;
	uint64_t val = 0;

	if (i >= PMAPS_MAX_UNKNOWN) {
		m->flags |= PMAPS_ROW_UNKNOWN_DROPPED;
		return;
	}
	u = &m->unknown[i];
	if (copy_view(c->unk_name[i], PMAPS_UNKNOWN_NAME, name, nlen, &u->name) |
	    copy_view(c->unk_text[i], PMAPS_UNKNOWN_TEXT, v, (size_t)(ve - v), &u->text))
		m->flags |= PMAPS_ROW_LINE_TRUNCATED;
	u->is_kb = 0;
	u->is_number = 0;
	u->value = 0;
	if (pmaps__parse_dec(&q, ve, &val) > 0) {
		if (q == ve) {
			u->is_number = 1;
			u->value = val;
		} else if (ve - q == 3 && memcmp(q, " kB", 3) == 0 && val <= UINT64_MAX >> 10) {
			u->is_number = 1;
			u->is_kb = 1;
			u->value = val << 10;
		}
	}
	m->n_unknown = i + 1;
}

/* "THPeligible:           1\n": a bare number, 25 bytes. */
static int bare_fast(struct pmaps_maps *c)
{
	const struct pat *k = &c->pat[c->expect];
	const char *p = c->buf + c->pos;
	uint64_t a, b, x, val;

	memcpy(&a, p, 8);
	memcpy(&b, p + 8, 8);
	memcpy(&x, p + 16, 8);
	if (!k->ok || a != k->w0 || b != k->w1 || p[24] != '\n' || !swar8(x, &val) ||
	    (c->row.present & (1ull << c->expect)))
		return 0;
	c->row.v[c->expect] = val;
	c->row.present |= 1ull << c->expect;
	c->pos += 25;
	c->lines++;
	c->prev = c->expect;
	c->expect = c->next_key[c->expect];
	return 1;
}

/*
 * "VmFlags: rd wr mr mw me ac \n" as the kernel prints it: two-letter codes,
 * each followed by one space. Returns 0 to leave anything else to the
 * general path.
 */
static int vmflags_fast(struct pmaps_maps *c)
{
	struct pmaps_mapping *m = &c->row;
	const char *p = c->buf + c->pos, *q = p + 9, *t;
	uint64_t flags = 0;
	size_t n;

	uint64_t w;

	memcpy(&w, p, 8);
	if (w != 0x3a7367616c466d56ull /* "VmFlags:" */ || p[8] != ' ' || c->trunc_line ||
	    c->vmflags_seen)
		return 0;
	while (*q != '\n') {
		unsigned x = (unsigned char)q[0] - 'a', y = (unsigned char)q[1] - 'a', b;
		/* Letters only ("??" and the like go the general way), then a space. */
		if (x >= 26 || y >= 26 || q[2] != ' ')
			return 0;
		b = pmaps__vmflag_table[x][y];
		flags |= b ? 1ull << (b - 1) : 1ull << PMAPS_VM_UNKNOWN;
		q += 3;
	}
	t = q;
	while (t > p + 9 && t[-1] == ' ')
		t--;
	n = (size_t)(t - (p + 9));
	if (n >= sizeof(c->vmf))
		return 0;
	if (n <= 64)
		memcpy(c->vmf, p + 9, 64); /* one fixed-size copy: SLACK covers the overrun */
	else
		memcpy(c->vmf, p + 9, n);
	c->vmf[n] = '\0';
	m->vm_flags = flags;
	m->vm_flags_text.len = n;
	c->vmflags_seen = 1;
	c->pos = (size_t)(q + 1 - c->buf);
	c->lines++;
	c->prev = F_VMFLAGS;
	c->expect = c->next_key[F_VMFLAGS];
	return 1;
}

/* The general path: any key, any spacing, unknown keys, VmFlags. */
static int parse_field_slow(struct pmaps_maps *c)
{
	struct pmaps_mapping *m = &c->row;
	const char *p = c->buf + c->pos;
	const char *nl = memchr(p, '\n', c->lim - c->pos);
	const char *colon = memchr(p, ':', (size_t)(nl - p));
	const char *v, *ve, *q;
	uint64_t val;
	unsigned f;

	if (c->trunc_line) {
		/* A field line longer than the buffer: keep the row, say so. */
		m->flags |= PMAPS_ROW_LINE_TRUNCATED;
		c->trunc_line = 0;
		goto done;
	}
	if (nl == p)
		goto done; /* a blank line carries nothing; the kernel never prints one */
	if (!colon || colon == p)
		return bad(c, "expected \"Name: value\" or a mapping header");
	if (c->expect < N_KEYS && (size_t)(colon - p) == keys[c->expect].len &&
	    memcmp(p, keys[c->expect].name, keys[c->expect].len) == 0)
		f = c->expect;
	else
		f = key_lookup(p, (size_t)(colon - p));
	v = colon + 1;
	ve = nl;
	while (v < ve && (*v == ' ' || *v == '\t'))
		v++;
	while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t'))
		ve--;
	if (f == F_VMFLAGS) {
		if (c->vmflags_seen)
			return bad(c, "VmFlags given twice for one mapping");
		c->vmflags_seen = 1;
		parse_vmflags(c, v, nl);
	} else if (f == N_KEYS) {
		add_unknown(c, p, (size_t)(colon - p), v, ve);
	} else {
		q = v;
		if (pmaps__parse_dec(&q, ve, &val) < 0)
			return bad(c, "expected a decimal value");
		if (keys[f].is_size) {
			if (ve - q != 3 || memcmp(q, " kB", 3) != 0)
				return bad(c, "expected a value in kB");
			if (val > UINT64_MAX >> 10)
				return bad(c, "value out of range");
			val <<= 10;
		} else if (q != ve) {
			return bad(c, "expected a bare number");
		}
		if (m->present & (1ull << f))
			return bad(c, "a field given twice for one mapping");
		m->v[f] = val;
		m->present |= 1ull << f;
	}
	if (f < N_KEYS) {
		/* Learn the kernel's order so the next VMA takes the fast path. */
		if (c->next_key[c->prev] != f) {
			c->next_key[c->prev] = (unsigned char)f;
			c->sched_dirty = 1;
		}
		c->prev = f;
		c->expect = c->next_key[f];
	}
done:
	c->pos = (size_t)(nl + 1 - c->buf);
	c->lines++;
	return 0;
}

/*
 * One field line. The fast path handles "Key:<spaces>digits kB\n" for the
 * predicted key. Every byte it compares lies on the current line (a line
 * ends in '\n', which matches neither a key byte nor ':' nor a digit), so it
 * needs no search for the line's end.
 */
static void build_schedule(struct pmaps_maps *c)
{
	uint64_t seen = 0;
	unsigned k = c->next_key[N_KEYS], n = 0;

	memset(c->sched_pos, 0xff, sizeof(c->sched_pos));
	/* The run of "kB" keys after the header (bare numbers end it). */
	while (k < PMAPS_F_COUNT && !(seen & (1ull << k)) && c->pat[k].ok && keys[k].is_size) {
		seen |= 1ull << k;
		c->sched_key[n].w0 = c->pat[k].w0;
		c->sched_key[n].w1 = c->pat[k].w1;
		c->sched_pos[k] = (unsigned char)n;
		c->sched_mask[n] = seen & ~(1ull << k);
		c->sched[n++] = (unsigned char)k;
		k = c->next_key[k];
	}
	c->sched_mask[n] = seen;
	c->sched_n = n;
	c->sched_dirty = 0;
}

static int parse_field(struct pmaps_maps *c)
{
	const char *p = c->buf + c->pos, *lim = c->buf + c->lim;
	const unsigned char *sched = c->sched;
	uint64_t *v = c->row.v, present = c->row.present;
	unsigned i = c->sched_pos[c->expect], i0 = i, n = c->sched_n;
	int progress = 0;

	/*
	 * Consecutive 28-byte "Key:   value kB" lines in the expected order,
	 * state in registers; only as many as fit before LIM can match.
	 */
	if (i < n && (size_t)(lim - p) / 28 < n - i)
		n = i + (unsigned)((size_t)(lim - p) / 28);
	for (; i < n; i++, p += 28) {
		uint64_t a, b, x, val;
		uint32_t tail;

		memcpy(&a, p, 8);
		memcpy(&b, p + 8, 8);
		memcpy(&x, p + 16, 8);
		memcpy(&tail, p + 24, 4);
		if ((a ^ c->sched_key[i].w0) | (b ^ c->sched_key[i].w1) | (tail ^ 0x0a426b20u /* " kB\n" */))
			break;
		/* Most values are 0: skip the conversion for them. */
		if (x == 0x3020202020202020ull /* "       0" */)
			val = 0;
		else if (!swar8(x, &val))
			break;
		v[sched[i]] = val << 10;
	}
	/* A key seen before in this record: the slow path reports the duplicate. */
	if (i > i0 && i0 < c->sched_n && !(present & c->sched_mask[i] & ~c->sched_mask[i0])) {
		c->row.present = present | (c->sched_mask[i] & ~c->sched_mask[i0]);
		c->pos = (size_t)(p - c->buf);
		c->lines += i - i0;
		c->prev = sched[i - 1];
		c->expect = c->next_key[c->prev];
		progress = 1;
	}
	/* Then, usually, THPeligible and VmFlags: straight on, no dispatch. */
	if (c->pos < c->lim && c->expect < PMAPS_F_COUNT && !keys[c->expect].is_size &&
	    bare_fast(c))
		progress = 1;
	if (c->pos < c->lim && c->expect == F_VMFLAGS && vmflags_fast(c))
		progress = 1;
	if (progress)
		return 0;
	return parse_field_slow(c);
}

static void init_order(struct pmaps_maps *c)
{
	for (unsigned k = 0; k < N_KEYS; k++)
		c->next_key[k] = (unsigned char)(k + 1);
	if (c->src == PMAPS_SRC_ROLLUP) {
		c->next_key[N_KEYS] = PMAPS_F_RSS;
	} else {
		/* smaps has no Pss_Anon/File/Shmem; the parser learns any other gap. */
		c->next_key[N_KEYS] = PMAPS_F_SIZE;
		c->next_key[PMAPS_F_PSS_DIRTY] = PMAPS_F_SHARED_CLEAN;
		c->next_key[PMAPS_F_THP_ELIGIBLE] = F_VMFLAGS;
	}
	c->expect = c->next_key[N_KEYS];
	c->prev = N_KEYS;
	c->sched_dirty = 1;
}

static void start_scan(struct pmaps_maps *c)
{
	c->pos = c->lim = c->end = 0;
	c->base = 0;
	c->lines = 0;
	c->eof = c->done = c->err = c->in_record = 0;
	c->trunc_line = c->discard = 0;
	c->errmsg[0] = '\0';
	c->mem_off = 0;
	c->prev_end = 0;
	c->bad_row = 0;
	c->rows = 0;
	c->reads = c->longest_ns = c->t_end = 0;
	c->t_read = pmaps__now_ns();
}

static int open_file(struct pmaps_maps *c)
{
	int fd, r;

	start_scan(c);
	c->del.linked = -1;
	pmaps__guard_end(&c->guard);
	/*
	 * Before the file: who the process is, and a probe on its address
	 * space. smaps_rollup is one record, read in one go under one mm
	 * reference: its own fd serves as the probe (its read fails once that
	 * mm is gone), and the program check comes after its open.
	 */
	r = pmaps__guard_begin(c->proc, &c->guard, c->src != PMAPS_SRC_ROLLUP, src_file(c->src),
	                       c->errmsg, sizeof(c->errmsg));
	if (r < 0)
		return fail(c, r);
	fd = pmaps__open_file(c->proc, c->proc->memfd, src_file(c->src), c->errmsg,
	                      sizeof(c->errmsg));
	if (fd < 0) {
		if (fd == -EACCES || fd == -EPERM)
			pmaps__msg(c->errmsg, sizeof(c->errmsg),
			           "%s: permission denied: needs ptrace-read access to the process "
			           "(its own user, or root with CAP_SYS_PTRACE; a security module "
			           "such as Yama can refuse even that)",
			           src_file(c->src));
		else if (fd == -ENOENT && c->src == PMAPS_SRC_ROLLUP)
			pmaps__msg(c->errmsg, sizeof(c->errmsg),
			           "smaps_rollup: not provided by this kernel (needs Linux 4.14)");
		else if (fd == -ESRCH) {
			/* smaps_rollup refuses a process without memory at open. */
			c->guard.gone = 1;
			r = pmaps__guard_check(c->proc, &c->guard, src_file(c->src), c->errmsg,
			                       sizeof(c->errmsg));
			if (r < 0)
				fd = r;
			else
				pmaps__msg(c->errmsg, sizeof(c->errmsg), "%s: process %d exited",
				           src_file(c->src), c->proc->pid);
		}
		return fail(c, fd);
	}
	c->fd = fd;
	if (c->src == PMAPS_SRC_ROLLUP) {
		r = pmaps__guard_program(c->proc, &c->guard, src_file(c->src), c->errmsg,
		                         sizeof(c->errmsg));
		if (r < 0)
			return fail(c, r);
	}
	return 0;
}

static struct pmaps_maps *alloc_cursor(enum pmaps_source source, size_t bufsize)
{
	struct pmaps_maps *c;

	if (bufsize == 0)
		bufsize = PMAPS_DEFAULT_BUFSIZE;
	if (bufsize < 4096)
		bufsize = 4096;
	c = pmaps__alloc(sizeof(*c));
	if (!c)
		return NULL;
	memset(c, 0, offsetof(struct pmaps_maps, row));
	c->buf = pmaps__alloc(bufsize + SLACK);
	if (!c->buf) {
		pmaps__free(c);
		return NULL;
	}
	/*
	 * Fast paths read a little past the data they accept (see the top of
	 * this file); the results never depend on those bytes, but they should
	 * hold defined values: fill() clears them as the data reaches them.
	 */
	c->init = 0;
	c->cap = bufsize;
	c->src = source;
	c->fd = -1;
	c->fast = NULL;
	c->no_map_files = 0;
	c->del.linked = -1;
	c->guard.probe = -1;
	c->row.n_unknown = 0;
	init_pats(c->pat);
	c->errmsg[0] = '\0';
	init_order(c);
	return c;
}

int pmaps_maps_open(struct pmaps_maps **out, struct pmaps_proc *proc, enum pmaps_source source,
                    size_t bufsize)
{
	struct pmaps_maps *c;
	int err;

	*out = NULL;
	if ((unsigned)source > PMAPS_SRC_PAGES || !proc)
		return -EINVAL;
	if (source == PMAPS_SRC_FAST || source == PMAPS_SRC_PAGES) {
		if (proc->spare && proc->spare->src == source) {
			/* Opened for its keys, nothing read: the read begins now. */
			c = proc->spare;
			proc->spare = NULL;
			pmaps__fast_restart_clock(c->fast);
			*out = c;
			return 0;
		}
		/* The page sources read no text: their reader has its own buffers. */
		c = alloc_cursor(source, 4096);
		if (!c)
			return -ENOMEM;
		c->proc = proc;
		err = pmaps__fast_open(&c->fast, proc, source, bufsize, c->errmsg);
		if (!c->fast) {
			pmaps_maps_close(c);
			return err;
		}
		*out = c;
		return err;
	}
	c = alloc_cursor(source, bufsize);
	if (!c)
		return -ENOMEM;
	c->proc = proc;
	err = open_file(c);
	*out = c; /* even on error, so that the caller can read the message */
	return err;
}

int pmaps__maps_open_mem(struct pmaps_maps **out, enum pmaps_source source, const void *data,
                         size_t len, size_t bufsize)
{
	struct pmaps_maps *c;

	*out = NULL;
	if ((unsigned)source > PMAPS_SRC_ROLLUP)
		return -EINVAL;
	c = alloc_cursor(source, bufsize);
	if (!c)
		return -ENOMEM;
	c->mem = data;
	c->mem_len = len;
	start_scan(c);
	*out = c;
	return 0;
}

int pmaps__maps_set_mem(struct pmaps_maps *c, const void *data, size_t len)
{
	if (!c->mem)
		return -EINVAL;
	c->mem = data;
	c->mem_len = len;
	start_scan(c);
	return 0;
}

void pmaps__maps_set_chunk(struct pmaps_maps *c, size_t n)
{
	c->mem_chunk = n;
}

int pmaps_maps_rewind(struct pmaps_maps *c)
{
	if (c->fast) {
		c->err = 0;
		return pmaps__fast_rewind(c->fast, NULL);
	}
	if (c->mem) {
		start_scan(c);
		return 0;
	}
	if (c->fd >= 0) {
		close(c->fd);
		c->fd = -1;
	}
	return open_file(c);
}

int pmaps_maps_retarget(struct pmaps_maps *c, struct pmaps_proc *proc)
{
	if (c->mem || !proc)
		return -EINVAL;
	if (c->fast) {
		c->proc = proc;
		c->err = 0;
		return pmaps__fast_rewind(c->fast, proc);
	}
	if (c->fd >= 0) {
		close(c->fd);
		c->fd = -1;
	}
	/*
	 * The buffer, the learnt field order (the kernel's, the same for every
	 * process) and the source stay; what was learnt of the process goes.
	 */
	c->proc = proc;
	c->no_map_files = 0;
	return open_file(c);
}

int pmaps_maps_read_whole(struct pmaps_maps *c,
                          int (*row)(void *ctx, const struct pmaps_mapping *m),
                          void (*reset)(void *ctx), void *ctx)
{
	const struct pmaps_mapping *m;
	int err;

	for (int attempt = 1;; attempt++) {
		int overlaps = 0;
		reset(ctx);
		/* A budget's -ETIME is a pause in the walk, which a whole read goes on from. */
		while ((err = pmaps_maps_next(c, &m)) > 0 || err == -ETIME) {
			if (err == -ETIME)
				continue;
			overlaps |= (m->flags & PMAPS_ROW_OVERLAP) != 0;
			err = row(ctx, m);
			if (err < 0)
				return pmaps__maps_fail(c, err, pmaps_strerror(err));
		}
		/* -EAGAIN: the thread read through ended, and a row handed out may be its. */
		if ((err == 0 && !overlaps) || (err < 0 && err != -EAGAIN))
			return err;
		if (attempt == PMAPS_MAX_READS) {
			if (err < 0)
				return err;
			pmaps__msg(c->errmsg, sizeof(c->errmsg),
			           "%s: its mappings kept changing while they were read (a mapping grew "
			           "and was listed twice, %d reads in a row): no sum or order of them "
			           "would be right; try again", src_file(c->src), PMAPS_MAX_READS);
			c->err = -EAGAIN;
			return -EAGAIN;
		}
		if ((err = pmaps_maps_rewind(c)) < 0)
			return err;
	}
}

void pmaps_maps_close(struct pmaps_maps *c)
{
	if (!c)
		return;
	if (c->fd >= 0)
		close(c->fd);
	pmaps__guard_end(&c->guard);
	pmaps__fast_close(c->fast);
	pmaps__free(c->buf);
	pmaps__free(c);
}

int pmaps__maps_fail(struct pmaps_maps *c, int err, const char *msg)
{
	pmaps__msg(c->errmsg, sizeof(c->errmsg), "%s: %s", src_file(c->src), msg);
	c->err = err;
	return err;
}

const char *pmaps_maps_errmsg(const struct pmaps_maps *c)
{
	return c->errmsg;
}

uint64_t pmaps_maps_lines(const struct pmaps_maps *c)
{
	return c->lines;
}

uint64_t pmaps__maps_reads(const struct pmaps_maps *c)
{
	return c->reads;
}

int pmaps_maps_set_policy(struct pmaps_maps *c, const struct pmaps_policy *policy)
{
	if (policy && !pmaps__size_ok(policy->size, PMAPS__POLICY_SIZE0))
		return -EINVAL;
	if (c->fast)
		pmaps__fast_policy(c->fast, policy);
	return 0;
}

int pmaps_maps_cost(const struct pmaps_maps *c, struct pmaps_cost *out)
{
	struct pmaps_cost k;

	if (!out || !pmaps__size_ok(out->size, PMAPS__COST_SIZE0))
		return -EINVAL;
	memset(&k, 0, sizeof(k));
	k.query = k.strategy = -1;
	if (c->fast) {
		pmaps__fast_cost(c->fast, &k);
	} else {
		k.ns = (c->t_end ? c->t_end : pmaps__now_ns()) - c->t_read;
		k.calls = c->reads;
		/* smaps and smaps_rollup hold the mmap_lock through a read(); maps (6.17+) does not */
		k.hold_ns = c->src == PMAPS_SRC_MAPS ? 0 : c->longest_ns;
	}
	k.size = out->size;
	pmaps__copy_out(out, out->size, &k, sizeof(k));
	return 0;
}

int pmaps__maps_pss_total(const struct pmaps_maps *c, uint64_t *pss)
{
	return c->fast ? pmaps__fast_pss_total(c->fast, pss) : 0;
}

void pmaps__maps_spare_keep(struct pmaps_proc *proc, enum pmaps_source source)
{
	if (proc->spare && proc->spare->src != source) {
		pmaps_maps_close(proc->spare);
		proc->spare = NULL;
	}
}

int pmaps__maps_spare_keys(struct pmaps_proc *proc, enum pmaps_source source, uint64_t *fields,
                           uint64_t *values)
{
	struct pmaps_maps *c;
	int err;

	pmaps__maps_spare_keep(proc, source);
	c = proc->spare;
	if (!c) {
		err = pmaps_maps_open(&c, proc, source, 0);
		if (err < 0) {
			pmaps_maps_close(c);
			return err;
		}
		proc->spare = c;
	}
	pmaps__maps_fast_keys(c, fields, values);
	return 0;
}

void pmaps__maps_fast_keys(const struct pmaps_maps *c, uint64_t *fields, uint64_t *values)
{
	*fields = *values = 0;
	if (c->fast)
		pmaps__fast_keys(c->fast, fields, values);
}

struct pmaps_mapping *pmaps__maps_row(struct pmaps_maps *c)
{
	return &c->row;
}

int pmaps_maps_query(const struct pmaps_maps *c)
{
	return c->fast ? pmaps__fast_query(c->fast) : -1;
}

/*
 * At the end of the text, or when a read failed: did the process exit, die
 * or exec while it was read? A dying process's smaps reads as empty and an
 * exec'd process's old fd reads as ended, so an early end looks like a
 * short, valid list unless checked.
 */
static int end_check(struct pmaps_maps *c)
{
	struct pmaps__ident id;
	int r;

	if (c->mem)
		return 0;
	r = pmaps__guard_check(c->proc, &c->guard, src_file(c->src), c->errmsg, sizeof(c->errmsg));
	if (r < 0)
		return fail(c, r);
	/*
	 * No mapping at all: only a kernel thread has none (the guard refuses
	 * those, and gone processes, on a live procfs). In a fixture tree,
	 * its stat says which; without one, an empty file is no process.
	 */
	if (c->rows == 0 && !c->in_record && !c->proc->live) {
		if (pmaps__proc_ident(c->proc, &id) == 0 && id.kthread) {
			pmaps__msg(c->errmsg, sizeof(c->errmsg),
			           "%s: a kernel thread has no user-space memory", src_file(c->src));
			return fail(c, -ENODATA);
		}
		pmaps__msg(c->errmsg, sizeof(c->errmsg),
		           "%s: no mapping at all, and stat says no kernel thread: every process "
		           "has some", src_file(c->src));
		return fail(c, -EBADMSG);
	}
	return 0;
}

/* A value no kernel could print for this mapping: the row is malformed. */
static int bad_value(struct pmaps_maps *c, const struct pmaps_mapping *m, const char *what,
                     enum pmaps_field f, uint64_t v, uint64_t limit)
{
	pmaps__msg(c->errmsg, sizeof(c->errmsg),
	           "%s: mapping at line %u (%llx-%llx): %s %llu kB %s (%llu kB)", src_file(c->src),
	           m->line, (unsigned long long)m->start, (unsigned long long)m->end,
	           keys[f].name, (unsigned long long)(v >> 10), what,
	           (unsigned long long)(limit >> 10));
	return -EBADMSG;
}

/*
 * The kernel's invariants for one smaps record, as it computes them: Size is the
 * mapping's length; no page count exceeds it (for smaps_rollup, the span
 * from the first mapping to the end of the last); Rss is exactly its four
 * shared/private, clean/dirty parts; Pss never exceeds Rss. A record that
 * breaks one came from no kernel, and a sum built on it could wrap: refuse it.
 */
static int check_row(struct pmaps_maps *c, const struct pmaps_mapping *m)
{
	uint64_t span = m->end - m->start, sizes = 0, p = m->present;
	const uint64_t *v = m->v;
	const uint64_t parts = 1ull << PMAPS_F_SHARED_CLEAN | 1ull << PMAPS_F_SHARED_DIRTY |
	                       1ull << PMAPS_F_PRIVATE_CLEAN | 1ull << PMAPS_F_PRIVATE_DIRTY;

	if ((p & (1ull << PMAPS_F_SIZE)) && v[PMAPS_F_SIZE] != span)
		return bad_value(c, m, "is not the mapping's length", PMAPS_F_SIZE, v[PMAPS_F_SIZE],
		                 span);
	/*
	 * Swap and SwapPss are exempt: for shared memory the kernel counts the
	 * object's swapped pages when the mapping covers its size, pages past
	 * its end (fallocate KEEP_SIZE) included.
	 */
	for (uint64_t q = p & ~(1ull << PMAPS_F_SWAP | 1ull << PMAPS_F_SWAP_PSS); q; q &= q - 1) {
		unsigned f = (unsigned)__builtin_ctzll(q);
		if (keys[f].is_size && v[f] > span)
			return bad_value(c, m, "is larger than the mapping", f, v[f], span);
	}
	if ((p & (1ull << PMAPS_F_RSS)) && (p & parts) == parts) {
		int wrap = __builtin_add_overflow(v[PMAPS_F_SHARED_CLEAN], v[PMAPS_F_SHARED_DIRTY], &sizes);
		wrap |= __builtin_add_overflow(sizes, v[PMAPS_F_PRIVATE_CLEAN], &sizes);
		wrap |= __builtin_add_overflow(sizes, v[PMAPS_F_PRIVATE_DIRTY], &sizes);
		if (wrap || sizes != v[PMAPS_F_RSS])
			return bad_value(c, m, "is not Shared_Clean + Shared_Dirty + Private_Clean + "
			                 "Private_Dirty", PMAPS_F_RSS, v[PMAPS_F_RSS],
			                 wrap ? UINT64_MAX : sizes);
	}
	if ((p & (1ull << PMAPS_F_RSS)) && (p & (1ull << PMAPS_F_PSS)) &&
	    v[PMAPS_F_PSS] > v[PMAPS_F_RSS])
		return bad_value(c, m, "is larger than Rss", PMAPS_F_PSS, v[PMAPS_F_PSS], v[PMAPS_F_RSS]);
	/* A referenced page is a resident one (smaps counts both as it walks the present pages). */
	if ((p & (1ull << PMAPS_F_RSS)) && (p & (1ull << PMAPS_F_REFERENCED)) &&
	    v[PMAPS_F_REFERENCED] > v[PMAPS_F_RSS])
		return bad_value(c, m, "is larger than Rss", PMAPS_F_REFERENCED, v[PMAPS_F_REFERENCED],
		                 v[PMAPS_F_RSS]);
	return 0;
}

/*
 * The maps text is ambiguous in two ways only the file can settle: a newline
 * in a name is printed "\012", as are the four bytes \ 0 1 2 of a name that
 * has them; and " (deleted)" follows an unlinked file's name but may also end
 * a real one. Where the privilege allows (map_files needs CAP_SYS_ADMIN or
 * CAP_CHECKPOINT_RESTORE), ask the kernel's reference to the very mapping:
 * its link holds the name unescaped, and its file's link count says whether
 * any name is left. Only rows that show either form pay for it, and only
 * while the same file is still mapped there.
 */
void pmaps__check_deleted(const struct pmaps_proc *proc, struct pmaps_mapping *m,
                          struct pmaps__del_cache *cache, int *no_map_files)
{
	char name[48];
	struct stat st;

	if (!proc || !proc->live || *no_map_files || !m->inode || !(m->flags & PMAPS_ROW_DELETED) ||
	    (m->flags & PMAPS_ROW_PATH_TRUNCATED))
		return;
	if (cache->linked >= 0 && cache->inode == m->inode && cache->major == m->dev_major &&
	    cache->minor == m->dev_minor) {
		if (cache->linked)
			m->flags &= ~PMAPS_ROW_DELETED;
		return;
	}
	pmaps__msg(name, sizeof(name), "map_files/%llx-%llx", (unsigned long long)m->start,
	           (unsigned long long)m->end);
	if (fstatat(proc->memfd, name, &st, 0) < 0) {
		if (errno == EPERM || errno == EACCES)
			*no_map_files = 1;
		return;
	}
	if (st.st_ino != m->inode || major(st.st_dev) != m->dev_major ||
	    minor(st.st_dev) != m->dev_minor)
		return; /* another file is mapped there by now */
	cache->inode = m->inode;
	cache->major = m->dev_major;
	cache->minor = m->dev_minor;
	cache->linked = st.st_nlink > 0;
	if (st.st_nlink > 0)
		m->flags &= ~PMAPS_ROW_DELETED; /* a name is left: " (deleted)" is part of it */
}

static void resolve_name(struct pmaps_maps *c)
{
	struct pmaps_mapping *m = &c->row;
	char name[48];
	struct stat st;
	ssize_t n;

	if (likely(!(m->flags & (PMAPS_ROW_PATH_ESCAPED | PMAPS_ROW_DELETED))) || !c->proc ||
	    !c->proc->live || c->no_map_files || !m->inode || (m->flags & PMAPS_ROW_PATH_TRUNCATED))
		return;
	if (!(m->flags & PMAPS_ROW_PATH_ESCAPED)) {
		pmaps__check_deleted(c->proc, m, &c->del, &c->no_map_files);
		return;
	}
	pmaps__msg(name, sizeof(name), "map_files/%llx-%llx", (unsigned long long)m->start,
	           (unsigned long long)m->end);
	if (fstatat(c->proc->memfd, name, &st, 0) < 0) {
		if (errno == EPERM || errno == EACCES)
			c->no_map_files = 1;
		return;
	}
	if (st.st_ino != m->inode || major(st.st_dev) != m->dev_major ||
	    minor(st.st_dev) != m->dev_minor)
		return; /* another file is mapped there by now */
	if (m->flags & PMAPS_ROW_PATH_ESCAPED) {
		n = readlinkat(c->proc->memfd, name, c->raw, sizeof(c->raw) - 1);
		if (n > 0 && (size_t)n < sizeof(c->raw) - 1) {
			memcpy(c->path, c->raw, (size_t)n);
			c->path[n] = '\0';
			m->path.len = (size_t)n;
			if (!memchr(c->path, '\n', (size_t)n))
				m->flags &= ~PMAPS_ROW_PATH_ESCAPED; /* a literal "\012", not a newline */
		}
	}
	if (m->flags & PMAPS_ROW_DELETED) {
		c->del.inode = m->inode;
		c->del.major = m->dev_major;
		c->del.minor = m->dev_minor;
		c->del.linked = st.st_nlink > 0;
	}
	if (st.st_nlink > 0)
		m->flags &= ~PMAPS_ROW_DELETED; /* a name is left: " (deleted)" is part of it */
}

static const struct pmaps_mapping *finish_row(struct pmaps_maps *c)
{
	uint64_t absent = ~c->row.present & ((1ull << PMAPS_F_COUNT) - 1);

	/*
	 * Usually a few fields (Pss_Anon/File/Shmem in smaps): cheaper than a
	 * memset. The maps text has no field lines: its rows' v[] is zeroed
	 * once.
	 */
	if (absent == (1ull << PMAPS_F_COUNT) - 1) {
		if (!c->v_zero)
			memset(c->row.v, 0, sizeof(c->row.v));
		c->v_zero = c->src == PMAPS_SRC_MAPS;
	} else
		for (; absent; absent &= absent - 1)
			c->row.v[__builtin_ctzll(absent)] = 0;
	c->in_record = 0;
	c->prev_end = c->row.end;
	if (c->row.present && check_row(c, &c->row) < 0)
		c->bad_row = 1;
	resolve_name(c);
	pmaps__classify(&c->row, c->src);
	return &c->row;
}

/* Hands the finished row out, or the error check_row() found in it. */
static int emit(struct pmaps_maps *c, const struct pmaps_mapping **row)
{
	c->rows++;
	*row = finish_row(c);
	if (unlikely(c->bad_row)) {
		*row = NULL;
		return fail(c, -EBADMSG);
	}
	return 1;
}

/*
 * The thread a process was read through (its main thread gone) ended before
 * any row was handed out: nothing the caller holds is stale, so read again
 * through another thread, a few times. smaps_rollup, one row, always gets
 * here.
 */
static int read_again(struct pmaps_maps *c, int err)
{
	if (err != -EAGAIN || c->rows || c->mem)
		return err;
	for (int tries = 0; tries < 3; tries++) {
		if (c->fd >= 0)
			close(c->fd);
		c->fd = -1;
		c->err = 0;
		if (open_file(c) == 0)
			return 0;
		if (c->err != -EAGAIN)
			break;
	}
	return c->err;
}

int pmaps_maps_next(struct pmaps_maps *c, const struct pmaps_mapping **row)
{
	int r;

	if (c->err)
		return c->err;
	if (c->fast)
		return pmaps__fast_next(c->fast, row);
	if (c->done)
		return 0;
	for (;;) {
		r = fill(c);
		if (unlikely(r <= 0)) {
			if (r < 0) {
				if (r == -ESRCH) {
					/* Gone, or exec'd: the old program's file reads as gone. */
					int e;
					c->guard.gone = 1;
					e = end_check(c);
					if (e == -EAGAIN && read_again(c, e) == 0)
						continue;
					if (e < 0)
						return c->err ? c->err : e;
					pmaps__msg(c->errmsg, sizeof(c->errmsg),
					           "%s: process %d exited while it was read", src_file(c->src),
					           c->proc ? c->proc->pid : 0);
				}
				return fail(c, r);
			}
			/*
			 * The end: whole, or cut short by an exit or exec? Checked
			 * before the last row is handed out, so that a caller never
			 * takes the rows so far for all of them.
			 */
			r = end_check(c);
			if (r == -EAGAIN && read_again(c, r) == 0)
				continue;
			if (r < 0)
				return c->err ? c->err : r;
			c->done = 1;
			c->t_end = pmaps__now_ns();
			if (c->in_record)
				return emit(c, row);
			return 0;
		}
		if (is_header_start((unsigned char)c->buf[c->pos])) {
			if (c->in_record)
				return emit(c, row);
			r = parse_header(c);
			if (r < 0)
				return r;
			if (c->src == PMAPS_SRC_MAPS)
				return emit(c, row);
			c->in_record = 1;
			continue;
		}
		if (unlikely(!c->in_record)) {
			if (c->buf[c->pos] == '\n') {
				/* A blank line carries nothing; the kernel never prints one. */
				c->pos++;
				c->lines++;
				continue;
			}
			return bad(c, "a field line before any mapping header");
		}
		r = parse_field(c);
		if (r < 0)
			return r;
	}
}
