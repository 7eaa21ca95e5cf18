/* SPDX-License-Identifier: MIT */
/*
 * serve_books.c - pmaps serve --books: the runtime's own books next to RSS,
 * in the monitoring.
 *
 * Opt-in: asking a process for its books costs it something (a Go
 * program serves its MemStats page, a JVM attaches a thread for jcmd), so
 * nothing is asked by default, and with --books INTERVAL a thread of its
 * own asks at most --books-max processes each INTERVAL, round robin in pid
 * order over the selected processes whose runtime has books (Go, the JVM).
 * Each is an explain of the process with its books (explain_doc.c, as pmaps
 * explain reads one: the books right before the kernel's figures), under
 * SV->costly as every explain of serve's; its join (pmaps_books_join())
 * splits the process's RSS into the runtime's terms (Go: live objects, span
 * slack, held free, returned but resident (LazyFree), stacks, runtime
 * metadata, and what they leave; the JVM: heap used and free, NMT's
 * categories) that add up to it exactly. /metrics shows the last join of
 * each process with its age.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "books/explain_doc.h"
#include "common/out.h"
#include "common/tool.h"
#include "serve/serve.h"

/* The last join of one process. */
struct sbook {
	int pid;
	uint64_t start_ns;            /* its row's: another process under the pid is not it */
	enum pmaps_runtime runtime;
	int joined;
	uint64_t rss;                 /* the explain's RSS: the terms' signed sum */
	unsigned nterms;
	struct pmaps_join_term term[PMAPS_JOIN_TERMS];
	uint64_t at_ns;               /* when it was read (CLOCK_MONOTONIC) */
};

struct serve_books {
	pthread_t thread;
	int on;
	pthread_mutex_t lock;         /* BOOK, N, CAP, READS */
	pthread_cond_t wake;          /* on CLOCK_MONOTONIC: the interval, or stopping */
	int stopping;
	struct sbook *book;           /* by pid, ascending */
	size_t n, cap;
	uint64_t reads;               /* explains with books read */
	int last_pid;                 /* the round robin's place */
};

