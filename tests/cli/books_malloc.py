#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""glibc malloc's books under pmaps run (src/malloc_helper.c, src/books_malloc.c).

    books_malloc.py PMAPS MALLOC_TARGET MALLOC_TARGET_STATIC EXIT3 LIBPMAPS_MALLOC INSTALLED

INSTALLED is where the helper is installed (pmaps looks there last).

MALLOC_TARGET (tests/live/malloc_target.c) builds a known malloc state
(128 free holes of 64 KiB, 4 chunks of 1 MiB mmap()ed), says "ready", and
then holds still, answering "m" with its own mallinfo2(). Under pmaps run,
every runtime_books.malloc read after "ready" must equal it to the byte:
in_use = uordblks + hblkhd, free_held = fordblks, the arena's memory, the
mmap()ed chunks, keepcost; one arena (the helper's thread never mallocs).
Then what must never happen: the helper in the target's children, in a
command run with --no-books, or in a process pmaps watch did not start; and
what a static command gets (the helper did not answer), with its exit
status kept. Loopback-free: only pipes and a socketpair. Every process
started is ended in a finally.
"""
import datetime
import json
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time


sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from checks import broke, eq, finish, ok  # noqa: E402

PMAPS, TARGET, STATIC, EXIT3, HELPER, INSTALLED = sys.argv[1:7]
KIB, MIB = 1 << 10, 1 << 20
TMP = tempfile.mkdtemp(prefix="pmaps-books-malloc-")


class Out:
    """A pipe's lines, read by a thread, taken with a timeout."""

    def __init__(self, f):
        self.q = queue.Queue()
        threading.Thread(target=self._read, args=(f,), daemon=True).start()

    def _read(self, f):
        for line in f:
            self.q.put(line.decode("utf-8", "replace"))
        self.q.put(None)

    def line(self, timeout=20):
        try:
            return self.q.get(timeout=timeout)
        except queue.Empty:
            return None


def samples(path):
    """The JSON Lines written so far (a last line still being written is left out)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return []
    out = []
    for line in data.split(b"\n")[:-1]:
        out.append(json.loads(line))
    return out


def at_epoch(s):
    """The books' "at" ("2026-12-01T14:03:22.123Z") in seconds since the epoch."""
    return datetime.datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%fZ").replace(
        tzinfo=datetime.timezone.utc).timestamp()


def book(sample):
    return (sample.get("runtime_books") or {}).get("malloc")


