/* SPDX-License-Identifier: MIT */
/*
 * books_jvm.c - a HotSpot JVM's own books, as jcmd (the JDK's diagnostic
 * command tool) prints them, parsed; and whether jcmd may ask a JVM at all.
 *
 * jcmd PID GC.heap_info (HotSpot 17; jcmd's first line is "PID:"), the
 * collector's lines, sizes in K (ZGC: B, K, M or G, rounded down to it):
 *   " garbage-first heap   total 65536K, used 43077K [0xa, 0xb)"         G1
 *   " def new generation   total 19648K, used 9237K [0xa, 0xb, 0xc)"     Serial
 *   " tenured generation   total 43712K, used 28870K [0xa, 0xb, 0xc)"
 *   " PSYoungGen      total 18944K, used 14814K [0xa, 0xb, 0xc)"         Parallel
 *   " ParOldGen       total 44032K, used 26248K [0xa, 0xb, 0xc)"
 *   " ZHeap           used 48M, capacity 64M, max capacity 64M"          ZGC
 *   "Shenandoah Heap" and " 65536K max, 65536K soft max, 65536K committed, 35818K used"
 *   " Metaspace       used 9150K, committed 9344K, reserved 1114112K"
 * A generation's "total" is its capacity, which leaves out the survivor
 * space that is kept empty ("to"); its committed bytes are those between
 * the first two addresses, [reserved start, committed end, reserved end).
 * Those are what the kernel maps, so they are the heap's committed bytes
 * here (Serial's and Parallel's Runtime.totalMemory() is the capacity).
 *
 * jcmd PID VM.native_memory summary scale=b (bytes; other scales carry
 * KB, MB or GB, read too):
 *   "Total: reserved=1546237835, committed=143513483"
 *   "-                 Java Heap (reserved=67108864, committed=67108864)"
 *   "                            (mmap: reserved=..., committed=...)"  detail, not read
 * or "Native memory tracking is not enabled" when the JVM runs without
 * -XX:NativeMemoryTracking, "... has been shutdown" after
 * VM.native_memory shutdown. jcmd exits 0 for both, and for an unknown
 * scale ("Incorrect scale value: x").
 *
 * Every byte of jcmd's output is the target's to choose (a JVM answers
 * through its attach socket): parsed with bounds, a figure past 2^62 is
 * out of range.
 *
 * jcmd attaches by sending the process SIGQUIT when it has no attach
 * socket yet: a JVM starts its attach listener, anything else dies. So
 * pmaps_books_jvm_attach() says yes only for a live process that maps
 * libjvm.so, under the live /proc, not stopped (it could not answer, and
 * a jcmd killed at the timeout would leave it a .attach_pid file), and
 * not one the signal would harm.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "readers.h"

/* ---- bounded text helpers ---- */

/*
 * The next line of [*POS, END) in [*LS, *LE) without its newline; 0 at the
 * end. A last line without a newline is returned too, with *CUT set: jcmd
 * ends every line, so that one was cut short, and a figure read from it
 * could be a cut number.
 */
static int next_line(const char **pos, const char *end, const char **ls, const char **le,
                     int *cut)
{
	const char *p = *pos, *nl;

	if (p >= end)
		return 0;
	nl = memchr(p, '\n', (size_t)(end - p));
	*ls = p;
	*le = nl ? nl : end;
	*pos = nl ? nl + 1 : end;
	if (cut)
		*cut = !nl;
	return 1;
}

static void skip_sp(const char **p, const char *e)
{
	while (*p < e && (**p == ' ' || **p == '\t'))
		(*p)++;
}

/* Advances *P past the literal S when [*P, E) starts with it; 1 then, else 0. */
static int lit(const char **p, const char *e, const char *s)
{
	size_t n = strlen(s);

	if ((size_t)(e - *p) < n || memcmp(*p, s, n) != 0)
		return 0;
	*p += n;
	return 1;
}

