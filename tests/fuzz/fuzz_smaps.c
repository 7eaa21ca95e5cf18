/* SPDX-License-Identifier: MIT */
/*
 * fuzz_smaps.c - libFuzzer target for the maps/smaps/smaps_rollup parser.
 *
 * Input: byte 0 picks the source (bits 0-1) and a 4096-byte buffer (bit 7),
 * byte 1 the size of each piece the text arrives in (0: all at once); the
 * rest is the text. Every row is checked for the parser's invariants and fed
 * to the three groupings; then the cursor is rewound and the text read again
 * in pieces of another size (byte 1 XOR 1: all at once and one byte at a
 * time swap), which must give the same rows, field by field, and the same end
 * (code and message). The ordinary test run replays the committed corpus.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "testhooks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok)
{
	if (!ok)
		abort();
}

/*
 * The first pass, row by row, for the rewound one to match: a hash of every
 * field of each row (no allocation per row; 8 KiB inputs give a few hundred
 * rows, and rows past MAX_ROWS are still in the hash of the whole pass).
 */
#define MAX_ROWS 4096

struct pass {
	uint64_t row[MAX_ROWS];
	uint64_t all;
	size_t n;
	int rc;
	char msg[PMAPS_ERRMSG_SIZE];
};

static uint64_t fnv(uint64_t h, const void *p, size_t len)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < len; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

static uint64_t fnv_u64(uint64_t h, uint64_t v)
{
	return fnv(h, &v, sizeof(v));
}

static uint64_t fnv_view(uint64_t h, struct pmaps_view v)
{
	return fnv(fnv_u64(h, v.len), v.ptr, v.len);
}

static uint64_t row_hash(const struct pmaps_mapping *m)
{
	uint64_t h = 0xcbf29ce484222325ull;

	h = fnv_u64(h, m->start);
	h = fnv_u64(h, m->end);
	h = fnv_u64(h, m->offset);
	h = fnv_u64(h, m->inode);
	h = fnv_u64(h, m->dev_major);
	h = fnv_u64(h, m->dev_minor);
	h = fnv_u64(h, m->perms);
	h = fnv_u64(h, m->flags);
	h = fnv_u64(h, (uint64_t)m->kind);
	h = fnv_view(h, m->path);
	h = fnv_u64(h, m->present);
	for (int f = 0; f < PMAPS_F_COUNT; f++)
		h = fnv_u64(h, m->v[f]);
	h = fnv_u64(h, m->vm_flags);
	h = fnv_view(h, m->vm_flags_text);
	h = fnv_u64(h, m->n_unknown);
	for (unsigned i = 0; i < m->n_unknown && i < PMAPS_MAX_UNKNOWN; i++) {
		const struct pmaps_unknown *u = &m->unknown[i];
		h = fnv_view(h, u->name);
		h = fnv_u64(h, u->value);
		h = fnv_u64(h, (uint64_t)u->is_kb);
		h = fnv_u64(h, (uint64_t)u->is_number);
		h = fnv_view(h, u->text);
	}
	return fnv_u64(h, m->line);
}

/* Adds row M, the N-th of a pass, to P. */
static void pass_add(struct pass *p, const struct pmaps_mapping *m)
{
	uint64_t h = row_hash(m);

	if (p->n < MAX_ROWS)
		p->row[p->n] = h;
	p->all = fnv_u64(p->all, h);
	p->n++;
}

/* Aborts, saying where, unless the pass just ended in C matches the first one, FIRST. */
static void pass_same(struct pmaps_maps *c, const struct pass *first, const struct pass *again)
{
	const char *what = NULL;

	if (again->n != first->n)
		what = "row count";
	else if (again->all != first->all)
		what = "rows";
	else if (again->rc != first->rc)
		what = "return code";
	else if (first->rc < 0 && strcmp(first->msg, pmaps_maps_errmsg(c)) != 0)
		what = "error message";
	if (!what)
		return;
	fprintf(stderr, "rewind: the second pass (other pieces) differs in its %s: %zu rows, "
	        "end %d (%s); the first had %zu rows, end %d (%s)\n", what, again->n, again->rc,
	        again->rc < 0 ? pmaps_maps_errmsg(c) : "", first->n, first->rc, first->msg);
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pmaps_maps *c;
	struct pmaps_group *g[3];
	const struct pmaps_mapping *m;
	enum pmaps_source src;
	static struct pass first, again;
	uint64_t sum = 0;
	int r;

	if (size < 2)
		return 0;
	src = (enum pmaps_source)((data[0] & 3) % 3);
	if (pmaps__maps_open_mem(&c, src, data + 2, size - 2, (data[0] & 0x80) ? 4096 : 0) < 0)
		return 0;
	pmaps__maps_set_chunk(c, data[1]);
	for (int i = 0; i < 3; i++)
		check(pmaps_group_open(&g[i], (enum pmaps_group_by)i) == 0);
	first.n = 0;
	first.all = 0;
	while ((r = pmaps_maps_next(c, &m)) > 0) {
		pass_add(&first, m);
		check(m->start <= m->end);
		check(m->path.len < PMAPS_PATH_BUF && m->path.ptr[m->path.len] == '\0');
		check(m->n_unknown <= PMAPS_MAX_UNKNOWN);
		check((unsigned)m->kind < PMAPS_KIND_COUNT);
		check(m->vm_flags_text.len < PMAPS_VMFLAGS_BUF);
		check((m->present >> PMAPS_F_COUNT) == 0);
		for (int f = 0; f < PMAPS_F_COUNT; f++)
			check((m->present & (1ull << f)) || m->v[f] == 0);
		for (unsigned i = 0; i < m->n_unknown; i++)
			sum += m->unknown[i].name.len + m->unknown[i].text.len;
		for (int i = 0; i < 3; i++)
			check(pmaps_group_add(g[i], m) == 0);
		sum += m->v[PMAPS_F_RSS];
	}
	check(r == 0 || r == -EBADMSG);
	check(r == 0 || strstr(pmaps_maps_errmsg(c), "line ") != NULL);
	first.rc = r;
	snprintf(first.msg, sizeof(first.msg), "%s", r < 0 ? pmaps_maps_errmsg(c) : "");
	for (int i = 0; i < 3; i++) {
		for (size_t k = 0; k < pmaps_group_count(g[i]); k++)
			sum += pmaps_group_get(g[i], k)->mappings;
		pmaps_group_close(g[i]);
	}
	/* A rewind reads the same text again, in other pieces: the same rows, the same end. */
	check(pmaps_maps_rewind(c) == 0);
	pmaps__maps_set_chunk(c, (size_t)(data[1] ^ 1));
	again.n = 0;
	again.all = 0;
	for (;;) {
		r = pmaps_maps_next(c, &m);
		if (r <= 0)
			break;
		if (again.n < first.n && again.n < MAX_ROWS && row_hash(m) != first.row[again.n]) {
			fprintf(stderr, "rewind: row %zu (line %u), read in pieces of %d, differs from the "
			        "first pass's in pieces of %d\n", again.n, m->line, data[1] ^ 1, data[1]);
			abort();
		}
		pass_add(&again, m);
	}
	again.rc = r;
	pass_same(c, &first, &again);
	pmaps_maps_close(c);
	return sum == 42 ? 0 : 0;
}
