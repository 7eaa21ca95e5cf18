#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""One explain everywhere: the four front ends of the same question agree.

    explain_four.py PMAPS GOTARGET JAVA JVMTARGET MALLOC_TARGET PYTHON_DIR LIBPMAPS

(PYTHON_DIR and LIBPMAPS "-": the binding is left out, as under the sanitizers.)

For four processes at rest -
  go      tests/live/gotarget.go with its net/http/pprof (GOTARGET_PPROF=1),
  jvm     tests/live/JvmTarget.java under -XX:NativeMemoryTracking=summary,
  glibc   tests/live/malloc_target.c under `pmaps run --malloc-books`,
  cpython a python3 holding some objects -
the test reads explain four ways, one right after the other:
  A  `pmaps explain --json PID`,
  B  /api/process/PID/explain of `pmaps serve` (a server over the four),
  C  the Python binding's pmaps.explain(PID),
  D  top's drill-down (`pmaps top --pid PID`, Enter) captured with tmux,
     against `pmaps explain PID`'s text.
A, B and C must have the same keys everywhere (a list's items by their
name: a category, a note, a book's category, a join's term), the same
source and its reason, the same books asked and read and their sources,
the same join terms in the same order, each adding up to its RSS; for the
two processes at rest whatever reads them (glibc, cpython: no books to ask)
the same figures too, read again until two rounds agree (the kernel's
counts of a process at rest hold still). A Go program answers its books
from its own heap and a JVM attaches a thread for jcmd, so theirs move by
what each read cost: there the kernel's side of the file mappings must be
the same, and the runtime's figures that cannot move (the Go environment,
the Java heap committed) equal. D's text must be A's report line for line,
numbers aside. glibc malloc's own books are for `pmaps run` alone: none of
the four asks the helper, and all four say so the same way.

Exit 77 (skipped) without go, java, tmux or the binding's library, outside
CI; in CI that fails. Every process started is stopped on the way out.
"""
import json
import os
import re
import select
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from checks import eq, finish, ok  # noqa: E402

PMAPS, GOTARGET, JAVA, JVMTARGET, MALLOC_TARGET, PYDIR, LIBPMAPS = sys.argv[1:8]
procs = []
TMP = tempfile.mkdtemp(prefix="pmaps-four-")
SOCK = os.path.join(TMP, "tmux.sock")


def skip(why):
    if os.environ.get("CI") not in (None, "", "false"):
        print(f"explain_four: {why} (CI runs every test)")
        sys.exit(1)
    print(f"explain_four: skipped: {why}")
    sys.exit(77)


def readline(p, timeout=60):
    """A line of P's standard output within TIMEOUT, or ''."""
    end = time.monotonic() + timeout
    buf = b""
    fd = p.stdout.fileno()
    while time.monotonic() < end:
        r, _, _ = select.select([fd], [], [], 0.2)
        if r:
            c = os.read(fd, 1)
            if not c:
                break
            if c == b"\n":
                return buf.decode("utf-8", "replace")
            buf += c
    return ""


def start(cmd, env=None, ready="ready"):
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
    procs.append(p)
    while True:
        line = readline(p)
        if line == ready or not line:
            ok(f"{cmd[0]}: ready", line == ready, line, ready)
            return p


