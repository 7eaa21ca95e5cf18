/* SPDX-License-Identifier: MIT */
/*
 * serve_host.h - the Host and Origin a request to pmaps serve may name.
 *
 * A page on any web site can have a browser send requests to serve: once
 * its name resolves to 127.0.0.1 (DNS rebinding), its requests are
 * same-origin and it reads the answers. They still carry its name in Host
 * (and, from scripts, Origin): serve answers only requests that name it.
 */
#ifndef PMAPS_SERVE_HOST_H
#define PMAPS_SERVE_HOST_H

#include <sys/socket.h>

/* --allow-host: how many names, and how long one may be (a DNS name's bound). */
#define SERVE_ALLOW_MAX 64
#define SERVE_NAME_MAX 253

/* What a listener answers to. */
struct serve_hosts {
	struct sockaddr_storage addr; /* the address it listens on (its port: PORT) */
	unsigned port;                /* the port it is bound to */
	int loopback;                 /* ADDR is a loopback address */
	int wildcard;                 /* ADDR is 0.0.0.0 or [::]: every address of the machine */
	const char *const *names;     /* --allow-host: a name, or *.SUFFIX for those under it */
	unsigned nnames;
};

/* serve_host_check() and serve_origin_check() */
enum serve_host_verdict {
	SERVE_HOST_OK,     /* the request names this server */
	SERVE_HOST_OTHER,  /* it names another: 421 (Host) or 403 (Origin) */
	SERVE_HOST_BAD,    /* not a Host or Origin at all: 400 */
};

/*
 * HOST, a Host header's value: an address literal ([v6] in brackets) or a
 * name, then :PORT or nothing. Allowed: the address listened on (any
 * address literal on a wildcard listener: a literal cannot be rebound),
 * "localhost" on a loopback or wildcard listener, and the --allow-host
 * names; a port, when given, must be the listener's, except with an
 * --allow-host name (a proxy in front may serve it on a port of its own).
 */
enum serve_host_verdict serve_host_check(const struct serve_hosts *hs, const char *host);

/* ORIGIN, an Origin header's value ("null", or http(s)://HOST[:PORT]), by the same rules. */
enum serve_host_verdict serve_origin_check(const struct serve_hosts *hs, const char *origin);

/* Whether NAME may be given to --allow-host: a DNS name, or *. and one. */
int serve_allow_name_ok(const char *name);

#endif
