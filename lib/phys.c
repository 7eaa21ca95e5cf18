/* SPDX-License-Identifier: MIT */
/*
 * phys.c - the machine's physical memory from /proc/kpageflags, page by page.
 *
 * /proc/kpageflags: one little-endian u64 per page frame number (PFN), from
 * PFN 0 to the highest the kernel has a memmap for; the KPF_* bits of
 * include/uapi/linux/kernel-page-flags.h (0-26 stable, 32 and up the
 * kernel-debug copies of page->flags: 32 RESERVED, 33 MLOCKED). Reads must
 * start and end on 8-byte boundaries (else EINVAL); past the last frame a
 * read returns 0 bytes; lseek(SEEK_END) is EINVAL, so the length is found by
 * probing. Frames without online memory read as KPF_NOPAGE before ~6.16 and
 * as 0 since. /proc/kpagecount: the same layout, the page's map count.
 * Both mode 0400: root only. /proc/iomem's "START-END : System RAM" lines
 * (hex, END inclusive; zeros unless root), at any depth and with a driver's
 * suffix ("System RAM (kmem)" under a dax region, "System RAM (virtio_mem)"
 * under virtio0), tell holes from flagless kernel pages; iomem is read again
 * by every reading (a few KiB), so memory plugged in later is RAM there.
 *
 * One pass in large sequential pread()s into buffers allocated at open:
 * the kernel's per-frame work dominates (about 100 ns a frame here;
 * pmaps-bench-phys measures it against a bare read loop); the
 * classification is a chain of tests the common cases (free, page cache,
 * anonymous) leave early. With THREADS readers, chunk k of the file is read
 * by reader k % THREADS into one of its two slots while the calling thread
 * classifies the chunks in order: the kernel's work spreads over CPUs, the
 * counting stays sequential (a compound tail needs its head's state).
 * Each block keeps a count per state (NSTATES uint32_t: the caller's, made at
 * open), so a picture's cell of several blocks is coloured by its frames,
 * never by its blocks' winners.
 *
 * /proc/kpagecgroup (CONFIG_MEMCG, mode 0400, since 4.3): the same layout,
 * the inode number of the memory cgroup directory a frame is charged to (0:
 * none). With PMAPS_PHYS_CGROUP it is read beside kpageflags at the same
 * offsets (the same threads and slots as kpagecount) and each frame is
 * counted under its inode in a table made at open: rows in order of first
 * sight, found through an open-addressing index twice their size (linear
 * probing; the last inode is remembered, since frames of one cgroup come in
 * runs). A full table sends new inodes' frames to "other", never drops them.
 *
 * Frames a kernel has not initialised yet (deferred struct page init, done
 * lazily by some kernels long after boot) read as 0 in all three files, like
 * a kernel page without flags. What tells them apart is where they lie and
 * what /proc/meminfo says: the kernel initialises memory upwards in 128 MiB
 * sections, so what is left is a flagless run from a section boundary to
 * the end of a RAM range, and MemFree counts it (less the early allocations
 * inside it). The walk notes such runs as it goes (at most URUN_MAX; more
 * stay KERNEL) and, when meminfo confirms them, moves their frames from
 * KERNEL to UNINIT in the counts, the blocks and the cgroup of inode 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "parse.h"
#include "readers.h"

/* The KPF_* bits read here (the kernel's numbers). */
#define KPF(bit) (1ull << (bit))
#define KPF_REFERENCED 2
#define KPF_DIRTY 4
#define KPF_LRU 5
#define KPF_ACTIVE 6
#define KPF_SLAB 7
#define KPF_WRITEBACK 8
#define KPF_BUDDY 10
#define KPF_MMAP 11
#define KPF_ANON 12
#define KPF_SWAPCACHE 13
#define KPF_SWAPBACKED 14
#define KPF_COMPOUND_HEAD 15
#define KPF_COMPOUND_TAIL 16
#define KPF_HUGE 17
#define KPF_UNEVICTABLE 18
#define KPF_HWPOISON 19
#define KPF_NOPAGE 20
#define KPF_KSM 21
#define KPF_THP 22
#define KPF_OFFLINE 23
#define KPF_ZERO_PAGE 24
#define KPF_IDLE 25
#define KPF_PGTABLE 26
#define KPF_RESERVED 32
#define KPF_MLOCKED 33

/* System RAM ranges kept from iomem; a machine with more is read without them. */
#define PHYS_RAM_MAX 256
/* The largest kpageflags probed for: 2^52 bytes of 4 KiB frames. */
#define PHYS_MAX_PFN (1ull << 40)

static const char *const state_keys[PMAPS_PHYS_COUNT] = {
	[PMAPS_PHYS_HOLE] = "hole",
	[PMAPS_PHYS_HWPOISON] = "hwpoison",
	[PMAPS_PHYS_OFFLINE] = "offline",
	[PMAPS_PHYS_RESERVED] = "reserved",
	[PMAPS_PHYS_FREE] = "free",
	[PMAPS_PHYS_HUGETLB] = "hugetlb",
	[PMAPS_PHYS_SLAB] = "slab",
	[PMAPS_PHYS_PGTABLE] = "pgtable",
	[PMAPS_PHYS_ZERO] = "zero",
	[PMAPS_PHYS_LAZYFREE] = "lazyfree",
	[PMAPS_PHYS_ANON_THP] = "anon_thp",
	[PMAPS_PHYS_ANON] = "anon",
	[PMAPS_PHYS_SWAPCACHE] = "swapcache",
	[PMAPS_PHYS_SHMEM] = "shmem",
	[PMAPS_PHYS_FILE_THP] = "file_thp",
	[PMAPS_PHYS_FILE_MAPPED] = "file_mapped",
	[PMAPS_PHYS_FILE] = "file",
	[PMAPS_PHYS_KERNEL] = "kernel",
	[PMAPS_PHYS_UNINIT] = "uninit",
};

