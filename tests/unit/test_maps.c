/* SPDX-License-Identifier: MIT */
/*
 * test_maps.c - the maps/smaps/smaps_rollup parser on fixture trees and on
 * text in memory: exact values, edge cases, old kernels, every split of the
 * input across reads, injected read faults and malformed text.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "internal.h"
#include "testhooks.h"
#include "../expect.h"

#define KB 1024ull

static char *data_dir(const char *rel)
{
	static char buf[4096];
	snprintf(buf, sizeof(buf), "%s/%s", PMAPS_TEST_DATA, rel);
	return buf;
}

static char *slurp(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY);
	size_t cap = 1 << 16, n = 0;
	char *b = malloc(cap);
	ssize_t k;

	expect_sys(fd);
	while ((k = read(fd, b + n, cap - n)) > 0) {
		n += (size_t)k;
		if (n == cap) {
			char *nb = realloc(b, cap *= 2);
			assert_non_null(nb);
			b = nb;
		}
	}
	close(fd);
	*len = n;
	return b;
}

/* Opens PID under a fixture tree's proc/ and a cursor on SRC. */
static struct pmaps_maps *open_fixture(const char *tree, const char *pid, enum pmaps_source src,
                                       struct pmaps_proc **proc)
{
	struct pmaps_maps *c;
	char root[4096];

	snprintf(root, sizeof(root), "%s/%s/proc", PMAPS_TEST_DATA, tree);
	assert_int_equal(pmaps_proc_open(proc, root, pid), 0);
	assert_int_equal(pmaps_maps_open(&c, *proc, src, 0), 0);
	return c;
}

static const struct pmaps_mapping *next_row(struct pmaps_maps *c)
{
	const struct pmaps_mapping *m = NULL;
	int r = pmaps_maps_next(c, &m);
	if (r != 1)
		fail_msg("expected a row, got %d: %s", r, pmaps_maps_errmsg(c));
	return m;
}

static void assert_view(struct pmaps_view v, const char *s)
{
	assert_int_equal(v.len, strlen(s));
	assert_memory_equal(v.ptr, s, v.len);
}

/* ---- the hand-made edge cases ---- */

static void test_edge_rows(void **state)
{
	struct pmaps_proc *proc;
	struct pmaps_maps *c = open_fixture("edge", "100", PMAPS_SRC_SMAPS, &proc);
	const struct pmaps_mapping *m;
	(void)state;

	m = next_row(c);
	assert_int_equal(m->start, 0x400000);
	assert_int_equal(m->end, 0x401000);
	assert_int_equal(m->perms, PMAPS_PERM_READ | PMAPS_PERM_EXEC);
	assert_int_equal(m->dev_major, 0xfe);
	assert_int_equal(m->dev_minor, 0);
	assert_int_equal(m->inode, 1001);
	assert_int_equal(m->kind, PMAPS_KIND_FILE_TEXT);
	assert_view(m->path, "/opt/my app/bin/server with spaces");
	assert_int_equal(m->v[PMAPS_F_RSS], 4 * KB);
	assert_int_equal(m->v[PMAPS_F_PRIVATE_CLEAN], 4 * KB);
	assert_int_equal(m->flags, PMAPS__ROW_SRC(PMAPS_SRC_SMAPS));
	assert_int_equal(m->line, 1);

	m = next_row(c); /* an escaped newline and a deleted file */
	assert_view(m->path, "/tmp/new\nline (deleted)");
	assert_int_equal(m->flags, PMAPS__ROW_SRC(PMAPS_SRC_SMAPS) | PMAPS_ROW_DELETED | PMAPS_ROW_PATH_ESCAPED);
	assert_int_equal(m->offset, 0x1000);
	assert_int_equal(m->kind, PMAPS_KIND_FILE_DATA);

	m = next_row(c);
	assert_view(m->path, "[heap]");
	assert_int_equal(m->kind, PMAPS_KIND_HEAP);
	assert_int_equal(m->v[PMAPS_F_PRIVATE_DIRTY], 1024 * KB);

	m = next_row(c);
	assert_view(m->path, "[anon:jemalloc arena 1]");
	assert_int_equal(m->kind, PMAPS_KIND_ANON_NAMED);
	assert_int_equal(m->v[PMAPS_F_LAZY_FREE], 128 * KB);
	assert_int_equal(m->v[PMAPS_F_PSS_DIRTY], 384 * KB);

	m = next_row(c);
	assert_view(m->path, "/memfd:cache (deleted)");
	assert_int_equal(m->kind, PMAPS_KIND_SHMEM);
	assert_int_equal(m->perms, PMAPS_PERM_READ | PMAPS_PERM_WRITE | PMAPS_PERM_SHARED);
	assert_int_equal(m->v[PMAPS_F_SHARED_DIRTY], 256 * KB);
	assert_int_equal(m->v[PMAPS_F_PSS], 128 * KB);

	m = next_row(c);
	assert_view(m->path, "/SYSV0000162e (deleted)");
	assert_int_equal(m->kind, PMAPS_KIND_SHMEM);
	m = next_row(c);
	assert_view(m->path, "/dev/zero (deleted)");
	assert_int_equal(m->kind, PMAPS_KIND_SHMEM);

	m = next_row(c);
	assert_int_equal(m->kind, PMAPS_KIND_HUGETLB);
	assert_int_equal(m->v[PMAPS_F_KERNEL_PAGE_SIZE], 2048 * KB);
	assert_int_equal(m->v[PMAPS_F_PRIVATE_HUGETLB], 2048 * KB);
	expect_set(m->vm_flags, 1ull << PMAPS_VM_HT);

	m = next_row(c);
	assert_int_equal(m->kind, PMAPS_KIND_GUARD);
	assert_int_equal(m->path.len, 0);
	assert_int_equal(m->perms, 0);

	m = next_row(c);
	assert_int_equal(m->kind, PMAPS_KIND_ANON);
	assert_int_equal(m->v[PMAPS_F_ANONYMOUS], 32 * KB);

	m = next_row(c);
	assert_view(m->path, "[anon_shmem:shared buf]");
	assert_int_equal(m->kind, PMAPS_KIND_SHMEM);

	/* Wide values, a tab, unknown keys with kB, text and a bare number. */
	m = next_row(c);
	assert_int_equal(m->v[PMAPS_F_SIZE], 134217728ull * KB);
	assert_int_equal(m->v[PMAPS_F_RSS], 123456789ull * KB);
	assert_int_equal(m->v[PMAPS_F_PSS], 123456789ull * KB);
	assert_int_equal(m->v[PMAPS_F_ANON_HUGE_PAGES], 122880000ull * KB);
	assert_int_equal(m->v[PMAPS_F_THP_ELIGIBLE], 1);
	expect_clear(m->present, 1ull << PMAPS_F_FILE_PMD_MAPPED);
	assert_int_equal(m->n_unknown, 3);
	assert_view(m->unknown[0].name, "NewCounter");
	assert_int_equal(m->unknown[0].value, 12 * KB);
	assert_int_equal(m->unknown[0].is_kb, 1);
	assert_view(m->unknown[1].name, "Mystery");
	assert_int_equal(m->unknown[1].is_number, 0);
	assert_view(m->unknown[1].text, "not a number");
	assert_view(m->unknown[2].name, "BareCount");
	assert_int_equal(m->unknown[2].value, 7);
	assert_int_equal(m->unknown[2].is_kb, 0);
	assert_view(m->vm_flags_text, "rd wr mr mw me ac hg zz");
	expect_set(m->vm_flags, 1ull << PMAPS_VM_HG);
	expect_set(m->vm_flags, 1ull << PMAPS_VM_UNKNOWN);

	/* No Rss line (seen on WSL): absent, not zero. */
	m = next_row(c);
	assert_int_equal(m->kind, PMAPS_KIND_STACK);
	expect_clear(m->present, 1ull << PMAPS_F_RSS);
	expect_set(m->present, 1ull << PMAPS_F_PSS);
	assert_int_equal(m->present, (1ull << PMAPS_F_SIZE) | (1ull << PMAPS_F_PSS) |
	                                 (1ull << PMAPS_F_PRIVATE_DIRTY) | (1ull << PMAPS_F_ANONYMOUS));

	m = next_row(c);
	assert_view(m->path, "[vdso]");
	assert_int_equal(m->kind, PMAPS_KIND_VDSO);
	m = next_row(c);
	assert_view(m->path, "[vsyscall]");
	assert_int_equal(m->start, 0xffffffffff600000ull);
	assert_int_equal(m->kind, PMAPS_KIND_VDSO);

	assert_int_equal(pmaps_maps_next(c, &m), 0);
	assert_int_equal(pmaps_maps_next(c, &m), 0);
	pmaps_maps_close(c);
	pmaps_proc_close(proc);
}

