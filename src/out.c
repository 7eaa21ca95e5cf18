/* SPDX-License-Identifier: MIT */
/*
 * out.c - mapping and group rows as an aligned table, JSON or CSV.
 *
 * Rows are written as they arrive (no buffering of the whole process), so a
 * 60k-mapping process costs the same memory as a small one. A field the
 * kernel did not report shows as "-" in a table, an empty CSV cell and an
 * absent JSON key: never as 0.
 */
#include <string.h>

#include "render.h"

/* Short table titles; JSON and CSV use the snake_case keys. */
static const char *const field_titles[PMAPS_F_COUNT] = {
	[PMAPS_F_SIZE] = "Size",
	[PMAPS_F_KERNEL_PAGE_SIZE] = "KPageSz",
	[PMAPS_F_MMU_PAGE_SIZE] = "MMUPageSz",
	[PMAPS_F_RSS] = "Rss",
	[PMAPS_F_PSS] = "Pss",
	[PMAPS_F_PSS_DIRTY] = "PssDirty",
	[PMAPS_F_PSS_ANON] = "PssAnon",
	[PMAPS_F_PSS_FILE] = "PssFile",
	[PMAPS_F_PSS_SHMEM] = "PssShmem",
	[PMAPS_F_SHARED_CLEAN] = "ShClean",
	[PMAPS_F_SHARED_DIRTY] = "ShDirty",
	[PMAPS_F_PRIVATE_CLEAN] = "PrClean",
	[PMAPS_F_PRIVATE_DIRTY] = "PrDirty",
	[PMAPS_F_REFERENCED] = "Refd",
	[PMAPS_F_ANONYMOUS] = "Anon",
	[PMAPS_F_KSM] = "KSM",
	[PMAPS_F_LAZY_FREE] = "LazyFree",
	[PMAPS_F_ANON_HUGE_PAGES] = "AnonHuge",
	[PMAPS_F_SHMEM_PMD_MAPPED] = "ShmemPmd",
	[PMAPS_F_FILE_PMD_MAPPED] = "FilePmd",
	[PMAPS_F_SHARED_HUGETLB] = "ShHugetlb",
	[PMAPS_F_PRIVATE_HUGETLB] = "PrHugetlb",
	[PMAPS_F_SWAP] = "Swap",
	[PMAPS_F_SWAP_PSS] = "SwapPss",
	[PMAPS_F_LOCKED] = "Locked",
	[PMAPS_F_THP_ELIGIBLE] = "THPelig",
	[PMAPS_F_PROTECTION_KEY] = "PKey",
};

static const char *col_title(int c)
{
	switch (c) {
	case COL_ADDRESS: return "Address";
	case COL_START: return "Start";
	case COL_END: return "End";
	case COL_PERMS: return "Perm";
	case COL_OFFSET: return "Offset";
	case COL_DEV: return "Dev";
	case COL_INODE: return "Inode";
	case COL_KIND: return "Kind";
	case COL_SHARED: return "Shared";
	case COL_MAPPINGS: return "Maps";
	case COL_VSIZE: return "VSize";
	case COL_VMFLAGS: return "VmFlags";
	case COL_PATH: return "Path";
	default: return field_titles[c];
	}
}

static size_t col_width(int c)
{
	size_t t = strlen(col_title(c));
	size_t w;

	switch (c) {
	case COL_ADDRESS: w = 25; break;
	case COL_START: case COL_END: w = 12; break;
	case COL_PERMS: w = 4; break;
	case COL_OFFSET: w = 8; break;
	case COL_DEV: w = 5; break;
	case COL_INODE: w = 9; break;
	case COL_KIND: w = 10; break;
	case COL_MAPPINGS: w = 6; break;
	case COL_VMFLAGS: w = 30; break;
	case COL_PATH: w = 0; break;
	default: w = 7;
	}
	return t > w ? t : w;
}

static int col_left(int c)
{
	return c == COL_ADDRESS || c == COL_START || c == COL_END || c == COL_PERMS || c == COL_DEV ||
	       c == COL_KIND || c == COL_VMFLAGS || c == COL_PATH || c == COL_OFFSET;
}

