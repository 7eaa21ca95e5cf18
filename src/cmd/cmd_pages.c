/* SPDX-License-Identifier: MIT */
/*
 * cmd_pages.c - `pmaps pages PID [RANGE|MAPPING]`: every mapping's pages as
 * runs of equal state, or counted per mapping (--summary, the library's
 * pmaps_pages_summarize()).
 *
 * Mappings come from /proc/PID/maps (the cheapest source: no page-table
 * walk, and since 6.17 no mmap_lock); each mapping that meets the range is
 * walked on its own, so runs never cross mappings and gaps are never shown.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "common/num.h"
#include "common/tool.h"
#include "write/pages_svg.h"
#include "write/writer.h"

static const char pages_usage[] =
	"Usage: pmaps pages [OPTIONS] PID [RANGE|MAPPING]\n"
	"\n"
	"Show the pages of process PID (a number, or 'self') as runs of equal state:\n"
	"start-end, page count, state, path (with --flags: runs of equal flags).\n"
	"Unmapped gaps are not shown.\n"
	"\n"
	"RANGE: ADDR, START-END or START+LEN (addresses in hex as maps prints them,\n"
	"0x optional; LEN decimal or 0x hex, with K, M, G or T); MAPPING: a name such\n"
	"as [heap], [stack], [anon:NAME] or a path. Only that range is read.\n"
	"\n"
	"Options:\n"
	"  -s, --summary             per mapping: pages by state instead of runs\n"
	"  -F, --flags               finer runs: split wherever a page's flags differ\n"
	"                            (pagemap's, and as root kpageflags and kpagecount),\n"
	"                            shown instead of the state\n"
	"      --strategy scan|pagemap  the reader: the PAGEMAP_SCAN ioctl (Linux 6.7+) or\n"
	"                            pagemap reads; default: PAGEMAP_SCAN when the kernel has it\n"
	"      --gentle              walk in steps of 512 pages with a 100 us pause after each,\n"
	"                            so the target's mmap()/munmap() are not held up (slower)\n"
	"      --exact               walk without pauses, however long the target waits\n"
	"  -j, --json                JSON for programs\n"
	"      --jsonl               JSON Lines: one object per run or mapping, with its \"pid\"\n"
	"      --csv                 CSV for programs\n"
	"      --proc-root DIR       read DIR/PID instead of /proc/PID\n"
	"      --pfn                 as root: split runs where physical frames are not\n"
	"                            consecutive, and show each run's first frame number\n"
	"      --svg FILE            the address space as a picture (SVG; '-' for standard\n"
	"                            output): a band per mapping, pages coloured by state;\n"
	"                            a line on stderr says what was written\n"
	"      --wss T               with --svg: also the share of each mapping's resident\n"
	"                            bytes touched in T (500ms, 5s) after a reset of the\n"
	"                            process's referenced bits; this writes to the process\n"
	"                            (see Working set)\n"
	"  -q, --quiet               with --svg: no notes and no such line\n"
	"  -v, --verbose             say which reader ran and how many kernel calls it made\n"
	"  -h, --help                show this help\n"
	"\n"
	"States: anon, shared (anon mapped more than once; root), file, shmem, huge\n"
	"(PAGEMAP_SCAN), lazyfree (freed with MADV_FREE; root), zero (the zero page),\n"
	"swapped, absent (not present: never touched, or dropped).\n"
	"\n"
	"Flags (--flags): present, swapped, file (a file page or shared anonymous memory),\n"
	"exclusive (pagemap only), huge (PAGEMAP_SCAN only), zero (the shared zero\n"
	"page: mapped, not resident, as smaps counts it; pagemap tells it only where\n"
	"the kernel has PAGEMAP_SCAN, or as root), soft-dirty, uffd-wp, guard. A run\n"
	"with none is pages never touched (or dropped).\n"
	"As root, present runs are split further by /proc/kpageflags (referenced,\n"
	"dirty, lru, active, anon, swapcache, swapbacked, hugetlb, unevictable, ksm,\n"
	"thp, zero-page, idle, mlocked; lazyfree: anonymous without swapbacked, freed\n"
	"with MADV_FREE) and by /proc/kpagecount (MapCnt: mappings sharing the page).\n"
	"\n"
	"Where the estimate from the process's status (resident memory, page tables)\n"
	"says a walk without pauses would hold up its mmap() longer than 5 ms, the walk\n"
	"pauses 100 us after each 50 us (paced; -v and JSON's \"policy\" say so).\n"
	"\n"
	"Working set (--wss), the one option of pages that writes to the process:\n"
	"pmaps writes \"1\" to /proc/PID/clear_refs (the process's owner or root), which\n"
	"clears the referenced bits of every page it maps with its mmap_lock held for\n"
	"writing, as pmaps wss does, waits T, then walks smaps for its Referenced:\n"
	"a bar right of each band. Per mapping, not per page: smaps counts a mapping's\n"
	"touched pages, and no page flag here says which. Page reclaim reads the bits:\n"
	"until touched again, the process's pages look idle to it. An exit or exec\n"
	"during T is exit 1, with no picture.\n"
	"\n"
	"Exit status: 0 on success, 1 when the process cannot be read or the range\n"
	"meets no mapping, 2 on a usage error.\n";

struct pages_opts {
	struct target t;
	struct range_arg range;
	int have_range, summary, gentle, exact, verbose, pfn, quiet, flags;
	const char *svg; /* --svg FILE, or NULL */
	uint64_t wss_ns; /* --wss T, or 0 */
	enum fmt fmt;
	enum pmaps_pages_strategy strategy;
};

