/* SPDX-License-Identifier: MIT */
/*
 * books.h - the runtime's own books: what a process's language runtime says
 * of its memory, read where the process offers it, and joined to explain's
 * kernel figures so that one equation adds up to the RSS exactly.
 *
 *   Go     runtime.MemStats at the end of /debug/pprof/heap?debug=1, over
 *          HTTP (libcurl) from a loopback listener of the process, or the
 *          URL the user gave (books_go.c)
 *   JVM    jcmd PID VM.native_memory summary and GC.heap_info, run as the
 *          process's user (books_jvm.c)
 *   malloc glibc's malloc_info() and mallinfo2(), asked of the helper
 *          library pmaps run preloads into the command it starts, and only
 *          there (books_malloc.c, malloc_helper.c)
 *
 * Every figure is the runtime's word, not the kernel's: bytes it counts,
 * resident or not. The join (books.c) sets them against the kernel's
 * resident bytes and states what neither explains.
 */
#ifndef PMAPS_BOOKS_H
#define PMAPS_BOOKS_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "pmaps.h"

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
/* Their help, for the commands' usage texts. */
#define BOOKS_USAGE                                                                          \
	"      --go-pprof URL     a Go program's net/http/pprof: its runtime.MemStats from\n"    \
	"                         URL (a base such as http://127.0.0.1:6060/ is completed to\n" \
	"                         /debug/pprof/heap?debug=1); by default a Go process's\n"      \
	"                         loopback listeners are tried (Runtime books)\n"                \
	"      --allow-remote     let --go-pprof name a host other than loopback\n"              \
	"      --books-timeout T  each request for the books within T (default 2s)\n"           \
	"      --no-books         ask no runtime for its books\n"
/*
 * Takes option CH (BOOKS_OPT_*) with ARG into O: 1 taken, 0 not a books
 * option, -1 a bad value (said on stderr).
 */
int books_option(struct books_opts *o, int ch, const char *arg);
/* After the options: -1 (said) when they contradict each other, else 0. */
int books_options_done(const struct books_opts *o);

/* What every book says of itself. */
struct book_head {
	int asked;           /* 1: this book was looked for */
	int ok;              /* 1: read; the figures are valid */
	/*
	 * !ok: why not, one sentence ("the process serves no /debug/pprof/ on
	 * loopback", "NMT is off: start the JVM with
	 * -XX:NativeMemoryTracking=summary"). May hold bytes the target chose
	 * (a server's reply): escape it before showing it.
	 */
	char why[256];
	/* Where the figures came from: the URL, "jcmd 1234 VM.native_memory summary", ... (escape it) */
	char source[320];
	struct timespec at;  /* CLOCK_REALTIME when read */
	uint64_t took_ns;    /* what reading them took */
};

/* Go: runtime.MemStats (bytes, but HEAP_OBJECTS and NUM_GC, which are counts). */
struct book_go {
	struct book_head h;
	uint64_t heap_alloc, heap_sys, heap_idle, heap_inuse, heap_released, heap_objects;
	uint64_t stack_inuse, stack_sys, mspan_inuse, mspan_sys, mcache_inuse, mcache_sys;
	uint64_t buck_hash_sys, gc_sys, other_sys, sys, total_alloc, next_gc, num_gc;
	uint64_t last_gc_ns; /* the last GC's time, ns since the epoch (0: none yet) */
	/*
	 * The process's GOGC, GOMEMLIMIT and GODEBUG from /proc/PID/environ (as
	 * it started: the runtime may have changed them since), raw bytes the
	 * target chose, NUL-terminated, "" when unset; ENV_OK 0 when environ
	 * could not be read.
	 */
	int env_ok;
	char gogc[64], gomemlimit[64], godebug[256];
};

/* JVM: Native Memory Tracking's summary and GC.heap_info. */
#define BOOK_JVM_CATS 32
struct book_jvm_cat {
	char name[40];       /* as NMT names it: "Java Heap", "Class", "Thread", "Code", "GC", ... */
	uint64_t reserved, committed;
};
struct book_jvm {
	struct book_head h;  /* ok: GC.heap_info or the NMT summary was read */
	/* NMT: 1 on and read; 0 off or unreadable (NMT_WHY says which, and how to turn it on) */
	int nmt;
	char nmt_why[256];
	uint64_t reserved, committed; /* NMT's total */
	unsigned ncat;
	struct book_jvm_cat cat[BOOK_JVM_CATS];
	/* GC.heap_info: the Java heap (HEAP_OK 0: unreadable, HEAP_WHY says why) */
	int heap_ok;
	char heap_why[256];
	char gc[48];         /* the collector's words: "garbage-first heap", "def new generation", ... */
	uint64_t heap_committed, heap_used;
	int meta_ok;         /* the Metaspace line */
	uint64_t meta_used, meta_committed, meta_reserved;
};

/* glibc malloc: malloc_info()'s totals and mallinfo2()'s keepcost. */
struct book_malloc {
	struct book_head h;
	unsigned arenas;                 /* <heap> elements */
	uint64_t system;                 /* the arenas' memory from the kernel (system current) */
	uint64_t fast_count, fast_bytes; /* free chunks in fastbins */
	uint64_t rest_count, rest_bytes; /* free chunks in the other bins, and the top chunks */
	uint64_t mmap_count, mmap_bytes; /* chunks of their own mmap() */
	uint64_t in_use;                 /* SYSTEM - FAST - REST + MMAP: live allocations, headers in */
	uint64_t free_held;              /* FAST + REST: free, kept by malloc */
	uint64_t top;                    /* the main arena's releasable top (keepcost) */
};

