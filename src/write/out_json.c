/* SPDX-License-Identifier: MIT */
/*
 * out_json.c - records as JSON (one document: a header, then an array of
 * records, one per line) and as JSON Lines (one compact object per line,
 * each a record carrying "pid", and for maps and explain its "source"; an
 * error ends the stream with a line {"pid":N,"error":"..."}).
 *
 * Sizes are bytes, keys the column table's, addresses "0x..." strings. A
 * field the kernel did not report is an absent key, never 0. Strings from
 * the target go through escape.c: always valid UTF-8, with KEY_hex beside
 * a name that was not.
 */
#include <string.h>

#include "write/books_out.h"
#include "write/writer.h"

#define KEY(o, lit) out_mem(o, lit, sizeof(lit) - 1)

static int jsonl(const struct writer *w)
{
	return w->fmt == FMT_JSONL;
}

/* A record's opening: '{' in a document (after the separator), {"pid":N, in JSON Lines. */
static void open_record(struct writer *w)
{
	if (jsonl(w)) {
		out_mem(w->o, w->lead, w->lead_len);
		return;
	}
	if (w->rows)
		KEY(w->o, ",\n{");
	else
		KEY(w->o, "\n{");
}

static void close_record(struct writer *w)
{
	if (!jsonl(w)) {
		out_ch(w->o, '}');
		return;
	}
	/* A maps record names its source last (a total, first: it always has). */
	if ((w->d->kind == DOC_MAPPINGS || w->d->kind == DOC_GROUPS) && w->d->source) {
		KEY(w->o, ",\"source\":\"");
		out_str(w->o, w->d->source);
		out_ch(w->o, '"');
	}
	KEY(w->o, "}\n");
}

/* ,"key":V with the column's precomputed key: one fixed-size copy, then the digits. */
static inline void key_u64(struct out *o, int col, uint64_t v)
{
	const struct column *c = &columns[col];
	char *d = out_reserve(o, sizeof(c->jkey) + 24);

	memcpy(d, c->jkey, sizeof(c->jkey));
	if (v < 10) { /* most fields of most mappings are 0 */
		d[c->jkey_n] = (char)('0' + v);
		out_advance(o, c->jkey_n + 1u);
		return;
	}
	out_advance(o, c->jkey_n + fmt_u64(d + c->jkey_n, v));
}

/*
 * ,"gentle":..,"policy":..: whether a walk paused, and by which policy:
 * "gentle" (--gentle, top, serve) or "paced" (a one-shot read over the limit).
 */
static void pace_keys(struct out *o, int gentle, int paced)
{
	if (gentle)
		KEY(o, ",\"gentle\":true,\"policy\":\"gentle\"");
	else if (paced)
		KEY(o, ",\"gentle\":true,\"policy\":\"paced\"");
	else
		KEY(o, ",\"gentle\":false");
}

/*
 * Why that source, and whether it walked gently: the choice's reason and
 * its estimate of the longest hold, in ns (explain's pmaps_explain_choose(),
 * maps' limit on its read).
 */
static void source_choice(struct out *o, const struct pmaps_explain_choice *c)
{
	KEY(o, ",\"source_choice\":{\"reason\":\"");
	out_str(o, pmaps_choice_reason_key(c->reason));
	KEY(o, "\",\"hold_ns\":");
	out_u64(o, c->hold_ns);
	KEY(o, ",\"limit_ns\":");
	out_u64(o, c->limit_ns);
	pace_keys(o, (c->options & PMAPS_EXPLAIN_GENTLE) != 0,
	          (c->options & PMAPS_EXPLAIN_PACED) != 0);
	out_ch(o, '}');
}

static void path(struct out *o, const char *s, size_t n, int truncated)
{
	out_json_named(o, "path", 4, s, n);
	if (truncated)
		KEY(o, ",\"path_truncated\":true");
}

/* A flag list as a JSON array of names: ["present","file"]. */
static void flag_array(struct out *o, uint64_t flags, const char *(*name)(uint64_t bit))
{
	char b[512];
	size_t n = w_flag_list(b, sizeof(b), flags, name, ',', 1);

	out_ch(o, '[');
	out_mem(o, b, n);
	out_ch(o, ']');
}

/* "AnonHugePages" -> "anon_huge_pages", for fields the library does not know. */
static void snake_key(struct out *o, const char *s, size_t n)
{
	char b[128];
	size_t k = 0;

	for (size_t i = 0; i < n && k + 2 < sizeof(b); i++) {
		char c = s[i];
		if (c >= 'A' && c <= 'Z') {
			if (i > 0 && ((s[i - 1] >= 'a' && s[i - 1] <= 'z') || (s[i - 1] >= '0' && s[i - 1] <= '9')))
				b[k++] = '_';
			c = (char)(c - 'A' + 'a');
		} else if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) {
			c = '_';
		}
		b[k++] = c;
	}
	out_json_str(o, b, k);
}

