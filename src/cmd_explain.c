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

#include "books.h"
#include "tool.h"

static const char explain_usage[] =
	"Usage: pmaps explain [OPTIONS] PID\n"
	"\n"
	"Explain where the resident memory (RSS) of process PID (a number, or 'self')\n"
	"is: by category (heap, anonymous mmap, thread stacks, file code and data,\n"
	"shared memory, ...) and state (private dirty or clean, shared, lazily freed,\n"
	"huge pages, locked, swapped), reconciled with status (and smaps_rollup, with\n"
	"smaps), with the largest mappings and notes on the usual gaps to a heap\n"
	"profile.\n"
	"\n"
	"Options:\n"
	"      --source SOURCE    where the figures come from: smaps (the default), pages\n"
	"                         or auto: pages as root, where it gives pss and\n"
	"                         lazy_free, smaps otherwise (Sources)\n"
	"      --gentle           pages: walk the page tables in small steps with pauses,\n"
	"                         so that the process's mmap() gets in\n"
	"  -j, --json             JSON for programs (bytes)\n"
	"      --jsonl            the same JSON object on one line, for a stream\n"
	"      --csv              the categories as CSV (bytes)\n"
	"      --pages            also walk every mapping's pages: per category, resident,\n"
	"                         zero-page and (as root) dirty, lazily freed, shared and\n"
	"                         THP pages\n"
	"  -v, --verbose          show the evidence behind each rule (JSON always has it),\n"
	"                         and say which source was read and what it cost\n"
	BOOKS_USAGE
	"      --proc-root DIR    read DIR/PID instead of /proc/PID\n"
	"  -h, --help             show this help\n"
	"\n"
	"Sources: smaps gives every state, and the kernel holds the process's mmap_lock\n"
	"while it walks each mapping's pages (and smaps_rollup, read after it to\n"
	"reconcile, for the whole process at once). pages counts from the page tables\n"
	"in bounded steps (PROCMAP_QUERY, PAGEMAP_SCAN, pagemap) and reads neither:\n"
	"rss, private (pages no other process maps), shared, thp and swap (not of\n"
	"shared memory), and as root pss and lazy_free (kpagecount, kpageflags); no\n"
	"private dirty/clean split, locked or swap_pss, which show as '-' (absent\n"
	"JSON keys, empty CSV cells), and no smaps_rollup to reconcile with.\n"
	"\n"
	"Runtime books: where the process's runtime publishes its own figures, explain\n"
	"reads them and joins them to the kernel's, every part's lines adding up to its\n"
	"RSS, with what neither explains stated: a Go program's runtime.MemStats from its\n"
	"net/http/pprof (on loopback), a JVM's Native Memory Tracking and GC.heap_info\n"
	"through jcmd (as the JVM's user), glibc malloc's malloc_info() in a command\n"
	"pmaps run starts. The table ends with the equation; JSON has runtime_books.\n"
	"When they cannot be read, the kernel's side is printed and the reason given.\n"
	"\n"
	"Exit status: 0 on success, 1 when the process cannot be read, 2 on a usage error.\n";

/* What a run read, and what it cost: -v's line. */
struct spent {
	enum pmaps_source src;   /* PMAPS_SRC_SMAPS or PMAPS_SRC_PAGES */
	char why[160];           /* auto: why this source ("" when --source named it) */
	int have_cost;
	struct pmaps_cost cost;
	uint64_t mappings;
	uint32_t xc_known;
};

/*
 * Explains PROC to OUT in FMT. Returns 0, or a negative errno with the
 * failure in F (in JSON Lines, the stream then ends with the error).
 */
static int explain_write(struct pmaps_proc *proc, struct out *out, enum fmt fmt,
                         unsigned options, int verbose, const struct books_opts *bo,
                         struct spent *sp, struct failure *f)
{
	static struct books books;
	static struct books_join join;
	/* A kernel thread's result: nothing in it, and every figure known to be 0. */
	static struct pmaps_explain none;
	struct pmaps_explain_session *s = NULL;
	const struct pmaps_explain *x = NULL;
	struct writer w;
	struct doc d;
	int err, ran = 0;

