/* SPDX-License-Identifier: MIT */
/*
 * serve.h - pmaps serve: a Prometheus/OpenMetrics exporter and a live web
 * page over HTTP (libmicrohttpd).
 *
 *   serve_reply.c   text replies, documents rendered into bodies, the lock
 *   serve.c         the command: options, the collector (a survey of the
 *                   selected processes with a breakdown by category, kept
 *                   for --min-interval), the routes, /metrics
 *   serve_http.c    the HTTP daemon: libmicrohttpd, GET and HEAD only,
 *                   bounded requests, connections and time
 *   serve_api.c     the JSON endpoints and the address-space picture
 *   serve_page.html the web page, served from memory (serve_page.c is
 *                   generated from it at build time)
 *
 * Threads: the daemon answers on a few threads. The collector is behind
 * SV->lock (one refresh at a time; a request that finds the figures fresh
 * enough reads them under the same lock). A process's explain or picture
 * is read under SV->costly, one at a time, never under SV->lock.
 */
#ifndef PMAPS_SERVE_H
#define PMAPS_SERVE_H

#include <pthread.h>
#include <regex.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "serve/serve_host.h"
#include "survey/top.h"

#define SERVE_PORT 9743

/* serve_opts.group_by */
enum serve_group {
	SERVE_BY_PID, SERVE_BY_COMM, SERVE_BY_CMDLINE,
	SERVE_BY_CONTAINER, SERVE_BY_POD, SERVE_BY_UNIT /* from the cgroup path (serve_cgroup.c) */
};

struct serve_opts {
	const char *listen;            /* --listen as given (for messages) */
	struct sockaddr_storage addr;  /* where to listen */
	socklen_t addrlen;
	int loopback;                  /* ADDR is a loopback address */
	struct top_opts top;           /* the selection, --budget, --max-age, --proc-root */
	enum serve_group group_by;     /* --group-by */
	regex_t cmdline;               /* --group-by cmdline:REGEX */
	uint64_t min_interval_ns;      /* --min-interval: figures are kept this long */
	unsigned max_connections;      /* --max-connections */
	unsigned timeout_s;            /* a connection idle this long is closed */
	unsigned threads;              /* the daemon's threads */
	size_t max_request;            /* bytes of a request's headers */
	const char *allow_hosts[SERVE_ALLOW_MAX]; /* --allow-host (serve_host.h) */
	unsigned nallow;
	/*
	 * --ready-timeout: at start, every selected process is read once
	 * (refreshes back to back, each within --budget) for at most this
	 * long before /metrics answers with figures; 0: no warm-up.
	 */
	uint64_t ready_timeout_ns;
	/*
	 * The memory cgroups: CGROUP_ROOT (--cgroup-root; NULL: /sys/fs/cgroup),
	 * read for at most MAX_CGROUPS cgroups (--max-cgroups) a refresh; none
	 * with NO_CGROUPS (--no-cgroups).
	 */
	const char *cgroup_root;
	unsigned max_cgroups;
	int no_cgroups;
	/* --books: ask this often (0: never) for at most BOOKS_MAX processes' books */
	uint64_t books_interval_ns;
	unsigned books_max;
};

/* What a route answers: the HTTP layer sends it and frees BODY. */
struct serve_reply {
	unsigned status;               /* 200, 400, 404, 405, 413, 500, 503 */
	const char *content_type;      /* a static string */
	char *body;                    /* malloc()ed (or NULL when LEN is 0) */
	size_t len;
	size_t cap;                    /* BODY's room: serve_body_free() may keep it */
	const char *allow;             /* 405: the Allow header's value; else NULL */
	int retry_after;               /* 503: "Retry-After: 1" */
};

/*
 * The server's state. serve_api.c may read TOP (under LOCK, after
 * serve_fresh()) and OPTS; the rest is serve.c's.
 */
