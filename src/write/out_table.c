/* SPDX-License-Identifier: MIT */
/*
 * out_table.c - records as an aligned table for a person at a terminal,
 * and explain's report: the result's figures and notes in words.
 *
 * Rows are written as they arrive, so a 60k-mapping process costs the same
 * memory as a small one. Cells are padded to the column table's widths
 * (never cut); a value the kernel did not report shows as "-", never 0.
 * Sizes are human units (K, M, G: powers of 1024) unless the document asks
 * for bytes. Every name from the target goes through the text escape.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/num.h"
#include "common/tool.h"
#include "write/books_out.h"
#include "write/writer.h"

/* Whether status line F was read: an absent line is never shown as 0. */
static int has(const struct pmaps_status *st, enum pmaps_status_field f)
{
	return (st->present >> f) & 1;
}

/* One cell: COL's alignment, WIDTH; the last column of a row is not padded. */
static void cell_in(struct out *o, int col, size_t width, const char *s, size_t n, int last)
{
	if (columns[col].left)
		out_ljust(o, s, n, last ? 0 : width);
	else
		out_rjust(o, s, n, width);
}

/* One cell at COL's width. */
static void cell(struct out *o, int col, const char *s, size_t n, int last)
{
	cell_in(o, col, columns[col].width, s, n, last);
}

/*
 * A maps document's cell: sizes in bytes (--bytes) get room for twelve
 * digits (up to 931 GiB) instead of the width of "1023.9M", so that the
 * columns stay aligned.
 */
static void map_cell_out(const struct writer *w, int col, const char *s, size_t n, int last)
{
	size_t width = columns[col].width;

	if (!w->d->human && columns[col].unit == UNIT_BYTES && width < 12)
		width = 12;
	cell_in(w->o, col, width, s, n, last);
}

static void title(struct out *o, int col, int last)
{
	cell(o, col, columns[col].title.s, columns[col].title.n, last);
}

/* A size in human units or bytes, or "-" when absent. */
static size_t size_str(char *b, uint64_t v, int present, int human)
{
	if (!present) {
		b[0] = '-';
		b[1] = '\0';
		return 1;
	}
	return human ? fmt_human(b, v) : fmt_u64(b, v);
}

/* A name from the target, escaped, and "..." when the reader had to cut it. */
static void name(struct out *o, const char *s, size_t n, int truncated)
{
	out_table_str(o, s, n);
	if (truncated)
		out_mem(o, "...", 3); /* the escape never makes one: a cut name says so */
}

/*
 * A name in at most WIDTH columns (0: whole): its end after "...", where
 * it is longer (a path's end names the file); cut between characters.
 */
void w_name_in(struct out *o, const char *s, size_t n, int truncated, int width)
{
	char e[4 * PMAPS_EXPLAIN_PATH + 8]; /* the longest path a record keeps, each byte escaped */
	size_t k, cols = 0, i;

	if (width <= 0) {
		name(o, s, n, truncated);
		return;
	}
	k = esc_text(e, sizeof(e) - 3, s, n);
	if (truncated) {
		memcpy(e + k, "...", 3);
		k += 3;
	}
	for (i = 0; i < k; i++)
		cols += ((unsigned char)e[i] & 0xc0) != 0x80;
	if (cols <= (size_t)width || width < 4) {
		out_mem(o, e, k);
		return;
	}
	/* Back from the end by WIDTH - 3 characters, after "..." (git's habit for a path). */
	i = k;
	for (cols = 0; i > 0 && cols < (size_t)width - 3; cols++)
		while (--i > 0 && ((unsigned char)e[i] & 0xc0) == 0x80)
			;
	out_mem(o, "...", 3);
	out_mem(o, e + i, k - i);
}

/* ---- pmaps top ---- */

/* ", key SIZE" of meminfo line F when it was read. */
static void mem_item(struct out *o, const struct pmaps_meminfo *mi, enum pmaps_meminfo_field f,
                     const char *label, int *first)
{
	char b[24];

	if (!((mi->present >> f) & 1))
		return;
	fmt_human(b, mi->v[f]);
	out_printf(o, "%s%s %s", *first ? "" : ", ", label, b);
	*first = 0;
}

/* Milliseconds, as the refresh line shows a cost or a budget. */
static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

/*
 * The lines above a top table: the machine's figures (/proc/meminfo), what
 * the refresh did and cost, the processes pmaps may not read and why, and
 * what the table shows.
 */
static void procs_header(struct writer *w)
{
	const struct doc *d = w->d;
	const struct pmaps_survey_stats *st = d->stats;
	const struct pmaps_meminfo *mi = d->meminfo;
	struct out *o = w->o;
	int first = 1;

	if (mi && mi->present) {
		out_str(o, "Memory: ");
		mem_item(o, mi, PMAPS_MI_MEM_TOTAL, "total", &first);
		mem_item(o, mi, PMAPS_MI_MEM_AVAILABLE, "available", &first);
		mem_item(o, mi, PMAPS_MI_ANON_PAGES, "anon", &first);
		mem_item(o, mi, PMAPS_MI_CACHED, "cached", &first);
		mem_item(o, mi, PMAPS_MI_SHMEM, "shmem", &first);
		mem_item(o, mi, PMAPS_MI_SWAP_TOTAL, "swap", &first);
		mem_item(o, mi, PMAPS_MI_SWAP_FREE, "swap free", &first);
		out_ch(o, '\n');
	}
	if (st) {
		out_printf(o, "Refresh %llu: %u process%s in %.2f ms; costly reads %u in %.2f ms",
		           (unsigned long long)st->refreshes, st->processes,
		           st->processes == 1 ? "" : "es", ms(st->wall_ns), st->read, ms(st->read_ns));
		if (st->budget_ns)
			out_printf(o, " (budget %g ms)", ms(st->budget_ns));
		else
			out_str(o, " (no budget)");
		out_printf(o, ", %u kept, %u skipped", st->kept, st->skipped);
		if (st->failed)
			out_printf(o, ", %u failed", st->failed);
		if (st->vanished)
			out_printf(o, ", %u exited while read", st->vanished);
		out_str(o, "\n");
	}
	/* Of the processes shown (or summed): another user's count is no concern here. */
	if (d->denied && d->root)
		out_printf(o, "%zu process%s show%s status figures only: even root may not read %s "
		           "memory (a process holding capabilities this one lacks, or a security "
		           "module such as Yama)\n", d->denied,
		           d->denied == 1 ? "" : "es", d->denied == 1 ? "s" : "",
		           d->denied == 1 ? "its" : "their");
	else if (d->denied)
		out_printf(o, "%zu process%s show%s status figures only: reading %s memory needs "
		           "root (CAP_SYS_PTRACE) or %s user\n", d->denied, d->denied == 1 ? "" : "es",
		           d->denied == 1 ? "s" : "", d->denied == 1 ? "its" : "their",
		           d->denied == 1 ? "its" : "their");
	if (d->pgroup == PGROUP_NONE)
		out_printf(o, "Shown: %zu of %zu process%s", d->shown, d->matched,
		           d->matched == 1 ? "" : "es");
	else
		out_printf(o, "Shown: %zu %s%s of %zu process%s", d->shown,
		           d->pgroup == PGROUP_USER ? "user" : "cgroup", d->shown == 1 ? "" : "s",
		           d->matched, d->matched == 1 ? "" : "es");
	out_printf(o, ", by %s", columns[d->sort].key.s);
	if (columns[d->sort].unit == UNIT_BYTES || d->sort == COL_PROCS)
		out_str(o, d->desc ? ", largest first" : ", smallest first");
	else if (d->desc)
		out_str(o, ", descending");
	if (d->tree)
		out_str(o, ";\nas a tree: each process under its parent, with the RSS, PSS, USS and "
		           "Swap of it and its descendants selected");
	out_str(o, "\n\n");
}

