/* SPDX-License-Identifier: MIT */
/*
 * internal.h - what libpmaps' files share and its tests may use, but is not API.
 * Kernel interfaces newer than the installed headers are in uapi.h; the
 * knobs only tests turn, in testhooks.h.
 */
#ifndef PMAPS_INTERNAL_H
#define PMAPS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pmaps.h"
#include "uapi.h"

/*
 * What this version knows fits the frozen capacities of ABI 0, and each
 * bit mask over an enum has a bit for every entry of its array.
 */
_Static_assert(PMAPS_F_COUNT <= PMAPS_F_MEASURED && PMAPS_F_MAX <= 64, "smaps fields");
_Static_assert(PMAPS_V_COUNT - PMAPS_F_MAX <= PMAPS_F_MAX - PMAPS_F_MEASURED,
               "measured values fit v[] above the smaps fields");
_Static_assert(PMAPS_SRC_COUNT + 1 <= 0xf, "a source fits its 4 bits of a row's flags");

/* A row's FLAGS bits that name SOURCE (PMAPS_ROW_SOURCE()). */
#define PMAPS__ROW_SRC(source) ((unsigned)((source) + 1) << PMAPS_ROW_SOURCE_SHIFT)
#define PMAPS__ROW_SRC_MASK (0xfu << PMAPS_ROW_SOURCE_SHIFT)
/* The index in v[] (and bit of PRESENT) of measured value KEY. */
#define PMAPS__MEASURED(key) (PMAPS_F_MEASURED + (key) - PMAPS_F_MAX)
_Static_assert(PMAPS_ST_COUNT <= PMAPS_ST_MAX && PMAPS_ST_MAX <= 64, "status figures");
_Static_assert(PMAPS_PC_COUNT <= PMAPS_PC_MAX && PMAPS_PC_MAX <= 64, "page counts");
_Static_assert(PMAPS_X_COUNT <= PMAPS_X_MAX, "explain categories");
_Static_assert(PMAPS_XC_COUNT <= PMAPS_XC_MAX, "explain state columns");
_Static_assert(PMAPS_XP_COUNT <= PMAPS_XP_MAX && PMAPS_XP_MAX <= 32, "explain page columns");
_Static_assert(PMAPS_NOTE_COUNT <= PMAPS_NOTE_MAX, "explain notes");
_Static_assert(PMAPS_BOOK_COUNT <= PMAPS_BOOK_MAX, "books");
_Static_assert(PMAPS_BV_COUNT <= PMAPS_BV_MAX && PMAPS_BV_MAX <= 128, "book figures");
_Static_assert(PMAPS_JP_COUNT <= PMAPS_JP_MAX, "join parts");
_Static_assert(PMAPS_PS_COUNT <= PMAPS_PS_MAX, "page states");

/*
 * The size each struct a caller allocates and the library fills had in
 * ABI 0 (pmaps.h, Conventions): a caller's size below it is -EINVAL. When a
 * member is added to one of them, its line here becomes offsetof() that
 * member, and stays so.
 */
#define PMAPS__STATUS_SIZE0 sizeof(struct pmaps_status)
#define PMAPS__SUMMARY_SIZE0 sizeof(struct pmaps_page_summary)
#define PMAPS__GROUP_ROW_SIZE0 sizeof(struct pmaps_group_row)
#define PMAPS__EXPLAIN_SIZE0 offsetof(struct pmaps_explain, source)
/* Since 0.4.0: their first size is the whole struct. */
#define PMAPS__BOOKS_SIZE0 sizeof(struct pmaps_books)
#define PMAPS__JOIN_SIZE0 sizeof(struct pmaps_join)
#define PMAPS__CHOICE_SIZE0 sizeof(struct pmaps_explain_choice)
#define PMAPS__JVM_ATTACH_SIZE0 sizeof(struct pmaps_jvm_attach)
/*
 * Of the last run's mappings in category CAT, those above user space
 * ([vsyscall]: listed by maps, no VMA; the page sources never list it).
 */