static void pages_doc(struct doc *d, const struct pages_opts *po, int pid,
                      enum pmaps_pages_strategy s, int kpage)
{
	memset(d, 0, sizeof(*d));
	d->kind = po->summary ? DOC_SUMMARY : DOC_RUNS;
	d->pid = pid;
	d->strategy = s;
	d->kpage = kpage;
	d->pfn = po->pfn;
	d->by_state = !po->flags && !po->pfn;
}

/* How the walk goes: --gentle, --exact, or paced where it would hold the process up (*WAIT). */
static unsigned pages_pace(const struct pages_opts *po, struct pmaps_proc *proc, uint64_t *wait)
{
	*wait = 0;
	if (po->gentle)
		return PMAPS_PAGES_GENTLE;
	if (po->exact)
		return 0;
	return read_over_limit(proc, PMAPS_SRC_PAGES, wait) == 1 ? PMAPS_PAGES_PACED : 0;
}

/*
 * The runs of the mapping M that cursor PG was sought to, to W: as the
 * cursor gives them (--flags), or neighbours of one state joined. A run
 * is written only once the next one differs or the walk has ended well.
 * Returns 0 or the cursor's negative errno.
 */
static int write_runs(struct writer *w, struct pmaps_pages *pg, const struct pmaps_mapping *m,
                      int by_state)
{
	const struct pmaps_page_range *r;
	struct pmaps_page_range acc;
	enum pmaps_page_state st = PMAPS_PS_ABSENT;
	int err, have = 0;

	while ((err = pmaps_pages_next(pg, &r)) > 0) {
		enum pmaps_page_state s;
		if (!by_state) {
			w_run(w, r, m);
			continue;
		}
		s = pmaps_page_state_of(r, m->kind);
		if (have && s == st && r->start == acc.end) {
			acc.end = r->end;
			continue;
		}
		if (have)
			w_run(w, &acc, m);
		acc = *r;
		st = s;
		have = 1;
	}
	if (err == 0 && have)
		w_run(w, &acc, m);
	return err;
}

/*
 * Writes the pages of PROC that PO asks for to OUT. Returns 0, or a
 * negative errno with the failure in F (the document then closed with the
 * error where the format holds one).
 */
static int pages_write(const struct pages_opts *po, struct pmaps_proc *proc, struct out *out,
                       struct failure *f)
{
	struct pmaps_maps *maps = NULL;
	struct pmaps_pages *pg = NULL;
	const struct pmaps_mapping *m;
	struct pmaps_page_summary sum = {.size = sizeof(struct pmaps_page_summary)};
	enum pmaps_pages_strategy s;
	struct writer w;
	struct doc d;
	uint64_t met = 0, calls = 0, wait = 0;
	int err, walking = 0; /* the page cursor, not the maps cursor, is at work */
	unsigned pace = pages_pace(po, proc, &wait);

