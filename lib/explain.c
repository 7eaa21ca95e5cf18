/* SPDX-License-Identifier: MIT */
/*
 * explain.c - where a process's resident memory is: one pass over smaps,
 * each mapping put in a category and its Rss split by state, checked against
 * smaps_rollup and /proc/PID/status, and the notes that follow from the sums.
 *
 * The model, top-down: the names of categories, runtimes, notes and page
 * columns; the runtime rules (Go, glibc, the JVM, CPython) and what they
 * claim as a runtime's heap; the largest mappings; the pass over smaps;
 * the sums, their reconciliation and the notes; the session that keeps
 * what a pass needs so that a run after the first allocates nothing.
 *
 * Thread stacks: the anonymous mapping that holds a task's stack pointer
 * (task.c) is that thread's stack. For threads whose pointer cannot be
 * read, an anonymous read-write mapping right above an inaccessible one
 * (the guard glibc and musl put below a thread stack) counts as a stack, as
 * many times as there are such threads, and is marked a guess.
 *
 * The readers it uses besides the maps and page cursors, each bounded and
 * apart: status.c, task.c, elf.c (Go's build info), hsperf.c (a JVM's heap
 * size) and files.c (how a file the target names is opened).
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "readers.h"

/*
 * smaps' Referenced rides the pass as one more state column, past the
 * public ones (so that the runtimes' claims move it with the rest), and
 * ends in the result's referenced[] (x->v[][XC_REF] is left 0).
 */
#define XC_REF PMAPS_XC_COUNT
#define XC_ALL (PMAPS_XC_COUNT + 1)
_Static_assert(XC_ALL <= PMAPS_XC_MAX, "explain's columns and Referenced");

/* ------------------------------------------------------------------ */
/* Names */

static const char *const xcat_names[PMAPS_X_COUNT] = {
	[PMAPS_X_HEAP] = "heap",
	[PMAPS_X_ANON] = "anon",
	[PMAPS_X_ANON_NAMED] = "anon-named",
	[PMAPS_X_RUNTIME_HEAP] = "runtime-heap",
	[PMAPS_X_THREAD_STACK] = "thread-stacks",
	[PMAPS_X_MAIN_STACK] = "main-stack",
	[PMAPS_X_FILE_TEXT] = "file-text",
	[PMAPS_X_FILE_DATA] = "file-data",
	[PMAPS_X_FILE_RO] = "file-ro",
	[PMAPS_X_SHMEM] = "shmem",
	[PMAPS_X_HUGETLB] = "hugetlb",
	[PMAPS_X_OTHER] = "other",
};

const char *pmaps_xcat_name(enum pmaps_xcat c)
{
	return (unsigned)c < PMAPS_X_COUNT ? xcat_names[c] : NULL;
}

static const char *const runtime_names[PMAPS_RUNTIME_COUNT] = {
	[PMAPS_RUNTIME_NONE] = "",
	[PMAPS_RUNTIME_GLIBC] = "glibc",
	[PMAPS_RUNTIME_GO] = "go",
	[PMAPS_RUNTIME_JVM] = "jvm",
	[PMAPS_RUNTIME_CPYTHON] = "cpython",
};

const char *pmaps_runtime_name(enum pmaps_runtime r)
{
	return (unsigned)r < PMAPS_RUNTIME_COUNT ? runtime_names[r] : NULL;
}

static void set_runtime(struct pmaps_explain *x, enum pmaps_runtime r)
{
	x->runtime_kind = r;
}

static const char *const note_keys[PMAPS_NOTE_COUNT] = {
	[PMAPS_NOTE_GO_HEAP] = "go-heap",
	[PMAPS_NOTE_GO_LAZYFREE] = "go-lazy-free",
	[PMAPS_NOTE_JVM_HEAP] = "jvm-heap",
	[PMAPS_NOTE_JVM] = "jvm",
	[PMAPS_NOTE_CPYTHON] = "cpython",
	[PMAPS_NOTE_GLIBC_ARENAS] = "glibc-arenas",
	[PMAPS_NOTE_ANON_DIRTY] = "anon-dirty",
	[PMAPS_NOTE_LAZYFREE] = "lazy-free",
	[PMAPS_NOTE_FILE] = "file",
	[PMAPS_NOTE_SHMEM] = "shmem",
	[PMAPS_NOTE_STACKS] = "stacks",
	[PMAPS_NOTE_THP] = "thp",
	[PMAPS_NOTE_SWAP] = "swap",
};

const char *pmaps_note_key(enum pmaps_note_kind k)
{
	return (unsigned)k < PMAPS_NOTE_COUNT ? note_keys[k] : NULL;
}

/* The names of the numbers each note cites, n[0] then n[1]; NULL past the last. */
static const char *const note_value_keys[PMAPS_NOTE_COUNT][2] = {
	[PMAPS_NOTE_GO_HEAP] = {"rss", NULL},
	[PMAPS_NOTE_GO_LAZYFREE] = {"lazy_free", NULL},
	[PMAPS_NOTE_JVM_HEAP] = {"rss", "reserved"},
	[PMAPS_NOTE_JVM] = {NULL, NULL},
	[PMAPS_NOTE_CPYTHON] = {NULL, NULL},
	[PMAPS_NOTE_GLIBC_ARENAS] = {"arenas", "rss"},
	[PMAPS_NOTE_ANON_DIRTY] = {"private_dirty", NULL},
	[PMAPS_NOTE_LAZYFREE] = {"lazy_free", NULL},
	[PMAPS_NOTE_FILE] = {"rss", "clean"},
	[PMAPS_NOTE_SHMEM] = {"rss", "pss"},
	[PMAPS_NOTE_STACKS] = {"rss", NULL},
	[PMAPS_NOTE_THP] = {"rss", NULL},
	[PMAPS_NOTE_SWAP] = {"swap", NULL},
};

const char *pmaps_note_value_key(enum pmaps_note_kind k, unsigned i)
{
	return (unsigned)k < PMAPS_NOTE_COUNT && i < 2 ? note_value_keys[k][i] : NULL;
}

static const char *const xpage_keys[PMAPS_XP_COUNT] = {
	[PMAPS_XP_RESIDENT] = "resident",
	/* kpageflags' DIRTY and THP, kpagecount: named so, apart from smaps' figures */
	[PMAPS_XP_DIRTY] = "kpf_dirty",
	[PMAPS_XP_LAZYFREE] = "lazy_free",
	[PMAPS_XP_SHARED] = "mapped_by_2_or_more",
	[PMAPS_XP_THP] = "kpf_thp",
	[PMAPS_XP_ZERO] = "zero",
};

const char *pmaps_xpage_key(enum pmaps_xpage p)
{
	return (unsigned)p < PMAPS_XP_COUNT ? xpage_keys[p] : NULL;
}

static const char *const xcol_keys[PMAPS_XC_COUNT] = {
	[PMAPS_XC_RSS] = "rss",
	[PMAPS_XC_PRIVATE_DIRTY] = "private_dirty",
	[PMAPS_XC_PRIVATE_CLEAN] = "private_clean",
	[PMAPS_XC_SHARED] = "shared",
	[PMAPS_XC_LAZYFREE] = "lazy_free",
	[PMAPS_XC_THP] = "thp",
	[PMAPS_XC_LOCKED] = "locked",
	[PMAPS_XC_SWAP] = "swap",
	[PMAPS_XC_PSS] = "pss",
	[PMAPS_XC_SWAP_PSS] = "swap_pss",
	[PMAPS_XC_SHARED_CLEAN] = "shared_clean",
	[PMAPS_XC_PRIVATE] = "private",
};

