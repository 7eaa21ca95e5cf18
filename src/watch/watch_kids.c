/* SPDX-License-Identifier: MIT */
/*
 * watch_kids.c - the descendants of a watched process, for pmaps watch and
 * run --children.
 *
 * Finding them: kernels built without CONFIG_PROC_CHILDREN have no
 * /proc/PID/task/TID/children, so at each sample the process list is read
 * (pmaps_procs_*, opened once and rewound: it allocates nothing) into a
 * table of (pid, parent, comm), and the parent links are followed from the
 * watched process: a process whose parent is the watched process or one of
 * its descendants is a descendant, at any depth, whatever the order of the
 * list. The links are of that moment: a process whose parent exits is
 * re-parented at once to the nearest subreaper or to init, and from then on
 * is no descendant (it "left"; its figures end there). Zombies have no
 * memory and are skipped; so are kernel threads.
 *
 * Reading them: each descendant gets a process handle when first found
 * (pmaps_proc_open: one allocation per descendant, never per sample), kept
 * while it lives; its status gives VmRSS and its parts, VmSwap and VmHWM.
 * The handle's directory fd is the process's own: when its pid is reused,
 * the handle reads nothing (-ESRCH), the old process is ended, and the new
 * one with the same pid is a new descendant. At most KIDS_MAX are read at
 * once; more are counted, per sample, as untracked (their memory is then
 * not in the sum, which says so).
 *
 * Nothing grows per sample: the process table grows (doubling) only when
 * the machine has more processes than at any listing before; the
 * descendants' table and the summary's records are fixed arrays.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/num.h"
#include "watch/watch_kids.h"

/* The process table's first size: well above a quiet machine's count. */
#define ENTS_FIRST 4096u
/* pid_max's largest value: a table never needs more entries. */
#define ENTS_LIMIT (1u << 22)

struct pentry {
	int pid, ppid;
	unsigned char comm_len;
	unsigned char desc;    /* a descendant at this listing */
	char comm[64];
};

struct kid {
	struct pmaps_proc *proc;
	int mark;              /* listed as a descendant at this sample */
	int read;              /* read at least once */
	size_t ent;            /* its entry at this sample */
	struct kid_record r;
};

struct kids {
	int root_pid;
	const char *proc_root;
	struct pmaps_procs *it;
	struct pentry *ents;
	size_t n, cap;
	int *hash;             /* the descendants' pids (and the root's); 0: empty */
	size_t hmask;
	struct kid kid[KIDS_MAX];
	size_t nkids;
	struct kid_record done[KIDS_SHOWN]; /* ended, largest peak first */
	size_t ndone;
	uint64_t seen, untracked_max, grows;
};

/* ---- the set of descendants' pids: open addressing, rebuilt per sample ---- */

static size_t slot_of(const struct kids *k, int pid)
{
	return ((size_t)(unsigned)pid * 2654435761u) & k->hmask;
}

static void hash_add(struct kids *k, int pid)
{
	size_t i = slot_of(k, pid);

	while (k->hash[i] && k->hash[i] != pid)
		i = (i + 1) & k->hmask;
	k->hash[i] = pid;
}

static int hash_has(const struct kids *k, int pid)
{
	size_t i = slot_of(k, pid);

	while (k->hash[i]) {
		if (k->hash[i] == pid)
			return 1;
		i = (i + 1) & k->hmask;
	}
	return 0;
}

/* Doubles the process table and the set (room for twice as many pids as entries). */
static int grow(struct kids *k)
{
	size_t cap = k->cap ? k->cap * 2 : ENTS_FIRST;
	struct pentry *e;
	int *h;

	if (cap > ENTS_LIMIT)
		return -E2BIG;
	e = realloc(k->ents, cap * sizeof(*e));
	if (!e)
		return -ENOMEM;
	k->ents = e;
	h = calloc(cap * 2, sizeof(*h));
	if (!h)
		return -ENOMEM;
	free(k->hash);
	k->hash = h;
	k->hmask = cap * 2 - 1;
	k->cap = cap;
	k->grows++;
	return 0;
}

