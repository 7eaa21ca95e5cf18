/* SPDX-License-Identifier: MIT */
/*
 * serve_host.c - the Host and Origin a request to pmaps serve may name
 * (serve_host.h). Plain functions of the header's bytes and the listener:
 * nothing is looked up, so a rebinding resolver has no say.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>

#include "serve/serve_host.h"

/* A byte of a DNS name as a Host may carry it (the underscore: names in the wild). */
static int name_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '.' || c == '_';
}

int serve_allow_name_ok(const char *name)
{
	size_t n;

	if (strncmp(name, "*.", 2) == 0)
		name += 2;
	n = strlen(name);
	if (n == 0 || n > SERVE_NAME_MAX || name[0] == '.' || name[0] == '-')
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!name_byte((unsigned char)name[i]) || (name[i] == '.' && name[i + 1] == '.'))
			return 0;
	return 1;
}

/* NAME (LEN bytes, no trailing dot) is an --allow-host name, or under a *.SUFFIX one. */
static int allowed_name(const struct serve_hosts *hs, const char *name, size_t len)
{
	for (unsigned i = 0; i < hs->nnames; i++) {
		const char *a = hs->names[i];
		size_t al = strlen(a);
		if (al > 0 && a[al - 1] == '.')
			al--;
		if (strncmp(a, "*.", 2) == 0) {
			/* "*.example.com": "x.example.com" and below, not "example.com" itself */
			size_t sl = al - 1; /* ".example.com" */
			if (len > sl && strncasecmp(name + len - sl, a + 1, sl) == 0)
				return 1;
		} else if (len == al && strncasecmp(name, a, al) == 0) {
			return 1;
		}
	}
	return 0;
}

/* ":PORT" (1 to 65535, digits only) at P up to END into *PORT; 0, or -1. */
static int parse_port(const char *p, const char *end, unsigned *port)
{
	unsigned v = 0;

	if (p == end || *p != ':' || ++p == end || end - p > 5)
		return -1;
	for (; p < end; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		v = v * 10 + (unsigned)(*p - '0');
	}
	if (v == 0 || v > 65535)
		return -1;
	*port = v;
	return 0;
}

static int same_v4(const struct serve_hosts *hs, const struct in_addr *a)
{
	const struct sockaddr_in *l = (const struct sockaddr_in *)&hs->addr;

	return hs->addr.ss_family == AF_INET && l->sin_addr.s_addr == a->s_addr;
}

static int same_v6(const struct serve_hosts *hs, const struct in6_addr *a)
{
	const struct sockaddr_in6 *l = (const struct sockaddr_in6 *)&hs->addr;

	return hs->addr.ss_family == AF_INET6 && memcmp(&l->sin6_addr, a, sizeof(*a)) == 0;
}

/* HOST[:PORT] of LEN bytes at S (a Host, or an Origin's after its scheme). */
static enum serve_host_verdict check(const struct serve_hosts *hs, const char *s, size_t len)
{
	const char *end = s + len, *name = s, *name_end, *colon = NULL;
	char lit[INET6_ADDRSTRLEN];
	unsigned port = 0;
	int has_port, named;
	size_t n;

	if (len == 0 || len > SERVE_NAME_MAX + 8)
		return SERVE_HOST_BAD;
	if (s[0] == '[') {
		/* An IPv6 literal. */
		const char *close = memchr(s, ']', len);
		struct in6_addr a6;
		if (!close || (size_t)(close - s - 1) >= sizeof(lit))
			return SERVE_HOST_BAD;
		memcpy(lit, s + 1, (size_t)(close - s - 1));
		lit[close - s - 1] = '\0';
		if (inet_pton(AF_INET6, lit, &a6) != 1)
			return SERVE_HOST_BAD;
		has_port = close + 1 < end;
		if (has_port && parse_port(close + 1, end, &port) < 0)
			return SERVE_HOST_BAD;
		if (has_port && port != hs->port)
			return SERVE_HOST_OTHER;
		return hs->wildcard || same_v6(hs, &a6) ? SERVE_HOST_OK : SERVE_HOST_OTHER;
	}
	for (const char *p = s; p < end; p++)
		if (*p == ':') {
			if (colon)
				return SERVE_HOST_BAD; /* an IPv6 literal must be in brackets */
			colon = p;
		}
	name_end = colon ? colon : end;
	has_port = colon != NULL;
	if (has_port && parse_port(colon, end, &port) < 0)
		return SERVE_HOST_BAD;
	n = (size_t)(name_end - name);
	if (n > 1 && name[n - 1] == '.')
		n--; /* "localhost." is localhost */
	if (n == 0 || name[0] == '.')
		return SERVE_HOST_BAD;
	for (size_t i = 0; i < n; i++)
		if (!name_byte((unsigned char)name[i]))
			return SERVE_HOST_BAD;
	if (n < sizeof(lit)) {
		struct in_addr a4;
		memcpy(lit, name, n);
		lit[n] = '\0';
		if (inet_pton(AF_INET, lit, &a4) == 1) {
			if (has_port && port != hs->port)
				return SERVE_HOST_OTHER;
			return hs->wildcard || same_v4(hs, &a4) ? SERVE_HOST_OK : SERVE_HOST_OTHER;
		}
	}
	named = allowed_name(hs, name, n);
	if (has_port && port != hs->port && !named)
		return SERVE_HOST_OTHER;
	if (named)
		return SERVE_HOST_OK;
	if (n == 9 && strncasecmp(name, "localhost", 9) == 0 && (hs->loopback || hs->wildcard))
		return SERVE_HOST_OK;
	return SERVE_HOST_OTHER;
}

enum serve_host_verdict serve_host_check(const struct serve_hosts *hs, const char *host)
{
	return check(hs, host, strlen(host));
}

enum serve_host_verdict serve_origin_check(const struct serve_hosts *hs, const char *origin)
{
	size_t skip;

	if (strcmp(origin, "null") == 0)
		return SERVE_HOST_OTHER; /* a sandboxed page, a file, a redirect: no one of ours */
	if (strncasecmp(origin, "http://", 7) == 0)
		skip = 7;
	else if (strncasecmp(origin, "https://", 8) == 0)
		skip = 8;
	else
		return SERVE_HOST_BAD;
	/* An origin has no path; "http://host/" is not one either. */
	if (strchr(origin + skip, '/'))
		return SERVE_HOST_BAD;
	return check(hs, origin + skip, strlen(origin + skip));
}
