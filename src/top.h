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

#include "pmaps.h"
#include "writer.h"

/* top_opts.group */
enum { TOP_GROUP_NONE, TOP_GROUP_USER, TOP_GROUP_CGROUP };

#define TOP_MAX_PIDS 64

struct top_opts {
	const char *root;    /* --proc-root, or NULL for /proc */
	double delay_s;      /* -d: seconds between refreshes (> 0; default 2) */
	int once;            /* --once: one snapshot, never the terminal view */
	enum fmt fmt;        /* --json, --jsonl, --csv; FMT_TABLE otherwise */
	int limit;           /* -n: the first LIMIT lines only; 0 all */
	int sort;            /* --sort: a survey column (enum col, REC_PROC): COL_SV0 + PMAPS_SV_PSS ... */
	int ascending;       /* --ascending: smallest first (sizes sort largest first otherwise) */
	int have_uid;        /* --user given: only processes of UID */
	uint32_t uid;
	int pids[TOP_MAX_PIDS]; /* --pid: only these processes (NPIDS of them; 0 none asked) */
	int npids;
	int have_name;       /* --name given: only commands NAME matches */
	regex_t name;        /* POSIX extended, on the command name (status Name:) */
	const char *cgroup;  /* --cgroup: only cgroup v2 paths that start with it, or NULL */
	uint64_t budget_ns;  /* --budget: costly reading per refresh (0: the library's default) */
	int exact;           /* --exact: no budget, every process from smaps_rollup */
	uint64_t max_age_ns; /* --max-age: costly figures are read again at least this often (0: default) */
	int color;           /* the terminal view may use colours (no NO_COLOR) */
	int group;           /* --group: TOP_GROUP_* */
	int count;           /* --count: snapshots written when not interactive; 0 forever */
};

/* One line of what a front end shows: a process, or a group's sum. */
struct top_line {
	const struct pmaps_survey_row *row; /* the process; NULL for a group */
	const struct pmaps_survey_sum *sum; /* the group's figures; NULL for a process */
	/*
	 * A group's key: the user's name (top_user_name(), NUL-terminated) or
	 * the cgroup path (bytes the cgroup manager chose). Empty for a process.
	 */
	struct pmaps_view key;
	uint32_t uid;                       /* a user group's uid */
};

struct top_user; /* top.c's cache of user names */

struct top {
	struct top_opts o;
	struct pmaps_survey *s;   /* NULL until top_init() */
	int refreshed;            /* the result of the last pmaps_survey_refresh() (>= 0) */
	/* The selection: filtered, grouped, sorted (top_select()). */
	struct top_line *lines;
	size_t nlines, cap;       /* CAP: room in LINES and SUMS */
	struct pmaps_survey_sum *sums; /* the groups' sums, one per group line */
	size_t matched;           /* processes the filters let through (before -n) */
	size_t pids_missing;      /* --pid processes the survey does not have */
	struct top_user *users;   /* uid -> name cache */
	size_t nusers, users_cap;
};

/* Fills O with the defaults (delay 2 s, sort by PSS, one snapshot). */
void top_opts_init(struct top_opts *o);
/* Opens the survey. Returns 0, or prints one line and returns the exit code. */
int top_init(struct top *t);
/*
 * One refresh of the survey, then top_select(). Returns 0, or prints one
 * line and returns the exit code.
 */
int top_refresh(struct top *t);
/*
 * Filters, groups and sorts the survey's rows into T->lines (after a
 * change of T->o.sort, .ascending, .group, or a filter). Allocates nothing.
 */
void top_select(struct top *t);
/*
 * Replaces the --name filter by RE (POSIX extended; NULL or "" drops it).
 * Returns 0, or -1 with the regcomp() message in ERR (the old filter kept).
 */
int top_set_name(struct top *t, const char *re, char *err, size_t errsz);
/*
 * The name of user UID (NSS, cached for the life of T; the uid in decimal
 * when it has none). NUL-terminated; bytes NSS chose: escape before showing.
 */
const char *top_user_name(struct top *t, uint32_t uid);
/* Closes the survey and frees the tables. */
void top_done(struct top *t);

/* The live terminal view (top_tui.c): runs until the user quits; returns an exit code. */
int top_tui_run(struct top *t);

#endif
