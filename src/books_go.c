/* SPDX-License-Identifier: MIT */
/*
 * books_go.c - the Go runtime's own books: runtime.MemStats as the process
 * serves it at /debug/pprof/heap?debug=1 (net/http/pprof), fetched over
 * HTTP with libcurl from a loopback listener of the process (or the URL the
 * user gave), and its GOGC, GOMEMLIMIT and GODEBUG from its environ.
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
 *   # PauseNs = [54090 14441 ...]          256 numbers: a long line, skipped
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
 * digits). A line of the reply past 256 bytes is skipped (PauseNs), unless
 * it is a figure's: then the page is refused.
 *
 * Without --go-pprof the process's own listeners are tried, at most four:
 * the "socket:[INODE]" links of /proc/PID/fd matched against the LISTEN
 * sockets of /proc/PID/net/tcp and tcp6 (which list the whole network
 * namespace, hence the match), those on loopback as they are, those on any
 * address (0.0.0.0, ::) through 127.0.0.1 or ::1. Only when the process is
 * in pmaps's network namespace: in another, our 127.0.0.1 is not its.
 *
 * Everything the server sends is the target's: the reply is streamed
 * through a fixed line buffer, only the MemStats block is kept (8 KiB at
 * most), at most 64 MiB are read in all, redirects are reported and never
 * followed, no proxy from the environment is used, and each request is
 * bounded by the books' timeout.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "books.h"

/* What one reply may be, in all, and the MemStats block within it. */
#define GO_REPLY_MAX (64u << 20)
#define GO_BLOCK_MAX 8192u
/* A line of the block longer than this is skipped (PauseNs, PauseEnd). */
#define GO_LINE_MAX 256u
/* Figures past this are out of range: sums of a few never wrap. */
#define GO_FIGURE_MAX (1ull << 62)
/* How much of /proc/PID/environ is read. */
#define GO_ENVIRON_MAX (256u << 10)
/* Loopback listeners of net/tcp and tcp6 (the whole network namespace's) considered. */
#define GO_LISTEN_MAX 1024u

static const char memstats_header[] = "# runtime.MemStats";
static const char pprof_path[] = "/debug/pprof/heap";
static const char pprof_query[] = "debug=1";

/* ---- the parser ---- */

enum go_key {
	K_HEAP_ALLOC, K_HEAP_SYS, K_HEAP_IDLE, K_HEAP_INUSE, K_HEAP_RELEASED, K_HEAP_OBJECTS,
	K_STACK, K_MSPAN, K_MCACHE, K_BUCK_HASH_SYS, K_GC_SYS, K_OTHER_SYS, K_SYS,
	K_TOTAL_ALLOC, K_NEXT_GC, K_LAST_GC, K_NUM_GC, K_COUNT
};