/* Decimal digits into *V; 0, or -1 when none or past PMAPS__BOOK_FIGURE_MAX. Advances on success. */
static int dec(const char **p, const char *e, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;

	if (s >= e || (unsigned)(*s - '0') > 9)
		return -1;
	while (s < e && (unsigned)(*s - '0') <= 9) {
		unsigned d = (unsigned)(*s - '0');
		if (x > (PMAPS__BOOK_FIGURE_MAX - d) / 10)
			return -1;
		x = x * 10 + d;
		s++;
	}
	*p = s;
	*v = x;
	return 0;
}

/* "0x" and 1 to 16 hex digits. */
static int hex(const char **p, const char *e, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;
	int n = 0;

	if (!lit(&s, e, "0x"))
		return -1;
	for (; s < e; s++, n++) {
		unsigned c = (unsigned char)*s, d;
		if (c - '0' <= 9)
			d = c - '0';
		else if ((c | 0x20) - 'a' <= 5)
			d = (c | 0x20) - 'a' + 10;
		else
			break;
		if (n == 16)
			return -1;
		x = x << 4 | d;
	}
	if (n == 0)
		return -1;
	*p = s;
	*v = x;
	return 0;
}

/* V times the unit the letter at *P names (one of UNITS: B, K, M, G), advanced past it. */
static int unit(const char **p, const char *e, const char *units, uint64_t *v)
{
	static const struct {
		char c;
		unsigned shift;
	} u[] = {{'B', 0}, {'K', 10}, {'M', 20}, {'G', 30}};

	if (*p >= e || !strchr(units, **p) || **p == '\0')
		return -1;
	for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		if (u[i].c != **p)
			continue;
		if (*v > PMAPS__BOOK_FIGURE_MAX >> u[i].shift)
			return -1;
		*v <<= u[i].shift;
		(*p)++;
		return 0;
	}
	return -1;
}

/* A size as GC.heap_info writes it: digits and one of UNITS. */
static int size(const char **p, const char *e, const char *units, uint64_t *v)
{
	const char *s = *p;
	uint64_t x;

	if (dec(&s, e, &x) < 0 || unit(&s, e, units, &x) < 0)
		return -1;
	*p = s;
	*v = x;
	return 0;
}

/* Whether [S, E) holds nothing but spaces, tabs and a carriage return. */
static int blank(const char *s, const char *e)
{
	for (; s < e; s++)
		if (*s != ' ' && *s != '\t' && *s != '\r')
			return 0;
	return 1;
}

/* Whether the line is jcmd's "PID:" header. */
static int pid_header(const char *s, const char *e)
{
	const char *p = s;
	uint64_t v;

	return dec(&p, e, &v) == 0 && lit(&p, e, ":") && blank(p, e);
}

/* The N bytes at S into DST (SIZE), cut before a UTF-8 sequence the room would split. */
static void copy_cut(char *dst, size_t dstsz, const char *s, size_t n)
{
	if (n >= dstsz) {
		n = dstsz - 1;
		/* back off the continuation bytes of a sequence the cut splits */
		for (int k = 0; k < 3 && n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80; k++)
			n--;
	}
	memcpy(dst, s, n);
	dst[n] = '\0';
}

static int bad(char *why, size_t whysz, const char *what, unsigned line)
{
	if (why && whysz)
		pmaps__msg(why, whysz, "%s (line %u)", what, line);
	return -EBADMSG;
}

/*
 * The next line of jcmd's output to parse into [*LS, *LE), numbered *LINE:
 * its "PID:" header skipped, a carriage return dropped. Returns 1, 0 at the
 * end, or -EBADMSG (WHY says) for a last line cut short.
 */
static int body_line(const char **pos, const char *end, const char **ls, const char **le,
                     unsigned *line, char *why, size_t whysz)
{
	int cut = 0;

	while (next_line(pos, end, ls, le, &cut)) {
		++*line;
		if (cut && !blank(*ls, *le))
			return bad(why, whysz, "the output ends in a line cut short", *line);
		if (*line == 1 && pid_header(*ls, *le))
			continue;
		if (*le > *ls && (*le)[-1] == '\r')
			--*le;
		return 1;
	}
	return 0;
}

