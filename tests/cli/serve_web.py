#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""pmaps serve's JSON endpoints and its web page, against a helper at rest.

    serve_web.py PMAPS SERVE_PAGE_HTML

The helper is a Python process with a hostile name (prctl(PR_SET_NAME) of
"w<b>\\x1b[31m", which status Name shows as it is, or as "w<b>\\e[31m") that
touches 4 MiB and then waits for a line on stdin: once its VmRSS has held
still for a second, its figures hold still. "grow" has it touch 4 MiB more
(in a new mapping), "exec" has it become sleep(1).
The test starts `pmaps serve --listen 127.0.0.1:0 --min-interval 1s` and
checks, with the kernel's own files as the answer:

  - GET / is the page's file, byte for byte;
  - /api/processes has the helper's row, its command the status Name and its
    rss the status VmRSS;
  - /api/process/PID/explain: rss = smaps_rollup Rss, mappings = the lines
    of maps; a pid that does not exist is 404 with a JSON body;
  - a second server of --pid HELPER --pid VICTIM --min-interval 1h: every
    per-process endpoint answers 404 (JSON) for a process outside the
    selection; the victim's explain, pages and picture asked again after it
    grew (smaps_rollup says so) are the same bytes (kept for the interval,
    not read again); once it exec'd into sleep(1) since the refresh (its pid
    now names another program) each is 404 "process N exited", exactly; as
    after it is killed;
  - as root, a third server run as nobody (setpriv): 403 for the helper's
    explain, pages and picture, the error naming CAP_SYS_PTRACE once; and a
    fourth, as nobody over every process: /api/processes says whom it runs
    as ("reader"), its page shows the banner of what root would add, with
    the count of denied processes, and sorts a row without PSS by its RSS;
  - /api/process/PID/pages: one summary per line of maps, in its order;
  - /api/process/PID/pages.svg: well-formed (xmllint), a band per mapping;
  - the page in headless chromium (--dump-dom): the table has the helper's
    row with its name as text (no element made of it), sorted by PSS (RSS
    where there is none), ages as "8 s" or "2 min", the banner shown exactly
    when a process is denied; the process view
    (/#pid=PID) its breakdown by the categories the explain gives and the
    picture loaded (the <img>'s naturalWidth, which the page writes into
    data-natural-width); #errors empty, and no console message or uncaught
    error in chromium's log;
  - the process view after one explain (a short virtual time): the timeline
    a point per category, no area;
  - a screenshot (1280x900) of the process view: not blank, and the file
    categories' green of the bars there; one (1280x1000) of the table, with
    sleep(1)s enough to fill it: the table reaches the window's foot.

Exit 77 (skip) outside CI when chromium, xmllint or PIL is missing, as
tests/cli/svgcheck.py decides. Every process started is stopped on the way
out, whatever happened; the temporary directory is removed.
"""
import html.parser
import json
import os
import pwd
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

sys.dont_write_bytecode = True  # no __pycache__ left in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import svgcheck  # noqa: E402

PMAPS, PAGE_FILE = sys.argv[1], sys.argv[2]
GOTARGET = sys.argv[3] if len(sys.argv) > 3 and sys.argv[3] else None
CHROMIUM = svgcheck.CHROMIUM
DEADLINE = time.monotonic() + 85  # the whole test, well inside ctest's TIMEOUT
passed = failed = 0

HELPER = r"""
import ctypes, signal, sys
libc = ctypes.CDLL(None)
if libc.prctl(15, b"w<b>\x1b[31m", 0, 0, 0) != 0:  # PR_SET_NAME
    sys.exit("prctl failed")
import os
def touch(n):
    b = bytearray(n)
    for i in range(0, len(b), 4096):
        b[i] = 1
    return b
bufs = [touch(4 << 20)]
sys.stdout.write("ready\n")
sys.stdout.flush()
for line in sys.stdin:
    if line == "grow\n":
        bufs.append(touch(4 << 20))
        sys.stdout.write("grown\n")
        sys.stdout.flush()
    elif line == "exec\n":
        os.execvp("sleep", ["sleep", "60"])
while True:
    signal.pause()
"""


def ok(name, cond, got=None, want=None):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print(f"FAIL: {name}: got {got!r}, want {want!r}", flush=True)


def eq(name, got, want):
    ok(name, got == want, got, want)


def left():
    """Seconds left of the test's time (at least 1, for a last try)."""
    return max(1.0, DEADLINE - time.monotonic())


# ---- the kernel's answers ----

def status_field(pid, key):
    with open(f"/proc/{pid}/status", "rb") as f:
        for line in f:
            k, _, v = line.partition(b":")
            if k == key.encode():
                return v.strip()
    return None


def status_kb(pid, key):
    return int(status_field(pid, key).split()[0]) * 1024


def rollup_kb(pid, key):
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    return None


def maps_starts(pid):
    with open(f"/proc/{pid}/maps") as f:
        return ["0x" + line.split("-", 1)[0].lstrip("0").rjust(1, "0") for line in f]


# ---- processes ----

class Server:
    """pmaps serve on a free loopback port; its URL from the line it prints."""

    def __init__(self, *args, prefix=()):
        self.p = subprocess.Popen([*prefix, PMAPS, "serve", "--listen", "127.0.0.1:0", *args],
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE)
        self.url, buf, end = None, b"", time.monotonic() + 15
        while self.url is None and time.monotonic() < end:
            r, _, _ = select.select([self.p.stderr], [], [], 0.5)
            if r:
                chunk = os.read(self.p.stderr.fileno(), 4096)
                if not chunk:
                    break
                buf += chunk
                m = re.search(rb"listening on (http://127\.0\.0\.1:\d+)/\n", buf)
                if m:
                    self.url = m.group(1).decode()
        # The rest of stderr is read as it comes (a full pipe would stop the server).
        self.err = [buf]
        self.drain = threading.Thread(target=self._drain, daemon=True)
        self.drain.start()
        if self.url is None:
            self.stop()
            raise RuntimeError("pmaps serve printed no 'listening on' line: %r" % self.said())

    def _drain(self):
        for chunk in iter(lambda: os.read(self.p.stderr.fileno(), 4096), b""):
            self.err.append(chunk)

    def said(self):
        return b"".join(self.err).decode("utf-8", "replace")

    def stop(self):
        """SIGTERM; its exit status. A sanitizer's report on stderr is a failure."""
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGTERM)
            try:
                self.p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
        self.drain.join(timeout=5)
        bad = [l for l in self.said().splitlines() if "Sanitizer" in l or "runtime error" in l]
        eq("pmaps serve: no sanitizer report", bad, [])
        return self.p.returncode