/* Each flag's key and the kpageflags bit it counts (-1: counted on its own). */
static const struct {
	const char *key;
	int bit;
} flag_defs[PMAPS_PHYS_F_COUNT] = {
	[PMAPS_PHYS_F_MLOCKED] = {"mlocked", KPF_MLOCKED},
	[PMAPS_PHYS_F_UNEVICTABLE] = {"unevictable", KPF_UNEVICTABLE},
	[PMAPS_PHYS_F_DIRTY] = {"dirty", KPF_DIRTY},
	[PMAPS_PHYS_F_WRITEBACK] = {"writeback", KPF_WRITEBACK},
	[PMAPS_PHYS_F_REFERENCED] = {"referenced", KPF_REFERENCED},
	[PMAPS_PHYS_F_ACTIVE] = {"active", KPF_ACTIVE},
	[PMAPS_PHYS_F_IDLE] = {"idle", KPF_IDLE},
	[PMAPS_PHYS_F_KSM] = {"ksm", -1},
	[PMAPS_PHYS_F_SWAPCACHE] = {"swapcache", KPF_SWAPCACHE},
	[PMAPS_PHYS_F_MMAP] = {"mmap", KPF_MMAP},
	[PMAPS_PHYS_F_MAPPED] = {"mapped", -1},
	[PMAPS_PHYS_F_SHARED] = {"shared", -1},
};

_Static_assert(PMAPS_PHYS_COUNT <= PMAPS_PHYS_MAX && PMAPS_PHYS_MAX <= 256, "phys states");
_Static_assert(PMAPS_PHYS_F_COUNT <= PMAPS_PHYS_F_MAX && PMAPS_PHYS_F_MAX <= 64, "phys flags");

const char *pmaps_phys_state_key(enum pmaps_phys_state s)
{
	return (unsigned)s < PMAPS_PHYS_COUNT ? state_keys[s] : NULL;
}

const char *pmaps_phys_flag_key(enum pmaps_phys_flag f)
{
	return (unsigned)f < PMAPS_PHYS_F_COUNT ? flag_defs[f].key : NULL;
}

struct phys_ram {
	uint64_t start, end; /* frames, [start, end) */
};

/* A chunk read by a reader thread, handed to the classifying thread. */
struct phys_slot {
	uint64_t *f, *c, *g; /* BUF_BYTES each (c NULL without kpagecount, g without
	                        kpagecgroup) */
	ssize_t n, cn, gn;   /* bytes read of each, or -errno */
	int full;            /* read, not yet classified */
};

struct phys_reader {
	struct pmaps_phys *p;
	unsigned id;
	uint64_t reads;  /* pread() calls this reading, past the end too */
	pthread_t th;
};

#define PHYS_THREADS_MAX 16
#define URUN_MAX 64
#define SECTION_BYTES (128ull << 20) /* x86-64's and arm64's sparsemem section */

struct pmaps_phys {
	int flagsfd, countfd;     /* countfd -1 without kpagecount */
	int cgfd;                 /* kpagecgroup, -1 without */
	uint64_t *gbuf;           /* BUF_BYTES (NULL without kpagecgroup) */
	struct pmaps_phys_cgroup *cg; /* CG_MAX rows, NCG used (NULL without kpagecgroup) */
	uint32_t *cg_idx;         /* CG_SLOTS: row + 1, or 0 for an empty slot */
	size_t cg_max, cg_slots, ncg;
	size_t cg_last;           /* the row of the last frame's inode, or CG_MAX */
	uint64_t cg_other;
	int iofd;                 /* iomem, -1 without */
	int mifd;                 /* meminfo, -1 without */
	unsigned nstates;         /* states a block row holds: the caller's */
	struct phys_ram urun[URUN_MAX]; /* runs that look not initialised, this reading */
	size_t nurun;
	volatile sig_atomic_t *cancel; /* the caller's: nonzero stops a reading */
	uint64_t *fbuf, *cbuf;    /* BUF_BYTES each (cbuf NULL without kpagecount) */
	size_t buf_bytes;
	uint8_t *block;           /* BLOCK_CAP bytes */
	uint32_t *bstate;         /* BLOCK_CAP x NSTATES: pages per block and state */
	uint32_t over[PMAPS_PHYS_COUNT]; /* a block past BLOCK_CAP (memory added since open) */
	uint64_t block_cap;
	uint64_t block_pages;
	struct phys_ram ram[PHYS_RAM_MAX];
	size_t nram;
	int holes_known;
	unsigned page_size;
	/* With reader threads (THREADS > 1): 2 slots a reader, under MU. */
	unsigned threads;
	struct phys_slot slots[2 * PHYS_THREADS_MAX];
	struct phys_reader readers[PHYS_THREADS_MAX];
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int sync_ok;          /* MU and CV initialised */
	int stop;             /* readers: stop (the end, an error) */
	uint64_t end_chunk;   /* no chunk from here on has data */
	struct pmaps_phys_result res;
	char msg[PMAPS_ERRMSG_SIZE];
};

/* Tests: the rows of the cgroup table opened next (0: PMAPS_PHYS_MAX_CGROUPS). Not API. */
extern size_t pmaps__phys_cgroups_hook;
size_t pmaps__phys_cgroups_hook;

static void set_msg(char *msg, size_t msgsz, const char *s)
{
	if (msg && msgsz)
		pmaps__msg(msg, msgsz, "%s", s);
}

/*
 * iomem's System RAM lines into P->ram (frames), sorted, overlaps merged.
 * Holes stay unknown on any doubt.
 */
struct iomem_ctx {
	struct pmaps_phys *p;
	int bad, nonzero;
};