/* ---- jcmd's words when it fails ---- */

/*
 * The words of [S, S+N) that say what failed: those after "Exception: " on
 * the line that names jcmd's exception (*ATTACH 1 when the exception is the
 * attach mechanism's), or the first line that says something.
 */
static void failure_words(const char *s, size_t n, const char **w, size_t *wn, int *attach)
{
	const char *pos = s, *end = s + n, *ls, *le, *first = NULL, *first_end = NULL;
	unsigned line = 0;

	*w = NULL;
	*wn = 0;
	while (next_line(&pos, end, &ls, &le, NULL)) {
		const char *x;
		line++;
		if (le > ls && le[-1] == '\r')
			le--;
		if ((line == 1 && pid_header(ls, le)) || blank(ls, le) || *ls == '\t')
			continue;
		if (!first)
			first = ls, first_end = le;
		x = memmem(ls, (size_t)(le - ls), "Exception: ", 11);
		if (x) {
			*attach = memmem(ls, (size_t)(x - ls), "attach", 6) != NULL;
			*w = x + 11;
			*wn = (size_t)(le - *w);
			return;
		}
	}
	if (first) {
		*w = first;
		*wn = (size_t)(first_end - first);
	}
}

void pmaps_books_jcmd_failed(int pid, const char *cmd, int status, const char *err,
                             size_t errlen, const char *out, size_t outlen, int other_mntns,
                             char *why, size_t whysz)
{
	const char *w = NULL;
	size_t wn = 0, l;
	int attach = 0;
	char words[200];

	if (!why || !whysz)
		return;
	if (!cmd)
		cmd = "";
	if (err)
		failure_words(err, errlen, &w, &wn, &attach);
	if (!w && out)
		failure_words(out, outlen, &w, &wn, &attach);
	if (!w) {
		pmaps__msg(why, whysz, "jcmd %d %s failed (status %d) and said nothing", pid, cmd,
		           status);
	} else {
		copy_cut(words, sizeof(words), w, wn);
		if (attach)
			pmaps__msg(why, whysz, "jcmd could not attach to the JVM: %s", words);
		else
			pmaps__msg(why, whysz, "jcmd %d %s failed (status %d): %s", pid, cmd, status,
			           words);
	}
	l = strlen(why);
	if (other_mntns && l < whysz)
		pmaps__msg(why + l, whysz - l, " (it runs in another mount namespace, a container: "
		           "not reached)");
}

/* ---- GC.heap_info ---- */

/* " total 19648K, used 9237K" and the addresses that follow, "[a, b)" or "[a, b, c)". */
struct gen {
	int seen;
	uint64_t total, used, addr[3];
	int naddr;
};

static int parse_gen(const char *p, const char *e, struct gen *g)
{
	skip_sp(&p, e);
	if (!lit(&p, e, "total ") || size(&p, e, "K", &g->total) < 0 || !lit(&p, e, ", used ") ||
	    size(&p, e, "K", &g->used) < 0)
		return -1;
	skip_sp(&p, e);
	g->naddr = 0;
	if (!lit(&p, e, "["))
		return 0;
	for (;;) {
		if (g->naddr == 3 || hex(&p, e, &g->addr[g->naddr]) < 0)
			return -1;
		g->naddr++;
		if (lit(&p, e, ")"))
			return 0;
		if (!lit(&p, e, ","))
			return -1;
		skip_sp(&p, e);
	}
}

/* A generation's committed bytes: from its addresses, never less than its capacity. */
static int gen_committed(const struct gen *g, uint64_t *out)
{
	if (g->naddr != 3 || g->addr[1] < g->addr[0] || g->addr[2] < g->addr[1] ||
	    g->addr[1] - g->addr[0] > PMAPS__BOOK_FIGURE_MAX || g->addr[1] - g->addr[0] < g->total ||
	    g->used > g->total)
		return -1;
	*out = g->addr[1] - g->addr[0];
	return 0;
}