def get(url, timeout=20):
    """(status, content type, body bytes) of a GET; HTTP errors are answers too."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status, r.headers.get("Content-Type"), r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type"), e.read()


def get_json(url):
    st, ct, body = get(url)
    try:
        return st, ct, json.loads(body)
    except ValueError:
        return st, ct, body


def chromium(tmp, url, *extra, budget=12000):
    """Runs headless chromium on URL (BUDGET ms of virtual time); returns (stdout bytes, stderr text)."""
    prof = tempfile.mkdtemp(prefix="chromium.", dir=tmp)
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
           "--no-first-run", "--no-default-browser-check", "--disable-extensions",
           "--user-data-dir=" + prof, "--enable-logging=stderr", "--v=0",
           "--virtual-time-budget=%d" % budget, *extra, url]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         start_new_session=True, env=dict(os.environ, HOME=prof))
    try:
        out, err = p.communicate(timeout=min(60, left()))
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        raise RuntimeError("chromium timed out on %s" % url)
    finally:
        # Whatever chromium left running in its session goes too.
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return out, err.decode("utf-8", "replace")


def console_trouble(log):
    """Chromium's log lines that are a console message or an uncaught error."""
    return [l for l in log.splitlines() if "CONSOLE" in l or "Uncaught" in l]


class Dom(html.parser.HTMLParser):
    """The dumped DOM: elements by id, table rows with their cells' text and inner tags."""

    VOID = {"meta", "link", "img", "input", "br", "hr", "col", "source"}

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.stack, self.by_id, self.rows, self.row = [], {}, [], None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        node = {"tag": tag, "attrs": a, "text": "", "tags": [], "parents": [n["tag"] for n in self.stack]}
        if "id" in a:
            self.by_id[a["id"]] = node
        for n in self.stack:
            n["tags"].append(tag)
        if tag == "tr":
            node["cells"], node["table"] = [], next(
                (n["attrs"].get("id") for n in reversed(self.stack) if n["tag"] == "table"), None)
            node["section"] = next((n["tag"] for n in reversed(self.stack)
                                    if n["tag"] in ("tbody", "thead", "tfoot")), None)
            self.rows.append(node)
        if tag == "td" and self.stack:
            tr = next((n for n in reversed(self.stack) if n["tag"] == "tr"), None)
            if tr is not None:
                tr["cells"].append(node)
        if tag not in self.VOID:
            self.stack.append(node)

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i]["tag"] == tag:
                del self.stack[i:]
                return

    def handle_data(self, data):
        for n in self.stack:
            n["text"] += data

    def table_rows(self, table, section="tbody"):
        return [r for r in self.rows if r["table"] == table and r["section"] == section]


