/* SPDX-License-Identifier: MIT */
/*
 * cmd_watch.c - `pmaps watch PID` and `pmaps run -- CMD ARGS`: the explain
 * breakdown of one process over time. Options and the two commands' set-up
 * here; the sampling loop, the lines, the JSON Lines and the summary in
 * watch.c (struct watch, watch_loop()); the child run starts in run.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <elf.h>

#include "cmd/cmd.h"
#include "common/tool.h"
#include "watch/watch_loop.h"
#include "write/writer.h"

static const char watch_usage[] =
	"Usage: pmaps watch [OPTIONS] PID\n"
	"\n"
	"Sample where the memory of process PID is, every --interval, until it exits\n"
	"(or --count, --duration, Ctrl-C): a line per sample with the RSS, the\n"
	"explain categories (heap, anon, stacks, file, shmem, other), LazyFree and\n"
	"swap, and what changed since the sample before; at the end a summary: the\n"
	"peak RSS and when, each category first / at the peak / last, the mappings\n"
	"that grew most, the categories that kept growing, and how well the samples\n"
	"kept time.\n"
	"\n"
	"Options:\n"
	"  -i, --interval T       time between samples: seconds (0.5) or with a unit\n"
	"                         (50ms, 2s, 1m); default 1s, at least 10ms\n"
	"  -n, --count N          stop after N samples\n"
	"  -d, --duration T       stop after T (as --interval)\n"
	"      --source SOURCE    the breakdown from smaps, pages or auto (the default;\n"
	"                         see Sources)\n"
	"      --pages            also the pages that became resident or went away\n"
	"                         since the sample before, as ranges in their mappings\n"
	"      --children         also PID's descendants (children and theirs): their\n"
	"                         count and RSS summed per sample, each in the summary\n"
	"      --svg FILE         write a timeline of the samples to FILE (SVG)\n"
	"      --wss              also the working set: the bytes each breakdown finds\n"
	"                         touched since the one before; writes the process's\n"
	"                         clear_refs (see Working set)\n"
	"      --jsonl            JSON Lines: an object per sample, then the summary\n"
	"  -b, --bytes            sizes in bytes instead of K/M/G\n"
	BOOKS_USAGE
	"      --proc-root DIR    read DIR/PID instead of /proc/PID\n"
	"  -h, --help             show this help\n"
	"\n"
	"Sources: a sample reads the whole breakdown (explain) from smaps or from\n"
	"the page tables (pages: bounded PAGEMAP_SCAN steps with pauses); auto takes\n"
	"smaps unless a read of it would hold the process's mmap_lock over 2 ms\n"
	"(pmaps_cost_estimate()), then pages. Breakdowns take at most a quarter\n"
	"of the time, and one that takes over half the interval is read by a thread\n"
	"of its own: the samples between two breakdowns read /proc/PID/status\n"
	"alone (RSS, its anon/file/shmem parts, swap), source \"status\".\n"
	"\n"
	"A process that exits ends the watch with the summary (exit status 0); one\n"
	"that exec's is followed, with a line saying so.\n"
	"\n"
	"Descendants (--children): found at each sample by following the parent\n"
	"links of the process list; one whose parent exits is re-parented (to init\n"
	"or a subreaper) and is no descendant from then on. Each is read from its\n"
	"status (VmRSS, RssAnon, RssFile, RssShmem, VmSwap); at most 256 at once,\n"
	"more are counted as untracked. The summary's peak of the process and its\n"
	"descendants is the largest sum of one sample, not a sum of their VmHWMs;\n"
	"descendants alive when the watch ends are listed as running.\n"
	"\n"
	"Runtime books (as pmaps explain reads them): read by a thread of their own,\n"
	"at most once a second and never more than a tenth of the time; every\n"
	"breakdown carries the latest (JSON Lines: runtime_books, with when they\n"
	"were read), the timeline draws what the runtime counts as live and as held,\n"
	"and the summary ends with the last breakdown's books and equation.\n"
	"\n"
	"Working set (--wss), the one option of watch that writes to the process: at\n"
	"the start and after each breakdown pmaps writes \"1\" to /proc/PID/clear_refs\n"
	"(the process's owner or root), which clears the referenced bits of every\n"
	"page it maps with its mmap_lock held for writing, as pmaps wss does; each\n"
	"breakdown then reads smaps' Referenced: the bytes touched since the\n"
	"breakdown before (column touched; JSON Lines: working_set, per category and\n"
	"for the largest mappings), and the summary gives each category's median\n"
	"and peak. Page reclaim reads those bits: until touched again, the process's\n"
	"pages look idle to it. Breakdowns come from smaps (not with --source pages);\n"
	"status samples have no touched figure. A touch through a translation the\n"
	"CPU still caches is not seen (see pmaps wss --help).\n"
	"\n"
	"Exit status: 0 on success, 1 when the process cannot be read or the output\n"
	"or the SVG cannot be written, 2 on a usage error.\n";

static const char run_usage[] =
	"Usage: pmaps run [OPTIONS] [--] CMD [ARGS...]\n"
	"\n"
	"Start CMD (found in PATH as a shell finds it) and watch it as pmaps watch\n"
	"does until it exits; then the summary, like time -v but with where the\n"
	"memory was at its peak. CMD keeps the terminal and standard input, output\n"
	"and error; pmaps writes its lines and summary to standard error (or\n"
	"--output). Ctrl-C reaches CMD, which decides; pmaps waits for it.\n"
	"\n"
	"Options:\n"
	"  -i, --interval T       time between samples: seconds (0.5) or with a unit\n"
	"                         (50ms, 2s, 1m); default 1s, at least 10ms\n"
	"  -n, --count N          stop sampling after N samples (CMD runs on)\n"
	"  -d, --duration T       stop sampling after T (as --interval)\n"
	"      --source SOURCE    smaps, pages or auto (the default; see pmaps watch)\n"
	"      --pages            also the pages that became resident or went away\n"
	"      --children         also CMD's descendants (children and theirs): their\n"
	"                         count and RSS summed per sample, each in the summary\n"
	"      --svg FILE         write a timeline of the samples to FILE (SVG)\n"
	"      --wss              also the working set, as pmaps watch --wss gives it\n"
	"                         (writes CMD's clear_refs; see pmaps watch --help)\n"
	"      --jsonl            JSON Lines: an object per sample, then the summary\n"
	"  -o, --output FILE      the lines and the summary to FILE, not standard error\n"
	"  -q, --quiet            no line per sample: the summary only\n"
	"  -b, --bytes            sizes in bytes instead of K/M/G\n"
	"      --malloc-books     also glibc malloc's books, from a helper put in CMD\n"
	BOOKS_USAGE
	"  -h, --help             show this help\n"
	"\n"
	"Runtime books: as pmaps watch reads them. With --malloc-books, for CMD's\n"
	"glibc malloc: run puts a helper library in CMD alone (LD_PRELOAD, taken out\n"
	"of the environment CMD's own children get; only into a dynamically linked\n"
	"CMD that is not set-user-ID) that answers with malloc_info() when pmaps asks:\n"
	"live malloc'd bytes, free held by malloc. It runs a thread of its own in CMD:\n"
	"a program that must stay single-threaded (unshare -U) fails with it.\n"
	"\n"
	"With --children, the watch ends when CMD exits: descendants still alive\n"
	"then are listed as running (see pmaps watch --help).\n"
	"\n"
	"Signals: pmaps ignores SIGINT, SIGQUIT and SIGPIPE while CMD runs and passes\n"
	"SIGTERM and SIGHUP on to it, unless they were ignored (nohup): CMD starts\n"
	"with the dispositions and signal mask pmaps started with.\n"
	"\n"
	"Exit status: CMD's once it started, whatever failed in pmaps after that (a\n"
	"read, the output, the SVG: said on standard error); 128 + N when signal N\n"
	"killed it (the summary says which); 127 when CMD was not found, 126 when it\n"
	"cannot be executed; 1 when pmaps failed before CMD started (the SVG or\n"
	"--output cannot be written) or CMD's status was lost; 2 on a usage error.\n";

/* A count: decimal digits, 1 to 2^32. Returns 0, or -1. */
static int parse_count(const char *s, uint64_t *out)
{
	return parse_decimal(s, 1ull << 32, out) < 0 || *out == 0 ? -1 : 0;
}

