/* SPDX-License-Identifier: MIT */
/*
 * cmd_explain.c - `pmaps explain PID`: where the RSS is, in numbers that add
 * up to what the kernel reports, and notes on why a heap profiler shows less.
 * The figures and the notes are the library's explain result; the table
 * writer words them.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tool.h"

static const char explain_usage[] =
	"Usage: pmaps explain [OPTIONS] PID\n"
	"\n"
	"Explain where the resident memory (RSS) of process PID (a number, or 'self')\n"
	"is: by category (heap, anonymous mmap, thread stacks, file code and data,\n"
	"shared memory, ...) and state (private dirty or clean, shared, lazily freed,\n"
	"huge pages, locked, swapped), reconciled with smaps_rollup and status, with\n"
	"the largest mappings and notes on the usual gaps to a heap profile.\n"
	"\n"
	"Options:\n"
	"  -j, --json             JSON for programs (bytes)\n"
	"      --jsonl            the same JSON object on one line, for a stream\n"
	"      --csv              the categories as CSV (bytes)\n"
	"      --pages            also walk every mapping's pages: per category, resident,\n"
	"                         zero-page and (as root) dirty, lazily freed, shared and\n"
	"                         THP pages\n"
	"  -v, --verbose          show the evidence behind each rule (JSON always has it)\n"
	"      --proc-root DIR    read DIR/PID instead of /proc/PID\n"
	"  -h, --help             show this help\n"
	"\n"
	"Exit status: 0 on success, 1 when the process cannot be read, 2 on a usage error.\n";

/*
 * Explains PROC to OUT in FMT. Returns 0, or a negative errno with the
 * failure in F (in JSON Lines, the stream then ends with the error).
 */
static int explain_write(struct pmaps_proc *proc, struct out *out, enum fmt fmt,
                         unsigned options, int verbose, struct failure *f)
{
	/* A kernel thread's result: nothing in it. */
	static const struct pmaps_explain none;
	struct pmaps_explain_session *s = NULL;
	const struct pmaps_explain *x = NULL;
	struct writer w;
	struct doc d;
	int err;

	memset(&d, 0, sizeof(d));
	d.kind = DOC_EXPLAIN;
	d.pid = pmaps_proc_pid(proc);
	d.verbose = verbose;
	err = pmaps_explain_open(&s, proc, options);
	if (err == 0)
		err = pmaps_explain_run(s, &x);
	if (err == -ENODATA) {
		kernel_thread_note(d.pid);
		d.kernel_thread = 1;
		x = &none;
		err = 0;
	}
	w_begin(&w, out, fmt, &d);
	if (err == 0) {
		w_explain(&w, x);
		w_end(&w, NULL);
	} else {
		/* The library's message names the file that failed (status, smaps, pagemap, ...). */
		failed(f, NULL, err, s ? pmaps_explain_errmsg(s) : NULL);
		w_end(&w, f->msg[0] ? f->msg : pmaps_strerror(err));
	}
	pmaps_explain_close(s);
	return err;
}

int explain_report(const struct target *t, enum fmt fmt, unsigned options, int verbose)
{
	char buf[OUT_FD_BUFSIZE];
	struct pmaps_proc *proc;
	struct failure f;
	struct out out;
	int rc = tool_proc_open(&proc, t);

	if (rc != 0)
		return rc;
	out_fd(&out, STDOUT_FILENO, buf, sizeof(buf));
	if (explain_write(proc, &out, fmt, options, verbose, &f) < 0) {
		out_flush(&out); /* what was written goes before the message */
		rc = tool_fail(t, &f);
	}
	rc = finish_output(&out, rc);
	pmaps_proc_close(proc);
	return rc;
}

int cmd_explain(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"json", no_argument, NULL, 'j'},
		{"jsonl", no_argument, NULL, 'L'},
		{"csv", no_argument, NULL, 'C'},
		{"pages", no_argument, NULL, 'P'},
		{"verbose", no_argument, NULL, 'v'},
		{"proc-root", required_argument, NULL, 'R'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct target t = {NULL, NULL};
	enum fmt fmt = FMT_TABLE;
	int ch, pages = 0, verbose = 0;

	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "jvh", longopts, NULL)) != -1) {
		switch (ch) {
		case 'j':
		case 'L':
		case 'C':
			if (set_format(&fmt, ch) < 0)
				return EXIT_USAGE;
			break;
		case 'P': pages = 1; break;
		case 'v': verbose = 1; break;
		case 'R': t.root = optarg; break;
		case 'h': return print_usage(explain_usage);
		default: return option_error("explain", argv, "jvh", longopts);
		}
	}
	if (optind + 1 != argc) {
		die_msg(optind == argc ? "which process? (pmaps explain PID; see --help)"
		                       : "one PID only (see pmaps explain --help)");
		return EXIT_USAGE;
	}
	if (fmt == FMT_CSV && (pages || verbose)) {
		die_msg("explain --csv writes the categories only: %s needs the table or --json",
		        pages ? "--pages" : "--verbose");
		return EXIT_USAGE;
	}
	t.pid = argv[optind];
	return explain_report(&t, fmt, pages ? PMAPS_EXPLAIN_PAGES : 0, verbose);
}
