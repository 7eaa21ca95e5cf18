# SPDX-License-Identifier: MIT
"""pmaps: where a Linux process's memory is, from libpmaps, in psutil's habits.

A ctypes binding (nothing to compile) of libpmaps.so.0:

    memory_maps(pid, grouped=True)  smaps per mapping, or summed per path
    memory_full_info(pid)           psutil's pfullmem: rss ... uss, pss, swap
    pages(pid, start=None, end=None)  runs of pages of equal state
    explain(pid, pages=False)       where the RSS is, as `pmaps explain --json`, with the
                                    runtime's own books joined (Go, JVM)

PID is an int or "self"; PROC_ROOT (keyword) reads another proc tree, as
the tool's --proc-root. Errors are NoSuchProcess, ZombieProcess (a
NoSuchProcess), AccessDenied, all subclasses of Error, which is raised with
the library's message for anything else. Sizes are bytes.
"""

import ctypes
import errno as _errno
import os
from collections import namedtuple

from . import _handles, _lib, _structs
from ._errors import AccessDenied, Error, NoSuchProcess, ZombieProcess
from ._explain import Explain as _Explain
from ._rows import GROUP_PATH as _GROUP_PATH, SRC_SMAPS as _SRC_SMAPS, Rows as _Rows

__all__ = ["memory_maps", "memory_full_info", "pages", "explain", "Error", "NoSuchProcess",
           "ZombieProcess", "AccessDenied", "pmmap_grouped", "pmmap_ext", "pfullmem", "PageRun",
           "library_path", "library_version"]

__version__ = "0.4.0"

_cdll, library_path, _loaded = _lib.load()
#: The version of the libpmaps loaded ("0.4.0").
library_version = _lib.version_str(_loaded)

_L = _handles.Lib(_cdll)
_ROWS = _Rows(_L)
_EXPLAIN = _Explain(_L)

pmmap_grouped = _ROWS.Grouped
pmmap_ext = _ROWS.Ext
pfullmem = namedtuple("pfullmem", "rss vms shared text lib data dirty uss pss swap")
PageRun = namedtuple("PageRun", "start end flags kflags mapcount path")

_SRC_MAPS = 0
_SRC_SMAPS = 1
_PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")


def memory_maps(pid, grouped=True, *, proc_root=None):
    """PID's mappings from /proc/PID/smaps, as psutil.Process(pid).memory_maps().

    Grouped (the default): one pmmap_grouped per path, the library's sums
    (PMAPS_GROUP_PATH). Ungrouped: one pmmap_ext per mapping, with addr
    ("start-end" in hex, as the kernel prints it) and perms ("r-xp") first.
    psutil's fields (path, rss, size, pss, shared_clean, shared_dirty,
    private_clean, private_dirty, referenced, anonymous, swap) come first,
    then every other smaps field the library knows by its snake_case key
    (None when the kernel did not print it). A kernel thread has none: [].
    """
    with _handles.proc(_L, pid, proc_root) as h, _handles.maps(_L, pid, h, _SRC_SMAPS) as cur:
        if cur is None:
            return []
        if not grouped:
            return _ROWS.ungrouped(cur, pid)
        with _handles.group(_L, pid, _GROUP_PATH) as g:
            return _ROWS.grouped(cur, g, pid)


def _status(h, pid):
    st = _structs.Status()
    st.size = ctypes.sizeof(st)
    msg = ctypes.create_string_buffer(256)
    err = _cdll.pmaps_status_read(h, ctypes.byref(st), msg, len(msg))
    if err < 0:
        raise _L.fail(err, pid, msg.value, "status")
    return st


def _statm(h, pid):
    """statm's text and data (pages), the two figures of psutil's the library does not read."""
    fd = -1
    try:
        fd = os.open("statm", os.O_RDONLY | os.O_CLOEXEC, dir_fd=_cdll.pmaps_proc_dirfd(h))
        words = os.read(fd, 256).split()
        return int(words[3]) * _PAGE_SIZE, int(words[5]) * _PAGE_SIZE
    except ProcessLookupError:
        raise NoSuchProcess("statm: process %s exited" % (pid,), pid, _errno.ESRCH) from None
    except FileNotFoundError:
        raise NoSuchProcess("statm: process %s exited" % (pid,), pid, _errno.ESRCH) from None
    except PermissionError as e:
        raise AccessDenied("statm: %s" % e.strerror, pid, e.errno) from None
    except OSError as e:
        raise Error("statm: %s" % e.strerror, pid, e.errno) from None
    finally:
        if fd >= 0:
            os.close(fd)


