/* SPDX-License-Identifier: MIT */
/*
 * group.c - sums of mapping rows per path, per kind, or in total.
 *
 * By path: an open-addressing hash table of indices into a row array, with
 * every distinct path stored once in a byte arena. All three double when
 * full, so a scan of N mappings with D distinct paths allocates O(log D)
 * times, never per mapping; pmaps_group_reset() keeps the storage, so a
 * refresh of the same process allocates nothing.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

struct grow {
	struct pmaps_group_row row;
	size_t key_off;    /* into the arena (the arena moves when it grows) */
	uint64_t hash;
	/*
	 * A cut path (PMAPS_ROW_PATH_TRUNCATED) is only its start: two files
	 * can share it. Such a group is one file, told by device and inode.
	 */
	uint64_t inode;
	uint32_t dev_major, dev_minor;
};

struct pmaps_group {
	enum pmaps_group_by by;
	size_t n, cap;     /* rows */
	struct grow *rows;
	uint32_t *slots;   /* 0: empty, else row index + 1 */
	size_t nslots;     /* power of two */
	char *arena;
	size_t alen, acap;
};

static uint64_t hash_bytes(const char *s, size_t n)
{
	/* FNV-1a: short keys, no adversary, one pass. */
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
	return h;
}

static void *grow_array(void *old, size_t old_bytes, size_t new_bytes)
{
	char *p = pmaps__alloc(new_bytes);

	if (!p)
		return NULL;
	if (old_bytes)
		memcpy(p, old, old_bytes);
	pmaps__free(old);
	return p;
}

int pmaps_group_open(struct pmaps_group **out, enum pmaps_group_by by)
{
	struct pmaps_group *g;

	*out = NULL;
	if ((unsigned)by > PMAPS_GROUP_TOTAL)
		return -EINVAL;
	g = pmaps__alloc(sizeof(*g));
	if (!g)
		return -ENOMEM;
	memset(g, 0, sizeof(*g));
	g->by = by;
	g->cap = by == PMAPS_GROUP_PATH ? 64 : by == PMAPS_GROUP_KIND ? PMAPS_KIND_COUNT : 1;
	g->rows = pmaps__alloc(g->cap * sizeof(*g->rows));
	if (!g->rows)
		goto nomem;
	if (by == PMAPS_GROUP_PATH) {
		g->nslots = 128;
		g->slots = pmaps__alloc(g->nslots * sizeof(*g->slots));
		g->acap = 4096;
		g->arena = pmaps__alloc(g->acap);
		if (!g->slots || !g->arena)
			goto nomem;
	}
	pmaps_group_reset(g);
	*out = g;
	return 0;
nomem:
	pmaps_group_close(g);
	return -ENOMEM;
}

void pmaps_group_reset(struct pmaps_group *g)
{
	g->n = 0;
	g->alen = 0;
	if (g->slots)
		memset(g->slots, 0, g->nslots * sizeof(*g->slots));
	if (g->by == PMAPS_GROUP_KIND) {
		for (size_t k = 0; k < PMAPS_KIND_COUNT; k++) {
			memset(&g->rows[k], 0, sizeof(g->rows[k]));
			g->rows[k].row.kind = (enum pmaps_kind)k;
		}
	}
}

void pmaps_group_close(struct pmaps_group *g)
{
	if (!g)
		return;
	pmaps__free(g->rows);
	pmaps__free(g->slots);
	pmaps__free(g->arena);
	pmaps__free(g);
}

/* *SUM += V, stopping at 2^64 - 1 and saying so: a sum never wraps. */
static void add_sat(struct pmaps_group_row *r, uint64_t *sum, uint64_t v)
{
	if (__builtin_add_overflow(*sum, v, sum)) {
		*sum = UINT64_MAX;
		r->flags |= PMAPS_GROUP_SATURATED;
	}
}

