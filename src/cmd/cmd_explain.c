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

#include "books/explain_doc.h"
#include "cmd/cmd.h"

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
	"      --source SOURCE    where the figures come from: auto (the default), smaps\n"
	"                         or pages; auto reads smaps unless its read (smaps,\n"
	"                         then smaps_rollup) would hold the process's mmap_lock\n"
	"                         over 5 ms, then the pages source, paced (Sources)\n"
	"      --exact            smaps, however long it holds the lock (--source smaps)\n"
	"      --gentle           pages: walk the page tables in small steps with pauses,\n"
	"                         so that the process's mmap() gets in\n"
	"  -j, --json             JSON for programs (bytes)\n"
	"      --jsonl            the same JSON object on one line, for a stream\n"
	"      --csv              the categories as CSV (bytes)\n"
	"      --pages            also walk every mapping's pages: per category, resident,\n"
	"                         zero-page and (as root) dirty, lazily freed, shared and\n"
	"                         THP pages\n"
	"      --wss T            also the working set: reset the process's referenced\n"
	"                         bits, wait T (500ms, 5s, 1m), then read smaps: per\n"
	"                         category and mapping, the resident bytes it touched;\n"
	"                         this writes to the process (see pmaps wss --help)\n"
	"  -v, --verbose          show the evidence behind each rule (JSON always has it),\n"
	"                         and say which source was read and what it cost\n"
	"  -w, --wide             the report whole, however wide (without it, it fits the\n"
	"                         terminal, or 80 columns: prose wrapped, the table's\n"
	"                         columns that are 0 or least needed left out, and said)\n"
	BOOKS_USAGE
	"      --proc-root DIR    read DIR/PID instead of /proc/PID\n"
	"  -h, --help             show this help\n"
	"\n"
	"Sources: smaps gives every state, and the kernel holds the process's mmap_lock\n"
	"while it walks each mapping's pages (and smaps_rollup, read after it to\n"
	"reconcile, for the whole process at once). pages counts from the page tables\n"
	"in bounded steps (the VMA list, PAGEMAP_SCAN, pagemap) and reads neither:\n"
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

/*
 * Explains PROC to OUT in FMT as ASK says, into E (kept for -v's line).
 * Returns 0, or a negative errno with the failure in F (in JSON Lines, the
 * stream then ends with the error).
 */
static int explain_write(struct pmaps_proc *proc, struct out *out, enum fmt fmt,
                         const struct explain_ask *ask, int verbose, int width,
                         struct explain_doc *e, struct failure *f)
{
	struct writer w;
	struct doc d;
	int err;

	memset(&d, 0, sizeof(d));
	err = explain_doc_read(e, proc, ask, f);
	if (ask->gentle && e->choice.source == PMAPS_SRC_SMAPS)
		note_msg("--gentle: smaps is read the way the kernel writes it (only the pages "
		         "source walks gently)");
	explain_doc_fill(e, &d);
	d.verbose = verbose;
	d.last_width = fmt == FMT_TABLE ? width : 0;
	if (e->kernel_thread)
		kernel_thread_note(d.pid);
	w_begin(&w, out, fmt, &d);
	if (err == 0) {
		w_explain(&w, e->x);
		w_end(&w, NULL);
	} else {
		/* The library's message names the file that failed (status, smaps, pagemap, ...). */
		w_end(&w, f->msg[0] ? f->msg : pmaps_strerror(err));
	}
	return err;
}