static void fields(struct out *o, const uint64_t *v, uint64_t present)
{
	for (uint64_t p = present & ((1ull << PMAPS_F_COUNT) - 1); p; p &= p - 1) {
		int f = __builtin_ctzll(p);
		key_u64(o, f, v[f]);
	}
}

/*
 * What a page source measured, which no smaps field holds (present ones
 * only): a smaps row's shared and uss are sums of the fields it gives.
 * One function each for mappings and groups: neither is ever NULL.
 */
static const int measured_cols[] = {COL_SHARED, COL_USS, COL_FILE_RSS, COL_ZERO_PAGE};
#define NMEASURED (sizeof(measured_cols) / sizeof(measured_cols[0]))

static void measured_mapping(struct out *o, const struct pmaps_mapping *m)
{
	uint64_t v;

	for (size_t i = 0; i < NMEASURED; i++)
		if (pmaps_mapping_value(m, columns[measured_cols[i]].lib, &v) == 1)
			key_u64(o, measured_cols[i], v);
}

static void measured_group(struct out *o, const struct pmaps_group_row *g)
{
	uint64_t v;

	for (size_t i = 0; i < NMEASURED; i++)
		if (pmaps_group_value(g, columns[measured_cols[i]].lib, &v) == 1)
			key_u64(o, measured_cols[i], v);
}

/* ---- pmaps top ---- */

static void procs_begin(struct writer *w)
{
	const struct doc *d = w->d;
	const struct pmaps_survey_stats *st = d->stats;
	const struct pmaps_meminfo *mi = d->meminfo;
	struct out *o = w->o;

	if (st) {
		KEY(o, ",\"refresh\":{\"number\":");
		out_u64(o, st->refreshes);
		KEY(o, ",\"processes\":");
		out_u64(o, st->processes);
		KEY(o, ",\"read\":");
		out_u64(o, st->read);
		KEY(o, ",\"kept\":");
		out_u64(o, st->kept);
		KEY(o, ",\"skipped\":");
		out_u64(o, st->skipped);
		KEY(o, ",\"failed\":");
		out_u64(o, st->failed);
		KEY(o, ",\"unwanted\":");
		out_u64(o, st->unwanted);
		KEY(o, ",\"denied\":");
		out_u64(o, st->denied);
		KEY(o, ",\"large\":");
		out_u64(o, st->large);
		KEY(o, ",\"vanished\":");
		out_u64(o, st->vanished);
		KEY(o, ",\"kernel_threads\":");
		out_u64(o, st->kernel_threads);
		KEY(o, ",\"wall_ns\":");
		out_u64(o, st->wall_ns);
		KEY(o, ",\"read_ns\":");
		out_u64(o, st->read_ns);
		KEY(o, ",\"budget_ns\":");
		out_u64(o, st->budget_ns);
		KEY(o, ",\"hold_ns\":");
		out_u64(o, st->hold_ns);
		out_ch(o, '}');
	}
	if (mi) {
		int first = 1;
		KEY(o, ",\"meminfo\":{");
		for (int f = 0; f < PMAPS_MI_COUNT; f++) {
			const char *k = pmaps_meminfo_key((enum pmaps_meminfo_field)f);
			if (!k || !((mi->present >> f) & 1))
				continue; /* a line this kernel does not print: absent, never 0 */
			if (!first)
				out_ch(o, ',');
			first = 0;
			out_json_str(o, k, strlen(k));
			out_ch(o, ':');
			out_u64(o, mi->v[f]);
		}
		out_ch(o, '}');
	}
	KEY(o, ",\"matched\":");
	out_u64(o, d->matched);
	if (d->reader) {
		KEY(o, ",\"reader\":{");
		out_json_named(o, "user", 4, d->reader, strlen(d->reader));
		KEY(o, ",\"uid\":");
		out_u64(o, d->reader_uid);
		if (d->root)
			KEY(o, ",\"root\":true}");
		else
			KEY(o, ",\"root\":false}");
	}
	KEY(o, ",\"sort\":\"");
	out_mem(o, columns[d->sort].key.s, columns[d->sort].key.n);
	if (d->desc)
		KEY(o, "\",\"order\":\"descending\"");
	else
		KEY(o, "\",\"order\":\"ascending\"");
	if (d->pgroup == PGROUP_NONE)
		KEY(o, ",\"group\":\"none\",\"processes\":[");
	else if (d->pgroup == PGROUP_USER)
		KEY(o, ",\"group\":\"user\",\"groups\":[");
	else
		KEY(o, ",\"group\":\"cgroup\",\"groups\":[");
}

