/* SPDX-License-Identifier: MIT */
/*
 * cmd_serve.c - `pmaps serve`: its options, checked before anything is
 * opened; then the exporter (serve.c: serve_run()).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "common/num.h"
#include "common/tool.h"
#include "serve/serve.h"

static const char serve_usage[] =
	"Usage: pmaps serve [OPTIONS]\n"
	"\n"
	"Serves the memory of the selected processes over HTTP: /metrics for\n"
	"Prometheus (OpenMetrics when the scraper asks), and a live web page at /\n"
	"with the top table and, for a process, its breakdown by category, its\n"
	"address space and a timeline. Each process is read from the cheapest\n"
	"source that answers: status every refresh, smaps (or a gentle page walk\n"
	"for a large process) only when its figures moved or aged, within a budget.\n"
	"\n"
	"Options:\n"
	"  -l, --listen ADDR:PORT  where to listen (default 127.0.0.1:9743; [::1]:PORT\n"
	"                         for IPv6; port 0 picks a free one). Anything but a\n"
	"                         loopback address shows process names and memory to\n"
	"                         whoever can connect\n"
	"  -p, --pid PID[,PID...]  only these processes (repeatable)\n"
	"  -u, --user USER         only processes of USER (a name or a uid)\n"
	"      --name REGEX        only commands REGEX matches (POSIX extended)\n"
	"      --cgroup PATH       only processes in cgroup PATH or below it (the v2\n"
	"                          path, or the memory controller's on v1)\n"
	"      --all               every process (the default)\n"
	"      --group-by comm|cmdline:REGEX|container|pod|unit\n"
	"                          one series per command name, per what REGEX\n"
	"                          matches in the command line (its first group if it\n"
	"                          has one; processes it does not match are left out),\n"
	"                          or per container ID, pod UID or systemd unit that\n"
	"                          the process's cgroup path names (group=\"\": in\n"
	"                          none), summed, instead of one per process\n"
	"      --budget MS         costly reading per refresh, in milliseconds\n"
	"                          (default 100): what it leaves keeps older figures\n"
	"      --max-age SECS      read each process's breakdown again at least this\n"
	"                          often (default 10)\n"
	"      --min-interval SECS refresh this often while scrapes come, and answer\n"
	"                          from the last refresh (default 5; 0: refresh for\n"
	"                          every request)\n"
	"      --ready-timeout SECS\n"
	"                          at start, read every selected process once (refreshes\n"
	"                          back to back, each within --budget) for at most this\n"
	"                          long before /metrics answers (503 until then; default\n"
	"                          30; 0: answer at once, with what the budget read)\n"
	"      --max-connections N connections held at once (default 256); past it a\n"
	"                          new one evicts the one that has waited longest for\n"
	"                          a request\n"
	"      --timeout SECS      close a connection idle this long, or whose request\n"
	"                          is not whole this long after it began (default 10)\n"
	"      --threads N         threads answering requests (default 4)\n"
	"      --books INTERVAL    every INTERVAL, ask up to --books-max processes whose\n"
	"                          runtime keeps books (Go, the JVM) for them, round\n"
	"                          robin, and export them joined to RSS\n"
	"                          (pmaps_process_books_bytes); off by default: asking\n"
	"                          costs the process a little (a Go program serves its\n"
	"                          MemStats page, a JVM attaches a thread for jcmd)\n"
	"      --books-max N       processes asked each --books interval (default 4)\n"
	"      --books-timeout T   each request for a runtime's books within T (default 2s)\n"
	"      --no-books          ask no runtime for its books in a process's explain (Go's\n"
	"                          MemStats over loopback, the JVM's through jcmd)\n"
	"      --proc-root DIR     read processes from DIR instead of /proc\n"
	"      --cgroup-root DIR   the cgroup mount to read memory cgroups from (default\n"
	"                          /sys/fs/cgroup: a cgroup2 with the memory controller,\n"
	"                          or v1's memory/ below it)\n"
	"      --max-cgroups N     read at most N memory cgroups a refresh (default\n"
	"                          1000): those of the selected processes first, then\n"
	"                          their ancestors, each in path order\n"
	"      --no-cgroups        read no memory cgroup\n"
	"      --allow-host NAME   answer requests that name this server NAME too\n"
	"                          (repeatable; *.example.com for every name under\n"
	"                          it): see Host below\n"
	"  -h, --help              show this help\n"
	"\n"
	"Endpoints: /metrics, /healthz (200 once ready, for probes), / (the web page),\n"
	"/api/processes, /api/process/PID/explain, /api/process/PID/pages,\n"
	"/api/process/PID/pages.svg.\n"
	"GET and HEAD only. SIGINT or SIGTERM stops it.\n"
	"\n"
	"Host: a request must name this server, or a web page could read it through\n"
	"a name of its own that it points at this machine (DNS rebinding). Answered:\n"
	"the address listened on (any address on 0.0.0.0 or [::]), localhost on a\n"
	"loopback address, and the --allow-host names; with the port listened on, or\n"
	"none. Another Host gets 421, an /api/ request from a page of another origin\n"
	"403, and a request without Host (HTTP/1.1) 400.\n";

/*
 * --listen: "ADDR:PORT" (IPv4, or IPv6 in brackets; "localhost" for
 * 127.0.0.1), numeric only: nothing is looked up. Returns 0, or -1.
 */