/* A view of either row type, so one function writes both. */
struct cells {
	const struct pmaps_mapping *m;   /* or NULL */
	const struct pmaps_group_row *g; /* or NULL */
	enum pmaps_group_by by;
};

static uint64_t cell_present(const struct cells *x)
{
	return x->m ? x->m->present : x->g->present;
}

static const uint64_t *cell_v(const struct cells *x)
{
	return x->m ? x->m->v : x->g->v;
}

static void perms_str(char *p, unsigned perms)
{
	p[0] = perms & PMAPS_PERM_READ ? 'r' : '-';
	p[1] = perms & PMAPS_PERM_WRITE ? 'w' : '-';
	p[2] = perms & PMAPS_PERM_EXEC ? 'x' : '-';
	p[3] = perms & PMAPS_PERM_SHARED ? 's' : 'p';
	p[4] = '\0';
}

static size_t hex_str(char *d, uint64_t v, int min)
{
	static const char digits[] = "0123456789abcdef";
	size_t n = v ? (size_t)(67 - __builtin_clzll(v)) / 4 : 1;

	if (n < (size_t)min)
		n = (size_t)min;
	d[n] = '\0';
	for (size_t i = n; i > 0; i--, v >>= 4)
		d[i - 1] = digits[v & 15];
	return n;
}

/* A path group's members can differ: "file" when all are file-backed, else "mixed". */
static const char *group_kind(const struct pmaps_group_row *g)
{
	const uint32_t file = 1u << PMAPS_KIND_FILE_TEXT | 1u << PMAPS_KIND_FILE_DATA |
	                      1u << PMAPS_KIND_FILE_RO | 1u << PMAPS_KIND_GUARD;

	if (!g->kinds || (g->kinds & (g->kinds - 1)) == 0)
		return pmaps_kind_name(g->kind);
	return (g->kinds & ~file) == 0 ? "file" : "mixed";
}

/* The path or group key. */
static struct pmaps_view cell_key(const struct cells *x)
{
	if (x->m)
		return x->m->path;
	return x->g->key;
}

static void table_cell(struct render *r, const struct cells *x, int c, int last)
{
	struct out *o = r->o;
	const struct pmaps_mapping *m = x->m;
	char b[48];
	size_t n = 0, w = r->width[c];

	switch (c) {
	case COL_ADDRESS:
		n = hex_str(b, m->start, 12);
		b[n++] = '-';
		n += hex_str(b + n, m->end, 12);
		break;
	case COL_START: n = hex_str(b, m->start, 12); break;
	case COL_END: n = hex_str(b, m->end, 12); break;
	case COL_PERMS: perms_str(b, m->perms); n = 4; break;
	case COL_OFFSET: n = hex_str(b, m->offset, 8); break;
	case COL_DEV:
		n = hex_str(b, m->dev_major, 2);
		b[n++] = ':';
		n += hex_str(b + n, m->dev_minor, 2);
		break;
	case COL_INODE: n = fmt_u64(b, m->inode); break;
	case COL_KIND: {
		const char *k = m ? pmaps_kind_name(m->kind) : group_kind(x->g);
		n = strlen(k);
		memcpy(b, k, n);
		break;
	}
	case COL_MAPPINGS:
	case COL_VSIZE: {
		uint64_t v = x->g ? (c == COL_MAPPINGS ? x->g->mappings : x->g->vsize)
		                  : (c == COL_MAPPINGS ? 1 : m->end - m->start);
		if (x->g && x->g->mappings == 0) {
			b[0] = '-';
			n = 1;
		} else if (c == COL_VSIZE && r->opt->human) {
			n = fmt_human(b, v);
		} else {
			n = fmt_u64(b, v);
		}
		break;
	}
	case COL_VMFLAGS:
		if (m && m->vm_flags_text.len) {
			/* The kernel's codes are plain letters; a fixture's text may be anything. */
			char e[1028]; /* the library keeps at most 255 bytes of it */
			size_t k = esc_text(e, sizeof(e), m->vm_flags_text.ptr, m->vm_flags_text.len);
			out_ljust(o, e, k, last ? 0 : w);
		} else {
			out_ljust(o, "-", 1, last ? 0 : w);
		}
		return;
	case COL_PATH: {
		struct pmaps_view k = cell_key(x);
		if (x->g && x->by == PMAPS_GROUP_PATH && k.len == 0)
			out_str(o, "[anon]");
		else
			out_table_str(o, k.ptr, k.len);
		/* A path cut to fit the reader's buffer: never shown as whole. */
		if ((x->m && (x->m->flags & PMAPS_ROW_PATH_TRUNCATED)) ||
		    (x->g && (x->g->flags & PMAPS_GROUP_PATH_TRUNCATED)))
			out_str(o, "...");
		return;
	}
	case COL_SHARED: {
		uint64_t p = cell_present(x);
		const uint64_t *v = cell_v(x);
		if (!(p & (1ull << PMAPS_F_SHARED_CLEAN | 1ull << PMAPS_F_SHARED_DIRTY))) {
			b[0] = '-';
			n = 1;
		} else {
			uint64_t s = v[PMAPS_F_SHARED_CLEAN] + v[PMAPS_F_SHARED_DIRTY];
			n = r->opt->human ? fmt_human(b, s) : fmt_u64(b, s);
		}
		break;
	}
	default:
		if (!(cell_present(x) & (1ull << c))) {
			b[0] = '-';
			n = 1;
		} else if (r->opt->human && pmaps_field_is_size((enum pmaps_field)c)) {
			n = fmt_human(b, cell_v(x)[c]);
		} else {
			n = fmt_u64(b, cell_v(x)[c]);
		}
	}
	if (col_left(c))
		out_ljust(o, b, n, last ? 0 : w);
	else
		out_rjust(o, b, n, w);
}

