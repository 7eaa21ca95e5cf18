/* SPDX-License-Identifier: MIT */
/*
 * cmd_maps.c - `pmaps maps PID`: every mapping and every smaps field, per
 * mapping, grouped by path or kind, or in total.
 *
 * Without --sort, rows go out as the library yields them and memory stays
 * constant. --sort has to hold every row (sort.c keeps only what the output
 * prints of each) and writes them after the scan. Groups and totals are
 * the library's (pmaps_group_read(), pmaps_total()); this file chooses the
 * records and hands them to the writers.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sort.h"
#include "tool.h"

static const char maps_usage[] =
	"Usage: pmaps maps [OPTIONS] PID\n"
	"\n"
	"List every mapping of process PID (a number, or 'self') with every field\n"
	"/proc/PID/smaps reports, or sums of them per path, per kind, or in total.\n"
	"\n"
	"Options:\n"
	"  -g, --group path|kind  one row per path (nameless mappings share one) or per kind\n"
	"  -t, --total            one row: from smaps_rollup when the kernel has it, else\n"
	"                         summed from smaps (the output says which)\n"
	"  -f, --fields LIST      table/CSV columns, comma-separated, or 'all'\n"
	"  -s, --sort FIELD       sort rows by FIELD (not vm_flags): fields and sizes\n"
	"                         largest first; addresses, names and kind ascending\n"
	"  -j, --json             JSON for programs: sizes in bytes, every reported field\n"
	"      --jsonl            JSON Lines: one object per row, each with its \"pid\"\n"
	"      --csv              CSV for programs: sizes in bytes\n"
	"  -b, --bytes            table sizes in bytes instead of K/M/G (powers of 1024)\n"
	"      --proc-root DIR    read DIR/PID instead of /proc/PID (a host's proc, a fixture)\n"
	"  -h, --help             show this help\n"
	"\n"
	"Fields: any smaps field by kernel or snake_case name (rss, pss, pss_dirty,\n"
	"shared_clean, shared_dirty, private_clean, private_dirty, referenced, anonymous,\n"
	"ksm, lazy_free, anon_huge_pages, swap, swap_pss, locked, ...) and address, start,\n"
	"end, perms, offset, dev, inode, kind, shared, mappings, vsize, vm_flags, path.\n"
	"Default: address,perms,kind,rss,pss,private_dirty,private_clean,shared,swap,\n"
	"lazy_free,path. A field the kernel does not report shows as '-'.\n"
	"\n"
	"Kinds: anon, anon-named, heap, stack, file-text, file-data, file-ro, shmem,\n"
	"hugetlb, vdso, guard, other.\n"
	"\n"
	"Exit status: 0 on success (a kernel thread: a note and no rows), 1 when the\n"
	"process cannot be read (gone, exited or exec'd while read, permission denied,\n"
	"malformed text) or the output cannot be written, 2 on a usage error.\n";

struct maps_opts {
	struct target t;
	enum fmt fmt;
	int group;          /* -1 none, else enum pmaps_group_by */
	int sort_col;       /* -1 none */
	int ncols;
	int cols[COL_MAPS_END];
	int human;          /* table: human units (default); 0: bytes */
};

static void default_columns(struct maps_opts *o)
{
	static const int def[] = {COL_ADDRESS, COL_PERMS, COL_KIND, PMAPS_F_RSS, PMAPS_F_PSS,
	                          PMAPS_F_PRIVATE_DIRTY, PMAPS_F_PRIVATE_CLEAN, COL_SHARED,
	                          PMAPS_F_SWAP, PMAPS_F_LAZY_FREE, COL_PATH};
	static const int grp[] = {COL_KIND, COL_MAPPINGS, COL_VSIZE, PMAPS_F_RSS, PMAPS_F_PSS,
	                          PMAPS_F_PRIVATE_DIRTY, PMAPS_F_PRIVATE_CLEAN, COL_SHARED,
	                          PMAPS_F_SWAP, PMAPS_F_LAZY_FREE, COL_PATH};
	const int *src = o->group >= 0 ? grp : def;
	size_t n = o->group >= 0 ? sizeof(grp) / sizeof(grp[0]) : sizeof(def) / sizeof(def[0]);

	/* By kind the kind is the key; in total the last column names the source. */
	if (o->group == PMAPS_GROUP_KIND)
		n--;
	if (o->group == PMAPS_GROUP_TOTAL) {
		src++;
		n--;
	}
	for (size_t i = 0; i < n; i++)
		o->cols[i] = src[i];
	o->ncols = (int)n;
}

