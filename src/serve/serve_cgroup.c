/* SPDX-License-Identifier: MIT */
/*
 * serve_cgroup.c - pmaps serve's memory cgroups, containers and pods, and
 * the machine's reclaim counters.
 *
 * After each refresh of the processes, the memory cgroups that hold a
 * selected process, and their ancestors, are read again through the
 * library (pmaps_cgroup_mem_read(): v2, or v1 under the same names), and
 * /proc/vmstat with the memory PSI. The root cgroup is the machine, said by
 * pmaps_meminfo_bytes and these counters: it is left out. A cgroup path is
 * bytes the cgroup's manager chose: it is opened below the hierarchy's
 * root only (pmaps_cgroup_dir_open()) and escaped as every label.
 *
 * What a path says of a container, a pod or a systemd unit comes from the
 * names their managers give cgroups (pmaps_cgroup_ident()): no runtime is
 * asked, no dependency added.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/num.h"
#include "common/out.h"
#include "common/tool.h"
#include "serve/serve.h"

#define CG_PATH 256 /* the survey's room for a path: longer ones are cut, and left out here */

struct scg {
	char path[CG_PATH];
	size_t len;
	uint32_t processes;           /* selected processes in it (not below) */
	struct pmaps_cgroup_ident id; /* its UNIT a view into PATH */
	struct pmaps_cgroup_mem mem;
};

/* A path of this refresh: a row's (DIRECT) or an ancestor's. */
struct cand {
	const char *p;
	size_t len;
	int direct;
};

struct serve_cgroups {
	int rootfd;                   /* the memory hierarchy's root (-1: none) */
	int version;                  /* 2 or 1 */
	struct scg *cg;               /* CG[0, N): the cgroups read in the last refresh */
	size_t n, cap;
	struct cand *cand;            /* the last refresh's paths, sorted, each once */
	size_t ncand, candcap;
	size_t gone, failed, left_out; /* this refresh's cgroups not read, by why */
	size_t outside;               /* processes in a cgroup above the namespace's root */
	struct pmaps_vmstat vm;
	int vm_ok;
	/*
	 * This reader's cgroup namespace root in the tree (serve in a
	 * container with a namespace of its own, the machine's tree mounted):
	 * sought when a path first climbs above it ("/../.."). NSROOT_STATE 0
	 * not sought, 1 found (every path is joined to it), -1 not found.
	 */
	char nsroot[CG_PATH];
	size_t nsroot_len;
	int nsroot_state;
	char *joined;                 /* the rows' paths joined to it: CG_PATH a row */
	size_t joined_cap;            /* rows */
};

int serve_cgroups_open(struct serve *sv)
{
	struct serve_cgroups *c = calloc(1, sizeof(*c));
	char msg[512];

	if (!c)
		return -1;
	c->rootfd = -1;
	sv->cgroups = c;
	if (sv->o.no_cgroups)
		return 0;
	c->rootfd = pmaps_cgroup_root_open(sv->o.cgroup_root, &c->version, msg, sizeof(msg));
	if (c->rootfd < 0) {
		c->rootfd = -1;
		/* Named, it must be there (a typo in a unit would drop every cgroup series). */
		if (sv->o.cgroup_root) {
			die_msg("serve: --cgroup-root %s", msg);
			return -2;
		}
		note_msg("serve: no memory cgroups: %s (the pmaps_cgroup_* families are left out; "
		         "--cgroup-root DIR names another mount)", msg);
	}
	return 0;
}

void serve_cgroups_close(struct serve *sv)
{
	struct serve_cgroups *c = sv->cgroups;

	if (!c)
		return;
	if (c->rootfd >= 0)
		close(c->rootfd);
	free(c->cg);
	free(c->cand);
	free(c->joined);
	free(c);
	sv->cgroups = NULL;
}

static int cand_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int r = memcmp(x->p, y->p, n);

	if (r)
		return r;
	return (x->len > y->len) - (x->len < y->len);
}

