/* SPDX-License-Identifier: MIT */
/*
 * bench_serve.c - what a scrape of `pmaps serve` costs, and what being
 * scraped costs the process it reads.
 *
 * 1. A scrape of N processes (500 by default): this program's own children
 *    (herd.h: each touches a few hundred KiB and then blocks), named
 *    "pmaps-srv-kid" and selected with --name, against the bare C loop over
 *    the same pids: open, read to the end and close /proc/PID/status and
 *    /proc/PID/smaps_rollup, parsing nothing (and the same loop over smaps,
 *    which a process's breakdown by category reads, to compare the cold
 *    scrape with). pmaps serve runs with
 *    --min-interval 0 (every GET /metrics refreshes) and a budget no scrape
 *    reaches (so every process is read whole and none is skipped: the
 *    response says so, and each child's series is counted in it). Timed,
 *    interleaved repetition by repetition (every other one in reverse
 *    order), medians, ratios to the bare loop of the same run:
 *      - a cold start: a server started until its first answer: its
 *        start-up, its warm-up (every process read, its breakdown by
 *        category from smaps, before it says it is ready) and the first
 *        GET /metrics;
 *      - a steady scrape: a GET of a server that has answered before, the
 *        children at rest (--max-age 3600: only what moved is read again);
 *      - with each, the scrape's own pmaps_scrape_duration_seconds and its
 *        response's size.
 *    The client is a plain HTTP/1.0 GET over a loopback socket, the time
 *    from connect() to the end of the response.
 *
 * 2. The victim's mmap() p99.9 while pmaps serve reads it (the stall
 *    harness, stall.h, as pmaps-bench-stall): a baseline phase, then
 *    pmaps serve --pid VICTIM scraped once a second with --min-interval 0
 *    (every scrape a refresh) and with the defaults (--min-interval 5), then
 *    a baseline again.
 *
 *   pmaps-bench-serve [--quick] [--procs N] [--cgroups N] [--reps R]
 *                     [--seconds S] [--vmas N] [--resident-mib M]
 *
 * --cgroups N (default 50; 0: none) spreads the children over N memory
 * cgroups (cg_setup() below): the scrape then reads them too, and so does
 * the bare loop, and a server grouping by container shows its series count.
 *
 * Every process it starts (children, servers, the victim) dies with it:
 * killed and reaped at the end and on errors, PR_SET_PDEATHSIG otherwise.
 * Exits 0 when every figure was measured and every scrape covered every
 * child, 1 otherwise, 2 on bad usage.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "herd.h"
#include "stall.h"
#include "targets.h"

#define KID_COMM "pmaps-srv-kid"
#define MAXREPS 64
#define MAX_SERVERS 4

static char tool[] = PMAPS_TOOL_PATH;
static uint64_t sink;

/* ---- pmaps serve ---- */

struct server {
	pid_t pid;
	int err;   /* its stderr, read until the "listening" line, then drained */
	int port;
};

/* The servers alive, for the exit paths. */
static pid_t servers[MAX_SERVERS];

static void servers_kill(void)
{
	for (int i = 0; i < MAX_SERVERS; i++)
		if (servers[i] > 0) {
			kill(servers[i], SIGKILL);
			waitpid(servers[i], NULL, 0);
			servers[i] = 0;
		}
}

static void on_signal(int sig)
{
	for (int i = 0; i < MAX_SERVERS; i++)
		if (servers[i] > 0)
			kill(servers[i], SIGKILL);
	herd_on_signal(sig);
}

/* Reads what the server wrote on stderr without blocking; returns the bytes read. */
static size_t drain(struct server *s, char *buf, size_t room)
{
	size_t have = 0;
	ssize_t n;

	while (have < room && (n = read(s->err, buf + have, room - have)) > 0)
		have += (size_t)n;
	return have;
}

static void server_stop(struct server *s)
{
	int st;

	if (s->pid <= 0)
		return;
	kill(s->pid, SIGTERM);
	while (waitpid(s->pid, &st, 0) < 0 && errno == EINTR)
		;
	for (int i = 0; i < MAX_SERVERS; i++)
		if (servers[i] == s->pid)
			servers[i] = 0;
	if (WIFEXITED(st) && WEXITSTATUS(st) != 0)
		fprintf(stderr, "pmaps-bench-serve: pmaps serve exited %d\n", WEXITSTATUS(st));
	close(s->err);
	s->pid = -1;
}

