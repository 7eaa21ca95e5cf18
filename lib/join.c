/* SPDX-License-Identifier: MIT */
/*
 * join.c - the runtime's books joined to explain's kernel figures
 * (pmaps_books_join()): terms as data, whose words are a front end's.
 *
 * The join splits the kernel's resident memory into parts (the runtime's
 * heap, the rest of the anonymous memory, stacks, files, shared memory,
 * other), each part's bytes explain's categories' RSS. A runtime figure
 * goes into the part where that memory lives; what the figures of a part
 * do not cover is its remainder, a term of its own: positive when the
 * kernel holds more than the runtime counts, negative when the runtime
 * counts memory that is not resident (committed but never touched, or
 * released). So every part's terms add up to its kernel figure, and the
 * parts to the RSS, exactly.
 *
 * The books must be of the explain's moment: read right before it, both
 * reads within a stated span (skew), and the process's RSS not moved from
 * the books' end to the explain's (docs/internals/BOOKS.md, "One instant").
 */
#include <errno.h>
#include <string.h>

#include "internal.h"
#include "readers.h"

/*
 * No address space holds more than 2^57 bytes (5-level page tables): a
 * runtime figure past it is no figure, and the join refuses it. Sixteen
 * such figures still sum below 2^64.
 */
#define FIGURE_MAX ((uint64_t)1 << 57)
/* What the RSS may move while the books are read: this much, or a 64th of it. */
#define MOVED_MIN (1ull << 20)

static const char *const part_keys[PMAPS_JP_COUNT] = {"runtime-heap", "anon", "stacks",
                                                       "files", "shmem", "other"};
static const char *const part_how[PMAPS_JP_COUNT] = {
	"the runtime's heap", "[heap] and anonymous mmap", "stacks", "files", "shared memory",
	"other"};
static const char *const src_keys[PMAPS_JS_COUNT] = {"kernel", "runtime", "remainder"};
static const char *const refusal_keys[PMAPS_JOIN_REFUSAL_COUNT] = {"", "none", "range",
                                                                   "skew", "moved"};

static const struct {
	const char *key;
	const char *how; /* NULL: a remainder's, or a part's (by its sign, its part) */
} terms[PMAPS_JK_COUNT] = {
	[PMAPS_JK_GO_LIVE_OBJECTS] = {"go_live_objects", "HeapAlloc"},
	[PMAPS_JK_GO_SPAN_SLACK] = {"go_span_slack", "HeapInuse - HeapAlloc"},
	[PMAPS_JK_GO_HELD_FREE] = {"go_held_free", "HeapIdle - HeapReleased"},
	[PMAPS_JK_GO_STACKS] = {"go_stacks", "StackInuse"},
	[PMAPS_JK_GO_RETURNED_RESIDENT] = {"go_returned_resident", NULL},
	[PMAPS_JK_GO_RUNTIME_METADATA] = {"go_runtime_metadata",
		"MSpanInuse + MCacheInuse + GCSys + BuckHashSys + OtherSys + (StackSys - StackInuse)"},
	[PMAPS_JK_JAVA_HEAP_USED] = {"java_heap_used", "GC.heap_info used"},
	[PMAPS_JK_JAVA_HEAP_FREE] = {"java_heap_free", "GC.heap_info committed - used"},
	[PMAPS_JK_JAVA_HEAP] = {"java_heap", "NMT Java Heap committed"},
	[PMAPS_JK_JVM_CLASS] = {"jvm_class", "NMT Class committed"},
	[PMAPS_JK_JVM_CODE] = {"jvm_code", "NMT Code committed"},
	[PMAPS_JK_JVM_GC] = {"jvm_gc", "NMT GC committed"},
	[PMAPS_JK_JVM_INTERNAL] = {"jvm_internal", "NMT Internal committed"},
	[PMAPS_JK_JVM_OTHER] = {"jvm_other", "NMT's other categories committed"},
	[PMAPS_JK_JVM_THREADS] = {"jvm_threads", "NMT Thread committed"},
	[PMAPS_JK_JVM_SHARED_CLASSES] = {"jvm_shared_classes", "NMT Shared class space committed"},
	[PMAPS_JK_MALLOC_IN_USE] = {"malloc_in_use", "malloc_info: system - free + mmap"},
	[PMAPS_JK_MALLOC_FREE_HELD] = {"malloc_free_held", "malloc_info: fast + rest"},
	[PMAPS_JK_HEAP_UNEXPLAINED] = {"heap_unexplained", NULL},
	[PMAPS_JK_ANON_UNEXPLAINED] = {"anon_unexplained", NULL},
	[PMAPS_JK_STACKS_UNEXPLAINED] = {"stacks_unexplained", NULL},
	[PMAPS_JK_FILES_UNEXPLAINED] = {"files_unexplained", NULL},
	[PMAPS_JK_RUNTIME_HEAP] = {"runtime_heap", NULL},
	[PMAPS_JK_ANON] = {"anon", NULL},
	[PMAPS_JK_STACKS] = {"stacks", NULL},
	[PMAPS_JK_FILES] = {"files", NULL},
	[PMAPS_JK_SHMEM] = {"shmem", NULL},
	[PMAPS_JK_OTHER] = {"other", NULL},
};