static int cand_direct_first(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if ((x->direct > 0) != (y->direct > 0))
		return x->direct > 0 ? -1 : 1;
	return cand_cmp(a, b);
}

static int cand_push(struct serve_cgroups *c, const char *p, size_t len, int direct)
{
	if (c->ncand == c->candcap) {
		size_t cap = c->candcap ? c->candcap * 2 : 256;
		struct cand *n = realloc(c->cand, cap * sizeof(*n));
		if (!n)
			return -1;
		c->cand = n;
		c->candcap = cap;
	}
	c->cand[c->ncand++] = (struct cand){p, len, direct};
	return 0;
}

static int climbs(const char *p, size_t len)
{
	return len >= 3 && memcmp(p, "/..", 3) == 0 && (len == 3 || p[3] == '/');
}

/*
 * Where a path that climbs above this reader's cgroup namespace root is in
 * the tree: that root sought once, below the hierarchy's root.
 */
static void seek_nsroot(struct serve_cgroups *c)
{
	int r = pmaps_cgroup_ns_root(c->rootfd, c->version, c->nsroot, sizeof(c->nsroot));

	if (r > 1) {
		c->nsroot_len = (size_t)r;
		c->nsroot_state = 1;
		note_msg("serve: this reader's cgroup namespace starts at %s of the tree below "
		         "--cgroup-root: the processes' cgroup paths are read from there", c->nsroot);
		return;
	}
	c->nsroot_state = -1;
	note_msg("serve: cgroup paths above this reader's cgroup namespace (/..) are not read: "
	         "%s (pmaps_scrape_cgroups{outcome=\"outside\"} counts their processes)",
	         r == 1 ? "the namespace's root is the tree's, which has nothing above it"
	                : r == -ENOENT ? "no cgroup below --cgroup-root lists this process"
	                               : pmaps_strerror(r));
}

/*
 * The path of ROW's memory cgroup from the tree's root into OUT (CG_PATH
 * bytes): as the row has it, or joined to this reader's namespace root.
 * Its length, or 0 when it cannot be said (above a root not found).
 */
static size_t tree_path(const struct serve_cgroups *c, const struct pmaps_survey_row *row,
                        char *out)
{
	const char *p = row->memcg.ptr;
	size_t len = row->memcg.len;
	int r;

	if (c->nsroot_state == 1) {
		r = pmaps_cgroup_path_join(c->nsroot, c->nsroot_len, p, len, out, CG_PATH);
		return r > 0 ? (size_t)r : 0;
	}
	if (climbs(p, len) || len >= CG_PATH)
		return 0;
	memcpy(out, p, len);
	out[len] = '\0';
	return len;
}

/* The paths of this refresh, sorted, each once: a row's, and each of its ancestors but "/". */
static int candidates(struct serve *sv, struct serve_cgroups *c)
{
	const struct top *t = &sv->top;
	size_t w = 0;

	c->ncand = 0;
	if (c->nsroot_state == 0) {
		for (size_t i = 0; i < t->nlines && c->nsroot_state == 0; i++) {
			const struct pmaps_survey_row *row = t->lines[i].row;
			if (row && climbs(row->memcg.ptr, row->memcg.len))
				seek_nsroot(c);
		}
	}
	if (c->nsroot_state == 1 && c->joined_cap < t->nlines) {
		char *j = realloc(c->joined, t->nlines * CG_PATH);
		if (!j)
			return -1;
		c->joined = j;
		c->joined_cap = t->nlines;
	}
	for (size_t i = 0; i < t->nlines; i++) {
		const struct pmaps_survey_row *row = t->lines[i].row;
		const char *p;
		size_t len;
		if (!row || row->memcg.len < 2 || row->memcg.ptr[0] != '/' ||
		    (row->flags & PMAPS_SURVEY_CGROUP_TRUNCATED))
			continue;
		p = row->memcg.ptr;
		len = row->memcg.len;
		if (c->nsroot_state == 1) {
			/* From the namespace's root: joined to where that is in the tree. */
			char *j = c->joined + i * CG_PATH;
			len = tree_path(c, row, j);
			p = j;
			if (len == 0 && climbs(row->memcg.ptr, row->memcg.len))
				c->outside++; /* above the tree's own root: not in this mount */
			if (len < 2)
				continue; /* the tree's root, or a path too long to keep */
		} else if (climbs(p, len)) {
			/*
			 * "/../..": above this reader's cgroup namespace root, which
			 * was not found in the tree. Counted, not guessed.
			 */
			c->outside++;
			continue;
		}
		if (cand_push(c, p, len, 1) < 0)
			return -1;
		for (size_t k = len - 1; k > 1; k--)
			if (p[k - 1] == '/' && cand_push(c, p, k - 1, 0) < 0)
				return -1;
	}
	if (!c->ncand)
		return 0;
	qsort(c->cand, c->ncand, sizeof(c->cand[0]), cand_cmp);
	for (size_t i = 1; i < c->ncand; i++) {
		if (cand_cmp(&c->cand[w], &c->cand[i]) == 0)
			c->cand[w].direct += c->cand[i].direct;
		else
			c->cand[++w] = c->cand[i];
	}
	c->ncand = w + 1;
	return 0;
}

