/* SPDX-License-Identifier: MIT */
/*
 * tool.h - what the pmaps tool's files share: the output writer, the column
 * model and the subcommands.
 */
#ifndef PMAPS_TOOL_H
#define PMAPS_TOOL_H

#include <stddef.h>
#include <stdint.h>

#include "escape.h"
#include "pmaps.h"

/* Exit codes. */
enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2 };

/* A buffered writer on a file descriptor: one write(2) per 64 KiB. */
struct out {
	int fd;
	int err;      /* first write error (errno), sticky */
	size_t len;
	char buf[65536];
};

void out_init(struct out *o, int fd);
void out_flush(struct out *o);
void out_mem(struct out *o, const char *s, size_t n);
void out_str(struct out *o, const char *s);
void out_ch(struct out *o, char c);
void out_pad(struct out *o, size_t n);
void out_u64(struct out *o, uint64_t v);
/* KEY written as is (such as ",\"rss\":"), then V. */
void out_key_u64(struct out *o, const char *key, uint64_t v);
void out_hex(struct out *o, uint64_t v, int min_digits);
/* Right-aligns S in WIDTH columns (no truncation). */
void out_rjust(struct out *o, const char *s, size_t len, size_t width);
void out_ljust(struct out *o, const char *s, size_t len, size_t width);
/* Bytes in binary units: "0", "512B", "4K", "1.5M", "37G". Returns the length. */
size_t fmt_human(char *dst, uint64_t bytes);
size_t fmt_u64(char *dst, uint64_t v);

/* Prints "pmaps: " and the message to stderr. */
void die_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void note_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* What every command does the same way (main.c). */
struct option;
/*
 * Opens process PID under ROOT (NULL: /proc). Returns 0, or prints one line
 * naming what is wrong (the proc root, the PID or the process) and returns
 * the exit code.
 */
int tool_proc_open(struct pmaps_proc **proc, const char *root, const char *pid);
/* The note every command gives for a kernel thread, before its empty result. */
void kernel_thread_note(int pid);
/* Flushes O; on a write error prints it and returns EXIT_FAIL, else RC. */
int finish_output(struct out *o, int rc);
/* The same for standard output written with stdio. */
int finish_stdout(int rc);
/* Writes a help text to standard output; returns EXIT_OK or EXIT_FAIL. */
int print_usage(const char *text);
/* After getopt_long() returned '?': one line naming the option; returns EXIT_USAGE. */
int option_error(const char *cmd, char *const *argv, const char *shortopts,
                 const struct option *longopts);

/* Columns a table or CSV can show. Fields come first, as enum pmaps_field. */
enum col {
	COL_FIELD0 = 0,
	COL_ADDRESS = PMAPS_F_COUNT, /* start-end */
	COL_START,
	COL_END,
	COL_PERMS,
	COL_OFFSET,
	COL_DEV,
	COL_INODE,
	COL_KIND,
	COL_SHARED, /* shared_clean + shared_dirty */
	COL_MAPPINGS, /* grouped rows: how many mappings */
	COL_VSIZE,
	COL_VMFLAGS,
	COL_PATH,
	COL_COUNT
};

const char *col_name(int col);
/* The column named S (N bytes, any case, kernel or snake_case name), or -1. */
int col_lookup(const char *s, size_t n);
/* Parses "rss,pss,path" or "all" into COLS; returns the count, or -1 with a message. */
int parse_columns(const char *spec, int *cols, int max, int grouped);

enum fmt { FMT_TABLE, FMT_JSON, FMT_CSV };
/* Sets *FMT to WANT; -1, with the message, when another format was asked for. */
int set_format(enum fmt *fmt, enum fmt want);

struct maps_opts {
	const char *proc_root;
	const char *pid;
	enum fmt fmt;
	int group;          /* -1 none, else enum pmaps_group_by */
	int sort_col;       /* -1 none */
	int ncols;
	int cols[COL_COUNT];
	int human;          /* table: human units (default); 0: bytes */
	const char *title;  /* demo: a heading above the table */
};

/* The RANGE argument of pmaps pages (range.c): a NAME, or [start, end). */
struct range_arg {
	const char *name; /* a mapping name ([heap], a path), or NULL */
	size_t name_len;
	uint64_t start, end;
};
/* Returns 0, or -1 with a message in ERR. */
int parse_range(const char *s, struct range_arg *r, char *err, size_t errsz);

int cmd_maps(int argc, char **argv);
int cmd_pages(int argc, char **argv);
int cmd_explain(int argc, char **argv);
/* Explains PID under ROOT (NULL: /proc) to standard output; returns an exit code. */
int explain_report(const char *root, const char *pid, int json, unsigned options, int verbose);
int cmd_demo(int argc, char **argv);
/* Runs a maps report with O to standard output; returns an exit code. */
int maps_report(const struct maps_opts *o);
void maps_default_columns(struct maps_opts *o);

#endif
