/* SPDX-License-Identifier: MIT */
/*
 * serve_http.c - pmaps serve's HTTP daemon, on libmicrohttpd (0.9.75, the
 * Debian 12 version).
 *
 * The daemon polls with epoll on --threads threads (MHD's thread pool);
 * every request is answered by serve_route() on the thread that read it,
 * in one piece, from a buffer. What a client can do is bounded by MHD
 * itself:
 *   - connections: --max-connections at once. MHD takes half as many
 *     again (MHD_OPTION_CONNECTION_LIMIT, shared among the threads), and
 *     each connection past --max-connections evicts the one that has
 *     waited longest for a request's head (evict()): a flood of idle or
 *     slow connections cannot leave a scrape in the listen queue. Past
 *     MHD's limit a thread stops accepting (a new connection waits in the
 *     backlog; one that slips through is closed by MHD at once);
 *   - time: a connection idle for --timeout is closed
 *     (MHD_OPTION_CONNECTION_TIMEOUT). That is only an idle timeout in MHD
 *     0.9.75: a client sending a byte of its request head every few
 *     seconds would hold its connection for ever, and --max-connections
 *     such clients the whole server. So each connection is also timed here
 *     from where it waits for a request (its start, or the end of its last
 *     request): a request head not complete after --timeout, or a head and
 *     its reply not done after REPLY_TIMEOUTS times --timeout, and the
 *     connection is shut down (the main thread looks every TICK_MS; MHD
 *     then closes it as closed by the client). See struct conn. A client
 *     that stops reading its reply is idle to MHD; one that reads slowly
 *     but steadily (it frees room in the socket's buffer, MHD sends more)
 *     is not, and only the reply's deadline ends it;
 *   - clients: on an address other than loopback, one client address may
 *     hold a quarter of --max-connections, at least PER_IP_MIN
 *     (MHD_OPTION_PER_IP_CONNECTION_LIMIT; MHD closes its others at once).
 *     On loopback every client is 127.0.0.1 or ::1, and this would only
 *     lower --max-connections;
 *   - memory: the replies queued and not yet taken by their clients hold
 *     at most INFLIGHT_CAP bytes together; a reply that would pass it is
 *     answered 503 instead (see struct held);
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
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/dl.h"
#include "common/tool.h"
#include "serve/serve.h"

/* libmicrohttpd, opened by serve alone (dl.h): no other command maps it. */
DL_NOTE(serve_mhd_note, "[{\"feature\":\"serve\",\"description\":\"pmaps serve: the "
                        "Prometheus exporter and the web page\",\"priority\":\"recommended\","
                        "\"soname\":[\"libmicrohttpd.so.12\"]}]");
static struct dl_lib serve_mhd_lib = {
	.soname = "libmicrohttpd.so.12", .package = "libmicrohttpd12",
};
static struct {
	__typeof__(&MHD_start_daemon) MHD_start_daemon;
	__typeof__(&MHD_stop_daemon) MHD_stop_daemon;
	__typeof__(&MHD_get_connection_info) MHD_get_connection_info;
	__typeof__(&MHD_lookup_connection_value) MHD_lookup_connection_value;
	__typeof__(&MHD_get_connection_values) MHD_get_connection_values;
	__typeof__(&MHD_create_response_from_buffer) MHD_create_response_from_buffer;
	__typeof__(&MHD_create_response_from_buffer_with_free_callback_cls)
		MHD_create_response_from_buffer_with_free_callback_cls;
	__typeof__(&MHD_add_response_header) MHD_add_response_header;
	__typeof__(&MHD_queue_response) MHD_queue_response;
	__typeof__(&MHD_destroy_response) MHD_destroy_response;
	__typeof__(&MHD_suspend_connection) MHD_suspend_connection;
	__typeof__(&MHD_resume_connection) MHD_resume_connection;
} mhd;
static const struct dl_sym serve_mhd_syms[] = {
	DL_SYM(mhd, MHD_start_daemon), DL_SYM(mhd, MHD_stop_daemon),
	DL_SYM(mhd, MHD_get_connection_info), DL_SYM(mhd, MHD_lookup_connection_value),
	DL_SYM(mhd, MHD_get_connection_values),
	DL_SYM(mhd, MHD_create_response_from_buffer),
	DL_SYM(mhd, MHD_create_response_from_buffer_with_free_callback_cls),
	DL_SYM(mhd, MHD_add_response_header), DL_SYM(mhd, MHD_queue_response),
	DL_SYM(mhd, MHD_destroy_response),
	DL_SYM(mhd, MHD_suspend_connection), DL_SYM(mhd, MHD_resume_connection),
};
#define MHD_start_daemon (*mhd.MHD_start_daemon)
#define MHD_stop_daemon (*mhd.MHD_stop_daemon)
#define MHD_get_connection_info (*mhd.MHD_get_connection_info)
#define MHD_lookup_connection_value (*mhd.MHD_lookup_connection_value)
#define MHD_get_connection_values (*mhd.MHD_get_connection_values)
#define MHD_create_response_from_buffer (*mhd.MHD_create_response_from_buffer)
#define MHD_create_response_from_buffer_with_free_callback_cls \
	(*mhd.MHD_create_response_from_buffer_with_free_callback_cls)
