/* SPDX-License-Identifier: MIT */
/*
 * books_jvm.c - the JVM's own books: what HotSpot says of its heap and of
 * its native memory, asked through jcmd (the JDK's diagnostic command tool)
 * as the JVM's own user, and parsed.
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
 * out of range, the output past JVM_OUT_CAP an error, kept raw.
 *
 * jcmd attaches by sending the process SIGQUIT when it has no attach
 * socket yet: a JVM starts its attach listener, anything else dies. So it
 * is only run against a live process that maps libjvm.so, never under a
 * --proc-root other than /proc, and never against a stopped one (which
 * could not answer, and would be left a .attach_pid file by the jcmd
 * killed at the timeout).
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "books.h"
#include "num.h"

/* The most a figure may be: sums of a few of them never wrap. */
#define JVM_MAX (UINT64_C(1) << 62)
/* The most of jcmd's standard output read: its summaries are a few KiB. */
#define JVM_OUT_CAP (1u << 20)
/* What of its standard error is kept for a why (the rest is read and dropped). */
#define JVM_ERR_CAP 1024u

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

/* Decimal digits into *V; 0, or -1 when none or past JVM_MAX. Advances on success. */
static int dec(const char **p, const char *e, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;

	if (s >= e || (unsigned)(*s - '0') > 9)
		return -1;
	while (s < e && (unsigned)(*s - '0') <= 9) {
		unsigned d = (unsigned)(*s - '0');
		if (x > (JVM_MAX - d) / 10)
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
		if (*v > JVM_MAX >> u[i].shift)
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
		snprintf(why, whysz, "%s (line %u)", what, line);
	return -EBADMSG;
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
	    g->addr[1] - g->addr[0] > JVM_MAX || g->addr[1] - g->addr[0] < g->total ||
	    g->used > g->total)
		return -1;
	*out = g->addr[1] - g->addr[0];
	return 0;
}

enum heap_kind { HK_NONE, HK_G1, HK_SERIAL, HK_PARALLEL, HK_Z, HK_SHEN };

int book_jvm_parse_heap(struct book_jvm *j, const char *text, size_t len, char *why, size_t whysz)
{
	const char *pos = text, *end = text ? text + len : text, *ls, *le;
	struct gen g1 = {0}, young = {0}, old = {0};
	uint64_t committed = 0, used = 0, mu = 0, mc = 0, mr = 0, x;
	enum heap_kind kind = HK_NONE;
	unsigned line = 0;
	int meta = 0, shen_next = 0, cut = 0;

	j->heap_ok = j->meta_ok = 0;
	j->gc[0] = '\0';
	j->heap_committed = j->heap_used = j->meta_used = j->meta_committed = j->meta_reserved = 0;
	if (why && whysz)
		why[0] = '\0';
	while (next_line(&pos, end, &ls, &le, &cut)) {
		const char *p = ls;
		struct gen *g = NULL;
		enum heap_kind k = HK_NONE;

		line++;
		if (cut && !blank(ls, le))
			return bad(why, whysz, "the output ends in a line cut short", line);
		if (line == 1 && pid_header(ls, le))
			continue;
		if (le > ls && le[-1] == '\r')
			le--;
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
	switch (kind) {
	case HK_NONE:
		return bad(why, whysz, "no Java heap this reader knows (G1, Serial, Parallel, Z, "
		           "Shenandoah) in GC.heap_info", line);
	case HK_G1:
		if (g1.used > g1.total)
			return bad(why, whysz, "G1's used passes its total", line);
		committed = g1.total, used = g1.used;
		snprintf(j->gc, sizeof(j->gc), "garbage-first heap");
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
		if (committed > JVM_MAX)
			return bad(why, whysz, "a heap past 2^62 bytes", line);
		snprintf(j->gc, sizeof(j->gc), "%s", kind == HK_SERIAL
		         ? "def new generation, tenured generation" : "PSYoungGen, ParOldGen");
		break;
	}
	case HK_Z:
		snprintf(j->gc, sizeof(j->gc), "ZHeap");
		break;
	case HK_SHEN:
		if (!committed)
			return bad(why, whysz, "the Shenandoah heap's sizes are missing", line);
		snprintf(j->gc, sizeof(j->gc), "Shenandoah Heap");
		break;
	}
	j->heap_committed = committed;
	j->heap_used = used;
	j->heap_ok = 1;
	if (meta) {
		j->meta_used = mu, j->meta_committed = mc, j->meta_reserved = mr;
		j->meta_ok = 1;
	}
	return 0;
}