/* What was read, from where and at what cost: -v's line, as pmaps maps -v words it. */
static void verbose_note(struct pmaps_proc *proc, const char *root, const struct explain_doc *e)
{
	const struct pmaps_explain_choice *c = &e->choice;
	const struct pmaps_cost *k = &e->cost;
	enum pmaps_source src = e->x ? e->x->source : c->source;
	uint64_t mappings = e->x ? e->x->nmappings : 0;
	char how[160], cost[160] = "", why[200];

	switch (e->wss_res ? -1 : (int)c->reason) {
	case -1:
		snprintf(why, sizeof(why), "--wss: smaps, for its Referenced");
		break;
	case PMAPS_CHOICE_ASKED:
		snprintf(why, sizeof(why), "--source %s", pmaps_source_name(c->source));
		break;
	case PMAPS_CHOICE_NO_STATUS:
		snprintf(why, sizeof(why), "auto: smaps (status could not be read to price its read)");
		break;
	case PMAPS_CHOICE_OVER:
	case PMAPS_CHOICE_NO_PAGES:
		snprintf(why, sizeof(why), "auto: reading smaps and smaps_rollup would hold its "
		         "mmap_lock ~%llu us, over the %llu us limit%s",
		         (unsigned long long)(c->hold_ns / 1000u), (unsigned long long)(c->limit_ns / 1000u),
		         c->reason == PMAPS_CHOICE_NO_PAGES ? "; the pages source cannot read it here"
		         : c->options & PMAPS_EXPLAIN_PACED ? ": the pages source, paced (--exact reads smaps)"
		                                             : ": the pages source, gently");
		break;
	default:
		snprintf(why, sizeof(why), "auto: reading smaps and smaps_rollup holds its mmap_lock "
		         "~%llu us, within the %llu us limit", (unsigned long long)(c->hold_ns / 1000u),
		         (unsigned long long)(c->limit_ns / 1000u));
		break;
	}
	if (!e->have_cost) {
		/* Nothing was read (a kernel thread): no way, no time to tell. */
		note_msg("source %s: %llu mappings; %s", pmaps_source_name(src),
		         (unsigned long long)mappings, why);
		return;
	}
	if (src == PMAPS_SRC_PAGES)
		/* The exclusive bit is pagemap's, over what PAGEMAP_SCAN found; kpagecount gives Pss. */
		snprintf(how, sizeof(how), "%s + %s%s", vma_list_name(k->query),
		         k->strategy == PMAPS_PAGES_SCAN ? "PAGEMAP_SCAN + pagemap" : "pagemap",
		         e->x->xc_known & (1u << PMAPS_XC_PSS) ? " + kpagecount/kpageflags" : "");
	else
		snprintf(how, sizeof(how), "%s/%d/smaps", root ? root : "/proc", pmaps_proc_pid(proc));
	/* The longest call is the longest the process's mmap_lock was held. */
	snprintf(cost, sizeof(cost), ", %llu kernel call%s, longest call %llu us",
	         (unsigned long long)k->calls, k->calls == 1 ? "" : "s",
	         (unsigned long long)(k->hold_ns / 1000));
	if (src == PMAPS_SRC_PAGES)
		snprintf(cost + strlen(cost), sizeof(cost) - strlen(cost), ", %llu pause%s",
		         (unsigned long long)k->pauses, k->pauses == 1 ? "" : "s");
	note_msg("source %s (%s): %llu mapping%s in %.2f ms%s; %s", pmaps_source_name(src), how,
	         (unsigned long long)mappings, mappings == 1 ? "" : "s", (double)k->ns / 1e6, cost,
	         why);
	if (e->have_books && e->join.refused != PMAPS_JOIN_NONE)
		note_msg("runtime's books and the kernel's figures read within %llu ms of each other "
		         "(a join allows %llu ms); RSS moved %llu KiB between them",
		         (unsigned long long)(e->join.skew_ns / 1000000u),
		         (unsigned long long)(e->join.max_skew_ns / 1000000u),
		         (unsigned long long)(e->join.moved >> 10));
}

/* The command's options, as parsed. */
struct explain_opts {
	struct target t;
	enum fmt fmt;
	int source;  /* PMAPS_SRC_SMAPS, PMAPS_SRC_PAGES or PMAPS_SRC_AUTO */
	int pages, gentle, verbose;
	struct books_opts books;
	int wide;    /* --wide: the table and its lines whole, however wide */
	uint64_t wss_ns; /* --wss: the interval after the reset, or 0 */
};

static int explain_main(const struct explain_opts *o, int source_line)
{
	static struct explain_doc e; /* large (its books): not on the stack */
	char buf[OUT_FD_BUFSIZE];
	struct pmaps_proc *proc;
	struct books_opts bo;
	struct explain_ask ask;
	struct failure f;
	struct out out;
	int rc = tool_proc_open(&proc, &o->t), err;

	if (rc != 0)
		return rc;
	bo = o->books;
	bo.root = o->t.root;
	memset(&ask, 0, sizeof(ask));
	ask.source = o->source;
	ask.limit_ns = PMAPS_EXPLAIN_HOLD_NS;
	ask.pages = o->pages;
	ask.gentle = o->gentle;
	ask.paced = 1; /* one read: paced over the limit, within 3x of a busy neighbour */
	/* A CSV has the categories only: no books asked of the runtime. */
	ask.books = o->fmt == FMT_CSV ? NULL : &bo;
	ask.wss_ns = o->wss_ns;
	out_fd(&out, STDOUT_FILENO, buf, sizeof(buf));
	memset(&f, 0, sizeof(f));
	err = explain_write(proc, &out, o->fmt, &ask, o->verbose, o->wide ? 0 : tool_width(), &e,
	                    &f);
	if (err < 0) {
		out_flush(&out); /* what was written goes before the message */
		rc = tool_fail(&o->t, &f);
	}
	rc = finish_output(&out, rc);
	if (source_line && err >= 0)
		verbose_note(proc, o->t.root, &e);
	explain_doc_close(&e);
	pmaps_proc_close(proc);
	return rc;
}