#define MHD_add_response_header (*mhd.MHD_add_response_header)
#define MHD_queue_response (*mhd.MHD_queue_response)
#define MHD_destroy_response (*mhd.MHD_destroy_response)
#define MHD_suspend_connection (*mhd.MHD_suspend_connection)
#define MHD_resume_connection (*mhd.MHD_resume_connection)

int serve_http_load(void)
{
	if (dl_load(&serve_mhd_lib, serve_mhd_syms,
	            sizeof(serve_mhd_syms) / sizeof(serve_mhd_syms[0])) < 0)
		return dl_missing("serve", &serve_mhd_lib);
	return EXIT_OK;
}

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

/*
 * A reply waits in memory until its client has read it (or gone): an
 * explain or a picture may be up to 64 MiB, and 256 clients that never
 * read would pin 16 GiB. The replies in flight together stay under this;
 * past it a request gets 503 until clients read or go. 256 MiB holds four
 * of the largest replies and thousands of ordinary ones (/metrics of a
 * thousand processes is about 1 MiB).
 */
#define INFLIGHT_CAP ((size_t)256 << 20)

/*
 * The deadlines, counted from where a connection waits for a request:
 * --timeout for the request's head, REPLY_TIMEOUTS times --timeout for the
 * head and the reply (one minute by default: time for a 64 MiB reply at
 * about 1 MiB/s; a slower client holds a connection others may wait for).
 * The main thread looks every TICK_MS: a deadline is kept to within that.
 */
#define REPLY_TIMEOUTS 6u
#define TICK_MS 500
/* Non-loopback: what one client address may hold, at least. */
#define PER_IP_MIN 4u
/* What MHD may hold past --max-connections, at least (see evict()). */
#define EVICT_ROOM_MIN 16u
/*
 * Requests for a process's own reading (/api/process/...) wait for the
 * reader thread in a queue this long; past it they get 503 with
 * Retry-After. One reading takes up to seconds (a picture of 60,000
 * mappings: 7 s): the daemon's threads, which answer /metrics, never wait
 * for one.
 */
#define COSTLY_QUEUE 8u

/*
 * A connection, from MHD's NOTIFY_STARTED to its NOTIFY_CLOSED (its socket
 * context), on the list of struct http. MHD closes the socket only after
 * NOTIFY_CLOSED, which unlinks it under http.lock: while the main thread
 * holds the lock and finds a connection on the list, its FD is the
 * connection's and open, so a shutdown() never hits a descriptor reused
 * for something else.
 */
enum conn_phase { CONN_HEAD, CONN_REPLY };
struct conn {
	struct conn *prev, *next;
	int fd;
	enum conn_phase phase;  /* waiting for a request's head, or answering it */
	uint64_t since_ns;      /* when it began waiting for this request (CLOCK_MONOTONIC) */
	int cut;                /* shut down by the deadline */
};