enum heap_kind { HK_NONE, HK_G1, HK_SERIAL, HK_PARALLEL, HK_Z, HK_SHEN };

int pmaps__books_parse_jvm_heap(struct pmaps_books *j, const char *text, size_t len, char *why,
                                size_t whysz)
{
	const char *pos = text, *end = text + len, *ls, *le;
	struct gen g1 = {0}, young = {0}, old = {0};
	uint64_t committed = 0, used = 0, mu = 0, mc = 0, mr = 0, x;
	enum heap_kind kind = HK_NONE;
	unsigned line = 0;
	int meta = 0, shen_next = 0, r;

	while ((r = body_line(&pos, end, &ls, &le, &line, why, whysz)) > 0) {
		const char *p = ls;
		struct gen *g = NULL;
		enum heap_kind k = HK_NONE;

		if (shen_next) {
			/* " 65536K max, 65536K soft max, 65536K committed, 35818K used" */
			uint64_t c, u;
			shen_next = 0;
			skip_sp(&p, le);
			if (size(&p, le, "K", &x) < 0 || !lit(&p, le, " max, ") ||
			    size(&p, le, "K", &x) < 0 || !lit(&p, le, " soft max, ") ||
			    size(&p, le, "K", &c) < 0 || !lit(&p, le, " committed, ") ||
			    size(&p, le, "K", &u) < 0 || !lit(&p, le, " used") || !blank(p, le))
				return bad(why, whysz, "Shenandoah's sizes are not \"N max, N soft max, "
				           "N committed, N used\"", line);
			if (u > c)
				return bad(why, whysz, "Shenandoah's used passes its committed", line);
			committed = c, used = u;
			continue;
		}
		skip_sp(&p, le);
		if (lit(&p, le, "garbage-first heap"))
			k = HK_G1, g = &g1;
		else if (lit(&p, le, "def new generation"))
			k = HK_SERIAL, g = &young;
		else if (lit(&p, le, "tenured generation"))
			k = HK_SERIAL, g = &old;
		else if (lit(&p, le, "PSYoungGen"))
			k = HK_PARALLEL, g = &young;
		else if (lit(&p, le, "ParOldGen"))
			k = HK_PARALLEL, g = &old;
		else if (lit(&p, le, "ZHeap"))
			k = HK_Z;
		else if (lit(&p, le, "Shenandoah Heap") && blank(p, le))
			k = HK_SHEN;
		if (k == HK_NONE && lit(&p, le, "Metaspace")) {
			/* "Metaspace       used 9150K, committed 9344K, reserved 1114112K" */
			if (meta)
				return bad(why, whysz, "a second Metaspace line", line);
			skip_sp(&p, le);
			if (!lit(&p, le, "used ") || size(&p, le, "K", &mu) < 0 ||
			    !lit(&p, le, ", committed ") || size(&p, le, "K", &mc) < 0 ||
			    !lit(&p, le, ", reserved ") || size(&p, le, "K", &mr) < 0 || !blank(p, le))
				return bad(why, whysz, "the Metaspace line is not \"used NK, committed NK, "
				           "reserved NK\"", line);
			if (mu > mc || mc > mr)
				return bad(why, whysz, "Metaspace's used, committed and reserved are out "
				           "of order", line);
			meta = 1;
			continue;
		}
		if (k == HK_NONE)
			continue;
		if (kind != HK_NONE && kind != k)
			return bad(why, whysz, "the heaps of two collectors", line);
		kind = k;
		if (k == HK_Z) {
			/* " ZHeap           used 48M, capacity 64M, max capacity 64M" */
			uint64_t u, c;
			if (committed || used)
				return bad(why, whysz, "a second ZHeap line", line);
			skip_sp(&p, le);
			if (!lit(&p, le, "used ") || size(&p, le, "BKMG", &u) < 0 ||
			    !lit(&p, le, ", capacity ") || size(&p, le, "BKMG", &c) < 0 ||
			    !lit(&p, le, ", max capacity ") || size(&p, le, "BKMG", &x) < 0 ||
			    !blank(p, le))
				return bad(why, whysz, "the ZHeap line is not \"used N, capacity N, max "
				           "capacity N\"", line);
			committed = c, used = u;
			if (committed == 0)
				return bad(why, whysz, "a ZHeap of no capacity", line);
			if (used > committed)
				return bad(why, whysz, "ZHeap's used passes its capacity", line);
			continue;
		}
		if (k == HK_SHEN) {
			if (committed)
				return bad(why, whysz, "a second Shenandoah heap", line);
			shen_next = 1;
			continue;
		}
		if (g->seen)
			return bad(why, whysz, "a generation named twice", line);
		if (parse_gen(p, le, g) < 0)
			return bad(why, whysz, "a heap line that is not \"total NK, used NK [addresses)\"",
			           line);
		g->seen = 1;
	}
	if (r < 0)
		return r;
	switch (kind) {
	case HK_NONE:
		return bad(why, whysz, "no Java heap this reader knows (G1, Serial, Parallel, Z, "
		           "Shenandoah) in GC.heap_info", line);
	case HK_G1:
		if (g1.used > g1.total)
			return bad(why, whysz, "G1's used passes its total", line);
		committed = g1.total, used = g1.used;
		snprintf(j->jvm_gc, sizeof(j->jvm_gc), "garbage-first heap");
		break;
	case HK_SERIAL:
	case HK_PARALLEL: {
		uint64_t yc, oc;
		if (!young.seen || !old.seen)
			return bad(why, whysz, young.seen ? "the old generation is missing"
			                                  : "the young generation is missing", line);
		if (gen_committed(&young, &yc) < 0 || gen_committed(&old, &oc) < 0)
			return bad(why, whysz, "a generation whose addresses do not hold its total and "
			           "used", line);
		committed = yc + oc, used = young.used + old.used; /* each <= 2^62: no wrap */
		if (committed > PMAPS__BOOK_FIGURE_MAX)
			return bad(why, whysz, "a heap past 2^62 bytes", line);
		snprintf(j->jvm_gc, sizeof(j->jvm_gc), "%s", kind == HK_SERIAL
		         ? "def new generation, tenured generation" : "PSYoungGen, ParOldGen");
		break;
	}
	case HK_Z:
		snprintf(j->jvm_gc, sizeof(j->jvm_gc), "ZHeap");
		break;
	case HK_SHEN:
		if (!committed)
			return bad(why, whysz, "the Shenandoah heap's sizes are missing", line);
		snprintf(j->jvm_gc, sizeof(j->jvm_gc), "Shenandoah Heap");
		break;
	}
	pmaps__books_put(j, PMAPS_BV_JVM_HEAP_COMMITTED, committed);
	pmaps__books_put(j, PMAPS_BV_JVM_HEAP_USED, used);
	if (meta) {
		pmaps__books_put(j, PMAPS_BV_JVM_METASPACE_USED, mu);
		pmaps__books_put(j, PMAPS_BV_JVM_METASPACE_COMMITTED, mc);
		pmaps__books_put(j, PMAPS_BV_JVM_METASPACE_RESERVED, mr);
	}
	return 0;
}