static const struct {
	const char *name;
	int pair; /* "a / b" */
} go_keys[K_COUNT] = {
	[K_HEAP_ALLOC] = {"HeapAlloc", 0},     [K_HEAP_SYS] = {"HeapSys", 0},
	[K_HEAP_IDLE] = {"HeapIdle", 0},       [K_HEAP_INUSE] = {"HeapInuse", 0},
	[K_HEAP_RELEASED] = {"HeapReleased", 0}, [K_HEAP_OBJECTS] = {"HeapObjects", 0},
	[K_STACK] = {"Stack", 1},              [K_MSPAN] = {"MSpan", 1},
	[K_MCACHE] = {"MCache", 1},            [K_BUCK_HASH_SYS] = {"BuckHashSys", 0},
	[K_GC_SYS] = {"GCSys", 0},             [K_OTHER_SYS] = {"OtherSys", 0},
	[K_SYS] = {"Sys", 0},                  [K_TOTAL_ALLOC] = {"TotalAlloc", 0},
	[K_NEXT_GC] = {"NextGC", 0},           [K_LAST_GC] = {"LastGC", 0},
	[K_NUM_GC] = {"NumGC", 0},
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

static int bad(char *why, size_t whysz, unsigned line, size_t off, const char *what)
{
	snprintf(why, whysz, "line %u (byte %zu) of the MemStats block: %s", line, off, what);
	return -EBADMSG;
}

int book_go_parse(struct book_go *g, const char *text, size_t len, char *why, size_t whysz)
{
	const char *end, *block = NULL, *s;
	uint64_t v[K_COUNT][2];
	unsigned seen = 0, line;
	char what[96];

	if (!text)
		text = "", len = 0;
	end = text + len;
	/* The last line that is exactly the header. */
	for (s = text; s < end;) {
		size_t n = go_line_len(s, end);
		if (n == sizeof(memstats_header) - 1 && memcmp(s, memstats_header, n) == 0)
			block = s;
		s += n + (s + n < end);
	}
	if (!block) {
		snprintf(why, whysz, "not a Go MemStats dump (no '%s' block)", memstats_header);
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
			uint64_t max = key == K_NEXT_GC ? INT64_MAX : GO_FIGURE_MAX;
			const char *name = go_keys[key].name;

			if (le == end) {
				/* Go ends every line: one cut by the end may have lost digits. */
				snprintf(what, sizeof(what), "%s: cut short (no newline)", name);
				return bad(why, whysz, line, off, what);
			}
			if (seen & (1u << key)) {
				snprintf(what, sizeof(what), "%s given twice", name);
				return bad(why, whysz, line, off, what);
			}
			if ((size_t)(le - p) < 3 || memcmp(p, " = ", 3) != 0) {
				snprintf(what, sizeof(what), "%s: no ' = ' after it", name);
				return bad(why, whysz, line, off, what);
			}
			p += 3;
			if (go_decimal(&p, le, max, &v[key][0]) < 0) {
				snprintf(what, sizeof(what), "%s: not a decimal number up to %s", name,
				         key == K_NEXT_GC ? "2^63 - 1" : "2^62 (out of range)");
				return bad(why, whysz, line, off, what);
			}
			if (go_keys[key].pair) {
				if ((size_t)(le - p) < 3 || memcmp(p, " / ", 3) != 0) {
					snprintf(what, sizeof(what), "%s: not 'INUSE / SYS'", name);
					return bad(why, whysz, line, off, what);
				}
				p += 3;
				if (go_decimal(&p, le, GO_FIGURE_MAX, &v[key][1]) < 0) {
					snprintf(what, sizeof(what),
					         "%s: not a decimal number up to 2^62 (out of range)", name);
					return bad(why, whysz, line, off, what);
				}
			}
			if (p != le) {
				snprintf(what, sizeof(what), "%s: more after the number", name);
				return bad(why, whysz, line, off, what);
			}
			seen |= 1u << key;
		}
		s = le + (le < end);
	}
	for (int k = 0; k < K_COUNT; k++) {
		if (!(seen & (1u << k))) {
			snprintf(why, whysz, "not a Go MemStats dump: no %s", go_keys[k].name);
			return -EBADMSG;
		}
	}
	/* One snapshot's invariants: the join subtracts these. */
	if (v[K_HEAP_IDLE][0] + v[K_HEAP_INUSE][0] != v[K_HEAP_SYS][0]) {
		snprintf(why, whysz, "inconsistent MemStats: HeapIdle %llu + HeapInuse %llu != HeapSys %llu",
		         (unsigned long long)v[K_HEAP_IDLE][0], (unsigned long long)v[K_HEAP_INUSE][0],
		         (unsigned long long)v[K_HEAP_SYS][0]);
		return -EBADMSG;
	}
	if (v[K_HEAP_RELEASED][0] > v[K_HEAP_IDLE][0] || v[K_HEAP_ALLOC][0] > v[K_HEAP_INUSE][0]) {
		snprintf(why, whysz,
		         "inconsistent MemStats: HeapReleased %llu > HeapIdle %llu or HeapAlloc %llu > "
		         "HeapInuse %llu",
		         (unsigned long long)v[K_HEAP_RELEASED][0], (unsigned long long)v[K_HEAP_IDLE][0],
		         (unsigned long long)v[K_HEAP_ALLOC][0], (unsigned long long)v[K_HEAP_INUSE][0]);
		return -EBADMSG;
	}
	for (int k = K_STACK; k <= K_MCACHE; k++) {
		if (v[k][0] > v[k][1]) {
			snprintf(why, whysz, "inconsistent MemStats: %s in use %llu > its Sys %llu",
			         go_keys[k].name, (unsigned long long)v[k][0], (unsigned long long)v[k][1]);
			return -EBADMSG;
		}
	}
	g->heap_alloc = v[K_HEAP_ALLOC][0];
	g->heap_sys = v[K_HEAP_SYS][0];
	g->heap_idle = v[K_HEAP_IDLE][0];
	g->heap_inuse = v[K_HEAP_INUSE][0];
	g->heap_released = v[K_HEAP_RELEASED][0];
	g->heap_objects = v[K_HEAP_OBJECTS][0];
	g->stack_inuse = v[K_STACK][0];
	g->stack_sys = v[K_STACK][1];
	g->mspan_inuse = v[K_MSPAN][0];
	g->mspan_sys = v[K_MSPAN][1];
	g->mcache_inuse = v[K_MCACHE][0];
	g->mcache_sys = v[K_MCACHE][1];
	g->buck_hash_sys = v[K_BUCK_HASH_SYS][0];
	g->gc_sys = v[K_GC_SYS][0];
	g->other_sys = v[K_OTHER_SYS][0];
	g->sys = v[K_SYS][0];
	g->total_alloc = v[K_TOTAL_ALLOC][0];
	g->next_gc = v[K_NEXT_GC][0];
	g->last_gc_ns = v[K_LAST_GC][0];
	g->num_gc = v[K_NUM_GC][0];
	return 0;
}

