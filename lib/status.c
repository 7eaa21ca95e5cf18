/* SPDX-License-Identifier: MIT */
/*
 * status.c - the figures of /proc/PID/status.
 *
 * The format (proc(5), /proc/PID/status): one "Name:\tvalue" line per field. Read here:
 *   State:    the state letter and its name      "S (sleeping)"
 *   Uid:      real, effective, saved and filesystem uid, tab-separated
 *   Gid:      real, effective, saved and filesystem gid, tab-separated
 *   NSpid:    the pid in each pid namespace it is in, outermost first (4.1+)
 *   VmSize:   the address space                  "N kB" (KiB)
 *   VmLck:    locked (mlock)                     "N kB"
 *   VmHWM:    the peak of VmRSS                  "N kB"
 *   VmRSS:    resident = RssAnon + RssFile + RssShmem (their sum, printed)
 *   RssAnon:, RssFile:, RssShmem:                "N kB" (4.5+)
 *   VmPTE:    page tables                        "N kB"
 *   VmSwap:   swapped out                        "N kB"
 *   Threads:  how many                           a bare number
 * A kernel thread has no Vm or Rss lines. The file has no size limit (a
 * process in 2,000 supplementary groups has a 14 KiB Groups line, before
 * the Vm lines): it is streamed line by line through a fixed buffer, and a
 * line longer than the buffer, none of those read here, is skipped whole.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "parse.h"
#include "readers.h"

static const char *const status_keys[PMAPS_ST_COUNT] = {
	[PMAPS_ST_VM_SIZE] = "vm_size",
	[PMAPS_ST_VM_RSS] = "vm_rss",
	[PMAPS_ST_RSS_ANON] = "rss_anon",
	[PMAPS_ST_RSS_FILE] = "rss_file",
	[PMAPS_ST_RSS_SHMEM] = "rss_shmem",
	[PMAPS_ST_VM_HWM] = "vm_hwm",
	[PMAPS_ST_VM_PTE] = "vm_pte",
	[PMAPS_ST_VM_SWAP] = "vm_swap",
	[PMAPS_ST_THREADS] = "threads",
	[PMAPS_ST_UID] = "uid",
	[PMAPS_ST_EUID] = "euid",
	[PMAPS_ST_GID] = "gid",
	[PMAPS_ST_EGID] = "egid",
	[PMAPS_ST_STATE] = "state",
	[PMAPS_ST_NSPID] = "nspid",
	[PMAPS_ST_PPID] = "ppid",
	[PMAPS_ST_VM_LCK] = "vm_lck",
};

const char *pmaps_status_key(enum pmaps_status_field f)
{
	return (unsigned)f < PMAPS_ST_COUNT ? status_keys[f] : NULL;
}

enum line_type { KB, COUNT, UIDS, GIDS, STATE, NSPID };

/* What went wrong, for the message: a value line, or the VmRSS sum. */
enum bad { BAD_NONE, BAD_KB, BAD_VM_SIZE, BAD_THREADS, BAD_PPID, BAD_UID, BAD_GID, BAD_NSPID,
	BAD_SUM };

#define KEY(name) name, sizeof(name) - 1
static const struct {
	const char *name;
	unsigned char len; /* strlen(name) */
	enum pmaps_status_field f;
	enum line_type type;
} lines[] = {
	/* By first letter, so that a line is compared with its letter's keys alone (first_key). */
	{KEY("State:"), PMAPS_ST_STATE, STATE},
	{KEY("Uid:"), PMAPS_ST_UID, UIDS},
	{KEY("Gid:"), PMAPS_ST_GID, GIDS},
	{KEY("NSpid:"), PMAPS_ST_NSPID, NSPID},
	{KEY("VmSize:"), PMAPS_ST_VM_SIZE, KB},
	{KEY("VmLck:"), PMAPS_ST_VM_LCK, KB},
	{KEY("VmHWM:"), PMAPS_ST_VM_HWM, KB},
	{KEY("VmRSS:"), PMAPS_ST_VM_RSS, KB},
	{KEY("VmPTE:"), PMAPS_ST_VM_PTE, KB},
	{KEY("VmSwap:"), PMAPS_ST_VM_SWAP, KB},
	{KEY("RssAnon:"), PMAPS_ST_RSS_ANON, KB},
	{KEY("RssFile:"), PMAPS_ST_RSS_FILE, KB},
	{KEY("RssShmem:"), PMAPS_ST_RSS_SHMEM, KB},
	{KEY("Threads:"), PMAPS_ST_THREADS, COUNT},
	{KEY("PPid:"), PMAPS_ST_PPID, COUNT},
};

