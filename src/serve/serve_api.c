/* SPDX-License-Identifier: MIT */
/*
 * serve_api.c - pmaps serve's JSON endpoints and the address-space
 * picture, each the document the tool writes for the same question:
 *
 *   /api/processes              pmaps top --once --json (the collector's lines)
 *   /api/process/PID/explain    pmaps explain PID --json
 *   /api/process/PID/pages      pmaps pages PID --summary --gentle --json, a page
 *                               of mappings at a time (?from=ADDRESS&limit=N)
 *   /api/process/PID/pages.svg  pmaps pages PID --gentle --svg -
 *
 * Only the processes of the selection are answered for: a pid the
 * collector's last refresh did not select is 404, as is one that exited.
 * The refresh may be --min-interval old, and a pid may have been reused
 * since: the process opened must have the row's uid and name (status), or
 * it is another one and the row's has exited (404).
 *
 * The three per-process reads are costly (a walk of smaps or of the page
 * tables): one at a time, under SV->costly, never under SV->lock, so that
 * a scrape is never kept waiting behind a picture; a request waits for
 * another's reading COSTLY_WAIT_S at most, then is told to try again (503),
 * so that readings queued up cannot take all of the daemon's threads. An
 * explain is pmaps explain's (explain_doc.c): the library's source choice
 * (smaps, or the gentle page walk when one read of smaps would hold the
 * process's mmap_lock longer than PMAPS_EXPLAIN_HOLD_NS; the gentle walk,
 * asked, for a process the survey walks gently), and the
 * runtime's books, read right before the kernel's figures (--books-timeout
 * each request, none with --no-books). And each endpoint keeps its last answer: the same
 * process asked again within --min-interval (the open page polls its
 * explain every few seconds; two viewers double nothing) gets that answer,
 * as /metrics gets the collector's kept figures.
 *
 * Bodies: a document written through the writers (writer.h) into a memory
 * sink that is grown and written again when it fills (serve_render(), up
 * to SERVE_BODY_MAX), or, for the page walks that cannot be repeated
 * cheaply, into an anonymous memory file copied out at the end (up to
 * API_MAX). Every error is a JSON object
 * {"error": MESSAGE, "pid": PID} (MESSAGE escaped as any target byte).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "books/explain_doc.h"
#include "common/num.h"
#include "common/tool.h"
#include "serve/serve.h"
#include "write/pages_svg.h"
#include "write/writer.h"

#define KEY(o, lit) out_mem(o, lit, sizeof(lit) - 1)

/* The most a page walk's document (pages, pages.svg) may take. */
#define API_MAX (64u * 1024u * 1024u)

/* The longest a request waits for another's costly reading. */
#define COSTLY_WAIT_S 2

#define JSON_TYPE "application/json"
#define SVG_TYPE "image/svg+xml"

/* R answers STATUS with {"error": MSG} (and "pid" when PID > 0). */
static void reply_error(struct serve_reply *r, unsigned status, int pid, const char *msg)
{
	size_t n = strlen(msg), cap = 96 + 8 * n;
	struct out o;

	memset(r, 0, sizeof(*r));
	r->body = malloc(cap);
	if (!r->body) {
		serve_reply_text(r, 500, "out of memory");
		return;
	}
	/* 6 bytes a byte at most (\u00XX), or 3 (U+FFFD) and 2 of hex: the sink cannot fill. */
	out_memory(&o, r->body, cap);
	KEY(&o, "{");
	out_json_named(&o, "error", 5, msg, n);
	if (pid > 0) {
		KEY(&o, ",\"pid\":");
		out_u64(&o, (uint64_t)pid);
	}
	KEY(&o, "}\n");
	r->status = status;
	r->content_type = JSON_TYPE;
	r->len = out_kept(&o);
}

/* The HTTP status of a failed read of a process: gone, not ours to read, busy, or else. */
static unsigned err_status(int err)
{
	switch (err) {
	case -ESRCH:
		return 404;
	case -EACCES:
	case -EPERM:
		return 403;
	case -EAGAIN:  /* it kept changing while read */
	case -ESTALE:  /* it exec'd during the read */
	case -ENOMEM:
		return 503;
	default:
		return 500;
	}
}

