/* SPDX-License-Identifier: MIT */
/*
 * top.h - pmaps top: its options, and the selection of survey rows (filter,
 * group, sort) that the snapshot writer (cmd_top.c) and the terminal view
 * (top_tui.c) share. The survey (libpmaps) reads; this picks and orders
 * what a front end shows. It does no arithmetic on memory figures: a
 * group's figures are pmaps_survey_sum_add()'s.
 *
 * Memory: top_refresh() sizes the tables to the survey's row count, growing
 * them only when there are more processes than ever before; top_select()
 * allocates nothing, so a front end may call it on every key press.
 */
#ifndef PMAPS_TOP_H
#define PMAPS_TOP_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>

#include "books/books.h"
#include "pmaps.h"
#include "write/writer.h"

/* top_opts.group: as the writers' doc.pgroup */
enum {
	TOP_GROUP_NONE = PGROUP_NONE,
	TOP_GROUP_USER = PGROUP_USER,     /* one line per user (the real uid) */
	TOP_GROUP_CGROUP = PGROUP_CGROUP, /* one line per cgroup v2 path */
};

#define TOP_MAX_PIDS 64

struct top_opts {
	const char *root;    /* --proc-root, or NULL for /proc */
	double delay_s;      /* -d: seconds between refreshes (> 0; default 2) */
	int once;            /* --once: one snapshot, never the terminal view */
	enum fmt fmt;        /* --json, --jsonl, --csv; FMT_TABLE otherwise */
	int limit;           /* -n: the first LIMIT lines only; 0 all */
	/*
	 * --sort: a column of enum col (REC_PROC or REC_PGROUP): COL_SV0 + a
	 * figure (PMAPS_SV_PSS, the default), COL_PID, COL_USER, COL_UID,
	 * COL_COMMAND, COL_CGROUP, COL_PROCS. Groups sorted by COL_PID or
	 * COL_COMMAND go by their key. A line lacking the figure goes last.
	 */
	int sort;
	int ascending;       /* --ascending: the other way (col_sort_desc(): sizes largest first) */
	int have_uid;        /* --user given: only processes of UID */
	uint32_t uid;
	int pids[TOP_MAX_PIDS]; /* --pid: only these processes (NPIDS of them; 0 none asked) */
	int npids;
	int have_name;       /* --name given: only commands NAME matches */
	regex_t name;        /* POSIX extended, on the command name (status Name:) */
	const char *cgroup;  /* --cgroup: only processes in this cgroup v2 path or below it, or NULL */
	uint64_t budget_ns;  /* --budget: costly reading per refresh (0: the library's default, 100 ms) */
	int exact;           /* --exact: no budget, every process from smaps_rollup */
	uint64_t max_age_ns; /* --max-age: costly figures are read again at least this often (0: default) */
	int color;           /* the terminal view may use colours (no NO_COLOR) */
	int group;           /* --group: TOP_GROUP_* */
	int tree;            /* --tree: processes under their parents, each with its subtree's sums */
	/*
	 * --fields: the figures shown beside (or, in the table, instead of)
	 * the default ones, columns of enum col; FAULTS: the survey reads them
	 */
	int fields[16];
	int nfields;
	int faults;
	int oom;             /* read each process's oom_score and oom_score_adj (serve) */
	int faults_aged;     /* the faults read with status only (serve: PMAPS_SURVEY_FAULTS_AGED) */
	int count;           /* --count: snapshots written when not interactive (default 1); 0 forever */
	int cgroups;         /* read each process's cgroup: --cgroup, --group cgroup, the terminal view */
	int breakdown;       /* each process's breakdown by category (PMAPS_SURVEY_BREAKDOWN): serve */
	const char *cmd;     /* the command messages name ("top", "serve") */
	/*
	 * --no-books, --books-timeout: the runtime's books of a process's
	 * explain (top's drill-down, serve's /api/process/PID/explain)
	 */
	struct books_opts books;
};

struct top_user; /* top.c's cache of user names */