/* What a maps document holds, for the writers. */
static void maps_doc(struct doc *d, const struct maps_opts *o, int pid, const char *source)
{
	memset(d, 0, sizeof(*d));
	d->kind = o->group < 0 ? DOC_MAPPINGS : o->group == PMAPS_GROUP_TOTAL ? DOC_TOTAL : DOC_GROUPS;
	d->by = o->group < 0 ? PMAPS_GROUP_PATH : (enum pmaps_group_by)o->group;
	d->pid = pid;
	d->source = source;
	d->cols = o->cols;
	d->ncols = o->ncols;
	d->human = o->human;
}

/* A failed read: the document closed with the error where the format holds one. Returns ERR. */
static int fail(struct failure *f, struct writer *w, struct pmaps_maps *c, int err,
                const char *file)
{
	const char *msg = c && pmaps_maps_errmsg(c)[0] ? pmaps_maps_errmsg(c) : pmaps_strerror(err);

	if (w)
		w_end(w, msg);
	return failed(f, file, err, msg);
}

/* A kernel thread: the note, and a document with no records. */
static int no_memory(const struct maps_opts *o, struct out *out, int pid, const char *source)
{
	struct writer w;
	struct doc d;

	kernel_thread_note(pid);
	maps_doc(&d, o, pid, source);
	w_begin(&w, out, o->fmt, &d);
	w_end(&w, NULL);
	return 0;
}

/*
 * The reports below write one document to OUT and return 0, or a negative
 * errno with the failure in F (the document then closed with the error).
 */
static int report_total(const struct maps_opts *o, struct pmaps_proc *proc, struct out *out,
                        struct failure *f)
{
	struct pmaps_group_row row;
	enum pmaps_source src;
	struct writer w;
	struct doc d;
	char msg[256];
	int err = pmaps_total(proc, &row, sizeof(row), &src, msg, sizeof(msg));
	const char *source = src == PMAPS_SRC_ROLLUP ? "smaps_rollup" : "smaps";

	if (src == PMAPS_SRC_SMAPS)
		note_msg("smaps_rollup is not provided by this kernel (needs Linux 4.14); "
		         "summing smaps instead");
	if (err == -ENODATA)
		return no_memory(o, out, pmaps_proc_pid(proc), source);
	maps_doc(&d, o, pmaps_proc_pid(proc), source);
	if (err < 0) {
		w_failed(out, o->fmt, &d, msg[0] ? msg : pmaps_strerror(err));
		return failed(f, source, err, msg);
	}
	w_begin(&w, out, o->fmt, &d);
	w_group(&w, &row);
	w_end(&w, NULL);
	return 0;
}

static int report_groups(const struct maps_opts *o, struct pmaps_proc *proc,
                         struct pmaps_maps *c, struct out *out, struct failure *f)
{
	const struct pmaps_group_row **rows = NULL;
	struct pmaps_group *g = NULL;
	struct writer w;
	struct doc d;
	size_t n;
	int err;

	if (pmaps_group_open(&g, (enum pmaps_group_by)o->group) < 0)
		return failed(f, NULL, -ENOMEM, NULL);
	err = pmaps_group_read(g, c);
	n = pmaps_group_count(g);
	if (err == -ENODATA && n == 0) {
		pmaps_group_close(g);
		return no_memory(o, out, pmaps_proc_pid(proc), "smaps");
	}
	maps_doc(&d, o, pmaps_proc_pid(proc), "smaps");
	rows = err < 0 ? NULL : calloc(n ? n : 1, sizeof(*rows));
	if (!rows) {
		err = fail(f, NULL, c, err < 0 ? err : -ENOMEM, "smaps");
		w_failed(out, o->fmt, &d, f->msg);
		pmaps_group_close(g);
		return err;
	}
	w_begin(&w, out, o->fmt, &d);
	if (pmaps_maps_lines(c) == 0 && pmaps_proc_is_kernel_thread(proc) == 1)
		kernel_thread_note(pmaps_proc_pid(proc));
	for (size_t i = 0; i < n; i++)
		rows[i] = pmaps_group_get(g, i);
	if (o->sort_col >= 0)
		sort_groups(rows, n, o->sort_col);
	for (size_t i = 0; i < n; i++)
		w_group(&w, rows[i]);
	w_end(&w, NULL);
	free(rows);
	pmaps_group_close(g);
	return 0;
}

