/* SPDX-License-Identifier: MIT */
/*
 * test_writers.c - the tool's writers as any front end would use them: a
 * library cursor or session, a bounded memory sink, and the same writer
 * calls the tool makes. A new command (top, watch, serve, a binding) costs
 * no formatting code: what it writes is, line for line, what pmaps writes
 * (the cli goldens), and a sink too small says so and never overruns.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "write/writer.h"
#include "../expect.h"

#define ROOT(c) PMAPS_TEST_DATA "/" c "/proc"

/* ---- a strict JSON checker: one value, nothing after it ---- */

static const char *j_value(const char *p, const char *e);

static const char *j_ws(const char *p, const char *e)
{
	while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

static const char *j_string(const char *p, const char *e)
{
	if (p >= e || *p++ != '"')
		return NULL;
	while (p < e && *p != '"') {
		if ((unsigned char)*p < 0x20)
			return NULL;
		if (*p == '\\') {
			if (++p >= e)
				return NULL;
			if (*p == 'u') {
				for (int i = 1; i <= 4; i++)
					if (p + i >= e || !strchr("0123456789abcdefABCDEF", p[i]))
						return NULL;
				p += 4;
			} else if (!strchr("\"\\/bfnrt", *p)) {
				return NULL;
			}
		}
		p++;
	}
	return p < e ? p + 1 : NULL;
}

static const char *j_list(const char *p, const char *e, char close, int object)
{
	p = j_ws(p + 1, e);
	if (p < e && *p == close)
		return p + 1;
	for (;;) {
		if (object) {
			p = j_string(j_ws(p, e), e);
			if (!p || (p = j_ws(p, e)) >= e || *p++ != ':')
				return NULL;
		}
		p = j_value(p, e);
		if (!p || (p = j_ws(p, e)) >= e)
			return NULL;
		if (*p == close)
			return p + 1;
		if (*p++ != ',')
			return NULL;
	}
}

static const char *j_value(const char *p, const char *e)
{
	p = j_ws(p, e);
	if (p >= e)
		return NULL;
	if (*p == '{')
		return j_list(p, e, '}', 1);
	if (*p == '[')
		return j_list(p, e, ']', 0);
	if (*p == '"')
		return j_string(p, e);
	if (*p == '-' || (*p >= '0' && *p <= '9')) {
		while (p < e && strchr("-+.eE0123456789", *p))
			p++;
		return p;
	}
	for (const char *const *w = (const char *const[]){"true", "false", "null", NULL}; *w; w++)
		if ((size_t)(e - p) >= strlen(*w) && memcmp(p, *w, strlen(*w)) == 0)
			return p + strlen(*w);
	return NULL;
}

/* Whether [S, S+N) is exactly one JSON object. */
static int one_object(const char *s, size_t n)
{
	const char *e = s + n, *p = j_ws(s, e);

	return p < e && *p == '{' && (p = j_value(p, e)) != NULL && j_ws(p, e) == e;
}

/* ---- helpers ---- */

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *b;

	*len = 0;
	if (!f) {
		fail_msg("%s: %s", path, strerror(errno));
		return NULL;
	}
	b = malloc(1 << 20);
	assert_non_null(b);
	*len = fread(b, 1, 1 << 20, f);
	fclose(f);
	return b;
}

/* The memory sink's lines equal the golden's, one by one; returns how many. */
static size_t lines_equal(const char *got, size_t got_len, const char *golden)
{
	size_t want_len, n = 0;
	char *want = slurp(golden, &want_len);
	const char *g = got, *w = want;

	while (g < got + got_len || w < want + want_len) {
		const char *ge = memchr(g, '\n', (size_t)(got + got_len - g));
		const char *we = memchr(w, '\n', (size_t)(want + want_len - w));
		if (!ge || !we)
			fail_msg("line %zu: the writer wrote %s, the tool %s", n + 1,
			         ge ? "a line" : "no whole line", we ? "a line" : "no whole line");
		if (ge - g != we - w || memcmp(g, w, (size_t)(ge - g)) != 0)
			fail_msg("line %zu differs:\n writer: %.*s\n pmaps:  %.*s", n + 1, (int)(ge - g), g,
			         (int)(we - w), w);
		if (!one_object(g, (size_t)(ge - g)))
			fail_msg("line %zu is not one JSON object: %.*s", n + 1, (int)(ge - g), g);
		g = ge + 1;
		w = we + 1;
		n++;
	}
	free(want);
	return n;
}

