#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""pmaps explain with the Go runtime's own books, against a Go program that
serves net/http/pprof on loopback (tests/live/gotarget.go, GOTARGET_PPROF=1).

    books_go.py PMAPS GOTARGET

The program reads a file several times, unmarshals a JSON file several
times, drops all but one copy of each, collects, returns the memory to the
kernel (debug.FreeOSMemory) and turns its GC off; then it answers "m" with
runtime.ReadMemStats's figures and "served" with the runtime.MemStats block
of the last heap page it served (as Go's own pprof wrote it).

For GODEBUG=madvdontneed=0 and =1, found from its listeners and through
--go-pprof URL:
- every figure explain reports is the one the program served it, exactly;
- HeapAlloc, HeapInuse, HeapObjects and TotalAlloc lie between the program's
  own readings before and after (with the GC off they only grow);
  HeapReleased between the after and the before (released pages are taken
  again, and nothing scavenges with the GC off); HeapSys + StackInuse equals
  both readings' (goroutine stacks are heap pages out of HeapSys; at rest
  with idle room the heap gets no new pages); NumGC equals both;
  HeapIdle + HeapInuse = HeapSys;
- the join's signed terms add up to its rss, which is explain's rss; the
  LazyFree term is the runtime-heap category's lazy_free; with
  madvdontneed=0 that is tens of MiB, with =1 it is 0;
- GOGC, GOMEMLIMIT and GODEBUG are the ones it was started with;
- the text has the books' section and the "RSS ... =" equation;
- watch's breakdowns carry the books, each between the readings around it;
  against a heap that swings 48 MiB twice a second, every joined breakdown
  is of the books' moment (test_watch_churn).
Bad input: a URL off loopback refused without --allow-remote; a server that
never answers cut at --books-timeout 500ms; a page that is no MemStats dump;
a redirect to another host, not followed; a Go program without pprof; one in
another network namespace (as root: its loopback is not ours). In each
explain exits 0 with the kernel's side whole, and the book says why.
Exit 77 (skipped) without a Go toolchain, outside CI.
"""
import datetime
import http.server
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time


sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from checks import eq, finish, ok  # noqa: E402

PMAPS = sys.argv[1]
GOTARGET = sys.argv[2] if len(sys.argv) > 2 and sys.argv[2] else None
MIB = 1 << 20
CHURN_SLICE = MIB  # gotarget churn allocates the swing 1 MiB slice at a time
procs = []


class Target:
    """gotarget with pprof, driven through its standard input."""

    def __init__(self, madv, pprof=True, netns=False):
        env = dict(os.environ, GODEBUG=f"madvdontneed={madv}", GOMEMLIMIT="1GiB")
        env.pop("GOGC", None)
        if pprof:
            env["GOTARGET_PPROF"] = "1"
        argv = [GOTARGET]
        if netns:
            # A network namespace of its own, its loopback up; exec keeps the pid.
            argv = ["unshare", "-n", "sh", "-c", 'ip link set lo up && exec "$0"', GOTARGET]
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        procs.append(self.p)
        self.pid = self.p.pid
        self.addr = None
        if pprof:
            first = self.p.stdout.readline().split()
            assert first and first[0] == b"pprof", first
            self.addr = first[1].decode()
        line = self.p.stdout.readline()
        assert line == b"ready\n", line

    def cmd(self, c):
        self.p.stdin.write((c + "\n").encode())
        self.p.stdin.flush()
        return json.loads(self.p.stdout.readline())

    def end(self):
        if self.p.poll() is None:
            self.p.stdin.close()
            try:
                self.p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()


def explain(pid, *args, json_out=True, timeout=60):
    argv = [PMAPS, "explain", str(pid), *(["--json"] if json_out else []), *args]
    t0 = time.monotonic()
    r = subprocess.run(argv, capture_output=True, timeout=timeout)
    took = time.monotonic() - t0
    out = r.stdout.decode("utf-8", "replace")
    doc = None
    if json_out and r.returncode == 0:
        doc = json.loads(out)
    return r.returncode, doc, out, r.stderr.decode("utf-8", "replace"), took


def category(doc, name):
    for c in doc.get("categories", []):
        if c["category"] == name:
            return c
    return {}


def check_join(tag, doc):
    """The join adds up: to its rss, and that to explain's."""
    j = doc["runtime_books"].get("join", {})
    terms = j.get("terms", [])
    total = sum(t["bytes"] for t in terms)
    eq(f"{tag}: the join's terms add up to its rss", total, j.get("rss"))
    eq(f"{tag}: the join's rss is explain's rss", j.get("rss"), doc["rss"])
    for t in terms:
        ok(f"{tag}: term {t.get('key')} has a source", t.get("source") in
           ("kernel", "runtime", "remainder"), t.get("source"), "kernel/runtime/remainder")
    return {t["key"]: t for t in terms}


