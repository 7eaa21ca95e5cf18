/* SPDX-License-Identifier: MIT */
/*
 * test_explain.c - explain's model on fixture proc trees (tests/data/
 * explain-*, written by tests/data/explain-fixtures.py): every category,
 * every runtime rule, every note where its condition holds and where it does
 * not, the reconciliation figures, the status reader, and a session run
 * again without allocating. Expected figures are the fixture's own numbers
 * (kB, as the generator states them per mapping), summed here.
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

#include "../count_alloc.h"
#include "internal.h"
#include "readers.h"
#include "testhooks.h"
#include "../expect.h"

#define KB 1024ull
#define MB (1024ull * KB)

static struct pmaps_proc *open_tree(const char *tree, const char *pid)
{
	struct pmaps_proc *p = NULL;
	char root[4096];

	snprintf(root, sizeof(root), "%s/%s/proc", PMAPS_TEST_DATA, tree);
	assert_int_equal(pmaps_proc_open(&p, root, pid), 0);
	return p;
}

/* The result of one run of a session on TREE's PID, copied into X. */
static void explain_tree(const char *tree, const char *pid, struct pmaps_explain *x)
{
	struct pmaps_proc *p = open_tree(tree, pid);
	char msg[256];
	int r;

	x->size = sizeof(*x);
	r = pmaps_explain(p, x, 0, msg, sizeof(msg));
	if (r != 0)
		fail_msg("explain %s/%s: %d %s", tree, pid, r, msg);
	pmaps_proc_close(p);
}

static const struct pmaps_note *find_note(const struct pmaps_explain *x, enum pmaps_note_kind k)
{
	for (unsigned i = 0; i < x->nnotes; i++)
		if (x->notes[i].kind == k)
			return &x->notes[i];
	return NULL;
}

static void assert_note(const struct pmaps_explain *x, enum pmaps_note_kind k, uint64_t n0,
                        uint64_t n1)
{
	const struct pmaps_note *n = find_note(x, k);

	if (!n)
		fail_msg("note %s absent, expected n = {%llu, %llu}", pmaps_note_key(k),
		         (unsigned long long)n0, (unsigned long long)n1);
	assert_int_equal(n->n[0], n0);
	assert_int_equal(n->n[1], n1);
}

static void assert_no_note(const struct pmaps_explain *x, enum pmaps_note_kind k)
{
	const struct pmaps_note *n = find_note(x, k);

	if (n)
		fail_msg("note %s present (n = {%llu, %llu}), expected absent", pmaps_note_key(k),
		         (unsigned long long)n->n[0], (unsigned long long)n->n[1]);
}

/* The notes, in enum order, are exactly KINDS. */
static void assert_notes(const struct pmaps_explain *x, const enum pmaps_note_kind *kinds,
                         unsigned n)
{
	assert_int_equal(x->nnotes, n);
	for (unsigned i = 0; i < n; i++)
		assert_string_equal(pmaps_note_key(x->notes[i].kind), pmaps_note_key(kinds[i]));
}

static void assert_cat(const struct pmaps_explain *x, enum pmaps_xcat c, uint64_t maps,
                       uint64_t rss)
{
	if (x->mappings[c] != maps || x->v[c][PMAPS_XC_RSS] != rss)
		fail_msg("%s: %llu mappings, RSS %llu; expected %llu, %llu", pmaps_xcat_name(c),
		         (unsigned long long)x->mappings[c],
		         (unsigned long long)x->v[c][PMAPS_XC_RSS], (unsigned long long)maps,
		         (unsigned long long)rss);
}

/* ------------------------------------------------------------------ */
/* glibc: every category and every generic note                        */

/* explain-glibc/proc/100, mapping by mapping (kB). */
#define G_FILE_RO (4 + 4)         /* app r--p private clean, libc r--p shared clean */
#define G_FILE_TEXT (8 + 8)       /* app and libc r-xp, shared clean */
#define G_FILE_DATA 4             /* app rw-p private dirty, locked */
#define G_HEAP 400                /* [heap], LazyFree 40 */
#define G_ANON 2304               /* anon, AnonHugePages 2048, LazyFree 64, Swap 12 */
#define G_ARENA 128               /* the 64 MiB-aligned heap with its ---p rest */
#define G_STACK_SP 16             /* thread 101's stack pointer is in it */
#define G_STACK_GUESS 8           /* above a guard; thread 102 is "running" */
#define G_NAMED 32                /* [anon:myname] */
#define G_SHMEM 64                /* memfd, shared dirty, Pss 32 */
#define G_MAIN_STACK 20
#define G_VDSO 4
#define G_TOTAL (G_FILE_RO + G_FILE_TEXT + G_FILE_DATA + G_HEAP + G_ANON + G_ARENA +           \
                 G_STACK_SP + G_STACK_GUESS + G_NAMED + G_SHMEM + G_MAIN_STACK + G_VDSO)