	/*
	 * The summary counts exclusive and shared pages: PAGEMAP_SCAN has no
	 * exclusive bit, so its present runs are read again from pagemap
	 * (PMAPS_PAGES_EXCLUSIVE); the runs' table splits by what it shows.
	 */
	err = pmaps_pages_open(&pg, proc, po->strategy,
	                       PMAPS_PAGES_KPAGE | (po->pfn ? PMAPS_PAGES_PFN : 0) |
	                       pace |
	                       (po->summary ? PMAPS_PAGES_EXCLUSIVE : 0));
	if (err == -ENODATA) {
		/* A kernel thread: the note and a document with no records, as every command gives. */
		kernel_thread_note(pmaps_proc_pid(proc));
		pages_doc(&d, po, pmaps_proc_pid(proc), po->strategy, 0);
		w_begin(&w, out, po->fmt, &d);
		w_end(&w, NULL);
		err = 0;
		goto done;
	}
	if (err < 0) {
		failed(f, "pagemap", err, pg ? pmaps_pages_errmsg(pg) : NULL);
		pages_doc(&d, po, pmaps_proc_pid(proc), po->strategy, 0);
		w_failed(out, po->fmt, &d, f->msg[0] ? f->msg : pmaps_strerror(err));
		goto done;
	}
	s = pmaps_pages_strategy(pg);
	/* Root gets physical page state; anyone else is told once, and carries on. */
	if (pmaps_pages_kpage(pg) != 1)
		note_msg("%s", pmaps_pages_errmsg(pg));
	err = pmaps_maps_open(&maps, proc, PMAPS_SRC_MAPS, 0);
	if (err < 0) {
		failed(f, "maps", err, maps ? pmaps_maps_errmsg(maps) : NULL);
		pages_doc(&d, po, pmaps_proc_pid(proc), s, pmaps_pages_kpage(pg) == 1);
		w_failed(out, po->fmt, &d, f->msg[0] ? f->msg : pmaps_strerror(err));
		goto done;
	}
	pages_doc(&d, po, pmaps_proc_pid(proc), s, pmaps_pages_kpage(pg) == 1);
	d.pace = pace;
	w_begin(&w, out, po->fmt, &d);
	while ((err = pmaps_maps_next(maps, &m)) > 0) {
		uint64_t start, end;
		walking = 1;
		if (!pages_in_range(po->have_range ? &po->range : NULL, m, &start, &end))
			continue;
		met++;
		if (po->summary) {
			err = pmaps_pages_summarize(pg, start, end, &sum);
			if (err == 0)
				w_summary(&w, &sum, m);
		} else if ((err = pmaps_pages_seek(pg, start, end)) == 0) {
			err = write_runs(&w, pg, m, d.by_state);
		}
		calls += pmaps_pages_calls(pg);
		if (err < 0)
			break;
		walking = 0;
	}
	if (err < 0) {
		/* The page cursor's message may be its kpageflags note: ask the one that failed. */
		if (walking)
			failed(f, "pagemap", err, pmaps_pages_errmsg(pg));
		else
			failed(f, "maps", err, pmaps_maps_errmsg(maps));
	} else if (po->have_range && met == 0) {
		/* Nothing to show is a failure too: the document says so, as its exit status does. */
		char what[sizeof(f->msg)];
		if (po->range.name)
			snprintf(what, sizeof(what), "no mapping named '%s'", po->range.name);
		else
			snprintf(what, sizeof(what), "no mapping meets 0x%llx-0x%llx",
			         (unsigned long long)po->range.start, (unsigned long long)po->range.end);
		err = failed(f, NULL, -ENOENT, what);
	}
	w_end(&w, err < 0 ? (f->msg[0] ? f->msg : pmaps_strerror(err)) : NULL);
	if (po->verbose) {
		char a[32], b[32], why[160] = "";
		if (pace == PMAPS_PAGES_PACED)
			snprintf(why, sizeof(why), "; paced: without pauses the walk would keep the "
			         "process's mmap() waiting ~%s, over the %s limit (--exact walks so)",
			         fmt_duration(a, sizeof(a), wait),
			         fmt_duration(b, sizeof(b), PMAPS_EXPLAIN_HOLD_NS));
		else if (pace == PMAPS_PAGES_GENTLE)
			snprintf(why, sizeof(why), "; --gentle");
		note_msg("read with %s: %llu kernel calls over %llu mapping(s)%s",
		         s == PMAPS_PAGES_SCAN ? "PAGEMAP_SCAN" : "pagemap", (unsigned long long)calls,
		         (unsigned long long)met, why);
	}
done:
	pmaps_maps_close(maps);
	pmaps_pages_close(pg);
	return err;
}