/* The daemon's state besides MHD's: the handler's and the callbacks' CLS. */
struct http {
	struct serve *sv;
	pthread_mutex_t lock;   /* CONNS and INFLIGHT */
	/*
	 * The open connections, the one that began waiting last first: the
	 * list's tail has waited longest (see evict()).
	 */
	struct conn *conns, *tail;
	unsigned open;          /* connections on the list */
	unsigned cuts;          /* of them, shut down and not yet closed by MHD */
	unsigned keep;          /* --max-connections: more are evicted */
	size_t inflight;        /* bytes of the replies MHD holds */
	size_t inflight_cap;
	uint64_t head_ns;       /* --timeout */
	uint64_t reply_ns;      /* REPLY_TIMEOUTS times that */
	struct serve_hosts hosts; /* the Host and Origin requests may name */
	/* The reader thread and its queue (under LOCK): see struct job. */
	pthread_t reader;
	pthread_cond_t work;
	struct job *jobs, *jobs_tail;
	unsigned njobs;
	int stopping;           /* the reader ends once the queue is empty */
};

/* A reply's body while MHD holds it, counted in http.inflight. */
struct held {
	struct http *h;
	char *body;
	size_t len;
	size_t cap;     /* BODY's room (serve_body_free()) */
};

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
	int queued;    /* handed to the reader thread, its connection suspended */
	int ready;     /* the reader's REPLY is made, the connection resumed */
	struct serve_reply reply;
	int has_query; /* the URI had a '?' */
	/*
	 * What MHD's decoding of the URI hides from the handler: "%00" (MHD
	 * cuts the path there) and "%2F" in the path (a '/' that separates
	 * nothing): each gets 400.
	 */
	const char *bad_uri;
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

static void mhd_log(void *cls, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
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
	r->queued = 0;
	r->ready = 0;
	memset(&r->reply, 0, sizeof(r->reply));
	r->has_query = q != NULL;
	r->bad_uri = NULL;
	for (const char *p = uri; (p = strchr(p, '%')) != NULL; p++) {
		if (p[1] == '0' && p[2] == '0') {
			r->bad_uri = "bad request: an encoded NUL (%00) in the URL";
			break;
		}
		if ((!q || p < q) && p[1] == '2' && (p[2] == 'f' || p[2] == 'F'))
			r->bad_uri = "bad request: an encoded '/' (%2F) in the path";
	}
	if (q)
		memcpy(r->query, q + 1, n);
	r->query[n] = '\0';
	return r;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* C's connection record, or NULL (none could be allocated: it is being cut). */
static struct conn *conn_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return ci ? ci->socket_context : NULL;
}

/* K off H's list (under H's lock). */
static void conn_unlink(struct http *h, struct conn *k)
{
	if (k->prev)
		k->prev->next = k->next;
	else
		h->conns = k->next;
	if (k->next)
		k->next->prev = k->prev;
	else
		h->tail = k->prev;
	k->prev = k->next = NULL;
}

/* K at the head of H's list: it began waiting now (under H's lock). */
static void conn_push(struct http *h, struct conn *k)
{
	k->prev = NULL;
	k->next = h->conns;
	if (h->conns)
		h->conns->prev = k;
	else
		h->tail = k;
	h->conns = k;
}

/* C enters PHASE: a head is in (CONN_REPLY), or a request ended (CONN_HEAD: the clock restarts). */
static void conn_phase(struct http *h, struct MHD_Connection *c, enum conn_phase phase)
{
	struct conn *k = conn_of(c);

	if (!k)
		return;
	pthread_mutex_lock(&h->lock);
	if (phase == CONN_HEAD) {
		k->since_ns = now_ns();
		conn_unlink(h, k);
		conn_push(h, k);
	}
	k->phase = phase;
	pthread_mutex_unlock(&h->lock);
}

/*
 * A new connection past --max-connections (MHD takes a share more, so that
 * one is never left in the listen queue behind a flood): the connections
 * that have waited longest for a request's head are shut down until the
 * rest fit. A client that opens connections and sends nothing (or a byte
 * at a time) thus holds none for long once others come; a scraper's
 * request, sent as soon as it connects, is answered. A connection whose
 * request is being answered is never evicted. Under H's lock.
 */