/* The options watch and run share; RUN: run's. Returns 0, or an exit code. */
static int common_option(struct watch_opts *o, int ch, const char *cmd)
{
	uint64_t ns;
	int r = books_option(&o->books, ch, optarg);

	if (r)
		return r < 0 ? EXIT_USAGE : 0;
	switch (ch) {
	case 'i':
		if (parse_time(optarg, 1000000000u, &ns) < 0) {
			die_msg("--interval takes seconds (0.5) or a time with a unit (50ms, 2s), not '%s'",
			        optarg);
			return EXIT_USAGE;
		}
		if (ns < WATCH_MIN_INTERVAL_NS) {
			die_msg("--interval: %s is below the shortest, 10ms", optarg);
			return EXIT_USAGE;
		}
		if (ns > WATCH_MAX_INTERVAL_NS) {
			die_msg("--interval: %s is above the longest, 24h", optarg);
			return EXIT_USAGE;
		}
		o->interval_ns = ns;
		return 0;
	case 'n':
		if (parse_count(optarg, &o->count) < 0) {
			die_msg("--count takes a number of samples from 1, not '%s'", optarg);
			return EXIT_USAGE;
		}
		return 0;
	case 'd':
		if (parse_time(optarg, 1000000000u, &ns) < 0 || ns == 0 || ns > (uint64_t)1e18) {
			die_msg("--duration takes a time above 0 (30, 10s, 5m), not '%s'", optarg);
			return EXIT_USAGE;
		}
		o->duration_ns = ns;
		return 0;
	case 'S': {
		int s = strcmp(optarg, "auto") == 0 ? PMAPS_SRC_AUTO
		        : pmaps_source_lookup(optarg, strlen(optarg));
		if (s != PMAPS_SRC_AUTO && s != PMAPS_SRC_PAGES && s != PMAPS_SRC_SMAPS) {
			die_msg("--source takes smaps, pages or auto, not '%s'", optarg);
			return EXIT_USAGE;
		}
		o->source = s;
		return 0;
	}
	case 'P': o->pages = 1; return 0;
	case 'W' + 0x1000: o->wss = 1; return 0;
	case 'C': o->children = 1; return 0;
	case 'V':
		if (o->svg) {
			die_msg("--svg given twice: it takes one file");
			return EXIT_USAGE;
		}
		/* Standard output has the samples (watch) or the command's output (run). */
		if (!*optarg || strcmp(optarg, "-") == 0) {
			die_msg("--svg needs a file name (standard output has %s)",
			        strcmp(cmd, "run") == 0 ? "the command's output" : "the samples");
			return EXIT_USAGE;
		}
		o->svg = optarg;
		return 0;
	case 'L':
		if (set_format(&o->fmt, ch) < 0)
			return EXIT_USAGE;
		return 0;
	case 'b': o->human = 0; return 0;
	default:
		(void)cmd;
		return -1;
	}
}