/*
 * Starts `pmaps serve --listen 127.0.0.1:0 ARGS...`, reads the port from
 * its "listening on" line and waits for its "ready" line (every selected
 * process read once: /metrics answers 503 before; a build older than the
 * warm-up says none, and is scraped after 30 s). Returns 0, or -1 (said
 * why).
 */
static int server_start(struct server *s, char *const *args)
{
	char *argv[32] = {tool, "serve", "--listen", "127.0.0.1:0"};
	char out[4096] = "", *at;
	size_t have = 0, argc = 4;
	int fds[2], slot = -1;
	pid_t parent = getpid();
	double until = now_ns() + 30e9;

	for (int i = 0; i < MAX_SERVERS; i++)
		if (servers[i] <= 0)
			slot = i;
	for (; args && *args && argc < 31; args++)
		argv[argc++] = *args;
	argv[argc] = NULL;
	if (slot < 0 || pipe2(fds, O_CLOEXEC) < 0)
		return -1;
	s->pid = fork();
	if (s->pid < 0) {
		perror("pmaps-bench-serve: fork");
		return -1;
	}
	if (s->pid == 0) {
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(1);
		if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(fds[1], 2) < 0)
			_exit(127);
		execv(tool, argv);
		_exit(127);
	}
	servers[slot] = s->pid;
	close(fds[1]);
	s->err = fds[0];
	s->port = 0;
	while ((!s->port || !strstr(out, "pmaps serve: ready")) && have < sizeof(out) - 1) {
		struct pollfd p = {.fd = s->err, .events = POLLIN};
		double left = until - now_ns();
		ssize_t n;
		if (left <= 0 || poll(&p, 1, (int)(left / 1e6)) <= 0)
			break;
		n = read(s->err, out + have, sizeof(out) - 1 - have);
		if (n <= 0)
			break;
		have += (size_t)n;
		out[have] = 0;
		at = strstr(out, "listening on http://127.0.0.1:");
		if (!s->port && at && strchr(at, '\n'))
			s->port = atoi(at + strlen("listening on http://127.0.0.1:"));
	}
	out[have] = 0;
	if (!s->port) {
		out[have] = 0;
		fprintf(stderr, "pmaps-bench-serve: %s serve did not say where it listens: %s\n", tool,
		        have ? out : "(nothing)");
		server_stop(s);
		return -1;
	}
	fcntl(s->err, F_SETFL, O_NONBLOCK);
	return 0;
}

struct scrape {
	double ns;          /* connect() to the end of the response */
	size_t bytes;       /* the body */
	double server_s;    /* its pmaps_scrape_duration_seconds */
	double skipped;     /* its pmaps_scrape_processes{outcome="skipped"} */
	int kids;           /* children with a pmaps_process_pss_bytes series */
	char source[16];    /* the first pmaps_process_source_info's source */
	int series;         /* its samples */
	double cgroups;     /* its pmaps_scrape_cgroups{outcome="read"} (-1: none) */
};

static char *resp;
static size_t resp_cap;

static int series(const char *body, const char *prefix);
static int count_lines(const char *body, const char *prefix, const char *needle);