void serve_cgroups_refresh(struct serve *sv)
{
	struct serve_cgroups *c = sv->cgroups;
	size_t want;

	if (!c)
		return;
	c->vm.size = sizeof(c->vm);
	c->vm_ok = pmaps_vmstat_read(sv->o.top.root, &c->vm, NULL, 0) == 0;
	c->n = c->gone = c->failed = c->left_out = c->outside = 0;
	if (c->rootfd < 0)
		return;
	if (candidates(sv, c) < 0) {
		c->failed = c->ncand; /* out of memory: none read, and said */
		return;
	}
	want = c->ncand;
	if (want > sv->o.max_cgroups) {
		/* Past the bound, the cgroups that hold processes first, each part in path order. */
		qsort(c->cand, c->ncand, sizeof(c->cand[0]), cand_direct_first);
		c->left_out = want - sv->o.max_cgroups;
		want = sv->o.max_cgroups;
	}
	if (want > c->cap) {
		struct scg *n = realloc(c->cg, want * sizeof(*n));
		if (!n) {
			c->failed = want;
			return;
		}
		c->cg = n;
		c->cap = want;
	}
	for (size_t i = 0; i < want; i++) {
		struct scg *g = &c->cg[c->n];
		int fd, r;
		memcpy(g->path, c->cand[i].p, c->cand[i].len);
		g->path[c->cand[i].len] = '\0';
		g->len = c->cand[i].len;
		g->processes = (uint32_t)c->cand[i].direct;
		pmaps_cgroup_ident(g->path, g->len, &g->id);
		g->mem.size = sizeof(g->mem);
		fd = pmaps_cgroup_dir_open(c->rootfd, g->path, g->len);
		if (fd < 0) {
			if (fd == -ENOENT)
				c->gone++;
			else
				c->failed++;
			continue;
		}
		r = pmaps_cgroup_mem_read(fd, c->version, &g->mem, NULL, 0);
		close(fd);
		if (r < 0) {
			if (r == -ENOENT)
				c->gone++;
			else
				c->failed++;
			continue;
		}
		c->n++; /* a cgroup that could not be read leaves its slot to the next */
	}
}

/* ---- labels ---- */

static void ident_labels(struct out *o, const struct pmaps_cgroup_ident *id)
{
	if (id->container_id[0]) {
		out_str(o, ",container_id=\"");
		out_str(o, id->container_id); /* hex digits */
		out_ch(o, '"');
	}
	if (id->pod_uid[0]) {
		out_str(o, ",pod_uid=\"");
		out_str(o, id->pod_uid); /* hex digits and dashes */
		out_ch(o, '"');
	}
	if (id->qos[0]) {
		out_str(o, ",qos=\"");
		out_str(o, id->qos);
		out_ch(o, '"');
	}
	if (id->unit.len) {
		out_str(o, ",unit=\"");
		serve_label(o, id->unit.ptr, id->unit.len);
		out_ch(o, '"');
	}
}