/*
 * The keys of lines[] that begin with the letter C: [*FIRST, *END). Most
 * lines of status begin with another letter, or are one of the twelve V
 * lines of which six are read.
 */
static void first_key(char c, size_t *first, size_t *end)
{
	switch (c) {
	case 'S': *first = 0, *end = 1; break;
	case 'U': *first = 1, *end = 2; break;
	case 'G': *first = 2, *end = 3; break;
	case 'N': *first = 3, *end = 4; break;
	case 'V': *first = 4, *end = 10; break;
	case 'R': *first = 10, *end = 13; break;
	case 'T': *first = 13, *end = 14; break;
	case 'P': *first = 14, *end = 15; break;
	default: *first = *end = 0; break;
	}
}

static void skip_blanks(const char **q, const char *nl)
{
	while (*q < nl && (**q == ' ' || **q == '\t'))
		(*q)++;
}

static void set(struct pmaps_status *st, enum pmaps_status_field f, uint64_t v)
{
	st->v[f] = v;
	st->present |= 1ull << f;
}

/*
 * Four uids (or gids): the real and effective ones kept in F and F + 1. 0,
 * or -1 when they are not four numbers.
 */
static int id_line(struct pmaps_status *st, enum pmaps_status_field f, const char *q,
                   const char *nl)
{
	uint64_t id[4];

	for (int i = 0; i < 4; i++) {
		skip_blanks(&q, nl);
		if (pmaps__parse_dec(&q, nl, &id[i]) <= 0 || id[i] > UINT32_MAX)
			return -1;
	}
	skip_blanks(&q, nl);
	if (q != nl)
		return -1;
	set(st, f, id[0]);
	set(st, f + 1, id[1]);
	return 0;
}

/* The pids of NSpid: the last, the process's own namespace's. 0, or -1 when none. */
static int nspid_line(struct pmaps_status *st, const char *q, const char *nl)
{
	uint64_t v = 0;
	int n = 0;

	for (;;) {
		skip_blanks(&q, nl);
		if (q == nl)
			break;
		if (pmaps__parse_dec(&q, nl, &v) <= 0 || v > INT32_MAX)
			return -1;
		n++;
	}
	if (n == 0)
		return -1;
	set(st, PMAPS_ST_NSPID, v);
	return 0;
}

/* Name:, State: and Kthread:, for a caller that asked. */
static void who_line(struct pmaps__status_who *who, const char *p, const char *nl)
{
	const char *q;

	/* The fifth, sixth or eighth byte is the colon of the three names. */
	if (nl - p > 5 && p[4] == ':' && memcmp(p, "Name:", 5) == 0) {
		size_t n = 0;
		q = p + 5;
		if (q < nl && *q == '\t')
			q++;
		/*
		 * The kernel prints a newline in the name as \n and a backslash
		 * as \\ (and nothing else escaped): the name's own bytes back.
		 */
		for (; q < nl && n < sizeof(who->name) - 1; q++) {
			char c = *q;
			if (c == '\\' && nl - q > 1 && (q[1] == '\\' || q[1] == 'n'))
				c = *++q == 'n' ? '\n' : '\\';
			who->name[n++] = c;
		}
		who->name_len = n;
		who->name[n] = '\0';
	} else if (nl - p > 6 && p[5] == ':' && memcmp(p, "State:", 6) == 0) {
		q = p + 6;
		skip_blanks(&q, nl);
		if (q < nl)
			who->state = *q;
	} else if (nl - p > 8 && p[7] == ':' && memcmp(p, "Kthread:", 8) == 0) {
		q = p + 8;
		skip_blanks(&q, nl);
		who->kthread = q < nl && *q == '1';
	}
}

