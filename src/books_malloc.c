/* SPDX-License-Identifier: MIT */
/*
 * books_malloc.c - glibc malloc's books, asked of the helper `pmaps run`
 * preloads into its command (malloc_helper.c: the protocol is there), and
 * malloc_info()'s XML parsed.
 *
 * The XML, as glibc 2.36's __malloc_info() writes it (malloc/malloc.c),
 * one element a line, sizes in bytes, counts of chunks:
 *
 *   <malloc version="1">
 *   <heap nr="0">                      one per arena, nr from 0
 *   <sizes>
 *     <size from="A" to="B" total="T" count="C"/>   free chunks by bin
 *     <unsorted from="A" to="B" total="T" count="C"/>
 *   </sizes>
 *   <total type="fast" count="C" size="S"/>     chunks in fastbins
 *   <total type="rest" count="C" size="S"/>     the other bins, and top
 *   <system type="current" size="S"/>           the arena's memory
 *   <system type="max" size="S"/>
 *   <aspace type="total" size="S"/>  <aspace type="mprotect" size="S"/>
 *   [<aspace type="subheaps" size="N"/>]        arenas but the main one
 *   </heap>
 *   <total type="fast" .../> <total type="rest" .../>  sums over the arenas
 *   <total type="mmap" count="C" size="S"/>     chunks of their own mmap()
 *   <system type="current" size="S"/> <system type="max" .../>
 *   <aspace .../> ...
 *   </malloc>
 *
 * glibc counts a binned chunk's size with its PREV_INUSE bit
 * (chunksize_nomask()): the bins' "total" and "rest" are one byte too
 * many for each chunk in them, and their sizes odd. The parser takes that
 * byte back from each entry whose largest size is odd (a fastbin's entry
 * is from its size - 15 to its size, counted right), so that the figures are
 * mallinfo2()'s to the byte (fordblks = fast + rest, uordblks + hblkhd =
 * in_use); a glibc that counts right lists even sizes and keeps its totals.
 *
 * Tcache chunks are free to the program but held by its thread: malloc
 * counts them in use, and so do these books.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "books.h"
#include "num.h"

/* A figure past this is "out of range": sums of a few of them never wrap. */
#define MAL_MAX (1ull << 62)
/* The largest XML taken (the helper's buffer too): malloc_info() grows with the arenas. */
#define MAL_CAP (4u << 20)
#define MAL_HDR 128

/* ---- the parser ---- */

/* One line of the XML: [P, END), without its '\n'. */
struct line {
	const char *p, *end;
	unsigned no;
};

/* Next line from *POS (before END) into L; 0 at the end. */
static int next_line(const char **pos, const char *end, struct line *l)
{
	const char *p = *pos, *nl;

	if (p >= end)
		return 0;
	nl = memchr(p, '\n', (size_t)(end - p));
	l->p = p;
	l->end = nl ? nl : end;
	l->no++;
	*pos = nl ? nl + 1 : end;
	return 1;
}

/* The line without its leading blanks is exactly S (a literal). */
static int is(const struct line *l, const char *s)
{
	const char *p = l->p;
	size_t n = strlen(s);

	while (p < l->end && *p == ' ')
		p++;
	return (size_t)(l->end - p) == n && memcmp(p, s, n) == 0;
}

/* The line without its leading blanks starts with S. */
static int starts(const struct line *l, const char *s)
{
	const char *p = l->p;
	size_t n = strlen(s);

	while (p < l->end && *p == ' ')
		p++;
	return (size_t)(l->end - p) >= n && memcmp(p, s, n) == 0;
}

/*
 * The value of the attribute NAME="digits" in L, at most MAL_MAX. Returns
 * 0, -1 when absent or not decimal, -2 past MAL_MAX.
 */
static int attr(const struct line *l, const char *name, uint64_t *v)
{
	size_t n = strlen(name);
	const char *p = l->p;

	for (; p + n + 3 <= l->end; p++) {
		if (p[0] != ' ' || memcmp(p + 1, name, n) != 0 || p[1 + n] != '=' || p[2 + n] != '"')
			continue;
		p += n + 3;
		if (p >= l->end || *p < '0' || *p > '9')
			return -1;
		*v = 0;
		for (; p < l->end && *p >= '0' && *p <= '9'; p++) {
			*v = *v * 10 + (uint64_t)(*p - '0');
			if (*v > MAL_MAX)
				return -2;
		}
		return p < l->end && *p == '"' ? 0 : -1;
	}
	return -1;
}

