/* SPDX-License-Identifier: MIT */
/*
 * books.c - the runtime's own books as data: which books there are, their
 * figures by key, the one entry that parses a book's text (the parsers are
 * books_go.c, books_jvm.c and books_malloc.c), and what a front end reads
 * of the process around them (GOGC and friends from environ, VmRSS after
 * the books). docs/internals/BOOKS.md has the model; the join is join.c.
 *
 * The library fetches nothing: a front end asks the runtime (HTTP, jcmd, a
 * helper in the process) and hands the text over. Every byte of it is the
 * target's: the parsers read it with bounds, keep figures at most 2^62
 * (sums of a few never wrap) and refuse what no runtime writes.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "readers.h"

static const char *const book_keys[PMAPS_BOOK_COUNT] = {
	[PMAPS_BOOK_GO] = "go",
	[PMAPS_BOOK_JVM_HEAP] = "jvm_heap",
	[PMAPS_BOOK_JVM_NMT] = "jvm_nmt",
	[PMAPS_BOOK_MALLOC] = "malloc",
};

static const enum pmaps_runtime book_runtime[PMAPS_BOOK_COUNT] = {
	[PMAPS_BOOK_GO] = PMAPS_RUNTIME_GO,
	[PMAPS_BOOK_JVM_HEAP] = PMAPS_RUNTIME_JVM,
	[PMAPS_BOOK_JVM_NMT] = PMAPS_RUNTIME_JVM,
	[PMAPS_BOOK_MALLOC] = PMAPS_RUNTIME_GLIBC,
};

#define B(k, book, unit) {k, PMAPS_BOOK_##book, PMAPS_BU_##unit}
static const struct {
	const char *key;
	enum pmaps_book book;
	enum pmaps_book_unit unit;
} values[PMAPS_BV_COUNT] = {
	[PMAPS_BV_GO_HEAP_ALLOC] = B("heap_alloc", GO, BYTES),
	[PMAPS_BV_GO_HEAP_SYS] = B("heap_sys", GO, BYTES),
	[PMAPS_BV_GO_HEAP_IDLE] = B("heap_idle", GO, BYTES),
	[PMAPS_BV_GO_HEAP_INUSE] = B("heap_inuse", GO, BYTES),
	[PMAPS_BV_GO_HEAP_RELEASED] = B("heap_released", GO, BYTES),
	[PMAPS_BV_GO_HEAP_OBJECTS] = B("heap_objects", GO, COUNT),
	[PMAPS_BV_GO_STACK_INUSE] = B("stack_inuse", GO, BYTES),
	[PMAPS_BV_GO_STACK_SYS] = B("stack_sys", GO, BYTES),
	[PMAPS_BV_GO_MSPAN_INUSE] = B("mspan_inuse", GO, BYTES),
	[PMAPS_BV_GO_MSPAN_SYS] = B("mspan_sys", GO, BYTES),
	[PMAPS_BV_GO_MCACHE_INUSE] = B("mcache_inuse", GO, BYTES),
	[PMAPS_BV_GO_MCACHE_SYS] = B("mcache_sys", GO, BYTES),
	[PMAPS_BV_GO_BUCK_HASH_SYS] = B("buck_hash_sys", GO, BYTES),
	[PMAPS_BV_GO_GC_SYS] = B("gc_sys", GO, BYTES),
	[PMAPS_BV_GO_OTHER_SYS] = B("other_sys", GO, BYTES),
	[PMAPS_BV_GO_SYS] = B("sys", GO, BYTES),
	[PMAPS_BV_GO_TOTAL_ALLOC] = B("total_alloc", GO, BYTES),
	[PMAPS_BV_GO_NEXT_GC] = B("next_gc", GO, BYTES),
	[PMAPS_BV_GO_NUM_GC] = B("num_gc", GO, COUNT),
	[PMAPS_BV_GO_LAST_GC] = B("last_gc", GO, TIME_NS),
	[PMAPS_BV_JVM_HEAP_COMMITTED] = B("heap_committed", JVM_HEAP, BYTES),
	[PMAPS_BV_JVM_HEAP_USED] = B("heap_used", JVM_HEAP, BYTES),
	[PMAPS_BV_JVM_METASPACE_USED] = B("metaspace_used", JVM_HEAP, BYTES),
	[PMAPS_BV_JVM_METASPACE_COMMITTED] = B("metaspace_committed", JVM_HEAP, BYTES),
	[PMAPS_BV_JVM_METASPACE_RESERVED] = B("metaspace_reserved", JVM_HEAP, BYTES),
	[PMAPS_BV_JVM_NMT_RESERVED] = B("reserved", JVM_NMT, BYTES),
	[PMAPS_BV_JVM_NMT_COMMITTED] = B("committed", JVM_NMT, BYTES),
	[PMAPS_BV_MALLOC_ARENAS] = B("arenas", MALLOC, COUNT),
	[PMAPS_BV_MALLOC_SYSTEM] = B("system", MALLOC, BYTES),
	[PMAPS_BV_MALLOC_IN_USE] = B("in_use", MALLOC, BYTES),
	[PMAPS_BV_MALLOC_FREE_HELD] = B("free_held", MALLOC, BYTES),
	[PMAPS_BV_MALLOC_FAST_COUNT] = B("fast_count", MALLOC, COUNT),
	[PMAPS_BV_MALLOC_FAST_BYTES] = B("fast_bytes", MALLOC, BYTES),
	[PMAPS_BV_MALLOC_REST_COUNT] = B("rest_count", MALLOC, COUNT),
	[PMAPS_BV_MALLOC_REST_BYTES] = B("rest_bytes", MALLOC, BYTES),
	[PMAPS_BV_MALLOC_MMAP_COUNT] = B("mmap_count", MALLOC, COUNT),
	[PMAPS_BV_MALLOC_MMAP_BYTES] = B("mmap_bytes", MALLOC, BYTES),
	[PMAPS_BV_MALLOC_TOP] = B("top", MALLOC, BYTES),
};
#undef B

static const char *const nmt_keys[] = {
	[PMAPS_NMT_UNKNOWN] = "", [PMAPS_NMT_ON] = "on", [PMAPS_NMT_OFF] = "off",
	[PMAPS_NMT_SHUT_DOWN] = "shut_down",
};

const char *pmaps_book_key(enum pmaps_book b)
{
	return (unsigned)b < PMAPS_BOOK_COUNT ? book_keys[b] : NULL;
}

enum pmaps_runtime pmaps_book_runtime(enum pmaps_book b)
{
	return (unsigned)b < PMAPS_BOOK_COUNT ? book_runtime[b] : PMAPS_RUNTIME_NONE;
}

const char *pmaps_book_value_key(enum pmaps_book_value v)
{
	return (unsigned)v < PMAPS_BV_COUNT ? values[v].key : NULL;
}

int pmaps_book_value_book(enum pmaps_book_value v)
{
	return (unsigned)v < PMAPS_BV_COUNT ? (int)values[v].book : -1;
}

int pmaps_book_value_unit(enum pmaps_book_value v)
{
	return (unsigned)v < PMAPS_BV_COUNT ? (int)values[v].unit : -1;
}

const char *pmaps_nmt_state_key(enum pmaps_nmt_state s)
{
	return (unsigned)s < sizeof(nmt_keys) / sizeof(nmt_keys[0]) ? nmt_keys[s] : NULL;
}

int pmaps_books_runtime(struct pmaps_proc *proc)
{
	char version[32];
	int r;

	if (!proc)
		return -EINVAL;
	if (pmaps__go_buildinfo(proc, version, sizeof(version)) == 1)
		return PMAPS_RUNTIME_GO;
	r = pmaps__maps_libjvm(proc, NULL, 0);
	if (r < 0)
		return r == -ENODATA ? PMAPS_RUNTIME_NONE : r; /* a kernel thread: none */
	return r ? PMAPS_RUNTIME_JVM : PMAPS_RUNTIME_NONE;
}