const char *pmaps_xcol_key(enum pmaps_xcol c)
{
	return (unsigned)c < PMAPS_XC_COUNT ? xcol_keys[c] : NULL;
}

/* ------------------------------------------------------------------ */
/* Runtime rules: what each names, and the heap it claims */

/*
 * Go's heap arena hints on 64-bit: (i << 40) + 0xc000000000, i < 0x80, tried
 * from 0xc000000000 up.  The heap grows upward from the hint it got, arena
 * after arena, reserved (inaccessible) then committed, and is never
 * unmapped: it is the run of contiguous anonymous mappings that starts
 * exactly at a hint.  Other mappings above a hint, such as the mmap area
 * near 0x7f0000000000, are not the heap.
 */
static int is_go_hint(uint64_t start)
{
	return (start >> 40) < 0x80 && (start & ((1ull << 40) - 1)) == 0xc000000000ull;
}

/*
 * Go 1.25 names its mappings "[anon: Go: ...]" where the kernel can
 * (CONFIG_ANON_VMA_NAME): "heap" is the heap wherever it is; "heap
 * reservation" is the heap's only within the heap's run (the arenas'
 * metadata is reserved under the same name elsewhere).  Other labels name
 * runtime metadata and stay anon-named.
 */
static int is_go_heap_label(const struct pmaps_view *p, int in_arenas)
{
	static const char heap[] = "[anon: Go: heap]", resv[] = "[anon: Go: heap reservation]";

	if (p->len == sizeof(heap) - 1 && memcmp(p->ptr, heap, p->len) == 0)
		return 1;
	return p->len == sizeof(resv) - 1 && memcmp(p->ptr, resv, p->len) == 0 && in_arenas;
}

/* glibc: a heap of a thread arena is HEAP_MAX_SIZE (64 MiB on 64-bit) aligned. */
#define ARENA_SIZE (64ull << 20)
#define ARENA_STARTS 64

static int is_libc(const struct pmaps_view *p)
{
	static const char name[] = "/libc.so.6";
	size_t n = sizeof(name) - 1;

	return p->len >= n && memcmp(p->ptr + p->len - n, name, n) == 0;
}

/* The directory before "/lib/server/libjvm.so" names the JDK ("java-17-openjdk-amd64"). */
static int is_jvm(const struct pmaps_view *p, char *version, size_t vsize)
{
	static const char lib[] = "/libjvm.so";
	size_t n = sizeof(lib) - 1;
	const char *jvm;

	if (p->len < n || memcmp(p->ptr + p->len - n, lib, n) != 0)
		return 0;
	jvm = memmem(p->ptr, p->len, "/jvm/", 5);
	if (jvm && !version[0]) {
		const char *s = jvm + 5, *e = memchr(s, '/', (size_t)(p->ptr + p->len - s));
		size_t k = e ? (size_t)(e - s) : 0;
		if (k && k < vsize) {
			memcpy(version, s, k);
			version[k] = '\0';
		}
	}
	return 1;
}

/* CPython: the interpreter "python3.11" or "libpython3.11.so.1.0"; VERSION "3.11". */
static int is_cpython(const struct pmaps_view *p, char *version, size_t vsize)
{
	const char *base = p->ptr + p->len;
	const char *v;
	size_t k = 0;

	while (base > p->ptr && base[-1] != '/')
		base--;
	if ((size_t)(p->ptr + p->len - base) >= 9 && memcmp(base, "libpython", 9) == 0)
		v = base + 9;
	else if ((size_t)(p->ptr + p->len - base) >= 6 && memcmp(base, "python", 6) == 0)
		v = base + 6;
	else
		return 0;
	while (v + k < p->ptr + p->len && ((v[k] >= '0' && v[k] <= '9') || v[k] == '.') && k + 1 < vsize)
		k++;
	while (k && v[k - 1] == '.')
		k--;
	if (k == 0 || v[0] != '3')
		return 0;
	if (!version[0]) {
		memcpy(version, v, k);
		version[k] = '\0';
	}
	return 1;
}

/*
 * The JVM's heap is one reservation: committed parts read-write, the rest
 * inaccessible, the CDS archive's heap regions mapped from classes.jsa
 * inside it.  A run is a stretch of contiguous private anonymous mappings
 * (and such archive pieces); the run whose span is exactly the heap size the
 * JVM publishes in its hsperfdata file is the heap.
 */
struct run {
	uint64_t start, end;
	uint64_t v[XC_ALL]; /* its anon mappings' sums */
	uint64_t pg[PMAPS_XP_COUNT];
	unsigned maps;
};

#define RUNS 64
#define RUN_MIN (2u << 20)

struct runs {
	struct run cur;
	struct run r[RUNS];
	unsigned n;
};

static void run_close(struct runs *t)
{
	struct run *c = &t->cur;
	unsigned small = 0;

	if (c->end - c->start >= RUN_MIN) {
		if (t->n < RUNS) {
			t->r[t->n++] = *c;
		} else {
			for (unsigned i = 1; i < RUNS; i++)
				if (t->r[i].end - t->r[i].start < t->r[small].end - t->r[small].start)
					small = i;
			if (c->end - c->start > t->r[small].end - t->r[small].start)
				t->r[small] = *c;
		}
	}
	memset(c, 0, sizeof(*c));
}

static int is_cds_archive(const struct pmaps_view *p)
{
	static const char jsa[] = ".jsa";

	return p->len > 4 && memcmp(p->ptr + p->len - 4, jsa, 4) == 0;
}

/* Moves sums counted as anonymous to the runtime's heap, once its rule holds. */
static void claim_anon(struct pmaps_explain *x, const uint64_t v[XC_ALL],
                       const uint64_t pg[PMAPS_XP_COUNT], unsigned maps)
{
	for (int col = 0; col < XC_ALL; col++) {
		x->v[PMAPS_X_ANON][col] -= v[col];
		x->v[PMAPS_X_RUNTIME_HEAP][col] += v[col];
	}
	for (int col = 0; col < PMAPS_XP_COUNT; col++) {
		x->pg[PMAPS_X_ANON][col] -= pg[col];
		x->pg[PMAPS_X_RUNTIME_HEAP][col] += pg[col];
	}
	x->mappings[PMAPS_X_ANON] -= maps;
	x->mappings[PMAPS_X_RUNTIME_HEAP] += maps;
}

/*
 * The JVM: named by libjvm.so; its heap claimed when hsperfdata gives its
 * size and exactly one run of anonymous mappings has that span.
 */