struct mparse {
	char *why;
	size_t whysz;
};

static int bad(struct mparse *mp, const struct line *l, const char *what)
{
	snprintf(mp->why, mp->whysz, "malloc_info's XML, line %u: %s", l ? l->no : 0u, what);
	return -EBADMSG;
}

/* Attribute NAME of L into *V, or the error. */
static int need(struct mparse *mp, const struct line *l, const char *name, uint64_t *v)
{
	char what[96];
	int r = attr(l, name, v);

	if (r == 0)
		return 0;
	snprintf(what, sizeof(what), r == -2 ? "%s is out of range (past 2^62)" : "no %s=\"N\"",
	         name);
	return bad(mp, l, what);
}

/* What a <heap> or the totals say. */
struct mtot {
	int have_fast, have_rest, have_mmap, have_sys;
	uint64_t fast_count, fast_bytes, rest_count, rest_bytes, mmap_count, mmap_bytes, system;
	uint64_t odd;   /* the binned chunks counted a byte too many */
};

/* A <total .../> or <system type="current" .../> line into T; 1 taken, 0 not one, <0 error. */
static int total_line(struct mparse *mp, const struct line *l, struct mtot *t, int final)
{
	int r;

	if (starts(l, "<total type=\"fast\" ")) {
		if (t->have_fast++)
			return bad(mp, l, "a second fast total");
		if ((r = need(mp, l, "count", &t->fast_count)) < 0 ||
		    (r = need(mp, l, "size", &t->fast_bytes)) < 0)
			return r;
		return 1;
	}
	if (starts(l, "<total type=\"rest\" ")) {
		if (t->have_rest++)
			return bad(mp, l, "a second rest total");
		if ((r = need(mp, l, "count", &t->rest_count)) < 0 ||
		    (r = need(mp, l, "size", &t->rest_bytes)) < 0)
			return r;
		return 1;
	}
	if (final && starts(l, "<total type=\"mmap\" ")) {
		if (t->have_mmap++)
			return bad(mp, l, "a second mmap total");
		if ((r = need(mp, l, "count", &t->mmap_count)) < 0 ||
		    (r = need(mp, l, "size", &t->mmap_bytes)) < 0)
			return r;
		return 1;
	}
	if (starts(l, "<system type=\"current\" ")) {
		if (t->have_sys++)
			return bad(mp, l, "a second current system size");
		if ((r = need(mp, l, "size", &t->system)) < 0)
			return r;
		return 1;
	}
	return 0;
}

/* A line the parser does not know: an element on a line of its own is passed over. */
static int other_line(struct mparse *mp, const struct line *l)
{
	const char *p = l->p;

	while (p < l->end && *p == ' ')
		p++;
	if (p < l->end && *p == '<' && l->end[-1] == '>')
		return 0;
	return bad(mp, l, "not an XML element of malloc_info()");
}