/* ---- VM.native_memory summary ---- */

/* "reserved=N[KB|MB|GB], committed=N[..]" from *P; the rest of the line is the caller's. */
static int parse_rc(const char **p, const char *e, uint64_t *r, uint64_t *c)
{
	uint64_t *v[2] = {r, c};
	const char *key[2] = {"reserved=", ", committed="};
	const char *s = *p;

	for (int i = 0; i < 2; i++) {
		if (!lit(&s, e, key[i]) || dec(&s, e, v[i]) < 0)
			return -1;
		if (s < e && s + 1 < e && s[1] == 'B' && strchr("KMG", *s)) {
			if (unit(&s, e, "KMG", v[i]) < 0)
				return -1;
			s++;
		}
	}
	*p = s;
	return 0;
}

int pmaps__books_parse_jvm_nmt(struct pmaps_books *j, const char *text, size_t len, char *why,
                               size_t whysz)
{
	const char *pos = text, *end = text + len, *ls, *le;
	uint64_t tr = 0, tc = 0;
	unsigned line = 0, ncat = 0;
	int total = 0, header = 0, r;

	while ((r = body_line(&pos, end, &ls, &le, &line, why, whysz)) > 0) {
		const char *p = ls, *name, *name_end, *open;
		struct pmaps_nmt_category *c;

		skip_sp(&p, le);
		if (!header && !total && ncat == 0) {
			if (lit(&p, le, "Native memory tracking is not enabled") && blank(p, le)) {
				j->jvm_nmt = PMAPS_NMT_OFF;
				return 0;
			}
			if (lit(&p, le, "Native memory tracking has been shut")) {
				j->jvm_nmt = PMAPS_NMT_SHUT_DOWN;
				return 0;
			}
		}
		if (lit(&p, le, "Native Memory Tracking:") && blank(p, le)) {
			if (header)
				return bad(why, whysz, "a second NMT summary", line);
			header = 1;
			continue;
		}
		if (lit(&p, le, "Total: ")) {
			if (!header || total)
				return bad(why, whysz, total ? "a second Total line"
				                             : "a Total line before \"Native Memory Tracking:\"",
				           line);
			if (parse_rc(&p, le, &tr, &tc) < 0 || !blank(p, le))
				return bad(why, whysz, "the Total line is not \"reserved=N, committed=N\" "
				           "(or past 2^62)", line);
			if (tc > tr)
				return bad(why, whysz, "NMT's total committed passes its reserved", line);
			total = 1;
			continue;
		}
		if (p == le || *p != '-' || p != ls)
			continue; /* detail lines, blank lines, the malloc/mmap lines */
		/* "-                 Java Heap (reserved=67108864, committed=67108864)" */
		if (!total)
			return bad(why, whysz, "a category before the Total line", line);
		p++;
		skip_sp(&p, le);
		name = p;
		open = NULL;
		for (const char *s = p; s + 10 <= le; s++)
			if (memcmp(s, "(reserved=", 10) == 0)
				open = s; /* the last: a name may hold "(" */
		if (!open)
			return bad(why, whysz, "a category line without (reserved=N, committed=N)", line);
		name_end = open;
		while (name_end > name && (name_end[-1] == ' ' || name_end[-1] == '\t'))
			name_end--;
		if (name_end == name)
			return bad(why, whysz, "a category without a name", line);
		if (ncat == PMAPS_NMT_MAX)
			return bad(why, whysz, "more NMT categories than this reader keeps", line);
		c = &j->jvm_cat[ncat];
		p = open + 1;
		if (parse_rc(&p, le, &c->reserved, &c->committed) < 0)
			return bad(why, whysz, "a category's sizes are not \"reserved=N, committed=N\" "
			           "(or past 2^62)", line);
		/* later JDKs may add ", peak=N" and such before the ")" */
		if (p < le && *p == ',')
			p = memchr(p, ')', (size_t)(le - p)) ? memchr(p, ')', (size_t)(le - p)) : le;
		if (!lit(&p, le, ")") || !blank(p, le))
			return bad(why, whysz, "a category line that does not end in \")\"", line);
		if (c->committed > c->reserved)
			return bad(why, whysz, "a category's committed passes its reserved", line);
		copy_cut(c->name, sizeof(c->name), name, (size_t)(name_end - name));
		ncat++;
	}
	if (r < 0)
		return r;
	if (!total) {
		/* the first line that says something, for the why */
		return bad(why, whysz, header ? "the NMT summary has no Total line"
		                              : "not an NMT summary (no \"Native Memory Tracking:\")",
		           line);
	}
	pmaps__books_put(j, PMAPS_BV_JVM_NMT_RESERVED, tr);
	pmaps__books_put(j, PMAPS_BV_JVM_NMT_COMMITTED, tc);
	j->jvm_ncat = ncat;
	j->jvm_nmt = PMAPS_NMT_ON;
	return 0;
}