def _total(h, pid):
    """PID's totals, smaps_rollup's row (or smaps summed), as {field key: value}; None for a
    kernel thread. Absent fields are as in memory_maps(): 0 for psutil's, else None."""
    row = ctypes.create_string_buffer(_TOTAL_ROW_SIZE)
    source = ctypes.c_int()
    msg = ctypes.create_string_buffer(256)
    err = _cdll.pmaps_total(h, row, ctypes.sizeof(row), ctypes.byref(source), msg, len(msg))
    if err == -_errno.ENODATA:
        return None  # a kernel thread
    if err < 0:
        raise _L.fail(err, pid, msg.value, "smaps_rollup")
    return dict(zip(_ROWS.Grouped._fields[1:],
                    _ROWS.values(_cdll.pmaps_group_value, ctypes.addressof(row))))


# Room for pmaps_total()'s row: struct pmaps_group_row is 568 bytes in ABI 0
# and only grows at its end; the library fills min(this, its sizeof) and
# pmaps_group_value() reads its own sizeof of it, zeroes past what it filled.
_TOTAL_ROW_SIZE = 4096


def memory_full_info(pid, *, proc_root=None):
    """psutil.Process(pid).memory_full_info() as a pfullmem.

    rss, vms: VmRSS and VmSize (status); shared: RssFile + RssShmem, what
    statm's third figure counts; text and data: statm's, which psutil
    reports (the library reads no statm); lib and dirty: 0, unused since
    Linux 2.6 (psutil's documentation). uss, pss, swap: the library's total
    (smaps_rollup, or smaps summed before Linux 4.14): uss is Private_Clean
    + Private_Dirty + Private_Hugetlb, as psutil sums the Private_ lines.
    """
    with _handles.proc(_L, pid, proc_root) as h:
        st = _status(h, pid)
        text, data = _statm(h, pid)
        tot = _total(h, pid)
    v = st.v
    present = st.present
    rss = v[_ST["vm_rss"]] if (present >> _ST["vm_rss"]) & 1 else 0
    vms = v[_ST["vm_size"]] if (present >> _ST["vm_size"]) & 1 else 0
    shared = sum(v[_ST[k]] for k in ("rss_file", "rss_shmem") if (present >> _ST[k]) & 1)
    if tot is None:
        uss = pss = swap = 0
    else:
        uss = tot["private_clean"] + tot["private_dirty"] + (tot.get("private_hugetlb") or 0)
        pss, swap = tot["pss"], tot["swap"]
    return pfullmem(rss, vms, shared, text, 0, data, 0, uss, pss, swap)


def _keys(fn, limit):
    out = {}
    for i in range(limit):
        k = fn(i)
        if k is None:
            break
        out[k.decode()] = i
    return out


_ST = _keys(_cdll.pmaps_status_key, _structs.ST_MAX)

# PMAPS_PAGES_KPAGE, PMAPS_PG_PRESENT, PMAPS_PAGES_AUTO
_PAGES_KPAGE = 1 << 1
_PG_PRESENT = 1 << 0
_PAGES_AUTO = 0


def _flag_names(fn, bits, limit):
    names = []
    for b in range(limit):
        if (bits >> b) & 1:
            n = fn(1 << b)
            names.append(n.decode() if n is not None else "0x%x" % (1 << b))
    return frozenset(names)