/* A name from a target or NSS, escaped, in COL's cell: cut names end in "...". */
static void text_cell(struct out *o, int col, const char *s, size_t n, int truncated, int last)
{
	char e[1040];
	size_t k = esc_text(e, sizeof(e) - 3, s, n);

	if (truncated) {
		memcpy(e + k, "...", 3);
		k += 3;
	}
	cell(o, col, e, k, last);
}

/* A mark beside the survey's row flags in writer.marks: a group's figure with a '+'. */
#define MARK_PART (1u << 31)

/* The table's short name of a source. */
static const char *source_short(enum pmaps_source s)
{
	return s == PMAPS_SRC_ROLLUP ? "rollup" : pmaps_source_name(s);
}

static void proc_cell(struct writer *w, int c, const struct top_line *l, int last)
{
	const struct pmaps_survey_row *r = l->row;
	struct out *o = w->o;
	char b[48];
	size_t n = 0;
	uint64_t v;

	switch (c) {
	case COL_PID: n = r ? fmt_u64(b, (uint64_t)r->pid) : 0; break;
	case COL_USER: text_cell(o, c, l->user, strlen(l->user), 0, last); return;
	case COL_UID: n = fmt_u64(b, l->uid); break;
	case COL_STATE:
		b[0] = r && r->state ? r->state : '-';
		n = 1;
		break;
	case COL_COMMAND:
		if (r && l->tree && l->depth > 0) {
			/* Under its parent: two columns a level, then "`- ". */
			char in[1100];
			size_t d = (size_t)l->depth - 1 < 40 ? (size_t)l->depth - 1 : 40, m = 0;
			memset(in, ' ', 2 * d);
			m = 2 * d;
			memcpy(in + m, "`- ", 3);
			m += 3;
			if (r->comm.len < sizeof(in) - m) {
				memcpy(in + m, r->comm.ptr, r->comm.len);
				m += r->comm.len;
			}
			text_cell(o, c, in, m, 0, last);
		} else if (r) {
			text_cell(o, c, r->comm.ptr, r->comm.len, 0, last);
		} else {
			cell(o, c, "", 0, last);
		}
		return;
	case COL_PROCS: n = fmt_u64(b, l->sum ? l->sum->processes : 1); break;
	case COL_PSOURCE: {
		const char *src = r ? source_short(r->source) : "";
		n = strlen(src);
		memcpy(b, src, n);
		break;
	}
	case COL_AGE:
		/* Only a figure older than this refresh has an age to show. */
		if (r && r->age_ns && r->source != PMAPS_SRC_STATUS) {
			n = w_age(b, r->age_ns);
			n -= r->age_ns >= 10000000000ull ? 4 : 2; /* "12s", "1.5s" */
			b[n++] = 's';
		}
		break;
	case COL_MARK:
		if (r && (b[0] = w_survey_mark(r->flags)) != '\0') {
			/* The legend explains the letters shown, not every flag a row had. */
			w->marks |= b[0] == 'D' ? PMAPS_SURVEY_DENIED : b[0] == 'F' ? PMAPS_SURVEY_FAILED
			            : b[0] == 'S' ? PMAPS_SURVEY_SKIPPED
			            : b[0] == 'L' ? PMAPS_SURVEY_LARGE : PMAPS_SURVEY_PARTIAL;
			n = 1;
		}
		break;
	case COL_CGROUP: {
		struct pmaps_view cg = r ? r->cgroup : l->cgroup;
		int cut = r && (r->flags & PMAPS_SURVEY_CGROUP_TRUNCATED);
		if (cg.len)
			text_cell(o, c, cg.ptr, cg.len, cut, last);
		else
			cell(o, c, "-", 1, last);
		return;
	}
	case COL_PMEM: {
		/* RSS as a share of MemTotal, as htop's %MEM: a group's (or subtree's) sum's too. */
		const struct pmaps_meminfo *mi = w->d->meminfo;
		int got = w_proc_value(COL_SV0 + PMAPS_SV_RSS, l, &v);
		if (got && mi && (mi->present >> PMAPS_MI_MEM_TOTAL & 1) && mi->v[PMAPS_MI_MEM_TOTAL]) {
			n = fmt_percent(b, v, mi->v[PMAPS_MI_MEM_TOTAL]) - 1; /* the heading says % */
			b[n] = '\0';
		} else {
			b[0] = '-';
			n = 1;
		}
		break;
	}
	default: {
		int got;
		v = 0;
		got = w_proc_value(c, l, &v);
		n = size_str(b, v, got != 0, w->d->human && columns[c].unit == UNIT_BYTES);
		if (got == 2) {
			/* A group's sum over only the processes that had the figure: at least this. */
			b[n++] = '+';
			w->marks |= MARK_PART;
		}
		map_cell_out(w, c, b, n, last); /* --bytes: room for twelve digits */
		return;
	}
	}
	cell(o, c, b, n, last);
}

static void proc(struct writer *w, const struct top_line *l)
{
	const struct doc *d = w->d;

	for (int i = 0; i < d->ncols; i++) {
		if (i)
			out_ch(w->o, ' ');
		proc_cell(w, d->cols[i], l, i + 1 == d->ncols);
	}
	out_ch(w->o, '\n');
}

