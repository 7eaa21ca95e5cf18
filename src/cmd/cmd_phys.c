/* SPDX-License-Identifier: MIT */
/*
 * cmd_phys.c - `pmaps phys`: the machine's physical memory by page state,
 * from /proc/kpageflags (libpmaps' pmaps_phys_*). On a terminal the live
 * picture (phys_tui.c); otherwise, or with --summary, --json or --count,
 * readings as a table or JSON; with --svg a picture of one reading, a cell
 * per block coloured by the state most of its frames are in.
 *
 * The library counts; this file parses the options, chooses words and
 * layout, and writes through the sink. No arithmetic on memory figures
 * here: bytes come from pmaps_phys_bytes().
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "common/escape.h"
#include "common/num.h"
#include "common/outfile.h"
#include "common/tool.h"
#include "tui/phys_tui.h"
#include "write/phys.h"
#include "write/svg.h"

static const char phys_usage[] =
	"Usage: pmaps phys [OPTIONS]\n"
	"\n"
	"The machine's physical memory by page state, from /proc/kpageflags (and\n"
	"/proc/kpagecount): every page frame counted in exactly one state (free,\n"
	"anon, file, shmem, slab, ...; the states add up to the total), and in\n"
	"flags beside it (mlocked, dirty, writeback, mapped, ...). Needs root.\n"
	"The table and JSON also read kpagecount (the mapped and shared flags),\n"
	"which doubles the time a reading takes; the pictures do not.\n"
	"On a terminal a live picture of the whole of memory, one half-cell per\n"
	"block of frames coloured by the state most of its frames are in, with the\n"
	"legend and the counts, refreshed every --interval (q quits); otherwise a\n"
	"table.\n"
	"\n"
	"Options:\n"
	"      --summary          the table, even on a terminal\n"
	"  -j, --json             one JSON document per reading, one line each (pages\n"
	"                         and bytes per state and flag)\n"
	"      --svg FILE         write a picture of one reading to FILE (- for\n"
	"                         standard output), only when the reading ends well;\n"
	"                         a line on stderr says what was written\n"
	"  -q, --quiet            with --svg: no such line\n"
	"  -i, --interval T       between readings or refreshes: seconds (1, 0.5) or\n"
	"                         with a unit (500ms, 2s, 1m, 1h); default 1s, 10ms to\n"
	"                         1 day\n"
	"      --count N          N readings, --interval apart (0: until interrupted);\n"
	"                         never the live picture (default 1)\n"
	"      --block-size SIZE  the frames a block of the picture holds, as a size\n"
	"                         (default 2M: 512 frames of 4K; coarser above 128G);\n"
	"                         a multiple of the page size, at most 1048576 blocks\n"
	"      --threads N        read with N threads at once (1 to 16; default 2 where\n"
	"                         there are 2 CPUs or more): the kernel's work per\n"
	"                         frame is most of a reading's time\n"
	"      --proc-root DIR    read DIR/kpageflags, kpagecount and iomem instead\n"
	"                         of /proc's (a snapshot, a host's proc)\n"
	"      --cgroups          also the pages charged to each memory cgroup, from\n"
	"                         /proc/kpagecgroup: the largest 20 in the table, all\n"
	"                         in JSON (\"cgroups\"); always a table or JSON, never\n"
	"                         the live picture; not with --svg\n"
	"      --cgroup-root DIR  name cgroups from the directories under DIR (default:\n"
	"                         the cgroup v1 memory controller's mount, else the\n"
	"                         cgroup2 mount, from /proc/self/mountinfo)\n"
	"  -h, --help             show this help\n"
	"\n"
	"States, first match wins: hole (no RAM: outside iomem's System RAM, or\n"
	"NOPAGE), hwpoison, offline, zero (the zero pages), reserved, free (buddy),\n"
	"hugetlb, slab, pgtable, lazyfree (anon freed with MADV_FREE), anon_thp, anon,\n"
	"swapcache, shmem (tmpfs, shared anon), file_thp, file_mapped (page cache\n"
	"mapped), file (page cache), kernel (none of these: kernel allocations),\n"
	"uninit (not initialised yet by a kernel that defers it: mostly free).\n"
	"A compound tail page has its head's state.\n"
	"\n"
	"Exit status: 0 on success, 1 when the files cannot be read (not root: run\n"
	"as root), --cgroup-root is no directory, or the output cannot be written,\n"
	"2 on a usage error.\n";

static void put_human(struct out *o, uint64_t bytes, size_t width)
{
	char b[32];
	size_t n = fmt_human(b, bytes);

	out_rjust(o, b, n, width);
}

static void put_num(struct out *o, uint64_t v, size_t width)
{
	char b[24];
	size_t n = fmt_u64(b, v);

	out_rjust(o, b, n, width);
}

static void put_pct(struct out *o, uint64_t part, uint64_t whole, size_t width)
{
	char b[24];
	size_t n = fmt_percent(b, part, whole);

	out_rjust(o, b, n, width);
}

static const char *source_words(const struct pmaps_phys_result *r)
{
	return r->holes_known ? "kpageflags; holes from iomem" : "kpageflags; iomem not read";
}

/* ---- memory cgroups (--cgroups) ---- */