static int iomem_line(void *ctx, const char *s, const char *nl)
{
	static const char ram[] = " : System RAM";
	struct iomem_ctx *c = ctx;
	struct pmaps_phys *p = c->p;
	uint64_t a, b, fa, fb;
	size_t i, len;

	/* Any depth: driver-managed RAM (dax/kmem, virtio-mem) is nested and suffixed. */
	while (s < nl && *s == ' ')
		s++;
	if (pmaps__parse_hex(&s, nl, &a) < 0 || s == nl || *s != '-')
		return 0;
	s++;
	if (pmaps__parse_hex(&s, nl, &b) < 0 || b < a)
		return 0;
	len = (size_t)(nl - s);
	if (len < sizeof(ram) - 1 || memcmp(s, ram, sizeof(ram) - 1) != 0)
		return 0;
	/* "System RAM" alone, or "System RAM (...)". */
	if (len != sizeof(ram) - 1 &&
	    (len < sizeof(ram) + 2 || s[sizeof(ram) - 1] != ' ' || s[sizeof(ram)] != '(' ||
	     nl[-1] != ')'))
		return 0;
	if (b)
		c->nonzero = 1;
	/* A frame is RAM when any byte of it is: [a / ps, b / ps + 1). */
	fa = a / p->page_size;
	fb = b / p->page_size + 1;
	/* Into place: a nested range can come after a later top-level one's start. */
	for (i = p->nram; i > 0 && p->ram[i - 1].start > fa; i--)
		;
	if (i > 0 && p->ram[i - 1].end >= fa) { /* overlaps or touches the one before */
		if (fb > p->ram[i - 1].end)
			p->ram[i - 1].end = fb;
		i--;
	} else {
		if (p->nram == PHYS_RAM_MAX) {
			c->bad = 1;
			return 0;
		}
		memmove(&p->ram[i + 1], &p->ram[i], (p->nram - i) * sizeof(p->ram[0]));
		p->ram[i].start = fa;
		p->ram[i].end = fb;
		p->nram++;
	}
	/* Swallow the ones after it that it now reaches. */
	while (i + 1 < p->nram && p->ram[i + 1].start <= p->ram[i].end) {
		if (p->ram[i + 1].end > p->ram[i].end)
			p->ram[i].end = p->ram[i + 1].end;
		memmove(&p->ram[i + 1], &p->ram[i + 2], (p->nram - i - 2) * sizeof(p->ram[0]));
		p->nram--;
	}
	return 0;
}

/* Reads P->iofd from its start (each reading: hotplug changes it). */
static void read_iomem(struct pmaps_phys *p)
{
	char buf[4096];
	struct iomem_ctx c = {p, 0, 0};

	p->nram = 0;
	p->holes_known = 0;
	if (p->iofd < 0 || lseek(p->iofd, 0, SEEK_SET) != 0)
		return;
	if (pmaps__read_lines(p->iofd, buf, sizeof(buf), iomem_line, &c) == 0 && !c.bad &&
	    c.nonzero && p->nram)
		p->holes_known = 1;
	else
		p->nram = 0;
}

/*
 * How many frames FD lists: a regular file's size, or for the kernel's
 * file (no SEEK_END) the first offset whose 8-byte read returns nothing,
 * found by doubling then bisecting (about 2 log2(frames) small reads).
 * Returns 0, or -errno.
 */
static int count_frames(int fd, uint64_t *frames, char *msg, size_t msgsz)
{
	struct stat st;
	uint64_t lo, hi, v;
	ssize_t n;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (st.st_size > 0) {
		if (st.st_size % 8) {
			pmaps__msg(msg, msgsz, "kpageflags: %lld bytes, not whole 8-byte entries: no "
			           "kernel writes that", (long long)st.st_size);
			return -EBADMSG;
		}
		*frames = (uint64_t)st.st_size / 8;
		return 0;
	}
	/* LO frames are there, HI are not. */
	lo = 0;
	hi = 1;
	for (;;) {
		n = pmaps__pread(fd, &v, 8, (off_t)((hi - 1) * 8));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		lo = hi;
		if (hi >= PHYS_MAX_PFN) {
			*frames = hi;
			return 0;
		}
		hi *= 2;
	}
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;
		n = pmaps__pread(fd, &v, 8, (off_t)((mid - 1) * 8));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			hi = mid;
		else
			lo = mid;
	}
	*frames = lo;
	return 0;
}

static int open_kpage(int rootfd, int live, const char *name, char *msg, size_t msgsz)
{
	int fd = pmaps__open_regular(rootfd, name, live, msg, msgsz);

	if (fd == -EACCES || fd == -EPERM)
		pmaps__msg(msg, msgsz, "%s: permission denied: it is readable by root only (mode "
		           "0400): run as root (or with CAP_DAC_READ_SEARCH)", name);
	else if (fd == -ENOENT)
		pmaps__msg(msg, msgsz, live ? "%s: not provided by this kernel (it needs "
		                              "CONFIG_PROC_PAGE_MONITOR)"
		                            : "%s: no such file in this proc tree", name);
	else if (fd < 0 && fd != -EBADMSG)
		pmaps__msg(msg, msgsz, "%s: %s", name, pmaps_strerror(fd));
	return fd;
}