/* Writes every mapping of ROOT's PID through the writer into O; returns the row count. */
static uint64_t write_maps(struct out *o, enum fmt fmt, const char *root, const char *pid,
                           const int *cols, int ncols)
{
	struct pmaps_proc *proc;
	struct pmaps_maps *c;
	const struct pmaps_mapping *m;
	struct writer w;
	struct doc d = {.kind = DOC_MAPPINGS, .source = "smaps", .cols = cols, .ncols = ncols,
	                .human = 1};
	int err;

	assert_int_equal(pmaps_proc_open(&proc, root, pid), 0);
	assert_int_equal(pmaps_maps_open(&c, proc, PMAPS_SRC_SMAPS, 0), 0);
	d.pid = pmaps_proc_pid(proc);
	w_begin(&w, o, fmt, &d);
	while ((err = pmaps_maps_next(c, &m)) > 0)
		w_mapping(&w, m);
	assert_int_equal(err, 0);
	w_end(&w, NULL);
	pmaps_maps_close(c);
	pmaps_proc_close(proc);
	return w.rows;
}

/* ---- the tests ---- */

static void test_maps_jsonl_in_memory(void **state)
{
	static const char first[] = "{\"pid\":4242,\"start\":\"0x55bc8450f000\",\"end\":"
	                            "\"0x55bc84511000\",\"perms\":\"r--p\",\"offset\":0,\"dev\":"
	                            "\"fe:00\",\"inode\":248056,\"kind\":\"file-ro\",\"path\":"
	                            "\"/usr/bin/sleep\",\"size\":8192,";
	static char buf[1 << 20];
	struct out o;
	(void)state;

	out_memory(&o, buf, sizeof(buf));
	assert_int_equal(write_maps(&o, FMT_JSONL, ROOT("kernel-6.1"), "4242", NULL, 0), 37);
	assert_int_equal(o.err, 0);
	assert_int_equal(out_dropped(&o), 0);
	assert_int_equal(lines_equal(buf, out_kept(&o), PMAPS_CLI_EXPECTED "/k61-jsonl.out"), 37);
	/* Exact values of the fixture's first mapping, /usr/bin/sleep's read-only segment. */
	assert_memory_equal(buf, first, sizeof(first) - 1);
}

static void test_maps_table_in_memory(void **state)
{
	static const int cols[] = {COL_ADDRESS, COL_PERMS, COL_KIND, PMAPS_F_RSS, PMAPS_F_PSS,
	                           PMAPS_F_PRIVATE_DIRTY, PMAPS_F_PRIVATE_CLEAN, COL_SHARED,
	                           PMAPS_F_SWAP, PMAPS_F_LAZY_FREE, COL_PATH};
	static char buf[1 << 20];
	size_t want_len;
	char *want = slurp(PMAPS_CLI_EXPECTED "/capture-table-wide.out", &want_len);
	struct out o;
	(void)state;

	/* The table writer too: the same bytes as pmaps maps --wide (the default columns whole). */
	out_memory(&o, buf, sizeof(buf));
	write_maps(&o, FMT_TABLE, ROOT("capture-6.18"), "4242", cols, sizeof(cols) / sizeof(cols[0]));
	assert_int_equal(out_kept(&o), want_len);
	assert_memory_equal(buf, want, want_len);
	free(want);
}

