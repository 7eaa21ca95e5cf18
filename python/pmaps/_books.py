# SPDX-License-Identifier: MIT
"""The runtime's own books for explain(): fetched here, parsed and joined by libpmaps.

The library parses what a runtime publishes and joins its figures to the
explain result (pmaps_books_parse(), pmaps_books_join()); it does no network
and runs no program. So this module fetches, as the pmaps tool does with
libcurl and jcmd (src/books_go.c, src/books_jvm.c), with the same bounds,
asking the library where and whether to ask:

- Go: runtime.MemStats from /debug/pprof/heap?debug=1 on the process's own
  loopback listeners (pmaps_books_go_listeners(): never in another network
  namespace or under another proc root), four at most, over http.client:
  no proxy, no redirect followed, the timeout over the whole request, 64 MiB
  at most read, only the MemStats block kept (its lines cut at 256 bytes).
- JVM: jcmd PID GC.heap_info and VM.native_memory summary scale=b, only
  where pmaps_books_jvm_attach() says jcmd may ask, run as the JVM's user
  (as root, dropped to it), in a process group of its own killed at the
  timeout, its output capped at 1 MiB; the .attach_pid file a killed jcmd
  leaves is removed.

glibc malloc's books come only from a command `pmaps run --malloc-books`
starts: never asked here. to_dict() builds the "runtime_books" object of
`pmaps explain --json` (src/books_out.c) key for key.
"""

import ctypes
import errno
import http.client
import os
import selectors
import signal
import socket
import stat
import subprocess
import threading
import time
import urllib.parse

from . import _structs as S
from ._text import json_named, names

GO, JVM_HEAP, JVM_NMT, MALLOC = 0, 1, 2, 3  # enum pmaps_book
RUNTIME_GO, RUNTIME_JVM = 2, 3  # enum pmaps_runtime
UNIT_TIME = 2  # PMAPS_BU_TIME_NS
NMT_ON = 1  # PMAPS_NMT_ON
JOIN_NONE = 1  # PMAPS_JOIN_NONE

REPLY_MAX = 64 << 20
BLOCK_MAX = 16384
LINE_MAX = 256
JVM_OUT_CAP = 1 << 20
JVM_ERR_CAP = 1024
HEADER = b"# runtime.MemStats"
CUT = b" (cut)"  # what a line past LINE_MAX is kept with