uint64_t pmaps__explain_gate(const struct pmaps_explain_session *s, int cat);
/*
 * Whether S's next runs read smaps_rollup after smaps (ON, as opened), or
 * not: its walk holds the process's lock whole, in one read().
 */
void pmaps__explain_rollup(struct pmaps_explain_session *s, int on);
/*
 * S's next run opens its smaps cursor again rather than read the one its
 * open made: for a session run long after its open (a working set waits
 * out its interval first), whose read's time then counts from the run.
 */
void pmaps__explain_reopen(struct pmaps_explain_session *s);
/*
 * The state columns (bit 1 << enum pmaps_xcol) an explain from the pages
 * source knows, given the fields KF and values KV its cursor gives.
 */
uint32_t pmaps__explain_fast_known(uint64_t kf, uint64_t kv);
/* Since 0.2.0, in ABI 0: their first size is the whole struct. */
#define PMAPS__COST_SIZE0 offsetof(struct pmaps_cost, wait_ns)
#define PMAPS__POLICY_SIZE0 sizeof(struct pmaps_policy)

/* 1 when SIZE, a caller's, is at least ABI0 (pmaps__size0_hook when set). */
int pmaps__size_ok(size_t size, size_t abi0);

/*
 * Copies the first min(DST_SIZE, SRC_SIZE) bytes of the library's whole
 * result SRC to the caller's DST, and nothing past DST_SIZE.
 */
static inline void pmaps__copy_out(void *dst, size_t dst_size, const void *src, size_t src_size)
{
	__builtin_memcpy(dst, src, dst_size < src_size ? dst_size : src_size);
}

#define PMAPS_ERRMSG_SIZE 256
#define PMAPS_PATH_BUF 8192
#define PMAPS_VMFLAGS_BUF 256
#define PMAPS_UNKNOWN_NAME 48
#define PMAPS_UNKNOWN_TEXT 48

void *pmaps__alloc(size_t size);
void pmaps__free(void *ptr);
/* Allocations made so far, by every thread: a caller's delta counts its own while no other allocates. */
uint64_t pmaps__alloc_count(void);