/* ---- whether jcmd may ask ---- */

int pmaps__proc_file_has(const struct pmaps_proc *proc, const char *name, const char *needle,
                         size_t nlen)
{
	const size_t keep = nlen - 1;
	char buf[20480];
	size_t have = 0;
	ssize_t n;
	int fd, found = 0;

	if (nlen == 0 || nlen > 64)
		return -EINVAL;
	fd = pmaps__open_file(proc, proc->dirfd, name, NULL, 0);
	if (fd < 0)
		return fd;
	while (!found && (n = pmaps__read(fd, buf + have, sizeof(buf) - have)) > 0) {
		have += (size_t)n;
		found = memmem(buf, have, needle, nlen) != NULL;
		/* the tail, which may hold the start of the needle, for the next read */
		if (have > keep) {
			memmove(buf, buf + have - keep, keep);
			have = keep;
		}
	}
	if (!found && n < 0) {
		int e = errno ? -errno : -EIO;
		close(fd);
		return e;
	}
	close(fd);
	return found;
}

/* A maps line [P, NL) that ends in "/libjvm.so" or "/libjvm.so (deleted)". */
static int libjvm_line(void *ctx, const char *p, const char *nl)
{
	static const char a[] = "/libjvm.so", d[] = "/libjvm.so (deleted)";
	size_t len = (size_t)(nl - p);

	if ((len >= sizeof(a) - 1 && memcmp(nl - (sizeof(a) - 1), a, sizeof(a) - 1) == 0) ||
	    (len >= sizeof(d) - 1 && memcmp(nl - (sizeof(d) - 1), d, sizeof(d) - 1) == 0)) {
		*(int *)ctx = 1;
		return 1; /* found: the rest of the text is not read */
	}
	return 0;
}