int pmaps_phys_open(struct pmaps_phys **out, const char *proc_root,
                    const struct pmaps_phys_opts *opts, char *msg, size_t msgsz)
{
	struct pmaps_phys_opts o = {sizeof(o), 0, 0, 0, 0, NULL, 0};
	const uint32_t known_flags = PMAPS_PHYS_MAPCOUNT | PMAPS_PHYS_CGROUP;
	struct pmaps_phys *p;
	char m[PMAPS_ERRMSG_SIZE] = "";
	const char *root = proc_root ? proc_root : "/proc";
	uint64_t frames = 0;
	int rootfd, live, err, auto_block;
	long ps;

	if (out)
		*out = NULL;
	if (!out) {
		set_msg(msg, msgsz, "phys: no place for the handle");
		return -EINVAL;
	}
	if (opts) {
		/* 0.3.0's opts end before STATES: theirs is the smallest size. */
		if (!pmaps__size_ok(opts->size, offsetof(struct pmaps_phys_opts, states))) {
			pmaps__msg(m, sizeof(m), "struct pmaps_phys_opts: size %u, below %zu: set it "
			           "to sizeof", opts->size, offsetof(struct pmaps_phys_opts, states));
			set_msg(msg, msgsz, m);
			return -EINVAL;
		}
		pmaps__copy_out(&o, sizeof(o), opts, opts->size);
		o.size = sizeof(o);
	}
	auto_block = !o.block_pages;
	if (auto_block)
		o.block_pages = PMAPS_PHYS_BLOCK_PAGES;
	if (!o.buf_bytes)
		o.buf_bytes = PMAPS_PHYS_BUF_BYTES;
	if (o.block_pages >= (1ull << 32) || o.buf_bytes % 8 || o.buf_bytes < 4096 ||
	    o.buf_bytes > (64u << 20) || (o.flags & ~known_flags) ||
	    o.threads > PHYS_THREADS_MAX || (o.states && o.states < PMAPS_PHYS_COUNT_0_3)) {
		set_msg(msg, msgsz, "phys: block_pages from 2^32, buf_bytes not a multiple of 8 "
		        "from 4 KiB to 64 MiB, threads above 16, states below 18, or an unknown "
		        "flag");
		return -EINVAL;
	}
	ps = sysconf(_SC_PAGESIZE);
	rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0) {
		err = -errno;
		if (err == -ENOENT || err == -ENOTDIR)
			pmaps__msg(m, sizeof(m), "proc root %s: no such directory", root);
		else
			pmaps__msg(m, sizeof(m), "proc root %s: %s", root, pmaps_strerror(err));
		set_msg(msg, msgsz, m);
		return err;
	}
	live = pmaps__is_procfs(rootfd);
	if (!(p = pmaps__alloc(sizeof(*p)))) {
		close(rootfd);
		set_msg(msg, msgsz, "phys: out of memory");
		return -ENOMEM;
	}
	memset(p, 0, sizeof(*p));
	p->countfd = -1;
	p->cgfd = -1;
	p->iofd = -1;
	p->mifd = -1;
	p->nstates = o.states >= PMAPS_PHYS_COUNT ? PMAPS_PHYS_COUNT : PMAPS_PHYS_COUNT_0_3;
	p->cancel = o.cancel;
	p->page_size = ps > 0 ? (unsigned)ps : 4096u;
	p->block_pages = o.block_pages;
	p->buf_bytes = (size_t)o.buf_bytes;
	p->threads = o.threads > 1 ? o.threads : 0;
	p->flagsfd = open_kpage(rootfd, live, "kpageflags", m, sizeof(m));
	if (p->flagsfd < 0) {
		err = p->flagsfd;
		goto fail;
	}
	if (o.flags & PMAPS_PHYS_MAPCOUNT) {
		p->countfd = open_kpage(rootfd, live, "kpagecount", m, sizeof(m));
		if (p->countfd == -ENOENT) {
			m[0] = '\0'; /* the flags it gives stay unknown */
		} else if (p->countfd < 0) {
			err = p->countfd;
			goto fail;
		}
	}
	if (o.flags & PMAPS_PHYS_CGROUP) {
		p->cgfd = open_kpage(rootfd, live, "kpagecgroup", m, sizeof(m));
		if (p->cgfd == -ENOENT) {
			m[0] = '\0'; /* cgroups unknown: a kernel without CONFIG_MEMCG */
		} else if (p->cgfd < 0) {
			err = p->cgfd;
			goto fail;
		}
	}
	if ((err = count_frames(p->flagsfd, &frames, m, sizeof(m))) < 0) {
		if (!m[0])
			pmaps__msg(m, sizeof(m), "kpageflags: %s", pmaps_strerror(err));
		goto fail;
	}
	p->iofd = pmaps__open_regular(rootfd, "iomem", live, NULL, 0);
	if (p->iofd < 0)
		p->iofd = -1; /* holes unknown */
	p->mifd = pmaps__open_regular(rootfd, "meminfo", live, NULL, 0);
	if (p->mifd < 0)
		p->mifd = -1; /* UNINIT unconfirmed: such frames stay KERNEL */
	if (auto_block) {
		/* The default: 2 MiB, or coarser on a large machine (2^16 blocks). */
		uint64_t fit = frames / (1u << 16) + (frames % (1u << 16) != 0);
		if (fit > p->block_pages)
			p->block_pages = fit;
	}
	p->block_cap = frames / p->block_pages + (frames % p->block_pages != 0);
	if (p->block_cap > PMAPS_PHYS_MAX_BLOCKS) {
		uint64_t least = frames / PMAPS_PHYS_MAX_BLOCKS + (frames % PMAPS_PHYS_MAX_BLOCKS != 0);

		err = -E2BIG;
		pmaps__msg(m, sizeof(m),
		           "blocks of %" PRIu64 " frames (%" PRIu64 " bytes) make %" PRIu64
		           " blocks, more than %u: a block needs at least %" PRIu64 " frames (%"
		           PRIu64 " bytes) here",
		           p->block_pages, p->block_pages * p->page_size, p->block_cap,
		           PMAPS_PHYS_MAX_BLOCKS, least, least * p->page_size);
		goto fail;
	}
	err = -ENOMEM;
	if (!(p->fbuf = pmaps__alloc(p->buf_bytes)))
		goto nomem;
	if (p->countfd >= 0 && !(p->cbuf = pmaps__alloc(p->buf_bytes)))
		goto nomem;
	if (p->cgfd >= 0) {
		p->cg_max = pmaps__phys_cgroups_hook ? pmaps__phys_cgroups_hook
		                                     : PMAPS_PHYS_MAX_CGROUPS;
		for (p->cg_slots = 1; p->cg_slots < 2 * p->cg_max; p->cg_slots *= 2)
			;
		if (!(p->gbuf = pmaps__alloc(p->buf_bytes)) ||
		    !(p->cg = pmaps__alloc(p->cg_max * sizeof(*p->cg))) ||
		    !(p->cg_idx = pmaps__alloc(p->cg_slots * sizeof(*p->cg_idx))))
			goto nomem;
	}
	for (unsigned i = 0; i < 2 * p->threads; i++) {
		if (!(p->slots[i].f = pmaps__alloc(p->buf_bytes)))
			goto nomem;
		if (p->countfd >= 0 && !(p->slots[i].c = pmaps__alloc(p->buf_bytes)))
			goto nomem;
		if (p->cgfd >= 0 && !(p->slots[i].g = pmaps__alloc(p->buf_bytes)))
			goto nomem;
	}
	if (p->threads) {
		if (pthread_mutex_init(&p->mu, NULL) != 0)
			goto nomem;
		if (pthread_cond_init(&p->cv, NULL) != 0) {
			pthread_mutex_destroy(&p->mu);
			goto nomem;
		}
		p->sync_ok = 1;
	}
	if (!(p->block = pmaps__alloc(p->block_cap ? p->block_cap : 1)))
		goto nomem;
	/* BLOCK_CAP <= 2^40: the product fits. */
	if (!(p->bstate = pmaps__alloc((p->block_cap ? p->block_cap : 1) * p->nstates *
	                               sizeof(uint32_t))))
		goto nomem;
	close(rootfd);
	*out = p;
	return 0;