# ---- the checks ----

def check_api(srv, pid, name):
    st, ct, body = get(srv.url + "/")
    eq("GET /: status", st, 200)
    ok("GET /: text/html", (ct or "").startswith("text/html"), ct, "text/html...")
    with open(PAGE_FILE, "rb") as f:
        page = f.read()
    ok("GET /: the page, byte for byte", body == page, len(body), len(page))

    # The helper's row: the survey may not have it in its first refresh (1 s apart).
    row, end = None, time.monotonic() + 15
    while row is None and time.monotonic() < end:
        st, ct, doc = get_json(srv.url + "/api/processes")
        if st != 200 or not isinstance(doc, dict):
            break
        row = next((p for p in doc.get("processes", []) if p.get("pid") == pid), None)
        if row is None:
            time.sleep(0.5)
    eq("/api/processes: status", st, 200)
    eq("/api/processes: content type", ct, "application/json")
    ok("/api/processes: the helper's row", row is not None, None, pid)
    if row:
        eq("/api/processes: command = status Name", row.get("command", "").encode(), name)
        eq("/api/processes: rss = status VmRSS", row.get("rss"), status_kb(pid, "VmRSS"))

    st, ct, x = get_json(f"{srv.url}/api/process/{pid}/explain")
    eq("explain: status", st, 200)
    eq("explain: content type", ct, "application/json")
    if st == 200 and isinstance(x, dict):
        eq("explain: pid", x.get("pid"), pid)
        eq("explain: rss = smaps_rollup Rss", x.get("rss"), rollup_kb(pid, "Rss"))
        eq("explain: mappings = lines of maps", x.get("mappings"), len(maps_starts(pid)))
        cats = x.get("categories", [])
        eq("explain: the categories' rss add up to rss", sum(c["rss"] for c in cats), x.get("rss"))
    st, ct, e = get_json(srv.url + "/api/process/999999999/explain")
    eq("explain of no process: 404", st, 404)
    ok("explain of no process: a JSON error", isinstance(e, dict) and "error" in e, str(e)[:200],
       {"error": "..."})

    st, ct, pg = get_json(f"{srv.url}/api/process/{pid}/pages")
    eq("pages: status", st, 200)
    eq("pages: content type", ct, "application/json")
    if st == 200 and isinstance(pg, dict):
        eq("pages: a summary per line of maps, in order",
           [m.get("start") for m in pg.get("mappings", [])], maps_starts(pid))
        eq("pages: pid", pg.get("pid"), pid)

    st, ct, svg = get(f"{srv.url}/api/process/{pid}/pages.svg")
    eq("pages.svg: status", st, 200)
    eq("pages.svg: content type", ct, "image/svg+xml")
    return x if isinstance(x, dict) else None, svg


