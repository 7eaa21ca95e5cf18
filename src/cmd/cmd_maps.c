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
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "common/num.h"
#include "common/tool.h"
#include "write/sort.h"
#include "write/writer.h"

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
	"      --source SOURCE    where the values come from: fast, pages, smaps, rollup\n"
	"                         (--total only) or auto, the default: the cheapest for\n"
	"                         the process that gives every column asked (Sources)\n"
	"      --gentle           fast and pages: walk the page tables in small steps\n"
	"                         with pauses, so that the process's mmap() gets in\n"
	"                         (the default where a read would hold it up longer\n"
	"                         than 5 ms: see Gentle)\n"
	"      --exact            read as asked, however long the process's mmap() waits\n"
	"  -v, --verbose          say which source was read, why, and what it cost\n"
	"  -w, --wide             the default columns all, and paths whole, however wide\n"
	"                         (without it the table fits the terminal, or 80\n"
	"                         columns: it leaves columns out and cuts paths at\n"
	"                         their start, \"...\" marking the cut)\n"
	"  -f, --fields LIST      columns, comma-separated, or 'all'; the row's identity\n"
	"                         (address and path; a group's key) is kept unless LIST\n"
	"                         names one of address, start, end, path or kind\n"
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
	"end, perms, offset, dev, inode, kind, shared, uss, file_rss, zero_page,\n"
	"mappings, vsize, vm_flags, path. Default: address,perms,kind,rss,pss,\n"
	"private_dirty,private_clean,shared,swap,lazy_free,path. A field the kernel or\n"
	"the source does not report shows as '-'.\n"
	"\n"
	"Sources: smaps has every field, and holds the process's mmap_lock while the\n"
	"kernel walks each mapping's pages; so does rollup, for the whole process at\n"
	"once. fast (the maps text or PROCMAP_QUERY, and PAGEMAP_SCAN) gives size,\n"
	"rss, anonymous, swap, anon_huge_pages, file/shmem_pmd_mapped,\n"
	"kernel_page_size, file_rss and zero_page, walking in bounded steps; pages\n"
	"adds uss and shared from pagemap, and as root pss and lazy_free from\n"
	"kpagecount and kpageflags. auto reads the cheapest source that gives every\n"
	"column asked (the maps text alone for addresses and names), and smaps for\n"
	"JSON without --fields, for -f all and for vm_flags. Output not from smaps\n"
	"says so: a note, a JSON \"source\", a CSV column.\n"
	"\n"
	"Gentle: reading smaps or smaps_rollup holds the process's mmap_lock while the\n"
	"kernel walks a mapping's pages, and a page walk's calls made back to back\n"
	"keep its mmap() waiting too. Where the estimate from the process's status\n"
	"(resident memory, page tables) says a read would hold it up longer than 5 ms,\n"
	"the page sources walk paced (a 100 us pause after each 50 us), and auto reads\n"
	"the default columns from the pages source instead of smaps (a note names what\n"
	"it cannot give). -v and JSON's \"source_choice\" say so; --exact reads as\n"
	"before.\n"
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
	int every;          /* every field asked: JSON without --fields, or --fields all */
	int source;         /* enum pmaps_source, PMAPS_SRC_AUTO by default */
	int gentle;
	int exact;          /* --exact: as asked or chosen, however long it holds the lock */
	int fields_given;   /* --fields (not the default columns) */
	int wide;           /* --wide: the default columns whole, however wide */
	int asked[COL_MAPS_END]; /* the default columns before fit_width() left some out */
	int nasked;         /* their count; 0: the columns shown are those asked */
	char left_out[256]; /* what fit_width() left out, or "" */
	int last_width;     /* the table's path in at most this many columns (0: whole) */
	int verbose;
};

