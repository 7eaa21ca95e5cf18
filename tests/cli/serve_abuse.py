#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""pmaps serve's HTTP daemon (src/serve_http.c) against clients that misbehave.

    serve_abuse.py PMAPS

Everything on loopback, with Python's socket and http.client as the
clients (no proxy is consulted); two short-lived servers listen on 0.0.0.0
for what only a non-loopback address does, and only this test connects.
One server, started with --timeout 2s and watching only this test's own
process, takes: the methods it refuses, heads and URLs past its bounds,
malformed requests, 200 connections at once, 20 slow clients (cut when
their request heads are not complete after --timeout, although they never
fall idle) while a scrape answers, clients that vanish mid-response, and
an idle connection; it must answer a normal GET /metrics after each, say
nothing on stderr about any of it (routine client errors are not the
operator's business) and exit 0 on SIGTERM (under ASan: with no leak
reported). Then, each with its own server: --max-connections held to (its
sockets counted at rest), slow clients at the connection limit, the cap of
reply bytes waiting for clients that do not read (made small for the test:
PMAPS_SERVE_INFLIGHT_CAP), the per-address limit on a non-loopback
address, running out of file descriptors (said once, with the way out),
SIGTERM with 30 connections open, the listen errors (a port in use, an
address not of this machine, a privileged port), IPv6 with SIGINT, and the
warning for a non-loopback address.

