/* SPDX-License-Identifier: MIT */
/*
 * serve.c - `pmaps serve`: the options, the collector and /metrics.
 *
 * The collector is pmaps top's (top.c over the library's survey) with
 * PMAPS_SURVEY_BREAKDOWN: each refresh reads every process's status, and
 * for those whose figures are due (new, moved, or older than --max-age) an
 * explain run from smaps (or the gentle page walk for a large process),
 * within --budget of reading; a scrape within --min-interval of the last
 * refresh is answered from it, so two scrapers do not double the cost.
 *
 * /metrics is written from the survey's rows in the Prometheus text format
 * (0.0.4), or OpenMetrics 1.0.0 when the scraper's Accept header prefers
 * it. Every byte a target chose (its name, its command line, its runtime's
 * version) goes out through the text escape (escape.h: printable UTF-8,
 * \xHH for the rest), then the exposition's own (\\, \", \n). No
 * arithmetic on memory figures here but the groups' sums, which saturate.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <malloc.h>
#include <netdb.h>
#include <netinet/in.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/num.h"
#include "common/tool.h"
#include "serve/serve.h"


/* ---- the collector ---- */

/* A group of --group-by: its key and its sums. */
struct sgroup {
	char key[128];          /* the escaped command name, or the match (raw bytes) */
	size_t key_len;
	uint32_t processes;
	uint32_t lacking[PMAPS_SV_MAX]; /* processes without figure K */
	uint32_t no_breakdown;  /* processes without a breakdown */
	uint64_t resident, v[PMAPS_SV_MAX], mappings;
	uint64_t bd[PMAPS_X_COUNT][PMAPS_XC_COUNT];
	uint64_t bd_maps[PMAPS_X_COUNT];
	uint32_t bd_known;      /* the states every breakdown in it knew */
};

/* A process's key under --group-by cmdline:REGEX, kept while it lives. */
struct ckey {
	int pid;
	int matched;
	size_t len;
	char key[128];
};

struct serve_groups {
	struct sgroup *g;
	size_t n, cap;
	struct ckey *keys, *old; /* by pid, this refresh's and the last one's */
	size_t nkeys, nold, kcap;
	uint32_t unmatched;
};

static uint64_t real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The resident bytes of ROW: its breakdown's (which its categories add up to), else VmRSS. */
static int row_resident(const struct pmaps_survey_row *row, uint64_t *v)
{
	if (row->breakdown && pmaps_survey_breakdown(row->breakdown, -1, PMAPS_XC_RSS, v) == 1)
		return 1;
	*v = row->v[PMAPS_SV_RSS];
	return (row->present >> PMAPS_SV_RSS) & 1;
}

/*
 * The command line of PID (its arguments joined by spaces, at most 4 KiB),
 * matched against the --group-by regex into K. Read by the library
 * (pmaps_cmdline_read(): the file is the kernel's, opened as every file of
 * a process is) once per process, kept while it lives.
 */