struct serve_groups;
struct serve_cgroups;
struct serve_books;
struct serve {
	struct serve_opts o;
	pthread_mutex_t lock;          /* the collector: TOP and what follows */
	struct top top;                /* the survey and the selection, in pid order */
	uint64_t refreshed_ns;         /* when TOP was refreshed (CLOCK_MONOTONIC; 0: never) */
	uint64_t refreshed_real_ns;    /* the same moment, CLOCK_REALTIME */
	uint64_t scrapes;              /* /metrics answered */
	size_t metrics_len;            /* the last /metrics answer's size: the next one's room */
	/*
	 * Each process's labels of the answer being written, escaped once for
	 * its dozen families: LEN[i] bytes at BUF + OFF[i] (LEN[i] 0: written
	 * each time). Kept from answer to answer (new room each time would be
	 * new pages to fault in). Under LOCK.
	 */
	struct serve_plabels {
		char *buf;
		size_t cap, n;
		uint32_t *off;
		uint16_t *len;
	} plabels;
	struct serve_groups *groups;   /* --group-by: the groups of the last refresh */
	struct serve_cgroups *cgroups; /* the memory cgroups and the machine's counters (or NULL) */
	struct serve_books *books;     /* --books: the runtime's books asked (or NULL) */
	pthread_mutex_t costly;        /* one explain or picture at a time */
	/*
	 * The collector thread (serve_collector_start()): while scrapes come
	 * (one within SERVE_ACTIVE_S), it refreshes the figures every
	 * --min-interval, and a scrape is answered from them; one that finds a
	 * refresh under way gets the last answer of its format. So a scrape
	 * waits for a refresh only when none came for SERVE_ACTIVE_S (the
	 * first, or after a pause). Under COLLECT.
	 */
	pthread_mutex_t collect;
	pthread_cond_t kick;           /* on CLOCK_MONOTONIC */
	pthread_t collector;
	int collector_on, kicked, stopping;
	uint64_t scraped_ns;           /* the last scrape (0: none yet) */
	char *last[2];                 /* the last /metrics answers: text, OpenMetrics */
	size_t last_len[2], last_cap[2];
	uint64_t last_gen[2];          /* the refresh (refreshed_ns) each was written from */
	uint64_t done_gen;             /* the last refresh done whole (atomic: read without LOCK) */
	int root;                      /* the reader is root */
	uint64_t max_map_count;        /* /proc/sys/vm/max_map_count at start (0: unknown) */
	uint64_t boot_ns;              /* /proc/stat's btime, ns since the epoch (0: unknown) */
	/*
	 * The warm-up (serve_warm_start()): its thread, and WARM, set (with
	 * __atomic) once it has ended: every selected process read, the
	 * --ready-timeout passed, or serve stopping. /metrics answers 503
	 * before. WARM_UNREAD (under LOCK): the processes it left unread.
	 */
	pthread_t warmer;
	int warmer_on, warm, warm_stop;
	uint64_t warm_ns;              /* what it took (monotonic ns) */
	size_t warm_refreshes, warm_unread;
	int ready;                     /* every selected process read once (under LOCK) */
};

/* ---- /metrics (serve.c): what the writers of its families share ---- */

struct out;
struct mctx {
	struct serve *sv;
	int om;          /* OpenMetrics */
	uint64_t now;    /* when the scrape is answered (monotonic ns) */
};

/* A family's HELP, TYPE (and UNIT in OpenMetrics); UNIT NULL: none. */
void serve_family(struct out *o, const struct mctx *m, const char *name, const char *type,
                  const char *unit, const char *help);
/* A label value: the text escape for the target's bytes, then the exposition's. */
void serve_label(struct out *o, const char *s, size_t n);
/* "} V\n": the end of a sample whose labels are open. */
void serve_sample_end(struct out *o, uint64_t v);
/* Seconds from nanoseconds, with 9 decimals at most. */
void serve_seconds(struct out *o, uint64_t ns);

/* ---- the memory cgroups and the machine's counters (serve_cgroup.c) ---- */

/*
 * Opens the memory cgroup hierarchy under --cgroup-root into SV->cgroups
 * (said once on stderr where there is none: the cgroup families are then
 * left out). Returns 0, -1 out of memory, or -2 when --cgroup-root names
 * no memory hierarchy (said).
 */
int serve_cgroups_open(struct serve *sv);
void serve_cgroups_close(struct serve *sv);
/*
 * After a refresh of TOP: the cgroups that hold a selected process and
 * their ancestors (the root excepted: it is the machine), read again;
 * /proc/vmstat and the memory PSI too. Under LOCK.
 */
void serve_cgroups_refresh(struct serve *sv);
/* Their families (serve.c's write_metrics()). */
void serve_cgroups_write(struct serve *sv, struct out *o, const struct mctx *m);
/* The process's cgroup labels (cgroup, container_id, pod_uid, qos, unit) after ",". */
void serve_cgroup_labels(struct serve *sv, struct out *o, const struct pmaps_survey_row *row);
/*
 * The --group-by container|pod|unit key of ROW into KEY (ROOM bytes):
 * its length, 0 for a process in none.
 */
size_t serve_cgroup_key(enum serve_group by, const struct pmaps_survey_row *row, char *key,
                        size_t room);

/* ---- --books: the runtime's books beside RSS (serve_books.c) ---- */

/*
 * With --books, the thread that asks for them (started before the daemon,
 * it first waits an interval; stopped before the collector). Returns 0, or
 * -1 (said).
 */
int serve_books_start(struct serve *sv);
void serve_books_stop(struct serve *sv);
/*
 * The books' families for TOP's lines (under LOCK), each sample's process
 * labels from LABELS(SV, O, line index), left open for more.
 */
void serve_books_write(struct serve *sv, struct out *o, const struct mctx *m,
                       void (*labels)(struct serve *, struct out *, size_t));

/* While a scrape came within this, the collector keeps the figures fresh. */
#define SERVE_ACTIVE_S 120u

