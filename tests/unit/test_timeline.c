/* SPDX-License-Identifier: MIT */
/*
 * test_timeline.c - the SVG timeline of pmaps watch and run (src/timeline.c):
 * the points kept when more samples come than TIMELINE_POINTS (each the
 * highest RSS of its group, the peak exact), the file checked at once but
 * put in place only by the write (an old one whole until then, and after a
 * failed write), its errors, the picture well-formed XML (xmllint) with hostile title
 * bytes, LazyFree's gaps, --wss's touched steps, fewer than two samples.
 *
 * `test_timeline fixture OUT.svg` writes the picture timeline_render.py
 * renders in chromium, and prints where its colours must be: "size W H",
 * then "probe X Y #RRGGBB what" and "absent X Y #RRGGBB what" lines.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "../expect.h"
#include "common/out.h"
#include "write/svg.h"
#include "watch/watch.h"

#define MIB (1024ull * 1024)
#define HEAP_COLOUR "#3b6fd4" /* timeline.c's colours, as a reader of the picture sees them */
#define ANON_COLOUR "#7fa7ee"
#define KIDS_COLOUR "#c9a0dc"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_timeline.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void path_in(char *dst, size_t size, const char *name)
{
	snprintf(dst, size, "%s/%s", dir, name);
}

/* The file's text (NUL-terminated; the caller frees it). */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* xmllint --noout PATH: its output printed when it fails. Skipped (77) where it is missing. */
static void expect_xml(const char *path)
{
	char cmd[512];
	int st;

	snprintf(cmd, sizeof(cmd), "xmllint --noout '%s' 2>&1", path);
	st = system(cmd);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 127) {
		const char *ci = getenv("CI");
		if (ci && *ci && strcmp(ci, "false") != 0)
			fail_msg("xmllint not found (Debian's libxml2-utils): CI runs this check");
		skip();
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fail_msg("xmllint --noout %s: status %#x (its complaint above)", path, (unsigned)st);
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
		n++;
	return n;
}

/* Sample I of a synthetic run: RSS in a pseudo-random walk, one peak at PEAK_AT. */
static void synth(struct watch_sample *s, uint64_t i, uint64_t peak_at)
{
	uint64_t h = (i + 1) * 0x9e3779b97f4a7c15ull;

	memset(s, 0, sizeof(*s));
	h ^= h >> 29;
	s->t_ns = i * 10000000ull;
	s->cat[PMAPS_X_HEAP] = (100 + h % 900) * 4096;
	s->cat[PMAPS_X_FILE_TEXT] = (h >> 20) % 64 * 4096;
	if (i == peak_at)
		s->cat[PMAPS_X_HEAP] = 5000 * 4096;
	s->rss = s->cat[PMAPS_X_HEAP] + s->cat[PMAPS_X_FILE_TEXT];
	s->lazyfree = i;
	s->lazyfree_known = 1;
}

static int same(const struct watch_sample *a, const struct watch_sample *b)
{
	return memcmp(a, b, sizeof(*a)) == 0;
}

/*
 * 5000 samples: 2048 kept at one each, halved at sample 2049 (stride 2),
 * again at 4097 (stride 4: 1024 points for the first 4096 samples), then
 * 904 more at 4 a point: 1024 + 226 = 1250 points. Each is the sample of
 * highest RSS (the earliest on a tie) of its four.
 */
