#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""pmaps serve's /metrics while clients flood it with connections.

    serve_flood.py PMAPS [--seconds S] [--slow N] [--idle N] [--no-rss]

On loopback, as a local user could: a server with the defaults
(--max-connections 256), then for S seconds each (default 30):

  slowloris  N connections (default 1000) that each send a request line and
             a Host, then one header line every 3 s, and reconnect when cut;
  idle       N connects (default 5000) that send nothing, again reconnecting
             when cut.

  pages      8 clients that each read, in a loop, a process of 60,000
             mappings: four its page counts, a page of mappings at a time
             (/api/process/PID/pages?from=...), four its picture (pages.svg).

Meanwhile a probe (the way Prometheus scrapes: a new connection, GET
/metrics) every S/30 seconds must get every answer, p99 under 1 s and none
over 5 s; during the pages attack a second probe scrapes over one kept
connection too, and serve's RSS must stay under 64 MiB and come back to
within 8 MiB of where it was before, 3 s after the clients stop. Before
each attack and during it, serve's RSS and descriptors are sampled; the
table at the end has them with the probe's latencies. Prints
"serve_flood: N passed, N failed".
"""
import http.client
import json
import multiprocessing
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

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from checks import finish, ok  # noqa: E402

PMAPS = sys.argv[1]
args = sys.argv[2:]


def opt(name, default):
    if name in args:
        return type(default)(args[args.index(name) + 1])
    return default


SECONDS = opt("--seconds", 30.0)
RSS = "--no-rss" not in args  # a sanitizer's RSS is its own
SLOW = opt("--slow", 1000)
IDLE = opt("--idle", 5000)
LISTEN_RE = re.compile(r"^pmaps serve: listening on http://([0-9.]+):(\d+)/$")
READY_RE = re.compile(r"^pmaps serve: ready: 2 processes read in [0-9.]+ s \(\d+ refresh(es)?\)$")


class Attack(multiprocessing.Process):
    """N connections kept open (reopened when the server cuts one); SLOW: a request
    line and Host at once, then a header line every 3 s. A process of its own, as an
    attacker is: in this one it would hold the probe's thread back (the GIL) between
    its connect and its request."""

    def __init__(self, port, n, slow):
        super().__init__(daemon=True)
        self.port, self.n, self.slow = port, n, slow
        self.stop = multiprocessing.Event()
        self.count = multiprocessing.Value("q", 0)
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
        self.count.value = self.opened


def probe(port, timeout=10.0):
    """One scrape on a new connection: (seconds to the whole answer, None), or
    (None, what went wrong: the exception, or the first bytes of a wrong answer)."""
    t0 = time.monotonic()
    data = b""
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        s.settimeout(max(0.1, timeout - (time.monotonic() - t0)))
        s.sendall(f"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
                  .encode())
        while True:
            d = s.recv(65536)
            if not d:
                break
            data += d
        s.close()
    except OSError as e:
        return None, f"{e!r} after {time.monotonic() - t0:.3f} s, {len(data)} bytes"
    if not data.startswith(b"HTTP/1.1 200 "):
        return None, f"answer {data[:40]!r} after {time.monotonic() - t0:.3f} s"
    return time.monotonic() - t0, None


TARGET = r"""
import mmap, sys
maps = []
for i in range(60000):
    m = mmap.mmap(-1, 16384, prot=mmap.PROT_READ | (mmap.PROT_WRITE if i % 2 == 0 else 0))
    if i % 2 == 0:
        m[0] = 1
    maps.append(m)
