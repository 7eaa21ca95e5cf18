/* SPDX-License-Identifier: MIT */
/*
 * writer.h - writing records over a sink, in one of four formats: an
 * aligned table (out_table.c), JSON and JSON Lines (out_json.c), CSV
 * (out_csv.c). A command says what the document holds (struct doc), then
 * hands over records as the library yields them: mappings, groups, page
 * runs, page summaries, an explain result. The same calls serve every
 * front end: the sink may be standard output or a bounded memory buffer.
 *
 * The writers do no arithmetic on memory figures: values come from the
 * library (pmaps_mapping_value(), pmaps_group_value(), the page summary,
 * the explain result), and the writers only format them.
 */
#ifndef PMAPS_WRITER_H
#define PMAPS_WRITER_H

#include "common/escape.h"
#include "common/out.h"
#include "pmaps.h"
#include "write/columns.h"

enum fmt { FMT_TABLE, FMT_JSON, FMT_JSONL, FMT_CSV };

/* What a document holds. */
enum doc_kind {
	DOC_MAPPINGS, /* mapping records */
	DOC_GROUPS,   /* group records, by path or kind */
	DOC_TOTAL,    /* one group record: the total */
	DOC_RUNS,     /* page runs */
	DOC_SUMMARY,  /* page summaries, one per mapping */
	DOC_EXPLAIN,  /* one explain result */
	DOC_PROCS,    /* pmaps top: processes (survey rows), or groups of them */
};

/* pmaps top's groups (struct doc .pgroup) */
enum { PGROUP_NONE, PGROUP_USER, PGROUP_CGROUP };

/*
 * A record of a DOC_PROCS document: one process, or one group's sum. The
 * figures are the library's (the survey row, pmaps_survey_sum_add()).
 */
struct top_line {
	const struct pmaps_survey_row *row; /* the process; NULL for a group */
	const struct pmaps_survey_sum *sum; /* the group's figures; NULL for a process */
	/*
	 * The user's name (the process's, or a user group's), NUL-terminated:
	 * bytes NSS chose, escaped as a target's. The uid in decimal when it
	 * has none.
	 */
	const char *user;
	uint32_t uid;                       /* the process's, or a user group's */
	struct pmaps_view cgroup;           /* a cgroup group's path (bytes its manager chose) */
	/*
	 * The process tree (top --tree, t): the process and its descendants
	 * among the lines, summed; its depth under the tree's root (0), and
	 * its parent's pid in the tree (0: a root, its parent not among them
	 * or its link cut where PPids made a cycle). TREE is NULL otherwise.
	 */
	const struct pmaps_survey_sum *tree;
	int depth;
	int ppid;
};