/* ---- the URL ---- */

/* Whether HOST (as curl's URL parser gives it: IPv6 in brackets) is loopback. */
static int go_host_loopback(const char *host)
{
	struct in_addr a4;
	struct in6_addr a6;
	char h[INET6_ADDRSTRLEN + 2];
	size_t n = strlen(host);

	if (strcasecmp(host, "localhost") == 0)
		return 1; /* curl resolves it to loopback itself, never by DNS (7.78) */
	if (inet_pton(AF_INET, host, &a4) == 1)
		return ((const unsigned char *)&a4)[0] == 127;
	if (n < 2 || n - 2 >= sizeof(h) || host[0] != '[' || host[n - 1] != ']')
		return 0;
	memcpy(h, host + 1, n - 2);
	h[n - 2] = '\0';
	if (inet_pton(AF_INET6, h, &a6) != 1)
		return 0;
	if (IN6_IS_ADDR_LOOPBACK(&a6))
		return 1;
	return IN6_IS_ADDR_V4MAPPED(&a6) && a6.s6_addr[12] == 127;
}

/*
 * Where the heap page of the server URL names is: the path is made
 * /debug/pprof/heap (a path ending in /heap is used as it is; one ending
 * in /debug/pprof or /debug/pprof/ gets /heap; any other is a base the
 * handlers are mounted under, and gets /debug/pprof/heap), the query is
 * made debug=1 whatever it was (gc=1 would make the target collect), and a
 * fragment is dropped. Only http and https; no user:password (the URL is
 * shown); the host loopback unless ALLOW_REMOTE. Writes the URL to DST;
 * returns 0, or -EINVAL with WHY.
 */
int book_go_url(char *dst, size_t dstsz, const char *url, int allow_remote, char *why,
                size_t whysz)
{
	CURLU *u = curl_url();
	char *scheme = NULL, *host = NULL, *path = NULL, *user = NULL, *password = NULL;
	char *full = NULL;
	char npath[1024], given[1024];
	const char *pp;
	int rc = -EINVAL;
	size_t n;

	if (!u) {
		snprintf(why, whysz, "out of memory");
		return -ENOMEM;
	}
	/* HOST:PORT alone is http://HOST:PORT/ */
	if (!strstr(url, "://") && snprintf(given, sizeof(given), "http://%s", url) < (int)sizeof(given))
		url = given;
	if (curl_url_set(u, CURLUPART_URL, url, CURLU_NON_SUPPORT_SCHEME) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK) {
		snprintf(why, whysz, "--go-pprof: not a URL (http://HOST:PORT/...)");
		goto out;
	}
	if (strcmp(scheme, "http") != 0 && strcmp(scheme, "https") != 0) {
		snprintf(why, whysz, "--go-pprof: only http:// and https:// URLs");
		goto out;
	}
	if (curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK) {
		snprintf(why, whysz, "--go-pprof: not a URL (http://HOST:PORT/...)");
		goto out;
	}
	if (curl_url_get(u, CURLUPART_USER, &user, 0) == CURLUE_OK ||
	    curl_url_get(u, CURLUPART_PASSWORD, &password, 0) == CURLUE_OK) {
		snprintf(why, whysz, "--go-pprof: no user or password in the URL (it is shown)");
		goto out;
	}
	if (!allow_remote && !go_host_loopback(host)) {
		snprintf(why, whysz,
		         "--go-pprof: the host is not loopback (127.0.0.0/8, ::1, localhost): "
		         "refused without --allow-remote");
		goto out;
	}
	if (curl_url_get(u, CURLUPART_PATH, &path, 0) != CURLUE_OK || !path) {
		snprintf(why, whysz, "--go-pprof: no path in the URL");
		goto out;
	}
	n = strlen(path);
	while (n > 0 && path[n - 1] == '/')
		n--;
	/* Another of pprof's pages is no heap page: said, not made into a path that is none. */
	pp = memmem(path, n, "/debug/pprof/", 13);
	if (pp && (size_t)(path + n - (pp + 13)) > 0 &&
	    !((size_t)(path + n - (pp + 13)) == 4 && memcmp(pp + 13, "heap", 4) == 0)) {
		snprintf(why, whysz, "--go-pprof: %.*s is not the heap page: give .../debug/pprof/heap, "
		         ".../debug/pprof/ or the server", (int)(path + n - pp), pp);
		goto out;
	}
	if (n >= 5 && memcmp(path + n - 5, "/heap", 5) == 0)
		rc = snprintf(npath, sizeof(npath), "%.*s", (int)n, path);
	else if (n >= 12 && memcmp(path + n - 12, "/debug/pprof", 12) == 0)
		rc = snprintf(npath, sizeof(npath), "%.*s/heap", (int)n, path);
	else
		rc = snprintf(npath, sizeof(npath), "%.*s%s", (int)n, path, pprof_path);
	if (rc < 0 || (size_t)rc >= sizeof(npath)) {
		rc = -EINVAL;
		snprintf(why, whysz, "--go-pprof: the URL's path is too long");
		goto out;
	}
	rc = -EINVAL;
	if (curl_url_set(u, CURLUPART_PATH, npath, 0) != CURLUE_OK ||
	    curl_url_set(u, CURLUPART_QUERY, pprof_query, 0) != CURLUE_OK ||
	    curl_url_set(u, CURLUPART_FRAGMENT, NULL, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_URL, &full, 0) != CURLUE_OK) {
		snprintf(why, whysz, "--go-pprof: not a URL (http://HOST:PORT/...)");
		goto out;
	}
	if (strlen(full) >= dstsz) {
		snprintf(why, whysz, "--go-pprof: the URL is longer than %zu bytes", dstsz - 1);
		goto out;
	}
	memcpy(dst, full, strlen(full) + 1);
	rc = 0;
out:
	curl_free(scheme);
	curl_free(host);
	curl_free(path);
	curl_free(user);
	curl_free(password);
	curl_free(full);
	curl_url_cleanup(u);
	return rc;
}