/* What --sort keeps of a read: the rows, and how many. */
struct sorted_read {
	struct sorter *st;
	const struct maps_opts *o;
	uint64_t rows;
};

static int keep_row(void *ctx, const struct pmaps_mapping *m)
{
	struct sorted_read *r = ctx;

	r->rows++;
	return sorter_add(r->st, m);
}

static void start_over(void *ctx)
{
	struct sorted_read *r = ctx;

	sorter_free(r->st);
	sorter_init(r->st, r->o->sort_col, r->o->fmt == FMT_JSON || r->o->fmt == FMT_JSONL,
	            r->o->cols, r->o->ncols);
	r->rows = 0;
}

/*
 * Sorted rows are buffered, and so one whole reading is kept: the library
 * reads again when a row was listed twice or the thread read through ended.
 */
static int read_sorted(struct sorter *st, const struct maps_opts *o, struct pmaps_maps *c,
                       uint64_t *rows)
{
	struct sorted_read r = {st, o, 0};
	int err = pmaps_maps_read_whole(c, keep_row, start_over, &r);

	*rows = r.rows;
	return err;
}

static int report_mappings(const struct maps_opts *o, struct pmaps_proc *proc,
                           struct pmaps_maps *c, struct out *out, struct failure *f)
{
	const struct pmaps_mapping *m;
	struct pmaps_mapping kept = {0};
	struct sorter st;
	struct writer w;
	struct doc d;
	uint64_t rows = 0, overlaps = 0;
	int err;

	sorter_init(&st, o->sort_col, 0, NULL, 0);
	maps_doc(&d, o, pmaps_proc_pid(proc), "smaps");
	if (o->sort_col < 0) {
		/* Streamed: what was written cannot be taken back, so it is never read again. */
		w_begin(&w, out, o->fmt, &d);
		while ((err = pmaps_maps_next(c, &m)) > 0) {
			rows++;
			overlaps += (m->flags & PMAPS_ROW_OVERLAP) != 0;
			w_mapping(&w, m);
		}
	} else {
		err = read_sorted(&st, o, c, &rows);
		if (err == -ENODATA && rows == 0) {
			sorter_free(&st);
			return no_memory(o, out, pmaps_proc_pid(proc), "smaps");
		}
		if (err < 0) {
			/* Nothing was written: the rows were held for sorting. */
			fail(f, NULL, c, err, "smaps");
			w_failed(out, o->fmt, &d, f->msg);
			goto done;
		}
		w_begin(&w, out, o->fmt, &d);
	}
	if (err < 0) {
		fail(f, &w, c, err, "smaps");
		goto done;
	}
	if (pmaps_maps_lines(c) == 0 && pmaps_proc_is_kernel_thread(proc) == 1)
		kernel_thread_note(pmaps_proc_pid(proc));
	if (overlaps)
		note_msg("process %s changed its mappings while it was read: %llu mapping(s) grew "
		         "between two reads and were listed again from their start (marked "
		         "overlaps_previous in JSON); a sum of these rows counts that twice",
		         o->t.pid, (unsigned long long)overlaps);
	sorter_sort(&st);
	for (size_t i = 0; i < st.n; i++) {
		sorter_get(&st, i, &kept);
		w_mapping(&w, &kept);
	}
	w_end(&w, NULL);
done:
	sorter_free(&st);
	return err < 0 ? err : 0;
}

