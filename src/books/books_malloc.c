/* SPDX-License-Identifier: MIT */
/*
 * books_malloc.c - glibc malloc's books, asked of the helper `pmaps run`
 * preloads into its command (malloc_helper.c: the protocol is there);
 * malloc_info()'s XML is parsed by the library (pmaps_books_parse()).
 *
 * glibc's figures and how they are read: lib/books_malloc.c.
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

#include "books/books.h"
#include "common/num.h"

/* A figure past this is "out of range": sums of a few of them never wrap. */
#define MAL_MAX (1ull << 62)
/* The largest XML taken (the helper's buffer too): malloc_info() grows with the arenas. */
#define MAL_CAP (4u << 20)
#define MAL_HDR 128

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
			uint64_t d = (uint64_t)(*p - '0');
			/* Checked before the step: ten times a figure can wrap 64 bits. */
			if (*vals[i] > (MAL_MAX - d) / 10)
				return -1;
			*vals[i] = *vals[i] * 10 + d;
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

/* Asks and reads; the figures into B, or its head's why. Called with mal.mu held. */
static void mal_ask(struct pmaps_books *b, const struct books_opts *o, uint64_t start)
{
	struct pmaps_book_head *h = &b->head[PMAPS_BOOK_MALLOC];
	uint64_t deadline = start + (uint64_t)o->timeout_ms * 1000000u;
	char why[PMAPS_BOOK_WHY];
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
			snprintf(h->why, sizeof(h->why), "%s", mal_static);
			return;
		} else if (r == -2) {
			mal_die(mal_static);
		}
		goto out;
	}
	if (send(mal.fd, "i", 1, MSG_NOSIGNAL | MSG_DONTWAIT) != 1) {
		if (errno == EAGAIN || errno == EWOULDBLOCK) {
			snprintf(h->why, sizeof(h->why), "the helper has not read its requests");
			return;
		}
		mal_die(mal_gone);
		goto out;
	}
	mal.sent++;
	for (;;) {
		r = mal_frame(deadline);
		if (r == 0) {
			snprintf(h->why, sizeof(h->why),
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
		snprintf(h->why, sizeof(h->why),
		         "malloc_info()'s XML is larger than the helper's buffer (%u bytes), or "
		         "malloc_info() failed",
		         MAL_CAP);
		return;
	}
	if (pmaps_books_parse(b, PMAPS_BOOK_MALLOC, mal.buf ? mal.buf : "", mal.len, why,
	                      sizeof(why)) < 0) {
		snprintf(h->why, sizeof(h->why), "%s", why);
		return;
	}
	/* keepcost is at most MAL_MAX (the header's bound): a figure the library takes. */
	pmaps_books_set(b, PMAPS_BV_MALLOC_TOP, mal.keepcost);
	return;
out:
	snprintf(h->why, sizeof(h->why), "%s", mal.why);
}

void book_malloc_read(struct pmaps_books *b, const struct books_opts *o)
{
	struct pmaps_book_head *h = &b->head[PMAPS_BOOK_MALLOC];
	struct timespec until;
	struct stat st;
	uint64_t start = now_ns();

	/* A record read before: nothing of that read stands for this one. */
	h->ok = 0;
	h->why[0] = '\0';
	if (o->malloc_fd < 0) {
		if (o->malloc_why) {
			h->asked = 1;
			snprintf(h->why, sizeof(h->why), "%s", o->malloc_why);
			book_stamp(h, start);
		}
		return;
	}
	h->asked = 1;
	snprintf(h->source, sizeof(h->source),
	         "malloc_info() in the command, through pmaps run's helper");
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += (time_t)(o->timeout_ms / 1000);
	until.tv_nsec += (long)(o->timeout_ms % 1000) * 1000000;
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	if (pthread_mutex_clocklock(&mal.mu, CLOCK_MONOTONIC, &until) != 0) {
		snprintf(h->why, sizeof(h->why),
		         "the helper did not answer within %u ms (another request held it)",
		         o->timeout_ms);
		book_stamp(h, start);
		return;
	}
	if (fstat(o->malloc_fd, &st) < 0)
		st.st_ino = 0;
	if (mal.fd != o->malloc_fd || mal.ino != st.st_ino)
		mal_reset(o->malloc_fd, st.st_ino);
	mal.pid = o->malloc_pid;
	mal.o = o;
	mal_ask(b, o, start);
	mal.o = NULL;
	pthread_mutex_unlock(&mal.mu);
	if (h->ok)
		h->why[0] = '\0';
	book_stamp(h, start);
}