static void csv_cell(struct render *r, const struct cells *x, int c)
{
	struct out *o = r->o;
	const struct pmaps_mapping *m = x->m;
	char b[48];

	switch (c) {
	case COL_ADDRESS:
		out_str(o, "0x");
		out_hex(o, m->start, 1);
		out_str(o, "-0x");
		out_hex(o, m->end, 1);
		return;
	case COL_START: out_str(o, "0x"); out_hex(o, m->start, 1); return;
	case COL_END: out_str(o, "0x"); out_hex(o, m->end, 1); return;
	case COL_PERMS: perms_str(b, m->perms); out_str(o, b); return;
	case COL_OFFSET: out_u64(o, m->offset); return;
	case COL_DEV:
		out_hex(o, m->dev_major, 2);
		out_ch(o, ':');
		out_hex(o, m->dev_minor, 2);
		return;
	case COL_INODE: out_u64(o, m->inode); return;
	case COL_KIND: out_str(o, m ? pmaps_kind_name(m->kind) : group_kind(x->g)); return;
	case COL_MAPPINGS:
		if (!x->g || x->g->mappings)
			out_u64(o, x->g ? x->g->mappings : 1);
		return;
	case COL_VSIZE:
		if (!x->g || x->g->mappings)
			out_u64(o, x->g ? x->g->vsize : m->end - m->start);
		return;
	case COL_VMFLAGS:
		if (m)
			out_csv_str(o, m->vm_flags_text.ptr, m->vm_flags_text.len);
		return;
	case COL_PATH: {
		struct pmaps_view k = cell_key(x);
		out_csv_str(o, k.ptr, k.len);
		return;
	}
	case COL_SHARED:
		if (cell_present(x) & (1ull << PMAPS_F_SHARED_CLEAN | 1ull << PMAPS_F_SHARED_DIRTY))
			out_u64(o, cell_v(x)[PMAPS_F_SHARED_CLEAN] + cell_v(x)[PMAPS_F_SHARED_DIRTY]);
		return;
	default:
		if (cell_present(x) & (1ull << c))
			out_u64(o, cell_v(x)[c]);
	}
}

/* "AnonHugePages" -> "anon_huge_pages", for fields the library does not know. */
static void out_snake(struct out *o, const char *s, size_t n)
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

static void json_key(struct out *o, const char *k)
{
	out_ch(o, ',');
	out_ch(o, '"');
	out_str(o, k);
	out_str(o, "\":");
}

