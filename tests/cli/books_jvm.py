#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""pmaps explain with the JVM's own books (jcmd GC.heap_info and
VM.native_memory summary), against tests/live/JvmTarget.java run by a real
JDK.

    books_jvm.py PMAPS JAVA JVMTARGET

The target holds 32 MiB of live arrays in a heap of -Xms64m -Xmx64m and
answers "m" with its own view of the heap (Runtime.totalMemory(),
freeMemory(), maxMemory(), the MemoryMXBean's heap and non-heap usage).

- G1 with -XX:NativeMemoryTracking=summary: the book is read, NMT on; the
  Java Heap category's committed = GC.heap_info's heap_committed = the
  program's Runtime.totalMemory() before and after = 64 MiB; heap_used is
  at most the program's used (total - free) after, and at least its used
  before less one G1 region (GC.heap_info counts G1's used_unlocked(),
  which leaves out the region being allocated into; -XX:G1HeapRegionSize=1m);
  the categories include Java Heap, Class, Thread, Code and GC; Metaspace
  used <= committed <= reserved; the join's signed terms add up to its rss,
  which is explain's rss; the text has the books' section and the
  "RSS ... =" equation.
- Serial with NMT: heap_committed = NMT's Java Heap = 64 MiB, although the
  program's totalMemory() leaves out the empty survivor space (its
  capacity); heap_used lies within the program's used before (less 2 KiB:
  two generations' sizes, each cut to KiB) and after.
- G1 without NMT: nmt false, nmt_why names -XX:NativeMemoryTracking; the
  heap is read all the same; the join adds up.
- Refused: PATH without jcmd; a JVM started with -XX:+DisableAttachMechanism;
  a JVM stopped with SIGSTOP (not asked, and quickly). Each time explain
  exits 0, the kernel's side whole, and the book says why.
- As root, a JVM of another user (nobody): jcmd runs as that user and reads
  the books.
Exit 77 (skipped) without java and jcmd, outside CI.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time


sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from checks import eq, finish, ok  # noqa: E402

PMAPS, JAVA, TARGET = sys.argv[1], sys.argv[2], os.path.abspath(sys.argv[3])
MIB = 1 << 20
procs = []


def skip(why):
    if os.environ.get("CI") not in (None, "", "false"):
        print(f"books_jvm: {why} (CI runs every test)")
        sys.exit(1)
    print(f"books_jvm: skipped: {why}")
    sys.exit(77)


class Jvm:
    """JvmTarget under JAVA with OPTS, started and waited for ("ready").

    One at a time: a JVM starting flocks, for a moment, the hsperfdata files
    it finds of pids that may be dead, and a JVM that is given the pid of
    such a file meanwhile cannot lock its own ("Cannot use file ... because
    it is locked by another process" on its stdout, no shared perf data).
    With pid_max 32768 a pid comes round again within a test run.
    """

    def __init__(self, name, opts, user=None):
        self.name = name
        kw = {}
        if user is not None:
            kw = {"user": user, "group": user, "extra_groups": [], "cwd": "/"}
        self.p = subprocess.Popen([JAVA, "-Xms64m", "-Xmx64m"] + opts + [TARGET],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  text=True, **kw)
        procs.append(self.p)
        self.pid = self.p.pid
        self.ready()

    def ready(self):
        line = self.p.stdout.readline()
        eq(f"{self.name}: ready", line, "ready\n")

    def mem(self):
        """The program's own figures: total, free, max, MXBean heap used and committed, ..."""
        self.p.stdin.write("m\n")
        self.p.stdin.flush()
        f = self.p.stdout.readline().split()
        if not f or f[0] != "mem" or len(f) != 8:
            ok(f"{self.name}: mem line", False, f, "mem and 7 numbers")
            return None
        return dict(zip(("total", "free", "max", "heap_used", "heap_committed", "nonheap_used",
                         "nonheap_committed"), map(int, f[1:])))

    def stop(self):
        if self.p.poll() is None:
            try:
                os.kill(self.pid, signal.SIGCONT)
                self.p.stdin.close()
                self.p.wait(timeout=20)
            except (subprocess.TimeoutExpired, BrokenPipeError, ProcessLookupError):
                self.p.kill()
                self.p.wait()
        eq(f"{self.name}: exit status", self.p.returncode, 0)