static void add_to(struct pmaps_group_row *r, const struct pmaps_mapping *m)
{
	if (r->mappings == 0)
		r->flags |= m->flags & PMAPS__ROW_SRC_MASK; /* the first member's source */
	/* The measured values, summed as the fields are. */
	for (uint64_t q = m->present >> PMAPS_F_MEASURED; q; q &= q - 1) {
		unsigned k = PMAPS_F_MEASURED + (unsigned)__builtin_ctzll(q);
		add_sat(r, &r->v[k], m->v[k]);
	}
	r->mappings++;
	r->kinds |= 1u << m->kind;
	add_sat(r, &r->vsize, m->end - m->start);
	if (m->flags & PMAPS_ROW_OVERLAP)
		r->flags |= PMAPS_GROUP_OVERLAP;
	r->present |= m->present;
	for (int f = 0; f < PMAPS_F_COUNT; f++) {
		/* Not amounts: a sum of page sizes or of flags means nothing. */
		if (f == PMAPS_F_THP_ELIGIBLE || f == PMAPS_F_PROTECTION_KEY ||
		    f == PMAPS_F_KERNEL_PAGE_SIZE || f == PMAPS_F_MMU_PAGE_SIZE) {
			if (m->v[f] > r->v[f])
				r->v[f] = m->v[f];
		} else {
			add_sat(r, &r->v[f], m->v[f]);
		}
	}
}

static int rehash(struct pmaps_group *g)
{
	size_t ns = g->nslots * 2;
	uint32_t *s = pmaps__alloc(ns * sizeof(*s));

	if (!s)
		return -ENOMEM;
	memset(s, 0, ns * sizeof(*s));
	for (size_t i = 0; i < g->n; i++) {
		size_t j = g->rows[i].hash & (ns - 1);
		while (s[j])
			j = (j + 1) & (ns - 1);
		s[j] = (uint32_t)(i + 1);
	}
	pmaps__free(g->slots);
	g->slots = s;
	g->nslots = ns;
	return 0;
}

static int add_path(struct pmaps_group *g, const struct pmaps_mapping *m)
{
	const char *key = m->path.ptr;
	size_t len = m->path.len;
	unsigned cut = m->flags & PMAPS_ROW_PATH_TRUNCATED ? PMAPS_GROUP_PATH_TRUNCATED : 0;
	uint64_t h = hash_bytes(key, len) ^ (cut ? m->inode * 0x9e3779b97f4a7c15ull + 1 : 0);
	size_t j = h & (g->nslots - 1);
	struct grow *r;

	while (g->slots[j]) {
		r = &g->rows[g->slots[j] - 1];
		if (r->hash == h && r->row.key.len == len &&
		    (r->row.flags & PMAPS_GROUP_PATH_TRUNCATED) == cut &&
		    (!cut || (r->inode == m->inode && r->dev_major == m->dev_major &&
		              r->dev_minor == m->dev_minor)) &&
		    memcmp(g->arena + r->key_off, key, len) == 0) {
			add_to(&r->row, m);
			return 0;
		}
		j = (j + 1) & (g->nslots - 1);
	}
	if (g->n >= UINT32_MAX - 1)
		return -ENOMEM;
	if (g->n == g->cap) {
		struct grow *nr = grow_array(g->rows, g->cap * sizeof(*nr), 2 * g->cap * sizeof(*nr));
		if (!nr)
			return -ENOMEM;
		g->rows = nr;
		g->cap *= 2;
	}
	if (g->alen + len + 1 > g->acap) {
		size_t na = g->acap * 2;
		char *a;
		while (g->alen + len + 1 > na)
			na *= 2;
		a = grow_array(g->arena, g->alen, na);
		if (!a)
			return -ENOMEM;
		g->arena = a;
		g->acap = na;
	}
	memcpy(g->arena + g->alen, key, len);
	g->arena[g->alen + len] = '\0';
	r = &g->rows[g->n];
	memset(r, 0, sizeof(*r));
	r->key_off = g->alen;
	r->hash = h;
	r->row.key.len = len;
	r->row.kind = m->kind;
	r->row.flags = cut;
	r->inode = m->inode;
	r->dev_major = m->dev_major;
	r->dev_minor = m->dev_minor;
	g->alen += len + 1;
	g->slots[j] = (uint32_t)(++g->n);
	add_to(&r->row, m);
	if (g->n * 2 > g->nslots)
		return rehash(g);
	return 0;
}

