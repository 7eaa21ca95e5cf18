/* SPDX-License-Identifier: MIT */
/*
 * cmd_maps.c - `pmaps maps PID`: every mapping and every smaps field, per
 * mapping, grouped by path or kind, or in total.
 *
 * Without --sort, rows go out as the library yields them and memory stays
 * constant. --sort has to hold every row: each is stashed compactly (fixed
 * part plus its strings in one arena) and written after the scan.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "render.h"

static const char maps_usage[] =
	"Usage: pmaps maps [OPTIONS] PID\n"
	"\n"
	"List every mapping of process PID (a number, or 'self') with every field\n"
	"/proc/PID/smaps reports, or sums of them per path, per kind, or in total.\n"
	"\n"
	"Options:\n"
	"  -g, --group path|kind  one row per path (nameless mappings share one) or per kind\n"
	"  -t, --total            one row: from smaps_rollup when the kernel has it, else\n"
	"                         summed from smaps (the output says which)\n"
	"  -f, --fields LIST      table/CSV columns, comma-separated, or 'all'\n"
	"  -s, --sort FIELD       sort rows by FIELD: sizes largest first; address, path\n"
	"                         and kind ascending\n"
	"  -j, --json             JSON for programs: sizes in bytes, every reported field\n"
	"      --csv              CSV for programs: sizes in bytes\n"
	"  -b, --bytes            table sizes in bytes instead of K/M/G (powers of 1024)\n"
	"      --proc-root DIR    read DIR/PID instead of /proc/PID (a host's proc, a fixture)\n"
	"  -h, --help             show this help\n"
	"\n"
	"Fields: any smaps field by kernel or snake_case name (rss, pss, pss_dirty,\n"
	"shared_clean, shared_dirty, private_clean, private_dirty, referenced, anonymous,\n"
	"ksm, lazy_free, anon_huge_pages, swap, swap_pss, locked, ...) and address, start,\n"
	"end, perms, offset, dev, inode, kind, shared, mappings, vsize, vm_flags, path.\n"
	"Default: address,perms,kind,rss,pss,private_dirty,private_clean,shared,swap,\n"
	"lazy_free,path. A field the kernel does not report shows as '-'.\n"
	"\n"
	"Kinds: anon, anon-named, heap, stack, file-text, file-data, file-ro, shmem,\n"
	"hugetlb, vdso, guard, other.\n"
	"\n"
	"Exit status: 0 on success (a kernel thread: a note and no rows), 1 when the\n"
	"process cannot be read (gone, exited or exec'd while read, permission denied,\n"
	"malformed text) or the output cannot be written, 2 on a usage error.\n";

void maps_default_columns(struct maps_opts *o)
{
	static const int def[] = {COL_ADDRESS, COL_PERMS, COL_KIND, PMAPS_F_RSS, PMAPS_F_PSS,
	                          PMAPS_F_PRIVATE_DIRTY, PMAPS_F_PRIVATE_CLEAN, COL_SHARED,
	                          PMAPS_F_SWAP, PMAPS_F_LAZY_FREE, COL_PATH};
	static const int grp[] = {COL_KIND, COL_MAPPINGS, COL_VSIZE, PMAPS_F_RSS, PMAPS_F_PSS,
	                          PMAPS_F_PRIVATE_DIRTY, PMAPS_F_PRIVATE_CLEAN, COL_SHARED,
	                          PMAPS_F_SWAP, PMAPS_F_LAZY_FREE, COL_PATH};
	const int *src = o->group >= 0 ? grp : def;
	size_t n = o->group >= 0 ? sizeof(grp) / sizeof(grp[0]) : sizeof(def) / sizeof(def[0]);

	/* By kind the kind is the key; in total the last column names the source. */
	if (o->group == PMAPS_GROUP_KIND)
		n--;
	if (o->group == PMAPS_GROUP_TOTAL) {
		src++;
		n--;
	}
	for (size_t i = 0; i < n; i++)
		o->cols[i] = src[i];
	o->ncols = (int)n;
}

/* ---- the stash: rows kept for --sort ---- */

struct srow {
	struct pmaps_mapping m; /* views and unknowns rebuilt from the arena */
	size_t path_off, vmf_off, unk_off;
};

struct stash {
	struct srow *rows;
	size_t n, cap;
	char *arena;
	size_t alen, acap;
};

static int arena_put(struct stash *s, const void *p, size_t n, size_t *off)
{
	if (s->alen + n > s->acap) {
		size_t na = s->acap ? s->acap * 2 : 65536;
		while (na < s->alen + n)
			na *= 2;
		char *a = realloc(s->arena, na);
		if (!a)
			return -ENOMEM;
		s->arena = a;
		s->acap = na;
	}
	*off = s->alen;
	if (n)
		memcpy(s->arena + s->alen, p, n);
	s->alen += n;
	return 0;
}

