/* SPDX-License-Identifier: MIT */
/*
 * test_races.c - the pmaps tool against targets that die, exec or lose their
 * main thread while they are read, hundreds of times at random moments.
 *
 * The rule under test: exit 0 only with the whole reading. A target killed
 * at any point gives a non-zero exit and a message that it exited (or is a
 * zombie), never "exec'd" and never a table cut short with exit 0; a target
 * that execs gives either the whole table of one program or "exec'd". Each
 * run is checked, and the counts of each outcome are printed, so that a run
 * where no kill ever landed mid-read is visible as such.
 *
 *   test_races [ROUNDS]      (default 200; PMAPS_RACE_ROUNDS overrides;
 *                             PMAPS_TOOL names another pmaps binary)
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/prctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "wait_comm.h"

#define NMAPS 32768 /* as many mappings as the report that found the defect */

static int failures;

#define CHECK(cond, ...)                                                                      \
	do {                                                                                      \
		if (!(cond)) {                                                                        \
			failures++;                                                                       \
			fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                   \
			fprintf(stderr, __VA_ARGS__);                                                     \
			fputc('\n', stderr);                                                              \
		}                                                                                     \
	} while (0)

/*
 * A target with NMAPS one-page mappings that cannot merge (alternating
 * protections), then one byte on READY, then it waits: for a kill, for "e"
 * (exec /bin/sleep), or for "t" (the main thread leaves, a thread stays).
 */