/* One line, [P, NL). Returns BAD_NONE, or what is wrong with a line read here. */
static enum bad status_line(struct pmaps_status *st, const char *p, const char *nl,
                            struct pmaps__status_who *who)
{
	size_t k, end;

	if (who && (*p == 'N' || *p == 'S' || *p == 'K'))
		who_line(who, p, nl);
	/* Most lines are none of these: their first letter says so. */
	for (first_key(*p, &k, &end); k < end; k++) {
		size_t kl = lines[k].len;
		const char *q = p + kl;
		uint64_t v;
		/* The colon and the third letter first: most lines differ there (VmPeak, VmSize). */
		if ((size_t)(nl - p) <= kl || p[kl - 1] != ':' || p[2] != lines[k].name[2] ||
		    memcmp(p, lines[k].name, kl) != 0)
			continue;
		switch (lines[k].type) {
		case UIDS:
			return id_line(st, PMAPS_ST_UID, q, nl) < 0 ? BAD_UID : BAD_NONE;
		case GIDS:
			return id_line(st, PMAPS_ST_GID, q, nl) < 0 ? BAD_GID : BAD_NONE;
		case NSPID:
			return nspid_line(st, q, nl) < 0 ? BAD_NSPID : BAD_NONE;
		case STATE:
			/* "S (sleeping)": the letter; a line without one says nothing */
			skip_blanks(&q, nl);
			if (q < nl && *q > ' ' && (unsigned char)*q < 0x7f)
				set(st, PMAPS_ST_STATE, (uint64_t)(unsigned char)*q);
			return BAD_NONE;
		case COUNT:
			skip_blanks(&q, nl);
			if (pmaps__parse_dec(&q, nl, &v) <= 0 || q != nl)
				return lines[k].f == PMAPS_ST_PPID ? BAD_PPID : BAD_THREADS;
			set(st, lines[k].f, v);
			return BAD_NONE;
		case KB:
			skip_blanks(&q, nl);
			if (pmaps__parse_dec(&q, nl, &v) <= 0 || v > UINT64_MAX >> 10 || nl - q != 3 ||
			    memcmp(q, " kB", 3) != 0)
				return lines[k].f == PMAPS_ST_VM_SIZE ? BAD_VM_SIZE : BAD_KB;
			set(st, lines[k].f, v << 10);
			return BAD_NONE;
		}
	}
	return BAD_NONE;
}

static const char *bad_msg(enum bad b)
{
	switch (b) {
	case BAD_VM_SIZE:
		return "status: a VmSize line without a value in kB: no kernel prints that";
	case BAD_THREADS:
		return "status: a Threads line without a count: no kernel prints that";
	case BAD_PPID:
		return "status: a PPid line without a pid: no kernel prints that";
	case BAD_UID:
		return "status: a Uid line without four uids: no kernel prints that";
	case BAD_GID:
		return "status: a Gid line without four gids: no kernel prints that";
	case BAD_NSPID:
		return "status: an NSpid line without pids: no kernel prints that";
	default:
		return "status: a VmRSS, RssAnon, RssFile, RssShmem, VmHWM, VmPTE or VmSwap line "
		       "without a value in kB, or VmRSS other than RssAnon + RssFile + RssShmem: "
		       "no kernel prints that";
	}
}

int pmaps__status_parse(int fd, struct pmaps_status *st, char *msg, size_t msgsz)
{
	return pmaps__status_parse_who(fd, st, NULL, msg, msgsz);
}

int pmaps__read_lines(int fd, char *buf, size_t cap,
                      int (*line)(void *ctx, const char *p, const char *nl), void *ctx)
{
	size_t have = 0;
	int skip = 0;

	for (;;) {
		ssize_t n = pmaps__read(fd, buf + have, cap - have);
		const char *p = buf, *end, *nl;
		if (n < 0)
			return errno ? -errno : -EIO;
		if (n == 0) {
			if (have && !skip)
				line(ctx, buf, buf + have);
			return 0;
		}
		end = buf + have + n;
		while ((nl = memchr(p, '\n', (size_t)(end - p))) != NULL) {
			if (!skip && line(ctx, p, nl))
				return 0;
			skip = 0;
			p = nl + 1;
		}
		if (p == buf && end == buf + cap) {
			skip = 1; /* a line longer than BUF: none read here */
			have = 0;
			continue;
		}
		have = (size_t)(end - p);
		memmove(buf, p, have);
	}
}

