/* SPDX-License-Identifier: MIT */
/*
 * cmd_top.c - `pmaps top`: every process ranked by what its memory costs
 * (USS, PSS, RSS, swap). On a terminal, the live view (top_tui.c); else,
 * or with --once or a format for programs, snapshots through the writers:
 * a table with the machine's figures and the refresh's cost above it,
 * JSON, JSON Lines or CSV.
 *
 * The survey (libpmaps) reads, at a bounded cost per refresh; top.c
 * filters, groups and sorts; this file parses the options and hands the
 * lines to the writers. No arithmetic on memory figures here.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "common/tool.h"
#include "survey/top.h"
#include "tui/top_tui.h"
#include "write/writer.h"

static const char top_usage[] =
	"Usage: pmaps top [OPTIONS]\n"
	"\n"
	"Every process ranked by what its memory costs: USS (pages no other process\n"
	"maps), PSS (shared pages split between the processes that map them), RSS\n"
	"and swap. On a terminal a live view, refreshed every 2 s; otherwise (or with\n"
	"--once, --json, --jsonl, --csv, --count) snapshots: the machine's figures from\n"
	"/proc/meminfo, what the refresh cost, then one line per process.\n"
	"\n"
	"Options:\n"
	"  -d, --delay SECS       seconds between refreshes (default 2; 0.5 or 500ms is\n"
	"                         fine: SECS, MS may carry a unit ms, s, m or h)\n"
	"      --once             one snapshot, even on a terminal\n"
	"      --count N          N snapshots, --delay apart (0: until interrupted);\n"
	"                         never the live view (default 1)\n"
	"  -n, --lines N          the first N lines only (0: all)\n"
	"  -s, --sort FIELD       pss (the default), uss, rss, swap, swap_pss, anon,\n"
	"                         file, shmem, lazyfree, vsize, mem_percent, threads,\n"
	"                         hwm, page_tables, locked, minflt, majflt: largest\n"
	"                         first; pid,\n"
	"                         user, uid, command, cgroup: ascending; processes\n"
	"                         (--group). Without PSS or USS a process sorts by\n"
	"                         its RSS, their bound; lacking another figure, last\n"
	"      --ascending        the other way round\n"
	"  -u, --user USER        only processes of USER (a name or a uid)\n"
	"  -p, --pid PID[,PID...] only these processes (repeatable)\n"
	"      --name REGEX       only commands REGEX matches (POSIX extended)\n"
	"      --cgroup PATH      only processes in cgroup PATH or below it (the v2\n"
	"                         path, or the memory controller's on v1)\n"
	"  -g, --group user|cgroup  one line per user or cgroup, summed, with its count\n"
	"  -f, --fields LIST      the table's figures, comma-separated (PID and Command\n"
	"                         stay unless named): rss, pss, uss, swap, swap_pss,\n"
	"                         anon, file, shmem, lazyfree, vsize, mem_percent (RSS\n"
	"                         of MemTotal), threads, hwm (peak RSS), page_tables,\n"
	"                         locked (mlock), minflt, majflt (page faults,\n"
	"                         from stat: read only when asked), user, uid, state,\n"
	"                         source, age_s, flags, cgroup; in the live view, the\n"
	"                         figures shown beside RSS, PSS, USS and Swap\n"
	"  -t, --tree             each process under its parent, siblings in the sort's\n"
	"                         order; its RSS, PSS, USS and swap are those of it and\n"
	"                         all its descendants shown, summed (JSON: its own, and\n"
	"                         \"tree\" the sums)\n"
	"      --budget MS        costly reading per refresh, in milliseconds (default\n"
	"                         100): what it leaves keeps older figures, marked S\n"
	"      --exact            no budget: every process from smaps_rollup, every\n"
	"                         refresh, however long it holds a large process\n"
	"      --max-age SECS     read PSS and USS again at least this often (default 10)\n"
	BOOKS_USAGE_EXPLAIN
	"  -j, --json             one JSON document per snapshot (bytes)\n"
	"      --jsonl            JSON Lines: one object per process, with its \"refresh\"\n"
	"      --csv              CSV (bytes): one heading, a line per process\n"
	"  -b, --bytes            table sizes in bytes instead of K/M/G\n"
	"      --proc-root DIR    read DIR instead of /proc (a host's proc, a fixture)\n"
	"  -h, --help             show this help\n"
	"\n"
	"Sources: RSS, swap, anon, file, shmem and vsize come from /proc/PID/status at\n"
	"every refresh (it walks nothing). PSS, USS, swap_pss and lazyfree come from\n"
	"smaps_rollup, read again only when status moved or the figures are older\n"
	"than --max-age; a process so large that one read would hold its mmap_lock\n"
	"too long is walked gently instead (USS; PSS as root), marked L. A process\n"
	"this user may not read shows status figures and '-' (marked D); the header\n"
	"says which privilege shows the rest. Kernel threads are not listed.\n"
	"\n"
	"Marks: D denied, F failed, S skipped by the budget, L large, P partial; an\n"
	"Age where the figures are older than this refresh (JSON \"age_s\", \"flags\").\n"
	"\n"
	"Exit status: 0 on success, 1 when the proc root cannot be read, no process\n"
	"--pid names exists, or the output cannot be written; 2 on a usage error.\n";

/* A count: decimal digits, at most INT_MAX. Returns 0, or -1. */
static int parse_count(const char *s, int *out)
{
	uint64_t v;

	if (parse_decimal(s, INT_MAX, &v) < 0)
		return -1;
	*out = (int)v;
	return 0;
}

