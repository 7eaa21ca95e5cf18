/* SPDX-License-Identifier: MIT */
/*
 * survey.c - every process's memory in total, refreshed again and again
 * (pmaps top, pmaps serve), at a bounded cost to the machine and to each
 * process.
 *
 * A refresh lists the proc root and, for every process, reads:
 *
 *   statm          when the process was listed before (the same directory
 *                  inode: a reused pid has a new one): its size, resident
 *                  and shared pages, the counters status prints as VmSize,
 *                  VmRSS and RssFile + RssShmem, at half status's cost. When
 *                  none moved and its figures are not too old, the row is
 *                  kept as it was, and nothing else is read.
 *   status         otherwise: who it is (Name, State, Uid, Kthread) and the
 *                  figures the kernel keeps as counters (VmRSS, RssAnon,
 *                  RssFile, RssShmem, VmSwap, VmPTE), up to its Threads
 *                  line. Reading it walks nothing and takes no lock the
 *                  process's mmap() waits for. A kernel thread is left out
 *                  on it alone.
 *   stat           with PMAPS_SURVEY_FAULTS, every time: its page faults
 *                  (a fault moves no memory counter).
 *   smaps_rollup   when the costly figures (Pss, USS, SwapPss, LazyFree)
 *                  are due: the process is new, its counters moved since
 *                  they were read, they are older than max_age (Pss moves
 *                  when another process maps or drops shared pages), or
 *                  the budget left them last time. The kernel walks every
 *                  page table of the process under its mmap_lock in one
 *                  read(); the text is parsed from memory by a maps cursor
 *                  over it, so the read is the bare open/read/close.
 *   pages          instead of smaps_rollup for a process whose walk would
 *                  hold its lock longer than hold_ns (priced from VmRSS and
 *                  VmPTE): the gentle page walk (PMAPS_SRC_PAGES), which
 *                  gives USS, and Pss with CAP_SYS_ADMIN.
 *   explain        with PMAPS_SURVEY_BREAKDOWN, instead of both: one explain
 *                  session, re-pointed at each process, reads smaps (or the
 *                  gentle page walk, whole, for a process one of whose
 *                  smaps read()s would hold its lock longer than hold_ns),
 *                  then smaps_rollup for the exact Pss where its whole walk
 *                  is shorter than hold_ns, and keeps the sums by category
 *                  and state in the row's slot.
 *
 * The budget counts the costly reads' time (a walk's pauses excluded).
 * Once it is spent, what is still due keeps its older figures (or has
 * status alone) and is marked SKIPPED; the next refresh reads those first.
 * A refresh is one pass while nothing waits from the last one; otherwise
 * the waiting ones are read in the pass and the rest after it, oldest
 * first, each process's directory opened again for that.
 *
 * On a live procfs, status, smaps_rollup and cgroup are opened by path
 * from the root, and the directory's inode is checked against the
 * listing's after (struct pin): the listed process held its pid up to that
 * check, so all were its own; if not, the process is read again through
 * its directory. A page walk or a breakdown reads through a directory fd,
 * opened and checked first. A first refresh makes the syscalls of a bare
 * status + smaps_rollup loop, and one fstatat() more. (statm, above, is
 * read by path with no check: a reused pid whose statm matches the last
 * row's to the page would keep that row up to max_age.)
 *
 * Rows are kept in two tables, this refresh's and the last one's (looked
 * up by pid, binary search; a different Name under the same pid is a new
 * process), swapped after each refresh. They grow only when there are
 * more processes than ever before; nothing else is allocated after the
 * first refresh, except the page-walk cursor, on the first process that
 * needs one.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "parse.h"
#include "readers.h"
#include "testhooks.h"

#define DIR_BUF (32u * 1024u)
#define ROLLUP_BUF 8192u   /* smaps_rollup is about 1 KiB of text */
#define CGROUP_ROOM 256u

/* The status counters whose move makes the costly figures due. */
static const enum pmaps_status_field watched[] = {
	PMAPS_ST_VM_RSS, PMAPS_ST_RSS_ANON, PMAPS_ST_RSS_FILE, PMAPS_ST_RSS_SHMEM, PMAPS_ST_VM_SWAP,
};
#define N_WATCHED (sizeof(watched) / sizeof(watched[0]))

/* A row's breakdown (PMAPS_SURVEY_BREAKDOWN): an explain result's sums. */
struct pmaps_survey_breakdown {
	uint64_t v[PMAPS_X_COUNT][PMAPS_XC_COUNT];
	uint64_t total[PMAPS_XC_COUNT];
	uint64_t mappings[PMAPS_X_COUNT];
	uint64_t nmappings;
	uint32_t xc_known, swap_unknown;
};

struct slot {
	struct pmaps_survey_row row;
	uint64_t ino;                /* the inode of PROC_ROOT/PID when listed */
	uint64_t statm[3];           /* size, resident, shared pages by its status (0: unknown) */
	struct pmaps_status st;
	struct pmaps_group_row total;
	uint64_t read_at;            /* when TOTAL was read (monotonic ns); 0: never */
	uint64_t at_read[N_WATCHED]; /* the watched counters then */
	int has_total;
	int denied;                  /* its memory files refused this reader */
	char comm[64];
	char cgroup[CGROUP_ROOM];
	char memcg[CGROUP_ROOM];     /* the memory controller's path: v1's line, else CGROUP */
	uint64_t flt[2];             /* PMAPS_SURVEY_FAULTS: minflt, majflt */
	int have_flt;                /* FLT was read in this refresh */
	uint32_t bdi;                /* its breakdown: the survey's BD[BDI] (PMAPS_SURVEY_BREAKDOWN) */
};

/*
 * A row's breakdown, apart from its slot: four times the rest of it, and
 * read by serve alone. In a slot, every row of a first refresh would touch
 * a page of its own.
 */
struct slot_bd {
	struct pmaps_survey_breakdown bd; /* the last explain's sums (with HAS_TOTAL) */
	enum pmaps_runtime runtime;
	char runtime_version[32];
	uint64_t hold_ns;            /* the longest its last smaps read held the lock */
	uint64_t ns;                 /* and what the whole read took */
	uint64_t rss;                /* and VmRSS then (0: no smaps read to go by) */
};

struct pmaps_survey {
	int rootfd;
	int live;
	uint64_t page;
	uint64_t tick_hz;            /* stat's clock ticks a second (0: unknown) */
	struct pmaps__dir dir;
	struct pmaps_survey_opts o;
	struct slot *cur, *prev;     /* this refresh's rows, the last one's */
	struct slot_bd *bd, *bdprev; /* their breakdowns (PMAPS_SURVEY_BREAKDOWN; else NULL) */
	size_t nbdprev;              /* made in BDPREV: its rows before the gone were dropped */
	size_t n, nprev, cap;
	uint32_t *waiting;           /* indexes into CUR of reads left to after the pass */
	size_t nwaiting;
	uint32_t backlog;            /* rows the budget left in the last refresh */
	uint64_t spent;              /* this refresh's costly reading */
	struct pmaps_maps *rollup;   /* a cursor over ROLLUP_TEXT */
	struct pmaps_group *group;
	struct pmaps_maps *walk;     /* the page walk, opened on first use */
	struct pmaps_group *walk_group; /* its sum so far */
	struct pmaps_proc proc;      /* re-pointed at each process the walk reads */
	int walk_on;                 /* a walk is under way (PROC's fds are open) */
	int walk_pid;                /* of this process */
	uint64_t walk_ino;           /* and this directory inode */
	size_t walk_slot;            /* its row in CUR, read last (SIZE_MAX: none) */
	int walk_seen;               /* this refresh went on with it, or will */
	/* PMAPS_SURVEY_BREAKDOWN: from smaps, and the gentle walk's (opened on first use) */
	struct pmaps_explain_session *xs[2];
	struct pmaps_meminfo mi;
	int have_mi;
	int (*want)(void *ctx, const struct pmaps_survey_row *row);
	void *want_ctx;
	struct pmaps_survey_stats stats;
	char errmsg[PMAPS_ERRMSG_SIZE];
	char rollup_text[ROLLUP_BUF];
	char dirbuf[DIR_BUF];
};

static const char *const value_keys[PMAPS_SV_COUNT] = {
	[PMAPS_SV_RSS] = "rss",
	[PMAPS_SV_PSS] = "pss",
	[PMAPS_SV_USS] = "uss",
	[PMAPS_SV_SWAP] = "swap",
	[PMAPS_SV_SWAP_PSS] = "swap_pss",
	[PMAPS_SV_ANON] = "anon",
	[PMAPS_SV_FILE] = "file",
	[PMAPS_SV_SHMEM] = "shmem",
	[PMAPS_SV_LAZYFREE] = "lazyfree",
	[PMAPS_SV_VSIZE] = "vsize",
	[PMAPS_SV_THREADS] = "threads",
	[PMAPS_SV_MINFLT] = "minflt",
	[PMAPS_SV_MAJFLT] = "majflt",
	[PMAPS_SV_HWM] = "hwm",
	[PMAPS_SV_PAGE_TABLES] = "page_tables",
	[PMAPS_SV_LOCKED] = "locked",
};