def check_svg(tmp, pid, svg):
    path = os.path.join(tmp, "pages.svg")
    with open(path, "wb") as f:
        f.write(svg)
    good, msg = svgcheck.xml_ok(path)
    ok("pages.svg: well-formed (xmllint)", good, msg, "")
    bands = [int(m) for m in re.findall(rb'data-mappings="(\d+)"', svg)]
    eq("pages.svg: its bands hold every mapping", sum(bands), len(maps_starts(pid)))


def start_helper():
    """A helper at rest (HELPER); returns its Popen once it is ready."""
    h = subprocess.Popen([sys.executable, "-c", HELPER], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE)
    r, _, _ = select.select([h.stdout], [], [], 15)
    if not r or h.stdout.readline() != b"ready\n":
        h.kill()
        h.wait()
        raise RuntimeError("the helper did not start")
    # At rest once its VmRSS holds still for a second (what Python did after "ready" is done).
    last, still, end = None, 0, time.monotonic() + 10
    while still < 5 and time.monotonic() < end:
        cur = status_kb(h.pid, "VmRSS")
        still = still + 1 if cur == last else 0
        last = cur
        time.sleep(0.2)
    return h


def tell(h, line, reply=None):
    """Sends LINE to helper H; with REPLY, waits for that line back."""
    h.stdin.write(line.encode() + b"\n")
    h.stdin.flush()
    if reply is not None:
        r, _, _ = select.select([h.stdout], [], [], 15)
        got = h.stdout.readline() if r else b""
        eq(f"the helper's answer to {line!r}", got, reply.encode() + b"\n")


def check_kept_and_reused(srv, victim):
    """
    The victim's explain, pages and picture, asked again after it grew, are
    the answers of the first asking (the server keeps each for its hour);
    after it exec'd into sleep(1), its pid is another program's than the
    refresh saw: 404, "process N exited", exactly.
    """
    vp = victim.pid
    first = {}
    for what in ("explain", "pages", "pages.svg"):
        st, _, body = get(f"{srv.url}/api/process/{vp}/{what}")
        eq(f"{what} of the victim: 200", st, 200)
        first[what] = body
    rss0 = json.loads(first["explain"]).get("rss") if first["explain"].startswith(b"{") else None
    tell(victim, "grow", "grown")
    ok("the victim grew (smaps_rollup Rss passed the explain's by 3 MiB at least)",
       rss0 is not None and rollup_kb(vp, "Rss") >= rss0 + (3 << 20), rollup_kb(vp, "Rss"),
       f">= {rss0} + 3 MiB")
    for what in ("explain", "pages", "pages.svg"):
        st, _, body = get(f"{srv.url}/api/process/{vp}/{what}")
        eq(f"{what} of the victim again, within --min-interval: 200", st, 200)
        ok(f"... the same bytes (kept, not read again)", body == first[what],
           body[:120], first[what][:120])
    tell(victim, "exec")
    end = time.monotonic() + 10
    while status_field(vp, "Name") != b"sleep" and time.monotonic() < end:
        time.sleep(0.05)
    eq("the victim is sleep(1) now", status_field(vp, "Name"), b"sleep")
    want = {"error": f"process {vp} exited", "pid": vp}
    for what in ("explain", "pages", "pages.svg"):
        st, ct, e = get_json(f"{srv.url}/api/process/{vp}/{what}")
        eq(f"{what} of a pid another program has since the refresh: 404", (st, ct),
           (404, "application/json"))
        ok("... the row's process exited", e == want, str(e)[:300], want)