/*
 * The table sorted by a figure it does not show (vsize, anon, ...) shows it,
 * after the last figure. Returns the new count.
 */
static int with_sort_column(const struct top_opts *o, int *cols, int n)
{
	int at = 0;

	if (o->sort < COL_SV0 || o->sort >= COL_SV0 + PMAPS_SV_COUNT)
		return n;
	for (int i = 0; i < n; i++) {
		if (cols[i] == o->sort)
			return n;
		if (cols[i] >= COL_SV0 && cols[i] < COL_SV0 + PMAPS_SV_COUNT)
			at = i + 1;
	}
	memmove(cols + at + 1, cols + at, (size_t)(n - at) * sizeof(cols[0]));
	cols[at] = o->sort;
	return n + 1;
}

/* Whether the list of --fields names COL. */
static int asked(const struct top_opts *o, int col)
{
	for (int i = 0; i < o->nfields; i++)
		if (o->fields[i] == col)
			return 1;
	return 0;
}

/*
 * --fields LIST into O: top's columns a process or group has, each once.
 * Returns 0, or EXIT_USAGE after one line naming what is wrong.
 */
static int parse_top_fields(struct top_opts *o, const char *spec)
{
	o->nfields = 0;
	for (;;) {
		const char *e = strchr(spec, ',');
		size_t len = e ? (size_t)(e - spec) : strlen(spec);
		int c = len ? col_top_lookup(spec, len, REC_PROC | REC_PGROUP) : -1;
		if (len == 0) {
			die_msg("--fields: an empty name in the list (names are separated by one comma)");
			return EXIT_USAGE;
		}
		if (c < 0 || c == COL_REFRESH || c == COL_PROCS || c == COL_PARTIAL) {
			die_msg("--fields: unknown field '%.*s' (see pmaps top --help)", (int)len, spec);
			return EXIT_USAGE;
		}
		if (asked(o, c)) {
			die_msg("--fields: '%.*s' is named twice", (int)len, spec);
			return EXIT_USAGE;
		}
		if (o->nfields == (int)(sizeof(o->fields) / sizeof(o->fields[0]))) {
			die_msg("--fields: too many fields");
			return EXIT_USAGE;
		}
		o->fields[o->nfields++] = c;
		if (!e)
			return 0;
		spec = e + 1;
	}
}