int pmaps_group_add(struct pmaps_group *g, const struct pmaps_mapping *m)
{
	switch (g->by) {
	case PMAPS_GROUP_PATH:
		return add_path(g, m);
	case PMAPS_GROUP_KIND:
		if ((unsigned)m->kind >= PMAPS_KIND_COUNT)
			return -EINVAL;
		add_to(&g->rows[m->kind].row, m);
		return 0;
	case PMAPS_GROUP_TOTAL:
		if (g->n == 0) {
			memset(&g->rows[0], 0, sizeof(g->rows[0]));
			g->rows[0].row.kind = m->kind;
			g->n = 1;
		}
		add_to(&g->rows[0].row, m);
		return 0;
	}
	return -EINVAL;
}

size_t pmaps_group_count(const struct pmaps_group *g)
{
	if (g->by == PMAPS_GROUP_KIND) {
		size_t n = 0;
		for (size_t k = 0; k < PMAPS_KIND_COUNT; k++)
			n += g->rows[k].row.mappings > 0;
		return n;
	}
	return g->n;
}

const struct pmaps_group_row *pmaps_group_get(const struct pmaps_group *g, size_t i)
{
	struct grow *r = NULL;

	switch (g->by) {
	case PMAPS_GROUP_PATH:
		if (i >= g->n)
			return NULL;
		r = &g->rows[i];
		r->row.key.ptr = g->arena + r->key_off;
		return &r->row;
	case PMAPS_GROUP_KIND:
		for (size_t k = 0; k < PMAPS_KIND_COUNT; k++) {
			if (g->rows[k].row.mappings == 0)
				continue;
			if (i-- == 0) {
				r = &g->rows[k];
				r->row.key.ptr = pmaps_kind_name((enum pmaps_kind)k);
				r->row.key.len = strlen(r->row.key.ptr);
				return &r->row;
			}
		}
		return NULL;
	case PMAPS_GROUP_TOTAL:
		if (i >= g->n)
			return NULL;
		r = &g->rows[0];
		r->row.key.ptr = "total";
		r->row.key.len = 5;
		return &r->row;
	}
	return NULL;
}

const char *pmaps_group_kind_name(const struct pmaps_group_row *g)
{
	/* A file's inaccessible padding between its segments is still that file. */
	const uint32_t file = 1u << PMAPS_KIND_FILE_TEXT | 1u << PMAPS_KIND_FILE_DATA |
	                      1u << PMAPS_KIND_FILE_RO | 1u << PMAPS_KIND_GUARD;

	if (!g->kinds || (g->kinds & (g->kinds - 1)) == 0)
		return pmaps_kind_name(g->kind);
	return (g->kinds & ~file) == 0 ? "file" : "mixed";
}

static int add_row(void *g, const struct pmaps_mapping *m)
{
	return pmaps_group_add(g, m);
}

static void reset_rows(void *g)
{
	pmaps_group_reset(g);
}

int pmaps_group_read(struct pmaps_group *g, struct pmaps_maps *c)
{
	int err = pmaps_maps_read_whole(c, add_row, reset_rows, g);

	if (err < 0)
		return err;
	for (size_t i = 0, n = pmaps_group_count(g); i < n; i++)
		if (pmaps_group_get(g, i)->flags & PMAPS_GROUP_SATURATED)
			return pmaps__maps_fail(c, -EOVERFLOW, pmaps_strerror(-EOVERFLOW));
	return 0;
}

static void copy_msg(char *msg, size_t msgsz, const struct pmaps_maps *c, int err)
{
	if (msg && msgsz)
		pmaps__msg(msg, msgsz, "%s", c && pmaps_maps_errmsg(c)[0] ? pmaps_maps_errmsg(c)
		                                                           : pmaps_strerror(err));
}

/*
 * A rollup row's mapping count and vsize, from the maps text (the cheapest
 * list of mappings: pmap's source of both), counted into ROW, which is
 * then marked PMAPS_GROUP_COUNTED. Read right after smaps_rollup, the two
 * reads are two moments; a process that exits or execs in between gets
 * its error here, never a count of another program. Without a maps text
 * to read (-ENOENT, -EACCES) the two stay absent. SPENT, when not NULL,
 * gets the read's cost.
 */