# runtime.MemStats's names, as the program's JSON has them, and pmaps's keys.
FIELDS = [("HeapAlloc", "heap_alloc"), ("HeapSys", "heap_sys"), ("HeapIdle", "heap_idle"),
          ("HeapInuse", "heap_inuse"), ("HeapReleased", "heap_released"),
          ("HeapObjects", "heap_objects"), ("StackInuse", "stack_inuse"),
          ("StackSys", "stack_sys"), ("MSpanInuse", "mspan_inuse"), ("MSpanSys", "mspan_sys"),
          ("MCacheInuse", "mcache_inuse"), ("MCacheSys", "mcache_sys"),
          ("BuckHashSys", "buck_hash_sys"), ("GCSys", "gc_sys"), ("OtherSys", "other_sys"),
          ("Sys", "sys"), ("TotalAlloc", "total_alloc"), ("NextGC", "next_gc"),
          ("NumGC", "num_gc")]
GROW = ["HeapAlloc", "HeapInuse", "HeapObjects", "TotalAlloc"]
SHRINK = ["HeapReleased"]


def one_read(t, madv, how, args):
    tag = f"madvdontneed={madv} {how}"
    before = t.cmd("m")
    wall0 = datetime.datetime.now(datetime.timezone.utc)
    rc, doc, out, err, _ = explain(t.pid, *args)
    wall1 = datetime.datetime.now(datetime.timezone.utc)
    after = t.cmd("m")
    served = t.cmd("served")
    eq(f"{tag}: exit status", (rc, err), (0, ""))
    if rc != 0:
        return None
    g = doc.get("runtime_books", {}).get("go", {})
    eq(f"{tag}: the Go book was read", (g.get("ok"), g.get("why")), (True, None))
    if not g.get("ok"):
        return None
    eq(f"{tag}: its source", g.get("source"), f"http://{t.addr}/debug/pprof/heap?debug=1")
    for name, key in FIELDS:
        eq(f"{tag}: {key} is what the program served", g.get(key), served.get(name))
    for name in GROW:
        key = dict(FIELDS)[name]
        ok(f"{tag}: {name} before <= pmaps <= after", before[name] <= g[key] <= after[name],
           (before[name], g[key], after[name]), "in order")
    for name in SHRINK:
        key = dict(FIELDS)[name]
        ok(f"{tag}: {name} after <= pmaps <= before", after[name] <= g[key] <= before[name],
           (after[name], g[key], before[name]), "in order")
    eq(f"{tag}: NumGC before, pmaps, after (the GC is off)",
       (before["NumGC"], g["num_gc"], after["NumGC"]), (before["NumGC"],) * 3)
    eq(f"{tag}: HeapIdle + HeapInuse = HeapSys", g["heap_idle"] + g["heap_inuse"], g["heap_sys"])
    # Goroutine stacks are spans of the heap's pages, out of HeapSys while in use:
    # at rest, with idle room, the heap gets no new pages, so the sum holds still.
    eq(f"{tag}: HeapSys + StackInuse before, pmaps, after",
       (before["HeapSys"] + before["StackInuse"], g["heap_sys"] + g["stack_inuse"],
        after["HeapSys"] + after["StackInuse"]), (before["HeapSys"] + before["StackInuse"],) * 3)
    eq(f"{tag}: the environment it started with", g.get("env"),
       {"GOGC": "", "GOMEMLIMIT": "1GiB", "GODEBUG": f"madvdontneed={madv}"})
    at = datetime.datetime.strptime(g.get("at", ""), "%Y-%m-%dT%H:%M:%S.%fZ").replace(
        tzinfo=datetime.timezone.utc)
    ok(f"{tag}: read during the run", wall0 - datetime.timedelta(seconds=1) <= at <=
       wall1 + datetime.timedelta(seconds=1), (wall0, at, wall1), "between")
    terms = check_join(tag, doc)
    heap = category(doc, "runtime-heap")
    lazy = terms.get("go_returned_resident", {}).get("bytes")
    eq(f"{tag}: the LazyFree term is the Go heap's LazyFree", lazy, heap.get("lazy_free"))
    if madv == 0:
        ok(f"{tag}: returned with MADV_FREE: 32 MiB and more still resident",
           (lazy or 0) >= 32 * MIB, lazy, ">= 32 MiB")
    else:
        eq(f"{tag}: returned with MADV_DONTNEED: nothing LazyFree", lazy, 0)
    eq(f"{tag}: live objects are HeapAlloc",
       terms.get("go_live_objects", {}).get("bytes"), g["heap_alloc"])
    eq(f"{tag}: span slack is HeapInuse - HeapAlloc",
       terms.get("go_span_slack", {}).get("bytes"), g["heap_inuse"] - g["heap_alloc"])
    eq(f"{tag}: held free is HeapIdle - HeapReleased",
       terms.get("go_held_free", {}).get("bytes"), g["heap_idle"] - g["heap_released"])
    return doc