/* What the options ask for together, once all are read. Returns 0, or an exit code. */
static int options_done(struct watch_opts *o)
{
	int rc = books_options_done(&o->books);

	if (rc != EXIT_OK)
		return rc;
	if (o->wss && o->source == PMAPS_SRC_PAGES) {
		die_msg("--wss reads smaps' Referenced: not with --source pages");
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

static void opts_init(struct watch_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->interval_ns = 1000000000u;
	o->source = PMAPS_SRC_AUTO;
	o->fmt = FMT_TABLE;
	o->human = 1;
	books_opts_init(&o->books);
}

int cmd_watch(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"interval", required_argument, NULL, 'i'},
		{"count", required_argument, NULL, 'n'},
		{"duration", required_argument, NULL, 'd'},
		{"source", required_argument, NULL, 'S'},
		{"pages", no_argument, NULL, 'P'},
		{"children", no_argument, NULL, 'C'},
		{"svg", required_argument, NULL, 'V'},
		{"wss", no_argument, NULL, 'W' + 0x1000},
		{"jsonl", no_argument, NULL, 'L'},
		{"bytes", no_argument, NULL, 'b'},
		{"proc-root", required_argument, NULL, 'R'},
		{"help", no_argument, NULL, 'h'},
		BOOKS_LONGOPTS,
		{NULL, 0, NULL, 0},
	};
	static const char shortopts[] = "i:n:d:bh";
	struct watch_opts o;
	int ch, rc;

	opts_init(&o);
	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (ch == 'h')
			return print_usage(watch_usage);
		if (ch == 'R') {
			o.t.root = optarg;
			o.books.root = optarg;
			continue;
		}
		rc = common_option(&o, ch, "watch");
		if (rc < 0)
			return option_error("watch", argv, shortopts, longopts);
		if (rc)
			return rc;
	}
	if (optind + 1 != argc) {
		die_msg(optind == argc ? "which process? (pmaps watch PID; see --help)"
		                       : "one PID only (see pmaps watch --help)");
		return EXIT_USAGE;
	}
	if ((rc = options_done(&o)) != EXIT_OK)
		return rc;
	o.t.pid = argv[optind];
	return watch_pid(&o);
}