int book_malloc_parse(struct book_malloc *m, const char *xml, size_t len, char *why,
                      size_t whysz)
{
	struct mparse mp = {why, whysz};
	const char *pos = xml, *end = xml + len;
	struct line l = {0};
	struct mtot heap, fin, sum;
	uint64_t odd = 0;
	unsigned narenas = 0;
	int r, in_heap = 0, in_sizes = 0, done = 0;

	memset(&fin, 0, sizeof(fin));
	memset(&sum, 0, sizeof(sum));
	memset(&heap, 0, sizeof(heap));
	if (memchr(xml, '\0', len))
		return bad(&mp, NULL, "a NUL byte in it");
	if (!next_line(&pos, end, &l) || !is(&l, "<malloc version=\"1\">"))
		return bad(&mp, &l, "not <malloc version=\"1\"> (not malloc_info()'s XML, or a version "
		                    "pmaps does not know)");
	while (next_line(&pos, end, &l)) {
		if (done) {
			if (l.p == l.end && pos == end)
				break;
			return bad(&mp, &l, "more after </malloc>");
		}
		if (in_sizes) {
			uint64_t from, to, total, count;
			if (is(&l, "</sizes>")) {
				in_sizes = 0;
				continue;
			}
			if (!starts(&l, "<size ") && !starts(&l, "<unsorted "))
				return bad(&mp, &l, "not a <size> in <sizes>");
			if ((r = need(&mp, &l, "from", &from)) < 0 || (r = need(&mp, &l, "to", &to)) < 0 ||
			    (r = need(&mp, &l, "total", &total)) < 0 ||
			    (r = need(&mp, &l, "count", &count)) < 0)
				return r;
			uint64_t lo, hi;
			if (count == 0 || from > to || __builtin_mul_overflow(count, from, &lo) ||
			    __builtin_mul_overflow(count, to, &hi) || total < lo || total > hi)
				return bad(&mp, &l, "a <size> whose total is not COUNT chunks from FROM to TO");
			/*
			 * An odd TO: glibc's extra byte a chunk (chunk sizes are even). A
			 * fastbin's entry is FROM = TO - 15 with TO its chunks' size, right.
			 */
			if (to & 1) {
				heap.odd += count; /* both at most 2^62: no wrap */
				if (heap.odd > MAL_MAX)
					return bad(&mp, &l, "more chunks than a figure holds (past 2^62)");
			}
			continue;
		}
		if (in_heap) {
			if (is(&l, "<sizes>")) {
				in_sizes = 1;
				continue;
			}
			if (is(&l, "</heap>")) {
				if (!heap.have_fast || !heap.have_rest || !heap.have_sys)
					return bad(&mp, &l, "a <heap> without its fast, rest or system totals");
				/* The top chunk is one of REST's chunks, and counted right. */
				if (heap.odd >= heap.rest_count && heap.odd)
					return bad(&mp, &l, "more binned chunks than the rest total counts");
				if (heap.odd > heap.rest_bytes)
					return bad(&mp, &l, "the rest total is below its chunks' count");
				sum.fast_count += heap.fast_count;
				sum.fast_bytes += heap.fast_bytes;
				sum.rest_count += heap.rest_count;
				sum.rest_bytes += heap.rest_bytes;
				sum.system += heap.system;
				odd += heap.odd;
				in_heap = 0;
				narenas++;
				continue;
			}
			if ((r = total_line(&mp, &l, &heap, 0)) < 0)
				return r;
			if (r == 0 && (r = other_line(&mp, &l)) < 0)
				return r;
			continue;
		}
		if (starts(&l, "<heap ")) {
			uint64_t nr;
			if (fin.have_fast || fin.have_rest || fin.have_mmap || fin.have_sys)
				return bad(&mp, &l, "a <heap> after the totals");
			if ((r = need(&mp, &l, "nr", &nr)) < 0)
				return r;
			if (nr != narenas)
				return bad(&mp, &l, "<heap> numbers out of order");
			/* Each of the sums below is of at most this many figures under 2^62. */
			if (narenas >= 1u << 16)
				return bad(&mp, &l, "more than 65536 arenas");
			memset(&heap, 0, sizeof(heap));
			in_heap = 1;
			continue;
		}
		if (is(&l, "</malloc>")) {
			done = 1;
			continue;
		}
		if ((r = total_line(&mp, &l, &fin, 1)) < 0)
			return r;
		if (r == 0 && (r = other_line(&mp, &l)) < 0)
			return r;
	}
	if (!done)
		return bad(&mp, &l, in_heap ? "it ends inside a <heap> (cut short?)"
		                            : "it ends before </malloc> (cut short?)");
	if (narenas == 0)
		return bad(&mp, &l, "no <heap>");
	if (!fin.have_fast || !fin.have_rest || !fin.have_mmap || !fin.have_sys)
		return bad(&mp, &l, "the fast, rest, mmap or current system totals are missing");
	/* The sums are of at most 2^16 figures under 2^62 each: no wrap in 64 bits... */
	if (sum.fast_count != fin.fast_count || sum.fast_bytes != fin.fast_bytes ||
	    sum.rest_count != fin.rest_count || sum.rest_bytes != fin.rest_bytes ||
	    sum.system != fin.system)
		return bad(&mp, &l, "the totals are not the sums of the <heap>s");
	/* ...but their sum must stay a figure, as any. */
	if (fin.fast_count > MAL_MAX || fin.fast_bytes > MAL_MAX || fin.rest_count > MAL_MAX ||
	    fin.rest_bytes > MAL_MAX || fin.system > MAL_MAX)
		return bad(&mp, &l, "a total is out of range (past 2^62)");
	fin.rest_bytes -= odd;
	if (fin.fast_bytes > fin.system || fin.rest_bytes > fin.system - fin.fast_bytes)
		return bad(&mp, &l, "more free than the arenas' memory (fast + rest > system)");
	m->arenas = narenas;
	m->system = fin.system;
	m->fast_count = fin.fast_count;
	m->fast_bytes = fin.fast_bytes;
	m->rest_count = fin.rest_count;
	m->rest_bytes = fin.rest_bytes;
	m->mmap_count = fin.mmap_count;
	m->mmap_bytes = fin.mmap_bytes;
	m->free_held = fin.fast_bytes + fin.rest_bytes;
	/* Under 2^62 + 2^62: no wrap. */
	m->in_use = fin.system - m->free_held + fin.mmap_bytes;
	return 0;
}