static void jvm_heap(const struct pmaps_proc *proc, struct pmaps_explain *x, const struct runs *runs,
                     const struct pmaps__mapped *hp, const char *version)
{
	char gc[32];
	const char *hsperf = hp->path;
	uint64_t size = hsperf[0] ? pmaps__jvm_heap_size(proc, hp, gc, sizeof(gc)) : 0;
	const struct run *heap = NULL;
	unsigned found = 0;
	char named[64];

	/* The evidence quotes the name only where it fits whole: never a name cut short. */
	if (strlen(hsperf) > 256) {
		pmaps__msg(named, sizeof(named), "its hsperfdata file (a name of %zu bytes)",
		           strlen(hsperf));
		hsperf = named;
	}

	set_runtime(x, PMAPS_RUNTIME_JVM);
	pmaps__msg(x->runtime_version, sizeof(x->runtime_version), "%s", version);
	for (unsigned i = 0; size && i < runs->n; i++)
		if (runs->r[i].end - runs->r[i].start == size) {
			heap = &runs->r[i];
			found++;
		}
	if (found != 1) {
		if (!hp->path[0])
			pmaps__msg(x->runtime_evidence, sizeof(x->runtime_evidence),
			           "the JVM (%s): libjvm.so mapped; its heap stays in anon: no hsperfdata "
			           "mapped (-XX:-UsePerfData) to give its size", version);
		else if (!size)
			pmaps__msg(x->runtime_evidence, sizeof(x->runtime_evidence),
			           "the JVM (%s): libjvm.so mapped; its heap stays in anon: the heap size "
			           "not known from %s (collector %s)", version, hsperf,
			           gc[0] ? gc : "not named there");
		else
			pmaps__msg(x->runtime_evidence, sizeof(x->runtime_evidence),
			           "the JVM (%s): libjvm.so mapped; its heap stays in anon: %u anonymous "
			           "reservations of the %llu bytes %s reports", version, found,
			           (unsigned long long)size, gc);
		return;
	}
	claim_anon(x, heap->v, heap->pg, heap->maps);
	for (unsigned i = 0; i < x->ntop; i++)
		if (x->top[i].cat == PMAPS_X_ANON && x->top[i].start >= heap->start &&
		    x->top[i].end <= heap->end)
			x->top[i].cat = PMAPS_X_RUNTIME_HEAP;
	x->jvm_heap_start = heap->start;
	x->jvm_heap_end = heap->end;
	pmaps__msg(x->runtime_evidence, sizeof(x->runtime_evidence),
	           "the JVM (%s): libjvm.so mapped; its heap: %012llx-%012llx, the %llu bytes %s "
	           "reports in hsperfdata", version, (unsigned long long)heap->start,
	           (unsigned long long)heap->end, (unsigned long long)size, gc);
}

/* ------------------------------------------------------------------ */
/* The largest mappings */

/* The whole name, or as much as fits cut before a UTF-8 character and flagged. */
static void copy_path(struct pmaps_explain_top *t, const struct pmaps_view *p, int truncated)
{
	size_t n = p->len;

	if (n > sizeof(t->path) - 1) {
		n = sizeof(t->path) - 1;
		/* Back over continuation bytes to the start of the character cut. */
		for (size_t k = 0; k < 3 && n > 0 && ((unsigned char)p->ptr[n] & 0xc0) == 0x80; k++)
			n--;
		truncated = 1;
	}
	memcpy(t->path, p->ptr, n);
	t->path[n] = '\0';
	t->path_len = n;
	t->path_truncated = truncated;
}

static void add_top(struct pmaps_explain *x, const struct pmaps_mapping *m, enum pmaps_xcat cat,
                    uint64_t referenced)
{
	uint64_t rss = m->v[PMAPS_F_RSS];
	unsigned i = x->ntop;

	if (rss == 0 || (i == PMAPS_EXPLAIN_TOP && x->top[i - 1].rss >= rss))
		return;
	if (i == PMAPS_EXPLAIN_TOP)
		i--;
	else
		x->ntop++;
	while (i > 0 && x->top[i - 1].rss < rss) {
		x->top[i] = x->top[i - 1];
		x->top_referenced[i] = x->top_referenced[i - 1];
		i--;
	}
	x->top_referenced[i] = referenced;
	x->top[i].start = m->start;
	x->top[i].end = m->end;
	x->top[i].rss = rss;
	x->top[i].cat = cat;
	copy_path(&x->top[i], &m->path, (m->flags & PMAPS_ROW_PATH_TRUNCATED) != 0);
}

/* ------------------------------------------------------------------ */
/* One pass over smaps */

static enum pmaps_xcat category(enum pmaps_kind k)
{
	switch (k) {
	case PMAPS_KIND_HEAP: return PMAPS_X_HEAP;
	case PMAPS_KIND_ANON: return PMAPS_X_ANON;
	case PMAPS_KIND_ANON_NAMED: return PMAPS_X_ANON_NAMED;
	case PMAPS_KIND_STACK: return PMAPS_X_MAIN_STACK;
	case PMAPS_KIND_FILE_TEXT: return PMAPS_X_FILE_TEXT;
	case PMAPS_KIND_FILE_DATA: return PMAPS_X_FILE_DATA;
	case PMAPS_KIND_FILE_RO: return PMAPS_X_FILE_RO;
	case PMAPS_KIND_SHMEM: return PMAPS_X_SHMEM;
	case PMAPS_KIND_HUGETLB: return PMAPS_X_HUGETLB;
	default: return PMAPS_X_OTHER;
	}
}

/* Page-level evidence of mapping M into OUT, in bytes. */
static int walk_pages(struct pmaps_pages *pg, const struct pmaps_mapping *m,
                      uint64_t out[PMAPS_XP_COUNT])
{
	static const enum pmaps_page_count from[PMAPS_XP_COUNT] = {
		[PMAPS_XP_RESIDENT] = PMAPS_PC_RESIDENT, /* the zero page left out, as in Rss */
		[PMAPS_XP_DIRTY] = PMAPS_PC_DIRTY,
		[PMAPS_XP_LAZYFREE] = PMAPS_PC_LAZYFREE,
		[PMAPS_XP_SHARED] = PMAPS_PC_MAPPED_2,
		[PMAPS_XP_THP] = PMAPS_PC_THP,
		[PMAPS_XP_ZERO] = PMAPS_PC_ZERO,
	};
	struct pmaps_page_summary sum;
	int r;

	sum.size = sizeof(sum);
	if (m->start >= 0x800000000000ull)
		return 0; /* [vsyscall]: not a VMA */
	r = pmaps_pages_summarize(pg, m->start, m->end, &sum);
	if (r < 0)
		return r;
	/* Pages of the mapping times the page size: no larger than the mapping. */
	for (int col = 0; col < PMAPS_XP_COUNT; col++)
		out[col] = sum.n[from[col]] * sum.page_size;
	return 0;
}

/* The smaps fields explain's split cannot do without. */
#define EXPLAIN_NEEDS                                                                          \
	(1ull << PMAPS_F_RSS | 1ull << PMAPS_F_SHARED_CLEAN | 1ull << PMAPS_F_SHARED_DIRTY |        \
	 1ull << PMAPS_F_PRIVATE_CLEAN | 1ull << PMAPS_F_PRIVATE_DIRTY)

/*
 * *A += B; a sum that would pass 2^64 - 1 sets *OVF. The reader bounds each
 * page count by its mapping, and mappings do not overlap, so only values it
 * cannot bound (Swap, which for shared memory is its object's) get there: no
 * kernel's, so explain refuses them rather than show a wrapped sum.
 */
static inline void add_chk(int *ovf, uint64_t *a, uint64_t b)
{
	*ovf |= __builtin_add_overflow(*a, b, a);
}

/*
 * A session: what a run needs, kept from one run to the next. The cursors
 * are rewound, the arrays reused; only the stack pointers grow, when a run
 * sees more threads than any before.
 */