void serve_cgroup_labels(struct serve *sv, struct out *o, const struct pmaps_survey_row *row)
{
	struct pmaps_cgroup_ident id;
	char path[CG_PATH];
	const char *p = row->memcg.ptr;
	size_t len = row->memcg.len;

	/* The tree's path where it is known: the one the cgroup's own series carry. */
	if (sv->cgroups && sv->cgroups->nsroot_state == 1 &&
	    (len = tree_path(sv->cgroups, row, path)) > 0)
		p = path;
	else
		len = row->memcg.len;
	out_str(o, ",cgroup=\"");
	serve_label(o, p, len);
	out_ch(o, '"');
	pmaps_cgroup_ident(p, len, &id);
	ident_labels(o, &id);
}

size_t serve_cgroup_key(enum serve_group by, const struct pmaps_survey_row *row, char *key,
                        size_t room)
{
	struct pmaps_cgroup_ident id;
	const char *k = NULL;
	size_t len = 0;

	/* The memory controller's path, else the v2 one (they differ on the hybrid layout). */
	for (int pass = 0; pass < 2 && !len; pass++) {
		const struct pmaps_view *v = pass ? &row->cgroup : &row->memcg;
		if (!v->len)
			continue;
		pmaps_cgroup_ident(v->ptr, v->len, &id);
		if (by == SERVE_BY_CONTAINER)
			k = id.container_id, len = strlen(k);
		else if (by == SERVE_BY_POD)
			k = id.pod_uid, len = strlen(k);
		else
			k = id.unit.ptr, len = id.unit.len;
	}
	if (len > room)
		len = room; /* escaped when shown */
	if (len)
		memcpy(key, k, len);
	return len;
}

/* ---- the families ---- */

struct cgfam {
	const char *name;
	const char *type;   /* "gauge", "counter" */
	const char *unit;   /* OpenMetrics' UNIT, or NULL */
	const char *label;  /* the family's one label over its fields, or NULL */
	const char *help;
	struct {
		int f;          /* enum pmaps_cgroup_field, or -1: the end */
		const char *value; /* LABEL's value */
	} fields[18];
};