static void test_halving(void **state)
{
	enum { N = 5000, PEAK = 3333 };
	struct timeline *tl = NULL;
	const struct watch_sample *pts;
	struct watch_sample s, best;
	char path[128], msg[256];
	size_t n, peak_found = 0;

	(void)state;
	path_in(path, sizeof(path), "halving.svg");
	assert_int_equal(timeline_open(&tl, path, msg, sizeof(msg)), 0);
	for (uint64_t i = 0; i < N; i++) {
		synth(&s, i, PEAK);
		timeline_add(tl, &s);
		if (i == TIMELINE_POINTS - 1)
			assert_int_equal(timeline_points(tl, &pts), TIMELINE_POINTS);
		if (i == TIMELINE_POINTS)
			assert_int_equal(timeline_points(tl, &pts), TIMELINE_POINTS / 2 + 1);
	}
	n = timeline_points(tl, &pts);
	assert_int_equal(n, 1250);
	for (size_t k = 0; k < n; k++) {
		uint64_t first = 4 * k, last = first + 4 < N ? first + 4 : N;
		synth(&best, first, PEAK);
		for (uint64_t i = first + 1; i < last; i++) {
			synth(&s, i, PEAK);
			if (s.rss > best.rss)
				best = s;
		}
		if (!same(&pts[k], &best))
			fail_msg("point %zu: t %llu ns rss %llu, want the highest of samples %llu-%llu: "
			         "t %llu ns rss %llu", k, (unsigned long long)pts[k].t_ns,
			         (unsigned long long)pts[k].rss, (unsigned long long)first,
			         (unsigned long long)last - 1, (unsigned long long)best.t_ns,
			         (unsigned long long)best.rss);
		synth(&s, PEAK, PEAK);
		peak_found += same(&pts[k], &s);
	}
	assert_int_equal(peak_found, 1);
	assert_int_equal(timeline_write(tl, "halving", 7, msg, sizeof(msg)), 0);
	timeline_close(tl);
	expect_xml(path);
	{
		char *svg = slurp(path);
		/* The peak's label: 5000 + its file pages, at 33.330 s. */
		char want[64];
		char human[32];
		synth(&s, PEAK, PEAK);
		fmt_human(human, s.rss);
		snprintf(want, sizeof(want), ">peak %s at 33.330 s<", human);
		expect_contains(svg, want);
		expect_contains(svg, ">heap<");
		expect_contains(svg, ">file-text<");
		/* Only the categories ever non-zero are in the legend. */
		assert_null(strstr(svg, ">anon<"));
		assert_null(strstr(svg, ">shmem<"));
		expect_contains(svg, "time (s)");
		free(svg);
	}
}

/* Files in the test's directory (without . and ..). */
static int entries(void)
{
	char cmd[128], line[32] = "";
	FILE *p;

	snprintf(cmd, sizeof(cmd), "ls -A '%s' | wc -l", dir);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_non_null(fgets(line, sizeof(line), p));
	pclose(p);
	return atoi(line);
}

static void put_old(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	expect_sys(fd);
	assert_int_equal(write(fd, "old contents", 12), 12);
	close(fd);
}

/*
 * The file appears only at timeline_write(): an old one stays as it was
 * while the timeline is open, and after a close without a write; the
 * write replaces it whole.
 */
static void test_open_creates(void **state)
{
	struct timeline *tl = NULL;
	struct watch_sample s;
	struct stat sb;
	char path[128], fresh[128], msg[256];
	char *text;
	int n0;

	(void)state;
	n0 = entries(); /* the other tests' pictures */
	path_in(path, sizeof(path), "old.svg");
	put_old(path);
	assert_int_equal(timeline_open(&tl, path, msg, sizeof(msg)), 0);
	text = slurp(path);
	assert_string_equal(text, "old contents");
	free(text);
	timeline_close(tl); /* closed unwritten: the old file stays, no new one, nothing leaks */
	text = slurp(path);
	assert_string_equal(text, "old contents");
	free(text);
	assert_int_equal(entries(), n0 + 1);

	path_in(fresh, sizeof(fresh), "fresh.svg");
	assert_int_equal(timeline_open(&tl, fresh, msg, sizeof(msg)), 0);
	assert_int_equal(stat(fresh, &sb), -1);
	timeline_close(tl);
	assert_int_equal(stat(fresh, &sb), -1);
	assert_int_equal(entries(), n0 + 1);

	assert_int_equal(timeline_open(&tl, path, msg, sizeof(msg)), 0);
	for (uint64_t i = 0; i < 10; i++) {
		synth(&s, i, 5);
		timeline_add(tl, &s);
	}
	text = slurp(path);
	assert_string_equal(text, "old contents");
	free(text);
	assert_int_equal(timeline_write(tl, "t", 1, msg, sizeof(msg)), 0);
	timeline_close(tl);
	text = slurp(path);
	expect_contains(text, "<svg");
	expect_contains(text, "</svg>");
	free(text);
	assert_int_equal(entries(), n0 + 1);
	assert_int_equal(unlink(path), 0);
}

/*
 * A write that fails (a file size limit: EFBIG) leaves the old file whole
 * and no new file behind. In a child: the limit is the child's.
 */