/* ---- the reader ---- */

/*
 * The conversation with the helper, one for the process (pmaps run has
 * one command): requests are counted, and an answer that comes after its
 * request timed out is read and dropped at the next one. A frame read in
 * part when a request times out is carried on by the next.
 */
struct mal_state {
	pthread_mutex_t mu;
	int fd;            /* the socket this is of (its number and inode); another one starts over */
	ino_t ino;
	int hello;         /* the helper said hello */
	int waited;        /* a first wait for the hello ran out */
	int dead;          /* nothing more to ask: WHY says why */
	char why[200];
	uint64_t sent;     /* requests sent */
	int pid;           /* the process whose answers count (pmaps run's CMD), 0: any */
	const struct books_opts *o; /* the read's options (its quit), while it runs */
	/* the frame being read */
	char hdr[MAL_HDR];
	size_t hdr_len;
	int in_body;
	uint64_t n, keepcost, len, full;
	size_t got;
	char *buf;         /* MAL_CAP bytes, allocated at the first answer, kept */
};
static struct mal_state mal = {.mu = PTHREAD_MUTEX_INITIALIZER, .fd = -1};

static const char mal_static[] =
	"the helper did not answer: the command is not dynamically linked with glibc, or it exec'd";
static const char mal_gone[] = "the helper is gone (the command exec'd or closed it)";

static void mal_reset(int fd, ino_t ino)
{
	mal.fd = fd;
	mal.ino = ino;
	mal.hello = mal.waited = mal.dead = mal.in_body = 0;
	mal.why[0] = '\0';
	mal.sent = 0;
	mal.hdr_len = 0;
}

static int mal_die(const char *why)
{
	mal.dead = 1;
	snprintf(mal.why, sizeof(mal.why), "%s", why);
	return -1;
}

/* The header line in mal.hdr: "pmaps-malloc 1 n=N keepcost=K len=L full=F". Returns 0, or -1. */
static int mal_header(void)
{
	static const char *const keys[] = {"n=", "keepcost=", "len=", "full="};
	uint64_t *vals[] = {&mal.n, &mal.keepcost, &mal.len, &mal.full};
	const char *p = mal.hdr, *end = mal.hdr + mal.hdr_len - 1; /* before the '\n' */
	static const char magic[] = "pmaps-malloc 1";

	if ((size_t)(end - p) < sizeof(magic) - 1 || memcmp(p, magic, sizeof(magic) - 1) != 0)
		return -1;
	p += sizeof(magic) - 1;
	for (size_t i = 0; i < 4; i++) {
		size_t kl = strlen(keys[i]);
		if (p >= end || *p++ != ' ' || (size_t)(end - p) < kl || memcmp(p, keys[i], kl) != 0)
			return -1;
		p += kl;
		if (p >= end || *p < '0' || *p > '9')
			return -1;
		*vals[i] = 0;
		for (; p < end && *p >= '0' && *p <= '9'; p++) {
			*vals[i] = *vals[i] * 10 + (uint64_t)(*p - '0');
			if (*vals[i] > MAL_MAX)
				return -1;
		}
	}
	return p == end && mal.full <= 1 ? 0 : -1;
}