/* The columns a snapshot shows: the table's, or every one for CSV. */
static int top_columns(const struct top_opts *o, int *cols)
{
	static const int table[] = {COL_PID, COL_USER, COL_MARK, COL_SV0 + PMAPS_SV_RSS,
	                            COL_SV0 + PMAPS_SV_PSS, COL_SV0 + PMAPS_SV_USS,
	                            COL_SV0 + PMAPS_SV_SWAP, COL_PSOURCE, COL_AGE, COL_COMMAND};
	static const int csv[] = {COL_REFRESH, COL_PID, COL_USER, COL_UID, COL_STATE, COL_COMMAND};
	static const int csv_tail[] = {COL_PSOURCE, COL_AGE, COL_MARK, COL_CGROUP};
	static const int sums[] = {COL_SV0 + PMAPS_SV_RSS, COL_SV0 + PMAPS_SV_PSS,
	                           COL_SV0 + PMAPS_SV_USS, COL_SV0 + PMAPS_SV_SWAP};
	int n = 0;

	if (o->fmt == FMT_TABLE && o->nfields) {
		/* The row's identity stays unless named: the pid (a group's key) and the command. */
		if (o->group == TOP_GROUP_USER && !asked(o, COL_USER))
			cols[n++] = COL_USER;
		if (o->group != TOP_GROUP_NONE)
			cols[n++] = COL_PROCS;
		else if (!asked(o, COL_PID))
			cols[n++] = COL_PID;
		for (int i = 0; i < o->nfields; i++)
			if (o->group == TOP_GROUP_NONE || (columns[o->fields[i]].records & REC_PGROUP))
				cols[n++] = o->fields[i];
		if (o->group == TOP_GROUP_NONE && !asked(o, COL_COMMAND))
			cols[n++] = COL_COMMAND;
		if (o->group == TOP_GROUP_CGROUP && !asked(o, COL_CGROUP))
			cols[n++] = COL_CGROUP;
		return with_sort_column(o, cols, n);
	}
	if (o->fmt == FMT_TABLE) {
		if (o->group == TOP_GROUP_USER)
			cols[n++] = COL_USER;
		if (o->group != TOP_GROUP_NONE) {
			cols[n++] = COL_PROCS;
			for (size_t i = 0; i < sizeof(sums) / sizeof(sums[0]); i++)
				cols[n++] = sums[i];
			if (o->group == TOP_GROUP_CGROUP)
				cols[n++] = COL_CGROUP;
			return with_sort_column(o, cols, n);
		}
		for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
			cols[n++] = table[i];
		/* The cgroups were read for --cgroup or --sort cgroup: shown last, as they are long. */
		if (o->cgroup || o->sort == COL_CGROUP)
			cols[n++] = COL_CGROUP;
		return with_sort_column(o, cols, n);
	}
	cols[n++] = COL_REFRESH;
	if (o->group == TOP_GROUP_USER) {
		cols[n++] = COL_USER;
		cols[n++] = COL_UID;
	} else if (o->group == TOP_GROUP_CGROUP) {
		cols[n++] = COL_CGROUP;
	} else {
		for (size_t i = 1; i < sizeof(csv) / sizeof(csv[0]); i++)
			cols[n++] = csv[i];
	}
	if (o->group != TOP_GROUP_NONE) {
		cols[n++] = COL_PROCS;
		cols[n++] = COL_PARTIAL;
	}
	for (int k = 0; k < PMAPS_SV_COUNT; k++)
		cols[n++] = COL_SV0 + k;
	if (o->group == TOP_GROUP_NONE)
		for (size_t i = 0; i < sizeof(csv_tail) / sizeof(csv_tail[0]); i++)
			cols[n++] = csv_tail[i];
	return n;
}

/*
 * One snapshot of T's selection to OUT. FIRST: the first of the run (CSV's
 * heading); HUMAN: table sizes in K/M/G.
 */
static void top_write(struct top *t, struct out *out, const int *cols, int ncols, int first,
                      int human)
{
	struct pmaps_survey_stats st;
	struct writer w;
	struct doc d;

	top_doc(t, &d, &st);
	d.cols = cols;
	d.ncols = ncols;
	d.human = human;
	d.csv_header = first;
	w_begin(&w, out, t->o.fmt, &d);
	for (size_t i = 0; i < t->nlines; i++)
		w_proc(&w, &t->lines[i]);
	w_end(&w, NULL);
}

/* --pid names processes the first refresh did not find: a note, or the error when none is there. */
static int pids_check(const struct top *t)
{
	char list[TOP_MAX_PIDS * 12 + 1];
	size_t k = 0;

	if (!t->pids_missing)
		return 0;
	list[0] = '\0';
	for (int i = 0; i < t->o.npids; i++)
		if (!pmaps_survey_find(t->s, t->o.pids[i]))
			k += (size_t)snprintf(list + k, sizeof(list) - k, "%s%d", k ? ", " : "",
			                      t->o.pids[i]);
	if (t->pids_missing < (size_t)t->o.npids) {
		note_msg("top: no process %s (kernel threads are not listed)", list);
		return 0;
	}
	if (t->o.root)
		die_msg("top: no process %s under proc root '%s' (kernel threads are not listed)", list,
		        t->o.root);
	else
		die_msg("top: no process %s (kernel threads are not listed)", list);
	return EXIT_FAIL;
}