#define CG_SHOWN 20        /* rows of the table */
#define CG_WALK_DEPTH 64   /* directories below the cgroup root */
#define CG_WALK_DIRS 100000 /* directories looked at, at most */
#define CG_PATH 4096

/* The path of each row's inode, found by walking the cgroup mount. */
struct cg_names {
	char **path;        /* per row of the result (NULL: not found) */
	size_t n;
	struct cg_key { uint64_t inode; size_t row; } *keys; /* sorted by inode */
	const char *root;   /* the cgroup tree's directory the paths are under */
	size_t dirs;        /* directories looked at */
	int truncated;      /* the walk stopped at CG_WALK_DIRS */
};

static int key_cmp(const void *a, const void *b)
{
	const struct cg_key *x = a, *y = b;

	return x->inode < y->inode ? -1 : x->inode > y->inode;
}

static void cg_found(struct cg_names *c, uint64_t ino, const char *path)
{
	size_t lo = 0, hi = c->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->keys[mid].inode < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < c->n && c->keys[lo].inode == ino; lo++)
		if (!c->path[c->keys[lo].row])
			c->path[c->keys[lo].row] = strdup(path);
}

/*
 * The directories under DFD (PATH, LEN bytes, its name from the root):
 * bounded in depth and count, never through a symlink (O_NOFOLLOW). Takes DFD.
 */
static void cg_walk(struct cg_names *c, int dfd, char *path, size_t len, unsigned depth)
{
	DIR *d = fdopendir(dfd);
	struct dirent *e;

	if (!d) {
		close(dfd);
		return;
	}
	while ((e = readdir(d)) != NULL) {
		size_t nl = strlen(e->d_name);
		struct stat st;
		int fd;
		if (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN)
			continue;
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (c->dirs >= CG_WALK_DIRS) {
			c->truncated = 1;
			break;
		}
		if (len + 1 + nl + 1 > CG_PATH)
			continue;
		fd = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		c->dirs++;
		if (fstat(fd, &st) < 0) {
			close(fd);
			continue;
		}
		path[len] = '/';
		memcpy(path + len + 1, e->d_name, nl + 1);
		cg_found(c, (uint64_t)st.st_ino, path);
		if (depth + 1 < CG_WALK_DEPTH)
			cg_walk(c, fd, path, len + 1 + nl, depth + 1);
		else
			close(fd);
		path[len] = '\0';
	}
	closedir(d);
}

static void cg_names_free(struct cg_names *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->path[i]);
	free(c->path);
	free(c->keys);
	memset(c, 0, sizeof(*c));
}

/* Names R's cgroup rows from the tree at ROOTFD (kept open). Returns 0 or -ENOMEM. */
static int cg_names_find(struct cg_names *c, const struct pmaps_phys_result *r, int rootfd,
                         const char *root)
{
	char path[CG_PATH];
	struct stat st;
	int fd;

	memset(c, 0, sizeof(*c));
	c->root = root;
	c->n = r->ncgroups;
	if (!c->n)
		return 0;
	c->path = calloc(c->n, sizeof(*c->path));
	c->keys = calloc(c->n, sizeof(*c->keys));
	if (!c->path || !c->keys) {
		cg_names_free(c);
		return -ENOMEM;
	}
	for (size_t i = 0; i < c->n; i++) {
		c->keys[i].inode = r->cgroups[i].inode;
		c->keys[i].row = i;
	}
	qsort(c->keys, c->n, sizeof(*c->keys), key_cmp);
	if (fstat(rootfd, &st) == 0)
		cg_found(c, (uint64_t)st.st_ino, "/");
	fd = openat(rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		path[0] = '\0';
		cg_walk(c, fd, path, 0, 0);
	}
	return 0;
}

/* Row I's name: its path, "inode N", or "(no cgroup)" for inode 0. */
static void cg_put_name(struct out *o, const struct cg_names *c,
                        const struct pmaps_phys_cgroup *g, size_t i)
{
	if (i < c->n && c->path && c->path[i])
		out_table_str(o, c->path[i], strlen(c->path[i]));
	else if (g->inode == 0)
		out_str(o, "(no cgroup)");
	else {
		out_str(o, "inode ");
		out_u64(o, g->inode);
	}
}

static uint64_t cg_sum(const uint64_t *state, const unsigned *which, size_t n)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n; i++)
		v = sat_add(v, state[which[i]]);
	return v;
}

static const unsigned cg_anon[] = {PMAPS_PHYS_ANON, PMAPS_PHYS_ANON_THP, PMAPS_PHYS_LAZYFREE};
static const unsigned cg_file[] = {PMAPS_PHYS_FILE, PMAPS_PHYS_FILE_MAPPED, PMAPS_PHYS_FILE_THP};
static const unsigned cg_shmem[] = {PMAPS_PHYS_SHMEM, PMAPS_PHYS_SWAPCACHE};
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static void cg_row(struct out *o, const struct pmaps_phys_result *r, const uint64_t *state,
                   uint64_t pages)
{
	uint64_t anon = cg_sum(state, cg_anon, NELEM(cg_anon));
	uint64_t file = cg_sum(state, cg_file, NELEM(cg_file));
	uint64_t shmem = cg_sum(state, cg_shmem, NELEM(cg_shmem));
	uint64_t known = sat_add(sat_add(anon, file), shmem);

	put_num(o, pages, 12);
	put_human(o, pmaps_phys_bytes(r, pages), 9);
	put_pct(o, pages, r->pages, 8);
	put_human(o, pmaps_phys_bytes(r, anon), 9);
	put_human(o, pmaps_phys_bytes(r, file), 9);
	put_human(o, pmaps_phys_bytes(r, shmem), 9);
	put_human(o, pmaps_phys_bytes(r, pages > known ? pages - known : 0), 9);
	out_str(o, "  ");
}