nomem:
	pmaps__msg(m, sizeof(m), "phys: out of memory for the buffers");
fail:
	close(rootfd);
	pmaps_phys_close(p);
	set_msg(msg, msgsz, m);
	return err;
}

void pmaps_phys_close(struct pmaps_phys *p)
{
	if (!p)
		return;
	if (p->flagsfd >= 0)
		close(p->flagsfd);
	if (p->countfd >= 0)
		close(p->countfd);
	if (p->cgfd >= 0)
		close(p->cgfd);
	if (p->iofd >= 0)
		close(p->iofd);
	if (p->mifd >= 0)
		close(p->mifd);
	pmaps__free(p->fbuf);
	pmaps__free(p->cbuf);
	pmaps__free(p->gbuf);
	pmaps__free(p->cg);
	pmaps__free(p->cg_idx);
	for (unsigned i = 0; i < 2 * PHYS_THREADS_MAX; i++) {
		pmaps__free(p->slots[i].f);
		pmaps__free(p->slots[i].c);
		pmaps__free(p->slots[i].g);
	}
	if (p->sync_ok) {
		pthread_cond_destroy(&p->cv);
		pthread_mutex_destroy(&p->mu);
	}
	pmaps__free(p->block);
	pmaps__free(p->bstate);
	pmaps__free(p);
}

const char *pmaps_phys_errmsg(const struct pmaps_phys *p)
{
	return p ? p->msg : "";
}

uint64_t pmaps_phys_bytes(const struct pmaps_phys_result *r, uint64_t pages)
{
	uint64_t ps = r ? r->page_size : 0;

	if (ps && pages > UINT64_MAX / ps)
		return UINT64_MAX;
	return pages * ps;
}

/* The state of a page by its own flags F (a tail's is its head's: the caller's). */
static inline unsigned state_of(uint64_t f)
{
	if (f & (KPF(KPF_NOPAGE) | KPF(KPF_HWPOISON) | KPF(KPF_OFFLINE) | KPF(KPF_ZERO_PAGE) |
	         KPF(KPF_RESERVED) | KPF(KPF_BUDDY))) {
		if (f & KPF(KPF_NOPAGE))
			return PMAPS_PHYS_HOLE;
		if (f & KPF(KPF_HWPOISON))
			return PMAPS_PHYS_HWPOISON;
		if (f & KPF(KPF_OFFLINE))
			return PMAPS_PHYS_OFFLINE;
		if (f & KPF(KPF_ZERO_PAGE))
			return PMAPS_PHYS_ZERO;
		if (f & KPF(KPF_RESERVED))
			return PMAPS_PHYS_RESERVED;
		return PMAPS_PHYS_FREE;
	}
	if (f & (KPF(KPF_HUGE) | KPF(KPF_SLAB) | KPF(KPF_PGTABLE))) {
		if (f & KPF(KPF_HUGE))
			return PMAPS_PHYS_HUGETLB;
		if (f & KPF(KPF_SLAB))
			return PMAPS_PHYS_SLAB;
		return PMAPS_PHYS_PGTABLE;
	}
	if (f & KPF(KPF_ANON)) {
		if (pmaps__kpf_lazyfree(f))
			return PMAPS_PHYS_LAZYFREE;
		return (f & KPF(KPF_THP)) ? PMAPS_PHYS_ANON_THP : PMAPS_PHYS_ANON;
	}
	if (f & KPF(KPF_SWAPCACHE))
		return PMAPS_PHYS_SWAPCACHE;
	if (f & KPF(KPF_SWAPBACKED))
		return PMAPS_PHYS_SHMEM;
	/*
	 * Page cache is on the LRU lists: a page only a process maps (KPF_MMAP
	 * without LRU) is a driver's or vmalloc's mapped into userspace (GPU
	 * buffers, io_uring and perf rings): the kernel's.
	 */
	if (f & KPF(KPF_LRU)) {
		if (f & KPF(KPF_THP))
			return PMAPS_PHYS_FILE_THP;
		return (f & KPF(KPF_MMAP)) ? PMAPS_PHYS_FILE_MAPPED : PMAPS_PHYS_FILE;
	}
	return PMAPS_PHYS_KERNEL;
}

/* The bits any flag counts: a page with none of them (most free pages) skips the loop. */
static uint64_t flag_mask(void)
{
	uint64_t m = 0;

	for (unsigned k = 0; k < PMAPS_PHYS_F_COUNT; k++)
		if (flag_defs[k].bit >= 0)
			m |= KPF(flag_defs[k].bit);
	return m;
}

/* The walk's state across buffers. */
struct walk {
	uint64_t pfn;          /* the next frame */
	size_t ram;            /* the first RAM range not wholly below PFN */
	int carry;             /* the last head's state while its tails follow, or -1 */
	uint64_t in_block;     /* frames of the current block so far */
	uint64_t nblock;       /* blocks written */
	uint32_t *bc;          /* the current block's frames per state (< 2^32 a block) */
	uint64_t urun;         /* the start of a flagless run from a section boundary, or NONE */
	uint64_t section;      /* frames a section */
};

#define NONE UINT64_MAX

static uint32_t *block_row(struct pmaps_phys *p, uint64_t b)
{
	if (b < p->block_cap)
		return p->bstate + b * p->nstates; /* zeroed by the reading's start */
	memset(p->over, 0, sizeof(p->over));
	return p->over;
}

/* The state most of a block's frames BC are in (a tie: the earlier). */
static unsigned block_winner(const struct pmaps_phys *p, const uint32_t *bc)
{
	unsigned best = 0;

	for (unsigned s = 1; s < p->nstates; s++)
		if (bc[s] > bc[best])
			best = s;
	return best;
}

static void end_block(struct pmaps_phys *p, struct walk *w)
{
	unsigned best = block_winner(p, w->bc);

	if (w->nblock < p->block_cap)
		p->block[w->nblock] = (uint8_t)best;
	w->nblock++;
	w->in_block = 0;
	w->bc = block_row(p, w->nblock);
}