/* What the marks of a top table meant, for the marks it showed. */
static void marks_legend(struct out *o, unsigned marks)
{
	static const struct {
		unsigned flag;
		const char *words;
	} legend[] = {
		{PMAPS_SURVEY_DENIED, "D denied: status figures only"},
		{PMAPS_SURVEY_FAILED, "F failed: smaps_rollup, or the page walk, could not be read: "
		                      "older figures, or status alone"},
		{PMAPS_SURVEY_SKIPPED, "S skipped: left by the budget to a later refresh: older "
		                       "figures, or status alone"},
		{PMAPS_SURVEY_LARGE, "L large: walked gently, or left, rather than one long read"},
		{PMAPS_SURVEY_PARTIAL, "P partial: the source gave fewer figures (no PSS without root)"},
		{MARK_PART, "+ a sum over the processes whose figure is known: at least this"},
	};
	const char *sep = "(";

	for (size_t i = 0; i < sizeof(legend) / sizeof(legend[0]); i++) {
		/* A row shows one letter: its first flag in this order. */
		if (!(marks & legend[i].flag))
			continue;
		out_str(o, sep);
		out_str(o, legend[i].words);
		sep = "; ";
	}
	if (sep[0] != '(')
		out_str(o, ".)\n");
}

static void begin(struct writer *w)
{
	const struct doc *d = w->d;
	struct out *o = w->o;

	switch (d->kind) {
	case DOC_MAPPINGS:
	case DOC_GROUPS:
	case DOC_TOTAL:
		for (int i = 0; i < d->ncols; i++) {
			struct lit h = w_heading(d, d->cols[i], 1);
			if (i)
				out_ch(o, ' ');
			map_cell_out(w, d->cols[i], h.s, h.n, i + 1 == d->ncols);
		}
		break;
	case DOC_RUNS:
		title(o, COL_START, 0);
		out_ch(o, ' ');
		title(o, COL_END, 0);
		out_ch(o, ' ');
		title(o, COL_PAGES, 0);
		out_ch(o, ' ');
		if (d->by_state) {
			title(o, COL_PSTATE, 0);
			out_ch(o, ' ');
			title(o, COL_PATH, 1);
			break;
		}
		title(o, COL_FLAGS, 0);
		if (d->kpage) {
			out_ch(o, ' ');
			title(o, COL_MAPCOUNT, 0);
			if (d->pfn) {
				out_ch(o, ' ');
				title(o, COL_PFN, 0);
			}
			out_ch(o, ' ');
			title(o, COL_KFLAGS, 0);
		}
		out_ch(o, ' ');
		title(o, COL_PATH, 1);
		break;
	case DOC_SUMMARY:
		title(o, COL_ADDRESS, 0);
		/* The histogram by map count is for programs. */
		for (int k = 0; k < (d->kpage ? PMAPS_PC_MAPPED_BY_0 : PMAPS_PC_DIRTY); k++) {
			out_ch(o, ' ');
			title(o, COL_PC0 + k, 0);
		}
		out_ch(o, ' ');
		title(o, COL_PATH, 1);
		break;
	case DOC_EXPLAIN:
		return; /* the report has its own headings */
	case DOC_PROCS:
		procs_header(w);
		for (int i = 0; i < d->ncols; i++) {
			if (i)
				out_ch(o, ' ');
			map_cell_out(w, d->cols[i], columns[d->cols[i]].title.s,
			             columns[d->cols[i]].title.n, i + 1 == d->ncols);
		}
		break;
	}
	out_ch(o, '\n');
}

static void map_cell(struct writer *w, int c, const struct pmaps_mapping *m,
                     const struct pmaps_group_row *g, int last)
{
	struct out *o = w->o;
	char b[48];
	size_t n = 0;
	uint64_t v;

	switch (c) {
	case COL_ADDRESS:
		n = fmt_hex(b, m->start, 12);
		b[n++] = '-';
		n += fmt_hex(b + n, m->end, 12);
		break;
	case COL_START: n = fmt_hex(b, m->start, 12); break;
	case COL_END: n = fmt_hex(b, m->end, 12); break;
	case COL_PERMS: w_perms(b, m->perms); n = 4; break;
	case COL_OFFSET: n = fmt_hex(b, m->offset, 8); break;
	case COL_DEV:
		n = fmt_hex(b, m->dev_major, 2);
		b[n++] = ':';
		n += fmt_hex(b + n, m->dev_minor, 2);
		break;
	case COL_INODE: n = fmt_u64(b, m->inode); break;
	case COL_KIND: {
		const char *k = w_kind(m, g);
		n = strlen(k);
		memcpy(b, k, n);
		break;
	}
	case COL_VMFLAGS:
		if (m && m->vm_flags_text.len) {
			/* The kernel's codes are plain letters; a fixture's text may be anything. */
			char e[1028]; /* the library keeps at most 255 bytes of it */
			size_t k = esc_text(e, sizeof(e), m->vm_flags_text.ptr, m->vm_flags_text.len);
			cell(o, c, e, k, last);
		} else {
			cell(o, c, "-", 1, last);
		}
		return;
	case COL_PATH:
		if (m)
			w_name_in(o, m->path.ptr, m->path.len, (m->flags & PMAPS_ROW_PATH_TRUNCATED) != 0,
			        w->d->last_width);
		else if (w->d->kind == DOC_GROUPS && g->key.len == 0)
			out_mem(o, "[anon]", 6);
		else
			w_name_in(o, g->key.ptr, g->key.len, (g->flags & PMAPS_GROUP_PATH_TRUNCATED) != 0,
			        w->d->last_width);
		return;
	default: {
		int present = w_value(c, m, g, &v) == 1;
		n = size_str(b, v, present, w->d->human && columns[c].unit == UNIT_BYTES);
	}
	}
	map_cell_out(w, c, b, n, last);
}

static void row(struct writer *w, const struct pmaps_mapping *m, const struct pmaps_group_row *g)
{
	const struct doc *d = w->d;

	for (int i = 0; i < d->ncols; i++) {
		int c = d->cols[i];
		if (i)
			out_ch(w->o, ' ');
		if (g && w_blank(d, c))
			continue;
		map_cell(w, c, m, g, i + 1 == d->ncols);
	}
	out_ch(w->o, '\n');
}

static void mapping(struct writer *w, const struct pmaps_mapping *m)
{
	row(w, m, NULL);
}

static void group(struct writer *w, const struct pmaps_group_row *g)
{
	row(w, NULL, g);
}