/* The table of the cgroups: the largest CG_SHOWN, the rest, "other" and the total. */
static void write_cgroups_table(struct out *o, const struct pmaps_phys_result *r,
                                const struct cg_names *c)
{
	size_t shown = r->ncgroups < CG_SHOWN ? r->ncgroups : CG_SHOWN;

	out_str(o, "\n");
	if (!r->cgroups_known) {
		out_str(o, "Memory cgroups: unknown (no /proc/kpagecgroup: a kernel without "
		           "CONFIG_MEMCG)\n");
		out_record(o);
		return;
	}
	out_str(o, "Memory cgroups with pages charged to them (kpagecgroup): ");
	out_u64(o, r->ncgroups);
	out_str(o, ", named under ");
	out_table_str(o, c->root, strlen(c->root));
	if (c->truncated)
		out_str(o, "; the cgroup tree was walked only in part");
	out_str(o, "\n\n       PAGES     SIZE       %     ANON     FILE    SHMEM     REST  CGROUP\n");
	for (size_t i = 0; i < shown; i++) {
		const struct pmaps_phys_cgroup *g = &r->cgroups[i];
		cg_row(o, r, g->state, g->pages);
		cg_put_name(o, c, g, i);
		out_ch(o, '\n');
		out_record(o);
	}
	if (r->ncgroups > shown) {
		uint64_t st[PMAPS_PHYS_MAX] = {0}, pages = 0;
		for (size_t i = shown; i < r->ncgroups; i++) {
			pages = sat_add(pages, r->cgroups[i].pages);
			for (unsigned s = 0; s < PMAPS_PHYS_COUNT; s++)
				st[s] = sat_add(st[s], r->cgroups[i].state[s]);
		}
		cg_row(o, r, st, pages);
		out_str(o, "and ");
		out_u64(o, r->ncgroups - shown);
		out_str(o, " more (--json lists them all)\n");
	}
	if (r->cgroups_other) {
		put_num(o, r->cgroups_other, 12);
		put_human(o, pmaps_phys_bytes(r, r->cgroups_other), 9);
		put_pct(o, r->cgroups_other, r->pages, 8);
		out_str(o, "                                     other cgroups (beyond ");
		out_u64(o, PMAPS_PHYS_MAX_CGROUPS);
		out_str(o, ": not told apart)\n");
	}
	out_record(o);
}

static void write_cgroups_json(struct out *o, const struct pmaps_phys_result *r,
                               const struct cg_names *c)
{
	out_str(o, ",\"cgroups_known\":");
	out_str(o, r->cgroups_known ? "true" : "false");
	out_ch(o, ',');
	out_json_named(o, "cgroup_root", 11, c->root, strlen(c->root));
	out_str(o, ",\"cgroups_other_pages\":");
	out_u64(o, r->cgroups_other);
	out_str(o, ",\"cgroups\":[");
	for (size_t i = 0; i < r->ncgroups; i++) {
		const struct pmaps_phys_cgroup *g = &r->cgroups[i];
		if (i)
			out_ch(o, ',');
		out_str(o, "{\"inode\":");
		out_u64(o, g->inode);
		out_ch(o, ',');
		if (i < c->n && c->path && c->path[i])
			out_json_named(o, "path", 4, c->path[i], strlen(c->path[i]));
		else
			out_str(o, "\"path\":null");
		out_str(o, ",\"pages\":");
		out_u64(o, g->pages);
		out_str(o, ",\"bytes\":");
		out_u64(o, pmaps_phys_bytes(r, g->pages));
		out_str(o, ",\"states\":{");
		for (unsigned s = 0; s < PMAPS_PHYS_COUNT; s++) {
			if (s)
				out_ch(o, ',');
			out_ch(o, '"');
			out_str(o, pmaps_phys_state_key(s));
			out_str(o, "\":");
			out_u64(o, g->state[s]);
		}
		out_str(o, "}}");
		out_record(o);
	}
	out_ch(o, ']');
}

/*
 * The memory cgroup mount from /proc/self/mountinfo into DIR (CAP bytes):
 * a v1 hierarchy with the memory controller first (kpagecgroup's inodes are
 * then its), else cgroup2. Fields: ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS
 * [OPTIONAL...] - FSTYPE SOURCE SUPEROPTS; octal escapes (\040) in the
 * mount point. Returns 0, or -ENOENT.
 */
