/* SPDX-License-Identifier: MIT */
/*
 * books_go.c - asking a Go program for its books: runtime.MemStats at the
 * end of /debug/pprof/heap?debug=1 (net/http/pprof), fetched over HTTP
 * with libcurl from a loopback listener of the process
 * (pmaps_books_go_listeners()) or the URL the user gave, and parsed by the
 * library (pmaps_books_parse(), which documents the page). Its GOGC,
 * GOMEMLIMIT and GODEBUG come from its environ (pmaps_books_go_env()).
 *
 * Everything the server sends is the target's: the reply is streamed
 * through a fixed line buffer, only the MemStats block is kept (a line
 * longer than GO_LINE_MAX bytes, such as PauseNs, kept as its start and
 * " (cut)": no figure's line parses with that after its number, so a cut
 * one is refused, never misread, even one padded with zeros), at most 64 MiB are read in
 * all, redirects are reported and never followed, no proxy from the
 * environment is used, and each request is bounded by the books' timeout.
 * A loopback URL the user gives is read only when the process listens on
 * its port: else the server is another process's, whose books joined to
 * this one's would look exact and be wrong.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#if PMAPS_WITH_CURL
/*
 * Plain declarations: the calls below go through the table (typecheck-gcc.h's
 * wrappers would name the functions themselves).
 */
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>
#endif

#include "books/books.h"
#include "common/dl.h"
#include "common/num.h"
#include "common/tool.h"