def check_selection(pid):
    """
    A server of the helper and a victim alone, whose figures are kept for an
    hour: another process is not shown (404); the victim's answers kept, then
    its pid another program's (check_kept_and_reused()); killed after the
    first refresh, it is still selected but gone (404, "exited"), whatever is
    asked of it.
    """
    victim = start_helper()
    srv = None
    try:
        srv = Server("--pid", str(pid), "--pid", str(victim.pid), "--min-interval", "1h")
        st, _, doc = get_json(srv.url + "/api/processes")
        eq("--pid HELPER --pid VICTIM: their rows", sorted(p["pid"] for p in doc.get("processes", []))
           if isinstance(doc, dict) else doc, sorted([pid, victim.pid]))
        for what in ("explain", "pages", "pages.svg"):
            st, ct, e = get_json(f"{srv.url}/api/process/{os.getpid()}/{what}")
            eq(f"{what} of a process outside the selection: 404", st, 404)
            ok("... as a JSON error", ct == "application/json" and isinstance(e, dict) and "error" in e,
               (ct, str(e)[:200]), ("application/json", {"error": "..."}))
        check_kept_and_reused(srv, victim)
        victim.kill()
        victim.wait()
        for what in ("explain", "pages", "pages.svg"):
            st, ct, e = get_json(f"{srv.url}/api/process/{victim.pid}/{what}")
            eq(f"{what} of a selected process that exited: 404", st, 404)
            ok("... as a JSON error saying so", isinstance(e, dict) and "exited" in e.get("error", ""),
               str(e)[:200], {"error": "process ... exited"})
        st, _, x = get_json(f"{srv.url}/api/process/{pid}/explain")
        eq("explain of the selected helper: 200", st, 200)
    finally:
        if srv:
            eq("pmaps serve --pid: exit 0 on SIGTERM", srv.stop(), 0)
        victim.kill()
        victim.wait()


NOBODY = ("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups")


def check_denied(tmp, pid):
    """
    A server run as nobody: the helper (root's) is shown, its memory not
    readable: 403, the privilege named once. Another over every process
    (figures kept for the test's length): its page's banner and order.
    """
    srv = Server("--pid", str(pid), "--min-interval", "1s", prefix=NOBODY)
    try:
        for what in ("explain", "pages", "pages.svg"):
            st, ct, e = get_json(f"{srv.url}/api/process/{pid}/{what}")
            eq(f"{what} of another user's process: 403", st, 403)
            msg = e.get("error", "") if isinstance(e, dict) else str(e)[:200]
            eq("... as a JSON error naming the privilege once", msg.count("CAP_SYS_PTRACE"), 1)
    finally:
        eq("pmaps serve as nobody: exit 0 on SIGTERM", srv.stop(), 0)

    srv = Server("--min-interval", "1h", prefix=NOBODY)
    try:
        st, _, doc = get_json(srv.url + "/api/processes")
        eq("as nobody: /api/processes", st, 200)
        if st != 200 or not isinstance(doc, dict):
            return
        eq("as nobody: the reader", doc.get("reader"),
           {"user": pwd.getpwuid(65534).pw_name, "uid": 65534, "root": False})
        rows = doc.get("processes", [])
        denied = sum("denied" in p.get("flags", []) for p in rows)
        ok("as nobody: root's processes denied", denied >= 1 and denied < len(rows), denied,
           f"1 .. {len(rows) - 1}")
        out, log = chromium(tmp, srv.url + "/", "--dump-dom")
        dom = Dom(out.decode("utf-8", "replace"))
        banner = dom.by_id.get("banner", {"attrs": {"hidden": ""}, "text": ""})
        ok("as nobody: the banner shown", "hidden" not in banner["attrs"], banner["attrs"], "not hidden")
        # The page's own rows: the server may refresh between the API's answer
        # and the page's (a process of another test started or ended).
        shown = [r["cells"] for r in dom.table_rows("procs") if len(r["cells"]) > 7]
        denied = sum(c[7]["text"].endswith(" D") for c in shown)
        eq("as nobody: the banner's words", banner["text"],
           f"{denied} of {len(shown)} processes are another user's: pmaps serve runs as "
           f"{pwd.getpwuid(65534).pw_name} without CAP_SYS_PTRACE; root would add their PSS, USS "
           f"and breakdown.")
        check_order(dom, "as nobody")
        eq("as nobody: #errors empty", dom.by_id.get("errors", {}).get("text"), "")
        eq("as nobody: no console message or uncaught error", console_trouble(log), [])
    finally:
        eq("pmaps serve as nobody over all: exit 0 on SIGTERM", srv.stop(), 0)