/* ---- every split across reads gives the same rows ---- */

struct digest {
	uint64_t rows, sum, hash;
};

static uint64_t mix(uint64_t h, uint64_t v)
{
	return (h ^ v) * 0x100000001b3ull;
}

static int digest_cursor(struct pmaps_maps *c, struct digest *d)
{
	const struct pmaps_mapping *m;
	int r;

	memset(d, 0, sizeof(*d));
	d->hash = 0xcbf29ce484222325ull;
	while ((r = pmaps_maps_next(c, &m)) > 0) {
		d->rows++;
		d->hash = mix(d->hash, m->start);
		d->hash = mix(d->hash, m->end);
		d->hash = mix(d->hash, m->present);
		d->hash = mix(d->hash, m->vm_flags);
		d->hash = mix(d->hash, m->flags);
		d->hash = mix(d->hash, m->kind);
		for (size_t i = 0; i < m->path.len; i++)
			d->hash = mix(d->hash, (unsigned char)m->path.ptr[i]);
		for (int f = 0; f < PMAPS_F_COUNT; f++) {
			d->hash = mix(d->hash, m->v[f]);
			d->sum += m->v[f];
		}
		for (unsigned i = 0; i < m->n_unknown; i++)
			d->hash = mix(d->hash, m->unknown[i].value);
	}
	return r;
}

static void chunks_of(const char *rel, enum pmaps_source src, uint64_t rows)
{
	size_t len;
	char *text = slurp(data_dir(rel), &len);
	struct pmaps_maps *c;
	struct digest ref, d;

	assert_int_equal(pmaps__maps_open_mem(&c, src, text, len, 0), 0);
	assert_int_equal(digest_cursor(c, &ref), 0);
	assert_int_equal(ref.rows, rows);
	for (size_t chunk = 1; chunk <= 97; chunk++) {
		assert_int_equal(pmaps_maps_rewind(c), 0);
		pmaps__maps_set_chunk(c, chunk);
		assert_int_equal(digest_cursor(c, &d), 0);
		assert_int_equal(d.rows, ref.rows);
		assert_int_equal(d.sum, ref.sum);
		assert_int_equal(d.hash, ref.hash);
	}
	pmaps_maps_close(c);
	/* The smallest buffer too: lines still fit, so nothing changes. */
	assert_int_equal(pmaps__maps_open_mem(&c, src, text, len, 4096), 0);
	pmaps__maps_set_chunk(c, 1000);
	assert_int_equal(digest_cursor(c, &d), 0);
	assert_int_equal(d.hash, ref.hash);
	pmaps_maps_close(c);
	free(text);
}

static void test_chunks_edge(void **state)
{
	(void)state;
	chunks_of("edge/proc/100/smaps", PMAPS_SRC_SMAPS, 15);
	chunks_of("edge/proc/100/maps", PMAPS_SRC_MAPS, 15);
}

static void test_chunks_capture(void **state)
{
	(void)state;
	chunks_of("capture-6.18/proc/4242/smaps", PMAPS_SRC_SMAPS, 37);
	chunks_of("capture-6.18/proc/4242/smaps_rollup", PMAPS_SRC_ROLLUP, 1);
}

/* ---- old kernels: the same mappings, fewer fields ---- */

static void old_kernel(const char *tree, uint64_t absent)
{
	struct pmaps_proc *p0, *p1;
	struct pmaps_maps *ref = open_fixture("capture-6.18", "4242", PMAPS_SRC_SMAPS, &p0);
	struct pmaps_maps *old = open_fixture(tree, "4242", PMAPS_SRC_SMAPS, &p1);
	const struct pmaps_mapping *a, *b;
	int ra, rb, rows = 0;

	for (;;) {
		ra = pmaps_maps_next(ref, &a);
		if (ra <= 0)
			break;
		uint64_t present = a->present, v[PMAPS_F_COUNT], start = a->start;
		enum pmaps_kind kind = a->kind;
		memcpy(v, a->v, sizeof(v));
		rb = pmaps_maps_next(old, &b);
		assert_int_equal(rb, 1);
		assert_int_equal(b->start, start);
		assert_int_equal(b->kind, kind);
		assert_int_equal(b->present, present & ~absent);
		for (int f = 0; f < PMAPS_F_COUNT; f++)
			if (!(absent & (1ull << f)))
				assert_int_equal(b->v[f], v[f]);
			else
				assert_int_equal(b->v[f], 0);
		rows++;
	}
	assert_int_equal(ra, 0);
	assert_int_equal(pmaps_maps_next(old, &b), 0);
	assert_int_equal(rows, 37);
	pmaps_maps_close(ref);
	pmaps_maps_close(old);
	pmaps_proc_close(p0);
	pmaps_proc_close(p1);
}

static void test_old_kernels(void **state)
{
	(void)state;
	old_kernel("kernel-4.14", 1ull << PMAPS_F_PSS_DIRTY | 1ull << PMAPS_F_KSM |
	                              1ull << PMAPS_F_FILE_PMD_MAPPED | 1ull << PMAPS_F_THP_ELIGIBLE);
	old_kernel("kernel-5.4", 1ull << PMAPS_F_PSS_DIRTY | 1ull << PMAPS_F_KSM);
	old_kernel("kernel-6.1", 1ull << PMAPS_F_KSM);
}