static int count_maps(struct pmaps_proc *proc, struct pmaps_group_row *row,
                      struct pmaps_cost *spent, char *msg, size_t msgsz)
{
	const struct pmaps_mapping *m;
	struct pmaps_maps *c = NULL;
	uint64_t n = 0, size = 0;
	int err, sat = 0;

	err = pmaps_maps_open(&c, proc, PMAPS_SRC_MAPS, 0);
	if (err == -ENOENT || err == -EACCES) {
		/* No maps text to count from (a partial fixture, a restricted proc): left absent. */
		pmaps_maps_close(c);
		return 0;
	}
	while (err == 0 && (err = pmaps_maps_next(c, &m)) == 1) {
		uint64_t len = m->end - m->start;
		n++;
		if (size > UINT64_MAX - len) {
			size = UINT64_MAX;
			sat = 1;
		} else {
			size += len;
		}
		err = 0;
	}
	if (err == 0 && n == 0) {
		/* smaps_rollup had a row a moment ago: the process has gone since. */
		err = -ESRCH;
		pmaps__maps_fail(c, err, "maps: no mapping at all: the process has exited");
	}
	if (err < 0) {
		if (msg && msgsz)
			pmaps__msg(msg, msgsz, "%s", c && pmaps_maps_errmsg(c)[0]
			           ? pmaps_maps_errmsg(c) : pmaps_strerror(err));
	} else {
		row->mappings = n;
		row->vsize = size;
		row->flags |= PMAPS_GROUP_COUNTED | (sat ? PMAPS_GROUP_SATURATED : 0);
	}
	if (c && spent)
		pmaps_maps_cost(c, spent);
	pmaps_maps_close(c);
	return err;
}

/*
 * The totals of PROC from SRC into WHOLE (the library's own row), the page
 * sources walking with POLICY; smaps_rollup's row with its mappings and
 * vsize counted when COUNT. *USED: SRC, or smaps where smaps_rollup was
 * asked with FALLBACK and the kernel has none.
 */
static int total_read(struct pmaps_proc *proc, enum pmaps_source src, int fallback, int count,
                      const struct pmaps_policy *policy, struct pmaps_group_row *whole,
                      enum pmaps_source *used, struct pmaps_cost *spent, char *msg,
                      size_t msgsz)
{
	struct pmaps_maps *c = NULL;
	struct pmaps_group *g = NULL;
	struct pmaps_cost counted = {.size = sizeof(counted)};
	uint64_t pss;
	int err;

	err = pmaps_maps_open(&c, proc, src, 0);
	if (err == -ENOENT && src == PMAPS_SRC_ROLLUP && fallback) {
		/* Before 4.14: the sum of smaps, read again when a mapping counted twice. */
		pmaps_maps_close(c);
		c = NULL;
		src = PMAPS_SRC_SMAPS;
		err = pmaps_maps_open(&c, proc, src, 0);
	}
	*used = src;
	if (err < 0)
		goto out;
	if (policy && (err = pmaps_maps_set_policy(c, policy)) < 0)
		goto out;
	err = pmaps_group_open(&g, PMAPS_GROUP_TOTAL);
	if (err < 0)
		goto out;
	err = pmaps_group_read(g, c);
	if (err == 0 && pmaps_group_count(g) == 0) {
		/* Every process has a mapping; with none, a kernel thread or one gone. */
		err = pmaps_proc_is_kernel_thread(proc) == 1 ? -ENODATA : -ESRCH;
		pmaps__maps_fail(c, err, err == -ENODATA ? "a kernel thread has no user-space memory"
		                                         : "no mapping at all: the process has exited");
	}
	if (err < 0)
		goto out;
	memcpy(whole, pmaps_group_get(g, 0), sizeof(*whole)); /* padding too: it is copied out */
	if (src == PMAPS_SRC_ROLLUP) {
		/* The kernel's own sum, which has no mapping count and no vsize: the maps text's. */
		whole->flags |= PMAPS_GROUP_ROLLUP;
		whole->mappings = 0;
		whole->vsize = 0;
		if (count && (err = count_maps(proc, whole, spent ? &counted : NULL, msg, msgsz)) < 0)
			goto out;
	}
	/* Pss from pages: summed in the kernel's fixed point, rounded to kB once, as smaps_rollup. */
	if (pmaps__maps_pss_total(c, &pss))
		whole->v[PMAPS_F_PSS] = pss;
	whole->flags = (whole->flags & ~PMAPS__ROW_SRC_MASK) | PMAPS__ROW_SRC(src);
	whole->key.ptr = pmaps_source_name(src);
	whole->key.len = strlen(whole->key.ptr);
out:
	if (c && spent) {
		pmaps_maps_cost(c, spent);
		/* The maps text read after smaps_rollup, for its count and vsize. */
		spent->ns += counted.ns;
		spent->calls += counted.calls;
		if (counted.hold_ns > spent->hold_ns)
			spent->hold_ns = counted.hold_ns;
	}
	if (err < 0 && !(msg && msgsz && msg[0]))
		copy_msg(msg, msgsz, c, err);
	pmaps_group_close(g);
	pmaps_maps_close(c);
	return err;
}