/* ---- the process's listeners ---- */

struct go_listen {
	unsigned long long inode;
	char url[BOOK_GO_URL_MAX];
};

/*
 * The URL of the heap page on a listener at the kernel's hex address A
 * (8 hex digits for tcp, 32 for tcp6: 32-bit words as the host stores them)
 * and hex port P: on loopback, or any address reached through loopback;
 * 0 when it is neither.
 */
static int go_listen_url(char *dst, size_t dstsz, const char *a, size_t alen, unsigned port)
{
	unsigned char b[16];
	char ip[INET6_ADDRSTRLEN];
	int v6 = alen == 32;

	if (alen != 8 && alen != 32)
		return 0;
	for (size_t w = 0; w < alen / 8; w++) {
		uint32_t x = 0;
		for (size_t i = 0; i < 8; i++) {
			char c = a[w * 8 + i];
			unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0')
			           : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
			           : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10) : 16u;
			if (d > 15)
				return 0;
			x = x << 4 | d;
		}
		memcpy(b + w * 4, &x, 4); /* the kernel printed the word in host order */
	}
	if (v6) {
		static const unsigned char any[16], mapped[12] = {[10] = 0xff, [11] = 0xff};
		struct in6_addr a6;
		memcpy(&a6, b, 16);
		if (memcmp(b, any, 16) == 0 || IN6_IS_ADDR_LOOPBACK(&a6)) {
			snprintf(dst, dstsz, "http://[::1]:%u%s?%s", port, pprof_path, pprof_query);
			return 1;
		}
		if (memcmp(b, mapped, 12) != 0)
			return 0;
		memmove(b, b + 12, 4); /* ::ffff:a.b.c.d: an IPv4 address */
	}
	if (b[0] == 0 && b[1] == 0 && b[2] == 0 && b[3] == 0)
		b[0] = 127, b[3] = 1; /* 0.0.0.0: through 127.0.0.1 */
	if (b[0] != 127 || !inet_ntop(AF_INET, b, ip, sizeof(ip)))
		return 0;
	snprintf(dst, dstsz, "http://%s:%u%s?%s", ip, port, pprof_path, pprof_query);
	return 1;
}

/* A whitespace-separated field at *P (before END): its start and length; advances *P. */
static size_t go_field(const char **p, const char *end, const char **f)
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
static unsigned go_listener_line(const char *s, const char *end, struct go_listen *l)
{
	const char *p = s, *f, *colon, *addr, *st;
	size_t fl, alen;
	unsigned port = 0;
	uint64_t ino;

	go_field(&p, end, &f);      /* sl */
	fl = go_field(&p, end, &f); /* local address */
	colon = memchr(f, ':', fl);
	if (!colon || fl - (size_t)(colon - f) != 5)
		return 0;
	for (size_t i = 1; i < 5; i++) {
		char c = colon[i];
		unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0')
		           : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10) : 16u;
		if (d > 15)
			return 0;
		port = port << 4 | d;
	}
	addr = f;
	alen = (size_t)(colon - f);
	go_field(&p, end, &f); /* remote address */
	if (go_field(&p, end, &st) != 2 || st[0] != '0' || st[1] != 'A')
		return 0; /* not LISTEN */
	for (int i = 0; i < 5; i++) /* tx:rx tr:when retrnsmt uid timeout */
		go_field(&p, end, &f);
	fl = go_field(&p, end, &f);
	p = f;
	if (fl == 0 || go_decimal(&p, f + fl, UINT64_MAX, &ino) < 0 || p != f + fl || ino == 0)
		return 0;
	if (!go_listen_url(l->url, sizeof(l->url), addr, alen, port))
		return 0;
	l->inode = ino;
	return 1;
}

