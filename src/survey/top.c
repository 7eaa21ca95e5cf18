/* SPDX-License-Identifier: MIT */
/*
 * top.c - pmaps top's selection of survey rows: the filters (--user, --pid,
 * --name, --cgroup), the groups by user or cgroup (summed by the library's
 * pmaps_survey_sum_add()), the order and -n; and the cache of user names.
 * Shared by the snapshot writer (cmd_top.c) and the terminal view.
 *
 * The tables are sized to the survey's row count after a refresh and grow
 * only when there are more processes than ever before; selecting again (a
 * key press in the terminal view) allocates nothing. The sort is a heap
 * sort: qsort() may allocate, and ties are broken by pid or key, so the
 * order is the same whatever the algorithm.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/tool.h"
#include "survey/top.h"
#include "write/writer.h"

/* A block of the user name cache: blocks are never moved, so names stay put. */
#define USERS_PER_BLOCK 32
struct top_user {
	struct top_user *next;
	size_t n;
	struct {
		uint32_t uid;
		char name[64];
	} u[USERS_PER_BLOCK];
};

void top_opts_init(struct top_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->delay_s = 2.0;
	o->fmt = FMT_TABLE;
	o->sort = COL_SV0 + PMAPS_SV_PSS;
	o->group = TOP_GROUP_NONE;
	o->count = 1;
	o->cmd = "top";
	books_opts_init(&o->books);
}

/* Why the proc root cannot serve, in one line; EXIT_FAIL. */
static int root_fail(const char *cmd, const char *root, int err)
{
	const char *dir = root ? root : "/proc";

	if (err == -ENOENT)
		die_msg("%s: proc root '%s': no such directory", cmd, dir);
	else if (err == -ENOTDIR)
		die_msg("%s: proc root '%s' is not a directory", cmd, dir);
	else if (err == -EACCES || err == -EPERM)
		die_msg("%s: proc root '%s': permission denied (this user may not read the directory)",
		        cmd, dir);
	else
		die_msg("%s: proc root '%s': %s", cmd, dir, pmaps_strerror(err));
	return EXIT_FAIL;
}

/* --pid's list: "1,2,3", added to O's. Returns 0, or EXIT_USAGE with the message. */
int top_add_pids(struct top_opts *o, const char *arg)
{
	const char *s = arg;

	for (;;) {
		char num[16];
		size_t n = strcspn(s, ",");
		uint64_t v;
		if (n == 0 || n >= sizeof(num)) {
			die_msg("--pid takes process ids separated by commas, not '%s'", arg);
			return EXIT_USAGE;
		}
		memcpy(num, s, n);
		num[n] = '\0';
		if (parse_decimal(num, INT_MAX, &v) < 0 || v == 0) {
			die_msg("--pid: '%s' is not a process id", num);
			return EXIT_USAGE;
		}
		if (o->npids == TOP_MAX_PIDS) {
			die_msg("--pid: at most %d processes", TOP_MAX_PIDS);
			return EXIT_USAGE;
		}
		o->pids[o->npids++] = (int)v;
		if (!s[n])
			return 0;
		s += n + 1;
	}
}

/* --user: a name NSS knows, or a uid. Returns 0, or EXIT_USAGE with the message. */
int top_set_user(struct top_opts *o, const char *s)
{
	struct passwd pw, *res = NULL;
	char buf[4096];
	uint64_t uid;

	if (getpwnam_r(s, &pw, buf, sizeof(buf), &res) == 0 && res) {
		o->uid = pw.pw_uid;
	} else if (parse_decimal(s, UINT32_MAX - 1, &uid) == 0) { /* (uid_t)-1 is no uid */
		o->uid = (uint32_t)uid;
	} else {
		die_msg("--user: no user '%s' (a name, or a uid)", s);
		return EXIT_USAGE;
	}
	o->have_uid = 1;
	return 0;
}