/* Copies the library's whole row to the caller's, of ROW_SIZE bytes. */
static void row_out(struct pmaps_group_row *row, size_t row_size,
                    const struct pmaps_group_row *whole)
{
	pmaps__copy_out(row, row_size, whole, sizeof(*whole));
}

static int row_size_ok(struct pmaps_group_row *row, size_t row_size, char *msg, size_t msgsz)
{
	if (msg && msgsz)
		msg[0] = '\0';
	if (!row || !pmaps__size_ok(row_size, PMAPS__GROUP_ROW_SIZE0)) {
		if (msg)
			pmaps__msg(msg, msgsz, "struct pmaps_group_row: size %zu, below %zu: pass sizeof",
			           row_size, (size_t)PMAPS__GROUP_ROW_SIZE0);
		return 0;
	}
	return 1;
}

int pmaps_total(struct pmaps_proc *proc, struct pmaps_group_row *row, size_t row_size,
                enum pmaps_source *source, char *msg, size_t msgsz)
{
	struct pmaps_group_row whole;
	int err;

	if (!row_size_ok(row, row_size, msg, msgsz))
		return -EINVAL;
	err = total_read(proc, PMAPS_SRC_ROLLUP, 1, 1, NULL, &whole, source, NULL, msg, msgsz);
	if (err == 0)
		row_out(row, row_size, &whole);
	return err;
}

int pmaps_total_count(struct pmaps_proc *proc, struct pmaps_group_row *row, size_t row_size,
                      struct pmaps_cost *spent, char *msg, size_t msgsz)
{
	struct pmaps_cost k;
	int err;

	if (!row_size_ok(row, row_size, msg, msgsz))
		return -EINVAL;
	if (spent && !pmaps__size_ok(spent->size, PMAPS__COST_SIZE0))
		return -EINVAL;
	if (!(row->flags & PMAPS_GROUP_ROLLUP)) {
		if (msg)
			pmaps__msg(msg, msgsz, "not smaps_rollup's row: its mappings are counted already");
		return -EINVAL;
	}
	memset(&k, 0, sizeof(k));
	k.size = sizeof(k);
	err = count_maps(proc, row, spent ? &k : NULL, msg, msgsz);
	if (spent) {
		k.size = spent->size;
		pmaps__copy_out(spent, spent->size, &k, sizeof(k));
	}
	return err;
}