struct status_ctx {
	struct pmaps_status *st;
	struct pmaps__status_who *who;
	enum bad bad;
};

/*
 * The kernel prints Threads: first of the signal lines, after every line
 * read here (task_sig() after task_state() and task_mem(), since 2.6): the
 * lines after it (signals, capabilities, CPU lists, about half the text) are
 * not parsed, nor is the end of the file waited for.
 */
static int status_ctx_line(void *ctx, const char *p, const char *nl)
{
	struct status_ctx *c = ctx;
	enum bad b = status_line(c->st, p, nl, c->who);

	if (b != BAD_NONE && c->bad == BAD_NONE)
		c->bad = b;
	return nl - p > 8 && p[0] == 'T' && memcmp(p, "Threads:", 8) == 0;
}

int pmaps__status_parse_who(int fd, struct pmaps_status *st, struct pmaps__status_who *who,
                            char *msg, size_t msgsz)
{
	char buf[4096];
	struct status_ctx c = {st, who, BAD_NONE};
	enum bad bad;
	int err;

	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	if (who)
		memset(who, 0, sizeof(*who));
	err = pmaps__read_lines(fd, buf, sizeof(buf), status_ctx_line, &c);
	if (err < 0) {
		memset(st, 0, sizeof(*st)); /* not half a status: the lines read may not match */
		st->size = sizeof(*st);
		if (msg)
			pmaps__msg(msg, msgsz, "status: %s", pmaps_strerror(err));
		return err;
	}
	bad = c.bad;
	/*
	 * VmRSS is printed as the sum of its three parts, even when they are
	 * all 0 kB; a kernel before 4.5 prints no parts.
	 */
	const uint64_t *v = st->v;
	uint64_t parts;
	int ovf = __builtin_add_overflow(v[PMAPS_ST_RSS_ANON], v[PMAPS_ST_RSS_FILE], &parts) ||
	          __builtin_add_overflow(parts, v[PMAPS_ST_RSS_SHMEM], &parts);
	int parts_read = (st->present & (1ull << PMAPS_ST_RSS_ANON | 1ull << PMAPS_ST_RSS_FILE |
	                                 1ull << PMAPS_ST_RSS_SHMEM)) != 0;
	if (bad == BAD_NONE && (ovf || (v[PMAPS_ST_VM_RSS] != parts && parts_read)))
		bad = BAD_SUM;
	if (bad != BAD_NONE) {
		if (msg)
			pmaps__msg(msg, msgsz, "%s", bad_msg(bad));
		return -EBADMSG;
	}
	return 0;
}

int pmaps_status_read(struct pmaps_proc *proc, struct pmaps_status *st, char *msg, size_t msgsz)
{
	struct pmaps_status whole;
	char m[PMAPS_ERRMSG_SIZE];
	int fd, r;

	if (msg && msgsz)
		msg[0] = '\0';
	if (!st || !pmaps__size_ok(st->size, PMAPS__STATUS_SIZE0)) {
		if (msg)
			pmaps__msg(msg, msgsz, "struct pmaps_status: size %u, below %zu: set it to sizeof",
			           st ? st->size : 0u, PMAPS__STATUS_SIZE0);
		return -EINVAL;
	}
	memset(&whole, 0, sizeof(whole));
	if (!proc) {
		r = -EINVAL;
		goto out;
	}
	fd = pmaps__open_file(proc, proc->memfd, "status", m, sizeof(m));
	if (fd < 0) {
		if (msg)
			pmaps__msg(msg, msgsz, "%s", fd == -EBADMSG ? m : pmaps_strerror(fd));
		r = fd;
		goto out;
	}
	r = pmaps__status_parse(fd, &whole, msg, msgsz);
	close(fd);
out:
	whole.size = st->size;
	pmaps__copy_out(st, st->size, &whole, sizeof(whole));
	return r;
}