void top_doc(const struct top *t, struct doc *d, struct pmaps_survey_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	memset(d, 0, sizeof(*d));
	d->kind = DOC_PROCS;
	d->pgroup = t->o.group;
	d->tree = t->o.tree && t->o.group == TOP_GROUP_NONE;
	d->stats = pmaps_survey_stats(t->s, st) == 0 ? st : NULL;
	d->meminfo = pmaps_survey_meminfo(t->s);
	d->shown = t->nlines;
	d->matched = t->matched;
	d->denied = t->denied;
	d->desc = col_sort_desc(t->o.sort) ^ (t->o.ascending != 0);
	d->sort = t->o.sort;
	if (t->o.group != TOP_GROUP_NONE && (t->o.sort == COL_PID || t->o.sort == COL_COMMAND)) {
		d->sort = t->o.group == TOP_GROUP_USER ? COL_USER : COL_CGROUP;
		d->desc = 0;
	}
	d->root = geteuid() == 0;
}

int top_option(struct top_opts *o, int ch, const char *arg, const char **name)
{
	uint64_t ns;

	switch (ch) {
	case 'u':
		if (o->have_uid)
			return top_once_only("--user", "one user; --pid takes several processes");
		return top_set_user(o, arg) != 0 ? EXIT_USAGE : 1;
	case 'p':
		return top_add_pids(o, arg) != 0 ? EXIT_USAGE : 1;
	case 'N':
		if (*name)
			return top_once_only("--name", "one regular expression: 'a|b' takes either");
		*name = arg;
		return 1;
	case 'G':
		if (arg[0] != '/') {
			die_msg("--cgroup takes a cgroup path from its root ('/system.slice'), not '%s'",
			        arg);
			return EXIT_USAGE;
		}
		if (o->cgroup)
			return top_once_only("--cgroup", "one cgroup, with what lies below it");
		o->cgroup = arg;
		return 1;
	case 'M':
		if (parse_time(arg, 1000000000u, &ns) < 0 || ns == 0) {
			die_msg("--max-age takes seconds above 0, not '%s'", arg);
			return EXIT_USAGE;
		}
		o->max_age_ns = ns;
		return 1;
	case BOOKS_OPT_NO_BOOKS:
	case BOOKS_OPT_TIMEOUT:
		return books_option(&o->books, ch, arg) < 0 ? EXIT_USAGE : 1;
	default:
		return 0;
	}
}

int top_once_only(const char *opt, const char *why)
{
	die_msg("%s given twice: it takes %s", opt, why);
	return EXIT_USAGE;
}

int top_init(struct top *t)
{
	struct pmaps_survey_opts so;
	const char *dir = t->o.root ? t->o.root : "/proc";
	int err, fd;

	/*
	 * The survey opens the root; a missing or unreadable one is named
	 * here, before the first refresh could blame it on "listing".
	 */
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return root_fail(t->o.cmd, t->o.root, -errno);
	close(fd);
	memset(&so, 0, sizeof(so));
	so.size = sizeof(so);
	so.flags = PMAPS_SURVEY_MEMINFO;
	if (t->o.exact)
		so.flags |= PMAPS_SURVEY_EXACT;
	if (t->o.breakdown)
		so.flags |= PMAPS_SURVEY_BREAKDOWN;
	if (t->o.cgroups || t->o.cgroup || t->o.group == TOP_GROUP_CGROUP)
		so.flags |= PMAPS_SURVEY_CGROUP;
	if (t->o.faults)
		so.flags |= PMAPS_SURVEY_FAULTS;
	if (t->o.oom)
		so.flags |= PMAPS_SURVEY_OOM;
	if (t->o.faults_aged)
		so.flags |= PMAPS_SURVEY_FAULTS_AGED;
	so.budget_ns = t->o.budget_ns;
	so.max_age_ns = t->o.max_age_ns;
	t->s = NULL;
	err = pmaps_survey_open(&t->s, t->o.root, &so);
	if (err == -ENOMEM) {
		die_msg("out of memory");
		return EXIT_FAIL;
	}
	if (err < 0)
		return root_fail(t->o.cmd, t->o.root, err);
	return 0;
}

/* Room for N lines and sums: grown only when N passes what was ever needed. */
static int reserve(struct top *t, size_t n)
{
	struct top_line *l;
	struct pmaps_survey_sum *s;
	size_t cap;

	if (n <= t->cap)
		return 0;
	cap = n + n / 4 + 16;
	l = realloc(t->lines, cap * sizeof(*l));
	if (!l)
		return -ENOMEM;
	t->lines = l;
	s = realloc(t->sums, cap * sizeof(*s));
	if (!s)
		return -ENOMEM;
	t->sums = s;
	{
		size_t *ix = realloc(t->tree_idx, 5 * cap * sizeof(*ix));
		struct top_line *tmp;
		if (!ix)
			return -ENOMEM;
		t->tree_idx = ix;
		tmp = realloc(t->tree_tmp, cap * sizeof(*tmp));
		if (!tmp)
			return -ENOMEM;
		t->tree_tmp = tmp;
	}
	t->cap = cap;
	return 0;
}