#define END {-1, NULL}
static const struct cgfam cg_fams[] = {
	{"pmaps_cgroup_memory_current_bytes", "gauge", "bytes", NULL,
	 "Memory charged to the cgroup and below (v2 memory.current; v1 memory.usage_in_bytes)",
	 {{PMAPS_CG_CURRENT, NULL}, END}},
	{"pmaps_cgroup_memory_peak_bytes", "gauge", "bytes", NULL,
	 "The most ever charged to it (v2 memory.peak, Linux 5.19; v1 memory.max_usage_in_bytes)",
	 {{PMAPS_CG_PEAK, NULL}, END}},
	{"pmaps_cgroup_memory_max_bytes", "gauge", "bytes", NULL,
	 "Its hard limit, past which the OOM killer acts (v2 memory.max; v1 "
	 "memory.limit_in_bytes); absent when unlimited",
	 {{PMAPS_CG_MAX, NULL}, END}},
	{"pmaps_cgroup_memory_high_bytes", "gauge", "bytes", NULL,
	 "Its throttling limit (v2 memory.high); absent when unlimited, and on v1",
	 {{PMAPS_CG_HIGH, NULL}, END}},
	{"pmaps_cgroup_memory_low_bytes", "gauge", "bytes", NULL,
	 "Memory reclaim spares it while others have more to give (v2 memory.low)",
	 {{PMAPS_CG_LOW, NULL}, END}},
	{"pmaps_cgroup_memory_min_bytes", "gauge", "bytes", NULL,
	 "Memory reclaim never takes (v2 memory.min)",
	 {{PMAPS_CG_MIN, NULL}, END}},
	{"pmaps_cgroup_swap_current_bytes", "gauge", "bytes", NULL,
	 "Its memory in swap (v2 memory.swap.current; v1 memory.stat total_swap)",
	 {{PMAPS_CG_SWAP_CURRENT, NULL}, END}},
	{"pmaps_cgroup_swap_max_bytes", "gauge", "bytes", NULL,
	 "Its swap limit (v2 memory.swap.max); absent when unlimited",
	 {{PMAPS_CG_SWAP_MAX, NULL}, END}},
	{"pmaps_cgroup_memory_stat_bytes", "gauge", "bytes", "type",
	 "Its memory by type, as memory.stat says (v1: its total_* lines, rss as anon and "
	 "cache as file; kernel from memory.kmem.usage_in_bytes); a type the kernel does not "
	 "give is absent",
	 {{PMAPS_CG_ANON, "anon"},
	  {PMAPS_CG_FILE, "file"},
	  {PMAPS_CG_KERNEL, "kernel"},
	  {PMAPS_CG_KERNEL_STACK, "kernel_stack"},
	  {PMAPS_CG_PAGETABLES, "pagetables"},
	  {PMAPS_CG_SLAB, "slab"},
	  {PMAPS_CG_SOCK, "sock"},
	  {PMAPS_CG_SHMEM, "shmem"},
	  {PMAPS_CG_FILE_MAPPED, "file_mapped"},
	  {PMAPS_CG_FILE_DIRTY, "file_dirty"},
	  {PMAPS_CG_FILE_WRITEBACK, "file_writeback"},
	  {PMAPS_CG_ANON_THP, "anon_thp"},
	  {PMAPS_CG_INACTIVE_ANON, "inactive_anon"},
	  {PMAPS_CG_ACTIVE_ANON, "active_anon"},
	  {PMAPS_CG_INACTIVE_FILE, "inactive_file"},
	  {PMAPS_CG_ACTIVE_FILE, "active_file"},
	  {PMAPS_CG_UNEVICTABLE, "unevictable"},
	  END}},
	{"pmaps_cgroup_page_faults_total", "counter", NULL, NULL,
	 "Page faults in it, minor and major (memory.stat pgfault)",
	 {{PMAPS_CG_PGFAULT, NULL}, END}},
	{"pmaps_cgroup_major_page_faults_total", "counter", NULL, NULL,
	 "Major page faults in it: pages read from disk or swap (memory.stat pgmajfault)",
	 {{PMAPS_CG_PGMAJFAULT, NULL}, END}},
	{"pmaps_cgroup_workingset_refaults_total", "counter", NULL, "type",
	 "Pages reclaimed from it and needed again (memory.stat workingset_refault_*): memory "
	 "it is short of",
	 {{PMAPS_CG_REFAULT_ANON, "anon"}, {PMAPS_CG_REFAULT_FILE, "file"}, END}},
	{"pmaps_cgroup_memory_events_total", "counter", NULL, "event",
	 "How often it met its boundaries (v2 memory.events: low, high, max, oom, oom_kill; v1: "
	 "max from memory.failcnt, oom_kill from memory.oom_control)",
	 {{PMAPS_CG_EVENTS_LOW, "low"},
	  {PMAPS_CG_EVENTS_HIGH, "high"},
	  {PMAPS_CG_EVENTS_MAX, "max"},
	  {PMAPS_CG_EVENTS_OOM, "oom"},
	  {PMAPS_CG_EVENTS_OOM_KILL, "oom_kill"},
	  END}},
};
#undef END

/* "{cgroup=...,container_id=...}" of G into BUF; its length, 0 when it did not fit. */
static size_t cg_labels(const struct scg *g, char *buf, size_t room)
{
	struct out lo;

	out_memory(&lo, buf, room);
	out_str(&lo, "{cgroup=\"");
	serve_label(&lo, g->path, g->len);
	out_ch(&lo, '"');
	ident_labels(&lo, &g->id);
	return lo.err ? 0 : lo.len;
}