static uint64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* The slot of PID in B (inserted, zeroed, when absent), or NULL out of memory. Under LOCK. */
static struct sbook *slot(struct serve_books *b, int pid)
{
	size_t lo = 0, hi = b->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (b->book[mid].pid == pid)
			return &b->book[mid];
		if (b->book[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 16;
		struct sbook *nb = realloc(b->book, cap * sizeof(*nb));
		if (!nb)
			return NULL;
		b->book = nb;
		b->cap = cap;
	}
	memmove(&b->book[lo + 1], &b->book[lo], (b->n - lo) * sizeof(b->book[0]));
	b->n++;
	memset(&b->book[lo], 0, sizeof(b->book[0]));
	b->book[lo].pid = pid;
	return &b->book[lo];
}

/* A process due its books: its pid, its identity, how to read it. */
struct due {
	int pid;
	uint64_t start_ns;
	int gentle;
};

/*
 * Up to --books-max processes of the last refresh whose runtime has books,
 * after LAST_PID in pid order (round robin), into D. Returns how many.
 */
static size_t pick(struct serve *sv, struct due *d, size_t max)
{
	struct serve_books *b = sv->books;
	const struct top *t = &sv->top;
	size_t n = 0, first = 0;
	char msg[256];

	if (serve_lock(sv) < 0)
		return 0;
	if (serve_fresh(sv, msg, sizeof(msg)) < 0 || t->nlines == 0) {
		pthread_mutex_unlock(&sv->lock);
		return 0;
	}
	/* TOP's lines are in pid order: from the first past LAST_PID, wrapping once. */
	while (first < t->nlines && (!t->lines[first].row || t->lines[first].row->pid <= b->last_pid))
		first++;
	for (size_t k = 0; k < t->nlines && n < max; k++) {
		const struct pmaps_survey_row *row = t->lines[(first + k) % t->nlines].row;
		if (!row || !row->breakdown || !books_wanted(&sv->o.top.books, row->runtime))
			continue;
		d[n].pid = row->pid;
		d[n].start_ns = row->start_ns;
		d[n].gentle = (row->flags & PMAPS_SURVEY_LARGE) || row->source == PMAPS_SRC_PAGES;
		n++;
	}
	pthread_mutex_unlock(&sv->lock);
	if (n)
		b->last_pid = d[n - 1].pid;
	return n;
}

/* One process's explain with its books, its join kept. */
static void read_one(struct serve *sv, const struct due *d, struct explain_doc *e)
{
	struct serve_books *b = sv->books;
	struct books_opts bo = sv->o.top.books;
	struct explain_ask ask;
	struct pmaps_proc *proc = NULL;
	struct failure f;
	struct sbook *s;
	char pidstr[16];
	int err;

	snprintf(pidstr, sizeof(pidstr), "%d", d->pid);
	if (pmaps_proc_open(&proc, sv->o.top.root, pidstr) < 0)
		return;
	bo.root = sv->o.top.root;
	bo.quit = &b->stopping;
	memset(&ask, 0, sizeof(ask));
	ask.source = d->gentle ? PMAPS_SRC_PAGES : PMAPS_SRC_AUTO;
	ask.gentle = d->gentle;
	ask.limit_ns = PMAPS_EXPLAIN_HOLD_NS;
	ask.books = &bo;
	memset(&f, 0, sizeof(f));
	pthread_mutex_lock(&sv->costly);
	err = explain_doc_read(e, proc, &ask, &f);
	pthread_mutex_unlock(&sv->costly);
	pmaps_proc_close(proc);
	if (err == 0 && e->have_books && !e->kernel_thread) {
		pthread_mutex_lock(&b->lock);
		if ((s = slot(b, d->pid)) != NULL) {
			s->start_ns = d->start_ns;
			s->runtime = e->x ? e->x->runtime_kind : PMAPS_RUNTIME_NONE;
			s->joined = e->join.ok;
			s->rss = e->join.rss;
			s->nterms = e->join.ok ? e->join.nterms : 0;
			memcpy(s->term, e->join.term, s->nterms * sizeof(s->term[0]));
			s->at_ns = mono_ns();
			b->reads++;
		}
		pthread_mutex_unlock(&b->lock);
	}
	explain_doc_close(e);
}

static void *books_main(void *arg)
{
	struct serve *sv = arg;
	struct serve_books *b = sv->books;
	struct explain_doc *e = malloc(sizeof(*e)); /* large: not on this thread's stack */
	struct due *d = calloc(sv->o.books_max, sizeof(*d));

	if (!e || !d) {
		die_msg("serve: --books: out of memory: no books will be read");
		free(e);
		free(d);
		return NULL;
	}
	pthread_mutex_lock(&b->lock);
	for (;;) {
		/* An interval first: the warm-up reads the processes (their runtimes) meanwhile. */
		uint64_t at = mono_ns() + sv->o.books_interval_ns;
		struct timespec until = {(time_t)(at / 1000000000u), (long)(at % 1000000000u)};
		size_t n;
		while (!b->stopping && pthread_cond_timedwait(&b->wake, &b->lock, &until) != ETIMEDOUT)
			;
		if (b->stopping)
			break;
		pthread_mutex_unlock(&b->lock);
		n = pick(sv, d, sv->o.books_max);
		for (size_t i = 0; i < n && !__atomic_load_n(&b->stopping, __ATOMIC_RELAXED); i++)
			read_one(sv, &d[i], e);
		pthread_mutex_lock(&b->lock);
	}
	pthread_mutex_unlock(&b->lock);
	free(e);
	free(d);
	return NULL;
}

int serve_books_start(struct serve *sv)
{
	struct serve_books *b;
	pthread_condattr_t ca;

	if (!sv->o.books_interval_ns)
		return 0;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -1;
	pthread_mutex_init(&b->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&b->wake, &ca);
	pthread_condattr_destroy(&ca);
	sv->books = b;
	if (pthread_create(&b->thread, NULL, books_main, sv) != 0) {
		die_msg("serve: --books: no thread for the books: %s", strerror(errno));
		return -1;
	}
	b->on = 1;
	return 0;
}

void serve_books_stop(struct serve *sv)
{
	struct serve_books *b = sv->books;

	if (!b)
		return;
	pthread_mutex_lock(&b->lock);
	__atomic_store_n(&b->stopping, 1, __ATOMIC_RELAXED);
	pthread_cond_signal(&b->wake);
	pthread_mutex_unlock(&b->lock);
	if (b->on)
		pthread_join(b->thread, NULL);
	pthread_cond_destroy(&b->wake);
	pthread_mutex_destroy(&b->lock);
	free(b->book);
	free(b);
	sv->books = NULL;
}

/* ---- /metrics ---- */

static void signed_end(struct out *o, int neg, uint64_t v)
{
	out_str(o, "} ");
	if (neg && v)
		out_ch(o, '-');
	out_u64(o, v);
	out_ch(o, '\n');
	out_record(o);
}

void serve_books_write(struct serve *sv, struct out *o, const struct mctx *m,
                       void (*labels)(struct serve *, struct out *, size_t))
{
	struct serve_books *b = sv->books;
	const struct top *t = &sv->top;
	static const char *const fams[][3] = {
		{"pmaps_process_books_bytes", "bytes",
		 "The process's resident memory split by its runtime's own books (--books), by term: "
		 "the runtime's figures (Go: go_live_objects, go_span_slack, go_held_free, "
		 "go_returned_resident (freed to the kernel with MADV_FREE, still resident: "
		 "LazyFree), go_stacks, go_runtime_metadata; the JVM: java_heap_used, "
		 "java_heap_free, jvm_*), each part's remainder (*_unexplained, below 0 where the "
		 "runtime counts memory that is not resident) and the parts the books do not "
		 "split; their sum is pmaps_process_books_rss_bytes exactly"},
		{"pmaps_process_books_rss_bytes", "bytes",
		 "The RSS the last books were joined to (read right after them)"},
		{"pmaps_process_books_joined", NULL,
		 "1 when the last books were joined to the kernel's figures; 0 when not (none read, "
		 "read too far apart, or the RSS moved meanwhile: /api/process/PID/explain says "
		 "which)"},
		{"pmaps_process_books_age_seconds", "seconds", "Age of the last books read"},
	};

	if (!b)
		return;
	pthread_mutex_lock(&b->lock);
	for (size_t f = 0; f < sizeof(fams) / sizeof(fams[0]); f++) {
		serve_family(o, m, fams[f][0], "gauge", fams[f][1], fams[f][2]);
		for (size_t i = 0, j = 0; i < t->nlines; i++) {
			const struct pmaps_survey_row *row = t->lines[i].row;
			const struct sbook *s;
			if (!row)
				continue;
			/* Both in pid order. */
			while (j < b->n && b->book[j].pid < row->pid)
				j++;
			if (j == b->n || b->book[j].pid != row->pid)
				continue;
			s = &b->book[j];
			if (s->start_ns != row->start_ns)
				continue; /* another process under the pid */
			if (f == 0) {
				for (unsigned k = 0; k < s->nterms; k++) {
					out_str(o, fams[f][0]);
					labels(sv, o, i);
					out_str(o, ",runtime=\"");
					out_str(o, pmaps_runtime_name(s->runtime));
					out_str(o, "\",term=\"");
					out_str(o, pmaps_join_key(s->term[k].key));
					out_ch(o, '"');
					signed_end(o, s->term[k].neg, s->term[k].bytes);
				}
				continue;
			}
			if (f == 1 && !s->joined)
				continue;
			out_str(o, fams[f][0]);
			labels(sv, o, i);
			if (f == 2) {
				/* No reason label: a refusal would start a series of its own. */
				serve_sample_end(o, s->joined ? 1 : 0);
			} else if (f == 1) {
				serve_sample_end(o, s->rss);
			} else {
				out_str(o, "} ");
				serve_seconds(o, m->now > s->at_ns ? m->now - s->at_ns : 0);
				out_ch(o, '\n');
				out_record(o);
			}
		}
	}
	serve_family(o, m, "pmaps_books_reads_total", "counter", NULL,
	             "Explains with the runtime's books read by --books");
	out_str(o, "pmaps_books_reads_total ");
	out_u64(o, b->reads);
	out_ch(o, '\n');
	out_record(o);
	pthread_mutex_unlock(&b->lock);
}