static void test_rollup(void **state)
{
	struct pmaps_proc *proc;
	struct pmaps_maps *c = open_fixture("capture-6.18", "4242", PMAPS_SRC_ROLLUP, &proc);
	const struct pmaps_mapping *m;
	(void)state;

	m = next_row(c);
	assert_int_equal(m->kind, PMAPS_KIND_ROLLUP);
	assert_view(m->path, "[rollup]");
	expect_set(m->present, 1ull << PMAPS_F_PSS_ANON);
	expect_clear(m->present, 1ull << PMAPS_F_SIZE);
	/* Rss and Pss_Anon/File/Shmem of the capture, as the kernel printed them. */
	assert_int_equal(m->v[PMAPS_F_RSS], 1840 * KB);
	assert_int_equal(m->v[PMAPS_F_PSS], 489 * KB);
	assert_int_equal(m->v[PMAPS_F_PSS_ANON], 108 * KB);
	assert_int_equal(m->v[PMAPS_F_PSS_FILE], 381 * KB);
	assert_int_equal(m->v[PMAPS_F_PSS_SHMEM], 0);
	assert_int_equal(pmaps_maps_next(c, &m), 0);
	pmaps_maps_close(c);
	pmaps_proc_close(proc);

	/* Before 4.14: no file, a message saying so. */
	char root[4096];
	snprintf(root, sizeof(root), "%s/no-rollup/proc", PMAPS_TEST_DATA);
	assert_int_equal(pmaps_proc_open(&proc, root, "4242"), 0);
	assert_int_equal(pmaps_maps_open(&c, proc, PMAPS_SRC_ROLLUP, 0), -ENOENT);
	expect_contains(pmaps_maps_errmsg(c), "4.14");
	pmaps_maps_close(c);
	pmaps_proc_close(proc);
}

/* ---- malformed text: -EBADMSG with line and offset, never a crash ---- */

static void expect_bad(enum pmaps_source src, const char *text, const char *msg)
{
	struct pmaps_maps *c;
	const struct pmaps_mapping *m;
	int r;

	assert_int_equal(pmaps__maps_open_mem(&c, src, text, strlen(text), 0), 0);
	while ((r = pmaps_maps_next(c, &m)) > 0)
		;
	assert_int_equal(r, -EBADMSG);
	if (!strstr(pmaps_maps_errmsg(c), msg))
		fail_msg("message '%s' lacks '%s'", pmaps_maps_errmsg(c), msg);
	/* Sticky until rewound. */
	assert_int_equal(pmaps_maps_next(c, &m), -EBADMSG);
	pmaps_maps_close(c);
}

static void test_malformed(void **state)
{
	(void)state;
	expect_bad(PMAPS_SRC_SMAPS, "Rss:       4 kB\n", "line 1, byte offset 0: a field line before");
	expect_bad(PMAPS_SRC_SMAPS, "00400000-00401000 r-xp 00000000 fe:00 1 /x\nRss: 4 MB\n",
	           "line 2, byte offset 43: expected a value in kB");
	expect_bad(PMAPS_SRC_SMAPS, "00400000-00401000 r-xp 00000000 fe:00 1 /x\nRss:  12x kB\n",
	           "line 2");
	expect_bad(PMAPS_SRC_SMAPS, "00400000-00401000 r-xp 00000000 fe:00 1 /x\nRss\n",
	           "expected \"Name: value\"");
	expect_bad(PMAPS_SRC_MAPS, "00401000-00400000 r-xp 00000000 fe:00 1 /x\n",
	           "ends before it starts");
	expect_bad(PMAPS_SRC_MAPS, "00400000-00401000 rwzp 00000000 fe:00 1 /x\n", "permissions");
	expect_bad(PMAPS_SRC_MAPS, "00400000 r-xp 00000000 fe:00 1 /x\n", "START-END");
	expect_bad(PMAPS_SRC_MAPS, "00400000-00401000 r-xp 0000g000 fe:00 1 /x\n", "offset");
	expect_bad(PMAPS_SRC_MAPS, "00400000-00401000 r-xp 00000000 fe00 1 /x\n", "MAJ:MIN");
	expect_bad(PMAPS_SRC_MAPS, "00400000-00401000 r-xp 00000000 fe:00 1x /x\n", "inode");
	expect_bad(PMAPS_SRC_MAPS, "00400000-10000000000000000 r-xp 00000000 fe:00 1 /x\n",
	           "START-END");
	/* 2^64 KiB does not fit in bytes. */
	expect_bad(PMAPS_SRC_SMAPS,
	           "00400000-00401000 r-xp 00000000 fe:00 1 /x\nRss: 18446744073709551615 kB\n",
	           "out of range");
	expect_bad(PMAPS_SRC_SMAPS,
	           "00400000-00401000 r-xp 00000000 fe:00 1 /x\nRss: 99999999999999999999 kB\n",
	           "expected a decimal value");
	expect_bad(PMAPS_SRC_SMAPS,
	           "00400000-00401000 r-xp 00000000 fe:00 1 /x\nTHPeligible:    1 kB\n",
	           "expected a bare number");

	/* The fixture tree with one bad line, through a real file. */
	struct pmaps_proc *proc;
	struct pmaps_maps *c = open_fixture("malformed", "4242", PMAPS_SRC_SMAPS, &proc);
	const struct pmaps_mapping *m;
	int r, rows = 0;
	while ((r = pmaps_maps_next(c, &m)) > 0)
		rows++;
	assert_int_equal(r, -EBADMSG);
	assert_int_equal(rows, 2);
	assert_string_equal(pmaps_maps_errmsg(c),
	                    "smaps: line 61, byte offset 1845: expected a value in kB");
	pmaps_maps_close(c);
	pmaps_proc_close(proc);
}

/*
 * The permissions, four bytes at a time: each byte at each place, every
 * other place valid; accepted exactly when the byte is that place's letter
 * or its '-' ('p' for the fourth), with the letters' bits. And the device
 * and inode of anonymous memory, read in one compare, against the forms
 * that must take the long way.
 */
