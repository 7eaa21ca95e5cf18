#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""pmaps serve's /metrics, read by promtool, by a checker of its own and by a real Prometheus.

    serve_prom.py PMAPS SERVE_HELPER

The helper (tests/live/serve_helper.c, static, never sanitized) maps and
touches regions of known sizes and then holds still; pmaps serve runs on
127.0.0.1 with port 0 and says which port it took. Checked:

  - promtool check metrics (Debian's prometheus package) on the Prometheus
    text answer: exit 0 and no lint complaint;
  - the text and the OpenMetrics answers (the latter asked for with Accept)
    with a strict parser of this file's own: every line a HELP, TYPE (UNIT)
    or sample line; every family's HELP and TYPE once, before its samples,
    its samples together and named as its type allows; label names valid,
    values escaped and valid UTF-8; no series twice; OpenMetrics ending in
    "# EOF";
  - exact figures: the helper's PSS, USS (Private_Clean + Private_Dirty),
    resident bytes and LazyFree equal its smaps_rollup read just before and
    just after the scrape (the two reads equal: at rest), its mappings the
    lines of /proc/PID/maps (but [vsyscall]'s, which is no VMA), its swap
    status VmSwap; the sum over category
    and state of pmaps_process_memory_bytes equals the resident bytes; its
    shared memory (shmem) and named anonymous memory are the sizes it
    mapped; mem_total is /proc/meminfo's MemTotal; /metrics counts itself;
  - the default --min-interval: a second scrape within it is served the
    first's figures (pmaps_scrape_age_seconds grows by the time between);
  - a helper named with a quote, a backslash, a newline and a byte that is
    not UTF-8: both answers still parse and pass promtool, the label holds
    the kernel's name;
  - --group-by comm: the helper's group has its figures and one process;
  - a real Prometheus (started here on loopback, a config and a data
    directory in a temporary directory) scraping every second: up is 1,
    the target healthy, and the helper's PSS, USS and mappings in its
    query API equal smaps_rollup's and maps';
  - without root (pmaps serve under setpriv as nobody when the test runs as
    root): /metrics answers, pmaps_exporter_privileged is 0 and its HELP
    says what root would add, and root's processes (pid 1, the helper) have
    status figures only: source "status", resident bytes = status VmRSS, no
    PSS, USS, mapping or category series.

Every process started here is ended in a finally; files only in a temporary
directory, removed at the end. Prints "serve_prom: N passed, M failed"; exits
1 on a failure.
"""
import http.client
import json
import os
import pwd
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

PMAPS, HELPER = sys.argv[1], sys.argv[2]
ROOT = os.geteuid() == 0
PROMETHEUS, PROMTOOL = shutil.which("prometheus"), shutil.which("promtool")
TMP = tempfile.mkdtemp(prefix="pmaps-serve-prom-")
OM_ACCEPT = "application/openmetrics-text; version=1.0.0; charset=utf-8"
TEXT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
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


# ---- the kernel's figures ----

def rollup(pid):
    """smaps_rollup's fields, in bytes."""
    out = {}
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f.read().splitlines()[1:]:
            k, v = line.split(":", 1)
            out[k] = int(v.split()[0]) * 1024
    return out


def status(pid):
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            k, v = line.split(":", 1)
            if v.strip().endswith(" kB"):
                out[k] = int(v.split()[0]) * 1024
    return out


def maps_lines(pid):
    """The VMAs: the lines of /proc/PID/maps but [vsyscall]'s, which maps lists
    and which is no VMA (vm.max_map_count does not count it; pmaps neither)."""
    with open(f"/proc/{pid}/maps", "rb") as f:
        return sum(1 for line in f.read().splitlines() if not line.endswith(b" [vsyscall]"))


def kernel_figures(pid):
    r, s = rollup(pid), status(pid)
    return {"pss": r["Pss"], "uss": r["Private_Clean"] + r["Private_Dirty"], "rss": r["Rss"],
            "lazyfree": r["LazyFree"], "swap": s.get("VmSwap", 0), "mappings": maps_lines(pid)}


def meminfo_total():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024
    return None


# ---- the exposition formats, strictly ----

NAME_RE = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
LABEL_RE = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")
VALUE_RE = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|[+-]?Inf|NaN")
TS_RE = re.compile(r"-?\d+(?:\.\d+)?")
TYPES = {False: {"counter", "gauge", "histogram", "summary", "untyped"},
         True: {"counter", "gauge", "histogram", "gaugehistogram", "summary", "info", "stateset",
                "unknown"}}
# The sample names each type allows, as suffixes of the family's name.
SUFFIXES = {False: {"counter": [""], "gauge": [""], "untyped": [""],
                    "summary": ["", "_sum", "_count"], "histogram": ["_bucket", "_sum", "_count"]},
            True: {"counter": ["_total", "_created"], "gauge": [""], "unknown": [""],
                   "stateset": [""], "info": ["_info"],
                   "summary": ["", "_sum", "_count", "_created"],
                   "histogram": ["_bucket", "_sum", "_count", "_created"],
                   "gaugehistogram": ["_bucket", "_gsum", "_gcount"]}}


def unescape(s, i, end, allowed):
    """Text from S[I] up to the character END, with backslash escapes of ALLOWED
    (a dict: the character after the backslash -> what it stands for). Returns
    (text, index of END) or raises ValueError."""
    out = []
    while i < len(s):
        ch = s[i]
        if ch == end:
            return "".join(out), i
        if ch == "\n":
            raise ValueError("a raw newline")
        if ch == "\\":
            if i + 1 >= len(s) or s[i + 1] not in allowed:
                raise ValueError(f"a bad escape at {s[i:i + 2]!r}")
            out.append(allowed[s[i + 1]])
            i += 2
            continue
        out.append(ch)
        i += 1
    raise ValueError(f"no closing {end!r}")


LABEL_ESCAPES = {"\\": "\\", '"': '"', "n": "\n"}


def parse_labels(s, i, om):
    """S[I] is '{'. Returns (labels, the index after '}')."""
    labels, i = {}, i + 1
    while True:
        if s.startswith("}", i):  # {} or after a value (a comma before it is seen below)
            return labels, i + 1
        m = LABEL_RE.match(s, i)
        if not m:
            raise ValueError(f"a bad label name at {s[i:i + 20]!r}")
        name = m.group(0)
        if name.startswith("__"):
            raise ValueError(f"a reserved label name {name}")
        if name in labels:
            raise ValueError(f"label {name} twice")
        i = m.end()
        if not s.startswith('="', i):
            raise ValueError(f"no =\" after label {name}")
        value, i = unescape(s, i + 2, '"', LABEL_ESCAPES)
        labels[name] = value
        i += 1
        if s.startswith(",", i):
            i += 1
            if om and s.startswith("}", i):
                raise ValueError("a comma before '}'")
            if s.startswith("}", i):
                return labels, i + 1
        elif not s.startswith("}", i):
            raise ValueError(f"no ',' or '}}' after label {name}")


def parse_exposition(body, om):
    """BODY (bytes) in the Prometheus text format 0.0.4 (OM false) or
    OpenMetrics 1.0.0. Returns (samples: [(name, labels, value)], families:
    {name: {help, type, samples}}, errors: [str])."""
    errors, samples, families, seen = [], [], {}, set()
    try:
        text = body.decode("utf-8", "strict")
    except UnicodeDecodeError as e:
        return [], {}, [f"not UTF-8: {e}"]
    if not text.endswith("\n"):
        errors.append("the last line has no newline")
    lines = text.split("\n")[:-1] if text.endswith("\n") else text.split("\n")
    current, eof = None, False
    for n, line in enumerate(lines, 1):
        where = f"line {n} {line[:80]!r}"
        if eof:
            errors.append(f"{where}: after # EOF")
            break
        if line == "":
            if om:
                errors.append(f"line {n}: an empty line")
            continue
        if line.startswith("#"):
            if om and line == "# EOF":
                eof = True
                continue
            parts = line.split(" ", 3)
            if len(parts) >= 3 and parts[0] == "#" and parts[1] in ("HELP", "TYPE", "UNIT"):
                kw, name = parts[1], parts[2]
                rest = parts[3] if len(parts) > 3 else ""
                if not NAME_RE.fullmatch(name):
                    errors.append(f"{where}: a bad metric name")
                    continue
                if name != current:
                    if name in families:
                        errors.append(f"{where}: family {name} again, apart from its first lines")
                    families[name] = {"help": None, "type": None, "unit": None, "samples": 0}
                    current = name
                fam = families[name]
                if fam["samples"]:
                    errors.append(f"{where}: {kw} after the family's samples")
                key = kw.lower()
                if fam[key] is not None:
                    errors.append(f"{where}: a second {kw} line")
                if kw == "HELP":
                    esc = dict(LABEL_ESCAPES) if om else {"\\": "\\", "n": "\n"}
                    try:
                        fam["help"], _ = unescape(rest + "\n", 0, "\n", esc)
                    except ValueError as e:
                        errors.append(f"{where}: HELP: {e}")
                        fam["help"] = rest
                elif kw == "TYPE":
                    if rest not in TYPES[om]:
                        errors.append(f"{where}: type {rest!r} is not one of {sorted(TYPES[om])}")
                    fam["type"] = rest
                else:
                    if not om:
                        errors.append(f"{where}: UNIT is OpenMetrics'")
                    elif rest and not name.endswith("_" + rest):
                        errors.append(f"{where}: the unit is not the name's suffix")
                    fam["unit"] = rest
                continue
            if om:
                errors.append(f"{where}: a comment OpenMetrics does not allow")
            continue
        # a sample: NAME[{LABELS}] VALUE [TIMESTAMP]
        m = NAME_RE.match(line)
        if not m:
            errors.append(f"{where}: not a sample line")
            continue
        name, i, labels = m.group(0), m.end(), {}
        try:
            if line.startswith("{", i):
                labels, i = parse_labels(line, i, om)
            if not line.startswith(" ", i):
                raise ValueError("no space before the value")
            fields = line[i + 1:].split(" ")
            if not VALUE_RE.fullmatch(fields[0]):
                raise ValueError(f"value {fields[0]!r}")
            if len(fields) > 2 or (len(fields) == 2 and not TS_RE.fullmatch(fields[1])):
                raise ValueError(f"what follows the value: {fields[1:]!r}")
            value = float(fields[0])
        except (ValueError, IndexError) as e:
            errors.append(f"{where}: {e}")
            continue
        fam = families.get(current) if current else None
        if fam is None or fam["help"] is None or fam["type"] is None:
            errors.append(f"{where}: a sample without HELP and TYPE before it")
        elif fam["type"] in SUFFIXES[om] and \
                name not in [current + s for s in SUFFIXES[om][fam["type"]]]:
            errors.append(f"{where}: {name} is not a sample name of {fam['type']} {current}")
        if fam is not None:
            fam["samples"] += 1
        key = (name, tuple(sorted(labels.items())))
        if key in seen:
            errors.append(f"{where}: the same series twice")
        seen.add(key)
        if name.endswith("_info") and value != 1:
            errors.append(f"{where}: an info sample whose value is not 1")
        if name.endswith("_total") and not value >= 0:
            errors.append(f"{where}: a counter below 0")
        samples.append((name, labels, value))
    if om and not eof:
        errors.append("no # EOF at the end")
    return samples, families, errors


def find(samples, name, **labels):
    """The values of NAME's series whose labels include LABELS."""
    return [v for n, l, v in samples
            if n == name and all(l.get(k) == w for k, w in labels.items())]


def one(samples, name, **labels):
    v = find(samples, name, **labels)
    return int(v[0]) if len(v) == 1 and v[0] == int(v[0]) else ("series", v)


# ---- pmaps serve ----

class Server:
    """pmaps serve on 127.0.0.1, port 0: the port read from its first line on stderr."""

    def __init__(self, args, as_nobody=False):
        cmd = [PMAPS, "serve", "--listen", "127.0.0.1:0"] + args
        if as_nobody:
            cmd = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] + cmd
        self.cmd, self.lines, self.cv = cmd, [], threading.Condition()
        self.p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE)
        threading.Thread(target=self._read, daemon=True).start()
        self.port = None
        end = time.monotonic() + 30
        with self.cv:
            while self.port is None and time.monotonic() < end and self.p.poll() is None:
                for line in self.lines:
                    m = re.fullmatch(r"pmaps serve: listening on http://127\.0\.0\.1:(\d+)/", line)
                    if m:
                        self.port = int(m.group(1))
                self.cv.wait(0.1)
        if self.port is None:
            self.stop()
            raise RuntimeError(f"{' '.join(cmd)}: no 'listening on' line; stderr {self.lines!r}")
        # /metrics answers 503 until every selected process has been read once.
        self.ready = False
        with self.cv:
            while not self.ready and time.monotonic() < end and self.p.poll() is None:
                self.ready = any(l.startswith("pmaps serve: ready") for l in self.lines)
                self.cv.wait(0.1)
        if not self.ready:
            self.stop()
            raise RuntimeError(f"{' '.join(cmd)}: no 'ready' line; stderr {self.lines!r}")

    def _read(self):
        for raw in self.p.stderr:
            with self.cv:
                self.lines.append(raw.decode("utf-8", "replace").rstrip("\n"))
                self.cv.notify_all()

    def get(self, path, headers=None, timeout=30):
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            c.request("GET", path, headers=headers or {})
            r = c.getresponse()
            return r.status, r.getheader("Content-Type"), r.read()
        finally:
            c.close()

    def stop(self):
        """SIGTERM, then its exit status (SIGKILL after 20 s: then -9)."""
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGTERM)
            try:
                self.p.wait(20)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
        return self.p.returncode