static void test_glibc_categories(void **state)
{
	static struct pmaps_explain x;

	(void)state;
	explain_tree("explain-glibc", "100", &x);
	assert_cat(&x, PMAPS_X_FILE_RO, 2, G_FILE_RO * KB);
	assert_cat(&x, PMAPS_X_FILE_TEXT, 2, G_FILE_TEXT * KB);
	assert_cat(&x, PMAPS_X_FILE_DATA, 1, G_FILE_DATA * KB);
	assert_cat(&x, PMAPS_X_HEAP, 1, G_HEAP * KB);
	assert_cat(&x, PMAPS_X_ANON, 1, G_ANON * KB);
	assert_cat(&x, PMAPS_X_RUNTIME_HEAP, 1, G_ARENA * KB);
	assert_cat(&x, PMAPS_X_THREAD_STACK, 2, (G_STACK_SP + G_STACK_GUESS) * KB);
	assert_cat(&x, PMAPS_X_ANON_NAMED, 1, G_NAMED * KB);
	assert_cat(&x, PMAPS_X_SHMEM, 1, G_SHMEM * KB);
	assert_cat(&x, PMAPS_X_HUGETLB, 1, 0);
	assert_cat(&x, PMAPS_X_MAIN_STACK, 1, G_MAIN_STACK * KB);
	/* [vdso], [vsyscall] and three inaccessible mappings */
	assert_cat(&x, PMAPS_X_OTHER, 5, G_VDSO * KB);
	assert_int_equal(x.nmappings, 19);
	assert_int_equal(x.total[PMAPS_XC_RSS], G_TOTAL * KB);
	assert_int_equal(x.v[PMAPS_X_SHMEM][PMAPS_XC_PSS], 32 * KB);
	assert_int_equal(x.v[PMAPS_X_FILE_DATA][PMAPS_XC_LOCKED], 4 * KB);
	assert_int_equal(x.v[PMAPS_X_ANON][PMAPS_XC_THP], 2048 * KB);
	assert_int_equal(x.v[PMAPS_X_ANON][PMAPS_XC_SWAP], 12 * KB);
	assert_int_equal(x.total[PMAPS_XC_LAZYFREE], (40 + 64) * KB);
	/* Threads: 3 tasks, one pointer in [stack], one in a mapping, one running. */
	assert_int_equal(x.threads, 3);
	assert_int_equal(x.stacks_found, 1);
	assert_int_equal(x.stacks_guessed, 1);
	assert_int_equal(x.runtime_kind, PMAPS_RUNTIME_GLIBC);
	assert_int_equal(x.arenas, 1);
	/* The largest mapping is the anon one; the arena's is marked as the runtime's. */
	assert_int_equal(x.top[0].start, 0x7e0000200000ull);
	assert_int_equal(x.top[0].cat, PMAPS_X_ANON);
	for (unsigned i = 0; i < x.ntop; i++)
		if (x.top[i].start == 0x7e0004000000ull)
			assert_int_equal(x.top[i].cat, PMAPS_X_RUNTIME_HEAP);
}

static void test_glibc_reconciliation(void **state)
{
	static struct pmaps_explain x;
	uint64_t pd = G_FILE_DATA + G_HEAP + G_ANON + G_ARENA + G_STACK_SP + G_STACK_GUESS +
	              G_NAMED + G_MAIN_STACK;
	uint64_t pc = 4; /* the app's r--p */

	(void)state;
	explain_tree("explain-glibc", "100", &x);
	assert_int_equal(x.uss, (pd + pc) * KB);
	assert_int_equal(x.effective_rss, (G_TOTAL - 40 - 64) * KB);
	/* smaps_rollup: 8 kB more; status: VmRSS 2880 + 36 + 100 = 3016 kB. */
	assert_int_equal(x.have_rollup, 1);
	assert_int_equal(x.rollup[PMAPS_F_RSS], (G_TOTAL + 8) * KB);
	assert_int_equal(x.rollup_apart, 8 * KB);
	assert_int_equal(x.status.v[PMAPS_ST_VM_RSS], 3016 * KB);
	assert_int_equal(x.status_apart, (3016 - G_TOTAL) * KB);
	assert_int_equal(x.status_parts_agree, 1);
	assert_int_equal(x.status.v[PMAPS_ST_THREADS], 3);
	assert_int_equal(x.status.v[PMAPS_ST_EUID], 1001);
}

static void test_glibc_notes(void **state)
{
	static struct pmaps_explain x;
	static const enum pmaps_note_kind kinds[] = {
		PMAPS_NOTE_GLIBC_ARENAS, PMAPS_NOTE_ANON_DIRTY, PMAPS_NOTE_LAZYFREE, PMAPS_NOTE_FILE,
		PMAPS_NOTE_SHMEM, PMAPS_NOTE_STACKS, PMAPS_NOTE_THP, PMAPS_NOTE_SWAP,
	};

	(void)state;
	explain_tree("explain-glibc", "100", &x);
	assert_notes(&x, kinds, sizeof(kinds) / sizeof(kinds[0]));
	assert_note(&x, PMAPS_NOTE_GLIBC_ARENAS, 1, G_ARENA * KB);
	assert_note(&x, PMAPS_NOTE_ANON_DIRTY, (G_HEAP + G_ANON + G_NAMED) * KB, 0);
	assert_note(&x, PMAPS_NOTE_LAZYFREE, (40 + 64) * KB, 0);
	/* file: all three file categories; clean: private clean 4 + shared clean 8 + 8 + 4 */
	assert_note(&x, PMAPS_NOTE_FILE, (G_FILE_RO + G_FILE_TEXT + G_FILE_DATA) * KB,
	            (4 + 4 + 8 + 8) * KB);
	assert_note(&x, PMAPS_NOTE_SHMEM, G_SHMEM * KB, 32 * KB);
	assert_note(&x, PMAPS_NOTE_STACKS, (G_STACK_SP + G_STACK_GUESS + G_MAIN_STACK) * KB, 0);
	assert_note(&x, PMAPS_NOTE_THP, 2048 * KB, 0);
	assert_note(&x, PMAPS_NOTE_SWAP, 12 * KB, 0);
}

/* ------------------------------------------------------------------ */
/* No condition holds                                                  */

static void test_quiet(void **state)
{
	static struct pmaps_explain x;

	(void)state;
	explain_tree("explain-quiet", "100", &x);
	assert_int_equal(x.nnotes, 0);
	/* libc named, but the aligned mapping's rest stops short of 64 MiB: no arena. */
	assert_int_equal(x.runtime_kind, PMAPS_RUNTIME_GLIBC);
	assert_int_equal(x.arenas, 0);
	assert_cat(&x, PMAPS_X_ANON, 1, 8 * KB);
	assert_cat(&x, PMAPS_X_RUNTIME_HEAP, 0, 0);
	assert_cat(&x, PMAPS_X_HEAP, 1, 40 * KB);
	assert_int_equal(x.v[PMAPS_X_HEAP][PMAPS_XC_PRIVATE_DIRTY], 0);
	assert_cat(&x, PMAPS_X_SHMEM, 1, 0);
	assert_cat(&x, PMAPS_X_FILE_TEXT, 1, 0);
	assert_cat(&x, PMAPS_X_MAIN_STACK, 1, 0);
	assert_cat(&x, PMAPS_X_THREAD_STACK, 0, 0);
	assert_cat(&x, PMAPS_X_OTHER, 2, 4 * KB);
	assert_int_equal(x.threads, 0);
	/* No status file and no smaps_rollup: nothing to reconcile with. */
	assert_int_equal(x.status.present, 0);
	assert_int_equal(x.status_apart, 0);
	assert_int_equal(x.status_parts_agree, 0);
	assert_int_equal(x.have_rollup, 0);
	assert_int_equal(x.rollup_apart, 0);
	assert_int_equal(x.uss, 0);
	assert_int_equal(x.effective_rss, (40 + 8 + 4) * KB);
	for (int k = 0; k < PMAPS_NOTE_COUNT; k++)
		assert_no_note(&x, (enum pmaps_note_kind)k);
}