static int stash_add(struct stash *s, const struct pmaps_mapping *m)
{
	struct srow *r;
	size_t off;

	if (s->n == s->cap) {
		size_t nc = s->cap ? s->cap * 2 : 1024;
		struct srow *nr = realloc(s->rows, nc * sizeof(*nr));
		if (!nr)
			return -ENOMEM;
		s->rows = nr;
		s->cap = nc;
	}
	r = &s->rows[s->n];
	r->m = *m;
	r->m.n_unknown = m->n_unknown;
	if (arena_put(s, m->path.ptr, m->path.len, &r->path_off) ||
	    arena_put(s, m->vm_flags_text.ptr, m->vm_flags_text.len, &r->vmf_off))
		return -ENOMEM;
	r->unk_off = s->alen;
	for (unsigned i = 0; i < m->n_unknown; i++) {
		const struct pmaps_unknown *u = &m->unknown[i];
		if (arena_put(s, u->name.ptr, u->name.len, &off) ||
		    arena_put(s, u->text.ptr, u->text.len, &off))
			return -ENOMEM;
	}
	s->n++;
	return 0;
}

/* Points the row's views into the arena (after all growth is done). */
static void stash_fix(struct stash *s, struct srow *r)
{
	size_t off = r->unk_off;

	r->m.path.ptr = s->arena + r->path_off;
	r->m.vm_flags_text.ptr = s->arena + r->vmf_off;
	for (unsigned i = 0; i < r->m.n_unknown; i++) {
		struct pmaps_unknown *u = &r->m.unknown[i];
		u->name.ptr = s->arena + off;
		off += u->name.len;
		u->text.ptr = s->arena + off;
		off += u->text.len;
	}
}

/* ---- sorting ---- */

static uint64_t sort_value(int col, const uint64_t *v, uint64_t vsize, uint64_t nmaps)
{
	if (col == COL_SHARED)
		return v[PMAPS_F_SHARED_CLEAN] + v[PMAPS_F_SHARED_DIRTY];
	if (col == COL_VSIZE)
		return vsize;
	if (col == COL_MAPPINGS)
		return nmaps;
	return v[col];
}

static int sort_col;

static int cmp_view(struct pmaps_view a, struct pmaps_view b)
{
	int c = memcmp(a.ptr, b.ptr, a.len < b.len ? a.len : b.len);
	return c ? c : (a.len > b.len) - (a.len < b.len);
}

static int cmp_u64_desc(uint64_t a, uint64_t b)
{
	return (a < b) - (a > b);
}

static int cmp_srow(const void *pa, const void *pb)
{
	const struct pmaps_mapping *a = &((const struct srow *)pa)->m;
	const struct pmaps_mapping *b = &((const struct srow *)pb)->m;
	int c = 0;

	switch (sort_col) {
	case COL_ADDRESS: case COL_START: case COL_END: case COL_PERMS: case COL_OFFSET:
	case COL_DEV: case COL_INODE: case COL_VMFLAGS:
		break;
	case COL_PATH: c = cmp_view(a->path, b->path); break;
	case COL_KIND: c = (a->kind > b->kind) - (a->kind < b->kind); break;
	default:
		c = cmp_u64_desc(sort_value(sort_col, a->v, a->end - a->start, 1),
		                 sort_value(sort_col, b->v, b->end - b->start, 1));
	}
	return c ? c : (a->start > b->start) - (a->start < b->start);
}

static int cmp_group(const void *pa, const void *pb)
{
	const struct pmaps_group_row *a = *(const struct pmaps_group_row *const *)pa;
	const struct pmaps_group_row *b = *(const struct pmaps_group_row *const *)pb;
	int c = 0;

	switch (sort_col) {
	case COL_PATH: break;
	case COL_KIND: c = (a->kind > b->kind) - (a->kind < b->kind); break;
	default:
		c = cmp_u64_desc(sort_value(sort_col, a->v, a->vsize, a->mappings),
		                 sort_value(sort_col, b->v, b->vsize, b->mappings));
	}
	return c ? c : cmp_view(a->key, b->key);
}

/* ---- the report ---- */

static int fail_read(const struct maps_opts *o, struct render *r, struct out *out,
                     struct pmaps_maps *c, int err)
{
	const char *msg = c && pmaps_maps_errmsg(c)[0] ? pmaps_maps_errmsg(c) : pmaps_strerror(err);

	if (r)
		render_end(r, msg);
	out_flush(out);
	die_msg("process %s: %s", o->pid, msg);
	return EXIT_FAIL;
}

