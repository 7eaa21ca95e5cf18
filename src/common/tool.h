/* SPDX-License-Identifier: MIT */
/*
 * tool.h - what the pmaps tool's files share: the messages, the one way to
 * fail, the option helpers, sizes, times and ranges.
 */
#ifndef PMAPS_TOOL_H
#define PMAPS_TOOL_H

#include <stddef.h>
#include <stdint.h>

#include "pmaps.h"

#include "common/out.h"

/* Exit codes. */
enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2 };

/*
 * The width a table is laid out for: the terminal's, where standard output
 * is one; else 80 (a file or a pipe: programs read JSON or CSV).
 */
int tool_width(void);

/* Prints "pmaps: " and the message to stderr, escaped. */
void die_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void note_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The process a command reads, as the user named it. */
struct target {
	const char *root; /* --proc-root, or NULL for /proc */
	const char *pid;
};

/*
 * Opens the target. Returns 0, or prints one line naming what is wrong (the
 * proc root, the PID or the process) and returns the exit code.
 */
int tool_proc_open(struct pmaps_proc **proc, const struct target *t);
/*
 * A failed read, as a report function returns it (it prints nothing, so a
 * front end that is no terminal can show it its own way): what was read
 * ("smaps", "pagemap"; NULL when nothing in particular), the negative errno
 * and the library's message (or "").
 */
struct failure {
	const char *file;
	int err;
	char msg[1024];
};
/* Keeps a failure's facts in F; returns ERR. */
int failed(struct failure *f, const char *file, int err, const char *msg);
/*
 * The one report of a failed read: one line naming the process, the proc
 * root when it is not /proc, what failed (the library's message, else the
 * errno's) and the privilege it needs where that is the cause. Returns
 * EXIT_FAIL.
 */
int tool_fail(const struct target *t, const struct failure *f);
/* The note every command gives for a kernel thread, before its empty result. */
void kernel_thread_note(int pid);
/*
 * The one-shot commands' limit on a read (PMAPS_EXPLAIN_HOLD_NS, as
 * explain, top and serve): whether reading PROC from SOURCE without pauses
 * would keep its mmap() waiting longer, by pmaps_cost_estimate() from its
 * status. Returns 1 over, 0 within, -1 when status cannot be read; *WAIT_NS
 * the estimate.
 */
int read_over_limit(struct pmaps_proc *proc, enum pmaps_source source, uint64_t *wait_ns);
/* NS as "850 us", "16 ms", "3 s" into B (N bytes); returns B. */
const char *fmt_duration(char *b, size_t n, uint64_t ns);
/* -v's name for a page source's VMA list, by its cost's QUERY, and why that one. */
const char *vma_list_name(int query);
/* Flushes O; on a write error prints it and returns EXIT_FAIL, else RC. */
int finish_output(struct out *o, int rc);
/* Writes a help text to standard output; returns EXIT_OK or EXIT_FAIL. */
int print_usage(const char *text);
/* After getopt_long() returned '?': one line naming the option; returns EXIT_USAGE. */
struct option;
int option_error(const char *cmd, char *const *argv, const char *shortopts,
                 const struct option *longopts);

/*
 * A size: decimal, or hex after 0x, with an optional unit K, M, G or T
 * (powers of 1024; KiB, KB and lower case alike). Returns 0, or -1 when S
 * is no size or passes 2^64 - 1.
 */
int parse_size(const char *s, uint64_t *out);
/* Decimal digits (no sign, no space), at most MAX, into *OUT. Returns 0, or -1. */
int parse_decimal(const char *s, uint64_t max, uint64_t *out);
/*
 * A time into nanoseconds: a decimal number ("2", "0.25") of UNIT
 * nanoseconds, or with a unit of its own, ms, s, m or h ("50ms", "1.5m").
 * Digits beyond a nanosecond change nothing. Returns 0, or -1 when S is
 * none or passes 2^64 - 1 ns.
 */
int parse_time(const char *s, uint64_t unit, uint64_t *ns);
/*
 * The wait T of --wss T (explain, pages): parse_time() in seconds, from 1ms
 * to 24h. Returns 0, or -1 having said why in one line (a usage error).
 */
int parse_wss_wait(const char *s, uint64_t *ns);

/* The RANGE argument of pmaps pages (range.c): a NAME, or [start, end). */
struct range_arg {
	const char *name; /* a mapping name ([heap], a path), or NULL */
	size_t name_len;
	uint64_t start, end;
};
/* Returns 0, or -1 with a message in ERR. */
int parse_range(const char *s, struct range_arg *r, char *err, size_t errsz);
/*
 * [*START, *END): the part of mapping M that RANGE asks for (NULL: all of
 * it); 0 when none.
 */
int pages_in_range(const struct range_arg *range, const struct pmaps_mapping *m, uint64_t *start,
                   uint64_t *end);

#endif
