/* SPDX-License-Identifier: MIT */
/*
 * watch_loop.h - between cmd_watch.c (options, starting run's command) and
 * watch.c (the sampling loop, the lines, JSON Lines and the summary).
 */
#ifndef PMAPS_WATCH_LOOP_H
#define PMAPS_WATCH_LOOP_H

#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "books/books.h"
#include "common/tool.h"
#include "write/writer.h"

/* The shortest and longest --interval. */
#define WATCH_MIN_INTERVAL_NS 10000000ull
#define WATCH_MAX_INTERVAL_NS 86400000000000ull

struct timeline;

struct watch_opts {
	struct target t;       /* watch: the process; run: unused (the child's pid is used) */
	enum fmt fmt;          /* FMT_TABLE or FMT_JSONL */
	uint64_t interval_ns;
	uint64_t duration_ns;  /* 0: no limit */
	uint64_t count;        /* 0: no limit */
	int source;            /* PMAPS_SRC_AUTO, _SMAPS or _PAGES */
	int pages;             /* --pages */
	int human;             /* sizes in K/M/G */
	int quiet;             /* run -q: the summary only */
	int children;          /* --children: the descendants too (watch_kids.c) */
	const char *svg;       /* --svg FILE, or NULL */
	/*
	 * --wss: each breakdown also says what the process touched since the
	 * one before (the library's working-set session: it resets the
	 * process's referenced bits after each breakdown, and at the start)
	 */
	int wss;
	/* the runtime's books (--go-pprof, --no-books, ...; run: the malloc helper's socket) */
	struct books_opts books;
	/* run */
	int run;
	const char *cmd;       /* CMD as given */
	pid_t child;
	int out_fd;            /* where the lines go (watch: standard output) */
	/* opened by watch_prepare() */
	struct timeline *tl;
};


/*
 * What must fail before sampling starts (run: before CMD starts): creates
 * --svg's file. Returns 0, or prints the message and returns EXIT_FAIL.
 */
int watch_prepare(struct watch_opts *o);
/* Undoes watch_prepare() when nothing was watched. */
void watch_unprepare(struct watch_opts *o);
/*
 * Reaps run's child PID (blocking) into *STATUS and *RU, the pid SIGTERM
 * and SIGHUP go on to cleared before the pid is freed. Returns 0, or a
 * negative errno (-ECHILD: the status is lost).
 */
int run_reap(pid_t pid, int *status, struct rusage *ru);
/*
 * Watches O->t.pid (watch) or O->child (run, prepared, and reaped here)
 * until it exits or a limit or signal ends it; writes the summary. Returns
 * the exit code: watch's, or run's: CMD's status once it ran, whatever
 * pmaps's own failures (told on standard error); 1 only when the status is
 * lost.
 */
int watch_pid(struct watch_opts *o);
/*
 * pmaps run: starts ARGV (CMD and its arguments) and watches it with O,
 * the lines to OUTPUT (NULL: standard error). Returns run's exit code:
 * CMD's status once it ran, 127 or 126 when it could not start.
 */
int run_start(struct watch_opts *o, char **argv, const char *output);

#endif