/* A kernel thread: the note, and a result with no rows. */
static int no_memory(const struct maps_opts *o, struct pmaps_proc *proc, struct out *out,
                     const char *source, int grouped)
{
	struct render r;

	kernel_thread_note(pmaps_proc_pid(proc));
	render_begin(&r, out, o, pmaps_proc_pid(proc), source, grouped);
	render_end(&r, NULL);
	return EXIT_OK;
}

static int report_total(const struct maps_opts *o, struct pmaps_proc *proc, struct out *out)
{
	struct pmaps_maps *c = NULL;
	const struct pmaps_mapping *m;
	struct pmaps_group *g = NULL;
	struct pmaps_group_row row;
	struct render r;
	const char *source = "smaps_rollup";
	int rc = EXIT_OK, err;

	err = pmaps_maps_open(&c, proc, PMAPS_SRC_ROLLUP, 0);
	if (err == -ENOENT) {
		note_msg("smaps_rollup is not provided by this kernel (needs Linux 4.14); "
		         "summing smaps instead");
		pmaps_maps_close(c);
		c = NULL;
		source = "smaps";
		err = pmaps_maps_open(&c, proc, PMAPS_SRC_SMAPS, 0);
	}
	if (err == -ENODATA) {
		rc = no_memory(o, proc, out, source, 1);
		goto done;
	}
	if (err < 0) {
		rc = fail_read(o, NULL, out, c, err);
		goto done;
	}
	if (pmaps_group_open(&g, PMAPS_GROUP_TOTAL) < 0) {
		die_msg("out of memory");
		rc = EXIT_FAIL;
		goto done;
	}
	while ((err = pmaps_maps_next(c, &m)) > 0) {
		if (pmaps_group_add(g, m) < 0) {
			err = -ENOMEM;
			break;
		}
	}
	if ((err == -ENODATA || err == 0) && pmaps_group_count(g) == 0 &&
	    pmaps_proc_is_kernel_thread(proc) == 1) {
		rc = no_memory(o, proc, out, source, 1);
		goto done;
	}
	render_begin(&r, out, o, pmaps_proc_pid(proc), source, 1);
	if (err < 0) {
		rc = fail_read(o, &r, out, c, err);
		goto done;
	}
	if (pmaps_group_count(g) == 0) {
		rc = fail_read(o, &r, out, c, -ESRCH);
		goto done;
	}
	row = *pmaps_group_get(g, 0);
	if (strcmp(source, "smaps_rollup") == 0) {
		/* The rollup row is the kernel's own sum: no mapping count, no vsize. */
		row.mappings = 0;
		row.vsize = 0;
	}
	row.key.ptr = source;
	row.key.len = strlen(source);
	render_group(&r, &row, PMAPS_GROUP_TOTAL);
	render_end(&r, NULL);
done:
	pmaps_group_close(g);
	pmaps_maps_close(c);
	return rc;
}

int maps_report(const struct maps_opts *o)
{
	static struct out out;
	struct pmaps_proc *proc = NULL;
	struct pmaps_maps *c = NULL;
	struct pmaps_group *g = NULL;
	const struct pmaps_group_row **sorted = NULL;
	const struct pmaps_mapping *m;
	struct stash st = {0};
	struct render r;
	uint64_t rows = 0;
	int rc, err, begun = 0;

	out_init(&out, STDOUT_FILENO);
	rc = tool_proc_open(&proc, o->proc_root, o->pid);
	if (rc != 0)
		return rc;
	if (o->group == PMAPS_GROUP_TOTAL) {
		rc = report_total(o, proc, &out);
		goto done;
	}
	err = pmaps_maps_open(&c, proc, PMAPS_SRC_SMAPS, 0);
	if (err == -ENODATA) {
		rc = no_memory(o, proc, &out, "smaps", o->group >= 0);
		goto done;
	}
	if (err < 0) {
		rc = fail_read(o, NULL, &out, c, err);
		goto done;
	}
	if (o->group >= 0 && pmaps_group_open(&g, (enum pmaps_group_by)o->group) < 0) {
		die_msg("out of memory");
		rc = EXIT_FAIL;
		goto done;
	}
	if (!g && o->sort_col < 0) {
		render_begin(&r, &out, o, pmaps_proc_pid(proc), "smaps", 0);
		begun = 1;
	}
	while ((err = pmaps_maps_next(c, &m)) > 0) {
		rows++;
		if (g)
			err = pmaps_group_add(g, m);
		else if (o->sort_col >= 0)
			err = stash_add(&st, m);
		else
			render_mapping(&r, m);
		if (err < 0)
			break;
	}
	if (err == -ENODATA && rows == 0 && !begun) {
		rc = no_memory(o, proc, &out, "smaps", g != NULL);
		goto done;
	}
	if (!begun)
		render_begin(&r, &out, o, pmaps_proc_pid(proc), "smaps", g != NULL);
	if (err < 0) {
		rc = fail_read(o, &r, &out, c, err);
		goto done;
	}
	if (pmaps_maps_lines(c) == 0 && pmaps_proc_is_kernel_thread(proc) == 1)
		kernel_thread_note(pmaps_proc_pid(proc));
	if (g) {
		size_t n = pmaps_group_count(g);
		sorted = calloc(n ? n : 1, sizeof(*sorted));
		if (!sorted) {
			rc = fail_read(o, &r, &out, NULL, -ENOMEM);
			goto done;
		}
		for (size_t i = 0; i < n; i++)
			sorted[i] = pmaps_group_get(g, i);
		if (o->sort_col >= 0) {
			sort_col = o->sort_col;
			qsort(sorted, n, sizeof(*sorted), cmp_group);
		}
		for (size_t i = 0; i < n; i++)
			render_group(&r, sorted[i], (enum pmaps_group_by)o->group);
	} else if (o->sort_col >= 0) {
		for (size_t i = 0; i < st.n; i++)
			stash_fix(&st, &st.rows[i]);
		sort_col = o->sort_col;
		if (st.n) /* qsort's pointer must not be NULL, even for no rows */
			qsort(st.rows, st.n, sizeof(*st.rows), cmp_srow);
		for (size_t i = 0; i < st.n; i++)
			render_mapping(&r, &st.rows[i].m);
	}
	render_end(&r, NULL);
done:
	rc = finish_output(&out, rc);
	free(sorted);
	free(st.rows);
	free(st.arena);
	pmaps_group_close(g);
	pmaps_maps_close(c);
	pmaps_proc_close(proc);
	return rc;
}

