/* SPDX-License-Identifier: MIT */
/*
 * writer.c - what the three writers share: choosing one, and the few
 * renderings every format uses alike (a row's value, permissions, kind,
 * a list of flag names).
 */
#include <string.h>

#include "common/tool.h"
#include "write/writer.h"

void w_begin(struct writer *w, struct out *o, enum fmt fmt, const struct doc *d)
{
	static const struct writer_ops *const ops[] = {
		[FMT_TABLE] = &out_table_ops, [FMT_JSON] = &out_json_ops,
		[FMT_JSONL] = &out_json_ops, [FMT_CSV] = &out_csv_ops,
	};
	size_t n;

	memset(w, 0, sizeof(*w));
	w->o = o;
	w->fmt = fmt;
	w->d = d;
	w->ops = ops[fmt];
	memcpy(w->lead, "{\"pid\":", 7);
	n = 7 + fmt_u64(w->lead + 7, (uint64_t)(d->pid > 0 ? d->pid : 0));
	w->lead[n++] = ',';
	w->lead_len = n;
	w->ops->begin(w);
	out_record(o);
}

void w_end(struct writer *w, const char *error)
{
	w->ops->end(w, error);
	out_record(w->o);
}

void w_failed(struct out *o, enum fmt fmt, const struct doc *d, const char *error)
{
	struct writer w;

	if (fmt != FMT_JSON && fmt != FMT_JSONL)
		return;
	w_begin(&w, o, fmt, d);
	w_end(&w, error);
}

int w_value(int col, const struct pmaps_mapping *m, const struct pmaps_group_row *g,
            uint64_t *v)
{
	int key = columns[col].lib;

	return m ? pmaps_mapping_value(m, key, v) : pmaps_group_value(g, key, v);
}

int w_blank(const struct doc *d, int col)
{
	return col == COL_PATH && d->kind == DOC_GROUPS && d->by == PMAPS_GROUP_KIND;
}

struct lit w_heading(const struct doc *d, int col, int title)
{
	static const struct lit blank = {"", 0}, source = {"source", 6}, source_title = {"Source", 6};

	if (w_blank(d, col))
		return blank;
	if (col == COL_PATH && d->kind == DOC_TOTAL)
		return title ? source_title : source;
	return title ? columns[col].title : columns[col].key;
}

void w_perms(char *p, unsigned perms)
{
	p[0] = perms & PMAPS_PERM_READ ? 'r' : '-';
	p[1] = perms & PMAPS_PERM_WRITE ? 'w' : '-';
	p[2] = perms & PMAPS_PERM_EXEC ? 'x' : '-';
	p[3] = perms & PMAPS_PERM_SHARED ? 's' : 'p';
	p[4] = '\0';
}

const char *w_kind(const struct pmaps_mapping *m, const struct pmaps_group_row *g)
{
	return m ? pmaps_kind_name(m->kind) : pmaps_group_kind_name(g);
}

size_t w_flag_list(char *dst, size_t size, uint64_t flags, const char *(*name)(uint64_t bit),
                   char sep, int quote)
{
	size_t k = 0;

	for (int b = 0; b < 64; b++) {
		const char *s = (flags >> b) & 1 ? name(1ull << b) : NULL;
		size_t n = s ? strlen(s) : 0;
		if (!s || k + n + 4 > size)
			continue;
		if (k)
			dst[k++] = sep;
		if (quote)
			dst[k++] = '"';
		memcpy(dst + k, s, n);
		k += n;
		if (quote)
			dst[k++] = '"';
	}
	dst[k] = '\0';
	return k;
}

const char *w_page_flag_name(uint64_t bit)
{
	return bit <= PMAPS_PG_GUARD ? pmaps_page_flag_name((unsigned)bit) : NULL;
}

const char *w_strategy_key(enum pmaps_pages_strategy s)
{
	return s == PMAPS_PAGES_SCAN ? "scan" : "pagemap";
}

int w_proc_value(int col, const struct top_line *l, uint64_t *v)
{
	int k = columns[col].lib;
	/* A tree's line shows its subtree's sums; a group's, the group's. */
	const struct pmaps_survey_sum *sum = l->tree ? l->tree : l->row ? NULL : l->sum;
	uint64_t present = sum ? sum->present : l->row->present;
	uint64_t seen = sum ? sum->seen : present;

	if (k < 0 || k >= PMAPS_SV_MAX || !((seen >> k) & 1))
		return 0;
	*v = sum ? sum->v[k] : l->row->v[k];
	return (present >> k) & 1 ? 1 : 2;
}

const char *w_survey_flag_name(uint64_t bit)
{
	/* NEW and FRESH are the survey's bookkeeping: an age says what FRESH would. */
	switch (bit) {
	case PMAPS_SURVEY_SKIPPED: return "skipped";
	case PMAPS_SURVEY_FAILED: return "failed";
	case PMAPS_SURVEY_DENIED: return "denied";
	case PMAPS_SURVEY_LARGE: return "large";
	case PMAPS_SURVEY_PARTIAL: return "partial";
	case PMAPS_SURVEY_CGROUP_TRUNCATED: return "cgroup_truncated";
	default: return NULL;
	}
}

char w_survey_mark(uint32_t flags)
{
	/* One letter: the flag that says most about the figures. */
	if (flags & PMAPS_SURVEY_DENIED)
		return 'D';
	if (flags & PMAPS_SURVEY_FAILED)
		return 'F';
	if (flags & PMAPS_SURVEY_SKIPPED)
		return 'S';
	if (flags & PMAPS_SURVEY_LARGE)
		return 'L';
	if (flags & PMAPS_SURVEY_PARTIAL)
		return 'P';
	return '\0';
}

size_t w_age(char *dst, uint64_t ns)
{
	uint64_t ms = ns / 1000000u;
	size_t n = fmt_u64(dst, ms / 1000);

	dst[n++] = '.';
	dst[n++] = (char)('0' + ms % 1000 / 100);
	dst[n++] = (char)('0' + ms % 100 / 10);
	dst[n++] = (char)('0' + ms % 10);
	dst[n] = '\0';
	return n;
}

int set_format(enum fmt *fmt, int opt)
{
	enum fmt want = opt == 'j' ? FMT_JSON : opt == 'L' ? FMT_JSONL : FMT_CSV;

	if (*fmt != FMT_TABLE && *fmt != want) {
		die_msg("--json, --jsonl and --csv do not go together: choose one");
		return -1;
	}
	*fmt = want;
	return 0;
}