def explain(pid, *args, env=None):
    """pmaps explain PID ARGS: (exit status, stdout, stderr, seconds)."""
    t = time.monotonic()
    r = subprocess.run([PMAPS, "explain", str(pid)] + list(args), capture_output=True,
                       text=True, env=env, timeout=60)
    return r.returncode, r.stdout, r.stderr, time.monotonic() - t


def explain_json(name, pid, *args, env=None):
    rc, out, err, secs = explain(pid, "--json", *args, env=env)
    eq(f"{name}: explain exit status", rc, 0)
    eq(f"{name}: explain stderr", err, "")
    try:
        return json.loads(out), secs
    except ValueError as e:
        ok(f"{name}: explain JSON", False, str(e), "JSON")
        return {}, secs


def kernel_side(name, d, pid):
    """The kernel's side of explain is whole, whatever the books said."""
    eq(f"{name}: pid", d.get("pid"), pid)
    ok(f"{name}: rss", d.get("rss", 0) > 32 * MIB, d.get("rss"), "> 32 MiB")
    cats = d.get("categories", [])
    ok(f"{name}: categories", len(cats) > 0, len(cats), "> 0")
    eq(f"{name}: categories add up to rss", sum(c["rss"] for c in cats), d.get("rss"))


def check_join(name, d, runtime_terms=True):
    j = d.get("runtime_books", {}).get("join")
    if not isinstance(j, dict) or not j.get("ok"):
        ok(f"{name}: join read", False, j, "a join")
        return
    eq(f"{name}: join rss is explain's", j["rss"], d["rss"])
    eq(f"{name}: join terms add up to its rss", sum(t["bytes"] for t in j["terms"]), j["rss"])
    srcs = {t["source"] for t in j["terms"]}
    if runtime_terms:
        ok(f"{name}: join has runtime terms", "runtime" in srcs, srcs, "runtime among them")
    for t in j["terms"]:
        ok(f"{name}: term {t.get('key')} source", t.get("source") in ("kernel", "runtime",
                                                                       "remainder"), t, "a source")


def books(d):
    """The JVM's two books: GC.heap_info's and Native Memory Tracking's."""
    rb = d.get("runtime_books", {})
    return rb.get("jvm_heap", {}), rb.get("jvm_nmt", {})


def cat(jvm, name):
    for c in jvm.get("categories", []):
        if c["name"] == name:
            return c
    return None