static void evict(struct http *h, const struct conn *fresh)
{
	struct conn *k = h->tail;

	while (h->open - h->cuts > h->keep && k) {
		int unread = 0;
		/*
		 * Bytes in its socket that MHD has not read yet: a request on its
		 * way in (a scraper's, sent whole as it connected), not a wait.
		 */
		if (k != fresh && !k->cut && k->phase == CONN_HEAD &&
		    (ioctl(k->fd, FIONREAD, &unread) < 0 || unread == 0)) {
			shutdown(k->fd, SHUT_RDWR);
			k->cut = 1;
			h->cuts++;
		}
		k = k->prev;
	}
}

/*
 * NOTIFY_STARTED and NOTIFY_CLOSED: the connection's record in and out of
 * the list. One that cannot be recorded cannot be timed, so it is not
 * served: shut down at once (MHD closes it and still notifies its end).
 */
static void notify_conn(void *cls, struct MHD_Connection *c, void **socket_context,
                        enum MHD_ConnectionNotificationCode toe)
{
	struct http *h = cls;
	struct conn *k;
	const union MHD_ConnectionInfo *ci;

	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
		k = ci ? malloc(sizeof(*k)) : NULL;
		*socket_context = k;
		if (!k) {
			if (ci)
				shutdown(ci->connect_fd, SHUT_RDWR);
			return;
		}
		k->fd = ci->connect_fd;
		k->phase = CONN_HEAD;
		k->since_ns = now_ns();
		k->cut = 0;
		pthread_mutex_lock(&h->lock);
		conn_push(h, k);
		h->open++;
		evict(h, k);
		pthread_mutex_unlock(&h->lock);
		return;
	}
	k = *socket_context;
	if (!k)
		return;
	pthread_mutex_lock(&h->lock);
	conn_unlink(h, k);
	h->open--;
	if (k->cut)
		h->cuts--;
	pthread_mutex_unlock(&h->lock);
	free(k);
	*socket_context = NULL;
}

/*
 * The main thread's look at the clock: every connection past its deadline
 * is shut down (both ways: MHD sees the end as a client's and closes it).
 */
static void cut_late(struct http *h)
{
	struct conn *k;
	uint64_t now = now_ns();

	pthread_mutex_lock(&h->lock);
	for (k = h->conns; k; k = k->next)
		if (!k->cut && now - k->since_ns > (k->phase == CONN_HEAD ? h->head_ns : h->reply_ns)) {
			shutdown(k->fd, SHUT_RDWR);
			k->cut = 1;
			h->cuts++;
		}
	pthread_mutex_unlock(&h->lock);
}

static void completed(void *cls, struct MHD_Connection *c, void **req_cls,
                      enum MHD_RequestTerminationCode toe)
{
	struct request *rq = *req_cls;

	(void)toe;
	conn_phase(cls, c, CONN_HEAD);
	if (rq)
		free(rq->reply.body); /* a reader's reply never sent (NULL once it is) */
	free(*req_cls);
	*req_cls = NULL;
}

/* MHD is done with a reply's body: freed and counted back. */
static void release(void *cls)
{
	struct held *b = cls;
	struct http *h = b->h;

	pthread_mutex_lock(&h->lock);
	h->inflight -= b->len;
	pthread_mutex_unlock(&h->lock);
	serve_body_free(b->body, b->cap);
	free(b);
}

/*
 * Counts LEN bytes in flight: 0, or -1 when they would pass the cap (FORCE:
 * counted anyway, for the small 503 that says so).
 */
static int take(struct http *h, size_t len, int force)
{
	int ret = 0;

	pthread_mutex_lock(&h->lock);
	if (!force && (len > h->inflight_cap || h->inflight > h->inflight_cap - len))
		ret = -1;
	else
		h->inflight = len > SIZE_MAX - h->inflight ? SIZE_MAX : h->inflight + len;
	pthread_mutex_unlock(&h->lock);
	return ret;
}

/* Adds a header; 0, or -1 when MHD could not (out of memory, bad bytes). */
static int header(struct MHD_Response *resp, const char *name, const char *value)
{
	return MHD_add_response_header(resp, name, value) == MHD_YES ? 0 : -1;
}

