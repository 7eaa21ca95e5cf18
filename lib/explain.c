/* SPDX-License-Identifier: MIT */
/*
 * explain.c - where a process's resident memory is: one pass over smaps,
 * each mapping put in a category and its Rss split by state, checked against
 * smaps_rollup and /proc/PID/status.
 *
 * Thread stacks: each task's stack pointer is the second-to-last field of
 * /proc/PID/task/TID/syscall (readable with ptrace access, "running" while
 * the thread runs); the anonymous mapping that holds it is that thread's
 * stack. For threads whose pointer cannot be read, an anonymous read-write
 * mapping right above an inaccessible one (the guard glibc and musl put
 * below a thread stack) counts as a stack, as many times as there are such
 * threads, and is marked a guess.
 *
 * Files the target names: explain reads two, its executable (Go's build
 * info) and a JVM's hsperfdata file. The target controls their names and
 * what is at them (a symlink to /etc/shadow, a FIFO, a device node put where
 * an unlinked file was), and pmaps often runs as root: such a file is opened
 * first with O_PATH, which runs no driver or FIFO open, reached through the
 * kernel's own reference (/proc/PID/exe, /proc/PID/map_files/START-END) or
 * by its name with no symlink followed (openat2 RESOLVE_NO_SYMLINKS beneath
 * /proc/PID/root); only a regular file, the very one mapped where that is
 * known, is then opened for reading (non-blocking), and read within bounds.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "internal.h"
#include "parse.h"

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

#ifndef SYS_openat2
#define SYS_openat2 437 /* Linux 5.6, the same number on every architecture */
#endif

/* How files of the target are opened for reading: never blocking, never a terminal. */
#define READ_FLAGS (O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)

/*
 * Test knob: take the path for kernels before openat2 (Linux 5.6), which
 * walks the name one component at a time with O_NOFOLLOW.
 */
int pmaps__explain_no_openat2;

/*
 * An O_PATH descriptor on REL (relative, no "." or ".." components) under
 * DIRFD, no symlink followed on the way or at the end. Returns it, or a
 * negative errno (-ELOOP for a symlink).
 */
