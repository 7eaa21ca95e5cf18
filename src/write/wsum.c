/* SPDX-License-Identifier: MIT */
/*
 * wsum.c - a working set over many readings: what the summaries of pmaps
 * wss and watch --wss keep of each reading, and how they word it
 * (wsum.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "write/wsum.h"

int wsum_init(struct wsum *s)
{
	memset(s, 0, sizeof(*s));
	s->ring = calloc(WSUM_RING, sizeof(*s->ring));
	s->scratch = calloc(WSUM_RING, sizeof(*s->scratch));
	if (!s->ring || !s->scratch) {
		wsum_free(s);
		return -ENOMEM;
	}
	return 0;
}

void wsum_clear(struct wsum *s)
{
	s->n = 0;
	memset(&s->cur, 0, sizeof(s->cur));
	memset(s->peak_ref, 0, sizeof(s->peak_ref));
	memset(s->peak_rss, 0, sizeof(s->peak_rss));
	memset(s->seen, 0, sizeof(s->seen));
}

void wsum_free(struct wsum *s)
{
	free(s->ring);
	free(s->scratch);
	s->ring = NULL;
	s->scratch = NULL;
}

void wsum_keep(struct wsum *s, const struct pmaps_explain *x)
{
	struct wsum_tally *t = &s->cur;

	memset(t, 0, sizeof(*t));
	for (int k = 0; k < PMAPS_X_COUNT; k++) {
		t->rss[k] = x->v[k][PMAPS_XC_RSS];
		t->ref[k] = x->referenced[k];
		t->maps[k] = x->mappings[k];
	}
	t->rss[PMAPS_X_COUNT] = x->total[PMAPS_XC_RSS];
	t->ref[PMAPS_X_COUNT] = x->referenced_total;
	t->maps[PMAPS_X_COUNT] = x->nmappings;
	for (int k = 0; k < WSUM_NCAT; k++) {
		s->ring[s->n % WSUM_RING][k] = t->ref[k];
		if (!t->maps[k])
			continue;
		if (!s->seen[k]++ || t->ref[k] > s->peak_ref[k]) {
			s->peak_ref[k] = t->ref[k];
			s->peak_rss[k] = t->rss[k];
		}
	}
	s->n++;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void wsum_of(const struct wsum *s, int k, int cumulative, struct wsum_fig *f)
{
	size_t n = s->n < WSUM_RING ? s->n : WSUM_RING;

	memset(f, 0, sizeof(*f));
	for (size_t i = 0; i < n; i++)
		s->scratch[i] = s->ring[i][k];
	qsort(s->scratch, n, sizeof(s->scratch[0]), cmp_u64);
	/* The lower median: a figure some reading had. */
	f->median = n ? s->scratch[(n - 1) / 2] : 0;
	f->peak = s->peak_ref[k];
	/* Referenced within Rss: the library refuses a mapping whose is not (no wrap). */
	if (cumulative) {
		f->rss = s->cur.rss[k];
		f->idle = s->cur.rss[k] - s->cur.ref[k];
	} else {
		f->rss = s->peak_rss[k];
		f->idle = s->peak_rss[k] - s->peak_ref[k];
	}
}

const char *wsum_name(int k)
{
	return k < PMAPS_X_COUNT ? pmaps_xcat_name((enum pmaps_xcat)k) : "total";
}

static void put_size(struct out *o, uint64_t v, int bytes, size_t width)
{
	char d[32];
	size_t n = bytes ? fmt_u64(d, v) : fmt_human(d, v);

	out_rjust(o, d, n, width);
}

void wsum_table(struct out *o, const struct wsum *s, int cumulative, int bytes,
                const char *indent)
{
	size_t wide = bytes ? 4 : 0;
	struct wsum_fig f;

	out_str(o, indent);
	out_str(o, "category         ");
	out_rjust(o, cumulative ? "resident" : "resident@pk", cumulative ? 8 : 11, 11 + wide);
	out_rjust(o, "median", 6, 10 + wide);
	out_rjust(o, "peak", 4, 10 + wide);
	out_rjust(o, cumulative ? "never touched" : "idle at peak", cumulative ? 13 : 12,
	          15 + wide);
	out_ch(o, '\n');
	for (int k = 0; k < WSUM_NCAT; k++) {
		const char *name = wsum_name(k);
		if (!s->seen[k])
			continue;
		wsum_of(s, k, cumulative, &f);
		out_str(o, indent);
		out_ljust(o, name, strlen(name), 17);
		put_size(o, f.rss, bytes, 11 + wide);
		put_size(o, f.median, bytes, 10 + wide);
		put_size(o, f.peak, bytes, 10 + wide);
		put_size(o, f.idle, bytes, 15 + wide);
		out_ch(o, '\n');
	}
}

static void json_u64(struct out *o, const char *key, uint64_t v)
{
	out_printf(o, ",\"%s\":", key);
	out_u64(o, v);
}

void wsum_json(struct out *o, const struct wsum *s, int cumulative)
{
	const char *idle = cumulative ? "never_touched" : "idle_at_peak";
	struct wsum_fig f;

	out_str(o, "\"categories\":[");
	for (int k = 0, first = 1; s->n && k < WSUM_NCAT; k++) {
		if (!s->seen[k])
			continue;
		wsum_of(s, k, cumulative, &f);
		if (!first)
			out_ch(o, ',');
		first = 0;
		out_printf(o, "{\"category\":\"%s\"", wsum_name(k));
		json_u64(o, cumulative ? "resident" : "resident_at_peak", f.rss);
		json_u64(o, "touched_median", f.median);
		json_u64(o, "touched_peak", f.peak);
		json_u64(o, idle, f.idle);
		out_ch(o, '}');
	}
	out_ch(o, ']');
}