def test_go(madv):
    t = Target(madv)
    try:
        one_read(t, madv, "found", [])
        one_read(t, madv, "--go-pprof", ["--go-pprof", f"http://{t.addr}/"])
        one_read(t, madv, "--go-pprof page", ["--go-pprof",
                                               f"http://{t.addr}/debug/pprof/heap?gc=1"])
        rc, _, out, err, _ = explain(t.pid, json_out=False)
        tag = f"madvdontneed={madv} text"
        eq(f"{tag}: exit status", (rc, err), (0, ""))
        ok(f"{tag}: the books' section", "The runtime's books" in out, out[-2000:],
           "The runtime's books")
        # The equation, wrapped at 80 columns (standard output is no terminal): its
        # paragraph, from "RSS ... = " to the blank line or the end, as one line.
        paras = re.split(r"\n\s*\n", out)
        eqs = [" ".join(p.split()) for p in paras if p.startswith("RSS ") and " = " in p]
        eq(f"{tag}: one equation", len(eqs), 1)
        eq(f"{tag}: the report fits 80 columns", [l for l in out.splitlines() if len(l) > 80
                                                 and "  " not in l.strip()], [])
        pat = (r"^RSS \S+ = Go live objects \S+ \+ .* \(all sums exact to the kernel; "
               r"the runtime's figures as of \d\d:\d\d:\d\d\)$")
        ok(f"{tag}: the equation", eqs and re.match(pat, eqs[0]), eqs, pat)
    finally:
        t.end()


def test_watch():
    """watch's breakdowns carry the books: each between the program's readings
    before and after, never going back, its join adding up to the sample's rss."""
    t = Target(0)
    try:
        before = t.cmd("m")
        r = subprocess.run([PMAPS, "watch", str(t.pid), "--jsonl", "-n", "4", "-i", "200ms"],
                           capture_output=True, timeout=60)
        after = t.cmd("m")
        eq("watch: exit status", (r.returncode, r.stderr.decode()), (0, ""))
        books = []
        for line in r.stdout.decode().splitlines():
            o = json.loads(line)
            g = o.get("runtime_books", {}).get("go")
            if g is None:
                continue
            eq(f"watch: sample {o.get('sample')}: the Go book read", g.get("ok"), True)
            if not g.get("ok"):
                continue
            books.append(g["heap_alloc"])
            j = o["runtime_books"].get("join", {})
            eq(f"watch: sample {o.get('sample')}: its join adds up to its rss",
               (sum(x["bytes"] for x in j.get("terms", [])), j.get("rss")), (o["rss"], o["rss"]))
        ok("watch: a breakdown carries the books", len(books) > 0, books, "at least one")
        ok("watch: HeapAlloc between the program's readings, never going back",
           books == sorted(books) and all(before["HeapAlloc"] <= b <= after["HeapAlloc"]
                                          for b in books),
           (before["HeapAlloc"], books, after["HeapAlloc"]), "in order")
    finally:
        t.end()


def heap_unexplained(doc):
    """The runtime-heap part's remainder in DOC's join: its RSS less what the books count."""
    j = doc.get("runtime_books", {}).get("join", {})
    return next((t["bytes"] for t in j.get("terms", [])
                 if t["key"] == "heap_unexplained" and t["part"] == "runtime-heap"), None)