/* A process of pmaps top, or a group's sum: every figure present, in bytes. */
static void proc(struct writer *w, const struct top_line *l)
{
	const struct pmaps_survey_row *r = l->row;
	struct out *o = w->o;
	uint64_t v;

	if (jsonl(w)) {
		/* A line of the stream: which refresh it is of, first. */
		KEY(o, "{\"refresh\":");
		out_u64(o, w->d->stats ? w->d->stats->refreshes : 0);
		out_ch(o, ',');
	} else {
		open_record(w);
	}
	if (r) {
		KEY(o, "\"pid\":");
		out_u64(o, (uint64_t)r->pid);
		out_ch(o, ',');
	}
	if (r || w->d->pgroup == PGROUP_USER) {
		out_json_named(o, "user", 4, l->user, strlen(l->user));
		key_u64(o, COL_UID, l->uid);
	}
	if (r) {
		KEY(o, ",\"state\":");
		if (r->state > 0x20 && r->state < 0x7f) {
			char st[3] = {'"', r->state, '"'};
			out_mem(o, st, 3);
		} else {
			out_json_str(o, &r->state, r->state ? 1 : 0);
		}
		out_ch(o, ',');
		out_json_named(o, "command", 7, r->comm.ptr, r->comm.len);
		KEY(o, ",\"source\":\"");
		out_str(o, pmaps_source_name(r->source));
		out_ch(o, '"');
	} else {
		if (w->d->pgroup == PGROUP_CGROUP)
			out_json_named(o, "cgroup", 6, l->cgroup.ptr, l->cgroup.len);
		KEY(o, ",\"processes\":");
		out_u64(o, l->sum->processes);
		if (l->sum->seen & ~l->sum->present) {
			/* Figures some of the processes lacked: sums over those that had them. */
			int first = 1;
			KEY(o, ",\"partial\":[");
			for (int k = 0; k < PMAPS_SV_COUNT; k++) {
				if (!((l->sum->seen & ~l->sum->present) >> k & 1))
					continue;
				if (!first)
					out_ch(o, ',');
				first = 0;
				out_ch(o, '"');
				out_mem(o, columns[COL_SV0 + k].key.s, columns[COL_SV0 + k].key.n);
				out_ch(o, '"');
			}
			out_ch(o, ']');
		}
		if (l->sum->saturated)
			KEY(o, ",\"saturated\":true");
	}
	{
		/* A process's own figures; with --tree its subtree's after them. */
		struct top_line own = *l;
		own.tree = NULL;
		for (int k = 0; k < PMAPS_SV_COUNT; k++)
			if (w_proc_value(COL_SV0 + k, &own, &v) != 0)
				key_u64(o, COL_SV0 + k, v);
	}
	if (r && l->tree) {
		KEY(o, ",\"ppid\":");
		out_u64(o, (uint64_t)l->ppid);
		KEY(o, ",\"depth\":");
		out_u64(o, (uint64_t)l->depth);
		KEY(o, ",\"tree\":{\"processes\":");
		out_u64(o, l->tree->processes);
		for (int k = 0; k < PMAPS_SV_COUNT; k++)
			if (w_proc_value(COL_SV0 + k, l, &v) != 0)
				key_u64(o, COL_SV0 + k, v);
		if (l->tree->seen & ~l->tree->present)
			KEY(o, ",\"partial\":true");
		out_ch(o, '}');
	}
	if (r) {
		char b[512];
		size_t n;
		/* The costly figures' age, when they are older than this refresh. */
		if (r->age_ns && r->source != PMAPS_SRC_STATUS) {
			KEY(o, ",\"age_s\":");
			n = w_age(b, r->age_ns);
			out_mem(o, b, n);
		}
		n = w_flag_list(b, sizeof(b), r->flags, w_survey_flag_name, ',', 1);
		KEY(o, ",\"flags\":[");
		out_mem(o, b, n);
		out_ch(o, ']');
		if (r->cgroup.len) {
			out_ch(o, ',');
			out_json_named(o, "cgroup", 6, r->cgroup.ptr, r->cgroup.len);
		}
	}
	if (jsonl(w))
		KEY(o, "}\n");
	else
		out_ch(o, '}');
}