def test_g1_nmt(t):
    name = "G1 with NMT"
    before = t.mem()
    d, _ = explain_json(name, t.pid)
    after = t.mem()
    kernel_side(name, d, t.pid)
    hb, nb = books(d)
    eq(f"{name}: heap ok", hb.get("ok"), True)
    eq(f"{name}: nmt ok", nb.get("ok"), True)
    eq(f"{name}: heap source", hb.get("source"), f"jcmd {t.pid} GC.heap_info")
    eq(f"{name}: nmt source", nb.get("source"),
       f"jcmd {t.pid} VM.native_memory summary scale=b")
    eq(f"{name}: nmt", nb.get("nmt"), "on")
    eq(f"{name}: gc", hb.get("gc"), "garbage-first heap")
    names = [c["name"] for c in nb.get("categories", [])]
    for want in ("Java Heap", "Class", "Thread", "Code", "GC", "Internal", "Metaspace"):
        ok(f"{name}: category {want}", want in names, names, f"{want} among them")
    heap = cat(nb, "Java Heap") or {}
    if not before or not after:
        return
    # Xms = Xmx: the heap is committed whole, and G1 never shrinks it
    eq(f"{name}: NMT Java Heap committed", heap.get("committed"), 64 * MIB)
    eq(f"{name}: NMT Java Heap reserved", heap.get("reserved"), 64 * MIB)
    eq(f"{name}: heap_committed = NMT's", hb.get("heap_committed"), heap.get("committed"))
    eq(f"{name}: totalMemory() before", before["total"], hb.get("heap_committed"))
    eq(f"{name}: totalMemory() after", after["total"], hb.get("heap_committed"))
    eq(f"{name}: MXBean heap committed", after["heap_committed"], hb.get("heap_committed"))
    used_before = before["total"] - before["free"]
    used_after = after["total"] - after["free"]
    hu = hb.get("heap_used", -1)
    ok(f"{name}: heap_used <= the program's used after", hu <= used_after, hu, f"<= {used_after}")
    ok(f"{name}: heap_used >= the program's used before less one 1 MiB region",
       hu >= used_before - MIB, hu, f">= {used_before - MIB}")
    ok(f"{name}: heap_used holds the 32 MiB of live arrays", hu >= 32 * MIB, hu, ">= 32 MiB")
    ok(f"{name}: metaspace used <= committed <= reserved",
       0 < hb.get("metaspace_used", 0) <= hb.get("metaspace_committed", 0)
       <= hb.get("metaspace_reserved", 0), hb, "ordered")
    ok(f"{name}: NMT committed <= reserved", 0 < nb.get("committed", 0) <= nb.get("reserved", 0),
       (nb.get("committed"), nb.get("reserved")), "ordered")
    for c in nb.get("categories", []):
        ok(f"{name}: {c['name']} committed <= reserved", c["committed"] <= c["reserved"], c, "")
    for b, what in ((hb, "heap"), (nb, "nmt")):
        ok(f"{name}: {what} took_ms", 0 < b.get("took_ms", 0) < 60000, b.get("took_ms"),
           "(0, 60 s)")
    check_join(name, d)
    # the text: the books' section and the equation
    rc, out, err, _ = explain(t.pid)
    eq(f"{name}: text exit status", rc, 0)
    ok(f"{name}: text has the books' section", "The runtime's books" in out, out[-2000:],
       "The runtime's books")
    ok(f"{name}: text names jcmd's source", f"jcmd {t.pid} GC.heap_info" in out, out[-2000:],
       "the source")
    ok(f"{name}: no hint to turn NMT on, NMT read", "-XX:NativeMemoryTracking" not in out,
       out[-3000:], "no hint")
    eqs = [l for l in out.splitlines() if l.startswith("RSS ") and " = " in l]
    eq(f"{name}: one equation line", len(eqs), 1)
    ok(f"{name}: the equation names the Java heap", eqs and "Java heap" in eqs[0], eqs,
       "Java heap")


def test_serial_nmt(t):
    name = "Serial with NMT"
    before = t.mem()
    d, _ = explain_json(name, t.pid)
    after = t.mem()
    kernel_side(name, d, t.pid)
    hb, nb = books(d)
    eq(f"{name}: heap ok", hb.get("ok"), True)
    eq(f"{name}: nmt", nb.get("nmt"), "on")
    eq(f"{name}: gc", hb.get("gc"), "def new generation, tenured generation")
    heap = cat(nb, "Java Heap") or {}
    eq(f"{name}: NMT Java Heap committed", heap.get("committed"), 64 * MIB)
    eq(f"{name}: heap_committed = NMT's", hb.get("heap_committed"), heap.get("committed"))
    if not before or not after:
        return
    # totalMemory() is the capacity: eden, one survivor space and the old generation
    ok(f"{name}: totalMemory() leaves out one survivor space",
       0 < hb.get("heap_committed", 0) - after["total"] < 64 * MIB // 4,
       (hb.get("heap_committed"), after["total"]), "committed - capacity = the 'to' space")
    used_before = before["total"] - before["free"]
    used_after = after["total"] - after["free"]
    hu = hb.get("heap_used", -1)
    ok(f"{name}: heap_used <= the program's used after", hu <= used_after, hu, f"<= {used_after}")
    ok(f"{name}: heap_used >= the program's used before less 2 KiB", hu > used_before - 2048, hu,
       f"> {used_before - 2048}")
    check_join(name, d)