struct doc {
	enum doc_kind kind;
	int pid;
	/* maps */
	const char *source;       /* pmaps_source_name(): "smaps", "smaps_rollup", "fast", ... */
	/*
	 * The rows are a page source's (fast, pages): JSON gives the values it
	 * measured (shared, uss, file_rss, zero_page), which no field holds.
	 */
	int measured;
	int csv_source;           /* CSV: a last column names the source (not smaps) */
	enum pmaps_group_by by;   /* DOC_GROUPS, DOC_TOTAL */
	const int *cols;          /* table and CSV columns (enum col) */
	int ncols;
	int human;                /* table sizes in K/M/G rather than bytes */
	/* pages */
	enum pmaps_pages_strategy strategy;
	int kpage;                /* runs carry kpageflags and kpagecount */
	int pfn;                  /* runs carry their first frame number */
	/*
	 * Runs are split by page state alone (pmaps pages without --flags):
	 * each carries its state, not the flags that vary within it.
	 */
	int by_state;
	unsigned pace;            /* the walk's pauses: PMAPS_PAGES_GENTLE, _PACED or 0 */
	/* explain */
	int verbose;              /* the evidence behind each rule */
	int kernel_thread;        /* the result is a kernel thread's: nothing in it */
	/*
	 * The runtime's own books and their join to the result (books.h), or
	 * NULL: the table's section and equation, JSON's "runtime_books".
	 */
	const struct books *books;
	const struct pmaps_join *join;
	/*
	 * How explain's source was chosen (pmaps_explain_choose()), or NULL:
	 * the table's line and JSON's "source_choice".
	 */
	const struct pmaps_explain_choice *choice;
	/*
	 * explain --wss: the working set read with the result (its interval,
	 * method and reset), or NULL: the table's section and JSON's
	 * "working_set", and each largest mapping's touched bytes.
	 */
	const struct pmaps_wss_result *wss;
	/* top (DOC_PROCS, with COLS and HUMAN) */
	int pgroup;               /* PGROUP_*: the records are groups by user or cgroup */
	/*
	 * maps' table: the last column (a path) in at most this many columns,
	 * its end kept after ".." where it is longer (0: whole)
	 */
	int last_width;
	int tree;                 /* the processes as a tree, each with its subtree's sums */
	const struct pmaps_survey_stats *stats; /* what the refresh did */
	const struct pmaps_meminfo *meminfo;    /* the machine's figures, or NULL */
	size_t shown, matched;    /* records in the document; processes the filters let through */
	size_t denied;            /* of those, processes whose memory this reader may not read */
	int sort;                 /* the column the records are sorted by */
	int desc;                 /* largest (or last) first */
	int root;                 /* the reader is root: a denied read is no missing privilege */
	/*
	 * JSON: the user the reader runs as (pmaps serve: its page says whose
	 * processes it may read), written as "reader" with READER_UID and ROOT;
	 * NULL (pmaps top): not written. NUL-terminated; bytes NSS chose.
	 */
	const char *reader;
	uint32_t reader_uid;
	int csv_header;           /* CSV: write the heading (the first of several snapshots) */
};

struct writer;
struct books;

/* A format's writer: one of these per out_*.c file. */
struct writer_ops {
	void (*begin)(struct writer *w);
	void (*mapping)(struct writer *w, const struct pmaps_mapping *m);
	void (*group)(struct writer *w, const struct pmaps_group_row *g);
	/* A run of pages of mapping M. */
	void (*run)(struct writer *w, const struct pmaps_page_range *r, const struct pmaps_mapping *m);
	/* The page counts of mapping M (of the part of it S covers). */
	void (*summary)(struct writer *w, const struct pmaps_page_summary *s,
	                const struct pmaps_mapping *m);
	void (*explain)(struct writer *w, const struct pmaps_explain *x);
	/* A process of pmaps top, or a group of them. */
	void (*proc)(struct writer *w, const struct top_line *l);
	/* Closes the document; ERROR (or NULL) is recorded where the format can hold it. */
	void (*end)(struct writer *w, const char *error);
};

struct writer {
	struct out *o;
	enum fmt fmt;
	const struct doc *d;
	const struct writer_ops *ops;
	uint64_t rows;
	/* JSON Lines: every record starts with this, {"pid":N, */
	char lead[32];
	size_t lead_len;
	unsigned marks;   /* table, top: the row flags its marks showed, for the legend */
	/*
	 * JSON: members written before the document's closing brace (",\"next\":
	 * ..."), or NULL. Set before w_end(). The caller's bytes, not escaped.
	 */
	const char *trailer;
};

extern const struct writer_ops out_table_ops, out_json_ops, out_csv_ops;

/* Starts document D in format FMT on sink O (the header, if the format has one). */
void w_begin(struct writer *w, struct out *o, enum fmt fmt, const struct doc *d);

