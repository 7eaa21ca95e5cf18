/* SPDX-License-Identifier: MIT */
/*
 * test_serve_api.c - pmaps serve's JSON endpoints (src/serve_api.c) called
 * as the routes call them, with the collector's refresh done here (the
 * test's serve_fresh(): one top_refresh(), as serve.c's first):
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
 *     kinds.
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
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "../expect.h"
#include "serve.h"
#include "tool.h"

#define FIXTURE PMAPS_TEST_DATA "/top/proc"
#define NPROCS 600
#define FIRST_PID 1000
#define HEAD "{\"pmaps_version\":\"" PMAPS_VERSION "\","

extern char **environ;

static char dir[64];

/* ---- the routes' side of serve.c, as the test needs it ---- */

void serve_reply_text(struct serve_reply *r, unsigned status, const char *msg)
{
	memset(r, 0, sizeof(*r));
	r->status = status;
	r->content_type = "text/plain; charset=utf-8";
	r->body = strdup(msg);
	r->len = r->body ? strlen(msg) : 0;
}

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
	busy_then_answers(&sv, (int)pid, serve_api_pages, "application/json", head, "\n]}\n");
	busy_then_answers(&sv, (int)pid, serve_api_pages_svg, "image/svg+xml",
	                  "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg ", "</svg>\n");
	serve_done(&sv);
	expect_sys(kill(pid, SIGKILL));
	expect_sys(waitpid(pid, &st, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_processes),
		cmocka_unit_test(test_not_selected),
		cmocka_unit_test(test_busy),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