def test_g1_no_nmt(t):
    name = "G1 without NMT"
    before = t.mem()
    d, _ = explain_json(name, t.pid)
    after = t.mem()
    kernel_side(name, d, t.pid)
    hb, nb = books(d)
    eq(f"{name}: ok (GC.heap_info read)", hb.get("ok"), True)
    eq(f"{name}: nmt read, and off", (nb.get("ok"), nb.get("nmt")), (True, "off"))
    eq(f"{name}: no categories", nb.get("categories", []), [])
    rc, out, _, _ = explain(t.pid)
    ok(f"{name}: the text says how to turn NMT on",
       "start the JVM with -XX:NativeMemoryTracking=summary" in out, out[-3000:], "the option")
    if before and after:
        eq(f"{name}: heap_committed", hb.get("heap_committed"), after["total"])
        ok(f"{name}: heap_used", before["total"] - before["free"] - MIB <= hb.get("heap_used", -1)
           <= after["total"] - after["free"], hb.get("heap_used"), "within the program's")
    # without NMT the join may have no runtime term: it need only add up
    check_join(name, d, runtime_terms=False)


def test_no_jcmd(t, tmp):
    name = "no jcmd on PATH"
    env = dict(os.environ, PATH=tmp)
    d, _ = explain_json(name, t.pid, env=env)
    kernel_side(name, d, t.pid)
    for jvm in books(d):
        eq(f"{name}: ok", jvm.get("ok"), False)
        eq(f"{name}: why", jvm.get("why"),
           "jcmd not found on PATH: install a JDK (Debian openjdk-17-jdk-headless)")
    rc, out, err, _ = explain(t.pid, env=env)
    eq(f"{name}: text exit status", rc, 0)
    ok(f"{name}: text says why", "jcmd not found on PATH" in out, out[-1500:], "the why")
    ok(f"{name}: text has the kernel's side", "RSS" in out or "rss" in out, out[:500], "RSS")