int pmaps_books_has(const struct pmaps_books *b, enum pmaps_book_value v)
{
	if (!b || !pmaps__size_ok(b->size, PMAPS__BOOKS_SIZE0) || (unsigned)v >= PMAPS_BV_COUNT)
		return 0;
	return (int)((b->present[v / 64] >> (v % 64)) & 1);
}

void pmaps__books_put(struct pmaps_books *b, enum pmaps_book_value v, uint64_t x)
{
	b->v[v] = x;
	b->present[v / 64] |= 1ull << (v % 64);
}

/* Forgets BOOK's figures (and what else of it B keeps), for a parse that starts or failed. */
static void clear_book(struct pmaps_books *b, enum pmaps_book book)
{
	for (int v = 0; v < PMAPS_BV_COUNT; v++) {
		if (values[v].book != book)
			continue;
		b->v[v] = 0;
		b->present[v / 64] &= ~(1ull << (v % 64));
	}
	if (book == PMAPS_BOOK_JVM_HEAP)
		memset(b->jvm_gc, 0, sizeof(b->jvm_gc));
	if (book == PMAPS_BOOK_JVM_NMT) {
		b->jvm_nmt = PMAPS_NMT_UNKNOWN;
		b->jvm_ncat = 0;
		memset(b->jvm_cat, 0, sizeof(b->jvm_cat));
	}
}