/* The source chosen for a report, and what reading it cost. */
struct reading {
	enum pmaps_source src;
	int classic_total;  /* --total through pmaps_total(): smaps_rollup, else smaps */
	const struct pmaps_policy *policy; /* --gentle's, or NULL */
	char why[300];      /* auto: why this source ("" when --source named it) */
	struct pmaps_cost cost;
	int have_cost;
	uint64_t ns;        /* the wall time, when the library gave no cost */
	uint64_t mappings;  /* rows read, or a total's mapping count */
	int have_mappings;
	int query;          /* pmaps_maps_query() of the cursor, -1 when not known */
	uint64_t seen;      /* OR of the rows' present masks */
	/* How the read was held to the limit (hold_to_limit()): JSON's "source_choice" */
	struct pmaps_explain_choice choice;
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

/*
 * --fields LIST without the row's identity gets it: a mapping's address
 * first and path last, a group's key (path last, kind first). A list that
 * names one of them has chosen its identity columns and is kept as it is.
 * COLS holds COL_MAPS_END: a list without them holds two fewer at most.
 */
static void keep_identity(struct maps_opts *o)
{
	static const int ident[] = {COL_ADDRESS, COL_START, COL_END, COL_PATH, COL_KIND};
	int first = -1, last = -1;

	for (int i = 0; i < o->ncols; i++)
		for (size_t k = 0; k < sizeof(ident) / sizeof(ident[0]); k++)
			if (o->cols[i] == ident[k])
				return;
	if (o->group < 0) {
		first = COL_ADDRESS;
		last = COL_PATH;
	} else if (o->group == PMAPS_GROUP_PATH) {
		last = COL_PATH;
	} else if (o->group == PMAPS_GROUP_KIND) {
		first = COL_KIND;
	}
	if (first >= 0) {
		memmove(o->cols + 1, o->cols, (size_t)o->ncols * sizeof(o->cols[0]));
		o->cols[0] = first;
		o->ncols++;
	}
	if (last >= 0)
		o->cols[o->ncols++] = last;
}

/* A column's width in the table: sizes in bytes (-b) take twelve. */
static int col_width(const struct maps_opts *o, int c)
{
	int w = (int)columns[c].width;

	return !o->human && columns[c].unit == UNIT_BYTES && w < 12 ? 12 : w;
}

/*
 * The default table in WIDTH columns: columns left out, least needed first,
 * until the rest fit, with 24 columns at least for a path (12 for a total's
 * source) at the end; the path then gets what is left, cut from its start
 * ("..." and its end). The columns asked of the source stay those of the
 * whole table: its width never changes where the values come from. What
 * was left out goes to O->left_out, for a note.
 */
static void fit_width(struct maps_opts *o, int width)
{
	static const int drop[] = {PMAPS_F_LAZY_FREE, PMAPS_F_PRIVATE_CLEAN, COL_SHARED,
	                           PMAPS_F_PRIVATE_DIRTY, COL_VSIZE, COL_KIND, COL_PERMS,
	                           COL_MAPPINGS, PMAPS_F_SWAP};
	char gone[160] = "";
	size_t g = 0;
	int need = 0, last = o->ncols ? o->cols[o->ncols - 1] : -1;
	int last_min = last != COL_PATH ? 0 : o->group == PMAPS_GROUP_TOTAL ? 12 : 24;

	memcpy(o->asked, o->cols, (size_t)o->ncols * sizeof(o->cols[0]));
	o->nasked = o->ncols;
	for (int i = 0; i < o->ncols; i++)
		need += (i ? 1 : 0) + (o->cols[i] == COL_PATH ? last_min : col_width(o, o->cols[i]));
	for (size_t k = 0; k < sizeof(drop) / sizeof(drop[0]) && need > width; k++)
		for (int i = 0; i < o->ncols; i++) {
			if (o->cols[i] != drop[k] || drop[k] == o->sort_col || o->ncols < 2 ||
			    (drop[k] == COL_KIND && o->group == PMAPS_GROUP_KIND))
				continue; /* the one sorted by, and a group's key, stay */
			need -= col_width(o, drop[k]) + 1;
			memmove(o->cols + i, o->cols + i + 1, (size_t)(o->ncols - i - 1) * sizeof(o->cols[0]));
			o->ncols--;
			g += (size_t)snprintf(gone + g, sizeof(gone) - g, "%s%s", g ? ", " : "",
			                      columns[drop[k]].key.s);
			break;
		}
	if (last == COL_PATH)
		o->last_width = width - (need - last_min) > last_min ? width - (need - last_min)
		                                                     : last_min;
	if (g)
		snprintf(o->left_out, sizeof(o->left_out), "%d columns: left out %s (--wide, or "
		         "--fields, shows them)", width, gone);
}

/* A page source: values counted from the page tables rather than smaps' text. */
static int page_source(enum pmaps_source s)
{
	return s == PMAPS_SRC_FAST || s == PMAPS_SRC_PAGES;
}

/*
 * The file a failure names: the text sources' own; a page source reads
 * several (maps, pagemap, kpageflags), and its message says which.
 */
static const char *src_file(enum pmaps_source s)
{
	return page_source(s) ? NULL : pmaps_source_name(s);
}

/* What a maps document holds, for the writers. */
static void maps_doc(struct doc *d, const struct maps_opts *o, int pid, enum pmaps_source src,
                     const struct pmaps_explain_choice *choice)
{
	int has_path = 0;

	memset(d, 0, sizeof(*d));
	d->kind = o->group < 0 ? DOC_MAPPINGS : o->group == PMAPS_GROUP_TOTAL ? DOC_TOTAL : DOC_GROUPS;
	d->by = o->group < 0 ? PMAPS_GROUP_PATH : (enum pmaps_group_by)o->group;
	d->pid = pid;
	d->source = pmaps_source_name(src);
	d->cols = o->cols;
	d->ncols = o->ncols;
	d->human = o->human;
	d->measured = page_source(src);
	/* smaps' CSV stays as it always was; a total's path column names its source already. */
	for (int i = 0; i < o->ncols; i++)
		has_path |= o->cols[i] == COL_PATH;
	d->csv_source = src != PMAPS_SRC_SMAPS && src != PMAPS_SRC_ROLLUP &&
	                !(d->kind == DOC_TOTAL && has_path);
	d->choice = choice;
	d->last_width = o->fmt == FMT_TABLE ? o->last_width : 0;
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
static int no_memory(const struct maps_opts *o, struct out *out, int pid, enum pmaps_source src)
{
	struct writer w;
	struct doc d;

	kernel_thread_note(pid);
	maps_doc(&d, o, pid, src, NULL);
	w_begin(&w, out, o->fmt, &d);
	w_end(&w, NULL);
	return 0;
}

/* What the cursor's read cost, and how it listed the mappings. */
static void cursor_spent(struct reading *r, const struct pmaps_maps *c)
{
	r->cost.size = sizeof(r->cost);
	r->have_cost = pmaps_maps_cost(c, &r->cost) == 0;
	r->query = pmaps_maps_query(c);
}

/*
 * The reports below write one document to OUT and return 0, or a negative
 * errno with the failure in F (the document then closed with the error).
 */
static int report_total(const struct maps_opts *o, struct pmaps_proc *proc, struct reading *r,
                        int count, struct out *out, struct failure *f)
{
	struct pmaps_group_row row;
	enum pmaps_source src = r->src;
	const char *file;
	struct writer w;
	struct doc d;
	char msg[256];
	int err;

	if (r->classic_total && count) {
		/* As without --source: the kernel's sum, or smaps summed before Linux 4.14. */
		uint64_t t0 = now_ns();
		src = PMAPS_SRC_ROLLUP;
		err = pmaps_total(proc, &row, sizeof(row), &src, msg, sizeof(msg));
		r->ns = now_ns() - t0;
		r->src = src;
		if (src == PMAPS_SRC_SMAPS)
			note_msg("smaps_rollup is not provided by this kernel (needs Linux 4.14); "
			         "summing smaps instead");
	} else {
		r->cost.size = sizeof(r->cost);
		err = pmaps_total_from(proc, src, r->policy, &row, sizeof(row), &r->cost, msg,
		                       sizeof(msg));
		r->have_cost = 1;
		if (err == -ENOENT && r->classic_total) {
			/* Before Linux 4.14: pmaps_total() sums smaps, which counts as it goes. */
			r->have_cost = 0;
			return report_total(o, proc, r, 1, out, f);
		}
		if (err == 0 && src == PMAPS_SRC_ROLLUP && count) {
			struct pmaps_cost k = {.size = sizeof(k)};
			err = pmaps_total_count(proc, &row, sizeof(row), &k, msg, sizeof(msg));
			r->cost.ns += k.ns;
			r->cost.calls += k.calls;
		}
	}
	file = src_file(src);
	if (err == -ENODATA)
		return no_memory(o, out, pmaps_proc_pid(proc), src);
	maps_doc(&d, o, pmaps_proc_pid(proc), src, &r->choice);
	if (err < 0) {
		w_failed(out, o->fmt, &d, msg[0] ? msg : pmaps_strerror(err));
		return failed(f, file, err, msg);
	}
	r->seen = row.present;
	r->have_mappings = pmaps_group_value(&row, PMAPS_V_MAPPINGS, &r->mappings) == 1;
	w_begin(&w, out, o->fmt, &d);
	w_group(&w, &row);
	w_end(&w, NULL);
	return 0;
}

static int report_groups(const struct maps_opts *o, struct pmaps_proc *proc, struct reading *r,
                         struct pmaps_maps *c, struct out *out, struct failure *f)
{
	const struct pmaps_group_row **rows = NULL;
	const char *file = src_file(r->src);
	struct pmaps_group *g = NULL;
	struct writer w;
	struct doc d;
	size_t n;
	int err;

	if (pmaps_group_open(&g, (enum pmaps_group_by)o->group) < 0)
		return failed(f, NULL, -ENOMEM, NULL);
	err = pmaps_group_read(g, c);
	cursor_spent(r, c);
	n = pmaps_group_count(g);
	if (err == -ENODATA && n == 0) {
		pmaps_group_close(g);
		return no_memory(o, out, pmaps_proc_pid(proc), r->src);
	}
	maps_doc(&d, o, pmaps_proc_pid(proc), r->src, &r->choice);
	rows = err < 0 ? NULL : calloc(n ? n : 1, sizeof(*rows));
	if (!rows) {
		err = fail(f, NULL, c, err < 0 ? err : -ENOMEM, file);
		w_failed(out, o->fmt, &d, f->msg);
		pmaps_group_close(g);
		return err;
	}
	w_begin(&w, out, o->fmt, &d);
	if (pmaps_maps_lines(c) == 0 && pmaps_proc_is_kernel_thread(proc) == 1)
		kernel_thread_note(pmaps_proc_pid(proc));
	r->have_mappings = 1;
	for (size_t i = 0; i < n; i++) {
		rows[i] = pmaps_group_get(g, i);
		r->mappings += rows[i]->mappings;
		r->seen |= rows[i]->present;
	}
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
	uint64_t seen;
};

static int keep_row(void *ctx, const struct pmaps_mapping *m)
{
	struct sorted_read *r = ctx;

	r->rows++;
	r->seen |= m->present;
	return sorter_add(r->st, m);
}

static void start_over(void *ctx)
{
	struct sorted_read *r = ctx;

	sorter_free(r->st);
	sorter_init(r->st, r->o->sort_col, r->o->fmt == FMT_JSON || r->o->fmt == FMT_JSONL,
	            r->o->cols, r->o->ncols);
	r->rows = 0;
	r->seen = 0;
}

/*
 * Sorted rows are buffered, and so one whole reading is kept: the library
 * reads again when a row was listed twice or the thread read through ended.
 */
static int read_sorted(struct sorter *st, const struct maps_opts *o, struct pmaps_maps *c,
                       struct reading *rd, uint64_t *rows)
{
	struct sorted_read r = {st, o, 0, 0};
	int err = pmaps_maps_read_whole(c, keep_row, start_over, &r);

	*rows = r.rows;
	rd->seen = r.seen;
	return err;
}

static int report_mappings(const struct maps_opts *o, struct pmaps_proc *proc, struct reading *r,
                           struct pmaps_maps *c, struct out *out, struct failure *f)
{
	const struct pmaps_mapping *m;
	struct pmaps_mapping kept = {0};
	const char *file = src_file(r->src);
	struct sorter st;
	struct writer w;
	struct doc d;
	uint64_t rows = 0, overlaps = 0;
	int err;

	sorter_init(&st, o->sort_col, 0, NULL, 0);
	maps_doc(&d, o, pmaps_proc_pid(proc), r->src, &r->choice);
	if (o->sort_col < 0) {
		/* Streamed: what was written cannot be taken back, so it is never read again. */
		w_begin(&w, out, o->fmt, &d);
		while ((err = pmaps_maps_next(c, &m)) > 0) {
			rows++;
			overlaps += (m->flags & PMAPS_ROW_OVERLAP) != 0;
			r->seen |= m->present;
			w_mapping(&w, m);
		}
		cursor_spent(r, c);
	} else {
		err = read_sorted(&st, o, c, r, &rows);
		cursor_spent(r, c);
		if (err == -ENODATA && rows == 0) {
			sorter_free(&st);
			return no_memory(o, out, pmaps_proc_pid(proc), r->src);
		}
		if (err < 0) {
			/* Nothing was written: the rows were held for sorting. */
			fail(f, NULL, c, err, file);
			w_failed(out, o->fmt, &d, f->msg);
			goto done;
		}
		w_begin(&w, out, o->fmt, &d);
	}
	r->mappings = rows;
	r->have_mappings = 1;
	if (err < 0) {
		fail(f, &w, c, err, file);
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

/* ---- the source ---- */

/* What the columns ask of a source: smaps fields, values, and VmFlags (smaps' alone). */
static void asked_keys(const struct maps_opts *o, uint64_t *fields, uint64_t *values,
                       int *vm_flags)
{
	*fields = *values = 0;
	*vm_flags = 0;
	const int *cols = o->nasked ? o->asked : o->cols;
	int n = o->nasked ? o->nasked : o->ncols;

	for (int i = 0; i <= n; i++) {
		/* The columns shown (all of the table's, had it room), and the one sorted by. */
		int c = i < n ? cols[i] : o->sort_col, k = c >= 0 ? columns[c].lib : -1;
		if (c == COL_VMFLAGS)
			*vm_flags = 1;
		else if (k < 0)
			continue; /* addresses, names, kind: every source lists them */
		else if (k < PMAPS_F_MAX)
			*fields |= 1ull << k;
		/* A total's mapping count and vsize: smaps_rollup never had them; not asked. */
		else if (o->group != PMAPS_GROUP_TOTAL || (k != PMAPS_V_MAPPINGS && k != PMAPS_V_VSIZE))
			*values |= 1ull << (k - PMAPS_F_MAX);
	}
}

/*
 * Whether a total shows its mapping count or vsize (a column, the sort's,
 * or JSON, which has every value): smaps_rollup's row has neither, and
 * counting them reads the maps text, as costly on many mappings as the
 * rollup itself.
 */
static int shows_count(const struct maps_opts *o)
{
	const int *cols = o->nasked ? o->asked : o->cols;
	int n = o->nasked ? o->nasked : o->ncols;

	if (o->fmt == FMT_JSON || o->fmt == FMT_JSONL)
		return 1;
	for (int i = 0; i <= n; i++) {
		int c = i < n ? cols[i] : o->sort_col, k = c >= 0 ? columns[c].lib : -1;
		if (k == PMAPS_V_MAPPINGS || k == PMAPS_V_VSIZE)
			return 1;
	}
	return 0;
}

/* The keys of FIELDS and VALUES (and vm_flags) as "pss, private_dirty" into B; returns the count. */
static int key_list(char *b, size_t bsz, uint64_t fields, uint64_t values, int vm_flags)
{
	size_t k = 0;
	int n = 0;

	b[0] = '\0';
	for (int key = 0; key < PMAPS_V_COUNT; key++) {
		int on = key < PMAPS_F_MAX ? (int)(fields >> key & 1)
		                           : (int)(values >> (key - PMAPS_F_MAX) & 1);
		const char *name = on ? pmaps_value_key(key) : NULL;
		if (!name)
			continue;
		k += (size_t)snprintf(b + k, k < bsz ? bsz - k : 0, "%s%s", n ? ", " : "", name);
		n++;
		if (key < PMAPS_F_MAX && key + 1 == PMAPS_F_COUNT)
			key = PMAPS_F_MAX - 1;
	}
	if (vm_flags) {
		k += (size_t)snprintf(b + k, k < bsz ? bsz - k : 0, "%svm_flags", n ? ", " : "");
		n++;
	}
	return n;
}

/* How a column SRC lacks is shown, in the output's format. */
static const char *absent_as(enum fmt fmt)
{
	return fmt == FMT_TABLE ? "shown as '-'" : fmt == FMT_CSV ? "empty cells" : "absent keys";
}

/* How the source was chosen, for its note. */
enum chosen { BY_OPTION, BY_AUTO, BY_AUTO_PARTLY, BY_LIMIT };

/*
 * The one note about the values: which source a table's values come from
 * when it is not smaps, and which columns asked the source read cannot
 * give (with a source that has them, when --source chose one). BY_AUTO:
 * auto found a source that gives every column; BY_AUTO_PARTLY: none does.
 */
static void source_note(const struct maps_opts *o, struct pmaps_proc *proc, enum pmaps_source src,
                        enum chosen how, const struct pmaps_explain_choice *c)
{
	char d1[32], d2[32];
	uint64_t af, av, kf = 0, kv = 0;
	int avm, shows_values = 0, total = o->group == PMAPS_GROUP_TOTAL, n = 0;
	const char *name = pmaps_source_name(src);
	char lacks[512], who[160] = "";

	asked_keys(o, &af, &av, &avm);
	shows_values = af || av;
	/* JSON without --fields has no columns: what a source lacks are absent keys. */
	if (how != BY_AUTO && !(o->every && (o->fmt == FMT_JSON || o->fmt == FMT_JSONL)) &&
	    pmaps_source_keys(proc, src, total, &kf, &kv) == 0)
		n = key_list(lacks, sizeof(lacks), af & ~kf, av & ~kv, avm && src != PMAPS_SRC_SMAPS);
	if (n && how == BY_OPTION) {
		/* Who has them: what auto would read for these columns alone. */
		enum pmaps_source other;
		uint64_t mf = af & ~kf, mv = av & ~kv;
		int r = mf || mv ? pmaps_source_choose(proc, mf, mv, total, NULL, &other, NULL, 0) : 1;
		if (!(mf || mv))
			other = PMAPS_SRC_SMAPS;
		if (r == 1 && (!avm || src == PMAPS_SRC_SMAPS || other == PMAPS_SRC_SMAPS))
			snprintf(who, sizeof(who), " (%s has %s)", pmaps_source_name(other),
			         n > 1 ? "them" : "it");
		else if (r == 1)
			snprintf(who, sizeof(who), " (smaps has vm_flags, %s the others)",
			         pmaps_source_name(other));
	}
	if (how == BY_LIMIT)
		/* smaps gave way to a page source (hold_to_limit()): why, and what it lacks. */
		note_msg("values from the %s source, paced, not smaps, whose read would hold the "
		         "process's mmap_lock ~%s, over the %s limit%s%s%s%s; --exact reads it", name,
		         fmt_duration(d1, sizeof(d1), c->hold_ns),
		         fmt_duration(d2, sizeof(d2), c->limit_ns), n ? ": it gives no " : "",
		         n ? lacks : "", n ? " here, " : "", n ? absent_as(o->fmt) : "");
	else if (how == BY_AUTO_PARTLY && n)
		note_msg("no source gives every column asked: reading %s, which gives no %s here: %s",
		         name, lacks, absent_as(o->fmt));
	else if (o->fmt == FMT_TABLE && shows_values && src != PMAPS_SRC_SMAPS &&
	         src != PMAPS_SRC_ROLLUP)
		note_msg("values from the %s source, not smaps%s%s%s%s%s", name,
		         n ? "; it gives no " : "", n ? lacks : "", n ? " here: " : "",
		         n ? absent_as(o->fmt) : "", who);
	else if (n)
		note_msg("the %s source gives no %s here: %s%s", name, lacks, absent_as(o->fmt), who);
}

/*
 * Gentle by default. A read whose estimate (pmaps_cost_estimate(), from
 * status's VmRSS and VmPTE) would keep the process's mmap() waiting longer
 * than PMAPS_EXPLAIN_HOLD_NS, the limit explain, top and serve hold theirs
 * to, is paced: a page source walks with PMAPS_POLICY_PACED; smaps or
 * smaps_rollup, which cannot be paced, give way to the page source that
 * gives the most of what was asked, where auto chose them for the default
 * columns (not for --fields only smaps has, nor for --source smaps). The
 * estimate guesses the mapping count from VmPTE: a process of many small
 * mappings and little memory is priced low. --exact and --gentle skip it.
 * Into R (its source, policy, choice and why). Returns 1 when it changed
 * the source.
 */
static int hold_to_limit(const struct maps_opts *o, struct pmaps_proc *proc, struct reading *r,
                         int may_switch)
{
	static const struct pmaps_policy paced = PMAPS_POLICY_PACED;
	struct pmaps_explain_choice *c = &r->choice;
	enum pmaps_source was = r->classic_total ? PMAPS_SRC_ROLLUP : r->src, to = PMAPS_SRC_PAGES;
	uint64_t af, av, kf, kv;
	char a[32], b[32];
	int vm, over;

	memset(c, 0, sizeof(*c));
	c->size = sizeof(*c);
	c->source = r->src;
	c->reason = PMAPS_CHOICE_FITS;
	/* --gentle walks a page source gently; smaps is read as the kernel writes it */
	c->options = r->policy && page_source(r->src) ? PMAPS_EXPLAIN_GENTLE : 0;
	if (o->exact || r->policy) {
		c->reason = PMAPS_CHOICE_ASKED; /* --exact, --gentle */
		return 0;
	}
	c->limit_ns = PMAPS_EXPLAIN_HOLD_NS;
	over = read_over_limit(proc, was, &c->hold_ns);
	if (over < 0)
		c->reason = PMAPS_CHOICE_NO_STATUS;
	if (over <= 0)
		return 0;
	fmt_duration(a, sizeof(a), c->hold_ns);
	fmt_duration(b, sizeof(b), c->limit_ns);
	if (page_source(r->src)) {
		r->policy = &paced;
		c->reason = PMAPS_CHOICE_OVER;
		c->options = PMAPS_EXPLAIN_FAST | PMAPS_EXPLAIN_PACED;
		snprintf(r->why + strlen(r->why), sizeof(r->why) - strlen(r->why),
		         "%spaced: back to back its calls would keep the process's mmap() "
		         "waiting ~%s, over the %s limit", r->why[0] ? "; " : "", a, b);
		return 0;
	}
	if (!may_switch) {
		c->reason = PMAPS_CHOICE_ASKED;
		return 0;
	}
	/* The page source that gives the most of what was asked: fast if it gives it all. */
	asked_keys(o, &af, &av, &vm);
	if (!o->every && pmaps_source_keys(proc, PMAPS_SRC_FAST, r->classic_total, &kf, &kv) == 0 &&
	    !(af & ~kf) && !(av & ~kv))
		to = PMAPS_SRC_FAST;
	else if (pmaps_source_keys(proc, PMAPS_SRC_PAGES, r->classic_total, &kf, &kv) < 0) {
		c->reason = PMAPS_CHOICE_NO_PAGES; /* smaps, as the limit could not be kept */
		return 0;
	}
	snprintf(r->why, sizeof(r->why), "auto: %s would hold the process's mmap_lock ~%s at a time, "
	         "over the %s limit: the %s source, paced (--exact reads %s)",
	         pmaps_source_name(was), a, b, pmaps_source_name(to), pmaps_source_name(was));
	r->src = to;
	r->classic_total = 0;
	r->policy = &paced;
	c->source = to;
	c->reason = PMAPS_CHOICE_OVER;
	c->options = PMAPS_EXPLAIN_FAST | PMAPS_EXPLAIN_PACED;
	return 1;
}

/*
 * The source of the report: --source's, or auto's choice for the columns
 * asked. When the library cannot be asked (a kernel thread, no permission,
 * a process gone), it is smaps, as without --source: reading it says what
 * is wrong the way pmaps always has.
 */
static void choose_source(const struct maps_opts *o, struct pmaps_proc *proc, struct reading *r)
{
	int total = o->group == PMAPS_GROUP_TOTAL, vm_flags, got;
	uint64_t fields, values;
	enum pmaps_source src;
	char msg[256];

	r->why[0] = '\0';
	if (o->source != PMAPS_SRC_AUTO) {
		r->src = (enum pmaps_source)o->source;
		hold_to_limit(o, proc, r, 0);
		source_note(o, proc, r->src, BY_OPTION, &r->choice);
		return;
	}
	/* As without --source, which has always read smaps (and smaps_rollup for --total). */
	r->src = total ? PMAPS_SRC_ROLLUP : PMAPS_SRC_SMAPS;
	r->classic_total = total;
	if (o->every) {
		snprintf(r->why, sizeof(r->why), "auto: every field asked%s, which %s gives",
		         o->fmt == FMT_JSON || o->fmt == FMT_JSONL ? " (JSON)" : "",
		         pmaps_source_name(r->src));
		if (hold_to_limit(o, proc, r, !o->fields_given))
			source_note(o, proc, r->src, BY_LIMIT, &r->choice);
		return;
	}
	asked_keys(o, &fields, &values, &vm_flags);
	if (vm_flags) {
		snprintf(r->why, sizeof(r->why), "auto: vm_flags is smaps' alone");
		hold_to_limit(o, proc, r, 0);
		return;
	}
	got = pmaps_source_choose(proc, fields, values, total, r->policy, &src, msg, sizeof(msg));
	if (got < 0) {
		snprintf(r->why, sizeof(r->why), "auto: the sources could not be asked (%s)",
		         msg[0] ? msg : pmaps_strerror(got));
		hold_to_limit(o, proc, r, 0);
		return;
	}
	if (got == 0 && src == PMAPS_SRC_STATUS) {
		/* Not one source fits the policy: smaps, as without --source. */
		snprintf(r->why, sizeof(r->why), "auto: %s", msg);
		hold_to_limit(o, proc, r, 0);
		source_note(o, proc, r->src, BY_AUTO_PARTLY, &r->choice);
		return;
	}
	r->src = src;
	r->classic_total = total && src == PMAPS_SRC_ROLLUP;
	if (got == 0)
		snprintf(r->why, sizeof(r->why), "auto: %s", msg);
	else if (src == PMAPS_SRC_SMAPS || src == PMAPS_SRC_ROLLUP)
		snprintf(r->why, sizeof(r->why), "auto: no page source gives every column asked");
	else
		snprintf(r->why, sizeof(r->why), "auto: the columns asked need no smaps");
	/* The default columns may give way to a page source; --fields only smaps has, not. */
	if (hold_to_limit(o, proc, r, !o->fields_given))
		source_note(o, proc, r->src, BY_LIMIT, &r->choice);
	else
		source_note(o, proc, r->src, got == 0 ? BY_AUTO_PARTLY : BY_AUTO, &r->choice);
}

/* What was read, from where and at what cost: -v's line. */
static void verbose_note(struct pmaps_proc *proc, const char *root, const struct reading *r)
{
	char how[512], what[64] = "", cost[160] = "";
	/* How a page source read, as its cost says (-1: not known). */
	int query = r->have_cost ? r->cost.query : r->query;
	int scan = r->have_cost && r->cost.strategy == PMAPS_PAGES_SCAN;

	if (page_source(r->src))
		/* The pages source reads pagemap over what PAGEMAP_SCAN found; kpagecount gives Pss. */
		snprintf(how, sizeof(how), "%s + %s%s%s", vma_list_name(query),
		         scan ? "PAGEMAP_SCAN" : "pagemap",
		         r->src == PMAPS_SRC_PAGES && scan ? " + pagemap" : "",
		         r->src == PMAPS_SRC_PAGES && (r->seen & (1ull << PMAPS_F_PSS))
		         ? " + kpagecount/kpageflags" : "");
	else
		snprintf(how, sizeof(how), "%s/%d/%s", root ? root : "/proc", pmaps_proc_pid(proc),
		         pmaps_source_name(r->src));
	if (r->have_mappings)
		snprintf(what, sizeof(what), "%llu mapping%s ", (unsigned long long)r->mappings,
		         r->mappings == 1 ? "" : "s");
	/* The longest call is the longest the process's mmap_lock was held: maps holds none. */
	if (r->have_cost && page_source(r->src))
		snprintf(cost, sizeof(cost), ", %llu kernel call%s, longest call %llu us, %llu pause%s",
		         (unsigned long long)r->cost.calls, r->cost.calls == 1 ? "" : "s",
		         (unsigned long long)(r->cost.hold_ns / 1000),
		         (unsigned long long)r->cost.pauses, r->cost.pauses == 1 ? "" : "s");
	else if (r->have_cost && r->src != PMAPS_SRC_MAPS)
		snprintf(cost, sizeof(cost), ", %llu kernel call%s, longest call %llu us",
		         (unsigned long long)r->cost.calls, r->cost.calls == 1 ? "" : "s",
		         (unsigned long long)(r->cost.hold_ns / 1000));
	else if (r->have_cost)
		snprintf(cost, sizeof(cost), ", %llu kernel call%s", (unsigned long long)r->cost.calls,
		         r->cost.calls == 1 ? "" : "s");
	note_msg("source %s (%s): %sin %.2f ms%s%s%s", pmaps_source_name(r->src), how, what,
	         (double)(r->have_cost ? r->cost.ns : r->ns) / 1e6, cost, r->why[0] ? "; " : "",
	         r->why);
}

static int maps_report(const struct maps_opts *o)
{
	static const struct pmaps_policy gentle = PMAPS_POLICY_GENTLE;
	char buf[OUT_FD_BUFSIZE];
	struct pmaps_proc *proc = NULL;
	struct pmaps_maps *c = NULL;
	struct reading r = {.query = -1};
	struct failure f;
	struct out out;
	int rc, err;

	out_fd(&out, STDOUT_FILENO, buf, sizeof(buf));
	rc = tool_proc_open(&proc, &o->t);
	if (rc != 0)
		return rc;
	r.policy = o->gentle ? &gentle : NULL;
	choose_source(o, proc, &r);
	if (o->gentle && !page_source(r.src))
		note_msg("--gentle: %s is read the way the kernel writes it (only the fast and pages "
		         "sources walk gently)", r.classic_total ? "smaps_rollup" : pmaps_source_name(r.src));
	if (o->group == PMAPS_GROUP_TOTAL)
		err = report_total(o, proc, &r, shows_count(o), &out, &f);
	else if ((err = pmaps_maps_open(&c, proc, r.src, 0)) == -ENODATA)
		err = no_memory(o, &out, pmaps_proc_pid(proc), r.src);
	else if (err < 0) {
		struct doc d;
		err = fail(&f, NULL, c, err, src_file(r.src));
		maps_doc(&d, o, pmaps_proc_pid(proc), r.src, &r.choice);
		w_failed(&out, o->fmt, &d, f.msg);
	} else {
		pmaps_maps_set_policy(c, r.policy);
		if (o->group >= 0)
			err = report_groups(o, proc, &r, c, &out, &f);
		else
			err = report_mappings(o, proc, &r, c, &out, &f);
	}
	if (err < 0) {
		out_flush(&out); /* what was written goes before the message */
		rc = tool_fail(&o->t, &f);
	}
	rc = finish_output(&out, err < 0 ? rc : EXIT_OK);
	if (o->verbose && err >= 0)
		verbose_note(proc, o->t.root, &r);
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
		{"wide", no_argument, NULL, 'w'},
		{"sort", required_argument, NULL, 's'},
		{"source", required_argument, NULL, 'S'},
		{"gentle", no_argument, NULL, 'G'},
		{"exact", no_argument, NULL, 'E'},
		{"verbose", no_argument, NULL, 'v'},
		{"json", no_argument, NULL, 'j'},
		{"jsonl", no_argument, NULL, 'L'},
		{"csv", no_argument, NULL, 'C'},
		{"bytes", no_argument, NULL, 'b'},
		{"proc-root", required_argument, NULL, 'R'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct maps_opts o = {.group = -1, .sort_col = -1, .human = 1, .fmt = FMT_TABLE,
	                      .source = PMAPS_SRC_AUTO};
	const char *fields = NULL, *sort = NULL;
	int ch, total = 0, rc;

	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "g:tf:s:wvjbh", longopts, NULL)) != -1) {
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
		case 'w': o.wide = 1; break;
		case 's': sort = optarg; break;
		case 'S': {
			int s = strcmp(optarg, "auto") == 0 ? PMAPS_SRC_AUTO
			        : pmaps_source_lookup(optarg, strlen(optarg));
			if (s != PMAPS_SRC_AUTO && s != PMAPS_SRC_FAST && s != PMAPS_SRC_PAGES &&
			    s != PMAPS_SRC_SMAPS && s != PMAPS_SRC_ROLLUP) {
				die_msg("--source takes fast, pages, smaps, rollup or auto, not '%s'", optarg);
				return EXIT_USAGE;
			}
			o.source = s;
			break;
		}
		case 'G': o.gentle = 1; break;
		case 'E': o.exact = 1; break;
		case 'v': o.verbose = 1; break;
		case 'j':
		case 'L':
		case 'C':
			if (set_format(&o.fmt, ch) < 0)
				return EXIT_USAGE;
			break;
		case 'b': o.human = 0; break;
		case 'R': o.t.root = optarg; break;
		case 'h': return print_usage(maps_usage);
		default: return option_error("maps", argv, "g:tf:s:wvjbh", longopts);
		}
	}
	if (total && o.group >= 0) {
		die_msg("--total and --group do not go together");
		return EXIT_USAGE;
	}
	if (o.source == PMAPS_SRC_ROLLUP && !total) {
		die_msg("--source rollup gives one row, the process's total: it needs --total");
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
	if (o.gentle && o.exact) {
		die_msg("--gentle and --exact do not go together");
		return EXIT_USAGE;
	}
	o.fields_given = fields != NULL;
	if (fields) {
		o.ncols = parse_columns(fields, o.cols, COL_MAPS_END, o.group >= 0);
		if (o.ncols < 0)
			return EXIT_USAGE;
		o.every = strcmp(fields, "all") == 0;
		if (!o.every)
			keep_identity(&o);
	} else {
		default_columns(&o);
		o.every = o.fmt == FMT_JSON || o.fmt == FMT_JSONL;
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
	if (!fields && o.fmt == FMT_TABLE && !o.wide)
		fit_width(&o, tool_width());
	rc = maps_report(&o);
	/* Said to a person after a table that left columns out; a script's log is spared it. */
	if (rc == EXIT_OK && o.left_out[0] && isatty(STDERR_FILENO))
		note_msg("%s", o.left_out);
	return rc;
}