static void begin(struct writer *w)
{
	const struct doc *d = w->d;
	struct out *o = w->o;

	if (jsonl(w) || d->kind == DOC_EXPLAIN)
		return;
	if (d->kind == DOC_PROCS) {
		/* Many processes: no "pid" of its own. */
		KEY(o, "{\"pmaps_version\":\"" PMAPS_VERSION "\"");
		procs_begin(w);
		return;
	}
	KEY(o, "{\"pmaps_version\":\"" PMAPS_VERSION "\",\"pid\":");
	out_u64(o, (uint64_t)d->pid);
	switch (d->kind) {
	case DOC_MAPPINGS:
	case DOC_GROUPS:
	case DOC_TOTAL:
		KEY(o, ",\"source\":\"");
		out_str(o, d->source);
		out_ch(o, '"');
		if (d->choice)
			source_choice(o, d->choice);
		KEY(o, ",\"group\":\"");
		if (d->kind == DOC_MAPPINGS)
			KEY(o, "none\",\"mappings\":[");
		else if (d->kind == DOC_TOTAL)
			KEY(o, "total\",\"total\":");
		else if (d->by == PMAPS_GROUP_PATH)
			KEY(o, "path\",\"groups\":[");
		else
			KEY(o, "kind\",\"groups\":[");
		break;
	case DOC_RUNS:
	case DOC_SUMMARY:
		KEY(o, ",\"strategy\":\"");
		out_str(o, w_strategy_key(d->strategy));
		if (d->kpage)
			KEY(o, "\",\"kpageflags\":true");
		else
			KEY(o, "\",\"kpageflags\":false");
		pace_keys(o, (d->pace & PMAPS_PAGES_GENTLE) != 0, (d->pace & PMAPS_PAGES_PACED) != 0);
		if (d->kind == DOC_RUNS && d->by_state)
			KEY(o, ",\"split_by\":\"state\",\"ranges\":[");
		else if (d->kind == DOC_RUNS)
			KEY(o, ",\"split_by\":\"flags\",\"ranges\":[");
		else
			KEY(o, ",\"mappings\":[");
		break;
	case DOC_EXPLAIN:
		break;
	case DOC_PROCS:
		break;
	}
}

/*
 * VmFlags as an array of its codes. The kernel's are two lower-case letters
 * between single spaces: those are copied in one piece; any other text (a
 * fixture's may hold anything) goes word by word through the JSON escape.
 */