def test_watch_churn():
    """watch against a heap that swings 48 MiB twice a second (gotarget's churn):
    every breakdown the books are joined to is of their moment. A join across a
    swing would put tens of MiB in the runtime heap's remainder; at rest the
    remainder is a fixed U0, and a joined breakdown's stays within 8 MiB of it
    (a sixth of the swing: while it allocates, Go's own figures lag its pages
    by a MiB or two, and the join lets the RSS move max_moved).
    HeapAlloc, the timeline's live point, is never above the runtime heap's
    resident bytes of its breakdown by more than one slice of the swing (Go
    counts a slice at make(), before the target has touched its pages) and
    what the RSS moved between the breakdown and the books (the held point,
    HeapSys - HeapReleased, may be by the span slack Go counts and never
    touched: printed). Refused
    ones say why in figures that show it; the timeline marks the runtime's
    figures at the joined breakdowns alone. Reads until joined
    breakdowns at the low and the high of the swing are both seen (60 s at
    most)."""
    t = Target(1)
    svg = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"pmaps-churn-{os.getpid()}.svg")
    w = None
    try:
        rc, rest, _, err, _ = explain(t.pid)
        eq("churn: explain at rest", (rc, err), (0, ""))
        rest = rest or {}
        u0 = heap_unexplained(rest)
        eq("churn: at rest, the books joined",
           rest.get("runtime_books", {}).get("join", {}).get("ok"), True)
        eq("churn: the target churns", t.cmd("churn"), {"churning": True})
        w = subprocess.Popen([PMAPS, "watch", "--jsonl", "-i", "100ms", "--svg", svg,
                              str(t.pid)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        samples, joined, refused = [], [], []
        end = time.monotonic() + 60
        while time.monotonic() < end:
            line = w.stdout.readline()
            if not line:
                break
            o = json.loads(line)
            if "sample" not in o:
                continue
            samples.append(o)
            rb = o.get("runtime_books")
            if not rb:
                continue
            j = rb.get("join", {})
            (joined if j.get("ok") else refused).append(o)
            lows = [x for x in joined if x["runtime_books"]["go"]["heap_alloc"] < 50 * MIB]
            highs = [x for x in joined if x["runtime_books"]["go"]["heap_alloc"] > 70 * MIB]
            if len(joined) >= 8 and lows and highs:
                break
        w.send_signal(signal.SIGINT)
        _, err = w.communicate(timeout=30)
        # stderr: the line saying what --svg wrote, nothing else.
        eq("churn: watch exit status", (w.returncode, re.sub(
            r"^pmaps: wrote \S+ \([0-9.]+[BKM]?\): the memory timeline: \d+ samples over "
            r"[0-9.]+ s, RSS at most [0-9.]+[KMG]\n$", "", err.decode())), (0, ""))
        figures, held_over = [], []
        for o in joined:
            tag = f"churn: sample {o['sample']}"
            j = o["runtime_books"]["join"]
            ok(f"{tag}: skew within its limit", j["skew_ms"] <= j["max_skew_ms"], j["skew_ms"],
               f"<= {j['max_skew_ms']}")
            ok(f"{tag}: moved within its limit", j["moved"] <= j["max_moved"], j["moved"],
               f"<= {j['max_moved']}")
            eq(f"{tag}: the join adds up to the sample's rss",
               (sum(x["bytes"] for x in j["terms"]), j["rss"]), (o["rss"], o["rss"]))
            u = heap_unexplained(o)
            g = o["runtime_books"]["go"]
            rh = category(o, "runtime-heap").get("rss", 0)
            figures.append((g["heap_alloc"] // MIB, rh // MIB, u))
            held_over.append((g["heap_sys"] - g["heap_released"]) - rh)
            # The timeline's live point: bytes of objects it touched, so resident,
            # but for the slice being touched and what moved while the books were read.
            slack = CHURN_SLICE + j["moved"]
            ok(f"{tag}: HeapAlloc, the timeline's live point, within the runtime heap's "
               "resident bytes of its breakdown", g["heap_alloc"] <= rh + slack,
               (g["heap_alloc"], rh), f"<= rh + {slack} (one 1 MiB slice + moved)")
            ok(f"{tag}: the runtime heap's remainder is the one at rest (books of the "
               "breakdown's moment)", u is not None and abs(u - u0) <= 8 * MIB,
               (u, u0), f"within 8 MiB of {u0}")
        for o in refused:
            j = o["runtime_books"]["join"]
            ok(f"churn: sample {o['sample']}: refused for a figure past its limit",
               (j.get("refused") == "moved" and j["moved"] > j["max_moved"]) or
               (j.get("refused") == "skew" and j["skew_ms"] > j["max_skew_ms"]), j,
               "moved or skew past max")
        # The same test as the loop's, in bytes: figures are whole MiB, rounded
        # down, so a HeapAlloc of 70.3 MiB shows there as 70.
        allocs = [o["runtime_books"]["go"]["heap_alloc"] for o in joined]
        ok("churn: joined at the low and the high of the swing", len(joined) >= 8 and
           any(a < 50 * MIB for a in allocs) and any(a > 70 * MIB for a in allocs),
           (figures, allocs), ">= 8 joined, HeapAlloc under 50 MiB and over 70 MiB")
        # The timeline: one mark of the runtime's live bytes per joined breakdown alone.
        with_rt = [bool(o.get("runtime_books", {}).get("join", {}).get("ok")) for o in samples]
        lone = sum(1 for i, x in enumerate(with_rt) if x and (i == 0 or not with_rt[i - 1]) and
                   (i + 1 == len(with_rt) or not with_rt[i + 1]))
        with open(svg) as f:
            marks = f.read().count('fill="#c0392b"/>')
        eq("churn: the timeline marks the runtime's live bytes at the joined breakdowns",
           marks, lone)
        print(f"books_go: churn: {len(samples)} samples, {len(joined)} joined, "
              f"{len(refused)} refused "
              f"({sorted(set(o['runtime_books']['join'].get('refused') for o in refused))}); "
              f"skew_ms {[o['runtime_books']['join']['skew_ms'] for o in joined]}; "
              f"(HeapAlloc MiB, runtime-heap RSS MiB, remainder) {figures}; at rest {u0}; "
              f"held (HeapSys - HeapReleased) over the runtime heap's RSS {held_over}",
              flush=True)
    finally:
        if w and w.poll() is None:
            w.kill()
            w.wait()
        t.end()
        if os.path.exists(svg):
            os.unlink(svg)


class Fake(http.server.BaseHTTPRequestHandler):
    """A server on loopback: MODE says how it answers."""
    mode = "hello"
    requests = []

    def do_GET(self):
        Fake.requests.append(self.path)
        if Fake.mode == "hang":
            time.sleep(30)  # longer than any test waits: only a timeout ends it
            return
        if Fake.mode == "redirect":
            self.send_response(302)
            self.send_header("Location", "http://192.0.2.1/debug/pprof/heap?debug=1")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        body = b"<html>hello, not pprof</html>\n"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *a):
        pass


def fake_server(mode):
    Fake.mode = mode
    Fake.requests = []
    s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Fake)
    s.daemon_threads = True
    threading.Thread(target=s.serve_forever, daemon=True).start()
    return s


def kernel_side_whole(tag, doc):
    ok(f"{tag}: the kernel's side is there", doc and doc.get("rss", 0) > 0 and
       sum(c["rss"] for c in doc.get("categories", [])) == doc["rss"],
       doc and doc.get("rss"), "categories adding up to rss")


def bad_book(tag, pid, args, want):
    rc, doc, out, err, took = explain(pid, *args)
    eq(f"{tag}: exit status", (rc, err), (0, ""))
    if rc != 0:
        return None, took
    kernel_side_whole(tag, doc)
    g = doc.get("runtime_books", {}).get("go", {})
    ok(f"{tag}: not read, and why", g.get("ok") is False and want in g.get("why", ""),
       g, want)
    return g, took


def usage_error(tag, pid, args, want):
    """A URL pmaps would refuse is a usage error: one line, exit 2, nothing on stdout."""
    rc, doc, out, err, took = explain(pid, *args)
    eq(f"{tag}: exit status and stdout", (rc, out), (2, ""))
    ok(f"{tag}: one line saying why", err.count("\n") == 1 and want in err, err, want)


ME = os.getpid()


def test_bad():
    t = Target(1)
    nop = Target(1, pprof=False)
    try:
        usage_error("off loopback", t.pid, ["--go-pprof", "http://192.0.2.1/"],
                    "not loopback (127.0.0.0/8, ::1, localhost): refused without --allow-remote")
        usage_error("not http", t.pid, ["--go-pprof", "file:///etc/passwd"],
                    "only http:// and https://")
        # The servers below are this test's own: their process (the one listening on
        # their port, as pmaps checks) is this one, whose books they then claim to be.
        s = fake_server("hang")
        try:
            port = s.server_address[1]
            g, took = bad_book("a server that never answers", ME,
                               ["--go-pprof", f"http://127.0.0.1:{port}/", "--books-timeout",
                                "500ms"], f"127.0.0.1:{port}/debug/pprof/heap?debug=1: "
                               "timed out after 500 ms")
            ok("a server that never answers: explain is cut near 500 ms",
               0.5 <= took < 4, took, "0.5 s to 4 s")
            # A watch that ends (SIGINT) while its books wait on that server: it ends at
            # once, not when the 15 s timeout runs out.
            w = subprocess.Popen([PMAPS, "watch", "-i", "100ms", "--go-pprof",
                                  f"http://127.0.0.1:{port}/", "--books-timeout", "15s",
                                  str(ME)], stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE)
            try:
                time.sleep(1.5)
                t0 = time.monotonic()
                w.send_signal(signal.SIGINT)
                rc = w.wait(timeout=20)
                took = time.monotonic() - t0
                eq("a watch ended mid-read: exit status", rc, 0)
                ok("a watch ended mid-read: gone at once, not at the 15 s timeout", took < 2,
                   took, "< 2 s")
            finally:
                if w.poll() is None:
                    w.kill()
                    w.wait()
        finally:
            s.shutdown()
            s.server_close()
        s = fake_server("hello")
        try:
            bad_book("not a MemStats page", ME,
                     ["--go-pprof", f"http://127.0.0.1:{s.server_address[1]}/"],
                     "not a Go MemStats dump (no '# runtime.MemStats' block)")
            eq("not a MemStats page: the path asked", Fake.requests, ["/debug/pprof/heap?debug=1"])
        finally:
            s.shutdown()
            s.server_close()
        s = fake_server("redirect")
        try:
            bad_book("a redirect off-host", ME,
                     ["--go-pprof", f"http://localhost:{s.server_address[1]}/"],
                     "HTTP 302, redirected to http://192.0.2.1/debug/pprof/heap?debug=1: "
                     "not followed")
            eq("a redirect off-host: one request, none to the other host", Fake.requests,
               ["/debug/pprof/heap?debug=1"])
        finally:
            s.shutdown()
            s.server_close()
        bad_book("a Go program that serves no pprof", nop.pid, [],
                 "no listening socket on loopback")
        # Another process's server named for this one: not its books, never joined to it.
        g, _ = bad_book("another process's server", nop.pid,
                        ["--go-pprof", f"http://{t.addr}/"],
                        f"process {nop.pid} does not listen on port {t.addr.rsplit(':', 1)[1]}")
        if os.geteuid() == 0 and shutil.which("unshare") and shutil.which("ip"):
            # Its 127.0.0.1 is not ours: never asked through our loopback.
            other = Target(1, netns=True)
            try:
                bad_book("a Go program in another network namespace", other.pid, [],
                         "the process is in another network namespace")
                eq("another network namespace: nothing served", other.cmd("served"), {})
            finally:
                other.end()
        else:
            print("books_go: not root, or no unshare/ip: the network namespace case is skipped")
        # The books off: no key.
        rc, doc, _, err, _ = explain(t.pid, "--no-books")
        eq("--no-books: exit status", (rc, err), (0, ""))
        ok("--no-books: no Go book", doc is not None and "go" not in
           doc.get("runtime_books", {}), doc and doc.get("runtime_books"), "no go")
    finally:
        t.end()
        nop.end()


def main():
    if not GOTARGET:
        print("books_go: no Go target built (Debian's golang-go): skipped")
        ci = os.environ.get("CI", "")
        sys.exit(1 if ci and ci != "false" else 77)
    try:
        for madv in (0, 1):
            test_go(madv)
        test_watch()
        test_watch_churn()
        test_bad()
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    finish("books_go")


if __name__ == "__main__":
    main()