int kids_open(struct kids **out, const char *proc_root, int pid, char *msg, size_t msgsz)
{
	struct kids *k;
	int err;

	*out = NULL;
	k = calloc(1, sizeof(*k));
	if (!k) {
		snprintf(msg, msgsz, "out of memory");
		return -ENOMEM;
	}
	k->root_pid = pid;
	k->proc_root = proc_root;
	err = grow(k);
	if (err == 0)
		err = pmaps_procs_open(&k->it, proc_root);
	if (err < 0) {
		snprintf(msg, msgsz, "the process list: %s", pmaps_strerror(err));
		kids_close(k);
		return err;
	}
	k->grows = 0; /* the first table is the opening's, not a growth */
	*out = k;
	return 0;
}

/* ---- one sample ---- */

/* The processes now, into the table (zombies and kernel threads left out). */
static int list(struct kids *k, char *msg, size_t msgsz)
{
	const struct pmaps_proc_info *info;
	int r;

	r = pmaps_procs_rewind(k->it);
	if (r < 0) {
		snprintf(msg, msgsz, "the process list: %s", pmaps_strerror(r));
		return r;
	}
	k->n = 0;
	while ((r = pmaps_procs_next(k->it, &info)) != 0) {
		struct pentry *e;
		if (r == -EBADMSG)
			continue; /* that entry alone: the list goes on */
		if (r < 0) {
			snprintf(msg, msgsz, "the process list: %s", pmaps_strerror(r));
			return r;
		}
		if (info->kernel_thread || info->state == 'Z' || info->state == 'X')
			continue;
		if (k->n == k->cap) {
			r = grow(k);
			if (r < 0) {
				snprintf(msg, msgsz, "the process list: %s", pmaps_strerror(r));
				return r;
			}
		}
		e = &k->ents[k->n++];
		e->pid = info->pid;
		e->ppid = info->ppid;
		e->desc = 0;
		e->comm_len = (unsigned char)(info->comm_len < sizeof(e->comm) ? info->comm_len
		                                                                : sizeof(e->comm) - 1);
		memcpy(e->comm, info->comm, e->comm_len);
	}
	return 0;
}

/* Marks the descendants of the root: passes until none is added (any list order). */
static void follow(struct kids *k)
{
	int changed;

	memset(k->hash, 0, (k->hmask + 1) * sizeof(*k->hash));
	hash_add(k, k->root_pid);
	do {
		changed = 0;
		for (size_t i = 0; i < k->n; i++) {
			struct pentry *e = &k->ents[i];
			if (e->desc || e->pid == k->root_pid || e->ppid <= 0 || !hash_has(k, e->ppid))
				continue;
			e->desc = 1;
			hash_add(k, e->pid);
			changed = 1;
		}
	} while (changed);
}

/* Keeps R among the ended ones the summary may list (the largest peaks). */
static void keep_done(struct kids *k, const struct kid_record *r)
{
	size_t j = k->ndone;

	if (j == KIDS_SHOWN) {
		if (k->done[KIDS_SHOWN - 1].peak_rss >= r->peak_rss)
			return;
		j--;
	} else {
		k->ndone++;
	}
	while (j > 0 && k->done[j - 1].peak_rss < r->peak_rss) {
		k->done[j] = k->done[j - 1];
		j--;
	}
	k->done[j] = *r;
}

/* Ends descendant I (how: END), keeping it for the summary when it was ever read. */
static void finish(struct kids *k, size_t i, enum kid_end end)
{
	struct kid *d = &k->kid[i];

	pmaps_proc_close(d->proc);
	if (d->read) {
		d->r.end = end;
		keep_done(k, &d->r);
	}
	k->kid[i] = k->kid[--k->nkids];
}