def test_stopped(t):
    name = "a stopped JVM"
    os.kill(t.pid, signal.SIGSTOP)
    try:
        for _ in range(200):
            with open(f"/proc/{t.pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "T":
                    break
            time.sleep(0.01)
        d, secs = explain_json(name, t.pid)
    finally:
        os.kill(t.pid, signal.SIGCONT)
    kernel_side(name, d, t.pid)
    for jvm in books(d):
        eq(f"{name}: ok", jvm.get("ok"), False)
        ok(f"{name}: why", "the JVM is stopped" in jvm.get("why", ""), jvm.get("why"), "stopped")
    ok(f"{name}: not waited for", secs < 10, secs, "< 10 s (no jcmd run)")
    ok(f"{name}: no attach file left", not os.path.exists(f"/proc/{t.pid}/cwd/.attach_pid{t.pid}"),
       True, False)


def test_attach_disabled(t, name="-XX:+DisableAttachMechanism"):
    d, _ = explain_json(name, t.pid)
    kernel_side(name, d, t.pid)
    for jvm in books(d):
        eq(f"{name}: ok", jvm.get("ok"), False)
        eq(f"{name}: why", jvm.get("why"),
           "the JVM was started with -XX:+DisableAttachMechanism: jcmd cannot attach (not "
           "asked: its signal would only make the JVM print a thread dump)")
        ok(f"{name}: no NMT figures", "nmt" not in jvm and "categories" not in jvm, jvm,
           "no nmt")
    # Without perfdata jcmd would signal the JVM (SIGQUIT), which then prints a thread
    # dump on its own standard output: its next line must be its answer to "m".
    m = t.mem()
    ok(f"{name}: nothing printed by the JVM", m is not None, m, "its mem line next")


def test_attach_timeout(t):
    """Attach off in an option file pmaps does not read: jcmd waits, is killed at the
    timeout, and the .attach_pid file it made in the JVM's directory goes too."""
    name = "attach off in an @argfile"
    d, _ = explain_json(name, t.pid, "--books-timeout", "1s")
    kernel_side(name, d, t.pid)
    for jvm in books(d):
        eq(f"{name}: ok", jvm.get("ok"), False)
        ok(f"{name}: why", "did not answer within 1000 ms" in jvm.get("why", ""), jvm.get("why"),
           "did not answer within 1000 ms")
    left = [p for p in (f"/proc/{t.pid}/cwd/.attach_pid{t.pid}", f"/tmp/.attach_pid{t.pid}")
            if os.path.exists(p)]
    eq(f"{name}: no .attach_pid file left", left, [])


def test_xrs(t):
    """-Xrs: no SIGQUIT handler. With its attach socket it answers; with the socket gone
    jcmd would signal it to death, so pmaps does not ask, and the JVM lives on."""
    name = "-Xrs"
    sock = f"/tmp/.java_pid{t.pid}"
    ok(f"{name}: the attach socket is there from the start", os.path.exists(sock), sock, "exists")
    d, _ = explain_json(name, t.pid)
    eq(f"{name}: read through the socket", [b.get("ok") for b in books(d)], [True, True])
    try:
        os.unlink(sock)
    except OSError as e:
        ok(f"{name}: socket removed", False, str(e), "removed")
    d, _ = explain_json(name + ", socket gone", t.pid)
    kernel_side(name, d, t.pid)
    for jvm in books(d):
        eq(f"{name}, socket gone: why", jvm.get("why"), "the JVM runs with -Xrs and its attach "
           "socket is gone: jcmd's signal would end it (not asked)")
    time.sleep(0.5)
    eq(f"{name}, socket gone: the JVM lives on", t.p.poll(), None)
    m = t.mem()
    ok(f"{name}, socket gone: it answers", m is not None, m, "its mem line")


def test_other_user(t):
    name = "a JVM of user nobody"
    d, _ = explain_json(name, t.pid)
    hb, nb = books(d)
    eq(f"{name}: ok", (hb.get("ok"), nb.get("ok")), (True, True))
    eq(f"{name}: nmt", nb.get("nmt"), "on")
    eq(f"{name}: NMT Java Heap committed", (cat(nb, "Java Heap") or {}).get("committed"),
       64 * MIB)
    eq(f"{name}: heap_committed", hb.get("heap_committed"), 64 * MIB)


def main():
    if not JAVA or not os.access(JAVA, os.X_OK):
        skip("no java (Debian openjdk-17-jdk-headless)")
    jcmd = os.path.join(os.path.dirname(os.path.realpath(JAVA)), "jcmd")
    if not os.access(jcmd, os.X_OK):
        skip(f"no jcmd next to {JAVA} (Debian openjdk-17-jdk-headless)")
    # pmaps finds jcmd on PATH: the JDK's own first
    os.environ["PATH"] = os.path.dirname(jcmd) + ":" + os.environ.get("PATH", "/usr/bin:/bin")
    tmp = tempfile.mkdtemp(prefix="pmaps-books-jvm-")
    jvms = []
    try:
        g1 = Jvm("G1 NMT", ["-XX:+UseG1GC", "-XX:G1HeapRegionSize=1m",
                            "-XX:NativeMemoryTracking=summary"])
        serial = Jvm("Serial NMT", ["-XX:+UseSerialGC", "-XX:NativeMemoryTracking=summary"])
        plain = Jvm("G1", ["-XX:+UseG1GC", "-XX:G1HeapRegionSize=1m"])
        noattach = Jvm("no attach", ["-XX:+DisableAttachMechanism"])
        noattach2 = Jvm("no attach, no perfdata", ["-XX:+DisableAttachMechanism",
                                                   "-XX:-UsePerfData"])
        argfile = os.path.join(tmp, "noattach.args")
        with open(argfile, "w") as f:
            f.write("-XX:+DisableAttachMechanism -XX:-UsePerfData\n")
        noattach3 = Jvm("no attach, in an argfile", [f"@{argfile}"])
        xrs = Jvm("-Xrs", ["-Xrs"])
        jvms = [g1, serial, plain, noattach, noattach2, noattach3, xrs]
        nobody = None
        if os.geteuid() == 0:
            nobody = Jvm("nobody", ["-XX:NativeMemoryTracking=summary"], user=65534)
            jvms.append(nobody)
        test_g1_nmt(g1)
        test_serial_nmt(serial)
        test_g1_no_nmt(plain)
        test_no_jcmd(plain, tmp)
        test_stopped(plain)
        test_attach_disabled(noattach)
        test_attach_disabled(noattach2, "-XX:+DisableAttachMechanism -XX:-UsePerfData")
        test_attach_timeout(noattach3)
        test_xrs(xrs)
        if nobody:
            test_other_user(nobody)
        else:
            print("books_jvm: a JVM of another user: not tried (needs root)")
    finally:
        for j in jvms:
            j.stop()
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    finish("books_jvm")


if __name__ == "__main__":
    main()