static void test_write_fails_keeps_old(void **state)
{
	char path[128];
	pid_t pid;
	int st, n0;
	char *text;

	(void)state;
	n0 = entries();
	path_in(path, sizeof(path), "keep.svg");
	put_old(path);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit rl = {1024, 1024};
		struct timeline *tl = NULL;
		struct watch_sample s;
		char msg[256];
		int err;
		signal(SIGXFSZ, SIG_IGN);
		if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
			_exit(3);
		if (timeline_open(&tl, path, msg, sizeof(msg)) != 0)
			_exit(4);
		for (uint64_t i = 0; i < 100; i++) {
			synth(&s, i, 50);
			timeline_add(tl, &s);
		}
		err = timeline_write(tl, "big", 3, msg, sizeof(msg));
		timeline_close(tl);
		if (err != -EFBIG || !strstr(msg, strerror(EFBIG))) {
			fprintf(stderr, "timeline_write: %d, want %d (-EFBIG); message \"%s\"\n", err,
			        -EFBIG, msg);
			_exit(1);
		}
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	expect_exited(st, 0);
	text = slurp(path);
	assert_string_equal(text, "old contents");
	free(text);
	assert_int_equal(entries(), n0 + 1);
	assert_int_equal(unlink(path), 0);
}

static void test_open_fails(void **state)
{
	struct timeline *tl = (struct timeline *)&tl;
	char path[192], msg[256];
	int err;

	(void)state;
	path_in(path, sizeof(path), "no/such/dir/x.svg");
	err = timeline_open(&tl, path, msg, sizeof(msg));
	assert_int_equal(err, -ENOENT);
	assert_null(tl);
	expect_contains(msg, "cannot create a file in its directory: ");
	expect_contains(msg, strerror(ENOENT));
	/* A directory. */
	err = timeline_open(&tl, dir, msg, sizeof(msg));
	assert_int_equal(err, -EISDIR);
	expect_contains(msg, strerror(EISDIR));
	/* A directory the writer may not write in: as root, tried by a child that is nobody. */
	{
		char ro[128];
		pid_t pid;
		int st;
		path_in(ro, sizeof(ro), "ro");
		assert_int_equal(mkdir(ro, 0555), 0);
		assert_int_equal(chmod(dir, 0755), 0); /* mkdtemp's 0700 would hide RO from nobody */
		snprintf(path, sizeof(path), "%s/x.svg", ro);
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			if (geteuid() == 0 && setresuid(65534, 65534, 65534) != 0)
				_exit(3);
			err = timeline_open(&tl, path, msg, sizeof(msg));
			if (err != -EACCES || tl || !strstr(msg, strerror(EACCES))) {
				fprintf(stderr, "timeline_open(%s): %d, want %d (-EACCES); message \"%s\"\n",
				        path, err, -EACCES, msg);
				_exit(1);
			}
			_exit(0);
		}
		assert_int_equal(waitpid(pid, &st, 0), pid);
		expect_exited(st, 0);
		assert_int_equal(rmdir(ro), 0); /* nothing was left in it */
	}
}

/* A write that fails is an error with the path, never a silently cut file. */
static void test_write_fails(void **state)
{
	struct timeline *tl = NULL;
	struct watch_sample s;
	char msg[256];

	(void)state;
	if (access("/dev/full", W_OK) != 0)
		skip();
	assert_int_equal(timeline_open(&tl, "/dev/full", msg, sizeof(msg)), 0);
	for (uint64_t i = 0; i < 100; i++) {
		synth(&s, i, 50);
		timeline_add(tl, &s);
	}
	assert_int_equal(timeline_write(tl, "full", 4, msg, sizeof(msg)), -ENOSPC);
	expect_contains(msg, "writing the file: ");
	expect_contains(msg, strerror(ENOSPC));
	/* Written (or failed) once: a second write is refused, not a second file. */
	assert_int_equal(timeline_write(tl, "full", 4, msg, sizeof(msg)), -EBADF);
	timeline_close(tl);
}

/* A title of a target's bytes: controls, markup, quotes, broken UTF-8, a bidi override. */
static void test_hostile_title(void **state)
{
	static const char title[] = "pid 7 \x1b[31m<script>alert(1)</script> & \"q\" 'a' \xff\xfe "
	                            "\xe2\x80\xae evil \xc3\x28 ]]> \x00tail";
	struct timeline *tl = NULL;
	struct watch_sample s;
	char path[128], msg[256];
	char *svg;

	(void)state;
	path_in(path, sizeof(path), "hostile.svg");
	assert_int_equal(timeline_open(&tl, path, msg, sizeof(msg)), 0);
	for (uint64_t i = 0; i < 10; i++) {
		synth(&s, i, 5);
		timeline_add(tl, &s);
	}
	assert_int_equal(timeline_write(tl, title, sizeof(title) - 1, msg, sizeof(msg)), 0);
	timeline_close(tl);
	expect_xml(path);
	svg = slurp(path);
	assert_null(strstr(svg, "<script"));
	assert_null(strchr(svg, '\x1b'));
	expect_contains(svg, "&lt;script&gt;");
	expect_contains(svg, "\\x1b[31m");
	expect_contains(svg, "\\xe2\\x80\\xae");
	expect_contains(svg, "\\x00tail");
	/* In <title> and in the visible heading. */
	assert_int_equal(count(svg, "&lt;script&gt;alert(1)&lt;/script&gt;"), 2);
	free(svg);
}