static int cg_mount(char *dir, size_t cap)
{
	static char buf[1 << 18];
	char v2[CG_PATH] = "";
	size_t len = 0;
	ssize_t n;
	int fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC), found = 0;

	if (fd < 0)
		return -ENOENT;
	while (len < sizeof(buf) - 1 && (n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)n;
	close(fd);
	buf[len] = '\0';
	for (char *line = buf, *nl; *line && !found; line = nl + 1) {
		char *f[6], *dash, *mp, *type, *opts, *q;
		size_t k = 0, o;
		char *sp;
		if (!(nl = strchr(line, '\n')))
			break;
		*nl = '\0';
		if (!(dash = strstr(line, " - ")))
			continue;
		*dash = '\0';
		for (sp = line; k < 5 && sp; k++) {
			f[k] = sp;
			if ((sp = strchr(sp, ' ')))
				*sp++ = '\0';
		}
		if (k < 5)
			continue;
		mp = f[4];
		type = dash + 3;
		if (!(q = strchr(type, ' ')))
			continue;
		*q++ = '\0';
		opts = strchr(q, ' ');
		opts = opts ? opts + 1 : q + strlen(q);
		/* The mount point, unescaped. */
		for (o = 0, q = mp; *q && o + 1 < cap; o++) {
			if (q[0] == '\\' && q[1] >= '0' && q[1] <= '3' && q[2] >= '0' && q[2] <= '7' &&
			    q[3] >= '0' && q[3] <= '7') {
				dir[o] = (char)((q[1] - '0') * 64 + (q[2] - '0') * 8 + (q[3] - '0'));
				q += 4;
			} else {
				dir[o] = *q++;
			}
		}
		dir[o] = '\0';
		if (strcmp(type, "cgroup") == 0) {
			for (char *t = opts, *e; t && *t; t = e ? e + 1 : NULL) {
				e = strchr(t, ',');
				if ((e ? (size_t)(e - t) : strlen(t)) == 6 && strncmp(t, "memory", 6) == 0) {
					found = 1;
					break;
				}
			}
		} else if (strcmp(type, "cgroup2") == 0 && !v2[0] && o < sizeof(v2)) {
			memcpy(v2, dir, o + 1);
		}
	}
	if (found)
		return 0;
	if (!v2[0])
		return -ENOENT;
	snprintf(dir, cap, "%s", v2);
	return 0;
}

/* The table of one reading. */
static void write_table(struct out *o, const struct pmaps_phys_result *r,
                        const struct cg_names *c)
{
	char b[32];

	out_str(o, "Physical memory: ");
	out_mem(o, b, fmt_human(b, pmaps_phys_bytes(r, r->pages)));
	out_str(o, " in ");
	out_u64(o, r->pages);
	out_str(o, " frames of ");
	out_mem(o, b, fmt_human(b, r->page_size));
	out_str(o, " (");
	out_str(o, source_words(r));
	out_str(o, ")\n\nSTATE              PAGES     SIZE       %  WHAT\n");
	for (unsigned s = 0; s < PMAPS_PHYS_COUNT; s++) {
		const char *k = pmaps_phys_state_key(s);
		out_ljust(o, k, strlen(k), 12);
		put_num(o, r->state[s], 12);
		put_human(o, pmaps_phys_bytes(r, r->state[s]), 9);
		put_pct(o, r->state[s], r->pages, 8);
		out_str(o, "  ");
		out_str(o, phys_styles[s].what);
		out_ch(o, '\n');
	}
	out_ljust(o, "total", 5, 12);
	put_num(o, r->pages, 12);
	put_human(o, pmaps_phys_bytes(r, r->pages), 9);
	put_pct(o, r->pages, r->pages, 8);
	if (r->state[PMAPS_PHYS_UNINIT] && r->meminfo_known) {
		/* What /proc/meminfo says of them: its MemFree beyond the buddy's free. */
		uint64_t beyond = r->meminfo_free > r->state[PMAPS_PHYS_FREE]
		                      ? r->meminfo_free - r->state[PMAPS_PHYS_FREE] : 0;
		out_str(o, "\n\nuninit: the kernel defers initialising these frames until it needs them;\n"
		        "/proc/meminfo counts ");
		out_mem(o, b, fmt_human(b, pmaps_phys_bytes(r, beyond)));
		out_str(o, " of them free (MemFree ");
		out_mem(o, b, fmt_human(b, pmaps_phys_bytes(r, r->meminfo_free)));
		out_str(o, ": free and that).");
	}
	out_str(o, "\n\nFLAG               PAGES     SIZE       %\n");
	for (unsigned f = 0; f < PMAPS_PHYS_F_COUNT; f++) {
		const char *k = pmaps_phys_flag_key(f);
		out_ljust(o, k, strlen(k), 12);
		if (r->flags_known & (1ull << f)) {
			put_num(o, r->flag[f], 12);
			put_human(o, pmaps_phys_bytes(r, r->flag[f]), 9);
			put_pct(o, r->flag[f], r->pages, 8);
		} else {
			out_rjust(o, "-", 1, 12);
			out_rjust(o, "-", 1, 9);
			out_rjust(o, "-", 1, 8);
		}
		out_ch(o, '\n');
	}
	out_record(o);
	if (c)
		write_cgroups_table(o, r, c);
}

static void json_pages(struct out *o, const struct pmaps_phys_result *r, const char *key,
                       uint64_t pages)
{
	out_json_str(o, key, strlen(key));
	out_str(o, ":{\"pages\":");
	out_u64(o, pages);
	out_str(o, ",\"bytes\":");
	out_u64(o, pmaps_phys_bytes(r, pages));
	out_ch(o, '}');
}