/* ---- the process tree (--tree) ---- */

#define NONE ((size_t)-1)

/* qsort_r()'s order of line indexes by pid; CTX is the lines. */
static int by_pid(const void *a, const void *b, void *ctx)
{
	const struct top_line *lines = ctx;
	int x = lines[*(const size_t *)a].row->pid, y = lines[*(const size_t *)b].row->pid;

	return (x > y) - (x < y);
}

/* The line of pid PID among the K lines, by BYPID (their indexes in pid order), or NONE. */
static size_t line_of(const struct top_line *lines, const size_t *bypid, size_t k, int pid)
{
	size_t lo = 0, hi = k;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int p = lines[bypid[mid]].row->pid;
		if (p == pid)
			return bypid[mid];
		if (p < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NONE;
}

/*
 * The K sorted process lines as a tree: each under its parent (status PPid,
 * when the parent is among them), siblings in the sort's order; a process
 * whose parent is not shown is a root. Each line's TREE is the sum of its
 * subtree (t->sums), merged child into parent once each (linear in K,
 * whatever the depth); a cycle a proc root may hold is cut where the walk
 * meets it. Allocates nothing: reserve() made the room.
 */
static void make_tree(struct top *t, size_t k)
{
	struct top_line *lines = t->lines;
	size_t *bypid = t->tree_idx, *parent = bypid + t->cap, *first = parent + t->cap,
	       *next = first + t->cap, *order = next + t->cap;
	size_t n = 0;

	if (k == 0)
		return;
	for (size_t i = 0; i < k; i++)
		bypid[i] = i;
	qsort_r(bypid, k, sizeof(*bypid), by_pid, lines);
	for (size_t i = 0; i < k; i++) {
		const struct pmaps_status *st = lines[i].row->status;
		int ppid = st && (st->present >> PMAPS_ST_PPID & 1) ? (int)st->v[PMAPS_ST_PPID] : 0;
		parent[i] = ppid > 0 && ppid != lines[i].row->pid ? line_of(lines, bypid, k, ppid) : NONE;
		first[i] = NONE;
		memset(&t->sums[i], 0, sizeof(t->sums[i]));
		t->sums[i].size = sizeof(t->sums[i]);
		pmaps_survey_sum_add(&t->sums[i], lines[i].row);
		lines[i].depth = -1; /* not reached yet */
	}
	/* Children lists in the sort's order: built from the last line back. */
	for (size_t i = k; i-- > 0;)
		if (parent[i] != NONE) {
			next[i] = first[parent[i]];
			first[parent[i]] = i;
		}
	/*
	 * Depth first from each root, then from any line not reached (a
	 * cycle): ORDER is the walk, a line's subtree right after it. The
	 * walk's stack is BYPID, no longer needed: a line is pushed once.
	 */
	for (int pass = 0; pass < 2; pass++)
		for (size_t r = 0; r < k; r++) {
			size_t sp = 0;
			if (lines[r].depth >= 0 || (pass == 0 && parent[r] != NONE))
				continue;
			lines[r].depth = 0;
			parent[r] = NONE;
			bypid[sp++] = r;
			while (sp) {
				size_t i = bypid[--sp], c, at;
				order[n++] = i;
				/* The first child on top of the stack: walked first. */
				for (c = first[i]; c != NONE; c = next[c])
					sp += lines[c].depth < 0;
				at = sp;
				for (c = first[i]; c != NONE; c = next[c])
					if (lines[c].depth < 0) {
						lines[c].depth = lines[i].depth + 1;
						parent[c] = i;
						bypid[--at] = c;
					}
			}
		}
	/* Subtrees into their parents: a child's sum is whole before its parent's is used. */
	for (size_t j = n; j-- > 0;) {
		size_t i = order[j];
		if (parent[i] != NONE)
			pmaps_survey_sum_merge(&t->sums[parent[i]], &t->sums[i]);
	}
	for (size_t j = 0; j < n; j++) {
		size_t i = order[j];
		t->tree_tmp[j] = lines[i];
		t->tree_tmp[j].tree = &t->sums[i];
		t->tree_tmp[j].ppid = parent[i] != NONE ? lines[parent[i]].row->pid : 0;
	}
	memcpy(lines, t->tree_tmp, n * sizeof(*lines));
}

int top_refresh(struct top *t)
{
	int r = pmaps_survey_refresh(t->s);

	if (r < 0) {
		const char *m = pmaps_survey_errmsg(t->s);
		if (r == -ENOMEM)
			die_msg("%s: out of memory", t->o.cmd);
		else
			die_msg("%s: proc root '%s': %s", t->o.cmd, t->o.root ? t->o.root : "/proc",
			        m && m[0] ? m : pmaps_strerror(r));
		return EXIT_FAIL;
	}
	/* Not one process and no meminfo: a directory, but no proc tree. */
	if (r == 0 && !pmaps_survey_meminfo(t->s)) {
		die_msg("%s: '%s' is no proc tree: no process directories and no meminfo in it",
		        t->o.cmd, t->o.root ? t->o.root : "/proc");
		return EXIT_FAIL;
	}
	t->refreshed = r;
	if (reserve(t, pmaps_survey_count(t->s)) < 0) {
		die_msg("%s: out of memory", t->o.cmd);
		return EXIT_FAIL;
	}
	top_select(t);
	return 0;
}

const char *top_user_name(struct top *t, uint32_t uid)
{
	static char none[16]; /* no memory to remember it: the number, from a buffer of one */
	struct top_user *b;
	struct passwd pw, *res = NULL;
	char buf[4096], *name;

	for (b = t->users; b; b = b->next)
		for (size_t i = 0; i < b->n; i++)
			if (b->u[i].uid == uid)
				return b->u[i].name;
	b = t->users;
	if (!b || b->n == USERS_PER_BLOCK) {
		b = calloc(1, sizeof(*b));
		if (!b) {
			snprintf(none, sizeof(none), "%u", uid);
			return none;
		}
		b->next = t->users;
		t->users = b;
	}
	b->u[b->n].uid = uid;
	name = b->u[b->n++].name;
	/* A name longer than the cache keeps, or none at all: the number, as ps shows it. */
	if (getpwuid_r(uid, &pw, buf, sizeof(buf), &res) == 0 && res && pw.pw_name &&
	    strlen(pw.pw_name) < sizeof(b->u[0].name))
		snprintf(name, sizeof(b->u[0].name), "%s", pw.pw_name);
	else
		snprintf(name, sizeof(b->u[0].name), "%u", uid);
	return name;
}

int top_set_name(struct top *t, const char *re, char *err, size_t errsz)
{
	regex_t r;
	int e;

	if (!re || !re[0]) {
		if (t->o.have_name)
			regfree(&t->o.name);
		t->o.have_name = 0;
		return 0;
	}
	e = regcomp(&r, re, REG_EXTENDED | REG_NOSUB);
	if (e != 0) {
		regerror(e, &r, err, errsz);
		return -1;
	}
	if (t->o.have_name)
		regfree(&t->o.name);
	t->o.name = r;
	t->o.have_name = 1;
	return 0;
}

/* Whether cgroup path P (N bytes) is PREFIX or below it: "/a" takes "/a" and "/a/b", not "/ab". */
static int under(const char *p, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);

	while (k > 1 && prefix[k - 1] == '/')
		k--;
	if (k == 1 && prefix[0] == '/')
		return n > 0 && p[0] == '/';
	return n >= k && memcmp(p, prefix, k) == 0 && (n == k || p[k] == '/');
}