/* A frame of state S charged to cgroup INODE into its row (or "other"). */
static void cg_count(struct pmaps_phys *p, uint64_t inode, unsigned s)
{
	struct pmaps_phys_cgroup *row;
	size_t i;

	if (p->cg_last < p->ncg && p->cg[p->cg_last].inode == inode) {
		row = &p->cg[p->cg_last];
	} else {
		/* A 64-bit mix (splitmix64's finaliser): inodes are often close together. */
		uint64_t h = inode;
		h ^= h >> 30;
		h *= 0xbf58476d1ce4e5b9ull;
		h ^= h >> 27;
		h *= 0x94d049bb133111ebull;
		h ^= h >> 31;
		for (i = (size_t)h & (p->cg_slots - 1);; i = (i + 1) & (p->cg_slots - 1)) {
			uint32_t v = p->cg_idx[i];
			if (!v) {
				if (p->ncg == p->cg_max) {
					p->cg_other++;
					return;
				}
				p->cg_idx[i] = (uint32_t)(p->ncg + 1);
				row = &p->cg[p->ncg++];
				memset(row, 0, sizeof(*row));
				row->inode = inode;
				break;
			}
			if (p->cg[v - 1].inode == inode) {
				row = &p->cg[v - 1];
				break;
			}
		}
		p->cg_last = (size_t)(row - p->cg);
	}
	/* A row's counts are at most the file's frames: no sum wraps. */
	row->pages++;
	row->state[s]++;
}

/* Row A before row B: more pages first, then the smaller inode. */
static int cg_before(const struct pmaps_phys_cgroup *a, const struct pmaps_phys_cgroup *b)
{
	return a->pages != b->pages ? a->pages > b->pages : a->inode < b->inode;
}

static void cg_swap(struct pmaps_phys_cgroup *a, struct pmaps_phys_cgroup *b)
{
	struct pmaps_phys_cgroup t = *a;

	*a = *b;
	*b = t;
}

static void cg_sift(struct pmaps_phys_cgroup *v, size_t i, size_t n)
{
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			return;
		/* A heap with the row that sorts last on top. */
		if (c + 1 < n && cg_before(&v[c], &v[c + 1]))
			c++;
		if (!cg_before(&v[i], &v[c]))
			return;
		cg_swap(&v[i], &v[c]);
		i = c;
	}
}

/* Heapsort in place (qsort may allocate): no allocation per read. */
static void cg_sort(struct pmaps_phys_cgroup *v, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		cg_sift(v, i, n);
	for (size_t e = n; e > 1; e--) {
		cg_swap(&v[0], &v[e - 1]);
		cg_sift(v, 0, e - 1);
	}
}

/* A flagless run that reached END, the end of its RAM, is noted if a section or longer. */
static void end_urun(struct pmaps_phys *p, struct walk *w, uint64_t end)
{
	if (w->urun != NONE && end - w->urun >= w->section && p->nurun < URUN_MAX) {
		p->urun[p->nurun].start = w->urun;
		p->urun[p->nurun].end = end;
		p->nurun++;
	}
	w->urun = NONE;
}

/* Frames FB[0, N) (and their counts CB, their cgroups GB, or NULL) into R. */
static void walk_frames(struct pmaps_phys *p, struct walk *w, struct pmaps_phys_result *r,
                        const uint64_t *fb, const uint64_t *cb, const uint64_t *gb, size_t n,
                        uint64_t fmask)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t f = fb[i], pfn = w->pfn + i;
		unsigned s;

		if (p->holes_known) {
			while (w->ram < p->nram && p->ram[w->ram].end <= pfn)
				w->ram++;
			/*
			 * Outside RAM, iomem overrules only flags that say nothing (0,
			 * NOPAGE, RESERVED alone): a page in use is never a hole.
			 */
			if ((w->ram == p->nram || p->ram[w->ram].start > pfn) &&
			    !(f & ~(KPF(KPF_NOPAGE) | KPF(KPF_RESERVED)))) {
				s = PMAPS_PHYS_HOLE;
				w->carry = -1;
				end_urun(p, w, pfn);
				goto counted;
			}
		}
		if (!f && !(cb && cb[i]) && !(gb && gb[i])) {
			/* Flagless, unmapped, uncharged: a run from a section boundary may be UNINIT. */
			if (w->urun == NONE && pfn % w->section == 0)
				w->urun = pfn;
		} else {
			w->urun = NONE;
		}
		if (f & KPF(KPF_COMPOUND_TAIL)) {
			/* A tail's own poison or offline state is its own, not its head's. */
			if (f & KPF(KPF_HWPOISON))
				s = PMAPS_PHYS_HWPOISON;
			else if (f & KPF(KPF_OFFLINE))
				s = PMAPS_PHYS_OFFLINE;
			else
				s = w->carry >= 0 ? (unsigned)w->carry : state_of(f);
		} else {
			s = state_of(f);
			w->carry = (f & KPF(KPF_COMPOUND_HEAD)) ? (int)s : -1;
		}
counted:
		r->state[s]++;
		if (gb)
			cg_count(p, gb[i], s);
		if (f & fmask) {
			for (unsigned k = 0; k < PMAPS_PHYS_F_COUNT; k++)
				if (flag_defs[k].bit >= 0)
					r->flag[k] += (f >> flag_defs[k].bit) & 1;
		}
		/* KSM only means something on an anonymous page: slab pages show the bit. */
		if ((f & KPF(KPF_KSM)) &&
		    (s == PMAPS_PHYS_ANON || s == PMAPS_PHYS_ANON_THP || s == PMAPS_PHYS_LAZYFREE))
			r->flag[PMAPS_PHYS_F_KSM]++;
		if (cb && cb[i]) {
			r->flag[PMAPS_PHYS_F_MAPPED]++;
			r->flag[PMAPS_PHYS_F_SHARED] += cb[i] > 1;
		}
		w->bc[s]++;
		if (++w->in_block == p->block_pages)
			end_block(p, w);
	}
	w->pfn += n;
}

/*
 * Reads LEN bytes at OFF of FD: a short read of whole entries goes on; one
 * that ends inside an entry stops there (the kernel's file takes no read
 * from there: the caller reports it). Returns bytes read, or -errno.
 */