/*
 * Queues R (and frees its body). Returns MHD_YES, or MHD_NO to drop the
 * connection. A body that would pass the cap of replies in flight is
 * dropped for a 503 that says so.
 */
static enum MHD_Result send_reply(struct http *h, struct MHD_Connection *c, struct serve_reply *r)
{
	struct MHD_Response *resp = NULL;
	const char *type;
	enum MHD_Result ret;
	struct held *b;
	int bad = 0, force = 0;

	if (r->body && r->len > 0 && take(h, r->len, 0) < 0) {
		free(r->body);
		serve_reply_text(r, 503, "busy: too many replies wait for their clients to read them; try again");
		force = 1;
	}
	if (r->body && r->len > 0) {
		if (force)
			take(h, r->len, 1);
		b = malloc(sizeof(*b));
		if (b) {
			b->h = h;
			b->body = r->body;
			b->len = r->len;
			b->cap = r->cap;
			resp = MHD_create_response_from_buffer_with_free_callback_cls(r->len, r->body,
			                                                              release, b);
		}
		if (!resp) {
			/* Not MHD's: counted back and freed here. */
			pthread_mutex_lock(&h->lock);
			h->inflight -= r->len;
			pthread_mutex_unlock(&h->lock);
			free(r->body);
			free(b);
		}
	} else {
		free(r->body);
		resp = MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
	}
	r->body = NULL;
	if (!resp)
		return MHD_NO;
	type = r->content_type ? r->content_type : "application/octet-stream";
	bad |= header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	bad |= header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	bad |= header(resp, "X-Content-Type-Options", "nosniff");
	bad |= header(resp, "Referrer-Policy", "no-referrer");
	bad |= header(resp, "Content-Security-Policy",
	              strncmp(type, "text/html", 9) == 0 ? page_csp : data_csp);
	if (r->allow)
		bad |= header(resp, MHD_HTTP_HEADER_ALLOW, r->allow);
	if (force || r->retry_after)
		bad |= header(resp, MHD_HTTP_HEADER_RETRY_AFTER, "1");
	ret = bad ? MHD_NO : MHD_queue_response(c, r->status ? r->status : 500, resp);
	MHD_destroy_response(resp);
	return ret;
}

/* Counts the request's Host headers (MHD_get_connection_values()'s iterator). */
static enum MHD_Result count_host(void *cls, enum MHD_ValueKind kind, const char *key,
                                  const char *value)
{
	(void)kind;
	(void)value;
	if (strcasecmp(key, MHD_HTTP_HEADER_HOST) == 0)
		++*(unsigned *)cls;
	return MHD_YES;
}

/*
 * The request's Host, Origin and URI, checked before any route (DNS
 * rebinding: serve_host.h). Returns 1 with the refusal in R, else 0.
 */
static int refuse(struct http *h, struct MHD_Connection *c, const char *url, const char *version,
                  const struct request *rq, struct serve_reply *r)
{
	const char *host, *origin;
	unsigned hosts = 0;

	if (rq->bad_uri) {
		serve_reply_text(r, 400, rq->bad_uri);
		return 1;
	}
	MHD_get_connection_values(c, MHD_HEADER_KIND, count_host, &hosts);
	host = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
	if (hosts > 1) {
		serve_reply_text(r, 400, "bad request: more than one Host header");
		return 1;
	}
	if (!host) {
		/* HTTP/1.0 may leave it out (RFC 9112: 1.1 must not); no browser does. */
		if (strcmp(version, MHD_HTTP_VERSION_1_0) == 0)
			return 0;
		serve_reply_text(r, 400, "bad request: no Host header (HTTP/1.1 requires one)");
		return 1;
	}
	switch (serve_host_check(&h->hosts, host)) {
	case SERVE_HOST_OK: break;
	case SERVE_HOST_BAD:
		serve_reply_text(r, 400, "bad request: the Host header is not a host[:port]");
		return 1;
	case SERVE_HOST_OTHER:
		serve_reply_text(r, 421, "misdirected request: the Host header names another server "
		                         "(pmaps serve --allow-host NAME answers to NAME)");
		return 1;
	}
	origin = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Origin");
	if (origin && strncmp(url, "/api/", 5) == 0 &&
	    serve_origin_check(&h->hosts, origin) != SERVE_HOST_OK) {
		serve_reply_text(r, 403, "forbidden: a page of another origin may not read /api/");
		return 1;
	}
	return 0;
}