static int wanted(const struct top *t, const struct pmaps_survey_row *row);

static int want_row(void *ctx, const struct pmaps_survey_row *row)
{
	return wanted(ctx, row);
}

void top_want_filtered(struct top *t)
{
	const struct top_opts *o = &t->o;

	if (o->have_uid || o->npids || o->cgroup || o->have_name)
		pmaps_survey_want(t->s, want_row, t);
}

/* Whether the filters let ROW through. */
static int wanted(const struct top *t, const struct pmaps_survey_row *row)
{
	const struct top_opts *o = &t->o;

	if (o->have_uid && row->uid != o->uid)
		return 0;
	if (o->npids) {
		int hit = 0;
		for (int i = 0; i < o->npids && !hit; i++)
			hit = o->pids[i] == row->pid;
		if (!hit)
			return 0;
	}
	/* The v2 path, or the memory controller's on v1 (the hybrid layout's, as serve labels it). */
	if (o->cgroup && !under(row->cgroup.ptr, row->cgroup.len, o->cgroup) &&
	    !under(row->memcg.ptr, row->memcg.len, o->cgroup))
		return 0;
	if (o->have_name) {
		/* The kernel's Name: is at most 64 bytes; a NUL in it ends it, as for a C program. */
		char comm[256];
		size_t n = row->comm.len < sizeof(comm) - 1 ? row->comm.len : sizeof(comm) - 1;
		memcpy(comm, row->comm.ptr, n);
		comm[n] = '\0';
		if (regexec(&o->name, comm, 0, NULL, 0) != 0)
			return 0;
	}
	return 1;
}