class Helper:
    def __init__(self, name=None):
        self.p = subprocess.Popen([HELPER] + ([name] if name else []), stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE)
        r, _, _ = select.select([self.p.stdout], [], [], 20)
        line = self.p.stdout.readline().split() if r else []
        if len(line) != 3:
            self.stop()
            raise RuntimeError(f"serve_helper said {line!r}")
        self.pid, self.page, self.named = int(line[0]), int(line[1]), line[2] == b"1"

    def stop(self):
        self.p.stdin.close()
        try:
            self.p.wait(10)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()


def at_rest(h, scrape, tries=5):
    """Scrapes with the helper's figures read before and after; returns
    (figures, result of SCRAPE) from the first try whose two reads agree."""
    for _ in range(tries):
        before = kernel_figures(h.pid)
        got = scrape()
        after = kernel_figures(h.pid)
        if before == after:
            return after, got
        print(f"note: the helper moved during a scrape: {before} then {after}", flush=True)
    ok("the helper holds still across a scrape", False, after, before)
    return after, got


def promtool(name, body):
    r = subprocess.run([PROMTOOL, "check", "metrics"], input=body, capture_output=True, timeout=60)
    out = (r.stdout + r.stderr).decode("utf-8", "replace")
    eq(f"{name}: promtool check metrics exits 0 and says nothing (output: {out!r})",
       (r.returncode, out.strip()), (0, ""))


