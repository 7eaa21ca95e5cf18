/* SPDX-License-Identifier: MIT */
/*
 * books.h - fetching the runtime's own books: what a process's language
 * runtime says of its memory, read where the process offers it. The
 * library parses the text and joins the figures to explain's
 * (pmaps_books_parse(), pmaps_books_join()); the tool fetches, and words:
 *
 *   Go     runtime.MemStats at the end of /debug/pprof/heap?debug=1, over
 *          HTTP (libcurl) from a loopback listener of the process
 *          (pmaps_books_go_listeners()), or the URL the user gave
 *          (books_go.c)
 *   JVM    jcmd PID GC.heap_info and VM.native_memory summary, run as the
 *          process's user where pmaps_books_jvm_attach() allows
 *          (books_jvm.c)
 *   malloc glibc's malloc_info() and mallinfo2(), asked of the helper
 *          library pmaps run preloads into the command it starts, and only
 *          there (books_malloc.c, malloc_helper.c)
 *
 * books_out.c words them (text and JSON); docs/internals/BOOKS.md has the
 * model.
 */
#ifndef PMAPS_BOOKS_H
#define PMAPS_BOOKS_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "pmaps.h"
#include "write/books_out.h"

struct out;

/* What the user asked of the books (explain, watch and run's options). */
struct books_opts {
	int off;               /* --no-books: none asked */
	const char *go_url;    /* --go-pprof URL, or NULL: found from the process's listeners */
	int allow_remote;      /* --allow-remote: GO_URL may name a host other than loopback */
	unsigned timeout_ms;   /* --books-timeout: each request's bound (default BOOKS_TIMEOUT_MS) */
	int malloc_fd;         /* pmaps run: the socket to the malloc helper in CMD, or -1 */
	/*
	 * pmaps run, MALLOC_FD -1: why CMD has no helper (the library is not
	 * found, ...), as the malloc book's why; NULL: no malloc book asked.
	 */
	const char *malloc_why;
	int malloc_books;      /* pmaps run --malloc-books: the helper asked for */
	int run;               /* pmaps run (its words for what is missing) */
	int malloc_pid;        /* pmaps run: CMD's pid, the one process whose answer counts */
	/*
	 * Set non-zero by another thread to cut a read short (a watch that
	 * ends), read with books_quit(); NULL: never.
	 */
	const int *quit;
	const char *root;      /* --proc-root, or NULL for /proc */
};
#define BOOKS_TIMEOUT_MS 2000u
/* Sets O to the defaults: nothing off, no URL, loopback only, the timeout, no malloc socket. */
void books_opts_init(struct books_opts *o);
/* Whether O's reader is to stop now (O->quit set). */
static inline int books_quit(const struct books_opts *o)
{
	return o->quit && __atomic_load_n(o->quit, __ATOMIC_RELAXED);
}

/* The books' long options, as explain, watch and run take them (getopt_long's values). */
enum { BOOKS_OPT_GO_PPROF = 0x1b00, BOOKS_OPT_ALLOW_REMOTE, BOOKS_OPT_TIMEOUT, BOOKS_OPT_NO_BOOKS };
#define BOOKS_LONGOPTS                                                    \
	{"go-pprof", required_argument, NULL, BOOKS_OPT_GO_PPROF},            \
	{"allow-remote", no_argument, NULL, BOOKS_OPT_ALLOW_REMOTE},          \
	{"books-timeout", required_argument, NULL, BOOKS_OPT_TIMEOUT},        \
	{"no-books", no_argument, NULL, BOOKS_OPT_NO_BOOKS}
/* The two a command that explains many processes takes (top, serve): no URL to name. */
#define BOOKS_LONGOPTS_EXPLAIN                                            \
	{"books-timeout", required_argument, NULL, BOOKS_OPT_TIMEOUT},        \
	{"no-books", no_argument, NULL, BOOKS_OPT_NO_BOOKS}
/* Their help, for the commands' usage texts. */
#define BOOKS_USAGE                                                                          \
	"      --go-pprof URL     a Go program's net/http/pprof: its runtime.MemStats from\n"    \
	"                         URL (a base such as http://127.0.0.1:6060/ is completed to\n" \
	"                         /debug/pprof/heap?debug=1); by default a Go process's\n"      \
	"                         loopback listeners are tried (Runtime books)\n"                \
	"      --allow-remote     let --go-pprof name a host other than loopback\n"              \
	"      --books-timeout T  each request for the books within T (default 2s)\n"           \
	"      --no-books         ask no runtime for its books\n"
/* The help of BOOKS_LONGOPTS_EXPLAIN's. */
#define BOOKS_USAGE_EXPLAIN                                                                  \
	"      --books-timeout T  each request for a runtime's books within T (default 2s)\n"   \
	"      --no-books         ask no runtime for its books (explain: Go's MemStats, the\n" \
	"                         JVM's through jcmd)\n"
/*
 * Takes option CH (BOOKS_OPT_*) with ARG into O: 1 taken, 0 not a books
 * option, -1 a bad value (said on stderr).
 */
int books_option(struct books_opts *o, int ch, const char *arg);
/*
 * After the options: EXIT_OK, or the exit code once said: EXIT_USAGE when
 * they contradict each other or the URL is refused, EXIT_FAIL when
 * --go-pprof is given and libcurl is missing.
 */
int books_options_done(const struct books_opts *o);
/*
 * libcurl, loaded on first use (books_go.c): 0, or -1 (go_curl_missing()
 * says why: the library, its Debian package and the loader's words).
 */
int go_curl_ready(void);
/* One line: WHO needs libcurl, which is missing; returns EXIT_FAIL. */
int go_curl_missing(const char *who);

/*
 * Reads the books PROC's runtime RT offers (Go: its MemStats; the JVM: jcmd's
 * GC.heap_info and NMT summary; any, with O->malloc_fd open: malloc's) into
 * B, zeroed first, then PROC's VmRSS after them (pmaps_books_finish()).
 * Never fails: each book asked says in its head whether it was read, and
 * why not. Bounded in time by O->timeout_ms per request.
 */
void books_read(struct books *b, const struct books_opts *o, struct pmaps_proc *proc,
                enum pmaps_runtime rt);

/* Whether books_read() would ask for any book of a process running RT. */
int books_wanted(const struct books_opts *o, enum pmaps_runtime rt);

/* The readers, each filling its books' heads (books_go.c, books_jvm.c, books_malloc.c). */
void book_go_read(struct pmaps_books *b, const struct books_opts *o, struct pmaps_proc *proc);
void book_jvm_read(struct pmaps_books *b, const struct books_opts *o, struct pmaps_proc *proc);
void book_malloc_read(struct pmaps_books *b, const struct books_opts *o);
/* HEAD's times of a read that began at START_NS (CLOCK_MONOTONIC) and ends now. */
static inline void book_stamp(struct pmaps_book_head *h, uint64_t start_ns)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	h->at_ns = (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
	h->start_ns = start_ns;
	clock_gettime(CLOCK_MONOTONIC, &t);
	h->end_ns = (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/*
 * Go's URL step, apart for its tests (books_go.c): the URL of the heap page
 * of the server --go-pprof names, into DST: http or https only, no
 * user:password, loopback unless ALLOW_REMOTE; the path made
 * .../debug/pprof/heap (a path ending in /heap kept, one ending in
 * /debug/pprof[/] completed, any other taken as the base the handlers are
 * under), the query made debug=1. Returns 0, or -EINVAL with WHY.
 */
int book_go_url(char *dst, size_t dstsz, const char *url, int allow_remote, char *why,
                size_t whysz);

#endif
