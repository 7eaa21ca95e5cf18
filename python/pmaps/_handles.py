# SPDX-License-Identifier: MIT
"""The library's handles and cursors as context managers: each is closed on every path out."""

import contextlib
import ctypes
import errno

from ._errors import error_for


class Lib:
    """The loaded library, and what every handle needs of it."""

    def __init__(self, cdll):
        self.c = cdll

    def strerror(self, err):
        s = self.c.pmaps_strerror(err)
        return s.decode("utf-8", "replace") if s else "error %d" % -err

    def fail(self, err, pid, msg=None, what=None):
        """The exception for ERR: MSG (bytes from an errmsg function) or WHAT: strerror."""
        text = msg.decode("utf-8", "replace") if msg else ""
        if not text:
            text = self.strerror(err)
            if what:
                text = "%s: %s" % (what, text)
        return error_for(err, pid, text)


def pid_arg(pid):
    """PID (an int, or "self") as the library takes it."""
    if pid == "self":
        return b"self"
    if isinstance(pid, bool) or not isinstance(pid, int):
        raise TypeError("pid must be an int, not %r" % (pid,))
    if pid < 0:
        raise ValueError("pid must be a positive integer (got %d)" % pid)
    return str(pid).encode()


def root_arg(proc_root):
    if proc_root is None:
        return None
    return proc_root if isinstance(proc_root, bytes) else str(proc_root).encode()


@contextlib.contextmanager
def proc(lib, pid, proc_root=None):
    """An open process handle (pmaps_proc_open)."""
    h = ctypes.c_void_p()
    err = lib.c.pmaps_proc_open(ctypes.byref(h), root_arg(proc_root), pid_arg(pid))
    if err < 0:
        raise lib.fail(err, pid, what="process %s" % (pid,))
    try:
        yield h
    finally:
        lib.c.pmaps_proc_close(h)


@contextlib.contextmanager
def cursor(lib, pid, what, open_fn, close_fn, errmsg_fn, *args, kernel_thread_ok=False):
    """A cursor opened with OPEN_FN(&out, *ARGS), closed with CLOSE_FN.

    The library sets the cursor even when its open fails, so that its
    message can be read: it is closed then too. With KERNEL_THREAD_OK, a
    kernel thread (-ENODATA) yields None instead of raising."""
    h = ctypes.c_void_p()
    err = open_fn(ctypes.byref(h), *args)
    try:
        if err == -errno.ENODATA and kernel_thread_ok:
            yield None
            return
        if err < 0:
            raise lib.fail(err, pid, errmsg_fn(h) if h else None, what)
        yield h
    finally:
        if h:
            close_fn(h)


def maps(lib, pid, h, source, kernel_thread_ok=True):
    c = lib.c
    return cursor(lib, pid, "maps", c.pmaps_maps_open, c.pmaps_maps_close, c.pmaps_maps_errmsg,
                  h, source, 0, kernel_thread_ok=kernel_thread_ok)


def group(lib, pid, by):
    c = lib.c
    return cursor(lib, pid, "group", c.pmaps_group_open, c.pmaps_group_close,
                  lambda h: None, by)