int explain_report(const struct target *t, enum fmt fmt, unsigned options, int verbose)
{
	struct explain_opts o = {*t, fmt, (options & PMAPS_EXPLAIN_FAST) ? PMAPS_SRC_PAGES
	                                                                 : PMAPS_SRC_SMAPS,
	                         (options & PMAPS_EXPLAIN_PAGES) != 0,
	                         (options & PMAPS_EXPLAIN_GENTLE) != 0, verbose, {0}, 0, 0};

	books_opts_init(&o.books);
	return explain_main(&o, 0);
}

int cmd_explain(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"source", required_argument, NULL, 'S'},
		{"gentle", no_argument, NULL, 'G'},
		{"exact", no_argument, NULL, 'E'},
		{"json", no_argument, NULL, 'j'},
		{"jsonl", no_argument, NULL, 'L'},
		{"csv", no_argument, NULL, 'C'},
		{"pages", no_argument, NULL, 'P'},
		{"wss", required_argument, NULL, 'W'},
		{"verbose", no_argument, NULL, 'v'},
		{"wide", no_argument, NULL, 'w'},
		{"proc-root", required_argument, NULL, 'R'},
		{"help", no_argument, NULL, 'h'},
		BOOKS_LONGOPTS,
		{NULL, 0, NULL, 0},
	};
	struct explain_opts o = {{NULL, NULL}, FMT_TABLE, PMAPS_SRC_AUTO, 0, 0, 0, {0}, 0, 0};
	int ch, r, rc, exact = 0, source = 0;

	opterr = 0;
	optind = 1;
	books_opts_init(&o.books);
	while ((ch = getopt_long(argc, argv, "jvwh", longopts, NULL)) != -1) {
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
			source = 1;
			break;
		}
		case 'G': o.gentle = 1; break;
		case 'E': exact = 1; break;
		case 'j':
		case 'L':
		case 'C':
			if (set_format(&o.fmt, ch) < 0)
				return EXIT_USAGE;
			break;
		case 'P': o.pages = 1; break;
		case 'W':
			if (parse_wss_wait(optarg, &o.wss_ns) < 0)
				return EXIT_USAGE;
			break;
		case 'v': o.verbose = 1; break;
		case 'w': o.wide = 1; break;
		case 'R': o.t.root = optarg; break;
		case 'h': return print_usage(explain_usage);
		default: return option_error("explain", argv, "jvwh", longopts);
		}
	}
	if (exact && source && o.source != PMAPS_SRC_SMAPS) {
		die_msg("--exact reads smaps: it does not go with --source %s",
		        pmaps_source_name((enum pmaps_source)o.source));
		return EXIT_USAGE;
	}
	if (exact)
		o.source = PMAPS_SRC_SMAPS;
	if (optind + 1 != argc) {
		die_msg(optind == argc ? "which process? (pmaps explain PID; see --help)"
		                       : "one PID only (see pmaps explain --help)");
		return EXIT_USAGE;
	}
	if (o.wss_ns && (o.fmt == FMT_CSV || o.pages || (source && o.source != PMAPS_SRC_SMAPS) ||
	                 o.gentle)) {
		die_msg("--wss reads smaps' Referenced: not with %s",
		        o.fmt == FMT_CSV ? "--csv (the table or --json)"
		        : o.pages ? "--pages"
		        : o.gentle ? "--gentle (the pages source)" : "--source pages");
		return EXIT_USAGE;
	}
	if (o.wss_ns)
		o.source = PMAPS_SRC_SMAPS;
	if (o.fmt == FMT_CSV && (o.pages || o.verbose)) {
		die_msg("explain --csv writes the categories only: %s needs the table or --json",
		        o.pages ? "--pages" : "--verbose");
		return EXIT_USAGE;
	}
	if ((rc = books_options_done(&o.books)) != EXIT_OK)
		return rc;
	o.t.pid = argv[optind];
	return explain_main(&o, o.verbose);
}
