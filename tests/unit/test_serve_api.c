/* SPDX-License-Identifier: MIT */
/*
 * test_serve_api.c - pmaps serve's JSON endpoints (src/serve_api.c) called
 * as the routes call them, with the collector's refresh done here (the
 * test's serve_fresh(): one top_refresh(), as serve.c's first; the
 * replies and the lock are serve_reply.c's):
 *
 *   - /api/processes over a proc tree of 600 processes made here (the top
 *     fixture's postgres, one name not UTF-8): larger than the first
 *     buffer, so written again into a larger one; every process in it,
 *     the document whole and valid UTF-8;
 *   - a pid outside the selection: 404 and its exact JSON body;
 *   - another request's reading under way: 503 ("busy") after the wait,
 *     not before, and the reading once it is done; the same for the pages
 *     and the picture;
 *   - a sleep(1)'s explain, pages and picture: whole documents of their
 *     kinds;
 *   - the explain's source from the survey's row: the gentle page walk
 *     ("source":"pages") for a row the survey found large or read from the
 *     pages, smaps otherwise (the row given the flag or source here);
 *   - a pid reused since the refresh (the row given another name, another
 *     uid): 404 "process N exited" from every endpoint, its exact body;
 *   - a process whose directory this reader may not open (a tree made and
 *     closed after the refresh, by a child of this test run as nobody when
 *     it is root): 403 with the library's message once, its exact body;
 *   - the last answer kept for --min-interval: an explain of a fixture
 *     whose smaps changed in between is the same bytes within the interval,
 *     and the new ones without one.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <spawn.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "../expect.h"
#include "serve/serve.h"
#include "common/tool.h"
#include "write/writer.h"

#define FIXTURE PMAPS_TEST_DATA "/top/proc"
#define NPROCS 600
#define FIRST_PID 1000
#define HEAD "{\"pmaps_version\":\"" PMAPS_VERSION "\","

extern char **environ;

static char dir[64];

/* ---- the routes' side of serve.c, as the test needs it ---- */

int serve_fresh(struct serve *sv, char *msg, size_t msgsz)
{
	if (sv->refreshed_ns)
		return 0;
	if (top_refresh(&sv->top) != 0) {
		snprintf(msg, msgsz, "the proc root could not be read");
		return -1;
	}
	sv->refreshed_ns = 1;
	return 0;
}

/* ---- helpers ---- */

static char *slurp(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *buf = malloc(1 << 16);
	ssize_t n;

	assert_true(fd >= 0);
	assert_non_null(buf);
	n = read(fd, buf, (1 << 16) - 1);
	close(fd);
	assert_true(n > 0);
	buf[n] = '\0';
	*len = (size_t)n;
	return buf;
}

static void spit(const char *path, const char *s, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, s, n), (ssize_t)n);
	close(fd);
}

/* How many times NEEDLE occurs in the N bytes at HAY. */
static size_t count(const char *hay, size_t n, const char *needle)
{
	size_t k = 0, nl = strlen(needle);

	for (const char *p = hay; (p = memmem(p, n - (size_t)(p - hay), needle, nl)); p += nl)
		k++;
	return k;
}

static int ends_with(const struct serve_reply *r, const char *tail)
{
	size_t n = strlen(tail);

	return r->len >= n && memcmp(r->body + r->len - n, tail, n) == 0;
}

/* A server's state over ROOT (NULL: /proc), selecting PID alone (0: every process). */
static void serve_init(struct serve *sv, const char *root, int pid)
{
	memset(sv, 0, sizeof(*sv));
	top_opts_init(&sv->top.o);
	sv->top.o.once = 1;
	sv->top.o.root = root;
	if (pid) {
		sv->top.o.pids[0] = pid;
		sv->top.o.npids = 1;
	}
	sv->o.top = sv->top.o; /* as serve.c's: the options, and the survey's copy of them */
	sv->root = geteuid() == 0;
	assert_int_equal(pthread_mutex_init(&sv->lock, NULL), 0);
	assert_int_equal(pthread_mutex_init(&sv->costly, NULL), 0);
	assert_int_equal(top_init(&sv->top), 0);
	if (pid)
		top_want_filtered(&sv->top);
}