static void test_header_forms(void **state)
{
	static const char on[] = "rwxs", off[] = "---p";
	static const unsigned bit[] = {PMAPS_PERM_READ, PMAPS_PERM_WRITE, PMAPS_PERM_EXEC,
	                               PMAPS_PERM_SHARED};
	static const struct {
		const char *tail;
		uint32_t major, minor;
		uint64_t inode;
		const char *path;
	} devs[] = {
		{"00:00 0 \n", 0, 0, 0, ""},
		{"00:00 0                          [heap]\n", 0, 0, 0, "[heap]"},
		{"00:00 0\n", 0, 0, 0, ""},
		{"00:00 01 /x\n", 0, 0, 1, "/x"},
		{"00:00 10 /x\n", 0, 0, 10, "/x"},
		{"00:01 0 \n", 0, 1, 0, ""},
		{"fe:00 0 \n", 0xfe, 0, 0, ""},
		{"100:00 0 \n", 0x100, 0, 0, ""},
	};
	(void)state;

	for (int at = 0; at < 4; at++) {
		for (int b = 1; b < 256; b++) {
			char line[64] = "00400000-00401000 r-xp 00000000 fe:00 1 /x\n";
			struct pmaps_maps *c;
			const struct pmaps_mapping *m;
			int r, ok = b == on[at] || b == off[at];
			if (b == '\n')
				continue;
			line[18 + at] = (char)b;
			assert_int_equal(pmaps__maps_open_mem(&c, PMAPS_SRC_MAPS, line, strlen(line), 0), 0);
			r = pmaps_maps_next(c, &m);
			if (r != (ok ? 1 : -EBADMSG))
				fail_msg("byte %#x at place %d: got %d, want %d", b, at, r, ok ? 1 : -EBADMSG);
			pmaps_maps_close(c);
		}
	}
	for (unsigned set = 0; set < 16; set++) {
		char line[64] = "00400000-00401000 ---p 00000000 00:00 0 \n";
		struct pmaps_maps *c;
		const struct pmaps_mapping *m;
		unsigned want = 0;
		for (int at = 0; at < 4; at++) {
			line[18 + at] = set & (1u << at) ? on[at] : off[at];
			want |= set & (1u << at) ? bit[at] : 0;
		}
		assert_int_equal(pmaps__maps_open_mem(&c, PMAPS_SRC_MAPS, line, strlen(line), 0), 0);
		assert_int_equal(pmaps_maps_next(c, &m), 1);
		if (m->perms != want)
			fail_msg("%.4s: perms %#x, want %#x", line + 18, m->perms, want);
		pmaps_maps_close(c);
	}
	/* Not a space after them. */
	expect_bad(PMAPS_SRC_MAPS, "00400000-00401000 rw-pX00000000 00:00 0 \n", "permissions");
	for (size_t i = 0; i < sizeof(devs) / sizeof(devs[0]); i++) {
		char line[128];
		struct pmaps_maps *c;
		const struct pmaps_mapping *m;
		snprintf(line, sizeof(line), "7f0000000000-7f0000001000 rw-p 00000000 %s", devs[i].tail);
		assert_int_equal(pmaps__maps_open_mem(&c, PMAPS_SRC_MAPS, line, strlen(line), 0), 0);
		assert_int_equal(pmaps_maps_next(c, &m), 1);
		if (m->dev_major != devs[i].major || m->dev_minor != devs[i].minor ||
		    m->inode != devs[i].inode || strcmp(m->path.ptr, devs[i].path) != 0)
			fail_msg("%s: %x:%x %llu '%s', want %x:%x %llu '%s'", line, m->dev_major,
			         m->dev_minor, (unsigned long long)m->inode, m->path.ptr, devs[i].major,
			         devs[i].minor, (unsigned long long)devs[i].inode, devs[i].path);
		assert_int_equal(m->kind, devs[i].inode ? PMAPS_KIND_FILE_DATA
		                          : devs[i].path[0] == '[' ? PMAPS_KIND_HEAP : PMAPS_KIND_ANON);
		assert_int_equal(pmaps_maps_next(c, &m), 0);
		pmaps_maps_close(c);
	}
}

/* ---- lines longer than the buffer: truncated, reported, not dropped ---- */

static void test_long_lines(void **state)
{
	size_t n = 9000;
	char *text = malloc(n + 400);
	struct pmaps_maps *c;
	const struct pmaps_mapping *m;
	size_t off;
	(void)state;

	off = (size_t)sprintf(text, "00400000-00402000 r--p 00000000 fe:00 7 /");
	memset(text + off, 'a', n);
	off += n;
	off += (size_t)sprintf(text + off, "\nRss:                   8 kB\n"
	                                   "00500000-00501000 r--p 00000000 fe:00 8 /b\n"
	                                   "Rss:                   4 kB\n");
	/* A 4096-byte buffer: the first header is cut at the buffer's end. */
	assert_int_equal(pmaps__maps_open_mem(&c, PMAPS_SRC_SMAPS, text, off, 4096), 0);
	m = next_row(c);
	expect_set(m->flags, PMAPS_ROW_PATH_TRUNCATED);
	assert_int_equal(m->start, 0x400000);
	assert_int_equal(m->v[PMAPS_F_RSS], 8 * KB);
	m = next_row(c);
	assert_view(m->path, "/b");
	assert_int_equal(m->flags, PMAPS__ROW_SRC(PMAPS_SRC_SMAPS));
	assert_int_equal(m->v[PMAPS_F_RSS], 4 * KB);
	assert_int_equal(pmaps_maps_next(c, &m), 0);
	pmaps_maps_close(c);

	/* The default buffer holds it whole: the path comes out in full... */
	assert_int_equal(pmaps__maps_open_mem(&c, PMAPS_SRC_SMAPS, text, off, 0), 0);
	m = next_row(c);
	/* ...up to the path buffer: 8191 bytes, then flagged. */
	assert_int_equal(m->path.len, PMAPS_PATH_BUF - 1);
	expect_set(m->flags, PMAPS_ROW_PATH_TRUNCATED);
	pmaps_maps_close(c);

	/* A field line longer than the buffer is flagged on its row. */
	off = (size_t)sprintf(text, "00400000-00402000 r--p 00000000 fe:00 7 /x\nX: ");
	memset(text + off, 'b', 5000);
	off += 5000;
	off += (size_t)sprintf(text + off, "\nRss:                   8 kB\n");
	assert_int_equal(pmaps__maps_open_mem(&c, PMAPS_SRC_SMAPS, text, off, 4096), 0);
	m = next_row(c);
	expect_set(m->flags, PMAPS_ROW_LINE_TRUNCATED);
	assert_int_equal(m->v[PMAPS_F_RSS], 8 * KB);
	assert_int_equal(pmaps_maps_next(c, &m), 0);
	pmaps_maps_close(c);
	free(text);
}