def children(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return []


# ---- the four readings ----

def explain_cli(pid, *args):
    r = subprocess.run([PMAPS, "explain", *args, str(pid)], capture_output=True, text=True,
                       timeout=120)
    eq(f"pmaps explain {' '.join(args)} {pid}: exit status", r.returncode, 0)
    return r.stdout


class Serve:
    def __init__(self, pids):
        self.p = subprocess.Popen([PMAPS, "serve", "--listen", "127.0.0.1:0", "--min-interval",
                                   "0", "--pid", ",".join(map(str, pids))],
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        procs.append(self.p)
        self.base = None
        end = time.monotonic() + 60
        out = ""
        while time.monotonic() < end and self.base is None:
            line = readline(self.p, 5)
            out += line + "\n"
            m = re.search(r"listening on (http://127\.0\.0\.1:\d+)/", line)
            if m:
                self.base = m.group(1)
        ok("serve: listening", self.base is not None, out, "a 'listening on' line")

    def explain(self, pid):
        with urllib.request.urlopen(f"{self.base}/api/process/{pid}/explain", timeout=60) as r:
            return json.loads(r.read().decode("utf-8"))


def explain_python(pid):
    """pmaps.explain(PID) in a python3 of its own, the binding from the source tree."""
    code = ("import json, sys, pmaps; "
            "print(json.dumps(pmaps.explain(int(sys.argv[1]))))")
    env = dict(os.environ, PYTHONPATH=PYDIR, PMAPS_LIBRARY=LIBPMAPS, PYTHONDONTWRITEBYTECODE="1")
    r = subprocess.run([sys.executable, "-c", code, str(pid)], capture_output=True, text=True,
                       env=env, timeout=120)
    eq(f"python explain {pid}: exit status", r.returncode, 0)
    if r.returncode:
        print(r.stderr)
        return {}
    return json.loads(r.stdout)


def tm(*args):
    return subprocess.run(["tmux", "-S", SOCK, *args], capture_output=True, text=True)


def explain_top(pid, want_lines):
    """top's drill-down into PID in a 1000x200 tmux (the report's longest lines whole):
    its lines, once they stop changing."""
    conf = os.path.join(TMP, "tmux.conf")
    with open(conf, "w") as f:
        f.write("set-option -g status off\nset-option -g remain-on-exit on\n")
    s = f"four{pid}"
    tm("-f", conf, "new-session", "-d", "-s", s, "-x", "1000", "-y", "200",
       "env", "TERM=screen", "LANG=C.UTF-8", PMAPS, "top", "-d", "5", "--pid", str(pid))
    screen = ""
    end = time.monotonic() + 30
    while time.monotonic() < end:
        screen = tm("capture-pane", "-p", "-t", s).stdout
        if re.search(rf"^\s*{pid}\s", screen, re.M):
            break
        time.sleep(0.2)
    tm("send-keys", "-t", s, "Enter")
    last, lines = None, []
    end = time.monotonic() + 60
    while time.monotonic() < end:
        screen = tm("capture-pane", "-p", "-t", s).stdout
        lines = screen.split("\n")
        if any(ln.startswith("pmaps explain: process") for ln in lines) and \
                "reading process" not in screen and screen == last and \
                len([ln for ln in lines if ln.strip()]) >= len(want_lines) // 2:
            break
        last = screen
        time.sleep(0.5)
    tm("send-keys", "-t", s, "q")
    time.sleep(0.3)
    tm("kill-session", "-t", s)
    # The report: from its first line to the last before the view's key help.
    try:
        first = next(i for i, ln in enumerate(lines) if ln.startswith("pmaps explain: process"))
    except StopIteration:
        return screen.split("\n")
    body = [ln.rstrip() for ln in lines[first:]]
    while body and (not body[-1] or body[-1].lstrip().startswith("Esc")):
        body.pop()
    return body


# ---- comparing ----

NAMED = ("category", "note", "key", "name")


def paths(o, at=""):
    """The key paths of O; a list's items by their name where they have one, but the
    largest mappings by their rank: which mappings they are moves with a process that
    moves (a JVM's thread started for jcmd puts a stack among them for one read and
    not the next), how many there are does not."""
    out = set()
    if isinstance(o, dict):
        for k, v in o.items():
            out.add(f"{at}/{k}")
            out |= paths(v, f"{at}/{k}")
    elif isinstance(o, list):
        for i, v in enumerate(o):
            name = next((str(v[n]) for n in NAMED if isinstance(v, dict) and n in v
                         and not at.endswith("/largest")), str(i))
            out |= paths(v, f"{at}[{name}]")
    return out


# Whose pages only this process maps: every figure holds still while it rests. A
# file's pages are shared with whatever maps the same file (the pmaps and python3
# that read it map libc): their PSS and their private/shared split move with the
# readers, their RSS does not.
PRIVATE_CATS = ("heap", "anon", "anon-named", "runtime-heap", "thread-stacks", "main-stack")


def cats(d):
    return {c["category"]: {k: v for k, v in c.items() if k != "category"}
            for c in d.get("categories", [])}


def still(d):
    """The figures that hold still in a process at rest, whoever reads it."""
    return {k: v if k in PRIVATE_CATS else {f: v[f] for f in ("mappings", "rss") if f in v}
            for k, v in cats(d).items()}


def books_shape(d):
    """What the books say of themselves, and the join's shape: the same in every front end."""
    rb = d.get("runtime_books")
    if rb is None:
        return None
    out = {}
    for name, b in rb.items():
        if name == "join":
            out["join"] = (b.get("ok"), b.get("refused"),
                           [(t["key"], t["source"], t["part"]) for t in b.get("terms", [])],
                           sorted(b.get("parts", {})))
        else:
            out[name] = (b.get("ok"), b.get("source"), b.get("nmt"),
                         [c["name"] for c in b.get("categories", [])])
    return out


def mask(line, at_rest):
    """A line of the report, its numbers and times masked and its spacing folded; of a
    process that moves, a mapping of the largest (which ones they are moves with it) and
    the threads' line (a running thread's stack pointer is not read: its stack is
    guessed)."""
    if not at_rest and re.match(r"\s*[0-9a-f]+-[0-9a-f]+\s", line):
        return "a mapping"
    if not at_rest and line.startswith("Threads: "):
        return "Threads: ..."
    line = re.sub(r"\d+(\.\d+)?[KMGTkB%]?", "N", line)
    return re.sub(r"\s+", " ", line).strip()


def same_json(name, a, b, c, at_rest):
    for other, what in ((b, "serve"), (c, "python")):
        pa, po = paths(a), paths(other)
        ok(f"{name}: {what}'s keys are explain's", pa == po,
           sorted(pa ^ po)[:20], "the same keys")
        eq(f"{name}: {what}'s source", (other.get("source"), other.get("source_choice", {})
                                        .get("reason")),
           (a.get("source"), a.get("source_choice", {}).get("reason")))
        eq(f"{name}: {what}'s runtime", other.get("runtime", {}).get("name"),
           a.get("runtime", {}).get("name"))
        eq(f"{name}: {what}'s books and join, as explain's", books_shape(other), books_shape(a))
        eq(f"{name}: {what}'s categories", sorted(cats(other)), sorted(cats(a)))
        if at_rest:
            eq(f"{name}: {what}'s figures", still(other), still(a))
        else:
            for k in ("file-text", "file-ro"):
                eq(f"{name}: {what}'s {k} (mappings, rss)", still(other).get(k), still(a).get(k))
    for d, what in ((a, "explain"), (b, "serve"), (c, "python")):
        j = d.get("runtime_books", {}).get("join")
        if j and j.get("ok"):
            eq(f"{name}: {what}'s join adds up to its rss", sum(t["bytes"] for t in j["terms"]),
               j["rss"])
            eq(f"{name}: {what}'s join rss is its own", j["rss"], d["rss"])


def instant(lines, at_rest):
    """The report's lines less, of a process that moves, the two of the note that
    status's VmRSS and the categories' sum were apart, and with the line that
    compares the categories' sum with smaps_rollup's made one (it moved between
    the two reads of one run, and not of the other)."""
    if at_rest:
        return lines
    out, drop = [], False
    for ln in lines:
        if ln.startswith("Reconciled: the categories add up to ") and "smaps_rollup" in ln:
            out.append("Reconciled: the categories add up to N KiB of RSS; smaps_rollup: compared")
            continue
        if re.match(r"\s*\d+ KiB from the sum above: status was read first", ln):
            drop = True
            continue
        if drop and ln.strip().startswith("approximate before Linux"):
            drop = False
            continue
        drop = False
        out.append(ln)
    return out


def same_text(name, top, text, at_rest):
    want = [mask(ln, at_rest) for ln in instant(text.rstrip("\n").split("\n"), at_rest)]
    got = [mask(ln, at_rest) for ln in instant(top, at_rest)]
    eq(f"{name}: top's drill-down is explain's report, line for line", got, want)
    if got != want:
        print("\n".join(top[:80]))


def round_(name, pid, serve, at_rest):
    a = json.loads(explain_cli(pid, "--json") or "{}")
    b = serve.explain(pid)
    c = explain_python(pid) if LIBPMAPS != "-" else b
    return a, b, c


def main():
    for tool, what in ((GOTARGET, "go"), (JAVA, "java")):
        if not tool or not os.access(tool, os.X_OK):
            skip(f"no {what}")
    if subprocess.run(["sh", "-c", "command -v tmux"], capture_output=True).returncode:
        skip("no tmux (Debian tmux)")
    if LIBPMAPS == "-":
        print("explain_four: the Python binding left out (a sanitized build)")
    elif not os.path.exists(LIBPMAPS):
        skip(f"no {LIBPMAPS}")
    go = start([GOTARGET], env=dict(os.environ, GOTARGET_PPROF="1"))
    jvm = start([JAVA, "-Xms64m", "-Xmx64m", "-XX:NativeMemoryTracking=summary", JVMTARGET])
    run = subprocess.Popen([PMAPS, "run", "--malloc-books", "-q", "-i", "1s", "--",
                            MALLOC_TARGET], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL)
    procs.append(run)
    ok("glibc: ready", readline(run) == "ready", None, "ready")
    glibc_pid = next(iter(children(run.pid)), None)
    ok("glibc: the command's pid", glibc_pid is not None, children(run.pid), "a child")
    py = start([sys.executable, "-c", "import time\nkeep = [bytes(4096) for _ in range(4000)]\n"
                "print('ready', flush=True)\ntime.sleep(600)\n"])
    targets = [("go", go.pid, False), ("jvm", jvm.pid, False), ("glibc", glibc_pid, True),
               ("cpython", py.pid, True)]
    serve = Serve([pid for _, pid, _ in targets])
    if serve.base is None:
        return
    for name, pid, at_rest in targets:
        # At rest, the same figures from two rounds in a row: then the four must agree.
        # A runtime asked for its books pages in the code and data that answer the
        # first time: the rounds compared come after one that did.
        if not at_rest:
            round_(name, pid, serve, at_rest)
        # Of one that moves, its file mappings must hold still across the round: a Go
        # program faults in a page of its read-only data now and then (64K with the
        # kernel's fault-around), and a round it did so in compares two moments.
        for attempt in range(5):
            a, b, c = round_(name, pid, serve, at_rest)
            if at_rest and still(a) == still(b) == still(c):
                break
            if not at_rest and all(still(a).get(k) == still(b).get(k) == still(c).get(k)
                                   for k in ("file-text", "file-ro")):
                break
            print(f"explain_four: {name}: round {attempt + 1} read a moment that moved; "
                  "again", flush=True)
        same_json(name, a, b, c, at_rest)
        rb = a.get("runtime_books", {})
        if name == "go":
            eq("go: its books read, and joined", (rb.get("go", {}).get("ok"),
                                                 rb.get("join", {}).get("ok")), (True, True))
            eq("go: the environment, the same in every reading",
               [d.get("runtime_books", {}).get("go", {}).get("env") for d in (b, c)],
               [rb.get("go", {}).get("env")] * 2)
        if name == "jvm":
            eq("jvm: its books read, and joined",
               (rb.get("jvm_heap", {}).get("ok"), rb.get("jvm_nmt", {}).get("nmt"),
                rb.get("join", {}).get("ok")), (True, "on", True))
            eq("jvm: the Java heap committed, the same in every reading",
               [d.get("runtime_books", {}).get("jvm_heap", {}).get("heap_committed")
                for d in (a, b, c)], [64 << 20] * 3)
        if name in ("glibc", "cpython"):
            eq(f"{name}: no book asked of another process's malloc", "runtime_books" in a, False)
        # Whole (--wide): top's drill-down is the report unwrapped, scrolled sideways.
        text = explain_cli(pid, "--wide")
        if name == "glibc":
            ok("glibc: explain says malloc's books are pmaps run's",
               "pmaps run --malloc-books -- CMD" in text, text[-600:], "the hint")
        top = explain_top(pid, text.split("\n"))
        same_text(name, top, text, at_rest)
        print(f"explain_four: {name} (pid {pid}): {len(paths(a))} keys, "
              f"{len(cats(a))} categories, books {sorted(k for k in rb if k != 'join')}, "
              f"join {rb.get('join', {}).get('ok')}, top's report {len(top)} lines", flush=True)


try:
    main()
finally:
    for p in procs:
        if p.poll() is None:
            try:
                os.kill(p.pid, signal.SIGCONT)
                p.stdin and p.stdin.close()
            except (OSError, ValueError):
                pass
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
    subprocess.run(["tmux", "-S", SOCK, "kill-server"], capture_output=True)
    subprocess.run(["rm", "-rf", TMP])
finish("explain_four")