/* ------------------------------------------------------------------ */
/* Runtimes                                                            */

static void test_jvm_heap(void **state)
{
	static struct pmaps_explain x;
	static const enum pmaps_note_kind kinds[] = {
		PMAPS_NOTE_JVM_HEAP, PMAPS_NOTE_ANON_DIRTY, PMAPS_NOTE_FILE,
	};

	(void)state;
	explain_tree("explain-jvm", "200", &x);
	assert_int_equal(x.runtime_kind, PMAPS_RUNTIME_JVM);
	assert_string_equal(x.runtime_version, "java-17-openjdk-amd64");
	/* G1's generations say 64 MiB + 24 bytes: rounded to the page, the run's span. */
	assert_int_equal(x.jvm_heap_start, 0x7f1000000000ull);
	assert_int_equal(x.jvm_heap_end, 0x7f1000000000ull + 64 * MB);
	assert_cat(&x, PMAPS_X_RUNTIME_HEAP, 1, 1024 * KB);
	assert_cat(&x, PMAPS_X_ANON, 1, 64 * KB);
	/* libc is mapped, but the JVM's allocator is the one that matters. */
	assert_int_equal(x.arenas, 0);
	assert_notes(&x, kinds, sizeof(kinds) / sizeof(kinds[0]));
	assert_note(&x, PMAPS_NOTE_JVM_HEAP, 1024 * KB, 64 * MB);
	assert_note(&x, PMAPS_NOTE_ANON_DIRTY, 64 * KB, 0);
	/* libjvm 100 + libc 8 shared clean, hsperfdata 32 shared dirty */
	assert_note(&x, PMAPS_NOTE_FILE, (100 + 8 + 32) * KB, (100 + 8) * KB);
}

static void test_jvm_without_heap(void **state)
{
	static struct pmaps_explain x;
	const char *const pids[] = {"201", "202"}; /* no hsperfdata; one that is another file */

	(void)state;
	for (int i = 0; i < 2; i++) {
		explain_tree("explain-jvm", pids[i], &x);
		assert_int_equal(x.runtime_kind, PMAPS_RUNTIME_JVM);
		assert_int_equal(x.jvm_heap_end, 0);
		assert_cat(&x, PMAPS_X_RUNTIME_HEAP, 0, 0);
		assert_cat(&x, PMAPS_X_ANON, 2, (1024 + 64) * KB);
		assert_note(&x, PMAPS_NOTE_JVM, 0, 0);
		assert_no_note(&x, PMAPS_NOTE_JVM_HEAP);
		assert_no_note(&x, PMAPS_NOTE_GLIBC_ARENAS);
	}
	/* 202's hsperfdata line names an inode the file under root/ does not have. */
	assert_non_null(strstr(x.runtime_evidence, "heap size not known"));
}

static void test_cpython(void **state)
{
	static struct pmaps_explain x;
	static const enum pmaps_note_kind kinds[] = {
		PMAPS_NOTE_CPYTHON, PMAPS_NOTE_ANON_DIRTY, PMAPS_NOTE_FILE,
	};

	(void)state;
	explain_tree("explain-cpython", "300", &x);
	assert_int_equal(x.runtime_kind, PMAPS_RUNTIME_CPYTHON);
	assert_string_equal(x.runtime_version, "3.11");
	assert_int_equal(x.arenas, 0);
	assert_cat(&x, PMAPS_X_ANON, 1, 256 * KB);
	assert_notes(&x, kinds, sizeof(kinds) / sizeof(kinds[0]));
	assert_note(&x, PMAPS_NOTE_FILE, (40 + 8) * KB, (40 + 8) * KB);
	/* No other runtime's note; glibc's none either. */
	assert_no_note(&x, PMAPS_NOTE_JVM);
	assert_no_note(&x, PMAPS_NOTE_GO_HEAP);
}

static void test_go_heap(void **state)
{
	static struct pmaps_explain x;
	static const enum pmaps_note_kind kinds[] = {
		PMAPS_NOTE_GO_HEAP, PMAPS_NOTE_GO_LAZYFREE, PMAPS_NOTE_ANON_DIRTY,
		PMAPS_NOTE_LAZYFREE, PMAPS_NOTE_FILE,
	};

	(void)state;
	explain_tree("explain-go", "400", &x);
	assert_int_equal(x.runtime_kind, PMAPS_RUNTIME_GO);
	assert_string_equal(x.runtime_version, "go1.22.1");
	assert_int_equal(x.go_labels, 1);
	/* From the hint 0xc000000000: 1024 kB; "[anon: Go: heap]": 64 kB. */
	assert_cat(&x, PMAPS_X_RUNTIME_HEAP, 2, (1024 + 64) * KB);
	assert_cat(&x, PMAPS_X_ANON, 1, 128 * KB);
	assert_notes(&x, kinds, sizeof(kinds) / sizeof(kinds[0]));
	assert_note(&x, PMAPS_NOTE_GO_HEAP, (1024 + 64) * KB, 0);
	assert_note(&x, PMAPS_NOTE_GO_LAZYFREE, 256 * KB, 0);
	assert_note(&x, PMAPS_NOTE_ANON_DIRTY, 128 * KB, 0);
	/* LazyFree 256 + 32 in all; the Go heap's is told apart. */
	assert_note(&x, PMAPS_NOTE_LAZYFREE, 32 * KB, 0);
	assert_note(&x, PMAPS_NOTE_FILE, 100 * KB, 100 * KB);
}

static void test_go_without_heap(void **state)
{
	static struct pmaps_explain x;

	(void)state;
	explain_tree("explain-go", "401", &x);
	assert_int_equal(x.runtime_kind, PMAPS_RUNTIME_GO);
	assert_cat(&x, PMAPS_X_RUNTIME_HEAP, 0, 0);
	assert_no_note(&x, PMAPS_NOTE_GO_HEAP);
	assert_no_note(&x, PMAPS_NOTE_GO_LAZYFREE);
	assert_note(&x, PMAPS_NOTE_LAZYFREE, 16 * KB, 0);
}