static int opath_nofollow(int dirfd, const char *rel)
{
	struct open_how how = {
		.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	char comp[256];
	int cur = dirfd;

	if (!pmaps__explain_no_openat2) {
		long fd = syscall(SYS_openat2, dirfd, rel, &how, sizeof(how));
		if (fd >= 0)
			return (int)fd;
		if (errno != ENOSYS)
			return -errno;
	}
	/* Before Linux 5.6: each directory by O_PATH|O_NOFOLLOW, so a symlink is no directory. */
	for (const char *p = rel;;) {
		const char *e;
		size_t n;
		int last, fd;
		while (*p == '/')
			p++;
		e = strchr(p, '/');
		n = e ? (size_t)(e - p) : strlen(p);
		while (e && e[1] == '/')
			e++;
		last = !e || e[1] == '\0';
		if (n == 0 || n >= sizeof(comp) || (n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.')) {
			if (cur != dirfd)
				close(cur);
			return n >= sizeof(comp) ? -ENAMETOOLONG : -EXDEV;
		}
		memcpy(comp, p, n);
		comp[n] = '\0';
		fd = openat(cur, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC | (last ? 0 : O_DIRECTORY));
		if (fd < 0)
			fd = -errno;
		if (cur != dirfd)
			close(cur);
		if (fd < 0 || last)
			return fd;
		cur = fd;
		p = e + 1;
	}
}

/*
 * Opens for reading the file the O_PATH descriptor P refers to (closed
 * here), when it is a regular file and, with INODE non-zero, that very file:
 * reopened through /proc/self/fd, the kernel's reference to it, so no name
 * is looked up again and nothing else can have been put there meanwhile.
 * ST gets its status. Returns the descriptor or a negative errno.
 */
static int open_regular(int p, uint64_t inode, unsigned dev_major, unsigned dev_minor,
                        struct stat *st)
{
	char self[48];
	struct stat st2;
	int fd = -EINVAL;

	if (p < 0)
		return p;
	if (fstat(p, st) != 0)
		fd = -errno;
	else if (!S_ISREG(st->st_mode) ||
	         (inode && (st->st_ino != inode || major(st->st_dev) != dev_major ||
	                    minor(st->st_dev) != dev_minor)))
		fd = -EPERM;
	else {
		snprintf(self, sizeof(self), "/proc/self/fd/%d", p);
		fd = open(self, READ_FLAGS);
		if (fd < 0) {
			fd = -errno;
		} else if (fstat(fd, &st2) != 0 || st2.st_ino != st->st_ino ||
		           st2.st_dev != st->st_dev) {
			close(fd);
			fd = -EPERM;
		}
	}
	close(p);
	return fd;
}

/*
 * Opens the file PROC maps at [START, END), named PATH with DEV:INODE in
 * its maps line: through /proc/PID/map_files/START-END where the privilege
 * allows (CAP_SYS_ADMIN, or CAP_CHECKPOINT_RESTORE), which is the mapped
 * file even when unlinked; else by PATH beneath the process's root, no
 * symlink followed. Either way only that regular file is opened for reading.
 */
static int open_mapped(const struct pmaps_proc *proc, uint64_t start, uint64_t end,
                       const char *path, uint64_t inode, unsigned dev_major, unsigned dev_minor,
                       struct stat *st)
{
	char name[64];
	int p = -1, root;

	if (proc->live) {
		snprintf(name, sizeof(name), "map_files/%llx-%llx", (unsigned long long)start,
		         (unsigned long long)end);
		p = openat(proc->dirfd, name, O_PATH | O_CLOEXEC);
		if (p >= 0)
			return open_regular(p, inode, dev_major, dev_minor, st);
	}
	if (path[0] != '/')
		return -ENOENT;
	/* ROOT is a magic link on procfs (followed: it is the kernel's); in a fixture, nothing is. */
	root = openat(proc->dirfd, "root", O_PATH | O_DIRECTORY | O_CLOEXEC |
	                                   (proc->live ? 0 : O_NOFOLLOW));
	if (root < 0)
		return -errno;
	p = opath_nofollow(root, path + 1);
	close(root);
	return open_regular(p, inode, dev_major, dev_minor, st);
}

/* The executable: /proc/PID/exe is the kernel's reference on procfs; a fixture's may be no symlink. */
static int open_exe(const struct pmaps_proc *proc, struct stat *st)
{
	int p = openat(proc->dirfd, "exe", O_PATH | O_CLOEXEC | (proc->live ? 0 : O_NOFOLLOW));

	return open_regular(p < 0 ? -errno : p, 0, 0, 0, st);
}

/* One "Name:\t   123 kB" line of /proc/PID/status, [P, NL). */
/* One line of status; -1 when a line read here holds no "N kB" value. */
static int status_line(struct pmaps_explain *x, const char *p, const char *nl)
{
	static const struct {
		const char *key;
		size_t off;
	} keys[] = {
		{"VmRSS:", PMAPS_ST_VM_RSS},
		{"RssAnon:", PMAPS_ST_RSS_ANON},
		{"RssFile:", PMAPS_ST_RSS_FILE},
		{"RssShmem:", PMAPS_ST_RSS_SHMEM},
		{"VmHWM:", PMAPS_ST_VM_HWM},
		{"VmPTE:", PMAPS_ST_VM_PTE},
		{"VmSwap:", PMAPS_ST_VM_SWAP},
	};

	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		size_t kl = strlen(keys[k].key);
		const char *q = p + kl;
		uint64_t v;
		if ((size_t)(nl - p) <= kl || memcmp(p, keys[k].key, kl) != 0)
			continue;
		while (q < nl && (*q == ' ' || *q == '\t'))
			q++;
		if (pmaps__parse_dec(&q, nl, &v) <= 0 || v > UINT64_MAX >> 10 || nl - q != 3 ||
		    memcmp(q, " kB", 3) != 0)
			return -1;
		x->status.v[keys[k].off] = v << 10;
		x->status.present |= 1ull << keys[k].off;
		return 0;
	}
	return 0;
}

/*
 * /proc/PID/status, streamed line by line through a fixed buffer: it has no
 * size limit (a process in 2,000 supplementary groups has a 14 KiB Groups
 * line, before the Vm lines). A line longer than the buffer is none of the
 * ones read here and is skipped whole.
 */
static int read_status(const struct pmaps_proc *proc, struct pmaps_explain *x)
{
	char buf[4096];
	size_t have = 0;
	int skip = 0, bad = 0, fd = pmaps__openat(proc, "status");

	if (fd < 0)
		return 0;
	for (;;) {
		ssize_t n = pmaps__read(fd, buf + have, sizeof(buf) - have);
		const char *p = buf, *end, *nl;
		if (n < 0) {
			x->status.present = 0; /* not half a status: the lines read may not match */
			break;
		}
		if (n == 0) {
			if (have && !skip)
				bad |= status_line(x, buf, buf + have);
			break;
		}
		end = buf + have + n;
		while ((nl = memchr(p, '\n', (size_t)(end - p))) != NULL) {
			if (!skip)
				bad |= status_line(x, p, nl);
			skip = 0;
			p = nl + 1;
		}
		if (p == buf && end == buf + sizeof(buf)) {
			skip = 1;
			have = 0;
			continue;
		}
		have = (size_t)(end - p);
		memmove(buf, p, have);
	}
	close(fd);
	/*
	 * A value that is no "N kB", or a VmRSS other than its three parts
	 * (the kernel prints their sum): not a status a kernel wrote.
	 */
	const uint64_t *v = x->status.v;
	if (bad || (x->status.present && v[PMAPS_ST_VM_RSS] != v[PMAPS_ST_RSS_ANON] +
	            v[PMAPS_ST_RSS_FILE] + v[PMAPS_ST_RSS_SHMEM] &&
	            v[PMAPS_ST_RSS_ANON] + v[PMAPS_ST_RSS_FILE] + v[PMAPS_ST_RSS_SHMEM] != 0))
		return -EBADMSG;
	return 0;
}

static uint64_t le(const unsigned char *p, int n)
{
	uint64_t v = 0;

	while (n-- > 0)
		v = v << 8 | p[n];
	return v;
}

/* A whole pread of N bytes at OFF, inside a file of SIZE bytes. */
static int pread_in(int fd, void *buf, size_t n, uint64_t off, uint64_t size)
{
	if (off > size || n > size - off)
		return 0;
	return pmaps__pread(fd, buf, n, (off_t)off) == (ssize_t)n;
}

/*
 * Go: a 64-bit little-endian ELF /proc/PID/exe with a .go.buildinfo section
 * (Go 1.13+), whose 32-byte header "\xff Go buildinf:" has flags bit 2 when
 * the version string follows inline, length-prefixed (Go 1.18+). Returns 1
 * when found; VERSION gets the version or "" (older layout). At most 4096
 * section headers are read: about 300 KiB in all.
 */
static int go_buildinfo(const struct pmaps_proc *proc, char *version, size_t vsize)
{
	unsigned char eh[64], sh[64], name[16], bi[64];
	uint64_t shoff, stroff = 0, size;
	unsigned shentsize, shnum, shstrndx;
	struct stat st;
	int fd = open_exe(proc, &st), found = 0;

	version[0] = '\0';
	if (fd < 0)
		return 0;
	size = (uint64_t)st.st_size;
	if (!pread_in(fd, eh, sizeof(eh), 0, size) || memcmp(eh, "\177ELF", 4) != 0 || eh[4] != 2 ||
	    eh[5] != 1)
		goto out;
	shoff = le(eh + 0x28, 8);
	shentsize = (unsigned)le(eh + 0x3a, 2);
	shnum = (unsigned)le(eh + 0x3c, 2);
	shstrndx = (unsigned)le(eh + 0x3e, 2);
	if (shentsize != 64 || shnum > 4096 || shstrndx >= shnum || shoff > size)
		goto out;
	if (!pread_in(fd, sh, 64, shoff + (uint64_t)shstrndx * 64, size))
		goto out;
	stroff = le(sh + 0x18, 8);
	for (unsigned i = 0; i < shnum && !found; i++) {
		uint64_t boff;
		ssize_t n;
		if (!pread_in(fd, sh, 64, shoff + (uint64_t)i * 64, size))
			break;
		if (le(sh, 4) > size || !pread_in(fd, name, 14, stroff + le(sh, 4), size) ||
		    memcmp(name, ".go.buildinfo", 14) != 0)
			continue;
		found = 1;
		boff = le(sh + 0x18, 8);
		if (boff >= size)
			break;
		n = pmaps__pread(fd, bi, sizeof(bi), (off_t)boff);
		if (n >= 33 && memcmp(bi, "\377 Go buildinf:", 14) == 0 && (bi[15] & 2)) {
			size_t len = bi[32]; /* a one-byte varint: versions are short */
			if (len < 0x80 && len < vsize && 33 + len <= (size_t)n) {
				memcpy(version, bi + 33, len);
				version[len] = '\0';
			}
		}
	}
out:
	close(fd);
	return found;
}

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
	uint64_t v[PMAPS_XC_COUNT]; /* its anon mappings' sums */
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

/* "/tmp/hsperfdata_USER/PID": the JVM's performance counters, shared. */
struct hsperf {
	char path[PMAPS_EXPLAIN_PATH]; /* the whole name: any the kernel shows fits */
	uint64_t start, end; /* the mapping */
	uint64_t inode;
	uint32_t dev_major, dev_minor;
};

static int is_hsperfdata(const struct pmaps_view *p)
{
	return p->len > 12 && memmem(p->ptr, p->len, "/hsperfdata_", 12) != NULL;
}

/*
 * The heap's size from the hsperfdata file HP (the very file mapped, see
 * open_mapped(): the same file whichever mount namespace it is in): for G1 each
 * generation's maxCapacity is the heap's (plus a few bytes of accounting,
 * dropped by rounding to the page); for Serial and Parallel the young and
 * old generations' sum.  0 when not known; GC gets the collector's name.
 */
static uint64_t jvm_heap_size(const struct pmaps_proc *proc, const struct hsperf *hp, char *gc,
                              size_t gcsize)
{
	struct stat st;
	unsigned char b[192];
	uint64_t gen[2] = {0}, off, size = 0, fsize;
	unsigned entries;
	int fd;

	gc[0] = '\0';
	fd = open_mapped(proc, hp->start, hp->end, hp->path, hp->inode, hp->dev_major,
	                 hp->dev_minor, &st);
	if (fd < 0)
		return 0;
	fsize = (uint64_t)st.st_size;
	/* The header: magic (big-endian), byte order (1: little), major 2. */
	if (!pread_in(fd, b, 32, 0, fsize) || memcmp(b, "\xca\xfe\xc0\xc0", 4) != 0 || b[4] != 1 ||
	    b[5] != 2)
		goto out;
	off = le(b + 24, 4);
	entries = (unsigned)le(b + 28, 4);
	for (unsigned i = 0; i < entries && i < 4096; i++) {
		ssize_t n = off < fsize ? pmaps__pread(fd, b, sizeof(b), (off_t)off) : 0;
		uint64_t len, noff, vlen, doff;
		const char *nm;
		size_t k;

		if (n < 20)
			break;
		len = le(b, 4);
		noff = le(b + 4, 4);
		vlen = le(b + 8, 4);
		doff = le(b + 16, 4);
		if (len < 20 || len > 65536 || noff >= (uint64_t)n)
			break;
		nm = (const char *)b + noff;
		k = strnlen(nm, (size_t)n - noff);
		if (k == 18 && memcmp(nm, "sun.gc.policy.name", 18) == 0 && b[12] == 'B') {
			size_t want = vlen < gcsize ? (size_t)vlen : gcsize - 1;
			ssize_t got = pmaps__pread(fd, gc, want, (off_t)(off + doff));
			gc[got > 0 ? strnlen(gc, (size_t)got) : 0] = '\0';
		} else if (k == 31 && memcmp(nm, "sun.gc.generation.", 18) == 0 && nm[18] >= '0' &&
		           nm[18] <= '1' && memcmp(nm + 19, ".maxCapacity", 12) == 0 && b[12] == 'J') {
			unsigned char q[8];
			if (pread_in(fd, q, 8, off + doff, fsize))
				gen[nm[18] - '0'] = le(q, 8);
		}
		off += len;
	}
	if (strcmp(gc, "GarbageFirst") == 0)
		size = (gen[0] > gen[1] ? gen[0] : gen[1]) & ~(uint64_t)4095;
	else if (strcmp(gc, "Copy:MSC") == 0 || strcmp(gc, "ParScav:MSC") == 0)
		size = gen[0] + gen[1];
out:
	close(fd);
	return size;
}

/* Moves sums counted as anonymous to the runtime's heap, once its rule holds. */
static void claim_anon(struct pmaps_explain *x, const uint64_t v[PMAPS_XC_COUNT],
                       const uint64_t pg[PMAPS_XP_COUNT], unsigned maps)
{
	for (int col = 0; col < PMAPS_XC_COUNT; col++) {
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
                     const struct hsperf *hp, const char *version)
{
	char gc[32];
	const char *hsperf = hp->path;
	uint64_t size = hsperf[0] ? jvm_heap_size(proc, hp, gc, sizeof(gc)) : 0;
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

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* The stack pointer of task NAME, from its syscall file; 0 when unreadable or running. */
static uint64_t task_sp(const struct pmaps_proc *proc, int taskfd, const char *name)
{
	char buf[512];
	const char *p, *last = NULL, *prev = NULL;
	uint64_t sp;
	ssize_t n;
	int fd, tfd;

	/* Neither the task's directory nor its file through a symlink; a regular file only. */
	tfd = openat(taskfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (tfd < 0)
		return 0;
	fd = pmaps__open_file(proc, tfd, "syscall", NULL, 0);
	close(tfd);
	if (fd < 0)
		return 0;
	n = pmaps__read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* "NR arg1 ... arg6 SP PC": the second-to-last field. */
	for (p = buf; *p;) {
		while (*p == ' ' || *p == '\n')
			p++;
		if (!*p)
			break;
		prev = last;
		last = p;
		while (*p && *p != ' ' && *p != '\n')
			p++;
	}
	if (!prev || prev[0] != '0' || prev[1] != 'x')
		return 0;
	p = prev + 2;
	if (pmaps__parse_hex(&p, buf + n, &sp) < 0)
		return 0;
	return sp;
}

/* Every task's stack pointer, sorted (0s for those that cannot be read). */
static int read_sps(const struct pmaps_proc *proc, uint64_t **out, unsigned *n)
{
	int taskfd = openat(proc->dirfd, "task", O_RDONLY | O_DIRECTORY | O_CLOEXEC |
	                                         (proc->live ? 0 : O_NOFOLLOW));
	uint64_t *sps = NULL;
	size_t cap = 0;
	struct dirent *e;
	DIR *d;

	*out = NULL;
	*n = 0;
	if (taskfd < 0)
		return 0; /* a fixture tree without tasks: no threads to find */
	d = fdopendir(taskfd);
	if (!d) {
		close(taskfd);
		return -errno;
	}
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		if (*n == cap) {
			size_t nc = cap ? cap * 2 : 64;
			uint64_t *ns = pmaps__alloc(nc * sizeof(*ns));
			if (!ns) {
				pmaps__free(sps);
				closedir(d);
				return -ENOMEM;
			}
			if (cap)
				memcpy(ns, sps, cap * sizeof(*ns));
			pmaps__free(sps);
			sps = ns;
			cap = nc;
		}
		sps[(*n)++] = task_sp(proc, dirfd(d), e->d_name);
	}
	closedir(d);
	if (*n)
		qsort(sps, *n, sizeof(*sps), cmp_u64);
	*out = sps;
	return 0;
}

/* Whether a stack pointer in the sorted SPS lies in [start, end). */
static int holds_sp(const uint64_t *sps, unsigned n, uint64_t start, uint64_t end)
{
	unsigned lo = 0, hi = n;

	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;
		if (sps[mid] < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && sps[lo] < end;
}

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

static void add_top(struct pmaps_explain *x, const struct pmaps_mapping *m, enum pmaps_xcat cat)
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
		i--;
	}
	x->top[i].start = m->start;
	x->top[i].end = m->end;
	x->top[i].rss = rss;
	x->top[i].cat = cat;
	copy_path(&x->top[i], &m->path, (m->flags & PMAPS_ROW_PATH_TRUNCATED) != 0);
}

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

/* Page-level evidence of mapping M, added to category CAT. */
static int walk_pages(struct pmaps_pages *pg, const struct pmaps_mapping *m, uint64_t *out)
{
	const struct pmaps_page_range *r;
	int rc;

	if (m->start >= 0x800000000000ull)
		return 0; /* [vsyscall]: not a VMA */
	rc = pmaps_pages_seek(pg, m->start, m->end);
	while (rc >= 0 && (rc = pmaps_pages_next(pg, &r)) > 0) {
		uint64_t n = r->end - r->start;
		if (!(r->flags & PMAPS_PG_PRESENT))
			continue;
		if (r->flags & PMAPS_PG_ZERO) {
			/* The (huge) zero page: mapped, not resident, as in smaps' Rss. */
			out[PMAPS_XP_ZERO] += n;
			continue;
		}
		out[PMAPS_XP_RESIDENT] += n;
		out[PMAPS_XP_DIRTY] += r->kflags & PMAPS_KPF_DIRTY ? n : 0;
		out[PMAPS_XP_LAZYFREE] += r->kflags & PMAPS_KPF_LAZYFREE ? n : 0;
		out[PMAPS_XP_SHARED] += r->mapcount >= 2 ? n : 0;
		out[PMAPS_XP_THP] += r->kflags & PMAPS_KPF_THP ? n : 0;
	}
	return rc < 0 ? rc : 0;
}

/*
 * *A += B; a sum that would pass 2^64 - 1 sets *OVF. The reader bounds each
 * page count by its mapping, and mappings do not overlap, so only values it
 * cannot bound (Swap, which for shared memory is its object's) get there: no
 * kernel's, so explain refuses them rather than print a wrapped sum.
 */
/* The smaps fields explain's split cannot do without. */
#define EXPLAIN_NEEDS                                                                          \
	(1ull << PMAPS_F_RSS | 1ull << PMAPS_F_SHARED_CLEAN | 1ull << PMAPS_F_SHARED_DIRTY |        \
	 1ull << PMAPS_F_PRIVATE_CLEAN | 1ull << PMAPS_F_PRIVATE_DIRTY)

static inline void add_chk(int *ovf, uint64_t *a, uint64_t b)
{
	*ovf |= __builtin_add_overflow(*a, b, a);
}

static int explain_once(struct pmaps_proc *proc, struct pmaps_explain *x, unsigned options,
                        char *msg, size_t msgsz, int *overlap)
{
	struct pmaps_pages *pg = NULL;
	struct pmaps_maps *c = NULL;
	const struct pmaps_mapping *m;
	uint64_t *sps = NULL, prev_end = 0;
	uint64_t pend[PMAPS_XC_COUNT], arena[PMAPS_XC_COUNT] = {0}, pend_start = 0, pend_end = 0;
	uint64_t arena_starts[ARENA_STARTS];
	uint64_t pend_pg[PMAPS_XP_COUNT] = {0}, arena_pg[PMAPS_XP_COUNT] = {0}, before[PMAPS_XP_COUNT];
	unsigned nsps, unlocated = 0, located = 0;
	int prev_guard = 0, pending = 0, glibc = 0, jvm = 0, cpython = 0, r, ovf = 0;
	char jvm_version[32] = "", py_version[32] = "";
	struct hsperf hsperf = {.path = ""};
	uint64_t go_end = 0; /* the end of Go's heap so far, while in it */
	struct runs runs_buf, *runs = &runs_buf; /* 10 KiB, on the stack: no allocation */

	memset(x, 0, sizeof(*x));
	memset(runs, 0, sizeof(*runs));
	msg[0] = '\0';
	if (read_status(proc, x) < 0) {
		pmaps__msg(msg, msgsz, "status: a VmRSS, RssAnon, RssFile, RssShmem, VmHWM, VmPTE or "
		           "VmSwap line without a value in kB, or VmRSS other than RssAnon + RssFile "
		           "+ RssShmem: no kernel prints that");
		return -EBADMSG;
	}
	r = read_sps(proc, &sps, &x->threads);
	if (r < 0) {
		pmaps__msg(msg, msgsz, "task: %s", pmaps_strerror(r));
		return r;
	}
	if (go_buildinfo(proc, x->runtime_version, sizeof(x->runtime_version))) {
		set_runtime(x, PMAPS_RUNTIME_GO);
		pmaps__msg(x->runtime_evidence, sizeof(x->runtime_evidence),
		           "Go %s: the .go.buildinfo section of /proc/%d/exe; its heap: the anonymous "
		           "mappings contiguous from an arena hint (0xc000000000)",
		           x->runtime_version[0] ? x->runtime_version : "(before 1.18)", proc->pid);
	}
	if (options & PMAPS_EXPLAIN_PAGES) {
		r = pmaps_pages_open(&pg, proc, PMAPS_PAGES_AUTO, PMAPS_PAGES_KPAGE);
		if (r < 0) {
			pmaps__msg(msg, msgsz, "%s", pg ? pmaps_pages_errmsg(pg) : pmaps_strerror(r));
			pmaps_pages_close(pg);
			pmaps__free(sps);
			return r;
		}
		x->pages = 1;
		x->pages_kpage = pmaps_pages_kpage(pg);
		x->pages_strategy = pmaps_pages_strategy(pg);
		if (x->pages_kpage != 1)
			pmaps__msg(x->pages_note, sizeof(x->pages_note), "%s", pmaps_pages_errmsg(pg));
	}
	/* The pointers that could not be read are 0s, sorted first. */
	for (nsps = 0; nsps < x->threads && sps[nsps] == 0; nsps++)
		unlocated++;
	r = pmaps_maps_open(&c, proc, PMAPS_SRC_SMAPS, 0);
	while (r >= 0 && (r = pmaps_maps_next(c, &m)) > 0) {
		enum pmaps_xcat cat = category(m->kind);
		const uint64_t *v = m->v;
		uint64_t mv[PMAPS_XC_COUNT];
		if (m->flags & PMAPS_ROW_OVERLAP) {
			/* Listed again after it grew: the sums would count it twice. */
			*overlap = 1;
			break;
		}
		if ((m->present & EXPLAIN_NEEDS) != EXPLAIN_NEEDS) {
			/* An absent field is no 0: the attribution cannot be made. */
			pmaps__msg(msg, msgsz, "smaps: the mapping at line %u lacks Rss or one of its "
			           "four parts (Shared/Private_Clean/Dirty): every kernel since 2.6 "
			           "prints them", m->line);
			r = -EBADMSG;
			break;
		}
		if (x->runtime_kind == PMAPS_RUNTIME_GO) {
			int anon = cat == PMAPS_X_ANON || cat == PMAPS_X_ANON_NAMED ||
			           (m->kind == PMAPS_KIND_GUARD && m->path.len == 0);
			if (anon && is_go_hint(m->start))
				go_end = m->end;
			else if (anon && go_end && m->start == go_end)
				go_end = m->end;
			else
				go_end = 0;
		}
		if (cat == PMAPS_X_ANON_NAMED && x->runtime_kind == PMAPS_RUNTIME_GO &&
		    is_go_heap_label(&m->path, go_end != 0)) {
			cat = PMAPS_X_RUNTIME_HEAP;
			x->go_labels++;
		} else if (cat == PMAPS_X_ANON) {
			if (go_end) {
				cat = PMAPS_X_RUNTIME_HEAP;
			} else if (holds_sp(sps + nsps, x->threads - nsps, m->start, m->end)) {
				cat = PMAPS_X_THREAD_STACK;
				located++;
			} else if (unlocated > x->stacks_guessed && prev_guard && prev_end == m->start &&
			           (m->perms & (PMAPS_PERM_READ | PMAPS_PERM_WRITE)) ==
			               (PMAPS_PERM_READ | PMAPS_PERM_WRITE)) {
				cat = PMAPS_X_THREAD_STACK;
				x->stacks_guessed++;
			}
		}
		/*
		 * A glibc arena candidate waits for the next mapping: its reserved
		 * rest (inaccessible, contiguous, to the 64 MiB boundary) confirms it.
		 */
		if (pending && m->kind == PMAPS_KIND_GUARD && m->path.len == 0 && m->start == pend_end &&
		    m->end == pend_start + ARENA_SIZE) {
			for (int col = 0; col < PMAPS_XC_COUNT; col++)
				add_chk(&ovf, &arena[col], pend[col]);
			for (int col = 0; col < PMAPS_XP_COUNT; col++)
				arena_pg[col] += pend_pg[col];
			if (x->arenas < ARENA_STARTS)
				arena_starts[x->arenas] = pend_start;
			x->arenas++;
		}
		pending = 0;
		glibc |= is_libc(&m->path);
		jvm |= is_jvm(&m->path, jvm_version, sizeof(jvm_version));
		cpython |= is_cpython(&m->path, py_version, sizeof(py_version));
		prev_guard = m->kind == PMAPS_KIND_GUARD && m->path.len == 0;
		prev_end = m->end;
		mv[PMAPS_XC_RSS] = v[PMAPS_F_RSS];
		mv[PMAPS_XC_PRIVATE_DIRTY] = v[PMAPS_F_PRIVATE_DIRTY];
		mv[PMAPS_XC_PRIVATE_CLEAN] = v[PMAPS_F_PRIVATE_CLEAN];
		mv[PMAPS_XC_SHARED] = v[PMAPS_F_SHARED_CLEAN];
		add_chk(&ovf, &mv[PMAPS_XC_SHARED], v[PMAPS_F_SHARED_DIRTY]);
		mv[PMAPS_XC_LAZYFREE] = v[PMAPS_F_LAZY_FREE];
		mv[PMAPS_XC_THP] = v[PMAPS_F_ANON_HUGE_PAGES];
		add_chk(&ovf, &mv[PMAPS_XC_THP], v[PMAPS_F_SHMEM_PMD_MAPPED]);
		add_chk(&ovf, &mv[PMAPS_XC_THP], v[PMAPS_F_FILE_PMD_MAPPED]);
		mv[PMAPS_XC_LOCKED] = v[PMAPS_F_LOCKED];
		mv[PMAPS_XC_SWAP] = v[PMAPS_F_SWAP];
		mv[PMAPS_XC_PSS] = v[PMAPS_F_PSS];
		mv[PMAPS_XC_SWAP_PSS] = v[PMAPS_F_SWAP_PSS];
		mv[PMAPS_XC_SHARED_CLEAN] = v[PMAPS_F_SHARED_CLEAN];
		for (int col = 0; col < PMAPS_XC_COUNT; col++)
			add_chk(&ovf, &x->v[cat][col], mv[col]);
		x->mappings[cat]++;
		x->nmappings++;
		add_top(x, m, cat);
		memcpy(before, x->pg[cat], sizeof(before));
		if (pg && (r = walk_pages(pg, m, x->pg[cat])) < 0) {
			pmaps__msg(msg, msgsz, "%s", pmaps_pages_errmsg(pg));
			break;
		}
		if (cat == PMAPS_X_ANON || (m->kind == PMAPS_KIND_GUARD && m->path.len == 0) ||
		    is_cds_archive(&m->path)) {
			if (runs->cur.end != m->start)
				run_close(runs);
			if (runs->cur.end == 0)
				runs->cur.start = m->start;
			runs->cur.end = m->end;
			if (cat == PMAPS_X_ANON) {
				for (int col = 0; col < PMAPS_XC_COUNT; col++)
					add_chk(&ovf, &runs->cur.v[col], mv[col]);
				for (int col = 0; col < PMAPS_XP_COUNT; col++)
					runs->cur.pg[col] += x->pg[cat][col] - before[col];
				runs->cur.maps++;
			}
		} else if (runs->cur.end) {
			run_close(runs);
		}
		if (!hsperf.path[0] && is_hsperfdata(&m->path) && m->path.len < sizeof(hsperf.path) &&
		    !(m->flags & PMAPS_ROW_PATH_TRUNCATED)) {
			memcpy(hsperf.path, m->path.ptr, m->path.len);
			hsperf.path[m->path.len] = '\0';
			hsperf.start = m->start;
			hsperf.end = m->end;
			hsperf.inode = m->inode;
			hsperf.dev_major = m->dev_major;
			hsperf.dev_minor = m->dev_minor;
		}
		if (cat == PMAPS_X_ANON && !(m->start & (ARENA_SIZE - 1)) &&
		    m->end - m->start <= ARENA_SIZE &&
		    (m->perms & (PMAPS_PERM_READ | PMAPS_PERM_WRITE)) ==
		        (PMAPS_PERM_READ | PMAPS_PERM_WRITE)) {
			memcpy(pend, mv, sizeof(pend));
			pend_start = m->start;
			pend_end = m->end;
			for (int col = 0; col < PMAPS_XP_COUNT; col++)
				pend_pg[col] = x->pg[cat][col] - before[col];
			pending = 1;
		}
	}
	x->stacks_found = located;
	pmaps__free(sps);
	pmaps_pages_close(pg);
	if (r < 0) {
		if (!msg[0])
			pmaps__msg(msg, msgsz, "%s", c && pmaps_maps_errmsg(c)[0] ? pmaps_maps_errmsg(c)
			                                                          : pmaps_strerror(r));
		pmaps_maps_close(c);
		return r;
	}
	pmaps_maps_close(c);
	if (*overlap)
		return 0;
	if (x->go_labels) {
		size_t n = strlen(x->runtime_evidence);
		pmaps__msg(x->runtime_evidence + n, sizeof(x->runtime_evidence) - n,
		           " and %u mapping(s) labelled as Go's heap", x->go_labels);
	}
	run_close(runs);
	if (x->runtime_kind == PMAPS_RUNTIME_NONE && jvm)
		jvm_heap(proc, x, runs, &hsperf, jvm_version);
	else if (x->runtime_kind == PMAPS_RUNTIME_NONE && cpython) {
		/*
		 * The runtime is named, its heap not claimed: CPython's arenas
		 * cannot be told from other anonymous memory by the maps alone.
		 */
		set_runtime(x, PMAPS_RUNTIME_CPYTHON);
		pmaps__msg(x->runtime_version, sizeof(x->runtime_version), "%s", py_version);
		pmaps__msg(x->runtime_evidence, sizeof(x->runtime_evidence),
		           "CPython %s: the interpreter mapped; its arenas stay in anon: the maps "
		           "alone do not tell them from other anonymous memory",
		           x->runtime_version);
	}
	if (jvm || cpython) {
		glibc = 0; /* the runtime's allocator is the one that matters */
		x->arenas = 0;
	}
	if (glibc && x->runtime_kind == PMAPS_RUNTIME_NONE) {
		/* glibc's thread arenas: from anonymous to the runtime's heap. */
		claim_anon(x, arena, arena_pg, x->arenas);
		for (unsigned i = 0; i < x->ntop; i++)
			for (unsigned k = 0; k < x->arenas && k < ARENA_STARTS; k++)
				if (x->top[i].cat == PMAPS_X_ANON && x->top[i].start == arena_starts[k])
					x->top[i].cat = PMAPS_X_RUNTIME_HEAP;
		set_runtime(x, PMAPS_RUNTIME_GLIBC);
		pmaps__msg(x->runtime_evidence, sizeof(x->runtime_evidence),
		           "glibc malloc: libc.so.6 mapped; its main arena is [heap], its %u thread "
		           "arena(s) anonymous heaps at 64 MiB boundaries with their reserved rest",
		           x->arenas);
	} else {
		x->arenas = 0; /* not glibc (or Go, whose rules stand): no arenas claimed */
	}
	for (int k = 0; k < PMAPS_X_COUNT; k++)
		for (int col = 0; col < PMAPS_XC_COUNT; col++)
			add_chk(&ovf, &x->total[col], x->v[k][col]);
	if (ovf) {
		pmaps__msg(msg, msgsz, "smaps: values whose sum passes 2^64 bytes (the Swap of "
		           "shared memory objects, or the THP fields): no kernel prints them");
		return -EBADMSG;
	}
	/* The kernel's own sum, right after: equal on a process at rest. */
	c = NULL;
	r = pmaps_maps_open(&c, proc, PMAPS_SRC_ROLLUP, 0);
	if (r == 0 && (r = pmaps_maps_next(c, &m)) > 0) {
		memcpy(x->rollup, m->v, sizeof(x->rollup));
		x->have_rollup = 1;
		r = 0;
	}
	if (r == -ENOENT)
		r = 0; /* before 4.14: the smaps sum stands alone */
	if (r < 0)
		pmaps__msg(msg, msgsz, "%s", c && pmaps_maps_errmsg(c)[0] ? pmaps_maps_errmsg(c)
		                                                          : pmaps_strerror(r));
	pmaps_maps_close(c);
	return r < 0 ? r : 0;
}

int pmaps_explain(struct pmaps_proc *proc, struct pmaps_explain *x, unsigned options, char *msg,
                  size_t msgsz)
{
	/*
	 * A mapping that grew between two of the kernel's reads is listed again
	 * from its start (PMAPS_ROW_OVERLAP): every sum would count it twice.
	 * Read again; a process that keeps doing it gets -EAGAIN.
	 */
	for (int attempt = 1; attempt <= 3; attempt++) {
		int overlap = 0, r = explain_once(proc, x, options, msg, msgsz, &overlap);
		/* -EAGAIN: the thread it was read through ended; another is there. */
		if ((r < 0 && r != -EAGAIN) || (r == 0 && !overlap))
			return r;
		if (r == -EAGAIN && attempt == 3)
			return r;
	}
	pmaps__msg(msg, msgsz, "smaps: the process kept changing its mappings while they were read "
	           "(a mapping grew and was listed twice, 3 reads in a row): try again");
	return -EAGAIN;
}