/*
 * --svg: FILE is checked and opened before the walk (outfile.h), so that a
 * path that cannot be written fails first, and the picture is put there
 * only once the walk has ended well: a failed walk leaves whatever was at
 * FILE as it was (a regular file is replaced by a new one with rename(2);
 * a link's target, a FIFO or a device is written to only at the end). '-'
 * is standard output, written only after a walk that ended well.
 */
static int pages_svg_report(const struct pages_opts *po)
{
	struct pmaps_proc *proc = NULL;
	struct outfile file;
	struct pages_svg_drawn drawn;
	struct pages_svg_req req = {
		.strategy = po->strategy,
		.verbose = po->verbose,
		.range = po->have_range ? &po->range : NULL,
		.out = &file,
		.quiet = po->quiet,
		.drawn = &drawn,
		.wss_ns = po->wss_ns,
	};
	uint64_t psize = (uint64_t)sysconf(_SC_PAGESIZE);
	struct failure f;
	char msg[256];
	int rc = tool_proc_open(&proc, &po->t), err;

	if (rc != 0)
		return rc;
	err = outfile_open(&file, po->svg, msg, sizeof(msg));
	if (err < 0) {
		die_msg("cannot write %s: %s", po->svg, msg);
		pmaps_proc_close(proc);
		return EXIT_FAIL;
	}
	req.proc = proc;
	{
		uint64_t wait;
		req.pace = pages_pace(po, proc, &wait);
	}
	if (pages_svg_write(&req, &f) < 0) {
		outfile_abort(&file);
		rc = tool_fail(&po->t, &f);
	} else if (outfile_commit(&file, msg, sizeof(msg)) < 0) {
		die_msg("cannot write %s: %s", po->svg, msg);
		rc = EXIT_FAIL;
	} else if (!po->quiet) {
		char pages[32], res[32];
		fmt_human(pages, sat_mul(drawn.pages, psize));
		fmt_human(res, sat_mul(drawn.resident, psize));
		outfile_said(&file, "process %d's pages%s: %llu mapping%s, %s mapped, %s resident; "
		             "read with %s%s", pmaps_proc_pid(proc), po->have_range ? " in the range" : "",
		             (unsigned long long)drawn.mappings, drawn.mappings == 1 ? "" : "s",
		             pages, res, drawn.scan ? "PAGEMAP_SCAN" : "pagemap",
		             drawn.kpage ? " and kpageflags" : "");
		if (drawn.wss) {
			char t[32], when[32];
			fmt_human(t, drawn.wss_touched);
			fmt_human(res, drawn.wss_resident);
			note_msg("working set: %s of %s resident touched in %s (smaps' Referenced, per "
			         "mapping, after a reset of the referenced bits)", t, res,
			         fmt_duration(when, sizeof(when), drawn.wss_since_ns));
		}
	}
	pmaps_proc_close(proc);
	return rc;
}

static int pages_report(const struct pages_opts *po)
{
	char buf[OUT_FD_BUFSIZE];
	struct pmaps_proc *proc = NULL;
	struct failure f;
	struct out out;
	int rc = tool_proc_open(&proc, &po->t);

	if (rc != 0)
		return rc;
	out_fd(&out, STDOUT_FILENO, buf, sizeof(buf));
	if (pages_write(po, proc, &out, &f) < 0) {
		out_flush(&out); /* what was written goes before the message */
		rc = tool_fail(&po->t, &f);
	}
	rc = finish_output(&out, rc);
	pmaps_proc_close(proc);
	return rc;
}