/* A failed read of PID as R: the library's message when it has one, else the errno's. */
static void reply_failed(struct serve_reply *r, int pid, int err, const char *libmsg)
{
	char msg[1200];

	/* (ENOENT is a file this kernel or proc tree lacks: the library's message says which.) */
	if (err == -ESRCH)
		snprintf(msg, sizeof(msg), "process %d exited", pid);
	else if (libmsg && libmsg[0])
		snprintf(msg, sizeof(msg), "%s", libmsg); /* it names the privilege a denial needs */
	else
		snprintf(msg, sizeof(msg), "%s", pmaps_strerror(err)); /* so does this, for EACCES */
	reply_error(r, err_status(err), pid, msg);
}

/* A JSON document with FILL(O, CTX) into R (serve_render()). */
static int render(struct serve_reply *r, void (*fill)(struct out *o, const void *ctx),
                  const void *ctx)
{
	int err = serve_render(r, fill, ctx, 0);

	if (err == 0) {
		r->status = 200;
		r->content_type = JSON_TYPE;
	}
	return err;
}

/* The body of R after render() failed with ERR. */
static void reply_render_failed(struct serve_reply *r, int pid, int err)
{
	if (err == -ENOBUFS)
		reply_error(r, 503, pid, "the document would pass 256 MiB");
	else
		reply_error(r, err == -ENOMEM ? 503 : 500, pid, pmaps_strerror(err));
}

/*
 * Takes SV->costly, waiting COSTLY_WAIT_S at most: a request that finds
 * another reading under way longer than that is answered 503 (R filled)
 * rather than hold one of the daemon's few threads, which scrapes need.
 * Returns 0 with the lock, or -1.
 */
static int costly_lock(struct serve *sv, int pid, struct serve_reply *r)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += COSTLY_WAIT_S;
	if (pthread_mutex_timedlock(&sv->costly, &until) == 0)
		return 0;
	reply_error(r, 503, pid, "busy: another process is being read; try again");
	return -1;
}

/* ---- /api/processes ---- */

struct processes_ctx {
	const struct serve *sv;
	const char *reader;   /* the name of the user this server runs as */
	uint32_t reader_uid;
};

static void fill_processes(struct out *o, const void *ctx)
{
	const struct processes_ctx *c = ctx;
	const struct serve *sv = c->sv;
	const struct top *t = &sv->top;
	struct pmaps_survey_stats st;
	struct writer w;
	struct doc d;

	top_doc(t, &d, &st);
	d.reader = c->reader;
	d.reader_uid = c->reader_uid;
	w_begin(&w, o, FMT_JSON, &d);
	for (size_t i = 0; i < t->nlines; i++)
		w_proc(&w, &t->lines[i]);
	w_end(&w, NULL);
}

void serve_api_processes(struct serve *sv, struct serve_reply *r)
{
	struct processes_ctx c;
	char msg[256];
	int err;

	memset(r, 0, sizeof(*r));
	if (serve_lock(sv) < 0) {
		reply_error(r, 503, 0, "busy: a refresh of the figures is taking long; try again");
		return;
	}
	if (serve_fresh(sv, msg, sizeof(msg)) < 0) {
		pthread_mutex_unlock(&sv->lock);
		reply_error(r, 503, 0, msg);
		return;
	}
	/* The lines stay put while the lock is held: every try writes the same document. */
	c.sv = sv;
	c.reader_uid = (uint32_t)geteuid();
	c.reader = top_user_name(&sv->top, c.reader_uid); /* the page says whose processes it reads */
	err = render(r, fill_processes, &c);
	pthread_mutex_unlock(&sv->lock);
	if (err < 0)
		reply_render_failed(r, 0, err);
}

/* ---- a process of the selection ---- */

/* What the collector's last refresh knew of a process: who it was, how it was read. */
struct selected {
	int pid;
	uint32_t uid;              /* status Uid: (the real uid) */
	uint32_t flags;            /* PMAPS_SURVEY_* */
	enum pmaps_source source;  /* of its costly figures */
	size_t comm_len;
	char comm[64];             /* status Name:, as the survey keeps it */
};

/*
 * The name status gives PROC into NAME (SIZE bytes, NUL-terminated), as the
 * survey keeps a row's: the "Name:" line's value after one tab, the
 * kernel's \\ and \n undone, at most SIZE - 1 bytes. Name: is status's
 * first line; 512 bytes hold it whatever the kernel escaped. Returns its
 * length, or a negative errno (-ESRCH gone, -EACCES, -EBADMSG no Name:).
 */
