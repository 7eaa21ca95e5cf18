/* SPDX-License-Identifier: MIT */
/*
 * serve_http.c - pmaps serve's HTTP daemon, on libmicrohttpd (0.9.75, the
 * Debian 12 version).
 *
 * The daemon polls with epoll on --threads threads (MHD's thread pool);
 * every request is answered by serve_route() on the thread that read it,
 * in one piece, from a buffer. What a client can do is bounded by MHD
 * itself:
 *   - connections: --max-connections (MHD_OPTION_CONNECTION_LIMIT, shared
 *     among the threads): a thread at its share stops accepting, so a new
 *     connection waits in the listen backlog (one that slips through is
 *     closed by MHD at once);
 *   - time: a connection idle for --timeout is closed
 *     (MHD_OPTION_CONNECTION_TIMEOUT);
 *   - size: each connection has a memory pool of max_request and 2 KiB
 *     (MHD_OPTION_CONNECTION_MEMORY_LIMIT; see POOL_EXTRA); a request line
 *     or headers that do not fit are answered by MHD 0.9.75 with 414 or
 *     431 and the connection is closed. A request body is never read: a
 *     request that announces one is answered as soon as its headers are
 *     in, and MHD closes the connection after the reply.
 * Only GET and HEAD are answered (HEAD: MHD sends the headers of the same
 * reply, with its Content-Length, and no body); any other method gets 405
 * and "Allow: GET, HEAD".
 *
 * The listening socket is bound here rather than by MHD, so that a failure
 * names its errno exactly (MHD logs it but does not return it).
 *
 * Signals: SIGINT and SIGTERM are blocked before MHD starts its threads
 * (which inherit the mask) and taken by sigwaitinfo() on the calling
 * thread; SIGPIPE is ignored (MHD sends with MSG_NOSIGNAL; this is the
 * belt to those braces).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "serve.h"
#include "tool.h"

/*
 * What a connection's memory pool holds besides the request's head: MHD's
 * record of each header (about 50 bytes each) and the reply's status line
 * and headers (under 600 bytes with the page's Content-Security-Policy),
 * written where the request was. Measured with MHD 0.9.75 and the default
 * 16 KiB: a head of up to 17.8 KiB is answered, one of 17.9 to 18.2 KiB
 * finds no room left for the reply's headers and is closed unanswered, a
 * longer one gets 431 (414 for a request line that long). Many small
 * headers reach the limit sooner (3000 of them get 431).
 */
#define POOL_EXTRA (2u * 1024)

/* The web page's policy: nothing from anywhere but this server and itself. */
static const char page_csp[] =
	"default-src 'none'; script-src 'unsafe-inline' 'self'; style-src 'unsafe-inline'; "
	"img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; "
	"frame-ancestors 'none'";
/* Every other reply (JSON, text, SVG) runs nothing and embeds nothing. */
static const char data_csp[] = "default-src 'none'; frame-ancestors 'none'";

/* One request, from its request line (uri_log) to its end (completed). */
struct request {
	int seen;      /* the handler was called (with the headers) */
	int answered;  /* a reply is queued */
	int has_query; /* the URI had a '?' */
	char query[];  /* the raw query after '?' (still %-encoded) */
};

/*
 * MHD's own messages. A client that vanishes, times out, sends garbage or
 * finds the server full is routine for a server on a network: those
 * messages (MHD 0.9.75's, matched by their beginning) say nothing. Anything
 * else is a failure of this server (memory, threads, descriptors) and is
 * said once per kind, escaped (a message may quote a client's URL).
 *
 * The kind is MHD's format string; but MHD closes connections through one
 * function that logs its static reason with "%s\n", so for a format that is
 * only "%s" the kind is the message. The connection's memory pool is the
 * client's to exhaust ("out of memory" there is a request too large), not
 * the process's.
 */
static const char *const routine[] = {
	"Socket has been disconnected when reading request",
	"Connection socket is closed when reading request",
	"Connection was closed by remote side",
	"Failed to send data in request for",
	"Failed to send the response headers for the request",
	"Failed to send the response body for the request",
	"Failed to send the chunked response body",
	"Failed to send the footers",
	"Failed to push the data from buffers to the network",
	"Error processing request (HTTP response code is",
	"Received HTTP/1.1 request without `Host' header",
	"Too large value of 'Content-Length' header",
	"Failed to parse `Content-Length' header",
	"Server reached connection limit",
	"Not enough memory in pool to",
	"Closing connection (out of memory)",
	"Closing connection (failed to create response header)",
	"Too late to send an error response",
	"Too late for error response",
	"Setting %s option to %s state failed",
};