/* A flag list cell: names joined by commas, "-" for none. */
static void flags_cell(struct out *o, int col, uint64_t flags, const char *(*nm)(uint64_t bit))
{
	char b[512];
	size_t n = w_flag_list(b, sizeof(b), flags, nm, ',', 0);

	if (!n)
		b[n++] = '-';
	cell(o, col, b, n, 0);
}

static void run(struct writer *w, const struct pmaps_page_range *r, const struct pmaps_mapping *m)
{
	struct out *o = w->o;
	int present = (r->flags & PMAPS_PG_PRESENT) != 0;
	char b[24];
	size_t n;

	n = fmt_hex(b, r->start, 12);
	cell(o, COL_START, b, n, 0);
	out_ch(o, ' ');
	n = fmt_hex(b, r->end, 12);
	cell(o, COL_END, b, n, 0);
	out_ch(o, ' ');
	n = fmt_u64(b, pmaps_page_range_pages(r));
	cell(o, COL_PAGES, b, n, 0);
	out_ch(o, ' ');
	if (w->d->by_state) {
		const char *st = pmaps_page_state_key(pmaps_page_state_of(r, m->kind));
		cell(o, COL_PSTATE, st, strlen(st), 0);
	} else {
		flags_cell(o, COL_FLAGS, r->flags, w_page_flag_name);
	}
	if (w->d->kpage && !w->d->by_state) {
		out_ch(o, ' ');
		n = present ? fmt_u64(b, r->mapcount) : size_str(b, 0, 0, 0);
		cell(o, COL_MAPCOUNT, b, n, 0);
		if (w->d->pfn) {
			out_ch(o, ' ');
			n = present ? fmt_hex(b, r->pfn, 12) : size_str(b, 0, 0, 0);
			cell(o, COL_PFN, b, n, 0);
		}
		out_ch(o, ' ');
		if (present)
			flags_cell(o, COL_KFLAGS, r->kflags, pmaps_kpage_flag_name);
		else
			cell(o, COL_KFLAGS, "-", 1, 0);
	}
	out_ch(o, ' ');
	name(o, m->path.ptr, m->path.len, (m->flags & PMAPS_ROW_PATH_TRUNCATED) != 0);
	out_ch(o, '\n');
}

static void summary(struct writer *w, const struct pmaps_page_summary *s,
                    const struct pmaps_mapping *m)
{
	struct out *o = w->o;
	char b[48];
	size_t n;

	n = fmt_hex(b, s->start, 12);
	b[n++] = '-';
	n += fmt_hex(b + n, s->end, 12);
	cell(o, COL_ADDRESS, b, n, 0);
	for (int k = 0; k < (w->d->kpage ? PMAPS_PC_MAPPED_BY_0 : PMAPS_PC_DIRTY); k++) {
		out_ch(o, ' ');
		n = size_str(b, s->n[k], (s->known & (1ull << k)) != 0, 0);
		cell(o, COL_PC0 + k, b, n, 0);
	}
	out_ch(o, ' ');
	name(o, m->path.ptr, m->path.len, (m->flags & PMAPS_ROW_PATH_TRUNCATED) != 0);
	out_ch(o, '\n');
}

/* ---- explain's report ---- */

/* Human units into B (24 bytes); returns B, for the sentences below. */
static const char *hu(char *b, uint64_t v)
{
	fmt_human(b, v);
	return b;
}

/* S, bytes the target chose, through the text escape into E. */
static const char *esc(char *e, size_t size, const char *s)
{
	esc_text(e, size, s, strlen(s));
	return e;
}

/* Whether the result's source knows the total's state column C: an unknown one is absent. */
static int known(const struct pmaps_explain *x, enum pmaps_xcol c)
{
	return pmaps_explain_known(x, -1, c);
}

/*
 * The state columns the category table shows (PSS and SwapPss are JSON's):
 * smaps' split of RSS, or the page sources' (pages no other process maps,
 * and the others). The number of columns is returned.
 */
static int xtable_cols(const struct pmaps_explain *x, enum pmaps_xcol cols[PMAPS_XC_COUNT])
{
	static const enum pmaps_xcol smaps[] = {
		PMAPS_XC_RSS, PMAPS_XC_PRIVATE_DIRTY, PMAPS_XC_PRIVATE_CLEAN, PMAPS_XC_SHARED,
		PMAPS_XC_LAZYFREE, PMAPS_XC_THP, PMAPS_XC_LOCKED, PMAPS_XC_SWAP};
	static const enum pmaps_xcol pages[] = {
		PMAPS_XC_RSS, PMAPS_XC_PRIVATE, PMAPS_XC_SHARED, PMAPS_XC_LAZYFREE, PMAPS_XC_THP,
		PMAPS_XC_SWAP};
	int pg = x->source == PMAPS_SRC_PAGES;
	size_t n = pg ? sizeof(pages) / sizeof(pages[0]) : sizeof(smaps) / sizeof(smaps[0]);

	memcpy(cols, pg ? pages : smaps, n * sizeof(cols[0]));
	return (int)n;
}

/*
 * The category table in WIDTH columns (0: all of it): state columns left
 * out, those that are 0 in every category first, then the least needed;
 * RSS, PrDirty and Shared stay. Returns the new count; their keys into GONE.
 */
static int fit_xcols(const struct pmaps_explain *x, enum pmaps_xcol *cols, int n, int width,
                     char *gone, size_t gsz)
{
	static const enum pmaps_xcol order[] = {PMAPS_XC_THP, PMAPS_XC_LOCKED, PMAPS_XC_SWAP,
	                                        PMAPS_XC_PRIVATE_CLEAN, PMAPS_XC_LAZYFREE,
	                                        PMAPS_XC_PRIVATE};
	int need = (int)columns[COL_XCAT].width + 1 + (int)columns[COL_XMAPS].width + 1 +
	           (int)columns[COL_XPCT].width;
	size_t g = 0;

	gone[0] = '\0';
	for (int c = 0; c < n; c++)
		need += (int)columns[COL_XC0 + cols[c]].width + 1;
	for (int pass = 0; pass < 2 && width > 0 && need > width; pass++)
		for (size_t k = 0; k < sizeof(order) / sizeof(order[0]) && need > width; k++)
			for (int c = 0; c < n; c++) {
				if (cols[c] != order[k] ||
				    (pass == 0 && (x->total[cols[c]] || !known(x, cols[c]))))
					continue;
				need -= (int)columns[COL_XC0 + cols[c]].width + 1;
				g += (size_t)snprintf(gone + g, gsz - g, "%s%s%s", g ? ", " : "",
				                      columns[COL_XC0 + cols[c]].title.s,
				                      pass == 0 ? " (0)" : "");
				if (g >= gsz)
					g = gsz - 1;
				memmove(cols + c, cols + c + 1, (size_t)(n - c - 1) * sizeof(cols[0]));
				n--;
				break;
			}
	return n;
}