/*
 * A request for a process's own reading, for the reader thread: its
 * connection is suspended (MHD leaves it alone) until the reply is made;
 * then resumed, and the handler is called again to send it.
 */
struct job {
	struct job *next;
	struct MHD_Connection *c;
	struct request *rq;     /* the reply goes in rq->reply */
	char *url, *accept;     /* copies: the connection's own may move */
};

static void job_free(struct job *j)
{
	free(j->url);
	free(j->accept);
	free(j);
}

/* The reader thread: one reading at a time, in the order asked. */
static void *reader_main(void *arg)
{
	struct http *h = arg;

	for (;;) {
		struct job *j;
		struct serve_reply r;
		int stopping;
		pthread_mutex_lock(&h->lock);
		while (!h->jobs && !h->stopping)
			pthread_cond_wait(&h->work, &h->lock);
		j = h->jobs;
		if (!j) {
			pthread_mutex_unlock(&h->lock);
			return NULL;
		}
		h->jobs = j->next;
		if (!h->jobs)
			h->jobs_tail = NULL;
		h->njobs--;
		stopping = h->stopping;
		pthread_mutex_unlock(&h->lock);
		if (stopping)
			serve_reply_text(&r, 503, "stopping: pmaps serve is shutting down");
		else
			serve_route(h->sv, j->url, j->rq->has_query ? j->rq->query : NULL, j->accept, &r);
		pthread_mutex_lock(&h->lock);
		j->rq->reply = r;
		j->rq->ready = 1;
		pthread_mutex_unlock(&h->lock);
		MHD_resume_connection(j->c);
		job_free(j);
	}
}

/* Ends the reader thread: the requests it has are answered 503 and resumed first. */
static void reader_stop(struct http *h)
{
	pthread_mutex_lock(&h->lock);
	h->stopping = 1;
	pthread_cond_signal(&h->work);
	pthread_mutex_unlock(&h->lock);
	pthread_join(h->reader, NULL);
}

/*
 * Hands the request of C (URL, ACCEPT) to the reader thread and suspends
 * C. Returns 0, or -1 when the queue is full or the server is stopping
 * (the caller answers 503).
 */
