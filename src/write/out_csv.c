/* SPDX-License-Identifier: MIT */
/*
 * out_csv.c - records as CSV (RFC 4180): a heading of column keys, then one
 * line per record. Sizes in bytes, addresses 0x... in hex, flags joined by
 * '|'. A value the kernel did not report is an empty cell, never 0. Maps
 * rows and explain's categories not from smaps or smaps_rollup end with a
 * column naming their source.
 */
#include <string.h>

#include "write/writer.h"

static void sep(struct out *o, int i)
{
	if (i)
		out_ch(o, ',');
}

static void key(struct out *o, int col)
{
	out_mem(o, columns[col].key.s, columns[col].key.n);
}

/* The count columns a summary shows: the physical ones only with kpageflags. */
static int summary_cols(const struct writer *w)
{
	return w->d->kpage ? PMAPS_PC_COUNT : PMAPS_PC_DIRTY;
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
			struct lit h = w_heading(d, d->cols[i], 0);
			sep(o, i);
			out_mem(o, h.s, h.n);
		}
		if (d->csv_source)
			out_str(o, d->ncols ? ",source" : "source");
		break;
	case DOC_RUNS:
		if (d->by_state) {
			out_str(o, "start,end,pages,state,path");
			break;
		}
		out_str(o, "start,end,pages,flags,");
		if (d->kpage)
			out_str(o, d->pfn ? "mapcount,kflags,pfn," : "mapcount,kflags,");
		out_str(o, "path");
		break;
	case DOC_SUMMARY:
		out_str(o, "start,end");
		for (int k = 0; k < summary_cols(w); k++) {
			out_ch(o, ',');
			key(o, COL_PC0 + k);
		}
		out_str(o, ",path");
		break;
	case DOC_EXPLAIN:
		return; /* the heading comes with the result: a failed run writes nothing */
	case DOC_PROCS:
		/* Snapshots after the first continue the same table: one heading. */
		if (!d->csv_header)
			return;
		for (int i = 0; i < d->ncols; i++) {
			sep(o, i);
			key(o, d->cols[i]);
		}
		break;
	}
	out_ch(o, '\n');
}

static void cell(struct out *o, int c, const struct pmaps_mapping *m,
                 const struct pmaps_group_row *g)
{
	char b[8];
	uint64_t v;

	switch (c) {
	case COL_ADDRESS:
		out_0x(o, m->start);
		out_ch(o, '-');
		out_0x(o, m->end);
		return;
	case COL_START: out_0x(o, m->start); return;
	case COL_END: out_0x(o, m->end); return;
	case COL_PERMS: w_perms(b, m->perms); out_mem(o, b, 4); return;
	case COL_OFFSET: out_u64(o, m->offset); return;
	case COL_DEV:
		out_hex(o, m->dev_major, 2);
		out_ch(o, ':');
		out_hex(o, m->dev_minor, 2);
		return;
	case COL_INODE: out_u64(o, m->inode); return;
	case COL_KIND: out_str(o, w_kind(m, g)); return;
	case COL_VMFLAGS:
		if (m)
			out_csv_str(o, m->vm_flags_text.ptr, m->vm_flags_text.len);
		return;
	case COL_PATH:
		if (m)
			out_csv_str(o, m->path.ptr, m->path.len);
		else
			out_csv_str(o, g->key.ptr, g->key.len);
		return;
	default:
		if (w_value(c, m, g, &v) == 1)
			out_u64(o, v);
	}
}

