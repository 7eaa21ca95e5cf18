/* SPDX-License-Identifier: MIT */
/*
 * sort.c - pmaps maps --sort.
 *
 * Sorting must not read /proc a second time (a second read could describe
 * another moment, or another program), so each row is kept, but only what the
 * output needs of it: a key to sort by and, packed as LEB128 varints in one
 * growing buffer, the start address and the values of the columns that will
 * be printed (JSON prints every field, so there it keeps them all). Paths go
 * to an arena of their own, each stored once while it is in a small cache
 * of recent paths: a library's segments, a file's many mappings and the
 * nameless ones share one copy. On 40k mappings the table's rows cost ~60
 * bytes each, where a copy of the library's row is ~1.1 KB.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "write/columns.h"
#include "write/sort.h"

static int buf_put(struct buf *b, const void *p, size_t n)
{
	if (n > b->cap - b->len) {
		size_t nc = b->cap ? b->cap : 65536;
		unsigned char *np;
		while (nc - b->len < n) {
			if (nc > SIZE_MAX / 2)
				return -ENOMEM;
			nc *= 2;
		}
		np = realloc(b->p, nc);
		if (!np)
			return -ENOMEM;
		b->p = np;
		b->cap = nc;
	}
	if (n)
		memcpy(b->p + b->len, p, n);
	b->len += n;
	return 0;
}

static int buf_varint(struct buf *b, uint64_t v)
{
	unsigned char t[10];
	size_t n = 0;

	do {
		t[n] = (unsigned char)(v & 0x7f);
		v >>= 7;
		t[n++] |= v ? 0x80 : 0;
	} while (v);
	return buf_put(b, t, n);
}

static int buf_bytes(struct buf *b, const char *s, size_t n)
{
	return buf_varint(b, n) ? -ENOMEM : buf_put(b, s, n);
}

static uint64_t get_varint(const unsigned char **p)
{
	uint64_t v = 0;
	unsigned sh = 0;

	for (;;) {
		unsigned char c = *(*p)++;
		v |= (uint64_t)(c & 0x7f) << sh;
		if (!(c & 0x80))
			return v;
		sh += 7;
	}
}

static struct pmaps_view get_bytes(const unsigned char **p)
{
	struct pmaps_view v;

	v.len = (size_t)get_varint(p);
	v.ptr = (const char *)*p;
	*p += v.len;
	return v;
}

static struct pmaps_view path_at(const struct sorter *s, size_t off)
{
	const unsigned char *p = s->paths.p + off;
	return get_bytes(&p);
}

void sorter_init(struct sorter *s, int col, int keep_all, const int *cols, int ncols)
{
	static const unsigned keep[COL_MAPS_END - PMAPS_F_COUNT] = {
		[COL_ADDRESS - PMAPS_F_COUNT] = KEEP_END, [COL_END - PMAPS_F_COUNT] = KEEP_END,
		[COL_VSIZE - PMAPS_F_COUNT] = KEEP_END, [COL_PERMS - PMAPS_F_COUNT] = KEEP_PERMS,
		[COL_OFFSET - PMAPS_F_COUNT] = KEEP_OFFSET, [COL_DEV - PMAPS_F_COUNT] = KEEP_DEV,
		[COL_INODE - PMAPS_F_COUNT] = KEEP_INODE, [COL_KIND - PMAPS_F_COUNT] = KEEP_KIND,
		[COL_PATH - PMAPS_F_COUNT] = KEEP_PATH, [COL_VMFLAGS - PMAPS_F_COUNT] = KEEP_VMFLAGS,
	};

	memset(s, 0, sizeof(*s));
	s->col = col;
	s->desc = col_sort_desc(col);
	if (keep_all) {
		s->keep = ~0u;
		s->fields = ~0ull;
		return;
	}
	for (int i = 0; i < ncols; i++) {
		int c = cols[i];
		/* A value: what the library makes it of, and what a page source measured. */
		if (columns[c].lib >= PMAPS_F_MAX)
			s->fields |= 1ull << (PMAPS_F_MEASURED + columns[c].lib - PMAPS_F_MAX);
		if (c < PMAPS_F_COUNT)
			s->fields |= 1ull << c;
		else if (c == COL_SHARED)
			s->fields |= 1ull << PMAPS_F_SHARED_CLEAN | 1ull << PMAPS_F_SHARED_DIRTY;
		else if (c == COL_USS)
			s->fields |= 1ull << PMAPS_F_PRIVATE_CLEAN | 1ull << PMAPS_F_PRIVATE_DIRTY;
		else if (c == COL_FILE_RSS)
			s->fields |= 1ull << PMAPS_F_RSS | 1ull << PMAPS_F_ANONYMOUS;
		else
			s->keep |= keep[c - PMAPS_F_COUNT];
	}
}