/*
 * MHD's words for accept() failing for want of descriptors or memory: one
 * kind, said once with the way out.
 */
static const char accept_error[] = "Error accepting connection: ";
static const char accept_limit[] = "Hit process or system resource limit";

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static char logged[16][80]; /* the kinds said already (their beginnings) */
static unsigned nlogged;

static int is_routine(const char *kind)
{
	size_t i;

	for (i = 0; i < sizeof(routine) / sizeof(routine[0]); i++)
		if (strncmp(kind, routine[i], strlen(routine[i])) == 0)
			return 1;
	return 0;
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	const struct serve *sv = cls;
	char msg[512];
	const char *kind;
	size_t n, i;
	int said = 0, full;
	struct rlimit nofile;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	n = strlen(msg);
	while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == '\r' || msg[n - 1] == '.'))
		msg[--n] = '\0';
	/*
	 * Never the message when the format has text of its own: a client's
	 * URL in it must not pass for a routine message.
	 */
	kind = strncmp(fmt, "%s", 2) == 0 && fmt[2 + strspn(fmt + 2, "\n")] == '\0' ? msg : fmt;
	if (is_routine(kind))
		return;
	full = strncmp(kind, accept_error, sizeof(accept_error) - 1) == 0 ||
	       strncmp(kind, accept_limit, sizeof(accept_limit) - 1) == 0;
	if (full)
		kind = accept_limit;
	pthread_mutex_lock(&log_lock);
	for (i = 0; i < nlogged && !said; i++)
		said = strncmp(logged[i], kind, sizeof(logged[i]) - 1) == 0;
	if (!said && nlogged < sizeof(logged) / sizeof(logged[0])) {
		n = strnlen(kind, sizeof(logged[0]) - 1);
		memcpy(logged[nlogged], kind, n);
		logged[nlogged++][n] = '\0';
	}
	pthread_mutex_unlock(&log_lock);
	if (said)
		return;
	if (!full) {
		die_msg("serve: %s", msg);
		return;
	}
	if (getrlimit(RLIMIT_NOFILE, &nofile) < 0)
		nofile.rlim_cur = RLIM_INFINITY;
	die_msg("serve: cannot accept more connections (%s) with --max-connections %u and a limit "
	        "of %llu open files: lower the one or raise the other (ulimit -n)",
	        strncmp(msg, accept_error, sizeof(accept_error) - 1) == 0
	                ? msg + sizeof(accept_error) - 1
	                : "out of descriptors or memory",
	        sv->o.max_connections, (unsigned long long)nofile.rlim_cur);
}

/*
 * The request line's URI, before MHD takes the query apart: the query is
 * kept raw for serve_route(). Its return is the request's *req_cls; MHD
 * hands it to completed() even when the request never reaches the handler
 * (headers too large, a malformed request), so it is always freed.
 */
static void *uri_log(void *cls, const char *uri, struct MHD_Connection *c)
{
	const char *q = strchr(uri, '?');
	size_t n = q ? strlen(q + 1) : 0;
	struct request *r;

	(void)cls;
	(void)c;
	r = malloc(sizeof(*r) + n + 1);
	if (!r)
		return NULL; /* the handler refuses the request */
	r->seen = 0;
	r->answered = 0;
	r->has_query = q != NULL;
	if (q)
		memcpy(r->query, q + 1, n);
	r->query[n] = '\0';
	return r;
}

static void completed(void *cls, struct MHD_Connection *c, void **req_cls,
                      enum MHD_RequestTerminationCode toe)
{
	(void)cls;
	(void)c;
	(void)toe;
	free(*req_cls);
	*req_cls = NULL;
}

/* Adds a header; 0, or -1 when MHD could not (out of memory, bad bytes). */
static int header(struct MHD_Response *resp, const char *name, const char *value)
{
	return MHD_add_response_header(resp, name, value) == MHD_YES ? 0 : -1;
}