/* One reading as one line of JSON. */
static void write_json(struct out *o, const struct pmaps_phys_result *r,
                       const struct cg_names *c)
{
	out_str(o, "{\"page_size\":");
	out_u64(o, r->page_size);
	out_str(o, ",\"total_pages\":");
	out_u64(o, r->pages);
	out_str(o, ",\"total_bytes\":");
	out_u64(o, pmaps_phys_bytes(r, r->pages));
	out_str(o, ",\"holes_known\":");
	out_str(o, r->holes_known ? "true" : "false");
	out_str(o, ",\"block_pages\":");
	out_u64(o, r->block_pages);
	out_str(o, ",\"blocks\":");
	out_u64(o, r->blocks);
	out_str(o, ",\"states\":{");
	for (unsigned s = 0; s < PMAPS_PHYS_COUNT; s++) {
		if (s)
			out_ch(o, ',');
		json_pages(o, r, pmaps_phys_state_key(s), r->state[s]);
	}
	out_str(o, "},\"meminfo_free_pages\":");
	if (r->meminfo_known)
		out_u64(o, r->meminfo_free);
	else
		out_str(o, "null");
	out_str(o, ",\"flags\":{");
	for (unsigned f = 0; f < PMAPS_PHYS_F_COUNT; f++) {
		const char *k = pmaps_phys_flag_key(f);
		if (f)
			out_ch(o, ',');
		if (r->flags_known & (1ull << f)) {
			json_pages(o, r, k, r->flag[f]);
		} else {
			out_json_str(o, k, strlen(k));
			out_str(o, ":null");
		}
	}
	out_ch(o, '}');
	if (c)
		write_cgroups_json(o, r, c);
	out_str(o, "}\n");
	out_record(o);
}

/* ---- the picture ---- */

#define SVG_CELL 6.0      /* a cell's side */
#define SVG_COLS 128      /* cells per row */
#define SVG_MAX_ROWS 256  /* more blocks than this holds: several blocks a cell */
#define SVG_LEFT 70.0     /* the addresses' column */
#define SVG_TOP 48.0
#define SVG_LEGEND_ROW 16.0

/* "0x..." of frame PFN's address into B (24 bytes). */
static size_t addr_label(char *b, const struct pmaps_phys_result *r, uint64_t pfn)
{
	b[0] = '0';
	b[1] = 'x';
	return 2 + fmt_hex(b + 2, pmaps_phys_bytes(r, pfn), 1);
}

static void write_svg(struct out *o, const struct pmaps_phys_result *r)
{
	uint64_t per_cell = 1, cells, rows, frames_per_cell;
	unsigned shown[PMAPS_PHYS_COUNT] = {0}, nshown = 0;
	double width, height, grid_h, y;
	char title[256], b1[32], b2[32], b3[32];
	int tl;

	cells = r->blocks;
	while (cells / per_cell + (cells % per_cell != 0) > (uint64_t)SVG_COLS * SVG_MAX_ROWS)
		per_cell *= 2;
	cells = cells / per_cell + (cells % per_cell != 0);
	rows = cells / SVG_COLS + (cells % SVG_COLS != 0);
	frames_per_cell = r->block_pages * per_cell;
	for (unsigned s = 0; s < PMAPS_PHYS_COUNT; s++)
		if (r->state[s])
			shown[nshown++] = s;
	grid_h = (double)rows * SVG_CELL;
	width = SVG_LEFT + SVG_COLS * SVG_CELL + 20;
	height = SVG_TOP + grid_h + 24 + ((nshown + 1) / 2) * SVG_LEGEND_ROW + 12;
	fmt_human(b1, pmaps_phys_bytes(r, r->pages));
	fmt_human(b2, pmaps_phys_bytes(r, frames_per_cell));
	tl = snprintf(title, sizeof(title), "Physical memory: %s in %llu frames", b1,
	              (unsigned long long)r->pages);
	svg_begin(o, width, height, title, (size_t)(tl > 0 ? tl : 0));
	svg_rect(o, 0, 0, width, height, SVG_C_BACKGROUND, NULL, 0);
	svg_text(o, 10, 18, SVG_START, 14, SVG_C_INK, title, (size_t)(tl > 0 ? tl : 0));
	fmt_u64(b3, frames_per_cell);
	tl = snprintf(title, sizeof(title), "a cell = %s (%s frames), coloured by the state most of "
	              "its frames are in; %s", b2, b3, source_words(r));
	svg_text(o, 10, 36, SVG_START, 10, SVG_C_INK, title, (size_t)(tl > 0 ? tl : 0));

	/* The grid, a row at a time, equal neighbours one rectangle. */
	for (uint64_t row = 0; row < rows; row++) {
		uint64_t c = 0, first = row * SVG_COLS;
		uint64_t n = cells - first < SVG_COLS ? cells - first : SVG_COLS;
		y = SVG_TOP + (double)row * SVG_CELL;
		if (row % 8 == 0) {
			size_t l = addr_label(b1, r, first * frames_per_cell);
			svg_text(o, SVG_LEFT - 4, y + 7, SVG_END, 8, SVG_C_INK, b1, l);
		}
		while (c < n) {
			unsigned s = phys_cell_state(r, (first + c) * per_cell, per_cell);
			uint64_t e = c + 1;
			char tip[128];
			size_t l1, l2;
			int tn;
			while (e < n && phys_cell_state(r, (first + e) * per_cell, per_cell) == s)
				e++;
			l1 = addr_label(b1, r, (first + c) * frames_per_cell);
			l2 = addr_label(b2, r, (first + e) * frames_per_cell);
			tn = snprintf(tip, sizeof(tip), "%.*s-%.*s %s", (int)l1, b1, (int)l2, b2,
			              pmaps_phys_state_key(s));
			svg_rect(o, SVG_LEFT + (double)c * SVG_CELL, y, (double)(e - c) * SVG_CELL,
			         SVG_CELL, phys_styles[s].svg, tip, (size_t)(tn > 0 ? tn : 0));
			c = e;
		}
		out_record(o);
	}

	/* The legend: the states present, with their sizes, in two columns. */
	y = SVG_TOP + grid_h + 24;
	for (unsigned i = 0; i < nshown; i++) {
		unsigned s = shown[i];
		double x = 10 + (i % 2) * (width / 2), yy = y + (i / 2) * SVG_LEGEND_ROW;
		char pct[24], line[160];
		int n;
		fmt_human(b1, pmaps_phys_bytes(r, r->state[s]));
		fmt_percent(pct, r->state[s], r->pages);
		n = snprintf(line, sizeof(line), "%s %s (%s): %s", pmaps_phys_state_key(s), b1, pct,
		             phys_styles[s].what);
		svg_rect(o, x - 1, yy - 10, 12, 12, "#999999", NULL, 0); /* a frame: free is near white */
		svg_rect(o, x, yy - 9, 10, 10, phys_styles[s].svg, NULL, 0);
		svg_text(o, x + 14, yy, SVG_START, 10, SVG_C_INK, line, (size_t)(n > 0 ? n : 0));
	}
	svg_end(o);
}