/*
 * The loopback listeners of net/tcp or net/tcp6 at FD (the whole network
 * namespace's) into L (N so far, at most MAX). Streams the file through a
 * fixed buffer; a line longer than it is not a socket's. Returns N.
 */
static unsigned go_listeners_of(int fd, struct go_listen *l, unsigned n, unsigned max)
{
	char buf[8192];
	size_t have = 0;
	int first = 1, eof = 0, skip = 0;

	while (!eof || have > 0) {
		char *nl;
		if (!eof && have < sizeof(buf)) {
			ssize_t r = read(fd, buf + have, sizeof(buf) - have);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				eof = 1;
			else
				have += (size_t)r;
		}
		if (have == 0)
			continue; /* at the end: the loop's condition ends it */
		nl = memchr(buf, '\n', have);
		if (!nl) {
			if (!eof && have < sizeof(buf))
				continue;
			/* A line past the buffer (skipped to its end), or cut by the end. */
			skip = 1;
			have = 0;
			continue;
		}
		if (!first && !skip && n < max)
			n += go_listener_line(buf, nl, &l[n]);
		first = skip = 0;
		have -= (size_t)(nl + 1 - buf);
		memmove(buf, nl + 1, have);
	}
	return n;
}

/*
 * The URLs of the heap page on the loopback listeners of process PID under
 * ROOT (NULL: /proc): its fds' "socket:[INODE]" links matched against the
 * LISTEN (0A) sockets of its net/tcp and net/tcp6 (which list its whole
 * network namespace). Into URLS, at most MAX. Returns the count, or a
 * negative errno with WHY.
 */
