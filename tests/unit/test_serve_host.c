/* SPDX-License-Identifier: MIT */
/*
 * test_serve_host.c - which Host and Origin pmaps serve answers to
 * (src/serve/serve_host.c), for each kind of listener: loopback, a
 * wildcard, one address of the machine, IPv6; with --allow-host names.
 * Every verdict is the table's; a wrong one prints the listener, the
 * header and both verdicts.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "serve/serve_host.h"

enum { OK = SERVE_HOST_OK, OTHER = SERVE_HOST_OTHER, BAD = SERVE_HOST_BAD };

static struct serve_hosts listener(const char *addr, unsigned port, const char *const *names,
                                   unsigned nnames)
{
	struct serve_hosts hs;

	memset(&hs, 0, sizeof(hs));
	if (strchr(addr, ':')) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&hs.addr;
		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		assert_int_equal(inet_pton(AF_INET6, addr, &a->sin6_addr), 1);
		hs.loopback = IN6_IS_ADDR_LOOPBACK(&a->sin6_addr);
		hs.wildcard = IN6_IS_ADDR_UNSPECIFIED(&a->sin6_addr);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)&hs.addr;
		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)port);
		assert_int_equal(inet_pton(AF_INET, addr, &a->sin_addr), 1);
		hs.loopback = (ntohl(a->sin_addr.s_addr) >> 24) == 127;
		hs.wildcard = a->sin_addr.s_addr == htonl(INADDR_ANY);
	}
	hs.port = port;
	hs.names = names;
	hs.nnames = nnames;
	return hs;
}

struct want {
	const char *header;
	int verdict;
};

static void check_hosts(const char *addr, const struct serve_hosts *hs, const struct want *w,
                        size_t n, int origin)
{
	int bad = 0;

	for (size_t i = 0; i < n; i++) {
		int got = origin ? (int)serve_origin_check(hs, w[i].header)
		                 : (int)serve_host_check(hs, w[i].header);
		if (got != w[i].verdict) {
			printf("listener %s:%u, %s '%s': got %d, want %d (0 ok, 1 other, 2 bad)\n", addr,
			       hs->port, origin ? "Origin" : "Host", w[i].header, got, w[i].verdict);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

/* 127.0.0.1:9743, the default: its address, localhost, nothing else. */
static void test_loopback(void **state)
{
	static const struct want w[] = {
		{"127.0.0.1:9743", OK}, {"127.0.0.1", OK}, {"localhost:9743", OK},
		{"localhost", OK}, {"LocalHost:9743", OK}, {"localhost.:9743", OK},
		/* DNS rebinding: a name of the attacker's, whatever it resolves to */
		{"evil.example", OTHER}, {"evil.example:9743", OTHER}, {"localhost.evil.example", OTHER},
		{"127.0.0.1.nip.io:9743", OTHER},
		/* another port, another address */
		{"127.0.0.1:80", OTHER}, {"localhost:9744", OTHER}, {"127.0.0.2:9743", OTHER},
		{"[::1]:9743", OTHER}, {"10.0.0.1:9743", OTHER},
		/* not a host[:port] */
		{"", BAD}, {":9743", BAD}, {"127.0.0.1:", BAD}, {"127.0.0.1:0", BAD},
		{"127.0.0.1:65536", BAD}, {"127.0.0.1:97430", BAD}, {"127.0.0.1:+9743", BAD},
		{"::1", BAD}, {"[::1", BAD}, {"[::1]9743", BAD}, {"[zz]:9743", BAD},
		{"a b", BAD}, {"a/b", BAD}, {"a@b", BAD}, {"a\x01" "b", BAD}, {".", BAD},
		{".localhost", BAD}, {"host\xc3\xa9", BAD},
	};
	struct serve_hosts hs = listener("127.0.0.1", 9743, NULL, 0);
	(void)state;
	check_hosts("127.0.0.1", &hs, w, sizeof(w) / sizeof(w[0]), 0);
}

/* 0.0.0.0: any address literal of the machine's (a literal cannot be rebound). */
static void test_wildcard(void **state)
{
	static const struct want w[] = {
		{"10.1.2.3:9743", OK}, {"192.168.0.7", OK}, {"127.0.0.1:9743", OK},
		{"[fe80::1]:9743", OK}, {"localhost:9743", OK},
		{"node1.example:9743", OTHER}, {"10.1.2.3:9744", OTHER},
	};
	struct serve_hosts hs = listener("0.0.0.0", 9743, NULL, 0);
	(void)state;
	check_hosts("0.0.0.0", &hs, w, sizeof(w) / sizeof(w[0]), 0);
}