/* The one line a failed open or read is. */
static int phys_fail(const char *root, const char *msg, int err)
{
	/* The library names a proc root it cannot open itself. */
	if (root && !(msg && strncmp(msg, "proc root ", 10) == 0))
		die_msg("phys: %s (proc root %s)", msg && msg[0] ? msg : pmaps_strerror(err), root);
	else
		die_msg("phys: %s", msg && msg[0] ? msg : pmaps_strerror(err));
	return EXIT_FAIL;
}

/* BYTES exactly, in the largest unit that divides it: "28K", "3M", "1G". */
static void exact_size(char *b, size_t bn, uint64_t bytes)
{
	static const char unit[] = "KMGT";
	int u = -1;

	while (u < 3 && bytes % (1024ull << (10 * (u + 1))) == 0)
		u++;
	if (u < 0)
		snprintf(b, bn, "%llu", (unsigned long long)bytes);
	else
		snprintf(b, bn, "%llu%c", (unsigned long long)(bytes >> (10 * (u + 1))), unit[u]);
}

/*
 * A --block-size GIVEN that makes more blocks than a handle keeps (-E2BIG
 * from the open): a usage error naming the smallest that fits, as a size.
 * The library's own rule finds it: the open is tried with larger blocks
 * (doubling, then halving the gap; an open that fits reads no frame and
 * allocates what it would for the picture, untouched). The frames it found
 * too many for come from the smallest fit: between 2^20 (LEAST - 1) and
 * 2^20 LEAST, which is what the message says.
 */