/*
 * The picture of 30 plain samples (no LazyFree known, no books, no working
 * set) at PATH, and its text (the caller frees it).
 */
static char *plain_picture(const char *path)
{
	struct timeline *tl = NULL;
	struct watch_sample s;
	char msg[256];

	assert_int_equal(timeline_open(&tl, path, msg, sizeof(msg)), 0);
	for (uint64_t i = 0; i < 30; i++) {
		synth(&s, i, 3);
		s.lazyfree_known = 0;
		timeline_add(tl, &s);
	}
	assert_int_equal(timeline_write(tl, "none", 4, msg, sizeof(msg)), 0);
	timeline_close(tl);
	return slurp(path);
}

/* LazyFree unknown in the middle: two pieces of line, never a drop to 0. */
static void test_lazyfree_gap(void **state)
{
	struct timeline *tl = NULL;
	struct watch_sample s;
	char path[128], msg[256];
	char *svg, *p, *end;
	size_t moves = 0, lines = 0;

	(void)state;
	path_in(path, sizeof(path), "gap.svg");
	assert_int_equal(timeline_open(&tl, path, msg, sizeof(msg)), 0);
	for (uint64_t i = 0; i < 30; i++) {
		synth(&s, i, 3);
		s.lazyfree = 8 * MIB;
		s.lazyfree_known = i < 10 || i >= 20;
		timeline_add(tl, &s);
	}
	assert_int_equal(timeline_write(tl, "gap", 3, msg, sizeof(msg)), 0);
	timeline_close(tl);
	expect_xml(path);
	svg = slurp(path);
	p = strstr(svg, "stroke-dasharray=\"6 4\" d=\"");
	assert_non_null(p);
	end = strchr(p + 26, '"');
	assert_non_null(end);
	for (char *q = p + 26; q < end; q++) {
		moves += *q == 'M';
		lines += *q == 'L';
	}
	assert_int_equal(moves, 2);
	assert_int_equal(lines, 18); /* 10 + 10 points, each piece one move and 9 lines */
	expect_contains(svg, ">LazyFree (MADV_FREE)<");
	free(svg);
	/* Never known: no line and no legend entry. */
	svg = plain_picture(path);
	assert_null(strstr(svg, "stroke-dasharray=\"6 4\""));
	assert_null(strstr(svg, "LazyFree"));
	free(svg);
}

/*
 * A LazyFree known in one sample only, between unknown ones, is a mark (a
 * path of a lone move draws nothing); two known neighbours are a line, no mark.
 */
static void test_lazyfree_alone(void **state)
{
	struct timeline *tl = NULL;
	struct watch_sample s;
	char path[128], msg[256];
	char *svg;

	(void)state;
	path_in(path, sizeof(path), "alone.svg");
	assert_int_equal(timeline_open(&tl, path, msg, sizeof(msg)), 0);
	for (uint64_t i = 0; i < 30; i++) {
		synth(&s, i, 3);
		s.lazyfree = 8 * MIB;
		s.lazyfree_known = i == 15 || i == 20 || i == 21;
		timeline_add(tl, &s);
	}
	assert_int_equal(timeline_write(tl, "alone", 5, msg, sizeof(msg)), 0);
	timeline_close(tl);
	expect_xml(path);
	svg = slurp(path);
	if (count(svg, "r=\"2.5\" fill=\"#d4a017\"") != 1)
		fail_msg("want one LazyFree mark (sample 15), got %zu",
		         count(svg, "r=\"2.5\" fill=\"#d4a017\""));
	free(svg);
}

/* The moves and lines of the path that starts with HEAD in SVG (fails without one). */
static void path_counts(const char *svg, const char *head, size_t *moves, size_t *lines)
{
	const char *p = strstr(svg, head), *end;

	*moves = *lines = 0;
	if (!p)
		fail_msg("no path '%s'", head);
	p += strlen(head);
	end = strchr(p, '"');
	assert_non_null(end);
	for (; p < end; p++) {
		*moves += *p == 'M';
		*lines += *p == 'L';
	}
}

