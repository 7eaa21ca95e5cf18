/* SPDX-License-Identifier: MIT */
/*
 * cmd_maps.c - `pmaps maps PID`: every mapping and every smaps field, per
 * mapping, grouped by path or kind, or in total.
 *
 * Without --sort, rows go out as the library yields them and memory stays
 * constant. --sort has to hold every row: each keeps only its sort key and
 * what the output prints of it, packed (the sorter below), and is written
 * after the scan.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "render.h"

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

void maps_default_columns(struct maps_opts *o)
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
 * ---- the sorter: what --sort keeps of each row ----
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

enum {
	KEEP_END = 1u << 0,
	KEEP_PERMS = 1u << 1,
	KEEP_OFFSET = 1u << 2,
	KEEP_DEV = 1u << 3,
	KEEP_INODE = 1u << 4,
	KEEP_KIND = 1u << 5,
	KEEP_PATH = 1u << 6,
	KEEP_VMFLAGS = 1u << 7,
	KEEP_ALL = 1u << 8, /* JSON: row flags, VmFlags bits, unknown fields too */
};

struct skey {
	uint64_t key; /* the sort value; for path, the path's offset in the arena */
	size_t rec;   /* the row's offset in the record buffer */
};

struct buf {
	unsigned char *p;
	size_t len, cap;
};

struct sorter {
	int col, desc;
	unsigned keep;
	uint64_t fields;   /* bit (1 << f) of the smaps fields kept */
	struct skey *keys;
	size_t n, cap;
	struct buf rec;    /* the packed rows */
	struct buf paths;  /* paths: each a length (varint), then its bytes */
	size_t recent[256]; /* by hash: 1 + the offset of a path stored, or 0 */
};

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

/* smaps fields and sizes sort largest first; addresses, names and the like ascending. */
static int sort_desc(int col)
{
	return col < PMAPS_F_COUNT || col == COL_SHARED || col == COL_VSIZE;
}