	memset(&d, 0, sizeof(d));
	d.kind = DOC_EXPLAIN;
	d.pid = pmaps_proc_pid(proc);
	d.verbose = verbose;
	err = pmaps_explain_open(&s, proc, options);
	if (err == 0) {
		err = pmaps_explain_run(s, &x);
		ran = 1;
	}
	/*
	 * Right after the run: the cost's time runs until it is asked. Not for
	 * a kernel thread, whose page source never opened its page cursor.
	 */
	sp->cost.size = sizeof(sp->cost);
	sp->have_cost = ran && err == 0 && pmaps_explain_cost(s, &sp->cost) == 0;
	if (err == -ENODATA) {
		kernel_thread_note(d.pid);
		d.kernel_thread = 1;
		none.source = sp->src;
		none.xc_known = (1u << PMAPS_XC_COUNT) - 1;
		x = &none;
		err = 0;
	}
	if (x) {
		sp->mappings = x->nmappings;
		sp->xc_known = x->xc_known;
	}
	if (err == 0 && !d.kernel_thread && fmt != FMT_CSV && bo && !bo->off) {
		/* The runtime's books, right after the kernel's figures. */
		books_read(&books, bo, d.pid, x->runtime_kind);
		books_join(&join, &books, x);
		d.books = &books;
		d.join = &join;
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

/*
 * The source of the report: --source's, or auto's: the pages source where it
 * gives Pss and LazyFree (as root), which the headline and the notes need;
 * smaps otherwise, and whenever the page source cannot be asked (reading
 * smaps then says what is wrong, as pmaps always has).
 */
static enum pmaps_source choose_source(struct pmaps_proc *proc, int source, char *why,
                                       size_t whysz)
{
	const uint64_t want = 1ull << PMAPS_F_PSS | 1ull << PMAPS_F_LAZY_FREE;
	uint64_t kf, kv;
	int err;

	why[0] = '\0';
	if (source != PMAPS_SRC_AUTO)
		return (enum pmaps_source)source;
	err = pmaps_source_keys(proc, PMAPS_SRC_PAGES, 0, &kf, &kv);
	if (err == 0 && (kf & want) == want) {
		snprintf(why, whysz, "auto: the pages source gives pss and lazy_free here");
		return PMAPS_SRC_PAGES;
	}
	if (err < 0)
		snprintf(why, whysz, "auto: the pages source could not be asked: %s",
		         pmaps_strerror(err));
	else
		snprintf(why, whysz, "auto: the pages source gives no pss or lazy_free here "
		         "(they need root)");
	return PMAPS_SRC_SMAPS;
}

/* What was read, from where and at what cost: -v's line, as pmaps maps -v words it. */
static void verbose_note(struct pmaps_proc *proc, const char *root, const struct spent *sp)
{
	const struct pmaps_cost *k = &sp->cost;
	char how[160], cost[160] = "";

	if (!sp->have_cost) {
		/* Nothing was read (a kernel thread): no way, no time to tell. */
		note_msg("source %s: %llu mappings%s%s", pmaps_source_name(sp->src),
		         (unsigned long long)sp->mappings, sp->why[0] ? "; " : "", sp->why);
		return;
	}
	if (sp->src == PMAPS_SRC_PAGES)
		/* The exclusive bit is pagemap's, over what PAGEMAP_SCAN found; kpagecount gives Pss. */
		snprintf(how, sizeof(how), "%s + %s%s", k->query == 1 ? "PROCMAP_QUERY" : "maps",
		         k->strategy == PMAPS_PAGES_SCAN ? "PAGEMAP_SCAN + pagemap" : "pagemap",
		         sp->xc_known & (1u << PMAPS_XC_PSS) ? " + kpagecount/kpageflags" : "");
	else
		snprintf(how, sizeof(how), "%s/%d/smaps", root ? root : "/proc", pmaps_proc_pid(proc));
	/* The longest call is the longest the process's mmap_lock was held. */
	snprintf(cost, sizeof(cost), ", %llu kernel call%s, longest call %llu us",
	         (unsigned long long)k->calls, k->calls == 1 ? "" : "s",
	         (unsigned long long)(k->hold_ns / 1000));
	if (sp->src == PMAPS_SRC_PAGES)
		snprintf(cost + strlen(cost), sizeof(cost) - strlen(cost), ", %llu pause%s",
		         (unsigned long long)k->pauses, k->pauses == 1 ? "" : "s");
	note_msg("source %s (%s): %llu mapping%s in %.2f ms%s%s%s", pmaps_source_name(sp->src), how,
	         (unsigned long long)sp->mappings, sp->mappings == 1 ? "" : "s",
	         (double)k->ns / 1e6, cost, sp->why[0] ? "; " : "", sp->why);
}

/* The command's options, as parsed. */
struct explain_opts {
	struct target t;
	enum fmt fmt;
	int source;  /* PMAPS_SRC_SMAPS, PMAPS_SRC_PAGES or PMAPS_SRC_AUTO */
	int pages, gentle, verbose;
	struct books_opts books;
};

static int explain_main(const struct explain_opts *o, int source_line)
{
	char buf[OUT_FD_BUFSIZE];
	struct pmaps_proc *proc;
	struct books_opts bo;
	struct spent sp;
	struct failure f;
	struct out out;
	unsigned options = o->pages ? PMAPS_EXPLAIN_PAGES : 0;
	int rc = tool_proc_open(&proc, &o->t), err;

	if (rc != 0)
		return rc;
	memset(&sp, 0, sizeof(sp));
	sp.src = choose_source(proc, o->source, sp.why, sizeof(sp.why));
	if (sp.src == PMAPS_SRC_PAGES)
		options |= PMAPS_EXPLAIN_FAST | (o->gentle ? PMAPS_EXPLAIN_GENTLE : 0);
	else if (o->gentle)
		note_msg("--gentle: smaps is read the way the kernel writes it (only the pages "
		         "source walks gently)");
	out_fd(&out, STDOUT_FILENO, buf, sizeof(buf));
	bo = o->books;
	bo.root = o->t.root;
	err = explain_write(proc, &out, o->fmt, options, o->verbose, &bo, &sp, &f);
	if (err < 0) {
		out_flush(&out); /* what was written goes before the message */
		rc = tool_fail(&o->t, &f);
	}
	rc = finish_output(&out, rc);
	if (source_line && err >= 0)
		verbose_note(proc, o->t.root, &sp);
	pmaps_proc_close(proc);
	return rc;
}

int explain_report(const struct target *t, enum fmt fmt, unsigned options, int verbose)
{
	struct explain_opts o = {*t, fmt, (options & PMAPS_EXPLAIN_FAST) ? PMAPS_SRC_PAGES
	                                                                 : PMAPS_SRC_SMAPS,
	                         (options & PMAPS_EXPLAIN_PAGES) != 0,
	                         (options & PMAPS_EXPLAIN_GENTLE) != 0, verbose, {0}};

	books_opts_init(&o.books);
	return explain_main(&o, 0);
}

int cmd_explain(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"source", required_argument, NULL, 'S'},
		{"gentle", no_argument, NULL, 'G'},
		{"json", no_argument, NULL, 'j'},
		{"jsonl", no_argument, NULL, 'L'},
		{"csv", no_argument, NULL, 'C'},
		{"pages", no_argument, NULL, 'P'},
		{"verbose", no_argument, NULL, 'v'},
		{"proc-root", required_argument, NULL, 'R'},
		{"help", no_argument, NULL, 'h'},
		BOOKS_LONGOPTS,
		{NULL, 0, NULL, 0},
	};
	struct explain_opts o = {{NULL, NULL}, FMT_TABLE, PMAPS_SRC_SMAPS, 0, 0, 0, {0}};
	int ch, r;