/* Values of every width the fixed-width fast path handles, and one past it. */
static void test_value_widths(void **state)
{
	static const uint64_t vals[] = {0, 7, 42, 999, 1000, 9999, 10000, 12345, 1234567,
	                                99999999, 100000000};
	/* Fields with no invariant between them (Rss's parts are not all here; Referenced <= Rss). */
	static const enum pmaps_field f[] = {
		PMAPS_F_KERNEL_PAGE_SIZE, PMAPS_F_MMU_PAGE_SIZE, PMAPS_F_RSS, PMAPS_F_PSS_DIRTY,
		PMAPS_F_SHARED_CLEAN, PMAPS_F_SHARED_DIRTY, PMAPS_F_PRIVATE_CLEAN, PMAPS_F_PRIVATE_HUGETLB,
		PMAPS_F_ANONYMOUS, PMAPS_F_LAZY_FREE, PMAPS_F_SWAP};
	const uint64_t span = 100000000ull * KB; /* every value fits in the mapping */
	char t[4096];
	size_t off = 0;
	struct pmaps_maps *c;
	const struct pmaps_mapping *m;
	(void)state;

	for (int row = 0; row < 2; row++) {
		off += (size_t)sprintf(t + off, "%08llx-%08llx r--p 00000000 fe:00 7 /x\nSize: %llu kB\n",
		                       (unsigned long long)(0x400000 + row * span),
		                       (unsigned long long)(0x400000 + (row + 1) * span),
		                       (unsigned long long)(span / KB));
		for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
			char key[32];
			snprintf(key, sizeof(key), "%s:", pmaps_field_name(f[i]));
			off += (size_t)sprintf(t + off, "%-16s%8llu kB\n", key,
			                       (unsigned long long)vals[(i + (size_t)row) % 11]);
		}
	}
	assert_int_equal(pmaps__maps_open_mem(&c, PMAPS_SRC_SMAPS, t, off, 0), 0);
	for (int row = 0; row < 2; row++) {
		m = next_row(c);
		for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
			assert_int_equal(m->v[f[i]], vals[(i + (size_t)row) % 11] * KB);
	}
	assert_int_equal(pmaps_maps_next(c, &m), 0);
	pmaps_maps_close(c);
}

static void test_no_final_newline(void **state)
{
	static const char t[] = "00400000-00402000 r--p 00000000 fe:00 7 /x\nRss:     8 kB";
	struct pmaps_maps *c;
	const struct pmaps_mapping *m;
	(void)state;

	assert_int_equal(pmaps__maps_open_mem(&c, PMAPS_SRC_SMAPS, t, sizeof(t) - 1, 0), 0);
	m = next_row(c);
	assert_int_equal(m->v[PMAPS_F_RSS], 8 * KB);
	assert_int_equal(pmaps_maps_next(c, &m), 0);
	pmaps_maps_close(c);
}

static void test_too_many_unknown(void **state)
{
	char t[4096];
	size_t off = (size_t)sprintf(t, "00400000-00401000 r--p 00000000 fe:00 7 /x\n");
	struct pmaps_maps *c;
	const struct pmaps_mapping *m;
	(void)state;

	for (int i = 0; i < PMAPS_MAX_UNKNOWN + 3; i++)
		off += (size_t)sprintf(t + off, "Extra%d:   %d kB\n", i, i);
	assert_int_equal(pmaps__maps_open_mem(&c, PMAPS_SRC_SMAPS, t, off, 0), 0);
	m = next_row(c);
	assert_int_equal(m->n_unknown, PMAPS_MAX_UNKNOWN);
	expect_set(m->flags, PMAPS_ROW_UNKNOWN_DROPPED);
	assert_view(m->unknown[PMAPS_MAX_UNKNOWN - 1].name, "Extra15");
	assert_int_equal(m->unknown[PMAPS_MAX_UNKNOWN - 1].value, 15 * KB);
	pmaps_maps_close(c);

	/* A name or text longer than its slot is cut, and the row says so. */
	off = (size_t)sprintf(t, "00400000-00401000 r--p 00000000 fe:00 7 /x\n"
	                         "AVeryLongFieldNameThatNoKernelPrintsButOneMightOneDay:  5 kB\n");
	assert_int_equal(pmaps__maps_open_mem(&c, PMAPS_SRC_SMAPS, t, off, 0), 0);
	m = next_row(c);
	assert_int_equal(m->n_unknown, 1);
	assert_int_equal(m->unknown[0].name.len, PMAPS_UNKNOWN_NAME - 1);
	assert_int_equal(m->unknown[0].value, 5 * KB);
	expect_set(m->flags, PMAPS_ROW_LINE_TRUNCATED);
	pmaps_maps_close(c);
}

/* ---- injected read faults ---- */

static int fault_mode, fault_calls;

static ssize_t faulty_read(int fd, void *buf, size_t len)
{
	fault_calls++;
	switch (fault_mode) {
	case 1: /* EINTR before every read: retried */
		if (fault_calls % 2) {
			errno = EINTR;
			return -1;
		}
		return read(fd, buf, len);
	case 2: /* one byte at a time */
		return read(fd, buf, len > 0 ? 1 : 0);
	case 3: /* EIO on the third read */
		if (fault_calls == 3) {
			errno = EIO;
			return -1;
		}
		return read(fd, buf, len < 100 ? len : 100);
	}
	return read(fd, buf, len);
}

static void test_read_faults(void **state)
{
	struct pmaps_proc *proc;
	struct pmaps_maps *c = open_fixture("capture-6.18", "4242", PMAPS_SRC_SMAPS, &proc);
	struct digest ref, d;
	(void)state;

	assert_int_equal(digest_cursor(c, &ref), 0);
	pmaps__read_hook = faulty_read;
	for (fault_mode = 1; fault_mode <= 2; fault_mode++) {
		fault_calls = 0;
		assert_int_equal(pmaps_maps_rewind(c), 0);
		assert_int_equal(digest_cursor(c, &d), 0);
		assert_int_equal(d.hash, ref.hash);
		expect_gt(fault_calls, 2);
	}
	fault_mode = 3;
	fault_calls = 0;
	assert_int_equal(pmaps_maps_rewind(c), 0);
	assert_int_equal(digest_cursor(c, &d), -EIO);
	pmaps__read_hook = NULL;
	assert_int_equal(pmaps_maps_rewind(c), 0);
	assert_int_equal(digest_cursor(c, &d), 0);
	assert_int_equal(d.hash, ref.hash);
	pmaps_maps_close(c);
	pmaps_proc_close(proc);
}

/* ---- the handle ---- */

static void test_proc_open_errors(void **state)
{
	struct pmaps_proc *p;
	char root[4096];
	(void)state;

	snprintf(root, sizeof(root), "%s/edge/proc", PMAPS_TEST_DATA);
	assert_int_equal(pmaps_proc_open(&p, root, "101"), -ESRCH);
	assert_null(p);
	assert_int_equal(pmaps_proc_open(&p, root, "abc"), -EINVAL);
	assert_int_equal(pmaps_proc_open(&p, root, "-1"), -EINVAL);
	assert_int_equal(pmaps_proc_open(&p, root, ""), -EINVAL);
	assert_int_equal(pmaps_proc_open(&p, root, "0100"), -EINVAL);
	assert_int_equal(pmaps_proc_open(&p, root, "12345678901"), -EINVAL);
	assert_int_equal(pmaps_proc_open(&p, "/nonexistent/proc", "1"), -ENOENT);
	assert_int_equal(pmaps_proc_open(&p, root, "100"), 0);
	assert_int_equal(pmaps_proc_pid(p), 100);
	pmaps_proc_close(p);
	assert_int_equal(pmaps_proc_open(&p, NULL, "self"), 0);
	assert_int_equal(pmaps_proc_pid(p), getpid());
	pmaps_proc_close(p);
}