static void serve_done(struct serve *sv)
{
	top_done(&sv->top);
	pthread_mutex_destroy(&sv->lock);
	pthread_mutex_destroy(&sv->costly);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- the tests ---- */

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_serve_api.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/*
 * NPROCS copies of the fixture's process 100 (status with its pids
 * changed, smaps_rollup as it is), the first named with a byte that is
 * not UTF-8; /api/processes lists them all, in a document past the first
 * buffer's 64 KiB.
 */
static void test_processes(void **state)
{
	char path[256], *status, *rollup, *meminfo, *text;
	size_t slen, rlen, mlen;
	struct serve sv;
	struct serve_reply r;

	(void)state;
	status = slurp(FIXTURE "/100/status", &slen);
	rollup = slurp(FIXTURE "/100/smaps_rollup", &rlen);
	meminfo = slurp(FIXTURE "/meminfo", &mlen);
	snprintf(path, sizeof(path), "%s/meminfo", dir);
	spit(path, meminfo, mlen);
	text = malloc(slen + 4096);
	assert_non_null(text);
	for (int i = 0; i < NPROCS; i++) {
		char num[16];
		size_t n = 0, nl;
		const char *p = status, *hit;

		snprintf(num, sizeof(num), "\t%d\n", FIRST_PID + i);
		nl = strlen(num);
		/* Every "\t100\n" (Tgid, Pid, NStgid, NSpid, NSpgid, NSsid) becomes the new pid. */
		while ((hit = strstr(p, "\t100\n"))) {
			memcpy(text + n, p, (size_t)(hit - p));
			n += (size_t)(hit - p);
			memcpy(text + n, num, nl);
			n += nl;
			p = hit + 5;
		}
		memcpy(text + n, p, strlen(p));
		n += strlen(p);
		if (i == 0) {
			/* A name that is not UTF-8: the JSON says U+FFFD and gives the bytes in hex. */
			assert_memory_equal(text, "Name:\tpostgres\n", 15);
			memcpy(text, "Name:\tpo\xffgres\n", 15);
		}
		snprintf(path, sizeof(path), "%s/%d", dir, FIRST_PID + i);
		expect_sys(mkdir(path, 0755));
		snprintf(path, sizeof(path), "%s/%d/status", dir, FIRST_PID + i);
		spit(path, text, n);
		snprintf(path, sizeof(path), "%s/%d/smaps_rollup", dir, FIRST_PID + i);
		spit(path, rollup, rlen);
	}
	free(text);
	free(status);
	free(rollup);
	free(meminfo);

	serve_init(&sv, dir, 0);
	serve_api_processes(&sv, &r);
	assert_int_equal(r.status, 200);
	assert_string_equal(r.content_type, "application/json");
	expect_gt(r.len, 64 * 1024);
	expect_gt(r.len, sizeof(HEAD) - 1);
	assert_memory_equal(r.body, HEAD, sizeof(HEAD) - 1);
	assert_true(ends_with(&r, "\n]}\n"));
	assert_int_equal(count(r.body, r.len, "{\"pid\":"), NPROCS);
	assert_int_equal(count(r.body, r.len, "\"command\":\"postgres\""), NPROCS - 1);
	assert_int_equal(count(r.body, r.len, "\"command\":\"po\\ufffdgres\","
	                                     "\"command_hex\":\"706fff67726573\""), 1);
	assert_true(esc_utf8_valid(r.body, r.len));
	free(r.body);
	serve_done(&sv);
}

/* A process the selection does not have: 404, and the body says which. */
static void test_not_selected(void **state)
{
	struct serve sv;
	struct serve_reply r;
	char want[128];
	int other = getppid();

	(void)state;
	serve_init(&sv, NULL, getpid());
	snprintf(want, sizeof(want), "{\"error\":\"process %d is not one this server shows\",\"pid\":%d}\n",
	         other, other);
	serve_api_explain(&sv, other, &r);
	assert_int_equal(r.status, 404);
	assert_string_equal(r.content_type, "application/json");
	assert_int_equal(r.len, strlen(want));
	assert_memory_equal(r.body, want, r.len);
	free(r.body);
	serve_api_pages_svg(&sv, other, &r);
	assert_int_equal(r.status, 404);
	assert_memory_equal(r.body, want, r.len);
	free(r.body);
	serve_done(&sv);
}

typedef void (*endpoint)(struct serve *sv, int pid, struct serve_reply *r);

/*
 * While another reading holds SV->costly, ENDPOINT waits for it, then is
 * told to try again (503, "busy") after two seconds and not before; once
 * the reading is done it answers.
 */
static void busy_then_answers(struct serve *sv, int pid, endpoint ep, const char *type,
                              const char *head, const char *tail)
{
	struct serve_reply r;
	double t0, took;

	assert_int_equal(pthread_mutex_lock(&sv->costly), 0);
	t0 = now_s();
	ep(sv, pid, &r);
	took = now_s() - t0;
	assert_int_equal(pthread_mutex_unlock(&sv->costly), 0);
	assert_int_equal(r.status, 503);
	assert_string_equal(r.content_type, "application/json");
	expect_contains(r.body, "\"error\":\"busy: another process is being read; try again\"");
	if (took < 1.9 || took > 4.0) {
		print_error("the busy answer came after %.3f s, not about 2 s\n", took);
		fail();
	}
	free(r.body);

	ep(sv, pid, &r);
	assert_int_equal(r.status, 200);
	assert_string_equal(r.content_type, type);
	expect_gt(r.len, strlen(head));
	assert_memory_equal(r.body, head, strlen(head));
	assert_true(ends_with(&r, tail));
	assert_true(esc_utf8_valid(r.body, r.len));
	free(r.body);
}

/*
 * The target is a sleep(1) of its own: small, and never sanitized (a
 * sanitizer's terabytes of shadow reservation take seconds to walk).
 */
static void test_busy(void **state)
{
	char *const argv[] = {"sleep", "60", NULL};
	struct serve sv;
	char head[128];
	pid_t pid;
	int st;

	(void)state;
	assert_int_equal(posix_spawnp(&pid, "sleep", NULL, NULL, argv, environ), 0);
	/* Until it is sleep(1), not this program's copy: its exe is no longer ours. */
	for (int i = 0; i < 500; i++) {
		char path[64], link[256];
		ssize_t n;
		snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
		n = readlink(path, link, sizeof(link) - 1);
		if (n > 0 && (link[n] = '\0', strstr(link, "sleep")))
			break;
		usleep(10000);
	}
	serve_init(&sv, NULL, (int)pid);
	snprintf(head, sizeof(head), "{\"pmaps_version\":\"" PMAPS_VERSION "\",\"pid\":%d,", (int)pid);
	busy_then_answers(&sv, (int)pid, serve_api_explain, "application/json", head, "]}\n");
	busy_then_answers(&sv, (int)pid, serve_api_pages, "application/json", head,
	                  "\n],\"limit\":4096,\"next\":null}\n");
	busy_then_answers(&sv, (int)pid, serve_api_pages_svg, "image/svg+xml",
	                  "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg ", "</svg>\n");
	serve_done(&sv);
	expect_sys(kill(pid, SIGKILL));
	expect_sys(waitpid(pid, &st, 0));
}

/* A sleep(1) of its own (see test_busy), once it is sleep(1). */
static pid_t spawn_sleep(void)
{
	char *const argv[] = {"sleep", "60", NULL};
	pid_t pid;

	assert_int_equal(posix_spawnp(&pid, "sleep", NULL, NULL, argv, environ), 0);
	for (int i = 0; i < 500; i++) {
		char path[64], link[256];
		ssize_t n;
		snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
		n = readlink(path, link, sizeof(link) - 1);
		if (n > 0 && (link[n] = '\0', strstr(link, "sleep")))
			break;
		usleep(10000);
	}
	return pid;
}

static void reap(pid_t pid)
{
	int st;

	expect_sys(kill(pid, SIGKILL));
	expect_sys(waitpid(pid, &st, 0));
}

/*
 * After SV's refresh, the line of PID shows *COPY (a copy of its row, for
 * the caller to change) instead of the survey's row, which is returned.
 */
static const struct pmaps_survey_row *swap_row(struct serve *sv, int pid,
                                               struct pmaps_survey_row *copy)
{
	char msg[128];

	assert_int_equal(serve_fresh(sv, msg, sizeof(msg)), 0);
	for (size_t i = 0; i < sv->top.nlines; i++) {
		const struct pmaps_survey_row *row = sv->top.lines[i].row;
		if (row && row->pid == pid) {
			*copy = *row;
			sv->top.lines[i].row = copy;
			return row;
		}
	}
	fail_msg("process %d is not in the selection", pid);
	return NULL;
}

static void restore_row(struct serve *sv, const struct pmaps_survey_row *row)
{
	for (size_t i = 0; i < sv->top.nlines; i++)
		if (sv->top.lines[i].row && sv->top.lines[i].row->pid == row->pid)
			sv->top.lines[i].row = row;
}

/* The explain's "source" for a row of FLAGS and SOURCE, of PID on SV. */
static void explain_source_is(struct serve *sv, int pid, uint32_t flags, enum pmaps_source src,
                              const char *want)
{
	struct pmaps_survey_row copy;
	const struct pmaps_survey_row *row = swap_row(sv, pid, &copy);
	struct serve_reply r;
	char head[256];

	copy.flags = flags;
	copy.source = src;
	serve_api_explain(sv, pid, &r);
	restore_row(sv, row);
	snprintf(head, sizeof(head), "{\"pmaps_version\":\"" PMAPS_VERSION "\",\"pid\":%d,"
	         "\"source\":\"%s\",", pid, want);
	assert_int_equal(r.status, 200);
	if (r.len < strlen(head) || memcmp(r.body, head, strlen(head)) != 0) {
		print_error("flags %#x, source %s: the explain begins %.*s, not %s\n", flags,
		            pmaps_source_name(src), (int)(r.len < 160 ? r.len : 160), r.body, head);
		fail();
	}
	free(r.body);
}

/*
 * The explain's source is the library's one choice (pmaps_explain_choose(),
 * as pmaps explain, top's drill-down and the binding make it): a small
 * process is read from smaps, its reason "fits", with the same limit as
 * pmaps explain. But a process the survey walks gently (found too large
 * for one read within its hold limit, by the estimate or by a read it
 * timed; or read from the pages) is explained by the gentle page walk,
 * asked: "pages", its reason "asked".
 */
static void test_explain_source(void **state)
{
	static const struct {
		uint32_t flags;
		enum pmaps_source src;
		const char *want;
	} rows[] = {
		{PMAPS_SURVEY_LARGE, PMAPS_SRC_ROLLUP, "pages\",\"source_choice\":{\"reason\":\"asked"},
		{PMAPS_SURVEY_LARGE | PMAPS_SURVEY_SKIPPED, PMAPS_SRC_STATUS,
		 "pages\",\"source_choice\":{\"reason\":\"asked"},
		{0, PMAPS_SRC_PAGES, "pages\",\"source_choice\":{\"reason\":\"asked"},
		{0, PMAPS_SRC_ROLLUP, "smaps\",\"source_choice\":{\"reason\":\"fits"},
		{PMAPS_SURVEY_SKIPPED, PMAPS_SRC_STATUS, "smaps\",\"source_choice\":{\"reason\":\"fits"},
	};
	struct serve sv;
	pid_t pid;

	(void)state;
	pid = spawn_sleep();
	serve_init(&sv, NULL, (int)pid);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		explain_source_is(&sv, (int)pid, rows[i].flags, rows[i].src, rows[i].want);
	serve_done(&sv);
	reap(pid);
}

/* Every endpoint's answer for PID on SV is 404 "process PID exited", exactly. */
static void all_exited(struct serve *sv, int pid, const char *why)
{
	endpoint eps[] = {serve_api_explain, serve_api_pages, serve_api_pages_svg};
	char want[128];

	snprintf(want, sizeof(want), "{\"error\":\"process %d exited\",\"pid\":%d}\n", pid, pid);
	for (size_t i = 0; i < sizeof(eps) / sizeof(eps[0]); i++) {
		struct serve_reply r;
		eps[i](sv, pid, &r);
		if (r.status != 404 || r.len != strlen(want) || memcmp(r.body, want, r.len) != 0) {
			print_error("%s, endpoint %zu: %u %.*s, not 404 %s", why, i, r.status,
			            (int)(r.len < 300 ? r.len : 300), r.body ? r.body : "", want);
			fail();
		}
		assert_string_equal(r.content_type, "application/json");
		free(r.body);
	}
}

/*
 * The pid of the survey's row now names another process (reused since the
 * refresh): a row of another name or another uid than the process has. 404,
 * the row's process exited; the row as it is: the answers.
 */
static void test_reused(void **state)
{
	struct pmaps_survey_row copy;
	const struct pmaps_survey_row *row;
	struct serve_reply r;
	struct serve sv;
	pid_t pid;

	(void)state;
	pid = spawn_sleep();
	serve_init(&sv, NULL, (int)pid);
	row = swap_row(&sv, (int)pid, &copy);
	assert_int_equal(copy.comm.len, 5);
	assert_memory_equal(copy.comm.ptr, "sleep", 5);
	copy.comm.ptr = "sleeq";
	all_exited(&sv, (int)pid, "another name");
	copy.comm.len = 4;
	copy.comm.ptr = "slee";
	all_exited(&sv, (int)pid, "a shorter name");
	copy.comm = row->comm;
	copy.uid = row->uid + 1;
	all_exited(&sv, (int)pid, "another uid");
	copy.uid = row->uid;
	serve_api_explain(&sv, (int)pid, &r);
	assert_int_equal(r.status, 200);
	free(r.body);
	restore_row(&sv, row);
	serve_done(&sv);
	reap(pid);
}

/* Writes file DIR/NAME (N bytes of S). Returns 0 or -1. */
static int put(const char *dir_, const char *name, const char *s, size_t n)
{
	char path[4096];
	int fd, ok, l;

	l = snprintf(path, sizeof(path), "%s/%s", dir_, name);
	if (l < 0 || (size_t)l >= sizeof(path))
		return -1;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	ok = write(fd, s, n) == (ssize_t)n;
	return close(fd) == 0 && ok ? 0 : -1;
}

/*
 * The child of test_denied: as nobody when it is root (else as itself),
 * makes a proc tree of the fixture's process 100, has it refreshed, makes
 * the process's directory unreadable and asks for its explain: the answer
 * to FD, as "STATUS BODY". Returns its exit status (0: asked).
 */
static int denied_child(int fd, const char *status, size_t slen, const char *rollup, size_t rlen,
                        const char *meminfo, size_t mlen)
{
	char root[64], pdir[80], head[16], msg[128];
	struct serve sv;
	struct serve_reply r;
	int ret = 0;

	if (geteuid() == 0 && (setgroups(0, NULL) < 0 || setgid(65534) < 0 || setuid(65534) < 0))
		return 10;
	snprintf(root, sizeof(root), "/tmp/test_serve_api.denied.XXXXXX");
	if (!mkdtemp(root))
		return 11;
	snprintf(pdir, sizeof(pdir), "%s/100", root);
	if (put(root, "meminfo", meminfo, mlen) < 0 || mkdir(pdir, 0755) < 0 ||
	    put(pdir, "status", status, slen) < 0 || put(pdir, "smaps_rollup", rollup, rlen) < 0)
		ret = 12;
	memset(&sv, 0, sizeof(sv));
	top_opts_init(&sv.top.o);
	sv.top.o.once = 1;
	sv.top.o.root = root;
	sv.o.top = sv.top.o;
	if (!ret && (pthread_mutex_init(&sv.lock, NULL) != 0 ||
	             pthread_mutex_init(&sv.costly, NULL) != 0 || top_init(&sv.top) != 0))
		ret = 13;
	if (!ret && serve_fresh(&sv, msg, sizeof(msg)) != 0)
		ret = 14;
	if (!ret && chmod(pdir, 0) < 0)
		ret = 15;
	if (!ret) {
		serve_api_explain(&sv, 100, &r);
		snprintf(head, sizeof(head), "%u ", r.status);
		if (write(fd, head, strlen(head)) < 0 || write(fd, r.body, r.len) < 0)
			ret = 16;
		free(r.body);
		top_done(&sv.top);
	}
	chmod(pdir, 0755);
	snprintf(msg, sizeof(msg), "%s/status", pdir);
	unlink(msg);
	snprintf(msg, sizeof(msg), "%s/smaps_rollup", pdir);
	unlink(msg);
	rmdir(pdir);
	snprintf(msg, sizeof(msg), "%s/meminfo", root);
	unlink(msg);
	if (rmdir(root) < 0 && !ret)
		ret = 17;
	return ret;
}

/*
 * A selected process this reader may not open: 403, and the library's
 * message (which names CAP_SYS_PTRACE) once, not followed by it again.
 */
static void test_denied(void **state)
{
	static const char want[] = "403 {\"error\":\"permission denied: reading another user's "
	                           "process needs root or CAP_SYS_PTRACE\",\"pid\":100}\n";
	char *status, *rollup, *meminfo, got[1024];
	size_t slen, rlen, mlen, n = 0;
	int fds[2], st;
	pid_t pid;

	(void)state;
	status = slurp(FIXTURE "/100/status", &slen);
	rollup = slurp(FIXTURE "/100/smaps_rollup", &rlen);
	meminfo = slurp(FIXTURE "/meminfo", &mlen);
	expect_sys(pipe2(fds, O_CLOEXEC));
	pid = fork();
	expect_sys(pid);
	if (pid == 0) {
		close(fds[0]);
		_exit(denied_child(fds[1], status, slen, rollup, rlen, meminfo, mlen));
	}
	close(fds[1]);
	for (ssize_t k; n < sizeof(got) - 1 && (k = read(fds[0], got + n, sizeof(got) - 1 - n)) > 0;)
		n += (size_t)k;
	got[n] = '\0';
	close(fds[0]);
	expect_sys(waitpid(pid, &st, 0));
	expect_exited(st, 0);
	assert_string_equal(got, want);
	free(status);
	free(rollup);
	free(meminfo);
}

/*
 * The last answer kept: a fixture's process 100 (the top fixture's status
 * and rollup, explain-cpython's smaps), explained; its smaps replaced by
 * explain-glibc's; explained again within --min-interval: the same bytes.
 * Without an interval the new smaps' answer (a control: the change shows).
 */
static void test_kept(void **state)
{
	char root[256], pdir[300], *text, *first;
	size_t n, first_len;
	struct serve_reply r;
	struct serve sv;

	(void)state;
	snprintf(root, sizeof(root), "%s/kept", dir);
	snprintf(pdir, sizeof(pdir), "%s/100", root);
	expect_sys(mkdir(root, 0755));
	expect_sys(mkdir(pdir, 0755));
	text = slurp(FIXTURE "/meminfo", &n);
	assert_int_equal(put(root, "meminfo", text, n), 0);
	free(text);
	text = slurp(FIXTURE "/100/status", &n);
	assert_int_equal(put(pdir, "status", text, n), 0);
	free(text);
	text = slurp(FIXTURE "/100/smaps_rollup", &n);
	assert_int_equal(put(pdir, "smaps_rollup", text, n), 0);
	free(text);
	text = slurp(PMAPS_TEST_DATA "/explain-cpython/proc/300/smaps", &n);
	assert_int_equal(put(pdir, "smaps", text, n), 0);
	free(text);

	serve_init(&sv, root, 100);
	sv.o.min_interval_ns = 3600ull * 1000000000ull;
	serve_api_explain(&sv, 100, &r);
	assert_int_equal(r.status, 200);
	first = r.body;
	first_len = r.len;
	expect_contains(first, "\"source\":\"smaps\"");

	text = slurp(PMAPS_TEST_DATA "/explain-glibc/proc/100/smaps", &n);
	assert_int_equal(put(pdir, "smaps", text, n), 0);
	free(text);
	serve_api_explain(&sv, 100, &r);
	assert_int_equal(r.status, 200);
	assert_int_equal(r.len, first_len);
	assert_memory_equal(r.body, first, first_len);
	free(r.body);

	sv.o.min_interval_ns = 0;
	serve_api_explain(&sv, 100, &r);
	assert_int_equal(r.status, 200);
	if (r.len == first_len && memcmp(r.body, first, first_len) == 0) {
		print_error("without an interval, the explain did not see the new smaps\n");
		fail();
	}
	free(r.body);
	free(first);
	serve_done(&sv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_processes),
		cmocka_unit_test(test_not_selected),
		cmocka_unit_test(test_busy),
		cmocka_unit_test(test_explain_source),
		cmocka_unit_test(test_reused),
		cmocka_unit_test(test_denied),
		cmocka_unit_test(test_kept),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
