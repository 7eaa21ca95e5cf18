/* SPDX-License-Identifier: MIT */
/*
 * books_go.c - the Go runtime's own books: the runtime.MemStats block a Go
 * program serves at the end of /debug/pprof/heap?debug=1 (net/http/pprof),
 * parsed; and where to ask for it, the process's loopback listeners.
 *
 * The page (Go's runtime/pprof writeHeapInternal; checked against Go 1.19's
 * source and a capture of its output, tests/data/books/go/): the heap
 * profile's records, lines of any length and number (they grow with the
 * heap's call sites), then a blank line and
 *
 *   # runtime.MemStats
 *   # Alloc = 40725336
 *   # TotalAlloc = 147966256
 *   # Sys = 139444504
 *   # Lookups = 0
 *   # Mallocs = 1225181
 *   # Frees = 799562
 *   # HeapAlloc = 40725336
 *   # HeapSys = 125534208
 *   # HeapIdle = 84066304
 *   # HeapInuse = 41467904
 *   # HeapReleased = 83853312
 *   # HeapObjects = 425619
 *   # Stack = 294912 / 294912              StackInuse / StackSys
 *   # MSpan = 303552 / 374256              MSpanInuse / MSpanSys
 *   # MCache = 2400 / 15600                MCacheInuse / MCacheSys
 *   # BuckHashSys = 1450763
 *   # GCSys = 11056320
 *   # OtherSys = 718445
 *   # NextGC = 9223372036839074367         the heap goal (GOGC=off: near 2^63)
 *   # LastGC = 1796133889749342422         ns since the epoch, 0: none yet
 *   # PauseNs = [54090 14441 ...]          256 numbers: a long line
 *   # PauseEnd = [...]                     likewise
 *   # NumGC = 6
 *   # NumForcedGC = 2
 *   # GCCPUFraction = 0.0018752266138745892
 *   # DebugGC = false
 *   # MaxRSS = 133160960                   (getrusage; Linux and some others)
 *
 * All in bytes but HeapObjects and NumGC (counts) and LastGC (a time). The
 * runtime reads them (runtime.ReadMemStats, the world stopped) before it
 * writes the profile, so they are one consistent snapshot: HeapIdle +
 * HeapInuse = HeapSys, HeapReleased <= HeapIdle, HeapAlloc <= HeapInuse.
 * A page that breaks these is refused rather than joined into sums that
 * would wrap.
 *
 * The parser's decisions: the block is the one after the LAST line that is
 * exactly "# runtime.MemStats", and ends at the first line that does not
 * start with "# " (or the end); within it, unknown keys are skipped; a key
 * it knows given twice is an error (a page that says two things says
 * nothing); each value is decimal digits only, at most 2^62 (NextGC, never
 * summed, at most 2^63 - 1: its "no goal" value when the GC is off), and
 * its line must end with a newline (one cut by the end may have lost
 * digits).
 *
 * The listeners: the "socket:[INODE]" links of /proc/PID/fd matched against
 * the LISTEN sockets of /proc/PID/net/tcp and tcp6 (which list the whole
 * network namespace, hence the match), those on loopback as they are, those
 * on any address (0.0.0.0, ::) through 127.0.0.1 or ::1. Only when the
 * process is in the reader's network namespace: in another, our 127.0.0.1
 * is not its.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "parse.h"
#include "readers.h"
#include "testhooks.h"

int pmaps__listeners_in_trees;

static const char memstats_header[] = "# runtime.MemStats";
/* The heap profile page with its figures as text, where a listener's URL points. */
static const char pprof_heap[] = "/debug/pprof/heap?debug=1";

/* ---- the parser ---- */

enum go_key {
	K_HEAP_ALLOC, K_HEAP_SYS, K_HEAP_IDLE, K_HEAP_INUSE, K_HEAP_RELEASED, K_HEAP_OBJECTS,
	K_STACK, K_MSPAN, K_MCACHE, K_BUCK_HASH_SYS, K_GC_SYS, K_OTHER_SYS, K_SYS,
	K_TOTAL_ALLOC, K_NEXT_GC, K_LAST_GC, K_NUM_GC, K_COUNT
};