/*
 * Values no kernel prints: a sum over them could wrap (three mappings of
 * Rss 2^53 kB made a total of 8 EiB), so each record is checked against the
 * kernel's invariants and refused with its line.
 */
#define HDR1 "00400000-00402000 rw-p 00000000 00:00 0 \n"
#define HDR2 "00402000-00404000 rw-p 00000000 00:00 0 \n"
/* One record exactly as the kernel prints it: the fast paths learn from it. */
#define REC                                                                                   \
	"Size:                  8 kB\n"                                                           \
	"Rss:                   8 kB\n"                                                           \
	"Pss:                   8 kB\n"                                                           \
	"Shared_Clean:          0 kB\n"                                                           \
	"Shared_Dirty:          0 kB\n"                                                           \
	"Private_Clean:         0 kB\n"                                                           \
	"Private_Dirty:         8 kB\n"                                                           \
	"Swap:                  0 kB\n"                                                           \
	"THPeligible:           0\n"                                                              \
	"VmFlags: rd wr mr mw me ac \n"

static void test_impossible_values(void **state)
{
	(void)state;
	/* The well-formed text passes, whole. */
	{
		static const char t[] = HDR1 REC HDR2 REC;
		struct pmaps_maps *c;
		const struct pmaps_mapping *m;
		assert_int_equal(pmaps__maps_open_mem(&c, PMAPS_SRC_SMAPS, t, sizeof(t) - 1, 0), 0);
		assert_int_equal(next_row(c)->v[PMAPS_F_RSS], 8 * KB);
		assert_int_equal(next_row(c)->v[PMAPS_F_PRIVATE_DIRTY], 8 * KB);
		assert_int_equal(pmaps_maps_next(c, &m), 0);
		pmaps_maps_close(c);
	}
	expect_bad(PMAPS_SRC_SMAPS,
	           "00400000-00401000 rw-p 00000000 00:00 0 \nRss: 9007199254740992 kB\n"
	           "00401000-00402000 rw-p 00000000 00:00 0 \nRss: 9007199254740992 kB\n",
	           "mapping at line 1 (400000-401000): Rss 9007199254740992 kB is larger than the "
	           "mapping (4 kB)");
	expect_bad(PMAPS_SRC_SMAPS, HDR1 "Size: 12 kB\n", "Size 12 kB is not the mapping's length (8 kB)");
	expect_bad(PMAPS_SRC_SMAPS, HDR1 "KernelPageSize: 1048576 kB\n", "KernelPageSize 1048576 kB is larger");
	expect_bad(PMAPS_SRC_SMAPS,
	           HDR1 "Rss: 8 kB\nShared_Clean: 0 kB\nShared_Dirty: 0 kB\nPrivate_Clean: 4 kB\n"
	                "Private_Dirty: 0 kB\n",
	           "Rss 8 kB is not Shared_Clean + Shared_Dirty + Private_Clean + Private_Dirty (4 kB)");
	expect_bad(PMAPS_SRC_SMAPS, HDR1 "Rss: 4 kB\nPss: 8 kB\n", "Pss 8 kB is larger than Rss (4 kB)");
	/* A referenced page is resident: pmaps wss's idle bytes (Rss - Referenced) never wrap. */
	expect_bad(PMAPS_SRC_SMAPS, HDR1 "Rss: 4 kB\nReferenced: 8 kB\n",
	           "Referenced 8 kB is larger than Rss (4 kB)");
	/* The rollup's bound is its span, first mapping to the end of the last. */
	expect_bad(PMAPS_SRC_ROLLUP,
	           "00400000-00402000 ---p 00000000 00:00 0 [rollup]\nRss: 12 kB\n",
	           "Rss 12 kB is larger than the mapping (8 kB)");
	/* A field twice: on the general path, and after the fast path learnt the order. */
	expect_bad(PMAPS_SRC_SMAPS, HDR1 "Rss: 4 kB\nRss: 8 kB\n",
	           "line 3, byte offset 51: a field given twice for one mapping");
	expect_bad(PMAPS_SRC_SMAPS, HDR1 REC HDR2 REC "Rss:                   8 kB\n",
	           "line 23, byte offset 636: a field given twice for one mapping");
	expect_bad(PMAPS_SRC_SMAPS, HDR1 REC HDR2 "Rss:                   8 kB\n" REC,
	           "line 15, byte offset 415: a field given twice for one mapping");
	expect_bad(PMAPS_SRC_SMAPS, HDR1 REC HDR2 REC "VmFlags: rd wr \n",
	           "line 23, byte offset 636: VmFlags given twice");
	expect_bad(PMAPS_SRC_SMAPS, HDR1 REC HDR2 "THPeligible:           0\n" REC,
	           "a field given twice");
	/* Ends go backwards, or stand still. */
	expect_bad(PMAPS_SRC_MAPS, HDR2 HDR1,
	           "line 2, byte offset 41: mapping ends at or before the end of the one before it");
	expect_bad(PMAPS_SRC_MAPS, HDR1 HDR1, "ends at or before the end of the one before it");
	/*
	 * A mapping that grew between two reads is printed again from its start
	 * (the kernel resumes after the last end it printed): kept, and flagged,
	 * so that whoever sums rows knows the overlap is counted twice.
	 */
	{
		static const char t[] = HDR1 "00401000-00403000 rw-p 00000000 00:00 0 \n" HDR2;
		struct pmaps_maps *c;
		const struct pmaps_mapping *m;
		assert_int_equal(pmaps__maps_open_mem(&c, PMAPS_SRC_MAPS, t, sizeof(t) - 1, 0), 0);
		assert_int_equal(next_row(c)->flags, PMAPS__ROW_SRC(PMAPS_SRC_MAPS));
		m = next_row(c);
		assert_int_equal(m->start, 0x401000);
		assert_int_equal(m->flags, PMAPS__ROW_SRC(PMAPS_SRC_MAPS) | PMAPS_ROW_OVERLAP);
		/* HDR2 starts at 0x402000, inside the row before (to 0x403000): flagged too. */
		assert_int_equal(next_row(c)->flags, PMAPS__ROW_SRC(PMAPS_SRC_MAPS) | PMAPS_ROW_OVERLAP);
		assert_int_equal(pmaps_maps_next(c, &m), 0);
		pmaps_maps_close(c);
	}
	/* Shared memory's Swap may pass the mapping's length (the object's swap). */
	{
		static const char t[] = HDR1 "Size: 8 kB\nSwap: 1048576 kB\nSwapPss: 0 kB\n";
		struct pmaps_maps *c;
		const struct pmaps_mapping *m;
		assert_int_equal(pmaps__maps_open_mem(&c, PMAPS_SRC_SMAPS, t, sizeof(t) - 1, 0), 0);
		assert_int_equal(next_row(c)->v[PMAPS_F_SWAP], 1048576 * KB);
		assert_int_equal(pmaps_maps_next(c, &m), 0);
		pmaps_maps_close(c);
	}
}