static uint64_t perms_key(unsigned perms)
{
	/* The order of "r-xp" strings: '-' sorts before the letters. */
	return (uint64_t)(perms & PMAPS_PERM_READ ? 'r' : '-') << 24 |
	       (uint64_t)(perms & PMAPS_PERM_WRITE ? 'w' : '-') << 16 |
	       (uint64_t)(perms & PMAPS_PERM_EXEC ? 'x' : '-') << 8 |
	       (uint64_t)(perms & PMAPS_PERM_SHARED ? 's' : 'p');
}

static uint64_t row_key(const struct sorter *s, const struct pmaps_mapping *m)
{
	switch (s->col) {
	case COL_ADDRESS: case COL_START: return m->start;
	case COL_END: return m->end;
	case COL_PERMS: return perms_key(m->perms);
	case COL_OFFSET: return m->offset;
	case COL_DEV: return (uint64_t)m->dev_major << 32 | m->dev_minor;
	case COL_INODE: return m->inode;
	case COL_KIND: return (uint64_t)m->kind;
	default: {
		/* The library's value (0 when absent): sizes, counts, fields. */
		uint64_t v;
		pmaps_mapping_value(m, columns[s->col].lib, &v);
		return v;
	}
	}
}

static int sorter_path(struct sorter *s, struct pmaps_view path, uint64_t *off)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	size_t *slot;

	for (size_t i = 0; i < path.len; i++)
		h = (h ^ (unsigned char)path.ptr[i]) * 16777619u;
	slot = &s->recent[h % (sizeof(s->recent) / sizeof(s->recent[0]))];
	if (*slot) {
		struct pmaps_view old = path_at(s, *slot - 1);
		if (old.len == path.len && memcmp(old.ptr, path.ptr, path.len) == 0) {
			*off = *slot - 1;
			return 0;
		}
	}
	*off = s->paths.len;
	if (buf_bytes(&s->paths, path.ptr, path.len))
		return -ENOMEM;
	*slot = (size_t)*off + 1;
	return 0;
}

int sorter_add(struct sorter *s, const struct pmaps_mapping *m)
{
	struct buf *b = &s->rec;
	uint64_t present = m->present & s->fields, path = 0;
	int e = 0;

	if (s->n == s->cap) {
		size_t nc = s->cap ? s->cap * 2 : 1024;
		struct skey *nk = nc <= SIZE_MAX / sizeof(*nk) ? realloc(s->keys, nc * sizeof(*nk)) : NULL;
		if (!nk)
			return -ENOMEM;
		s->keys = nk;
		s->cap = nc;
	}
	if (((s->keep & KEEP_PATH) || s->col == COL_PATH) && sorter_path(s, m->path, &path))
		return -ENOMEM;
	s->keys[s->n].key = s->col == COL_PATH ? path : row_key(s, m);
	s->keys[s->n].rec = b->len;
	e |= buf_varint(b, m->start);
	if (s->keep & KEEP_END)
		e |= buf_varint(b, m->end - m->start);
	if (s->keep & KEEP_PERMS)
		e |= buf_varint(b, m->perms);
	if (s->keep & KEEP_OFFSET)
		e |= buf_varint(b, m->offset);
	if (s->keep & KEEP_DEV)
		e |= buf_varint(b, m->dev_major) | buf_varint(b, m->dev_minor);
	if (s->keep & KEEP_INODE)
		e |= buf_varint(b, m->inode);
	if (s->keep & KEEP_KIND)
		e |= buf_varint(b, (uint64_t)m->kind);
	if (s->keep & KEEP_PATH)
		e |= buf_varint(b, path);
	if (s->keep & KEEP_VMFLAGS)
		e |= buf_bytes(b, m->vm_flags_text.ptr, m->vm_flags_text.len);
	/* Row flags, in every format: a cut path is marked in a table too. */
	e |= buf_varint(b, m->flags);
	e |= buf_varint(b, present);
	for (uint64_t p = present; p; p &= p - 1)
		e |= buf_varint(b, m->v[__builtin_ctzll(p)]);
	if (s->keep & KEEP_ALL) {
		e |= buf_varint(b, m->vm_flags) | buf_varint(b, m->n_unknown);
		for (unsigned i = 0; i < m->n_unknown; i++) {
			const struct pmaps_unknown *u = &m->unknown[i];
			e |= buf_bytes(b, u->name.ptr, u->name.len) | buf_varint(b, u->value) |
			     buf_varint(b, (uint64_t)(u->is_kb != 0) | (uint64_t)(u->is_number != 0) << 1) |
			     buf_bytes(b, u->text.ptr, u->text.len);
		}
	}
	if (e)
		return -ENOMEM;
	s->n++;
	return 0;
}