/* H's why: cut to fit (a URL can be longer), never an error. */
static void go_why(struct pmaps_book_head *h, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void go_why(struct pmaps_book_head *h, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(h->why, sizeof(h->why), fmt, ap);
	va_end(ap);
}

#if PMAPS_WITH_CURL
/*
 * libcurl, opened when a Go program's books are first fetched or a
 * --go-pprof URL is read (dl.h): no other command maps it.
 */
DL_NOTE(go_curl_note, "[{\"feature\":\"go-books\",\"description\":\"explain, watch and "
                      "run: the Go runtime's MemStats over HTTP\",\"priority\":\"recommended\","
                      "\"soname\":[\"libcurl.so.4\"]}]");
static struct dl_lib go_curl_lib = {
	.soname = "libcurl.so.4", .package = "libcurl4",
};
static struct {
	__typeof__(&curl_global_init) curl_global_init;
	__typeof__(&curl_easy_init) curl_easy_init;
	__typeof__(&curl_easy_setopt) curl_easy_setopt;
	__typeof__(&curl_easy_perform) curl_easy_perform;
	__typeof__(&curl_easy_getinfo) curl_easy_getinfo;
	__typeof__(&curl_easy_cleanup) curl_easy_cleanup;
	__typeof__(&curl_easy_strerror) curl_easy_strerror;
	__typeof__(&curl_url) curl_url;
	__typeof__(&curl_url_set) curl_url_set;
	__typeof__(&curl_url_get) curl_url_get;
	__typeof__(&curl_url_cleanup) curl_url_cleanup;
	__typeof__(&curl_free) curl_free;
} cu;
static const struct dl_sym go_curl_syms[] = {
	DL_SYM(cu, curl_global_init), DL_SYM(cu, curl_easy_init), DL_SYM(cu, curl_easy_setopt),
	DL_SYM(cu, curl_easy_perform), DL_SYM(cu, curl_easy_getinfo),
	DL_SYM(cu, curl_easy_cleanup), DL_SYM(cu, curl_easy_strerror), DL_SYM(cu, curl_url),
	DL_SYM(cu, curl_url_set), DL_SYM(cu, curl_url_get), DL_SYM(cu, curl_url_cleanup),
	DL_SYM(cu, curl_free),
};
#define curl_global_init (*cu.curl_global_init)
#define curl_easy_init (*cu.curl_easy_init)
/* curl.h's own three-argument wrappers of these two give way to the table's. */
#undef curl_easy_setopt
#undef curl_easy_getinfo
#define curl_easy_setopt (*cu.curl_easy_setopt)
#define curl_easy_perform (*cu.curl_easy_perform)
#define curl_easy_getinfo (*cu.curl_easy_getinfo)
#define curl_easy_cleanup (*cu.curl_easy_cleanup)
#define curl_easy_strerror (*cu.curl_easy_strerror)
#define curl_url (*cu.curl_url)
#define curl_url_set (*cu.curl_url_set)
#define curl_url_get (*cu.curl_url_get)
#define curl_url_cleanup (*cu.curl_url_cleanup)
#define curl_free (*cu.curl_free)

int go_curl_ready(void)
{
	return dl_load(&go_curl_lib, go_curl_syms, sizeof(go_curl_syms) / sizeof(go_curl_syms[0]));
}

int go_curl_missing(const char *who)
{
	return dl_missing(who, &go_curl_lib);
}
#endif

/* What one reply may be, in all, and the MemStats block within it. */
#define GO_REPLY_MAX (64u << 20)
#define GO_BLOCK_MAX 16384u
/* A line of the block is kept to this many bytes (PauseNs, PauseEnd are longer). */
#define GO_LINE_MAX 256u

/* ---- the URL ---- */

#if PMAPS_WITH_CURL
static const char memstats_header[] = "# runtime.MemStats";
static const char pprof_path[] = "/debug/pprof/heap";
static const char pprof_query[] = "debug=1";

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
	CURLU *u;
	char *scheme = NULL, *host = NULL, *path = NULL, *user = NULL, *password = NULL;
	char *full = NULL;
	char npath[1024], given[1024];
	const char *pp;
	int rc = -EINVAL;
	size_t n;

	if (go_curl_ready() < 0) {
		snprintf(why, whysz, "--go-pprof needs %s", go_curl_lib.why);
		return -ENOSYS;
	}
	if (!(u = curl_url())) {
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

/* ---- the request ---- */

/* A reply as it streams in: only the MemStats block is kept. */
struct go_fetch {
	uint64_t total;        /* bytes received */
	int over;              /* past GO_REPLY_MAX */
	char line[GO_LINE_MAX];
	size_t llen;           /* of the line so far, to GO_LINE_MAX (the rest is not kept) */
	int lcut;              /* the line passed GO_LINE_MAX */
	char block[GO_BLOCK_MAX];
	size_t blen;
	int in_block;
	int block_over;        /* the block passed GO_BLOCK_MAX */
	const struct books_opts *o; /* the read's options: its quit */
};

/* The line in F->line (its first GO_LINE_MAX bytes), ended by a newline or the reply's end. */
static void go_fetch_line(struct go_fetch *f, int terminated)
{
	static const char cut[] = " (cut)";
	const char *s = f->line;
	size_t n = f->llen;

	if (!f->lcut && n == sizeof(memstats_header) - 1 && memcmp(s, memstats_header, n) == 0) {
		/* A later header starts the block over: the parser takes the last. */
		f->in_block = 1;
		f->block_over = 0;
		f->blen = 0;
	} else if (!f->in_block) {
		return;
	} else if (n < 2 || s[0] != '#' || s[1] != ' ') {
		f->in_block = 0; /* the block's end, as the parser sees it */
		return;
	}
	if (f->blen + n + sizeof(cut) > sizeof(f->block)) {
		f->block_over = 1;
		return;
	}
	memcpy(f->block + f->blen, s, n);
	f->blen += n;
	if (f->lcut) {
		/* No figure's line parses with this after its number: refused, never misread. */
		memcpy(f->block + f->blen, cut, sizeof(cut) - 1);
		f->blen += sizeof(cut) - 1;
	}
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
			f->lcut = 0;
		} else if (f->llen < sizeof(f->line)) {
			f->line[f->llen++] = c;
		} else {
			f->lcut = 1;
		}
	}
	return n;
}

static pthread_once_t go_curl_once = PTHREAD_ONCE_INIT;
static CURLcode go_curl_init_rc = CURLE_FAILED_INIT;