struct pmaps_explain_session {
	struct pmaps_proc *proc;
	struct pmaps_maps *smaps, *rollup; /* with FAST: SMAPS reads PMAPS_SRC_PAGES, no ROLLUP */
	int smaps_fresh;               /* opened and not read yet: no rewind needed */
	int fast;                      /* PMAPS_EXPLAIN_FAST */
	uint32_t xc_known;             /* the columns the source knows */
	struct pmaps_pages *pages;     /* with PMAPS_EXPLAIN_PAGES */
	int pages_err;                 /* its open's error, which every run reports */
	/* Why the page cursor has no physical page state, as it said at open. */
	char kpage_note[PMAPS_ERRMSG_SIZE_PUBLIC];
	struct pmaps__sps sps;
	int go;                        /* the executable has Go's build info */
	char go_version[32];
	uint64_t gate[PMAPS_X_COUNT];  /* the last run's mappings above user space, by category */
	int no_rollup;                 /* the runs skip smaps_rollup (pmaps__explain_rollup()) */
	struct runs runs;
	struct pmaps__mapped hsperf;
	char msg[PMAPS_ERRMSG_SIZE];
	struct pmaps_explain x;
};

/* What one pass over smaps carries from one mapping to the next. */
struct pass {
	uint64_t prev_end;
	int prev_guard;          /* the mapping before was an inaccessible anonymous one */
	uint64_t go_end;         /* the end of Go's heap so far, while in it */
	unsigned located;        /* thread stacks found by their stack pointer */
	/* A glibc arena candidate, waiting for its reserved rest; the arenas confirmed. */
	int pending;
	uint64_t pend[XC_ALL], pend_pg[PMAPS_XP_COUNT], pend_start, pend_end;
	uint64_t arena[XC_ALL], arena_pg[PMAPS_XP_COUNT];
	uint64_t arena_starts[ARENA_STARTS];
	int glibc, jvm, cpython; /* their libraries seen */
	int no_referenced;       /* a row without Referenced */
	char jvm_version[32], py_version[32];
	int ovf;                 /* a sum passed 2^64 - 1 */
};

/* The category of M under the rules that need more than its kind. */
static enum pmaps_xcat categorize(struct pmaps_explain_session *s, struct pass *ps,
                                  const struct pmaps_mapping *m)
{
	struct pmaps_explain *x = &s->x;
	enum pmaps_xcat cat = category(m->kind);

	if (x->runtime_kind == PMAPS_RUNTIME_GO) {
		int anon = cat == PMAPS_X_ANON || cat == PMAPS_X_ANON_NAMED ||
		           (m->kind == PMAPS_KIND_GUARD && m->path.len == 0);
		if (anon && is_go_hint(m->start))
			ps->go_end = m->end;
		else if (anon && ps->go_end && m->start == ps->go_end)
			ps->go_end = m->end;
		else
			ps->go_end = 0;
	}
	if (cat == PMAPS_X_ANON_NAMED && x->runtime_kind == PMAPS_RUNTIME_GO &&
	    is_go_heap_label(&m->path, ps->go_end != 0)) {
		x->go_labels++;
		return PMAPS_X_RUNTIME_HEAP;
	}
	if (cat != PMAPS_X_ANON)
		return cat;
	if (ps->go_end)
		return PMAPS_X_RUNTIME_HEAP;
	if (pmaps__sps_holds(&s->sps, m->start, m->end)) {
		ps->located++;
		return PMAPS_X_THREAD_STACK;
	}
	if (s->sps.unreadable > x->stacks_guessed && ps->prev_guard && ps->prev_end == m->start &&
	    (m->perms & (PMAPS_PERM_READ | PMAPS_PERM_WRITE)) ==
	        (PMAPS_PERM_READ | PMAPS_PERM_WRITE)) {
		x->stacks_guessed++;
		return PMAPS_X_THREAD_STACK;
	}
	return cat;
}

/* M's figures by state column. */
static void columns(struct pass *ps, const struct pmaps_mapping *m, uint64_t mv[XC_ALL])
{
	const uint64_t *v = m->v;

	if (PMAPS_ROW_SOURCE(m->flags) == PMAPS_SRC_PAGES) {
		/* What the page source saw; the rest is 0 and unknown (xc_known). */
		memset(mv, 0, XC_ALL * sizeof(mv[0]));
		mv[PMAPS_XC_RSS] = v[PMAPS_F_RSS];
		pmaps_mapping_value(m, PMAPS_V_USS, &mv[PMAPS_XC_PRIVATE]);
		pmaps_mapping_value(m, PMAPS_V_SHARED, &mv[PMAPS_XC_SHARED]);
		mv[PMAPS_XC_LAZYFREE] = v[PMAPS_F_LAZY_FREE];
		mv[PMAPS_XC_THP] = v[PMAPS_F_ANON_HUGE_PAGES];
		add_chk(&ps->ovf, &mv[PMAPS_XC_THP], v[PMAPS_F_SHMEM_PMD_MAPPED]);
		add_chk(&ps->ovf, &mv[PMAPS_XC_THP], v[PMAPS_F_FILE_PMD_MAPPED]);
		mv[PMAPS_XC_SWAP] = v[PMAPS_F_SWAP];
		mv[PMAPS_XC_PSS] = v[PMAPS_F_PSS];
		return;
	}

	mv[PMAPS_XC_RSS] = v[PMAPS_F_RSS];
	mv[PMAPS_XC_PRIVATE_DIRTY] = v[PMAPS_F_PRIVATE_DIRTY];
	mv[PMAPS_XC_PRIVATE_CLEAN] = v[PMAPS_F_PRIVATE_CLEAN];
	mv[PMAPS_XC_SHARED] = v[PMAPS_F_SHARED_CLEAN];
	add_chk(&ps->ovf, &mv[PMAPS_XC_SHARED], v[PMAPS_F_SHARED_DIRTY]);
	mv[PMAPS_XC_LAZYFREE] = v[PMAPS_F_LAZY_FREE];
	mv[PMAPS_XC_THP] = v[PMAPS_F_ANON_HUGE_PAGES];
	add_chk(&ps->ovf, &mv[PMAPS_XC_THP], v[PMAPS_F_SHMEM_PMD_MAPPED]);
	add_chk(&ps->ovf, &mv[PMAPS_XC_THP], v[PMAPS_F_FILE_PMD_MAPPED]);
	mv[PMAPS_XC_LOCKED] = v[PMAPS_F_LOCKED];
	mv[PMAPS_XC_SWAP] = v[PMAPS_F_SWAP];
	mv[PMAPS_XC_PSS] = v[PMAPS_F_PSS];
	mv[PMAPS_XC_SWAP_PSS] = v[PMAPS_F_SWAP_PSS];
	mv[PMAPS_XC_SHARED_CLEAN] = v[PMAPS_F_SHARED_CLEAN];
	mv[PMAPS_XC_PRIVATE] = v[PMAPS_F_PRIVATE_DIRTY];
	add_chk(&ps->ovf, &mv[PMAPS_XC_PRIVATE], v[PMAPS_F_PRIVATE_CLEAN]);
	mv[XC_REF] = v[PMAPS_F_REFERENCED];
	if (!(m->present & (1ull << PMAPS_F_REFERENCED)))
		ps->no_referenced = 1;
}

/*
 * A glibc arena candidate waits for the next mapping: its reserved rest
 * (inaccessible, contiguous, to the 64 MiB boundary) confirms it.
 */
static void confirm_arena(struct pmaps_explain *x, struct pass *ps, const struct pmaps_mapping *m)
{
	if (ps->pending && m->kind == PMAPS_KIND_GUARD && m->path.len == 0 &&
	    m->start == ps->pend_end && m->end == ps->pend_start + ARENA_SIZE) {
		for (int col = 0; col < XC_ALL; col++)
			add_chk(&ps->ovf, &ps->arena[col], ps->pend[col]);
		for (int col = 0; col < PMAPS_XP_COUNT; col++)
			ps->arena_pg[col] += ps->pend_pg[col];
		if (x->arenas < ARENA_STARTS)
			ps->arena_starts[x->arenas] = ps->pend_start;
		x->arenas++;
	}
	ps->pending = 0;
}