static void row(struct writer *w, const struct pmaps_mapping *m, const struct pmaps_group_row *g)
{
	const struct doc *d = w->d;

	for (int i = 0; i < d->ncols; i++) {
		int c = d->cols[i];
		sep(w->o, i);
		if (g && w_blank(d, c))
			continue;
		cell(w->o, c, m, g);
	}
	if (d->csv_source) {
		sep(w->o, d->ncols);
		out_str(w->o, d->source);
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

static void flags(struct out *o, uint64_t f, const char *(*name)(uint64_t bit))
{
	char b[512];
	size_t n = w_flag_list(b, sizeof(b), f, name, '|', 0);

	if (n)
		out_mem(o, b, n);
	else
		out_ch(o, '-');
}

static void run(struct writer *w, const struct pmaps_page_range *r, const struct pmaps_mapping *m)
{
	struct out *o = w->o;
	int present = (r->flags & PMAPS_PG_PRESENT) != 0;

	out_0x(o, r->start);
	out_ch(o, ',');
	out_0x(o, r->end);
	out_ch(o, ',');
	out_u64(o, pmaps_page_range_pages(r));
	out_ch(o, ',');
	if (w->d->by_state) {
		out_str(o, pmaps_page_state_key(pmaps_page_state_of(r, m->kind)));
		out_ch(o, ',');
		out_csv_str(o, m->path.ptr, m->path.len);
		out_ch(o, '\n');
		return;
	}
	flags(o, r->flags, w_page_flag_name);
	if (w->d->kpage) {
		out_ch(o, ',');
		if (present)
			out_u64(o, r->mapcount);
		out_ch(o, ',');
		if (present)
			flags(o, r->kflags, pmaps_kpage_flag_name);
		if (w->d->pfn) {
			out_ch(o, ',');
			if (present)
				out_0x(o, r->pfn);
		}
	}
	out_ch(o, ',');
	out_csv_str(o, m->path.ptr, m->path.len);
	out_ch(o, '\n');
}

static void summary(struct writer *w, const struct pmaps_page_summary *s,
                    const struct pmaps_mapping *m)
{
	struct out *o = w->o;

	out_0x(o, s->start);
	out_ch(o, ',');
	out_0x(o, s->end);
	for (int k = 0; k < summary_cols(w); k++) {
		out_ch(o, ',');
		if (s->known & (1ull << k))
			out_u64(o, s->n[k]);
	}
	out_ch(o, ',');
	out_csv_str(o, m->path.ptr, m->path.len);
	out_ch(o, '\n');
}

/*
 * The heading, a line per category that has mappings, then the total. A
 * state the source does not know is an empty cell; a result not from smaps
 * names its source in a last column, as maps rows do.
 */
static void explain(struct writer *w, const struct pmaps_explain *x)
{
	struct out *o = w->o;
	int named = x->source != PMAPS_SRC_SMAPS;

	key(o, COL_XCAT);
	out_ch(o, ',');
	key(o, COL_XMAPS);
	for (int c = 0; c < PMAPS_XC_COUNT; c++) {
		out_ch(o, ',');
		key(o, COL_XC0 + c);
	}
	if (named)
		out_str(o, ",source");
	out_ch(o, '\n');

	for (int k = 0; k <= PMAPS_X_COUNT; k++) {
		const uint64_t *v = k < PMAPS_X_COUNT ? x->v[k] : x->total;
		if (k < PMAPS_X_COUNT && !x->mappings[k])
			continue;
		out_str(o, k < PMAPS_X_COUNT ? pmaps_xcat_name((enum pmaps_xcat)k) : "total");
		out_ch(o, ',');
		out_u64(o, k < PMAPS_X_COUNT ? x->mappings[k] : x->nmappings);
		for (int c = 0; c < PMAPS_XC_COUNT; c++) {
			out_ch(o, ',');
			if (pmaps_explain_known(x, k < PMAPS_X_COUNT ? k : -1, (enum pmaps_xcol)c))
				out_u64(o, v[c]);
		}
		if (named) {
			out_ch(o, ',');
			out_str(o, pmaps_source_name(x->source));
		}
		out_ch(o, '\n');
	}
}

/* The keys of a group's figures that are sums over only some of its processes, joined by SEP. */
static void partial_list(struct out *o, const struct pmaps_survey_sum *s, char sep, int quote)
{
	int first = 1;

	for (int k = 0; k < PMAPS_SV_COUNT; k++) {
		if (!((s->seen & ~s->present) >> k & 1))
			continue;
		if (!first)
			out_ch(o, sep);
		first = 0;
		if (quote)
			out_ch(o, '"');
		out_mem(o, columns[COL_SV0 + k].key.s, columns[COL_SV0 + k].key.n);
		if (quote)
			out_ch(o, '"');
	}
}

/* A process of pmaps top, or a group's sum: the document's columns, bytes, flags joined by '|'. */
static void proc(struct writer *w, const struct top_line *l)
{
	const struct pmaps_survey_row *r = l->row;
	const struct doc *d = w->d;
	struct out *o = w->o;
	char b[512];
	uint64_t v;

	for (int i = 0; i < d->ncols; i++) {
		int c = d->cols[i];
		sep(o, i);
		switch (c) {
		case COL_REFRESH: out_u64(o, d->stats ? d->stats->refreshes : 0); break;
		case COL_PID:
			if (r)
				out_u64(o, (uint64_t)r->pid);
			break;
		case COL_USER: out_csv_str(o, l->user, strlen(l->user)); break;
		case COL_UID: out_u64(o, l->uid); break;
		case COL_STATE:
			if (r && r->state)
				out_csv_str(o, &r->state, 1);
			break;
		case COL_COMMAND:
			if (r)
				out_csv_str(o, r->comm.ptr, r->comm.len);
			break;
		case COL_PROCS: out_u64(o, l->sum ? l->sum->processes : 1); break;
		case COL_PARTIAL:
			/* The figures summed over only the processes that had them. */
			if (l->sum)
				partial_list(o, l->sum, '|', 0);
			break;
		case COL_PSOURCE:
			if (r)
				out_str(o, pmaps_source_name(r->source));
			break;
		case COL_AGE:
			if (r && r->age_ns && r->source != PMAPS_SRC_STATUS)
				out_mem(o, b, w_age(b, r->age_ns));
			break;
		case COL_MARK:
			if (r)
				out_mem(o, b, w_flag_list(b, sizeof(b), r->flags, w_survey_flag_name, '|', 0));
			break;
		case COL_CGROUP:
			if (r)
				out_csv_str(o, r->cgroup.ptr, r->cgroup.len);
			else
				out_csv_str(o, l->cgroup.ptr, l->cgroup.len);
			break;
		default:
			if (w_proc_value(c, l, &v) != 0)
				out_u64(o, v);
		}
	}
	out_ch(o, '\n');
}

static void end(struct writer *w, const char *error)
{
	/* CSV has no place for an error: stderr says it, and the exit status. */
	(void)w;
	(void)error;
}

const struct writer_ops out_csv_ops = {begin, mapping, group, run, summary, explain, proc, end};