/*
 * A fixture proc tree is a directory anyone could have written: a FIFO in
 * place of smaps would block the reader forever, a symlink could lead out of
 * the tree, a device's open has side effects. Only regular files are read.
 */
static void test_special_files(void **state)
{
	char root[] = "/tmp/pmaps-special-XXXXXX", path[4096];
	struct pmaps_proc *p;
	struct pmaps_maps *c;
	(void)state;

	assert_non_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/100", root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/100/smaps", root);
	assert_int_equal(mkfifo(path, 0644), 0);
	snprintf(path, sizeof(path), "%s/100/maps", root);
	assert_int_equal(symlink("/proc/self/maps", path), 0);
	snprintf(path, sizeof(path), "%s/100/smaps_rollup", root);
	assert_int_equal(symlink("/dev/zero", path), 0);
	snprintf(path, sizeof(path), "%s/200", root);
	assert_int_equal(symlink("100", path), 0);

	assert_int_equal(pmaps_proc_open(&p, root, "100"), 0);
	assert_int_equal(pmaps_maps_open(&c, p, PMAPS_SRC_SMAPS, 0), -EBADMSG);
	assert_string_equal(pmaps_maps_errmsg(c), "smaps: not a regular file (a symlink, FIFO or "
	                                          "device in the proc tree is never opened)");
	pmaps_maps_close(c);
	assert_int_equal(pmaps_maps_open(&c, p, PMAPS_SRC_MAPS, 0), -EBADMSG);
	expect_contains(pmaps_maps_errmsg(c), "maps: not a regular file");
	pmaps_maps_close(c);
	assert_int_equal(pmaps_maps_open(&c, p, PMAPS_SRC_ROLLUP, 0), -EBADMSG);
	pmaps_maps_close(c);
	{
		struct pmaps_pages *pg;
		snprintf(path, sizeof(path), "%s/100/pagemap", root);
		assert_int_equal(mkfifo(path, 0644), 0);
		assert_int_equal(pmaps_pages_open(&pg, p, PMAPS_PAGES_PAGEMAP, 0), -EBADMSG);
		pmaps_pages_close(pg);
		unlink(path);
	}
	pmaps_proc_close(p);
	/* The process directory itself is never a symlink. */
	assert_int_equal(pmaps_proc_open(&p, root, "200"), -ESRCH);

	const char *names[] = {"100/smaps", "100/maps", "100/smaps_rollup", "200", "100"};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", root, names[i]);
		assert_int_equal(i == 4 ? rmdir(path) : unlink(path), 0);
	}
	assert_int_equal(rmdir(root), 0);
}

/* ---- names ---- */

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(pmaps_field_name(PMAPS_F_LAZY_FREE), "LazyFree");
	assert_string_equal(pmaps_field_key(PMAPS_F_ANON_HUGE_PAGES), "anon_huge_pages");
	assert_int_equal(pmaps_field_lookup("private_dirty", 13), PMAPS_F_PRIVATE_DIRTY);
	assert_int_equal(pmaps_field_lookup("Private_Dirty", 13), PMAPS_F_PRIVATE_DIRTY);
	assert_int_equal(pmaps_field_lookup("nope", 4), -1);
	assert_null(pmaps_field_name(PMAPS_F_COUNT));
	assert_int_equal(pmaps_field_is_size(PMAPS_F_THP_ELIGIBLE), 0);
	assert_int_equal(pmaps_field_is_size(PMAPS_F_RSS), 1);
	assert_string_equal(pmaps_kind_name(PMAPS_KIND_FILE_TEXT), "file-text");
	assert_int_equal(pmaps_kind_lookup("shmem", 5), PMAPS_KIND_SHMEM);
	assert_null(pmaps_kind_name(PMAPS_KIND_COUNT));
	assert_string_equal(pmaps_vmflag_code(PMAPS_VM_UI), "ui");
	assert_string_equal(pmaps_vmflag_code(PMAPS_VM_UNKNOWN), "??");
	assert_null(pmaps_vmflag_code(PMAPS_VM_COUNT));
	assert_null(pmaps_vmflag_code(PMAPS_VM_UNKNOWN - 1));
	assert_null(pmaps_vmflag_code(PMAPS_VM_UNKNOWN + 1));
	for (int f = 0; f < PMAPS_VM_COUNT; f++) {
		const char *code = pmaps_vmflag_code((enum pmaps_vmflag)f);
		assert_int_equal(pmaps__vmflag_lookup(code[0], code[1]), f);
	}
	assert_int_equal(pmaps__vmflag_lookup('?', '?'), -1);
	assert_int_equal(pmaps__vmflag_lookup('z', 'z'), -1);
	assert_string_equal(pmaps_strerror(-ESTALE), "the process exec'd while it was read");
}

/* The library linked in is the one this header describes, 0.4.0. */
static void test_version(void **state)
{
	(void)state;
	assert_int_equal(PMAPS_VERSION_NUMBER, 400);
	assert_int_equal(pmaps_version(), PMAPS_VERSION_NUMBER);
	assert_string_equal(PMAPS_VERSION, "0.4.0");
}

/* ---- grouping ---- */

/* Rows a program builds itself can sum past 2^64: the sum stops there, flagged. */
static void test_group_saturates(void **state)
{
	struct pmaps_group *g;
	struct pmaps_mapping m;
	const struct pmaps_group_row *r;
	(void)state;

	memset(&m, 0, sizeof(m));
	m.start = 0;
	m.end = 1ull << 63;
	m.v[PMAPS_F_RSS] = 1ull << 63;
	m.v[PMAPS_F_SWAP] = 1;
	m.present = 1ull << PMAPS_F_RSS | 1ull << PMAPS_F_SWAP;
	assert_int_equal(pmaps_group_open(&g, PMAPS_GROUP_TOTAL), 0);
	assert_int_equal(pmaps_group_add(g, &m), 0);
	r = pmaps_group_get(g, 0);
	assert_int_equal(r->flags, 0);
	assert_int_equal(r->v[PMAPS_F_RSS], 1ull << 63);
	assert_int_equal(pmaps_group_add(g, &m), 0); /* 2^63 + 2^63 does not fit */
	r = pmaps_group_get(g, 0);
	assert_int_equal(r->v[PMAPS_F_RSS], UINT64_MAX);
	assert_int_equal(r->vsize, UINT64_MAX);
	assert_int_equal(r->v[PMAPS_F_SWAP], 2);
	assert_int_equal(r->flags, PMAPS_GROUP_SATURATED);
	pmaps_group_reset(g);
	assert_int_equal(pmaps_group_add(g, &m), 0);
	assert_int_equal(pmaps_group_get(g, 0)->flags, 0);
	pmaps_group_close(g);
}

