/* SPDX-License-Identifier: MIT */
/*
 * cmd_wss.c - `pmaps wss PID`: how much of the resident memory the process
 * touches, interval after interval. The one command that writes to the
 * process it reads (its referenced bits), and says so.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "wss/wss.h"

static const char wss_usage[] =
	"Usage: pmaps wss [OPTIONS] PID\n"
	"\n"
	"How much of the resident memory (RSS) of process PID it touches: its working\n"
	"set. Each interval, pmaps resets the process's referenced bits, waits, then\n"
	"counts per category (heap, anon, runtime-heap, thread stacks, file code and\n"
	"data, shared memory, ...) the resident bytes touched since and those left\n"
	"idle; after more than one interval, a summary: the median and the peak of\n"
	"each, and what stayed idle.\n"
	"\n"
	"This command changes the process: the reset (writing /proc/PID/clear_refs,\n"
	"which takes the process's owner or root) clears the bits page reclaim reads\n"
	"to choose what to evict, so its pages look idle to reclaim until touched\n"
	"again, and the kernel holds the process's mmap_lock for writing while it\n"
	"clears them (-v says how long: milliseconds per GiB resident), then smaps\n"
	"is read as maps --exact reads it. No other pmaps command writes to a process.\n"
	"\n"
	"Options:\n"
	"  -i, --interval T       the interval: 500ms, 2s, 1m, or seconds, up to 24h\n"
	"                         (default 5s)\n"
	"  -n, --count N          intervals to measure (default 1); 0: until interrupted\n"
	"      --cumulative       reset once, at the start: each interval counts from it,\n"
	"                         and the summary says what was never touched\n"
	"  -m, --mappings         also the largest mappings, with their touched bytes\n"
	"  -j, --json             one JSON document at the end, for programs (bytes)\n"
	"      --jsonl            a JSON object per interval as it ends, then the summary\n"
	"      --csv              a row per category and interval (bytes)\n"
	"  -v, --verbose          the method, what the kernel offers, and what the resets\n"
	"                         cost the process\n"
	"  -w, --wide             the names of mappings whole, however wide\n"
	"      --proc-root DIR    read DIR/PID instead of /proc/PID\n"
	"  -h, --help             show this help\n"
	"\n"
	"Method: clear_refs, then smaps' Referenced per mapping (the pages whose\n"
	"accessed bit the hardware set again since). What a reset cannot see: the\n"
	"kernel does not drop the CPUs' cached address translations when it clears\n"
	"the bits, and a touch through a cached translation sets none, so a page\n"
	"touched only through a translation cached before the reset counts as idle\n"
	"until that translation is dropped: a busy loop over a few MiB, small enough\n"
	"to stay in the TLB, can show a fraction of what it touched. A transparent\n"
	"huge page counts whole (2 MiB for a byte). A file page counts as touched\n"
	"when any process read()s it, not when another touches it through its own\n"
	"mapping. pmaps(1) has the figures. Idle page tracking and DAMON are not\n"
	"used (-v says what this kernel has).\n"
	"\n"
	"Ctrl-C (or SIGTERM) ends the run: the interval under way is not read, and the\n"
	"summary of those read is printed.\n"
	"\n"
	"Exit status: 0 on success or when interrupted, 1 when the process cannot be\n"
	"read or reset, or exited or exec'd during an interval (the intervals before\n"
	"are printed, with their summary), 2 on a usage error.\n";

int cmd_wss(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"interval", required_argument, NULL, 'i'},
		{"count", required_argument, NULL, 'n'},
		{"cumulative", no_argument, NULL, 'U'},
		{"mappings", no_argument, NULL, 'm'},
		{"json", no_argument, NULL, 'j'},
		{"jsonl", no_argument, NULL, 'L'},
		{"csv", no_argument, NULL, 'C'},
		{"verbose", no_argument, NULL, 'v'},
		{"wide", no_argument, NULL, 'w'},
		{"proc-root", required_argument, NULL, 'R'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct wss_opts o;
	int ch, wide = 0;

	memset(&o, 0, sizeof(o));
	o.fmt = FMT_TABLE;
	o.interval_ns = 5000000000ull;
	o.count = 1;
	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "i:n:mjvwh", longopts, NULL)) != -1) {
		switch (ch) {
		case 'i':
			/* At least 1 ms (a reset walks every page table of the process), at most a day. */
			if (parse_time(optarg, 1000000000ull, &o.interval_ns) < 0 ||
			    o.interval_ns < 1000000u || o.interval_ns > 86400ull * 1000000000u) {
				die_msg("--interval takes a time from 1ms to 24h (500ms, 2s, 1m), not '%s'",
				        optarg);
				return EXIT_USAGE;
			}
			break;
		case 'n':
			if (parse_decimal(optarg, 1000000000ull, &o.count) < 0) {
				die_msg("--count takes a number of intervals (0: until interrupted), not '%s'",
				        optarg);
				return EXIT_USAGE;
			}
			break;
		case 'U': o.cumulative = 1; break;
		case 'm': o.mappings = 1; break;
		case 'j':
		case 'L':
		case 'C':
			if (set_format(&o.fmt, ch) < 0)
				return EXIT_USAGE;
			break;
		case 'v': o.verbose = 1; break;
		case 'w': wide = 1; break;
		case 'R': o.t.root = optarg; break;
		case 'h': return print_usage(wss_usage);
		default: return option_error("wss", argv, "i:n:mjvwh", longopts);
		}
	}
	if (optind + 1 != argc) {
		die_msg(optind == argc ? "which process? (pmaps wss PID; see --help)"
		                       : "one PID only (see pmaps wss --help)");
		return EXIT_USAGE;
	}
	if (o.mappings && o.fmt != FMT_TABLE) {
		die_msg("--mappings is the table's: JSON always has the largest mappings, CSV none");
		return EXIT_USAGE;
	}
	o.t.pid = argv[optind];
	o.width = wide ? 0 : tool_width();
	return wss_run(&o);
}