/*
 * The runtime's books: two lines (live, solid; held, dashed) where samples
 * had them, a gap where not, their legend entries in the runtime's words;
 * none of it without books. The held line's first point where the layout
 * puts 12 MiB.
 */
static void test_runtime_books(void **state)
{
	static const char live_head[] = "<path fill=\"none\" stroke=\"#c0392b\" stroke-width=\"2\" d=\"";
	static const char held_head[] =
		"<path fill=\"none\" stroke=\"#8e44ad\" stroke-width=\"2\" stroke-dasharray=\"3 3\" d=\"";
	struct timeline *tl = NULL;
	struct watch_sample s;
	char path[128], msg[256], want[160];
	char *svg;
	size_t moves, lines;
	double x, y;
	uint64_t t5 = 0;

	(void)state;
	path_in(path, sizeof(path), "books.svg");
	assert_int_equal(timeline_open(&tl, path, msg, sizeof(msg)), 0);
	for (uint64_t i = 0; i < 30; i++) {
		synth(&s, i, 3);
		if (i >= 5 && i < 25 && (i < 12 || i >= 15)) {
			s.rt_kind = WATCH_RT_GO;
			s.rt_live = 4 * MIB + i * 4096;
			s.rt_held = 12 * MIB;
		}
		if (i == 5)
			t5 = s.t_ns;
		timeline_add(tl, &s);
	}
	timeline_where(tl, t5, 12 * MIB, &x, &y);
	assert_int_equal(timeline_write(tl, "books", 5, msg, sizeof(msg)), 0);
	timeline_close(tl);
	expect_xml(path);
	svg = slurp(path);
	/* Samples 5-11 and 15-24: two pieces, 7 and 10 points. */
	path_counts(svg, held_head, &moves, &lines);
	assert_int_equal(moves, 2);
	assert_int_equal(lines, 6 + 9);
	path_counts(svg, live_head, &moves, &lines);
	assert_int_equal(moves, 2);
	assert_int_equal(lines, 6 + 9);
	{
		/* The held line starts at sample 5's time, at 12 MiB: as the layout puts them. */
		struct out o;
		out_memory(&o, want, sizeof(want) - 1);
		out_str(&o, held_head);
		svg_path_to(&o, 'M', x, y);
		want[out_kept(&o)] = '\0';
		expect_contains(svg, want);
	}
	expect_contains(svg, ">Go live objects (HeapAlloc)<");
	expect_contains(svg, ">Go heap held, not released<");
	free(svg);
	/* Without books: neither line nor legend. */
	svg = plain_picture(path);
	assert_null(strstr(svg, "#c0392b"));
	assert_null(strstr(svg, "#8e44ad"));
	assert_null(strstr(svg, "HeapAlloc"));
	free(svg);
}

/*
 * --wss: each reading's touched bytes a level from its reset to the end of
 * its read, readings that follow each other one step line; a breakdown
 * without a reading breaks it, and so does a gap where none was kept; a
 * status sample between two readings that follow each other does not. No
 * line and no legend entry without readings.
 */
static void test_touched(void **state)
{
	static const char head[] = "<path fill=\"none\" stroke=\"#d81b60\" stroke-width=\"2\" d=\"";
	struct timeline *tl = NULL;
	struct watch_sample s;
	char path[128], msg[256], want[200];
	char *svg;
	size_t moves, lines;
	double x0, x1, y;
	uint64_t t5 = 0;

	(void)state;
	path_in(path, sizeof(path), "touched.svg");
	assert_int_equal(timeline_open(&tl, path, msg, sizeof(msg)), 0);
	for (uint64_t i = 0; i < 30; i++) {
		synth(&s, i, 3);
		if (i == 20 || i == 27) {
			s.status_only = 1; /* no categories, no reading: skipped */
		} else if ((i >= 5 && i < 12) || i >= 15) {
			/* Each from the last sample's time to its own (21: from 19's, over 20) */
			s.touched_known = 1;
			s.touched = (1 + i % 4) * MIB;
			s.touched_end_ns = s.t_ns;
			s.touched_ns = i == 21 ? 20000000 : 10000000;
		}
		if (i == 5)
			t5 = s.t_ns;
		timeline_add(tl, &s);
	}
	timeline_where(tl, t5 - 10000000, 2 * MIB, &x0, &y);
	timeline_where(tl, t5, 2 * MIB, &x1, &y);
	assert_int_equal(timeline_write(tl, "touched", 7, msg, sizeof(msg)), 0);
	timeline_close(tl);
	expect_xml(path);
	svg = slurp(path);
	/*
	 * Readings 5-11 (7), 15-26 but 20 (11), 28-29 (2: 27's reading is not
	 * kept, a gap): three pieces of two points a reading.
	 */
	path_counts(svg, head, &moves, &lines);
	if (moves != 3 || lines != 2 * 7 - 1 + 2 * 11 - 1 + 2 * 2 - 1)
		fail_msg("touched line: %zu moves, %zu lines; want 3 and %d", moves, lines,
		         2 * 7 - 1 + 2 * 11 - 1 + 2 * 2 - 1);
	{
		/* Sample 5's level: 2 MiB from its reset (10 ms before it) to it. */
		struct out o;
		out_memory(&o, want, sizeof(want) - 1);
		out_str(&o, head);
		svg_path_to(&o, 'M', x0, y);
		svg_path_to(&o, 'L', x1, y);
		want[out_kept(&o)] = '\0';
		expect_contains(svg, want);
	}
	expect_contains(svg, ">touched since each reset<");
	free(svg);
	/* Without readings: neither line nor legend. */
	svg = plain_picture(path);
	assert_null(strstr(svg, "#d81b60"));
	assert_null(strstr(svg, "touched"));
	free(svg);
}