static int view_cmp(struct pmaps_view a, struct pmaps_view b)
{
	size_t n = a.len < b.len ? a.len : b.len;
	int c = n ? memcmp(a.ptr, b.ptr, n) : 0;

	return c ? c : (a.len > b.len) - (a.len < b.len);
}

/* The line's group for a process row: a user group's uid, a cgroup group's path. */
static size_t group_of(struct top *t, size_t ngroups, const struct pmaps_survey_row *row)
{
	for (size_t g = 0; g < ngroups; g++) {
		const struct top_line *l = &t->lines[g];
		if (t->o.group == TOP_GROUP_USER ? l->uid == row->uid
		                                 : view_cmp(l->cgroup, row->cgroup) == 0)
			return g;
	}
	return ngroups;
}

/* The tie-breaker: a process's pid, a group's key. */
static int tie(const struct top_line *a, const struct top_line *b)
{
	int c;

	if (a->row)
		return (a->row->pid > b->row->pid) - (a->row->pid < b->row->pid);
	if (a->cgroup.len || b->cgroup.len)
		return view_cmp(a->cgroup, b->cgroup);
	c = strcmp(a->user, b->user);
	return c ? c : (a->uid > b->uid) - (a->uid < b->uid);
}

/*
 * A before B (< 0) in the order of column COL, DESC largest first. A line
 * lacking the figure goes last in either direction: unknown is not small
 * (but for PSS and USS, where RSS stands in: see below).
 */
static int line_cmp(const struct top_line *a, const struct top_line *b, int col, int desc)
{
	int c = 0;

	if (col == COL_PMEM)
		col = COL_SV0 + PMAPS_SV_RSS; /* a share of the same MemTotal: RSS's order */
	if (col >= COL_SV0 && col < COL_SV0 + PMAPS_SV_COUNT) {
		uint64_t va = 0, vb = 0;
		int pa = w_proc_value(col, a, &va), pb = w_proc_value(col, b, &vb);
		/*
		 * A process whose PSS or USS is not known (the budget left it, or
		 * this reader may not read it) sorts by its RSS, the most either
		 * can be: a large process stays in view, its figure shown as '-'.
		 */
		if (col == COL_SV0 + PMAPS_SV_PSS || col == COL_SV0 + PMAPS_SV_USS) {
			if (!pa && a->row)
				pa = w_proc_value(COL_SV0 + PMAPS_SV_RSS, a, &va);
			if (!pb && b->row)
				pb = w_proc_value(COL_SV0 + PMAPS_SV_RSS, b, &vb);
		}
		/* A group's part of a sum (2) sorts by its value, as a whole one (1). */
		if (!pa != !pb)
			return pa ? -1 : 1;
		c = (va > vb) - (va < vb);
	} else if (col == COL_PID && a->row) {
		c = (a->row->pid > b->row->pid) - (a->row->pid < b->row->pid);
	} else if (col == COL_USER) {
		c = strcmp(a->user, b->user);
	} else if (col == COL_UID) {
		c = (a->uid > b->uid) - (a->uid < b->uid);
	} else if (col == COL_COMMAND && a->row) {
		c = view_cmp(a->row->comm, b->row->comm);
	} else if (col == COL_PROCS && a->sum) {
		c = (a->sum->processes > b->sum->processes) - (a->sum->processes < b->sum->processes);
	} else if (col == COL_CGROUP) {
		c = view_cmp(a->row ? a->row->cgroup : a->cgroup, b->row ? b->row->cgroup : b->cgroup);
	}
	if (desc)
		c = -c;
	return c ? c : tie(a, b);
}