/* A new descendant, entry E: its handle. Returns 1, 0 when it is gone already, or -errno. */
static int add(struct kids *k, size_t e, char *msg, size_t msgsz)
{
	const struct pentry *p = &k->ents[e];
	struct kid *d;
	char pid[16];
	int err;

	snprintf(pid, sizeof(pid), "%d", p->pid);
	d = &k->kid[k->nkids];
	memset(d, 0, sizeof(*d));
	err = pmaps_proc_open(&d->proc, k->proc_root, pid);
	if (err == -ESRCH || err == -ENOENT)
		return 0;
	if (err < 0) {
		snprintf(msg, msgsz, "descendant %d: %s", p->pid, pmaps_strerror(err));
		return err;
	}
	d->mark = 1;
	d->ent = e;
	d->r.pid = p->pid;
	d->r.ppid = p->ppid;
	k->nkids++;
	return 1;
}

/*
 * Reads descendant I at T into SUM. Returns 1 when read, 0 when it is gone
 * (exited: ended here), or a negative errno.
 */
static int read_kid(struct kids *k, size_t i, uint64_t t, struct kids_sum *sum, char *msg,
                    size_t msgsz)
{
	struct kid *d = &k->kid[i];
	const struct pentry *p = &k->ents[d->ent];
	struct pmaps_status st;
	int err;

	memset(&st, 0, sizeof(st));
	st.size = sizeof(st);
	err = pmaps_status_read(d->proc, &st, NULL, 0);
	/* A zombie's status has no Vm lines: it exited, its memory is gone. */
	if (err == -ESRCH || err == -ENOENT || (err == 0 && !((st.present >> PMAPS_ST_VM_RSS) & 1))) {
		finish(k, i, KID_EXITED);
		return 0;
	}
	if (err < 0) {
		snprintf(msg, msgsz, "descendant %d: %s", d->r.pid, pmaps_strerror(err));
		return err;
	}
	if (!d->read) {
		d->read = 1;
		d->r.first_t = t;
		k->seen++;
	}
	/* The comm as listed now: an exec changes it. */
	d->r.comm_len = p->comm_len;
	memcpy(d->r.comm, p->comm, p->comm_len);
	d->r.comm[p->comm_len] = '\0';
	d->r.last_t = t;
	d->r.rss = st.v[PMAPS_ST_VM_RSS];
	if (d->r.rss > d->r.peak_rss || d->r.first_t == t) {
		d->r.peak_rss = d->r.rss;
		d->r.peak_t = t;
	}
	d->r.hwm_known = (st.present >> PMAPS_ST_VM_HWM) & 1;
	d->r.hwm = st.v[PMAPS_ST_VM_HWM];
	sum->count++;
	sum->rss = sat_add(sum->rss, st.v[PMAPS_ST_VM_RSS]);
	sum->anon = sat_add(sum->anon, st.v[PMAPS_ST_RSS_ANON]);
	sum->file = sat_add(sum->file, st.v[PMAPS_ST_RSS_FILE]);
	sum->shmem = sat_add(sum->shmem, st.v[PMAPS_ST_RSS_SHMEM]);
	sum->swap = sat_add(sum->swap, st.v[PMAPS_ST_VM_SWAP]);
	return 1;
}

static struct kid *find_kid(struct kids *k, int pid)
{
	for (size_t i = 0; i < k->nkids; i++)
		if (k->kid[i].r.pid == pid)
			return &k->kid[i];
	return NULL;
}