static const struct {
	const char *name;
	/* "inuse / sys": the two figures it gives, else one (OUT[1] -1) */
	int out[2];
} go_keys[K_COUNT] = {
	[K_HEAP_ALLOC] = {"HeapAlloc", {PMAPS_BV_GO_HEAP_ALLOC, -1}},
	[K_HEAP_SYS] = {"HeapSys", {PMAPS_BV_GO_HEAP_SYS, -1}},
	[K_HEAP_IDLE] = {"HeapIdle", {PMAPS_BV_GO_HEAP_IDLE, -1}},
	[K_HEAP_INUSE] = {"HeapInuse", {PMAPS_BV_GO_HEAP_INUSE, -1}},
	[K_HEAP_RELEASED] = {"HeapReleased", {PMAPS_BV_GO_HEAP_RELEASED, -1}},
	[K_HEAP_OBJECTS] = {"HeapObjects", {PMAPS_BV_GO_HEAP_OBJECTS, -1}},
	[K_STACK] = {"Stack", {PMAPS_BV_GO_STACK_INUSE, PMAPS_BV_GO_STACK_SYS}},
	[K_MSPAN] = {"MSpan", {PMAPS_BV_GO_MSPAN_INUSE, PMAPS_BV_GO_MSPAN_SYS}},
	[K_MCACHE] = {"MCache", {PMAPS_BV_GO_MCACHE_INUSE, PMAPS_BV_GO_MCACHE_SYS}},
	[K_BUCK_HASH_SYS] = {"BuckHashSys", {PMAPS_BV_GO_BUCK_HASH_SYS, -1}},
	[K_GC_SYS] = {"GCSys", {PMAPS_BV_GO_GC_SYS, -1}},
	[K_OTHER_SYS] = {"OtherSys", {PMAPS_BV_GO_OTHER_SYS, -1}},
	[K_SYS] = {"Sys", {PMAPS_BV_GO_SYS, -1}},
	[K_TOTAL_ALLOC] = {"TotalAlloc", {PMAPS_BV_GO_TOTAL_ALLOC, -1}},
	[K_NEXT_GC] = {"NextGC", {PMAPS_BV_GO_NEXT_GC, -1}},
	[K_LAST_GC] = {"LastGC", {PMAPS_BV_GO_LAST_GC, -1}},
	[K_NUM_GC] = {"NumGC", {PMAPS_BV_GO_NUM_GC, -1}},
};

/* The key the N bytes at S name, or -1. */
static int go_key_of(const char *s, size_t n)
{
	for (int k = 0; k < K_COUNT; k++)
		if (strlen(go_keys[k].name) == n && memcmp(go_keys[k].name, s, n) == 0)
			return k;
	return -1;
}

/*
 * Decimal digits at *P (before END), at most MAX: advances *P past them and
 * returns 0, or -1 (no digit, or past MAX) leaving *P.
 */