static void go_curl_init(void)
{
	go_curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

/* libcurl loaded and initialised (once): 0, or -1 with H's why. */
static int go_curl_start(struct pmaps_book_head *h)
{
	if (go_curl_ready() < 0) {
		go_why(h, "%s", go_curl_lib.why);
		return -1;
	}
	pthread_once(&go_curl_once, go_curl_init);
	if (go_curl_init_rc != CURLE_OK) {
		go_why(h, "libcurl: %s", curl_easy_strerror(go_curl_init_rc));
		return -1;
	}
	return 0;
}

/* curl's progress call: non-zero ends the transfer (a watch that ends). */
static int go_progress(void *arg, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
	const struct go_fetch *f = arg;

	(void)dt, (void)dn, (void)ut, (void)un;
	return books_quit(f->o);
}

/*
 * GET URL and parse it into B's Go book. Returns 0, or -1 with the head's
 * why set (the URL first: which server said it).
 */
static int go_fetch_url(struct pmaps_books *b, const char *url, unsigned timeout_ms,
                        const struct books_opts *o)
{
	struct pmaps_book_head *h = &b->head[PMAPS_BOOK_GO];
	struct go_fetch *f = calloc(1, sizeof(*f));
	char errbuf[CURL_ERROR_SIZE], why[192];
	CURL *c;
	CURLcode rc;
	long status = 0;
	int ret = -1;

	snprintf(h->source, sizeof(h->source), "%s", url);
	if (!f || !(c = curl_easy_init())) {
		go_why(h, "%s: out of memory", url);
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
	if (rc == CURLE_OK || rc == CURLE_WRITE_ERROR)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	if (f->over || rc == CURLE_FILESIZE_EXCEEDED) {
		go_why(h, "%s: the reply passed %u MiB: not read", url, GO_REPLY_MAX >> 20);
	} else if (rc == CURLE_ABORTED_BY_CALLBACK) {
		go_why(h, "%s: stopped before the reply (the watch ended)", url);
	} else if (rc == CURLE_OPERATION_TIMEDOUT) {
		go_why(h, "%s: timed out after %u ms", url, timeout_ms);
	} else if (rc == CURLE_COULDNT_CONNECT) {
		long oserr = 0;
		char eb[128];
		curl_easy_getinfo(c, CURLINFO_OS_ERRNO, &oserr);
		if (oserr == ECONNREFUSED)
			go_why(h, "%s: connection refused", url);
		else
			go_why(h, "%s: cannot connect: %s", url,
			       oserr ? strerror_r((int)oserr, eb, sizeof(eb)) : errbuf);
	} else if (rc != CURLE_OK) {
		go_why(h, "%s: %s", url, errbuf[0] ? errbuf : curl_easy_strerror(rc));
	} else if (status >= 300 && status < 400) {
		char *to = NULL;
		curl_easy_getinfo(c, CURLINFO_REDIRECT_URL, &to);
		go_why(h, "%s: HTTP %ld, redirected to %s: not followed", url, status,
		       to ? to : "(no Location)");
	} else if (status != 200) {
		go_why(h, "%s: HTTP %ld", url, status);
	} else {
		/* The last line, if the reply did not end with a newline. */
		if (f->llen > 0 || f->lcut)
			go_fetch_line(f, 0);
		if (f->block_over) {
			go_why(h, "%s: the MemStats block passed %u bytes: not a Go MemStats dump", url,
			       GO_BLOCK_MAX);
		} else if (pmaps_books_parse(b, PMAPS_BOOK_GO, f->block, f->blen, why,
		                             sizeof(why)) < 0) {
			go_why(h, "%s: %s", url, why);
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
	char *hst = NULL, *p = NULL;
	int rc = -1;

	if (u && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_HOST, &hst, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_PORT, &p, CURLU_DEFAULT_PORT) == CURLUE_OK) {
		snprintf(host, hostsz, "%s", hst);
		*port = strtol(p, NULL, 10);
		rc = 0;
	}
	curl_free(hst);
	curl_free(p);
	curl_url_cleanup(u);
	return rc;
}

/*
 * Whether the loopback URL's port is one the process listens on: else the
 * server is another process's, whose books joined to this one's would be
 * wrong and look exact. 0 when it is (or the URL is not loopback:
 * --allow-remote, or under --proc-root: the user's word), else -1 with H's why.
 */
static int go_url_is_pids(struct pmaps_book_head *h, const struct books_opts *o,
                          struct pmaps_proc *proc, const char *url)
{
	struct pmaps_listener ls[16];
	char why[256], host[256];
	long port;
	int n;

	/* Under another proc tree this loopback is not the process's: the user's word stands. */
	if ((o->root && strcmp(o->root, "/proc") != 0) ||
	    go_url_port(url, host, sizeof(host), &port) < 0 || !go_host_loopback(host))
		return 0;
	n = pmaps_books_go_listeners(proc, ls, 16, why, sizeof(why));
	for (int i = 0; i < n; i++)
		if ((long)ls[i].port == port)
			return 0;
	snprintf(h->source, sizeof(h->source), "%s", url);
	go_why(h, "%s: process %d does not listen on port %ld (%s): the server is another "
	       "process's, whose books are not this one's", url, pmaps_proc_pid(proc), port,
	       n < 0 ? why : n == 0 ? "it listens on no loopback port" : "its loopback ports differ");
	return -1;
}

#else /* !PMAPS_WITH_CURL: a build without libcurl reads no Go books */

static const char go_curl_off[] =
	"this pmaps was built without libcurl (PMAPS_WITH_CURL=OFF): no Go books";

int go_curl_ready(void)
{
	return -1;
}

int go_curl_missing(const char *who)
{
	die_msg("%s: %s", who, go_curl_off);
	return EXIT_FAIL;
}

int book_go_url(char *dst, size_t dstsz, const char *url, int allow_remote, char *why,
                size_t whysz)
{
	(void)url, (void)allow_remote;
	if (dstsz)
		dst[0] = '\0';
	snprintf(why, whysz, "--go-pprof: %s", go_curl_off);
	return -ENOSYS;
}

static int go_curl_start(struct pmaps_book_head *h)
{
	go_why(h, "%s", go_curl_off);
	return -1;
}

static int go_fetch_url(struct pmaps_books *b, const char *url, unsigned timeout_ms,
                        const struct books_opts *o)
{
	(void)url, (void)timeout_ms, (void)o;
	go_why(&b->head[PMAPS_BOOK_GO], "%s", go_curl_off);
	return -1;
}

static int go_url_is_pids(struct pmaps_book_head *h, const struct books_opts *o,
                          struct pmaps_proc *proc, const char *url)
{
	(void)o, (void)proc, (void)url;
	go_why(h, "%s", go_curl_off);
	return -1;
}
#endif /* PMAPS_WITH_CURL */

void book_go_read(struct pmaps_books *b, const struct books_opts *o, struct pmaps_proc *proc)
{
	struct pmaps_book_head *h = &b->head[PMAPS_BOOK_GO];
	struct pmaps_listener ls[4];
	char why[256], url[PMAPS_BOOK_SOURCE];
	unsigned timeout = o->timeout_ms ? o->timeout_ms : BOOKS_TIMEOUT_MS;
	uint64_t t0 = now_ns();
	int n;

	h->asked = 1;
	h->ok = 0;
	h->why[0] = '\0';
	pmaps_books_go_env(b, proc);
	/* libcurl is loaded (go_curl_start()) when there is a server to ask, not before. */
	if (o->go_url) {
		if (go_curl_start(h) < 0) {
			snprintf(h->source, sizeof(h->source), "%s", o->go_url);
		} else if (book_go_url(url, sizeof(url), o->go_url, o->allow_remote, why,
		                       sizeof(why)) < 0) {
			go_why(h, "%s", why);
			snprintf(h->source, sizeof(h->source), "%s", o->go_url);
		} else if (go_url_is_pids(h, o, proc, url) == 0) {
			go_fetch_url(b, url, timeout, o);
		}
	} else if (o->root && strcmp(o->root, "/proc") != 0) {
		/*
		 * Another proc tree (a host's, a capture): its loopback is not
		 * this one's, and a server here would answer for another process.
		 */
		go_why(h, "under --proc-root a Go program's listeners are not asked: name its "
		       "server with --go-pprof");
	} else if ((n = pmaps_books_go_listeners(proc, ls, 4, why, sizeof(why))) <= 0) {
		if (n == 0) /* what would make it serve them */
			go_why(h, "%s: a program serves its books with net/http/pprof, or name the "
			       "server with --go-pprof", why);
		else if (n == -EXDEV)
			go_why(h, "%s (give --go-pprof a URL that reaches it from here)", why);
		else
			go_why(h, "%s", why);
	} else if (go_curl_start(h) < 0) {
		snprintf(h->source, sizeof(h->source), "%s", ls[0].url);
	} else {
		/* The first that serves the page; else the first's failure. */
		char first[PMAPS_BOOK_WHY] = "the watch ended before the books were asked",
		     first_src[PMAPS_BOOK_SOURCE] = "";
		for (int i = 0; i < n && !h->ok && !books_quit(o); i++) {
			go_fetch_url(b, ls[i].url, timeout, o);
			if (!h->ok && i == 0) {
				memcpy(first, h->why, sizeof(first));
				memcpy(first_src, h->source, sizeof(first_src));
			}
		}
		if (!h->ok) {
			memcpy(h->why, first, sizeof(first));
			memcpy(h->source, first_src, sizeof(first_src));
			if (n > 1) {
				size_t l = strlen(h->why);
				snprintf(h->why + l, sizeof(h->why) - l, " (and %d other listener%s)", n - 1,
				         n > 2 ? "s" : "");
			}
		}
	}
	if (h->ok)
		h->why[0] = '\0';
	book_stamp(h, t0);
}