/* An anonymous read-write mapping at a 64 MiB boundary, no larger: maybe an arena's heap. */
static void arena_candidate(struct pass *ps, const struct pmaps_mapping *m, enum pmaps_xcat cat,
                            const uint64_t mv[XC_ALL], const uint64_t pg[PMAPS_XP_COUNT])
{
	if (cat != PMAPS_X_ANON || (m->start & (ARENA_SIZE - 1)) || m->end - m->start > ARENA_SIZE ||
	    (m->perms & (PMAPS_PERM_READ | PMAPS_PERM_WRITE)) != (PMAPS_PERM_READ | PMAPS_PERM_WRITE))
		return;
	memcpy(ps->pend, mv, sizeof(ps->pend));
	memcpy(ps->pend_pg, pg, sizeof(ps->pend_pg));
	ps->pend_start = m->start;
	ps->pend_end = m->end;
	ps->pending = 1;
}

/* The runs of contiguous anonymous mappings (and CDS archive pieces), for the JVM's heap. */
static void track_runs(struct pmaps_explain_session *s, struct pass *ps,
                       const struct pmaps_mapping *m, enum pmaps_xcat cat,
                       const uint64_t mv[XC_ALL], const uint64_t pg[PMAPS_XP_COUNT])
{
	struct runs *runs = &s->runs;

	if (cat == PMAPS_X_ANON || (m->kind == PMAPS_KIND_GUARD && m->path.len == 0) ||
	    is_cds_archive(&m->path)) {
		if (runs->cur.end != m->start)
			run_close(runs);
		if (runs->cur.end == 0)
			runs->cur.start = m->start;
		runs->cur.end = m->end;
		if (cat == PMAPS_X_ANON) {
			for (int col = 0; col < XC_ALL; col++)
				add_chk(&ps->ovf, &runs->cur.v[col], mv[col]);
			for (int col = 0; col < PMAPS_XP_COUNT; col++)
				runs->cur.pg[col] += pg[col];
			runs->cur.maps++;
		}
	} else if (runs->cur.end) {
		run_close(runs);
	}
	if (!s->hsperf.path[0] && pmaps__is_hsperfdata(&m->path) &&
	    m->path.len < sizeof(s->hsperf.path) && !(m->flags & PMAPS_ROW_PATH_TRUNCATED)) {
		memcpy(s->hsperf.path, m->path.ptr, m->path.len);
		s->hsperf.path[m->path.len] = '\0';
		s->hsperf.start = m->start;
		s->hsperf.end = m->end;
		s->hsperf.inode = m->inode;
		s->hsperf.dev_major = m->dev_major;
		s->hsperf.dev_minor = m->dev_minor;
	}
}

/* One mapping of the pass. Returns 0 or a negative errno with the message set. */
static int add_mapping(struct pmaps_explain_session *s, struct pass *ps,
                       const struct pmaps_mapping *m)
{
	struct pmaps_explain *x = &s->x;
	uint64_t mv[XC_ALL], pg[PMAPS_XP_COUNT] = {0};
	enum pmaps_xcat cat;
	int r;

	if (PMAPS_ROW_SOURCE(m->flags) == PMAPS_SRC_PAGES ? !(m->present & (1ull << PMAPS_F_RSS))
	                                 : (m->present & EXPLAIN_NEEDS) != EXPLAIN_NEEDS) {
		/* An absent field is no 0: the attribution cannot be made. */
		if (PMAPS_ROW_SOURCE(m->flags) == PMAPS_SRC_PAGES)
			pmaps__msg(s->msg, sizeof(s->msg), "pages: the mapping at %llx has no Rss",
			           (unsigned long long)m->start);
		else
			pmaps__msg(s->msg, sizeof(s->msg), "smaps: the mapping at line %u lacks Rss or "
			           "one of its four parts (Shared/Private_Clean/Dirty): every kernel "
			           "since 2.6 prints them", m->line);
		return -EBADMSG;
	}
	cat = categorize(s, ps, m);
	confirm_arena(x, ps, m);
	ps->glibc |= is_libc(&m->path);
	ps->jvm |= is_jvm(&m->path, ps->jvm_version, sizeof(ps->jvm_version));
	ps->cpython |= is_cpython(&m->path, ps->py_version, sizeof(ps->py_version));
	ps->prev_guard = m->kind == PMAPS_KIND_GUARD && m->path.len == 0;
	ps->prev_end = m->end;
	columns(ps, m, mv);
	if (PMAPS_ROW_SOURCE(m->flags) == PMAPS_SRC_PAGES && !(m->present & (1ull << PMAPS_F_SWAP)))
		x->swap_unknown |= 1u << cat;
	for (int col = 0; col < XC_ALL; col++)
		add_chk(&ps->ovf, &x->v[cat][col], mv[col]);
	x->mappings[cat]++;
	x->nmappings++;
	/* [vsyscall]: maps lists it, but it is no VMA (map_count, vm.max_map_count). */
	if (m->start >= 0x800000000000ull)
		s->gate[cat]++;
	add_top(x, m, cat, mv[XC_REF]);
	if (s->pages) {
		r = walk_pages(s->pages, m, pg);
		if (r < 0) {
			pmaps__msg(s->msg, sizeof(s->msg), "%s", pmaps_pages_errmsg(s->pages));
			return r;
		}
		for (int col = 0; col < PMAPS_XP_COUNT; col++)
			x->pg[cat][col] += pg[col];
	}
	track_runs(s, ps, m, cat, mv, pg);
	arena_candidate(ps, m, cat, mv, pg);
	return 0;
}

/* Which runtime the pass found, and the heap each one's rule claims. */
static void decide_runtime(struct pmaps_explain_session *s, struct pass *ps)
{
	struct pmaps_explain *x = &s->x;

	if (x->go_labels) {
		size_t n = strlen(x->runtime_evidence);
		pmaps__msg(x->runtime_evidence + n, sizeof(x->runtime_evidence) - n,
		           " and %u mapping(s) labelled as Go's heap", x->go_labels);
	}
	run_close(&s->runs);
	if (x->runtime_kind == PMAPS_RUNTIME_NONE && ps->jvm) {
		jvm_heap(s->proc, x, &s->runs, &s->hsperf, ps->jvm_version);
	} else if (x->runtime_kind == PMAPS_RUNTIME_NONE && ps->cpython) {
		/*
		 * The runtime is named, its heap not claimed: CPython's arenas
		 * cannot be told from other anonymous memory by the maps alone.
		 */
		set_runtime(x, PMAPS_RUNTIME_CPYTHON);
		pmaps__msg(x->runtime_version, sizeof(x->runtime_version), "%s", ps->py_version);
		pmaps__msg(x->runtime_evidence, sizeof(x->runtime_evidence),
		           "CPython %s: the interpreter mapped; its arenas stay in anon: the maps "
		           "alone do not tell them from other anonymous memory",
		           x->runtime_version);
	}
	if (ps->jvm || ps->cpython) {
		ps->glibc = 0; /* the runtime's allocator is the one that matters */
		x->arenas = 0;
	}
	if (ps->glibc && x->runtime_kind == PMAPS_RUNTIME_NONE) {
		/* glibc's thread arenas: from anonymous to the runtime's heap. */
		claim_anon(x, ps->arena, ps->arena_pg, x->arenas);
		for (unsigned i = 0; i < x->ntop; i++)
			for (unsigned k = 0; k < x->arenas && k < ARENA_STARTS; k++)
				if (x->top[i].cat == PMAPS_X_ANON && x->top[i].start == ps->arena_starts[k])
					x->top[i].cat = PMAPS_X_RUNTIME_HEAP;
		set_runtime(x, PMAPS_RUNTIME_GLIBC);
		if (x->arenas)
			pmaps__msg(x->runtime_evidence, sizeof(x->runtime_evidence),
			           "glibc malloc: libc.so.6 mapped; its main arena is [heap], its %u "
			           "thread arena(s) are anonymous heaps at 64 MiB boundaries with their "
			           "reserved rest", x->arenas);
		else
			pmaps__msg(x->runtime_evidence, sizeof(x->runtime_evidence),
			           "glibc malloc: libc.so.6 mapped; its main arena is [heap], and no "
			           "thread arena (an anonymous heap at a 64 MiB boundary with its "
			           "reserved rest) was found");
	} else {
		x->arenas = 0; /* not glibc (or Go, whose rules stand): no arenas claimed */
	}
}