/* Two files whose paths were cut to the same start stay two groups. */
static void test_group_cut_paths(void **state)
{
	struct pmaps_group *g;
	struct pmaps_mapping m;
	const struct pmaps_group_row *r;
	(void)state;

	memset(&m, 0, sizeof(m));
	m.path.ptr = "/very/long/path/cut/here";
	m.path.len = strlen(m.path.ptr);
	m.flags = PMAPS_ROW_PATH_TRUNCATED;
	m.end = 4096;
	m.inode = 7;
	assert_int_equal(pmaps_group_open(&g, PMAPS_GROUP_PATH), 0);
	assert_int_equal(pmaps_group_add(g, &m), 0);
	m.start = 4096, m.end = 8192, m.inode = 8;
	assert_int_equal(pmaps_group_add(g, &m), 0);
	m.start = 8192, m.end = 12288, m.inode = 7;
	assert_int_equal(pmaps_group_add(g, &m), 0);
	/* The same start, whole: a third group, not flagged. */
	m.start = 12288, m.end = 16384, m.flags = 0;
	assert_int_equal(pmaps_group_add(g, &m), 0);
	assert_int_equal(pmaps_group_count(g), 3);
	r = pmaps_group_get(g, 0);
	assert_int_equal(r->mappings, 2);
	assert_int_equal(r->flags, PMAPS_GROUP_PATH_TRUNCATED);
	r = pmaps_group_get(g, 1);
	assert_int_equal(r->mappings, 1);
	assert_int_equal(r->flags, PMAPS_GROUP_PATH_TRUNCATED);
	r = pmaps_group_get(g, 2);
	assert_int_equal(r->mappings, 1);
	assert_int_equal(r->flags, 0);
	pmaps_group_close(g);
}

static void test_group(void **state)
{
	struct pmaps_proc *proc;
	struct pmaps_maps *c = open_fixture("capture-6.18", "4242", PMAPS_SRC_SMAPS, &proc);
	struct pmaps_maps *r;
	struct pmaps_group *byp, *byk, *tot;
	const struct pmaps_mapping *m;
	const struct pmaps_group_row *g;
	uint64_t rss = 0, sum = 0, mappings = 0;
	(void)state;

	assert_int_equal(pmaps_group_open(&byp, PMAPS_GROUP_PATH), 0);
	assert_int_equal(pmaps_group_open(&byk, PMAPS_GROUP_KIND), 0);
	assert_int_equal(pmaps_group_open(&tot, PMAPS_GROUP_TOTAL), 0);
	while (pmaps_maps_next(c, &m) > 0) {
		assert_int_equal(pmaps_group_add(byp, m), 0);
		assert_int_equal(pmaps_group_add(byk, m), 0);
		assert_int_equal(pmaps_group_add(tot, m), 0);
		rss += m->v[PMAPS_F_RSS];
	}
	g = pmaps_group_get(tot, 0);
	assert_int_equal(g->v[PMAPS_F_RSS], rss);
	assert_int_equal(g->mappings, 37);
	assert_null(pmaps_group_get(tot, 1));
	/* Per path and per kind, the parts add up to the total. */
	for (size_t i = 0; i < pmaps_group_count(byp); i++) {
		g = pmaps_group_get(byp, i);
		sum += g->v[PMAPS_F_RSS];
		mappings += g->mappings;
	}
	assert_int_equal(sum, rss);
	assert_int_equal(mappings, 37);
	sum = mappings = 0;
	for (size_t i = 0; i < pmaps_group_count(byk); i++) {
		g = pmaps_group_get(byk, i);
		sum += g->v[PMAPS_F_RSS];
		mappings += g->mappings;
	}
	assert_int_equal(sum, rss);
	assert_int_equal(mappings, 37);
	/* The first path is the program, in its 5 mappings. */
	g = pmaps_group_get(byp, 0);
	assert_view(g->key, "/usr/bin/sleep");
	assert_int_equal(g->mappings, 5);
	/* The capture's smaps and its own smaps_rollup agree on Rss. */
	assert_int_equal(pmaps_maps_open(&r, proc, PMAPS_SRC_ROLLUP, 0), 0);
	assert_int_equal(pmaps_maps_next(r, &m), 1);
	assert_int_equal(m->v[PMAPS_F_RSS], rss);
	pmaps_maps_close(r);
	/* Reset keeps the storage; a second pass gives the same groups. */
	size_t n = pmaps_group_count(byp);
	pmaps_group_reset(byp);
	assert_int_equal(pmaps_group_count(byp), 0);
	assert_int_equal(pmaps_maps_rewind(c), 0);
	while (pmaps_maps_next(c, &m) > 0)
		assert_int_equal(pmaps_group_add(byp, m), 0);
	assert_int_equal(pmaps_group_count(byp), n);
	pmaps_group_close(byp);
	pmaps_group_close(byk);
	pmaps_group_close(tot);
	pmaps_maps_close(c);
	pmaps_proc_close(proc);
}

static void test_group_many_paths(void **state)
{
	/* Enough distinct paths to grow rows, slots and arena several times. */
	struct pmaps_group *g;
	struct pmaps_mapping m;
	char path[64];
	(void)state;

	memset(&m, 0, sizeof(m));
	assert_int_equal(pmaps_group_open(&g, PMAPS_GROUP_PATH), 0);
	for (int round = 0; round < 2; round++)
		for (int i = 0; i < 5000; i++) {
			m.path.len = (size_t)snprintf(path, sizeof(path), "/lib/%d/libx.so", i);
			m.path.ptr = path;
			m.start = (uint64_t)i << 12;
			m.end = m.start + 4096;
			m.v[PMAPS_F_RSS] = (uint64_t)i;
			m.present = 1ull << PMAPS_F_RSS;
			assert_int_equal(pmaps_group_add(g, &m), 0);
		}
	assert_int_equal(pmaps_group_count(g), 5000);
	for (int i = 0; i < 5000; i += 997) {
		const struct pmaps_group_row *r = pmaps_group_get(g, (size_t)i);
		char want[64];
		snprintf(want, sizeof(want), "/lib/%d/libx.so", i);
		assert_view(r->key, want);
		assert_int_equal(r->mappings, 2);
		assert_int_equal(r->v[PMAPS_F_RSS], 2 * (uint64_t)i);
		assert_int_equal(r->vsize, 8192);
	}
	pmaps_group_close(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_edge_rows),
		cmocka_unit_test(test_chunks_edge),
		cmocka_unit_test(test_chunks_capture),
		cmocka_unit_test(test_old_kernels),
		cmocka_unit_test(test_rollup),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_header_forms),
		cmocka_unit_test(test_long_lines),
		cmocka_unit_test(test_value_widths),
		cmocka_unit_test(test_no_final_newline),
		cmocka_unit_test(test_too_many_unknown),
		cmocka_unit_test(test_read_faults),
		cmocka_unit_test(test_proc_open_errors),
		cmocka_unit_test(test_impossible_values),
		cmocka_unit_test(test_special_files),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_version),
		cmocka_unit_test(test_group),
		cmocka_unit_test(test_group_saturates),
		cmocka_unit_test(test_group_cut_paths),
		cmocka_unit_test(test_group_many_paths),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