static int parse_listen(struct serve_opts *o, const char *arg)
{
	const char *colon = strrchr(arg, ':');
	char host[INET6_ADDRSTRLEN + 2];
	size_t hl;
	uint64_t port;

	if (!colon || parse_decimal(colon + 1, 65535, &port) < 0)
		return -1;
	hl = (size_t)(colon - arg);
	if (hl >= sizeof(host))
		return -1;
	memcpy(host, arg, hl);
	host[hl] = '\0';
	memset(&o->addr, 0, sizeof(o->addr));
	if (hl >= 2 && host[0] == '[' && host[hl - 1] == ']') {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&o->addr;
		host[hl - 1] = '\0';
		if (inet_pton(AF_INET6, host + 1, &a->sin6_addr) != 1)
			return -1;
		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		o->addrlen = sizeof(*a);
		o->loopback = IN6_IS_ADDR_LOOPBACK(&a->sin6_addr) ||
		              (IN6_IS_ADDR_V4MAPPED(&a->sin6_addr) && a->sin6_addr.s6_addr[12] == 127);
		return 0;
	}
	{
		struct sockaddr_in *a = (struct sockaddr_in *)&o->addr;
		if (strcmp(host, "localhost") == 0)
			strcpy(host, "127.0.0.1");
		if (inet_pton(AF_INET, host, &a->sin_addr) != 1)
			return -1;
		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)port);
		o->addrlen = sizeof(*a);
		o->loopback = (ntohl(a->sin_addr.s_addr) >> 24) == 127;
	}
	return 0;
}

/* A count above 0 and at most MAX into *OUT; -1 otherwise. */
static int parse_positive(const char *s, uint64_t max, unsigned *out)
{
	uint64_t v;

	if (parse_decimal(s, max, &v) < 0 || v == 0)
		return -1;
	*out = (unsigned)v;
	return 0;
}