static int enqueue(struct http *h, struct MHD_Connection *c, struct request *rq, const char *url,
                   const char *accept)
{
	struct job *j = calloc(1, sizeof(*j));

	if (!j)
		return -1;
	j->c = c;
	j->rq = rq;
	j->url = strdup(url);
	j->accept = accept ? strdup(accept) : NULL;
	if (!j->url || (accept && !j->accept)) {
		job_free(j);
		return -1;
	}
	pthread_mutex_lock(&h->lock);
	if (h->stopping || h->njobs >= COSTLY_QUEUE) {
		pthread_mutex_unlock(&h->lock);
		job_free(j);
		return -1;
	}
	/* Suspended before the reader can see it, so that its resume finds it so. */
	rq->queued = 1;
	MHD_suspend_connection(c);
	if (h->jobs_tail)
		h->jobs_tail->next = j;
	else
		h->jobs = j;
	h->jobs_tail = j;
	h->njobs++;
	pthread_cond_signal(&h->work);
	pthread_mutex_unlock(&h->lock);
	return 0;
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
	struct http *h = cls;
	struct request *rq = *req_cls;
	struct serve_reply r;
	const char *accept;
	int ready;

	(void)upload_data;
	if (!rq)
		return MHD_NO; /* no memory for the request: drop the connection */
	if (rq->answered) {
		*upload_data_size = 0; /* a body after the reply: not wanted */
		return MHD_YES;
	}
	if (rq->queued) {
		/* Resumed: the reader's reply is made (it is set before the resume). */
		pthread_mutex_lock(&h->lock);
		ready = rq->ready;
		pthread_mutex_unlock(&h->lock);
		if (!ready)
			return MHD_YES;
		rq->answered = 1;
		r = rq->reply;
		memset(&rq->reply, 0, sizeof(rq->reply));
		return send_reply(h, c, &r);
	}
	/* The head is in: from here the connection has the reply's deadline. */
	conn_phase(h, c, CONN_REPLY);
	/* Before anything else: a request that does not name this server gets nothing. */
	if (refuse(h, c, url, version, rq, &r)) {
		rq->answered = 1;
		return send_reply(h, c, &r);
	}
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0) {
		rq->answered = 1;
		serve_reply_text(&r, 405, "method not allowed: only GET and HEAD");
		r.allow = "GET, HEAD";
		return send_reply(h, c, &r);
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
	accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
	if (strncmp(url, "/api/", 5) == 0) {
		/* A process's own reading, or a refresh: the reader thread's, never this one's. */
		if (enqueue(h, c, rq, url, accept) == 0)
			return MHD_YES;
		rq->answered = 1;
		serve_reply_text(&r, 503, "busy: other processes' readings are waiting; try again");
		r.retry_after = 1;
		return send_reply(h, c, &r);
	}
	rq->answered = 1;
	serve_route(h->sv, url, rq->has_query ? rq->query : NULL, accept, &r);
	return send_reply(h, c, &r);
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

/*
 * The cap of replies in flight: INFLIGHT_CAP, or for tests only (to reach
 * it with a few replies) the bytes in PMAPS_SERVE_INFLIGHT_CAP, read once.
 * Not an option: nobody needs to tune it, and no user is told of it.
 */
static size_t inflight_cap(void)
{
	const char *e = getenv("PMAPS_SERVE_INFLIGHT_CAP");
	size_t v = 0;

	if (!e || !*e)
		return INFLIGHT_CAP;
	for (; *e >= '0' && *e <= '9'; e++) {
		if (v > (SIZE_MAX - 9) / 10)
			return INFLIGHT_CAP;
		v = v * 10 + (size_t)(*e - '0');
	}
	return *e || v == 0 ? INFLIGHT_CAP : v;
}

int serve_http_run(struct serve *sv)
{
	struct MHD_Daemon *d;
	struct http h;
	struct timespec tick = {0, TICK_MS * 1000000L};
	struct sockaddr_storage bound;
	socklen_t boundlen = sizeof(bound);
	struct sigaction ign;
	sigset_t stop, old;
	char where[INET6_ADDRSTRLEN + 16];
	unsigned threads = sv->o.threads ? sv->o.threads : 1;
	unsigned conns = sv->o.max_connections ? sv->o.max_connections : 1;
	/* MHD_USE_ERROR_LOG: without it MHD says nothing, not even to mhd_log(). */
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ERROR_LOG |
	                 MHD_ALLOW_SUSPEND_RESUME;
	size_t maxreq, pool;
	int fd, sig, e;
	struct MHD_OptionItem opt[3];
	unsigned nopt = 0;
	/* Non-loopback: a quarter of the connections for one client address. */
	unsigned per_ip = conns / 4 > PER_IP_MIN ? conns / 4 : PER_IP_MIN;
	/*
	 * MHD may hold EVICT_ROOM more than --max-connections: the new
	 * connections that evict() makes room for, and those it shut down
	 * that MHD has not closed yet.
	 */
	unsigned mhd_conns = conns + (conns / 2 > EVICT_ROOM_MIN ? conns / 2 : EVICT_ROOM_MIN);

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

	raise_nofile(mhd_conns);
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

	memset(&h, 0, sizeof(h));
	h.sv = sv;
	pthread_mutex_init(&h.lock, NULL);
	h.inflight_cap = inflight_cap();
	pthread_cond_init(&h.work, NULL);
	h.keep = conns;
	h.hosts.addr = bound;
	h.hosts.port = bound.ss_family == AF_INET6
	                       ? ntohs(((const struct sockaddr_in6 *)&bound)->sin6_port)
	                       : ntohs(((const struct sockaddr_in *)&bound)->sin_port);
	h.hosts.loopback = sv->o.loopback;
	h.hosts.wildcard =
		bound.ss_family == AF_INET6
			? IN6_IS_ADDR_UNSPECIFIED(&((const struct sockaddr_in6 *)&bound)->sin6_addr)
			: ((const struct sockaddr_in *)&bound)->sin_addr.s_addr == htonl(INADDR_ANY);
	h.hosts.names = sv->o.allow_hosts;
	h.hosts.nnames = sv->o.nallow;
	h.head_ns = (uint64_t)(sv->o.timeout_s ? sv->o.timeout_s : 10) * 1000000000u;
	h.reply_ns = h.head_ns * REPLY_TIMEOUTS;

	/*
	 * The options given only when wanted, in an array at the end: the
	 * per-address limit (not on loopback) and the thread pool's size (not
	 * for one thread: MHD would warn that a pool of 1 is no pool).
	 */
	if (!sv->o.loopback)
		opt[nopt++] = (struct MHD_OptionItem){MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip, NULL};
	if (threads > 1)
		opt[nopt++] = (struct MHD_OptionItem){MHD_OPTION_THREAD_POOL_SIZE, threads, NULL};
	opt[nopt] = (struct MHD_OptionItem){MHD_OPTION_END, 0, NULL};
	/*
	 * The reader thread before the daemon (signals blocked, as the
	 * daemon's threads): a request queued for it must find it there.
	 */
	if ((e = pthread_create(&h.reader, NULL, reader_main, &h)) != 0) {
		die_msg("serve: cannot start the reader thread: %s", strerror(e));
		close(fd);
		pthread_cond_destroy(&h.work);
		pthread_mutex_destroy(&h.lock);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		return EXIT_FAIL;
	}
	d = MHD_start_daemon(flags, 0, NULL, NULL, handle, &h,
	                     MHD_OPTION_EXTERNAL_LOGGER, mhd_log, sv,
	                     MHD_OPTION_LISTEN_SOCKET, fd,
	                     MHD_OPTION_CONNECTION_LIMIT, mhd_conns,
	                     MHD_OPTION_CONNECTION_TIMEOUT, sv->o.timeout_s,
	                     MHD_OPTION_CONNECTION_MEMORY_LIMIT, pool,
	                     MHD_OPTION_URI_LOG_CALLBACK, uri_log, NULL,
	                     MHD_OPTION_NOTIFY_COMPLETED, completed, &h,
	                     MHD_OPTION_NOTIFY_CONNECTION, notify_conn, &h,
	                     MHD_OPTION_ARRAY, opt,
	                     MHD_OPTION_END);
	if (!d) {
		/* MHD has said why through mhd_log() (unless it was routine-worded). */
		die_msg("serve: cannot start the HTTP daemon on %s", sv->o.listen);
		/* Whether MHD closed the socket on its way out depends on where it failed. */
		if (fcntl(fd, F_GETFD) >= 0)
			close(fd);
		reader_stop(&h);
		pthread_cond_destroy(&h.work);
		pthread_mutex_destroy(&h.lock);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		return EXIT_FAIL;
	}
	addr_text(&bound, where, sizeof(where));
	fprintf(stderr, "pmaps serve: listening on http://%s/\n", where);
	fflush(stderr);
	/* Every selected process read once, while /metrics answers 503 (serve_run() stops it). */
	serve_warm_start(sv);

	/* The stop signal, and between times the deadlines. */
	do {
		sig = sigtimedwait(&stop, NULL, &tick);
		e = errno;
		if (sig < 0)
			cut_late(&h);
	} while (sig < 0 && (e == EAGAIN || e == EINTR));

	/*
	 * Waits for the threads, each finishing the request it is answering,
	 * and closes the listening socket (MHD's now). SIGINT and SIGTERM stay
	 * blocked: a second one during the stop must not turn a clean exit
	 * into a kill.
	 */
	/*
	 * The reader first: the requests waiting for it are answered 503 and
	 * their connections resumed (MHD must stop none suspended), and no new
	 * one is queued.
	 */
	reader_stop(&h);
	MHD_stop_daemon(d);
	pthread_cond_destroy(&h.work);
	pthread_mutex_destroy(&h.lock);
	return EXIT_OK;
}