static ssize_t read_full(int fd, void *buf, size_t len, off_t off, uint64_t *reads)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = pmaps__pread(fd, (char *)buf + got, len - got, off + (off_t)got);
		(*reads)++;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		got += (size_t)n;
		if (n % 8)
			break;
	}
	return (ssize_t)got;
}

static struct phys_slot *slot_of(struct pmaps_phys *p, uint64_t k)
{
	return &p->slots[(k % p->threads) * 2 + (k / p->threads) % 2];
}

/* A reader thread: chunks ID, ID + THREADS, ... until the end, an error or STOP. */
static void *reader_main(void *arg)
{
	struct phys_reader *rd = arg;
	struct pmaps_phys *p = rd->p;

	for (uint64_t k = rd->id;; k += p->threads) {
		struct phys_slot *s = slot_of(p, k);
		off_t off = (off_t)(k * p->buf_bytes);
		ssize_t n, cn = 0, gn = 0;
		uint64_t reads = 0;
		int quit;

		pthread_mutex_lock(&p->mu);
		while (s->full && !p->stop)
			pthread_cond_wait(&p->cv, &p->mu);
		quit = p->stop || k >= p->end_chunk;
		pthread_mutex_unlock(&p->mu);
		if (quit)
			break;
		n = read_full(p->flagsfd, s->f, p->buf_bytes, off, &reads);
		if (n > 0 && n % 8 == 0 && p->countfd >= 0)
			cn = read_full(p->countfd, s->c, (size_t)n, off, &reads);
		if (n > 0 && n % 8 == 0 && p->cgfd >= 0)
			gn = read_full(p->cgfd, s->g, (size_t)n, off, &reads);
		pthread_mutex_lock(&p->mu);
		rd->reads += reads;
		s->n = n;
		s->cn = cn;
		s->gn = gn;
		s->full = 1;
		if ((n < 0 || (size_t)n < p->buf_bytes) && k + 1 < p->end_chunk)
			p->end_chunk = k + 1;
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->mu);
		if (n < 0 || (size_t)n < p->buf_bytes)
			break;
	}
	return NULL;
}

/* Stops the first N readers and waits for them. */
static void readers_stop(struct pmaps_phys *p, unsigned n)
{
	pthread_mutex_lock(&p->mu);
	p->stop = 1;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	for (unsigned i = 0; i < n; i++)
		pthread_join(p->readers[i].th, NULL);
}

/*
 * The read of NAME (kpagecount, kpagecgroup) beside kpageflags' N bytes at
 * OFF: GOT bytes, or a negative errno. Never zeros in place of its entries
 * (mapped and shared would be short, "no cgroup" too large): a shorter read
 * is -EIO. Returns 0, or the error with its message.
 */
static int beside(struct pmaps_phys *p, const char *name, ssize_t got, ssize_t n, off_t off)
{
	if (got < 0) {
		pmaps__msg(p->msg, sizeof(p->msg), "%s: a read at byte %lld: %s", name,
		           (long long)off, pmaps_strerror((int)got));
		return (int)got;
	}
	if (got != n) {
		pmaps__msg(p->msg, sizeof(p->msg), "%s: %zd bytes at byte %lld where kpageflags "
		           "gave %zd: shorter (memory removed while it was read?)", name, got,
		           (long long)off, n);
		return -EIO;
	}
	return 0;
}
/*
 * Chunk K at OFF, BUF_BYTES of kpageflags (and as much of kpagecount) into
 * *F and *C: read here, or waited for from its reader. Returns its bytes,
 * or -errno with the message.
 */
static ssize_t chunk(struct pmaps_phys *p, uint64_t k, off_t off, int threaded,
                     uint64_t **f, uint64_t **c, uint64_t **g, uint64_t *reads)
{
	ssize_t n, cn = 0, gn = 0;
	int err;

	if (threaded) {
		struct phys_slot *s = slot_of(p, k);
		pthread_mutex_lock(&p->mu);
		while (!s->full)
			pthread_cond_wait(&p->cv, &p->mu);
		pthread_mutex_unlock(&p->mu);
		*f = s->f;
		*c = s->c;
		*g = s->g;
		n = s->n;
		cn = s->cn;
		gn = s->gn;
	} else {
		*f = p->fbuf;
		*c = p->cbuf;
		*g = p->gbuf;
		n = read_full(p->flagsfd, *f, p->buf_bytes, off, reads);
		if (n > 0 && n % 8 == 0 && p->countfd >= 0)
			cn = read_full(p->countfd, *c, (size_t)n, off, reads);
		if (n > 0 && n % 8 == 0 && p->cgfd >= 0)
			gn = read_full(p->cgfd, *g, (size_t)n, off, reads);
	}
	if (n < 0) {
		err = (int)n;
		pmaps__msg(p->msg, sizeof(p->msg), "kpageflags: a read at byte %lld: %s",
		           (long long)off, pmaps_strerror(err));
		return err;
	}
	if (n % 8) {
		pmaps__msg(p->msg, sizeof(p->msg), "kpageflags: ends %zd bytes into an entry "
		           "at byte %lld: no kernel writes that", n % 8, (long long)off);
		return -EIO;
	}
	if (n > 0 && p->countfd >= 0 && (err = beside(p, "kpagecount", cn, n, off)) < 0)
		return err;
	if (n > 0 && p->cgfd >= 0 && (err = beside(p, "kpagecgroup", gn, n, off)) < 0)
		return err;
	return n;
}