static void json_fields(struct out *o, const uint64_t *v, uint64_t present)
{
	for (int f = 0; f < PMAPS_F_COUNT; f++) {
		if (!(present & (1ull << f)))
			continue;
		json_key(o, pmaps_field_key((enum pmaps_field)f));
		out_u64(o, v[f]);
	}
}

static void json_mapping(struct render *r, const struct pmaps_mapping *m)
{
	struct out *o = r->o;
	char p[5];

	out_str(o, "{\"start\":\"0x");
	out_hex(o, m->start, 1);
	out_str(o, "\",\"end\":\"0x");
	out_hex(o, m->end, 1);
	out_str(o, "\",\"perms\":\"");
	perms_str(p, m->perms);
	out_str(o, p);
	out_key_u64(o, "\",\"offset\":", m->offset);
	out_str(o, ",\"dev\":\"");
	out_hex(o, m->dev_major, 2);
	out_ch(o, ':');
	out_hex(o, m->dev_minor, 2);
	out_key_u64(o, "\",\"inode\":", m->inode);
	out_str(o, ",\"kind\":\"");
	out_str(o, pmaps_kind_name(m->kind));
	out_str(o, "\",");
	out_json_named(o, "path", m->path.ptr, m->path.len);
	if (m->flags & PMAPS_ROW_DELETED)
		out_str(o, ",\"deleted\":true");
	if (m->flags & PMAPS_ROW_PATH_TRUNCATED)
		out_str(o, ",\"path_truncated\":true");
	if (m->flags & PMAPS_ROW_OVERLAP)
		out_str(o, ",\"overlaps_previous\":true");
	if (m->flags & (PMAPS_ROW_LINE_TRUNCATED | PMAPS_ROW_UNKNOWN_DROPPED |
	                PMAPS_ROW_VMFLAGS_TRUNCATED))
		out_str(o, ",\"fields_truncated\":true");
	json_fields(o, m->v, m->present);
	if (m->vm_flags_text.len || (m->vm_flags & (1ull << PMAPS_VM_UNKNOWN))) {
		const char *s = m->vm_flags_text.ptr, *e = s + m->vm_flags_text.len;
		int first = 1;
		out_str(o, ",\"vm_flags\":[");
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
	for (unsigned i = 0; i < m->n_unknown; i++) {
		const struct pmaps_unknown *u = &m->unknown[i];
		out_ch(o, ',');
		out_snake(o, u->name.ptr, u->name.len);
		out_ch(o, ':');
		if (u->is_number)
			out_u64(o, u->value);
		else
			out_json_str(o, u->text.ptr, u->text.len);
	}
	out_ch(o, '}');
}

static void json_group(struct render *r, const struct pmaps_group_row *g, enum pmaps_group_by by)
{
	struct out *o = r->o;

	out_ch(o, '{');
	if (by == PMAPS_GROUP_PATH) {
		out_json_named(o, "path", g->key.ptr, g->key.len);
		if (g->flags & PMAPS_GROUP_PATH_TRUNCATED)
			out_str(o, ",\"path_truncated\":true");
		out_ch(o, ',');
	}
	if (by != PMAPS_GROUP_TOTAL) {
		out_str(o, "\"kind\":\"");
		out_str(o, group_kind(g));
		out_str(o, "\",");
	}
	if (by == PMAPS_GROUP_PATH) {
		int first = 1;
		out_str(o, "\"kinds\":[");
		for (int k = 0; k < PMAPS_KIND_COUNT; k++) {
			if (!(g->kinds & (1u << k)))
				continue;
			out_str(o, first ? "\"" : ",\"");
			out_str(o, pmaps_kind_name((enum pmaps_kind)k));
			out_ch(o, '"');
			first = 0;
		}
		out_str(o, "],");
	}
	/* A total read from smaps_rollup has no mapping count. */
	if (g->mappings) {
		out_key_u64(o, "\"mappings\":", g->mappings);
		out_key_u64(o, ",\"vsize\":", g->vsize);
	} else {
		out_str(o, "\"mappings\":null");
	}
	json_fields(o, g->v, g->present);
	out_ch(o, '}');
}

void render_begin(struct render *r, struct out *o, const struct maps_opts *opt, int pid,
                  const char *source, int grouped)
{
	r->o = o;
	r->opt = opt;
	r->rows = 0;
	r->grouped = grouped;
	for (int c = 0; c < COL_COUNT; c++)
		r->width[c] = col_width(c);
	if (opt->fmt == FMT_JSON) {
		out_str(o, "{\"pmaps_version\":\"" PMAPS_VERSION "\",\"pid\":");
		out_u64(o, (uint64_t)pid);
		out_str(o, ",\"source\":\"");
		out_str(o, source);
		out_str(o, "\",\"group\":\"");
		out_str(o, opt->group < 0 ? "none"
		           : opt->group == PMAPS_GROUP_PATH ? "path"
		           : opt->group == PMAPS_GROUP_KIND ? "kind" : "total");
		out_str(o, opt->group == PMAPS_GROUP_TOTAL ? "\",\"total\":" : grouped ? "\",\"groups\":[" : "\",\"mappings\":[");
		return;
	}
	if (opt->title) {
		out_str(o, opt->title);
		out_ch(o, '\n');
	}
	for (int i = 0; i < opt->ncols; i++) {
		int c = opt->cols[i];
		if (opt->fmt == FMT_CSV) {
			if (i)
				out_ch(o, ',');
			if (grouped && c == COL_PATH && opt->group == PMAPS_GROUP_KIND)
				continue;
			out_str(o, grouped && c == COL_PATH && opt->group == PMAPS_GROUP_TOTAL
			               ? "source" : col_name(c));
			continue;
		}
		if (i)
			out_ch(o, ' ');
		const char *t = col_title(c);
		if (grouped && c == COL_PATH && opt->group == PMAPS_GROUP_TOTAL)
			t = "Source";
		if (grouped && c == COL_PATH && opt->group == PMAPS_GROUP_KIND)
			t = "";
		if (col_left(c))
			out_ljust(o, t, strlen(t), i + 1 == opt->ncols ? 0 : col_width(c));
		else
			out_rjust(o, t, strlen(t), col_width(c));
	}
	out_ch(o, '\n');
}

static void row_cells(struct render *r, const struct cells *x)
{
	const struct maps_opts *opt = r->opt;

	for (int i = 0; i < opt->ncols; i++) {
		int c = opt->cols[i];
		if (opt->fmt == FMT_CSV) {
			if (i)
				out_ch(r->o, ',');
			if (x->g && c == COL_PATH && x->by == PMAPS_GROUP_KIND)
				continue;
			csv_cell(r, x, c);
		} else {
			if (i)
				out_ch(r->o, ' ');
			if (x->g && c == COL_PATH && x->by == PMAPS_GROUP_KIND)
				continue;
			table_cell(r, x, c, i + 1 == opt->ncols);
		}
	}
	out_ch(r->o, '\n');
}

void render_mapping(struct render *r, const struct pmaps_mapping *m)
{
	struct cells x = {m, NULL, PMAPS_GROUP_TOTAL};

	if (r->opt->fmt == FMT_JSON) {
		if (r->rows)
			out_ch(r->o, ',');
		out_ch(r->o, '\n');
		json_mapping(r, m);
	} else {
		row_cells(r, &x);
	}
	r->rows++;
}

void render_group(struct render *r, const struct pmaps_group_row *g, enum pmaps_group_by by)
{
	struct cells x = {NULL, g, by};

	if (r->opt->fmt == FMT_JSON) {
		if (by != PMAPS_GROUP_TOTAL) {
			if (r->rows)
				out_ch(r->o, ',');
			out_ch(r->o, '\n');
		}
		json_group(r, g, by);
	} else {
		row_cells(r, &x);
	}
	r->rows++;
}

void render_end(struct render *r, const char *error)
{
	struct out *o = r->o;

	if (r->opt->fmt != FMT_JSON)
		return;
	if (r->opt->group == PMAPS_GROUP_TOTAL) {
		if (!r->rows)
			out_str(o, "null");
	} else {
		out_str(o, "\n]");
	}
	if (error) {
		out_ch(o, ',');
		out_json_named(o, "error", error, strlen(error));
	}
	out_str(o, "}\n");
}
