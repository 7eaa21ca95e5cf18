#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""pmaps serve's /metrics while clients flood it with connections.

    serve_flood.py PMAPS [--seconds S] [--slow N] [--idle N]

On loopback, as a local user could: a server with the defaults
(--max-connections 256), then for S seconds each (default 30):

  slowloris  N connections (default 1000) that each send a request line and
             a Host, then one header line every 3 s, and reconnect when cut;
  idle       N connects (default 5000) that send nothing, again reconnecting
             when cut.

Meanwhile a probe (the way Prometheus scrapes: a new connection, GET
/metrics) every S/30 seconds must get every answer, p99 under 1 s and none
over 5 s. Before each attack and during it, serve's RSS and descriptors
are sampled; the table at the end has them with the probe's latencies.
Prints "serve_flood: N passed, N failed".
"""
import errno
import os
import re
import resource
import selectors
import socket
import subprocess
import sys
import threading
import time

PMAPS = sys.argv[1]
args = sys.argv[2:]


def opt(name, default):
    if name in args:
        return type(default)(args[args.index(name) + 1])
    return default


SECONDS = opt("--seconds", 30.0)
SLOW = opt("--slow", 1000)
IDLE = opt("--idle", 5000)
LISTEN_RE = re.compile(r"^pmaps serve: listening on http://([0-9.]+):(\d+)/$")
passed = failed = 0


def ok(name, cond, got=None, want=None):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print(f"FAIL: {name}: got {got!r}, want {want!r}", flush=True)


class Attack(threading.Thread):
    """N connections kept open (reopened when the server cuts one); SLOW: a request
    line and Host at once, then a header line every 3 s."""

    def __init__(self, port, n, slow):
        super().__init__(daemon=True)
        self.port, self.n, self.slow = port, n, slow
        self.stop = threading.Event()
        self.opened = self.cut = 0

    def _open(self, sel):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        e = s.connect_ex(("127.0.0.1", self.port))
        if e not in (0, errno.EINPROGRESS):
            s.close()
            return False
        sel.register(s, selectors.EVENT_WRITE, "connecting")
        self.opened += 1
        return True

    def _drop(self, sel, s):
        sel.unregister(s)
        s.close()
        self.cut += 1

    def run(self):
        sel = selectors.DefaultSelector()
        next_line = time.monotonic() + 3
        while not self.stop.is_set():
            while len(sel.get_map()) < self.n and not self.stop.is_set():
                if not self._open(sel):
                    break
            for key, ev in sel.select(0.05):
                s = key.fileobj
                if key.data == "connecting":
                    if s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR):
                        self._drop(sel, s)
                        continue
                    if self.slow:
                        try:
                            s.send(b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                        except OSError:
                            self._drop(sel, s)
                            continue
                    sel.modify(s, selectors.EVENT_READ, "open")
                else:
                    try:
                        d = s.recv(4096)
                    except OSError:
                        d = b""
                    if not d:
                        self._drop(sel, s)
            if self.slow and time.monotonic() >= next_line:
                next_line = time.monotonic() + 3
                for key in list(sel.get_map().values()):
                    if key.data != "open":
                        continue
                    try:
                        key.fileobj.send(b"X-Slow: a\r\n")
                    except OSError:
                        self._drop(sel, key.fileobj)
        for key in list(sel.get_map().values()):
            key.fileobj.close()
        sel.close()


def probe(port, timeout=10.0):
    """One scrape on a new connection: seconds to the whole answer, or None."""
    t0 = time.monotonic()
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        s.settimeout(max(0.1, timeout - (time.monotonic() - t0)))
        s.sendall(f"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
                  .encode())
        data = b""
        while True:
            d = s.recv(65536)
            if not d:
                break
            data += d
        s.close()
    except OSError:
        return None
    if not data.startswith(b"HTTP/1.1 200 "):
        return None
    return time.monotonic() - t0


def usage(pid):
    """(RSS in KiB, open descriptors) of PID."""
    rss = 0
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1])
    return rss, len(os.listdir(f"/proc/{pid}/fd"))


def run_attack(name, port, pid, n, slow):
    rss0, fd0 = usage(pid)
    a = Attack(port, n, slow)
    a.start()
    time.sleep(min(3.0, SECONDS / 5))  # the flood at its height first
    lat, misses, peak_rss, peak_fd = [], 0, rss0, fd0
    every = SECONDS / 30
    end = time.monotonic() + SECONDS
    while time.monotonic() < end:
        t0 = time.monotonic()
        r = probe(port)
        if r is None:
            misses += 1
        else:
            lat.append(r)
        rss, fds = usage(pid)
        peak_rss, peak_fd = max(peak_rss, rss), max(peak_fd, fds)
        time.sleep(max(0.0, every - (time.monotonic() - t0)))
    a.stop.set()
    a.join(10)
    lat.sort()
    p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))] if lat else None
    worst = lat[-1] if lat else None
    ok(f"{name}: every probe answered", misses == 0, f"{misses} of {len(lat) + misses} unanswered",
       "0")
    ok(f"{name}: probe p99 under 1 s", p99 is not None and p99 < 1.0, p99, "< 1 s")
    ok(f"{name}: no probe over 5 s", worst is not None and worst < 5.0, worst, "< 5 s")
    return (name, n, a.opened, len(lat) + misses, misses, p99, worst, rss0, peak_rss, fd0, peak_fd)


def main():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = SLOW + IDLE + 256
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(want, hard), hard))
    srv = subprocess.Popen([PMAPS, "serve", "--listen", "127.0.0.1:0", "--pid", str(os.getpid())],
                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE)
    rows = []
    try:
        line = srv.stderr.readline().decode().strip()
        m = LISTEN_RE.match(line)
        if not m:
            ok("serve started", False, line, "pmaps serve: listening on ...")
            return
        port = int(m.group(2))
        t = probe(port)
        ok("a probe at rest", t is not None and t < 1.0, t, "< 1 s")
        rows.append(run_attack("slowloris", port, srv.pid, SLOW, True))
        rows.append(run_attack("idle connects", port, srv.pid, IDLE, False))
        srv.terminate()
        rc = srv.wait(20)
        err = srv.stderr.read().decode()
        ok("serve exits 0 on SIGTERM, nothing said about the flood", (rc, err) == (0, ""),
           (rc, err[-500:]), (0, ""))
    finally:
        if srv.poll() is None:
            srv.kill()
            srv.wait()
    print(f"\n{'attack':<14} {'conns':>6} {'opened':>7} {'probes':>7} {'missed':>7} "
          f"{'p99 s':>7} {'max s':>7} {'RSS KiB':>15} {'fds':>11}")
    for name, n, opened, probes, miss, p99, worst, r0, r1, f0, f1 in rows:
        fmt = (lambda v: f"{v:.3f}" if v is not None else "-")
        print(f"{name:<14} {n:>6} {opened:>7} {probes:>7} {miss:>7} {fmt(p99):>7} "
              f"{fmt(worst):>7} {f'{r0} -> {r1}':>15} {f'{f0} -> {f1}':>11}")


try:
    main()
finally:
    print(f"serve_flood: {passed} passed, {failed} failed", flush=True)
    sys.exit(1 if failed else 0)