def check_format(name, body, om):
    samples, families, errors = parse_exposition(body, om)
    eq(f"{name}: the strict parser's complaints", errors, [])
    ok(f"{name}: samples", len(samples) > 0, len(samples), "> 0")
    for fam, f in families.items():
        ok(f"{name}: {fam} is pmaps_'s", fam.startswith("pmaps_"), fam, "pmaps_...")
    return samples, families


PROCESS = ["resident_bytes", "pss_bytes", "uss_bytes", "swap_bytes", "lazyfree_bytes", "mappings",
           "memory_bytes", "source_info", "figures_age_seconds"]
EXPORTER = ["pmaps_meminfo_bytes", "pmaps_scrape_duration_seconds", "pmaps_scrape_kernel_seconds",
            "pmaps_scrape_processes", "pmaps_scrape_age_seconds", "pmaps_scrapes_total",
            "pmaps_exporter_info", "pmaps_exporter_privileged"]


def helper_series(name, samples, h, want, user):
    """The helper's series against WANT (the kernel's figures)."""
    lab = {"pid": str(h.pid)}
    eq(f"{name}: the helper's comm and user labels",
       sorted({(l.get("comm"), l.get("user")) for n, l, v in samples
               if l.get("pid") == str(h.pid)}),
       [("serve_helper", user)])
    eq(f"{name}: pss_bytes = smaps_rollup Pss", one(samples, "pmaps_process_pss_bytes", **lab),
       want["pss"])
    eq(f"{name}: uss_bytes = Private_Clean + Private_Dirty",
       one(samples, "pmaps_process_uss_bytes", **lab), want["uss"])
    eq(f"{name}: resident_bytes = smaps_rollup Rss",
       one(samples, "pmaps_process_resident_bytes", **lab), want["rss"])
    eq(f"{name}: lazyfree_bytes = LazyFree", one(samples, "pmaps_process_lazyfree_bytes", **lab),
       want["lazyfree"])
    eq(f"{name}: swap_bytes = status VmSwap", one(samples, "pmaps_process_swap_bytes", **lab),
       want["swap"])
    eq(f"{name}: mappings = the lines of /proc/PID/maps (but [vsyscall])",
       one(samples, "pmaps_process_mappings", **lab), want["mappings"])
    mem = [(l.get("category"), l.get("state"), v) for n, l, v in samples
           if n == "pmaps_process_memory_bytes" and l.get("pid") == str(h.pid)]
    eq(f"{name}: sum of memory_bytes over category and state = resident_bytes",
       sum(v for _, _, v in mem), want["rss"])
    states = {s for _, s, _ in mem}
    ok(f"{name}: the states are smaps' or the page walk's", states and (
        states <= {"private_dirty", "private_clean", "shared_dirty", "shared_clean"} or
        states <= {"private", "shared"}), sorted(states), "smaps' four or private/shared")
    cats = {c for c, _, _ in mem}
    known = {"heap", "anon", "anon-named", "runtime-heap", "thread-stacks", "main-stack",
             "file-text", "file-data", "file-ro", "shmem", "hugetlb", "other"}
    ok(f"{name}: the categories are explain's", cats <= known, sorted(cats - known), "none else")
    eq(f"{name}: shmem = the shared anonymous region the helper touched",
       sum(v for c, _, v in mem if c == "shmem"), 128 * h.page)
    if h.named:
        eq(f"{name}: anon-named = the named region the helper touched",
           sum(v for c, _, v in mem if c == "anon-named"), 64 * h.page)
    src = [l.get("source") for n, l, v in samples
           if n == "pmaps_process_source_info" and l.get("pid") == str(h.pid)]
    ok(f"{name}: the helper's source is smaps or pages", len(src) == 1 and src[0] in
       ("smaps", "pages"), src, "['smaps'] or ['pages']")