/*
 * Takes N bytes of a header line and checks who sent them: pmaps's end of
 * the socket has SO_PASSCRED, so the kernel says which process wrote each
 * part. Returns what recvmsg() did, or -2 when the sender is not mal.pid.
 */
static ssize_t mal_recv_from(char *dst, size_t n)
{
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(struct ucred))];
	} c;
	struct iovec iov = {dst, n};
	struct msghdr msg;
	struct cmsghdr *cm;
	ssize_t r;

	memset(&msg, 0, sizeof(msg));
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = c.b;
	msg.msg_controllen = sizeof(c.b);
	r = recvmsg(mal.fd, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (r <= 0 || !mal.pid)
		return r;
	for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
		struct ucred u;
		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_CREDENTIALS ||
		    cm->cmsg_len < CMSG_LEN(sizeof(u)))
			continue;
		memcpy(&u, CMSG_DATA(cm), sizeof(u));
		return u.pid == mal.pid ? r : -2;
	}
	return -2; /* no credentials: not checked, so not taken */
}

/* Milliseconds left until DEADLINE (monotonic ns), 0 when past. */
static int ms_left(uint64_t deadline)
{
	uint64_t now = now_ns();

	return now >= deadline ? 0 : (int)((deadline - now + 999999) / 1000000);
}

/*
 * Reads what the helper sent until a whole frame is in, waiting until
 * DEADLINE. Returns 1 with the frame (mal.n, mal.len bytes in mal.buf), 0
 * when the time ran out first, -1 when dead (mal.why), -2 at end of file.
 */
static int mal_frame(uint64_t deadline)
{
	for (;;) {
		struct pollfd pf = {mal.fd, POLLIN, 0};
		ssize_t r;

		if (!mal.in_body) {
			char *nl;
			/* Peek for the line's end: what follows it is the body, read below. */
			r = recv(mal.fd, mal.hdr + mal.hdr_len, sizeof(mal.hdr) - mal.hdr_len,
			         MSG_PEEK | MSG_DONTWAIT);
			if (r > 0) {
				nl = memchr(mal.hdr + mal.hdr_len, '\n', (size_t)r);
				size_t take = nl ? (size_t)(nl - (mal.hdr + mal.hdr_len)) + 1 : (size_t)r;
				r = mal_recv_from(mal.hdr + mal.hdr_len, take);
				if (r == -2)
					return mal_die("an answer came from another process than the command "
					               "(its child?): not the command's books");
				if (r != (ssize_t)take)
					return mal_die("the helper's socket failed");
				mal.hdr_len += take;
				if (!nl) {
					if (mal.hdr_len == sizeof(mal.hdr))
						return mal_die("the helper's answer is no header line");
					continue;
				}
				if (mal_header() < 0)
					return mal_die("the helper's answer is no header line");
				if (mal.len > MAL_CAP) {
					snprintf(mal.why, sizeof(mal.why),
					         "the helper's answer is %llu bytes, past pmaps's cap of %u",
					         (unsigned long long)mal.len, MAL_CAP);
					mal.dead = 1;
					return -1;
				}
				mal.hdr_len = 0;
				mal.in_body = 1;
				mal.got = 0;
			} else if (r == 0) {
				return -2;
			} else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
				return errno == ECONNRESET ? -2 : mal_die("the helper's socket failed");
			}
		}
		if (mal.in_body) {
			if (mal.got == mal.len) {
				mal.in_body = 0;
				return 1;
			}
			if (!mal.buf && !(mal.buf = malloc(MAL_CAP)))
				return mal_die("out of memory for the helper's answer");
			r = recv(mal.fd, mal.buf + mal.got, mal.len - mal.got, MSG_DONTWAIT);
			if (r > 0) {
				mal.got += (size_t)r;
				continue;
			}
			if (r == 0)
				return -2;
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
				return errno == ECONNRESET ? -2 : mal_die("the helper's socket failed");
		}
		int left = ms_left(deadline);
		if (left == 0 || (mal.o && books_quit(mal.o)))
			return 0;
		if (mal.o && mal.o->quit && left > 100)
			left = 100; /* a look at quit ten times a second */
		r = poll(&pf, 1, left);
		if (r < 0 && errno != EINTR)
			return mal_die("the helper's socket failed");
		if (r == 0 && ms_left(deadline) == 0)
			return 0;
	}
}