What libmicrohttpd 0.9.75 does with what is too large, as checked here:
headers beyond the connection's memory pool (16 KiB for the request plus
2 KiB for the reply's own headers) get 431, a request line beyond it 414,
and a body is never read (a GET with one is answered at once and the
connection closed after the reply).
"""
import http.client
import os
import re
import resource
import signal
import socket
import struct
import subprocess
import sys
import threading
import time

PMAPS = sys.argv[1]
TIMEOUT_S = 2  # the main server's --timeout
LISTEN_RE = re.compile(r"^pmaps serve: listening on http://(\[[0-9a-f:]+\]|[0-9.]+):(\d+)/$")
# After it, once every selected process has been read (the warm-up).
READY_RE = re.compile(r"^pmaps serve: ready: \d+ process(es)? read in [0-9.]+ s \(\d+ refresh(es)?\)$")


def start_line(line):
    """What serve says at start: where it listens, and that it is ready."""
    return LISTEN_RE.match(line) or READY_RE.match(line)
PAGE_CSP = ("default-src 'none'; script-src 'unsafe-inline' 'self'; style-src 'unsafe-inline'; "
            "img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; "
            "frame-ancestors 'none'")
DATA_CSP = "default-src 'none'; frame-ancestors 'none'"
METRICS_TYPE = "text/plain; version=0.0.4; charset=utf-8"
passed = failed = 0


def ok(name, cond, got=None, want=None):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print(f"FAIL: {name}: got {got!r}, want {want!r}", flush=True)


def eq(name, got, want):
    ok(name, got == want, got, want)


class Server:
    """pmaps serve, its stderr read line by line by a thread."""

    def __init__(self, *args, listen="127.0.0.1:0", wait_listening=True, nofile=None, env=None, pid=None):
        self.args = ["serve", "--listen", listen, "--pid", str(pid or os.getpid()), "--min-interval", "1s"]
        self.args += list(args)
        limit = (lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))) if nofile else None
        self.proc = subprocess.Popen([PMAPS] + self.args, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     preexec_fn=limit, env=env)
        self.lines, self.cv, self.done = [], threading.Condition(), False
        threading.Thread(target=self._read, daemon=True).start()
        self.host = self.port = None
        if wait_listening:
            line = self.wait_line(lambda l: LISTEN_RE.match(l), 30)
            if not line:
                self.kill()
                raise RuntimeError(f"pmaps {' '.join(self.args)}: no listening line: {self.lines!r}")
            m = LISTEN_RE.match(line)
            self.host, self.port = m.group(1).strip("[]"), int(m.group(2))
            # /metrics answers 503 until every selected process has been read once.
            if not self.wait_line(lambda l: READY_RE.match(l), 30):
                self.kill()
                raise RuntimeError(f"pmaps {' '.join(self.args)}: no ready line: {self.lines!r}")

    def _read(self):
        for raw in self.proc.stderr:
            with self.cv:
                self.lines.append(raw.decode("utf-8", "replace").rstrip("\n"))
                self.cv.notify_all()
        with self.cv:
            self.done = True
            self.cv.notify_all()

    def wait_line(self, pred, timeout):
        """The first stderr line PRED accepts, waiting up to TIMEOUT s; None at EOF or timeout."""
        end = time.monotonic() + timeout
        with self.cv:
            while True:
                for line in self.lines:
                    if pred(line):
                        return line
                left = end - time.monotonic()
                if self.done or left <= 0:
                    return None
                self.cv.wait(left)

    def stderr_lines(self):
        with self.cv:
            while not self.done:
                self.cv.wait(5)
            return list(self.lines)

    def alive(self):
        return self.proc.poll() is None

    def stop(self, sig=signal.SIGTERM):
        """Sends SIG; returns (exit code, seconds it took), or (None, s) when it would not stop."""
        t0 = time.monotonic()
        self.proc.send_signal(sig)
        try:
            rc = self.proc.wait(10)
        except subprocess.TimeoutExpired:
            rc = None
        return rc, time.monotonic() - t0

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


def request(srv, method, path, headers=None, body=None, timeout=10, conn=None):
    """One request with http.client: (status, {lower-case header: value}, body)."""
    c = conn or http.client.HTTPConnection(srv.host, srv.port, timeout=timeout)
    c.request(method, path, body=body, headers=headers or {})
    r = c.getresponse()
    data = r.read()
    hdrs = {k.lower(): v for k, v in r.getheaders()}
    if not conn:
        c.close()
    return r.status, hdrs, data


def connect(srv, timeout):
    family = socket.AF_INET6 if ":" in srv.host else socket.AF_INET
    s = socket.socket(family, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect((srv.host, srv.port))
    return s


def raw(srv, data, timeout=10):
    """Sends DATA (as much as the server takes) and reads until the server closes.

    Returns (bytes received, how it ended: "eof", "reset" or "timeout")."""
    s = connect(srv, timeout)
    out, end = b"", "eof"
    try:
        try:
            s.sendall(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server answered (or closed) before taking it all
        while True:
            d = s.recv(65536)
            if not d:
                break
            out += d
    except ConnectionResetError:
        end = "reset"
    except socket.timeout:
        end = "timeout"
    finally:
        s.close()
    return out, end


def status_of(data):
    m = re.match(rb"HTTP/1\.[01] (\d{3}) ", data)
    return int(m.group(1)) if m else None


def split_head(data):
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    hdrs = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        hdrs[k.strip().lower()] = v.strip()
    return lines[0], hdrs, body


def still_answers(srv, what):
    """After WHAT: the process runs and a normal scrape answers 200 in time."""
    ok(f"{what}: pmaps serve still runs", srv.alive(), srv.proc.returncode, None)
    t0 = time.monotonic()
    try:
        st = request(srv, "GET", "/metrics", timeout=5)[0]
    except OSError as e:
        st = repr(e)
    eq(f"{what}: GET /metrics after it", st, 200)
    dt = time.monotonic() - t0
    ok(f"{what}: GET /metrics after it answers within 5 s", dt < 5, f"{dt:.2f} s", "< 5 s")


def test_basics(srv):
    st, get, body = request(srv, "GET", "/metrics")
    eq("GET /metrics: status", st, 200)
    eq("GET /metrics: Content-Type", get.get("content-type"), METRICS_TYPE)
    eq("GET /metrics: Cache-Control", get.get("cache-control"), "no-store")
    eq("GET /metrics: X-Content-Type-Options", get.get("x-content-type-options"), "nosniff")
    eq("GET /metrics: Content-Security-Policy", get.get("content-security-policy"), DATA_CSP)
    eq("GET /metrics: Content-Length is the body's", get.get("content-length"), str(len(body)))
    ok("GET /metrics: a TYPE line of pmaps'", b"\n# TYPE pmaps_" in b"\n" + body, body[:200],
       "# TYPE pmaps_...")
    eq("GET /metrics over HTTP/1.1: the connection is kept", get.get("connection"), None)
    st, h, body = request(srv, "GET", "/metrics", headers={
        "Accept": "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5"})
    eq("GET /metrics asking for OpenMetrics: status", st, 200)
    eq("GET /metrics asking for OpenMetrics: the Accept header reached the route",
       h.get("content-type", "").split(";")[0], "application/openmetrics-text")

    # HEAD on a raw socket: the same headers, no body byte on the wire.
    data, end = raw(srv, b"HEAD /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    line, head, rest = split_head(data)
    eq("HEAD /metrics: status line", line, "HTTP/1.1 200 OK")
    for k in ("content-type", "cache-control", "x-content-type-options", "referrer-policy",
              "content-security-policy"):
        eq(f"HEAD /metrics: {k} as GET's", head.get(k), get.get(k))
    ok("HEAD /metrics: a Content-Length", head.get("content-length", "").isdigit(),
       head.get("content-length"), "digits")
    eq("HEAD /metrics: no body", rest, b"")
    eq("HEAD /metrics: closed by the server", end, "eof")

    st, h, body = request(srv, "GET", "/nope")
    eq("GET /nope: status", st, 404)
    eq("GET /nope: Content-Security-Policy", h.get("content-security-policy"), DATA_CSP)
    st, h, body = request(srv, "GET", "/metrics?a=1&b=%20")
    eq("GET /metrics?query: status", st, 200)
    st, h, body = request(srv, "GET", "/")
    eq("GET /: status", st, 200)
    eq("GET /: Content-Type", h.get("content-type", "").split(";")[0], "text/html")
    eq("GET /: Content-Security-Policy", h.get("content-security-policy"), PAGE_CSP)
    eq("GET /: X-Content-Type-Options", h.get("x-content-type-options"), "nosniff")

    # Three requests in one write (pipelined): three answers, in order.
    data, end = raw(srv, b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                    b"GET /nope?x=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                    b"HEAD /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    eq("pipelined: the status lines", re.findall(rb"HTTP/1\.1 (\d{3}) ", data), [b"200", b"404", b"200"])
    # Two requests on one connection (what a scraper does).
    c = http.client.HTTPConnection(srv.host, srv.port, timeout=10)
    try:
        st1 = request(srv, "GET", "/metrics", conn=c)[0]
        sock = c.sock
        st2 = request(srv, "GET", "/metrics", conn=c)[0]
        eq("keep-alive: two GETs", (st1, st2), (200, 200))
        ok("keep-alive: on one socket", sock is not None and c.sock is sock, c.sock, sock)
    finally:
        c.close()


def test_methods(srv):
    for m in ("POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT", "BREW", "get"):
        path = "127.0.0.1:1" if m == "CONNECT" else "/metrics"
        st, h, body = request(srv, m, path)
        eq(f"{m}: status", st, 405)
        eq(f"{m}: Allow", h.get("allow"), "GET, HEAD")
        eq(f"{m}: body", body, b"method not allowed: only GET and HEAD\n")
    st, h, body = request(srv, "POST", "/metrics", body=b"x" * 4096,
                          headers={"Content-Type": "application/octet-stream"})
    eq("POST with a 4 KiB body: status", st, 405)
    eq("POST with a 4 KiB body: Allow", h.get("allow"), "GET, HEAD")
    # The body announced but never sent: the answer comes without a 100 Continue.
    data, end = raw(srv, b"POST /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1048576\r\n"
                    b"Expect: 100-continue\r\n\r\n", timeout=5)
    eq("POST, Expect: 100-continue: the first line", split_head(data)[0],
       "HTTP/1.1 405 Method Not Allowed")
    eq("POST, Expect: 100-continue: closed, not waiting for the body", end, "eof")
    # A GET with a body: answered, the body never read.
    data, end = raw(srv, b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100000\r\n\r\n" +
                    b"x" * 100000)
    eq("GET with a 100 kB body: status", status_of(data), 200)
    eq("GET with a 100 kB body: closed after the reply", end in ("eof", "reset"), True)
    still_answers(srv, "methods")


def test_sizes(srv):
    def get_with_header(total):
        head = b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nX-Pad: "
        pad = total - len(head) - 4
        req = head + b"a" * pad + b"\r\n\r\n"
        assert len(req) == total
        return raw(srv, req)

    data, end = get_with_header(16 * 1024)
    eq("a 16 KiB request (the bound on a request's head): status", status_of(data), 200)
    data, end = get_with_header(20 * 1024)
    eq("a 20 KiB request: status", status_of(data), 431)
    data, end = get_with_header(1 << 20)
    st = status_of(data)
    # Sending 1 MiB races the server's 431 and close: the client may see the
    # status or only the reset. Never a 200.
    ok("a 1 MiB header: 431 or the connection closed", st == 431 or (st is None and end != "timeout"),
       (st, end), "431, or no status and eof/reset")
    still_answers(srv, "a 1 MiB header")
    data, end = raw(srv, b"GET /" + b"a" * (1 << 20) + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    st = status_of(data)
    ok("a 1 MiB URL: 414 or the connection closed", st == 414 or (st is None and end != "timeout"),
       (st, end), "414, or no status and eof/reset")
    data, end = raw(srv, b"GET /metrics?" + b"q" * 20000 + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    eq("a 20 kB query: status", status_of(data), 414)
    many = b"".join(b"X-%d: y\r\n" % i for i in range(3000))
    data, end = raw(srv, b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n" + many + b"\r\n")
    eq("3000 headers: status", status_of(data), 431)
    still_answers(srv, "sizes")


def test_malformed(srv):
    cases = [
        # (name, bytes, the status MHD 0.9.75 gives; None: closed without one)
        ("garbage bytes", b"\x00\xff\xfe\x80 garbage \x01\x02\r\n\r\n", None),
        ("no HTTP version", b"GET /metrics\r\n\r\n", 400),
        ("HTTP/2.0 on a text connection", b"GET /metrics HTTP/2.0\r\nHost: 127.0.0.1\r\n\r\n", 505),
        ("a request line of spaces", b"     \r\n\r\n", None),
        ("invalid chunked encoding on a GET (not read)",
         b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n"
         b"zz\r\nhello\r\n0\r\n\r\n", 200),
        ("invalid chunked encoding on a POST",
         b"POST /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 405),
        ("a NUL in a header", b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nX-A: a\x00b\r\n\r\n",
         200),
        ("a NUL in the URL", b"GET /nope\x00/metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", 404),
        ("a header without a colon", b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nnocolon\r\n\r\n",
         400),
        ("Content-Length: -1", b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: -1\r\n\r\n", 400),
        ("Content-Length: 2^64", b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 18446744073709551616\r\n\r\n",
         413),
        ("half a request line, then close", b"GET /metr", None),
    ]
    results = [None] * len(cases)

    def one(i):
        try:
            results[i] = raw(srv, cases[i][1], timeout=TIMEOUT_S + 5)
        except OSError as e:
            results[i] = (b"", repr(e))

    # In parallel: those the server keeps open wait for its idle timeout.
    threads = [threading.Thread(target=one, args=(i,)) for i in range(len(cases))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(TIMEOUT_S + 10)
    for (name, _, want), res in zip(cases, results):
        data, end = res if res else (b"", "no result")
        eq(f"{name}: status", status_of(data), want)
        ok(f"{name}: the server ended the connection", end in ("eof", "reset"), end, "eof or reset")
    still_answers(srv, "malformed requests")


def socket_count(pid):
    n = 0
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                if os.readlink(f"/proc/{pid}/fd/{fd}").startswith("socket:"):
                    n += 1
            except OSError:
                pass
    except OSError:
        pass
    return n


def burst(srv, n, deadline):
    """N connections at once, each a GET /metrics: (answered, refused, other, seconds)."""
    barrier = threading.Barrier(n)
    outcome = [None] * n

    def one(i):
        try:
            s = connect(srv, deadline)
        except OSError as e:
            outcome[i] = ("refused", repr(e))
            return
        try:
            barrier.wait(deadline)
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            data = b""
            while True:
                d = s.recv(65536)
                if not d:
                    break
                data += d
            st = status_of(data)
            outcome[i] = ("answered",) if st == 200 else \
                ("refused", "closed") if not data else ("other", data[:80])
        except (ConnectionResetError, BrokenPipeError) as e:
            outcome[i] = ("refused", repr(e))
        except Exception as e:  # a timeout or a broken barrier: the server hung
            outcome[i] = ("other", repr(e))
        finally:
            s.close()

    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    t0 = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join(max(0.1, deadline - (time.monotonic() - t0)))
    answered = sum(1 for o in outcome if o and o[0] == "answered")
    refused = sum(1 for o in outcome if o and o[0] == "refused")
    other = [o for o in outcome if not o or o[0] == "other"]
    return answered, refused, other, time.monotonic() - t0


def test_concurrent(srv):
    answered, refused, other, dt = burst(srv, 200, 40)
    print(f"200 at once (--max-connections 256): {answered} answered, {refused} refused, "
          f"{len(other)} other, {dt:.2f} s", flush=True)
    eq("200 at once, under the limit: all answered 200", (answered, refused, len(other)), (200, 0, 0))
    ok("200 at once: within 40 s", dt < 40, f"{dt:.2f} s", "< 40 s")
    still_answers(srv, "200 at once")


def test_limit():
    """--max-connections 16: 40 idle clients, 16 of them taken; then 200 at once, answered or refused."""
    srv = Server("--timeout", "5s", "--max-connections", "16", "--threads", "2")
    idle = []
    try:
        base = socket_count(srv.proc.pid)
        idle = [connect(srv, 5) for _ in range(40)]  # the kernel's backlog takes them all
        # At rest (no connection comes or goes), the server's sockets are exact.
        held, end = None, time.monotonic() + 3
        while time.monotonic() < end:
            time.sleep(0.2)
            a, b = socket_count(srv.proc.pid), socket_count(srv.proc.pid)
            held = a - base if a == b else held
            if held == 16:
                break
        eq("--max-connections 16: of 40 idle clients, the server holds", held, 16)
        for s in idle:
            s.close()
        idle = []
        answered, refused, other, dt = burst(srv, 200, 40)
        print(f"200 at once (--max-connections 16): {answered} answered, {refused} refused, "
              f"{len(other)} other, {dt:.2f} s", flush=True)
        eq("--max-connections 16: each answered 200 or refused cleanly", other, [])
        eq("--max-connections 16: answered + refused", answered + refused, 200)
        ok("--max-connections 16: some answered", answered >= 16, answered, ">= 16")
        still_answers(srv, "--max-connections 16")
        rc, dt = srv.stop()
        eq("--max-connections 16: SIGTERM: exit code", rc, 0)
    finally:
        for s in idle:
            s.close()
        srv.kill()


def drip_clients(srv, n, line, period):
    """N sockets, each sent LINE one byte every PERIOD s by a thread (never a whole head).

    Returns (sockets, the thread, its stop event, {socket index: seconds from
    its connect to the server's end of it})."""
    socks, t0s = [], []
    for _ in range(n):
        socks.append(connect(srv, 5))
        t0s.append(time.monotonic())
    ended = {}
    stop = threading.Event()

    def drip():
        i = 0
        while not stop.is_set() and i < len(line):
            for k, s in enumerate(socks):
                if k in ended:
                    continue
                try:
                    s.send(line[i:i + 1])
                except OSError:
                    ended[k] = time.monotonic() - t0s[k]
                    continue
                # The server's end: EOF or a reset, seen without blocking.
                s.setblocking(False)
                try:
                    if s.recv(1) == b"":
                        ended[k] = time.monotonic() - t0s[k]
                except BlockingIOError:
                    pass
                except OSError:
                    ended[k] = time.monotonic() - t0s[k]
                s.setblocking(True)
            i += 1
            stop.wait(period)

    t = threading.Thread(target=drip)
    t.start()
    return socks, t, stop, ended


def test_slow(srv):
    """20 clients send one header byte a second: each is cut when its head is not complete
    after --timeout (MHD's idle timeout alone never would); meanwhile scrapes answer in time."""
    line = b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"s" * 64
    socks, t, stop, ended = drip_clients(srv, 20, line, 1)
    try:
        times = []
        for _ in range(4):
            time.sleep(1)
            t0 = time.monotonic()
            try:
                st = request(srv, "GET", "/metrics", timeout=5)[0]
            except OSError as e:
                st = repr(e)
            times.append(time.monotonic() - t0)
            eq("with 20 slow clients: GET /metrics", st, 200)
        ok("with 20 slow clients: each scrape within 5 s", max(times) < 5,
           [f"{x:.2f}" for x in times], "< 5 s each")
        # Each was sent a byte a second (its idle timeout of 2 s never ran
        # out), yet each was cut by the deadline of its request head.
        eq("the 20 slow clients: all cut by the server", sorted(ended), list(range(20)))
        # Seen at the drip's next byte: up to a second after the cut (the
        # server's timer looks every half second).
        late = {k: f"{v:.2f}" for k, v in ended.items() if not TIMEOUT_S - 0.5 <= v <= TIMEOUT_S + 2}
        eq(f"the 20 slow clients: each cut {TIMEOUT_S}..{TIMEOUT_S + 2} s after it connected", late, {})
    finally:
        stop.set()
        t.join()
        for s in socks:
            s.close()
    still_answers(srv, "20 slow clients")


def test_slow_at_limit():
    """--max-connections 8 held by 8 clients that each send a header byte a second (under the
    idle timeout): a normal GET /metrics waits in the backlog and is answered within
    --timeout + 3 s, because the slow ones are cut when their heads are not complete in time.
    Twice: the second time with 8 new slow clients, as an attacker would send them."""
    timeout = 3
    srv = Server("--timeout", f"{timeout}s", "--max-connections", "8", "--threads", "2")
    line = b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"s" * 64
    socks, t, stop, ended = drip_clients(srv, 8, line, 2)
    try:
        time.sleep(0.5)
        # The 8 are what the server holds (nothing else is connected).
        t0 = time.monotonic()
        try:
            st = request(srv, "GET", "/metrics", timeout=timeout + 3)[0]
        except OSError as e:
            st = repr(e)
        dt = time.monotonic() - t0
        eq("8 slow clients at --max-connections 8: GET /metrics", st, 200)
        ok(f"8 slow clients at --max-connections 8: answered within --timeout + 3 s",
           dt < timeout + 3, f"{dt:.2f} s", f"< {timeout + 3} s")
        # Again with the slow clients back at the limit (reconnected).
        stop.set()
        t.join()
        for s in socks:
            s.close()
        socks, t, stop, ended = drip_clients(srv, 8, line, 2)
        time.sleep(0.5)
        t0 = time.monotonic()
        try:
            st = request(srv, "GET", "/metrics", timeout=timeout + 3)[0]
        except OSError as e:
            st = repr(e)
        dt = time.monotonic() - t0
        eq("8 slow clients back at the limit: GET /metrics", st, 200)
        ok("8 slow clients back at the limit: answered within --timeout + 3 s", dt < timeout + 3,
           f"{dt:.2f} s", f"< {timeout + 3} s")
        end = time.monotonic() + timeout + 3
        while len(ended) < 8 and time.monotonic() < end:
            time.sleep(0.2)
        stop.set()
        t.join()
        eq("8 slow clients: all cut by the server", sorted(ended), list(range(8)))
        rc, _ = srv.stop()
        eq("8 slow clients: SIGTERM: exit code", rc, 0)
        extra = [l for l in srv.stderr_lines() if not start_line(l)]
        eq("8 slow clients: stderr: nothing but the listening and ready lines", extra, [])
    finally:
        stop.set()
        t.join()
        for s in socks:
            s.close()
        srv.kill()


def rst_close(s):
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.close()


def test_vanish(srv):
    got = []
    for i in range(50):
        s = connect(srv, 5)
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        data = b""
        try:
            while len(data) < 10:
                d = s.recv(10 - len(data))
                if not d:
                    break
                data += d
            got.append(len(data))
        except OSError as e:
            got.append(repr(e))
        rst_close(s)
    eq("50 clients read 10 bytes of /metrics and reset", got, [10] * 50)
    still_answers(srv, "50 resets mid-response")
    # Larger replies (the page), and resets before the reply.
    for i in range(50):
        s = connect(srv, 5)
        s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" if i % 2 else
                  b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        rst_close(s)
    still_answers(srv, "50 resets before the reply")


def test_idle(srv):
    s = connect(srv, TIMEOUT_S + 10)
    t0 = time.monotonic()
    try:
        d = s.recv(1)
        end = "eof" if d == b"" else f"data {d!r}"
    except ConnectionResetError:
        end = "reset"
    except socket.timeout:
        end = "timeout"
    dt = time.monotonic() - t0
    s.close()
    ok("an idle connection: closed by the server", end in ("eof", "reset"), end, "eof or reset")
    ok(f"an idle connection: closed after --timeout {TIMEOUT_S}s, within {TIMEOUT_S + 2} s",
       TIMEOUT_S - 0.5 <= dt <= TIMEOUT_S + 2, f"{dt:.2f} s", f"{TIMEOUT_S}..{TIMEOUT_S + 2} s")


def check_quiet_exit(srv, what, sig=signal.SIGTERM):
    rc, dt = srv.stop(sig)
    name = signal.Signals(sig).name
    eq(f"{what}: {name}: exit code", rc, 0)
    ok(f"{what}: {name}: stopped within 5 s", dt < 5, f"{dt:.2f} s", "< 5 s")
    lines = srv.stderr_lines()
    extra = [l for l in lines if not start_line(l)]
    eq(f"{what}: stderr: the listening line, once", sum(1 for l in lines if LISTEN_RE.match(l)), 1)
    eq(f"{what}: stderr: the ready line, once", sum(1 for l in lines if READY_RE.match(l)), 1)
    eq(f"{what}: stderr: nothing else (client errors are routine)", extra, [])


# A process with this many one-page mappings, each its own (alternate
# protections keep the kernel from merging them): its
# /api/process/PID/pages?limit=16384 is about 6 MB, more than the socket buffers
# (4 MiB at most on the server's side) can take, so MHD holds the rest
# until the client reads it. The kernel's default vm.max_map_count is 65530.
MAPS_HELPER = """
import mmap, os, sys, time
keep = [mmap.mmap(-1, 4096, prot=mmap.PROT_READ | (mmap.PROT_WRITE if i % 2 else 0))
        for i in range(50000)]
print(os.getpid(), flush=True)
sys.stdin.read()
"""
INFLIGHT_CAP = 10 << 20
BUSY_BODY = b"busy: too many replies wait for their clients to read them; try again\n"


def test_inflight():
    """The replies in flight are capped (PMAPS_SERVE_INFLIGHT_CAP, test-only, 10 MiB here): with
    one 6 MB reply (a page of 16384 mappings) held by a client that does not read, a second gets
    503, a small one 200; when the client goes (or MHD's idle timeout closes it), the bytes are
    counted back. And a steady reader of the 6 MB, taking longer than --timeout, is not cut by
    the head's deadline."""
    helper = subprocess.Popen([sys.executable, "-c", MAPS_HELPER], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE)
    srv = None
    held = []
    try:
        hpid = int(helper.stdout.readline())
        env = dict(os.environ, PMAPS_SERVE_INFLIGHT_CAP=str(INFLIGHT_CAP))
        srv = Server("--timeout", "3s", env=env, pid=hpid)
        path = f"/api/process/{hpid}/pages?limit=16384"
        st, h, body = request(srv, "GET", path, timeout=20)
        size = len(body)
        eq("inflight: GET a page of 16384 of 50000 mappings alone: status", st, 200)
        ok("inflight: that reply is between 5 MiB and the 10 MiB cap (one fits, two do not)",
           5 << 20 < size < INFLIGHT_CAP, size, "5..10 MiB")

        def hold():
            """A client that asks for the pages and reads nothing (but its first byte)."""
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            s.settimeout(20)
            s.connect((srv.host, srv.port))
            s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
            s.recv(1, socket.MSG_PEEK)  # the reply is queued
            held.append(s)
            return s

        a = hold()
        st, h, body = request(srv, "GET", path, timeout=20)
        eq("inflight: a second 6 MB reply while the first is held: status", st, 503)
        eq("inflight: the 503's body", body if len(body) < 200 else body[:200] + b"...", BUSY_BODY)
        eq("inflight: the 503's Retry-After", h.get("retry-after"), "1")
        eq("inflight: GET /metrics (small) meanwhile", request(srv, "GET", "/metrics")[0], 200)
        rst_close(a)
        held.remove(a)
        # MHD frees the reply when it sees the reset; then the bytes are back.
        sts = []
        for _ in range(20):
            time.sleep(0.1)
            sts.append(request(srv, "GET", path, timeout=20)[0])
            if sts[-1] == 200:
                break
        eq("inflight: after the client reset, the pages again", sts[-1:], [200])
        # Held again, until MHD's idle timeout (3 s: the client takes nothing) closes it.
        hold()
        eq("inflight: held again: 503", request(srv, "GET", path, timeout=20)[0], 503)
        t0 = time.monotonic()
        st = None
        while time.monotonic() - t0 < 8:
            time.sleep(0.5)
            st = request(srv, "GET", path, timeout=20)[0]
            if st == 200:
                break
        dt = time.monotonic() - t0
        eq("inflight: after MHD's idle timeout closed the holder, the pages again", st, 200)
        ok("inflight: ... within --timeout + 2 s", dt < 5, f"{dt:.2f} s", "< 5 s")
        # A client reading the 6 MB steadily (256 KiB every 0.2 s, well above
        # what MHD's idle timeout asks) takes about 4.5 s, past --timeout with
        # most of the reply still in MHD's hands: the deadline of a
        # request's head is not its reply's, so it gets it all.
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        held.append(s)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
        s.settimeout(10)
        s.connect((srv.host, srv.port))
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
        t0, data, end = time.monotonic(), b"", "eof"
        try:
            while True:
                d = s.recv(262144)
                if not d:
                    break
                data += d
                time.sleep(0.2 * len(d) / 262144)
        except OSError as e:
            end = repr(e)
        dt = time.monotonic() - t0
        line, hdrs, body = split_head(data)
        eq("inflight: a steady reader of the 6 MB: status line", line, "HTTP/1.1 200 OK")
        eq("inflight: a steady reader of the 6 MB: the whole body (its Content-Length)",
           (len(body), end), (int(hdrs.get("content-length", -1)), "eof"))
        ok("inflight: a steady reader of the 6 MB: took longer than --timeout 3 s", dt > 3.5,
           f"{dt:.2f} s", "> 3.5 s")
        rc, _ = srv.stop()
        eq("inflight: SIGTERM: exit code", rc, 0)
        extra = [l for l in srv.stderr_lines() if not start_line(l)]
        eq("inflight: stderr: nothing but the listening and ready lines", extra, [])
    finally:
        for s in held:
            s.close()
        if srv:
            srv.kill()
        helper.kill()
        helper.wait()


def test_per_ip():
    """On a non-loopback address one client address holds at most a quarter of
    --max-connections (at least 4): 16 gives 4. The client here is 127.0.0.1 connecting to the
    server's 0.0.0.0 (a few seconds, watching only this test's process)."""
    srv = Server("--timeout", "5s", "--max-connections", "16", "--threads", "2", listen="0.0.0.0:0")
    srv.host = "127.0.0.1"
    idle = []
    try:
        base = socket_count(srv.proc.pid)
        idle = [connect(srv, 5) for _ in range(10)]
        held, end = None, time.monotonic() + 3
        while time.monotonic() < end:
            time.sleep(0.2)
            a, b = socket_count(srv.proc.pid), socket_count(srv.proc.pid)
            held = a - base if a == b else held
            if held == 4:
                break
        eq("0.0.0.0, --max-connections 16: of 10 idle clients from 127.0.0.1, the server holds", held, 4)
        # The others were closed by the server at once.
        closed = 0
        for s in idle:
            s.setblocking(False)
            try:
                if s.recv(1) == b"":
                    closed += 1
            except BlockingIOError:
                pass
            except OSError:
                closed += 1
        eq("0.0.0.0: of the 10, closed by the server", closed, 6)
        for s in idle:
            s.close()
        idle = []
        time.sleep(0.3)
        eq("0.0.0.0: GET /metrics when they are gone", request(srv, "GET", "/metrics")[0], 200)
        rc, _ = srv.stop()
        eq("0.0.0.0: SIGTERM: exit code", rc, 0)
        extra = [l for l in srv.stderr_lines() if not start_line(l) and "not a loopback address" not in l]
        eq("0.0.0.0: stderr: nothing but the warning and the listening line", extra, [])
    finally:
        for s in idle:
            s.close()
        srv.kill()


def test_fd_limit():
    """Out of descriptors: said once, with the way out; the server recovers."""
    srv = Server("--timeout", "5s", nofile=48)
    socks = []
    try:
        want = re.compile(r"^pmaps: serve: cannot accept more connections \((Too many open files|out of "
                          r"descriptors or memory)\) with --max-connections 256 and a limit of 48 open "
                          r"files: lower the one or raise the other \(ulimit -n\)$")
        for _ in range(80):
            try:
                socks.append(connect(srv, 5))
            except OSError:
                break
        line = srv.wait_line(lambda l: not start_line(l), 10)
        ok("80 connections, 48 descriptors: the failure said", line is not None and want.match(line),
           line, want.pattern)
        for s in socks:
            s.close()
        socks = []
        time.sleep(0.5)
        still_answers(srv, "80 connections, 48 descriptors")
        rc, dt = srv.stop()
        eq("48 descriptors: SIGTERM: exit code", rc, 0)
        lines = srv.stderr_lines()
        eq("48 descriptors: stderr: the listening and ready lines and the failure, once", len(lines), 3)
    finally:
        for s in socks:
            s.close()
        srv.kill()


def test_stop_busy():
    """SIGTERM with connections open: half a request, an unread reply, a kept connection."""
    srv = Server("--timeout", "30s")
    socks = []
    try:
        for i in range(30):
            s = connect(srv, 5)
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Half" if i % 3 == 0 else
                      b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" if i % 3 == 1 else
                      b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            socks.append(s)
        time.sleep(0.5)
        check_quiet_exit(srv, "30 connections open")
    finally:
        for s in socks:
            s.close()
        srv.kill()


def test_listen_errors():
    busy = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    busy.bind(("127.0.0.1", 0))
    busy.listen(1)
    port = busy.getsockname()[1]
    try:
        r = subprocess.run([PMAPS, "serve", "--listen", f"127.0.0.1:{port}", "--pid", str(os.getpid())],
                           stdin=subprocess.DEVNULL, capture_output=True, timeout=30)
        eq("--listen on a port in use: exit code", r.returncode, 1)
        eq("--listen on a port in use: one line", r.stderr.decode().splitlines(),
           [f"pmaps: serve: cannot listen on 127.0.0.1:{port}: Address already in use"])
    finally:
        busy.close()
    # TEST-NET-1 (RFC 5737): no address of this machine. Non-loopback, so the
    # warning comes first; nothing listens.
    r = subprocess.run([PMAPS, "serve", "--listen", "192.0.2.1:9743", "--pid", str(os.getpid())],
                       stdin=subprocess.DEVNULL, capture_output=True, timeout=30)
    lines = r.stderr.decode().splitlines()
    eq("--listen 192.0.2.1:9743: exit code", r.returncode, 1)
    eq("--listen 192.0.2.1:9743: the last line", lines[-1:],
       ["pmaps: serve: cannot listen on 192.0.2.1:9743: Cannot assign requested address"])
    eq("--listen 192.0.2.1:9743: two lines (the warning, the failure)", len(lines), 2)
    # A privileged port without the privilege: as nobody when the test is root.
    with open("/proc/sys/net/ipv4/ip_unprivileged_port_start") as f:
        unpriv = int(f.read())
    drop = []
    if os.geteuid() == 0:
        drop = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        if subprocess.run(["sh", "-c", "command -v setpriv"], capture_output=True).returncode != 0:
            print("note: no setpriv (util-linux): the privileged port not tried as nobody", flush=True)
            return
    if unpriv <= 1:
        print(f"note: ip_unprivileged_port_start is {unpriv}: port 1 needs no privilege here", flush=True)
        return
    r = subprocess.run(drop + [PMAPS, "serve", "--listen", "127.0.0.1:1", "--pid", str(os.getpid())],
                       stdin=subprocess.DEVNULL, capture_output=True, timeout=30)
    eq("--listen 127.0.0.1:1 unprivileged: exit code", r.returncode, 1)
    # As nobody, serve first notes what root would add.
    eq("--listen 127.0.0.1:1 unprivileged: one line (besides notes)",
       [l for l in r.stderr.decode().splitlines() if not l.startswith("pmaps: note: ")],
       ["pmaps: serve: cannot listen on 127.0.0.1:1: Permission denied"])


def test_ipv6():
    try:
        probe = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
        probe.bind(("::1", 0))
        probe.close()
    except OSError as e:
        print(f"note: no IPv6 loopback here ({e}): [::1] not tried", flush=True)
        return
    srv = Server("--timeout", "5s", listen="[::1]:0")
    try:
        eq("--listen [::1]:0: the host in the listening line", srv.host, "::1")
        ok("--listen [::1]:0: a real port", 0 < srv.port < 65536, srv.port, "1..65535")
        eq("--listen [::1]:0: GET /metrics", request(srv, "GET", "/metrics")[0], 200)
        check_quiet_exit(srv, "[::1]", signal.SIGINT)
    finally:
        srv.kill()


MISDIRECTED = (b"misdirected request: the Host header names another server "
               b"(pmaps serve --allow-host NAME answers to NAME)\n")


def get(srv, path, host, extra=b"", version=b"HTTP/1.1"):
    """GET PATH on a raw socket with Host HOST (None: no Host) and EXTRA headers: (status, body)."""
    head = b"GET " + path + b" " + version + b"\r\n"
    if host is not None:
        head += b"Host: " + host + b"\r\n"
    data, _ = raw(srv, head + extra + b"Connection: close\r\n\r\n")
    return status_of(data), split_head(data)[2]


def test_host(srv):
    """DNS rebinding: a page of evil.example whose name the attacker now resolves to
    127.0.0.1 sends its requests with its own name in Host (and Origin): every one
    gets 421 and no byte of what serve knows. A page of another origin gets 403 on
    /api/ (its Origin); the page's own fetches name serve and are answered. Then
    the strict parsing: HTTP/1.1 without Host, two Hosts, an encoded NUL and an
    encoded '/' in the path get 400."""
    me = os.getpid()
    hp = f"127.0.0.1:{srv.port}".encode()
    evil = f"evil.example:{srv.port}".encode()
    for path in (b"/api/processes", f"/api/process/{me}/explain".encode(),
                 f"/api/process/{me}/pages".encode(), f"/api/process/{me}/pages.svg".encode(),
                 b"/metrics", b"/"):
        eq(f"rebinding: GET {path.decode()} with Host {evil.decode()}",
           get(srv, path, evil, b"Origin: http://" + evil + b"\r\n"), (421, MISDIRECTED))
    eq("rebinding: a name under localhost's", get(srv, b"/metrics", b"localhost.evil.example")[0],
       421)
    eq("rebinding: serve's address on another port", get(srv, b"/metrics", b"127.0.0.1:1")[0], 421)
    for host in (hp, f"localhost:{srv.port}".encode(), b"127.0.0.1", b"localhost"):
        eq(f"Host {host.decode()}: answered", get(srv, b"/api/processes", host)[0], 200)
    eq("Host not a host[:port]", get(srv, b"/metrics", b"a/b"),
       (400, b"bad request: the Host header is not a host[:port]\n"))
    # Origin: another site's page (no rebinding: its requests name serve).
    forbidden = (403, b"forbidden: a page of another origin may not read /api/\n")
    eq("Origin http://evil.example on /api/processes",
       get(srv, b"/api/processes", hp, b"Origin: http://evil.example\r\n"), forbidden)
    eq("Origin null on /api/process/PID/explain",
       get(srv, f"/api/process/{me}/explain".encode(), hp, b"Origin: null\r\n"), forbidden)
    eq("the page's own fetch (Origin: serve) on /api/processes",
       get(srv, b"/api/processes", hp, b"Origin: http://" + hp + b"\r\n")[0], 200)
    eq("Origin http://evil.example on /metrics (no /api/: a browser shows it no one)",
       get(srv, b"/metrics", hp, b"Origin: http://evil.example\r\n")[0], 200)
    # Strict parsing.
    eq("HTTP/1.1 without Host", get(srv, b"/metrics", None),
       (400, b"bad request: no Host header (HTTP/1.1 requires one)\n"))
    eq("HTTP/1.0 without Host (allowed by HTTP/1.0)",
       get(srv, b"/metrics", None, version=b"HTTP/1.0")[0], 200)
    eq("two Host headers", get(srv, b"/metrics", hp, b"Host: evil.example\r\n"),
       (400, b"bad request: more than one Host header\n"))
    nul = (400, b"bad request: an encoded NUL (%00) in the URL\n")
    eq("/metrics%00foo", get(srv, b"/metrics%00foo", hp), nul)
    eq("/api/process/PID/explain%00.svg",
       get(srv, f"/api/process/{me}/explain%00.svg".encode(), hp), nul)
    eq("/metrics?x=%00", get(srv, b"/metrics?x=%00", hp), nul)
    eq("/api/process/PID%2fexplain", get(srv, f"/api/process/{me}%2fexplain".encode(), hp),
       (400, b"bad request: an encoded '/' (%2F) in the path\n"))
    eq("/api/process/PID%2Fexplain", get(srv, f"/api/process/{me}%2Fexplain".encode(), hp)[0],
       400)
    eq("%2f in the query (not the path)", get(srv, b"/metrics?x=%2f", hp)[0], 200)
    still_answers(srv, "the Host checks")


def test_allow_host():
    """--allow-host NAME and *.SUFFIX; a wildcard listener answers any address literal
    but no name it was not given; a bad --allow-host is one line and exit 2."""
    srv = Server("--allow-host", "pmaps.test", "--allow-host", "*.nodes.test")
    try:
        for host, want in ((b"pmaps.test", 200), (b"PMAPS.test:443", 200), (b"a.nodes.test", 200),
                           (b"nodes.test", 421), (b"evil.test", 421),
                           (f"127.0.0.1:{srv.port}".encode(), 200)):
            eq(f"--allow-host: Host {host.decode()}", get(srv, b"/metrics", host)[0], want)
    finally:
        srv.kill()
    srv = Server(listen="0.0.0.0:0")
    try:
        for host, want in ((f"10.9.8.7:{srv.port}".encode(), 200), (b"192.168.1.1", 200),
                           (f"[fe80::1]:{srv.port}".encode(), 200),
                           (f"localhost:{srv.port}".encode(), 200),
                           (f"node.example:{srv.port}".encode(), 421)):
            eq(f"0.0.0.0: Host {host.decode()}", get(srv, b"/metrics", host)[0], want)
    finally:
        srv.kill()
    for bad in ("a b", "*", "a..b", "[::1]"):
        r = subprocess.run([PMAPS, "serve", "--allow-host", bad], capture_output=True, timeout=10)
        lines = r.stderr.decode().splitlines()
        eq(f"--allow-host '{bad}': exit status and one line", (r.returncode, len(lines)), (2, 1))
        ok(f"--allow-host '{bad}': says what it takes", lines and "--allow-host takes" in lines[0],
           lines, "--allow-host takes ...")


def test_nonloopback():
    srv = Server(listen="0.0.0.0:0", wait_listening=False)
    try:
        warn = srv.wait_line(lambda l: "0.0.0.0:0" in l and "not a loopback address" in l and
                             "anyone who can connect" in l and "memory" in l, 30)
        # Stopped as soon as it listens (before, SIGTERM is not yet its
        # to take): nobody else is to see this one.
        srv.wait_line(lambda l: LISTEN_RE.match(l), 30)
        srv.proc.send_signal(signal.SIGTERM)
        ok("--listen 0.0.0.0:0: the warning that anyone who can connect sees the processes' memory",
           warn is not None, srv.stderr_lines(),
           "a line: 0.0.0.0:0, not a loopback address, anyone who can connect, memory")
        try:
            rc = srv.proc.wait(10)
        except subprocess.TimeoutExpired:
            rc = None
        eq("--listen 0.0.0.0:0: SIGTERM: exit code", rc, 0)
    finally:
        srv.kill()


def main():
    global failed
    t_start = time.monotonic()
    try:
        srv = Server("--timeout", f"{TIMEOUT_S}s")
    except Exception as e:
        print(f"FAIL: pmaps serve did not start: {e}")
        print(f"serve_abuse: {passed} passed, {failed + 1} failed")
        sys.exit(1)
    try:
        for t in (test_basics, test_methods, test_sizes, test_malformed, test_host, test_concurrent,
                  test_slow, test_vanish, test_idle):
            t0 = time.monotonic()
            try:
                t(srv)
                print(f"{t.__name__}: {time.monotonic() - t0:.1f} s", flush=True)
            except Exception as e:  # a test that breaks is a failure, with its reason
                failed += 1
                print(f"FAIL: {t.__name__}: {type(e).__name__}: {e}", flush=True)
        check_quiet_exit(srv, "after the abuse")
    finally:
        srv.kill()
    for t in (test_limit, test_slow_at_limit, test_inflight, test_per_ip, test_fd_limit, test_stop_busy, test_listen_errors, test_ipv6,
              test_nonloopback, test_allow_host):
        t0 = time.monotonic()
        try:
            t()
            print(f"{t.__name__}: {time.monotonic() - t0:.1f} s", flush=True)
        except Exception as e:
            failed += 1
            print(f"FAIL: {t.__name__}: {type(e).__name__}: {e}", flush=True)
    dt = time.monotonic() - t_start
    ok("the whole test within 90 s", dt < 90, f"{dt:.1f} s", "< 90 s")
    print(f"serve_abuse: {passed} passed, {failed} failed ({dt:.1f} s)")
    sys.exit(1 if failed else 0)


main()