/* The collector thread: started before the daemon, stopped after it (serve.c). */
int serve_collector_start(struct serve *sv);
void serve_collector_stop(struct serve *sv);

/*
 * The warm-up thread: started once the daemon listens (it holds LOCK
 * through each refresh), stopped (joined) after it. Without
 * --ready-timeout there is none: serve_run() marks the server warm first.
 */
int serve_warm_start(struct serve *sv);
void serve_warm_stop(struct serve *sv);
/* Whether the warm-up has ended. */
int serve_warm(const struct serve *sv);
/*
 * The selected processes whose costly figures were never read (left by
 * the budget, or a large process's first walk under way): status figures
 * only. Neither denied ones (no privilege will come) nor failed ones (said
 * apart) count. Under LOCK.
 */
size_t serve_unread(const struct serve *sv);

/* The longest a request waits for another's refresh before it answers 503. */
#define SERVE_LOCK_WAIT_S 10
/*
 * Takes SV->lock within SERVE_LOCK_WAIT_S (another request's refresh: its
 * budget and one gentle walk at most). Returns 0, or -ETIMEDOUT: answer
 * 503.
 */
int serve_lock(struct serve *sv);

/*
 * Refreshes SV->top when its figures are older than --min-interval (or
 * never read). The caller holds SV->lock. Returns 0, or -1 with a one-line
 * message in MSG (the proc root could not be listed).
 */
int serve_fresh(struct serve *sv, char *msg, size_t msgsz);

/*
 * Answers a GET (or HEAD: the same answer, whose body the HTTP layer does
 * not send) of URL (the path, without the query), QUERY (the raw query
 * string after '?', or NULL) and the request's Accept header (or NULL).
 * Always fills R (status 500 with a one-line text body when even that
 * fails); never blocks on SV->lock longer than one refresh.
 */
void serve_route(struct serve *sv, const char *url, const char *query, const char *accept,
                 struct serve_reply *r);

/* The room a document gets first, and the most it may take. */
#define SERVE_BODY_FIRST (64u * 1024u)
#define SERVE_BODY_MAX (256u * 1024u * 1024u)
/*
 * Writes a document with FILL(O, CTX) into a memory sink and hands it to R
 * (BODY, LEN; the status and type are the caller's): when the sink fills,
 * again into one twice as large, from room for HINT bytes (the last such
 * answer's size, or 0) up to SERVE_BODY_MAX. Returns 0, or -ENOBUFS (it
 * would pass SERVE_BODY_MAX), -ENOMEM, another errno of the sink, with R
 * untouched.
 */
int serve_render(struct serve_reply *r, void (*fill)(struct out *o, const void *ctx),
                 const void *ctx, size_t hint);

/* A reply whose body is the text MSG and a newline, with STATUS (text/plain). */
void serve_reply_text(struct serve_reply *r, unsigned status, const char *msg);
/*
 * Room for a body of at least WANT bytes (its size in *CAP): the kept room
 * of an earlier large body where it fits, else malloc()ed. NULL without
 * memory. serve_body_free() keeps large room for the next, or frees it;
 * free() of such a body is right too.
 */
char *serve_body_alloc(size_t want, size_t *cap);
void serve_body_free(char *body, size_t cap);

/*
 * The HTTP daemon (serve_http.c): listens on SV's address, answers through
 * serve_route() until SIGINT or SIGTERM. Returns an exit code (it prints
 * one line when the address cannot be bound).
 */
int serve_http_run(struct serve *sv);
/*
 * Opens libmicrohttpd (dl.h), before serve_http_run(). Returns EXIT_OK, or
 * EXIT_FAIL once it said which library and Debian package are missing.
 */
int serve_http_load(void);

/*
 * Runs the exporter SV (its options set and checked, sv->top's name filter
 * set): opens libmicrohttpd, reads, serves until SIGINT or SIGTERM; frees
 * what the options made (the --group-by regex, the filter). Returns an exit
 * code.
 */
int serve_run(struct serve *sv);

/*
 * The JSON endpoints (serve_api.c), each into R: /api/processes, and for
 * PID /api/process/PID/explain, /api/process/PID/pages (JSON) and
 * /api/process/PID/pages.svg.
 */
void serve_api_processes(struct serve *sv, struct serve_reply *r);
void serve_api_explain(struct serve *sv, int pid, struct serve_reply *r);
void serve_api_pages(struct serve *sv, int pid, struct serve_reply *r);
/* The same, QUERY the raw query ("from=ADDRESS&limit=N", NULL: the first page). */
void serve_api_pages_query(struct serve *sv, int pid, const char *query, struct serve_reply *r);
void serve_api_pages_svg(struct serve *sv, int pid, struct serve_reply *r);

/* The web page (serve_page.c, generated from serve_page.html). */
extern const char serve_page_html[];
extern const size_t serve_page_html_len;

#endif