int kids_sample(struct kids *k, uint64_t t_ns, struct kids_sum *sum, char *msg, size_t msgsz)
{
	int err;

	memset(sum, 0, sizeof(*sum));
	err = list(k, msg, msgsz);
	if (err < 0)
		return err;
	follow(k);
	for (size_t i = 0; i < k->nkids; i++)
		k->kid[i].mark = 0;
	/* Those known: marked. The new ones: a handle each while there is room. */
	for (size_t e = 0; e < k->n; e++) {
		struct kid *d;
		if (!k->ents[e].desc)
			continue;
		d = find_kid(k, k->ents[e].pid);
		if (d) {
			d->mark = 1;
			d->ent = e;
			continue;
		}
		if (k->nkids == KIDS_MAX) {
			sum->untracked++;
			continue;
		}
		err = add(k, e, msg, msgsz);
		if (err < 0)
			return err;
	}
	/* Each read; those no longer below the root ended (left, or exited). */
	for (size_t i = 0; i < k->nkids;) {
		struct kid *d = &k->kid[i];
		size_t e = d->ent;
		int was_read;
		if (!d->mark) {
			struct pmaps_status st;
			memset(&st, 0, sizeof(st));
			st.size = sizeof(st);
			err = pmaps_status_read(d->proc, &st, NULL, 0);
			finish(k, i, err == 0 && ((st.present >> PMAPS_ST_VM_RSS) & 1) ? KID_LEFT
			                                                               : KID_EXITED);
			continue;
		}
		was_read = d->read;
		err = read_kid(k, i, t_ns, sum, msg, msgsz);
		if (err < 0)
			return err;
		if (err == 1) {
			i++;
			continue;
		}
		/*
		 * Gone, but listed as a descendant: it died since the listing,
		 * or its pid was reused by a new descendant, which a new handle
		 * reads (appended: the loop comes to it). finish() moved the last
		 * one into slot I: it is read next. A handle opened at this sample
		 * is not opened again: it met the one the listing saw.
		 */
		if (!was_read || k->nkids == KIDS_MAX)
			continue;
		err = add(k, e, msg, msgsz);
		if (err < 0)
			return err;
	}
	if (sum->untracked > k->untracked_max)
		k->untracked_max = sum->untracked;
	return 0;
}

/* ---- the summary ---- */

void kids_end(struct kids *k)
{
	for (size_t i = 0; i < k->nkids;) {
		struct pmaps_status st;
		int err;
		memset(&st, 0, sizeof(st));
		st.size = sizeof(st);
		err = pmaps_status_read(k->kid[i].proc, &st, NULL, 0);
		if (err == 0 && ((st.present >> PMAPS_ST_VM_RSS) & 1))
			i++;
		else
			finish(k, i, KID_EXITED);
	}
}

/* Puts R into OUT (N of at most KIDS_SHOWN), largest peak first (ties: first seen first). */
static void rank(struct kid_record *out, size_t *n, const struct kid_record *r)
{
	size_t j = *n;

	if (j == KIDS_SHOWN) {
		const struct kid_record *l = &out[KIDS_SHOWN - 1];
		if (l->peak_rss > r->peak_rss ||
		    (l->peak_rss == r->peak_rss && l->first_t <= r->first_t))
			return;
		j--;
	} else {
		(*n)++;
	}
	while (j > 0 && (out[j - 1].peak_rss < r->peak_rss ||
	                 (out[j - 1].peak_rss == r->peak_rss && out[j - 1].first_t > r->first_t))) {
		out[j] = out[j - 1];
		j--;
	}
	out[j] = *r;
}

size_t kids_summary(struct kids *k, struct kid_record *out, uint64_t *seen,
                    uint64_t *untracked_max)
{
	size_t n = 0;

	for (size_t i = 0; i < k->ndone; i++)
		rank(out, &n, &k->done[i]);
	for (size_t i = 0; i < k->nkids; i++) {
		if (!k->kid[i].read)
			continue;
		k->kid[i].r.end = KID_RUNNING;
		rank(out, &n, &k->kid[i].r);
	}
	*seen = k->seen;
	*untracked_max = k->untracked_max;
	return n;
}

void kids_close(struct kids *k)
{
	if (!k)
		return;
	for (size_t i = 0; i < k->nkids; i++)
		pmaps_proc_close(k->kid[i].proc);
	pmaps_procs_close(k->it);
	free(k->ents);
	free(k->hash);
	free(k);
}

uint64_t kids_grows(const struct kids *k)
{
	return k->grows;
}