/* What rows must keep for the output O and the sort. */
static void sorter_init(struct sorter *s, const struct maps_opts *o)
{
	static const unsigned keep[COL_COUNT - PMAPS_F_COUNT] = {
		[COL_ADDRESS - PMAPS_F_COUNT] = KEEP_END, [COL_END - PMAPS_F_COUNT] = KEEP_END,
		[COL_VSIZE - PMAPS_F_COUNT] = KEEP_END, [COL_PERMS - PMAPS_F_COUNT] = KEEP_PERMS,
		[COL_OFFSET - PMAPS_F_COUNT] = KEEP_OFFSET, [COL_DEV - PMAPS_F_COUNT] = KEEP_DEV,
		[COL_INODE - PMAPS_F_COUNT] = KEEP_INODE, [COL_KIND - PMAPS_F_COUNT] = KEEP_KIND,
		[COL_PATH - PMAPS_F_COUNT] = KEEP_PATH, [COL_VMFLAGS - PMAPS_F_COUNT] = KEEP_VMFLAGS,
	};

	memset(s, 0, sizeof(*s));
	s->col = o->sort_col;
	s->desc = sort_desc(o->sort_col);
	if (o->fmt == FMT_JSON) {
		s->keep = ~0u;
		s->fields = ~0ull;
		return;
	}
	for (int i = 0; i < o->ncols; i++) {
		int c = o->cols[i];
		if (c < PMAPS_F_COUNT)
			s->fields |= 1ull << c;
		else if (c == COL_SHARED)
			s->fields |= 1ull << PMAPS_F_SHARED_CLEAN | 1ull << PMAPS_F_SHARED_DIRTY;
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
	case COL_MAPPINGS: return 1;
	case COL_VSIZE: return m->end - m->start;
	case COL_SHARED: return m->v[PMAPS_F_SHARED_CLEAN] + m->v[PMAPS_F_SHARED_DIRTY];
	default: return m->v[s->col];
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

static int sorter_add(struct sorter *s, const struct pmaps_mapping *m)
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

/* Rebuilds into M what row K kept; views point into the sorter. */
static void sorter_get(const struct sorter *s, const struct skey *k, struct pmaps_mapping *m)
{
	const unsigned char *p = s->rec.p + k->rec;

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
	for (int f = 0; f < PMAPS_F_COUNT; f++)
		m->v[f] = m->present & (1ull << f) ? get_varint(&p) : 0;
	if (s->keep & KEEP_ALL) {
		m->vm_flags = get_varint(&p);
		m->n_unknown = (unsigned)get_varint(&p);
		for (unsigned i = 0; i < m->n_unknown; i++) {
			struct pmaps_unknown *u = &m->unknown[i];
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

static void sorter_free(struct sorter *s)
{
	free(s->keys);
	free(s->rec.p);
	free(s->paths.p);
}

/* ---- sorting ---- */

static const struct sorter *sorting; /* for qsort's comparator */
static int sort_col;

static int cmp_view(struct pmaps_view a, struct pmaps_view b)
{
	int c = memcmp(a.ptr, b.ptr, a.len < b.len ? a.len : b.len);
	return c ? c : (a.len > b.len) - (a.len < b.len);
}

static int cmp_u64_desc(uint64_t a, uint64_t b)
{
	return (a < b) - (a > b);
}

static int cmp_skey(const void *pa, const void *pb)
{
	const struct skey *a = pa, *b = pb;
	const unsigned char *ra = sorting->rec.p + a->rec, *rb = sorting->rec.p + b->rec;
	uint64_t sa, sb;
	int c;

	if (sorting->col == COL_PATH)
		c = a->key == b->key ? 0 : cmp_view(path_at(sorting, (size_t)a->key),
		                                    path_at(sorting, (size_t)b->key));
	else if (sorting->desc)
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

static uint64_t group_value(int col, const struct pmaps_group_row *g)
{
	if (col == COL_SHARED)
		return g->v[PMAPS_F_SHARED_CLEAN] + g->v[PMAPS_F_SHARED_DIRTY];
	if (col == COL_VSIZE)
		return g->vsize;
	if (col == COL_MAPPINGS)
		return g->mappings;
	return g->v[col];
}

static int cmp_group(const void *pa, const void *pb)
{
	const struct pmaps_group_row *a = *(const struct pmaps_group_row *const *)pa;
	const struct pmaps_group_row *b = *(const struct pmaps_group_row *const *)pb;
	int c = 0;

	switch (sort_col) {
	case COL_PATH: break;
	case COL_KIND: c = (a->kind > b->kind) - (a->kind < b->kind); break;
	default: c = cmp_u64_desc(group_value(sort_col, a), group_value(sort_col, b));
	}
	return c ? c : cmp_view(a->key, b->key);
}

/* ---- the report ---- */

static int fail_read(const struct maps_opts *o, struct render *r, struct out *out,
                     struct pmaps_maps *c, int err)
{
	const char *msg = c && pmaps_maps_errmsg(c)[0] ? pmaps_maps_errmsg(c) : pmaps_strerror(err);

	if (r)
		render_end(r, msg);
	out_flush(out);
	die_msg("process %s: %s", o->pid, msg);
	return EXIT_FAIL;
}

/* A kernel thread: the note, and a result with no rows. */
static int no_memory(const struct maps_opts *o, struct pmaps_proc *proc, struct out *out,
                     const char *source, int grouped)
{
	struct render r;

	kernel_thread_note(pmaps_proc_pid(proc));
	render_begin(&r, out, o, pmaps_proc_pid(proc), source, grouped);
	render_end(&r, NULL);
	return EXIT_OK;
}

/*
 * A mapping that grew between two of the kernel's reads is listed again from
 * its start (PMAPS_ROW_OVERLAP): sums and a sorted table would count it
 * twice. What is buffered is read again, this many times at most.
 */
#define MAX_READS 3

/*
 * After a buffered read ended with ERR: 1 to read it again (a row was listed
 * twice, or the thread read through ended), 0 to go on with ERR, -1 when
 * the mappings kept changing through MAX_READS reads.
 */
static int read_again(int err, int overlaps, int attempt)
{
	if (err == -EAGAIN)
		return attempt < MAX_READS;
	if (err < 0 || !overlaps)
		return 0;
	return attempt < MAX_READS ? 1 : -1;
}

static int kept_changing(const struct maps_opts *o)
{
	die_msg("process %s: smaps: its mappings kept changing while they were read (a mapping "
	        "grew and was listed twice, %d reads in a row): no total would be right; try "
	        "again", o->pid, MAX_READS);
	return EXIT_FAIL;
}

static int report_total(const struct maps_opts *o, struct pmaps_proc *proc, struct out *out)
{
	struct pmaps_maps *c = NULL;
	const struct pmaps_mapping *m;
	struct pmaps_group *g = NULL;
	struct pmaps_group_row row;
	struct render r;
	const char *source = "smaps_rollup";
	int rc = EXIT_OK, err;

	err = pmaps_maps_open(&c, proc, PMAPS_SRC_ROLLUP, 0);
	if (err == -ENOENT) {
		note_msg("smaps_rollup is not provided by this kernel (needs Linux 4.14); "
		         "summing smaps instead");
		pmaps_maps_close(c);
		c = NULL;
		source = "smaps";
		err = pmaps_maps_open(&c, proc, PMAPS_SRC_SMAPS, 0);
	}
	if (err == -ENODATA) {
		rc = no_memory(o, proc, out, source, 1);
		goto done;
	}
	if (err < 0) {
		rc = fail_read(o, NULL, out, c, err);
		goto done;
	}
	if (pmaps_group_open(&g, PMAPS_GROUP_TOTAL) < 0) {
		die_msg("out of memory");
		rc = EXIT_FAIL;
		goto done;
	}
	for (int attempt = 1;; attempt++) {
		int overlaps = 0, again;
		while ((err = pmaps_maps_next(c, &m)) > 0) {
			overlaps |= (m->flags & PMAPS_ROW_OVERLAP) != 0;
			if (pmaps_group_add(g, m) < 0) {
				err = -ENOMEM;
				break;
			}
		}
		/* Summed smaps: a mapping listed twice would count twice. */
		again = read_again(err, overlaps, attempt);
		if (again == 0)
			break;
		if (again < 0) {
			rc = kept_changing(o);
			goto done;
		}
		pmaps_group_reset(g);
		err = pmaps_maps_rewind(c);
		if (err < 0)
			break;
	}
	if ((err == -ENODATA || err == 0) && pmaps_group_count(g) == 0 &&
	    pmaps_proc_is_kernel_thread(proc) == 1) {
		rc = no_memory(o, proc, out, source, 1);
		goto done;
	}
	render_begin(&r, out, o, pmaps_proc_pid(proc), source, 1);
	if (err < 0) {
		rc = fail_read(o, &r, out, c, err);
		goto done;
	}
	if (pmaps_group_count(g) == 0) {
		rc = fail_read(o, &r, out, c, -ESRCH);
		goto done;
	}
	row = *pmaps_group_get(g, 0);
	if (row.flags & PMAPS_GROUP_SATURATED) {
		rc = fail_read(o, &r, out, c, -EOVERFLOW);
		goto done;
	}
	if (strcmp(source, "smaps_rollup") == 0) {
		/* The rollup row is the kernel's own sum: no mapping count, no vsize. */
		row.mappings = 0;
		row.vsize = 0;
	}
	row.key.ptr = source;
	row.key.len = strlen(source);
	render_group(&r, &row, PMAPS_GROUP_TOTAL);
	render_end(&r, NULL);
done:
	pmaps_group_close(g);
	pmaps_maps_close(c);
	return rc;
}

int maps_report(const struct maps_opts *o)
{
	static struct out out;
	static struct pmaps_mapping kept; /* a sorted row, rebuilt for the writer */
	struct pmaps_proc *proc = NULL;
	struct pmaps_maps *c = NULL;
	struct pmaps_group *g = NULL;
	const struct pmaps_group_row **sorted = NULL;
	const struct pmaps_mapping *m;
	struct sorter st;
	struct render r;
	uint64_t rows = 0, overlaps = 0;
	int rc, err, begun = 0, again;

	sorter_init(&st, o);
	out_init(&out, STDOUT_FILENO);
	rc = tool_proc_open(&proc, o->proc_root, o->pid);
	if (rc != 0)
		return rc;
	if (o->group == PMAPS_GROUP_TOTAL) {
		rc = report_total(o, proc, &out);
		goto done;
	}
	err = pmaps_maps_open(&c, proc, PMAPS_SRC_SMAPS, 0);
	if (err == -ENODATA) {
		rc = no_memory(o, proc, &out, "smaps", o->group >= 0);
		goto done;
	}
	if (err < 0) {
		rc = fail_read(o, NULL, &out, c, err);
		goto done;
	}
	if (o->group >= 0 && pmaps_group_open(&g, (enum pmaps_group_by)o->group) < 0) {
		die_msg("out of memory");
		rc = EXIT_FAIL;
		goto done;
	}
	if (!g && o->sort_col < 0) {
		render_begin(&r, &out, o, pmaps_proc_pid(proc), "smaps", 0);
		begun = 1;
	}
	for (int attempt = 1;; attempt++) {
		while ((err = pmaps_maps_next(c, &m)) > 0) {
			rows++;
			overlaps += (m->flags & PMAPS_ROW_OVERLAP) != 0;
			if (g)
				err = pmaps_group_add(g, m);
			else if (o->sort_col >= 0)
				err = sorter_add(&st, m);
			else
				render_mapping(&r, m);
			if (err < 0)
				break;
		}
		/* What was streamed cannot be taken back; what is buffered is read again. */
		again = begun ? 0 : read_again(err, (int)(overlaps != 0), attempt);
		if (again == 0)
			break;
		if (again < 0) {
			rc = kept_changing(o);
			goto done;
		}
		if (g) {
			pmaps_group_reset(g);
		} else {
			sorter_free(&st);
			sorter_init(&st, o);
		}
		rows = overlaps = 0;
		err = pmaps_maps_rewind(c);
		if (err < 0)
			break;
	}
	if (err == -ENODATA && rows == 0 && !begun) {
		rc = no_memory(o, proc, &out, "smaps", g != NULL);
		goto done;
	}
	if (!begun)
		render_begin(&r, &out, o, pmaps_proc_pid(proc), "smaps", g != NULL);
	if (err < 0) {
		rc = fail_read(o, &r, &out, c, err);
		goto done;
	}
	if (pmaps_maps_lines(c) == 0 && pmaps_proc_is_kernel_thread(proc) == 1)
		kernel_thread_note(pmaps_proc_pid(proc));
	if (overlaps)
		note_msg("process %s changed its mappings while it was read: %llu mapping(s) grew "
		         "between two reads and were listed again from their start (marked "
		         "overlaps_previous in JSON); a sum of these rows counts that twice",
		         o->pid, (unsigned long long)overlaps);
	if (g) {
		size_t n = pmaps_group_count(g);
		sorted = calloc(n ? n : 1, sizeof(*sorted));
		if (!sorted) {
			rc = fail_read(o, &r, &out, NULL, -ENOMEM);
			goto done;
		}
		for (size_t i = 0; i < n; i++) {
			sorted[i] = pmaps_group_get(g, i);
			if (sorted[i]->flags & PMAPS_GROUP_SATURATED) {
				rc = fail_read(o, &r, &out, NULL, -EOVERFLOW);
				goto done;
			}
		}
		if (o->sort_col >= 0) {
			sort_col = o->sort_col;
			qsort(sorted, n, sizeof(*sorted), cmp_group);
		}
		for (size_t i = 0; i < n; i++)
			render_group(&r, sorted[i], (enum pmaps_group_by)o->group);
	} else if (o->sort_col >= 0) {
		sorting = &st;
		if (st.n) /* qsort's pointer must not be NULL, even for no rows */
			qsort(st.keys, st.n, sizeof(*st.keys), cmp_skey);
		for (size_t i = 0; i < st.n; i++) {
			sorter_get(&st, &st.keys[i], &kept);
			render_mapping(&r, &kept);
		}
	}
	render_end(&r, NULL);
done:
	rc = finish_output(&out, rc);
	free(sorted);
	sorter_free(&st);
	pmaps_group_close(g);
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
		case 'C':
			if (set_format(&o.fmt, ch == 'j' ? FMT_JSON : FMT_CSV) < 0)
				return EXIT_USAGE;
			break;
		case 'b': o.human = 0; break;
		case 'R': o.proc_root = optarg; break;
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
	o.pid = argv[optind];
	if (fields) {
		o.ncols = parse_columns(fields, o.cols, COL_COUNT, o.group >= 0);
		if (o.ncols < 0)
			return EXIT_USAGE;
	} else {
		maps_default_columns(&o);
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
		if (o.group >= 0 && col >= PMAPS_F_COUNT && col != COL_SHARED &&
		    col != COL_VSIZE && col != COL_MAPPINGS && col != COL_PATH &&
		    col != COL_KIND) {
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