def check_order(dom, what):
    """
    The table sorted by PSS, largest first, a row without PSS by its RSS (the
    cells' titles); a row with neither (a zombie has no VmRSS) last.
    """
    keys = []
    for r in dom.table_rows("procs"):
        c = r["cells"]
        if len(c) > 4:
            v = (c[4]["attrs"].get("title") or c[3]["attrs"].get("title") or "").split(" ")[0]
            keys.append(int(v) if v else None)
    have = [k for k in keys if k is not None]
    ok(f"{what}: rows", len(have) > 1, len(have), "> 1")
    eq(f"{what}: sorted by PSS (else RSS), largest first; none last", keys,
       sorted(have, reverse=True) + [None] * (len(keys) - len(have)))


def check_page(tmp, srv, pid, name, x):
    shown = name.decode("utf-8", "surrogateescape")

    out, log = chromium(tmp, srv.url + "/", "--dump-dom")
    dom = Dom(out.decode("utf-8", "replace"))
    rows = [r for r in dom.table_rows("procs") if r["attrs"].get("data-pid") == str(pid)]
    eq("page /: one row of the helper", len(rows), 1)
    if rows:
        cells = [c["text"] for c in rows[0]["cells"]]
        ok("page /: its cells: pid, user, command", cells[:1] == [str(pid)] and shown in cells,
           cells[:3], [str(pid), "...", shown])
        eq("page /: no element made of its name", [t for t in rows[0]["tags"] if t not in ("td", "span")], [])
    ok("page /: other processes' rows too", len(dom.table_rows("procs")) > 1,
       len(dom.table_rows("procs")), "> 1")
    # Sorted by PSS, largest first (the exact bytes are each cell's title), else by RSS.
    check_order(dom, "page /")
    ages = [r["cells"][8]["text"] for r in dom.table_rows("procs") if len(r["cells"]) > 8]
    eq("page /: ages as '8 s', '2 min' or none",
       [a for a in ages if not re.fullmatch(r"(\d+ (s|min|h))?", a)], [])
    st, _, doc = get_json(srv.url + "/api/processes")
    rows = doc.get("processes", []) if isinstance(doc, dict) else []
    if any("age_s" in p for p in rows):
        ok("page /: some age shown", any(ages), ages[:5], "an age")
    banner = dom.by_id.get("banner", {"attrs": {}, "text": "?"})
    if not any("denied" in p.get("flags", []) for p in rows):
        ok("page /: no banner without a denied process", "hidden" in banner["attrs"],
           (banner["attrs"], banner["text"]), "hidden")
    asof = dom.by_id.get("asof", {}).get("text", "")
    ok("page /: the 'as of' time", asof.startswith("as of "), asof, "as of HH:MM:SS ...")
    eq("page /: #errors empty", dom.by_id.get("errors", {}).get("text"), "")
    eq("page /: no console message or uncaught error", console_trouble(log), [])

    out, log = chromium(tmp, f"{srv.url}/#pid={pid}", "--dump-dom")
    dom = Dom(out.decode("utf-8", "replace"))
    proc = dom.by_id.get("proc", {"attrs": {"hidden": ""}})
    ok("page #pid: the process view shown", "hidden" not in proc["attrs"], proc["attrs"], "not hidden")
    title = dom.by_id.get("proc-title", {}).get("text", "")
    eq("page #pid: its title, the name as text", title, f"Process {pid} ({shown})")
    cats = [r["attrs"].get("data-category") for r in dom.table_rows("breakdown")]
    want = [c["category"] for c in x["categories"]] if x else None
    eq("page #pid: the breakdown's categories are the explain's", cats, want)
    total = dom.table_rows("breakdown", "tfoot")
    ok("page #pid: a total row", len(total) == 1 and total[0]["cells"][0]["text"] == "total",
       [r["cells"][0]["text"] for r in total], ["total"])
    img = dom.by_id.get("picture", {"attrs": {}})["attrs"]
    eq("page #pid: the picture's src", img.get("src", "").split("?")[0], f"/api/process/{pid}/pages.svg")
    ok("page #pid: the picture loaded (naturalWidth > 0)", int(img.get("data-natural-width") or 0) > 0,
       img.get("data-natural-width"), "> 0")
    tl = dom.by_id.get("timeline", {"tags": []})
    ok("page #pid: the timeline has its areas", tl["tags"].count("path") >= len(want or [1]),
       tl["tags"].count("path"), ">= one per category")
    eq("page #pid: #errors empty", dom.by_id.get("errors", {}).get("text"), "")
    eq("page #pid: no console message or uncaught error", console_trouble(log), [])

    # One explain read (the next is 5 s of virtual time away): a point per category, no area.
    out, log = chromium(tmp, f"{srv.url}/#pid={pid}", "--dump-dom", budget=1500)
    dom = Dom(out.decode("utf-8", "replace"))
    tl = dom.by_id.get("timeline", {"tags": []})
    eq("page #pid, one sample: the timeline's points, no area",
       (tl["tags"].count("circle"), tl["tags"].count("path")), (len(want or []) + 1, 0))
    eq("page #pid, one sample: no console message or uncaught error", console_trouble(log), [])

    shot = os.path.join(tmp, "shot.png")
    out, log = chromium(tmp, f"{srv.url}/#pid={pid}", "--screenshot=" + shot, "--window-size=1280,900")
    ok("screenshot written", os.path.isfile(shot), None, shot)
    if os.path.isfile(shot):
        from PIL import Image
        img = Image.open(shot).convert("RGB")
        eq("screenshot: its size", img.size, (1280, 900))
        colours = img.getcolors(1280 * 900) or []
        ok("screenshot: not blank (many colours)", len(colours) >= 16 and svgcheck.not_blank(img),
           len(colours), ">= 16")
        green = svgcheck.count_near(img, "#2e9e5b", tol=8)
        ok("screenshot: the file-text bar and swatches drawn (#2e9e5b)", green >= 20, green, ">= 20")
    eq("screenshot: no console message or uncaught error", console_trouble(log), [])
    check_height(tmp, srv)