int book_go_listeners(const char *root, int pid, char (*urls)[BOOK_GO_URL_MAX], unsigned max,
                      char *why, size_t whysz)
{
	static const char *const nets[] = {"net/tcp", "net/tcp6"};
	struct go_listen *l;
	struct stat mine, its;
	char path[4096];
	unsigned nl = 0, found = 0;
	int dfd, fdd, err;
	DIR *d;
	const struct dirent *e;

	if (!root)
		root = "/proc";
	snprintf(path, sizeof(path), "%s/%d", root, pid);
	dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		err = -errno;
		snprintf(why, whysz, "%s: %m", path);
		return err;
	}
	/*
	 * Its loopback is ours only in our network namespace: in another one,
	 * 127.0.0.1 here is some other process's. (A tree without ns/net is a
	 * test's: nothing to compare.)
	 */
	if (fstatat(dfd, "ns/net", &its, 0) == 0) {
		if (stat("/proc/self/ns/net", &mine) == 0 &&
		    (mine.st_ino != its.st_ino || mine.st_dev != its.st_dev)) {
			close(dfd);
			snprintf(why, whysz,
			         "the process is in another network namespace: its loopback is not "
			         "ours (give --go-pprof a URL that reaches it from here)");
			return -EXDEV;
		}
	} else if (errno != ENOENT) {
		err = -errno;
		snprintf(why, whysz, "%s/ns/net: %m%s", path,
		         errno == EACCES || errno == EPERM ? " (run as the process's user or root)" : "");
		close(dfd);
		return err;
	}
	l = calloc(GO_LISTEN_MAX, sizeof(*l));
	if (!l) {
		close(dfd);
		snprintf(why, whysz, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < sizeof(nets) / sizeof(nets[0]); i++) {
		int fd = openat(dfd, nets[i], O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			nl = go_listeners_of(fd, l, nl, GO_LISTEN_MAX);
			close(fd);
		}
	}
	if (nl == 0) {
		free(l);
		close(dfd);
		snprintf(why, whysz, "no listening socket on loopback");
		return 0;
	}
	fdd = openat(dfd, "fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	close(dfd);
	if (fdd < 0 || !(d = fdopendir(fdd))) {
		err = -errno;
		snprintf(why, whysz, "%s/fd: %m%s", path,
		         errno == EACCES || errno == EPERM ? " (run as the process's user or root)" : "");
		if (fdd >= 0)
			close(fdd);
		free(l);
		return err;
	}
	while (found < max && (e = readdir(d)) != NULL) {
		char link[64];
		const char *q, *qe;
		ssize_t n;
		uint64_t ino;

		if (e->d_name[0] == '.')
			continue;
		n = readlinkat(fdd, e->d_name, link, sizeof(link));
		if (n <= 9 || (size_t)n >= sizeof(link) || memcmp(link, "socket:[", 8) != 0 ||
		    link[n - 1] != ']')
			continue;
		q = link + 8;
		qe = link + n - 1;
		if (go_decimal(&q, qe, UINT64_MAX, &ino) < 0 || q != qe)
			continue;
		for (unsigned i = 0; i < nl && found < max; i++) {
			if (l[i].inode != ino)
				continue;
			int dup = 0;
			for (unsigned j = 0; j < found; j++)
				dup |= strcmp(urls[j], l[i].url) == 0;
			if (!dup)
				memcpy(urls[found++], l[i].url, sizeof(l[i].url));
		}
	}
	closedir(d);
	free(l);
	if (found == 0 && nl == GO_LISTEN_MAX)
		snprintf(why, whysz, "no listening socket on loopback among the first %u of its "
		         "network namespace", GO_LISTEN_MAX);
	else if (found == 0)
		snprintf(why, whysz, "no listening socket on loopback");
	return (int)found;
}

/* ---- the environment ---- */

/* The value of NAME= in ENV (N bytes of NUL-terminated entries) into DST: the first, as getenv. */
static void go_env_value(const char *env, size_t n, const char *name, char *dst, size_t dstsz)
{
	size_t nlen = strlen(name);

	dst[0] = '\0';
	for (const char *s = env, *end = env + n; s < end;) {
		const char *z = memchr(s, '\0', (size_t)(end - s));
		if (!z)
			return; /* cut at the buffer's end: ignored */
		if ((size_t)(z - s) > nlen && memcmp(s, name, nlen) == 0 && s[nlen] == '=') {
			size_t vlen = (size_t)(z - s) - nlen - 1;
			if (vlen >= dstsz) {
				/* Cut, and marked so: never shown as if it were whole. */
				vlen = dstsz - 4;
				memcpy(dst + vlen, "...", 4);
			} else {
				dst[vlen] = '\0';
			}
			memcpy(dst, s + nlen + 1, vlen);
			return;
		}
		s = z + 1;
	}
}

static void go_env(struct book_go *g, const char *root, int pid)
{
	char path[4096], *buf;
	size_t have = 0;
	int fd, failed = 0;

	snprintf(path, sizeof(path), "%s/%d/environ", root ? root : "/proc", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	buf = malloc(GO_ENVIRON_MAX);
	while (buf && have < GO_ENVIRON_MAX) {
		ssize_t r = read(fd, buf + have, GO_ENVIRON_MAX - have);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			failed = r < 0;
			break;
		}
		have += (size_t)r;
	}
	/* Past GO_ENVIRON_MAX the rest is not read: an entry cut there is ignored. */
	close(fd);
	if (buf && !failed) {
		go_env_value(buf, have, "GOGC", g->gogc, sizeof(g->gogc));
		go_env_value(buf, have, "GOMEMLIMIT", g->gomemlimit, sizeof(g->gomemlimit));
		go_env_value(buf, have, "GODEBUG", g->godebug, sizeof(g->godebug));
		g->env_ok = 1;
	}
	free(buf);
}

/* ---- the request ---- */

/* A reply as it streams in: only the MemStats block is kept. */
struct go_fetch {
	uint64_t total;        /* bytes received */
	int over;              /* past GO_REPLY_MAX */
	char line[GO_LINE_MAX];
	size_t llen;
	int llong;             /* the line passed the buffer: its start is in LINE */
	char block[GO_BLOCK_MAX];
	size_t blen;
	int in_block;
	int block_over;        /* the block passed GO_BLOCK_MAX */
	unsigned long_line;    /* a known key's line past GO_LINE_MAX: its line in the block */
	unsigned block_lines;
	const struct books_opts *o; /* the read's options: its quit */
};

/* The line in F->line, ended by a newline (TERMINATED) or by the reply's end. */
static void go_fetch_line(struct go_fetch *f, int terminated)
{
	const char *s = f->line;
	size_t n = f->llen;

	if (!f->llong && n == sizeof(memstats_header) - 1 && memcmp(s, memstats_header, n) == 0) {
		f->in_block = 1;
		f->block_over = 0;
		f->long_line = 0;
		f->block_lines = 0;
		f->blen = 0;
	} else if (!f->in_block) {
		return;
	} else if (f->llen < 2 || s[0] != '#' || s[1] != ' ') {
		f->in_block = 0; /* the block's end, as the parser sees it */
		return;
	} else if (f->llong) {
		/* Skipped (PauseNs = [...]); a key the parser needs must not be. */
		const char *k = s + 2, *e = k;
		f->block_lines++;
		while (e < s + n && *e != ' ')
			e++;
		if (go_key_of(k, (size_t)(e - k)) >= 0 && !f->long_line)
			f->long_line = f->block_lines + 1;
		return;
	} else {
		f->block_lines++;
	}
	if (f->blen + n + 1 > sizeof(f->block)) {
		f->block_over = 1;
		return;
	}
	memcpy(f->block + f->blen, s, n);
	f->blen += n;
	if (terminated)
		f->block[f->blen++] = '\n';
}

static size_t go_fetch_write(char *data, size_t size, size_t nmemb, void *arg)
{
	struct go_fetch *f = arg;
	size_t n = size * nmemb;

	if (n > GO_REPLY_MAX - f->total) {
		f->over = 1;
		return 0; /* curl ends the transfer: CURLE_WRITE_ERROR */
	}
	f->total += n;
	for (size_t i = 0; i < n; i++) {
		char c = data[i];
		if (c == '\n') {
			go_fetch_line(f, 1);
			f->llen = 0;
			f->llong = 0;
		} else if (f->llen < sizeof(f->line)) {
			f->line[f->llen++] = c;
		} else {
			f->llong = 1;
		}
	}
	return n;
}

/* G's why: cut to fit (a URL can be longer), never an error. */
static void go_why(struct book_go *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void go_why(struct book_go *g, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(g->h.why, sizeof(g->h.why), fmt, ap);
	va_end(ap);
}

static pthread_once_t go_curl_once = PTHREAD_ONCE_INIT;
static CURLcode go_curl_init_rc = CURLE_FAILED_INIT;

static void go_curl_init(void)
{
	go_curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

/*
 * GET URL into G's figures. Returns 0, or -1 with G->h.why set (the URL
 * first: which server said it).
 */
/* curl's progress call: non-zero ends the transfer (a watch that ends). */
static int go_progress(void *arg, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
	const struct go_fetch *f = arg;

	(void)dt, (void)dn, (void)ut, (void)un;
	return books_quit(f->o);
}

static int go_fetch_url(struct book_go *g, const char *url, unsigned timeout_ms,
                        const struct books_opts *o)
{
	struct go_fetch *f = calloc(1, sizeof(*f));
	char errbuf[CURL_ERROR_SIZE], why[192];
	CURL *c;
	CURLcode rc;
	long status = 0;
	int ret = -1;

	snprintf(g->h.source, sizeof(g->h.source), "%s", url);
	if (!f || !(c = curl_easy_init())) {
		go_why(g, "%s: out of memory", url);
		free(f);
		return -1;
	}
	errbuf[0] = '\0';
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
	curl_easy_setopt(c, CURLOPT_PROXY, "");
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)timeout_ms);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long)timeout_ms);
	curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)GO_REPLY_MAX);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "pmaps/" PMAPS_VERSION);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, go_fetch_write);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, f);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, go_progress);
	f->o = o;
	curl_easy_setopt(c, CURLOPT_XFERINFODATA, f);
	rc = curl_easy_perform(c);
	clock_gettime(CLOCK_REALTIME, &g->h.at); /* the runtime's figures are of about now */
	if (rc == CURLE_OK || rc == CURLE_WRITE_ERROR)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	if (f->over || rc == CURLE_FILESIZE_EXCEEDED) {
		go_why(g, "%s: the reply passed %u MiB: not read", url, GO_REPLY_MAX >> 20);
	} else if (rc == CURLE_ABORTED_BY_CALLBACK) {
		go_why(g, "%s: stopped before the reply (the watch ended)", url);
	} else if (rc == CURLE_OPERATION_TIMEDOUT) {
		go_why(g, "%s: timed out after %u ms", url, timeout_ms);
	} else if (rc == CURLE_COULDNT_CONNECT) {
		long oserr = 0;
		char eb[128];
		curl_easy_getinfo(c, CURLINFO_OS_ERRNO, &oserr);
		if (oserr == ECONNREFUSED)
			go_why(g, "%s: connection refused", url);
		else
			go_why(g, "%s: cannot connect: %s", url,
			       oserr ? strerror_r((int)oserr, eb, sizeof(eb)) : errbuf);
	} else if (rc != CURLE_OK) {
		go_why(g, "%s: %s", url, errbuf[0] ? errbuf : curl_easy_strerror(rc));
	} else if (status >= 300 && status < 400) {
		char *to = NULL;
		curl_easy_getinfo(c, CURLINFO_REDIRECT_URL, &to);
		go_why(g, "%s: HTTP %ld, redirected to %s: not followed", url, status,
		       to ? to : "(no Location)");
	} else if (status != 200) {
		go_why(g, "%s: HTTP %ld", url, status);
	} else {
		/* The last line, if the reply did not end with a newline. */
		if (f->llen > 0 || f->llong)
			go_fetch_line(f, 0);
		if (f->block_over) {
			go_why(g, "%s: the MemStats block passed %u bytes: not a Go MemStats dump", url,
			       GO_BLOCK_MAX);
		} else if (f->long_line) {
			go_why(g, "%s: line %u of the MemStats block passed %u bytes: not a Go MemStats "
			       "dump", url, f->long_line, GO_LINE_MAX);
		} else if (book_go_parse(g, f->block, f->blen, why, sizeof(why)) < 0) {
			go_why(g, "%s: %s", url, why);
		} else {
			ret = 0;
		}
	}
	curl_easy_cleanup(c);
	free(f);
	return ret;
}

