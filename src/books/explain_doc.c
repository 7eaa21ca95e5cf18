/* SPDX-License-Identifier: MIT */
/*
 * explain_doc.c - one explain of a process as every front end reads it
 * (explain_doc.h): the library chooses the source, the runtime's books are
 * read, the explain runs right after them, and the library joins them.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "books/explain_doc.h"

/*
 * explain --wss: the referenced bits reset, ASK->wss_ns waited, the
 * runtime's books read (if asked) right before the kernel's figures, then
 * the working set read with the explanation. Returns 0 or a negative errno
 * (pmaps_wss_errmsg() says more).
 */
static int wss_read(struct explain_doc *e, struct pmaps_proc *proc, const struct explain_ask *ask)
{
	struct timespec ts = {(time_t)(ask->wss_ns / 1000000000u), (long)(ask->wss_ns % 1000000000u)};
	int err = pmaps_wss_open(&e->wss, proc, PMAPS_WSS_AUTO, PMAPS_WSS_ROLLUP);

	if (err == 0)
		err = pmaps_wss_reset(e->wss);
	if (err < 0)
		return err;
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	if (ask->books && !ask->books->off) {
		int rt = pmaps_books_runtime(proc);
		books_read(&e->books, ask->books, proc,
		           rt > 0 ? (enum pmaps_runtime)rt : PMAPS_RUNTIME_NONE);
		e->have_books = 1;
	}
	err = pmaps_wss_read(e->wss, &e->wss_res);
	if (err == 0)
		e->x = e->wss_res->x;
	return err;
}

int explain_doc_read(struct explain_doc *e, struct pmaps_proc *proc, const struct explain_ask *ask,
                     struct failure *f)
{
	char msg[256];
	unsigned options;
	int err;

	memset(e, 0, sizeof(*e));
	e->pid = pmaps_proc_pid(proc);
	e->choice.size = sizeof(e->choice);
	e->join.size = sizeof(e->join);
	err = pmaps_explain_choose(proc, (enum pmaps_source)ask->source, ask->limit_ns, &e->choice,
	                           msg, sizeof(msg));
	if (err < 0)
		return failed(f, NULL, err, msg);
	if (ask->paced && !ask->gentle && e->choice.reason == PMAPS_CHOICE_OVER &&
	    (e->choice.options & PMAPS_EXPLAIN_GENTLE))
		e->choice.options = (e->choice.options & ~(unsigned)PMAPS_EXPLAIN_GENTLE) |
		                    PMAPS_EXPLAIN_PACED;
	options = e->choice.options | (ask->pages ? PMAPS_EXPLAIN_PAGES : 0);
	if (ask->gentle && e->choice.source == PMAPS_SRC_PAGES) {
		options = (options & ~(unsigned)PMAPS_EXPLAIN_PACED) | PMAPS_EXPLAIN_GENTLE;
		e->choice.options = options & ~(unsigned)PMAPS_EXPLAIN_PAGES;
	}
	if (ask->books && !ask->books->off && !ask->wss_ns) {
		/*
		 * The runtime's books first, the kernel's figures right after: what
		 * asking costs the process (a JVM's attach listener, a Go server's
		 * reply) is then in both.
		 */
		int rt = pmaps_books_runtime(proc);
		books_read(&e->books, ask->books, proc,
		           rt > 0 ? (enum pmaps_runtime)rt : PMAPS_RUNTIME_NONE);
		e->have_books = 1;
	}
	if (ask->wss_ns) {
		err = wss_read(e, proc, ask);
		e->cost.size = sizeof(e->cost);
		e->have_cost = err == 0 && pmaps_wss_cost(e->wss, &e->cost) == 0;
		if (err < 0 && err != -ENODATA)
			return failed(f, NULL, err, pmaps_wss_errmsg(e->wss));
	} else {
		err = pmaps_explain_open(&e->s, proc, options);
		if (err == 0)
			err = pmaps_explain_run(e->s, &e->x);
		/* Right after the run: the cost's time runs until it is asked. */
		e->cost.size = sizeof(e->cost);
		e->have_cost = err == 0 && pmaps_explain_cost(e->s, &e->cost) == 0;
	}
	if (err == -ENODATA) {
		/* A kernel thread's result: nothing in it, and every figure known to be 0. */
		e->kernel_thread = 1;
		e->have_books = 0;
		e->none.size = sizeof(e->none);
		e->none.source = e->choice.source;
		e->none.xc_known = (1u << PMAPS_XC_COUNT) - 1;
		e->x = &e->none;
		return 0;
	}
	if (err < 0)
		return failed(f, NULL, err, e->s ? pmaps_explain_errmsg(e->s) : NULL);
	if (e->have_books) {
		/* The runtime explain found words what the books lack (glibc's: pmaps run's). */
		e->books.runtime = e->x->runtime_kind;
		pmaps_books_join(e->x, &e->books.b, 0, &e->join);
	}
	return 0;
}

void explain_doc_fill(const struct explain_doc *e, struct doc *d)
{
	d->kind = DOC_EXPLAIN;
	d->pid = e->pid;
	d->kernel_thread = e->kernel_thread;
	d->choice = &e->choice;
	d->books = e->have_books ? &e->books : NULL;
	d->join = e->have_books ? &e->join : NULL;
	d->wss = e->wss_res;
}

void explain_doc_close(struct explain_doc *e)
{
	pmaps_explain_close(e->s);
	pmaps_wss_close(e->wss);
	e->s = NULL;
	e->wss = NULL;
	e->wss_res = NULL;
	e->x = NULL;
}