/* ------------------------------------------------------------------ */
/* Reconciliation and notes */

static uint64_t apart(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/* The figures derived from the sums, and how they agree with the kernel's own. */
static void reconcile(struct pmaps_explain *x)
{
	const uint64_t *t = x->total, *st = x->status.v;
	const uint64_t parts = 1ull << PMAPS_ST_VM_RSS | 1ull << PMAPS_ST_RSS_ANON |
	                       1ull << PMAPS_ST_RSS_FILE | 1ull << PMAPS_ST_RSS_SHMEM;

	/* Parts of RSS, each no larger: neither sum nor difference can wrap. */
	x->uss = t[PMAPS_XC_PRIVATE];
	x->effective_rss = !(x->xc_known & (1u << PMAPS_XC_LAZYFREE)) ? 0
	                   : t[PMAPS_XC_RSS] > t[PMAPS_XC_LAZYFREE]
	                       ? t[PMAPS_XC_RSS] - t[PMAPS_XC_LAZYFREE] : 0;
	if (x->have_rollup)
		x->rollup_apart = apart(x->rollup[PMAPS_F_RSS], t[PMAPS_XC_RSS]);
	if (x->status.present & 1ull << PMAPS_ST_VM_RSS)
		x->status_apart = apart(st[PMAPS_ST_VM_RSS], t[PMAPS_XC_RSS]);
	/* status_read() refused a VmRSS other than its parts; parts absent do not agree. */
	x->status_parts_agree = (x->status.present & parts) == parts &&
	                        st[PMAPS_ST_VM_RSS] == st[PMAPS_ST_RSS_ANON] +
	                                                   st[PMAPS_ST_RSS_FILE] +
	                                                   st[PMAPS_ST_RSS_SHMEM];
}

static void note(struct pmaps_explain *x, enum pmaps_note_kind k, uint64_t a, uint64_t b)
{
	struct pmaps_note *n = &x->notes[x->nnotes++];

	n->kind = k;
	n->n[0] = a;
	n->n[1] = b;
}

/*
 * The notes whose condition holds, in enum order. Every figure is a sum of
 * category values that are parts of the total, which did not overflow.
 */
static void make_notes(struct pmaps_explain *x)
{
	const uint64_t *heap = x->v[PMAPS_X_RUNTIME_HEAP], *t = x->total;
	uint64_t file = 0, file_clean = 0, lazy = t[PMAPS_XC_LAZYFREE], dirty, stacks;
	int go = x->runtime_kind == PMAPS_RUNTIME_GO;
	/* A note whose figures the source does not know is not made: 0 is no "unknown". */
#define KNOWN(col) (x->xc_known & (1u << (col)))

	if (go && x->mappings[PMAPS_X_RUNTIME_HEAP])
		note(x, PMAPS_NOTE_GO_HEAP, heap[PMAPS_XC_RSS], 0);
	if (go && heap[PMAPS_XC_LAZYFREE])
		note(x, PMAPS_NOTE_GO_LAZYFREE, heap[PMAPS_XC_LAZYFREE], 0);
	if (x->runtime_kind == PMAPS_RUNTIME_JVM && x->jvm_heap_end)
		note(x, PMAPS_NOTE_JVM_HEAP, heap[PMAPS_XC_RSS], x->jvm_heap_end - x->jvm_heap_start);
	else if (x->runtime_kind == PMAPS_RUNTIME_JVM)
		note(x, PMAPS_NOTE_JVM, 0, 0);
	if (x->runtime_kind == PMAPS_RUNTIME_CPYTHON)
		note(x, PMAPS_NOTE_CPYTHON, 0, 0);
	if (x->runtime_kind == PMAPS_RUNTIME_GLIBC && x->arenas)
		note(x, PMAPS_NOTE_GLIBC_ARENAS, x->arenas, heap[PMAPS_XC_RSS]);
	dirty = x->v[PMAPS_X_HEAP][PMAPS_XC_PRIVATE_DIRTY] +
	        x->v[PMAPS_X_ANON][PMAPS_XC_PRIVATE_DIRTY] +
	        x->v[PMAPS_X_ANON_NAMED][PMAPS_XC_PRIVATE_DIRTY];
	if (dirty && KNOWN(PMAPS_XC_PRIVATE_DIRTY))
		note(x, PMAPS_NOTE_ANON_DIRTY, dirty, 0);
	if (go)
		lazy -= heap[PMAPS_XC_LAZYFREE]; /* told by GO_LAZYFREE */
	if (lazy && KNOWN(PMAPS_XC_LAZYFREE))
		note(x, PMAPS_NOTE_LAZYFREE, lazy, 0);
	for (int k = PMAPS_X_FILE_TEXT; k <= PMAPS_X_FILE_RO; k++) {
		file += x->v[k][PMAPS_XC_RSS];
		file_clean += x->v[k][PMAPS_XC_PRIVATE_CLEAN] + x->v[k][PMAPS_XC_SHARED_CLEAN];
	}
	if (file && KNOWN(PMAPS_XC_PRIVATE_CLEAN) && KNOWN(PMAPS_XC_SHARED_CLEAN))
		note(x, PMAPS_NOTE_FILE, file, file_clean);
	if (x->v[PMAPS_X_SHMEM][PMAPS_XC_RSS] && KNOWN(PMAPS_XC_PSS))
		note(x, PMAPS_NOTE_SHMEM, x->v[PMAPS_X_SHMEM][PMAPS_XC_RSS],
		     x->v[PMAPS_X_SHMEM][PMAPS_XC_PSS]);
	stacks = x->v[PMAPS_X_THREAD_STACK][PMAPS_XC_RSS] + x->v[PMAPS_X_MAIN_STACK][PMAPS_XC_RSS];
	if (stacks)
		note(x, PMAPS_NOTE_STACKS, stacks, 0);
	if (t[PMAPS_XC_THP])
		note(x, PMAPS_NOTE_THP, t[PMAPS_XC_THP], 0);
	if (t[PMAPS_XC_SWAP])
		note(x, PMAPS_NOTE_SWAP, t[PMAPS_XC_SWAP], 0);
#undef KNOWN
}

/* ------------------------------------------------------------------ */
/* The session */

/* The message of cursor C's error R. */
static void cursor_msg(struct pmaps_explain_session *s, struct pmaps_maps *c, int r)
{
	pmaps__msg(s->msg, sizeof(s->msg), "%s",
	           c && pmaps_maps_errmsg(c)[0] ? pmaps_maps_errmsg(c) : pmaps_strerror(r));
}

uint32_t pmaps__explain_fast_known(uint64_t kf, uint64_t kv)
{
	uint32_t k = 1u << PMAPS_XC_RSS | 1u << PMAPS_XC_SWAP;

	if (kv & (1ull << (PMAPS_V_USS - PMAPS_F_MAX)))
		k |= 1u << PMAPS_XC_PRIVATE | 1u << PMAPS_XC_SHARED;
	if (kf & (1ull << PMAPS_F_ANON_HUGE_PAGES))
		k |= 1u << PMAPS_XC_THP;
	if (kf & (1ull << PMAPS_F_PSS))
		k |= 1u << PMAPS_XC_PSS | 1u << PMAPS_XC_LAZYFREE;
	return k;
}

/* Starts cursor C over, unless it was just opened and not read yet. */
static int restart(struct pmaps_maps *c, int *fresh)
{
	int r = *fresh ? 0 : pmaps_maps_rewind(c);

	*fresh = 0;
	return r;
}

/* status and the stack pointers, read before smaps. */
static int read_before(struct pmaps_explain_session *s)
{
	struct pmaps_explain *x = &s->x;
	int r, fd = pmaps__openat(s->proc, "status");

	if (fd >= 0) {
		r = pmaps__status_parse(fd, &x->status, s->msg, sizeof(s->msg));
		close(fd);
		if (r == -EBADMSG)
			return r;
		if (r < 0) { /* unreadable: no status, as when it cannot be opened */
			memset(&x->status, 0, sizeof(x->status));
			x->status.size = sizeof(x->status);
			s->msg[0] = '\0';
		}
	}
	r = pmaps__sps_read(s->proc, &s->sps);
	if (r < 0) {
		pmaps__msg(s->msg, sizeof(s->msg), "task: %s", pmaps_strerror(r));
		return r;
	}
	x->threads = s->sps.n;
	return 0;
}

/* What the session knows before a pass: Go's build info, the page cursor's state. */
static void start_result(struct pmaps_explain_session *s)
{
	struct pmaps_explain *x = &s->x;

	memset(x, 0, sizeof(*x));
	x->size = sizeof(*x);
	x->status.size = sizeof(x->status);
	x->source = s->fast ? PMAPS_SRC_PAGES : PMAPS_SRC_SMAPS;
	x->xc_known = s->xc_known;
	memset(&s->runs, 0, sizeof(s->runs));
	memset(s->gate, 0, sizeof(s->gate));
	s->hsperf.path[0] = '\0';
	s->msg[0] = '\0';
	if (s->go) {
		set_runtime(x, PMAPS_RUNTIME_GO);
		pmaps__msg(x->runtime_version, sizeof(x->runtime_version), "%s", s->go_version);
		pmaps__msg(x->runtime_evidence, sizeof(x->runtime_evidence),
		           "Go %s: the .go.buildinfo section of /proc/%d/exe; its heap: the anonymous "
		           "mappings contiguous from an arena hint (0xc000000000)",
		           x->runtime_version[0] ? x->runtime_version : "(before 1.18)", s->proc->pid);
	}
	if (s->pages) {
		x->pages = 1;
		x->pages_kpage = pmaps_pages_kpage(s->pages);
		x->pages_strategy = pmaps_pages_strategy(s->pages);
		x->pages_known = 1u << PMAPS_XP_RESIDENT;
		if (x->pages_strategy == PMAPS_PAGES_SCAN || x->pages_kpage == 1)
			x->pages_known |= 1u << PMAPS_XP_ZERO;
		if (x->pages_kpage == 1)
			x->pages_known |= 1u << PMAPS_XP_DIRTY | 1u << PMAPS_XP_LAZYFREE |
			                  1u << PMAPS_XP_SHARED | 1u << PMAPS_XP_THP;
		else
			memcpy(x->pages_note, s->kpage_note, sizeof(x->pages_note));
	}
}

/*
 * One read of the process: status, stack pointers, smaps, smaps_rollup.
 * *OVERLAP is set when smaps listed a mapping twice: read again.
 */
static int read_once(struct pmaps_explain_session *s, int *overlap)
{
	struct pmaps_explain *x = &s->x;
	const struct pmaps_mapping *m;
	struct pass ps;
	int r;

	start_result(s);
	x->read_start_ns = pmaps__now_ns();
	x->read_at_ns = pmaps__real_ns();
	r = read_before(s);
	if (r < 0)
		return r;
	if (s->pages_err) {
		pmaps__msg(s->msg, sizeof(s->msg), "%s", pmaps_pages_errmsg(s->pages)[0]
		           ? pmaps_pages_errmsg(s->pages) : pmaps_strerror(s->pages_err));
		return s->pages_err;
	}
	memset(&ps, 0, sizeof(ps));
	r = restart(s->smaps, &s->smaps_fresh);
	while (r >= 0 && (r = pmaps_maps_next(s->smaps, &m)) > 0) {
		if (m->flags & PMAPS_ROW_OVERLAP) {
			/* Listed again after it grew: the sums would count it twice. */
			*overlap = 1;
			return 0;
		}
		r = add_mapping(s, &ps, m);
	}
	x->stacks_found = ps.located;
	if (r < 0) {
		if (!s->msg[0])
			cursor_msg(s, s->smaps, r);
		return r;
	}
	decide_runtime(s, &ps);
	for (int k = 0; k < PMAPS_X_COUNT; k++)
		for (int col = 0; col < PMAPS_XC_COUNT; col++)
			add_chk(&ps.ovf, &x->total[col], x->v[k][col]);
	/* Referenced, carried as a column through the runtimes' claims, to its own fields. */
	x->referenced_known = !s->fast && !ps.no_referenced;
	for (int k = 0; k < PMAPS_X_COUNT; k++) {
		x->referenced[k] = x->referenced_known ? x->v[k][XC_REF] : 0;
		add_chk(&ps.ovf, &x->referenced_total, x->referenced[k]);
		x->v[k][XC_REF] = 0;
	}
	if (!x->referenced_known)
		memset(x->top_referenced, 0, sizeof(x->top_referenced));
	if (ps.ovf) {
		pmaps__msg(s->msg, sizeof(s->msg), "%s: values whose sum passes 2^64 bytes (the "
		           "Swap of shared memory objects, or the THP fields): no kernel prints them",
		           s->fast ? "pages" : "smaps");
		return -EBADMSG;
	}
	/*
	 * The kernel's own sum, right after: equal on a process at rest. Opened
	 * again each time: the thread it was opened through may have ended.
	 * Not with the page sources, whose point is not to take that walk.
	 */
	r = s->rollup && !s->no_rollup ? pmaps_maps_rewind(s->rollup) : -ENOENT;
	if (r == 0 && (r = pmaps_maps_next(s->rollup, &m)) > 0) {
		memcpy(x->rollup, m->v, sizeof(x->rollup));
		x->have_rollup = 1;
		r = 0;
	}
	if (r == -ENOENT)
		r = 0; /* before 4.14: the smaps sum stands alone */
	if (r < 0) {
		cursor_msg(s, s->rollup, r);
		return r;
	}
	reconcile(x);
	make_notes(x);
	x->read_end_ns = pmaps__now_ns();
	return 0;
}

int pmaps_explain_run(struct pmaps_explain_session *s, const struct pmaps_explain **out)
{
	*out = NULL;
	/*
	 * A mapping that grew between two of the kernel's reads is listed again
	 * from its start (PMAPS_ROW_OVERLAP): every sum would count it twice.
	 * Read again; a process that keeps doing it gets -EAGAIN.
	 */
	for (int attempt = 1; attempt <= PMAPS_MAX_READS; attempt++) {
		int overlap = 0, r = read_once(s, &overlap);
		/* -EAGAIN: the thread it was read through ended; another is there. */
		if ((r < 0 && r != -EAGAIN) || (r == 0 && !overlap) ||
		    (r == -EAGAIN && attempt == PMAPS_MAX_READS)) {
			if (r == 0)
				*out = &s->x;
			return r;
		}
	}
	pmaps__msg(s->msg, sizeof(s->msg), "%s: the process kept changing its mappings while "
	           "they were read (a mapping grew and was listed twice, %d reads in a row): try "
	           "again", s->fast ? "pages" : "smaps", PMAPS_MAX_READS);
	return -EAGAIN;
}

int pmaps_explain_open(struct pmaps_explain_session **out, struct pmaps_proc *proc,
                       unsigned options)
{
	struct pmaps_explain_session *s;
	int r;

	*out = NULL;
	if (!proc || (options & ~(unsigned)(PMAPS_EXPLAIN_PAGES | PMAPS_EXPLAIN_FAST |
	                                     PMAPS_EXPLAIN_GENTLE | PMAPS_EXPLAIN_PACED)) ||
	    ((options & (PMAPS_EXPLAIN_GENTLE | PMAPS_EXPLAIN_PACED)) &&
	     !(options & PMAPS_EXPLAIN_FAST)) ||
	    (options & PMAPS_EXPLAIN_GENTLE && options & PMAPS_EXPLAIN_PACED))
		return -EINVAL;
	s = pmaps__alloc(sizeof(*s));
	if (!s)
		return -ENOMEM;
	memset(s, 0, sizeof(*s));
	s->proc = proc;
	*out = s; /* even on error, so that its message can be read */
	/*
	 * The cursors' process errors (gone, no access, no rollup) are the
	 * runs' to report: a rewind opens the file again and says why not.
	 */
	s->fast = (options & PMAPS_EXPLAIN_FAST) != 0;
	r = pmaps_maps_open(&s->smaps, proc, s->fast ? PMAPS_SRC_PAGES : PMAPS_SRC_SMAPS, 0);
	s->smaps_fresh = r == 0;
	if (r == -ENOMEM || r == -EINVAL || !s->smaps)
		goto fail;
	if (s->fast) {
		uint64_t kf, kv;
		pmaps__maps_fast_keys(s->smaps, &kf, &kv);
		s->xc_known = pmaps__explain_fast_known(kf, kv);
		if (options & PMAPS_EXPLAIN_GENTLE) {
			struct pmaps_policy p = PMAPS_POLICY_GENTLE;
			pmaps_maps_set_policy(s->smaps, &p);
		} else if (options & PMAPS_EXPLAIN_PACED) {
			struct pmaps_policy p = PMAPS_POLICY_PACED;
			pmaps_maps_set_policy(s->smaps, &p);
		}
	} else {
		s->xc_known = (1u << PMAPS_XC_COUNT) - 1;
		r = pmaps_maps_open(&s->rollup, proc, PMAPS_SRC_ROLLUP, 0);
		if (r == -ENOMEM || r == -EINVAL)
			goto fail;
	}
	if (options & PMAPS_EXPLAIN_PAGES) {
		r = pmaps_pages_open(&s->pages, proc, PMAPS_PAGES_AUTO, PMAPS_PAGES_KPAGE);
		if (!s->pages || r == -ENOMEM)
			goto fail;
		s->pages_err = r;
		/* Kept now: the cursor's message is its last error's after a failed walk. */
		if (r == 0 && pmaps_pages_kpage(s->pages) != 1)
			pmaps__msg(s->kpage_note, sizeof(s->kpage_note), "%s",
			           pmaps_pages_errmsg(s->pages));
	}
	/* The executable's build info: once, the program is the session's. */
	s->go = pmaps__go_buildinfo(proc, s->go_version, sizeof(s->go_version));
	return 0;
fail:
	pmaps__msg(s->msg, sizeof(s->msg), "%s", pmaps_strerror(r));
	return r;
}

void pmaps__explain_rollup(struct pmaps_explain_session *s, int on)
{
	s->no_rollup = !on;
}

void pmaps__explain_reopen(struct pmaps_explain_session *s)
{
	s->smaps_fresh = 0;
}

uint64_t pmaps__explain_gate(const struct pmaps_explain_session *s, int cat)
{
	return s->gate[cat];
}

int pmaps_explain_retarget(struct pmaps_explain_session *s, struct pmaps_proc *proc)
{
	int r;

	if (!s || !proc || s->pages)
		return -EINVAL;
	s->proc = proc;
	/* A failed open leaves the cursor in error: the run's rewind opens it again and says why. */
	r = pmaps_maps_retarget(s->smaps, proc);
	s->smaps_fresh = r == 0;
	if (r == -ENOMEM || r == -EINVAL)
		return r;
	if (s->rollup) {
		r = pmaps_maps_retarget(s->rollup, proc);
		if (r == -ENOMEM || r == -EINVAL)
			return r;
	}
	s->go = pmaps__go_buildinfo(proc, s->go_version, sizeof(s->go_version));
	return 0;
}

int pmaps_explain_known(const struct pmaps_explain *x, int cat, enum pmaps_xcol col)
{
	if (!x || (unsigned)col >= PMAPS_XC_COUNT || !(x->xc_known & (1u << col)) ||
	    cat >= PMAPS_X_COUNT)
		return 0;
	if (col == PMAPS_XC_SWAP && (cat < 0 ? x->swap_unknown : (x->swap_unknown >> cat) & 1))
		return 0;
	return 1;
}

int pmaps_explain_cost(const struct pmaps_explain_session *s, struct pmaps_cost *out)
{
	return pmaps_maps_cost(s->smaps, out);
}

const char *pmaps_explain_errmsg(const struct pmaps_explain_session *s)
{
	return s->msg;
}

void pmaps_explain_close(struct pmaps_explain_session *s)
{
	if (!s)
		return;
	pmaps_maps_close(s->smaps);
	pmaps_maps_close(s->rollup);
	pmaps_pages_close(s->pages);
	pmaps__sps_free(&s->sps);
	pmaps__free(s);
}

int pmaps_explain(struct pmaps_proc *proc, struct pmaps_explain *out, unsigned options, char *msg,
                  size_t msgsz)
{
	struct pmaps_explain_session *s;
	const struct pmaps_explain *x = NULL;
	uint32_t size;
	int r;

	if (!out || !pmaps__size_ok(out->size, PMAPS__EXPLAIN_SIZE0)) {
		if (msg && msgsz)
			pmaps__msg(msg, msgsz, "struct pmaps_explain: size %u, below %zu: set it to sizeof",
			           out ? out->size : 0u, PMAPS__EXPLAIN_SIZE0);
		return -EINVAL;
	}
	size = out->size;
	r = pmaps_explain_open(&s, proc, options);
	if (r == 0)
		r = pmaps_explain_run(s, &x);
	/* The session's result is the whole one; on error, nothing but zeros. */
	if (r == 0)
		pmaps__copy_out(out, size, x, sizeof(*x));
	else
		memset(out, 0, size < sizeof(*out) ? size : sizeof(*out));
	out->size = size;
	if (msg && msgsz)
		pmaps__msg(msg, msgsz, "%s", r == 0 ? "" : s ? s->msg : pmaps_strerror(r));
	pmaps_explain_close(s);
	return r;
}