int cmd_maps(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"group", required_argument, NULL, 'g'},
		{"total", no_argument, NULL, 't'},
		{"fields", required_argument, NULL, 'f'},
		{"sort", required_argument, NULL, 's'},
		{"json", no_argument, NULL, 'j'},
		{"csv", no_argument, NULL, 'C'},
		{"bytes", no_argument, NULL, 'b'},
		{"proc-root", required_argument, NULL, 'R'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct maps_opts o = {.group = -1, .sort_col = -1, .human = 1, .fmt = FMT_TABLE};
	const char *fields = NULL, *sort = NULL;
	int ch, total = 0;

	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "g:tf:s:jbh", longopts, NULL)) != -1) {
		switch (ch) {
		case 'g':
			if (strcmp(optarg, "path") == 0)
				o.group = PMAPS_GROUP_PATH;
			else if (strcmp(optarg, "kind") == 0)
				o.group = PMAPS_GROUP_KIND;
			else {
				die_msg("--group takes 'path' or 'kind', not '%s'", optarg);
				return EXIT_USAGE;
			}
			break;
		case 't': total = 1; break;
		case 'f': fields = optarg; break;
		case 's': sort = optarg; break;
		case 'j': o.fmt = FMT_JSON; break;
		case 'C': o.fmt = FMT_CSV; break;
		case 'b': o.human = 0; break;
		case 'R': o.proc_root = optarg; break;
		case 'h': return print_usage(maps_usage);
		default: return option_error("maps", argv, "g:tf:s:jbh", longopts);
		}
	}
	if (total && o.group >= 0) {
		die_msg("--total and --group do not go together");
		return EXIT_USAGE;
	}
	if (total)
		o.group = PMAPS_GROUP_TOTAL;
	if (optind + 1 != argc) {
		die_msg(optind == argc ? "which process? (pmaps maps PID; see --help)"
		                       : "one PID only (see pmaps maps --help)");
		return EXIT_USAGE;
	}
	o.pid = argv[optind];
	if (fields) {
		o.ncols = parse_columns(fields, o.cols, COL_COUNT, o.group >= 0);
		if (o.ncols < 0)
			return EXIT_USAGE;
	} else {
		maps_default_columns(&o);
	}
	if (sort) {
		int col = col_lookup(sort, strlen(sort));
		if (strcmp(sort, "all") == 0 || strchr(sort, ',')) {
			die_msg("--sort takes one field, not '%s'", sort);
			return EXIT_USAGE;
		}
		if (col < 0) {
			die_msg("--sort: unknown field '%s' (see pmaps maps --help)", sort);
			return EXIT_USAGE;
		}
		if (o.group >= 0 && col >= PMAPS_F_COUNT && col != COL_SHARED &&
		    col != COL_VSIZE && col != COL_MAPPINGS && col != COL_PATH &&
		    col != COL_KIND) {
			die_msg("--sort %s is per mapping and cannot sort groups", sort);
			return EXIT_USAGE;
		}
		if (o.group == PMAPS_GROUP_TOTAL) {
			die_msg("--sort has nothing to sort with --total");
			return EXIT_USAGE;
		}
		o.sort_col = col;
	}
	return maps_report(&o);
}