static void category_table(struct out *o, const struct pmaps_explain *x, int width)
{
	const uint64_t rss = x->total[PMAPS_XC_RSS];
	enum pmaps_xcol cols[PMAPS_XC_COUNT];
	int ncols = xtable_cols(x, cols), unknown = 0;
	char b[24], gone[200];
	size_t n;

	ncols = fit_xcols(x, cols, ncols, width, gone, sizeof(gone));

	title(o, COL_XCAT, 0);
	out_ch(o, ' ');
	title(o, COL_XMAPS, 0);
	for (int c = 0; c < ncols; c++) {
		out_ch(o, ' ');
		title(o, COL_XC0 + cols[c], 0);
		unknown |= !known(x, cols[c]) || (cols[c] == PMAPS_XC_SWAP && x->swap_unknown);
	}
	out_ch(o, ' ');
	title(o, COL_XPCT, 0);
	out_ch(o, '\n');
	for (int k = 0; k <= PMAPS_X_COUNT; k++) {
		const uint64_t *v = k < PMAPS_X_COUNT ? x->v[k] : x->total;
		const char *nm = k < PMAPS_X_COUNT ? pmaps_xcat_name((enum pmaps_xcat)k) : "total";
		if (k < PMAPS_X_COUNT && !x->mappings[k])
			continue;
		cell(o, COL_XCAT, nm, strlen(nm), 0);
		out_ch(o, ' ');
		n = fmt_u64(b, k < PMAPS_X_COUNT ? x->mappings[k] : x->nmappings);
		cell(o, COL_XMAPS, b, n, 0);
		for (int c = 0; c < ncols; c++) {
			out_ch(o, ' ');
			n = size_str(b, v[cols[c]],
			             pmaps_explain_known(x, k < PMAPS_X_COUNT ? k : -1, cols[c]), 1);
			cell(o, COL_XC0 + cols[c], b, n, 0);
		}
		out_ch(o, ' ');
		n = fmt_percent(b, v[PMAPS_XC_RSS], rss);
		cell(o, COL_XPCT, b, n, 0);
		out_ch(o, '\n');
	}
	if (gone[0])
		out_printf(o, "(Left out to fit %d columns: %s; --wide shows them.)\n", width, gone);
	if (unknown)
		out_printf(o, "('-': not known to the %s source here%s%s.)\n",
		           pmaps_source_name(x->source),
		           x->source == PMAPS_SRC_PAGES && !known(x, PMAPS_XC_LAZYFREE)
		           ? "; LazyFree needs root" : "",
		           x->swap_unknown ? "; shared memory's swap is in its object, not the page "
		                             "tables" : "");
}

static void pages_table(struct out *o, const struct pmaps_explain *x)
{
	char b[24], e[4 * PMAPS_ERRMSG_SIZE_PUBLIC + 4];
	int phys = x->pages_kpage == 1;

	out_printf(o, "\nPage by page (%s%s):\n",
	           x->pages_strategy == PMAPS_PAGES_SCAN ? "PAGEMAP_SCAN" : "pagemap",
	           phys ? ", with kpageflags and kpagecount" : "");
	if (!phys)
		out_printf(o, "  (%s)\n", esc(e, sizeof(e), x->pages_note));
	title(o, COL_XCAT, 0);
	for (int c = 0; c < PMAPS_XP_COUNT; c++) {
		out_ch(o, ' ');
		title(o, COL_XP0 + c, 0);
	}
	out_ch(o, '\n');
	for (int k = 0; k < PMAPS_X_COUNT; k++) {
		const char *nm = pmaps_xcat_name((enum pmaps_xcat)k);
		if (!x->mappings[k])
			continue;
		cell(o, COL_XCAT, nm, strlen(nm), 0);
		for (int c = 0; c < PMAPS_XP_COUNT; c++) {
			int seen = (x->pages_known & (1u << c)) != 0;
			size_t n = size_str(b, x->pg[k][c], seen, 1);
			out_ch(o, ' ');
			cell(o, COL_XP0 + c, b, n, 0);
		}
		out_ch(o, '\n');
	}
}

void w_wss_categories(struct out *o, const struct pmaps_explain *x)
{
	char a[24], b[24], c[24], p[16];

	out_str(o, "category             resident   touched      idle %touched  mappings\n");
	for (int k = 0; k <= PMAPS_X_COUNT; k++) {
		int total = k == PMAPS_X_COUNT;
		const char *nm = total ? "total" : pmaps_xcat_name((enum pmaps_xcat)k);
		uint64_t rss = total ? x->total[PMAPS_XC_RSS] : x->v[k][PMAPS_XC_RSS];
		uint64_t ref = total ? x->referenced_total : x->referenced[k];
		size_t na, nb, nc;
		int np;
		if (!total && !x->mappings[k])
			continue;
		na = fmt_human(a, rss);
		nb = fmt_human(b, ref);
		nc = fmt_human(c, rss - ref);
		np = rss ? snprintf(p, sizeof(p), "%.1f%%", 100.0 * (double)ref / (double)rss)
		         : snprintf(p, sizeof(p), "-");
		out_ljust(o, nm, strlen(nm), 17);
		out_rjust(o, a, na, 12);
		out_rjust(o, b, nb, 10);
		out_rjust(o, c, nc, 10);
		out_rjust(o, p, (size_t)np, 9);
		out_printf(o, "%10llu\n", (unsigned long long)(total ? x->nmappings : x->mappings[k]));
	}
}

/*
 * explain --wss: the working set's categories (w_wss_categories()), then
 * the figures of the runtime's books (joined) that say why idle memory is
 * held.
 */
