/* SPDX-License-Identifier: MIT */
/*
 * books.c - which of the runtime's books to ask for, and the options that
 * say how. The readers are books_go.c, books_jvm.c and books_malloc.c; the
 * words books_out.c; the parsers and the join are the library's.
 */
#include <string.h>
#include <time.h>

#include "books/books.h"
#include "common/tool.h"

void books_opts_init(struct books_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->timeout_ms = BOOKS_TIMEOUT_MS;
	o->malloc_fd = -1;
}

void books_read(struct books *b, const struct books_opts *o, struct pmaps_proc *proc,
                enum pmaps_runtime rt)
{
	memset(b, 0, sizeof(*b));
	b->b.size = sizeof(b->b);
	b->runtime = rt;
	b->run = o->run;
	if (!books_wanted(o, rt))
		return;
	if (rt == PMAPS_RUNTIME_GO || o->go_url)
		book_go_read(&b->b, o, proc);
	if (rt == PMAPS_RUNTIME_JVM)
		book_jvm_read(&b->b, o, proc);
	if (o->malloc_fd >= 0 || o->malloc_why)
		book_malloc_read(&b->b, o);
	/* Where the process's memory moved during the reads, the join will not take them. */
	if (books_asked(b))
		pmaps_books_finish(&b->b, proc);
}

int books_wanted(const struct books_opts *o, enum pmaps_runtime rt)
{
	return !o->off && (rt == PMAPS_RUNTIME_GO || rt == PMAPS_RUNTIME_JVM || o->go_url ||
	                   o->malloc_fd >= 0 || o->malloc_why);
}

int books_option(struct books_opts *o, int ch, const char *arg)
{
	uint64_t ns;

	switch (ch) {
	case BOOKS_OPT_GO_PPROF:
		if (!arg[0]) {
			die_msg("--go-pprof takes a URL (http://127.0.0.1:PORT/)");
			return -1;
		}
		o->go_url = arg;
		return 1;
	case BOOKS_OPT_ALLOW_REMOTE:
		o->allow_remote = 1;
		return 1;
	case BOOKS_OPT_TIMEOUT:
		/* A bare number is seconds; 10 ms to 10 minutes. */
		if (parse_time(arg, 1000000000u, &ns) < 0 || ns < 10000000u || ns > 600000000000u) {
			die_msg("--books-timeout takes a time from 10ms to 10m (2s, 500ms), not '%s'", arg);
			return -1;
		}
		o->timeout_ms = (unsigned)(ns / 1000000u);
		return 1;
	case BOOKS_OPT_NO_BOOKS:
		o->off = 1;
		return 1;
	default:
		return 0;
	}
}

int books_options_done(const struct books_opts *o)
{
	char url[PMAPS_BOOK_SOURCE], why[256]; /* as the reader has it */

	if (o->off && o->go_url) {
		die_msg("--no-books and --go-pprof: choose one");
		return EXIT_USAGE;
	}
	/* A URL needs libcurl to be read: without it, the one line naming the package. */
	if (o->go_url && go_curl_ready() < 0)
		return go_curl_missing("--go-pprof");
	/* A URL the reader would refuse is the user's mistake: said now, as any bad option. */
	if (o->go_url && book_go_url(url, sizeof(url), o->go_url, o->allow_remote, why,
	                             sizeof(why)) < 0) {
		const char *w = strncmp(why, "--go-pprof: ", 12) == 0 ? why + 12 : why;
		die_msg("--go-pprof '%s': %s", o->go_url, w);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}