int pmaps_total_from(struct pmaps_proc *proc, enum pmaps_source source,
                     const struct pmaps_policy *policy, struct pmaps_group_row *row,
                     size_t row_size, struct pmaps_cost *spent, char *msg, size_t msgsz)
{
	struct pmaps_group_row whole;
	struct pmaps_cost k;
	enum pmaps_source used;
	int err;

	if (!row_size_ok(row, row_size, msg, msgsz))
		return -EINVAL;
	if (spent && !pmaps__size_ok(spent->size, PMAPS__COST_SIZE0))
		return -EINVAL;
	if (source != PMAPS_SRC_ROLLUP && source != PMAPS_SRC_SMAPS && source != PMAPS_SRC_FAST &&
	    source != PMAPS_SRC_PAGES) {
		if (msg)
			pmaps__msg(msg, msgsz, "totals come from smaps_rollup, smaps, fast or pages, "
			           "not %s", pmaps_source_name(source) ? pmaps_source_name(source) : "?");
		return -EINVAL;
	}
	memset(&k, 0, sizeof(k));
	k.size = sizeof(k);
	err = total_read(proc, source, 0, 0, policy, &whole, &used, &k, msg, msgsz);
	if (spent) {
		k.size = spent->size;
		pmaps__copy_out(spent, spent->size, &k, sizeof(k));
	}
	if (err == 0)
		row_out(row, row_size, &whole);
	return err;
}

/* Totals from status alone: Rss and Swap, what it has of a row's fields. */
static int total_status(struct pmaps_proc *proc, struct pmaps_group_row *whole,
                        struct pmaps_cost *spent, char *msg, size_t msgsz)
{
	struct pmaps_status st = {.size = sizeof(st)};
	uint64_t t0 = pmaps__now_ns();
	int err = pmaps_status_read(proc, &st, msg, msgsz);

	if (err < 0)
		return err;
	if (!(st.present & (1ull << PMAPS_ST_VM_RSS))) {
		err = pmaps_proc_is_kernel_thread(proc) == 1 ? -ENODATA : -ESRCH;
		if (msg)
			pmaps__msg(msg, msgsz, "status: %s", err == -ENODATA
			           ? "a kernel thread has no user-space memory"
			           : "no VmRSS: the process has exited or is a zombie");
		return err;
	}
	memset(whole, 0, sizeof(*whole));
	whole->present = 1ull << PMAPS_F_RSS;
	whole->v[PMAPS_F_RSS] = st.v[PMAPS_ST_VM_RSS];
	if (st.present & (1ull << PMAPS_ST_VM_SWAP)) {
		whole->present |= 1ull << PMAPS_F_SWAP;
		whole->v[PMAPS_F_SWAP] = st.v[PMAPS_ST_VM_SWAP];
	}
	whole->flags = PMAPS_GROUP_STATUS | PMAPS__ROW_SRC(PMAPS_SRC_STATUS);
	whole->key.ptr = "status";
	whole->key.len = 6;
	spent->ns = pmaps__now_ns() - t0;
	spent->calls = 1;
	return 0;
}

int pmaps_total_best(struct pmaps_proc *proc, uint64_t fields, uint64_t values,
                     const struct pmaps_policy *policy, struct pmaps_group_row *row,
                     size_t row_size, struct pmaps_cost *spent, char *msg, size_t msgsz)
{
	struct pmaps_group_row whole;
	struct pmaps_cost k;
	enum pmaps_source src, used;
	char why[PMAPS_ERRMSG_SIZE];
	int all, err;

	if (!row_size_ok(row, row_size, msg, msgsz))
		return -EINVAL;
	if (spent && !pmaps__size_ok(spent->size, PMAPS__COST_SIZE0))
		return -EINVAL;
	all = pmaps_source_choose(proc, fields, values, 1, policy, &src, why, sizeof(why));
	if (all < 0) {
		if (msg)
			pmaps__msg(msg, msgsz, "%s", why);
		return all;
	}
	memset(&k, 0, sizeof(k));
	k.size = sizeof(k);
	if (src == PMAPS_SRC_STATUS)
		err = total_status(proc, &whole, &k, msg, msgsz);
	else
		err = total_read(proc, src, 0, (values & (1ull << (PMAPS_V_MAPPINGS - PMAPS_F_MAX) |
		                                           1ull << (PMAPS_V_VSIZE - PMAPS_F_MAX))) != 0,
		                 policy, &whole, &used, &k, msg, msgsz);
	if (spent) {
		k.size = spent->size;
		pmaps__copy_out(spent, spent->size, &k, sizeof(k));
	}
	if (err < 0)
		return err;
	row_out(row, row_size, &whole);
	if (!all && msg)
		pmaps__msg(msg, msgsz, "%s", why);
	return all;
}