def _runs(pid, maps, pg, lo, hi, kpage):
    """The runs of page cursor PG over every mapping of maps cursor MAPS, clipped to [LO, HI)."""
    if pg is None:
        return
    c = _cdll
    mp, rp = ctypes.c_void_p(), ctypes.c_void_p()
    flags_cache, kflags_cache = {}, {}
    while True:
        r = c.pmaps_maps_next(maps, ctypes.byref(mp))
        if r < 0:
            raise _L.fail(r, pid, c.pmaps_maps_errmsg(maps), "maps")
        if r == 0:
            return
        m = _structs.Mapping.from_address(mp.value)
        start, end = m.start, m.end
        if lo is not None and start < lo:
            start = lo
        if hi is not None and end > hi:
            end = hi
        if start >= end:
            continue
        path = os.fsdecode(m.path.bytes())
        err = c.pmaps_pages_seek(pg, start, end)
        while err == 0:
            r = c.pmaps_pages_next(pg, ctypes.byref(rp))
            if r <= 0:
                err = r
                break
            run = _structs.PageRange.from_address(rp.value)
            f = run.flags
            names = flags_cache.get(f)
            if names is None:
                names = flags_cache[f] = _flag_names(c.pmaps_page_flag_name, f, 32)
            kflags = mapcount = None
            if kpage and f & _PG_PRESENT:
                k = run.kflags
                kflags = kflags_cache.get(k)
                if kflags is None:
                    kflags = kflags_cache[k] = _flag_names(c.pmaps_kpage_flag_name, k, 64)
                mapcount = run.mapcount
            yield PageRun(run.start, run.end, names, kflags, mapcount, path)
        if err < 0:
            raise _L.fail(err, pid, c.pmaps_pages_errmsg(pg), "pagemap")