def test_scrape():
    """promtool, the strict parser and the exact figures on one server."""
    h = Helper()
    sv = None
    try:
        sv = Server(["--pid", str(h.pid), "--min-interval", "0"])
        user = pwd.getpwuid(os.getuid()).pw_name
        want, (st, ctype, body) = at_rest(h, lambda: sv.get("/metrics"))
        eq("text: 200", st, 200)
        eq("text: content type", ctype, TEXT_TYPE)
        if PROMTOOL:
            promtool("text", body)
        else:
            ok("promtool is installed (Debian's prometheus package)", False, None, "promtool")
        samples, families = check_format("text", body, False)
        for p in PROCESS:
            ok(f"text: pmaps_process_{p} has HELP and TYPE", f"pmaps_process_{p}" in families,
               sorted(families), f"pmaps_process_{p}")
        for e in EXPORTER:
            ok(f"text: {e} is there", bool(find(samples, e)), None, e)
        helper_series("text", samples, h, want, user)
        eq("text: pmaps_meminfo_bytes{field=mem_total} = MemTotal",
           one(samples, "pmaps_meminfo_bytes", field="mem_total"), meminfo_total())
        eq("text: pmaps_exporter_privileged", one(samples, "pmaps_exporter_privileged"),
           1 if ROOT else 0)
        eq("text: pmaps_process_* only for the --pid asked",
           sorted({l.get("pid") for n, l, v in samples if n.startswith("pmaps_process_")}),
           [str(h.pid)])
        n1 = find(samples, "pmaps_scrapes_total")

        want, (st, ctype, obody) = at_rest(h, lambda: sv.get("/metrics", {"Accept": OM_ACCEPT}))
        eq("openmetrics: 200", st, 200)
        ok("openmetrics: content type", ctype and ctype.startswith(
            "application/openmetrics-text") and "version=1.0.0" in ctype, ctype,
           "application/openmetrics-text; version=1.0.0; ...")
        ok("openmetrics: ends with # EOF", obody.endswith(b"\n# EOF\n"), obody[-40:], b"# EOF\n")
        osamples, ofam = check_format("openmetrics", obody, True)
        helper_series("openmetrics", osamples, h, want, user)
        n2 = find(osamples, "pmaps_scrapes_total")
        eq("pmaps_scrapes_total: one more after one more scrape",
           (len(n1), len(n2), n2[0] - n1[0] if n1 and n2 else None), (1, 1, 1))
        ok("openmetrics: scrapes is a counter", ofam.get("pmaps_scrapes", {}).get("type") ==
           "counter", ofam.get("pmaps_scrapes"), "TYPE pmaps_scrapes counter")
        eq("stop: SIGTERM, exit 0", sv.stop(), 0)
        sv = None
    finally:
        if sv:
            sv.stop()
        h.stop()