def wait_book(path, cond, timeout=30):
    """The first sample whose malloc book passes COND (None: none within TIMEOUT)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        for s in samples(path):
            b = book(s)
            if b is not None and cond(b):
                return s
        time.sleep(0.05)
    return None


def mallinfo(out, stdin):
    stdin.write(b"m")
    stdin.flush()
    w = (out.line() or "").split()
    ok("the target answers m", w[:1] == ["mallinfo"], w, "mallinfo ...")
    return {k: int(v) for k, v in (x.split("=") for x in w[1:])}


def child_line(out, stdin):
    stdin.write(b"s")
    stdin.flush()
    return (out.line() or "").strip()


def helper_mapped(pid):
    with open(f"/proc/{pid}/maps") as f:
        return sum("libpmaps-malloc.so" in line for line in f)


def threads(pid):
    names = []
    for t in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{t}/comm") as f:
            names.append(f.read().strip())
    return sorted(names)


def start_run(args, jsonl, env=None, malloc=True):
    """pmaps run ARGS, with --malloc-books unless MALLOC is false (or --no-books is given)."""
    opt = ["--malloc-books"] if malloc and "--no-books" not in args else []
    return subprocess.Popen([PMAPS, "run", "--jsonl", "-i", "100ms", "-o", jsonl] + opt + args,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)


def stop(p, timeout=20):
    """Closes P's stdin (the target exits at end of file); its exit status and stderr."""
    try:
        p.stdin.close()
    except BrokenPipeError:
        pass
    try:
        p.wait(timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
    err = p.stderr.read().decode("utf-8", "replace")
    return p.returncode, err


def target_pid(jsonl, timeout=10):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        s = samples(jsonl)
        if s:
            return s[0]["pid"]
        time.sleep(0.02)
    return None


def asan(path):
    r = subprocess.run(["ldd", path], capture_output=True, text=True)
    return "libasan" in r.stdout


def test_books():
    """The books against the target's own mallinfo2(), at rest."""
    jsonl = os.path.join(TMP, "run.jsonl")
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    env.pop("PMAPS_MALLOC_FD", None)
    p = start_run(["--", TARGET, "7"], jsonl, env)
    try:
        out = Out(p.stdout)
        eq("the target starts", (out.line() or "").strip(), "ready")
        ready = time.time()
        pid = target_pid(jsonl)
        ok("a sample names the target's pid", pid is not None, pid, "a pid")
        eq("the helper is in the target (its 5 mappings)", helper_mapped(pid), 5)
        eq("the helper's thread, and the target's", threads(pid),
           sorted([os.path.basename(TARGET)[:15], "pmaps-malloc"]))
        s = wait_book(jsonl, lambda b: b.get("ok") and at_epoch(b["at"]) > ready)
        ok("a malloc book read after ready", s is not None, s, "a sample")
        mi = mallinfo(out, p.stdin)
        if s:
            b = book(s)
            eq("source", b.get("source"), "malloc_info() in the command, through pmaps run's helper")
            eq("in_use = uordblks + hblkhd", b["in_use"], mi["uordblks"] + mi["hblkhd"])
            eq("free_held = fordblks", b["free_held"], mi["fordblks"])
            eq("fast_bytes = fsmblks", b["fast_bytes"], mi["fsmblks"])
            eq("system = arena", b["system"], mi["arena"])
            eq("mmap_count = hblks = 4", (b["mmap_count"], mi["hblks"]), (4, 4))
            eq("mmap_bytes = hblkhd", b["mmap_bytes"], mi["hblkhd"])
            eq("top = keepcost", b["top"], mi["keepcost"])
            eq("one arena: the helper's thread never malloc'd", b["arenas"], 1)
            # The pattern: 128 holes of 64 KiB held, 128 live chunks and 4 MiB mmap()ed live.
            ok("free held: the 128 holes", 128 * 64 * KIB <= b["free_held"] <= 128 * (64 * KIB + 64) + 256 * KIB,
               b["free_held"], "8 MiB and headers (and the top)")
            ok("in use: 128 chunks of 64 KiB and 4 of 1 MiB",
               128 * 64 * KIB + 4 * MIB <= b["in_use"] <= 128 * (64 * KIB + 64) + 4 * (MIB + 4096) + 256 * KIB,
               b["in_use"], "12 MiB and headers")
            eq("4 chunks of 1 MiB, each in a mapping of its own (page-rounded)", b["mmap_bytes"],
               4 * (MIB + 4096))
        # Later books, every one read after ready, say the same (nothing allocates per request).
        time.sleep(1.2)
        later = [book(x) for x in samples(jsonl)
                 if book(x) and book(x).get("ok") and at_epoch(book(x)["at"]) > ready]
        ok("books read more than once", len({b["at"] for b in later}) >= 2,
           len({b["at"] for b in later}), ">= 2")
        eq("every later book: the same in_use and free_held",
           sorted({(b["in_use"], b["free_held"]) for b in later}),
           [(mi["uordblks"] + mi["hblkhd"], mi["fordblks"])])
        # The target's children: neither the helper, nor its variable, nor the socket.
        eq("a child of the target", child_line(out, p.stdin),
           "child preload=[unset] fd=[unset] helper=0")
        mi2 = mallinfo(out, p.stdin)
        eq("the target's books unchanged by its child", mi2, mi)
        rc, err = stop(p)
        eq("run exits with the target's status", rc, 7)
        eq("nothing on stderr", err, "")
        summ = samples(jsonl)[-1].get("summary", {})
        ok("the summary has the malloc book", book(summ) is not None and book(summ).get("ok"),
           book(summ), "ok")
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


def test_preload_kept():
    """A preload of the user's own: CMD's children get it back, without the helper."""
    if asan(PMAPS):
        print("  (a preload of pmaps's own: not under ASan, which must come first)")
        return
    libm = None
    for d in ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib"):
        if os.path.exists(os.path.join(d, "libm.so.6")):
            libm = os.path.join(d, "libm.so.6")
            break
    if not libm:
        print("  (no libm.so.6 to preload: skipped)")
        return
    jsonl = os.path.join(TMP, "preload.jsonl")
    env = dict(os.environ, LD_PRELOAD=libm)
    p = start_run(["--", TARGET], jsonl, env)
    try:
        out = Out(p.stdout)
        eq("preload: the target starts", (out.line() or "").strip(), "ready")
        pid = target_pid(jsonl)
        eq("preload: the helper is in the target", helper_mapped(pid), 5)
        eq("preload: its child has the user's preload alone", child_line(out, p.stdin),
           f"child preload=[{libm}] fd=[unset] helper=0")
        rc, err = stop(p)
        eq("preload: exit 0", (rc, err), (0, ""))
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


def test_no_books():
    """--no-books: no helper in CMD, no malloc book."""
    jsonl = os.path.join(TMP, "nobooks.jsonl")
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    p = start_run(["--no-books", "--", TARGET, "3"], jsonl, env)
    try:
        out = Out(p.stdout)
        eq("--no-books: the target starts", (out.line() or "").strip(), "ready")
        pid = target_pid(jsonl)
        eq("--no-books: no helper in the target", helper_mapped(pid), 0)
        eq("--no-books: the target's one thread", threads(pid), [os.path.basename(TARGET)[:15]])
        time.sleep(1.5)
        eq("--no-books: a child", child_line(out, p.stdin), "child preload=[unset] fd=[unset] helper=0")
        rc, err = stop(p)
        eq("--no-books: exit 3", (rc, err), (3, ""))
        s = samples(jsonl)
        ok("--no-books: samples", len(s) >= 5, len(s), ">= 5")
        eq("--no-books: no malloc book in any sample", [x for x in s if book(x) is not None], [])
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


def test_default():
    """Without --malloc-books: no helper in CMD, no malloc book: run as before it."""
    jsonl = os.path.join(TMP, "default.jsonl")
    p = start_run(["--", TARGET, "3"], jsonl, malloc=False)
    try:
        out = Out(p.stdout)
        eq("default: the target starts", (out.line() or "").strip(), "ready")
        pid = target_pid(jsonl)
        eq("default: no helper in the target", helper_mapped(pid), 0)
        eq("default: the target's one thread", threads(pid), [os.path.basename(TARGET)[:15]])
        time.sleep(1.5)
        rc, err = stop(p)
        eq("default: exit 3", (rc, err), (3, ""))
        eq("default: no malloc book in any sample", [x for x in samples(jsonl)
                                                     if book(x) is not None], [])
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    r = subprocess.run([PMAPS, "run", "--no-books", "--malloc-books", "--", TARGET],
                       capture_output=True, timeout=30)
    eq("--no-books --malloc-books: a usage error", (r.returncode, r.stdout, r.stderr),
       (2, b"", b"pmaps: --no-books and --malloc-books: choose one\n"))


def test_static():
    """A static command: the helper cannot enter it, nor is it put into the dynamic child
    the command starts (which would answer for it). The book says so; run keeps CMD's status."""
    jsonl = os.path.join(TMP, "static.jsonl")
    p = start_run(["--books-timeout", "300ms", "--", STATIC, "5"], jsonl)
    try:
        out = Out(p.stdout)
        eq("static: the target starts", (out.line() or "").strip(), "ready")
        pid = target_pid(jsonl)
        eq("static: no helper in it", helper_mapped(pid), 0)
        eq("static: its dynamic child gets no helper, variable or socket",
           child_line(out, p.stdin), "child preload=[unset] fd=[unset] helper=0")
        s = wait_book(jsonl, lambda b: "ok" in b, timeout=15)
        b = book(s) if s else None
        eq("static: the malloc book", b, {"ok": False, "why": "the command is statically linked: "
                                          "no helper can enter it (nor is one put in its children)"})
        rc, err = stop(p)
        eq("static: exit 5", (rc, err), (5, ""))
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    r = subprocess.run([PMAPS, "run", "-q", "-i", "10ms", "--", EXIT3], capture_output=True, timeout=60)
    eq("exit3 (static, gone at once): its status", r.returncode, 3)
    eq("exit3: no error from pmaps", [x for x in r.stderr.decode().splitlines()
                                      if x.startswith("pmaps:")], [])


def test_fds_reused():
    """A command that closes what it inherited and reuses the numbers: the helper never
    reads, writes or closes the command's own files."""
    jsonl = os.path.join(TMP, "fds.jsonl")
    p = start_run(["--", TARGET, "6"], jsonl)
    try:
        out = Out(p.stdout)
        eq("fds: the target starts", (out.line() or "").strip(), "ready")
        target_pid(jsonl)
        wait_book(jsonl, lambda b: b.get("ok") is True, timeout=15)
        p.stdin.write(b"f")
        p.stdin.flush()
        eq("fds: the command reads back all its bytes", (out.line(10) or "").strip(), "pipe 44")
        rc, err = stop(p)
        eq("fds: exit 6", (rc, err), (6, ""))
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


def test_pthread_exit():
    """A command whose main thread ends with pthread_exit(): it ends with its last thread,
    the helper's thread left alone does not keep it (nor pmaps run) waiting."""
    t0 = time.monotonic()
    r = subprocess.run([PMAPS, "run", "-q", "-o", os.devnull, "--malloc-books", "--", TARGET,
                        "pexit"],
                       capture_output=True, timeout=60)
    eq("pthread_exit: run exits 0", (r.returncode, r.stderr), (0, b""))
    ok("pthread_exit: within the helper's second", time.monotonic() - t0 < 10,
       time.monotonic() - t0, "< 10 s")


def test_missing_helper():
    """pmaps where no helper is: CMD runs without it, and the book says why."""
    if os.path.exists(INSTALLED):
        print(f"  ({INSTALLED} is installed: the missing case is not tried)")
        return
    d = os.path.join(TMP, "bin")
    os.mkdir(d)
    lone = os.path.join(d, "pmaps")
    shutil.copy(PMAPS, lone)
    jsonl = os.path.join(TMP, "missing.jsonl")
    p = subprocess.Popen([lone, "run", "--jsonl", "-i", "100ms", "-o", jsonl, "--malloc-books",
                          "--", TARGET, "4"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        out = Out(p.stdout)
        eq("missing: the target starts", (out.line() or "").strip(), "ready")
        pid = target_pid(jsonl)
        eq("missing: no helper in it", helper_mapped(pid), 0)
        s = wait_book(jsonl, lambda b: "ok" in b, timeout=15)
        b = book(s) if s else {}
        eq("missing: the book's why", b, {"ok": False, "why": "no libpmaps-malloc.so next to pmaps "
                                          f"nor in {INSTALLED}: pmaps run preloads it to read "
                                          "malloc's books"})
        rc, err = stop(p)
        eq("missing: exit 4", (rc, err), (4, ""))
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


def test_watch_not_started():
    """pmaps watch on a process pmaps did not start: never a malloc book, helper or not."""
    env = dict(os.environ, LD_PRELOAD=HELPER)  # preloaded by someone else, without the socket
    env.pop("PMAPS_MALLOC_FD", None)
    t = subprocess.Popen([TARGET], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
    try:
        eq("watch: the target starts", t.stdout.readline(), b"ready\n")
        eq("watch: the helper mapped, idle", (helper_mapped(t.pid), threads(t.pid)),
           (5, [os.path.basename(TARGET)[:15]]))
        r = subprocess.run([PMAPS, "watch", "--jsonl", "-i", "100ms", "-n", "15", str(t.pid)],
                           capture_output=True, timeout=60)
        eq("watch: exit 0", (r.returncode, r.stderr), (0, b""))
        lines = [json.loads(x) for x in r.stdout.decode().splitlines()]
        ok("watch: 15 samples and the summary", len(lines) >= 16 and "summary" in lines[-1],
           len(lines), ">= 16, the summary last")
        eq("watch: no malloc book", [x for x in lines if book(x) is not None or
                                     book(x.get("summary", {})) is not None], [])
    finally:
        t.kill()
        t.wait()


def main():
    for t in (test_books, test_default, test_preload_kept, test_no_books, test_static,
              test_fds_reused, test_pthread_exit,
              test_missing_helper,
              test_watch_not_started):
        try:
            t()
        except Exception as e:  # a test that breaks is a failure, with its reason
            broke(t.__name__, e)
    shutil.rmtree(TMP, ignore_errors=True)
    finish("books_malloc")


main()