static void wss_table(struct out *o, const struct pmaps_explain *x,
                      const struct pmaps_wss_result *r, const struct pmaps_join *j)
{
	static const enum pmaps_join_key idle_keys[] = {
		PMAPS_JK_GO_HELD_FREE, PMAPS_JK_GO_RETURNED_RESIDENT, PMAPS_JK_JAVA_HEAP_FREE,
		PMAPS_JK_MALLOC_FREE_HELD};
	char a[24];
	int said = 0;

	double v;
	const char *unit = dur_unit(r->since_end_ns, &v);

	out_printf(o, "\nWorking set (%s): touched in the %.2f %s after the reset:\n",
	           pmaps_wss_method_name(r->method), v, unit);
	w_wss_categories(o, x);
	for (unsigned i = 0; j && j->ok && i < j->nterms; i++)
		for (size_t k = 0; k < sizeof(idle_keys) / sizeof(idle_keys[0]); k++) {
			const struct pmaps_join_term *t = &j->term[i];
			if (t->key != idle_keys[k] || !t->bytes)
				continue;
			if (!said)
				out_str(o, "Held idle, by the runtime's own books (its figures, resident or not:\n"
				           "the join below says how much of each part is resident):\n");
			said = 1;
			out_printf(o, "  %s %s (%s)\n", pmaps_join_key(t->key), hu(a, t->bytes),
			           pmaps_join_term_how(t));
		}
}

/*
 * Why the source is not smaps, the default, when pmaps_explain_choose()
 * decided so: its estimate of what a read of smaps would cost the process.
 */
static void choice_line(struct out *o, const struct pmaps_explain_choice *c)
{
	char a[32], b[32];

	if (c->reason == PMAPS_CHOICE_OVER)
		out_printf(o, "(%s: reading smaps and smaps_rollup would hold the process's\n"
		           "mmap_lock ~%s, over the %s limit, and stall its mmap() as long.)\n",
		           c->options & PMAPS_EXPLAIN_PACED ? "Paced" : "Walked gently",
		           fmt_duration(a, sizeof(a), c->hold_ns),
		           fmt_duration(b, sizeof(b), c->limit_ns));
	else if (c->reason == PMAPS_CHOICE_NO_PAGES)
		out_printf(o, "(Read from smaps, which with smaps_rollup holds the process's mmap_lock\n"
		           "~%s, over the %s limit: the pages source cannot read this process here.)\n",
		           fmt_duration(a, sizeof(a), c->hold_ns),
		           fmt_duration(b, sizeof(b), c->limit_ns));
}

/* A note of the result in words: the numbers are the ones it cites. */
static void note(struct out *o, const struct pmaps_explain *x, const struct pmaps_note *nt,
                 const struct books *bk)
{
	char a[24], b[24];
	/* What the runtime's books below hold: a note points there, not at how to get them. */
	int go_books = bk && bk->b.head[PMAPS_BOOK_GO].ok;
	int nmt_books = bk && bk->b.head[PMAPS_BOOK_JVM_NMT].ok && bk->b.jvm_nmt == PMAPS_NMT_ON;
	int malloc_books = bk && bk->b.head[PMAPS_BOOK_MALLOC].ok;

	switch (nt->kind) {
	case PMAPS_NOTE_GO_HEAP:
		out_printf(o, "- The Go heap holds %s of RSS. A pprof heap profile shows sampled live objects\n"
		           "  (inuse_space) or what was allocated (alloc_space): never idle spans, pages\n"
		           "  returned but still resident, goroutine stacks or runtime metadata.%s\n",
		           hu(a, nt->n[0]), go_books ? " The\n  runtime's books below split it by "
		                                       "runtime.MemStats." : "");
		break;
	case PMAPS_NOTE_GO_LAZYFREE:
		out_printf(o, "- %s of the Go heap was returned with MADV_FREE (GODEBUG=madvdontneed=0, or\n"
		           "  Go 1.12 to 1.15): resident until the kernel needs it. With\n"
		           "  GODEBUG=madvdontneed=1 the runtime returns it with MADV_DONTNEED and RSS\n"
		           "  drops at once.\n", hu(a, nt->n[0]));
		break;
	case PMAPS_NOTE_JVM_HEAP:
		out_printf(o, "- The Java heap holds %s of RSS in its %s reservation (-Xmx). The JVM keeps\n"
		           "  what it commits; a heap dump counts live objects only. The rest of the\n"
		           "  anonymous memory is metaspace, code cache, GC structures and native\n"
		           "  allocations: %s\n", hu(a, nt->n[0]), hu(b, nt->n[1]),
		           nmt_books ? "Native Memory Tracking, read below, splits it."
		                     : "Native Memory Tracking (-XX:NativeMemoryTracking=summary,\n"
		                       "  jcmd PID VM.native_memory) splits it.");
		break;
	case PMAPS_NOTE_JVM:
		out_printf(o, "- This is a JVM: it reserves its heap up front (-Xmx) and keeps what it commits;\n"
		           "  a heap dump counts live objects, not the committed heap, metaspace, code\n"
		           "  cache, thread stacks or GC structures. %s\n",
		           nmt_books ? "Native Memory Tracking, read below,\n  splits it."
		                     : "Native Memory Tracking\n  (-XX:NativeMemoryTracking=summary, "
		                       "jcmd PID VM.native_memory) splits it.");
		break;
	case PMAPS_NOTE_CPYTHON:
		out_str(o, "- This is CPython: its object allocator keeps arenas (1 MiB since 3.10) while\n"
		           "  any object in them lives, and glibc keeps what Python frees; tracemalloc\n"
		           "  counts live allocations only.\n");
		break;
	case PMAPS_NOTE_GLIBC_ARENAS:
		out_printf(o, "- glibc's %llu thread arena(s) hold %s: a thread that mallocs gets its own arena\n"
		           "  (up to 8 per core), and chunks freed there stay until malloc_trim(0) or the\n"
		           "  arena's top shrinks.%s\n", (unsigned long long)nt->n[0], hu(a, nt->n[1]),
		           malloc_books ? " malloc's books below count them." : "");
		break;
	case PMAPS_NOTE_ANON_DIRTY:
		if (x->runtime_kind == PMAPS_RUNTIME_GO)
			out_printf(o, "- %s of other anonymous memory is private and dirty, outside the Go heap:\n"
			           "  runtime metadata, system threads' stacks, and C allocations through cgo.\n",
			           hu(a, nt->n[0]));
		else
			out_printf(o, "- %s of heap and anonymous memory is private and dirty: what allocators got\n"
			           "  from the kernel and wrote. A heap profile counts live objects in it; the\n"
			           "  rest is memory kept after free (glibc: malloc_trim returns it), metadata\n"
			           "  and fragmentation.\n", hu(a, nt->n[0]));
		break;
	case PMAPS_NOTE_LAZYFREE:
		out_printf(o, "- %s are pages freed with MADV_FREE (LazyFree): still resident and counted in\n"
		           "  RSS until the kernel needs the memory.\n", hu(a, nt->n[0]));
		break;
	case PMAPS_NOTE_FILE:
		out_printf(o, "- %s are file pages (code, data and files mapped): in RSS but in no heap\n"
		           "  profile; %s of them are clean, and the kernel can drop those at any time.\n",
		           hu(a, nt->n[0]), hu(b, nt->n[1]));
		break;
	case PMAPS_NOTE_SHMEM:
		out_printf(o, "- %s is shared memory (shmem, memfd, SysV): counted whole in the RSS of every\n"
		           "  process that maps it; PSS splits it (%s here).\n", hu(a, nt->n[0]),
		           hu(b, nt->n[1]));
		break;
	case PMAPS_NOTE_STACKS:
		out_printf(o, "- %s are stacks: touched stack pages stay resident after the calls return.\n",
		           hu(a, nt->n[0]));
		break;
	case PMAPS_NOTE_THP:
		out_printf(o, "- %s are transparent huge pages: touching one byte can make 2 MiB resident.\n",
		           hu(a, nt->n[0]));
		break;
	case PMAPS_NOTE_SWAP:
		if (x->source != PMAPS_SRC_PAGES)
			out_printf(o, "- %s are swapped out: not in RSS, back in it when touched.\n",
			           hu(a, nt->n[0]));
		else /* the page tables hold the swap entries of private memory only */
			out_printf(o, "- %s of private memory are swapped out: not in RSS, back in it when\n"
			           "  touched (shared memory's swap is not counted here).\n", hu(a, nt->n[0]));
		break;
	case PMAPS_NOTE_COUNT:
		break;
	}
}