/* "{LABELS,NAME="VALUE"} " or "{LABELS} ": LABELS without its closing brace. */
static void sample_open(struct out *o, const char *fam, const char *labels, size_t len,
                        const char *name, const char *value)
{
	out_str(o, fam);
	out_mem(o, labels, len);
	if (name) {
		out_ch(o, ',');
		out_str(o, name);
		out_str(o, "=\"");
		out_str(o, value);
		out_ch(o, '"');
	}
}

/* Microseconds as seconds, 6 decimals. */
static void out_us(struct out *o, uint64_t us)
{
	char frac[16];

	out_u64(o, us / 1000000u);
	snprintf(frac, sizeof(frac), ".%06u", (unsigned)(us % 1000000u));
	out_str(o, frac);
}

/* Hundredths of a percent as a ratio, 4 decimals. */
static void out_ratio(struct out *o, uint64_t h)
{
	char frac[16];

	out_u64(o, h / 10000u);
	snprintf(frac, sizeof(frac), ".%04u", (unsigned)(h % 10000u));
	out_str(o, frac);
}

/* The PSI families of one cgroup, or of the machine (LABELS "" and G NULL). */
static void psi_samples(struct out *o, const char *fam, const char *labels, size_t len,
                        const uint64_t *v, uint64_t present, int some, int full, int ratio)
{
	const int f[2] = {some, full};
	static const char *const kind[2] = {"some", "full"};

	for (int k = 0; k < 2; k++) {
		if (!((present >> f[k]) & 1))
			continue;
		out_str(o, fam);
		if (len) {
			out_mem(o, labels, len);
			out_str(o, ",kind=\"");
		} else {
			out_str(o, "{kind=\"");
		}
		out_str(o, kind[k]);
		out_str(o, "\"} ");
		if (ratio)
			out_ratio(o, v[f[k]]);
		else
			out_us(o, v[f[k]]);
		out_ch(o, '\n');
		out_record(o);
	}
}

static void write_machine_counters(const struct serve_cgroups *c, struct out *o,
                                   const struct mctx *m)
{
	serve_family(o, m, "pmaps_vmstat_total", "counter", NULL,
	             "The machine's fault and reclaim counters from /proc/vmstat, by name "
	             "(pgmajfault, oom_kill, workingset_refault_anon ...; pswpin and pswpout, "
	             "pgscan and pgsteal in pages)");
	if (c->vm_ok) {
		for (int f = 0; f < PMAPS_VMS_PSI_SOME_US; f++) {
			if (!((c->vm.present >> f) & 1))
				continue;
			out_str(o, "pmaps_vmstat_total{counter=\"");
			out_str(o, pmaps_vmstat_key(f));
			out_ch(o, '"');
			serve_sample_end(o, c->vm.v[f]);
		}
	}
	serve_family(o, m, "pmaps_memory_pressure_seconds_total", "counter", "seconds",
	             "Time some (kind=some) or all (kind=full) non-idle tasks of the machine "
	             "stalled on memory (/proc/pressure/memory total)");
	if (c->vm_ok)
		psi_samples(o, "pmaps_memory_pressure_seconds_total", "", 0, c->vm.v, c->vm.present,
		            PMAPS_VMS_PSI_SOME_US, PMAPS_VMS_PSI_FULL_US, 0);
	serve_family(o, m, "pmaps_memory_pressure_avg10_ratio", "gauge", "ratio",
	             "Share of the last 10 seconds that they stalled (/proc/pressure/memory avg10)");
	if (c->vm_ok)
		psi_samples(o, "pmaps_memory_pressure_avg10_ratio", "", 0, c->vm.v, c->vm.present,
		            PMAPS_VMS_PSI_SOME_AVG10, PMAPS_VMS_PSI_FULL_AVG10, 1);
}