/* Queues R (and frees its body). Returns MHD_YES, or MHD_NO to drop the connection. */
static enum MHD_Result send_reply(struct MHD_Connection *c, struct serve_reply *r)
{
	struct MHD_Response *resp;
	const char *type = r->content_type ? r->content_type : "application/octet-stream";
	enum MHD_Result ret;
	int bad = 0;

	if (r->body && r->len > 0) {
		resp = MHD_create_response_from_buffer(r->len, r->body, MHD_RESPMEM_MUST_FREE);
		if (!resp)
			free(r->body);
	} else {
		free(r->body);
		resp = MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
	}
	r->body = NULL;
	if (!resp)
		return MHD_NO;
	bad |= header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	bad |= header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	bad |= header(resp, "X-Content-Type-Options", "nosniff");
	bad |= header(resp, "Referrer-Policy", "no-referrer");
	bad |= header(resp, "Content-Security-Policy",
	              strncmp(type, "text/html", 9) == 0 ? page_csp : data_csp);
	if (r->allow)
		bad |= header(resp, MHD_HTTP_HEADER_ALLOW, r->allow);
	ret = bad ? MHD_NO : MHD_queue_response(c, r->status ? r->status : 500, resp);
	MHD_destroy_response(resp);
	return ret;
}

/*
 * MHD calls this once the headers are in, then again when the request is
 * complete (and for each piece of a body in between, which is never asked
 * for here). Every reply is queued from a buffer in one piece.
 */
static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version,
                              const char *upload_data, size_t *upload_data_size,
                              void **req_cls)
{
	struct serve *sv = cls;
	struct request *rq = *req_cls;
	struct serve_reply r;
	const char *accept;

	(void)version;
	(void)upload_data;
	if (!rq)
		return MHD_NO; /* no memory for the request: drop the connection */
	if (rq->answered) {
		*upload_data_size = 0; /* a body after the reply: not wanted */
		return MHD_YES;
	}
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0) {
		rq->answered = 1;
		serve_reply_text(&r, 405, "method not allowed: only GET and HEAD");
		r.allow = "GET, HEAD";
		return send_reply(c, &r);
	}
	/*
	 * A GET without a body is answered on the second call, when MHD has
	 * the whole request: answered on the first, MHD 0.9.75 closes the
	 * connection after the reply, and a scraper would reconnect each time.
	 * With a body (which a GET has no use for) the reply goes at once and
	 * the body is never read.
	 */
	if (!rq->seen && !MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH) &&
	    !MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING)) {
		rq->seen = 1;
		return MHD_YES;
	}
	if (*upload_data_size)
		return MHD_NO; /* a body no header announced: cannot be */
	rq->answered = 1;
	accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
	serve_route(sv, url, rq->has_query ? rq->query : NULL, accept, &r);
	return send_reply(c, &r);
}

/* "127.0.0.1:9743" or "[::1]:9743" for the address SA (its real port). */
static void addr_text(const struct sockaddr_storage *sa, char *buf, size_t bufsz)
{
	char host[INET6_ADDRSTRLEN];

	if (sa->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)sa;
		if (!inet_ntop(AF_INET6, &s6->sin6_addr, host, sizeof(host)))
			snprintf(host, sizeof(host), "?");
		snprintf(buf, bufsz, "[%s]:%u", host, (unsigned)ntohs(s6->sin6_port));
	} else {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)sa;
		if (!inet_ntop(AF_INET, &s4->sin_addr, host, sizeof(host)))
			snprintf(host, sizeof(host), "?");
		snprintf(buf, bufsz, "%s:%u", host, (unsigned)ntohs(s4->sin_port));
	}
}

/*
 * Raises the soft limit of open files towards what CONNS connections and
 * the reading of /proc need (Debian's soft limit is 1024; the hard one is
 * far higher), never past the hard limit: beyond it, mhd_log() says so.
 */
static void raise_nofile(unsigned conns)
{
	struct rlimit r;
	rlim_t want = (rlim_t)conns + 64;

	if (getrlimit(RLIMIT_NOFILE, &r) < 0 || r.rlim_cur == RLIM_INFINITY || r.rlim_cur >= want)
		return;
	r.rlim_cur = r.rlim_max == RLIM_INFINITY || r.rlim_max > want ? want : r.rlim_max;
	setrlimit(RLIMIT_NOFILE, &r);
}