/* ---- VM.native_memory summary ---- */

static const char NMT_HOWTO[] = "start the JVM with -XX:NativeMemoryTracking=summary";

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

int book_jvm_parse_nmt(struct book_jvm *j, const char *text, size_t len, char *why, size_t whysz)
{
	const char *pos = text, *end = text ? text + len : text, *ls, *le;
	uint64_t tr = 0, tc = 0;
	unsigned line = 0, ncat = 0;
	int total = 0, header = 0, cut = 0;

	j->nmt = 0;
	j->nmt_why[0] = '\0';
	j->reserved = j->committed = 0;
	j->ncat = 0;
	if (why && whysz)
		why[0] = '\0';
	while (next_line(&pos, end, &ls, &le, &cut)) {
		const char *p = ls, *name, *name_end, *open;
		struct book_jvm_cat *c;

		line++;
		if (cut && !blank(ls, le))
			return bad(why, whysz, "the output ends in a line cut short", line);
		if (line == 1 && pid_header(ls, le))
			continue;
		if (le > ls && le[-1] == '\r')
			le--;
		skip_sp(&p, le);
		if (!header && !total && ncat == 0) {
			if (lit(&p, le, "Native memory tracking is not enabled") && blank(p, le)) {
				snprintf(j->nmt_why, sizeof(j->nmt_why),
				         "Native Memory Tracking is off: %s", NMT_HOWTO);
				return 0;
			}
			if (lit(&p, le, "Native memory tracking has been shut")) {
				snprintf(j->nmt_why, sizeof(j->nmt_why),
				         "Native Memory Tracking was shut down (jcmd VM.native_memory "
				         "shutdown): restart the JVM to track again");
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
		if (ncat == BOOK_JVM_CATS)
			return bad(why, whysz, "more NMT categories than this reader keeps", line);
		c = &j->cat[ncat];
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
	if (!total) {
		/* the first line that says something, for the why */
		return bad(why, whysz, header ? "the NMT summary has no Total line"
		                              : "not an NMT summary (no \"Native Memory Tracking:\")",
		           line);
	}
	j->reserved = tr;
	j->committed = tc;
	j->ncat = ncat;
	j->nmt = 1;
	return 0;
}

/* ---- running jcmd ---- */

/* What one jcmd run gave. */
struct jrun {
	char *out;       /* standard output: JVM_OUT_CAP + 1 bytes, the caller's */
	size_t len;
	char err[JVM_ERR_CAP];
	size_t errlen;
	int status;      /* the exit status when EXITED; 128 + signal; -errno when it was lost */
	int exited;
	int timed_out, too_big;
	const struct books_opts *o; /* its quit: a watch that ends cuts the run short, as a timeout */
	int fail_errno;  /* the child's errno before exec (FAIL_STAGE says where), or 0 */
	int fail_stage;  /* 1 setgroups, 2 setgid, 3 setuid, 4 exec */
};

/* Whether the proc root is the live /proc. */
static int live_root(const char *root)
{
	return !root || strcmp(root, "/proc") == 0 || strcmp(root, "/proc/") == 0;
}

/* JCMD on PATH (absolute directories only: pmaps may run as root), into DST. */
static int find_jcmd(char *dst, size_t dstsz)
{
	const char *path = getenv("PATH"), *p, *colon;
	struct stat st;

	if (!path || !*path)
		path = "/usr/bin:/bin";
	for (p = path; *p; p = colon + 1) {
		size_t n;
		colon = strchr(p, ':');
		if (!colon)
			colon = p + strlen(p);
		n = (size_t)(colon - p);
		if (n > 0 && p[0] == '/' && n + sizeof("/jcmd") <= dstsz) {
			memcpy(dst, p, n);
			memcpy(dst + n, "/jcmd", sizeof("/jcmd"));
			if (stat(dst, &st) == 0 && S_ISREG(st.st_mode) && access(dst, X_OK) == 0)
				return 0;
		}
		if (!*colon)
			break;
	}
	return -1;
}

/*
 * The target's state letter and effective uid and gid from /proc/PID/status.
 * Returns 0, or a negative errno.
 */
static int target_status(int pid, char *state, uid_t *uid, gid_t *gid)
{
	char path[64], buf[4096];
	const char *pos = buf, *end, *ls, *le;
	ssize_t n;
	int fd, have = 0;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* State, Uid and Gid are in the first lines: one read of 4 KiB holds them */
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n < 0)
		return -errno;
	end = buf + n;
	while (next_line(&pos, end, &ls, &le, NULL)) {
		const char *p = ls;
		uint64_t v;
		if (lit(&p, le, "State:")) {
			skip_sp(&p, le);
			if (p < le)
				*state = *p, have |= 1;
		} else if (lit(&p, le, "Uid:") || lit(&p, le, "Gid:")) {
			int is_uid = ls[0] == 'U';
			/* real, then effective */
			skip_sp(&p, le);
			if (dec(&p, le, &v) < 0)
				return -EBADMSG;
			skip_sp(&p, le);
			if (dec(&p, le, &v) < 0 || v > UINT32_MAX)
				return -EBADMSG;
			if (is_uid)
				*uid = (uid_t)v, have |= 2;
			else
				*gid = (gid_t)v, have |= 4;
		}
	}
	return have == 7 ? 0 : -EBADMSG;
}

/*
 * Whether /proc/PID/FILE holds NEEDLE (N bytes, at most 64): 1, 0, or a
 * negative errno. Read through a fixed buffer, any length.
 */
static int proc_has(int pid, const char *file, const char *needle, size_t nlen)
{
	const size_t keep = nlen - 1;
	char path[64], buf[65536];
	size_t have = 0;
	ssize_t n;
	int fd, found = 0;

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (!found && (n = read(fd, buf + have, sizeof(buf) - have)) > 0) {
		have += (size_t)n;
		found = memmem(buf, have, needle, nlen) != NULL;
		/* the tail, which may hold the start of the needle, for the next read */
		if (have > keep) {
			memmove(buf, buf + have - keep, keep);
			have = keep;
		}
	}
	if (n < 0 && !found) {
		int e = errno;
		close(fd);
		return -e;
	}
	close(fd);
	return found;
}

/* Whether the process maps a file named libjvm.so (HotSpot's): 1, 0, or a negative errno. */
static int maps_libjvm(int pid)
{
	static const char needle[] = "/libjvm.so\n", deleted[] = "/libjvm.so (deleted)\n";
	int e = proc_has(pid, "maps", needle, sizeof(needle) - 1);

	/* A JDK upgraded under a running JVM: its libjvm.so unlinked, still HotSpot. */
	return e == 0 ? proc_has(pid, "maps", deleted, sizeof(deleted) - 1) : e;
}

/*
 * Whether jcmd's signal would end the JVM: one started with -Xrs (on its
 * command line or in its environment) installs no SIGQUIT handler and opens
 * its attach socket at start instead; with that socket gone (a tmp cleaner,
 * a wiped /tmp) jcmd would send SIGQUIT, whose default action kills it.
 * 1 when -Xrs is there and the socket (/tmp/.java_pidNSPID in the JVM's
 * root) is not, else 0.
 */
static int xrs_without_socket(int pid)
{
	static const char xrs[] = "-Xrs";
	char path[128], status[64], buf[4096];
	const char *ns;
	long nspid = pid;
	struct stat st;
	ssize_t n;
	int fd;

	if (proc_has(pid, "cmdline", xrs, sizeof(xrs) - 1) != 1 &&
	    proc_has(pid, "environ", xrs, sizeof(xrs) - 1) != 1)
		return 0;
	/* The pid the JVM knows itself by: the last of NSpid (its own namespace's). */
	snprintf(status, sizeof(status), "/proc/%d/status", pid);
	fd = open(status, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n > 0) {
			buf[n] = '\0';
			ns = strstr(buf, "\nNSpid:");
			if (ns) {
				const char *e = strchr(ns + 1, '\n');
				const char *last = e ? e : ns + strlen(ns);
				while (last > ns && (last[-1] >= '0' && last[-1] <= '9'))
					last--;
				nspid = strtol(last, NULL, 10);
			}
		}
	}
	snprintf(path, sizeof(path), "/proc/%d/root/tmp/.java_pid%ld", pid, nspid);
	return !(lstat(path, &st) == 0 && S_ISSOCK(st.st_mode));
}

/*
 * Whether the JVM was started with -XX:+DisableAttachMechanism, on its
 * command line or in its environment (JAVA_TOOL_OPTIONS, JDK_JAVA_OPTIONS,
 * _JAVA_OPTIONS): jcmd would not attach, and its SIGQUIT would make the JVM
 * print a thread dump on its own standard output. An option file (@argfile)
 * is not looked into. 1 or 0 (unreadable: 0, jcmd then says).
 */
static int attach_disabled(int pid)
{
	static const char needle[] = "-XX:+DisableAttachMechanism";

	return proc_has(pid, "cmdline", needle, sizeof(needle) - 1) == 1 ||
	       proc_has(pid, "environ", needle, sizeof(needle) - 1) == 1;
}

/* The child: jcmd ARGV as UID/GID (DROP), standard streams on the pipes, its errors on REP. */
static void jcmd_child(char *const argv[], int drop, uid_t uid, gid_t gid, int out, int err,
                       int rep)
{
	static char *const envp[] = {"PATH=/usr/bin:/bin", "LC_ALL=C", NULL};
	struct sigaction sa;
	sigset_t none;
	int fd, e[2];

	setpgid(0, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (int s = 1; s < 32; s++)
		if (s != SIGKILL && s != SIGSTOP)
			sigaction(s, &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	fd = open("/dev/null", O_RDONLY);
	if (fd < 0 || dup2(fd, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
		goto fail_exec;
	if (chdir("/") < 0)
		goto fail_exec;
	if (drop) {
		if (setgroups(0, NULL) < 0) {
			e[0] = 1;
			goto fail;
		}
		if (setgid(gid) < 0) {
			e[0] = 2;
			goto fail;
		}
		if (setuid(uid) < 0) {
			e[0] = 3;
			goto fail;
		}
	}
	/* every other descriptor pmaps holds stays out of jcmd (REP closes at exec) */
	if ((rep > 3 && close_range(3, (unsigned)rep - 1, 0) < 0) ||
	    close_range((unsigned)rep + 1, ~0u, 0) < 0)
		for (int i = 3; i < 4096; i++)
			if (i != rep)
				close(i);
	execve(argv[0], argv, envp);
fail_exec:
	e[0] = 4;
fail:
	e[1] = errno;
	if (write(rep, e, sizeof(e)) < 0) {
		/* nothing more to say */
	}
	_exit(127);
}

/* Reads what is ready on FD into DST (CAP, *LEN so far; past it, read and dropped). 0 at EOF. */
static int drain(int fd, char *dst, size_t cap, size_t *len)
{
	char scratch[4096];
	ssize_t n;

	if (*len < cap)
		n = read(fd, dst + *len, cap - *len);
	else
		n = read(fd, scratch, sizeof(scratch));
	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? 1 : -errno;
	if (n == 0)
		return 0;
	if (*len < cap)
		*len += (size_t)n;
	return 1;
}

static void kill_wait(pid_t pid)
{
	int st;

	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
}

/*
 * Runs ARGV (jcmd) as UID/GID when DROP, bounded by TIMEOUT_MS and by
 * JVM_OUT_CAP bytes of output, into R. Returns 0 when it ran to its end
 * (R says how), or a negative errno when it could not be started.
 */
static int run_jcmd_reaped(char *const argv[], int drop, uid_t uid, gid_t gid,
                           unsigned timeout_ms, struct jrun *r)
{
	int out[2], err[2], rep[2], e[2], open_out = 1, open_err = 1, st;
	uint64_t deadline = now_ns() + (uint64_t)timeout_ms * 1000000u;
	ssize_t n;
	pid_t pid;

	r->len = r->errlen = 0;
	r->status = r->exited = r->timed_out = r->too_big = r->fail_errno = r->fail_stage = 0;
	if (pipe2(out, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(err, O_CLOEXEC) < 0) {
		int x = errno;
		close(out[0]), close(out[1]);
		return -x;
	}
	if (pipe2(rep, O_CLOEXEC) < 0) {
		int x = errno;
		close(out[0]), close(out[1]), close(err[0]), close(err[1]);
		return -x;
	}
	pid = fork();
	if (pid == 0) {
		close(out[0]), close(err[0]), close(rep[0]);
		jcmd_child(argv, drop, uid, gid, out[1], err[1], rep[1]);
	}
	close(out[1]), close(err[1]), close(rep[1]);
	if (pid < 0) {
		int x = errno;
		close(out[0]), close(err[0]), close(rep[0]);
		return -x;
	}
	/* the child's word before exec: nothing (EOF) when exec worked */
	while ((n = read(rep[0], e, sizeof(e))) < 0 && errno == EINTR)
		;
	close(rep[0]);
	if (n == (ssize_t)sizeof(e)) {
		r->fail_stage = e[0];
		r->fail_errno = e[1];
		close(out[0]), close(err[0]);
		kill_wait(pid);
		return 0;
	}
	while (open_out || open_err) {
		struct pollfd pf[2];
		uint64_t now = now_ns();
		int np = 0, k, ms;

		if (now >= deadline || (r->o && books_quit(r->o))) {
			r->timed_out = 1;
			break;
		}
		ms = (int)((deadline - now + 999999u) / 1000000u);
		if (r->o && r->o->quit && ms > 100)
			ms = 100; /* a look at quit ten times a second */
		if (open_out)
			pf[np++] = (struct pollfd){.fd = out[0], .events = POLLIN};
		if (open_err)
			pf[np++] = (struct pollfd){.fd = err[0], .events = POLLIN};
		k = poll(pf, (nfds_t)np, ms);
		if (k < 0 && errno != EINTR)
			break;
		for (int i = 0; k > 0 && i < np; i++) {
			int d;
			if (!pf[i].revents)
				continue;
			if (pf[i].fd == out[0]) {
				d = drain(out[0], r->out, JVM_OUT_CAP + 1, &r->len);
				if (r->len > JVM_OUT_CAP) {
					r->too_big = 1;
					d = 0, open_err = 0;
				}
				if (d <= 0)
					open_out = 0;
			} else {
				d = drain(err[0], r->err, sizeof(r->err), &r->errlen);
				if (d <= 0)
					open_err = 0;
			}
		}
		if (r->too_big)
			break;
	}
	close(out[0]), close(err[0]);
	if (r->timed_out || r->too_big || open_out || open_err) {
		kill_wait(pid);
		return 0;
	}
	/* both streams ended: the end of jcmd itself, within what is left of the time */
	for (;;) {
		pid_t w = waitpid(pid, &st, WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			r->status = -errno; /* ECHILD: reaped by someone else, its status lost */
			kill_wait(pid);
			return 0;
		}
		if (now_ns() >= deadline) {
			r->timed_out = 1;
			kill_wait(pid);
			return 0;
		}
		nanosleep(&(struct timespec){0, 2000000}, NULL);
	}
	if (WIFEXITED(st)) {
		r->exited = 1;
		r->status = WEXITSTATUS(st);
	} else {
		r->status = WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 255;
	}
	return 0;
}

/*
 * run_jcmd_reaped() with SIGCHLD not ignored: a pmaps started with SIGCHLD
 * ignored (SIG_IGN or SA_NOCLDWAIT, which exec keeps) would have the kernel
 * reap jcmd and lose its exit status. Set to the default for the run, and
 * back: no handler is replaced, an ignored signal has none.
 */
/*
 * jcmd makes .attach_pidPID in the JVM's working directory (or /tmp) to ask
 * it to attach, and removes it once attached; killed before that it cannot.
 * So after a jcmd pmaps killed, the file it left goes too: only an empty
 * regular file of the user jcmd ran as, never through a symlink, so that
 * nothing of pmaps's stays behind in the target's directory.
 */
static void attach_file_gone(int pid, uid_t uid)
{
	char name[40], cwd[64];
	const char *dirs[2];

	snprintf(name, sizeof(name), ".attach_pid%d", pid);
	snprintf(cwd, sizeof(cwd), "/proc/%d/cwd", pid);
	dirs[0] = cwd;
	dirs[1] = "/tmp";
	for (int i = 0; i < 2; i++) {
		struct stat st;
		int d = open(dirs[i], O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (d < 0)
			continue;
		if (fstatat(d, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
		    st.st_size == 0 && st.st_uid == uid)
			unlinkat(d, name, 0);
		close(d);
	}
}

static int run_jcmd(char *const argv[], int pid, int drop, uid_t uid, gid_t gid,
                    unsigned timeout_ms, struct jrun *r)
{
	struct sigaction was, dfl;
	int ignored, rc;

	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	ignored = sigaction(SIGCHLD, NULL, &was) == 0 &&
	          (was.sa_handler == SIG_IGN || (was.sa_flags & SA_NOCLDWAIT));
	if (ignored)
		sigaction(SIGCHLD, &dfl, NULL);
	rc = run_jcmd_reaped(argv, drop, uid, gid, timeout_ms, r);
	if (ignored)
		sigaction(SIGCHLD, &was, NULL);
	if (rc == 0 && (r->timed_out || r->too_big))
		attach_file_gone(pid, drop ? uid : geteuid());
	return rc;
}

/*
 * The words of [S, S+N) that say what failed: those after "Exception: " on
 * the line that names jcmd's exception (*ATTACH 1 when the exception is the
 * attach mechanism's), or the first line.
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

/* Whether PID lives in another mount namespace than pmaps. */
static int other_mntns(int pid)
{
	char path[64];
	struct stat a, b;

	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", pid);
	return stat(path, &a) == 0 && stat("/proc/self/ns/mnt", &b) == 0 &&
	       (a.st_ino != b.st_ino || a.st_dev != b.st_dev);
}

/*
 * Why the run R of "jcmd PID CMD" gave nothing to parse, into WHY; 0 when
 * it ran and exited 0 (its output is to be parsed), -1 when not.
 */
static int run_why(const struct jrun *r, const char *jcmd, const char *cmd, int pid,
                   unsigned timeout_ms, char *why, size_t whysz)
{
	static const char *const stage[] = {"", "setgroups", "setgid", "setuid", "exec"};
	const char *w;
	size_t wn;
	int attach = 0;
	char words[200];

	if (r->fail_stage) {
		snprintf(why, whysz, "could not run %s (%s: %s)", jcmd,
		         stage[r->fail_stage >= 1 && r->fail_stage <= 4 ? r->fail_stage : 4],
		         strerror(r->fail_errno));
		return -1;
	}
	if (r->timed_out) {
		snprintf(why, whysz, "jcmd %d %s did not answer within %u ms (--books-timeout)", pid,
		         cmd, timeout_ms);
		return -1;
	}
	if (r->too_big) {
		snprintf(why, whysz, "jcmd %d %s wrote more than %u bytes: not read", pid, cmd,
		         JVM_OUT_CAP);
		return -1;
	}
	if (r->exited && r->status == 0)
		return 0;
	if (r->status < 0) {
		snprintf(why, whysz, "jcmd %d %s: its exit status was lost (%s)", pid, cmd,
		         strerror(-r->status));
		return -1;
	}
	failure_words(r->err, r->errlen, &w, &wn, &attach);
	if (!w)
		failure_words(r->out, r->len, &w, &wn, &attach);
	if (!w) {
		snprintf(why, whysz, "jcmd %d %s failed (status %d) and said nothing", pid, cmd,
		         r->status);
	} else {
		copy_cut(words, sizeof(words), w, wn);
		if (attach)
			snprintf(why, whysz, "jcmd could not attach to the JVM: %s", words);
		else
			snprintf(why, whysz, "jcmd %d %s failed (status %d): %s", pid, cmd, r->status,
			         words);
	}
	if (other_mntns(pid)) {
		size_t l = strlen(why);
		snprintf(why + l, whysz - l, " (it runs in another mount namespace, a container: "
		         "not reached)");
	}
	return -1;
}

void book_jvm_read(struct book_jvm *j, const struct books_opts *o, int pid)
{
	char jcmd[4096], pidstr[16], why[200];
	char *heap_argv[] = {jcmd, "-J-XX:-UsePerfData", "-J-XX:+UseSerialGC",
	                     "-J-XX:TieredStopAtLevel=1", pidstr, "GC.heap_info", NULL};
	char *nmt_argv[] = {jcmd, "-J-XX:-UsePerfData", "-J-XX:+UseSerialGC",
	                    "-J-XX:TieredStopAtLevel=1", pidstr, "VM.native_memory", "summary",
	                    "scale=b", NULL};
	unsigned timeout = o && o->timeout_ms ? o->timeout_ms : BOOKS_TIMEOUT_MS;
	uint64_t t0 = now_ns();
	struct jrun r;
	uid_t uid = 0;
	gid_t gid = 0;
	char state = 0;
	int drop = 0, e, attach_failed = 0;

	memset(j, 0, sizeof(*j));
	memset(&r, 0, sizeof(r));
	r.o = o;
	j->h.asked = 1;
	clock_gettime(CLOCK_REALTIME, &j->h.at);
	snprintf(pidstr, sizeof(pidstr), "%d", pid);
	snprintf(j->h.source, sizeof(j->h.source),
	         "jcmd %d VM.native_memory summary scale=b; jcmd %d GC.heap_info", pid, pid);
	if (o && !live_root(o->root)) {
		snprintf(j->h.why, sizeof(j->h.why), "the JVM's books are asked of a live process: "
		         "not under --proc-root %s", o->root);
		goto out;
	}
	if (pid <= 0) {
		snprintf(j->h.why, sizeof(j->h.why), "no process to ask");
		goto out;
	}
	if (find_jcmd(jcmd, sizeof(jcmd)) < 0) {
		snprintf(j->h.why, sizeof(j->h.why),
		         "jcmd not found on PATH: install a JDK (Debian openjdk-17-jdk-headless)");
		goto out;
	}
	e = target_status(pid, &state, &uid, &gid);
	if (e < 0) {
		snprintf(j->h.why, sizeof(j->h.why), "could not read /proc/%d/status: %s", pid,
		         e == -ENOENT || e == -ESRCH ? "the process is gone" : strerror(-e));
		goto out;
	}
	if (state == 'T' || state == 't') {
		snprintf(j->h.why, sizeof(j->h.why), "the JVM is stopped (state %c): it cannot "
		         "answer jcmd until it runs again", state);
		goto out;
	}
	e = maps_libjvm(pid);
	if (e <= 0) {
		if (e < 0)
			snprintf(j->h.why, sizeof(j->h.why), "could not read /proc/%d/maps: %s", pid,
			         strerror(-e));
		else
			snprintf(j->h.why, sizeof(j->h.why), "the process maps no libjvm.so: jcmd is "
			         "only run against a HotSpot JVM");
		goto out;
	}
	if (attach_disabled(pid)) {
		snprintf(j->h.why, sizeof(j->h.why), "the JVM was started with "
		         "-XX:+DisableAttachMechanism: jcmd cannot attach (not asked: its signal "
		         "would only make the JVM print a thread dump)");
		goto out;
	}
	if (xrs_without_socket(pid)) {
		snprintf(j->h.why, sizeof(j->h.why), "the JVM runs with -Xrs and its attach socket "
		         "is gone: jcmd's signal would end it (not asked)");
		goto out;
	}
	if (geteuid() == 0)
		drop = uid != 0;
	else if (uid != geteuid()) {
		snprintf(j->h.why, sizeof(j->h.why), "the JVM runs as uid %u: jcmd attaches only as "
		         "the JVM's user or root", (unsigned)uid);
		goto out;
	}
	r.out = malloc(JVM_OUT_CAP + 1);
	if (!r.out) {
		snprintf(j->h.why, sizeof(j->h.why), "out of memory");
		goto out;
	}

	/* GC.heap_info first: it answers with NMT off too */
	e = run_jcmd(heap_argv, pid, drop, uid, gid, timeout, &r);
	if (e < 0) {
		snprintf(j->heap_why, sizeof(j->heap_why), "could not start jcmd: %s", strerror(-e));
		attach_failed = 1;
	} else if (run_why(&r, jcmd, "GC.heap_info", pid, timeout, j->heap_why,
	                   sizeof(j->heap_why)) < 0) {
		attach_failed = 1;
	} else if (book_jvm_parse_heap(j, r.out, r.len, why, sizeof(why)) < 0) {
		snprintf(j->heap_why, sizeof(j->heap_why), "GC.heap_info: %s", why);
	}

	/* an attach that failed, or a JVM that did not answer, fails the second as well */
	if (attach_failed) {
		snprintf(j->nmt_why, sizeof(j->nmt_why), "%s", j->heap_why);
	} else {
		e = run_jcmd(nmt_argv, pid, drop, uid, gid, timeout, &r);
		if (e < 0)
			snprintf(j->nmt_why, sizeof(j->nmt_why), "could not start jcmd: %s",
			         strerror(-e));
		else if (run_why(&r, jcmd, "VM.native_memory summary", pid, timeout, why,
		                 sizeof(why)) < 0)
			snprintf(j->nmt_why, sizeof(j->nmt_why), "%s", why);
		else if (book_jvm_parse_nmt(j, r.out, r.len, why, sizeof(why)) < 0)
			snprintf(j->nmt_why, sizeof(j->nmt_why), "VM.native_memory summary: %s", why);
	}
	free(r.out);
	j->h.ok = j->heap_ok || j->nmt;
	if (!j->h.ok)
		snprintf(j->h.why, sizeof(j->h.why), "%s", j->heap_why);
out:
	j->h.took_ns = now_ns() - t0;
}