void serve_cgroups_write(struct serve *sv, struct out *o, const struct mctx *m)
{
	const struct serve_cgroups *c = sv->cgroups;
	char *labels;
	size_t *llen;

	if (!c)
		return;
	write_machine_counters(c, o, m);
	if (c->rootfd < 0)
		return;
	serve_family(o, m, "pmaps_scrape_cgroups", "gauge", NULL,
	             "Memory cgroups in the last refresh (those of the selected processes and "
	             "their ancestors, the root cgroup but): read, gone (removed meanwhile), "
	             "failed, left_out (past --max-cgroups, those without a selected process "
	             "first); outside counts processes whose cgroup is above this reader's "
	             "cgroup namespace (a path of /..) where that namespace's root was not "
	             "found in the tree, or above the tree's own root: their cgroup is not read");
	{
		static const char *const what[] = {"read", "gone", "failed", "left_out", "outside"};
		const size_t n[] = {c->n, c->gone, c->failed, c->left_out, c->outside};
		for (size_t i = 0; i < 5; i++) {
			out_str(o, "pmaps_scrape_cgroups{outcome=\"");
			out_str(o, what[i]);
			out_ch(o, '"');
			serve_sample_end(o, n[i]);
		}
	}
	/* Each cgroup's labels, escaped once for all its families. */
	labels = c->n ? malloc(c->n * 1024) : NULL;
	llen = c->n ? calloc(c->n, sizeof(*llen)) : NULL;
	if (c->n && (!labels || !llen)) {
		free(labels);
		free(llen);
		return;
	}
	for (size_t i = 0; i < c->n; i++)
		llen[i] = cg_labels(&c->cg[i], labels + i * 1024, 1024);

	serve_family(o, m, "pmaps_cgroup_processes", "gauge", NULL,
	             "Selected processes in the memory cgroup itself (not below it)");
	for (size_t i = 0; i < c->n; i++) {
		if (!llen[i])
			continue;
		sample_open(o, "pmaps_cgroup_processes", labels + i * 1024, llen[i], NULL, NULL);
		serve_sample_end(o, c->cg[i].processes);
	}
	for (size_t f = 0; f < sizeof(cg_fams) / sizeof(cg_fams[0]); f++) {
		const struct cgfam *cf = &cg_fams[f];
		serve_family(o, m, cf->name, cf->type, cf->unit, cf->help);
		for (size_t i = 0; i < c->n; i++) {
			const struct scg *g = &c->cg[i];
			if (!llen[i])
				continue;
			for (size_t k = 0; cf->fields[k].f >= 0; k++) {
				int fi = cf->fields[k].f;
				if (!((g->mem.present >> fi) & 1))
					continue;
				sample_open(o, cf->name, labels + i * 1024, llen[i], cf->label,
				            cf->fields[k].value);
				serve_sample_end(o, g->mem.v[fi]);
			}
		}
	}
	serve_family(o, m, "pmaps_cgroup_memory_pressure_seconds_total", "counter", "seconds",
	             "Time some or all of its non-idle tasks stalled on memory (v2 "
	             "memory.pressure total; v1 has none)");
	for (size_t i = 0; i < c->n; i++)
		if (llen[i])
			psi_samples(o, "pmaps_cgroup_memory_pressure_seconds_total", labels + i * 1024,
			            llen[i], c->cg[i].mem.v, c->cg[i].mem.present, PMAPS_CG_PSI_SOME_US,
			            PMAPS_CG_PSI_FULL_US, 0);
	serve_family(o, m, "pmaps_cgroup_memory_pressure_avg10_ratio", "gauge", "ratio",
	             "Share of the last 10 seconds that they stalled (v2 memory.pressure avg10)");
	for (size_t i = 0; i < c->n; i++)
		if (llen[i])
			psi_samples(o, "pmaps_cgroup_memory_pressure_avg10_ratio", labels + i * 1024,
			            llen[i], c->cg[i].mem.v, c->cg[i].mem.present,
			            PMAPS_CG_PSI_SOME_AVG10, PMAPS_CG_PSI_FULL_AVG10, 1);
	free(labels);
	free(llen);
}