static void vm_flags(struct out *o, const char *s, size_t n)
{
	const char *e = s + n;
	int first = 1, simple = n < OUT_RESERVE_MAX / 4 && n && s[0] != ' ' && s[n - 1] != ' ';

	for (size_t i = 0; i < n && simple; i++)
		simple = (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') ||
		         (s[i] == ' ' && s[i + 1] != ' ');
	if (simple) {
		char *d = out_reserve(o, 15 + 3 * n);
		size_t k = 14;
		memcpy(d, ",\"vm_flags\":[\"", 14);
		for (size_t i = 0; i < n; i++) {
			if (s[i] == ' ') {
				memcpy(d + k, "\",\"", 3);
				k += 3;
			} else {
				d[k++] = s[i];
			}
		}
		memcpy(d + k, "\"]", 2);
		out_advance(o, k + 2);
		return;
	}
	KEY(o, ",\"vm_flags\":[");
	while (s < e) {
		const char *t = s;
		while (s < e && *s != ' ')
			s++;
		if (!first)
			out_ch(o, ',');
		out_json_str(o, t, (size_t)(s - t));
		first = 0;
		while (s < e && *s == ' ')
			s++;
	}
	out_ch(o, ']');
}

static void mapping(struct writer *w, const struct pmaps_mapping *m)
{
	struct out *o = w->o;
	char *d;
	size_t n;

	open_record(w);
	/* The fixed part in one piece: at most 160 bytes. */
	d = out_reserve(o, 200);
	memcpy(d, "\"start\":\"0x", 11);
	n = 11 + fmt_hex(d + 11, m->start, 1);
	memcpy(d + n, "\",\"end\":\"0x", 11);
	n += 11;
	n += fmt_hex(d + n, m->end, 1);
	memcpy(d + n, "\",\"perms\":\"", 11);
	n += 11;
	w_perms(d + n, m->perms);
	n += 4;
	memcpy(d + n, "\",\"offset\":", 11);
	n += 11;
	n += fmt_u64(d + n, m->offset);
	memcpy(d + n, ",\"dev\":\"", 8);
	n += 8;
	n += fmt_hex(d + n, m->dev_major, 2);
	d[n++] = ':';
	n += fmt_hex(d + n, m->dev_minor, 2);
	memcpy(d + n, "\",\"inode\":", 10);
	n += 10;
	n += fmt_u64(d + n, m->inode);
	memcpy(d + n, ",\"kind\":\"", 9);
	n += 9;
	out_advance(o, n);
	out_str(o, pmaps_kind_name(m->kind));
	KEY(o, "\",");
	out_json_named(o, "path", 4, m->path.ptr, m->path.len);
	if (m->flags & PMAPS_ROW_DELETED)
		KEY(o, ",\"deleted\":true");
	if (m->flags & PMAPS_ROW_PATH_TRUNCATED)
		KEY(o, ",\"path_truncated\":true");
	if (m->flags & PMAPS_ROW_OVERLAP)
		KEY(o, ",\"overlaps_previous\":true");
	if (m->flags & (PMAPS_ROW_LINE_TRUNCATED | PMAPS_ROW_UNKNOWN_DROPPED |
	                PMAPS_ROW_VMFLAGS_TRUNCATED))
		KEY(o, ",\"fields_truncated\":true");
	fields(o, m->v, m->present);
	if (w->d->measured)
		measured_mapping(o, m);
	if (m->vm_flags_text.len || (m->vm_flags & (1ull << PMAPS_VM_UNKNOWN)))
		vm_flags(o, m->vm_flags_text.ptr, m->vm_flags_text.len);
	for (unsigned i = 0; i < m->n_unknown; i++) {
		const struct pmaps_unknown *u = &m->unknown[i];
		out_ch(o, ',');
		snake_key(o, u->name.ptr, u->name.len);
		out_ch(o, ':');
		if (u->is_number)
			out_u64(o, u->value);
		else
			out_json_str(o, u->text.ptr, u->text.len);
	}
	close_record(w);
}

static void group(struct writer *w, const struct pmaps_group_row *g)
{
	struct out *o = w->o;
	enum doc_kind kind = w->d->kind;
	uint64_t v;

	if (kind == DOC_TOTAL && !jsonl(w))
		out_ch(o, '{');
	else
		open_record(w);
	if (kind == DOC_TOTAL && jsonl(w)) {
		KEY(o, "\"source\":");
		out_json_str(o, g->key.ptr, g->key.len);
		out_ch(o, ',');
	}
	if (kind == DOC_GROUPS && w->d->by == PMAPS_GROUP_PATH) {
		path(o, g->key.ptr, g->key.len, (g->flags & PMAPS_GROUP_PATH_TRUNCATED) != 0);
		out_ch(o, ',');
	}
	if (kind == DOC_GROUPS) {
		KEY(o, "\"kind\":\"");
		out_str(o, pmaps_group_kind_name(g));
		KEY(o, "\",");
	}
	if (kind == DOC_GROUPS && w->d->by == PMAPS_GROUP_PATH) {
		int first = 1;
		KEY(o, "\"kinds\":[");
		for (int k = 0; k < PMAPS_KIND_COUNT; k++) {
			if (!(g->kinds & (1u << k)))
				continue;
			if (!first)
				out_ch(o, ',');
			out_ch(o, '"');
			out_str(o, pmaps_kind_name((enum pmaps_kind)k));
			out_ch(o, '"');
			first = 0;
		}
		KEY(o, "],");
	}
	/* smaps_rollup's row, the kernel's own sum, has no mapping count and no vsize. */
	if (pmaps_group_value(g, PMAPS_V_MAPPINGS, &v) == 1) {
		KEY(o, "\"mappings\":");
		out_u64(o, v);
		if (pmaps_group_value(g, PMAPS_V_VSIZE, &v) == 1)
			key_u64(o, COL_VSIZE, v);
	} else {
		KEY(o, "\"mappings\":null");
	}
	fields(o, g->v, g->present);
	if (w->d->measured)
		measured_group(o, g);
	if (kind == DOC_TOTAL && !jsonl(w))
		out_ch(o, '}');
	else
		close_record(w);
}

/* The start and end of a page run or summary: "start":"0x..","end":"0x.." */
static void span(struct out *o, uint64_t start, uint64_t end)
{
	KEY(o, "\"start\":\"");
	out_0x(o, start);
	KEY(o, "\",\"end\":\"");
	out_0x(o, end);
	out_ch(o, '"');
}

/* The mapping a run or summary belongs to: ,"kind":..,"path":.. */
static void of_mapping(struct out *o, const struct pmaps_mapping *m)
{
	KEY(o, ",\"kind\":\"");
	out_str(o, pmaps_kind_name(m->kind));
	KEY(o, "\",");
	path(o, m->path.ptr, m->path.len, (m->flags & PMAPS_ROW_PATH_TRUNCATED) != 0);
}

static void run(struct writer *w, const struct pmaps_page_range *r, const struct pmaps_mapping *m)
{
	struct out *o = w->o;

	open_record(w);
	span(o, r->start, r->end);
	key_u64(o, COL_PAGES, pmaps_page_range_pages(r));
	if (w->d->by_state) {
		KEY(o, ",\"state\":\"");
		out_str(o, pmaps_page_state_key(pmaps_page_state_of(r, m->kind)));
		out_ch(o, '"');
		of_mapping(o, m);
		close_record(w);
		return;
	}
	KEY(o, ",\"flags\":");
	flag_array(o, r->flags, w_page_flag_name);
	if (w->d->kpage && (r->flags & PMAPS_PG_PRESENT)) {
		key_u64(o, COL_MAPCOUNT, r->mapcount);
		KEY(o, ",\"kflags\":");
		flag_array(o, r->kflags, pmaps_kpage_flag_name);
		if (w->d->pfn) {
			KEY(o, ",\"pfn\":\"");
			out_0x(o, r->pfn);
			out_ch(o, '"');
		}
	}
	of_mapping(o, m);
	close_record(w);
}

static void summary(struct writer *w, const struct pmaps_page_summary *s,
                    const struct pmaps_mapping *m)
{
	struct out *o = w->o;

	open_record(w);
	span(o, s->start, s->end);
	for (int k = 0; k < PMAPS_PC_COUNT; k++)
		if (s->known & (1ull << k))
			key_u64(o, COL_PC0 + k, s->n[k]);
	of_mapping(o, m);
	close_record(w);
}

static void status_json(struct out *o, const struct pmaps_status *st)
{
	static const enum pmaps_status_field shown[] = {
		PMAPS_ST_VM_RSS, PMAPS_ST_RSS_ANON, PMAPS_ST_RSS_FILE, PMAPS_ST_RSS_SHMEM,
		PMAPS_ST_VM_HWM, PMAPS_ST_VM_PTE, PMAPS_ST_VM_SWAP};

	int first = 1;

	KEY(o, ",\"status\":{");
	for (size_t i = 0; i < sizeof(shown) / sizeof(shown[0]); i++) {
		if (!((st->present >> shown[i]) & 1))
			continue; /* not printed by this kernel: absent, never 0 */
		if (!first)
			out_ch(o, ',');
		first = 0;
		out_json_str(o, pmaps_status_key(shown[i]), strlen(pmaps_status_key(shown[i])));
		out_ch(o, ':');
		out_u64(o, st->v[shown[i]]);
	}
	out_ch(o, '}');
}

/* Whether the explain result's source knows state column C. */
#define XKNOWN(x, c) (((x)->xc_known >> (c)) & 1)

/*
 * ,"key":V of state column COL (COL_XC0 + enum pmaps_xcol) of V, category
 * CAT's (-1: the total), when the source knows it.
 */
static void xcol(struct out *o, const struct pmaps_explain *x, int cat, int col,
                 const uint64_t *v)
{
	int c = col - COL_XC0;

	if (pmaps_explain_known(x, cat, (enum pmaps_xcol)c))
		key_u64(o, col, v[c]);
}

/*
 * Category K's object of an array: its comma (unless *FIRST), NL, and its
 * name. Returns 0 for a category holding no mapping, which is left out.
 */
static int category_open(struct out *o, const struct pmaps_explain *x, int k, int *first,
                         const char *nl)
{
	if (!x->mappings[k])
		return 0;
	if (!*first)
		out_ch(o, ',');
	out_str(o, nl);
	*first = 0;
	KEY(o, "{\"category\":\"");
	out_str(o, pmaps_xcat_name((enum pmaps_xcat)k));
	out_ch(o, '"');
	return 1;
}

void w_wss_json(struct out *o, const struct pmaps_wss_result *r, int largest)
{
	const struct pmaps_explain *x = r->x;

	KEY(o, "\"working_set\":{\"method\":\"");
	out_str(o, pmaps_wss_method_name(r->method));
	KEY(o, "\",\"reset_at_ns\":");
	out_u64(o, r->reset_at_ns);
	KEY(o, ",\"reset_took_ns\":");
	out_u64(o, r->reset_took_ns);
	KEY(o, ",\"since_reset_start_ns\":");
	out_u64(o, r->since_start_ns);
	KEY(o, ",\"since_reset_end_ns\":");
	out_u64(o, r->since_end_ns);
	KEY(o, ",\"resident\":");
	out_u64(o, x->total[PMAPS_XC_RSS]);
	KEY(o, ",\"touched\":");
	out_u64(o, x->referenced_total);
	KEY(o, ",\"categories\":[");
	for (int k = 0, first = 1; k < PMAPS_X_COUNT; k++) {
		if (!category_open(o, x, k, &first, ""))
			continue;
		KEY(o, ",\"resident\":");
		out_u64(o, x->v[k][PMAPS_XC_RSS]);
		KEY(o, ",\"touched\":");
		out_u64(o, x->referenced[k]);
		out_ch(o, '}');
	}
	out_ch(o, ']');
	if (largest) {
		KEY(o, ",\"largest\":[");
		for (unsigned i = 0; i < x->ntop; i++) {
			const struct pmaps_explain_top *t = &x->top[i];
			if (i)
				out_ch(o, ',');
			out_ch(o, '{');
			span(o, t->start, t->end);
			KEY(o, ",\"category\":\"");
			out_str(o, pmaps_xcat_name(t->cat));
			KEY(o, "\",");
			path(o, t->path, t->path_len, t->path_truncated);
			KEY(o, ",\"resident\":");
			out_u64(o, t->rss);
			KEY(o, ",\"touched\":");
			out_u64(o, x->top_referenced[i]);
			out_ch(o, '}');
		}
		out_ch(o, ']');
	}
	out_ch(o, '}');
}

static void explain(struct writer *w, const struct pmaps_explain *x)
{
	const char *nl = jsonl(w) ? "" : "\n";
	struct out *o = w->o;

	if (jsonl(w)) {
		/* A record of the stream: "pid" first, as every line has it. */
		out_mem(o, w->lead, w->lead_len);
		KEY(o, "\"pmaps_version\":\"" PMAPS_VERSION "\"");
	} else {
		KEY(o, "{\"pmaps_version\":\"" PMAPS_VERSION "\",\"pid\":");
		out_u64(o, (uint64_t)w->d->pid);
	}
	KEY(o, ",\"source\":\"");
	out_str(o, pmaps_source_name(x->source));
	out_ch(o, '"');
	if (w->d->choice)
		source_choice(o, w->d->choice);
	if (w->d->kernel_thread)
		KEY(o, ",\"kernel_thread\":true");
	/* The totals the source knows: an unknown figure is an absent key, never 0. */
	xcol(o, x, -1, COL_XC0 + PMAPS_XC_RSS, x->total);
	if (XKNOWN(x, PMAPS_XC_LAZYFREE)) {
		KEY(o, ",\"effective_rss\":");
		out_u64(o, x->effective_rss);
	}
	xcol(o, x, -1, COL_XC0 + PMAPS_XC_PSS, x->total);
	if (XKNOWN(x, PMAPS_XC_PRIVATE)) {
		KEY(o, ",\"uss\":");
		out_u64(o, x->uss);
	}
	xcol(o, x, -1, COL_XC0 + PMAPS_XC_SWAP, x->total);
	xcol(o, x, -1, COL_XC0 + PMAPS_XC_SWAP_PSS, x->total);
	KEY(o, ",\"mappings\":");
	out_u64(o, x->nmappings);
	if (x->status.present)
		status_json(o, &x->status);
	if (x->have_rollup) {
		KEY(o, ",\"smaps_rollup\":{\"rss\":");
		out_u64(o, x->rollup[PMAPS_F_RSS]);
		key_u64(o, PMAPS_F_PSS, x->rollup[PMAPS_F_PSS]);
		key_u64(o, PMAPS_F_LAZY_FREE, x->rollup[PMAPS_F_LAZY_FREE]);
		key_u64(o, PMAPS_F_SWAP, x->rollup[PMAPS_F_SWAP]);
		out_ch(o, '}');
	}
	if (x->runtime_kind != PMAPS_RUNTIME_NONE) {
		KEY(o, ",\"runtime\":{\"name\":\"");
		out_str(o, pmaps_runtime_name(x->runtime_kind));
		KEY(o, "\",");
		out_json_named(o, "version", 7, x->runtime_version, strlen(x->runtime_version));
		out_ch(o, ',');
		out_json_named(o, "evidence", 8, x->runtime_evidence, strlen(x->runtime_evidence));
		if (x->runtime_kind == PMAPS_RUNTIME_GO) {
			KEY(o, ",\"heap_labels\":");
			out_u64(o, x->go_labels);
		}
		if (x->jvm_heap_end) {
			KEY(o, ",\"heap_start\":");
			out_u64(o, x->jvm_heap_start);
			KEY(o, ",\"heap_end\":");
			out_u64(o, x->jvm_heap_end);
		}
		out_ch(o, '}');
	}
	KEY(o, ",\"glibc_arenas\":");
	out_u64(o, x->arenas);
	KEY(o, ",\"threads\":{\"count\":");
	out_u64(o, x->threads);
	KEY(o, ",\"stacks_found\":");
	out_u64(o, x->stacks_found);
	KEY(o, ",\"stacks_guessed\":");
	out_u64(o, x->stacks_guessed);
	KEY(o, "},\"categories\":[");
	for (int k = 0, first = 1; k < PMAPS_X_COUNT; k++) {
		if (!category_open(o, x, k, &first, nl))
			continue;
		key_u64(o, COL_XMAPS, x->mappings[k]);
		for (int c = 0; c < PMAPS_XC_COUNT; c++)
			xcol(o, x, k, COL_XC0 + c, x->v[k]);
		out_ch(o, '}');
	}
	out_str(o, nl);
	out_ch(o, ']');
	if (x->pages) {
		KEY(o, ",\"pages\":{\"strategy\":\"");
		out_str(o, w_strategy_key(x->pages_strategy));
		if (x->pages_kpage == 1)
			KEY(o, "\",\"kpageflags\":true,\"categories\":[");
		else
			KEY(o, "\",\"kpageflags\":false,\"categories\":[");
		for (int k = 0, first = 1; k < PMAPS_X_COUNT; k++) {
			if (!category_open(o, x, k, &first, ""))
				continue;
			for (int c = 0; c < PMAPS_XP_COUNT; c++)
				if (x->pages_known & (1u << c))
					key_u64(o, COL_XP0 + c, x->pg[k][c]);
			out_ch(o, '}');
		}
		KEY(o, "]}");
	}
	KEY(o, ",\"notes\":[");
	for (unsigned i = 0; i < x->nnotes; i++) {
		const struct pmaps_note *nt = &x->notes[i];
		if (i)
			out_ch(o, ',');
		KEY(o, "{\"note\":\"");
		out_str(o, pmaps_note_key(nt->kind));
		out_ch(o, '"');
		for (unsigned k = 0; k < 2 && pmaps_note_value_key(nt->kind, k); k++) {
			KEY(o, ",\"");
			out_str(o, pmaps_note_value_key(nt->kind, k));
			KEY(o, "\":");
			out_u64(o, nt->n[k]);
		}
		out_ch(o, '}');
	}
	out_ch(o, ']');
	KEY(o, ",\"largest\":[");
	for (unsigned i = 0; i < x->ntop; i++) {
		const struct pmaps_explain_top *t = &x->top[i];
		if (i)
			out_ch(o, ',');
		out_str(o, nl);
		out_ch(o, '{');
		span(o, t->start, t->end);
		key_u64(o, PMAPS_F_RSS, t->rss);
		if (w->d->wss) {
			KEY(o, ",\"touched\":");
			out_u64(o, x->top_referenced[i]);
		}
		KEY(o, ",\"category\":\"");
		out_str(o, pmaps_xcat_name(t->cat));
		KEY(o, "\",");
		path(o, t->path, t->path_len, t->path_truncated);
		out_ch(o, '}');
	}
	out_str(o, nl);
	out_ch(o, ']');
	if (w->d->wss) {
		out_ch(o, ',');
		w_wss_json(o, w->d->wss, 0);
	}
	if (w->d->books && books_asked(w->d->books)) {
		KEY(o, ",\"runtime_books\":");
		books_write_json(o, w->d->books, w->d->join);
	}
	KEY(o, "}\n");
}

static void end(struct writer *w, const char *error)
{
	struct out *o = w->o;
	enum doc_kind kind = w->d->kind;

	if (jsonl(w)) {
		if (error && kind == DOC_PROCS) {
			KEY(o, "{\"refresh\":");
			out_u64(o, w->d->stats ? w->d->stats->refreshes : 0);
			out_ch(o, ',');
			out_json_named(o, "error", 5, error, strlen(error));
			KEY(o, "}\n");
		} else if (error) {
			out_mem(o, w->lead, w->lead_len);
			out_json_named(o, "error", 5, error, strlen(error));
			KEY(o, "}\n");
		}
		return;
	}
	if (kind == DOC_EXPLAIN) {
		/* The result is the whole document; a failed run's says why. */
		if (error) {
			KEY(o, "{\"pmaps_version\":\"" PMAPS_VERSION "\",\"pid\":");
			out_u64(o, (uint64_t)w->d->pid);
			out_ch(o, ',');
			out_json_named(o, "error", 5, error, strlen(error));
			KEY(o, "}\n");
		}
		return;
	}
	if (kind == DOC_TOTAL) {
		if (!w->rows)
			KEY(o, "null");
	} else {
		KEY(o, "\n]");
	}
	if (w->trailer)
		out_mem(o, w->trailer, strlen(w->trailer));
	if (error) {
		out_ch(o, ',');
		out_json_named(o, "error", 5, error, strlen(error));
	}
	KEY(o, "}\n");
}

const struct writer_ops out_json_ops = {begin, mapping, group, run, summary, explain, proc, end};