static void test_explain_jsonl_in_memory(void **state)
{
	static char buf[1 << 16];
	struct pmaps_explain_session *s;
	const struct pmaps_explain *x;
	struct pmaps_proc *proc;
	struct writer w;
	struct pmaps_explain_choice c = {.size = sizeof(c)};
	struct doc d = {.kind = DOC_EXPLAIN, .choice = &c};
	struct out o;
	(void)state;

	assert_int_equal(pmaps_proc_open(&proc, ROOT("kernel-6.1"), "4242"), 0);
	/* The source chosen as pmaps explain chooses it: the fixture has no status. */
	assert_int_equal(pmaps_explain_choose(proc, PMAPS_SRC_AUTO, PMAPS_EXPLAIN_HOLD_NS, &c, NULL, 0), 0);
	assert_int_equal(c.reason, PMAPS_CHOICE_NO_STATUS);
	assert_int_equal(pmaps_explain_open(&s, proc, c.options), 0);
	assert_int_equal(pmaps_explain_run(s, &x), 0);
	d.pid = pmaps_proc_pid(proc);
	out_memory(&o, buf, sizeof(buf));
	w_begin(&w, &o, FMT_JSONL, &d);
	w_explain(&w, x);
	w_end(&w, NULL);
	assert_int_equal(o.err, 0);
	assert_int_equal(lines_equal(buf, out_kept(&o), PMAPS_CLI_EXPECTED "/explain-k61-jsonl.out"), 1);
	/* The result's own figures, written as they are. */
	assert_non_null(strstr(buf, "\"rss\":1884160,\"effective_rss\":1884160,\"pss\":546816,"
	                            "\"uss\":229376,"));
	pmaps_explain_close(s);
	pmaps_proc_close(proc);
}

static void test_small_sink(void **state)
{
	static char full[1 << 20];
	struct out o;
	size_t full_len;
	(void)state;

	out_memory(&o, full, sizeof(full));
	write_maps(&o, FMT_JSONL, ROOT("kernel-6.1"), "4242", NULL, 0);
	full_len = out_kept(&o);
	assert_int_equal(o.err, 0);
	for (size_t cap = 1; cap < 4000; cap += 97) {
		char *buf = malloc(cap + 64);
		size_t kept;
		assert_non_null(buf);
		memset(buf, 0x5a, cap + 64);
		out_memory(&o, buf, cap);
		write_maps(&o, FMT_JSONL, ROOT("kernel-6.1"), "4242", NULL, 0);
		kept = out_kept(&o);
		/* Full: ENOBUFS, only whole lines kept, the rest counted, nothing past CAP. */
		assert_int_equal(o.err, ENOBUFS);
		expect_le(kept, cap);
		if (kept)
			assert_int_equal(buf[kept - 1], '\n');
		assert_memory_equal(buf, full, kept);
		assert_int_equal(out_dropped(&o), full_len - kept);
		for (size_t i = cap; i < cap + 64; i++)
			if ((unsigned char)buf[i] != 0x5a)
				fail_msg("capacity %zu: byte %zu written", cap, i);
		free(buf);
	}
}

/* The column table's keys of library values are the library's keys. */
static void test_keys_are_the_library_keys(void **state)
{
	(void)state;
	for (int c = 0; c < COL_COUNT; c++) {
		const struct column *k = &columns[c];
		const char *lib = NULL;
		if (k->lib < 0)
			continue;
		if (k->records & (REC_MAPPING | REC_GROUP))
			lib = pmaps_value_key(k->lib);
		else if (k->records & REC_SUMMARY)
			lib = pmaps_page_count_key((enum pmaps_page_count)k->lib);
		else if (k->records & REC_XPAGE)
			lib = pmaps_xpage_key((enum pmaps_xpage)k->lib);
		else if (k->records & REC_XCAT)
			lib = pmaps_xcol_key((enum pmaps_xcol)k->lib);
		else if (k->records & (REC_PROC | REC_PGROUP))
			lib = pmaps_survey_value_key((enum pmaps_survey_value)k->lib);
		else
			continue;
		if (!lib || strcmp(lib, k->key.s) != 0)
			fail_msg("column %d: key '%s', the library's '%s'", c, k->key.s, lib ? lib : "(none)");
		assert_int_equal(k->key.n, strlen(k->key.s));
		assert_int_equal(k->jkey_n, k->key.n + 4);
		assert_int_equal(strlen(k->jkey), k->jkey_n);
		expect_ge(k->width, k->title.n);
	}
	/* pmaps top shows every figure of a survey row, each in its column. */
	for (int v = 0; v < PMAPS_SV_COUNT; v++)
		assert_int_equal(columns[COL_SV0 + v].lib, v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_maps_jsonl_in_memory),
		cmocka_unit_test(test_maps_table_in_memory),
		cmocka_unit_test(test_explain_jsonl_in_memory),
		cmocka_unit_test(test_small_sink),
		cmocka_unit_test(test_keys_are_the_library_keys),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