/* The value on the line that starts with PREFIX (a sample's name and labels), or -1. */
static double sample(const char *body, const char *prefix)
{
	size_t len = strlen(prefix);

	for (const char *p = body; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (strncmp(p, prefix, len) == 0 && p[len] == ' ')
			return strtod(p + len + 1, NULL);
	return -1;
}

/* The lines that start with PREFIX and hold NEEDLE. */
static int count_lines(const char *body, const char *prefix, const char *needle)
{
	size_t len = strlen(prefix);
	int n = 0;

	for (const char *p = body; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *e = strchr(p, '\n');
		if (strncmp(p, prefix, len) != 0)
			continue;
		const char *hit = strstr(p, needle);
		if (hit && (!e || hit < e))
			n++;
	}
	return n;
}

/* GET /metrics from S: 0 with OUT filled, or -1 (said why). */
static int scrape(struct server *s, struct scrape *out)
{
	static const char req[] = "GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)s->port)};
	size_t have = 0;
	ssize_t n = 0;
	char *body;
	double t0;
	int fd;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	t0 = now_ns();
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    write(fd, req, sizeof(req) - 1) != (ssize_t)sizeof(req) - 1) {
		perror("pmaps-bench-serve: GET /metrics");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	for (;;) {
		if (resp_cap - have < 65536) {
			char *r = realloc(resp, resp_cap * 2 + 65536 + 1);
			if (!r) {
				close(fd);
				return -1;
			}
			resp = r;
			resp_cap = resp_cap * 2 + 65536;
		}
		n = read(fd, resp + have, resp_cap - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += (size_t)n;
	}
	out->ns = now_ns() - t0;
	close(fd);
	resp[have] = 0;
	{
		char junk[4096];
		drain(s, junk, sizeof(junk));
	}
	body = strstr(resp, "\r\n\r\n");
	if (n < 0 || strncmp(resp, "HTTP/1.", 7) != 0 || strncmp(resp + 8, " 200 ", 5) != 0 ||
	    !body) {
		fprintf(stderr, "pmaps-bench-serve: GET /metrics: %.80s\n", have ? resp : "no answer");
		return -1;
	}
	body += 4;
	out->bytes = have - (size_t)(body - resp);
	out->server_s = sample(body, "pmaps_scrape_duration_seconds");
	out->skipped = sample(body, "pmaps_scrape_processes{outcome=\"skipped\"}");
	out->kids = count_lines(body, "pmaps_process_pss_bytes{", "comm=\"" KID_COMM "\"");
	out->series = series(body, NULL);
	out->cgroups = sample(body, "pmaps_scrape_cgroups{outcome=\"read\"}");
	out->source[0] = 0;
	{
		const char *p = strstr(body, "\npmaps_process_source_info{"), *q;
		const char *e = p ? strchr(p + 1, '\n') : NULL;
		if (p && (q = strstr(p, "source=\"")) && (!e || q < e)) {
			q += strlen("source=\"");
			size_t l = strcspn(q, "\"\n");
			snprintf(out->source, sizeof(out->source), "%.*s", (int)l, q);
		}
	}
	return 0;
}

/* ---- memory cgroups for the children ---- */

/*
 * With --cgroups N (as root, on the v1 memory controller: this machine's and
 * CI's hybrid layout), the children are spread over N cgroups made below this
 * program's own memory cgroup, named as docker names its containers'
 * (docker-ID.scope), and removed at the end: pmaps serve then reads N
 * cgroups and their ancestors, and --group-by container has N groups.
 */
#define V1_MEMORY "/sys/fs/cgroup/memory"
static char cg_own[512];       /* this program's memory cgroup ("/a/b") */
static char cg_base[1024];     /* V1_MEMORY + cg_own + "/pmaps-bench-PID", or "" */
static int cg_n;               /* cgroups made below CG_BASE */

static void cg_dir(int i, char *buf, size_t size)
{
	snprintf(buf, size, "%s/docker-%064x.scope", cg_base, (unsigned)i + 1);
}

/* The cgroups removed (their processes must be gone: the herd is killed first). */
static void cg_cleanup(void)
{
	char d[1200];

	if (!cg_base[0])
		return;
	herd_kill();
	for (int i = 0; i < cg_n; i++) {
		cg_dir(i, d, sizeof(d));
		if (rmdir(d) < 0 && errno != ENOENT)
			fprintf(stderr, "pmaps-bench-serve: rmdir %s: %s\n", d, strerror(errno));
	}
	if (rmdir(cg_base) < 0 && errno != ENOENT)
		fprintf(stderr, "pmaps-bench-serve: rmdir %s: %s\n", cg_base, strerror(errno));
	cg_base[0] = 0;
	cg_n = 0;
}

/* N cgroups, H's children spread over them. Returns 1, 0 when it cannot (said), -1. */
static int cg_setup(const struct herd *h, int n)
{
	char line[1024], d[1200], p[1300];
	FILE *f = fopen("/proc/self/cgroup", "r");

	cg_own[0] = 0;
	while (f && fgets(line, sizeof(line), f)) {
		char *c = strstr(line, ":memory:");
		if (c) {
			snprintf(cg_own, sizeof(cg_own), "%s", c + 8);
			cg_own[strcspn(cg_own, "\n")] = 0;
		}
	}
	if (f)
		fclose(f);
	if (geteuid() != 0 || !cg_own[0] || access(V1_MEMORY "/memory.usage_in_bytes", F_OK) != 0) {
		printf("  (no cgroups: they need root and the v1 memory controller at %s)\n",
		       V1_MEMORY);
		return 0;
	}
	if (strcmp(cg_own, "/") == 0)
		cg_own[0] = 0;
	snprintf(cg_base, sizeof(cg_base), V1_MEMORY "%s/pmaps-bench-%d", cg_own, (int)getpid());
	if (mkdir(cg_base, 0755) < 0) {
		fprintf(stderr, "pmaps-bench-serve: mkdir %s: %s\n", cg_base, strerror(errno));
		cg_base[0] = 0;
		return -1;
	}
	atexit(cg_cleanup);
	for (int i = 0; i < n; i++) {
		cg_dir(i, d, sizeof(d));
		if (mkdir(d, 0755) < 0) {
			fprintf(stderr, "pmaps-bench-serve: mkdir %s: %s\n", d, strerror(errno));
			return -1;
		}
		cg_n = i + 1;
	}
	for (int j = 0; j < h->n; j++) {
		cg_dir(j % n, d, sizeof(d));
		snprintf(p, sizeof(p), "%s/cgroup.procs", d);
		f = fopen(p, "w");
		if (!f || fprintf(f, "%d\n", (int)h->pids[j]) < 0 || fclose(f) != 0) {
			fprintf(stderr, "pmaps-bench-serve: %s: %s\n", p, strerror(errno));
			return -1;
		}
	}
	return 1;
}

/* ---- the bare loop ---- */

static char rawbuf[16 * 1024];

static void read_whole(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return;
	while ((n = read(fd, rawbuf, sizeof(rawbuf))) > 0)
		sink += (uint64_t)n;
	close(fd);
}

/* The files of one v1 memory cgroup that pmaps serve reads (lib/cgroup.c). */
static void read_cgroup_dir(const char *d)
{
	static const char *const files[] = {
		"memory.usage_in_bytes", "memory.max_usage_in_bytes", "memory.limit_in_bytes",
		"memory.failcnt", "memory.kmem.usage_in_bytes", "memory.stat", "memory.oom_control",
	};
	char path[1400];

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", d, files[i]);
		read_whole(path);
	}
}

/*
 * status and FILE (smaps_rollup, or smaps) of every child: opened, read to
 * the end, closed; with cgroups, the files of each and of its ancestors (the
 * root but), and the machine's vmstat and memory pressure.
 */
static double bare_loop(const struct herd *h, const char *file)
{
	double t0 = now_ns();
	char path[1200];

	for (int i = 0; i < h->n; i++) {
		snprintf(path, sizeof(path), "/proc/%d/status", (int)h->pids[i]);
		read_whole(path);
		snprintf(path, sizeof(path), "/proc/%d/%s", (int)h->pids[i], file);
		read_whole(path);
	}
	if (cg_base[0]) {
		for (int i = 0; i < cg_n; i++) {
			cg_dir(i, path, sizeof(path));
			read_cgroup_dir(path);
		}
		read_cgroup_dir(cg_base);
		/* CG_OWN and each of its ancestors below the root */
		for (size_t k = strlen(cg_own); k > 0; k--) {
			if (k < strlen(cg_own) && cg_own[k] != '/')
				continue;
			snprintf(path, sizeof(path), V1_MEMORY "%.*s", (int)k, cg_own);
			read_cgroup_dir(path);
		}
		read_whole("/proc/vmstat");
		read_whole("/proc/pressure/memory");
	}
	return now_ns() - t0;
}

/* Sample lines (not comments) of BODY, and of them those that start with PREFIX. */
static int series(const char *body, const char *prefix)
{
	int n = 0;
	size_t len = prefix ? strlen(prefix) : 0;

	for (const char *p = body; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (*p != '#' && *p != '\n' && (!prefix || strncmp(p, prefix, len) == 0))
			n++;
	return n;
}

/* ---- 1. a scrape of N processes ---- */

enum { OP_BARE, OP_BARE_SMAPS, OP_COLD, OP_STEADY, OP_N };
static const char *const op_names[OP_N] = {
	"bare loop: status + smaps_rollup", "bare loop: status + smaps", "pmaps serve, cold start",
	"pmaps serve, steady scrape",
};

static int bench_scrape(int nprocs, int reps, int ncgroups)
{
	static char *const grouped[] = {"--name", "^" KID_COMM "$", "--min-interval", "0",
	                                "--budget", "1000000", "--group-by", "container", NULL};
	static char *const common[] = {"--name", "^" KID_COMM "$", "--min-interval", "0",
	                               "--budget", "1000000", "--max-age", "3600", NULL};
	double v[OP_N][MAXREPS], srv[OP_N][MAXREPS], bytes[OP_N][MAXREPS], listen_ns[MAXREPS];
	double worst_skipped = 0;
	struct server steady = {.pid = -1}, cold = {.pid = -1};
	struct herd h;
	struct scrape sc;
	int r;
	int fails = 0, short_kids = nprocs;

	if ((r = herd_start_or_skip(&h, nprocs, KID_COMM)) <= 0)
		return r < 0;
	if (ncgroups && cg_setup(&h, ncgroups) < 0) {
		fails++;
		goto out;
	}
	if (server_start(&steady, common) < 0 || scrape(&steady, &sc) < 0) {
		fails++;
		goto out;
	}
	/* Warm up: the caches, and the steady server's first read. */
	bare_loop(&h, "smaps_rollup");
	bare_loop(&h, "smaps");
	scrape(&steady, &sc);
	for (int i = 0; i < reps; i++) {
		for (int k = 0; k < OP_N; k++) {
			int op = i % 2 ? OP_N - 1 - k : k;
			srv[op][i] = bytes[op][i] = 0;
			if (op == OP_BARE || op == OP_BARE_SMAPS) {
				v[op][i] = bare_loop(&h, op == OP_BARE ? "smaps_rollup" : "smaps");
				continue;
			}
			if (op == OP_COLD) {
				double t0 = now_ns();
				if (server_start(&cold, common) < 0) {
					fails++;
					goto out;
				}
				listen_ns[i] = now_ns() - t0;
			}
			if (scrape(op == OP_COLD ? &cold : &steady, &sc) < 0) {
				fails++;
				goto out;
			}
			if (op == OP_COLD)
				server_stop(&cold);
			/* A cold server: from its start, through the warm-up, to its first answer. */
			v[op][i] = sc.ns + (op == OP_COLD ? listen_ns[i] : 0);
			srv[op][i] = sc.server_s * 1e9;
			bytes[op][i] = (double)sc.bytes;
			if (sc.skipped > worst_skipped || sc.skipped < 0)
				worst_skipped = sc.skipped < 0 ? 1e9 : sc.skipped;
			if (sc.kids < short_kids)
				short_kids = sc.kids;
		}
	}

	printf("\n%d processes (the benchmark's children), %d repetitions, %s", h.n, reps,
	       geteuid() == 0 ? "as root" : "unprivileged");
	if (cg_n)
		printf(", in %d memory cgroups (v1; %.0f read by each scrape with their ancestors)",
		       cg_n, sc.cgroups);
	printf("\n");
	printf("  %-34s %10s %7s %13s %10s\n", "operation", "median", "ratio", "server-side",
	       "response");
	double floor = median(v[OP_BARE], reps);
	for (int op = 0; op < OP_N; op++) {
		double med = median(v[op], reps);
		printf("  %-34s %7.2f ms %6.3fx", op_names[op], med / 1e6, med / floor);
		if (op >= OP_COLD)
			printf(" %10.2f ms %7.0f KiB", median(srv[op], reps) / 1e6,
			       median(bytes[op], reps) / 1024);
		printf("\n");
	}
	/* The series of a steady scrape, then of a server grouping by container. */
	if (scrape(&steady, &sc) == 0) {
		const char *body = strstr(resp, "\r\n\r\n");
		int per = count_lines(body, "pmaps_process_", "comm=\"" KID_COMM "\"");
		struct server g = {.pid = -1};
		struct scrape gs;
		printf("  series: %d, of them %d of the children's processes (%.1f a process)",
		       sc.series, per, (double)per / h.n);
		if (cg_n && server_start(&g, grouped) == 0 && scrape(&g, &gs) == 0) {
			body = strstr(resp, "\r\n\r\n");
			printf(";\n  with --group-by container: %d, of them %d of the %d groups' (the "
			       "processes' number does not count)", gs.series, series(body, "pmaps_group_"),
			       series(body, "pmaps_group_processes{"));
		}
		server_stop(&g);
		printf("\n");
	}
	printf("  cold start / bare loop of status + smaps (what a breakdown reads): %.3fx\n",
	       median(v[OP_COLD], reps) / median(v[OP_BARE_SMAPS], reps));
	printf("  (server-side: the scrape's own pmaps_scrape_duration_seconds; of a cold start,\n"
	       "   %.1f ms (median) to the server's \"ready\" line: its start and warm-up)\n",
	       median(listen_ns, reps) / 1e6);
	if (worst_skipped != 0) {
		printf("  FAILED: a scrape skipped processes (pmaps_scrape_processes{outcome=\"skipped\"} "
		       "%s)\n", worst_skipped >= 1e9 ? "absent" : "above 0");
		fails++;
	}
	if (short_kids < h.n) {
		printf("  FAILED: a scrape had the PSS of only %d of the %d children\n", short_kids, h.n);
		fails++;
	}
out:
	server_stop(&cold);
	server_stop(&steady);
	herd_stop(&h);
	cg_cleanup();
	return fails;
}

/* ---- 2. the victim's stall while scraped every second ---- */

struct row {
	const char *name;
	char *const *args; /* pmaps serve's, after --pid VICTIM; NULL: the baseline */
	struct stall_stats st;
	uint64_t scrapes;
	double ms_median;
	int failed;
	char source[16]; /* what serve read the victim from, in the last scrape */
};

static int stall_phase(struct row *r, pid_t victim, double secs)
{
	static double ms[4096];
	char *args[16] = {"--pid", NULL};
	struct server s = {.pid = -1};
	char pid[16];
	struct scrape sc;
	uint64_t t0, end, next;
	int n = 0;

	if (r->args) {
		snprintf(pid, sizeof(pid), "%d", (int)victim);
		args[1] = pid;
		for (int i = 0; i < 12 && r->args[i]; i++)
			args[2 + i] = r->args[i];
		if (server_start(&s, args) < 0) {
			r->failed = 1;
			return 0;
		}
	}
	if (stall_record() < 0) {
		server_stop(&s);
		return -1;
	}
	t0 = next = stall_now_ns();
	end = t0 + (uint64_t)(secs * 1e9);
	while (stall_now_ns() < end) {
		if (!r->args) {
			stall_sleep_ns(10000000);
			continue;
		}
		if (stall_now_ns() >= next) {
			next += 1000000000u;
			if (scrape(&s, &sc) < 0) {
				r->failed = 1;
				break;
			}
			if (n < (int)(sizeof(ms) / sizeof(ms[0])))
				ms[n++] = sc.ns / 1e6;
			r->scrapes++;
			memcpy(r->source, sc.source, sizeof(r->source));
		}
		{
			uint64_t t = stall_now_ns(), wake = next < end ? next : end;
			if (wake > t)
				stall_sleep_ns((long)(wake - t));
		}
	}
	if (stall_stop(&r->st, (double)(stall_now_ns() - t0) / 1e9) < 0) {
		server_stop(&s);
		return -1;
	}
	server_stop(&s);
	r->ms_median = n ? median(ms, n) : 0;
	return 0;
}

static int bench_stall(double secs, long vmas, long mib)
{
	static char *const every[] = {"--min-interval", "0", NULL};
	static char *const defaults[] = {NULL};
	struct row rows[] = {
		{.name = "baseline"},
		{.name = "serve 1/s, min-interval 0", .args = every},
		{.name = "serve 1/s, defaults", .args = defaults},
		{.name = "baseline (end)"},
	};
	const int nrows = (int)(sizeof(rows) / sizeof(rows[0]));
	struct utsname un;
	pid_t victim;
	int fails = 0;

	victim = stall_start(vmas, mib, secs);
	if (victim < 0) {
		stall_end();
		return 1;
	}
	for (int i = 0; i < nrows; i++)
		if (stall_phase(&rows[i], victim, secs) < 0) {
			stall_end();
			return 1;
		}
	stall_end();

	if (uname(&un) < 0)
		snprintf(un.release, sizeof(un.release), "?");
	printf("\nthe victim's mmap()/fault/munmap() of 64 KiB while pmaps serve --pid VICTIM is "
	       "scraped once a second\nvictim: %ld VMAs of 4 pages + %ld MiB resident; %.1f s a "
	       "row; Linux %s, %ld CPUs\nlatencies in us; reads = scrapes, ms/read = a scrape's "
	       "median; x base = mmap p99.9 / the mean of both baselines'\n\n",
	       vmas, mib, secs, un.release, sysconf(_SC_NPROCESSORS_ONLN));
	stall_print_header();
	double base = stall_base_p999_us(&rows[0].st, &rows[nrows - 1].st);
	for (int i = 0; i < nrows; i++) {
		char reads[24] = "-", ms[24] = "-";
		if (rows[i].failed) {
			printf("%-26s failed\n", rows[i].name);
			fails++;
			continue;
		}
		if (rows[i].args) {
			snprintf(reads, sizeof(reads), "%llu", (unsigned long long)rows[i].scrapes);
			snprintf(ms, sizeof(ms), "%.3f", rows[i].ms_median);
		}
		stall_print_row(rows[i].name, reads, ms, &rows[i].st, base);
	}
	for (int i = 0; i < nrows; i++)
		if (rows[i].args && !rows[i].failed)
			printf("(%s: the victim's figures from %s, pmaps_process_source_info of the last "
			       "scrape)\n", rows[i].name, rows[i].source[0] ? rows[i].source : "nowhere");
	return fails;
}

/* The machine's load average (/proc/loadavg's first three fields): how quiet the run was. */
static void print_load(const char *when)
{
	char buf[128] = "";
	int fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	int fields = 0;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return;
	buf[n] = 0;
	for (char *p = buf; *p; p++)
		if (*p == ' ' && ++fields == 3) {
			*p = 0;
			break;
		}
	printf("load average %s: %s\n", when, buf);
}

static void usage(void)
{
	fprintf(stderr, "usage: pmaps-bench-serve [--quick] [--procs N] [--cgroups N] [--reps R] "
	                "[--seconds S] [--vmas N] [--resident-mib M]\n");
}

static int num(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

int main(int argc, char **argv)
{
	long procs = 500, reps = 15, secs = 10, vmas = 20000, mib = 4096, cgroups = 50;
	int fails = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(a, "--quick") == 0) {
			procs = 20, reps = 3, secs = 2, vmas = 1000, mib = 64, cgroups = 4;
		} else if (v && strcmp(a, "--procs") == 0 && num(v, 1, 100000, &procs) == 0) {
			i++;
		} else if (v && strcmp(a, "--cgroups") == 0 && num(v, 0, 10000, &cgroups) == 0) {
			i++;
		} else if (v && strcmp(a, "--reps") == 0 && num(v, 1, MAXREPS, &reps) == 0) {
			i++;
		} else if (v && strcmp(a, "--seconds") == 0 && num(v, 1, 3600, &secs) == 0) {
			i++;
		} else if (v && strcmp(a, "--vmas") == 0 && num(v, 2, 60000, &vmas) == 0) {
			i++;
		} else if (v && strcmp(a, "--resident-mib") == 0 && num(v, 1, 1 << 20, &mib) == 0) {
			i++;
		} else {
			usage();
			return 2;
		}
	}
	herd_guard(on_signal);
	signal(SIGPIPE, SIG_IGN);
	atexit(servers_kill);
	printf("pmaps-bench-serve: GET /metrics of pmaps serve (%s) against a bare loop reading\n"
	       "each selected process's status and smaps_rollup (medians; ratio: to that loop in "
	       "the same run)\n", tool);
	print_load("at the start");
	fails += bench_scrape((int)procs, (int)reps, (int)cgroups);
	fails += bench_stall((double)secs, vmas, mib);
	print_load("at the end");
	free(resp);
	if (fails)
		printf("FAILED\n");
	return fails ? 1 : sink == 42 ? 3 : 0;
}