static int go_decimal(const char **p, const char *end, uint64_t max, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;

	if (s == end || *s < '0' || *s > '9')
		return -1;
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		unsigned d = (unsigned)(*s - '0');
		if (v > (max - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*p = s;
	*out = v;
	return 0;
}

/* The line that starts at S (END the text's end): its length, without the newline. */
static size_t go_line_len(const char *s, const char *end)
{
	const char *nl = memchr(s, '\n', (size_t)(end - s));
	return (size_t)((nl ? nl : end) - s);
}

static int bad(char *msg, size_t msgsz, unsigned line, size_t off, const char *what)
{
	if (msg)
		pmaps__msg(msg, msgsz, "line %u (byte %zu) of the MemStats block: %s", line, off, what);
	return -EBADMSG;
}

int pmaps__books_parse_go(struct pmaps_books *b, const char *text, size_t len, char *msg,
                          size_t msgsz)
{
	const char *end = text + len, *block = NULL, *s;
	uint64_t v[K_COUNT][2];
	unsigned seen = 0, line;
	char what[96];

	/* The last line that is exactly the header. */
	for (s = text; s < end;) {
		size_t n = go_line_len(s, end);
		if (n == sizeof(memstats_header) - 1 && memcmp(s, memstats_header, n) == 0)
			block = s;
		s += n + (s + n < end);
	}
	if (!block) {
		if (msg)
			pmaps__msg(msg, msgsz, "not a Go MemStats dump (no '%s' block)", memstats_header);
		return -EBADMSG;
	}
	memset(v, 0, sizeof(v));
	s = block + sizeof(memstats_header) - 1;
	s += s < end; /* its newline */
	for (line = 2; s < end; line++) {
		size_t n = go_line_len(s, end);
		const char *p = s, *le = s + n, *k;
		size_t off = (size_t)(s - block);
		int key;

		if (n < 2 || s[0] != '#' || s[1] != ' ')
			break; /* the block's end */
		p += 2;
		for (k = p; p < le && *p != ' '; p++)
			;
		key = go_key_of(k, (size_t)(p - k));
		if (key >= 0) {
			uint64_t max = key == K_NEXT_GC ? INT64_MAX : PMAPS__BOOK_FIGURE_MAX;
			const char *name = go_keys[key].name;

			if (le == end) {
				/* Go ends every line: one cut by the end may have lost digits. */
				snprintf(what, sizeof(what), "%s: cut short (no newline)", name);
				return bad(msg, msgsz, line, off, what);
			}
			if (seen & (1u << key)) {
				snprintf(what, sizeof(what), "%s given twice", name);
				return bad(msg, msgsz, line, off, what);
			}
			if ((size_t)(le - p) < 3 || memcmp(p, " = ", 3) != 0) {
				snprintf(what, sizeof(what), "%s: no ' = ' after it", name);
				return bad(msg, msgsz, line, off, what);
			}
			p += 3;
			if (go_decimal(&p, le, max, &v[key][0]) < 0) {
				snprintf(what, sizeof(what), "%s: not a decimal number up to %s", name,
				         key == K_NEXT_GC ? "2^63 - 1" : "2^62 (out of range)");
				return bad(msg, msgsz, line, off, what);
			}
			if (go_keys[key].out[1] >= 0) {
				if ((size_t)(le - p) < 3 || memcmp(p, " / ", 3) != 0) {
					snprintf(what, sizeof(what), "%s: not 'INUSE / SYS'", name);
					return bad(msg, msgsz, line, off, what);
				}
				p += 3;
				if (go_decimal(&p, le, PMAPS__BOOK_FIGURE_MAX, &v[key][1]) < 0) {
					snprintf(what, sizeof(what),
					         "%s: not a decimal number up to 2^62 (out of range)", name);
					return bad(msg, msgsz, line, off, what);
				}
			}
			if (p != le) {
				snprintf(what, sizeof(what), "%s: more after the number", name);
				return bad(msg, msgsz, line, off, what);
			}
			seen |= 1u << key;
		}
		s = le + (le < end);
	}
	for (int k = 0; k < K_COUNT; k++) {
		if (!(seen & (1u << k))) {
			if (msg)
				pmaps__msg(msg, msgsz, "not a Go MemStats dump: no %s", go_keys[k].name);
			return -EBADMSG;
		}
	}
	/* One snapshot's invariants: the join subtracts these. */
	if (v[K_HEAP_IDLE][0] + v[K_HEAP_INUSE][0] != v[K_HEAP_SYS][0]) {
		if (msg)
			pmaps__msg(msg, msgsz,
			           "inconsistent MemStats: HeapIdle %llu + HeapInuse %llu != HeapSys %llu",
			           (unsigned long long)v[K_HEAP_IDLE][0],
			           (unsigned long long)v[K_HEAP_INUSE][0],
			           (unsigned long long)v[K_HEAP_SYS][0]);
		return -EBADMSG;
	}
	if (v[K_HEAP_RELEASED][0] > v[K_HEAP_IDLE][0] || v[K_HEAP_ALLOC][0] > v[K_HEAP_INUSE][0]) {
		if (msg)
			pmaps__msg(msg, msgsz,
			           "inconsistent MemStats: HeapReleased %llu > HeapIdle %llu or HeapAlloc "
			           "%llu > HeapInuse %llu",
			           (unsigned long long)v[K_HEAP_RELEASED][0],
			           (unsigned long long)v[K_HEAP_IDLE][0],
			           (unsigned long long)v[K_HEAP_ALLOC][0],
			           (unsigned long long)v[K_HEAP_INUSE][0]);
		return -EBADMSG;
	}
	for (int k = K_STACK; k <= K_MCACHE; k++) {
		if (v[k][0] > v[k][1]) {
			if (msg)
				pmaps__msg(msg, msgsz, "inconsistent MemStats: %s in use %llu > its Sys %llu",
				           go_keys[k].name, (unsigned long long)v[k][0],
				           (unsigned long long)v[k][1]);
			return -EBADMSG;
		}
	}
	for (int k = 0; k < K_COUNT; k++) {
		/* LastGC 0 is "no GC yet": no time to give. */
		if (k == K_LAST_GC && v[k][0] == 0)
			continue;
		pmaps__books_put(b, (enum pmaps_book_value)go_keys[k].out[0], v[k][0]);
		if (go_keys[k].out[1] >= 0)
			pmaps__books_put(b, (enum pmaps_book_value)go_keys[k].out[1], v[k][1]);
	}
	return 0;
}

/* ---- the process's listeners ---- */

/* Loopback listeners of net/tcp and tcp6 (the whole network namespace's) considered. */
#define LISTEN_MAX 1024u

struct listen {
	uint64_t inode;
	unsigned port;
	int ipv6;
	unsigned char a4[4]; /* the IPv4 loopback address to reach it through */
};

/*
 * A listener at the kernel's hex address A (8 hex digits for tcp, 32 for
 * tcp6: 32-bit words as the host stores them) into L: on loopback, or on
 * any address (reached through loopback). 1, or 0 when it is neither.
 */
static int listen_addr(struct listen *l, const char *a, size_t alen)
{
	unsigned char b[16];

	if (alen != 8 && alen != 32)
		return 0;
	for (size_t w = 0; w < alen / 8; w++) {
		uint32_t x = 0;
		for (size_t i = 0; i < 8; i++) {
			int d = pmaps__hexval((unsigned char)a[w * 8 + i]);
			if (d < 0)
				return 0;
			x = x << 4 | (uint32_t)d;
		}
		memcpy(b + w * 4, &x, 4); /* the kernel printed the word in host order */
	}
	l->ipv6 = 0;
	if (alen == 32) {
		static const unsigned char any[16], mapped[12] = {[10] = 0xff, [11] = 0xff};
		struct in6_addr a6;
		memcpy(&a6, b, 16);
		if (memcmp(b, any, 16) == 0 || IN6_IS_ADDR_LOOPBACK(&a6)) {
			l->ipv6 = 1;
			return 1;
		}
		if (memcmp(b, mapped, 12) != 0)
			return 0;
		memmove(b, b + 12, 4); /* ::ffff:a.b.c.d: an IPv4 address */
	}
	if (b[0] == 0 && b[1] == 0 && b[2] == 0 && b[3] == 0)
		b[0] = 127, b[3] = 1; /* 0.0.0.0: through 127.0.0.1 */
	if (b[0] != 127)
		return 0;
	memcpy(l->a4, b, 4);
	return 1;
}

/* A space-separated field at *P (before END): its start and length; advances *P. */
static size_t field(const char **p, const char *end, const char **f)
{
	const char *s = *p;

	while (s < end && *s == ' ')
		s++;
	*f = s;
	while (s < end && *s != ' ')
		s++;
	*p = s;
	return (size_t)(s - *f);
}

/*
 * One line of net/tcp or tcp6, "  0: 0100007F:8001 00000000:0000 0A tx:rx
 * tr:when retrnsmt uid timeout inode ...": 1 with L filled when it is a
 * listener on loopback (or any address), else 0.
 */
static unsigned listener_line(const char *s, const char *end, struct listen *l)
{
	const char *p = s, *f, *colon, *addr, *st;
	size_t fl, alen;
	unsigned port = 0;
	uint64_t ino;

	field(&p, end, &f);      /* sl */
	fl = field(&p, end, &f); /* local address */
	colon = memchr(f, ':', fl);
	if (!colon || fl - (size_t)(colon - f) != 5)
		return 0;
	for (size_t i = 1; i < 5; i++) {
		int d = pmaps__hexval((unsigned char)colon[i]);
		if (d < 0)
			return 0;
		port = port << 4 | (unsigned)d;
	}
	addr = f;
	alen = (size_t)(colon - f);
	field(&p, end, &f); /* remote address */
	if (field(&p, end, &st) != 2 || st[0] != '0' || st[1] != 'A')
		return 0; /* not LISTEN */
	for (int i = 0; i < 5; i++) /* tx:rx tr:when retrnsmt uid timeout */
		field(&p, end, &f);
	fl = field(&p, end, &f);
	p = f;
	if (fl == 0 || pmaps__parse_dec(&p, f + fl, &ino) <= 0 || p != f + fl || ino == 0)
		return 0;
	if (!listen_addr(l, addr, alen))
		return 0;
	l->inode = ino;
	l->port = port;
	return 1;
}

struct listen_ctx {
	struct listen *l;
	unsigned n, lines;
};

static int listen_line(void *ctx, const char *p, const char *nl)
{
	struct listen_ctx *c = ctx;

	/* The first line is the heading; a line longer than the buffer was skipped. */
	if (c->lines++ > 0 && c->n < LISTEN_MAX)
		c->n += listener_line(p, nl, &c->l[c->n]);
	return 0;
}

/* Whether PROC is in the reader's network namespace: 1, 0, or a negative errno. */
static int same_netns(const struct pmaps_proc *proc)
{
	struct stat mine, its;

	if (fstatat(proc->dirfd, "ns/net", &its, 0) < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	if (fstatat(proc->rootfd, "self/ns/net", &mine, 0) < 0)
		return -errno;
	return mine.st_ino == its.st_ino && mine.st_dev == its.st_dev;
}

int pmaps_books_go_listeners(struct pmaps_proc *proc, struct pmaps_listener *out, unsigned max,
                             char *msg, size_t msgsz)
{
	static const char *const nets[] = {"net/tcp", "net/tcp6"};
	char buf[8192], dbuf[4096];
	struct listen_ctx c = {NULL, 0, 0};
	struct pmaps__dir d;
	const char *name;
	unsigned found = 0;
	int err;

	if (msg && msgsz)
		msg[0] = '\0';
	if (!proc || (!out && max))
		return -EINVAL;
	/* Another proc tree (a host's, a capture): its loopback is not this one's. */
	if (!proc->live && !pmaps__listeners_in_trees) {
		if (msg)
			pmaps__msg(msg, msgsz, "the proc root is not this machine's /proc: its loopback "
			           "is not the process's");
		return -EXDEV;
	}
	err = proc->live ? same_netns(proc) : 1;
	if (err <= 0) {
		if (msg && err == 0)
			pmaps__msg(msg, msgsz, "the process is in another network namespace: its "
			           "loopback is not ours");
		else if (msg)
			pmaps__msg(msg, msgsz, "ns/net: %s%s", pmaps_strerror(err),
			           err == -EACCES || err == -EPERM ? " (run as the process's user or root)"
			                                           : "");
		return err == 0 ? -EXDEV : err;
	}
	c.l = pmaps__alloc(LISTEN_MAX * sizeof(*c.l));
	if (!c.l)
		return -ENOMEM;
	for (size_t i = 0; i < sizeof(nets) / sizeof(nets[0]); i++) {
		int fd = pmaps__open_file(proc, proc->dirfd, nets[i], NULL, 0);
		if (fd < 0)
			continue; /* tcp6 without IPv6 */
		c.lines = 0;
		pmaps__read_lines(fd, buf, sizeof(buf), listen_line, &c);
		close(fd);
	}
	if (c.n == 0) {
		pmaps__free(c.l);
		if (msg)
			pmaps__msg(msg, msgsz, "no listening socket on loopback");
		return 0;
	}
	err = pmaps__dir_open(&d, proc->dirfd, "fd", dbuf, sizeof(dbuf));
	if (err < 0) {
		pmaps__free(c.l);
		if (msg)
			pmaps__msg(msg, msgsz, "fd: %s%s", pmaps_strerror(err == -ENOENT ? -ESRCH : err),
			           err == -EACCES || err == -EPERM ? " (run as the process's user or root)"
			                                           : "");
		return err == -ENOENT ? -ESRCH : err;
	}
	while (found < max && (err = pmaps__dir_next(&d, &name)) > 0) {
		char link[64];
		const char *q, *qe;
		ssize_t n = readlinkat(d.fd, name, link, sizeof(link));
		uint64_t ino;

		if (n <= 9 || (size_t)n >= sizeof(link) || memcmp(link, "socket:[", 8) != 0 ||
		    link[n - 1] != ']')
			continue;
		q = link + 8;
		qe = link + n - 1;
		if (pmaps__parse_dec(&q, qe, &ino) <= 0 || q != qe)
			continue;
		for (unsigned i = 0; i < c.n && found < max; i++) {
			struct pmaps_listener *o = &out[found];
			int dup = 0;
			if (c.l[i].inode != ino)
				continue;
			memset(o, 0, sizeof(*o));
			o->port = c.l[i].port;
			o->ipv6 = c.l[i].ipv6;
			if (o->ipv6) {
				snprintf(o->host, sizeof(o->host), "[::1]");
				snprintf(o->url, sizeof(o->url), "http://[::1]:%u%s", o->port & 0xffffu,
				         pprof_heap);
			} else {
				const unsigned char *a = c.l[i].a4;
				snprintf(o->host, sizeof(o->host), "%u.%u.%u.%u", a[0], a[1], a[2], a[3]);
				snprintf(o->url, sizeof(o->url), "http://%u.%u.%u.%u:%u%s", a[0], a[1], a[2],
				         a[3], o->port & 0xffffu, pprof_heap);
			}
			for (unsigned j = 0; j < found; j++)
				dup |= strcmp(out[j].url, o->url) == 0;
			if (!dup)
				found++;
		}
	}
	pmaps__dir_close(&d);
	if (found == 0 && msg && c.n == LISTEN_MAX)
		pmaps__msg(msg, msgsz, "no listening socket on loopback among the first %u of its "
		           "network namespace", LISTEN_MAX);
	else if (found == 0 && msg)
		pmaps__msg(msg, msgsz, "no listening socket on loopback");
	pmaps__free(c.l);
	return (int)found;
}