/* URL's host and port (the scheme's default when none). Returns 0, or -1. */
static int go_url_port(const char *url, char *host, size_t hostsz, long *port)
{
	CURLU *u = curl_url();
	char *h = NULL, *p = NULL;
	int rc = -1;

	if (u && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_HOST, &h, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_PORT, &p, CURLU_DEFAULT_PORT) == CURLUE_OK) {
		snprintf(host, hostsz, "%s", h);
		*port = strtol(p, NULL, 10);
		rc = 0;
	}
	curl_free(h);
	curl_free(p);
	curl_url_cleanup(u);
	return rc;
}

/*
 * Whether the loopback URL's port is one process PID listens on: else the
 * server is another process's, whose books joined to PID's would be wrong
 * and look exact. 0 when it is (or the URL is not loopback: --allow-remote,
 * or under --proc-root: the user's word), else -1 with G's why.
 */
static int go_url_is_pids(struct book_go *g, const struct books_opts *o, int pid, const char *url)
{
	char urls[16][BOOK_GO_URL_MAX], why[256], host[256];
	long port, lport;
	int n;

	/* Under another proc tree this loopback is not the process's: the user's word stands. */
	if ((o->root && strcmp(o->root, "/proc") != 0) ||
	    go_url_port(url, host, sizeof(host), &port) < 0 || !go_host_loopback(host))
		return 0;
	n = book_go_listeners(o->root, pid, urls, 16, why, sizeof(why));
	for (int i = 0; i < n; i++) {
		char lhost[256];
		if (go_url_port(urls[i], lhost, sizeof(lhost), &lport) == 0 && lport == port)
			return 0;
	}
	snprintf(g->h.source, sizeof(g->h.source), "%s", url);
	go_why(g, "%s: process %d does not listen on port %ld (%s): the server is another "
	       "process's, whose books are not this one's", url, pid, port,
	       n < 0 ? why : n == 0 ? "it listens on no loopback port" : "its loopback ports differ");
	return -1;
}