const char *pmaps_survey_value_key(enum pmaps_survey_value k)
{
	return (unsigned)k < PMAPS_SV_COUNT ? value_keys[k] : NULL;
}

int pmaps_survey_open(struct pmaps_survey **out, const char *proc_root,
                      const struct pmaps_survey_opts *opts)
{
	struct pmaps_survey *s;
	int fd, err;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (opts && !pmaps__size_ok(opts->size, sizeof(struct pmaps_survey_opts)))
		return -EINVAL;
	fd = open(proc_root ? proc_root : "/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	s = pmaps__alloc(sizeof(*s));
	if (!s) {
		close(fd);
		return -ENOMEM;
	}
	memset(s, 0, offsetof(struct pmaps_survey, rollup_text));
	s->rootfd = fd;
	s->live = pmaps__is_procfs(fd);
	s->page = (uint64_t)sysconf(_SC_PAGESIZE);
	{
		long hz = sysconf(_SC_CLK_TCK); /* USER_HZ: what stat's times count in */
		s->tick_hz = hz > 0 ? (uint64_t)hz : 0;
	}
	s->o.size = sizeof(s->o);
	if (opts)
		pmaps__copy_out(&s->o, sizeof(s->o), opts, opts->size);
	s->o.size = sizeof(s->o);
	if (s->o.flags & PMAPS_SURVEY_EXACT) {
		s->o.budget_ns = 0;
		s->o.hold_ns = 0;
	} else {
		if (!s->o.budget_ns)
			s->o.budget_ns = PMAPS_SURVEY_BUDGET_NS;
		if (!s->o.hold_ns)
			s->o.hold_ns = PMAPS_SURVEY_HOLD_NS;
	}
	if (!s->o.max_age_ns)
		s->o.max_age_ns = PMAPS_SURVEY_MAX_AGE_NS;
	s->proc.rootfd = fd;
	s->proc.dirfd = s->proc.memfd = s->proc.statfd = -1;
	s->proc.live = s->live;
	err = pmaps__dir_open(&s->dir, fd, ".", s->dirbuf, sizeof(s->dirbuf));
	if (err == 0)
		err = pmaps__maps_open_mem(&s->rollup, PMAPS_SRC_ROLLUP, s->rollup_text, 0, 4096);
	if (err == 0)
		err = pmaps_group_open(&s->group, PMAPS_GROUP_TOTAL);
	if (err == 0)
		err = pmaps_group_open(&s->walk_group, PMAPS_GROUP_TOTAL);
	if (err < 0) {
		pmaps_survey_close(s);
		return err;
	}
	*out = s;
	return 0;
}

static void walk_end(struct pmaps_survey *s);
static void fix_views(struct slot *sl, const struct slot_bd *tab);

void pmaps_survey_close(struct pmaps_survey *s)
{
	if (!s)
		return;
	walk_end(s);
	pmaps_explain_close(s->xs[0]);
	pmaps_explain_close(s->xs[1]);
	pmaps_maps_close(s->walk);
	pmaps_maps_close(s->rollup);
	pmaps_group_close(s->group);
	pmaps_group_close(s->walk_group);
	pmaps__dir_close(&s->dir);
	close(s->rootfd);
	pmaps__free(s->cur);
	pmaps__free(s->prev);
	pmaps__free(s->bd);
	pmaps__free(s->bdprev);
	pmaps__free(s->waiting);
	pmaps__free(s);
}

/* Room for at least N rows in both tables. Returns 0 or -ENOMEM (the tables as they were). */
static int grow(struct pmaps_survey *s, size_t n)
{
	size_t cap = s->cap ? s->cap : 256;
	int breakdown = (s->o.flags & PMAPS_SURVEY_BREAKDOWN) != 0;
	struct slot *cur, *prev;
	struct slot_bd *bd = NULL, *bdprev = NULL;
	uint32_t *waiting;

	while (cap < n)
		cap += cap / 2;
	if (cap > UINT32_MAX)
		return -ENOMEM;
	cur = pmaps__alloc(cap * sizeof(*cur));
	prev = pmaps__alloc(cap * sizeof(*prev));
	waiting = pmaps__alloc(cap * sizeof(*waiting));
	if (breakdown) {
		bd = pmaps__alloc(cap * sizeof(*bd));
		bdprev = pmaps__alloc(cap * sizeof(*bdprev));
	}
	if (!cur || !prev || !waiting || (breakdown && (!bd || !bdprev))) {
		pmaps__free(cur);
		pmaps__free(prev);
		pmaps__free(waiting);
		pmaps__free(bd);
		pmaps__free(bdprev);
		return -ENOMEM;
	}
	s->stats.allocations += breakdown ? 5 : 3;
	if (s->n)
		memcpy(cur, s->cur, s->n * sizeof(*cur));
	if (s->nprev)
		memcpy(prev, s->prev, s->nprev * sizeof(*prev));
	if (s->nwaiting)
		memcpy(waiting, s->waiting, s->nwaiting * sizeof(*waiting));
	/* A slot's BDI is the count of rows in its table when it was made. */
	if (breakdown && s->n)
		memcpy(bd, s->bd, s->n * sizeof(*bd));
	if (breakdown && s->nbdprev)
		memcpy(bdprev, s->bdprev, s->nbdprev * sizeof(*bdprev));
	pmaps__free(s->cur);
	pmaps__free(s->prev);
	pmaps__free(s->waiting);
	pmaps__free(s->bd);
	pmaps__free(s->bdprev);
	s->cur = cur;
	s->prev = prev;
	s->waiting = waiting;
	s->bd = bd;
	s->bdprev = bdprev;
	s->cap = cap;
	/* The last refresh's rows point into their slots: those moved. */
	for (size_t i = 0; i < s->nprev; i++)
		fix_views(&s->prev[i], s->bdprev);
	return 0;
}

/*
 * Opens NAME under DFD. On a live procfs a process's files are the kernel's
 * regular files, whatever the process does: opened with no further check.
 * Elsewhere (a fixture tree) as every reader opens files: no symlink
 * followed, type-checked before the open. Returns an fd or -errno.
 */
static int open_in(const struct pmaps_survey *s, int dfd, const char *name)
{
	int fd;

	if (!s->live)
		return pmaps__open_regular(dfd, name, 0, NULL, 0);
	fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	return fd < 0 ? -errno : fd;
}

/*
 * The age after which PID's costly figures are read again: MAX_AGE_NS
 * spread over [3/4, 5/4) of it by pid, so that the rows read together in a
 * first refresh do not all come due together again.
 */
static uint64_t max_age_of(const struct pmaps_survey *s, int pid)
{
	uint32_t h = (uint32_t)pid * 2654435761u;

	return s->o.max_age_ns / 1024 * (768 + (h >> 23));
}

/* The last refresh's slot of PID, or NULL. PREV is sorted by pid. */
static const struct slot *find_prev(const struct pmaps_survey *s, int pid)
{
	size_t lo = 0, hi = s->nprev;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int p = s->prev[mid].row.pid;
		if (p == pid)
			return &s->prev[mid];
		if (p < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/*
 * The process a row is read from: the pid's NAME under the proc root and the
 * inode its directory had when listed. Its files are read through its
 * directory fd, opened on first need (a page walk, a breakdown), or on a
 * live procfs by path from the root (status, smaps_rollup, cgroup): then the
 * directory's inode is checked once all is read (pin_end()). A pid taken
 * by another process since the listing has another inode, and the process
 * listed held its pid, so every file read by path was its own, from the
 * listing up to a check that finds its inode. Another inode may also be the
 * same process's: the kernel drops an unused directory entry under memory
 * pressure and builds it anew on the next lookup. Either way, what was read
 * by path is read again, through the directory as it is now.
 */
struct pin {
	const char *name;
	uint64_t ino;
	int dfd;        /* -1: not opened */
	int by_path;    /* a file was read by path, and no DFD opened since */
};

/*
 * PN's directory fd, opened and checked on first call. -ESTALE when its
 * inode is no longer the listed one, else -errno when it cannot be opened
 * (-ENOENT: gone).
 */
static int pin_dir(const struct pmaps_survey *s, struct pin *pn)
{
	struct stat st;
	int r;

	if (pn->dfd >= 0)
		return pn->dfd;
	pn->dfd = openat(s->rootfd, pn->name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (pn->dfd < 0)
		return -errno;
	r = fstat(pn->dfd, &st) < 0 ? -errno : (uint64_t)st.st_ino != pn->ino ? -ESTALE : 0;
	if (r < 0) {
		close(pn->dfd);
		pn->dfd = -1;
		return r;
	}
	pn->by_path = 0; /* the process was still the listed one: so were the files read before */
	return pn->dfd;
}

/*
 * FILE of PN's process: by path on a live procfs while no directory fd is
 * open, else through it. Returns an fd or -errno (-ENOENT or -ESRCH: the
 * process has gone; -ESTALE: as pin_dir()).
 */
static int pin_open(const struct pmaps_survey *s, struct pin *pn, const char *file)
{
	char path[48];
	size_t n0 = strlen(pn->name), n1 = strlen(file);
	int fd;

	if (!s->live || pn->dfd >= 0 || n0 + 1 + n1 + 1 > sizeof(path)) {
		fd = pin_dir(s, pn);
		return fd < 0 ? fd : open_in(s, fd, file);
	}
	memcpy(path, pn->name, n0);
	path[n0] = '/';
	memcpy(path + n0 + 1, file, n1 + 1);
	fd = openat(s->rootfd, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -errno;
	pn->by_path = 1;
	return fd;
}

/* Done with PN, whatever was read: its directory fd closed, nothing checked. */
static void pin_close(struct pin *pn)
{
	if (pn->dfd >= 0)
		close(pn->dfd);
	pn->dfd = -1;
	pn->by_path = 0;
}

/*
 * Done with PN: its directory fd closed. Returns 0, or -ESTALE when a file
 * read by path may have been another process's (the listed inode has gone).
 */
static int pin_end(const struct pmaps_survey *s, struct pin *pn)
{
	struct stat st;
	int r = 0;

	if (pn->dfd >= 0)
		close(pn->dfd);
	else if (pn->by_path && (fstatat(s->rootfd, pn->name, &st, 0) < 0 ||
	                         (uint64_t)st.st_ino != pn->ino))
		r = -ESTALE;
	pn->dfd = -1;
	pn->by_path = 0;
	return r;
}

/*
 * PMAPS_SURVEY_FAULTS: stat's fault counts and start time of PN's process
 * into SL (unknown when unreadable).
 */
static void read_faults(struct pmaps_survey *s, struct slot *sl, struct pin *pn)
{
	struct pmaps__ident id;
	char buf[1024];
	ssize_t n;
	int fd = pin_open(s, pn, "stat");

	sl->have_flt = 0;
	if (fd < 0)
		return;
	n = pmaps__read(fd, buf, sizeof(buf));
	close(fd);
	if (n <= 0 || pmaps__parse_stat(buf, (size_t)n, &id, NULL) < 0 || !id.have_faults)
		return;
	sl->flt[0] = id.minflt;
	sl->flt[1] = id.majflt;
	sl->have_flt = 1;
	if (id.have_start && s->tick_hz && id.starttime <= UINT64_MAX / 1000000000u)
		sl->row.start_ns = id.starttime * 1000000000u / s->tick_hz;
}

/* A decimal (signed when SIGN) ending in a newline, the whole of file FILE of PN: 0, or -1. */
static int read_int(struct pmaps_survey *s, struct pin *pn, const char *file, int sign,
                    int64_t *out)
{
	char buf[32];
	const char *p = buf, *end;
	uint64_t v;
	ssize_t n;
	int neg = 0, fd = pin_open(s, pn, file);

	if (fd < 0)
		return -1;
	n = pmaps__read(fd, buf, sizeof(buf));
	close(fd);
	if (n <= 1 || buf[n - 1] != '\n')
		return -1;
	end = buf + n - 1;
	if (sign && *p == '-') {
		neg = 1;
		p++;
	}
	if (pmaps__parse_dec(&p, end, &v) < 0 || p != end || v > INT32_MAX)
		return -1;
	*out = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

/* PMAPS_SURVEY_OOM: oom_score and oom_score_adj of PN's process into SL (unknown when unreadable). */
static void read_oom(struct pmaps_survey *s, struct slot *sl, struct pin *pn)
{
	int64_t score, adj;

	sl->row.oom_known = 0;
	if (read_int(s, pn, "oom_score", 0, &score) < 0 ||
	    read_int(s, pn, "oom_score_adj", 1, &adj) < 0 || adj < -1000 || adj > 1000)
		return;
	sl->row.oom_score = (uint32_t)score;
	sl->row.oom_score_adj = (int32_t)adj;
	sl->row.oom_known = 1;
}

/* [P, P + LEN) into ROOM (CGROUP_ROOM bytes) and VIEW, cut and flagged when longer. */
static void keep_path(struct slot *sl, char *room, struct pmaps_view *view, const char *p,
                      size_t len)
{
	if (len >= CGROUP_ROOM) {
		len = CGROUP_ROOM - 1;
		sl->row.flags |= PMAPS_SURVEY_CGROUP_TRUNCATED;
	}
	memcpy(room, p, len);
	room[len] = '\0';
	view->len = len;
}

/*
 * Reads PN's cgroup file into SL: the v2 path ("0::/path") and the memory
 * controller's (a v1 "N:memory:/path" line where there is one, the v2 path
 * otherwise).
 */
static void read_cgroup(struct pmaps_survey *s, struct slot *sl, struct pin *pn)
{
	char buf[4096];
	struct pmaps_view v2, mem;
	ssize_t n;
	int fd = pin_open(s, pn, "cgroup");

	sl->row.cgroup.len = 0;
	sl->row.memcg.len = 0;
	sl->cgroup[0] = '\0';
	sl->memcg[0] = '\0';
	sl->row.flags &= ~(uint32_t)PMAPS_SURVEY_CGROUP_TRUNCATED;
	if (fd < 0)
		return;
	n = pmaps__read(fd, buf, sizeof(buf));
	close(fd);
	if (n <= 0)
		return;
	pmaps__cgroup_file_paths(buf, (size_t)n, &v2, &mem);
	if (v2.ptr)
		keep_path(sl, sl->cgroup, &sl->row.cgroup, v2.ptr, v2.len);
	if (mem.ptr) {
		keep_path(sl, sl->memcg, &sl->row.memcg, mem.ptr, mem.len);
	} else {
		memcpy(sl->memcg, sl->cgroup, sl->row.cgroup.len + 1);
		sl->row.memcg.len = sl->row.cgroup.len;
	}
}

/* The costly figures of SL from its breakdown, into the row. */
static void breakdown_values(const struct pmaps_survey *s, struct slot *sl)
{
	const struct pmaps_survey_breakdown *bd = &s->bd[sl->bdi].bd;
	struct pmaps_survey_row *r = &sl->row;
	static const struct {
		enum pmaps_survey_value sv;
		enum pmaps_xcol col;
	} from_bd[] = {
		{PMAPS_SV_PSS, PMAPS_XC_PSS},
		{PMAPS_SV_USS, PMAPS_XC_PRIVATE},
		{PMAPS_SV_SWAP_PSS, PMAPS_XC_SWAP_PSS},
		{PMAPS_SV_LAZYFREE, PMAPS_XC_LAZYFREE},
	};

	for (size_t i = 0; i < sizeof(from_bd) / sizeof(from_bd[0]); i++) {
		uint64_t v;
		r->present &= ~(1ull << from_bd[i].sv);
		r->v[from_bd[i].sv] = 0;
		if (sl->has_total && pmaps_survey_breakdown(bd, -1, from_bd[i].col, &v) == 1) {
			r->v[from_bd[i].sv] = v;
			r->present |= 1ull << from_bd[i].sv;
		}
	}
	r->source = sl->has_total ? (enum pmaps_source)PMAPS_ROW_SOURCE(sl->total.flags)
	                          : PMAPS_SRC_STATUS;
	if (sl->has_total && !(bd->xc_known & (1u << PMAPS_XC_PSS)))
		r->flags |= PMAPS_SURVEY_PARTIAL;
}

/* The costly figures of SL from its total, into the row. */
static void total_values(const struct pmaps_survey *s, struct slot *sl)
{
	if (s->o.flags & PMAPS_SURVEY_BREAKDOWN) {
		breakdown_values(s, sl);
		return;
	}

	struct pmaps_survey_row *r = &sl->row;
	const struct pmaps_group_row *t = &sl->total;
	static const struct {
		enum pmaps_survey_value sv;
		int key;
	} from_total[] = {
		{PMAPS_SV_PSS, PMAPS_F_PSS},
		{PMAPS_SV_USS, PMAPS_V_USS},
		{PMAPS_SV_SWAP_PSS, PMAPS_F_SWAP_PSS},
		{PMAPS_SV_LAZYFREE, PMAPS_F_LAZY_FREE},
	};

	for (size_t i = 0; i < sizeof(from_total) / sizeof(from_total[0]); i++) {
		uint64_t v;
		r->present &= ~(1ull << from_total[i].sv);
		r->v[from_total[i].sv] = 0;
		if (sl->has_total && pmaps_group_value(t, from_total[i].key, &v) == 1) {
			r->v[from_total[i].sv] = v;
			r->present |= 1ull << from_total[i].sv;
		}
	}
	r->source = sl->has_total ? PMAPS_ROW_SOURCE(t->flags) : PMAPS_SRC_STATUS;
	if (sl->has_total && !(t->present & (1ull << PMAPS_F_PSS)))
		r->flags |= PMAPS_SURVEY_PARTIAL;
}

/* The status figures of SL into its row. */
static void status_values(struct slot *sl)
{
	static const struct {
		enum pmaps_survey_value sv;
		enum pmaps_status_field f;
	} from_status[] = {
		{PMAPS_SV_RSS, PMAPS_ST_VM_RSS},     {PMAPS_SV_SWAP, PMAPS_ST_VM_SWAP},
		{PMAPS_SV_ANON, PMAPS_ST_RSS_ANON},  {PMAPS_SV_FILE, PMAPS_ST_RSS_FILE},
		{PMAPS_SV_SHMEM, PMAPS_ST_RSS_SHMEM}, {PMAPS_SV_VSIZE, PMAPS_ST_VM_SIZE},
		{PMAPS_SV_THREADS, PMAPS_ST_THREADS}, {PMAPS_SV_HWM, PMAPS_ST_VM_HWM},
		{PMAPS_SV_PAGE_TABLES, PMAPS_ST_VM_PTE}, {PMAPS_SV_LOCKED, PMAPS_ST_VM_LCK},
	};
	struct pmaps_survey_row *r = &sl->row;

	for (size_t i = 0; i < sizeof(from_status) / sizeof(from_status[0]); i++) {
		if (sl->st.present & (1ull << from_status[i].f)) {
			r->v[from_status[i].sv] = sl->st.v[from_status[i].f];
			r->present |= 1ull << from_status[i].sv;
		}
	}
	if (sl->have_flt) {
		r->v[PMAPS_SV_MINFLT] = sl->flt[0];
		r->v[PMAPS_SV_MAJFLT] = sl->flt[1];
		r->present |= 1ull << PMAPS_SV_MINFLT | 1ull << PMAPS_SV_MAJFLT;
	}
}

/* READ_AGAIN: the listed inode has gone (pin_dir()'s -ESTALE) */
enum read_result { READ_OK, READ_DENIED, READ_GONE, READ_LEFT, READ_FAILED, READ_AGAIN };

/* smaps_rollup of PN's process into SL->total. */
static enum read_result read_rollup(struct pmaps_survey *s, struct slot *sl, struct pin *pn)
{
	const struct pmaps_mapping *m;
	size_t have = 0;
	ssize_t n;
	int fd, r;

	fd = pin_open(s, pn, "smaps_rollup");
	if (fd == -ESTALE)
		return READ_AGAIN;
	if (fd == -EACCES || fd == -EPERM)
		return READ_DENIED;
	if (fd == -ENOENT && s->live)
		return READ_GONE; /* 4.14+ has it: the process has gone */
	if (fd < 0)
		return fd == -ESRCH ? READ_GONE : READ_FAILED;
	while ((n = pmaps__read(fd, s->rollup_text + have, sizeof(s->rollup_text) - have)) > 0) {
		have += (size_t)n;
		if (have == sizeof(s->rollup_text))
			break;
	}
	close(fd);
	if (n < 0)
		return errno == ESRCH ? READ_GONE : errno == EACCES ? READ_DENIED : READ_FAILED;
	if (have == 0)
		return READ_GONE; /* no mm: it exited, or is exiting */
	if (have == sizeof(s->rollup_text))
		return READ_FAILED; /* no kernel writes that much */
	pmaps__maps_set_mem(s->rollup, s->rollup_text, have);
	r = pmaps_maps_next(s->rollup, &m);
	if (r != 1)
		return READ_FAILED;
	pmaps_group_reset(s->group);
	if (pmaps_group_add(s->group, m) < 0 || pmaps_group_count(s->group) != 1)
		return READ_FAILED;
	memcpy(&sl->total, pmaps_group_get(s->group, 0), sizeof(sl->total));
	sl->total.flags |= PMAPS_GROUP_ROLLUP;
	sl->total.flags = (sl->total.flags & ~PMAPS__ROW_SRC_MASK) | PMAPS__ROW_SRC(PMAPS_SRC_ROLLUP);
	sl->total.mappings = 0;
	sl->total.vsize = 0;
	sl->total.key.ptr = "smaps_rollup";
	sl->total.key.len = 12;
	return READ_OK;
}

/* Ends the walk under way, whole or not: its directory fd goes, and the handle's own fds. */
static void walk_end(struct pmaps_survey *s)
{
	struct pmaps_proc *p = &s->proc;

	if (!s->walk_on)
		return;
	/* The walk's cursor may have moved to a live thread's directory: that fd is the handle's. */
	if (p->memfd != p->dirfd && p->memfd >= 0)
		close(p->memfd);
	if (p->statfd >= 0)
		close(p->statfd);
	if (p->dirfd >= 0)
		close(p->dirfd);
	p->dirfd = p->memfd = p->statfd = -1;
	s->walk_on = 0;
}

/*
 * The gentle page walk of the process under DFD into SL->total, as far as
 * LEFT of the budget goes (0: no limit). A walk the budget stops goes on in
 * the next refresh that reaches the same process (READ_LEFT meanwhile); one
 * walk at a time, so another large process waits its turn (READ_LEFT).
 */
static enum read_result read_walk(struct pmaps_survey *s, struct slot *sl, struct pin *pn,
                                  uint64_t left)
{
	struct pmaps_policy pol = PMAPS_POLICY_GENTLE;
	struct pmaps_cost k = {.size = sizeof(k)};
	const struct pmaps_mapping *m;
	struct pmaps_proc *p = &s->proc;
	enum read_result res = READ_OK;
	uint64_t pss, t0, pauses0 = 0, paused;
	int r = 0, fd;

	if (s->walk_on && (s->walk_pid != sl->row.pid || s->walk_ino != sl->ino))
		return READ_LEFT;
	s->walk_seen = 1;
	if (!s->walk_on) {
		int dfd = pin_dir(s, pn);
		if (dfd < 0)
			return dfd == -ESTALE ? READ_AGAIN : READ_GONE;
		/* Another user's process: refused here, before a cursor is opened for it. */
		fd = open_in(s, dfd, "pagemap");
		if (fd < 0)
			return fd == -EACCES || fd == -EPERM ? READ_DENIED
			       : (fd == -ENOENT && s->live) || fd == -ESRCH ? READ_GONE : READ_FAILED;
		close(fd);
		p->dirfd = p->memfd = fcntl(dfd, F_DUPFD_CLOEXEC, 0);
		if (p->dirfd < 0)
			return READ_FAILED;
		p->tid = 0;
		p->statfd = -1;
		p->pid = sl->row.pid;
		pmaps__msg(p->pidname, sizeof(p->pidname), "%d", sl->row.pid);
		s->walk_on = 1;
		s->walk_pid = sl->row.pid;
		s->walk_ino = sl->ino;
		if (!s->walk) {
			uint64_t a0 = pmaps__alloc_count();
			r = pmaps_maps_open(&s->walk, p, PMAPS_SRC_PAGES, 0);
			s->stats.allocations += (uint32_t)(pmaps__alloc_count() - a0);
			if (r < 0) {
				pmaps_maps_close(s->walk);
				s->walk = NULL;
			}
		} else {
			r = pmaps_maps_retarget(s->walk, p);
		}
		pmaps_group_reset(s->walk_group);
	}
	if (r == 0) {
		pol.budget_ns = left;
		r = pmaps_maps_set_policy(s->walk, &pol);
	}
	t0 = pmaps__now_ns();
	if (r == 0 && pmaps_maps_cost(s->walk, &k) == 0)
		pauses0 = k.pauses;
	if (r == 0) {
		while ((r = pmaps_maps_next(s->walk, &m)) > 0) {
			if ((m->flags & PMAPS_ROW_OVERLAP) || pmaps_group_add(s->walk_group, m) < 0) {
				r = -EAGAIN;
				break;
			}
		}
	}
	if (s->walk) {
		/* What this part of the walk took of the budget: its time less its pauses. */
		uint64_t took = pmaps__now_ns() - t0;
		pmaps_maps_cost(s->walk, &k);
		paused = (k.pauses - pauses0) * (uint64_t)PMAPS_POLICY_GENTLE_PAUSE_US * 1000u;
		took = took > paused ? took - paused : 0;
		s->spent += took;
		sl->row.cost_ns = r == -ETIME ? sl->row.cost_ns : k.ns;
	}
	if (r == -ETIME)
		return READ_LEFT; /* the walk stays under way */
	if (r == 0 && pmaps_group_count(s->walk_group) == 1) {
		memcpy(&sl->total, pmaps_group_get(s->walk_group, 0), sizeof(sl->total));
		if (pmaps__maps_pss_total(s->walk, &pss))
			sl->total.v[PMAPS_F_PSS] = pss;
		sl->total.flags =
			(sl->total.flags & ~PMAPS__ROW_SRC_MASK) | PMAPS__ROW_SRC(PMAPS_SRC_PAGES);
		sl->total.key.ptr = "pages";
		sl->total.key.len = 5;
	} else if (r == 0) {
		res = READ_GONE; /* no mapping at all: it exited */
	} else {
		res = r == -EACCES || r == -EPERM ? READ_DENIED
		      : r == -ESRCH || r == -ENODATA ? READ_GONE : READ_FAILED;
	}
	walk_end(s);
	return res;
}

/*
 * The explain run of the process under DFD into SL's breakdown: from smaps,
 * or (LARGE) the gentle page walk, whole. The session's time less its
 * pauses is added to the budget spent.
 */
static enum read_result read_breakdown(struct pmaps_survey *s, struct slot *sl, struct pin *pn,
                                       int large, int rollup)
{
	struct pmaps_explain_session **xs = &s->xs[large];
	struct pmaps_cost k = {.size = sizeof(k)};
	struct pmaps_proc *p = &s->proc;
	struct slot_bd *b = &s->bd[sl->bdi];
	const struct pmaps_explain *x = NULL;
	uint64_t t0 = pmaps__now_ns(), took, paused;
	int r, dfd = pin_dir(s, pn);

	if (dfd < 0)
		return dfd == -ESTALE ? READ_AGAIN : READ_GONE;
	p->dirfd = p->memfd = fcntl(dfd, F_DUPFD_CLOEXEC, 0);
	if (p->dirfd < 0)
		return READ_FAILED;
	p->tid = 0;
	p->statfd = -1;
	p->pid = sl->row.pid;
	pmaps__msg(p->pidname, sizeof(p->pidname), "%d", sl->row.pid);
	s->walk_on = 1; /* walk_end() closes the handle's fds */
	s->walk_pid = -1;
	if (!*xs) {
		uint64_t a0 = pmaps__alloc_count();
		r = pmaps_explain_open(xs, p, large ? PMAPS_EXPLAIN_FAST | PMAPS_EXPLAIN_GENTLE : 0);
		s->stats.allocations += (uint32_t)(pmaps__alloc_count() - a0);
		if (r == -ENOMEM || r == -EINVAL) {
			pmaps_explain_close(*xs);
			*xs = NULL;
		} else {
			r = 0; /* the process's own errors are the run's */
		}
	} else {
		r = pmaps_explain_retarget(*xs, p);
	}
	if (r == 0) {
		if (!large)
			pmaps__explain_rollup(*xs, rollup);
		r = pmaps_explain_run(*xs, &x);
	}
	took = pmaps__now_ns() - t0;
	paused = 0;
	if (*xs && pmaps_explain_cost(*xs, &k) == 0 && large)
		paused = k.pauses * (uint64_t)PMAPS_POLICY_GENTLE_PAUSE_US * 1000u;
	took = took > paused ? took - paused : 0;
	s->spent += took;
	sl->row.cost_ns = took;
	walk_end(s);
	if (r < 0)
		return r == -EACCES || r == -EPERM ? READ_DENIED
		       : r == -ESRCH || r == -ENODATA ? READ_GONE : READ_FAILED;
	/* The mappings are VMAs (what vm.max_map_count limits): [vsyscall] is none. */
	b->bd.nmappings = x->nmappings;
	for (int c = 0; c < PMAPS_X_COUNT; c++) {
		uint64_t gate = pmaps__explain_gate(*xs, c);
		memcpy(b->bd.v[c], x->v[c], sizeof(b->bd.v[c]));
		b->bd.mappings[c] = x->mappings[c] - gate;
		b->bd.nmappings -= gate;
	}
	memcpy(b->bd.total, x->total, sizeof(b->bd.total));
	/*
	 * smaps prints each mapping's Pss rounded down to a KiB; smaps_rollup
	 * sums them exactly first. Read right after at the same Rss, its Pss
	 * and SwapPss are the total's.
	 */
	if (x->have_rollup && x->rollup_apart == 0) {
		b->bd.total[PMAPS_XC_PSS] = x->rollup[PMAPS_F_PSS];
		b->bd.total[PMAPS_XC_SWAP_PSS] = x->rollup[PMAPS_F_SWAP_PSS];
	}
	b->bd.xc_known = x->xc_known;
	b->bd.swap_unknown = x->swap_unknown;
	b->runtime = x->runtime_kind;
	memcpy(b->runtime_version, x->runtime_version, sizeof(b->runtime_version));
	b->runtime_version[sizeof(b->runtime_version) - 1] = '\0';
	/* The row's costly figures are the breakdown's; TOTAL only says the source. */
	memset(&sl->total, 0, sizeof(sl->total));
	sl->total.flags = PMAPS__ROW_SRC(x->source);
	/* What a smaps read took, for the next refresh's choice (a walk's figures say nothing of it). */
	if (!large) {
		b->hold_ns = k.hold_ns;
		b->ns = k.ns;
		b->rss = sl->st.v[PMAPS_ST_VM_RSS];
	}
	return READ_OK;
}

/*
 * The costly read of SL's process PN, if the budget allows. Returns 0,
 * -ESRCH when the process has gone (its row is dropped), or -ESTALE when its
 * directory no longer has the listed inode (struct pin).
 */
static int read_costly(struct pmaps_survey *s, struct slot *sl, struct pin *pn, uint64_t now,
                       int waited)
{
	const struct pmaps_survey_opts *o = &s->o;
	enum read_result res;
	uint64_t t0, left = 0;
	int large = 0, rollup = 1, breakdown = (o->flags & PMAPS_SURVEY_BREAKDOWN) != 0;

	if (o->budget_ns) {
		if (s->spent >= o->budget_ns) {
			sl->row.flags |= PMAPS_SURVEY_SKIPPED;
			return 0;
		}
		left = o->budget_ns - s->spent;
	}
	if (o->hold_ns && breakdown) {
		/*
		 * smaps holds the lock for one read() at a time, through the
		 * mappings that read prints: too long for one that holds a
		 * large mapping. Priced, or known from the last read of it
		 * (its longest read()). smaps_rollup holds it through the whole
		 * walk: read only where that walk is short (priced, and the
		 * last smaps read's whole time).
		 */
		struct pmaps_cost k = {.size = sizeof(k)}, kr = {.size = sizeof(kr)};
		struct slot_bd *b = &s->bd[sl->bdi];
		uint64_t rss = sl->st.v[PMAPS_ST_VM_RSS];
		/*
		 * The last smaps read's times stand (a page walk in between keeps
		 * them: the price alone may say smaps is fine, and the next read
		 * say otherwise, and so on) until the process has shrunk to half
		 * its size then; only without them is the read priced.
		 */
		if (rss < b->rss / 2)
			b->hold_ns = b->ns = b->rss = 0;
		/* What was measured goes before what is priced: a price near the limit wavers. */
		if (b->rss) {
			large = b->hold_ns > o->hold_ns;
			rollup = b->ns <= o->hold_ns;
		} else {
			pmaps_cost_estimate(&sl->st, b->bd.nmappings, PMAPS_SRC_SMAPS, NULL, &k);
			pmaps_cost_estimate(&sl->st, b->bd.nmappings, PMAPS_SRC_ROLLUP, NULL, &kr);
			large = k.hold_ns > o->hold_ns;
			rollup = kr.hold_ns <= o->hold_ns;
		}
		/*
		 * A gentle walk is read whole: one starts a refresh (nothing read
		 * yet), or had waited since the last one; else it waits, first
		 * in line next time.
		 */
		if (large && s->spent && !waited) {
			sl->row.flags |= PMAPS_SURVEY_SKIPPED | PMAPS_SURVEY_LARGE;
			return 0;
		}
	} else if (o->hold_ns) {
		/*
		 * Priced from VmRSS and VmPTE, or known: the last smaps_rollup read
		 * of it took longer (the price is one machine's; this may be slower).
		 */
		struct pmaps_cost k = {.size = sizeof(k)};
		pmaps_cost_estimate(&sl->st, 0, PMAPS_SRC_ROLLUP, NULL, &k);
		large = k.hold_ns > o->hold_ns ||
		        (sl->has_total && PMAPS_ROW_SOURCE(sl->total.flags) == PMAPS_SRC_ROLLUP &&
		         sl->row.cost_ns > o->hold_ns) ||
		        (s->walk_on && s->walk_pid == sl->row.pid);
	}
	t0 = pmaps__now_ns();
	if (breakdown) {
		if (large)
			sl->row.flags |= PMAPS_SURVEY_LARGE;
		res = read_breakdown(s, sl, pn, large, rollup);
	} else if (large) {
		sl->row.flags |= PMAPS_SURVEY_LARGE;
		res = read_walk(s, sl, pn, left);
	} else {
		res = read_rollup(s, sl, pn);
		sl->row.cost_ns = pmaps__now_ns() - t0;
		s->spent += sl->row.cost_ns;
	}
	switch (res) {
	case READ_OK:
		sl->has_total = 1;
		sl->denied = 0;
		sl->read_at = now;
		for (size_t i = 0; i < N_WATCHED; i++)
			sl->at_read[i] = sl->st.v[watched[i]];
		sl->row.flags |= PMAPS_SURVEY_FRESH;
		s->stats.read++;
		return 0;
	case READ_DENIED:
		sl->row.flags &= ~PMAPS_SURVEY_LARGE; /* never read: nothing was walked */
		sl->has_total = 0;
		sl->denied = 1;
		sl->read_at = now;
		for (size_t i = 0; i < N_WATCHED; i++)
			sl->at_read[i] = sl->st.v[watched[i]];
		return 0;
	case READ_GONE:
		return -ESRCH;
	case READ_AGAIN:
		return -ESTALE;
	case READ_FAILED:
		sl->row.flags |= PMAPS_SURVEY_FAILED;
		return 0;
	case READ_LEFT:
		break;
	}
	sl->row.flags |= PMAPS_SURVEY_SKIPPED;
	return 0;
}

/*
 * The statm counters of SL's status (what statm prints: VmSize, VmRSS and
 * RssFile + RssShmem in pages), or zeros when status lacks one of them.
 */
static void statm_of_status(const struct pmaps_survey *s, struct slot *sl)
{
	const struct pmaps_status *st = &sl->st;
	uint64_t need = 1ull << PMAPS_ST_VM_SIZE | 1ull << PMAPS_ST_VM_RSS |
	                1ull << PMAPS_ST_RSS_FILE | 1ull << PMAPS_ST_RSS_SHMEM;

	memset(sl->statm, 0, sizeof(sl->statm));
	if ((st->present & need) != need || !s->page)
		return;
	sl->statm[0] = st->v[PMAPS_ST_VM_SIZE] / s->page;
	sl->statm[1] = st->v[PMAPS_ST_VM_RSS] / s->page;
	sl->statm[2] = (st->v[PMAPS_ST_RSS_FILE] + st->v[PMAPS_ST_RSS_SHMEM]) / s->page;
}

/*
 * PROC_ROOT/NAME/statm's first three counters into SM. Returns 1, 0 when the
 * process has gone (or has no memory left), -1 when the text is not statm's.
 */
static int read_statm(const struct pmaps_survey *s, const char *name, uint64_t sm[3])
{
	struct pin pn = {name, 0, -1, 0}; /* by path, on a live procfs: no inode checked */
	char buf[256];
	const char *p, *end;
	ssize_t n;
	int fd = pin_open(s, &pn, "statm");

	pin_close(&pn);
	if (fd < 0)
		return fd == -ENOENT || fd == -ESRCH ? 0 : -1;
	n = pmaps__read(fd, buf, sizeof(buf));
	close(fd);
	if (n <= 0)
		return n == 0 || errno == ESRCH ? 0 : -1;
	p = buf;
	end = buf + n;
	for (int i = 0; i < 3; i++) {
		if (pmaps__parse_dec(&p, end, &sm[i]) <= 0 || p == end || *p != ' ')
			return -1;
		p++;
	}
	/* No address space: a zombie, or one exiting. */
	return sm[0] ? 1 : 0;
}

/* Whether SL's costly figures are due. */
static int is_due(const struct pmaps_survey *s, const struct slot *sl, uint64_t now)
{
	if (!sl->read_at || (s->walk_on && s->walk_pid == sl->row.pid))
		return 1;
	if (now - sl->read_at >= max_age_of(s, sl->row.pid))
		return 1;
	for (size_t i = 0; i < N_WATCHED; i++)
		if (sl->at_read[i] != sl->st.v[watched[i]])
			return 1;
	return 0;
}

/*
 * Status from FD (closed here) into SL. Returns 1 for a process to list, 0
 * to leave out (a kernel thread, one gone or with no memory left), 2 for a
 * leader that has exited while other threads of it still run (a zombie with
 * Threads above 1): read it through one of them.
 */
static int status_from(struct pmaps_survey *s, struct slot *sl, int fd)
{
	struct pmaps__status_who who = {0};
	int r;

	r = pmaps__status_parse_who(fd, &sl->st, &who, NULL, 0);
	close(fd);
	if (r < 0)
		return 0;
	if (who.kthread) {
		s->stats.kernel_threads++;
		return 0;
	}
	if (!(sl->st.present & (1ull << PMAPS_ST_VM_RSS))) {
		if (who.state == 'Z' && (sl->st.present & (1ull << PMAPS_ST_THREADS)) &&
		    sl->st.v[PMAPS_ST_THREADS] > 1)
			return 2;
		/* No memory: a kernel thread before 6.9 says Kthread nowhere; or a zombie. */
		if (who.state != 'Z' && who.state != 'X' && !(sl->st.present & (1ull << PMAPS_ST_VM_SIZE)))
			s->stats.kernel_threads++;
		return 0;
	}
	memcpy(sl->comm, who.name, who.name_len + 1);
	sl->row.comm.len = who.name_len;
	sl->row.state = who.state;
	sl->row.uid = (uint32_t)sl->st.v[PMAPS_ST_UID];
	return 1;
}

/* Status of the process under DFD into SL: as status_from(). */
static int read_status(struct pmaps_survey *s, struct slot *sl, int dfd)
{
	int fd = open_in(s, dfd, "status");

	return fd < 0 ? 0 : status_from(s, sl, fd);
}

/*
 * A directory fd on a thread of the process under DFD other than its
 * leader PID that still runs (task/TID), or -1: its memory files are the
 * process's.
 */
static int live_thread(const struct pmaps_survey *s, int dfd, int pid)
{
	struct pmaps_proc p = {.rootfd = s->rootfd, .dirfd = dfd, .memfd = dfd, .statfd = -1,
	                       .pid = pid, .live = s->live};
	int fd;

	return pmaps__live_thread(&p, &fd) ? fd : -1;
}

/*
 * Points the row's views at its own slot and at its breakdown in TAB (NULL:
 * none kept), after either moved.
 */
static void fix_views(struct slot *sl, const struct slot_bd *tab)
{
	const struct slot_bd *b = tab && sl->has_total ? &tab[sl->bdi] : NULL;

	sl->row.comm.ptr = sl->comm;
	sl->row.cgroup.ptr = sl->cgroup;
	sl->row.memcg.ptr = sl->memcg;
	sl->row.status = &sl->st;
	sl->row.total = sl->has_total && !tab ? &sl->total : NULL;
	sl->row.breakdown = b ? &b->bd : NULL;
	sl->row.mappings = b ? b->bd.nmappings : 0;
	sl->row.runtime = b ? b->runtime : PMAPS_RUNTIME_NONE;
	sl->row.runtime_version.ptr = b ? b->runtime_version : "";
	sl->row.runtime_version.len = b ? strlen(b->runtime_version) : 0;
}

/*
 * SL (whose old row is OLD, or NULL) is due a costly read: asks the front
 * end whether it wants it, then reads it through PN now, or leaves it for
 * after the pass when reads wait from the last refresh (BACKLOG) and it is
 * not one of them. Returns 0, or as read_costly().
 */
static int when_due(struct pmaps_survey *s, struct slot *sl, const struct slot *old,
                    struct pin *pn, uint64_t now, uint32_t backlog)
{
	int waited = old && (old->row.flags & PMAPS_SURVEY_SKIPPED);
	int walking = s->walk_on && s->walk_pid == sl->row.pid && s->walk_ino == sl->ino;

	if (s->want) {
		fix_views(sl, s->bd);
		status_values(sl);
		if (!s->want(s->want_ctx, &sl->row)) {
			s->stats.unwanted++;
			return 0;
		}
	}
	if (walking) {
		/*
		 * Its walk goes on after every other read of this refresh, with
		 * what they leave of the budget: one large process never holds
		 * the others' figures back.
		 */
		s->walk_slot = s->n;
		s->walk_seen = 1;
		return 0;
	}
	/* While reads wait from the last refresh, they go first. */
	if (backlog && !waited) {
		s->waiting[s->nwaiting++] = (uint32_t)s->n;
		return 0;
	}
	sl->row.flags &= ~PMAPS_SURVEY_LARGE;
	return read_costly(s, sl, pn, now, waited);
}

enum take { TAKE_ROW, TAKE_NONE, TAKE_GONE, TAKE_AGAIN };

/*
 * The process of PN (pid PID; OLD its row of the last refresh, or NULL)
 * into CUR's next slot: its status, then what is due. PN's directory fd,
 * when open, is checked; without one, status is read by path. Returns
 * TAKE_ROW for a row, TAKE_NONE for a process not listed (a kernel thread,
 * a zombie, one this reader may not see), TAKE_GONE for one gone, and
 * TAKE_AGAIN when files were read by path and the directory no longer has
 * the listed inode: what was read may be another process's. PN is done
 * with on return.
 */
static enum take take_row(struct pmaps_survey *s, struct pin *pn, int pid, const struct slot *old,
                          uint64_t now, uint32_t backlog)
{
	struct slot *sl = &s->cur[s->n];
	int k, r;

	memset(&sl->row, 0, sizeof(sl->row));
	sl->have_flt = 0;
	sl->row.pid = pid;
	sl->bdi = (uint32_t)s->n; /* below UINT32_MAX: grow() */
	if (pn->dfd < 0) {
		/* By path: a kernel thread, a zombie or one gone is left out with no directory opened. */
		int fd = pin_open(s, pn, "status");
		if (fd < 0) {
			pin_close(pn);
			return fd == -ESTALE ? TAKE_AGAIN
			       : fd == -ENOENT || fd == -ESRCH ? TAKE_GONE : TAKE_NONE;
		}
		k = status_from(s, sl, fd);
	} else {
		k = read_status(s, sl, pn->dfd);
	}
	if (k == 2) {
		/* The leader has exited; a thread of it reads for the process. */
		int dfd = pin_dir(s, pn);
		int tfd = dfd >= 0 ? live_thread(s, dfd, pid) : -1;
		if (dfd == -ESTALE)
			return TAKE_AGAIN;
		pin_close(pn);
		pn->dfd = tfd;
		k = tfd >= 0 ? read_status(s, sl, tfd) : 0;
	}
	if (k != 1) {
		pin_close(pn);
		return TAKE_NONE;
	}
	sl->ino = pn->ino;
	statm_of_status(s, sl);
	/* The same process: the same directory inode and Name (an exec may rename it). */
	if (old && old->ino == sl->ino && old->row.comm.len == sl->row.comm.len &&
	    memcmp(old->comm, sl->comm, sl->row.comm.len) == 0) {
		sl->total = old->total;
		if (s->bd)
			s->bd[sl->bdi] = s->bdprev[old->bdi];
		sl->read_at = old->read_at;
		memcpy(sl->at_read, old->at_read, sizeof(sl->at_read));
		sl->has_total = old->has_total;
		sl->denied = old->denied;
		sl->row.cost_ns = old->row.cost_ns;
		sl->row.flags = old->row.flags & PMAPS_SURVEY_LARGE;
	} else {
		sl->read_at = 0;
		sl->has_total = sl->denied = 0;
		if (s->bd)
			memset(&s->bd[sl->bdi], 0, sizeof(s->bd[sl->bdi]));
		sl->row.flags = PMAPS_SURVEY_NEW;
	}
	if (s->o.flags & PMAPS_SURVEY_CGROUP)
		read_cgroup(s, sl, pn);
	if (s->o.flags & PMAPS_SURVEY_FAULTS)
		read_faults(s, sl, pn);
	if (s->o.flags & PMAPS_SURVEY_OOM)
		read_oom(s, sl, pn);
	if (!is_due(s, sl, now)) {
		s->stats.kept++;
	} else if ((r = when_due(s, sl, old, pn, now, backlog)) < 0) {
		pin_close(pn);
		return r == -ESTALE ? TAKE_AGAIN : TAKE_GONE;
	}
	return pin_end(s, pn) < 0 ? TAKE_AGAIN : TAKE_ROW;
}

static int by_pid(const void *a, const void *b)
{
	int x = ((const struct slot *)a)->row.pid, y = ((const struct slot *)b)->row.pid;
	return (x > y) - (x < y);
}

/* Waiting reads: never read first, then the oldest. */
static int by_age(const void *a, const void *b, void *ctx)
{
	const struct slot *cur = ctx;
	const struct slot *x = &cur[*(const uint32_t *)a];
	const struct slot *y = &cur[*(const uint32_t *)b];
	return (x->read_at > y->read_at) - (x->read_at < y->read_at);
}

int pmaps_survey_refresh(struct pmaps_survey *s)
{
	uint64_t t0 = pmaps__now_ns(), now = t0;
	uint32_t allocations = 0, backlog = s->backlog;
	size_t made;
	const char *name;
	int sorted = 1, last_pid = 0, r;

	struct pmaps_survey_stats last = s->stats;

	memset(&s->stats.processes, 0,
	       sizeof(s->stats) - offsetof(struct pmaps_survey_stats, processes));
	s->stats.allocations = 0;
	s->errmsg[0] = '\0';
	s->spent = 0;
	s->nwaiting = 0;
	s->n = 0;
	s->walk_slot = SIZE_MAX;
	s->walk_seen = 0;
	r = pmaps__dir_rewind(&s->dir);
	while (r >= 0 && (r = pmaps__dir_next(&s->dir, &name)) > 0) {
		struct slot *sl;
		const struct slot *old;
		int pid = pmaps__parse_pid(name);
		struct pmaps_survey_stats before;
		size_t nwaiting, walk_slot;
		uint64_t ino = s->dir.ino;
		enum take t;
		struct pin pn;
		int k, walk_seen;
		if (pid <= 0)
			continue;
		if (s->n == s->cap && (r = grow(s, s->n + 1)) < 0)
			break;
		old = find_prev(s, pid);
		if (s->live && old && old->ino == ino && old->statm[0] && old->read_at &&
		    !(old->row.flags & (PMAPS_SURVEY_SKIPPED | PMAPS_SURVEY_FAILED))) {
			/* Listed before: unless its counters moved, the row stands. */
			uint64_t sm[3];
			/* 0: gone, or a leader gone while its threads run: the full read tells. */
			k = read_statm(s, name, sm);
			if (k == 1 && memcmp(sm, old->statm, sizeof(sm)) == 0) {
				sl = &s->cur[s->n];
				*sl = *old;
				if (s->bd)
					s->bd[s->n] = s->bdprev[old->bdi];
				sl->bdi = (uint32_t)s->n;
				sl->row.flags &= PMAPS_SURVEY_LARGE | PMAPS_SURVEY_CGROUP_TRUNCATED;
				if ((s->o.flags & (PMAPS_SURVEY_FAULTS | PMAPS_SURVEY_FAULTS_AGED)) ==
				    PMAPS_SURVEY_FAULTS) {
					/* Faults move without the counters: read again, as statm, by path. */
					struct pin fp = {name, 0, -1, 0};
					read_faults(s, sl, &fp);
					pin_close(&fp);
				}
				if (now - old->read_at < max_age_of(s, pid)) {
					s->stats.kept++;
					goto counted;
				}
				/*
				 * Too old: status too is read again below, so that a
				 * name, uid, state or swap that moved without the
				 * counters is never older than max_age either.
				 */
			}
		}
		/*
		 * What a try that has to be made again counted is counted by
		 * the next one alone.
		 */
		before = s->stats;
		nwaiting = s->nwaiting;
		walk_slot = s->walk_slot;
		walk_seen = s->walk_seen;
		pn = (struct pin){name, ino, -1, 0};
		t = s->live ? take_row(s, &pn, pid, old, now, backlog) : TAKE_AGAIN;
		if (t == TAKE_AGAIN) {
			/*
			 * A tree of files, or a live directory that no longer has
			 * the listed inode: through the directory as it is now
			 * (its inode as stat gives it: a listing's may differ).
			 */
			struct stat st;
			s->stats = before;
			s->nwaiting = nwaiting;
			s->walk_slot = walk_slot;
			s->walk_seen = walk_seen;
			pn = (struct pin){name, 0, -1, 0};
			pn.dfd = openat(s->rootfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
			if (pn.dfd < 0 || fstat(pn.dfd, &st) < 0) {
				t = errno == ENOENT || errno == ESRCH ? TAKE_GONE : TAKE_NONE;
				pin_close(&pn);
			} else {
				pn.ino = (uint64_t)st.st_ino;
				t = take_row(s, &pn, pid, old, now, backlog);
			}
		}
		if (t == TAKE_GONE)
			s->stats.vanished++;
		if (t != TAKE_ROW)
			continue;
counted:
		if (pid < last_pid)
			sorted = 0;
		last_pid = pid;
		s->n++;
	}
	if (r < 0) {
		/* Keep the last refresh's rows: swap nothing. */
		if (r == -ENOMEM)
			pmaps__msg(s->errmsg, sizeof(s->errmsg), "survey: no memory for %zu rows",
			           s->n + 1);
		else
			pmaps__msg(s->errmsg, sizeof(s->errmsg), "survey: listing the proc root: %s",
			           pmaps_strerror(r));
		s->n = 0;
		s->stats = last; /* what the rows still there came from */
		return r == -ENOMEM ? r : -EIO;
	}
	/* The reads left waiting, oldest first, as far as the budget goes. */
	if (s->nwaiting) /* none before the tables first grew: WAITING is NULL */
		qsort_r(s->waiting, s->nwaiting, sizeof(*s->waiting), by_age, s->cur);
	for (size_t i = 0; i < s->nwaiting; i++) {
		struct slot *sl = &s->cur[s->waiting[i]];
		char pidname[16];
		struct pin wp = {pidname, sl->ino, -1, 0};
		struct pmaps_survey_stats before;
		struct slot was;
		if (sl->row.pid < 0)
			continue; /* gone in the pass */
		if (s->o.budget_ns && s->spent >= s->o.budget_ns) {
			sl->row.flags |= PMAPS_SURVEY_SKIPPED;
			continue;
		}
		pmaps__msg(pidname, sizeof(pidname), "%d", sl->row.pid);
		sl->row.flags &= ~PMAPS_SURVEY_LARGE;
		/* The same process as in the pass, not one that took its pid since: WP's inode. */
		was = *sl;
		before = s->stats;
		r = read_costly(s, sl, &wp, now, 0);
		if (r == -ESTALE || (r == 0 && pin_end(s, &wp) < 0)) {
			/*
			 * What was read may be another process's: the row stays as the
			 * pass left it, its costly figures left for the next refresh.
			 */
			*sl = was;
			s->stats = before;
			sl->row.flags |= PMAPS_SURVEY_SKIPPED;
		} else if (r < 0) {
			sl->row.pid = -1; /* gone: dropped below */
			s->stats.vanished++;
		}
		pin_close(&wp);
	}
	/* Then the walk under way, as far as the budget goes. */
	if (s->walk_slot != SIZE_MAX && s->cur[s->walk_slot].row.pid < 0) {
		walk_end(s); /* gone in the pass */
	} else if (s->walk_slot != SIZE_MAX) {
		struct slot *sl = &s->cur[s->walk_slot];
		char pidname[16];
		struct pin wp = {pidname, sl->ino, -1, 0};
		pmaps__msg(pidname, sizeof(pidname), "%d", sl->row.pid);
		/*
		 * A walk goes on through the fds it holds; one to start opens
		 * WP's directory, checked. Another inode: the walk waits for the
		 * next refresh, which knows the process by it.
		 */
		r = read_costly(s, sl, &wp, now, 0);
		if (r == 0 && pin_end(s, &wp) < 0)
			r = -ESTALE;
		pin_close(&wp);
		if (r == -ESTALE) {
			sl->row.flags |= PMAPS_SURVEY_SKIPPED;
			walk_end(s);
		} else if (r < 0) {
			sl->row.pid = -1;
			s->stats.vanished++;
			walk_end(s);
		}
	}
	/* A walk whose process this refresh did not reach (gone, or no longer wanted) ends. */
	if (s->walk_on && !s->walk_seen)
		walk_end(s);
	/* Drop the rows of processes that went during the late reads, and order by pid. */
	made = s->n;
	{
		size_t j = 0;
		for (size_t i = 0; i < s->n; i++) {
			if (s->cur[i].row.pid < 0)
				continue;
			if (i != j)
				s->cur[j] = s->cur[i];
			j++;
		}
		s->n = j;
	}
	if (!sorted)
		qsort(s->cur, s->n, sizeof(*s->cur), by_pid);
	now = pmaps__now_ns();
	s->backlog = 0;
	for (size_t i = 0; i < s->n; i++) {
		struct slot *sl = &s->cur[i];
		fix_views(sl, s->bd);
		if (sl->denied)
			sl->row.flags |= PMAPS_SURVEY_DENIED;
		status_values(sl);
		total_values(s, sl);
		sl->row.age_ns = sl->read_at && !(sl->row.flags & PMAPS_SURVEY_FRESH)
		                 ? now - sl->read_at : 0;
		if (sl->row.flags & PMAPS_SURVEY_SKIPPED) {
			s->stats.skipped++;
			s->backlog++;
		}
		if (sl->row.flags & PMAPS_SURVEY_DENIED)
			s->stats.denied++;
		if (sl->row.flags & PMAPS_SURVEY_LARGE)
			s->stats.large++;
		if (sl->row.flags & PMAPS_SURVEY_FAILED)
			s->stats.failed++;
	}
	/* This refresh's rows become the last one's; the next builds in the other table. */
	{
		struct slot *t = s->prev;
		struct slot_bd *tb = s->bdprev;
		s->prev = s->cur;
		s->nprev = s->n;
		s->cur = t;
		s->bdprev = s->bd;
		s->nbdprev = made;
		s->bd = tb;
	}
	s->have_mi = 0;
	if (s->o.flags & PMAPS_SURVEY_MEMINFO) {
		int fd = pmaps__open_regular(s->rootfd, "meminfo", s->live, NULL, 0);
		if (fd >= 0) {
			s->have_mi = pmaps__meminfo_parse(fd, &s->mi, NULL, 0) == 0;
			close(fd);
		}
	}
	allocations = s->stats.allocations;
	s->stats.refreshes++;
	s->stats.processes = (uint32_t)s->nprev;
	s->stats.read_ns = s->spent;
	s->stats.budget_ns = s->o.budget_ns;
	s->stats.hold_ns = s->o.hold_ns;
	s->stats.allocations = allocations;
	s->stats.wall_ns = pmaps__now_ns() - t0;
	return (int)s->nprev;
}

int pmaps_survey_breakdown(const struct pmaps_survey_breakdown *b, int cat, enum pmaps_xcol col,
                           uint64_t *v)
{
	*v = 0;
	if (!b || cat < -1 || cat >= PMAPS_X_COUNT || (unsigned)col >= PMAPS_XC_COUNT ||
	    !(b->xc_known & (1u << col)))
		return 0;
	if (col == PMAPS_XC_SWAP && (cat < 0 ? b->swap_unknown : (b->swap_unknown >> cat) & 1))
		return 0;
	*v = cat < 0 ? b->total[col] : b->v[cat][col];
	return 1;
}

uint64_t pmaps_survey_breakdown_mappings(const struct pmaps_survey_breakdown *b, int cat)
{
	if (!b || cat < -1 || cat >= PMAPS_X_COUNT)
		return 0;
	return cat < 0 ? b->nmappings : b->mappings[cat];
}

int pmaps_survey_want(struct pmaps_survey *s,
                      int (*want)(void *ctx, const struct pmaps_survey_row *row), void *ctx)
{
	if (!s)
		return -EINVAL;
	s->want = want;
	s->want_ctx = ctx;
	return 0;
}

size_t pmaps_survey_count(const struct pmaps_survey *s)
{
	return s ? s->nprev : 0;
}

const struct pmaps_survey_row *pmaps_survey_get(const struct pmaps_survey *s, size_t i)
{
	return s && i < s->nprev ? &s->prev[i].row : NULL;
}

const struct pmaps_survey_row *pmaps_survey_find(const struct pmaps_survey *s, int pid)
{
	const struct slot *sl = s ? find_prev(s, pid) : NULL;

	return sl ? &sl->row : NULL;
}

const struct pmaps_meminfo *pmaps_survey_meminfo(const struct pmaps_survey *s)
{
	return s && s->have_mi ? &s->mi : NULL;
}

int pmaps_survey_stats(const struct pmaps_survey *s, struct pmaps_survey_stats *out)
{
	struct pmaps_survey_stats st;

	if (!s || !out || !pmaps__size_ok(out->size, sizeof(struct pmaps_survey_stats)))
		return -EINVAL;
	st = s->stats;
	st.size = out->size;
	pmaps__copy_out(out, out->size, &st, sizeof(st));
	return 0;
}

const char *pmaps_survey_errmsg(const struct pmaps_survey *s)
{
	return s ? s->errmsg : "";
}

/* SUM->v[k] += V[k] for each figure in MASK, saturating. */
static void sum_values(struct pmaps_survey_sum *sum, uint64_t mask, const uint64_t *v)
{
	for (unsigned k = 0; k < PMAPS_SV_COUNT; k++) {
		if (!(mask & (1ull << k)))
			continue;
		if (__builtin_add_overflow(sum->v[k], v[k], &sum->v[k])) {
			sum->v[k] = UINT64_MAX;
			sum->saturated = 1;
		}
	}
}

int pmaps_survey_sum_merge(struct pmaps_survey_sum *sum, const struct pmaps_survey_sum *from)
{
	if (!sum || !from || !pmaps__size_ok(sum->size, sizeof(struct pmaps_survey_sum)) ||
	    !pmaps__size_ok(from->size, sizeof(struct pmaps_survey_sum)))
		return -EINVAL;
	if (!from->processes)
		return 0;
	sum_values(sum, from->seen, from->v);
	sum->saturated |= from->saturated;
	sum->present = sum->processes ? sum->present & from->present : from->present;
	sum->seen |= from->seen;
	sum->processes += from->processes;
	return 0;
}

int pmaps_survey_sum_add(struct pmaps_survey_sum *sum, const struct pmaps_survey_row *row)
{
	if (!sum || !row || !pmaps__size_ok(sum->size, sizeof(struct pmaps_survey_sum)))
		return -EINVAL;
	sum_values(sum, row->present, row->v);
	sum->present = sum->processes ? sum->present & row->present : row->present;
	sum->seen |= row->present;
	sum->processes++;
	return 0;
}