def test_cache():
    """The default --min-interval (5 s): a second scrape within it is served the
    figures of the first (two scrapers do not double the cost)."""
    h = Helper()
    sv = None
    try:
        sv = Server(["--pid", str(h.pid)])
        t0 = time.monotonic()
        st1, _, b1 = sv.get("/metrics")
        time.sleep(0.5)
        st2, _, b2 = sv.get("/metrics")
        elapsed = time.monotonic() - t0
        a1 = find(parse_exposition(b1, False)[0], "pmaps_scrape_age_seconds")
        a2 = find(parse_exposition(b2, False)[0], "pmaps_scrape_age_seconds")
        eq("cache: both 200", (st1, st2), (200, 200))
        # The first answer's figures may be older than T0 (the warm-up's refresh, before
        # the ready line): the second's are older than those by the time between, no more.
        ok("cache: the second scrape's figures are the first's, older by the time between",
           len(a1) == 1 and len(a2) == 1 and a2[0] - a1[0] >= 0.45 and
           a2[0] - a1[0] <= elapsed + 0.05, (a1, a2),
           f"the second >= the first + 0.45 and <= the first + {elapsed:.2f} + 0.05")
        eq("cache: stop, exit 0", sv.stop(), 0)
        sv = None
    finally:
        if sv:
            sv.stop()
        h.stop()


def test_hostile_name():
    """A command name with a quote, a backslash, a newline and a byte that is not
    UTF-8: /metrics stays valid (escaped label values, UTF-8), promtool agrees."""
    h = Helper(b'a"b\\c\nd\xff')
    sv = None
    try:
        with open(f"/proc/{h.pid}/status", "rb") as f:
            name = f.readline().split(b"\t", 1)[1].rstrip(b"\n")
        sv = Server(["--pid", str(h.pid), "--min-interval", "0"])
        for accept in (None, OM_ACCEPT):
            what = "hostile name, " + ("openmetrics" if accept else "text")
            st, _, body = sv.get("/metrics", {"Accept": accept} if accept else {})
            eq(f"{what}: 200", st, 200)
            if PROMTOOL and not accept:
                promtool(what, body)
            samples, _ = check_format(what, body, bool(accept))
            comms = sorted({l.get("comm") for n, l, v in samples if l.get("pid") == str(h.pid)})
            # status Name: is the kernel's escaped text (the backslash and the newline
            # as two characters each, the byte raw); the label holds it up to that byte,
            # then whatever stands for the byte that is not UTF-8.
            ok(f"{what}: the comm label is the kernel's name, escaped and unescaped back",
               len(comms) == 1 and comms[0].startswith(name[:-1].decode()) and
               len(comms[0]) > len(name) - 1, comms, name)
        eq("hostile name: stop, exit 0", sv.stop(), 0)
        sv = None
    finally:
        if sv:
            sv.stop()
        h.stop()


def test_group_by():
    """--group-by comm: the helper's figures under its name, one process."""
    h = Helper()
    sv = None
    try:
        sv = Server(["--pid", str(h.pid), "--min-interval", "0", "--group-by", "comm"])
        want, (st, _, body) = at_rest(h, lambda: sv.get("/metrics"))
        eq("group-by: 200", st, 200)
        if PROMTOOL:
            promtool("group-by", body)
        samples, _ = check_format("group-by", body, False)
        g = {"group": "serve_helper"}
        eq("group-by: pss, uss, resident, mappings, processes of the helper's group",
           [one(samples, f"pmaps_group_{k}", **g) for k in
            ("pss_bytes", "uss_bytes", "resident_bytes", "mappings", "processes")],
           [want["pss"], want["uss"], want["rss"], want["mappings"], 1])
        eq("group-by: no pmaps_process_ series",
           [n for n, _, _ in samples if n.startswith("pmaps_process_")], [])
        eq("group-by: stop, exit 0", sv.stop(), 0)
        sv = None
    finally:
        if sv:
            sv.stop()
        h.stop()


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def prom_get(port, path, params=None):
    url = path + ("?" + urllib.parse.urlencode(params) if params else "")
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        c.request("GET", url)
        r = c.getresponse()
        return r.status, r.read()
    finally:
        c.close()