void book_go_read(struct book_go *g, const struct books_opts *o, int pid)
{
	char urls[4][BOOK_GO_URL_MAX], why[256], url[sizeof(g->h.source)];
	unsigned timeout = o->timeout_ms ? o->timeout_ms : BOOKS_TIMEOUT_MS;
	struct timespec t0, t1;
	int n;

	g->h.asked = 1;
	g->h.ok = 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	go_env(g, o->root, pid);
	pthread_once(&go_curl_once, go_curl_init);
	if (go_curl_init_rc != CURLE_OK) {
		go_why(g, "libcurl: %s", curl_easy_strerror(go_curl_init_rc));
	} else if (o->go_url) {
		if (book_go_url(url, sizeof(url), o->go_url, o->allow_remote, why, sizeof(why)) < 0) {
			go_why(g, "%s", why);
			snprintf(g->h.source, sizeof(g->h.source), "%s", o->go_url);
		} else if (go_url_is_pids(g, o, pid, url) == 0) {
			g->h.ok = go_fetch_url(g, url, timeout, o) == 0;
		}
	} else if (o->root && strcmp(o->root, "/proc") != 0) {
		/*
		 * Another proc tree (a host's, a capture): its loopback is not
		 * this one's, and a server here would answer for another process.
		 */
		go_why(g, "under --proc-root a Go program's listeners are not asked: name its "
		       "server with --go-pprof");
	} else if ((n = book_go_listeners(o->root, pid, urls, 4, why, sizeof(why))) <= 0) {
		if (n == 0) /* what would make it serve them */
			go_why(g, "%s: a program serves its books with net/http/pprof, or name the "
			       "server with --go-pprof", why);
		else
			go_why(g, "%s", why);
	} else {
		/* The first that serves the page; else the first's failure. */
		char first[sizeof(g->h.why)], first_src[sizeof(g->h.source)];
		for (int i = 0; i < n && !g->h.ok && !books_quit(o); i++) {
			g->h.ok = go_fetch_url(g, urls[i], timeout, o) == 0;
			if (!g->h.ok && i == 0) {
				memcpy(first, g->h.why, sizeof(first));
				memcpy(first_src, g->h.source, sizeof(first_src));
			}
		}
		if (!g->h.ok) {
			memcpy(g->h.why, first, sizeof(first));
			memcpy(g->h.source, first_src, sizeof(first_src));
			if (n > 1) {
				size_t l = strlen(g->h.why);
				snprintf(g->h.why + l, sizeof(g->h.why) - l, " (and %d other listener%s)",
				         n - 1, n > 2 ? "s" : "");
			}
		}
	}
	if (g->h.ok)
		g->h.why[0] = '\0';
	else
		clock_gettime(CLOCK_REALTIME, &g->h.at);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	g->h.took_ns = (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000u + (uint64_t)t1.tv_nsec -
	               (uint64_t)t0.tv_nsec;
}