static void *hold(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

static pid_t start_target(int *ctl, int many)
{
	int ready[2], cmd[2];
	pid_t pid;
	char b;

	if (pipe(ready) || pipe(cmd))
		abort();
	pid = fork();
	if (pid == 0) {
		close(ready[0]);
		close(cmd[1]);
		for (int i = 0; i < (many ? NMAPS : 0); i++)
			if (mmap(NULL, 4096, i % 2 ? PROT_READ : PROT_READ | PROT_WRITE,
			         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED)
				_exit(3);
		if (write(ready[1], "r", 1) != 1)
			_exit(4);
		if (read(cmd[0], &b, 1) != 1)
			_exit(0);
		if (b == 'e') {
			execl("/bin/sleep", "sleep", "60", (char *)NULL);
			_exit(127);
		}
		if (b == 't') {
			/* 64 MiB held by a thread that outlives main. */
			size_t len = 64u << 20;
			char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			pthread_t t;
			if (p == MAP_FAILED)
				_exit(5);
			memset(p, 1, len);
			if (pthread_create(&t, NULL, hold, NULL))
				_exit(6);
			pthread_exit(NULL);
		}
		_exit(0);
	}
	close(ready[1]);
	close(cmd[0]);
	if (read(ready[0], &b, 1) != 1)
		abort();
	*ctl = cmd[1];
	close(ready[0]);
	return pid;
}

/* Lines of /proc/PID/maps: the row count of a whole table. */
static long count_maps(pid_t pid)
{
	char path[64], buf[65536];
	long lines = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < n; i++)
			lines += buf[i] == '\n';
	close(fd);
	return lines;
}

struct run {
	int rc;
	long lines;     /* stdout lines */
	int sleep_rows; /* stdout rows naming /usr/bin/sleep */
	char err[1024]; /* stderr, cut */
};

/* Starts the tool on ARGV; KILL_AT_US > 0 kills VICTIM that long after. */
static void run_tool(const char *const argv[], pid_t victim, long kill_at_us, int ctl, char cmd,
                     struct run *r)
{
	int out[2], err[2], st;
	pid_t kid;
	char buf[65536];
	size_t en = 0;
	ssize_t n;

	if (pipe(out) || pipe(err))
		abort();
	kid = fork();
	if (kid == 0) {
		dup2(out[1], 1);
		dup2(err[1], 2);
		close(out[0]);
		close(err[0]);
		/* execv() takes char *const[]; the strings are never written. */
		char *v[16];
		size_t na = 0;
		while (na < 15 && argv[na])
			na++;
		memcpy(v, argv, na * sizeof(v[0]));
		v[na] = NULL;
		execv(v[0], v);
		_exit(127);
	}
	close(out[1]);
	close(err[1]);
	if (kill_at_us >= 0) {
		struct timespec ts = {kill_at_us / 1000000, (kill_at_us % 1000000) * 1000};
		nanosleep(&ts, NULL);
		if (cmd) {
			if (write(ctl, &cmd, 1) != 1)
				abort();
		} else {
			kill(victim, SIGKILL);
		}
	}
	r->lines = 0;
	r->sleep_rows = 0;
	{
		/* The last bytes of the line so far, enough to spot a path. */
		char tail[32] = "";
		size_t tl = 0;
		while ((n = read(out[0], buf, sizeof(buf))) > 0) {
			for (ssize_t i = 0; i < n; i++) {
				if (buf[i] == '\n') {
					r->lines++;
					tail[tl] = '\0';
					r->sleep_rows += tl >= 14 && strcmp(tail + tl - 14, "/usr/bin/sleep") == 0;
					tl = 0;
				} else if (tl < sizeof(tail) - 1) {
					tail[tl++] = buf[i];
				} else {
					memmove(tail, tail + 1, sizeof(tail) - 2);
					tail[sizeof(tail) - 2] = buf[i];
				}
			}
		}
	}
	while ((n = read(err[0], r->err + en, sizeof(r->err) - 1 - en)) > 0)
		en += (size_t)n;
	r->err[en] = '\0';
	close(out[0]);
	close(err[0]);
	waitpid(kid, &st, 0);
	r->rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static uint64_t rnd(void)
{
	static uint64_t x = 88172645463325252ull;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return x;
}

/*
 * Kills at random moments during `pmaps CMD PID`. HEADER is the number of
 * stdout lines a whole table has besides its rows (0: not counted).
 */
static void kills(const char *tool, const char *const *args, int header, int rounds,
                  long window_us)
{
	int whole = 0, exited = 0, zombie = 0;

	for (int i = 0; i < rounds; i++) {
		int ctl, st;
		pid_t t = start_target(&ctl, 1);
		long expect = count_maps(t) + header;
		char pid[16];
		const char *argv[8];
		int k = 0;
		struct run r;

		snprintf(pid, sizeof(pid), "%d", (int)t);
		argv[k++] = tool;
		for (const char *const *a = args; *a; a++)
			argv[k++] = *a;
		argv[k++] = pid;
		argv[k] = NULL;
		run_tool(argv, t, (long)(rnd() % (uint64_t)window_us), -1, 0, &r);
		kill(t, SIGKILL);
		waitpid(t, &st, 0);
		close(ctl);
		if (r.rc == 0) {
			whole++;
			if (header)
				CHECK(r.lines == expect, "pmaps %s exit 0 with %ld lines, the whole table has %ld",
				      args[0], r.lines, expect);
			continue;
		}
		CHECK(r.rc == 1, "pmaps %s: exit %d: %s", args[0], r.rc, r.err);
		CHECK(!strstr(r.err, "exec'd"), "pmaps %s on a killed process said: %s", args[0], r.err);
		if (strstr(r.err, "zombie"))
			zombie++;
		else if (strstr(r.err, "exited") || strstr(r.err, "exiting") ||
		         strstr(r.err, "no such process"))
			exited++;
		else
			CHECK(0, "pmaps %s on a killed process said: %s", args[0], r.err);
	}
	printf("kill -9 during `pmaps %s%s%s`: %d runs: %d whole, %d exited, %d zombie\n", args[0],
	       args[1] ? " " : "", args[1] ? args[1] : "", rounds, whole, exited, zombie);
	/* The window is chosen so that most kills land mid-read: show that they did. */
	CHECK(exited + zombie > 0, "no kill landed during `pmaps %s`", args[0]);
}

/* Execs at random moments during `pmaps maps [--total] PID`. */
static void execs(const char *tool, int total, int rounds, long window_us)
{
	int whole_old = 0, whole_new = 0, execd = 0;

	for (int i = 0; i < rounds; i++) {
		int ctl, st;
		pid_t t = start_target(&ctl, 1);
		long old = count_maps(t) + 1, now;
		char pid[16];
		const char *argv[] = {tool, "maps", total ? "--total" : pid, total ? pid : NULL, NULL};
		struct run r;

		snprintf(pid, sizeof(pid), "%d", (int)t);
		run_tool(argv, t, (long)(rnd() % (uint64_t)window_us), ctl, 'e', &r);
		/* The new program's table, once it runs. */
		CHECK(wait_comm(t, "sleep"), "pid %d never ran sleep", (int)t);
		now = count_maps(t) + 1;
		kill(t, SIGKILL);
		waitpid(t, &st, 0);
		close(ctl);
		if (r.rc == 0 && total) {
			whole_old++; /* one row: whichever program it was, read whole */
			continue;
		}
		if (r.rc == 0) {
			/*
			 * The old program whole, or the new one: its table grows
			 * while its dynamic loader maps libraries, up to NOW rows
			 * and /etc/ld.so.cache, which the loader maps while it
			 * looks libraries up and unmaps when done; but from the
			 * start it maps sleep itself (before exec has set the code
			 * addresses the guard waits for).
			 */
			CHECK(r.lines == old || (r.sleep_rows > 0 && r.lines <= now + 1),
			      "exit 0 with %ld lines, %d of /usr/bin/sleep: the old program's table has "
			      "%ld, the new one's %ld", r.lines, r.sleep_rows, old, now);
			if (r.lines == old && !r.sleep_rows)
				whole_old++;
			else
				whole_new++;
			continue;
		}
		CHECK(r.rc == 1 && strstr(r.err, "exec'd"), "exit %d, said: %s", r.rc, r.err);
		execd++;
	}
	printf("exec during `pmaps maps%s`: %d runs: %d whole (old program), %d whole (new), %d "
	       "exec'd\n", total ? " --total" : "", rounds, whole_old, whole_new, execd);
	/* A rollup is one read() of a few microseconds: an exec rarely lands in it. */
	if (!total)
		CHECK(execd > 0, "no exec landed during `pmaps maps`");
}

/* The main thread left with pthread_exit(): the process lives on in a thread. */
static void leader_gone(const char *tool)
{
	int ctl, st;
	pid_t t = start_target(&ctl, 0);
	char pid[16], b = 't', state = 0;
	const char *argv[] = {tool, "maps", "--total", "--bytes", "--csv", pid, NULL};
	struct run r;

	snprintf(pid, sizeof(pid), "%d", (int)t);
	if (write(ctl, &b, 1) != 1)
		abort();
	/* Until the leader is a zombie. */
	for (int j = 0; j < 2000 && state != 'Z'; j++) {
		char path[64], buf[512];
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)t);
		int fd = open(path, O_RDONLY);
		ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : 0;
		if (fd >= 0)
			close(fd);
		char *s = n > 0 ? memrchr(buf, ')', (size_t)n) : NULL;
		state = s ? s[2] : 0;
		if (state != 'Z')
			usleep(1000);
	}
	CHECK(state == 'Z', "the main thread never became a zombie (state %c)", state);
	run_tool(argv, t, -1, -1, 0, &r);
	CHECK(r.rc == 0, "pmaps maps --total on a process whose main thread exited: exit %d: %s",
	      r.rc, r.err);
	CHECK(r.lines == 2, "%ld lines of CSV", r.lines);
	const char *sz[] = {tool, "explain", pid, NULL};
	run_tool(sz, t, -1, -1, 0, &r);
	CHECK(r.rc == 0, "pmaps explain on a process whose main thread exited: exit %d: %s", r.rc,
	      r.err);
	printf("main thread gone, one thread left: maps --total and explain exit 0\n");
	kill(t, SIGKILL);
	waitpid(t, &st, 0);
	close(ctl);
}