/* One address of the machine: that one only; no localhost (it is not listened on). */
static void test_one_address(void **state)
{
	static const struct want w[] = {
		{"10.1.2.3:9743", OK}, {"10.1.2.3", OK},
		{"10.1.2.4:9743", OTHER}, {"127.0.0.1:9743", OTHER}, {"localhost:9743", OTHER},
	};
	struct serve_hosts hs = listener("10.1.2.3", 9743, NULL, 0);
	(void)state;
	check_hosts("10.1.2.3", &hs, w, sizeof(w) / sizeof(w[0]), 0);
}

static void test_ipv6(void **state)
{
	static const struct want w[] = {
		{"[::1]:9743", OK}, {"[::1]", OK}, {"[0:0:0:0:0:0:0:1]:9743", OK},
		{"localhost:9743", OK}, {"127.0.0.1:9743", OTHER}, {"[::2]:9743", OTHER},
		{"[::1]:9744", OTHER},
	};
	struct serve_hosts hs = listener("::1", 9743, NULL, 0);
	(void)state;
	check_hosts("::1", &hs, w, sizeof(w) / sizeof(w[0]), 0);
}

/* --allow-host: names, *.SUFFIX, any port (a proxy in front has its own). */
static void test_allowed_names(void **state)
{
	static const char *const names[] = {"pmaps.internal", "*.nodes.example.com", "proxy.example."};
	static const struct want w[] = {
		{"pmaps.internal", OK}, {"pmaps.internal:9743", OK}, {"PMAPS.INTERNAL:443", OK},
		{"pmaps.internal.", OK}, {"a.nodes.example.com:9743", OK},
		{"a.b.nodes.example.com", OK}, {"proxy.example", OK},
		{"nodes.example.com", OTHER}, {"evilnodes.example.com", OTHER},
		{"pmaps.internal.evil", OTHER}, {"xpmaps.internal", OTHER},
		{"127.0.0.1:9743", OK}, {"localhost:9743", OK},
	};
	struct serve_hosts hs = listener("127.0.0.1", 9743, names, 3);
	(void)state;
	check_hosts("127.0.0.1", &hs, w, sizeof(w) / sizeof(w[0]), 0);
}

/* Origin: the page's own, the same rules; "null" and anything else are not ours. */
static void test_origin(void **state)
{
	static const char *const names[] = {"pmaps.internal"};
	static const struct want w[] = {
		{"http://127.0.0.1:9743", OK}, {"http://localhost:9743", OK},
		{"https://pmaps.internal", OK}, {"HTTP://127.0.0.1:9743", OK},
		{"http://evil.example", OTHER}, {"http://evil.example:9743", OTHER},
		{"null", OTHER}, {"http://127.0.0.1:8080", OTHER},
		{"http://127.0.0.1:9743/", BAD}, {"ftp://127.0.0.1:9743", BAD},
		{"127.0.0.1:9743", BAD}, {"", BAD}, {"http://", BAD},
	};
	struct serve_hosts hs = listener("127.0.0.1", 9743, names, 1);
	(void)state;
	check_hosts("127.0.0.1", &hs, w, sizeof(w) / sizeof(w[0]), 1);
}

static void test_allow_names(void **state)
{
	static const struct {
		const char *name;
		int ok;
	} w[] = {
		{"pmaps.internal", 1}, {"*.example.com", 1}, {"node-1", 1}, {"a_b.example", 1},
		{"10.0.0.1", 1}, {"", 0}, {"*.", 0}, {"*", 0}, {"a..b", 0}, {".a", 0},
		{"-a", 0}, {"a b", 0}, {"a:1", 0}, {"[::1]", 0}, {"*.*.example.com", 0},
		{"ex*ample", 0},
	};
	(void)state;
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		if (serve_allow_name_ok(w[i].name) != w[i].ok)
			fail_msg("--allow-host '%s': got %d, want %d", w[i].name,
			         serve_allow_name_ok(w[i].name), w[i].ok);
	{
		char longname[SERVE_NAME_MAX + 2];
		memset(longname, 'a', sizeof(longname) - 1);
		longname[sizeof(longname) - 1] = '\0';
		assert_int_equal(serve_allow_name_ok(longname), 0);
		longname[SERVE_NAME_MAX] = '\0';
		assert_int_equal(serve_allow_name_ok(longname), 1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loopback),      cmocka_unit_test(test_wildcard),
		cmocka_unit_test(test_one_address),   cmocka_unit_test(test_ipv6),
		cmocka_unit_test(test_allowed_names), cmocka_unit_test(test_origin),
		cmocka_unit_test(test_allow_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