print("ready", flush=True)
sys.stdin.read()
"""


class Readers(threading.Thread):
    """A client reading TPID's pages (PICTURE: pages.svg) in a loop, page after page."""

    def __init__(self, port, tpid, picture):
        super().__init__(daemon=True)
        self.port, self.tpid, self.picture = port, tpid, picture
        self.stop = threading.Event()
        self.answers, self.busy, self.other = 0, 0, []

    def run(self):
        nxt = None
        while not self.stop.is_set():
            path = (f"/api/process/{self.tpid}/pages.svg" if self.picture else
                    f"/api/process/{self.tpid}/pages" + (f"?from={nxt}" if nxt else ""))
            try:
                c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
                c.request("GET", path)
                r = c.getresponse()
                body = r.read()
                c.close()
            except OSError as e:
                self.other.append(repr(e))
                continue
            if r.status == 503:
                self.busy += 1
                time.sleep(float(r.getheader("Retry-After", "1")) / 10)
            elif r.status != 200:
                self.other.append(r.status)
            else:
                self.answers += 1
                if not self.picture:
                    nxt = json.loads(body).get("next")  # none before pages were paged


def keep_alive_probe(port, stop, lat, misses):
    """/metrics every 0.2 s over one connection, as Prometheus keeps its own."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    while not stop.is_set():
        t0 = time.monotonic()
        try:
            c.request("GET", "/metrics")
            r = c.getresponse()
            r.read()
            if r.status == 200:
                lat.append(time.monotonic() - t0)
            else:
                misses.append(r.status)
        except (OSError, http.client.HTTPException) as e:
            misses.append(repr(e))
            c.close()
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        stop.wait(0.2)
    c.close()


def run_pages(port, pid, tpid):
    rss0, fd0 = usage(pid)
    readers = [Readers(port, tpid, i >= 4) for i in range(8)]
    ka_stop, ka_lat, ka_miss = threading.Event(), [], []
    ka = threading.Thread(target=keep_alive_probe, args=(port, ka_stop, ka_lat, ka_miss),
                          daemon=True)
    for r in readers:
        r.start()
    ka.start()
    lat, misses, peak_rss, peak_fd = probes(port, pid, rss0, fd0)
    for r in readers:
        r.stop.set()
    ka_stop.set()
    for r in readers:
        r.join(120)
    ka.join(20)
    time.sleep(3)
    rss_after, _ = usage(pid)
    lat.sort()
    ka_lat.sort()
    p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))] if lat else None
    worst = lat[-1] if lat else None
    ka_p99 = ka_lat[min(len(ka_lat) - 1, int(len(ka_lat) * 0.99))] if ka_lat else None
    answers = sum(r.answers for r in readers)
    others = [x for r in readers for x in r.other]
    ok("pages: every probe answered", not misses,
       f"{len(misses)} of {len(lat) + len(misses)}: {misses[:3]}", "0")
    ok("pages: probe p99 under 1 s", p99 is not None and p99 < 1.0, p99, "< 1 s")
    ok("pages: no probe over 2 s", worst is not None and worst < 2.0, worst, "< 2 s")
    ok("pages: every scrape over the kept connection answered", not ka_miss, ka_miss[:5], "[]")
    ok("pages: kept connection's p99 under 1 s", ka_p99 is not None and ka_p99 < 1.0, ka_p99,
       "< 1 s")
    ok("pages: the readers got answers", answers > 0, answers, "> 0")
    ok("pages: the readers got 200 or 503 only", not others, others[:5], "[]")
    if RSS:
        ok("pages: serve's RSS under 64 MiB", peak_rss < 64 * 1024, peak_rss, "< 65536 KiB")
        ok("pages: serve's RSS back within 8 MiB of before", rss_after <= rss0 + 8 * 1024,
           (rss0, rss_after), "after <= before + 8192 KiB")
    print(f"pages: {answers} answers, {sum(r.busy for r in readers)} told busy; kept "
          f"connection: {len(ka_lat)} scrapes, p99 {ka_p99}, max {ka_lat[-1] if ka_lat else None}; "
          f"RSS {rss0} -> peak {peak_rss} -> {rss_after} KiB 3 s after", flush=True)
    return ("pages", 8, answers, len(lat) + len(misses), len(misses), p99, worst, rss0, peak_rss, fd0,
            peak_fd)


def probes(port, pid, rss0, fd0):
    """With an attack under way (at its height first): a probe every SECONDS/30 for
    SECONDS, serve's RSS and descriptors sampled after each. Returns (latencies,
    why each unanswered one was, peak RSS, peak descriptors)."""
    time.sleep(min(3.0, SECONDS / 5))
    lat, misses, peak_rss, peak_fd = [], [], rss0, fd0
    every = SECONDS / 30
    end = time.monotonic() + SECONDS
    while time.monotonic() < end:
        t0 = time.monotonic()
        r, why = probe(port)
        if r is None:
            misses.append(why)
        else:
            lat.append(r)
        rss, fds = usage(pid)
        peak_rss, peak_fd = max(peak_rss, rss), max(peak_fd, fds)
        time.sleep(max(0.0, every - (time.monotonic() - t0)))
    return lat, misses, peak_rss, peak_fd


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
    lat, misses, peak_rss, peak_fd = probes(port, pid, rss0, fd0)
    a.stop.set()
    a.join(10)
    a.opened = a.count.value
    lat.sort()
    p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))] if lat else None
    worst = lat[-1] if lat else None
    ok(f"{name}: every probe answered", not misses,
       f"{len(misses)} of {len(lat) + len(misses)} unanswered: {misses[:3]}", "0")
    ok(f"{name}: probe p99 under 1 s", p99 is not None and p99 < 1.0, p99, "< 1 s")
    ok(f"{name}: no probe over 5 s", worst is not None and worst < 5.0, worst, "< 5 s")
    return (name, n, a.opened, len(lat) + len(misses), len(misses), p99, worst, rss0, peak_rss, fd0, peak_fd)


def main():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = SLOW + IDLE + 256
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(want, hard), hard))
    tgt = subprocess.Popen([sys.executable, "-c", TARGET], stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE)
    if tgt.stdout.readline().strip() != b"ready":
        ok("the 60,000-mapping target started", False, tgt.poll(), "ready")
        return
    srv = subprocess.Popen([PMAPS, "serve", "--listen", "127.0.0.1:0", "--pid",
                            f"{os.getpid()},{tgt.pid}"],
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
        # The warm-up reads every selected process (the 60,000 mappings: seconds) first.
        line = srv.stderr.readline().decode().strip()
        ok("serve ready: both processes read", READY_RE.match(line), line, READY_RE.pattern)
        t, why = probe(port, timeout=30)
        ok("the first scrape", t is not None, why, "answered")
        t, why = probe(port)
        ok("a probe at rest", t is not None and t < 1.0, why or t, "< 1 s")
        rows.append(run_attack("slowloris", port, srv.pid, SLOW, True))
        rows.append(run_attack("idle connects", port, srv.pid, IDLE, False))
        rows.append(run_pages(port, srv.pid, tgt.pid))
        srv.terminate()
        rc = srv.wait(20)
        err = srv.stderr.read().decode()
        ok("serve exits 0 on SIGTERM, nothing said about the flood", (rc, err) == (0, ""),
           (rc, err[-500:]), (0, ""))
    finally:
        if srv.poll() is None:
            srv.kill()
            srv.wait()
        tgt.kill()
        tgt.wait()
    print(f"\n{'attack':<14} {'conns':>6} {'opened':>7} {'probes':>7} {'missed':>7} "
          f"{'p99 s':>7} {'max s':>7} {'RSS KiB':>15} {'fds':>11}")
    for name, n, opened, probes, miss, p99, worst, r0, r1, f0, f1 in rows:
        fmt = (lambda v: f"{v:.3f}" if v is not None else "-")
        print(f"{name:<14} {n:>6} {opened:>7} {probes:>7} {miss:>7} {fmt(p99):>7} "
              f"{fmt(worst):>7} {f'{r0} -> {r1}':>15} {f'{f0} -> {f1}':>11}")


try:
    main()
finally:
    finish("serve_flood")