/* Asks and reads; the figures or WHY in M. Called with mal.mu held. */
static void mal_ask(struct book_malloc *m, const struct books_opts *o, uint64_t start)
{
	uint64_t deadline = start + (uint64_t)o->timeout_ms * 1000000u;
	char why[sizeof(m->h.why)];
	int r;

	if (mal.dead)
		goto out;
	/* The hello first: once, waited for; after that, only taken when it came. */
	while (!mal.hello) {
		r = mal_frame(mal.waited ? 0 : deadline);
		if (r == 1 && mal.n == 0 && mal.len == 0) {
			mal.hello = 1;
			break;
		}
		if (r == 1) {
			mal_die("the helper's first answer is no hello");
		} else if (r == 0) {
			mal.waited = 1;
			snprintf(m->h.why, sizeof(m->h.why), "%s", mal_static);
			return;
		} else if (r == -2) {
			mal_die(mal_static);
		}
		goto out;
	}
	if (send(mal.fd, "i", 1, MSG_NOSIGNAL | MSG_DONTWAIT) != 1) {
		if (errno == EAGAIN || errno == EWOULDBLOCK) {
			snprintf(m->h.why, sizeof(m->h.why), "the helper has not read its requests");
			return;
		}
		mal_die(mal_gone);
		goto out;
	}
	mal.sent++;
	for (;;) {
		r = mal_frame(deadline);
		if (r == 0) {
			snprintf(m->h.why, sizeof(m->h.why),
			         "the helper did not answer within %u ms (the command's malloc is busy, or "
			         "the command is stopped)",
			         o->timeout_ms);
			return;
		}
		if (r == -2)
			mal_die(mal_gone);
		if (r < 0)
			goto out;
		/* An answer to a request that timed out: dropped. */
		if (mal.n < mal.sent)
			continue;
		if (mal.n > mal.sent) {
			mal_die("the helper answered a request pmaps did not make");
			goto out;
		}
		break;
	}
	if (mal.full) {
		snprintf(m->h.why, sizeof(m->h.why),
		         "malloc_info()'s XML is larger than the helper's buffer (%u bytes), or "
		         "malloc_info() failed",
		         MAL_CAP);
		return;
	}
	if (book_malloc_parse(m, mal.buf ? mal.buf : "", mal.len, why, sizeof(why)) < 0) {
		snprintf(m->h.why, sizeof(m->h.why), "%s", why);
		return;
	}
	m->top = mal.keepcost;
	m->h.ok = 1;
	return;
out:
	snprintf(m->h.why, sizeof(m->h.why), "%s", mal.why);
}

void book_malloc_read(struct book_malloc *m, const struct books_opts *o)
{
	struct timespec until;
	struct stat st;
	uint64_t start = now_ns();

	memset(m, 0, sizeof(*m));
	if (o->malloc_fd < 0) {
		if (o->malloc_why) {
			m->h.asked = 1;
			snprintf(m->h.why, sizeof(m->h.why), "%s", o->malloc_why);
		}
		return;
	}
	m->h.asked = 1;
	snprintf(m->h.source, sizeof(m->h.source),
	         "malloc_info() in the command, through pmaps run's helper");
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += (time_t)(o->timeout_ms / 1000);
	until.tv_nsec += (long)(o->timeout_ms % 1000) * 1000000;
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	if (pthread_mutex_clocklock(&mal.mu, CLOCK_MONOTONIC, &until) != 0) {
		snprintf(m->h.why, sizeof(m->h.why),
		         "the helper did not answer within %u ms (another request held it)",
		         o->timeout_ms);
		return;
	}
	if (fstat(o->malloc_fd, &st) < 0)
		st.st_ino = 0;
	if (mal.fd != o->malloc_fd || mal.ino != st.st_ino)
		mal_reset(o->malloc_fd, st.st_ino);
	mal.pid = o->malloc_pid;
	mal.o = o;
	mal_ask(m, o, start);
	mal.o = NULL;
	pthread_mutex_unlock(&mal.mu);
	clock_gettime(CLOCK_REALTIME, &m->h.at);
	m->h.took_ns = now_ns() - start;
}