/*
 * Whether PROC maps HotSpot's libjvm.so (an upgraded JDK's unlinked one
 * too): a line of its maps text that ends so (a newline in a path is \012
 * there: a line ends where the text says). Its lines through the status
 * reader's fixed buffer, room for the longest (a path of PATH_MAX bytes,
 * each escaped to four), nothing parsed but their ends: the maps cursor
 * would do per row what no answer here needs (20,000 stats for a process
 * of 20,000 mappings of files). 1, 0, or a negative errno.
 */
int pmaps__maps_libjvm(struct pmaps_proc *proc, char *msg, size_t msgsz)
{
	char buf[20480];
	int fd, r, found = 0;

	fd = pmaps__open_file(proc, proc->dirfd, "maps", NULL, 0);
	if (fd < 0) {
		if (msg)
			pmaps__msg(msg, msgsz, "maps: %s", pmaps_strerror(fd));
		return fd;
	}
	r = pmaps__read_lines(fd, buf, sizeof(buf), libjvm_line, &found);
	close(fd);
	if (r < 0) {
		if (msg)
			pmaps__msg(msg, msgsz, "maps: %s", pmaps_strerror(r));
		return r;
	}
	return found;
}

/* In PROC's command line or environment (JAVA_TOOL_OPTIONS and the like): 1, 0, or -errno. */
static int started_with(const struct pmaps_proc *proc, const char *opt)
{
	int r = pmaps__proc_file_has(proc, "cmdline", opt, strlen(opt));

	if (r == 0)
		r = pmaps__proc_file_has(proc, "environ", opt, strlen(opt));
	return r;
}