struct books {
	enum pmaps_runtime runtime; /* the runtime explain found (books_read()'s RT) */
	int run;                    /* read under pmaps run */
	struct book_go go;
	struct book_jvm jvm;
	struct book_malloc mal;
};

/*
 * Reads the books process PID's runtime RT offers (Go: go; JVM: jvm; any,
 * with O->malloc_fd open: malloc), into B (zeroed first). Never fails:
 * each book asked says in its head whether it was read, and why not.
 * Bounded in time by O->timeout_ms per request.
 */
void books_read(struct books *b, const struct books_opts *o, int pid, enum pmaps_runtime rt);

/* The readers, each filling its book's head (books_go.c, books_jvm.c, books_malloc.c). */
void book_go_read(struct book_go *g, const struct books_opts *o, int pid);
void book_jvm_read(struct book_jvm *j, const struct books_opts *o, int pid);
void book_malloc_read(struct book_malloc *m, const struct books_opts *o);
/*
 * The parsers, on text a target wrote (any bytes, any length): 0, or
 * -EBADMSG with WHY saying what is wrong in one line.
 */
int book_go_parse(struct book_go *g, const char *text, size_t len, char *why, size_t whysz);
int book_jvm_parse_nmt(struct book_jvm *j, const char *text, size_t len, char *why, size_t whysz);
int book_jvm_parse_heap(struct book_jvm *j, const char *text, size_t len, char *why,
                        size_t whysz);
int book_malloc_parse(struct book_malloc *m, const char *xml, size_t len, char *why,
                      size_t whysz);
/*
 * Go's two other steps, apart for their tests (books_go.c). The URL of the
 * heap page of the server --go-pprof names, into DST: http or https only,
 * no user:password, loopback unless ALLOW_REMOTE; the path made
 * .../debug/pprof/heap (a path ending in /heap kept, one ending in
 * /debug/pprof[/] completed, any other taken as the base the handlers are
 * under), the query made debug=1. Returns 0, or -EINVAL with WHY.
 */
int book_go_url(char *dst, size_t dstsz, const char *url, int allow_remote, char *why,
                size_t whysz);
/*
 * The heap page's URLs on process PID's loopback listeners (under ROOT,
 * NULL: /proc), at most MAX into URLS. Returns the count (0: WHY says
 * none), or a negative errno with WHY (another network namespace: -EXDEV).
 */
#define BOOK_GO_URL_MAX 80
int book_go_listeners(const char *root, int pid, char (*urls)[BOOK_GO_URL_MAX], unsigned max,
                      char *why, size_t whysz);

/* ---- the join (books.c) ---- */

/* Whose figure a term is. */
enum join_src { JOIN_KERNEL, JOIN_RUNTIME, JOIN_REMAINDER };

struct join_term {
	const char *key;     /* JSON key: "go_live_objects", "files", ... */
	const char *words;   /* the equation's: "Go live objects", "files" */
	const char *how;     /* where it comes from: "HeapAlloc", "HeapInuse - HeapAlloc", "LazyFree of the Go heap" */
	enum join_src src;
	int neg;             /* 1: subtracted (a remainder below zero: the runtime counts more than is resident) */
	uint64_t bytes;
	int part;            /* the part (enum join_part) it splits */
};

/* The kernel's parts a join splits: each part's terms add up to its resident bytes. */
enum join_part {
	JP_RUNTIME_HEAP, /* the runtime's heap (Go arenas, the Java heap) */
	JP_ANON,         /* [heap], anonymous and named anonymous memory */
	JP_STACKS,       /* thread stacks and [stack] */
	JP_FILES,        /* file text, data and read-only */
	JP_SHMEM,        /* shared memory and hugetlb */
	JP_OTHER,
	JP_COUNT
};

#define JOIN_MAX 24
/*
 * No address space holds more than 2^57 bytes (5-level page tables): a
 * runtime figure past it is no figure, and the join refuses it. Sixteen
 * such figures still sum below 2^64.
 */
#define JOIN_FIGURE_MAX ((uint64_t)1 << 57)

struct books_join {
	int ok;              /* 1: a book was joined */
	const char *why;     /* !ok but a book was read: why no join (a figure out of range) */
	uint64_t rss;        /* the kernel's RSS the terms add up to */
	uint64_t part[JP_COUNT]; /* the kernel's resident bytes of each part */
	unsigned n;
	struct join_term t[JOIN_MAX];
	struct timespec at;  /* the oldest joined book's time */
};

/*
 * Joins the books B read to explain's result X: terms whose signed sum is
 * X's total RSS exactly, every runtime figure bounded by what the kernel
 * holds so that nothing wraps. J->ok 0 when no book was read.
 */
void books_join(struct books_join *j, const struct books *b, const struct pmaps_explain *x);

/* The books and their join as text: explain's section, and the equation line. */
void books_write_text(struct out *o, const struct books *b, const struct books_join *j);
/* The equation alone, one line, no newline ("RSS 343M = Go live objects 131M + ..."). */
void books_write_equation(struct out *o, const struct books_join *j);
/* The "runtime_books" object's value (JSON): each book asked, its figures, source, and the join. */
void books_write_json(struct out *o, const struct books *b, const struct books_join *j);

#endif