	opterr = 0;
	optind = 1;
	books_opts_init(&o.books);
	while ((ch = getopt_long(argc, argv, "jvh", longopts, NULL)) != -1) {
		r = books_option(&o.books, ch, optarg);
		if (r < 0)
			return EXIT_USAGE;
		if (r > 0)
			continue;
		switch (ch) {
		case 'S': {
			int s = strcmp(optarg, "auto") == 0 ? PMAPS_SRC_AUTO
			        : pmaps_source_lookup(optarg, strlen(optarg));
			if (s != PMAPS_SRC_AUTO && s != PMAPS_SRC_PAGES && s != PMAPS_SRC_SMAPS) {
				die_msg("--source takes smaps, pages or auto, not '%s'", optarg);
				return EXIT_USAGE;
			}
			o.source = s;
			break;
		}
		case 'G': o.gentle = 1; break;
		case 'j':
		case 'L':
		case 'C':
			if (set_format(&o.fmt, ch) < 0)
				return EXIT_USAGE;
			break;
		case 'P': o.pages = 1; break;
		case 'v': o.verbose = 1; break;
		case 'R': o.t.root = optarg; break;
		case 'h': return print_usage(explain_usage);
		default: return option_error("explain", argv, "jvh", longopts);
		}
	}
	if (optind + 1 != argc) {
		die_msg(optind == argc ? "which process? (pmaps explain PID; see --help)"
		                       : "one PID only (see pmaps explain --help)");
		return EXIT_USAGE;
	}
	if (o.fmt == FMT_CSV && (o.pages || o.verbose)) {
		die_msg("explain --csv writes the categories only: %s needs the table or --json",
		        o.pages ? "--pages" : "--verbose");
		return EXIT_USAGE;
	}
	if (books_options_done(&o.books) < 0)
		return EXIT_USAGE;
	o.t.pid = argv[optind];
	return explain_main(&o, o.verbose);
}