/* ---- run ---- */

int cmd_run(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"interval", required_argument, NULL, 'i'},
		{"count", required_argument, NULL, 'n'},
		{"duration", required_argument, NULL, 'd'},
		{"source", required_argument, NULL, 'S'},
		{"pages", no_argument, NULL, 'P'},
		{"children", no_argument, NULL, 'C'},
		{"svg", required_argument, NULL, 'V'},
		{"wss", no_argument, NULL, 'W' + 0x1000},
		{"jsonl", no_argument, NULL, 'L'},
		{"output", required_argument, NULL, 'o'},
		{"quiet", no_argument, NULL, 'q'},
		{"bytes", no_argument, NULL, 'b'},
		{"help", no_argument, NULL, 'h'},
		{"malloc-books", no_argument, NULL, 'm' + 0x1000},
		BOOKS_LONGOPTS,
		{NULL, 0, NULL, 0},
	};
	/* '+': the options end at CMD, whose own options are its. */
	static const char shortopts[] = "+i:n:d:o:qbh";
	struct watch_opts o;
	const char *output = NULL;
	int ch, rc;

	opts_init(&o);
	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (ch == 'h')
			return print_usage(run_usage);
		if (ch == 'o') {
			output = optarg;
			continue;
		}
		if (ch == 'q') {
			o.quiet = 1;
			continue;
		}
		if (ch == 'm' + 0x1000) {
			o.books.malloc_books = 1;
			continue;
		}
		rc = common_option(&o, ch, "run");
		if (rc < 0)
			return option_error("run", argv, shortopts + 1, longopts);
		if (rc)
			return rc;
	}
	if (optind == argc) {
		die_msg("which command? (pmaps run [OPTIONS] -- CMD [ARGS...]; see --help)");
		return EXIT_USAGE;
	}
	if ((rc = options_done(&o)) != EXIT_OK)
		return rc;
	if (o.books.off && o.books.malloc_books) {
		die_msg("--no-books and --malloc-books: choose one");
		return EXIT_USAGE;
	}
	if (output && o.svg) {
		struct stat a, b;
		/* One file for both would be the one written last, the other lost. */
		if (strcmp(output, o.svg) == 0 ||
		    (stat(output, &a) == 0 && stat(o.svg, &b) == 0 && a.st_dev == b.st_dev &&
		     a.st_ino == b.st_ino)) {
			die_msg("--output and --svg are one file ('%s'): give two", o.svg);
			return EXIT_USAGE;
		}
	}
	return run_start(&o, argv + optind, output);
}