struct top {
	struct top_opts o;
	struct pmaps_survey *s;   /* NULL until top_init() */
	int refreshed;            /* the result of the last pmaps_survey_refresh() (>= 0) */
	/*
	 * The selection: filtered, grouped, sorted (top_select()). A line is
	 * a process or a group's sum (struct top_line, writer.h: the writers
	 * take it as their record); valid until the next refresh or select.
	 */
	struct top_line *lines;
	size_t nlines, cap;       /* CAP: room in LINES and SUMS */
	struct pmaps_survey_sum *sums; /* the groups' sums, one per group line (--tree: subtree's) */
	/* --tree's work space, CAP of each: pid order, parents, children, the walk */
	size_t *tree_idx;
	struct top_line *tree_tmp;
	size_t matched;           /* processes the filters let through (before -n) */
	size_t denied;            /* of them, PMAPS_SURVEY_DENIED: status figures only */
	size_t pids_missing;      /* --pid processes the survey does not have */
	struct top_user *users;   /* uid -> name cache: blocks whose names stay put */
};

/* --pid's list: "1,2,3", added to O's. Returns 0, or EXIT_USAGE with the message. */
int top_add_pids(struct top_opts *o, const char *arg);
/* --user: a name NSS knows, or a uid. Returns 0, or EXIT_USAGE with the message. */
int top_set_user(struct top_opts *o, const char *s);
/*
 * The options top and serve share, as getopt_long() gave them: 'u'
 * --user, 'p' --pid, 'N' --name (into *NAME, compiled later), 'G'
 * --cgroup, 'M' --max-age, and the books' --no-books and --books-timeout
 * (BOOKS_LONGOPTS_EXPLAIN). Returns 1 when CH was one of them (O updated),
 * 0 when it was not, or EXIT_USAGE after one line naming what is wrong.
 */
int top_option(struct top_opts *o, int ch, const char *arg, const char **name);
/*
 * A document of T's lines (DOC_PROCS) as top and serve write it: the
 * refresh's stats (into ST, which must outlive D), the machine's figures,
 * the counts, the sort. The caller adds the columns and its own fields.
 */
void top_doc(const struct top *t, struct doc *d, struct pmaps_survey_stats *st);
/* "OPT given twice: it takes WHY"; returns EXIT_USAGE. */
int top_once_only(const char *opt, const char *why);
/* Fills O with the defaults: delay 2 s, sorted by PSS largest first, one snapshot. */
void top_opts_init(struct top_opts *o);
/*
 * Opens the survey of T->o.root with T->o's budget, max age and flags (the
 * machine's meminfo always; cgroups for --cgroup, --group cgroup and
 * T->o.cgroups). Reads nothing yet. Returns 0, or prints one line (a proc
 * root that cannot be read) and returns the exit code.
 */
int top_init(struct top *t);
/*
 * Asks the survey to read past status only the processes T's filters
 * (--user, --pid, --name, --cgroup) let through: for snapshots, whose
 * filters stay put (the terminal view's change with its keys).
 */
void top_want_filtered(struct top *t);
/*
 * One refresh of the survey, then top_select(). Returns 0, or prints one
 * line and returns the exit code.
 */
int top_refresh(struct top *t);
/*
 * Filters, groups and sorts the survey's rows into T->lines (after a
 * change of T->o.sort, .ascending, .group, .limit or a filter). Allocates
 * nothing but a name for a uid not seen before (top_user_name()).
 */
void top_select(struct top *t);
/*
 * Replaces the --name filter by RE (POSIX extended; NULL or "" drops it).
 * Returns 0, or -1 with the regcomp() message in ERR (the old filter kept).
 */
int top_set_name(struct top *t, const char *re, char *err, size_t errsz);
/*
 * The name of user UID (NSS, cached: the pointer is valid for the life of
 * T; the uid in decimal when it has none). NUL-terminated; bytes NSS chose:
 * escape before showing. Allocates only for a uid not seen before.
 */
const char *top_user_name(struct top *t, uint32_t uid);
/* Closes the survey and frees the tables. */
void top_done(struct top *t);

#endif