int pmaps_books_parse(struct pmaps_books *b, enum pmaps_book book, const char *text, size_t len,
                      char *msg, size_t msgsz)
{
	int r;

	if (msg && msgsz)
		msg[0] = '\0';
	if (!b || !pmaps__size_ok(b->size, PMAPS__BOOKS_SIZE0) || (unsigned)book >= PMAPS_BOOK_COUNT)
		return -EINVAL;
	if (!text)
		text = "", len = 0;
	clear_book(b, book);
	b->head[book].asked = 1;
	b->head[book].ok = 0;
	switch (book) {
	case PMAPS_BOOK_GO:
		r = pmaps__books_parse_go(b, text, len, msg, msgsz);
		break;
	case PMAPS_BOOK_JVM_HEAP:
		r = pmaps__books_parse_jvm_heap(b, text, len, msg, msgsz);
		break;
	case PMAPS_BOOK_JVM_NMT:
		r = pmaps__books_parse_jvm_nmt(b, text, len, msg, msgsz);
		break;
	default:
		r = pmaps__books_parse_malloc(b, text, len, msg, msgsz);
		break;
	}
	if (r < 0) {
		clear_book(b, book); /* never half a book */
		return r;
	}
	b->head[book].ok = 1;
	return 0;
}

int pmaps_books_set(struct pmaps_books *b, enum pmaps_book_value v, uint64_t x)
{
	if (!b || !pmaps__size_ok(b->size, PMAPS__BOOKS_SIZE0) || (unsigned)v >= PMAPS_BV_COUNT)
		return -EINVAL;
	if (x > PMAPS__BOOK_FIGURE_MAX)
		return -ERANGE;
	pmaps__books_put(b, v, x);
	return 0;
}

/* ---- what a front end reads of the process around the books ---- */

/* How much of environ is read: the variables Go reads are set by people, near its start. */
#define ENVIRON_MAX (256u << 10)

static const char *const go_env_names[] = {"GOGC", "GOMEMLIMIT", "GODEBUG"};

static char *go_env_dst(struct pmaps_books *b, int i, size_t *size)
{
	char *d[] = {b->go_gogc, b->go_gomemlimit, b->go_godebug};
	size_t n[] = {sizeof(b->go_gogc), sizeof(b->go_gomemlimit), sizeof(b->go_godebug)};

	*size = n[i];
	return d[i];
}