/*
 * Targets that change without dying or exec'ing, started in a child: a
 * region split into 40k mappings and merged back every 20 ms (the kernel
 * lists a mapping that grew between two reads again from its start); a
 * process whose main thread is gone and whose worker threads retire every
 * 30 ms (each one's task directory vanishes); a process moving its argument
 * addresses with prctl(PR_SET_MM_MAP) like setproctitle() (stat's code and
 * argument addresses change with no exec).
 */
static void *retire(void *arg)
{
	pthread_t t;
	(void)arg;
	usleep(30000);
	if (pthread_create(&t, NULL, retire, NULL) == 0)
		pthread_detach(t);
	return NULL;
}

static pid_t start_changer(char what)
{
	int ready[2];
	pid_t pid;
	char b;

	if (pipe(ready))
		abort();
	pid = fork();
	if (pid == 0) {
		const long n = 20000, pg = 4096;
		char *base = mmap(NULL, (size_t)(n * 2 * pg), PROT_READ | PROT_WRITE,
		                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		close(ready[0]);
		if (base == MAP_FAILED)
			_exit(3);
		for (long i = 0; i < n; i++)
			mprotect(base + (2 * i + 1) * pg, (size_t)pg, PROT_READ);
		if (what == 't') {
			pthread_t t;
			if (pthread_create(&t, NULL, retire, NULL))
				_exit(4);
			pthread_detach(t);
			if (write(ready[1], "r", 1) != 1)
				_exit(5);
			pthread_exit(NULL);
		}
		if (what == 'a') {
			struct prctl_mm_map m;
			char buf[2048];
			unsigned long v[64] = {0};
			int fd = open("/proc/self/stat", O_RDONLY), k = 3;
			ssize_t len = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
			if (len <= 0)
				_exit(6);
			buf[len] = '\0';
			for (char *t = strtok(strrchr(buf, ')') + 2, " "); t && k < 64; t = strtok(NULL, " "))
				v[k++] = strtoul(t, NULL, 10);
			memset(&m, 0, sizeof(m));
			m.start_code = v[26], m.end_code = v[27], m.start_stack = v[28];
			m.start_data = v[45], m.end_data = v[46], m.start_brk = v[47];
			m.brk = (unsigned long)sbrk(0);
			m.arg_start = v[48], m.arg_end = v[49], m.env_start = v[50], m.env_end = v[51];
			m.exe_fd = (uint32_t)-1;
			if (write(ready[1], "r", 1) != 1)
				_exit(5);
			for (unsigned long a = m.arg_start, i = 0;; i++) {
				m.arg_start = a + (i & 1);
				if (prctl(PR_SET_MM, PR_SET_MM_MAP, &m, sizeof(m), 0))
					_exit(7);
				usleep(20000);
			}
		}
		if (write(ready[1], "r", 1) != 1)
			_exit(5);
		for (;;) {
			for (long i = 0; i < n; i++)
				mprotect(base + (2 * i + 1) * pg, (size_t)pg, PROT_READ);
			usleep(20000);
			mprotect(base, (size_t)(n * 2 * pg), PROT_READ | PROT_WRITE);
			usleep(20000);
		}
	}
	close(ready[1]);
	if (read(ready[0], &b, 1) != 1)
		abort();
	close(ready[0]);
	return pid;
}

/* `pmaps ARGS PID` ROUNDS times on a changer: each run whole, or told to try again. */
static void changing(const char *tool, char what, const char *const *args, int rounds)
{
	pid_t t = start_changer(what);
	int whole = 0, again = 0, st;
	char pid[16];

	snprintf(pid, sizeof(pid), "%d", (int)t);
	for (int i = 0; i < rounds; i++) {
		const char *argv[8];
		int k = 0;
		struct run r;

		argv[k++] = tool;
		for (const char *const *a = args; *a; a++)
			argv[k++] = *a;
		argv[k++] = pid;
		argv[k] = NULL;
		run_tool(argv, t, -1, -1, 0, &r);
		if (r.rc == 0) {
			whole++;
			continue;
		}
		CHECK(r.rc == 1 && strstr(r.err, "try again"),
		      "pmaps %s on a live process (%c) that neither exited nor exec'd: exit %d: %s",
		      args[0], what, r.rc, r.err);
		again++;
	}
	printf("pmaps %s%s%s on a changing process (%s): %d runs: %d whole, %d told to try again\n",
	       args[0], args[1] ? " " : "", args[1] ? args[1] : "",
	       what == 'm'   ? "mappings split and merged"
	       : what == 't' ? "main thread gone, workers retiring"
	                     : "prctl(PR_SET_MM) moving its arguments",
	       rounds, whole, again);
	kill(t, SIGKILL);
	waitpid(t, &st, 0);
}

int main(int argc, char **argv)
{
	const char *tool = getenv("PMAPS_TOOL") ? getenv("PMAPS_TOOL") : PMAPS_TOOL_PATH;
	const char *env = getenv("PMAPS_RACE_ROUNDS");
	int rounds = argc > 1 ? atoi(argv[1]) : env ? atoi(env) : 200;
	static const char *const maps[] = {"maps", NULL};
	static const char *const total[] = {"maps", "--total", NULL};
	static const char *const pages[] = {"pages", "--summary", NULL};
	static const char *const explain[] = {"explain", NULL};
	int quarter = rounds / 4 > 0 ? rounds / 4 : 1;

	signal(SIGPIPE, SIG_IGN);
	/*
	 * Windows: a read of 32k mappings' smaps takes ~60 ms here (longer under
	 * the sanitizers, where more kills land); the rollup a few ms.
	 */
	kills(tool, maps, 1, rounds, 80000);
	kills(tool, total, 0, quarter, 8000);
	kills(tool, pages, 0, quarter, 80000);
	kills(tool, explain, 0, quarter, 100000);
	execs(tool, 0, quarter, 60000);
	execs(tool, 1, quarter, 8000);
	leader_gone(tool);
	static const char *const group[] = {"maps", "--group", "kind", NULL};
	static const char *const json[] = {"maps", "--json", NULL};
	changing(tool, 'm', maps, quarter);
	changing(tool, 'm', group, quarter);
	changing(tool, 'm', explain, quarter);
	changing(tool, 't', total, quarter);
	changing(tool, 't', json, quarter);
	changing(tool, 't', group, quarter);
	changing(tool, 't', explain, quarter);
	changing(tool, 'a', maps, quarter);
	changing(tool, 'a', total, quarter);
	if (failures)
		printf("%d checks failed\n", failures);
	return failures ? 1 : 0;
}