/* A bound, listening socket for SV's address; -1 with the message said. */
static int listen_socket(const struct serve *sv)
{
	int fd, one = 1, e;

	fd = socket(sv->o.addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		goto fail;
	/* A restarted server binds while its last connections sit in TIME_WAIT. */
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0)
		goto fail;
	/* [::] means IPv6 only: 0.0.0.0 is asked for by its own name. */
	if (sv->o.addr.ss_family == AF_INET6 &&
	    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) < 0)
		goto fail;
	if (bind(fd, (const struct sockaddr *)&sv->o.addr, sv->o.addrlen) < 0 ||
	    listen(fd, SOMAXCONN) < 0)
		goto fail;
	return fd;
fail:
	e = errno;
	if (fd >= 0)
		close(fd);
	die_msg("serve: cannot listen on %s: %s", sv->o.listen, strerror(e));
	return -1;
}

int serve_http_run(struct serve *sv)
{
	struct MHD_Daemon *d;
	struct sockaddr_storage bound;
	socklen_t boundlen = sizeof(bound);
	struct sigaction ign;
	sigset_t stop, old;
	char where[INET6_ADDRSTRLEN + 16];
	unsigned threads = sv->o.threads ? sv->o.threads : 1;
	unsigned conns = sv->o.max_connections ? sv->o.max_connections : 1;
	/* MHD_USE_ERROR_LOG: without it MHD says nothing, not even to mhd_log(). */
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ERROR_LOG;
	size_t maxreq, pool;
	int fd, sig;

	/* MHD splits the connections among the threads: each needs one. */
	if (threads > conns)
		threads = conns;
	maxreq = sv->o.max_request ? sv->o.max_request : 16 * 1024;
	pool = maxreq > SIZE_MAX - POOL_EXTRA ? SIZE_MAX : maxreq + POOL_EXTRA;

	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGPIPE, &ign, NULL);
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	if (pthread_sigmask(SIG_BLOCK, &stop, &old) != 0) {
		die_msg("serve: cannot block SIGINT and SIGTERM");
		return EXIT_FAIL;
	}

	raise_nofile(conns);
	fd = listen_socket(sv);
	if (fd < 0) {
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		return EXIT_FAIL;
	}
	if (getsockname(fd, (struct sockaddr *)&bound, &boundlen) < 0) {
		die_msg("serve: cannot listen on %s: %s", sv->o.listen, strerror(errno));
		close(fd);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		return EXIT_FAIL;
	}
	if (bound.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;

	/*
	 * The thread pool's size comes last: for one thread it is not given
	 * (MHD would warn that a pool of 1 is no pool), MHD_OPTION_END in its
	 * place ending the list.
	 */
	d = MHD_start_daemon(flags, 0, NULL, NULL, handle, sv,
	                     MHD_OPTION_EXTERNAL_LOGGER, mhd_log, sv,
	                     MHD_OPTION_LISTEN_SOCKET, fd,
	                     MHD_OPTION_CONNECTION_LIMIT, conns,
	                     MHD_OPTION_CONNECTION_TIMEOUT, sv->o.timeout_s,
	                     MHD_OPTION_CONNECTION_MEMORY_LIMIT, pool,
	                     MHD_OPTION_URI_LOG_CALLBACK, uri_log, NULL,
	                     MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
	                     threads > 1 ? MHD_OPTION_THREAD_POOL_SIZE : MHD_OPTION_END, threads,
	                     MHD_OPTION_END);
	if (!d) {
		/* MHD has said why through mhd_log() (unless it was routine-worded). */
		die_msg("serve: cannot start the HTTP daemon on %s", sv->o.listen);
		/* Whether MHD closed the socket on its way out depends on where it failed. */
		if (fcntl(fd, F_GETFD) >= 0)
			close(fd);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		return EXIT_FAIL;
	}
	addr_text(&bound, where, sizeof(where));
	fprintf(stderr, "pmaps serve: listening on http://%s/\n", where);
	fflush(stderr);

	do
		sig = sigwaitinfo(&stop, NULL);
	while (sig < 0 && errno == EINTR);

	/*
	 * Waits for the threads, each finishing the request it is answering,
	 * and closes the listening socket (MHD's now). SIGINT and SIGTERM stay
	 * blocked: a second one during the stop must not turn a clean exit
	 * into a kill.
	 */
	MHD_stop_daemon(d);
	return EXIT_OK;
}