def check_books(tmp, srv, helper_pid):
    """The page's "Runtime's books" of a Go program (tests/live/gotarget.go serving
    its pprof): a row per term of the explain's join, in its order, their sum its
    RSS; of the helper (no runtime with books), the sentence that says so."""
    g = subprocess.Popen([GOTARGET], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         env=dict(os.environ, GOTARGET_PPROF="1", GODEBUG="madvdontneed=0"))
    try:
        ok("books: the Go target serves pprof", g.stdout.readline().startswith(b"pprof "))
        eq("books: the Go target is ready", g.stdout.readline(), b"ready\n")
        time.sleep(1.2)  # a refresh of the server's list (--min-interval 1s) that has it
        out, log = chromium(tmp, f"{srv.url}/#pid={g.pid}", "--dump-dom")
        dom = Dom(out.decode("utf-8", "replace"))
        # The answer the page had: kept by the server for --min-interval.
        st, _, x = get_json(f"{srv.url}/api/process/{g.pid}/explain")
        j = (x or {}).get("runtime_books", {}).get("join", {})
        eq("books: the explain joined the Go books", (st, j.get("ok")), (200, True))
        rows = dom.table_rows("books")
        eq("books: a row per term, in the join's order",
           [r["attrs"].get("data-term") for r in rows], [t["key"] for t in j.get("terms", [])])
        foot = dom.table_rows("books", "tfoot")
        eq("books: the sum row says the terms add up to the RSS",
           [c["text"] for c in foot[0]["cells"]][4:] if foot else None, ["the terms' sum"])
        eq("books: no console message or uncaught error", console_trouble(log), [])
        out, log = chromium(tmp, f"{srv.url}/#pid={helper_pid}", "--dump-dom", budget=3000)
        dom = Dom(out.decode("utf-8", "replace"))
        why = dom.by_id.get("books-why", {}).get("text", "")
        ok("books: the helper's page says it has none", "keeps no books" in why, why,
           "... keeps no books ...")
        eq("books: its table hidden", "hidden" in dom.by_id.get("books", {}).get("attrs", {}),
           True)
    finally:
        g.stdin.close()
        g.wait(timeout=10)