static int maps_report(const struct maps_opts *o)
{
	char buf[OUT_FD_BUFSIZE];
	struct pmaps_proc *proc = NULL;
	struct pmaps_maps *c = NULL;
	struct failure f;
	struct out out;
	int rc, err;

	out_fd(&out, STDOUT_FILENO, buf, sizeof(buf));
	rc = tool_proc_open(&proc, &o->t);
	if (rc != 0)
		return rc;
	if (o->group == PMAPS_GROUP_TOTAL)
		err = report_total(o, proc, &out, &f);
	else if ((err = pmaps_maps_open(&c, proc, PMAPS_SRC_SMAPS, 0)) == -ENODATA)
		err = no_memory(o, &out, pmaps_proc_pid(proc), "smaps");
	else if (err < 0) {
		struct doc d;
		err = fail(&f, NULL, c, err, "smaps");
		maps_doc(&d, o, pmaps_proc_pid(proc), "smaps");
		w_failed(&out, o->fmt, &d, f.msg);
	}
	else if (o->group >= 0)
		err = report_groups(o, proc, c, &out, &f);
	else
		err = report_mappings(o, proc, c, &out, &f);
	if (err < 0) {
		out_flush(&out); /* what was written goes before the message */
		rc = tool_fail(&o->t, &f);
	}
	rc = finish_output(&out, err < 0 ? rc : EXIT_OK);
	pmaps_maps_close(c);
	pmaps_proc_close(proc);
	return rc;
}

int cmd_maps(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"group", required_argument, NULL, 'g'},
		{"total", no_argument, NULL, 't'},
		{"fields", required_argument, NULL, 'f'},
		{"sort", required_argument, NULL, 's'},
		{"json", no_argument, NULL, 'j'},
		{"jsonl", no_argument, NULL, 'L'},
		{"csv", no_argument, NULL, 'C'},
		{"bytes", no_argument, NULL, 'b'},
		{"proc-root", required_argument, NULL, 'R'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct maps_opts o = {.group = -1, .sort_col = -1, .human = 1, .fmt = FMT_TABLE};
	const char *fields = NULL, *sort = NULL;
	int ch, total = 0;

	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "g:tf:s:jbh", longopts, NULL)) != -1) {
		switch (ch) {
		case 'g':
			if (strcmp(optarg, "path") == 0)
				o.group = PMAPS_GROUP_PATH;
			else if (strcmp(optarg, "kind") == 0)
				o.group = PMAPS_GROUP_KIND;
			else {
				die_msg("--group takes 'path' or 'kind', not '%s'", optarg);
				return EXIT_USAGE;
			}
			break;
		case 't': total = 1; break;
		case 'f': fields = optarg; break;
		case 's': sort = optarg; break;
		case 'j':
		case 'L':
		case 'C':
			if (set_format(&o.fmt, ch) < 0)
				return EXIT_USAGE;
			break;
		case 'b': o.human = 0; break;
		case 'R': o.t.root = optarg; break;
		case 'h': return print_usage(maps_usage);
		default: return option_error("maps", argv, "g:tf:s:jbh", longopts);
		}
	}
	if (total && o.group >= 0) {
		die_msg("--total and --group do not go together");
		return EXIT_USAGE;
	}
	if (total)
		o.group = PMAPS_GROUP_TOTAL;
	if (optind + 1 != argc) {
		die_msg(optind == argc ? "which process? (pmaps maps PID; see --help)"
		                       : "one PID only (see pmaps maps --help)");
		return EXIT_USAGE;
	}
	o.t.pid = argv[optind];
	if (fields) {
		o.ncols = parse_columns(fields, o.cols, COL_MAPS_END, o.group >= 0);
		if (o.ncols < 0)
			return EXIT_USAGE;
	} else {
		default_columns(&o);
	}
	if (sort) {
		int col = col_lookup(sort, strlen(sort));
		if (strcmp(sort, "all") == 0 || strchr(sort, ',')) {
			die_msg("--sort takes one field, not '%s'", sort);
			return EXIT_USAGE;
		}
		if (col < 0) {
			die_msg("--sort: unknown field '%s' (see pmaps maps --help)", sort);
			return EXIT_USAGE;
		}
		if (col == COL_VMFLAGS) {
			die_msg("--sort: rows cannot be sorted by vm_flags");
			return EXIT_USAGE;
		}
		if (o.group >= 0 && !(columns[col].records & REC_GROUP)) {
			die_msg("--sort %s is per mapping and cannot sort groups", sort);
			return EXIT_USAGE;
		}
		if (o.group == PMAPS_GROUP_TOTAL) {
			die_msg("--sort has nothing to sort with --total");
			return EXIT_USAGE;
		}
		o.sort_col = col;
	}
	return maps_report(&o);
}