void sorter_get(const struct sorter *s, size_t i, struct pmaps_mapping *m)
{
	const unsigned char *p = s->rec.p + s->keys[i].rec;

	m->start = get_varint(&p);
	if (s->keep & KEEP_END)
		m->end = m->start + get_varint(&p);
	if (s->keep & KEEP_PERMS)
		m->perms = (unsigned)get_varint(&p);
	if (s->keep & KEEP_OFFSET)
		m->offset = get_varint(&p);
	if (s->keep & KEEP_DEV) {
		m->dev_major = (uint32_t)get_varint(&p);
		m->dev_minor = (uint32_t)get_varint(&p);
	}
	if (s->keep & KEEP_INODE)
		m->inode = get_varint(&p);
	if (s->keep & KEEP_KIND)
		m->kind = (enum pmaps_kind)get_varint(&p);
	if (s->keep & KEEP_PATH)
		m->path = path_at(s, (size_t)get_varint(&p));
	if (s->keep & KEEP_VMFLAGS)
		m->vm_flags_text = get_bytes(&p);
	m->flags = (unsigned)get_varint(&p);
	m->present = get_varint(&p);
	/* The smaps fields and, from PMAPS_F_MEASURED, a page source's measured values. */
	for (int f = 0; f < PMAPS_F_MAX; f++)
		m->v[f] = m->present & (1ull << f) ? get_varint(&p) : 0;
	if (s->keep & KEEP_ALL) {
		m->vm_flags = get_varint(&p);
		m->n_unknown = (unsigned)get_varint(&p);
		for (unsigned k = 0; k < m->n_unknown; k++) {
			struct pmaps_unknown *u = &m->unknown[k];
			uint64_t bits;
			u->name = get_bytes(&p);
			u->value = get_varint(&p);
			bits = get_varint(&p);
			u->is_kb = (int)(bits & 1);
			u->is_number = (int)(bits >> 1 & 1);
			u->text = get_bytes(&p);
		}
	}
}

void sorter_free(struct sorter *s)
{
	free(s->keys);
	free(s->rec.p);
	free(s->paths.p);
}


static int cmp_view(struct pmaps_view a, struct pmaps_view b)
{
	int c = memcmp(a.ptr, b.ptr, a.len < b.len ? a.len : b.len);
	return c ? c : (a.len > b.len) - (a.len < b.len);
}

static int cmp_u64_desc(uint64_t a, uint64_t b)
{
	return (a < b) - (a > b);
}

static int cmp_skey(const void *pa, const void *pb, void *ctx)
{
	const struct sorter *s = ctx;
	const struct skey *a = pa, *b = pb;
	const unsigned char *ra = s->rec.p + a->rec, *rb = s->rec.p + b->rec;
	uint64_t sa, sb;
	int c;

	if (s->col == COL_PATH)
		c = a->key == b->key ? 0 : cmp_view(path_at(s, (size_t)a->key), path_at(s, (size_t)b->key));
	else if (s->desc)
		c = cmp_u64_desc(a->key, b->key);
	else
		c = (a->key > b->key) - (a->key < b->key);
	if (c)
		return c;
	/* Ties in address order, then in the order read. */
	sa = get_varint(&ra);
	sb = get_varint(&rb);
	c = (sa > sb) - (sa < sb);
	return c ? c : (a->rec > b->rec) - (a->rec < b->rec);
}

void sorter_sort(struct sorter *s)
{
	if (s->n) /* qsort's pointer must not be NULL, even for no rows */
		qsort_r(s->keys, s->n, sizeof(*s->keys), cmp_skey, s);
}

static int cmp_group(const void *pa, const void *pb, void *ctx)
{
	const struct pmaps_group_row *a = *(const struct pmaps_group_row *const *)pa;
	const struct pmaps_group_row *b = *(const struct pmaps_group_row *const *)pb;
	int col = *(const int *)ctx, c = 0;
	uint64_t va, vb;

	switch (col) {
	case COL_PATH: break;
	case COL_KIND: c = (a->kind > b->kind) - (a->kind < b->kind); break;
	default:
		pmaps_group_value(a, columns[col].lib, &va);
		pmaps_group_value(b, columns[col].lib, &vb);
		c = cmp_u64_desc(va, vb);
	}
	return c ? c : cmp_view(a->key, b->key);
}

void sort_groups(const struct pmaps_group_row **rows, size_t n, int col)
{
	if (n)
		qsort_r(rows, n, sizeof(*rows), cmp_group, &col);
}