static void explain_doc(struct writer *w, const struct pmaps_explain *x, struct out *o);

/*
 * Copies LEN bytes of a document from S to O, its prose wrapped at WIDTH:
 * a line longer than that, with no two spaces in a row after its indent
 * (a table's row has them: tables are fitted, not wrapped), breaks at
 * spaces; its next lines take its indent, two more under a "- " item.
 */
static void wrap_copy(struct out *o, const char *s, size_t len, int width)
{
	const char *end = s + len;

	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *le = nl ? nl : end, *p = s;
		size_t cols = 0, indent, hang;
		int prose = 1;

		for (const char *q = s; q < le; q++)
			cols += ((unsigned char)*q & 0xc0) != 0x80;
		while (p < le && *p == ' ')
			p++;
		indent = (size_t)(p - s);
		hang = indent + (le - p > 2 && p[0] == '-' && p[1] == ' ' ? 2 : 0);
		for (const char *q = p; q + 1 < le; q++)
			if (q[0] == ' ' && q[1] == ' ')
				prose = 0;
		if (cols <= (size_t)width || !prose || hang + 20 > (size_t)width) {
			out_mem(o, s, (size_t)(le - s));
		} else {
			/* Words onto lines of WIDTH columns at most (a longer word alone on its line). */
			size_t at = indent;
			int words = 0; /* on this line */
			out_mem(o, s, indent);
			while (p < le) {
				const char *we = p, *q;
				size_t wc = 0;
				while (we < le && *we != ' ')
					wc += ((unsigned char)*we++ & 0xc0) != 0x80;
				if (words && at + 1 + wc > (size_t)width) {
					out_ch(o, '\n');
					for (size_t i = 0; i < hang; i++)
						out_ch(o, ' ');
					at = hang;
					words = 0;
				} else if (words) {
					out_ch(o, ' ');
					at++;
				}
				words++;
				out_mem(o, p, (size_t)(we - p));
				at += wc;
				for (q = we; q < le && *q == ' '; q++)
					;
				p = q;
			}
		}
		if (nl)
			out_ch(o, '\n');
		s = nl ? nl + 1 : end;
	}
}

static void explain(struct writer *w, const struct pmaps_explain *x)
{
	struct out mem;
	size_t cap = 1u << 20;
	char *buf;

	/* Whole, where no width is asked (--wide) or the memory for the wrapping is not there. */
	if (w->d->last_width <= 0 || !(buf = malloc(cap))) {
		explain_doc(w, x, w->o);
		return;
	}
	out_memory(&mem, buf, cap);
	explain_doc(w, x, &mem);
	if (mem.err)
		explain_doc(w, x, w->o); /* larger than the buffer: unwrapped */
	else
		wrap_copy(w->o, buf, out_kept(&mem), w->d->last_width);
	free(buf);
}