static void sift(struct top_line *l, size_t i, size_t n, int col, int desc)
{
	for (;;) {
		size_t c = 2 * i + 1;
		struct top_line x;
		if (c >= n)
			return;
		if (c + 1 < n && line_cmp(&l[c], &l[c + 1], col, desc) < 0)
			c++;
		if (line_cmp(&l[i], &l[c], col, desc) >= 0)
			return;
		x = l[i];
		l[i] = l[c];
		l[c] = x;
		i = c;
	}
}

/* Heap sort: in place, no allocation. */
static void sort_lines(struct top_line *l, size_t n, int col, int desc)
{
	for (size_t i = n / 2; i-- > 0;)
		sift(l, i, n, col, desc);
	for (size_t end = n; end-- > 1;) {
		struct top_line x = l[0];
		l[0] = l[end];
		l[end] = x;
		sift(l, 0, end, col, desc);
	}
}

void top_select(struct top *t)
{
	size_t n = t->s ? pmaps_survey_count(t->s) : 0, k = 0;
	int desc;

	t->matched = 0;
	t->denied = 0;
	t->pids_missing = 0;
	if (n > t->cap)
		n = t->cap; /* a refresh that could not grow the tables: what fits */
	for (size_t i = 0; i < n; i++) {
		const struct pmaps_survey_row *row = pmaps_survey_get(t->s, i);
		struct top_line *l;
		size_t g;
		if (!row || !wanted(t, row))
			continue;
		t->matched++;
		t->denied += (row->flags & PMAPS_SURVEY_DENIED) != 0;
		if (t->o.group == TOP_GROUP_NONE) {
			l = &t->lines[k++];
			memset(l, 0, sizeof(*l));
			l->row = row;
			l->uid = row->uid;
			l->user = top_user_name(t, row->uid);
			continue;
		}
		g = group_of(t, k, row);
		l = &t->lines[g];
		if (g == k) {
			k++;
			memset(l, 0, sizeof(*l));
			memset(&t->sums[g], 0, sizeof(t->sums[g]));
			t->sums[g].size = sizeof(t->sums[g]);
			l->sum = &t->sums[g];
			l->uid = row->uid;
			if (t->o.group == TOP_GROUP_USER) {
				l->user = top_user_name(t, row->uid);
			} else {
				l->user = "";
				l->cgroup = row->cgroup;
			}
		}
		pmaps_survey_sum_add(&t->sums[g], row);
	}
	for (int i = 0; i < t->o.npids && t->s; i++)
		t->pids_missing += pmaps_survey_find(t->s, t->o.pids[i]) == NULL;
	/* Sizes and counts largest first, names and numbers ascending; --ascending turns it. */
	desc = col_sort_desc(t->o.sort);
	if (t->o.ascending)
		desc = !desc;
	if (t->o.group != TOP_GROUP_NONE && (t->o.sort == COL_PID || t->o.sort == COL_COMMAND))
		sort_lines(t->lines, k, t->o.group == TOP_GROUP_USER ? COL_USER : COL_CGROUP, 0);
	else
		sort_lines(t->lines, k, t->o.sort, desc);
	if (t->o.tree && t->o.group == TOP_GROUP_NONE)
		make_tree(t, k);
	t->nlines = t->o.limit > 0 && (size_t)t->o.limit < k ? (size_t)t->o.limit : k;
}

void top_done(struct top *t)
{
	pmaps_survey_close(t->s);
	t->s = NULL;
	free(t->lines);
	free(t->sums);
	free(t->tree_idx);
	free(t->tree_tmp);
	t->tree_idx = NULL;
	t->tree_tmp = NULL;
	while (t->users) {
		struct top_user *b = t->users;
		t->users = b->next;
		free(b);
	}
	t->lines = NULL;
	t->sums = NULL;
	t->nlines = t->cap = 0;
	if (t->o.have_name)
		regfree(&t->o.name);
	t->o.have_name = 0;
}