/*
 * One entry of environ, [S, S + N) (CUT: its end was not seen, the rest
 * skipped): the first of each name Go reads is kept, as getenv finds it;
 * one longer than its room is cut and marked so with "...".
 */
static void env_entry(struct pmaps_books *b, unsigned *seen, const char *s, size_t n, int cut)
{
	for (int i = 0; i < 3; i++) {
		size_t nl = strlen(go_env_names[i]), room, vlen;
		char *dst;

		if ((*seen >> i) & 1 || n <= nl || memcmp(s, go_env_names[i], nl) != 0 || s[nl] != '=')
			continue;
		*seen |= 1u << i;
		dst = go_env_dst(b, i, &room);
		vlen = n - nl - 1;
		if (vlen >= room || cut) {
			vlen = vlen < room - 4 ? vlen : room - 4;
			memcpy(dst, s + nl + 1, vlen);
			memcpy(dst + vlen, "...", 4);
		} else {
			memcpy(dst, s + nl + 1, vlen);
			dst[vlen] = '\0';
		}
		return;
	}
}

int pmaps_books_go_env(struct pmaps_books *b, struct pmaps_proc *proc)
{
	char buf[4096];
	size_t have = 0, total = 0;
	unsigned seen = 0;
	int fd, skip = 0;

	if (!b || !proc || !pmaps__size_ok(b->size, PMAPS__BOOKS_SIZE0))
		return -EINVAL;
	b->go_env = 0;
	b->go_gogc[0] = b->go_gomemlimit[0] = b->go_godebug[0] = '\0';
	fd = pmaps__open_file(proc, proc->dirfd, "environ", NULL, 0);
	if (fd < 0)
		return fd;
	/* Streamed through BUF: an entry longer than it is taken cut (if it is one of ours). */
	while (total < ENVIRON_MAX) {
		size_t room = sizeof(buf) - have;
		ssize_t r = pmaps__read(fd, buf + have, room < ENVIRON_MAX - total ? room
		                                                                  : ENVIRON_MAX - total);
		const char *p = buf, *end, *z;
		if (r < 0) {
			int err = errno ? -errno : -EIO;
			close(fd);
			b->go_gogc[0] = b->go_gomemlimit[0] = b->go_godebug[0] = '\0';
			return err == -ENOENT ? -ESRCH : err;
		}
		if (r == 0)
			break; /* a last entry without its NUL: cut by the kernel's page, ignored */
		total += (size_t)r;
		end = buf + have + (size_t)r;
		while ((z = memchr(p, '\0', (size_t)(end - p))) != NULL) {
			if (!skip)
				env_entry(b, &seen, p, (size_t)(z - p), 0);
			skip = 0;
			p = z + 1;
		}
		if (p == buf && end == buf + sizeof(buf)) {
			if (!skip)
				env_entry(b, &seen, buf, sizeof(buf), 1);
			skip = 1;
			have = 0;
			continue;
		}
		have = (size_t)(end - p);
		memmove(buf, p, have);
	}
	close(fd);
	b->go_env = 1;
	return 0;
}

int pmaps_books_finish(struct pmaps_books *b, struct pmaps_proc *proc)
{
	struct pmaps_status st;
	int r;

	if (!b || !proc || !pmaps__size_ok(b->size, PMAPS__BOOKS_SIZE0))
		return -EINVAL;
	b->after_ok = 0;
	b->after_rss = 0;
	memset(&st, 0, sizeof(st));
	st.size = sizeof(st);
	r = pmaps_status_read(proc, &st, NULL, 0);
	if (r == 0 && (st.present >> PMAPS_ST_VM_RSS) & 1) {
		b->after_ok = 1;
		b->after_rss = st.v[PMAPS_ST_VM_RSS];
	}
	return r;
}