static void pause_ns(uint64_t ns)
{
	struct timespec ts = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Snapshots: --count of them, --delay apart. */
static int top_snapshots(struct top *t, int human)
{
	char buf[OUT_FD_BUFSIZE];
	int cols[COL_COUNT], ncols = top_columns(&t->o, cols), rc = 0;
	struct out out;

	out_fd(&out, STDOUT_FILENO, buf, sizeof(buf));
	/* --count 0 runs until interrupted: I counts on, never to wrap. */
	for (uint64_t i = 0; t->o.count == 0 || i < (uint64_t)t->o.count; i++) {
		if (i) {
			pause_ns((uint64_t)(t->o.delay_s * 1e9));
			if (t->o.fmt == FMT_TABLE)
				out_ch(&out, '\n');
		}
		rc = top_refresh(t);
		if (rc == 0 && i == 0)
			rc = pids_check(t);
		if (rc != 0)
			break;
		top_write(t, &out, cols, ncols, i == 0, human);
		out_flush(&out);
		if (out.err)
			break;
	}
	return finish_output(&out, rc);
}

/* An option given twice that takes one value: one line, EXIT_USAGE. */
int cmd_top(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"delay", required_argument, NULL, 'd'},
		{"once", no_argument, NULL, 'O'},
		{"count", required_argument, NULL, 'c'},
		{"lines", required_argument, NULL, 'n'},
		{"sort", required_argument, NULL, 's'},
		{"ascending", no_argument, NULL, 'A'},
		{"user", required_argument, NULL, 'u'},
		{"pid", required_argument, NULL, 'p'},
		{"name", required_argument, NULL, 'N'},
		{"cgroup", required_argument, NULL, 'G'},
		{"group", required_argument, NULL, 'g'},
		{"tree", no_argument, NULL, 't'},
		{"fields", required_argument, NULL, 'f'},
		{"budget", required_argument, NULL, 'B'},
		{"exact", no_argument, NULL, 'E'},
		{"max-age", required_argument, NULL, 'M'},
		{"json", no_argument, NULL, 'j'},
		{"jsonl", no_argument, NULL, 'L'},
		{"csv", no_argument, NULL, 'C'},
		{"bytes", no_argument, NULL, 'b'},
		{"proc-root", required_argument, NULL, 'R'},
		{"help", no_argument, NULL, 'h'},
		BOOKS_LONGOPTS_EXPLAIN,
		{NULL, 0, NULL, 0},
	};
	static const char shortopts[] = "d:n:s:u:p:g:tf:jbh";
	struct top t;
	const char *sort = NULL, *name = NULL, *fields = NULL;
	int ch, rc, count_given = 0, group_given = 0, human = 1;
	uint64_t ns;

	memset(&t, 0, sizeof(t));
	top_opts_init(&t.o);
	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		rc = top_option(&t.o, ch, optarg, &name);
		if (rc == EXIT_USAGE)
			return rc;
		if (rc == 1)
			continue;
		switch (ch) {
		case 'd':
			if (parse_time(optarg, 1000000000u, &ns) < 0 || ns == 0) {
				die_msg("--delay takes seconds above 0 (2, 0.5), not '%s'", optarg);
				return EXIT_USAGE;
			}
			t.o.delay_s = (double)ns / 1e9;
			break;
		case 'O': t.o.once = 1; break;
		case 'c':
			if (parse_count(optarg, &t.o.count) < 0) {
				die_msg("--count takes a number of snapshots (0: until interrupted), not '%s'",
				        optarg);
				return EXIT_USAGE;
			}
			count_given = 1;
			break;
		case 'n':
			if (parse_count(optarg, &t.o.limit) < 0) {
				die_msg("--lines takes a number of lines (0: all), not '%s'", optarg);
				return EXIT_USAGE;
			}
			break;
		case 's':
			if (sort)
				return top_once_only("--sort", "one field");
			sort = optarg;
			break;
		case 'A': t.o.ascending = 1; break;
		case 'g':
			if (group_given++)
				return top_once_only("--group", "one grouping: user or cgroup");
			if (strcmp(optarg, "user") == 0)
				t.o.group = TOP_GROUP_USER;
			else if (strcmp(optarg, "cgroup") == 0)
				t.o.group = TOP_GROUP_CGROUP;
			else {
				die_msg("--group takes 'user' or 'cgroup', not '%s'", optarg);
				return EXIT_USAGE;
			}
			break;
		case 't': t.o.tree = 1; break;
		case 'f':
			if (fields)
				return top_once_only("--fields", "one list");
			fields = optarg;
			break;
		case 'B':
			if (parse_time(optarg, 1000000u, &ns) < 0 || ns == 0) {
				die_msg("--budget takes milliseconds above 0 (--exact lifts it), not '%s'",
				        optarg);
				return EXIT_USAGE;
			}
			t.o.budget_ns = ns;
			break;
		case 'E': t.o.exact = 1; break;
		case 'j':
		case 'L':
		case 'C':
			if (set_format(&t.o.fmt, ch) < 0)
				return EXIT_USAGE;
			break;
		case 'b': human = 0; break;
		case 'R': t.o.root = optarg; break;
		case 'h': return print_usage(top_usage);
		default: return option_error("top", argv, shortopts, longopts);
		}
	}
	if (optind != argc) {
		die_msg("top takes no arguments, not '%s' (see pmaps top --help; --pid PID for one "
		        "process)", argv[optind]);
		return EXIT_USAGE;
	}
	if (fields && parse_top_fields(&t.o, fields) != 0)
		return EXIT_USAGE;
	for (int i = 0; i < t.o.nfields; i++) {
		int c = t.o.fields[i];
		if (t.o.group != TOP_GROUP_NONE && !(columns[c].records & REC_PGROUP)) {
			die_msg("--fields: '%s' is a process's, and groups have none", columns[c].key.s);
			return EXIT_USAGE;
		}
		if (c == COL_CGROUP)
			t.o.cgroups = 1;
	}
	if (t.o.tree && t.o.group != TOP_GROUP_NONE) {
		die_msg("--tree shows processes under their parents: --group does not go with it");
		return EXIT_USAGE;
	}
	if (t.o.tree && t.o.fmt == FMT_CSV) {
		die_msg("--tree is a table or JSON (its sums nest): not --csv");
		return EXIT_USAGE;
	}
	if (t.o.exact && t.o.budget_ns) {
		die_msg("--exact lifts the budget: --budget does not go with it");
		return EXIT_USAGE;
	}
	if (t.o.once && count_given && t.o.count != 1) {
		die_msg("--once is one snapshot: --count does not go with it");
		return EXIT_USAGE;
	}
	if (sort) {
		unsigned rec = t.o.group == TOP_GROUP_NONE ? REC_PROC : REC_PGROUP;
		int col = col_top_lookup(sort, strlen(sort), REC_PROC | REC_PGROUP);
		if (col < 0 || col == COL_REFRESH || col == COL_MARK || col == COL_AGE ||
		    col == COL_PSOURCE || col == COL_STATE || col == COL_PARTIAL) {
			die_msg("--sort: unknown field '%s' (see pmaps top --help)", sort);
			return EXIT_USAGE;
		}
		if (!(columns[col].records & rec) && col != COL_PID && col != COL_COMMAND) {
			die_msg("--sort %s sorts groups: it needs --group", sort);
			return EXIT_USAGE;
		}
		if (t.o.group == TOP_GROUP_CGROUP && (col == COL_USER || col == COL_UID)) {
			die_msg("--sort %s: groups by cgroup have no user", sort);
			return EXIT_USAGE;
		}
		if (t.o.group == TOP_GROUP_USER && col == COL_CGROUP) {
			die_msg("--sort cgroup: groups by user have no cgroup");
			return EXIT_USAGE;
		}
		if (col == COL_CGROUP && !t.o.cgroup && t.o.group != TOP_GROUP_CGROUP)
			t.o.cgroups = 1;
		t.o.sort = col;
	}
	/* The faults are read from stat only when shown or sorted by. */
	t.o.faults = asked(&t.o, COL_SV0 + PMAPS_SV_MINFLT) || asked(&t.o, COL_SV0 + PMAPS_SV_MAJFLT) ||
	             t.o.sort == COL_SV0 + PMAPS_SV_MINFLT || t.o.sort == COL_SV0 + PMAPS_SV_MAJFLT;
	if (name) {
		char err[256];
		if (top_set_name(&t, name, err, sizeof(err)) < 0) {
			die_msg("--name: '%s' is no regular expression: %s", name, err);
			return EXIT_USAGE;
		}
	}
	{
		const char *nc = getenv("NO_COLOR");
		t.o.color = !(nc && nc[0]);
	}
	/* The live view, for a person at a terminal who asked for nothing else. */
	/* Keys come from standard input: without a terminal there, snapshots. */
	/* A build without it (PMAPS_WITH_TUI=OFF) writes snapshots there too. */
#if PMAPS_WITH_TUI
	if (!t.o.once && !count_given && t.o.fmt == FMT_TABLE && isatty(STDOUT_FILENO) &&
	    isatty(STDIN_FILENO)) {
		t.o.cgroups = 1; /* its 'c' groups by cgroup */
		rc = top_init(&t);
		if (rc == 0)
			rc = top_tui_run(&t);
		top_done(&t);
		return rc;
	}
#endif
	if (t.o.once)
		t.o.count = 1;
	rc = top_init(&t);
	/* Snapshots show what the filters let through: only those are read past status. */
	if (rc == 0)
		top_want_filtered(&t);
	if (rc == 0)
		rc = top_snapshots(&t, human);
	top_done(&t);
	return rc;
}