static void cmdline_key(const struct serve *sv, int pid, struct ckey *k)
{
	char buf[4097];
	regmatch_t m[2];
	size_t n = 0;

	k->pid = pid;
	k->matched = 0;
	k->len = 0;
	if (pmaps_cmdline_read(sv->o.top.root, pid, buf, sizeof(buf), &n) < 0 || n == 0)
		return;
	while (n > 0 && buf[n - 1] == '\0')
		n--;
	for (size_t i = 0; i < n; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	buf[n] = '\0';
	if (regexec(&sv->o.cmdline, buf, 2, m, 0) != 0)
		return;
	if (sv->o.cmdline.re_nsub < 1 || m[1].rm_so < 0)
		m[1] = m[0];
	k->len = (size_t)(m[1].rm_eo - m[1].rm_so);
	if (k->len > sizeof(k->key))
		k->len = sizeof(k->key); /* escaped when shown: a cut character shows as \xHH */
	memcpy(k->key, buf + m[1].rm_so, k->len);
	k->matched = 1;
}

static const struct ckey *old_key(const struct serve_groups *gs, int pid)
{
	size_t lo = 0, hi = gs->nold;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (gs->old[mid].pid == pid)
			return &gs->old[mid];
		if (gs->old[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static struct sgroup *group_of(struct serve_groups *gs, const char *key, size_t len)
{
	/* Groups are few (bounded cardinality is the point): a linear search. */
	for (size_t i = 0; i < gs->n; i++)
		if (gs->g[i].key_len == len && memcmp(gs->g[i].key, key, len) == 0)
			return &gs->g[i];
	memset(&gs->g[gs->n], 0, sizeof(gs->g[0]));
	memcpy(gs->g[gs->n].key, key, len);
	gs->g[gs->n].key_len = len;
	gs->g[gs->n].bd_known = ~0u;
	return &gs->g[gs->n++];
}

static void group_add(struct sgroup *g, const struct pmaps_survey_row *row)
{
	uint64_t v;

	g->processes++;
	if (row_resident(row, &v))
		g->resident = sat_add(g->resident, v);
	for (int k = 0; k < PMAPS_SV_COUNT; k++) {
		if ((row->present >> k) & 1)
			g->v[k] = sat_add(g->v[k], row->v[k]);
		else
			g->lacking[k]++;
	}
	if (!row->breakdown) {
		g->no_breakdown++;
	} else {
		uint32_t known = 0;
		g->mappings = sat_add(g->mappings, row->mappings);
		for (int c = 0; c < PMAPS_X_COUNT; c++) {
			g->bd_maps[c] = sat_add(g->bd_maps[c],
			                        pmaps_survey_breakdown_mappings(row->breakdown, c));
			for (int s = 0; s < PMAPS_XC_COUNT; s++) {
				if (pmaps_survey_breakdown(row->breakdown, c, s, &v) == 1) {
					known |= 1u << s;
					g->bd[c][s] = sat_add(g->bd[c][s], v);
				}
			}
		}
		g->bd_known &= known;
	}
}

/* Room for N groups and keys. Returns 0 or -1 (out of memory: the last groups kept). */
static int groups_reserve(struct serve_groups *gs, size_t n)
{
	if (n <= gs->cap)
		return 0;
	size_t cap = gs->cap ? gs->cap : 64;
	while (cap < n)
		cap *= 2;
	struct sgroup *g = realloc(gs->g, cap * sizeof(*g));
	if (!g)
		return -1;
	gs->g = g;
	struct ckey *k = realloc(gs->keys, cap * sizeof(*k));
	if (!k)
		return -1;
	gs->keys = k;
	k = realloc(gs->old, cap * sizeof(*k));
	if (!k)
		return -1;
	gs->old = k;
	gs->cap = cap;
	return 0;
}

/* The groups of this refresh's selected processes (TOP's lines, in pid order). */
static int make_groups(struct serve *sv)
{
	struct serve_groups *gs = sv->groups;
	const struct top *t = &sv->top;

	if (groups_reserve(gs, t->nlines) < 0)
		return -1;
	/* The last refresh's keys become OLD: a process listed again keeps its key. */
	{
		struct ckey *tmp = gs->old;
		gs->old = gs->keys;
		gs->nold = gs->nkeys;
		gs->keys = tmp;
		gs->nkeys = 0;
	}
	gs->n = 0;
	gs->unmatched = 0;
	for (size_t i = 0; i < t->nlines; i++) {
		const struct pmaps_survey_row *row = t->lines[i].row;
		char key[sizeof(gs->g[0].key)];
		size_t len;
		if (!row)
			continue;
		if (sv->o.group_by == SERVE_BY_COMM) {
			/* Raw bytes, escaped when shown; a name is at most 64 bytes. */
			len = row->comm.len < sizeof(key) ? row->comm.len : sizeof(key);
			memcpy(key, row->comm.ptr, len);
		} else if (sv->o.group_by != SERVE_BY_CMDLINE) {
			/* Processes in no container (pod, unit) make the group "". */
			len = serve_cgroup_key(sv->o.group_by, row, key, sizeof(key));
		} else {
			const struct ckey *o = old_key(gs, row->pid);
			struct ckey *k = &gs->keys[gs->nkeys++];
			/*
			 * Kept while the process's figures are: read again with
			 * them (an exec that keeps the name changes the command line).
			 */
			if (o && !(row->flags & (PMAPS_SURVEY_NEW | PMAPS_SURVEY_FRESH)))
				*k = *o;
			else
				cmdline_key(sv, row->pid, k);
			if (!k->matched) {
				gs->unmatched++;
				continue;
			}
			len = k->len;
			memcpy(key, k->key, len);
		}
		group_add(group_of(gs, key, len), row);
	}
	return 0;
}

int serve_fresh(struct serve *sv, char *msg, size_t msgsz)
{
	uint64_t now = now_ns();

	if (sv->refreshed_ns && now - sv->refreshed_ns < sv->o.min_interval_ns)
		return 0;
	if (top_refresh(&sv->top) != 0) {
		snprintf(msg, msgsz, "the proc root could not be read");
		return -1;
	}
	sv->refreshed_ns = now_ns();
	sv->refreshed_real_ns = real_ns();
	if (sv->o.group_by != SERVE_BY_PID && make_groups(sv) < 0) {
		snprintf(msg, msgsz, "out of memory");
		sv->refreshed_ns = 0;
		return -1;
	}
	serve_cgroups_refresh(sv);
	__atomic_store_n(&sv->done_gen, sv->refreshed_ns, __ATOMIC_RELEASE);
	return 0;
}

/* ---- /metrics ---- */


/* A label value: the text escape for the target's bytes, then the exposition's. */
void serve_label(struct out *o, const char *s, size_t n)
{
	char buf[1024];
	size_t len, plain = 0;

	/* Printable ASCII that needs no escape, as most names are: as it is. */
	while (plain < n && s[plain] >= ' ' && s[plain] <= '~' && s[plain] != '\\' &&
	       s[plain] != '"')
		plain++;
	if (plain == n && n < sizeof(buf)) {
		out_mem(o, s, n);
		return;
	}
	len = esc_text(buf, sizeof(buf), s, n);

	for (size_t i = 0; i < len; i++) {
		if (buf[i] == '\\' || buf[i] == '"') {
			out_ch(o, '\\');
			out_ch(o, buf[i]);
		} else {
			out_ch(o, buf[i]);
		}
	}
}

void serve_family(struct out *o, const struct mctx *m, const char *name, const char *type,
                  const char *unit, const char *help)
{
	/* OpenMetrics names a family without the _total of its counter's sample, or _info. */
	size_t len = strlen(name);

	if (m->om && strcmp(type, "counter") == 0 && len > 6 && strcmp(name + len - 6, "_total") == 0)
		len -= 6;
	if (m->om && strcmp(type, "info") == 0 && len > 5 && strcmp(name + len - 5, "_info") == 0)
		len -= 5;
	if (!m->om && strcmp(type, "info") == 0)
		type = "gauge";
	out_str(o, "# HELP ");
	out_mem(o, name, len);
	out_ch(o, ' ');
	out_str(o, help);
	out_str(o, "\n# TYPE ");
	out_mem(o, name, len);
	out_ch(o, ' ');
	out_str(o, type);
	out_ch(o, '\n');
	if (m->om && unit) {
		out_str(o, "# UNIT ");
		out_mem(o, name, len);
		out_ch(o, ' ');
		out_str(o, unit);
		out_ch(o, '\n');
	}
	out_record(o);
}

/* Seconds from nanoseconds, with 9 decimals at most (no float rounding). */
void serve_seconds(struct out *o, uint64_t ns)
{
	char frac[16];

	out_u64(o, ns / 1000000000u);
	snprintf(frac, sizeof(frac), ".%09u", (unsigned)(ns % 1000000000u));
	out_str(o, frac);
}

/* The labels of a process: pid, comm, user. */
static void proc_labels(struct serve *sv, struct out *o, const struct pmaps_survey_row *row)
{
	const char *user = top_user_name(&sv->top, row->uid);

	out_str(o, "{pid=\"");
	out_u64(o, (uint64_t)row->pid);
	out_str(o, "\",comm=\"");
	serve_label(o, row->comm.ptr, row->comm.len);
	out_str(o, "\",user=\"");
	serve_label(o, user, strlen(user));
	out_ch(o, '"');
}

static void group_labels(struct out *o, const struct sgroup *g)
{
	out_str(o, "{group=\"");
	serve_label(o, g->key, g->key_len);
	out_ch(o, '"');
}

void serve_sample_end(struct out *o, uint64_t v)
{
	out_str(o, "} ");
	out_u64(o, v);
	out_ch(o, '\n');
	out_record(o);
}

/* The state columns a breakdown shows, and their label values. */
struct state_col {
	const char *name;
	enum pmaps_xcol col;   /* or -1: SHARED less SHARED_CLEAN */
};
static const struct state_col states4[] = {
	{"private_dirty", PMAPS_XC_PRIVATE_DIRTY},
	{"private_clean", PMAPS_XC_PRIVATE_CLEAN},
	{"shared_dirty", (enum pmaps_xcol)-1},
	{"shared_clean", PMAPS_XC_SHARED_CLEAN},
};
static const struct state_col states2[] = {
	{"private", PMAPS_XC_PRIVATE},
	{"shared", PMAPS_XC_SHARED},
};
static const struct state_col states1[] = {
	{"resident", PMAPS_XC_RSS},
};

/* The states to show for columns KNOWN (bit (1 << enum pmaps_xcol)); their count in *N. */
static const struct state_col *states_of(uint32_t known, size_t *n)
{
	uint32_t four = 1u << PMAPS_XC_PRIVATE_DIRTY | 1u << PMAPS_XC_PRIVATE_CLEAN |
	                1u << PMAPS_XC_SHARED | 1u << PMAPS_XC_SHARED_CLEAN;
	uint32_t two = 1u << PMAPS_XC_PRIVATE | 1u << PMAPS_XC_SHARED;

	if ((known & four) == four) {
		*n = 4;
		return states4;
	}
	if ((known & two) == two) {
		*n = 2;
		return states2;
	}
	*n = 1;
	return states1;
}

/* Column SC of category C from V (V[c][col]), the shared-dirty difference computed. */
static uint64_t state_value(const uint64_t *v, const struct state_col *sc)
{
	if ((int)sc->col >= 0)
		return v[sc->col];
	/* SHARED_CLEAN is a part of SHARED: never above it. */
	return v[PMAPS_XC_SHARED] - v[PMAPS_XC_SHARED_CLEAN];
}

/*
 * The samples NAME{LABELS,category,state} of one process's or group's
 * breakdown V (bytes by category and state column), for the categories
 * with a mapping (MAPS) and the states KNOWN columns give. LABELS is the
 * rendered "{pid=...": the same for every cell.
 */
static void memory_samples(struct out *o, const char *name, const char *labels, size_t llen,
                           const uint64_t v[][PMAPS_XC_COUNT], const uint64_t *maps,
                           uint32_t known)
{
	size_t ns;
	const struct state_col *sc = states_of(known, &ns);

	for (int c = 0; c < PMAPS_X_COUNT; c++) {
		if (!maps[c])
			continue;
		for (size_t j = 0; j < ns; j++) {
			uint64_t b = state_value(v[c], &sc[j]);
			if (!b)
				continue; /* no series for an empty cell: they are most */
			out_str(o, name);
			out_mem(o, labels, llen);
			out_str(o, ",category=\"");
			out_str(o, pmaps_xcat_name(c));
			out_str(o, "\",state=\"");
			out_str(o, sc[j].name);
			out_ch(o, '"');
			serve_sample_end(o, b);
		}
	}
}

/* The per-process figures a family gives: K a survey value, or one of these. */
enum { F_RESIDENT = -1, F_MAPPINGS = -2, F_OOM_SCORE = -3, F_OOM_ADJ = -4, F_START = -5 };

struct pfam {
	const char *name, *help;
	int k;
	const char *type, *unit; /* NULL: a gauge of bytes */
	int per_process;         /* no group sum: a score, a moment */
};

static const struct pfam proc_fams[] = {
	{"resident_bytes", "Resident memory: the sum of memory_bytes over category and state "
	 "(smaps, or the page walk), else status VmRSS", F_RESIDENT, NULL, NULL, 0},
	{"pss_bytes", "Proportional set size: shared pages split between the processes mapping "
	 "them (smaps_rollup's Pss, or the page walk's as root)", PMAPS_SV_PSS, NULL, NULL, 0},
	{"uss_bytes", "Unique set size: pages no other process maps (Private_Clean + "
	 "Private_Dirty)", PMAPS_SV_USS, NULL, NULL, 0},
	{"swap_bytes", "Swapped out (status VmSwap)", PMAPS_SV_SWAP, NULL, NULL, 0},
	{"lazyfree_bytes", "Freed with MADV_FREE, still resident until the kernel needs the "
	 "memory (LazyFree)", PMAPS_SV_LAZYFREE, NULL, NULL, 0},
	{"mappings", "Mappings (VMAs, as vm.max_map_count limits them: see pmaps_vm_max_mappings)",
	 F_MAPPINGS, "gauge", "", 0},
	{"virtual_bytes", "Address space (status VmSize)", PMAPS_SV_VSIZE, NULL, NULL, 0},
	{"peak_resident_bytes", "The most resident memory the process has had (status VmHWM)",
	 PMAPS_SV_HWM, NULL, NULL, 0},
	{"page_table_bytes", "Its page tables (status VmPTE): kernel memory, in no RSS",
	 PMAPS_SV_PAGE_TABLES, NULL, NULL, 0},
	{"locked_bytes", "Locked with mlock(), never reclaimed (status VmLck)", PMAPS_SV_LOCKED,
	 NULL, NULL, 0},
	{"threads", "Threads (status Threads)", PMAPS_SV_THREADS, "gauge", "", 0},
	{"minor_faults_total", "Page faults served without I/O since the process started (stat "
	 "minflt); a group's sum falls when one of its processes exits", PMAPS_SV_MINFLT,
	 "counter", "", 0},
	{"major_faults_total", "Page faults that waited for I/O (a file read, swap in) since the "
	 "process started (stat majflt); a group's sum falls when one of its processes exits",
	 PMAPS_SV_MAJFLT, "counter", "", 0},
	{"oom_score", "The OOM killer's badness of the process (/proc/PID/oom_score, 0 to 2000: "
	 "the highest is killed first)", F_OOM_SCORE, "gauge", "", 1},
	{"oom_score_adj", "The adjustment to it (/proc/PID/oom_score_adj, -1000 to 1000; -1000: "
	 "never killed)", F_OOM_ADJ, "gauge", "", 1},
	{"start_time_seconds", "When the process started, in seconds since the epoch (stat "
	 "starttime and the boot time)", F_START, "gauge", "seconds", 1},
};

/* A sample's value, signed. */
static void sample_end_signed(struct out *o, int64_t v)
{
	out_str(o, "} ");
	if (v < 0) {
		out_ch(o, '-');
		out_u64(o, (uint64_t)-v);
	} else {
		out_u64(o, (uint64_t)v);
	}
	out_ch(o, '\n');
	out_record(o);
}

/* The longest labels of a process kept (longer ones are written each time). */
#define LABELS_ROOM 512

/* Fills SV->plabels for the processes of SV->top; where memory is short, fewer. */
static void plabels_make(struct serve *sv)
{
	const struct top *t = &sv->top;
	struct serve_plabels *pl = &sv->plabels;
	size_t used = 0;
	struct out lo;

	if (pl->n < t->nlines) {
		uint32_t *off = realloc(pl->off, t->nlines * sizeof(*off));
		uint16_t *len = off ? realloc(pl->len, t->nlines * sizeof(*len)) : NULL;
		if (off)
			pl->off = off;
		if (len)
			pl->len = len;
		if (off && len)
			pl->n = t->nlines;
	}
	if (pl->len)
		memset(pl->len, 0, pl->n * sizeof(*pl->len));
	for (size_t i = 0; i < t->nlines && i < pl->n; i++) {
		if (!t->lines[i].row)
			continue;
		if (pl->cap - used < LABELS_ROOM) {
			size_t cap = pl->cap ? pl->cap * 2 : 64 * LABELS_ROOM;
			char *buf = cap <= UINT32_MAX ? realloc(pl->buf, cap) : NULL;
			if (!buf)
				break;
			pl->buf = buf;
			pl->cap = cap;
		}
		out_memory(&lo, pl->buf + used, LABELS_ROOM);
		proc_labels(sv, &lo, t->lines[i].row);
		if (lo.err == 0) {
			pl->off[i] = (uint32_t)used;
			pl->len[i] = (uint16_t)lo.len;
			used += lo.len;
		}
	}
}

static void plabels_out(struct serve *sv, struct out *o, size_t i)
{
	const struct serve_plabels *pl = &sv->plabels;

	if (i < pl->n && pl->len[i])
		out_mem(o, pl->buf + pl->off[i], pl->len[i]);
	else
		proc_labels(sv, o, sv->top.lines[i].row);
}


static void write_procs(struct serve *sv, struct out *o, const struct mctx *m)
{
	const struct top *t = &sv->top;
	char name[96];

	plabels_make(sv);

	if (sv->o.top.cgroups) {
		serve_family(o, m, "pmaps_process_cgroup_info", "info", NULL,
		             "The memory cgroup of the process (the v1 memory controller's path on "
		             "the hybrid layout), and the container, pod, QoS class and systemd unit "
		             "its path names: join on pid to the process families");
		for (size_t i = 0; i < t->nlines; i++) {
			const struct pmaps_survey_row *row = t->lines[i].row;
			if (!row || !row->memcg.len)
				continue;
			out_str(o, "pmaps_process_cgroup_info");
			plabels_out(sv, o, i);
			serve_cgroup_labels(sv, o, row);
			serve_sample_end(o, 1);
		}
	}
	for (size_t f = 0; f < sizeof(proc_fams) / sizeof(proc_fams[0]); f++) {
		const struct pfam *pf = &proc_fams[f];
		snprintf(name, sizeof(name), "pmaps_process_%s", pf->name);
		serve_family(o, m, name, pf->type ? pf->type : "gauge",
		       pf->unit ? (pf->unit[0] ? pf->unit : NULL) : "bytes", pf->help);
		for (size_t i = 0; i < t->nlines; i++) {
			const struct pmaps_survey_row *row = t->lines[i].row;
			uint64_t v;
			if (!row)
				continue;
			if (pf->k == F_OOM_SCORE || pf->k == F_OOM_ADJ) {
				if (!row->oom_known)
					continue;
				out_str(o, name);
				plabels_out(sv, o, i);
				sample_end_signed(o, pf->k == F_OOM_SCORE ? (int64_t)row->oom_score
				                                          : (int64_t)row->oom_score_adj);
				continue;
			}
			if (pf->k == F_START) {
				if (!row->start_ns || !sv->boot_ns)
					continue;
				out_str(o, name);
				plabels_out(sv, o, i);
				out_str(o, "} ");
				serve_seconds(o, sv->boot_ns + row->start_ns);
				out_ch(o, '\n');
				out_record(o);
				continue;
			}
			if (pf->k == F_RESIDENT) {
				if (!row_resident(row, &v))
					continue;
			} else if (pf->k == F_MAPPINGS) {
				if (!row->breakdown)
					continue;
				v = row->mappings;
			} else {
				if (!((row->present >> pf->k) & 1))
					continue;
				v = row->v[pf->k];
			}
			out_str(o, name);
			plabels_out(sv, o, i);
			serve_sample_end(o, v);
		}
	}
	serve_family(o, m, "pmaps_process_memory_bytes", "gauge", "bytes",
	       "Resident memory by category (what it is for, as pmaps explain says) and state "
	       "(private or shared, dirty or clean; the page walk knows private and shared only); "
	       "empty cells have no series");
	for (size_t i = 0; i < t->nlines; i++) {
		const struct pmaps_survey_row *row = t->lines[i].row;
		uint64_t v[PMAPS_X_COUNT][PMAPS_XC_COUNT], maps[PMAPS_X_COUNT], total;
		uint32_t known = 0;
		char labels[2048];
		struct out lo;
		if (!row || !row->breakdown)
			continue;
		for (int s = 0; s < PMAPS_XC_COUNT; s++)
			if (pmaps_survey_breakdown(row->breakdown, -1, s, &total) == 1)
				known |= 1u << s;
		for (int c = 0; c < PMAPS_X_COUNT; c++) {
			maps[c] = pmaps_survey_breakdown_mappings(row->breakdown, c);
			for (int s = 0; s < PMAPS_XC_COUNT; s++)
				pmaps_survey_breakdown(row->breakdown, c, s, &v[c][s]);
		}
		out_memory(&lo, labels, sizeof(labels));
		plabels_out(sv, &lo, i);
		if (lo.err == 0)
			memory_samples(o, "pmaps_process_memory_bytes", labels, lo.len, v, maps, known);
	}
	serve_family(o, m, "pmaps_process_runtime_info", "info", NULL,
	       "The language runtime pmaps explain recognised in the process, and its version");
	for (size_t i = 0; i < t->nlines; i++) {
		const struct pmaps_survey_row *row = t->lines[i].row;
		if (!row || !row->breakdown || row->runtime == PMAPS_RUNTIME_NONE)
			continue;
		out_str(o, "pmaps_process_runtime_info");
		plabels_out(sv, o, i);
		out_str(o, ",runtime=\"");
		out_str(o, pmaps_runtime_name(row->runtime));
		out_str(o, "\",version=\"");
		serve_label(o, row->runtime_version.ptr, row->runtime_version.len);
		out_ch(o, '"');
		serve_sample_end(o, 1);
	}
	serve_family(o, m, "pmaps_process_source_info", "info", NULL,
	       "Where the process's figures came from: smaps, pages (the gentle page walk of a "
	       "large process) or status (not read past status: another user's process without "
	       "root, or left by the budget)");
	for (size_t i = 0; i < t->nlines; i++) {
		const struct pmaps_survey_row *row = t->lines[i].row;
		if (!row)
			continue;
		out_str(o, "pmaps_process_source_info");
		plabels_out(sv, o, i);
		out_str(o, ",source=\"");
		out_str(o, pmaps_source_name(row->breakdown ? row->source : PMAPS_SRC_STATUS));
		out_ch(o, '"');
		serve_sample_end(o, 1);
	}
	serve_family(o, m, "pmaps_process_figures_age_seconds", "gauge", "seconds",
	       "Age of the process's figures read past status (its breakdown)");
	for (size_t i = 0; i < t->nlines; i++) {
		const struct pmaps_survey_row *row = t->lines[i].row;
		if (!row || !row->breakdown)
			continue;
		out_str(o, "pmaps_process_figures_age_seconds");
		plabels_out(sv, o, i);
		out_str(o, "} ");
		serve_seconds(o, row->age_ns + (m->now - sv->refreshed_ns));
		out_ch(o, '\n');
		out_record(o);
	}
	serve_books_write(sv, o, m, plabels_out);
}

static void write_groups(struct serve *sv, struct out *o, const struct mctx *m)
{
	const struct serve_groups *gs = sv->groups;
	char name[96];

	serve_family(o, m, "pmaps_group_processes", "gauge", NULL, "Processes in the group");
	for (size_t i = 0; i < gs->n; i++) {
		out_str(o, "pmaps_group_processes");
		group_labels(o, &gs->g[i]);
		serve_sample_end(o, gs->g[i].processes);
	}
	for (size_t f = 0; f < sizeof(proc_fams) / sizeof(proc_fams[0]); f++) {
		const struct pfam *pf = &proc_fams[f];
		if (pf->per_process)
			continue;
		snprintf(name, sizeof(name), "pmaps_group_%s", pf->name);
		serve_family(o, m, name, pf->type ? pf->type : "gauge",
		       pf->unit ? (pf->unit[0] ? pf->unit : NULL) : "bytes",
		       pf->k == F_MAPPINGS ? "Mappings (VMAs) of the group's processes, summed (the "
		                             "limit, pmaps_vm_max_mappings, is each process's)"
		                           : pf->help);
		for (size_t i = 0; i < gs->n; i++) {
			const struct sgroup *g = &gs->g[i];
			uint64_t v;
			/* A sum is given only over every process of the group: never a part as the whole. */
			if (pf->k == F_RESIDENT) {
				v = g->resident;
			} else if (pf->k == F_MAPPINGS) {
				if (g->no_breakdown)
					continue;
				v = g->mappings;
			} else {
				if (g->lacking[pf->k])
					continue;
				v = g->v[pf->k];
			}
			out_str(o, name);
			group_labels(o, g);
			serve_sample_end(o, v);
		}
	}
	serve_family(o, m, "pmaps_group_memory_bytes", "gauge", "bytes",
	       "Resident memory of the group by category and state, where every process of it "
	       "has a breakdown");
	for (size_t i = 0; i < gs->n; i++) {
		const struct sgroup *g = &gs->g[i];
		char labels[2048];
		struct out lo;
		if (g->no_breakdown)
			continue;
		out_memory(&lo, labels, sizeof(labels));
		group_labels(&lo, g);
		if (lo.err == 0)
			memory_samples(o, "pmaps_group_memory_bytes", labels, lo.len, g->bd, g->bd_maps,
			               g->bd_known);
	}
	serve_family(o, m, "pmaps_group_unmatched_processes", "gauge", NULL,
	       "Selected processes whose command line the --group-by regex does not match: in no "
	       "group");
	out_str(o, "pmaps_group_unmatched_processes ");
	out_u64(o, gs->unmatched);
	out_ch(o, '\n');
	out_record(o);
}

static void write_machine(struct serve *sv, struct out *o, const struct mctx *m)
{
	const struct pmaps_meminfo *mi = pmaps_survey_meminfo(sv->top.s);

	serve_family(o, m, "pmaps_meminfo_bytes", "gauge", "bytes",
	       "The machine's memory as /proc/meminfo says it, by field");
	if (!mi)
		return;
	for (int f = 0; f < PMAPS_MI_COUNT; f++) {
		if (!((mi->present >> f) & 1))
			continue;
		out_str(o, "pmaps_meminfo_bytes{field=\"");
		out_str(o, pmaps_meminfo_key(f));
		out_ch(o, '"');
		serve_sample_end(o, mi->v[f]);
	}
}

static void write_exporter(struct serve *sv, struct out *o, const struct mctx *m)
{
	struct pmaps_survey_stats st = {.size = sizeof(st)};
	static const char *const outcomes[] = {"selected", "listed", "read",  "kept",
	                                       "skipped",  "unread", "denied", "large",
	                                       "vanished", "failed"};
	size_t unread = serve_unread(sv);

	pmaps_survey_stats(sv->top.s, &st);
	{
		const uint64_t counts[] = {sv->top.matched, st.processes, st.read, st.kept, st.skipped,
		                           unread, st.denied, st.large, st.vanished, st.failed};
		serve_family(o, m, "pmaps_scrape_processes", "gauge", NULL,
		       "Processes in the last refresh: selected (by --pid, --name, --user, --cgroup), "
		       "listed (on the machine), read past status, kept (nothing moved), skipped (by "
		       "the budget: older figures kept), unread (selected, never read past status: "
		       "left by the budget, or a large one's first walk under way), denied (not "
		       "readable by this reader: another user's, or refused by a security module; "
		       "status figures only), large (read by the gentle page walk), vanished (exited "
		       "during it), failed");
		for (size_t i = 0; i < sizeof(outcomes) / sizeof(outcomes[0]); i++) {
			out_str(o, "pmaps_scrape_processes{outcome=\"");
			out_str(o, outcomes[i]);
			out_ch(o, '"');
			serve_sample_end(o, counts[i]);
		}
	}
	if (sv->max_map_count) {
		serve_family(o, m, "pmaps_vm_max_mappings", "gauge", NULL,
		       "The most mappings a process may have (/proc/sys/vm/max_map_count, read at "
		       "start): alert on pmaps_process_mappings against it");
		out_str(o, "pmaps_vm_max_mappings ");
		out_u64(o, sv->max_map_count);
		out_ch(o, '\n');
		out_record(o);
	}
	serve_family(o, m, "pmaps_scrape_duration_seconds", "gauge", "seconds",
	       "Wall time of the last refresh of the figures");
	out_str(o, "pmaps_scrape_duration_seconds ");
	serve_seconds(o, st.wall_ns);
	out_ch(o, '\n');
	serve_family(o, m, "pmaps_scrape_kernel_seconds", "gauge", "seconds",
	       "Of it, the costly reads (smaps, the page walks): what --budget limits");
	out_str(o, "pmaps_scrape_kernel_seconds ");
	serve_seconds(o, st.read_ns);
	out_ch(o, '\n');
	serve_family(o, m, "pmaps_scrape_age_seconds", "gauge", "seconds",
	       "Age of the figures in this answer (answers within --min-interval share a refresh)");
	out_str(o, "pmaps_scrape_age_seconds ");
	serve_seconds(o, m->now - sv->refreshed_ns);
	out_ch(o, '\n');
	serve_family(o, m, "pmaps_scrapes_total", "counter", NULL, "Answers to /metrics");
	out_str(o, "pmaps_scrapes_total ");
	out_u64(o, sv->scrapes);
	out_ch(o, '\n');
	/* Under LOCK (the caller's): once every selected process has been read, ready stays. */
	if (!unread)
		sv->ready = 1;
	serve_family(o, m, "pmaps_exporter_ready", "gauge", NULL,
	       "1 once every process selected since start has been read past status (but denied "
	       "and failed ones): at start by the warm-up, or by later refreshes where "
	       "--ready-timeout passed first; pmaps_scrape_processes{outcome=\"unread\"} counts "
	       "those waiting now (new ones the budget left)");
	out_str(o, "pmaps_exporter_ready ");
	out_u64(o, sv->ready);
	out_ch(o, '\n');
	serve_family(o, m, "pmaps_exporter_warmup_seconds", "gauge", "seconds",
	       "What reading every selected process once took at start (bounded by "
	       "--ready-timeout)");
	out_str(o, "pmaps_exporter_warmup_seconds ");
	serve_seconds(o, sv->warm_ns);
	out_ch(o, '\n');
	serve_family(o, m, "pmaps_exporter_info", "info", NULL, "pmaps serve's version");
	out_str(o, "pmaps_exporter_info{version=\"" PMAPS_VERSION "\"} 1\n");
	serve_family(o, m, "pmaps_exporter_privileged", "gauge", NULL,
	       "1 when pmaps serve reads as root or with CAP_SYS_PTRACE. At 0, other users' "
	       "processes have status "
	       "figures only (resident, swap): root (or CAP_SYS_PTRACE) would add their PSS, USS, "
	       "LazyFree, mappings and categories, and the PSS of large processes read by page "
	       "walk (CAP_SYS_ADMIN)");
	out_str(o, "pmaps_exporter_privileged ");
	out_u64(o, sv->root ? 1 : 0);
	out_ch(o, '\n');
	out_record(o);
}

static void write_metrics(struct out *o, const void *ctx)
{
	const struct mctx *m = ctx;
	struct serve *sv = m->sv;

	if (sv->o.group_by == SERVE_BY_PID)
		write_procs(sv, o, m);
	else
		write_groups(sv, o, m);
	write_machine(sv, o, m);
	serve_cgroups_write(sv, o, m);
	write_exporter(sv, o, m);
	if (m->om)
		out_str(o, "# EOF\n");
}

/*
 * Whether ACCEPT prefers OpenMetrics to the text format: a media range
 * application/openmetrics-text with a q above 0 and at least text/plain's.
 */
static int wants_openmetrics(const char *accept)
{
	double om = -1, text = -1;
	const char *p = accept;

	if (!accept)
		return 0;
	while (*p) {
		const char *end = p + strcspn(p, ",");
		const char *semi, *type_end;
		double q = 1;
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		semi = memchr(p, ';', (size_t)(end - p));
		type_end = semi ? semi : end;
		while (type_end > p && (type_end[-1] == ' ' || type_end[-1] == '\t'))
			type_end--;
		for (const char *a = semi; a && a < end;) {
			const char *next = memchr(a + 1, ';', (size_t)(end - a - 1));
			const char *v = a + 1;
			while (v < end && *v == ' ')
				v++;
			if (end - v > 2 && (v[0] == 'q' || v[0] == 'Q') && v[1] == '=')
				q = strtod(v + 2, NULL);
			a = next;
		}
		size_t tl = (size_t)(type_end - p);
		if (tl == 28 && strncasecmp(p, "application/openmetrics-text", tl) == 0)
			om = q > om ? q : om;
		else if ((tl == 10 && strncasecmp(p, "text/plain", tl) == 0) ||
		         (tl == 3 && strncmp(p, "*/*", 3) == 0))
			text = q > text ? q : text;
		p = *end ? end + 1 : end;
	}
	return om > 0 && om >= text;
}

/* ---- the collector ---- */

/* Whether a scrape came within SERVE_ACTIVE_S of NOW (under COLLECT). */
static int scraped_lately(const struct serve *sv, uint64_t now)
{
	return sv->scraped_ns && now - sv->scraped_ns < (uint64_t)SERVE_ACTIVE_S * 1000000000u;
}

/*
 * The collector: wakes every --min-interval (or when kicked), and
 * refreshes the figures when they are due and scrapes keep coming.
 */
static void *collector_main(void *arg)
{
	struct serve *sv = arg;
	char msg[256];

	pthread_mutex_lock(&sv->collect);
	while (!sv->stopping) {
		uint64_t now = now_ns(), due;
		struct timespec until;
		int refresh = sv->kicked;
		sv->kicked = 0;
		if (!refresh && scraped_lately(sv, now)) {
			pthread_mutex_unlock(&sv->collect);
			pthread_mutex_lock(&sv->lock);
			refresh = sv->refreshed_ns && now - sv->refreshed_ns >= sv->o.min_interval_ns;
			due = sv->refreshed_ns + sv->o.min_interval_ns;
			pthread_mutex_unlock(&sv->lock);
			pthread_mutex_lock(&sv->collect);
		} else {
			due = now + sv->o.min_interval_ns;
		}
		if (refresh) {
			pthread_mutex_unlock(&sv->collect);
			pthread_mutex_lock(&sv->lock);
			/* A failure is the next scrape's to say: it refreshes itself, and answers 503. */
			if (serve_fresh(sv, msg, sizeof(msg)) < 0)
				sv->refreshed_ns = 0;
			due = sv->refreshed_ns + sv->o.min_interval_ns;
			pthread_mutex_unlock(&sv->lock);
			pthread_mutex_lock(&sv->collect);
			continue;
		}
		if (sv->stopping || sv->kicked)
			continue;
		if (due <= now)
			due = now + sv->o.min_interval_ns;
		until.tv_sec = (time_t)(due / 1000000000u);
		until.tv_nsec = (long)(due % 1000000000u);
		pthread_cond_timedwait(&sv->kick, &sv->collect, &until);
	}
	pthread_mutex_unlock(&sv->collect);
	return NULL;
}

int serve_collector_start(struct serve *sv)
{
	pthread_condattr_t ca;
	sigset_t all, old;

	pthread_mutex_init(&sv->collect, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&sv->kick, &ca);
	pthread_condattr_destroy(&ca);
	/* --min-interval 0: every scrape refreshes; nothing for a collector to do. */
	if (!sv->o.min_interval_ns)
		return 0;
	/* Its signals blocked: SIGINT and SIGTERM are the main thread's (sigwaitinfo()). */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	sv->collector_on = pthread_create(&sv->collector, NULL, collector_main, sv) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return sv->collector_on ? 0 : -1;
}

void serve_collector_stop(struct serve *sv)
{
	if (sv->collector_on) {
		pthread_mutex_lock(&sv->collect);
		sv->stopping = 1;
		pthread_cond_signal(&sv->kick);
		pthread_mutex_unlock(&sv->collect);
		pthread_join(sv->collector, NULL);
		sv->collector_on = 0;
	}
	pthread_cond_destroy(&sv->kick);
	pthread_mutex_destroy(&sv->collect);
	for (int i = 0; i < 2; i++) {
		free(sv->last[i]);
		sv->last[i] = NULL;
	}
	free(sv->plabels.buf);
	free(sv->plabels.off);
	free(sv->plabels.len);
	memset(&sv->plabels, 0, sizeof(sv->plabels));
}

/* ---- the warm-up ---- */

size_t serve_unread(const struct serve *sv)
{
	const struct top *t = &sv->top;
	size_t n = 0;

	for (size_t i = 0; i < t->nlines; i++) {
		const struct pmaps_survey_row *row = t->lines[i].row;
		if (row && !row->total && !row->breakdown &&
		    !(row->flags & (PMAPS_SURVEY_DENIED | PMAPS_SURVEY_FAILED)))
			n++;
	}
	return n;
}

int serve_warm(const struct serve *sv)
{
	return __atomic_load_n(&sv->warm, __ATOMIC_ACQUIRE);
}

/*
 * Refreshes back to back, each within --budget (a large process's gentle
 * walk going on across them), until every selected process has been read
 * once, --ready-timeout passes, or serve stops; then says so on stderr.
 */
static void *warm_main(void *arg)
{
	struct serve *sv = arg;
	uint64_t t0 = now_ns(), end = t0 + sv->o.ready_timeout_ns;
	size_t unread = 0, listed = 0, n = 0;
	char msg[256];
	int err = 0;

	while (!__atomic_load_n(&sv->warm_stop, __ATOMIC_ACQUIRE)) {
		pthread_mutex_lock(&sv->lock);
		sv->refreshed_ns = 0; /* due now, whatever --min-interval says */
		err = serve_fresh(sv, msg, sizeof(msg));
		unread = err < 0 ? 0 : serve_unread(sv);
		listed = sv->top.nlines;
		sv->warm_unread = unread;
		if (err == 0 && unread == 0)
			sv->ready = 1;
		sv->warm_refreshes = ++n;
		pthread_mutex_unlock(&sv->lock);
		if (err < 0 || unread == 0 || now_ns() >= end)
			break;
	}
	sv->warm_ns = now_ns() - t0;
	/* Warm before the line says so: a reader of it may scrape at once. */
	__atomic_store_n(&sv->warm, 1, __ATOMIC_RELEASE);
	if (err < 0)
		; /* the first scrape refreshes again, and answers 503 with the reason */
	else if (unread == 0)
		fprintf(stderr, "pmaps serve: ready: %zu process%s read in %.2f s (%zu refresh%s)\n",
		        listed, listed == 1 ? "" : "es", (double)sv->warm_ns / 1e9, n,
		        n == 1 ? "" : "es");
	else if (!__atomic_load_n(&sv->warm_stop, __ATOMIC_ACQUIRE))
		fprintf(stderr, "pmaps serve: ready after --ready-timeout: %zu of %zu processes not "
		        "read yet (status figures only; pmaps_exporter_ready 0 until they are)\n",
		        unread, listed);
	fflush(stderr);
	return NULL;
}

int serve_warm_start(struct serve *sv)
{
	sigset_t all, old;
	int e;

	if (!sv->o.ready_timeout_ns)
		return 0; /* warm from the start (serve_run()) */
	/* Its signals blocked: SIGINT and SIGTERM are the main thread's (sigwaitinfo()). */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	e = pthread_create(&sv->warmer, NULL, warm_main, sv);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e != 0) {
		/* Without it the first scrape reads what its budget allows, as before. */
		__atomic_store_n(&sv->warm, 1, __ATOMIC_RELEASE);
		return -1;
	}
	sv->warmer_on = 1;
	return 0;
}

void serve_warm_stop(struct serve *sv)
{
	if (!sv->warmer_on)
		return;
	__atomic_store_n(&sv->warm_stop, 1, __ATOMIC_RELEASE);
	pthread_join(sv->warmer, NULL);
	sv->warmer_on = 0;
}

/*
 * R: a copy of the last /metrics answer in format OM, if it was written
 * from the last refresh done (the one under way aside). Returns 1, or 0:
 * then the caller waits for the refresh under way and writes its own. An
 * older answer is not given: scrapes that keep coming while refreshes run
 * would otherwise be given the same one for as long as that lasts (every
 * --min-interval a refresh, and a scrape each time within it).
 */
static int last_answer(struct serve *sv, int om, struct serve_reply *r)
{
	int have = 0;

	if (!sv->collector_on)
		return 0;
	pthread_mutex_lock(&sv->collect);
	sv->scraped_ns = now_ns();
	if (sv->last[om] && sv->last_gen[om] == __atomic_load_n(&sv->done_gen, __ATOMIC_ACQUIRE)) {
		memset(r, 0, sizeof(*r));
		r->body = serve_body_alloc(sv->last_len[om], &r->cap);
		if (r->body) {
			memcpy(r->body, sv->last[om], sv->last_len[om]);
			r->len = sv->last_len[om];
			have = 1;
		}
	}
	pthread_mutex_unlock(&sv->collect);
	return have;
}

/* Keeps R's body, written from refresh GEN, as the last /metrics answer in format OM. */
static void keep_answer(struct serve *sv, int om, const struct serve_reply *r, uint64_t gen)
{
	/* Kept for a scrape that comes during a refresh, which --min-interval 0 never answers so. */
	if (!sv->collector_on || !sv->o.min_interval_ns)
		return;
	pthread_mutex_lock(&sv->collect);
	/* Two scrapes may finish out of order: an answer of an older refresh stays out. */
	if (sv->last[om] && sv->last_gen[om] > gen) {
		pthread_mutex_unlock(&sv->collect);
		return;
	}
	/*
	 * Into the room the last one had (megabytes at a few thousand
	 * processes: new room each time would fault every page in again).
	 */
	if (sv->last_cap[om] < r->len || sv->last_cap[om] / 2 > r->len) {
		size_t cap = r->len + r->len / 8 + 1;
		char *room = malloc(cap);
		if (!room) {
			pthread_mutex_unlock(&sv->collect);
			return;
		}
		free(sv->last[om]);
		sv->last[om] = room;
		sv->last_cap[om] = cap;
	}
	memcpy(sv->last[om], r->body, r->len);
	sv->last_len[om] = r->len;
	sv->last_gen[om] = gen;
	pthread_mutex_unlock(&sv->collect);
}

static void metrics(struct serve *sv, const char *accept, struct serve_reply *r)
{
	struct mctx m = {sv, wants_openmetrics(accept), 0};
	uint64_t gen;
	int lately;
	const char *type = m.om ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
	                        : "text/plain; version=0.0.4; charset=utf-8";
	char msg[256];
	int err;

	if (!serve_warm(sv)) {
		/* No answer with some processes' figures missing: up is 0 until every one is read. */
		serve_reply_text(r, 503, "warming up: reading every selected process once before the "
		                 "first answer (--ready-timeout)");
		r->retry_after = 1;
		return;
	}
	/*
	 * A refresh under way: the last answer, as it was, if written from the
	 * refresh before it (unless each scrape is to refresh); else this one waits.
	 */
	if (pthread_mutex_trylock(&sv->lock) != 0) {
		if (sv->o.min_interval_ns && last_answer(sv, m.om, r)) {
			r->status = 200;
			r->content_type = type;
			return;
		}
		if (serve_lock(sv) < 0) {
			serve_reply_text(r, 503, "busy: a refresh of the figures is taking long; try again");
			return;
		}
	}
	lately = 0;
	if (sv->collector_on) {
		uint64_t now = now_ns();
		pthread_mutex_lock(&sv->collect);
		lately = scraped_lately(sv, now);
		sv->scraped_ns = now;
		/* Due: the collector refreshes them (it had stopped, with no scrape). */
		if (lately && sv->refreshed_ns && now - sv->refreshed_ns >= sv->o.min_interval_ns) {
			sv->kicked = 1;
			pthread_cond_signal(&sv->kick);
		}
		pthread_mutex_unlock(&sv->collect);
	}
	/*
	 * The first scrape, or the first after SERVE_ACTIVE_S without one:
	 * refreshed here, the scrape waiting; while scrapes come, the
	 * collector keeps the figures at most --min-interval and one refresh
	 * old.
	 */
	if ((!lately || !sv->refreshed_ns) && serve_fresh(sv, msg, sizeof(msg)) < 0) {
		pthread_mutex_unlock(&sv->lock);
		serve_reply_text(r, 503, msg);
		return;
	}
	sv->scrapes++;
	m.now = now_ns();
	memset(r, 0, sizeof(*r));
	err = serve_render(r, write_metrics, &m, sv->metrics_len);
	if (err < 0) {
		pthread_mutex_unlock(&sv->lock);
		serve_reply_text(r, err == -ENOBUFS ? 503 : 500,
		                 err == -ENOBUFS ? "the answer would pass 256 MiB: --group-by keeps it "
		                                   "smaller" : pmaps_strerror(err));
		return;
	}
	sv->metrics_len = r->len;
	gen = sv->refreshed_ns;
	pthread_mutex_unlock(&sv->lock);
	keep_answer(sv, m.om, r, gen);
	r->status = 200;
	r->content_type = type;
}

/* ---- routes ---- */

/* An /api/ path that names no endpoint: 404, as every API error, a JSON object. */
static void api_not_found(struct serve_reply *r)
{
	static const char body[] = "{\"error\":\"no such endpoint: see pmaps serve --help\"}\n";

	serve_reply_text(r, 404, "");
	free(r->body);
	r->body = malloc(sizeof(body) - 1);
	r->len = r->body ? sizeof(body) - 1 : 0;
	if (r->body)
		memcpy(r->body, body, r->len);
	else
		r->status = 500;
	r->content_type = "application/json";
}

/* "/api/process/PID/REST": PID in decimal and REST; 0 when URL is no such path. */
static int process_path(const char *url, int *pid, const char **rest)
{
	static const char prefix[] = "/api/process/";
	const char *p;
	uint64_t v = 0;

	if (strncmp(url, prefix, sizeof(prefix) - 1) != 0)
		return 0;
	p = url + sizeof(prefix) - 1;
	if (*p < '0' || *p > '9' || (*p == '0' && p[1] != '/'))
		return 0;
	for (; *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (uint64_t)(*p - '0');
		if (v > INT_MAX)
			return 0;
	}
	if (*p != '/' || v == 0)
		return 0;
	*pid = (int)v;
	*rest = p + 1;
	return 1;
}

void serve_route(struct serve *sv, const char *url, const char *query, const char *accept,
                 struct serve_reply *r)
{
	const char *rest;
	int pid;

	if (strcmp(url, "/metrics") == 0) {
		metrics(sv, accept, r);
	} else if (strcmp(url, "/healthz") == 0) {
		/* For a probe: 200 once the warm-up is over and /metrics answers with figures. */
		if (serve_warm(sv)) {
			serve_reply_text(r, 200, "ok");
		} else {
			serve_reply_text(r, 503, "warming up");
			r->retry_after = 1;
		}
	} else if (strcmp(url, "/") == 0 || strcmp(url, "/index.html") == 0) {
		memset(r, 0, sizeof(*r));
		r->body = malloc(serve_page_html_len);
		if (!r->body) {
			serve_reply_text(r, 500, "out of memory");
			return;
		}
		memcpy(r->body, serve_page_html, serve_page_html_len);
		r->len = serve_page_html_len;
		r->status = 200;
		r->content_type = "text/html; charset=utf-8";
	} else if (strcmp(url, "/api/processes") == 0) {
		serve_api_processes(sv, r);
	} else if (process_path(url, &pid, &rest)) {
		if (strcmp(rest, "explain") == 0)
			serve_api_explain(sv, pid, r);
		else if (strcmp(rest, "pages") == 0)
			serve_api_pages_query(sv, pid, query, r);
		else if (strcmp(rest, "pages.svg") == 0)
			serve_api_pages_svg(sv, pid, r);
		else
			api_not_found(r);
	} else if (strncmp(url, "/api/", 5) == 0) {
		api_not_found(r);
	} else {
		serve_reply_text(r, 404, "not found");
	}
}

/* ---- options ---- */

/* FILE under ROOT (NULL: /proc), opened as every file a target names: a descriptor, or -1. */
static int open_root(const char *root, const char *file)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", root ? root : "/proc", file);
	return open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
}

/* /proc/sys/vm/max_map_count under ROOT (NULL: /proc), or 0 when unreadable. */
static uint64_t read_max_map_count(const char *root)
{
	char buf[32] = "";
	uint64_t v = 0;
	ssize_t n = -1;
	int fd = open_root(root, "sys/vm/max_map_count");

	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
	}
	if (n <= 1 || buf[n - 1] != '\n')
		return 0;
	buf[n - 1] = '\0';
	return parse_decimal(buf, UINT64_MAX - 1, &v) == 0 ? v : 0;
}

/*
 * The boot time, in ns since the epoch, from the btime line of ROOT's stat
 * (NULL: /proc/stat), or 0 when unreadable: whole seconds, as the kernel
 * gives it. The file is read through a fixed buffer to its btime line,
 * however long the lines before it (a machine's per-CPU and intr lines run
 * to tens of KiB).
 */
static uint64_t read_boot_ns(const char *root)
{
	char buf[8192];
	size_t have = 0;
	uint64_t v = 0;
	int fd = open_root(root, "stat"), at_line = 1;

	if (fd < 0)
		return 0;
	for (;;) {
		ssize_t n = read(fd, buf + have, sizeof(buf) - 1 - have);
		char *p = buf, *end, *nl;
		if (n <= 0)
			break;
		have += (size_t)n;
		buf[have] = '\0';
		end = buf + have;
		/* Whole lines; a line's start that the buffer cut is kept for the next read. */
		while ((nl = memchr(p, '\n', (size_t)(end - p))) != NULL) {
			if (at_line && strncmp(p, "btime ", 6) == 0) {
				*nl = '\0';
				close(fd);
				if (parse_decimal(p + 6, UINT64_MAX / 1000000000u, &v) < 0)
					return 0;
				return v * 1000000000u;
			}
			p = nl + 1;
			at_line = 1;
		}
		if (p == buf && have == sizeof(buf) - 1) {
			/* A line longer than the buffer (intr): not btime's; its rest is skipped. */
			at_line = 0;
			have = 0;
			continue;
		}
		have = (size_t)(end - p);
		memmove(buf, p, have);
	}
	close(fd);
	return 0;
}

/*
 * Whether this reader may read every process's memory files: root, or a
 * user given CAP_SYS_PTRACE (the hardened unit's, contrib/systemd), which
 * is what ptrace read access asks.
 */
static int reads_every_process(void)
{
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[2];

	if (geteuid() == 0)
		return 1;
	memset(d, 0, sizeof(d));
	if (syscall(SYS_capget, &h, d) < 0)
		return 0;
	return (d[CAP_SYS_PTRACE / 32].effective >> (CAP_SYS_PTRACE % 32)) & 1;
}

int serve_run(struct serve *sv)
{
	static struct serve_groups groups; /* the daemon's threads use it until it stops */
	int rc;

	memset(&groups, 0, sizeof(groups));
	/*
	 * A reply of a megabyte or more (a picture, a page of mappings, a kept
	 * answer) is mapped apart and given back when freed: glibc's threshold
	 * would otherwise rise after the first and keep the next ones on the
	 * heap, where a burst of them stays resident.
	 */
	mallopt(M_MMAP_THRESHOLD, 1 << 20);
	/* The options are right: now the HTTP library (a missing one is said, exit 1). */
	if ((rc = serve_http_load()) != EXIT_OK) {
		if (sv->o.group_by == SERVE_BY_CMDLINE)
			regfree(&sv->o.cmdline);
		top_done(&sv->top);
		return rc;
	}
	if (!sv->o.loopback)
		die_msg("serve: warning: %s is not a loopback address: anyone who can connect sees "
		        "the names, users and memory of the processes served", sv->o.listen);
	sv->groups = &groups;
	if ((rc = serve_cgroups_open(sv)) < 0) {
		if (rc == -1)
			die_msg("serve: out of memory");
		serve_cgroups_close(sv);
		if (sv->o.group_by == SERVE_BY_CMDLINE)
			regfree(&sv->o.cmdline);
		top_done(&sv->top);
		return EXIT_FAIL;
	}
	sv->root = reads_every_process();
	if (!sv->root)
		note_msg("serve: not root: other users' processes get status figures only (resident, "
		         "swap); root, or CAP_SYS_PTRACE, adds their PSS, USS, LazyFree and breakdown");
	sv->max_map_count = read_max_map_count(sv->o.top.root);
	sv->boot_ns = read_boot_ns(sv->o.top.root);
	pthread_mutex_init(&sv->lock, NULL);
	pthread_mutex_init(&sv->costly, NULL);
	rc = top_init(&sv->top);
	if (rc == 0) {
		/* Only the selected processes are read past status. */
		top_want_filtered(&sv->top);
		/* No warm-up: ready before the listening line, as the first scrape reads. */
		if (!sv->o.ready_timeout_ns)
			__atomic_store_n(&sv->warm, 1, __ATOMIC_RELEASE);
		/* Without its thread, scrapes refresh the figures themselves, as before. */
		serve_collector_start(sv);
		rc = serve_books_start(sv) < 0 ? EXIT_FAIL : serve_http_run(sv);
		serve_warm_stop(sv);
		serve_books_stop(sv);
		serve_collector_stop(sv);
	}
	top_done(&sv->top);
	pthread_mutex_destroy(&sv->lock);
	pthread_mutex_destroy(&sv->costly);
	if (sv->o.group_by == SERVE_BY_CMDLINE)
		regfree(&sv->o.cmdline);
	free(groups.g);
	free(groups.keys);
	free(groups.old);
	sv->groups = NULL;
	serve_cgroups_close(sv);
	return rc;
}
