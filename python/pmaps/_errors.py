# SPDX-License-Identifier: MIT
"""The exceptions, in psutil's habits, and the mapping from libpmaps's errors to them.

libpmaps returns a negative errno and a message. -ESRCH is a process gone
(NoSuchProcess), or a zombie when the message says so (ZombieProcess, a
NoSuchProcess as in psutil); -EACCES and -EPERM are AccessDenied; anything
else is Error with the library's message.

Where psutil can be imported, NoSuchProcess, ZombieProcess and AccessDenied
are also psutil's (a psutil user's `except psutil.NoSuchProcess` catches
them) and carry its attributes: pid, name (None: the library does not read
the process's name), msg, and ppid for ZombieProcess. Without psutil they
are plain classes with the same attributes. Error itself is not psutil's:
a failure that is not one of those three is not a psutil error.
"""

import errno as _errno

try:
    import psutil as _psutil
except ImportError:
    _psutil = None


def _psutil_base(name):
    return (getattr(_psutil, name),) if _psutil is not None else ()


#: True when NoSuchProcess, ZombieProcess and AccessDenied subclass psutil's.
PSUTIL = _psutil is not None


class Error(Exception):
    """Base class of pmaps's exceptions. ERRNO is the library's error (positive), or None.

    Positional arguments are pmaps's (msg, pid, errno); psutil's keywords
    (pid=, name=, msg=) work too, and msg defaults to the class's words.
    """

    __module__ = "pmaps"
    _default_msg = "pmaps error"

    def __init__(self, msg=None, pid=None, errno=None, name=None):
        msg = self._default_msg if msg is None else str(msg)
        Exception.__init__(self, msg)
        self.msg = msg
        self.pid = pid
        self.name = name
        self.errno = errno

    def __str__(self):
        return self.msg

    def __repr__(self):
        return "pmaps.%s(pid=%r, errno=%r, msg=%r)" % (type(self).__name__, self.pid,
                                                       self.errno, self.msg)

    def __reduce__(self):
        # Every attribute back (name, ppid, ...), not only the constructor's.
        return (type(self), (self.msg, self.pid, self.errno), dict(self.__dict__))


class NoSuchProcess(Error, *_psutil_base("NoSuchProcess")):
    """The process does not exist (any more)."""

    __module__ = "pmaps"
    _default_msg = "process no longer exists"


class ZombieProcess(NoSuchProcess, *_psutil_base("ZombieProcess")):
    """The process has exited and its parent has not reaped it: it has no memory to read."""

    __module__ = "pmaps"
    _default_msg = "process is a zombie"

    def __init__(self, msg=None, pid=None, errno=None, name=None, ppid=None):
        NoSuchProcess.__init__(self, msg, pid, errno, name)
        self.ppid = ppid


class AccessDenied(Error, *_psutil_base("AccessDenied")):
    """The caller may not read the process (ptrace-read access, or root, is needed)."""

    __module__ = "pmaps"
    _default_msg = "access denied"


def error_for(err, pid, text):
    """The exception for the library's return ERR (a negative errno) with message TEXT."""
    e = -err
    if e == _errno.ESRCH:
        if "zombie" in text:
            return ZombieProcess(text, pid, e)
        return NoSuchProcess(text, pid, e)
    if e in (_errno.EACCES, _errno.EPERM):
        return AccessDenied(text, pid, e)
    return Error(text, pid, e)