int cmd_serve(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"listen", required_argument, NULL, 'l'},
		{"pid", required_argument, NULL, 'p'},
		{"user", required_argument, NULL, 'u'},
		{"name", required_argument, NULL, 'N'},
		{"cgroup", required_argument, NULL, 'G'},
		{"all", no_argument, NULL, 'a'},
		{"group-by", required_argument, NULL, 'g'},
		{"budget", required_argument, NULL, 'B'},
		{"max-age", required_argument, NULL, 'M'},
		{"min-interval", required_argument, NULL, 'I'},
		{"ready-timeout", required_argument, NULL, 'W'},
		{"max-connections", required_argument, NULL, 'c'},
		{"timeout", required_argument, NULL, 'T'},
		{"threads", required_argument, NULL, 't'},
		{"proc-root", required_argument, NULL, 'R'},
		{"cgroup-root", required_argument, NULL, 'C'},
		{"max-cgroups", required_argument, NULL, 'X'},
		{"no-cgroups", no_argument, NULL, 'O'},
		{"books", required_argument, NULL, 'K'},
		{"books-max", required_argument, NULL, 'k'},
		{"allow-host", required_argument, NULL, 'H'},
		BOOKS_LONGOPTS_EXPLAIN,
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	static const char shortopts[] = "l:p:u:h";
	static struct serve sv; /* the daemon's threads use it until it stops */
	const char *name = NULL, *group = NULL, *listen = NULL;
	int ch, rc, all = 0;
	uint64_t ns;

	memset(&sv, 0, sizeof(sv));
	top_opts_init(&sv.o.top);
	sv.o.top.sort = COL_PID;
	sv.o.top.breakdown = 1;
	sv.o.top.faults = 1; /* the page faults and start time, from stat, */
	sv.o.top.faults_aged = 1; /* read with status: kept rows keep them, up to --max-age */
	sv.o.top.oom = 1;
	sv.o.top.cmd = "serve";
	sv.o.min_interval_ns = 5000000000u;
	sv.o.ready_timeout_ns = 30000000000u;
	sv.o.max_connections = 256;
	sv.o.timeout_s = 10;
	sv.o.threads = 4;
	sv.o.max_request = 16384;
	sv.o.max_cgroups = 1000;
	sv.o.books_max = 4;
	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		rc = top_option(&sv.o.top, ch, optarg, &name);
		if (rc == EXIT_USAGE)
			return rc;
		if (rc == 1)
			continue;
		switch (ch) {
		case 'l':
			if (listen)
				return top_once_only("--listen", "one address");
			listen = optarg;
			break;
		case 'a': all = 1; break;
		case 'g':
			if (group)
				return top_once_only("--group-by", "one grouping: comm, cmdline:REGEX, "
				                     "container, pod or unit");
			group = optarg;
			break;
		case 'B':
			if (parse_time(optarg, 1000000u, &ns) < 0 || ns == 0) {
				die_msg("--budget takes milliseconds above 0 (100, 50ms, 1s), not '%s'",
				        optarg);
				return EXIT_USAGE;
			}
			sv.o.top.budget_ns = ns;
			break;
		case 'I':
			if (parse_time(optarg, 1000000000u, &ns) < 0) {
				die_msg("--min-interval takes seconds (5, 500ms, 0), not '%s'", optarg);
				return EXIT_USAGE;
			}
			sv.o.min_interval_ns = ns;
			break;
		case 'W':
			if (parse_time(optarg, 1000000000u, &ns) < 0 || ns / 1000000000u > 86400) {
				die_msg("--ready-timeout takes seconds up to 86400 (30, 500ms, 0), not '%s'",
				        optarg);
				return EXIT_USAGE;
			}
			sv.o.ready_timeout_ns = ns;
			break;
		case 'c':
			if (parse_positive(optarg, 65536, &sv.o.max_connections) < 0) {
				die_msg("--max-connections takes a number from 1 to 65536, not '%s'", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'T':
			if (parse_time(optarg, 1000000000u, &ns) < 0 || ns < 1000000000u ||
			    ns / 1000000000u > 86400) {
				die_msg("--timeout takes whole seconds from 1 to 86400 (10, 1m), not '%s'",
				        optarg);
				return EXIT_USAGE;
			}
			sv.o.timeout_s = (unsigned)(ns / 1000000000u);
			break;
		case 't':
			if (parse_positive(optarg, 64, &sv.o.threads) < 0) {
				die_msg("--threads takes a number from 1 to 64, not '%s'", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'R': sv.o.top.root = optarg; break;
		case 'C': sv.o.cgroup_root = optarg; break;
		case 'X':
			if (parse_positive(optarg, 100000, &sv.o.max_cgroups) < 0) {
				die_msg("--max-cgroups takes a number from 1 to 100000, not '%s'", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'O': sv.o.no_cgroups = 1; break;
		case 'K':
			if (parse_time(optarg, 1000000000u, &ns) < 0 || ns < 100000000u ||
			    ns / 1000000000u > 86400) {
				die_msg("--books takes an interval from 100ms to 86400 seconds (30, 1m, "
				        "500ms), not '%s'", optarg);
				return EXIT_USAGE;
			}
			sv.o.books_interval_ns = ns;
			break;
		case 'k':
			if (parse_positive(optarg, 1000, &sv.o.books_max) < 0) {
				die_msg("--books-max takes a number from 1 to 1000, not '%s'", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'H':
			if (!serve_allow_name_ok(optarg)) {
				die_msg("--allow-host takes a host name (letters, digits, '-', '.' and "
				        "'_'), or *. and one, not '%s'", optarg);
				return EXIT_USAGE;
			}
			if (sv.o.nallow == SERVE_ALLOW_MAX) {
				die_msg("--allow-host: at most %d names (*.example.com names every "
				        "name under it)", SERVE_ALLOW_MAX);
				return EXIT_USAGE;
			}
			sv.o.allow_hosts[sv.o.nallow++] = optarg;
			break;
		case 'h': return print_usage(serve_usage);
		default: return option_error("serve", argv, shortopts, longopts);
		}
	}
	if (optind != argc) {
		die_msg("serve takes no arguments, not '%s' (see pmaps serve --help; --pid PID for "
		        "one process)", argv[optind]);
		return EXIT_USAGE;
	}
	if (all && (sv.o.top.npids || sv.o.top.have_uid || name || sv.o.top.cgroup)) {
		die_msg("--all is every process: --pid, --user, --name and --cgroup choose some");
		return EXIT_USAGE;
	}
	sv.o.listen = listen ? listen : "127.0.0.1:9743";
	if (parse_listen(&sv.o, sv.o.listen) < 0) {
		die_msg("--listen takes ADDR:PORT with a numeric address or localhost "
		        "(127.0.0.1:9743, [::1]:9743, localhost:9743, 0.0.0.0:9743), not '%s'",
		        sv.o.listen);
		return EXIT_USAGE;
	}
	if (group) {
		if (strcmp(group, "comm") == 0) {
			sv.o.group_by = SERVE_BY_COMM;
		} else if (strncmp(group, "cmdline:", 8) == 0 && group[8]) {
			int e = regcomp(&sv.o.cmdline, group + 8, REG_EXTENDED);
			if (e) {
				char err[256];
				regerror(e, &sv.o.cmdline, err, sizeof(err));
				die_msg("--group-by: '%s' is no regular expression: %s", group + 8, err);
				return EXIT_USAGE;
			}
			sv.o.group_by = SERVE_BY_CMDLINE;
		} else if (strcmp(group, "container") == 0) {
			sv.o.group_by = SERVE_BY_CONTAINER;
		} else if (strcmp(group, "pod") == 0) {
			sv.o.group_by = SERVE_BY_POD;
		} else if (strcmp(group, "unit") == 0) {
			sv.o.group_by = SERVE_BY_UNIT;
		} else {
			die_msg("--group-by takes comm, cmdline:REGEX, container, pod or unit, not '%s'",
			        group);
			return EXIT_USAGE;
		}
	}
	if (sv.o.books_interval_ns && sv.o.top.books.off) {
		die_msg("--books asks the runtimes for their books, --no-books asks none: one of them");
		return EXIT_USAGE;
	}
	if (sv.o.books_interval_ns && sv.o.group_by != SERVE_BY_PID) {
		die_msg("--books exports each process's books: not with --group-by, whose series "
		        "are groups'");
		return EXIT_USAGE;
	}
	if (sv.o.no_cgroups && sv.o.cgroup_root) {
		die_msg("--no-cgroups reads no cgroup: --cgroup-root names where to read them");
		return EXIT_USAGE;
	}
	if (sv.o.no_cgroups && sv.o.group_by >= SERVE_BY_CONTAINER) {
		die_msg("--no-cgroups reads no cgroup: --group-by %s groups by the cgroup path", group);
		return EXIT_USAGE;
	}
	/* The processes' cgroup paths: the memory cgroups, and the groups by container. */
	if (!sv.o.no_cgroups)
		sv.o.top.cgroups = 1;
	sv.top.o = sv.o.top;
	if (name) {
		char err[256];
		if (top_set_name(&sv.top, name, err, sizeof(err)) < 0) {
			die_msg("--name: '%s' is no regular expression: %s", name, err);
			if (sv.o.group_by == SERVE_BY_CMDLINE)
				regfree(&sv.o.cmdline);
			return EXIT_USAGE;
		}
	}
#if PMAPS_WITH_SERVE
	return serve_run(&sv);
#else
	/* The options were right; the exporter is not in this build. */
	die_msg("serve: this pmaps was built without it (PMAPS_WITH_SERVE=OFF: no libmicrohttpd)");
	if (sv.o.group_by == SERVE_BY_CMDLINE)
		regfree(&sv.o.cmdline);
	top_done(&sv.top);
	return EXIT_FAIL;
#endif
}
