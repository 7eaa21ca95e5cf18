/* SPDX-License-Identifier: MIT */
/*
 * serve_reply.c - what every part of pmaps serve answers with: a text
 * reply, a document rendered into a body that grows until it holds it (the
 * room of a large one kept for the next), and the collector's lock taken
 * within a bound.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "serve/serve.h"

/*
 * The room of the last large body, kept for the next: a scrape of a few
 * thousand processes writes megabytes, and new room from malloc() is new
 * pages, each faulted in while the answer is written (on this machine a
 * third of the writing's time at 2,000 processes). One for the process,
 * whatever serves it; room of less than SPARE_MIN is not worth keeping.
 */
#define SPARE_MIN (1u << 20)
static pthread_mutex_t spare_lock = PTHREAD_MUTEX_INITIALIZER;
static char *spare;
static size_t spare_cap;

char *serve_body_alloc(size_t want, size_t *cap)
{
	char *b = NULL, *old = NULL;

	pthread_mutex_lock(&spare_lock);
	if (spare && spare_cap >= want && spare_cap / 4 <= want) {
		b = spare;
		*cap = spare_cap;
		spare = NULL;
	} else if (spare && spare_cap / 4 > want && want >= SPARE_MIN) {
		/* Answers got smaller: the room of a larger one goes back. */
		old = spare;
		spare = NULL;
	}
	pthread_mutex_unlock(&spare_lock);
	free(old);
	if (!b) {
		b = malloc(want);
		*cap = b ? want : 0;
	}
	return b;
}

void serve_body_free(char *body, size_t cap)
{
	char *old = body;

	if (body && cap >= SPARE_MIN) {
		pthread_mutex_lock(&spare_lock);
		if (!spare || spare_cap < cap) {
			old = spare;
			spare = body;
			spare_cap = cap;
		}
		pthread_mutex_unlock(&spare_lock);
	}
	free(old);
}

void serve_reply_text(struct serve_reply *r, unsigned status, const char *msg)
{
	size_t n = strlen(msg);

	memset(r, 0, sizeof(*r));
	r->status = status;
	r->content_type = "text/plain; charset=utf-8";
	r->body = malloc(n + 1);
	if (!r->body) {
		r->status = 500;
		return;
	}
	memcpy(r->body, msg, n);
	r->body[n] = '\n';
	r->len = n + 1;
	r->cap = n + 1;
}

int serve_render(struct serve_reply *r, void (*fill)(struct out *o, const void *ctx),
                 const void *ctx, size_t hint)
{
	size_t first = SERVE_BODY_FIRST;

	/* Room for what the last answer took, and some: a document is rendered once. */
	while (first < hint + hint / 4 && first < SERVE_BODY_MAX)
		first *= 2;
	for (size_t want = first; want <= SERVE_BODY_MAX; want *= 2) {
		struct out o;
		size_t cap;
		char *buf = serve_body_alloc(want, &cap);
		if (!buf)
			return -ENOMEM;
		out_memory(&o, buf, cap);
		fill(&o, ctx);
		if (o.err == 0) {
			r->body = buf;
			r->len = out_kept(&o);
			r->cap = cap;
			return 0;
		}
		serve_body_free(buf, cap);
		if (o.err != ENOBUFS)
			return -o.err;
	}
	return -ENOBUFS;
}

int serve_lock(struct serve *sv)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += SERVE_LOCK_WAIT_S;
	return pthread_mutex_timedlock(&sv->lock, &until) == 0 ? 0 : -ETIMEDOUT;
}