/* Formats into a fixed buffer; never fails, truncates. */
void pmaps__msg(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

struct pmaps_proc {
	int rootfd;           /* the proc root directory */
	int dirfd;            /* ROOT/PID */
	/*
	 * Where the memory files (maps, smaps, pagemap, status, ...) are opened
	 * from: DIRFD, or ROOT/PID/task/TID of a live thread when the main
	 * thread has exited (pthread_exit) and left a zombie leader, whose own
	 * files read as empty while its threads still run.
	 */
	int memfd;
	int tid;              /* the thread MEMFD names, or 0 for the process itself */
	int statfd;           /* ROOT/PID/stat, kept open: the guard reads it twice a read */
	int pid;
	int live;             /* the root is a real procfs, not a fixture tree */
	char pidname[24];
	/*
	 * A page source's cursor, opened by pmaps_source_keys() to learn what
	 * it gives and nothing read: pmaps_maps_open() of that source takes
	 * it over (pmaps__maps_spare_keys()). Closed with the handle.
	 */
	struct pmaps_maps *spare;
};

/*
 * What /proc/PID/stat says about the program a pid runs. start_code,
 * end_code, start_stack and arg_start change with every exec (ASLR makes
 * them differ between two execs of one binary) and read 0 while the process
 * has no address space: a zombie, a process tearing its memory down, a
 * kernel thread, and an execve() between its new mm and its first segment.
 * Without ptrace-read access (which every memory file needs anyway) the
 * code addresses read 1. They also move without an exec (prctl PR_SET_MM):
 * the guard uses them only to wait out an execve(), never to detect one.
 */
struct pmaps__ident {
	int ok;               /* stat was read */
	char state;           /* R S D Z X ... */
	int kthread;          /* PF_KTHREAD: no user-space memory at all */
	int exiting;          /* PF_EXITING: the task is in do_exit() */
	int ppid;             /* field 4, the parent's pid (0: none); -1 when not printed */
	int have_faults;      /* fields 10 and 12 were read: */
	uint64_t minflt, majflt;
	int have_start;       /* field 22 was read: */
	uint64_t starttime;   /* when the process started, clock ticks after boot */
	uint64_t code_start, code_end, stack_start, arg_start;
};

/*
 * Parses /proc/PID/stat's text BUF of N bytes into ID (state; the parent's
 * pid, flags and code addresses as far as they are printed) and, when COMM is not NULL,
 * the command name: the bytes between the first '(' and the last ')' (it
 * may hold spaces, parentheses and newlines), a view into BUF. Returns 0,
 * or -EBADMSG when there is no "(comm) S".
 */
int pmaps__parse_stat(const char *buf, size_t n, struct pmaps__ident *id,
                      struct pmaps_view *comm);

/* 1 when FD is on a real procfs (not a fixture tree), else 0. */
int pmaps__is_procfs(int fd);

/* A directory entry's name as a pid: all decimal digits, no leading 0, <= 2^31 - 1; or -1. */
int pmaps__parse_pid(const char *s);

/*
 * A thread of PROC other than its leader that still runs a program: its
 * tid with *FD a directory fd on PROC_ROOT/PID/task/TID, or 0 (none).
 */
int pmaps__live_thread(const struct pmaps_proc *proc, int *fd);

/* Reads PROC's stat. Returns 0, or a negative errno (-ESRCH when gone). */
int pmaps__proc_ident(const struct pmaps_proc *proc, struct pmaps__ident *id);

/*
 * The guard around one read of a process's memory files, so that a read is
 * never taken for whole when the process exited, died or exec'd during it
 * (docs/internals/MAPS.md, "A process that changes while it is read").
 * Begin it before opening the data file; it reads the process's identity
 * and opens a probe: an fd on maps, tied like
 * the data file to the address space (mm) of that moment. After the data
 * file ended (or failed), check it: the probe reads nothing once that mm is
 * gone, which is how an early end is told from the real one, and stat tells
 * exit (gone, zombie, exiting, no mm) from exec (a new program's addresses).
 */
struct pmaps__guard {
	struct pmaps__ident id0;
	int probe;            /* fd on maps, or -1 */
	int gone;             /* without a probe: the caller's read failed with ESRCH */
};

/*
 * Starts a guard for a read of WHAT. Chooses where PROC's memory files are
 * opened from (a live thread's directory when the leader is a zombie), waits
 * out an execve() caught between its new address space and its program, and
 * opens the probe when PROBE is set. Returns 0, or with a message in MSG:
 * -ESRCH (gone, exiting, or a zombie: the message says which), -ENODATA (a
 * kernel thread). Fixture trees (not procfs) always pass.
 */
int pmaps__guard_begin(struct pmaps_proc *proc, struct pmaps__guard *g, int probe,
                       const char *what, char *msg, size_t size);

/*
 * Without a probe (PROBE 0 to pmaps__guard_begin), for a file read in one
 * go (smaps_rollup): call this after opening the data file and before
 * reading it. It waits out an execve() with no program yet, as the probe
 * does: the data fd is then tied to a whole program's mm, or to one that
 * ends, which its read reports (ESRCH: set g->gone before the check).
 * Returns 0, -ESRCH or -EAGAIN with MSG.
 */
int pmaps__guard_program(const struct pmaps_proc *proc, struct pmaps__guard *g, const char *what,
                         char *msg, size_t size);

/*
 * After the read of WHAT ended, early or not: 0 when it described the whole
 * address space of one program, of a process that was not dying; else
 * -ESRCH (exited while it was read) or -ESTALE (exec'd), with MSG set.
 */
int pmaps__guard_check(const struct pmaps_proc *proc, struct pmaps__guard *g, const char *what,
                       char *msg, size_t size);

/* Closes the probe. Idempotent; a zeroed guard needs g->probe = -1 first. */
void pmaps__guard_end(struct pmaps__guard *g);

/*
 * Opens the memory file NAME of PROC (from its memfd) for reading, never
 * following a symlink and never blocking, and checks that it is a regular
 * file. "Gone" errors become -ESRCH; anything but a regular file, or a
 * symlink, is -EBADMSG with a message in MSG (when MSG is not NULL).
 */
int pmaps__openat(const struct pmaps_proc *proc, const char *name);
/*
 * The same under DIRFD, with no process to ask: errors are left as the
 * open gives them (-ENOENT stays). LIVE: DIRFD is on a real procfs, where
 * the open itself is safe; elsewhere the file is checked before it is
 * opened (a device's open can have effects).
 */
int pmaps__open_regular(int dirfd, const char *name, int live, char *msg, size_t size);
int pmaps__open_file(const struct pmaps_proc *proc, int dirfd, const char *name, char *msg,
                     size_t size);

/* read(2) with EINTR retried, or the test hook (testhooks.h). */
ssize_t pmaps__read(int fd, void *buf, size_t len);
/* pread(2), or its test hook: the page reader's reads. */
ssize_t pmaps__pread(int fd, void *buf, size_t len, off_t off);

/*
 * A directory read through getdents64(2) into the caller's buffer BUF of
 * CAP bytes (at least PMAPS__DIR_MIN): no allocation, unlike opendir(),
 * whose DIR bypasses the allocator hook. Not thread-safe; one reader per
 * struct.
 */
#define PMAPS__DIR_MIN 1024 /* room for the longest entry the kernel returns */
struct pmaps__dir {
	int fd;               /* owned once pmaps__dir_open() succeeded; -1 when closed */
	char *buf;
	size_t cap, pos, len; /* records in BUF[POS, LEN) still to hand out */
	unsigned char type;   /* d_type of the entry last returned (DT_DIR, ...; DT_UNKNOWN) */
	uint64_t ino;         /* d_ino of the entry last returned */
	int eof;
};

/* Opens NAME under DIRFD (no symlink followed). Returns 0, or -errno (-EINVAL: CAP small). */
int pmaps__dir_open(struct pmaps__dir *d, int dirfd, const char *name, char *buf, size_t cap);
/* Reads the directory fd FD (the reader then owns it: pmaps__dir_close() closes it). */
void pmaps__dir_init(struct pmaps__dir *d, int fd, char *buf, size_t cap);
/*
 * The next entry's name, NUL-terminated, valid until the next call; "." and
 * ".." are skipped. Returns 1, 0 at the end, or a negative errno (-ENOENT
 * once a /proc directory's process is gone; -EIO for a malformed record).
 */
int pmaps__dir_next(struct pmaps__dir *d, const char **name);
/* Starts over (lseek to 0, which getdents honours). Returns 0 or -errno. */
int pmaps__dir_rewind(struct pmaps__dir *d);
/* Closes the fd. Idempotent. */
void pmaps__dir_close(struct pmaps__dir *d);

/*
 * Puts cursor C in error ERR (until it is rewound) with MSG as its message,
 * for a reader that gives its results through a cursor's errmsg
 * (pmaps_group_read()). Returns ERR.
 */
int pmaps__maps_fail(struct pmaps_maps *c, int err, const char *msg);

/*
 * A page cursor's walk from now on: calls reporting STEP_PAGES pages at
 * most (0: the default), a pause of PAUSE_NS after HOLD_NS of walking (0:
 * never). What it spent since the last seek: its longest kernel call and
 * its pauses.
 */
void pmaps__pages_policy(struct pmaps_pages *c, uint32_t step_pages, uint64_t hold_ns,
                         uint64_t pause_ns);
void pmaps__pages_spent(const struct pmaps_pages *c, uint64_t *longest_ns, uint64_t *pauses);
/*
 * Opens PROC's pagemap again in cursor C (a refresh: the fd is tied to the
 * address space it was opened on), keeping its buffers. Returns 0 or -errno.
 */
int pmaps__pages_reopen(struct pmaps_pages *c, struct pmaps_proc *proc);
/* A page source's Pss in total, rounded once (pmaps__fast_pss_total()): 1, or 0 when it has none. */
int pmaps__maps_pss_total(const struct pmaps_maps *c, uint64_t *pss);
/*
 * A cursor opened over text in memory (pmaps__maps_open_mem(), testhooks.h)
 * pointed at other text, LEN bytes at DATA (kept by the caller), and
 * rewound: one cursor parses one smaps_rollup after another. -EINVAL for a
 * cursor over a file.
 */
int pmaps__maps_set_mem(struct pmaps_maps *c, const void *data, size_t len);
/* A maps cursor's read()s since it was opened or rewound. */
uint64_t pmaps__maps_reads(const struct pmaps_maps *c);

/*
 * A pause of NS for a target waiting for its mmap_lock: a sleep, or under
 * PMAPS__SPIN_NS (a sleep that short is not kept: timer slack is 50 us) a
 * wait on the clock.
 */
#define PMAPS__SPIN_NS 50000u
void pmaps__pause(uint64_t ns);

/*
 * One PAGEMAP_SCAN call on FD over [START, END), into VEC (CAP regions):
 * EINTR retried, what the kernel wrote marked for valgrind. A step reports
 * PAGES pages at most, and when PACED (a walk that pauses for its target)
 * visits few regions too (PAGES / 16, at least 8). Returns the regions
 * written, with *WALK_END, or -errno.
 */
struct pmaps__scan_step {
	uint64_t pages;
	int paced;
};
int pmaps__scan(int fd, struct pmaps__page_region *vec, size_t cap, uint64_t start, uint64_t end,
                const struct pmaps__scan_step *step, uint64_t anyof, uint64_t ret,
                uint64_t *walk_end);

/*
 * The PMAPS_PG_* flags of a PAGEMAP_SCAN region's categories. Inline: the
 * fast source calls it for every region it counts.
 */
static inline unsigned pmaps__scan_flags(uint64_t cat)
{
	unsigned f = 0;

	f |= cat & PMAPS__CAT_PRESENT ? PMAPS_PG_PRESENT : 0;
	f |= cat & PMAPS__CAT_SWAPPED ? PMAPS_PG_SWAPPED : 0;
	f |= cat & PMAPS__CAT_FILE ? PMAPS_PG_FILE : 0;
	f |= cat & PMAPS__CAT_PFNZERO ? PMAPS_PG_ZERO : 0;
	f |= cat & PMAPS__CAT_HUGE ? PMAPS_PG_HUGE : 0;
	f |= cat & PMAPS__CAT_SOFT_DIRTY ? PMAPS_PG_SOFT_DIRTY : 0;
	f |= cat & PMAPS__CAT_GUARD ? PMAPS_PG_GUARD : 0;
	if (f & PMAPS_PG_GUARD)
		f &= ~PMAPS_PG_SWAPPED; /* a guard marker also reads as swapped */
	/* WRITTEN is clear only on uffd write-protected pages. */
	f |= (f & (PMAPS_PG_PRESENT | PMAPS_PG_SWAPPED)) && !(cat & PMAPS__CAT_WRITTEN)
	         ? PMAPS_PG_UFFD_WP
	         : 0;
	return f;
}

/*
 * The one rule of a lazily freed page, from its kpageflags F (the kernel's
 * bits): anonymous, without SWAPBACKED (MADV_FREE took it away), and no KSM
 * page (whose flags vary). The page cursor's PMAPS_KPF_LAZYFREE, the page
 * state LAZYFREE and pmaps phys's LAZYFREE all come from it.
 */
static inline int pmaps__kpf_lazyfree(uint64_t f)
{
	return (f & PMAPS_KPF_ANON) && !(f & (PMAPS_KPF_SWAPBACKED | PMAPS_KPF_KSM));
}

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t pmaps__now_ns(void);
/* CLOCK_REALTIME in nanoseconds since the epoch. */
uint64_t pmaps__real_ns(void);

/*
 * Whether the file mapped by M, whose name ends in " (deleted)", has no
 * name left, from /proc/PID/map_files (CAP_SYS_ADMIN): clears
 * PMAPS_ROW_DELETED when a name is left. CACHE keeps the last file's answer
 * (every mapping of one file shares it); *NO_MAP_FILES is set once
 * map_files refuses this reader, and nothing is asked again.
 */
struct pmaps__del_cache {
	uint64_t inode;
	uint32_t major, minor;
	int linked;                /* -1: nothing asked yet in this read */
};
void pmaps__check_deleted(const struct pmaps_proc *proc, struct pmaps_mapping *m,
                          struct pmaps__del_cache *cache, int *no_map_files);

/* ---- fast.c: the page sources behind a maps cursor ---- */
struct pmaps__fast;
/* Whether a kernel release string ("6.17.0-rc1+") is at least MAJOR.MINOR; 0 if unparsable. */
int pmaps__release_at_least(const char *release, unsigned major, unsigned minor);
/*
 * Opens the reader of SOURCE (PMAPS_SRC_FAST or PMAPS_SRC_PAGES) on PROC,
 * with ERRMSG (PMAPS_ERRMSG_SIZE bytes, the cursor's) for its messages.
 * *OUT is set whenever it could be allocated. Returns 0 or -errno.
 */
int pmaps__fast_open(struct pmaps__fast **out, struct pmaps_proc *proc, enum pmaps_source source,
                     size_t bufsize, char *errmsg);
int pmaps__fast_next(struct pmaps__fast *f, const struct pmaps_mapping **row);
int pmaps__fast_rewind(struct pmaps__fast *f, struct pmaps_proc *proc);
void pmaps__fast_policy(struct pmaps__fast *f, const struct pmaps_policy *p);
void pmaps__fast_cost(const struct pmaps__fast *f, struct pmaps_cost *out);
int pmaps__fast_query(const struct pmaps__fast *f);
/* The keys (as pmaps_source_keys()) the rows of F can have. */
void pmaps__fast_keys(const struct pmaps__fast *f, uint64_t *fields, uint64_t *values);
/* The same of a maps cursor on a page source (nothing for the text sources). */
void pmaps__maps_fast_keys(const struct pmaps_maps *c, uint64_t *fields, uint64_t *values);
/*
 * The row a maps-text cursor handed out last, writable: the fast source
 * finishes it in place. Its v[] is zeroed once (the maps text sets none).
 */
struct pmaps_mapping *pmaps__maps_row(struct pmaps_maps *c);
/*
 * The keys of page source SOURCE for PROC, from PROC's spare cursor of that
 * source, or from one opened now and left there. Returns 0 or the open's
 * errno.
 */
int pmaps__maps_spare_keys(struct pmaps_proc *proc, enum pmaps_source source, uint64_t *fields,
                           uint64_t *values);
/* Closes PROC's kept cursor unless it is of SOURCE, the one chosen to read. */
void pmaps__maps_spare_keep(struct pmaps_proc *proc, enum pmaps_source source);
/* The Pss of every row so far, summed before its rounding to kB (as smaps_rollup's), or 0. */
int pmaps__fast_pss_total(const struct pmaps__fast *f, uint64_t *pss);
void pmaps__fast_close(struct pmaps__fast *f);
/* The read of a cursor opened and left unread until now begins now (its time, its budget). */
void pmaps__fast_restart_clock(struct pmaps__fast *f);

/* Sets M->kind from its name, inode, perms and VmFlags. */
/*
 * The paths of a /proc/PID/cgroup text (BUF, N bytes): V2's the "0::" line's,
 * MEM's a v1 line whose controllers name memory; ptr NULL where there is no
 * such line. A last line without its newline is taken as it is.
 */
void pmaps__cgroup_file_paths(const char *buf, size_t n, struct pmaps_view *v2,
                              struct pmaps_view *mem);

void pmaps__classify(struct pmaps_mapping *m, enum pmaps_source source);

/* Looks up a VmFlags code; -1 when unknown. Once per code per VMA: a table. */
extern const unsigned char pmaps__vmflag_table[26][26];
static inline int pmaps__vmflag_lookup(char a, char b)
{
	unsigned x = (unsigned)(a - 'a'), y = (unsigned)(b - 'a');

	return x < 26 && y < 26 ? pmaps__vmflag_table[x][y] - 1 : -1;
}

#endif