int cmd_pages(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"summary", no_argument, NULL, 's'},
		{"flags", no_argument, NULL, 'F'},
		{"strategy", required_argument, NULL, 'S'},
		{"gentle", no_argument, NULL, 'G'},
		{"exact", no_argument, NULL, 'E'},
		{"json", no_argument, NULL, 'j'},
		{"jsonl", no_argument, NULL, 'L'},
		{"csv", no_argument, NULL, 'C'},
		{"proc-root", required_argument, NULL, 'R'},
		{"verbose", no_argument, NULL, 'v'},
		{"pfn", no_argument, NULL, 'P'},
		{"svg", required_argument, NULL, 'V'},
		{"quiet", no_argument, NULL, 'q'},
		{"wss", required_argument, NULL, 'W'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct pages_opts po = {.fmt = FMT_TABLE, .strategy = PMAPS_PAGES_AUTO};
	char err[256];
	int ch;

	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "sFjvqh", longopts, NULL)) != -1) {
		switch (ch) {
		case 's': po.summary = 1; break;
		case 'F': po.flags = 1; break;
		case 'S':
			if (strcmp(optarg, "scan") == 0)
				po.strategy = PMAPS_PAGES_SCAN;
			else if (strcmp(optarg, "pagemap") == 0)
				po.strategy = PMAPS_PAGES_PAGEMAP;
			else {
				die_msg("--strategy takes 'scan' or 'pagemap', not '%s'", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'G': po.gentle = 1; break;
		case 'E': po.exact = 1; break;
		case 'j':
		case 'L':
		case 'C':
			if (set_format(&po.fmt, ch) < 0)
				return EXIT_USAGE;
			break;
		case 'R': po.t.root = optarg; break;
		case 'v': po.verbose = 1; break;
		case 'q': po.quiet = 1; break;
		case 'P': po.pfn = 1; break;
		case 'V':
			if (po.svg) {
				die_msg("--svg given twice");
				return EXIT_USAGE;
			}
			if (!*optarg) {
				die_msg("--svg takes a file name, or '-' for standard output");
				return EXIT_USAGE;
			}
			po.svg = optarg;
			break;
		case 'W':
			if (parse_wss_wait(optarg, &po.wss_ns) < 0)
				return EXIT_USAGE;
			break;
		case 'h': return print_usage(pages_usage);
		default: return option_error("pages", argv, "sFjvqh", longopts);
		}
	}
	if (optind == argc || argc - optind > 2) {
		die_msg(optind == argc ? "which process? (pmaps pages PID [RANGE]; see --help)"
		                       : "too many arguments (see pmaps pages --help)");
		return EXIT_USAGE;
	}
	po.t.pid = argv[optind];
	if (optind + 1 < argc) {
		if (parse_range(argv[optind + 1], &po.range, err, sizeof(err)) < 0) {
			die_msg("%s", err);
			return EXIT_USAGE;
		}
		po.have_range = 1;
	}
	if (po.flags && po.summary) {
		die_msg("--flags splits runs, which --summary does not show: choose one");
		return EXIT_USAGE;
	}
	if (po.pfn && po.summary) {
		die_msg("--pfn splits runs, which --summary does not show: choose one");
		return EXIT_USAGE;
	}
	if (po.gentle && po.exact) {
		die_msg("--gentle and --exact do not go together");
		return EXIT_USAGE;
	}
	if (po.wss_ns && !po.svg) {
		die_msg("--wss colours the picture: use it with --svg (for figures, pmaps wss PID)");
		return EXIT_USAGE;
	}
	if (po.svg) {
		/* The picture is its own format: it shows states, not runs, frames or sums. */
		const char *other = po.summary ? "--summary" : po.pfn ? "--pfn"
		                  : po.fmt == FMT_JSON ? "--json" : po.fmt == FMT_JSONL ? "--jsonl"
		                  : po.fmt == FMT_CSV ? "--csv" : NULL;
		if (other) {
			die_msg("--svg writes a picture, %s another output: choose one", other);
			return EXIT_USAGE;
		}
		return pages_svg_report(&po);
	}
	return pages_report(&po);
}