const char *pmaps_join_part_key(enum pmaps_join_part p)
{
	return (unsigned)p < PMAPS_JP_COUNT ? part_keys[p] : NULL;
}

const char *pmaps_join_src_key(enum pmaps_join_src s)
{
	return (unsigned)s < PMAPS_JS_COUNT ? src_keys[s] : NULL;
}

const char *pmaps_join_key(enum pmaps_join_key k)
{
	return (unsigned)k < PMAPS_JK_COUNT ? terms[k].key : NULL;
}

const char *pmaps_join_refusal_key(enum pmaps_join_refusal r)
{
	return (unsigned)r < PMAPS_JOIN_REFUSAL_COUNT ? refusal_keys[r] : NULL;
}

const char *pmaps_join_term_how(const struct pmaps_join_term *t)
{
	if (!t || (unsigned)t->key >= PMAPS_JK_COUNT || (unsigned)t->part >= PMAPS_JP_COUNT)
		return NULL;
	if (terms[t->key].how)
		return terms[t->key].how;
	if (t->key == PMAPS_JK_GO_RETURNED_RESIDENT)
		return t->part == PMAPS_JP_RUNTIME_HEAP ? "LazyFree of the Go heap"
		                                        : "LazyFree of the anonymous memory";
	if (t->src == PMAPS_JS_REMAINDER)
		return t->neg ? "the runtime's figures less the kernel's"
		              : "the kernel's figure less the runtime's";
	return part_how[t->part];
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t sub0(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/* A join under way: the result, and whether a figure passed FIGURE_MAX. */
struct jn {
	struct pmaps_join *j;
	const struct pmaps_books *b;
	int range;
};

static void term(struct jn *n, enum pmaps_join_part part, enum pmaps_join_key key,
                 enum pmaps_join_src src, uint64_t bytes)
{
	struct pmaps_join_term *t;

	if (n->j->nterms >= PMAPS_JOIN_TERMS)
		return; /* the terms below fit: JOIN_TERMS is above the most a join makes */
	t = &n->j->term[n->j->nterms++];
	t->key = key;
	t->src = src;
	t->part = part;
	t->neg = 0;
	t->bytes = bytes;
	if (src == PMAPS_JS_RUNTIME && bytes > FIGURE_MAX)
		n->range = 1;
}

/* B's figure V, 0 when absent. */
static uint64_t fig(const struct jn *n, enum pmaps_book_value v)
{
	return pmaps_books_has(n->b, v) ? n->b->v[v] : 0;
}

/* The remainder of PART: its kernel bytes less the terms since FIRST, signed. */
static void rest_term(struct jn *n, enum pmaps_join_part part, unsigned first,
                      enum pmaps_join_key key)
{
	uint64_t sum = 0, have = n->j->part[part];

	for (unsigned i = first; i < n->j->nterms; i++)
		sum = sat_add(sum, n->j->term[i].bytes);
	term(n, part, key, PMAPS_JS_REMAINDER, have >= sum ? have - sum : sum - have);
	n->j->term[n->j->nterms - 1].neg = have < sum;
}

/* PART whole, as the kernel's figure, when it holds anything. */
static void part_kernel(struct jn *n, enum pmaps_join_part part, enum pmaps_join_key key)
{
	if (n->j->part[part])
		term(n, part, key, PMAPS_JS_KERNEL, n->j->part[part]);
}

/* The sum of NMT's categories named in NAMES (NULL-terminated), committed; or all the others. */
static uint64_t nmt_sum(const struct pmaps_books *b, const char *const *names, int others)
{
	static const char *const known[] = {"Java Heap", "Class", "Thread", "Code", "GC",
	                                    "Internal", "Shared class space", NULL};
	uint64_t sum = 0;

	for (unsigned i = 0; i < b->jvm_ncat && i < PMAPS_NMT_MAX; i++) {
		int in = 0;
		for (const char *const *l = others ? known : names; *l; l++)
			if (strncmp(b->jvm_cat[i].name, *l, sizeof(b->jvm_cat[i].name)) == 0)
				in = 1;
		if (in != others)
			sum = sat_add(sum, b->jvm_cat[i].committed);
	}
	return sum;
}

static uint64_t nmt_one(const struct pmaps_books *b, const char *name)
{
	const char *const names[] = {name, NULL};

	return nmt_sum(b, names, 0);
}

static void join_go(struct jn *n, enum pmaps_join_part part)
{
	term(n, part, PMAPS_JK_GO_LIVE_OBJECTS, PMAPS_JS_RUNTIME, fig(n, PMAPS_BV_GO_HEAP_ALLOC));
	term(n, part, PMAPS_JK_GO_SPAN_SLACK, PMAPS_JS_RUNTIME,
	     sub0(fig(n, PMAPS_BV_GO_HEAP_INUSE), fig(n, PMAPS_BV_GO_HEAP_ALLOC)));
	term(n, part, PMAPS_JK_GO_HELD_FREE, PMAPS_JS_RUNTIME,
	     sub0(fig(n, PMAPS_BV_GO_HEAP_IDLE), fig(n, PMAPS_BV_GO_HEAP_RELEASED)));
	term(n, part, PMAPS_JK_GO_STACKS, PMAPS_JS_RUNTIME, fig(n, PMAPS_BV_GO_STACK_INUSE));
}

/* The Java heap into PART: GC.heap_info's used and committed, else NMT's Java Heap. */
static void join_java_heap(struct jn *n, enum pmaps_join_part part, int heap, int nmt)
{
	if (heap) {
		term(n, part, PMAPS_JK_JAVA_HEAP_USED, PMAPS_JS_RUNTIME,
		     fig(n, PMAPS_BV_JVM_HEAP_USED));
		term(n, part, PMAPS_JK_JAVA_HEAP_FREE, PMAPS_JS_RUNTIME,
		     sub0(fig(n, PMAPS_BV_JVM_HEAP_COMMITTED), fig(n, PMAPS_BV_JVM_HEAP_USED)));
	} else if (nmt) {
		term(n, part, PMAPS_JK_JAVA_HEAP, PMAPS_JS_RUNTIME, nmt_one(n->b, "Java Heap"));
	}
}

/* The books' window joined: the oldest time and the span of all the reads. */
static void window(struct pmaps_join *j, const struct pmaps_book_head *h, uint64_t *lo,
                   uint64_t *hi)
{
	if (!j->as_of_ns || h->at_ns < j->as_of_ns)
		j->as_of_ns = h->at_ns;
	if (h->start_ns && h->start_ns < *lo)
		*lo = h->start_ns;
	if (h->end_ns > *hi)
		*hi = h->end_ns;
}

/* The terms, into N's join (its parts filled). */
static void make_terms(struct jn *n, const struct pmaps_explain *x, int go, int heap, int nmt,
                       int mal)
{
	struct pmaps_join *j = n->j;
	int lazy_known = pmaps_explain_known(x, PMAPS_X_RUNTIME_HEAP, PMAPS_XC_LAZYFREE);
	int jvm = heap || nmt;
	enum pmaps_join_part heap_part;
	unsigned first;

	/*
	 * The runtime's heap: where explain found it, else (its evidence
	 * missing) among the anonymous memory, which then takes its terms.
	 */
	heap_part = j->part[PMAPS_JP_RUNTIME_HEAP] ? PMAPS_JP_RUNTIME_HEAP : PMAPS_JP_ANON;
	if (heap_part == PMAPS_JP_RUNTIME_HEAP && (go || jvm)) {
		first = j->nterms;
		if (go) {
			join_go(n, PMAPS_JP_RUNTIME_HEAP);
			if (lazy_known)
				term(n, PMAPS_JP_RUNTIME_HEAP, PMAPS_JK_GO_RETURNED_RESIDENT, PMAPS_JS_KERNEL,
				     x->v[PMAPS_X_RUNTIME_HEAP][PMAPS_XC_LAZYFREE]);
		} else {
			join_java_heap(n, PMAPS_JP_RUNTIME_HEAP, heap, nmt);
		}
		rest_term(n, PMAPS_JP_RUNTIME_HEAP, first, PMAPS_JK_HEAP_UNEXPLAINED);
	} else {
		part_kernel(n, PMAPS_JP_RUNTIME_HEAP, PMAPS_JK_RUNTIME_HEAP);
	}
	/* The anonymous memory outside it. */
	first = j->nterms;
	if (go && heap_part == PMAPS_JP_ANON) {
		join_go(n, PMAPS_JP_ANON);
		if (lazy_known)
			term(n, PMAPS_JP_ANON, PMAPS_JK_GO_RETURNED_RESIDENT, PMAPS_JS_KERNEL,
			     x->v[PMAPS_X_ANON][PMAPS_XC_LAZYFREE]);
	}
	if (go)
		term(n, PMAPS_JP_ANON, PMAPS_JK_GO_RUNTIME_METADATA, PMAPS_JS_RUNTIME,
		     sat_add(sat_add(sat_add(fig(n, PMAPS_BV_GO_MSPAN_INUSE),
		                             fig(n, PMAPS_BV_GO_MCACHE_INUSE)),
		                     sat_add(fig(n, PMAPS_BV_GO_GC_SYS),
		                             fig(n, PMAPS_BV_GO_BUCK_HASH_SYS))),
		             sat_add(fig(n, PMAPS_BV_GO_OTHER_SYS),
		                     sub0(fig(n, PMAPS_BV_GO_STACK_SYS),
		                          fig(n, PMAPS_BV_GO_STACK_INUSE)))));
	if (jvm && heap_part == PMAPS_JP_ANON)
		join_java_heap(n, PMAPS_JP_ANON, heap, nmt);
	if (nmt) {
		term(n, PMAPS_JP_ANON, PMAPS_JK_JVM_CLASS, PMAPS_JS_RUNTIME, nmt_one(n->b, "Class"));
		term(n, PMAPS_JP_ANON, PMAPS_JK_JVM_CODE, PMAPS_JS_RUNTIME, nmt_one(n->b, "Code"));
		term(n, PMAPS_JP_ANON, PMAPS_JK_JVM_GC, PMAPS_JS_RUNTIME, nmt_one(n->b, "GC"));
		term(n, PMAPS_JP_ANON, PMAPS_JK_JVM_INTERNAL, PMAPS_JS_RUNTIME,
		     nmt_one(n->b, "Internal"));
		term(n, PMAPS_JP_ANON, PMAPS_JK_JVM_OTHER, PMAPS_JS_RUNTIME, nmt_sum(n->b, NULL, 1));
	}
	if (mal && !nmt) { /* NMT counts the JVM's own mallocs already */
		term(n, PMAPS_JP_ANON, PMAPS_JK_MALLOC_IN_USE, PMAPS_JS_RUNTIME,
		     fig(n, PMAPS_BV_MALLOC_IN_USE));
		term(n, PMAPS_JP_ANON, PMAPS_JK_MALLOC_FREE_HELD, PMAPS_JS_RUNTIME,
		     fig(n, PMAPS_BV_MALLOC_FREE_HELD));
	}
	if (j->nterms > first)
		rest_term(n, PMAPS_JP_ANON, first, PMAPS_JK_ANON_UNEXPLAINED);
	else
		part_kernel(n, PMAPS_JP_ANON, PMAPS_JK_ANON);
	/* Stacks and files: the JVM's threads and class archive (NMT), else the kernel's. */
	if (nmt) {
		first = j->nterms;
		term(n, PMAPS_JP_STACKS, PMAPS_JK_JVM_THREADS, PMAPS_JS_RUNTIME,
		     nmt_one(n->b, "Thread"));
		rest_term(n, PMAPS_JP_STACKS, first, PMAPS_JK_STACKS_UNEXPLAINED);
		first = j->nterms;
		term(n, PMAPS_JP_FILES, PMAPS_JK_JVM_SHARED_CLASSES, PMAPS_JS_RUNTIME,
		     nmt_one(n->b, "Shared class space"));
		rest_term(n, PMAPS_JP_FILES, first, PMAPS_JK_FILES_UNEXPLAINED);
	} else {
		part_kernel(n, PMAPS_JP_STACKS, PMAPS_JK_STACKS);
		part_kernel(n, PMAPS_JP_FILES, PMAPS_JK_FILES);
	}
	part_kernel(n, PMAPS_JP_SHMEM, PMAPS_JK_SHMEM);
	part_kernel(n, PMAPS_JP_OTHER, PMAPS_JK_OTHER);
}

int pmaps_books_join(const struct pmaps_explain *x, const struct pmaps_books *b,
                     uint64_t max_skew_ns, struct pmaps_join *out)
{
	static const enum pmaps_join_part cat_part[PMAPS_X_COUNT] = {
		[PMAPS_X_HEAP] = PMAPS_JP_ANON, [PMAPS_X_ANON] = PMAPS_JP_ANON,
		[PMAPS_X_ANON_NAMED] = PMAPS_JP_ANON, [PMAPS_X_RUNTIME_HEAP] = PMAPS_JP_RUNTIME_HEAP,
		[PMAPS_X_THREAD_STACK] = PMAPS_JP_STACKS, [PMAPS_X_MAIN_STACK] = PMAPS_JP_STACKS,
		[PMAPS_X_FILE_TEXT] = PMAPS_JP_FILES, [PMAPS_X_FILE_DATA] = PMAPS_JP_FILES,
		[PMAPS_X_FILE_RO] = PMAPS_JP_FILES, [PMAPS_X_SHMEM] = PMAPS_JP_SHMEM,
		[PMAPS_X_HUGETLB] = PMAPS_JP_SHMEM, [PMAPS_X_OTHER] = PMAPS_JP_OTHER};
	struct pmaps_join j;
	struct jn n;
	uint64_t lo = UINT64_MAX, hi = 0, vmrss;
	uint32_t size;
	int go, heap, nmt, mal;

	if (!x || !b || !out || !pmaps__size_ok(out->size, PMAPS__JOIN_SIZE0) ||
	    !pmaps__size_ok(b->size, PMAPS__BOOKS_SIZE0))
		return -EINVAL;
	size = out->size;
	memset(&j, 0, sizeof(j));
	j.size = size;
	j.refused = PMAPS_JOIN_NONE;
	j.rss = x->total[PMAPS_XC_RSS];
	for (int c = 0; c < PMAPS_X_COUNT; c++)
		j.part[cat_part[c]] += x->v[c][PMAPS_XC_RSS]; /* parts of the RSS: no wrap */
	go = b->head[PMAPS_BOOK_GO].ok;
	heap = b->head[PMAPS_BOOK_JVM_HEAP].ok;
	nmt = b->head[PMAPS_BOOK_JVM_NMT].ok && b->jvm_nmt == PMAPS_NMT_ON;
	mal = b->head[PMAPS_BOOK_MALLOC].ok;
	j.max_skew_ns = max_skew_ns ? max_skew_ns : PMAPS_JOIN_SKEW_NS;
	if (go || heap || nmt || mal) {
		n.j = &j;
		n.b = b;
		n.range = 0;
		for (int k = 0; k < PMAPS_BOOK_COUNT; k++)
			if (b->head[k].ok)
				window(&j, &b->head[k], &lo, &hi);
		if (x->read_start_ns && x->read_start_ns < lo)
			lo = x->read_start_ns;
		if (x->read_end_ns > hi)
			hi = x->read_end_ns;
		j.skew_ns = hi > lo ? hi - lo : 0;
		/*
		 * glibc's runtime heap is malloc's thread arenas: with malloc's
		 * books alone, they and [heap] are one part, whose terms malloc's
		 * figures are.
		 */
		if (mal && !go && !heap && !nmt && x->runtime_kind == PMAPS_RUNTIME_GLIBC) {
			j.part[PMAPS_JP_ANON] += j.part[PMAPS_JP_RUNTIME_HEAP];
			j.part[PMAPS_JP_RUNTIME_HEAP] = 0;
		}
		vmrss = (x->status.present >> PMAPS_ST_VM_RSS) & 1 ? x->status.v[PMAPS_ST_VM_RSS] : 0;
		j.max_moved = vmrss / 64 > MOVED_MIN ? vmrss / 64 : MOVED_MIN;
		if (b->after_ok && vmrss)
			j.moved = b->after_rss > vmrss ? b->after_rss - vmrss : vmrss - b->after_rss;
		if (vmrss && x->status_apart > j.moved)
			j.moved = x->status_apart; /* it moved while the explain read it */
		make_terms(&n, x, go, heap, nmt, mal);
		/* Every figure of a term is at most FIGURE_MAX, so no sum above wrapped. */
		if (n.range)
			j.refused = PMAPS_JOIN_RANGE;
		else if (j.skew_ns > j.max_skew_ns)
			j.refused = PMAPS_JOIN_SKEW;
		else if (j.moved > j.max_moved)
			j.refused = PMAPS_JOIN_MOVED;
		else
			j.refused = PMAPS_JOIN_JOINED;
		j.ok = j.refused == PMAPS_JOIN_JOINED;
		if (!j.ok) {
			j.nterms = 0;
			memset(j.term, 0, sizeof(j.term));
		}
	}
	pmaps__copy_out(out, size, &j, sizeof(j));
	out->size = size;
	return j.ok;
}