def _at(ns):
    """A time in ns since the epoch as 2026-12-01T14:03:22.123Z."""
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ns // 1000000000)) + \
        ".%03dZ" % (ns % 1000000000 // 1000000)


def _ms(ns):
    """Milliseconds with three decimals, as the tool writes them."""
    return float("%d.%03d" % (ns // 1000000, ns % 1000000 // 1000))


def _set(obj, field, text):
    """TEXT (str or bytes) into OBJ's fixed char array FIELD, cut to fit. (Reading the
    field gives a copy: the array is written through the structure.)"""
    raw = text.encode("utf-8", "surrogateescape") if isinstance(text, str) else text
    size = getattr(type(obj), field).size
    setattr(obj, field, raw[:size - 1])


class _Block:
    """The MemStats block of a reply as it streams in, as src/books_go.c keeps it: the
    lines after the last header, each cut at LINE_MAX bytes, BLOCK_MAX bytes at most."""

    def __init__(self):
        self.lines, self.size, self.on, self.over = [], 0, False, False

    def line(self, raw, terminated):
        """RAW, a line of the reply without its newline (TERMINATED: it had one), as
        go_fetch_line() takes it: room for " (cut)" and the newline kept whether or not
        they are written."""
        cut = len(raw) > LINE_MAX
        if cut:
            raw = raw[:LINE_MAX]
        if not cut and raw == HEADER:
            # A later header starts the block over: the parser takes the last.
            self.lines, self.size, self.on, self.over = [], 0, True, False
        elif not self.on:
            return
        elif len(raw) < 2 or raw[:2] != b"# ":
            self.on = False  # the block's end, as the parser sees it
            return
        if self.size + len(raw) + len(CUT) + 1 > BLOCK_MAX:
            self.over = True
            return
        ln = raw + (CUT if cut else b"") + (b"\n" if terminated else b"")
        self.lines.append(ln)
        self.size += len(ln)


class Books:
    def __init__(self, lib):
        c = lib.c
        self.c = c
        self.books = names(c.pmaps_book_key, S.BOOK_MAX)
        self.values = names(c.pmaps_book_value_key, S.BV_MAX)
        self.value_book = [c.pmaps_book_value_book(v) for v in range(len(self.values))]
        self.value_unit = [c.pmaps_book_value_unit(v) for v in range(len(self.values))]
        self.nmt_states = names(c.pmaps_nmt_state_key, 8)
        self.parts = names(c.pmaps_join_part_key, S.JP_MAX)
        self.srcs = names(c.pmaps_join_src_key, 8)
        self.terms = names(c.pmaps_join_key, 64)
        self.refusals = names(c.pmaps_join_refusal_key, 16)

    # ---- reading ----

    def read(self, h, pid, runtime, timeout):
        """The books PID's RUNTIME offers (Go, JVM), read through handle H: a Books struct."""
        b = S.Books()
        b.size = ctypes.sizeof(b)
        if runtime == RUNTIME_GO:
            self._go(b, h, timeout)
        elif runtime == RUNTIME_JVM:
            self._jvm(b, h, pid, timeout)
        if any(b.head[k].asked for k in range(len(self.books))):
            self.c.pmaps_books_finish(ctypes.byref(b), h)
        return b

    def _parse(self, b, book, text):
        msg = ctypes.create_string_buffer(256)
        buf = ctypes.create_string_buffer(text, len(text))
        r = self.c.pmaps_books_parse(ctypes.byref(b), book, buf, len(text), msg, len(msg))
        return None if r == 0 else msg.value.decode("utf-8", "replace")

    @staticmethod
    def _stamp(head, start_ns):
        head.at_ns = time.time_ns()
        head.start_ns = start_ns
        head.end_ns = time.monotonic_ns()

    def _go(self, b, h, timeout):
        head = b.head[GO]
        head.asked = 1
        t0 = time.monotonic_ns()
        self.c.pmaps_books_go_env(ctypes.byref(b), h)
        ls = (S.Listener * 4)()
        msg = ctypes.create_string_buffer(256)
        n = self.c.pmaps_books_go_listeners(h, ls, 4, msg, len(msg))
        why = msg.value.decode("utf-8", "replace")
        if n == 0:
            why += (": a program serves its books with net/http/pprof, or name the server "
                    "with pmaps explain --go-pprof")
        first = None
        for i in range(max(n, 0)):
            url = ls[i].url.decode()
            _set(head, "source", url)
            err = self._go_fetch(b, ls[i], url, timeout)
            if err is None:
                break
            if first is None:
                first = (url, err)
        if not head.ok:
            if first is not None:
                _set(head, "source", first[0])
                why = first[1] + ("" if n == 1 else " (and %d other listener%s)" %
                                  (n - 1, "s" if n > 2 else ""))
            _set(head, "why", why)
        self._stamp(head, t0)

    def _go_fetch(self, b, listener, url, timeout):
        """GET the heap page at LISTENER into B's Go book: None, or why not. TIMEOUT
        bounds the whole request, as curl's CURLOPT_TIMEOUT_MS does the tool's: at the
        deadline a timer shuts the socket down, whatever the server is sending."""
        host = "::1" if listener.ipv6 else listener.host.decode()
        conn = http.client.HTTPConnection(host, listener.port, timeout=timeout)
        expired = threading.Event()

        def cut():
            expired.set()
            sock = conn.sock
            if sock is not None:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
        timer = threading.Timer(timeout, cut)
        timer.daemon = True
        blk = _Block()
        line, total = b"", 0
        late = "%s: timed out after %d ms" % (url, round(timeout * 1000))
        try:
            timer.start()
            conn.request("GET", "/debug/pprof/heap?debug=1",
                         headers={"User-Agent": "pmaps-python/0.4.0"})
            r = conn.getresponse()
            if 300 <= r.status < 400:
                to = r.getheader("Location")
                return "%s: HTTP %d, redirected to %s: not followed" % (
                    url, r.status, urllib.parse.urljoin(url, to) if to else "(no Location)")
            if r.status != 200:
                return "%s: HTTP %d" % (url, r.status)
            while True:
                chunk = r.read1(65536)
                if not chunk:
                    break
                total += len(chunk)
                if total > REPLY_MAX:
                    return "%s: the reply passed %d MiB: not read" % (url, REPLY_MAX >> 20)
                parts = (line + chunk).split(b"\n")
                line = parts.pop()
                if len(line) > LINE_MAX:
                    line = line[:LINE_MAX + 1]  # enough to know it is cut
                for ln in parts:
                    blk.line(ln, True)
            if expired.is_set():
                return late
            if line:
                blk.line(line, False)
        except (OSError, http.client.HTTPException) as e:
            if expired.is_set() or isinstance(e, TimeoutError):
                return late
            if isinstance(e, ConnectionRefusedError):
                return "%s: connection refused" % url
            return "%s: %s" % (url, e)
        finally:
            timer.cancel()
            conn.close()
        if blk.over:
            return "%s: the MemStats block passed %d bytes: not a Go MemStats dump" % (
                url, BLOCK_MAX)
        err = self._parse(b, GO, b"".join(blk.lines))
        return None if err is None else "%s: %s" % (url, err)

    def _jvm(self, b, h, pid, timeout):
        cmds = ((JVM_HEAP, "GC.heap_info", ["GC.heap_info"]),
                (JVM_NMT, "VM.native_memory summary scale=b",
                 ["VM.native_memory", "summary", "scale=b"]))
        t0 = time.monotonic_ns()
        for k, words, _ in cmds:
            b.head[k].asked = 1
            _set(b.head[k], "source", "jcmd %d %s" % (pid, words))
        a = S.JvmAttach()
        a.size = ctypes.sizeof(a)
        msg = ctypes.create_string_buffer(256)
        r = self.c.pmaps_books_jvm_attach(h, ctypes.byref(a), msg, len(msg))
        why = None
        if r <= 0:
            why = msg.value.decode("utf-8", "replace") or \
                self.c.pmaps_strerror(r or -errno.EINVAL).decode("utf-8", "replace")
        jcmd = self._find_jcmd() if why is None else None
        if why is None and jcmd is None:
            why = "jcmd not found on PATH: install a JDK (Debian openjdk-17-jdk-headless)"
        drop = False
        if why is None:
            if os.geteuid() == 0:
                drop = a.uid != 0
            elif a.uid != os.geteuid():
                why = "the JVM runs as uid %d: jcmd attaches only as the JVM's user or root" % a.uid
        if why is not None:
            for k, _, _ in cmds:
                _set(b.head[k], "why", why)
                self._stamp(b.head[k], t0)
            return
        for k, words, args in cmds:
            t = time.monotonic_ns()
            argv = [jcmd, "-J-XX:-UsePerfData", "-J-XX:+UseSerialGC", "-J-XX:TieredStopAtLevel=1",
                    str(pid)] + args
            out, err = self._run_jcmd(argv, pid, drop, a, timeout)
            if err is None:
                err = self._parse(b, k, out)
                if err is not None:
                    _set(b.head[k], "why", "%s: %s" % (words, err))
                self._stamp(b.head[k], t)
                continue
            _set(b.head[k], "why", err)
            self._stamp(b.head[k], t)
            if k == JVM_HEAP:
                # jcmd did not answer GC.heap_info: NMT would fail alike, and is not asked.
                _set(b.head[JVM_NMT], "why", err)
                self._stamp(b.head[JVM_NMT], t0)
                return

    @staticmethod
    def _find_jcmd():
        for d in (os.environ.get("PATH") or "/usr/bin:/bin").split(":"):
            if not d.startswith("/"):
                continue  # absolute directories only: this may run as root
            p = os.path.join(d, "jcmd")
            if os.path.isfile(p) and os.access(p, os.X_OK):
                return p
        return None

    def _run_jcmd(self, argv, pid, drop, a, timeout):
        """Runs jcmd ARGV: (stdout bytes, None), or (None, why)."""
        kw = dict(stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                  env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"}, cwd="/", close_fds=True,
                  start_new_session=True)
        if drop:
            kw.update(user=a.uid, group=a.gid, extra_groups=[])
        cmd = " ".join(argv[5:])
        try:
            p = subprocess.Popen(argv, **kw)
        except OSError as e:
            return None, "could not run %s (%s)" % (argv[0], e.strerror)
        out, err, too_big, timed_out = bytearray(), bytearray(), False, False
        deadline = time.monotonic() + timeout
        try:
            with selectors.DefaultSelector() as sel:
                sel.register(p.stdout, selectors.EVENT_READ, out)
                sel.register(p.stderr, selectors.EVENT_READ, err)
                while sel.get_map():
                    left = deadline - time.monotonic()
                    if left <= 0:
                        timed_out = True
                        break
                    for key, _ in sel.select(min(left, 0.1)):
                        data = os.read(key.fileobj.fileno(), 65536)
                        if not data:
                            sel.unregister(key.fileobj)
                            continue
                        cap = JVM_OUT_CAP if key.data is out else JVM_ERR_CAP
                        if key.data is out and len(out) + len(data) > cap:
                            too_big = True
                        key.data.extend(data[:max(cap - len(key.data), 0)])
                    if too_big:
                        break
        except BaseException:
            # Interrupted (KeyboardInterrupt, an exception from a signal handler): jcmd,
            # its pipes and the attach file it may leave are not left behind.
            self._end_jcmd(p, pid, a.uid if drop else os.geteuid())
            raise
        if timed_out or too_big:
            for kill in (lambda: os.killpg(p.pid, signal.SIGKILL), p.kill):
                try:
                    kill()
                except OSError:
                    pass
        try:
            status = p.wait(max(deadline - time.monotonic(), 0.05))
        except subprocess.TimeoutExpired:
            timed_out = True
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except OSError:
                pass
            status = p.wait()
        p.stdout.close()
        p.stderr.close()
        if timed_out or too_big:
            self._attach_file_gone(pid, a.uid if drop else os.geteuid())
        if timed_out:
            return None, "jcmd %d %s did not answer within %d ms (books_timeout)" % (
                pid, cmd, timeout * 1000)
        if too_big:
            return None, "jcmd %d %s wrote more than %d bytes: not read" % (pid, cmd, JVM_OUT_CAP)
        if status != 0:
            # Worded by the library, as the tool words it.
            why = ctypes.create_string_buffer(512)
            e, o = bytes(err), bytes(out)
            self.c.pmaps_books_jcmd_failed(pid, cmd.encode(), status if status > 0 else
                                           128 - status, e, len(e), o, len(o),
                                           int(a.other_mntns), why, len(why))
            return None, why.value.decode("utf-8", "replace")
        return bytes(out), None

    def _end_jcmd(self, p, pid, uid):
        """Kills jcmd P's process group, reaps it, closes its pipes, removes its attach file."""
        for kill in (lambda: os.killpg(p.pid, signal.SIGKILL), p.kill):
            try:
                kill()
            except OSError:
                pass
        p.wait()
        p.stdout.close()
        p.stderr.close()
        self._attach_file_gone(pid, uid)

    @staticmethod
    def _attach_file_gone(pid, uid):
        """The .attach_pidPID a jcmd killed before it attached leaves: only an empty regular
        file of the user it ran as, never through a symlink."""
        name = ".attach_pid%d" % pid
        for d in ("/proc/%d/cwd" % pid, "/tmp"):
            try:
                fd = os.open(d, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
            except OSError:
                continue
            try:
                st = os.stat(name, dir_fd=fd, follow_symlinks=False)
                if stat.S_ISREG(st.st_mode) and st.st_size == 0 and st.st_uid == uid:
                    os.unlink(name, dir_fd=fd)
            except OSError:
                pass
            finally:
                os.close(fd)

    # ---- joining and words ----

    def join(self, x, b):
        j = S.Join()
        j.size = ctypes.sizeof(j)
        self.c.pmaps_books_join(ctypes.byref(x), ctypes.byref(b), 0, ctypes.byref(j))
        return j

    def asked(self, b):
        return any(b.head[k].asked for k in range(len(self.books)))

    def to_dict(self, b, j):
        """The "runtime_books" object of `pmaps explain --json` (src/books_out.c)."""
        d = {}
        for k, name in enumerate(self.books):
            h = b.head[k]
            if not h.asked:
                continue
            if not h.ok:
                book = {"ok": False}
                json_named(book, "why", h.why)
                d[name] = book
                continue
            book = {"ok": True}
            json_named(book, "source", h.source)
            book["at"] = _at(h.at_ns)
            book["took_ms"] = _ms(h.end_ns - h.start_ns)
            if k == JVM_HEAP:
                json_named(book, "gc", b.jvm_gc)
            if k == JVM_NMT:
                book["nmt"] = self.nmt_states[b.jvm_nmt]
            for v, key in enumerate(self.values):
                if self.value_book[v] != k or not self.c.pmaps_books_has(ctypes.byref(b), v):
                    continue
                book[key] = _at(b.v[v]) if self.value_unit[v] == UNIT_TIME else b.v[v]
            if k == GO and b.go_env:
                env = {}
                json_named(env, "GOGC", b.go_gogc)
                json_named(env, "GOMEMLIMIT", b.go_gomemlimit)
                json_named(env, "GODEBUG", b.go_godebug)
                book["env"] = env
            if k == JVM_NMT and b.jvm_nmt == NMT_ON:
                cats = []
                for i in range(min(b.jvm_ncat, S.NMT_MAX)):
                    c = {}
                    json_named(c, "name", b.jvm_cat[i].name)
                    c["reserved"] = b.jvm_cat[i].reserved
                    c["committed"] = b.jvm_cat[i].committed
                    cats.append(c)
                book["categories"] = cats
            d[name] = book
        jd = {"ok": bool(j.ok)}
        if not j.ok:
            jd["refused"] = self.refusals[j.refused]
        if j.refused != JOIN_NONE:
            jd["as_of"] = _at(j.as_of_ns)
            jd["skew_ms"] = _ms(j.skew_ns)
            jd["max_skew_ms"] = _ms(j.max_skew_ns)
            jd["moved"] = j.moved
            jd["max_moved"] = j.max_moved
        if j.ok:
            jd["rss"] = j.rss
            jd["parts"] = {self.parts[p]: j.part[p] for p in range(len(self.parts))}
            terms = []
            for i in range(min(j.nterms, S.JOIN_TERMS)):
                t = j.term[i]
                terms.append({"key": self.terms[t.key],
                              "how": self.c.pmaps_join_term_how(ctypes.byref(t)).decode(),
                              "source": self.srcs[t.src], "part": self.parts[t.part],
                              "bytes": -t.bytes if t.neg else t.bytes})
            jd["terms"] = terms
        d["join"] = jd
        return d