static int too_many_blocks(const char *root, const struct pmaps_phys_opts *base,
                           const char *given, uint64_t ps)
{
	struct pmaps_phys_opts o = *base;
	struct pmaps_phys *q = NULL;
	uint64_t bad = base->block_pages, good = 0, try = bad;
	char m[512], least[32], most[32];
	int err;

	o.flags &= ~(uint32_t)PMAPS_PHYS_MAPCOUNT;
	o.threads = 1;
	/* BAD fails; GOOD (0: none yet) fits. Block sizes below 2^32 frames only. */
	while (!good) {
		try = bad * 2 < (1ull << 32) ? bad * 2 : (1ull << 32) - 1;
		o.block_pages = try;
		err = pmaps_phys_open(&q, root, &o, m, sizeof(m));
		pmaps_phys_close(q);
		q = NULL;
		if (err == 0)
			good = try;
		else if (err != -E2BIG || try == (1ull << 32) - 1)
			return phys_fail(root, m, err);
		else
			bad = try;
	}
	while (good - bad > 1) {
		uint64_t mid = bad + (good - bad) / 2;
		o.block_pages = mid;
		err = pmaps_phys_open(&q, root, &o, m, sizeof(m));
		pmaps_phys_close(q);
		q = NULL;
		if (err == 0)
			good = mid;
		else if (err == -E2BIG)
			bad = mid;
		else
			return phys_fail(root, m, err);
	}
	exact_size(least, sizeof(least), good * ps);
	/* The product saturates rather than wraps. */
	if (good - 1 > UINT64_MAX / PMAPS_PHYS_MAX_BLOCKS / ps)
		fmt_human(most, UINT64_MAX);
	else
		fmt_human(most, (uint64_t)PMAPS_PHYS_MAX_BLOCKS * (good - 1) * ps);
	die_msg("--block-size %s makes more than %u blocks of this machine's memory (more than "
	        "%s): at least %s", given, PMAPS_PHYS_MAX_BLOCKS, most, least);
	return EXIT_USAGE;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

int cmd_phys(int argc, char **argv)
{
	static const char shortopts[] = "+ji:qh";
	static const struct option longopts[] = {
		{"summary", no_argument, NULL, 'S'},
		{"json", no_argument, NULL, 'j'},
		{"svg", required_argument, NULL, 'G'},
		{"quiet", no_argument, NULL, 'q'},
		{"interval", required_argument, NULL, 'i'},
		{"count", required_argument, NULL, 'c'},
		{"block-size", required_argument, NULL, 'B'},
		{"threads", required_argument, NULL, 'T'},
		{"proc-root", required_argument, NULL, 'R'},
		{"cgroups", no_argument, NULL, 'C'},
		{"cgroup-root", required_argument, NULL, 'P'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct pmaps_phys_opts po = {sizeof(po), PMAPS_PHYS_MAPCOUNT, 0, 0, 0, NULL, PMAPS_PHYS_COUNT};
	const char *root = NULL, *svg_path = NULL, *optarg_block = NULL, *cg_root = NULL;
	int cgroups = 0, cgfd = -1;
	struct cg_names cgn, *cgp = NULL;
	char cg_dir[CG_PATH];
	uint64_t interval_ns = 1000000000u, count = 1, block_bytes = 0;
	int summary = 0, json = 0, count_given = 0, ch, rc = EXIT_OK, svg_open = 0, err, quiet = 0;
	struct outfile svg_out;
	char omsg[512] = "";
	struct pmaps_phys *p = NULL;
	const struct pmaps_phys_result *r;
	char msg[512] = "", obuf[OUT_FD_BUFSIZE];
	struct out o;
	long ps = sysconf(_SC_PAGESIZE), cpus = sysconf(_SC_NPROCESSORS_ONLN);
	uint64_t threads = cpus >= 2 ? 2 : 1;

	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (ch) {
		case 'S': summary = 1; break;
		case 'j': json = 1; break;
		case 'G': svg_path = optarg; break;
		case 'q': quiet = 1; break;
		case 'i':
			/* At most a day: the live view's wait is an int of milliseconds. */
			if (parse_time(optarg, 1000000000u, &interval_ns) < 0 || interval_ns < 10000000u ||
			    interval_ns > 86400000000000u) {
				die_msg("--interval takes a time from 10ms to 1 day (86400s), as 1, 0.5, "
				        "500ms, 2s or 1h, not '%s'", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'c':
			if (parse_decimal(optarg, 1000000000u, &count) < 0) {
				die_msg("--count takes a number of readings (0: until interrupted), not '%s'",
				        optarg);
				return EXIT_USAGE;
			}
			count_given = 1;
			break;
		case 'B':
			if (parse_size(optarg, &block_bytes) < 0 || ps <= 0 || block_bytes == 0 ||
			    block_bytes % (uint64_t)ps || block_bytes / (uint64_t)ps >= (1ull << 32)) {
				die_msg("--block-size takes a size that is a multiple of the page size "
				        "(%ld), below 2^32 pages, as 2M or 1G, not '%s'", ps, optarg);
				return EXIT_USAGE;
			}
			po.block_pages = block_bytes / (uint64_t)ps;
			optarg_block = optarg;
			break;
		case 'T':
			if (parse_decimal(optarg, 16, &threads) < 0 || threads == 0) {
				die_msg("--threads takes a number from 1 to 16, not '%s'", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'R': root = optarg; break;
		case 'C': cgroups = 1; break;
		case 'P': cg_root = optarg; break;
		case 'h': return print_usage(phys_usage);
		default: return option_error("phys", argv, shortopts, longopts);
		}
	}
	if (optind != argc) {
		die_msg("phys takes no arguments, not '%s' (see pmaps phys --help)", argv[optind]);
		return EXIT_USAGE;
	}
	if (summary && json) {
		die_msg("--summary (the table) and --json do not go together: choose one");
		return EXIT_USAGE;
	}
	if (svg_path && count_given && count != 1) {
		die_msg("--svg pictures one reading: --count does not go with it");
		return EXIT_USAGE;
	}
	if (cgroups && svg_path) {
		die_msg("--cgroups is a table or JSON: it does not go with --svg");
		return EXIT_USAGE;
	}
	if (cg_root && !cgroups) {
		die_msg("--cgroup-root names the cgroups of --cgroups: give --cgroups too");
		return EXIT_USAGE;
	}
	if (cg_root && !cg_root[0]) {
		die_msg("--cgroup-root takes a directory, not ''");
		return EXIT_USAGE;
	}
	/* --cgroups is the table (or JSON): never the live picture. */
	if (cgroups && !json)
		summary = 1;
	/* The cgroup tree first: a wrong --cgroup-root fails before any reading. */
	if (cgroups) {
		if (!cg_root) {
			if (cg_mount(cg_dir, sizeof(cg_dir)) == 0)
				cg_root = cg_dir;
			else
				cg_root = "/sys/fs/cgroup";
		}
		cgfd = open(cg_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (cgfd < 0) {
			die_msg("phys: --cgroup-root %s: %s", cg_root,
			        errno == ENOENT || errno == ENOTDIR ? "no such directory"
			                                            : strerror(errno));
			return EXIT_FAIL;
		}
		po.flags |= PMAPS_PHYS_CGROUP;
	}
	if (svg_path && !svg_path[0]) {
		die_msg("--svg takes a file name, not ''");
		return EXIT_USAGE;
	}
	/*
	 * The picture's file first: a path that cannot be written fails before
	 * any reading; what is at the path stays untouched until the picture is
	 * whole (outfile.h).
	 */
	if (svg_path) {
		if (strcmp(svg_path, "-") == 0 && (summary || json)) {
			die_msg("--svg - (standard output) does not go with --summary or --json: "
			        "they write there too");
			return EXIT_USAGE;
		}
		if ((err = outfile_open(&svg_out, svg_path, omsg, sizeof(omsg))) < 0) {
			die_msg("phys: --svg %s: %s", svg_path, omsg[0] ? omsg : strerror(-err));
			return EXIT_FAIL;
		}
		svg_open = 1;
	}
	/*
	 * kpagecount (mapped, shared) doubles a reading's time: for the counts
	 * (table, JSON) only, never for a picture alone or the live view.
	 */
	if (!summary && !json && (svg_path || (!count_given && isatty(STDOUT_FILENO) &&
	                                       isatty(STDIN_FILENO))))
		po.flags &= ~(uint32_t)PMAPS_PHYS_MAPCOUNT;
#if PMAPS_WITH_TUI
	po.cancel = &phys_tui_cancel; /* set only by the live view's q and signals */
#endif
	po.threads = (uint32_t)threads;
	if ((err = pmaps_phys_open(&p, root, &po, msg, sizeof(msg))) < 0) {
		if (err == -E2BIG && block_bytes)
			rc = too_many_blocks(root, &po, optarg_block, (uint64_t)ps);
		else
			rc = phys_fail(root, msg, err);
		goto out;
	}
	/*
	 * The live picture, for a person at a terminal who asked for nothing
	 * else; a build without it (PMAPS_WITH_TUI=OFF) writes the table there.
	 */
#if PMAPS_WITH_TUI
	if (!svg_path && !summary && !json && !count_given && isatty(STDOUT_FILENO) &&
	    isatty(STDIN_FILENO)) {
		const char *nc = getenv("NO_COLOR");
		rc = phys_tui_run(p, root, interval_ns, !(nc && nc[0]));
		goto out;
	}
#endif
	if (svg_path) {
		struct out so;
		char sbuf[OUT_FD_BUFSIZE];
		if ((err = pmaps_phys_read(p, &r)) < 0) {
			rc = phys_fail(root, pmaps_phys_errmsg(p), err);
			goto out;
		}
		if ((err = outfile_begin(&svg_out, omsg, sizeof(omsg))) < 0) {
			die_msg("phys: --svg %s: %s", svg_path, omsg[0] ? omsg : strerror(-err));
			rc = EXIT_FAIL;
			goto out;
		}
		out_fd(&so, svg_out.fd, sbuf, sizeof(sbuf));
		write_svg(&so, r);
		out_flush(&so);
		if (so.err) {
			die_msg("phys: --svg %s: %s", svg_path, strerror(so.err));
			rc = EXIT_FAIL;
			goto out;
		}
		if ((err = outfile_commit(&svg_out, omsg, sizeof(omsg))) < 0) {
			die_msg("phys: --svg %s: %s", svg_path, omsg[0] ? omsg : strerror(-err));
			rc = EXIT_FAIL;
			goto out;
		}
		svg_open = 0;
		if (!quiet) {
			char mem[32];
			fmt_human(mem, r->pages > UINT64_MAX / r->page_size ? UINT64_MAX
			                                                   : r->pages * r->page_size);
			outfile_said(&svg_out, "physical memory, %s (%llu frames): %llu blocks of %llu "
			             "frames, each in the colour of its main state", mem,
			             (unsigned long long)r->pages,
			             (unsigned long long)r->blocks, (unsigned long long)r->block_pages);
		}
		if (!summary && !json)
			goto out;
		out_fd(&o, STDOUT_FILENO, obuf, sizeof(obuf));
		if (json)
			write_json(&o, r, NULL);
		else
			write_table(&o, r, NULL);
		rc = finish_output(&o, EXIT_OK);
		goto out;
	}
	out_fd(&o, STDOUT_FILENO, obuf, sizeof(obuf));
	for (uint64_t i = 0; count == 0 || i < count; i++) {
		uint64_t t0 = 0;
		if (i) {
			t0 = r->read_ns;
			sleep_ns(interval_ns > t0 ? interval_ns - t0 : 0);
		}
		if ((err = pmaps_phys_read(p, &r)) < 0) {
			out_flush(&o);
			rc = phys_fail(root, pmaps_phys_errmsg(p), err);
			goto out;
		}
		if (cgroups) {
			if (cg_names_find(&cgn, r, cgfd, cg_root) < 0) {
				out_flush(&o);
				die_msg("phys: out of memory for the cgroups' names");
				rc = EXIT_FAIL;
				goto out;
			}
			cgp = &cgn;
		}
		if (json) {
			write_json(&o, r, cgp);
		} else {
			if (i)
				out_ch(&o, '\n');
			write_table(&o, r, cgp);
		}
		if (cgp) {
			cg_names_free(cgp);
			cgp = NULL;
		}
		out_flush(&o);
		if (o.err)
			break;
	}
	rc = finish_output(&o, EXIT_OK);
out:
	if (svg_open)
		outfile_abort(&svg_out);
	if (cgfd >= 0)
		close(cgfd);
	pmaps_phys_close(p);
	return rc;
}