/*
 * Halving keeps each group's highest sample, so the run's last samples may
 * be in no kept point; the picture still ends where the run ended: here at
 * 0 bytes at the last sample's time, after a peak.
 */
static void test_last_sample(void **state)
{
	static const char rss_line[] = "stroke=\"#222222\" stroke-width=\"1.5\" d=\"";
	struct timeline *tl = NULL;
	struct watch_sample s;
	char path[128], msg[256], want[64];
	char *svg, *p, *end;
	double x, y;

	(void)state;
	path_in(path, sizeof(path), "last.svg");
	assert_int_equal(timeline_open(&tl, path, msg, sizeof(msg)), 0);
	for (uint64_t i = 0; i < 5000; i++) {
		synth(&s, i, 4000);
		if (i >= 4997) {
			memset(s.cat, 0, sizeof(s.cat));
			s.rss = 0;
		}
		timeline_add(tl, &s);
	}
	assert_int_equal(timeline_write(tl, "last", 4, msg, sizeof(msg)), 0);
	timeline_where(tl, 4999 * 10000000ull, 0, &x, &y);
	timeline_close(tl);
	svg = slurp(path);
	p = strstr(svg, rss_line);
	assert_non_null(p);
	end = strchr(p + sizeof(rss_line) - 1, '"');
	assert_non_null(end);
	*end = '\0';
	p = strrchr(p, 'L');
	assert_non_null(p);
	snprintf(want, sizeof(want), "L%.1f %.1f", x, y);
	/* svg_num drops a ".0" */
	for (char *q = want; (q = strstr(q, ".0")) != NULL;)
		memmove(q, q + 2, strlen(q + 2) + 1);
	if (strcmp(p, want) != 0)
		fail_msg("the RSS line ends at '%s', want '%s' (the last sample, 0 bytes)", p, want);
	free(svg);
}

static void test_few_samples(void **state)
{
	struct timeline *tl = NULL;
	struct watch_sample s;
	char path[128], msg[256];
	char *svg;

	(void)state;
	path_in(path, sizeof(path), "none.svg");
	assert_int_equal(timeline_open(&tl, path, msg, sizeof(msg)), 0);
	assert_int_equal(timeline_write(tl, "t", 1, msg, sizeof(msg)), 0);
	timeline_close(tl);
	expect_xml(path);
	svg = slurp(path);
	expect_contains(svg, ">no samples: the process was not sampled<");
	free(svg);

	path_in(path, sizeof(path), "one.svg");
	assert_int_equal(timeline_open(&tl, path, msg, sizeof(msg)), 0);
	memset(&s, 0, sizeof(s));
	s.t_ns = 10000000;
	s.rss = s.cat[PMAPS_X_ANON] = 3 * MIB;
	timeline_add(tl, &s);
	assert_int_equal(timeline_write(tl, "t", 1, msg, sizeof(msg)), 0);
	timeline_close(tl);
	expect_xml(path);
	svg = slurp(path);
	expect_contains(svg, ">one sample only: RSS 3M at 0.010 s<");
	free(svg);
}

/*
 * A status sample is drawn (its RSS): a breakdown and a status sample are
 * two samples, no "one sample only". With the descendants read, the peak is
 * of the sum, the legend says so; the peak's time is in the axis's unit.
 */