static void explain_doc(struct writer *w, const struct pmaps_explain *x, struct out *o)
{
	const uint64_t *t = x->total;
	char a[24], b[24], c[24], d[24];
	const char *sep;
	/* The runtime's evidence, escaped whole: 4 bytes for every byte at most. */
	char e[4 * sizeof(x->runtime_evidence) + 4];

	out_printf(o, "pmaps explain: process %d\n\n", w->d->pid);
	if (w->d->kernel_thread) {
		out_str(o, "RSS 0: a kernel thread has no user-space memory.\n");
		return;
	}
	out_printf(o, "RSS %s: what ps and top show.", hu(a, t[PMAPS_XC_RSS]));
	if (t[PMAPS_XC_LAZYFREE] && known(x, PMAPS_XC_LAZYFREE))
		out_printf(o, " Effective RSS %s (minus %s LazyFree).", hu(a, x->effective_rss),
		           hu(b, t[PMAPS_XC_LAZYFREE]));
	out_ch(o, '\n');
	/* The figures the source knows, in one sentence. */
	sep = "";
	if (known(x, PMAPS_XC_PSS)) {
		out_printf(o, "PSS %s", hu(a, t[PMAPS_XC_PSS]));
		sep = ", ";
	}
	if (known(x, PMAPS_XC_PRIVATE)) {
		out_printf(o, "%sUSS %s (pages no other process maps)", sep, hu(b, x->uss));
		sep = ", ";
	}
	if (known(x, PMAPS_XC_SWAP)) {
		out_printf(o, "%sswap %s", sep, hu(c, t[PMAPS_XC_SWAP]));
		if (known(x, PMAPS_XC_SWAP_PSS))
			out_printf(o, " (SwapPss %s)", hu(d, t[PMAPS_XC_SWAP_PSS]));
		else if (x->source == PMAPS_SRC_PAGES)
			out_str(o, " (not of shared memory)");
		sep = ", ";
	}
	if (sep[0])
		out_str(o, ".\n");
	if (has(&x->status, PMAPS_ST_VM_HWM) && has(&x->status, PMAPS_ST_VM_PTE))
		out_printf(o, "Peak RSS (VmHWM) %s, page tables (VmPTE) %s.\n",
		           hu(a, x->status.v[PMAPS_ST_VM_HWM]), hu(b, x->status.v[PMAPS_ST_VM_PTE]));
	else if (has(&x->status, PMAPS_ST_VM_HWM))
		out_printf(o, "Peak RSS (VmHWM) %s.\n", hu(a, x->status.v[PMAPS_ST_VM_HWM]));
	if (x->runtime_kind != PMAPS_RUNTIME_NONE) {
		out_str(o, "Runtime: ");
		out_str(o, esc(e, sizeof(e), x->runtime_evidence));
		out_str(o, ".\n");
	}
	if (x->source == PMAPS_SRC_PAGES)
		out_printf(o, "\nWhere it is (%llu mappings, counted from the page tables by the pages "
		           "source, not smaps):\n", (unsigned long long)x->nmappings);
	else
		out_printf(o, "\nWhere it is (%llu mappings):\n", (unsigned long long)x->nmappings);
	if (w->d->choice)
		choice_line(o, w->d->choice);
	category_table(o, x, w->d->last_width);
	out_printf(o, "\nReconciled: the categories add up to %llu KiB of RSS",
	           (unsigned long long)(t[PMAPS_XC_RSS] >> 10));
	if (x->source == PMAPS_SRC_PAGES)
		out_str(o, " (the pages source does not read smaps_rollup, the kernel's own sum).\n");
	else if (!x->have_rollup)
		out_str(o, " (this kernel has no smaps_rollup to compare with).\n");
	else if (!x->rollup_apart)
		out_str(o, "; smaps_rollup, the kernel's own sum, says the same.\n");
	else
		out_printf(o, "; smaps_rollup says %llu KiB, %llu KiB apart: the process changed between "
		           "the two reads.\n", (unsigned long long)(x->rollup[PMAPS_F_RSS] >> 10),
		           (unsigned long long)(x->rollup_apart >> 10));
	if (has(&x->status, PMAPS_ST_VM_RSS)) {
		const uint64_t *s = x->status.v;
		int parts = has(&x->status, PMAPS_ST_RSS_ANON) && has(&x->status, PMAPS_ST_RSS_FILE) &&
		            has(&x->status, PMAPS_ST_RSS_SHMEM);
		out_printf(o, "status: VmRSS %llu KiB", (unsigned long long)(s[PMAPS_ST_VM_RSS] >> 10));
		if (parts)
			out_printf(o, " = RssAnon %llu + RssFile %llu + RssShmem %llu KiB",
			           (unsigned long long)(s[PMAPS_ST_RSS_ANON] >> 10),
			           (unsigned long long)(s[PMAPS_ST_RSS_FILE] >> 10),
			           (unsigned long long)(s[PMAPS_ST_RSS_SHMEM] >> 10));
		out_str(o, ".\n");
		if ((parts && !x->status_parts_agree) || x->status_apart)
			out_printf(o, "  %llu KiB from the sum above: status was read first, and its counters are\n"
			           "  approximate before Linux 6.16.\n",
			           (unsigned long long)(x->status_apart >> 10));
	}
	if (x->threads) {
		out_printf(o, "Threads: %u; stacks found by their stack pointer: %u", x->threads,
		           x->stacks_found);
		if (x->stacks_guessed)
			out_printf(o, ", guessed from the guard page below them: %u", x->stacks_guessed);
		out_str(o, " (the main thread's is [stack]).\n");
	}
	if (w->d->verbose) {
		out_str(o, "\nEvidence:\n");
		if (x->runtime_kind != PMAPS_RUNTIME_NONE) {
			out_str(o, "- runtime-heap: ");
			out_str(o, esc(e, sizeof(e), x->runtime_evidence));
			out_str(o, ".\n");
		} else {
			out_str(o, "- runtime-heap: no runtime recognised (Go: .go.buildinfo; glibc: "
			           "libc.so.6), so none.\n");
		}
		out_printf(o, "- thread-stacks: %u of %u threads' stack pointers read from "
		           "/proc/PID/task/TID/syscall and found in a mapping", x->stacks_found, x->threads);
		if (x->stacks_guessed)
			out_printf(o, "; %u more guessed: an anonymous mapping right above a guard page",
			           x->stacks_guessed);
		out_str(o, ".\n");
	}
	if (x->pages)
		pages_table(o, x);
	if (w->d->wss)
		wss_table(o, x, w->d->wss, w->d->join);
	if (x->ntop)
		out_str(o, w->d->wss ? "\nLargest mappings by RSS, and what they touched:\n"
		                     : "\nLargest mappings by RSS:\n");
	for (unsigned i = 0; i < x->ntop; i++) {
		const struct pmaps_explain_top *tp = &x->top[i];
		size_t n;
		int used;
		out_str(o, "  ");
		out_hex(o, tp->start, 12);
		out_ch(o, '-');
		out_hex(o, tp->end, 12);
		out_ch(o, ' ');
		n = fmt_human(a, tp->rss);
		out_rjust(o, a, n, 8);
		if (w->d->wss) {
			n = fmt_human(a, x->top_referenced[i]);
			out_rjust(o, a, n, 9);
		}
		out_str(o, "  ");
		out_ljust(o, pmaps_xcat_name(tp->cat), strlen(pmaps_xcat_name(tp->cat)), 13);
		out_ch(o, ' ');
		/*
		 * The line's 2 + 25 + 1 + 8 (+ 9 touched) + 2 + 13 + 1 columns, then
		 * the path in what is left.
		 */
		used = w->d->wss ? 61 : 52;
		if (tp->path_len)
			w_name_in(o, tp->path, tp->path_len, tp->path_truncated,
			        w->d->last_width ? (w->d->last_width - used > 16 ? w->d->last_width - used
			                                                         : 16)
			                         : 0);
		else
			out_str(o, tp->path_truncated ? "[anon]..." : "[anon]");
		out_ch(o, '\n');
	}
	out_str(o, "\nNotes:\n");
	for (unsigned i = 0; i < x->nnotes; i++)
		note(o, x, &x->notes[i], w->d->books);
	if (w->d->books)
		books_write_text(o, w->d->books, w->d->join);
}

static void end(struct writer *w, const char *error)
{
	/* A table has no place for an error: stderr says it, and the exit status. */
	(void)error;
	if (w->d->kind == DOC_PROCS)
		marks_legend(w->o, w->marks);
}

const struct writer_ops out_table_ops = {begin, mapping, group, run, summary, explain, proc, end};