def check_height(tmp, srv):
    """
    The table uses the window's height: in a 1280x1000 window, with rows
    enough to fill it (sleep(1)s started here when the machine has too few),
    text reaches the window's last 100 pixels.
    """
    st, _, doc = get_json(srv.url + "/api/processes")
    n = len(doc.get("processes", [])) if isinstance(doc, dict) else 0
    sleeps = []
    try:
        for _ in range(max(0, 60 - n)):
            sleeps.append(subprocess.Popen(["sleep", "60"], stdin=subprocess.DEVNULL))
        if sleeps:
            time.sleep(1.5)  # a refresh (--min-interval 1s) that has them
        shot = os.path.join(tmp, "list.png")
        out, log = chromium(tmp, srv.url + "/", "--screenshot=" + shot, "--window-size=1280,1000")
        ok("screenshot of the table written", os.path.isfile(shot), None, shot)
        if os.path.isfile(shot):
            from PIL import Image
            img = Image.open(shot).convert("RGB")
            foot = img.crop((0, 900, 1280, 995))
            dark = sum(n for n, c in (foot.getcolors(1280 * 100) or []) if sum(c) < 3 * 160)
            ok("screenshot of the table: text in the window's last 100 pixels", dark >= 200, dark, ">= 200")
        eq("screenshot of the table: no console message or uncaught error", console_trouble(log), [])
    finally:
        for p in sleeps:
            p.kill()
            p.wait()


def main():
    svgcheck.require()
    tmp = tempfile.mkdtemp(prefix="pmaps-serve-web-")
    helper, srv = None, None
    try:
        helper = start_helper()
        pid = helper.pid
        name = status_field(pid, "Name")
        # Kernels differ: some write ESC as is, some as \e (seq_escape_str's ESCAPE_SPECIAL).
        ok("the helper's name, as status shows it", name in (b"w<b>\x1b[31m", b"w<b>\\e[31m"),
           name, b"w<b>\x1b[31m or w<b>\\e[31m")
        rss0 = status_kb(pid, "VmRSS")
        srv = Server("--min-interval", "1s")
        x, svg = check_api(srv, pid, name)
        check_svg(tmp, pid, svg)
        check_selection(pid)
        if os.geteuid() == 0 and shutil.which("setpriv"):
            check_denied(tmp, pid)
        check_page(tmp, srv, pid, name, x)
        if GOTARGET:
            check_books(tmp, srv, pid)
        elif os.environ.get("CI") not in (None, "", "false"):
            ok("the Go target is built (CI has golang-go)", False)
        # Still at rest after all that reading: the figures checked did not move under it.
        eq("the helper's VmRSS held still", status_kb(pid, "VmRSS"), rss0)
    except Exception as e:  # a check that breaks is a failure, with its reason
        global failed
        failed += 1
        print(f"FAIL: {type(e).__name__}: {e}", flush=True)
    finally:
        if srv:
            eq("pmaps serve: exit 0 on SIGTERM", srv.stop(), 0)
        if helper:
            helper.kill()
            helper.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"serve_web: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


main()