int pmaps_books_jvm_attach(struct pmaps_proc *proc, struct pmaps_jvm_attach *out, char *msg,
                           size_t msgsz)
{
	struct pmaps_jvm_attach a;
	struct pmaps_status st;
	struct stat s1, s2;
	char sock[64];
	uint32_t size;
	int r, state;

	if (msg && msgsz)
		msg[0] = '\0';
	if (out && !pmaps__size_ok(out->size, PMAPS__JVM_ATTACH_SIZE0)) {
		if (msg)
			pmaps__msg(msg, msgsz, "struct pmaps_jvm_attach: size %u, below %zu: set it to "
			           "sizeof", out->size, PMAPS__JVM_ATTACH_SIZE0);
		return -EINVAL;
	}
	if (!proc || !out)
		return -EINVAL;
	size = out->size;
	memset(&a, 0, sizeof(a));
	a.size = size;
	pmaps__copy_out(out, size, &a, sizeof(a));
	out->size = size;
	if (!proc->live) {
		if (msg)
			pmaps__msg(msg, msgsz, "the JVM's books are asked of a live process: not under "
			           "another proc root");
		return 0;
	}
	memset(&st, 0, sizeof(st));
	st.size = sizeof(st);
	r = pmaps_status_read(proc, &st, msg, msgsz);
	if (r < 0)
		return r;
	if (!((st.present >> PMAPS_ST_EUID) & 1) || !((st.present >> PMAPS_ST_EGID) & 1) ||
	    !((st.present >> PMAPS_ST_STATE) & 1)) {
		if (msg)
			pmaps__msg(msg, msgsz, "status: no State, Uid or Gid line");
		return -EBADMSG;
	}
	state = (int)st.v[PMAPS_ST_STATE];
	if (state == 'T' || state == 't') {
		if (msg)
			pmaps__msg(msg, msgsz, "the JVM is stopped (state %c): it cannot answer jcmd "
			           "until it runs again", state);
		return 0;
	}
	if (state == 'Z' || state == 'X') {
		if (msg)
			pmaps__msg(msg, msgsz, "the JVM is exiting (state %c): it has no memory left "
			           "to ask about", state);
		return -ESRCH;
	}
	r = pmaps__maps_libjvm(proc, msg, msgsz);
	if (r < 0)
		return r;
	if (r == 0) {
		if (msg)
			pmaps__msg(msg, msgsz, "the process maps no libjvm.so: jcmd is only run against "
			           "a HotSpot JVM");
		return 0;
	}
	if (started_with(proc, "-XX:+DisableAttachMechanism") == 1) {
		if (msg)
			pmaps__msg(msg, msgsz, "the JVM was started with -XX:+DisableAttachMechanism: "
			           "jcmd cannot attach (not asked: its signal would only make the JVM "
			           "print a thread dump)");
		return 0;
	}
	a.uid = (uint32_t)st.v[PMAPS_ST_EUID];
	a.gid = (uint32_t)st.v[PMAPS_ST_EGID];
	a.nspid = (st.present >> PMAPS_ST_NSPID) & 1 ? (int)st.v[PMAPS_ST_NSPID] : proc->pid;
	/*
	 * -Xrs: no SIGQUIT handler, the attach socket made at start instead.
	 * With that socket gone (a tmp cleaner), jcmd's SIGQUIT would kill the
	 * JVM. The socket is /tmp/.java_pidNSPID in the JVM's root.
	 */
	if (started_with(proc, "-Xrs") == 1) {
		snprintf(sock, sizeof(sock), "root/tmp/.java_pid%d", a.nspid);
		if (fstatat(proc->dirfd, sock, &s1, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISSOCK(s1.st_mode)) {
			if (msg)
				pmaps__msg(msg, msgsz, "the JVM runs with -Xrs and its attach socket is gone: "
				           "jcmd's signal would end it (not asked)");
			return 0;
		}
	}
	a.other_mntns = fstatat(proc->dirfd, "ns/mnt", &s1, 0) == 0 &&
	                fstatat(proc->rootfd, "self/ns/mnt", &s2, 0) == 0 &&
	                (s1.st_ino != s2.st_ino || s1.st_dev != s2.st_dev);
	pmaps__copy_out(out, size, &a, sizeof(a));
	out->size = size;
	return 1;
}