static void test_status_and_kids(void **state)
{
	struct timeline *tl = NULL;
	const struct watch_sample *pts;
	struct watch_sample s;
	char path[128], msg[256];
	char *svg;

	(void)state;
	path_in(path, sizeof(path), "kids.svg");
	assert_int_equal(timeline_open(&tl, path, msg, sizeof(msg)), 0);
	memset(&s, 0, sizeof(s));
	s.rss = s.cat[PMAPS_X_HEAP] = 4 * MIB; /* a breakdown at 0 */
	timeline_add(tl, &s);
	memset(&s, 0, sizeof(s));
	s.t_ns = 10000000;
	s.rss = 6 * MIB; /* a status sample at 10 ms, the descendants 10 MiB */
	s.status_only = 1;
	s.kids_known = 1;
	s.kids_rss = 10 * MIB;
	timeline_add(tl, &s);
	memset(&s, 0, sizeof(s));
	s.t_ns = 20000000;
	s.rss = s.cat[PMAPS_X_HEAP] = 7 * MIB; /* the highest RSS, but not of the sum */
	timeline_add(tl, &s);
	assert_int_equal(timeline_points(tl, &pts), 3);
	assert_int_equal(timeline_write(tl, "t", 1, msg, sizeof(msg)), 0);
	timeline_close(tl);
	expect_xml(path);
	svg = slurp(path);
	expect_contains(svg, ">time (ms)<");
	expect_contains(svg, ">peak 16M at 10.000 ms<");
	expect_contains(svg, ">peak of process + descendants<");
	expect_contains(svg, ">descendants&apos; RSS<");
	expect_contains(svg, "fill=\"" KIDS_COLOUR "\"");
	if (strstr(svg, "one sample only"))
		fail_msg("two and more samples drawn as one");
	free(svg);

	/* One breakdown and one status sample, no descendants: drawn, the peak RSS's. */
	path_in(path, sizeof(path), "two.svg");
	assert_int_equal(timeline_open(&tl, path, msg, sizeof(msg)), 0);
	memset(&s, 0, sizeof(s));
	s.rss = s.cat[PMAPS_X_ANON] = 2 * MIB;
	timeline_add(tl, &s);
	memset(&s, 0, sizeof(s));
	s.t_ns = 1500000000;
	s.rss = 612 * MIB;
	s.status_only = 1;
	timeline_add(tl, &s);
	assert_int_equal(timeline_write(tl, "t", 1, msg, sizeof(msg)), 0);
	timeline_close(tl);
	expect_xml(path);
	svg = slurp(path);
	expect_contains(svg, ">time (ms)<");
	expect_contains(svg, ">peak 612M at 1500.000 ms<");
	expect_contains(svg, ">peak RSS<");
	if (strstr(svg, "one sample only") || strstr(svg, "descendants"))
		fail_msg("two samples, no descendants: drawn as such");
	free(svg);
}

/*
 * The render fixture: 40 samples 100 ms apart. For the first half the heap
 * alone grows, 8 MiB + 1 MiB a sample; then anonymous memory comes, 4 MiB
 * a sample, up to the peak at sample 30, and goes again.
 */
static void fixture_sample(struct watch_sample *s, uint64_t i)
{
	memset(s, 0, sizeof(*s));
	s->t_ns = i * 100000000ull;
	s->cat[PMAPS_X_HEAP] = (8 + (i < 20 ? i : 20)) * MIB;
	if (i >= 20)
		s->cat[PMAPS_X_ANON] = (i <= 30 ? i - 19 : 41 - i) * 4 * MIB;
	s->rss = s->cat[PMAPS_X_HEAP] + s->cat[PMAPS_X_ANON];
	/* Sample 10 is a status sample: its RSS alone. */
	if (i == 10) {
		memset(s->cat, 0, sizeof(s->cat));
		s->status_only = 1;
	}
	/* --children: descendants from sample 20, 8 MiB, 60 MiB at 32 to 36 (the total's peak at 32). */
	if (i >= 20) {
		s->kids_known = 1;
		s->kids_rss = (i >= 32 && i <= 36 ? 60 : 8) * MIB;
	}
}