def prom_query(port, q):
    st, body = prom_get(port, "/api/v1/query", {"query": q})
    if st != 200:
        return None
    d = json.loads(body)
    return d["data"]["result"] if d.get("status") == "success" else None


RULES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "contrib",
                     "prometheus", "pmaps.rules.yml")
RULES_COUNT = sum(1 for ln in open(RULES) if ln.lstrip().startswith(("- record:", "- alert:")))


def test_prometheus():
    """A real Prometheus scraping pmaps serve every second."""
    if not PROMETHEUS:
        ok("prometheus is installed (Debian's prometheus package)", False, None, "prometheus")
        return
    h = Helper()
    sv = prom = log = None
    data = os.path.join(TMP, "prometheus")
    try:
        sv = Server(["--pid", str(h.pid), "--min-interval", "0"])
        pport = free_port()
        os.makedirs(data)
        cfg = os.path.join(TMP, "prometheus.yml")
        with open(cfg, "w") as f:
            f.write("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
                    "  evaluation_interval: 1s\n"
                    f"rule_files:\n  - {RULES}\n"
                    "scrape_configs:\n  - job_name: pmaps\n    static_configs:\n"
                    f"      - targets: ['127.0.0.1:{sv.port}']\n")
        log = open(os.path.join(TMP, "prometheus.log"), "wb")
        prom = subprocess.Popen([PROMETHEUS, f"--config.file={cfg}",
                                 f"--storage.tsdb.path={data}",
                                 f"--web.listen-address=127.0.0.1:{pport}", "--log.level=warn"],
                                cwd=TMP, stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        end, ready = time.monotonic() + 40, False
        while time.monotonic() < end and prom.poll() is None and not ready:
            try:
                ready = prom_get(pport, "/-/ready")[0] == 200
            except OSError:
                pass
            time.sleep(0.2)
        ok("prometheus: ready", ready, prom.poll(), "ready on /-/ready")
        if not ready:
            return
        # A few intervals: three scrapes of pmaps serve in its TSDB.
        q, scrapes = f'count_over_time(up{{job="pmaps"}}[5m])', 0
        end = time.monotonic() + 40
        while time.monotonic() < end:
            r = prom_query(pport, q)
            scrapes = int(float(r[0]["value"][1])) if r else 0
            if scrapes >= 3:
                break
            time.sleep(0.5)
        ok("prometheus: scraped pmaps serve three times", scrapes >= 3, scrapes, ">= 3")
        r = prom_query(pport, 'up{job="pmaps"}')
        eq("prometheus: up{job=pmaps}", [x["value"][1] for x in r or []], ["1"])
        st, body = prom_get(pport, "/api/v1/targets")
        active = json.loads(body)["data"]["activeTargets"] if st == 200 else []
        eq("prometheus: the target, healthy, no error",
           [(t["scrapeUrl"], t["health"], t["lastError"]) for t in active],
           [(f"http://127.0.0.1:{sv.port}/metrics", "up", "")])
        # The helper's series, against the kernel read before and after the queries.
        for _ in range(5):
            before = kernel_figures(h.pid)
            got = {}
            for k, metric in (("pss", "pmaps_process_pss_bytes"),
                              ("uss", "pmaps_process_uss_bytes"),
                              ("rss", "pmaps_process_resident_bytes"),
                              ("mappings", "pmaps_process_mappings")):
                r = prom_query(pport, f'{metric}{{job="pmaps",pid="{h.pid}"}}')
                got[k] = [int(float(x["value"][1])) for x in r or []]
                if r:
                    got[k + " labels"] = sorted((a, b) for a, b in r[0]["metric"].items()
                                                if a in ("comm", "user", "pid"))
            after = kernel_figures(h.pid)
            if before == after:
                break
        want = {k: [after[k]] for k in ("pss", "uss", "rss", "mappings")}
        labels = sorted([("comm", "serve_helper"), ("pid", str(h.pid)),
                         ("user", pwd.getpwuid(os.getuid()).pw_name)])
        for k in ("pss", "uss", "rss", "mappings"):
            eq(f"prometheus: the helper's {k} = the kernel's", got.get(k), want[k])
            eq(f"prometheus: the helper's {k} labels", got.get(k + " labels"), labels)
        # The shipped rules, loaded and evaluated on these series without an error.
        st, body = prom_get(pport, "/api/v1/rules")
        rules = [r for g in json.loads(body)["data"]["groups"] for r in g["rules"]] \
            if st == 200 else []
        eq("prometheus: the shipped rules loaded", len(rules), RULES_COUNT)
        eq("prometheus: every rule evaluated without an error",
           [(r["name"], r.get("lastError", "")) for r in rules
            if r["health"] != "ok" or r.get("lastError")], [])
        after = kernel_figures(h.pid)
        r = prom_query(pport, f'pmaps:process_resident_needed:bytes{{job="pmaps",pid="{h.pid}"}}')
        eq("prometheus: the recorded RSS less LazyFree of the helper",
           [int(float(x["value"][1])) for x in r or []], [after["rss"] - after["lazyfree"]])
        # Its cgroup, joined to its figures, and that cgroup's series.
        own = next((ln.rstrip("\n").split(":", 2)[2] for ln in open(f"/proc/{h.pid}/cgroup")
                    if "memory" in ln.split(":")[1].split(",")), None)
        if own and own != "/" and os.path.exists("/sys/fs/cgroup/memory/memory.usage_in_bytes"):
            r = prom_query(pport, 'pmaps_process_resident_bytes * on (pid) group_left (cgroup) '
                                  f'pmaps_process_cgroup_info{{job="pmaps",pid="{h.pid}"}}')
            eq("prometheus: the helper's RSS joined to its cgroup",
               [x["metric"].get("cgroup") for x in r or []], [own])
            r = prom_query(pport, f'pmaps_cgroup_processes{{job="pmaps",cgroup="{own}"}}')
            eq("prometheus: its cgroup's processes (the one selected)",
               [x["value"][1] for x in r or []], ["1"])
            r = prom_query(pport, f'pmaps_cgroup_memory_current_bytes{{job="pmaps",cgroup="{own}"}}')
            ok("prometheus: its cgroup's memory.usage_in_bytes, at least the helper's RSS",
               r and int(float(r[0]["value"][1])) >= after["rss"], r, f">= {after['rss']}")
        r = prom_query(pport, 'pmaps_scrapes_total{job="pmaps"}')
        ok("prometheus: pmaps_scrapes_total counts its scrapes",
           r and int(float(r[0]["value"][1])) >= 3, r, ">= 3")
        # No partial answer: every sample of the ready gauge is 1, none unread.
        r = prom_query(pport, 'min_over_time(pmaps_exporter_ready{job="pmaps"}[5m])')
        eq("prometheus: pmaps_exporter_ready 1 in every scrape", [x["value"][1] for x in r or []],
           ["1"])
        r = prom_query(pport, 'max_over_time(pmaps_scrape_processes{job="pmaps",'
                              'outcome="unread"}[5m])')
        eq("prometheus: no scrape with a process unread", [x["value"][1] for x in r or []], ["0"])
        # The fault counters and the start time, as the kernel has them (the helper is quiet).
        with open(f"/proc/{h.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        with open("/proc/stat") as f:
            btime = next(int(l.split()[1]) for l in f if l.startswith("btime "))
        for metric, want in (("pmaps_process_minor_faults_total", int(fields[7])),
                             ("pmaps_process_major_faults_total", int(fields[9]))):
            r = prom_query(pport, f'{metric}{{job="pmaps",pid="{h.pid}"}}')
            eq(f"prometheus: {metric} = the kernel's", [int(float(x["value"][1])) for x in r or []],
               [want])
        r = prom_query(pport, f'pmaps_process_start_time_seconds{{job="pmaps",pid="{h.pid}"}}')
        got = [float(x["value"][1]) for x in r or []]
        start = btime + int(fields[19]) / os.sysconf("SC_CLK_TCK")
        ok("prometheus: the start time = btime + starttime",
           len(got) == 1 and abs(got[0] - start) < 1e-3, got, start)
    finally:
        if prom:
            prom.send_signal(signal.SIGTERM)
            try:
                rc = prom.wait(30)
            except subprocess.TimeoutExpired:
                prom.kill()
                rc = prom.wait()
            eq("prometheus: stopped by SIGTERM, exit 0", rc, 0)
        if log:
            log.close()
        if failed and os.path.exists(os.path.join(TMP, "prometheus.log")):
            with open(os.path.join(TMP, "prometheus.log"), "rb") as f:
                tail = f.read()[-3000:].decode("utf-8", "replace")
            if tail.strip():
                print("prometheus's log (its end):\n" + tail, flush=True)
        if sv:
            eq("prometheus: pmaps serve stopped, exit 0", sv.stop(), 0)
        h.stop()
        shutil.rmtree(data, ignore_errors=True)


def test_unprivileged():
    """pmaps serve without root: status figures only for root's processes."""
    h = Helper()
    sv = None
    try:
        sv = Server(["--pid", "1", "--pid", str(h.pid), "--min-interval", "0"], as_nobody=ROOT)
        for _ in range(5):
            s1, s2 = status(h.pid), None
            st, _, body = sv.get("/metrics")
            s2 = status(h.pid)
            if s1.get("VmRSS") == s2.get("VmRSS"):
                break
        eq("unprivileged: 200", st, 200)
        if PROMTOOL:
            promtool("unprivileged", body)
        samples, families = check_format("unprivileged", body, False)
        eq("unprivileged: pmaps_exporter_privileged", one(samples, "pmaps_exporter_privileged"), 0)
        hlp = families.get("pmaps_exporter_privileged", {}).get("help") or ""
        ok("unprivileged: pmaps_exporter_privileged's HELP says what root would add",
           "root" in hlp, hlp, "... root ...")
        others = ["1", str(h.pid)] if ROOT else ["1"]
        for pid in others:
            eq(f"unprivileged: pid {pid}: source status",
               [l.get("source") for n, l, v in samples
                if n == "pmaps_process_source_info" and l.get("pid") == pid], ["status"])
            eq(f"unprivileged: pid {pid}: no pss, uss, mappings, lazyfree or category series",
               sorted({n for n, l, v in samples if l.get("pid") == pid and n in (
                   "pmaps_process_pss_bytes", "pmaps_process_uss_bytes",
                   "pmaps_process_mappings", "pmaps_process_lazyfree_bytes",
                   "pmaps_process_memory_bytes")}), [])
            eq(f"unprivileged: pid {pid}: user root",
               sorted({l.get("user") for n, l, v in samples if l.get("pid") == pid}), ["root"])
        if ROOT:
            eq("unprivileged: the helper's resident_bytes = status VmRSS",
               one(samples, "pmaps_process_resident_bytes", pid=str(h.pid)), s2["VmRSS"])
            eq("unprivileged: the helper's swap_bytes = status VmSwap",
               one(samples, "pmaps_process_swap_bytes", pid=str(h.pid)), s2.get("VmSwap", 0))
        denied = find(samples, "pmaps_scrape_processes", outcome="denied")
        ok("unprivileged: pmaps_scrape_processes{outcome=denied} counts them",
           len(denied) == 1 and denied[0] >= len(others), denied, f">= {len(others)}")
        eq("unprivileged: stop, exit 0", sv.stop(), 0)
        sv = None
    finally:
        if sv:
            sv.stop()
        h.stop()


def test_parser():
    """The strict parser itself finds what it is there to find."""
    good = (b"# HELP a_bytes A.\n# TYPE a_bytes gauge\n"
            b'a_bytes{pid="1",comm="x\\"y\\\\z\\n"} 4096\n')
    eq("parser: a good family", parse_exposition(good, False)[2], [])
    eq("parser: its label value unescaped", parse_exposition(good, False)[0][0][1]["comm"],
       'x"y\\z\n')
    bad = {
        "no TYPE": b"# HELP a_bytes A.\na_bytes 1\n",
        "no HELP": b"# TYPE a_bytes gauge\na_bytes 1\n",
        "a bad escape": b'# HELP a A.\n# TYPE a gauge\na{c="\\q"} 1\n',
        "a raw byte that is not UTF-8": b'# HELP a A.\n# TYPE a gauge\na{c="\xff"} 1\n',
        "a split family": b"# HELP a A.\n# TYPE a gauge\na 1\n# HELP b B.\n# TYPE b gauge\nb 1\n"
                          b"# HELP a A.\n",
        "a series twice": b"# HELP a A.\n# TYPE a gauge\na 1\na 2\n",
        "a sample of another name": b"# HELP a A.\n# TYPE a gauge\nab 1\n",
        "a bad value": b"# HELP a A.\n# TYPE a gauge\na 1x\n",
        "an unquoted label": b"# HELP a A.\n# TYPE a gauge\na{c=1} 1\n",
    }
    for what, body in bad.items():
        ok(f"parser: finds {what}", parse_exposition(body, False)[2] != [], body, "a complaint")
    om = b'# HELP c C.\n# TYPE c counter\nc_total{a="1",b="2"} 3\n# EOF\n'
    eq("parser: a good OpenMetrics counter", parse_exposition(om, True)[2], [])
    ok("parser: OpenMetrics: a comma before '}'", parse_exposition(
        b'# HELP c C.\n# TYPE c counter\nc_total{a="1",} 3\n# EOF\n', True)[2] != [], None,
       "a complaint")
    ok("parser: OpenMetrics without # EOF", parse_exposition(om[:-6], True)[2] != [], om[:-6],
       "a complaint")
    ok("parser: an OpenMetrics counter without _total",
       parse_exposition(b"# HELP c C.\n# TYPE c counter\nc 3\n# EOF\n", True)[2] != [], None,
       "a complaint")


def main():
    for t in (test_parser, test_scrape, test_cache, test_hostile_name, test_group_by,
              test_unprivileged, test_prometheus):
        if os.environ.get("SERVE_ONLY") and t.__name__ not in os.environ["SERVE_ONLY"].split(","):
            continue
        try:
            t()
        except Exception as e:  # a test that breaks is a failure, with its reason
            global failed
            failed += 1
            print(f"FAIL: {t.__name__}: {type(e).__name__}: {e}", flush=True)
    print(f"serve_prom: {passed} passed, {failed} failed")
    shutil.rmtree(TMP, ignore_errors=True)
    sys.exit(1 if failed else 0)


main()
