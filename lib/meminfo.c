/* SPDX-License-Identifier: MIT */
/*
 * meminfo.c - the machine's figures from /proc/meminfo.
 *
 * One "Name:   N kB" line per figure (proc(5)); HugePages_* are counts
 * without a unit and not read here. The file is a few KiB: read whole
 * through a fixed buffer, a line longer than it skipped.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "parse.h"
#include "readers.h"

static const struct {
	const char *name; /* with its colon */
	const char *key;
} fields[PMAPS_MI_COUNT] = {
	[PMAPS_MI_MEM_TOTAL] = {"MemTotal:", "mem_total"},
	[PMAPS_MI_MEM_FREE] = {"MemFree:", "mem_free"},
	[PMAPS_MI_MEM_AVAILABLE] = {"MemAvailable:", "mem_available"},
	[PMAPS_MI_BUFFERS] = {"Buffers:", "buffers"},
	[PMAPS_MI_CACHED] = {"Cached:", "cached"},
	[PMAPS_MI_SWAP_CACHED] = {"SwapCached:", "swap_cached"},
	[PMAPS_MI_ANON_PAGES] = {"AnonPages:", "anon_pages"},
	[PMAPS_MI_MAPPED] = {"Mapped:", "mapped"},
	[PMAPS_MI_SHMEM] = {"Shmem:", "shmem"},
	[PMAPS_MI_KRECLAIMABLE] = {"KReclaimable:", "kreclaimable"},
	[PMAPS_MI_SLAB] = {"Slab:", "slab"},
	[PMAPS_MI_PAGE_TABLES] = {"PageTables:", "page_tables"},
	[PMAPS_MI_SWAP_TOTAL] = {"SwapTotal:", "swap_total"},
	[PMAPS_MI_SWAP_FREE] = {"SwapFree:", "swap_free"},
	[PMAPS_MI_DIRTY] = {"Dirty:", "dirty"},
	[PMAPS_MI_ANON_HUGE_PAGES] = {"AnonHugePages:", "anon_huge_pages"},
	[PMAPS_MI_HUGETLB] = {"Hugetlb:", "hugetlb"},
};

const char *pmaps_meminfo_key(enum pmaps_meminfo_field f)
{
	return (unsigned)f < PMAPS_MI_COUNT ? fields[f].key : NULL;
}

/* One line [P, NL) into MI. Returns 0, or -1 for a known name without "N kB". */
static int meminfo_line(struct pmaps_meminfo *mi, const char *p, const char *nl)
{
	for (unsigned k = 0; k < PMAPS_MI_COUNT; k++) {
		size_t kl = strlen(fields[k].name);
		const char *q = p + kl;
		uint64_t v;
		if ((size_t)(nl - p) <= kl || memcmp(p, fields[k].name, kl) != 0)
			continue;
		while (q < nl && *q == ' ')
			q++;
		if (pmaps__parse_dec(&q, nl, &v) <= 0 || v > UINT64_MAX >> 10 || nl - q != 3 ||
		    memcmp(q, " kB", 3) != 0)
			return -1;
		mi->v[k] = v << 10;
		mi->present |= 1ull << k;
		return 0;
	}
	return 0;
}

struct meminfo_ctx {
	struct pmaps_meminfo *mi;
	int bad;
};

static int meminfo_ctx_line(void *ctx, const char *p, const char *nl)
{
	struct meminfo_ctx *c = ctx;

	if (meminfo_line(c->mi, p, nl) < 0)
		c->bad = 1;
	return 0;
}

int pmaps__meminfo_parse(int fd, struct pmaps_meminfo *mi, char *msg, size_t msgsz)
{
	char buf[4096];
	struct meminfo_ctx c = {mi, 0};
	int bad, err;

	memset(mi, 0, sizeof(*mi));
	mi->size = sizeof(*mi);
	err = pmaps__read_lines(fd, buf, sizeof(buf), meminfo_ctx_line, &c);
	if (err < 0) {
		memset(mi, 0, sizeof(*mi));
		mi->size = sizeof(*mi);
		if (msg)
			pmaps__msg(msg, msgsz, "meminfo: %s", pmaps_strerror(err));
		return err;
	}
	bad = c.bad;
	if (bad) {
		if (msg)
			pmaps__msg(msg, msgsz, "meminfo: a line read here without a value in kB: no "
			           "kernel prints that");
		return -EBADMSG;
	}
	return 0;
}

int pmaps_meminfo_read(const char *proc_root, struct pmaps_meminfo *mi, char *msg, size_t msgsz)
{
	struct pmaps_meminfo whole;
	int dfd, fd, r;

	if (msg && msgsz)
		msg[0] = '\0';
	if (!mi || !pmaps__size_ok(mi->size, sizeof(struct pmaps_meminfo))) {
		if (msg)
			pmaps__msg(msg, msgsz, "struct pmaps_meminfo: size %u, below %zu: set it to sizeof",
			           mi ? mi->size : 0u, sizeof(struct pmaps_meminfo));
		return -EINVAL;
	}
	dfd = open(proc_root ? proc_root : "/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		r = -errno;
		if (msg)
			pmaps__msg(msg, msgsz, "%s: %s", proc_root ? proc_root : "/proc",
			           pmaps_strerror(r));
		return r;
	}
	fd = pmaps__open_regular(dfd, "meminfo", pmaps__is_procfs(dfd), msg, msgsz);
	close(dfd);
	if (fd < 0) {
		if (msg && fd != -EBADMSG)
			pmaps__msg(msg, msgsz, "meminfo: %s", pmaps_strerror(fd));
		return fd;
	}
	r = pmaps__meminfo_parse(fd, &whole, msg, msgsz);
	close(fd);
	if (r == 0) {
		whole.size = mi->size;
		pmaps__copy_out(mi, mi->size, &whole, sizeof(whole));
	}
	return r;
}