static int fixture(const char *out)
{
	struct timeline *tl = NULL;
	struct watch_sample s;
	char msg[256];
	double w, h, x, y, y2;

	if (timeline_open(&tl, out, msg, sizeof(msg)) != 0) {
		fprintf(stderr, "%s\n", msg);
		return 1;
	}
	for (uint64_t i = 0; i < 40; i++) {
		fixture_sample(&s, i);
		timeline_add(tl, &s);
	}
	timeline_geometry(tl, &w, &h);
	printf("size %.0f %.0f\n", w, h);
	/* The layout's own sense: later is right, more is up, all of it inside the picture. */
	{
		double x0, y0, x1, y1;
		timeline_where(tl, 0, 0, &x0, &y0);
		timeline_where(tl, 39 * 100000000ull, 72 * MIB, &x1, &y1);
		if (!(x0 > 0 && x1 > x0 && x1 < w && y0 < h && y1 < y0 && y1 > 0)) {
			fprintf(stderr, "layout: (0 s, 0 B) at (%.1f, %.1f), (3.9 s, 72 MiB) at (%.1f, %.1f), "
			        "picture %.0f x %.0f\n", x0, y0, x1, y1, w, h);
			timeline_close(tl);
			return 1;
		}
	}
	/* Sample 5: the heap's area halfway up; well above it, nothing of it. */
	fixture_sample(&s, 5);
	timeline_where(tl, s.t_ns, s.cat[PMAPS_X_HEAP] / 2, &x, &y);
	printf("probe %.1f %.1f %s heap alone, first half\n", x, y, HEAP_COLOUR);
	timeline_where(tl, s.t_ns, s.rss + 30 * MIB, &x, &y2);
	printf("absent %.1f %.1f %s above the heap, first half\n", x, y2, HEAP_COLOUR);
	printf("absent %.1f %.1f %s no anon in the first half\n", x, y, ANON_COLOUR);
	/* Sample 25: anon stacked on the heap. */
	fixture_sample(&s, 25);
	timeline_where(tl, s.t_ns, s.cat[PMAPS_X_HEAP] + s.cat[PMAPS_X_ANON] / 2, &x, &y);
	printf("probe %.1f %.1f %s anon over the heap\n", x, y, ANON_COLOUR);
	timeline_where(tl, s.t_ns, s.cat[PMAPS_X_HEAP] / 2, &x, &y);
	printf("probe %.1f %.1f %s heap under anon\n", x, y, HEAP_COLOUR);
	/* Sample 10, a status sample: the heap's area goes on across it (no dip to 0). */
	fixture_sample(&s, 10);
	timeline_where(tl, s.t_ns, 4 * MIB, &x, &y);
	printf("probe %.1f %.1f %s heap across a status sample\n", x, y, HEAP_COLOUR);
	/* The descendants: on the process's RSS where read, nowhere before. */
	fixture_sample(&s, 25);
	timeline_where(tl, s.t_ns, s.rss + s.kids_rss / 2, &x, &y);
	printf("probe %.1f %.1f %s descendants on the RSS\n", x, y, KIDS_COLOUR);
	fixture_sample(&s, 34);
	timeline_where(tl, s.t_ns, s.rss + s.kids_rss / 2, &x, &y);
	printf("probe %.1f %.1f %s descendants at their largest\n", x, y, KIDS_COLOUR);
	fixture_sample(&s, 5);
	timeline_where(tl, s.t_ns, s.rss + 4 * MIB, &x, &y);
	printf("absent %.1f %.1f %s no descendants before they were read\n", x, y, KIDS_COLOUR);
	/* The peak's dot: of the process and its descendants together (sample 32, not 30). */
	fixture_sample(&s, 32);
	timeline_where(tl, s.t_ns, s.rss + s.kids_rss, &x, &y);
	printf("probe %.1f %.1f %s peak dot\n", x, y, SVG_C_PEAK);
	if (timeline_write(tl, "pmaps watch 4242 (fixture)", 26, msg, sizeof(msg)) != 0) {
		fprintf(stderr, "%s\n", msg);
		timeline_close(tl);
		return 1;
	}
	timeline_close(tl);
	return 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_halving),
		cmocka_unit_test(test_open_creates),
		cmocka_unit_test(test_open_fails),
		cmocka_unit_test(test_write_fails),
		cmocka_unit_test(test_write_fails_keeps_old),
		cmocka_unit_test(test_hostile_title),
		cmocka_unit_test(test_lazyfree_gap),
		cmocka_unit_test(test_lazyfree_alone),
		cmocka_unit_test(test_touched),
		cmocka_unit_test(test_runtime_books),
		cmocka_unit_test(test_last_sample),
		cmocka_unit_test(test_few_samples),
		cmocka_unit_test(test_status_and_kids),
	};

	if (argc == 3 && strcmp(argv[1], "fixture") == 0)
		return fixture(argv[2]);
	return cmocka_run_group_tests(tests, setup, teardown);
}