/* Marks chunk K's slot free for its reader again. */
static void chunk_done(struct pmaps_phys *p, uint64_t k)
{
	struct phys_slot *s = slot_of(p, k);

	pthread_mutex_lock(&p->mu);
	s->full = 0;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

/* MemFree in pages into R, after the frames (each reading: memory moves). */
static void read_meminfo(struct pmaps_phys *p, struct pmaps_phys_result *r)
{
	struct pmaps_meminfo mi = {.size = sizeof(mi)};

	if (p->mifd < 0 || lseek(p->mifd, 0, SEEK_SET) != 0 ||
	    pmaps__meminfo_parse(p->mifd, &mi, NULL, 0) < 0 ||
	    !(mi.present & (1ull << PMAPS_MI_MEM_FREE)))
		return;
	r->meminfo_known = 1;
	r->meminfo_free = mi.v[PMAPS_MI_MEM_FREE] / p->page_size;
}

/*
 * The noted flagless runs become UNINIT when the caller knows the state
 * and meminfo counts at least half their frames free beyond FREE (a kernel
 * that initialised everything counts only the per-CPU lists there). Each
 * run's frames were counted KERNEL, in rows whose other states the run
 * does not touch; the cgroup of inode 0 holds them all (uncharged frames).
 */
static void uninit(struct pmaps_phys *p, struct pmaps_phys_result *r)
{
	const unsigned K = PMAPS_PHYS_KERNEL, U = PMAPS_PHYS_UNINIT;
	struct pmaps_phys_cgroup *none = NULL;
	uint64_t frames = 0, beyond;

	if (p->nstates <= U || !p->nurun || !r->meminfo_known ||
	    r->meminfo_free <= r->state[PMAPS_PHYS_FREE])
		return;
	for (size_t i = 0; i < p->nurun; i++)
		frames += p->urun[i].end - p->urun[i].start;
	beyond = r->meminfo_free - r->state[PMAPS_PHYS_FREE];
	if (beyond < frames / 2)
		return;
	for (size_t i = 0; i < p->ncg && !none; i++)
		if (p->cg[i].inode == 0)
			none = &p->cg[i];
	for (size_t i = 0; i < p->nurun; i++) {
		uint64_t a = p->urun[i].start, e = p->urun[i].end, n = e - a;

		r->state[K] -= n;
		r->state[U] += n;
		if (none) {
			none->state[K] -= n;
			none->state[U] += n;
		}
		for (uint64_t b = a / p->block_pages; b * p->block_pages < e && b < p->block_cap;
		     b++) {
			uint64_t lo = b * p->block_pages, hi = lo + p->block_pages;
			uint32_t *row = p->bstate + b * p->nstates;
			uint32_t k = (uint32_t)((hi < e ? hi : e) - (lo > a ? lo : a));

			row[K] -= k;
			row[U] += k;
			p->block[b] = (uint8_t)block_winner(p, row);
		}
	}
}

int pmaps_phys_read(struct pmaps_phys *p, const struct pmaps_phys_result **res)
{
	struct pmaps_phys_result *r;
	struct walk w;
	uint64_t t0 = pmaps__now_ns(), fmask = flag_mask();
	unsigned started = 0;
	int err = 0, threaded = 0;

	if (res)
		*res = NULL;
	if (!p || !res)
		return -EINVAL;
	r = &p->res;
	p->msg[0] = '\0';
	memset(r, 0, sizeof(*r));
	memset(&w, 0, sizeof(w));
	w.carry = -1;
	w.urun = NONE;
	w.section = SECTION_BYTES / p->page_size;
	p->nurun = 0;
	read_iomem(p);
	memset(p->bstate, 0, (p->block_cap ? p->block_cap : 1) * p->nstates * sizeof(uint32_t));
	w.bc = block_row(p, 0);
	p->ncg = 0;
	p->cg_last = SIZE_MAX;
	p->cg_other = 0;
	if (p->cg_idx)
		memset(p->cg_idx, 0, p->cg_slots * sizeof(*p->cg_idx));
	r->size = sizeof(*r);
	r->page_size = p->page_size;
	r->block_pages = p->block_pages;
	r->holes_known = p->holes_known;
	for (unsigned k = 0; k < PMAPS_PHYS_F_COUNT; k++)
		if ((k != PMAPS_PHYS_F_MAPPED && k != PMAPS_PHYS_F_SHARED) || p->countfd >= 0)
			r->flags_known |= 1ull << k;
	if (p->threads) {
		p->stop = 0;
		p->end_chunk = UINT64_MAX;
		for (unsigned i = 0; i < 2 * p->threads; i++)
			p->slots[i].full = 0;
		for (started = 0; started < p->threads; started++) {
			p->readers[started].p = p;
			p->readers[started].id = started;
			p->readers[started].reads = 0;
			if (pthread_create(&p->readers[started].th, NULL, reader_main,
			                   &p->readers[started]) != 0)
				break;
		}
		threaded = started == p->threads;
		if (!threaded) { /* no threads to be had: read in this one */
			readers_stop(p, started);
			for (unsigned i = 0; i < started; i++)
				r->reads += p->readers[i].reads;
		}
	}
	for (uint64_t k = 0;; k++) {
		off_t off = (off_t)(k * p->buf_bytes);
		uint64_t *f, *c, *g;
		ssize_t n;
		/* Between chunks: a cancel takes effect within one. */
		if (p->cancel && *p->cancel) {
			pmaps__msg(p->msg, sizeof(p->msg), "phys: the reading was cancelled");
			err = -EINTR;
			break;
		}
		n = chunk(p, k, off, threaded, &f, &c, &g, &r->reads);
		if (n < 0) {
			err = (int)n;
			break;
		}
		walk_frames(p, &w, r, f, p->countfd >= 0 ? c : NULL, p->cgfd >= 0 ? g : NULL,
		            (size_t)n / 8, fmask);
		if (threaded)
			chunk_done(p, k);
		if ((size_t)n < p->buf_bytes)
			break;
	}
	if (threaded) {
		readers_stop(p, p->threads);
		/* Every reader's reads, those past the end included. */
		for (unsigned i = 0; i < p->threads; i++)
			r->reads += p->readers[i].reads;
	}
	if (err < 0)
		return err;
	end_urun(p, &w, w.pfn);
	if (w.in_block)
		end_block(p, &w);
	r->pages = w.pfn;
	r->states = p->nstates;
	read_meminfo(p, r);
	uninit(p, r);
	r->blocks = w.nblock < p->block_cap ? w.nblock : p->block_cap;
	r->block = p->block;
	r->block_state = p->bstate;
	if (p->cgfd >= 0) {
		cg_sort(p->cg, p->ncg);
		r->cgroups_known = 1;
		r->cgroups_other = p->cg_other;
		r->ncgroups = p->ncg;
		r->cgroups = p->cg;
	}
	r->read_ns = pmaps__now_ns() - t0;
	*res = r;
	return 0;
}