static ssize_t status_name(struct pmaps_proc *proc, char *name, size_t size)
{
	char buf[512];
	const char *p, *nl;
	size_t n = 0;
	ssize_t got;
	int fd = openat(pmaps_proc_dirfd(proc), "status", O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	got = pread(fd, buf, sizeof(buf), 0);
	if (got < 0)
		got = errno == ENOENT ? -ESRCH : -errno;
	close(fd);
	if (got < 0)
		return got;
	nl = memchr(buf, '\n', (size_t)got);
	if (!nl || nl - buf < 5 || memcmp(buf, "Name:", 5) != 0)
		return -EBADMSG;
	p = buf + 5;
	if (p < nl && *p == '\t')
		p++;
	for (; p < nl && n < size - 1; p++) {
		char c = *p;
		if (c == '\\' && nl - p > 1 && (p[1] == '\\' || p[1] == 'n'))
			c = *++p == 'n' ? '\n' : '\\';
		name[n++] = c;
	}
	name[n] = '\0';
	return (ssize_t)n;
}

/*
 * Whether PROC, opened for SEL's pid, is the process the survey saw (its
 * row can be --min-interval old): the same real uid and the same name.
 * Returns 1, 0 for another process (the pid reused), or a negative errno.
 */
static int same_process(struct pmaps_proc *proc, const struct selected *sel)
{
	struct pmaps_status st;
	char name[sizeof(sel->comm)];
	ssize_t n;
	int err;

	memset(&st, 0, sizeof(st));
	st.size = sizeof(st);
	err = pmaps_status_read(proc, &st, NULL, 0);
	if (err < 0)
		return err;
	if ((st.present >> PMAPS_ST_UID & 1) && st.v[PMAPS_ST_UID] != sel->uid)
		return 0;
	n = status_name(proc, name, sizeof(name));
	if (n < 0)
		return (int)n;
	return (size_t)n == sel->comm_len && memcmp(name, sel->comm, sel->comm_len) == 0;
}

/*
 * Opens PID for a costly read, when it is one of the selection of the
 * collector's last refresh (refreshed first if its figures are too old)
 * and still the process that refresh saw; its row's facts into SEL.
 * Returns the handle, or NULL with R filled: 404 for a pid not selected,
 * gone or reused, 403, 503 when the survey could not be read.
 */
static struct pmaps_proc *open_selected(struct serve *sv, int pid, struct serve_reply *r,
                                        struct selected *sel)
{
	struct pmaps_proc *proc = NULL;
	char msg[256], pidstr[16];
	int found = 0, err;

	memset(sel, 0, sizeof(*sel));
	if (serve_lock(sv) < 0) {
		reply_error(r, 503, pid, "busy: a refresh of the figures is taking long; try again");
		return NULL;
	}
	err = serve_fresh(sv, msg, sizeof(msg));
	for (size_t i = 0; err == 0 && i < sv->top.nlines && !found; i++) {
		const struct pmaps_survey_row *row = sv->top.lines[i].row;
		if (!row || row->pid != pid)
			continue;
		found = 1;
		sel->pid = pid;
		sel->uid = row->uid;
		sel->flags = row->flags;
		sel->source = row->source;
		sel->comm_len = row->comm.len < sizeof(sel->comm) - 1 ? row->comm.len
		                                                       : sizeof(sel->comm) - 1;
		memcpy(sel->comm, row->comm.ptr, sel->comm_len);
	}
	pthread_mutex_unlock(&sv->lock);
	if (err < 0) {
		reply_error(r, 503, pid, msg);
		return NULL;
	}
	if (!found) {
		snprintf(msg, sizeof(msg), "process %d is not one this server shows", pid);
		reply_error(r, 404, pid, msg);
		return NULL;
	}
	snprintf(pidstr, sizeof(pidstr), "%d", pid);
	err = pmaps_proc_open(&proc, sv->o.top.root, pidstr);
	if (err == 0) {
		/* Another process under the row's pid: the row's exited (ESRCH says so). */
		err = same_process(proc, sel);
		err = err == 0 ? -ESRCH : err < 0 ? err : 0;
	}
	if (err < 0) {
		pmaps_proc_close(proc);
		reply_failed(r, pid, err, NULL);
		return NULL;
	}
	return proc;
}

/* ---- the last answer of each endpoint, kept for --min-interval ---- */

enum { KEEP_EXPLAIN, KEEP_PAGES, KEEP_SVG, KEEP_COUNT };

/*
 * A larger answer is not kept: three of them at most stay in memory
 * between requests, whatever the processes (the largest are made again).
 */
#define KEEP_MAX (8u * 1024u * 1024u)

/* An endpoint's last answer: whose (the server, the process as its row said), when, what. */
struct kept {
	const struct serve *sv;
	struct selected who;
	uint64_t at_ns;            /* when its reading began (CLOCK_MONOTONIC) */
	char *body;                /* NULL: none */
	size_t len;
	const char *content_type;
};

static struct kept kept[KEEP_COUNT];
static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;

static int same_who(const struct selected *a, const struct selected *b)
{
	return a->pid == b->pid && a->uid == b->uid && a->comm_len == b->comm_len &&
	       memcmp(a->comm, b->comm, a->comm_len) == 0;
}

/*
 * R from endpoint KIND's last answer, when it was SEL's (on SV) and is
 * younger than --min-interval. Returns 1 (R filled), or 0.
 */
static int kept_get(const struct serve *sv, int kind, const struct selected *sel,
                    struct serve_reply *r)
{
	const struct kept *k = &kept[kind];
	int hit = 0;

	if (!sv->o.min_interval_ns)
		return 0;
	pthread_mutex_lock(&kept_lock);
	if (k->body && k->sv == sv && same_who(&k->who, sel) &&
	    now_ns() - k->at_ns < sv->o.min_interval_ns) {
		char *copy = malloc(k->len ? k->len : 1);
		if (copy) {
			memcpy(copy, k->body, k->len);
			memset(r, 0, sizeof(*r));
			r->status = 200;
			r->content_type = k->content_type;
			r->body = copy;
			r->len = k->len;
			hit = 1;
		}
	}
	pthread_mutex_unlock(&kept_lock);
	return hit;
}

/* Keeps R, an answer about SEL read from AT_NS on, as endpoint KIND's last (a 200 alone). */
static void kept_put(const struct serve *sv, int kind, const struct selected *sel,
                     uint64_t at_ns, const struct serve_reply *r)
{
	struct kept *k = &kept[kind];
	char *copy;

	if (!sv->o.min_interval_ns || r->status != 200 || r->len > KEEP_MAX)
		return;
	copy = malloc(r->len ? r->len : 1);
	if (!copy)
		return;
	memcpy(copy, r->body, r->len);
	pthread_mutex_lock(&kept_lock);
	free(k->body);
	k->sv = sv;
	k->who = *sel;
	k->at_ns = at_ns;
	k->body = copy;
	k->len = r->len;
	k->content_type = r->content_type;
	pthread_mutex_unlock(&kept_lock);
}

/*
 * Takes SV->costly for a reading of SEL by endpoint KIND (costly_lock()),
 * unless the answer is kept: either way R may be filled. Returns 1 with the
 * lock (R not filled: read), or 0 (R filled: answered or busy).
 */
static int costly_begin(struct serve *sv, int kind, const struct selected *sel,
                        struct serve_reply *r)
{
	if (kept_get(sv, kind, sel, r))
		return 0;
	if (costly_lock(sv, sel->pid, r) < 0)
		return 0;
	/* The reading this one waited for may have been of the same process. */
	if (kept_get(sv, kind, sel, r)) {
		pthread_mutex_unlock(&sv->costly);
		return 0;
	}
	return 1;
}

/* ---- /api/process/PID/explain ---- */

/*
 * The document pmaps explain --json writes, read the same way (explain_doc.c):
 * the library's source choice with the survey's hold limit, the runtime's
 * books, the run right after them, and their join.
 */
static void fill_explain(struct out *o, const void *ctx)
{
	const struct explain_doc *e = ctx;
	struct writer w;
	struct doc d;

	memset(&d, 0, sizeof(d));
	explain_doc_fill(e, &d);
	w_begin(&w, o, FMT_JSON, &d);
	w_explain(&w, e->x);
	w_end(&w, NULL);
}

void serve_api_explain(struct serve *sv, int pid, struct serve_reply *r)
{
	struct explain_doc *e;
	struct explain_ask ask;
	struct books_opts bo;
	struct pmaps_proc *proc;
	struct selected sel;
	struct failure f;
	uint64_t at;
	int err;

	memset(r, 0, sizeof(*r));
	proc = open_selected(sv, pid, r, &sel);
	if (!proc)
		return;
	e = malloc(sizeof(*e)); /* large (its books): not on a daemon thread's stack */
	if (!e) {
		pmaps_proc_close(proc);
		reply_error(r, 500, pid, "out of memory");
		return;
	}
	if (!costly_begin(sv, KEEP_EXPLAIN, &sel, r)) {
		free(e);
		pmaps_proc_close(proc);
		return;
	}
	bo = sv->o.top.books;
	bo.root = sv->o.top.root;
	memset(&ask, 0, sizeof(ask));
	ask.source = PMAPS_SRC_AUTO;
	ask.limit_ns = PMAPS_EXPLAIN_HOLD_NS;
	ask.books = &bo;
	if ((sel.flags & PMAPS_SURVEY_LARGE) || sel.source == PMAPS_SRC_PAGES) {
		/*
		 * The survey walks it gently: it found one read too long, by the
		 * estimate or by a read it timed, which the estimate alone does
		 * not know. The gentle walk, asked (source_choice: "asked").
		 */
		ask.source = PMAPS_SRC_PAGES;
		ask.gentle = 1;
	}
	memset(&f, 0, sizeof(f));
	at = now_ns();
	err = explain_doc_read(e, proc, &ask, &f);
	if (err == 0)
		err = render(r, fill_explain, e);
	else
		reply_failed(r, pid, err, f.msg[0] ? f.msg : NULL);
	pthread_mutex_unlock(&sv->costly);
	if (err < 0 && !r->status)
		reply_render_failed(r, pid, err);
	kept_put(sv, KEEP_EXPLAIN, &sel, at, r);
	explain_doc_close(e);
	free(e);
	pmaps_proc_close(proc);
}

/* ---- /api/process/PID/pages and pages.svg: page walks, into a memory file ---- */

/*
 * The LEN bytes of memory file FD into R's body (TYPE). Returns 0, or a
 * negative errno (R untouched).
 */
static int reply_memfd(struct serve_reply *r, int fd, const char *type)
{
	off_t end = lseek(fd, 0, SEEK_END);
	size_t len, off = 0;
	char *buf;

	if (end < 0)
		return -errno;
	if ((uint64_t)end > API_MAX)
		return -ENOBUFS;
	len = (size_t)end;
	buf = malloc(len ? len : 1);
	if (!buf)
		return -ENOMEM;
	while (off < len) {
		ssize_t n = pread(fd, buf + off, len - off, (off_t)off);
		if (n <= 0) {
			int err = n < 0 ? -errno : -EIO;
			free(buf);
			return err;
		}
		off += (size_t)n;
	}
	r->status = 200;
	r->content_type = type;
	r->body = buf;
	r->len = len;
	return 0;
}

/* Whether what FD and O hold passes API_MAX: the walk stops there. */
static int too_large(int fd, const struct out *o)
{
	off_t at = lseek(fd, 0, SEEK_CUR);

	return at < 0 || (uint64_t)at + o->len > API_MAX;
}

/*
 * /api/process/PID/pages answers a page of mappings at a time: those that
 * end above FROM, LIMIT of them at most (default PAGES_LIMIT): 60,000
 * mappings are 20 MB of JSON, which eight clients asking at once would
 * have serve hold eight times. The document ends with "limit" and "next":
 * the FROM of the page after it, or null at the last.
 */
#define PAGES_LIMIT 4096u
#define PAGES_LIMIT_MAX 16384u

struct pages_query {
	uint64_t from;
	unsigned limit;
	int asked;       /* the query gave either: the answer is not the kept one */
};

/* QUERY ("from=0x...&limit=N", raw) into Q; 0, or -1 with MSG said. */
static int pages_query(const char *query, struct pages_query *q, const char **msg)
{
	q->from = 0;
	q->limit = PAGES_LIMIT;
	q->asked = 0;
	while (query && *query) {
		const char *amp = strchr(query, '&'), *end = amp ? amp : query + strlen(query);
		char val[32];
		size_t vl;
		uint64_t v;
		if (strncmp(query, "from=", 5) == 0 || strncmp(query, "limit=", 6) == 0) {
			int from = query[0] == 'f';
			const char *p = query + (from ? 5 : 6);
			vl = (size_t)(end - p);
			if (vl == 0 || vl >= sizeof(val)) {
				*msg = from ? "from takes an address (0x7f0000000000 or decimal)"
				            : "limit takes a number of mappings from 1 to 16384";
				return -1;
			}
			memcpy(val, p, vl);
			val[vl] = '\0';
			if (from) {
				char *e;
				errno = 0;
				v = strtoull(val, &e, strncmp(val, "0x", 2) == 0 ? 16 : 10);
				if (errno || *e || val[0] == '-' || val[0] == '+' || val[0] == ' ' ||
				    (strncmp(val, "0x", 2) == 0 && val[2] == '\0')) {
					*msg = "from takes an address (0x7f0000000000 or decimal)";
					return -1;
				}
				q->from = v;
			} else {
				if (parse_decimal(val, PAGES_LIMIT_MAX, &v) < 0 || v == 0) {
					*msg = "limit takes a number of mappings from 1 to 16384";
					return -1;
				}
				q->limit = (unsigned)v;
			}
			q->asked = 1;
		} else if (end != query) {
			*msg = "the query takes from=ADDRESS and limit=N";
			return -1;
		}
		query = amp ? amp + 1 : end;
	}
	return 0;
}

/*
 * The page summary of the mappings of PROC that Q asks for to sink O (a
 * memory file FD), as pmaps pages --summary --json writes it, walked
 * gently, with the page's "limit" and "next". Returns 0, or a negative
 * errno with the failure in F.
 */
static int pages_summary(struct pmaps_proc *proc, const struct pages_query *q, struct out *o,
                         int fd, struct failure *f)
{
	char trailer[64];
	struct pmaps_maps *maps = NULL;
	struct pmaps_pages *pg = NULL;
	const struct pmaps_mapping *m;
	struct pmaps_page_summary sum = {.size = sizeof(struct pmaps_page_summary)};
	struct writer w;
	struct doc d;
	uint64_t n = 0;
	int err, walking = 0;

	memset(&d, 0, sizeof(d));
	d.kind = DOC_SUMMARY;
	d.pid = pmaps_proc_pid(proc);
	err = pmaps_pages_open(&pg, proc, PMAPS_PAGES_AUTO, PMAPS_PAGES_KPAGE | PMAPS_PAGES_GENTLE);
	if (err < 0) {
		/* A kernel thread is never selected (the survey skips them): ENODATA is a failure too. */
		failed(f, "pagemap", err, pg ? pmaps_pages_errmsg(pg) : NULL);
		goto done;
	}
	err = pmaps_maps_open(&maps, proc, PMAPS_SRC_MAPS, 0);
	if (err < 0) {
		failed(f, "maps", err, maps ? pmaps_maps_errmsg(maps) : NULL);
		goto done;
	}
	d.strategy = pmaps_pages_strategy(pg);
	d.kpage = pmaps_pages_kpage(pg) == 1;
	w_begin(&w, o, FMT_JSON, &d);
	snprintf(trailer, sizeof(trailer), ",\"limit\":%u,\"next\":null", q->limit);
	while ((err = pmaps_maps_next(maps, &m)) > 0) {
		if (m->end <= q->from)
			continue;
		if (n == q->limit) {
			/* One more: the next page starts at it. */
			snprintf(trailer, sizeof(trailer), ",\"limit\":%u,\"next\":\"0x%llx\"", q->limit,
			         (unsigned long long)m->start);
			break;
		}
		walking = 1;
		err = pmaps_pages_summarize(pg, m->start > q->from ? m->start : q->from, m->end, &sum);
		if (err < 0)
			break;
		w_summary(&w, &sum, m);
		walking = 0;
		if (++n % 64 == 0 && too_large(fd, o)) {
			err = failed(f, NULL, -ENOBUFS, "the document would pass 64 MiB");
			goto done;
		}
	}
	if (err < 0) {
		if (walking)
			failed(f, "pagemap", err, pmaps_pages_errmsg(pg));
		else
			failed(f, "maps", err, pmaps_maps_errmsg(maps));
		goto done;
	}
	w.trailer = trailer;
	w_end(&w, NULL);
done:
	pmaps_maps_close(maps);
	pmaps_pages_close(pg);
	return err < 0 ? err : 0;
}

void serve_api_pages(struct serve *sv, int pid, struct serve_reply *r)
{
	serve_api_pages_query(sv, pid, NULL, r);
}

void serve_api_pages_query(struct serve *sv, int pid, const char *query, struct serve_reply *r)
{
	struct pmaps_proc *proc;
	struct selected sel;
	struct failure f;
	struct out o;
	char *buf = NULL;
	struct pages_query q;
	const char *msg;
	uint64_t at;
	int fd = -1, err;

	memset(r, 0, sizeof(*r));
	memset(&f, 0, sizeof(f));
	if (pages_query(query, &q, &msg) < 0) {
		reply_error(r, 400, pid, msg);
		return;
	}
	proc = open_selected(sv, pid, r, &sel);
	if (!proc)
		return;
	/* The first page, asked plainly, is kept as every endpoint's answer is. */
	if (!q.asked && kept_get(sv, KEEP_PAGES, &sel, r))
		goto done;
	buf = malloc(OUT_FD_BUFSIZE);
	fd = memfd_create("pmaps-serve-pages", MFD_CLOEXEC);
	if (!buf || fd < 0) {
		reply_error(r, 503, pid, !buf ? "out of memory" : "cannot make a memory file");
		goto done;
	}
	out_fd(&o, fd, buf, OUT_FD_BUFSIZE);
	if (q.asked ? costly_lock(sv, pid, r) < 0 : !costly_begin(sv, KEEP_PAGES, &sel, r))
		goto done;
	at = now_ns();
	err = pages_summary(proc, &q, &o, fd, &f);
	pthread_mutex_unlock(&sv->costly);
	out_flush(&o);
	if (err == 0 && o.err)
		err = failed(&f, NULL, -o.err, "writing to a memory file");
	if (err == 0)
		err = reply_memfd(r, fd, JSON_TYPE);
	if (err == -ENOBUFS && !f.msg[0])
		failed(&f, NULL, err, "the document would pass 64 MiB");
	if (err < 0) {
		memset(r, 0, sizeof(*r));
		if (err == -ENOBUFS)
			reply_error(r, 503, pid, f.msg);
		else
			reply_failed(r, pid, err, f.msg);
	}
	if (!q.asked)
		kept_put(sv, KEEP_PAGES, &sel, at, r);
done:
	if (fd >= 0)
		close(fd);
	free(buf);
	pmaps_proc_close(proc);
}

void serve_api_pages_svg(struct serve *sv, int pid, struct serve_reply *r)
{
	struct pages_svg_req req = {
		.strategy = PMAPS_PAGES_AUTO,
		.pace = PMAPS_PAGES_GENTLE,
		.quiet = 1,
	};
	struct selected sel;
	struct failure f;
	uint64_t at;
	int err;

	memset(r, 0, sizeof(*r));
	memset(&f, 0, sizeof(f));
	req.proc = open_selected(sv, pid, r, &sel);
	if (!req.proc)
		return;
	if (kept_get(sv, KEEP_SVG, &sel, r))
		goto done;
	/* The picture: at most 1000 bands of at most 800 rectangles (pages_svg.c). */
	req.fd = memfd_create("pmaps-serve-svg", MFD_CLOEXEC);
	if (req.fd < 0) {
		reply_error(r, 503, pid, "cannot make a memory file");
		goto done;
	}
	if (!costly_begin(sv, KEEP_SVG, &sel, r)) {
		close(req.fd);
		goto done;
	}
	at = now_ns();
	err = pages_svg_write(&req, &f);
	pthread_mutex_unlock(&sv->costly);
	if (err == 0)
		err = reply_memfd(r, req.fd, SVG_TYPE);
	if (err == -ENOBUFS)
		reply_error(r, 503, pid, "the picture would pass 64 MiB");
	else if (err < 0)
		reply_failed(r, pid, err, f.msg);
	kept_put(sv, KEEP_SVG, &sel, at, r);
	close(req.fd);
done:
	pmaps_proc_close(req.proc);
}