static void test_go_heap_without_lazyfree(void **state)
{
	static struct pmaps_explain x;

	(void)state;
	explain_tree("explain-go", "402", &x);
	assert_note(&x, PMAPS_NOTE_GO_HEAP, 512 * KB, 0);
	assert_no_note(&x, PMAPS_NOTE_GO_LAZYFREE);
	assert_no_note(&x, PMAPS_NOTE_LAZYFREE);
	assert_no_note(&x, PMAPS_NOTE_ANON_DIRTY);
}

/* Outside a Go process no note names Go: its LazyFree is LAZYFREE, never GO_LAZYFREE. */
static void test_no_runtime_named_when_absent(void **state)
{
	static struct pmaps_explain x;
	const char *const trees[][2] = {
		{"explain-glibc", "100"}, {"explain-quiet", "100"}, {"explain-jvm", "200"},
		{"explain-cpython", "300"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(trees) / sizeof(trees[0]); i++) {
		explain_tree(trees[i][0], trees[i][1], &x);
		assert_no_note(&x, PMAPS_NOTE_GO_HEAP);
		assert_no_note(&x, PMAPS_NOTE_GO_LAZYFREE);
		if (x.runtime_kind != PMAPS_RUNTIME_JVM) {
			assert_no_note(&x, PMAPS_NOTE_JVM);
			assert_no_note(&x, PMAPS_NOTE_JVM_HEAP);
		}
		if (x.runtime_kind != PMAPS_RUNTIME_CPYTHON)
			assert_no_note(&x, PMAPS_NOTE_CPYTHON);
	}
}

/* ------------------------------------------------------------------ */
/* Page evidence                                                       */

static void explain_pages(const char *tree, struct pmaps_explain *x)
{
	struct pmaps_proc *p = open_tree(tree, "300");
	char msg[256];
	int r;

	x->size = sizeof(*x);
	r = pmaps_explain(p, x, PMAPS_EXPLAIN_PAGES, msg, sizeof(msg));
	if (r != 0)
		fail_msg("explain --pages %s: %d %s", tree, r, msg);
	pmaps_proc_close(p);
}

static void assert_pages(const struct pmaps_explain *x, enum pmaps_xcat c,
                         const uint64_t want[PMAPS_XP_COUNT])
{
	for (int k = 0; k < PMAPS_XP_COUNT; k++)
		if (x->pg[c][k] != want[k])
			fail_msg("%s %s: %llu bytes, expected %llu", pmaps_xcat_name(c),
			         pmaps_xpage_key((enum pmaps_xpage)k), (unsigned long long)x->pg[c][k],
			         (unsigned long long)want[k]);
}

/*
 * The page tables of tests/data/pages (as pmaps pages --summary counts
 * them, in pages of 4 KiB): the program's text 10 resident, 5 of them
 * mapped twice; the heap 4 resident, 2 dirty, 1 lazily freed, 1 mapped
 * twice; the anonymous mapping 2 resident, dirty, in a THP.
 */
static void test_pages_evidence(void **state)
{
	static struct pmaps_explain x;
	const uint64_t pg = 4096;
	const uint64_t text[PMAPS_XP_COUNT] = {10 * pg, 0, 0, 5 * pg, 0, 0};
	const uint64_t heap[PMAPS_XP_COUNT] = {4 * pg, 2 * pg, 1 * pg, 1 * pg, 0, 0};
	const uint64_t anon[PMAPS_XP_COUNT] = {2 * pg, 2 * pg, 0, 0, 2 * pg, 0};

	(void)state;
	explain_pages("explain-pages", &x);
	assert_int_equal(x.pages, 1);
	assert_int_equal(x.pages_kpage, 1);
	assert_int_equal(x.pages_strategy, PMAPS_PAGES_PAGEMAP);
	assert_int_equal(x.pages_known, (1u << PMAPS_XP_COUNT) - 1);
	assert_string_equal(x.pages_note, "");
	assert_pages(&x, PMAPS_X_FILE_TEXT, text);
	assert_pages(&x, PMAPS_X_HEAP, heap);
	assert_pages(&x, PMAPS_X_ANON, anon);
	/* Resident pages are smaps' Rss, category by category. */
	for (int c = 0; c < PMAPS_X_COUNT; c++)
		assert_int_equal(x.pg[c][PMAPS_XP_RESIDENT], x.v[c][PMAPS_XC_RSS]);
}

/* Without kpageflags, pagemap tells resident pages only; the note says why. */
static void test_pages_without_kpage(void **state)
{
	static struct pmaps_explain x;
	const uint64_t pg = 4096;
	const uint64_t heap[PMAPS_XP_COUNT] = {4 * pg, 0, 0, 0, 0, 0};

	(void)state;
	explain_pages("explain-pages-nokpage", &x);
	assert_int_equal(x.pages, 1);
	assert_int_not_equal(x.pages_kpage, 1);
	assert_int_equal(x.pages_known, 1u << PMAPS_XP_RESIDENT);
	assert_non_null(strstr(x.pages_note, "kpageflags"));
	assert_pages(&x, PMAPS_X_HEAP, heap);

	/* Without the option: no walk, nothing known. */
	explain_tree("explain-pages", "300", &x);
	assert_int_equal(x.pages, 0);
	assert_int_equal(x.pages_known, 0);
	assert_int_equal(x.pg[PMAPS_X_HEAP][PMAPS_XP_RESIDENT], 0);
}

/* ------------------------------------------------------------------ */
/* Names                                                               */

static void test_keys(void **state)
{
	static const char *const notes[PMAPS_NOTE_COUNT] = {
		"go-heap", "go-lazy-free", "jvm-heap", "jvm", "cpython", "glibc-arenas",
		"anon-dirty", "lazy-free", "file", "shmem", "stacks", "thp", "swap",
	};
	static const char *const xpages[PMAPS_XP_COUNT] = {
		"resident", "kpf_dirty", "lazy_free", "mapped_by_2_or_more", "kpf_thp", "zero",
	};
	static const char *const status[PMAPS_ST_COUNT] = {
		"vm_size", "vm_rss", "rss_anon", "rss_file", "rss_shmem", "vm_hwm", "vm_pte",
		"vm_swap", "threads", "uid", "euid", "gid", "egid", "state", "nspid", "ppid",
		"vm_lck",
	};

	(void)state;
	for (int k = 0; k < PMAPS_NOTE_COUNT; k++)
		assert_string_equal(pmaps_note_key((enum pmaps_note_kind)k), notes[k]);
	for (int k = 0; k < PMAPS_XP_COUNT; k++)
		assert_string_equal(pmaps_xpage_key((enum pmaps_xpage)k), xpages[k]);
	for (int k = 0; k < PMAPS_ST_COUNT; k++)
		assert_string_equal(pmaps_status_key((enum pmaps_status_field)k), status[k]);
	assert_null(pmaps_note_key(PMAPS_NOTE_COUNT));
	assert_null(pmaps_xpage_key(PMAPS_XP_COUNT));
	assert_null(pmaps_status_key(PMAPS_ST_COUNT));
	assert_null(pmaps_note_key((enum pmaps_note_kind)-1));
}

/* ------------------------------------------------------------------ */
/* status                                                              */

static void test_status_read(void **state)
{
	struct pmaps_proc *p = open_tree("explain-glibc", "100");
	struct pmaps_status st = {.size = sizeof(struct pmaps_status)};
	char msg[256];

	(void)state;
	assert_int_equal(pmaps_status_read(p, &st, msg, sizeof(msg)), 0);
	assert_string_equal(msg, "");
	/* Every figure but NSpid (a kernel before 4.1) and PPid, which this capture has no line of. */
	assert_int_equal(st.present, ((1ull << PMAPS_ST_COUNT) - 1) &
	                                 ~(1ull << PMAPS_ST_NSPID | 1ull << PMAPS_ST_PPID));
	assert_int_equal(st.v[PMAPS_ST_STATE], 'S');
	assert_int_equal(st.v[PMAPS_ST_GID], 0);
	assert_int_equal(st.v[PMAPS_ST_EGID], 0);
	assert_int_equal(st.v[PMAPS_ST_VM_SIZE], 200000 * KB);
	assert_int_equal(st.v[PMAPS_ST_VM_RSS], 3016 * KB);
	assert_int_equal(st.v[PMAPS_ST_RSS_ANON], 2880 * KB);
	assert_int_equal(st.v[PMAPS_ST_RSS_FILE], 36 * KB);
	assert_int_equal(st.v[PMAPS_ST_RSS_SHMEM], 100 * KB);
	assert_int_equal(st.v[PMAPS_ST_VM_HWM], 9000 * KB);
	assert_int_equal(st.v[PMAPS_ST_VM_PTE], 48 * KB);
	assert_int_equal(st.v[PMAPS_ST_VM_LCK], 64 * KB);
	assert_int_equal(st.v[PMAPS_ST_VM_SWAP], 12 * KB);
	assert_int_equal(st.v[PMAPS_ST_THREADS], 3);
	assert_int_equal(st.v[PMAPS_ST_UID], 1000);
	assert_int_equal(st.v[PMAPS_ST_EUID], 1001);
	pmaps_proc_close(p);

	/* No status file in the tree. */
	p = open_tree("explain-quiet", "100");
	assert_int_equal(pmaps_status_read(p, &st, NULL, 0), -ENOENT);
	assert_int_equal(st.present, 0);
	pmaps_proc_close(p);
}

/* badstatus/4242: VmRSS no number; 4243: VmRSS other than its parts. */
static void test_status_refused(void **state)
{
	const char *const pids[] = {"4242", "4243"};
	struct pmaps_status st = {.size = sizeof(struct pmaps_status)};
	char msg[256];

	(void)state;
	for (int i = 0; i < 2; i++) {
		struct pmaps_proc *p = open_tree("badstatus", pids[i]);
		assert_int_equal(pmaps_status_read(p, &st, msg, sizeof(msg)), -EBADMSG);
		assert_non_null(strstr(msg, "no kernel prints that"));
		pmaps_proc_close(p);
	}
}

/* A status written into a temporary tree: proc/1/status. */
static struct pmaps_proc *status_tree(char *dir, const char *text)
{
	char path[512];
	struct pmaps_proc *p = NULL;
	FILE *f;

	strcpy(dir, "/tmp/pmaps-status-XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/1", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/1/status", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(pmaps_proc_open(&p, dir, "1"), 0);
	return p;
}

static void status_tree_remove(const char *dir, struct pmaps_proc *p)
{
	char path[512];

	pmaps_proc_close(p);
	snprintf(path, sizeof(path), "%s/1/status", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/1", dir);
	rmdir(path);
	rmdir(dir);
}

static void test_status_lines(void **state)
{
	static const struct {
		const char *text;
		int err;
		const char *msg; /* a part of the message */
	} cases[] = {
		{"Uid:\t1\t2\t3\t4\nVmSize:\t 12 kB\nThreads:\t7\n", 0, ""},
		{"VmSize:\t12\n", -EBADMSG, "VmSize"},
		{"Threads:\tmany\n", -EBADMSG, "Threads"},
		{"Threads:\t7 kB\n", -EBADMSG, "Threads"},
		{"Uid:\t1\t2\t3\n", -EBADMSG, "Uid"},
		{"Uid:\t1\t2\t3\t4294967296\n", -EBADMSG, "Uid"},
		{"VmHWM:\t1 MB\n", -EBADMSG, "VmHWM"},
		/* a kernel thread: no Vm lines, which is fine */
		{"Name:\tkthreadd\nUid:\t0\t0\t0\t0\nThreads:\t1\n", 0, ""},
		/* before 4.5: VmRSS without its parts */
		{"VmRSS:\t  100 kB\n", 0, ""},
		/* its parts printed, all 0: VmRSS is their sum all the same */
		{"VmRSS:\t 100 kB\nRssAnon:\t 0 kB\nRssFile:\t 0 kB\nRssShmem:\t 0 kB\n", -EBADMSG,
		 "VmRSS"},
		/* the last line without a newline is read too */
		{"Threads:\t9", 0, ""},
	};
	char dir[64], msg[256];
	struct pmaps_status st = {.size = sizeof(struct pmaps_status)};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pmaps_proc *p = status_tree(dir, cases[i].text);
		int r = pmaps_status_read(p, &st, msg, sizeof(msg));
		if (r != cases[i].err || !strstr(msg, cases[i].msg))
			fail_msg("case %zu: %d \"%s\", expected %d with \"%s\"", i, r, msg, cases[i].err,
			         cases[i].msg);
		status_tree_remove(dir, p);
	}
	/* The first case, field by field. */
	{
		struct pmaps_proc *p = status_tree(dir, cases[0].text);
		assert_int_equal(pmaps_status_read(p, &st, NULL, 0), 0);
		assert_int_equal(st.present, 1ull << PMAPS_ST_UID | 1ull << PMAPS_ST_EUID |
		                                 1ull << PMAPS_ST_VM_SIZE | 1ull << PMAPS_ST_THREADS);
		assert_int_equal(st.v[PMAPS_ST_UID], 1);
		assert_int_equal(st.v[PMAPS_ST_EUID], 2);
		assert_int_equal(st.v[PMAPS_ST_VM_SIZE], 12 * KB);
		assert_int_equal(st.v[PMAPS_ST_THREADS], 7);
		status_tree_remove(dir, p);
	}
}

/*
 * Status is read up to its Threads line, the first of the lines after every
 * one read: nothing after it is parsed (a line no kernel prints there, not
 * an error), nor is the end of the file waited for. Through a pipe whose
 * writer stays open, non-blocking: a read past Threads would fail with
 * EAGAIN.
 */
static void test_status_stops_at_threads(void **state)
{
	static const char text[] = "Name:\tx\nState:\tS (sleeping)\nVmRSS:\t 8 kB\n"
	                           "RssAnon:\t 8 kB\nRssFile:\t 0 kB\nRssShmem:\t 0 kB\n"
	                           "Threads:\t3\nVmSwap:\tnot a value\nSigQ:\t0/1\n";
	struct pmaps_status st = {.size = sizeof(st)};
	char msg[256] = "";
	int fds[2], r;

	(void)state;
	assert_int_equal(pipe2(fds, O_NONBLOCK | O_CLOEXEC), 0);
	assert_int_equal(write(fds[1], text, sizeof(text) - 1), (ssize_t)(sizeof(text) - 1));
	r = pmaps__status_parse(fds[0], &st, msg, sizeof(msg));
	if (r != 0)
		fail_msg("status through an open pipe: %d \"%s\", expected 0", r, msg);
	assert_int_equal(st.present, 1ull << PMAPS_ST_STATE | 1ull << PMAPS_ST_VM_RSS |
	                                 1ull << PMAPS_ST_RSS_ANON | 1ull << PMAPS_ST_RSS_FILE |
	                                 1ull << PMAPS_ST_RSS_SHMEM | 1ull << PMAPS_ST_THREADS);
	assert_int_equal(st.v[PMAPS_ST_VM_RSS], 8 * KB);
	assert_int_equal(st.v[PMAPS_ST_THREADS], 3);
	close(fds[0]);
	close(fds[1]);
}

/*
 * The Go fixture's executable with .shstrtab's offset 2^64 - 16 and the
 * name of its own header at 0x11b: added, they wrap round to 0x10b, where
 * ".go.buildinfo" is written. No name is at an offset past the file's end.
 */
static void test_go_buildinfo_offsets_wrap(void **state)
{
	static const uint64_t stroff = UINT64_MAX - 15;
	static const uint32_t name = 0x11b;
	char exe[4096], dir[64], path[512], version[32];
	struct pmaps_proc *p;
	ssize_t n;
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "%s/explain-go/proc/400/exe", PMAPS_TEST_DATA);
	fd = open(path, O_RDONLY);
	expect_sys(fd);
	n = read(fd, exe, sizeof(exe));
	close(fd);
	expect_gt(n, 0x150);
	memcpy(exe + 0x80 + 0x18, &stroff, sizeof(stroff)); /* section 1, .shstrtab */
	memcpy(exe + 0x80, &name, sizeof(name));
	strcpy(dir, "/tmp/pmaps-exe-XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/1", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/1/exe", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	expect_sys(fd);
	assert_int_equal(write(fd, exe, (size_t)n), n);
	close(fd);
	assert_int_equal(pmaps_proc_open(&p, dir, "1"), 0);
	assert_int_equal(pmaps__go_buildinfo(p, version, sizeof(version)), 0);
	assert_string_equal(version, "");
	pmaps_proc_close(p);
	unlink(path);
	snprintf(path, sizeof(path), "%s/1", dir);
	rmdir(path);
	rmdir(dir);
}

/* A Groups line longer than the buffer, before the Vm lines: skipped whole. */
static void test_status_long_line(void **state)
{
	static char text[20000];
	size_t n = 0;
	char dir[64];
	struct pmaps_status st = {.size = sizeof(struct pmaps_status)};
	struct pmaps_proc *p;

	(void)state;
	n += (size_t)snprintf(text + n, sizeof(text) - n, "Groups:\t");
	for (int g = 0; g < 2000; g++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "%d ", 100000 + g);
	snprintf(text + n, sizeof(text) - n, "\nVmRSS:\t 8 kB\nRssAnon:\t 8 kB\nRssFile:\t 0 kB\n"
	         "RssShmem:\t 0 kB\nThreads:\t2\n");
	p = status_tree(dir, text);
	assert_int_equal(pmaps_status_read(p, &st, NULL, 0), 0);
	assert_int_equal(st.v[PMAPS_ST_VM_RSS], 8 * KB);
	assert_int_equal(st.v[PMAPS_ST_THREADS], 2);
	status_tree_remove(dir, p);
}

static ssize_t one_byte(int fd, void *buf, size_t len)
{
	(void)len;
	return read(fd, buf, 1);
}

static ssize_t eio(int fd, void *buf, size_t len)
{
	(void)fd;
	(void)buf;
	(void)len;
	errno = EIO;
	return -1;
}

/* Through the read hook: one byte a read gives the same; an error gives it. */
static void test_status_faults(void **state)
{
	struct pmaps_proc *p = open_tree("explain-glibc", "100");
	struct pmaps_status whole = {.size = sizeof(struct pmaps_status)}, st = whole;
	char msg[256];
	int r;

	(void)state;
	assert_int_equal(pmaps_status_read(p, &whole, NULL, 0), 0);
	pmaps__read_hook = one_byte;
	r = pmaps_status_read(p, &st, NULL, 0);
	pmaps__read_hook = NULL;
	assert_int_equal(r, 0);
	assert_memory_equal(&st, &whole, sizeof(st));
	pmaps__read_hook = eio;
	r = pmaps_status_read(p, &st, msg, sizeof(msg));
	pmaps__read_hook = NULL;
	assert_int_equal(r, -EIO);
	assert_int_equal(st.present, 0);
	pmaps_proc_close(p);
}

/* ------------------------------------------------------------------ */
/* Sessions                                                            */

static int count_fds(void)
{
	int n = 0;

	for (int fd = 0; fd < 1024; fd++)
		n += fcntl(fd, F_GETFD) >= 0;
	return n;
}

/* A session run again allocates nothing, and says the same; pmaps_explain() too. */
static void test_session_rerun(void **state)
{
	static struct pmaps_explain first, once;
	static const struct {
		const char *tree, *pid;
		unsigned options;
	} trees[] = {
		{"explain-glibc", "100", 0}, {"explain-jvm", "200", 0}, {"explain-go", "400", 0},
		{"explain-pages", "300", PMAPS_EXPLAIN_PAGES},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(trees) / sizeof(trees[0]); i++) {
		struct pmaps_proc *p = open_tree(trees[i].tree, trees[i].pid);
		struct pmaps_explain_session *s;
		const struct pmaps_explain *x;
		char msg[256];

		pmaps_set_allocator(count_alloc, count_free, NULL);
		assert_int_equal(pmaps_explain_open(&s, p, trees[i].options), 0);
		assert_int_equal(pmaps_explain_run(s, &x), 0);
		assert_int_equal(x->size, sizeof(*x));
		assert_int_equal(x->status.size, sizeof(x->status));
		memcpy(&first, x, sizeof(first));
		allocs = 0;
		for (int run = 0; run < 5; run++) {
			uint64_t start = first.read_end_ns;
			assert_int_equal(pmaps_explain_run(s, &x), 0);
			/* The same figures; only when they were read moves on. */
			expect_ge(x->read_start_ns, start);
			expect_ge(x->read_end_ns, x->read_start_ns);
			expect_gt(x->read_at_ns, 0);
			memcpy(&once, x, sizeof(once));
			once.read_start_ns = first.read_start_ns;
			once.read_end_ns = first.read_end_ns;
			once.read_at_ns = first.read_at_ns;
			assert_memory_equal(&once, &first, sizeof(first));
			first.read_end_ns = x->read_end_ns;
		}
		assert_int_equal(allocs, 0);
		assert_string_equal(pmaps_explain_errmsg(s), "");
		pmaps_explain_close(s);
		pmaps_set_allocator(NULL, NULL, NULL);
		once.size = sizeof(once);
		assert_int_equal(pmaps_explain(p, &once, trees[i].options, msg, sizeof(msg)), 0);
		expect_ge(once.read_start_ns, first.read_end_ns);
		once.read_start_ns = first.read_start_ns;
		once.read_end_ns = first.read_end_ns;
		once.read_at_ns = first.read_at_ns;
		assert_memory_equal(&once, &first, sizeof(once));
		pmaps_proc_close(p);
	}
}

static void test_session_errors(void **state)
{
	struct pmaps_proc *p = open_tree("explain-glibc", "100");
	struct pmaps_explain_session *s = (void *)1;
	const struct pmaps_explain *x = (void *)1;
	static struct pmaps_explain out;
	char msg[256];
	int fds;

	(void)state;
	assert_int_equal(pmaps_explain_open(&s, p, 1u << 7), -EINVAL);
	assert_null(s);
	assert_int_equal(pmaps_explain_open(&s, NULL, 0), -EINVAL);
	assert_null(s);
	pmaps_explain_close(NULL);
	pmaps_proc_close(p);

	/* A status no kernel wrote: the run fails with its message, and gives no result. */
	p = open_tree("badstatus", "4243");
	fds = count_fds();
	assert_int_equal(pmaps_explain_open(&s, p, 0), 0);
	assert_int_equal(pmaps_explain_run(s, &x), -EBADMSG);
	assert_null(x);
	assert_non_null(strstr(pmaps_explain_errmsg(s), "VmRSS other than RssAnon"));
	pmaps_explain_close(s);
	out.size = sizeof(out);
	assert_int_equal(pmaps_explain(p, &out, 0, msg, sizeof(msg)), -EBADMSG);
	assert_non_null(strstr(msg, "VmRSS other than RssAnon"));
	assert_int_equal(out.nmappings, 0);
	assert_int_equal(count_fds(), fds);
	pmaps_proc_close(p);
}

/* A tree in /tmp: PID 1 with one anonymous mapping and tasks 1 to N, all running. */
static const char one_mapping[] =
	"7f0000000000-7f0000001000 rw-p 00000000 00:00 0 \n"
	"Size:                  4 kB\nRss:                   4 kB\nPss:                   4 kB\n"
	"Shared_Clean:          0 kB\nShared_Dirty:          0 kB\nPrivate_Clean:         0 kB\n"
	"Private_Dirty:         4 kB\n";

static void add_tasks(const char *dir, int from, int to)
{
	char path[512];

	for (int t = from; t <= to; t++) {
		FILE *f;
		snprintf(path, sizeof(path), "%s/1/task/%d", dir, t);
		assert_int_equal(mkdir(path, 0755), 0);
		snprintf(path, sizeof(path), "%s/1/task/%d/syscall", dir, t);
		f = fopen(path, "w");
		assert_non_null(f);
		fputs("running\n", f);
		fclose(f);
	}
}

static void remove_tasks(const char *dir, int to)
{
	char path[512];

	for (int t = 1; t <= to; t++) {
		snprintf(path, sizeof(path), "%s/1/task/%d/syscall", dir, t);
		unlink(path);
		snprintf(path, sizeof(path), "%s/1/task/%d", dir, t);
		rmdir(path);
	}
	snprintf(path, sizeof(path), "%s/1/task", dir);
	rmdir(path);
}

/*
 * The stack pointers' array grows when a run sees more threads than any
 * before, by doubling (one allocation from 64 to 128), and only then.
 */
static void test_session_more_threads(void **state)
{
	char dir[64], path[512];
	struct pmaps_proc *p = NULL;
	struct pmaps_explain_session *s;
	const struct pmaps_explain *x;
	FILE *f;

	(void)state;
	p = status_tree(dir, "Threads:\t10\n");
	snprintf(path, sizeof(path), "%s/1/smaps", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(one_mapping, f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/1/task", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	add_tasks(dir, 1, 10);
	pmaps_set_allocator(count_alloc, count_free, NULL);
	assert_int_equal(pmaps_explain_open(&s, p, 0), 0);
	allocs = 0;
	assert_int_equal(pmaps_explain_run(s, &x), 0);
	assert_int_equal(x->threads, 10);
	assert_int_equal(allocs, 1); /* room for 64 */
	add_tasks(dir, 11, 100);
	allocs = 0;
	assert_int_equal(pmaps_explain_run(s, &x), 0);
	assert_int_equal(x->threads, 100);
	assert_int_equal(allocs, 1); /* 128 */
	remove_tasks(dir, 100);
	snprintf(path, sizeof(path), "%s/1/task", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	add_tasks(dir, 1, 20);
	allocs = 0;
	assert_int_equal(pmaps_explain_run(s, &x), 0);
	assert_int_equal(x->threads, 20);
	assert_int_equal(allocs, 0);
	pmaps_explain_close(s);
	pmaps_set_allocator(NULL, NULL, NULL);
	remove_tasks(dir, 20);
	snprintf(path, sizeof(path), "%s/1/smaps", dir);
	unlink(path);
	status_tree_remove(dir, p);
}

static unsigned long fail_at;

/* Allocation number FAIL_AT (from 1) fails. */
static void *failing_alloc(size_t size, void *ctx)
{
	(void)ctx;
	return ++allocs == fail_at ? NULL : malloc(size);
}

/* Every allocation of an open and a first run, failed in turn: -ENOMEM, nothing leaked. */
static void test_session_out_of_memory(void **state)
{
	struct pmaps_proc *p = open_tree("explain-pages", "300");
	int fds = count_fds(), failed = 0;

	(void)state;
	for (fail_at = 1;; fail_at++) {
		struct pmaps_explain_session *s;
		const struct pmaps_explain *x;
		int r;

		allocs = 0;
		pmaps_set_allocator(failing_alloc, count_free, NULL);
		r = pmaps_explain_open(&s, p, PMAPS_EXPLAIN_PAGES);
		if (r == 0)
			r = pmaps_explain_run(s, &x);
		pmaps_explain_close(s);
		pmaps_set_allocator(NULL, NULL, NULL);
		assert_int_equal(count_fds(), fds);
		if (allocs < fail_at) {
			assert_int_equal(r, 0); /* every allocation made, none failed */
			break;
		}
		assert_int_equal(r, -ENOMEM);
		failed++;
	}
	/* the session, its two cursors and their buffers, the page cursor and its own */
	if (failed < 6)
		fail_msg("%d allocations failed in turn, expected at least 6", failed);
	pmaps_proc_close(p);
}

static int reads_failed;

/* The first read fails (explain's first is of status), the rest go through. */
static ssize_t first_read_fails(int fd, void *buf, size_t len)
{
	if (reads_failed++ == 0) {
		errno = EIO;
		return -1;
	}
	return read(fd, buf, len);
}

static int getdents_errno;

static ssize_t getdents_fails(int fd, void *buf, size_t len)
{
	(void)fd;
	(void)buf;
	(void)len;
	errno = getdents_errno;
	return -1;
}

/*
 * A status that cannot be read is no status (the run goes on); a task
 * directory that cannot be listed is an error, but for a process gone
 * (the smaps read says so then). No path leaves an fd open.
 */
static void test_read_faults(void **state)
{
	static struct pmaps_explain whole, x;
	struct pmaps_proc *p = open_tree("explain-glibc", "100");
	char msg[256];
	int fds = count_fds(), r;

	(void)state;
	whole.size = sizeof(whole);
	x.size = sizeof(x);
	assert_int_equal(pmaps_explain(p, &whole, 0, msg, sizeof(msg)), 0);
	reads_failed = 0;
	pmaps__read_hook = first_read_fails;
	r = pmaps_explain(p, &x, 0, msg, sizeof(msg));
	pmaps__read_hook = NULL;
	assert_int_equal(r, 0);
	assert_int_equal(x.status.present, 0);
	assert_int_equal(x.status_apart, 0);
	assert_int_equal(x.total[PMAPS_XC_RSS], whole.total[PMAPS_XC_RSS]);
	assert_int_equal(x.nnotes, whole.nnotes);

	getdents_errno = EIO;
	pmaps__getdents_hook = getdents_fails;
	r = pmaps_explain(p, &x, 0, msg, sizeof(msg));
	assert_int_equal(r, -EIO);
	assert_non_null(strstr(msg, "task: "));
	getdents_errno = ENOENT;
	r = pmaps_explain(p, &x, 0, msg, sizeof(msg));
	pmaps__getdents_hook = NULL;
	assert_int_equal(r, 0);
	assert_int_equal(x.threads, 0);
	/* No pointers: the guard rule alone, for no thread. */
	assert_int_equal(x.stacks_found, 0);
	assert_int_equal(x.stacks_guessed, 0);
	assert_cat(&x, PMAPS_X_THREAD_STACK, 0, 0);
	assert_int_equal(count_fds(), fds);
	pmaps_proc_close(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_glibc_categories),
		cmocka_unit_test(test_glibc_reconciliation),
		cmocka_unit_test(test_glibc_notes),
		cmocka_unit_test(test_quiet),
		cmocka_unit_test(test_jvm_heap),
		cmocka_unit_test(test_jvm_without_heap),
		cmocka_unit_test(test_cpython),
		cmocka_unit_test(test_go_heap),
		cmocka_unit_test(test_go_without_heap),
		cmocka_unit_test(test_go_heap_without_lazyfree),
		cmocka_unit_test(test_go_buildinfo_offsets_wrap),
		cmocka_unit_test(test_no_runtime_named_when_absent),
		cmocka_unit_test(test_pages_evidence),
		cmocka_unit_test(test_pages_without_kpage),
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_status_read),
		cmocka_unit_test(test_status_refused),
		cmocka_unit_test(test_status_lines),
		cmocka_unit_test(test_status_stops_at_threads),
		cmocka_unit_test(test_status_long_line),
		cmocka_unit_test(test_status_faults),
		cmocka_unit_test(test_session_rerun),
		cmocka_unit_test(test_session_errors),
		cmocka_unit_test(test_read_faults),
		cmocka_unit_test(test_session_more_threads),
		cmocka_unit_test(test_session_out_of_memory),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