class _Pages:
    """The iterator pages() returns: it owns a process handle, a maps and a page cursor,
    closed when it is exhausted, fails, is closed (close(), a with block) or collected."""

    def __init__(self, pid, start, end, proc_root):
        self._it = None
        self._h = self._maps = self._pg = None
        self._stack = []
        try:
            proc_cm = _handles.proc(_L, pid, proc_root)
            self._h = proc_cm.__enter__()
            self._stack.append(proc_cm)
            c = _cdll
            pg_cm = _handles.cursor(_L, pid, "pagemap", c.pmaps_pages_open, c.pmaps_pages_close,
                                    c.pmaps_pages_errmsg, self._h, _PAGES_AUTO, _PAGES_KPAGE,
                                    kernel_thread_ok=True)
            self._pg = pg_cm.__enter__()
            self._stack.append(pg_cm)
            if self._pg is not None:
                maps_cm = _handles.maps(_L, pid, self._h, _SRC_MAPS, kernel_thread_ok=False)
                self._maps = maps_cm.__enter__()
                self._stack.append(maps_cm)
                self.kpage = c.pmaps_pages_kpage(self._pg) == 1
                self.strategy = "scan" if c.pmaps_pages_strategy(self._pg) == 1 else "pagemap"
            else:
                self.kpage, self.strategy = False, None
        except BaseException:
            self.close()
            raise
        # The runs' generator holds no reference to self: dropping the
        # iterator closes it at once, with no cycle for the collector.
        self._it = _runs(pid, self._maps, self._pg, start, end, self.kpage)

    def __iter__(self):
        return self

    def __next__(self):
        if self._it is None:
            raise StopIteration
        try:
            return next(self._it)
        except BaseException:
            self.close()
            raise

    def close(self):
        """Closes the cursors and the process handle. Safe to call twice."""
        it, self._it = getattr(self, "_it", None), None
        if it is not None:
            it.close()
        while self._stack:
            self._stack.pop().__exit__(None, None, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()


def pages(pid, start=None, end=None, *, proc_root=None):
    """PID's pages as runs of equal state, mapping by mapping, in address order.

    Each run is a PageRun(start, end, flags, kflags, mapcount, path): flags
    the names of its PMAPS_PG_* state ("present", "file", ...); as root,
    for present runs, kflags the names of its kpageflags and mapcount its
    kpagecount (None otherwise). [START, END) limits the runs to a range
    (None: unbounded). The process is opened here (errors are raised now);
    the iterator closes what it opened when it ends, or on close() or a
    with block's end.
    """
    for name, v in (("start", start), ("end", end)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 0):
            raise ValueError("%s must be a non-negative int or None, not %r" % (name, v))
    return _Pages(pid, start, end, proc_root)


_SOURCES = {"auto": 31, "smaps": 1, "pages": 4}  # PMAPS_SRC_AUTO, _SMAPS, _PAGES
_EXPLAIN_HOLD_NS = 5000000  # PMAPS_EXPLAIN_HOLD_NS
_EXPLAIN_GENTLE = 4  # PMAPS_EXPLAIN_GENTLE
_EXPLAIN_PACED = 8  # PMAPS_EXPLAIN_PACED
_CHOICE_OVER = 2  # PMAPS_CHOICE_OVER


def explain(pid, pages=False, *, source="auto", books=True, books_timeout=2.0, proc_root=None):
    """Where PID's resident memory is, as the dict `pmaps explain --json [--pages]` prints.

    SOURCE: "auto" (the library's choice, as every front end of pmaps makes
    it: smaps, unless one read of it would hold the process's mmap_lock
    longer than 5 ms, then the page tables, gently), "smaps" or "pages".
    BOOKS: also read the runtime's own books (a Go program's runtime.MemStats
    from its net/http/pprof on loopback, a JVM's GC.heap_info and Native
    Memory Tracking through jcmd), each request within BOOKS_TIMEOUT
    seconds, and join them to the kernel's figures: "runtime_books".
    """
    if source not in _SOURCES:
        raise ValueError("source must be 'auto', 'smaps' or 'pages', not %r" % (source,))
    if isinstance(books_timeout, bool) or not isinstance(books_timeout, (int, float)) or \
            not 0.01 <= books_timeout <= 600:
        raise ValueError("books_timeout must be seconds from 0.01 to 600, not %r" %
                         (books_timeout,))
    c = _cdll
    with _handles.proc(_L, pid, proc_root) as h:
        real_pid = c.pmaps_proc_pid(h)
        choice = _structs.ExplainChoice()
        choice.size = ctypes.sizeof(choice)
        msg = ctypes.create_string_buffer(256)
        err = c.pmaps_explain_choose(h, _SOURCES[source], _EXPLAIN_HOLD_NS,
                                     ctypes.byref(choice), msg, len(msg))
        if err < 0:
            raise _L.fail(err, pid, msg.value, "explain")
        if choice.reason == _CHOICE_OVER and choice.options & _EXPLAIN_GENTLE:
            # One read, as pmaps explain: paced, not gently (PMAPS_POLICY_PACED).
            choice.options = (choice.options & ~_EXPLAIN_GENTLE) | _EXPLAIN_PACED
        b = None
        if books:
            # The runtime's books first, the kernel's figures right after (what asking costs
            # the process is then in both), as every front end of pmaps reads them.
            rt = c.pmaps_books_runtime(h)
            b = _EXPLAIN.books.read(h, real_pid, rt if rt > 0 else 0, float(books_timeout))
        s = ctypes.c_void_p()
        out = ctypes.c_void_p()
        err = c.pmaps_explain_open(ctypes.byref(s), h, choice.options | _explain_options(pages))
        try:
            if err == 0:
                err = c.pmaps_explain_run(s, ctypes.byref(out))
            if err == -_errno.ENODATA:
                # A kernel thread: no user-space memory, as smaps would say of every state.
                x = _structs.Explain()
                x.source = choice.source
                x.xc_known = (1 << len(_EXPLAIN.xc_keys)) - 1
                return _EXPLAIN.to_dict(x, real_pid, library_version, kernel_thread=True,
                                        choice=choice)
            if err < 0:
                raise _L.fail(err, pid, c.pmaps_explain_errmsg(s) if s else None, "explain")
            x = _structs.Explain.from_address(out.value)
            bk = None if b is None else (b, _EXPLAIN.books.join(x, b))
            return _EXPLAIN.to_dict(x, real_pid, library_version, choice=choice, books=bk)
        finally:
            if s:
                c.pmaps_explain_close(s)


def _explain_options(with_pages):
    return 1 if with_pages else 0  # PMAPS_EXPLAIN_PAGES
