/* SPDX-License-Identifier: MIT */
/*
 * serve_reply.c - what every part of pmaps serve answers with: a text
 * reply, a document rendered into a body that grows until it holds it, and
 * the collector's lock taken within a bound.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "serve/serve.h"

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
}

int serve_render(struct serve_reply *r, void (*fill)(struct out *o, const void *ctx),
                 const void *ctx, size_t hint)
{
	size_t first = SERVE_BODY_FIRST;

	/* Room for what the last answer took, and some: a document is rendered once. */
	while (first < hint + hint / 4 && first < SERVE_BODY_MAX)
		first *= 2;
	for (size_t cap = first; cap <= SERVE_BODY_MAX; cap *= 2) {
		struct out o;
		char *buf = malloc(cap);
		if (!buf)
			return -ENOMEM;
		out_memory(&o, buf, cap);
		fill(&o, ctx);
		if (o.err == 0) {
			r->body = buf;
			r->len = out_kept(&o);
			return 0;
		}
		free(buf);
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