static inline void w_mapping(struct writer *w, const struct pmaps_mapping *m)
{
	w->ops->mapping(w, m);
	w->rows++;
	out_record(w->o);
}
static inline void w_group(struct writer *w, const struct pmaps_group_row *g)
{
	w->ops->group(w, g);
	w->rows++;
	out_record(w->o);
}
static inline void w_run(struct writer *w, const struct pmaps_page_range *r,
                         const struct pmaps_mapping *m)
{
	w->ops->run(w, r, m);
	w->rows++;
	out_record(w->o);
}
static inline void w_summary(struct writer *w, const struct pmaps_page_summary *s,
                             const struct pmaps_mapping *m)
{
	w->ops->summary(w, s, m);
	w->rows++;
	out_record(w->o);
}
static inline void w_explain(struct writer *w, const struct pmaps_explain *x)
{
	w->ops->explain(w, x);
	w->rows++;
	out_record(w->o);
}
static inline void w_proc(struct writer *w, const struct top_line *l)
{
	w->ops->proc(w, l);
	w->rows++;
	out_record(w->o);
}
void w_end(struct writer *w, const char *error);
/*
 * A document whose reading failed before its first record: JSON and JSON
 * Lines still get one, closed with ERROR (a program reading standard output
 * learns why); a table and CSV get nothing (the message is on stderr).
 */
void w_failed(struct out *o, enum fmt fmt, const struct doc *d, const char *error);

/* ---- what the writers share (writer.c) ---- */

/* Value KEY of a mapping or group row (COL's library value): 1 present, 0 absent. */
int w_value(int col, const struct pmaps_mapping *m, const struct pmaps_group_row *g,
            uint64_t *v);
/* Whether column COL of a maps document is left blank (a group by kind: the kind is its key). */
int w_blank(const struct doc *d, int col);
/* The heading of COL in a maps document: its TITLE (table) or key (CSV); the total's source. */
struct lit w_heading(const struct doc *d, int col, int title);
/* "r-xp" into P (5 bytes). */
void w_perms(char *p, unsigned perms);
/* The kind a row shows. */
const char *w_kind(const struct pmaps_mapping *m, const struct pmaps_group_row *g);
/*
 * The names of the bits of FLAGS joined by SEP into DST (SIZE bytes),
 * NUL-terminated; with QUOTE each is a JSON string. NAME gives a bit's
 * name (pmaps_page_flag_name, pmaps_kpage_flag_name). Returns the length
 * (0 when no bit is set).
 */
size_t w_flag_list(char *dst, size_t size, uint64_t flags, const char *(*name)(uint64_t bit),
                   char sep, int quote);
const char *w_page_flag_name(uint64_t bit);
/* The words of the runtime's page reader ("scan", "pagemap"). */
const char *w_strategy_key(enum pmaps_pages_strategy s);
/*
 * Figure COL (COL_SV0 + enum pmaps_survey_value) of a top line: 1 present,
 * 2 a group's sum over only the processes that had it (a part of the
 * whole), 0 absent.
 */
int w_proc_value(int col, const struct top_line *l, uint64_t *v);
/* The names of a survey row's flags a reader is told ("skipped", "denied", ...), or NULL. */
const char *w_survey_flag_name(uint64_t bit);
/* The letter a table shows for a row's flags ('\0' for none); the legend's words are out_table.c's. */
char w_survey_mark(uint32_t flags);
/* A survey figure's age as seconds with three decimals ("12.345") into DST (32 bytes). */
size_t w_age(char *dst, uint64_t ns);
/*
 * A working set's table (explain --wss, pmaps wss): per category of X and
 * in total, resident, touched, idle, touched's share and the mappings,
 * within 80 columns.
 */
void w_wss_categories(struct out *o, const struct pmaps_explain *x);
/*
 * A name from the target, escaped, in at most WIDTH columns (0: whole): a
 * longer one is its end after "..." (a path's end names the file);
 * TRUNCATED (the reader cut it) adds "...".
 */
void w_name_in(struct out *o, const char *s, size_t n, int truncated, int width);
/*
 * A working set's reading R as JSON: "working_set":{...}, its interval,
 * resident and touched bytes in total and per category; with LARGEST, the
 * largest mappings' too (explain's JSON has them in its own "largest").
 */
void w_wss_json(struct out *o, const struct pmaps_wss_result *r, int largest);

/*
 * Sets *FMT from the option OPT ('j' --json, 'L' --jsonl, 'C' --csv, as
 * every command names them); -1, with the message, when another format was
 * asked for.
 */
int set_format(enum fmt *fmt, int opt);

#endif
